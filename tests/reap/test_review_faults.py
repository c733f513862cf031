"""Issue 34's closing fault-injection review: faults no other reap test injects, each through the
real CLI (`python -m trainstack reap` as a subprocess) with the stand-in `pulumi`, `gcloud`,
`aliyun` and `az` on PATH and heartbeats in a file:// bucket (the `world` of
tests/reap/test_reap_under_faults.py). A finding is marked xfail(strict): it fails on today's code
and turns the run red once the reaper is fixed (then drop the mark)."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.checkout import PYTHONPATH as CHECKOUT_PATH
from tests.conftest import ROOT, stand_in_cli
from tests.reap.test_reap_faults import GCLOUD
from tests.reap.test_reap_under_faults import alibaba, audit_lines, world  # noqa: F401 (fixture)
from tests.reap_helpers import beat, marked, put_beats, write_stacks


class Run:
    def __init__(self, done: subprocess.CompletedProcess):
        self.exit_code, self.output = done.returncode, done.stdout


def reap(world, *extra, **env) -> Run:
    """`trainstack reap --yes` as the workflow runs it: its own process, the stand-ins on PATH."""
    return Run(subprocess.run(
        [sys.executable, "-m", "trainstack", "reap", "--yes", "--audit-log", str(world.audit),
         *extra], env={**os.environ, "PYTHONPATH": CHECKOUT_PATH, **env}, cwd=ROOT,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=300))


def gcp(world, members, **outputs):
    """A GCP stack `g` whose managed instance group the stand-in `gcloud` answers for."""
    stand_in_cli(world.bin, "gcloud", GCLOUD)
    path = world.tmp / "members.json"
    path.write_text(json.dumps(members))
    world.mp.setenv("FAKE_GCLOUD_MEMBERS", str(path))
    world.add("g", marked(cloud="gcp", heartbeat_url=world.root("g"), node_group="mig",
                          zone="z", project="p", filesystem_export_command="true", **outputs),
              *[beat(n, 180) for n in members])
    return path


# -- 1. an empty member listing is read as "idle" without a look at the reports ----------------

@pytest.mark.xfail(strict=True, reason="review finding: with no members the reaper reads no "
                   "reports (reaper.py _look: `store.reports() if members else {}`), so a fresh "
                   "busy report of a node the listing does not show is never seen")
def test_a_busy_node_the_listing_misses_keeps_a_stack_with_no_members(world):
    """Alibaba's members are the stack's `node_ids` output: an `up` that replaced every node and
    then failed kept the old ids, which ECS no longer has. The new node-1 runs a job and reports
    busy every minute. judge() calls such a report busy for the stack ("a machine the membership
    does not show may run a job on the filesystem"), but with no member left it is never read:
    the stack is destroyed under the job, exit 0."""
    path = alibaba(world, 2, busy=(1,))
    world.stacks["ali"]["outputs"]["node_ids"] = ["i-0900", "i-0901"]   # replaced since
    write_stacks(world.tmp / "stacks.json", world.stacks)
    result = reap(world)
    assert world.destroyed() == [], result.output
    assert "ali: keep - busy within the grace period: node-1" in result.output
    assert {i["Status"] for i in json.loads(path.read_text())} == {"Running"}


@pytest.mark.xfail(strict=True, reason="review finding: with no members the reaper reads no "
                   "reports (reaper.py _look), so a fresh busy report from an instance the MIG "
                   "abandoned is never seen and the filesystem under its job is destroyed")
def test_a_busy_instance_abandoned_from_an_empty_group_keeps_the_stack(world):
    """GCP: an instance abandoned from the MIG keeps running its job on the stack's Lustre
    (abandon-instances takes it out of the group, not off the filesystem), and the group is now
    empty. Its busy report is fresh; the reaper destroys the stack (and the filesystem)."""
    gcp(world, [])
    put_beats(world.fs, f"{world.bucket}/g/heartbeats", beat("node-7", 0))
    result = reap(world)
    assert world.destroyed() == [], result.output
    assert "g: keep - busy within the grace period: node-7" in result.output


def test_a_busy_non_member_beside_an_idle_member_keeps_the_stack(world):
    """Control for the two above: with one member left the same report is read and kept."""
    gcp(world, ["node-0"])
    put_beats(world.fs, f"{world.bucket}/g/heartbeats", beat("node-7", 0))
    result = reap(world)
    assert result.exit_code == 0 and world.destroyed() == [], result.output
    assert "g: keep - busy within the grace period: node-7" in result.output
