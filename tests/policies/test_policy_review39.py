"""Issue 35, a fresh BLIND hostile review (helper review39): NEW stacks written the way teams
write Pulumi programs on the four clouds, driven over gRPC as `pulumi preview --policy-pack`
drives the pack (tests/policy_harness.py). The pack's rule code was not read: the cases come
from the issue's classes and docs/policies.md's promises (the "Sizes", "Lifetimes" and
"Budgets" paragraphs above all) and the providers' registry/API pages. No stack of review35*-38*,
edges35* or fix37* is reused; only the small builders and the verdict reader of
test_policy_review35f.py / test_policy_review38.py are imported.

Each case's docstring gives its expected verdict BEFORE the first run: the policy, "pass",
"fail" (a mandatory violation), "undecided" ("cannot decide"), or "not pass" where either a
failure or a "cannot decide" is right, and the figure where a price is involved, worked by hand
from policies/catalog_data/prices.csv rows (on-demand USD/h, spot where said; each row cites
its own public source):
  aws us-east-1: p4d.24xlarge 21.9576 (spot 8.1915); g5.12xlarge 5.672; g5.xlarge 1.006;
    g6.xlarge 0.8048; g6.4xlarge 1.3232; g4dn.xlarge 0.526.
  gcp us-central1: g2-standard-4 0.706832; g2-standard-24 2.00083; a2-highgpu-4g 14.6935;
    a3-highgpu-8g 88.49; gcp_attached_gpus.csv n1-standard-4 0.19 + nvidia-tesla-t4 0.35.
    gcp europe-west4: g2-standard-4 0.742916.
  azure eastus: Standard_NC24ads_A100_v4 3.673; Standard_NC48ads_A100_v4 7.346;
    Standard_NC16as_T4_v3 1.204; Standard_NC4as_T4_v3 0.526. westeurope:
    Standard_NV12ads_A10_v5 1.18.
  alibaba eu-central-1: ecs.gn7i-c8g1.2xlarge 2.56083; ecs.gn7i-c16g1.4xlarge 2.71098.
  fx.csv: 7.2734 CNY per USD. A month is 730 h.

Classes (issue 35): A capacity counted once, B capacity blocks, C compute the pack must see,
D stops that do not stop, E budgets that do not cover, F malformed values, G scope, H literal
ids, I public exposure, J configuration, K catalog reach (r-u: later rounds, same classes).

Results. Five rounds, each committed with its expectations before its first run (94b360b,
31104e3, 2b0ef34, ca0a82a, 975a43d). Round 1 (79 cases): 4 disagreements. Mine, three (d1, d2,
d10; d15 has the same form): the pack prices a lifetime in whole hours rounded up (23.29 h ->
24 h), never below the truth as docs/policies.md asks, and my expectations allowed only
+-0.3 h; corrected to [hours, ceil(hours)] (_lifetime_ok). The pack's, one: d13 (an Azure
autoscale fixedDate start written in timeZone "Pacific Standard Time" is priced as if in
UTC-12: 34 h for a 30 h stop). Round 2 (20), round 3 (11), round 5 (10): no disagreement.
Round 4 (10): one, the pack's: t4 (an Azure budget scoped to a management group passes as the
cap and alarm). Both were strict xfails, fixed since by helper fix39 (each xfail removed with
its fix). To keep within 80 cases, 48 round-1 cases, r11 and s4, all agreed, were dropped
as later rounds came (they are in 94b360b, 2b0ef34). Planted in my helper
(_next_daily ignoring its time zone): d1, d2, d15 and r2 failed.
"""
from __future__ import annotations

import json
import math
from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

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
from tests.policies.test_policy_review38 import (
    _cr,
    _crg,
    _ess,
    _greservation,
    _odcr,
)
from tests.policy_fixtures import hours_from_now, res
from tests.policy_harness import run

ALI = {"region": "eu-central-1"}
P4D, P4D_SPOT, G5_12 = 21.9576, 8.1915, 5.672
G2_24, A2_4, A3_8 = 2.00083, 14.6935, 88.49
NC24, NC48 = 3.673, 7.346
GN7I_8 = 2.56083


def _now():
    return datetime.now(timezone.utc)


def _next_daily(hour, minute, tz):
    """Hours from now to the next HH:MM wall-clock time in `tz` (the IANA database)."""
    z = ZoneInfo(tz)
    local = _now().astimezone(z)
    cand = local.replace(hour=hour, minute=minute, second=0, microsecond=0)
    if cand <= local:
        cand = (cand + timedelta(days=1)).replace(hour=hour, minute=minute)
        cand = cand.replace(tzinfo=z)
    return (cand.astimezone(timezone.utc) - _now()).total_seconds() / 3600


def _next_weekday_utc(weekday, hour):
    """Hours to the next `weekday` (Monday 0 .. Sunday 6) at HH:00 UTC."""
    now = _now()
    cand = now.replace(hour=hour, minute=0, second=0, microsecond=0)
    cand += timedelta(days=(weekday - now.weekday()) % 7)
    if cand <= now:
        cand += timedelta(days=7)
    return (cand - now).total_seconds() / 3600


def _lifetime_ok(got, rate, hours):
    """The pack prices a lifetime in whole hours, rounded up (never smaller than the truth):
    between rate x hours and rate x ceil(hours), with 2 USD for the estimate's rounding."""
    return rate * hours - 2 <= got <= rate * math.ceil(hours) + 2


def _sched(name, group, **p):
    return res("aws:autoscaling/schedule:Schedule", name, {
        "scheduledActionName": name, "autoscalingGroupName": "asg-name", "minSize": 0.0,
        "maxSize": 0.0, "desiredCapacity": 0.0, **p}, deps={"autoscalingGroupName": [group]})


def _p4d_asg(size=2, zone="us-east-1a", **p):
    s = subnet("sn-" + zone, zone)
    t = lt("p4d-lt-" + zone, "p4d.24xlarge")
    return [s, t, asg("p4d-" + zone, t, [s], size, **p)]


def _aws_scheduler(name, target_arn, inp, when, tz="UTC", deps=None, **p):
    return res("aws:scheduler/schedule:Schedule", name, {
        "scheduleExpression": when, "scheduleExpressionTimezone": tz, "state": "ENABLED",
        "flexibleTimeWindow": {"mode": "OFF"},
        "target": {"arn": target_arn, "roleArn": "arn:aws:iam::123456789012:role/sched",
                   "input": json.dumps(inp)}, **p}, deps=deps or {})


def _gke_pool(name, mtype, max_nodes, location="us-central1-a", **p):
    return res("gcp:container/nodePool:NodePool", name, {
        "cluster": "train-gke", "location": location, "initialNodeCount": 1.0,
        "autoscaling": {"minNodeCount": 0.0, "maxNodeCount": max_nodes},
        "nodeConfig": {"machineType": mtype, "labels": LABELS}, **p})


def _amlfs(name, zone):
    return res("azure-native:storagecache:AmlFilesystem", name, {
        "resourceGroupName": "ml-rg", "location": "eastus", "zones": [zone],
        "storageCapacityTiB": 8.0, "sku": {"name": "AMLFS-Durable-Premium-250"},
        "filesystemSubnet": f"{SUB}/resourceGroups/net-rg/providers/Microsoft.Network/"
                            "virtualNetworks/hub/subnets/fs", "tags": TAGS})


def _config_refused(pack, policy, key, value):
    config = pack.cli_config()
    config[policy][key] = value
    with pytest.raises(grpc.RpcError) as err:
        pack.send_config(config)
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT, err.value.details()
    return err.value.details()


# ============================================== A. capacity counted once

def test_a1_instances_with_preference_none_run_beside_an_open_odcr(pack):
    """An open ODCR of 2 g5.12xlarge in us-east-1a, and two aws.ec2.Instance g5.12xlarge there
    with capacityReservationSpecification.capacityReservationPreference "none": they never
    run in a reservation (docs.aws.amazon.com/AWSEC2/latest/APIReference/
    API_CapacityReservationSpecification.html). Both bill.
    Expect: estimate 4 x 5.672 x 730 = 16,562.24."""
    cr = _odcr("g5-open", "g5.12xlarge", 2)
    vms = [ec2(f"g5-{i}", "g5.12xlarge", capacityReservationSpecification={
        "capacityReservationPreference": "none"}) for i in range(2)]
    assert near(estimate(pack, [cr, *vms], AWS), 4 * G5_12 * MONTH)




def test_a3_gcp_specific_required_reservation_not_taken_by_any_reservation_vm(pack):
    """A reservation of 2 a2-highgpu-4g in us-central1-a with specificReservationRequired
    true, and one a2-highgpu-4g VM there with the default ANY_RESERVATION affinity: a VM
    consumes a specific-required reservation only by naming it (cloud.google.com/compute/docs/
    instances/reservations-consume). Expect: estimate 3 x 14.6935 x 730 = 32,178.77."""
    r = _greservation("a2-req", "a2-highgpu-4g", 2, specificReservationRequired=True)
    assert near(estimate(pack, [r, gvm("a2-vm", "a2-highgpu-4g")], GCP), 3 * A2_4 * MONTH)




