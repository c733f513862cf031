"""Issue 35, a fresh BLIND hostile review (helper review38): NEW stacks, written the way teams
write Pulumi programs on the four clouds, driven over gRPC as `pulumi preview --policy-pack`
drives the pack (tests/policy_harness.py). The pack's rule code was not read; the cases come from
the issue's classes, the README's policy table, and the providers' registry pages. No stack of
review35*, review36*, review37* or edges35* is reused; only the small builders and the verdict
reader of tests/policies/test_policy_review35f.py are imported.

Each case's docstring gives its expected verdict BEFORE the first run: the policy, "pass",
"fail" (a mandatory violation), "undecided" ("cannot decide"), or "not pass" where either a
failure or a "cannot decide" is right (an unreadable value never makes a total smaller), and the
key figure where a price is involved, worked by hand.

Figures (on-demand USD/h, spot where said) from policies/catalog_data/prices.csv, each row with
its own public source:
  aws us-east-1: g6.12xlarge 4.6016; g5.48xlarge 16.288; g6e.2xlarge 2.24208; g4dn.xlarge
    0.526; p4d.24xlarge 21.9576; p4de.24xlarge 27.4471; p3.2xlarge 3.06; g5.xlarge 1.006.
  aws us-west-2: g6.xlarge 0.8048.  aws eu-west-1: g5.xlarge 1.123.
  gcp us-central1: g2-standard-12 1.00042; g2-standard-8 0.853624; a2-highgpu-1g 3.67339;
    a2-highgpu-2g 7.34677; a2-ultragpu-1g 5.0688; a3-highgpu-8g 88.49.
    gcp europe-west4: g2-standard-4 0.742916.
  azure eastus: Standard_NC24ads_A100_v4 3.673; Standard_NC40ads_H100_v5 6.98;
    Standard_NC8as_T4_v3 0.752; Standard_NV36ads_A10_v5 3.2; Standard_NC6s_v3 3.06 (spot
    0.3978).  azure westeurope: Standard_NC24ads_A100_v4 4.775.
  alibaba: ecs.gn7i-c8g1.2xlarge eu-central-1 2.56083; ecs.gn6i-c4g1.xlarge cn-hangzhou 1.61653.
A month is 730 h.

Results. Five rounds, each committed with its expectations before its first run: round 1
(a-k, 61 cases) 61 agreed; round 2 (r1-r13) 3 disagreements, all the pack's (r1, r2: AWS Batch
and Azure Batch capacity the pack does not size fails closed under a budget that covers its
maximum; r3: an Alibaba autoReleaseTime already past still stands in for the budget alarm);
round 3 (s1-s14) 1, the pack's (s13: a stop below the group's minimum taken as a lifetime);
round 4 (t1-t10) 1, mine (t5: an import I had dropped, a NameError); round 5 (u1-u9) 2, the
pack's (u1: a warm pool's total counted on top of maxSize; u2: an aws-native ScheduledAction
stop not read). The pack's six are strict xfails. Planted in my own helper (_cr's capacity
fixed at 1): a9 and s11 failed.

Fixed by helper fix38: r1, r2, r3, u1, u2 (xfails removed with each fix). s13 was corrected
instead: the classic provider sends 0 for a size left out (terraform-provider-aws
internal/service/autoscaling/schedule.go; only -1 is left out), so desiredCapacity alone also
set min and max to 0, a valid stop; s13 now sets only desired as each provider allows and
s13b keeps the first version (a stop). r1b-r1d, r2b, r2c, s2b, s5b are fix38's additions.

Classes (issue 35): A capacity counted once, C compute the pack must see, D stops that do not
stop, E budgets that do not cover, F malformed values, G scope, H literal ids, I public exposure,
J configuration typos, K catalog reach.
"""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

import grpc
import pytest

from tests.policies.test_policy_review35f import (
    AWS,
    AZ,
    GCP,
    LABELS,
    MONTH,
    NPI,
    SPEND,
    SSZ,
    SUB,
    TAGS,
    asg,
    aws_budget,
    az_autoscale,
    az_budget,
    cpfs,
    ec2,
    ecs,
    estimate,
    fsx,
    gcp_budget,
    glustre,
    gtemplate,
    gvm,
    lt,
    messages,
    mig,
    near,
    subnet,
    verdict,
    vmss,
    vsw,
)
from tests.policy_fixtures import hours_from_now, res
from tests.policy_harness import run
from trainstack_policies.model import UNKNOWN

ALI = {"region": "eu-central-1"}
G6_12, G5_48, G6E_2, P4D = 4.6016, 16.288, 2.24208, 21.9576
G2_12, G2_8, A2_1, A2_2, A2U_1 = 1.00042, 0.853624, 3.67339, 7.34677, 5.0688
NC24, NC40H, NC8T4, NC6V3, NC6V3_SPOT = 3.673, 6.98, 0.752, 3.06, 0.3978
GN7I = 2.56083


def _ago(hours):
    return (datetime.now(timezone.utc) - timedelta(hours=hours)).strftime("%Y-%m-%dT%H:%M:%SZ")


def _odcr(name, itype, count, zone="us-east-1a", **p):
    return res("aws:ec2/capacityReservation:CapacityReservation", name, {
        "instanceType": itype, "instancePlatform": "Linux/UNIX", "availabilityZone": zone,
        "instanceCount": float(count), "tags": TAGS, **p})


def _p4d(label="train", size=2, zone="us-east-1a", mounts=(), **p):
    s = subnet(f"{label}-sn", zone)
    t = lt(f"{label}-lt", "p4d.24xlarge", mounts=mounts)
    return s, t, asg(label, t, [s], size, **p)


def _greservation(name, mtype, count, zone="us-central1-a", **p):
    return res("gcp:compute/reservation:Reservation", name, {
        "name": name, "zone": zone, "specificReservation": {
            "count": float(count), "instanceProperties": {"machineType": mtype}}, **p})


def _crg(name="crg", zones=("1",)):
    return res("azure-native:compute:CapacityReservationGroup", name, {
        "resourceGroupName": "ml-rg", "location": "eastus", "zones": list(zones), "tags": TAGS})


def _cr(crg, size, capacity, name="cr"):
    return res("azure-native:compute:CapacityReservation", name, {
        "resourceGroupName": "ml-rg", "capacityReservationGroupName": "crg-name",
        "location": "eastus", "zones": ["1"], "sku": {"name": size, "capacity": float(capacity)},
        "tags": TAGS}, deps={"capacityReservationGroupName": [crg]})


def _classic_vmss(name, sku, instances, **p):
    return res("azure:compute/linuxVirtualMachineScaleSet:LinuxVirtualMachineScaleSet", name, {
        "resourceGroupName": "ml-rg", "location": "eastus", "sku": sku,
        "instances": float(instances), "adminUsername": "azureuser", "zones": ["1"],
        "sourceImageReference": {"publisher": "microsoft-dsvm", "offer": "ubuntu-hpc",
                                 "sku": "2204", "version": "latest"},
        "osDisk": {"caching": "ReadWrite", "storageAccountType": "Premium_LRS"},
        "networkInterfaces": [{"name": "nic", "primary": True, "ipConfigurations": [
            {"name": "internal", "primary": True, "subnetId": "subnet-id"}]}],
        "tags": TAGS, **p})


def _ess(name, itype, min_size, max_size, switch=None, **sc):
    sg = res("alicloud:ess/scalingGroup:ScalingGroup", f"{name}-sg", {
        "minSize": min_size, "maxSize": max_size, "scalingGroupName": name,
        "vswitchIds": ["vsw-id"]}, deps={"vswitchIds": [switch]} if switch else {})
    conf = res("alicloud:ess/scalingConfiguration:ScalingConfiguration", f"{name}-sc", {
        "scalingGroupId": "sg-id", "instanceType": itype,
        "imageId": "ubuntu_22_04_x64_20G_alibase_20240508.vhd", "active": True,
        "securityGroupId": "sg-1", "tags": TAGS, **sc}, deps={"scalingGroupId": [sg]})
    return sg, conf


# ============================================== A. capacity counted once

def test_a1_targeted_odcr_not_filled_by_a_group_that_does_not_target_it(pack):
    """A targeted ODCR (instanceMatchCriteria targeted) of 2 g6.12xlarge in us-east-1a, and an
    ASG of 2 g6.12xlarge there whose launch template names no reservation: a targeted
    reservation takes only instances that target it by id (docs.aws.amazon.com/AWSEC2/latest/
    UserGuide/capacity-reservations-using.html). Both bill.
    Expect: estimate 4 x 4.6016 x 730 = 13,436.67 (not 6,718.34)."""
    s = subnet("a", "us-east-1a")
    cr = _odcr("l4-odcr", "g6.12xlarge", 2, instanceMatchCriteria="targeted")
    t = lt("l4-lt", "g6.12xlarge")
    assert near(estimate(pack, [s, cr, t, asg("l4", t, [s], 2)], AWS), 4 * G6_12 * MONTH)


def test_a2_open_odcr_filled_by_plain_instances_once(pack):
    """An open ODCR of 2 g5.48xlarge in us-east-1a and two aws.ec2.Instance g5.48xlarge in
    us-east-1a (On-Demand; open matching by default): the instances run in it.
    Expect: estimate 2 x 16.288 x 730 = 23,780.48 (once)."""
    cr = _odcr("g5-odcr", "g5.48xlarge", 2)
    vms = [ec2(f"g5-{i}", "g5.48xlarge") for i in range(2)]
    assert near(estimate(pack, [cr, *vms], AWS), 2 * G5_48 * MONTH)


def test_a4_two_capacity_block_node_groups_of_different_durations_at_their_fees(pack):
    """Two EKS node groups of capacityType CAPACITY_BLOCK (blocks bought outside the stack): a
    1-day block of 1 p4d.24xlarge (fee 1,000 USD) and a 14-day block of 2 (fee 22,000 USD),
    configured in capacityBlockFeesUsd by node group name. A block is paid once for its duration
    (aws.amazon.com/ec2/capacityblocks/pricing). Expect: estimate 1,000 + 22,000 = 23,000."""
    s = subnet("eks-a", "us-east-1a")
    stack = [s]
    for name, cr, size in (("day-ng", "cr-0aaaa1111bbbb2222", 1),
                           ("fortnight-ng", "cr-0cccc3333dddd4444", 2)):
        t = lt(f"{name}-lt", "p4d.24xlarge", capacityReservationSpecification={
            "capacityReservationTarget": {"capacityReservationId": cr}},
            instanceMarketOptions={"marketType": "capacity-block"})
        stack += [t, res("aws:eks/nodeGroup:NodeGroup", name, {
            "clusterName": "train", "nodeRoleArn": "arn:aws:iam::123456789012:role/ng",
            "subnetIds": ["subnet-id"], "capacityType": "CAPACITY_BLOCK",
            "scalingConfig": {"minSize": 0, "maxSize": size, "desiredSize": size},
            "launchTemplate": {"id": "lt-id", "version": "$Latest"}, "tags": TAGS},
            deps={"launchTemplate": [t], "subnetIds": [s]})]
    cfg = {"capacityBlockFeesUsd": {"day-ng": 1000, "fortnight-ng": 22000}}
    assert near(estimate(pack, stack, AWS, cfg), 23000)


def test_a5_gcp_project_shared_reservation_used_by_owner_vms_once(pack):
    """A reservation of 2 g2-standard-12 in us-central1-a shared with another project
    (shareSettings SPECIFIC_PROJECTS); the owner project can consume it too
    (cloud.google.com/compute/docs/instances/reservations-shared). Two g2-standard-12 VMs of the
    stack in us-central1-a (ANY_RESERVATION by default).
    Expect: estimate 2 x 1.00042 x 730 = 1,460.61 (once)."""
    r = _greservation("l4-shared", "g2-standard-12", 2, shareSettings={
        "shareType": "SPECIFIC_PROJECTS",
        "projectMaps": [{"id": "ml-infer", "projectId": "ml-infer"}]})
    vms = [gvm(f"l4-{i}", "g2-standard-12") for i in range(2)]
    assert near(estimate(pack, [r, *vms], GCP), 2 * G2_12 * MONTH)


def test_a6_gcp_reservation_in_another_zone_absorbs_nothing(pack):
    """A reservation of 2 g2-standard-12 in us-central1-b; two VMs in us-central1-a. A
    reservation serves its own zone only. Expect: estimate 4 x 1.00042 x 730 = 2,921.23."""
    r = _greservation("l4-b", "g2-standard-12", 2, zone="us-central1-b")
    vms = [gvm(f"l4-{i}", "g2-standard-12") for i in range(2)]
    assert near(estimate(pack, [r, *vms], GCP), 4 * G2_12 * MONTH)


