"""Issue 35, a BLIND hostile review (helper review60) of the CrossGuard pack over gRPC, driven as
`pulumi preview --policy-pack policies` drives it (tests/policy_harness.py). Focus: FALSE ALARMS on
realistic, correct stacks, written as an ordinary Pulumi program reaches a first preview: ids,
ARNs, key ARNs, topic ARNs, auto-named resources' names and everything built from them unknown;
zones, regions from config and literal sizes known. The pack's code was not read: every verdict
comes from docs/policies.md and the catalog CSVs, and each batch's expectations were committed
before its first run.

RESULTS (agreed / cases on each batch's first run; 119 cases, 108 pass, 11 strict xfails):
  batch 1: 26/27. a03 MY mistake (the whole AWS `notifications` list unknown may be empty: the
    documented cannot decide; "an AWS notification unknown as a whole" is one entry, a11).
  batch 2: 18/20. z10 MY mistake (the NAT rule's frontendIPConfiguration id depends on the
    balancer: tied by dependency, internal, passes). g12 is DEFECT 1.
  batch 3: 12/17 (+ d1a, DEFECT 1's harm, written as a reach probe). d1c, d1e MY mistakes on
    storage-same-zone (a regional MIG naming no zone is the documented "zone cannot be read"; an
    unknown location is asked where the cloud has a mountable filesystem). d1b, d1f: DEFECT 1.
  batch 4: 7/14 (+ d1g, d1i reach probes). d1i, d1j, g15-g17 MY mistake (one misreading: rdma's
    scope is "GPU capacity of more than one node in total", so a lone VM beside the 2-node cluster
    is asked); d1k MY mistake on ssz as d1e.
  batch 5: 11/15. a29 MY builder mistake (an unused public subnet is not exempt), a32 MY mistake
    (an ASG must name subnets or zones), b08 MY mistake (EipAssociation defaults to EcsInstance;
    a NAT needs instanceType Nat). a28, a29: DEFECT 2.
  batch 6: 4/6 (e01, e05 DEFECT 2). batch 7: 2/3 (f03 DEFECT 2). batch 8: 12/12. batch 9: 5/5.

DEFECT 1 (priced below the truth; spend-limit). Smallest: g12 = the GCP cluster with the MIG's
  `zone` unknown at preview (another resource's output), the provider's region us-west1 known.
  Docs (spend-limit, Sizes): "a group no known input places in a region, whose own `region`,
  provider's `region` (Azure `location`) or, on GCP, zone is unknown, is GPU capacity that cannot
  be priced ... on every cloud alike". The pack prices it at the provider's region and passes (it
  accepts the stop job too, whose URL names us-west1-c). Harm (d1a): a3-highgpu-8g priced at
  us-west1 (88.49) gives 25,500.15 < 26,000 although the zone may be asia-northeast1 (126.643,
  32,901.83). Reach: a single GCP VM (d1b), a regional MIG whose own `region` is unknown (d1g),
  an AWS ASG (d1f) and EC2 instance (d1i) whose own pulumi-aws v7 `region` is unknown. Not
  reached: an azure-native scale set's unknown `location` (z13) and a GKE pool's (d1e) fail
  closed, as does a MIG whose provider names no region (d1d) and a classic Azure set (d1k).
DEFECT 2 (false "cannot decide"; no-public-ingress). Smallest: e01 = the AWS cluster plus one
  unused edge subnet (`kubernetes.io/role/elb: "1"`, mapPublicIpOnLaunch); a28 is the everyday
  form: a public subnet only a NAT gateway uses. The launch template, whose EFA interfaces name
  no subnet (only their `securityGroups` are unknown, by dependency on the security group), is
  reported "cannot decide: train-lt: .networkInterfaces (a subnet unknown at preview may be the
  public subnet public-a)", though the ASG names its private subnet of the stack. Docs (no-public-
  ingress): "An unknown is only asked about where it could hide a violation"; a group is placed
  by its own `vpcZoneIdentifiers` (the template's interfaces only where it names none). Harm
  (e05): under `cannotDecide: mandatory` it is a mandatory violation that stops the preview of a
  correct stack. Reach: an internal ALB stack (a29), beside a classic instance (f03). Not
  reached: literal interface SGs (e02), interfaces naming the private subnet by dependency (e03),
  a template without interfaces (e04), an aws-native template and group (f02), the plain cluster
  (e06).

Controls that agree (selection): the four realistic clusters with every id, ARN and auto-name
  unknown (a01, g01, z01, b01); unknown SNS / e-mail / Pub/Sub / channel / action-group
  subscribers still notify (a04, a11, a12, g02, g03, z03); unknown provider default tags are
  cannot decide only where a resource lacks a tag (a13/a14, g08/g09); GKE labels from the
  cluster's resourceLabels (g04, i04) and set twice (i05); split ingress halves on one group /
  two groups / standalone NSG rules (a15-a17, z18, z19); NAT rules tied by dependency or literal
  name (z07, z08), untied (z14), public (z09); classic balancers internal / public (z11, z12);
  FSx on a stack-reference subnet (a18); reservations and blocks counted once on four clouds
  (a21, a22, g13, g14, z15, b05); stops in ordinary use: Scheduler at(), maxRunDuration,
  instance schedule, classic autoscale (a24, g15, g16, z16) and their nearest mistakes (a25,
  g17, z17, z04, z05); one-object overrides / accelerators / EKS types as a string (a26, g10,
  a27); budget filters and periods (h01-h12); NAT-only subnet EIPs on Alibaba, SLB, GCP ILB.

Planted bugs (then reverted): aws() placing the FSx on the nodes' subnet whatever `fs_zone`
  says: a07 failed, every other case passed; _aws_split() putting every rule on the first group:
  a17 failed, every other case passed.

Fixed since (fix61): DEFECT 2 (a28, a29, e01, e05, f03): their xfail marks are gone.

Each case states the verdict of EVERY policy (those not named stay "pass"): "fail", "advisory",
"undecided" ("cannot decide") or "pass"; its `why` is the hand calculation.

The four realistic clusters (my own builders):
  AWS us-east-1a (provider region and defaultTags from config, known): VPC, subnet (literal AZ,
    its id unknown), cluster placement group (auto-named), KMS key, SNS topic; ASG of 2
    p5.48xlarge (55.04 USD/h, prices.csv us-east-1; 32 EFA cards) whose subnet, template id and
    placement group name are unknown with the dependencies behind them; launch template with 32
    EFA interfaces (no associatePublicIpAddress: the subnet is private) and an EBS root encrypted
    with the stack's key (ARN unknown); FSx PERSISTENT_2 250 4,800 GB on the subnet (subnet, SG,
    key unknown); an auto-named bucket with an SSE-KMS configuration, a data repository
    association whose path is built from the bucket's name (unknown); a Schedule to 0 in 96 h
    whose group name is the ASG's output (unknown, by dependency); a 20,000 USD budget whose
    notification's subscriber is the stack's SNS topic (ARN unknown).
    Estimate: 2 x 55.04 x 96 = 10,567.68 + FSx 4,800 x 0.28211 = 1,354.13 + bucket at the
    filesystem's size 4,800 GB x 0.023 = 110.40 -> 12,032.21 < 20,000.
  GCP us-west1-c (provider project/region/zone/defaultLabels known): network, subnetwork, COLLOCATED
    policy; template a3-ultragpu-8g (86.7599 USD/h) with 2 gVNIC + 8 MRDMA NICs on the stack's
    network (self links unknown), resourcePolicies [unknown], startup script built from the Lustre
    and bucket (unknown); MIG `train-mig` (explicit name) of 2; Cloud Scheduler resize-to-0 by a
    literal URL, oauthToken of the stack's service account (email unknown); Managed Lustre 36,000
    GiB 250 (0.21); auto-named bucket US-WEST1; budget 30,000 filtered to the project by number,
    threshold rules. Estimate: 2 x 86.7599 x 97 (the cron is 96 h + 1 min away, whole hours up)
    = 16,831.42 + 7,560.00 + 38,654.71 GB x 0.02 = 773.09 -> 25,164.51 < 30,000.
  Azure eastus zone 1 (provider location and subscriptionId known): auto-named resource group
    (its name unknown everywhere), VNet, subnet, NSG; AMLFS Durable Premium 250 8 TiB zone 1;
    retained storage account; scale set of 2 Standard_ND96isr_H100_v5 (98.32 USD/h), single
    placement group, customData built from the AMLFS; AutoscaleSetting enabled with a default
    profile of 2 and a fixed-date profile of 0 from 96 h to 2037 (a window past the month stops
    the set whatever follows); budget 25,000 whose scope is the resource group's id (unknown).
    Estimate: 2 x 98.32 x 96 = 18,877.44 + AMLFS 8,192 GiB x at most 0.000373 x 730 = 2,230.60
    + account 8,796.09 GB x at most 0.02024 = 178.03 -> <= 21,286.07 < 25,000.
  Alibaba eu-central-1a: VPC, vSwitch (literal zone, id unknown), LowLatency deployment set (id
    unknown), 2 ecs.gn8v-8x.48xlarge ecs.Instance nodes (58.2708 USD/h, erdma) HighPerformance,
    autoReleaseTime in 96 h; CPFS zoneId literal, vswitchId unknown; OSS bucket with KMS SSE.
"""
from __future__ import annotations

from datetime import datetime, timezone
from typing import Any, Optional

import pytest

from tests.policy_fixtures import AWS_ALERTS, GCP_ALERTS, hours_from_now, res
from tests.policy_harness import PolicyPackProcess, run, verdict

SSZ, SPEND, TAGS_P, RDMA = "storage-same-zone", "spend-limit", "required-tags", "rdma-for-multinode"
NPI, ENC, RET = "no-public-ingress", "encryption-at-rest", "bucket-retained"
POLICIES = (SSZ, SPEND, TAGS_P, RDMA, NPI, ENC, RET)
TAGS = {"owner": "carol", "team": "vision", "cost-center": "5150"}
LABELS = {"owner": "carol", "team": "vision", "cost_center": "5150"}
SUB = "11111111-2222-3333-4444-555555555555"


def unknown() -> Any:
    from trainstack_policies.model import UNKNOWN
    return UNKNOWN


U = unknown


def named(stack: list, name: str):
    return next(r for r in stack if r.name == name)


def gcp_cron(hours: float) -> str:
    from datetime import timedelta
    at = datetime.now(timezone.utc) + timedelta(hours=hours, minutes=1)
    return f"{at.minute} {at.hour} {at.day} {at.month} *"


def month_start() -> str:
    now = datetime.now(timezone.utc)
    return f"{now.year:04d}-{now.month:02d}-01T00:00:00Z"


# ----------------------------------------------------------------------------------- builders