def test_a5_azure_scale_set_inside_its_reservation_once(pack):
    """An azure-native capacity reservation of 2 Standard_NC48ads_A100_v4 and a scale set of 2
    of that size associated with the group (virtualMachineProfile.capacityReservation).
    Expect: estimate 2 x 7.346 x 730 = 10,725.16 (once)."""
    crg = _crg()
    cr = _cr(crg, "Standard_NC48ads_A100_v4", 2)
    ss = vmss("a100x2", "Standard_NC48ads_A100_v4", 2.0, deps={"virtualMachineProfile": [crg]})
    ss.props["virtualMachineProfile"]["capacityReservation"] = {
        "capacityReservationGroup": {"id": "crg-id"}}
    assert near(estimate(pack, [crg, cr, ss], AZ), 2 * NC48 * MONTH)




def test_a7_alibaba_instance_targeting_a_stack_reservation_once(pack):
    """An Alibaba capacity reservation of 2 ecs.gn7i-c8g1.2xlarge in eu-central-1a, endTimeType
    Limited, endTime +72 h, and one pay-as-you-go instance (autoReleaseTime +48 h) targeting it
    (privatePoolOptionsMatchCriteria Target, privatePoolOptionsId depending on it): the
    reservation is priced until its end, the instance inside adds nothing.
    Expect: estimate 2 x 2.56083 x 72 = 368.76."""
    cr = res("alicloud:ecs/capacityReservation:CapacityReservation", "gn7i-cr", {
        "instanceType": "ecs.gn7i-c8g1.2xlarge", "instanceAmount": 2.0,
        "zoneIds": ["eu-central-1a"], "endTimeType": "Limited",
        "endTime": hours_from_now(72), "matchCriteria": "Target", "platform": "linux",
        "tags": TAGS})
    sw = vsw()
    i = ecs("gn7i-in", switch=sw, release="48h", privatePoolOptionsMatchCriteria="Target",
            privatePoolOptionsId="crp-id")
    i.deps["privatePoolOptionsId"] = [cr]
    assert near(estimate(pack, [cr, sw, i], ALI), 2 * GN7I_8 * 72, slack=3)


# ============================================== B. capacity blocks

def test_b1_capacity_block_group_without_fee_is_not_priced_on_demand(pack):
    """An ASG of 2 p4d.24xlarge whose launch template says instanceMarketOptions.marketType
    capacity-block (a block bought outside the stack), no capacityBlockFeesUsd, a 1,000,000
    USD budget: the block's fee is neither in the catalog nor known at preview.
    Expect: spend-limit not pass (GPU capacity that cannot be estimated, never 2 x 21.9576 x
    730 = 32,058 on demand)."""
    s = subnet("cb", "us-east-1a")
    t = lt("cb-lt", "p4d.24xlarge", instanceMarketOptions={"marketType": "capacity-block"},
           capacityReservationSpecification={"capacityReservationTarget": {
               "capacityReservationId": "cr-0b10c0000aaaa1111"}})
    found = run(pack, [s, t, asg("cb", t, [s], 2), aws_budget("1000000")], provider=AWS)
    assert verdict(found, SPEND) != "pass", messages(found, SPEND)




# ============================================== C. compute the pack must see







def test_c4_spot_fleet_on_demand_share(pack):
    """An aws.ec2.SpotFleetRequest of p4d.24xlarge (launchSpecifications in a us-east-1a
    subnet, weight 1), targetCapacity 3, onDemandTargetCapacity 1.
    Expect: estimate (21.9576 + 2 x 8.1915) x 730 = 27,988.64."""
    s = subnet("sf-a", "us-east-1a")
    f = res("aws:ec2/spotFleetRequest:SpotFleetRequest", "p4d-sf", {
        "iamFleetRole": "arn:aws:iam::123456789012:role/fleet", "targetCapacity": 3.0,
        "onDemandTargetCapacity": 1.0, "allocationStrategy": "capacityOptimized",
        "launchSpecifications": [{"ami": "ami-0a1b2c3d4e5f60718", "instanceType": "p4d.24xlarge",
                                  "subnetId": "sn-id", "weightedCapacity": "1",
                                  "associatePublicIpAddress": False}],
        "tags": TAGS}, deps={"launchSpecifications": [s]})
    assert near(estimate(pack, [s, f], AWS), (P4D + 2 * P4D_SPOT) * MONTH)


def test_c5_launch_template_public_interface_given_as_one_object(pack):
    """A g5.xlarge launch template whose networkInterfaces is ONE object (not a list) with
    associatePublicIpAddress "true", used by an ASG in a private subnet.
    Expect: no-public-ingress fail (public IPs on GPU nodes)."""
    s = subnet("obj", "us-east-1a")
    t = lt("obj-lt", "g5.xlarge", networkInterfaces={
        "associatePublicIpAddress": "true", "deviceIndex": 0.0, "securityGroups": ["sg-1"]})
    found = run(pack, [s, t, asg("obj", t, [s], 1), aws_budget()], provider=AWS)
    assert verdict(found, NPI) == "fail", messages(found, NPI)












# ============================================== D. stops that do not stop (and ones that do)

def test_d1_daily_stop_in_new_york_time(pack):
    """A stop Schedule (max/min/desired 0) on a 2 x p4d group with recurrence "0 18 * * *" and
    timeZone America/New_York, nothing restarting it: the lifetime ends at the next 18:00 in
    New York (EST, UTC-5 in December). Expect: 2 x 21.9576 x hours-to-then (< 24 h)."""
    st = _p4d_asg()
    stop = _sched("nightly", st[2], recurrence="0 18 * * *", timeZone="America/New_York")
    h = _next_daily(18, 0, "America/New_York")
    assert _lifetime_ok(estimate(pack, st + [stop], AWS), 2 * P4D, h)


def test_d2_daily_stop_in_a_half_hour_dst_zone(pack):
    """The same stop at "0 6 * * *" in Australia/Lord_Howe (UTC+11 in December: its 30-minute
    summer time). Expect: 2 x 21.9576 x hours to the next 06:00 there."""
    st = _p4d_asg()
    stop = _sched("lh", st[2], recurrence="0 6 * * *", timeZone="Australia/Lord_Howe")
    h = _next_daily(6, 0, "Australia/Lord_Howe")
    assert _lifetime_ok(estimate(pack, st + [stop], AWS), 2 * P4D, h)














def test_d9_scheduler_at_in_tokyo_time(pack):
    """An EventBridge Scheduler ec2:stopInstances on a p4d instance, at(...) given as Tokyo
    wall-clock time 10 h from now, scheduleExpressionTimezone Asia/Tokyo (UTC+9).
    Expect: 10 h: 21.9576 x 10 = 219.58 (not 19 h or 1 h)."""
    i = ec2("p4d-box", "p4d.24xlarge")
    local = (_now() + timedelta(hours=10)).astimezone(ZoneInfo("Asia/Tokyo"))
    s = _aws_scheduler("stop", "arn:aws:scheduler:::aws-sdk:ec2:stopInstances",
                       {"InstanceIds": ["i-id"]}, "at(" + local.strftime("%Y-%m-%dT%H:%M:%S")
                       + ")", tz="Asia/Tokyo", deps={"target": [i]})
    assert near(estimate(pack, [i, s], AWS), P4D * 10, slack=P4D * 0.3)


def test_d10_scheduler_cron_day_of_week_one_is_sunday(pack):
    """A Scheduler terminateInstances cron(0 20 ? * 1 *) in UTC: day of week 1 is Sunday
    (docs.aws.amazon.com/scheduler/latest/UserGuide/schedule-types.html#cron-based).
    Expect: 21.9576 x hours to the next Sunday 20:00 UTC."""
    i = ec2("p4d-sun", "p4d.24xlarge")
    s = _aws_scheduler("sun", "arn:aws:scheduler:::aws-sdk:ec2:terminateInstances",
                       {"InstanceIds": ["i-id"]}, "cron(0 20 ? * 1 *)", deps={"target": [i]})
    h = _next_weekday_utc(6, 20)
    assert _lifetime_ok(estimate(pack, [i, s], AWS), P4D, h)






