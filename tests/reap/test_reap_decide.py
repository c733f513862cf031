"""The reaper's decisions in-process (trainstack/reap/reaper.py: judge, Reaper.decide and the locked
destroy), over a local store and a fake backend: what it destroys, what it leaves alone, and why.
tests/reap/test_reap.py runs the same decisions through the CLI on three stores; these are quick
enough for the mutation run (pyproject.toml [tool.mutmut]) and kill the planted mutations of
issue 26 (a missing bucket_retained read as retained; no re-check after the lock)."""
from __future__ import annotations

import json
from datetime import timedelta

import pytest

from tests.reap_helpers import FakeCloud, FakeGuard, ago, beat, marked
from trainstack.reap import reaper as reap
from trainstack.reap.store import Lease, NodeReport

GRACE = timedelta(minutes=60)


class Backend:
    """Stacks by name: outputs, the latest update, and a destroy that records (or raises)."""

    def __init__(self):
        self.stacks, self.destroyed, self.updating, self.fail = {}, [], set(), None

    def summaries(self):
        return [(name, name in self.updating) for name in self.stacks]

    def outputs(self, stack):
        value = self.stacks[stack]["outputs"]
        if isinstance(value, Exception):
            raise value
        return value

    def updated(self, stack):
        return self.stacks[stack]["updated"]

    def destroy(self, stack, echo):
        if self.fail:
            raise self.fail
        self.destroyed.append(stack)
        self.stacks[stack]["outputs"] = {}


@pytest.fixture
def world(tmp_path):
    class World:
        backend = Backend()
        cloud = FakeCloud()
        guard = FakeGuard()

        def add(self, name, *beats, age_minutes=600, **marker):
            root = tmp_path / name / "heartbeats"
            root.mkdir(parents=True)
            outputs = marked(heartbeat_url=str(root), node_group=name, **marker)
            self.backend.stacks[name] = {"outputs": outputs, "updated": ago(age_minutes)}
            self.cloud.groups[name] = [b["node"] for b in beats]
            self.put(name, *beats)
            return outputs

        def put(self, name, *beats):
            for b in beats:
                (tmp_path / name / "heartbeats" / f"{b['node']}.json").write_text(json.dumps(b))

        def reaper(self, **kwargs):
            options = {"dry_run": False, "yes": True, "clouds": {"aws": self.cloud},
                       **kwargs}
            return reap.Reaper(self.backend, {"aws": self.guard}, **options)

        def decide(self, name, **kwargs):
            [decision] = [d for d in self.reaper(**kwargs).run() if d.stack == name]
            return decision

    return World()


# ----------------------------------------------------------------- the bucket must be kept

@pytest.mark.parametrize("retained", [None, False, "true", 1])
def test_a_bucket_not_declared_retained_is_never_destroyed(world, retained):
    """None: the marker has no bucket_retained at all, which is NOT retained."""
    world.add("s", beat("n1", 120), retained=retained)
    d = world.decide("s")
    assert (d.action, world.backend.destroyed, world.cloud.scaled) == ("report", [], [])
    assert "the bucket would be deleted with the stack" in d.reason


def test_an_idle_stack_with_a_retained_bucket_is_scaled_exported_and_destroyed(world, tmp_path):
    world.add("s", beat("n1", 120), beat("n2", 61))
    d = world.decide("s")
    assert (d.action, d.result) == ("destroy", "destroyed; bucket kept")
    assert world.backend.destroyed == ["s"] and world.cloud.scaled == [("s", 0)]
    assert world.guard.asked == ["s"]
    assert d.evidence["scaled_from"] == 2 and d.evidence["export"] == "fake export done"
    # The export record proves nothing for the stack's next life: gone with the destroy.
    assert not (tmp_path / "s" / "reaper" / "exported-s.json").exists()
    lease = reap.StackStore(str(tmp_path / "s" / "heartbeats"), {}).lease("s")
    assert lease.current()["released"] is True   # lock released


# --------------------------------------------------------- the re-checks after the lock

def test_a_stack_that_turns_busy_between_the_lock_and_the_destroy_is_not_touched(world):
    world.add("s", beat("n1", 120))

    def job_starts(call):
        if call == 2:    # 1: the decision; 2: the re-check after taking the lock
            world.put("s", beat("n1", 0))
    world.cloud.on_members = job_starts
    d = world.decide("s")
    assert d.action == "keep"
    assert d.reason == "turned busy after taking the lock (n1); left alone, not destroyed"
    assert (world.backend.destroyed, world.cloud.scaled, world.guard.asked) == ([], [], [])


def test_a_stack_destroyed_by_another_reaper_meanwhile_is_skipped(world):
    world.add("s", beat("n1", 120))

    def gone(call):
        if call == 1:
            world.backend.stacks["s"]["outputs"] = {}
    world.cloud.on_members = gone
    d = world.decide("s")
    assert (d.action, d.reason) == ("skip", "already destroyed by another reaper")
    assert world.cloud.scaled == []


