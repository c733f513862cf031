"""`trainstack bench --resume-check -- CMD` (also `trainstack resume-check -- CMD`): prove that a
training script resumes exactly, the seed article's resume test (§4.3) automated.

Three runs of CMD on this machine, each in fresh checkpoint directories:
  A. K steps straight through;
  B. the same, stopped after step K/2 as if preempted ($TRAINSTACK_STOP_AFTER_STEP: the script
     saves and exits), then
  C. started again on B's checkpoints, to step K.
C must start at step K/2 + 1, its losses must equal A's step for step (exactly on CPU; within
--tolerance, relative, on GPU where kernels are not bitwise reproducible), and at step K the
parameters, the optimizer state and the RNG states must equal A's. A script that forgets to
restore its optimizer or its RNG fails here, at the first step that shows it.

The script's side of the contract (components/training/resumable.py does it all): read
TRAINSTACK_TOTAL_STEPS, TRAINSTACK_CHECKPOINT_DIR, TRAINSTACK_SCRATCH_DIR and
TRAINSTACK_STOP_AFTER_STEP; append {"step", "loss"} lines to $TRAINSTACK_REPORT_DIR/
losses-rank0.jsonl; at the end torch.save {"model", "optimizer", "rng"} to
$TRAINSTACK_REPORT_DIR/final-rank0.pt.
"""
from __future__ import annotations

import json
import math
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Optional

import typer

from trainstack_components.errors import SpecError

ENV_KEYS = ("TRAINSTACK_TOTAL_STEPS", "TRAINSTACK_STOP_AFTER_STEP", "TRAINSTACK_REPORT_DIR",
            "TRAINSTACK_CHECKPOINT_DIR", "TRAINSTACK_SCRATCH_DIR", "TRAINSTACK_RUN")


@dataclass
class RunOutput:
    returncode: int
    losses: dict[int, float]              # rank 0's
    final: Optional[dict]                 # rank 0's
    log_tail: str
    rank_losses: dict[int, dict[int, float]] = field(default_factory=dict)
    rank_finals: dict[int, Optional[dict]] = field(default_factory=dict)


# What torchrun (torch.distributed.elastic's local agent, torch 2.x) gives each worker, less the
# rendezvous it needs across nodes: one "node", every rank on it, a store on rank 0.
STOP_GRACE_S = 30.0      # torchrun's own wait between SIGTERM and SIGKILL when a worker fails
POLL_S = 0.1             # torchrun's default --monitor-interval


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def rank_env(env: dict, rank: int, ranks: int, port: int, run_id: str,
             error_file: Path) -> dict:
    """The environment of rank `rank` of `ranks` on this machine: the variables torchrun
    --standalone --nproc-per-node=`ranks` sets for its workers (RANK, LOCAL_RANK, WORLD_SIZE,
    LOCAL_WORLD_SIZE, GROUP_/ROLE_ RANK and WORLD_SIZE, ROLE_NAME, MASTER_ADDR/PORT, the
    TORCHELASTIC_ ones, TORCHELASTIC_ERROR_FILE for torch's @record), with OMP_NUM_THREADS 1
    unless set, as torchrun does for 2+ processes. TORCHELASTIC_USE_AGENT_STORE is False: there is no agent, so rank 0's init_process_group
    hosts the c10d store at MASTER_PORT (env:// rendezvous)."""
    return {**env, "RANK": str(rank), "LOCAL_RANK": str(rank), "WORLD_SIZE": str(ranks),
            "LOCAL_WORLD_SIZE": str(ranks), "GROUP_RANK": "0", "GROUP_WORLD_SIZE": "1",
            "ROLE_RANK": str(rank), "ROLE_WORLD_SIZE": str(ranks), "ROLE_NAME": "default",
            "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port),
            "TORCHELASTIC_RESTART_COUNT": "0", "TORCHELASTIC_MAX_RESTARTS": "0",
            "TORCHELASTIC_RUN_ID": run_id, "TORCHELASTIC_USE_AGENT_STORE": "False",
            "TORCHELASTIC_ERROR_FILE": str(error_file),
            "TORCH_NCCL_ASYNC_ERROR_HANDLING": env.get("TORCH_NCCL_ASYNC_ERROR_HANDLING", "1"),
            "OMP_NUM_THREADS": env.get("OMP_NUM_THREADS", "1")}