def test_d13_azure_fixed_date_stop_in_pacific_time(pack):
    """An enabled azure-native AutoscaleSetting on a scale set of 2 Standard_NC24ads_A100_v4: a
    default profile of 2 and a fixedDate profile of capacity 0 whose start is the wall-clock
    time 30 h from now in timeZone "Pacific Standard Time" (UTC-8 in December) and whose end is
    60 days later (learn.microsoft.com/rest/api/monitor/autoscale-settings: TimeWindow.start in
    timeZone). Expect: 30 h: 2 x 3.673 x 30 = 220.38 (not 22 h)."""
    ss = vmss("a100-fd", "Standard_NC24ads_A100_v4", 2.0)
    start = (_now() + timedelta(hours=30)).astimezone(ZoneInfo("America/Los_Angeles"))
    end = start + timedelta(days=60)
    a = res("azure-native:monitor:AutoscaleSetting", "fd", {
        "resourceGroupName": "ml-rg", "location": "eastus", "enabled": True,
        "targetResourceUri": "vmss-id", "profiles": [
            {"name": "default", "capacity": {"minimum": "2", "maximum": "2", "default": "2"},
             "rules": []},
            {"name": "off", "capacity": {"minimum": "0", "maximum": "0", "default": "0"},
             "rules": [], "fixedDate": {"timeZone": "Pacific Standard Time",
                                        "start": start.strftime("%Y-%m-%dT%H:%M:%S"),
                                        "end": end.strftime("%Y-%m-%dT%H:%M:%S")}}]},
        deps={"targetResourceUri": [ss]})
    assert near(estimate(pack, [ss, a], AZ), 2 * NC24 * 30, slack=2 * NC24 * 0.5)




def test_d15_gcp_instance_schedule_in_india_time(pack):
    """A gcp ResourcePolicy instanceSchedulePolicy with vmStopSchedule "0 22 * * *" and timeZone
    Asia/Kolkata (UTC+5:30), no vmStartSchedule, attached to an a3-highgpu-8g VM.
    Expect: 88.49 x hours to the next 22:00 IST (< 24 h)."""
    rp = res("gcp:compute/resourcePolicy:ResourcePolicy", "ist-stop", {
        "region": "us-central1", "instanceSchedulePolicy": {
            "vmStopSchedule": {"schedule": "0 22 * * *"}, "timeZone": "Asia/Kolkata"}})
    vm = gvm("a3", "a3-highgpu-8g", resourcePolicies=["rp-id"])
    vm.deps["resourcePolicies"] = [rp]
    h = _next_daily(22, 0, "Asia/Kolkata")
    assert _lifetime_ok(estimate(pack, [rp, vm], GCP), A3_8, h)




def test_d17_alibaba_release_time_with_an_offset(pack):
    """An Alibaba pay-as-you-go ecs.gn7i-c8g1.2xlarge whose autoReleaseTime is ISO-8601 with a
    +08:00 offset, 24 h from now. Expect: 24 h: 2.56083 x 24 = 61.46."""
    at = (_now() + timedelta(hours=24)).astimezone(timezone(timedelta(hours=8)))
    i = ecs("gn7i-off", switch=None, release=at.strftime("%Y-%m-%dT%H:%M:%S+08:00"))
    assert near(estimate(pack, [i], ALI), GN7I_8 * 24, slack=3)


def test_d18_alibaba_ess_stop_then_daily_raise_is_a_pause(pack):
    """An ESS group (max 4 ecs.gn7i-c8g1.2xlarge) with a one-time ScheduledTask at +30 h setting
    min/max/desired 0 and a Daily recurring ScheduledTask raising it to 4.
    Expect: the month: 4 x 2.56083 x 730 = 7,477.62."""
    sg = res("alicloud:ess/scalingGroup:ScalingGroup", "ess-sg", {
        "minSize": 0.0, "maxSize": 4.0, "scalingGroupName": "gn7i", "vswitchIds": ["vsw-id"]})
    sc = res("alicloud:ess/scalingConfiguration:ScalingConfiguration", "ess-sc", {
        "scalingGroupId": "sg-id", "instanceType": "ecs.gn7i-c8g1.2xlarge",
        "imageId": "ubuntu_22_04_x64_20G_alibase_20240508.vhd", "active": True,
        "securityGroupId": "sg-1", "tags": TAGS}, deps={"scalingGroupId": [sg]})
    down = res("alicloud:ess/scheduledTask:ScheduledTask", "down", {
        "scheduledTaskName": "down", "scalingGroupId": "sg-id",
        "launchTime": hours_from_now(30)[:-4] + "Z", "minValue": 0.0, "maxValue": 0.0,
        "desiredCapacity": 0.0, "taskEnabled": True}, deps={"scalingGroupId": [sg]})
    up = res("alicloud:ess/scheduledTask:ScheduledTask", "up", {
        "scheduledTaskName": "up", "scalingGroupId": "sg-id",
        "launchTime": hours_from_now(40)[:-4] + "Z", "minValue": 4.0, "maxValue": 4.0,
        "desiredCapacity": 4.0, "recurrenceType": "Daily", "recurrenceValue": "1",
        "recurrenceEndTime": hours_from_now(24 * 60)[:-4] + "Z", "taskEnabled": True},
        deps={"scalingGroupId": [sg]})
    assert near(estimate(pack, [sg, sc, down, up], ALI), 4 * GN7I_8 * MONTH)


# ============================================== E. budgets that do not cover







def test_e4_aws_budget_in_euros_cannot_be_read_as_usd(pack):
    """A COST budget of 50,000 with limitUnit "EUR" (fx.csv cites CNY only) over a 2 x p4d group
    (32,058 USD). Expect: spend-limit undecided (a currency with no cited rate)."""
    b = aws_budget("50000", limitUnit="EUR")
    found = run(pack, _p4d_asg() + [b], provider=AWS)
    assert verdict(found, SPEND) == "undecided", messages(found, SPEND)


def test_e5_gcp_budget_in_yuan_converted_and_exceeded(pack):
    """A MIG of 10 g2-standard-24 (10 x 2.00083 x 730 = 14,606.06 USD) and a GCP budget of
    100,000 CNY (100,000 / 7.2734 = 13,748.73 USD). Expect: spend-limit fail (exceeds)."""
    t = gtemplate("l4x10-tpl", "g2-standard-24")
    found = run(pack, [t, mig("l4x10", t, "us-central1-a", 10),
                       gcp_budget("100000", currency="CNY")], provider=GCP)
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)
    assert "exceed" in messages(found, SPEND)


















def test_e14_aws_budget_filters_unknown_at_preview(pack):
    """The only AWS budget has a TagKeyValue filter whose value is unknown at preview (built
    from another resource's output). Expect: spend-limit undecided."""
    from trainstack_policies.model import UNKNOWN
    b = aws_budget("100000", costFilters=[{"name": "TagKeyValue", "values": UNKNOWN}])
    found = run(pack, _p4d_asg() + [b], provider=AWS)
    assert verdict(found, SPEND) == "undecided", messages(found, SPEND)


# ============================================== F. malformed values

def test_f1_asg_max_size_text(pack):
    """A p4d ASG with maxSize "ten" beside a 1,000,000 budget. Expect: spend-limit not pass
    (a violation naming the value, never 0 nodes)."""
    st = _p4d_asg()
    st[2].props["maxSize"] = "ten"
    found = run(pack, st + [aws_budget("1000000")], provider=AWS)
    assert verdict(found, SPEND) != "pass", messages(found, SPEND)






def test_f4_fleet_weight_zero(pack):
    """An EC2 Fleet override with weightedCapacity 0 (not positive: target / 0 is no count).
    Expect: spend-limit not pass, no crash."""
    s = subnet("f0", "us-east-1a")
    t = lt("f0-lt", "p4d.24xlarge")
    f = res("aws:ec2/fleet:Fleet", "f0", {
        "type": "maintain", "launchTemplateConfigs": [{
            "launchTemplateSpecification": {"launchTemplateId": "lt-id", "version": "$Latest"},
            "overrides": [{"subnetId": "sn-id", "weightedCapacity": 0.0}]}],
        "targetCapacitySpecification": {"totalTargetCapacity": 2.0,
                                        "defaultTargetCapacityType": "on-demand"},
        "tags": TAGS}, deps={"launchTemplateConfigs": [t, s]})
    found = run(pack, [s, t, f, aws_budget("1000000")], provider=AWS)
    assert verdict(found, SPEND) != "pass", messages(found, SPEND)


def test_f5_unreadable_capacity_does_not_hide_a_cross_zone_filesystem(pack):
    """An Azure scale set of NC24ads in zone 1 with sku.capacity "lots" mounting an AMLFS in
    zone 2. Expect: storage-same-zone fail (the filesystem is in another zone; the unreadable
    size is spend-limit's, for that resource alone)."""
    fs = _amlfs("amlfs2", "2")
    ss = vmss("a100-lots", "Standard_NC24ads_A100_v4", "lots",
              deps={"virtualMachineProfile": [fs]})
    found = run(pack, [fs, ss, az_budget(100000.0)], provider=AZ)
    assert verdict(found, SSZ) == "fail", messages(found, SSZ)
    assert verdict(found, SPEND) != "pass", messages(found, SPEND)