def test_a_job_started_during_the_scale_down_scales_the_group_back(world):
    world.add("s", beat("n1", 120), beat("n2", 120))

    def job_starts(call):
        if call == 3:    # the re-check after the scale-down
            world.put("s", beat("n2", 0))
    world.cloud.on_members = job_starts
    d = world.decide("s")
    assert d.action == "keep" and "turned busy after the scale-down (n2)" in d.reason
    assert world.cloud.scaled == [("s", 0), ("s", 2)] and d.result == "group scaled back to 2"
    assert world.backend.destroyed == []


def test_a_job_started_while_the_export_ran_stops_the_destroy(world):
    world.add("s", beat("n1", 120))
    world.guard.during = lambda: world.put("s", beat("n1", 0))
    d = world.decide("s")
    assert d.action == "keep" and "after the export" in d.reason
    assert world.backend.destroyed == []


def test_an_export_not_confirmed_stops_the_destroy_with_the_group_at_zero(world):
    world.add("s", beat("n1", 120))
    world.guard.saved = False
    d = world.decide("s")
    assert (d.action, d.alarm) == ("report", "export not confirmed")
    assert world.cloud.scaled == [("s", 0)] and world.backend.destroyed == []


def test_a_held_lock_stops_the_destroy(world, tmp_path):
    world.add("s", beat("n1", 120))
    held = reap.StackStore(str(tmp_path / "s" / "heartbeats"), {}).lease("s")
    held.holder_id = "other-reaper"
    assert held.acquire()
    d = world.decide("s")
    assert (d.action, d.reason) == ("report", "another reaper holds the stack's lock")
    assert "other-reaper" in d.evidence["lock"] and world.cloud.scaled == []


def test_a_failed_destroy_alarms_and_a_locked_one_reports(world):
    world.add("s", beat("n1", 120))
    world.backend.fail = RuntimeError("boom")
    d = world.decide("s")
    assert (d.action, d.alarm) == ("destroy", "destroy failed")
    assert d.result == "failed (retried on the next run): boom"
    world.add("t", beat("n1", 120))
    world.backend.fail = reap.StackLocked("held by an update")
    d = world.decide("t")
    # A person's `up` holds the lock: the group the reaper scaled to 0 gets its node back.
    assert (d.action, d.result) == ("report", "not destroyed: held by an update; group scaled "
                                              "back to 1")
    assert d.alarm == "an update began while being reaped"


# ------------------------------------------------------------------- before any lock

def test_what_is_decided_before_the_heartbeats_are_read(world):
    world.add("updating", beat("n1", 120))
    world.backend.updating.add("updating")
    world.backend.stacks["other"] = {"outputs": {"name": "x"}, "updated": ago(600)}
    world.backend.stacks["broken"] = {"outputs": RuntimeError("no access"), "updated": None}
    world.add("young", beat("n1", 120), age_minutes=30)
    world.add("ageless", beat("n1", 120))
    world.backend.stacks["ageless"]["updated"] = None
    decisions = {d.stack: d for d in world.reaper().run()}
    assert decisions["updating"].reason == "an update holds the stack lock; not touched"
    assert decisions["other"].action == "skip"
    assert (decisions["broken"].action, decisions["broken"].reason) == ("report",
                                                                        "outputs unreadable")
    assert decisions["young"].action == "keep"
    assert decisions["ageless"].reason == "the stack's age is unknown (no update history)"
    assert world.backend.destroyed == [] and world.cloud.scaled == []


def test_the_grace_period_is_the_stacks_own(world):
    world.add("s", beat("n1", 100), idle_minutes=120)   # idle 100 min < its 120 min grace
    assert world.decide("s").action == "keep"
    world.add("t", beat("n1", 100), idle_minutes=90)    # 100 >= 90
    assert world.decide("t").action == "destroy"


def test_a_busy_node_keeps_the_stack_and_a_silent_one_is_an_alarm(world):
    world.add("busy", beat("n1", 120), beat("n2", 0))
    d = world.decide("busy")
    assert (d.action, d.reason) == ("keep", "busy within the grace period: n2")
    world.add("silent", beat("n1", 120))
    world.cloud.groups["silent"] = ["n1", "n3"]
    d = world.decide("silent")
    assert (d.action, d.alarm) == ("report", "billing without reports")
    assert "n3" in d.reason


def test_dry_run_and_no_confirmation_destroy_nothing(world):
    world.add("s", beat("n1", 120))
    assert world.decide("s", dry_run=True).action == "would-destroy"
    assert world.decide("s", yes=False).action == "needs-confirmation"
    assert world.decide("s", yes=False, confirm=lambda stack: True).action == "destroy"


