"""Resource type tokens (engine type names) the inventory reads, and the marker tags."""
from __future__ import annotations

import re

# --------------------------------------------------------------------------------- type tokens

AWS_SUBNET = "aws:ec2/subnet:Subnet"
# CloudFormation AWS::EC2::Subnet: the same availabilityZone input.
AWS_NATIVE_SUBNET = "aws-native:ec2:Subnet"
AWS_ASG = "aws:autoscaling/group:Group"
AWS_LAUNCH_TEMPLATE = "aws:ec2/launchTemplate:LaunchTemplate"
AWS_LAUNCH_CONFIGURATION = "aws:ec2/launchConfiguration:LaunchConfiguration"
AWS_INSTANCE = "aws:ec2/instance:Instance"
AWS_PLACEMENT_GROUP = "aws:ec2/placementGroup:PlacementGroup"
AWS_LUSTRE = "aws:fsx/lustreFileSystem:LustreFileSystem"
AWS_OPENZFS = "aws:fsx/openZfsFileSystem:OpenZfsFileSystem"
AWS_EFS = "aws:efs/fileSystem:FileSystem"
AWS_DIRECTORY_BUCKET = "aws:s3/directoryBucket:DirectoryBucket"
AWS_BUCKETS = ("aws:s3/bucket:Bucket", "aws:s3/bucketV2:BucketV2")
# CloudFormation AWS::S3::Bucket (pulumi-aws-native): no forceDestroy (CloudFormation deletes a
# bucket only when it is empty), tags a list of {key, value}. bucket-retained judges it.
AWS_NATIVE_BUCKET = "aws-native:s3:Bucket"
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
AZ_BUDGETS = ("azure-native:consumption:Budget", "azure-native:costmanagement:Budget",
              # The classic azure provider's budgets, one type per scope (pulumi-azure
              # consumption.BudgetSubscription / BudgetResourceGroup / BudgetManagementGroup).
              "azure:consumption/budgetSubscription:BudgetSubscription",
              "azure:consumption/budgetResourceGroup:BudgetResourceGroup",
              "azure:consumption/budgetManagementGroup:BudgetManagementGroup")

ALI_SWITCH = "alicloud:vpc/switch:Switch"
ALI_INSTANCE = "alicloud:ecs/instance:Instance"
ALI_INSTANCE_SET = "alicloud:ecs/ecsInstanceSet:EcsInstanceSet"
ALI_CAPACITY_RESERVATION = "alicloud:ecs/capacityReservation:CapacityReservation"
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

# Node groups, fleets, pools and what scales them.
AWS_SPOT_FLEET = "aws:ec2/spotFleetRequest:SpotFleetRequest"
AWS_FLEET = "aws:ec2/fleet:Fleet"
# CloudFormation AWS::EC2::SpotFleet: the classic request's inputs under one property,
# spotFleetRequestConfigData (read through inventory.compute_aws.spot_fleet_view).
AWS_NATIVE_SPOT_FLEET = "aws-native:ec2:SpotFleet"
# aws-native (CloudFormation AWS::EC2::EC2Fleet, AWS::EC2::LaunchTemplate,
# AWS::EC2::CapacityReservation).
AWS_NATIVE_FLEET = "aws-native:ec2:Ec2Fleet"
AWS_NATIVE_LAUNCH_TEMPLATE = "aws-native:ec2:LaunchTemplate"
AWS_NATIVE_INSTANCE = "aws-native:ec2:Instance"
AWS_ODCR = "aws:ec2/capacityReservation:CapacityReservation"
AWS_NATIVE_ODCR = "aws-native:ec2:CapacityReservation"
# A Capacity Reservation group is an AWS Resource Groups group with the
# AWS::EC2::CapacityReservationPool configuration; its ODCRs are added one by one
# (docs.aws.amazon.com/AWSEC2/latest/UserGuide/create-group.html, add-to-group.html).
AWS_RESOURCE_GROUP = "aws:resourcegroups/group:Group"
# aws-native (CloudFormation AWS::ResourceGroups::Group): its `configuration` and the ARNs of its
# members in its own `resources`.
AWS_NATIVE_RESOURCE_GROUP = "aws-native:resourcegroups:Group"
AWS_RESOURCE_GROUP_MEMBER = "aws:resourcegroups/resource:Resource"
AWS_EKS_NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
AWS_SPOT_INSTANCE_REQUEST = "aws:ec2/spotInstanceRequest:SpotInstanceRequest"
GCP_INSTANCE_FROM_TEMPLATE = "gcp:compute/instanceFromTemplate:InstanceFromTemplate"
AWS_ASG_SCHEDULE = "aws:autoscaling/schedule:Schedule"
GKE_NODE_POOL = "gcp:container/nodePool:NodePool"
# A GKE cluster runs its default node pool (nodeConfig, initialNodeCount) unless it removes it.
GKE_CLUSTER = "gcp:container/cluster:Cluster"
# azure-native v3 moved it from `insights` to `monitor` (the old token stays an alias).
AZ_AUTOSCALE = ("azure-native:monitor:AutoscaleSetting", "azure-native:insights:AutoscaleSetting")
# The classic azure provider's (pulumi-azure monitoring.AutoscaleSetting, azurerm
# monitor_autoscale_setting): targetResourceId; `enabled` "Defaults to true"; profiles[] with
# capacity {default, minimum, maximum}, fixedDate {start, end, timezone} and recurrence
# {timezone, days, hours, minutes} (no frequency/schedule wrapper). lifetimes reads it through
# autoscale_view() as the azure-native setting.
AZ_CLASSIC_AUTOSCALE = "azure:monitoring/autoscaleSetting:AutoscaleSetting"

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
