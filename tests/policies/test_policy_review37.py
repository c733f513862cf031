"""Issue 35, a fresh BLIND hostile review (helper review37): NEW stacks, written the way teams
write Pulumi programs against the providers' own input names (pulumi_aws 7, pulumi_gcp 8+,
pulumi_azure_native 3, pulumi_alicloud 3+), driven over gRPC as `pulumi preview --policy-pack`
drives the pack (tests/policy_harness.py). The pack's rule code was not read to design them;
only the issue's classes, docs/policies.md's public description of the config keys, the providers'
input shapes and the catalog's cited rows. The stacks of review35*, review36*, edges35* are not
reused; only the small builders and the verdict reader of test_policy_review35f.py are imported.

Each case's docstring gives its expected verdict BEFORE the first run: the policy, "pass",
"fail" (a mandatory violation that decides), "undecided" ("cannot decide") or "not pass" where
either of the last two is right, and the price worked by hand. On-demand USD/h from
policies/catalog_data/prices.csv (each row cites its public source):
  us-east-1: g6.12xlarge 4.6016; g5.12xlarge 5.672; g5.4xlarge 1.624; p4de.24xlarge 27.4471;
    p4d.24xlarge 21.9576; g6e.12xlarge 10.4926; p5.48xlarge 55.04; g6f.large 0.202;
    g4ad.xlarge 0.37853.
  us-central1: a2-ultragpu-1g 5.0688; g2-standard-24 2.00083; g2-standard-12 1.00042;
    g2-standard-4 0.706832; g2-standard-8 0.853624; a2-highgpu-1g 3.67339; a3-highgpu-8g 88.49;
    g4-standard-48 4.49993.
  eastus: Standard_NC40ads_H100_v5 6.98; Standard_NC16as_T4_v3 1.204; Standard_NC24ads_A100_v4
    3.673; Standard_NV4as_v4 0.233. westus3: Standard_NC8ads_A10_v4 1.1.
  eu-central-1: ecs.gn7i-c8g1.2xlarge 2.56083; ecs.gn7i-c16g1.4xlarge 2.71098;
    ecs.sgn7i-vws-m2.xlarge 0.271691.
gcp_attached_gpus.csv (us-central1): n1-standard-4 0.19; n1-highmem-16 0.946424;
  nvidia-tesla-t4 0.35; nvidia-tesla-p100 1.46.
A month is 730 h.

Classes (issue 35): A capacity counted once (reservations), B capacity blocks, C compute the
pack must see, D stops that do not stop, E budgets that do not cover, F malformed values,
G scope, H literal ids, I public exposure, J configuration typos, K catalog reach.

Results. Round 1 (a1-k1, 55 cases, committed in 986e840 before the first run): 6 failed.
Mine: f1, f5 (I had asked for a stated total beside a group that cannot be sized/priced; the
pack fails closed naming that group and states no total, which never makes a total smaller).
The pack's, left as strict xfails: c1 (an aws.ec2.Fleet choosing GPU nodes by
instanceRequirements passes with no budget), c4 (an alicloud AutoProvisioningGroup fails closed
as "a resource type the pack does not size"), e5 (a GCP budget filtered to a project NUMBER is
taken to cover the provider's project id: removed by the lead, a documented decision, not a
defect: docs/policies.md "A GCP project given by number ... is taken as the stack's own
project" (trainstack's own budget filters on the number it reads at deploy, and the program
never says which number its project id has, so "cannot decide" would hold back every GCP stack
trainstack writes); tests/policies/test_policy_review35f.py r13 asserts that pass on the same
stack), e6 (a GCP lastPeriodAmount budget passes as a cap).
Round 2 (r1-r15, committed in f394f5f before its run): 6 failed, all the pack's (xfail): r1-r3
(c1's class on aws-native Ec2Fleet, SpotFleetRequest, and beside a 1,000 budget), r12 (a
reservation of n1-standard-8 + 1 T4 absorbs a VM with 2 T4s: 533 instead of 1,321.30), r13
(an aws-native launch template's associatePublicIpAddress true is not read), r15 (an ACK node
pool's internetMaxBandwidthOut is not read). Round 3 (s1-s10, committed in da9128b before its
run): 1 failed, the pack's (xfail): s9 (an AWS auto-adjusting budget passes as a cap).
Planted in my own builder: odcr() reserving one more node than asked fails a2 and a3.
Fixed since, each xfail removed with its fix: c1, c4, e6, r1-r3, r12, r15, s9 (helper fix37r)
and r13 (helper fix37gaps, f95665a).
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
    no_crash,
    subnet,
    verdict,
    vmss,
    vsw,
)
from tests.policy_fixtures import AWS_ALERTS, hours_from_now, res
from tests.policy_harness import run
from trainstack_policies.model import UNKNOWN

ALI = {"region": "eu-central-1"}
SUB_ID = SUB.rsplit("/", 1)[-1]
G6_12, G5_12, G5_4, P4DE, P4D, G6E12, P5 = 4.6016, 5.672, 1.624, 27.4471, 21.9576, 10.4926, 55.04
A2U1, G2_24, G2_12, G2_4, G2_8, A2, A3_8 = 5.0688, 2.00083, 1.00042, 0.706832, 0.853624, \
    3.67339, 88.49
NC40H, NC16T4, NC24A = 6.98, 1.204, 3.673
GN7I_8, GN7I_16 = 2.56083, 2.71098
N1S4, T4 = 0.19, 0.35
IMG = "ubuntu_22_04_x64_20G_alibase_20240508.vhd"


# ------------------------------------------------------------------------------- builders

def odcr(name, itype, zone, count, **p):
    return res("aws:ec2/capacityReservation:CapacityReservation", name, {
        "instanceType": itype, "instancePlatform": "Linux/UNIX", "availabilityZone": zone,
        "instanceCount": float(count), "tags": TAGS, **p})


def p4d_group(label="train", size=2, **p):
    s = subnet(f"{label}-a", "us-east-1a")
    t = lt(f"{label}-lt", "p4d.24xlarge")
    return [s, t, asg(label, t, [s], size, **p)]


def ess_group(name, itype, switches, max_size, mounts=(), **sc):
    g = res("alicloud:ess/scalingGroup:ScalingGroup", name, {
        "minSize": 0.0, "maxSize": float(max_size), "scalingGroupName": name,
        "vswitchIds": ["vsw-id"] * len(switches), "tags": TAGS},
        deps={"vswitchIds": list(switches)})
    deps = {"scalingGroupId": [g]}
    if mounts:
        deps["userData"] = list(mounts)
    c = res("alicloud:ess/scalingConfiguration:ScalingConfiguration", f"{name}-sc", {
        "scalingGroupId": "sg-id", "imageId": IMG, "active": True, "securityGroupId": "sg-1",
        **({"instanceType": itype} if itype else {}),
        **({"userData": "IyEvYmluL2Jhc2g="} if mounts else {}), "tags": TAGS, **sc}, deps=deps)
    return [g, c]


def amlfs(name, zone):
    return res("azure-native:storagecache:AmlFilesystem", name, {
        "resourceGroupName": "ml-rg", "location": "eastus", "zones": [zone],
        "storageCapacityTiB": 8.0, "sku": {"name": "AMLFS-Durable-Premium-250"},
        "filesystemSubnet": "subnet-id", "tags": TAGS})


def mounting(vm, *filesystems):
    vm.props["metadata"] = {"startup-script": "#!/bin/bash\nmount -t lustre ..."}
    vm.deps["metadata"] = list(filesystems)
    return vm


def ali_time(hours):
    when = datetime.now(timezone.utc) + timedelta(hours=hours)
    return when.strftime("%Y-%m-%dT%H:%MZ")


# ============================================== A. capacity counted once (reservations)

def test_a1_open_odcr_smaller_than_the_group_inside_it(pack):
    """An open ODCR of 2 g6.12xlarge in us-east-1a and an On-Demand ASG of 4 g6.12xlarge on a
    us-east-1a subnet: 2 nodes run in the reservation, 2 beyond it at on-demand.
    Expect: estimate 4 x 4.6016 x 730 = 13,436.67 (not 6 x = 20,155.01, not 2 x)."""
    s = subnet("l4-a", "us-east-1a")
    t = lt("l4-lt", "g6.12xlarge")
    stack = [odcr("l4-odcr", "g6.12xlarge", "us-east-1a", 2), s, t, asg("l4", t, [s], 4)]
    assert near(estimate(pack, stack, AWS), 4 * G6_12 * MONTH)


def test_a2_open_odcr_of_another_type_absorbs_nothing(pack):
    """An open ODCR of 2 g5.12xlarge in us-east-1a and a group of 2 g5.4xlarge there (the team
    resized the nodes and forgot the reservation): the reservation bills unused, the nodes bill
    on demand. Expect: estimate 2 x 5.672 x 730 + 2 x 1.624 x 730 = 8,281.12 + 2,371.04 =
    10,652.16."""
    s = subnet("g5-a", "us-east-1a")
    t = lt("g5-lt", "g5.4xlarge")
    stack = [odcr("g5-odcr", "g5.12xlarge", "us-east-1a", 2), s, t, asg("g5", t, [s], 2)]
    assert near(estimate(pack, stack, AWS), 2 * G5_12 * MONTH + 2 * G5_4 * MONTH)


def test_a3_odcr_with_an_end_date_bills_until_it(pack):
    """An ODCR of 2 p4de.24xlarge with endDateType "limited" and endDate 48 h from now (AWS
    releases it then and stops billing it: docs.aws.amazon.com/AWSEC2/latest/UserGuide/
    capacity-reservations-using.html, "End date"), nothing launched into it, a 5,000 USD budget.
    Expect: estimate 2 x 27.4471 x 48 = 2,634.92; spend-limit pass (a month, 40,072.77, would
    be a false alarm)."""
    r = odcr("p4de-odcr", "p4de.24xlarge", "us-east-1a", 2, endDateType="limited",
             endDate=hours_from_now(48))
    assert near(estimate(pack, [r], AWS), 2 * P4DE * 48, slack=5)
    found = run(pack, [r, aws_budget("5000")], provider=AWS)
    assert verdict(found, SPEND) == "pass", messages(found, SPEND)


def test_a4_gcp_shared_reservation_and_the_owner_projects_vm(pack):
    """A reservation of 2 a2-ultragpu-1g in us-central1-a shared with project ml-dev
    (shareSettings SPECIFIC_PROJECTS; the owner project pays for it), and one a2-ultragpu-1g VM
    of the owner project in us-central1-a (default affinity: it runs in the reservation).
    Expect: estimate 2 x 5.0688 x 730 = 7,400.45 (the VM adds nothing)."""
    r = res("gcp:compute/reservation:Reservation", "a2u-shared", {
        "name": "a2u-shared", "zone": "us-central1-a",
        "shareSettings": {"shareType": "SPECIFIC_PROJECTS",
                          "projectMaps": [{"id": "ml-dev", "projectId": "ml-dev"}]},
        "specificReservation": {"count": 2.0, "instanceProperties": {
            "machineType": "a2-ultragpu-1g"}}})
    vm = gvm("a2u", "a2-ultragpu-1g")
    assert near(estimate(pack, [r, vm], GCP), 2 * A2U1 * MONTH)


def test_a5_gcp_reservation_in_another_zone_than_the_mig(pack):
    """A reservation of 2 g2-standard-24 in us-central1-a and a MIG of 2 g2-standard-24 in
    us-central1-b: a reservation serves its own zone only, so both bill.
    Expect: estimate 4 x 2.00083 x 730 = 5,842.42."""
    r = res("gcp:compute/reservation:Reservation", "g2-res", {
        "name": "g2-res", "zone": "us-central1-a", "specificReservation": {
            "count": 2.0, "instanceProperties": {"machineType": "g2-standard-24"}}})
    t = gtemplate("g2-tpl", "g2-standard-24")
    stack = [r, t, mig("g2", t, "us-central1-b", 2)]
    assert near(estimate(pack, stack, GCP), 4 * G2_24 * MONTH)


def test_a6_gke_node_pool_consuming_a_specific_reservation(pack):
    """A specific-only reservation (specificReservationRequired) of 1 a3-highgpu-8g in
    us-central1-a and a GKE node pool of 1 a3-highgpu-8g node in that zone on a cluster of
    another stack, nodeConfig.reservationAffinity SPECIFIC_RESERVATION naming it
    (cloud.google.com/kubernetes-engine/docs/how-to/consuming-reservations).
    Expect: estimate 88.49 x 730 = 64,597.70 (once; not 129,195.40)."""
    r = res("gcp:compute/reservation:Reservation", "h100-res", {
        "name": "h100-res", "zone": "us-central1-a", "specificReservationRequired": True,
        "specificReservation": {"count": 1.0, "instanceProperties": {
            "machineType": "a3-highgpu-8g"}}})
    np_ = res("gcp:container/nodePool:NodePool", "h100-pool", {
        "cluster": "projects/ml-prod/locations/us-central1-a/clusters/train",
        "location": "us-central1-a", "nodeCount": 1.0,
        "nodeConfig": {"machineType": "a3-highgpu-8g", "labels": LABELS,
                       "reservationAffinity": {
                           "consumeReservationType": "SPECIFIC_RESERVATION",
                           "key": "compute.googleapis.com/reservation-name",
                           "values": ["h100-res"]}}},
        deps={"nodeConfig": [r]})
    assert near(estimate(pack, [r, np_], GCP), A3_8 * MONTH)


def test_a7_azure_reservation_of_two_and_a_scale_set_of_three(pack):
    """An azure-native capacity reservation of 2 Standard_NC40ads_H100_v5 in eastus zone 1, and
    a scale set of 3 such VMs in zone 1 associated with its group: 2 run in the reservation,
    1 beyond it. Expect: estimate 3 x 6.98 x 730 = 15,286.20 (not 5 x = 25,477.00)."""
    crg = res("azure-native:compute:CapacityReservationGroup", "h100-crg", {
        "resourceGroupName": "ml-rg", "location": "eastus", "zones": ["1"], "tags": TAGS})
    cr = res("azure-native:compute:CapacityReservation", "h100-cr", {
        "resourceGroupName": "ml-rg", "capacityReservationGroupName": "crg-name",
        "location": "eastus", "zones": ["1"],
        "sku": {"name": "Standard_NC40ads_H100_v5", "capacity": 2.0}, "tags": TAGS},
        deps={"capacityReservationGroupName": [crg]})
    ss = vmss("h100", "Standard_NC40ads_H100_v5", 3.0)
    ss.props["virtualMachineProfile"]["capacityReservation"] = {
        "capacityReservationGroup": {"id": "crg-id"}}
    ss.deps["virtualMachineProfile"] = [crg]
    assert near(estimate(pack, [crg, cr, ss], AZ), 3 * NC40H * MONTH)


def test_a8_alibaba_open_reservation_and_an_ess_group_of_three(pack):
    """An Alibaba immediate capacity reservation (matchCriteria Open, unlimited) of 2
    ecs.gn7i-c16g1.4xlarge in eu-central-1a, and an ESS group of at most 3 such nodes on a
    eu-central-1a vSwitch whose scaling configuration matches open private pools.
    Expect: estimate 3 x 2.71098 x 730 = 5,937.05 (not 5 x)."""
    sw = vsw("vsw-a", "eu-central-1a")
    r = res("alicloud:ecs/capacityReservation:CapacityReservation", "a10-res", {
        "instanceType": "ecs.gn7i-c16g1.4xlarge", "instanceAmount": 2.0,
        "zoneIds": ["eu-central-1a"], "endTimeType": "Unlimited", "matchCriteria": "Open",
        "platform": "linux", "tags": TAGS})
    stack = [sw, r, *ess_group("a10", "ecs.gn7i-c16g1.4xlarge", [sw], 3,
                               privatePoolOptionsMatchCriteria="Open")]
    assert near(estimate(pack, stack, ALI), 3 * GN7I_16 * MONTH)


# ============================================== B. capacity blocks at their price

def test_b1_capacity_block_used_by_a_single_instance_at_its_fee(pack):
    """The stack buys a Capacity Block and runs one aws.ec2.Instance p5.48xlarge in it
    (instanceMarketOptions marketType capacity-block, capacityReservationSpecification targeting
    the block). The block's upfront fee, 12,000 USD, is configured under the instance's name.
    Expect: estimate 12,000 (the block once; not 12,000 + 55.04 x 730 = 40,179.20 more)."""
    blk = res("aws:ec2/capacityBlockReservation:CapacityBlockReservation", "h100-block", {
        "capacityBlockOfferingId": "cb-0f1e2d3c4b5a69788", "instancePlatform": "Linux/UNIX",
        "tags": TAGS})
    i = ec2("h100-box", "p5.48xlarge", instanceMarketOptions={"marketType": "capacity-block"},
            capacityReservationSpecification={"capacityReservationTarget": {
                "capacityReservationId": "cr-id"}})
    i.deps["capacityReservationSpecification"] = [blk]
    got = estimate(pack, [blk, i], AWS, {"capacityBlockFeesUsd": {"h100-box": 12000}})
    assert near(got, 12000), got


# ============================================== C. compute the pack must see

def test_c1_ec2_fleet_by_instance_requirements_needs_a_budget(pack):
    """An aws.ec2.Fleet (maintain, 4 on-demand) whose override asks for instanceRequirements:
    1 NVIDIA A10G, 4-8 vCPUs (it can only be g5.xlarge/g5.2xlarge), no budget anywhere.
    Expect: spend-limit fail (GPU capacity with no budget alarm)."""
    s = subnet("fleet-a", "us-east-1a")
    t = lt("fleet-lt", None)
    t.props.pop("instanceType")
    f = res("aws:ec2/fleet:Fleet", "a10g-fleet", {
        "type": "maintain", "launchTemplateConfigs": [{
            "launchTemplateSpecification": {"launchTemplateId": "lt-id", "version": "$Latest"},
            "overrides": [{"subnetId": "subnet-id", "instanceRequirements": {
                "vcpuCount": {"min": 4, "max": 8}, "memoryMib": {"min": 16384},
                "acceleratorTypes": ["gpu"], "acceleratorManufacturers": ["nvidia"],
                "acceleratorNames": ["a10g"], "acceleratorCount": {"min": 1, "max": 1}}}]}],
        "targetCapacitySpecification": {"defaultTargetCapacityType": "on-demand",
                                        "totalTargetCapacity": 4.0}, "tags": TAGS},
        deps={"launchTemplateConfigs": [t, s]})
    found = run(pack, [s, t, f], provider=AWS)
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)


def test_c2_gcp_regional_mig_over_three_zones_is_priced(pack):
    """A RegionInstanceGroupManager of 3 g2-standard-12 over us-central1-a/b/c (inference).
    Expect: estimate 3 x 1.00042 x 730 = 2,190.92."""
    t = gtemplate("l4-tpl", "g2-standard-12")
    r = res("gcp:compute/regionInstanceGroupManager:RegionInstanceGroupManager", "l4-serve", {
        "region": "us-central1", "baseInstanceName": "l4", "targetSize": 3.0,
        "distributionPolicyZones": ["us-central1-a", "us-central1-b", "us-central1-c"],
        "versions": [{"instanceTemplate": "tpl-id", "name": "primary"}]},
        deps={"versions": [t]})
    assert near(estimate(pack, [t, r], GCP), 3 * G2_12 * MONTH)


def test_c3_gcp_mig_canary_version_of_another_type_never_cheaper(pack):
    """A zonal MIG of targetSize 4 with two versions (a canary rollout): primary from a
    g2-standard-4 template, canary from an a2-highgpu-1g template with targetSize fixed 1.
    The truth is 1 x 3.67339 x 730 + 3 x 0.706832 x 730 = 2,681.57 + 1,547.96 = 4,229.53; a
    pack that cannot tell the versions apart may price all 4 at the dearest (10,726.30).
    Expect: estimate between 4,229.53 and 10,726.30 (never the g2 price for all 4, 2,063.95)."""
    tp = gtemplate("l4-tpl", "g2-standard-4")
    tc = gtemplate("a100-tpl", "a2-highgpu-1g")
    m = res("gcp:compute/instanceGroupManager:InstanceGroupManager", "canary-mig", {
        "zone": "us-central1-a", "targetSize": 4.0, "baseInstanceName": "w",
        "versions": [{"name": "primary", "instanceTemplate": "tpl-a"},
                     {"name": "canary", "instanceTemplate": "tpl-b",
                      "targetSize": {"fixed": 1.0}}]},
        deps={"versions": [tp, tc]})
    got = estimate(pack, [tp, tc, m], GCP)
    assert A2 * MONTH + 3 * G2_4 * MONTH - 2 <= got <= 4 * A2 * MONTH + 2, got


def test_c4_alibaba_auto_provisioning_group_is_priced(pack):
    """An alicloud.ecs.AutoProvisioningGroup (maintain, PayAsYouGo, totalTargetCapacity "3" as
    the provider takes it, a string) of ecs.gn7i-c8g1.2xlarge on a eu-central-1a vSwitch, from
    the stack's launch template. Expect: estimate 3 x 2.56083 x 730 = 5,608.22."""
    sw = vsw("vsw-a", "eu-central-1a")
    tpl = res("alicloud:ecs/ecsLaunchTemplate:EcsLaunchTemplate", "gn7i-tpl", {
        "launchTemplateName": "gn7i", "imageId": IMG, "instanceType": "ecs.gn7i-c8g1.2xlarge",
        "securityGroupId": "sg-1", "vswitchId": "vsw-id", "tags": TAGS},
        deps={"vswitchId": [sw]})
    apg = res("alicloud:ecs/autoProvisioningGroup:AutoProvisioningGroup", "gn7i-apg", {
        "launchTemplateId": "lt-id", "autoProvisioningGroupType": "maintain",
        "totalTargetCapacity": "3", "payAsYouGoTargetCapacity": "3",
        "spotTargetCapacity": "0", "defaultTargetCapacityType": "PayAsYouGo",
        "launchTemplateConfigs": [{"instanceType": "ecs.gn7i-c8g1.2xlarge",
                                   "vswitchId": "vsw-id", "weightedCapacity": "1",
                                   "maxPrice": "3"}]},
        deps={"launchTemplateId": [tpl], "launchTemplateConfigs": [sw]})
    assert near(estimate(pack, [sw, tpl, apg], ALI), 3 * GN7I_8 * MONTH)