def test_f6_negative_cpfs_capacity_does_not_shrink(pack):
    """Alibaba: a gn7i instance (autoRelease +72 h) and a CPFS of capacity -3600 in its zone,
    cap maxMonthlyUsd 1,000,000. Expect: spend-limit not pass (a negative capacity is a
    violation naming it)."""
    sw = vsw()
    fs = cpfs(capacity=-3600.0)
    i = ecs("gn7i-cpfs", switch=sw, mounts=[fs])
    found = run(pack, [sw, fs, i], {SPEND: {"maxMonthlyUsd": 1000000}}, provider=ALI)
    assert verdict(found, SPEND) != "pass", messages(found, SPEND)








# ============================================== G. scope





def test_g3_gcp_two_clusters_swapped_mounts(pack):
    """The same with the mounts swapped (the zone-a group mounts the zone-b Lustre and the
    reverse). Expect: storage-same-zone fail."""
    la, lb = glustre("lus-a", "us-central1-a"), glustre("lus-b", "us-central1-b")
    ta, tb = gtemplate("ta", "a3-highgpu-8g", [lb]), gtemplate("tb", "a3-highgpu-8g", [la])
    found = run(pack, [la, lb, ta, tb, mig("ma", ta, "us-central1-a"),
                       mig("mb", tb, "us-central1-b")], provider=GCP)
    assert verdict(found, SSZ) == "fail", messages(found, SSZ)




def test_g5_alibaba_instance_mounting_cpfs_in_another_zone(pack):
    """A gn7i instance on a vSwitch in eu-central-1a mounting (userData) a CPFS in
    eu-central-1b. Expect: storage-same-zone fail."""
    sw = vsw()
    fs = cpfs(zone="eu-central-1b")
    found = run(pack, [sw, fs, ecs("gn7i-x", switch=sw, mounts=[fs])], provider=ALI)
    assert verdict(found, SSZ) == "fail", messages(found, SSZ)




# ============================================== H. literal ids

def _literal_pair(group_subnet, fs_subnet):
    t = lt("lit-lt", "p4d.24xlarge")
    g = res("aws:autoscaling/group:Group", "lit", {
        "minSize": 0.0, "maxSize": 2.0, "desiredCapacity": 2.0,
        "launchTemplate": {"id": "lt-id", "version": "$Latest"},
        "vpcZoneIdentifiers": [group_subnet],
        "tags": [{"key": k, "value": v, "propagateAtLaunch": True} for k, v in TAGS.items()]},
        deps={"launchTemplate": [t]})
    f = res("aws:fsx/lustreFileSystem:LustreFileSystem", "lit-fs", {
        "subnetIds": fs_subnet, "storageCapacity": 1200.0, "deploymentType": "PERSISTENT_2",
        "perUnitStorageThroughput": 250.0, "tags": TAGS})
    t.props["userData"] = "IyEvYmluL2Jhc2g="
    t.deps["userData"] = [f]
    return [t, g, f, aws_budget("1000000")]


def test_h1_group_and_filesystem_on_two_literal_subnets(pack):
    """A p4d group on literal subnet-0aa11bb22cc33dd44 mounting the stack's FSx on literal
    subnet-0ee55ff66aa77bb88 (neither created by the stack). Expect: storage-same-zone
    undecided."""
    found = run(pack, _literal_pair("subnet-0aa11bb22cc33dd44", "subnet-0ee55ff66aa77bb88"),
                provider=AWS)
    assert verdict(found, SSZ) == "undecided", messages(found, SSZ)








# ============================================== I. public exposure





def test_i3_alibaba_eip_on_gpu_instance(pack):
    """An alicloud.ecs.EipAssociation (instanceType EcsInstance) binding an EIP to a gn7i
    instance of the stack. Expect: no-public-ingress fail."""
    sw = vsw()
    i = ecs("gn7i-eip", switch=sw)
    a = res("alicloud:ecs/eipAssociation:EipAssociation", "bind", {
        "allocationId": "eip-0abc", "instanceId": "i-id", "instanceType": "EcsInstance"},
        deps={"instanceId": [i]})
    found = run(pack, [sw, i, a], provider=ALI)
    assert verdict(found, NPI) == "fail", messages(found, NPI)








# ============================================== J. configuration over gRPC (Configure)

@pytest.mark.parametrize("policy,key,value", [
    (SPEND, "cannotDecide", "sometimes"),                  # J3 not in the enum
    (SSZ, "zones", ["subnet-0aa11bb22cc33dd44"]),          # J4 list, not a map
    (NPI, "sshCidrs", "203.0.113.0/24"),                   # J5 a string, not a list
    ("required-tags", "requiredTags", "owner"),            # J7 a string, not a list
])
def test_j_config_of_wrong_key_or_type_is_refused(pack, policy, key, value):
    """Each is sent as the CLI would send a policy-config file (the harness's send_config, no
    schema check on this side). Expect: Configure answers INVALID_ARGUMENT naming the key."""
    assert key in _config_refused(pack, policy, key, value)




# ============================================== K. catalog reach













def test_k7_estimate_shows_the_catalog_date(pack):
    """The issue: "keep the catalog's date visible in every estimate". A g4dn.xlarge instance
    over a cap of 1 USD. Expect: the exceeding message carries a date (YYYY-MM-DD)."""
    import re
    found = run(pack, [ec2("t4", "g4dn.xlarge"), aws_budget("1000")],
                {SPEND: {"maxMonthlyUsd": 1}}, provider=AWS)
    msg = messages(found, SPEND)
    assert "exceed" in msg and re.search(r"\d{4}-\d{2}-\d{2}", msg), msg


# ============================================== round 2 (written after round 1 agreed; committed
# with its expectations before its first run)

def _next_utc(hour, pred, days=60):
    """Hours to the first HH:00 UTC after now on a day where pred(day) holds."""
    now = _now()
    base = now.replace(hour=hour, minute=0, second=0, microsecond=0)
    for d in range(days):
        cand = base + timedelta(days=d)
        if cand > now and pred(cand):
            return (cand - now).total_seconds() / 3600
    return None


def test_r1_cron_day_of_month_or_day_of_week(pack):
    """A stop Schedule recurrence "0 12 1 * 0": in unix cron, with both day-of-month and
    day-of-week restricted, it runs when EITHER matches (the 1st, or any Sunday; crontab(5)).
    Expect: 2 x 21.9576 x hours to the earlier of the next Sunday 12:00 UTC and the next 1st
    12:00 UTC (under 7 days), not the month."""
    st = _p4d_asg()
    stop = _sched("or", st[2], recurrence="0 12 1 * 0")
    h = _next_utc(12, lambda c: c.day == 1 or c.weekday() == 6)
    assert _lifetime_ok(estimate(pack, st + [stop], AWS), 2 * P4D, h)


def test_r2_posix_zone_with_inverted_sign(pack):
    """A stop Schedule "0 18 * * *" with timeZone "Etc/GMT+5", which the IANA database defines
    as UTC-5 (the POSIX sign is inverted). Expect: 2 x 21.9576 x hours to the next 23:00 UTC."""
    st = _p4d_asg()
    stop = _sched("posix", st[2], recurrence="0 18 * * *", timeZone="Etc/GMT+5")
    h = _next_daily(18, 0, "Etc/GMT+5")
    assert _lifetime_ok(estimate(pack, st + [stop], AWS), 2 * P4D, h)


def test_r3_scheduler_flexible_window_adds_its_minutes(pack):
    """A Scheduler stopInstances at(+10 h) UTC with flexibleTimeWindow FLEXIBLE, 120 minutes:
    the stop may run up to 2 h late. Expect: 12 h: 21.9576 x 12 = 263.49."""
    i = ec2("p4d-flex", "p4d.24xlarge")
    s = _aws_scheduler("flex", "arn:aws:scheduler:::aws-sdk:ec2:stopInstances",
                       {"InstanceIds": ["i-id"]},
                       "at(" + hours_from_now(10)[:-1] + ")", deps={"target": [i]})
    s.props["flexibleTimeWindow"] = {"mode": "FLEXIBLE", "maximumWindowInMinutes": 120.0}
    assert _lifetime_ok(estimate(pack, [i, s], AWS), P4D, 12)


def test_r4_scheduler_cron_that_ends_before_its_next_run(pack):
    """A Scheduler stopInstances cron(0 12 * * ? *) whose endDate is one minute from now (the
    next 12:00 UTC is later unless the test runs at 11:59). Expect: the month, 16,029.05."""
    i = ec2("p4d-end", "p4d.24xlarge")
    s = _aws_scheduler("ended", "arn:aws:scheduler:::aws-sdk:ec2:stopInstances",
                       {"InstanceIds": ["i-id"]}, "cron(0 12 * * ? *)", deps={"target": [i]},
                       endDate=(_now() + timedelta(minutes=1)).strftime("%Y-%m-%dT%H:%M:%SZ"))
    assert near(estimate(pack, [i, s], AWS), P4D * MONTH)


