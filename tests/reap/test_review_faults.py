"""Issue 34's closing fault-injection review: faults no other reap test injects, each through the
real CLI (`trainstack reap`, the typer app in this process; a `python -m trainstack reap` process
where the process is what is killed) with the stand-in `pulumi`, `gcloud` and `aliyun` on PATH,
each a process of its own (some wrapped here to inject the fault) and heartbeats in a file:// bucket (the
`world` of tests/reap/test_reap_under_faults.py); the idle agent's own faults run the agent as its
timer does (the `node` of tests/components/test_idle_agent.py).

A finding is marked xfail(strict=True, reason="review finding: ..."): it fails on today's code and
turns the run red once the code is fixed (then drop the mark). "weaker review finding" marks a
wrong message, a needless step or a design margin, not a destroy or a silent exit 0. Every test
without a mark is a fault tried that the reaper survives."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import traceback

import pytest
from typer.testing import CliRunner

from tests.checkout import PYTHONPATH as CHECKOUT_PATH
from tests.components.test_idle_agent import node  # noqa: F401 (fixture: the agent on a node)
from tests.conftest import ROOT, stand_in_cli
from tests.reap.test_reap_faults import GCLOUD
from tests.reap.test_reap_under_faults import alibaba, audit_lines, world  # noqa: F401 (fixture)
from tests.reap_helpers import beat, marked, put_beats, write_stacks
from trainstack.cli.app import app


class Run:
    def __init__(self, exit_code: int, output: str):
        self.exit_code, self.output = exit_code, output


def reap(world, *extra, **env) -> Run:
    """`trainstack reap --yes` as the workflow runs it, from the checkout's root, the stand-ins
    on PATH and `env` set for them (the wrappers read their fault from it): the typer app in
    this process, as tests/reap/test_reap_under_faults.py runs it. Every `pulumi`, `gcloud` and
    `aliyun` it calls is still a process of its own; a reaper process of its own is started
    only where the process is the fault (a SIGKILL: test_a_reaper_sigkilled_mid_export_is_
    taken_over_after_its_lease here; tests/reap/test_reap_faults.py, test_reap_interrupted.py):
    each `python -m trainstack` costs 0.4 CPU s of imports (the Pulumi SDK, typer), 39 runs
    here. An exception out of the command ends the run as it would the process: exit 1, its
    traceback in the output."""
    with pytest.MonkeyPatch.context() as mp:
        for name, value in env.items():
            mp.setenv(name, value)
        mp.chdir(ROOT)
        done = CliRunner().invoke(app, ["reap", "--yes", "--audit-log", str(world.audit), *extra])
    output = done.output
    if done.exception is not None and not isinstance(done.exception, SystemExit):
        output += "".join(traceback.format_exception(done.exception))
    return Run(done.exit_code, output)


def gcp(world, members, **outputs):
    """A GCP stack `g` whose managed instance group the stand-in `gcloud` answers for."""
    stand_in_cli(world.bin, "gcloud", GCLOUD)
    path = world.tmp / "members.json"
    path.write_text(json.dumps(members))
    world.mp.setenv("FAKE_GCLOUD_MEMBERS", str(path))
    outputs = {"filesystem_export_command": "true", **outputs}
    world.add("g", marked(cloud="gcp", heartbeat_url=world.root("g"), node_group="mig",
                          zone="z", project="p", **outputs),
              *[beat(n, 180) for n in members])
    return path


# -- 1. an empty member listing: the reports are read all the same ---------------------------

def test_a_busy_node_the_listing_misses_keeps_a_stack_with_no_members(world):
    """Alibaba's members are the stack's `node_ids` output: an `up` that replaced every node and
    then failed kept the old ids, which ECS no longer has. The new node-1 runs a job and reports
    busy every minute. judge() calls such a report busy for the stack ("a machine the membership
    does not show may run a job on the filesystem"), and the first look reads the reports with
    no member left too: kept there, before any lease or scale-down (once it was seen only at
    the re-check after the scale-down)."""
    path = alibaba(world, 2, busy=(1,))
    world.stacks["ali"]["outputs"]["node_ids"] = ["i-0900", "i-0901"]   # replaced since
    write_stacks(world.tmp / "stacks.json", world.stacks)
    result = reap(world)
    assert result.exit_code == 0 and world.destroyed() == [], result.output
    assert "ali: keep - busy within the grace period: node-1" in result.output
    assert {i["Status"] for i in json.loads(path.read_text())} == {"Running"}


def test_a_busy_instance_abandoned_from_an_empty_group_keeps_the_stack(world):
    """GCP: an instance abandoned from the MIG keeps running its job on the stack's Lustre
    (abandon-instances takes it out of the group, not off the filesystem), and the group is now
    empty. Its busy report is fresh, and the first look reads it: kept, nothing scaled."""
    gcp(world, [])
    put_beats(world.fs, f"{world.bucket}/g/heartbeats", beat("node-7", 0))
    result = reap(world)
    assert result.exit_code == 0 and world.destroyed() == [], result.output
    assert [d["action"] for d in audit_lines(world.audit)] == ["keep"]   # nothing scaled
    assert "g: keep - busy within the grace period: node-7" in result.output


def test_a_busy_non_member_beside_an_idle_member_keeps_the_stack(world):
    """With one member left the same report is read and kept (as it is with none, above)."""
    gcp(world, ["node-0"])
    put_beats(world.fs, f"{world.bucket}/g/heartbeats", beat("node-7", 0))
    result = reap(world)
    assert result.exit_code == 0 and world.destroyed() == [], result.output
    assert "g: keep - busy within the grace period: node-7" in result.output


# -- 2. what `pulumi stack output` answers ----------------------------------------------------

PULUMI_WRAPPER = f"""#!{sys.executable} -S
import os, sys
args = [a for a in sys.argv[1:] if a != "--non-interactive"]
fault = os.environ.get("REVIEW_STACK_OUTPUT")
if fault and args[:2] == ["stack", "output"]:
    if fault == "fail":
        print("error: failed to decrypt the stack's secrets: incorrect passphrase", file=sys.stderr)
        sys.exit(255)
    print(fault)        # anything else: printed as the answer (invalid JSON, a list ...)
    sys.exit(0)
real = os.path.join(os.path.dirname(os.path.abspath(__file__)), "pulumi-real")
os.execv(real, [real, *sys.argv[1:]])
"""


def faulty_stack_output(world):
    """The stand-in `pulumi`, with `stack output` answering REVIEW_STACK_OUTPUT when set."""
    os.replace(world.bin / "pulumi", world.bin / "pulumi-real")
    stand_in_cli(world.bin, "pulumi", PULUMI_WRAPPER)


@pytest.mark.parametrize("answer", ["fail", "{not json"])
def test_stack_outputs_that_cannot_be_read_fail_the_run(world, answer):
    """A stack with 27 resources whose outputs cannot be read (a wrong passphrase, a torn
    answer): its members, reports and bill are unknown, as when its group cannot be listed
    ('group members unreadable' alarms). The run must not exit 0."""
    gcp(world, ["node-0"])
    put_beats(world.fs, f"{world.bucket}/g/heartbeats", beat("node-0", 0))   # busy, unseen
    faulty_stack_output(world)
    result = reap(world, REVIEW_STACK_OUTPUT=answer)
    assert world.destroyed() == [], result.output
    assert result.exit_code != 0, result.output


# -- 3. the audit log that makes "reported twice in a row" fire -------------------------------

def unretained(world):
    """A stack the reaper reports (never decides) every run: its bucket is not retained."""
    gcp(world, ["node-0"], **{})
    world.stacks["g"]["outputs"]["trainstack_marker"]["bucket_retained"] = False
    write_stacks(world.tmp / "stacks.json", world.stacks)


def test_a_stack_reported_on_two_runs_fails_the_second(world):
    """Control: the rule works with a whole audit log."""
    unretained(world)
    first, second = reap(world), reap(world)
    assert first.exit_code == 0 and "g: report - the bucket would be deleted" in first.output
    assert second.exit_code == 1 and "reported on the previous run too" in second.output


def test_a_torn_audit_line_does_not_silence_reported_twice_in_a_row(world):
    """The workflow keeps reap-audit.jsonl between runs (actions/cache) and appends to it; a
    reaper killed by `timeout --kill-after` while appending a long line (evidence for 150
    nodes is far more than one 8 KiB buffer) leaves half a line. From then on no stack is ever
    'reported on the previous run too': a stack the reaper cannot judge bills for ever, every
    run exit 0."""
    unretained(world)
    first = reap(world)
    assert first.exit_code == 0, first.output
    with world.audit.open("a") as log:
        log.write('{"action": "destroying", "evidence": {"nodes": {"node-0": {"sta')   # torn
    second = reap(world)
    assert second.exit_code == 1 and "reported on the previous run too" in second.output, \
        second.output
    # The torn line was ended before the second run's own line: a third run still reads it.
    third = reap(world)
    assert third.exit_code == 1 and "reported on the previous run too" in third.output, \
        third.output
    unreadable = []
    for line in world.audit.read_text().splitlines():
        try:
            json.loads(line)
        except ValueError:
            unreadable.append(line)
    assert unreadable == ['{"action": "destroying", "evidence": {"nodes": {"node-0": {"sta']


# -- 4. a person's `trainstack up` while the reaper exports -------------------------------------

UP_DURING_EXPORT = """import json, os, sys
from datetime import datetime, timezone
path = os.environ["FAKE_PULUMI_STACKS"]
stacks = json.load(open(path))
entry = stacks["g"]
if sys.argv[1] == "done":       # an `up` that finished while the export ran
    entry.setdefault("updates", []).append(
        datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.000Z"))
else:                           # an `up` still running (it holds the stack's lock)
    entry["update_in_progress"] = True
    entry["locked_by"] = "alice@laptop: pulumi up (pid 4242)"
json.dump(stacks, open(path, "w"))
"""


def up_during_export(world, how):
    script = world.tmp / "up_during_export.py"
    script.write_text(UP_DURING_EXPORT)
    gcp(world, ["node-0", "node-1"],
        filesystem_export_command=f"{sys.executable} {script} {how}")


def test_a_stack_brought_up_during_the_export_is_not_destroyed(world):
    """alice runs `trainstack up` while the reaper exports (the group at 0 by then: Pulumi sees
    no change, so her `up` succeeds in seconds and starts no node). By the reaper's own rule a
    stack updated within the grace period is booting and kept; the re-check after the export
    does not look, and the stack she just brought up is destroyed, exit 0."""
    up_during_export(world, "done")
    result = reap(world)
    assert world.destroyed() == [], result.output
    assert result.exit_code != 0, result.output


def test_an_up_begun_during_the_export_gets_its_group_back_or_fails_the_run(world):
    """The same `up`, still running when the reaper reaches `pulumi destroy`: the destroy is
    refused by the lock. The reaper reports 'the stack is locked by an update' and exits 0; the
    group it scaled to 0 stays at 0 (her `up` changes nothing Pulumi does not see drift in), so
    the cluster she is bringing up has no nodes, and nobody is told."""
    up_during_export(world, "running")
    path = world.tmp / "members.json"
    result = reap(world)
    assert "g: report - the stack is locked by an update" in result.output
    assert not json.loads((world.tmp / "stacks.json").read_text())["g"].get("destroyed")
    scaled_back = json.loads(path.read_text()) == ["node-0", "node-1"]
    assert scaled_back or result.exit_code != 0, result.output


LOCK_DURING_DESTROY = """import json, os
path = os.environ["FAKE_PULUMI_STACKS"]
stacks = json.load(open(path))
stacks["g"]["locked_by"] = "alice@laptop: pulumi up (pid 4242)"
json.dump(stacks, open(path, "w"))
"""


def test_an_up_that_takes_the_lock_as_the_destroy_starts_gets_its_group_back(world):
    """alice's `up` takes the stack's lock after the reaper's last re-check, as its `pulumi
    destroy` starts: the destroy is refused by the lock; the group the reaper scaled to 0 is
    scaled back to its 2 nodes and the run alarms (exit 1)."""
    script = world.tmp / "lock.py"
    script.write_text(LOCK_DURING_DESTROY)
    gcp(world, ["node-0", "node-1"])
    world.mp.setenv("FAKE_PULUMI_DURING_DESTROY", f"{sys.executable} {script}")
    result = reap(world)
    assert not json.loads((world.tmp / "stacks.json").read_text())["g"].get("destroyed")
    assert result.exit_code == 1, result.output      # `pulumi destroy` ran, and was refused
    assert "g: report - the stack is locked by an update" in result.output
    # (the stand-in gcloud forgets the members at 0, so the resize is seen in the result)
    assert "group scaled back to 2" in result.output


UNRETAIN_DURING_EXPORT = """import json, os
path = os.environ["FAKE_PULUMI_STACKS"]
stacks = json.load(open(path))
for resource in stacks["g"]["state"]["resources"]:
    resource.pop("retainOnDelete", None)
json.dump(stacks, open(path, "w"))
"""


def test_a_bucket_the_state_stops_retaining_during_the_export_is_never_destroyed(world):
    """The state kept the bucket at the first look, and no longer does when `pulumi destroy`
    is about to run (a state edited by hand meanwhile: no update in the history): the state is
    read again just before the destroy, and the stack is not destroyed (exit 1, never 'bucket
    kept'); the group stays at 0 with the export in the bucket."""
    script = world.tmp / "unretain.py"
    script.write_text(UNRETAIN_DURING_EXPORT)
    gcp(world, ["node-0"], filesystem_export_command=f"{sys.executable} {script}")
    world.stacks["g"]["state"] = {"resources": [
        {"urn": "urn:pulumi:g::trainstack::trainstack:GpuCluster$gcp:storage/bucket:Bucket::"
                "llm-finetune-data", "custom": True, "id": "llm-finetune-data-a1b2",
         "type": "gcp:storage/bucket:Bucket", "retainOnDelete": True}]}
    write_stacks(world.tmp / "stacks.json", world.stacks)
    result = reap(world)
    assert world.destroyed() == [] and result.exit_code == 1, result.output
    assert "bucket kept" not in result.output
    assert "would delete the bucket" in result.output and "group stays at 0" in result.output


# -- 5. a GCP instance resumed from suspension ------------------------------------------------

def gcp_times(world, **node_a):
    """A MIG of node-a and node-b (action over: NONE), both created 5 h ago and reporting idle
    for 180 min; node-a's instance carries `node_a` too (what `gcloud compute instances list`
    prints: RFC 3339 with an offset)."""
    from tests.reap.test_reap_booting import gcloud
    gcloud(world, 300, **node_a)


def written_ago(world, name, node, minutes):
    from datetime import datetime, timedelta, timezone
    moment = (datetime.now(timezone.utc) - timedelta(minutes=minutes)).timestamp()
    os.utime(f"{world.bucket}/{name}/heartbeats/{node}.json", (moment, moment))


def test_a_gcp_instance_resumed_after_its_idle_report_keeps_the_stack(world):
    """node-a was suspended 6 min ago (a person's `gcloud compute instances suspend`, or a
    MIG's suspended standby pool) and has been resumed since (the MIG lists it, action NONE) by
    a person who means to use it; its last report (idle for 180 min) was written 7 min ago,
    fresh by the store. The compute v1 Instance has creationTimestamp, lastStartTimestamp,
    lastStopTimestamp and lastSuspendedTimestamp (no resume time); a running instance suspended
    after its report was written has been resumed since, so the report is its previous run's:
    unknown, never idle, as the restart and recreate cases already are. (Whether a resume moves
    lastStartTimestamp is not documented (the reference says "Last start timestamp in RFC3339
    text format"); the reaper takes the later of the two as the start, the safe side either
    way.)"""
    gcp_times(world, lastSuspendedTimestamp=6)
    written_ago(world, "g", "node-a", 7)
    result = reap(world)
    assert world.destroyed() == [], result.output
    assert result.exit_code == 1, result.output


def test_a_gcp_instance_started_after_its_idle_report_keeps_the_stack(world):
    """Control: the same with lastStartTimestamp 2 min ago (a stop and start) is unknown."""
    gcp_times(world, lastStartTimestamp=2)
    written_ago(world, "g", "node-a", 7)
    result = reap(world)
    assert world.destroyed() == [] and result.exit_code == 1, result.output
    assert "before the node's last start" in result.output or "unknown" in result.output


# -- 6. what Alibaba's export reaches ---------------------------------------------------------

def test_alibaba_files_outside_the_exported_fileset_stop_the_destroy(world):
    """The AWS twin (files outside the data repository association's path) stops at 0 nodes
    unless --delete-unexported (tests/reap/test_reap_unexported.py). On Alibaba the same stack
    outputs say what is exported (filesystem_bucket_path /bucket/), yet the reaper destroys
    the CPFS with its checkpoints under /checkpoints and says nothing of them."""
    alibaba(world, 2)
    world.stacks["ali"]["outputs"].update(filesystem_bucket_path="/bucket/")
    world.stacks["ali"]["outputs"].pop("filesystem_node_path")   # a stack from before: "/"
    write_stacks(world.tmp / "stacks.json", world.stacks)
    result = reap(world)
    assert world.destroyed() == [], result.output
    assert result.exit_code == 1 and "/bucket" in result.output, result.output


def test_an_alibaba_stack_whose_nodes_mount_only_the_fileset_is_exported_and_destroyed(world):
    """The stack as trainstack plans it now: the nodes mount the exported fileset itself (the
    plan's own outputs), so everything they wrote is in the data flow's reach."""
    from tests.alicloud.test_alicloud_boot import shape_plan
    outputs = shape_plan("scc").outputs
    assert outputs["filesystem_node_path"] == outputs["filesystem_bucket_path"] == "/bucket/"
    alibaba(world, 2)
    world.stacks["ali"]["outputs"].update(
        filesystem_bucket_path=outputs["filesystem_bucket_path"],
        filesystem_node_path=outputs["filesystem_node_path"])
    write_stacks(world.tmp / "stacks.json", world.stacks)
    result = reap(world)
    assert result.exit_code == 0 and world.destroyed() == ["ali"], result.output


# -- faults tried that the reaper survives (each a passing test) ------------------------------

ALIYUN_PAGE_FAULT = f"""#!{sys.executable} -S
import json, os, sys
args = sys.argv[1:]
if args[:2] == ["ecs", "DescribeInstances"]:
    # The service answers 10 a page whatever PageSize asks (the reaper must follow TotalCount),
    # and page 2 is throttled or comes back empty.
    args[args.index("--PageSize") + 1] = "10"
    if args[args.index("--PageNumber") + 1] == "2":
        if os.environ["REVIEW_PAGE_2"] == "fail":
            print("ERROR: SDK.ServerError\\nErrorCode: Throttling\\nMessage: Request was "
                  "denied due to request throttling.", file=sys.stderr)
            sys.exit(1)
        print(json.dumps({{"Instances": {{"Instance": []}}, "TotalCount": 30, "PageNumber": 2,
                          "PageSize": 10}}))
        sys.exit(0)
real = os.path.join(os.path.dirname(os.path.abspath(__file__)), "aliyun-real")
os.execv(real, [real, *args])
"""


@pytest.mark.parametrize("how", ["fail", "empty"])
def test_a_member_listing_whose_second_page_fails_is_a_report_not_idle(world, how):
    """30 Alibaba nodes, node-25 busy; DescribeInstances answers 10 a page, and its second page
    is throttled or comes back empty while TotalCount says 30: the members are unknown (never
    the first page's 10), nothing stopped or destroyed, exit 1."""
    from tests.reap_helpers import ALIYUN
    path = alibaba(world, 30, busy=(25,))
    stand_in_cli(world.bin, "aliyun-real", ALIYUN)
    stand_in_cli(world.bin, "aliyun", ALIYUN_PAGE_FAULT)
    result = reap(world, REVIEW_PAGE_2=how)
    assert world.destroyed() == [] and result.exit_code == 1, result.output
    assert "ali: report - group members unreadable" in result.output
    assert {i["Status"] for i in json.loads(path.read_text())} == {"Running"}


NO_CREDENTIALS = f"""#!{sys.executable} -S
import sys
print("ERROR: (gcloud.compute.instance-groups.managed.list-instances) You do not currently "
      "have an active account selected.", file=sys.stderr)
sys.exit(1)
"""


def test_a_deployed_stack_without_cloud_credentials_fails_the_run(world):
    """The workflow's GCP login step skipped (its variables unset): gcloud answers as it does
    with no account. The stack is reported and the run exits 1, never a silent 0."""
    gcp(world, ["node-0"])
    stand_in_cli(world.bin, "gcloud", NO_CREDENTIALS)
    result = reap(world)
    assert world.destroyed() == [] and result.exit_code == 1, result.output
    assert "g: report - group members unreadable" in result.output


@pytest.mark.parametrize("missing", ["filesystem_export_command", "node_group", "bucket"])
def test_outputs_missing_a_key_the_reaper_needs_are_never_nothing_to_do(world, missing):
    """An idle GCP stack whose outputs lack the export command, the group, or any bucket to
    read heartbeats from: not destroyed, exit 1 (never 'nothing to export')."""
    gcp(world, ["node-0"])
    outputs = world.stacks["g"]["outputs"]
    for key in {"bucket": ("heartbeat_url", "bucket_name")}.get(missing, (missing,)):
        outputs.pop(key)
    write_stacks(world.tmp / "stacks.json", world.stacks)
    result = reap(world)
    assert world.destroyed() == [] and result.exit_code == 1, result.output


def test_a_report_written_in_the_future_by_the_stores_clock_is_unknown(world):
    """node-0's report carries a LastModified 30 min ahead (a store or a clock gone wrong):
    unknown, never idle, exit 1."""
    gcp(world, ["node-0"])
    written_ago(world, "g", "node-0", -30)
    result = reap(world)
    assert world.destroyed() == [] and result.exit_code == 1, result.output
    assert "ahead of the reaper's clock" in json.dumps(audit_lines(world.audit)[-1])


def test_a_heartbeat_of_another_stacks_node_is_not_a_member_of_this_one(world):
    """node-0 is g's member (idle); the same bucket prefix holds an idle report of 'node-9', a
    node of another stack sharing it: ignored, and g is reaped on its own member's report."""
    gcp(world, ["node-0"])
    put_beats(world.fs, f"{world.bucket}/g/heartbeats", beat("node-9", 180))
    result = reap(world)
    assert result.exit_code == 0 and world.destroyed() == ["g"], result.output
    assert audit_lines(world.audit)[-1]["evidence"]["ignored_non_members"] == ["node-9"]


def test_a_destroy_that_fails_half_way_fails_the_run_and_gives_the_lease_back(world):
    """pulumi destroy fails (a throttled DeleteFileSystem): exit 1, 'destroy failed', the lease
    released (the next run takes it at once, and destroys)."""
    gcp(world, ["node-0"])
    world.stacks["g"]["destroy_failures"] = 1
    write_stacks(world.tmp / "stacks.json", world.stacks)
    first = reap(world)
    assert first.exit_code == 1 and "destroy failed" in first.output, first.output
    assert world.lease("g").current().get("released") is True
    second = reap(world)
    assert "another reaper holds" not in second.output, second.output


HISTORY_WRAPPER = f"""#!{sys.executable} -S
import json, os, subprocess, sys
args = [a for a in sys.argv[1:] if a != "--non-interactive"]
real = os.path.join(os.path.dirname(os.path.abspath(__file__)), "pulumi-real")
at = os.environ.get("REVIEW_FAILED_DESTROY_AT")
if at and args[:2] == ["stack", "history"]:
    done = subprocess.run([real, *sys.argv[1:]], capture_output=True, text=True)
    entries = json.loads(done.stdout)
    # What the real CLI lists after a destroy that failed: an entry of kind "destroy".
    entries.insert(0, {{"version": len(entries) + 1, "kind": "destroy", "startTime": at,
                       "endTime": at, "message": "", "environment": {{}}, "config": {{}},
                       "result": "failed", "resourceChanges": {{"delete": 3}}}})
    print(json.dumps(entries))
    sys.exit(0)
os.execv(real, [real, *sys.argv[1:]])
"""


def test_the_run_after_a_failed_destroy_does_not_call_the_stack_young(world):
    from tests.reap_helpers import ago, history_time
    gcp(world, ["node-0"])
    world.stacks["g"]["destroy_failures"] = 1
    write_stacks(world.tmp / "stacks.json", world.stacks)
    first = reap(world)
    assert first.exit_code == 1 and "destroy failed" in first.output, first.output
    os.replace(world.bin / "pulumi", world.bin / "pulumi-real")
    stand_in_cli(world.bin, "pulumi", HISTORY_WRAPPER)
    world.stacks["g"]["destroy_failures"] = 1          # it fails again
    write_stacks(world.tmp / "stacks.json", world.stacks)
    second = reap(world, REVIEW_FAILED_DESTROY_AT=history_time(ago(2)))
    assert "younger than the idle grace period" not in second.output, second.output
    assert second.exit_code == 1, second.output


# -- 7. the marker says the bucket is kept; the state says otherwise --------------------------

def test_a_bucket_the_state_does_not_retain_is_never_destroyed(world):
    """alice set bucket.retain_on_destroy: false and ran `up`; the bucket's update went through
    (retainOnDelete off, force_destroy on) and the node group then hit a capacity error: the
    `up` failed and the stack's outputs are still the previous ones, marker bucket_retained:
    true. The reaper exports into that bucket and destroys the stack, bucket and export with
    it."""
    gcp(world, ["node-0"])
    urn = "urn:pulumi:g::trainstack::trainstack:GpuCluster$"
    world.stacks["g"]["state"] = {"resources": [
        {"urn": "urn:pulumi:g::trainstack::pulumi:providers:gcp::default", "custom": True,
         "id": "prov-1", "type": "pulumi:providers:gcp"},
        {"urn": urn + "gcp:storage/bucket:Bucket::llm-finetune-data", "custom": True,
         "id": "llm-finetune-data-a1b2", "type": "gcp:storage/bucket:Bucket",
         "inputs": {"forceDestroy": True}},                         # no retainOnDelete
        {"urn": urn + "gcp:compute/network:Network::llm-finetune-vpc", "custom": True,
         "id": "vpc-0abc", "type": "gcp:compute/network:Network"}]}
    write_stacks(world.tmp / "stacks.json", world.stacks)
    result = reap(world)
    assert world.destroyed() == [], result.output
    assert result.exit_code == 1, result.output


AZURE_SUB = "/subscriptions/0000/resourceGroups/trainstack-llm-dev-data"


def azure_state(group_kept=True, account_kept=True, container_kept=True):
    """The Azure data resources components/azure/cluster.py makes: a resource group of their
    own, the storage account in it, and the `data` container (the `bucket_name` output)."""
    account = AZURE_SUB + "/providers/Microsoft.Storage/storageAccounts/tsllmdev"
    return {"resources": [
        {"urn": "u::llm-data-rg", "custom": True, "id": AZURE_SUB, "retainOnDelete": group_kept,
         "type": "azure-native:resources:ResourceGroup"},
        {"urn": "u::llm-data", "custom": True, "id": account, "retainOnDelete": account_kept,
         "type": "azure-native:storage:StorageAccount"},
        {"urn": "u::llm-container", "custom": True, "retainOnDelete": container_kept,
         "id": account + "/blobServices/default/containers/data",
         "type": "azure-native:storage:BlobContainer"},
        {"urn": "u::llm-hsm-logs", "custom": True,   # not the data: deleted, as the code says
         "id": account + "/blobServices/default/containers/amlfs-logs",
         "type": "azure-native:storage:BlobContainer"},
        {"urn": "u::llm-rg", "custom": True, "type": "azure-native:resources:ResourceGroup",
         "id": "/subscriptions/0000/resourceGroups/trainstack-llm-dev"}]}


@pytest.mark.parametrize("dropped", ["group_kept", "account_kept", "container_kept"])
def test_an_azure_data_group_account_or_container_not_retained_is_named(dropped):
    """Deleting the data resource group deletes the account in it; deleting the `data`
    container deletes its blobs: each must be retained, the cluster's own group need not."""
    from trainstack.reap.reaper import unretained_buckets
    assert unretained_buckets(azure_state(), "data") == []
    lost = unretained_buckets(azure_state(**{dropped: False}), "data")
    assert len(lost) == 1 and "no retainOnDelete" in lost[0], lost


def test_a_state_holding_no_bucket_cannot_show_it_kept():
    from trainstack.reap.reaper import unretained_buckets
    assert unretained_buckets({"resources": []}, "data") != []


# -- 8. the idle agent on the node (components/agents/idle_agent.py, run as the timer runs it) --

def test_a_session_whose_idle_time_who_cannot_tell_is_not_idle(node):
    """alice is logged in on pts/3; `who -u` prints '?' for her idle time (coreutils: the tty
    could not be stat'ed). Whether she typed a minute ago is not known: never idle."""
    beat = node(who="alice    pts/3        2026-12-02 07:35   ?          4711 (10.0.0.7)\n")
    assert beat["state"] != "idle", beat


def test_gpu_memory_held_by_no_listed_process_is_not_idle(node):
    beat = node(gpus="0, 0, 71234, 81559\n1, 0, 70110, 81559\n", apps="")
    assert beat["state"] != "idle", beat
    # The driver's own few MiB on an idle card are no work: that node is idle.
    assert node(gpus="0, 0, 4, 81559\n1, 0, 4, 81559\n", apps="")["state"] == "idle"


# -- 9. a reaper killed mid-export, and a lease from a reaper whose clock ran ahead -------------

def test_a_reaper_sigkilled_mid_export_is_taken_over_after_its_lease(world):
    """The runner's `timeout --kill-after` KILLs the reaper while the export runs (the export,
    in its own session, is orphaned). Within the lease the next run stays away (a report);
    after it, the next run takes the lease over, exports again and destroys, exit 0."""
    import time
    began = world.tmp / "export-began"
    gcp(world, ["node-0"], filesystem_export_command=f"touch {began}; sleep 20")
    env = {**os.environ, "PYTHONPATH": CHECKOUT_PATH, "TRAINSTACK_REAP_LEASE_SECONDS": "12"}
    killed = subprocess.Popen(
        [sys.executable, "-m", "trainstack", "reap", "--yes", "--audit-log", str(world.audit)],
        env=env, cwd=ROOT, start_new_session=True, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, text=True)
    deadline = time.monotonic() + 90
    while not began.exists():
        assert time.monotonic() < deadline and killed.poll() is None, killed.stdout.read()
        time.sleep(0.2)
    killed.kill()               # the reaper alone: its export runs on in its own session
    killed_at = time.monotonic()
    killed.wait(10)
    assert [d["reason"] for d in audit_lines(world.audit)] == [
        "idle: scale to 0, export, destroy"]
    waiting = reap(world)
    assert "g: report - another reaper holds the stack's lock" in waiting.output, waiting.output
    time.sleep(max(0.0, killed_at + 13 - time.monotonic()))
    world.stacks["g"]["outputs"]["filesystem_export_command"] = "true"
    write_stacks(world.tmp / "stacks.json", world.stacks)
    done = reap(world)
    assert done.exit_code == 0 and world.destroyed() == ["g"], done.output
    assert audit_lines(world.audit)[-1]["evidence"]["expired_lock_taken_over"]["expires"]


def test_a_lease_written_by_a_reaper_whose_clock_ran_hours_ahead_blocks_and_then_alarms(world):
    """A lease version whose expiry lies 7 h ahead (its reaper's clock 3 h fast, lease 4 h):
    the stack is not touched, the first run reports it (exit 0), the second alarms (exit 1).
    (Weaker: an expiry beyond now + LEASE could be judged broken at once.)"""
    from datetime import datetime, timedelta, timezone

    from trainstack_components.lifetime import iso
    gcp(world, ["node-0"])
    lease = world.lease("g")
    future = datetime.now(timezone.utc) + timedelta(hours=3)
    lease.fs.makedirs(lease.path, exist_ok=True)
    lease.fs.pipe_file(f"{lease.path}/0000000001.json", json.dumps(
        {"holder": "fast-clock:1:abc", "token": "fast-clock:1:abc", "time": iso(future),
         "expires": iso(future + timedelta(hours=4))}).encode())
    first, second = reap(world), reap(world)
    assert world.destroyed() == [], second.output
    assert first.exit_code == 0 and "another reaper holds the stack's lock" in first.output
    assert second.exit_code == 1 and "reported on the previous run too" in second.output


# -- 10. the freshness window against the shortest grace period --------------------------------

def test_a_report_older_than_the_grace_period_does_not_prove_idleness(world):
    gcp(world, ["node-0"])
    world.stacks["g"]["outputs"]["trainstack_marker"]["idle_minutes"] = 5
    write_stacks(world.tmp / "stacks.json", world.stacks)
    put_beats(world.fs, f"{world.bucket}/g/heartbeats", beat("node-0", 6))
    written_ago(world, "g", "node-0", 9)
    result = reap(world)
    assert world.destroyed() == [], result.output
