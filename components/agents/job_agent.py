#!/usr/bin/env python3
"""trainstack job agent: runs `trainstack run` jobs on this node, launched by torchrun.

A long-running service on every node (components/boot/jobs.py installs it). It polls the
cluster's bucket for job requests, `jobs/<id>/request.json`:

    {"id", "argv": [...], "launcher": "torchrun" | "none", "max_restarts": 0,
     "nproc_per_node": null, "env": {}, "rdzv_port": null, "min_nodes": null,
     "last_call_s": null, "stale_s": 120}

and runs each one once, one at a time. With the torchrun launcher the command becomes

    torchrun --nnodes=M:N --nproc-per-node=P --rdzv-backend=c10d
             --rdzv-endpoint=<rank 0's address>:<port> --rdzv-id=<id>
             --rdzv-conf=is_host=<this node is rank 0> --max-restarts=R -- CMD...

N, the address and this node's rank come from the boot's ranks profile (the node group's own
list, /etc/profile.d/trainstack-ranks.sh); P is the node's GPUs (NPROC_PER_NODE) unless the
request says otherwise; the fabric's NCCL environment comes from the boot's NCCL profile. One
node hosts the c10d store (is_host), so no node races to host it: the one `run` elected
(request "rdzv_host"/"rdzv_addr", the first live node, with N the live nodes), else rank 0.
M is the request's min_nodes (default N).

When that host is lost while the job runs (its heartbeat older than the request's stale_s, its
heartbeat "leaving", its health record withdrawn, or preempted out of the job) and restarts are
left, the agents of the nodes that remain elect the lowest healthy one (node_rank in its health
record, then name); that node writes jobs/<id>/attempts/<n>.json ({"attempt", "host", "addr",
"port", "endpoint", "nodes", "lost", "why", "restarts_left"}), and every agent stops its torchrun
and starts it again against the new host (the first port from port + 1 the new host can listen on,
--max-restarts = what is left). With fewer
than M nodes left the agents stop the job instead, naming the host and the minimum. torchrun runs
with LOGLEVEL=INFO so that its "Rendezvous complete" report is in the log; from it each node
writes jobs/<id>/<node>/ranks.json, the ranks it held in each attempt and restart.

Every agent writes a heartbeat, heartbeat/<node>.json ({"time", "addr", "leaving", "job"}),
every --heartbeat seconds; on a node marked leaving it also withdraws the node's health record
(status/<node>.json: ok false, "withdrawn"). A job is never left without this node's exit
record: one over before this node started it (another node failed, or `run` cancelled it with
jobs/<id>/cancel.json) gets an exit record saying why ("stopped"), and a torchrun job running
here is stopped (SIGTERM, SIGKILL after --stop-grace) when another node fails or `run` cancels.
torchrun's elastic restarts (--max-restarts) restart the workers on every node after a failure or
preemption; the training
script resumes from its checkpoint. Where the runtime step pinned an image
(/etc/trainstack/runtime.env: TS_IMAGE), the launch runs inside it with the GPUs, the RDMA
devices and /lustre, /scratch mounted.

While a job runs, /var/lib/trainstack/jobs/<id>.json holds {"pid": N}: the idle agent counts a
live pid there as work, so a training run with idle-looking GPUs (data loading, a checkpoint)
is never reaped. The pid is torchrun's own (or `docker run`'s, which relays signals to the
container's torchrun): the preemption agent sends it SIGTERM on a notice, and torchrun forwards
it to the workers, which save their checkpoint. Every job gets the checkpoint helper on its
PYTHONPATH and TORCH_DISABLE_SHARE_RDZV_TCP_STORE=1 (see RESTART_ENV); a node marked leaving
starts no new job and marks its exit record "preempted". Into the bucket go, per node:
`jobs/<id>/<node>/started.json`, `log.txt`
(refreshed every poll while the job runs), `exit.json` ({"rc", ...}) and whatever the job wrote
to $TRAINSTACK_JOB_OUT (under `out/`).

The bucket is a local directory or file:// URL (tests, a shared filesystem) or, where fsspec
and the cloud's backend are importable (the boot step installs them), any fsspec URL (s3://,
gs://, abfs://, oss://). Every absolute path above sits under --root (default /), so several
"nodes" can share one machine in tests. Python 3 standard library only, fsspec optional.
"""
from __future__ import annotations

import argparse
import json
import os
import shlex
import signal
import socket
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Optional

AGENT_VERSION = 2
JOBS_PREFIX = "jobs"
STATUS_PREFIX = "status"        # status/<node>.json: the health record the boot wrote
HEARTBEAT_PREFIX = "heartbeat"  # heartbeat/<node>.json: this agent is alive, {"time": epoch s}
CANCEL_FILE = "cancel.json"     # jobs/<id>/cancel.json: `run` gave the job up (a node vanished)
# jobs/<id>/attempts/<n>.json: the job's rendezvous after its host was lost (n >= 1; attempt 0
# is the request's own), written by the node elected to host it.
ATTEMPTS_DIR = "attempts"
RANKS_FILE = "ranks.json"       # jobs/<id>/<node>/ranks.json: the ranks torchrun gave this node
DEFAULT_HEARTBEAT_S = 30.0
# After SIGTERM, how long a stopped job gets to save before SIGKILL (a cloud's notice is 30 s+).
STOP_GRACE_S = 30.0
LOCAL_JOBS_DIR = "/var/lib/trainstack/jobs"   # <id>.json = {"pid"}: the idle agent's "busy"
STATE_FILE = "/var/lib/trainstack/job-agent.json"
RANKS_PROFILE = "/etc/profile.d/trainstack-ranks.sh"
NCCL_PROFILE = "/etc/profile.d/trainstack-nccl.sh"
RUNTIME_ENV = "/etc/trainstack/runtime.env"
AGENT_PATH = "/opt/trainstack/job_agent.py"
ENV_FILE = "/etc/trainstack/jobs.env"          # TS_NODE, TS_BUCKET_URL, written at boot
SERVICE = "trainstack-jobs.service"
DEFAULT_PORT = 29500
CONTAINER_MOUNTS = ("/lustre", "/scratch")
# Host paths the fabric step found for the container (plugin dirs, sockets, devices, topology).
FABRIC_MOUNTS_FILE = "/etc/trainstack/container-mounts"
# Only these of the boot's profile variables enter the container: NCCL's and its transports'
# settings and torchrun's rendezvous. PATH, LD_LIBRARY_PATH and the like stay the image's own;
# host library folders the container can see are prepended inside it (HOST_LIBS_ENV).
CONTAINER_ENV_PREFIXES = ("NCCL_", "FI_", "UCX_", "OMPI_", "TORCH_", "CUDA_", "TRAINSTACK_")
CONTAINER_ENV_NAMES = ("MASTER_ADDR", "MASTER_PORT", "NNODES", "NODE_RANK", "NPROC_PER_NODE",
                       "PYTHONPATH", "LOGLEVEL")
