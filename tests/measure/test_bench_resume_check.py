"""`trainstack bench --resume-check -- CMD` (issue 23's done-when, through issue 22's bench):
exit 1 on a script that forgets to restore the optimizer or the RNG, 0 on the example."""
import os
import sys

import pytest
from typer.testing import CliRunner

from tests.checkout import PYTHONPATH as CHECKOUT_PATH
from tests.conftest import ROOT
from tests.resume_check_helpers import HANDROLLED, sharing_checks
from trainstack.cli.app import app

pytest.importorskip("torch")

# The checks behind these commands are made once per session and shared with
# tests/measure/test_resume_check.py's (tests/resume_check_helpers.py): one worker holds them.
pytestmark = pytest.mark.xdist_group("resume_check")


def bench(monkeypatch, *args):
    monkeypatch.setenv("PYTHONPATH", CHECKOUT_PATH + os.pathsep + os.environ.get("PYTHONPATH", ""))
    sharing_checks(monkeypatch)
    result = CliRunner().invoke(app, ["bench", "--resume-check", *map(str, args)],
                                terminal_width=200)
    assert "Traceback" not in result.output, result.output
    return result


@pytest.mark.parametrize("forget, label", [("optimizer", "optimizer state"), ("rng", "RNG state")])
def test_bench_resume_check_fails_a_script_that_forgets(monkeypatch, forget, label):
    result = bench(monkeypatch, "--steps", "8", "--ranks", "1", "--", *HANDROLLED, "--forget", forget)
    assert result.exit_code == 1, result.output
    assert "FAIL" in result.output and label in result.output


def test_bench_resume_check_passes_the_example(monkeypatch):
    # One rank: the check tests/measure/test_resume_check.py makes of the example, shared. The
    # example under two ranks is proved resumed exactly by the preemption end-to-end tests, and
    # the check's two-rank pass by test_two_ranks_pass_when_the_loader_has_its_own_generator.
    result = bench(monkeypatch, "--steps", "12", "--ranks", "1", "--", sys.executable, "-W",
                   "ignore", ROOT / "examples" / "train_resumable.py")
    assert result.exit_code == 0, result.output
    assert "PASS" in result.output and "12 steps straight vs 6" in result.output


def test_bench_resume_check_bad_input_is_one_paragraph(monkeypatch):
    empty = bench(monkeypatch, "--steps", "8")
    assert empty.exit_code == 2 and "no training command" in empty.output
    on_stack = bench(monkeypatch, "--stack", "x", "--", "python", "t.py")
    assert on_stack.exit_code == 2 and "runs on this machine" in on_stack.output
    stray = CliRunner().invoke(app, ["bench", "--bucket-url", "file:///nowhere", "--", "python",
                                     "t.py"])
    assert stray.exit_code == 2 and "--resume-check" in stray.output


def test_a_rank_that_dies_on_resume_is_shown_with_its_own_stderr(monkeypatch):
    """torchrun's failure summary names only "Signal 6 (SIGABRT)"; the cause is in the rank's
    stderr, and the check must show it (a CI run once failed with the summary alone)."""
    script = [sys.executable, str(ROOT / "tests" / "data" / "resume" / "aborts_on_resume.py")]
    result = bench(monkeypatch, "--steps", "4", "--ranks", "2", "--", *script)
    assert result.exit_code == 1, result.output
    assert "the resumed run exited" in result.output
    assert "rank 1 stderr" in result.output
    assert "planted: rank 1 cannot read its checkpoint shard" in result.output
