"""Reading what GPU nodes print (nccl-tests, NCCL_DEBUG=INFO, nvidia-smi) and judging a fabric
against its cited floor (components/catalog/fabric_floors.csv).

The parsers are tested on recorded real outputs (tests/data/bench/SOURCES.md names them).
"""
from __future__ import annotations

import csv
import re
from dataclasses import dataclass, replace
from importlib import resources
from typing import Optional

# nccl-tests result rows: size count type redop root time algbw busbw #wrong (out-of-place),
# then the same for in-place; an optional "N: " / "[1,0]<stdout>:" rank prefix before them.
_NCCL_ROW = re.compile(r"^(?:\S+:\s*)?\s*(\d+)\s+(\d+)\s+\w+\s+\w+\s+-?\d+\s+"
                       r"([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+(\S+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)")
# NCCL's INFO lines, with their "host:pid:tid [rank] NCCL INFO " prefix or, as guides quote
# the NCCL_DEBUG_FILE's lines, without it (the message alone, at the start of the line).
_USING_NETWORK = re.compile(r"(?:NCCL INFO |^)Using network (.+?)\s*$")
_NET_LINE = re.compile(r"(?:NCCL INFO |^)(NET/\w+)\b")
_NCCL_VERSION = re.compile(r"NCCL version (\S+)")
_SMI_DRIVER = re.compile(r"(?:Driver|KMD) Version:\s*([\d.]+)")
_SMI_CUDA = re.compile(r"CUDA (?:UMD )?Version:\s*([\d.]+)")

# What "Using network X" names, as the NET/<name> of the transport.
_NETWORK_NAMES = {"socket": "NET/Socket", "ib": "NET/IB", "libfabric": "NET/OFI",
                  "aws libfabric": "NET/OFI", "efa": "NET/OFI"}


@dataclass(frozen=True)
class AllReduceRow:
    bytes: int
    busbw_gbps: float          # the better of out-of-place and in-place


def parse_nccl_tests(text: str) -> list[AllReduceRow]:
    """The result rows of an nccl-tests `*_perf` run."""
    rows = []
    for line in text.splitlines():
        match = _NCCL_ROW.match(line)
        if match:
            rows.append(AllReduceRow(int(match.group(1)),
                                     max(float(match.group(5)), float(match.group(9)))))
    return rows


def large_message_busbw(rows: list, min_bytes: int = 2**30) -> Optional[float]:
    """Bus bandwidth at large messages, where it has levelled off: the best at >= min_bytes,
    else at the largest size measured."""
    if not rows:
        return None
    big = [r.busbw_gbps for r in rows if r.bytes >= min_bytes]
    if big:
        return max(big)
    largest = max(r.bytes for r in rows)
    return max(r.busbw_gbps for r in rows if r.bytes == largest)


def nccl_network(text: str) -> Optional[str]:
    """The network NCCL chose, as NET/<name>: the "Using network X" line where NCCL prints it
    (it names the one picked even when other transports initialised), else the NET/ plugin that
    initialised (aws-ofi-nccl logs NET/OFI before NCCL's own line)."""
    chosen = None
    for line in text.splitlines():
        match = _USING_NETWORK.search(line)
        if match:
            name = match.group(1).strip()
            chosen = _NETWORK_NAMES.get(name.lower(), f"NET/{name}")
    if chosen:
        return chosen
    nets = [m.group(1) for m in map(_NET_LINE.search, text.splitlines()) if m]
    real = [n for n in nets if n not in ("NET/Plugin",)]
    # NET/IB "No device found" then NET/Socket: the socket one is what is used.
    return real[-1] if real else None


# PyTorch's own message for a CUDA allocation failure (torch.cuda.OutOfMemoryError).
_OOM = re.compile(r"OutOfMemoryError|CUDA out of memory")


def out_of_memory(text: str) -> bool:
    """Whether a job's log shows a CUDA out-of-memory failure (for --train-cmd runs that write
    no train.json of their own)."""
    return bool(_OOM.search(text))


