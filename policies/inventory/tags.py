"""Tags and labels: which resources take them, and the tags that allocate a resource's cost."""
from __future__ import annotations

from typing import Any, Optional

from trainstack_policies.exemptions import normalize_label_key as _normalize_label_key
from trainstack_policies.exemptions import own_tag, own_tags, tag_key
from trainstack_policies.inventory.tokens import (
    ALI_BUCKET,
    ALI_INSTANCE,
    ALI_INSTANCE_SET,
    ALI_NAS,
    ALI_SCALING_CONFIG,
    ALI_SCALING_GROUP,
    ALI_SWITCH,
    AWS_ASG,
    AWS_BUCKETS,
    AWS_BUDGET,
    AWS_INSTANCE,
    AWS_LAUNCH_TEMPLATE,
    AWS_LUSTRE,
    AWS_PLACEMENT_GROUP,
    AWS_SUBNET,
    AZ_AMLFS,
    AZ_PPG,
    AZ_STORAGE_ACCOUNT,
    AZ_VM,
    AZ_VMSS,
    CATALOG_CLOUDS,
    GCP_BUCKET,
    GCP_FILESYSTEMS,
    GCP_INSTANCE,
    GKE_CLUSTER,
    GKE_NODE_POOL,
    GCP_TEMPLATES,
    RETAIN_TAG,
)
from trainstack_policies.inventory.values import json_text
from trainstack_policies.model import UNKNOWN, Resource, as_list


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


def _provider_defaults(r: Resource) -> tuple[Any, str]:
    """The provider's default tags/labels as given (a map, None, or UNKNOWN at preview) and
    the provider input that holds them: AWS defaultTags.tags, GCP defaultLabels. None for an
    AWS autoscaling group: AWS does not propagate default tags to a group's instances."""
    if r.type == AWS_ASG:
        return None, ""
    if r.cloud == "aws":
        value = json_text(r.provider.get("defaultTags"))
        if isinstance(value, list):    # the provider takes a list of one {tags: {...}}
            value = value[0] if value else {}
        if value is UNKNOWN:
            return UNKNOWN, "provider.defaultTags"
        return (value.get("tags") if isinstance(value, dict) else None), \
            "provider.defaultTags.tags"
    if r.cloud == "gcp":
        return json_text(r.provider.get("defaultLabels")), "provider.defaultLabels"
    return None, ""


def provider_tags(r: Resource) -> dict:
    """Tags the provider adds to every resource it manages (_provider_defaults). They allocate
    cost like the resource's own tags, except on an AWS autoscaling group."""
    if r.type == AWS_ASG:
        return {}
    value, _ = _provider_defaults(r)
    if r.cloud == "aws":
        derived = r.get("tagsAll")     # the provider's Check merges defaults into tagsAll
    elif r.cloud == "gcp":
        derived = r.get("effectiveLabels")
    else:
        derived = None
    out = dict(value) if isinstance(value, dict) else {}
    if isinstance(derived, dict):
        out.update(derived)
    return out


def provider_tags_unknown(r: Resource) -> str:
    """The provider input holding its default tags/labels when it is unknown at preview (the
    defaults may then hold any tag), else "". Never for an AWS autoscaling group, which the
    provider gives none."""
    value, path = _provider_defaults(r)
    return path if value is UNKNOWN else ""


def tags_of(r: Resource) -> Any:
    """The tags that allocate the resource's cost: its own (exemptions.own_tags) over the
    provider's default tags; UNKNOWN if its own are unknown. Exemptions and markers never read
    this: they read own_tags only."""
    value = r.get(tag_key_of(r))
    if value is UNKNOWN:
        return UNKNOWN
    # A map of its own tags merged as it is (own_tags() would copy it first); a list (AWS ASG
    # tags) or anything else as own_tags() reads it.
    return {**provider_tags(r), **(value if isinstance(value, dict) else own_tags(r))}


def normalize_label_key(key: str) -> str:
    return _normalize_label_key(key)


def retained_marker(r: Resource) -> Any:
    """The resource's OWN retain marker: a provider-wide default tag retains nothing."""
    return own_tag(r, RETAIN_TAG)


