"""Issue 35, a fresh BLIND hostile review (helper review40): NEW stacks written the way teams
write Pulumi programs on the four clouds, driven over gRPC as `pulumi preview --policy-pack`
drives the pack (tests/policy_harness.py). The pack's rule code was not read: the cases come
from the issue's classes and docs/policies.md's promises ("Sizes", "Lifetimes", "Budgets",
storage-same-zone's per-cluster scope, no-public-ingress's scope) and the providers' registry
pages. No stack of review35*-39*, edges35*, fix37*, fix38, fix39 is reused; only the small
builders and the verdict reader of test_policy_review35f.py / test_policy_review38.py are
imported.

Each docstring gives the expected verdict BEFORE the first run: the policy, "pass", "fail" (a
mandatory violation), "undecided" ("cannot decide"), or "not pass" (either), and the figure
where a price is involved, worked by hand from policies/catalog_data/prices.csv rows (on-demand
USD/h; each row cites its own public source), A month is 730 h:
  aws us-east-1: g6e.xlarge 1.861; g6e.12xlarge 10.4926; g6.xlarge 0.8048; g6.12xlarge 4.6016;
    g5.2xlarge 1.212; g5.xlarge 1.006; inf2.xlarge 0.7582; trn1.32xlarge 21.5; p3.2xlarge 3.06;
    gr6.4xlarge 1.5392; p5.48xlarge 55.04 (spot 55.04). aws eu-central-1: g6.xlarge 1.0064.
  gcp us-central1: g2-standard-4 0.706832; g2-standard-8 0.853624; g2-standard-48 4.00167;
    a2-ultragpu-1g 5.0688; a3-highgpu-8g 88.49; us-east4: a2-ultragpu-1g 5.70773;
    europe-west4: g2-standard-48 4.20595. gcp_attached_gpus.csv us-central1: n1-standard-8
    0.38, nvidia-tesla-t4 0.35.
  azure eastus: Standard_NC4as_T4_v3 0.526; Standard_NV36ads_A10_v5 3.2;
    Standard_NC40ads_H100_v5 6.98; Standard_NC24ads_A100_v4 3.673. westus2:
    Standard_NV6ads_A10_v5 0.454. westeurope: Standard_NC40ads_H100_v5 9.08.
  alibaba eu-central-1: ecs.gn7i-c8g1.2xlarge 2.56083; ecs.gn7i-c16g1.4xlarge 2.71098;
    ecs.gn7i-c32g1.8xlarge 3.01127.
  fx.csv: 7.2734 CNY per USD.

Classes (issue 35): A capacity counted once, B capacity blocks, C compute the pack must see,
D stops that do not stop, E budgets that do not cover, F malformed values, G scope, H literal
ids, I public exposure, J configuration, K catalog reach, M several clouds in one stack, R a
second round of the same classes.

Results. Three rounds, each committed with its expectations before its first run (6d347aa: 80
cases; 16f4256: 8 r-cases replacing 8 agreed ones, a5 b2 d13 e7 f7 i2 j3 k6; f7348da: 8
t-cases replacing a6 c2 d10 d12 f6 h6 k9 j7; the dropped ones are in 6d347aa). Round 1: 79
agreed, 1 disagreement, the pack's: e4. Round 2: 6 agreed, 2 the pack's: r1, r2. Round 3: 5
agreed, 3 the pack's: t1, t4, t7. No mistake of mine was found. All six are one class (a
budget filtered by tag or label is judged on tags/labels the GPU instances do not carry:
launch-template resource tags, non-propagated ASG tags, provider default tags under an ASG, a
template's labels under a MIG's allInstancesConfig) and are strict xfails. Planted in my helpers: _fixed_off ignoring end_days (d6 failed) and _on setting no
provider (e13 failed).
"""
from __future__ import annotations

import json
import math
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
    subnet,
    verdict,
    vmss,
    vsw,
)
from tests.policies.test_policy_review38 import _crg, _cr, _greservation, _odcr
from tests.policy_fixtures import AZURE_ALERTS, hours_from_now, res
from tests.policy_harness import run
from trainstack_policies.model import UNKNOWN

ALI = {"region": "eu-central-1"}
G6E_1, G6E_12, G6_1, G6_12 = 1.861, 10.4926, 0.8048, 4.6016
G5_2, INF2_1, TRN1_32, P3_2, GR6_4, P5 = 1.212, 0.7582, 21.5, 3.06, 1.5392, 55.04
G2_4, G2_8, G2_48, A2U_1, A3_8 = 0.706832, 0.853624, 4.00167, 5.0688, 88.49
NC4T4, NV36, NC40H, NC24 = 0.526, 3.2, 6.98, 3.673
GN7I_8, GN7I_16, GN7I_32_8 = 2.56083, 2.71098, 3.01127
CNY_PER_USD = 7.2734


def _now():
    return datetime.now(timezone.utc)


def _lifetime_ok(got, rate, hours):
    """Lifetimes are priced in whole hours rounded up (docs: never below the truth)."""
    return rate * hours - 2 <= got <= rate * math.ceil(hours) + 2


def _on(provider, *resources):
    for r in resources:
        r.provider = dict(provider)
    return list(resources)


def _g6_12_group(label="g6", size=2, zone="us-east-1a"):
    s = subnet(f"{label}-sn", zone)
    t = lt(f"{label}-lt", "g6.12xlarge")
    return [s, t, asg(label, t, [s], size)]


def _asg_sched(name, group, start_h, mn, mx, desired, **p):
    return res("aws:autoscaling/schedule:Schedule", name, {
        "scheduledActionName": name, "autoscalingGroupName": "asg-name",
        "startTime": hours_from_now(start_h), "minSize": float(mn), "maxSize": float(mx),
        "desiredCapacity": float(desired), **p}, deps={"autoscalingGroupName": [group]})


def _scheduler(name, action, instance, when, state="ENABLED", **p):
    return res("aws:scheduler/schedule:Schedule", name, {
        "scheduleExpression": when, "scheduleExpressionTimezone": "UTC", "state": state,
        "flexibleTimeWindow": {"mode": "OFF"},
        "target": {"arn": f"arn:aws:scheduler:::aws-sdk:ec2:{action}",
                   "roleArn": "arn:aws:iam::123456789012:role/sched",
                   "input": json.dumps({"InstanceIds": ["i-id"]})}, **p},
        deps={"target": [instance]})


def _az_vm(name, size, zone="1", deps=None, **p):
    return res("azure-native:compute:VirtualMachine", name, {
        "resourceGroupName": "ml-rg", "location": "eastus", "zones": [zone],
        "hardwareProfile": {"vmSize": size},
        "storageProfile": {"imageReference": {"publisher": "microsoft-dsvm",
                                              "offer": "ubuntu-hpc", "sku": "2204",
                                              "version": "latest"}},
        "networkProfile": {"networkInterfaces": [{"id": "nic-id", "primary": True}]},
        "osProfile": {"computerName": name, "adminUsername": "azureuser"},
        "tags": TAGS, **p}, deps=deps or {})


def _profile(name, n, **p):
    return {"name": name, "capacity": {"minimum": str(n), "maximum": str(n), "default": str(n)},
            "rules": [], **p}


def _autoscale(target, profiles, enabled=True):
    props = {"resourceGroupName": "ml-rg", "location": "eastus", "targetResourceUri": "vmss-id",
             "profiles": profiles}
    if enabled is not None:
        props["enabled"] = enabled
    return res("azure-native:monitor:AutoscaleSetting", f"{target.name}-as", props,
               deps={"targetResourceUri": [target]})


def _config_refused(pack, policy, key, value):
    config = pack.cli_config()
    config.setdefault(policy, {})[key] = value
    with pytest.raises(grpc.RpcError) as err:
        pack.send_config(config)
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT, err.value.details()
    return err.value.details()


# ============================================== A. capacity counted once

def test_a1_open_odcr_larger_than_its_group(pack):
    """An open ODCR of 3 g6e.12xlarge in us-east-1a and an on-demand ASG of max 2 g6e.12xlarge
    in a us-east-1a subnet (default preference open): the group runs inside the reservation,
    which bills all 3. Expect: estimate 3 x 10.4926 x 730 = 22,978.79 (not 5 x)."""
    cr = _odcr("g6e-open", "g6e.12xlarge", 3)
    s = subnet("a1-sn", "us-east-1a")
    t = lt("a1-lt", "g6e.12xlarge")
    assert near(estimate(pack, [cr, s, t, asg("a1", t, [s], 2)], AWS), 3 * G6E_12 * MONTH)


