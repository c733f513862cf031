"""Issue 32: `trainstack run` never waits out its --timeout. Every way a node can fail to finish
ends the job's wait within seconds here (minutes on a cluster), with the node named and why:

  - a node that exits before it starts torchrun: the others write exit records ("stopped") too,
    and a node already waiting at the rendezvous is stopped by its agent;
  - a preempted node whose health record still said "ready": withdrawn when the node is marked
    leaving, and a node whose agent's heartbeat stopped is left out of the next `run`;
  - a node killed in the middle of its checkpoint (no exit record, ever): its heartbeat goes
    stale, the wait ends naming it, and the job is cancelled on the other nodes.

Local stand-in nodes (tests/run_helpers.py) with heartbeats every 0.5 s and a stale limit of a
few seconds (TRAINSTACK_NODE_STALE_S): the wait's --timeout is set far above what each case may
take, so an old wait that runs into it fails the test."""
from __future__ import annotations

import json
import sys
import time

import pytest
from typer.testing import CliRunner

from tests.run_helpers import LocalCluster, wait_for
from trainstack.cli.app import app
from trainstack.measure.run import resolve, submit, wait
from trainstack_components.agents import job_agent

pytestmark = pytest.mark.xdist_group("torchrun")


def exit_record(cluster: LocalCluster, job: str, node: str) -> dict | None:
    path = cluster.bucket_dir / f"jobs/{job}/{node}/exit.json"
    return json.loads(path.read_text()) if path.exists() else None


def break_ranks_profile(cluster: LocalCluster, node: str) -> None:
    """A node whose boot's ranks step failed: its agent cannot build the torchrun line."""
    profile = cluster.roots[node] / job_agent.RANKS_PROFILE.lstrip("/")
    profile.write_text("export MASTER_ADDR=127.0.0.1\n")


def test_a_node_that_exits_before_torchrun_ends_the_wait(tmp_path, monkeypatch):
    """node-0 fails before torchrun; node-1's agent, polling after that, used to mark the job
    done without an exit record, and `run` waited for node-1 until its timeout."""
    monkeypatch.setenv("TRAINSTACK_NODE_STALE_S", "30")
    cluster = LocalCluster(tmp_path, nodes=2)
    break_ranks_profile(cluster, "node-0")
    try:
        cluster.start(names=["node-0"])
        target = resolve(None, cluster.url)
        job = submit(target, ["python", "train.py"])
        assert wait_for(lambda: exit_record(cluster, job, "node-0"), 60), cluster.agent_logs()
        cluster.start(names=["node-1"])
        began = time.monotonic()
        result = wait(target, job, timeout_s=40, poll_s=0.2)
    finally:
        cluster.stop()
    assert not result.timed_out, cluster.agent_logs()
    assert time.monotonic() - began < 30
    assert result.exits["node-0"]["rc"] == 2 and "NODE_RANK" in result.logs["node-0"]
    stopped = result.exits["node-1"]["stopped"]
    assert "not started" in stopped and "node-0 exited 2" in stopped
    assert result.rc == 2            # node-0's own failure, not node-1's stand-in code
    assert result.stopped == {"node-1": stopped}


def test_a_node_waiting_at_the_rendezvous_is_stopped_when_another_fails(tmp_path, monkeypatch):
    """node-1 already runs torchrun (waiting at a rendezvous nobody will host) when node-0 fails
    before starting its own: node-1's agent stops its torchrun and names node-0."""
    pytest.importorskip("torch")
    monkeypatch.setenv("TRAINSTACK_NODE_STALE_S", "30")
    cluster = LocalCluster(tmp_path, nodes=2)
    break_ranks_profile(cluster, "node-0")
    try:
        cluster.start(names=["node-1"])
        target = resolve(None, cluster.url)
        job = submit(target, [sys.executable, "-c", "print('never')"])
        started = cluster.bucket_dir / f"jobs/{job}/node-1/started.json"
        assert wait_for(started.exists, 60), cluster.agent_logs()
        cluster.start(names=["node-0"])
        began = time.monotonic()
        result = wait(target, job, timeout_s=90, poll_s=0.2)
    finally:
        cluster.stop()
    assert not result.timed_out, cluster.agent_logs()
    assert time.monotonic() - began < 60
    assert "stopped by the job agent: node-0 exited 2" in result.exits["node-1"]["stopped"]
    assert result.rc == 2


def test_a_leaving_node_withdraws_its_health_record_and_a_silent_one_is_left_out(
        tmp_path, monkeypatch):
    """The next `run` must not count a node that is gone: one marked leaving by the preemption
    agent withdraws its record at once; one whose agent died is left out once its heartbeat is
    older than the stale limit, and both are named."""
    monkeypatch.setenv("TRAINSTACK_NODE_STALE_S", "3")
    with LocalCluster(tmp_path, nodes=3) as cluster:
        beat = cluster.bucket_dir / "heartbeat" / "node-2.json"
        assert wait_for(beat.exists, 30), cluster.agent_logs()
        leaving = cluster.roots["node-1"] / job_agent.LEAVING_FILE.lstrip("/")
        leaving.parent.mkdir(parents=True, exist_ok=True)
        leaving.write_text("2026-12-01T14:00:00Z\n")
        record = cluster.bucket_dir / "status" / "node-1.json"
        assert wait_for(lambda: json.loads(record.read_text()).get("ok") is False, 30)
        cluster.kill_node("node-2")
        time.sleep(4)
        target = resolve(None, cluster.url)
    assert target.nodes == ("node-0",)
    left = dict(entry.split(": ", 1) for entry in target.left_out)
    assert "withdrawn" in left["node-1"] and "leaving" in left["node-1"]
    assert "last heartbeat" in left["node-2"]


