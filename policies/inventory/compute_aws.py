"""AWS compute as node groups: autoscaling groups, EC2 Fleet / Spot Fleet, EKS node groups."""
from __future__ import annotations

import math
from typing import Any, Optional

from trainstack_policies.capacity import (
    asg_weights,
    attribute_chosen,
    lt_type,
    replaces_template,
    requirements_accelerators,
    template_zones,
    unread_placement,
    weight_invalid,
)
from trainstack_policies.inventory.groups import NodeGroup
from trainstack_policies.inventory.tokens import (
    AWS_LAUNCH_CONFIGURATION,
    AWS_LAUNCH_TEMPLATE,
    AWS_NATIVE_LAUNCH_TEMPLATE,
    AWS_NATIVE_SPOT_FLEET,
    AWS_NATIVE_SUBNET,
    AWS_SPOT_FLEET,
    AWS_SUBNET,
)
from trainstack_policies.inventory.values import (
    _aws_region,
    _count,
    _first,
    _subnet_zones,
    _types,
    _zone,
)
from trainstack_policies.model import (
    UNKNOWN,
    BadNumber,
    Resource,
    checked_number,
    name_list,
    number,
)
from trainstack_policies.model import dict_entries as _entries   # shared with capacity.py
from trainstack_policies.template_refs import lt_ref, tie, tie_overrides, untied_count


# The inputs of a Spot Fleet request that the classic aws:ec2/spotFleetRequest takes at its top
# level and an aws-native SpotFleet (CloudFormation AWS::EC2::SpotFleet) under
# spotFleetRequestConfigData; the view gives each its dependencies on the whole config (the
# engine records them per top-level input only).
_SPOT_FLEET_DEP_KEYS = ("launchTemplateConfigs", "launchSpecifications")
_SPOT_FLEET_VIEWS: dict[int, tuple[Resource, Resource]] = {}


def spot_fleet_view(r: Resource) -> Resource:
    """An aws-native SpotFleet as the classic Spot Fleet request the rules read (same type,
    name and urn as `r`; inputs from its spotFleetRequestConfigData, the RequestSpotFleet
    SpotFleetRequestConfigData both providers pass on). A CloudFormation launch specification
    (SpotFleetLaunchSpecification) names its zone under Placement.AvailabilityZone, its subnet
    in SubnetId or its interfaces' SubnetId, its public IP only on its interfaces
    (InstanceNetworkInterfaceSpecification.AssociatePublicIpAddress), and its instance tags in
    TagSpecifications (SpotFleetTagSpecification, resourceType instance); the view gives each
    the classic launch specification's flat input (availabilityZone, subnetId,
    associatePublicIpAddress, tags). Any other resource is returned as it is."""
    if r.type != AWS_NATIVE_SPOT_FLEET:
        return r
    seen = _SPOT_FLEET_VIEWS.get(id(r))
    if seen is not None and seen[0] is r:
        return seen[1]
    data = r.get("spotFleetRequestConfigData")
    if data is UNKNOWN or not isinstance(data, dict):
        # Unknown at preview (or no object): every input it holds is unknown.
        props: dict[str, Any] = {"targetCapacity": UNKNOWN, "launchTemplateConfigs": UNKNOWN}
    else:
        props = dict(data)
        specs = data.get("launchSpecifications")
        if isinstance(specs, dict):
            specs = [specs]
        if isinstance(specs, list):
            props["launchSpecifications"] = [_classic_spec(s) for s in specs]
    deps = dict(r.deps)
    held = r.deps.get("spotFleetRequestConfigData", [])
    for key in _SPOT_FLEET_DEP_KEYS:
        deps[key] = list(held)
    view = Resource(r.type, r.name, r.urn, props, deps, r.retain, r.provider_region,
                    r.provider, r.protect)
    if len(_SPOT_FLEET_VIEWS) > 64:
        _SPOT_FLEET_VIEWS.clear()
    _SPOT_FLEET_VIEWS[id(r)] = (r, view)
    return view


