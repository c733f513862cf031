"""`trainstack reap`: tear down trainstack stacks whose GPUs have been idle past their grace period.

For every stack of the backend that carries the trainstack marker output, the reaper reads the
nodes' heartbeats (written by components/agents/idle_agent.py into `<bucket>/heartbeats/`)
through fsspec, and destroys the stack only when all of this holds:

* every node's `last_busy` is older than `idle.teardown_after_minutes`, and so is the stack;
* the heartbeats were readable, at least one node ever reported, and no heartbeat is from the
  future beyond CLOCK_SKEW (a skewed clock would make a busy node look idle later);
* no update holds the stack, and this reaper holds the stack's lock (an object created
  exclusively next to the heartbeats), so two reapers never destroy the same stack;
* the bucket outlives the destroy (the marker says so) and the filesystem's data has been
  confirmed in the bucket by the cloud's export (a `DataGuard`).

Anything that cannot be confirmed means no destroy and a report. Every decision (stack,
evidence, action, result) is appended to an audit log as one JSON line.
"""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Callable, Optional, Protocol

import typer

from components.lifetime import iso, parse_iso, utc_now
from trainstack.cli_common import ProjectOpt

MARKER = "trainstack_marker"
CLOCK_SKEW = timedelta(minutes=5)
DEFAULT_IDLE_MINUTES = 60
HEARTBEAT_ROOTS = {"aws": "s3://{bucket}/heartbeats", "gcp": "gs://{bucket}/heartbeats",
                   "alicloud": "oss://{bucket}/heartbeats", "azure": "abfs://{bucket}/heartbeats"}


def parse_time(text: str) -> datetime:
    return parse_iso(str(text))


@dataclass
class Decision:
    stack: str
    action: str   # skip | keep | report | would-destroy | needs-confirmation | destroy
    reason: str
    evidence: dict = field(default_factory=dict)
    result: str = ""
    time: str = field(default_factory=lambda: iso(utc_now()))


class HeartbeatsUnreadable(RuntimeError):
    pass


class StackLocked(RuntimeError):
    pass


# -- where stacks live ------------------------------------------------------------------------

class StackBackend(Protocol):
    def summaries(self) -> list[tuple[str, bool]]: ...            # (name, update in progress)
    def outputs(self, stack: str) -> dict: ...
    def created(self, stack: str) -> Optional[datetime]: ...      # the first update's start
    def destroy(self, stack: str, echo: Callable[[str], None]) -> None: ...


class PulumiStacks:
    """The backend through the Automation API (CLI, passphrase and backend URL checked first)."""

    def __init__(self, project_dir: Optional[Path] = None, backend: Optional[str] = None):
        # None: the discovered project (--project, else from the current folder upward).
        from trainstack.lifecycle import workspace
        self.ws = workspace(project_dir, backend)

    def summaries(self):
        return [(s.name, bool(s.update_in_progress)) for s in self.ws.list_stacks()]

    def outputs(self, stack):
        return {k: v.value for k, v in self.ws.stack_outputs(stack).items()}

    def _stack(self, stack):
        import pulumi.automation as auto
        return auto.Stack.select(stack, self.ws)

    def created(self, stack):
        starts = [h.start_time for h in self._stack(stack).history() if h.start_time]
        if not starts:
            return None
        first = min(starts)
        return first if first.tzinfo else first.replace(tzinfo=timezone.utc)

    def destroy(self, stack, echo):
        import pulumi.automation as auto
        try:
            self._stack(stack).destroy(on_output=echo)
        except auto.ConcurrentUpdateError as locked:
            raise StackLocked(str(locked).strip().splitlines()[-1]) from None
        except auto.CommandError as failed:
            lines = [line for line in str(failed).splitlines() if line.strip()]
            raise RuntimeError(" | ".join(lines[-3:])) from None


# -- heartbeats and the lock, through fsspec --------------------------------------------------