def test_a_cloud_without_a_member_reader_or_a_failing_one_is_a_report(world):
    world.add("s", beat("n1", 120))
    d = world.decide("s", clouds={})
    assert (d.reason, d.alarm) == ("no way to read 'aws' group members", "billing without reports")
    world.cloud.groups["s"] = RuntimeError("throttled")
    d = world.decide("s")
    assert d.reason == "group members unreadable" and "throttled" in d.evidence["error"]


def test_an_empty_group_is_reaped_its_filesystem_still_bills(world):
    world.add("s")
    d = world.decide("s")
    assert d.action == "destroy"
    assert d.evidence["note"].startswith("the group has no instances")


# ------------------------------------------------------------------------- judging reports

def report(minutes_ago, body, now):
    return NodeReport("n", now - timedelta(minutes=minutes_ago), body)


@pytest.mark.parametrize("written, body, state, why", [
    (2, beat("n", 90), "idle", "idle for 90 min"),
    (2, beat("n", 60), "idle", "idle for 60 min"),            # exactly the grace: idle
    (2, beat("n", 59), "busy", "idle for only 59 min"),
    (2, beat("n", 0), "busy", "gpu 0 at 97 %"),
    (9, beat("n", 90), "idle", "idle for 90 min"),             # 9 min old: still fresh
    (11, beat("n", 90), "unknown", "stale: last report 11 min ago"),
    (-6, beat("n", 90), "unknown", "ahead of the reaper's clock"),
    (-4, beat("n", 90), "idle", "idle for 90 min"),            # within the 5 min skew allowed
    (2, {**beat("n", 90), "state": "unknown", "unknown": "nvidia-smi failed"}, "unknown",
     "nvidia-smi failed"),
    (2, {**beat("n", 90), "state": "weird", "unknown": None}, "unknown",
     "the node reports 'weird'"),
])
def test_a_members_report_is_judged_by_the_stores_time_and_its_state(written, body, state, why):
    now = reap.utc_now()
    verdict = reap.judge(["n"], {"n": report(written, body, now)}, now, GRACE)
    assert verdict.nodes["n"]["state"] == state and why in verdict.nodes["n"]["why"]
    assert verdict.state == state


def test_a_version_1_report_is_read_from_its_busy_flag_and_times():
    now = reap.utc_now()
    old = {"node": "n", "time": reap.iso(now), "last_busy": reap.iso(now - timedelta(hours=2)),
           "busy": False}
    assert reap.judge(["n"], {"n": report(1, old, now)}, now, GRACE).state == "idle"
    assert reap.judge(["n"], {"n": report(1, {**old, "busy": True}, now)}, now,
                      GRACE).state == "busy"
    short = {**old, "last_busy": reap.iso(now - timedelta(minutes=30))}
    assert reap.judge(["n"], {"n": report(1, short, now)}, now, GRACE).state == "busy"
    bare = {"node": "n", "busy": False}
    verdict = reap.judge(["n"], {"n": report(1, bare, now)}, now, GRACE)
    assert verdict.nodes["n"]["why"] == "an old report without state or times"


def test_missing_unreadable_and_timeless_reports_are_unknown_and_strangers_ignored():
    now = reap.utc_now()
    reports = {"b": NodeReport("b", now, None, "ValueError: torn"),
               "c": NodeReport("c", None, beat("c", 90)),
               "x": report(1, beat("x", 300), now)}   # a stranger's idle report: ignored
    verdict = reap.judge(["a", "b", "c"], reports, now, GRACE)
    assert verdict.state == "unknown" and verdict.unknown == ["a", "b", "c"]
    assert verdict.nodes["a"]["why"] == "no report from this member"
    assert verdict.nodes["b"]["why"] == "report unreadable: ValueError: torn"
    assert verdict.nodes["c"]["why"] == "the store gives no write time"
    assert verdict.ignored == ["x"] and verdict.busy == []
    # A stranger's fresh BUSY report is not ignored (issue 34 review: a machine the membership
    # does not show may run a job on the stack's filesystem); a stale one is.
    strangers = {"x": report(1, beat("x", 0), now), "y": report(11, beat("y", 0), now)}
    busy = reap.judge(["a"], {**strangers, "a": report(1, beat("a", 300), now)}, now, GRACE)
    assert busy.state == "busy" and busy.busy == ["x"] and busy.ignored == ["y"]
    # One busy member outweighs unknown ones: the stack is kept, not reported.
    reports["a"] = report(1, beat("a", 0), now)
    assert reap.judge(["a", "b"], reports, now, GRACE).state == "busy"


# ------------------------------------------------------------------------------ the audit