def test_c5_alibaba_ack_node_pool_is_priced_at_its_maximum(pack):
    """An ACK node pool (alicloud.cs.NodePool) of ecs.gn7i-c16g1.4xlarge on a eu-central-1a
    vSwitch, autoscaling 0..5, on a cluster of another stack.
    Expect: estimate 5 x 2.71098 x 730 = 9,895.08."""
    sw = vsw("vsw-a", "eu-central-1a")
    pool = res("alicloud:cs/nodePool:NodePool", "a10-pool", {
        "clusterId": "c8f2a1b3c4d5e6f708192a3b4c5d6e7f8", "nodePoolName": "a10",
        "vswitchIds": ["vsw-id"], "instanceTypes": ["ecs.gn7i-c16g1.4xlarge"],
        "systemDiskCategory": "cloud_essd", "systemDiskSize": 120.0,
        "scalingConfig": {"enable": True, "minSize": 0.0, "maxSize": 5.0}, "tags": TAGS},
        deps={"vswitchIds": [sw]})
    assert near(estimate(pack, [sw, pool], ALI), 5 * GN7I_16 * MONTH)


def test_c6_azure_native_aks_agent_pool_is_priced_at_its_maximum(pack):
    """azure-native:containerservice:AgentPool (a user pool added to an existing AKS cluster),
    Standard_NC16as_T4_v3, autoscaling 1..4. Expect: estimate 4 x 1.204 x 730 = 3,515.68."""
    pool = res("azure-native:containerservice:AgentPool", "t4pool", {
        "resourceGroupName": "ml-rg", "resourceName": "aks-train", "agentPoolName": "t4",
        "vmSize": "Standard_NC16as_T4_v3", "count": 1.0, "enableAutoScaling": True,
        "minCount": 1.0, "maxCount": 4.0, "mode": "User", "osType": "Linux",
        "availabilityZones": ["1"], "tags": TAGS})
    assert near(estimate(pack, [pool], AZ), 4 * NC16T4 * MONTH)