def run_ranks(command: list[str], ranks: int, env: dict, log_dir: Path,
              timeout: float) -> tuple[int, str]:
    """`command` as `ranks` processes on this machine, started as `torchrun --standalone
    --nproc-per-node=ranks --no-python command` starts its workers (`rank_env`), so code under
    world_size > 1 -- a DistributedSampler, a collective in the checkpoint -- runs as on a
    cluster, without a launcher process of its own (it would import torch once more per run).
    torchrun's ways kept: each rank's stdout and stderr in
    `log_dir`/<run id>/attempt_0/<rank>/{stdout,stderr}.log (its --log-dir layout, which
    `rank_errors` reads); the first rank to fail stops the others (SIGTERM, SIGKILL after
    STOP_GRACE_S) and the run exits 1; all exiting 0 is 0. Past `timeout` every rank is killed
    and subprocess.TimeoutExpired raised. Returns the exit code and the ranks' output."""
    run_id = f"resume-check-{uuid.uuid4().hex[:8]}"
    port = _free_port()
    procs: list[subprocess.Popen] = []
    folders: list[Path] = []
    try:
        for rank in range(ranks):
            folder = log_dir / run_id / "attempt_0" / str(rank)
            folder.mkdir(parents=True)
            folders.append(folder)
            with open(folder / "stdout.log", "w") as out, open(folder / "stderr.log", "w") as err:
                procs.append(subprocess.Popen(
                    command, env=rank_env(env, rank, ranks, port, run_id, folder / "error.json"),
                    stdin=subprocess.DEVNULL, stdout=out, stderr=err))
        deadline = time.monotonic() + timeout
        while True:
            codes = [proc.poll() for proc in procs]
            if any(c not in (None, 0) for c in codes):
                code = 1
                _stop(procs, STOP_GRACE_S)
                break
            if all(c == 0 for c in codes):
                code = 0
                break
            if time.monotonic() > deadline:
                raise subprocess.TimeoutExpired(command, timeout)
            time.sleep(POLL_S)
    finally:
        _stop(procs, 0.0)
    output = "".join(f"[rank{rank}]:{line}\n"
                     for rank, folder in enumerate(folders) for part in ("stdout", "stderr")
                     for line in (folder / f"{part}.log").read_text(errors="replace").splitlines())
    return code, output


def _stop(procs: list[subprocess.Popen], grace: float) -> None:
    """SIGTERM to the ranks still running, then SIGKILL to those left after `grace` seconds."""
    for proc in procs:
        if proc.poll() is None and grace:
            proc.terminate()
        elif proc.poll() is None:
            proc.kill()
    deadline = time.monotonic() + grace
    for proc in procs:
        try:
            proc.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def rank_errors(log_dir: Path, lines: int = 12) -> str:
    """The last `lines` lines of each rank's stderr under `log_dir` (torchrun's --log-dir layout,
    which run_ranks keeps), as "rank N: ..." paragraphs; empty when there are none."""
    found = []
    for stderr in sorted(log_dir.glob("*/attempt_*/*/stderr.log")):
        tail = [line for line in stderr.read_text(errors="replace").splitlines() if line.strip()]
        if tail:
            found.append(f"rank {stderr.parent.name} stderr:\n" + "\n".join(tail[-lines:]))
    return "\n".join(found)


@dataclass
class ResumeCheck:
    steps: int
    stop_after: int
    tolerance: float
    ranks: int = 1
    ok: bool = False
    problems: list[str] = field(default_factory=list)
    resumed_at: Optional[int] = None
    compared_steps: int = 0
    max_loss_difference: float = 0.0

    def to_dict(self) -> dict:
        return asdict(self)


