"""Run cost and monthly run-rate (the cost seam of trainstack/sizing.py)."""
from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Any

from components.memory import _in_range, _positive_int

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
    billed_hours: float    # hours x (1 + idle) x (1 + preemption if spot)
    compute: float
    filesystem: float
    bucket: float
    transfer: float
    overhead: float

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
        return {**asdict(self), "storage": self.storage, "total": self.total}


def _price(field: str, value: Any) -> float:
    return _in_range(field, value, 0, 1e9, "Prices and sizes cannot be negative.",
                     low_open=False)


def run_cost(*, nodes: int, price_per_node_hour: float, hours: float,
             filesystem_gib: float = 0, filesystem_price_per_gib_month: float = 0,
             bucket_gb: float = 0, bucket_price_per_gb_month: float = 0,
             transfer_gb: float = 0, transfer_price_per_gb: float = 0,
             idle_overhead: float = DEFAULT_IDLE_OVERHEAD, spot: bool = False,
             preemption_overhead: float = DEFAULT_PREEMPTION_OVERHEAD,
             currency: str = "USD") -> CostBreakdown:
    """Price the planned run, not a month [Seed] sec. 3.3.

    compute  = nodes x $/node-hour x billed hours (pass the spot price with spot=True)
    storage  = filesystem GiB x $/GiB-month x billed hours / 730
             + bucket GB x $/GB-month x billed hours / 730 (both exist for the whole run)
    transfer = GB x $/GB (free tiers are not deducted)
    billed hours = hours x (1 + idle_overhead) x (1 + preemption_overhead if spot)
    Overheads are fractions (0.15 = 15%).
    """
    _positive_int("nodes", nodes, 1_000_000)
    hours = _price("hours", hours)
    idle = _in_range("idle_overhead", idle_overhead, 0, 10,
                     "It is a fraction of the run, e.g. 0.15 for 15%.", low_open=False)
    pre = _in_range("preemption_overhead", preemption_overhead, 0, 10,
                    "It is a fraction of the run, e.g. 0.1 for 10%.", low_open=False)
    billed = hours * (1 + idle) * (1 + (pre if spot else 0))
    compute = nodes * _price("price_per_node_hour", price_per_node_hour) * billed
    months = billed / HOURS_PER_MONTH
    fs = (_price("filesystem_gib", filesystem_gib)
          * _price("filesystem_price_per_gib_month", filesystem_price_per_gib_month) * months)
    bucket = (_price("bucket_gb", bucket_gb)
              * _price("bucket_price_per_gb_month", bucket_price_per_gb_month) * months)
    transfer = _price("transfer_gb", transfer_gb) * _price("transfer_price_per_gb",
                                                           transfer_price_per_gb)
    overhead = (compute + fs + bucket) * (1 - hours / billed) if billed else 0.0
    return CostBreakdown(currency, hours, billed, compute, fs, bucket, transfer, overhead)


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
