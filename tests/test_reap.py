"""`trainstack reap` against a file:// backend of stacks (the fake Pulumi CLI) and heartbeats in
each kind of store the reaper reads through fsspec: file://, S3 (moto in server mode on loopback)
and Azure Blob Storage (Azurite): idle and busy clusters and every fault that must stop a destroy.

Every case that reads the store runs on all three (the `store` fixture in tests/conftest.py: one
server per module, a fresh bucket or container per case). Cases decided before the store is read
run on file:// only, saying why."""
import json
import threading

import pytest
from typer.testing import CliRunner

from tests.reap_helpers import FakeGuard, ago, beat, marked, put_beats, stack, write_stacks
from trainstack import reap
from trainstack.cli import app

runner = CliRunner()


# Decided from the backend alone (an update in progress, the bucket's fate, the stack's age),
# before any heartbeat is read or any lock taken: the store cannot change the outcome.
DECIDED_BEFORE_THE_STORE = pytest.mark.parametrize("store", ["file"], indirect=True)


@pytest.fixture
def world(fake_pulumi, store, tmp_path, monkeypatch):  # noqa: F811
    """A backend with stacks, each with a heartbeat prefix in `store`; returns helpers."""
    fs = store.fs
    stacks_file = tmp_path / "stacks.json"
    monkeypatch.setenv("FAKE_PULUMI_STACKS", str(stacks_file))

    class World:
        calls = staticmethod(fake_pulumi)

        def __init__(self):
            self.stacks = {}
            self.guard = FakeGuard()  # what the CLI's default guards become in these tests

        def root(self, name):
            return store.url(name, "heartbeats")

        def marked(self, name, **outputs):
            """The marker and outputs of a stack on this store's cloud, heartbeats under `name`."""
            return marked(**{"cloud": store.cloud, "heartbeat_url": self.root(name), **outputs})

        def add(self, name, *beats, outputs=None, **extra):
            outputs = self.marked(name) if outputs is None else outputs
            self.stacks[name] = stack(outputs, **extra)
            put_beats(fs, store.path(name, "heartbeats"), *beats)
            write_stacks(stacks_file, self.stacks)

        def kept(self, name, node):
            """The node's heartbeat object is still in the bucket."""
            return fs.exists(store.path(name, "heartbeats", f"{node}.json"))

        def destroyed(self):
            return [c["args"][c["args"].index("--stack") + 1] for c in fake_pulumi()
                    if c["args"][0] == "destroy"]

        def reaper(self, guard=None, **kwargs):
            guards = {store.cloud: guard or FakeGuard()}
            return reap.Reaper(reap.PulumiStacks(), guards, **kwargs)

        def decide(self, guard=None, **kwargs):
            return {d.stack: d for d in self.reaper(guard, **kwargs).run()}
    world = World()
    world.store = store
    monkeypatch.setattr(reap, "default_guards", lambda: {store.cloud: world.guard})
    return world


def test_dry_run_reports_idle_and_busy_stacks_and_touches_nothing(world, tmp_path):
    world.add("idle", beat("node-0", 180), beat("node-1", 150))
    world.add("busy", beat("node-0", 0), beat("node-1", 200))
    world.add("other", outputs={"url": "https://example.com"})
    audit = tmp_path / "audit.jsonl"
    result = runner.invoke(app, ["reap", "--dry-run", "--audit-log", str(audit)])
    assert result.exit_code == 0, result.output
    assert "idle: would-destroy" in result.output
    assert "busy: keep - busy within the grace period: node-0" in result.output
    assert "other: skip - not a trainstack stack" in result.output
    assert world.destroyed() == []
    logged = {d["stack"]: d for d in map(json.loads, audit.read_text().splitlines())}
    assert set(logged) == {"idle", "busy", "other"}
    assert logged["idle"]["evidence"]["nodes"]["node-1"]["busy"] is False
    assert logged["idle"]["evidence"]["heartbeats"].endswith("/idle/heartbeats")


