"""Spot preemption end to end on this machine, for each cloud's notice format: two local "nodes"
run a real torchrun job (c10d rendezvous, gloo, CPU, examples/train_resumable.py); the second
node runs the preemption agent against a loopback metadata server. The notice arrives, the agent
sends SIGTERM to that node's torchrun, every rank saves a checkpoint before the deadline, the node
is killed and a fresh node takes its place, torchrun's elastic restart resumes the job from that
checkpoint, and the final loss and parameters equal an uninterrupted run with the same seed.

One job is preempted four times, once per cloud (issue 36: the suite's CPU): the replacement
node of one cloud's preemption is the node the next cloud's notice takes back. Each cloud's
preemption is a whole one -- its own metadata server and agent, its own notice, save, killed
node, replacement and resume -- and its test asserts what the one-job-per-cloud tests did; the
job's steps, losses and final state are the sum of all four, each step run exactly once.
(Starting the job afresh per cloud only repeated its first two nodes' start: about 12 CPU-s of
torch imports per cloud.)"""
import json
import os
import signal
import time
from dataclasses import dataclass, field
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
# The node each cloud's notice takes back; the next name is its replacement (the last one runs
# the job to its end).
NODES = ["node-1", "node-1b", "node-1c", "node-1d", "node-1e"]


def wait_for(condition, timeout: float, what: str) -> None:
    deadline = time.time() + timeout
    while not condition():
        assert time.time() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)


@dataclass
class Preemption:
    cloud: str
    node: str
    noticed: datetime
    deadline: datetime
    rc: int                          # the preempted node's torchrun
    saved_step: int = 0
    saved_at: datetime = datetime.min.replace(tzinfo=timezone.utc)
    complete: bool = False
    log: str = ""
    notices: list = field(default_factory=list)


@dataclass
class Chain:
    preemptions: dict
    losses: dict
    finals: list
    restarts: list
    rc_first: int
    rc_last: int
    logs: str


@pytest.fixture(scope="module")
def chain(tmp_path_factory):
    """The job, preempted once per cloud in CLOUDS' order. A step that cannot go on (the job
    never trains, a node never exits) fails here, and so every cloud's test, with the logs."""
    from trainstack_components.training.resumable import is_complete, newest_complete
    base = tmp_path_factory.mktemp("preempted")
    cluster = Cluster(base)
    done: dict[str, Preemption] = {}
    try:
        _, node0 = cluster.start_node("node-0", host=True)
        root, node = cluster.start_node(NODES[0], host=False)
        last = 0
        for cloud, name, replacement in zip(CLOUDS, NODES, NODES[1:]):
            with MetadataServer(cloud, vm_name=name) as md:
                agent = cluster.start_agent(cloud, root, md.url, node=name)
                wait_for(lambda: max(cluster.losses(), default=0) >= last + 3, 240,
                         f"training to reach step {last + 3} before the {cloud} notice\n"
                         + cluster.log("node-0"))
                deadline = (datetime.now(timezone.utc) + timedelta(seconds=45)).replace(microsecond=0)
                md.notice(deadline)
                noticed = datetime.now(timezone.utc)
                # Notice seen -> SIGTERM -> every rank saves together -> that node's torchrun exits.
                rc = node.wait(timeout=60)
                this = done[cloud] = Preemption(cloud, name, noticed, deadline, rc,
                                                log=cluster.log(name))
                saved = newest_complete(cluster.lustre / "job-1")
                assert saved is not None, f"{cloud}: no complete checkpoint\n{this.log}"
                manifest = json.loads((saved / "trainstack.json").read_text())
                this.saved_step, this.complete = manifest["step"], is_complete(saved)
                this.saved_at = datetime.fromisoformat(manifest["time"].replace("Z", "+00:00"))
                last = this.saved_step
                # The node goes away for good (its agent with it) and a fresh node takes its place.
                wait_for(lambda: list((cluster.bucket / "events" / name).glob("*.json")), 30,
                         f"the {cloud} notice in the bucket")
                for proc in (node, agent):
                    if proc.poll() is None:
                        os.killpg(proc.pid, signal.SIGKILL)
                root, node = cluster.start_node(replacement, host=False)
        rc_first, rc_last = node0.wait(timeout=300), node.wait(timeout=60)
        for this in done.values():
            this.notices = [json.loads(p.read_text())
                            for p in (cluster.bucket / "events" / this.node).glob("*")]
        restarts = [json.loads(p.read_text()) for name in ("node-0", *NODES[1:])
                    for p in (base / name / pa.LOCAL_EVENTS_DIR).glob("*restart*.json")]
        return Chain(done, cluster.losses(),
                     cluster.finals() if rc_first == rc_last == 0 else [], restarts, rc_first,
                     rc_last, cluster.log("node-0") + cluster.log(NODES[-1]))
    finally:
        cluster.close()


@pytest.mark.parametrize("cloud", CLOUDS)
def test_a_preempted_node_is_replaced_and_the_job_resumes_exactly(cloud, chain, uninterrupted):
    straight_losses, straight_finals = uninterrupted
    mine = chain.preemptions[cloud]
    assert mine.rc != 0, mine.log                      # the preempted node's torchrun failed
    assert mine.complete, mine.log
    gcp_deadline = mine.noticed + timedelta(seconds=pa.GCP_PREEMPT_SECONDS)
    assert mine.saved_at <= (gcp_deadline if cloud == "gcp" else mine.deadline)
    before = CLOUDS[CLOUDS.index(cloud) - 1] if cloud != CLOUDS[0] else None
    earliest = chain.preemptions[before].saved_step + 3 if before else 3
    assert earliest <= mine.saved_step < STEPS
    assert chain.rc_first == 0 and chain.rc_last == 0, chain.logs

    # One notice. On Azure the agent also acknowledges the event once the job has exited,
    # which may or may not happen before the test kills the node: either is right.
    events = sorted(n["event"] for n in mine.notices)
    assert events in (["preemption-notice"],
                      *([["acknowledged", "preemption-notice"]] if cloud == "azure" else []))
    (notice,) = [n for n in mine.notices if n["event"] == "preemption-notice"]
    assert notice["cloud"] == cloud and notice["signalled_jobs"] == ["job-1"]
    # Each resumed run started right after its checkpoint: no step lost, none run twice.
    assert {step: len(seen) for step, seen in chain.losses.items()} == \
        {s: 1 for s in range(1, STEPS + 1)}
    assert sorted(r["step"] for r in chain.restarts) == \
        [chain.preemptions[c].saved_step for c in CLOUDS]
    (restart,) = [r for r in chain.restarts if r["step"] == mine.saved_step]
    spot = summarize(mine.notices + [restart])        # what `trainstack status` shows
    assert (spot.preemptions, spot.restarts) == (1, 1) and 0 < spot.lost_minutes < 5
    # Same losses, parameters, optimizer and RNG state as the run that was never interrupted.
    for step in range(1, STEPS + 1):
        assert chain.losses[step][-1] == straight_losses[step][-1], step
    for got, want in zip(chain.finals, straight_finals, strict=True):
        for key in want["model"]:
            assert torch.equal(got["model"][key], want["model"][key]), key
        assert torch.equal(got["rng"]["torch"], want["rng"]["torch"])
