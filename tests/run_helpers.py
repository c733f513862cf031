"""Local "nodes" for `trainstack run` and `bench` tests: one job agent per node, each with its
own node root (its boot profiles, its /var/lib/trainstack), sharing one bucket (a file:// folder
or the moto S3 server). torchrun is real; the backend is gloo on CPU."""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

from tests.checkout import PYTHONPATH as CHECKOUT_PATH
from trainstack_components.agents import job_agent

ROOT = Path(__file__).resolve().parents[1]
LAUNCHER = f"{sys.executable} -m torch.distributed.run"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def write_node_root(root: Path, rank: int, nodes: int, port: int, nproc: int = 1) -> None:
    """What the boot's ranks and fabric steps leave on a node."""
    profile = root / job_agent.RANKS_PROFILE.lstrip("/")
    profile.parent.mkdir(parents=True, exist_ok=True)
    profile.write_text(f"export MASTER_ADDR=127.0.0.1\nexport MASTER_PORT={port}\n"
                       f"export NNODES={nodes}\nexport NODE_RANK={rank}\n"
                       f"export NPROC_PER_NODE={nproc}\n")
    (root / job_agent.NCCL_PROFILE.lstrip("/")).write_text(
        "export NCCL_DEBUG=WARN\nexport TS_FABRIC_PROFILE_SEEN=yes\n")


def health_record(node: str, rank: int, **extra) -> dict:
    return {"node": node, "node_rank": rank, "ok": True, "cloud": "aws",
            "instance_type": "p5.48xlarge", "gpus": 8, "gpus_expected": 8,
            "rdma_devices": 32, "rdma_expected": 32, "fabric": "efa",
            "filesystem_mounted": True, "mount_path": "/lustre", "scratch_mounted": True,
            "steps": {}, "time": "2026-12-01T14:00:00Z", **extra}


class LocalCluster:
    def __init__(self, tmp: Path, nodes: int = 2, bucket_url: str | None = None,
                 records: dict | None = None):
        self.tmp = tmp
        self.names = [f"node-{i}" for i in range(nodes)]
        self.bucket_dir = tmp / "bucket"
        self.bucket_dir.mkdir(exist_ok=True)
        self.url = bucket_url or f"file://{self.bucket_dir}"
        self.port = free_port()
        self.roots = {}
        self.procs: list[subprocess.Popen] = []
        self.agents: dict[str, subprocess.Popen] = {}
        store = job_agent.open_store(self.url)
        for rank, name in enumerate(self.names):
            root = tmp / name
            write_node_root(root, rank, nodes, self.port)
            self.roots[name] = root
            record = (records or {}).get(name) or health_record(name, rank)
            store.put(f"status/{name}.json", json.dumps(record).encode())

    def start(self, env: dict | None = None, names: list[str] | None = None) -> "LocalCluster":
        """Start the job agents of `names` (default: every node); heartbeats every 0.5 s and a
        5 s grace after SIGTERM, so a lost node shows within seconds."""
        run_env = {**os.environ, "PYTHONPATH": CHECKOUT_PATH, "OMP_NUM_THREADS": "1", **(env or {})}
        for name in names or self.names:
            # each node's own temp folder (trainstack local-nodes does the same): torchrun's
            # torchelastic_* folders stay with the test's tmp_path, not in the machine's /tmp
            node_tmp = self.roots[name] / "tmp"
            node_tmp.mkdir(exist_ok=True)
            log = open(self.tmp / f"{name}-agent.log", "ab")
            proc = subprocess.Popen(
                [sys.executable, str(ROOT / "components/agents/job_agent.py"),
                 "--bucket", self.url, "--node", name, "--root", str(self.roots[name]),
                 "--launcher", LAUNCHER, "--poll", "0.3", "--idle-exit", "300",
                 "--heartbeat", "0.5", "--stop-grace", "5"],
                stdout=log, stderr=subprocess.STDOUT, env={**run_env, "TMPDIR": str(node_tmp)})
            self.procs.append(proc)
            self.agents[name] = proc
        return self

    def kill_node(self, name: str) -> None:
        """What the cloud does to a node it takes back: its agent and every job of it die at
        once (SIGKILL), nothing more is written. The agent first: killed after its job, it
        could still write the job's exit record in between."""
        self.agents[name].kill()
        self.agents[name].wait(timeout=20)
        jobs = self.roots[name] / job_agent.LOCAL_JOBS_DIR.lstrip("/")
        for pid_file in jobs.glob("*.json"):
            try:
                os.killpg(json.loads(pid_file.read_text())["pid"], 9)
            except (OSError, ValueError, KeyError):
                pass

    def stop(self) -> None:
        for proc in self.procs:
            proc.terminate()
        for proc in self.procs:
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()

    def node_log(self, name: str) -> str:
        """What the jobs on `name` have printed so far (its agent's local job logs)."""
        jobs = self.roots[name] / job_agent.LOCAL_JOBS_DIR.lstrip("/")
        return "".join(p.read_text(errors="replace") for p in sorted(jobs.glob("*.log")))

    def agent_logs(self) -> str:
        return "\n".join((self.tmp / f"{n}-agent.log").read_text(errors="replace")
                         for n in self.names if (self.tmp / f"{n}-agent.log").exists())

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()


TRAIN_PY = '''\
import json, os, sys
import torch
import torch.distributed as dist
dist.init_process_group("gloo")
rank, world = dist.get_rank(), dist.get_world_size()
value = torch.tensor([float(rank)])
dist.all_reduce(value)
print(f"rank {rank} of {world}: sum of ranks {value.item():g}", flush=True)
with open(os.path.join(os.environ["TRAINSTACK_JOB_OUT"], f"rank{rank}.json"), "w") as out:
    json.dump({"rank": rank, "world": world, "local_rank": int(os.environ["LOCAL_RANK"]),
               "group_rank": int(os.environ["GROUP_RANK"]), "master": os.environ["MASTER_ADDR"],
               "sum": value.item(), "node": os.environ["TRAINSTACK_NODE"],
               "fabric_profile": os.environ.get("TS_FABRIC_PROFILE_SEEN")}, out)
dist.destroy_process_group()
sys.exit(int(os.environ.get("TRAIN_EXIT", "0")) if rank == world - 1 else 0)
'''


def wait_for(predicate, timeout: float = 60.0, step: float = 0.2):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(step)
    return predicate()