def test_c7_gke_regional_pool_max_node_count_is_per_zone(pack):
    """A GKE node pool of g2-standard-8 on a regional cluster, nodeLocations a/b/c, autoscaling
    maxNodeCount 3: maxNodeCount is per zone (registry: gcp.container.NodePool autoscaling
    "max_node_count - Maximum number of nodes per zone"), so up to 9 nodes.
    Expect: estimate 9 x 0.853624 x 730 = 5,608.31 (not 3 x = 1,869.44)."""
    pool = res("gcp:container/nodePool:NodePool", "l4-pool", {
        "cluster": "projects/ml-prod/locations/us-central1/clusters/serve",
        "location": "us-central1",
        "nodeLocations": ["us-central1-a", "us-central1-b", "us-central1-c"],
        "initialNodeCount": 1.0,
        "autoscaling": {"minNodeCount": 0.0, "maxNodeCount": 3.0},
        "nodeConfig": {"machineType": "g2-standard-8", "labels": LABELS}})
    assert near(estimate(pack, [pool], GCP), 9 * G2_8 * MONTH)


def test_c8_ess_configuration_with_a_list_of_types_priced_at_the_dearest(pack):
    """An ESS group of at most 4 on a eu-central-1a vSwitch whose scaling configuration gives
    instanceTypes ["ecs.gn7i-c8g1.2xlarge", "ecs.gn7i-c16g1.4xlarge"] (ESS takes the first it
    can get, so any node may be the dearer). Expect: estimate at least 4 x 2.71098 x 730 =
    7,916.06 (never the cheaper 7,477.62)."""
    sw = vsw("vsw-a", "eu-central-1a")
    stack = [sw, *ess_group("a10", None, [sw], 4, instanceTypes=[
        "ecs.gn7i-c8g1.2xlarge", "ecs.gn7i-c16g1.4xlarge"])]
    got = estimate(pack, stack, ALI)
    assert got >= 4 * GN7I_16 * MONTH - 2, got


# ============================================== D. stops that do not stop

def test_d1_schedule_with_min_max_minus_one_under_a_min_of_two_stops_nothing(pack):
    """A p4d group minSize 2, maxSize 2, and an autoscaling Schedule in 24 h setting
    desiredCapacity 0 with minSize -1 and maxSize -1 (the documented "leave unchanged": the
    group keeps min 2, so desired 0 is refused and nothing stops).
    Expect: estimate a month, 2 x 21.9576 x 730 = 32,058.10 (not 24 h)."""
    stack = p4d_group(minSize=2.0)
    g = stack[-1]
    stop = res("aws:autoscaling/schedule:Schedule", "nightly-stop", {
        "autoscalingGroupName": "grp", "scheduledActionName": "stop",
        "desiredCapacity": 0.0, "minSize": -1.0, "maxSize": -1.0,
        "startTime": hours_from_now(24)}, deps={"autoscalingGroupName": [g]})
    assert near(estimate(pack, stack + [stop], AWS), 2 * P4D * MONTH)


def test_d2_azure_autoscale_stop_on_another_scale_set_by_literal_id(pack):
    """A GPU scale set of 2 Standard_NC24ads_A100_v4, and an enabled autoscale setting whose
    fixed-date capacity-0 profile targets another scale set by literal id (copy-paste from the
    CPU stack). Expect: estimate a month for the GPU set, 2 x 3.673 x 730 = 5,362.58."""
    ss = vmss("a100", "Standard_NC24ads_A100_v4", 2.0)
    other = (SUB + "/resourceGroups/cpu-rg/providers/Microsoft.Compute/"
             "virtualMachineScaleSets/etl")
    auto = res("azure-native:monitor:AutoscaleSetting", "stop-etl", {
        "resourceGroupName": "ml-rg", "location": "eastus", "targetResourceUri": other,
        "enabled": True, "profiles": [{
            "name": "stop", "capacity": {"minimum": "0", "maximum": "0", "default": "0"},
            "rules": [], "fixedDate": {"timeZone": "UTC", "start": hours_from_now(24),
                                       "end": hours_from_now(24 * 400)}}]})
    assert near(estimate(pack, [ss, auto], AZ), 2 * NC24A * MONTH)