def test_yes_destroys_only_the_idle_stack_and_keeps_the_bucket(world, tmp_path):
    world.add("idle", beat("node-0", 180))
    world.add("busy", beat("node-0", 10))
    audit = tmp_path / "audit.jsonl"
    result = runner.invoke(app, ["reap", "--yes", "--audit-log", str(audit)])
    assert result.exit_code == 0, result.output
    assert world.destroyed() == ["idle"]
    assert "idle: destroy" in result.output and "bucket kept" in result.output
    (idle,) = [d for d in map(json.loads, audit.read_text().splitlines()) if d["stack"] == "idle"]
    assert idle["result"] == "destroyed; bucket kept" and idle["action"] == "destroy"
    # the heartbeats (and so the bucket's objects) are still there
    assert world.kept("idle", "node-0")


def test_without_yes_a_non_interactive_run_destroys_nothing(world):
    world.add("idle", beat("node-0", 180))
    result = runner.invoke(app, ["reap"])
    assert "idle: needs-confirmation" in result.output and world.destroyed() == []


def test_a_node_that_stopped_reporting_counts_as_idle(world):
    world.add("crashed", beat("node-0", 240, seen_minutes=240), beat("node-1", 120))
    decision = world.decide(yes=True, dry_run=False)["crashed"]
    assert decision.action == "destroy" and decision.evidence["stopped_reporting"] == ["node-0"]


def test_one_busy_node_keeps_the_whole_stack(world):
    world.add("mixed", beat("node-0", 240, seen_minutes=240), beat("node-1", 3))
    assert world.decide(yes=True, dry_run=False)["mixed"].action == "keep"
    assert world.destroyed() == []


def test_the_grace_period_is_the_stacks_own(world):
    world.add("patient", beat("node-0", 90), outputs=world.marked("patient", idle_minutes=120))
    world.add("hasty", beat("node-0", 90), outputs=world.marked("hasty", idle_minutes=60))
    decisions = world.decide()
    assert decisions["patient"].action == "keep" and decisions["patient"].evidence["grace_minutes"] == 120
    assert decisions["hasty"].action == "would-destroy"


@DECIDED_BEFORE_THE_STORE
def test_a_young_stack_is_kept(world):
    world.add("new", beat("node-0", 90), age_minutes=30)
    assert world.decide(yes=True, dry_run=False)["new"].reason == "younger than the idle grace period"


def test_an_unreadable_heartbeat_store_is_a_report(world):
    fs, store = world.store.fs, world.store
    world.add("corrupt", beat("node-0", 180))
    with fs.open(store.path("corrupt", "heartbeats", "node-1.json"), "wb") as f:
        f.write(b"{not json")
    world.add("garbage", beat("node-0", 180))
    with fs.open(store.path("garbage", "heartbeats", "node-1.json"), "wb") as f:
        f.write(b"\x00garbage")
    world.add("notabeat", beat("node-0", 180))
    with fs.open(store.path("notabeat", "heartbeats", "node-1.json"), "wb") as f:
        f.write(b"[]")  # JSON, but not a heartbeat
    world.add("nowhere", outputs=world.marked("nowhere", heartbeat_url="nosuchproto://bucket/heartbeats"))
    world.add("gone", outputs=world.marked("gone", heartbeat_url=store.missing))
    decisions = world.decide(yes=True, dry_run=False)
    for name in ("corrupt", "garbage", "notabeat"):
        assert decisions[name].action == "report" and "unreadable" in decisions[name].reason, name
    assert decisions["nowhere"].action == "report" and "nosuchproto" in decisions["nowhere"].evidence["error"]
    assert decisions["gone"].action == "report"  # a bucket that is not there destroys nothing
    assert world.destroyed() == []


def test_no_heartbeat_at_all_is_a_report_not_a_destroy(world):
    world.add("silent")
    assert world.decide(yes=True, dry_run=False)["silent"].action == "report"


def test_heartbeats_from_the_future_are_a_report(world):
    skewed = beat("node-0", 180)
    skewed["time"] = reap.iso(ago(-30))  # 30 minutes ahead
    world.add("skewed", skewed)
    decision = world.decide(yes=True, dry_run=False)["skewed"]
    assert decision.action == "report" and "clock skew" in decision.reason
    assert world.destroyed() == []


@DECIDED_BEFORE_THE_STORE
def test_a_stack_held_by_an_update_is_not_touched(world):
    world.add("updating", beat("node-0", 180), update_in_progress=True)
    assert world.decide(yes=True, dry_run=False)["updating"].action == "report"
    assert world.destroyed() == []


