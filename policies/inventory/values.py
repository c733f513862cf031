"""Reading engine inputs: counts, zones, regions, lists, and a value unknown at preview."""
from __future__ import annotations

import json
import os
from typing import Any, Callable, Generic, Optional, TypeVar

from trainstack_policies.model import (
    UNKNOWN,
    BadNumber,
    Resource,
    aws_region,
    checked_number,
    short_repr,
)


def json_text(value: Any) -> Any:
    """`value` read as JSON where it is JSON text (a string opening an object or a list: the
    engine may carry object-valued inputs that way, and schedules carry their input so), else
    `value` itself; None for such text that does not parse, or nests past what json reads
    (RecursionError: an input must never stop a policy)."""
    if isinstance(value, str) and value.lstrip().startswith(("{", "[")):
        try:
            return json.loads(value)
        except (ValueError, RecursionError):
            return None
    return value


def _first(resources: list[Resource]) -> Optional[Resource]:
    return resources[0] if resources else None


def _count(*values: Any) -> Any:
    """The first known of `values` (the maximum first), None when it is unknown at preview,
    BadNumber when it is NaN, infinite, negative or no whole number (2.5 nodes: every API takes
    an integer, and truncating would price fewer nodes than written)."""
    for value in values:
        if value is UNKNOWN:
            return None
        n = checked_number(value)
        if isinstance(n, BadNumber):
            return n
        if n is not None and n != int(n):
            return BadNumber(f"{value!r}")
        if n is not None:
            return int(n)
    return 1


def _zone(value: Any) -> Any:
    """A zone as a string ("" when absent), or UNKNOWN when the engine cannot know it yet."""
    return UNKNOWN if value is UNKNOWN else str(value or "")


# A zone named only by its AZ ID (an aws.ec2.Subnet given availabilityZoneId "use1-az4" and
# no availabilityZone), kept apart from zone names: which name an AZ ID has differs from one
# AWS account to another (docs.aws.amazon.com/ram/latest/userguide/working-with-az-ids.html),
# so an ID is compared with IDs only.
AZ_ID = "AZ ID "


def aws_subnet_zone(s: Resource) -> Any:
    """An AWS subnet's zone: its availabilityZone name, else AZ_ID + its availabilityZoneId,
    else "" (UNKNOWN where the one it gives is unknown at preview)."""
    name = s.get("availabilityZone")
    if name is UNKNOWN or name:
        return _zone(name)
    zone_id = s.get("availabilityZoneId")
    if zone_id is UNKNOWN:
        return UNKNOWN
    return AZ_ID + str(zone_id) if isinstance(zone_id, str) and zone_id else ""


def _subnet_zones(r: Resource, key: str, subnet_type: str, zone_key: str) -> list[Any]:
    return [_zone(s.get(zone_key)) for s in r.dep(key, subnet_type)]


# An AWS resource's region from its own input, its provider's or its zones (model.aws_region,
# which the pack's capacity readers share).
_aws_region = aws_region


def _list(value: Any) -> list:
    if value is UNKNOWN:
        return [UNKNOWN]
    return list(value) if isinstance(value, (list, tuple)) else []


def _dicts(value: Any) -> list[Any]:
    """The dict items of a list (UNKNOWN items kept, so a caller can fail closed on them)."""
    return [v for v in _list(value) if isinstance(v, dict) or v is UNKNOWN]


def _types(*candidates: Any) -> list[Any]:
    out = []
    for c in candidates:
        for t in (c if isinstance(c, list) else [c]):
            # A type of another shape than a name (BadNumber, compute._gcp_machine_type) is
            # kept: NodeGroup reads it as a type that cannot be read, never as no type.
            if t is not UNKNOWN and t is not None and not isinstance(t, (str, BadNumber)):
                # An object, a boolean, a number or a list where a name goes ({name: ...},
                # true, [..] inside the list of types): no name, kept as a type that cannot be
                # read, never dropped (the GPU group would vanish: review73 D3).
                t = BadNumber(short_repr(t))
            if t is UNKNOWN or isinstance(t, BadNumber) or (isinstance(t, str) and t):
                if t not in out:
                    out.append(t)
    return out or [None]


# The environment variables each provider reads its default region from.
REGION_ENV = {"aws": ("AWS_REGION", "AWS_DEFAULT_REGION"),
              "gcp": ("GOOGLE_REGION", "GCLOUD_REGION", "CLOUDSDK_COMPUTE_REGION"),
              "azure": ("ARM_LOCATION",),
              "alicloud": ("ALICLOUD_REGION", "ALIBABA_CLOUD_REGION")}


def env_region(cloud: str) -> str:
    return next((os.environ[k] for k in REGION_ENV.get(cloud, ()) if os.environ.get(k)), "")


def dig_value(value: Any, path: str) -> Any:
    from trainstack_policies.model import dig
    return dig(value, path)


def _azure_location(r: Resource) -> Any:
    """The normalised location, or UNKNOWN when it is unknown at preview."""
    value = r.get("location") or r.provider_region or ""
    return normalize_azure_location(str(value)) if value is not UNKNOWN else UNKNOWN


def normalize_azure_location(location: str) -> str:
    """"East US" and "eastus" are the same Azure region."""
    return location.replace(" ", "").lower()


_Read = TypeVar("_Read")


class PerStack(Generic[_Read]):
    """A reading of the whole stack, done once per evaluation: several rules (and spend-limit's
    check and summary) ask for the same stack's node groups, filesystems and buckets. The last
    list seen is kept with its length and what was read from it (the list is held, so its id is
    not reused); a different or a changed list is read afresh. What is read is never changed
    after it is made, so each caller gets its own copy of the list, not of its items."""

    def __init__(self, read: Callable[[list[Resource]], list[_Read]]):
        self.read = read
        self.last: tuple[list[Resource], int, list[_Read]] = ([], -1, [])

    def __call__(self, resources: list[Resource]) -> list[_Read]:
        return list(self.found(resources))

    def found(self, resources: list[Resource]) -> list[_Read]:
        """The kept list itself (its identity tells callers it is the same reading)."""
        seen, size, found = self.last
        if seen is not resources or size != len(resources):
            found = self.read(resources)
            self.last = (resources, len(resources), found)
        return found