def nccl_version(text: str) -> Optional[str]:
    match = _NCCL_VERSION.search(text)
    return match.group(1) if match else None


def nvidia_smi_versions(text: str) -> dict[str, Optional[str]]:
    """Driver and CUDA (driver API) versions from `nvidia-smi`'s header; R610 and later label
    them KMD Version and CUDA UMD Version."""
    driver = _SMI_DRIVER.search(text)
    cuda = _SMI_CUDA.search(text)
    return {"driver": driver.group(1) if driver else None, "cuda_driver": cuda.group(1) if cuda
            else None}


# --------------------------------------------------------------------------- floors

# Across nodes the all-reduce is bounded by each node's network, not by NVLink. nccl-tests
# reports busbw = algbw x 2(n-1)/n for n ranks (github.com/NVIDIA/nccl-tests doc/PERFORMANCE.md,
# "AllReduce"), so that busbw is the per-rank link speed a ring needs. A bandwidth-optimal
# all-reduce over N nodes must still move 2(N-1)/N of the data through each node's network
# (reduce-scatter plus all-gather between nodes, after reducing inside the node over NVLink:
# NCCL's tree / NVLS-tree), so at B bytes/s per node the time is >= S x 2(N-1)/N / B and
#
#     busbw ceiling = B x N(n-1) / ((N-1) n),       n = N x GPUs per node
#
# 2 p5 nodes (B = 3200 Gbit/s = 400 GB/s, n = 16): 400 x 2 x 15 / 16 = 750 GB/s; 4 nodes:
# 400 x 4 x 31 / (3 x 32) = 516.7 GB/s; it tends to B as N grows (a flat ring's bound). On 2
# nodes the ceiling exceeds B: nccl-tests issue #22 ("the reported BusBW figure can exceed the
# actual available peak BW, when running on just 2 nodes").
#
# The floor is FLOOR_EFFICIENCY x that ceiling. Published healthy runs (best busbw at >= 1 GiB,
# as large_message_busbw reads it) reach, of their ceiling:
#   2x p5.48xlarge, Slurm, to 16 GiB: 487.26 of 750 = 0.650; on EKS, to 2 GiB: 437.89 of 750 =
#     0.584 (aws-samples/awsome-distributed-training micro-benchmarks/nccl-tests/README.md;
#     tests/data/bench/nccl_tests_2x_p5_awsome.txt, nccl_tests_2x_p5_awsome_eks.txt)
#   2, 4, 8, 16, 32x p5.48xlarge: 477.71 of 750 = 0.637, 357.08 of 516.7 = 0.691, 355.36 of 450 =
#     0.790, 356.27 of 423.3 = 0.842, 321.45 of 411.3 = 0.782 (github.com/crazyguitar/aws-gpu-
#     communication-benchmark data/nccl_all_reduce.csv; tests/data/bench/nccl_all_reduce_p5_crazyguitar.csv)
#   16x p5en.48xlarge (128 ranks): 369.86 of 423.3 = 0.874 (awsome-distributed-training
#     .../topology-aware-nccl-tests/README.md; tests/data/bench/nccl_tests_p5en_awsome_topology.txt)
#   2x p4de.24xlarge (400 Gbit/s): 78.33 of 93.75 = 0.835 (awsome-distributed-training
#     micro-benchmarks/nccl-tests/README.md, tests/data/bench/nccl_tests_2x_p4de_awsome.txt)
#   2x a3-megagpu-8g (8 x 200 Gbit/s): 338.82 of 375 = 0.904 (github.com/lessizzmore/
#     create-a3mega-ztan-fork ztan-NCCL-test-result, tests/data/bench/nccl_tests_2x_a3mega_tcpxo.txt)
# 0.55 sits below the lowest (0.584), so every one of them passes, and above 0.5: a node left
# with half its network (half its NICs or EFA devices) has half the ceiling, so it fails however
# well the rest runs. (0.75, calibrated on the last two alone, failed every published p5 run.)
FLOOR_EFFICIENCY = 0.55


