"""The records `trainstack compare` builds: one CompareRow per configured cloud inside one
Comparison, plus the measured figures `compare --measured` adds (trainstack/cost/measured.py).

compare builds them, report and measured read them; all three import this module and none of
them another. `as_json()` is the `compare --json` document, whose keys and values are a public
interface (tests/cost/test_json_shape.py pins them): a key that is null today stays in it as null.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from trainstack.cost.sizing_cost import CostBreakdown
from trainstack_components.catalog.run_prices import RunPrice

OK, ERROR, NOT_IMPLEMENTED_STATUS = "ok", "error", "not_implemented"


@dataclass
class PolicyVerdict:
    """The policy pack on one offline plan: "fail" when a mandatory policy fails, "warn" when
    only advisory ones do, "pass"; "n/a" without a plan or without the pack."""
    verdict: str = "n/a"
    detail: str = "no plan"
    failed: list[str] = field(default_factory=list)
    blocking: list[str] = field(default_factory=list)
    checked: int = 0

    def as_json(self) -> dict[str, Any]:
        return {"verdict": self.verdict, "detail": self.detail, "failed": list(self.failed),
                "blocking": list(self.blocking), "checked": self.checked}


@dataclass
class DataSizes:
    """What the bucket holds and what leaves to the internet (None: no workload says)."""
    bucket_gb: float
    bucket_note: str
    transfer_gb: float
    transfer_note: str
    dataset_gb: Optional[float] = None
    model_gb: Optional[float] = None
    checkpoint_gb: Optional[float] = None
    result_gb: Optional[float] = None

    def as_json(self) -> dict[str, Any]:
        return {"dataset_gb": self.dataset_gb, "model_gb": self.model_gb,
                "checkpoint_gb": self.checkpoint_gb, "result_gb": self.result_gb,
                "bucket_gb": self.bucket_gb, "bucket_note": self.bucket_note,
                "transfer_gb": self.transfer_gb, "transfer_note": self.transfer_note}


@dataclass
class RowCost:
    """The run's cost on one cloud: `run` is None until the row has hours to price."""
    run: Optional[CostBreakdown] = None
    complete: bool = False            # no part of the total is unpriced
    missing: list[str] = field(default_factory=list)   # the unpriced parts

    @property
    def total(self) -> Optional[float]:
        return None if self.run is None else self.run.total

    @property
    def compute(self) -> Optional[float]:
        return None if self.run is None else self.run.compute

    @property
    def storage(self) -> Optional[float]:
        return None if self.run is None else self.run.storage

    @property
    def transfer(self) -> Optional[float]:
        return None if self.run is None else self.run.transfer

    @property
    def billed_hours(self) -> Optional[float]:
        return None if self.run is None else self.run.billed_hours

    @property
    def finishes(self) -> bool:
        return self.run is None or self.run.finishes

    def as_json(self) -> dict[str, Any]:
        run = self.run
        if run is None:
            # the lifetime keys (needed_hours ... done_fraction) appear only on a priced row
            return {"compute": None, "storage": None, "transfer": None, "total": None,
                    "filesystem": None, "bucket": None, "overhead": None,
                    "billed_hours": None, "complete": self.complete,
                    "missing": list(self.missing)}
        return {"compute": run.compute, "storage": run.storage, "transfer": run.transfer,
                "total": run.total, "filesystem": run.filesystem, "bucket": run.bucket,
                "overhead": run.overhead, "billed_hours": run.billed_hours,
                "needed_hours": run.needed_hours, "max_hours": run.max_hours,
                "finishes": run.finishes, "done_fraction": run.done_fraction,
                "complete": self.complete, "missing": list(self.missing)}


@dataclass
class FilesystemLine:
    """The plan's own filesystem and its price."""
    product: Optional[str]
    capacity_gib: Optional[int]
    throughput_mbps_per_tib: Optional[int]
    price: RunPrice

    @property
    def throughput_mbps(self) -> Optional[float]:
        cap, tier = self.capacity_gib, self.throughput_mbps_per_tib
        return (cap / 1024 * tier) if cap and tier else None

    def as_json(self) -> dict[str, Any]:
        return {"product": self.product, "capacity_gib": self.capacity_gib,
                "throughput_mbps_per_tib": self.throughput_mbps_per_tib,
                "throughput_mbps": self.throughput_mbps, "price": self.price.as_dict()}


@dataclass
class PricedAmount:
    """Gigabytes of bucket or of internet transfer, and the price per GB."""
    gb: float
    price: RunPrice

    def as_json(self) -> dict[str, Any]:
        return {"gb": self.gb, "price": self.price.as_dict()}


