"""Checkpoint and resume for training scripts on trainstack nodes (PyTorch; shipped to every node
as /opt/trainstack/python/trainstack_resumable.py by the `preemption` boot step).

The contract between the node and your script
---------------------------------------------
* Signal: when the cloud takes the node back, the node's preemption agent sends SIGTERM to the
  job (torchrun forwards it to every worker and waits 30 s before SIGKILL). This module turns it
  into a flag; at the end of the current step every rank agrees (one all-reduce of the flag) and
  all of them save together, then exit with EXIT_PREEMPTED (143) so torchrun's elastic agent on
  the surviving nodes restarts the group and waits for the replacement node.
* Deadline: the agent writes $TRAINSTACK_NOTICE_FILE (default
  /var/lib/trainstack/preemption.json: {"deadline", "seconds_left", "cloud", ...}) before the
  signal; the checkpoint record says whether the save finished in time. Budget: a step plus one
  save must fit in min(seconds_left, 30 s).
* Where: asynchronously (torch.distributed.checkpoint.async_save, so training goes on) to fast
  local disk, $TRAINSTACK_SCRATCH_DIR (default /scratch/checkpoints/<run>), then copied in the
  background to $TRAINSTACK_CHECKPOINT_DIR (default /lustre/checkpoints/<run>), the shared
  filesystem that reaches the bucket. <run> is $TRAINSTACK_RUN, else torchrun's run id.
* Complete: a checkpoint directory step-NNNNNNNN is complete when its manifest
  (trainstack.json, with the world size) and one `.rank-R.done` per rank exist; each rank writes
  its marker last, after its shards are copied. Resume takes the newest complete one and never
  a half-copied one.
* What is saved: model and optimizer (DCP's state_dict API, so sharded models work too), the
  LR scheduler, each rank's RNG states (python, numpy when installed, torch CPU and CUDA) and the
  data position you pass (`data=`).

    ck = Checkpointer(model, optimizer, scheduler, every=100)
    start = ck.resume()                        # 0 on a fresh start
    position = ck.data.get("position", 0)
    for step in range(start + 1, total + 1):
        ...train one step...
        ck.step_done(step, loss=loss.item(), data={"position": position})
    ck.finish(total)

`trainstack bench --resume-check` (trainstack/measure/resume_check.py) proves a script resumes exactly;
it drives it with $TRAINSTACK_TOTAL_STEPS, $TRAINSTACK_STOP_AFTER_STEP (act as if SIGTERM came
after that step) and $TRAINSTACK_REPORT_DIR (losses-rankR.jsonl per step, final-rankR.pt at the
end), which this module honours for you.
"""
from __future__ import annotations

import io
import json
import os
import random
import shutil
import signal
import sys
import threading
import time
from concurrent.futures import Future
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Optional

import torch
import torch.distributed as dist

# torch.distributed.checkpoint (DCP) is imported by the first Checkpointer, not here: it costs
# about as much again as `import torch` (it pulls in torch.distributed.tensor and sympy), and a
# process that only calls leave_together, is_complete or newest_complete (`trainstack bench`'s
# workers, a script that checks a checkpoint folder) never needs it.

EXIT_PREEMPTED = 143          # 128 + SIGTERM: nonzero, so torchrun restarts the group
MANIFEST = "trainstack.json"
DEFAULT_NOTICE_FILE = "/var/lib/trainstack/preemption.json"
DEFAULT_EVENTS_DIR = "/var/lib/trainstack/events"


def _now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _rank_world() -> tuple[int, int]:
    if dist.is_available() and dist.is_initialized():
        return dist.get_rank(), dist.get_world_size()
    return 0, 1


def rng_state() -> dict[str, Any]:
    state: dict[str, Any] = {"python": random.getstate(), "torch": torch.get_rng_state()}
    try:
        import numpy
        state["numpy"] = numpy.random.get_state()
    except ImportError:
        pass
    if torch.cuda.is_available():
        state["cuda"] = torch.cuda.get_rng_state_all()
    return state


def set_rng_state(state: dict[str, Any]) -> None:
    random.setstate(state["python"])
    torch.set_rng_state(state["torch"])
    if "numpy" in state:
        import numpy
        numpy.random.set_state(state["numpy"])
    if "cuda" in state and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["cuda"])


