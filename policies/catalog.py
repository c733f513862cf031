"""The catalog facts the pack prices with, read from its own copy in policies/catalog_data/.

The pack must run from its directory alone (`pulumi policy publish` uploads only policies/), so it
cannot import trainstack_components.catalog. tools/copy_catalog_to_pack.py copies the CSV files it needs
from components/catalog/ (the catalog's one home) and a test fails when the copy is stale. The
storage lookup follows components/catalog/run_prices.py row for row (same item prefixes, same unit
conversions); tests/policies/test_policy_pack_selfcontained.py checks both give the same price for every
product, tier and region, so `trainstack compare` and the pack never disagree.
"""
from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path
from typing import Iterable, Optional

DATA = Path(__file__).resolve().parent / "catalog_data"
HOURS_PER_MONTH = 730
GIB_PER_GB = 1e9 / 2 ** 30

# Pulumi token prefix -> the `cloud` column of the catalog CSVs.
CATALOG_CLOUD = {"aws": "aws", "gcp": "gcp", "azure": "azure", "alicloud": "alibaba"}


@dataclass(frozen=True)
class InstanceType:
    cloud: str
    name: str
    gpu: str
    gpu_count: int
    fabric: str
    rdma: bool
    rdma_nics: int
    network_cards: int
    vcpus: int = 0     # instance_types.csv's vcpus column (its row's source); 0 where blank


@dataclass(frozen=True)
class Price:
    cloud: str
    instance_type: str
    region: str
    ondemand_usd_hr: float
    spot_usd_hr: Optional[float]
    as_of: str = ""        # the date of the figure, as the catalog row states it

    def hourly(self, spot: bool) -> float:
        # Where the source has no spot figure, on-demand is the honest upper bound.
        return self.spot_usd_hr if spot and self.spot_usd_hr is not None else self.ondemand_usd_hr


@dataclass(frozen=True)
class StoragePrice:
    cloud: str
    item: str
    unit: str
    price: float
    region: str


# The same two files components/catalog reads storage from: regenerated rows, curated FS tiers.
STORAGE_PRICE_FILES = ("storage_prices.csv", "filesystem_prices.csv")


def _rows(name: str) -> list[dict]:
    """The rows of a catalog CSV as csv.DictReader gives them (blank lines skipped, a short row
    padded with None, a long one's extra fields under None), read with csv.reader: DictReader
    is a Python-level iterator, about a quarter of the cost of reading prices.csv."""
    with open(DATA / name, newline="", encoding="utf-8") as fh:
        reader = csv.reader(fh)
        header = next(reader, None)
        if header is None:
            return []
        width = len(header)
        out: list[dict] = []
        for row in reader:
            if not row:
                continue
            entry: dict = dict(zip(header, row))
            if len(row) > width:
                entry[None] = row[width:]
            elif len(row) < width:
                entry.update((key, None) for key in header[len(row):])
            out.append(entry)
        return out


@cache
def instance_types() -> tuple[InstanceType, ...]:
    return tuple(InstanceType(r["cloud"], r["instance_type"], r["gpu"], int(r["gpu_count"]),
                              r["fabric"], r["rdma"] == "true", int(r["rdma_nics"] or 0),
                              int(r["network_cards"] or 0), int(r["vcpus"] or 0))
                 for r in _rows("instance_types.csv"))


# One row of prices.csv as the fields of its Price: (cloud, instance_type, region, on-demand,
# spot, as_of).
_PriceRow = tuple[str, str, str, float, Optional[float], str]


@cache
def _price_rows() -> tuple[_PriceRow, ...]:
    """prices.csv's rows, every number read (a row that does not read fails the load, as
    before). The indexes below hold these; a Price is made only for a row asked for (_price):
    a stack prices a few types, the catalog has thousands of rows, and a frozen dataclass
    costs about three times its row to make."""
    return tuple((r["cloud"], r["instance_type"], r["region"], float(r["ondemand_usd_hr"]),
                  float(r["spot_usd_hr"]) if r["spot_usd_hr"] else None, r["as_of"])
                 for r in _rows("prices.csv"))


