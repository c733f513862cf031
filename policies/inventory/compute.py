"""Every compute group of a stack as a NodeGroup, on all four clouds (AWS readers: compute_aws)."""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Optional

from trainstack_policies.capacity import (
    accelerator_entries,
    attached_entries,
    launch_zones,
    unread_placement,
)
from trainstack_policies.inventory.compute_aws import (
    _aws_fleet,
    _aws_group,
    _eks_group,
    spot_fleet_view,
)
from trainstack_policies.inventory.groups import NodeGroup, is_gpu_group, launch_settings
from trainstack_policies.inventory.lifetimes import enforced_hours
from trainstack_policies.inventory.raises import raise_to_largest
from trainstack_policies.inventory.referrers import _StackIndex
from trainstack_policies.inventory.reservations import count_once
from trainstack_policies.inventory.tokens import (
    ALI_INSTANCE,
    ALI_INSTANCE_SET,
    ALI_LAUNCH_TEMPLATES,
    ALI_SCALING_GROUP,
    ALI_SWITCH,
    AWS_ASG,
    AWS_EKS_NODE_GROUP,
    AWS_FLEET,
    AWS_INSTANCE,
    AWS_LAUNCH_TEMPLATE,
    AWS_NATIVE_FLEET,
    AWS_NATIVE_INSTANCE,
    AWS_NATIVE_LAUNCH_TEMPLATE,
    AWS_NATIVE_SPOT_FLEET,
    AWS_SPOT_FLEET,
    AWS_SPOT_INSTANCE_REQUEST,
    AZ_VM,
    AZ_VMSS,
    GCP_IGM,
    GCP_INSTANCE,
    GCP_INSTANCE_FROM_TEMPLATE,
    GCP_REGION_IGM,
    GCP_TEMPLATES,
    GKE_CLUSTER,
    GKE_NODE_POOL,
    GPU_FAMILIES,
)
from trainstack_policies.inventory.values import (
    PerStack,
    _aws_region,
    _azure_location,
    _count,
    _dicts,
    _first,
    _list,
    _subnet_zones,
    _types,
    _zone,
    env_region,
)
from trainstack_policies.model import (
    UNKNOWN,
    BadNumber,
    Resource,
    as_list,
    checked_number,
    dict_entries,
    dig,
    first_zone_region,
    last_segment,
    name_list,
    number,
    region_of_zone,
    short_repr,
)


def _region_unknown(g: NodeGroup) -> bool:
    """A group no known value places in a region, where one that would is unknown at preview:
    its own `region`, its provider's `region` (Azure: `location`), or on GCP the zone it runs
    in (its own or the provider's), which chooses the region there."""
    r = g.resource
    if r.get("region") is UNKNOWN:
        return True
    if r.provider.get("location" if g.cloud == "azure" else "region") is UNKNOWN:
        return True
    return g.cloud == "gcp" and UNKNOWN in g.zones


def _zonal_region(zone: Any) -> Any:
    """A zonal GCP group's region: its zone's ("" where it names none), UNKNOWN where the zone
    (its own, or the provider's it defaults to) is unknown at preview: the zone chooses the
    region, so the provider's `region` does not place it."""
    return UNKNOWN if zone is UNKNOWN else region_of_zone(zone)


def gpu_groups(resources: list[Resource]) -> list[NodeGroup]:
    global _LAST_GPU
    computed = node_groups.found(resources)   # node_groups' own list: its identity is the key
    groups = computed
    if _LAST_GPU[0] is not computed:
        # Three rules ask for the GPU groups of the same stack; a group's GPU verdict depends
        # only on its own types and accelerators, which nothing changes after it is built.
        _LAST_GPU = (computed, [g for g in groups if is_gpu_group(g)])
    return list(_LAST_GPU[1])


def cpu_groups(resources: list[Resource]) -> list[NodeGroup]:
    """The stack's node groups gpu_groups() leaves out, from the same groups and verdicts."""
    gpu = {id(g) for g in gpu_groups(resources)}
    return [g for g in node_groups.found(resources) if id(g) not in gpu]