def test_d3_gcp_termination_time_that_does_not_parse_is_no_lifetime(pack):
    """An a2-highgpu-1g VM with scheduling.terminationTime "tomorrow 20:00" (not RFC 3339),
    instanceTerminationAction DELETE, and a 1,000 USD budget: no lifetime, so the month
    3.67339 x 730 = 2,681.57 is over the budget. Expect: spend-limit fail."""
    vm = gvm("a2", "a2-highgpu-1g", scheduling={
        "onHostMaintenance": "TERMINATE", "automaticRestart": False,
        "provisioningModel": "STANDARD", "instanceTerminationAction": "DELETE",
        "terminationTime": "tomorrow 20:00"})
    found = run(pack, [vm, gcp_budget("1000")], provider=GCP)
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)


def test_d4_alibaba_scheduled_task_on_a_literal_group_id_stops_nothing(pack):
    """An ESS group (max 2 ecs.gn7i-c8g1.2xlarge, eu-central-1a) and an ess.ScheduledTask in
    24 h setting min/max/desired 0 on scalingGroupId "asg-gw8literal00001" (another group,
    not a dependency on the stack's). Expect: estimate a month, 2 x 2.56083 x 730 =
    3,738.81."""
    sw = vsw("vsw-a", "eu-central-1a")
    group = ess_group("a10", "ecs.gn7i-c8g1.2xlarge", [sw], 2)
    task = res("alicloud:ess/scheduledTask:ScheduledTask", "stop", {
        "scheduledTaskName": "stop", "launchTime": ali_time(24),
        "scalingGroupId": "asg-gw8literal00001", "minValue": 0.0, "maxValue": 0.0,
        "desiredCapacity": 0.0, "taskEnabled": True})
    assert near(estimate(pack, [sw, *group, task], ALI), 2 * GN7I_8 * MONTH)


def test_d5_gcp_instance_schedule_not_attached_stops_nothing(pack):
    """A resource policy with a daily vmStopSchedule and no start, and an a2-highgpu-1g VM
    whose resourcePolicies does not name it (the attach line was forgotten).
    Expect: estimate a month, 3.67339 x 730 = 2,681.57."""
    pol = res("gcp:compute/resourcePolicy:ResourcePolicy", "nightly", {
        "region": "us-central1", "instanceSchedulePolicy": {
            "vmStopSchedule": {"schedule": "0 20 * * *"}, "timeZone": "UTC"}})
    vm = gvm("a2", "a2-highgpu-1g")
    assert near(estimate(pack, [pol, vm], GCP), A2 * MONTH)


# ============================================== E. budgets that do not cover

def test_e1_aws_budget_filtered_to_s3_only_is_no_alarm_for_gpus(pack):
    """A budget with costFilters Service = "Amazon Simple Storage Service" (the data bucket's
    budget) beside a p4d group. Expect: spend-limit fail (no budget covers the EC2 nodes)."""
    b = aws_budget("50000", costFilters=[{"name": "Service",
                                          "values": ["Amazon Simple Storage Service"]}])
    found = run(pack, p4d_group() + [b], provider=AWS)
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)


def test_e2_aws_usage_budget_is_no_cost_alarm(pack):
    """An AWS budget of budgetType USAGE (hours, limitUnit "Hrs") beside a p4d group: it caps
    usage, not cost. Expect: spend-limit fail."""
    b = aws_budget("5000", budgetType="USAGE", limitUnit="Hrs")
    found = run(pack, p4d_group() + [b], provider=AWS)
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)


def test_e3_aws_annual_budget_below_twelve_months(pack):
    """An ANNUALLY budget of 120,000 USD (10,000 a month) over 2 g6e.12xlarge on demand:
    2 x 10.4926 x 730 = 15,319.20 a month, 183,830.35 a year. Expect: spend-limit fail."""
    s = subnet("l40s-a", "us-east-1a")
    t = lt("l40s-lt", "g6e.12xlarge")
    b = aws_budget("120000", timeUnit="ANNUALLY")
    found = run(pack, [s, t, asg("l40s", t, [s], 2), b], provider=AWS)
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)


def test_e4_gcp_budget_filtered_to_cloud_storage_is_no_alarm_for_gpus(pack):
    """A GCP budget whose budgetFilter.services is Cloud Storage only
    ("services/95FF-2EF5-5EA1") beside an a2-highgpu-1g VM (Compute Engine,
    services/6F81-5844-456A). Expect: spend-limit fail (no budget covers the VM)."""
    b = gcp_budget("50000", budgetFilter={"services": ["services/95FF-2EF5-5EA1"]})
    found = run(pack, [gvm("a2", "a2-highgpu-1g"), b], provider=GCP)
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)


def test_e6_gcp_budget_of_last_periods_amount_is_undecided(pack):
    """A budget whose amount is lastPeriodAmount: true (the cap is last month's spend, known
    only to billing). Expect: spend-limit undecided (not pass, not "no budget")."""
    b = res("gcp:billing/budget:Budget", "budget", {
        "billingAccount": "01A2B3-C4D5E6-F7A8B9", "displayName": "ml monthly",
        "amount": {"lastPeriodAmount": True},
        "thresholdRules": [{"thresholdPercent": 0.8, "spendBasis": "CURRENT_SPEND"}]})
    found = run(pack, [gvm("a2", "a2-highgpu-1g"), b], provider=GCP)
    assert verdict(found, SPEND) == "undecided", messages(found, SPEND)


def test_e7_azure_budget_on_another_resource_group_leaves_the_reservation_out(pack):
    """An azure-native capacity reservation of 1 Standard_NC40ads_H100_v5 in resource group
    ml-rg, and a consumption budget scoped to resource group data-rg of the same subscription.
    Expect: spend-limit fail (the budget does not cover the reservation)."""
    crg = res("azure-native:compute:CapacityReservationGroup", "crg", {
        "resourceGroupName": "ml-rg", "location": "eastus", "zones": ["1"], "tags": TAGS})
    cr = res("azure-native:compute:CapacityReservation", "cr", {
        "resourceGroupName": "ml-rg", "capacityReservationGroupName": "crg-name",
        "location": "eastus", "zones": ["1"],
        "sku": {"name": "Standard_NC40ads_H100_v5", "capacity": 1.0}, "tags": TAGS},
        deps={"capacityReservationGroupName": [crg]})
    b = az_budget(50000.0, scope=SUB + "/resourceGroups/data-rg")
    found = run(pack, [crg, cr, b], provider={"location": "eastus", "subscriptionId": SUB_ID})
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)


# ============================================== F. malformed values

def test_f1_negative_decoy_group_does_not_shrink_the_total(pack):
    """A decoy g6.12xlarge group of maxSize/desired -2 beside a real 2-node p4d group.
    Expect: the decoy is reported by name and value, and spend-limit does not pass even with a
    500,000 budget over the real group's 2 x 21.9576 x 730 = 32,058.10.
    (Corrected after the first run, my mistake: I had also asked for the stated estimate to be
    at least 32,058.10; the pack states no total while a group cannot be sized, it fails
    closed naming the decoy, so no total is ever made smaller: the behaviour the issue asks.)"""
    s = subnet("decoy-a", "us-east-1a")
    t = lt("decoy-lt", "g6.12xlarge")
    stack = p4d_group() + [s, t, asg("decoy", t, [s], -2)]
    found = run(pack, stack + [aws_budget("500000")], provider=AWS)
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)
    assert "decoy" in messages(found, SPEND) and "-2" in messages(found, SPEND)
    # (lead) and on the decoy itself, where the fix is: it was put on the real group beside it
    assert [d.urn.rsplit("::", 1)[1] for d in found
            if d.policy == SPEND and "is not valid" in d.message] == ["decoy"]


def test_f2_nan_target_size_hides_no_cross_zone_mount(pack):
    """A MIG of g2-standard-8 with targetSize NaN, and elsewhere an a2-highgpu-1g VM in
    us-central1-a mounting a Managed Lustre in us-central1-b.
    Expect: no crash; spend-limit not pass; storage-same-zone fail (zones a vs b)."""
    t = gtemplate("l4-tpl", "g2-standard-8")
    fs = glustre("scratch", "us-central1-b")
    vm = mounting(gvm("a2", "a2-highgpu-1g"), fs)
    found = run(pack, [t, mig("l4", t, "us-central1-a", float("nan")), fs, vm,
                       gcp_budget("100000")], provider=GCP)
    no_crash(found)
    assert verdict(found, SPEND) != "pass", messages(found, SPEND)
    assert verdict(found, SSZ) == "fail", messages(found, SSZ)


