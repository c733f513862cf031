#!/usr/bin/env python3
"""trainstack job agent: runs `trainstack run` jobs on this node, launched by torchrun.

A long-running service on every node (components/boot/jobs.py installs it). It polls the
cluster's bucket for job requests, `jobs/<id>/request.json`:

    {"id", "argv": [...], "launcher": "torchrun" | "none", "max_restarts": 0,
     "nproc_per_node": null, "env": {}, "rdzv_port": null}

and runs each one once, one at a time. With the torchrun launcher the command becomes

    torchrun --nnodes=N:N --nproc-per-node=P --rdzv-backend=c10d
             --rdzv-endpoint=<rank 0's address>:<port> --rdzv-id=<id>
             --rdzv-conf=is_host=<this node is rank 0> --max-restarts=R -- CMD...

N, the address and this node's rank come from the boot's ranks profile (the node group's own
list, /etc/profile.d/trainstack-ranks.sh); P is the node's GPUs (NPROC_PER_NODE) unless the
request says otherwise; the fabric's NCCL environment comes from the boot's NCCL profile. Rank 0
hosts the c10d store (is_host), so no node races to host it. torchrun's elastic restarts
(--max-restarts) restart the workers on every node after a failure or preemption; the training
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

AGENT_VERSION = 1
JOBS_PREFIX = "jobs"
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
                       "PYTHONPATH")
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


def launch_argv(request: dict, env: dict[str, str], launcher: list[str]) -> list[str]:
    """The command this node runs for `request`, given the boot's environment `env`."""
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
    # A request may name fewer nodes than the group (bench's one-node training run).
    nnodes = int(request.get("nnodes") or env["NNODES"])
    nproc = int(request.get("nproc_per_node") or env.get("NPROC_PER_NODE") or 1)
    port = int(request.get("rdzv_port") or env.get("MASTER_PORT") or DEFAULT_PORT)
    host = "true" if env["NODE_RANK"] == "0" else "false"
    return [*launcher, f"--nnodes={nnodes}:{nnodes}", f"--nproc-per-node={nproc}",
            "--rdzv-backend=c10d", f"--rdzv-endpoint={env['MASTER_ADDR']}:{port}",
            f"--rdzv-id={request['id']}", f"--rdzv-conf=is_host={host}",
            f"--max-restarts={int(request.get('max_restarts') or 0)}", *script]


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
                 use_container: bool = True):
        self.store = store
        self.node = node
        self.launcher = launcher
        self.poll_s = poll_s
        self.use_container = use_container
        self.state_path = node.path(STATE_FILE)
        try:
            self.done = set(json.loads(self.state_path.read_text()).get("done", []))
        except (OSError, ValueError):
            self.done = set()

    def key(self, job_id: str, name: str) -> str:
        return f"{JOBS_PREFIX}/{job_id}/{self.node.name}/{name}"

    def pending(self) -> list[str]:
        if self.node.leaving():
            return []     # a node about to be taken back starts nothing new
        jobs = []
        for job_id in self.store.job_ids():
            if job_id in self.done:
                continue
            if self._ended(job_id):
                self._remember(job_id)
            else:
                jobs.append(job_id)
        return jobs

    def _ended(self, job_id: str) -> bool:
        """Some node has left a torchrun job other than by preemption: the job is over
        (torchrun's nodes end together), so a node booted since (a replacement, a scale-up)
        must not start it and wait for a rendezvous nobody hosts. A preempted node's exit is no
        end: its replacement, under a new name or the same one, joins the job that runs on.
        A job without torchrun runs on each node alone: another node's exit says nothing."""
        try:
            request = json.loads(self.store.get(f"{JOBS_PREFIX}/{job_id}/request.json") or b"{}")
        except ValueError:
            return False     # run() reports the bad request
        if not isinstance(request, dict) or request.get("launcher", "torchrun") == "none":
            return False
        for node in self.store.exit_nodes(job_id):
            try:
                record = json.loads(self.store.get(f"{JOBS_PREFIX}/{job_id}/{node}/exit.json")
                                    or b"{}")
            except ValueError:
                return True
            if not record.get("preempted"):
                return True
        return False

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
        env = {**os.environ, **boot}
        env.update(self.node.job_env(env))
        env.update({**{k: str(v) for k, v in (request.get("env") or {}).items()},
                    "TRAINSTACK_JOB_ID": job_id, "TRAINSTACK_NODE": self.node.name,
                    "TRAINSTACK_JOB_OUT": str(out_dir)})
        started = time.time()
        info: dict[str, Any] = {"node": self.node.name, "node_rank": boot.get("NODE_RANK"),
                "host": socket.gethostname(), "started": utc_now(), "agent_version": AGENT_VERSION}
        try:
            argv = launch_argv(request, boot, self.launcher)
        except ValueError as bad:
            self._finish(job_id, 2, started, f"trainstack job agent: {bad}\n".encode(), info)
            return 2
        image = self.node.image() if self.use_container else None
        if image:
            keys = [*container_env_keys(boot), *self.node.job_env({}),
                    *(request.get("env") or {}),
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
        info["argv"] = argv
        self._put_json(job_id, "started.json", info)
        pid_file = local / f"{job_id}.json"
        with open(log_path, "wb") as log:
            try:
                proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, env=env,
                                        cwd=cwd, start_new_session=True)
            except OSError as failed:
                log.write(f"trainstack job agent: cannot start {argv[0]}: {failed}\n".encode())
                proc = None
            if proc is not None:
                pid_file.write_text(json.dumps({"pid": proc.pid, "job": job_id,
                                                "started": info["started"]}))
                rc = self._wait(proc, job_id, log_path)
            else:
                rc = 127
        pid_file.unlink(missing_ok=True)
        if self.node.leaving():
            # Signalled by the preemption agent: `trainstack run` waits for the replacement
            # node instead of taking this exit as the job's.
            info["preempted"] = True
        self._finish(job_id, rc, started, log_path.read_bytes(), info, out_dir)
        return rc

    def _wait(self, proc: subprocess.Popen, job_id: str, log_path: Path) -> int:
        try:
            while True:
                try:
                    return proc.wait(timeout=self.poll_s)
                except subprocess.TimeoutExpired:
                    self.store.put(self.key(job_id, "log.txt"), log_path.read_bytes())
        except BaseException:
            os.killpg(proc.pid, signal.SIGTERM)   # the agent stopping ends its job, not orphans it
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
                  use_container=not args.no_container)
    return agent.loop(args.max_jobs, args.idle_exit)


if __name__ == "__main__":
    sys.exit(main())