def test_a3_dedicated_odcr_does_not_take_default_tenancy_instances(pack):
    """An open ODCR of 2 g6.12xlarge with tenancy dedicated, and two default-tenancy
    g6.12xlarge instances in us-east-1a: tenancy does not match, both bill.
    Expect: estimate 4 x 4.6016 x 730 = 13,436.67."""
    cr = _odcr("ded", "g6.12xlarge", 2, tenancy="dedicated")
    vms = [ec2(f"a3-{i}", "g6.12xlarge") for i in range(2)]
    assert near(estimate(pack, [cr, *vms], AWS), 4 * G6_12 * MONTH)


def test_a4_spot_instances_beside_open_odcr_bill_apart(pack):
    """An open ODCR of 2 p5.48xlarge in us-east-1a and two p5.48xlarge spot instances there
    (instanceMarketOptions marketType spot): spot nodes use no reservation.
    Expect: estimate 2 x 55.04 x 730 + 2 x 55.04 (spot row) x 730 = 160,716.80."""
    cr = _odcr("p5-open", "p5.48xlarge", 2)
    vms = [ec2(f"p5s-{i}", "p5.48xlarge", instanceMarketOptions={"marketType": "spot"})
           for i in range(2)]
    assert near(estimate(pack, [cr, *vms], AWS), 4 * P5 * MONTH, slack=5)


def test_a7_classic_azure_capacity_reservation_needs_a_budget(pack):
    """A classic azure CapacityReservationGroup and CapacityReservation of 2
    Standard_NC40ads_H100_v5 (zone 1), nothing else, no budget: a reservation bills whether
    used or not. Expect: spend-limit fail (no budget alarm)."""
    g = res("azure:compute/capacityReservationGroup:CapacityReservationGroup", "h100-crg", {
        "resourceGroupName": "ml-rg", "location": "eastus", "zones": ["1"], "tags": TAGS})
    cr = res("azure:compute/capacityReservation:CapacityReservation", "h100-cr", {
        "capacityReservationGroupId": "crg-id", "zone": "1",
        "sku": {"name": "Standard_NC40ads_H100_v5", "capacity": 2.0}, "tags": TAGS},
        deps={"capacityReservationGroupId": [g]})
    found = run(pack, [g, cr], provider=AZ)
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)


def test_a8_azure_native_vm_in_its_capacity_reservation_once(pack):
    """An azure-native capacity reservation of 2 Standard_NC40ads_H100_v5 and one VM of that
    size whose capacityReservation names the group (dependency): the VM is inside.
    Expect: estimate 2 x 6.98 x 730 = 10,190.80."""
    crg = _crg("h100g")
    cr = _cr(crg, "Standard_NC40ads_H100_v5", 2, name="h100r")
    vm = _az_vm("h100vm", "Standard_NC40ads_H100_v5", deps={"capacityReservation": [crg]},
                capacityReservation={"capacityReservationGroup": {"id": "crg-id"}})
    assert near(estimate(pack, [crg, cr, vm, az_budget()], AZ), 2 * NC40H * MONTH)


def test_a9_alibaba_unlimited_reservation_with_a_released_instance(pack):
    """An Alibaba capacity reservation of 1 ecs.gn7i-c32g1.8xlarge, endTimeType Unlimited, and
    a pay-as-you-go instance targeting it with autoReleaseTime +24 h: the reservation bills
    with no end and Alibaba has no budget resource. Expect: spend-limit fail."""
    cr = res("alicloud:ecs/capacityReservation:CapacityReservation", "g32-cr", {
        "instanceType": "ecs.gn7i-c32g1.8xlarge", "instanceAmount": 1.0,
        "zoneIds": ["eu-central-1a"], "endTimeType": "Unlimited", "matchCriteria": "Target",
        "platform": "linux", "tags": TAGS})
    sw = vsw("a9-sw")
    i = ecs("g32-in", "ecs.gn7i-c32g1.8xlarge", switch=sw, release="24h",
            privatePoolOptionsMatchCriteria="Target", privatePoolOptionsId="crp-id")
    i.deps["privatePoolOptionsId"] = [cr]
    found = run(pack, [cr, sw, i], provider=ALI)
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)


# ============================================== B. capacity blocks

def _bought_block(name="blk"):
    return res("aws:ec2/capacityBlockReservation:CapacityBlockReservation", name, {
        "capacityBlockOfferingId": "cb-0123456789abcdef0", "instancePlatform": "Linux/UNIX",
        "tags": TAGS})


def test_b3_block_group_fee_plus_an_on_demand_group(pack):
    """An ASG of 2 p5.48xlarge launched into a capacity block (launch template
    instanceMarketOptions.marketType capacity-block), fee 40,000 for the group "blkgrp", and
    another ASG of 2 g6.xlarge on demand. Expect: estimate 40,000 + 2 x 0.8048 x 730 =
    41,175.01."""
    s = subnet("b3-sn", "us-east-1a")
    t = lt("b3-lt", "p5.48xlarge", instanceMarketOptions={"marketType": "capacity-block"},
           capacityReservationSpecification={"capacityReservationTarget": {
               "capacityReservationId": "cr-0b1c2d3e4f5a6b7c8"}})
    t2 = lt("b3-lt2", "g6.xlarge")
    stack = [s, t, asg("blkgrp", t, [s], 2), t2, asg("od", t2, [s], 2), aws_budget("100000")]
    assert near(estimate(pack, stack, AWS, {"capacityBlockFeesUsd": {"blkgrp": 40000}}),
                40000 + 2 * G6_1 * MONTH)


# ============================================== C. compute the pack must see

def test_c1_spot_instance_request_without_budget(pack):
    """An aws.ec2.SpotInstanceRequest of g6e.xlarge in a private subnet, no budget.
    Expect: spend-limit fail (no budget alarm on AWS)."""
    s = subnet("c1-sn", "us-east-1a")
    sir = res("aws:ec2/spotInstanceRequest:SpotInstanceRequest", "c1-spot", {
        "ami": "ami-0a1b2c3d4e5f60718", "instanceType": "g6e.xlarge", "subnetId": "subnet-id",
        "spotType": "persistent", "associatePublicIpAddress": False, "tags": TAGS},
        deps={"subnetId": [s]})
    found = run(pack, [s, sir], provider=AWS)
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)


def test_c3_ec2_fleet_zone_from_override_subnet_against_fsx(pack):
    """An EC2 Fleet whose launch template (g6.12xlarge) mounts an FSx for Lustre in a
    us-east-1a subnet, the fleet's override subnet in us-east-1b.
    Expect: storage-same-zone fail (the filesystem is not in the nodes' zone)."""
    sa, sb = subnet("c3-a", "us-east-1a"), subnet("c3-b", "us-east-1b")
    fs = fsx("c3-fs", sa)
    t = lt("c3-lt", "g6.12xlarge", mounts=[fs])
    fl = res("aws:ec2/fleet:Fleet", "c3-fleet", {
        "type": "maintain", "launchTemplateConfigs": [{
            "launchTemplateSpecification": {"launchTemplateId": "lt-id", "version": "$Latest"},
            "overrides": [{"subnetId": "subnet-b", "instanceType": "g6.12xlarge"}]}],
        "targetCapacitySpecification": {"totalTargetCapacity": 2.0,
                                        "defaultTargetCapacityType": "on-demand"},
        "tags": TAGS}, deps={"launchTemplateConfigs": [t, sb]})
    found = run(pack, [sa, sb, fs, t, fl, aws_budget()], provider=AWS)
    assert verdict(found, SSZ) == "fail", messages(found, SSZ)


def test_c4_n1_with_two_attached_t4(pack):
    """A GCP n1-standard-8 VM in us-central1-a with guestAccelerators 2 x nvidia-tesla-t4.
    Expect: estimate (0.38 + 2 x 0.35) x 730 = 788.40."""
    vm = gvm("c4", "n1-standard-8", guestAccelerators=[{"type": "nvidia-tesla-t4",
                                                         "count": 2.0}])
    assert near(estimate(pack, [vm], GCP), (0.38 + 2 * 0.35) * MONTH)


def test_c6_azure_ml_compute_at_max_nodes(pack):
    """azure-native machinelearningservices Compute (AmlCompute) of Standard_NC24ads_A100_v4,
    scaleSettings maxNodeCount 4, a subscription budget. Expect: estimate 4 x 3.673 x 730 =
    10,725.16."""
    c = res("azure-native:machinelearningservices:Compute", "c6-aml", {
        "resourceGroupName": "ml-rg", "workspaceName": "ws", "location": "eastus",
        "properties": {"computeType": "AmlCompute", "properties": {
            "vmSize": "Standard_NC24ads_A100_v4", "vmPriority": "Dedicated",
            "scaleSettings": {"maxNodeCount": 4.0, "minNodeCount": 0.0}}}, "tags": TAGS})
    assert near(estimate(pack, [c, az_budget()], AZ), 4 * NC24 * MONTH)


