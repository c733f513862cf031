"""Issue 32: the four planted bugs the tests let through, scaling efficiency above 1, and the
small display faults. Each expected figure is worked by hand in its comment."""
from __future__ import annotations

import json
import types
from dataclasses import replace
from datetime import datetime, timezone

import pytest

from trainstack.measure import bench, bench_worker
from trainstack.measure.run import JobResult, Target, worst_rc
from trainstack_components.agents import preemption_agent as pa


# --------------------------------------------------------------------------- MB/s, not MiB/s

def test_read_throughput_is_decimal_megabytes_per_second(tmp_path, monkeypatch):
    """4 MiB = 4,194,304 bytes read in 2 s: 2.097152 MB/s (10^6 bytes). In MiB/s it would be
    2.0, labelled MB/s: 4.9 % low."""
    monkeypatch.setenv("TRAINSTACK_JOB_OUT", str(tmp_path))
    monkeypatch.setattr(bench_worker, "_timed_write", lambda path, nbytes: (
        path.write_bytes(b"x"), 1.0)[1])
    monkeypatch.setattr(bench_worker, "_timed_read", lambda path: 2.0)
    folder = tmp_path / "lustre"
    folder.mkdir()
    bench_worker.storage(types.SimpleNamespace(paths=[str(folder)], checkpoint_mib=4.0))
    record = json.loads(next(tmp_path.glob("storage-*.json")).read_text())
    entry = record["paths"][str(folder)]
    assert entry["read_mbps"] == pytest.approx(2.097152)
    assert entry["write_mbps"] == pytest.approx(4.194304)


# --------------------------------------------------------------------------- per-node share

def test_every_nodes_read_is_compared_with_the_filesystems_total(monkeypatch):
    """Two nodes read at once; the slowest reads 600 MB/s, so together they draw >= 1,200 MB/s
    of a 1,000 MB/s filesystem: 1.2 x provisioned (dropping the node count says 0.6)."""
    target = Target("file:///nowhere", ("node-0", "node-1"))
    reads = {"node-0": 600.0, "node-1": 750.0}
    monkeypatch.setattr(bench, "_job", lambda *a, **k: {"job_id": "j", "rc": 0,
                                                        "result": JobResult("j")})
    monkeypatch.setattr(bench, "_out", lambda t, job, node, name: {
        "paths": {"/lustre": {"read_mbps": reads[node]}}})
    opts = bench.BenchOptions(provisioned_mbps=1000.0)
    out = bench.storage(target, opts, echo=lambda line: None)
    assert out["lustre_read_mbps_min"] == 600.0
    assert out["lustre_read_vs_provisioned"] == pytest.approx(1.2)


# --------------------------------------------------------------------------- signals

def test_a_rank_killed_by_a_signal_is_a_failure():
    """Popen reports a death by SIGKILL as -9: a shell's 128 + 9 = 137, never 0."""
    assert worst_rc([0, -9]) == 137 and worst_rc([-15]) == 143 and worst_rc([0, 0]) == 0
    result = JobResult("j", exits={"node-0": {"rc": 0}, "node-1": {"rc": -9}})
    assert result.rc == 137


# --------------------------------------------------------------------------- Azure Terminate

class FakeMetadata:
    def __init__(self, body: dict):
        self.body = json.dumps(body)

    def request(self, path, headers, method="GET", data=None):
        return self.body


@pytest.mark.parametrize("event_type, terminating", [
    ("Preempt", True), ("Terminate", True), ("Reboot", False), ("Freeze", False)])
def test_azure_terminate_is_a_notice_like_preempt(event_type, terminating):
    """learn.microsoft.com/azure/virtual-machines/linux/scheduled-events: Terminate (the VM is
    deleted) and Preempt (a Spot eviction) both end the VM; Reboot, Redeploy and Freeze do not
    take it away for good."""
    now = datetime(2026, 12, 1, 14, 0, tzinfo=timezone.utc)
    md = FakeMetadata({"Events": [{"EventId": "e1", "EventType": event_type,
                                   "Resources": ["node-1"], "EventStatus": "Scheduled",
                                   "NotBefore": "Tue, 01 Dec 2026 14:05:00 GMT"}]})
    notices = pa.poll_azure(md, now, "node-1")
    assert len(notices) == 1 and notices[0].terminating is terminating
    assert notices[0].kind == event_type.lower()


# --------------------------------------------------------------------------- scaling > 1

def test_a_superlinear_scaling_efficiency_is_run_again_then_refused(monkeypatch):
    """2 nodes: 2,560 tokens/s against 1,000 on one node is 1.28 > 1 + 0.05: run again; still
    1.28: refused (None), kept aside, flagged in the summary."""
    target = Target("file:///nowhere", ("node-0", "node-1"))
    calls = []

    def runs(t, opts, echo):
        calls.append(1)
        return {"one_node": {"tokens_per_s": 1000.0, "nodes": 1, "rc": 0},
                "all_nodes": {"tokens_per_s": 2560.0, "nodes": 2, "rc": 0}}
    monkeypatch.setattr(bench, "_training_runs", runs)
    out = bench.training(target, bench.BenchOptions(), echo=lambda line: None)
    assert len(calls) == 2 and out["scaling_attempts"] == [1.28, 1.28]
    assert out["scaling_efficiency"] is None and out["scaling_efficiency_refused"] == 1.28
    lines = bench.summary_lines({"readiness": {"nodes_healthy": 2, "nodes_reported": 2,
                                               "boot_to_healthy_s_max": None,
                                               "image_pull_s_max": None},
                                 "training": out, "nodes": 2})
    assert any("REFUSED 1.28" in line for line in lines)