def test_heartbeat_roots_and_the_previous_runs_reports(tmp_path):
    assert reap.heartbeat_root({"bucket_name": "data"}, "aws") == "s3://data/heartbeats"
    assert reap.heartbeat_root({"bucket_name": "data"}, "gcp") == "gs://data/heartbeats"
    assert reap.heartbeat_root({"heartbeat_url": "file:///x/hb/"}, "aws") == "file:///x/hb"
    assert reap.heartbeat_root({}, "aws") is None
    assert reap.heartbeat_root({"bucket_name": "data"}, "oracle") is None
    log = tmp_path / "audit.jsonl"
    assert reap.previous_reports(log) == set()
    reap.append_audit(log, [reap.Decision("a", "report", "x", run="r1"),
                            reap.Decision("b", "keep", "x", run="r1"),
                            reap.Decision("a", "keep", "x", run="r2"),
                            reap.Decision("b", "report", "x", run="r2"),
                            reap.Decision("c", "destroying", "x", run="r2")])
    assert reap.previous_reports(log) == {"b"}


# -------------------------------------------------- every decision, as the audit records it

def said(d):
    return d.action, d.reason, d.alarm, d.result


BILLING = "billing without reports"


def test_the_decisions_made_before_the_lock_word_for_word(world):
    world.add("idle", beat("n1", 120))
    world.add("busy", beat("n1", 120), beat("n2", 0))
    world.add("silent", beat("n1", 120))
    world.cloud.groups["silent"] = ["n1", "n3"]
    world.add("young", beat("n1", 120), age_minutes=30)
    world.add("kept", beat("n1", 120), retained=False)
    world.add("nowhere", beat("n1", 120))
    world.backend.stacks["nowhere"]["outputs"] = marked()   # no heartbeat_url
    world.backend.stacks["nowhere"]["outputs"].pop("bucket_name")
    world.add("stranger", beat("n1", 120))
    world.backend.stacks["stranger"]["outputs"] = {"bucket_name": "data"}
    decisions = {d.stack: d for d in world.reaper(dry_run=True).run()}
    assert said(decisions["idle"]) == (
        "would-destroy", "every node idle past the grace period (scale to 0, export, then "
                         "destroy with the bucket kept)", "", "")
    assert said(decisions["busy"]) == ("keep", "busy within the grace period: n2", "", "")
    assert said(decisions["silent"]) == (
        "report", "members without a fresh idle report (unknown, never idle): n3", BILLING, "")
    assert said(decisions["young"]) == (
        "keep", "younger than the idle grace period (since its latest update)", "", "")
    assert said(decisions["kept"]) == (
        "report", "the bucket would be deleted with the stack (bucket.retain_on_destroy is not "
                  "true); the reaper never deletes data", "", "")
    assert said(decisions["nowhere"]) == (
        "report", "no bucket output to read heartbeats from", BILLING, "")
    assert said(decisions["stranger"]) == (
        "skip", "not a trainstack stack (no marker output); never touched", "", "")
    assert decisions["kept"].evidence == {"cloud": "aws", "grace_minutes": 60.0}
    idle = decisions["idle"].evidence
    assert idle["heartbeats"] == world.backend.stacks["idle"]["outputs"]["heartbeat_url"]
    assert idle["updated"] == reap.iso(world.backend.stacks["idle"]["updated"])
    assert idle["members"] == ["n1"] and idle["nodes"]["n1"]["state"] == "idle"
    assert decisions["young"].evidence["updated"] == reap.iso(
        world.backend.stacks["young"]["updated"])
    assert world.reaper().seen_outputs == {}
    reaper = world.reaper(dry_run=True)
    reaper.run()
    assert reaper.seen_outputs["idle"] == world.backend.stacks["idle"]["outputs"]



def test_the_grace_comes_from_the_marker_and_defaults_to_an_hour(world):
    world.add("s", beat("n1", 120), idle_minutes=None)
    assert world.decide("s", dry_run=True).evidence["grace_minutes"] == 60.0
    world.add("t", beat("n1", 120), idle_minutes=30)
    assert world.decide("t", dry_run=True).evidence["grace_minutes"] == 30.0


def test_a_stack_exactly_one_grace_period_old_is_judged_on_its_reports(world):
    now = reap.utc_now()
    world.add("s", beat("n1", 120))
    world.backend.stacks["s"]["updated"] = now - GRACE
    assert world.decide("s", dry_run=True, now=lambda: now).action == "would-destroy"
    world.backend.stacks["s"]["updated"] = now - GRACE + timedelta(seconds=1)
    assert world.decide("s", dry_run=True, now=lambda: now).action == "keep"


def test_a_marker_without_a_cloud_names_what_cannot_be_read(world):
    world.add("s", beat("n1", 120))
    world.backend.stacks["s"]["outputs"][reap.MARKER].pop("cloud")
    assert said(world.decide("s")) == ("report", "no way to read '' group members", BILLING, "")