def _gke_pool(r: Resource) -> NodeGroup:
    given = r.get("nodeConfig")
    # A nodeConfig unknown at preview hides its machine and its GPUs alike: both unknown (GPU
    # capacity that cannot be priced, never CPU). One left out is GKE's default CPU machine.
    config = given if isinstance(given, dict) else \
        {"machineType": UNKNOWN, "guestAccelerators": UNKNOWN} if given is UNKNOWN else {}
    # One written in another shape than an object (`nodeConfig: [{machineType: ...}]`, a list
    # of one) is there but cannot be read: neither absent (GKE's default CPU machine) nor its
    # one item. Its machine is a type that cannot be read (model.reach gives BadNumber naming
    # the value; NodeGroup: GPU capacity failing closed), its GPUs none read.
    unread = r.reach("nodeConfig.machineType") if given is not None and given is not UNKNOWN \
        and not isinstance(given, dict) else None
    # GKE names a reservation's consumption consumeReservationType (container.NodePool
    # nodeConfig.reservationAffinity), Compute Engine `type`: the holder speaks Compute's.
    affinity = config.get("reservationAffinity")
    if isinstance(affinity, dict):
        affinity = {"type": affinity.get("consumeReservationType"),
                    "specificReservation": {"key": affinity.get("key"),
                                            "values": affinity.get("values")}}
    holder = Resource(r.type, r.name, r.urn, {"machineType": config.get("machineType"),
                                              "guestAccelerators": config.get("guestAccelerators"),
                                              # The nodes' GCP labels, never the Kubernetes
                                              # `labels` (tags._gke_node_labels).
                                              "labels": config.get("resourceLabels"),
                                              "reservationAffinity": affinity,
                                              "scheduling": {"provisioningModel": "SPOT"}
                                              if config.get("spot") else {}})
    locations = r.get("nodeLocations")
    location = r.get("location") or r.provider.get("zone") or r.provider.get("region")
    if isinstance(locations, list) and locations:
        zones = [_zone(z) for z in locations]
    elif location is UNKNOWN:
        zones = [UNKNOWN]
    elif isinstance(location, str) and region_of_zone(location) != location:
        zones = [location]
    else:
        zones = [""]   # a regional pool: nodes in every zone of the region
    # model.reach: an `autoscaling` written as a list of one (or a scalar) is a size that is
    # no number (BadNumber naming it), never absent with nodeCount standing in.
    per_zone = r.reach("autoscaling.maxNodeCount")
    total = r.reach("autoscaling.totalMaxNodeCount")
    if total is not None:
        count = _count(total)
    else:
        # nodeCount / maxNodeCount are per zone; a regional pool without nodeLocations runs in
        # the region's default three zones.
        n = _count(per_zone, r.get("nodeCount"), r.get("initialNodeCount"))
        count = n if n is None or isinstance(n, BadNumber) else \
            n * max(1, len([z for z in zones if z]) or 3)
    region = region_of_zone(zones[0]) if isinstance(zones[0], str) and zones[0] else \
        (location if isinstance(location, str) else "")
    return NodeGroup(r, holder, unread if unread is not None else _gcp_machine_type(holder),
                     count, bool(config.get("spot") or config.get("preemptible")), zones, region,
                     accelerators=_attached(holder, GKE_DEFAULT_MACHINE),
                     type_unread=f"that cannot be read (nodeConfig {unread.text} is no object)"
                     if isinstance(unread, BadNumber) else "")