def test_r5_gcp_instance_schedule_with_a_start_is_a_pause(pack):
    """A ResourcePolicy instanceSchedulePolicy with vmStopSchedule "0 22 * * *" AND
    vmStartSchedule "0 6 * * *" (UTC) on an a3-highgpu-8g VM. Expect: the month,
    88.49 x 730 = 64,597.70."""
    rp = res("gcp:compute/resourcePolicy:ResourcePolicy", "office-hours", {
        "region": "us-central1", "instanceSchedulePolicy": {
            "vmStopSchedule": {"schedule": "0 22 * * *"},
            "vmStartSchedule": {"schedule": "0 6 * * *"}, "timeZone": "UTC"}})
    vm = gvm("a3-oh", "a3-highgpu-8g", resourcePolicies=["rp-id"])
    vm.deps["resourcePolicies"] = [rp]
    assert near(estimate(pack, [rp, vm], GCP), A3_8 * MONTH, slack=5)


def _tagged_p4d(team, size, zone="us-east-1a", region=None):
    s = subnet(f"sn-{team}", zone)
    t = lt(f"lt-{team}", "p4d.24xlarge")
    tags = {**TAGS, "team": team}
    g = asg(f"g-{team}", t, [s], size, tags=[{"key": k, "value": v, "propagateAtLaunch": True}
                                            for k, v in tags.items()])
    if region:
        for r in (s, t, g):
            r.provider_region = region
    return [s, t, g]


def test_r6_region_budget_leaves_the_other_regions_group_out(pack):
    """A p4d group in us-east-1 and one in us-west-2 (each on its region's provider); the only
    budget is filtered to Region us-east-1. Expect: spend-limit fail (no budget alarm on aws
    for the us-west-2 group)."""
    east = _tagged_p4d("east", 1, "us-east-1a", "us-east-1")
    west = _tagged_p4d("west", 1, "us-west-2a", "us-west-2")
    b = aws_budget("1000000", costFilters=[{"name": "Region", "values": ["us-east-1"]}])
    b.provider_region = "us-east-1"
    found = run(pack, east + west + [b], provider=None)
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)
    assert "g-west" in messages(found, SPEND)


def test_r7_per_team_budgets_each_cap_their_own_group(pack):
    """Group A (team=alpha, 2 p4d: 2 x 21.9576 x 730 = 32,058.10) under a TagKeyValue
    "user:team$alpha" budget of 40,000; group B (team=beta, 1 p4d: 16,029.05) under a
    "user:team$beta" budget of 10,000. Expect: spend-limit fail (B's cost exceeds B's budget)."""
    a, b = _tagged_p4d("alpha", 2), _tagged_p4d("beta", 1)
    ba = aws_budget("40000", name="b-alpha",
                    costFilters=[{"name": "TagKeyValue", "values": ["user:team$alpha"]}])
    bb = aws_budget("10000", name="b-beta",
                    costFilters=[{"name": "TagKeyValue", "values": ["user:team$beta"]}])
    found = run(pack, a + b + [ba, bb], provider=AWS)
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)
    assert "b-beta" in messages(found, SPEND)


def test_r8_annual_aws_budget_is_not_a_monthly_cap_of_its_amount(pack):
    """A COST budget timeUnit ANNUALLY of 120,000 (10,000 a month) over 2 x p4d (32,058.10 a
    month, 384,697 a year). Expect: spend-limit not pass (the year's budget is spent in under
    four months; reading 120,000 as a monthly cap would pass it)."""
    b = aws_budget("120000", timeUnit="ANNUALLY")
    found = run(pack, _p4d_asg() + [b], provider=AWS)
    assert verdict(found, SPEND) != "pass", messages(found, SPEND)


def test_r9_daily_aws_budget_covering_the_days_spend(pack):
    """A COST budget timeUnit DAILY of 1,500 over 2 x p4d (2 x 21.9576 x 24 = 1,053.96 a day).
    Expect: spend-limit not a failure (pass, or "cannot decide"): the daily budget covers the
    day's spend; comparing 1,500 with the month's 32,058 would be a false alarm."""
    b = aws_budget("1500", timeUnit="DAILY")
    found = run(pack, _p4d_asg() + [b], provider=AWS)
    assert verdict(found, SPEND) != "fail", messages(found, SPEND)


def test_r10_annual_azure_budget(pack):
    """An azure-native Budget timeGrain Annually of 120,000 over a scale set of 4
    Standard_NC48ads_A100_v4 (4 x 7.346 x 730 = 21,450.32 a month, 257,404 a year).
    Expect: spend-limit not pass."""
    b = az_budget(120000.0, timeGrain="Annually")
    found = run(pack, [vmss("a100x4", "Standard_NC48ads_A100_v4", 4.0), b], provider=AZ)
    assert verdict(found, SPEND) != "pass", messages(found, SPEND)




def test_r12_negative_scale_set_decoy_does_not_cancel(pack):
    """A scale set of capacity -2 (a decoy) beside a real one of 2 Standard_NC48ads_A100_v4
    (2 x 7.346 x 730 = 10,725.16) under a 10,000 budget. Expect: spend-limit fail."""
    found = run(pack, [vmss("decoy", "Standard_NC48ads_A100_v4", -2.0),
                       vmss("real", "Standard_NC48ads_A100_v4", 2.0),
                       az_budget(10000.0)], provider=AZ)
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)


def test_r13_gcp_regional_mig_spanning_zones_mounting_one_lustre(pack):
    """A RegionInstanceGroupManager of a3-highgpu-8g over us-central1-a and us-central1-b whose
    template mounts a Managed Lustre in us-central1-a. Expect: storage-same-zone fail (a group
    seen to mount it spans two zones)."""
    lus = glustre("lus", "us-central1-a")
    t = gtemplate("a3-tpl", "a3-highgpu-8g", [lus])
    m = res("gcp:compute/regionInstanceGroupManager:RegionInstanceGroupManager", "a3-r", {
        "region": "us-central1", "targetSize": 2.0, "baseInstanceName": "a3",
        "distributionPolicyZones": ["us-central1-a", "us-central1-b"],
        "versions": [{"instanceTemplate": "tpl-id", "name": "primary"}]},
        deps={"versions": [t]})
    found = run(pack, [lus, t, m, gcp_budget("1000000")], provider=GCP)
    assert verdict(found, SSZ) == "fail", messages(found, SSZ)


def _fsx_by_dns(zone_cfg=None):
    import base64
    script = ("#!/bin/bash\nmount -t lustre fs-0123456789abcdef0.fsx.us-east-1.amazonaws.com"
              "@tcp:/abcdefgh /fsx\n")
    s = subnet("dns-sn", "us-east-1a")
    t = lt("dns-lt", "p4d.24xlarge", userData=base64.b64encode(script.encode()).decode())
    found_cfg = {SSZ: {"zones": zone_cfg}} if zone_cfg else None
    return [s, t, asg("dns", t, [s], 2), aws_budget("1000000")], found_cfg


def test_r14_fsx_mounted_by_literal_dns_name_is_undecided(pack):
    """A p4d group in us-east-1a whose launch template's user data (base64) mounts
    fs-0123456789abcdef0.fsx.us-east-1.amazonaws.com, a file system the stack does not create.
    Expect: storage-same-zone undecided (zone not told)."""
    stack, cfg = _fsx_by_dns()
    found = run(pack, stack, cfg, provider=AWS)
    assert verdict(found, SSZ) == "undecided", messages(found, SSZ)


def test_r15_fsx_by_dns_name_told_in_another_zone(pack):
    """The same with config zones {"fs-0123456789abcdef0": "us-east-1b"}. Expect: fail."""
    stack, cfg = _fsx_by_dns({"fs-0123456789abcdef0": "us-east-1b"})
    found = run(pack, stack, cfg, provider=AWS)
    assert verdict(found, SSZ) == "fail", messages(found, SSZ)


def test_r16_eip_on_an_eni_attached_to_a_gpu_instance(pack):
    """An aws.ec2.NetworkInterface attached (attachments: instance) to a p4d instance of the
    stack, and an EipAssociation with networkInterfaceId of that ENI. Expect: no-public-ingress
    fail (an Elastic IP reaches the GPU node)."""
    s = subnet("eni-sn", "us-east-1a")
    i = ec2("p4d-eni", "p4d.24xlarge", on_subnet=s)
    eni = res("aws:ec2/networkInterface:NetworkInterface", "eni", {
        "subnetId": "sn-id", "attachments": [{"instance": "i-id", "deviceIndex": 1.0}],
        "tags": TAGS}, deps={"subnetId": [s], "attachments": [i]})
    a = res("aws:ec2/eipAssociation:EipAssociation", "eni-ip", {
        "allocationId": "eipalloc-0123456789abcdef0", "networkInterfaceId": "eni-id"},
        deps={"networkInterfaceId": [eni]})
    found = run(pack, [s, i, eni, a, aws_budget("100000")], provider=AWS)
    assert verdict(found, NPI) == "fail", messages(found, NPI)


