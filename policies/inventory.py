"""What a stack's resources mean, cloud by cloud: node groups, filesystems, buckets, budgets, tags.

The rules ask questions ("which zone are the GPU nodes in?") and this module answers them from
resource type tokens and engine (camelCase) input names, for all four clouds (cloud-map §0, §1.3,
§2.3, §3.3, §4.3). Zones are read the way the engine would have to: a filesystem or node group
placed in a subnet / vSwitch takes that resource's zone, found through the property dependency
(its id is unknown during a preview, and a mere id string offline).
"""
from __future__ import annotations

import json
import math
import os
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Optional

from trainstack_policies.exemptions import normalize_label_key as _normalize_label_key
from trainstack_policies.exemptions import own_tag, own_tags, tag_key, tag_value
from trainstack_policies.model import (
    UNKNOWN,
    BadNumber,
    Resource,
    checked_number,
    dig,
    last_segment,
    number,
    region_of_zone,
)

# --------------------------------------------------------------------------------- type tokens

AWS_SUBNET = "aws:ec2/subnet:Subnet"
AWS_ASG = "aws:autoscaling/group:Group"
AWS_LAUNCH_TEMPLATE = "aws:ec2/launchTemplate:LaunchTemplate"
AWS_INSTANCE = "aws:ec2/instance:Instance"
AWS_PLACEMENT_GROUP = "aws:ec2/placementGroup:PlacementGroup"
AWS_LUSTRE = "aws:fsx/lustreFileSystem:LustreFileSystem"
AWS_OPENZFS = "aws:fsx/openZfsFileSystem:OpenZfsFileSystem"
AWS_EFS = "aws:efs/fileSystem:FileSystem"
AWS_DIRECTORY_BUCKET = "aws:s3/directoryBucket:DirectoryBucket"
AWS_BUCKETS = ("aws:s3/bucket:Bucket", "aws:s3/bucketV2:BucketV2")
AWS_SSE = ("aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration",
           "aws:s3/bucketServerSideEncryptionConfigurationV2:BucketServerSideEncryptionConfigurationV2")
AWS_BUDGET = "aws:budgets/budget:Budget"

GCP_IGM = "gcp:compute/instanceGroupManager:InstanceGroupManager"
GCP_REGION_IGM = "gcp:compute/regionInstanceGroupManager:RegionInstanceGroupManager"
GCP_TEMPLATES = ("gcp:compute/instanceTemplate:InstanceTemplate",
                 "gcp:compute/regionInstanceTemplate:RegionInstanceTemplate")
GCP_INSTANCE = "gcp:compute/instance:Instance"
GCP_RESOURCE_POLICY = "gcp:compute/resourcePolicy:ResourcePolicy"
GCP_RESIZE_REQUEST = "gcp:compute/resizeRequest:ResizeRequest"
GCP_FILESYSTEMS = ("gcp:lustre/instance:Instance", "gcp:parallelstore/instance:Instance")
GCP_FILESTORE = "gcp:filestore/instance:Instance"
GCP_BUCKET = "gcp:storage/bucket:Bucket"
GCP_BUDGET = "gcp:billing/budget:Budget"

AZ_VMSS = "azure-native:compute:VirtualMachineScaleSet"
AZ_VM = "azure-native:compute:VirtualMachine"
AZ_PPG = "azure-native:compute:ProximityPlacementGroup"
AZ_AMLFS = "azure-native:storagecache:AmlFilesystem"
AZ_STORAGE_ACCOUNT = "azure-native:storage:StorageAccount"
AZ_BUDGETS = ("azure-native:consumption:Budget", "azure-native:costmanagement:Budget")

ALI_SWITCH = "alicloud:vpc/switch:Switch"
ALI_INSTANCE = "alicloud:ecs/instance:Instance"
ALI_INSTANCE_SET = "alicloud:ecs/ecsInstanceSet:EcsInstanceSet"
ALI_SCALING_GROUP = "alicloud:ess/scalingGroup:ScalingGroup"
ALI_SCALING_CONFIG = "alicloud:ess/scalingConfiguration:ScalingConfiguration"
ALI_DEPLOYMENT_SET = "alicloud:ecs/ecsDeploymentSet:EcsDeploymentSet"
ALI_HPC_CLUSTER = "alicloud:ecs/hpcCluster:HpcCluster"
ALI_NAS = "alicloud:nas/fileSystem:FileSystem"
ALI_LAUNCH_TEMPLATES = ("alicloud:ecs/launchTemplate:LaunchTemplate",
                        "alicloud:ecs/ecsLaunchTemplate:EcsLaunchTemplate")
ALI_BUCKET = "alicloud:oss/bucket:Bucket"

# The catalog names Alibaba Cloud "alibaba"; Pulumi's token prefix is "alicloud".
CATALOG_CLOUDS = {"aws": ("aws",), "gcp": ("gcp",), "azure": ("azure",),
                  "alicloud": ("alicloud", "alibaba")}

# The marker a trainstack component sets on a bucket it also marks retainOnDelete (see
# rules/bucket_retained.py for why a marker is needed at all).
RETAIN_TAG = "trainstack:retain"
MAX_HOURS_TAG = "trainstack:max-hours"
DATA_MB_TAG = "trainstack:data-mb"  # the bucket's expected data, from the data-size model


# ---------------------------------------------------------------------------------- node groups

AWS_SPOT_FLEET = "aws:ec2/spotFleetRequest:SpotFleetRequest"
AWS_FLEET = "aws:ec2/fleet:Fleet"
AWS_EKS_NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
AWS_ASG_SCHEDULE = "aws:autoscaling/schedule:Schedule"
GKE_NODE_POOL = "gcp:container/nodePool:NodePool"
# azure-native v3 moved it from `insights` to `monitor` (the old token stays an alias).
AZ_AUTOSCALE = ("azure-native:monitor:AutoscaleSetting", "azure-native:insights:AutoscaleSetting")