def test_c7_ack_gpu_node_pool_without_release(pack):
    """An alicloud:cs/nodePool of ecs.gn7i-c16g1.4xlarge, scalingConfig max 3, no
    autoReleaseTime anywhere (Alibaba has no budget resource). Expect: spend-limit fail."""
    np_ = res("alicloud:cs/nodePool:NodePool", "c7-pool", {
        "clusterId": "c-0123456789", "nodePoolName": "gpu",
        "vswitchIds": ["vsw-id"], "instanceTypes": ["ecs.gn7i-c16g1.4xlarge"],
        "scalingConfig": {"enable": True, "minSize": 0.0, "maxSize": 3.0},
        "systemDiskCategory": "cloud_essd", "tags": TAGS})
    found = run(pack, [np_], provider=ALI)
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)


def test_c8_classic_aks_pool_under_and_over_a_budget(pack):
    """A classic azure KubernetesCluster (CPU default pool, not in the catalog) and a
    KubernetesClusterNodePool of Standard_NC4as_T4_v3, autoscaling max 5: 5 x 0.526 x 730 =
    1,919.90. Expect: a subscription budget of 2,000 passes; one of 1,900 fails."""
    k = res("azure:containerservice/kubernetesCluster:KubernetesCluster", "c8-aks", {
        "resourceGroupName": "ml-rg", "location": "eastus", "dnsPrefix": "ml",
        "defaultNodePool": {"name": "sys", "vmSize": "Standard_D4s_v5", "nodeCount": 2.0},
        "identity": {"type": "SystemAssigned"}, "tags": TAGS})
    p = res("azure:containerservice/kubernetesClusterNodePool:KubernetesClusterNodePool",
            "c8-t4", {"kubernetesClusterId": "aks-id", "vmSize": "Standard_NC4as_T4_v3",
                      "autoScalingEnabled": True, "minCount": 0.0, "maxCount": 5.0,
                      "nodeCount": 1.0, "zones": ["1"], "tags": TAGS},
            deps={"kubernetesClusterId": [k]})
    ok = run(pack, [k, p, az_budget(2000.0)], provider=AZ)
    assert verdict(ok, SPEND) == "pass", messages(ok, SPEND)
    over = run(pack, [k, p, az_budget(1900.0)], provider=AZ)
    assert verdict(over, SPEND) == "fail", messages(over, SPEND)


# ============================================== D. stops that do not stop (and ones that do)

def test_d1_desired_zero_stop_beside_a_scaling_policy_is_a_pause(pack):
    """An ASG of 2 g6.12xlarge, a Schedule at +20 h with desired 0, min 0, maxSize -1 (keep
    the group's), and an aws.autoscaling.Policy on the group: the policy may raise desired up
    to the max. Expect: the month: 2 x 4.6016 x 730 = 6,718.34."""
    st = _g6_12_group("d1")
    stop = _asg_sched("d1-stop", st[2], 20, 0, -1, 0)
    pol = res("aws:autoscaling/policy:Policy", "d1-tt", {
        "autoscalingGroupName": "asg-name", "policyType": "TargetTrackingScaling",
        "targetTrackingConfiguration": {"targetValue": 60.0, "predefinedMetricSpecification": {
            "predefinedMetricType": "ASGAverageCPUUtilization"}}},
        deps={"autoscalingGroupName": [st[2]]})
    assert near(estimate(pack, st + [stop, pol], AWS), 2 * G6_12 * MONTH)


def test_d2_one_time_start_before_the_stop_changes_nothing(pack):
    """An ASG of 2 g6.12xlarge, a one-time Schedule at +10 h raising it to 2, and a stop
    Schedule (max/min/desired 0) at +20 h. Expect: 20 h: 2 x 4.6016 x 20 = 184.06."""
    st = _g6_12_group("d2")
    up = _asg_sched("d2-up", st[2], 10, 0, 2, 2)
    stop = _asg_sched("d2-stop", st[2], 20, 0, 0, 0)
    assert _lifetime_ok(estimate(pack, st + [up, stop], AWS), 2 * G6_12, 20)


def test_d3_one_time_start_after_the_stop_is_a_pause(pack):
    """The same stop at +20 h, and a one-time Schedule at +30 h raising the group to 2.
    Expect: the month: 6,718.34."""
    st = _g6_12_group("d3")
    stop = _asg_sched("d3-stop", st[2], 20, 0, 0, 0)
    up = _asg_sched("d3-up", st[2], 30, 0, 2, 2)
    assert near(estimate(pack, st + [stop, up], AWS), 2 * G6_12 * MONTH)


def _fixed_off(start_h, end_days):
    start = _now() + timedelta(hours=start_h)
    end = start + timedelta(days=end_days)
    return _profile("off", 0, fixedDate={"timeZone": "UTC",
                                         "start": start.strftime("%Y-%m-%dT%H:%M:%S"),
                                         "end": end.strftime("%Y-%m-%dT%H:%M:%S")})


def test_d4_azure_autoscale_without_enabled_stops_nothing(pack):
    """A scale set of 2 Standard_NV36ads_A10_v5 and an AutoscaleSetting that leaves `enabled`
    out (the API's default is false), with a fixedDate capacity-0 profile at +12 h for 60 days.
    Expect: the month: 2 x 3.2 x 730 = 4,672."""
    ss = vmss("d4", "Standard_NV36ads_A10_v5", 2.0)
    a = _autoscale(ss, [_profile("default", 2), _fixed_off(12, 60)], enabled=None)
    assert near(estimate(pack, [ss, a], AZ), 2 * NV36 * MONTH)


def test_d5_azure_fixed_date_off_past_the_month_is_a_lifetime(pack):
    """The same with enabled true: the capacity-0 window starts at +12 h (timeZone "UTC", a
    Windows zone id) and ends 60 days later, past the month. Expect: 12 h: 2 x 3.2 x 12 =
    76.80."""
    ss = vmss("d5", "Standard_NV36ads_A10_v5", 2.0)
    a = _autoscale(ss, [_profile("default", 2), _fixed_off(12, 60)])
    assert _lifetime_ok(estimate(pack, [ss, a], AZ), 2 * NV36, 12)


def test_d6_azure_fixed_date_off_ending_in_the_month_is_a_pause(pack):
    """The same window ending 10 days after it starts (within the month), beside a default
    profile of 2. Expect: the month: 4,672."""
    ss = vmss("d6", "Standard_NV36ads_A10_v5", 2.0)
    a = _autoscale(ss, [_profile("default", 2), _fixed_off(12, 10)])
    assert near(estimate(pack, [ss, a], AZ), 2 * NV36 * MONTH)


def test_d7_alibaba_release_time_that_does_not_parse(pack):
    """A pay-as-you-go ecs.gn7i-c8g1.2xlarge with autoReleaseTime "2026-13-45T99:00:00Z".
    Expect: spend-limit fail (no lifetime, no stand-in for the alarm)."""
    found = run(pack, [ecs("d7", release="2026-13-45T99:00:00Z")], provider=ALI)
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)


def test_d11_gcp_max_run_duration_stop_with_a_start_schedule(pack):
    """maxRunDuration 10 h with instanceTerminationAction STOP, and an instance schedule with a
    vmStartSchedule "0 8 * * *" attached: the VM starts again. Expect: the month: 5.0688 x 730
    = 3,700.22."""
    rp = res("gcp:compute/resourcePolicy:ResourcePolicy", "d11-rp", {
        "region": "us-central1", "instanceSchedulePolicy": {
            "vmStartSchedule": {"schedule": "0 8 * * *"}, "timeZone": "UTC"}})
    vm = gvm("d11", "a2-ultragpu-1g", resourcePolicies=["rp-id"], scheduling={
        "onHostMaintenance": "TERMINATE", "maxRunDuration": {"seconds": 36000.0},
        "instanceTerminationAction": "STOP"})
    vm.deps["resourcePolicies"] = [rp]
    assert near(estimate(pack, [rp, vm], GCP), A2U_1 * MONTH)


def test_d14_scheduler_rate_terminate_from_its_start_date(pack):
    """A trn1.32xlarge instance and a Scheduler terminateInstances rate(7 days) with startDate
    +5 h: its first run is at startDate. Expect: 5 h: 21.5 x 5 = 107.50."""
    i = ec2("d14", "trn1.32xlarge")
    s = _scheduler("d14-term", "terminateInstances", i, "rate(7 days)",
                   startDate=hours_from_now(5))
    assert _lifetime_ok(estimate(pack, [i, s], AWS), TRN1_32, 5)