def test_a7_gcp_vm_with_no_reservation_affinity_runs_beside_it(pack):
    """An open reservation of 2 a2-highgpu-2g in us-central1-a and one a2-highgpu-2g VM with
    reservationAffinity NO_RESERVATION: it never consumes the reservation.
    Expect: estimate 3 x 7.34677 x 730 = 16,089.43."""
    r = _greservation("a2-res", "a2-highgpu-2g", 2)
    vm = gvm("a2-free", "a2-highgpu-2g", reservationAffinity={"type": "NO_RESERVATION"})
    assert near(estimate(pack, [r, vm], GCP), 3 * A2_2 * MONTH)


def test_a8_classic_azure_vm_in_a_capacity_reservation_group_once(pack):
    """A capacity reservation of 1 Standard_NC40ads_H100_v5 (azure-native group and
    reservation) and a classic azure LinuxVirtualMachine of that size with
    capacityReservationGroupId naming the group: the VM runs in the reservation.
    Expect: estimate 6.98 x 730 = 5,095.40 (once); with a 10,000 budget spend-limit pass."""
    crg = _crg()
    cr = _cr(crg, "Standard_NC40ads_H100_v5", 1)
    vm = res("azure:compute/linuxVirtualMachine:LinuxVirtualMachine", "h100-vm", {
        "resourceGroupName": "ml-rg", "location": "eastus", "size": "Standard_NC40ads_H100_v5",
        "adminUsername": "azureuser", "networkInterfaceIds": ["nic-id"], "zone": "1",
        "capacityReservationGroupId": "crg-id",
        "osDisk": {"caching": "ReadWrite", "storageAccountType": "Premium_LRS"}, "tags": TAGS},
        deps={"capacityReservationGroupId": [crg]})
    stack = [crg, cr, vm]
    assert near(estimate(pack, stack, AZ), NC40H * MONTH)
    found = run(pack, stack + [az_budget(10000.0)], provider=AZ)
    assert verdict(found, SPEND) == "pass", messages(found, SPEND)


def test_a9_azure_native_vm_in_a_larger_reservation(pack):
    """A reservation of 2 Standard_NC24ads_A100_v4 and one azure-native VirtualMachine of that
    size associated with the group (capacityReservation.capacityReservationGroup.id): the
    reservation bills 2 whether used or not; the VM adds nothing.
    Expect: estimate 2 x 3.673 x 730 = 5,362.58."""
    crg = _crg()
    cr = _cr(crg, "Standard_NC24ads_A100_v4", 2)
    vm = res("azure-native:compute:VirtualMachine", "a100-vm", {
        "resourceGroupName": "ml-rg", "location": "eastus", "zones": ["1"],
        "hardwareProfile": {"vmSize": "Standard_NC24ads_A100_v4"},
        "capacityReservation": {"capacityReservationGroup": {"id": "crg-id"}},
        "networkProfile": {"networkInterfaces": [{"id": "nic-id", "primary": True}]},
        "tags": TAGS}, deps={"capacityReservation": [crg]})
    assert near(estimate(pack, [crg, cr, vm], AZ), 2 * NC24 * MONTH)


def test_a10_classic_scale_set_larger_than_its_reservation(pack):
    """A reservation of 1 Standard_NC24ads_A100_v4 and a classic LinuxVirtualMachineScaleSet of
    3 associated with the group (capacityReservationGroupId): one instance in the reservation,
    two beyond it. Expect: estimate 3 x 3.673 x 730 = 8,043.87 (not 4 x)."""
    crg = _crg()
    cr = _cr(crg, "Standard_NC24ads_A100_v4", 1)
    ss = _classic_vmss("a100-ss", "Standard_NC24ads_A100_v4", 3,
                       capacityReservationGroupId="crg-id")
    ss.deps["capacityReservationGroupId"] = [crg]
    assert near(estimate(pack, [crg, cr, ss], AZ), 3 * NC24 * MONTH)


# ============================================== C. compute the pack must see

def test_c1_azure_native_gpu_vm_without_budget_fails(pack):
    """One azure-native VirtualMachine Standard_NV36ads_A10_v5 (A10), no budget.
    Expect: spend-limit fail, "no budget alarm on azure"."""
    vm = res("azure-native:compute:VirtualMachine", "a10-vm", {
        "resourceGroupName": "ml-rg", "location": "eastus",
        "hardwareProfile": {"vmSize": "Standard_NV36ads_A10_v5"},
        "networkProfile": {"networkInterfaces": [{"id": "nic-id", "primary": True}]},
        "tags": TAGS})
    found = run(pack, [vm], provider=AZ)
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)
    assert "no budget alarm on azure" in messages(found, SPEND)


def test_c2_classic_orchestrated_scale_set_of_t4s_is_priced(pack):
    """A classic OrchestratedVirtualMachineScaleSet (flexible orchestration) skuName
    Standard_NC8as_T4_v3, instances 4, platformFaultDomainCount 1.
    Expect: estimate 4 x 0.752 x 730 = 2,195.84."""
    ss = res("azure:compute/orchestratedVirtualMachineScaleSet:"
             "OrchestratedVirtualMachineScaleSet", "t4-flex", {
                 "resourceGroupName": "ml-rg", "location": "eastus",
                 "skuName": "Standard_NC8as_T4_v3", "instances": 4.0,
                 "platformFaultDomainCount": 1.0, "zones": ["1"], "tags": TAGS})
    assert near(estimate(pack, [ss], AZ), 4 * NC8T4 * MONTH)


def test_c3_classic_spot_scale_set_at_the_spot_rate(pack):
    """A classic LinuxVirtualMachineScaleSet of 2 Standard_NC6s_v3, priority Spot, eviction
    Delete, maxBidPrice -1. Expect: estimate at the catalog's spot rate 2 x 0.3978 x 730 =
    580.79 (or, conservatively, never below it)."""
    ss = _classic_vmss("v100-spot", "Standard_NC6s_v3", 2, priority="Spot",
                       evictionPolicy="Delete", maxBidPrice=-1.0)
    got = estimate(pack, [ss], AZ)
    assert 2 * NC6V3_SPOT * MONTH - 2 <= got <= 2 * NC6V3 * MONTH + 2, got


def test_c4_gcp_regional_mig_of_l4s_is_priced(pack):
    """A RegionInstanceGroupManager (us-central1, zones a/b/c) of a g2-standard-8 template,
    targetSize 3. Expect: estimate 3 x 0.853624 x 730 = 1,869.44."""
    t = gtemplate("l4-tpl", "g2-standard-8")
    m = res("gcp:compute/regionInstanceGroupManager:RegionInstanceGroupManager", "l4-rmig", {
        "region": "us-central1", "targetSize": 3.0, "baseInstanceName": "l4",
        "distributionPolicyZones": ["us-central1-a", "us-central1-b", "us-central1-c"],
        "versions": [{"instanceTemplate": "tpl-id", "name": "primary"}]},
        deps={"versions": [t]})
    assert near(estimate(pack, [t, m], GCP), 3 * G2_8 * MONTH)


def test_c5_gcp_mig_with_autoscaler_priced_at_its_maximum(pack):
    """A zonal MIG of an a2-ultragpu-1g template, targetSize 1, with a gcp.compute.Autoscaler
    (maxReplicas 4, minReplicas 1) targeting it: the group can grow to 4.
    Expect: estimate 4 x 5.0688 x 730 = 14,800.90 (at its maximum, README: "GPU capacity at its
    maximum size")."""
    t = gtemplate("a2u-tpl", "a2-ultragpu-1g")
    m = mig("a2u", t, "us-central1-a", size=1)
    a = res("gcp:compute/autoscaler:Autoscaler", "a2u-as", {
        "zone": "us-central1-a", "target": "mig-id", "autoscalingPolicy": {
            "maxReplicas": 4.0, "minReplicas": 1.0, "cooldownPeriod": 60.0,
            "cpuUtilization": {"target": 0.6}}}, deps={"target": [m]})
    assert near(estimate(pack, [t, m, a], GCP), 4 * A2U_1 * MONTH)


def test_c6_alibaba_ess_group_priced_at_its_maximum(pack):
    """An ESS ScalingGroup minSize 2 maxSize 4 with an active ScalingConfiguration of
    ecs.gn7i-c8g1.2xlarge on a vSwitch in eu-central-1a.
    Expect: estimate 4 x 2.56083 x 730 = 7,477.62."""
    sw = vsw()
    sg, conf = _ess("a10", "ecs.gn7i-c8g1.2xlarge", 2.0, 4.0, switch=sw)
    assert near(estimate(pack, [sw, sg, conf], ALI), 4 * GN7I * MONTH)


def test_c7_alibaba_ack_node_pool_is_priced(pack):
    """A ManagedKubernetes cluster and an alicloud.cs.NodePool of instanceTypes
    [ecs.gn7i-c8g1.2xlarge], desiredSize 3, on a vSwitch in eu-central-1a.
    Expect: estimate 3 x 2.56083 x 730 = 5,608.22 (a cluster fee may be added: accept up to
    +500)."""
    sw = vsw()
    ack = res("alicloud:cs/managedKubernetes:ManagedKubernetes", "ack", {
        "clusterSpec": "ack.pro.small", "workerVswitchIds": ["vsw-id"],
        "podVswitchIds": ["vsw-id"], "serviceCidr": "172.21.0.0/20", "tags": TAGS},
        deps={"workerVswitchIds": [sw]})
    pool = res("alicloud:cs/nodePool:NodePool", "a10-pool", {
        "clusterId": "ack-id", "nodePoolName": "a10", "vswitchIds": ["vsw-id"],
        "instanceTypes": ["ecs.gn7i-c8g1.2xlarge"], "desiredSize": 3.0,
        "systemDiskCategory": "cloud_essd", "systemDiskSize": 120.0, "tags": TAGS},
        deps={"clusterId": [ack], "vswitchIds": [sw]})
    got = estimate(pack, [sw, ack, pool], ALI)
    assert 3 * GN7I * MONTH - 2 <= got <= 3 * GN7I * MONTH + 500, got


def test_c8_eks_node_group_typed_by_its_launch_template(pack):
    """An EKS managed node group with no instanceTypes of its own; its launch template sets
    g6e.2xlarge (docs.aws.amazon.com/eks/latest/userguide/launch-templates.html). maxSize 2.
    Expect: estimate 2 x 2.24208 x 730 = 3,273.44 (an EKS control plane 73/month may be added
    where the cluster is in the stack; it is not here)."""
    s = subnet("eks-a", "us-east-1a")
    t = lt("l40s-lt", "g6e.2xlarge")
    ng = res("aws:eks/nodeGroup:NodeGroup", "l40s-ng", {
        "clusterName": "infer", "nodeRoleArn": "arn:aws:iam::123456789012:role/ng",
        "subnetIds": ["subnet-id"],
        "scalingConfig": {"minSize": 1, "maxSize": 2, "desiredSize": 1},
        "launchTemplate": {"id": "lt-id", "version": "$Latest"}, "tags": TAGS},
        deps={"launchTemplate": [t], "subnetIds": [s]})
    assert near(estimate(pack, [s, t, ng], AWS), 2 * G6E_2 * MONTH)


def test_c9_aws_batch_spot_environment_not_free(pack):
    """An AWS Batch managed compute environment of type SPOT, instanceTypes [g5.xlarge] (4
    vCPUs), maxVcpus 16 (4 nodes), bidPercentage 100, with a 20 USD budget. The catalog has no
    g5.xlarge spot rate; the on-demand ceiling is 4 x 1.006 x 730 = 2,937.52.
    Expect: spend-limit not pass (fail or undecided)."""
    ce = res("aws:batch/computeEnvironment:ComputeEnvironment", "spot-ce", {
        "type": "MANAGED", "computeResources": {
            "type": "SPOT", "bidPercentage": 100.0, "instanceTypes": ["g5.xlarge"],
            "minVcpus": 0.0, "maxVcpus": 16.0, "subnets": ["subnet-0aaa1111"],
            "securityGroupIds": ["sg-0aaa1111"],
            "spotIamFleetRole": "arn:aws:iam::123456789012:role/spotfleet",
            "instanceRole": "arn:aws:iam::123456789012:instance-profile/b", "tags": TAGS}})
    found = run(pack, [ce, aws_budget("20")], provider=AWS)
    assert verdict(found, SPEND) != "pass", messages(found, SPEND)


# ============================================== D. stops that do not stop