# Instance families that carry GPUs or other accelerators, for types the catalog does not list
# (AWS "Accelerated computing" families p/g/gr/trn/inf/dl; GCP accelerator-optimized a2/a3/a4/g2/
# g4 series; Azure N-series; Alibaba gn/ebmgn/sgn/vgn/gi families). A type the catalog lists is
# judged by its gpu_count instead; these patterns only keep an unlisted GPU type from passing as
# "not a GPU node".
GPU_FAMILIES = {
    # SageMaker names the same families with an "ml." prefix (ml.g5.xlarge).
    "aws": re.compile(r"^(ml\.)?(p\d|g\d|gr\d|trn\d|inf\d|dl\d)[a-z0-9-]*\.", re.I),
    "gcp": re.compile(r"^(a2|a3|a4|a4x|g2|g4|ct\d)-", re.I),
    "azure": re.compile(r"^standard_n", re.I),
    "alicloud": re.compile(r"^ecs\.(ebm)?(gn|sgn|vgn|gi)\d", re.I),
}


# pragma: no mutate start (the mutation run covers the enforced-lifetime section only: the hours
# spend-limit prices; the rest of the inventory is judged through the rules' tests)
@dataclass
class NodeGroup:
    resource: Resource                 # the group, fleet, node pool, scale set or instance
    template: Optional[Resource]       # launch template / instance template / scaling config
    instance_type: Any                 # the first (str), UNKNOWN or None
    count: Optional[int]               # the most nodes it can run; None: unknown at preview
    spot: bool
    zones: list[Any]                   # "" where the zone could not be read, UNKNOWN if unknown
    region: str
    instance_types: list[Any] = field(default_factory=list)   # every type it may launch
    accelerators: int = 0              # declared accelerators per node (GCP guestAccelerators)
    lifetime_hours: Optional[float] = None   # a lifetime the plan enforces (see enforced_hours)
    lifetime_how: str = ""
    invalid: list[str] = field(default_factory=list)   # numbers refused (NaN, inf, negative)

    def __post_init__(self) -> None:
        if not self.instance_types:
            self.instance_types = [self.instance_type]
        if isinstance(self.count, BadNumber):
            self.invalid.append(f"its size {self.count.text} is not a finite non-negative number")
            self.count = None

    @property
    def cloud(self) -> str:
        return self.resource.cloud


def gpu_reason(cloud: str, instance_type: Any, accelerators: int = 0) -> str:
    """Why a type is a GPU node ("" when it is not): the catalog, a GPU family, or accelerators."""
    if accelerators:
        return f"declares {accelerators} accelerator(s) per node"
    if not isinstance(instance_type, str) or not instance_type:
        return ""
    from trainstack_policies.catalog import instance_type as catalog_type
    known = catalog_type(cloud, instance_type)
    if known is not None:
        return f"{known.gpu_count} x {known.gpu} (catalog)" if known.gpu_count else ""
    family = GPU_FAMILIES.get(cloud)
    return "a GPU instance family the catalog does not list" if family and \
        family.match(instance_type) else ""


def is_gpu_group(g: NodeGroup) -> bool:
    """GPU capacity: a type that carries GPUs, accelerators, or a type unknown at preview."""
    return bool(g.accelerators) or any(t is UNKNOWN or gpu_reason(g.cloud, t)
                                       for t in g.instance_types)


def gpu_groups(resources: list[Resource]) -> list[NodeGroup]:
    return [g for g in node_groups(resources) if is_gpu_group(g)]


def _first(resources: list[Resource]) -> Optional[Resource]:
    return resources[0] if resources else None


def _count(*values: Any) -> Any:
    """The first known of `values` (the maximum first), None when it is unknown at preview,
    BadNumber when it is NaN, infinite or negative."""
    for value in values:
        if value is UNKNOWN:
            return None
        n = checked_number(value)
        if isinstance(n, BadNumber):
            return n
        if n is not None:
            return int(n)
    return 1


def _zone(value: Any) -> Any:
    """A zone as a string ("" when absent), or UNKNOWN when the engine cannot know it yet."""
    return UNKNOWN if value is UNKNOWN else str(value or "")


def _subnet_zones(r: Resource, key: str, subnet_type: str, zone_key: str) -> list[Any]:
    return [_zone(s.get(zone_key)) for s in r.dep(key, subnet_type)]


def _aws_region(r: Resource, zones: list[Any]) -> str:
    region = r.get("region")
    if isinstance(region, str) and region:
        return region
    return r.provider_region or region_of_zone(
        next((z for z in zones if isinstance(z, str) and z), ""))


def _list(value: Any) -> list:
    if value is UNKNOWN:
        return [UNKNOWN]
    return list(value) if isinstance(value, (list, tuple)) else []


def _dicts(value: Any) -> list[Any]:
    """The dict items of a list (UNKNOWN items kept, so a caller can fail closed on them)."""
    return [v for v in _list(value) if isinstance(v, dict) or v is UNKNOWN]


def _lt_type(lt: Optional[Resource]) -> Any:
    return lt.get("instanceType") if lt is not None else None


def _overrides(configs: Any) -> list[Any]:
    """instanceType of every override in launchTemplateConfigs / mixedInstancesPolicy."""
    out: list[Any] = []
    for conf in _dicts(configs):
        if conf is UNKNOWN:
            out.append(UNKNOWN)
            continue
        for o in _dicts(conf.get("overrides") or conf.get("override")):
            out.append(UNKNOWN if o is UNKNOWN else o.get("instanceType"))
    return out


