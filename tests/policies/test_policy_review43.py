"""Issue 35, a fresh BLIND hostile review (helper review43): 70 NEW stacks written the way teams
write Pulumi programs for GPU training and inference on the four clouds (shapes from provider
docs and the blueprints teams copy: Cluster Toolkit, awsome-distributed-training, azhpc, the
Alibaba PAI/ACK guides), driven over gRPC as `pulumi preview --policy-pack` drives the pack
(tests/policy_harness.py). The pack's rule code was not read: the cases come from the issue's
classes and docs/policies.md's promises. No stack of test_policy_review3*/4*.py or
test_policy_m2_budgets.py is repeated; only small builders and the verdict reader of
test_policy_review35f.py are imported.

Each docstring gives the expected verdict written BEFORE the first run: "pass", "fail" (a
mandatory violation that decides), "undecided" ("cannot decide"), or "not pass" (either), and
the figure where a price is involved, worked by hand from policies/catalog_data/prices.csv rows
(on-demand USD/h; each row cites its public source). A month is 730 h. Rates used:
  aws us-east-1: p5.48xlarge 55.04; g6e.12xlarge 10.4926; g5.12xlarge 5.672; g5.2xlarge 1.212;
    g5.xlarge 1.006; g6.xlarge 0.8048; p4d.24xlarge 21.9576; gr6.4xlarge 1.5392;
    g6f.large 0.202; us-west-2: inf2.48xlarge 12.9813.
  gcp us-central1: a2-highgpu-1g 3.67339; g2-standard-8 0.853624; a3-highgpu-1g 11.0612;
    a3-highgpu-8g 88.49; g4-standard-48 4.49993.
  azure: eastus Standard_NC24ads_A100_v4 3.673, Standard_ND96isr_H100_v5 98.32; centralus
    Standard_NG32ads_V620_v1 3.12.
  alibaba eu-central-1: ecs.gn7i-c8g1.2xlarge 2.56083; ecs.gn8is.2xlarge 3.05192;
    ecs.sgn7i-vws-m2.xlarge 0.271691.

Classes: A reservation + consumer once, B Capacity Blocks, C odd compute, D stops that do not
stop, E misscoped budgets, F malformed values, G scope, H literal ids, I public exposure,
J config typos, K catalog reach, L whole stacks.
"""
from __future__ import annotations

import json
import math
import re
from datetime import datetime, timedelta, timezone

import pytest

from tests.policies.test_policy_review35f import (
    AWS, AZ, GCP, LABELS, MONTH, NPI, SPEND, SSZ, SUB, TAGS, asg, aws_budget, az_budget, cpfs,
    ec2, ecs, estimate, fsx, gcp_budget, glustre, gtemplate, gvm, judged, lt, messages, mig,
    near, subnet, verdict, vmss, vsw,
)
from tests.policies.test_policy_review41 import _config_refused
from tests.policy_fixtures import AZURE_ALERTS, hours_from_now, res
from tests.policy_harness import run

ALI = {"region": "eu-central-1"}
P5, G6E_12, G5_12, G5_2, G6_1 = 55.04, 10.4926, 5.672, 1.212, 0.8048
P4D = 21.9576
A2_1, G2_8, A3_1, A3_8, G4_48 = 3.67339, 0.853624, 11.0612, 88.49, 4.49993
NC24, ND_H100 = 3.673, 98.32
GN7I_8, GN8IS_2 = 2.56083, 3.05192
BR, ENC = "bucket-retained", "encryption-at-rest"
CLASSIC_RG = "azure:core/resourceGroup:ResourceGroup"


def _lifetime_ok(got, rate, hours):
    """Lifetimes are priced in whole hours rounded up (documented decision)."""
    return rate * hours - 2 <= got <= rate * math.ceil(hours) + 2


def _named(found, policy, name):
    return any(name in d.message for d in judged(found) if d.policy == policy)


def _odcr(name, itype, count, zone="us-east-1a", **p):
    return res("aws:ec2/capacityReservation:CapacityReservation", name, {
        "instanceType": itype, "instancePlatform": "Linux/UNIX", "availabilityZone": zone,
        "instanceCount": float(count), "tags": TAGS, **p})


def _targeting(template, target):
    template.props["capacityReservationSpecification"] = {
        "capacityReservationTarget": {"capacityReservationId": "cr-id"}}
    template.deps["capacityReservationSpecification"] = [target]
    return template


def _native_lt(name, itype, **data):
    return res("aws-native:ec2:LaunchTemplate", name, {"launchTemplateData": {
        "instanceType": itype, "imageId": "ami-0a1b2c3d4e5f60718", **data}})


def _native_asg(name, template, subnets, size, **p):
    return res("aws-native:autoscaling:AutoScalingGroup", name, {
        "autoScalingGroupName": name, "minSize": "0", "maxSize": str(size),
        "desiredCapacity": str(size),
        "launchTemplate": {"launchTemplateId": "lt-id", "version": "1"},
        "vpcZoneIdentifier": ["subnet-id"] * len(subnets),
        "tags": [{"key": k, "value": v, "propagateAtLaunch": True} for k, v in TAGS.items()],
        **p}, deps={"launchTemplate": [template], "vpcZoneIdentifier": list(subnets)})


def _gcp_reservation(name, mtype, count, zone="us-central1-a", required=True):
    return res("gcp:compute/reservation:Reservation", name, {
        "name": name, "zone": zone, "specificReservationRequired": required,
        "specificReservation": {"count": float(count),
                                "instanceProperties": {"machineType": mtype}}})


def _classic_vmss(name, size, instances, zones=("1",), rg="ml-rg", **p):
    return res("azure:compute/linuxVirtualMachineScaleSet:LinuxVirtualMachineScaleSet", name, {
        "resourceGroupName": rg, "location": "eastus", "sku": size, "instances": float(instances),
        "zones": list(zones), "adminUsername": "azureuser", "tags": TAGS,
        "sourceImageReference": {"publisher": "microsoft-dsvm", "offer": "ubuntu-hpc",
                                 "sku": "2204", "version": "latest"},
        "osDisk": {"caching": "ReadWrite", "storageAccountType": "Premium_LRS"},
        "networkInterfaces": [{"name": "nic", "primary": True, "ipConfigurations": [
            {"name": "ip", "primary": True, "subnetId": "subnet-id"}]}], **p})


def _scheduler(name, action, payload, expr, deps=None, **p):
    return res("aws:scheduler/schedule:Schedule", name, {
        "scheduleExpression": expr, "flexibleTimeWindow": {"mode": "OFF"},
        "target": {"arn": f"arn:aws:scheduler:::aws-sdk:{action}",
                   "roleArn": "arn:aws:iam::111122223333:role/scheduler",
                   "input": json.dumps(payload)}, **p}, deps=deps or {})


def _at(hours):
    when = datetime.now(timezone.utc) + timedelta(hours=hours)
    return "at(" + when.strftime("%Y-%m-%dT%H:%M:%S") + ")"


def _classic_sub_budget(amount=20000.0, notifications=None, name="sub-budget"):
    return res("azure:consumption/budgetSubscription:BudgetSubscription", name, {
        "subscriptionId": SUB, "amount": amount, "timeGrain": "Monthly",
        "timePeriod": {"startDate": "2026-12-01T00:00:00Z"},
        "notifications": notifications or [{"enabled": True, "threshold": 80.0,
                                             "operator": "GreaterThan",
                                             "contactEmails": ["ml-platform@example.com"]}]})


def _bucket(name, **p):
    b = res("aws:s3/bucketV2:BucketV2", name, {"forceDestroy": False, "tags": TAGS, **p})
    b.protect = True
    return b


# ============================================== A. reservation + consumer, priced once

def test_a1_eks_node_group_in_targeted_odcr_priced_once(pack):
    """awsome-distributed-training's EKS pattern: a targeted ODCR of 2 p5.48xlarge in us-east-1a,
    a launch template whose capacityReservationSpecification targets it (by dependency) and an
    EKS managed node group of max 2 from that template. The ODCR bills 2 nodes whether used or
    not; the nodes run inside it (docs: "reservation and consumer are counted once").
    Expect: 2 x 55.04 x 730 = 80,358.40."""
    s = subnet("a1-sn", "us-east-1a")
    cr = _odcr("a1-odcr", "p5.48xlarge", 2, instanceMatchCriteria="targeted")
    t = _targeting(lt("a1-lt", "p5.48xlarge"), cr)
    ng = res("aws:eks/nodeGroup:NodeGroup", "a1-ng", {
        "clusterName": "train", "nodeRoleArn": "arn:aws:iam::111122223333:role/eks-node",
        "subnetIds": ["subnet-id"], "launchTemplate": {"id": "lt-id", "version": "1"},
        "scalingConfig": {"minSize": 0.0, "maxSize": 2.0, "desiredSize": 2.0}, "tags": TAGS},
        deps={"subnetIds": [s], "launchTemplate": [t]})
    assert near(estimate(pack, [s, cr, t, ng, aws_budget("200000")], AWS), 2 * P5 * MONTH)


def test_a2_aws_native_open_odcr_and_native_group_priced_once(pack):
    """An aws-native CapacityReservation of 3 g6e.12xlarge in us-east-1a (instanceMatchCriteria
    left out: open, the default) and an aws-native group of 3 g6e.12xlarge on a us-east-1a
    subnet (On-Demand, preference open by default: it runs in the open ODCR).
    Expect: 3 x 10.4926 x 730 = 22,978.79, once."""
    s = subnet("a2-sn", "us-east-1a")
    cr = res("aws-native:ec2:CapacityReservation", "a2-odcr", {
        "instanceType": "g6e.12xlarge", "instancePlatform": "Linux/UNIX",
        "availabilityZone": "us-east-1a", "instanceCount": 3})
    t = _native_lt("a2-lt", "g6e.12xlarge")
    g = _native_asg("a2-grp", t, [s], 3)
    assert near(estimate(pack, [s, cr, t, g, aws_budget()], AWS), 3 * G6E_12 * MONTH)


def test_a3_rhel_odcr_does_not_take_linux_nodes(pack):
    """An open ODCR of 2 g5.12xlarge for platform "Red Hat Enterprise Linux" and a Linux ASG of
    2 g5.12xlarge in the same zone: "the instance's platform ... must match" the reservation's
    (docs.aws.amazon.com/AWSEC2/latest/UserGuide/capacity-reservations-launch.html); docs:
    instancePlatform compared, Linux/UNIX unless the nodes show Windows. Both bill.
    Expect: (2 + 2) x 5.672 x 730 = 16,562.24."""
    s = subnet("a3-sn", "us-east-1a")
    cr = _odcr("a3-odcr", "g5.12xlarge", 2, instancePlatform="Red Hat Enterprise Linux")
    t = lt("a3-lt", "g5.12xlarge")
    g = asg("a3-grp", t, [s], 2)
    assert near(estimate(pack, [s, cr, t, g, aws_budget()], AWS), 4 * G5_12 * MONTH)


def test_a4_gcp_instances_from_template_in_specific_reservation_once(pack):
    """Cluster Toolkit style: a specific-only reservation of 2 a2-highgpu-1g in us-central1-a,
    an instance template with reservationAffinity SPECIFIC_RESERVATION naming it, and two
    InstanceFromTemplate VMs in us-central1-a from that template (an InstanceFromTemplate is one
    VM of its source template). Expect: 2 x 3.67339 x 730 = 5,363.15, once."""
    r = _gcp_reservation("a4-res", "a2-highgpu-1g", 2)
    t = gtemplate("a4-tpl", "a2-highgpu-1g", reservationAffinity={
        "type": "SPECIFIC_RESERVATION", "specificReservation": {
            "key": "compute.googleapis.com/reservation-name", "values": ["a4-res"]}})
    t.deps["reservationAffinity"] = [r]
    vms = [res("gcp:compute/instanceFromTemplate:InstanceFromTemplate", f"a4-vm{i}", {
        "zone": "us-central1-a", "sourceInstanceTemplate": "tpl-self-link", "labels": LABELS},
        deps={"sourceInstanceTemplate": [t]}) for i in range(2)]
    assert near(estimate(pack, [r, t, *vms, gcp_budget()], GCP), 2 * A2_1 * MONTH)