# Auto Scaling groups (aws, aws-native): their own tags reach the instances only where
# propagateAtLaunch is true (pulumi-aws GroupTag.propagateAtLaunch; AWS::AutoScaling::
# AutoScalingGroup TagProperty.PropagateAtLaunch), and the provider's defaultTags never do
# (pulumi aws getDefaultTags: for "the instances underneath an Auto Scaling group").
_ASGS = frozenset({AWS_ASG, "aws-native:autoscaling:AutoScalingGroup"})
# MIGs: no labels of their own; their VMs take the template's, then allInstancesConfig.labels.
_MIGS = frozenset({"gcp:compute/instanceGroupManager:InstanceGroupManager",
                   "gcp:compute/regionInstanceGroupManager:RegionInstanceGroupManager"})
# EC2 Fleet, Spot Fleet and a Spot Instance request: their own tags label the request, not the
# instances, and so do the provider's defaultTags. CreateFleet TagSpecifications: "To tag
# instances at launch, specify the tags in a launch template" (resourceType instance only for
# an instant fleet); SpotFleetRequestConfigData.TagSpecifications: instances take the launch
# template's tags or each launch specification's (SpotFleetTagSpecification); pulumi-aws
# SpotInstanceRequest tags "are not automatically applied to the launched Instance"
# (docs.aws.amazon.com/AWSEC2/latest/APIReference/API_CreateFleet.html,
# API_SpotFleetRequestConfigData.html).
_REQUESTS = frozenset({"aws:ec2/fleet:Fleet", "aws-native:ec2:Ec2Fleet",
                       "aws:ec2/spotFleetRequest:SpotFleetRequest",
                       # CloudFormation AWS::EC2::SpotFleet: the same request (its
                       # SpotFleetRequestConfigData, read through spot_fleet_view).
                       "aws-native:ec2:SpotFleet",
                       "aws:ec2/spotInstanceRequest:SpotInstanceRequest",
                       # EKS: "Tags that you create for Amazon EKS resources don't propagate
                       # to any other resources associated with the cluster" (EKS API,
                       # TagResource): a managed node group's nodes take their launch
                       # template's instance tags only.
                       "aws:eks/nodeGroup:NodeGroup"})
# An AWS Batch compute environment: "Compute environment tags do not propagate to any other
# resources. Tags for the resources are specified in the tags member of the computeResources
# object" (docs.aws.amazon.com/batch/latest/userguide/tag-resources.html), so its instances carry
# computeResources.tags and its launch template's instance tags, never its own tags nor the
# provider's defaultTags (which pulumi sets on its own tags).
_BATCH_ENVIRONMENTS = frozenset({"aws:batch/computeEnvironment:ComputeEnvironment",
                                 "aws-native:batch:ComputeEnvironment"})
_AWS_TEMPLATES = frozenset({AWS_LAUNCH_TEMPLATE, "aws-native:ec2:LaunchTemplate",
                            "aws:ec2/launchConfiguration:LaunchConfiguration"})


def _pairs(value: Any) -> Any:
    """A tag list of {key, value} (aws-native) or a map as a dict; UNKNOWN where any part is
    unknown at preview."""
    if value is UNKNOWN:
        return UNKNOWN
    if isinstance(value, dict):
        return UNKNOWN if any(v is UNKNOWN for v in value.values()) else dict(value)
    out: dict = {}
    for t in value if isinstance(value, list) else []:
        if t is UNKNOWN or (isinstance(t, dict) and (t.get("key") is UNKNOWN
                                                     or t.get("value") is UNKNOWN)):
            return UNKNOWN
        if isinstance(t, dict):
            out[str(t.get("key"))] = t.get("value")
    return out


def _instance_spec_tags(specs: Any) -> Any:
    """The tags of the tagSpecifications of resourceType "instance" in `specs` (a launch
    template's, an aws-native EC2 Fleet's); UNKNOWN where the list, an entry, its resourceType
    or an instance entry's tags are unknown at preview."""
    if specs is UNKNOWN:
        return UNKNOWN
    out: dict = {}
    for spec in specs if isinstance(specs, list) else []:
        if spec is UNKNOWN:
            return UNKNOWN
        if not isinstance(spec, dict):
            continue
        kind = spec.get("resourceType")
        if kind is UNKNOWN:
            return UNKNOWN
        if kind != "instance":
            continue
        tags = _pairs(spec.get("tags"))
        if tags is UNKNOWN:
            return UNKNOWN
        out.update(tags)
    return out


