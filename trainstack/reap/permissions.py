"""What the reaper's identity on each cloud must be granted: every call the reaper makes
(trainstack/reap/cloud.py's members, scale and export; trainstack/reap/store.py's reports, audit
and lease) next to the permission the cloud checks for it, by the name its own reference gives.

`pulumi destroy` needs more: the delete (and read) permissions of every resource in the stack,
which is what the identity that deployed it holds. This table is what the reaper adds on top,
and what a read-only review of its identity must find. docs/reaper-identity.md is rendered from it
(`document()`); tests/reap/test_reap_permissions.py runs the reaper through the stand-ins and
checks that every call they record is granted here.
"""
from __future__ import annotations

import json
from dataclasses import dataclass


@dataclass(frozen=True)
class Grant:
    call: str         # the call as made: an AWS API "service:Operation", or a CLI's words
    permission: str   # what the identity must hold for it, as the cloud names it
    source: str       # the public reference that names the permission for the call


AWS_ASG = "https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazonec2autoscaling.html"
AWS_EC2 = "https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazonec2.html"
AWS_FSX = ("https://docs.aws.amazon.com/service-authorization/latest/reference/list_fsx.html "
           "(\"API operations defined by Amazon FSx\" maps each operation to its IAM action)")
AWS_S3 = "https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazons3.html"
GCP_MIG = "https://cloud.google.com/compute/docs/access/iam#managed-instance-groups-and-iam"
GCP_LIST_INSTANCES = ("https://cloud.google.com/sdk/gcloud/reference/compute/instance-groups/"
                      "managed/list-instances (\"The required permission to execute this "
                      "command is compute.instanceGroupManagers.list\")")
GCP_LUSTRE = "https://cloud.google.com/managed-lustre/docs/access-control"
GCP_GCS = "https://cloud.google.com/storage/docs/access-control/iam-permissions"
AZ_COMPUTE = ("https://learn.microsoft.com/azure/role-based-access-control/permissions/compute "
              "(Microsoft.Compute operations)")
AZ_CACHE = ("https://learn.microsoft.com/azure/role-based-access-control/permissions/storage "
            "(Microsoft.StorageCache operations: amlFilesystems)")
AZ_BLOB = ("https://learn.microsoft.com/azure/role-based-access-control/permissions/storage "
           "(Microsoft.Storage data actions: blobServices/containers/blobs)")
ALI_ECS = "https://www.alibabacloud.com/help/en/ecs/developer-reference/api-ecs-2014-05-26-ram"
ALI_NAS = "https://help.aliyun.com/en/cpfs/cpfsonecs/developer-reference/api-nas-2017-06-26-ram-cpfs"
ALI_OSS = "https://www.alibabacloud.com/help/en/oss/user-guide/how-oss-works-with-ram"

