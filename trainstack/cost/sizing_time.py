"""Training FLOPs, scaling efficiency and hours (the time seam of trainstack/cost/sizing.py)."""
from __future__ import annotations

import math
from typing import Optional

from trainstack_components.memory import (
    DEFAULT_MFU,
    METHODS,
    SizingError,
    _in_range,
    _positive_int,
    check_mfu,
    check_params,
    check_scaling_efficiency,
    check_tokens,
)

# FLOPs per parameter per token. Full training: forward 2 + backward 4 [Kaplan]. LoRA/QLoRA:
# forward 2 + backward 2 for the activation gradients that must still flow through every frozen
# layer; the frozen weights get no weight gradients (the other 2). The adapters' own FLOPs are
# ~1% of the base and are ignored.
FLOPS_FACTOR = {"full": 6.0, "lora": 4.0, "qlora": 4.0}

# Scaling efficiency = achieved / linear speed-up, on top of MFU. One node: 1.0, because MFU
# already absorbs intra-node (NVLink) losses. Across nodes the fabric decides [Seed] sec. 1-3:
# without RDMA "你花了 8 卡的价钱，实际扩展效率只有 5 卡水平" -> 5/8; with RDMA (IB, RoCE, EFA,
# eRDMA) the article expects near-linear scaling, for which we assume 0.9. Both are defaults
# for planning, not measurements: pass scaling_efficiency (--scaling-efficiency) when you have
# a benchmark.
SCALING_EFFICIENCY = {"single_node": 1.0, "rdma": 0.9, "tcp": 5 / 8}
# Catalog fabric names (instance_types.csv `fabric`) -> class. GPUDirect-TCPX(O) is not RDMA
# and the catalog marks it rdma=false, so it takes the conservative TCP figure.
FABRIC_CLASS = {"rdma": "rdma", "efa": "rdma", "infiniband": "rdma", "ib": "rdma",
                "roce": "rdma", "erdma": "rdma", "tcp": "tcp", "gpudirect-tcpx": "tcp",
                "gpudirect-tcpxo": "tcp"}


# --------------------------------------------------------------------------- FLOPs and time

def training_flops(params: float, tokens: float, method: str = "full",
                   flops_factor: Optional[float] = None) -> float:
    """k * params * tokens; k from FLOPS_FACTOR unless `flops_factor` overrides it (e.g. 2 to
    reproduce the seed article's 2 x N x T estimate)."""
    params, tokens = check_params(params), check_tokens(tokens)
    if method not in METHODS:
        raise SizingError("method", f"unknown method {method!r}; use one of {', '.join(METHODS)}.")
    if flops_factor is None:
        k = FLOPS_FACTOR[method]
    else:
        k = _in_range("flops_factor", flops_factor, 0, 100,
                      "It is FLOPs per parameter per token: 6 for full training, 4 for LoRA.")
    return k * params * tokens


def fabric_class(fabric: str) -> str:
    """'rdma' or 'tcp' for a fabric name from the catalog (efa, infiniband, roce, ...)."""
    key = str(fabric).strip().lower()
    if key not in FABRIC_CLASS:
        raise SizingError("fabric", f"unknown fabric {fabric!r}; use rdma or tcp (or one of "
                          f"{', '.join(sorted(FABRIC_CLASS))}).")
    return FABRIC_CLASS[key]


def default_scaling_efficiency(nodes: int, fabric: str = "rdma") -> float:
    """The planning default from SCALING_EFFICIENCY: 1.0 on one node, else by fabric class."""
    _positive_int("nodes", nodes, 1_000_000)
    cls = fabric_class(fabric)
    return SCALING_EFFICIENCY["single_node"] if nodes == 1 else SCALING_EFFICIENCY[cls]


def training_hours(flops: float, gpus: int, peak_tflops: float, mfu: float = DEFAULT_MFU,
                   scaling_efficiency: float = 1.0) -> float:
    """FLOPs / (gpus x peak x MFU) / 3600 / scaling efficiency."""
    if not isinstance(flops, (int, float)) or not math.isfinite(flops) or flops <= 0:
        raise SizingError("training_flops", f"must be positive, got {flops!r}.")
    _positive_int("gpus", gpus, 1_000_000)
    peak = _in_range("peak_tflops", peak_tflops, 0, 1e6,
                     "Give the GPU's dense peak in TFLOPS for the precision, e.g. 312 for A100.")
    seconds = flops / (gpus * peak * 1e12 * check_mfu(mfu))
    return seconds / 3600 / check_scaling_efficiency(scaling_efficiency)