def aws(zone: str = "us-east-1a", fs_zone: Optional[str] = None, budget: Any = "20000",
        pg_strategy: Any = "cluster", notifications: Any = "sns") -> list:
    vpc = res("aws:ec2/vpc:Vpc", "train-vpc", {"cidrBlock": "10.0.0.0/16",
                                               "enableDnsHostnames": True})
    sub = res("aws:ec2/subnet:Subnet", "train-a",
              {"availabilityZone": zone, "vpcId": U(), "cidrBlock": "10.0.1.0/24"},
              deps={"vpcId": [vpc]})
    fs_sub = sub
    out = [vpc, sub]
    if fs_zone:
        fs_sub = res("aws:ec2/subnet:Subnet", "train-fs",
                     {"availabilityZone": fs_zone, "vpcId": U(), "cidrBlock": "10.0.2.0/24"},
                     deps={"vpcId": [vpc]})
        out.append(fs_sub)
    pg = res("aws:ec2/placementGroup:PlacementGroup", "train-pg", {"strategy": pg_strategy})
    key = res("aws:kms/key:Key", "data-key", {"description": "training data",
                                              "enableKeyRotation": True})
    topic = res("aws:sns/topic:Topic", "budget-alerts", {})
    sg = res("aws:ec2/securityGroup:SecurityGroup", "train-sg",
             {"vpcId": U(), "description": "training nodes",
              "egress": [{"protocol": "-1", "fromPort": 0.0, "toPort": 0.0,
                          "cidrBlocks": ["0.0.0.0/0"]}]},
             deps={"vpcId": [vpc]})
    intra = res("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule", "intra",
                {"securityGroupId": U(), "referencedSecurityGroupId": U(), "ipProtocol": "-1"},
                deps={"securityGroupId": [sg], "referencedSecurityGroupId": [sg]})
    ssh = res("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule", "ssh-vpc",
              {"securityGroupId": U(), "cidrIpv4": "10.0.0.0/16", "ipProtocol": "tcp",
               "fromPort": 22.0, "toPort": 22.0}, deps={"securityGroupId": [sg]})
    bucket = res("aws:s3/bucketV2:BucketV2", "datasets",
                 {"forceDestroy": False, "tags": {"trainstack:retain": "true"}}, retain=True)
    sse = res("aws:s3/bucketServerSideEncryptionConfigurationV2:"
              "BucketServerSideEncryptionConfigurationV2", "datasets-sse",
              {"bucket": U(), "rules": [{"applyServerSideEncryptionByDefault": {
                  "sseAlgorithm": "aws:kms", "kmsMasterKeyId": U()}, "bucketKeyEnabled": True}]},
              deps={"bucket": [bucket], "rules": [key]})
    fs = res("aws:fsx/lustreFileSystem:LustreFileSystem", "scratch",
             {"subnetIds": [U()], "securityGroupIds": [U()], "storageCapacity": 4800.0,
              "deploymentType": "PERSISTENT_2", "perUnitStorageThroughput": 250.0,
              "kmsKeyId": U(), "dataCompressionType": "LZ4"},
             deps={"subnetIds": [fs_sub], "securityGroupIds": [sg], "kmsKeyId": [key]})
    dra = res("aws:fsx/dataRepositoryAssociation:DataRepositoryAssociation", "scratch-s3",
              {"fileSystemId": U(), "fileSystemPath": "/data", "dataRepositoryPath": U(),
               "batchImportMetaDataOnCreate": True},
              deps={"fileSystemId": [fs], "dataRepositoryPath": [bucket]})
    nics = [{"networkCardIndex": float(c), "deviceIndex": 0.0 if c == 0 else 1.0,
             "interfaceType": "efa", "securityGroups": [U()], "deleteOnTermination": "true"}
            for c in range(32)]
    lt = res("aws:ec2/launchTemplate:LaunchTemplate", "train-lt",
             {"instanceType": "p5.48xlarge", "imageId": "ami-0123456789abcdef0",
              "networkInterfaces": nics, "userData": U(),
              "iamInstanceProfile": {"arn": U()},
              "metadataOptions": {"httpTokens": "required"},
              "blockDeviceMappings": [{"deviceName": "/dev/xvda", "ebs": {
                  "volumeSize": 500.0, "volumeType": "gp3", "encrypted": "true", "kmsKeyId": U()}}],
              "tagSpecifications": [{"resourceType": "instance", "tags": dict(TAGS)},
                                    {"resourceType": "volume", "tags": dict(TAGS)}]},
             deps={"userData": [fs, bucket], "networkInterfaces": [sg],
                   "blockDeviceMappings": [key]})
    asg = res("aws:autoscaling/group:Group", "train-nodes",
              {"minSize": 0.0, "maxSize": 2.0, "desiredCapacity": 2.0,
               "placementGroup": U(), "vpcZoneIdentifiers": [U()],
               "launchTemplate": {"id": U(), "version": "$Latest"},
               "healthCheckType": "EC2",
               "tags": [{"key": k, "value": v, "propagateAtLaunch": True} for k, v in TAGS.items()]},
              deps={"launchTemplate": [lt], "vpcZoneIdentifiers": [sub], "placementGroup": [pg]})
    stop = res("aws:autoscaling/schedule:Schedule", "train-stop",
               {"autoscalingGroupName": U(), "scheduledActionName": "stop",
                "minSize": 0.0, "maxSize": 0.0, "desiredCapacity": 0.0,
                "startTime": hours_from_now(96)},
               deps={"autoscalingGroupName": [asg]})
    bud_deps: dict = {}
    if notifications == "sns":
        notes: Any = [{"comparisonOperator": "GREATER_THAN", "threshold": 80.0,
                       "thresholdType": "PERCENTAGE", "notificationType": "ACTUAL",
                       "subscriberSnsTopicArns": [U()]}]
        bud_deps = {"notifications": [topic]}
    else:
        notes = notifications
    bud = res("aws:budgets/budget:Budget", "train-budget",
              {"budgetType": "COST", "timeUnit": "MONTHLY", "limitAmount": budget,
               "limitUnit": "USD", "notifications": notes}, deps=bud_deps)
    return out + [pg, key, topic, sg, intra, ssh, bucket, sse, fs, dra, lt, asg, stop, bud]


AWS_P = {"region": "us-east-1", "defaultTags": {"tags": dict(TAGS)}}


def gcp(zone: str = "us-west1-c", fs_zone: Optional[str] = None, budget: Any = "30000",
        collocation: Any = "COLLOCATED", job_group: str = "train-mig", mig_name: Any = "train-mig",
        alerts: Optional[dict] = None) -> list:
    net = res("gcp:compute/network:Network", "train-net", {"autoCreateSubnetworks": False})
    subnet = res("gcp:compute/subnetwork:Subnetwork", "train-subnet",
                 {"ipCidrRange": "10.10.0.0/16", "region": "us-west1", "network": U(),
                  "privateIpGoogleAccess": True}, deps={"network": [net]})
    pol = res("gcp:compute/resourcePolicy:ResourcePolicy", "compact",
              {"region": "us-west1", "groupPlacementPolicy": {"collocation": collocation,
                                                              "vmCount": 2.0}})
    sa = res("gcp:serviceaccount/account:Account", "scheduler-sa",
             {"accountId": "train-scheduler", "displayName": "stops the training group"})
    lustre = res("gcp:lustre/instance:Instance", "scratch",
                 {"location": fs_zone or zone, "capacityGib": "36000", "instanceId": "scratch",
                  "filesystem": "scratch", "perUnitStorageThroughput": "250", "network": U()},
                 deps={"network": [net]})
    bucket = res("gcp:storage/bucket:Bucket", "datasets",
                 {"location": "US-WEST1", "forceDestroy": False, "uniformBucketLevelAccess": True,
                  "labels": {"trainstack_retain": "true"}}, retain=True)
    nics = ([{"network": U(), "subnetwork": U(), "nicType": "GVNIC"}] * 2
            + [{"network": U(), "subnetwork": U(), "nicType": "MRDMA"}] * 8)
    tpl = res("gcp:compute/instanceTemplate:InstanceTemplate", "train-tpl",
              {"machineType": "a3-ultragpu-8g", "networkInterfaces": nics,
               "resourcePolicies": [U()],
               "disks": [{"sourceImage": "projects/ml-images/global/images/family/train",
                          "boot": True, "diskSizeGb": 500.0, "diskType": "hyperdisk-balanced"}],
               "scheduling": {"provisioningModel": "STANDARD", "onHostMaintenance": "TERMINATE",
                              "automaticRestart": True},
               "metadata": {"startup-script": U()},
               "serviceAccount": {"email": U(), "scopes": ["cloud-platform"]}},
              deps={"resourcePolicies": [pol], "metadata": [lustre, bucket],
                    "networkInterfaces": [net, subnet], "serviceAccount": [sa]})
    mig_props = {"zone": zone, "targetSize": 2.0, "baseInstanceName": "train",
                 "versions": [{"instanceTemplate": U(), "name": "primary"}]}
    if mig_name is not None:
        mig_props["name"] = mig_name
    mig = res("gcp:compute/instanceGroupManager:InstanceGroupManager", "train-mig", mig_props,
              deps={"versions": [tpl]})
    bud = res("gcp:billing/budget:Budget", "train-budget",
              {"billingAccount": "000000-000000-000000", "displayName": "training",
               "amount": {"specifiedAmount": {"currencyCode": "USD", "units": budget}},
               "budgetFilter": {"projects": ["projects/123456789012"],
                                "calendarPeriod": "MONTH"},
               **(alerts if alerts is not None else {"thresholdRules": GCP_ALERTS})})
    fw = res("gcp:compute/firewall:Firewall", "intra",
             {"network": U(), "direction": "INGRESS", "sourceRanges": ["10.10.0.0/16"],
              "allows": [{"protocol": "all"}]}, deps={"network": [net]})
    iap = res("gcp:compute/firewall:Firewall", "iap-ssh",
              {"network": U(), "direction": "INGRESS", "sourceRanges": ["35.235.240.0/20"],
               "allows": [{"protocol": "tcp", "ports": ["22"]}]}, deps={"network": [net]})
    uri = (f"https://compute.googleapis.com/compute/v1/projects/ml/zones/{zone}/"
           f"instanceGroupManagers/{job_group}/resize?size=0")
    job = res("gcp:cloudscheduler/job:Job", "train-stop",
              {"region": "us-west1", "schedule": gcp_cron(96), "timeZone": "Etc/UTC",
               "httpTarget": {"uri": uri, "httpMethod": "POST",
                              "oauthToken": {"serviceAccountEmail": U()}}},
              deps={"httpTarget": [sa]})
    return [net, subnet, pol, sa, lustre, bucket, tpl, mig, bud, fw, iap, job]


GCP_P = {"project": "ml", "region": "us-west1", "zone": "us-west1-c",
         "defaultLabels": dict(LABELS)}


def azure(zone: str = "1", fs_zone: Optional[str] = None, budget: Any = 25000.0,
          scope: str = "rg", autoscale_enabled: Any = True, stop_end: Optional[str] = None,
          location: Any = "eastus", notifications: Optional[dict] = None) -> list:
    rg = res("azure-native:resources:ResourceGroup", "train-rg",
             {"location": "eastus", "tags": dict(TAGS)})
    rgd = {"resourceGroupName": [rg]}
    vnet = res("azure-native:network:VirtualNetwork", "train-vnet",
               {"resourceGroupName": U(), "location": "eastus",
                "addressSpace": {"addressPrefixes": ["10.2.0.0/16"]}, "tags": dict(TAGS)}, deps=rgd)
    nsg = res("azure-native:network:NetworkSecurityGroup", "train-nsg",
              {"resourceGroupName": U(), "location": "eastus", "tags": dict(TAGS),
               "securityRules": [{"name": "vnet-in", "access": "Allow", "direction": "Inbound",
                                  "priority": 100.0, "protocol": "*",
                                  "sourceAddressPrefix": "VirtualNetwork", "sourcePortRange": "*",
                                  "destinationAddressPrefix": "*", "destinationPortRange": "*"},
                                 {"name": "deny-in", "access": "Deny", "direction": "Inbound",
                                  "priority": 4000.0, "protocol": "*",
                                  "sourceAddressPrefix": "*", "sourcePortRange": "*",
                                  "destinationAddressPrefix": "*", "destinationPortRange": "*"}]},
              deps=rgd)
    subnet = res("azure-native:network:Subnet", "train-subnet",
                 {"resourceGroupName": U(), "virtualNetworkName": U(),
                  "addressPrefix": "10.2.1.0/24", "networkSecurityGroup": {"id": U()}},
                 deps={"resourceGroupName": [rg], "virtualNetworkName": [vnet],
                       "networkSecurityGroup": [nsg]})
    amlfs = res("azure-native:storagecache:AmlFilesystem", "scratch",
                {"location": "eastus", "resourceGroupName": U(), "zones": [fs_zone or zone],
                 "storageCapacityTiB": 8.0, "sku": {"name": "AMLFS-Durable-Premium-250"},
                 "filesystemSubnet": U(), "tags": dict(TAGS),
                 "maintenanceWindow": {"dayOfWeek": "Sunday", "timeOfDayUTC": "02:00"}},
                deps={"resourceGroupName": [rg], "filesystemSubnet": [subnet]})
    acct = res("azure-native:storage:StorageAccount", "datasets",
               {"location": "eastus", "resourceGroupName": U(), "kind": "StorageV2",
                "sku": {"name": "Standard_LRS"}, "minimumTlsVersion": "TLS1_2",
                "allowBlobPublicAccess": False, "tags": {**TAGS, "trainstack:retain": "true"}},
               deps=rgd, retain=True)
    vmss = res("azure-native:compute:VirtualMachineScaleSet", "train-vmss",
               {"location": location, "resourceGroupName": U(), "zones": [zone],
                "singlePlacementGroup": True, "upgradePolicy": {"mode": "Manual"},
                "sku": {"name": "Standard_ND96isr_H100_v5", "capacity": 2.0, "tier": "Standard"},
                "virtualMachineProfile": {
                    "priority": "Regular",
                    "osProfile": {"computerNamePrefix": "train", "adminUsername": "ml",
                                  "customData": U(),
                                  "linuxConfiguration": {"disablePasswordAuthentication": True}},
                    "storageProfile": {"imageReference": {
                        "publisher": "microsoft-dsvm", "offer": "ubuntu-hpc",
                        "sku": "2204", "version": "latest"}},
                    "networkProfile": {"networkInterfaceConfigurations": [
                        {"name": "nic", "primary": True, "enableAcceleratedNetworking": True,
                         "ipConfigurations": [{"name": "ip", "subnet": {"id": U()}}]}]}},
                "tags": dict(TAGS)},
               deps={"resourceGroupName": [rg], "virtualMachineProfile": [amlfs, acct, subnet],
                     **({"location": [rg]} if location != "eastus" else {})})
    scope_val: Any = U() if scope == "rg" else scope
    bud = res("azure-native:consumption:Budget", "train-budget",
              {"amount": budget, "category": "Cost", "timeGrain": "Monthly", "scope": scope_val,
               "timePeriod": {"startDate": month_start()},
               "notifications": notifications or {
                   "actual80": {"enabled": True, "operator": "GreaterThan", "threshold": 80.0,
                                "contactEmails": ["ml-platform@example.com"]}}},
              deps={"scope": [rg]} if scope == "rg" else {})
    profiles = [{"name": "default", "capacity": {"minimum": "2", "maximum": "2", "default": "2"},
                 "rules": []},
                {"name": "end", "capacity": {"minimum": "0", "maximum": "0", "default": "0"},
                 "rules": [], "fixedDate": {"start": hours_from_now(96),
                                            "end": stop_end or "2037-12-31T00:00:00Z",
                                            "timeZone": "UTC"}}]
    scale = {"targetResourceUri": U(), "location": "eastus", "resourceGroupName": U(),
             "tags": dict(TAGS), "profiles": profiles}
    if autoscale_enabled is not None:
        scale["enabled"] = autoscale_enabled
    stop = res("azure-native:monitor:AutoscaleSetting", "train-stop", scale,
               deps={"targetResourceUri": [vmss], "resourceGroupName": [rg]})
    return [rg, vnet, nsg, subnet, amlfs, acct, vmss, bud, stop]


