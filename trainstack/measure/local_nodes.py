"""`trainstack local-nodes up N --bucket-url file://DIR` / `trainstack local-nodes down`: stand-in
nodes on this machine for `run`, `bench`, `status` and `compare --measured` without a cloud.

`up` gives each node `node-<i>` its own root under --root (default .trainstack-local-nodes)
with what a cloud node's boot leaves there -- the ranks profile (MASTER_ADDR 127.0.0.1, a free
port, NNODES, NODE_RANK, NPROC_PER_NODE) and an NCCL profile -- writes its health record
(status/node-<i>.json, as the boot's last step does) into the bucket, and starts its job agent
(components/agents/job_agent.py, torchrun from this Python, no container) in the background.
It returns once every agent has written its first heartbeat (or names the ones that did not,
with their logs). `down` stops the agents it started (their pids are in the root) and
withdraws the health records, so a later `run` does not wait for them.

The records say `cloud`/`instance_type` only when given (--cloud aws makes `compare
--measured` take the bench as the aws row's). torch must be importable for torchrun jobs.
"""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Optional

import typer

from trainstack_components.agents import job_agent
from trainstack_components.errors import SpecError

DEFAULT_ROOT = Path(".trainstack-local-nodes")
STATE_FILE = "local-nodes.json"       # under --root: {"bucket_url", "nodes": {name: pid}}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _bucket_dir(url: str) -> Path:
    if not url.startswith("file://") and "://" in url:
        raise SpecError("--bucket-url", f"{url} is not a local folder: stand-in nodes share a "
                        "file:// bucket.", "Use --bucket-url file:///some/folder.")
    return Path(url[len("file://"):] if url.startswith("file://") else url).resolve()


def write_node(root: Path, name: str, rank: int, nodes: int, port: int, nproc: int) -> None:
    """What the boot's ranks and fabric steps leave on a node."""
    profile = root / job_agent.RANKS_PROFILE.lstrip("/")
    profile.parent.mkdir(parents=True, exist_ok=True)
    profile.write_text(f"export MASTER_ADDR=127.0.0.1\nexport MASTER_PORT={port}\n"
                       f"export NNODES={nodes}\nexport NODE_RANK={rank}\n"
                       f"export NPROC_PER_NODE={nproc}\n")
    (root / job_agent.NCCL_PROFILE.lstrip("/")).write_text("export NCCL_DEBUG=WARN\n")
    (root / job_agent.LEAVING_FILE.lstrip("/")).unlink(missing_ok=True)