def test_a6_classic_azure_scale_set_in_classic_reservation_once(pack):
    """azurerm: a capacity reservation group, a CapacityReservation of 2 Standard_NC24ads_A100_v4
    in zone 1, and a LinuxVirtualMachineScaleSet of 2 of that size in zone 1 whose
    capacityReservationGroupId is the group (by dependency). Reservation and consumer once.
    Expect: 2 x 3.673 x 730 = 5,362.58."""
    crg = res("azure:compute/capacityReservationGroup:CapacityReservationGroup", "a6-crg", {
        "resourceGroupName": "ml-rg", "location": "eastus", "zones": ["1"], "tags": TAGS})
    cr = res("azure:compute/capacityReservation:CapacityReservation", "a6-cr", {
        "capacityReservationGroupId": "crg-id", "zone": "1",
        "sku": {"name": "Standard_NC24ads_A100_v4", "capacity": 2.0}, "tags": TAGS},
        deps={"capacityReservationGroupId": [crg]})
    ss = _classic_vmss("a6-vmss", "Standard_NC24ads_A100_v4", 2,
                       capacityReservationGroupId="crg-id")
    ss.deps["capacityReservationGroupId"] = [crg]
    got = estimate(pack, [crg, cr, ss, _classic_sub_budget()], AZ)
    assert near(got, 2 * NC24 * MONTH), got


def test_a7_alibaba_open_reservation_of_another_type_absorbs_nothing(pack):
    """An Alibaba open capacity reservation of 2 ecs.gn7i-c8g1.2xlarge in eu-central-1a, Limited
    to 72 h, and two Open pay-as-you-go ecs.gn8is.2xlarge instances there released in 72 h: an
    open private pool takes instances "of the same instance type" only
    (alibabacloud.com/help/en/ecs/user-guide/use-immediate-capacity-reservations). Both bill.
    Expect: (2 x 2.56083 + 2 x 3.05192) x 72 = 808.24 (whole hours rounded up: at most x 73)."""
    sw = vsw("a7-vsw")
    cr = res("alicloud:ecs/capacityReservation:CapacityReservation", "a7-cr", {
        "instanceType": "ecs.gn7i-c8g1.2xlarge", "instanceAmount": 2.0,
        "zoneIds": ["eu-central-1a"], "endTimeType": "Limited", "endTime": hours_from_now(72),
        "matchCriteria": "Open", "platform": "linux", "tags": TAGS})
    nodes = [ecs(f"a7-n{i}", "ecs.gn8is.2xlarge", switch=sw, release="72h",
                 privatePoolOptionsMatchCriteria="Open") for i in range(2)]
    got = estimate(pack, [sw, cr, *nodes], ALI)
    assert _lifetime_ok(got, 2 * GN7I_8 + 2 * GN8IS_2, 72), got


# ============================================== B. Capacity Blocks

def test_b1_aws_native_group_in_a_capacity_block_at_its_fee(pack):
    """An aws-native launch template with instanceMarketOptions.marketType capacity-block and a
    literal block id, and an aws-native group "b1-blk" of 2 p5.48xlarge from it; config
    capacityBlockFeesUsd {"b1-blk": 28000} (the offering's UpfrontFee). Docs: priced at the fee,
    the whole fee in one month, never on demand (2 x 55.04 x 730 = 80,358.40).
    Expect: 28,000."""
    s = subnet("b1-sn", "us-east-1a")
    t = _native_lt("b1-lt", "p5.48xlarge", instanceMarketOptions={"marketType": "capacity-block"},
                   capacityReservationSpecification={"capacityReservationTarget": {
                       "capacityReservationId": "cr-0b1a2c3d4e5f60718"}})
    g = _native_asg("b1-blk", t, [s], 2)
    got = estimate(pack, [s, t, g, aws_budget("200000")], AWS,
                   {"capacityBlockFeesUsd": {"b1-blk": 28000}})
    assert near(got, 28000), got


def test_b2_single_instance_in_a_block_without_fee_cannot_be_estimated(pack):
    """An aws.ec2.Instance p5.48xlarge with instanceMarketOptions.marketType capacity-block and a
    literal block id, no fee in config, a 1,000,000 budget. Docs: without a fee the block is
    GPU capacity that cannot be estimated (mandatory). Expect: spend-limit fail."""
    s = subnet("b2-sn", "us-east-1a")
    i = ec2("b2-node", "p5.48xlarge", s, instanceMarketOptions={"marketType": "capacity-block"},
            capacityReservationSpecification={"capacityReservationTarget": {
                "capacityReservationId": "cr-0b2a2c3d4e5f60718"}})
    found = run(pack, [s, i, aws_budget("1000000")], provider=AWS)
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)


def test_b3_bought_block_and_its_group_priced_once_at_the_fee(pack):
    """The stack buys a block (aws:ec2/capacityBlockReservation) and an ASG "b3-train" of 4
    p5.48xlarge launches into it (its template targets the block by dependency); fee 31,000
    under the group's name. Docs: "one a group launches into is priced with that group, once".
    Expect: estimate 31,000 (not 62,000); budget 40,000 passes, budget 20,000 fails."""
    s = subnet("b3-sn", "us-east-1a")
    blk = res("aws:ec2/capacityBlockReservation:CapacityBlockReservation", "b3-block", {
        "capacityBlockOfferingId": "cb-0b3a2c3d4e5f60718", "instancePlatform": "Linux/UNIX",
        "tags": TAGS})
    t = _targeting(lt("b3-lt", "p5.48xlarge",
                      instanceMarketOptions={"marketType": "capacity-block"}), blk)
    g = asg("b3-train", t, [s], 4)
    fees = {"capacityBlockFeesUsd": {"b3-train": 31000}}
    assert near(estimate(pack, [s, blk, t, g, aws_budget()], AWS, fees), 31000)
    ok = run(pack, [s, blk, t, g, aws_budget("40000")], {SPEND: fees}, provider=AWS)
    assert verdict(ok, SPEND) == "pass", messages(ok, SPEND)
    low = run(pack, [s, blk, t, g, aws_budget("20000")], {SPEND: fees}, provider=AWS)
    assert verdict(low, SPEND) == "fail", messages(low, SPEND)


# ============================================== C. compute the pack must see as compute

def test_c1_aws_native_instant_fleet_of_l4_needs_the_alarm(pack):
    """An aws-native Ec2Fleet (type instant) of 4 on-demand g6.xlarge (type and subnet from its
    override) and no budget. It is GPU capacity (docs scope: EC2 Fleet; coverage lists
    aws-native:ec2:Ec2Fleet). Expect: spend-limit fail (no budget alarm on aws)."""
    s = subnet("c1-sn", "us-east-1a")
    t = _native_lt("c1-lt", "g6.xlarge")
    fleet = res("aws-native:ec2:Ec2Fleet", "c1-fleet", {
        "type": "instant", "launchTemplateConfigs": [{
            "launchTemplateSpecification": {"launchTemplateId": "lt-id", "version": "1"},
            "overrides": [{"instanceType": "g6.xlarge", "subnetId": "subnet-id"}]}],
        "targetCapacitySpecification": {"totalTargetCapacity": 4,
                                        "defaultTargetCapacityType": "on-demand"}},
        deps={"launchTemplateConfigs": [t, s]})
    found = run(pack, [s, t, fleet], provider=AWS)
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)


def test_c2_instance_from_regional_template_priced(pack):
    """A gcp InstanceFromTemplate in us-central1-b from a RegionInstanceTemplate of
    a2-highgpu-1g (no machine type of its own). Expect: 3.67339 x 730 = 2,681.57."""
    t = res("gcp:compute/regionInstanceTemplate:RegionInstanceTemplate", "c2-tpl", {
        "region": "us-central1", "machineType": "a2-highgpu-1g",
        "disks": [{"sourceImage": "debian-cloud/debian-12", "boot": True}],
        "networkInterfaces": [{"network": "default"}], "labels": LABELS,
        "scheduling": {"onHostMaintenance": "TERMINATE"}})
    vm = res("gcp:compute/instanceFromTemplate:InstanceFromTemplate", "c2-vm", {
        "zone": "us-central1-b", "sourceInstanceTemplate": "tpl-id", "labels": LABELS},
        deps={"sourceInstanceTemplate": [t]})
    assert near(estimate(pack, [t, vm, gcp_budget()], GCP), A2_1 * MONTH)


def test_c3_spot_request_from_a_launch_template_needs_the_alarm(pack):
    """An aws.ec2.SpotInstanceRequest with no instanceType of its own, launched from a
    g5.2xlarge launch template (launchTemplate by dependency), no budget. Expect: spend-limit
    fail (GPU capacity without a budget alarm); with a 50,000 budget: pass."""
    s = subnet("c3-sn", "us-east-1a")
    t = lt("c3-lt", "g5.2xlarge")
    req = res("aws:ec2/spotInstanceRequest:SpotInstanceRequest", "c3-spot", {
        "launchTemplate": {"id": "lt-id", "version": "$Latest"}, "subnetId": "subnet-id",
        "spotType": "persistent", "instanceInterruptionBehavior": "stop",
        "associatePublicIpAddress": False, "tags": TAGS},
        deps={"launchTemplate": [t], "subnetId": [s]})
    found = run(pack, [s, t, req], provider=AWS)
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)
    found = run(pack, [s, t, req, aws_budget()], provider=AWS)
    assert verdict(found, SPEND) == "pass", messages(found, SPEND)



def test_c5_gke_default_pool_with_gpus_in_the_cluster_resource(pack):
    """A zonal GKE Standard cluster in us-central1-a whose default pool is the GPU pool:
    nodeConfig.machineType g2-standard-8, initialNodeCount 3, no separate NodePool (the
    quickstart shape). Expect: 3 x 0.853624 x 730 = 1,869.44."""
    c = res("gcp:container/cluster:Cluster", "c5-gke", {
        "location": "us-central1-a", "initialNodeCount": 3.0,
        "nodeConfig": {"machineType": "g2-standard-8", "labels": LABELS, "guestAccelerators": [
            {"type": "nvidia-l4", "count": 1.0}]},
        "privateClusterConfig": {"enablePrivateNodes": True,
                                 "masterIpv4CidrBlock": "172.16.0.0/28"},
        "resourceLabels": LABELS})
    assert near(estimate(pack, [c, gcp_budget()], GCP), 3 * G2_8 * MONTH)


def test_c6_azure_ml_cluster_with_upper_case_size(pack):
    """An azure-native machinelearningservices Compute (AmlCompute) of vmSize
    "STANDARD_NC24ADS_A100_V4" (the portal's upper case; Azure sizes are case-insensitive),
    scaleSettings maxNodeCount 4. Expect: 4 x 3.673 x 730 = 10,725.16."""
    c = res("azure-native:machinelearningservices:Compute", "c6-aml", {
        "resourceGroupName": "ml-rg", "workspaceName": "ml-ws", "location": "eastus",
        "properties": {"computeType": "AmlCompute", "properties": {
            "vmSize": "STANDARD_NC24ADS_A100_V4", "vmPriority": "Dedicated",
            "scaleSettings": {"minNodeCount": 0, "maxNodeCount": 4,
                              "nodeIdleTimeBeforeScaleDown": "PT10M"}}}})
    assert near(estimate(pack, [c, az_budget()], AZ), 4 * NC24 * MONTH)