HOST_LIBS_ENV = "TRAINSTACK_HOST_LIBS"
# Prepends the mounted host library folders to the image's own LD_LIBRARY_PATH, then runs the job.
PREPEND_LIBS = ('LD_LIBRARY_PATH="$TRAINSTACK_HOST_LIBS${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"; '
                'export LD_LIBRARY_PATH; exec "$@"')
# What the preemption boot step (components/boot/preemption.py) leaves for the job: the
# checkpoint helper's folder (`import trainstack_resumable`), and the notice file and events
# folder the helper reads and writes (under the state folder the container also sees).
HELPER_DIR = "/opt/trainstack/python"
STATE_DIR = "/var/lib/trainstack"
NOTICE_FILE = f"{STATE_DIR}/preemption.json"
EVENTS_DIR = f"{STATE_DIR}/events"
LEAVING_FILE = f"{STATE_DIR}/leaving"
# With torchrun's shared TCP store (torch >= 2.4) the c10d rendezvous store lives in rank 0's
# first agent run, and a replacement node joining an elastic restart waits forever for the
# rank-0 address (pytorch/pytorch#135712): a node replaced after a preemption would never join.
RESTART_ENV = {"TORCH_DISABLE_SHARE_RDZV_TCP_STORE": "1"}
# torchrun's elastic agent logs each rendezvous's outcome ("Rendezvous complete for workers.
# Result: restart_count=.. group_rank=.. global_ranks=[..]") at INFO only; LOGLEVEL sets its
# loggers' level (torch/distributed/elastic/utils/logging.py). From that line each node records
# which ranks it held in each attempt -- c10d assigns them by arrival, not by NODE_RANK.
RANKS_LOG_ENV = {"LOGLEVEL": "INFO"}
# How long the node a re-election picked gets to write the new attempt before the others give up.
ELECTION_WAIT_S = 60.0

UNIT = f"""\
[Unit]
Description=trainstack job agent: run `trainstack run` jobs from the cluster bucket
After=network-online.target docker.service
Wants=network-online.target

[Service]
EnvironmentFile=-{ENV_FILE}
ExecStart={{python}} {AGENT_PATH} --bucket ${{TS_BUCKET_URL}} --node ${{TS_NODE}}
Restart=always
RestartSec=10
# A job outlives an agent restart only as a killed job: torchrun's own restarts cover the rest.
KillMode=control-group

[Install]
WantedBy=multi-user.target
"""


def unit_file(python: str = "/usr/bin/python3") -> str:
    return UNIT.replace("{python}", python)


def utc_now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


# --------------------------------------------------------------------------- the bucket

class DirStore:
    """A local directory standing in for the bucket (tests; a shared filesystem)."""

    def __init__(self, root: str):
        self.root = Path(root[len("file://"):] if root.startswith("file://") else root)

    def get(self, key: str) -> Optional[bytes]:
        try:
            return (self.root / key).read_bytes()
        except OSError:
            return None

    def put(self, key: str, data: bytes) -> None:
        path = self.root / key
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        tmp.write_bytes(data)
        os.replace(tmp, path)   # readers never see half a file

    def job_ids(self) -> list[str]:
        base = self.root / JOBS_PREFIX
        return sorted(p.parent.name for p in base.glob("*/request.json")) if base.is_dir() else []

    def exit_nodes(self, job_id: str) -> list[str]:
        return sorted(p.parent.name for p in (self.root / JOBS_PREFIX / job_id).glob("*/exit.json"))


# Alibaba: ossfs takes the bucket's endpoint and the RAM role's STS credentials, which the ECS
# metadata server hands out (meta-data/ram/security-credentials/<role>: AccessKeyId,
# AccessKeySecret, SecurityToken, Expiration) and which expire: fetched again ahead of that.
ECS_CREDENTIALS = "http://100.100.100.200/latest/meta-data/ram/security-credentials/"
CREDENTIALS_MARGIN_S = 600


def oss_options(env=None, fetch=None) -> tuple[dict, float]:
    """(ossfs options, when they expire) from TS_OSS_ENDPOINT and TS_RAM_ROLE."""
    env = os.environ if env is None else env
    endpoint, role = env.get("TS_OSS_ENDPOINT", ""), env.get("TS_RAM_ROLE", "")
    if not endpoint or not role:
        raise ValueError("oss:// needs TS_OSS_ENDPOINT and TS_RAM_ROLE in the agent's "
                         f"environment ({ENV_FILE}, written at boot)")
    if fetch is None:
        import urllib.request  # noqa: PLC0415

        def fetch(url):
            with urllib.request.urlopen(url, timeout=10) as answer:
                return answer.read()
    doc = json.loads(fetch(ECS_CREDENTIALS + role))
    expires = datetime.strptime(doc["Expiration"], "%Y-%m-%dT%H:%M:%SZ").replace(
        tzinfo=timezone.utc).timestamp()
    return ({"endpoint": endpoint, "key": doc["AccessKeyId"], "secret": doc["AccessKeySecret"],
             "token": doc["SecurityToken"]}, expires)


