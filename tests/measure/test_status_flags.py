"""`trainstack status` flags a node whose versions differ from the rest, or whose all-reduce or
NCCL transport in the newest bench is below the cited floor of its instance type."""
import json
from pathlib import Path

from typer.testing import CliRunner

from tests.run_helpers import health_record
from trainstack.measure import bench_parse
from trainstack.cli.app import app
from trainstack.measure.status import NodeHealth, fabric_flags, version_flags

DATA = Path(__file__).parents[1] / "data" / "bench"


def runtime(torch="2.9.0", nccl="2.27.7", driver="570.86.15", digest="r@sha256:aa"):
    return {"image": "r:tag", "image_digest": digest, "pull_seconds": 40, "driver": driver,
            "versions": {"torch": torch, "cuda": "12.8", "nccl": nccl}}


def nodes(*runtimes):
    return [NodeHealth(f"node-{i}", health_record(f"node-{i}", i, runtime=r))
            for i, r in enumerate(runtimes)]


def test_the_odd_node_out_is_flagged():
    flags = version_flags(nodes(runtime(), runtime(torch="2.8.0"), runtime(), None))
    assert flags == {"node-1": ["torch 2.8.0 (others: 2.9.0)"]}
    assert version_flags(nodes(runtime(), runtime(), None)) == {}


def test_two_nodes_that_disagree_are_both_flagged():
    flags = version_flags(nodes(runtime(driver="535.161.08"), runtime(digest="r@sha256:bb")))
    assert set(flags) == {"node-0", "node-1"}
    assert "image_digest r@sha256:aa (others: r@sha256:bb)" in flags["node-0"]
    assert "driver 535.161.08 (others: 570.86.15)" in flags["node-0"]


def bench_doc(busbw, logs: dict, instance="p5.48xlarge", device="cuda"):
    networks = {n: bench_parse.nccl_network(text) for n, text in logs.items()}
    worst = "NET/Socket" if "NET/Socket" in networks.values() else next(iter(networks.values()))
    return {"version": 1, "time": "2026-12-01T15:00:00Z", "node_names": list(logs),
            "instance_type": instance, "training": {},
            "fabric": {"busbw_gbps": busbw, "device": device, "networks": networks,
                       "judge": bench_parse.judge_fabric(instance, len(logs), busbw, worst, device)}}


def test_fabric_below_floor_and_socket_fallback_are_flagged():
    ofi = (DATA / "nccl_ofi_awsome_fsdp.log").read_text()
    socket = (DATA / "nccl_socket_nccl_1053.log").read_text()
    # p5.48xlarge on 2 nodes: floor 0.55 x 750 = 412.5 GB/s; node-1 fell back to sockets (recorded log)
    flags = fabric_flags(bench_doc(310.0, {"node-0": ofi, "node-1": socket}))
    assert flags["node-0"] == ["all-reduce 310.0 GB/s below the floor 412.5 GB/s "
                               "(bench 2026-12-01T15:00:00Z)"]
    assert "NCCL network NET/Socket, expected NET/OFI" in flags["node-1"][1]
    assert fabric_flags(bench_doc(700.0, {"node-0": ofi, "node-1": ofi})) == {}
    # measured on CPU with gloo: nothing to judge
    assert fabric_flags(bench_doc(0.5, {"node-0": "", "node-1": ""}, device="cpu")) == {}
    assert fabric_flags(None) == {}


def test_status_command_shows_the_flags_and_fails(tmp_path):
    bucket = tmp_path / "bucket"
    (bucket / "status").mkdir(parents=True)
    for health in nodes(runtime(), runtime(nccl="2.21.5"), runtime()):
        (bucket / "status" / f"{health.node}.json").write_text(json.dumps(health.record))
    socket = (DATA / "nccl_socket_nccl_1053.log").read_text()
    ofi = (DATA / "nccl_ofi_awsome_fsdp.log").read_text()
    (bucket / "bench").mkdir()
    (bucket / "bench" / "20261201T150000Z.json").write_text(json.dumps(
        bench_doc(850.0, {"node-0": ofi, "node-1": ofi, "node-2": socket})))
    runner = CliRunner()
    result = runner.invoke(app, ["status", "--bucket-url", f"file://{bucket}", "--json"])
    assert result.exit_code == 1, result.output
    doc = json.loads(result.output)
    assert set(doc["flags"]) == {"node-1", "node-2"} and doc["ready"] is True
    assert doc["flags"]["node-1"] == ["nccl 2.21.5 (others: 2.27.7)"]
    text = runner.invoke(app, ["status", "--bucket-url", f"file://{bucket}"],
                         terminal_width=250).output
    assert "2 node(s) flagged" in text and "flags" in text
    assert "NET/Socket" in doc["flags"]["node-2"][0]


def test_a_slow_node_in_nccl_tests_is_named(tmp_path):
    """`bench --nccl-tests CMD` runs nccl-tests on each node alone and judges each against the
    one-node floor; here the command prints a recorded real all_reduce_perf output (2x p4de:
    78.33 GB/s) on node-1 and a healthy figure on node-0, on an ND96isr H100 v5 (floor 460)."""
    from tests.run_helpers import LocalCluster
    from trainstack.measure.bench import BenchOptions, bench
    from trainstack.measure.run import resolve
    from trainstack.measure.status import all_flags, read_records
    recorded = DATA / "nccl_tests_2x_p4de_awsome.txt"
    fast = tmp_path / "fast.txt"
    fast.write_text(recorded.read_text().replace("78.33", "480.10"))
    script = f'if [ "$TRAINSTACK_NODE" = node-0 ]; then cat {fast}; else cat {recorded}; fi'
    records = {f"node-{i}": health_record(f"node-{i}", i, instance_type="Standard_ND96isr_H100_v5",
                                          cloud="azure") for i in range(2)}
    with LocalCluster(tmp_path, nodes=2, records=records) as cluster:
        target = resolve(None, cluster.url)
        result = bench(target, BenchOptions(parts=(), nccl_tests=f"sh -c '{script}'",
                                            timeout_s=60))
    per_node = result["nccl_tests"]["per_node"]
    assert per_node["node-0"]["busbw_gbps"] == 480.10 and per_node["node-1"]["busbw_gbps"] == 78.33
    flags = all_flags(read_records(cluster.url), result)
    assert list(flags) == ["node-1"]
    assert flags["node-1"][0].startswith("nccl-tests 78.3 GB/s below the one-node floor 460 GB/s")