AZ_P = {"location": "eastus", "subscriptionId": SUB}


def ali(zone: str = "eu-central-1a", fs_zone: Optional[str] = None, strategy: str = "LowLatency",
        release: Optional[float] = 96, nic_object: bool = False) -> list:
    vpc = res("alicloud:vpc/network:Network", "train-vpc",
              {"cidrBlock": "10.1.0.0/16", "vpcName": "train", "tags": dict(TAGS)})
    vsw = res("alicloud:vpc/switch:Switch", "train-vsw",
              {"zoneId": zone, "vpcId": U(), "cidrBlock": "10.1.0.0/24", "tags": dict(TAGS)},
              deps={"vpcId": [vpc]})
    ds = res("alicloud:ecs/ecsDeploymentSet:EcsDeploymentSet", "train-ds",
             {"strategy": strategy, "domain": "Default", "granularity": "Host"})
    cpfs = res("alicloud:nas/fileSystem:FileSystem", "scratch",
               {"fileSystemType": "cpfs", "protocolType": "cpfs", "storageType": "advance_200",
                "capacity": 3600.0, "zoneId": fs_zone or zone, "vpcId": U(), "vswitchId": U(),
                "tags": dict(TAGS)}, deps={"vpcId": [vpc], "vswitchId": [vsw]})
    bucket = res("alicloud:oss/bucket:Bucket", "datasets",
                 {"forceDestroy": False, "serverSideEncryptionRule": {"sseAlgorithm": "KMS",
                                                                      "kmsMasterKeyId": U()},
                  "tags": {**TAGS, "trainstack:retain": "true"}}, retain=True)
    sg = res("alicloud:ecs/securityGroup:SecurityGroup", "train-sg",
             {"vpcId": U(), "tags": dict(TAGS)}, deps={"vpcId": [vpc]})
    rule = res("alicloud:ecs/securityGroupRule:SecurityGroupRule", "intra",
               {"type": "ingress", "ipProtocol": "all", "portRange": "-1/-1",
                "cidrIp": "10.1.0.0/16", "securityGroupId": U()}, deps={"securityGroupId": [sg]})
    nodes = []
    for i in range(2):
        props = {"instanceType": "ecs.gn8v-8x.48xlarge", "imageId": "ubuntu_22_04_x64_20G_alibase",
                 "deploymentSetId": U(), "internetMaxBandwidthOut": 0.0,
                 "instanceChargeType": "PostPaid", "securityGroups": [U()],
                 "systemDiskCategory": "cloud_essd", "userData": U(), "tags": dict(TAGS)}
        if nic_object:
            props["vswitchId"] = U()
            props["networkInterfaces"] = {"networkInterfaceTrafficMode": "HighPerformance",
                                          "vswitchId": U(), "securityGroupIds": [U()]}
        else:
            props["vswitchId"] = U()
            props["networkInterfaceTrafficMode"] = "HighPerformance"
        if release is not None:
            props["autoReleaseTime"] = hours_from_now(release)
        nodes.append(res("alicloud:ecs/instance:Instance", f"train-{i}", props,
                         deps={"vswitchId": [vsw], "deploymentSetId": [ds],
                               "securityGroups": [sg], "userData": [cpfs, bucket],
                               **({"networkInterfaces": [vsw, sg]} if nic_object else {})}))
    return [vpc, vsw, ds, cpfs, bucket, sg, rule, *nodes]


ALI_P = {"region": "eu-central-1"}
PROVIDERS = {"aws": AWS_P, "gcp": GCP_P, "azure": AZ_P, "ali": ALI_P}
BUILD = {"aws": aws, "gcp": gcp, "azure": azure, "ali": ali}


def check(pack, cid: str, cloud: str, stack: list, expect: dict, config=None,
          provider: Optional[dict] = None) -> list:
    found = run(pack, stack, config, provider if provider is not None else PROVIDERS[cloud])
    got = {p: verdict(found, p) for p in POLICIES}
    want = {p: expect.get(p, "pass") for p in POLICIES}
    assert got == want, (cid, [(d.policy, d.level, d.message[:400]) for d in found])
    return found


def _set(stack, name, key, value):
    named(stack, name).props[key] = value
    return stack


def _add(stack, *extra):
    return stack + list(extra)


def _run_case(pack, case):
    cid, cloud, kwargs, mutate, expect, config, _why = case[:7]
    provider = case[7] if len(case) > 7 else None
    stack = BUILD[cloud](**kwargs)
    if mutate is not None:
        stack = mutate(stack)
    return check(pack, cid, cloud, stack, expect, config, provider)


# DEFECT 1's strict xfails (g12, d1a, d1b, d1f, d1g, d1i) were removed by fix60, which fixed it.
XFAIL: dict[str, str] = {}


def _params(cases):
    return [pytest.param(c, id=c[0], marks=[pytest.mark.xfail(strict=True, reason=XFAIL[c[0]])]
                         if c[0] in XFAIL else []) for c in cases]


# ------------------------------------------------------------------------------------ batch 1
# The four realistic clusters, documented unknown forms that must still pass, and the nearest
# mistakes.

def _aws_named_group(s):
    """The group given an explicit name, and the Schedule naming it by that literal."""
    asg = named(s, "train-nodes")
    asg.props["name"] = "train-nodes-use1"
    stop = named(s, "train-stop")
    stop.props["autoscalingGroupName"] = "train-nodes-use1"
    stop.deps = {}
    return s


def _gke(s):
    """A GKE inference pool beside the GCP cluster: cluster resourceLabels carry the team label."""
    cluster = res("gcp:container/cluster:Cluster", "serve-gke",
                  {"location": "us-west1-c", "removeDefaultNodePool": True, "initialNodeCount": 1.0,
                   "network": U(), "subnetwork": U(), "resourceLabels": dict(LABELS),
                   "privateClusterConfig": {"enablePrivateNodes": True,
                                            "masterIpv4CidrBlock": "172.16.0.0/28"},
                   "deletionProtection": False},
                  deps={"network": [named(s, "train-net")], "subnetwork": [named(s, "train-subnet")]})
    pool = res("gcp:container/nodePool:NodePool", "serve-l4",
               {"cluster": U(), "location": "us-west1-c",
                "autoscaling": {"minNodeCount": 0.0, "maxNodeCount": 2.0},
                "nodeConfig": {"machineType": "g2-standard-8",
                               "guestAccelerators": [{"type": "nvidia-l4", "count": 1.0}],
                               "labels": {"workload": "serve"}, "serviceAccount": U(),
                               "oauthScopes": ["https://www.googleapis.com/auth/cloud-platform"]}},
               deps={"cluster": [cluster], "nodeConfig": [named(s, "scheduler-sa")]})
    return s + [cluster, pool]


def _gke_budget_by_label(s):
    s = _gke(s)
    named(s, "train-budget").props["budgetFilter"]["labels"] = {"team": "vision"}
    return s


B1 = [
    ("a01", "aws", {}, None, {}, None,
     "control: 12,032.21 < 20,000; every id unknown with its dependency; SNS subscriber ARN unknown"),
    ("a02", "aws", {}, _aws_named_group, {}, None,
     "the group named explicitly and the Schedule naming it by that literal: a stop (control)"),
    ("a03", "aws", {"notifications": U()}, None, {SPEND: "undecided"}, None,
     "the `notifications` list unknown as a whole may be empty: docs 'A budget whose notifying "
     "anyone turns on a value unknown at preview (AWS `notifications`, ...) may notify no one: ... "
     "cannot decide' (MY mistake: I first read 'an AWS notification unknown as a whole' as the list; "
     "it is one entry of it, b2 a11)"),
    ("a04", "aws", {"notifications": [{**AWS_ALERTS[0], "subscriberEmailAddresses": [U()]}]}, None,
     {}, None, "an e-mail subscriber read from a secret store (unknown): the list is still there"),
    ("a05", "aws", {}, lambda s: (named(s, "train-budget").props.update(costFilters=[
        {"name": "Service", "values": ["Amazon Elastic Compute Cloud - Compute"]},
        {"name": "Region", "values": ["us-east-1"]}]), s)[1], {}, None,
     "Service EC2 compute and Region us-east-1 (the provider's, known): the budget covers the group"),
    ("a06", "aws", {}, lambda s: (named(s, "train-budget").props.update(costFilters=[
        {"name": "TagKeyValue", "values": ["user:team$vision"]}]), s)[1], {}, None,
     "TagKeyValue user:team$vision: the ASG's tags propagate at launch and the template's instance "
     "tagSpecifications carry team=vision: covered"),
    ("a07", "aws", {"fs_zone": "us-east-1b"}, None, {SSZ: "fail"}, None,
     "mistake: the FSx on the stack's subnet in us-east-1b (subnet id unknown, zone literal); the "
     "nodes mount it by user data and sit in us-east-1a"),
    ("a08", "aws", {"pg_strategy": "spread"}, None, {RDMA: "advisory"}, None,
     "mistake: the placement group of the stack (name unknown, by dependency) is spread: no placement"),
    ("a09", "aws", {"notifications": []}, None, {SPEND: "fail"}, None,
     "mistake: a budget with no notification notifies no one: no alarm"),
    ("a10", "aws", {"budget": "10000"}, None, {SPEND: "fail"}, None, "12,032.21 > 10,000"),
    ("g01", "gcp", {}, None, {}, None,
     "control: 25,164.51 < 30,000; project by number; oauth email unknown; NIC self links unknown"),
    ("g02", "gcp", {"alerts": {"allUpdatesRule": {"pubsubTopic": U()}}}, None, {}, None,
     "no thresholdRules but allUpdatesRule.pubsubTopic set to the stack's topic (name unknown): a "
     "topic is set, so the budget notifies (docs: no alarm only with no thresholdRules and no "
     "pubsubTopic)"),
    ("g03", "gcp", {"alerts": {"thresholdRules": GCP_ALERTS, "allUpdatesRule": {
        "monitoringNotificationChannels": [U()], "disableDefaultIamRecipients": True}}}, None, {}, None,
     "default recipients off but a monitoring channel of the stack (id unknown) is named: notifies"),
    ("g04", "gcp", {}, _gke_budget_by_label, {}, None,
     "GKE pool g2-standard-8 (0.853624) x max 2 x 730 = 1,246.29 beside the cluster (25,164.51): "
     "26,410.80 < 30,000; the budget's labels filter team=vision matches the cluster's resourceLabels "
     "(GKE applies them to the VMs) and the MIG's template (provider defaultLabels): both covered; "
     "the pool is a managed pool (rdma leaves it), nodes private"),
    ("g05", "gcp", {"mig_name": None, "job_group": "train-mig"}, None, {SPEND: "fail"}, None,
     "mistake: the MIG left to auto-naming and the job's literal URL names only its Pulumi name: "
     "another group; no stop: 2 x 86.7599 x 730 = 126,669.45 + 8,333.09 > 30,000"),
    ("g06", "gcp", {"collocation": "UNSPECIFIED"}, None, {RDMA: "advisory"}, None,
     "mistake: the stack's policy (id unknown, by dependency) is not COLLOCATED: not placed"),
    ("g07", "gcp", {"fs_zone": "us-west1-a"}, None, {SSZ: "fail"}, None,
     "mistake: Managed Lustre in us-west1-a, nodes mounting it by startup script in us-west1-c"),
    ("z01", "azure", {}, None, {}, None,
     "control: <= 21,286.07 < 25,000; budget scope = the auto-named group's id (unknown), built "
     "from the same ResourceGroup as the scale set's: covered for certain"),
    ("z02", "azure", {"scope": f"/subscriptions/{SUB}"}, None, {}, None,
     "a subscription budget on the provider's subscriptionId: covers the set"),
    ("z03", "azure", {"notifications": {"actual80": {
        "enabled": True, "operator": "GreaterThan", "threshold": 80.0, "contactGroups": [U()]}}},
     None, {}, None, "notified through an action group of the stack (id unknown): notifies"),
    ("z04", "azure", {"autoscale_enabled": None}, None, {SPEND: "fail"}, None,
     "mistake: an azure-native AutoscaleSetting without `enabled` is disabled (API default false): "
     "no stop: 2 x 98.32 x 730 = 143,547.20 > 25,000"),
    ("z05", "azure", {"stop_end": hours_from_now(120)}, None, {SPEND: "fail"}, None,
     "mistake: the zero window ends within the month and the default profile (2) applies again: a "
     "pause; the month 143,547.20 > 25,000"),
    ("z06", "azure", {"fs_zone": "2"}, None, {SSZ: "fail"}, None,
     "mistake: AMLFS in zone 2, the scale set mounting it in zone 1"),
    ("b01", "ali", {}, None, {}, None,
     "control: autoReleaseTime on every node, LowLatency set (id unknown), CPFS zoneId literal"),
    ("b02", "ali", {"nic_object": True}, None, {}, None,
     "HighPerformance on the node's networkInterfaces given as one object (as ecs.Instance takes "
     "it): the eRDMA fabric is declared"),
    ("b03", "ali", {"strategy": "Availability"}, None, {RDMA: "advisory"}, None,
     "mistake: deployment set strategy Availability places nothing"),
    ("b04", "ali", {"release": None}, None, {SPEND: "fail"}, None,
     "mistake: no autoReleaseTime and no budget resource on Alibaba: no alarm"),
]


