"""Issue 23's done-when through issue 22's machinery: `trainstack run --max-restarts` hands the
job to real job agents on two local nodes (each with the boot's ranks profile and the checkpoint
helper where the preemption boot step installs it); node-1's preemption agent sees an AWS IMDSv2
spot notice on a loopback metadata server and SIGTERMs the pid the job agent wrote (torchrun's);
every rank saves before the deadline; node-1 goes away and a fresh node-1b's job agent joins the
running job; torchrun's elastic restart resumes from that checkpoint; `run` exits 0 with node-1
marked preempted; losses and parameters equal an uninterrupted run of the same seed.

The job is the session's preempted one (tests/preemption_helpers.py, `preempted_job`; issue 36:
the suite's CPU): AWS takes node-1 back first, then the other clouds take back each replacement
in turn (tests/measure/test_preemption_e2e.py checks each of those), and the last replacement
runs the job to its end. Every node here is a job agent's, and `run` waits through all of it.

Nothing in the nodes' environment sets TORCH_DISABLE_SHARE_RDZV_TCP_STORE or PYTHONPATH: the
job agent must (without the first node-1b does not join the restart; without the second the
example cannot import the helper)."""
import pytest

from tests.preemption_helpers import CLOUDS, NODES, STEPS, assert_resumes_exactly

torch = pytest.importorskip("torch")

# Real torchrun nodes on CPU: one xdist worker runs all of them, one at a time, so two such
# tests never share the 2 cores with each other (their rendezvous and deadlines are timed).
pytestmark = pytest.mark.xdist_group("torchrun")


def test_trainstack_run_survives_an_aws_spot_notice(preempted, uninterrupted):
    job, aws = preempted, preempted.preemptions["aws"]
    assert aws.node == "node-1"
    # The pid the job agent wrote, which the notice signals, is torchrun's.
    assert job.launched_torchrun, job.logs
    assert aws.exit["preempted"] is True and aws.exit["rc"] != 0, job.logs
    assert aws.complete and aws.saved_at <= aws.deadline and 3 <= aws.saved_step < STEPS

    assert job.rc == 0, job.printed + job.logs
    printed = job.printed
    # Each node a notice took back is marked preempted and replaced; the last replacement and
    # node-0 finish the job.
    for node in NODES[:-1]:
        assert f"{node}: exit" in printed
    assert printed.count("(preempted; replaced)") == len(CLOUDS), printed
    assert f"{NODES[-1]}: exit 0" in printed and "node-0: exit 0" in printed
    # node-1b joined the running job as a guest of node-0's store (so did every replacement).
    for this in job.preemptions.values():
        assert "--rdzv-conf=is_host=false" in this.replacement_argv, this.replacement_argv
    assert [(n["event"], n.get("signalled_jobs")) for n in aws.notices
            if n["event"] != "checkpoint"] == [("preemption-notice", [job.job])]
    # The saves' own records, by global rank 0 (on either node; shipped or not yet), one per
    # notice. Only the preempted node has the notice: on node-0 the record has no deadline (the
    # manifest's time is the proof on every node).
    assert sorted((e["step"], e.get("before_deadline", e["deadline"] is None))
                  for e in job.saves.values()) == \
        [(p.saved_step, True) for p in job.preemptions.values()]
    # Every rank, first run and restarts, imported the helper the boot put on its node.
    assert job.imported == {"helper-" + str(path).replace("/", "_")
                            for path in job.helpers.values()}
    assert sorted(r["step"] for r in job.restarts) == \
        [p.saved_step for p in job.preemptions.values()]
    assert {s: len(v) for s, v in job.losses.items()} == {s: 1 for s in range(1, STEPS + 1)}
    assert_resumes_exactly(job, uninterrupted)
