"""`trainstack reap`: tear down trainstack stacks whose nodes have been idle past their grace period.

Idle is decided on the node (components/agents/idle_agent.py: jobs, GPU memory and use, sessions,
boot) on its own clock; the reaper only believes what it can confirm now:

* the members of the node group are read from the cloud NOW (trainstack/reap/cloud.py); reports
  from instances that are not members are ignored (old instances of a stack brought back),
  unless fresh and busy (a machine the membership does not show may run a job on the
  filesystem); where the cloud says a member is booting (every cloud: trainstack/reap/cloud.py),
  it is busy, and its report written before its last start (or creation) is its previous
  run's (unknown);
* a member's report counts only when it is fresh by the store's own LastModified (never the
  node's clock: a node 90 min slow or fast is judged the same); a stale, missing, unreadable or
  `unknown` report makes the stack UNKNOWN, never idle, and the run exits non-zero (a stack
  billing without reports);
* a member is idle when its report says `idle` for at least the grace period
  (`idle.teardown_after_minutes`), and the stack's latest `up` is older than that too (a stack
  brought back is booting); at every re-check the stack's updates are read again, and one an
  `up` holds or that was updated since the first look is kept (scaled back where scaled down);
* the bucket must be retained: the marker says `bucket_retained: true` AND the stack's state
  (what `pulumi destroy` acts on) marks it retainOnDelete, read at the first look and again just
  before the destroy (`unretained_buckets`).

Then, holding a lease lock (holder + expiry) and re-checking everything after taking it: scale
the group to 0, re-read, export the filesystem into the bucket (a `DataGuard`), re-read, destroy.
A stack that turned busy at any re-read, or whose destroy the stack's lock refuses (a person's
`up`), is left alone (scaled back where it was scaled down, with an alarm) and the decision says
so; and only while its lease is still the newest version does it destroy.
Files the export never reaches (AWS: outside the data repository association's path) stop the
destroy (the group stays at 0) unless `--delete-unexported`; the dry run and the audit name them.
A TERM while `pulumi destroy` runs is "destroy interrupted: state unknown", never "not destroyed".
A stack with resources but no outputs at all (an `up` that failed before recording them) is
reported with an alarm, never skipped. Every decision is appended to the audit log as it is
made, locally and in the stack's bucket (`reaper/audit/`); a failing lock release is recorded
beside the result, never instead of it. The run exits 1 when a destroy failed, when a stack bills without fresh reports,
or when a stack was reported (not decided) on the previous run as well.
"""
from __future__ import annotations

import json
import math
import os
import sys
import uuid
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Callable, Optional, Protocol

import typer

from trainstack.plan.select import ProjectOpt
from trainstack.reap.cloud import (  # noqa: F401 (re-exported: the guards' historic home)
    AzureArchiveGuard,
    Cloud,
    CommandExportGuard,
    DataGuard,
    FilesystemGone,
    FsxExportGuard,
    NotJudged,
    Terminated,
    default_clouds,
    default_guards,
)
from trainstack.reap.store import LEASE, NodeReport, StackStore, reusing_filesystems
from trainstack_components.lifetime import iso, parse_iso, utc_now

MARKER = "trainstack_marker"
CLOCK_SKEW = timedelta(minutes=5)    # a LastModified this far ahead of our clock: ours is wrong
FRESH = timedelta(minutes=10)        # the agent reports every minute; 10 missed = stale
DEFAULT_IDLE_MINUTES = 60
# idle.teardown_after_minutes's own bounds (components/spec.py IdleSpec: ge=5, le=7 days): a
# marker outside them was not written from a valid spec, and its grace is not believed.
GRACE_MINUTES = (5, 7 * 24 * 60)
HEARTBEAT_ROOTS = {"aws": "s3://{bucket}/heartbeats", "gcp": "gs://{bucket}/heartbeats",
                   "alicloud": "oss://{bucket}/heartbeats", "azure": "abfs://{bucket}/heartbeats"}


def new_run_id() -> str:
    return f"{datetime.now(timezone.utc):%Y%m%dT%H%M%SZ}-{uuid.uuid4().hex[:6]}"


def parse_time(text: str) -> datetime:
    return parse_iso(str(text))


@dataclass
class Decision:
    stack: str
    action: str   # skip | keep | report | would-destroy | needs-confirmation | destroy | destroying
    reason: str
    evidence: dict = field(default_factory=dict)
    result: str = ""
    time: str = field(default_factory=lambda: iso(utc_now()))
    alarm: str = ""   # why this decision alone makes the run exit non-zero
    run: str = ""     # the reaper run that made it (set when recorded)


class HeartbeatsUnreadable(RuntimeError):
    pass


class StackLocked(RuntimeError):
    pass


LOCKED_BY_UPDATE = "the stack is locked by an update"


class BucketNotRetained(RuntimeError):
    """The stack's state (what `pulumi destroy` acts on) would delete the bucket."""


# The resources that hold the bucket's data, by Pulumi type token: deleting one deletes the data
# (components/*/cluster.py create them with retain_on_delete when bucket.retain_on_destroy).
BUCKET_TYPES = {"aws:s3/bucket:Bucket", "aws:s3/bucketV2:BucketV2", "gcp:storage/bucket:Bucket",
                "alicloud:oss/bucket:Bucket", "azure-native:storage:StorageAccount"}