def test_d15_eventbridge_rule_runs_the_stop_runbook(pack):
    """A gr6.4xlarge instance, an EventRule "cron(0 3 * * ? *)" (UTC) and an EventTarget
    running AWS-StopEC2Instance with an input depending on the instance.
    Expect: 1.5392 x hours to the next 03:00 UTC."""
    i = ec2("d15", "gr6.4xlarge")
    rule = res("aws:cloudwatch/eventRule:EventRule", "d15-rule", {
        "scheduleExpression": "cron(0 3 * * ? *)", "state": "ENABLED", "tags": TAGS})
    tgt = res("aws:cloudwatch/eventTarget:EventTarget", "d15-tgt", {
        "rule": "d15-rule", "arn": "arn:aws:ssm:us-east-1:123456789012:automation-definition/"
                                   "AWS-StopEC2Instance:$DEFAULT",
        "roleArn": "arn:aws:iam::123456789012:role/ssm",
        "input": json.dumps({"InstanceId": ["i-id"]})}, deps={"rule": [rule], "input": [i]})
    now = _now()
    nxt = now.replace(hour=3, minute=0, second=0, microsecond=0)
    if nxt <= now:
        nxt += timedelta(days=1)
    h = (nxt - now).total_seconds() / 3600
    assert _lifetime_ok(estimate(pack, [i, rule, tgt], AWS), GR6_4, h)


# ============================================== E. budgets that do not cover

def _g6_box(name="e-box"):
    return ec2(name, "g6.xlarge")


def test_e1_aws_budget_for_another_region(pack):
    """A g6.xlarge in us-east-1 and a COST budget whose costFilters Region is us-west-2.
    Expect: spend-limit fail (no budget alarm covers the GPU)."""
    b = aws_budget(costFilters=[{"name": "Region", "values": ["us-west-2"]}])
    found = run(pack, [_g6_box("e1"), b], provider=AWS)
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)


def test_e4_aws_tag_budget_covering_one_of_two_groups(pack):
    """Two ASGs of g6.xlarge, one tagged team=ml, the other team=vision, and one budget with
    TagKeyValue "user:team$ml". Expect: spend-limit fail (no alarm for the vision group)."""
    s = subnet("e4-sn", "us-east-1a")
    t1, t2 = lt("e4-lt1", "g6.xlarge"), lt("e4-lt2", "g6.xlarge")
    g1 = asg("e4-ml", t1, [s], 1)
    g2 = asg("e4-vision", t2, [s], 1, tags=[
        {"key": k, "value": ("vision" if k == "team" else v), "propagateAtLaunch": True}
        for k, v in TAGS.items()])
    b = aws_budget(costFilters=[{"name": "TagKeyValue", "values": ["user:team$ml"]}])
    found = run(pack, [s, t1, t2, g1, g2, b], provider=AWS)
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)
    assert "e4-vision" in messages(found, SPEND)


def test_e5_aws_budget_filter_unknown_at_preview(pack):
    """The only budget's costFilters hold a value unknown at preview. Expect: spend-limit
    undecided (not the cap; the alarm cannot be decided)."""
    b = aws_budget(costFilters=[{"name": "TagKeyValue", "values": [UNKNOWN]}])
    found = run(pack, [_g6_box("e5"), b], provider=AWS)
    assert verdict(found, SPEND) == "undecided", messages(found, SPEND)


def test_e6_gcp_budget_on_another_project_id(pack):
    """A g2-standard-4 VM in project ml-prod and a budget with budgetFilter.projects
    ["projects/research-sandbox"]. Expect: spend-limit fail."""
    b = gcp_budget(budgetFilter={"projects": ["projects/research-sandbox"]})
    found = run(pack, [gvm("e6", "g2-standard-4"), b], provider=GCP)
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)


def test_e8_gcp_budget_in_cny_converted(pack):
    """A 500,000 CNY budget: 500,000 / 7.2734 = 68,743.64 USD. One a3-highgpu-8g VM: 88.49 x
    730 = 64,597.70, under it: pass. Two: 129,195.40, over it: fail."""
    b = gcp_budget("500000", currency="CNY")
    one = run(pack, [gvm("e8a", "a3-highgpu-8g"), b], provider=GCP)
    assert verdict(one, SPEND) == "pass", messages(one, SPEND)
    two = run(pack, [gvm("e8a", "a3-highgpu-8g"), gvm("e8b", "a3-highgpu-8g"), b],
              provider=GCP)
    assert verdict(two, SPEND) == "fail", messages(two, SPEND)


def test_e9_gcp_budget_in_a_currency_without_a_rate(pack):
    """A budget in EUR (fx.csv cites no EUR rate) as the only budget. Expect: spend-limit
    undecided."""
    found = run(pack, [gvm("e9", "g2-standard-4"), gcp_budget("50000", currency="EUR")],
                provider=GCP)
    assert verdict(found, SPEND) == "undecided", messages(found, SPEND)


def test_e10_azure_budget_on_another_literal_resource_group(pack):
    """A scale set in resource group "ml-rg" (literal) and a budget scoped to
    <sub>/resourceGroups/web-rg. Expect: spend-limit fail (neither cap nor alarm)."""
    b = az_budget(scope=f"{SUB}/resourceGroups/web-rg")
    found = run(pack, [vmss("e10", "Standard_NC4as_T4_v3", 2.0), b], provider=AZ)
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)


def test_e13_azure_budget_on_another_subscription(pack):
    """The scale set's provider names subscriptionId 11111111-2222-4333-8444-555555555555; the
    budget is on SUB (another). Expect: spend-limit fail."""
    prov = {"location": "eastus", "subscriptionId": "11111111-2222-4333-8444-555555555555"}
    stack = _on(prov, vmss("e13", "Standard_NC4as_T4_v3", 2.0), az_budget())
    found = run(pack, stack, provider=None)
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)


def test_e14_azure_budget_tag_filter_leaves_the_scale_set_out(pack):
    """A subscription budget whose filter.tags is team In ["nlp"]; the scale set is tagged
    team=ml. Expect: spend-limit fail."""
    b = az_budget(filter={"tags": {"name": "team", "operator": "In", "values": ["nlp"]}})
    found = run(pack, [vmss("e14", "Standard_NC4as_T4_v3", 2.0), b], provider=AZ)
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)


# ============================================== F. malformed values

def test_f1_nan_max_size_beside_a_good_group(pack):
    """Two ASGs of g6.xlarge: one of maxSize 2, one of maxSize NaN; a big budget.
    Expect: spend-limit fail, naming the NaN group."""
    s = subnet("f1-sn", "us-east-1a")
    t = lt("f1-lt", "g6.xlarge")
    stack = [s, t, asg("f1-good", t, [s], 2), asg("f1-nan", t, [s], 2, maxSize=float("nan")),
             aws_budget("1000000")]
    found = run(pack, stack, provider=AWS)
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)
    assert "f1-nan" in messages(found, SPEND)


def test_f2_gcp_budget_units_infinite(pack):
    """A GCP budget whose units is "inf". Expect: spend-limit fail (an amount that does not
    read is a violation, never no cap)."""
    found = run(pack, [gvm("f2", "g2-standard-4"), gcp_budget("inf")], provider=GCP)
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)


def test_f3_negative_scale_set_capacity_beside_a_good_one(pack):
    """Two scale sets: 2 Standard_NC4as_T4_v3 and a decoy of capacity -3, a budget of 1,000
    (2 x 0.526 x 730 = 767.96 fits). Expect: spend-limit fail, naming the decoy."""
    stack = [vmss("f3-ok", "Standard_NC4as_T4_v3", 2.0),
             vmss("f3-neg", "Standard_NC4as_T4_v3", -3.0), az_budget(1000.0)]
    found = run(pack, stack, provider=AZ)
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)
    assert "f3-neg" in messages(found, SPEND)


def test_f4_cpfs_capacity_text_and_a_cross_zone_mount(pack):
    """A CPFS in eu-central-1b with capacity "lots", mounted (user data) by a gn7i instance on
    a eu-central-1a vSwitch. Expect: spend-limit fail (the capacity) and storage-same-zone
    fail (the zone), the one not hiding the other."""
    fs = cpfs("f4-cpfs", zone="eu-central-1b", capacity="lots")
    sw = vsw("f4-sw")
    i = ecs("f4", switch=sw, release="24h", mounts=[fs])
    found = run(pack, [fs, sw, i], provider=ALI)
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)
    assert verdict(found, SSZ) == "fail", messages(found, SSZ)


