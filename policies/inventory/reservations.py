"""Capacity counted once: a reservation bills whether it is used or not, so the nodes a group
launches into it add nothing; only a group's nodes beyond the reservation are priced again.

A group launches into a reservation through a property dependency on it (AWS: the launch
template's or instance's capacityReservationSpecification; Azure: the scale set's or VM's
capacityReservation naming the capacity reservation group; Alibaba Cloud: an instance's
privatePoolOptionsMatchCriteria Target with its privatePoolOptionsId), by naming it (GCP:
reservationAffinity SPECIFIC_RESERVATION with the reservation's name), or, on Alibaba Cloud, by
matching an open reservation (the instance's criteria Open, the reservation not Target, the same
zone: the PrivatePoolOptions.MatchCriteria reference; None, the default, uses no private pool),
and on AWS and GCP by matching an open ODCR / an automatically consumed GCP reservation (the
group's type and zone, an open preference or ANY_RESERVATION affinity, the defaults; not spot).
Only nodes of the
reservation's own type fill it; a literal reservation id the stack does not create is not one of
the stack's reservations (it is billed elsewhere) and is not matched.
"""
from __future__ import annotations

from typing import Any

# The reservation types and their tokens are capacity's, which sizes them (one list for both).
from trainstack_policies.capacity import (
    AZ_CAPACITY_RESERVATION,
    AZ_CLASSIC_CAPACITY_RESERVATION,
    AZ_CLASSIC_CAPACITY_RESERVATION_GROUP,
    GCP_RESERVATION,
)
from trainstack_policies.capacity import RESERVATIONS as RESERVATION_TYPES
from trainstack_policies.inventory.groups import NodeGroup, launch_settings
from trainstack_policies.inventory.tokens import (
    ALI_CAPACITY_RESERVATION,
    AWS_NATIVE_LAUNCH_TEMPLATE,
    AWS_NATIVE_ODCR,
    AWS_NATIVE_RESOURCE_GROUP,
    AWS_ODCR,
    AWS_RESOURCE_GROUP,
    AWS_RESOURCE_GROUP_MEMBER,
)
from trainstack_policies.model import UNKNOWN, Resource, dig, last_segment

AZ_CAPACITY_RESERVATION_GROUP = "azure-native:compute:CapacityReservationGroup"
AWS_POOL = "AWS::EC2::CapacityReservationPool"
# id(ODCR) -> the Capacity Reservation groups of the stack it is known to be added to.
Pools = dict[int, list[Resource]]


def _depends_on(holder: Resource, keys: tuple[str, ...], target: Resource) -> bool:
    return any(d is target for key in keys for d in holder.deps.get(key, []))


_NOT_READ = object()


def _leaf(props: Any, path: str) -> Any:
    """The value at `path`, or _NOT_READ where an input above it is unknown at preview (the
    reference itself cannot be read: it may or may not be there)."""
    parts = path.split(".")
    for part in parts[:-1]:
        if props is UNKNOWN:
            return _NOT_READ
        props = props.get(part) if isinstance(props, dict) else None
    if props is UNKNOWN:
        return _NOT_READ
    return props.get(parts[-1]) if isinstance(props, dict) else None


def _set(value: Any) -> bool:
    return value is not None and value != "" and value is not _NOT_READ


def _tied(value: Any, deps: list[Resource], target: Resource, own_input: bool) -> bool:
    """Whether a reference input holding `value` is `target` by dependency: the engine records
    `deps` (the stack's resources of the target's kind) under the input itself (`own_input`) or
    under the top-level input it is nested in, beside other inputs (a scale set's
    virtualMachineProfile, an aws-native launch template's launchTemplateData); there only a
    reference unknown at preview, or a literal the pack cannot match, with that one resource of
    the kind behind the whole input, is read as it (review81 DEFECT 2)."""
    if not any(d is target for d in deps):
        return False
    return own_input or len(deps) == 1


def _gcp_names(holder: Resource) -> list[str]:
    affinity = holder.get("reservationAffinity")
    if not isinstance(affinity, dict) or affinity.get("type") != "SPECIFIC_RESERVATION":
        return []
    values = dig(affinity, "specificReservation.values")
    # The value may be a name or a projects/.../reservations/<name> path.
    return [str(v).rsplit("/", 1)[-1] for v in values] if isinstance(values, list) else []