def unretained_buckets(deployment: dict, bucket_name: object = None) -> list[str]:
    """What of the bucket a destroy of this state would delete ([]: nothing). The marker output
    is what the last successful `up` said; the state is what `pulumi destroy` acts on (an `up`
    that turned retention off and then failed leaves the old marker beside a state that deletes
    the bucket). Azure: the storage account, the resource group holding it (deleting a group
    deletes what is in it) and the container named by the `bucket_name` output count too. A
    state holding no bucket at all cannot show the bucket kept."""
    resources = [r for r in deployment.get("resources") or [] if isinstance(r, dict)
                 and r.get("custom") and r.get("id")]
    accounts = [str(r["id"]).lower() for r in resources
                if r.get("type") == "azure-native:storage:StorageAccount"]

    def holds_data(r: dict) -> bool:
        kind, rid = r.get("type"), str(r["id"]).lower()
        if kind in BUCKET_TYPES:
            return True
        if kind == "azure-native:resources:ResourceGroup":
            return any(a.startswith(rid.rstrip("/") + "/") for a in accounts)
        return kind == "azure-native:storage:BlobContainer" and bool(bucket_name) \
            and rid.rstrip("/").rsplit("/", 1)[-1] == str(bucket_name).lower()
    data = [r for r in resources if holds_data(r)]
    if not data:
        return ["the state holds no bucket (nothing shows the data kept)"]
    return [f"{r.get('type')} {r['id']} (no retainOnDelete)" for r in data
            if not r.get("retainOnDelete")]


# -- where stacks live ------------------------------------------------------------------------

class StackBackend(Protocol):
    def summaries(self) -> list[tuple[str, bool]]: ...            # (name, update in progress)
    def outputs(self, stack: str) -> dict: ...
    def updated(self, stack: str) -> Optional[datetime]: ...      # the latest update's start
    def destroy(self, stack: str, echo: Callable[[str], None]) -> object: ...  # what was kept


# pragma: no mutate start (the Automation API wrapper, like the command at the end: the mutation
# run judges the decisions in-process with a fake backend; tests/reap/test_reap.py drives these)
class PulumiStacks:
    """The backend through the Automation API (CLI, passphrase and backend URL checked first)."""

    def __init__(self, project_dir: Optional[Path] = None, backend: Optional[str] = None):
        # None: the discovered project (--project, else from the current folder upward).
        from trainstack.deploy.lifecycle import workspace
        self.ws = workspace(project_dir, backend)
        self.kept_before: dict[str, dict] = {}   # stack -> {name: id} a destroy leaves in place
        self._selected: dict[str, object] = {}   # stack -> its Automation API Stack

    def summaries(self):
        listed = self.ws.list_stacks()
        self.resources = {s.name: s.resource_count for s in listed}
        return [(s.name, bool(s.update_in_progress)) for s in listed]

    def resource_count(self, stack) -> Optional[int]:
        """The resources in the stack's state, as `stack ls` counted them (None: not said)."""
        return getattr(self, "resources", {}).get(stack)

    def outputs(self, stack):
        """The stack's outputs as they are now, secrets in plain text: one `pulumi stack output
        --json --show-secrets`, run as the SDK runs its commands (the workspace's env and folder).
        The SDK's `stack_outputs` makes a second, masked call only to tell which outputs are
        secret, which the reaper never asks; each `pulumi` call is a CLI start (and the reaper
        reads a stack's outputs at the first look and at every re-check)."""
        ws = self.ws
        env = {"PULUMI_HOME": ws.pulumi_home} if ws.pulumi_home else {}
        result = ws.pulumi_command.run(["stack", "output", "--json", "--show-secrets", "--stack",
                                        stack], ws.work_dir, {**env, **ws.env_vars})
        return json.loads(result.stdout)

    def _stack(self, stack):
        """The stack, selected once per reaper run: every command the Stack object runs names
        it (`--stack`), so a second `pulumi stack select` would only check again that it exists,
        which the command itself does (a stack removed meanwhile fails that command)."""
        import pulumi.automation as auto
        if stack not in self._selected:
            self._selected[stack] = auto.Stack.select(stack, self.ws)
        return self._selected[stack]

    def unretained(self, stack, outputs: Optional[dict] = None) -> list[str]:
        """What of the bucket a destroy of the stack's state now would delete (see below);
        `outputs`: the stack's outputs as just read (else read now), for the bucket's name."""
        if outputs is None:
            outputs = self.outputs(stack)
        return unretained_buckets(self._stack(stack).export_stack().deployment or {},
                                  outputs.get("bucket_name"))

    def updated(self, stack):
        """The latest `up`'s start or end: a stack brought back after a stop is as young as
        that. Only kind "update" (`pulumi up`, failed or not) counts: `stack history` also
        lists preview, refresh, rename, destroy and import entries (the Automation API's
        UpdateKind), and a destroy that failed is no new life."""
        moments = [m for h in self._stack(stack).history() if h.kind == "update"
                   for m in (h.start_time, h.end_time) if m]
        if not moments:
            return None
        latest = max(m if m.tzinfo else m.replace(tzinfo=timezone.utc) for m in moments)
        return latest

    def brought_up(self, stack):
        """The latest `up`'s start (a failed destroy is not a new life)."""
        moments = [h.start_time for h in self._stack(stack).history()
                   if h.kind == "update" and h.start_time]
        return max((m if m.tzinfo else m.replace(tzinfo=timezone.utc) for m in moments),
                   default=None)

    def destroy(self, stack, echo):
        import pulumi.automation as auto

        from trainstack.deploy.adoption import adopt_command, destroy_keeping, retained_ids
        selected = self._stack(stack)
        self.kept_before.pop(stack, None)
        try:
            deployment = selected.export_stack().deployment or {}
        except Exception as failed:  # noqa: BLE001 (no destroy without the state read)
            lines = [line for line in str(failed).splitlines() if line.strip()] or [""]
            raise BucketNotRetained(f"the state could not be read: {lines[-1]}") from None
        # The state the destroy acts on must keep the bucket, whatever the outputs say.
        lost = unretained_buckets(deployment, self.outputs(stack).get("bucket_name"))
        if lost:
            raise BucketNotRetained("; ".join(lost))
        # What the destroy keeps, for a destroy interrupted before it could record it.
        self.kept_before[stack] = retained_ids(deployment)
        try:
            # The kept ids from the state just read and judged (no second `stack export`).
            kept = destroy_keeping(selected, lambda: selected.destroy(on_output=echo),
                                   self.ws.env_vars.get("PULUMI_BACKEND_URL"), deployment)
        except auto.ConcurrentUpdateError as locked:
            raise StackLocked(str(locked).strip().splitlines()[-1]) from None
        except auto.CommandError as failed:
            lines = [line for line in str(failed).splitlines() if line.strip()]
            raise RuntimeError(" | ".join(lines[-3:])) from None
        if kept.ids:
            # The stack file is the checkout's (thrown away on a CI runner); the copy beside the
            # backend's state is what the next `up` finds there.
            echo(f"{stack}: kept for the next up (recorded: {', '.join(kept.recorded) or 'nowhere'}"
                 f"; by hand: {adopt_command(stack, kept.ids)})\n")
        return kept