def test_r17_gcp_external_forwarding_rule_to_a_target_pool_of_gpu_vms(pack):
    """A gcp TargetPool holding a g2-standard-4 VM of the stack and a regional ForwardingRule
    (loadBalancingScheme left out: EXTERNAL by default) to it on port 8000.
    Expect: no-public-ingress fail."""
    vm = gvm("l4-serve", "g2-standard-4")
    tp = res("gcp:compute/targetPool:TargetPool", "pool", {
        "region": "us-central1", "instances": ["us-central1-a/l4-serve"]},
        deps={"instances": [vm]})
    fr = res("gcp:compute/forwardingRule:ForwardingRule", "fr", {
        "region": "us-central1", "portRange": "8000", "target": "tp-id",
        "ipProtocol": "TCP"}, deps={"target": [tp]})
    found = run(pack, [vm, tp, fr, gcp_budget()], provider=GCP)
    assert verdict(found, NPI) == "fail", messages(found, NPI)


def test_r18_bare_name_in_skip_resources_is_refused(pack):
    """skipResources ["web"] on no-public-ingress (a bare name; docs/policies.md: refused by the
    schema). Expect: Configure answers INVALID_ARGUMENT naming skipResources."""
    assert "skipResources" in _config_refused(pack, NPI, "skipResources", ["web"])


@pytest.mark.parametrize("build,provider,rate", [
    (lambda: ec2("amd", "g4ad.xlarge"), AWS, 0.37853),
    (lambda: gvm("b200", "a4-highgpu-8g", zone="us-central1-b"), GCP, 90.216),
])
def test_r19_catalog_reach_newer_and_rarer_gpu_types(pack, build, provider, rate):
    """g4ad.xlarge (AMD Radeon Pro V520) in us-east-1 at 0.37853; a4-highgpu-8g (B200) in
    us-central1-b at 90.216. Expect: estimate rate x 730 (276.33; 65,857.68)."""
    assert near(estimate(pack, [build()], provider), rate * MONTH, slack=3)


# ============================================== round 3 (after round 2 agreed; committed with its
# expectations before its first run)

def test_s1_cron_with_a_month_name(pack):
    """A stop Schedule recurrence "0 12 1 JAN *" (month names are unix cron): next run
    2027-01-01 12:00 UTC, inside the month from 2026-12-06. Expect: 2 x 21.9576 x hours to the
    next 1 January 12:00 UTC when that is within 730 h, else the month."""
    st = _p4d_asg()
    stop = _sched("newyear", st[2], recurrence="0 12 1 JAN *")
    h = _next_utc(12, lambda c: c.day == 1 and c.month == 1, days=400)
    got = estimate(pack, st + [stop], AWS)
    assert _lifetime_ok(got, 2 * P4D, min(h, MONTH)), (got, h)


def test_s2_cron_hour_range_with_a_step(pack):
    """A stop Schedule recurrence "0 9-17/4 * * *" (09:00, 13:00, 17:00 UTC). Expect:
    2 x 21.9576 x hours to the next of those."""
    st = _p4d_asg()
    stop = _sched("step", st[2], recurrence="0 9-17/4 * * *")
    h = min(_next_utc(hh, lambda c: True) for hh in (9, 13, 17))
    assert _lifetime_ok(estimate(pack, st + [stop], AWS), 2 * P4D, h)


def test_s3_scheduler_at_in_the_past_never_runs(pack):
    """A Scheduler stopInstances at(...) 3 h in the past (UTC). Expect: no lifetime: the month,
    21.9576 x 730 = 16,029.05 (or "cannot decide"; never 0 h)."""
    i = ec2("p4d-past", "p4d.24xlarge")
    past = (_now() - timedelta(hours=3)).strftime("%Y-%m-%dT%H:%M:%S")
    s = _aws_scheduler("past", "arn:aws:scheduler:::aws-sdk:ec2:stopInstances",
                       {"InstanceIds": ["i-id"]}, f"at({past})", deps={"target": [i]})
    found = run(pack, [i, s, aws_budget("10000")], provider=AWS)
    assert verdict(found, SPEND) != "pass", messages(found, SPEND)




def test_s5_gcp_yearly_budget(pack):
    """A GCP budget of 120,000 USD with budgetFilter.calendarPeriod YEAR (10,000 a month) over
    a MIG of 10 g2-standard-24 (14,606.06 a month). Expect: spend-limit not pass."""
    t = gtemplate("l4y-tpl", "g2-standard-24")
    b = gcp_budget("120000", budgetFilter={"calendarPeriod": "YEAR"})
    found = run(pack, [t, mig("l4y", t, "us-central1-a", 10), b], provider=GCP)
    assert verdict(found, SPEND) != "pass", messages(found, SPEND)


def test_s6_gcp_custom_period_that_ended(pack):
    """A GCP budget of 1,000,000 whose budgetFilter.customPeriod ran 2025-01-01..2025-12-31.
    Expect: spend-limit fail (tracks nothing now: no alarm)."""
    b = gcp_budget("1000000", budgetFilter={"customPeriod": {
        "startDate": {"year": 2025.0, "month": 1.0, "day": 1.0},
        "endDate": {"year": 2025.0, "month": 12.0, "day": 31.0}}})
    found = run(pack, [gvm("l4", "g2-standard-4"), b], provider=GCP)
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)


def test_s7_efs_one_zone_in_another_zone_through_a_mount_target(pack):
    """A p4d group in us-east-1a whose launch template's user data is built from an EFS mount
    target of an EFS One Zone file system (availabilityZoneName us-east-1b).
    Expect: storage-same-zone fail."""
    sa, sb = subnet("efs-a", "us-east-1a"), subnet("efs-b", "us-east-1b")
    efs = res("aws:efs/fileSystem:FileSystem", "onezone", {
        "availabilityZoneName": "us-east-1b", "encrypted": True, "tags": TAGS})
    mt = res("aws:efs/mountTarget:MountTarget", "mt", {
        "fileSystemId": "fs-id", "subnetId": "sn-id"},
        deps={"fileSystemId": [efs], "subnetId": [sb]})
    t = lt("efs-lt", "p4d.24xlarge", mounts=[mt])
    found = run(pack, [sa, sb, efs, mt, t, asg("efs", t, [sa], 2), aws_budget("1000000")],
                provider=AWS)
    assert verdict(found, SSZ) == "fail", messages(found, SSZ)


def test_s8_azure_scale_set_with_public_ip_configuration(pack):
    """An azure-native scale set of Standard_NC24ads_A100_v4 whose ipConfiguration has a
    publicIPAddressConfiguration (every VM gets a public IP). Expect: no-public-ingress fail."""
    ss = vmss("a100-pub", "Standard_NC24ads_A100_v4", 2.0)
    ss.props["virtualMachineProfile"]["networkProfile"]["networkInterfaceConfigurations"][0][
        "ipConfigurations"][0]["publicIPAddressConfiguration"] = {"name": "pub",
                                                                  "idleTimeoutInMinutes": 15.0}
    found = run(pack, [ss, az_budget(100000.0)], provider=AZ)
    assert verdict(found, NPI) == "fail", messages(found, NPI)


def test_s9_odcr_that_ends_in_two_days(pack):
    """A targeted ODCR of 2 p4d.24xlarge in us-east-1a with endDateType limited and endDate
    +48 h (docs.aws.amazon.com/AWSEC2/latest/APIReference/API_CreateCapacityReservation.html:
    the reservation is cancelled at EndDate), no group in it. Expect: estimate
    2 x 21.9576 x 48 = 2,107.93 (at most the month's 32,058.10; never below 48 h)."""
    cr = _odcr("p4d-2d", "p4d.24xlarge", 2, instanceMatchCriteria="targeted",
               endDateType="limited", endDate=hours_from_now(48))
    got = estimate(pack, [cr], AWS)
    assert _lifetime_ok(got, 2 * P4D, 48), got


def test_s10_azure_spot_scale_set_priority_mix(pack):
    """An azure-native Spot scale set of 5 Standard_NC24ads_A100_v4 with priorityMixPolicy
    baseRegularPriorityCount 1, regularPriorityPercentageAboveBase 50: 1 + 50% of 4 = 3 Regular,
    2 Spot. Expect: (3 x 3.673 + 2 x 0.444433) x 730 = 8,692.74."""
    ss = vmss("mix", "Standard_NC24ads_A100_v4", 5.0, orchestrationMode="Flexible",
              priorityMixPolicy={"baseRegularPriorityCount": 1.0,
                                 "regularPriorityPercentageAboveBase": 50.0})
    ss.props["virtualMachineProfile"]["priority"] = "Spot"
    ss.props["virtualMachineProfile"]["evictionPolicy"] = "Delete"
    assert near(estimate(pack, [ss], AZ), (3 * NC24 + 2 * 0.444433) * MONTH, slack=3)