def _classic_spec(spec: Any) -> Any:
    """A CloudFormation SpotFleetLaunchSpecification as the classic launch specification."""
    if not isinstance(spec, dict):
        return spec
    out = dict(spec)
    placed = spec.get("placement")
    zone = placed.get("availabilityZone") if isinstance(placed, dict) else \
        UNKNOWN if placed is UNKNOWN else None
    if out.get("availabilityZone") is None and zone is not None:
        out["availabilityZone"] = zone
    nics = spec.get("networkInterfaces")
    nic_list = [nics] if isinstance(nics, dict) else nics if isinstance(nics, list) else []
    if nics is UNKNOWN:
        out.setdefault("subnetId", UNKNOWN)
        out.setdefault("associatePublicIpAddress", UNKNOWN)
    elif nic_list:
        if out.get("subnetId") is None:
            named = [n.get("subnetId") if isinstance(n, dict) else UNKNOWN for n in nic_list]
            named = [n for n in named if n is not None]
            if named:
                out["subnetId"] = UNKNOWN if UNKNOWN in named else \
                    ",".join(str(n) for n in named)
        flags = [n.get("associatePublicIpAddress") if isinstance(n, dict) else UNKNOWN
                 for n in nic_list]
        if any(f is True or (isinstance(f, str) and f.strip().lower() == "true")
               for f in flags):
            out["associatePublicIpAddress"] = True
        elif UNKNOWN in flags:
            out["associatePublicIpAddress"] = UNKNOWN
        elif flags and all(f is False or (isinstance(f, str) and f.strip().lower() == "false")
                           for f in flags):
            out["associatePublicIpAddress"] = False
    tag_specs = spec.get("tagSpecifications")
    if tag_specs is UNKNOWN:
        out["tags"] = UNKNOWN
    elif isinstance(tag_specs, list):
        tags: Any = {}
        for ts in tag_specs:
            if ts is UNKNOWN or (isinstance(ts, dict) and ts.get("resourceType") is UNKNOWN):
                tags = UNKNOWN
                break
            if not isinstance(ts, dict) or ts.get("resourceType") != "instance":
                continue
            given = ts.get("tags")
            entries: list[Any] = given if isinstance(given, list) else \
                [UNKNOWN] if given is UNKNOWN else []
            for t in entries:
                if t is UNKNOWN or (isinstance(t, dict) and (t.get("key") is UNKNOWN
                                                             or t.get("value") is UNKNOWN)):
                    tags = UNKNOWN
                    break
                if isinstance(t, dict):
                    tags[str(t.get("key"))] = t.get("value")
            if tags is UNKNOWN:
                break
        out["tags"] = tags
    return out


def _overrides(configs: Any) -> list[Any]:
    """instanceType of every override in launchTemplateConfigs / mixedInstancesPolicy."""
    out: list[Any] = []
    for conf in _entries(configs):
        if conf is UNKNOWN:
            out.append(UNKNOWN)
            continue
        for o in _entries(conf.get("overrides") or conf.get("override")):
            out.append(UNKNOWN if o is UNKNOWN else o.get("instanceType"))
    return out