def test_f3_azure_capacity_as_a_string_is_never_cheaper(pack):
    """A scale set of Standard_NC24ads_A100_v4 whose sku.capacity is the string "2" (a value
    read from config as text), a 4,000 USD budget: as 2 it is 5,362.58 > 4,000.
    Expect: spend-limit not pass (fail over the budget, or cannot decide)."""
    ss = vmss("a100", "Standard_NC24ads_A100_v4", "2")
    found = run(pack, [ss, az_budget(4000.0)], provider=AZ)
    assert verdict(found, SPEND) != "pass", messages(found, SPEND)


def test_f4_aws_budget_of_50k_is_not_no_cap(pack):
    """A budget with limitAmount "50k" over 2 g5.12xlarge (8,281.12 a month). The cap cannot be
    read. Expect: spend-limit not pass."""
    s = subnet("g5-a", "us-east-1a")
    t = lt("g5-lt", "g5.12xlarge")
    found = run(pack, [s, t, asg("g5", t, [s], 2), aws_budget("50k")], provider=AWS)
    assert verdict(found, SPEND) != "pass", messages(found, SPEND)


def test_f5_unknown_instance_type_does_not_shrink_a_known_group(pack):
    """A group of 2 whose launch template's instanceType is unknown at preview (read from
    another stack's output), beside a known 2-node p4d group (32,058.10 a month) and a 500,000
    budget. Expect: spend-limit not pass, naming the unknown group; no crash.
    (Corrected after the first run, my mistake: I had asked for a stated estimate of at least
    32,058.10; the pack states no total while a group cannot be priced and fails closed naming
    it, which never makes a total smaller.)"""
    s = subnet("x-a", "us-east-1a")
    t = lt("x-lt", UNKNOWN)
    stack = p4d_group() + [s, t, asg("mystery", t, [s], 2)]
    found = run(pack, stack + [aws_budget("500000")], provider=AWS)
    assert verdict(found, SPEND) != "pass", messages(found, SPEND)
    assert "mystery" in messages(found, SPEND)


# ============================================== G. scope

def test_g1_aws_cpu_instance_in_another_zone_reading_the_fsx(pack):
    """A p4d group on a us-east-1a subnet mounting an FSx there, and a CPU c6i.4xlarge
    instance on a us-east-1b subnet that also mounts it (data loading).
    Expect: storage-same-zone pass (only the GPUs' zone matters)."""
    sa, sb = subnet("a", "us-east-1a"), subnet("b", "us-east-1b")
    fs = fsx("scratch", sa)
    t = lt("train-lt", "p4d.24xlarge", mounts=[fs])
    cpu = ec2("loader", "c6i.4xlarge", on_subnet=sb, userData="IyEvYmluL2Jhc2g=")
    cpu.deps["userData"] = [fs]
    found = run(pack, [sa, sb, fs, t, asg("train", t, [sa], 2), cpu, aws_budget("500000")],
                provider=AWS)
    assert verdict(found, SSZ) == "pass", messages(found, SSZ)


def test_g2_azure_cpu_scale_set_in_zone_2_reading_the_amlfs(pack):
    """An AMLFS in zone 1 mounted by a GPU scale set in zone 1 and by a CPU scale set
    (Standard_D16s_v5) in zone 2. Expect: storage-same-zone pass."""
    fs = amlfs("amlfs", "1")
    gpu = vmss("a100", "Standard_NC24ads_A100_v4", 2.0, deps={"virtualMachineProfile": [fs]})
    cpu = vmss("etl", "Standard_D16s_v5", 4.0, zones=("2",),
               deps={"virtualMachineProfile": [fs]})
    found = run(pack, [fs, gpu, cpu, az_budget(50000.0)], provider=AZ)
    assert verdict(found, SSZ) == "pass", messages(found, SSZ)


def test_g3_alibaba_gpu_group_over_two_zones_mounting_one_cpfs(pack):
    """An ESS GPU group on vSwitches in eu-central-1a and eu-central-1b whose configuration
    mounts a CPFS in eu-central-1a: its nodes in 1b read across zones.
    Expect: storage-same-zone fail."""
    swa, swb = vsw("vsw-a", "eu-central-1a"), vsw("vsw-b", "eu-central-1b")
    fs = cpfs("cpfs", "eu-central-1a")
    stack = [swa, swb, fs, *ess_group("a10", "ecs.gn7i-c8g1.2xlarge", [swa, swb], 4,
                                      mounts=[fs])]
    found = run(pack, stack, provider=ALI)
    assert verdict(found, SSZ) == "fail", messages(found, SSZ)


# ============================================== H. literal ids

def test_h1_gcp_literal_subnetwork_with_an_explicit_zone_decides(pack):
    """An a2-highgpu-1g VM in zone us-central1-a on a literal subnetwork (shared VPC:
    projects/net-host/regions/us-central1/subnetworks/train) mounting a Managed Lustre in
    us-central1-a. The VM names its zone. Expect: storage-same-zone pass."""
    fs = glustre("scratch", "us-central1-a")
    vm = mounting(gvm("a2", "a2-highgpu-1g", networkInterfaces=[{
        "subnetwork": "projects/net-host/regions/us-central1/subnetworks/train"}]), fs)
    found = run(pack, [fs, vm, gcp_budget("50000")], provider=GCP)
    assert verdict(found, SSZ) == "pass", messages(found, SSZ)


def test_h2_azure_literal_subnet_with_zones_decides(pack):
    """A GPU scale set in zone 1 on a literal hub subnet id (another resource group's VNet)
    mounting an AMLFS in zone 1 (Azure subnets are regional; the zone is the set's own).
    Expect: storage-same-zone pass."""
    fs = amlfs("amlfs", "1")
    ss = vmss("a100", "Standard_NC24ads_A100_v4", 2.0, deps={"virtualMachineProfile": [fs]})
    nic = ss.props["virtualMachineProfile"]["networkProfile"][
        "networkInterfaceConfigurations"][0]
    nic["ipConfigurations"][0]["subnet"] = {"id": SUB + "/resourceGroups/net-rg/providers/"
                                            "Microsoft.Network/virtualNetworks/hub/subnets/gpu"}
    found = run(pack, [fs, ss, az_budget(50000.0)], provider=AZ)
    assert verdict(found, SSZ) == "pass", messages(found, SSZ)


def test_h3_aws_literal_subnets_told_by_config_decide(pack):
    """A p4d group on two literal subnets of the network stack, both told to be in us-east-1a
    by the zones config, mounting an FSx the stack creates on a us-east-1a subnet.
    Expect: storage-same-zone pass."""
    s = subnet("fs-a", "us-east-1a")
    fs = fsx("scratch", s)
    t = lt("train-lt", "p4d.24xlarge", mounts=[fs])
    g = res("aws:autoscaling/group:Group", "train", {
        "minSize": 0.0, "maxSize": 2.0, "desiredCapacity": 2.0,
        "launchTemplate": {"id": "lt-id", "version": "$Latest"},
        "vpcZoneIdentifiers": ["subnet-0aaa11112222", "subnet-0bbb33334444"],
        "tags": [{"key": k, "value": v, "propagateAtLaunch": True} for k, v in TAGS.items()]},
        deps={"launchTemplate": [t]})
    cfg = {SSZ: {"zones": {"subnet-0aaa11112222": "us-east-1a",
                           "subnet-0bbb33334444": "us-east-1a"}}}
    found = run(pack, [s, fs, t, g, aws_budget("500000")], cfg, provider=AWS)
    assert verdict(found, SSZ) == "pass", messages(found, SSZ)


# ============================================== I. public exposure

def test_i1_alibaba_eip_on_an_eni_attached_to_the_gpu_node(pack):
    """An ENI on a private vSwitch attached to a gn7i instance
    (ecs.EcsNetworkInterfaceAttachment), and an EIP associated with the ENI
    (ecs.EipAssociation instanceType NetworkInterface). Expect: no-public-ingress fail."""
    sw = vsw("vsw-a", "eu-central-1a")
    node = ecs("gn7i", switch=sw, release=None)
    eni = res("alicloud:ecs/ecsNetworkInterface:EcsNetworkInterface", "data-eni", {
        "networkInterfaceName": "data", "vswitchId": "vsw-id", "securityGroupIds": ["sg-1"],
        "tags": TAGS}, deps={"vswitchId": [sw]})
    att = res("alicloud:ecs/ecsNetworkInterfaceAttachment:EcsNetworkInterfaceAttachment",
              "data-att", {"instanceId": "i-id", "networkInterfaceId": "eni-id"},
              deps={"instanceId": [node], "networkInterfaceId": [eni]})
    eip = res("alicloud:ecs/eipAddress:EipAddress", "data-eip", {
        "addressName": "data", "bandwidth": "100", "internetChargeType": "PayByTraffic",
        "tags": TAGS})
    assoc = res("alicloud:ecs/eipAssociation:EipAssociation", "data-eip-assoc", {
        "allocationId": "eip-id", "instanceId": "eni-id", "instanceType": "NetworkInterface"},
        deps={"allocationId": [eip], "instanceId": [eni]})
    found = run(pack, [sw, node, eni, att, eip, assoc], provider=ALI)
    assert verdict(found, NPI) == "fail", messages(found, NPI)


def test_i2_aws_launch_template_public_ip_given_as_the_string_true(pack):
    """A launch template whose networkInterfaces[0].associatePublicIpAddress is "true" (the
    provider types it as a string) on a private subnet, used by a g5 group.
    Expect: no-public-ingress fail."""
    s = subnet("a", "us-east-1a")
    t = lt("g5-lt", "g5.12xlarge", networkInterfaces=[{
        "deviceIndex": 0.0, "associatePublicIpAddress": "true", "subnetId": "subnet-id",
        "securityGroups": ["sg-0aaa1111"]}])
    t.deps["networkInterfaces"] = [s]
    found = run(pack, [s, t, asg("g5", t, [s], 2), aws_budget()], provider=AWS)
    assert verdict(found, NPI) == "fail", messages(found, NPI)


