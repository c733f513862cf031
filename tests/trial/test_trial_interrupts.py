"""A trial stopped half-way leaves nothing up: SIGINT in the middle of `up`, of the bench and of
a destroy all end with every stack it created destroyed; killed hard (SIGKILL), the journal
says what is up and `trainstack trial --resume` tears it down. Two trials never run at once."""
import json
import signal
import subprocess
import time

import pytest
from typer.testing import CliRunner

from tests.run_helpers import LocalCluster, health_record, wait_for
from tests.trial_helpers import TrialWorld
from trainstack.cli.app import app

runner = CliRunner()


def start(world, candidates, **env):
    return subprocess.Popen(world.command("--candidates", candidates, "--budget-usd", "1000",
                                          *world.bench_args()),
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env=world.subprocess_env(**env))


def stack_in(world, state):
    return any(s.get("state") == state for s in world.journal().get("stacks", {}).values())


def healthy_nodes(world, tmp_path, cloud="aws"):
    (tmp_path / "nodes").mkdir()
    return LocalCluster(tmp_path / "nodes", nodes=1, bucket_url=f"file://{world.buckets[cloud]}",
                        records={"node-0": health_record("node-0", 0, cloud=cloud)})


def bench_started(world, cloud="aws"):
    return list(world.buckets[cloud].glob("jobs/*/request.json"))


def finish(proc, timeout=120):
    out, _ = proc.communicate(timeout=timeout)
    return proc.returncode, out


def test_sigint_in_the_middle_of_up_destroys_the_stack_once_up_stops(tmp_path, monkeypatch):
    world = TrialWorld(tmp_path, monkeypatch, clouds=("aws",))
    proc = start(world, "aws", FAKE_PULUMI_UP_SLEEP="4")
    assert wait_for(lambda: stack_in(world, "creating"), timeout=90), proc.stdout
    time.sleep(0.5)
    proc.send_signal(signal.SIGINT)
    rc, out = finish(proc)
    assert rc == 130, out
    assert "interrupted (SIGINT)" in out and "waiting for pulumi up" in out
    assert "trial-aws-us-east-1a" in world.stacks()          # the up did finish ...
    assert world.still_billing() == {}, out                   # ... and was destroyed
    assert world.journal()["finished"]["outcome"] == "interrupted (SIGINT)"


@pytest.mark.parametrize("sig,rc_expected", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_in_the_middle_of_the_bench_destroys_the_stack(tmp_path, monkeypatch, sig,
                                                                 rc_expected):
    world = TrialWorld(tmp_path, monkeypatch, clouds=("aws",))
    healthy_nodes(world, tmp_path)        # healthy, but no job agent: the bench waits
    proc = start(world, "aws")
    assert wait_for(lambda: bench_started(world), timeout=90)
    proc.send_signal(sig)
    rc, out = finish(proc)
    assert rc == rc_expected, out
    assert world.still_billing() == {}, out
    assert all(s["state"] == "destroyed" for s in world.journal()["stacks"].values())


def test_sigint_in_the_middle_of_a_destroy_still_destroys(tmp_path, monkeypatch):
    world = TrialWorld(tmp_path, monkeypatch, clouds=("aws",))
    proc = start(world, "aws", FAKE_PULUMI_DESTROY_SLEEP="3")   # no node ever reports
    assert wait_for(lambda: stack_in(world, "destroying"), timeout=90)
    time.sleep(0.5)
    proc.send_signal(signal.SIGINT)
    rc, out = finish(proc)
    assert rc == 130, out
    assert world.still_billing() == {}, out
    assert all(s["state"] == "destroyed" for s in world.journal()["stacks"].values())


def test_resume_after_sigkill_tears_down_what_was_left_and_the_lock_holds_meanwhile(
        tmp_path, monkeypatch):
    world = TrialWorld(tmp_path, monkeypatch, clouds=("aws",))
    healthy_nodes(world, tmp_path)
    proc = start(world, "aws")
    assert wait_for(lambda: bench_started(world), timeout=90)
    # a second trial (or a resume) while the first runs is refused: never two on the same stacks
    second = runner.invoke(app, ["--project", str(world.project), "trial", "--resume"])
    assert second.exit_code == 2 and "another trial is running" in second.output
    proc.send_signal(signal.SIGKILL)
    finish(proc)
    assert world.still_billing() == {"trial-aws-us-east-1a": [
        "aws:s3/bucket:Bucket", "aws:ec2/vpc:Vpc", "aws:autoscaling/group:Group"]}
    result = runner.invoke(app, ["--project", str(world.project), "trial", "--resume",
                                 "--skip-credential-check"])
    assert result.exit_code == 0, result.output
    assert "trial-aws-us-east-1a" in result.output
    assert world.still_billing() == {}
    journal = world.journal()
    assert journal["finished"]["outcome"] == "resumed: torn down"
    in_bucket = json.loads(next(world.buckets["aws"].glob("trial/*/journal.json")).read_text())
    assert in_bucket["stacks"]["trial-aws-us-east-1a"]["state"] == "destroyed"


def test_a_crash_in_the_middle_of_the_bench_destroys_the_stack(tmp_path, monkeypatch):
    world = TrialWorld(tmp_path, monkeypatch, clouds=("aws",))
    healthy_nodes(world, tmp_path)

    def crash(*args, **kwargs):
        raise RuntimeError("bench crashed")
    monkeypatch.setattr("trainstack.measure.bench.bench", crash)
    result = runner.invoke(app, ["--project", str(world.project), "trial", "--candidates", "aws",
                                 "--budget-usd", "1000", *world.bench_args()])
    assert result.exit_code == 1 and isinstance(result.exception, RuntimeError)
    assert "stopped: RuntimeError: bench crashed; destroying every stack" in result.output
    assert world.stacks() and world.still_billing() == {}
    assert world.journal()["finished"]["outcome"] == "stopped: RuntimeError: bench crashed"
