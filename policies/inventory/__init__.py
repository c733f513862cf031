"""What a stack's resources mean, cloud by cloud: node groups, filesystems, buckets, budgets, tags.

The rules ask questions ("which zone are the GPU nodes in?") and this package answers them from
resource type tokens and engine (camelCase) input names, for all four clouds (cloud-map §0, §1.3,
§2.3, §3.3, §4.3). Zones are read the way the engine would have to: a filesystem or node group
placed in a subnet / vSwitch takes that resource's zone, found through the property dependency
(its id is unknown during a preview, and a mere id string offline).

One module per thing inventoried: tokens (type names), values (reading inputs), groups (the
NodeGroup and its GPU test), gpu_names (what a type field's value names as GPU hardware, on any
cloud: spend-limit's GPU signs), compute / compute_aws (every compute resource as a NodeGroup),
referrers (what points at a group), lifetimes (stops the plan enforces), storage (filesystems,
buckets), budgets (per cloud: budgets_aws, budgets_gcp, budgets_azure; shared: budgets_common),
tags. This module re-exports their public names, so callers import `trainstack_policies.inventory`
alone.
"""
from trainstack_policies.exemptions import tag_value
from trainstack_policies.inventory.budgets import Budget, budgets
from trainstack_policies.inventory.compute import cpu_groups, gpu_groups, node_groups
from trainstack_policies.inventory.compute_aws import spot_fleet_view
from trainstack_policies.inventory.groups import NodeGroup, gpu_reason, is_gpu_group
from trainstack_policies.inventory.lifetimes import _hours_until, _now, enforced_hours
from trainstack_policies.inventory.referrers import Referrers
from trainstack_policies.inventory.storage import (
    BUCKET_TYPES,
    Bucket,
    Filesystem,
    buckets,
    filesystems,
    is_bucket,
)
from trainstack_policies.inventory.tags import (
    TAGGABLE,
    is_taggable,
    normalize_label_key,
    provider_tags,
    provider_tags_unknown,
    retained_marker,
    tag_key_of,
    tags_of,
)
from trainstack_policies.inventory.tokens import (
    ALI_BUCKET,
    ALI_CAPACITY_RESERVATION,
    ALI_DEPLOYMENT_SET,
    ALI_HPC_CLUSTER,
    ALI_INSTANCE,
    ALI_INSTANCE_SET,
    ALI_LAUNCH_TEMPLATES,
    ALI_NAS,
    ALI_SCALING_CONFIG,
    ALI_SCALING_GROUP,
    ALI_SWITCH,
    AWS_ASG,
    AWS_ASG_SCHEDULE,
    AWS_BUCKETS,
    AWS_BUDGET,
    AWS_DIRECTORY_BUCKET,
    AWS_EFS,
    AWS_EKS_NODE_GROUP,
    AWS_FLEET,
    AWS_INSTANCE,
    AWS_LAUNCH_TEMPLATE,
    AWS_LUSTRE,
    AWS_NATIVE_FLEET,
    AWS_NATIVE_RESOURCE_GROUP,
    AWS_NATIVE_SPOT_FLEET,
    AWS_OPENZFS,
    AWS_PLACEMENT_GROUP,
    AWS_RESOURCE_GROUP,
    AWS_RESOURCE_GROUP_MEMBER,
    AWS_SPOT_FLEET,
    AWS_SPOT_INSTANCE_REQUEST,
    AWS_SSE,
    AWS_SUBNET,
    AZ_AMLFS,
    AZ_AUTOSCALE,
    AZ_BUDGETS,
    AZ_CLASSIC_AUTOSCALE,
    AZ_PPG,
    AZ_STORAGE_ACCOUNT,
    AZ_VM,
    AZ_VMSS,
    CATALOG_CLOUDS,
    DATA_MB_TAG,
    GCP_BUCKET,
    GCP_BUDGET,
    GCP_FILESTORE,
    GCP_FILESYSTEMS,
    GCP_IGM,
    GCP_INSTANCE,
    GCP_INSTANCE_FROM_TEMPLATE,
    GCP_REGION_IGM,
    GCP_RESIZE_REQUEST,
    GCP_RESOURCE_POLICY,
    GCP_TEMPLATES,
    GKE_CLUSTER,
    GKE_NODE_POOL,
    GPU_FAMILIES,
    MAX_HOURS_TAG,
    RETAIN_TAG,
)
from trainstack_policies.inventory.values import REGION_ENV, env_region, normalize_azure_location

__all__ = [
    "ALI_BUCKET", "ALI_CAPACITY_RESERVATION", "ALI_DEPLOYMENT_SET", "ALI_HPC_CLUSTER", "ALI_INSTANCE", "ALI_INSTANCE_SET",
    "ALI_LAUNCH_TEMPLATES", "ALI_NAS", "ALI_SCALING_CONFIG", "ALI_SCALING_GROUP", "ALI_SWITCH",
    "AWS_ASG", "AWS_ASG_SCHEDULE", "AWS_BUCKETS", "AWS_BUDGET", "AWS_DIRECTORY_BUCKET", "AWS_EFS",
    "AWS_EKS_NODE_GROUP", "AWS_FLEET", "AWS_INSTANCE", "AWS_LAUNCH_TEMPLATE", "AWS_LUSTRE",
    "AWS_NATIVE_FLEET", "AWS_NATIVE_RESOURCE_GROUP", "AWS_NATIVE_SPOT_FLEET",
    "AWS_OPENZFS", "AWS_PLACEMENT_GROUP", "AWS_RESOURCE_GROUP",
    "AWS_RESOURCE_GROUP_MEMBER", "AWS_SPOT_FLEET", "AWS_SPOT_INSTANCE_REQUEST", "AWS_SSE",
    "AWS_SUBNET", "AZ_AMLFS", "AZ_AUTOSCALE", "AZ_BUDGETS", "AZ_CLASSIC_AUTOSCALE", "AZ_PPG", "AZ_STORAGE_ACCOUNT", "AZ_VM",
    "AZ_VMSS", "Bucket", "Budget", "CATALOG_CLOUDS", "DATA_MB_TAG", "Filesystem", "GCP_BUCKET",
    "GCP_BUDGET", "GCP_FILESTORE", "GCP_FILESYSTEMS", "GCP_IGM", "GCP_INSTANCE",
    "GCP_INSTANCE_FROM_TEMPLATE", "GCP_REGION_IGM", "GCP_RESIZE_REQUEST", "GCP_RESOURCE_POLICY",
    "GCP_TEMPLATES", "GKE_CLUSTER", "GKE_NODE_POOL", "GPU_FAMILIES", "MAX_HOURS_TAG", "NodeGroup", "REGION_ENV",
    "RETAIN_TAG", "Referrers", "TAGGABLE", "_hours_until", "_now", "buckets", "budgets",
    "cpu_groups", "enforced_hours", "env_region", "filesystems", "gpu_groups", "gpu_reason",
    "BUCKET_TYPES", "is_bucket", "is_gpu_group", "is_taggable", "node_groups", "normalize_azure_location",
    "normalize_label_key",
    "provider_tags", "provider_tags_unknown", "retained_marker", "spot_fleet_view", "tag_key_of",
    "tag_value", "tags_of",
]