class FsspecStore:
    """Any fsspec URL (s3://, gs://, abfs://, oss://), where fsspec and the backend import."""

    def __init__(self, url: str, options=None):
        self.url = url.rstrip("/")
        self.options = options       # () -> (storage options, expiry): credentials that expire
        self.expires = float("inf")
        self._open()

    def _open(self) -> None:
        import fsspec  # noqa: PLC0415  (optional: the stdlib-only node uses DirStore)
        kwargs: dict = {}
        if self.options is not None:
            kwargs, self.expires = self.options()
        self.fs, self.base = fsspec.core.url_to_fs(self.url, **kwargs)

    def _fresh(self) -> None:
        if time.time() > self.expires - CREDENTIALS_MARGIN_S:
            self._open()

    def _path(self, key: str) -> str:
        return f"{self.base}/{key}"

    def get(self, key: str) -> Optional[bytes]:
        self._fresh()
        try:
            with self.fs.open(self._path(key), "rb") as handle:
                return handle.read()
        except (FileNotFoundError, OSError):
            return None

    def put(self, key: str, data: bytes) -> None:
        self._fresh()
        with self.fs.open(self._path(key), "wb") as handle:
            handle.write(data)

    def job_ids(self) -> list[str]:
        self._fresh()
        self.fs.invalidate_cache()
        try:
            paths = self.fs.glob(self._path(f"{JOBS_PREFIX}/*/request.json"))
        except (FileNotFoundError, OSError):
            return []
        return sorted(p.rstrip("/").split("/")[-2] for p in paths)

    def exit_nodes(self, job_id: str) -> list[str]:
        try:
            paths = self.fs.glob(self._path(f"{JOBS_PREFIX}/{job_id}/*/exit.json"))
        except (FileNotFoundError, OSError):
            return []
        return sorted(p.rstrip("/").split("/")[-2] for p in paths)


def open_store(url: str):
    if url.startswith("file://") or "://" not in url:
        return DirStore(url)
    if url.startswith("oss://"):
        return FsspecStore(url, oss_options)
    return FsspecStore(url)


# --------------------------------------------------------------------------- the node

