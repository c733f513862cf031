"""Hand-built resources for the policy tests: one small, valid cluster per cloud, then mutations.

Azure and Alibaba Cloud have no trainstack component yet, so their clusters exist only here,
built from cloud-map's type tokens and engine (camelCase) property names. Each builder returns a
fresh list, so a test can break one property without affecting another test.
"""
from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any, Optional

from trainstack_policies.model import Resource

OWNER_TAGS = {"owner": "alice", "team": "ml", "cost-center": "1234"}
# The same owner as Google Cloud labels (no "-" in a label key the policies read).
OWNER_LABELS = {"owner": "alice", "team": "ml", "cost_center": "1234"}
RETAIN = "trainstack:retain"
# A budget's alert recipients (spend-limit counts a budget as the alarm only when it notifies
# someone): an AWS notification with an e-mail subscriber, GCP threshold rules (e-mailed to the
# billing account's administrators by default), an Azure notification with a contact e-mail.
AWS_ALERTS = [{"comparisonOperator": "GREATER_THAN", "threshold": 80.0,
               "thresholdType": "PERCENTAGE", "notificationType": "ACTUAL",
               "subscriberEmailAddresses": ["ml-platform@example.com"]}]
GCP_ALERTS = [{"thresholdPercent": 0.8, "spendBasis": "CURRENT_SPEND"}]
AZURE_ALERTS = {"actual80": {"enabled": True, "operator": "GreaterThan", "threshold": 80.0,
                             "contactEmails": ["ml-platform@example.com"]}}


def res(type_: str, name: str, props: Optional[dict] = None, deps: Optional[dict] = None,
        retain: Optional[bool] = None, provider_region: Optional[str] = None) -> Resource:
    return Resource(type=type_, name=name, urn=f"urn:pulumi:test::trainstack::{type_}::{name}",
                    props=dict(props or {}), deps=dict(deps or {}), retain=retain,
                    provider_region=provider_region)


def by_name(resources: list[Resource], name: str) -> Resource:
    return next(r for r in resources if r.name == name)


# ----------------------------------------------------------------------------------------- AWS

def aws_cluster(nodes: int = 2, zone: str = "us-east-1a", fs_zone: Optional[str] = None,
                bucket_region: str = "us-east-1", budget_usd: str = "20000.00",
                max_hours: Optional[str] = "96") -> list[Resource]:
    tags = {**OWNER_TAGS, **({"trainstack:max-hours": max_hours} if max_hours else {})}
    subnet = res("aws:ec2/subnet:Subnet", "nodes-subnet",
                 {"availabilityZone": zone, "region": "us-east-1", "tags": tags})
    fs_subnet = subnet if fs_zone is None else res(
        "aws:ec2/subnet:Subnet", "fs-subnet", {"availabilityZone": fs_zone,
                                               "region": "us-east-1", "tags": tags})
    pg = res("aws:ec2/placementGroup:PlacementGroup", "pg",
             {"strategy": "cluster", "region": "us-east-1", "tags": tags})
    nics = [{"networkCardIndex": 0.0, "deviceIndex": 0.0, "interfaceType": "interface",
             "associatePublicIpAddress": "false"}]
    nics += [{"networkCardIndex": float(c), "deviceIndex": 0.0 if c else 1.0,
              "interfaceType": "efa-only", "associatePublicIpAddress": "false"}
             for c in range(32)]
    lt = res("aws:ec2/launchTemplate:LaunchTemplate", "lt",
             {"instanceType": "p5.48xlarge", "networkInterfaces": nics, "region": "us-east-1",
              "tags": tags})
    asg = res("aws:autoscaling/group:Group", "nodes",
              {"minSize": float(nodes), "maxSize": float(nodes), "desiredCapacity": float(nodes),
               "placementGroup": "pg", "region": "us-east-1",
               "tags": [{"key": k, "value": v, "propagateAtLaunch": True}
                        for k, v in tags.items()]},
              deps={"launchTemplate": [lt], "vpcZoneIdentifiers": [subnet],
                    "placementGroup": [pg]})
    fs = res("aws:fsx/lustreFileSystem:LustreFileSystem", "fs",
             {"subnetIds": "subnet-0abc", "storageCapacity": 4800.0,
              "perUnitStorageThroughput": 250.0, "region": "us-east-1", "tags": tags},
             deps={"subnetIds": [fs_subnet]})
    bucket = res("aws:s3/bucket:Bucket", "data",
                 {"forceDestroy": False, "region": bucket_region,
                  "tags": {**tags, RETAIN: "true"}}, retain=True)
    sse = res("aws:s3/bucketServerSideEncryptionConfiguration:"
              "BucketServerSideEncryptionConfiguration", "data-encryption",
              {"bucket": "data-id", "rules": [{"applyServerSideEncryptionByDefault":
                                               {"sseAlgorithm": "aws:kms"}}]},
              deps={"bucket": [bucket]})
    budget = res("aws:budgets/budget:Budget", "budget",
                 {"budgetType": "COST", "timeUnit": "MONTHLY", "limitAmount": budget_usd,
                  "limitUnit": "USD", "notifications": AWS_ALERTS, "tags": tags})
    ssh = res("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule", "ssh",
              {"cidrIpv4": "203.0.113.0/24", "ipProtocol": "tcp", "fromPort": 22.0,
               "toPort": 22.0, "tags": tags})
    # The nodes' user data is built from the FSx's DNS and mount names and the bucket's name, as
    # components/aws/cluster.py builds it: the engine records both as its dependencies.
    lt.props["userData"] = "I2Nsb3VkLWNvbmZpZw=="
    lt.deps["userData"] = [fs, bucket]
    out = [subnet, pg, lt, asg, fs, bucket, sse, budget, ssh]
    if max_hours:   # what enforces the lifetime: a schedule that scales the group to 0
        out.append(stop_schedule(asg, float(max_hours)))
    return out + ([fs_subnet] if fs_subnet is not subnet else [])