def _run(command: list[str], workdir: Path, name: str, steps: int, stop_after: Optional[int],
         ckpt: Path, timeout: float, env: Optional[dict], ranks: int = 1) -> RunOutput:
    report = workdir / f"report-{name}"
    run_env = {k: v for k, v in (env or os.environ).items() if k not in ENV_KEYS}
    run_env.update({"TRAINSTACK_TOTAL_STEPS": str(steps), "TRAINSTACK_REPORT_DIR": str(report),
                    "TRAINSTACK_CHECKPOINT_DIR": str(ckpt / "persist"),
                    "TRAINSTACK_SCRATCH_DIR": str(ckpt / "scratch"),
                    "TRAINSTACK_RUN": f"resume-check-{ckpt.name}"})
    # The script runs as on a node without torchrun; its rank-0 files are the ones compared.
    for key in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT"):
        run_env.pop(key, None)
    if stop_after is not None:
        run_env["TRAINSTACK_STOP_AFTER_STEP"] = str(stop_after)
    try:
        if ranks > 1:
            returncode, output = run_ranks(command, ranks, run_env, workdir / f"logs-{name}",
                                           timeout)
        else:
            done = subprocess.run(command, env=run_env, capture_output=True, text=True,
                                  timeout=timeout)
            returncode, output = done.returncode, done.stdout + done.stderr
    except FileNotFoundError:
        raise SpecError("command", f"{command[0]!r} was not found.",
                        "Give the training command after `--`, e.g. -- python train.py.") from None
    except subprocess.TimeoutExpired:
        raise SpecError("--timeout", f"run {name} of {' '.join(command)} took over {timeout:g} s.",
                        "Use fewer --steps, a smaller model, or a larger --timeout.") from None
    rank_losses: dict[int, dict[int, float]] = {}
    rank_finals: dict[int, Optional[dict]] = {}
    for rank in range(max(1, ranks)):
        losses: dict[int, float] = {}
        try:
            for line in (report / f"losses-rank{rank}.jsonl").read_text().splitlines():
                entry = json.loads(line)
                losses[int(entry["step"])] = float(entry["loss"])
        except (OSError, ValueError, KeyError):
            pass
        rank_losses[rank] = losses
        final = None
        if (report / f"final-rank{rank}.pt").exists():
            import torch
            final = torch.load(report / f"final-rank{rank}.pt", weights_only=False)
        rank_finals[rank] = final
    tail = output[-2000:]
    if returncode != 0 and ranks > 1:
        # Each rank's own stderr says why; the run's code (as torchrun's) only that one failed.
        tail = rank_errors(workdir / f"logs-{name}")[-2000:] or tail
    return RunOutput(returncode, rank_losses[0], rank_finals[0], tail, rank_losses,
                     rank_finals)


def optimizer_in_checkpoint(folder: Path) -> Optional[bool]:
    """Whether the checkpoint files under `folder` hold an optimizer's state (a key naming
    "optim" in a saved dict, at any depth), None when no file there loads with torch."""
    import torch
    loaded = False

    def names_optimizer(obj: Any, depth: int = 0) -> bool:
        if isinstance(obj, dict) and depth < 4:
            return any("optim" in str(k).lower() or names_optimizer(v, depth + 1)
                       for k, v in obj.items())
        return False
    for path in sorted(p for p in folder.rglob("*") if p.is_file()) if folder.is_dir() else []:
        if path.stat().st_size > 2**30:
            continue
        try:
            state = torch.load(path, weights_only=False, map_location="cpu")
        except Exception:   # noqa: BLE001  (not a torch file: a manifest, a marker)
            continue
        loaded = True
        if names_optimizer(state):
            return True
    return False if loaded else None