def _launches_into(g: NodeGroup, res: NodeGroup, pools: Pools) -> bool:
    r = res.resource
    holders = [launch_settings(h) for h in (g.resource, g.template) if h is not None]
    if r.type == AWS_ODCR or r.type == AWS_NATIVE_ODCR:
        if not _aws_attributes_match(r, holders):
            return False
        if any(_into_odcr(h, r) for h in holders):
            return True
        if any(_targets_pool(h, p) for h in holders for p in pools.get(id(r), [])):
            # A target capacityReservationResourceGroupArn: "Instances that target a group of
            # Capacity Reservations match with any Capacity Reservation in the group that has
            # matching attributes (instance type, platform, Availability Zone, and tenancy) and
            # available capacity" (docs.aws.amazon.com/AWSEC2/latest/UserGuide/
            # create-cr-group.html); others run On-Demand.
            return _same_known_zone(g.zones, res.zones)
        # An open ODCR (instanceMatchCriteria "open", the API's default) takes every On-Demand
        # instance of its type, platform and zone whose preference is open (the default):
        # "Instances that have matching attributes launch into the Capacity Reservation
        # automatically" (EC2 API reference, CapacityReservation.InstanceMatchCriteria;
        # CapacityReservationSpecification.CapacityReservationPreference).
        return str(r.get("instanceMatchCriteria") or "open") == "open" and not g.spot \
            and all(_aws_preference_open(h) for h in holders) \
            and _same_known_zone(g.zones, res.zones)
    if r.type == GCP_RESERVATION:
        if not _gcp_cpu_platform_matches(r, holders) or not _gcp_accelerators_match(g, res):
            return False
        names = {n for n in (r.get("name"), r.name) if isinstance(n, str) and n}
        if any(_depends_on(h, ("reservationAffinity",), r) or set(_gcp_names(h)) & names
               for h in holders):
            return True
        # A reservation that does not require being named (specificReservationRequired false,
        # the API's default) is consumed automatically by VMs of its machine type in its zone
        # whose reservationAffinity is ANY_RESERVATION, the default; Spot and preemptible VMs
        # consume no reservation (cloud.google.com/compute/docs/instances/reservations-consume).
        return r.get("specificReservationRequired") is not True and not g.spot \
            and all(_gcp_affinity_any(h) for h in holders) \
            and _same_known_zone(g.zones, res.zones)
    if r.type == AZ_CAPACITY_RESERVATION or r.type == AZ_CLASSIC_CAPACITY_RESERVATION:
        # "Spot VMs and Azure Dedicated Host Nodes aren't supported with Capacity Reservation"
        # (learn.microsoft.com/azure/virtual-machines/capacity-reservation-overview, Limitations
        # and restrictions): a Spot (or Low priority) pool or scale set runs beside the
        # reservation at its own price, whatever group it names.
        if g.spot:
            return False
        groups = [d for d in r.deps.get("capacityReservationGroupName", [])
                  if d.type == AZ_CAPACITY_RESERVATION_GROUP] + \
            [d for d in r.deps.get("capacityReservationGroupId", [])
             if d.type == AZ_CLASSIC_CAPACITY_RESERVATION_GROUP]
        return any(_in_az_group(h, crg) for h in holders for crg in groups) or \
            any(_inline_pool_in(g, crg) for crg in groups)
    if r.type == ALI_CAPACITY_RESERVATION:
        # "Immediate Capacity Reservation guarantees resources only for pay-as-you-go instances,
        # not spot instances" (help.aliyun.com/en/ecs/user-guide/
        # overview-of-immediate-capacity-reservation): spot nodes run beside it at their price.
        if g.spot:
            return False
        for h in holders:
            criteria = h.get("privatePoolOptionsMatchCriteria")
            if criteria == "Target" and _depends_on(h, ("privatePoolOptionsId",), r):
                return True
            if criteria == "Open" and r.get("matchCriteria") != "Target" \
                    and _same_known_zone(g.zones, res.zones):
                return True
    return False