def test_c7_alibaba_instance_set_released_in_48h(pack):
    """An Alibaba EcsInstanceSet of amount 3 ecs.gn7i-c8g1.2xlarge, pay-as-you-go, with an
    autoReleaseTime 48 h away (the stand-in for the alarm). Expect: 3 x 2.56083 x 48 = 368.76
    (at most x 49 rounded up), and spend-limit passes with no cap."""
    sw = vsw("c7-vsw")
    s = res("alicloud:ecs/ecsInstanceSet:EcsInstanceSet", "c7-set", {
        "instanceType": "ecs.gn7i-c8g1.2xlarge", "amount": 3.0, "zoneId": "eu-central-1a",
        "imageId": "ubuntu_22_04_x64_20G_alibase_20240508.vhd", "vswitchId": "vsw-id",
        "securityGroupIds": ["sg-id"], "instanceChargeType": "PostPaid",
        "internetMaxBandwidthOut": 0.0, "autoReleaseTime": hours_from_now(48), "tags": TAGS},
        deps={"vswitchId": [sw]})
    assert _lifetime_ok(estimate(pack, [sw, s], ALI), 3 * GN7I_8, 48)
    found = run(pack, [sw, s], provider=ALI)
    assert verdict(found, SPEND) == "pass", messages(found, SPEND)


# ============================================== D. stops that do not stop

def test_d1_recurring_stop_whose_end_time_comes_before_its_first_run(pack):
    """An autoscaling Schedule on a g5.12xlarge group of 2 (by dependency) with recurrence at
    the hour 5 h from now every day, sizes 0, and endTime 2 h from now: "the scheduled action
    ... ends at EndTime" (docs.aws.amazon.com/autoscaling/ec2/APIReference/
    API_PutScheduledUpdateGroupAction.html): it never runs. Docs: a recurrence's first run not
    after endTime. Expect: no lifetime, 2 x 5.672 x 730 = 8,281.12."""
    s = subnet("d1-sn", "us-east-1a")
    t = lt("d1-lt", "g5.12xlarge")
    g = asg("d1-grp", t, [s], 2)
    hour = (datetime.now(timezone.utc) + timedelta(hours=5)).hour
    stop = res("aws:autoscaling/schedule:Schedule", "d1-nightly", {
        "scheduledActionName": "nightly-off", "autoscalingGroupName": "grp",
        "recurrence": f"0 {hour} * * *", "endTime": hours_from_now(2),
        "minSize": 0.0, "maxSize": 0.0, "desiredCapacity": 0.0},
        deps={"autoscalingGroupName": [g]})
    assert near(estimate(pack, [s, t, g, stop, aws_budget()], AWS), 2 * G5_12 * MONTH)


def test_d2_disabled_scheduler_stop_stops_nothing(pack):
    """An EventBridge Scheduler one-time at(+24 h) updateAutoScalingGroup {MaxSize 0, MinSize 0,
    DesiredCapacity 0} naming the group's own name, with state DISABLED (a disabled schedule
    never invokes its target: docs.aws.amazon.com/scheduler/latest/UserGuide/
    managing-schedule.html). Expect: no lifetime, 2 x 5.672 x 730 = 8,281.12."""
    s = subnet("d2-sn", "us-east-1a")
    t = lt("d2-lt", "g5.12xlarge")
    g = asg("d2-grp", t, [s], 2, name="d2-train")
    stop = _scheduler("d2-stop", "autoscaling:updateAutoScalingGroup", {
        "AutoScalingGroupName": "d2-train", "MaxSize": 0, "MinSize": 0, "DesiredCapacity": 0},
        _at(24), state="DISABLED")
    assert near(estimate(pack, [s, t, g, stop, aws_budget()], AWS), 2 * G5_12 * MONTH)


def test_d3_disabled_eventbridge_rule_runs_no_stop_runbook(pack):
    """An EventBridge rule cron(0 20 * * ? *) with state DISABLED whose target runs the
    AWS-StopEC2Instance runbook on a g6e.12xlarge instance (input by dependency). A disabled
    rule matches nothing. Expect: no lifetime, 10.4926 x 730 = 7,659.60."""
    s = subnet("d3-sn", "us-east-1a")
    i = ec2("d3-node", "g6e.12xlarge", s)
    rule = res("aws:cloudwatch/eventRule:EventRule", "d3-nightly", {
        "scheduleExpression": "cron(0 20 * * ? *)", "state": "DISABLED", "tags": TAGS})
    target = res("aws:cloudwatch/eventTarget:EventTarget", "d3-stop", {
        "rule": "d3-nightly", "arn": "arn:aws:ssm:us-east-1::automation-definition/"
                                    "AWS-StopEC2Instance:$DEFAULT",
        "roleArn": "arn:aws:iam::111122223333:role/ssm-automation",
        "input": json.dumps({"InstanceId": ["i-id"]})},
        deps={"rule": [rule], "input": [i]})
    assert near(estimate(pack, [s, i, rule, target, aws_budget()], AWS), G6E_12 * MONTH)


def test_d4_ess_task_lowering_only_the_minimum_stops_nothing(pack):
    """An Alibaba scaling group (max 4, a gn7i-c8g1.2xlarge scaling configuration) and an ESS
    ScheduledTask at +24 h that sets minValue 0 and maxValue 4 (no desired): instances above
    the minimum stay. Docs: only a task setting maxValue and the minimum to 0 is a stop. No
    release either. Expect: 4 x 2.56083 x 730 = 7,477.62 and spend-limit fail (no alarm)."""
    sw = vsw("d4-vsw")
    g = res("alicloud:ess/scalingGroup:ScalingGroup", "d4-sg", {
        "minSize": 0.0, "maxSize": 4.0, "scalingGroupName": "d4-sg", "vswitchIds": ["vsw-id"],
        "tags": TAGS}, deps={"vswitchIds": [sw]})
    conf = res("alicloud:ess/scalingConfiguration:ScalingConfiguration", "d4-conf", {
        "scalingGroupId": "sg-id", "instanceType": "ecs.gn7i-c8g1.2xlarge",
        "imageId": "ubuntu_22_04_x64_20G_alibase_20240508.vhd", "securityGroupId": "sg-x",
        "internetMaxBandwidthOut": 0.0, "active": True, "tags": TAGS},
        deps={"scalingGroupId": [g]})
    task = res("alicloud:ess/scheduledTask:ScheduledTask", "d4-task", {
        "scalingGroupId": "sg-id", "launchTime": hours_from_now(24)[:-4] + "Z",
        "minValue": 0.0, "maxValue": 4.0}, deps={"scalingGroupId": [g]})
    stack = [sw, g, conf, task]
    assert near(estimate(pack, stack, ALI), 4 * GN7I_8 * MONTH)
    found = run(pack, stack, provider=ALI)
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)



def _d6_setting(ss, window_end):
    return res("azure-native:monitor:AutoscaleSetting", "d6-as", {
        "resourceGroupName": "ml-rg", "location": "eastus", "enabled": True,
        "targetResourceUri": "vmss-id", "profiles": [
            {"name": "off", "rules": [], "capacity": {"minimum": "0", "maximum": "0",
                                                      "default": "0"},
             "fixedDate": {"timeZone": "UTC", "start": hours_from_now(24),
                           "end": hours_from_now(window_end)}},
            {"name": "weekdays", "rules": [], "capacity": {"minimum": "2", "maximum": "2",
                                                           "default": "2"},
             "recurrence": {"frequency": "Week", "schedule": {
                 "timeZone": "UTC", "days": ["Monday"], "hours": [8], "minutes": [0]}}}]},
        deps={"targetResourceUri": [ss]})


def test_d6_azure_stop_window_past_the_month_beside_a_weekday_recurrence(pack):
    """An enabled autoscale setting on a scale set of 2 Standard_NC24ads_A100_v4: a fixedDate
    profile of capacity 0 from +24 h to +60 days, and a recurrence profile (Monday 08:00,
    capacity 2). Autoscale evaluates fixed-date profiles first, then recurring ones, "only the
    first applicable profile is used" (learn.microsoft.com/azure/azure-monitor/autoscale/
    autoscale-multiprofile): while the window lasts (past the month) the recurrence does not
    apply. Expect: a lifetime of 24 h, 2 x 3.673 x 24 = 176.30 (x 25 at most).
    [First written as "the recurrence makes it a pause, the month": my mistake, corrected by
    the profile order cited above.]"""
    ss = vmss("d6-vmss", "Standard_NC24ads_A100_v4", 2.0)
    got = estimate(pack, [ss, _d6_setting(ss, 24 * 60), az_budget()], AZ)
    assert _lifetime_ok(got, 2 * NC24, 24), got


def test_d6b_azure_stop_window_ending_in_the_month_beside_a_recurrence(pack):
    """Split from d6 after the first run (d6 (b)): the same setting with the window ending at
    +10 days, within the month. After it the recurrence profile applies again and the nodes
    run (docs: a capacity-0 window ending within the month is a pause). Expect: the month,
    2 x 3.673 x 730 = 5,362.58."""
    ss = vmss("d6b-vmss", "Standard_NC24ads_A100_v4", 2.0)
    got = estimate(pack, [ss, _d6_setting(ss, 24 * 10), az_budget()], AZ)
    assert near(got, 2 * NC24 * MONTH), got


def test_d7_native_desired_zero_stops_alone_and_pauses_beside_a_scaling_policy(pack):
    """An aws-native group "d7-grp" of 3 g5.12xlarge (minSize "0") and an aws-native
    ScheduledAction at +30 h with desiredCapacity 0 only (aws-native leaves the omitted sizes
    as the group has them: min 0, max 3). Alone it empties the group: 3 x 5.672 x 30 = 510.48
    (x 31 at most). With an aws-native target-tracking ScalingPolicy on the group, desired 0
    under max 3 is a pause (docs). Expect: 510.48, then 3 x 5.672 x 730 = 12,421.68."""
    s = subnet("d7-sn", "us-east-1a")
    t = _native_lt("d7-lt", "g5.12xlarge")
    g = _native_asg("d7-grp", t, [s], 3)
    act = res("aws-native:autoscaling:ScheduledAction", "d7-stop", {
        "autoScalingGroupName": "d7-grp", "desiredCapacity": 0,
        "startTime": hours_from_now(30)}, deps={"autoScalingGroupName": [g]})
    stack = [s, t, g, act, aws_budget()]
    assert _lifetime_ok(estimate(pack, stack, AWS), 3 * G5_12, 30)
    pol = res("aws-native:autoscaling:ScalingPolicy", "d7-tt", {
        "autoScalingGroupName": "d7-grp", "policyType": "TargetTrackingScaling",
        "targetTrackingConfiguration": {"targetValue": 60.0, "predefinedMetricSpecification": {
            "predefinedMetricType": "ASGAverageCPUUtilization"}}},
        deps={"autoScalingGroupName": [g]})
    assert near(estimate(pack, stack + [pol], AWS), 3 * G5_12 * MONTH)


def test_d8_scheduler_stop_with_a_tag_driven_lambda_start_is_a_pause(pack):
    """The "Instance Scheduler" pattern: a Scheduler one-time at(+24 h) ec2:stopInstances on a
    g5.2xlarge instance (input by dependency), and an EventBridge rule cron(0 8 ? * MON-FRI *)
    invoking a Lambda whose environment names the instance's tag auto-start=true. Docs: a
    Lambda that finds the nodes by tag (key and value in its environment) may start them again:
    the month. Expect: 1.212 x 730 = 884.76."""
    s = subnet("d8-sn", "us-east-1a")
    i = ec2("d8-node", "g5.2xlarge", s, tags={**TAGS, "auto-start": "true"})
    stop = _scheduler("d8-stop", "ec2:stopInstances", {"InstanceIds": ["i-id"]}, _at(24),
                      deps={"target": [i]})
    fn = res("aws:lambda/function:Function", "d8-starter", {
        "runtime": "python3.12", "handler": "main.handler",
        "role": "arn:aws:iam::111122223333:role/starter",
        "environment": {"variables": {"TAG_KEY": "auto-start", "TAG_VALUE": "true"}},
        "tags": TAGS})
    rule = res("aws:cloudwatch/eventRule:EventRule", "d8-morning", {
        "scheduleExpression": "cron(0 8 ? * MON-FRI *)", "tags": TAGS})
    tgt = res("aws:cloudwatch/eventTarget:EventTarget", "d8-start", {
        "rule": "d8-morning", "arn": "fn-arn"}, deps={"rule": [rule], "arn": [fn]})
    stack = [s, i, stop, fn, rule, tgt, aws_budget()]
    assert near(estimate(pack, stack, AWS), G5_2 * MONTH)