def _differences(a: Any, b: Any, path: str, tolerance: float) -> list[str]:
    """Paths under which two saved states differ (tensors exactly, or within tolerance)."""
    import torch
    if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
        if a.shape != b.shape or a.dtype != b.dtype:
            return [path]
        if tolerance and a.is_floating_point():
            return [] if torch.allclose(a, b, rtol=tolerance, atol=0) else [path]
        return [] if torch.equal(a, b) else [path]
    if isinstance(a, dict) and isinstance(b, dict):
        if set(a) != set(b):
            return [f"{path} (keys {sorted(map(str, set(a) ^ set(b)))[:4]})"]
        return [d for k in a for d in _differences(a[k], b[k], f"{path}.{k}", tolerance)]
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        if len(a) != len(b):
            return [path]
        pairs = enumerate(zip(a, b, strict=True))
        return [d for i, (x, y) in pairs for d in _differences(x, y, f"{path}[{i}]", tolerance)]
    if type(a).__module__ == "numpy" or type(b).__module__ == "numpy":
        import numpy
        return [] if numpy.array_equal(a, b) else [path]
    return [] if a == b else [path]


def _close(a: float, b: float, tolerance: float) -> bool:
    if tolerance == 0:
        return a == b or (math.isnan(a) and math.isnan(b))
    return abs(a - b) <= tolerance * max(abs(a), abs(b), 1e-12)


def resume_check(command: list[str], steps: int = 20, tolerance: float = 0.0,
                 workdir: Optional[Path] = None, timeout: float = 600.0,
                 env: Optional[dict] = None, ranks: int = 2) -> ResumeCheck:
    if not command:
        raise SpecError("command", "no training command was given.",
                        "Put it after `--`: trainstack resume-check -- python train.py.")
    if steps < 2:
        raise SpecError("--steps", f"{steps} steps cannot be split in two halves.",
                        "Use --steps 4 or more.")
    if tolerance < 0:
        raise SpecError("--tolerance", f"{tolerance} is negative.", "Use 0 (exact, CPU) or e.g. 1e-5.")
    if shutil.which(command[0]) is None:
        raise SpecError("command", f"{command[0]!r} was not found.",
                        "Give the training command after `--`, e.g. -- python train.py.")
    if ranks < 1:
        raise SpecError("--ranks", f"{ranks} is not a number of processes.",
                        "Use 2 (the default) or more; 1 skips the code under world_size > 1.")
    half = steps // 2
    check = ResumeCheck(steps=steps, stop_after=half, tolerance=tolerance, ranks=ranks)
    with tempfile.TemporaryDirectory(prefix="trainstack-resume-check-") as tmp:
        work = Path(workdir or tmp)
        straight = _run(command, work, "straight", steps, None, work / "ckpt-straight", timeout,
                        env, ranks)
        if straight.returncode != 0:
            raise SpecError("command", f"the straight run of {' '.join(command)} exited "
                            f"{straight.returncode}:\n{straight.log_tail}",
                            "Fix the script so that it runs to the end on this machine first.")
        if any(sorted(straight.rank_losses[r]) != list(range(1, steps + 1))
               or straight.rank_finals[r] is None for r in range(ranks)):
            raise SpecError("command", "the script did not report its losses for every step and "
                            "its final state (the resume check's contract).",
                            "Use components/training/resumable.py (Checkpointer.step_done, "
                            "finish), or write losses-rankR.jsonl and final-rankR.pt (R: each "
                            f"of the {ranks} ranks) to $TRAINSTACK_REPORT_DIR yourself.")
        first = _run(command, work, "interrupted", steps, half, work / "ckpt-resumed", timeout,
                     env, ranks)
        if first.returncode == 0 and max(first.losses, default=0) >= steps:
            check.problems.append(f"the script ignored the stop after step {half} and ran to the "
                                  "end: it does not act on SIGTERM")
        if optimizer_in_checkpoint(work / "ckpt-resumed") is False:
            check.problems.append(f"the checkpoint saved at step {half} holds no optimizer "
                                  "state (no saved key names an optimizer): the resumed run "
                                  "starts its momentum / Adam moments from zero; save "
                                  "optimizer.state_dict() with the model")
        second = _run(command, work, "resumed", steps, None, work / "ckpt-resumed", timeout,
                      env, ranks)
        if second.returncode != 0:
            check.problems.append(f"the resumed run exited {second.returncode}: "
                                  f"{second.log_tail[-1200:]}")
        check.resumed_at = min(second.losses, default=None)
        if check.resumed_at is not None and check.resumed_at != half + 1:
            check.problems.append(f"the resumed run started at step {check.resumed_at}, not "
                                  f"{half + 1}: it did not resume from the step-{half} checkpoint")
        for rank in range(ranks):
            where = f" on rank {rank}" if ranks > 1 else ""
            expected, resumed = straight.rank_losses[rank], second.rank_losses.get(rank, {})
            for step in sorted(resumed):
                if step not in expected:
                    continue
                a, b = expected[step], resumed[step]
                check.compared_steps += rank == 0
                check.max_loss_difference = max(check.max_loss_difference, abs(a - b))
                if not _close(a, b, tolerance):
                    check.problems.append(f"loss at step {step}{where} is {b!r} after the "
                                          f"resume, {a!r} straight through")
                    break
            final_a, final_b = straight.rank_finals[rank], second.rank_finals.get(rank)
            if final_a is not None and final_b is not None:
                for part, label in (("model", "parameters"), ("optimizer", "optimizer state"),
                                    ("rng", "RNG state")):
                    diffs = _differences(final_a.get(part), final_b.get(part), part,
                                         tolerance if part != "rng" else 0.0)
                    if diffs:
                        check.problems.append(
                            f"{label} at step {steps}{where}: not equal to the straight "
                            f"run's ({', '.join(diffs[:3])})"
                            + (" -- not restored on resume, or never seeded (an unseeded "
                               "generator differs between any two runs)" if part == "rng"
                               else ""))
            elif second.returncode == 0:
                check.problems.append(f"the resumed run wrote no final state{where}")
        if ranks > 1 and any("on rank" in p and p.startswith("loss") for p in check.problems):
            check.problems.append(
                "only with several ranks: look at code under world_size > 1, e.g. a "
                "DistributedSampler DataLoader without generator= draws its seed from the "
                "global RNG at every new iterator, so a resumed run's random stream shifts")
    check.ok = not check.problems
    return check