def test_d1_recurring_stop_whose_end_time_passed_stops_nothing(pack):
    """A recurring stop (recurrence "0 20 * * *", timeZone America/New_York, capacity 0) whose
    endTime was yesterday: the action no longer runs. Expect: the month, 2 x 21.9576 x 730 =
    32,058.10."""
    s, t, g = _p4d()
    stop = res("aws:autoscaling/schedule:Schedule", "train-nightly-stop", {
        "autoscalingGroupName": "grp", "scheduledActionName": "nightly-stop",
        "recurrence": "0 20 * * *", "timeZone": "America/New_York",
        "startTime": _ago(24 * 30), "endTime": _ago(24),
        "minSize": 0.0, "maxSize": 0.0, "desiredCapacity": 0.0},
        deps={"autoscalingGroupName": [g]})
    assert near(estimate(pack, [s, t, g, stop], AWS), 2 * P4D * MONTH)


def test_d2_recurring_stop_with_time_zone_and_no_restart_is_at_most_a_day(pack):
    """A recurring stop "0 20 * * *" in Asia/Tokyo, capacity 0, no start action: the group is at
    0 within 24 h and nothing raises it. Expect: estimate at most 2 x 21.9576 x 24 = 1,053.96
    and above 0 (or the month, conservatively: never less than 0 h)."""
    s, t, g = _p4d()
    stop = res("aws:autoscaling/schedule:Schedule", "train-tokyo-stop", {
        "autoscalingGroupName": "grp", "scheduledActionName": "tokyo-stop",
        "recurrence": "0 20 * * *", "timeZone": "Asia/Tokyo",
        "minSize": 0.0, "maxSize": 0.0, "desiredCapacity": 0.0},
        deps={"autoscalingGroupName": [g]})
    got = estimate(pack, [s, t, g, stop], AWS)
    assert 0 < got <= 2 * P4D * 24 + 2 or near(got, 2 * P4D * MONTH), got


def test_d3_azure_weekend_profile_is_a_pause_not_a_stop(pack):
    """An autoscale setting on a 2-node A100 scale set: a default profile of 2 and a recurring
    weekend profile of capacity 0 (recurrence Week, Saturday/Sunday 00:00). The nodes come
    back every Monday. Expect: not a lifetime: estimate in [5/7, 1] x 2 x 3.673 x 730, i.e.
    3,830.41..5,362.58 (the pack may price the whole month)."""
    ss = vmss("a100", "Standard_NC24ads_A100_v4", 2.0)
    a = az_autoscale(ss, [
        {"name": "weekday", "capacity": {"minimum": "2", "maximum": "2", "default": "2"},
         "rules": []},
        {"name": "weekend-off", "capacity": {"minimum": "0", "maximum": "0", "default": "0"},
         "rules": [], "recurrence": {"frequency": "Week", "schedule": {
             "timeZone": "UTC", "days": ["Saturday", "Sunday"], "hours": [0], "minutes": [0]}}}])
    got = estimate(pack, [ss, a], AZ)
    assert 2 * NC24 * MONTH * 5 / 7 - 2 <= got <= 2 * NC24 * MONTH + 2, got


def test_d4_azure_fixed_date_stop_that_ended_stops_nothing(pack):
    """An autoscale profile of capacity 0 with fixedDate start 72 h ago and end 24 h ago: the
    window is over, the default capacity 2 applies. Expect: the month, 2 x 3.673 x 730 =
    5,362.58."""
    ss = vmss("a100", "Standard_NC24ads_A100_v4", 2.0)
    a = az_autoscale(ss, [
        {"name": "default", "capacity": {"minimum": "2", "maximum": "2", "default": "2"},
         "rules": []},
        {"name": "maintenance-off", "capacity": {"minimum": "0", "maximum": "0",
                                                 "default": "0"}, "rules": [],
         "fixedDate": {"timeZone": "UTC", "start": _ago(72), "end": _ago(24)}}])
    assert near(estimate(pack, [ss, a], AZ), 2 * NC24 * MONTH)


def _schedule_policy(name="nightly", **p):
    return res("gcp:compute/resourcePolicy:ResourcePolicy", name, {
        "region": "us-central1", "instanceSchedulePolicy": {
            "vmStopSchedule": {"schedule": "0 20 * * *"}, "timeZone": "US/Central", **p}})


def test_d5_gcp_instance_schedule_not_attached_stops_nothing(pack):
    """A resourcePolicy with instanceSchedulePolicy (vmStopSchedule daily 20:00) that no VM
    names in resourcePolicies, beside one a2-highgpu-1g VM. Expect: the month, 3.67339 x 730 =
    2,681.57."""
    assert near(estimate(pack, [_schedule_policy(), gvm("a2", "a2-highgpu-1g")], GCP),
                A2_1 * MONTH)


def test_d7_gcp_daily_stop_and_start_is_a_pause(pack):
    """An attached schedule with vmStartSchedule 08:00 and vmStopSchedule 20:00 daily: the VM
    runs 12 h a day. Expect: estimate between half a month and a month: 1,340.79..2,681.57
    (never the hours to the next stop)."""
    pol = _schedule_policy(vmStartSchedule={"schedule": "0 8 * * *"})
    vm = gvm("a2", "a2-highgpu-1g", resourcePolicies=["pol-id"])
    vm.deps["resourcePolicies"] = [pol]
    got = estimate(pack, [pol, vm], GCP)
    assert A2_1 * MONTH / 2 - 2 <= got <= A2_1 * MONTH + 2, got


def test_d8_alibaba_auto_release_time_in_the_past_is_no_lifetime(pack):
    """An ECS gn7i instance whose autoReleaseTime is a date already past (a copied program;
    the API refuses it). It is not a lifetime. With maxMonthlyUsd 1,000 (the month is 2.56083 x
    730 = 1,869.41). Expect: spend-limit not pass."""
    vm = ecs("a10", switch=None, release="2025-01-01T00:00:00Z")
    found = run(pack, [vm], {SPEND: {"maxMonthlyUsd": 1000}}, provider=ALI)
    assert verdict(found, SPEND) != "pass", messages(found, SPEND)


# ============================================== E. budgets that do not cover

def test_e1_aws_budget_filtered_to_another_region_is_no_alarm(pack):
    """A budget with costFilters Region ["us-west-2"]; the GPU group is in us-east-1.
    Expect: spend-limit fail (the budget leaves the compute out)."""
    s, t, g = _p4d()
    b = aws_budget("50000", costFilters=[{"name": "Region", "values": ["us-west-2"]}])
    found = run(pack, [s, t, g, b], provider=AWS)
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)


def test_e2_aws_budget_filtered_to_ec2_covers(pack):
    """A budget with costFilters Service ["Amazon Elastic Compute Cloud - Compute"] of 50,000
    and the 2-node p4d group (32,058.10). Expect: spend-limit pass."""
    s, t, g = _p4d()
    b = aws_budget("50000", costFilters=[{"name": "Service",
                                          "values": ["Amazon Elastic Compute Cloud - Compute"]}])
    found = run(pack, [s, t, g, b], provider=AWS)
    assert verdict(found, SPEND) == "pass", messages(found, SPEND)


def test_e3_aws_budget_without_notifications_is_no_alarm(pack):
    """A 50,000 budget with no notifications at all: it alerts no one. Expect: spend-limit
    fail (README: "a budget alarm")."""
    s, t, g = _p4d()
    b = aws_budget("50000")
    b.props.pop("notifications")
    found = run(pack, [s, t, g, b], provider=AWS)
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)


def test_e4_aws_budget_amount_with_unit_is_not_a_larger_cap(pack):
    """limitAmount "20000 USD" (unit written in the amount; the API wants a number) and the
    group's month 32,058.10. Expect: spend-limit not pass."""
    s, t, g = _p4d()
    found = run(pack, [s, t, g, aws_budget("20000 USD")], provider=AWS)
    assert verdict(found, SPEND) != "pass", messages(found, SPEND)


def test_e5_gcp_budget_on_compute_service_covers(pack):
    """A GCP budget of 10,000 with budgetFilter.services ["services/6F81-5844-456A"] (Compute
    Engine) and projects ["projects/ml-prod"]; one a2-highgpu-1g (2,681.57). Expect: pass."""
    b = gcp_budget("10000", budgetFilter={"services": ["services/6F81-5844-456A"],
                                          "projects": ["projects/ml-prod"]})
    found = run(pack, [gvm("a2", "a2-highgpu-1g"), b], provider=GCP)
    assert verdict(found, SPEND) == "pass", messages(found, SPEND)


def test_e6_gcp_budget_on_another_label_leaves_the_vm_out(pack):
    """A GCP budget filtered by labels {"team": "research"}; the VM is labelled team ml.
    Expect: spend-limit fail (no budget covers the compute)."""
    b = gcp_budget("10000", budgetFilter={"labels": {"team": "research"}})
    found = run(pack, [gvm("a2", "a2-highgpu-1g"), b], provider=GCP)
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)


def test_e8_azure_budget_filtered_to_another_resource_group(pack):
    """An azure-native subscription budget of 20,000 with filter dimensions ResourceGroupName
    In ["web-rg"]; the scale set is in ml-rg. Expect: spend-limit fail."""
    b = az_budget(20000.0, filter={"dimensions": {"name": "ResourceGroupName",
                                                  "operator": "In", "values": ["web-rg"]}})
    found = run(pack, [vmss("a100", "Standard_NC24ads_A100_v4", 2.0), b], provider=AZ)
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)


def test_e9_azure_budget_amount_as_string_with_comma(pack):
    """An azure-native budget with amount "3,000" (a string; the scale set's month is 2 x 3.673
    x 730 = 5,362.58). Expect: spend-limit not pass."""
    found = run(pack, [vmss("a100", "Standard_NC24ads_A100_v4", 2.0), az_budget("3,000")],
                provider=AZ)
    assert verdict(found, SPEND) != "pass", messages(found, SPEND)


# ============================================== F. malformed values

def test_f1_negative_desired_capacity_is_not_cheaper(pack):
    """A p4d ASG with maxSize 2 and desiredCapacity -2, a 20,000 budget (the 2-node month
    32,058.10). Expect: spend-limit not pass."""
    s, t, g = _p4d()
    g.props["desiredCapacity"] = -2.0
    found = run(pack, [s, t, g, aws_budget("20000")], provider=AWS)
    assert verdict(found, SPEND) != "pass", messages(found, SPEND)


def test_f2_mig_target_size_nan_is_not_free_and_hides_no_zone_fault(pack):
    """A MIG of a3-highgpu-8g with targetSize NaN in us-central1-b mounting a Lustre in
    us-central1-a, a 1,000 budget. Expect: spend-limit not pass; storage-same-zone fail (the
    zone is readable)."""
    fs = glustre("scratch", "us-central1-a")
    t = gtemplate("a3-tpl", "a3-highgpu-8g", mounts=[fs])
    m = mig("a3", t, "us-central1-b")
    m.props["targetSize"] = float("nan")
    found = run(pack, [fs, t, m, gcp_budget("1000")], provider=GCP)
    assert verdict(found, SPEND) != "pass", messages(found, SPEND)
    assert verdict(found, SSZ) == "fail", messages(found, SSZ)


def test_f3_azure_capacity_as_a_word_is_not_free(pack):
    """A scale set with sku.capacity "lots", a 100 USD budget (one node's month is 2,681.29).
    Expect: spend-limit not pass."""
    found = run(pack, [vmss("a100", "Standard_NC24ads_A100_v4", "lots"), az_budget(100.0)],
                provider=AZ)
    assert verdict(found, SPEND) != "pass", messages(found, SPEND)


def test_f4_alibaba_huge_max_size_fails_without_crash(pack):
    """An ESS group with maxSize 1e12 of gn7i, maxMonthlyUsd 100,000. Expect: spend-limit fail
    (far over), no crash."""
    sg, conf = _ess("huge", "ecs.gn7i-c8g1.2xlarge", 0.0, 1e12)
    found = run(pack, [sg, conf], {SPEND: {"maxMonthlyUsd": 100000}}, provider=ALI)
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)


def test_f5_unknown_max_size_beside_a_known_group(pack):
    """Two groups: a known 1-node p4d group (16,029.05) and a second group whose maxSize and
    desiredCapacity are unknown at preview; a 50,000 budget. Expect: spend-limit not pass (the
    unknown group may exceed it)."""
    s, t, g = _p4d(size=1)
    t2 = lt("more-lt", "p4d.24xlarge")
    g2 = asg("more", t2, [s], 1)
    g2.props["maxSize"] = UNKNOWN
    g2.props["desiredCapacity"] = UNKNOWN
    found = run(pack, [s, t, g, t2, g2, aws_budget("50000")], provider=AWS)
    assert verdict(found, SPEND) != "pass", messages(found, SPEND)