def test_d9_recurring_ess_task_to_zero_is_no_lifetime(pack):
    """An ESS ScheduledTask setting min/max/desired 0 daily (recurrenceType Daily,
    recurrenceValue "1", until +10 days) on a gn7i-c8g1.2xlarge scaling group of 2, and a
    second daily task raising it to 2 each morning. Docs: a recurring ESS task is no lifetime.
    Expect: 2 x 2.56083 x 730 = 3,738.81."""
    sw = vsw("d9-vsw")
    g = res("alicloud:ess/scalingGroup:ScalingGroup", "d9-sg", {
        "minSize": 0.0, "maxSize": 2.0, "scalingGroupName": "d9-sg", "vswitchIds": ["vsw-id"],
        "tags": TAGS}, deps={"vswitchIds": [sw]})
    conf = res("alicloud:ess/scalingConfiguration:ScalingConfiguration", "d9-conf", {
        "scalingGroupId": "sg-id", "instanceType": "ecs.gn7i-c8g1.2xlarge",
        "imageId": "ubuntu_22_04_x64_20G_alibase_20240508.vhd", "securityGroupId": "sg-x",
        "internetMaxBandwidthOut": 0.0, "active": True, "tags": TAGS},
        deps={"scalingGroupId": [g]})
    end = hours_from_now(240)[:-4] + "Z"
    off = res("alicloud:ess/scheduledTask:ScheduledTask", "d9-off", {
        "scalingGroupId": "sg-id", "launchTime": hours_from_now(10)[:-4] + "Z",
        "recurrenceType": "Daily", "recurrenceValue": "1", "recurrenceEndTime": end,
        "minValue": 0.0, "maxValue": 0.0, "desiredCapacity": 0.0},
        deps={"scalingGroupId": [g]})
    on = res("alicloud:ess/scheduledTask:ScheduledTask", "d9-on", {
        "scalingGroupId": "sg-id", "launchTime": hours_from_now(20)[:-4] + "Z",
        "recurrenceType": "Daily", "recurrenceValue": "1", "recurrenceEndTime": end,
        "minValue": 0.0, "maxValue": 2.0, "desiredCapacity": 2.0},
        deps={"scalingGroupId": [g]})
    assert near(estimate(pack, [sw, g, conf, off, on], ALI), 2 * GN7I_8 * MONTH)


# ============================================== E. budgets that do or do not cover

def _p4d_stack(label):
    s = subnet(f"{label}-sn", "us-east-1a")
    t = lt(f"{label}-lt", "p4d.24xlarge")
    return [s, t, asg(f"{label}-grp", t, [s], 2)]


def test_e1_linked_account_budget_on_the_providers_only_allowed_account(pack):
    """An AWS budget (100,000, e-mail alert) with costFilters LinkedAccount ["111122223333"];
    the provider pins allowedAccountIds ["111122223333"] (the provider refuses any other
    account: registry.terraform.io/providers/hashicorp/aws/latest/docs#allowed_account_ids), so
    the program shows the compute deploys to that account. 2 p4d = 32,058.10 < 100,000.
    Expect: spend-limit pass."""
    b = aws_budget("100000", costFilters=[{"name": "LinkedAccount",
                                           "values": ["111122223333"]}])
    found = run(pack, [*_p4d_stack("e1"), b],
                provider={**AWS, "allowedAccountIds": ["111122223333"]})
    assert verdict(found, SPEND) == "pass", messages(found, SPEND)


def test_e2_linked_account_budget_on_another_account(pack):
    """The same budget on LinkedAccount ["444455556666"] while the provider allows only
    111122223333: it covers none of the stack's compute. Expect: spend-limit fail (no alarm)."""
    b = aws_budget("100000", costFilters=[{"name": "LinkedAccount",
                                           "values": ["444455556666"]}])
    found = run(pack, [*_p4d_stack("e2"), b],
                provider={**AWS, "allowedAccountIds": ["111122223333"]})
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)


def test_e3_gcp_budget_on_the_compute_engine_service(pack):
    """A GCP budget (50,000 USD) with budgetFilter.services ["services/6F81-5844-456A"], the
    Compute Engine service id (cloud.google.com/skus/?filter=6F81-5844-456A; the Catalog API
    names Compute Engine so), over an a2-highgpu-1g VM (2,681.57). The filter takes the VM in.
    Expect: spend-limit pass."""
    b = gcp_budget(budgetFilter={"services": ["services/6F81-5844-456A"]})
    found = run(pack, [gvm("e3-vm", "a2-highgpu-1g"), b], provider=GCP)
    assert verdict(found, SPEND) == "pass", messages(found, SPEND)


def test_e4_gcp_budget_on_a_folder_alone(pack):
    """The only GCP budget filters resourceAncestors ["folders/345678901234"]: whether the
    stack's project sits in that folder is set outside the program
    (registry pulumi gcp billing.Budget budgetFilter.resourceAncestors). Expect: spend-limit
    not pass (cannot decide, never taken as the alarm for certain)."""
    b = gcp_budget(budgetFilter={"resourceAncestors": ["folders/345678901234"]})
    found = run(pack, [gvm("e4-vm", "a2-highgpu-1g"), b], provider=GCP)
    assert verdict(found, SPEND) != "pass", messages(found, SPEND)


def test_e5_gcp_budget_following_last_months_spend_has_no_known_amount(pack):
    """A GCP budget with amount.lastPeriodAmount true ("use the last period's actual spend as the
    budget": pulumi gcp billing.Budget amount.lastPeriodAmount) and threshold alerts, over an
    a2-highgpu-1g VM. Its amount is not known at preview. Expect: spend-limit "cannot decide"
    (undecided)."""
    b = res("gcp:billing/budget:Budget", "e5-budget", {
        "billingAccount": "01A2B3-C4D5E6-F7A8B9", "displayName": "follow last month",
        "amount": {"lastPeriodAmount": True}, "thresholdRules": [
            {"thresholdPercent": 0.9, "spendBasis": "CURRENT_SPEND"}]})
    found = run(pack, [gvm("e5-vm", "a2-highgpu-1g"), b], provider=GCP)
    assert verdict(found, SPEND) == "undecided", messages(found, SPEND)



def test_e7_classic_budget_on_the_aks_clusters_own_resource_group(pack):
    """An azurerm KubernetesCluster in resource group "aks-rg" (a ResourceGroup of the stack)
    with a GPU default node pool (Standard_NC24ads_A100_v4, max 3), and the only budget a
    budgetResourceGroup whose resourceGroupId is built from that ResourceGroup. The nodes bill
    in the node resource group MC_aks-rg_... (learn.microsoft.com/azure/aks/faq), not in
    aks-rg. Expect: spend-limit fail (no alarm for the pool)."""
    rg = res(CLASSIC_RG, "e7-rg", {"name": "aks-rg", "location": "eastus", "tags": TAGS})
    aks = res("azure:containerservice/kubernetesCluster:KubernetesCluster", "e7-aks", {
        "resourceGroupName": "aks-rg", "location": "eastus", "dnsPrefix": "train",
        "defaultNodePool": {"name": "gpu", "vmSize": "Standard_NC24ads_A100_v4",
                            "autoScalingEnabled": True, "minCount": 0.0, "maxCount": 3.0,
                            "nodeCount": 1.0},
        "identity": {"type": "SystemAssigned"}, "tags": TAGS},
        deps={"resourceGroupName": [rg]})
    b = res("azure:consumption/budgetResourceGroup:BudgetResourceGroup", "e7-budget", {
        "resourceGroupId": f"{SUB}/resourceGroups/aks-rg", "amount": 50000.0,
        "timeGrain": "Monthly", "timePeriod": {"startDate": "2026-12-01T00:00:00Z"},
        "notifications": [{"enabled": True, "threshold": 80.0, "operator": "GreaterThan",
                           "contactEmails": ["ml-platform@example.com"]}]},
        deps={"resourceGroupId": [rg]})
    found = run(pack, [rg, aks, b], provider=AZ)
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)



def test_e9_aws_budget_on_ec2_compute_and_the_groups_instance_type(pack):
    """An AWS budget (50,000) with costFilters Service ["Amazon Elastic Compute Cloud -
    Compute"] and InstanceType ["p4d.24xlarge"] over an ASG of 2 p4d.24xlarge (the filter
    names of docs.aws.amazon.com/cost-management/latest/userguide/budgets-create-filters.html):
    it takes the group in. 2 x 21.9576 x 730 = 32,058.10 < 50,000. Expect: spend-limit pass."""
    b = aws_budget("50000", costFilters=[
        {"name": "Service", "values": ["Amazon Elastic Compute Cloud - Compute"]},
        {"name": "InstanceType", "values": ["p4d.24xlarge"]}])
    found = run(pack, [*_p4d_stack("e9"), b], provider=AWS)
    assert verdict(found, SPEND) == "pass", messages(found, SPEND)


# ============================================== F. malformed values: never cheaper, one resource


def test_f2_filestore_capacity_with_a_unit(pack):
    """A gcp Filestore ZONAL in us-central1-a with fileShares.capacityGb "10TB" beside an
    a2-highgpu-1g VM, a 50,000 budget. Expect: spend-limit fail naming f2-share."""
    fs = res("gcp:filestore/instance:Instance", "f2-share", {
        "location": "us-central1-a", "tier": "ZONAL", "labels": LABELS,
        "fileShares": {"name": "data", "capacityGb": "10TB"},
        "networks": [{"network": "default", "modes": ["MODE_IPV4"]}]})
    found = run(pack, [gvm("f2-vm", "a2-highgpu-1g"), fs, gcp_budget()], provider=GCP)
    assert verdict(found, SPEND) == "fail" and _named(found, SPEND, "f2-share"), \
        messages(found, SPEND)


def test_f3_negative_amlfs_capacity(pack):
    """An AmlFilesystem of storageCapacityTiB -8 beside a scale set of 2 NC24ads_A100_v4,
    a 20,000 budget (5,362.58 of compute). Expect: spend-limit fail naming f3-amlfs."""
    fs = res("azure-native:storagecache:AmlFilesystem", "f3-amlfs", {
        "resourceGroupName": "ml-rg", "location": "eastus", "zones": ["1"],
        "storageCapacityTiB": -8.0, "sku": {"name": "AMLFS-Durable-Premium-250"},
        "filesystemSubnet": "subnet-id", "tags": TAGS,
        "maintenanceWindow": {"dayOfWeek": "Sunday", "timeOfDayUTC": "02:00"}})
    found = run(pack, [vmss("f3-vmss", "Standard_NC24ads_A100_v4", 2.0), fs, az_budget()],
                provider=AZ)
    assert verdict(found, SPEND) == "fail" and _named(found, SPEND, "f3-amlfs"), \
        messages(found, SPEND)


def test_f4_nan_instance_set_amount_hides_no_cross_zone_cpfs(pack):
    """Alibaba: an EcsInstanceSet "f4-bad" of amount NaN in eu-central-1a, and a separate
    gn7i instance in eu-central-1b mounting (user data) a CPFS in eu-central-1a. Docs: one bad
    value is judged for that resource alone. Expect: spend-limit fail naming f4-bad;
    storage-same-zone fail (the CPFS is not in the mounting node's zone)."""
    a, b = vsw("f4-vsw-a", "eu-central-1a"), vsw("f4-vsw-b", "eu-central-1b")
    bad = res("alicloud:ecs/ecsInstanceSet:EcsInstanceSet", "f4-bad", {
        "instanceType": "ecs.gn7i-c8g1.2xlarge", "amount": float("nan"),
        "zoneId": "eu-central-1a", "imageId": "ubuntu_22_04_x64_20G_alibase_20240508.vhd",
        "vswitchId": "vsw-id", "securityGroupIds": ["sg-id"], "instanceChargeType": "PostPaid",
        "internetMaxBandwidthOut": 0.0, "autoReleaseTime": hours_from_now(48), "tags": TAGS},
        deps={"vswitchId": [a]})
    fs = cpfs("f4-cpfs", "eu-central-1a")
    node = ecs("f4-node", switch=b, mounts=[fs])
    found = run(pack, [a, b, bad, fs, node], provider=ALI)
    assert verdict(found, SPEND) == "fail" and _named(found, SPEND, "f4-bad"), \
        messages(found, SPEND)
    assert verdict(found, SSZ) == "fail", messages(found, SSZ)



