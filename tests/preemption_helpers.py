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
from datetime import datetime, timezone
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


# The two-node torchrun job of tests/measure/test_preemption_e2e.py (and, uninterrupted, the
# reference of test_preemption_run_e2e.py too: the session fixture in tests/measure/conftest.py).
# Long enough for the four preemptions that test preempts one job with, one per cloud, each
# notice at least 3 steps after the last resume (each save lands a step or two later).
EXAMPLE = str(ROOT / "examples" / "train_resumable.py")
STEPS = 30


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Cluster:
    """Nodes are process groups sharing a 'lustre' folder, a bucket folder and one report folder."""

    def __init__(self, base: Path):
        self.base, self.port = base, free_port()
        # The agent and the helper exactly as the boot step ships them to a node (the example
        # imports `trainstack_resumable` first).
        self.node_files = base / "opt-trainstack"
        self.node_files.mkdir()
        self.agent = self.node_files / "preemption_agent.py"
        self.agent.write_text(boot_step.AGENT_SOURCE)
        (self.node_files / "trainstack_resumable.py").write_text(boot_step.HELPER_SOURCE)
        self.lustre, self.bucket, self.report = base / "lustre", base / "bucket", base / "report"
        self.procs: list[subprocess.Popen] = []

    def env(self, root: Path) -> dict:
        env = dict(os.environ)
        env.update({"PYTHONPATH": f"{self.node_files}{os.pathsep}{ROOT}",
                    "GLOO_SOCKET_IFNAME": "lo", "OMP_NUM_THREADS": "1",
                    # torchrun's shared TCP store breaks elastic restarts: a replacement node
                    # waits forever for the rank-0 address (pytorch/pytorch#135712).
                    "TORCH_DISABLE_SHARE_RDZV_TCP_STORE": "1",
                    "PYTHONWARNINGS": "ignore", "TRAINSTACK_TOTAL_STEPS": str(STEPS),
                    "TRAINSTACK_SEED": "3", "TRAINSTACK_SAVE_EVERY": "1000",
                    "TRAINSTACK_STEP_SECONDS": "0.3", "TRAINSTACK_RUN": "job-1",
                    "TRAINSTACK_CHECKPOINT_DIR": str(self.lustre / "job-1"),
                    "TRAINSTACK_SCRATCH_DIR": str(root / "scratch" / "job-1"),
                    "TRAINSTACK_REPORT_DIR": str(self.report),
                    "TRAINSTACK_NOTICE_FILE": str(root / pa.NOTICE_FILE),
                    "TRAINSTACK_EVENTS_DIR": str(root / pa.LOCAL_EVENTS_DIR)})
        return env

    def start_node(self, name: str, host: bool) -> tuple[Path, subprocess.Popen]:
        root = self.base / name
        (root / pa.LOCAL_EVENTS_DIR).mkdir(parents=True)
        (root / pa.JOBS_DIR).mkdir(parents=True)
        log = open(self.base / f"{name}.log", "w")
        proc = subprocess.Popen(
            [sys.executable, "-m", "torch.distributed.run", "--nnodes=2:2", "--nproc-per-node=1",
             "--rdzv-backend=c10d", f"--rdzv-endpoint=127.0.0.1:{self.port}", "--rdzv-id=job-1",
             f"--rdzv-conf=is_host={str(host).lower()},join_timeout=240",
             "--max-restarts=5", "--monitor-interval=0.2", EXAMPLE],
            env=self.env(root), stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        self.procs.append(proc)
        # The job agent's record (components/agents/job_agent.py): what the preemption agent signals.
        (root / pa.JOBS_DIR / "job-1.json").write_text(json.dumps({"pid": proc.pid}))
        return root, proc

    def start_straight(self) -> list[subprocess.Popen]:
        """The same job as two nodes' torchrun would run it, never preempted, as its two ranks
        alone: each with the variables torchrun gives a worker (env:// rendezvous, rank 0 hosts
        the store) and without the pause per step (a sleep; it changes no number). The reference
        is the script's arithmetic, which no launcher takes part in; the launchers themselves
        are what the preempted runs test."""
        port = free_port()
        procs = []
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
            log = open(self.base / f"rank-{rank}.log", "w")
            procs.append(subprocess.Popen([sys.executable, EXAMPLE], env=env, stdout=log,
                                          stderr=subprocess.STDOUT, start_new_session=True))
        self.procs += procs
        return procs

    def start_agent(self, cloud: str, root: Path, url: str, node: str = "node-1") -> subprocess.Popen:
        proc = subprocess.Popen([sys.executable, "-I", str(self.agent), "--cloud", cloud,
                                 "--node", node,
                                 "--metadata-url", url, "--root", str(root), "--dest-dir",
                                 str(self.bucket), "--interval", "0.2"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
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
        return (self.base / f"{name}.log").read_text()[-3000:]

    def close(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def _torch():
    import torch
    return torch