@pytest.mark.parametrize("case", _params(B1))
def test_batch1(pack, case):
    _run_case(pack, case)


# ------------------------------------------------------------------------------------ batch 2
# The recent tightenings in their ordinary, correct use: unknown notifications, unknown provider
# default tags, split ingress rules, Azure NAT rules by name, classic balancers, FSx with unknown
# subnets, one-object lists, unknown regions.

AWS_TAGGABLE = ("aws:ec2/vpc:Vpc", "aws:ec2/subnet:Subnet", "aws:ec2/placementGroup:PlacementGroup",
                "aws:kms/key:Key", "aws:sns/topic:Topic", "aws:ec2/securityGroup:SecurityGroup",
                "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule",
                "aws:fsx/lustreFileSystem:LustreFileSystem",
                "aws:fsx/dataRepositoryAssociation:DataRepositoryAssociation",
                "aws:ec2/launchTemplate:LaunchTemplate", "aws:budgets/budget:Budget",
                "aws:s3/bucketV2:BucketV2")


def _aws_own_tags(s, skip: str = ""):
    """Every taggable resource carries the tags itself (a team that does not trust defaultTags)."""
    for r in s:
        if r.type in AWS_TAGGABLE and r.name != skip:
            r.props["tags"] = {**TAGS, **r.props.get("tags", {})}
    return s


def _gcp_own_labels(s, skip: str = ""):
    for r in s:
        if r.type in ("gcp:compute/instanceTemplate:InstanceTemplate", "gcp:lustre/instance:Instance",
                      "gcp:storage/bucket:Bucket") and r.name != skip:
            r.props["labels"] = {**LABELS, **r.props.get("labels", {})}
    return s


def _aws_split(cidrs: tuple, groups: int = 1):
    def mutate(s):
        vpc = named(s, "train-vpc")
        sgs = [named(s, "train-sg")]
        if groups == 2:
            sgs.append(res("aws:ec2/securityGroup:SecurityGroup", "web-sg",
                           {"vpcId": U(), "description": "web"}, deps={"vpcId": [vpc]}))
        rules = [res("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule", f"https-{i}",
                     {"securityGroupId": U(), "cidrIpv4": c, "ipProtocol": "tcp",
                      "fromPort": 443.0, "toPort": 443.0},
                     deps={"securityGroupId": [sgs[i % len(sgs)]]}) for i, c in enumerate(cidrs)]
        return s + sgs[1:] + rules
    return mutate


def _fs_stackref(s):
    fs = named(s, "scratch")
    fs.props["subnetIds"] = [U()]
    fs.deps.pop("subnetIds")
    return s


def _n1_debug(one_object: bool = True):
    def mutate(s):
        accel = {"type": "nvidia-tesla-t4", "count": 1.0}
        return s + [res("gcp:compute/instance:Instance", "debug-vm",
                        {"zone": "us-west1-c", "machineType": "n1-standard-8",
                         "guestAccelerators": accel if one_object else [accel],
                         "bootDisk": {"initializeParams": {"image": "debian-cloud/debian-12"}},
                         "networkInterfaces": [{"network": U(), "subnetwork": U()}],
                         "scheduling": {"onHostMaintenance": "TERMINATE", "automaticRestart": True},
                         "serviceAccount": {"email": U(), "scopes": ["cloud-platform"]}},
                        deps={"networkInterfaces": [named(s, "train-net"), named(s, "train-subnet")],
                              "serviceAccount": [named(s, "scheduler-sa")]})]
    return mutate


def _az_lb(kind: str = "internal", nat: str = "dep", lb_name: Optional[str] = "train-lb"):
    """An azure-native load balancer in the stack's group, with an inbound NAT rule for SSH."""
    def mutate(s):
        rg, subnet = named(s, "train-rg"), named(s, "train-subnet")
        extra, fe_deps = [], [subnet]
        if kind == "internal":
            fe = {"name": "fe", "subnet": {"id": U()}, "privateIPAllocationMethod": "Dynamic"}
        else:
            pip = res("azure-native:network:PublicIPAddress", "lb-ip",
                      {"resourceGroupName": U(), "location": "eastus",
                       "sku": {"name": "Standard"}, "publicIPAllocationMethod": "Static",
                       "tags": dict(TAGS)}, deps={"resourceGroupName": [rg]})
            extra.append(pip)
            fe, fe_deps = {"name": "fe", "publicIPAddress": {"id": U()}}, [pip]
        props = {"resourceGroupName": U(), "location": "eastus", "sku": {"name": "Standard"},
                 "frontendIPConfigurations": [fe], "backendAddressPools": [{"name": "nodes"}]}
        if lb_name:
            props["loadBalancerName"] = lb_name
        lb = res("azure-native:network:LoadBalancer", "train-lb", props,
                 deps={"resourceGroupName": [rg], "frontendIPConfigurations": fe_deps})
        nat_props = {"resourceGroupName": U(), "inboundNatRuleName": "ssh",
                     "frontendIPConfiguration": {"id": U()}, "protocol": "Tcp",
                     "frontendPort": 50022.0, "backendPort": 22.0}
        nat_deps = {"resourceGroupName": [rg], "frontendIPConfiguration": [lb]}
        if nat == "dep":
            nat_props["loadBalancerName"] = U()
            nat_deps["loadBalancerName"] = [lb]
        else:
            nat_props["loadBalancerName"] = nat
        rule = res("azure-native:network:InboundNatRule", "ssh-nat", nat_props, deps=nat_deps)
        return s + extra + [lb, rule]
    return mutate


def _az_classic_lb(public: bool = False):
    """A classic balancer with an lb Rule to a pool that a classic GPU scale set joins."""
    def mutate(s):
        rg, subnet = named(s, "train-rg"), named(s, "train-subnet")
        extra = []
        if public:
            pip = res("azure:network/publicIp:PublicIp", "serve-ip",
                      {"resourceGroupName": U(), "location": "eastus", "allocationMethod": "Static",
                       "sku": "Standard", "tags": dict(TAGS)}, deps={"resourceGroupName": [rg]})
            extra.append(pip)
            fe, fe_deps = {"name": "fe", "publicIpAddressId": U()}, [pip]
        else:
            fe = {"name": "fe", "subnetId": U(), "privateIpAddressAllocation": "Dynamic"}
            fe_deps = [subnet]
        lb = res("azure:lb/loadBalancer:LoadBalancer", "serve-lb",
                 {"resourceGroupName": U(), "location": "eastus", "sku": "Standard",
                  "frontendIpConfigurations": [fe], "tags": dict(TAGS)},
                 deps={"resourceGroupName": [rg], "frontendIpConfigurations": fe_deps})
        pool = res("azure:lb/backendAddressPool:BackendAddressPool", "serve-pool",
                   {"loadbalancerId": U(), "name": "serve"}, deps={"loadbalancerId": [lb]})
        rule = res("azure:lb/rule:Rule", "serve-https",
                   {"loadbalancerId": U(), "frontendIpConfigurationName": "fe", "protocol": "Tcp",
                    "frontendPort": 443.0, "backendPort": 8443.0, "backendAddressPoolIds": [U()]},
                   deps={"loadbalancerId": [lb], "backendAddressPoolIds": [pool]})
        vmss = res("azure:compute/linuxVirtualMachineScaleSet:LinuxVirtualMachineScaleSet", "serve-vmss",
                   {"resourceGroupName": U(), "location": "eastus", "sku": "Standard_NC24ads_A100_v4",
                    "instances": 2.0, "zones": ["1"], "adminUsername": "ml",
                    "adminSshKeys": [{"username": "ml", "publicKey": "ssh-ed25519 AAAA"}],
                    "networkInterfaces": [{"name": "nic", "primary": True, "ipConfigurations": [
                        {"name": "ip", "primary": True, "subnetId": U(),
                         "loadBalancerBackendAddressPoolIds": [U()]}]}],
                    "osDisk": {"caching": "ReadWrite", "storageAccountType": "Premium_LRS"},
                    "sourceImageReference": {"publisher": "microsoft-dsvm", "offer": "ubuntu-hpc",
                                             "sku": "2204", "version": "latest"},
                    "tags": dict(TAGS)},
                   deps={"resourceGroupName": [rg], "networkInterfaces": [subnet, pool]})
        return s + extra + [lb, pool, rule, vmss]
    return mutate


B2 = [
    ("a11", "aws", {"notifications": [U()]}, None, {}, None,
     "one notification unknown as a whole (the list known): docs 'still has a subscriber (AWS "
     "requires one on each)' -> the alarm"),
    ("a12", "aws", {"notifications": [{**AWS_ALERTS[0], "subscriberEmailAddresses": U()}]}, None, {},
     None, "a notification whose subscriber list is unknown: still has a subscriber"),
    ("a13", "aws", {}, _aws_own_tags, {}, None,
     "provider defaultTags unknown at preview, every taggable resource tags itself: nothing lacking",
     {"region": "us-east-1", "defaultTags": {"tags": U()}}),
    ("a14", "aws", {}, lambda s: _aws_own_tags(s, skip="train-pg"), {TAGS_P: "undecided"}, None,
     "the placement group relies on defaultTags that are unknown: cannot decide, not missing",
     {"region": "us-east-1", "defaultTags": U()}),
    ("a15", "aws", {}, _aws_split(("10.0.0.0/17", "10.0.128.0/17")), {}, None,
     "split rules on one group (id unknown, by dependency), both halves of the VPC only: private"),
    ("a16", "aws", {}, _aws_split(("0.0.0.0/1", "128.0.0.0/1")), {NPI: "fail"}, None,
     "mistake: 0.0.0.0/1 + 128.0.0.0/1 on one group: world-open, a violation on the group"),
    ("a17", "aws", {}, _aws_split(("0.0.0.0/1", "128.0.0.0/1"), groups=2), {}, None,
     "the two halves on two different groups of the stack (both ids unknown, dependencies tell "
     "them apart): neither group is world-open"),
    ("a18", "aws", {}, _fs_stackref, {SSZ: "undecided"}, None,
     "FSx subnet from a stack reference (unknown, no stack subnet behind it): cannot decide "
     "(advisory by default), as documented; nothing else moves"),
    ("g08", "gcp", {}, _gcp_own_labels, {}, None,
     "defaultLabels unknown at preview; template, Lustre and bucket carry the labels themselves",
     {"project": "ml", "region": "us-west1", "zone": "us-west1-c", "defaultLabels": U()}),
    ("g09", "gcp", {}, lambda s: _gcp_own_labels(s, skip="scratch"), {TAGS_P: "undecided"}, None,
     "the Lustre relies on defaultLabels unknown at preview: cannot decide",
     {"project": "ml", "region": "us-west1", "zone": "us-west1-c", "defaultLabels": U()}),
    ("g10", "gcp", {}, _n1_debug(one_object=True), {}, None,
     "an N1 debug VM with guestAccelerators as one object (read as a list of one): n1-standard-8 "
     "0.38 + T4 0.35 (gcp_attached_gpus.csv us-west1) = 0.73 x 730 = 532.90; 25,164.51 + 532.90 = "
     "25,697.41 < 30,000; one node: no rdma; no accessConfigs: no public IP"),
    ("g11", "gcp", {}, lambda s: (named(s, "train-mig").props.pop("zone"), s)[1], {}, None,
     "the MIG names no zone: the provider's default zone us-west1-c (known) places it; the job's "
     "URL names that zone: as the control"),
    ("g12", "gcp", {}, lambda s: (named(s, "train-mig").props.update(zone=U()), s)[1],
     {SPEND: "fail", SSZ: "undecided"}, None,
     "the MIG's zone read from another resource's output (unknown): docs 'a group ... whose zone is "
     "unknown is GPU capacity that cannot be priced' fails closed; storage-same-zone cannot compare "
     "the mounted Lustre: cannot decide"),
    ("z07", "azure", {}, _az_lb("internal", "dep"), {}, None,
     "an internal balancer of the stack, NAT rule tied by loadBalancerName (its output, unknown) "
     "dependency: an internal frontend takes nothing from the internet"),
    ("z08", "azure", {}, _az_lb("internal", "train-lb"), {}, None,
     "the NAT rule names the balancer by its literal name 'train-lb', the balancer's own "
     "loadBalancerName, and both groups are built from the same ResourceGroup: tied; internal"),
    ("z09", "azure", {}, _az_lb("public", "dep"), {NPI: "fail"}, None,
     "mistake: the balancer's frontend is a public IP of the stack: its inbound NAT rule is a "
     "violation"),
    ("z10", "azure", {}, _az_lb("internal", "train-lb", lb_name=None), {}, None,
     "the balancer left to auto-naming, the rule naming its Pulumi name, but its frontend IP "
     "configuration id is the balancer's output: it depends on the balancer, so it is tied to it "
     "(docs: 'when it depends on it'): internal, passes (MY mistake: I expected cannot decide, "
     "overlooking my own builder's frontendIPConfiguration dependency; b3 z14 drops it)"),
    ("z11", "azure", {"budget": 30000.0}, _az_classic_lb(public=False), {}, None,
     "classic internal balancer, lb Rule to a pool a classic NC24ads_A100_v4 scale set joins: "
     "internal, passes; 2 x 3.673 x 730 = 5,362.58 + <= 21,286.07 = <= 26,648.65 < 30,000, the "
     "classic set in the budget's ResourceGroup; 1-GPU tcp type: no rdma; single placement default"),
    ("z12", "azure", {"budget": 30000.0}, _az_classic_lb(public=True), {NPI: "fail"}, None,
     "mistake: the classic balancer's frontend is a public IP: the GPU set behind the rule is "
     "reachable from the internet"),
    ("z13", "azure", {"location": U()}, None, {SPEND: "fail", SSZ: "undecided"}, None,
     "the scale set's location read from another resource's output (unknown): its region is "
     "unknown until apply, fails closed; the AMLFS it mounts cannot be compared: cannot decide"),
]


