"""A small training script that survives spot preemption: it checkpoints with
components/training/resumable.py (on a node: `import trainstack_resumable`) and resumes from the
newest complete checkpoint, model, optimizer, LR schedule, RNG states and data position included.

    torchrun --nnodes 2 --nproc-per-node 8 --rdzv-backend c10d --rdzv-endpoint HOST:29500 \\
        --max-restarts 3 examples/train_resumable.py        # what `trainstack run` launches
    python examples/train_resumable.py                        # one process, CPU
    trainstack bench --resume-check -- python examples/train_resumable.py

Settings (environment): TRAINSTACK_TOTAL_STEPS (default 20), TRAINSTACK_SEED (0),
TRAINSTACK_SAVE_EVERY (5), TRAINSTACK_STEP_SECONDS (0: a pause per step, for tests that need
time to deliver a notice mid-run); the checkpoint directories are the helper's (see its
docstring).
"""
import os
import random

import torch
import torch.distributed as dist

try:
    import trainstack_resumable as resumable  # on a trainstack node (the boot step ships it)
except ModuleNotFoundError as missing:
    if missing.name != "trainstack_resumable":  # a broken helper must not pass unnoticed
        raise
    from trainstack_components.training import resumable  # from a checkout

SAMPLES, FEATURES, BATCH = 4096, 16, 32


def dataset(seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    """A fixed synthetic regression set; the position in it is part of the checkpoint."""
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(SAMPLES, FEATURES, generator=g)
    w = torch.randn(FEATURES, 1, generator=g)
    return x, x @ w + 0.1 * torch.randn(SAMPLES, 1, generator=g)


def main() -> None:
    total = int(os.environ.get("TRAINSTACK_TOTAL_STEPS", "20"))
    seed = int(os.environ.get("TRAINSTACK_SEED", "0"))
    pause = float(os.environ.get("TRAINSTACK_STEP_SECONDS", "0"))
    distributed = "RANK" in os.environ
    if distributed:
        dist.init_process_group("gloo")
    rank, world = (dist.get_rank(), dist.get_world_size()) if distributed else (0, 1)
    torch.manual_seed(seed)                       # same initial weights on every rank
    model = torch.nn.Sequential(torch.nn.Linear(FEATURES, 32), torch.nn.ReLU(),
                                torch.nn.Dropout(0.2), torch.nn.Linear(32, 1))
    if distributed:
        model = torch.nn.parallel.DistributedDataParallel(model)
    optimizer = torch.optim.AdamW(model.parameters(), lr=0.01, weight_decay=0.01)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=7, gamma=0.5)
    # Each rank's own streams (dropout, the noise below), from then on part of the checkpoint.
    random.seed(seed * 1000 + rank)
    torch.manual_seed(seed * 1000 + rank)
    try:  # seeded even though unused here: an unseeded generator differs between any two runs
        import numpy
        numpy.random.seed(seed * 1000 + rank)
    except ImportError:
        pass
    x, y = dataset(seed)

    ck = resumable.Checkpointer(model, optimizer, scheduler,
                                every=int(os.environ.get("TRAINSTACK_SAVE_EVERY", "5")))
    start = ck.resume()
    position = ck.data.get("position", 0)
    if start:
        print(f"rank {rank}: resumed after step {start}", flush=True)
    for step in range(start + 1, total + 1):
        rows = [(position + rank * BATCH + i) % SAMPLES for i in range(BATCH)]
        position = (position + world * BATCH) % SAMPLES
        noise = random.gauss(0.0, 0.01)           # python's RNG, restored on resume
        inputs = x[rows] + noise + 0.01 * torch.randn(BATCH, FEATURES)   # torch's RNG
        loss = torch.nn.functional.mse_loss(model(inputs), y[rows])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        scheduler.step()
        if distributed:                           # the loss every rank reports: the mean
            dist.all_reduce(loss := loss.detach().clone(), op=dist.ReduceOp.SUM)
            loss /= world
        ck.step_done(step, loss=loss.item(), data={"position": position})
        if pause:
            import time
            time.sleep(pause)
    ck.finish(total)
    if rank == 0:
        print(f"done: {total} steps, final loss {loss.item():.6f}", flush=True)
    if distributed:
        resumable.leave_together()    # not destroy_process_group() alone: see its docstring


if __name__ == "__main__":
    main()
