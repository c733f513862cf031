"""Issue 34: the reaper under every fault, each through the real CLI (`trainstack reap`) with the
stand-in `pulumi` and stand-in cloud CLIs (tests/reap_helpers.py) on PATH and the real cloud and
guard code; each test was written to fail on the code before the fix."""
from __future__ import annotations

import json
import os

import fsspec
import pytest
from typer.testing import CliRunner

from tests.conftest import stand_in_cli
from tests.reap_helpers import ALIYUN, beat, marked, put_beats, stack, write_stacks
from trainstack.cli.app import app

runner = CliRunner()


def audit_lines(path):
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


class World:
    """Stacks in the stand-in pulumi, heartbeats in a file:// bucket, stand-in clouds on PATH."""

    def __init__(self, tmp_path, monkeypatch, calls, store=None):
        self.tmp, self.mp, self.calls = tmp_path, monkeypatch, calls
        self.bin = tmp_path / "bin"
        self.store = store
        self.bucket = store.base if store else tmp_path / "bucket"
        self.scheme = store.scheme if store else "file"
        self.fs = store.fs if store else fsspec.filesystem("file", auto_mkdir=True)
        self.stacks: dict = {}
        self.audit = tmp_path / "audit.jsonl"
        # A backend of the test's own: a destroy writes its adopt record beside the backend's
        # state, which by default is the checkout's .pulumi-state (a later `up` there would
        # take a test's bucket back).
        monkeypatch.setenv("PULUMI_BACKEND_URL", f"file://{tmp_path}/state")

    def root(self, name):
        return f"{self.scheme}://{self.bucket}/{name}/heartbeats"

    def add(self, name, outputs, *beats, **extra):
        self.stacks[name] = stack(outputs, **extra)
        write_stacks(self.tmp / "stacks.json", self.stacks)
        self.mp.setenv("FAKE_PULUMI_STACKS", str(self.tmp / "stacks.json"))
        put_beats(self.fs, f"{self.bucket}/{name}/heartbeats", *beats)

    def lease(self, name):
        from trainstack.reap.store import StackStore
        return StackStore(self.root(name), self.stacks[name]["outputs"]).lease(name)

    def reap(self, *extra):
        return runner.invoke(app, ["reap", "--yes", "--audit-log", str(self.audit), *extra])

    def destroyed(self):
        return [c["args"][c["args"].index("--stack") + 1] for c in self.calls()
                if c["args"][0] == "destroy"]


@pytest.fixture
def world(fake_pulumi, tmp_path, monkeypatch):
    return World(tmp_path, monkeypatch, fake_pulumi)


@pytest.fixture
def store_world(fake_pulumi, store, tmp_path, monkeypatch):
    """The same on each store (file://, S3 on moto, Azure Blob on Azurite)."""
    return World(tmp_path, monkeypatch, fake_pulumi, store)


def alibaba(world, count, busy=(), status="Running"):
    """An Alibaba stack of `count` nodes (node-0 ...) answered by the stand-in `aliyun`."""
    stand_in_cli(world.bin, "aliyun", ALIYUN)
    instances = [{"InstanceId": f"i-{n:04d}", "HostName": f"node-{n}", "Status": status}
                 for n in range(count)]
    path = world.tmp / "instances.json"
    path.write_text(json.dumps(instances))
    world.mp.setenv("FAKE_ALIYUN_INSTANCES", str(path))
    own = {"storage_account": "devstoreaccount1"} if world.scheme == "abfs" else {}
    outputs = marked(cloud="alicloud", heartbeat_url=world.root("ali"), node_group="pg-1", **own,
                     node_ids=[i["InstanceId"] for i in instances], region="cn-hangzhou",
                     filesystem_id="cpfs-0001", filesystem_export_command="true",
                     # as the plan outputs them: the nodes mount the fileset the data flow exports
                     filesystem_bucket_path="/bucket/", filesystem_node_path="/bucket/")
    world.add("ali", outputs, *[beat(f"node-{n}", 0 if n in busy else 180) for n in range(count)])
    return path