def test_s11_weighted_mixed_instances_group(pack):
    """An ASG of maxSize 10 capacity units with a mixed instances policy: g5.xlarge weight 1
    (1.006 per unit) and g5.12xlarge weight 4 (5.672 / 4 = 1.418 per unit), all On-Demand.
    docs/policies.md: maxSize plus the largest weight, units at each type's price per unit;
    the bound is 14 units at the dearest per unit. Expect: 14 x 1.418 x 730 = 14,491.96."""
    s = subnet("mip", "us-east-1a")
    t = lt("mip-lt", "g5.xlarge")
    g = res("aws:autoscaling/group:Group", "mip", {
        "minSize": 0.0, "maxSize": 10.0, "desiredCapacity": 4.0,
        "vpcZoneIdentifiers": ["subnet-id"], "mixedInstancesPolicy": {
            "launchTemplate": {"launchTemplateSpecification": {
                "launchTemplateId": "lt-id", "version": "$Latest"}, "overrides": [
                {"instanceType": "g5.xlarge", "weightedCapacity": "1"},
                {"instanceType": "g5.12xlarge", "weightedCapacity": "4"}]},
            "instancesDistribution": {"onDemandPercentageAboveBaseCapacity": 100.0}},
        "tags": [{"key": k, "value": v, "propagateAtLaunch": True} for k, v in TAGS.items()]},
        deps={"mixedInstancesPolicy": [t], "vpcZoneIdentifiers": [s]})
    assert near(estimate(pack, [s, t, g], AWS), 14 * (G5_12 / 4) * MONTH, slack=3)


# ============================================== round 4 (after round 3 agreed; committed with its
# expectations before its first run)

def test_t1_aws_budget_on_a_linked_account_the_stack_cannot_see(pack):
    """The only AWS budget is filtered to LinkedAccount 111122223333; the provider names no
    account, so whether the stack deploys there cannot be read at preview (as a filter on tags
    unknown at preview). Expect: spend-limit undecided."""
    b = aws_budget("100000", costFilters=[{"name": "LinkedAccount",
                                           "values": ["111122223333"]}])
    found = run(pack, _p4d_asg() + [b], provider=AWS)
    assert verdict(found, SPEND) == "undecided", messages(found, SPEND)


def test_t2_aws_budget_on_another_linked_account(pack):
    """The same with the provider's allowedAccountIds ["444455556666"]: the budget tracks
    another account. Expect: spend-limit fail (no budget alarm on aws)."""
    b = aws_budget("100000", costFilters=[{"name": "LinkedAccount",
                                           "values": ["111122223333"]}])
    found = run(pack, _p4d_asg() + [b],
                provider={"region": "us-east-1", "allowedAccountIds": ["444455556666"]})
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)


def test_t3_gcp_budget_on_cloud_storage_only(pack):
    """A GCP budget with budgetFilter.services ["services/95FF-2EF5-5EA1"] (Cloud Storage; the
    Compute Engine service is 6F81-5844-456A, cloud.google.com/skus). Expect: spend-limit fail
    (a service filter without compute)."""
    b = gcp_budget(budgetFilter={"services": ["services/95FF-2EF5-5EA1"]})
    found = run(pack, [gvm("l4", "g2-standard-4"), b], provider=GCP)
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)


def test_t4_azure_budget_on_a_management_group(pack):
    """An azure-native Budget whose scope is a management group
    (/providers/Microsoft.Management/managementGroups/ml-mg): whether the compute's
    subscription is under it cannot be read from the stack. Expect: spend-limit undecided."""
    b = az_budget(100000.0, scope="/providers/Microsoft.Management/managementGroups/ml-mg")
    found = run(pack, [vmss("t4", "Standard_NC4as_T4_v3", 2.0), b], provider=AZ)
    assert verdict(found, SPEND) == "undecided", messages(found, SPEND)


def test_t5_aws_native_open_reservation_and_classic_instances_once(pack):
    """An aws-native ec2 CapacityReservation (open) of 2 g5.12xlarge in us-east-1a and two
    classic aws.ec2.Instance g5.12xlarge there (open preference by default).
    Expect: estimate 2 x 5.672 x 730 = 8,281.12 (once)."""
    cr = res("aws-native:ec2:CapacityReservation", "native-cr", {
        "instanceType": "g5.12xlarge", "instanceCount": 2.0, "availabilityZone": "us-east-1a",
        "instancePlatform": "Linux/UNIX", "instanceMatchCriteria": "open"})
    vms = [ec2(f"g5n-{i}", "g5.12xlarge") for i in range(2)]
    assert near(estimate(pack, [cr, *vms], AWS), 2 * G5_12 * MONTH)


def test_t6_gke_pool_consuming_a_specific_reservation_once(pack):
    """A specific reservation (specificReservationRequired) of 2 a2-highgpu-4g in us-central1-a
    and a GKE node pool there, autoscaling max 2, whose nodeConfig.reservationAffinity is
    SPECIFIC_RESERVATION naming it (cloud.google.com/kubernetes-engine/docs/how-to/
    consuming-reservations). Expect: estimate 2 x 14.6935 x 730 = 21,452.51 (once)."""
    r = _greservation("a2-gke", "a2-highgpu-4g", 2, specificReservationRequired=True)
    p = _gke_pool("a2-pool", "a2-highgpu-4g", 2.0)
    p.props["nodeConfig"]["reservationAffinity"] = {
        "consumeReservationType": "SPECIFIC_RESERVATION",
        "key": "compute.googleapis.com/reservation-name", "values": ["a2-gke"]}
    p.deps["nodeConfig"] = [r]
    assert near(estimate(pack, [r, p], GCP), 2 * A2_4 * MONTH)


def test_t7_azure_autoscale_maximum_text(pack):
    """An enabled AutoscaleSetting on a scale set of 2 Standard_NC24ads_A100_v4 whose profile
    capacity maximum is "ten", under a 1,000,000 budget. Expect: spend-limit not pass (never
    read as 0 or left at the set's 2)."""
    ss = vmss("a100-as", "Standard_NC24ads_A100_v4", 2.0)
    a = res("azure-native:monitor:AutoscaleSetting", "as", {
        "resourceGroupName": "ml-rg", "location": "eastus", "enabled": True,
        "targetResourceUri": "vmss-id", "profiles": [{
            "name": "default", "capacity": {"minimum": "1", "maximum": "ten", "default": "2"},
            "rules": []}]}, deps={"targetResourceUri": [ss]})
    found = run(pack, [ss, a, az_budget(1000000.0)], provider=AZ)
    assert verdict(found, SPEND) != "pass", messages(found, SPEND)


def test_t8_gcp_cpu_mig_with_its_own_lustre_elsewhere(pack):
    """A GPU MIG (a3-highgpu-8g, us-central1-a) mounting a Lustre in us-central1-a, and a CPU
    MIG (n2-standard-8, us-central1-b) mounting a Lustre in us-central1-b.
    Expect: storage-same-zone pass."""
    la, lb = glustre("lus-gpu", "us-central1-a"), glustre("lus-cpu", "us-central1-b")
    tg, tc = gtemplate("gpu-t", "a3-highgpu-8g", [la]), gtemplate("cpu-t", "n2-standard-8", [lb])
    found = run(pack, [la, lb, tg, tc, mig("gpu-m", tg, "us-central1-a"),
                       mig("cpu-m", tc, "us-central1-b", 4)], provider=GCP)
    assert verdict(found, SSZ) == "pass", messages(found, SSZ)


def test_t9_alibaba_scaling_configuration_with_public_bandwidth(pack):
    """An ESS scaling configuration of ecs.gn7i-c8g1.2xlarge with internetMaxBandwidthOut 10
    (each node gets a public IP). Expect: no-public-ingress fail."""
    sg, conf = _ess("pub", "ecs.gn7i-c8g1.2xlarge", 0.0, 2.0, switch=vsw(),
                    internetMaxBandwidthOut=10.0)
    found = run(pack, [sg, conf], provider=ALI)
    assert verdict(found, NPI) == "fail", messages(found, NPI)


def test_t10_alibaba_ess_one_time_stop(pack):
    """An ESS group of max 4 ecs.gn7i-c8g1.2xlarge and one enabled ScheduledTask at +30 h that
    sets min/max/desired 0, nothing raising it. Expect: 4 x 2.56083 x 30 = 307.30."""
    sg, conf = _ess("stop", "ecs.gn7i-c8g1.2xlarge", 0.0, 4.0)
    down = res("alicloud:ess/scheduledTask:ScheduledTask", "down30", {
        "scheduledTaskName": "down30", "scalingGroupId": "sg-id",
        "launchTime": hours_from_now(30)[:-4] + "Z", "minValue": 0.0, "maxValue": 0.0,
        "desiredCapacity": 0.0, "taskEnabled": True}, deps={"scalingGroupId": [sg]})
    assert _lifetime_ok(estimate(pack, [sg, conf, down], ALI), 4 * GN7I_8, 30 - 1 / 60)


# ============================================== round 5 (after round 4; committed with its
# expectations before its first run)

