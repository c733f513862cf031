"""`trainstack reap` against a file:// backend of stacks (the fake Pulumi CLI) and node reports in
each kind of store the reaper reads through fsspec: file://, S3 (moto in server mode on loopback)
and Azure Blob Storage (Azurite): idle, busy, booting and silent clusters and every fault that
must stop a destroy.

Every case that reads the store runs on all three (the `store` fixture in tests/conftest.py: its
servers shared, a fresh bucket or container per case). Cases decided before the store is read
run on file:// only, saying why. Group membership comes from a fake cloud (tests/reap_helpers.py
FakeCloud); tests/reap/test_reap_faults.py has the fault injection (SIGKILL, store cut, hangs)."""
import json
import threading
from datetime import timedelta

import pytest
from typer.testing import CliRunner

from tests.reap_helpers import (
    FakeCloud,
    FakeGuard,
    ago,
    beat,
    history_time,
    marked,
    put_beats,
    stack,
    write_stacks,
)
from trainstack.reap import reaper as reap
from trainstack.cli.app import app
from trainstack.reap.cloud import FilesystemGone

runner = CliRunner()


# Decided from the backend alone (an update in progress, the bucket's fate, the stack's age),
# before any heartbeat is read or any lock taken: the store cannot change the outcome.
DECIDED_BEFORE_THE_STORE = pytest.mark.parametrize("store", ["file"], indirect=True)


def later(hours: float):
    """A reaper clock `hours` ahead: every report in the store is that much older."""
    return lambda: reap.utc_now() + timedelta(hours=hours)


@pytest.fixture
def world(fake_pulumi, store, tmp_path, monkeypatch):  # noqa: F811
    """A backend with stacks, each with a heartbeat prefix in `store` and a node group in a
    fake cloud; returns helpers."""
    fs = store.fs
    stacks_file = tmp_path / "stacks.json"
    monkeypatch.setenv("FAKE_PULUMI_STACKS", str(stacks_file))

    class World:
        calls = staticmethod(fake_pulumi)

        def __init__(self):
            self.stacks = {}
            self.guard = FakeGuard()  # what the CLI's default guards become in these tests
            self.cloud = FakeCloud()

        def root(self, name):
            return store.url(name, "heartbeats")

        def marked(self, name, **outputs):
            """The marker and outputs of a stack on this store's cloud, heartbeats under `name`."""
            own = {"storage_account": "devstoreaccount1"} if store.kind == "azure" else {}
            return marked(**{"cloud": store.cloud, "heartbeat_url": self.root(name),
                             "node_group": name, **own, **outputs})

        def add(self, name, *beats, outputs=None, members=None, **extra):
            outputs = self.marked(name) if outputs is None else outputs
            self.stacks[name] = stack(outputs, **extra)
            self.cloud.groups[name] = [b["node"] for b in beats] if members is None else members
            self.put(name, *beats)
            write_stacks(stacks_file, self.stacks)

        def put(self, name, *beats):
            put_beats(fs, store.path(name, "heartbeats"), *beats)

        def kept(self, name, node):
            """The node's heartbeat object is still in the bucket."""
            return fs.exists(store.path(name, "heartbeats", f"{node}.json"))

        def bucket_audit(self, name):
            found = fs.find(store.path(name, "reaper", "audit"))
            return [json.loads(fs.cat_file(f)) for f in sorted(found)]

        def destroyed(self):
            return [c["args"][c["args"].index("--stack") + 1] for c in fake_pulumi()
                    if c["args"][0] == "destroy"]

        def reaper(self, guard=None, **kwargs):
            guards = {store.cloud: guard or FakeGuard()}
            return reap.Reaper(reap.PulumiStacks(), guards, clouds={store.cloud: self.cloud},
                               **kwargs)

        def decide(self, guard=None, **kwargs):
            return {d.stack: d for d in self.reaper(guard, **kwargs).run()}
    world = World()
    world.store = store
    monkeypatch.setattr(reap, "default_guards", lambda: {store.cloud: world.guard})
    monkeypatch.setattr(reap, "default_clouds", lambda: {store.cloud: world.cloud})
    return world