# -- 1. every page of a listing ---------------------------------------------------------------

@pytest.mark.parametrize("count, busy", [(11, 10), (150, 130)])
def test_a_busy_alibaba_node_past_the_first_page_keeps_the_stack(world, count, busy):
    """DescribeInstances answers 10 instances a page by default (100 at most, and 100 ids a
    call): a busy node on a later page is a member, and the stack is kept."""
    alibaba(world, count, busy=(busy,))
    result = world.reap()
    assert result.exit_code == 0, result.output
    assert f"ali: keep - busy within the grace period: node-{busy}" in result.output
    assert world.destroyed() == []
    members = audit_lines(world.audit)[-1]["evidence"]["members"]
    assert len(members) == count


@pytest.mark.parametrize("store", ["oss"], indirect=True)
def test_a_busy_node_whose_report_is_past_the_first_oss_listing_page_keeps_the_stack(
        store_world, oss_server):
    """OSS ListObjects answers at most max-keys objects (oss2 asks 100) with IsTruncated and
    NextMarker: the busy report on the second page is read, and the stack kept."""
    world = store_world
    alibaba(world, 150, busy=(149,))
    result = world.reap()
    assert result.exit_code == 0, result.output
    assert "ali: keep - busy within the grace period: node-149" in result.output
    assert world.destroyed() == []
    heartbeats = [(marker, truncated) for prefix, marker, truncated in oss_server.state.pages
                  if prefix.endswith("ali/heartbeats/")]
    assert (("", True) in heartbeats and any(marker for marker, _ in heartbeats)), heartbeats


def test_an_idle_alibaba_stack_of_many_nodes_stops_every_node(world):
    path = alibaba(world, 150)
    result = world.reap()
    assert result.exit_code == 0 and world.destroyed() == ["ali"], result.output
    assert {i["Status"] for i in json.loads(path.read_text())} == {"Stopped"}


# -- 2. an export counts only when this destroy's own export completed -----------------------

EXPORT = "aliyun nas CreateDataFlowTask --RegionId cn-hangzhou --FileSystemId cpfs-0001 " \
         "--DataFlowId df-0001 --TaskAction Export"
# The aliyun CLI's error form; InvalidFileSystem.NotFound is the code reaper.cloud takes as
# "the filesystem is gone" (the data flow's code stands for any other NotFound: not verified
# against the NAS error table).
FLOW_GONE = ("ERROR: SDK.ServerError\nErrorCode: InvalidDataFlow.NotFound\n"
             "Message: The data flow does not exist.")
FS_GONE = ("ERROR: SDK.ServerError\nErrorCode: InvalidFileSystem.NotFound\n"
           "Message: The specified file system does not exist.")


def exported_before(world, minutes_ago, filesystem="cpfs-0001"):
    """An export record as an earlier reaper run left it in the stack's bucket."""
    from trainstack_components.lifetime import iso
    from tests.reap_helpers import ago
    world.fs.pipe_file(f"{world.bucket}/ali/reaper/exported-ali.json", json.dumps(
        {"time": iso(ago(minutes_ago)), "proof": "an earlier export", "filesystem": filesystem}
    ).encode())


def with_export(world, answer):
    alibaba(world, 2)
    world.stacks["ali"]["outputs"]["filesystem_export_command"] = EXPORT
    write_stacks(world.tmp / "stacks.json", world.stacks)
    world.mp.setenv("FAKE_ALIYUN_EXPORT", json.dumps(answer))


def test_a_data_flow_not_found_while_the_filesystem_exists_is_not_nothing_to_export(world):
    with_export(world, {"code": 1, "stderr": FLOW_GONE})
    exported_before(world, 30)   # even a record from this life is not this destroy's export
    result = world.reap()
    assert result.exit_code == 1, result.output
    assert "ali: report - the filesystem's data is not confirmed in the bucket" in result.output
    assert world.destroyed() == []


