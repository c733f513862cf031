"""Issue 32: a job survives the loss of the node that hosts its c10d rendezvous store.

Three local stand-in nodes run one job (torchrun, gloo on CPU); node-0 hosts the store. The
cloud kills node-0 mid-run (its agent, torchrun and workers die at once; nothing more is
written). The surviving agents see node-0's heartbeat go stale, elect the lowest healthy node
left (node-1) as the new host, and start torchrun again against it (attempt 1); the script
resumes from its checkpoint on the two nodes left and finishes; `run` waits for them instead of
cancelling the job. Every attempt is recorded (jobs/<id>/attempts/<n>.json) with which node held
which ranks, as torchrun itself reported them. With too few nodes left (fewer than the job's
minimum) the job fails within seconds here, naming the lost host and the minimum."""
from __future__ import annotations

import json
import time

import pytest
from typer.testing import CliRunner

from tests.run_helpers import LocalCluster, wait_for
from trainstack.cli.app import app
from trainstack.measure.run import format_attempts, resolve, submit, wait

pytestmark = pytest.mark.xdist_group("torchrun")

TOTAL_STEPS = 14

# A resumable data-parallel step counter: every step all-reduces (so a lost peer breaks the
# step), rank 0 saves {"step", "w"} after each; a start loads the newest save. World-size
# independent, so it resumes on fewer nodes.
ELASTIC_PY = '''\
import json, os, time
import torch
import torch.distributed as dist
dist.init_process_group("gloo")
rank, world = dist.get_rank(), dist.get_world_size()
ckpt = os.environ["CKPT"]
state = {"step": 0, "w": 0.0}
if os.path.exists(ckpt):
    state = json.load(open(ckpt))
resumed_from = state["step"]
while state["step"] < int(os.environ["TOTAL_STEPS"]):
    one = torch.tensor([1.0 / world])
    dist.all_reduce(one)               # sums to 1.0 on every rank
    state = {"step": state["step"] + 1, "w": state["w"] + one.item()}
    if rank == 0:
        with open(ckpt + ".tmp", "w") as out:
            json.dump(state, out)
        os.replace(ckpt + ".tmp", ckpt)
    time.sleep(0.4)
if rank == 0:
    with open(os.path.join(os.environ["TRAINSTACK_JOB_OUT"], "result.json"), "w") as out:
        json.dump({**state, "world": world, "resumed_from": resumed_from}, out)
dist.destroy_process_group()
'''


def started(cluster, job, names):
    return all((cluster.bucket_dir / f"jobs/{job}/{n}/started.json").exists() for n in names)