def _types(*candidates: Any) -> list[Any]:
    out = []
    for c in candidates:
        for t in (c if isinstance(c, list) else [c]):
            if t is UNKNOWN or (isinstance(t, str) and t):
                if t not in out:
                    out.append(t)
    return out or [None]


def _aws_group(r: Resource, resources: list[Resource]) -> NodeGroup:
    mixed = r.get("mixedInstancesPolicy")
    lt = _first(r.dep("launchTemplate", AWS_LAUNCH_TEMPLATE)
                or r.dep("mixedInstancesPolicy", AWS_LAUNCH_TEMPLATE))
    types = _types(_lt_type(lt), _overrides([mixed.get("launchTemplate")])
                   if isinstance(mixed, dict) and isinstance(mixed.get("launchTemplate"), dict)
                   else [UNKNOWN] if mixed is UNKNOWN else [])
    zones = _subnet_zones(r, "vpcZoneIdentifiers", AWS_SUBNET, "availabilityZone")
    if not zones:
        azs = r.get("availabilityZones")
        zones = [_zone(z) for z in azs] if isinstance(azs, list) else []
    if not zones and lt is not None and lt.get("placement.availabilityZone"):
        zones = [_zone(lt.get("placement.availabilityZone"))]
    dist = mixed.get("instancesDistribution") if isinstance(mixed, dict) else None
    spot = bool(lt and lt.get("instanceMarketOptions.marketType") == "spot") or (
        isinstance(dist, dict) and number(dist.get("onDemandBaseCapacity")) in (None, 0.0)
        and number(dist.get("onDemandPercentageAboveBaseCapacity")) == 0.0)
    count = _count(r.get("maxSize"), r.get("desiredCapacity"), r.get("minSize"))
    # Warm pool instances kept Running bill like the group's own (Stopped/Hibernated: disks).
    warm = r.get("warmPool")
    if warm is UNKNOWN:
        count = None
    elif isinstance(warm, dict) and str(warm.get("poolState") or "Stopped") == "Running" \
            and isinstance(count, int):
        extra = _count(warm.get("maxGroupPreparedCapacity"))
        count = extra if not isinstance(extra, int) else count + (
            extra if number(warm.get("maxGroupPreparedCapacity")) not in (None, -1) else count)
    accelerators = _attribute_accelerators(lt, mixed)
    if accelerators:
        types = [None if t is None else t for t in types]
    return NodeGroup(r, lt, types[0], count, spot, zones or [""], _aws_region(r, zones), types,
                     accelerators=accelerators)


def _attribute_accelerators(lt: Optional[Resource], mixed: Any) -> int:
    """Accelerators per node when instances are chosen by attributes (instanceRequirements):
    acceleratorCount.min, or 1 when GPU accelerators are asked for without a count."""
    holders: list[Any] = []
    if lt is not None:
        holders.append(lt.get("instanceRequirements"))
    if isinstance(mixed, dict):
        spec = mixed.get("launchTemplate")
        for o in _dicts(spec.get("overrides") if isinstance(spec, dict) else None):
            holders.append(o.get("instanceRequirements") if isinstance(o, dict) else UNKNOWN)
    most = 0
    for req in holders:
        if req is UNKNOWN:
            return 1   # an attribute set unknown until apply may ask for GPUs: not "no GPU"
        if not isinstance(req, dict):
            continue
        low = number(dig(req, "acceleratorCount.min"))
        kinds = [str(k).lower() for k in _list(req.get("acceleratorTypes"))]
        if (low or 0) > 0 or "gpu" in kinds or req.get("acceleratorManufacturers") or \
                req.get("acceleratorNames"):
            most = max(most, int(low or 1))
    return most


def _aws_fleet(r: Resource) -> NodeGroup:
    lts = r.dep("launchTemplateConfigs", AWS_LAUNCH_TEMPLATE) + r.dep("launchTemplateConfig",
                                                                      AWS_LAUNCH_TEMPLATE)
    specs = _dicts(r.get("launchSpecifications"))
    configs = r.get("launchTemplateConfigs") or r.get("launchTemplateConfig")
    types = _types([UNKNOWN if s is UNKNOWN else s.get("instanceType") for s in specs],
                   _overrides(configs), [_lt_type(lt) for lt in lts])
    zones = [_zone(s.get("availabilityZone")) for s in specs if isinstance(s, dict)
             and s.get("availabilityZone")]
    for conf in _dicts(configs):
        if isinstance(conf, dict):
            zones += [_zone(o.get("availabilityZone")) for o in _dicts(conf.get("overrides"))
                      if isinstance(o, dict) and o.get("availabilityZone")]
    if r.type == AWS_SPOT_FLEET:
        count, spot = _count(r.get("targetCapacity")), True
    else:
        count = _count(r.get("targetCapacitySpecification.totalTargetCapacity"))
        spot = r.get("targetCapacitySpecification.defaultTargetCapacityType") == "spot"
    # Target capacity is in weighted units: an instance of weight w fills w units, so a target
    # of 8 with a weight of 0.125 launches 64 instances. The lightest weight launches the most.
    weights = [s.get("weightedCapacity") for s in specs if isinstance(s, dict)]
    for conf in _dicts(configs):
        if isinstance(conf, dict):
            weights += [o.get("weightedCapacity") if isinstance(o, dict) else UNKNOWN
                        for o in _dicts(conf.get("overrides"))]
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
    return NodeGroup(r, _first(lts), types[0], count, spot, zones or [""],
                     _aws_region(r, zones), types)