def test_the_previous_lifes_export_record_is_no_proof_for_a_gone_filesystem(world):
    with_export(world, {"code": 1, "stderr": FS_GONE})
    exported_before(world, 700)  # the stack was brought up 600 min ago: another life
    result = world.reap()
    assert result.exit_code == 1, result.output
    assert "the filesystem is gone and no export of it was ever confirmed" in result.output
    assert world.destroyed() == []


def test_another_filesystems_export_record_is_no_proof(world):
    with_export(world, {"code": 1, "stderr": FS_GONE})
    exported_before(world, 30, filesystem="cpfs-0999")
    result = world.reap()
    assert result.exit_code == 1 and world.destroyed() == [], result.output


def test_a_gone_filesystem_exported_in_this_life_is_destroyed(world):
    with_export(world, {"code": 1, "stderr": FS_GONE})
    exported_before(world, 30)
    result = world.reap()
    assert result.exit_code == 0 and world.destroyed() == ["ali"], result.output
    assert not world.fs.exists(f"{world.bucket}/ali/reaper/exported-ali.json")


# -- 3. taking over an expired lease is a conditional write on its version ------------------

def test_two_reapers_taking_over_one_expired_lease_interleaved(store, monkeypatch):
    """Both read the expired lease, then both write: exactly one holds it (on the old code the
    second removed the first's new lock and wrote its own: both scaled down and destroyed)."""
    import threading
    from datetime import timedelta

    from trainstack.reap.store import Lease, StackStore
    outputs = {"storage_account": "devstoreaccount1"}
    root = store.url("idle", "heartbeats")
    dead = StackStore(root, outputs).lease("idle", timedelta(seconds=-1))
    dead.holder_id = "killed-reaper"
    assert dead.acquire()
    first, second = (StackStore(root, outputs).lease("idle") for _ in range(2))
    first.holder_id, second.holder_id = "first", "second"
    read, second_has_read, first_done = Lease.current, threading.Event(), threading.Event()

    def current(self):
        seen = read(self)
        if self is second and not second_has_read.is_set():
            second_has_read.set()      # the second has read the expired lease ...
            first_done.wait(60)        # ... and writes only after the first took it over
        return seen
    monkeypatch.setattr(Lease, "current", current)
    took = {}
    late = threading.Thread(target=lambda: took.setdefault("second", second.acquire()))
    late.start()
    assert second_has_read.wait(60)
    took["first"] = first.acquire()
    first_done.set()
    late.join(60)
    assert took == {"first": True, "second": False}
    assert first.broken["holder"] == "killed-reaper"
    assert json.loads(second.holder())["holder"] == "first"
    second.release()                  # not its lease: nothing happens
    assert json.loads(first.holder())["holder"] == "first"
    first.release()
    assert second.acquire()


def test_a_store_without_an_atomic_create_is_never_locked_nor_reaped():
    """A store with no create-if-absent (fsspec's HTTP, say): no lease there, an alarm."""
    from trainstack.reap.store import Lease, LeaseUnsupported

    class Http:
        protocol = ("http", "https")
    with pytest.raises(LeaseUnsupported, match="http/https: no atomic create-if-absent"):
        Lease(Http(), "bucket/heartbeats/reaper-x.lease").acquire()