def _aws_group(r: Resource, resources: list[Resource], top: Optional[int] = None) -> NodeGroup:
    """The group, its size from maxSize, or from `top`, a larger maximum a schedule of the
    stack raises it to (raises.py: weights and a warm pool are added to it as to maxSize)."""
    # Overrides that name only a launch template launch its type, at their own weight.
    mixed, untied, unread = tie_overrides(r.get("mixedInstancesPolicy"),
                                          r.dep("mixedInstancesPolicy", AWS_LAUNCH_TEMPLATE))
    lt = _first(r.dep("launchTemplate", AWS_LAUNCH_TEMPLATE)
                or r.dep("mixedInstancesPolicy", AWS_LAUNCH_TEMPLATE)
                # The legacy launch configuration: instanceType, userData, spotPrice.
                or r.dep("launchConfiguration", AWS_LAUNCH_CONFIGURATION))
    spec = mixed.get("launchTemplate") if isinstance(mixed, dict) else None
    if isinstance(spec, dict) and replaces_template([spec]):
        # Overrides naming every type: the template's own type launches no node (review67).
        types = _types(_overrides([spec]))
    else:
        types = _types(lt_type(lt), _overrides([spec]) if isinstance(spec, dict)
                       else [UNKNOWN] if mixed is UNKNOWN else [],
                       # An override may name its own launch template
                       # (launchTemplateSpecification): every template the policy depends on
                       # launches nodes of its type.
                       [lt_type(t) for t in r.dep("mixedInstancesPolicy", AWS_LAUNCH_TEMPLATE)])
    # Its subnets' zones, classic or aws-native subnets of the stack alike.
    zones = _subnet_zones(r, "vpcZoneIdentifiers", AWS_SUBNET, "availabilityZone") + \
        _subnet_zones(r, "vpcZoneIdentifiers", AWS_NATIVE_SUBNET, "availabilityZone")
    if not zones and unread_placement(r, "vpcZoneIdentifiers", (AWS_SUBNET, AWS_NATIVE_SUBNET)):
        zones = [UNKNOWN]   # subnets read at apply: their zones too
    if not zones:
        azs = r.get("availabilityZones")
        zones = [_zone(z) for z in azs] if isinstance(azs, list) else []
    if not zones and lt is not None and lt.get("placement.availabilityZone"):
        zones = [_zone(lt.get("placement.availabilityZone"))]
    dist = mixed.get("instancesDistribution") if isinstance(mixed, dict) else None
    spot = bool(lt and (lt.get("instanceMarketOptions.marketType") == "spot"
                        or lt.get("spotPrice"))) or (
        # All spot only where the base is left out or 0 (text that does not read, '５', is
        # no 0: "a value that does not read prices them all on demand").
        isinstance(dist, dict) and (dist.get("onDemandBaseCapacity") is None
                                    or number(dist.get("onDemandBaseCapacity")) == 0.0)
        and number(dist.get("onDemandPercentageAboveBaseCapacity")) == 0.0)
    count = _count(r.get("maxSize") if top is None else top, r.get("desiredCapacity"),
                   r.get("minSize"))
    weights = asg_weights(mixed)
    bad_weight = weights if isinstance(weights, BadNumber) else None
    if weights is UNKNOWN:
        count = None   # units per instance unknown until apply: so is the node count
    if not isinstance(weights, dict):
        weights = {}
    elif untied and not weights and isinstance(count, int):
        count = untied_count(mixed, count)
    if weights and isinstance(count, int):
        # Sizes in capacity units (weights 1-999): "Amazon EC2 Auto Scaling will never go above
        # MaxSize by more than your largest instance weight" (AutoScaling API, MaxSize).
        count += int(math.ceil(max(weights.values())))
    # Warm pool instances kept Running bill like the group's own (Stopped/Hibernated: disks).
    # A poolState unknown at preview may be Running: priced so, the dearest it can be, and
    # said in the estimate (as a Cloud Scheduler stop whose `paused` is unknown prices the
    # month), never as the Stopped default (review76 DEFECT A).
    warm = r.get("warmPool")
    state = warm.get("poolState") if isinstance(warm, dict) else None
    size_how = ""
    if warm is UNKNOWN:
        count = None
    elif isinstance(warm, dict) and (state is UNKNOWN or str(state or "Stopped") == "Running") \
            and isinstance(count, int):
        count = _warm_count(count, warm)
        if state is UNKNOWN:
            size_how = ("its warm pool priced as Running: warmPool.poolState is unknown until "
                        "apply")
    accelerators = _attribute_accelerators(lt, mixed)
    if attribute_chosen([spec]) and None not in types:
        types = types + [None]   # beside typed overrides: those nodes have no type to price
    outside = _template_outside(r, mixed) if lt is None and types == [None] and \
        not accelerators else ""
    if outside:
        # Launched from a template the stack does not create: its type is read nowhere, so it
        # may be GPU capacity (as a type unknown at preview is).
        types = [UNKNOWN]
    elif unread:
        # An override from such a template, beside the stack's: its type too.
        types, outside = [t for t in types if t is not None] + [UNKNOWN], unread
    group = NodeGroup(r, lt, types[0], count, spot, zones or [""], _aws_region(r, zones), types,
                      accelerators=accelerators, type_unread=outside, size_how=size_how)
    if bad_weight is not None:
        # A weight that is no number in 1-999: a violation naming it, never left out.
        weight_invalid(group, bad_weight)
    elif weights and isinstance(group.count, int):
        group.weights = weights
    elif not spot and isinstance(dist, dict):
        _on_demand_split(group, dist)
    return group


