"""A node group (what the rules judge as compute) and whether it carries GPUs."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Optional

from trainstack_policies.inventory.tokens import AWS_NATIVE_LAUNCH_TEMPLATE, GPU_FAMILIES
from trainstack_policies.model import UNKNOWN, BadNumber, Resource, short_repr


@dataclass
class NodeGroup:
    resource: Resource                 # the group, fleet, node pool, scale set or instance
    template: Optional[Resource]       # launch template / instance template / scaling config
    instance_type: Any                 # the first (str), UNKNOWN or None
    count: Optional[int]               # the most nodes it can run; None: unknown at preview
    spot: bool
    zones: list[Any]                   # "" where the zone could not be read, UNKNOWN if unknown
    region: Any                        # "" unread, UNKNOWN where unknown at preview
    instance_types: list[Any] = field(default_factory=list)   # every type it may launch
    accelerators: int = 0              # declared accelerators per node (GCP guestAccelerators)
    # (type name, count per node) of each declared accelerator (GCP guestAccelerators type,
    # the last segment of its URL; the count UNKNOWN where it is unknown at preview), for
    # pricing an N1 machine plus its attached GPUs.
    accelerator_types: list[tuple[Any, Any]] = field(default_factory=list)
    lifetime_hours: Optional[float] = None   # a lifetime the plan enforces (see enforced_hours)
    lifetime_how: str = ""
    invalid: list[str] = field(default_factory=list)   # numbers refused (NaN, inf, negative)
    # A trainstack:max-hours tag that is no positive finite number: reported, but it prices
    # nothing (the tag never shortens the estimate), so the group is still priced.
    invalid_tags: list[str] = field(default_factory=list)
    # Nodes that run inside a reservation of the stack, priced with it (inventory.reservations).
    reserved_nodes: int = 0
    reserved_in: list[str] = field(default_factory=list)
    # Hours the reservation holding those nodes lasts (its own lifetime); None: the month. The
    # nodes run on at their own price after it ends (priced for the hours beyond it).
    reserved_hours: Optional[float] = None
    capacity_block: bool = False   # AWS instances launched into a Capacity Block
    # Of a spot group, the nodes that run at the regular (on-demand) rate: the first
    # `regular_base`, then `regular_percent` of the rest (an EC2 Fleet's / Spot Fleet's
    # onDemandTargetCapacity, an Azure scale set's priorityMixPolicy).
    regular_base: int = 0
    regular_percent: float = 0.0
    # An ASG with instance weights counts its sizes in capacity units, not instances: `count`
    # is then units, and each type's weight (units per instance) prices it per unit.
    weights: dict = field(default_factory=dict)
    # Why the instance type cannot be read when it is not merely unknown until apply (a launch
    # template the stack does not create), for the finding.
    type_unread: str = ""
    # Why the size cannot be read when a raise of the stack sets it (inventory.raises).
    size_unread: str = ""
    # How a size read at the dearest of what an input unknown at preview allows was taken, for
    # the estimate (a warm pool whose poolState is unknown: priced as Running, compute_aws).
    size_how: str = ""
    # The entry it was read from where one resource holds several pools (an azure-native AKS
    # cluster's agentPoolProfiles): that pool's own inputs (inventory.reservations).
    pool_entry: Optional[dict] = None

    def regular_nodes(self) -> int:
        """How many of the group's nodes are priced at the regular rate (all when not spot)."""
        if not isinstance(self.count, int):
            return 0
        if not self.spot:
            return self.count
        base = min(self.count, self.regular_base)
        rest = self.count - base
        return base + min(rest, math.ceil(rest * self.regular_percent / 100 - 1e-9))

    def __post_init__(self) -> None:
        # The group's cloud, its resource's: read for every group by several rules (20,000
        # resources: about 81,000 reads over 3,448 groups). Whoever sets a group's resource
        # after it is made sets its cloud too (compute._as_cluster); dataclasses.replace()
        # makes a new group, which reads it again.
        self.cloud: str = self.resource.cloud
        if not self.instance_types:
            self.instance_types = [self.instance_type]
        # A type name read with its surrounding whitespace stripped (' p5.48xlarge', a tab or a
        # newline around it): unstripped, a leading blank hid the GPU family from the catalog
        # and from GPU_FAMILIES, and the group vanished from the estimate (review73 D2).
        self.instance_types = [t.strip() if isinstance(t, str) else t for t in self.instance_types]
        if isinstance(self.instance_type, str):
            self.instance_type = self.instance_type.strip()
        if any(not _is_name(t) for t in self.instance_types):
            # A type written in another shape than a name (`sku: [{name, capacity}]` read for
            # sku.name gives BadNumber naming the list, model.reach): a type that cannot be read,
            # GPU capacity failing closed, never "no GPU" (the group would vanish from the estimate).
            bad = next(t for t in self.instance_types if not _is_name(t))
            text = bad.text if isinstance(bad, BadNumber) else short_repr(bad)
            self.type_unread = self.type_unread or f"that cannot be read ({text} is no type name)"
            self.instance_types = [t if _is_name(t) else UNKNOWN for t in self.instance_types]
            if not _is_name(self.instance_type):
                self.instance_type = UNKNOWN
        if isinstance(self.count, BadNumber):
            self.invalid.append(f"its size {self.count.text} is not a finite non-negative number")
            self.count = None


def _is_name(t: Any) -> bool:
    return t is None or t is UNKNOWN or isinstance(t, str)


def gpu_reason(cloud: str, instance_type: Any, accelerators: int = 0) -> str:
    """Why a type is a GPU node ("" when it is not): the catalog, a GPU family, or accelerators."""
    if accelerators:
        return f"declares {accelerators} accelerator(s) per node"
    if not isinstance(instance_type, str) or not instance_type:
        return ""
    return _type_reason(cloud, instance_type)


# A stack names a handful of instance types, asked about for every group by several rules; the
# answer depends only on (cloud, type) and the catalog, which a process never changes.
@lru_cache(maxsize=4096)
def _type_reason(cloud: str, instance_type: str) -> str:
    from trainstack_policies.catalog import instance_type as catalog_type
    from trainstack_policies.catalog import unpriced
    known = catalog_type(cloud, instance_type)
    if known is not None:
        return f"{known.gpu_count} x {known.gpu} (catalog)" if known.gpu_count else ""
    listed = unpriced(cloud, instance_type)
    if listed is not None:
        return f"{listed.gpu_count} x {listed.gpu}, listed publicly without a public price"
    family = GPU_FAMILIES.get(cloud)
    return "a GPU instance family the catalog does not list" if family and \
        family.match(instance_type) else ""


def is_gpu_group(g: NodeGroup) -> bool:
    """GPU capacity: a type that carries GPUs, accelerators, or a type unknown at preview."""
    return bool(g.accelerators) or any(t is UNKNOWN or gpu_reason(g.cloud, t)
                                       for t in g.instance_types)


def launch_settings(holder: Resource) -> Resource:
    """What nodes are launched with, as a classic launch template's top-level inputs. An
    aws-native launch template (CloudFormation AWS::EC2::LaunchTemplate) keeps them under
    launchTemplateData, and the engine records their property dependencies under that one key:
    here each of its inputs depends on what launchTemplateData depends on. Others as they are."""
    if holder.type != AWS_NATIVE_LAUNCH_TEMPLATE:
        return holder
    data = holder.get("launchTemplateData")
    if not isinstance(data, dict):
        return holder
    under = holder.deps.get("launchTemplateData", [])
    return Resource(holder.type, holder.name, holder.urn, data,
                    {key: under for key in data} if under else {},
                    provider_region=holder.provider_region, provider=holder.provider)
