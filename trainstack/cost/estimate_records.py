"""The records `trainstack estimate` builds: sizing.estimate()'s SizingEstimate (memory, fit,
FLOPs, hours; compare reads it too) inside an EstimateResult (the price, cost and lifetime).

`as_json()` is the `estimate --json` document, whose keys and values are a public interface
(tests/cost/test_json_shape.py pins them): a key that is null today stays in it as null.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from trainstack.cost.sizing_cost import CostBreakdown


@dataclass
class WorkloadEcho:
    """The workload as it was sized (flags and spec merged, the shape resolved)."""
    params: float
    method: str
    precision: str
    zero_stage: int
    gpus: int
    seq_len: int
    micro_batch: int
    recompute: Any             # the normalised mode ("none" | "selective" | "full")
    lora_rank: Optional[int]   # None for full training
    attention: str
    adapter_params: int
    shape: dict[str, Any]      # layers, hidden, heads and where they came from
    tokens: Optional[float]

    def as_json(self) -> dict[str, Any]:
        return {"params": self.params, "method": self.method, "precision": self.precision,
                "zero_stage": self.zero_stage, "gpus": self.gpus, "seq_len": self.seq_len,
                "micro_batch": self.micro_batch, "recompute": self.recompute,
                "lora_rank": self.lora_rank, "attention": self.attention,
                "adapter_params": self.adapter_params, "shape": dict(self.shape),
                "tokens": self.tokens}


@dataclass
class GpuFit:
    """One catalog GPU model: does the workload fit at the asked count, and from how many."""
    memory_gb: float
    fits: bool
    min_gpus: Optional[int]    # None: at no count

    def as_json(self) -> dict[str, Any]:
        return {"memory_gb": self.memory_gb, "fits": self.fits, "min_gpus": self.min_gpus}


@dataclass
class SizingEstimate:
    """Memory per GPU, the fit, FLOPs and hours of one workload (trainstack/cost/sizing.py)."""
    workload: WorkloadEcho
    per_gpu_bytes: dict[str, int]          # weights, gradients, optimizer, activations, total
    headroom: float
    mfu: float
    nodes: int
    gpus_per_node: int
    fabric: str
    scaling_efficiency: float
    training_flops: Optional[float] = None
    flops_factor: Optional[float] = None
    fits_by_gpu: dict[str, GpuFit] = field(default_factory=dict)
    # the named GPU model, when there is one
    gpu: Optional[str] = None
    gpu_memory_bytes: Optional[int] = None
    fits: Optional[bool] = None
    min_gpus: Optional[int] = None
    min_gpus_note: Optional[str] = None
    peak_tflops: Optional[float] = None
    peak_source: Optional[str] = None      # "datasheet" | "override"
    hours: Optional[float] = None
    hours_note: Optional[str] = None       # why there are no hours

    def as_json(self) -> dict[str, Any]:
        return {"workload": self.workload.as_json(), "per_gpu_bytes": dict(self.per_gpu_bytes),
                "headroom": self.headroom, "gpu": self.gpu,
                "gpu_memory_bytes": self.gpu_memory_bytes, "fits": self.fits,
                "min_gpus": self.min_gpus, "min_gpus_note": self.min_gpus_note,
                "fits_by_gpu": {name: f.as_json() for name, f in self.fits_by_gpu.items()},
                "training_flops": self.training_flops, "flops_factor": self.flops_factor,
                "peak_tflops": self.peak_tflops, "peak_source": self.peak_source,
                "mfu": self.mfu, "nodes": self.nodes, "gpus_per_node": self.gpus_per_node,
                "fabric": self.fabric, "scaling_efficiency": self.scaling_efficiency,
                "hours": self.hours, "hours_note": self.hours_note}


@dataclass
class PricePerGpuHour:
    amount: float
    currency: str


@dataclass
class EstimateResult:
    """Everything `trainstack estimate` found: the sizing, and the price, cost and lifetime."""
    sizing: SizingEstimate
    spec: Optional[str]
    currency: str
    fx: Optional[dict[str, Any]]           # money.fx_rate(), when a conversion was involved
    cost_note: str
    fit_note: Optional[str] = None         # why it fits at no count (the command exits 1)
    gpu_note: Optional[str] = None         # which GPU was taken and which passed over
    capacity: Optional[str] = None         # with --cloud: the capacity type priced
    priced_as: Optional[str] = None        # with --cloud: which catalog price
    price_per_gpu_hour: Optional[PricePerGpuHour] = None
    cost: Optional[CostBreakdown] = None
    max_hours: Optional[float] = None
    lifetime_note: Optional[str] = None

    def as_json(self) -> dict[str, Any]:
        price = self.price_per_gpu_hour
        return {**self.sizing.as_json(), "fit_note": self.fit_note, "gpu_note": self.gpu_note,
                "capacity": self.capacity, "priced_as": self.priced_as, "spec": self.spec,
                "currency": self.currency, "fx": None if self.fx is None else dict(self.fx),
                "price_per_gpu_hour": None if price is None else {
                    "amount": price.amount, "currency": price.currency},
                "cost": None if self.cost is None else self.cost.as_dict(),
                "cost_note": self.cost_note, "max_hours": self.max_hours,
                "lifetime_note": self.lifetime_note}