def _warm_count(count: int, warm: dict) -> Any:
    """The instances of a group of at most `count` with a Running warm pool: the group and
    its pool together, None when a pool size is unknown at preview, BadNumber (naming the
    input) when one does not read. The pool "keeps at least its minimum size": "When your Auto
    Scaling group scales out and the size of the warm pool shrinks, Amazon EC2 Auto Scaling
    launches new instances into the warm pool to maintain its minimum size" (CloudFormation
    AWS::AutoScaling::WarmPool). Without maxGroupPreparedCapacity (or with -1, which removes
    it: "To remove a value that you previously set, include the property but specify -1",
    API_PutWarmPool, valid range from -1) the pool is "the difference between the group's
    maximum capacity and its desired capacity" (ibid.), at most maxSize (desired 0): the
    group is maxSize plus the larger of the pool's minSize and maxSize. With it, it counts the
    group and its pool together ("the maximum number of instances that are allowed to be in
    the warm pool or in any state except Terminated for the Auto Scaling group", ibid.), and
    the pool keeps its minSize even when the group runs at its maximum: the larger of it and
    maxSize plus minSize."""
    least = _warm_size(warm, "minSize")
    if not isinstance(least, int):
        return least
    prepared = warm.get("maxGroupPreparedCapacity")
    if prepared is None or number(prepared) == -1:
        return count + max(least, count)
    extra = _warm_size(warm, "maxGroupPreparedCapacity")
    return max(count + least, extra) if isinstance(extra, int) else extra


def _warm_size(warm: dict, key: str) -> Any:
    """A warm pool size (0 when absent), None when unknown at preview, BadNumber naming it
    when it is no whole non-negative number (a list, text, a negative or NaN)."""
    n = _count(warm.get(key), 0)
    return BadNumber(f"{n.text} (warmPool.{key})") if isinstance(n, BadNumber) else n


def _template_outside(r: Resource, mixed: Any) -> str:
    """What names the launch template (or launch configuration) of a group that launches from
    one the stack does not create (a literal id or name, or one read from elsewhere), or ""."""
    spec = mixed.get("launchTemplate") if isinstance(mixed, dict) else None
    for ref in (r.get("launchTemplate"), r.get("launchConfiguration"),
                spec.get("launchTemplateSpecification") if isinstance(spec, dict) else None):
        if ref is None or ref == "" or ref == {}:
            continue
        named = ref if not isinstance(ref, dict) else next(
            (ref.get(k) for k in ("id", "name", "launchTemplateId", "launchTemplateName")
             if ref.get(k) is not None), None)
        shown = "unknown until apply" if named is UNKNOWN else repr(named)
        return (f"from launch template {shown}, which the stack does not create (its type is "
                "read nowhere in the stack)")
    return ""


def _on_demand_split(group: NodeGroup, dist: dict) -> None:
    """A mixed instances policy's instancesDistribution: onDemandBaseCapacity On-Demand
    instances (default 0), then onDemandPercentageAboveBaseCapacity percent of the rest
    (default 100) On-Demand, the others spot (docs.aws.amazon.com/autoscaling/ec2/APIReference/
    API_InstancesDistribution.html). Priced as such; a value that does not read leaves every
    node On-Demand (the dearer rate)."""
    base = dist.get("onDemandBaseCapacity")
    percent = dist.get("onDemandPercentageAboveBaseCapacity")
    base_n = 0.0 if base is None else checked_number(base)
    percent_n = 100.0 if percent is None else checked_number(percent)
    if not isinstance(base_n, float) or not isinstance(percent_n, float) or \
            not 0 <= percent_n < 100 or base_n < 0:
        return
    group.spot, group.regular_base, group.regular_percent = True, int(base_n), percent_n