def hours_from_now(hours: float) -> str:
    """An ISO-8601 UTC time `hours` from now: stop times are priced as hours until them."""
    when = datetime.now(timezone.utc) + timedelta(hours=hours)
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


def month_first(months: int) -> datetime:
    """00:00 UTC on the first of the month `months` after this one, read when called: a budget
    period written with a fixed date "after now" starts before now once the calendar passes it."""
    now = datetime.now(timezone.utc)
    year, month = divmod(now.year * 12 + now.month - 1 + months, 12)
    return datetime(year, month + 1, 1, tzinfo=timezone.utc)


def stop_schedule(asg: Resource, hours: float = 96) -> Resource:
    return res("aws:autoscaling/schedule:Schedule", f"{asg.name}-stop",
               {"autoscalingGroupName": "nodes-asg-name", "desiredCapacity": 0.0, "minSize": 0.0,
                "maxSize": 0.0, "scheduledActionName": "stop",
                "startTime": hours_from_now(hours)},
               deps={"autoscalingGroupName": [asg]})


# ----------------------------------------------------------------------------------------- GCP

# Its budget covers its estimate, the filesystem priced for the whole month (it bills until
# destroy: docs/billing-after-stop.md): 2 x a3-ultragpu-8g 86.7599 USD/h (prices.csv us-west1)
# x 96 h (maxRunDuration) = 16,657.90; Managed Lustre 36,000 GiB x 0.21 USD/GiB-month
# (filesystem_prices.csv managed_lustre_250) = 7,560.00; the bucket at the filesystem's size,
# 36,000 GiB = 38,654.71 GB x 0.02 USD/GB-month (storage_prices.csv gcs_standard_regional
# us-west1) = 773.09; total 24,990.99, under 30,000 (20,000 would be over).
def gcp_cluster(zone: str = "us-west1-c", fs_location: Optional[str] = None,
                bucket_location: str = "US-WEST1", budget_units: str = "30000",
                max_hours: Optional[str] = "96") -> list[Resource]:
    labels = {"owner": "alice", "team": "ml", "cost_center": "1234",
              **({"trainstack_max-hours": max_hours} if max_hours else {})}
    policy = res("gcp:compute/resourcePolicy:ResourcePolicy", "placement",
                 {"region": "us-west1", "groupPlacementPolicy": {"collocation": "COLLOCATED",
                                                                 "vmCount": 2.0}})
    nics = [{"nicType": "GVNIC"}, {"nicType": "GVNIC"}] + [{"nicType": "MRDMA"}] * 8
    template = res("gcp:compute/instanceTemplate:InstanceTemplate", "template",
                   {"machineType": "a3-ultragpu-8g", "networkInterfaces": nics,
                    "resourcePolicies": "placement-id", "labels": labels,
                    "scheduling": {"provisioningModel": "STANDARD", **(
                        {"maxRunDuration": {"seconds": float(max_hours) * 3600},
                         "instanceTerminationAction": "DELETE"} if max_hours else {})}},
                   deps={"resourcePolicies": [policy]})
    igm = res("gcp:compute/instanceGroupManager:InstanceGroupManager", "nodes",
              {"zone": zone, "targetSize": 2.0, "baseInstanceName": "node",
               "versions": [{"instanceTemplate": "template-id"}]},
              deps={"versions": [template]})
    lustre = res("gcp:lustre/instance:Instance", "fs",
                 {"location": fs_location or zone, "capacityGib": "36000",
                  "perUnitStorageThroughput": "250", "labels": labels})
    bucket = res("gcp:storage/bucket:Bucket", "data",
                 {"location": bucket_location, "forceDestroy": False,
                  "labels": {**labels, "trainstack_retain": "true"}}, retain=True)
    budget = res("gcp:billing/budget:Budget", "budget",
                 {"amount": {"specifiedAmount": {"currencyCode": "USD", "units": budget_units}},
                  "thresholdRules": GCP_ALERTS})
    # The startup script names the Lustre mount point and the bucket (components/gcp/cluster.py).
    template.props["metadata"] = {"startup-script": "#!/bin/bash"}
    template.deps["metadata"] = [lustre, bucket]
    firewall = res("gcp:compute/firewall:Firewall", "internal",
                   {"direction": "INGRESS", "sourceRanges": ["10.0.0.0/16"],
                    "allows": [{"protocol": "all"}]})
    # The deadline: a Cloud Scheduler job resizes the group to 0 (components/gcp/lifetime.py);
    # the template's maxRunDuration alone does not stop a group that keeps its target size.
    stop = [gcp_stop_job(igm, float(max_hours))] if max_hours else []
    return [policy, template, igm, lustre, bucket, budget, firewall] + stop