def test_f5_nan_gpu_count_does_not_hide_a_cross_zone_lustre(pack):
    """An n1-standard-8 VM with guestAccelerators count NaN, and a g2-standard-8 VM in
    us-central1-a mounting a Managed Lustre in us-central1-b. Expect: spend-limit not pass
    (the NaN VM) and storage-same-zone fail (the Lustre)."""
    bad = gvm("f5-nan", "n1-standard-8",
              guestAccelerators=[{"type": "nvidia-tesla-t4", "count": float("nan")}])
    lu = glustre("f5-lustre", "us-central1-b")
    vm = gvm("f5-g2", "g2-standard-8", metadata={"startup-script": "mount -t lustre"})
    vm.deps["metadata"] = [lu]
    found = run(pack, [bad, lu, vm, gcp_budget("1000000")], provider=GCP)
    assert verdict(found, SPEND) != "pass", messages(found, SPEND)
    assert verdict(found, SSZ) == "fail", messages(found, SSZ)


def test_f8_gcp_decoy_negative_target_size(pack):
    """Two MIGs of a3-highgpu-8g: one of targetSize 8 and a decoy of -7, a budget of
    1,000,000 (8 x 88.49 x 730 = 516,781.60 fits). Expect: spend-limit fail naming the
    decoy."""
    t = gtemplate("f8-tpl", "a3-highgpu-8g")
    stack = [t, mig("f8-big", t, "us-central1-a", 8), mig("f8-neg", t, "us-central1-a", -7),
             gcp_budget("1000000")]
    found = run(pack, stack, provider=GCP)
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)
    assert "f8-neg" in messages(found, SPEND)


def test_f9_spot_fleet_weight_zero(pack):
    """A Spot Fleet of g5.xlarge, targetCapacity 4, the only launch specification's
    weightedCapacity "0" (units per instance cannot be 0). Expect: spend-limit not pass."""
    s = subnet("f9-sn", "us-east-1a")
    f = res("aws:ec2/spotFleetRequest:SpotFleetRequest", "f9-sf", {
        "iamFleetRole": "arn:aws:iam::123456789012:role/fleet", "targetCapacity": 4.0,
        "launchSpecifications": [{"ami": "ami-0a1b2c3d4e5f60718", "instanceType": "g5.xlarge",
                                  "subnetId": "sn-id", "weightedCapacity": "0",
                                  "associatePublicIpAddress": False}], "tags": TAGS},
        deps={"launchSpecifications": [s]})
    found = run(pack, [s, f, aws_budget("1000000")], provider=AWS)
    assert verdict(found, SPEND) != "pass", messages(found, SPEND)


# ============================================== G. scope: same zone per cluster

def _aws_cluster(label, zone, fs_zone=None, fs_subnet=None):
    s = subnet(f"{label}-sn", zone)
    fs = fsx(f"{label}-fs", fs_subnet or s)
    t = lt(f"{label}-lt", "g6.12xlarge", mounts=[fs])
    return s, fs, t, asg(label, t, [s], 2)


def test_g1_two_clusters_in_one_vpc_each_with_its_own_fsx(pack):
    """Two ASGs of g6.12xlarge in one VPC, us-east-1a and us-east-1b, each mounting its own
    FSx in its own subnet. Expect: storage-same-zone pass."""
    found = run(pack, [*_aws_cluster("g1a", "us-east-1a"), *_aws_cluster("g1b", "us-east-1b"),
                       aws_budget()], provider=AWS)
    assert verdict(found, SSZ) == "pass", messages(found, SSZ)


def test_g2_two_clusters_with_swapped_mounts(pack):
    """The same, but the 1a group mounts the 1b FSx and the 1b group the 1a FSx.
    Expect: storage-same-zone fail."""
    sa, sb = subnet("g2a-sn", "us-east-1a"), subnet("g2b-sn", "us-east-1b")
    fa, fb = fsx("g2a-fs", sa), fsx("g2b-fs", sb)
    ta, tb = lt("g2a-lt", "g6.12xlarge", mounts=[fb]), lt("g2b-lt", "g6.12xlarge", mounts=[fa])
    found = run(pack, [sa, sb, fa, fb, ta, tb, asg("g2a", ta, [sa], 2),
                       asg("g2b", tb, [sb], 2), aws_budget()], provider=AWS)
    assert verdict(found, SSZ) == "fail", messages(found, SSZ)


def test_g3_lustre_mounted_only_by_cpu_vm(pack):
    """A Managed Lustre in us-central1-c mounted (metadata) only by an e2-standard-8 CPU VM in
    us-central1-c; a g2-standard-8 MIG in us-central1-a mounts nothing.
    Expect: storage-same-zone pass (CPU storage is not the GPUs')."""
    lu = glustre("g3-lu", "us-central1-c")
    cpu = gvm("g3-cpu", "e2-standard-8", zone="us-central1-c",
              metadata={"startup-script": "mount -t lustre"})
    cpu.deps["metadata"] = [lu]
    t = gtemplate("g3-tpl", "g2-standard-8")
    found = run(pack, [lu, cpu, t, mig("g3", t, "us-central1-a"), gcp_budget()], provider=GCP)
    assert verdict(found, SSZ) == "pass", messages(found, SSZ)


def test_g4_amlfs_used_by_cpu_scale_set_only(pack):
    """An Azure Managed Lustre in zone 2 whose mount the CPU scale set's customData depends
    on (Standard_D8s_v5, zone 2); a GPU scale set Standard_NC4as_T4_v3 in zone 1.
    Expect: storage-same-zone pass."""
    fs = res("azure-native:storagecache:AmlFilesystem", "g4-amlfs", {
        "resourceGroupName": "ml-rg", "location": "eastus", "zones": ["2"],
        "storageCapacityTiB": 8.0, "sku": {"name": "AMLFS-Durable-Premium-250"},
        "filesystemSubnet": f"{SUB}/resourceGroups/net-rg/providers/Microsoft.Network/"
                            "virtualNetworks/hub/subnets/fs", "tags": TAGS})
    cpu = vmss("g4-cpu", "Standard_D8s_v5", 2.0, zones=("2",), deps={"virtualMachineProfile": [fs]})
    cpu.props["virtualMachineProfile"]["osProfile"] = {"customData": "bW91bnQ="}
    gpu = vmss("g4-gpu", "Standard_NC4as_T4_v3", 2.0, zones=("1",))
    found = run(pack, [fs, cpu, gpu, az_budget()], provider=AZ)
    assert verdict(found, SSZ) == "pass", messages(found, SSZ)


def test_g5_alibaba_inference_spread_with_cpfs_in_one_zone(pack):
    """Two gn7i instances on vSwitches in eu-central-1a and eu-central-1b of one VPC (an
    inference group spread for availability), a CPFS in eu-central-1a mounted by neither.
    Expect: storage-same-zone pass (in the zone of one of them)."""
    sa, sb = vsw("g5-a", "eu-central-1a"), vsw("g5-b", "eu-central-1b")
    found = run(pack, [sa, sb, ecs("g5-1", switch=sa), ecs("g5-2", switch=sb),
                       cpfs("g5-cpfs", "eu-central-1a")], provider=ALI)
    assert verdict(found, SSZ) == "pass", messages(found, SSZ)


def test_g6_two_regions_west_fsx_in_wrong_zone(pack):
    """An east cluster (us-east-1a, its FSx in 1a) and a west cluster (us-west-2a) mounting an
    FSx in a us-west-2b subnet, one program with two providers.
    Expect: storage-same-zone fail (the west FSx), the east one not named."""
    east = _on({"region": "us-east-1"}, *_aws_cluster("g6e", "us-east-1a"), aws_budget())
    wsb = subnet("g6w-fsn", "us-west-2b")
    west = _on({"region": "us-west-2"}, *_aws_cluster("g6w", "us-west-2a", fs_subnet=wsb), wsb)
    found = run(pack, east + west, provider=None)
    assert verdict(found, SSZ) == "fail", messages(found, SSZ)
    assert "g6w-fs" in messages(found, SSZ) and "g6e-fs" not in messages(found, SSZ)


# ============================================== H. literal ids outside the stack

LIT_SUBNET = "subnet-0aa11bb22cc33dd44"


def _lit_stack():
    s = subnet("h-fsn", "us-east-1a")
    fs = fsx("h-fs", s)
    t = lt("h-lt", "g6.12xlarge", mounts=[fs])
    return [s, fs, t, asg("h-grp", t, [], 2, vpcZoneIdentifiers=[LIT_SUBNET]), aws_budget()]


