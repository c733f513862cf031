"""Issue 34: TERM (the workflow's `timeout`) arriving while `pulumi destroy` runs, through the real
CLI in its own process, with the stand-in `pulumi` and `aliyun` (the `world` of
tests/reap/test_reap_under_faults.py). The destroy may have run in part, or to the end: the
reaper must say the state is unknown and how to see it, never "not destroyed", and fail the run.
Written to fail on the code before the fix (which said "not destroyed")."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

from tests.checkout import PYTHONPATH as CHECKOUT_PATH
from tests.conftest import ROOT
from tests.reap.test_reap_under_faults import alibaba, audit_lines, world  # noqa: F401 (fixture)


def reaper_once(world, begun) -> subprocess.Popen:
    """A `trainstack reap --yes` process (its own session, as under `timeout`), returned once
    `begun()` says it reached the step a test interrupts (within 120 s, while it runs)."""
    reaper = subprocess.Popen(
        [sys.executable, "-m", "trainstack", "reap", "--yes", "--audit-log", str(world.audit)],
        env={**os.environ, "PYTHONPATH": CHECKOUT_PATH}, cwd=ROOT, start_new_session=True,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    deadline = time.monotonic() + 120
    while not begun():
        assert time.monotonic() < deadline and reaper.poll() is None, reaper.stdout.read()
        time.sleep(0.2)
    return reaper


def reaper_in_destroy(world, destroy_seconds):
    """A reaper on an idle Alibaba stack, returned once its `pulumi destroy` has begun (the
    stand-in's destroy takes `destroy_seconds`)."""
    alibaba(world, 2)
    world.mp.setenv("FAKE_PULUMI_DESTROY_SLEEP", str(destroy_seconds))
    log = world.tmp / "calls.jsonl"
    return reaper_once(world, lambda: log.exists()
                       and any(c["args"][0] == "destroy" for c in world.calls()))


def assert_state_unknown(world, out, returncode):
    assert returncode == 1, out
    assert ("ali: report - destroy interrupted by TERM (the time limit): state unknown, the "
            "stack may be partly destroyed; run `pulumi stack --stack ali` (its resources) or "
            "`trainstack reap --dry-run --stack ali` to see") in out
    assert "not destroyed" not in out.split("ali: report - destroy interrupted")[1]
    last = audit_lines(world.audit)[-1]
    assert last["alarm"] == "destroy interrupted: state unknown"
    assert last["evidence"]["stopped_while"] == "destroying"
    # What the destroy keeps (the stand-in's state: a retained bucket), for a person to record
    # if the stack turns out gone: the destroy never got to record it itself.
    assert last["evidence"]["adopt_if_destroyed"] == (
        "pulumi config set --stack ali trainstack:adopt "
        "'{\"llm-finetune-data\": \"llm-finetune-data-a1b2\"}'")
    assert world.lease("ali").current()["released"] is True


def test_term_to_the_reaper_and_its_pulumi_mid_destroy_says_the_state_is_unknown(world):
    """`timeout` signals the whole group: the stand-in pulumi dies mid-destroy."""
    reaper = reaper_in_destroy(world, 120)
    os.killpg(reaper.pid, signal.SIGTERM)
    out = reaper.communicate(timeout=60)[0]
    assert_state_unknown(world, out, reaper.returncode)


def test_term_to_the_reaper_alone_while_pulumi_finishes_the_destroy(world):
    """A TERM to the reaper only (`kill PID`): its pulumi runs on and destroys the stack. The
    reaper cannot know that: state unknown, exit 1, never "not destroyed" (the stack is gone)."""
    reaper = reaper_in_destroy(world, 3)
    os.kill(reaper.pid, signal.SIGTERM)
    out = reaper.communicate(timeout=60)[0]
    assert_state_unknown(world, out, reaper.returncode)
    stacks = json.loads((world.tmp / "stacks.json").read_text())
    assert stacks["ali"]["destroyed"] is True      # it was destroyed after all


def test_term_during_the_scale_down_says_the_group_may_be_left_down_and_stops_az(world):
    """TERM while `az vmss scale --new-capacity 0` runs (Azure's scale-down may take many
    minutes): not destroyed, no export was started, the group may be left scaled down (said,
    with how to look), the lease given back, exit 1, without waiting out the `az` call."""
    from tests.conftest import stand_in_cli
    from tests.reap.test_reap_booting import vm
    from tests.reap_helpers import AZ, beat, marked
    stand_in_cli(world.bin, "az", AZ)
    vms = world.tmp / "vms.json"
    vms.write_text(json.dumps([vm(0), vm(1)]))
    world.mp.setenv("FAKE_AZ_VMS", str(vms))
    world.mp.setenv("FAKE_AZ_SCALE_SLEEP", "120")
    world.add("az", marked(cloud="azure", heartbeat_url=world.root("az"), resource_group="rg",
                           scale_set="vmss", filesystem_id="llm-fs"),
              beat("vmss_0", 180), beat("vmss_1", 180))
    calls = world.tmp / "vms.json.calls"
    reaper = reaper_once(world, lambda: calls.exists() and '"scale"' in calls.read_text())
    time.sleep(0.5)                      # inside the stand-in's scale
    os.kill(reaper.pid, signal.SIGTERM)  # the reaper alone: its `az` must be stopped by it
    started = time.monotonic()
    out = reaper.communicate(timeout=60)[0]
    assert time.monotonic() - started < 30, out     # not waiting out the 120 s scale
    assert reaper.returncode == 1, out
    assert ("az: report - stopped by TERM (the time limit) mid-reap, while scaling to 0: its "
            "lease given back; not destroyed (the group may be left scaled down: run `pulumi "
            "stack --stack az` (its resources) or `trainstack reap --dry-run --stack az` to "
            "see)") in out
    assert world.destroyed() == []
    assert json.loads(vms.read_text()) != []        # the stand-in's scale never finished
    assert world.lease("az").current()["released"] is True
    assert audit_lines(world.audit)[-1]["evidence"]["stopped_while"] == "scaling to 0"


def test_term_right_after_the_lease_was_written_gives_it_back(world, monkeypatch):
    """TERM lands between the lease write and its answer (in-process, the real CLI): the lease
    written is this reaper's and is given back, not left to block every reaper for 4 h while
    the report says "given back" (the code before released only on an Exception)."""
    from trainstack.reap.cloud import Terminated
    from trainstack.reap.store import Lease
    alibaba(world, 2)
    written = Lease.acquire

    def acquire_then_term(self, *args, **kwargs):
        written(self, *args, **kwargs)
        raise Terminated()
    monkeypatch.setattr(Lease, "acquire", acquire_then_term)
    result = world.reap()
    assert result.exit_code == 1, result.output
    assert ("ali: report - stopped by TERM (the time limit) mid-reap, while taking the lock: its "
            "lease given back; not destroyed") in result.output
    assert world.destroyed() == []
    assert world.lease("ali").current()["released"] is True
