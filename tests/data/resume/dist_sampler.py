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


class SGD:
    """torch.optim.SGD(params, lr, momentum) as it computes a step, written out: the momentum
    buffer is the gradient at a parameter's first step, then momentum * buffer + gradient, and
    the parameter moves by -lr * buffer. Why not torch.optim's own: its first call imports
    torch._dynamo, 1.7 of this script's 3.5 CPU-seconds a run, and the resume check's tests
    start it dozens of times (issue 36). Its state_dict has torch's shape (state by parameter
    index, param_groups), and forgetting it on resume is what forgetting torch's would be."""

    def __init__(self, params, lr, momentum):
        self.params, self.lr, self.momentum = list(params), lr, momentum
        self.buffers = [None] * len(self.params)

    def zero_grad(self):
        for p in self.params:
            p.grad = None

    @torch.no_grad()
    def step(self):
        for i, p in enumerate(self.params):
            if self.buffers[i] is None:
                self.buffers[i] = p.grad.detach().clone()
            else:
                self.buffers[i].mul_(self.momentum).add_(p.grad)
            p.add_(self.buffers[i], alpha=-self.lr)

    def state_dict(self):
        return {"state": {i: {"momentum_buffer": b.clone()}
                          for i, b in enumerate(self.buffers) if b is not None},
                "param_groups": [{"lr": self.lr, "momentum": self.momentum,
                                  "params": list(range(len(self.params)))}]}

    def load_state_dict(self, state):
        self.buffers = [state["state"][i]["momentum_buffer"].clone() if i in state["state"]
                        else None for i in range(len(self.params))]


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
optimizer = SGD(model.parameters(), lr=0.01, momentum=0.9)
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
