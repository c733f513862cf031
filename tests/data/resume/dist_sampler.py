"""A data-parallel training script for the resume check, with the bug that really broke a resume:
under world_size > 1 its DataLoader takes a DistributedSampler and no generator of its own, so
every new iterator draws its worker base seed from the global torch RNG. Straight through, one
iterator is made at step 1; resumed mid-epoch, a new one is made after the RNG was restored, the
draw shifts the stream, and the dropout masks of the resumed steps differ. On one process the
script uses `shuffle=True, generator=g`, which never touches the global RNG: the bug is only
there with two ranks or more.

  --fix                      give the DataLoader its own generator under world_size > 1 too
  --no-optimizer-checkpoint  leave the optimizer's state out of the checkpoint
"""
import argparse
import json
import os
from pathlib import Path

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

parser = argparse.ArgumentParser()
parser.add_argument("--fix", action="store_true")
parser.add_argument("--no-optimizer-checkpoint", action="store_true")
args = parser.parse_args()

world = int(os.environ.get("WORLD_SIZE", "1"))
if world > 1:
    dist.init_process_group("gloo")
rank = dist.get_rank() if world > 1 else 0
total = int(os.environ["TRAINSTACK_TOTAL_STEPS"])
stop_after = int(os.environ.get("TRAINSTACK_STOP_AFTER_STEP") or 0)
report = Path(os.environ["TRAINSTACK_REPORT_DIR"])
ckpt_dir = Path(os.environ["TRAINSTACK_CHECKPOINT_DIR"])
report.mkdir(parents=True, exist_ok=True)
ckpt_dir.mkdir(parents=True, exist_ok=True)
ckpt = ckpt_dir / f"rank{rank}.pt"

torch.manual_seed(0)
data = TensorDataset(torch.randn(64 * world * 4, 8), torch.randn(64 * world * 4, 1))
model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.Dropout(0.5), torch.nn.Linear(16, 1))
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
if world > 1:
    sampler = DistributedSampler(data, num_replicas=world, rank=rank, seed=0)
    loader = DataLoader(data, batch_size=4, sampler=sampler,
                        generator=torch.Generator().manual_seed(1) if args.fix else None)
else:
    loader = DataLoader(data, batch_size=4, shuffle=True, generator=torch.Generator().manual_seed(1))

start = 1
if ckpt.exists():
    saved = torch.load(ckpt, weights_only=False)
    model.load_state_dict(saved["model"])
    if "optimizer" in saved:
        optimizer.load_state_dict(saved["optimizer"])
    torch.set_rng_state(saved["rng"])
    start = saved["step"] + 1

step = 0
batches = iter(loader)                   # one epoch covers every step of the check
for inputs, target in batches:
    step += 1
    if step < start:
        continue                          # the steps done before the stop: same batches, skipped
    loss = torch.nn.functional.mse_loss(model(inputs), target)
    optimizer.zero_grad()
    loss.backward()
    if world > 1:
        for p in model.parameters():
            dist.all_reduce(p.grad)
            p.grad /= world
    optimizer.step()
    with open(report / f"losses-rank{rank}.jsonl", "a") as out:
        out.write(json.dumps({"step": step, "loss": loss.item()}) + "\n")
    if step == stop_after or step == total:
        state = {"step": step, "model": model.state_dict(), "rng": torch.get_rng_state()}
        if not args.no_optimizer_checkpoint:
            state["optimizer"] = optimizer.state_dict()
        torch.save(state, ckpt)
    if step == stop_after or step == total:
        break

if step == total:
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                "rng": {"torch": torch.get_rng_state()}}, report / f"final-rank{rank}.pt")
if world > 1:
    dist.destroy_process_group()