def test_i3_aws_launch_template_public_ip_string_false_passes(pack):
    """The same with associatePublicIpAddress "false" on a private subnet (mapPublicIpOnLaunch
    false, a VPC the stack names). Expect: no-public-ingress pass."""
    s = subnet("a", "us-east-1a")
    t = lt("g5-lt", "g5.12xlarge", networkInterfaces=[{
        "deviceIndex": 0.0, "associatePublicIpAddress": "false", "subnetId": "subnet-id",
        "securityGroups": ["sg-0aaa1111"]}])
    t.deps["networkInterfaces"] = [s]
    found = run(pack, [s, t, asg("g5", t, [s], 2), aws_budget()], provider=AWS)
    assert verdict(found, NPI) == "pass", messages(found, NPI)


def test_i4_azure_aks_agent_pool_with_node_public_ips(pack):
    """An azure-native AKS AgentPool of Standard_NC16as_T4_v3 with enableNodePublicIP true
    (every node gets a public IP). Expect: no-public-ingress fail."""
    pool = res("azure-native:containerservice:AgentPool", "t4pool", {
        "resourceGroupName": "ml-rg", "resourceName": "aks-train", "agentPoolName": "t4",
        "vmSize": "Standard_NC16as_T4_v3", "count": 2.0, "mode": "User", "osType": "Linux",
        "enableNodePublicIP": True, "tags": TAGS})
    found = run(pack, [pool, az_budget()], provider=AZ)
    assert verdict(found, NPI) == "fail", messages(found, NPI)


def test_i5_gcp_vm_with_an_external_ipv6_access_config(pack):
    """A g2-standard-8 VM, dual-stack, with ipv6AccessConfigs [{networkTier: PREMIUM}] (an
    external IPv6 address, reachable from the internet) and no IPv4 access config.
    Expect: no-public-ingress fail."""
    vm = gvm("l4", "g2-standard-8", networkInterfaces=[{
        "network": "default", "subnetwork": "dual-stack", "stackType": "IPV4_IPV6",
        "ipv6AccessConfigs": [{"networkTier": "PREMIUM"}]}])
    found = run(pack, [vm, gcp_budget()], provider=GCP)
    assert verdict(found, NPI) == "fail", messages(found, NPI)


# ============================================== J. configuration typos

@pytest.mark.parametrize("policy,key,value", [
    (NPI, "sshCIDRs", ["203.0.113.0/24"]),
    ("required-tags", "requiredtags", ["owner"]),
    (SPEND, "maxMonthlyUSD", 15000),
], ids=["sshCIDRs", "requiredtags", "maxMonthlyUSD"])
def test_j1_misspelt_key_is_refused_over_grpc(pack, policy, key, value):
    """A misspelt key beside the full config the CLI sends. Expect: Configure answers
    INVALID_ARGUMENT naming the key (as `trainstack check` refuses it)."""
    config = pack.cli_config()
    config[policy][key] = value
    with pytest.raises(grpc.RpcError) as err:
        pack.send_config(config)
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT, err.value.details()
    assert key in err.value.details()


# ============================================== K. catalog reach

def _on_switch(zone, itype):
    sw = vsw("vsw-" + zone[-1], zone)
    return [sw, ecs("vws", itype=itype, switch=sw, release=None)]


@pytest.mark.parametrize("build,provider,rate", [
    (lambda: [ec2("l4frac", "g6f.large")], AWS, 0.202),
    (lambda: [ec2("v520", "g4ad.xlarge")], AWS, 0.37853),
    (lambda: [vmss("mi25", "Standard_NV4as_v4", 1.0)], AZ, 0.233),
    (lambda: [vmss("a10", "Standard_NC8ads_A10_v4", 1.0, location="westus3")],
     {"location": "westus3"}, 1.1),
    (lambda: [gvm("rtx", "g4-standard-48")], GCP, 4.49993),
    (lambda: [gvm("p100", "n1-highmem-16", zone="us-central1-c",
                  guestAccelerators=[{"type": "nvidia-tesla-p100", "count": 2}])],
     GCP, 0.946424 + 2 * 1.46),
    (lambda: _on_switch("eu-central-1c", "ecs.sgn7i-vws-m2.xlarge"), ALI, 0.271691),
], ids=["g6f.large", "g4ad.xlarge", "NV4as_v4", "NC8ads_A10_v4-westus3", "g4-standard-48",
        "n1-highmem-16+2xP100", "sgn7i-vws-m2"])
def test_k1_public_gpu_types_are_priced(pack, build, provider, rate):
    """One node each of a GPU type the provider lists publicly (fractional L4, AMD V520, MI25
    slice, A10 in westus3, RTX PRO 6000, N1 + P100s, Alibaba vGPU slice).
    Expect: estimate rate x 730 (g6f.large 147.46; g4ad.xlarge 276.33; NV4as_v4 170.09;
    NC8ads_A10_v4 803.00; g4-standard-48 3,284.95; n1-highmem-16 + 2 P100 2,822.49;
    sgn7i-vws-m2.xlarge 198.33)."""
    assert near(estimate(pack, build(), provider), rate * MONTH)


# ============================================== Round 2 (written, committed, then run)

def _ir(**extra):
    return {"vcpuCount": {"min": 4, "max": 8}, "memoryMib": {"min": 16384},
            "acceleratorTypes": ["gpu"], "acceleratorManufacturers": ["nvidia"],
            "acceleratorNames": ["a10g"], "acceleratorCount": {"min": 1, "max": 1}, **extra}


def test_r1_aws_native_ec2_fleet_by_instance_requirements_needs_a_budget(pack):
    """aws-native:ec2:Ec2Fleet (AWS::EC2::EC2Fleet) of 4 on-demand, its override asking for
    InstanceRequirements with 1 NVIDIA GPU, no budget. Expect: spend-limit fail."""
    t = res("aws-native:ec2:LaunchTemplate", "ir-lt", {"launchTemplateData": {
        "imageId": "ami-0a1b2c3d4e5f60718"}})
    f = res("aws-native:ec2:Ec2Fleet", "ir-fleet", {
        "type": "maintain", "launchTemplateConfigs": [{
            "launchTemplateSpecification": {"launchTemplateId": "lt-id", "version": "1"},
            "overrides": [{"availabilityZone": "us-east-1a", "instanceRequirements": {
                "vCpuCount": {"min": 4, "max": 8}, "memoryMiB": {"min": 16384},
                "acceleratorTypes": ["gpu"], "acceleratorManufacturers": ["nvidia"],
                "acceleratorCount": {"min": 1, "max": 1}}}]}],
        "targetCapacitySpecification": {"totalTargetCapacity": 4,
                                        "defaultTargetCapacityType": "on-demand"}},
        deps={"launchTemplateConfigs": [t]})
    found = run(pack, [t, f], provider=AWS)
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)


def test_r2_spot_fleet_by_instance_requirements_needs_a_budget(pack):
    """aws.ec2.SpotFleetRequest of targetCapacity 4, its launch template config's override
    asking for instanceRequirements with 1 NVIDIA A10G, no budget. Expect: spend-limit fail."""
    s = subnet("sf-a", "us-east-1a")
    t = lt("sf-lt", None)
    t.props.pop("instanceType")
    f = res("aws:ec2/spotFleetRequest:SpotFleetRequest", "ir-spot", {
        "iamFleetRole": "arn:aws:iam::123456789012:role/aws-ec2-spot-fleet-tagging-role",
        "targetCapacity": 4.0, "allocationStrategy": "priceCapacityOptimized",
        "terminateInstancesWithExpiration": True,
        "launchTemplateConfigs": [{
            "launchTemplateSpecification": {"id": "lt-id", "version": "$Latest"},
            "overrides": [{"subnetId": "subnet-id", "instanceRequirements": _ir()}]}],
        "tags": TAGS}, deps={"launchTemplateConfigs": [t, s]})
    found = run(pack, [s, t, f], provider=AWS)
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)


def test_r3_ec2_fleet_by_instance_requirements_over_a_small_budget(pack):
    """The aws.ec2.Fleet of test_c1 (4 on-demand, 1 A10G, 4-8 vCPUs: g5.xlarge or g5.2xlarge)
    beside a 1,000 USD budget: even the cheapest match is 4 x 1.006 x 730 = 2,937.52 > 1,000.
    Expect: spend-limit not pass."""
    s = subnet("fleet-a", "us-east-1a")
    t = lt("fleet-lt", None)
    t.props.pop("instanceType")
    f = res("aws:ec2/fleet:Fleet", "a10g-fleet", {
        "type": "maintain", "launchTemplateConfigs": [{
            "launchTemplateSpecification": {"launchTemplateId": "lt-id", "version": "$Latest"},
            "overrides": [{"subnetId": "subnet-id", "instanceRequirements": _ir()}]}],
        "targetCapacitySpecification": {"defaultTargetCapacityType": "on-demand",
                                        "totalTargetCapacity": 4.0}, "tags": TAGS},
        deps={"launchTemplateConfigs": [t, s]})
    found = run(pack, [s, t, f, aws_budget("1000")], provider=AWS)
    assert verdict(found, SPEND) != "pass", messages(found, SPEND)