def test_f6_ec2_fleet_of_minus_four_does_not_cancel_a_group(pack):
    """An aws EC2 Fleet "f6-fleet" of g5.xlarge with totalTargetCapacity -4 beside a good ASG of
    2 p4d.24xlarge, a 1,000,000 budget. Expect: spend-limit fail naming f6-fleet."""
    s = subnet("f6-sn", "us-east-1a")
    t = lt("f6-lt", "g5.xlarge")
    fleet = res("aws:ec2/fleet:Fleet", "f6-fleet", {
        "type": "maintain", "launchTemplateConfig": {
            "launchTemplateSpecification": {"launchTemplateId": "lt-id", "version": "$Latest"},
            "overrides": [{"subnetId": "subnet-id"}]},
        "targetCapacitySpecification": {"totalTargetCapacity": -4.0,
                                        "defaultTargetCapacityType": "on-demand"},
        "tags": TAGS}, deps={"launchTemplateConfig": [t, s]})
    found = run(pack, [s, t, fleet, *_p4d_stack("f6"), aws_budget("1000000")], provider=AWS)
    assert verdict(found, SPEND) == "fail" and _named(found, SPEND, "f6-fleet"), \
        messages(found, SPEND)



def test_f8_gcp_mig_target_size_infinite(pack):
    """A GCP MIG "f8-mig" of a2-highgpu-1g with targetSize Infinity beside a good VM, a
    50,000 budget. Expect: spend-limit fail naming f8-mig."""
    t = gtemplate("f8-tpl", "a2-highgpu-1g")
    m = mig("f8-mig", t, "us-central1-a", 2)
    m.props["targetSize"] = float("inf")
    found = run(pack, [t, m, gvm("f8-vm", "g2-standard-8"), gcp_budget()], provider=GCP)
    assert verdict(found, SPEND) == "fail" and _named(found, SPEND, "f8-mig"), \
        messages(found, SPEND)


def test_f9_fsx_capacity_in_tebibytes_text(pack):
    """An FSx for Lustre "f9-fsx" with storageCapacity "1.2TiB" mounted by an ASG of 2
    p4d.24xlarge, a 1,000,000 budget. Expect: spend-limit fail naming f9-fsx (never priced at
    0)."""
    s = subnet("f9-sn", "us-east-1a")
    fs = fsx("f9-fsx", s, gib="1.2TiB")
    t = lt("f9-lt", "p4d.24xlarge", mounts=[fs])
    g = asg("f9-grp", t, [s], 2)
    found = run(pack, [s, fs, t, g, aws_budget("1000000")], provider=AWS)
    assert verdict(found, SPEND) == "fail" and _named(found, SPEND, "f9-fsx"), \
        messages(found, SPEND)


# ============================================== G. scope: the GPUs' fabric and their storage

def test_g1_regional_efs_mounted_from_two_zones(pack):
    """An EFS file system (regional: Standard storage class, no availabilityZoneName) with mount
    targets in us-east-1a and us-east-1b, mounted by GPU groups in each zone (user data through
    the mount targets). EFS Regional "stores data ... across multiple AZs"
    (docs.aws.amazon.com/efs/latest/ug/availability-durability.html); docs: EFS is regional.
    Expect: storage-same-zone pass."""
    a, b = subnet("g1-a", "us-east-1a"), subnet("g1-b", "us-east-1b")
    efs = res("aws:efs/fileSystem:FileSystem", "g1-efs", {"encrypted": True, "tags": TAGS,
                                                          "performanceMode": "generalPurpose"})
    mts = [res("aws:efs/mountTarget:MountTarget", f"g1-mt-{z}", {
        "fileSystemId": "fs-id", "subnetId": "subnet-id"},
        deps={"fileSystemId": [efs], "subnetId": [sn]}) for z, sn in (("a", a), ("b", b))]
    ta = lt("g1-lt-a", "g5.12xlarge", mounts=[mts[0]])
    tb = lt("g1-lt-b", "g5.12xlarge", mounts=[mts[1]])
    stack = [a, b, efs, *mts, ta, tb, asg("g1-ga", ta, [a], 2), asg("g1-gb", tb, [b], 2),
             aws_budget()]
    found = run(pack, stack, provider=AWS)
    assert verdict(found, SSZ) == "pass", messages(found, SSZ)


def test_g2_fsx_linked_to_a_bucket_in_another_region(pack):
    """awsome-distributed-training's FSx + S3 pattern: an FSx for Lustre in us-east-1a mounted
    by a p4d group there, and a DataRepositoryAssociation linking it to an S3 bucket created in
    eu-west-1 (the bucket's own region input). The cluster reads the bucket through the
    filesystem (docs: a resource depending on both). Expect: storage-same-zone fail (bucket
    not in the GPU nodes' region)."""
    s = subnet("g2-sn", "us-east-1a")
    fs = fsx("g2-fsx", s)
    t = lt("g2-lt", "p4d.24xlarge", mounts=[fs])
    g = asg("g2-grp", t, [s], 2)
    bucket = _bucket("g2-data", region="eu-west-1")
    dra = res("aws:fsx/dataRepositoryAssociation:DataRepositoryAssociation", "g2-link", {
        "fileSystemId": "fs-id", "dataRepositoryPath": "s3://g2-data", "fileSystemPath": "/data",
        "batchImportMetaDataOnCreate": True, "tags": TAGS},
        deps={"fileSystemId": [fs], "dataRepositoryPath": [bucket]})
    found = run(pack, [s, fs, t, g, bucket, dra, aws_budget()], provider=AWS)
    assert verdict(found, SSZ) == "fail", messages(found, SSZ)



def _filestore(name, location, tier):
    return res("gcp:filestore/instance:Instance", name, {
        "location": location, "tier": tier, "labels": LABELS,
        "fileShares": {"name": "share", "capacityGb": 2560.0},
        "networks": [{"network": "default", "modes": ["MODE_IPV4"]}]})


def test_g4_zonal_filestore_in_another_zone_than_its_mig(pack):
    """A BASIC_SSD Filestore (zonal) in us-central1-b mounted (template metadata) by an
    a2-highgpu-1g MIG in us-central1-a. Expect: storage-same-zone fail."""
    fs = _filestore("g4-fs", "us-central1-b", "BASIC_SSD")
    t = gtemplate("g4-tpl", "a2-highgpu-1g", mounts=[fs])
    found = run(pack, [fs, t, mig("g4-mig", t, "us-central1-a"), gcp_budget()], provider=GCP)
    assert verdict(found, SSZ) == "fail", messages(found, SSZ)


def test_g5_regional_enterprise_filestore_beside_a_zonal_mig(pack):
    """An ENTERPRISE Filestore (regional) in us-central1 mounted by the MIG in us-central1-a.
    Docs: a regional tier is compared by region only. Expect: storage-same-zone pass."""
    fs = _filestore("g5-fs", "us-central1", "ENTERPRISE")
    t = gtemplate("g5-tpl", "a2-highgpu-1g", mounts=[fs])
    found = run(pack, [fs, t, mig("g5-mig", t, "us-central1-a"), gcp_budget()], provider=GCP)
    assert verdict(found, SSZ) == "pass", messages(found, SSZ)


def test_g6_multi_az_openzfs_mounted_from_the_standby_zone(pack):
    """An FSx for OpenZFS MULTI_AZ_1 over subnets in us-east-1a and us-east-1b (preferred 1b)
    mounted by a g5 group in us-east-1a. Docs: MULTI_AZ is regional. Expect:
    storage-same-zone pass."""
    a, b = subnet("g6-a", "us-east-1a"), subnet("g6-b", "us-east-1b")
    zfs = res("aws:fsx/openZfsFileSystem:OpenZfsFileSystem", "g6-zfs", {
        "deploymentType": "MULTI_AZ_1", "storageCapacity": 1024.0, "throughputCapacity": 320.0,
        "subnetIds": ["s-a", "s-b"], "preferredSubnetId": "s-b", "tags": TAGS},
        deps={"subnetIds": [a, b], "preferredSubnetId": [b]})
    t = lt("g6-lt", "g5.12xlarge", mounts=[zfs])
    found = run(pack, [a, b, zfs, t, asg("g6-grp", t, [a], 2), aws_budget()], provider=AWS)
    assert verdict(found, SSZ) == "pass", messages(found, SSZ)


def test_g7_s3_express_bucket_in_another_az_id(pack):
    """An S3 Express One Zone directory bucket in use1-az4 read (user data) by a g6e group whose
    subnet is in use1-az6 (availabilityZoneId given). Express One Zone is for compute "in the
    same Availability Zone" (docs.aws.amazon.com/AmazonS3/latest/userguide/
    directory-bucket-az-networking.html). Expect: storage-same-zone fail."""
    s = subnet("g7-sn", None, availabilityZoneId="use1-az6")
    del s.props["availabilityZone"]
    dbk = res("aws:s3/directoryBucket:DirectoryBucket", "g7-fast", {
        "bucket": "g7-fast--use1-az4--x-s3", "location": {"name": "use1-az4",
                                                           "type": "AvailabilityZone"}})
    dbk.protect = True
    t = lt("g7-lt", "g6e.12xlarge", mounts=[dbk])
    found = run(pack, [s, dbk, t, asg("g7-grp", t, [s], 2), aws_budget()], provider=AWS)
    assert verdict(found, SSZ) == "fail", messages(found, SSZ)


def test_g8_oss_bucket_in_another_region_read_by_gpu_nodes(pack):
    """Alibaba: gn7i nodes in eu-central-1 whose user data names an OSS bucket created by a
    cn-hangzhou provider. Expect: storage-same-zone fail (bucket not in their region)."""
    sw = vsw("g8-vsw")
    bucket = res("alicloud:oss/bucket:Bucket", "g8-data", {
        "forceDestroy": False, "serverSideEncryptionRule": {"sseAlgorithm": "KMS"},
        "tags": TAGS}, provider_region="cn-hangzhou")
    bucket.protect = True
    bucket.provider = {"region": "cn-hangzhou"}
    nodes = [ecs(f"g8-n{i}", switch=sw, mounts=[bucket]) for i in range(2)]
    for n in nodes:
        n.provider = dict(ALI)
    found = run(pack, [sw, bucket, *nodes], provider=ALI)
    assert verdict(found, SSZ) == "fail", messages(found, SSZ)


# ============================================== H. ids from outside the stack

LIT = "subnet-0f1e2d3c4b5a69788"


def _eks_on_literal(label):
    s = subnet(f"{label}-sn", "us-east-1a")
    fs = fsx(f"{label}-fsx", s)
    t = lt(f"{label}-lt", "p5.48xlarge", mounts=[fs])
    ng = res("aws:eks/nodeGroup:NodeGroup", f"{label}-ng", {
        "clusterName": "train", "nodeRoleArn": "arn:aws:iam::111122223333:role/eks-node",
        "subnetIds": [LIT], "launchTemplate": {"id": "lt-id", "version": "1"},
        "scalingConfig": {"minSize": 0.0, "maxSize": 2.0, "desiredSize": 2.0}, "tags": TAGS},
        deps={"launchTemplate": [t]})
    return [s, fs, t, ng, aws_budget("200000")]


