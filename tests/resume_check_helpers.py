"""The resume-check tests' runs, each made once per test session (issue 36: the suite's CPU).

Every resume check launches its script three times (straight, stopped half-way, resumed), and
each launch imports torch (about 2 CPU-seconds; three per launch with two ranks under torchrun).
Several tests ask for the same check, or for checks whose straight run is the same, so:

- `checked(...)` runs `resume_check` once per distinct (command, steps, ranks, tolerance) and
  hands every later caller the same result. The CLI tests reach it through `sharing_checks`,
  which puts `checked` where `trainstack bench --resume-check` calls `resume_check`: the CLI's
  parsing, rendering and exit code are still what runs; an argument it passed on wrongly is
  another key, so a real check runs and the test sees that check's result.
- A command whose straight run is another's shares it (`same_straight`, or `straight_as=` for
  a test's own copy of a script): they differ only in what the script does on resume or in what
  it saves (handrolled.py's `--forget` acts only on loading a checkpoint, dist_sampler.py's
  `--no-optimizer-checkpoint` only on saving one; the straight run loads none, and its
  checkpoint is never read).
- A command whose stopped half-run is another's shares that too (`same_stopped`, or
  `stopped_as=`): only where the difference acts on loading a checkpoint (handrolled.py's
  `--forget`, a copy whose resume branch is edited), which the stopped run, starting in an empty
  checkpoint folder, never does. The shared run's checkpoint folder is kept as it was when that
  run exited and copied into each sharer's own folder, so the resumed run -- always the
  command's own -- starts from exactly the files its own stopped run would have left.
  The straight and stopped runs shared are still real runs of the same script through `_run`.

The tests that share results run on one xdist worker (`xdist_group("resume_check")`), where this
module's caches live.
"""
from __future__ import annotations

import atexit
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Optional, Sequence

from trainstack.measure import resume_check as module

DATA = Path(__file__).resolve().parent / "data" / "resume"
HANDROLLED = [sys.executable, str(DATA / "handrolled.py")]
DIST = [sys.executable, str(DATA / "dist_sampler.py")]

_CHECKS: dict[tuple, module.ResumeCheck] = {}
_STRAIGHT: dict[tuple, module.RunOutput] = {}
# key -> (the stopped run's output, a copy of the checkpoint folder it left)
_STOPPED: dict[tuple, tuple[module.RunOutput, Path]] = {}
_KEPT = Path(tempfile.mkdtemp(prefix="trainstack-stopped-runs-"))
atexit.register(shutil.rmtree, _KEPT, ignore_errors=True)   # the copies live as long as the worker
_real_run = module._run
_real_resume_check = module.resume_check


def _key(command: Sequence[str], steps: int, ranks: int) -> tuple:
    return (tuple(str(part) for part in command), steps, ranks)


def same_straight(command: Sequence[str]) -> list[str]:
    """The command whose straight run `command`'s is (itself unless a flag above says not)."""
    command = [str(part) for part in command]
    if command[:2] == HANDROLLED and command[2:3] == ["--forget"]:
        return HANDROLLED + ["--forget", "nothing"] + command[4:]
    if command[:2] == DIST:
        return [part for part in command if part != "--no-optimizer-checkpoint"]
    return command


def same_stopped(command: Sequence[str]) -> list[str]:
    """The command whose stopped half-run `command`'s is: handrolled.py's `--forget` acts only
    when a checkpoint is loaded, which a stopped run from an empty folder never does."""
    command = [str(part) for part in command]
    if command[:2] == HANDROLLED and command[2:3] == ["--forget"]:
        return HANDROLLED + ["--forget", "nothing"] + command[4:]
    return command


def checked(command: Sequence[str], steps: int = 20, tolerance: float = 0.0, timeout: float = 600.0,
            env: Optional[dict] = None, ranks: int = 2,
            straight_as: Optional[Sequence[str]] = None,
            stopped_as: Optional[Sequence[str]] = None) -> module.ResumeCheck:
    """`resume_check(command, ...)`, made once per session for the same arguments (`env` only
    carries this checkout's PYTHONPATH, which every caller here exports anyway)."""
    key = (*_key(command, steps, ranks), tolerance)
    if key in _CHECKS:
        return _CHECKS[key]
    shared = _key(straight_as or same_straight(command), steps, ranks)
    shared_stop = _key(stopped_as or same_stopped(command), steps, ranks)
    mine = _key(command, steps, ranks)

    def run(cmd, workdir, name, steps_, stop_after, ckpt, timeout_, env_, ranks_=1):
        if name == "interrupted":
            if shared_stop in _STOPPED:
                out, kept = _STOPPED[shared_stop]
                shutil.copytree(kept, ckpt, dirs_exist_ok=True)
                return out
            out = _real_run(cmd, workdir, name, steps_, stop_after, ckpt, timeout_, env_, ranks_)
            kept = _KEPT / str(len(_STOPPED))
            shutil.copytree(ckpt, kept) if ckpt.exists() else kept.mkdir()
            _STOPPED[mine] = (out, kept)
            _STOPPED.setdefault(shared_stop, (out, kept))
            return out
        if name != "straight":
            return _real_run(cmd, workdir, name, steps_, stop_after, ckpt, timeout_, env_, ranks_)
        if shared in _STRAIGHT:
            return _STRAIGHT[shared]
        out = _real_run(cmd, workdir, name, steps_, stop_after, ckpt, timeout_, env_, ranks_)
        if out.returncode == 0:
            _STRAIGHT[mine] = out
            _STRAIGHT.setdefault(shared, out)
        return out

    module._run = run
    try:
        result = _real_resume_check(list(command), steps=steps, tolerance=tolerance,
                                    timeout=timeout, env=env, ranks=ranks)
    finally:
        module._run = _real_run
    _CHECKS[key] = result
    return result


def sharing_checks(monkeypatch) -> None:
    """Make the CLI's `resume_check` the session's `checked` for the rest of the test."""
    def resume_check(command, steps=20, tolerance=0.0, workdir=None, timeout=600.0, env=None,
                     ranks=2):
        if workdir is not None:   # a chosen workdir is the caller's to inspect: not shared
            return _real_resume_check(command, steps=steps, tolerance=tolerance,
                                      workdir=workdir, timeout=timeout, env=env, ranks=ranks)
        return checked(command, steps=steps, tolerance=tolerance, timeout=timeout, env=env,
                       ranks=ranks)
    monkeypatch.setattr(module, "resume_check", resume_check)