def test_r4_gcp_yearly_budget_below_twelve_months(pack):
    """A GCP budget of 12,000 USD with budgetFilter.calendarPeriod YEAR (a yearly budget) over an
    a2-highgpu-1g VM: 3.67339 x 730 = 2,681.57 a month, 32,178.90 a year.
    Expect: spend-limit fail (or undecided; never pass as if 12,000 were a monthly cap)."""
    b = gcp_budget("12000", budgetFilter={"calendarPeriod": "YEAR"})
    found = run(pack, [gvm("a2", "a2-highgpu-1g"), b], provider=GCP)
    assert verdict(found, SPEND) != "pass", messages(found, SPEND)


def test_r5_azure_annual_budget_below_twelve_months(pack):
    """An azure-native consumption budget of 24,000 with timeGrain Annually over 2
    Standard_NC24ads_A100_v4 (5,362.58 a month, 64,350.96 a year).
    Expect: spend-limit not pass."""
    found = run(pack, [vmss("a100", "Standard_NC24ads_A100_v4", 2.0),
                       az_budget(24000.0, timeGrain="Annually")], provider=AZ)
    assert verdict(found, SPEND) != "pass", messages(found, SPEND)


def test_r6_aws_budget_filtered_to_another_region_is_no_alarm(pack):
    """A budget with costFilters Region = eu-west-1 beside a p4d group in us-east-1.
    Expect: spend-limit fail (no budget covers the group)."""
    b = aws_budget("50000", costFilters=[{"name": "Region", "values": ["eu-west-1"]}])
    found = run(pack, p4d_group() + [b], provider=AWS)
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)


def test_r7_gcp_budget_in_cny_is_not_read_as_usd(pack):
    """A GCP budget of 100,000 CNY (13,748.73 USD at fx.csv's 7.2734 CNY per USD) over an
    a3-highgpu-8g VM, 88.49 x 730 = 64,597.70 USD a month. Read as USD it would pass.
    Expect: spend-limit not pass (fail once converted, or undecided)."""
    found = run(pack, [gvm("a3", "a3-highgpu-8g"), gcp_budget("100000", currency="CNY")],
                provider=GCP)
    assert verdict(found, SPEND) != "pass", messages(found, SPEND)


def test_r8_ack_node_pool_desired_size_as_string(pack):
    """An ACK node pool without autoscaling, desiredSize "3" (the provider's string type),
    ecs.gn7i-c16g1.4xlarge on a eu-central-1a vSwitch.
    Expect: estimate 3 x 2.71098 x 730 = 5,937.05."""
    sw = vsw("vsw-a", "eu-central-1a")
    pool = res("alicloud:cs/nodePool:NodePool", "a10-fixed", {
        "clusterId": "c8f2a1b3c4d5e6f708192a3b4c5d6e7f8", "nodePoolName": "a10",
        "vswitchIds": ["vsw-id"], "instanceTypes": ["ecs.gn7i-c16g1.4xlarge"],
        "desiredSize": "3", "systemDiskCategory": "cloud_essd", "tags": TAGS},
        deps={"vswitchIds": [sw]})
    assert near(estimate(pack, [sw, pool], ALI), 3 * GN7I_16 * MONTH)


def test_r9_gke_pool_total_max_node_count(pack):
    """A regional GKE pool over us-central1-a/b, autoscaling totalMaxNodeCount 6 (a total over
    all zones), n1-standard-4 + 1 nvidia-tesla-t4.
    Expect: estimate 6 x (0.19 + 0.35) x 730 = 2,365.20."""
    pool = res("gcp:container/nodePool:NodePool", "t4-pool", {
        "cluster": "projects/ml-prod/locations/us-central1/clusters/serve",
        "location": "us-central1", "nodeLocations": ["us-central1-a", "us-central1-b"],
        "autoscaling": {"totalMinNodeCount": 0.0, "totalMaxNodeCount": 6.0,
                        "locationPolicy": "ANY"},
        "nodeConfig": {"machineType": "n1-standard-4", "labels": LABELS,
                       "guestAccelerators": [{"type": "nvidia-tesla-t4", "count": 1.0}]}})
    assert near(estimate(pack, [pool], GCP), 6 * (N1S4 + T4) * MONTH)


def test_r10_gke_zonal_pool_of_n1_with_two_t4s(pack):
    """A zonal GKE pool (us-central1-a) of nodeCount 2, n1-standard-16 + 2 nvidia-tesla-t4.
    n1-standard-16 0.759996. Expect: estimate 2 x (0.759996 + 0.70) x 730 = 2,131.59."""
    pool = res("gcp:container/nodePool:NodePool", "t4x2-pool", {
        "cluster": "projects/ml-prod/locations/us-central1-a/clusters/train",
        "location": "us-central1-a", "nodeCount": 2.0,
        "nodeConfig": {"machineType": "n1-standard-16", "labels": LABELS,
                       "guestAccelerators": [{"type": "nvidia-tesla-t4", "count": 2.0}]}})
    assert near(estimate(pack, [pool], GCP), 2 * (0.759996 + 2 * T4) * MONTH)


def test_r11_eks_node_group_with_launch_template_by_name(pack):
    """An EKS node group whose launchTemplate names the stack's template by name (not id), the
    template carrying g6e.2xlarge, scalingConfig max 3.
    Expect: estimate 3 x 2.24208 x 730 = 4,910.16."""
    s = subnet("eks-a", "us-east-1a")
    t = lt("g6e-lt", "g6e.2xlarge")
    ng = res("aws:eks/nodeGroup:NodeGroup", "l40s-ng", {
        "clusterName": "train", "nodeRoleArn": "arn:aws:iam::123456789012:role/ng",
        "subnetIds": ["subnet-id"], "capacityType": "ON_DEMAND",
        "scalingConfig": {"minSize": 0.0, "maxSize": 3.0, "desiredSize": 1.0},
        "launchTemplate": {"name": "g6e-lt-7f3a", "version": "1"}, "tags": TAGS},
        deps={"launchTemplate": [t], "subnetIds": [s]})
    assert near(estimate(pack, [s, t, ng], AWS), 3 * 2.24208 * MONTH)


def test_r12_gcp_reservation_of_one_t4_does_not_take_a_vm_with_two(pack):
    """A reservation of 1 x (n1-standard-8 + 1 T4) in us-central1-a and a VM n1-standard-8 +
    2 T4 there: the VM does not match the reservation's properties, so both bill.
    Expect: estimate (0.38 + 0.35) x 730 + (0.38 + 0.70) x 730 = 532.90 + 788.40 = 1,321.30."""
    r = res("gcp:compute/reservation:Reservation", "t4-res", {
        "name": "t4-res", "zone": "us-central1-a", "specificReservation": {
            "count": 1.0, "instanceProperties": {
                "machineType": "n1-standard-8", "guestAccelerators": [
                    {"acceleratorType": "nvidia-tesla-t4", "acceleratorCount": 1.0}]}}})
    vm = gvm("t4x2", "n1-standard-8", guestAccelerators=[{"type": "nvidia-tesla-t4",
                                                           "count": 2.0}])
    assert near(estimate(pack, [r, vm], GCP), (0.38 + T4) * MONTH + (0.38 + 2 * T4) * MONTH)


def test_r13_aws_native_launch_template_public_ip(pack):
    """An aws-native launch template whose networkInterfaces[0].associatePublicIpAddress is
    true, used by an aws-native group of g5.12xlarge on a private subnet.
    Expect: no-public-ingress fail."""
    s = subnet("a", "us-east-1a")
    t = res("aws-native:ec2:LaunchTemplate", "pub-lt", {"launchTemplateData": {
        "instanceType": "g5.12xlarge", "imageId": "ami-0a1b2c3d4e5f60718",
        "networkInterfaces": [{"deviceIndex": 0, "associatePublicIpAddress": True,
                               "subnetId": "subnet-id", "groups": ["sg-0aaa1111"]}]}},
        deps={"launchTemplateData": [s]})
    g = res("aws-native:autoscaling:AutoScalingGroup", "pub", {
        "minSize": "0", "maxSize": "2", "desiredCapacity": "2",
        "launchTemplate": {"launchTemplateId": "lt-id", "version": "1"},
        "vpcZoneIdentifier": ["subnet-id"]},
        deps={"launchTemplate": [t], "vpcZoneIdentifier": [s]})
    found = run(pack, [s, t, g, aws_budget()], provider=AWS)
    assert verdict(found, NPI) == "fail", messages(found, NPI)


def test_r14_ess_configuration_with_public_bandwidth(pack):
    """An ESS scaling configuration of ecs.gn7i-c8g1.2xlarge with internetMaxBandwidthOut 100
    (every node gets a public IPv4 address). Expect: no-public-ingress fail."""
    sw = vsw("vsw-a", "eu-central-1a")
    stack = [sw, *ess_group("a10", "ecs.gn7i-c8g1.2xlarge", [sw], 2,
                            internetMaxBandwidthOut=100.0,
                            internetChargeType="PayByTraffic")]
    found = run(pack, stack, provider=ALI)
    assert verdict(found, NPI) == "fail", messages(found, NPI)


