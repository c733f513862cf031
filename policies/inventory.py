"""What a stack's resources mean, cloud by cloud: node groups, filesystems, buckets, budgets, tags.

The rules ask questions ("which zone are the GPU nodes in?") and this module answers them from
resource type tokens and engine (camelCase) input names, for all four clouds (cloud-map §0, §1.3,
§2.3, §3.3, §4.3). Zones are read the way the engine would have to: a filesystem or node group
placed in a subnet / vSwitch takes that resource's zone, found through the property dependency
(its id is unknown during a preview, and a mere id string offline).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Optional

from policies.model import UNKNOWN, Resource, last_segment, number, region_of_zone

# --------------------------------------------------------------------------------- type tokens

AWS_SUBNET = "aws:ec2/subnet:Subnet"
AWS_ASG = "aws:autoscaling/group:Group"
AWS_LAUNCH_TEMPLATE = "aws:ec2/launchTemplate:LaunchTemplate"
AWS_INSTANCE = "aws:ec2/instance:Instance"
AWS_PLACEMENT_GROUP = "aws:ec2/placementGroup:PlacementGroup"
AWS_LUSTRE = "aws:fsx/lustreFileSystem:LustreFileSystem"
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
GCP_FILESYSTEMS = ("gcp:lustre/instance:Instance", "gcp:parallelstore/instance:Instance")
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
ALI_NAS = "alicloud:nas/fileSystem:FileSystem"
ALI_BUCKET = "alicloud:oss/bucket:Bucket"

# The catalog names Alibaba Cloud "alibaba"; Pulumi's token prefix is "alicloud".
CATALOG_CLOUDS = {"aws": ("aws",), "gcp": ("gcp",), "azure": ("azure",),
                  "alicloud": ("alicloud", "alibaba")}

# The marker a trainstack component sets on a bucket it also marks retainOnDelete (see
# rules/bucket_retained.py for why a marker is needed at all).
RETAIN_TAG = "trainstack:retain"
MAX_HOURS_TAG = "trainstack:max-hours"


# ---------------------------------------------------------------------------------- node groups

@dataclass
class NodeGroup:
    resource: Resource                 # the group, scale set or instance
    template: Optional[Resource]       # launch template / instance template / scaling config
    instance_type: Any                 # str, UNKNOWN or None
    count: int
    spot: bool
    zones: list[str]                   # "" where the zone could not be read
    region: str

    @property
    def cloud(self) -> str:
        return self.resource.cloud


def _first(resources: list[Resource]) -> Optional[Resource]:
    return resources[0] if resources else None


def _count(*values: Any) -> int:
    nums = [number(v) for v in values]
    return int(max((n for n in nums if n is not None), default=1))


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


def node_groups(resources: list[Resource]) -> list[NodeGroup]:
    groups: list[NodeGroup] = []
    for r in resources:
        if r.type == AWS_ASG:
            lt = _first(r.dep("launchTemplate", AWS_LAUNCH_TEMPLATE))
            zones = _subnet_zones(r, "vpcZoneIdentifiers", AWS_SUBNET, "availabilityZone")
            if not zones:
                azs = r.get("availabilityZones")
                zones = [_zone(z) for z in azs] if isinstance(azs, list) else []
            if not zones and lt is not None and lt.get("placement.availabilityZone"):
                zones = [_zone(lt.get("placement.availabilityZone"))]
            groups.append(NodeGroup(
                r, lt, lt.get("instanceType") if lt else None,
                _count(r.get("maxSize"), r.get("desiredCapacity"), r.get("minSize")),
                bool(lt and lt.get("instanceMarketOptions.marketType") == "spot"),
                zones or [""], _aws_region(r, zones)))
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
                zones = [_zone(r.get("zone"))]
                region = region_of_zone(zones[0])
            else:
                dz = r.get("distributionPolicyZones")
                zones = [last_segment(z) for z in dz] if isinstance(dz, list) and dz else [""]
                region = r.get("region")
                region = region if isinstance(region, str) else region_of_zone(zones[0])
            groups.append(NodeGroup(
                r, template, _gcp_machine_type(template), _count(r.get("targetSize")),
                _gcp_spot(template), zones, region or (r.provider_region or "")))
        elif r.type == GCP_INSTANCE:
            zone = _zone(r.get("zone"))
            groups.append(NodeGroup(r, r, _gcp_machine_type(r), 1, _gcp_spot(r), [zone],
                                    region_of_zone(zone) or (r.provider_region or "")))
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
                                    r.provider_region or region_of_zone(zone)))
        elif r.type == ALI_SCALING_GROUP:
            config = next((c for c in resources if c.type == ALI_SCALING_CONFIG
                           and any(d is r for d in c.deps.get("scalingGroupId", []))), None)
            zones = _subnet_zones(r, "vswitchIds", ALI_SWITCH, "zoneId") or [""]
            itype = None
            if config is not None:
                types = config.get("instanceTypes")
                itype = config.get("instanceType") or (types[0] if isinstance(types, list)
                                                       and types else None)
            groups.append(NodeGroup(
                r, config, itype, _count(r.get("maxSize"), r.get("desiredCapacity")),
                bool(config and _ali_spot(config.get("spotStrategy"))), zones,
                r.provider_region or region_of_zone(zones[0])))
    return groups


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


def _azure_location(r: Resource) -> str:
    value = r.get("location") or r.provider_region or ""
    return normalize_azure_location(str(value)) if value is not UNKNOWN else ""


def normalize_azure_location(location: str) -> str:
    """"East US" and "eastus" are the same Azure region."""
    return location.replace(" ", "").lower()


# -------------------------------------------------------------------------------- filesystems

@dataclass
class Filesystem:
    resource: Resource
    zone: Any          # str, UNKNOWN, or "" when it cannot be read
    region: str
    capacity_gib: Optional[float]
    tier: str          # throughput tier / SKU, for pricing


def filesystems(resources: list[Resource]) -> list[Filesystem]:
    out: list[Filesystem] = []
    for r in resources:
        if r.type == AWS_LUSTRE:
            subnets = r.dep("subnetIds", AWS_SUBNET)
            zone = _zone(subnets[0].get("availabilityZone") if subnets else "")
            tier = number(r.get("perUnitStorageThroughput"))
            out.append(Filesystem(r, zone, _aws_region(r, [zone]),
                                  number(r.get("storageCapacity")),
                                  f"{int(tier)}" if tier else str(r.get("deploymentType") or "")))
        elif r.type in GCP_FILESYSTEMS:
            zone = _zone(r.get("location"))
            tier = r.get("perUnitStorageThroughput")
            out.append(Filesystem(r, zone, region_of_zone(zone), number(r.get("capacityGib")),
                                  str(tier or "")))
        elif r.type == AZ_AMLFS:
            zones = r.get("zones")
            zone = (_zone(zones[0]) if isinstance(zones, list) and zones else
                    UNKNOWN if zones is UNKNOWN else "")
            tib = number(r.get("storageCapacityTiB"))
            out.append(Filesystem(r, zone, _azure_location(r),
                                  tib * 1024 if tib is not None else None,
                                  str(r.get("sku.name") or "")))
        elif r.type == ALI_NAS and str(r.get("fileSystemType") or "").startswith("cpfs"):
            switches = r.dep("vswitchId", ALI_SWITCH)
            zone = _zone(r.get("zoneId") or (switches[0].get("zoneId") if switches else ""))
            out.append(Filesystem(r, zone, r.provider_region or region_of_zone(zone),
                                  number(r.get("capacity")), str(r.get("storageType") or "")))
    return out


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


_PERIODS = {"MONTHLY": 1, "MONTH": 1, "BILLINGMONTH": 1, "QUARTERLY": 3,
            "QUARTER": 3, "BILLINGQUARTER": 3, "ANNUALLY": 12, "YEAR": 12, "BILLINGANNUAL": 12,
            "DAILY": 24 / 730}


def _per_month(amount: Optional[float], period: Any) -> Optional[float]:
    if amount is None:
        return None
    months = _PERIODS.get(str(period or "MONTHLY").replace(" ", "").upper(), 1)
    return amount / months


def budgets(resources: list[Resource]) -> list[Budget]:
    out: list[Budget] = []
    for r in resources:
        if r.type == AWS_BUDGET:
            amount = number(r.get("limitAmount"))
            out.append(Budget(r, _per_month(amount, r.get("timeUnit")),
                              str(r.get("limitUnit") or "USD"), str(r.get("limitAmount"))))
        elif r.type == GCP_BUDGET:
            units = number(r.get("amount.specifiedAmount.units"))
            nanos = number(r.get("amount.specifiedAmount.nanos")) or 0
            amount = units + nanos / 1e9 if units is not None else None
            period = r.get("budgetFilter.calendarPeriod") or "MONTH"
            out.append(Budget(r, _per_month(amount, period),
                              str(r.get("amount.specifiedAmount.currencyCode") or "USD"),
                              str(r.get("amount.specifiedAmount.units"))))
        elif r.type in AZ_BUDGETS:
            amount = number(r.get("amount"))
            # Azure budgets are in the billing account's currency; trainstack bills in USD.
            out.append(Budget(r, _per_month(amount, r.get("timeGrain")), "USD",
                              str(r.get("amount"))))
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
_TAG_KEYS = {"gcp:monitoring/notificationChannel:NotificationChannel": "userLabels"}


def tag_key_of(r: Resource) -> str:
    return _TAG_KEYS.get(r.type, "labels" if r.cloud == "gcp" else "tags")


def is_taggable(r: Resource) -> bool:
    if r.cloud not in CATALOG_CLOUDS:
        return False
    return r.type in TAGGABLE or isinstance(r.get(tag_key_of(r)), (dict, list))


def tags_of(r: Resource) -> Any:
    """The resource's tags as a dict (AWS ASG tag lists flattened); UNKNOWN if unknown."""
    value = r.get(tag_key_of(r))
    if value is UNKNOWN:
        return UNKNOWN
    if isinstance(value, list):  # aws:autoscaling/group:Group takes [{key, value, ...}]
        return {str(t.get("key")): t.get("value") for t in value if isinstance(t, dict)}
    return dict(value) if isinstance(value, dict) else {}