def test_a_second_run_within_tolerance_is_used(monkeypatch):
    target = Target("file:///nowhere", ("node-0", "node-1"))
    figures = iter([2560.0, 1800.0])
    monkeypatch.setattr(bench, "_training_runs", lambda t, o, e: {
        "one_node": {"tokens_per_s": 1000.0}, "all_nodes": {"tokens_per_s": next(figures)}})
    out = bench.training(target, bench.BenchOptions(), echo=lambda line: None)
    assert out["scaling_efficiency"] == pytest.approx(0.9)          # 1,800 / (2 x 1,000)
    assert "scaling_efficiency_refused" not in out


def test_compare_never_uses_an_efficiency_above_one():
    from tests.measure.test_measured import ROW, WORKLOAD, bench as bench_doc
    from trainstack.cost.measured import measure_row
    m = measure_row(ROW, WORKLOAD, bench_doc(efficiency=1.28)).as_json()
    assert m.get("tokens_per_s") is None and m.get("hours") is None and m.get("cost_total") is None
    assert "1.28" in m["notes"][0] and "not used" in m["notes"][0]
    # within the tolerance (1.04 <= 1.05) it is used as measured
    assert measure_row(ROW, WORKLOAD, bench_doc(efficiency=1.04)).as_json()["scaling_efficiency"] \
        == 1.04
    # a refused figure in the bench file is not used either
    doc = bench_doc(efficiency=None)
    doc["training"]["scaling_efficiency_refused"] = 1.3
    assert "1.30" in measure_row(ROW, WORKLOAD, doc).as_json()["notes"][0]


# --------------------------------------------------------------------------- display

def test_tokens_per_second_below_one_and_assumed_figures_without_a_bench():
    """A measured 0.42 tokens/s shows as 0.42, not 0; a cloud without a bench still shows its
    assumed tokens/s (3.6e9 tokens / 36,000 s = 100,000) and cost per million tokens
    (1,005 / 3,600 = 0.2792)."""
    from tests.measure.test_measured import ROW, WORKLOAD, bench as bench_doc
    from trainstack.cost.compare_records import Comparison, MeasuredCloud, MeasuredSet
    from trainstack.cost.measured import measure_row, rows_for_display
    slow = measure_row(ROW, WORKLOAD, bench_doc(tps_one=0.25, efficiency=0.84))
    gcp = replace(ROW, cloud="gcp")
    comparison = Comparison.__new__(Comparison)
    comparison.currency, comparison.workload = "USD", WORKLOAD
    comparison.clouds = [ROW, gcp]
    comparison.measured = MeasuredSet(clouds={"aws": slow, "gcp": MeasuredCloud(notes=["none"])})
    table = dict(rows_for_display(comparison))
    aws_tps, gcp_tps = table["tokens/s"]
    assert aws_tps == "100,000 | 0.42"                   # 0.25 x 2 x 0.84
    assert gcp_tps == "100,000 | -"
    assert table["USD per million tokens"][1] == "0.2792 | -"


# --------------------------------------------------------------------------- smaller

def test_fabric_reads_each_nodes_driver_from_nvidia_smi(tmp_path, monkeypatch):
    """bench's fabric part parses the nvidia-smi header each node's worker saved (a recorded
    real one here: driver 535.161.08, CUDA 12.2, tests/data/bench/SOURCES.md)."""
    from pathlib import Path
    smi = (Path(__file__).parents[1] / "data/bench/nvidia_smi_535_azhpc_images_343.txt").read_text()
    target = Target(f"file://{tmp_path}", ("node-0",), instance_type="Standard_ND96isr_H100_v5")
    out = tmp_path / "jobs/j/node-0/out"
    out.mkdir(parents=True)
    (out / "nvidia-smi-node-0.txt").write_text(smi)
    (out / "allreduce.json").write_text(json.dumps({"ranks": 8, "backend": "nccl",
                                                    "device": "cuda", "sizes": [
                                                        {"bytes": 2**30, "busbw_gbps": 470.0}]}))
    monkeypatch.setattr(bench, "_job", lambda *a, **k: {
        "job_id": "j", "rc": 0, "result": JobResult("j", logs={"node-0": "NCCL INFO Using network IB\n"})})
    fabric = bench.fabric(target, bench.BenchOptions(), echo=lambda line: None)
    assert fabric["drivers"] == {"node-0": {"driver": "535.161.08", "cuda_driver": "12.2"}}
    assert fabric["judge"]["floor_gbps"] == 460.0 and fabric["judge"]["ok"] is True


def test_infiniband_log_names_net_ib():
    """A recorded Azure InfiniBand NCCL_DEBUG=INFO excerpt (Azure/aks-rdma-infiniband#30)."""
    from pathlib import Path

    from trainstack.measure import bench_parse
    text = (Path(__file__).parents[1] / "data/bench/nccl_ib_azure_aks_rdma_30.log").read_text()
    assert bench_parse.nccl_network(text) == "NET/IB"
    verdict = bench_parse.judge_fabric("Standard_ND96isr_H100_v5", 2, 600.0,
                                       bench_parse.nccl_network(text))
    assert verdict["wrong_network"] is False and verdict["ok"] is True