def health_record(name: str, rank: int, cloud: Optional[str],
                  instance_type: Optional[str]) -> dict:
    record = {"node": name, "node_rank": rank, "ok": True, "local_stand_in": True,
              "steps": {}, "time": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")}
    if cloud:
        record["cloud"] = cloud
    if instance_type:
        record["instance_type"] = instance_type
    return record


def up(count: int, url: str, root: Path, *, nproc: int = 1, cloud: Optional[str] = None,
       instance_type: Optional[str] = None, heartbeat_s: float = 2.0,
       wait_s: float = 60.0) -> dict[str, int]:
    """Start `count` stand-in nodes; node name -> agent pid."""
    if count < 1:
        raise SpecError("N", f"{count} is not a number of nodes.", "Use 1 or more, e.g. 2.")
    bucket = _bucket_dir(url)
    root = root.resolve()
    state_path = root / STATE_FILE
    if state_path.exists() and any(_alive(pid) for pid in _read_state(root)["nodes"].values()):
        raise SpecError("--root", f"{root} already has running stand-in nodes.",
                        f"Stop them first: trainstack local-nodes down --root {root}")
    bucket.mkdir(parents=True, exist_ok=True)
    store = job_agent.open_store(str(bucket))
    port = _free_port()
    env = {**os.environ, "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "1")}
    pids: dict[str, int] = {}
    for rank in range(count):
        name = f"node-{rank}"
        node_root = root / name
        write_node(node_root, name, rank, count, port, nproc)
        store.put(f"{job_agent.STATUS_PREFIX}/{name}.json",
                  json.dumps(health_record(name, rank, cloud, instance_type)).encode())
        # The node's own temp folder, as a cloud node has its own /tmp: torchrun makes a
        # torchelastic_* folder there per job and leaves it: under the node's root (--root),
        # not piling up in this machine's /tmp.
        node_tmp = node_root / "tmp"
        node_tmp.mkdir(exist_ok=True)
        log = open(root / f"{name}-agent.log", "ab")
        proc = subprocess.Popen(
            [sys.executable, "-m", "trainstack_components.agents.job_agent", "--bucket",
             str(bucket), "--node", name, "--root", str(node_root), "--launcher",
             f"{sys.executable} -m torch.distributed.run", "--no-container", "--poll", "1",
             "--heartbeat", f"{heartbeat_s:g}"],
            stdout=log, stderr=subprocess.STDOUT, env={**env, "TMPDIR": str(node_tmp)},
            start_new_session=True)
        pids[name] = proc.pid
    state_path.write_text(json.dumps({"bucket_url": f"file://{bucket}", "nodes": pids}))
    deadline = time.monotonic() + wait_s
    beats = {n: bucket / job_agent.HEARTBEAT_PREFIX / f"{n}.json" for n in pids}
    while time.monotonic() < deadline and not all(p.exists() for p in beats.values()):
        time.sleep(0.2)
    silent = [n for n, p in beats.items() if not p.exists()]
    if silent:
        down(root)
        logs = "; ".join(f"{n}: {(root / f'{n}-agent.log').read_text(errors='replace')[-300:]}"
                         for n in silent)
        raise SpecError("local-nodes", f"the job agents of {', '.join(silent)} wrote no "
                        f"heartbeat within {wait_s:g} s ({logs}).",
                        "Check that this Python imports trainstack_components (PYTHONPATH).")
    return pids


def _read_state(root: Path) -> dict:
    try:
        return json.loads((root / STATE_FILE).read_text())
    except (OSError, ValueError):
        return {"bucket_url": None, "nodes": {}}


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def down(root: Path, wait_s: float = 20.0) -> list[str]:
    """Stop the stand-in nodes started under `root` and withdraw their health records."""
    root = root.resolve()
    state = _read_state(root)
    nodes: dict[str, int] = state.get("nodes") or {}
    for pid in nodes.values():
        try:
            os.killpg(pid, signal.SIGTERM)     # the agent and the job it runs
        except (ProcessLookupError, PermissionError):
            pass
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline and any(_alive(pid) for pid in nodes.values()):
        time.sleep(0.2)
    for pid in nodes.values():
        if _alive(pid):
            try:
                os.killpg(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
    if state.get("bucket_url"):
        store = job_agent.open_store(state["bucket_url"])
        for name in nodes:
            key = f"{job_agent.STATUS_PREFIX}/{name}.json"
            record = json.loads(store.get(key) or b"{}")
            record.update({"ok": False, "withdrawn": "stopped by trainstack local-nodes down"})
            store.put(key, json.dumps(record).encode())
    (root / STATE_FILE).unlink(missing_ok=True)
    return sorted(nodes)


def local_nodes_command(
    action: str = typer.Argument(..., help="up | down"),
    count: Optional[int] = typer.Argument(None, help="With up: how many nodes (node-0 ...)."),
    url: Optional[str] = typer.Option(None, "--bucket-url", help="With up: the shared bucket, "
                                      "a local folder (file://DIR)."),
    root: Path = typer.Option(DEFAULT_ROOT, "--root", help="Where the nodes' roots, logs and "
                              "pids go."),
    nproc: int = typer.Option(1, "--nproc-per-node", min=1, help="Ranks per node."),
    cloud: Optional[str] = typer.Option(None, "--cloud", help="Label the health records with "
                                        "this cloud (compare --measured matches benches by it)."),
    instance_type: Optional[str] = typer.Option(None, "--instance-type", help="Label the "
                                                "health records with this instance type."),
):
    """Start (up N --bucket-url file://DIR) or stop (down) stand-in nodes on this machine."""
    if action == "up":
        if count is None or not url:
            raise SpecError("local-nodes up", "needs the node count and --bucket-url.",
                            "E.g. trainstack local-nodes up 2 --bucket-url file://$PWD/bucket")
        pids = up(count, url, root, nproc=nproc, cloud=cloud, instance_type=instance_type)
        print(f"{len(pids)} stand-in node(s) up: {', '.join(pids)} (bucket {url}; roots and "
              f"logs under {root}); stop them with: trainstack local-nodes down --root {root}")
    elif action == "down":
        stopped = down(root)
        print(f"stopped: {', '.join(stopped) or 'nothing was running'}")
    else:
        raise SpecError("ACTION", f"{action!r} is not up or down.",
                        "Use `trainstack local-nodes up 2 --bucket-url file://DIR` or "
                        "`trainstack local-nodes down`.")
