"""GPU-only parsing on recorded real outputs (tests/data/bench/SOURCES.md), and the fabric
verdict against the cited floors (components/catalog/fabric_floors.csv)."""
from pathlib import Path

import pytest

from trainstack.measure import bench_parse

DATA = Path(__file__).parents[1] / "data" / "bench"


def test_nccl_tests_rows_and_large_message_busbw():
    rows = bench_parse.parse_nccl_tests((DATA / "nccl_tests_2x_p4de_awsome.txt").read_text())
    assert len(rows) == 29                                   # 8 B .. 2 GiB, doubling
    assert rows[0].bytes == 8 and rows[-1].bytes == 2147483648
    # 1 GiB row: 76.79 out-of-place, 76.86 in-place; 2 GiB row: 78.33 both -> best >= 1 GiB
    assert rows[-2].busbw_gbps == 76.86
    assert bench_parse.large_message_busbw(rows) == 78.33
    # without a row >= 1 GiB, the largest size measured is the figure
    assert bench_parse.large_message_busbw(rows[:-2]) == 74.30


def test_nccl_network_from_nccl_debug_info():
    assert bench_parse.nccl_network((DATA / "nccl_socket_nccl_1053.log").read_text()) == "NET/Socket"
    ofi = (DATA / "nccl_ofi_awsome_fsdp.log").read_text()
    assert bench_parse.nccl_network(ofi) == "NET/OFI"
    assert bench_parse.nccl_version(ofi) == "2.26.2+cuda12.2"
    # "Using network X" names the transport chosen even after others initialised
    assert bench_parse.nccl_network("h:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB\n"
                                    "h:1:1 [0] NCCL INFO Using network Socket\n") == "NET/Socket"
    assert bench_parse.nccl_network("h:1:1 [0] NCCL INFO Using network AWS Libfabric\n") == "NET/OFI"
    assert bench_parse.nccl_network("no nccl here") is None


@pytest.mark.parametrize("name, driver, cuda", [
    ("nvidia_smi_535_azhpc_images_343.txt", "535.161.08", "12.2"),
    ("nvidia_smi_610_sglang_27487.txt", "610.43.02", "13.3"),   # KMD / CUDA UMD labels
])
def test_nvidia_smi_versions(name, driver, cuda):
    assert bench_parse.nvidia_smi_versions((DATA / name).read_text()) == {
        "driver": driver, "cuda_driver": cuda}


def test_fabric_floor_verdicts():
    # p5.48xlarge multi-node floor 800 GB/s, EFA through aws-ofi-nccl (awsome-distributed-training)
    low = bench_parse.judge_fabric("p5.48xlarge", 2, 700.0, "NET/OFI")
    assert (low["floor_gbps"], low["below_floor"], low["wrong_network"], low["ok"]) == \
        (800.0, True, False, False)
    fine = bench_parse.judge_fabric("p5.48xlarge", 2, 850.0, "NET/OFI")
    assert fine["ok"] is True and fine["below_floor"] is False
    sockets = bench_parse.judge_fabric("p5.48xlarge", 2, 850.0, "NET/Socket")
    assert sockets["wrong_network"] is True and sockets["ok"] is False
    # Azure: a one-node floor (NHC check_nccl_allreduce 460.0 for ND H100 v5); multi-node: IB only
    one = bench_parse.judge_fabric("Standard_ND96isr_H100_v5", 1, 450.0, None)
    assert one["floor_gbps"] == 460.0 and one["below_floor"] is True
    ib = bench_parse.judge_fabric("Standard_ND96isr_H100_v5", 2, 300.0, "NET/Socket")
    assert ib["floor_gbps"] is None and ib["wrong_network"] is True
    # CPU (gloo) and types without a cited floor are not judged
    assert bench_parse.judge_fabric("p5.48xlarge", 2, 0.5, None, device="cpu")["ok"] is None
    assert bench_parse.judge_fabric("a3-highgpu-8g", 2, 100.0, "NET/Socket")["ok"] is None


def test_bus_bandwidth_is_nccl_tests_definition():
    from trainstack.measure.bench_worker import bus_bandwidth
    # 1 GB in 0.1 s on 4 ranks: algbw 10 GB/s, busbw = 10 x 2 x 3 / 4 = 15 GB/s
    assert bus_bandwidth(10**9, 0.1, 4) == pytest.approx(15.0)
    assert bus_bandwidth(10**9, 0.1, 1) == pytest.approx(10.0)


def test_every_floor_row_cites_a_public_source():
    for floor in bench_parse.load_floors():
        assert floor.source.startswith("github.com/") and "@" in floor.source
        assert floor.scope in ("one_node", "multi_node")
        assert floor.min_busbw_gbps is not None or floor.expected_net


def test_out_of_memory_in_a_jobs_log():
    # the message torch.cuda.OutOfMemoryError carries (PyTorch's caching allocator)
    log = ("[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. "
           "GPU 3 has a total capacity of 79.10 GiB of which 1.12 GiB is free.\n")
    assert bench_parse.out_of_memory(log) is True
    assert bench_parse.out_of_memory("step 50 loss 2.1\n") is False