# Where an Azure node group names its capacity reservation group's ARM id: (the input the engine
# records its dependencies under, the id's path, whether that input is the reference alone).
_AZ_GROUP_REFS = (
    # azure-native compute.VirtualMachine: capacityReservation {capacityReservationGroup: {id}}
    ("capacityReservation", "capacityReservation.capacityReservationGroup.id", True),
    # azure-native compute.VirtualMachineScaleSet: in virtualMachineProfile, beside customData,
    # the image, the network profile ...
    ("virtualMachineProfile",
     "virtualMachineProfile.capacityReservation.capacityReservationGroup.id", False),
    # azure-native containerservice.AgentPool
    ("capacityReservationGroupID", "capacityReservationGroupID", True),
    # the classic provider's VMs, scale sets and cluster node pools
    ("capacityReservationGroupId", "capacityReservationGroupId", True),
    # a classic cluster's defaultNodePool, beside its size, count, subnet ...
    ("defaultNodePool", "defaultNodePool.capacityReservationGroupId", False),
)


def _in_az_group(h: Resource, crg: Resource) -> bool:
    """A scale set, VM or AKS pool launched into the capacity reservation group `crg`: its own
    reference to a group (capacityReservation.capacityReservationGroup.id; the classic
    capacityReservationGroupId; an AgentPool's capacityReservationGroupID) is set and names
    `crg`, by a literal ARM id of it (_names_az_group) or by dependency (_tied). A dependency
    of another input (customData naming the group for an agent) ties nothing: without the
    reference the VMs run beside the reservation, both billed (review81 DEFECT 2)."""
    kinds = (AZ_CAPACITY_RESERVATION_GROUP, AZ_CLASSIC_CAPACITY_RESERVATION_GROUP)
    for key, path, own_input in _AZ_GROUP_REFS:
        value = h.props.get(key) if own_input and h.props.get(key) is UNKNOWN \
            else _leaf(h.props, path)
        if not _set(value):
            continue
        deps = [d for d in h.deps.get(key, []) if d.type in kinds]
        named = _names_az_group(value, crg)
        if named is not None:
            if named and (any(d is crg for d in deps) or _same_subscription(h, crg)):
                return True
            if not named:
                continue
        if _tied(value, deps, crg, own_input):
            return True
    return False


def _names_az_group(value: Any, crg: Resource) -> Any:
    """Whether a literal ARM id (/subscriptions/<s>/resourceGroups/<rg>/providers/
    Microsoft.Compute/capacityReservationGroups/<name>, case-insensitive) names `crg`: its name
    (azure-native capacityReservationGroupName, classic name) and resource group where the
    group gives them; False where they differ; None where `value` is no such id or the group
    is auto-named (its name is read nowhere: the dependency decides)."""
    if not isinstance(value, str):
        return None
    parts = value.strip("/").split("/")
    if len(parts) != 8 or [p.lower() for p in (parts[0], parts[2], parts[4], parts[5], parts[6])] \
            != ["subscriptions", "resourcegroups", "providers", "microsoft.compute",
                "capacityreservationgroups"]:
        return None
    name = crg.get("capacityReservationGroupName" if crg.type == AZ_CAPACITY_RESERVATION_GROUP
                   else "name")
    if not isinstance(name, str) or not name:
        return None
    if parts[7].lower() != name.lower():
        return False
    rg = crg.get("resourceGroupName")
    return not (isinstance(rg, str) and rg) or parts[3].lower() == rg.lower()


def _same_subscription(h: Resource, crg: Resource) -> bool:
    """A literal id with no dependency names the stack's group only in its subscription, the
    group's provider's, where the node group's provider names the same one (a subscription the
    environment or the CLI login chooses is not read: another subscription's group of that
    name may be meant, and both are priced)."""
    mine = (h.provider or {}).get("subscriptionId")
    theirs = (crg.provider or {}).get("subscriptionId")
    return isinstance(mine, str) and bool(mine) and isinstance(theirs, str) \
        and mine.lower() == theirs.lower()


def _into_odcr(h: Resource, r: Resource) -> bool:
    """A launch template or instance launched into the ODCR `r`: its capacityReservationTarget
    sets capacityReservationId and its capacityReservationSpecification depends on `r` (an
    aws-native template's dependencies are its whole launchTemplateData's: _tied). A dependency
    through userData or any other input ties nothing."""
    value = _leaf(h.props, "capacityReservationSpecification.capacityReservationTarget."
                  "capacityReservationId")
    if not _set(value):
        return False
    deps = [d for d in h.deps.get("capacityReservationSpecification", [])
            if d.type in (AWS_ODCR, AWS_NATIVE_ODCR)]
    return _tied(value, deps, r, h.type != AWS_NATIVE_LAUNCH_TEMPLATE)