def test_f6_negative_reservation_count_does_not_reduce_the_total(pack):
    """A GCP reservation of count -1 a2-highgpu-1g beside one a2-highgpu-1g VM; maxMonthlyUsd
    2,000 (the VM alone is 2,681.57). Expect: spend-limit not pass."""
    r = _greservation("bad", "a2-highgpu-1g", -1)
    found = run(pack, [r, gvm("a2", "a2-highgpu-1g")], {SPEND: {"maxMonthlyUsd": 2000}},
                provider=GCP)
    assert verdict(found, SPEND) != "pass", messages(found, SPEND)


# ============================================== G. scope

def test_g1_aws_cpu_group_in_other_zone_reads_the_fsx(pack):
    """A p4d group on us-east-1a mounting an FSx on that subnet; a CPU data-loader group
    (m6i.4xlarge) on us-east-1b mounting the same FSx. Same-zone is about the GPUs.
    Expect: storage-same-zone pass."""
    sa, sb = subnet("a", "us-east-1a"), subnet("b", "us-east-1b")
    fs = fsx("scratch", sa)
    tg, tc = lt("gpu-lt", "p4d.24xlarge", mounts=[fs]), lt("cpu-lt", "m6i.4xlarge", mounts=[fs])
    stack = [sa, sb, fs, tg, tc, asg("gpu", tg, [sa], 2), asg("loader", tc, [sb], 4),
             aws_budget("500000")]
    found = run(pack, stack, provider=AWS)
    assert verdict(found, SSZ) == "pass", messages(found, SSZ)


def test_g2_aws_gpu_group_in_other_zone_fails(pack):
    """Control: a p4d group on us-east-1b mounting an FSx on a us-east-1a subnet.
    Expect: storage-same-zone fail."""
    sa, sb = subnet("a", "us-east-1a"), subnet("b", "us-east-1b")
    fs = fsx("scratch", sa)
    t = lt("gpu-lt", "p4d.24xlarge", mounts=[fs])
    found = run(pack, [sa, sb, fs, t, asg("gpu", t, [sb], 2), aws_budget("500000")],
                provider=AWS)
    assert verdict(found, SSZ) == "fail", messages(found, SSZ)


def test_g3_gcp_two_training_migs_each_with_own_lustre(pack):
    """Two a3-highgpu-8g MIGs, one in us-central1-a with a Lustre there, one in us-central1-b
    with its own Lustre there. Expect: storage-same-zone pass."""
    fa, fb = glustre("fs-a", "us-central1-a"), glustre("fs-b", "us-central1-b")
    ta, tb = gtemplate("tpl-a", "a3-highgpu-8g", mounts=[fa]), \
        gtemplate("tpl-b", "a3-highgpu-8g", mounts=[fb])
    found = run(pack, [fa, fb, ta, tb, mig("a3-a", ta, "us-central1-a"),
                       mig("a3-b", tb, "us-central1-b"), gcp_budget("1000000")], provider=GCP)
    assert verdict(found, SSZ) == "pass", messages(found, SSZ)


def test_g4_azure_cpu_scale_set_in_zone_2_reads_the_amlfs(pack):
    """A GPU scale set in zone 1 and a CPU scale set (Standard_D8s_v5) in zone 2, both
    depending on the zone-1 AMLFS. Expect: storage-same-zone pass."""
    fs = res("azure-native:storagecache:AmlFilesystem", "amlfs", {
        "resourceGroupName": "ml-rg", "location": "eastus", "zones": ["1"],
        "storageCapacityTiB": 8.0, "sku": {"name": "AMLFS-Durable-Premium-250"},
        "filesystemSubnet": "subnet-id", "tags": TAGS})
    gpu = vmss("gpu", "Standard_NC24ads_A100_v4", 2.0, deps={"virtualMachineProfile": [fs]})
    cpu = vmss("prep", "Standard_D8s_v5", 4.0, zones=("2",), deps={"virtualMachineProfile": [fs]})
    found = run(pack, [fs, gpu, cpu, az_budget(100000.0)], provider=AZ)
    assert verdict(found, SSZ) == "pass", messages(found, SSZ)


def test_g5_alibaba_cpu_instance_in_other_zone_reads_the_cpfs(pack):
    """GPU ECS instances on a vSwitch in eu-central-1a mounting a CPFS there; a CPU instance
    (ecs.g7.2xlarge) on a vSwitch in eu-central-1b mounting it. Expect: storage-same-zone pass."""
    swa, swb = vsw("vsw-a", "eu-central-1a"), vsw("vsw-b", "eu-central-1b")
    fs = cpfs("cpfs", "eu-central-1a")
    nodes = [ecs(f"g{i}", switch=swa, mounts=[fs]) for i in range(2)]
    cpu = ecs("prep", itype="ecs.g7.2xlarge", switch=swb, mounts=[fs])
    found = run(pack, [swa, swb, fs, *nodes, cpu], provider=ALI)
    assert verdict(found, SSZ) == "pass", messages(found, SSZ)


def test_g6_gcp_regional_inference_mig_beside_training(pack):
    """A training MIG of a3-highgpu-8g in us-central1-a mounting a Lustre there, and a regional
    inference MIG of g2-standard-8 over a/b/c mounting nothing. Expect: storage-same-zone pass."""
    fs = glustre("scratch", "us-central1-a")
    tt, ti = gtemplate("a3-tpl", "a3-highgpu-8g", mounts=[fs]), gtemplate("l4-tpl",
                                                                          "g2-standard-8")
    inf = res("gcp:compute/regionInstanceGroupManager:RegionInstanceGroupManager", "serve", {
        "region": "us-central1", "targetSize": 3.0, "baseInstanceName": "serve",
        "distributionPolicyZones": ["us-central1-a", "us-central1-b", "us-central1-c"],
        "versions": [{"instanceTemplate": "tpl-id", "name": "primary"}]},
        deps={"versions": [ti]})
    found = run(pack, [fs, tt, ti, mig("a3", tt, "us-central1-a"), inf,
                       gcp_budget("1000000")], provider=GCP)
    assert verdict(found, SSZ) == "pass", messages(found, SSZ)


# ============================================== H. literal ids

def _literal_subnet_group():
    s = subnet("fs-a", "us-east-1a")
    fs = fsx("scratch", s)
    t = lt("gpu-lt", "p4d.24xlarge", mounts=[fs])
    g = res("aws:autoscaling/group:Group", "gpu", {
        "minSize": 0.0, "maxSize": 2.0, "desiredCapacity": 2.0,
        "launchTemplate": {"id": "lt-id", "version": "$Latest"},
        "vpcZoneIdentifiers": ["subnet-0lit1234abcd5678e"],
        "tags": [{"key": k, "value": v, "propagateAtLaunch": True} for k, v in TAGS.items()]},
        deps={"launchTemplate": [t]})
    return [s, fs, t, g, aws_budget("500000")]


def test_h1_aws_group_on_literal_subnet_is_undecided(pack):
    """A p4d group on subnet-0lit1234abcd5678e (not in the stack) mounting the stack's FSx in
    us-east-1a. Expect: storage-same-zone undecided (not a mandatory failure)."""
    found = run(pack, _literal_subnet_group(), provider=AWS)
    assert verdict(found, SSZ) == "undecided", messages(found, SSZ)


def test_h3_azure_scale_set_on_literal_subnet_zone_from_its_zones(pack):
    """An A100 scale set with zones ["1"] whose NIC names a literal subnet id (Azure subnets
    are regional: the zone is the scale set's), depending on a zone-1 AMLFS.
    Expect: storage-same-zone pass."""
    fs = res("azure-native:storagecache:AmlFilesystem", "amlfs", {
        "resourceGroupName": "ml-rg", "location": "eastus", "zones": ["1"],
        "storageCapacityTiB": 8.0, "sku": {"name": "AMLFS-Durable-Premium-250"},
        "filesystemSubnet": f"{SUB}/resourceGroups/net-rg/providers/Microsoft.Network/"
                            "virtualNetworks/hub/subnets/fs", "tags": TAGS})
    ss = vmss("gpu", "Standard_NC24ads_A100_v4", 2.0, deps={"virtualMachineProfile": [fs]})
    ss.props["virtualMachineProfile"]["networkProfile"]["networkInterfaceConfigurations"][0][
        "ipConfigurations"][0]["subnet"] = {
        "id": f"{SUB}/resourceGroups/net-rg/providers/Microsoft.Network/virtualNetworks/hub/"
              "subnets/gpu"}
    found = run(pack, [fs, ss, az_budget(100000.0)], provider=AZ)
    assert verdict(found, SSZ) == "pass", messages(found, SSZ)


def test_h4_group_in_reservation_by_literal_id_is_still_priced(pack):
    """A g6e.2xlarge ASG of 2 whose launch template targets cr-0123456789abcdef0, a reservation
    the stack does not create. Whether it runs there cannot be seen; the total is never made
    smaller. Expect: estimate 2 x 2.24208 x 730 = 3,273.44."""
    s = subnet("a", "us-east-1a")
    t = lt("l40s-lt", "g6e.2xlarge", capacityReservationSpecification={
        "capacityReservationTarget": {"capacityReservationId": "cr-0123456789abcdef0"}})
    assert near(estimate(pack, [s, t, asg("l40s", t, [s], 2)], AWS), 2 * G6E_2 * MONTH)


# ============================================== I. public exposure

def test_i1_aws_security_group_rule_ssh_from_anywhere(pack):
    """A vpc.SecurityGroupIngressRule cidrIpv4 0.0.0.0/0 on port 22 on the GPU instance's
    security group. Expect: no-public-ingress fail (world-open ingress, no sshCidrs set)."""
    sg = res("aws:ec2/securityGroup:SecurityGroup", "gpu-sg", {"vpcId": "vpc-0team",
                                                               "tags": TAGS})
    rule = res("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule", "ssh-any", {
        "securityGroupId": "sg-id", "cidrIpv4": "0.0.0.0/0", "fromPort": 22.0, "toPort": 22.0,
        "ipProtocol": "tcp"}, deps={"securityGroupId": [sg]})
    vm = ec2("g5", "g5.xlarge", vpcSecurityGroupIds=["sg-id"])
    vm.deps["vpcSecurityGroupIds"] = [sg]
    found = run(pack, [sg, rule, vm, aws_budget()], provider=AWS)
    assert verdict(found, NPI) == "fail", messages(found, NPI)


def test_i3_gcp_template_with_access_config_in_a_mig(pack):
    """A g2-standard-8 template whose network interface has accessConfigs [{}] (an ephemeral
    external IP), used by a MIG of 2. Expect: no-public-ingress fail."""
    t = gtemplate("l4-tpl", "g2-standard-8",
                  networkInterfaces=[{"network": "default", "accessConfigs": [{}]}])
    found = run(pack, [t, mig("l4", t, "us-central1-a"), gcp_budget()], provider=GCP)
    assert verdict(found, NPI) == "fail", messages(found, NPI)


def test_i5_azure_nsg_rule_from_internet(pack):
    """An azure-native SecurityRule Allow Inbound tcp 22 with sourceAddressPrefix "Internet".
    Expect: no-public-ingress fail."""
    rule = res("azure-native:network:SecurityRule", "ssh-internet", {
        "resourceGroupName": "ml-rg", "networkSecurityGroupName": "gpu-nsg",
        "priority": 100.0, "direction": "Inbound", "access": "Allow", "protocol": "Tcp",
        "sourceAddressPrefix": "Internet", "sourcePortRange": "*",
        "destinationAddressPrefix": "*", "destinationPortRange": "22"})
    found = run(pack, [rule, az_budget()], provider=AZ)
    assert verdict(found, NPI) == "fail", messages(found, NPI)


def test_i6_classic_azure_nsg_rule_star_source_in_list(pack):
    """A classic azure NetworkSecurityRule Allow Inbound with sourceAddressPrefixes ["*"] on
    destination port ranges ["22", "8888"]. Expect: no-public-ingress fail."""
    rule = res("azure:network/networkSecurityRule:NetworkSecurityRule", "jupyter-any", {
        "resourceGroupName": "ml-rg", "networkSecurityGroupName": "gpu-nsg",
        "priority": 110.0, "direction": "Inbound", "access": "Allow", "protocol": "Tcp",
        "sourceAddressPrefixes": ["*"], "sourcePortRange": "*",
        "destinationAddressPrefix": "*", "destinationPortRanges": ["22", "8888"]})
    found = run(pack, [rule, az_budget()], provider=AZ)
    assert verdict(found, NPI) == "fail", messages(found, NPI)