def audit_lines(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


# -- what is destroyed and what is kept -------------------------------------------------------

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
    assert world.destroyed() == [] and world.cloud.scaled == [] and world.guard.asked == []
    logged = {d["stack"]: d for d in audit_lines(audit)}
    assert set(logged) == {"idle", "busy", "other"}
    assert logged["idle"]["evidence"]["nodes"]["node-1"]["state"] == "idle"
    assert logged["idle"]["evidence"]["heartbeats"].endswith("/idle/heartbeats")
    assert world.bucket_audit("idle") == []  # a dry run writes nothing into the bucket


def test_yes_scales_to_zero_exports_then_destroys_only_the_idle_stack(world, tmp_path):
    world.add("idle", beat("node-0", 180))
    world.add("busy", beat("node-0", 10))
    audit = tmp_path / "audit.jsonl"
    result = runner.invoke(app, ["reap", "--yes", "--audit-log", str(audit)])
    assert result.exit_code == 0, result.output
    assert world.destroyed() == ["idle"]
    assert world.cloud.scaled == [("idle", 0)] and world.guard.asked == ["idle"]
    assert "idle: destroy" in result.output and "bucket kept" in result.output
    idle = [d for d in audit_lines(audit) if d["stack"] == "idle"]
    # Appended as it happened: the intent before the scale-down, again before the destroy,
    # then the result.
    assert [d["action"] for d in idle] == ["destroying", "destroying", "destroy"]
    assert idle[-1]["result"] == "destroyed; bucket kept"
    assert world.kept("idle", "node-0")  # the bucket's objects stay
    in_bucket = world.bucket_audit("idle")
    assert sorted(d["action"] for d in in_bucket) == ["destroy", "destroying", "destroying"]


def test_each_idle_stack_is_destroyed_by_its_own_name_whatever_came_before_it(world):
    """Several stacks in one run, the idle ones listed after a busy one and after each other:
    each destroy (and the export and state read before it) acts on its own stack, never on the
    one the run looked at first."""
    world.add("a-busy", beat("node-0", 5))
    world.add("b-idle", beat("node-0", 180))
    world.add("c-idle", beat("node-0", 200))
    decisions = world.decide(yes=True, dry_run=False)
    assert decisions["a-busy"].action == "keep"
    assert decisions["b-idle"].result == decisions["c-idle"].result == "destroyed; bucket kept"
    assert sorted(world.destroyed()) == ["b-idle", "c-idle"]
    assert sorted(world.cloud.scaled) == [("b-idle", 0), ("c-idle", 0)]


def test_without_yes_a_non_interactive_run_destroys_nothing(world):
    world.add("idle", beat("node-0", 180))
    result = runner.invoke(app, ["reap"])
    assert "idle: needs-confirmation" in result.output and world.destroyed() == []


def test_one_busy_node_keeps_the_whole_stack(world):
    world.add("mixed", beat("node-0", 240), beat("node-1", 3))
    assert world.decide(yes=True, dry_run=False)["mixed"].action == "keep"
    assert world.destroyed() == [] and world.cloud.scaled == []


def test_the_grace_period_is_the_stacks_own(world):
    world.add("patient", beat("node-0", 90), outputs=world.marked("patient", idle_minutes=120))
    world.add("hasty", beat("node-0", 90), outputs=world.marked("hasty", idle_minutes=60))
    decisions = world.decide()
    assert decisions["patient"].action == "keep" and decisions["patient"].evidence["grace_minutes"] == 120
    assert decisions["hasty"].action == "would-destroy"


def test_a_group_with_no_instances_left_is_reaped(world):
    # A capacity failure scaled back to 0, or a budget stop: FSx and NAT still bill.
    world.add("empty", members=[])
    # The bucket is there (retained, holding the data) though no node ever reported into it:
    # the reports are read with no member too (a busy non-member keeps the stack).
    world.store.fs.makedirs(world.store.path("empty", "heartbeats"), exist_ok=True)
    decision = world.decide(yes=True, dry_run=False)["empty"]
    assert decision.result == "destroyed; bucket kept" and "no instances" in decision.evidence["note"]


# -- silence, staleness and membership: unknown, never idle ----------------------------------

def test_busy_nodes_whose_uploads_stopped_two_hours_ago_are_unknown_not_idle(world, tmp_path):
    # Busy at 97 %, then the uploads stopped (expired credentials, a bucket policy, a dead timer).
    world.add("silent", beat("node-0", 0), beat("node-1", 0))
    decision = world.decide(yes=True, dry_run=False, now=later(2))["silent"]
    assert decision.action == "report" and decision.alarm == "billing without reports"
    assert decision.evidence["nodes"]["node-0"]["why"].startswith("stale: last report 1")
    assert world.destroyed() == [] and world.cloud.scaled == []


def test_a_member_that_never_reported_is_unknown_and_fails_the_run(world, tmp_path):
    world.add("booting", beat("node-0", 180), members=["node-0", "node-1"])
    result = runner.invoke(app, ["reap", "--yes", "--audit-log", str(tmp_path / "a.jsonl")])
    assert result.exit_code == 1, result.output
    assert "booting: report - members without a fresh idle report" in result.output
    assert "node-1" in result.output and world.destroyed() == []


def test_a_stack_brought_back_is_judged_on_its_new_members_not_old_reports(world):
    # Old instances' idle reports are still in the bucket; the new ones boot (first report:
    # busy, booting) or have not reported yet.
    world.add("back", beat("i-old0", 300), beat("i-old1", 300),
              beat("i-new0", 0, reasons=["booting for 12 min"]), members=["i-new0", "i-new1"])
    decision = world.decide(yes=True, dry_run=False)["back"]
    assert decision.action == "keep" and "i-new0" in decision.reason
    assert decision.evidence["ignored_non_members"] == ["i-old0", "i-old1"]
    world.put("back", beat("i-new0", 0, state="unknown"))
    assert world.decide(yes=True, dry_run=False)["back"].action == "report"
    assert world.destroyed() == []


def test_reports_from_instances_that_left_the_group_are_ignored(world):
    # (i-gone's last report idle: a fresh busy one keeps the stack, tests/reap/test_reap_review.py)
    world.add("replaced", beat("i-gone", 200), beat("i-now", 180), members=["i-now"])
    decision = world.decide(yes=True, dry_run=False)["replaced"]
    assert decision.result == "destroyed; bucket kept"
    assert decision.evidence["ignored_non_members"] == ["i-gone"]


def test_age_counts_from_the_latest_update(world):
    # First deployed ten hours ago, brought back ten minutes ago after a budget stop.
    world.add("back", beat("node-0", 180), updates=[history_time(ago(10))])
    decision = world.decide(yes=True, dry_run=False)["back"]
    assert decision.action == "keep" and "latest update" in decision.reason
    assert world.destroyed() == []


@pytest.mark.parametrize("skew", [-90, 90])
def test_a_node_clock_90_minutes_off_is_judged_by_the_store_and_its_own_span(world, skew):
    # Slow or fast, the node writes fresh objects; what it says is judged, not its timestamps.
    world.add("training", beat("node-0", 0, skew_minutes=skew))
    world.add("forgotten", beat("node-0", 180, skew_minutes=skew))
    decisions = world.decide(yes=True, dry_run=False)
    assert decisions["training"].action == "keep"
    assert decisions["forgotten"].result == "destroyed; bucket kept"
    assert world.destroyed() == ["forgotten"]


def test_an_unknown_gpu_state_is_never_idle(world):
    world.add("smi", beat("node-0", 0, state="unknown", unknown="nvidia-smi hung"))
    decision = world.decide(yes=True, dry_run=False)["smi"]
    assert decision.action == "report" and decision.evidence["nodes"]["node-0"]["why"] == "nvidia-smi hung"


def test_an_idle_span_shorter_than_the_grace_is_busy(world):
    world.add("recent", beat("node-0", 20))
    assert world.decide(yes=True, dry_run=False)["recent"].action == "keep"


def test_unreadable_reports_make_their_member_unknown(world):
    fs, store = world.store.fs, world.store
    for name, body in (("corrupt", b"{not json"), ("garbage", b"\x00garbage"), ("notabeat", b"[]")):
        world.add(name, beat("node-0", 180), members=["node-0", "node-1"])
        with fs.open(store.path(name, "heartbeats", "node-1.json"), "wb") as f:
            f.write(body)
    world.add("nowhere", outputs=world.marked("nowhere", heartbeat_url="nosuchproto://bucket/heartbeats"),
              members=["node-0"])
    world.add("gone", outputs=world.marked("gone", heartbeat_url=store.missing), members=["node-0"])
    decisions = world.decide(yes=True, dry_run=False)
    for name in ("corrupt", "garbage", "notabeat"):
        assert decisions[name].action == "report", name
        assert "unreadable" in decisions[name].evidence["nodes"]["node-1"]["why"], name
    assert decisions["nowhere"].action == "report" and "nosuchproto" in decisions["nowhere"].evidence["error"]
    assert decisions["gone"].action == "report"  # a bucket that is not there destroys nothing
    assert all(decisions[n].alarm for n in decisions)
    assert world.destroyed() == []


def test_unreadable_members_are_a_report(world):
    world.add("cloudless", beat("node-0", 180), members=RuntimeError("AccessDenied"))
    decision = world.decide(yes=True, dry_run=False)["cloudless"]
    assert decision.action == "report" and "AccessDenied" in decision.evidence["error"]


# -- decided before the store ------------------------------------------------------------------

@DECIDED_BEFORE_THE_STORE
def test_a_young_stack_is_kept(world):
    world.add("new", beat("node-0", 90), age_minutes=30)
    assert world.decide(yes=True, dry_run=False)["new"].action == "keep"


@DECIDED_BEFORE_THE_STORE
def test_a_stack_held_by_an_update_is_not_touched(world):
    world.add("updating", beat("node-0", 180), update_in_progress=True)
    assert world.decide(yes=True, dry_run=False)["updating"].action == "report"
    assert world.destroyed() == []


@DECIDED_BEFORE_THE_STORE
@pytest.mark.parametrize("retained", [False, None])
def test_a_bucket_not_declared_retained_stops_the_reaper(world, retained):
    # None: the marker has no bucket_retained at all; that is not "retained".
    world.add("ephemeral", beat("node-0", 180),
              outputs=world.marked("ephemeral", retained=retained))
    assert "never deletes data" in world.decide(yes=True, dry_run=False)["ephemeral"].reason
    assert world.destroyed() == [] and world.cloud.scaled == []


@DECIDED_BEFORE_THE_STORE
def test_a_stack_reported_on_two_runs_in_a_row_fails_the_second(world, tmp_path):
    world.add("updating", beat("node-0", 180), update_in_progress=True)
    audit = tmp_path / "audit.jsonl"
    first = runner.invoke(app, ["reap", "--yes", "--audit-log", str(audit)])
    assert first.exit_code == 0, first.output
    second = runner.invoke(app, ["reap", "--yes", "--audit-log", str(audit)])
    assert second.exit_code == 1 and "reported on the previous run too" in second.output
    assert len({d["run"] for d in audit_lines(audit)}) == 2


# -- the destroy and what may stop it ---------------------------------------------------------

def test_a_stack_locked_in_the_backend_is_a_report_not_a_failure(world):
    world.add("held", beat("node-0", 180), locked_by="alice@laptop: pulumi up (pid 4242)")
    decision = world.decide(yes=True, dry_run=False)["held"]
    assert decision.action == "report" and decision.reason == "the stack is locked by an update"
    assert decision.result.startswith("not destroyed")


def test_an_export_that_has_not_drained_stops_the_destroy_with_the_group_at_zero(world):
    world.add("dirty", beat("node-0", 180))
    guard = FakeGuard(saved=False)
    decision = world.decide(guard, yes=True, dry_run=False)["dirty"]
    assert decision.action == "report" and "not confirmed" in decision.reason
    assert decision.evidence["export"] == "fake export still running" and decision.alarm
    assert guard.asked == ["dirty"] and world.destroyed() == []
    assert world.cloud.scaled == [("dirty", 0)]  # compute stopped; the data waits


def test_a_dry_run_runs_no_export(world):
    world.add("idle", beat("node-0", 180))
    guard = FakeGuard()
    assert world.decide(guard)["idle"].action == "would-destroy" and guard.asked == []


def test_a_job_started_before_the_lock_is_seen_by_the_recheck_after_it(world):
    def job_starts(call):
        if call == 2:  # the re-check after taking the lock
            world.put("race", beat("node-0", 0))
    world.cloud.on_members = job_starts
    world.add("race", beat("node-0", 180))
    decision = world.decide(yes=True, dry_run=False)["race"]
    assert decision.action == "keep" and "turned busy after taking the lock" in decision.reason
    assert world.cloud.scaled == [] and world.destroyed() == []


def test_a_job_started_during_the_scale_down_scales_the_group_back(world):
    def job_starts(call):
        if call == 3:  # the re-read after the scale-down
            world.put("race", beat("node-0", 0))
    world.cloud.on_members = job_starts
    world.add("race", beat("node-0", 180))
    decision = world.decide(yes=True, dry_run=False)["race"]
    assert decision.action == "keep" and "after the scale-down" in decision.reason
    assert world.cloud.scaled == [("race", 0), ("race", 1)] and decision.result == "group scaled back to 1"
    assert world.destroyed() == []


def test_a_job_started_while_the_export_ran_stops_the_destroy(world):
    world.add("race", beat("node-0", 180))
    guard = FakeGuard(during=lambda: world.put("race", beat("node-0", 0)))
    decision = world.decide(guard, yes=True, dry_run=False)["race"]
    assert "after the export" in decision.reason and decision.action == "keep"
    assert world.destroyed() == []


def test_a_destroy_that_fails_half_way_is_retried_on_the_next_run(world, tmp_path):
    world.add("flaky", beat("node-0", 180), destroy_failures=1)
    audit = tmp_path / "audit.jsonl"
    first = runner.invoke(app, ["reap", "--yes", "--audit-log", str(audit)])
    assert first.exit_code == 1 and "failed (retried on the next run)" in first.output
    assert "throttled" in first.output
    world.cloud.groups["flaky"] = ["node-0"]  # as the first run found it; still idle
    second = runner.invoke(app, ["reap", "--yes", "--audit-log", str(audit)])
    assert second.exit_code == 0 and "destroyed; bucket kept" in second.output
    assert world.destroyed() == ["flaky", "flaky"]
    results = [d["result"] for d in audit_lines(audit) if d["action"] == "destroy"]
    assert results[0].startswith("failed") and results[1] == "destroyed; bucket kept"
    third = runner.invoke(app, ["reap", "--yes", "--audit-log", str(audit)])
    assert "flaky: skip" in third.output and world.destroyed() == ["flaky", "flaky"]


def test_a_destroy_continues_when_the_filesystem_is_already_gone(world):
    # Run 1 exported, then the destroy failed half-way after deleting the filesystem.
    world.add("half", beat("node-0", 180), destroy_failures=1)
    first = world.decide(yes=True, dry_run=False)["half"]
    assert first.result.startswith("failed")
    gone = FakeGuard(raises=FilesystemGone("FSx fs-0123 no longer exists"))
    second = world.decide(gone, yes=True, dry_run=False)["half"]
    assert second.result == "destroyed; bucket kept", second
    assert "export was confirmed" in second.evidence["export"]


def test_a_gone_filesystem_never_exported_is_not_destroyed(world):
    world.add("lost", beat("node-0", 180))
    decision = world.decide(FakeGuard(raises=FilesystemGone("gone")), yes=True, dry_run=False)["lost"]
    assert decision.action == "report" and "ever confirmed" in decision.reason
    assert world.destroyed() == []


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
    lock = reap.StackStore(world.root("idle"), world.marked("idle")).lease("idle")
    assert lock.acquire()
    decision = world.decide(yes=True, dry_run=False)["idle"]
    assert decision.reason == "another reaper holds the stack's lock"
    held = json.loads(decision.evidence["lock"])
    assert held["pid"] > 0 and held["holder"] and held["expires"] > held["time"]
    assert world.destroyed() == []
    lock.release()
    assert world.decide(yes=True, dry_run=False)["idle"].result == "destroyed; bucket kept"


def test_an_expired_lock_is_taken_over_and_its_holder_named(world):
    world.add("idle", beat("node-0", 180))
    dead = reap.StackStore(world.root("idle"), world.marked("idle")).lease(
        "idle", ttl=timedelta(seconds=-1))
    dead.holder_id = "runner-42:9999:dead"
    assert dead.acquire()  # a reaper SIGKILLed while it held the lock
    decision = world.decide(yes=True, dry_run=False)["idle"]
    assert decision.result == "destroyed; bucket kept"
    assert decision.evidence["expired_lock_taken_over"]["holder"] == "runner-42:9999:dead"


def test_a_failing_lock_release_never_replaces_the_destroy_result(world, monkeypatch):
    from trainstack.reap import store as reap_store
    world.add("idle", beat("node-0", 180))

    def store_gone(self):
        raise ConnectionError("the store went away")
    monkeypatch.setattr(reap_store.Lease, "release", store_gone)
    decision = world.decide(yes=True, dry_run=False)["idle"]
    assert decision.result == "destroyed; bucket kept"
    assert "the store went away" in decision.evidence["lock_release"]


def test_the_lock_is_an_atomic_create_on_every_store(store):
    """Reapers racing for one stack's lock: exactly one wins, the others are told it is held
    (O_EXCL on file://, If-None-Match: * on S3 and on Azure Blob), never an error."""
    outputs = {"storage_account": "devstoreaccount1"}
    root = store.url("heartbeats")
    locks = [reap.StackStore(root, outputs).lease("team/idle") for _ in range(8)]
    for i, lock in enumerate(locks):
        lock.holder_id = f"reaper-{i}"
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
    assert json.loads(locks[(winner + 1) % len(locks)].holder())["holder"] == f"reaper-{winner}"
    locks[(winner + 1) % len(locks)].release()  # not its lock: nothing happens
    assert not locks[(winner + 2) % len(locks)].acquire()
    locks[winner].release()
    assert locks[0].acquire() and not locks[1].acquire()
    locks[0].release()


def test_the_reaper_needs_the_cli_like_up(monkeypatch, tmp_path):  # no store involved
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("PULUMI_ROOT", raising=False)
    result = runner.invoke(app, ["reap", "--dry-run"])
    assert result.exit_code == 2 and "Pulumi CLI" in result.output


def test_one_stack_at_a_time(world, tmp_path):
    world.add("idle", beat("node-0", 180))
    world.add("other", beat("node-0", 180))
    result = runner.invoke(app, ["reap", "--yes", "--stack", "other", "--audit-log",
                                 str(tmp_path / "a.jsonl")])
    assert result.exit_code == 0 and world.destroyed() == ["other"] and "idle:" not in result.output