def _gke_cluster_pools(r: Resource) -> list[NodeGroup]:
    """The node pools a GKE cluster declares itself, each read as a separate NodePool is: its
    inline nodePools, or else its default pool (the cluster's nodeConfig, nodeLocations and
    initialNodeCount, per zone), unless removeDefaultNodePool deletes that pool once the
    cluster is up (pulumi-gcp container.Cluster) or the cluster is Autopilot (no node pools of
    its own: Google bills its Pods).
    A default pool whose size is unknown counts as unknown (fails closed if GPU)."""
    if r.get("enableAutopilot") is True:
        return []
    # A list input: one pool written as one object is a list of that one (model.as_list).
    pools = as_list(r.get("nodePools"))
    if pools:
        shared = {k: r.get(k) for k in ("location", "nodeLocations")}
        out = []
        for p in pools:
            if not isinstance(p, dict):
                out.append(NodeGroup(r, None, UNKNOWN, None, False, [UNKNOWN], ""))
                continue
            own = {k: v for k, v in p.items() if v is not None}
            out.append(_as_cluster(_gke_pool(replace(r, props={**shared, **own}, deps={})), r))
        return out
    if r.get("removeDefaultNodePool") is True:
        return []
    # The default pool: initialNodeCount nodes per zone (the cluster's own nodeConfig).
    pool = _as_cluster(_gke_pool(replace(r, props={k: r.get(k) for k in (
        "location", "nodeLocations", "nodeConfig", "initialNodeCount")})), r)
    if r.get("nodeConfig") is UNKNOWN or r.get("nodeConfig.machineType") is UNKNOWN:
        # Its machine is unknown until apply: it may be GPU capacity.
        pool.instance_type, pool.instance_types = UNKNOWN, [UNKNOWN]
    return [pool]


def _as_cluster(g: NodeGroup, cluster: Resource) -> NodeGroup:
    """A pool read from a cluster's inputs, judged as the cluster (its name, tags, findings)."""
    g.resource = cluster
    g.cloud = cluster.cloud   # read once when a group is made (NodeGroup.__post_init__)
    return g


# node_groups' list of the last stack gpu_groups() saw, and its GPU groups.
_LAST_GPU: tuple[Optional[list], list] = (None, [])


# The types _node_groups() reads as groups (one branch each below): every other resource is
# passed over with one look-up instead of the whole chain of comparisons.
_GROUP_TYPES = frozenset({
    AWS_ASG, AWS_SPOT_FLEET, AWS_FLEET, AWS_NATIVE_FLEET, AWS_EKS_NODE_GROUP, AWS_INSTANCE,
    AWS_NATIVE_SPOT_FLEET,
    AWS_SPOT_INSTANCE_REQUEST, GCP_IGM, GCP_REGION_IGM, GKE_NODE_POOL, GCP_INSTANCE_FROM_TEMPLATE,
    GCP_INSTANCE, AZ_VMSS, AZ_VM, ALI_INSTANCE, ALI_INSTANCE_SET, ALI_SCALING_GROUP, GKE_CLUSTER})