def test_h1_group_on_a_literal_subnet_is_undecided(pack):
    """An ASG placed only by a literal subnet id the stack does not create, mounting an FSx in
    a us-east-1a stack subnet. Expect: storage-same-zone undecided (advisory default)."""
    found = run(pack, _lit_stack(), provider=AWS)
    assert verdict(found, SSZ) == "undecided", messages(found, SSZ)


def test_h2_literal_subnet_told_in_another_zone(pack):
    """The same with config zones {subnet-0aa11bb22cc33dd44: us-east-1b}. Expect: fail."""
    found = run(pack, _lit_stack(), {SSZ: {"zones": {LIT_SUBNET: "us-east-1b"}}}, provider=AWS)
    assert verdict(found, SSZ) == "fail", messages(found, SSZ)


def test_h4_group_and_fsx_on_one_literal_subnet(pack):
    """An FSx and the ASG mounting it both on the same literal subnet id: same zone whatever
    it is. Expect: storage-same-zone pass without config."""
    fs = res("aws:fsx/lustreFileSystem:LustreFileSystem", "h4-fs", {
        "subnetIds": LIT_SUBNET, "storageCapacity": 1200.0, "deploymentType": "PERSISTENT_2",
        "perUnitStorageThroughput": 250.0, "tags": TAGS})
    t = lt("h4-lt", "g6.12xlarge", mounts=[fs])
    g = asg("h4", t, [], 2, vpcZoneIdentifiers=[LIT_SUBNET])
    found = run(pack, [fs, t, g, aws_budget()], provider=AWS)
    assert verdict(found, SSZ) == "pass", messages(found, SSZ)


def test_h5_literal_odcr_target_is_billed_elsewhere(pack):
    """An ASG of 2 g6e.12xlarge whose launch template targets a literal ODCR id the stack does
    not create: not matched, the group is priced. Expect: 2 x 10.4926 x 730 = 15,319.20."""
    s = subnet("h5-sn", "us-east-1a")
    t = lt("h5-lt", "g6e.12xlarge", capacityReservationSpecification={
        "capacityReservationTarget": {"capacityReservationId": "cr-0123456789abcdef0"}})
    assert near(estimate(pack, [s, t, asg("h5", t, [s], 2)], AWS), 2 * G6E_12 * MONTH)


# ============================================== I. public exposure

def test_i1_eip_on_a_gpu_instance(pack):
    """An aws.ec2.Eip with instance depending on a g5.xlarge instance. Expect:
    no-public-ingress fail."""
    i = ec2("i1", "g5.xlarge")
    e = res("aws:ec2/eip:Eip", "i1-eip", {"domain": "vpc", "instance": "i-id", "tags": TAGS},
            deps={"instance": [i]})
    found = run(pack, [i, e, aws_budget()], provider=AWS)
    assert verdict(found, NPI) == "fail", messages(found, NPI)


def test_i3_eip_on_a_nat_gateway_beside_private_gpu(pack):
    """An Eip used by a NAT gateway (allocationId) in a public edge subnet, a private g6.xlarge
    instance. Expect: no-public-ingress pass."""
    edge = subnet("i3-edge", "us-east-1a", mapPublicIpOnLaunch=True,
                  tags={**TAGS, "trainstack:subnet-role": "edge"})
    priv = subnet("i3-priv", "us-east-1a")
    e = res("aws:ec2/eip:Eip", "i3-eip", {"domain": "vpc", "tags": TAGS})
    nat = res("aws:ec2/natGateway:NatGateway", "i3-nat", {
        "allocationId": "eipalloc-id", "subnetId": "subnet-id", "tags": TAGS},
        deps={"allocationId": [e], "subnetId": [edge]})
    i = ec2("i3", "g6.xlarge", on_subnet=priv)
    found = run(pack, [edge, priv, e, nat, i, aws_budget()], provider=AWS)
    assert verdict(found, NPI) == "pass", messages(found, NPI)


def test_i4_alibaba_eip_on_a_gpu_instance(pack):
    """An alicloud EipAddress and an ecs.EipAssociation whose instanceId depends on a gn7i
    instance. Expect: no-public-ingress fail."""
    i = ecs("i4", release="24h")
    e = res("alicloud:ecs/eipAddress:EipAddress", "i4-eip", {
        "bandwidth": "10", "internetChargeType": "PayByTraffic", "tags": TAGS})
    a = res("alicloud:ecs/eipAssociation:EipAssociation", "i4-assoc", {
        "allocationId": "eip-id", "instanceId": "i-id"},
        deps={"instanceId": [i], "allocationId": [e]})
    found = run(pack, [i, e, a], provider=ALI)
    assert verdict(found, NPI) == "fail", messages(found, NPI)


def test_i6_classic_azure_nic_public_ip_on_a_gpu_vm(pack):
    """A classic PublicIp, a classic NetworkInterface whose ipConfigurations carry
    publicIpAddressId from it, and a classic LinuxVirtualMachine Standard_NC4as_T4_v3 on that
    NIC. Expect: no-public-ingress fail."""
    pip = res("azure:network/publicIp:PublicIp", "i6-pip", {
        "resourceGroupName": "ml-rg", "location": "eastus", "allocationMethod": "Static",
        "sku": "Standard", "tags": TAGS})
    nic = res("azure:network/networkInterface:NetworkInterface", "i6-nic", {
        "resourceGroupName": "ml-rg", "location": "eastus", "ipConfigurations": [{
            "name": "ip", "subnetId": f"{SUB}/resourceGroups/net-rg/providers/"
                                      "Microsoft.Network/virtualNetworks/hub/subnets/gpu",
            "privateIpAddressAllocation": "Dynamic", "publicIpAddressId": "pip-id"}],
        "tags": TAGS}, deps={"ipConfigurations": [pip]})
    vm = res("azure:compute/linuxVirtualMachine:LinuxVirtualMachine", "i6-vm", {
        "resourceGroupName": "ml-rg", "location": "eastus", "size": "Standard_NC4as_T4_v3",
        "zone": "1", "adminUsername": "azureuser", "networkInterfaceIds": ["nic-id"],
        "osDisk": {"caching": "ReadWrite", "storageAccountType": "Premium_LRS"},
        "sourceImageReference": {"publisher": "microsoft-dsvm", "offer": "ubuntu-hpc",
                                 "sku": "2204", "version": "latest"}, "tags": TAGS},
        deps={"networkInterfaceIds": [nic]})
    found = run(pack, [pip, nic, vm, az_budget()], provider=AZ)
    assert verdict(found, NPI) == "fail", messages(found, NPI)


def test_i7_gcp_vm_with_an_access_config(pack):
    """A g2-standard-4 VM whose networkInterfaces carry accessConfigs [{}] (an ephemeral
    external IP). Expect: no-public-ingress fail."""
    vm = gvm("i7", "g2-standard-4", networkInterfaces=[{"network": "default",
                                                        "accessConfigs": [{}]}])
    found = run(pack, [vm, gcp_budget()], provider=GCP)
    assert verdict(found, NPI) == "fail", messages(found, NPI)


def test_i8_instance_in_the_default_vpc(pack):
    """A g6.xlarge instance with no subnetId and no associatePublicIpAddress: it launches in
    the default VPC's public subnets. Expect: no-public-ingress fail."""
    i = res("aws:ec2/instance:Instance", "i8", {
        "ami": "ami-0a1b2c3d4e5f60718", "instanceType": "g6.xlarge",
        "availabilityZone": "us-east-1a", "tags": TAGS})
    found = run(pack, [i, aws_budget()], provider=AWS)
    assert verdict(found, NPI) == "fail", messages(found, NPI)


# ============================================== J. configuration over Configure

def test_j1_misspelt_max_monthly(pack):
    """spend-limit "maxMonthlyUSD": 5000. Expect: INVALID_ARGUMENT naming the key."""
    assert "maxMonthlyUSD" in _config_refused(pack, SPEND, "maxMonthlyUSD", 5000)


def test_j5_max_monthly_as_a_boolean(pack):
    """spend-limit "maxMonthlyUsd": true (JSON Schema: a boolean is no number). Expect:
    INVALID_ARGUMENT naming maxMonthlyUsd."""
    assert "maxMonthlyUsd" in _config_refused(pack, SPEND, "maxMonthlyUsd", True)


# ============================================== K. catalog reach

def _one_asg(itype, n, zone="us-east-1a"):
    s = subnet(f"k-{itype}-sn", zone)
    t = lt(f"k-{itype}-lt", itype)
    return [s, t, asg(f"k-{itype}", t, [s], n)]


def test_k1_g6e_xlarge_group(pack):
    """An ASG of 3 g6e.xlarge. Expect: 3 x 1.861 x 730 = 4,075.59."""
    assert near(estimate(pack, _one_asg("g6e.xlarge", 3), AWS), 3 * G6E_1 * MONTH)


