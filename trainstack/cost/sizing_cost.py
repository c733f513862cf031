"""Run cost and monthly run-rate (the cost seam of trainstack/cost/sizing.py)."""
from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Any, Optional

from trainstack_components.memory import _in_range, _positive_int

DEFAULT_IDLE_OVERHEAD = 0.15      # [Seed] sec. 3.3: idle GPUs while setting up and debugging
DEFAULT_PREEMPTION_OVERHEAD = 0.10  # spot: lost work redone after reclaims + restart time
HOURS_PER_MONTH = 730    # the month that per-GB-month storage prices are quoted over


# --------------------------------------------------------------------------- cost

@dataclass(frozen=True)
class CostBreakdown:
    """Cost of one run. `compute` and `storage` already include the overheads; `overhead` says
    how much of them the idle/debug and preemption allowances added."""
    currency: str
    hours: float           # training hours from training_hours()
    billed_hours: float    # the hours paid for: needed_hours, cut at max_hours
    compute: float
    filesystem: float
    bucket: float
    transfer: float
    overhead: float
    needed_hours: Optional[float] = None  # hours x (1 + idle) x (1 + preemption if spot)
    max_hours: Optional[float] = None     # the declared lifetime; compute stops there

    @property
    def finishes(self) -> bool:
        """Whether the job ends before the lifetime stops the cluster."""
        return self.max_hours is None or (self.needed_hours or 0) <= self.max_hours

    @property
    def done_fraction(self) -> float:
        """The share of the job that runs before the lifetime stops it (1.0 when it finishes)."""
        if self.finishes or not self.needed_hours:
            return 1.0
        return self.billed_hours / self.needed_hours

    @property
    def storage(self) -> float:
        return self.filesystem + self.bucket

    @property
    def total(self) -> float:
        return self.compute + self.storage + self.transfer

    def converted(self, rate: float, currency: str) -> "CostBreakdown":
        """The same run in another currency; `rate` = target units per current unit."""
        r = _in_range("rate", rate, 0, 1e6, "Give the exchange rate, e.g. --cny-rate 7.27.")
        return replace(self, currency=currency, compute=self.compute * r,
                       filesystem=self.filesystem * r, bucket=self.bucket * r,
                       transfer=self.transfer * r, overhead=self.overhead * r)

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "storage": self.storage, "total": self.total,
                "finishes": self.finishes, "done_fraction": self.done_fraction}

    def lifetime_note(self) -> Optional[str]:
        """What the lifetime does to the run, in words; None when the job finishes in it."""
        if self.finishes:
            return None
        return (f"does not finish within the lifetime: the job needs {self.needed_hours:,.0f} "
                f"billed h but max_hours {self.max_hours:g} stops the cluster after "
                f"{self.done_fraction:.0%} of it; the cost is for the {self.billed_hours:,.0f} h "
                f"that run")


def _price(field: str, value: Any) -> float:
    return _in_range(field, value, 0, 1e9, "Prices and sizes cannot be negative.",
                     low_open=False)


def run_cost(*, nodes: int, price_per_node_hour: float, hours: float,
             filesystem_gib: float = 0, filesystem_price_per_gib_month: float = 0,
             bucket_gb: float = 0, bucket_price_per_gb_month: float = 0,
             transfer_gb: float = 0, transfer_price_per_gb: float = 0,
             idle_overhead: float = DEFAULT_IDLE_OVERHEAD, spot: bool = False,
             preemption_overhead: float = DEFAULT_PREEMPTION_OVERHEAD,
             currency: str = "USD", max_hours: Optional[float] = None) -> CostBreakdown:
    """Price the planned run, not a month [Seed] sec. 3.3.

    compute  = nodes x $/node-hour x billed hours (pass the spot price with spot=True)
    storage  = filesystem GiB x $/GiB-month x billed hours / 730
             + bucket GB x $/GB-month x billed hours / 730 (both exist for the whole run)
    transfer = GB x $/GB (free tiers are not deducted)
    billed hours = hours x (1 + idle_overhead) x (1 + preemption_overhead if spot), cut at
                   max_hours (the declared lifetime stops compute there: what runs is priced,
                   and `finishes` / `done_fraction` say how much of the job that is)
    Overheads are fractions (0.15 = 15%).
    """
    _positive_int("nodes", nodes, 1_000_000)
    hours = _price("hours", hours)
    idle = _in_range("idle_overhead", idle_overhead, 0, 10,
                     "It is a fraction of the run, e.g. 0.15 for 15%.", low_open=False)
    pre = _in_range("preemption_overhead", preemption_overhead, 0, 10,
                    "It is a fraction of the run, e.g. 0.1 for 10%.", low_open=False)
    needed = hours * (1 + idle) * (1 + (pre if spot else 0))
    if max_hours is not None:
        max_hours = _in_range("max_hours", max_hours, 0, 1e7, "It is the lifetime in hours.")
    billed = needed if max_hours is None else min(needed, max_hours)
    compute = nodes * _price("price_per_node_hour", price_per_node_hour) * billed
    months = billed / HOURS_PER_MONTH
    fs = (_price("filesystem_gib", filesystem_gib)
          * _price("filesystem_price_per_gib_month", filesystem_price_per_gib_month) * months)
    bucket = (_price("bucket_gb", bucket_gb)
              * _price("bucket_price_per_gb_month", bucket_price_per_gb_month) * months)
    transfer = _price("transfer_gb", transfer_gb) * _price("transfer_price_per_gb",
                                                           transfer_price_per_gb)
    # The overheads' share of every billed hour, cut at the lifetime or not.
    overhead = (compute + fs + bucket) * (1 - hours / needed) if needed else 0.0
    return CostBreakdown(currency, hours, billed, compute, fs, bucket, transfer, overhead,
                         needed, max_hours)


def spot_discounted(spot: bool, ondemand_usd_hr: float, spot_usd_hr: Optional[float]) -> bool:
    """Whether a spot run is priced as spot: only a cited spot price below on-demand is one. AWS
    snapshots show spot equal to on-demand for some rows (spot is capped at on-demand) and some
    rows have none; adding the preemption overhead there would make spot dearer than on-demand
    for a price that is no discount, so such a run is priced like on-demand."""
    return spot and spot_usd_hr is not None and spot_usd_hr < ondemand_usd_hr


def monthly_run_rate(*, nodes: int, price_per_node_hour: float, filesystem_gib: float = 0,
                     filesystem_price_per_gib_month: float = 0, bucket_gb: float = 0,
                     bucket_price_per_gb_month: float = 0) -> float:
    """What the cluster costs per 730-hour month if left running (the Infracost view)."""
    _positive_int("nodes", nodes, 1_000_000)
    return (nodes * _price("price_per_node_hour", price_per_node_hour) * HOURS_PER_MONTH
            + _price("filesystem_gib", filesystem_gib)
            * _price("filesystem_price_per_gib_month", filesystem_price_per_gib_month)
            + _price("bucket_gb", bucket_gb)
            * _price("bucket_price_per_gb_month", bucket_price_per_gb_month))