@lru_cache(maxsize=None)
def _price(row: _PriceRow) -> Price:
    return Price(*row)


@cache
def prices() -> tuple[Price, ...]:
    return tuple(_price(row) for row in _price_rows())


@cache
def storage_prices() -> tuple[StoragePrice, ...]:
    return tuple(StoragePrice(r["cloud"], r["item"], r["unit"], float(r["price"]),
                              r["region_example"])
                 for name in STORAGE_PRICE_FILES for r in _rows(name))


@cache
def cny_per_usd() -> float:
    return next(float(r["per_usd"]) for r in _rows("fx.csv") if r["currency"].upper() == "CNY")


@dataclass(frozen=True)
class Unpriced:
    """A GPU type the provider lists publicly with no public price found (unpriced.csv)."""
    cloud: str
    name: str
    gpu: str
    gpu_count: int
    listed_by: str
    reason: str


@cache
def _unpriced_by_name() -> dict[tuple[str, str], Unpriced]:
    return {(r["cloud"], r["instance_type"]): Unpriced(
        r["cloud"], r["instance_type"], r["gpu"], int(r["gpu_count"]), r["listed_by"], r["reason"])
        for r in _rows("unpriced.csv")}


def unpriced(cloud: str, name: str) -> Optional[Unpriced]:
    """The catalog's record of a publicly listed GPU type without a public price, or None. The
    pack has no price for it, so it fails closed, and the refusal says why."""
    if not isinstance(name, str):
        return None
    return _unpriced_by_name().get((CATALOG_CLOUD.get(cloud, cloud), _name(cloud, name)))


@dataclass(frozen=True)
class UnpricedRegion:
    """A region a provider lists a priced GPU type as sold in where no public price for that
    region was found (unpriced_regions.csv): not "not offered there", but no price there."""
    cloud: str
    name: str
    region: str
    listed_by: str
    reason: str


@cache
def _unpriced_regions() -> dict[tuple[str, str, str], UnpricedRegion]:
    return {(r["cloud"], r["instance_type"], r["region"]): UnpricedRegion(
        r["cloud"], r["instance_type"], r["region"], r["listed_by"], r["reason"])
        for r in _rows("unpriced_regions.csv")}


def unpriced_in(cloud: str, name: str, region: str) -> Optional[UnpricedRegion]:
    """The record that `name` is listed as sold in `region` with no public price found for it
    there, or None."""
    if not isinstance(name, str) or not isinstance(region, str):
        return None
    return _unpriced_regions().get((CATALOG_CLOUD.get(cloud, cloud), _name(cloud, name), region))


def fx_rate(currency: str) -> Optional[tuple[float, str, str]]:
    """(units of `currency` per USD, source, as_of) from fx.csv; None when it cites no rate."""
    row = next((r for r in _rows("fx.csv") if r["currency"].upper() == currency.upper()), None)
    return (float(row["per_usd"]), row["source"], row["as_of"]) if row else None


# The catalog lists every public GPU type (thousands of price rows): lookups go through indexes
# built once, so a stack of many resources is not priced by a scan per resource.
@cache
def _types_by_name() -> dict[tuple[str, str], InstanceType]:
    return {(t.cloud, t.name): t for t in instance_types()}


@cache
def _prices_by_type() -> dict[tuple[str, str], tuple[_PriceRow, ...]]:
    index: dict[tuple[str, str], list[_PriceRow]] = {}
    for row in _price_rows():
        index.setdefault((row[0], row[1]), []).append(row)
    return {key: tuple(rows) for key, rows in index.items()}


@cache
def _prices_by_region() -> dict[tuple[str, str, str], _PriceRow]:
    index: dict[tuple[str, str, str], _PriceRow] = {}
    for row in _price_rows():
        index.setdefault((row[0], row[1], row[2]), row)   # the first, as a scan found
    return index