def test_reading_members_and_heartbeats_can_fail(world, tmp_path):
    world.add("s", beat("n1", 120))
    world.cloud.groups["s"] = RuntimeError("throttled")
    d = world.decide("s")
    assert said(d) == ("report", "group members unreadable", BILLING, "")
    assert d.evidence["error"] == "RuntimeError: throttled" and d.evidence["cloud"] == "aws"
    world.add("gone", beat("n1", 120))
    outputs = world.backend.stacks["gone"]["outputs"]
    outputs["heartbeat_url"] = str(tmp_path / "no-such-bucket" / "heartbeats")
    d = world.decide("gone")
    assert said(d) == ("report", "heartbeats unreadable", BILLING, "")
    assert d.evidence["error"].startswith("StoreUnreachable: ")
    # An Azure URL without its account is refused before anything is read; with no members
    # the filesystem and network still bill, and a busy non-member's report is unseen.
    world.add("azure")
    world.backend.stacks["azure"]["outputs"]["heartbeat_url"] = "abfs://hb/heartbeats"
    d = world.decide("azure")
    assert (d.action, d.reason, d.alarm) == ("report", "heartbeats unreadable", BILLING)
    assert d.evidence["error"].startswith("StoreUnreachable: the stack names no storage account")


def test_reports_of_instances_that_left_the_group_are_named_and_ignored(world):
    world.add("s", beat("n1", 120), beat("old", 300))   # a fresh busy one keeps the stack
    world.cloud.groups["s"] = ["n1"]
    d = world.decide("s", dry_run=True)
    assert d.action == "would-destroy" and d.evidence["ignored_non_members"] == ["old"]


def test_a_surprise_in_one_stack_is_reported_and_the_others_go_on(world):
    world.add("a", beat("n1", 120))
    world.add("b", beat("n1", 120))
    world.backend.stacks["a"]["updated"] = "not a time"
    decisions = world.reaper(dry_run=True).run()
    assert [(d.stack, d.action) for d in decisions] == [("a", "report"), ("b", "would-destroy")]
    assert (decisions[0].reason, decisions[0].alarm) == ("unexpected error, nothing destroyed",
                                                         "unexpected error")
    assert decisions[0].evidence == {"error": "AttributeError: 'str' object has no attribute "
                                              "'astimezone'"}


def test_only_the_named_stack_and_every_decision_recorded_with_its_run(world):
    world.add("a", beat("n1", 120))
    world.add("b", beat("n1", 120))
    recorded = []
    reaper = world.reaper(only="b", record=recorded.append)
    decisions = reaper.run()
    assert [d.stack for d in decisions] == ["b"]
    assert [(d.stack, d.action) for d in recorded] == [("b", "destroying"), ("b", "destroying"),
                                                      ("b", "destroy")]
    assert {d.run for d in recorded} == {reaper.run_id}
    assert recorded[0].reason == "idle: scale to 0, export, destroy"
    assert recorded[0].evidence["cloud"] == "aws"


def test_a_failing_audit_is_noted_beside_the_decision(world):
    world.add("s", beat("n1", 120))

    def full(decision):
        raise OSError("disk full")
    [d] = world.reaper(dry_run=True, record=full).run()
    assert d.action == "would-destroy" and d.evidence["audit_error"] == "OSError: disk full"


def test_the_default_clouds_are_read_once(world, monkeypatch):
    world.add("a", beat("n1", 120))
    world.add("b", beat("n1", 120))
    made = []
    monkeypatch.setattr(reap, "default_clouds", lambda: made.append(1) or {"aws": world.cloud})
    decisions = world.reaper(dry_run=True, clouds=None).run()
    assert [d.action for d in decisions] == ["would-destroy", "would-destroy"] and made == [1]


def test_confirmation_is_asked_for_the_stack_by_name(world):
    world.add("s", beat("n1", 120))
    asked = []
    d = world.decide("s", yes=False, confirm=lambda stack: asked.append(stack) or False)
    assert asked == ["s"]
    assert said(d) == ("needs-confirmation", "idle; pass --yes to destroy non-interactively",
                       "", "")


# ---------------------------------------------------------------- holding the lock

def test_a_lock_that_cannot_be_taken_is_a_report(world, monkeypatch):
    world.add("s", beat("n1", 120))

    def refuse(self, stack, ttl):
        raise OSError("read-only bucket")
    monkeypatch.setattr(reap.StackStore, "lease", refuse)
    d = world.decide("s")
    assert said(d) == ("report", "the reaper lock could not be taken",
                       "billing while the lock cannot be taken", "")
    assert d.evidence["error"] == "OSError: read-only bucket" and d.evidence["cloud"] == "aws"


def test_the_lease_is_the_reapers_own_and_an_expired_one_is_taken_over(world, tmp_path):
    world.add("s", beat("n1", 120))
    old = reap.StackStore(str(tmp_path / "s" / "heartbeats"), {}).lease("s", timedelta(minutes=1))
    old.holder_id = "killed-reaper"
    assert old.acquire(reap.utc_now() - timedelta(hours=1))
    d = world.decide("s", lease=timedelta(minutes=5))
    assert d.action == "destroy"
    assert d.evidence["expired_lock_taken_over"]["holder"] == "killed-reaper"