def test_u1_gcp_instance_schedule_not_before_its_start_time(pack):
    """An instance schedule with vmStopSchedule "0 22 * * *" (UTC), no start schedule, and
    startTime +72 h, on an a3-highgpu-8g VM: the first stop is the first 22:00 UTC at or after
    its startTime. Expect: 88.49 x hours to then (72-96 h)."""
    start = _now() + timedelta(hours=72)
    rp = res("gcp:compute/resourcePolicy:ResourcePolicy", "later", {
        "region": "us-central1", "instanceSchedulePolicy": {
            "vmStopSchedule": {"schedule": "0 22 * * *"}, "timeZone": "UTC",
            "startTime": start.strftime("%Y-%m-%dT%H:%M:%SZ")}})
    vm = gvm("a3-later", "a3-highgpu-8g", resourcePolicies=["rp-id"])
    vm.deps["resourcePolicies"] = [rp]
    first = start.replace(hour=22, minute=0, second=0, microsecond=0)
    if first < start:
        first += timedelta(days=1)
    h = (first - _now()).total_seconds() / 3600
    assert _lifetime_ok(estimate(pack, [rp, vm], GCP), A3_8, h)


def test_u2_gcp_termination_time_with_an_offset(pack):
    """An a3-highgpu-8g VM (instanceTerminationAction DELETE) whose scheduling.terminationTime
    is RFC 3339 with a +05:30 offset, 20 h from now. Expect: 20 h: 88.49 x 20 = 1,769.80."""
    at = (_now() + timedelta(hours=20)).astimezone(timezone(timedelta(hours=5, minutes=30)))
    vm = gvm("a3-off", "a3-highgpu-8g", scheduling={
        "onHostMaintenance": "TERMINATE", "automaticRestart": False,
        "provisioningModel": "STANDARD", "instanceTerminationAction": "DELETE",
        "terminationTime": at.isoformat(timespec="seconds")})
    assert _lifetime_ok(estimate(pack, [vm], GCP), A3_8, 20 - 1 / 60)


def test_u3_budget_whose_sns_topic_is_unknown_at_preview_still_alarms(pack):
    """An AWS COST budget of 100,000 whose only notification (FORECASTED, 100 %) goes to an
    SNS topic the stack creates (subscriberSnsTopicArns unknown at preview). Expect:
    spend-limit not a failure (a subscriber unknown at preview is still a subscriber)."""
    from trainstack_policies.model import UNKNOWN
    topic = res("aws:sns/topic:Topic", "budget-alerts", {"tags": TAGS})
    b = aws_budget("100000", notifications=[{
        "comparisonOperator": "GREATER_THAN", "threshold": 100.0,
        "thresholdType": "PERCENTAGE", "notificationType": "FORECASTED",
        "subscriberSnsTopicArns": UNKNOWN}])
    b.deps["notifications"] = [topic]
    found = run(pack, _p4d_asg() + [topic, b], provider=AWS)
    assert verdict(found, SPEND) != "fail", messages(found, SPEND)


def test_u4_two_groups_share_one_open_reservation(pack):
    """An open ODCR of 2 g5.12xlarge in us-east-1a and two On-Demand ASGs of 2 g5.12xlarge
    there: at most 2 of the 4 nodes run inside it. Expect: estimate 4 x 5.672 x 730 =
    16,562.24 (not 2 x: the reservation absorbs no more than its count)."""
    s = subnet("share", "us-east-1a")
    cr = _odcr("shared", "g5.12xlarge", 2)
    ta, tb = lt("sa-lt", "g5.12xlarge"), lt("sb-lt", "g5.12xlarge")
    stack = [s, cr, ta, tb, asg("sa", ta, [s], 2), asg("sb", tb, [s], 2)]
    assert near(estimate(pack, stack, AWS), 4 * G5_12 * MONTH)


def test_u5_azure_two_zones_mounting_one_amlfs(pack):
    """Two scale sets of Standard_NC24ads_A100_v4, one in zone 1 and one in zone 2, both
    mounting (custom data) one AMLFS in zone 1. Expect: storage-same-zone fail."""
    fs = _amlfs("shared-fs", "1")
    s1 = vmss("z1", "Standard_NC24ads_A100_v4", 2.0, zones=("1",),
              deps={"virtualMachineProfile": [fs]})
    s2 = vmss("z2", "Standard_NC24ads_A100_v4", 2.0, zones=("2",),
              deps={"virtualMachineProfile": [fs]})
    found = run(pack, [fs, s1, s2, az_budget(100000.0)], provider=AZ)
    assert verdict(found, SSZ) == "fail", messages(found, SSZ)


def test_u6_internet_facing_alb_to_a_gpu_instance(pack):
    """An aws.lb.LoadBalancer (application, internal false) with a listener forwarding to a
    target group to which a g5.xlarge instance is attached (TargetGroupAttachment).
    Expect: no-public-ingress fail (GPU nodes behind an internet-facing balancer)."""
    s = subnet("lb-sn", "us-east-1a")
    i = ec2("g5-web", "g5.xlarge", on_subnet=s)
    lb = res("aws:lb/loadBalancer:LoadBalancer", "pub-alb", {
        "internal": False, "loadBalancerType": "application", "subnets": ["sn-id"],
        "tags": TAGS}, deps={"subnets": [s]})
    tg = res("aws:lb/targetGroup:TargetGroup", "tg", {
        "port": 8000.0, "protocol": "HTTP", "vpcId": "vpc-0team", "targetType": "instance",
        "tags": TAGS})
    ls = res("aws:lb/listener:Listener", "http", {
        "loadBalancerArn": "lb-arn", "port": 80.0, "protocol": "HTTP",
        "defaultActions": [{"type": "forward", "targetGroupArn": "tg-arn"}]},
        deps={"loadBalancerArn": [lb], "defaultActions": [tg]})
    at = res("aws:lb/targetGroupAttachment:TargetGroupAttachment", "att", {
        "targetGroupArn": "tg-arn", "targetId": "i-id", "port": 8000.0},
        deps={"targetGroupArn": [tg], "targetId": [i]})
    found = run(pack, [s, i, lb, tg, ls, at, aws_budget()], provider=AWS)
    assert verdict(found, NPI) == "fail", messages(found, NPI)


def test_u7_azure_nsg_rule_from_the_internet_service_tag(pack):
    """An azure-native NetworkSecurityGroup allowing TCP 8888 inbound from the service tag
    "Internet" (every public address, learn.microsoft.com/azure/virtual-network/
    service-tags-overview). Expect: no-public-ingress fail."""
    nsg = res("azure-native:network:NetworkSecurityGroup", "jupyter-nsg", {
        "resourceGroupName": "ml-rg", "location": "eastus", "tags": TAGS, "securityRules": [{
            "name": "jupyter", "access": "Allow", "direction": "Inbound", "priority": 200.0,
            "protocol": "Tcp", "sourceAddressPrefix": "Internet", "sourcePortRange": "*",
            "destinationAddressPrefix": "*", "destinationPortRange": "8888"}]})
    found = run(pack, [nsg], provider=AZ)
    assert verdict(found, NPI) == "fail", messages(found, NPI)


def test_u8_ssh_cidr_allowance_does_not_open_another_port(pack):
    """sshCidrs ["0.0.0.0/0"] and a SecurityGroupIngressRule from 0.0.0.0/0 on TCP 2222 (SSH on
    a moved port is not TCP 22). Expect: no-public-ingress fail."""
    sg = res("aws:ec2/securityGroup:SecurityGroup", "ssh-sg", {"vpcId": "vpc-0team",
                                                               "tags": TAGS})
    rule = res("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule", "ssh2222", {
        "securityGroupId": "sg-id", "cidrIpv4": "0.0.0.0/0", "fromPort": 2222.0,
        "toPort": 2222.0, "ipProtocol": "tcp", "tags": TAGS}, deps={"securityGroupId": [sg]})
    found = run(pack, [sg, rule], {NPI: {"sshCidrs": ["0.0.0.0/0"]}}, provider=AWS)
    assert verdict(found, NPI) == "fail", messages(found, NPI)


def test_u9_one_time_stop_after_the_month(pack):
    """A one-time stop Schedule at +40 days (960 h, beyond the 730 h month).
    Expect: the month: 2 x 21.9576 x 730 = 32,058.10."""
    st = _p4d_asg()
    stop = _sched("late", st[2], startTime=hours_from_now(960))
    assert near(estimate(pack, st + [stop], AWS), 2 * P4D * MONTH)


def test_u10_gcp_reservation_takes_only_its_zone(pack):
    """An open reservation of 2 g2-standard-24 in us-central1-a; VMs: 2 in us-central1-a and 1
    in us-central1-b. Expect: estimate 3 x 2.00083 x 730 = 4,381.82."""
    r = _greservation("l4-2", "g2-standard-24", 2)
    vms = [gvm("va0", "g2-standard-24"), gvm("va1", "g2-standard-24"),
           gvm("vb0", "g2-standard-24", zone="us-central1-b")]
    assert near(estimate(pack, [r, *vms], GCP), 3 * G2_24 * MONTH)
