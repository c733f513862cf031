"""The catalog's storage and transfer prices for one planned run, in one unit each (issue 5).

`trainstack compare` and the spend-limit policy price three
things besides the nodes: the parallel filesystem the plan
declares, the object bucket, and the data moved out. The prices come from
components/catalog/storage_prices.csv through `trainstack_components.catalog.storage_prices()`; this module
only picks the row and converts its unit:

  filesystem -> USD per GiB-month   (run_cost() multiplies by the plan's capacity in GiB)
  bucket     -> USD per GB-month
  transfer   -> USD per GB

A price the catalog does not have is returned as missing with the words "no cited price" and
the reason; nothing is filled in by guess. A catalog price in CNY (Alibaba CPFS) is converted
at the stated exchange rate and says so. A price whose catalog region differs from the planned
region is used but labelled with the region it was quoted for.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Optional

from trainstack_components import catalog
from trainstack_components.catalog import StoragePrice

GIB_PER_GB = 1e9 / 2 ** 30   # 0.931...: 1 GB is this many GiB
HOURS_PER_MONTH = catalog.HOURS_PER_MONTH

# Spec cloud names -> the `cloud` column of the catalog CSVs.
CATALOG_CLOUD = {"aws": "aws", "gcp": "gcp", "azure": "azure", "alicloud": "alibaba"}

# Filesystem products, recognised by the Pulumi type token the plan declares for them, with
# the catalog item for each throughput tier (MB/s per TiB). Key None: one price for any tier.
# Tiers the catalog has no row for are reported as "no cited price".
FILESYSTEM_PRODUCTS: tuple[tuple[str, str, dict[Optional[int], str]], ...] = (
    ("aws:fsx/lustreFileSystem:", "FSx for Lustre",
     {t: f"fsx_lustre_persistent2_{t}" for t in (125, 250, 500, 1000)}),
    ("gcp:parallelstore/", "Parallelstore", {None: "parallelstore_capacity"}),
    ("gcp:lustre/", "Google Cloud Managed Lustre",
     {t: f"managed_lustre_{t}" for t in (125, 250, 500, 1000)}),
    ("gcp:filestore/", "Filestore", {}),
    ("azure-native:storagecache:AmlFilesystem", "Azure Managed Lustre",
     {40: "managed_lustre_durable_premium_40", 125: "managed_lustre_durable_premium_125",
      250: "managed_lustre_durable_premium_250", 500: "managed_lustre_durable_premium_500"}),
    ("alicloud:nas/", "CPFS", {200: "cpfs_200mbps_per_tib"}),
)
# Object storage (standard class, data stored) and internet egress (first volume tier).
BUCKET_ITEMS = {"aws": "s3_standard", "gcp": "gcs_standard_regional", "azure": "blob_hot_lrs",
                "alicloud": "oss_standard"}
EGRESS_ITEMS = {"aws": "egress_internet_first_10tb", "gcp": "egress_internet_premium_0_1tib",
                "azure": "egress_internet_zone1_first_10tb",
                "alicloud": "egress_internet_pay_by_data_transfer_cn"}
# The Alibaba egress row covers mainland-China regions only (its notes say so).
_ALIBABA_NON_MAINLAND = ("cn-hongkong",)


@dataclass(frozen=True)
class RunPrice:
    """One converted price, or a missing one (`value` None) with the reason in `note`."""
    what: str                 # "filesystem" | "bucket" | "transfer"
    value: Optional[float]    # USD per `unit`
    unit: str                 # "usd_per_gib_month" | "usd_per_gb_month" | "usd_per_gb"
    item: str = ""            # catalog item used
    source: str = ""
    as_of: str = ""
    note: str = ""

    @property
    def missing(self) -> bool:
        return self.value is None

    def as_dict(self) -> dict:
        return {"value": self.value, "unit": self.unit, "item": self.item or None,
                "source": self.source or None, "as_of": self.as_of or None, "note": self.note}


def _convert(row: StoragePrice, to: str, cny_per_usd: float) -> tuple[float, str]:
    """`row.price` in the unit `to`; the second value names any currency conversion."""
    value, unit, extra = row.price, row.unit, ""
    if unit.startswith("cny_"):
        value, unit = value / cny_per_usd, "usd_" + unit[len("cny_"):]
        extra = (f"catalog price {row.price:g} CNY converted at {cny_per_usd:g} CNY/USD "
                 f"(the stated rate; --cny-rate changes it)")
    if unit == "usd_per_gib_hour":
        value, unit = value * HOURS_PER_MONTH, "usd_per_gib_month"
    conversions = {
        ("usd_per_gib_month", "usd_per_gib_month"): 1.0,
        ("usd_per_gb_month", "usd_per_gib_month"): 1 / GIB_PER_GB,
        ("usd_per_gib_month", "usd_per_gb_month"): GIB_PER_GB,
        ("usd_per_gb_month", "usd_per_gb_month"): 1.0,
        ("usd_per_gb", "usd_per_gb"): 1.0,
        ("usd_per_gib", "usd_per_gb"): GIB_PER_GB,
    }
    if (unit, to) not in conversions:
        raise ValueError(f"storage_prices.csv: cannot express {row.item} ({row.unit}) as {to}")
    return value * conversions[(unit, to)], extra


def _lookup(what: str, cloud: str, prefix: str, region: str, to: str,
            cny_per_usd: float) -> RunPrice:
    ccloud = CATALOG_CLOUD.get(cloud, cloud)
    rows = [s for s in catalog.storage_prices() if s.cloud == ccloud and s.item.startswith(prefix)]
    if not rows:
        return RunPrice(what, None, to, note=f"no cited price ({prefix!r} is not in the "
                                              f"{ccloud} catalog)")
    in_region = [s for s in rows if s.region == region]
    row = (in_region or rows)[0]
    value, conversion = _convert(row, to, cny_per_usd)
    notes = [conversion] if conversion else []
    if row.item.endswith("_APPROX"):
        notes.append("a third-party approximation, not the provider's table")
    elif row.item.endswith("_EXAMPLE"):
        notes.append("taken from the provider's billing example")
    if not in_region:
        notes.append(f"the source states no region (used for {region})"
                     if row.region.startswith("not stated") else
                     f"price quoted for {row.region}, not {region}")
    return RunPrice(what, value, to, row.item, row.source, row.as_of, "; ".join(notes))


def filesystem_price(cloud: str, resource_types: Iterable[str], throughput_mbps_per_tib,
                     region: str, cny_per_usd: float) -> tuple[str, RunPrice]:
    """(product name, USD per GiB-month) for the filesystem the plan declares."""
    types = list(resource_types)
    for token, product, tiers in FILESYSTEM_PRODUCTS:
        if any(t.startswith(token) for t in types):
            prefix = tiers.get(None) or tiers.get(throughput_mbps_per_tib)
            if prefix is None:
                have = ", ".join(str(t) for t in sorted(k for k in tiers if k is not None))
                return product, RunPrice(
                    "filesystem", None, "usd_per_gib_month",
                    note=(f"no cited price for {product} at {throughput_mbps_per_tib} MB/s/TiB"
                          + (f" (the catalog has the {have} MB/s/TiB tier only)" if have
                             else " (not in the catalog)")))
            return product, _lookup("filesystem", cloud, prefix, region, "usd_per_gib_month",
                                    cny_per_usd)
    return "unknown", RunPrice("filesystem", None, "usd_per_gib_month",
                               note="no cited price (the plan declares no filesystem trainstack "
                                    "knows a price for)")


def bucket_price(cloud: str, region: str, cny_per_usd: float) -> RunPrice:
    """USD per GB-month of standard object storage."""
    if cloud not in BUCKET_ITEMS:
        return RunPrice("bucket", None, "usd_per_gb_month", note="no cited price")
    return _lookup("bucket", cloud, BUCKET_ITEMS[cloud], region, "usd_per_gb_month", cny_per_usd)


def egress_price(cloud: str, region: str, cny_per_usd: float) -> RunPrice:
    """USD per GB of internet egress at the first volume tier (an upper bound for larger
    volumes; the monthly free allowance is not deducted)."""
    if cloud not in EGRESS_ITEMS:
        return RunPrice("transfer", None, "usd_per_gb", note="no cited price")
    if cloud == "alicloud" and (not region.startswith("cn-")
                                or region.startswith(_ALIBABA_NON_MAINLAND)):
        return RunPrice("transfer", None, "usd_per_gb",
                        note=f"no cited price for internet egress from {region} (the catalog "
                             f"has mainland-China regions only)")
    price = _lookup("transfer", cloud, EGRESS_ITEMS[cloud], region, "usd_per_gb", cny_per_usd)
    if price.value is not None:
        tier = "first volume tier" + ("; " + price.note if price.note else "")
        price = RunPrice(price.what, price.value, price.unit, price.item, price.source,
                         price.as_of, tier)
    return price
