"""Filesystems (with the zone their data lives in) and buckets (with their region)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from trainstack_policies.capacity import unread_placement
from trainstack_policies.inventory.tokens import (
    ALI_BUCKET,
    ALI_NAS,
    ALI_SWITCH,
    AWS_BUCKETS,
    AWS_DIRECTORY_BUCKET,
    AWS_NATIVE_BUCKET,
    AWS_EFS,
    AWS_LUSTRE,
    AWS_NATIVE_SUBNET,
    AWS_OPENZFS,
    AWS_SUBNET,
    AZ_AMLFS,
    AZ_STORAGE_ACCOUNT,
    GCP_BUCKET,
    GCP_FILESTORE,
    GCP_FILESYSTEMS,
)
from trainstack_policies.inventory.values import (
    AZ_ID,
    PerStack,
    _aws_region,
    _azure_location,
    _zone,
    aws_subnet_zone,
    normalize_azure_location,
)
from trainstack_policies.model import UNKNOWN, Resource, checked_number, number, region_of_zone


@dataclass
class Filesystem:
    resource: Resource
    zone: Any          # str, UNKNOWN, or "" when it cannot be read
    region: str
    capacity_gib: Any  # GiB (float), UNKNOWN, or None when not declared
    tier: str          # throughput tier / SKU, for pricing
    regional: bool = False   # reachable from every zone of its region (Filestore REGIONAL)
    zone_id: str = ""        # an AZ ID instead of a zone name (S3 Express directory buckets)


# The types _filesystems() and _buckets() read (one branch each): every other resource of the
# stack is passed over with one look-up instead of the whole chain of comparisons.
_FILESYSTEM_TYPES = frozenset({AWS_LUSTRE, AWS_EFS, AWS_OPENZFS, AWS_DIRECTORY_BUCKET,
                               *GCP_FILESYSTEMS, GCP_FILESTORE, AZ_AMLFS, ALI_NAS})
_BUCKET_TYPES = frozenset({*AWS_BUCKETS, GCP_BUCKET, AZ_STORAGE_ACCOUNT, ALI_BUCKET})
# is_bucket()'s types (bucket-retained): every bucket above, and the aws-native S3 bucket, which
# _buckets() (storage-same-zone, spend-limit) does not read yet.
BUCKET_TYPES = _BUCKET_TYPES | {AWS_NATIVE_BUCKET}


def _named(zone: Any) -> Any:
    """A zone name to read a region from ("" for an AZ ID: use1-az4 names no region)."""
    return "" if isinstance(zone, str) and zone.startswith(AZ_ID) else zone


def _filesystems(resources: list[Resource]) -> list[Filesystem]:
    out: list[Filesystem] = []
    for r in resources:
        if r.type not in _FILESYSTEM_TYPES:
            continue
        if r.type == AWS_LUSTRE:
            zone = _fsx_zone(r)
            tier = number(r.get("perUnitStorageThroughput"))
            out.append(Filesystem(r, zone, _aws_region(r, [_named(zone)]),
                                  _capacity(r, "storageCapacity"),
                                  f"{int(tier)}" if tier else str(r.get("deploymentType") or "")))
        elif r.type == AWS_EFS and r.get("availabilityZoneName"):
            # EFS One Zone: its data lives in one zone.
            zone = _zone(r.get("availabilityZoneName"))
            out.append(Filesystem(r, zone, _aws_region(r, [zone]), None, "efs-one-zone"))
        elif r.type == AWS_OPENZFS:
            kind = r.get("deploymentType")
            if kind is UNKNOWN:
                out.append(Filesystem(r, UNKNOWN, _aws_region(r, []), None, ""))
                continue
            zone = _fsx_zone(r)
            out.append(Filesystem(r, zone, _aws_region(r, [_named(zone)]),
                                  _capacity(r, "storageCapacity"), str(kind or ""),
                                  regional=str(kind or "").startswith("MULTI_AZ")))
        elif r.type == AWS_DIRECTORY_BUCKET:
            name = r.get("location.name")
            if name is UNKNOWN:
                out.append(Filesystem(r, UNKNOWN, _aws_region(r, []), None, ""))
                continue
            if str(r.get("location.type") or "AvailabilityZone") == "AvailabilityZone":
                out.append(Filesystem(r, "", _aws_region(r, []), None, "s3-express",
                                      zone_id=str(name or "")))
        elif r.type in GCP_FILESYSTEMS:
            zone = _zone(r.get("location") or r.provider.get("zone"))
            tier = r.get("perUnitStorageThroughput")
            out.append(Filesystem(r, zone, region_of_zone(zone) if zone is not UNKNOWN else "",
                                  _capacity(r, "capacityGib"), str(tier or "")))
        elif r.type == GCP_FILESTORE:
            # Zonal tiers take a zone as location; REGIONAL/ENTERPRISE take a region and are
            # reachable from every zone of it (regional=True: no zone to compare).
            location = _zone(r.get("location") or r.get("zone") or r.provider.get("zone"))
            shares = r.get("fileShares")
            share = shares[0] if isinstance(shares, list) and shares else shares
            capacity = (UNKNOWN if share is UNKNOWN else checked_number(share.get("capacityGb"))
                        if isinstance(share, dict) else None)
            regional = isinstance(location, str) and region_of_zone(location) == location
            out.append(Filesystem(r, location, location if regional else
                                  (region_of_zone(location) if location is not UNKNOWN else ""),
                                  capacity, str(r.get("tier") or ""), regional))
        elif r.type == AZ_AMLFS:
            zones = r.get("zones")
            zone = (_zone(zones[0]) if isinstance(zones, list) and zones else
                    UNKNOWN if zones is UNKNOWN else "")
            tib = _capacity(r, "storageCapacityTiB")
            out.append(Filesystem(r, zone, _azure_location(r),
                                  tib * 1024 if isinstance(tib, float) else tib,
                                  str(r.get("sku.name") or "")))
        elif r.type == ALI_NAS and r.get("fileSystemType") is UNKNOWN:
            # Whether it is a zonal CPFS is known only after apply.
            out.append(Filesystem(r, UNKNOWN, r.provider_region or "", None, ""))
        elif r.type == ALI_NAS and str(r.get("fileSystemType") or "").startswith("cpfs"):
            switches = r.dep("vswitchId", ALI_SWITCH)
            zone = _zone(r.get("zoneId") or (switches[0].get("zoneId") if switches else ""))
            if zone == "" and unread_placement(r, "vswitchId", (ALI_SWITCH,)):
                zone = UNKNOWN   # a vSwitch id read only at apply (a stack reference): so is its zone
            out.append(Filesystem(r, zone, r.provider_region or (
                region_of_zone(zone) if zone is not UNKNOWN else ""),
                _capacity(r, "capacity"), str(r.get("storageType") or "")))
    return out


def _fsx_zone(r: Resource) -> Any:
    """An FSx file system's zone, its first subnet's (subnetIds): that of the stack subnet behind
    it, else UNKNOWN where the id (the list or an entry) is unknown at preview with no stack
    subnet behind it (a stack reference: read only at apply, so "cannot decide", as compute so
    placed is, capacity.unread_placement), else "" (a literal id: the pack config's zones)."""
    # A classic or an aws-native subnet of the stack: the same availabilityZone either way.
    subnets = r.dep("subnetIds", AWS_SUBNET) or r.dep("subnetIds", AWS_NATIVE_SUBNET)
    if subnets:
        return aws_subnet_zone(subnets[0])
    return UNKNOWN if unread_placement(r, "subnetIds", (AWS_SUBNET, AWS_NATIVE_SUBNET)) else ""


def _capacity(r: Resource, key: str) -> Any:
    """A capacity (float), UNKNOWN, None when absent, or BadNumber when negative, NaN or no
    number (never a size below the truth)."""
    return checked_number(r.get(key))


# ------------------------------------------------------------------------------------ buckets

@dataclass
class Bucket:
    resource: Resource
    region: Any        # str, UNKNOWN, or None when the bucket takes the default provider's


def _buckets(resources: list[Resource]) -> list[Bucket]:
    out: list[Bucket] = []
    for r in resources:
        if r.type not in _BUCKET_TYPES:
            continue
        if r.type in AWS_BUCKETS:
            out.append(Bucket(r, r.get("region") or r.provider_region))
        elif r.type == GCP_BUCKET:
            out.append(Bucket(r, r.get("location")))
        elif r.type == AZ_STORAGE_ACCOUNT:
            loc = r.get("location")
            out.append(Bucket(r, normalize_azure_location(loc) if isinstance(loc, str)
                              else loc or r.provider_region))
        elif r.type == ALI_BUCKET:
            # An OSS bucket has no region input: it is created in its provider's region.
            out.append(Bucket(r, r.provider_region))
    return out


def is_bucket(r: Resource) -> bool:
    return r.type in BUCKET_TYPES   # asked of every resource (bucket-retained)


# storage-same-zone and spend-limit both read the same stack's filesystems and buckets.
filesystems = PerStack(_filesystems)
buckets = PerStack(_buckets)