def heartbeat_root(outputs: dict, cloud: str) -> Optional[str]:
    """`heartbeat_url` when a stack exports one, else `<bucket>/heartbeats` in the cloud's scheme."""
    if outputs.get("heartbeat_url"):
        return str(outputs["heartbeat_url"]).rstrip("/")
    pattern, bucket = HEARTBEAT_ROOTS.get(cloud), outputs.get("bucket_name")
    return pattern.format(bucket=bucket) if pattern and bucket else None


def read_heartbeats(root: str) -> list[dict]:
    import fsspec
    try:
        fs, path = fsspec.core.url_to_fs(root)
        names = sorted(fs.glob(f"{path.rstrip('/')}/*.json"))
        beats = []
        for name in names:
            beat = json.loads(fs.cat_file(name))
            for key in ("node", "time", "last_busy"):
                if key not in beat:
                    raise ValueError(f"{name} has no {key!r}")
            beat["time"], beat["last_busy"] = parse_time(beat["time"]), parse_time(beat["last_busy"])
            beats.append(beat)
        return beats
    except Exception as failed:  # any store error: permissions, network, a corrupt object
        raise HeartbeatsUnreadable(f"{type(failed).__name__}: {failed}") from None


class StackLock:
    """An object created exclusively (`xb`: O_EXCL locally, If-None-Match on S3, Azure, GCS)."""

    def __init__(self, root: str, stack: str):
        import fsspec
        self.fs, base = fsspec.core.url_to_fs(root)
        self.path = f"{base.rstrip('/')}/reaper-{stack.replace('/', '_')}.lock"

    def acquire(self) -> bool:
        body = json.dumps({"host": socket.gethostname(), "pid": os.getpid(), "time": iso(utc_now())})
        try:
            self.fs.makedirs(self.path.rsplit("/", 1)[0], exist_ok=True)
            with self.fs.open(self.path, "xb") as lock:
                lock.write(body.encode())
            return True
        except FileExistsError:
            return False

    def holder(self) -> str:
        try:
            return self.fs.cat_file(self.path).decode()
        except Exception:  # noqa: BLE001 (only for the report)
            return "unknown"

    def release(self) -> None:
        try:
            self.fs.rm(self.path)
        except FileNotFoundError:
            pass


# -- is the data in the bucket? ---------------------------------------------------------------

class DataGuard(Protocol):
    def confirm(self, stack: str, outputs: dict) -> tuple[bool, str]: ...


class FsxExportGuard:
    """AWS: run an EXPORT_TO_REPOSITORY task on the repository association's path and wait for
    it; auto-export has no "queue drained" API, a finished export task is the proof."""

    def __init__(self, client_for: Optional[Callable[[str], object]] = None,
                 timeout_s: float = 3600, poll_s: float = 30):
        self.client_for, self.timeout_s, self.poll_s = client_for, timeout_s, poll_s

    def _client(self, region):
        if self.client_for:
            return self.client_for(region)
        import boto3
        return boto3.client("fsx", region_name=region)

    def confirm(self, stack, outputs):
        fs_id = outputs.get("filesystem_id")
        if not fs_id:
            return False, "no filesystem_id output"
        client = self._client(outputs.get("region"))
        try:
            task = client.create_data_repository_task(
                FileSystemId=fs_id, Type="EXPORT_TO_REPOSITORY",
                Paths=[str(outputs.get("filesystem_bucket_path", "/bucket")).lstrip("/")],
                Report={"Enabled": False})["DataRepositoryTask"]
            deadline = time.monotonic() + self.timeout_s
            while True:
                (task,) = client.describe_data_repository_tasks(
                    TaskIds=[task["TaskId"]])["DataRepositoryTasks"]
                state = task["Lifecycle"]
                if state == "SUCCEEDED":
                    return True, f"export task {task['TaskId']} succeeded"
                if state in ("FAILED", "CANCELED"):
                    return False, f"export task {task['TaskId']} {state.lower()}"
                if time.monotonic() > deadline:
                    return False, f"export task {task['TaskId']} still {state} after {self.timeout_s:g} s"
                time.sleep(self.poll_s)
        except Exception as failed:  # credentials, throttling, an unknown filesystem
            return False, f"FSx export could not be run: {type(failed).__name__}: {failed}"