@pytest.mark.parametrize("case", _params(B2))
def test_batch2(pack, case):
    _run_case(pack, case)


# ------------------------------------------------------------------------------------ batch 3
# DEFECT 1's reach; reservations, capacity blocks and placement in their ordinary use on all four
# clouds (counted once), per-group rdma, and the NAT rule truly tied to nothing.

def _mig_zone_unknown(mtype: str = "a3-ultragpu-8g", provider_region: bool = True):
    def mutate(s):
        named(s, "train-mig").props["zone"] = U()
        named(s, "train-tpl").props["machineType"] = mtype
        return s
    return mutate


def _gcp_vm_zone_unknown(s):
    return s + [res("gcp:compute/instance:Instance", "notebook",
                    {"zone": U(), "machineType": "g2-standard-8",
                     "bootDisk": {"initializeParams": {"image": "debian-cloud/debian-12"}},
                     "networkInterfaces": [{"network": U(), "subnetwork": U()}],
                     "scheduling": {"onHostMaintenance": "TERMINATE"}},
                    deps={"networkInterfaces": [named(s, "train-net"), named(s, "train-subnet")],
                          "zone": [named(s, "train-subnet")]})]


def _gcp_regional_unknown(s):
    tpl = named(s, "train-tpl")
    return s + [res("gcp:compute/regionInstanceGroupManager:RegionInstanceGroupManager", "serve-rmig",
                    {"region": U(), "targetSize": 1.0, "baseInstanceName": "serve",
                     "versions": [{"instanceTemplate": U()}]},
                    deps={"versions": [tpl], "region": [named(s, "train-subnet")]})]


def _gke_location_unknown(s):
    s = _gke(s)
    named(s, "serve-l4").props["location"] = U()
    return s


def _aws_region_unknown(s):
    named(s, "train-nodes").props["region"] = U()
    return s


def _az_nat_untied(s):
    s = _az_lb("internal", "train-lb", lb_name=None)(s)
    rule = named(s, "ssh-nat")
    rule.props["frontendIPConfiguration"] = {
        "id": f"/subscriptions/{SUB}/resourceGroups/train/providers/Microsoft.Network/"
              "loadBalancers/train-lb/frontendIPConfigurations/fe"}
    rule.deps.pop("frontendIPConfiguration")
    return s


def _aws_inference(one_zone: bool = False):
    def mutate(s):
        vpc = named(s, "train-vpc")
        sub_b = res("aws:ec2/subnet:Subnet", "serve-b",
                    {"availabilityZone": "us-east-1b", "vpcId": U(), "cidrBlock": "10.0.3.0/24"},
                    deps={"vpcId": [vpc]})
        lt = res("aws:ec2/launchTemplate:LaunchTemplate", "serve-lt",
                 {"instanceType": "g5.12xlarge", "imageId": "ami-0123456789abcdef0",
                  "vpcSecurityGroupIds": [U()], "metadataOptions": {"httpTokens": "required"},
                  "blockDeviceMappings": [{"deviceName": "/dev/xvda", "ebs": {
                      "volumeSize": 200.0, "volumeType": "gp3", "encrypted": "true"}}],
                  "tagSpecifications": [{"resourceType": "instance", "tags": dict(TAGS)}]},
                 deps={"vpcSecurityGroupIds": [named(s, "train-sg")]})
        subs = [named(s, "train-a")] + ([] if one_zone else [sub_b])
        asg = res("aws:autoscaling/group:Group", "serve-nodes",
                  {"minSize": 1.0, "maxSize": 4.0, "vpcZoneIdentifiers": [U() for _ in subs],
                   "launchTemplate": {"id": U(), "version": "$Latest"},
                   "tags": [{"key": k, "value": v, "propagateAtLaunch": True}
                            for k, v in TAGS.items()]},
                  deps={"launchTemplate": [lt], "vpcZoneIdentifiers": subs})
        return s + [sub_b, lt, asg]
    return mutate


def _aws_odcr(s):
    cr = res("aws:ec2/capacityReservation:CapacityReservation", "train-odcr",
             {"instanceType": "p5.48xlarge", "instanceCount": 2.0, "availabilityZone": "us-east-1a",
              "instancePlatform": "Linux/UNIX", "instanceMatchCriteria": "targeted",
              "endDateType": "unlimited"})
    lt = named(s, "train-lt")
    lt.props["capacityReservationSpecification"] = {"capacityReservationTarget": {
        "capacityReservationId": U()}}
    lt.deps["capacityReservationSpecification"] = [cr]
    return s + [cr]


def _aws_block(s):
    cb = res("aws:ec2/capacityBlockReservation:CapacityBlockReservation", "train-block",
             {"capacityBlockOfferingId": "cb-0123456789abcdef0", "instancePlatform": "Linux/UNIX"})
    lt = named(s, "train-lt")
    lt.props["instanceMarketOptions"] = {"marketType": "capacity-block"}
    lt.props["capacityReservationSpecification"] = {"capacityReservationTarget": {
        "capacityReservationId": U()}}
    lt.deps["capacityReservationSpecification"] = [cb]
    return s + [cb]


def _gcp_reservation(literal: bool = False):
    def mutate(s):
        props = {"zone": "us-west1-c", "specificReservationRequired": True,
                 "specificReservation": {"count": 2.0, "instanceProperties": {
                     "machineType": "a3-ultragpu-8g"}}}
        if literal:
            props["name"] = "train-res"
        rsv = res("gcp:compute/reservation:Reservation", "train-res", props)
        tpl = named(s, "train-tpl")
        tpl.props["reservationAffinity"] = {"type": "SPECIFIC_RESERVATION", "specificReservation": {
            "key": "compute.googleapis.com/reservation-name",
            "values": ["train-res" if literal else U()]}}
        if not literal:
            tpl.deps["reservationAffinity"] = [rsv]
        return s + [rsv]
    return mutate


def _az_reservation(s):
    rg, vmss = named(s, "train-rg"), named(s, "train-vmss")
    grp = res("azure-native:compute:CapacityReservationGroup", "train-crg",
              {"resourceGroupName": U(), "location": "eastus", "zones": ["1"], "tags": dict(TAGS)},
              deps={"resourceGroupName": [rg]})
    cr = res("azure-native:compute:CapacityReservation", "train-cr",
             {"resourceGroupName": U(), "capacityReservationGroupName": U(), "location": "eastus",
              "zones": ["1"], "sku": {"name": "Standard_ND96isr_H100_v5", "capacity": 2.0},
              "tags": dict(TAGS)},
             deps={"resourceGroupName": [rg], "capacityReservationGroupName": [grp]})
    vmss.props["virtualMachineProfile"]["capacityReservation"] = {
        "capacityReservationGroup": {"id": U()}}
    vmss.deps["virtualMachineProfile"] = vmss.deps["virtualMachineProfile"] + [grp]
    return s + [grp, cr]


def _ali_reservation(end: str = "Limited"):
    def mutate(s):
        cr = res("alicloud:ecs/capacityReservation:CapacityReservation", "train-cr",
                 {"instanceType": "ecs.gn8v-8x.48xlarge", "instanceAmount": 2.0,
                  "zoneIds": ["eu-central-1a"], "matchCriteria": "Target", "endTimeType": end,
                  "platform": "linux",
                  **({"endTime": hours_from_now(96)} if end == "Limited" else {})})
        for r in s:
            if r.type == "alicloud:ecs/instance:Instance":
                r.props["privatePoolOptionsMatchCriteria"] = "Target"
                r.props["privatePoolOptionsId"] = U()
                r.deps["privatePoolOptionsId"] = [cr]
        return s + [cr]
    return mutate


BLOCK_FEE = {SPEND: {"capacityBlockFeesUsd": {"train-nodes": 31000}}}

B3 = [
    ("d1a", "gcp", {"budget": "26000"}, _mig_zone_unknown("a3-highgpu-8g"), {SPEND: "fail",
                                                                             SSZ: "undecided"}, None,
     "defect 1's harm: a3-highgpu-8g priced at us-west1 88.49 gives 2 x 88.49 x 97 = 17,167.06 + "
     "8,333.09 = 25,500.15 < 26,000, but the unknown zone may be asia-northeast1 (126.643): "
     "24,568.74 + 8,333.09 = 32,901.83 > 26,000; the docs: cannot be priced, fails closed"),
    ("d1b", "gcp", {}, _gcp_vm_zone_unknown, {SPEND: "fail", SSZ: "undecided"}, None,
     "a single g2-standard-8 VM whose zone is another resource's output: cannot be priced. fix60 "
     "changed ssz pass -> undecided, by the docs rule this review applied in d1e/d1c: a GPU group "
     "whose region is unknown is asked where its cloud has a filesystem GPU compute may mount (the "
     "Lustre); priced at us-west1 the VM's region read as known and ssz passed"),
    ("d1c", "gcp", {}, _gcp_regional_unknown, {SPEND: "fail", SSZ: "fail"}, None,
     "a regional MIG whose own `region` is unknown (named in the docs): cannot be priced; MY "
     "mistake on ssz: a regional MIG with no distributionPolicyZones names no zone the pack could "
     "ever read, so it is the documented mandatory 'the GPU nodes' zone cannot be read' (it mounts "
     "the zonal Lustre from several zones). NOTE: spend fails here on the budget (the group is "
     "priced at us-west1, 63,335), not for the unknown region: defect 1 again, shown in b4 d1g"),
    ("d1d", "gcp", {}, _mig_zone_unknown(), {SPEND: "fail", SSZ: "undecided"}, None,
     "the MIG's zone unknown and the provider names no region or zone: cannot be priced",
     {"project": "ml", "defaultLabels": dict(LABELS)}),
    ("d1e", "gcp", {}, _gke_location_unknown, {SPEND: "fail", SSZ: "undecided"}, None,
     "a GKE GPU pool whose location is unknown at preview: cannot be priced; MY mistake on ssz: "
     "docs 'asked about only where its cloud has a filesystem GPU compute may mount' - the Lustre "
     "is there, so cannot decide"),
    ("d1f", "aws", {}, _aws_region_unknown, {}, None,
     "the ASG's own `region` (pulumi-aws v7 per-resource region) unknown; its subnet of the stack "
     "names us-east-1a (ssz: decided, passes). fix60 changed spend fail -> pass: a known input "
     "places it ('a group no known input places in a region'): a subnet 'must reside entirely "
     "within one Availability Zone' (docs.aws.amazon.com/vpc/latest/userguide/configure-subnets."
     "html), us-east-1a is in us-east-1, and a group launches only in subnets of its own region "
     "(subnets are regional EC2 resources), so any other region fails at apply, spending nothing: "
     "priced at us-east-1, 12,032.21 < 20,000 (fix60 tests the ASG with no placing subnet)"),
    ("z14", "azure", {}, _az_nat_untied, {NPI: "undecided"}, None,
     "the NAT rule names the auto-named balancer only by its Pulumi name in a literal frontend id and "
     "depends on nothing of it: it names no balancer of the stack for certain -> cannot decide"),
    ("a19", "aws", {"budget": "40000"}, _aws_inference(), {}, None,
     "HA inference group of g5.12xlarge (4 GPUs) over us-east-1a and us-east-1b: not asked by rdma "
     "(inference size, more than one zone); it mounts nothing (the FSx is the training group's); "
     "4 x 5.672 x 730 = 16,562.24 + 12,032.21 = 28,594.45 < 40,000"),
    ("a20", "aws", {"budget": "40000"}, _aws_inference(one_zone=True), {RDMA: "advisory"}, None,
     "mistake: the same group in one zone, 4 nodes, EFA row (g5.12xlarge, 1 card), no placement "
     "group: asked for placement and EFA"),
    ("a21", "aws", {"budget": "90000"}, _aws_odcr, {}, None,
     "targeted ODCR of 2 p5.48xlarge (id unknown, by dependency): billed the month 80,358.40; the "
     "group's 2 nodes inside it, once: + 1,464.53 = 81,822.93 < 90,000 (twice: 92,390.61)"),
    ("a22", "aws", {"budget": "40000"}, _aws_block, {}, BLOCK_FEE,
     "a Capacity Block the stack buys (type and zone its outputs), the group launching into it, fee "
     "31,000 in capacityBlockFeesUsd for the group: 31,000 + 1,354.13 + 110.40 = 32,464.53 < 40,000"),
    ("a23", "aws", {"budget": "40000"}, _aws_block, {SPEND: "fail"}, None,
     "mistake: the same without the fee in the config: GPU capacity that cannot be estimated"),
    ("g13", "gcp", {"budget": "140000"}, _gcp_reservation(), {}, None,
     "specific reservation of 2 a3-ultragpu-8g (auto-named, name unknown, by dependency): the month "
     "2 x 86.7599 x 730 = 126,669.45, the group inside it once: + 8,333.09 = 135,002.54 < 140,000 "
     "(twice: 151,833.96)"),
    ("g14", "gcp", {"budget": "140000"}, _gcp_reservation(literal=True), {}, None,
     "the same reservation named 'train-res' explicitly and the template naming it literally"),
    ("z15", "azure", {"budget": 150000.0}, _az_reservation, {}, None,
     "capacity reservation of 2 ND96isr_H100_v5, the set in its group (id unknown, by dependency): "
     "2 x 98.32 x 730 = 143,547.20 + <= 2,408.63 = <= 145,955.83 < 150,000 (twice: 164,833)"),
    ("b05", "ali", {}, _ali_reservation(), {}, None,
     "Target capacity reservation, Limited, ending in 96 h; the nodes target it (id unknown, by "
     "dependency), autoReleaseTime on each: counted once, no cap on Alibaba: passes"),
    ("b06", "ali", {}, _ali_reservation("Unlimited"), {SPEND: "fail"}, None,
     "mistake: a reservation without endTimeType Limited: a month and a violation (no budget)"),
]