def _launch_instance_tags(template: Resource) -> Any:
    """The tags a launch template gives the instances launched from it: its tagSpecifications
    of resourceType "instance" (aws: a map; aws-native: launchTemplateData's {key, value}
    list), never its own `tags`, which label the template itself, nor the provider's
    defaultTags (they apply to the template resource). A launch configuration tags nothing."""
    if template.type == "aws:ec2/launchConfiguration:LaunchConfiguration":
        return {}
    return _instance_spec_tags(template.get("launchTemplateData.tagSpecifications"
                                            if template.type == "aws-native:ec2:LaunchTemplate"
                                            else "tagSpecifications"))


def _propagated(group: Resource) -> Any:
    """An Auto Scaling group's tags with propagateAtLaunch true (boolean, or the string "true"
    CloudFormation also takes); UNKNOWN where a tag or its flag is unknown at preview."""
    value = group.get("tags")
    if value is UNKNOWN:
        return UNKNOWN
    out: dict = {}
    for t in value if isinstance(value, list) else []:
        if t is UNKNOWN:
            return UNKNOWN
        if not isinstance(t, dict):
            continue
        flag = t.get("propagateAtLaunch")
        if flag is UNKNOWN or t.get("key") is UNKNOWN:
            return UNKNOWN
        if flag is True or (isinstance(flag, str) and flag.lower() == "true"):
            if t.get("value") is UNKNOWN:
                return UNKNOWN
            out[str(t.get("key"))] = t.get("value")
    return out


def _request_instance_tags(request: Resource) -> Any:
    """Tags a fleet request itself gives its instances: an aws-native EC2 Fleet's
    tagSpecifications of resourceType "instance"; a Spot Fleet's launch specifications' tags,
    only those every specification carries (each launches some of the instances)."""
    if request.type == "aws-native:ec2:Ec2Fleet":
        return _instance_spec_tags(request.get("tagSpecifications"))
    if request.type not in ("aws:ec2/spotFleetRequest:SpotFleetRequest",
                            "aws-native:ec2:SpotFleet"):
        return {}
    if request.type == "aws-native:ec2:SpotFleet" and request.has("spotFleetRequestConfigData"):
        # The resource as given (not the inventory's view): its launch specifications' tags
        # as the classic request holds them.
        from trainstack_policies.inventory.compute_aws import spot_fleet_view
        request = spot_fleet_view(request)
    launches = request.get("launchSpecifications")
    if launches is UNKNOWN:
        return UNKNOWN
    common: Optional[dict] = None
    # One object written for the list is a list of that one (as_list), as the fleet is sized
    # and placed (review61 DEFECT 3: its tags were dropped).
    for spec in as_list(launches):
        tags = UNKNOWN if spec is UNKNOWN else _pairs(spec.get("tags")) \
            if isinstance(spec, dict) else {}
        if tags is UNKNOWN:
            return UNKNOWN
        common = dict(tags) if common is None else \
            {k: v for k, v in common.items() if k in tags and tags[k] == v}
    return common or {}


