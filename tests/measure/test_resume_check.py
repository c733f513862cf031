"""`trainstack bench --resume-check`: K steps straight vs K/2 + stop + resume must agree exactly on
CPU. It passes the example script (components/training/resumable.py) and a correct hand-rolled
script, and fails scripts that forget to restore the optimizer or the RNG."""
import sys

import pytest

from tests.checkout import PYTHONPATH as CHECKOUT_PATH
from tests.conftest import ROOT
from tests.resume_check_helpers import DIST, HANDROLLED, checked
from trainstack.measure.resume_check import render, resume_check
from trainstack_components.errors import SpecError

pytest.importorskip("torch")

# Each check is made once per session and a straight run shared where the scripts' straight runs
# are the same (tests/resume_check_helpers.py): one worker holds those results.
pytestmark = pytest.mark.xdist_group("resume_check")

EXAMPLE = [sys.executable, "-W", "ignore", str(ROOT / "examples" / "train_resumable.py")]


def env_with_repo():
    import os
    env = dict(os.environ)
    env["PYTHONPATH"] = CHECKOUT_PATH + os.pathsep + env.get("PYTHONPATH", "")
    return env


def test_the_example_script_resumes_exactly():
    check = checked(EXAMPLE, steps=12, env=env_with_repo(), ranks=1)
    assert check.ok, render(check)
    assert check.resumed_at == 7 and check.compared_steps == 6
    assert check.max_loss_difference == 0.0


def test_a_correct_hand_rolled_checkpoint_passes_too():
    check = checked(HANDROLLED + ["--forget", "nothing"], steps=8, ranks=1)
    assert check.ok, render(check)


# A fresh optimizer shows one step late (step 5's loss comes before its first update); fresh RNG
# streams change the first resumed batch.
@pytest.mark.parametrize("forget, label, step", [("optimizer", "optimizer state", 6),
                                                 ("rng", "RNG state", 5)])
def test_a_script_that_forgets_to_restore_fails(forget, label, step):
    check = checked(HANDROLLED + ["--forget", forget], steps=8, ranks=1)
    assert not check.ok
    text = render(check)
    assert "FAIL" in text and f"loss at step {step} " in text
    assert any(p.startswith(label) for p in check.problems), check.problems


def test_a_script_that_restarts_from_scratch_is_caught(tmp_path):
    script = tmp_path / "no_resume.py"
    script.write_text((ROOT / "tests" / "data" / "resume" / "handrolled.py").read_text()
                      .replace("if ckpt.exists():", "if False:"))
    # Its straight and stopped runs are handrolled.py's: the edit is in the resume branch, which
    # neither takes (both start in an empty checkpoint folder).
    check = checked([sys.executable, str(script), "--forget", "nothing"], steps=8, ranks=1,
                    straight_as=HANDROLLED + ["--forget", "nothing"],
                    stopped_as=HANDROLLED + ["--forget", "nothing"])
    assert not check.ok and "started at step 1, not 5" in render(check)


def test_bad_input_names_the_field():
    with pytest.raises(SpecError) as bad:
        resume_check([], steps=8)
    assert bad.value.field == "command"
    with pytest.raises(SpecError) as bad:
        resume_check(["definitely-not-a-command-xyz"], steps=8)
    assert bad.value.field == "command" and "not found" in str(bad.value)
    with pytest.raises(SpecError) as bad:
        resume_check([sys.executable, "-c", "pass"], steps=8, ranks=1)
    assert "contract" in str(bad.value)


def test_the_cli_refuses_a_missing_command_in_one_paragraph():
    from typer.testing import CliRunner

    from trainstack.cli.app import app
    result = CliRunner().invoke(app, ["resume-check", "--steps", "8"])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "no training command" in result.output


def test_a_distributed_sampler_without_a_generator_is_caught_with_two_ranks():
    """The bug lives under world_size > 1 only: one process passes, two ranks (torchrun,
    gloo on CPU) fail at the first resumed step (5 of 8) on every rank, and say where to look."""
    assert checked(DIST, steps=8, ranks=1).ok
    check = checked(DIST, steps=8, ranks=2)
    assert not check.ok and check.ranks == 2
    text = render(check)
    assert "loss at step 5 on rank 0" in text and "loss at step 5 on rank 1" in text
    assert "DistributedSampler" in text and "(2 ranks)" in text


def test_two_ranks_pass_when_the_loader_has_its_own_generator():
    check = checked(DIST + ["--fix"], steps=8, ranks=2)
    assert check.ok, render(check)
    assert check.resumed_at == 5 and check.compared_steps == 4


def test_an_optimizer_missing_from_the_checkpoint_is_named():
    check = checked(DIST + ["--no-optimizer-checkpoint"], steps=8, ranks=1)
    assert not check.ok
    assert any("holds no optimizer state" in p for p in check.problems), check.problems
    assert not any("holds no optimizer" in p
                   for p in checked(DIST, steps=8, ranks=1).problems)