def _inline_pool_in(g: NodeGroup, crg: Resource) -> bool:
    """An azure-native AKS cluster's inline pool (an agentPoolProfiles entry) in the capacity
    reservation group `crg`: the entry sets capacityReservationGroupID and the cluster's
    agentPoolProfiles depend on the group. The engine records one dependency list for all the
    pools, so the entry's id, where it is an ARM id, must end in the group's given name; else the
    pools may depend on that one group only (of several, which one the entry names is unread:
    pool and reservation are both priced)."""
    entry = g.pool_entry
    value = entry.get("capacityReservationGroupID") if entry is not None else None
    if value is None or value == "":
        return False
    crgs = [d for d in g.resource.deps.get("agentPoolProfiles", [])
            if d.type == AZ_CAPACITY_RESERVATION_GROUP]
    if not any(d is crg for d in crgs):
        return False
    name = crg.get("capacityReservationGroupName")
    if isinstance(value, str) and "/capacityreservationgroups/" in value.lower() \
            and isinstance(name, str) and name:
        return last_segment(value).lower() == name.lower()
    return len(crgs) == 1


def aws_pools(resources: list[Resource]) -> Pools:
    """The Capacity Reservation groups (AWS Resource Groups with the
    AWS::EC2::CapacityReservationPool configuration, classic or aws-native) each ODCR of the
    stack is added to: an aws:resourcegroups/resource:Resource whose groupArn depends on the
    group or names it (its known arn, or its name: "Name or ARN of the resource group") and
    whose resourceArn depends on the ODCR or is its known arn; or, for an aws-native group,
    an ODCR its own `resources` list holds (_listed). A member that names no group or no ODCR
    of the stack, or more than one (unknown at preview, or a value from elsewhere), adds
    nothing: an ODCR not known to be in the group is priced beside the nodes, never fewer."""
    groups = [r for r in resources if r.type in (AWS_RESOURCE_GROUP, AWS_NATIVE_RESOURCE_GROUP)
              and _is_pool(r)]
    if not groups:
        return {}
    odcrs = [r for r in resources if r.type == AWS_ODCR or r.type == AWS_NATIVE_ODCR]
    out: Pools = {}
    for g in groups:
        if g.type == AWS_NATIVE_RESOURCE_GROUP:
            for o in _listed(g, odcrs):
                out.setdefault(id(o), []).append(g)
    for m in resources:
        if m.type != AWS_RESOURCE_GROUP_MEMBER:
            continue
        named = [p for p in groups if _depends_on(m, ("groupArn",), p)
                 or _names_group(m.get("groupArn"), p, bare_name=True)]
        added = [o for o in odcrs if _depends_on(m, ("resourceArn",), o)
                 or _known_arn(m.get("resourceArn"), o)]
        if len(named) == 1 and len(added) == 1:
            out.setdefault(id(added[0]), []).append(named[0])
    return out


def _is_pool(group: Resource) -> bool:
    """"AWS::EC2::CapacityReservationPool - Ensures that the resource group can be targeted for
    instance launches" (docs.aws.amazon.com/AWSEC2/latest/UserGuide/create-group.html), in the
    classic group's `configurations` or the aws-native one's `configuration`. A group with a
    resource query is none: "You can include either a Configuration or a ResourceQuery, but not
    both" (CloudFormation AWS::ResourceGroups::Group)."""
    configs = group.get("configuration" if group.type == AWS_NATIVE_RESOURCE_GROUP
                        else "configurations")
    return group.get("resourceQuery") is None and isinstance(configs, list) and any(
        isinstance(c, dict) and c.get("type") == AWS_POOL for c in configs)


