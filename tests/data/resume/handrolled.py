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
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
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