# --------------------------------------------------------------------------------------- Azure

# Its budget covers its estimate, the filesystem priced for the whole month (it bills until
# destroy: docs/billing-after-stop.md): 2 x Standard_ND96isr_H100_v5 98.32 USD/h (prices.csv
# eastus) x 96 h (the autoscale stop) = 18,877.44; AMLFS 8 TiB = 8,192 GiB x at most 0.000373
# USD/GiB-h (storage_prices.csv managed_lustre_durable_premium_250, its dearest region) x 730 =
# 2,230.60; the account at the filesystem's size, 8,192 GiB = 8,796.09 GB x at most 0.02024
# USD/GB-month (blob_hot_lrs_data_stored, its dearest region) = 178.03; total at most
# 21,286.07, under 25,000 (the example's budget; 20,000 would be over).
def azure_cluster(zone: str = "1", fs_zone: Optional[str] = None,
                  account_location: str = "eastus", budget_amount: float = 25000.0,
                  max_hours: Optional[str] = "96") -> list[Resource]:
    tags = {**OWNER_TAGS, **({"trainstack:max-hours": max_hours} if max_hours else {})}
    vmss = res("azure-native:compute:VirtualMachineScaleSet", "nodes",
               {"location": "eastus", "zones": [zone], "singlePlacementGroup": True,
                "sku": {"name": "Standard_ND96isr_H100_v5", "capacity": 2.0, "tier": "Standard"},
                "virtualMachineProfile": {"priority": "Regular", "networkProfile": {
                    "networkInterfaceConfigurations": [{"name": "nic", "primary": True,
                                                        "ipConfigurations": [{"name": "ip"}]}]}},
                "tags": tags})
    amlfs = res("azure-native:storagecache:AmlFilesystem", "fs",
                {"location": "eastus", "zones": [fs_zone or zone], "storageCapacityTiB": 8.0,
                 "sku": {"name": "AMLFS-Durable-Premium-250"}, "filesystemSubnet": "subnet-id",
                 "tags": tags})
    account = res("azure-native:storage:StorageAccount", "data",
                  {"location": account_location, "kind": "StorageV2",
                   "sku": {"name": "Standard_LRS"}, "tags": {**tags, RETAIN: "true"}},
                  retain=True)
    budget = res("azure-native:consumption:Budget", "budget",
                 {"amount": budget_amount, "category": "Cost", "timeGrain": "Monthly",
                  "scope": "/subscriptions/s", "notifications": AZURE_ALERTS})
    nsg = res("azure-native:network:NetworkSecurityGroup", "nsg",
              {"location": "eastus", "tags": tags, "securityRules": [
                  {"name": "vnet", "access": "Allow", "direction": "Inbound", "priority": 100.0,
                   "protocol": "*", "sourceAddressPrefix": "VirtualNetwork",
                   "destinationPortRange": "*"}]})
    # The custom data names the filesystem's MGS address and the account's container
    # (components/azure/cluster.py).
    vmss.deps["virtualMachineProfile"] = [amlfs, account]
    out = [vmss, amlfs, account, budget, nsg]
    if max_hours:   # a scheduled scale-in to 0 enforces the lifetime
        out.append(res("azure-native:monitor:AutoscaleSetting", "stop", {
            "enabled": True, "targetResourceUri": "vmss-id", "location": "eastus", "profiles": [
                {"name": "stop", "capacity": {"minimum": "0", "maximum": "0", "default": "0"},
                 "rules": [], "fixedDate": {"start": hours_from_now(float(max_hours)),
                                            "end": "2037-12-31T00:00:00Z"}}]},
            deps={"targetResourceUri": [vmss]}))
    return out