def test_a_failing_lock_release_is_noted_beside_the_destroy(world, monkeypatch):
    world.add("s", beat("n1", 120))

    def stuck(self):
        raise OSError("gone away")
    monkeypatch.setattr(Lease, "release", stuck)
    d = world.decide("s")
    assert said(d) == ("destroy", "every node idle past the grace period", "",
                       "destroyed; bucket kept")
    assert d.evidence["lock_release"] == ("lock release failed (it expires by itself): OSError: "
                                          "gone away")


def test_without_a_guard_for_the_cloud_nothing_is_scaled(world):
    world.add("s", beat("n1", 120))
    reaper = reap.Reaper(world.backend, {}, dry_run=False, yes=True, clouds={"aws": world.cloud})
    [d] = reaper.run()
    assert said(d) == ("report", "no way to confirm aws data is in the bucket", BILLING, "")
    assert world.cloud.scaled == []


def test_a_scale_down_that_fails_is_a_report(world):
    world.add("s", beat("n1", 120))

    def broken(outputs, size, expected=None):
        raise RuntimeError("AccessDenied")
    world.cloud.scale = broken
    d = world.decide("s")
    assert said(d) == ("report", "the group could not be scaled to 0; not destroyed", BILLING, "")
    assert d.evidence["error"] == "RuntimeError: AccessDenied"


def test_a_busy_stack_that_cannot_be_scaled_back_alarms(world):
    world.add("s", beat("n1", 120), beat("n2", 120))
    scale = world.cloud.scale

    def once(outputs, size, expected=None):
        if size:
            raise RuntimeError("quota")
        return scale(outputs, size, expected)
    world.cloud.scale = once
    world.cloud.on_members = lambda call: call == 3 and world.put("s", beat("n2", 0))
    d = world.decide("s")
    assert (d.action, d.alarm, d.result) == ("keep", "a busy stack left scaled down",
                                            "group left at 0 (scaling back failed: quota)")


def test_a_report_at_the_re_check_after_the_scale_down_leaves_the_group_at_zero(world):
    world.add("s", beat("n1", 120))

    def unreadable(call):
        if call == 3:
            world.cloud.groups["s"] = RuntimeError("throttled")
    world.cloud.on_members = unreadable
    d = world.decide("s")
    assert said(d) == ("report", "group members unreadable at the re-check after the "
                                 "scale-down; not destroyed", BILLING, "")
    assert d.evidence["error"] == "RuntimeError: throttled" and d.evidence["cloud"] == "aws"
    assert world.cloud.scaled == [("s", 0)]


def test_a_store_lost_after_the_scale_down_stops_the_destroy(world, tmp_path):
    import shutil
    world.add("s", beat("n1", 120))
    world.cloud.on_members = lambda call: call == 3 and shutil.rmtree(tmp_path / "s")
    d = world.decide("s")
    assert said(d) == ("report", "heartbeats unreadable at the re-check after the scale-down; "
                                 "not destroyed", BILLING, "")
    assert d.evidence["error"].startswith("StoreUnreachable: ")


def test_a_member_gone_silent_after_the_lock_is_a_report(world, tmp_path):
    world.add("s", beat("n1", 120))
    world.cloud.on_members = lambda call: call == 2 and (
        tmp_path / "s" / "heartbeats" / "n1.json").unlink()
    d = world.decide("s")
    assert said(d) == ("report", "turned unknown after taking the lock (n1); left alone, not "
                                 "destroyed", BILLING, "")
    assert world.cloud.scaled == []


def test_a_stack_destroyed_meanwhile_keeps_its_evidence(world):
    world.add("s", beat("n1", 120))
    world.cloud.on_members = lambda call: call == 1 and world.backend.stacks["s"].update(
        outputs={})
    d = world.decide("s")
    assert d.evidence["cloud"] == "aws" and d.evidence["members"] == ["n1"]


class RecordingGuard(FakeGuard):
    def confirm(self, stack, outputs):
        self.outputs = outputs
        return super().confirm(stack, outputs)


def test_the_export_and_the_destroy_get_this_stacks_outputs_and_echo(world, tmp_path):
    world.guard = RecordingGuard()
    world.add("team/s", beat("n1", 120))
    lines = []
    world.backend.destroy = lambda stack, echo: (echo(f"destroying {stack}\n"),
                                                 world.backend.destroyed.append(stack))
    d = world.decide("team/s", echo=lines.append)
    assert d.result == "destroyed; bucket kept" and lines == ["destroying team/s\n"]
    assert world.guard.outputs["node_group"] == "team/s"
    # A destroy that fails keeps the export record: this filesystem's, this run's.
    world.backend.stacks["team/s"]["outputs"] = world.guard.outputs
    world.backend.destroy = lambda stack, echo: (_ for _ in ()).throw(RuntimeError("half-way"))
    d = world.decide("team/s")
    assert "failed" in d.result
    saved = json.loads((tmp_path / "team/s" / "reaper" / "exported-team_s.json").read_text())
    assert set(saved) == {"time", "proof", "filesystem", "run"}
    assert saved["filesystem"] == "fs-0123" and saved["run"] == d.run