def _listed(group: Resource, odcrs: list[Resource]) -> list[Resource]:
    """The ODCRs of the stack an aws-native group's `resources` (a list of ARNs) holds: each
    whose known arn it lists, and those its unknown entries stand for: the ODCRs the input
    depends on (beside those named by arn), where it depends on nothing else and they are as
    many as the unknown entries. A list unknown at preview, or entries that may come from
    elsewhere, name none: those ODCRs are priced beside the nodes."""
    listed = group.get("resources")
    if not isinstance(listed, list):
        return []
    named = [o for o in odcrs if any(_known_arn(v, o) for v in listed)]
    behind: list[Resource] = []
    for d in group.deps.get("resources", []):
        if not any(d is o for o in named) and not any(d is b for b in behind):
            behind.append(d)
    unknowns = sum(1 for v in listed if v is UNKNOWN)
    if unknowns and len(behind) == unknowns and all(any(d is o for o in odcrs) for d in behind):
        return named + behind
    return named


def _known_arn(value: Any, r: Resource) -> bool:
    arn = r.get("arn")
    return isinstance(value, str) and isinstance(arn, str) and bool(arn) and value == arn


def _names_group(value: Any, group: Resource, bare_name: bool) -> bool:
    """A literal naming `group`: its known arn, an ARN arn:<partition>:resource-groups:<region>:
    <account>:group/<name> of its given name (in its region, where that is known), or, where
    the input takes a name too, the name itself."""
    if not isinstance(value, str) or not value:
        return False
    if _known_arn(value, group):
        return True
    name = group.get("name")
    if not isinstance(name, str) or not name:
        return False
    if bare_name and value == name:
        return True
    parts = value.split(":", 5)
    if len(parts) != 6 or parts[0] != "arn" or parts[2] != "resource-groups" \
            or parts[5] != f"group/{name}":
        return False
    region = group.get("region") or group.provider_region
    return not (isinstance(region, str) and region) or parts[3] == region


def _targets_pool(holder: Resource, group: Resource) -> bool:
    """A launch template's or instance's capacityReservationTarget naming the group in its
    capacityReservationResourceGroupArn, by dependency or by a literal ARN."""
    arn = _leaf(holder.props, "capacityReservationSpecification.capacityReservationTarget."
                "capacityReservationResourceGroupArn")
    if not _set(arn):
        return False
    if _names_group(arn, group, bare_name=False):
        return True
    deps = [d for d in holder.deps.get("capacityReservationSpecification", [])
            if d.type in (AWS_RESOURCE_GROUP, AWS_NATIVE_RESOURCE_GROUP)]
    return _tied(arn, deps, group, holder.type != AWS_NATIVE_LAUNCH_TEMPLATE)


def _windows(holders: list[Resource]) -> bool:
    """Instances that show they run Windows (getPasswordData, or PowerShell / batch user
    data); the pack cannot read an AMI's platform, so others are taken as Linux/UNIX."""
    for h in holders:
        data = h.get("userData")
        if h.get("getPasswordData") is True or (isinstance(data, str) and data.lstrip().lower()
                                                .startswith(("<powershell>", "<script>"))):
            return True
    return False


def _aws_attributes_match(r: Resource, holders: list[Resource]) -> bool:
    """An instance launches into an ODCR only with "matching attributes (instance type,
    platform, Availability Zone, and tenancy)" (docs.aws.amazon.com/AWSEC2/latest/UserGuide/
    capacity-reservations-launch.html): the ODCR's tenancy (default unless "dedicated") against
    the instance's tenancy or its launch template's placement.tenancy; its instancePlatform
    against the instances' (Linux/UNIX unless they show Windows). Types and zones are matched
    by the callers."""
    tenancy = str(r.get("tenancy") or "default").lower()
    own = next((str(t).lower() for h in holders for t in (h.get("tenancy"),
                                                         h.get("placement.tenancy"))
                if isinstance(t, str) and t), "default")
    if own != tenancy:
        return False
    platform = str(r.get("instancePlatform") or "Linux/UNIX").lower()
    if _windows(holders):
        return platform.startswith("windows")
    return platform == "linux/unix"


