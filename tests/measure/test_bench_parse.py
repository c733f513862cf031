"""GPU-only parsing on recorded real outputs (tests/data/bench/SOURCES.md), and the fabric
verdict against the cited floors (components/catalog/fabric_floors.csv)."""
import csv
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


def test_nccl_network_on_google_clouds_plugins():
    """Recorded GKE logs: A3 Mega's TCPXO plugin names itself FasTrak on every rank; A4's gIB
    plugin logs NET/gIB lines (Ray's worker prefix before NCCL's own). Neither is taken for
    sockets, so a multi-node run over them is never flagged as the wrong network."""
    fastrak = bench_parse.nccl_network((DATA / "nccl_fastrak_a3mega_lab22.log").read_text())
    gib = bench_parse.nccl_network((DATA / "nccl_gib_a4_dranet_kuberay.log").read_text())
    assert (fastrak, gib) == ("NET/FasTrak", "NET/gIB")
    assert bench_parse.judge_fabric("a3-megagpu-8g", 2, None, fastrak)["wrong_network"] is None
    assert bench_parse.judge_fabric("a4-highgpu-8g", 2, None, gib)["wrong_network"] is None
    assert bench_parse.judge_fabric("a4-highgpu-8g", 2, None, "NET/Socket")["wrong_network"]


@pytest.mark.parametrize("name, driver, cuda", [
    ("nvidia_smi_535_azhpc_images_343.txt", "535.161.08", "12.2"),
    ("nvidia_smi_610_sglang_27487.txt", "610.43.02", "13.3"),   # KMD / CUDA UMD labels
])
def test_nvidia_smi_versions(name, driver, cuda):
    assert bench_parse.nvidia_smi_versions((DATA / name).read_text()) == {
        "driver": driver, "cuda_driver": cuda}


def test_fabric_floor_verdicts():
    # p5.48xlarge on 2 nodes: 3200 Gbit/s = 400 GB/s per node, 16 ranks;
    # ceiling 400 x 2 x 15 / 16 = 750 GB/s, floor 0.55 x 750 = 412.5 GB/s (by hand)
    low = bench_parse.judge_fabric("p5.48xlarge", 2, 400.0, "NET/OFI")
    assert (low["floor_gbps"], low["ceiling_gbps"], low["below_floor"], low["wrong_network"],
            low["ok"]) == (412.5, 750.0, True, False, False)
    fine = bench_parse.judge_fabric("p5.48xlarge", 2, 700.0, "NET/OFI")
    assert fine["ok"] is True and fine["below_floor"] is False
    sockets = bench_parse.judge_fabric("p5.48xlarge", 2, 700.0, "NET/Socket")
    assert sockets["wrong_network"] is True and sockets["ok"] is False
    # Azure: a one-node floor (NHC check_nccl_allreduce 460.0 for ND H100 v5); across nodes the
    # 8 x 400 Gbit/s NDR InfiniBand: the same 750 GB/s ceiling on 2 nodes, over IB
    one = bench_parse.judge_fabric("Standard_ND96isr_H100_v5", 1, 450.0, None)
    assert one["floor_gbps"] == 460.0 and one["below_floor"] is True
    ib = bench_parse.judge_fabric("Standard_ND96isr_H100_v5", 2, 300.0, "NET/Socket")
    assert ib["floor_gbps"] == 412.5 and ib["wrong_network"] is True and ib["below_floor"]
    # CPU (gloo) and types without a cited floor are not judged
    assert bench_parse.judge_fabric("p5.48xlarge", 2, 0.5, None, device="cpu")["ok"] is None
    assert bench_parse.judge_fabric("p3.2xlarge", 2, 100.0, "NET/Socket")["ok"] is None


@pytest.mark.parametrize("nodes, ceiling, floor", [
    # 400 GB/s x N(n-1)/((N-1)n), n = 8N, by hand; floor = 0.55 x ceiling, to 0.01 GB/s
    (2, 750.0, 412.5),                 # 400 x 2 x 15 / (1 x 16)
    (4, 400 * 4 * 31 / (3 * 32), 284.17),  # 516.67
    (8, 400 * 8 * 63 / (7 * 64), 247.5),   # 450.0
])
def test_p5_floor_follows_the_node_count(nodes, ceiling, floor):
    got = bench_parse.floor_for("p5.48xlarge", nodes)
    assert got.ceiling_gbps == pytest.approx(ceiling) and got.min_busbw_gbps == pytest.approx(floor)