@dataclass
class CompareRow:
    """One configured cloud: its plan, hours and cost, or why there are none (`status` "error"
    with the SpecError's message, or "not_implemented"). Everything but `cloud`, `status`,
    `message`, `cost`, `policy` and the lists is None unless the cloud was planned."""
    cloud: str
    status: str
    message: Optional[str] = None
    # the plan's selection
    region: Optional[str] = None
    zone: Optional[str] = None
    instance_type: Optional[str] = None
    nodes: Optional[int] = None
    gpu: Optional[str] = None
    gpus: Optional[int] = None
    interconnect: Optional[str] = None
    fabric: Optional[str] = None
    rdma: Optional[bool] = None
    # the node price: the capacity it is bought at and which catalog price that is
    spot: Optional[bool] = None
    capacity: Optional[str] = None
    priced_as: Optional[str] = None
    usd_per_hour: Optional[float] = None
    price_per_hour: Optional[float] = None    # in the comparison's currency
    price_source: Optional[str] = None
    price_as_of: Optional[str] = None
    # hours (trainstack/cost/sizing.py) and whether the workload fits the GPUs
    peak_tflops: Optional[float] = None
    mfu: Optional[float] = None
    scaling_efficiency: Optional[float] = None
    hours: Optional[float] = None
    hours_note: Optional[str] = None
    fits: Optional[bool] = None
    min_gpus: Optional[int] = None
    fit_note: Optional[str] = None
    per_gpu_bytes_total: Optional[int] = None
    # money
    cost: RowCost = field(default_factory=RowCost)
    monthly_run_rate: Optional[float] = None
    filesystem: Optional[FilesystemLine] = None
    bucket: Optional[PricedAmount] = None
    transfer: Optional[PricedAmount] = None
    policy: PolicyVerdict = field(default_factory=PolicyVerdict)
    unpriced: list[str] = field(default_factory=list)
    passed_over: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    # the marks mark_best sets among the rows
    cheapest: bool = False
    fastest: bool = False

    @property
    def ok(self) -> bool:
        return self.status == OK

    def run_rate_complete(self) -> bool:
        """The run-rate prices nodes, filesystem and bucket: a missing one of those makes it +?."""
        return not [u for u in self.unpriced if u != "transfer"]

    def as_json(self) -> dict[str, Any]:
        return {
            "cloud": self.cloud, "status": self.status, "message": self.message,
            "region": self.region, "zone": self.zone, "instance_type": self.instance_type,
            "nodes": self.nodes, "gpu": self.gpu, "gpus": self.gpus,
            "interconnect": self.interconnect, "fabric": self.fabric, "rdma": self.rdma,
            "spot": self.spot, "capacity": self.capacity, "priced_as": self.priced_as,
            "usd_per_hour": self.usd_per_hour, "price_per_hour": self.price_per_hour,
            "price_source": self.price_source, "price_as_of": self.price_as_of,
            "peak_tflops": self.peak_tflops, "mfu": self.mfu,
            "scaling_efficiency": self.scaling_efficiency, "hours": self.hours,
            "hours_note": self.hours_note, "fits": self.fits, "min_gpus": self.min_gpus,
            "fit_note": self.fit_note, "per_gpu_bytes_total": self.per_gpu_bytes_total,
            "cost": self.cost.as_json(), "monthly_run_rate": self.monthly_run_rate,
            "filesystem": None if self.filesystem is None else self.filesystem.as_json(),
            "bucket": None if self.bucket is None else self.bucket.as_json(),
            "transfer": None if self.transfer is None else self.transfer.as_json(),
            "policy": self.policy.as_json(), "cheapest": self.cheapest,
            "unpriced": list(self.unpriced), "passed_over": list(self.passed_over),
            "fastest": self.fastest, "notes": list(self.notes),
            # Published as null from the first release on; the measured figures are under the
            # document's top-level "measured" (MeasuredSet). Scripts may read the key.
            "measured": None}


@dataclass
class WorkloadSummary:
    """The spec's workload as the comparison echoes it (all but nodes/spot/gpu None without)."""
    nodes: int
    spot: bool
    gpu: list[str]
    params: Optional[float] = None
    method: Optional[str] = None
    precision: Optional[str] = None
    train_tokens: Optional[float] = None
    mfu: Optional[float] = None

    def as_json(self) -> dict[str, Any]:
        return {"params": self.params, "method": self.method, "precision": self.precision,
                "train_tokens": self.train_tokens, "mfu": self.mfu, "nodes": self.nodes,
                "spot": self.spot, "gpu": list(self.gpu)}


@dataclass
class Assumptions:
    """Every figure the rows assume that the spec does not state."""
    sizes: DataSizes
    bytes_per_token: float
    idle_overhead: float
    preemption_overhead: Optional[float]   # None when no row is bought at spot
    scaling_efficiency: dict[str, float]
    hours_per_month: float

    def as_json(self) -> dict[str, Any]:
        return {**self.sizes.as_json(), "bytes_per_token": self.bytes_per_token,
                "idle_overhead": self.idle_overhead,
                "preemption_overhead": self.preemption_overhead,
                "scaling_efficiency": dict(self.scaling_efficiency),
                "hours_per_month": self.hours_per_month}


