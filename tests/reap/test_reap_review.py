"""Issue 34's fresh fault-injection review: faults the other reap tests do not inject, each
through the real CLI (`trainstack reap`) with the stand-in `pulumi` and `aliyun` (the `world` of
tests/reap/test_reap_under_faults.py)."""
from __future__ import annotations

import json
import os
from datetime import datetime, timedelta, timezone

import pytest

from tests.reap.test_reap_under_faults import alibaba, audit_lines, world  # noqa: F401 (fixture)


def stopped_node(world, with_fresh_idle_report: bool):
    """Three Alibaba nodes; node-2 is stopped (no member). Its report is either gone, or the
    fresh idle one its previous run wrote just before a person stopped it."""
    path = alibaba(world, 3)
    instances = json.loads(path.read_text())
    instances[2]["Status"] = "Stopped"
    path.write_text(json.dumps(instances))
    if not with_fresh_idle_report:
        world.fs.rm(f"{world.bucket}/ali/heartbeats/node-2.json")
    return path


def test_a_member_without_a_report_at_the_recheck_after_the_lock_fails_the_run(world):
    """node-2 is started by a person between the first look and the re-check after the lock
    (DescribeInstances call 2 sees it Running): a member with no report, billing unreported. It
    is not destroyed, and the run must not exit 0 (the first look's unknown member alarmed;
    the re-check's did not: exit 0)."""
    stopped_node(world, with_fresh_idle_report=False)
    world.mp.setenv("FAKE_ALIYUN_STARTING",
                    json.dumps({"call": 2, "id": "i-0002", "status": "Running"}))
    result = world.reap()
    assert world.destroyed() == [], result.output
    assert "ali: report - turned unknown after taking the lock (node-2)" in result.output
    assert result.exit_code == 1, result.output
    assert audit_lines(world.audit)[-1]["alarm"] == "billing without reports"


def test_a_starting_node_is_not_judged_on_its_previous_runs_idle_report(world):
    """A person stopped node-2 a few minutes ago and starts it again to run a job: while it
    boots (ECS Status Starting), its report in the bucket is the previous run's 'idle for 180
    min', still fresh by LastModified. The old code destroyed the booting node, exit 0."""
    stopped_node(world, with_fresh_idle_report=True)
    world.mp.setenv("FAKE_ALIYUN_STARTING", json.dumps({"call": 1, "id": "i-0002"}))
    result = world.reap()
    assert world.destroyed() == [], result.output
    assert "ali: keep - busy within the grace period: node-2" in result.output
    node = audit_lines(world.audit)[-1]["evidence"]["nodes"]["node-2"]
    assert node == {"state": "busy", "why": "booting (ECS status Starting)",
                    "written": node["written"]}


def test_a_restarted_node_whose_report_predates_its_start_is_unknown(world):
    """node-2 is Running again, started (StartTime, to the minute) two minutes ago; the only
    report in the bucket was written four minutes ago, before that start: fresh by
    LastModified, but its previous run's. Unknown, never idle: not destroyed, exit 1."""
    path = alibaba(world, 3)
    instances = json.loads(path.read_text())
    started = datetime.now(timezone.utc) - timedelta(minutes=2)
    instances[2]["StartTime"] = started.strftime("%Y-%m-%dT%H:%MZ")
    path.write_text(json.dumps(instances))
    before = (datetime.now(timezone.utc) - timedelta(minutes=4)).timestamp()
    os.utime(f"{world.bucket}/ali/heartbeats/node-2.json", (before, before))
    result = world.reap()
    assert world.destroyed() == [], result.output
    assert result.exit_code == 1, result.output
    assert "members without a fresh idle report (unknown, never idle): node-2" in result.output
    why = audit_lines(world.audit)[-1]["evidence"]["nodes"]["node-2"]["why"]
    assert "before the node's last start" in why, why


def test_a_report_written_after_the_start_is_believed(world):
    """The same node, its report written after the start: idle nodes are reaped as before."""
    path = alibaba(world, 3)
    instances = json.loads(path.read_text())
    instances[2]["StartTime"] = (datetime.now(timezone.utc) - timedelta(minutes=5)).strftime(
        "%Y-%m-%dT%H:%MZ")
    path.write_text(json.dumps(instances))
    result = world.reap()
    assert result.exit_code == 0 and world.destroyed() == ["ali"], result.output


def test_a_stack_with_resources_and_no_outputs_is_never_skipped_silently(world):
    """A first `up` that failed after creating nodes and a filesystem records no outputs: no
    marker. The old reaper called it "not a trainstack stack" and exited 0 on every run while
    it billed. A stack with outputs but no marker (another tool's) is still skipped."""
    world.add("half", {}, resources=27)
    world.add("other", {"url": "https://example.com"})
    result = world.reap()
    assert world.destroyed() == [], result.output
    assert "half: report - 27 resources and no outputs at all" in result.output
    assert "other: skip - not a trainstack stack" in result.output
    assert result.exit_code == 1, result.output
    logged = {d["stack"]: d for d in audit_lines(world.audit)}
    assert logged["half"]["alarm"] == "billing without a marker"
    assert logged["other"]["alarm"] == ""