def test_the_recorded_2x_p4de_run_passes_its_floor():
    """78.33 GB/s on 2 p4de (400 Gbit/s EFA each): ceiling 50 x 2 x 15 / 16 = 93.75, floor
    51.56; the old single-node-style 300 GB/s floor judged this healthy run "below floor"."""
    rows = bench_parse.parse_nccl_tests((DATA / "nccl_tests_2x_p4de_awsome.txt").read_text())
    busbw = bench_parse.large_message_busbw(rows)
    for instance_type in ("p4de.24xlarge", "p4d.24xlarge"):
        verdict = bench_parse.judge_fabric(instance_type, 2, busbw, "NET/OFI")
        assert verdict["ceiling_gbps"] == 93.75 and verdict["floor_gbps"] == 51.56
        assert verdict["below_floor"] is False and verdict["ok"] is True
    assert busbw / 93.75 == pytest.approx(0.8355, abs=1e-4)    # well above FLOOR_EFFICIENCY


def test_the_recorded_2x_a3_mega_run_passes_its_floor():
    """Google Cloud: 338.82 GB/s on 2 a3-megagpu-8g (8 x 200 Gbit/s GPU NICs): ceiling
    200 x 2 x 15 / 16 = 375, floor 206.25 GB/s."""
    rows = bench_parse.parse_nccl_tests((DATA / "nccl_tests_2x_a3mega_tcpxo.txt").read_text())
    busbw = bench_parse.large_message_busbw(rows)
    assert busbw == 338.82
    verdict = bench_parse.judge_fabric("a3-megagpu-8g", 2, busbw, "NET/FasTrak")
    assert (verdict["ceiling_gbps"], verdict["floor_gbps"]) == (375.0, 206.25)
    assert verdict["ok"] is True and verdict["wrong_network"] is None


def test_alibaba_erdma_floor():
    """ebmgn8v: ERI up to 160 Gbit/s = 20 GB/s per node; 2 nodes: 20 x 15/8 = 37.5, floor
    0.55 x 37.5 = 20.625 GB/s; NCCL talks to eRDMA through its IB transport."""
    verdict = bench_parse.judge_fabric("ecs.ebmgn8v.48xlarge", 2, 20.0, "NET/IB")
    assert verdict["ceiling_gbps"] == 37.5 and verdict["floor_gbps"] == pytest.approx(20.62, abs=0.01)
    assert verdict["below_floor"] is True
    assert bench_parse.judge_fabric("ecs.ebmgn8v.48xlarge", 2, 30.0, "NET/Socket")["wrong_network"]


# ------------------------------------------------------- published p5 / p5en runs (issue 32)
# Each expected figure below is read off the cited table by hand (tests/data/bench/SOURCES.md):
# the best busbw of the rows at >= 1 GiB, out-of-place or in-place. Floors: 0.55 x ceiling,
# ceiling = 400 GB/s x N(n-1)/((N-1)n) for N p5 nodes of 8 GPUs (3200 Gbit/s EFA each).
P5_CEILING_FLOOR = {2: (750.0, 412.5), 4: (516.67, 284.17), 8: (450.0, 247.5),
                    16: (423.33, 232.83), 32: (411.29, 226.21)}


def _halved(text: str) -> str:
    """A degraded copy of an nccl-tests table: every row's algbw and busbw halved (what a node
    left with half its NICs could reach at best), everything else as recorded."""
    out = []
    for line in text.splitlines():
        if bench_parse.parse_nccl_tests(line):
            fields = line.split()
            for i in (-7, -6, -3, -2):              # algbw, busbw out-of-place; the same in-place
                fields[i] = f"{float(fields[i]) / 2:.2f}"
            line = " ".join(fields)
        out.append(line)
    return "\n".join(out)


def _p5_scaling_runs() -> dict[int, float]:
    """Best busbw at >= 1 GiB (1024 MB) per node count of the tabulated p5 runs."""
    rows = csv.DictReader(l for l in (DATA / "nccl_all_reduce_p5_crazyguitar.csv").read_text()
                          .splitlines() if not l.startswith("#"))
    best: dict[int, float] = {}
    for row in rows:
        if int(row["size(MB)"]) >= 1024:
            busbw = max(float(row["out busbw(GB/s)"]), float(row["in busbw(GB/s)"]))
            best[int(row["Nodes"])] = max(best.get(int(row["Nodes"]), 0.0), busbw)
    return best


