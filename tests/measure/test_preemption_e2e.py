"""Spot preemption end to end on this machine, for each cloud's notice format: two local "nodes"
run a real torchrun job (c10d rendezvous, gloo, CPU, examples/train_resumable.py); node-1 runs
the preemption agent against a loopback metadata server. The notice arrives, the agent sends
SIGTERM to node-1's torchrun, every rank saves a checkpoint before the deadline, node-1 is
killed and a fresh node takes its place, torchrun's elastic restart resumes the job from that
checkpoint, and the final loss and parameters equal an uninterrupted run with the same seed."""
import json
import os
import signal
import time
from datetime import datetime, timedelta, timezone

import pytest

from tests.preemption_helpers import STEPS, Cluster, MetadataServer
from trainstack.measure.preemptions import summarize
from trainstack_components.agents import preemption_agent as pa

# Real torchrun nodes on CPU: one xdist worker runs all of them, one at a time, so two such
# tests never share the 2 cores with each other (their rendezvous and deadlines are timed).
pytestmark = pytest.mark.xdist_group("torchrun")

torch = pytest.importorskip("torch")

CLOUDS = ["aws", "gcp", "azure", "alicloud"]


def wait_for(condition, timeout: float, what: str) -> None:
    deadline = time.time() + timeout
    while not condition():
        assert time.time() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)


@pytest.mark.parametrize("cloud", CLOUDS)
def test_a_preempted_node_is_replaced_and_the_job_resumes_exactly(cloud, tmp_path, uninterrupted):
    straight_losses, straight_finals = uninterrupted
    cluster = Cluster(tmp_path)
    try:
        with MetadataServer(cloud, vm_name="node-1") as md:
            _, node0 = cluster.start_node("node-0", host=True)
            root1, node1 = cluster.start_node("node-1", host=False)
            cluster.start_agent(cloud, root1, md.url)
            wait_for(lambda: max(cluster.losses(), default=0) >= 3, 240, "training to start")

            deadline = (datetime.now(timezone.utc) + timedelta(seconds=45)).replace(microsecond=0)
            md.notice(deadline)
            noticed = datetime.now(timezone.utc)
            # Notice seen -> SIGTERM -> every rank saves together -> torchrun on node-1 exits.
            assert node1.wait(timeout=60) != 0, cluster.log("node-1")
            ckpt = cluster.lustre / "job-1"
            from trainstack_components.training.resumable import is_complete, newest_complete
            saved = newest_complete(ckpt)
            assert saved is not None and is_complete(saved), cluster.log("node-1")
            saved_at = datetime.fromisoformat(
                json.loads((saved / "trainstack.json").read_text())["time"].replace("Z", "+00:00"))
            gcp_deadline = noticed + timedelta(seconds=pa.GCP_PREEMPT_SECONDS)
            assert saved_at <= (gcp_deadline if cloud == "gcp" else deadline)
            saved_step = json.loads((saved / "trainstack.json").read_text())["step"]
            assert 3 <= saved_step < STEPS

            # The node goes away for good (its agent with it) and a fresh node takes its place.
            wait_for(lambda: list((cluster.bucket / "events" / "node-1").glob("*.json")), 30,
                     "the notice in the bucket")
            for proc in cluster.procs[1:]:
                if proc.poll() is None:
                    os.killpg(proc.pid, signal.SIGKILL)
            _, node1b = cluster.start_node("node-1b", host=False)
            assert node0.wait(timeout=300) == 0, cluster.log("node-0")
            assert node1b.wait(timeout=60) == 0, cluster.log("node-1b")

        notices = [json.loads(p.read_text()) for p in (cluster.bucket / "events" / "node-1").glob("*")]
        # One notice. On Azure the agent also acknowledges the event once the job has exited,
        # which may or may not happen before the test kills the node: either is right.
        events = sorted(n["event"] for n in notices)
        assert events in (["preemption-notice"],
                          *([["acknowledged", "preemption-notice"]] if cloud == "azure" else []))
        (notice,) = [n for n in notices if n["event"] == "preemption-notice"]
        assert notice["cloud"] == cloud and notice["signalled_jobs"] == ["job-1"]
        # The resumed run started right after the checkpoint: no step lost, none run twice.
        losses = cluster.losses()
        assert {step: len(seen) for step, seen in losses.items()} == {s: 1 for s in range(1, STEPS + 1)}
        restarts = [json.loads(p.read_text()) for root in ("node-0", "node-1b")
                    for p in (tmp_path / root / pa.LOCAL_EVENTS_DIR).glob("*restart*.json")]
        assert [r["step"] for r in restarts] == [saved_step]
        spot = summarize(notices + restarts)          # what `trainstack status` shows
        assert (spot.preemptions, spot.restarts) == (1, 1) and 0 < spot.lost_minutes < 5
        # Same losses, parameters, optimizer and RNG state as the run that was never interrupted.
        for step in range(1, STEPS + 1):
            assert losses[step][-1] == straight_losses[step][-1], step
        for got, want in zip(cluster.finals(), straight_finals, strict=True):
            for key in want["model"]:
                assert torch.equal(got["model"][key], want["model"][key]), key
            assert torch.equal(got["rng"]["torch"], want["rng"]["torch"])
    finally:
        cluster.close()