def test_k4_g6_xlarge_in_frankfurt(pack):
    """An ASG of 2 g6.xlarge in eu-central-1a, provider region eu-central-1.
    Expect: 2 x 1.0064 x 730 = 1,469.34."""
    assert near(estimate(pack, _one_asg("g6.xlarge", 2, "eu-central-1a"),
                         {"region": "eu-central-1"}), 2 * 1.0064 * MONTH)


def test_k5_g2_standard_48_in_europe_west4(pack):
    """A MIG of 2 g2-standard-48 in europe-west4-a. Expect: 2 x 4.20595 x 730 = 6,140.69."""
    t = gtemplate("k5-tpl", "g2-standard-48")
    assert near(estimate(pack, [t, mig("k5", t, "europe-west4-a")],
                         {"project": "ml-prod", "region": "europe-west4"}),
                2 * 4.20595 * MONTH)


def test_k8_lower_case_h100_size_in_westeurope(pack):
    """A scale set of 1 "standard_nc40ads_h100_v5" (lower case) in westeurope.
    Expect: 9.08 x 730 = 6,628.40."""
    ss = vmss("k8", "standard_nc40ads_h100_v5", 1.0, location="westeurope")
    assert near(estimate(pack, [ss], {"location": "westeurope"}), 9.08 * MONTH)


# ============================================== M. several clouds in one stack

def _three_clouds(with_azure_budget=True):
    aws = _on(AWS, ec2("m-aws", "g6.xlarge"), aws_budget("5000"))
    gcp = _on(GCP, gvm("m-gcp", "g2-standard-4"), gcp_budget("5000"))
    az = [vmss("m-az", "Standard_NC4as_T4_v3", 1.0)]
    if with_azure_budget:
        az.append(az_budget(5000.0))
    return aws + gcp + _on(AZ, *az)


def test_m1_three_clouds_each_budgeted(pack):
    """A g6.xlarge (AWS), a g2-standard-4 VM (GCP) and 1 Standard_NC4as_T4_v3 (Azure), each
    cloud with its own 5,000 budget: (0.8048 + 0.706832 + 0.526) x 730 = 1,487.47.
    Expect: spend-limit pass; estimate 1,487.47 under a 1 USD cap."""
    found = run(pack, _three_clouds(), provider=None)
    assert verdict(found, SPEND) == "pass", messages(found, SPEND)
    assert near(estimate(pack, _three_clouds(), None), (G6_1 + G2_4 + NC4T4) * MONTH)


def test_m2_three_clouds_azure_without_budget(pack):
    """The same without the Azure budget. Expect: spend-limit fail, naming Azure."""
    found = run(pack, _three_clouds(with_azure_budget=False), provider=None)
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)
    assert "azure" in messages(found, SPEND).lower()


def test_m3_aws_and_alibaba_one_bad_resource_each_class(pack):
    """An AWS g6.xlarge with an Eip (public exposure) beside a good budget, and an Alibaba
    gn7i instance whose autoReleaseTime is "tomorrow". Expect: no-public-ingress fail (the
    EIP) and spend-limit fail (the release time)."""
    i = ec2("m3-aws", "g6.xlarge")
    e = res("aws:ec2/eip:Eip", "m3-eip", {"domain": "vpc", "instance": "i-id", "tags": TAGS},
            deps={"instance": [i]})
    stack = _on(AWS, i, e, aws_budget()) + _on(ALI, ecs("m3-ali", release="tomorrow"))
    found = run(pack, stack, provider=None)
    assert verdict(found, NPI) == "fail", messages(found, NPI)
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)
    assert "m3-ali" in messages(found, SPEND)


# ============================================== R. round 2 (same classes, committed before its run)

def _no_team(tags):
    return {k: v for k, v in tags.items() if k != "team"}


def test_r1_team_tag_not_propagated_to_instances(pack):
    """An ASG of g6.xlarge whose tag team=ml has propagateAtLaunch false (the other tags
    true), its launch template tagged without a team key, and one budget TagKeyValue
    "user:team$ml": the instances carry no team tag (pulumi_aws GroupTag.propagateAtLaunch:
    "Enables propagation of the tag to Amazon EC2 instances launched via this ASG").
    Expect: spend-limit fail (the budget does not take the group in)."""
    s = subnet("r1-sn", "us-east-1a")
    t = lt("r1-lt", "g6.xlarge", tags=_no_team(TAGS))
    g = asg("r1", t, [s], 1, tags=[{"key": k, "value": v, "propagateAtLaunch": k != "team"}
                                   for k, v in TAGS.items()])
    b = aws_budget(costFilters=[{"name": "TagKeyValue", "values": ["user:team$ml"]}])
    found = run(pack, [s, t, g, b], provider=AWS)
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)


def test_r2_instance_tags_from_tag_specifications(pack):
    """A launch template whose own tags say team=ml but whose tagSpecifications tag the
    instances team=vision; the ASG carries no team tag; one budget "user:team$ml".
    Expect: spend-limit fail (the instances are team=vision)."""
    s = subnet("r2-sn", "us-east-1a")
    t = lt("r2-lt", "g6.xlarge", tagSpecifications=[
        {"resourceType": "instance", "tags": {**_no_team(TAGS), "team": "vision"}}])
    g = asg("r2", t, [s], 1, tags=[{"key": k, "value": v, "propagateAtLaunch": True}
                                   for k, v in _no_team(TAGS).items()])
    b = aws_budget(costFilters=[{"name": "TagKeyValue", "values": ["user:team$ml"]}])
    found = run(pack, [s, t, g, b], provider=AWS)
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)


def _update_asg(name, group_name, hours, deps=None):
    at = (_now() + timedelta(hours=hours)).strftime("%Y-%m-%dT%H:%M:%S")
    return res("aws:scheduler/schedule:Schedule", name, {
        "scheduleExpression": f"at({at})", "scheduleExpressionTimezone": "UTC",
        "state": "ENABLED", "flexibleTimeWindow": {"mode": "OFF"},
        "target": {"arn": "arn:aws:scheduler:::aws-sdk:autoscaling:updateAutoScalingGroup",
                   "roleArn": "arn:aws:iam::123456789012:role/sched",
                   "input": json.dumps({"AutoScalingGroupName": group_name, "MinSize": 0,
                                        "MaxSize": 0, "DesiredCapacity": 0})}},
        deps=deps or {})


def test_r3_scheduler_names_an_auto_named_group_by_resource_name(pack):
    """An ASG "r3-grp" of 2 g6.12xlarge with no `name` (auto-named r3-grp-<random>) and a
    Scheduler updateAutoScalingGroup at(+8 h) whose input names "r3-grp" literally, no
    dependency: it names another group. Expect: the month: 2 x 4.6016 x 730 = 6,718.34."""
    s = subnet("r3-sn", "us-east-1a")
    t = lt("r3-lt", "g6.12xlarge")
    stack = [s, t, asg("r3-grp", t, [s], 2), _update_asg("r3-stop", "r3-grp", 8)]
    assert near(estimate(pack, stack, AWS), 2 * G6_12 * MONTH)


def test_r4_scheduler_names_the_groups_explicit_name(pack):
    """The same group given name "train-g6", the Scheduler input naming "train-g6".
    Expect: 8 h: 2 x 4.6016 x 8 = 73.63."""
    s = subnet("r4-sn", "us-east-1a")
    t = lt("r4-lt", "g6.12xlarge")
    stack = [s, t, asg("r4-grp", t, [s], 2, name="train-g6"),
             _update_asg("r4-stop", "train-g6", 8)]
    assert _lifetime_ok(estimate(pack, stack, AWS), 2 * G6_12, 8)


def test_r5_gcp_instance_schedule_expired_before_its_stop(pack):
    """An instance schedule whose vmStopSchedule runs daily at the hour ~10 h from now (UTC),
    with expirationTime +2 h (before that run), attached to an a2-ultragpu-1g VM.
    Expect: no lifetime: the month: 5.0688 x 730 = 3,700.22."""
    hour = (_now() + timedelta(hours=10)).hour
    rp = res("gcp:compute/resourcePolicy:ResourcePolicy", "r5-rp", {
        "region": "us-central1", "instanceSchedulePolicy": {
            "vmStopSchedule": {"schedule": f"0 {hour} * * *"}, "timeZone": "UTC",
            "expirationTime": hours_from_now(2)}})
    vm = gvm("r5", "a2-ultragpu-1g", resourcePolicies=["rp-id"])
    vm.deps["resourcePolicies"] = [rp]
    assert near(estimate(pack, [rp, vm], GCP), A2U_1 * MONTH)