class CommandExportGuard:
    """Clouds whose stacks export the command that copies the filesystem into the bucket
    (GCP Managed Lustre `filesystem_export_command`, Alibaba CPFS, Azure AMLFS archive)."""

    def __init__(self, run: Callable[[str], int] = lambda cmd: subprocess.call(cmd, shell=True)):
        self.run = run

    def confirm(self, stack, outputs):
        command = outputs.get("filesystem_export_command")
        if not command:
            return False, "the stack exports no filesystem_export_command"
        code = self.run(command)
        return code == 0, f"`{command}` exited {code}"


def default_guards() -> dict[str, DataGuard]:
    return {"aws": FsxExportGuard(), "gcp": CommandExportGuard(), "alicloud": CommandExportGuard(),
            "azure": CommandExportGuard()}


# -- deciding ---------------------------------------------------------------------------------

@dataclass
class Reaper:
    backend: StackBackend
    guards: dict[str, DataGuard]
    dry_run: bool = True
    yes: bool = False
    confirm: Callable[[str], bool] = lambda stack: False
    echo: Callable[[str], None] = lambda line: None
    now: Callable[[], datetime] = utc_now

    def run(self) -> list[Decision]:
        decisions = []
        for stack, updating in self.backend.summaries():
            try:
                decisions.append(self.decide(stack, updating))
            except Exception as failed:  # one stack's surprise never touches the others
                decisions.append(Decision(stack, "report", "unexpected error, nothing destroyed",
                                          {"error": f"{type(failed).__name__}: {failed}"}))
        return decisions

    def decide(self, stack: str, updating: bool) -> Decision:
        if updating:
            return Decision(stack, "report", "an update holds the stack lock; not touched")
        try:
            outputs = self.backend.outputs(stack)
        except Exception as failed:
            return Decision(stack, "report", "outputs unreadable", {"error": str(failed)})
        marker = outputs.get(MARKER)
        if not isinstance(marker, dict):
            return Decision(stack, "skip", "not a trainstack stack (no marker output); never touched")
        cloud = marker.get("cloud", "")
        grace = timedelta(minutes=float(marker.get("idle_minutes") or DEFAULT_IDLE_MINUTES))
        now = self.now()
        evidence: dict = {"cloud": cloud, "grace_minutes": grace.total_seconds() / 60}
        if not marker.get("bucket_retained", False):
            return Decision(stack, "report", "the bucket would be deleted with the stack "
                            "(bucket.retain_on_destroy: false); the reaper never deletes data", evidence)
        created = self.backend.created(stack)
        if created is None:
            return Decision(stack, "report", "the stack's age is unknown (no update history)", evidence)
        evidence["created"] = iso(created)
        if now - created < grace:
            return Decision(stack, "keep", "younger than the idle grace period", evidence)
        root = heartbeat_root(outputs, cloud)
        if root is None:
            return Decision(stack, "report", "no bucket output to read heartbeats from", evidence)
        evidence["heartbeats"] = root
        try:
            beats = read_heartbeats(root)
        except HeartbeatsUnreadable as failed:
            return Decision(stack, "report", "heartbeats unreadable", {**evidence, "error": str(failed)})
        if not beats:
            return Decision(stack, "report", "no node has ever reported a heartbeat", evidence)
        evidence["nodes"] = {b["node"]: {"time": iso(b["time"]), "last_busy": iso(b["last_busy"]),
                                         "busy": bool(b.get("busy"))} for b in beats}
        future = [b["node"] for b in beats if max(b["time"], b["last_busy"]) > now + CLOCK_SKEW]
        if future:
            return Decision(stack, "report", f"heartbeats from the future (clock skew beyond "
                            f"{CLOCK_SKEW.total_seconds() / 60:g} min): {', '.join(future)}", evidence)
        busy = [b["node"] for b in beats if now - b["last_busy"] < grace]
        if busy:
            return Decision(stack, "keep", f"busy within the grace period: {', '.join(busy)}", evidence)
        silent = [b["node"] for b in beats if now - b["time"] >= grace]
        if silent:
            evidence["stopped_reporting"] = silent
        if self.dry_run:
            return Decision(stack, "would-destroy", "every node idle past the grace period "
                            "(export, then destroy with the bucket kept)", evidence)
        if not self.yes and not self.confirm(stack):
            return Decision(stack, "needs-confirmation", "idle; pass --yes to destroy "
                            "non-interactively", evidence)
        return self._destroy(stack, cloud, root, evidence)

    def _destroy(self, stack, cloud, root, evidence) -> Decision:
        try:
            lock = StackLock(root, stack)
            locked = lock.acquire()
        except Exception as failed:
            return Decision(stack, "report", "the reaper lock could not be taken",
                            {**evidence, "error": f"{type(failed).__name__}: {failed}"})
        if not locked:
            return Decision(stack, "report", "another reaper holds the stack's lock",
                            {**evidence, "lock": lock.holder()})
        try:
            # The stack may have gone while this reaper waited its turn.
            if not isinstance(self.backend.outputs(stack).get(MARKER), dict):
                return Decision(stack, "skip", "already destroyed by another reaper", evidence)
            guard = self.guards.get(cloud)
            if guard is None:
                return Decision(stack, "report", f"no way to confirm {cloud} data is in the bucket",
                                evidence)
            saved, proof = guard.confirm(stack, self.backend.outputs(stack))
            evidence["export"] = proof
            if not saved:
                return Decision(stack, "report", "the filesystem's data is not confirmed in the "
                                "bucket; not destroyed", evidence)
            try:
                self.backend.destroy(stack, self.echo)
            except StackLocked as held:
                return Decision(stack, "report", "the stack is locked by an update", evidence,
                                result=f"not destroyed: {held}")
            except Exception as failed:
                return Decision(stack, "destroy", "every node idle past the grace period", evidence,
                                result=f"failed (retried on the next run): {failed}")
            return Decision(stack, "destroy", "every node idle past the grace period", evidence,
                            result="destroyed; bucket kept")
        finally:
            lock.release()