@pytest.mark.parametrize("store", ["oss"], indirect=True)
def test_an_idle_alibaba_stack_on_oss_is_reaped_under_a_lease_oss_itself_guards(
        store_world, oss_server):
    """Alibaba stacks were only alarmed (no lease on OSS). Now the lease is a PutObject with
    `x-oss-forbid-overwrite: true`, which the stand-in (like OSS) refuses with 409
    FileAlreadyExists when the version exists; the stack is scaled down, exported, audited in
    its bucket and destroyed, and the run exits 0."""
    world = store_world
    alibaba(world, 2)
    result = world.reap()
    assert result.exit_code == 0, result.output
    assert world.destroyed() == ["ali"]
    lease_puts = [headers for method, path, headers in oss_server.state.requests
                  if method == "PUT" and ".lease/" in path]
    assert lease_puts and all(h.get("x-oss-forbid-overwrite") == "true" for h in lease_puts)
    assert world.lease("ali").current()["released"] is True
    audit = world.fs.find(f"{world.bucket}/ali/reaper/audit")
    assert any(name.endswith(".json") for name in audit), audit
    # Another reaper that read the same version before it was taken is refused by OSS itself.
    late = world.lease("ali")
    taken = late.current()["version"]
    assert late._create(taken, {"holder": "late", "token": "late"}) is False


@pytest.mark.parametrize("store", ["gcs", "s3"], indirect=True)
def test_an_idle_stack_is_reaped_through_the_cli_under_its_stores_lease(store_world):
    """The whole path through `trainstack reap` with the lease, the export record and the
    audit on a GCS API (fake-gcs-server) and an S3 API (moto): destroyed once, lease given back,
    audit lines in the bucket; a second run finds nothing to do."""
    world = store_world
    alibaba(world, 2)
    result = world.reap()
    assert result.exit_code == 0 and world.destroyed() == ["ali"], result.output
    assert world.lease("ali").current()["released"] is True
    assert world.fs.find(f"{world.bucket}/ali/reaper/audit")
    again = world.reap()
    assert world.destroyed() == ["ali"], again.output


# -- 5. a lease write whose acknowledgement is lost is still its own -------------------------

@pytest.mark.parametrize("store", ["s3"], indirect=True)
def test_a_lost_acknowledgement_of_the_lease_write_is_recognised(store_world, monkeypatch):
    """The PUT of the lease lands on S3 but its answer never arrives: the reaper reads its own
    owner token back, goes on, and gives the lease back (the old code reported "could not be
    taken", exit 0, and then blocked itself for the lease's 3 hours)."""
    import s3fs
    world = store_world
    alibaba(world, 2)
    original, lost = s3fs.core.S3File.commit, []

    def answer_lost(self):
        done = original(self)   # the PUT (If-None-Match: *) has landed on the server
        if ".lease/" in self.path and not lost:
            lost.append(self.path)
            raise ConnectionResetError("connection reset before the answer")
        return done
    monkeypatch.setattr(s3fs.core.S3File, "commit", answer_lost)
    result = world.reap()
    assert lost and result.exit_code == 0, result.output
    assert world.destroyed() == ["ali"]
    assert world.lease("ali").current()["released"] is True


# -- 4. no destroy without its audit line, locally and in the bucket ------------------------

def test_a_local_audit_that_cannot_be_written_stops_the_destroy(world):
    alibaba(world, 2)
    world.audit.mkdir()   # the log's path is a folder: every append fails
    result = world.reap()
    assert result.exit_code == 1, result.output
    assert "ali: report - the audit could not be written; not destroyed" in result.output
    assert world.destroyed() == [] and "StopInstances" not in \
        (world.tmp / "instances.json.calls").read_text()


def test_a_bucket_audit_that_cannot_be_written_stops_the_destroy(world):
    alibaba(world, 2)
    world.fs.pipe_file(f"{world.bucket}/ali/reaper/audit", b"a file where the folder goes")
    result = world.reap()
    assert result.exit_code == 1, result.output
    assert "ali: report - the audit could not be written; not destroyed" in result.output
    assert world.destroyed() == []
    lines = audit_lines(world.audit)   # the local log has the refusal and why
    assert lines[-1]["action"] == "report" and "audit_error" in lines[-1]["evidence"]


# -- 6. a node that turns busy during the export --------------------------------------------