def test_h1_eks_group_on_a_literal_subnet_told_in_the_fsx_zone(pack):
    """An EKS node group on a literal subnet (made by the platform team's stack) mounting the
    stack's FSx in us-east-1a; config zones {LIT: us-east-1a}. Docs: then judged like any
    other. Expect: storage-same-zone pass."""
    found = run(pack, _eks_on_literal("h1"), {SSZ: {"zones": {LIT: "us-east-1a"}}},
                provider=AWS)
    assert verdict(found, SSZ) == "pass", messages(found, SSZ)



def test_h3_literal_fsx_name_told_in_another_zone(pack):
    """A p4d group in us-east-1a whose launch template user data (base64 of a cloud-init
    script) mounts fs-0123456789abcdef0.fsx.us-east-1.amazonaws.com@tcp:/abcdefgh, an FSx made
    elsewhere; config zones {fs-0123456789abcdef0: us-east-1b}. Expect: storage-same-zone
    fail."""
    import base64
    script = ("#cloud-config\nruncmd:\n  - mount -t lustre -o relatime,flock "
              "fs-0123456789abcdef0.fsx.us-east-1.amazonaws.com@tcp:/abcdefgh /fsx\n")
    s = subnet("h3-sn", "us-east-1a")
    t = lt("h3-lt", "p4d.24xlarge", userData=base64.b64encode(script.encode()).decode())
    stack = [s, t, asg("h3-grp", t, [s], 2), aws_budget()]
    found = run(pack, stack, {SSZ: {"zones": {"fs-0123456789abcdef0": "us-east-1b"}}},
                provider=AWS)
    assert verdict(found, SSZ) == "fail", messages(found, SSZ)


def test_h4_gcp_template_on_a_literal_subnetwork_with_lustre_in_another_zone(pack):
    """A Cluster Toolkit template on a shared-VPC subnetwork named by its self link
    (projects/net-host/regions/us-central1/subnetworks/gpu), its MIG in us-central1-a mounting
    a Managed Lustre in us-central1-b. Docs: GCP compute names its zone itself, a literal
    subnetwork hides no zone. Expect: storage-same-zone fail."""
    fs = glustre("h4-lustre", "us-central1-b")
    t = gtemplate("h4-tpl", "a3-highgpu-8g", mounts=[fs], networkInterfaces=[{
        "subnetwork": "projects/net-host/regions/us-central1/subnetworks/gpu"}])
    found = run(pack, [fs, t, mig("h4-mig", t, "us-central1-a"), gcp_budget("2000000")],
                provider=GCP)
    assert verdict(found, SSZ) == "fail", messages(found, SSZ)


def test_h5_alibaba_instance_set_on_a_literal_vswitch_with_its_own_zone(pack):
    """An Alibaba EcsInstanceSet on a literal vswitch id "vsw-0abc1234def" with zoneId
    eu-central-1a given, mounting a CPFS in eu-central-1a. The zone is its own input.
    Expect: storage-same-zone pass."""
    fs = cpfs("h5-cpfs", "eu-central-1a")
    s = res("alicloud:ecs/ecsInstanceSet:EcsInstanceSet", "h5-set", {
        "instanceType": "ecs.gn7i-c8g1.2xlarge", "amount": 2.0, "zoneId": "eu-central-1a",
        "imageId": "ubuntu_22_04_x64_20G_alibase_20240508.vhd", "vswitchId": "vsw-0abc1234def",
        "securityGroupIds": ["sg-id"], "instanceChargeType": "PostPaid",
        "internetMaxBandwidthOut": 0.0, "autoReleaseTime": hours_from_now(48),
        "userData": "IyEvYmluL2Jhc2g=", "tags": TAGS}, deps={"userData": [fs]})
    found = run(pack, [fs, s], provider=ALI)
    assert verdict(found, SSZ) == "pass", messages(found, SSZ)


# ============================================== I. public exposure

def test_i1_aws_native_eip_given_the_gpu_instance(pack):
    """An aws-native Eip with instanceId set (by dependency) to a private g6.xlarge instance:
    the address is associated with the instance on creation (AWS::EC2::EIP InstanceId). Docs
    name Elastic IPs attached to a node. Expect: no-public-ingress fail."""
    s = subnet("i1-sn", "us-east-1a")
    i = ec2("i1-node", "g6.xlarge", s)
    eip = res("aws-native:ec2:Eip", "i1-eip", {"domain": "vpc", "instanceId": "i-id"},
              deps={"instanceId": [i]})
    found = run(pack, [s, i, eip, aws_budget()], provider=AWS)
    assert verdict(found, NPI) == "fail", messages(found, NPI)


def _alb_stack(label, internal):
    a, b = subnet(f"{label}-a", "us-east-1a"), subnet(f"{label}-b", "us-east-1b")
    lb = res("aws:lb/loadBalancer:LoadBalancer", f"{label}-alb", {
        "loadBalancerType": "application", "internal": internal, "subnets": ["s-a", "s-b"],
        "tags": TAGS}, deps={"subnets": [a, b]})
    tg = res("aws:lb/targetGroup:TargetGroup", f"{label}-tg", {
        "port": 8000.0, "protocol": "HTTP", "vpcId": "vpc-0team", "targetType": "instance",
        "tags": TAGS})
    ls = res("aws:lb/listener:Listener", f"{label}-http", {
        "loadBalancerArn": "arn:lb", "port": 80.0, "protocol": "HTTP",
        "defaultActions": [{"type": "forward", "targetGroupArn": "arn:tg"}]},
        deps={"loadBalancerArn": [lb], "defaultActions": [tg]})
    t = lt(f"{label}-lt", "g6.xlarge")
    g = asg(f"{label}-infer", t, [a, b], 4)
    att = res("aws:autoscaling/attachment:Attachment", f"{label}-att", {
        "autoscalingGroupName": "grp", "lbTargetGroupArn": "arn:tg"},
        deps={"autoscalingGroupName": [g], "lbTargetGroupArn": [tg]})
    return [a, b, lb, tg, ls, t, g, att, aws_budget()]


def test_i2_internet_facing_alb_to_an_l4_inference_group(pack):
    """An internet-facing ALB (internal false) forwarding to a target group that an L4
    inference ASG registers in through aws.autoscaling.Attachment (lbTargetGroupArn). Docs:
    GPU nodes behind an internet-facing balancer are a violation on the nodes.
    Expect: no-public-ingress fail."""
    found = run(pack, _alb_stack("i2", False), provider=AWS)
    assert verdict(found, NPI) == "fail", messages(found, NPI)



def test_i4_global_external_https_lb_to_a_gpu_mig(pack):
    """GCP global external Application Load Balancer: GlobalForwardingRule
    (EXTERNAL_MANAGED) -> TargetHttpsProxy -> URLMap -> BackendService whose backend is an
    L4 (g2-standard-8) MIG. Docs: forwarding rules EXTERNAL_MANAGED to proxies that reach the
    nodes' groups. Expect: no-public-ingress fail."""
    t = gtemplate("i4-tpl", "g2-standard-8")
    m = mig("i4-mig", t, "us-central1-a")
    hc = res("gcp:compute/healthCheck:HealthCheck", "i4-hc", {
        "httpHealthCheck": {"port": 8000.0, "requestPath": "/healthz"}})
    bs = res("gcp:compute/backendService:BackendService", "i4-bs", {
        "loadBalancingScheme": "EXTERNAL_MANAGED", "protocol": "HTTP", "portName": "http",
        "healthChecks": "hc-id", "backends": [{"group": "ig-self-link",
                                               "balancingMode": "UTILIZATION"}]},
        deps={"backends": [m], "healthChecks": [hc]})
    um = res("gcp:compute/uRLMap:URLMap", "i4-map", {"defaultService": "bs-id"},
             deps={"defaultService": [bs]})
    px = res("gcp:compute/targetHttpsProxy:TargetHttpsProxy", "i4-proxy", {
        "urlMap": "um-id", "sslCertificates": ["cert-id"]}, deps={"urlMap": [um]})
    fr = res("gcp:compute/globalForwardingRule:GlobalForwardingRule", "i4-fr", {
        "loadBalancingScheme": "EXTERNAL_MANAGED", "portRange": "443", "target": "px-id"},
        deps={"target": [px]})
    found = run(pack, [t, m, hc, bs, um, px, fr, gcp_budget()], provider=GCP)
    assert verdict(found, NPI) == "fail", messages(found, NPI)


def test_i5_alibaba_eip_association_on_a_gpu_instance(pack):
    """An alicloud eip.Address and an eip.Association (instanceType EcsInstance) whose
    instanceId depends on a gn7i instance. Expect: no-public-ingress fail."""
    sw = vsw("i5-vsw")
    node = ecs("i5-node", switch=sw)
    addr = res("alicloud:eip/address:Address", "i5-eip", {
        "bandwidth": "10", "internetChargeType": "PayByTraffic", "tags": TAGS})
    assoc = res("alicloud:eip/association:Association", "i5-assoc", {
        "allocationId": "eip-id", "instanceId": "i-id", "instanceType": "EcsInstance"},
        deps={"allocationId": [addr], "instanceId": [node]})
    found = run(pack, [sw, node, addr, assoc], provider=ALI)
    assert verdict(found, NPI) == "fail", messages(found, NPI)


def test_i6_alibaba_internet_nlb_to_a_gpu_instance(pack):
    """An Alibaba NLB with addressType Internet, a server group, and a
    ServerGroupServerAttachment of a gn7i inference instance (serverId by dependency).
    Expect: no-public-ingress fail."""
    sw = vsw("i6-vsw")
    node = ecs("i6-node", switch=sw)
    nlb = res("alicloud:nlb/loadBalancer:LoadBalancer", "i6-nlb", {
        "loadBalancerType": "Network", "addressType": "Internet", "addressIpVersion": "Ipv4",
        "vpcId": "vpc-id", "zoneMappings": [{"vswitchId": "vsw-id", "zoneId": "eu-central-1a"}],
        "tags": TAGS}, deps={"zoneMappings": [sw]})
    sg = res("alicloud:nlb/serverGroup:ServerGroup", "i6-sg", {
        "serverGroupName": "gpu", "serverGroupType": "Instance", "vpcId": "vpc-id",
        "protocol": "TCP", "healthCheck": {"healthCheckEnabled": True}})
    ls = res("alicloud:nlb/listener:Listener", "i6-ls", {
        "listenerProtocol": "TCP", "listenerPort": 8000.0, "loadBalancerId": "nlb-id",
        "serverGroupId": "sg-id"}, deps={"loadBalancerId": [nlb], "serverGroupId": [sg]})
    att = res("alicloud:nlb/serverGroupServerAttachment:ServerGroupServerAttachment",
              "i6-att", {"serverGroupId": "sg-id", "serverId": "i-id", "serverType": "Ecs",
                         "port": 8000.0, "weight": 100.0},
              deps={"serverGroupId": [sg], "serverId": [node]})
    found = run(pack, [sw, node, nlb, sg, ls, att], provider=ALI)
    assert verdict(found, NPI) == "fail", messages(found, NPI)


# ============================================== J. configuration typos, refused over gRPC

def test_j1_lower_case_max_monthly_usd_is_refused(pack):
    """spend-limit {"maxmonthlyusd": 5000} (the key is maxMonthlyUsd). Docs: Configure answers
    INVALID_ARGUMENT naming the key. Expect: refused, naming maxmonthlyusd."""
    assert "maxmonthlyusd" in _config_refused(pack, SPEND, "maxmonthlyusd", 5000)


def test_j2_singular_zone_key_is_refused(pack):
    """storage-same-zone {"zone": {...}} (the key is zones). Expect: refused, naming zone."""
    assert "zone" in _config_refused(pack, SSZ, "zone", {LIT: "us-east-1a"})