def append_audit(path: Path, decisions: list[Decision]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as log:
        for decision in decisions:
            log.write(json.dumps(asdict(decision), sort_keys=True) + "\n")


# -- the command ------------------------------------------------------------------------------

def reap_command(
        backend: Optional[str] = typer.Option(None, "--backend", help="Pulumi backend URL "
                                              "(default: PULUMI_BACKEND_URL, else the project's "
                                              "file:// backend)."),
        dry_run: bool = typer.Option(False, "--dry-run", help="Print the decisions; change nothing."),
        yes: bool = typer.Option(False, "--yes", help="Destroy idle stacks without asking."),
        audit_log: Path = typer.Option(Path("reap-audit.jsonl"), "--audit-log",
                                       help="Append every decision here as a JSON line."),
        project: Optional[Path] = ProjectOpt):
    """Destroy trainstack stacks whose GPUs sat idle past idle.teardown_after_minutes (data kept)."""
    from trainstack.cli_common import project_dir
    interactive = sys.stdin.isatty()
    stacks = PulumiStacks(project_dir(project), backend=backend)
    reaper = Reaper(stacks, default_guards(), dry_run=dry_run, yes=yes,
                    confirm=(lambda s: typer.confirm(f"destroy idle stack {s}?")) if interactive
                    else (lambda s: False),
                    echo=lambda line: print(line, end="", file=sys.stderr))
    decisions = reaper.run()
    append_audit(audit_log, decisions)
    for d in decisions:
        print(f"{d.stack}: {d.action} - {d.reason}" + (f" [{d.result}]" if d.result else ""))
    if any(d.action == "destroy" and d.result.startswith("failed") for d in decisions):
        raise typer.Exit(1)