@pytest.mark.parametrize("case", _params(B3))
def test_batch3(pack, case):
    _run_case(pack, case)


# ------------------------------------------------------------------------------------ batch 4
# DEFECT 1 shown on a regional MIG, an EC2 instance and a classic Azure set; the documented stops
# in their ordinary use (EventBridge Scheduler, a VM's maxRunDuration and instance schedule, a
# classic Azure autoscale setting), one-object overrides and EKS instanceTypes as one string.

def _rmig_zones(region: Any):
    def mutate(s):
        tpl = named(s, "train-tpl")
        return s + [res("gcp:compute/regionInstanceGroupManager:RegionInstanceGroupManager",
                        "serve-rmig",
                        {"region": region, "targetSize": 1.0, "baseInstanceName": "serve",
                         "distributionPolicyZones": ["us-west1-c"],
                         "versions": [{"instanceTemplate": U()}]},
                        deps={"versions": [tpl], **({"region": [named(s, "train-subnet")]}
                                                    if region is not None else {})})]
    return mutate


def _aws_instance(region: Any = None, stop: str = "none"):
    def mutate(s):
        props = {"instanceType": "g6.12xlarge", "ami": "ami-0123456789abcdef0", "subnetId": U(),
                 "vpcSecurityGroupIds": [U()], "metadataOptions": {"httpTokens": "required"},
                 "rootBlockDevice": {"volumeSize": 200.0, "encrypted": True}}
        if region is not None:
            props["region"] = region
        inst = res("aws:ec2/instance:Instance", "notebook", props,
                   deps={"subnetId": [named(s, "train-a")],
                         "vpcSecurityGroupIds": [named(s, "train-sg")]})
        return s + [inst]
    return mutate


def _az_classic_region_unknown(s):
    s = _az_classic_lb(public=False)(s)
    named(s, "serve-vmss").props["location"] = U()
    named(s, "serve-vmss").deps["location"] = [named(s, "train-rg")]
    return s


def _az_classic_stop(enabled: Any = None):
    def mutate(s):
        s = _az_classic_lb(public=False)(s)
        vmss = named(s, "serve-vmss")
        props = {"resourceGroupName": U(), "location": "eastus", "targetResourceId": U(),
                 "tags": dict(TAGS), "profiles": [
                     {"name": "end", "capacity": {"default": 0.0, "minimum": 0.0, "maximum": 0.0},
                      "fixedDate": {"start": hours_from_now(96), "end": "2037-12-31T00:00:00Z",
                                    "timezone": "UTC"}}]}
        if enabled is not None:
            props["enabled"] = enabled
        return s + [res("azure:monitoring/autoscaleSetting:AutoscaleSetting", "serve-stop", props,
                        deps={"targetResourceId": [vmss],
                              "resourceGroupName": [named(s, "train-rg")]})]
    return mutate


def _aws_scheduler_stop(literal_name: bool = True):
    def mutate(s):
        asg = named(s, "train-nodes")
        s = [r for r in s if r.name != "train-stop"]
        from datetime import timedelta
        at = (datetime.now(timezone.utc) + timedelta(hours=96)).strftime("%Y-%m-%dT%H:%M:%S")
        if literal_name:
            asg.props["name"] = "train-nodes-use1"
            body: Any = ('{"AutoScalingGroupName": "train-nodes-use1", "MinSize": 0, '
                         '"MaxSize": 0, "DesiredCapacity": 0}')
            deps: dict = {}
        else:
            body, deps = U(), {"target": [asg]}
        role = res("aws:iam/role:Role", "scheduler-role", {"assumeRolePolicy": "{}"})
        sched = res("aws:scheduler/schedule:Schedule", "train-stop-at",
                    {"scheduleExpression": f"at({at})", "scheduleExpressionTimezone": "UTC",
                     "flexibleTimeWindow": {"mode": "OFF"},
                     "target": {"arn": "arn:aws:scheduler:::aws-sdk:autoscaling:"
                                       "updateAutoScalingGroup",
                                "roleArn": U(), "input": body}},
                    deps={**deps, "target": deps.get("target", []) + [role]})
        return s + [role, sched]
    return mutate


def _gcp_vm(stop: str):
    def mutate(s):
        props = {"zone": "us-west1-c", "machineType": "a3-ultragpu-8g",
                 "bootDisk": {"initializeParams": {"image": "debian-cloud/debian-12"}},
                 "networkInterfaces": [{"network": U(), "subnetwork": U(), "nicType": "GVNIC"}],
                 "scheduling": {"onHostMaintenance": "TERMINATE", "provisioningModel": "STANDARD"}}
        extra, deps = [], {"networkInterfaces": [named(s, "train-net"), named(s, "train-subnet")]}
        if stop == "maxrun":
            props["scheduling"].update(maxRunDuration={"seconds": 24.0 * 3600},
                                       instanceTerminationAction="DELETE")
        elif stop == "schedule":
            pol = res("gcp:compute/resourcePolicy:ResourcePolicy", "vm-stop",
                      {"region": "us-west1", "instanceSchedulePolicy": {
                          "vmStopSchedule": {"schedule": gcp_cron(23)}, "timeZone": "UTC"}})
            extra.append(pol)
            props["resourcePolicies"] = [U()]
            deps["resourcePolicies"] = [pol]
        return s + extra + [res("gcp:compute/instance:Instance", "eval-vm", props, deps=deps)]
    return mutate


def _aws_mixed_one_object(s):
    asg, lt = named(s, "train-nodes"), named(s, "train-lt")
    asg.props.pop("launchTemplate")
    asg.props["mixedInstancesPolicy"] = {
        "launchTemplate": {"launchTemplateSpecification": {"launchTemplateId": U(),
                                                           "version": "$Latest"},
                           "overrides": {"instanceType": "p5.48xlarge"}},
        "instancesDistribution": {"onDemandPercentageAboveBaseCapacity": 100.0}}
    asg.deps["mixedInstancesPolicy"] = [lt]
    asg.deps.pop("launchTemplate")
    return s


def _aws_eks(s):
    sub = named(s, "train-a")
    cluster = res("aws:eks/cluster:Cluster", "serve-eks",
                  {"roleArn": U(), "vpcConfig": {"subnetIds": [U()], "endpointPublicAccess": False,
                                                 "endpointPrivateAccess": True}},
                  deps={"vpcConfig": [sub]})
    ng = res("aws:eks/nodeGroup:NodeGroup", "serve-ng",
             {"clusterName": U(), "nodeRoleArn": U(), "subnetIds": [U()],
              "instanceTypes": "g5.12xlarge", "amiType": "AL2023_x86_64_NVIDIA",
              "scalingConfig": {"desiredSize": 1.0, "maxSize": 2.0, "minSize": 0.0},
              "tags": dict(TAGS)},
             deps={"clusterName": [cluster], "subnetIds": [sub]})
    return s + [cluster, ng]


B4 = [
    ("d1g", "gcp", {"budget": "100000"}, _rmig_zones(U()), {}, None,
     "a regional MIG in us-west1-c (distributionPolicyZones) whose own `region` is another "
     "resource's output. fix60 changed spend fail -> pass: its known distribution zone places it "
     "('a group no known input places in a region'): the Compute API's DistributionPolicy.zones "
     "are 'zones where the regional managed instance group will create and manage its instances' "
     "(compute v1 DistributionPolicy), zones of the group's region, so another region fails at "
     "apply: priced at us-west1, 1 x 86.7599 x 730 = 63,334.73 + 25,164.51 = 88,499.24 < 100,000 "
     "(d1c, with no distribution zones, fails closed)"),
    ("d1h", "gcp", {"budget": "100000"}, _rmig_zones("us-west1"), {}, None,
     "control: the same regional MIG with its region literal: 88,499.24 < 100,000"),
    ("d1i", "aws", {}, _aws_instance(region=U()), {RDMA: "advisory"}, None,
     "an EC2 instance g6.12xlarge whose own `region` is unknown, on the stack's subnet in "
     "us-east-1a: fix60 changed spend fail -> pass as in d1f (the subnet places it in us-east-1): "
     "4.6016 x 730 = 3,359.17 + 12,032.21 = 15,391.38 < 20,000; rdma as in d1j"),
    ("d1j", "aws", {}, _aws_instance(), {RDMA: "advisory"}, None,
     "control: the same instance in the provider's region: 15,391.38 < 20,000; one node: no rdma; "
     "on the stack's private subnet; root volume encrypted; tagged by defaultTags. MY mistake: "
     "rdma's scope is 'GPU capacity of more than one node in total': the lone g6.12xlarge (an EFA "
     "row) beside the 2-node cluster is asked for placement and EFA (advisory)"),
    ("d1k", "azure", {"budget": 30000.0}, _az_classic_region_unknown,
     {SPEND: "fail", SSZ: "undecided"}, None,
     "a classic scale set whose location is another resource's output: cannot be priced (the "
     "azure-native set was, z13); MY mistake on ssz as in d1e: the cloud has an AMLFS GPU "
     "compute may mount, so the unknown region is asked: cannot decide"),
    ("z16", "azure", {"budget": 22500.0}, _az_classic_stop(), {}, None,
     "classic autoscale setting (enabled left out: 'Defaults to true') with a zero fixed-date window "
     "from 96 h past the month on the classic set: 2 x 3.673 x 96 = 705.22 + <= 21,286.07 = "
     "<= 21,991.29 < 22,500 (the month would be 26,648.65)"),
    ("z17", "azure", {"budget": 22500.0}, _az_classic_stop(enabled=False), {SPEND: "fail"}, None,
     "mistake: the classic setting disabled: no stop, 26,648.65 > 22,500"),
    ("a24", "aws", {}, _aws_scheduler_stop(), {}, None,
     "EventBridge Scheduler at(+96 h) calling updateAutoScalingGroup on the group's literal name to "
     "0/0/0 (role ARN unknown): a stop; 12,032.21 < 20,000"),
    ("a25", "aws", {}, _aws_scheduler_stop(literal_name=False), {SPEND: "fail"}, None,
     "mistake-adjacent: the input built from the auto-named group's name is unknown at preview: the "
     "input does not read, no lifetime; the month 81,822.93 > 20,000"),
    ("g15", "gcp", {}, _gcp_vm("maxrun"), {RDMA: "advisory"}, None,
     "a single a3-ultragpu-8g eval VM with maxRunDuration 24 h, DELETE: 86.7599 x 24 = 2,082.24 + "
     "25,164.51 = 27,246.75 < 30,000 (the month: 63,334.73 more); MY mistake: 'one node: no rdma' - "
     "the stack has more than one GPU node in total, so the lone VM is asked (advisory)"),
    ("g16", "gcp", {}, _gcp_vm("schedule"), {RDMA: "advisory"}, None,
     "the same VM stopped by an instance schedule (vmStopSchedule only, +23 h 1 min: 24 h): "
     "27,246.75 < 30,000"),
    ("g17", "gcp", {}, _gcp_vm("none"), {SPEND: "fail", RDMA: "advisory"}, None,
     "mistake: the same VM with no stop: 25,164.51 + 63,334.73 = 88,499.24 > 30,000"),
    ("a26", "aws", {}, _aws_mixed_one_object, {}, None,
     "the ASG by a mixed instances policy whose overrides are one object (read as a list of one): "
     "as the control, 12,032.21 < 20,000, placed, 32 EFA in the template"),
    ("a27", "aws", {"budget": "25000"}, _aws_eks, {}, None,
     "EKS node group, instanceTypes written as one string g5.12xlarge, max 2: 2 x 5.672 x 730 = "
     "8,281.12 + 12,032.21 = 20,313.33 < 25,000; managed pool: rdma leaves it; no remoteAccess"),
]