def _node_groups(resources: list[Resource]) -> list[NodeGroup]:
    groups: list[NodeGroup] = []
    index = _StackIndex(resources)
    for r in resources:
        if r.type not in _GROUP_TYPES:
            continue
        if r.type == AWS_ASG:
            groups.append(_aws_group(r, resources))
        elif r.type in (AWS_SPOT_FLEET, AWS_FLEET, AWS_NATIVE_FLEET):
            groups.append(_aws_fleet(r))
        elif r.type == AWS_NATIVE_SPOT_FLEET:
            # Read as the classic request (spot_fleet_view): the group's resource is the view,
            # so every rule reads the same inputs (its name, type and urn are the resource's).
            groups.append(_aws_fleet(spot_fleet_view(r)))
        elif r.type == AWS_EKS_NODE_GROUP:
            groups.append(_eks_group(r))
        elif r.type in (AWS_INSTANCE, AWS_SPOT_INSTANCE_REQUEST):
            # A SpotInstanceRequest takes an instance's inputs and launches one spot instance.
            lt = _first(r.dep("launchTemplate", AWS_LAUNCH_TEMPLATE))
            # Its zone: availabilityZone, else the stack subnet it launches in: its own
            # subnetId or interfaces, else (naming neither) its launch template's interfaces.
            zones = [_zone(z) for z in ([r.get("availabilityZone")] if r.get("availabilityZone")
                                        else launch_zones(r, lt))] or [""]
            itype = _own_type(r, lt)
            market = r.get("instanceMarketOptions.marketType") or (
                lt.get("instanceMarketOptions.marketType") if lt else None)
            groups.append(NodeGroup(r, lt, itype, 1, market == "spot"
                                    or r.type == AWS_SPOT_INSTANCE_REQUEST, zones,
                                    _aws_region(r, zones)))
        elif r.type in (GCP_IGM, GCP_REGION_IGM):
            # Every version's template runs VMs (a canary's too): each one's type counts.
            templates = [d for d in r.deps.get("versions", []) if d.type in GCP_TEMPLATES]
            template = _first(templates)
            if r.type == GCP_IGM:
                zones = [_zone(r.get("zone") or r.provider.get("zone"))]
                region = _zonal_region(zones[0])
            else:
                dz = r.get("distributionPolicyZones")
                zones = [last_segment(z) for z in dz] if isinstance(dz, list) and dz else [""]
                region = r.get("region")
                if region is UNKNOWN:
                    # Its own region unknown at preview: its known distribution zones place it
                    # (they lie in the group's region), else nothing does (not the provider's).
                    region = first_zone_region(zones) or UNKNOWN
                region = region if isinstance(region, str) or region is UNKNOWN \
                    else region_of_zone(zones[0])
                if r.get("distributionPolicyTargetShape") == "ANY_SINGLE_ZONE" and len(zones) > 1:
                    # Every VM in ONE of the zones, chosen when the group is made.
                    zones = [UNKNOWN]
            # Instance selections replace the template's machine type (pulumi-gcp
            # instance_flexibility_policy.instance_selections[].machine_types).
            # A policy written as a list of one (model.reach: BadNumber naming it) is a type
            # that cannot be read, never "no selections"; a type of another shape than a name
            # in machineTypes too (_types keeps BadNumber, NodeGroup reads it so).
            selections = r.reach("instanceFlexibilityPolicy.instanceSelections")
            selected = [selections] if isinstance(selections, BadNumber) else [
                last_segment(t) if isinstance(t, str) else
                t if t is UNKNOWN or t is None else BadNumber(short_repr(t))
                for s in dict_entries(selections)   # one selection object: a list of it
                for t in ([UNKNOWN] if s is UNKNOWN else name_list(s.get("machineTypes")))]
            others = [_gcp_machine_type(t) for t in templates[1:]]
            groups.append(NodeGroup(
                r, template, _gcp_machine_type(template), _gcp_group_size(r, index),
                _gcp_spot(template), zones, region or (r.provider_region or ""),
                _types(selected, _gcp_machine_type(template), others)
                if selected or others else [],
                accelerators=max([_attached(t) for t in templates], default=0)))
        elif r.type == GKE_NODE_POOL:
            groups.append(_gke_pool(r))
        elif r.type == GKE_CLUSTER:
            groups += _gke_cluster_pools(r)
        elif r.type == GCP_INSTANCE_FROM_TEMPLATE:
            holder = _from_template(r)
            zone = _zone(r.get("zone") or r.provider.get("zone"))
            groups.append(NodeGroup(r, holder, _gcp_machine_type(holder), 1, _gcp_spot(holder),
                                    [zone], _zonal_region(zone) or (r.provider_region or ""),
                                    accelerators=_attached(holder)))
        elif r.type == GCP_INSTANCE:
            zone = _zone(r.get("zone") or r.provider.get("zone"))
            groups.append(NodeGroup(r, r, _gcp_machine_type(r), 1, _gcp_spot(r), [zone],
                                    _zonal_region(zone) or (r.provider_region or ""),
                                    accelerators=_attached(r)))
        elif r.type in (AZ_VMSS, AZ_VM):
            if r.type == AZ_VMSS:
                itype, count = r.reach("sku.name"), _count(r.reach("sku.capacity"))
                priority = r.get("virtualMachineProfile.priority")
            else:
                itype, count, priority = r.get("hardwareProfile.vmSize"), 1, r.get("priority")
            zones = r.get("zones")
            zones = ([_zone(z) for z in zones] if isinstance(zones, list) and zones
                     else [UNKNOWN] if zones is UNKNOWN else [""])
            group = NodeGroup(r, None, itype, count, priority in ("Spot", "Low"), zones,
                              _azure_location(r))
            if r.type == AZ_VMSS and group.spot:
                _priority_mix(group, r.get("priorityMixPolicy"))
            groups.append(group)
        elif r.type in (ALI_INSTANCE, ALI_INSTANCE_SET):
            zone = _zone(r.get("zoneId") or r.get("availabilityZone")
                         or next(iter(_subnet_zones(r, "vswitchId", ALI_SWITCH, "zoneId")), ""))
            if not zone and unread_placement(r, "vswitchId", (ALI_SWITCH,)):
                zone = UNKNOWN   # a vSwitch read at apply: its zone too
            count = _count(r.get("amount")) if r.type == ALI_INSTANCE_SET else 1
            # Launched from an ECS launch template (launchTemplateId / launchTemplateName):
            # what the instance does not set itself comes from the template.
            lt = _first([d for key in ("launchTemplateId", "launchTemplateName")
                         for d in r.deps.get(key, []) if d.type in ALI_LAUNCH_TEMPLATES])
            itype = _own_type(r, lt)
            strategy = r.get("spotStrategy") or (lt.get("spotStrategy") if lt else None)
            groups.append(NodeGroup(r, lt, itype, count, _ali_spot(strategy), [zone],
                                    r.provider_region or (region_of_zone(zone)
                                                          if zone is not UNKNOWN else "")))
        elif r.type == ALI_SCALING_GROUP:
            config = _first(index.scaling_configs.of(r, name_key=None))
            zones = _subnet_zones(r, "vswitchIds", ALI_SWITCH, "zoneId") or (
                [UNKNOWN] if unread_placement(r, "vswitchIds", (ALI_SWITCH,)) else [""])
            types: list[Any] = [None]
            if config is None:
                config = _first([d for d in r.deps.get("launchTemplateId", [])
                                 if d.type in ALI_LAUNCH_TEMPLATES])
            if config is not None:
                types = _types(config.get("instanceType"),
                               name_list(config.get("instanceTypes")))   # one string: a list
            # launchTemplateOverrides name more types the group launches besides its template's.
            overrides = r.get("launchTemplateOverrides")
            if overrides is not None:
                types = _types([t for t in types if t is not None],
                               [UNKNOWN if o is UNKNOWN else o.get("instanceType")
                                for o in _dicts(overrides)])
            groups.append(NodeGroup(
                r, config, types[0], _count(r.get("maxSize"), r.get("desiredCapacity")),
                bool(config and _ali_spot(config.get("spotStrategy"))), zones,
                r.provider_region or (region_of_zone(zones[0]) if zones[0] is not UNKNOWN
                                      else ""), types))
    from trainstack_policies import capacity
    groups += capacity.groups(resources, NodeGroup, _count, _zone, _aws_gpu_family)
    for g in groups:
        if not g.accelerators and all(t is None for t in g.instance_types):
            outside = _template_outside(g)
            if outside:
                # Its type lives in a template the stack does not create: read nowhere, so it
                # may be GPU capacity (as a type unknown at preview is).
                g.instance_type, g.instance_types, g.type_unread = UNKNOWN, [UNKNOWN], outside
        if g.region == "" and _region_unknown(g):
            # What names its region is in the program but unknown at preview: the environment
            # does not choose it, and it cannot be priced (fails closed, as an Azure location).
            g.region = UNKNOWN
        elif g.region == "":
            # No region in the program: the provider takes it from the environment, which the
            # engine passes to the pack as to the provider.
            g.region = env_region(g.cloud)
        if g.cloud == "gcp":
            g.invalid += _accelerator_problems(g.template)
            # A group with no template of its own (a reservation) keeps the types it was
            # built with.
            g.accelerator_types = _accelerator_types(g.template) or g.accelerator_types
        elif g.cloud == "aws":
            # Launched into a Capacity Block: marketType capacity-block (on the instance or its
            # launch template, aws or aws-native), or an EKS node group of capacityType
            # CAPACITY_BLOCK (docs.aws.amazon.com/eks/latest/userguide/capacity-blocks-mng.html).
            g.capacity_block = any(
                h is not None and launch_settings(h).get("instanceMarketOptions.marketType")
                == "capacity-block" for h in (g.resource, g.template)) or (
                g.resource.type == AWS_EKS_NODE_GROUP
                and g.resource.get("capacityType") == "CAPACITY_BLOCK")
        g.lifetime_hours, g.lifetime_how = enforced_hours(g, resources, index)
        # Sized at the largest any schedule, job or task of the stack raises it to.
        raise_to_largest(g, index)
        if g.resource.type == GCP_IGM or g.resource.type == GCP_REGION_IGM:
            _autoscaled(g, index.gcp_autoscalers.of(g.resource, name_key=None),
                        "autoscalingPolicy.maxReplicas")
        elif g.resource.type == AZ_VMSS or g.resource.type in capacity.AZ_CLASSIC_VMSS:
            # A classic set under a classic (or native) setting runs up to its maximum too.
            for s in index.azure_autoscale(g.resource):
                _autoscaled(g, [s], None)
    count_once(groups, resources)
    return groups


