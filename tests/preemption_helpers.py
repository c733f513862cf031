"""A loopback stand-in for each cloud's instance metadata service, serving the preemption notice
in the provider's documented format (see components/agents/preemption_agent.py for the URLs),
and refusing requests that lack the cloud's required header (IMDSv2 token, Metadata-Flavor,
Metadata: true, the Alibaba token), so a test proves the agent sends them."""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Optional

from tests.checkout import ROOT
from trainstack_components.agents import preemption_agent as pa
from trainstack_components.boot import preemption as boot_step

AWS_TOKEN = "aws-token-123"
ALI_TOKEN = "ali-token-456"
AZURE_EVENTS = "/metadata/scheduledevents?api-version=2020-07-01"


def z(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


class MetadataServer:
    """`notice(deadline)` arms the cloud's termination notice; `requests` and `acks` record what
    the agent asked and acknowledged."""

    def __init__(self, cloud: str, vm_name: str = "node-1"):
        self.cloud, self.vm_name = cloud, vm_name
        self.deadline: Optional[datetime] = None
        self.rebalance: Optional[datetime] = None
        self.maintenance = "NONE"
        self.other_vm_event = False
        self.requests: list[tuple[str, str]] = []
        self.acks: list[dict] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _send(self, code: int, body: str = "", ctype: str = "text/plain") -> None:
                data = body.encode()
                self.send_response(code)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_PUT(self):
                server.requests.append(("PUT", self.path))
                if self.path == "/latest/api/token":
                    if cloud == "aws" and self.headers.get("X-aws-ec2-metadata-token-ttl-seconds"):
                        return self._send(200, AWS_TOKEN)
                    if cloud == "alicloud" and self.headers.get(
                            "X-aliyun-ecs-metadata-token-ttl-seconds"):
                        return self._send(200, ALI_TOKEN)
                self._send(400, "missing ttl header")

            def do_POST(self):
                server.requests.append(("POST", self.path))
                if cloud == "azure" and self.path == AZURE_EVENTS and \
                        self.headers.get("Metadata") == "true":
                    length = int(self.headers.get("Content-Length") or 0)
                    server.acks.append(json.loads(self.rfile.read(length)))
                    return self._send(200)
                self._send(400, "bad request")

            def do_GET(self):
                server.requests.append(("GET", self.path))
                code, body, ctype = server.answer(self.path, self.headers)
                self._send(code, body, ctype)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def __enter__(self) -> "MetadataServer":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def notice(self, deadline: datetime) -> None:
        self.deadline = deadline

    def answer(self, path: str, headers) -> tuple[int, str, str]:
        c = self.cloud
        if c == "aws":
            if headers.get("X-aws-ec2-metadata-token") != AWS_TOKEN:
                return 401, "", "text/plain"      # IMDSv2 only: no token, no answer
            if path == "/latest/meta-data/spot/instance-action" and self.deadline:
                return 200, json.dumps({"action": "terminate", "time": z(self.deadline)}), \
                    "text/plain"
            if path == "/latest/meta-data/events/recommendations/rebalance" and self.rebalance:
                return 200, json.dumps({"noticeTime": z(self.rebalance)}), "text/plain"
            return 404, "", "text/html"
        if c == "gcp":
            if headers.get("Metadata-Flavor") != "Google":
                return 403, "", "text/html"
            if path == "/computeMetadata/v1/instance/preempted":
                return 200, "TRUE" if self.deadline else "FALSE", "application/text"
            if path == "/computeMetadata/v1/instance/maintenance-event":
                return 200, self.maintenance, "application/text"
            return 404, "", "text/html"
        if c == "azure":
            if headers.get("Metadata") != "true" or path != AZURE_EVENTS:
                return 400, "", "application/json"
            events = []
            if self.other_vm_event:
                events.append({"EventId": "other-1", "EventType": "Preempt",
                               "ResourceType": "VirtualMachine", "Resources": ["someone-else"],
                               "EventStatus": "Scheduled", "NotBefore": "", "Description": "",
                               "EventSource": "Platform", "DurationInSeconds": -1})
            if self.deadline:
                events.append({"EventId": "602d9444-d2cd-49c7-8624-8643e7171297",
                               "EventType": "Preempt", "ResourceType": "VirtualMachine",
                               "Resources": [self.vm_name], "EventStatus": "Scheduled",
                               "NotBefore": format_datetime(self.deadline, usegmt=True),
                               "Description": "", "EventSource": "Platform",
                               "DurationInSeconds": -1})
            return 200, json.dumps({"DocumentIncarnation": 1 + len(events), "Events": events}), \
                "application/json"
        if c == "alicloud":
            if headers.get("X-aliyun-ecs-metadata-token") != ALI_TOKEN:
                return 401, "", "text/plain"
            if path == "/latest/meta-data/instance/spot/termination-time" and self.deadline:
                return 200, z(self.deadline), "text/plain"
            return 404, "", "text/html"
        raise AssertionError(c)


# The two-node job of tests/measure/test_preemption_e2e.py and test_preemption_run_e2e.py
# (`preempted_job` below) and, uninterrupted, their reference (`Cluster.start_straight`; both
# session fixtures in tests/measure/conftest.py). Long enough for the four preemptions of the one
# job, one per cloud, each notice at least 3 steps after the last resume (each save lands a step
# or two later).
EXAMPLE = str(ROOT / "examples" / "train_resumable.py")
STEPS = 30


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# Runs each (environment, log) of argv[2] as `python argv[1]` would, in a process forked from
# this one after the imports every rank of the example starts with: torch, and torch._dynamo,
# which torch.optim imports at its first step (about 3.5 CPU s a process, paid here once instead
# of per rank; issue 36). Nothing but imports happens before the fork: no thread pool, process
# group or random draw. Exits with the first failing rank's code (the other killed), else 0.
RANKS_FROM_ONE_IMPORT = r"""
import json, os, runpy, sys, traceback
import torch, torch.distributed, torch._dynamo
script, ranks = sys.argv[1], json.loads(sys.argv[2])
pids = []
for env, log in ranks:
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.environ.clear()
            os.environ.update(env)
            out = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            os.dup2(out, 1)
            os.dup2(out, 2)
            sys.argv = [script]
            runpy.run_path(script, run_name="__main__")
            code = 0
        except SystemExit as done:
            code = done.code if isinstance(done.code, int) else int(done.code is not None)
        except BaseException:
            traceback.print_exc()
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
    pids.append(pid)
failed = 0
for _ in pids:   # the first rank to fail ends the others (as torchrun would), else all end 0
    pid, status = os.wait()
    code = os.waitstatus_to_exitcode(status)
    if code and not failed:
        failed = code
        for other in pids:
            if other != pid:
                try:
                    os.kill(other, 9)
                except ProcessLookupError:
                    pass
sys.exit(failed)
"""


class Cluster:
    """The uninterrupted reference run: its ranks share a 'lustre' folder and one report folder,
    and import the checkpoint helper as the boot step ships it."""

    def __init__(self, base: Path):
        self.base = base
        # The helper exactly as the boot step ships it to a node (the example imports
        # `trainstack_resumable` first).
        self.node_files = base / "opt-trainstack"
        self.node_files.mkdir()
        (self.node_files / "trainstack_resumable.py").write_text(boot_step.HELPER_SOURCE)
        self.lustre, self.report = base / "lustre", base / "report"
        self.procs: list[subprocess.Popen] = []

    def env(self, root: Path) -> dict:
        env = dict(os.environ)
        env.update({"PYTHONPATH": f"{self.node_files}{os.pathsep}{ROOT}",
                    "GLOO_SOCKET_IFNAME": "lo", "OMP_NUM_THREADS": "1",
                    "PYTHONWARNINGS": "ignore", "TRAINSTACK_TOTAL_STEPS": str(STEPS),
                    "TRAINSTACK_SEED": "3", "TRAINSTACK_SAVE_EVERY": "1000",
                    "TRAINSTACK_STEP_SECONDS": "0.3", "TRAINSTACK_RUN": "job-1",
                    "TRAINSTACK_CHECKPOINT_DIR": str(self.lustre / "job-1"),
                    "TRAINSTACK_SCRATCH_DIR": str(root / "scratch" / "job-1"),
                    "TRAINSTACK_REPORT_DIR": str(self.report),
                    "TRAINSTACK_NOTICE_FILE": str(root / pa.NOTICE_FILE),
                    "TRAINSTACK_EVENTS_DIR": str(root / pa.LOCAL_EVENTS_DIR)})
        return env

    def start_straight(self) -> subprocess.Popen:
        """The same job as two nodes' torchrun would run it, never preempted, as its two ranks
        alone: each with the variables torchrun gives a worker (env:// rendezvous, rank 0 hosts
        the store) and without the pause per step (a sleep; it changes no number). The reference
        is the script's arithmetic, which no launcher takes part in; the launchers themselves
        are what the preempted runs test. Both ranks are forked from one interpreter that has
        imported torch once (RANKS_FROM_ONE_IMPORT); the returned process exits with the first
        failing rank's code, each rank's output in rank-<n>.log."""
        port = free_port()
        ranks = []
        for rank in (0, 1):
            root = self.base / f"rank-{rank}"
            (root / pa.LOCAL_EVENTS_DIR).mkdir(parents=True)
            env = {**self.env(root), "TRAINSTACK_STEP_SECONDS": "0",
                   "RANK": str(rank), "LOCAL_RANK": "0", "WORLD_SIZE": "2",
                   "LOCAL_WORLD_SIZE": "1", "GROUP_RANK": str(rank), "GROUP_WORLD_SIZE": "2",
                   "ROLE_RANK": str(rank), "ROLE_WORLD_SIZE": "2", "ROLE_NAME": "default",
                   "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port),
                   "TORCHELASTIC_RESTART_COUNT": "0", "TORCHELASTIC_MAX_RESTARTS": "0",
                   "TORCHELASTIC_RUN_ID": "job-1", "TORCHELASTIC_USE_AGENT_STORE": "False"}
            ranks.append((env, str(self.base / f"rank-{rank}.log")))
        # The ranks' environments differ only in the rank's own variables and node folders:
        # the interpreter starts with rank 0's (PYTHONPATH, OMP_NUM_THREADS, warnings alike).
        proc = subprocess.Popen([sys.executable, "-c", RANKS_FROM_ONE_IMPORT, EXAMPLE,
                                 json.dumps(ranks)], env=ranks[0][0],
                                stdout=subprocess.DEVNULL, stderr=open(self.base / "ranks.log", "w"),
                                start_new_session=True)
        self.procs.append(proc)
        return proc

    def losses(self) -> dict[int, list[float]]:
        seen: dict[int, list[float]] = {}
        path = self.report / "losses-rank0.jsonl"
        for line in (path.read_text().splitlines() if path.exists() else []):
            entry = json.loads(line)
            seen.setdefault(entry["step"], []).append(entry["loss"])
        return seen

    def finals(self) -> list[dict]:
        return [_torch().load(self.report / f"final-rank{r}.pt", weights_only=False) for r in (0, 1)]

    def log(self, name: str) -> str:
        path = self.base / f"{name}.log"
        return path.read_text()[-3000:] if path.exists() else f"({path.name}: none)\n"

    def close(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def _torch():
    import torch
    return torch


# -- the preempted job: `trainstack run` on job agents, one preemption per cloud --------------------
# Shared by tests/measure/test_preemption_e2e.py (each cloud's notice, save, replacement and
# resume) and tests/measure/test_preemption_run_e2e.py (the same job as `trainstack run` and the
# job agents see it): one job, run once per session (tests/measure/conftest.py, `preempted`).
CLOUDS = ["aws", "gcp", "azure", "alicloud"]
# The node each cloud's notice takes back; the next name is its replacement (the last one runs
# the job to its end).
NODES = ["node-1", "node-1b", "node-1c", "node-1d", "node-1e"]

# Appended to the helper each node's boot installs: a file that says which copy the job imported.
MARK = """
import os as _os

_os.makedirs(_os.environ["TRAINSTACK_REPORT_DIR"], exist_ok=True)
open(_os.path.join(_os.environ["TRAINSTACK_REPORT_DIR"], "helper-" + __file__.replace("/", "_")),
     "w").close()
"""


class Nodes:
    """Local nodes as the boot leaves them (ranks profile, the checkpoint helper, state folders)
    each running the real job agent; a preemption agent per node that a cloud may take back."""

    def __init__(self, tmp: Path):
        from tests.run_helpers import free_port as free
        self.tmp, self.port = tmp, free()
        self.bucket, self.lustre, self.report = tmp / "bucket", tmp / "lustre", tmp / "report"
        self.bucket.mkdir()
        self.procs: dict[str, subprocess.Popen] = {}
        self.roots: dict[str, Path] = {}

    def helper(self, name: str) -> Path:
        from trainstack_components.agents import job_agent
        return self.roots[name] / job_agent.HELPER_DIR.lstrip("/") / "trainstack_resumable.py"

    def boot(self, name: str, rank: int) -> None:
        """What the boot leaves on a node: ranks profile, helper, state folders; its agent."""
        from tests.run_helpers import LAUNCHER, write_node_root
        root = self.roots[name] = self.tmp / name
        write_node_root(root, rank, 2, self.port)
        self.helper(name).parent.mkdir(parents=True)
        # As shipped, plus a line that says which copy the job imported.
        self.helper(name).write_text(boot_step.HELPER_SOURCE + MARK)
        for folder in (pa.JOBS_DIR, pa.LOCAL_EVENTS_DIR):
            (root / folder).mkdir(parents=True, exist_ok=True)
        # No PYTHONPATH and no TORCH_DISABLE_SHARE_RDZV_TCP_STORE: the job agent must set both
        # (without the first the example cannot import the helper the boot put on the node --
        # its fallback, the checkout's copy, is not importable; without the second a
        # replacement never joins the restart). The agent is standard library only.
        env = {k: v for k, v in os.environ.items() if k not in (
            "TORCH_DISABLE_SHARE_RDZV_TCP_STORE", "TORCHELASTIC_USE_AGENT_STORE", "PYTHONPATH")}
        env.update({"OMP_NUM_THREADS": "1", "GLOO_SOCKET_IFNAME": "lo",
                    "PYTHONWARNINGS": "ignore", "TRAINSTACK_TOTAL_STEPS": str(STEPS),
                    "TRAINSTACK_SEED": "3", "TRAINSTACK_SAVE_EVERY": "1000",
                    "TRAINSTACK_STEP_SECONDS": "0.3", "TRAINSTACK_RUN": "job-1",
                    "TRAINSTACK_CHECKPOINT_DIR": str(self.lustre / "job-1"),
                    "TRAINSTACK_SCRATCH_DIR": str(root / "scratch" / "job-1"),
                    "TRAINSTACK_REPORT_DIR": str(self.report)})
        log = open(self.tmp / f"{name}-agent.log", "wb")
        self.procs[name] = subprocess.Popen(
            [sys.executable, str(ROOT / "components/agents/job_agent.py"), "--bucket",
             str(self.bucket), "--node", name, "--root", str(root), "--launcher", LAUNCHER,
             "--poll", "0.3", "--idle-exit", "600"],
            env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)

    def watch(self, name: str, cloud: str, url: str) -> None:
        """`name`'s preemption agent, as the boot step ships it, on `cloud`'s metadata at `url`."""
        agent = self.tmp / "preemption_agent.py"
        agent.write_text(boot_step.AGENT_SOURCE)
        self.procs[f"{name}-preemption"] = subprocess.Popen(
            [sys.executable, "-I", str(agent), "--cloud", cloud, "--node", name,
             "--metadata-url", url, "--root", str(self.roots[name]), "--dest-dir",
             str(self.bucket), "--interval", "0.2"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)

    def go_away(self, name: str) -> None:
        """The cloud takes the node back: its agents and all they started die at once."""
        for key in (name, f"{name}-preemption"):
            proc = self.procs.pop(key)
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()

    def losses(self) -> dict[int, list[float]]:
        path = self.report / "losses-rank0.jsonl"
        seen: dict[int, list[float]] = {}
        for line in path.read_text().splitlines() if path.exists() else []:
            entry = json.loads(line)
            seen.setdefault(entry["step"], []).append(entry["loss"])
        return seen

    def logs(self) -> str:
        return "\n".join(p.read_text(errors="replace")[-2000:]
                         for p in sorted(self.tmp.glob("*.log")))

    def close(self) -> None:
        for proc in self.procs.values():
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


@dataclass
class Preemption:
    cloud: str
    node: str
    noticed: datetime
    deadline: datetime
    exit: dict                       # the preempted node's exit record (its job agent's)
    saved_step: int = 0
    saved_at: datetime = datetime.min.replace(tzinfo=timezone.utc)
    complete: bool = False
    log: str = ""
    notices: list = field(default_factory=list)
    replacement_argv: list = field(default_factory=list)   # what its replacement launched

    @property
    def rc(self) -> int:             # the preempted node's torchrun
        return self.exit["rc"]


@dataclass
class PreemptedJob:
    job: str
    preemptions: dict                # cloud -> Preemption
    losses: dict
    finals: list
    restarts: list                   # the restart records, node-0's and the replacements'
    rc: int                          # `trainstack run`'s
    printed: str                     # what `trainstack run` printed
    launched_torchrun: bool          # node-1's pid file named torchrun (what the notice signals)
    saves: dict                      # the save records, by file name
    imported: set                    # the helper copies the ranks imported
    helpers: dict                    # node -> the helper copy its boot installed
    logs: str


def assert_resumes_exactly(job: "PreemptedJob", uninterrupted) -> None:
    """Same loss at every step, and the same parameters and RNG state at the end, as the run
    that was never interrupted (`uninterrupted`: its losses and finals)."""
    straight_losses, straight_finals = uninterrupted
    for step in range(1, STEPS + 1):
        assert job.losses[step][-1] == straight_losses[step][-1], step
    torch = _torch()
    for got, want in zip(job.finals, straight_finals, strict=True):
        for key in want["model"]:
            assert torch.equal(got["model"][key], want["model"][key]), key
        assert torch.equal(got["rng"]["torch"], want["rng"]["torch"])


def wait_until(condition, timeout: float, what: str) -> None:
    deadline = time.time() + timeout
    while not condition():
        assert time.time() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)


def preempted_job(base: Path) -> PreemptedJob:
    """`trainstack run --max-restarts 5 -- python examples/train_resumable.py` on two nodes'
    job agents; node-1 is taken back once per cloud in CLOUDS' order -- its own metadata server
    and preemption agent, the notice, every rank's save before the deadline, the node gone for
    good, a fresh node's job agent joining the running job -- each replacement the next cloud's
    node. A step that cannot go on fails here with the logs."""
    from tests.checkout import PYTHONPATH as CHECKOUT_PATH
    from tests.run_helpers import health_record
    from trainstack_components.training.resumable import is_complete, newest_complete
    nodes = Nodes(base)
    (nodes.bucket / "status").mkdir()
    for rank, name in enumerate(("node-0", "node-1")):
        (nodes.bucket / "status" / f"{name}.json").write_text(json.dumps(health_record(name, rank)))
    printed = base / "run.log"
    run = None
    done: dict[str, Preemption] = {}
    try:
        nodes.boot("node-0", 0)
        nodes.boot(NODES[0], 1)
        run = subprocess.Popen(
            [sys.executable, "-c", "from trainstack.cli.app import app; app()", "run",
             "--bucket-url", f"file://{nodes.bucket}", "--max-restarts", str(len(CLOUDS) + 1),
             "--timeout", "600", "--", "python", EXAMPLE],
            env={**os.environ, "PYTHONPATH": CHECKOUT_PATH}, stdout=open(printed, "w"),
            stderr=subprocess.STDOUT)
        wait_until(lambda: list((nodes.bucket / "jobs").glob("*/request.json")), 60,
                   "the job request\n" + nodes.logs())
        job = next((nodes.bucket / "jobs").iterdir()).name
        launched_torchrun = False
        last = 0
        for cloud, name, replacement in zip(CLOUDS, NODES, NODES[1:]):
            with MetadataServer(cloud, vm_name=name) as md:
                nodes.watch(name, cloud, md.url)
                wait_until(lambda: max(nodes.losses(), default=0) >= last + 3, 240,
                           f"training to reach step {last + 3} before the {cloud} notice\n"
                           + nodes.logs())
                if name == NODES[0]:
                    pid = json.loads((nodes.roots[name] / pa.JOBS_DIR / f"{job}.json")
                                     .read_text())["pid"]
                    launched_torchrun = b"torch.distributed.run" in open(
                        f"/proc/{pid}/cmdline", "rb").read()
                deadline = (datetime.now(timezone.utc) + timedelta(seconds=45)).replace(
                    microsecond=0)
                md.notice(deadline)
                noticed = datetime.now(timezone.utc)
                # Notice seen -> SIGTERM -> every rank saves together -> that node's torchrun
                # exits, and its job agent writes the exit record.
                exit_file = nodes.bucket / "jobs" / job / name / "exit.json"
                wait_until(exit_file.exists, 90, f"{name}'s exit on the {cloud} notice\n"
                           + nodes.logs())
                this = done[cloud] = Preemption(cloud, name, noticed, deadline,
                                                json.loads(exit_file.read_text()),
                                                log=nodes.logs())
                saved = newest_complete(nodes.lustre / "job-1")
                assert saved is not None, f"{cloud}: no complete checkpoint\n{this.log}"
                manifest = json.loads((saved / "trainstack.json").read_text())
                this.saved_step, this.complete = manifest["step"], is_complete(saved)
                this.saved_at = datetime.fromisoformat(manifest["time"].replace("Z", "+00:00"))
                last = this.saved_step
                # The node goes away for good (its agents with it); a fresh node takes its place.
                wait_until(lambda: list((nodes.bucket / "events" / name).glob("*.json")), 30,
                           f"the {cloud} notice in the bucket")
                nodes.go_away(name)
                nodes.boot(replacement, 1)
        rc = run.wait(timeout=600)
        for this, replacement in zip(done.values(), NODES[1:]):
            # The agent's own records (the notice; on Azure the acknowledgement). The job's save
            # and restart records that the agent shipped from the same node are read below.
            this.notices = [e for e in (json.loads(p.read_text()) for p in
                                        (nodes.bucket / "events" / this.node).glob("*"))
                            if e["event"] not in ("checkpoint", "restart")]
            started = nodes.bucket / "jobs" / job / replacement / "started.json"
            this.replacement_argv = json.loads(started.read_text())["argv"] \
                if started.exists() else []
        # The job's own records, written by global rank 0 (on whichever node it was; shipped
        # to the bucket by a preemption agent, kept in sent/, or not shipped): by file name.
        def records(kind: str) -> dict:
            return {p.name: json.loads(p.read_text()) for p in [
                *(nodes.bucket / "events").glob(f"*/*-{kind}-*.json"),
                *(r for root in nodes.roots.values()
                  for r in (root / pa.LOCAL_EVENTS_DIR).glob(f"**/*-{kind}-*.json"))]}
        restarts, saves = list(records("restart").values()), records("checkpoint")
        finals = [_torch().load(nodes.report / f"final-rank{r}.pt", weights_only=False)
                  for r in (0, 1)] if rc == 0 else []
        return PreemptedJob(job, done, nodes.losses(), finals, restarts, rc,
                            printed.read_text(), launched_torchrun, saves,
                            {p.name for p in nodes.report.glob("helper-*")},
                            {n: nodes.helper(n) for n in nodes.roots}, nodes.logs())
    finally:
        if run is not None and run.poll() is None:
            run.kill()
            run.wait()
        nodes.close()