def _attribute_accelerators(lt: Optional[Resource], mixed: Any) -> int:
    """Accelerators per node when instances are chosen by attributes (instanceRequirements):
    acceleratorCount.min, or 1 when GPU accelerators are asked for without a count."""
    spec = mixed.get("launchTemplate") if isinstance(mixed, dict) else None
    return requirements_accelerators([lt] if lt is not None else [],
                                      [spec] if isinstance(spec, dict) else [])


def _aws_fleet(r: Resource) -> NodeGroup:
    lts = r.dep("launchTemplateConfigs", AWS_LAUNCH_TEMPLATE) + r.dep("launchTemplateConfig",
                                                                      AWS_LAUNCH_TEMPLATE)
    # An aws-native EC2 Fleet (AWS::EC2::EC2Fleet) takes the same inputs, from aws-native
    # launch templates.
    lts += r.dep("launchTemplateConfigs", AWS_NATIVE_LAUNCH_TEMPLATE)
    specs = _entries(r.get("launchSpecifications"))
    configs = r.get("launchTemplateConfigs") or r.get("launchTemplateConfig")
    types = _types([UNKNOWN if s is UNKNOWN else s.get("instanceType") for s in specs],
                   _overrides(configs), [] if replaces_template(configs) else
                   [lt_type(lt) for lt in lts])
    zones = [_zone(s.get("availabilityZone")) for s in specs if isinstance(s, dict)
             and s.get("availabilityZone")]
    for conf in _entries(configs):
        if isinstance(conf, dict):
            zones += [_zone(o.get("availabilityZone")) for o in _entries(conf.get("overrides"))
                      if isinstance(o, dict) and o.get("availabilityZone")]
    # An override or launch specification that names a subnet (aws or aws-native) places the
    # nodes in its zone.
    for key in ("launchTemplateConfigs", "launchTemplateConfig", "launchSpecifications"):
        for kind in (AWS_SUBNET, AWS_NATIVE_SUBNET):
            zones += [z for z in _subnet_zones(r, key, kind, "availabilityZone")
                      if z not in zones]
    # The nodes of a launch template config whose override names no subnet or zone (or that
    # has no overrides) launch where their launch template's interfaces (or placement) put
    # them: an override overrides the template only in what it names (EC2 API
    # FleetLaunchTemplateOverrides SubnetId / AvailabilityZone; RequestLaunchTemplateData
    # .NetworkInterfaces[].SubnetId). So a fleet whose overrides are mixed (some name a subnet,
    # some none) runs in the overrides' zones and in the template's. Launch specifications
    # take no template.
    entries: list[Any] = []
    for conf in _entries(configs):
        if not isinstance(conf, dict):
            entries.append(UNKNOWN)
            continue
        overrides = _entries(conf.get("overrides") or conf.get("override"))
        entries += overrides or [{}]
    if not entries and not specs:
        entries = [{}]   # templates named with no config the pack reads: the template places
    # An override or launch specification whose subnet is unknown at preview with no subnet of
    # the stack behind the fleet: its nodes' zone is read only at apply.
    behind = any(d.type in (AWS_SUBNET, AWS_NATIVE_SUBNET) for key in (
        "launchTemplateConfigs", "launchTemplateConfig", "launchSpecifications")
        for d in r.deps.get(key, []))
    if not behind and any(e is UNKNOWN or (e.get("subnetId") is UNKNOWN
                                           and e.get("availabilityZone") is None)
                          for e in entries + specs) and UNKNOWN not in zones:
        zones.append(UNKNOWN)
    if any(e is not UNKNOWN and e.get("subnetId") is None and e.get("availabilityZone") is None
           for e in entries):
        for lt in lts:
            zones += [_zone(z) for z in template_zones(lt) if _zone(z) not in zones]
    if r.type == AWS_SPOT_FLEET or r.type == AWS_NATIVE_SPOT_FLEET:
        count, spot = _count(r.get("targetCapacity")), True
        on_demand = r.get("onDemandTargetCapacity")
    else:
        count = _count(r.reach("targetCapacitySpecification.totalTargetCapacity"))
        spot = r.get("targetCapacitySpecification.defaultTargetCapacityType") == "spot"
        on_demand = r.get("targetCapacitySpecification.onDemandTargetCapacity")
    # On-Demand units asked for beside the spot default launch On-Demand instances (Spot Fleet
    # onDemandTargetCapacity, EC2 Fleet TargetCapacitySpecification.OnDemandTargetCapacity):
    # priced at the on-demand rate. One that cannot be read prices every node on demand.
    od_units = _count(on_demand) if on_demand is not None else 0
    # Target capacity is in weighted units: an instance of weight w fills w units, so a target
    # of 8 with a weight of 0.125 launches 64 instances. The lightest weight launches the most.
    weights = [s.get("weightedCapacity") for s in specs if isinstance(s, dict)]
    for conf in _entries(configs):
        if isinstance(conf, dict):
            weights += [o.get("weightedCapacity") if isinstance(o, dict) else UNKNOWN
                        for o in _entries(conf.get("overrides"))]
    weights = [w for w in weights if w is not None]
    if isinstance(count, int) and weights:
        if UNKNOWN in weights:
            count = None
        else:
            checked = [checked_number(w) for w in weights]
            bad = next((w for w in checked if isinstance(w, BadNumber) or w == 0), None)
            if bad is not None:
                count = bad if isinstance(bad, BadNumber) else BadNumber("weightedCapacity 0")
            elif all(w is not None for w in checked):
                count = int(math.ceil(count / min(checked) - 1e-9))
                if isinstance(od_units, int):
                    od_units = int(math.ceil(od_units / min(checked) - 1e-9))
    # Nodes chosen by attributes (an override's or the template's instanceRequirements) have
    # no type to read: GPU capacity when they ask for accelerators, as in an ASG's policy.
    accelerators = requirements_accelerators(lts, _entries(configs))
    if attribute_chosen(_entries(configs)) and None not in types:
        types = types + [None]   # beside typed overrides: those nodes have no type to price
    # A config from a launch template the stack does not create (one reference more than the
    # templates behind the input), beside one whose type no override names: that type may be
    # read nowhere, so it may be GPU capacity.
    confs = [c for c in _entries(configs) if isinstance(c, dict)]
    _, unread = tie([lt_ref(c.get("launchTemplateSpecification")) for c in confs], lts)
    if unread and any(not isinstance(o, dict) or o.get("instanceType") is None
                      for c in confs for o in _entries(c.get("overrides") or c.get("override"))
                      or [{}]):
        types = [t for t in types if t is not None] + [UNKNOWN]
    group = NodeGroup(r, _first(lts), types[0], count, spot, zones or [""],
                      _aws_region(r, zones), types, accelerators=accelerators,
                      type_unread=unread if UNKNOWN in types else "")
    if spot and od_units != 0:
        if isinstance(od_units, int):
            group.regular_base = od_units
        else:   # unknown at preview or no number: on demand, the dearer rate
            group.regular_percent = 100.0
    return group


def _eks_group(r: Resource) -> NodeGroup:
    lt = _first(r.dep("launchTemplate", AWS_LAUNCH_TEMPLATE))
    listed = r.get("instanceTypes")
    types = _types(name_list(listed), lt_type(lt))   # one string: a list of it
    # Its subnets' zones, classic or aws-native subnets of the stack alike.
    zones = _subnet_zones(r, "subnetIds", AWS_SUBNET, "availabilityZone") + \
        _subnet_zones(r, "subnetIds", AWS_NATIVE_SUBNET, "availabilityZone")
    if not zones and unread_placement(r, "subnetIds", (AWS_SUBNET, AWS_NATIVE_SUBNET)):
        zones = [UNKNOWN]   # subnets read at apply: their zones too
    return NodeGroup(r, lt, types[0], _count(r.reach("scalingConfig.maxSize"),
                                             r.reach("scalingConfig.desiredSize")),
                     r.get("capacityType") == "SPOT", zones or [""], _aws_region(r, zones), types)