def test_r6_azure_recurrence_profile_of_zero_is_no_lifetime(pack):
    """An enabled AutoscaleSetting on 2 Standard_NV36ads_A10_v5: a default profile of 2 and a
    recurrence profile of 0 every day at 20:00 UTC. Expect: the month: 2 x 3.2 x 730 =
    4,672."""
    ss = vmss("r6", "Standard_NV36ads_A10_v5", 2.0)
    off = _profile("nightly", 0, recurrence={"frequency": "Week", "schedule": {
        "timeZone": "UTC", "days": ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday",
                                    "Saturday", "Sunday"], "hours": [20.0], "minutes": [0.0]}})
    a = _autoscale(ss, [_profile("default", 2), off])
    assert near(estimate(pack, [ss, a], AZ), 2 * NV36 * MONTH)


def test_r7_eks_node_group_max_size_text(pack):
    """An EKS node group of g6.xlarge with scalingConfig maxSize "many" beside a good budget.
    Expect: spend-limit fail naming the node group."""
    s = subnet("r7-sn", "us-east-1a")
    ng = res("aws:eks/nodeGroup:NodeGroup", "r7-ng", {
        "clusterName": "train", "nodeRoleArn": "arn:aws:iam::123456789012:role/node",
        "subnetIds": ["subnet-id"], "instanceTypes": ["g6.xlarge"],
        "scalingConfig": {"desiredSize": 1.0, "minSize": 0.0, "maxSize": "many"},
        "tags": TAGS}, deps={"subnetIds": [s]})
    found = run(pack, [s, ng, aws_budget("1000000")], provider=AWS)
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)
    assert "r7-ng" in messages(found, SPEND)


def test_r8_aws_budget_in_yen(pack):
    """The only AWS budget has limitUnit "JPY" (fx.csv cites no JPY rate) beside a g6.xlarge.
    Expect: spend-limit undecided."""
    b = aws_budget("5000000", limitUnit="JPY")
    found = run(pack, [_g6_box("r8"), b], provider=AWS)
    assert verdict(found, SPEND) == "undecided", messages(found, SPEND)


# ============================================== T. round 3: whose tags and labels a budget reads

VISION = {**TAGS, "team": "vision"}
VISION_L = {**LABELS, "team": "vision"}
ML_BUDGET = [{"name": "TagKeyValue", "values": ["user:team$ml"]}]


def test_t1_mig_all_instances_config_labels_override_the_template(pack):
    """A MIG of 2 g2-standard-8 whose template is labelled team=ml but whose
    allInstancesConfig.labels says team=vision (the all-instances configuration overrides the
    template's, cloud.google.com/compute/docs/instance-groups/set-mig-aggregate-instance-config)
    and one budget with budgetFilter.labels {"team": "ml"}.
    Expect: spend-limit fail (the VMs carry team=vision)."""
    t = gtemplate("t1-tpl", "g2-standard-8")
    m = mig("t1", t, "us-central1-a")
    m.props["allInstancesConfig"] = {"labels": {"team": "vision"}}
    found = run(pack, [t, m, gcp_budget(budgetFilter={"labels": {"team": "ml"}})],
                provider=GCP)
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)


def test_t2_instance_from_template_own_labels(pack):
    """An InstanceFromTemplate of a team=ml g2-standard-4 template whose own labels say
    team=vision (its own fields override the template's), one budget labels team=ml.
    Expect: spend-limit fail."""
    t = gtemplate("t2-tpl", "g2-standard-4")
    ift = res("gcp:compute/instanceFromTemplate:InstanceFromTemplate", "t2-vm", {
        "sourceInstanceTemplate": "tpl-id", "zone": "us-central1-a", "labels": VISION_L},
        deps={"sourceInstanceTemplate": [t]})
    found = run(pack, [t, ift, gcp_budget(budgetFilter={"labels": {"team": "ml"}})],
                provider=GCP)
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)


def test_t3_azure_resource_group_tags_are_not_inherited(pack):
    """A ResourceGroup tagged team=ml, a scale set in it (dependency) tagged team=vision, and
    one subscription budget whose filter.tags is team In ["ml"]: Azure resources do not
    inherit their group's tags (learn.microsoft.com/azure/azure-resource-manager/management/
    tag-resources: "Tags applied to the resource group or subscription aren't inherited by
    the resources"). Expect: spend-limit fail."""
    rg = res("azure-native:resources:ResourceGroup", "t3-rg", {
        "resourceGroupName": "ml-rg", "location": "eastus", "tags": TAGS})
    ss = vmss("t3", "Standard_NC4as_T4_v3", 2.0, deps={"resourceGroupName": [rg]}, tags=VISION)
    b = az_budget(filter={"tags": {"name": "team", "operator": "In", "values": ["ml"]}})
    found = run(pack, [rg, ss, b], provider=AZ)
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)


def test_t4_aws_native_asg_tag_not_propagated(pack):
    """An aws-native AutoScalingGroup of g6.xlarge (a classic launch template without a team
    tag) whose tag team=ml has propagateAtLaunch false; one budget "user:team$ml".
    Expect: spend-limit fail."""
    s = subnet("t4-sn", "us-east-1a")
    t = lt("t4-lt", "g6.xlarge", tags={k: v for k, v in TAGS.items() if k != "team"})
    g = res("aws-native:autoscaling:AutoScalingGroup", "t4", {
        "minSize": "0", "maxSize": "2", "desiredCapacity": "2",
        "launchTemplate": {"launchTemplateId": "lt-id", "version": "$Latest"},
        "vpcZoneIdentifier": ["subnet-id"],
        "tags": [{"key": k, "value": v, "propagateAtLaunch": k != "team"}
                 for k, v in TAGS.items()]},
        deps={"launchTemplate": [t], "vpcZoneIdentifier": [s]})
    found = run(pack, [s, t, g, aws_budget(costFilters=ML_BUDGET)], provider=AWS)
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)


def test_t5_resource_tag_overrides_the_providers_default_tag(pack):
    """Provider defaultTags team=ml; a g6.xlarge instance's own tags say team=vision (a
    resource tag overrides a default tag of the same key, pulumi aws provider defaultTags);
    one budget "user:team$ml". Expect: spend-limit fail."""
    prov = {**AWS, "defaultTags": {"tags": {"team": "ml"}}}
    i = ec2("t5", "g6.xlarge", tags=VISION)
    found = run(pack, [i, aws_budget(costFilters=ML_BUDGET)], provider=prov)
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)


def test_t6_gcp_label_overrides_the_providers_default_label(pack):
    """Provider defaultLabels team=ml; a g2-standard-4 VM labelled team=vision; one budget
    labels team=ml. Expect: spend-limit fail."""
    prov = {**GCP, "defaultLabels": {"team": "ml"}}
    vm = gvm("t6", "g2-standard-4", labels=VISION_L)
    found = run(pack, [vm, gcp_budget(budgetFilter={"labels": {"team": "ml"}})], provider=prov)
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)


def test_t7_default_tags_do_not_reach_asg_instances(pack):
    """Provider defaultTags team=ml; an ASG of g6.xlarge and its launch template with no team
    tag: default tags do not reach the instances under an Auto Scaling group
    (pulumi.com/registry/packages/aws/api-docs/getdefaulttags: use it "to apply default tags to
    resources not directly managed by a resource, such as the instances underneath an Auto
    Scaling group"); one budget "user:team$ml". Expect: spend-limit fail."""
    prov = {**AWS, "defaultTags": {"tags": {"team": "ml"}}}
    s = subnet("t7-sn", "us-east-1a")
    nt = {k: v for k, v in TAGS.items() if k != "team"}
    t = lt("t7-lt", "g6.xlarge", tags=nt)
    g = asg("t7", t, [s], 1, tags=[{"key": k, "value": v, "propagateAtLaunch": True}
                                   for k, v in nt.items()])
    found = run(pack, [s, t, g, aws_budget(costFilters=ML_BUDGET)], provider=prov)
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)


def test_t8_propagated_asg_tag_is_covered(pack):
    """The control: an ASG of g6.xlarge with team=ml propagateAtLaunch true, its launch
    template without a team tag, one budget "user:team$ml" (50,000 > 0.8048 x 730).
    Expect: spend-limit pass."""
    s = subnet("t8-sn", "us-east-1a")
    t = lt("t8-lt", "g6.xlarge", tags={k: v for k, v in TAGS.items() if k != "team"})
    g = asg("t8", t, [s], 1)
    found = run(pack, [s, t, g, aws_budget(costFilters=ML_BUDGET)], provider=AWS)
    assert verdict(found, SPEND) == "pass", messages(found, SPEND)