def busbw_ceiling_gbps(network_gbps: float, nodes: int, gpus_per_node: int) -> Optional[float]:
    """The all-reduce busbw (GB/s) a perfect network of `network_gbps` (Gbit/s) per node allows
    across `nodes` nodes; None on one node (NVLink, not the network, bounds it there)."""
    if nodes < 2:
        return None
    ranks = nodes * gpus_per_node
    return network_gbps / 8 * nodes * (ranks - 1) / ((nodes - 1) * ranks)


@dataclass(frozen=True)
class FabricFloor:
    cloud: str
    instance_type: str
    scope: str                     # one_node | multi_node
    min_busbw_gbps: Optional[float]
    expected_net: Optional[str]
    source: str
    network_gbps: Optional[float] = None    # per node, Gbit/s (multi_node)
    gpus: Optional[int] = None
    ceiling_gbps: Optional[float] = None    # for the node count asked about


def load_floors() -> list[FabricFloor]:
    text = resources.files("trainstack_components.catalog").joinpath("fabric_floors.csv").read_text("utf-8")
    return [FabricFloor(r["cloud"], r["instance_type"], r["scope"],
                        float(r["min_busbw_gbps"]) if r["min_busbw_gbps"] else None,
                        r["expected_net"] or None, r["source"],
                        float(r["network_gbps"]) if r["network_gbps"] else None,
                        int(r["gpus"]) if r["gpus"] else None)
            for r in csv.DictReader(text.splitlines())]


def floor_for(instance_type: Optional[str], nodes: int) -> Optional[FabricFloor]:
    """The cited floor of `instance_type` on `nodes` nodes: one node's from health checks; across
    nodes FLOOR_EFFICIENCY x the busbw ceiling of its cited network bandwidth."""
    scope = "multi_node" if nodes > 1 else "one_node"
    floor = next((f for f in load_floors()
                  if f.instance_type == instance_type and f.scope == scope), None)
    if floor is None or scope == "one_node" or floor.network_gbps is None:
        return floor
    ceiling = busbw_ceiling_gbps(floor.network_gbps, nodes, floor.gpus or 8)
    return replace(floor, ceiling_gbps=ceiling,
                   min_busbw_gbps=round(FLOOR_EFFICIENCY * ceiling, 2) if ceiling else None)


def judge_fabric(instance_type: Optional[str], nodes: int, busbw_gbps: Optional[float],
                 network: Optional[str], device: str = "cuda") -> dict:
    """The verdict on a measured all-reduce: `below_floor` / `wrong_network` are True only where
    a cited floor says so; on CPU (gloo) there is no NCCL and no floor to judge by."""
    floor = floor_for(instance_type, nodes)
    verdict = {"floor_gbps": floor.min_busbw_gbps if floor else None,
               "expected_net": floor.expected_net if floor else None,
               "floor_source": floor.source if floor else None,
               "ceiling_gbps": round(floor.ceiling_gbps, 2) if floor and floor.ceiling_gbps
               else None,
               "below_floor": None, "wrong_network": None, "ok": None, "note": None}
    if device != "cuda":
        verdict["note"] = "measured on CPU with gloo: no NCCL, no floor applies"
        return verdict
    if floor is None:
        verdict["note"] = f"no cited floor for {instance_type} ({'multi' if nodes > 1 else 'one'}-node)"
    if floor and floor.min_busbw_gbps is not None and busbw_gbps is not None:
        verdict["below_floor"] = busbw_gbps < floor.min_busbw_gbps
    if network == "NET/Socket" and nodes > 1 and floor is not None:
        verdict["wrong_network"] = True     # an RDMA fabric's type, talking over TCP sockets
    elif floor and floor.expected_net and network is not None:
        verdict["wrong_network"] = network != floor.expected_net
    flags = [v for v in (verdict["below_floor"], verdict["wrong_network"]) if v is not None]
    verdict["ok"] = (not any(flags)) if flags else None
    return verdict