# --------------------------------------------------------------------------- measured

@dataclass
class BenchRef:
    """Which bench result measured a row."""
    file: Optional[str]
    time: Optional[str]
    nodes: Optional[int]


@dataclass
class MeasuredSpeed:
    """The cluster's measured speed, from the bench's one-node rate and scaling efficiency."""
    tokens_per_s: float
    scaling_efficiency: float
    hours: Optional[float]            # None without train tokens


@dataclass
class MeasuredVersusAssumed:
    """The assumed speed the measured one replaces, and the MFU the measured one implies."""
    assumed_tokens_per_s: float
    mfu: Optional[float]


@dataclass
class MeasuredCost:
    total: float
    complete: bool
    per_million_tokens: float
    assumed_per_million_tokens: float


@dataclass
class MeasuredCloud:
    """The measured figures of one row; each group is None where the bench cannot give it
    (the notes say why)."""
    notes: list[str] = field(default_factory=list)
    bench: Optional[BenchRef] = None
    tokens_per_s_one_node: Optional[float] = None
    speed: Optional[MeasuredSpeed] = None
    versus: Optional[MeasuredVersusAssumed] = None
    cost: Optional[MeasuredCost] = None

    def as_json(self) -> dict[str, Any]:
        # A figure the bench could not give is left out, not null (as published since issue 22).
        doc: dict[str, Any] = {}
        if self.bench is not None:
            doc.update(bench=self.bench.file, bench_time=self.bench.time,
                       bench_nodes=self.bench.nodes)
        doc["notes"] = list(self.notes)
        if self.tokens_per_s_one_node is not None:
            doc["tokens_per_s_one_node"] = self.tokens_per_s_one_node
        if self.speed is not None:
            doc.update(tokens_per_s=self.speed.tokens_per_s,
                       scaling_efficiency=self.speed.scaling_efficiency, hours=self.speed.hours)
        if self.versus is not None:
            doc.update(assumed_tokens_per_s=self.versus.assumed_tokens_per_s,
                       mfu=self.versus.mfu)
        if self.cost is not None:
            doc.update(cost_total=self.cost.total, cost_complete=self.cost.complete,
                       cost_per_million_tokens=self.cost.per_million_tokens,
                       assumed_cost_per_million_tokens=self.cost.assumed_per_million_tokens)
        return doc


@dataclass
class MeasuredSet:
    """`compare --measured`: per cloud the measured figures, and the bench file of each."""
    clouds: dict[str, MeasuredCloud] = field(default_factory=dict)
    benches: dict[str, str] = field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        return {"clouds": {c: m.as_json() for c, m in self.clouds.items()},
                "benches": dict(self.benches)}


# --------------------------------------------------------------------------- the whole

@dataclass
class Comparison:
    """Everything `trainstack compare` found for one spec."""
    spec: str
    name: str
    currency: str
    fx: dict[str, Any]      # money.fx_rate(): the rate of every CNY <-> USD conversion here
    workload: WorkloadSummary
    assumptions: Assumptions
    clouds: list[CompareRow]
    cheapest: list[str] = field(default_factory=list)
    fastest: list[str] = field(default_factory=list)
    measured: Optional[MeasuredSet] = None

    def as_json(self) -> dict[str, Any]:
        doc = {"spec": self.spec, "name": self.name, "currency": self.currency,
               "fx": dict(self.fx), "workload": self.workload.as_json(),
               "assumptions": self.assumptions.as_json(), "cheapest": list(self.cheapest),
               "fastest": list(self.fastest), "clouds": [r.as_json() for r in self.clouds]}
        if self.measured is not None:
            doc["measured"] = self.measured.as_json()
        return doc


def cheapest_caveat(result: Comparison) -> Optional[str]:
    """When the cheapest cloud is priced on other terms than a cloud it beats (spot against on
    demand, a reservation against a list price), say so: `cheapest` alone would read as like
    for like."""
    best = [r for r in result.clouds if r.cheapest]
    beaten = [r for r in result.clouds if r.ok and not r.cheapest and r.cost.total is not None]
    terms = {r.cloud: r.priced_as or "?" for r in best + beaten}
    if not best or len(set(terms.values())) < 2:
        return None
    listed = "; ".join(f"{cloud}: {how}" for cloud, how in terms.items())
    return (f"cheapest compares unlike prices ({listed}): spot capacity can be preempted and "
            "its price moves. Set the same clouds.<cloud>.capacity on every cloud to compare "
            "like with like.")