def step_dir(root: Path, step: int) -> Path:
    return root / f"step-{step:08d}"


def is_complete(path: Path) -> bool:
    try:
        manifest = json.loads((path / MANIFEST).read_text())
    except (OSError, ValueError):
        return False
    return (path / ".metadata").exists() and all(
        (path / f".rank-{r}.done").exists() for r in range(int(manifest["world_size"])))


def newest_complete(root: Path) -> Optional[Path]:
    for path in sorted(root.glob("step-*"), reverse=True):
        if is_complete(path):
            return path
    return None


def leave_together(timeout_s: float = 300.0) -> None:
    """End a distributed run cleanly: call it last, in place of destroy_process_group().

    A rank returning from its last collective does not mean its peers have: with gloo, a rank
    that tears its group down while a peer still finishes that collective makes the peer abort
    (SIGABRT; seen on two loaded CPU nodes after every rank's results were written), and torchrun
    then reports the whole run as failed. So: a barrier, then every rank waits in the c10d store
    until all are past it, then the teardown, then (best effort) until all have torn down."""
    if not (dist.is_available() and dist.is_initialized()):
        return
    world = dist.get_world_size()
    try:
        store = dist.distributed_c10d._get_default_store()
    except (AttributeError, RuntimeError, ValueError):   # no store to meet in: the plain path
        store = None
    dist.barrier()
    if store is not None and world > 1:
        _store_barrier(store, "trainstack-leave/collectives-done", world, timeout_s)
    dist.destroy_process_group()
    if store is not None and world > 1:
        try:
            _store_barrier(store, "trainstack-leave/torn-down", world, timeout_s)
        except Exception:   # noqa: BLE001  the store's host may be gone: nothing left to guard
            pass


def _store_barrier(store, key: str, world: int, timeout_s: float) -> None:
    """Every rank adds one; the last sets `<key>/all`, which all wait for (up to timeout_s)."""
    from datetime import timedelta
    if store.add(key, 1) >= world:
        store.set(f"{key}/all", "1")
    try:
        store.wait([f"{key}/all"], timedelta(seconds=timeout_s))
    except Exception as waited:   # torch says only "Wait timeout": say what for
        try:
            arrived = store.add(key, 0)
        except Exception:   # noqa: BLE001  the store itself went away
            arrived = "?"
        raise RuntimeError(f"waited {timeout_s:g} s in the c10d store at {key!r} for all {world} "
                           f"ranks; {arrived} arrived: a peer is stuck or gone ({waited})") \
            from waited


def _checkpoint_api() -> tuple[Any, Any, Any]:
    """DCP, get_state_dict and set_state_dict, imported on first use."""
    import torch.distributed.checkpoint as dcp  # noqa: PLC0415
    from torch.distributed.checkpoint.state_dict import get_state_dict, set_state_dict  # noqa: PLC0415
    return dcp, get_state_dict, set_state_dict


