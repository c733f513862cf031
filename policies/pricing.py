"""The spend estimate, from the same price catalog the components choose instance types with.

estimate = sum over node groups of nodes x catalog $/h (spot price for spot groups) x hours
         + filesystem GiB x $/GiB-month x hours / 730
         + bucket GB x $/GB-month (a retained bucket is billed for the whole month)

hours = 730 (a month left running), or the spec's declared maximum lifetime when the component
tagged the node group with it (at most 730: no month bills more hours than it has). The bucket
is priced at the data-size model's figure (components/catalog/data_sizes.py: dataset + starting
weights + final checkpoint), which the components tag it with (`trainstack:data-mb`); `compare`
uses the same model. Without that tag (no workload) the filesystem's capacity is the bound.

Storage rows are picked and converted by components/catalog/run_prices.py, the code `trainstack
compare` prices storage with, so the two never disagree: a tier the catalog has no cited price for is
left out of the estimate and named in it, never filled in by guess. A node group without a
catalog price makes the estimate impossible (policies report that), since compute is most of it.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional

from components import catalog
from components.catalog import HOURS_PER_MONTH, run_prices
from components.catalog.data_sizes import DATA_MB_TAG
from policies.inventory import CATALOG_CLOUDS, Bucket, Filesystem, NodeGroup, tag_value, tags_of


@dataclass
class Line:
    what: str
    usd: float


@dataclass
class Estimate:
    hours: float
    lines: list[Line] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)   # node groups without a catalog price
    left_out: list[str] = field(default_factory=list)  # storage without a cited price

    @property
    def unpriced(self) -> list[str]:
        """Every built item without a cited price, by name (node groups and storage)."""
        return self.missing + self.left_out

    @property
    def total(self) -> float:
        return sum(line.usd for line in self.lines)

    def describe(self) -> str:
        parts = [f"{line.what} = {line.usd:,.0f}" for line in self.lines]
        parts += [f"not included: {what}" for what in self.left_out]
        return f"{self.total:,.0f} USD/month ({'; '.join(parts)})"


def instance_price(cloud: str, instance_type: str, region: str) -> Optional[catalog.Price]:
    for name in CATALOG_CLOUDS.get(cloud, (cloud,)):
        row = catalog.price(name, instance_type, region)
        if row is not None:
            return row
    return None


def instance_type_info(cloud: str, instance_type: str) -> Optional[catalog.InstanceType]:
    for name in CATALOG_CLOUDS.get(cloud, (cloud,)):
        for t in catalog.instance_types():
            if t.cloud == name and t.name == instance_type:
                return t
    return None


def _data_gb(bucket: Bucket) -> Optional[float]:
    tags = tags_of(bucket.resource)
    if not isinstance(tags, dict):
        return None
    value = tag_value(bucket.resource, tags, DATA_MB_TAG)
    try:
        return float(value) / 1000 if value is not None else None
    except (TypeError, ValueError):
        return None


def cny_per_usd() -> float:
    from components.catalog.gpu_models import cny_per_usd as catalog_rate
    return catalog_rate()


def _tier(fs: Filesystem) -> Optional[int]:
    """The throughput tier in MB/s per TiB: 250, "1000", AMLFS-Durable-Premium-250, advance_200."""
    match = re.search(r"(\d+)$", fs.tier or "")
    return int(match.group(1)) if match else None


def estimate(groups: list[NodeGroup], filesystems: list[Filesystem], buckets: list[Bucket],
             max_hours: Optional[float]) -> Estimate:
    hours = min(max_hours, HOURS_PER_MONTH) if max_hours else HOURS_PER_MONTH
    result = Estimate(hours)
    for g in groups:
        row = instance_price(g.cloud, str(g.instance_type), g.region)
        if row is None:
            result.missing.append(f"{g.resource.name}: {g.instance_type} in {g.region or '?'}")
            continue
        hourly = row.hourly(g.spot)
        result.lines.append(Line(
            f"{g.count} x {g.instance_type}{' spot' if g.spot else ''} x {hourly:,.2f} USD/h x "
            f"{hours:g} h", g.count * hourly * hours))
    region = next((g.region for g in groups if g.region), "")
    data_gib = 0.0
    cny = cny_per_usd()
    for fs in filesystems:
        if not fs.capacity_gib:
            continue
        data_gib += fs.capacity_gib
        product, price = run_prices.filesystem_price(fs.resource.cloud, [fs.resource.type],
                                                     _tier(fs), fs.region or region, cny)
        if price.value is None:
            result.left_out.append(f"{fs.resource.name} ({product}): {price.note}")
            continue
        result.lines.append(Line(
            f"{fs.capacity_gib:,.0f} GiB {product} x {price.value:.4f} USD/GiB-month x "
            f"{hours:g}/730 h", fs.capacity_gib * price.value * hours / HOURS_PER_MONTH))
    for bucket in buckets:
        # The bucket's size is the data-size model's (components/catalog/data_sizes.py, the
        # one `compare` uses), read from the tag the components put on it; without the tag
        # (no workload in the spec) the filesystem's capacity is the upper bound.
        tagged = _data_gb(bucket)
        gb = tagged if tagged is not None else data_gib / run_prices.GIB_PER_GB
        if not gb:
            continue
        price = run_prices.bucket_price(bucket.resource.cloud, region, cny)
        if price.value is None:
            result.left_out.append(f"{bucket.resource.name}: {price.note}")
            continue
        what = ("bucket holding the workload's data" if tagged is not None
                else "bucket holding the filesystem's")
        result.lines.append(Line(f"{what} {gb:,.0f} GB x {price.value:.4f} USD/GB-month",
                                 gb * price.value))
    return result