def test_a_filesystem_gone_is_destroyed_only_after_a_confirmed_export(world, tmp_path):
    world.add("s", beat("n1", 120))
    world.guard.raises = reap.FilesystemGone("fs-0123 is deleted")
    d = world.decide("s")
    assert said(d) == ("report", "the filesystem is gone and no export of it was ever "
                                 "confirmed; not destroyed", "filesystem gone without a "
                                                             "confirmed export", "")
    assert d.evidence["export"] == "fs-0123 is deleted" and d.evidence["cloud"] == "aws"
    reaper_dir = tmp_path / "s" / "reaper"
    reaper_dir.mkdir(exist_ok=True)
    # An export of this filesystem, after the stack's latest update (600 min ago): proof.
    when = reap.iso(ago(30))
    (reaper_dir / "exported-s.json").write_text(json.dumps({"time": when,
                                                            "filesystem": "fs-0123"}))
    world.cloud.groups["s"] = ["n1"]
    d = world.decide("s")
    assert d.result == "destroyed; bucket kept"
    assert d.evidence["export"] == f"fs-0123 is deleted; its export was confirmed {when}"


def test_an_export_not_confirmed_message(world):
    world.add("s", beat("n1", 120))
    world.guard.saved = False
    assert said(world.decide("s")) == (
        "report", "the filesystem's data is not confirmed in the bucket; not destroyed (the "
                  "group stays at 0)", "export not confirmed", "")


def test_the_destroy_results_word_for_word(world):
    world.add("s", beat("n1", 120))
    world.backend.fail = RuntimeError("boom")
    d = world.decide("s")
    assert said(d) == ("destroy", "every node idle past the grace period", "destroy failed",
                       "failed (retried on the next run): boom")
    assert d.evidence["cloud"] == "aws"
    world.add("t", beat("n1", 120))
    world.backend.fail = reap.StackLocked("held by an update")
    d = world.decide("t")
    assert said(d) == ("report", "the stack is locked by an update",
                       "an update began while being reaped",
                       "not destroyed: held by an update; group scaled back to 1")
    assert d.evidence["cloud"] == "aws"
    world.backend.fail = None
    world.add("u", beat("n1", 120))
    d = world.decide("u")
    assert said(d) == ("destroy", "every node idle past the grace period", "",
                       "destroyed; bucket kept")
    assert d.evidence["cloud"] == "aws"


def test_the_audit_log_is_one_json_line_per_decision(tmp_path):
    log = tmp_path / "deep" / "audit.jsonl"
    reap.append_audit(log, [reap.Decision("a", "keep", "busy", {"n": 1}, time="t1", run="r"),
                            reap.Decision("b", "report", "x", time="t2", run="r")])
    lines = log.read_text().splitlines()
    assert json.loads(lines[0]) == {"stack": "a", "action": "keep", "reason": "busy",
                                    "evidence": {"n": 1}, "result": "", "time": "t1",
                                    "alarm": "", "run": "r"}
    assert lines[0].startswith('{"action": "keep", "alarm": ""')     # keys sorted
    assert len(lines) == 2
    log.write_text("not json\n")
    assert reap.previous_reports(log) == set()
    log.write_text(json.dumps({"stack": "a", "action": "report"}) + "\n")
    assert reap.previous_reports(log) == set()          # no run id: no previous run to read


def test_run_ids_are_utc_stamps_with_a_random_tail():
    a, b = reap.new_run_id(), reap.new_run_id()
    assert a != b and len(a) == len("20261201T120000Z-abcdef") and a[8] == "T" and a[15] == "Z"


def test_more_decisions_word_for_word(world, tmp_path):
    world.add("updating", beat("n1", 120))
    world.backend.updating.add("updating")
    world.backend.stacks["broken"] = {"outputs": RuntimeError("no access"), "updated": None}
    world.add("ageless", beat("n1", 120))
    world.backend.stacks["ageless"]["updated"] = None
    world.add("two-busy", beat("n1", 0), beat("n2", 0))
    world.add("two-silent")
    world.cloud.groups["two-silent"] = ["n1", "n2"]
    decisions = {d.stack: d for d in world.reaper(dry_run=True).run()}
    assert said(decisions["updating"]) == ("report", "an update holds the stack lock; not "
                                                     "touched", "", "")
    assert said(decisions["broken"]) == ("report", "outputs unreadable",
                                       "billing unknown: outputs unreadable", "")
    assert decisions["broken"].evidence == {"error": "no access"}
    assert said(decisions["ageless"]) == ("report", "the stack's age is unknown (no update "
                                                    "history)", "", "")
    assert decisions["ageless"].evidence == {"cloud": "aws", "grace_minutes": 60.0}
    assert decisions["two-busy"].reason == "busy within the grace period: n1, n2"
    assert decisions["two-silent"].reason == ("members without a fresh idle report (unknown, "
                                              "never idle): n1, n2")
    assert decisions["two-silent"].evidence["members"] == ["n1", "n2"]