def test_a_node_busy_during_the_export_is_scaled_back_and_the_run_fails(world):
    path = alibaba(world, 3)
    busy = world.tmp / "busy.json"
    busy.write_text(json.dumps(beat("node-1", 0)))
    # The export runs while a job starts on node-1 (its report lands in the bucket meanwhile).
    world.stacks["ali"]["outputs"]["filesystem_export_command"] = \
        f"cp {busy} {world.bucket}/ali/heartbeats/node-1.json"
    write_stacks(world.tmp / "stacks.json", world.stacks)
    result = world.reap()
    assert result.exit_code == 1, result.output
    assert "ali: keep - turned busy after the export (node-1)" in result.output
    assert "group scaled back to 3" in result.output and "ALARM" in result.output
    assert world.destroyed() == []
    assert {i["Status"] for i in json.loads(path.read_text())} == {"Running"}


# -- 7. a failed `config set` after a destroy that succeeded --------------------------------

def test_a_failed_config_set_after_the_destroy_is_not_a_failed_destroy(world):
    world.mp.setenv("PULUMI_BACKEND_URL", f"file://{world.tmp}/state")
    world.mp.setenv("FAKE_PULUMI_CONFIG_FAIL", "1")
    alibaba(world, 2)
    result = world.reap()
    assert result.exit_code == 0, result.output
    assert "ali: destroy - every node idle past the grace period [destroyed; bucket kept]" \
        in result.output
    # The record the next `up` takes the bucket back from, beside the backend's state.
    record = world.tmp / "state" / ".pulumi" / "trainstack-adopt" / "trainstack" / "ali.json"
    assert json.loads(record.read_text()) == {"llm-finetune-data": "llm-finetune-data-a1b2"}
    assert "pulumi config set" in audit_lines(world.audit)[-1]["evidence"]["adopt_record"]


def test_a_destroy_whose_adopt_record_is_written_nowhere_alarms(world):
    world.mp.setenv("PULUMI_BACKEND_URL", "https://api.pulumi.com")   # no copy beside it
    world.mp.setenv("PULUMI_ACCESS_TOKEN", "pul-test")
    world.mp.setenv("FAKE_PULUMI_CONFIG_FAIL", "1")
    alibaba(world, 2)
    result = world.reap()
    assert result.exit_code == 1, result.output
    assert "adopt record was not written anywhere" in result.output
    assert "pulumi config set --stack ali trainstack:adopt" in result.output


# -- 8. a report that cannot be a span of idleness is unknown --------------------------------

@pytest.mark.parametrize("idle_for", [float("nan"), float("inf"), -60.0, True, "7200"])
def test_an_idle_for_seconds_that_is_no_span_is_unknown_never_idle(world, idle_for):
    alibaba(world, 2)
    odd = {**beat("node-1", 180), "idle_for_seconds": idle_for}
    put_beats(world.fs, f"{world.bucket}/ali/heartbeats", odd)   # json writes NaN, Infinity
    result = world.reap()
    assert result.exit_code == 1, result.output
    assert "ali: report - members without a fresh idle report (unknown, never idle): node-1" \
        in result.output
    assert world.destroyed() == []


# -- 9. the workflow's time limit: TERM stops the export and gives the lease back ------------

def test_term_mid_export_stops_the_export_and_releases_the_lease(world, tmp_path):
    import signal
    import subprocess
    import sys
    import time

    from tests.checkout import PYTHONPATH as CHECKOUT_PATH
    from tests.conftest import ROOT
    alibaba(world, 2)
    pid_file = tmp_path / "export.pid"
    world.stacks["ali"]["outputs"]["filesystem_export_command"] = \
        f"sleep 600 & echo $! > {pid_file}; wait"
    write_stacks(world.tmp / "stacks.json", world.stacks)
    reaper = subprocess.Popen(
        [sys.executable, "-m", "trainstack", "reap", "--yes", "--audit-log", str(world.audit)],
        env={**os.environ, "PYTHONPATH": CHECKOUT_PATH}, cwd=ROOT, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, text=True)
    deadline = time.monotonic() + 120
    while not (pid_file.exists() and pid_file.read_text().strip()):
        assert time.monotonic() < deadline and reaper.poll() is None, reaper.stdout.read()
        time.sleep(0.2)
    export = int(pid_file.read_text())
    reaper.send_signal(signal.SIGTERM)          # what `timeout` sends at the per-stack limit
    out = reaper.communicate(timeout=60)[0]
    assert reaper.returncode == 1, out
    assert "ali: report - stopped by TERM (the time limit) mid-reap" in out
    def running(pid):   # a killed child whose parent died may linger as a zombie: not running
        try:
            return open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0] != "Z"
        except OSError:
            return False
    deadline = time.monotonic() + 20
    while running(export) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not running(export)                   # the export it started is stopped
    assert world.lease("ali").current()["released"] is True
    assert world.destroyed() == []
    assert audit_lines(world.audit)[-1]["alarm"] == "stopped by TERM"