def test_a_stack_locked_in_the_backend_is_a_report_not_a_failure(world):
    world.add("held", beat("node-0", 180), locked_by="alice@laptop: pulumi up (pid 4242)")
    decision = world.decide(yes=True, dry_run=False)["held"]
    assert decision.action == "report" and decision.reason == "the stack is locked by an update"
    assert decision.result.startswith("not destroyed")


@DECIDED_BEFORE_THE_STORE
def test_a_bucket_that_would_be_deleted_stops_the_reaper(world):
    world.add("ephemeral", beat("node-0", 180), outputs=world.marked("ephemeral", retained=False))
    assert "never deletes data" in world.decide(yes=True, dry_run=False)["ephemeral"].reason
    assert world.destroyed() == []


def test_an_export_that_has_not_drained_stops_the_destroy(world):
    world.add("dirty", beat("node-0", 180))
    guard = FakeGuard(saved=False)
    decision = world.decide(guard, yes=True, dry_run=False)["dirty"]
    assert decision.action == "report" and "not confirmed" in decision.reason
    assert decision.evidence["export"] == "fake export still running"
    assert guard.asked == ["dirty"] and world.destroyed() == []


def test_a_dry_run_runs_no_export(world):
    world.add("idle", beat("node-0", 180))
    guard = FakeGuard()
    assert world.decide(guard)["idle"].action == "would-destroy" and guard.asked == []


def test_a_destroy_that_fails_half_way_is_retried_on_the_next_run(world, tmp_path):
    world.add("flaky", beat("node-0", 180), destroy_failures=1)
    audit = tmp_path / "audit.jsonl"
    first = runner.invoke(app, ["reap", "--yes", "--audit-log", str(audit)])
    assert first.exit_code == 1 and "failed (retried on the next run)" in first.output
    assert "throttled" in first.output
    second = runner.invoke(app, ["reap", "--yes", "--audit-log", str(audit)])
    assert second.exit_code == 0 and "destroyed; bucket kept" in second.output
    assert world.destroyed() == ["flaky", "flaky"]
    results = [json.loads(line)["result"] for line in audit.read_text().splitlines()]
    assert results[0].startswith("failed") and results[1] == "destroyed; bucket kept"
    third = runner.invoke(app, ["reap", "--yes", "--audit-log", str(audit)])
    assert "flaky: skip" in third.output and world.destroyed() == ["flaky", "flaky"]


