"""The part of `trainstack bench` that runs on the nodes. `bench` ships this file in the job
request (the nodes have the image's Python and torch, not trainstack) and the job agent runs it:

    allreduce  (under torchrun, every node): all-reduce bus bandwidth over message sizes
    storage    (once per node, no torchrun): checkpoint write + read back on /lustre and /scratch,
               then a sequential read of a file larger than the write cache would keep warm
    train      (under torchrun, one node or all): a small transformer for N steps: tokens/s,
               peak memory, OOM, the fraction of step time spent waiting for data

Each writes one JSON document to $TRAINSTACK_JOB_OUT (the agent copies it to the bucket).
Bus bandwidth is nccl-tests' definition (doc/PERFORMANCE.md in NVIDIA/nccl-tests): for
all-reduce, busbw = algbw x 2(n-1)/n with algbw = bytes / time, n = ranks.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import time
from pathlib import Path
from typing import Any


def _out(name: str, record: dict) -> None:
    path = Path(os.environ.get("TRAINSTACK_JOB_OUT", ".")) / name
    path.write_text(json.dumps(record, sort_keys=True))


def _dist():
    import torch
    import torch.distributed as dist
    cuda = torch.cuda.is_available()
    if cuda:
        torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", "0")))
    dist.init_process_group("nccl" if cuda else "gloo")
    return torch, dist, torch.device("cuda") if cuda else torch.device("cpu")


def bus_bandwidth(nbytes: int, seconds: float, ranks: int) -> float:
    """GB/s (1e9 bytes/s), as nccl-tests reports busbw for all-reduce."""
    algbw = nbytes / seconds / 1e9
    return algbw * (2 * (ranks - 1) / ranks) if ranks > 1 else algbw


def allreduce(args) -> None:
    torch, dist, device = _dist()
    world = dist.get_world_size()
    rows = []
    for mib in args.sizes_mib:
        n = int(mib * 2**20) // 4
        tensor = torch.ones(n, dtype=torch.float32, device=device)
        for _ in range(args.warmup):
            dist.all_reduce(tensor)
        if device.type == "cuda":
            torch.cuda.synchronize()
        dist.barrier()
        start = time.perf_counter()
        for _ in range(args.iters):
            dist.all_reduce(tensor)
        if device.type == "cuda":
            torch.cuda.synchronize()
        seconds = (time.perf_counter() - start) / args.iters
        rows.append({"bytes": n * 4, "seconds": seconds,
                     "busbw_gbps": bus_bandwidth(n * 4, seconds, world)})
    if dist.get_rank() == 0:
        _out("allreduce.json", {"ranks": world, "backend": dist.get_backend(),
                                "device": device.type, "sizes": rows})
    if int(os.environ.get("LOCAL_RANK", "0")) == 0:
        _nvidia_smi()
    _leave_together()


def _nvidia_smi() -> None:
    """This node's `nvidia-smi` header (driver and CUDA versions), where there is one."""
    import shutil
    import subprocess
    if shutil.which("nvidia-smi") is None:
        return
    try:
        done = subprocess.run(["nvidia-smi"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return
    node = os.environ.get("TRAINSTACK_NODE", "node")
    (Path(os.environ.get("TRAINSTACK_JOB_OUT", ".")) / f"nvidia-smi-{node}.txt").write_text(
        done.stdout)


def _timed_write(path: Path, nbytes: int) -> float:
    block = os.urandom(min(nbytes, 4 * 2**20))
    start = time.perf_counter()
    with open(path, "wb") as handle:
        left = nbytes
        while left > 0:
            left -= handle.write(block[:min(left, len(block))])
        handle.flush()
        os.fsync(handle.fileno())
    return time.perf_counter() - start


def _timed_read(path: Path) -> float:
    with open(path, "rb") as handle:
        # Drop the file from the page cache: the read then measures the filesystem, not memory.
        os.posix_fadvise(handle.fileno(), 0, 0, os.POSIX_FADV_DONTNEED)
    start = time.perf_counter()
    with open(path, "rb", buffering=0) as handle:
        while handle.read(8 * 2**20):
            pass
    return time.perf_counter() - start


def storage(args) -> None:
    nbytes = int(args.checkpoint_mib * 2**20)
    node = os.environ.get("TRAINSTACK_NODE", "node")
    result: dict[str, Any] = {"node": node, "checkpoint_bytes": nbytes, "paths": {}}
    for path in args.paths:
        folder = Path(path) / ".trainstack-bench" / node
        entry: dict = {"path": path}
        try:
            folder.mkdir(parents=True, exist_ok=True)
            target = folder / "checkpoint.bin"
            entry["write_s"] = _timed_write(target, nbytes)
            entry["read_s"] = _timed_read(target)
            entry["write_mbps"] = nbytes / entry["write_s"] / 1e6
            entry["read_mbps"] = nbytes / entry["read_s"] / 1e6
            target.unlink()
        except OSError as failed:
            entry["error"] = f"{type(failed).__name__}: {failed}"
        result["paths"][path] = entry
    _out(f"storage-{node}.json", result)


def train(args) -> None:
    torch, dist, device = _dist()
    import torch.nn as nn
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(0)
    layer = nn.TransformerEncoderLayer(args.hidden, args.heads, 4 * args.hidden, batch_first=True)
    model = nn.Sequential(nn.Embedding(args.vocab, args.hidden),
                          nn.TransformerEncoder(layer, args.layers),
                          nn.Linear(args.hidden, args.vocab)).to(device)
    params = sum(p.numel() for p in model.parameters())
    ddp = nn.parallel.DistributedDataParallel(model)
    optim = torch.optim.AdamW(ddp.parameters(), lr=1e-4)
    tokens_per_step = args.batch * args.seq
    oom, times, waits = False, [], []
    try:
        for step in range(args.warmup + args.steps):
            start = time.perf_counter()
            # The data: synthetic, made on the host as a loader would, then copied over.
            batch = torch.randint(0, args.vocab, (args.batch, args.seq + 1)).to(device)
            if device.type == "cuda":
                torch.cuda.synchronize()
            ready = time.perf_counter()
            logits = ddp(batch[:, :-1])
            loss = nn.functional.cross_entropy(logits.reshape(-1, args.vocab),
                                               batch[:, 1:].reshape(-1))
            loss.backward()
            optim.step()
            optim.zero_grad(set_to_none=True)
            if device.type == "cuda":
                torch.cuda.synchronize()
            end = time.perf_counter()
            if step >= args.warmup:
                times.append(end - start)
                waits.append(ready - start)
    except torch.cuda.OutOfMemoryError:
        oom = True
    if device.type == "cuda":
        peak = torch.cuda.max_memory_allocated()
    else:   # ru_maxrss is KiB on Linux: the process's peak resident memory
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    step_s = sum(times) / len(times) if times else None
    # A float tensor, not all_gather_object: that one needs numpy, which the image may lack.
    mine = torch.tensor([step_s or 0.0, (sum(waits) / len(waits)) if waits else 0.0,
                         float(peak), float(oom)], dtype=torch.float64, device=device)
    parts = [torch.zeros_like(mine) for _ in range(world)]
    dist.all_gather(parts, mine)
    gathered = [{"rank": i, "step_s": p[0].item() or None, "wait_s": p[1].item(),
                 "peak_bytes": int(p[2].item()), "oom": bool(p[3].item())}
                for i, p in enumerate(parts)]
    if rank == 0:
        steps = [g["step_s"] for g in gathered if g["step_s"]]
        slowest = max(steps) if steps and len(steps) == world else None
        _out("train.json", {
            "ranks": world, "nodes": int(os.environ.get("GROUP_WORLD_SIZE", "1")),
            "device": device.type, "backend": dist.get_backend(), "model_params": params,
            "steps": args.steps, "tokens_per_step": tokens_per_step * world,
            # The step ends when the slowest rank is done (DDP's all-reduce waits for it).
            "tokens_per_s": tokens_per_step * world / slowest if slowest else None,
            "data_wait_fraction": (max(g["wait_s"] for g in gathered) / slowest
                                   if slowest else None),
            "peak_memory_bytes": max(g["peak_bytes"] for g in gathered),
            "oom": any(g["oom"] for g in gathered), "per_rank": gathered})
    _leave_together()


def _leave_together() -> None:
    """The node helper's clean end of a distributed run (why: its docstring); it ships beside
    this file (bench sends both)."""
    from trainstack_resumable import leave_together
    leave_together()


def main(argv=None) -> None:
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="mode", required=True)
    a = sub.add_parser("allreduce")
    a.add_argument("--sizes-mib", type=float, nargs="+", default=[64.0, 1024.0])
    a.add_argument("--warmup", type=int, default=2)
    a.add_argument("--iters", type=int, default=10)
    s = sub.add_parser("storage")
    s.add_argument("--paths", nargs="+", default=["/lustre", "/scratch"])
    s.add_argument("--checkpoint-mib", type=float, default=1024.0)
    t = sub.add_parser("train")
    for name, default in (("steps", 50), ("warmup", 3), ("batch", 8), ("seq", 512),
                          ("hidden", 512), ("heads", 8), ("layers", 4), ("vocab", 32000)):
        t.add_argument(f"--{name}", type=int, default=default)
    args = parser.parse_args(argv)
    {"allreduce": allreduce, "storage": storage, "train": train}[args.mode](args)


if __name__ == "__main__":
    main()