def test_j3_capacity_block_fees_in_capitals_is_refused(pack):
    """spend-limit {"capacityBlockFeesUSD": {...}} (the key is capacityBlockFeesUsd).
    Expect: refused, naming capacityBlockFeesUSD."""
    assert "capacityBlockFeesUSD" in _config_refused(pack, SPEND, "capacityBlockFeesUSD",
                                                     {"train": 28000})


def test_j4_ssh_cidr_typo_is_refused(pack):
    """no-public-ingress {"sshCidr": [...]} (the key is sshCidrs). Expect: refused, naming
    sshCidr."""
    assert "sshCidr" in _config_refused(pack, NPI, "sshCidr", ["203.0.113.0/24"])


def test_j5_capacity_block_fee_as_text_is_refused(pack):
    """spend-limit {"capacityBlockFeesUsd": {"train": "28000"}}: a fee of the wrong type. Docs:
    a known setting of a type its schema refuses is refused the same way, naming it.
    Expect: refused, naming capacityBlockFeesUsd."""
    assert "capacityBlockFeesUsd" in _config_refused(pack, SPEND, "capacityBlockFeesUsd",
                                                     {"train": "28000"})


# ============================================== K. catalog reach: public GPU types priced

def _one_month(pack, stack, provider, expected):
    got = estimate(pack, stack, provider)
    assert near(got, expected), (got, expected)


def test_k1_inferentia2_in_oregon(pack):
    """An aws Instance inf2.48xlarge in us-west-2 (Inferentia2: an accelerator type the
    docs scope lists under 'inf'). Expect: 12.9813 x 730 = 9,476.35."""
    s = subnet("k1-sn", "us-west-2a")
    _one_month(pack, [s, ec2("k1-inf", "inf2.48xlarge", s), aws_budget()],
               {"region": "us-west-2"}, 12.9813 * MONTH)


def test_k2_gr6_arm_l4_group(pack):
    """An ASG of 2 gr6.4xlarge (Graviton + L4) in us-east-1. Expect: 2 x 1.5392 x 730 =
    2,247.23."""
    s = subnet("k2-sn", "us-east-1a")
    t = lt("k2-lt", "gr6.4xlarge")
    _one_month(pack, [s, t, asg("k2-grp", t, [s], 2), aws_budget()], AWS, 2 * 1.5392 * MONTH)


def test_k3_fractional_l4_g6f(pack):
    """An ASG of 4 g6f.large (an eighth of an L4) in us-east-1. Expect: 4 x 0.202 x 730 =
    589.84."""
    s = subnet("k3-sn", "us-east-1a")
    t = lt("k3-lt", "g6f.large")
    _one_month(pack, [s, t, asg("k3-grp", t, [s], 4), aws_budget()], AWS, 4 * 0.202 * MONTH)


def test_k4_gcp_g4_rtx_pro_6000(pack):
    """A GCP VM g4-standard-48 (RTX PRO 6000) in us-central1-b. Expect: 4.49993 x 730 =
    3,284.95."""
    _one_month(pack, [gvm("k4-vm", "g4-standard-48", "us-central1-b"), gcp_budget()], GCP,
               G4_48 * MONTH)


def test_k5_gcp_single_h100_a3_highgpu_1g(pack):
    """A MIG of 2 a3-highgpu-1g in us-central1-a. Expect: 2 x 11.0612 x 730 = 16,149.35."""
    t = gtemplate("k5-tpl", "a3-highgpu-1g")
    _one_month(pack, [t, mig("k5-mig", t, "us-central1-a"), gcp_budget()], GCP,
               2 * A3_1 * MONTH)



def test_k7_azure_amd_v620_in_central_us(pack):
    """A scale set of 1 Standard_NG32ads_V620_v1 (AMD Radeon PRO V620) in centralus.
    Expect: 3.12 x 730 = 2,277.60."""
    ss = vmss("k7-vmss", "Standard_NG32ads_V620_v1", 1.0)
    ss.props["location"] = "centralus"
    _one_month(pack, [ss, az_budget()], {"location": "centralus"}, 3.12 * MONTH)


def test_k8_alibaba_vgpu_slice_and_the_catalog_date(pack):
    """Two Alibaba ecs.sgn7i-vws-m2.xlarge (an A10 slice) pay-as-you-go in eu-central-1a, for
    the month (autoReleaseTime 40 days away, past the month). Expect: 2 x 0.271691 x 730 =
    396.67; and the estimate names the catalog's date (docs/issue: the catalog's date visible
    in every estimate), read as a yyyy-mm(-dd) date in the message."""
    sw = vsw("k8-vsw")
    nodes = [ecs(f"k8-n{i}", "ecs.sgn7i-vws-m2.xlarge", switch=sw, release=f"{24 * 40}h")
             for i in range(2)]
    _one_month(pack, [sw, *nodes], ALI, 2 * 0.271691 * MONTH)
    found = run(pack, [sw, *nodes], {SPEND: {"maxMonthlyUsd": 1}}, provider=ALI)
    msg = " ".join(d.message for d in judged(found) if d.policy == SPEND)
    assert re.search(r"20\d\d-\d\d", msg), msg


# ============================================== L. a team's whole stack

CORE = (SPEND, SSZ, NPI, BR, ENC)


def _aws_team_stack(fs_zone="us-east-1a"):
    """awsome-distributed-training's shape, as a Pulumi program: VPC, a public subnet holding
    only the NAT gateway, a private subnet for the nodes, a cluster placement group, a p5
    launch template with EFA interfaces and no public address, an ASG of 2, an FSx for Lustre
    PERSISTENT_2 linked to an S3 bucket, a budget, and a schedule to 0 in 96 h."""
    vpc = res("aws:ec2/vpc:Vpc", "l-vpc", {"cidrBlock": "10.0.0.0/16",
                                           "enableDnsHostnames": True, "tags": TAGS})
    pub = res("aws:ec2/subnet:Subnet", "l-public", {
        "vpcId": "vpc-id", "availabilityZone": "us-east-1a", "cidrBlock": "10.0.0.0/24",
        "mapPublicIpOnLaunch": True, "tags": TAGS}, deps={"vpcId": [vpc]})
    priv = res("aws:ec2/subnet:Subnet", "l-private", {
        "vpcId": "vpc-id", "availabilityZone": "us-east-1a", "cidrBlock": "10.0.16.0/20",
        "mapPublicIpOnLaunch": False, "tags": TAGS}, deps={"vpcId": [vpc]})
    fs_sn = priv if fs_zone == "us-east-1a" else res("aws:ec2/subnet:Subnet", "l-private-b", {
        "vpcId": "vpc-id", "availabilityZone": fs_zone, "cidrBlock": "10.0.32.0/20",
        "mapPublicIpOnLaunch": False, "tags": TAGS}, deps={"vpcId": [vpc]})
    igw = res("aws:ec2/internetGateway:InternetGateway", "l-igw", {"vpcId": "vpc-id",
                                                                  "tags": TAGS},
              deps={"vpcId": [vpc]})
    nat_ip = res("aws:ec2/eip:Eip", "l-nat-ip", {"domain": "vpc", "tags": TAGS})
    nat = res("aws:ec2/natGateway:NatGateway", "l-nat", {
        "allocationId": "eipalloc-id", "subnetId": "subnet-id", "tags": TAGS},
        deps={"allocationId": [nat_ip], "subnetId": [pub]})
    sg = res("aws:ec2/securityGroup:SecurityGroup", "l-efa-sg", {
        "vpcId": "vpc-id", "description": "EFA: all traffic within the group", "tags": TAGS},
        deps={"vpcId": [vpc]})
    ing = res("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule", "l-efa-in", {
        "securityGroupId": "sg-id", "referencedSecurityGroupId": "sg-id", "ipProtocol": "-1",
        "tags": TAGS}, deps={"securityGroupId": [sg], "referencedSecurityGroupId": [sg]})
    pg = res("aws:ec2/placementGroup:PlacementGroup", "l-pg", {"strategy": "cluster",
                                                               "tags": TAGS})
    fs = res("aws:fsx/lustreFileSystem:LustreFileSystem", "l-fsx", {
        "subnetIds": "subnet-id", "storageCapacity": 1200.0, "deploymentType": "PERSISTENT_2",
        "perUnitStorageThroughput": 250.0, "securityGroupIds": ["sg-id"], "tags": TAGS},
        deps={"subnetIds": [fs_sn], "securityGroupIds": [sg]})
    data = _bucket("l-data")
    dra = res("aws:fsx/dataRepositoryAssociation:DataRepositoryAssociation", "l-link", {
        "fileSystemId": "fs-id", "dataRepositoryPath": "s3://l-data", "fileSystemPath": "/data",
        "tags": TAGS}, deps={"fileSystemId": [fs], "dataRepositoryPath": [data]})
    nics = [{"networkCardIndex": float(c), "deviceIndex": 0.0 if c == 0 else 1.0,
             "interfaceType": "efa", "associatePublicIpAddress": "false",
             "subnetId": "subnet-id", "securityGroups": ["sg-id"]} for c in range(4)]
    t = res("aws:ec2/launchTemplate:LaunchTemplate", "l-lt", {
        "imageId": "ami-0a1b2c3d4e5f60718", "instanceType": "p5.48xlarge",
        "networkInterfaces": nics, "userData": "I2Nsb3VkLWNvbmZpZw==",
        "blockDeviceMappings": [{"deviceName": "/dev/sda1", "ebs": {
            "volumeSize": 512.0, "volumeType": "gp3", "encrypted": "true"}}],
        "tags": TAGS}, deps={"userData": [fs], "networkInterfaces": [priv, sg]})
    g = res("aws:autoscaling/group:Group", "l-train", {
        "minSize": 0.0, "maxSize": 2.0, "desiredCapacity": 2.0, "placementGroup": "pg-id",
        "launchTemplate": {"id": "lt-id", "version": "$Latest"},
        "vpcZoneIdentifiers": ["subnet-id"],
        "tags": [{"key": k, "value": v, "propagateAtLaunch": True} for k, v in TAGS.items()]},
        deps={"launchTemplate": [t], "vpcZoneIdentifiers": [priv], "placementGroup": [pg]})
    stop = res("aws:autoscaling/schedule:Schedule", "l-stop", {
        "scheduledActionName": "end-of-run", "autoscalingGroupName": "grp",
        "startTime": hours_from_now(96), "minSize": 0.0, "maxSize": 0.0,
        "desiredCapacity": 0.0}, deps={"autoscalingGroupName": [g]})
    stack = [vpc, pub, priv, igw, nat_ip, nat, sg, ing, pg, fs, data, dra, t, g, stop,
             aws_budget("200000")]
    return stack + ([fs_sn] if fs_sn is not priv else [])


def test_l1_aws_whole_training_stack_passes(pack):
    """The AWS team stack above. Spend: 2 x 55.04 x 96 = 10,567.68 plus the FSx, under 200,000;
    the FSx in the nodes' zone; only the NAT gateway in the public subnet; the bucket
    protected; the EBS encrypted. Expect: spend-limit, storage-same-zone, no-public-ingress,
    bucket-retained, encryption-at-rest all pass."""
    found = run(pack, _aws_team_stack(), provider=AWS)
    assert {p: verdict(found, p) for p in CORE} == {p: "pass" for p in CORE}, \
        [messages(found, p) for p in CORE]


def test_l2_aws_whole_stack_with_the_fsx_in_another_zone(pack):
    """The same stack with the FSx on a private subnet in us-east-1b. Expect:
    storage-same-zone fail; the other four pass."""
    found = run(pack, _aws_team_stack("us-east-1b"), provider=AWS)
    got = {p: verdict(found, p) for p in CORE}
    assert got == {**{p: "pass" for p in CORE}, SSZ: "fail"}, [messages(found, p) for p in CORE]