class Checkpointer:
    def __init__(self, model: torch.nn.Module, optimizer: Optional[torch.optim.Optimizer] = None,
                 scheduler: Any = None, *, every: Optional[int] = None, run: Optional[str] = None,
                 scratch: Optional[str] = None, persist: Optional[str] = None, keep: int = 2):
        env = os.environ
        run = run or env.get("TRAINSTACK_RUN") or env.get("TORCHELASTIC_RUN_ID") or "default"
        self.model, self.optimizer, self.scheduler = model, optimizer, scheduler
        self.every, self.keep = every, keep
        self.scratch = Path(scratch or env.get("TRAINSTACK_SCRATCH_DIR") or f"/scratch/checkpoints/{run}")
        self.persist = Path(persist or env.get("TRAINSTACK_CHECKPOINT_DIR")
                            or f"/lustre/checkpoints/{run}")
        self.notice_file = Path(env.get("TRAINSTACK_NOTICE_FILE", DEFAULT_NOTICE_FILE))
        self.events_dir = Path(env.get("TRAINSTACK_EVENTS_DIR", DEFAULT_EVENTS_DIR))
        self.report_dir = Path(env["TRAINSTACK_REPORT_DIR"]) if env.get("TRAINSTACK_REPORT_DIR") else None
        stop_after = env.get("TRAINSTACK_STOP_AFTER_STEP")
        self.stop_after = int(stop_after) if stop_after else None
        self.rank, self.world = _rank_world()
        self.data: dict = {}
        self.resumed_from: Optional[int] = None
        self._stop = threading.Event()
        self._pending: Optional[threading.Thread] = None
        self._pending_error: list[BaseException] = []
        # Async saves run their collectives in a background thread: on a group of their own,
        # so they never interleave with the training loop's.
        self._ckpt_group = dist.new_group(backend="gloo") if self.world > 1 else None
        # Imported now, never first inside a preemption's save: that has a deadline.
        self._dcp, self._get_state_dict, self._set_state_dict = _checkpoint_api()
        signal.signal(signal.SIGTERM, self._on_sigterm)

    def _on_sigterm(self, signum, frame) -> None:
        del signum, frame
        self._stop.set()

    # -- state ------------------------------------------------------------------------------
    def _state(self, step: int) -> dict:
        model_sd, optim_sd = self._get_state_dict(self.model, self.optimizer or [])
        blob = io.BytesIO()
        torch.save({"step": step, "rng": rng_state(), "data": self.data,
                    "scheduler": self.scheduler.state_dict() if self.scheduler else None}, blob)
        state = {"model": model_sd, f"rank{self.rank}": blob.getvalue()}
        if self.optimizer is not None:
            state["optimizer"] = optim_sd
        return state

    def resume(self) -> int:
        """Restore the newest complete checkpoint; the step it was taken after (0: none)."""
        found = newest_complete(self.persist)
        if found is None:
            return 0
        manifest = json.loads((found / MANIFEST).read_text())
        if int(manifest["world_size"]) != self.world:
            raise RuntimeError(
                f"{found} was saved by {manifest['world_size']} ranks and this job has "
                f"{self.world}: each rank resumes its own RNG streams and data position, so "
                "resume on the same number of ranks (the node group replaces a lost node).")
        model_sd, optim_sd = self._get_state_dict(self.model, self.optimizer or [])
        state: dict[str, Any] = {"model": model_sd, f"rank{self.rank}": b""}
        if self.optimizer is not None:
            state["optimizer"] = optim_sd
        self._dcp.load(state, checkpoint_id=str(found))
        self._set_state_dict(self.model, self.optimizer or [], model_state_dict=state["model"],
                       optim_state_dict=state.get("optimizer", {}))
        mine = torch.load(io.BytesIO(state[f"rank{self.rank}"]), weights_only=False)
        if self.scheduler is not None and mine["scheduler"] is not None:
            self.scheduler.load_state_dict(mine["scheduler"])
        set_rng_state(mine["rng"])
        self.data = mine["data"]
        self.resumed_from = int(mine["step"])
        if self.rank == 0:
            self._event("restart", {"step": self.resumed_from, "checkpoint": found.name,
                                    "checkpoint_time": manifest["time"], "world_size": self.world})
        return self.resumed_from

    # -- saving -----------------------------------------------------------------------------
    def _copy_and_mark(self, step: int) -> None:
        src, dst = step_dir(self.scratch, step), step_dir(self.persist, step)
        dst.mkdir(parents=True, exist_ok=True)
        mine = [p for p in src.iterdir() if p.name.startswith(f"__{self.rank}_")]
        if self.rank == 0:
            mine.append(src / ".metadata")
        for path in mine:
            shutil.copyfile(path, dst / path.name)
        if self.rank == 0:
            (dst / MANIFEST).write_text(json.dumps({"step": step, "world_size": self.world,
                                                    "time": _now()}))
        (dst / f".rank-{self.rank}.done").write_text(_now())   # last: this rank is complete
        self._prune()

    def _prune(self) -> None:
        """Keep the newest `keep` checkpoints: on each node's scratch (its local rank 0 does
        it), and complete ones on the shared filesystem (global rank 0). Older ones are no
        longer being copied: every rank waits for its last copy before the next save."""
        roots = []
        if int(os.environ.get("LOCAL_RANK", self.rank)) == 0:
            roots.append((self.scratch, False))
        if self.rank == 0:
            roots.append((self.persist, True))
        for root, complete_only in roots:
            kept = [p for p in sorted(root.glob("step-*")) if not complete_only or is_complete(p)]
            for old in kept[:-self.keep]:
                shutil.rmtree(old, ignore_errors=True)

    def wait(self) -> None:
        """Block until the save in flight is on the persistent filesystem."""
        if self._pending is not None:
            self._pending.join()
            self._pending = None
        if self._pending_error:
            raise self._pending_error.pop()

    def save(self, step: int, blocking: bool = False) -> None:
        self.wait()
        target = str(step_dir(self.scratch, step))
        if blocking:
            self._dcp.save(self._state(step), checkpoint_id=target, process_group=self._ckpt_group)
            self._copy_and_mark(step)
            return
        saving = self._dcp.async_save(self._state(step), checkpoint_id=target,
                                process_group=self._ckpt_group)
        # A Future; with a staging stager, newer torch answers with the staging and the upload
        # futures, and the checkpoint is complete when the upload is.
        future = saving if isinstance(saving, Future) else saving.upload_completion

        def finish() -> None:
            try:
                future.result()
                self._copy_and_mark(step)
            except BaseException as failed:  # surfaced on the next wait()
                self._pending_error.append(failed)
        self._pending = threading.Thread(target=finish, name=f"ckpt-{step}", daemon=True)
        self._pending.start()

    def _agree_to_stop(self) -> bool:
        flag = torch.tensor([1 if self._stop.is_set() else 0])
        if self.world > 1:
            dist.all_reduce(flag, op=dist.ReduceOp.MAX)
        return bool(flag.item())

    def step_done(self, step: int, loss: Optional[float] = None, data: Optional[dict] = None) -> None:
        """Call after every optimizer step (and scheduler step). Saves every `every` steps,
        and on a preemption saves at once and exits with EXIT_PREEMPTED."""
        if data is not None:
            self.data = dict(data)
        if loss is not None and self.report_dir is not None:
            self.report_dir.mkdir(parents=True, exist_ok=True)
            with open(self.report_dir / f"losses-rank{self.rank}.jsonl", "a") as out:
                out.write(json.dumps({"step": step, "loss": float(loss)}) + "\n")
        if self.stop_after is not None and step == self.stop_after:
            os.kill(os.getpid(), signal.SIGTERM)   # the same path as the agent's signal
        if self._agree_to_stop():
            self.preempted(step)
        if self.every and step % self.every == 0:
            self.save(step)

    def preempted(self, step: int) -> None:
        started = time.time()
        notice = self._notice()
        self.save(step, blocking=True)
        if self.rank == 0:
            record = {"step": step, "seconds": round(time.time() - started, 3),
                      "deadline": notice.get("deadline")}
            if notice.get("deadline"):
                record["before_deadline"] = _now() <= notice["deadline"]
            self._event("checkpoint", record)
        print(f"trainstack: rank {self.rank} saved step {step} on preemption; exiting "
              f"{EXIT_PREEMPTED}", file=sys.stderr, flush=True)
        sys.exit(EXIT_PREEMPTED)

    def finish(self, step: int) -> None:
        """Wait for the last save and write the resume check's final state when asked."""
        self.wait()
        if self.report_dir is not None:
            self.report_dir.mkdir(parents=True, exist_ok=True)
            final_state(self.report_dir, self.rank, step, self.model, self.optimizer)

    # -- records ----------------------------------------------------------------------------
    def _notice(self) -> dict:
        try:
            return json.loads(self.notice_file.read_text())
        except (OSError, ValueError):
            return {}

    def _event(self, kind: str, record: dict) -> None:
        """A record for `trainstack status` (the node's preemption agent ships it to the
        bucket); skipped where the node has no events directory (a laptop)."""
        if not self.events_dir.is_dir():
            return
        record = {"event": kind, "time": _now(), "run": self.persist.name, **record}
        name = f"{record['time'].replace(':', '')}-{kind}-{os.getpid()}.json"
        tmp = self.events_dir / f".{name}.tmp"
        tmp.write_text(json.dumps(record, sort_keys=True))
        os.replace(tmp, self.events_dir / name)


def final_state(report_dir: Path, rank: int, step: int, model: torch.nn.Module,
                optimizer: Optional[torch.optim.Optimizer]) -> Path:
    """What the resume check compares at step K: parameters, optimizer state, RNG states."""
    path = Path(report_dir) / f"final-rank{rank}.pt"
    torch.save({"step": step, "model": model.state_dict(),
                "optimizer": optimizer.state_dict() if optimizer is not None else None,
                "rng": rng_state()}, path)
    return path