def test_an_unknown_stack_is_a_clear_line_and_exit_2(world):
    alibaba(world, 2)
    result = world.reap("--stack", "no-such")
    assert result.exit_code == 2, result.output
    assert "--stack no-such: the backend has no stack of that name" in result.output


def test_reported_twice_in_a_row_fires_with_one_stack_per_call(world):
    """The workflow calls the reaper once per stack: "the previous run" is the previous call
    that judged THIS stack, not the last call of all (the old code never fired)."""
    alibaba(world, 2)
    world.stacks["ali"]["update_in_progress"] = True    # a report without an alarm of its own
    world.add("other", marked(cloud="alicloud", retained=False))
    first = world.reap("--stack", "ali")
    assert first.exit_code == 0 and "ali: report - an update holds the stack lock" in first.output
    assert world.reap("--stack", "other").exit_code == 0     # another stack's call between
    second = world.reap("--stack", "ali")
    assert second.exit_code == 1, second.output
    assert "ALARM: reported on the previous run too: needs a person" in second.output


# -- 10. a node resuming during `pulumi destroy` leaves a trace in the audit -----------------

def test_a_node_resuming_during_the_destroy_is_named_in_the_audit_and_alarms(world):
    alibaba(world, 2)
    booting = world.tmp / "booting.json"
    booting.write_text(json.dumps(beat("node-0", 0, reasons=["booting for 1 min"])))
    world.mp.setenv("FAKE_PULUMI_DURING_DESTROY",
                    f"cp {booting} {world.bucket}/ali/heartbeats/node-0.json")
    result = world.reap()
    assert result.exit_code == 1, result.output
    assert "reports during the destroy from node-0" in result.output
    last = audit_lines(world.audit)[-1]
    assert last["evidence"]["reports_during_destroy"] == {"node-0": "busy"}
    assert last["alarm"] == "a node resumed during the destroy"


# -- the fresh review (issue 34's last paragraph) --------------------------------------------

def test_a_node_started_between_the_check_and_the_scale_down_is_not_cut_nor_destroyed(world):
    """Two idle nodes judged, a third (stopped, so no member) started by a person just before
    the scale-down reads the instances: it is booting, never judged. The old code stopped it
    with the others, saw the judged nodes idle and destroyed the stack, exit 0."""
    path = alibaba(world, 3)
    instances = json.loads(path.read_text())
    instances[2]["Status"] = "Stopped"
    path.write_text(json.dumps(instances))
    # DescribeInstances: 1 the first look, 2 the re-check after the lock, 3 the scale-down.
    world.mp.setenv("FAKE_ALIYUN_STARTING", json.dumps({"call": 3, "id": "i-0002"}))
    result = world.reap()
    assert world.destroyed() == [], result.output
    assert result.exit_code == 1 and "node-2" in result.output, result.output
    stops = [c for c in map(json.loads, open(f"{path}.calls")) if c[:2] == ["ecs", "StopInstances"]]
    assert stops == []                       # nothing was stopped: the booting node runs on
    assert {i["Status"] for i in json.loads(path.read_text())} == {"Running", "Starting"}