def _own_type(r: Resource, lt: Optional[Resource]) -> Any:
    """An instance's own instanceType, else its launch template's: only an absent or empty one
    defers to the template; `false`, an object or a list is there, a type that cannot be read
    (NodeGroup), never dropped for the template's or for none (review73 D3)."""
    own = r.get("instanceType")
    return own if own is not None and own != "" else (lt.get("instanceType") if lt else None)


def _aws_gpu_family(name: str) -> bool:
    """A bare AWS family name ("g5", as AWS Batch takes in instanceTypes) of GPU instances."""
    return bool(GPU_FAMILIES["aws"].match(name + "."))


def _priority_mix(g: NodeGroup, mix: Any) -> None:
    """A Spot scale set's priorityMixPolicy (Flexible orchestration, "Spot Priority Mix"):
    baseRegularPriorityCount Regular VMs, then regularPriorityPercentageAboveBase percent of
    the rest. A value left out or unreadable counts as all Regular (the dearer rate): the
    pack never prices a VM at spot that may run at the regular price."""
    if mix is None:
        return
    if not isinstance(mix, dict):
        g.regular_percent = 100.0
        return
    base = checked_number(mix.get("baseRegularPriorityCount"))
    percent = checked_number(mix.get("regularPriorityPercentageAboveBase"))
    g.regular_base = int(base) if isinstance(base, float) else 0
    g.regular_percent = min(percent, 100.0) if isinstance(percent, float) else 100.0
    if mix.get("baseRegularPriorityCount") is not None and not isinstance(base, float):
        g.regular_percent = 100.0