def render(check: ResumeCheck) -> str:
    head = (f"resume check ({check.ranks} rank{'s' if check.ranks != 1 else ''}): "
            f"{check.steps} steps straight vs {check.stop_after} + stop + resume; "
            f"losses compared on {check.compared_steps} steps "
            f"({'exact' if check.tolerance == 0 else f'relative tolerance {check.tolerance:g}'})")
    if check.ok:
        return head + "\nPASS: losses, parameters, optimizer state and RNG state match."
    return head + "\nFAIL:\n" + "\n".join(f"  - {p}" for p in check.problems)


def resume_check_command(command: list[str], steps: int, tolerance: float, timeout: float,
                         as_json: bool, ranks: int = 2) -> int:
    """What the CLI runs; the exit code (0 pass, 1 fail). Bad input raises SpecError (exit 2)."""
    check = resume_check(command, steps=steps, tolerance=tolerance, timeout=timeout, ranks=ranks)
    print(json.dumps(check.to_dict(), indent=2) if as_json else render(check))
    sys.stdout.flush()
    return 0 if check.ok else 1


def resume_check_cli(
    command: list[str] = typer.Argument(None, help="The training command, after `--`."),
    steps: int = typer.Option(20, "--steps", help="K: steps straight through; the stop comes "
                              "after K/2."),
    tolerance: float = typer.Option(0.0, "--tolerance", help="Relative tolerance on losses and "
                                    "state (0: exact, right on CPU; e.g. 1e-5 on GPU)."),
    timeout: float = typer.Option(600.0, "--timeout", min=1, help="Seconds per run."),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
    ranks: int = typer.Option(2, "--ranks", min=1, help="Processes, started with torchrun's "
                              "variables (env:// rendezvous on this machine; the script picks "
                              "gloo on CPU): 2+ runs the code under world_size > 1."),
):
    """Prove the script resumes exactly: K steps straight vs K/2, a stop, and a resume."""
    code = resume_check_command(list(command or []), steps, tolerance, timeout, as_json, ranks)
    raise typer.Exit(code)