# pragma: no mutate end
def heartbeat_root(outputs: dict, cloud: str) -> Optional[str]:
    """`heartbeat_url` when a stack exports one, else `<bucket>/heartbeats` in the cloud's scheme."""
    if outputs.get("heartbeat_url"):
        return str(outputs["heartbeat_url"]).rstrip("/")
    pattern, bucket = HEARTBEAT_ROOTS.get(cloud), outputs.get("bucket_name")
    return pattern.format(bucket=bucket) if pattern and bucket else None


# -- judging the members' reports -------------------------------------------------------------

@dataclass
class Verdict:
    state: str                 # idle | busy | unknown
    nodes: dict                # member -> what its report says
    busy: list = field(default_factory=list)
    unknown: list = field(default_factory=list)
    ignored: list = field(default_factory=list)   # reports from instances not in the group


def judge(members: list[str], reports: dict[str, NodeReport], now: datetime,
          grace: timedelta, booting: Optional[dict] = None,
          started: Optional[dict] = None) -> Verdict:
    """`booting` (member -> why) and `started` (member -> its last start, at the latest) are
    what the cloud says of a member, where it says it: a booting member is busy, and a report
    written before the member's last start is its previous run's, never this one's."""
    nodes: dict[str, dict[str, Optional[str]]] = {}
    busy: list[str] = []
    unknown: list[str] = []
    booting, started = booting or {}, started or {}
    for node in members:
        report = reports.get(node)
        why, state = "", "unknown"
        if node in booting:
            state, why = "busy", booting[node]
        elif report is None:
            why = "no report from this member"
        elif report.beat is None:
            why = f"report unreadable: {report.error}"
        elif report.written is None:
            why = "the store gives no write time"
        elif report.written > now + CLOCK_SKEW:
            why = f"written {iso(report.written)}, ahead of the reaper's clock"
        elif now - report.written > min(FRESH, grace):
            # A report older than the grace cannot say the grace passed idle: the minutes
            # since it was written are unknown (its uploads may be failing).
            why = f"stale: last report {int((now - report.written).total_seconds() // 60)} min ago"
        elif node in started and report.written < started[node]:
            why = (f"written {iso(report.written)}, before the node's last start (by "
                   f"{iso(started[node])}): its previous run's report")
        else:
            state, why = _node_state(report.beat, grace)
        nodes[node] = {"state": state, "why": why,
                       "written": iso(report.written) if report and report.written else None}
        (busy if state == "busy" else unknown if state == "unknown" else []).append(node)
    ignored = []
    for node in sorted(set(reports) - set(members)):
        # Not a member, but written within FRESH and busy: a machine that left the group a
        # few minutes ago while busy, or one the membership does not show (Alibaba's node_ids
        # output, stale after an `up` that failed; an instance abandoned from a group while it
        # runs a job on the filesystem). Busy for the stack until its report is stale.
        report = reports[node]
        written = report.written
        if report.beat is not None and written is not None \
                and now - FRESH <= written <= now + CLOCK_SKEW:
            state, why = _node_state(report.beat, grace)
            if state == "busy":
                nodes[node] = {"state": "busy", "why": f"not a member, but its report of "
                               f"{iso(written)} is busy: {why}", "written": iso(written)}
                busy.append(node)
                continue
        ignored.append(node)
    state = "busy" if busy else "unknown" if unknown else "idle"
    return Verdict(state, nodes, busy, unknown, ignored)