@pytest.mark.parametrize("name, busbw", [
    ("nccl_tests_2x_p5_awsome.txt", 487.26),        # 16 GiB row, in-place
    ("nccl_tests_2x_p5_awsome_eks.txt", 437.89),    # 2 GiB row (its largest), in-place
])
def test_published_2x_p5_runs_pass_their_floor_and_a_halved_copy_fails(name, busbw):
    """Two published healthy 2-node p5 runs: 487.26 and 437.89 GB/s against the 412.5 floor
    (0.65 and 0.58 of the 750 ceiling). The 0.75 floor (562.5) failed both. Their network comes
    from the recorded NCCL_DEBUG=INFO lines of a p5 job (aws-ofi-nccl: NET/OFI)."""
    text = (DATA / name).read_text()
    network = bench_parse.nccl_network((DATA / "nccl_ofi_awsome_fsdp.log").read_text())
    measured = bench_parse.large_message_busbw(bench_parse.parse_nccl_tests(text))
    assert (measured, network) == (busbw, "NET/OFI")
    healthy = bench_parse.judge_fabric("p5.48xlarge", 2, measured, network)
    assert (healthy["ceiling_gbps"], healthy["floor_gbps"]) == P5_CEILING_FLOOR[2]
    assert healthy["below_floor"] is False and healthy["ok"] is True
    # halved: 487.26 / 2 = 243.63, 437.89 / 2 = 218.9 (to the table's 0.01), both < 412.5
    degraded = bench_parse.large_message_busbw(bench_parse.parse_nccl_tests(_halved(text)))
    assert degraded == pytest.approx(busbw / 2, abs=0.01)
    verdict = bench_parse.judge_fabric("p5.48xlarge", 2, degraded, network)
    assert verdict["below_floor"] is True and verdict["ok"] is False


def test_published_p5_runs_on_2_to_32_nodes_pass_their_floor():
    """One author's p5 runs on 2, 4, 8, 16 and 32 nodes (SageMaker HyperPod): each passes the
    floor for its node count, the 4-node one with 357.08 against 284.17 (the 0.75 floor, 387.5,
    failed it), and a copy with every busbw halved fails at every node count."""
    best = _p5_scaling_runs()
    assert best == {2: 477.71, 4: 357.08, 8: 355.36, 16: 356.27, 32: 321.45}
    for nodes, busbw in best.items():
        verdict = bench_parse.judge_fabric("p5.48xlarge", nodes, busbw, "NET/OFI")
        assert (verdict["ceiling_gbps"], verdict["floor_gbps"]) == P5_CEILING_FLOOR[nodes]
        assert verdict["ok"] is True, (nodes, verdict)
        halved = bench_parse.judge_fabric("p5.48xlarge", nodes, busbw / 2, "NET/OFI")
        assert halved["below_floor"] is True and halved["ok"] is False, (nodes, halved)


def test_a_published_p5_run_over_sockets_is_the_wrong_network():
    """The healthy 2-node figure with the recorded socket fallback log (NCCL_IB_DISABLE=1, NET/Socket)
    is flagged as the wrong network even though its bandwidth passes."""
    text = (DATA / "nccl_tests_2x_p5_awsome.txt").read_text()
    busbw = bench_parse.large_message_busbw(bench_parse.parse_nccl_tests(text))
    socket = bench_parse.nccl_network((DATA / "nccl_socket_nccl_1053.log").read_text())
    verdict = bench_parse.judge_fabric("p5.48xlarge", 2, busbw, socket)
    assert (socket, verdict["below_floor"], verdict["wrong_network"], verdict["ok"]) == (
        "NET/Socket", False, True, False)


def test_the_published_16_node_p5en_run_passes_its_floor():
    """p5en.48xlarge, 3200 Gbit/s EFA: the page's 17 GB row, 186.39 algbw and 369.86 busbw; the
    ratio 2(n-1)/n = 1.9843 makes n = 128 ranks (186.39 x 2 x 127/128 = 369.87), 16 nodes.
    Ceiling 400 x 16 x 127 / (15 x 128) = 423.33, floor 232.83: it passes at 0.87."""
    rows = bench_parse.parse_nccl_tests((DATA / "nccl_tests_p5en_awsome_topology.txt").read_text())
    assert [r.bytes for r in rows] == [8, 16, 17179869184]
    busbw = bench_parse.large_message_busbw(rows)
    assert busbw == 369.86
    verdict = bench_parse.judge_fabric("p5en.48xlarge", 16, busbw, "NET/OFI")
    assert (verdict["ceiling_gbps"], verdict["floor_gbps"]) == P5_CEILING_FLOOR[16]
    assert verdict["ok"] is True
    assert bench_parse.judge_fabric("p5en.48xlarge", 16, busbw / 2, "NET/OFI")["ok"] is False


def test_a_recorded_erdma_log_reads_as_nccls_ib_transport():
    """Alibaba Cloud eRDMA is a verbs device: NCCL drives it through its IB transport, which is
    what the catalog's eRDMA floors expect (NET/IB). The fixture is a recorded run's lines as
    Alibaba's ACK guide quotes them (tests/data/bench/SOURCES.md), without NCCL's `NCCL INFO`
    prefix: the parser reads the message lines either way."""
    network = bench_parse.nccl_network((DATA / "nccl_erdma_rdt_data_on_ack.log").read_text())
    assert network == "NET/IB"
    verdict = bench_parse.judge_fabric("ecs.ebmgn8v.48xlarge", 2, 30.0, network)
    assert (verdict["wrong_network"], verdict["below_floor"], verdict["ok"]) == (False, False, True)
