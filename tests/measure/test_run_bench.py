"""Issue 22 end to end: two local nodes (job agents with their own node roots) share a bucket;
`trainstack run` launches real torchrun (gloo, CPU) across both, `trainstack bench` measures
through the same agents, and `compare --measured` shows the measured figures beside the assumed.
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.conftest import write_spec
from tests.run_helpers import TRAIN_PY, LocalCluster, wait_for
from trainstack.cli.app import app
from trainstack_components.agents import job_agent

# Real torchrun nodes on CPU: one xdist worker runs all of them, one at a time, so two such
# tests never share the 2 cores with each other (their rendezvous and deadlines are timed).
pytestmark = pytest.mark.xdist_group("torchrun")

pytest.importorskip("torch", reason="torch is not installed (the bench-test extra has it)")

runner = CliRunner()


def invoke(*args):
    result = runner.invoke(app, [str(a) for a in args], terminal_width=220)
    assert "Traceback" not in result.output, result.output
    return result


def outputs(bucket: Path, job_id: str) -> dict[str, dict]:
    found = {}
    for path in sorted(bucket.glob(f"jobs/{job_id}/*/out/*.json")):
        found[f"{path.parents[1].name}/{path.name}"] = json.loads(path.read_text())
    return found


def job_id_of(output: str) -> str:
    return next(line.split()[1] for line in output.splitlines() if line.startswith("job "))


def test_two_nodes_run_bench_and_compare_measured(tmp_path, example_spec, monkeypatch):
    (tmp_path / "train.py").write_text(TRAIN_PY)
    for mount in ("lustre", "scratch"):
        (tmp_path / mount).mkdir()
    with LocalCluster(tmp_path, nodes=2) as cluster:
        # --- trainstack run -- python train.py: one rank per node, one rendezvous
        ran = invoke("run", "--bucket-url", cluster.url, "--cwd", tmp_path, "--follow",
                     "--timeout", "240", "--", "python", "train.py")
        assert ran.exit_code == 0, ran.output + cluster.agent_logs()
        job = job_id_of(ran.output)
        ranks = outputs(cluster.bucket_dir, job)
        assert sorted(r["rank"] for r in ranks.values()) == [0, 1]
        assert {r["world"] for r in ranks.values()} == {2}
        assert sorted(r["group_rank"] for r in ranks.values()) == [0, 1]   # one per node
        assert {r["node"] for r in ranks.values()} == {"node-0", "node-1"}
        assert {r["sum"] for r in ranks.values()} == {1.0}                  # 0 + 1, all-reduced
        assert {r["fabric_profile"] for r in ranks.values()} == {"yes"}     # the boot's NCCL env
        # --follow streamed both nodes' lines; the bucket has each node's log and exit code
        assert "[node-0] rank" in ran.output and "[node-1] rank" in ran.output
        # The store's host: the first node (by rank) whose agent had published its address in
        # its heartbeat when `run` submitted -- node-0, or node-1 when node-0's first heartbeat
        # was not written yet; with no heartbeat yet at all, the boot's rank 0 (node-0, at the
        # boot's MASTER_ADDR). Exactly that node hosts; the other connects to it.
        request = json.loads((cluster.bucket_dir / f"jobs/{job}/request.json").read_text())
        host = request.get("rdzv_host") or "node-0"
        assert host in cluster.names and request.get("rdzv_addr", "127.0.0.1") == "127.0.0.1"
        for node in cluster.names:
            exit_record = json.loads((cluster.bucket_dir / f"jobs/{job}/{node}/exit.json").read_text())
            assert exit_record["rc"] == 0
            argv = exit_record["argv"]
            assert "--nnodes=2:2" in argv and "--rdzv-backend=c10d" in argv
            assert f"--rdzv-endpoint=127.0.0.1:{cluster.port}" in argv
            hosts = "true" if node == host else "false"
            assert f"--rdzv-conf=is_host={hosts}" in argv
            # the pid file the idle agent reads is gone once the job is over
            assert not (cluster.roots[node] / job_agent.LOCAL_JOBS_DIR.lstrip("/") /
                        f"{job}.json").exists()

        # --- trainstack bench: fabric, storage, training on 1 and 2 nodes, readiness
        benched = invoke("bench", "--bucket-url", cluster.url, "--model", "tiny", "--steps", "4",
                         "--allreduce-mib", "1", "--checkpoint-mib", "4",
                         "--lustre", tmp_path / "lustre", "--scratch", tmp_path / "scratch",
                         "--provisioned-mbps", "1000", "--out-dir", tmp_path / "bench",
                         "--timeout", "240")
        assert benched.exit_code == 0, benched.output + cluster.agent_logs()
    result = json.loads((tmp_path / "bench" / "aws.json").read_text())
    stored = list((cluster.bucket_dir / "bench").glob("*.json"))
    assert len(stored) == 1 and json.loads(stored[0].read_text()) == result
    one, two = result["training"]["one_node"], result["training"]["all_nodes"]
    assert (one["nodes"], one["ranks"], two["nodes"], two["ranks"]) == (1, 1, 2, 2)
    assert one["tokens_per_s"] > 0 and two["tokens_per_s"] > 0 and not two["oom"]
    assert 0 <= two["data_wait_fraction"] < 1 and two["peak_memory_bytes"] > 0
    # tokens per step: batch 4 x seq 64 per rank (MODEL_SIZES["tiny"])
    assert (one["tokens_per_step"], two["tokens_per_step"]) == (256, 512)
    measured_eff = two["tokens_per_s"] / (2 * one["tokens_per_s"])
    # Two CPU "nodes" on a shared machine can come out above 1 (issue 32): bench runs the pair
    # again, then refuses the figure. Either way is checked here, never skipped (CI counts a skip
    # as a failure); compare --measured's refusal is tests/measure/test_measure_planted.py's.
    refused = measured_eff > 1.05
    if refused:
        assert result["training"]["scaling_efficiency"] is None
        assert result["training"]["scaling_efficiency_refused"] == pytest.approx(measured_eff)
        assert "scaling efficiency: REFUSED" in benched.output
    else:
        assert result["training"]["scaling_efficiency"] == pytest.approx(measured_eff)
        assert "scaling efficiency:" in benched.output
    fabric = result["fabric"]
    assert fabric["ranks"] == 2 and fabric["busbw_gbps"] > 0 and fabric["device"] == "cpu"
    assert fabric["judge"]["floor_gbps"] == 412.5      # p5.48xlarge, 2 nodes (0.55 x 750); CPU: not judged
    assert fabric["judge"]["below_floor"] is None
    assert set(result["storage"]["per_node"]) == {"node-0", "node-1"}
    for record in result["storage"]["per_node"].values():
        for path in (str(tmp_path / "lustre"), str(tmp_path / "scratch")):
            assert record["paths"][path]["write_s"] > 0 and record["paths"][path]["read_s"] > 0
    assert result["readiness"]["all_healthy"] is True and result["readiness"]["nodes_healthy"] == 2
    if refused:
        return

    # --- compare --measured: the measured figures next to the assumed ones
    example_spec["clouds"] = {"aws": example_spec["clouds"]["aws"]}
    example_spec["workload"]["recompute"] = True
    spec = write_spec(tmp_path, example_spec)
    compared = invoke("compare", "--spec", spec, "--measured", "--bench", tmp_path / "bench",
                      "--json")
    assert compared.exit_code == 0, compared.output
    doc = json.loads(compared.output)
    row = next(r for r in doc["clouds"] if r["cloud"] == "aws")
    measured = doc["measured"]["clouds"]["aws"]
    tokens, params = example_spec["workload"]["train_tokens"], example_spec["workload"]["model_params"]
    tps_one = one["tokens_per_s"] * one["model_params"] / float(params)
    eff = result["training"]["scaling_efficiency"]
    assert measured["scaling_efficiency"] == pytest.approx(eff)
    assert measured["tokens_per_s"] == pytest.approx(tps_one * 2 * eff)
    assert measured["hours"] == pytest.approx(float(tokens) / (tps_one * 2 * eff) / 3600)
    assert row["scaling_efficiency"] == 0.9 and row["mfu"] == 0.4         # assumed, untouched
    text = invoke("compare", "--spec", spec, "--measured", "--bench", tmp_path / "bench").output
    assert "measured beside assumed" in text
    assert f"0.90 | {eff:.2f}" in text and "0.40 | " in text


def test_worst_node_exit_code_and_the_busy_pid_file(tmp_path):
    """A job failing on one node fails `run` with that node's code; while it runs, each node's
    /var/lib/trainstack/jobs/<id>.json holds a live pid (what the idle agent counts as work)."""
    script = ("import os, sys, time; time.sleep(2); "
              "sys.exit(3 if os.environ['TRAINSTACK_NODE'] == 'node-1' else 0)")
    with LocalCluster(tmp_path, nodes=2) as cluster:
        from trainstack.measure.run import resolve, submit, wait
        target = resolve(None, cluster.url)
        job = submit(target, [sys.executable, "-c", script], launcher="none")
        pid_file = cluster.roots["node-0"] / job_agent.LOCAL_JOBS_DIR.lstrip("/") / f"{job}.json"
        assert wait_for(pid_file.exists, timeout=60), cluster.agent_logs()
        pid = json.loads(pid_file.read_text())["pid"]
        os.kill(pid, 0)   # alive: raises if not
        result = wait(target, job, timeout_s=60, poll_s=0.2)
        assert {n: e["rc"] for n, e in result.exits.items()} == {"node-0": 0, "node-1": 3}
        assert result.rc == 3
        assert not pid_file.exists()


def test_run_cli_fails_with_the_nodes_failure(tmp_path):
    """A command that is not `python script.py` runs as it is (torchrun --no-python), with
    torchrun's variables; when its workers fail, `run` exits non-zero like the nodes. (One node
    failing alone keeps the others' torchrun at its exit barrier for minutes: torchrun's own
    behaviour, so the per-node codes are checked with the plain launcher above.)"""
    with LocalCluster(tmp_path, nodes=2) as cluster:
        ran = invoke("run", "--bucket-url", cluster.url, "--timeout", "120", "--", "sh", "-c",
                     'echo "group $GROUP_RANK of $GROUP_WORLD_SIZE"; exit 5')
    assert ran.exit_code == 1, ran.output   # torchrun reports a failed worker as 1
    # Each node exits 1, or -- when the other failed first -- its agent stopped it and says
    # why (issue 32: it used to sit at torchrun's exit barrier for minutes); the code is 1.
    for node, other in (("node-0", "node-1"), ("node-1", "node-0")):
        line = next(x for x in ran.output.splitlines() if x.startswith(f"{node}: "))
        assert line.startswith(f"{node}: exit 1") or \
            f"stopped by the job agent: {other} exited 1" in line, ran.output
    logs = [p.read_text() for p in (tmp_path / "bucket" / "jobs").glob("*/*/log.txt")]
    assert any("group 0 of 2" in t for t in logs) and any("group 1 of 2" in t for t in logs)


def test_agents_poll_the_moto_s3_server(tmp_path, s3_server, monkeypatch):
    from tests.conftest import use_s3
    use_s3(s3_server, monkeypatch)
    import s3fs
    s3fs.S3FileSystem().mkdir("cluster-bucket")
    with LocalCluster(tmp_path, nodes=2, bucket_url="s3://cluster-bucket") as cluster:
        from trainstack.measure.run import resolve, submit, wait
        target = resolve(None, cluster.url)
        assert target.nodes == ("node-0", "node-1")
        job = submit(target, [sys.executable, "-c", "import os; print('hello from', "
                              "os.environ['TRAINSTACK_NODE'])"], launcher="none")
        result = wait(target, job, timeout_s=90, poll_s=0.3)
    assert result.rc == 0, cluster.agent_logs()
    assert "hello from node-1" in result.logs["node-1"]


def test_run_refuses_a_bucket_without_healthy_nodes(tmp_path):
    (tmp_path / "bucket").mkdir()
    ran = invoke("run", "--bucket-url", f"file://{tmp_path / 'bucket'}", "--", "python", "x.py")
    assert ran.exit_code == 2
    assert "no node" in ran.output and "trainstack status" in ran.output



def test_a_deployed_stack_waits_for_all_its_nodes(tmp_path, monkeypatch):
    """`run --stack S` reads the bucket and node count from the stack (Pulumi outputs): with
    fewer healthy nodes than the spec's, torchrun would wait, so `run` refuses and says why."""
    from types import SimpleNamespace

    from tests.run_helpers import health_record
    from trainstack.deploy import connect
    from trainstack.measure import status
    (tmp_path / "status").mkdir()
    (tmp_path / "status" / "i-0a.json").write_text(json.dumps(health_record("i-0a", 0)))
    inputs = SimpleNamespace(cloud="aws", spec=SimpleNamespace(
        nodes=2, capacity=lambda cloud: SimpleNamespace(type="on_demand")))
    outputs = {"bucket_name": "llm-data", "instance_type": "p5.48xlarge",
               "filesystem_capacity_gib": 4800, "filesystem_throughput_mbps_per_tib": 250}
    monkeypatch.setattr(connect, "deployed", lambda stack: (inputs, outputs))
    asked = []
    original = status.read_records

    def local(url):
        asked.append(url)
        return original(f"file://{tmp_path}")
    monkeypatch.setattr(status, "read_records", local)
    from trainstack.measure import run as run_module
    beats = run_module.heartbeats   # the agents' heartbeats live beside the records
    monkeypatch.setattr(run_module, "heartbeats",
                        lambda url, nodes: beats(f"file://{tmp_path}", nodes))
    ran = invoke("run", "--stack", "aws", "--", "python", "train.py")
    assert ran.exit_code == 2 and "only 1 of 2 nodes are healthy" in ran.output
    assert asked == ["s3://llm-data"]
    (tmp_path / "status" / "i-0b.json").write_text(json.dumps(health_record("i-0b", 1)))
    from trainstack.measure.run import resolve
    target = resolve("aws", None)
    assert target.nodes == ("i-0a", "i-0b") and target.instance_type == "p5.48xlarge"
    assert target.provisioned_mbps == pytest.approx(4800 / 1024 * 250)   # GiB/1024 x MB/s/TiB


def test_max_restarts_is_torchruns_elastic_restart(tmp_path):
    """The workers fail on their first attempt on every node (as after a preemption); with
    --max-restarts 1 torchrun restarts them on both nodes, they rendezvous again and succeed."""
    with LocalCluster(tmp_path, nodes=2) as cluster:
        ran = invoke("run", "--bucket-url", cluster.url, "--max-restarts", "1", "--timeout", "180",
                     "--", "sh", "-c",
                     'echo "attempt $TORCHELASTIC_RESTART_COUNT"; '
                     'test "$TORCHELASTIC_RESTART_COUNT" = 1')
    assert ran.exit_code == 0, ran.output + cluster.agent_logs()
    for log in (tmp_path / "bucket" / "jobs").glob("*/*/log.txt"):
        text = log.read_text()
        assert "attempt 0" in text and "attempt 1" in text