def test_the_reasons_after_the_lock_name_every_node(world, tmp_path):
    world.add("s", beat("n1", 120), beat("n2", 120))
    world.cloud.on_members = lambda call: call == 2 and world.put("s", beat("n1", 0),
                                                                  beat("n2", 0))
    assert world.decide("s").reason == ("turned busy after taking the lock (n1, n2); left alone, "
                                        "not destroyed")
    world.add("t", beat("n1", 120))
    world.guard.during = lambda: world.put("t", beat("n1", 0))
    assert world.decide("t").reason == ("turned busy after the export (n1); left alone, not "
                                        "destroyed")


def test_the_report_decisions_after_the_lock_keep_their_evidence(world, tmp_path):
    world.add("s", beat("n1", 120))
    world.guard.saved = False
    d = world.decide("s")
    assert d.evidence["export"] == "fake export still running" and d.stack == "s"
    reaper = reap.Reaper(world.backend, {}, dry_run=False, yes=True, clouds={"aws": world.cloud})
    world.cloud.groups["s"] = ["n1"]
    [d] = reaper.run()
    assert d.stack == "s" and d.evidence["cloud"] == "aws"


def test_a_gone_filesystem_of_a_stack_with_a_slash_in_its_name(world, tmp_path):
    world.add("team/s", beat("n1", 120))
    world.guard.raises = reap.FilesystemGone("deleted")
    (tmp_path / "team/s" / "reaper").mkdir()
    (tmp_path / "team/s" / "reaper" / "exported-team_s.json").write_text(
        json.dumps({"time": reap.iso(ago(30)), "filesystem": "fs-0123"}))
    assert world.decide("team/s").result == "destroyed; bucket kept"


def test_a_marker_without_a_cloud_keeps_the_evidence(world):
    world.add("s", beat("n1", 120))
    world.backend.stacks["s"]["outputs"][reap.MARKER].pop("cloud")
    d = world.decide("s")
    assert d.evidence["cloud"] == "" and d.evidence["grace_minutes"] == 60.0


@pytest.mark.parametrize("written, state", [(10, "idle"), (-5, "idle")])
def test_the_freshness_limits_are_inclusive(written, state):
    now = reap.utc_now()
    verdict = reap.judge(["n"], {"n": report(written, beat("n", 90), now)}, now, GRACE)
    assert verdict.state == state
    assert verdict.nodes["n"]["written"] == reap.iso(now - timedelta(minutes=written))


def test_what_a_busy_or_old_report_says():
    now = reap.utc_now()
    bare = {**beat("n", 0), "reasons": []}
    assert reap.judge(["n"], {"n": report(1, bare, now)}, now, GRACE).nodes["n"]["why"] == "busy"
    two = {**beat("n", 0), "reasons": ["gpu 0 at 97 %", "job 12"]}
    assert reap.judge(["n"], {"n": report(1, two, now)}, now, GRACE).nodes["n"]["why"] == \
        "gpu 0 at 97 %; job 12"
    old = reap.judge(["n"], {"n": report(1, {"node": "n"}, now)}, now, GRACE)
    assert (old.state, old.nodes["n"]["state"]) == ("unknown", "unknown")
    assert reap.judge(["m"], {}, now, GRACE).nodes["m"] == {
        "state": "unknown", "why": "no report from this member", "written": None}


def test_the_previous_run_is_the_last_one_and_its_last_word_counts(tmp_path):
    log = tmp_path / "a" / "b" / "audit.jsonl"
    reap.append_audit(log, [reap.Decision("a", "report", "x", run="r1"),
                            reap.Decision("b", "report", "x", run="r2"),
                            reap.Decision("b", "destroying", "x", run="r2"),
                            reap.Decision("c", "keep", "x", run="r2"),
                            reap.Decision("c", "report", "x", run="r2")])
    # One stack per call (the workflow): "a" was not judged in r2, its last word still counts.
    assert reap.previous_reports(log) == {"a", "b", "c"}


def test_a_heartbeat_url_loses_only_its_trailing_slash():
    assert reap.heartbeat_root({"heartbeat_url": "file:///x/hbX/"}, "aws") == "file:///x/hbX"