def profile_env(paths: list[Path]) -> dict[str, str]:
    """The variables the boot's profiles export, as a login shell would see them (a profile
    may build on variables, e.g. LD_LIBRARY_PATH=...:$LD_LIBRARY_PATH)."""
    present = [p for p in paths if p.is_file()]
    if not present:
        return {}
    script = "; ".join(f". {shlex.quote(str(p))} >/dev/null 2>&1" for p in present)
    done = subprocess.run(["sh", "-c", f"{script}; env -0"], capture_output=True, timeout=30,
                          env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")})
    env = {}
    for item in done.stdout.split(b"\0"):
        key, sep, value = item.decode("utf-8", "replace").partition("=")
        if sep and key not in ("PWD", "SHLVL", "_"):
            env[key] = value
    return env


def read_env_file(path: Path) -> dict[str, str]:
    env: dict[str, str] = {}
    try:
        lines = path.read_text().splitlines()
    except OSError:
        return env
    for line in lines:
        key, sep, value = line.strip().partition("=")
        if sep and not key.startswith("#"):
            env[key.strip()] = value.strip().strip("'\"")
    return env


class Node:
    """This node's facts, every path under `root`."""

    def __init__(self, name: str, root: str = "/"):
        self.name = name
        self.root = Path(root)

    def path(self, absolute: str) -> Path:
        return self.root / absolute.lstrip("/")

    def boot_env(self) -> dict[str, str]:
        return profile_env([self.path(NCCL_PROFILE), self.path(RANKS_PROFILE)])

    def fabric_mounts(self) -> tuple[str, ...]:
        try:
            lines = self.path(FABRIC_MOUNTS_FILE).read_text().splitlines()
        except OSError:
            return ()
        return tuple(line.strip() for line in lines if line.strip().startswith("/"))

    def image(self) -> Optional[str]:
        return read_env_file(self.path(RUNTIME_ENV)).get("TS_IMAGE") or None

    def leaving(self) -> bool:
        """The preemption agent marked this node as going away (it writes this before SIGTERM)."""
        return self.path(LEAVING_FILE).exists()

    def job_env(self, base: dict[str, str]) -> dict[str, str]:
        """What every job needs to survive a preemption, over `base`: the checkpoint helper on
        the Python path, this node's notice file and events folder, torchrun restarts that a
        replacement node can join."""
        helper = str(self.path(HELPER_DIR))
        path = base.get("PYTHONPATH")
        return {**RESTART_ENV,
                "PYTHONPATH": f"{helper}{os.pathsep}{path}" if path else helper,
                "TRAINSTACK_NOTICE_FILE": str(self.path(NOTICE_FILE)),
                "TRAINSTACK_EVENTS_DIR": str(self.path(EVENTS_DIR))}


def node_address(master_addr: Optional[str]) -> Optional[str]:
    """This node's address as the other nodes reach it: the interface that routes to the
    boot's rank 0 (a UDP connect sends nothing), else the hostname's."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect((master_addr or "10.255.255.255", 9))
            return probe.getsockname()[0]
    except OSError:
        try:
            return socket.gethostbyname(socket.gethostname())
        except OSError:
            return None


def listenable_port(start: int, tries: int = 64) -> int:
    """The first port from `start` this node can listen on (else `start`). The elected host's
    torchrun must bind its store there (is_host=true has no fallback: a port in use ends the
    attempt at once, and with it the job); a port another process holds -- an outgoing
    connection's, when the boot's port sits in the ephemeral range -- is skipped. Like the
    store, the probe reuses an address in TIME_WAIT."""
    for port in range(start, min(start + tries, 65536)):
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind(("", port))
                probe.listen(1)
            except OSError:
                continue
            return port
    return start


def min_nodes(request: dict, nnodes: int) -> int:
    """The fewest nodes the job may run on (request "min_nodes"; default: all of them)."""
    return max(1, min(int(request.get("min_nodes") or nnodes), nnodes))


def request_attempt(request: dict) -> dict:
    """Attempt 0: the rendezvous `run` chose (host, members, torchrun's restart budget)."""
    return {"attempt": 0, "host": request.get("rdzv_host"), "addr": request.get("rdzv_addr"),
            "port": request.get("rdzv_port"),
            "nodes": list(request.get("run_on") or request.get("nodes") or []),
            "restarts_left": int(request.get("max_restarts") or 0)}


def launch_argv(request: dict, env: dict[str, str], launcher: list[str],
                node_name: Optional[str] = None, attempt: Optional[dict] = None) -> list[str]:
    """The command this node runs for `request`, given the boot's environment `env`; with
    `attempt` (n >= 1, after the rendezvous host was lost), against that attempt's host."""
    argv = [str(a) for a in request["argv"]]
    if request.get("launcher", "torchrun") == "none":
        return argv
    # `trainstack run -- python train.py`: torchrun starts the script with its own Python;
    # any other command runs as it is (--no-python).
    if Path(argv[0]).name.startswith("python") and len(argv) > 1 and not argv[1].startswith("-"):
        script = argv[1:]
    else:
        script = ["--no-python", *argv]
    missing = [k for k in ("MASTER_ADDR", "NNODES", "NODE_RANK") if not env.get(k)]
    if missing:
        raise ValueError(f"the ranks profile ({RANKS_PROFILE}) does not set "
                         f"{', '.join(missing)}: did the boot's ranks step succeed?")
    # A request may name fewer nodes than the group (bench's one-node training run, or the
    # nodes still alive after one was lost).
    nnodes = int(request.get("nnodes") or env["NNODES"])
    nproc = int(request.get("nproc_per_node") or env.get("NPROC_PER_NODE") or 1)
    port = int(request.get("rdzv_port") or env.get("MASTER_PORT") or DEFAULT_PORT)
    # The c10d store's host: the node `run` elected among the live ones (request "rdzv_host",
    # its address in "rdzv_addr"), so losing rank 0 does not leave the job without a store;
    # else the boot's rank 0.
    restarts = int(request.get("max_restarts") or 0)
    if attempt and attempt.get("attempt") and node_name is not None:
        # A later attempt: the store moved to the node the survivors elected, on its own port.
        addr, host = attempt["addr"], "true" if node_name == attempt["host"] else "false"
        port, restarts = int(attempt["port"]), int(attempt.get("restarts_left") or 0)
    elif request.get("rdzv_host") and request.get("rdzv_addr") and node_name is not None:
        addr, host = request["rdzv_addr"], "true" if node_name == request["rdzv_host"] else "false"
    else:
        addr, host = env["MASTER_ADDR"], "true" if env["NODE_RANK"] == "0" else "false"
    # MIN:MAX is torch elastic's own range: with fewer than MAX nodes the rendezvous completes
    # once MIN have joined and its last call (last_call_timeout, 30 s unless the request says)
    # has passed, and a node joining later (a replacement) restarts the workers to include it.
    conf = f"is_host={host}"
    if request.get("last_call_s"):
        conf += f",last_call_timeout={int(request['last_call_s'])}"
    return [*launcher, f"--nnodes={min_nodes(request, nnodes)}:{nnodes}",
            f"--nproc-per-node={nproc}", "--rdzv-backend=c10d", f"--rdzv-endpoint={addr}:{port}",
            f"--rdzv-id={request['id']}", f"--rdzv-conf={conf}", f"--max-restarts={restarts}",
            *script]


def rendezvous_results(text: str) -> list[dict]:
    """Every "Rendezvous complete for workers" report of torchrun's elastic agent in `text`
    (its INFO log): restart_count, group_rank, global_ranks, ... as Python values."""
    import ast  # noqa: PLC0415
    import re  # noqa: PLC0415
    field = re.compile(r"(?:\]|^)\s+(\w+)=(.*)$")
    found: list[dict] = []
    current: Optional[dict] = None
    for line in text.splitlines():
        if "Rendezvous complete for workers" in line:
            current = {}
            found.append(current)
            continue
        match = field.search(line) if current is not None else None
        if match is None or current is None:
            current = None
            continue
        try:
            value = ast.literal_eval(match.group(2).strip())
        except (ValueError, SyntaxError):
            value = match.group(2).strip()
        current[match.group(1)] = value
    return [r for r in found if "global_ranks" in r]


def container_env_keys(keys) -> list[str]:
    """The variables that enter the container: NCCL's and torchrun's, never PATH or
    LD_LIBRARY_PATH (the image's own would be replaced by the host's)."""
    return sorted({k for k in keys if k.startswith(CONTAINER_ENV_PREFIXES)
                   or k in CONTAINER_ENV_NAMES})


def host_libs(ld_library_path: str, base: str, mounts: list[str]) -> str:
    """The folders the boot's profile put on LD_LIBRARY_PATH (beyond `base`, the agent's own)
    that the container sees through a mount: the fabric's NCCL plugin."""
    own = set(base.split(":")) if base else set()
    seen = [d for d in ld_library_path.split(":") if d and d not in own
            and any(d == m or d.startswith(m.rstrip("/") + "/") for m in mounts)]
    return ":".join(dict.fromkeys(seen))


def container_argv(image: str, argv: list[str], env_keys: list[str], job_dir: str,
                   devices: list[str], workdir: Optional[str] = None,
                   fabric_mounts: tuple[str, ...] = (), prepend_libs: bool = False) -> list[str]:
    """`argv` inside the pinned image: host network (NCCL and the rendezvous see the node's
    NICs), the GPUs, the RDMA devices, the shared mounts, the job's output folder."""
    # --init: docker relays the preemption agent's SIGTERM to the container's first process;
    # as PID 1 torchrun would ignore it until its own handler is installed, tini never does.
    out = ["docker", "run", "--rm", "--init", "--gpus", "all", "--network", "host", "--ipc",
           "host", "--ulimit", "memlock=-1:-1", "--ulimit", "stack=67108864"]
    for device in devices:
        out += ["--device", device]
    # The helper read-only; the state folder holds the job's folder, the preemption notice
    # (replaced atomically, so its folder is mounted, not the file) and the helper's events.
    mounts = [*CONTAINER_MOUNTS, STATE_DIR]
    if not job_dir.startswith(STATE_DIR + "/"):
        mounts.append(job_dir)
    if workdir and not any(workdir == m or workdir.startswith(m + "/") for m in mounts):
        mounts.append(workdir)
    for mount in [*mounts, *(m for m in fabric_mounts if m not in mounts)]:
        out += ["-v", f"{mount}:{mount}"]
    out += ["-v", f"{HELPER_DIR}:{HELPER_DIR}:ro"]
    if workdir:
        out += ["-w", workdir]
    for key in sorted(env_keys):
        out += ["-e", key]          # the value comes from the agent's environment
    if prepend_libs:
        return [*out, "-e", HOST_LIBS_ENV, image, "sh", "-c", PREPEND_LIBS, "trainstack-job",
                *argv]
    return [*out, image, *argv]


# --------------------------------------------------------------------------- one job

class Agent:
    def __init__(self, store, node: Node, launcher: list[str], poll_s: float = 5.0,
                 use_container: bool = True, heartbeat_s: float = DEFAULT_HEARTBEAT_S,
                 stop_grace_s: float = STOP_GRACE_S):
        self.store = store
        self.node = node
        self.launcher = launcher
        self.poll_s = poll_s
        self.use_container = use_container
        self.heartbeat_s = heartbeat_s
        self.stop_grace_s = stop_grace_s
        self._last_beat: Optional[float] = None
        self._withdrawn = False
        self._addr: Optional[str] = None
        self.state_path = node.path(STATE_FILE)
        try:
            self.done = set(json.loads(self.state_path.read_text()).get("done", []))
        except (OSError, ValueError):
            self.done = set()

    def key(self, job_id: str, name: str) -> str:
        return f"{JOBS_PREFIX}/{job_id}/{self.node.name}/{name}"

    def beat(self, job_id: Optional[str] = None, force: bool = False) -> None:
        """Say this node is alive (heartbeat/<node>.json, every `heartbeat_s`): `trainstack run`
        takes a node whose heartbeat stopped for gone, names it, and ends the job's wait. A node
        marked leaving also withdraws its health record, so the next `run` does not count it."""
        now = time.time()
        leaving = self.node.leaving()
        if leaving and not self._withdrawn:
            self.withdraw("leaving: the preemption agent marked this node as going away")
        if not force and self._last_beat is not None and now - self._last_beat < self.heartbeat_s:
            return
        self._last_beat = now
        if self._addr is None:
            self._addr = node_address(self.node.boot_env().get("MASTER_ADDR")) or ""
        record = {"node": self.node.name, "time": now, "iso": utc_now(), "leaving": leaving,
                  "addr": self._addr or None,
                  "job": job_id, "heartbeat_s": self.heartbeat_s, "agent_version": AGENT_VERSION}
        try:
            self.store.put(f"{HEARTBEAT_PREFIX}/{self.node.name}.json",
                           json.dumps(record, sort_keys=True).encode())
        except OSError as failed:    # the bucket unreachable for a moment: try at the next poll
            print(f"trainstack job agent: heartbeat not written: {failed}", file=sys.stderr)

    def withdraw(self, reason: str) -> None:
        """Mark this node's health record not ready (`ok: false`, `withdrawn: reason`)."""
        key = f"{STATUS_PREFIX}/{self.node.name}.json"
        try:
            record = json.loads(self.store.get(key) or b"{}")
        except ValueError:
            record = {}
        record = record if isinstance(record, dict) else {}
        record.update({"ok": False, "withdrawn": reason, "withdrawn_at": utc_now()})
        self.store.put(key, json.dumps(record, sort_keys=True).encode())
        self._withdrawn = True

    def pending(self) -> list[str]:
        if self.node.leaving():
            return []     # a node about to be taken back starts nothing new
        jobs = []
        for job_id in self.store.job_ids():
            if job_id in self.done:
                continue
            reason = self._end_reason(job_id)
            if reason:
                self._skip(job_id, reason)
            else:
                jobs.append(job_id)
        return jobs

    def _request(self, job_id: str) -> Optional[dict]:
        try:
            request = json.loads(self.store.get(f"{JOBS_PREFIX}/{job_id}/request.json") or b"{}")
        except ValueError:
            return None      # run() reports the bad request
        return request if isinstance(request, dict) else None

    def _member(self, request: dict) -> bool:
        """Whether this node is one the job waits for (its run_on, else its nodes)."""
        members = request.get("run_on") or request.get("nodes")
        return not members or self.node.name in members

    def _end_reason(self, job_id: str, failures_only: bool = False) -> Optional[str]:
        """Why a torchrun job is over for this node, or None while it runs on: `run` cancelled
        it (a node vanished), or another node has left it other than by preemption (torchrun's
        nodes end together, so a node booted since -- a replacement, a scale-up -- must not
        start it and wait for a rendezvous nobody hosts; with `failures_only`, only a node that
        failed counts: one that finished is the job ending well). A preempted node's exit is no
        end: its replacement, under a new name or the same one, joins the job that runs on. A
        job without torchrun runs on each node alone: another node's exit says nothing."""
        cancel = self.store.get(f"{JOBS_PREFIX}/{job_id}/{CANCEL_FILE}")
        if cancel is not None:
            try:
                why = json.loads(cancel).get("reason")
            except (ValueError, AttributeError):
                why = None
            return f"cancelled by trainstack run: {why or 'no reason given'}"
        request = self._request(job_id)
        if request is None or request.get("launcher", "torchrun") == "none":
            return None
        for node in self.store.exit_nodes(job_id):
            if node == self.node.name:
                continue
            try:
                record = json.loads(self.store.get(f"{JOBS_PREFIX}/{job_id}/{node}/exit.json")
                                    or b"{}")
            except ValueError:
                return f"{node} left an unreadable exit record"
            if record.get("preempted"):
                continue
            rc = record.get("rc", 1)
            if failures_only and rc == 0:
                continue
            why = f"{node} exited {rc}"
            if record.get("stopped"):
                why += f" ({record['stopped']})"
            return why
        return None

    def _ended(self, job_id: str) -> bool:
        return self._end_reason(job_id) is not None

    def _skip(self, job_id: str, reason: str) -> None:
        """A job over before this node started it: a member writes its exit record anyway
        (`stopped`: why), so `run` stops waiting for it; then it is done here."""
        request = self._request(job_id) or {}
        mine = self.store.get(self.key(job_id, "exit.json"))
        if self._member(request) and mine is None:
            info = {"node": self.node.name, "started": None, "agent_version": AGENT_VERSION}
            self._put_json(job_id, "exit.json", {**info, "rc": 1, "finished": utc_now(),
                                                 "seconds": 0.0,
                                                 "stopped": f"not started: {reason}"})
        self._remember(job_id)

    def _remember(self, job_id: str) -> None:
        self.done.add(job_id)
        self.state_path.parent.mkdir(parents=True, exist_ok=True)
        self.state_path.write_text(json.dumps({"done": sorted(self.done)}))

    def _put_json(self, job_id: str, name: str, record: dict) -> None:
        self.store.put(self.key(job_id, name), json.dumps(record, sort_keys=True).encode())

    def run(self, job_id: str) -> Optional[int]:
        raw = self.store.get(f"{JOBS_PREFIX}/{job_id}/request.json")
        try:
            request = json.loads(raw or b"")
            request.setdefault("id", job_id)
            if not isinstance(request.get("argv"), list) or not request["argv"]:
                raise ValueError("request.json has no argv")
        except ValueError as bad:
            self._finish(job_id, 2, time.time(), f"bad request: {bad}\n".encode(), {})
            return 2
        if request.get("run_on") and self.node.name not in request["run_on"]:
            self._remember(job_id)   # another node's job: nothing to run, nothing to report
            return None
        boot = self.node.boot_env()
        local = self.node.path(LOCAL_JOBS_DIR)
        out_dir = local / job_id / "out"
        out_dir.mkdir(parents=True, exist_ok=True)
        log_path = local / f"{job_id}.log"
        files_dir = local / job_id / "files"
        for name, text in (request.get("files") or {}).items():
            if "/" in name or name.startswith("."):
                continue   # a flat folder of the request's own files, nothing else
            files_dir.mkdir(parents=True, exist_ok=True)
            (files_dir / name).write_text(text)
        cwd = request.get("cwd") or (str(files_dir) if files_dir.is_dir() else None)
        torchrun = request.get("launcher", "torchrun") != "none"
        env = {**os.environ, **boot, **(RANKS_LOG_ENV if torchrun else {})}
        env.update(self.node.job_env(env))
        env.update({**{k: str(v) for k, v in (request.get("env") or {}).items()},
                    "TRAINSTACK_JOB_ID": job_id, "TRAINSTACK_NODE": self.node.name,
                    "TRAINSTACK_JOB_OUT": str(out_dir)})
        started = time.time()
        info: dict[str, Any] = {"node": self.node.name, "node_rank": boot.get("NODE_RANK"),
                "host": socket.gethostname(), "started": utc_now(), "agent_version": AGENT_VERSION}
        # A node starting the job after its host was lost (a replacement) joins the newest attempt.
        attempt = self.latest_attempt(job_id, request) if torchrun else None
        pid_file = local / f"{job_id}.json"
        self._ranks: list[dict] = []
        log_path.write_bytes(b"")
        rc = 127
        while True:
            argv = self._argv(request, boot, attempt, env, local, job_id, cwd, info)
            if argv is None:
                self._finish(job_id, 2, started, log_path.read_bytes(), info)
                return 2
            if "argv" not in info:
                info["argv"] = argv
                endpoint = next((a.split("=", 1)[1] for a in argv
                                 if a.startswith("--rdzv-endpoint=")), None)
                if endpoint:
                    info["rdzv"] = {"endpoint": endpoint,
                                    "is_host": any(a.startswith("--rdzv-conf=is_host=true")
                                                   for a in argv),
                                    "host": (attempt or {}).get("host") or "boot rank 0"}
                self._put_json(job_id, "started.json", info)
            next_attempt = None
            with open(log_path, "ab") as log:
                offset = log.tell()
                try:
                    proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, env=env,
                                            cwd=cwd, start_new_session=True)
                except OSError as failed:
                    log.write(f"trainstack job agent: cannot start {argv[0]}: {failed}\n".encode())
                    proc = None
            if proc is not None:
                pid_file.write_text(json.dumps({"pid": proc.pid, "job": job_id,
                                                "started": info["started"]}))
                rc, stopped, next_attempt = self._wait(proc, job_id, log_path, torchrun,
                                                       request, attempt, offset)
                if stopped:
                    info["stopped"] = stopped
            if next_attempt is None:
                break
            attempt = next_attempt
            with open(log_path, "ab") as log:
                log.write((f"trainstack job agent: attempt {attempt['attempt']}: the rendezvous "
                           f"host {attempt['lost']} is lost ({attempt['why']}); {attempt['host']} "
                           f"hosts it now at {attempt['endpoint']} with "
                           f"{', '.join(attempt['nodes'])}\n").encode())
            info.setdefault("attempts", []).append(attempt["attempt"])
        pid_file.unlink(missing_ok=True)
        if self._ranks:
            info["ranks"] = self._ranks
        if self.node.leaving():
            # Signalled by the preemption agent: `trainstack run` waits for the replacement
            # node instead of taking this exit as the job's.
            info["preempted"] = True
        self._finish(job_id, rc, started, log_path.read_bytes(), info, out_dir)
        return rc

    def _argv(self, request: dict, boot: dict, attempt: Optional[dict], env: dict, local: Path,
              job_id: str, cwd: Optional[str], info: dict) -> Optional[list[str]]:
        """The launch line of one attempt (inside the pinned image where there is one), or None
        after logging why there is none."""
        try:
            argv = launch_argv(request, boot, self.launcher, self.node.name, attempt)
        except ValueError as bad:
            with open(local / f"{job_id}.log", "ab") as log:
                log.write(f"trainstack job agent: {bad}\n".encode())
            return None
        image = self.node.image() if self.use_container else None
        if image:
            keys = [*container_env_keys(boot), *self.node.job_env({}),
                    *(request.get("env") or {}), *RANKS_LOG_ENV,
                    "TRAINSTACK_JOB_ID", "TRAINSTACK_NODE", "TRAINSTACK_JOB_OUT"]
            devices = sorted(str(p) for p in Path("/dev/infiniband").glob("*"))
            fabric = self.node.fabric_mounts()
            libs = host_libs(boot.get("LD_LIBRARY_PATH", ""), os.environ.get("LD_LIBRARY_PATH", ""),
                             list(fabric))
            if libs:
                env[HOST_LIBS_ENV] = libs
            argv = container_argv(image, argv, keys, str(local / job_id), devices, cwd,
                                  fabric, prepend_libs=bool(libs))
            info["image"] = image
        return argv

    # ------------------------------------------------------------ the rendezvous host's loss

    def latest_attempt(self, job_id: str, request: dict) -> dict:
        """The job's newest rendezvous: attempts/<n>.json for the highest n, else attempt 0."""
        attempt, n = request_attempt(request), 1
        while True:
            found = self._read_json(f"{JOBS_PREFIX}/{job_id}/{ATTEMPTS_DIR}/{n}.json")
            if not found:
                return attempt
            attempt, n = found, n + 1

    def _read_json(self, key: str) -> dict:
        try:
            value = json.loads(self.store.get(key) or b"{}")
        except ValueError:
            return {}
        return value if isinstance(value, dict) else {}

    def _node_gone(self, job_id: str, node: str, stale_s: float) -> Optional[str]:
        """Why `node` is gone from the job (its heartbeat stale, leaving, its health record
        withdrawn, preempted out of this job), or None while it looks alive."""
        beat = self._read_json(f"{HEARTBEAT_PREFIX}/{node}.json")
        at = beat.get("time")
        if isinstance(at, (int, float)) and time.time() - at > stale_s:
            return f"its job agent's last heartbeat was {time.time() - at:.0f} s ago " \
                   f"(over {stale_s:g} s)"
        if beat.get("leaving"):
            return "it is leaving on a preemption notice"
        withdrawn = self._read_json(f"{STATUS_PREFIX}/{node}.json").get("withdrawn")
        if withdrawn:
            return f"its health record was withdrawn ({withdrawn})"
        if self._read_json(f"{JOBS_PREFIX}/{job_id}/{node}/exit.json").get("preempted"):
            return "it was preempted"
        return None

    def _host_verdict(self, job_id: str, request: dict, attempt: dict,
                      exited_at: Optional[float]) -> tuple[str, Any]:
        """What became of the attempt's rendezvous host: ("alive", None) -- its agent beat after
        this node's torchrun exited, so that exit is the job's own; ("wait", None); ("next",
        attempt n+1) -- the store moved to the lowest healthy node left (this node writes the
        record when it is that node); ("stop", why) -- too few nodes left, or nobody took over."""
        host, n = attempt["host"], int(attempt.get("attempt") or 0) + 1
        stale_s = float(request.get("stale_s") or 4 * self.heartbeat_s)
        done = self._read_json(f"{JOBS_PREFIX}/{job_id}/{host}/exit.json")
        if done and not done.get("preempted"):
            # The host finished its part (a failure there stops this node via _end_reason):
            # its node going away afterwards (reaped when idle) is no reason to restart the job.
            return ("alive", None) if exited_at is not None else ("wait", None)
        why = self._node_gone(job_id, host, stale_s)
        if why is None:
            at = self._read_json(f"{HEARTBEAT_PREFIX}/{host}.json").get("time")
            alive = exited_at is not None and isinstance(at, (int, float)) and at > exited_at
            return ("alive", None) if alive else ("wait", None)
        key = f"{JOBS_PREFIX}/{job_id}/{ATTEMPTS_DIR}/{n}.json"
        written = self._read_json(key)
        if written:
            return "next", written
        members = list(attempt.get("nodes") or [])
        if self.node.name not in members:
            members.append(self.node.name)
        left = sorted(m for m in members if m != host and (
            m == self.node.name or self._node_gone(job_id, m, stale_s) is None))
        nnodes = int(request.get("nnodes") or len(request_attempt(request)["nodes"]) or 1)
        fewest = min_nodes(request, nnodes)
        if len(left) < fewest:
            return "stop", (f"the rendezvous host {host} is gone ({why}) and {len(left)} node(s) "
                            f"remain ({', '.join(left)}), fewer than the job's minimum of "
                            f"{fewest} (--min-nodes)")
        budget = int(attempt.get("restarts_left") or 0) - 1 - max(
            (int(r.get("restart_count") or 0) for r in self._ranks
             if r.get("attempt") == attempt.get("attempt")), default=0)
        if budget < 0:
            return "stop", (f"the rendezvous host {host} is gone ({why}) and the job has no "
                            "restarts left (--max-restarts)")

        def rank_key(node: str) -> tuple:
            rank = self._read_json(f"{STATUS_PREFIX}/{node}.json").get("node_rank")
            return (rank if isinstance(rank, int) else 1 << 30, node)
        elected = min(left, key=rank_key)
        if elected != self.node.name:
            since = self._election_since.setdefault(n, time.monotonic())
            if time.monotonic() - since > ELECTION_WAIT_S:
                return "stop", (f"the rendezvous host {host} is gone ({why}) and {elected}, "
                                f"elected in its place, wrote no attempt {n} within "
                                f"{ELECTION_WAIT_S:g} s")
            return "wait", None
        addr = self._addr or node_address(None) or "127.0.0.1"
        base = int(attempt.get("port") or request.get("rdzv_port")
                   or self.node.boot_env().get("MASTER_PORT") or DEFAULT_PORT)
        port = listenable_port(base + 1)
        record = {"attempt": n, "host": elected, "addr": addr, "port": port,
                  "endpoint": f"{addr}:{port}", "nodes": left, "lost": host, "why": why,
                  "restarts_left": budget, "time": utc_now()}
        self.store.put(key, json.dumps(record, sort_keys=True).encode())
        return "next", record

    def _record_ranks(self, job_id: str, log_path: Path, attempt: Optional[dict],
                      offset: int) -> None:
        """This node's ranks in this attempt, as torchrun's rendezvous reported them, into
        jobs/<id>/<node>/ranks.json (each attempt, each torchrun restart)."""
        if attempt is None:
            return
        with open(log_path, "rb") as handle:
            handle.seek(offset)
            text = handle.read().decode("utf-8", "replace")
        n = attempt.get("attempt") or 0
        seen = [{"attempt": n, "host": attempt.get("host"),
                 "restart_count": r.get("restart_count"), "group_rank": r.get("group_rank"),
                 "group_world_size": r.get("group_world_size"),
                 "global_ranks": r.get("global_ranks"),
                 "world_size": (r.get("global_world_sizes") or [None])[0]}
                for r in rendezvous_results(text)]
        ranks = [r for r in self._ranks if r["attempt"] != n] + seen
        if ranks != self._ranks:
            self._ranks = ranks
            self._put_json(job_id, RANKS_FILE, {"node": self.node.name, "ranks": ranks})

    def _wait(self, proc: subprocess.Popen, job_id: str, log_path: Path,
              torchrun: bool = True, request: Optional[dict] = None,
              attempt: Optional[dict] = None,
              offset: int = 0) -> tuple[int, Optional[str], Optional[dict]]:
        """The job's exit code, why this agent stopped it, if it did, and the next attempt when
        the rendezvous host was lost: `run` cancelled the job, or (torchrun) another node
        failed, so this node's torchrun would otherwise wait at its rendezvous or exit barrier
        for many minutes; or the host of the attempt's c10d store is gone, and the survivors
        re-elect one (torchrun alone would retry the dead store until its timeouts). After
        this node's torchrun failed, its exit waits for the host's next heartbeat: a live host
        makes it the job's failure, a lost one a new attempt."""
        stopped: Optional[str] = None
        next_attempt: Optional[dict] = None
        stop_at = 0.0
        rc: Optional[int] = None
        exited_at: Optional[float] = None
        self._election_since: dict[int, float] = {}
        watch = bool(torchrun and request and attempt and attempt.get("host")
                     and attempt["host"] != self.node.name)
        stale_s = float((request or {}).get("stale_s") or 4 * self.heartbeat_s)
        try:
            while True:
                if rc is None:
                    try:
                        rc = proc.wait(timeout=self.poll_s)
                        exited_at = time.time()
                    except subprocess.TimeoutExpired:
                        pass
                else:
                    time.sleep(self.poll_s)
                self._record_ranks(job_id, log_path, attempt if torchrun else None, offset)
                if rc is not None and (stopped or next_attempt or not watch or rc == 0
                                       or time.time() - (exited_at or 0) > 2 * stale_s + 10):
                    return rc, stopped, next_attempt
                self.store.put(self.key(job_id, "log.txt"), log_path.read_bytes())
                self.beat(job_id)
                if stopped is None and next_attempt is None:
                    reason = self._end_reason(job_id, failures_only=True)
                    if reason and (torchrun or reason.startswith("cancelled")):
                        stopped = f"stopped by the job agent: {reason}"
                    elif watch and request and attempt:
                        verdict, value = self._host_verdict(job_id, request, attempt, exited_at)
                        if verdict == "alive" and rc is not None:
                            return rc, None, None
                        if verdict == "next":
                            next_attempt = value
                        elif verdict == "stop":
                            stopped = f"stopped by the job agent: {value}"
                    if (stopped or next_attempt) and rc is None:
                        stop_at = time.monotonic()
                        _signal_group(proc.pid, signal.SIGTERM)
                elif rc is None and time.monotonic() - stop_at > self.stop_grace_s:
                    _signal_group(proc.pid, signal.SIGKILL)
        except BaseException:
            _signal_group(proc.pid, signal.SIGTERM)   # the agent stopping ends its job
            raise

    def _finish(self, job_id: str, rc: int, started: float, log: bytes, info: dict,
                out_dir: Optional[Path] = None) -> None:
        self.store.put(self.key(job_id, "log.txt"), log)
        for item in sorted(out_dir.rglob("*")) if out_dir else []:
            if out_dir is not None and item.is_file():
                rel = item.relative_to(out_dir).as_posix()
                self.store.put(self.key(job_id, f"out/{rel}"), item.read_bytes())
        self._put_json(job_id, "exit.json", {**info, "rc": rc, "finished": utc_now(),
                                             "seconds": round(time.time() - started, 3)})
        self._remember(job_id)

    def loop(self, max_jobs: Optional[int] = None, idle_exit_s: Optional[float] = None) -> int:
        ran, last = 0, time.time()
        while max_jobs is None or ran < max_jobs:
            self.beat()
            jobs = self.pending()
            for job_id in jobs:
                if self.run(job_id) is None:
                    continue
                ran += 1
                last = time.time()
                if max_jobs is not None and ran >= max_jobs:
                    break
            if idle_exit_s is not None and time.time() - last > idle_exit_s:
                break
            if not jobs:
                time.sleep(self.poll_s)
        return 0


def _signal_group(pid: int, sig: int) -> None:
    try:
        os.killpg(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bucket", required=True, help="the cluster bucket: DIR, file://DIR "
                        "or an fsspec URL")
    parser.add_argument("--node", default=os.environ.get("TS_NODE") or socket.gethostname())
    parser.add_argument("--root", default="/", help="prefix of every node path (tests)")
    parser.add_argument("--launcher", default="torchrun",
                        help="the torchrun command, e.g. 'python3 -m torch.distributed.run'")
    parser.add_argument("--poll", type=float, default=5.0, help="seconds between bucket polls")
    parser.add_argument("--no-container", action="store_true",
                        help="run on the host even where runtime.env pins an image")
    parser.add_argument("--heartbeat", type=float, default=DEFAULT_HEARTBEAT_S,
                        help="seconds between heartbeats (heartbeat/<node>.json)")
    parser.add_argument("--stop-grace", type=float, default=STOP_GRACE_S,
                        help="seconds a stopped job gets after SIGTERM before SIGKILL")
    parser.add_argument("--max-jobs", type=int, help="stop after this many jobs (tests)")
    parser.add_argument("--idle-exit", type=float, help="stop after this many idle seconds")
    args = parser.parse_args(argv)
    try:
        store = open_store(args.bucket)
    except ValueError as bad:
        print(f"trainstack job agent: {bad}", file=sys.stderr)
        return 2
    except ImportError as missing:
        print(f"trainstack job agent: {args.bucket} needs fsspec and its backend ({missing})",
              file=sys.stderr)
        return 2
    agent = Agent(store, Node(args.node, args.root), shlex.split(args.launcher), args.poll,
                  use_container=not args.no_container, heartbeat_s=args.heartbeat,
                  stop_grace_s=args.stop_grace)
    return agent.loop(args.max_jobs, args.idle_exit)


if __name__ == "__main__":
    sys.exit(main())