def instance_tags(resource: Resource, template: Optional[Resource]) -> Any:
    """The tags/labels the instances of a compute group carry (what a budget's tag or label
    filter allocates by), from the group's resource and its template; UNKNOWN where they are
    unknown at preview.
    - AWS Auto Scaling group: its launch template's instance tagSpecifications and its own
      tags with propagateAtLaunch. Where the two give one key different values, which one the
      instance gets is not stated in what the pack's sources say
      (docs.aws.amazon.com/autoscaling/ec2/userguide/ec2-auto-scaling-tagging.html): UNKNOWN.
    - AWS Batch compute environment: its launch template's instance tagSpecifications and its
      computeResources.tags (_BATCH_ENVIRONMENTS), a key they give different values UNKNOWN.
    - EC2 Fleet, Spot Fleet, Spot Instance request, EKS node group: the launch template's instance
      tagSpecifications and what the request tags its instances with (_request_instance_tags);
      never the request's own tags or the provider's defaults.
    - Other AWS compute with a launch template (an instance): the template's
      instance tagSpecifications under the resource's own tags and the provider's defaults.
    - GCP MIG: its template's labels (with the provider's defaultLabels), then its
      allInstancesConfig.labels, which override and add to them (cloud.google.com/compute/
      docs/instance-groups/set-mig-aggregate-instance-config).
    - GKE node pool (separate, inline or the default pool): _gke_node_labels.
    - Else (an AWS instance without a template, Azure, Alibaba Cloud, a GCP VM or
      InstanceFromTemplate): the resource's own tags over its provider's, then its
      template's."""
    kind = resource.type
    if kind in _ASGS or kind in _BATCH_ENVIRONMENTS:
        base = _launch_instance_tags(template) if template is not None \
            and template.type in _AWS_TEMPLATES else {}
        if kind in _ASGS:
            own = _propagated(resource)
        else:
            resources = resource.get("computeResources")
            own = UNKNOWN if resources is UNKNOWN else _pairs(resources.get("tags")) \
                if isinstance(resources, dict) else {}
        if base is UNKNOWN or own is UNKNOWN or \
                any(base[k] != own[k] for k in base.keys() & own.keys()):
            return UNKNOWN
        return {**base, **own}
    if kind in _REQUESTS:
        base = _launch_instance_tags(template) if template is not None \
            and template.type in _AWS_TEMPLATES else {}
        extra = _request_instance_tags(resource)
        if base is UNKNOWN or extra is UNKNOWN:
            return UNKNOWN
        return {**base, **extra}
    if kind in _MIGS:
        merged: dict = {}
        if template is not None:
            labels = own_tags(template)
            if labels is UNKNOWN:
                return UNKNOWN
            merged = {**provider_tags(template), **labels}
        config = resource.get("allInstancesConfig")
        extra = config.get("labels") if isinstance(config, dict) else config
        if extra is UNKNOWN or (isinstance(extra, dict)
                                and any(v is UNKNOWN for v in extra.values())):
            return UNKNOWN
        if isinstance(extra, dict):
            merged.update(extra)
        return merged
    if kind in (GKE_NODE_POOL, GKE_CLUSTER):
        return _gke_node_labels(resource, template)
    own = own_tags(resource)
    if own is UNKNOWN:
        return UNKNOWN
    if template is not None and template.type in _AWS_TEMPLATES:
        base = _launch_instance_tags(template)
        if base is UNKNOWN:
            return UNKNOWN
        return {**base, **provider_tags(resource), **own}
    merged = {**provider_tags(resource), **own}
    if template is not None and template is not resource:
        held = own_tags(template)
        if held is UNKNOWN:
            return UNKNOWN
        merged.update({**provider_tags(template), **held})
    return merged


def _gke_node_labels(resource: Resource, holder: Optional[Resource]) -> Any:
    """The GCP labels a GKE pool's nodes carry: its cluster's `resourceLabels` (with the
    provider's defaultLabels, which pulumi-gcp merges into a cluster's labels) and the pool's
    `nodeConfig.resourceLabels` (the holder's `labels`, compute._gke_pool), both of which GKE
    applies to the Compute Engine resources it makes ("The resource labels for the cluster / node
    pool to use to annotate any related Google Compute Engine resources", GKE API v1). Never
    `nodeConfig.labels`: those are Kubernetes labels, which "do not inherit or share labels"
    with GCP ones and never reach billing (cloud.google.com/kubernetes-engine/docs/how-to/
    creating-managing-labels). A key the two give different values is UNKNOWN: which one a node
    gets is not stated there. A cluster the stack does not create adds none, as a launch
    template outside the stack adds no tags. UNKNOWN where either is unknown at preview."""
    cluster = resource if resource.type == GKE_CLUSTER else next(
        (d for d in resource.deps.get("cluster", []) if d.type == GKE_CLUSTER), None)
    merged: dict = {}
    if cluster is not None:
        own = cluster.get("resourceLabels")
        if own is UNKNOWN or (isinstance(own, dict) and any(v is UNKNOWN for v in own.values())):
            return UNKNOWN
        merged = {**provider_tags(cluster), **(own if isinstance(own, dict) else {})}
    pool = own_tags(holder) if holder is not None else {}
    if pool is UNKNOWN or any(v is UNKNOWN for v in pool.values()):
        return UNKNOWN
    if any(merged[k] != pool[k] for k in merged.keys() & pool.keys()):
        return UNKNOWN
    return {**merged, **pool}