def test_the_job_moves_its_rendezvous_when_the_host_node_is_lost(tmp_path, monkeypatch):
    pytest.importorskip("torch")
    monkeypatch.setenv("TRAINSTACK_NODE_STALE_S", "3")
    (tmp_path / "elastic.py").write_text(ELASTIC_PY)
    ckpt = tmp_path / "ckpt.json"
    env = {"CKPT": str(ckpt), "TOTAL_STEPS": str(TOTAL_STEPS)}
    with LocalCluster(tmp_path, nodes=3) as cluster:
        assert wait_for(lambda: all((cluster.bucket_dir / f"heartbeat/{n}.json").exists()
                                    for n in cluster.names), 30), cluster.agent_logs()
        target = resolve(None, cluster.url)
        # The agents take node-0 for gone after 6 s (the request's stale limit), `run` after 3:
        # so `run` sees the host gone first and must wait for the agents' election.
        monkeypatch.setenv("TRAINSTACK_NODE_STALE_S", "6")
        job = submit(target, ["python", "elastic.py"], cwd=str(tmp_path), env=env,
                     max_restarts=1, min_nodes=2, last_call_s=2)
        monkeypatch.setenv("TRAINSTACK_NODE_STALE_S", "3")
        saved = lambda: json.loads(ckpt.read_text())["step"] if ckpt.exists() else 0  # noqa: E731
        assert wait_for(lambda: saved() >= 3, 150), cluster.agent_logs()
        cluster.kill_node("node-0")
        lost_at = saved()
        result = wait(target, job, timeout_s=240, poll_s=0.3)
    logs = cluster.agent_logs() + json.dumps(result.logs)[-6000:]
    assert not result.timed_out and result.rc == 0, logs
    assert not result.vanished and "node-0" in result.lost, logs
    # The script finished on the two nodes left, from its checkpoint, not from scratch.
    out = json.loads((cluster.bucket_dir / f"jobs/{job}/node-1/out/result.json").read_text()
                     if (cluster.bucket_dir / f"jobs/{job}/node-1/out/result.json").exists()
                     else (cluster.bucket_dir / f"jobs/{job}/node-2/out/result.json").read_text())
    assert out["step"] == TOTAL_STEPS and out["world"] == 2, out
    assert out["resumed_from"] >= lost_at - 1 >= 2, out
    assert abs(out["w"] - TOTAL_STEPS) < 1e-6      # every step counted once
    # Attempt 0 hosted on node-0 with three nodes; attempt 1 elected node-1 from the two left.
    attempts = result.attempts
    assert [a["attempt"] for a in attempts] == [0, 1], attempts
    assert attempts[0]["host"] == "node-0" and attempts[1]["host"] == "node-1"
    assert attempts[1]["nodes"] == ["node-1", "node-2"] and attempts[1]["lost"] == "node-0"
    assert attempts[1]["endpoint"] != attempts[0]["endpoint"]
    # Which node held which ranks, per attempt, as torchrun reported them.
    first = {n: r for n, r in result.ranks_by_attempt(0).items()}
    second = {n: r for n, r in result.ranks_by_attempt(1).items()}
    assert sorted(first) == ["node-0", "node-1", "node-2"], result.ranks
    assert sorted(sum(first.values(), [])) == [0, 1, 2]
    assert sorted(second) == ["node-1", "node-2"] and sorted(sum(second.values(), [])) == [0, 1]
    table = format_attempts(result)
    assert "attempt 1: host node-1" in table and "node-0 lost" in table, table


def test_too_few_nodes_left_fails_within_seconds_naming_the_host(tmp_path, monkeypatch):
    """Two nodes, the job needs both (the default minimum): losing the host leaves one, so the
    survivor's agent stops its torchrun and `run` ends at once, naming node-0 and the minimum."""
    pytest.importorskip("torch")
    monkeypatch.setenv("TRAINSTACK_NODE_STALE_S", "3")
    script = ("import time, torch.distributed as dist; dist.init_process_group('gloo'); "
              "print('training', flush=True); time.sleep(600)")
    with LocalCluster(tmp_path, nodes=2) as cluster:
        import sys
        import threading
        # `run` names the host from the agents' heartbeats (their addresses): without them the
        # boot's rank 0 hosts unnamed, and no agent could tell it was lost.
        assert wait_for(lambda: all((cluster.bucket_dir / f"heartbeat/{n}.json").exists()
                                    for n in cluster.names), 30), cluster.agent_logs()

        def kill_when_training():
            if wait_for(lambda: all("training" in cluster.node_log(n) for n in cluster.names), 120):
                cluster.kill_node("node-0")
        killer = threading.Thread(target=kill_when_training)
        killer.start()
        began = time.monotonic()
        ran = CliRunner().invoke(app, ["run", "--bucket-url", cluster.url, "--timeout", "300",
                                       "--max-restarts", "2", "--", sys.executable, "-c", script])
        killer.join()
        took = time.monotonic() - began
    assert ran.exit_code == 1, ran.output + cluster.agent_logs()
    assert took < 120, ran.output
    assert "node-0" in ran.output and "fewer than the job's minimum of 2" in ran.output, ran.output


