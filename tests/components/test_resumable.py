"""The checkpoint helper's own rules: a checkpoint without every rank's marker is never resumed,
old checkpoints are pruned, a different world size is refused, and a preemption save happens
at the step boundary with the deadline recorded."""
import json
import os
import subprocess
import sys

import pytest

torch = pytest.importorskip("torch")

from tests.checkout import PYTHONPATH as CHECKOUT_PATH  # noqa: E402
from tests.conftest import ROOT  # noqa: E402
from trainstack_components.training import resumable  # noqa: E402

EXAMPLE = [sys.executable, "-W", "ignore", str(ROOT / "examples" / "train_resumable.py")]


def run_example(tmp_path, **env):
    full = {**os.environ, "PYTHONPATH": CHECKOUT_PATH, "TRAINSTACK_SCRATCH_DIR": str(tmp_path / "s"),
            "TRAINSTACK_CHECKPOINT_DIR": str(tmp_path / "p"),
            "TRAINSTACK_EVENTS_DIR": str(tmp_path / "events"),
            "TRAINSTACK_NOTICE_FILE": str(tmp_path / "notice.json"), **env}
    return subprocess.run(EXAMPLE, env=full, capture_output=True, text=True, timeout=300)


def test_saves_are_pruned_and_only_complete_ones_count(tmp_path):
    (tmp_path / "events").mkdir()
    (tmp_path / "notice.json").write_text(json.dumps({"deadline": "2999-01-01T00:00:00Z"}))
    done = run_example(tmp_path, TRAINSTACK_TOTAL_STEPS="12", TRAINSTACK_SAVE_EVERY="2",
                       TRAINSTACK_STOP_AFTER_STEP="9")
    assert done.returncode == resumable.EXIT_PREEMPTED, done.stderr
    persist = tmp_path / "p"
    # Saves at 2, 4, 6, 8 (every 2) and 9 (the stop); two are kept, both complete.
    assert sorted(p.name for p in persist.glob("step-*")) == ["step-00000008", "step-00000009"]
    assert sorted(p.name for p in (tmp_path / "s").glob("step-*")) == ["step-00000008",
                                                                        "step-00000009"]
    assert resumable.newest_complete(persist).name == "step-00000009"
    [event] = [json.loads(p.read_text()) for p in (tmp_path / "events").glob("*checkpoint*")]
    assert event["step"] == 9 and event["before_deadline"] is True
    # A rank's marker missing (a copy cut short): that checkpoint does not count.
    (persist / "step-00000009" / ".rank-0.done").unlink()
    assert resumable.newest_complete(persist).name == "step-00000008"
    done = run_example(tmp_path, TRAINSTACK_TOTAL_STEPS="12", TRAINSTACK_SAVE_EVERY="100")
    assert done.returncode == 0 and "resumed after step 8" in done.stdout
    [restart] = [json.loads(p.read_text()) for p in (tmp_path / "events").glob("*restart*")]
    assert restart["step"] == 8 and restart["checkpoint"] == "step-00000008"


def test_a_checkpoint_of_another_world_size_is_refused(tmp_path):
    model = torch.nn.Linear(2, 1)
    ck = resumable.Checkpointer(model, torch.optim.SGD(model.parameters(), lr=0.1),
                                scratch=str(tmp_path / "s"), persist=str(tmp_path / "p"))
    ck.save(3, blocking=True)
    manifest = tmp_path / "p" / "step-00000003" / resumable.MANIFEST
    manifest.write_text(json.dumps({**json.loads(manifest.read_text()), "world_size": 1}))
    assert ck.resume() == 3
    manifest.write_text(json.dumps({**json.loads(manifest.read_text()), "world_size": 4}))
    for rank in range(1, 4):
        (manifest.parent / f".rank-{rank}.done").write_text("x")
    with pytest.raises(RuntimeError, match="saved by 4 ranks and this job has 1"):
        ck.resume()