GRANTS: dict[str, tuple[Grant, ...]] = {
    "aws": (
        # members: the group, each member's Auto Scaling lifecycle state; then its EC2 state
        # and LaunchTime (a report written before the launch is the previous run's)
        Grant("autoscaling:DescribeAutoScalingGroups", "autoscaling:DescribeAutoScalingGroups",
              AWS_ASG),
        Grant("ec2:DescribeInstances", "ec2:DescribeInstances", AWS_EC2),
        Grant("autoscaling:UpdateAutoScalingGroup", "autoscaling:UpdateAutoScalingGroup", AWS_ASG),
        # export: the filesystem's associations (what the task can reach), then a data
        # repository task, waited for, cancelled on TERM
        Grant("fsx:DescribeDataRepositoryAssociations", "fsx:DescribeDataRepositoryAssociations",
              AWS_FSX),
        Grant("fsx:CreateDataRepositoryTask", "fsx:CreateDataRepositoryTask", AWS_FSX),
        Grant("fsx:DescribeDataRepositoryTasks", "fsx:DescribeDataRepositoryTasks", AWS_FSX),
        Grant("fsx:CancelDataRepositoryTask", "fsx:CancelDataRepositoryTask", AWS_FSX),
        # the store (s3://): reports, audit, lease
        Grant("s3:ListObjectsV2", "s3:ListBucket", AWS_S3),
        Grant("s3:HeadObject", "s3:GetObject", AWS_S3),
        Grant("s3:GetObject", "s3:GetObject", AWS_S3),
        Grant("s3:PutObject", "s3:PutObject", AWS_S3),
        Grant("s3:DeleteObject", "s3:DeleteObject", AWS_S3),
    ),
    "gcp": (
        # instanceGroupManagers.listManagedInstances: gcloud's reference names .list, the REST
        # method's IAM table .get; both are granted
        Grant("gcloud compute instance-groups managed list-instances",
              "compute.instanceGroupManagers.list", GCP_LIST_INSTANCES),
        Grant("gcloud compute instance-groups managed list-instances",
              "compute.instanceGroupManagers.get", GCP_MIG),
        # creationTimestamp / lastStartTimestamp of the members
        Grant("gcloud compute instances list", "compute.instances.list", GCP_MIG),
        Grant("gcloud compute instance-groups managed describe",
              "compute.instanceGroupManagers.get", GCP_MIG),
        Grant("gcloud compute instance-groups managed resize",
              "compute.instanceGroupManagers.update", GCP_MIG),
        # the stack's filesystem_export_command, waited for through its long-running operation
        Grant("gcloud lustre instances export-data", "lustre.instances.exportData", GCP_LUSTRE),
        Grant("gcloud lustre instances export-data", "lustre.operations.get", GCP_LUSTRE),
        # the store (gs://)
        Grant("gcs objects list", "storage.objects.list", GCP_GCS),
        Grant("gcs objects get", "storage.objects.get", GCP_GCS),
        Grant("gcs objects insert", "storage.objects.create", GCP_GCS),
        Grant("gcs objects delete", "storage.objects.delete", GCP_GCS),
    ),
    "azure": (
        # `--expand instanceView`: power and provisioning states, their times
        Grant("az vmss list-instances",
              "Microsoft.Compute/virtualMachineScaleSets/virtualMachines/read", AZ_COMPUTE),
        Grant("az vmss list-instances",
              "Microsoft.Compute/virtualMachineScaleSets/virtualMachines/instanceView/read",
              AZ_COMPUTE),
        Grant("az vmss show", "Microsoft.Compute/virtualMachineScaleSets/read", AZ_COMPUTE),
        Grant("az vmss scale", "Microsoft.Compute/virtualMachineScaleSets/write", AZ_COMPUTE),
        Grant("az amlfs archive", "Microsoft.StorageCache/amlFilesystems/Archive/action",
              AZ_CACHE),
        Grant("az amlfs show", "Microsoft.StorageCache/amlFilesystems/read", AZ_CACHE),
        Grant("az amlfs cancel-archive",
              "Microsoft.StorageCache/amlFilesystems/CancelArchive/action", AZ_CACHE),
        # the store (abfs://): data actions
        Grant("blob list", "Microsoft.Storage/storageAccounts/blobServices/containers/blobs/read",
              AZ_BLOB),
        Grant("blob get", "Microsoft.Storage/storageAccounts/blobServices/containers/blobs/read",
              AZ_BLOB),
        Grant("blob put", "Microsoft.Storage/storageAccounts/blobServices/containers/blobs/write",
              AZ_BLOB),
        Grant("blob put", "Microsoft.Storage/storageAccounts/blobServices/containers/blobs/add/action",
              AZ_BLOB),
        Grant("blob delete",
              "Microsoft.Storage/storageAccounts/blobServices/containers/blobs/delete", AZ_BLOB),
    ),
    "alicloud": (
        Grant("aliyun ecs DescribeInstances", "ecs:DescribeInstances", ALI_ECS),
        Grant("aliyun ecs StopInstances", "ecs:StopInstances", ALI_ECS),
        Grant("aliyun ecs StartInstances", "ecs:StartInstances", ALI_ECS),
        # the stack's filesystem_export_command (components/alicloud/cluster.py export_command)
        Grant("aliyun nas CreateDataFlowTask", "nas:CreateDataFlowTask", ALI_NAS),
        Grant("aliyun nas DescribeDataFlowTasks", "nas:DescribeDataFlowTasks", ALI_NAS),
        # the store (oss://)
        Grant("oss ListObjects", "oss:ListObjects", ALI_OSS),
        Grant("oss GetObject", "oss:GetObject", ALI_OSS),
        Grant("oss PutObject", "oss:PutObject", ALI_OSS),
        Grant("oss DeleteObject", "oss:DeleteObject", ALI_OSS),
    ),
}