# Where each kind of compute names the template its type comes from: (input, template types of
# the stack that input may depend on, what the template is called).
_TEMPLATE_INPUTS: dict[str, tuple[tuple[str, ...], tuple[str, ...], str]] = {
    AWS_INSTANCE: (("launchTemplate",), (AWS_LAUNCH_TEMPLATE,), "launch template"),
    AWS_SPOT_INSTANCE_REQUEST: (("launchTemplate",), (AWS_LAUNCH_TEMPLATE,), "launch template"),
    # CloudFormation AWS::EC2::Instance LaunchTemplate (launchTemplateId / launchTemplateName).
    AWS_NATIVE_INSTANCE: (("launchTemplate",), (AWS_LAUNCH_TEMPLATE, AWS_NATIVE_LAUNCH_TEMPLATE),
                          "launch template"),
    AWS_EKS_NODE_GROUP: (("launchTemplate",), (AWS_LAUNCH_TEMPLATE,), "launch template"),
    GCP_IGM: (("versions",), tuple(GCP_TEMPLATES), "instance template"),
    GCP_REGION_IGM: (("versions",), tuple(GCP_TEMPLATES), "instance template"),
    GCP_INSTANCE_FROM_TEMPLATE: (("sourceInstanceTemplate",), tuple(GCP_TEMPLATES),
                                 "instance template"),
    ALI_INSTANCE: (("launchTemplateId", "launchTemplateName"), tuple(ALI_LAUNCH_TEMPLATES),
                   "launch template"),
    ALI_INSTANCE_SET: (("launchTemplateId", "launchTemplateName"), tuple(ALI_LAUNCH_TEMPLATES),
                       "launch template"),
    ALI_SCALING_GROUP: (("launchTemplateId",), tuple(ALI_LAUNCH_TEMPLATES), "launch template"),
}