_LABEL_CHARS = re.compile(r"[^a-z0-9]+")


def normalize_label_key(key: str) -> str:
    """GCP label keys allow only [a-z0-9_-]; `trainstack:cluster`, `trainstack_cluster` and
    `trainstack-cluster` all normalise to the same key, whichever spelling a component chose."""
    return _LABEL_CHARS.sub("_", key.lower()).strip("_")


def tag_value(r: Resource, tags: dict, key: str) -> Any:
    """The value of tag `key` (GCP: by normalised label key; Azure: tag names are
    case-insensitive); None when absent."""
    if key in tags:
        return tags[key]
    if r.cloud == "gcp":
        wanted = normalize_label_key(key)
        return next((v for k, v in tags.items() if normalize_label_key(k) == wanted), None)
    if r.cloud == "azure":
        return next((v for k, v in tags.items() if k.lower() == key.lower()), None)
    return None


def max_hours(groups: list[NodeGroup]) -> Optional[float]:
    """The spec's declared maximum lifetime, where the component tagged the nodes with it."""
    for g in groups:
        for holder in (g.resource, g.template):  # a GCP MIG has no labels; its template has
            tags = tags_of(holder) if holder is not None else None
            value = number(tag_value(holder, tags, MAX_HOURS_TAG)) if isinstance(tags, dict) \
                else None
            if value:
                return value
    return None


def retained_marker(r: Resource) -> Any:
    tags = tags_of(r)
    if tags is UNKNOWN:
        return UNKNOWN
    return tag_value(r, tags, RETAIN_TAG)