def _gcp_cpu_platform_matches(r: Resource, holders: list[Resource]) -> bool:
    """A VM consumes a reservation only when its properties match the reservation's, the
    minimum CPU platform among them (cloud.google.com/compute/docs/instances/
    reservations-consume); compared where the reservation states its instanceProperties."""
    props = r.get("specificReservation.instanceProperties")
    if not isinstance(props, dict):
        return True

    def platform(value: Any) -> str:
        text = str(value or "").strip().lower()
        return "" if text == "automatic" else text
    wanted = platform(props.get("minCpuPlatform"))
    own = next((platform(h.get("minCpuPlatform")) for h in holders
                if h.get("minCpuPlatform")), "")
    return own == wanted


def _gcp_accelerators_match(g: NodeGroup, res: NodeGroup) -> bool:
    """A VM consumes a reservation only when its properties match the reservation's
    (cloud.google.com/compute/docs/instances/reservations-consume), its attached GPUs among
    them: the same accelerator types, each in the same number per VM. Compared for N1 machine
    types only, the one family GPUs are attached to (cloud.google.com/compute/docs/gpus: the
    accelerator-optimized A2/A3/A4/G2/G4 types come with theirs, named by the type). One
    that cannot be read (unknown at preview) matches nothing: both are then priced, never
    fewer."""
    mtype = res.instance_type
    if not (isinstance(mtype, str) and mtype.startswith("n1-")):
        return True

    def per_vm(kinds: list[tuple[Any, Any]]) -> Any:
        out: dict[str, int] = {}
        for name, n in kinds:
            if not isinstance(name, str) or not name or not isinstance(n, int):
                return None   # a type or a count unknown at preview (or not given)
            out[name] = out.get(name, 0) + n
        return out
    mine, reserved = per_vm(g.accelerator_types), per_vm(res.accelerator_types)
    return mine is not None and mine == reserved


def _aws_preference_open(holder: Resource) -> bool:
    spec = holder.get("capacityReservationSpecification")
    if spec is None:
        return True
    if not isinstance(spec, dict) or spec.get("capacityReservationTarget") is not None:
        return False
    return str(spec.get("capacityReservationPreference") or "open") == "open"


def _gcp_affinity_any(holder: Resource) -> bool:
    affinity = holder.get("reservationAffinity")
    if affinity is None:
        return True
    return isinstance(affinity, dict) and \
        str(affinity.get("type") or "ANY_RESERVATION") == "ANY_RESERVATION"


def _same_known_zone(group_zones: list[Any], reservation_zones: list[Any]) -> bool:
    """Every zone of the group is read and is the reservation's (one zone on Alibaba Cloud)."""
    known = [z for z in reservation_zones if isinstance(z, str) and z]
    return bool(group_zones) and all(isinstance(z, str) and z in known for z in group_zones)


def _same_type(cloud: str, a: Any, b: Any) -> bool:
    """One instance type; Azure VM sizes in any case (Standard_NC24ads_A100_v4 is
    standard_nc24ads_a100_v4 to ARM)."""
    if cloud == "azure" and isinstance(a, str) and isinstance(b, str):
        return a.lower() == b.lower()
    return a == b


def count_once(groups: list[NodeGroup], resources: list[Resource]) -> None:
    """Mark on each group the nodes that run inside a reservation of the stack (its
    `reserved_nodes`, `reserved_in`): pricing leaves them out, since the reservation is priced
    whole. A reservation is filled in stack order, by groups of its own instance type."""
    reservations = [g for g in groups if g.resource.type in RESERVATION_TYPES]
    if not reservations:
        return
    room: dict[int, Any] = {id(res): res.count for res in reservations}
    pools = aws_pools(resources)
    for g in groups:
        if g.resource.type in RESERVATION_TYPES or not isinstance(g.count, int):
            continue
        for res in reservations:
            free = room[id(res)]
            if not isinstance(free, int) or free <= 0 \
                    or not _same_type(g.cloud, res.instance_type, g.instance_type) \
                    or not _launches_into(g, res, pools):
                continue
            inside = min(free, g.count - g.reserved_nodes)
            if inside <= 0:
                continue
            room[id(res)] = free - inside
            g.reserved_nodes += inside
            g.reserved_in.append(res.resource.name)
            if res.lifetime_hours is not None:
                # A reservation that ends (AWS endDate, GCP deleteAt, Alibaba endTime) holds its
                # nodes until then only: the shortest such end counts for all of them.
                g.reserved_hours = res.lifetime_hours if g.reserved_hours is None else \
                    min(g.reserved_hours, res.lifetime_hours)