# ------------------------------------------------------------------------------ Alibaba Cloud

def alicloud_cluster(zone: str = "eu-central-1a", fs_zone: Optional[str] = None,
                     bucket_region: Optional[str] = "eu-central-1",
                     auto_release: Optional[str] = "96h",
                     instance_type: str = "ecs.gn8v-8x.48xlarge") -> list[Resource]:
    tags = dict(OWNER_TAGS)
    if auto_release and auto_release.endswith("h"):
        auto_release = hours_from_now(float(auto_release[:-1]))
    switch = res("alicloud:vpc/switch:Switch", "vsw", {"zoneId": zone, "tags": tags},
                 provider_region="eu-central-1")
    dset = res("alicloud:ecs/ecsDeploymentSet:EcsDeploymentSet", "dset",
               {"strategy": "LowLatency"})
    nodes = [res("alicloud:ecs/instance:Instance", f"node-{i}",
                 {"instanceType": instance_type, "vswitchId": "vsw-id",
                  "deploymentSetId": "dset-id", "networkInterfaceTrafficMode": "HighPerformance",
                  "internetMaxBandwidthOut": 0.0, "tags": tags,
                  **({"autoReleaseTime": auto_release} if auto_release else {})},
                 deps={"vswitchId": [switch], "deploymentSetId": [dset]},
                 provider_region="eu-central-1") for i in range(2)]
    cpfs = res("alicloud:nas/fileSystem:FileSystem", "fs",
               {"fileSystemType": "cpfs", "protocolType": "cpfs", "storageType": "advance_200",
                "capacity": 3600.0, "zoneId": fs_zone or zone, "encryptType": 1.0,
                "tags": tags}, provider_region="eu-central-1")
    bucket = res("alicloud:oss/bucket:Bucket", "data",
                 {"forceDestroy": False, "serverSideEncryptionRule": {"sseAlgorithm": "KMS"},
                  "tags": {**tags, RETAIN: "true"}}, retain=True, provider_region=bucket_region)
    for node in nodes:   # the user data names the CPFS export and the bucket
        node.props["userData"] = "I2Nsb3VkLWNvbmZpZw=="
        node.deps["userData"] = [cpfs, bucket]
    return [switch, dset, *nodes, cpfs, bucket]


CLUSTERS = {"aws": aws_cluster, "gcp": gcp_cluster, "azure": azure_cluster,
            "alicloud": alicloud_cluster}


def find(resources: list[Resource], type_suffix: str) -> Resource:
    return next(r for r in resources if r.type.endswith(type_suffix))


def set_prop(resource: Resource, path: str, value: Any) -> None:
    target = resource.props
    parts = path.split(".")
    for part in parts[:-1]:
        target = target.setdefault(part, {})
    target[parts[-1]] = value


def cron_at(hours: float) -> str:
    """Cloud Scheduler cron ("M H D Mon *", Etc/UTC) for the first whole minute at or after
    `hours` from now: a fixed date, as trainstack's GCP lifetime job writes it."""
    at = datetime.now(timezone.utc) + timedelta(hours=hours)
    whole = at.replace(second=0, microsecond=0)
    at = whole if whole == at else whole + timedelta(minutes=1)
    return f"{at.minute} {at.hour} {at.day} {at.month} *"


def gcp_stop_job(igm: Resource, hours: float = 96, group: str = "nodes-1a2b3c4",
                 size: int = 0, zone: str = "us-west1-c", name: str = "nodes-lifetime-end",
                 depends: bool = True) -> Resource:
    """A Cloud Scheduler job that resizes the instance group to `size` (0: the stop) at a fixed
    date `hours` from now (components/gcp/lifetime.py's job: POST to the Compute API's
    instanceGroupManagers.resize, with an OAuth token, in Etc/UTC). `group` is the group's
    cloud name in the URI; `depends`: the URI is an Output of the group (a dependency)."""
    uri = (f"https://compute.googleapis.com/compute/v1/projects/ml-prod/zones/{zone}/"
           f"instanceGroupManagers/{group}/resize?size={size}")
    return res("gcp:cloudscheduler/job:Job", name,
               {"region": "us-west1", "schedule": cron_at(hours), "timeZone": "Etc/UTC",
                "attemptDeadline": "180s",
                "httpTarget": {"uri": uri, "httpMethod": "POST",
                               "oauthToken": {"serviceAccountEmail":
                                              "nodes-end@ml-prod.iam.gserviceaccount.com"}}},
               deps={"httpTarget": [igm]} if depends else {})