def test_a_node_killed_mid_checkpoint_ends_run_with_its_name(tmp_path, monkeypatch):
    """Both ranks are saving (sleeping) when the cloud kills node-1: no exit record is ever
    written. `run` names node-1 within seconds of its heartbeat going stale, exits non-zero,
    and node-0's agent stops its torchrun on the cancel."""
    pytest.importorskip("torch")
    monkeypatch.setenv("TRAINSTACK_NODE_STALE_S", "4")
    script = "import time; print('saving checkpoint', flush=True); time.sleep(600)"
    with LocalCluster(tmp_path, nodes=2) as cluster:
        import threading

        def kill_when_saving():
            logs = [cluster.roots[n] / job_agent.LOCAL_JOBS_DIR.lstrip("/") for n in cluster.names]
            if wait_for(lambda: all(any("saving checkpoint" in p.read_text(errors="replace")
                                        for p in d.glob("*.log")) for d in logs), 120):
                cluster.kill_node("node-1")
        killer = threading.Thread(target=kill_when_saving)
        killer.start()
        began = time.monotonic()
        ran = CliRunner().invoke(app, ["run", "--bucket-url", cluster.url, "--timeout", "300",
                                       "--", sys.executable, "-c", script])
        killer.join()
        took = time.monotonic() - began
        job = next(line.split()[1] for line in ran.output.splitlines() if line.startswith("job "))
        node0 = wait_for(lambda: exit_record(cluster, job, "node-0"), 30)
    assert ran.exit_code == 1, ran.output + cluster.agent_logs()
    assert took < 150, ran.output
    assert "node-1: vanished: no exit record" in ran.output and "last heartbeat" in ran.output
    assert (cluster.bucket_dir / f"jobs/{job}/cancel.json").exists()
    assert node0 and "cancelled by trainstack run" in node0["stopped"], cluster.agent_logs()
    assert exit_record(cluster, job, "node-1") is None


def test_the_next_job_elects_a_new_store_host_when_rank_0_is_lost(tmp_path, monkeypatch):
    """The node that hosted the c10d store (the boot's rank 0) is gone. The next `run` leaves it
    out, elects the first remaining node as the store's host (its address from its heartbeat)
    and sizes the rendezvous to the two that remain; each node's started.json records the
    endpoint and who hosted, and the ranks land one per remaining node.

    The job is a shell command under torchrun (--no-python) that writes what torchrun's
    rendezvous gave it: the election, the rendezvous's size and the ranks are torchrun's and
    the agents' doing, not the workers'. Workers that form a gloo group through an elected
    host are test_rdzv_host_lost.py's (its attempt 1) and test_run_bench.py's; two torch
    workers here cost about 4 CPU s (issue 36)."""
    pytest.importorskip("torch")
    monkeypatch.setenv("TRAINSTACK_NODE_STALE_S", "3")
    record = ('printf \'{"node": "%s", "group_rank": %s, "world": %s}\' "$TRAINSTACK_NODE" '
              '"$GROUP_RANK" "$WORLD_SIZE" > "$TRAINSTACK_JOB_OUT/rank$RANK.json"')
    with LocalCluster(tmp_path, nodes=3) as cluster:
        assert wait_for(lambda: all((cluster.bucket_dir / f"heartbeat/{n}.json").exists()
                                    for n in cluster.names), 30), cluster.agent_logs()
        cluster.kill_node("node-0")
        time.sleep(4)
        target = resolve(None, cluster.url)
        assert target.nodes == ("node-1", "node-2")
        job = submit(target, ["sh", "-c", record])
        result = wait(target, job, timeout_s=150, poll_s=0.3)
    assert not result.timed_out and result.rc == 0, cluster.agent_logs() + str(result.logs)
    request = json.loads((cluster.bucket_dir / f"jobs/{job}/request.json").read_text())
    assert (request["rdzv_host"], request["nnodes"]) == ("node-1", 2)
    started = {n: json.loads((cluster.bucket_dir / f"jobs/{job}/{n}/started.json").read_text())
               for n in ("node-1", "node-2")}
    assert started["node-1"]["rdzv"]["is_host"] and not started["node-2"]["rdzv"]["is_host"]
    assert started["node-1"]["rdzv"]["endpoint"] == started["node-2"]["rdzv"]["endpoint"]
    ranks = [json.loads(p.read_text())
             for p in cluster.bucket_dir.glob(f"jobs/{job}/*/out/rank*.json")]
    assert sorted((r["node"], r["world"]) for r in ranks) == [("node-1", 2), ("node-2", 2)]
    assert sorted(r["group_rank"] for r in ranks) == [0, 1]
    # the launch line is torchrun's, sized to the two nodes left, against node-1's store
    for node in ("node-1", "node-2"):
        argv = json.loads((cluster.bucket_dir / f"jobs/{job}/{node}/exit.json").read_text())["argv"]
        assert "--nnodes=2:2" in argv and "--no-python" in argv, argv
        assert f"--rdzv-endpoint={started['node-1']['rdzv']['endpoint']}" in argv, argv