@cache
def _azure_names() -> dict[str, str]:
    """Azure VM size names, lower case -> the catalog's spelling. Azure takes a size in any case
    ("standard_nc4as_t4_v3" is Standard_NC4as_T4_v3: ARM compares resource property values
    case-insensitively, and `az vm list-sizes` answers the canonical name)."""
    names = {t.name for t in instance_types() if t.cloud == "azure"}
    names |= {row[1] for row in _price_rows() if row[0] == "azure"}
    names |= {cloud_name for cloud, cloud_name in _unpriced_by_name() if cloud == "azure"}
    return {n.lower(): n for n in names}


def _name(cloud: str, name: str) -> str:
    """The catalog's spelling of an instance type name (Azure sizes in any case)."""
    return _azure_names().get(name.lower(), name) if cloud == "azure" else name


def instance_type(cloud: str, name: str) -> Optional[InstanceType]:
    if not isinstance(name, str):
        return None
    return _types_by_name().get((CATALOG_CLOUD.get(cloud, cloud), _name(cloud, name)))


def price(cloud: str, name: str, region: str) -> Optional[Price]:
    if not isinstance(name, str) or not isinstance(region, str):
        return None
    row = _prices_by_region().get((CATALOG_CLOUD.get(cloud, cloud), _name(cloud, name), region))
    return _price(row) if row is not None else None


# AWS Local Zones and Wavelength Zones bill their own rates, above their parent region's
# (prices.csv: g4dn.2xlarge 1.015 USD/h in us-east-1-bos-1, 0.752 in us-east-1). The catalog keys
# a Local Zone by its zone group, the zone name less its letter (us-east-1-bos-1a is in the group
# us-east-1-bos-1: EC2 API AvailabilityZone groupName, "Local Zones - us-west-2-lax-1"), and a
# Wavelength Zone by the AWS price list's location code, the zone name's carrier network, city
# and number (us-east-1-wl1-atl-wlz-1 -> us-east-1-wl1-atl1). An AZ ID names the same places
# (use1-bos1-az1, use1-wl1-atl-wlz1: AWS Wavelength guide, "Available Wavelength Zones"), its
# region written as a code, so the region comes from the group that uses it.
_LOCAL_ZONE = re.compile(r"([a-z]{2}(?:-gov)?-[a-z]+-[0-9]+)-([a-z]+)-([0-9]+)[a-z]", re.ASCII)
_WAVELENGTH_ZONE = re.compile(r"([a-z]{2}(?:-gov)?-[a-z]+-[0-9]+)-(wl[0-9]+)-([a-z]+)-wlz-([0-9]+)",
                              re.ASCII)
_LOCAL_ZONE_ID = re.compile(r"[a-z]{2,}[0-9]+-([a-z]+)([0-9]+)-az[0-9]+", re.ASCII)
_WAVELENGTH_ZONE_ID = re.compile(r"[a-z]{2,}[0-9]+-(wl[0-9]+)-([a-z]+)-wlz([0-9]+)", re.ASCII)
# The first Wavelength Zone of a region is priced under the carrier network's code alone, no
# city: the price list's location "US East (Verizon) - Boston" is us-east-1-wl1 and "US West
# (Verizon) - San Francisco Bay Area" us-west-2-wl1 (its usage types USE1WL1-..., where
# Atlanta's are USE1WL1ATL1-...), so prices.csv's us-east-1-wl1 / us-west-2-wl1 rows are those
# two zones' (review81 note 3), never a price for the region's other Wavelength Zones.
_WAVELENGTH_NO_CITY = {"us-east-1-wl1-bos1": "us-east-1-wl1", "us-west-2-wl1-sfo1": "us-west-2-wl1"}