def test_i7_classic_azure_scale_set_with_public_ip_per_instance(pack):
    """A classic LinuxVirtualMachineScaleSet of T4s whose ip configuration has a
    publicIpAddresses block (a public IP per instance). Expect: no-public-ingress fail."""
    ss = _classic_vmss("t4-ss", "Standard_NC8as_T4_v3", 2)
    ss.props["networkInterfaces"][0]["ipConfigurations"][0]["publicIpAddresses"] = [
        {"name": "pip", "idleTimeoutInMinutes": 4.0}]
    found = run(pack, [ss, az_budget()], provider=AZ)
    assert verdict(found, NPI) == "fail", messages(found, NPI)


def test_i8_alibaba_ess_configuration_with_public_bandwidth(pack):
    """An ESS scaling configuration of gn7i with internetMaxBandwidthOut 100 (each instance
    gets a public IP). Expect: no-public-ingress fail."""
    sg, conf = _ess("pub", "ecs.gn7i-c8g1.2xlarge", 0.0, 2.0, internetMaxBandwidthOut=100.0)
    found = run(pack, [sg, conf], provider=ALI)
    assert verdict(found, NPI) == "fail", messages(found, NPI)


# ============================================== J. configuration typos

@pytest.mark.parametrize("policy,key,value", [
    (SPEND, "max_monthly_usd", 5000),
    (SSZ, "zone", {"subnet-0aaa1111": "us-east-1a"}),
], ids=["max_monthly_usd", "zone"])
def test_j1_misspelt_key_is_refused_over_grpc(pack, policy, key, value):
    """A key the policy does not take, sent as the CLI would send a policy-config file.
    Expect: Configure answers INVALID_ARGUMENT naming the key."""
    config = pack.cli_config()
    config[policy][key] = value
    with pytest.raises(grpc.RpcError) as err:
        pack.send_config(config)
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT, err.value.details()
    assert key in err.value.details()


# ============================================== K. catalog reach

@pytest.mark.parametrize("build,provider,rate", [
    (lambda: ec2("p4de", "p4de.24xlarge"), AWS, 27.4471),
    (lambda: ec2("g6", "g6.xlarge", availabilityZone="us-west-2b"), {"region": "us-west-2"},
     0.8048),
    (lambda: gvm("l4", "g2-standard-4", zone="europe-west4-a"),
     {"project": "ml-prod", "region": "europe-west4"}, 0.742916),
    (lambda: res(
        "azure-native:compute:VirtualMachineScaleSet", "a100", {
            "resourceGroupName": "ml-rg", "location": "westeurope", "zones": ["1"],
            "sku": {"name": "Standard_NC24ads_A100_v4", "capacity": 1.0}, "tags": TAGS}),
     {"location": "westeurope"}, 4.775),
    (lambda: ecs("t4", itype="ecs.gn6i-c4g1.xlarge", release=None), {"region": "cn-hangzhou"},
     1.61653),
], ids=["p4de-use1", "g6-usw2", "g2-4-euw4", "nc24-weu",
        "gn6i-hangzhou"])
def test_k1_public_gpu_types_across_families_and_regions_are_priced(pack, build, provider,
                                                                     rate):
    """One node each, no lifetime (rates from prices.csv rows for those regions).
    Expect: estimate rate x 730."""
    assert near(estimate(pack, [build()], provider), rate * MONTH)


# ============================================== round 2 (written after round 1 passed 61/61,
# before its own first run): harder shapes in the same classes

def test_r1_aws_batch_ec2_environment_is_sized_from_max_vcpus(pack):
    """An AWS Batch managed EC2 compute environment, instanceTypes [g5.xlarge] (4 vCPUs:
    aws.amazon.com/ec2/instance-types/g5), maxVcpus 16: at most 16 / 4 = 4 nodes, ceiling
    4 x 1.006 x 730 = 2,937.52 USD/month; a 50,000 USD budget. Batch caps an environment at
    maxVcpus (docs.aws.amazon.com/batch/latest/userguide/compute_environment_parameters.html).
    Expect: spend-limit pass (a compliant Batch stack is not failed closed).
    fix38: Batch may exceed maxvCpus by one instance except with BEST_FIT on EC2
    (API_ComputeResource, maxvCpus); this one is EC2 with the default BEST_FIT, so no extra
    node: ceil(16 / 4) = 4, 4 x 1.006 x 730 = 2,937.52 (r1b covers the extra one)."""
    ce = res("aws:batch/computeEnvironment:ComputeEnvironment", "a10g-ce", {
        "type": "MANAGED", "computeResources": {
            "type": "EC2", "instanceTypes": ["g5.xlarge"], "minVcpus": 0.0, "maxVcpus": 16.0,
            "subnets": ["subnet-0aaa1111"], "securityGroupIds": ["sg-0aaa1111"],
            "instanceRole": "arn:aws:iam::123456789012:instance-profile/b", "tags": TAGS}})
    found = run(pack, [ce, aws_budget("50000")], provider=AWS)
    assert verdict(found, SPEND) == "pass", messages(found, SPEND)


def test_r2_azure_batch_pool_of_fixed_size_under_budget(pack):
    """An azure-native Batch pool of 2 dedicated Standard_NC24ads_A100_v4 (fixedScale), a
    20,000 subscription budget: 2 x 3.673 x 730 = 5,362.58. Expect: spend-limit pass."""
    pool = res("azure-native:batch:Pool", "a100-pool", {
        "accountName": "mlbatch", "resourceGroupName": "ml-rg",
        "vmSize": "Standard_NC24ads_A100_v4",
        "scaleSettings": {"fixedScale": {"targetDedicatedNodes": 2}},
        "deploymentConfiguration": {"virtualMachineConfiguration": {
            "imageReference": {"publisher": "microsoft-dsvm", "offer": "ubuntu-hpc",
                               "sku": "2204", "version": "latest"},
            "nodeAgentSkuId": "batch.node.ubuntu 22.04"}}})
    found = run(pack, [pool, az_budget(20000.0)], provider=AZ)
    assert verdict(found, SPEND) == "pass", messages(found, SPEND)


def test_r3_alibaba_auto_release_time_already_past_is_no_stand_in(pack):
    """An ECS gn7i instance whose autoReleaseTime is 2025-01-01T00:00:00Z (past: the API
    refuses it and nothing will release the node), maxMonthlyUsd 5,000 (above the month,
    1,869.41). The auto-release time stands in for the budget alarm on Alibaba (README); a time
    already past enforces nothing. Expect: spend-limit fail (no effective auto-release time) or
    undecided; not pass."""
    vm = ecs("a10", switch=None, release="2025-01-01T00:00:00Z")
    found = run(pack, [vm], {SPEND: {"maxMonthlyUsd": 5000}}, provider=ALI)
    assert verdict(found, SPEND) != "pass", messages(found, SPEND)


def test_r4_azure_reservation_of_zero_absorbs_nothing(pack):
    """A capacity reservation of sku capacity 0 (Azure lets a reservation be scaled to 0 and
    kept; learn.microsoft.com/azure/virtual-machines/capacity-reservation-modify) and a scale
    set of 2 associated with its group: both VMs run outside it (overallocated).
    Expect: estimate 2 x 3.673 x 730 = 5,362.58 (not 0)."""
    crg = _crg()
    cr = _cr(crg, "Standard_NC24ads_A100_v4", 0)
    ss = vmss("a100", "Standard_NC24ads_A100_v4", 2.0)
    ss.props["virtualMachineProfile"]["capacityReservation"] = {
        "capacityReservationGroup": {"id": "crg-id"}}
    ss.deps["virtualMachineProfile"] = [crg]
    assert near(estimate(pack, [crg, cr, ss], AZ), 2 * NC24 * MONTH)


def test_r5_asg_mixed_instances_priced_at_its_dearest_override(pack):
    """An On-Demand ASG (max 2) with a mixed instances policy overriding g5.xlarge and
    p4d.24xlarge: either may launch. Expect: at the dearest, 2 x 21.9576 x 730 = 32,058.10."""
    s = subnet("a", "us-east-1a")
    t = lt("mixed-lt", "g5.xlarge")
    g = res("aws:autoscaling/group:Group", "mixed", {
        "minSize": 0.0, "maxSize": 2.0, "desiredCapacity": 2.0,
        "vpcZoneIdentifiers": ["subnet-id"],
        "mixedInstancesPolicy": {
            "launchTemplate": {
                "launchTemplateSpecification": {"launchTemplateId": "lt-id",
                                                "version": "$Latest"},
                "overrides": [{"instanceType": "g5.xlarge"}, {"instanceType": "p4d.24xlarge"}]},
            "instancesDistribution": {"onDemandPercentageAboveBaseCapacity": 100.0}},
        "tags": [{"key": k, "value": v, "propagateAtLaunch": True} for k, v in TAGS.items()]},
        deps={"mixedInstancesPolicy": [t], "vpcZoneIdentifiers": [s]})
    assert near(estimate(pack, [s, t, g], AWS), 2 * P4D * MONTH)


def test_r6_eks_node_group_of_two_types_priced_at_the_dearer(pack):
    """An EKS node group instanceTypes ["g5.xlarge", "g5.48xlarge"], maxSize 2.
    Expect: 2 x 16.288 x 730 = 23,780.48."""
    s = subnet("eks-a", "us-east-1a")
    ng = res("aws:eks/nodeGroup:NodeGroup", "a10g-ng", {
        "clusterName": "infer", "nodeRoleArn": "arn:aws:iam::123456789012:role/ng",
        "subnetIds": ["subnet-id"], "instanceTypes": ["g5.xlarge", "g5.48xlarge"],
        "scalingConfig": {"minSize": 0, "maxSize": 2, "desiredSize": 1}, "tags": TAGS},
        deps={"subnetIds": [s]})
    assert near(estimate(pack, [s, ng], AWS), 2 * G5_48 * MONTH)


def test_r7_instance_from_template_overriding_the_machine_type(pack):
    """A g2-standard-4 template and an InstanceFromTemplate that overrides machineType with
    g2-standard-12 (the override wins). Expect: 1.00042 x 730 = 730.31."""
    t = gtemplate("l4-tpl", "g2-standard-4")
    vm = res("gcp:compute/instanceFromTemplate:InstanceFromTemplate", "l4-big", {
        "zone": "us-central1-a", "sourceInstanceTemplate": "tpl-id", "name": "l4-big",
        "machineType": "g2-standard-12"}, deps={"sourceInstanceTemplate": [t]})
    assert near(estimate(pack, [t, vm], GCP), G2_12 * MONTH)


def test_r8_azure_annual_budget_is_not_a_monthly_cap(pack):
    """An azure-native budget of 60,000 with timeGrain Annually; the scale set costs 5,362.58 a
    month (64,350.96 a year, over the annual cap). Read as a monthly cap it would pass.
    Expect: spend-limit not pass."""
    b = az_budget(60000.0, timeGrain="Annually")
    found = run(pack, [vmss("a100", "Standard_NC24ads_A100_v4", 2.0), b], provider=AZ)
    assert verdict(found, SPEND) != "pass", messages(found, SPEND)


def test_r9_aws_quarterly_budget_is_not_a_monthly_cap(pack):
    """An AWS budget of 50,000 with timeUnit QUARTERLY; the p4d group is 32,058.10 a month
    (96,174.29 a quarter). Expect: spend-limit not pass."""
    s, t, g = _p4d()
    found = run(pack, [s, t, g, aws_budget("50000", timeUnit="QUARTERLY")], provider=AWS)
    assert verdict(found, SPEND) != "pass", messages(found, SPEND)


def test_r10_gcp_yearly_budget_is_not_a_monthly_cap(pack):
    """A GCP budget of 10,000 with budgetFilter.calendarPeriod YEAR; one a2-highgpu-1g is
    2,681.57 a month (32,178.84 a year). Expect: spend-limit not pass."""
    b = gcp_budget("10000", budgetFilter={"calendarPeriod": "YEAR"})
    found = run(pack, [gvm("a2", "a2-highgpu-1g"), b], provider=GCP)
    assert verdict(found, SPEND) != "pass", messages(found, SPEND)