def _node_state(beat: dict, grace: timedelta) -> tuple[str, str]:
    status = beat.get("state")
    idle_for: Optional[float]
    if status is None:  # a version-1 agent: busy flag, and last_busy on the node's own clock
        try:
            idle_for = (parse_time(beat["time"]) - parse_time(beat["last_busy"])).total_seconds()
        except (KeyError, ValueError):
            return "unknown", "an old report without state or times"
        status = "busy" if beat.get("busy") else "idle"
    else:
        idle_for = beat.get("idle_for_seconds")
    if status == "busy":
        return "busy", "; ".join(beat.get("reasons") or []) or "busy"
    if status != "idle":
        return "unknown", beat.get("unknown") or f"the node reports {status!r}"
    # A span is a finite number of seconds, 0 or more (JSON brings NaN, Infinity and true too).
    if isinstance(idle_for, bool) or not isinstance(idle_for, (int, float)) \
            or not math.isfinite(idle_for) or idle_for < 0:
        return "unknown", f"idle for {idle_for!r} seconds is no span of time"
    if idle_for < grace.total_seconds():
        return "busy", f"idle for only {idle_for / 60:.0f} min"
    return "idle", f"idle for {idle_for / 60:.0f} min"


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
    clouds: Optional[dict[str, Cloud]] = None
    record: Callable[[Decision], None] = lambda decision: None   # the audit, per decision
    lease: timedelta = LEASE
    only: Optional[str] = None
    delete_unexported: bool = False   # destroy even what the export never reaches
    seen_outputs: dict = field(default_factory=dict)
    run_id: str = field(default_factory=new_run_id)
    # Where the stack being decided is (what a TERM interrupted), and the evidence so far.
    _phase: str = field(default="judging", repr=False)
    _evidence: dict = field(default_factory=dict, repr=False)
    _first_updated: Optional[datetime] = field(default=None, repr=False)   # at the first look

    def run(self) -> list[Decision]:
        with reusing_filesystems():   # one client per stack's store for the run, not per look
            return self._run()

    def _run(self) -> list[Decision]:
        decisions = []
        for stack, updating in self.backend.summaries():
            if self.only and stack != self.only:
                continue
            stopped = False
            try:
                decision = self.decide(stack, updating)
            except Terminated:
                # TERM (the time limit): the steps unwound (export stopped, lease given back).
                decision, stopped = self._terminated(stack), True
            except Exception as failed:  # one stack's surprise never touches the others
                after = self._phase in ("destroying", "destroyed")
                decision = Decision(stack, "report", "unexpected error" + (
                    f" while or after `pulumi destroy` ran: state unknown; run `pulumi stack "
                    f"--stack {stack}` to see" if after else ", nothing destroyed"),
                    {"error": f"{type(failed).__name__}: {failed}"},
                    alarm="unexpected error")
            try:
                self._record(decision)
            except Terminated:   # TERM while the last audit line was written: still said
                decision.alarm = decision.alarm or "stopped by TERM"
                stopped = True
            decisions.append(decision)
            if stopped:
                break
        return decisions

    def _terminated(self, stack: str) -> Decision:
        """What TERM interrupted, said as it is: before `pulumi destroy` began nothing was
        destroyed; while it ran the stack may be partly destroyed (pulumi got the TERM too, or
        runs on); after it returned the stack is destroyed."""
        evidence = {**self._evidence, "stopped_while": self._phase}
        look = (f"run `pulumi stack --stack {stack}` (its resources) or `trainstack reap "
                f"--dry-run --stack {stack}` to see")
        if self._phase == "destroying":
            kept = getattr(self.backend, "kept_before", {}).get(stack)
            if kept:
                from trainstack.deploy.adoption import adopt_command
                evidence["adopt_if_destroyed"] = adopt_command(stack, kept)
            return Decision(stack, "report", "destroy interrupted by TERM (the time limit): state "
                            "unknown, the stack may be partly destroyed; " + look
                            + (" (if it is gone, record what it kept: "
                               f"{evidence['adopt_if_destroyed']})" if kept else ""),
                            evidence, alarm="destroy interrupted: state unknown")
        if self._phase == "destroyed":
            return Decision(stack, "destroy", "every node idle past the grace period", evidence,
                            result="destroyed; stopped by TERM (the time limit) before the "
                                   "reaper finished: " + look, alarm="stopped by TERM")
        steps = ("scaling to 0", "re-checking after the scale-down", "exporting",
                 "re-checking after the export", "taking the destroy's audit line")
        scaled = self._phase in steps
        exported = scaled and steps.index(self._phase) >= steps.index("exporting")
        return Decision(stack, "report", f"stopped by TERM (the time limit) mid-reap, while "
                        f"{self._phase}: " + ("the export it started was stopped and " if exported
                                              else "") + "its lease given back; not destroyed"
                        + (" (the group may be left scaled down: " + look + ")" if scaled else ""),
                        evidence, alarm="stopped by TERM")

    def _record(self, decision: Decision) -> None:
        decision.run = self.run_id
        try:
            self.record(decision)
        except Exception as failed:  # noqa: BLE001 (the audit failing must not hide a result)
            decision.evidence["audit_error"] = f"{type(failed).__name__}: {failed}"
            decision.alarm = decision.alarm or "audit not written"

    def _record_first(self, stack: str, reason: str, evidence: dict) -> Optional[Decision]:
        """The audit line of a step that changes the stack, written (locally and in the bucket)
        before the step; None when written, else the report that stops the destroy."""
        try:
            self.record(Decision(stack, "destroying", reason, evidence, run=self.run_id))
        except Exception as failed:  # noqa: BLE001 (no change without its audit line)
            return Decision(stack, "report", "the audit could not be written; not destroyed",
                            {**evidence, "audit_error": f"{type(failed).__name__}: {failed}"},
                            alarm="audit not written")
        return None

    def _clouds(self) -> dict[str, Cloud]:
        if self.clouds is None:
            self.clouds = default_clouds()
        return self.clouds

    def decide(self, stack: str, updating: bool) -> Decision:
        self._phase, self._evidence, self._first_updated = "judging", {}, None
        if updating:
            return Decision(stack, "report", "an update holds the stack lock; not touched")
        try:
            outputs = self.backend.outputs(stack)
        except Exception as failed:
            # Nothing of the stack can be judged, and it may be billing: a person must look.
            return Decision(stack, "report", "outputs unreadable", {"error": str(failed)},
                            alarm="billing unknown: outputs unreadable")
        self.seen_outputs[stack] = outputs
        marker = outputs.get(MARKER)
        if not isinstance(marker, dict):
            counted = getattr(self.backend, "resource_count", lambda name: None)(stack)
            if not outputs and counted:
                # An `up` that failed before its outputs were recorded (the first one, or one
                # after a destroy) leaves resources that bill and no marker to judge them by.
                return Decision(stack, "report", f"{counted} resources and no outputs at all (an "
                                "`up` that failed before recording them?): billing, and nothing "
                                "to judge it by; never touched", {"resources": counted},
                                alarm="billing without a marker")
            return Decision(stack, "skip", "not a trainstack stack (no marker output); never touched")
        cloud = marker.get("cloud", "")
        minutes = marker.get("idle_minutes", DEFAULT_IDLE_MINUTES)
        if minutes is None:
            minutes = DEFAULT_IDLE_MINUTES
        if isinstance(minutes, bool) or not isinstance(minutes, (int, float)) \
                or not GRACE_MINUTES[0] <= minutes <= GRACE_MINUTES[1]:
            # NaN fails both comparisons; a string or true is no number of minutes.
            return Decision(stack, "report", f"the marker's idle_minutes {minutes!r} is no grace "
                            f"period the spec allows ({GRACE_MINUTES[0]} to {GRACE_MINUTES[1]} "
                            "min, idle.teardown_after_minutes); not judged",
                            {"cloud": cloud}, alarm="billing without a trusted grace period")
        grace = timedelta(minutes=float(minutes))
        now = self.now()
        evidence: dict = {"cloud": cloud, "grace_minutes": grace.total_seconds() / 60}
        self._evidence = evidence
        if marker.get("bucket_retained") is not True:
            return Decision(stack, "report", "the bucket would be deleted with the stack "
                            "(bucket.retain_on_destroy is not true); the reaper never deletes data",
                            evidence)
        check = getattr(self.backend, "unretained", None)
        if check is not None:   # the state a destroy acts on, not only what the marker says
            try:
                lost = check(stack, outputs)   # the outputs just read: their bucket's name
            except Exception as failed:  # noqa: BLE001
                lost = [f"the state could not be read: {type(failed).__name__}: {failed}"]
            if lost:
                return Decision(stack, "report", "the stack's state would delete the bucket with "
                                "it, whatever the marker output says (an `up` that turned "
                                "retention off and then failed?); the reaper never deletes data: "
                                "not touched", {**evidence, "unretained": lost},
                                alarm="bucket not retained in the state")
        updated = self.backend.updated(stack)
        if updated is None:
            return Decision(stack, "report", "the stack's age is unknown (no update history)", evidence)
        evidence["updated"] = iso(updated)
        self._first_updated = updated
        if now - updated < grace:
            return Decision(stack, "keep", "younger than the idle grace period (since its "
                            "latest update)", evidence)
        root = heartbeat_root(outputs, cloud)
        if root is None:
            return Decision(stack, "report", "no bucket output to read heartbeats from", evidence,
                            alarm="billing without reports")
        evidence["heartbeats"] = root
        verdict, problem = self._look(stack, cloud, outputs, root, now, grace, evidence)
        if problem:
            return problem
        if verdict.state == "busy":
            return Decision(stack, "keep", f"busy within the grace period: {', '.join(verdict.busy)}",
                            evidence)
        if verdict.state == "unknown":
            return Decision(stack, "report", "members without a fresh idle report (unknown, never "
                            f"idle): {', '.join(verdict.unknown)}", evidence,
                            alarm="billing without reports")
        lost = self._unexported(cloud, outputs)
        if lost:
            evidence["not_exported"] = lost
        if self.dry_run:
            if lost and not self.delete_unexported:
                return self._keeps_unexported(stack, evidence, "would scale to 0 and export, "
                                              "but not destroy")
            return Decision(stack, "would-destroy", "every node idle past the grace period "
                            "(scale to 0, export, then destroy with the bucket kept)"
                            + (f"; LOST with it: {lost}" if lost else ""), evidence)
        if not self.yes and not self.confirm(stack):
            return Decision(stack, "needs-confirmation", "idle; pass --yes to destroy "
                            "non-interactively", evidence)
        return self._destroy(stack, cloud, root, outputs, grace, evidence)

    def _unexported(self, cloud: str, outputs: dict) -> str:
        """What the cloud's export never reaches ("" when it reaches everything)."""
        said = getattr(self.guards.get(cloud), "unexported", None)
        return said(outputs) if said else ""

    def _keeps_unexported(self, stack: str, evidence: dict, done: str) -> Decision:
        return Decision(stack, "report", f"idle: {done}: {evidence['not_exported']}; destroy it "
                        f"by hand once they are saved (`trainstack destroy --stack {stack}`), or "
                        "reap with --delete-unexported to lose them", evidence,
                        alarm="data the export does not reach: not destroyed")

    def _look(self, stack, cloud, outputs, root, now, grace, evidence):
        """(verdict, None), or (None, the report decision when something cannot be read)."""
        group = self._clouds().get(cloud)
        if group is None:
            return None, Decision(stack, "report", f"no way to read {cloud!r} group members",
                                  evidence, alarm="billing without reports")
        try:
            members = sorted(group.members(outputs))
        except Exception as failed:
            return None, Decision(stack, "report", "group members unreadable",
                                  {**evidence, "error": f"{type(failed).__name__}: {failed}"},
                                  alarm="billing without reports")
        evidence["members"] = members
        try:
            store = StackStore(root, outputs)
            # Read with no members too: a fresh busy report of a non-member (an instance
            # abandoned from the group, Alibaba node_ids gone stale) keeps the stack now.
            reports = store.reports()
        except Exception as failed:
            return None, Decision(stack, "report", "heartbeats unreadable",
                                  {**evidence, "error": f"{type(failed).__name__}: {failed}"},
                                  alarm="billing without reports")
        verdict = judge(members, reports, now, grace, getattr(group, "booting", None),
                        getattr(group, "started", None))
        evidence["nodes"] = verdict.nodes
        if verdict.ignored:
            evidence["ignored_non_members"] = verdict.ignored
        if not members:
            evidence["note"] = "the group has no instances (the filesystem and network still bill)"
        return verdict, None

    def _destroy(self, stack, cloud, root, outputs, grace, evidence) -> Decision:
        lock = None
        self._phase = "taking the lock"
        try:
            store = StackStore(root, outputs)
            lock = store.lease(stack, self.lease)
            locked = lock.acquire(self.now())
        except BaseException as failed:
            # A lease version written just before a TERM, or that landed with its answer lost,
            # is ours: given back (else it expires by itself).
            if lock is not None:
                try:
                    lock.release()
                except Exception:  # noqa: BLE001 (the report below, or the TERM's, says why)
                    pass
            if not isinstance(failed, Exception):
                raise   # TERM (Terminated), or the interpreter leaving: not a lock failure
            return Decision(stack, "report", "the reaper lock could not be taken",
                            {**evidence, "error": f"{type(failed).__name__}: {failed}"},
                            alarm="billing while the lock cannot be taken")
        if not locked:
            return Decision(stack, "report", "another reaper holds the stack's lock",
                            {**evidence, "lock": lock.holder()})
        if lock.broken:
            evidence["expired_lock_taken_over"] = lock.broken
        decision = None
        try:
            decision = self._locked_destroy(stack, cloud, root, store, grace, evidence, lock)
        finally:
            try:
                lock.release()
            except Exception as failed:  # noqa: BLE001 (recorded beside the result, never over it)
                note = f"lock release failed (it expires by itself): {type(failed).__name__}: {failed}"
                if decision is not None:
                    decision.evidence["lock_release"] = note
        return decision

    def _brought_up(self, stack) -> Optional[datetime]:
        """The start of the stack's latest `up` (its current life)."""
        latest = getattr(self.backend, "brought_up", None) or self.backend.updated
        return latest(stack)

    def _recheck(self, stack, cloud, root, grace, evidence, when: str, members_from=None):
        """Re-read outputs, members and reports; a Decision when the stack is no longer idle."""
        outputs = self.backend.outputs(stack)
        # Updates first: a person's `up` that failed before writing outputs leaves no marker
        # too, and that stack is hers, not one another reaper destroyed.
        moved = self._updated_meanwhile(stack, grace, evidence, when)
        if moved:
            return outputs, moved
        if not isinstance(outputs.get(MARKER), dict):
            return outputs, Decision(stack, "skip", "already destroyed by another reaper", evidence)
        check: dict = {}
        verdict, problem = self._look(stack, cloud, outputs, root, self.now(), grace, check)
        evidence["recheck_" + when.replace(" ", "_")] = check
        if problem:
            problem.evidence = {**evidence, **problem.evidence}
            problem.reason = f"{problem.reason} at the re-check {when}; not destroyed"
            return outputs, problem
        if members_from is not None and verdict.state == "idle":
            # After the scale-down the old nodes are going away (silence is expected): only
            # one that turned busy counts.
            try:
                reports = StackStore(root, outputs).reports()
            except Exception as failed:
                return outputs, Decision(
                    stack, "report", f"heartbeats unreadable at the re-check {when}; not destroyed",
                    {**evidence, "error": f"{type(failed).__name__}: {failed}"},
                    alarm="billing without reports")
            gone = judge(members_from, reports, self.now(), grace)
            if gone.busy:
                verdict = gone
        if verdict.state != "idle":
            what = verdict.busy or verdict.unknown
            # A member without a fresh idle report bills unreported, as at the first look.
            return outputs, Decision(
                stack, "keep" if verdict.busy else "report",
                f"turned {verdict.state} {when} ({', '.join(what)}); left alone, not destroyed",
                evidence, alarm="" if verdict.busy else "billing without reports")
        return outputs, None

    def _updated_meanwhile(self, stack, grace, evidence, when: str) -> Optional[Decision]:
        """The rule `decide` applies at the first look, again: a stack an `up` holds, or one
        updated since the first look or within the grace period, is booting (a person brought
        it back while it was being reaped). None when it was not."""
        try:
            updating = dict(self.backend.summaries()).get(stack, False)
            updated = self.backend.updated(stack)
        except Exception as failed:  # noqa: BLE001
            return Decision(stack, "report", f"the stack's updates unreadable at the re-check "
                            f"{when}; not destroyed",
                            {**evidence, "error": f"{type(failed).__name__}: {failed}"},
                            alarm="billing without reports")
        if updating:
            return Decision(stack, "report", f"{LOCKED_BY_UPDATE} (a `pulumi up` began while "
                            f"being reaped, seen at the re-check {when}); not destroyed", evidence,
                            alarm="an update began while being reaped")
        first = self._first_updated
        if updated is None or (first is not None and updated > first) \
                or self.now() - updated < grace:
            return Decision(stack, "keep", f"updated {iso(updated) if updated else '(unknown)'}, "
                            f"after the first look (an `up` while being reaped), found at the "
                            f"re-check {when}: booting, not destroyed",
                            {**evidence, "updated_meanwhile": iso(updated) if updated else None},
                            alarm="the stack was updated while being reaped")
        return None

    def _scale_back(self, stop: Decision, group: Cloud, outputs: dict, before: int) -> Decision:
        """A node turned busy, or a person's `up` came, while the group was going to 0: back to
        the size it had, and an alarm (a job may have been cut short by the scale-down). Under
        an `up` still running too: the size it had is what the state says, so Pulumi sees no
        drift; the alarm tells a person to look (their `up` may resize the group as well)."""
        if stop.action != "keep" and not stop.reason.startswith(LOCKED_BY_UPDATE):
            return stop   # unknown or gone: the group stays at 0, the report says why
        stop.alarm = stop.alarm or "turned busy while being reaped"
        if not before:
            return stop
        if not isinstance(outputs.get(MARKER), dict):
            # A failed `up` may have left the stack without outputs: the group is the one the
            # first look saw (and scaled down).
            outputs = self.seen_outputs.get(stop.stack, outputs)
        try:
            group.scale(outputs, before)
            done = f"group scaled back to {before}"
        except Exception as failed:  # noqa: BLE001
            done = f"group left at 0 (scaling back failed: {failed})"
            stop.alarm = "a busy stack left scaled down"
        stop.result = f"{stop.result}; {done}" if stop.result else done
        return stop

    def _locked_destroy(self, stack, cloud, root, store, grace, evidence, lock=None) -> Decision:
        # Re-check after the lock: another reaper may have destroyed it, a job may have started.
        self._phase = "re-checking after taking the lock"
        outputs, stop = self._recheck(stack, cloud, root, grace, evidence, "after taking the lock")
        if stop:
            return stop
        guard = self.guards.get(cloud)
        if guard is None:
            return Decision(stack, "report", f"no way to confirm {cloud} data is in the bucket",
                            evidence, alarm="billing without reports")
        members = list(evidence.get("recheck_after_taking_the_lock", {}).get("members", []))
        refused = self._record_first(stack, "idle: scale to 0, export, destroy", evidence)
        if refused:
            return refused
        group = self._clouds()[cloud]
        self._phase = "scaling to 0"
        try:
            before = group.scale(outputs, 0, expected=members)
            evidence["scaled_from"] = before
        except NotJudged as joined:
            return Decision(stack, "keep", f"{joined}; nothing scaled, not destroyed", evidence,
                            alarm="a node joined the group while being reaped")
        except Exception as failed:
            return Decision(stack, "report", "the group could not be scaled to 0; not destroyed",
                            {**evidence, "error": f"{type(failed).__name__}: {failed}"},
                            alarm="billing without reports")
        self._phase = "re-checking after the scale-down"
        outputs, stop = self._recheck(stack, cloud, root, grace, evidence,
                                      "after the scale-down", members_from=members)
        if stop:
            return self._scale_back(stop, group, outputs, before)
        record = f"exported-{stack.replace('/', '_')}.json"
        filesystem = str(outputs.get("filesystem_id") or outputs.get("filesystem_export_command")
                         or "")
        self._phase = "exporting"
        try:
            saved, proof = guard.confirm(stack, outputs)
        except FilesystemGone as gone:
            # Only an export of THIS filesystem, confirmed in this life of the stack (after its
            # latest `up`) by an earlier attempt of this destroy, counts.
            earlier = store.get_json(record) or {}
            since = self._brought_up(stack)
            try:
                fresh = since is not None and parse_time(earlier.get("time", "")) >= since
            except ValueError:
                fresh = False
            if not (fresh and earlier.get("filesystem") == filesystem):
                why = ("an export record of another filesystem or an earlier life of the stack "
                       f"({earlier.get('time')}) is no proof" if earlier else "")
                return Decision(stack, "report", "the filesystem is gone and no export of it was "
                                "ever confirmed; not destroyed",
                                {**evidence, "export": str(gone), **({"record": why} if why else {})},
                                alarm="filesystem gone without a confirmed export")
            saved, proof = True, f"{gone}; its export was confirmed {earlier.get('time')}"
        evidence["export"] = proof
        if not saved:
            return Decision(stack, "report", "the filesystem's data is not confirmed in the "
                            "bucket; not destroyed (the group stays at 0)", evidence,
                            alarm="export not confirmed")
        store.put_json(record, {"time": iso(self.now()), "proof": proof, "filesystem": filesystem,
                                "run": self.run_id})
        # The group is at 0, but a person may have scaled it up, or a job started on a node
        # still going down: the members now, and the members before, are read again.
        self._phase = "re-checking after the export"
        outputs, stop = self._recheck(stack, cloud, root, grace, evidence, "after the export",
                                      members_from=members)
        if stop:
            return self._scale_back(stop, group, outputs, before)
        # The lease is not renewed: an export that outlived it may have let another reaper take
        # it over (and reap on its own). Only the holder destroys.
        try:
            ours = lock is None or lock.still_ours()
        except Exception as failed:  # noqa: BLE001
            ours, evidence["lock_check"] = False, f"{type(failed).__name__}: {failed}"
        if not ours:
            return Decision(stack, "report", "the reaper lock was taken over (or could not be "
                            "read) before the destroy; not destroyed (the group stays at 0)",
                            {**evidence, "lock": lock.holder()},
                            alarm="the reaper lock was lost mid-reap")
        lost = self._unexported(cloud, outputs)   # the outputs as they are now
        if lost:
            evidence["not_exported"] = lost
            if not self.delete_unexported:
                return self._keeps_unexported(stack, evidence, "scaled to 0 and exported what "
                                              "the export reaches, but not destroyed (the group "
                                              "stays at 0)")
        else:
            evidence.pop("not_exported", None)
        # The last look at the updates, as close to `pulumi destroy` as the audit line allows:
        # an `up` that began and ended since the re-check (the lock and unexported checks lie
        # between) brought the stack back. Only Pulumi's own lock covers what is left.
        moved = self._updated_meanwhile(stack, grace, evidence, "just before the destroy")
        if moved:
            return self._scale_back(moved, group, outputs, before)
        self._phase = "taking the destroy's audit line"
        refused = self._record_first(stack, "export confirmed: pulumi destroy", evidence)
        if refused:
            refused.reason += " (the group stays at 0)"
            return refused
        since = self.now()
        decision = self._destroy_now(stack, store, record, evidence)
        if decision.reason.startswith(LOCKED_BY_UPDATE):
            return self._scale_back(decision, group, outputs, before)
        if lost and decision.result.startswith("destroyed"):
            decision.result += f"; deleted without an export: {lost}"
        return self._trace_during_destroy(decision, root, outputs, since)

    def _destroy_now(self, stack, store, record, evidence) -> Decision:
        self._phase = "destroying"
        try:
            kept = self.backend.destroy(stack, self.echo)
        except StackLocked as held:
            # A person's `up` began after the last re-check: _locked_destroy scales back.
            return Decision(stack, "report", LOCKED_BY_UPDATE, evidence,
                            result=f"not destroyed: {held}",
                            alarm="an update began while being reaped")
        except BucketNotRetained as lost:
            # Read just before the destroy: the group stays at 0 (the stack is idle and its
            # data exported into the bucket); a person must turn retention back on, or say no.
            return Decision(stack, "report", "the stack's state would delete the bucket with "
                            "it (read just before `pulumi destroy`); not destroyed (the group "
                            "stays at 0)", {**evidence, "unretained": str(lost)},
                            result=f"not destroyed: {lost}",
                            alarm="bucket not retained in the state")
        except Exception as failed:
            return Decision(stack, "destroy", "every node idle past the grace period", evidence,
                            result=f"failed (retried on the next run): {failed}",
                            alarm="destroy failed")
        self._phase = "destroyed"
        try:  # the record proves nothing for the stack's next life
            store.remove(record)
        except Exception as failed:  # noqa: BLE001 (it is dated: a next life ignores it anyway)
            evidence["export_record"] = f"not removed: {type(failed).__name__}: {failed}"
        if getattr(kept, "ids", None) and not getattr(kept, "recorded", None):
            evidence["adopt_record"] = "; ".join(getattr(kept, "failed", []))
            return Decision(stack, "destroy", "every node idle past the grace period", evidence,
                            result="destroyed; bucket kept, but its adopt record was not "
                                   "written anywhere (the log has the command)",
                            alarm="adopt record lost")
        if getattr(kept, "failed", None):
            evidence["adopt_record"] = "; ".join(getattr(kept, "failed"))
        return Decision(stack, "destroy", "every node idle past the grace period", evidence,
                        result="destroyed; bucket kept")

    def _trace_during_destroy(self, decision: Decision, root, outputs, since) -> Decision:
        """Reports written while `pulumi destroy` ran (the bucket is kept, so they can be read
        after it): a node that resumed then (a person's start, a scale-up) is named in the
        audit, and one that was not idle alarms."""
        try:
            reports = StackStore(root, outputs).reports()
        except Exception as failed:  # noqa: BLE001
            decision.evidence["reports_during_destroy"] = f"unreadable: {type(failed).__name__}: {failed}"
            return decision
        during = {node: (r.beat or {}).get("state") or ("unreadable" if r.beat is None else "?")
                  for node, r in reports.items() if r.written and r.written >= since}
        if during:
            decision.evidence["reports_during_destroy"] = during
            awake = sorted(node for node, state in during.items() if state != "idle")
            if awake:
                decision.alarm = decision.alarm or "a node resumed during the destroy"
                decision.result += f" (reports during the destroy from {', '.join(awake)})"
        return decision