def test_every_clouds_scale_down_refuses_a_node_that_was_not_judged(tmp_path, monkeypatch):
    """The same check in each cloud's scale-down, before anything is scaled: an instance not
    judged (AWS, GCP, Azure), or a group that wants more nodes than were judged (one still
    launching: AWS DesiredCapacity, GCP targetSize, Azure capacity)."""
    from trainstack.reap.cloud import AwsGroup, AzureScaleSet, GcpGroup, NotJudged

    class Autoscaling:
        updated: list = []

        def __init__(self, desired, instances):
            self.desired, self.instances = desired, instances

        def describe_auto_scaling_groups(self, AutoScalingGroupNames):
            return {"AutoScalingGroups": [{
                "AutoScalingGroupName": AutoScalingGroupNames[0], "DesiredCapacity": self.desired,
                "Instances": [{"InstanceId": i, "LifecycleState": "InService"}
                              for i in self.instances]}]}

        def update_auto_scaling_group(self, **change):
            self.updated.append(change)
    outputs = {"node_group": "g", "region": "r"}
    for desired, instances in ((3, ["i-1", "i-2"]), (3, ["i-1", "i-2", "i-3"])):
        client = Autoscaling(desired, instances)
        with pytest.raises(NotJudged):
            AwsGroup(lambda region: client).scale(outputs, 0, expected=["i-1", "i-2"])
        assert client.updated == []
    client = Autoscaling(2, ["i-1", "i-2"])
    assert AwsGroup(lambda region: client).scale(outputs, 0, expected=["i-1", "i-2"]) == 2
    assert client.updated == [{"AutoScalingGroupName": "g", "DesiredCapacity": 0, "MinSize": 0}]

    calls = tmp_path / "calls"
    (tmp_path / "bin").mkdir()
    stand_in_cli(tmp_path / "bin", "gcloud", f'#!/bin/sh\necho "$@" >> {calls}\n'
                 'case "$*" in *"instances list"*) echo \'[{"name": "a", "creationTimestamp": '
                 '"2026-01-01T00:00:00Z"}, {"name": "new", "creationTimestamp": '
                 '"2026-01-01T00:00:00Z"}]\';; '
                 '*list-instances*) echo \'[{"instance": "z/instances/a"}, '
                 '{"instance": "z/instances/new"}]\';; *describe*) echo \'{"targetSize": 2}\';; '
                 'esac\n')
    stand_in_cli(tmp_path / "bin", "az", f'#!/bin/sh\necho "$@" >> {calls}\n'
                 'case "$*" in *list-instances*) echo \'[{"name": "vm_0", "timeCreated": '
                 '"2026-01-01T00:00:00Z"}]\';; *show*) echo 2;; esac\n')
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}:{os.environ['PATH']}")
    with pytest.raises(NotJudged, match="new joined"):
        GcpGroup().scale({"node_group": "g", "zone": "z", "project": "p"}, 0, expected=["a"])
    with pytest.raises(NotJudged, match="wants 2 nodes but 1 were judged"):
        AzureScaleSet().scale({"resource_group": "rg", "scale_set": "vmss"}, 0, expected=["vm_0"])
    assert "resize" not in calls.read_text() and " scale " not in calls.read_text()


@pytest.mark.parametrize("idle_minutes", [-30, True, 0.5, 1e9, "NaN"])
def test_a_marker_whose_grace_period_the_spec_never_allows_is_reported_not_trusted(
        world, idle_minutes):
    """The marker's `idle_minutes` is the spec's idle.teardown_after_minutes, 5 to 10080
    (components/spec.py). One outside that (a hand-edited or foreign stack output) is no grace
    period: with -30 (or true, read as 1) the old code took a node idle for 2 min as idle
    past its grace and destroyed the stack, exit 0."""
    stand_in_cli(world.bin, "aliyun", ALIYUN)
    path = world.tmp / "instances.json"
    path.write_text(json.dumps([{"InstanceId": "i-0000", "HostName": "node-0",
                                 "Status": "Running"}]))
    world.mp.setenv("FAKE_ALIYUN_INSTANCES", str(path))
    outputs = marked(cloud="alicloud", idle_minutes=idle_minutes, heartbeat_url=world.root("ali"),
                     node_group="pg-1", node_ids=["i-0000"], region="cn-hangzhou",
                     filesystem_export_command="true")
    world.add("ali", outputs, beat("node-0", 2))
    result = world.reap()
    assert world.destroyed() == [], result.output
    assert result.exit_code == 1 and "idle_minutes" in result.output, result.output