def aws_edge_location(zone: str, region: str = "", zone_id: bool = False) -> Optional[str]:
    """The prices.csv location of an AWS Local Zone or Wavelength Zone, by its name
    (us-east-1-bos-1a -> us-east-1-bos-1, us-east-1-wl1-atl-wlz-1 -> us-east-1-wl1-atl1,
    us-east-1-wl1-bos-wlz-1 -> us-east-1-wl1: _WAVELENGTH_NO_CITY) or, with
    `zone_id`, by its AZ ID in `region` (use1-bos1-az1 in us-east-1 -> us-east-1-bos-1; "" where
    the region is not known); None for an Availability Zone of the region itself (us-east-1a,
    use1-az4) or a value of neither form."""
    if not isinstance(zone, str):
        return None
    if zone_id:
        local, wave = _LOCAL_ZONE_ID.fullmatch(zone), _WAVELENGTH_ZONE_ID.fullmatch(zone)
        if local is None and wave is None:
            return None
        if not isinstance(region, str) or not region:
            return ""
        if local is not None:
            return f"{region}-{local.group(1)}-{local.group(2)}"
        code = f"{region}-{wave.group(1)}-{wave.group(2)}{wave.group(3)}"  # type: ignore[union-attr]
        return _WAVELENGTH_NO_CITY.get(code, code)
    local, wave = _LOCAL_ZONE.fullmatch(zone), _WAVELENGTH_ZONE.fullmatch(zone)
    if wave is not None:
        code = f"{wave.group(1)}-{wave.group(2)}-{wave.group(3)}{wave.group(4)}"
        return _WAVELENGTH_NO_CITY.get(code, code)
    return f"{local.group(1)}-{local.group(2)}-{local.group(3)}" if local is not None else None


@cache
def _regions_by_cloud() -> dict[str, frozenset[str]]:
    index: dict[str, set[str]] = {}
    for row in _price_rows():
        index.setdefault(row[0], set()).add(row[2])
    return {cloud: frozenset(regions) for cloud, regions in index.items()}


def offered_elsewhere(cloud: str, name: str, region: str) -> tuple[str, ...]:
    """The regions the catalog prices `name` in, sorted, when `region` is one it prices other
    types of the cloud in but not `name`: its sources do not offer the type there. () when the
    type is priced there, priced nowhere, or the region is one the catalog does not know."""
    if not isinstance(name, str) or not isinstance(region, str):
        return ()
    key = CATALOG_CLOUD.get(cloud, cloud)
    if region not in _regions_by_cloud().get(key, frozenset()):
        return ()
    found = {row[2] for row in _prices_by_type().get((key, _name(cloud, name)), ())}
    return () if region in found else tuple(sorted(found))


def dearest(cloud: str, name: str) -> Optional[Price]:
    """The type's highest on-demand price over the catalog's regions: an upper bound for a
    group whose region the program leaves to the environment (AWS_REGION, gcloud config)."""
    rows = _prices_by_type().get((CATALOG_CLOUD.get(cloud, cloud), _name(cloud, name)), ())
    return _price(max(rows, key=lambda row: row[3])) if rows else None


# GCP N1 with attached GPUs is billed as the N1 machine plus each GPU (GCP "GPU pricing": "GPUs
# attached to an instance are charged in addition to the machine type"): gcp_attached_gpus.csv
# prices both parts, kind "machine" (an N1 type) and kind "accelerator" (one GPU, by the
# guestAccelerators type name, e.g. nvidia-tesla-t4).
@cache
def _attached_by_key() -> dict[tuple[str, str, str], Price]:
    return {(r["kind"], r["name"], r["region"]): Price(
        "gcp", r["name"], r["region"], float(r["ondemand_usd_hr"]),
        float(r["spot_usd_hr"]) if r["spot_usd_hr"] else None, r["as_of"])
        for r in _rows("gcp_attached_gpus.csv")}


def attached_part(kind: str, name: str, region: str) -> Optional[Price]:
    """The price of an N1 machine (kind "machine") or of one attached GPU ("accelerator") in a
    region, or None when the table has no row for it."""
    if region:
        return _attached_by_key().get((kind, name, region))
    rows = [p for (k, n, _), p in _attached_by_key().items() if k == kind and n == name]
    return max(rows, key=lambda p: p.ondemand_usd_hr) if rows else None


# ------------------------------------------------------------------------------ storage prices
# The same table as components/catalog/run_prices.py FILESYSTEM_PRODUCTS / BUCKET_ITEMS.

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
BUCKET_ITEMS = {"aws": "s3_standard", "gcp": "gcs_standard_regional", "azure": "blob_hot_lrs",
                "alicloud": "oss_standard"}


@dataclass(frozen=True)
class StorageQuote:
    value: Optional[float]    # USD per unit; None: no cited price
    unit: str
    item: str = ""
    note: str = ""