def _gcp_team_stack():
    net = res("gcp:compute/network:Network", "l-net", {"autoCreateSubnetworks": False,
                                                       "mtu": 8896.0})
    sub = res("gcp:compute/subnetwork:Subnetwork", "l-subnet", {
        "region": "us-central1", "ipCidrRange": "10.10.0.0/16", "network": "net-id",
        "privateIpGoogleAccess": True}, deps={"network": [net]})
    fw = res("gcp:compute/firewall:Firewall", "l-internal", {
        "network": "net-id", "direction": "INGRESS", "sourceRanges": ["10.10.0.0/16"],
        "allows": [{"protocol": "all"}]}, deps={"network": [net]})
    iap = res("gcp:compute/firewall:Firewall", "l-iap-ssh", {
        "network": "net-id", "direction": "INGRESS", "sourceRanges": ["35.235.240.0/20"],
        "allows": [{"protocol": "tcp", "ports": ["22"]}]}, deps={"network": [net]})
    pol = res("gcp:compute/resourcePolicy:ResourcePolicy", "l-compact", {
        "region": "us-central1", "groupPlacementPolicy": {"collocation": "COLLOCATED",
                                                          "vmCount": 2.0}})
    fs = glustre("l-lustre", "us-central1-c", gib="36000")
    data = res("gcp:storage/bucket:Bucket", "l-data", {
        "location": "US-CENTRAL1", "forceDestroy": False, "uniformBucketLevelAccess": True,
        "labels": LABELS})
    data.protect = True
    t = res("gcp:compute/instanceTemplate:InstanceTemplate", "l-a3", {
        "machineType": "a3-highgpu-8g", "labels": LABELS,
        "disks": [{"sourceImage": "projects/deeplearning-platform-release/global/images/"
                                  "family/common-cu124-debian-11", "boot": True,
                   "diskSizeGb": 200.0}],
        "networkInterfaces": [{"subnetwork": "sub-id", "nicType": "GVNIC"}] * 5,
        "resourcePolicies": "pol-id", "metadata": {"startup-script": "#!/bin/bash"},
        "scheduling": {"onHostMaintenance": "TERMINATE", "automaticRestart": True}},
        deps={"networkInterfaces": [sub], "resourcePolicies": [pol], "metadata": [fs, data]})
    m = mig("l-a3-mig", t, "us-central1-c", 2)
    return [net, sub, fw, iap, pol, fs, data, t, m, gcp_budget("300000")]


def test_l3_gcp_whole_training_stack_passes(pack):
    """Cluster Toolkit's a3-highgpu shape: network and subnetwork, an internal and an IAP-SSH
    firewall (35.235.240.0/20, not world-open), a COLLOCATED policy, an a3-highgpu-8g template
    (GVNIC, no access config), a MIG of 2 in us-central1-c mounting a Managed Lustre there and
    reading a US-CENTRAL1 bucket (protected), a 300,000 budget. Spend: 2 x 88.49 x 730 =
    129,195.40 plus the Lustre, under 300,000. Expect: the five policies pass."""
    found = run(pack, _gcp_team_stack(), provider=GCP)
    assert {p: verdict(found, p) for p in CORE} == {p: "pass" for p in CORE}, \
        [messages(found, p) for p in CORE]


def _azure_team_stack():
    rg = res("azure-native:resources:ResourceGroup", "l-rg", {
        "resourceGroupName": "hpc-rg", "location": "eastus", "tags": TAGS})
    vnet = res("azure-native:network:VirtualNetwork", "l-vnet", {
        "resourceGroupName": "hpc-rg", "location": "eastus",
        "addressSpace": {"addressPrefixes": ["10.20.0.0/16"]}, "tags": TAGS},
        deps={"resourceGroupName": [rg]})
    sn = res("azure-native:network:Subnet", "l-compute", {
        "resourceGroupName": "hpc-rg", "virtualNetworkName": "vnet",
        "addressPrefix": "10.20.1.0/24"}, deps={"virtualNetworkName": [vnet]})
    nsg = res("azure-native:network:NetworkSecurityGroup", "l-nsg", {
        "resourceGroupName": "hpc-rg", "location": "eastus", "tags": TAGS, "securityRules": [
            {"name": "vnet-in", "access": "Allow", "direction": "Inbound", "priority": 100.0,
             "protocol": "*", "sourceAddressPrefix": "VirtualNetwork", "sourcePortRange": "*",
             "destinationAddressPrefix": "*", "destinationPortRange": "*"}]})
    fs = res("azure-native:storagecache:AmlFilesystem", "l-amlfs", {
        "resourceGroupName": "hpc-rg", "location": "eastus", "zones": ["1"],
        "storageCapacityTiB": 8.0, "sku": {"name": "AMLFS-Durable-Premium-250"},
        "filesystemSubnet": "subnet-id", "tags": TAGS,
        "maintenanceWindow": {"dayOfWeek": "Sunday", "timeOfDayUTC": "02:00"}},
        deps={"filesystemSubnet": [sn]})
    acct = res("azure-native:storage:StorageAccount", "l-data", {
        "resourceGroupName": "hpc-rg", "location": "eastus", "kind": "StorageV2",
        "sku": {"name": "Standard_LRS"}, "allowBlobPublicAccess": False, "tags": TAGS})
    acct.protect = True
    ss = vmss("l-nd", "Standard_ND96isr_H100_v5", 2.0, rg="hpc-rg", singlePlacementGroup=True)
    ss.deps = {"virtualMachineProfile": [fs, acct, sn, nsg], "resourceGroupName": [rg]}
    stop = res("azure-native:monitor:AutoscaleSetting", "l-stop", {
        "resourceGroupName": "hpc-rg", "location": "eastus", "enabled": True,
        "targetResourceUri": "vmss-id", "profiles": [
            {"name": "end-of-run", "rules": [], "capacity": {"minimum": "0", "maximum": "0",
                                                            "default": "0"},
             "fixedDate": {"timeZone": "UTC", "start": hours_from_now(96),
                           "end": "2037-12-31T00:00:00Z"}}]},
        deps={"targetResourceUri": [ss]})
    return [rg, vnet, sn, nsg, fs, acct, ss, stop, az_budget(100000.0)]


def test_l4_azure_whole_training_stack_passes(pack):
    """azhpc's ND H100 shape: resource group, vnet, subnet, a vnet-only NSG, a scale set of 2
    Standard_ND96isr_H100_v5 in zone 1 mounting an AmlFilesystem in zone 1 and a storage
    account (protected), an enabled autoscale stop at +96 h, a 100,000 subscription budget.
    Spend: 2 x 98.32 x 96 = 18,877.44 plus the AMLFS, under 100,000. Expect: the five pass."""
    found = run(pack, _azure_team_stack(), provider=AZ)
    assert {p: verdict(found, p) for p in CORE} == {p: "pass" for p in CORE}, \
        [messages(found, p) for p in CORE]


def test_l5_alibaba_whole_training_stack_passes(pack):
    """Alibaba PAI-style: VPC, vswitch in eu-central-1a, a LowLatency deployment set, two
    ecs.gn7i-c8g1.2xlarge released in 96 h mounting a CPFS there and reading an OSS bucket of
    the region (protected, KMS), a security group rule from the VPC only. Expect: the five
    pass (the release stands in for the alarm)."""
    net = res("alicloud:vpc/network:Network", "l-vpc", {"cidrBlock": "172.16.0.0/12",
                                                        "vpcName": "train", "tags": TAGS})
    sw = res("alicloud:vpc/switch:Switch", "l-vsw", {
        "vpcId": "vpc-id", "zoneId": "eu-central-1a", "cidrBlock": "172.16.0.0/24",
        "tags": TAGS}, deps={"vpcId": [net]})
    sg = res("alicloud:ecs/securityGroup:SecurityGroup", "l-sg", {"vpcId": "vpc-id",
                                                                 "tags": TAGS},
             deps={"vpcId": [net]})
    rule = res("alicloud:ecs/securityGroupRule:SecurityGroupRule", "l-vpc-in", {
        "type": "ingress", "ipProtocol": "all", "portRange": "-1/-1", "policy": "accept",
        "securityGroupId": "sg-id", "cidrIp": "172.16.0.0/12"}, deps={"securityGroupId": [sg]})
    ds = res("alicloud:ecs/ecsDeploymentSet:EcsDeploymentSet", "l-dset",
             {"strategy": "LowLatency"})
    fs = cpfs("l-cpfs", "eu-central-1a")
    data = res("alicloud:oss/bucket:Bucket", "l-data", {
        "forceDestroy": False, "serverSideEncryptionRule": {"sseAlgorithm": "KMS"},
        "tags": TAGS})
    data.protect = True
    nodes = [ecs(f"l-node{i}", switch=sw, release="96h", mounts=[fs, data],
                 deploymentSetId="ds-id") for i in range(2)]
    for n in nodes:
        n.deps["deploymentSetId"] = [ds]
    found = run(pack, [net, sw, sg, rule, ds, fs, data, *nodes], provider=ALI)
    assert {p: verdict(found, p) for p in CORE} == {p: "pass" for p in CORE}, \
        [messages(found, p) for p in CORE]


def test_l6_gcp_and_azure_each_budgeted_on_its_own_cloud(pack):
    """A two-cloud stack: the GCP team stack (its own 300,000 budget) and the Azure team stack
    (its own 100,000 subscription budget). Each cloud's GPUs have a budget of their cloud
    under its estimate. Expect: spend-limit pass."""
    gcp = _gcp_team_stack()
    azs = _azure_team_stack()
    for r in gcp:
        r.provider = dict(GCP)
    for r in azs:
        r.provider = dict(AZ)
    found = run(pack, gcp + azs)
    assert verdict(found, SPEND) == "pass", messages(found, SPEND)


# ============================================== added after the first run (written before
# their own first run): two shapes the first run's messages pointed at

def test_g9_group_on_a_subnet_named_by_az_id_beside_its_express_bucket(pack):
    """Added after the first run (g7 also reported "the GPU nodes' zone cannot be read" for a
    stack subnet given only availabilityZoneId). A subnet of the stack with availabilityZoneId
    use1-az4 and no availabilityZone (aws.ec2.Subnet takes either: registry
    pulumi aws ec2.Subnet availabilityZoneId), a g6e group on it reading an S3 Express
    directory bucket in use1-az4. The zone is read (by its id); docs compare directory buckets
    with the subnets' availabilityZoneId. Expect: storage-same-zone pass."""
    s = subnet("g9-sn", None, availabilityZoneId="use1-az4")
    del s.props["availabilityZone"]
    dbk = res("aws:s3/directoryBucket:DirectoryBucket", "g9-fast", {
        "bucket": "g9-fast--use1-az4--x-s3", "location": {"name": "use1-az4",
                                                           "type": "AvailabilityZone"}})
    dbk.protect = True
    t = lt("g9-lt", "g6e.12xlarge", mounts=[dbk])
    found = run(pack, [s, dbk, t, asg("g9-grp", t, [s], 2), aws_budget()], provider=AWS)
    assert verdict(found, SSZ) == "pass", messages(found, SSZ)


def test_l7_aws_and_gcp_each_budgeted_below_the_sum(pack):
    """Added after the first run (l6's defect, on another pair of clouds). An AWS ASG of 2
    g5.12xlarge (2 x 5.672 x 730 = 8,281.12) under an AWS budget of 10,000, and a GCP MIG of 2
    a2-highgpu-1g (2 x 3.67339 x 730 = 5,363.15) under a GCP budget of 10,000. Each cloud is
    under its own budget; the sum (13,644.27) is over either, which no single budget tracks.
    Expect: spend-limit pass."""
    s = subnet("l7-sn", "us-east-1a")
    t = lt("l7-lt", "g5.12xlarge")
    aws_part = [s, t, asg("l7-grp", t, [s], 2), aws_budget("10000")]
    for r in aws_part:
        r.provider = dict(AWS)
    gt = gtemplate("l7-tpl", "a2-highgpu-1g")
    gcp_part = [gt, mig("l7-mig", gt, "us-central1-a"), gcp_budget("10000")]
    for r in gcp_part:
        r.provider = dict(GCP)
    found = run(pack, aws_part + gcp_part)
    assert verdict(found, SPEND) == "pass", messages(found, SPEND)