def test_two_reapers_at_once_destroy_a_stack_once(world, monkeypatch):
    world.add("idle", beat("node-0", 180))
    monkeypatch.setenv("FAKE_PULUMI_DESTROY_SLEEP", "2")
    results, start = [], threading.Barrier(2)

    def one_reaper():
        start.wait()
        results.append(world.decide(yes=True, dry_run=False)["idle"])
    threads = [threading.Thread(target=one_reaper) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert world.destroyed() == ["idle"]
    outcomes = sorted((d.action, d.reason) for d in results)
    assert [a for a, _ in outcomes].count("destroy") == 1
    assert any("another reaper holds" in r or "already destroyed" in r for _, r in outcomes)


def test_a_held_lock_blocks_the_destroy_and_names_the_holder(world):
    world.add("idle", beat("node-0", 180))
    lock = reap.StackLock(world.root("idle"), "idle")
    assert lock.acquire() and not reap.StackLock(world.root("idle"), "idle").acquire()
    decision = world.decide(yes=True, dry_run=False)["idle"]
    assert decision.reason == "another reaper holds the stack's lock" and "pid" in decision.evidence["lock"]
    assert world.destroyed() == []
    lock.release()
    assert world.decide(yes=True, dry_run=False)["idle"].result == "destroyed; bucket kept"


def test_the_lock_is_an_atomic_create_on_every_store(store):
    """Reapers racing for one stack's lock: exactly one wins, the others are told it is held
    (O_EXCL on file://, If-None-Match: * on S3 and on Azure Blob), never an error."""
    root = store.url("heartbeats")
    locks = [reap.StackLock(root, "team/idle") for _ in range(8)]
    start, won = threading.Barrier(len(locks)), {}

    def race(i):
        start.wait()
        try:
            won[i] = locks[i].acquire()
        except Exception as failed:  # noqa: BLE001 (the assertion names it)
            won[i] = failed
    threads = [threading.Thread(target=race, args=(i,)) for i in range(len(locks))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert sorted(won.values(), key=str) == [False] * (len(locks) - 1) + [True], won
    (winner,) = [i for i, ok in won.items() if ok is True]
    assert json.loads(locks[(winner + 1) % len(locks)].holder())["pid"] > 0
    locks[winner].release()
    assert locks[0].acquire() and not locks[1].acquire()
    locks[0].release()


def test_the_reaper_needs_the_cli_like_up(monkeypatch, tmp_path):  # no store involved
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("PULUMI_ROOT", raising=False)
    result = runner.invoke(app, ["reap", "--dry-run"])
    assert result.exit_code == 2 and "Pulumi CLI" in result.output


class FakeFsx:
    def __init__(self, states):
        self.states, self.created = list(states), []

    def create_data_repository_task(self, **request):
        self.created.append(request)
        return {"DataRepositoryTask": {"TaskId": "task-1", "Lifecycle": "PENDING"}}

    def describe_data_repository_tasks(self, TaskIds):
        state = self.states.pop(0) if len(self.states) > 1 else self.states[0]
        return {"DataRepositoryTasks": [{"TaskId": TaskIds[0], "Lifecycle": state}]}


@pytest.mark.parametrize("states, saved", [(["EXECUTING", "SUCCEEDED"], True),
                                           (["EXECUTING", "FAILED"], False),
                                           (["EXECUTING"], False)])
def test_the_fsx_guard_waits_for_an_export_task(states, saved):
    fsx = FakeFsx(states)
    guard = reap.FsxExportGuard(client_for=lambda region: fsx, timeout_s=0.05, poll_s=0.01)
    ok, proof = guard.confirm("s", marked(filesystem_bucket_path="/bucket"))
    assert ok is saved and "task-1" in proof
    (request,) = fsx.created
    assert request == {"FileSystemId": "fs-0123", "Type": "EXPORT_TO_REPOSITORY",
                       "Paths": ["bucket"], "Report": {"Enabled": False}}


def test_the_command_guard_runs_the_stacks_export_command():
    ran = []
    guard = reap.CommandExportGuard(run=lambda cmd: ran.append(cmd) or 0)
    outputs = {"filesystem_export_command": "gcloud lustre instances export-data x"}
    assert guard.confirm("s", outputs)[0] and ran == [outputs["filesystem_export_command"]]
    assert not reap.CommandExportGuard(run=lambda cmd: 1).confirm("s", outputs)[0]
    assert not guard.confirm("s", {})[0]


def test_two_reaper_processes_at_once_destroy_a_stack_once(world, monkeypatch, tmp_path):
    import os
    import subprocess
    import sys

    from tests.conftest import ROOT
    from tests.reap_helpers import write_stacks
    world.add("idle", beat("node-0", 180))
    # Separate processes use the real guards: a GCP-style export command that succeeds.
    world.stacks["idle"]["outputs"].update(world.marked("idle", cloud="gcp",
                                                        filesystem_export_command="true"))
    write_stacks(tmp_path / "stacks.json", world.stacks)
    env = {**os.environ, "FAKE_PULUMI_DESTROY_SLEEP": "2", "PYTHONPATH": str(ROOT)}
    runs = [subprocess.Popen([sys.executable, "-m", "trainstack", "reap", "--yes", "--audit-log",
                              str(tmp_path / "audit.jsonl")], env=env, cwd=ROOT,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for _ in range(2)]
    outputs = [run.communicate(timeout=120)[0] for run in runs]
    assert world.destroyed() == ["idle"], outputs
    text = "\n".join(outputs)
    assert text.count("idle: destroy") == 1
    assert "another reaper holds the stack's lock" in text or "already destroyed" in text
    audit = [json.loads(line) for line in (tmp_path / "audit.jsonl").read_text().splitlines()]
    assert sorted(d["action"] for d in audit) in (["destroy", "report"], ["destroy", "skip"])