@pytest.mark.parametrize("case", _params(B4))
def test_batch4(pack, case):
    _run_case(pack, case)


# ------------------------------------------------------------------------------------ batch 5
# Edges of a real network, written as programs write them: a public subnet that only a NAT
# gateway uses, an EIP on the NAT, balancers internal and public, prefix lists, standalone NSG
# rules, Alibaba NAT EIPs and intranet SLBs, GCP internal forwarding rules; CPFS placed by its
# vSwitch only; nodes placed by their template's interface.

def _aws_nat(s):
    vpc = named(s, "train-vpc")
    igw = res("aws:ec2/internetGateway:InternetGateway", "igw", {"vpcId": U()}, deps={"vpcId": [vpc]})
    pub = res("aws:ec2/subnet:Subnet", "public-a",
              {"availabilityZone": "us-east-1a", "vpcId": U(), "cidrBlock": "10.0.100.0/24",
               "mapPublicIpOnLaunch": True}, deps={"vpcId": [vpc]})
    eip = res("aws:ec2/eip:Eip", "nat-ip", {"domain": "vpc"})
    nat = res("aws:ec2/natGateway:NatGateway", "nat",
              {"allocationId": U(), "subnetId": U(), "connectivityType": "public"},
              deps={"allocationId": [eip], "subnetId": [pub]})
    rt = res("aws:ec2/routeTable:RouteTable", "public-rt",
             {"vpcId": U(), "routes": [{"cidrBlock": "0.0.0.0/0", "gatewayId": U()}]},
             deps={"vpcId": [vpc], "routes": [igw]})
    rta = res("aws:ec2/routeTableAssociation:RouteTableAssociation", "public-rta",
              {"subnetId": U(), "routeTableId": U()}, deps={"subnetId": [pub], "routeTableId": [rt]})
    return s + [igw, pub, eip, nat, rt, rta]


def _aws_alb(internal: bool, target: str = "serve"):
    def mutate(s):
        s = _aws_inference()(s)
        s = _aws_nat(s)
        pub, vpc = named(s, "public-a"), named(s, "train-vpc")
        pub_b = res("aws:ec2/subnet:Subnet", "public-b",
                    {"availabilityZone": "us-east-1b", "vpcId": U(), "cidrBlock": "10.0.101.0/24",
                     "mapPublicIpOnLaunch": True}, deps={"vpcId": [vpc]})
        subs = [named(s, "train-a"), named(s, "serve-b")] if internal else [pub, pub_b]
        lb = res("aws:lb/loadBalancer:LoadBalancer", "serve-alb",
                 {"internal": internal, "loadBalancerType": "application", "subnets": [U(), U()],
                  "securityGroups": [U()]},
                 deps={"subnets": subs, "securityGroups": [named(s, "train-sg")]})
        tg = res("aws:lb/targetGroup:TargetGroup", "serve-tg",
                 {"port": 8080.0, "protocol": "HTTP", "vpcId": U(), "targetType": "instance"},
                 deps={"vpcId": [vpc]})
        lis = res("aws:lb/listener:Listener", "serve-http",
                  {"loadBalancerArn": U(), "port": 80.0, "protocol": "HTTP",
                   "defaultActions": [{"type": "forward", "targetGroupArn": U()}]},
                  deps={"loadBalancerArn": [lb], "defaultActions": [tg]})
        asg = named(s, "serve-nodes")
        asg.props["targetGroupArns"] = [U()]
        asg.deps["targetGroupArns"] = [tg]
        # MY builder mistake (first run): public-b was created in the internal case too, unused,
        # and an unused subnet that maps public IPs is not exempt (only NAT/LB-only or edge ones).
        return s + ([] if internal else [pub_b]) + [lb, tg, lis]
    return mutate


def _aws_prefix_list(s):
    pl = res("aws:ec2/managedPrefixList:ManagedPrefixList", "corp",
             {"addressFamily": "IPv4", "maxEntries": 5.0,
              "entries": [{"cidr": "192.168.0.0/16", "description": "office"},
                          {"cidr": "172.16.0.0/12", "description": "vpn"}]})
    rule = res("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule", "corp-ssh",
               {"securityGroupId": U(), "prefixListId": U(), "ipProtocol": "tcp",
                "fromPort": 22.0, "toPort": 22.0},
               deps={"securityGroupId": [named(s, "train-sg")], "prefixListId": [pl]})
    return s + [pl, rule]


def _aws_lt_subnet(s):
    asg, lt, sub = named(s, "train-nodes"), named(s, "train-lt"), named(s, "train-a")
    asg.props.pop("vpcZoneIdentifiers")
    asg.deps.pop("vpcZoneIdentifiers")
    for nic in lt.props["networkInterfaces"]:
        nic["subnetId"] = U()
    lt.deps["networkInterfaces"] = lt.deps["networkInterfaces"] + [sub]
    return s


def _az_rules(cidrs: tuple):
    def mutate(s):
        nsg, rg = named(s, "train-nsg"), named(s, "train-rg")
        return s + [res("azure-native:network:SecurityRule", f"in-{i}",
                        {"resourceGroupName": U(), "networkSecurityGroupName": U(),
                         "access": "Allow", "direction": "Inbound", "priority": 200.0 + i,
                         "protocol": "Tcp", "sourceAddressPrefix": c, "sourcePortRange": "*",
                         "destinationAddressPrefix": "*", "destinationPortRange": "443"},
                        deps={"resourceGroupName": [rg], "networkSecurityGroupName": [nsg]})
                    for i, c in enumerate(cidrs)]
    return mutate


def _ali_nat(instance_type: Optional[str]):
    def mutate(s):
        vpc, vsw = named(s, "train-vpc"), named(s, "train-vsw")
        nat = res("alicloud:vpc/natGateway:NatGateway", "nat",
                  {"vpcId": U(), "vswitchId": U(), "natType": "Enhanced",
                   "paymentType": "PayAsYouGo", "networkType": "internet", "tags": dict(TAGS)},
                  deps={"vpcId": [vpc], "vswitchId": [vsw]})
        eip = res("alicloud:ecs/eipAddress:EipAddress", "nat-ip",
                  {"bandwidth": "100", "internetChargeType": "PayByTraffic", "tags": dict(TAGS)})
        props = {"allocationId": U(), "instanceId": U()}
        if instance_type:
            props["instanceType"] = instance_type
        assoc = res("alicloud:ecs/eipAssociation:EipAssociation", "nat-ip-assoc", props,
                    deps={"allocationId": [eip], "instanceId": [nat]})
        snat = res("alicloud:vpc/snatEntry:SnatEntry", "snat",
                   {"snatTableId": U(), "sourceVswitchId": U(), "snatIp": U()},
                   deps={"snatTableId": [nat], "sourceVswitchId": [vsw], "snatIp": [eip]})
        return s + [nat, eip, assoc, snat]
    return mutate


def _ali_slb(address_type: str):
    def mutate(s):
        vsw = named(s, "train-vsw")
        slb = res("alicloud:slb/loadBalancer:LoadBalancer", "serve-slb",
                  {"addressType": address_type, "loadBalancerSpec": "slb.s2.small",
                   **({"vswitchId": U()} if address_type == "intranet" else {}),
                   "tags": dict(TAGS)},
                  deps={"vswitchId": [vsw]} if address_type == "intranet" else {})
        nodes = [r for r in s if r.type == "alicloud:ecs/instance:Instance"]
        att = res("alicloud:slb/attachment:Attachment", "serve-att",
                  {"loadBalancerId": U(), "instanceIds": [U() for _ in nodes], "weight": 100.0},
                  deps={"loadBalancerId": [slb], "instanceIds": nodes})
        lis = res("alicloud:slb/listener:Listener", "serve-lis",
                  {"loadBalancerId": U(), "frontendPort": 443.0, "backendPort": 8443.0,
                   "protocol": "tcp", "bandwidth": -1.0},
                  deps={"loadBalancerId": [slb]})
        return s + [slb, att, lis]
    return mutate


def _ali_cpfs_by_vswitch(s):
    named(s, "scratch").props.pop("zoneId")
    return s


def _ali_vsw_stackref(s):
    for r in s:
        if r.type == "alicloud:ecs/instance:Instance":
            r.deps.pop("vswitchId")
    return s


def _gcp_ilb(scheme: str):
    def mutate(s):
        mig, net, subnet = named(s, "train-mig"), named(s, "train-net"), named(s, "train-subnet")
        hc = res("gcp:compute/regionHealthCheck:RegionHealthCheck", "hc",
                 {"region": "us-west1", "tcpHealthCheck": {"port": 8080.0}})
        bs = res("gcp:compute/regionBackendService:RegionBackendService", "serve-bs",
                 {"region": "us-west1", "loadBalancingScheme": scheme, "protocol": "TCP",
                  "healthChecks": U(), "backends": [{"group": U(), "balancingMode": "CONNECTION"}]},
                 deps={"healthChecks": [hc], "backends": [mig]})
        fr = res("gcp:compute/forwardingRule:ForwardingRule", "serve-fr",
                 {"region": "us-west1", "loadBalancingScheme": scheme, "backendService": U(),
                  "ports": ["8080"], "ipProtocol": "TCP",
                  **({"network": U(), "subnetwork": U()} if scheme == "INTERNAL" else {})},
                 deps={"backendService": [bs], **({"network": [net], "subnetwork": [subnet]}
                                                  if scheme == "INTERNAL" else {})})
        return s + [hc, bs, fr]
    return mutate


B5 = [
    ("a28", "aws", {}, _aws_nat, {}, None,
     "a public subnet (mapPublicIpOnLaunch) used only by a NAT gateway, the NAT's EIP (no "
     "instance), an IGW route: docs 'a subnet that only NAT gateways and load balancers use may map "
     "public IPs'; the GPU nodes stay on the private subnet"),
    ("a29", "aws", {"budget": "40000"}, _aws_alb(internal=True), {}, None,
     "an internal ALB forwarding to the inference ASG's target group: nothing from the internet; "
     "28,594.45 < 40,000 (the ALB itself is not priced by the docs)"),
    ("a30", "aws", {"budget": "40000"}, _aws_alb(internal=False), {NPI: "fail"}, None,
     "mistake: the ALB internet-facing (internal false) in the public subnets, forwarding to the "
     "GPU inference group: GPU nodes behind an internet-facing balancer"),
    ("a31", "aws", {}, _aws_prefix_list, {}, None,
     "SSH from the stack's managed prefix list (id unknown, by dependency) holding only private "
     "ranges: no world-open source"),
    ("a32", "aws", {}, _aws_lt_subnet, {SSZ: "fail"}, None,
     "the ASG names no subnet, only its template's interfaces do. MY mistake: I expected a pass, but "
     "an Auto Scaling group must name vpcZoneIdentifiers or availabilityZones (it does not take the "
     "template's subnet), so this is no correct stack; the documented 'zone cannot be read' stands"),
    ("z18", "azure", {}, _az_rules(("10.2.0.0/17", "10.2.128.0/17")), {}, None,
     "two standalone NSG rules on the stack's NSG (name unknown, by dependency), both in the VNet"),
    ("z19", "azure", {}, _az_rules(("0.0.0.0/1", "128.0.0.0/1")), {NPI: "fail"}, None,
     "mistake: the two halves of all addresses on one NSG by dependency: world-open, on the group"),
    ("b07", "ali", {}, _ali_nat("Nat"), {}, None,
     "an EIP on the NAT gateway (instanceType Nat) for egress, SNAT for the vSwitch: no public IP on "
     "a node; the NAT and EIP are not compute"),
    ("b08", "ali", {}, _ali_nat(None), {NPI: "fail"}, None,
     "the same EIP association without instanceType. MY mistake: I expected a pass by the NAT "
     "dependency, but pulumi-alicloud ecs.EipAssociation's instance_type defaults to EcsInstance "
     "and 'If the instance ... is not an ECS instance, this parameter is required': as written it "
     "asks for an ECS binding, so the violation stands"),
    ("b09", "ali", {}, _ali_slb("intranet"), {}, None,
     "an intranet SLB in the vSwitch attaching the GPU nodes: not internet-facing"),
    ("b10", "ali", {}, _ali_slb("internet"), {NPI: "fail"}, None,
     "mistake: the SLB addressType internet attaching the GPU nodes"),
    ("b11", "ali", {}, _ali_cpfs_by_vswitch, {}, None,
     "CPFS with zoneId left out, its vswitchId the stack's vSwitch (id unknown, zone literal "
     "eu-central-1a): the zone is read through the dependency, same as the nodes'"),
    ("b12", "ali", {}, _ali_vsw_stackref, {SSZ: "undecided"}, None,
     "the nodes' vSwitch from a stack reference (unknown, no stack vSwitch behind it): documented "
     "cannot decide, at the advisory default"),
    ("g18", "gcp", {}, _gcp_ilb("INTERNAL"), {}, None,
     "an internal passthrough balancer (INTERNAL) to the training MIG: not external"),
    ("g19", "gcp", {}, _gcp_ilb("EXTERNAL"), {NPI: "fail"}, None,
     "mistake: the same with scheme EXTERNAL: the MIG behind an external forwarding rule"),
]