def test_r11_azure_public_load_balancer_nat_pool_to_gpu_scale_set(pack):
    """A public IP, an azure-native LoadBalancer whose frontend uses it with an inbound NAT pool
    50000-50099 -> 22, and the A100 scale set's ip configuration joining that NAT pool: every
    node's SSH answers from the internet. Expect: no-public-ingress fail."""
    pip = res("azure-native:network:PublicIPAddress", "lb-pip", {
        "resourceGroupName": "ml-rg", "location": "eastus",
        "publicIPAllocationMethod": "Static", "sku": {"name": "Standard"}, "tags": TAGS})
    lb = res("azure-native:network:LoadBalancer", "gpu-lb", {
        "resourceGroupName": "ml-rg", "location": "eastus", "sku": {"name": "Standard"},
        "frontendIPConfigurations": [{"name": "fe", "publicIPAddress": {"id": "pip-id"}}],
        "inboundNatPools": [{"name": "ssh", "frontendIPConfiguration": {"id": "fe-id"},
                             "protocol": "Tcp", "frontendPortRangeStart": 50000,
                             "frontendPortRangeEnd": 50099, "backendPort": 22}],
        "tags": TAGS}, deps={"frontendIPConfigurations": [pip]})
    ss = vmss("a100", "Standard_NC24ads_A100_v4", 2.0, deps={"virtualMachineProfile": [lb]})
    ss.props["virtualMachineProfile"]["networkProfile"]["networkInterfaceConfigurations"][0][
        "ipConfigurations"][0]["loadBalancerInboundNatPools"] = [{"id": "nat-id"}]
    found = run(pack, [pip, lb, ss, az_budget()], provider=AZ)
    assert verdict(found, NPI) == "fail", messages(found, NPI)


def test_r12_alibaba_security_group_rule_ssh_from_anywhere(pack):
    """An alicloud SecurityGroupRule ingress tcp 22/22 from 0.0.0.0/0, policy accept.
    Expect: no-public-ingress fail."""
    sg = res("alicloud:ecs/securityGroup:SecurityGroup", "gpu-sg", {"vpcId": "vpc-id",
                                                                   "tags": TAGS})
    rule = res("alicloud:ecs/securityGroupRule:SecurityGroupRule", "ssh-any", {
        "type": "ingress", "ipProtocol": "tcp", "portRange": "22/22", "cidrIp": "0.0.0.0/0",
        "policy": "accept", "securityGroupId": "sg-id", "nicType": "intranet"},
        deps={"securityGroupId": [sg]})
    found = run(pack, [sg, rule], provider=ALI)
    assert verdict(found, NPI) == "fail", messages(found, NPI)


def test_r13_gcp_instance_schedule_on_a_mig_template_stops_nothing(pack):
    """A MIG of 2 a2-highgpu-1g whose template names an instance schedule (resourcePolicies):
    instance schedules cannot act on VMs in a MIG (cloud.google.com/compute/docs/instances/
    schedule-instance-start-stop: "you can't ... VMs that are part of a managed instance
    group"); the MIG recreates stopped VMs. Expect: the month, 2 x 3.67339 x 730 = 5,363.15."""
    pol = res("gcp:compute/resourcePolicy:ResourcePolicy", "stop-in-2d", {
        "region": "us-central1", "instanceSchedulePolicy": {
            "vmStopSchedule": {"schedule": "0 20 * * *"}, "timeZone": "UTC"}})
    t = gtemplate("a2-tpl", "a2-highgpu-1g", resourcePolicies="pol-id")
    t.deps["resourcePolicies"] = [pol]
    assert near(estimate(pack, [pol, t, mig("a2", t, "us-central1-a")], GCP), 2 * A2_1 * MONTH)


# ============================================== round 3 (written after round 2's run, before
# its own first run)

def test_s1_gcp_regional_mig_of_n1_with_t4_template(pack):
    """A RegionInstanceGroupManager of 2 from a template n1-standard-8 + 1 nvidia-tesla-t4
    (guestAccelerators). gcp_attached_gpus.csv: n1-standard-8 0.38, T4 0.35 (us-central1).
    Expect: 2 x (0.38 + 0.35) x 730 = 1,065.80."""
    t = gtemplate("t4-tpl", "n1-standard-8",
                  guestAccelerators=[{"type": "nvidia-tesla-t4", "count": 1.0}])
    m = res("gcp:compute/regionInstanceGroupManager:RegionInstanceGroupManager", "t4-rmig", {
        "region": "us-central1", "targetSize": 2.0, "baseInstanceName": "t4",
        "versions": [{"instanceTemplate": "tpl-id", "name": "primary"}]},
        deps={"versions": [t]})
    assert near(estimate(pack, [t, m], GCP), 2 * (0.38 + 0.35) * MONTH)


def test_s2_gcp_max_run_duration_is_a_lifetime(pack):
    """An a2-highgpu-1g VM with scheduling.maxRunDuration 172,800 s (48 h) and
    instanceTerminationAction DELETE: Compute Engine deletes it after 48 h
    (cloud.google.com/compute/docs/instances/limit-vm-runtime). Expect: a lifetime of 48 h,
    3.67339 x 48 = 176.32 (the month, 2,681.57, is accepted as conservative only if the pack
    does not read the field; written here as the 48 h figure)."""
    vm = gvm("a2", "a2-highgpu-1g")
    vm.props["scheduling"] = {"onHostMaintenance": "TERMINATE", "automaticRestart": False,
                              "maxRunDuration": {"seconds": 172800.0},
                              "instanceTerminationAction": "DELETE"}
    assert near(estimate(pack, [vm], GCP), A2_1 * 48, slack=3)


def test_s3_aws_gpu_group_over_two_zones_with_fsx_in_one_fails(pack):
    """Control: one p4d group over subnets in us-east-1a and us-east-1b, mounting an FSx in
    us-east-1a: the group's nodes span zones. Expect: storage-same-zone fail."""
    sa, sb = subnet("a", "us-east-1a"), subnet("b", "us-east-1b")
    fs = fsx("scratch", sa)
    t = lt("gpu-lt", "p4d.24xlarge", mounts=[fs])
    found = run(pack, [sa, sb, fs, t, asg("gpu", t, [sa, sb], 2), aws_budget("500000")],
                provider=AWS)
    assert verdict(found, SSZ) == "fail", messages(found, SSZ)


def test_s4_alibaba_literal_vswitch_told_same_zone_passes(pack):
    """An ESS GPU group on literal vSwitch vsw-0lit9999 mounting the stack's CPFS in
    eu-central-1a (the scaling configuration's user data depends on it), with the zones config
    telling vsw-0lit9999 is in eu-central-1a. Expect: storage-same-zone pass."""
    fs = cpfs("cpfs", "eu-central-1a")
    sg = res("alicloud:ess/scalingGroup:ScalingGroup", "gpu-sg", {
        "minSize": 0.0, "maxSize": 2.0, "scalingGroupName": "gpu",
        "vswitchIds": ["vsw-0lit9999"]})
    conf = res("alicloud:ess/scalingConfiguration:ScalingConfiguration", "gpu-sc", {
        "scalingGroupId": "sg-id", "instanceType": "ecs.gn7i-c8g1.2xlarge",
        "imageId": "ubuntu_22_04_x64_20G_alibase_20240508.vhd", "active": True,
        "securityGroupId": "sg-1", "userData": "IyEvYmluL2Jhc2g=", "tags": TAGS},
        deps={"scalingGroupId": [sg], "userData": [fs]})
    found = run(pack, [fs, sg, conf], {SSZ: {"zones": {"vsw-0lit9999": "eu-central-1a"}}},
                provider=ALI)
    assert verdict(found, SSZ) == "pass", messages(found, SSZ)


def test_s5_gcp_external_ipv6_access_config_is_public(pack):
    """A g2-standard-8 VM on a dual-stack subnet with ipv6AccessConfigs [{networkTier
    PREMIUM}] (an external IPv6 address: cloud.google.com/compute/docs/ip-addresses/
    configure-ipv6-address). Expect: no-public-ingress fail."""
    vm = gvm("l4", "g2-standard-8", networkInterfaces=[{
        "network": "default", "subnetwork": "dual", "stackType": "IPV4_IPV6",
        "ipv6AccessConfigs": [{"networkTier": "PREMIUM"}]}])
    found = run(pack, [vm, gcp_budget()], provider=GCP)
    assert verdict(found, NPI) == "fail", messages(found, NPI)


def test_s6_classic_azure_nsg_inline_rule_from_any_address(pack):
    """A classic NetworkSecurityGroup with an inline securityRules entry Allow Inbound from
    0.0.0.0/0 to port * (protocol *). Expect: no-public-ingress fail."""
    nsg = res("azure:network/networkSecurityGroup:NetworkSecurityGroup", "gpu-nsg", {
        "resourceGroupName": "ml-rg", "location": "eastus", "tags": TAGS, "securityRules": [{
            "name": "any", "priority": 100.0, "direction": "Inbound", "access": "Allow",
            "protocol": "*", "sourcePortRange": "*", "destinationPortRange": "*",
            "sourceAddressPrefix": "0.0.0.0/0", "destinationAddressPrefix": "*"}]})
    found = run(pack, [nsg, az_budget()], provider=AZ)
    assert verdict(found, NPI) == "fail", messages(found, NPI)


def test_s7_azure_deny_rule_from_internet_passes(pack):
    """Control: an azure-native SecurityRule Deny Inbound from "Internet" on port 22.
    Expect: no-public-ingress pass (README: deny rules pass)."""
    rule = res("azure-native:network:SecurityRule", "deny-ssh", {
        "resourceGroupName": "ml-rg", "networkSecurityGroupName": "gpu-nsg",
        "priority": 100.0, "direction": "Inbound", "access": "Deny", "protocol": "Tcp",
        "sourceAddressPrefix": "Internet", "sourcePortRange": "*",
        "destinationAddressPrefix": "*", "destinationPortRange": "22"})
    found = run(pack, [rule, az_budget()], provider=AZ)
    assert verdict(found, NPI) == "pass", messages(found, NPI)


def test_s8_azure_native_public_ip_on_gpu_vm_nic(pack):
    """azure-native: a PublicIPAddress on the NetworkInterface of an NV36ads_A10_v5
    VirtualMachine. Expect: no-public-ingress fail."""
    pip = res("azure-native:network:PublicIPAddress", "vm-pip", {
        "resourceGroupName": "ml-rg", "location": "eastus",
        "publicIPAllocationMethod": "Static", "sku": {"name": "Standard"}, "tags": TAGS})
    nic = res("azure-native:network:NetworkInterface", "vm-nic", {
        "resourceGroupName": "ml-rg", "location": "eastus", "tags": TAGS,
        "ipConfigurations": [{"name": "ip", "subnet": {"id": "subnet-id"},
                              "publicIPAddress": {"id": "pip-id"}}]},
        deps={"ipConfigurations": [pip]})
    vm = res("azure-native:compute:VirtualMachine", "a10-vm", {
        "resourceGroupName": "ml-rg", "location": "eastus",
        "hardwareProfile": {"vmSize": "Standard_NV36ads_A10_v5"},
        "networkProfile": {"networkInterfaces": [{"id": "nic-id", "primary": True}]},
        "tags": TAGS}, deps={"networkProfile": [nic]})
    found = run(pack, [pip, nic, vm, az_budget()], provider=AZ)
    assert verdict(found, NPI) == "fail", messages(found, NPI)


def test_s9_open_odcr_larger_than_its_group_bills_in_full(pack):
    """An open ODCR of 4 g6e.2xlarge in us-east-1a and an ASG of 2 there: the reservation bills
    4 whether used or not. Expect: 4 x 2.24208 x 730 = 6,546.87."""
    s = subnet("a", "us-east-1a")
    cr = _odcr("l40s-odcr", "g6e.2xlarge", 4)
    t = lt("l40s-lt", "g6e.2xlarge")
    assert near(estimate(pack, [s, cr, t, asg("l40s", t, [s], 2)], AWS), 4 * G6E_2 * MONTH)


def test_s10_instance_with_reservation_preference_none_runs_outside(pack):
    """An open aws-native ODCR of 1 g6e.2xlarge in us-east-1a and an aws.ec2.Instance of that
    type there with capacityReservationSpecification.capacityReservationPreference "none":
    it never uses a reservation. Expect: 2 x 2.24208 x 730 = 3,273.44."""
    cr = res("aws-native:ec2:CapacityReservation", "l40s-odcr", {
        "instanceType": "g6e.2xlarge", "instancePlatform": "Linux/UNIX",
        "availabilityZone": "us-east-1a", "instanceCount": 1, "instanceMatchCriteria": "open"})
    vm = ec2("l40s", "g6e.2xlarge", capacityReservationSpecification={
        "capacityReservationPreference": "none"})
    assert near(estimate(pack, [cr, vm], AWS), 2 * G6E_2 * MONTH)


