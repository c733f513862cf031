"""The reaper's decisions in-process (trainstack/reap.py: judge, Reaper.decide and the locked
destroy), over a local store and a fake backend: what it destroys, what it leaves alone, and why.
tests/test_reap.py runs the same decisions through the CLI on three stores; these are quick
enough for the mutation run (pyproject.toml [tool.mutmut]) and kill the planted mutations of
issue 26 (a missing bucket_retained read as retained; no re-check after the lock)."""
from __future__ import annotations

import json
from datetime import timedelta

import pytest

from tests.reap_helpers import FakeCloud, FakeGuard, ago, beat, marked
from trainstack import reap
from trainstack.reap_store import NodeReport

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
    exported = json.loads((tmp_path / "s" / "reaper" / "exported-s.json").read_text())
    assert exported["proof"] == "fake export done"
    assert not (tmp_path / "s" / "heartbeats" / "reaper-s.lock").exists()   # lock released


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
    assert (d.action, d.result) == ("report", "not destroyed: held by an update")


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
               "x": report(1, beat("x", 0), now)}
    verdict = reap.judge(["a", "b", "c"], reports, now, GRACE)
    assert verdict.state == "unknown" and verdict.unknown == ["a", "b", "c"]
    assert verdict.nodes["a"]["why"] == "no report from this member"
    assert verdict.nodes["b"]["why"] == "report unreadable: ValueError: torn"
    assert verdict.nodes["c"]["why"] == "the store gives no write time"
    assert verdict.ignored == ["x"] and verdict.busy == []
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