def _convert(row: StoragePrice, to: str) -> float:
    value, unit = row.price, row.unit
    if unit.startswith("cny_"):
        value, unit = value / cny_per_usd(), "usd_" + unit[len("cny_"):]
    if unit == "usd_per_gib_hour":
        value, unit = value * HOURS_PER_MONTH, "usd_per_gib_month"
    factor = {("usd_per_gib_month", "usd_per_gib_month"): 1.0,
              ("usd_per_gb_month", "usd_per_gib_month"): 1 / GIB_PER_GB,
              ("usd_per_gib_month", "usd_per_gb_month"): GIB_PER_GB,
              ("usd_per_gb_month", "usd_per_gb_month"): 1.0}.get((unit, to))
    if factor is None:
        raise ValueError(f"storage_prices.csv: cannot express {row.item} ({row.unit}) as {to}")
    return value * factor


def _lookup(cloud: str, prefix: str, region: str, to: str) -> StorageQuote:
    try:
        # Static data and a frozen answer: each filesystem and bucket of a stack asks again.
        return _lookup_once(cloud, prefix, region, to)
    except TypeError:   # a region of a shape no cache can key (a list where a name goes)
        return _lookup_rows(cloud, prefix, region, to)


@cache
def _lookup_once(cloud: str, prefix: str, region: str, to: str) -> StorageQuote:
    return _lookup_rows(cloud, prefix, region, to)


def _lookup_rows(cloud: str, prefix: str, region: str, to: str) -> StorageQuote:
    ccloud = CATALOG_CLOUD.get(cloud, cloud)
    rows = [s for s in storage_prices() if s.cloud == ccloud and s.item.startswith(prefix)]
    if not rows:
        return StorageQuote(None, to, note=f"no cited price ({prefix!r} is not in the {ccloud} "
                                           "catalog)")
    row = ([s for s in rows if s.region == region] or rows)[0]
    return StorageQuote(_convert(row, to), to, row.item)


def filesystem_price(cloud: str, resource_type: str, tier: Optional[int],
                     region: str) -> tuple[str, StorageQuote]:
    """(product, USD per GiB-month) for a filesystem resource type and throughput tier."""
    for token, product, tiers in FILESYSTEM_PRODUCTS:
        if resource_type.startswith(token):
            prefix = tiers.get(None) or tiers.get(tier)
            if prefix is None:
                return product, StorageQuote(None, "usd_per_gib_month",
                                             note=f"no cited price for {product} at {tier} "
                                                  "MB/s/TiB")
            return product, _lookup(cloud, prefix, region, "usd_per_gib_month")
    return "unknown", StorageQuote(None, "usd_per_gib_month", note="no cited price")


def bucket_price(cloud: str, region: str) -> StorageQuote:
    if cloud not in BUCKET_ITEMS:
        return StorageQuote(None, "usd_per_gb_month", note="no cited price")
    return _lookup(cloud, BUCKET_ITEMS[cloud], region, "usd_per_gb_month")


@cache
def filesystem_floor() -> tuple[float, str]:
    """The lowest cited parallel-filesystem price in the catalog (USD/GiB-month, item): a lower
    bound for storage whose own price is not cited, so it cannot vanish from the total."""
    prefixes = {(CATALOG_CLOUD[token.split(":")[0].replace("azure-native", "azure")], p)
                for token, _, tiers in FILESYSTEM_PRODUCTS for p in tiers.values()}
    quotes = [(_convert(s, "usd_per_gib_month"), s.item) for s in storage_prices()
              if any(s.cloud == c and s.item.startswith(p) for c, p in prefixes)]
    return min(quotes)


_TIER = re.compile(r"(\d+)$", re.ASCII)   # ASCII digits only, as model.number reads text


def tier_number(text: str) -> Optional[int]:
    """250, "1000", AMLFS-Durable-Premium-250, advance_200 -> the MB/s per TiB."""
    match = _TIER.search(text or "")
    return int(match.group(1)) if match else None


def resource_types(tokens: Iterable[str]) -> list[str]:
    return list(tokens)