@pytest.mark.parametrize("case", _params(B5))
def test_batch5(pack, case):
    _run_case(pack, case)


# ------------------------------------------------------------------------------------ batch 6
# DEFECT 2's reach: which unknowns in a launch template's interfaces, which public subnets, and
# what it costs a team that sets no-public-ingress' cannotDecide to mandatory.

def _edge_subnet(s):
    vpc = named(s, "train-vpc")
    return s + [res("aws:ec2/subnet:Subnet", "edge-a",
                    {"availabilityZone": "us-east-1a", "vpcId": U(), "cidrBlock": "10.0.200.0/24",
                     "mapPublicIpOnLaunch": True, "tags": {"kubernetes.io/role/elb": "1"}},
                    deps={"vpcId": [vpc]})]


def _lt_literal_sgs(s):
    lt = named(s, "train-lt")
    for nic in lt.props["networkInterfaces"]:
        nic["securityGroups"] = ["sg-0123456789abcdef0"]
    lt.deps.pop("networkInterfaces")
    return s


def _lt_nic_subnet(s):
    lt = named(s, "train-lt")
    for nic in lt.props["networkInterfaces"]:
        nic["subnetId"] = U()
    lt.deps["networkInterfaces"] = lt.deps["networkInterfaces"] + [named(s, "train-a")]
    return s


def _lt_no_nics(s):
    lt = named(s, "train-lt")
    lt.props.pop("networkInterfaces")
    lt.props["vpcSecurityGroupIds"] = [U()]
    lt.deps["vpcSecurityGroupIds"] = lt.deps.pop("networkInterfaces")
    return s


def _then(*fs):
    def mutate(s):
        for f in fs:
            s = f(s)
        return s
    return mutate


NPI_STRICT = {NPI: {"cannotDecide": "mandatory"}}

B6 = [
    ("e01", "aws", {}, _edge_subnet, {}, None,
     "smallest: the control plus one unused edge subnet (kubernetes.io/role/elb: 1, maps public "
     "IPs): edge subnets may map; the template's interfaces name no subnet, the ASG its private one"),
    ("e02", "aws", {}, _then(_aws_nat, _lt_literal_sgs), {}, None,
     "the NAT-only public subnet with the template's interface security groups literal: no unknown "
     "in the interfaces at all: passes"),
    ("e03", "aws", {}, _then(_aws_nat, _lt_nic_subnet), {}, None,
     "the interfaces name the private subnet of the stack by dependency (id unknown): placed there "
     "for certain (the ASG names the same subnet)"),
    ("e04", "aws", {}, _then(_aws_nat, _lt_no_nics), {RDMA: "advisory"}, None,
     "a template with no interfaces (vpcSecurityGroupIds unknown instead) beside the NAT-only public "
     "subnet: no-public-ingress passes (nothing in it could be a subnet); rdma: a p5.48xlarge with "
     "no EFA interfaces misses its fabric (advisory)"),
    ("e05", "aws", {}, _aws_nat, {}, NPI_STRICT,
     "a28 under no-public-ingress cannotDecide mandatory: the docs' verdict is still a pass"),
    ("e06", "aws", {}, None, {}, NPI_STRICT,
     "control: the plain cluster under cannotDecide mandatory passes no-public-ingress"),
]

@pytest.mark.parametrize("case", _params(B6))
def test_batch6(pack, case):
    _run_case(pack, case)


# ------------------------------------------------------------------------------------ batch 7
# DEFECT 2 beyond the classic template: an aws-native template and group, a classic instance.

def _native(s):
    lt, asg, sub, pg = (named(s, n) for n in ("train-lt", "train-nodes", "train-a", "train-pg"))
    fs, bucket, sg = named(s, "scratch"), named(s, "datasets"), named(s, "train-sg")
    nics = [{"networkCardIndex": float(c), "deviceIndex": 0.0 if c == 0 else 1.0,
             "interfaceType": "efa", "groups": [U()], "deleteOnTermination": True}
            for c in range(32)]
    nlt = res("aws-native:ec2:LaunchTemplate", "train-nlt", {"launchTemplateData": {
        "instanceType": "p5.48xlarge", "imageId": "ami-0123456789abcdef0", "networkInterfaces": nics,
        "userData": U(), "blockDeviceMappings": [{"deviceName": "/dev/xvda", "ebs": {
            "volumeSize": 500, "volumeType": "gp3", "encrypted": True}}],
        "tagSpecifications": [{"resourceType": "instance",
                               "tags": [{"key": k, "value": v} for k, v in TAGS.items()]}]}},
        deps={"launchTemplateData": [fs, bucket, sg]})
    nasg = res("aws-native:autoscaling:AutoScalingGroup", "train-nasg",
               {"minSize": "0", "maxSize": "2", "desiredCapacity": "2", "placementGroup": U(),
                "vpcZoneIdentifier": [U()],
                "launchTemplate": {"launchTemplateId": U(), "version": U()},
                "tags": [{"key": k, "value": v, "propagateAtLaunch": True} for k, v in TAGS.items()]},
               deps={"launchTemplate": [nlt], "vpcZoneIdentifier": [sub], "placementGroup": [pg]})
    drop = {"train-lt", "train-nodes", "train-stop"}
    return [r for r in s if r.name not in drop] + [nlt, nasg]


B7 = [
    ("f01", "aws", {"budget": "90000"}, _native, {}, None,
     "control: an aws-native template (32 EFA interfaces, groups unknown) and aws-native group on "
     "the private subnet and cluster placement group of the stack, no stop: 2 x 55.04 x 730 = "
     "80,358.40 + 1,464.53 = 81,822.93 < 90,000"),
    ("f02", "aws", {"budget": "90000"}, _then(_native, _aws_nat), {}, None,
     "the same beside a NAT-only public subnet: the interfaces name no subnet, the group its "
     "private one: passes"),
    ("f03", "aws", {}, _then(_aws_nat, _aws_instance()), {RDMA: "advisory"}, None,
     "a classic g6.12xlarge instance on the private subnet (id unknown, by dependency), SGs unknown, "
     "beside the NAT-only public subnet: not public; rdma as in d1j (lone EFA-row node beside the "
     "cluster)"),
]

@pytest.mark.parametrize("case", _params(B7))
def test_batch7(pack, case):
    _run_case(pack, case)


# ------------------------------------------------------------------------------------ batch 8
# Budgets as careful teams filter and date them: every filter below takes the GPU compute in, so
# each must stay the cap and the alarm (12,032.21 < 20,000; 25,164.51 < 30,000; <= 21,286.07 <
# 25,000).

def _aws_filter(*filters):
    def mutate(s):
        named(s, "train-budget").props["costFilters"] = [
            {"name": n, "values": list(v)} for n, v in filters]
        return s
    return mutate


def _aws_period(s):
    now = datetime.now(timezone.utc)
    named(s, "train-budget").props.update(timePeriodStart=f"{now.year:04d}-{now.month:02d}-01_00:00",
                                          timePeriodEnd="2087-06-15_00:00")
    return s


def _gcp_filter(**extra):
    def mutate(s):
        named(s, "train-budget").props["budgetFilter"].update(extra)
        return s
    return mutate


def _gcp_mig_labels(s):
    named(s, "train-mig").props["allInstancesConfig"] = {"labels": {"team": "vision"}}
    named(s, "train-budget").props["budgetFilter"]["labels"] = {"team": "vision"}
    return s


def _az_filter(name: str, values: list):
    def mutate(s):
        named(s, "train-budget").props["filter"] = {"dimensions": {
            "name": name, "operator": "In", "values": values}}
        return s
    return mutate


def _az_period_end(s):
    named(s, "train-budget").props["timePeriod"]["endDate"] = "2030-12-01T00:00:00Z"
    return s


B8 = [
    ("h01", "aws", {}, _aws_filter(("AZ", ["us-east-1a"])), {}, None,
     "AZ filter us-east-1a: the nodes' subnet (id unknown) is in us-east-1a"),
    ("h02", "aws", {}, _aws_filter(("InstanceType", ["p5.48xlarge"])), {}, None,
     "InstanceType p5.48xlarge: the group's type"),
    ("h03", "aws", {}, _aws_filter(("UsageType", ["USE1-BoxUsage:p5.48xlarge",
                                                  "BoxUsage:p5.48xlarge"])), {}, None,
     "UsageType of the On-Demand instance hours in us-east-1, with and without the USE1 prefix"),
    ("h04", "aws", {}, _aws_filter(("BillingEntity", ["AWS"])), {}, None,
     "BillingEntity AWS takes EC2 in"),
    ("h05", "aws", {}, _aws_period, {}, None,
     "the budget's timePeriodStart is the first of this month, its end 2087 (the API's own "
     "YYYY-MM-DD_HH:MM form): tracking now"),
    ("h06", "gcp", {}, _gcp_filter(services=["services/6F81-5844-456A"]), {}, None,
     "services filter Compute Engine: takes the VMs in"),
    ("h07", "gcp", {}, _gcp_filter(projects=["projects/ml"]), {}, None,
     "projects filter by the provider's project id"),
    ("h08", "gcp", {}, _gcp_mig_labels, {}, None,
     "labels filter team=vision, the MIG's allInstancesConfig.labels giving the VMs team=vision"),
    ("h09", "azure", {}, _az_filter("ResourceLocation", ["East US"]), {}, None,
     "ResourceLocation 'East US' (spaces and case ignored) = eastus"),
    ("h10", "azure", {}, _az_filter("MeterCategory", ["Virtual Machines"]), {}, None,
     "MeterCategory Virtual Machines: the scale set's meters"),
    ("h11", "azure", {}, _az_filter("ServiceFamily", ["Compute"]), {}, None,
     "ServiceFamily Compute"),
    ("h12", "azure", {}, _az_period_end, {}, None,
     "timePeriod from the first of this month to 2030: tracking now"),
]


@pytest.mark.parametrize("case", _params(B8))
def test_batch8(pack, case):
    _run_case(pack, case)


# ------------------------------------------------------------------------------------ batch 9
# Where "cannot decide" is and is not documented: an instance placed by its own literal zone on a
# subnet from a stack reference; a scale set's zones unknown; GKE labels set twice.

def _inst_stackref(public_off: bool):
    def mutate(s):
        props = {"instanceType": "g6.12xlarge", "ami": "ami-0123456789abcdef0", "subnetId": U(),
                 "availabilityZone": "us-east-1a", "vpcSecurityGroupIds": ["sg-0123456789abcdef0"],
                 "rootBlockDevice": {"volumeSize": 200.0, "encrypted": True}}
        if public_off:
            props["associatePublicIpAddress"] = False
        return s + [res("aws:ec2/instance:Instance", "notebook", props)]
    return mutate


def _gke_pool_labels(team: str):
    def mutate(s):
        s = _gke_budget_by_label(s)
        named(s, "serve-l4").props["nodeConfig"]["resourceLabels"] = {"team": team}
        return s
    return mutate


B9 = [
    ("i01", "aws", {}, _inst_stackref(public_off=True), {RDMA: "advisory"}, None,
     "an instance whose subnet comes from a stack reference but names its availabilityZone "
     "us-east-1a (docs: its availabilityZone first) and turns public IPs off itself: ssz decides "
     "(same zone), no-public-ingress passes; rdma: the lone EFA-row node beside the cluster (d1j)"),
    ("i02", "aws", {}, _inst_stackref(public_off=False), {RDMA: "advisory", NPI: "undecided"}, None,
     "the same without associatePublicIpAddress false: the unknown subnet may map public IPs: "
     "documented cannot decide (advisory default)"),
    ("i03", "azure", {}, lambda s: _set(s, "train-vmss", "zones", U()), {SSZ: "undecided"}, None,
     "the scale set's zones unknown at preview, the AMLFS it mounts in zone 1: cannot decide"),
    ("i04", "gcp", {}, _gke_pool_labels("vision"), {}, None,
     "the GKE pool's nodeConfig.resourceLabels team=vision agrees with the cluster's: covered by the "
     "team=vision budget (as g04)"),
    ("i05", "gcp", {}, _gke_pool_labels("serving"), {SPEND: "undecided"}, None,
     "the pool says team=serving, the cluster team=vision: which one a node gets is not stated: "
     "cannot decide whether the labels budget takes the pool in (docs), the only budget"),
]


@pytest.mark.parametrize("case", _params(B9))
def test_batch9(pack, case):
    _run_case(pack, case)
