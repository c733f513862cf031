"""Tags and labels: which resources take them, and the tags that allocate a resource's cost."""
from __future__ import annotations

from typing import Any

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
    GCP_TEMPLATES,
    RETAIN_TAG,
)
from trainstack_policies.inventory.values import json_text
from trainstack_policies.model import UNKNOWN, Resource


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


def provider_tags(r: Resource) -> dict:
    """Tags the provider adds to every resource it manages: AWS defaultTags.tags, GCP
    defaultLabels. They allocate cost like the resource's own tags, except on an AWS
    autoscaling group: AWS does not propagate default tags to a group's instances."""
    if r.type == AWS_ASG:
        return {}
    if r.cloud == "aws":
        value = json_text(r.provider.get("defaultTags"))
        if isinstance(value, list):    # the provider takes a list of one {tags: {...}}
            value = value[0] if value else {}
        value = value.get("tags") if isinstance(value, dict) else None
        derived = r.get("tagsAll")     # the provider's Check merges defaults into tagsAll
    elif r.cloud == "gcp":
        value = json_text(r.provider.get("defaultLabels"))
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