def permissions(cloud: str) -> list[str]:
    """What the reaper's identity on `cloud` must hold, each once, in the table's order."""
    return list(dict.fromkeys(g.permission for g in GRANTS[cloud]))


def granted_for(cloud: str, call: list[str] | str) -> list[str]:
    """The permissions granted for one call: an API "service:Operation", or a CLI's argv
    (matched by its leading words). Empty: the call is not in the table."""
    if isinstance(call, str):
        return [g.permission for g in GRANTS[cloud] if g.call == call]
    return [g.permission for g in GRANTS[cloud]
            if call[:len(g.call.split())] == g.call.split()]


def policy(cloud: str) -> str:
    """The grant in the cloud's own policy form."""
    names = permissions(cloud)
    if cloud == "aws":
        return json.dumps({"Version": "2012-10-17", "Statement": [
            {"Sid": "TrainstackReaper", "Effect": "Allow", "Action": names, "Resource": "*"}]},
            indent=2)
    if cloud == "gcp":
        return "title: trainstack reaper\nincludedPermissions:\n" + "".join(
            f"- {n}\n" for n in names).rstrip("\n")
    if cloud == "azure":
        data = [n for n in names if "/blobServices/containers/blobs/" in n]
        return json.dumps({"Name": "trainstack reaper",
                           "Actions": [n for n in names if n not in data],
                           "DataActions": data, "AssignableScopes": ["/subscriptions/<id>"]},
                          indent=2)
    return json.dumps({"Version": "1", "Statement": [
        {"Effect": "Allow", "Action": names, "Resource": "*"}]}, indent=2)


TITLES = {"aws": ("AWS", "IAM policy of the role AWS_REAPER_ROLE_ARN names", "json"),
          "gcp": ("Google Cloud", "custom role of GCP_REAPER_SERVICE_ACCOUNT", "yaml"),
          "azure": ("Azure", "custom role of the application AZURE_CLIENT_ID names", "json"),
          "alicloud": ("Alibaba Cloud", "RAM policy of the role ALIBABA_REAPER_ROLE_ARN names",
                       "json")}


def document() -> str:
    """docs/reaper-identity.md."""
    out = ["# What the reaper's identities must be granted",
           "",
           "Generated from `trainstack/reap/permissions.py` (do not edit by hand; "
           "tests/reap/test_reap_permissions.py checks it). `.github/workflows/reap.yml` reaches "
           "each cloud through the identity its repository variables name. Besides what is "
           "below, `pulumi destroy` needs the read and delete permissions of every resource in "
           "the stack (those of the identity that deployed it); this is what the reaper's own "
           "calls add: the members and their launch times, the scale-down, the export and the "
           "bucket (reports, audit, lease).",
           ""]
    for cloud, (title, what, lang) in TITLES.items():
        out += [f"## {title}", "", f"The {what}:", "", f"```{lang}", policy(cloud), "```", "",
                "| call | permission | source |", "|---|---|---|"]
        out += [f"| `{g.call}` | `{g.permission}` | {g.source} |" for g in GRANTS[cloud]]
        out.append("")
    return "\n".join(out)