def _template_outside(g: NodeGroup) -> str:
    """Why the type of a group with none of its own is read nowhere: it launches from a template
    the stack does not create (named by a literal id, name or self link, or by a value from
    elsewhere), or ""."""
    r = g.resource
    inputs, kinds, noun = _TEMPLATE_INPUTS.get(r.type, ((), (), ""))
    for key in inputs:
        value = r.get(key)
        if value is None or value == "" or value == [] or value == {} or any(
                d.type in kinds for d in r.deps.get(key, [])):
            continue
        if key == "versions":
            named = [v.get("instanceTemplate") if isinstance(v, dict) else v
                     for v in _list(value)]
            value = next((n for n in named if n is not None), None)
            if value is None:
                continue
        elif isinstance(value, dict):
            value = next((value.get(k) for k in ("id", "name", "launchTemplateId",
                                                  "launchTemplateName")
                          if value.get(k) is not None), None)
            if value is None:
                continue
        shown = "unknown until apply" if value is UNKNOWN else repr(value)
        return (f"from {noun} {shown}, which the stack does not create (its type is read "
                "nowhere in the stack)")
    return ""


def _from_template(r: Resource) -> Resource:
    """An InstanceFromTemplate as the VM it creates: the source template's inputs under its
    own (machineType, guestAccelerators, scheduling it sets override the template's)."""
    template = _first([d for d in r.deps.get("sourceInstanceTemplate", [])
                       if d.type in GCP_TEMPLATES])
    if template is None:
        return r
    props = {**template.props, **{k: v for k, v in r.props.items() if v is not None}}
    return replace(r, props=props, deps={**template.deps, **r.deps})


def _autoscaled(g: NodeGroup, scalers: list[Resource], path: Optional[str]) -> None:
    """A group sized by its autoscaler runs up to the autoscaler's maximum, not its target."""
    for s in scalers:
        if path is not None:
            values = [s.reach(path)]   # a policy written as a list: BadNumber naming it
        else:   # Azure autoscale setting: every profile's capacity.maximum
            values = [UNKNOWN] if s.get("profiles") is UNKNOWN else [
                dig(p, "capacity.maximum") for p in _dicts(s.get("profiles"))
                if isinstance(p, dict)]
            if s.get("enabled") is False:
                continue
        for value in values:
            n = _count(value)
            if n is None:
                g.count = None
                return
            if isinstance(n, BadNumber):
                g.invalid.append(f"autoscaler {s.name}'s maximum {n.text} is not valid")
                continue
            if g.count is not None and n > g.count:
                g.count = n


def _gcp_group_size(igm: Resource, index: _StackIndex) -> Any:
    """The most VMs a GCP instance group runs: its target size plus what resize requests add.

    A flex-start (DWS) group is created empty (targetSize 0) and grown by a ResizeRequest's
    resizeBy, which obtains all its VMs at once; counting only the target size prices it at 0.
    """
    size = _count(igm.get("targetSize"))
    if size is None or isinstance(size, BadNumber):
        return size
    for rr in index.resizes.of(igm):
        more = _count(rr.get("resizeBy"))
        if more is None or isinstance(more, BadNumber):
            return more
        size += more
    return size