# -- the audit --------------------------------------------------------------------------------

def append_audit(path: Path, decisions: list[Decision]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a+b") as log:   # a torn last line (a reaper killed mid-append) is ended
        log.seek(0, os.SEEK_END)     # first, so it does not swallow this decision's line
        if log.tell():
            log.seek(-1, os.SEEK_END)
            if log.read(1) != b"\n":
                log.write(b"\n")
    with path.open("a") as log:
        for decision in decisions:
            log.write(json.dumps(asdict(decision), sort_keys=True) + "\n")
            log.flush()
            os.fsync(log.fileno())


def previous_reports(path: Path) -> set[str]:
    """Stacks whose last decision (in whichever run last judged that stack) was a report: the
    workflow runs one stack per call, so "the previous run" is per stack."""
    try:
        text = path.read_text()
    except OSError:
        return set()
    lines = []
    for line in text.splitlines():
        try:   # a torn line (a reaper killed mid-append, a full disk) hides only itself
            lines.append(json.loads(line))
        except ValueError:
            continue
    last = {}
    for d in lines:
        if isinstance(d, dict) and d.get("stack") and d.get("run") \
                and d.get("action") != "destroying":
            last[d["stack"]] = d.get("action")
    return {stack for stack, action in last.items() if action == "report"}


# pragma: no mutate block (the CLI wrappers, to the end of the file)
def auditor(path: Path, outputs_of: Callable[[str], dict],
            in_bucket: bool = True) -> Callable[[Decision], None]:
    """Append each decision as it is made: to the local log, then (unless a dry run, which
    changes nothing) to the stack's bucket."""
    def record(decision: Decision) -> None:
        append_audit(path, [decision])
        root = decision.evidence.get("heartbeats")
        if root and in_bucket:
            StackStore(root, outputs_of(decision.stack)).audit(decision.stack, asdict(decision))
    return record


# -- the command ------------------------------------------------------------------------------

def reap_command(
        backend: Optional[str] = typer.Option(None, "--backend", help="Pulumi backend URL "
                                              "(default: PULUMI_BACKEND_URL, else the project's "
                                              "file:// backend)."),
        dry_run: bool = typer.Option(False, "--dry-run", help="Print the decisions; change nothing."),
        yes: bool = typer.Option(False, "--yes", help="Destroy idle stacks without asking."),
        audit_log: Path = typer.Option(Path("reap-audit.jsonl"), "--audit-log",
                                       help="Append every decision here as a JSON line (also "
                                            "written to each stack's bucket, reaper/audit/)."),
        stack: Optional[str] = typer.Option(None, "--stack", help="Only this stack (the "
                                            "workflow runs one stack per time-limited call)."),
        delete_unexported: bool = typer.Option(
            False, "--delete-unexported", help="Also destroy stacks whose filesystem holds files "
            "the export never reaches (AWS: outside the data repository association's path, "
            "when a stack links less than the whole filesystem), deleting those files. "
            "Without it such a stack is scaled to 0 and exported, not destroyed (exit 1)."),
        project: Optional[Path] = ProjectOpt):
    """Destroy trainstack stacks whose nodes sat idle past idle.teardown_after_minutes (data kept)."""
    from trainstack.plan.select import project_dir
    interactive = sys.stdin.isatty()
    stacks = PulumiStacks(project_dir(project), backend=backend)
    before = previous_reports(audit_log)
    lease_s = os.environ.get("TRAINSTACK_REAP_LEASE_SECONDS")
    reaper = Reaper(stacks, default_guards(), dry_run=dry_run, yes=yes,
                    confirm=(lambda s: typer.confirm(f"destroy idle stack {s}?")) if interactive
                    else (lambda s: False),
                    echo=lambda line: print(line, end="", file=sys.stderr),
                    clouds=default_clouds(), only=stack, delete_unexported=delete_unexported,
                    lease=timedelta(seconds=float(lease_s)) if lease_s else LEASE)
    reaper.record = auditor(audit_log, lambda s: reaper.seen_outputs.get(s, {}),
                            in_bucket=not dry_run)
    import signal

    def terminated(signum, frame):
        raise Terminated()
    signal.signal(signal.SIGTERM, terminated)
    try:
        decisions = reaper.run()
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if stack and not decisions:
        print(f"--stack {stack}: the backend has no stack of that name, so nothing was judged. "
              "Name one that `pulumi stack ls --all` lists (or leave --stack out for all).",
              file=sys.stderr)
        raise typer.Exit(2)
    for d in decisions:
        if d.action == "report" and d.stack in before and not d.alarm:
            d.alarm = "reported on the previous run too: needs a person"
        print(f"{d.stack}: {d.action} - {d.reason}" + (f" [{d.result}]" if d.result else "")
              + (f" (ALARM: {d.alarm})" if d.alarm else ""))
    alarms = [d for d in decisions if d.alarm]
    if alarms:
        print(f"{len(alarms)} stack(s) need attention: "
              + ", ".join(f"{d.stack} ({d.alarm})" for d in alarms), file=sys.stderr)
        raise typer.Exit(1)
