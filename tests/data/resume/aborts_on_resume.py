"""A two-rank script that honours the resume check's contract until it resumes: then rank 1
writes why to stderr and aborts (SIGABRT, as a C++ `terminate` in a collective library does).
torchrun's own summary of such a run names only the signal; the resume check must show the
rank's stderr."""
import json
import os
import signal
import sys
from pathlib import Path

rank = int(os.environ["RANK"])
total = int(os.environ["TRAINSTACK_TOTAL_STEPS"])
stop_after = int(os.environ.get("TRAINSTACK_STOP_AFTER_STEP") or 0)
marker = Path(os.environ["TRAINSTACK_CHECKPOINT_DIR"]) / f"step-rank{rank}.txt"
report = Path(os.environ["TRAINSTACK_REPORT_DIR"])
report.mkdir(parents=True, exist_ok=True)

start = int(marker.read_text()) if marker.exists() else 0
# A resumed run is one that finds any rank's marker: the rank that reaches the stop first exits,
# and torchrun may stop the other before it writes its own (seen under load: rank 1 then
# started from scratch, never aborted, and the check passed).
if rank == 1 and any(marker.parent.glob("step-rank*.txt")):
    print("planted: rank 1 cannot read its checkpoint shard", file=sys.stderr, flush=True)
    os.abort()
for step in range(start + 1, total + 1):
    with open(report / f"losses-rank{rank}.jsonl", "a") as out:
        out.write(json.dumps({"step": step, "loss": 1.0 / step}) + "\n")
    if step == stop_after:
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.write_text(str(step))
        sys.exit(128 + signal.SIGTERM)
import torch  # noqa: E402  (here: only a run that gets this far pays for the import)

torch.save({"model": {"w": torch.ones(1)}}, report / f"final-rank{rank}.pt")