def test_s11_azure_scale_set_of_another_size_than_its_reservation(pack):
    """A reservation of 2 Standard_NC24ads_A100_v4 and a scale set of 2
    Standard_NC40ads_H100_v5 associated with the same group: a VM consumes a reservation of
    its own size only. Expect: (2 x 3.673 + 2 x 6.98) x 730 = 15,553.38."""
    crg = _crg()
    cr = _cr(crg, "Standard_NC24ads_A100_v4", 2)
    ss = vmss("h100", "Standard_NC40ads_H100_v5", 2.0)
    ss.props["virtualMachineProfile"]["capacityReservation"] = {
        "capacityReservationGroup": {"id": "crg-id"}}
    ss.deps["virtualMachineProfile"] = [crg]
    assert near(estimate(pack, [crg, cr, ss], AZ), (2 * NC24 + 2 * NC40H) * MONTH)


def test_s12_azure_profile_of_zero_default_with_scale_out_rules_is_no_stop(pack):
    """An autoscale profile from +48 h (fixedDate) with capacity minimum 0, default 0, maximum
    2 and a CPU scale-out rule: the rule can bring the set back to 2. Not a stop.
    Expect: the month, 2 x 3.673 x 730 = 5,362.58."""
    ss = vmss("a100", "Standard_NC24ads_A100_v4", 2.0)
    rule = {"metricTrigger": {"metricName": "Percentage CPU", "metricResourceUri": "vmss-id",
                              "timeGrain": "PT1M", "statistic": "Average",
                              "timeWindow": "PT5M", "timeAggregation": "Average",
                              "operator": "GreaterThan", "threshold": 70.0},
            "scaleAction": {"direction": "Increase", "type": "ChangeCount", "value": "1",
                            "cooldown": "PT5M"}}
    a = az_autoscale(ss, [{"name": "later", "capacity": {"minimum": "0", "maximum": "2",
                                                         "default": "0"}, "rules": [rule],
                           "fixedDate": {"start": hours_from_now(48),
                                         "end": "2037-01-01T00:00:00Z"}}])
    assert near(estimate(pack, [ss, a], AZ), 2 * NC24 * MONTH)


@pytest.mark.parametrize("token,sizes", [
    ("aws:autoscaling/schedule:Schedule", {"minSize": -1.0, "maxSize": -1.0}),
    ("aws-native:autoscaling:ScheduledAction", {})], ids=["classic", "aws-native"])
def test_s13_stop_below_the_groups_minimum_stops_nothing(pack, token, sizes):
    """A p4d group with minSize 2 (max 2) and a one-time action in 30 h setting only
    desiredCapacity 0: the desired capacity cannot go below the minimum, so the action fails
    (docs.aws.amazon.com/autoscaling/ec2/APIReference/API_UpdateAutoScalingGroup.html: the
    desired capacity "must be greater than or equal to the minimum size of the group").
    Expect: the month, 2 x 21.9576 x 730 = 32,058.10.

    Corrected by fix38: the classic provider sends 0 for a size left out (terraform-provider-aws
    internal/service/autoscaling/schedule.go sends every size but -1; pulumi-aws Schedule
    minSize "Defaults to 0"), so the first version of this case (desiredCapacity alone) set min
    and max to 0 too, a valid stop. "Only desired" is -1 for the others there; aws-native
    (CloudFormation) sends only the sizes given."""
    s, t, g = _p4d(minSize=2.0)
    key = "autoScalingGroupName" if token.startswith("aws-native") else "autoscalingGroupName"
    stop = res(token, "train-stop", {
        key: "grp", "scheduledActionName": "stop",
        "desiredCapacity": 0.0, "startTime": hours_from_now(30), **sizes},
        deps={key: [g]})
    assert near(estimate(pack, [s, t, g, stop], AWS), 2 * P4D * MONTH)


def test_s13b_classic_schedule_of_desired_alone_sets_min_and_max_to_zero_too(pack):
    """fix38: the s13 stop as first written (classic Schedule, desiredCapacity 0 alone, group
    minSize 2): the provider sends minSize 0 and maxSize 0 with it (schedule.go: an omitted
    size reads 0 and only -1 is left out), a valid stop in 30 h.
    Expect: 2 x 21.9576 x 30 = 1,317.46."""
    s, t, g = _p4d(minSize=2.0)
    stop = res("aws:autoscaling/schedule:Schedule", "train-stop", {
        "autoscalingGroupName": "grp", "scheduledActionName": "stop",
        "desiredCapacity": 0.0, "startTime": hours_from_now(30)},
        deps={"autoscalingGroupName": [g]})
    assert near(estimate(pack, [s, t, g, stop], AWS), 2 * P4D * 30, slack=3)


def test_s14_azure_native_spot_scale_set_at_spot_rate(pack):
    """An azure-native scale set of 2 Standard_NC24ads_A100_v4, virtualMachineProfile.priority
    Spot, evictionPolicy Delete, billingProfile.maxPrice -1. Catalog spot 0.444433 (eastus).
    Expect: between the spot month 2 x 0.444433 x 730 = 648.87 and the on-demand month
    5,362.58."""
    ss = vmss("a100-spot", "Standard_NC24ads_A100_v4", 2.0)
    ss.props["virtualMachineProfile"].update({"priority": "Spot", "evictionPolicy": "Delete",
                                              "billingProfile": {"maxPrice": -1.0}})
    got = estimate(pack, [ss], AZ)
    assert 2 * 0.444433 * MONTH - 2 <= got <= 2 * NC24 * MONTH + 2, got


# ============================================== round 4 (written after round 3's run, before
# its own first run)

def _one_time(g, **sizes):
    return res("aws:autoscaling/schedule:Schedule", f"{g.name}-stop", {
        "autoscalingGroupName": "grp", "scheduledActionName": "stop",
        "startTime": hours_from_now(30), **sizes}, deps={"autoscalingGroupName": [g]})


def test_t1_stop_by_max_size_zero_alone_stops(pack):
    """Group min 0, max 2, desired 2; a one-time action in 30 h setting only maxSize 0: the
    desired capacity is brought within the new maximum, so the group goes to 0.
    Expect: a 30 h lifetime, 2 x 21.9576 x 30 = 1,317.46."""
    s, t, g = _p4d()
    assert near(estimate(pack, [s, t, g, _one_time(g, maxSize=0.0)], AWS), 2 * P4D * 30,
                slack=3)


def test_t2_stop_that_lowers_the_minimum_too_stops(pack):
    """Control for s13: group minSize 2; the action in 30 h sets minSize 0 and desiredCapacity
    0 together (valid). Expect: 1,317.46."""
    s, t, g = _p4d(minSize=2.0)
    assert near(estimate(pack, [s, t, g, _one_time(g, minSize=0.0, desiredCapacity=0.0)], AWS),
                2 * P4D * 30, slack=3)


def test_t3_gcp_termination_time_is_a_lifetime(pack):
    """An a2-highgpu-1g VM with scheduling.terminationTime 48 h from now and
    instanceTerminationAction DELETE (cloud.google.com/compute/docs/instances/limit-vm-runtime).
    Expect: 3.67339 x 48 = 176.32."""
    vm = gvm("a2", "a2-highgpu-1g")
    vm.props["scheduling"] = {"onHostMaintenance": "TERMINATE", "automaticRestart": False,
                              "terminationTime": hours_from_now(48),
                              "instanceTerminationAction": "DELETE"}
    assert near(estimate(pack, [vm], GCP), A2_1 * 48, slack=3)


def test_t4_alibaba_auto_release_on_a_subscription_instance_is_no_lifetime(pack):
    """A PrePaid (subscription) gn7i instance, period 1 month, with autoReleaseTime in 48 h:
    auto-release applies to pay-as-you-go instances only (alibabacloud.com/help/en/ecs/
    user-guide/release-an-instance), and the month is paid up front. maxMonthlyUsd 1,000 (the
    month is 2.56083 x 730 = 1,869.41; 48 h would be 122.92). Expect: spend-limit not pass."""
    vm = ecs("a10", switch=None, release="48h", instanceChargeType="PrePaid", period=1.0,
             periodUnit="Month")
    found = run(pack, [vm], {SPEND: {"maxMonthlyUsd": 1000}}, provider=ALI)
    assert verdict(found, SPEND) != "pass", messages(found, SPEND)


def test_t5_gke_node_pool_max_per_zone_times_its_zones(pack):
    """A GKE NodePool with nodeLocations [us-central1-a, us-central1-b] and autoscaling
    maxNodeCount 4: the limit is per zone (registry: gcp.container.NodePool autoscaling
    max_node_count "per zone"), so up to 8 g2-standard-8 nodes.
    Expect: 8 x 0.853624 x 730 = 4,985.16 (a cluster fee of 73 may be added if the cluster is
    in the stack; it is not)."""
    pool = res("gcp:container/nodePool:NodePool", "l4-pool", {
        "cluster": "projects/ml-prod/locations/us-central1/clusters/infer",
        "location": "us-central1", "nodeLocations": ["us-central1-a", "us-central1-b"],
        "initialNodeCount": 1.0, "autoscaling": {"minNodeCount": 0.0, "maxNodeCount": 4.0},
        "nodeConfig": {"machineType": "g2-standard-8", "labels": LABELS}})
    got = estimate(pack, [pool], GCP)
    assert 8 * G2_8 * MONTH - 2 <= got <= 8 * G2_8 * MONTH + 75, got


def test_t6_azure_native_aks_agent_pool_at_its_autoscale_maximum(pack):
    """An azure-native AgentPool (ContainerService) count 2, enableAutoScaling, maxCount 6,
    vmSize Standard_NC24ads_A100_v4. Expect: 6 x 3.673 x 730 = 16,087.74."""
    pool = res("azure-native:containerservice:AgentPool", "a100pool", {
        "resourceGroupName": "ml-rg", "resourceName": "aks", "agentPoolName": "a100",
        "vmSize": "Standard_NC24ads_A100_v4", "count": 2, "enableAutoScaling": True,
        "minCount": 0, "maxCount": 6, "mode": "User", "availabilityZones": ["1"],
        "tags": TAGS})
    assert near(estimate(pack, [pool], AZ), 6 * NC24 * MONTH)


def test_t7_eks_remote_access_without_source_groups_opens_ssh_to_the_world(pack):
    """An EKS node group with remoteAccess ec2SshKey set and no sourceSecurityGroupIds: EKS
    then opens port 22 on the nodes to 0.0.0.0/0 (registry aws.eks.NodeGroup remoteAccess:
    "If you specify ec2_ssh_key, but do not specify this configuration when you create an EKS
    Node Group, port 22 on the worker nodes is opened to the Internet (0.0.0.0/0)").
    Expect: no-public-ingress fail."""
    s = subnet("eks-a", "us-east-1a")
    ng = res("aws:eks/nodeGroup:NodeGroup", "a10g-ng", {
        "clusterName": "infer", "nodeRoleArn": "arn:aws:iam::123456789012:role/ng",
        "subnetIds": ["subnet-id"], "instanceTypes": ["g5.xlarge"],
        "remoteAccess": {"ec2SshKey": "ops-key"},
        "scalingConfig": {"minSize": 0, "maxSize": 2, "desiredSize": 1}, "tags": TAGS},
        deps={"subnetIds": [s]})
    found = run(pack, [s, ng, aws_budget()], provider=AWS)
    assert verdict(found, NPI) == "fail", messages(found, NPI)


def test_t8_aws_budget_filtered_by_the_stacks_own_tag_covers(pack):
    """A 50,000 budget with costFilters TagKeyValue ["user:team$ml"] (Budgets' tag filter form);
    every resource of the stack carries team=ml. The budget covers the 2-node p4d group
    (32,058.10). Expect: spend-limit pass (or undecided where activation of the cost-allocation
    tag cannot be seen; never fail)."""
    s, t, g = _p4d()
    b = aws_budget("50000", costFilters=[{"name": "TagKeyValue", "values": ["user:team$ml"]}])
    found = run(pack, [s, t, g, b], provider=AWS)
    assert verdict(found, SPEND) in ("pass", "undecided"), messages(found, SPEND)


def test_t9_azure_negative_capacity_is_not_free(pack):
    """A scale set with sku.capacity -1, a 100 USD budget. Expect: spend-limit not pass."""
    found = run(pack, [vmss("a100", "Standard_NC24ads_A100_v4", -1.0), az_budget(100.0)],
                provider=AZ)
    assert verdict(found, SPEND) != "pass", messages(found, SPEND)