def test_r15_ack_node_pool_with_public_bandwidth(pack):
    """An ACK node pool of ecs.gn7i-c16g1.4xlarge with internetChargeType PayByTraffic and
    internetMaxBandwidthOut 10 (each node gets a public IP). Expect: no-public-ingress fail."""
    sw = vsw("vsw-a", "eu-central-1a")
    pool = res("alicloud:cs/nodePool:NodePool", "a10-pub", {
        "clusterId": "c8f2a1b3c4d5e6f708192a3b4c5d6e7f8", "nodePoolName": "a10",
        "vswitchIds": ["vsw-id"], "instanceTypes": ["ecs.gn7i-c16g1.4xlarge"],
        "desiredSize": "2", "internetChargeType": "PayByTraffic",
        "internetMaxBandwidthOut": 10.0, "tags": TAGS}, deps={"vswitchIds": [sw]})
    found = run(pack, [sw, pool], provider=ALI)
    assert verdict(found, NPI) == "fail", messages(found, NPI)


# ============================================== Round 3 (written, committed, then run)

def test_s1_azure_budget_filtered_to_the_nodes_team_tag_covers_them(pack):
    """A subscription budget of 20,000 filtered to tag team In [ml]; the GPU scale set (2
    Standard_NC24ads_A100_v4, 5,362.58 a month) carries team=ml.
    Expect: spend-limit pass."""
    b = az_budget(20000.0, filter={"tags": {"name": "team", "operator": "In",
                                            "values": ["ml"]}})
    found = run(pack, [vmss("a100", "Standard_NC24ads_A100_v4", 2.0), b], provider=AZ)
    assert verdict(found, SPEND) == "pass", messages(found, SPEND)


def test_s2_gcp_budget_filtered_to_the_vms_label_covers_it(pack):
    """A 10,000 USD budget whose budgetFilter.labels is {team: ml}; the a2-highgpu-1g VM
    (2,681.57 a month) is labelled team=ml. Expect: spend-limit pass."""
    b = gcp_budget("10000", budgetFilter={"labels": {"team": "ml"}})
    found = run(pack, [gvm("a2", "a2-highgpu-1g"), b], provider=GCP)
    assert verdict(found, SPEND) == "pass", messages(found, SPEND)


def test_s3_gcp_budget_filtered_to_another_teams_label_is_no_alarm(pack):
    """The same budget filtered to {team: data} while the VM is labelled team=ml.
    Expect: spend-limit fail (no budget covers the VM)."""
    b = gcp_budget("10000", budgetFilter={"labels": {"team": "data"}})
    found = run(pack, [gvm("a2", "a2-highgpu-1g"), b], provider=GCP)
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)


def test_s4_azure_native_vm_with_a_public_ip_on_its_nic(pack):
    """azure-native: a PublicIPAddress on the ip configuration of a NetworkInterface that an
    azure-native VirtualMachine (Standard_NC40ads_H100_v5) uses. Expect: no-public-ingress
    fail."""
    pip = res("azure-native:network:PublicIPAddress", "vm-pip", {
        "resourceGroupName": "ml-rg", "location": "eastus",
        "publicIPAllocationMethod": "Static", "sku": {"name": "Standard"}, "tags": TAGS})
    nic = res("azure-native:network:NetworkInterface", "vm-nic", {
        "resourceGroupName": "ml-rg", "location": "eastus", "tags": TAGS,
        "ipConfigurations": [{"name": "ipconfig1", "subnet": {"id": "subnet-id"},
                              "privateIPAllocationMethod": "Dynamic",
                              "publicIPAddress": {"id": "pip-id"}}]},
        deps={"ipConfigurations": [pip]})
    vm = res("azure-native:compute:VirtualMachine", "h100-vm", {
        "resourceGroupName": "ml-rg", "location": "eastus", "zones": ["1"],
        "hardwareProfile": {"vmSize": "Standard_NC40ads_H100_v5"},
        "networkProfile": {"networkInterfaces": [{"id": "nic-id", "primary": True}]},
        "osProfile": {"computerName": "h100", "adminUsername": "azureuser"},
        "tags": TAGS}, deps={"networkProfile": [nic]})
    found = run(pack, [pip, nic, vm, az_budget()], provider=AZ)
    assert verdict(found, NPI) == "fail", messages(found, NPI)


def test_s5_azure_native_vm_inside_a_capacity_reservation_once(pack):
    """An azure-native capacity reservation of 1 Standard_NC40ads_H100_v5 in zone 1 and one
    azure-native VirtualMachine of that size in zone 1 associated with its group.
    Expect: estimate 6.98 x 730 = 5,095.40 (once)."""
    crg = res("azure-native:compute:CapacityReservationGroup", "crg", {
        "resourceGroupName": "ml-rg", "location": "eastus", "zones": ["1"], "tags": TAGS})
    cr = res("azure-native:compute:CapacityReservation", "cr", {
        "resourceGroupName": "ml-rg", "capacityReservationGroupName": "crg-name",
        "location": "eastus", "zones": ["1"],
        "sku": {"name": "Standard_NC40ads_H100_v5", "capacity": 1.0}, "tags": TAGS},
        deps={"capacityReservationGroupName": [crg]})
    vm = res("azure-native:compute:VirtualMachine", "h100-vm", {
        "resourceGroupName": "ml-rg", "location": "eastus", "zones": ["1"],
        "hardwareProfile": {"vmSize": "Standard_NC40ads_H100_v5"},
        "capacityReservation": {"capacityReservationGroup": {"id": "crg-id"}},
        "networkProfile": {"networkInterfaces": [{"id": "nic-id", "primary": True}]},
        "tags": TAGS}, deps={"capacityReservation": [crg]})
    assert near(estimate(pack, [crg, cr, vm], AZ), NC40H * MONTH)


def test_s6_g6e_48xlarge_is_priced(pack):
    """One g6e.48xlarge (8 L40S) in us-east-1 (prices.csv row 30.1312).
    Expect: estimate 30.1312 x 730 = 21,995.78."""
    assert near(estimate(pack, [ec2("l40sx8", "g6e.48xlarge")], AWS), 30.1312 * MONTH)


def test_s7_gcp_accelerator_count_as_a_string_is_never_fewer(pack):
    """An n1-standard-8 VM with guestAccelerators count "2" (text from config) and a 700 USD
    budget: with 2 T4s it is (0.38 + 0.70) x 730 = 788.40 > 700 (with 1, 532.90 would pass).
    Expect: spend-limit not pass."""
    vm = gvm("t4", "n1-standard-8", guestAccelerators=[{"type": "nvidia-tesla-t4",
                                                         "count": "2"}])
    found = run(pack, [vm, gcp_budget("700")], provider=GCP)
    assert verdict(found, SPEND) != "pass", messages(found, SPEND)


def test_s8_aks_agent_pool_max_count_that_is_no_number(pack):
    """An azure-native AgentPool autoscaling 1..maxCount "ten" (no number), a 50,000 budget.
    Expect: spend-limit not pass (the size cannot be read; never counted as 1 or 0)."""
    pool = res("azure-native:containerservice:AgentPool", "t4pool", {
        "resourceGroupName": "ml-rg", "resourceName": "aks-train", "agentPoolName": "t4",
        "vmSize": "Standard_NC16as_T4_v3", "count": 1.0, "enableAutoScaling": True,
        "minCount": 1.0, "maxCount": "ten", "mode": "User", "tags": TAGS})
    found = run(pack, [pool, az_budget(50000.0)], provider=AZ)
    assert verdict(found, SPEND) != "pass", messages(found, SPEND)


def test_s9_aws_auto_adjusting_budget_is_undecided(pack):
    """An AWS budget with autoAdjustData HISTORICAL (the limit is computed by AWS from the last
    3 months; no limitAmount in the program) beside a p4d group.
    Expect: spend-limit undecided (the cap is not known at preview; not pass, not "no
    budget")."""
    b = res("aws:budgets/budget:Budget", "auto", {
        "budgetType": "COST", "timeUnit": "MONTHLY",
        "autoAdjustData": {"autoAdjustType": "HISTORICAL",
                           "historicalOptions": {"budgetAdjustmentPeriod": 3.0}},
        "notifications": AWS_ALERTS, "tags": TAGS})
    found = run(pack, p4d_group() + [b], provider=AWS)
    assert verdict(found, SPEND) == "undecided", messages(found, SPEND)


def test_s10_regional_mig_any_single_zone_against_a_zonal_lustre(pack):
    """A regional MIG of 2 a2-highgpu-1g over us-central1-a/b/c with
    distributionPolicyTargetShape ANY_SINGLE_ZONE (GCP picks one zone at creation), mounting a
    Managed Lustre in us-central1-a: the zone chosen may be b or c.
    Expect: storage-same-zone not pass (fail or undecided)."""
    fs = glustre("scratch", "us-central1-a")
    t = gtemplate("a2-tpl", "a2-highgpu-1g", mounts=[fs])
    r = res("gcp:compute/regionInstanceGroupManager:RegionInstanceGroupManager", "a2-train", {
        "region": "us-central1", "baseInstanceName": "a2", "targetSize": 2.0,
        "distributionPolicyZones": ["us-central1-a", "us-central1-b", "us-central1-c"],
        "distributionPolicyTargetShape": "ANY_SINGLE_ZONE",
        "versions": [{"instanceTemplate": "tpl-id", "name": "primary"}]},
        deps={"versions": [t]})
    found = run(pack, [fs, t, r, gcp_budget("50000")], provider=GCP)
    assert verdict(found, SSZ) != "pass", messages(found, SSZ)