@pytest.mark.parametrize("store", ["oss"], indirect=True)
def test_oss_keys_renewed_during_a_long_export_are_used_after_it(store_world, oss_server):
    """The workflow's STS keys last 1 h (AssumeRoleWithOIDC's default); an export may take 3.
    The keys in TRAINSTACK_OSS_STS_FILE are renewed while the export runs and the old ones
    expire: the export record, the audit, the destroy and the lease's release go on with the
    new ones (the old code signed with the keys of the run's start: refused, not destroyed)."""
    world = store_world
    alibaba(world, 2)                      # the heartbeats, written with the fixture's own key
    sts, current = world.tmp / "sts.json", world.tmp / "current-keys.json"

    def keys(n):
        return json.dumps({"AccessKeyId": f"STS.k{n}", "AccessKeySecret": f"s{n}",
                           "SecurityToken": f"t{n}"})
    sts.write_text(keys(1))
    current.write_text('["STS.k1"]')
    oss_server.state.keys_file = current
    world.mp.setenv("TRAINSTACK_OSS_STS_FILE", str(sts))
    for var, value in (("ID", "STS.k1"), ("SECRET", "s1"), ("TOKEN", "t1")):
        world.mp.setenv({"ID": "ALIBABA_CLOUD_ACCESS_KEY_ID", "SECRET":
                         "ALIBABA_CLOUD_ACCESS_KEY_SECRET", "TOKEN":
                         "ALIBABA_CLOUD_SECURITY_TOKEN"}[var], value)
    outputs = dict(world.stacks["ali"]["outputs"])
    # The export: the keys are renewed (the workflow's refresh) and the old ones expire.
    outputs["filesystem_export_command"] = (f"printf '%s' '{keys(2)}' > {sts}.new && "
                                            f"mv {sts}.new {sts} && printf '%s' '[\"STS.k2\"]' "
                                            f"> {current}")
    world.stacks["ali"]["outputs"] = outputs
    from tests.reap_helpers import write_stacks
    write_stacks(world.tmp / "stacks.json", world.stacks)
    try:
        result = world.reap()
    finally:
        oss_server.state.keys_file = None
    assert result.exit_code == 0, result.output
    assert world.destroyed() == ["ali"]
    assert current.read_text() == '["STS.k2"]'          # the export did renew them
    assert world.lease("ali").current()["released"] is True


def test_scaling_back_starts_only_the_nodes_the_reaper_stopped(world):
    """A node a person had stopped (no member, not judged) stays stopped when a busy node
    makes the reaper scale back; the old code started every node id of the stack."""
    path = alibaba(world, 3)
    instances = json.loads(path.read_text())
    instances[2]["Status"] = "Stopped"
    path.write_text(json.dumps(instances))
    busy = world.tmp / "busy.json"
    busy.write_text(json.dumps(beat("node-1", 0)))
    world.stacks["ali"]["outputs"]["filesystem_export_command"] = \
        f"cp {busy} {world.bucket}/ali/heartbeats/node-1.json"
    write_stacks(world.tmp / "stacks.json", world.stacks)
    result = world.reap()
    assert result.exit_code == 1 and "group scaled back to 2" in result.output, result.output
    assert world.destroyed() == []
    assert [i["Status"] for i in json.loads(path.read_text())] == ["Running", "Running", "Stopped"]