def test_min_nodes_beyond_the_nodes_is_refused_before_anything_is_written(tmp_path):
    from tests.run_helpers import health_record
    (tmp_path / "status").mkdir()
    for rank, name in enumerate(("node-0", "node-1")):
        (tmp_path / "status" / f"{name}.json").write_text(json.dumps(health_record(name, rank)))
    ran = CliRunner().invoke(app, ["run", "--bucket-url", f"file://{tmp_path}", "--min-nodes",
                                   "3", "--", "python", "train.py"])
    assert ran.exit_code == 2, ran.output
    assert "--min-nodes" in ran.output and "between 1 and the job's 2 node(s)" in ran.output
    assert not (tmp_path / "jobs").exists()


def test_a_later_attempt_launches_against_the_elected_host():
    """The launch line of attempt 1: the new host's endpoint, torch elastic's MIN:MAX range, and
    the restarts the attempt has left (not the request's)."""
    from trainstack_components.agents import job_agent
    request = {"id": "j", "argv": ["python", "t.py"], "nnodes": 3, "min_nodes": 2,
               "max_restarts": 3, "rdzv_host": "node-0", "rdzv_addr": "10.0.0.1",
               "last_call_s": 5}
    boot = {"MASTER_ADDR": "10.0.0.1", "NNODES": "3", "NODE_RANK": "2", "MASTER_PORT": "29500"}
    attempt = {"attempt": 1, "host": "node-1", "addr": "10.0.0.2", "port": 29501,
               "restarts_left": 2}
    argv = job_agent.launch_argv(request, boot, ["torchrun"], "node-1", attempt)
    assert "--nnodes=2:3" in argv and "--rdzv-endpoint=10.0.0.2:29501" in argv
    assert "--rdzv-conf=is_host=true,last_call_timeout=5" in argv and "--max-restarts=2" in argv
    first = job_agent.launch_argv(request, boot, ["torchrun"], "node-1")
    assert "--rdzv-endpoint=10.0.0.1:29500" in first and "--max-restarts=3" in first
    assert "--rdzv-conf=is_host=false,last_call_timeout=5" in first


def test_the_election_among_the_agents_records(tmp_path):
    """The agents' verdict on the attempt's host, from the bucket's records alone: a host whose
    heartbeat is stale is lost and the lowest healthy node by node rank writes the next attempt;
    a host that finished its part is not lost however long its node has been gone; too few
    nodes left stop the job naming the minimum."""
    from trainstack_components.agents import job_agent
    store = job_agent.open_store(str(tmp_path))
    now = time.time()
    for name, rank, age in (("node-a", 0, 60), ("node-b", 2, 0), ("node-c", 1, 0)):
        store.put(f"status/{name}.json", json.dumps({"ok": True, "node_rank": rank}).encode())
        store.put(f"heartbeat/{name}.json", json.dumps({"time": now - age}).encode())
    request = {"id": "j", "nodes": ["node-a", "node-b", "node-c"], "nnodes": 3, "min_nodes": 2,
               "max_restarts": 2, "stale_s": 10, "rdzv_host": "node-a", "rdzv_port": 29500}
    attempt = job_agent.request_attempt(request)

    def agent(name):
        made = job_agent.Agent(store, job_agent.Node(name, str(tmp_path / name)), ["torchrun"])
        made._ranks, made._election_since, made._addr = [], {}, f"10.0.0.{name[-1]}"
        return made
    # node-c has the lower node rank (1) though node-b sorts first by name: node-b waits for it.
    assert agent("node-b")._host_verdict("j", request, attempt, None) == ("wait", None)
    verdict, record = agent("node-c")._host_verdict("j", request, attempt, None)
    assert verdict == "next" and (record["host"], record["nodes"], record["lost"]) == (
        "node-c", ["node-b", "node-c"], "node-a")
    assert (record["port"], record["restarts_left"], record["addr"]) == (29501, 1, "10.0.0.c")
    assert agent("node-b")._host_verdict("j", request, attempt, None) == ("next", record)
    # Needing all three: stopped, naming the host and the minimum.
    verdict, why = agent("node-b")._host_verdict("k", {**request, "id": "k", "min_nodes": 3},
                                                 attempt, None)
    assert verdict == "stop" and "node-a is gone" in why and "minimum of 3" in why
    # A host that exited 0 from this job: its node may go; no new attempt.
    store.put("jobs/m/node-a/exit.json", json.dumps({"rc": 0}).encode())
    assert agent("node-c")._host_verdict("m", {**request, "id": "m"}, attempt, time.time()) == \
        ("alive", None)