def _eks_group(r: Resource) -> NodeGroup:
    lt = _first(r.dep("launchTemplate", AWS_LAUNCH_TEMPLATE))
    listed = r.get("instanceTypes")
    types = _types(_list(listed) if listed is not None else [], _lt_type(lt))
    zones = _subnet_zones(r, "subnetIds", AWS_SUBNET, "availabilityZone")
    return NodeGroup(r, lt, types[0], _count(r.get("scalingConfig.maxSize"),
                                             r.get("scalingConfig.desiredSize")),
                     r.get("capacityType") == "SPOT", zones or [""], _aws_region(r, zones), types)


def _gke_pool(r: Resource) -> NodeGroup:
    config = r.get("nodeConfig")
    config = config if isinstance(config, dict) else {}
    holder = Resource(r.type, r.name, r.urn, {"machineType": config.get("machineType"),
                                              "guestAccelerators": config.get("guestAccelerators"),
                                              "labels": config.get("labels"),
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
    per_zone = r.get("autoscaling.maxNodeCount")
    total = r.get("autoscaling.totalMaxNodeCount")
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
    return NodeGroup(r, holder, _gcp_machine_type(holder), count,
                     bool(config.get("spot") or config.get("preemptible")), zones, region,
                     accelerators=_accelerators(holder))


class Referrers:
    """The resources of some types that point at another resource through one input (a
    schedule at its group, a resize request at its instance group manager), indexed once so
    each group finds its own without scanning the whole stack (which made every node group cost
    a pass over every resource). A referrer points at a group through a property dependency on
    it, or by naming it (the input equals the group's `name_key` input or its resource name);
    `of()` returns them in stack order, as a scan would have found them."""

    def __init__(self, resources: list[Resource], types: Any, key: str):
        types = (types,) if isinstance(types, str) else tuple(types)
        self._key = key
        self._by_dep: dict[int, list[tuple[int, Resource]]] = {}
        self._by_name: dict[str, list[tuple[int, Resource]]] = {}
        for pos, r in enumerate(resources):
            if r.type not in types:
                continue
            for d in r.deps.get(key, []):
                self._by_dep.setdefault(id(d), []).append((pos, r))
            value = r.get(key)
            if isinstance(value, str) and value != "":
                self._by_name.setdefault(value, []).append((pos, r))

    def of(self, group: Resource, name_key: Optional[str] = "name") -> list[Resource]:
        found = {pos: r for pos, r in self._by_dep.get(id(group), [])
                 if any(d is group for d in r.deps.get(self._key, []))}
        if name_key is not None:
            for name in (group.get(name_key), group.name):
                if isinstance(name, str):
                    found.update(self._by_name.get(name, []))
        return [found[pos] for pos in sorted(found)]


class _StackIndex:
    """The referrer indexes node_groups() and enforced_hours() need, built once per stack."""

    def __init__(self, resources: list[Resource]):
        self.schedules = Referrers(resources, AWS_ASG_SCHEDULE, "autoscalingGroupName")
        self.autoscale = Referrers(resources, AZ_AUTOSCALE, "targetResourceUri")
        self.resizes = Referrers(resources, GCP_RESIZE_REQUEST, "instanceGroupManager")
        self.scaling_configs = Referrers(resources, ALI_SCALING_CONFIG, "scalingGroupId")
        self.gcp_autoscalers = Referrers(resources, ("gcp:compute/autoscaler:Autoscaler",
                                                     "gcp:compute/regionAutoscaler:RegionAutoscaler"),
                                         "target")


# The last stack node_groups() saw, and its groups: several rules (and spend-limit's check and
# summary) ask for the same stack's groups in one evaluation. Keyed by the list's identity and
# length, so a different or a changed list is computed afresh.
_LAST_GROUPS: tuple[list, int, list] = ([], -1, [])


def node_groups(resources: list[Resource]) -> list[NodeGroup]:
    """Every compute group of the stack, GPU or not (gpu_groups() keeps the GPU ones)."""
    global _LAST_GROUPS
    seen, size, cached = _LAST_GROUPS
    if seen is resources and size == len(resources):
        return list(cached)
    groups = _node_groups(resources)
    _LAST_GROUPS = (resources, len(resources), groups)
    return list(groups)


def _node_groups(resources: list[Resource]) -> list[NodeGroup]:
    groups: list[NodeGroup] = []
    index = _StackIndex(resources)
    for r in resources:
        if r.type == AWS_ASG:
            groups.append(_aws_group(r, resources))
        elif r.type in (AWS_SPOT_FLEET, AWS_FLEET):
            groups.append(_aws_fleet(r))
        elif r.type == AWS_EKS_NODE_GROUP:
            groups.append(_eks_group(r))
        elif r.type == AWS_INSTANCE:
            lt = _first(r.dep("launchTemplate", AWS_LAUNCH_TEMPLATE))
            zone = _zone(r.get("availabilityZone") or next(
                iter(_subnet_zones(r, "subnetId", AWS_SUBNET, "availabilityZone")), ""))
            itype = r.get("instanceType") or (lt.get("instanceType") if lt else None)
            market = r.get("instanceMarketOptions.marketType") or (
                lt.get("instanceMarketOptions.marketType") if lt else None)
            groups.append(NodeGroup(r, lt, itype, 1, market == "spot", [zone],
                                    _aws_region(r, [zone])))
        elif r.type in (GCP_IGM, GCP_REGION_IGM):
            template = _first([d for d in r.deps.get("versions", []) if d.type in GCP_TEMPLATES])
            if r.type == GCP_IGM:
                zones = [_zone(r.get("zone") or r.provider.get("zone"))]
                region = region_of_zone(zones[0]) if zones[0] is not UNKNOWN else ""
            else:
                dz = r.get("distributionPolicyZones")
                zones = [last_segment(z) for z in dz] if isinstance(dz, list) and dz else [""]
                region = r.get("region")
                region = region if isinstance(region, str) else region_of_zone(zones[0])
            groups.append(NodeGroup(
                r, template, _gcp_machine_type(template), _gcp_group_size(r, index),
                _gcp_spot(template), zones, region or (r.provider_region or ""),
                accelerators=_accelerators(template)))
        elif r.type == GKE_NODE_POOL:
            groups.append(_gke_pool(r))
        elif r.type == GCP_INSTANCE:
            zone = _zone(r.get("zone") or r.provider.get("zone"))
            groups.append(NodeGroup(r, r, _gcp_machine_type(r), 1, _gcp_spot(r), [zone],
                                    (region_of_zone(zone) if zone is not UNKNOWN else "")
                                    or (r.provider_region or ""), accelerators=_accelerators(r)))
        elif r.type in (AZ_VMSS, AZ_VM):
            if r.type == AZ_VMSS:
                itype, count = r.get("sku.name"), _count(r.get("sku.capacity"))
                priority = r.get("virtualMachineProfile.priority")
            else:
                itype, count, priority = r.get("hardwareProfile.vmSize"), 1, r.get("priority")
            zones = r.get("zones")
            zones = ([_zone(z) for z in zones] if isinstance(zones, list) and zones
                     else [UNKNOWN] if zones is UNKNOWN else [""])
            groups.append(NodeGroup(r, None, itype, count, priority in ("Spot", "Low"), zones,
                                    _azure_location(r)))
        elif r.type in (ALI_INSTANCE, ALI_INSTANCE_SET):
            zone = _zone(r.get("zoneId") or r.get("availabilityZone")
                         or next(iter(_subnet_zones(r, "vswitchId", ALI_SWITCH, "zoneId")), ""))
            count = _count(r.get("amount")) if r.type == ALI_INSTANCE_SET else 1
            groups.append(NodeGroup(r, None, r.get("instanceType"), count,
                                    _ali_spot(r.get("spotStrategy")), [zone],
                                    r.provider_region or (region_of_zone(zone)
                                                          if zone is not UNKNOWN else "")))
        elif r.type == ALI_SCALING_GROUP:
            config = _first(index.scaling_configs.of(r, name_key=None))
            zones = _subnet_zones(r, "vswitchIds", ALI_SWITCH, "zoneId") or [""]
            types: list[Any] = [None]
            if config is None:
                config = _first([d for d in r.deps.get("launchTemplateId", [])
                                 if d.type in ALI_LAUNCH_TEMPLATES])
            if config is not None:
                types = _types(config.get("instanceType"), _list(config.get("instanceTypes")))
            groups.append(NodeGroup(
                r, config, types[0], _count(r.get("maxSize"), r.get("desiredCapacity")),
                bool(config and _ali_spot(config.get("spotStrategy"))), zones,
                r.provider_region or region_of_zone(zones[0]), types))
    from trainstack_policies import capacity
    groups += capacity.groups(resources, NodeGroup, _count, _zone)
    for g in groups:
        if g.region == "":
            # No region in the program: the provider takes it from the environment, which the
            # engine passes to the pack as to the provider.
            g.region = env_region(g.cloud)
        g.lifetime_hours, g.lifetime_how = enforced_hours(g, resources, index)
        if g.resource.type == GCP_IGM or g.resource.type == GCP_REGION_IGM:
            _autoscaled(g, index.gcp_autoscalers.of(g.resource, name_key=None),
                        "autoscalingPolicy.maxReplicas")
        elif g.resource.type == AZ_VMSS:
            for s in index.autoscale.of(g.resource, name_key="id"):
                _autoscaled(g, [s], None)
    return groups


def _autoscaled(g: NodeGroup, scalers: list[Resource], path: Optional[str]) -> None:
    """A group sized by its autoscaler runs up to the autoscaler's maximum, not its target."""
    for s in scalers:
        if path is not None:
            values = [s.get(path)]
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


# The environment variables each provider reads its default region from.
REGION_ENV = {"aws": ("AWS_REGION", "AWS_DEFAULT_REGION"),
              "gcp": ("GOOGLE_REGION", "GCLOUD_REGION", "CLOUDSDK_COMPUTE_REGION"),
              "azure": ("ARM_LOCATION",),
              "alicloud": ("ALICLOUD_REGION", "ALIBABA_CLOUD_REGION")}


def env_region(cloud: str) -> str:
    return next((os.environ[k] for k in REGION_ENV.get(cloud, ()) if os.environ.get(k)), "")


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


def _accelerators(holder: Optional[Resource]) -> int:
    if holder is None:
        return 0
    return int(sum(number(a.get("count")) or 1 for a in _dicts(holder.get("guestAccelerators"))
                   if isinstance(a, dict)))


# ------------------------------------------------------------------------ enforced lifetimes
# pragma: no mutate end

def _declared_hours(g: NodeGroup) -> Optional[float]:
    for holder in (g.resource, g.template):
        tags = tags_of(holder) if holder is not None else None
        if holder is not None and isinstance(tags, dict):
            value = checked_number(tag_value(holder, tags, MAX_HOURS_TAG))
            if isinstance(value, BadNumber) or value == 0:
                g.invalid.append(f"its {MAX_HOURS_TAG} tag {value.text if value else '0'} is "
                                 "not a positive finite number of hours")
                return None
            if value:
                return value
    return None


def _now() -> datetime:
    return datetime.now(timezone.utc)


def _hours_until(value: Any) -> Optional[float]:
    """Hours from now until an ISO-8601 time (None when it is not a time, or already past)."""
    if not isinstance(value, str) or not value:
        return None
    try:
        when = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    # Whole hours, rounded up: the started hour is billed (and a stop set "96 hours from now"
    # a moment before this check still reads as 96).
    hours = math.ceil((when - _now()).total_seconds() / 3600 - 1e-6)
    return float(hours) if hours > 0 else None


def _scales_to_zero(s: Resource) -> bool:
    """An AWS scheduled action that leaves the group at 0 instances: maxSize 0, or desired 0
    with minSize 0 (the provider's default for an omitted size is 0; -1 leaves it unchanged)."""
    desired, low, high = (number(s.get(k)) for k in ("desiredCapacity", "minSize", "maxSize"))
    return high in (None, 0) or (desired in (None, 0) and low in (None, 0))


def enforced_hours(g: NodeGroup, resources: list[Resource],
                   index: Optional[_StackIndex] = None) -> tuple[Optional[float], str]:
    """(hours, how) when the plan itself stops the nodes, else (None, "").

    The hours are those until the stopping resource's OWN time: an AWS autoscaling Schedule's
    startTime that sets the group to 0, Alibaba's autoReleaseTime, an Azure autoscale profile of
    capacity 0 from its fixedDate start; GCP scheduling.maxRunDuration is a duration per VM.
    A lifetime tag is only a declaration and never shortens the estimate: a 1 h tag with a stop
    in 2031 is priced to 2031 (a month at most). A stop that restarts (a recurring schedule, or
    another schedule on the group that scales it up again, an Azure recurrence profile) is no
    lifetime: the month is priced.
    """
    r = g.resource
    _declared_hours(g)   # only validated: a NaN or negative lifetime tag is reported
    if r.type in (AWS_ASG, AZ_VMSS) and index is None:
        index = _StackIndex(resources)
    if r.type == AWS_ASG and index is not None:
        schedules = index.schedules.of(r)
        stops = [s for s in schedules if _scales_to_zero(s)]
        restarts = [s for s in schedules if not _scales_to_zero(s)]
        for s in stops:
            if s.get("recurrence") or restarts:
                return None, ""
            hours = _hours_until(s.get("startTime"))
            if hours is not None:
                return hours, f"autoscaling Schedule {s.name} sets the group to 0 at " \
                              f"{s.get('startTime')}"
    if r.cloud == "gcp" and g.template is not None:
        seconds = number(g.template.get("scheduling.maxRunDuration.seconds"))
        if seconds and seconds > 0 and math.isfinite(seconds):
            return seconds / 3600, "scheduling.maxRunDuration on the template"
    if r.type in (ALI_INSTANCE, ALI_INSTANCE_SET):
        release = r.get("autoReleaseTime")
        hours = _hours_until(release)
        if hours is not None:
            return hours, f"autoReleaseTime {release}"
    if r.type == AZ_VMSS and index is not None:
        for s in index.autoscale.of(r, name_key="id"):
            profiles = [p for p in _dicts(s.get("profiles")) if isinstance(p, dict)]
            held = _azure_held_outside_windows(s, profiles)
            if held is not None:
                return held
            for profile in profiles:
                if number(dig_value(profile, "capacity.maximum")) != 0:
                    continue
                if profile.get("recurrence"):
                    return None, ""
                hours = _hours_until(dig_value(profile, "fixedDate.start"))
                if hours is not None:
                    return hours, (f"autoscale setting {s.name} scales the set to 0 at "
                                   f"{dig_value(profile, 'fixedDate.start')}")
    return None, ""


def _azure_held_outside_windows(s: Resource, profiles: list[dict]) -> Optional[tuple[Optional[float], str]]:
    """A windowless (default) profile of capacity 0 holds the set at 0 outside every fixed-date
    window, for good; the nodes then run only until the end of the last window that allows them.
    No window left means 0 hours. A window that recurs is no lifetime (None, "")."""
    def zero(p: dict) -> bool:
        return number(dig_value(p, "capacity.maximum")) == 0

    if not any(zero(p) and not p.get("fixedDate") and not p.get("recurrence") for p in profiles):
        return None
    running = [p for p in profiles if not zero(p)]
    if any(p.get("recurrence") or not p.get("fixedDate") for p in running):
        return None, ""
    ends = [dig_value(p, "fixedDate.end") for p in running]
    hours = [_hours_until(end) for end in ends]
    if any(not isinstance(end, str) for end in ends):
        return None, ""
    last = max((h for h in hours if h is not None), default=0.0)
    return last, (f"autoscale setting {s.name} holds the set at 0 outside its window"
                  f"{'s' if len(running) > 1 else ''} (last end {max(ends, default='none')})")


# pragma: no mutate block (the rest of the inventory, to the end of the file)
def dig_value(value: Any, path: str) -> Any:
    from trainstack_policies.model import dig
    return dig(value, path)


def _gcp_machine_type(template: Optional[Resource]) -> Any:
    if template is None:
        return None
    value = template.get("machineType")
    return value if value is UNKNOWN or value is None else last_segment(value)


def _gcp_spot(template: Optional[Resource]) -> bool:
    return bool(template and (template.get("scheduling.provisioningModel") == "SPOT"
                              or template.get("scheduling.preemptible") is True))


def _ali_spot(strategy: Any) -> bool:
    return strategy in ("SpotWithPriceLimit", "SpotAsPriceGo")


def _azure_location(r: Resource) -> Any:
    """The normalised location, or UNKNOWN when it is unknown at preview."""
    value = r.get("location") or r.provider_region or ""
    return normalize_azure_location(str(value)) if value is not UNKNOWN else UNKNOWN


def normalize_azure_location(location: str) -> str:
    """"East US" and "eastus" are the same Azure region."""
    return location.replace(" ", "").lower()


# -------------------------------------------------------------------------------- filesystems

@dataclass
class Filesystem:
    resource: Resource
    zone: Any          # str, UNKNOWN, or "" when it cannot be read
    region: str
    capacity_gib: Any  # GiB (float), UNKNOWN, or None when not declared
    tier: str          # throughput tier / SKU, for pricing
    regional: bool = False   # reachable from every zone of its region (Filestore REGIONAL)
    zone_id: str = ""        # an AZ ID instead of a zone name (S3 Express directory buckets)


def filesystems(resources: list[Resource]) -> list[Filesystem]:
    out: list[Filesystem] = []
    for r in resources:
        if r.type == AWS_LUSTRE:
            subnets = r.dep("subnetIds", AWS_SUBNET)
            zone = _zone(subnets[0].get("availabilityZone") if subnets else "")
            tier = number(r.get("perUnitStorageThroughput"))
            out.append(Filesystem(r, zone, _aws_region(r, [zone]),
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
            subnets = r.dep("subnetIds", AWS_SUBNET)
            zone = _zone(subnets[0].get("availabilityZone") if subnets else "")
            out.append(Filesystem(r, zone, _aws_region(r, [zone]),
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
            capacity = (UNKNOWN if share is UNKNOWN else number(share.get("capacityGb"))
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
            out.append(Filesystem(r, zone, r.provider_region or (
                region_of_zone(zone) if zone is not UNKNOWN else ""),
                _capacity(r, "capacity"), str(r.get("storageType") or "")))
    return out


def _capacity(r: Resource, key: str) -> Any:
    value = r.get(key)
    return UNKNOWN if value is UNKNOWN else number(value)


# ------------------------------------------------------------------------------------ buckets

@dataclass
class Bucket:
    resource: Resource
    region: Any        # str, UNKNOWN, or None when the bucket takes the default provider's


def buckets(resources: list[Resource]) -> list[Bucket]:
    out: list[Bucket] = []
    for r in resources:
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
    return r.type in (*AWS_BUCKETS, GCP_BUCKET, AZ_STORAGE_ACCOUNT, ALI_BUCKET)


# ------------------------------------------------------------------------------------ budgets

@dataclass
class Budget:
    resource: Resource
    monthly: Optional[float]   # None: no fixed amount (e.g. GCP last_period_amount)
    currency: str
    amount_text: str
    unknown: str = ""          # the input path whose value is unknown at preview
    invalid: str = ""          # an amount that is NaN, infinite or not positive
    # Service filters that leave out compute (an S3-only budget): it watches part of the bill,
    # not the GPU spend, so it is neither the stack's cap nor its GPU alarm. Tag/label/account
    # filters keep it the stack's budget (the stack's resources carry those tags).
    scope: str = ""
    covers_compute: bool = True   # its filters still include the compute that runs GPU nodes


_PERIODS = {"MONTHLY": 1, "MONTH": 1, "BILLINGMONTH": 1, "QUARTERLY": 3,
            "QUARTER": 3, "BILLINGQUARTER": 3, "ANNUALLY": 12, "YEAR": 12, "BILLINGANNUAL": 12,
            "DAILY": 24 / 730}

# Billing service names/ids of the compute that runs GPU nodes, per cloud's budget filters.
_COMPUTE_SERVICES = {
    "aws": ("amazon elastic compute cloud", "ec2"),
    "gcp": ("services/6f81-5844-456a",),          # Compute Engine's Cloud Billing service id
}


def _per_month(amount: Optional[float], period: Any) -> Optional[float]:
    if amount is None:
        return None
    months = _PERIODS.get(str(period or "MONTHLY").replace(" ", "").upper(), 1)
    return amount / months


def _amount(r: Resource, path: str) -> tuple[Optional[float], str, str]:
    """(amount, unknown path, invalid text) of a budget amount input."""
    value = checked_number(r.get(path))
    if value is UNKNOWN:
        return None, path, ""
    if isinstance(value, BadNumber) or value == 0:
        return None, "", value.text if value else "0"
    return value, "", ""


def _aws_filters(r: Resource) -> tuple[str, bool]:
    filters = r.get("costFilters")
    if filters is UNKNOWN:
        return "costFilters (unknown until apply)", True
    parts, services = [], []
    for f in _dicts(filters):
        if isinstance(f, dict):
            values = [str(v) for v in _list(f.get("values"))]
            parts.append(f"{f.get('name')}={','.join(values)}")
            if str(f.get("name")).lower() == "service":
                services += values
    covers = not services or any(any(c in v.lower() for c in _COMPUTE_SERVICES["aws"])
                                 for v in services)
    return ("; ".join(parts) if not covers else ""), covers


def _gcp_filters(r: Resource) -> tuple[str, bool]:
    f = r.get("budgetFilter")
    if f is UNKNOWN:
        return "budgetFilter (unknown until apply)", True
    if not isinstance(f, dict):
        return "", True
    parts = [f"{k}={v}" for k, v in f.items() if k in (
        "services", "labels", "subaccounts", "resourceAncestors", "projects") and v]
    services = [str(v).lower() for v in _list(f.get("services"))]
    covers = not services or any(v in _COMPUTE_SERVICES["gcp"] for v in services)
    return ("; ".join(parts) if not covers else ""), covers


def budgets(resources: list[Resource]) -> list[Budget]:
    out: list[Budget] = []
    for r in resources:
        if r.type == AWS_BUDGET:
            if str(r.get("budgetType") or "COST").upper() != "COST":
                continue   # USAGE / RI_* / SAVINGS_PLANS_* budgets count hours or GB, not USD
            amount, unknown, invalid = _amount(r, "limitAmount")
            scope, covers = _aws_filters(r)
            out.append(Budget(r, _per_month(amount, r.get("timeUnit")),
                              str(r.get("limitUnit") or "USD"), str(r.get("limitAmount")),
                              unknown, invalid, scope, covers))
        elif r.type == GCP_BUDGET:
            last = r.get("amount.lastPeriodAmount")
            if r.get("amount.specifiedAmount.units") is None and last is not None:
                amount, unknown, invalid = None, "", ""
            else:
                amount, unknown, invalid = _amount(r, "amount.specifiedAmount.units")
                nanos = number(r.get("amount.specifiedAmount.nanos")) or 0
                amount = amount + nanos / 1e9 if amount is not None else None
            period = r.get("budgetFilter.calendarPeriod") or "MONTH"
            scope, covers = _gcp_filters(r)
            out.append(Budget(r, _per_month(amount, period),
                              str(r.get("amount.specifiedAmount.currencyCode") or "USD"),
                              str(r.get("amount.specifiedAmount.units")), unknown, invalid,
                              scope, covers))
        elif r.type in AZ_BUDGETS:
            if str(r.get("category") or "Cost").lower() != "cost":
                continue   # a Usage budget is not a spend limit
            amount, unknown, invalid = _amount(r, "amount")
            scope = ""
            # Azure budgets are in the billing account's currency; trainstack bills in USD.
            out.append(Budget(r, _per_month(amount, r.get("timeGrain")), "USD",
                              str(r.get("amount")), unknown, invalid, scope))
    return out


# --------------------------------------------------------------------------------------- tags

# Types that take tags/labels even when a program passed none (so a missing map is caught).
TAGGABLE = frozenset({
    "aws:ec2/vpc:Vpc", AWS_SUBNET, "aws:ec2/internetGateway:InternetGateway", "aws:ec2/eip:Eip",
    "aws:ec2/natGateway:NatGateway", "aws:ec2/routeTable:RouteTable",
    "aws:ec2/vpcEndpoint:VpcEndpoint", "aws:ec2/securityGroup:SecurityGroup",
    "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule",
    "aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule", AWS_PLACEMENT_GROUP,
    AWS_LAUNCH_TEMPLATE, AWS_ASG, AWS_INSTANCE, AWS_LUSTRE,
    "aws:fsx/dataRepositoryAssociation:DataRepositoryAssociation", *AWS_BUCKETS, AWS_BUDGET,
    "aws:ec2/networkInterface:NetworkInterface", "aws:ec2/capacityReservation:CapacityReservation",
    GCP_BUCKET, GCP_INSTANCE, *GCP_TEMPLATES, *GCP_FILESYSTEMS, "gcp:compute/disk:Disk",
    "gcp:monitoring/notificationChannel:NotificationChannel",
    "azure-native:resources:ResourceGroup", "azure-native:network:VirtualNetwork",
    "azure-native:network:NetworkSecurityGroup", "azure-native:network:NetworkInterface",
    "azure-native:network:PublicIPAddress", AZ_VMSS, AZ_VM, AZ_PPG, AZ_AMLFS, AZ_STORAGE_ACCOUNT,
    "alicloud:vpc/network:Network", ALI_SWITCH, "alicloud:ecs/securityGroup:SecurityGroup",
    ALI_INSTANCE, ALI_INSTANCE_SET, ALI_SCALING_GROUP, ALI_SCALING_CONFIG, ALI_NAS, ALI_BUCKET,
})


# Where a type keeps its resource labels when `labels` means something else: a notification
# channel's `labels` are its channel settings (the email address); its own are `userLabels`.
tag_key_of = tag_key


def is_taggable(r: Resource) -> bool:
    if r.cloud not in CATALOG_CLOUDS:
        return False
    return r.type in TAGGABLE or isinstance(r.get(tag_key_of(r)), (dict, list))


def _json(value: Any) -> Any:
    # The engine may carry a provider's object-valued inputs as JSON strings (stack config
    # `aws:defaultTags` arrives that way).
    if isinstance(value, str) and value.strip().startswith(("{", "[")):
        try:
            return json.loads(value)
        except ValueError:
            return None
    return value


def provider_tags(r: Resource) -> dict:
    """Tags the provider adds to every resource it manages: AWS defaultTags.tags, GCP
    defaultLabels. They allocate cost like the resource's own tags, except on an AWS
    autoscaling group: AWS does not propagate default tags to a group's instances."""
    if r.type == AWS_ASG:
        return {}
    if r.cloud == "aws":
        value = _json(r.provider.get("defaultTags"))
        if isinstance(value, list):    # the provider takes a list of one {tags: {...}}
            value = value[0] if value else {}
        value = value.get("tags") if isinstance(value, dict) else None
        derived = r.get("tagsAll")     # the provider's Check merges defaults into tagsAll
    elif r.cloud == "gcp":
        value = _json(r.provider.get("defaultLabels"))
        derived = r.get("effectiveLabels")
    else:
        value, derived = None, None
    out = dict(value) if isinstance(value, dict) else {}
    if isinstance(derived, dict):
        out.update(derived)
    return out


def tags_of(r: Resource) -> Any:
    """The tags that allocate the resource's cost: its own (exemptions.own_tags) over the
    provider's default tags; UNKNOWN if its own are unknown. Exemptions and markers never read
    this: they read own_tags only."""
    value = own_tags(r)
    if value is UNKNOWN:
        return UNKNOWN
    return {**provider_tags(r), **value}


def normalize_label_key(key: str) -> str:
    return _normalize_label_key(key)


def retained_marker(r: Resource) -> Any:
    """The resource's OWN retain marker: a provider-wide default tag retains nothing."""
    return own_tag(r, RETAIN_TAG)