def test_t10_odcr_of_absurd_count_fails_without_crash(pack):
    """An ODCR of instanceCount 1e15 p4d.24xlarge, maxMonthlyUsd 100,000. Expect: spend-limit
    fail, no crash."""
    found = run(pack, [_odcr("huge", "p4d.24xlarge", 1e15)], {SPEND: {"maxMonthlyUsd": 100000}},
                provider=AWS)
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)


# ============================================== round 5 (written after round 4's run, before
# its own first run)

def test_u1_warm_pool_of_running_instances_is_billed(pack):
    """A p4d group (max 2, desired 2) with a warm pool in state Running and
    maxGroupPreparedCapacity 4: up to 4 - 2 = 2 more instances run, billed as running
    instances (docs.aws.amazon.com/autoscaling/ec2/userguide/ec2-auto-scaling-warm-pools.html;
    API_WarmPoolConfiguration: the maximum "in the warm pool or in any state except Terminated
    for the Auto Scaling group", i.e. group and pool together).
    Expect: 4 x 21.9576 x 730 = 64,116.19 (not 32,058.10)."""
    s, t, g = _p4d(warmPool={"poolState": "Running", "maxGroupPreparedCapacity": 4.0,
                             "minSize": 0.0})
    assert near(estimate(pack, [s, t, g], AWS), 4 * P4D * MONTH)


def test_u2_aws_native_scheduled_action_stops(pack):
    """An aws-native ScheduledAction (AWS::AutoScaling::ScheduledAction) in 30 h setting min,
    max and desired 0 on the stack's group. Expect: 2 x 21.9576 x 30 = 1,317.46."""
    s, t, g = _p4d()
    act = res("aws-native:autoscaling:ScheduledAction", "train-stop", {
        "autoScalingGroupName": "grp", "startTime": hours_from_now(30), "minSize": 0,
        "maxSize": 0, "desiredCapacity": 0}, deps={"autoScalingGroupName": [g]})
    assert near(estimate(pack, [s, t, g, act], AWS), 2 * P4D * 30, slack=3)


def test_u3_stop_then_restart_ten_hours_later_is_a_pause(pack):
    """A one-time stop (0/0/0) in 30 h and a one-time start (min 2, max 2, desired 2) in 40 h:
    the group runs again for the rest of the month. Expect: at least 2 x 21.9576 x 720 =
    31,618.94 (the month 32,058.10 is right too)."""
    s, t, g = _p4d()
    stop = _one_time(g, minSize=0.0, maxSize=0.0, desiredCapacity=0.0)
    start = res("aws:autoscaling/schedule:Schedule", "train-start", {
        "autoscalingGroupName": "grp", "scheduledActionName": "start",
        "startTime": hours_from_now(40), "minSize": 2.0, "maxSize": 2.0,
        "desiredCapacity": 2.0}, deps={"autoscalingGroupName": [g]})
    assert estimate(pack, [s, t, g, stop, start], AWS) >= 2 * P4D * 720 - 2


def test_u4_gcp_budget_without_threshold_rules_is_no_alarm(pack):
    """A GCP budget of 10,000 with no thresholdRules and no allUpdatesRule: it alerts no one.
    Expect: spend-limit fail."""
    b = gcp_budget("10000")
    b.props.pop("thresholdRules")
    found = run(pack, [gvm("a2", "a2-highgpu-1g"), b], provider=GCP)
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)


def test_u5_azure_budget_with_every_notification_disabled_is_no_alarm(pack):
    """An azure-native budget of 20,000 whose only notification has enabled false.
    Expect: spend-limit fail."""
    b = az_budget(20000.0, notifications={"actual80": {
        "enabled": False, "operator": "GreaterThan", "threshold": 80.0,
        "contactEmails": ["ml-platform@example.com"]}})
    found = run(pack, [vmss("a100", "Standard_NC24ads_A100_v4", 2.0), b], provider=AZ)
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)


def test_u6_aws_budget_notification_without_subscribers_is_no_alarm(pack):
    """An AWS budget of 50,000 whose notification has no e-mail and no SNS subscriber.
    Expect: spend-limit fail."""
    s, t, g = _p4d()
    b = aws_budget("50000", notifications=[{
        "comparisonOperator": "GREATER_THAN", "threshold": 80.0,
        "thresholdType": "PERCENTAGE", "notificationType": "ACTUAL"}])
    found = run(pack, [s, t, g, b], provider=AWS)
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)


def test_u7_aws_inference_group_in_other_zone_mounting_nothing(pack):
    """A p4d training group on us-east-1a mounting an FSx there, and a g5.xlarge inference
    group on us-east-1b mounting nothing. Expect: storage-same-zone pass."""
    sa, sb = subnet("a", "us-east-1a"), subnet("b", "us-east-1b")
    fs = fsx("scratch", sa)
    tt, ti = lt("train-lt", "p4d.24xlarge", mounts=[fs]), lt("infer-lt", "g5.xlarge")
    found = run(pack, [sa, sb, fs, tt, ti, asg("train", tt, [sa], 2),
                       asg("infer", ti, [sb], 2), aws_budget("500000")], provider=AWS)
    assert verdict(found, SSZ) == "pass", messages(found, SSZ)


def test_u8_fsx_on_a_literal_subnet_is_undecided(pack):
    """An FSx whose subnetIds is the literal subnet-0fsx1111aaaa2222b (not in the stack), read
    by a p4d group on a stack subnet in us-east-1a. Expect: storage-same-zone undecided."""
    s = subnet("a", "us-east-1a")
    fs = res("aws:fsx/lustreFileSystem:LustreFileSystem", "scratch", {
        "subnetIds": "subnet-0fsx1111aaaa2222b", "storageCapacity": 1200.0,
        "deploymentType": "PERSISTENT_2", "perUnitStorageThroughput": 250.0, "tags": TAGS})
    t = lt("gpu-lt", "p4d.24xlarge", mounts=[fs])
    found = run(pack, [s, fs, t, asg("gpu", t, [s], 2), aws_budget("500000")], provider=AWS)
    assert verdict(found, SSZ) == "undecided", messages(found, SSZ)


@pytest.mark.parametrize("build,provider", [
    (lambda: ec2("x", "g6e.48xlarge"), AWS),
    (lambda: ec2("x", "gr6.4xlarge"), AWS),
    (lambda: ec2("x", "g4ad.xlarge"), AWS),
    (lambda: gvm("x", "g2-standard-96"), GCP),
    (lambda: gvm("x", "a3-highgpu-1g"), GCP),
    (lambda: vmss("x", "Standard_NC96ads_A100_v4", 1.0), AZ),
    (lambda: vmss("x", "Standard_NV6ads_A10_v5", 1.0), AZ),
    (lambda: vmss("x", "Standard_ND96amsr_A100_v4", 1.0), AZ),
    (lambda: ecs("x", itype="ecs.gn7i-c16g1.4xlarge", release=None), {"region": "cn-hangzhou"}),
], ids=["g6e.48xlarge", "gr6.4xlarge", "g4ad.xlarge", "g2-standard-96", "a3-highgpu-1g",
        "NC96ads_A100_v4", "NV6ads_A10_v5", "ND96amsr_A100_v4", "gn7i-c16g1.4xlarge"])
def test_u9_publicly_listed_gpu_types_are_priced(pack, build, provider):
    """GPU types each provider lists publicly in that region (aws.amazon.com/ec2/instance-types
    G6e, Gr6, G4ad; cloud.google.com/compute/docs/gpus (G2, A3 High); learn.microsoft.com
    NC A100 v4, NVadsA10 v5, NDm A100 v4; alibabacloud.com gn7i). Designed without reading the
    catalog. Expect: an estimate (spend-limit says "exceeds" under a 1 USD cap), not "cannot
    be estimated"."""
    estimate(pack, [build()], provider)


# ============================================== fix38: the Batch sizing's edges (expected
# figures by hand; g5.xlarge 4 vCPUs, g5.2xlarge 8, instance_types.csv from
# github.com/tsaol/aws-gpu; prices as in the module docstring)

def _batch_ce(types, most, **cr):
    return res("aws:batch/computeEnvironment:ComputeEnvironment", "ce", {
        "type": "MANAGED", "computeResources": {
            "instanceTypes": types, "maxVcpus": most, "subnets": ["subnet-0aaa1111"],
            "securityGroupIds": ["sg-0aaa1111"], "tags": TAGS, **cr}})


def test_r1b_batch_may_exceed_max_vcpus_by_one_instance(pack):
    """BEST_FIT_PROGRESSIVE on EC2, g5.xlarge, maxVcpus 16: "never exceeds maxvCpus by more
    than a single instance" (API_ComputeResource): ceil(16 / 4) + 1 = 5 nodes,
    5 x 1.006 x 730 = 3,671.90."""
    ce = _batch_ce(["g5.xlarge"], 16.0, type="EC2", allocationStrategy="BEST_FIT_PROGRESSIVE")
    assert near(estimate(pack, [ce], AWS), 5 * 1.006 * MONTH)


def test_r1c_batch_of_two_sizes_counts_the_smaller_at_the_dearer_price(pack):
    """g5.xlarge (4 vCPUs) and g5.2xlarge (8; 1.212 USD/h us-east-1, prices.csv), maxVcpus
    18, EC2 BEST_FIT: at most ceil(18 / 4) = 5 nodes, each at most 1.212:
    5 x 1.212 x 730 = 4,423.80."""
    ce = _batch_ce(["g5.xlarge", "g5.2xlarge"], 18.0, type="EC2")
    assert near(estimate(pack, [ce], AWS), 5 * 1.212 * MONTH)


@pytest.mark.parametrize("types", [["g5"], ["g5.xlarge", "g5"]], ids=["family", "mixed"])
def test_r1d_batch_of_a_family_is_not_sized(pack, types):
    """A family name ("g5": any size) bounds no node count: spend-limit not pass under any
    budget (cannot be estimated)."""
    found = run(pack, [_batch_ce(types, 16.0, type="EC2"), aws_budget("50000")], provider=AWS)
    assert verdict(found, SPEND) != "pass", messages(found, SPEND)
    assert "'g5'" in messages(found, SPEND) if types == ["g5"] else True


def test_r2b_azure_batch_pool_counts_low_priority_nodes_at_the_regular_rate(pack):
    """fixedScale 2 dedicated + 3 low-priority Standard_NC24ads_A100_v4 (eastus 3.673):
    (2 + 3) x 3.673 x 730 = 13,406.45 (low-priority priced at the regular rate, never less
    than it bills)."""
    pool = res("azure-native:batch:Pool", "a100-pool", {
        "accountName": "mlbatch", "resourceGroupName": "ml-rg",
        "vmSize": "Standard_NC24ads_A100_v4", "scaleSettings": {"fixedScale": {
            "targetDedicatedNodes": 2, "targetLowPriorityNodes": 3}}})
    assert near(estimate(pack, [pool], AZ), 5 * NC24 * MONTH)


def test_r2c_azure_batch_pool_of_autoscale_formula_is_not_sized(pack):
    """An autoScale formula: no bound the pack reads. Expect: spend-limit not pass."""
    pool = res("azure-native:batch:Pool", "a100-pool", {
        "accountName": "mlbatch", "resourceGroupName": "ml-rg",
        "vmSize": "Standard_NC24ads_A100_v4", "scaleSettings": {"autoScale": {
            "formula": "$TargetDedicatedNodes = 2;", "evaluationInterval": "PT5M"}}})
    found = run(pack, [pool, az_budget(20000.0)], provider=AZ)
    assert verdict(found, SPEND) != "pass", messages(found, SPEND)


def test_s2b_an_instances_max_run_duration_is_named_on_the_vm():
    """fix38 (the reviewer's note on s2): the lifetime of a VM's own maxRunDuration is
    described on the VM, not "on the template" (it has none)."""
    from trainstack_policies import inventory
    vm = gvm("a2", "a2-highgpu-1g")
    vm.props["scheduling"] = {"maxRunDuration": {"seconds": 172800.0},
                              "instanceTerminationAction": "DELETE"}
    [group] = inventory.node_groups([vm])
    assert group.lifetime_how == "scheduling.maxRunDuration on the VM"


def test_s5b_an_ipv6_access_config_is_named_as_such(pack):
    """fix38 (the reviewer's note on s5): the finding names ipv6AccessConfigs."""
    vm = gvm("l4", "g2-standard-8", networkInterfaces=[{
        "network": "default", "subnetwork": "dual", "stackType": "IPV4_IPV6",
        "ipv6AccessConfigs": [{"networkTier": "PREMIUM"}]}])
    text = messages(run(pack, [vm, gcp_budget()], provider=GCP), NPI)
    assert "Found: ipv6AccessConfigs on network interface(s) [0]" in text, text
