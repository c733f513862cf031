"""A training script with its own hand-rolled checkpoint (torch.save, no trainstack helper) that
honours the resume check's contract, with a bug to order: `--forget optimizer` resumes the model
but a fresh optimizer, `--forget rng` resumes model and optimizer but not the RNG streams,
`--forget nothing` is correct. The resume check must fail the first two and pass the third."""
import argparse
import json
import os
import random
import signal
import sys
from pathlib import Path

import torch


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
parser.add_argument("--forget", choices=["nothing", "optimizer", "rng"], required=True)
forget = parser.parse_args().forget
total = int(os.environ["TRAINSTACK_TOTAL_STEPS"])
stop_after = int(os.environ.get("TRAINSTACK_STOP_AFTER_STEP") or 0)
ckpt = Path(os.environ["TRAINSTACK_CHECKPOINT_DIR"]) / "ckpt.pt"
report = Path(os.environ["TRAINSTACK_REPORT_DIR"])
report.mkdir(parents=True, exist_ok=True)

torch.manual_seed(0)
random.seed(1)
model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.Dropout(0.3), torch.nn.Linear(16, 1))
optimizer = SGD(model.parameters(), lr=0.05, momentum=0.9)
start = 0
if ckpt.exists():
    saved = torch.load(ckpt, weights_only=False)
    model.load_state_dict(saved["model"])
    start = saved["step"]
    if forget != "optimizer":
        optimizer.load_state_dict(saved["optimizer"])
    if forget != "rng":
        torch.set_rng_state(saved["torch_rng"])
        random.setstate(saved["python_rng"])

stop = []
signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
for step in range(start + 1, total + 1):
    x = torch.randn(32, 8) + random.random()
    loss = ((model(x) - x.sum(dim=1, keepdim=True)) ** 2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    with open(report / "losses-rank0.jsonl", "a") as out:
        out.write(json.dumps({"step": step, "loss": loss.item()}) + "\n")
    if step == stop_after:
        os.kill(os.getpid(), signal.SIGTERM)
    if stop:
        ckpt.parent.mkdir(parents=True, exist_ok=True)
        torch.save({"step": step, "model": model.state_dict(), "optimizer": optimizer.state_dict(),
                    "torch_rng": torch.get_rng_state(), "python_rng": random.getstate()}, ckpt)
        sys.exit(143)
torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
            "rng": {"torch": torch.get_rng_state(), "python": random.getstate()}},
           report / "final-rank0.pt")