# GKE's machine for a node pool that names none (container.NodePool nodeConfig.machineType).
GKE_DEFAULT_MACHINE = "e2-medium"
def _attached(holder: Optional[Resource], default_machine: Optional[str] = None) -> int:
    """Declared accelerators per node (a count that is no number counts as 1, still a GPU node,
    and is reported by _accelerator_problems()). Attached GPUs unknown at preview (the list, an
    entry of it, or an entry's count) count as at least one, of a type or number read after
    apply (_accelerator_types gives it as UNKNOWN, which has no price), on a machine that may
    take attached GPUs; on one that cannot (an e2, n2, c2...) they add none
    (capacity.attached_entries, which reservations read too). `default_machine`: the machine
    when the holder names none."""
    if holder is None:
        return 0
    declared = holder.get("guestAccelerators")   # read once: most holders declare none
    if declared is None:
        return 0
    total, unknown = 0, False
    for a in attached_entries(declared, _gcp_machine_type(holder) or default_machine):
        if isinstance(a, dict):
            n = checked_number(a.get("count"))
            total += int(n) if isinstance(n, float) and n >= 1 else 1
        else:
            unknown = True   # kept only on a machine that may take attached GPUs
    return total or (1 if unknown else 0)


def _accelerator_types(holder: Optional[Resource]) -> list[tuple[Any, Any]]:
    """(type, count per node) of each declared accelerator; the type is UNKNOWN or "" where it
    cannot be read (then it has no price), the count UNKNOWN where it is unknown at preview
    (then it has no price either: a known GPU's price times an unknown count is none), else
    as _attached() counts it."""
    if holder is None:
        return []
    out: list[tuple[Any, Any]] = []
    for a in _accelerators(holder.get("guestAccelerators")):
        if not isinstance(a, dict):     # an accelerator unknown at preview
            out.append((UNKNOWN, 1))
            continue
        n = checked_number(a.get("count"))
        kind = a.get("type")
        name = last_segment(kind) if isinstance(kind, str) and kind else \
            (UNKNOWN if kind is UNKNOWN else "")
        out.append((name, UNKNOWN if n is UNKNOWN else
                    int(n) if isinstance(n, float) and n >= 1 else 1))
    return out


def _accelerators(declared: Any) -> list[Any]:
    """The entries of a guestAccelerators input, one object written for the list included
    (model.as_list: a list of that one, as the docs promise for every list input), less those
    of count 0 (capacity.attaches_none); UNKNOWN entries kept, so a caller fails closed on
    them."""
    return accelerator_entries(declared)


def _accelerator_problems(holder: Optional[Resource]) -> list[str]:
    if holder is None:
        return []
    bad = [checked_number(a.get("count"))
           for a in _accelerators(holder.get("guestAccelerators")) if isinstance(a, dict)]
    return [f"its accelerator count {n.text} is not a finite non-negative number"
            for n in bad if isinstance(n, BadNumber)]


def _gcp_machine_type(template: Optional[Resource]) -> Any:
    """The machine type's name (the last segment of a URL); UNKNOWN or None as given; a value
    of another shape than a name (`machineType: ["a2-highgpu-1g"]`) BadNumber naming it: a
    type that cannot be read (NodeGroup), never the text of the list read as a name."""
    if template is None:
        return None
    value = template.get("machineType")
    if value is UNKNOWN or value is None:
        return value
    return last_segment(value) if isinstance(value, str) else BadNumber(short_repr(value))


def _gcp_spot(template: Optional[Resource]) -> bool:
    return bool(template and (template.get("scheduling.provisioningModel") == "SPOT"
                              or template.get("scheduling.preemptible") is True))


def _ali_spot(strategy: Any) -> bool:
    return strategy in ("SpotWithPriceLimit", "SpotAsPriceGo")


# Every compute group of the stack, GPU or not (gpu_groups() keeps the GPU ones), read once per
# stack: several rules (and spend-limit's check and summary) ask for the same stack's groups.
node_groups = PerStack(_node_groups)