def test_a_stack_never_deployed_is_skipped(world):
    world.add("empty", {}, resources=0)
    result = world.reap()
    assert result.exit_code == 0 and "empty: skip" in result.output, result.output


def test_a_busy_node_missing_from_stale_node_ids_keeps_the_stack(world):
    """Alibaba's members are the stack's `node_ids` output: an `up` that added node-3 and then
    failed kept the old outputs (node-0..2). node-3 runs a job and reports busy every minute;
    the old reaper ignored it as "not a member" and destroyed the stack under it."""
    path = alibaba(world, 3)
    instances = json.loads(path.read_text())
    instances.append({"InstanceId": "i-0003", "HostName": "node-3", "Status": "Running"})
    path.write_text(json.dumps(instances))     # ECS has it; node_ids (outputs) does not
    from tests.reap_helpers import beat, put_beats
    put_beats(world.fs, f"{world.bucket}/ali/heartbeats", beat("node-3", 0))
    result = world.reap()
    assert world.destroyed() == [], result.output
    assert "ali: keep - busy within the grace period: node-3" in result.output
    why = audit_lines(world.audit)[-1]["evidence"]["nodes"]["node-3"]["why"]
    assert why.startswith("not a member, but its report of "), why


def test_a_stale_busy_report_of_a_node_gone_from_the_group_is_ignored(world):
    """The same report, last written 15 min ago (the node is gone): ignored, reaped."""
    alibaba(world, 3)
    from tests.reap_helpers import beat, put_beats
    put_beats(world.fs, f"{world.bucket}/ali/heartbeats", beat("node-3", 0))
    old = (datetime.now(timezone.utc) - timedelta(minutes=15)).timestamp()
    os.utime(f"{world.bucket}/ali/heartbeats/node-3.json", (old, old))
    result = world.reap()
    assert result.exit_code == 0 and world.destroyed() == ["ali"], result.output
    assert audit_lines(world.audit)[-1]["evidence"]["ignored_non_members"] == ["node-3"]


def test_a_lease_taken_over_during_the_export_stops_this_reapers_destroy(world):
    """The export outlives the lease (a run without the workflow's time limit, or a lease made
    short): another reaper takes the expired lease over (version 2) and reaps on its own. The
    old reaper never looked at its lease again and destroyed too, exit 0: two reapers
    exporting and destroying one stack at once."""
    alibaba(world, 2)
    lease_dir = f"{world.bucket}/ali/heartbeats/reaper-ali.lease"
    other = json.dumps({"holder": "other-reaper", "token": "other-reaper",
                        "expires": "2099-01-01T00:00:00+00:00"})
    world.stacks["ali"]["outputs"]["filesystem_export_command"] = (
        f"printf '%s' '{other}' > {lease_dir}/0000000002.json")
    from tests.reap_helpers import write_stacks
    write_stacks(world.tmp / "stacks.json", world.stacks)
    result = world.reap()
    assert world.destroyed() == [], result.output
    assert result.exit_code == 1, result.output
    assert "ali: report - the reaper lock was taken over" in result.output
    assert json.loads(open(f"{lease_dir}/0000000002.json").read())["holder"] == "other-reaper"


def test_a_gcp_instance_the_group_is_recreating_is_not_judged_on_its_old_report(world):
    """A MIG recreates (or restarts) an instance under the same name: its previous run's idle
    report is still fresh in the bucket while it boots. The old reaper believed that report and
    destroyed the booting node, exit 0."""
    from tests.conftest import stand_in_cli
    from tests.reap_helpers import beat, marked, write_stacks
    stand_in_cli(world.bin, "gcloud", "#!/bin/sh\n"
                 'case "$*" in *"instances list"*) echo \'[{"name": "node-a", '
                 '"creationTimestamp": "2026-01-01T00:00:00Z"}, {"name": "node-b", '
                 '"creationTimestamp": "2026-01-01T00:00:00Z"}]\';; '
                 '*list-instances*) echo \'[{"instance": "z/instances/node-a", '
                 '"currentAction": "RECREATING"}, {"instance": "z/instances/node-b", '
                 '"currentAction": "NONE"}]\';; *describe*) echo \'{"targetSize": 2}\';; esac\n')
    world.mp.setenv("PATH", f"{world.bin}:{os.environ['PATH']}")
    outputs = marked(cloud="gcp", heartbeat_url=world.root("g"), node_group="g", zone="z",
                     project="p", filesystem_export_command="true")
    world.add("g", outputs, beat("node-a", 180), beat("node-b", 180))
    write_stacks(world.tmp / "stacks.json", world.stacks)
    result = world.reap()
    assert world.destroyed() == [], result.output
    assert "g: keep - busy within the grace period: node-a" in result.output
    why = audit_lines(world.audit)[-1]["evidence"]["nodes"]["node-a"]["why"]
    assert why == "booting (MIG currentAction RECREATING)"