def test_the_elected_host_skips_a_port_another_process_holds(tmp_path):
    """The new host's torchrun binds the store itself (is_host=true, no fallback): a port in use
    there ends attempt 1 at once and the job with it. Where the boot's port lies in the
    ephemeral range (the local stand-ins', a free port picked at boot), port + 1 may be any
    process's; the elected node writes a port it can listen on."""
    import socket
    from trainstack_components.agents import job_agent
    store = job_agent.open_store(str(tmp_path))
    now = time.time()
    for name, rank, age in (("node-a", 0, 60), ("node-b", 1, 0), ("node-c", 2, 0)):
        store.put(f"status/{name}.json", json.dumps({"ok": True, "node_rank": rank}).encode())
        store.put(f"heartbeat/{name}.json", json.dumps({"time": now - age}).encode())
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen(1)
        taken = held.getsockname()[1]
        request = {"id": "j", "nodes": ["node-a", "node-b", "node-c"], "nnodes": 3,
                   "min_nodes": 2, "max_restarts": 1, "stale_s": 10, "rdzv_host": "node-a",
                   "rdzv_port": taken - 1}
        made = job_agent.Agent(store, job_agent.Node("node-b", str(tmp_path / "node-b")),
                               ["torchrun"])
        made._ranks, made._election_since, made._addr = [], {}, "127.0.0.1"
        verdict, record = made._host_verdict("j", request, job_agent.request_attempt(request),
                                             None)
        assert verdict == "next" and record["host"] == "node-b", record
        assert record["port"] != taken and record["port"] > taken - 1, record
        assert record["endpoint"] == f"127.0.0.1:{record['port']}"
        with socket.socket() as store_socket:       # what node-b's torchrun will do there
            store_socket.bind(("127.0.0.1", record["port"]))
            store_socket.listen(1)


def test_the_ranks_of_an_attempt_are_its_last_rendezvous_when_a_node_joined_late():
    """On a loaded node the third node may join after the last call: torchrun first forms a
    world of 2, then re-forms it with 3 without counting a restart (restart_count stays 0).
    The ranks a node held are those of the newest rendezvous (as node-1's ranks.json below,
    from such a run), not the first."""
    from trainstack.measure.run import JobResult
    result = JobResult("j")
    result.ranks = {
        "node-0": [{"attempt": 0, "global_ranks": [0], "restart_count": 0, "world_size": 2},
                   {"attempt": 0, "global_ranks": [0], "restart_count": 0, "world_size": 3}],
        "node-1": [{"attempt": 0, "global_ranks": [1], "restart_count": 0, "world_size": 2},
                   {"attempt": 0, "global_ranks": [2], "restart_count": 0, "world_size": 3},
                   {"attempt": 1, "global_ranks": [0], "restart_count": 0, "world_size": 2}],
        "node-2": [{"attempt": 0, "global_ranks": [1], "restart_count": 0, "world_size": 3},
                   {"attempt": 1, "global_ranks": [1], "restart_count": 0, "world_size": 2}]}
    assert result.ranks_by_attempt(0) == {"node-0": [0], "node-1": [2], "node-2": [1]}
    assert result.ranks_by_attempt(1) == {"node-1": [0], "node-2": [1]}
