"""Issue 35, a fresh BLIND hostile review (helper review42): new stacks written the way teams
write Pulumi programs on the four clouds, driven over gRPC as `pulumi preview --policy-pack`
drives the pack (tests/policy_harness.py). The pack's rule code was not read: the cases come
from the issue's classes, docs/policies.md's promises and the providers' public documentation.
No stack of review35*-41 is reused; only small builders and the verdict reader of
test_policy_review35f.py are imported (the helper pattern of test_policy_review41.py).

Each docstring gives the expected verdict BEFORE the first run: the policy, "pass", "fail" (a
mandatory violation), "undecided" ("cannot decide"), or "not pass" (either of the two), and the
figure where a price is involved, worked by hand from policies/catalog_data/prices.csv rows
(on-demand USD/h unless said; each row cites its public source) and gcp_attached_gpus.csv.
A month is 730 h.
  aws us-east-1: g6e.xlarge 1.861; g5.12xlarge 5.672; g6.xlarge 0.8048; p4d.24xlarge spot
    8.1915; g4ad.xlarge 0.37853; p5.4xlarge 6.88;
    inf2.xlarge eu-west-1 0.94775.
  gcp us-central1: g2-standard-8 0.853624; a2-highgpu-1g 3.67339; a3-highgpu-1g 11.0612;
    g4-standard-6 europe-west4 0.615512; n1-highmem-8 0.473212 + nvidia-tesla-p4 0.6.
  azure eastus: Standard_NC24ads_A100_v4 3.673; Standard_NC4as_T4_v3 0.526;
    Standard_NV6ads_A10_v5 0.454; Standard_NV4as_v4 0.233.
  alibaba: ecs.gn7i-c8g1.2xlarge eu-central-1 2.56083; ecs.sgn7i-vws-m2.xlarge eu-central-1
    0.271691; ecs.gn8is.2xlarge ap-southeast-1 2.57541.
Public sources for the behaviour each case relies on are named in its docstring.
"""
from __future__ import annotations

import base64
import json
import math
import re
from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import grpc
import pytest

from tests.policies.test_policy_review35f import (
    AWS, AZ, GCP, LABELS, MONTH, NPI, SPEND, SSZ, SUB, TAGS, asg, aws_budget, az_budget, cpfs,
    ec2, ecs, estimate, fsx, gcp_budget, glustre, gtemplate, gvm, lt, messages, mig, near,
    subnet, verdict, vmss, vsw,
)
from tests.policy_fixtures import hours_from_now, res
from tests.policy_harness import run

ALI = {"region": "eu-central-1"}
G6E_1, G5_12, G6_1, P4D_SPOT = 1.861, 5.672, 0.8048, 8.1915
G2_8, A2_1 = 0.853624, 3.67339
NC24, NC4T4 = 3.673, 0.526
GN7I = 2.56083
FS_ID = "fs-0123456789abcdef0"


def _on(provider, *resources):
    for r in resources:
        r.provider = dict(provider)
    return list(resources)


def _lifetime_ok(got, rate, hours):
    """Lifetimes are priced in whole hours rounded up (documented decision)."""
    return rate * hours - 2 <= got <= rate * math.ceil(hours) + 2


def _config_refused(pack, policy, key, value):
    config = pack.cli_config()
    config.setdefault(policy, {})[key] = value
    with pytest.raises(grpc.RpcError) as err:
        pack.send_config(config)
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT, err.value.details()
    return err.value.details()


def _g5_group(label, size=3, zone="us-east-1a", mounts=(), **p):
    s = subnet(f"{label}-sn", zone)
    t = lt(f"{label}-lt", "g5.12xlarge", mounts=mounts)
    return [s, t, asg(label, t, [s], size, **p)]


def _sched(name, group, start_h, mn, mx, desired, **p):
    return res("aws:autoscaling/schedule:Schedule", name, {
        "scheduledActionName": name, "autoscalingGroupName": "asg-name",
        **({"startTime": hours_from_now(start_h)} if start_h is not None else {}),
        "minSize": float(mn), "maxSize": float(mx), "desiredCapacity": float(desired), **p},
        deps={"autoscalingGroupName": [group]})


def _native_lt(name, itype, **data):
    return res("aws-native:ec2:LaunchTemplate", name, {"launchTemplateData": {
        "instanceType": itype, "imageId": "ami-0a1b2c3d4e5f60718", **data}})


def _native_group(label, size=3, min_size="0", **p):
    s = subnet(f"{label}-sn", "us-east-1a")
    t = _native_lt(f"{label}-lt", "g5.12xlarge")
    g = res("aws-native:autoscaling:AutoScalingGroup", label, {
        "autoScalingGroupName": f"{label}-grp", "minSize": min_size, "maxSize": str(size),
        "desiredCapacity": str(size),
        "launchTemplate": {"launchTemplateId": "lt-id", "version": "1"},
        "vpcZoneIdentifier": ["subnet-id"],
        "tags": [{"key": k, "value": v, "propagateAtLaunch": True} for k, v in TAGS.items()],
        **p}, deps={"launchTemplate": [t], "vpcZoneIdentifier": [s]})
    return [s, t, g]


def _scheduler(name, target_arn, dep, when, tz="UTC", payload=None, state="ENABLED"):
    return res("aws:scheduler/schedule:Schedule", name, {
        "scheduleExpression": when, "scheduleExpressionTimezone": tz, "state": state,
        "flexibleTimeWindow": {"mode": "OFF"},
        "target": {"arn": target_arn, "roleArn": "arn:aws:iam::123456789012:role/scheduler",
                   "input": json.dumps(payload or {"InstanceIds": ["i-id"]})}},
        deps={"target": [dep]} if dep is not None else {})


def _at(hours):
    return "at(" + hours_from_now(hours)[:-1] + ")"


def _autoscale(target, profiles, enabled=True):
    return res("azure-native:monitor:AutoscaleSetting", f"{target.name}-as", {
        "resourceGroupName": "ml-rg", "location": "eastus", "enabled": enabled,
        "targetResourceUri": "vmss-id", "profiles": profiles},
        deps={"targetResourceUri": [target]})


def _profile(name, capacity, window=None):
    p = {"name": name, "rules": [], "capacity": {
        "minimum": str(capacity), "maximum": str(capacity), "default": str(capacity)}}
    if window is not None:
        p["fixedDate"] = window
    return p


def _odcr(name, itype, count, zone="us-east-1a", **p):
    return res("aws:ec2/capacityReservation:CapacityReservation", name, {
        "instanceType": itype, "instancePlatform": "Linux/UNIX", "availabilityZone": zone,
        "instanceCount": count, "tags": TAGS, **p})


def _gres(name, mtype, count, required, zone="us-central1-a"):
    return res("gcp:compute/reservation:Reservation", name, {
        "name": name, "zone": zone, "specificReservationRequired": required,
        "specificReservation": {"count": count, "instanceProperties": {"machineType": mtype}}})


def _crg(name, zones=("1",)):
    return res("azure-native:compute:CapacityReservationGroup", name, {
        "resourceGroupName": "ml-rg", "location": "eastus", "zones": list(zones), "tags": TAGS})


def _cr(name, crg, size, capacity, zones=("1",)):
    return res("azure-native:compute:CapacityReservation", name, {
        "resourceGroupName": "ml-rg", "capacityReservationGroupName": "crg-name",
        "location": "eastus", "zones": list(zones),
        "sku": {"name": size, "capacity": capacity}, "tags": TAGS},
        deps={"capacityReservationGroupName": [crg]})


def _in_crg(ss, crg):
    ss.props["virtualMachineProfile"]["capacityReservation"] = {
        "capacityReservationGroup": {"id": "crg-id"}}
    ss.deps["virtualMachineProfile"] = [crg]
    return ss


def _ess(label, itype="ecs.gn7i-c8g1.2xlarge", max_size=2.0, zone="eu-central-1a", mounts=(),
         **cfg):
    sw = vsw(f"{label}-sw", zone)
    sg = res("alicloud:ess/scalingGroup:ScalingGroup", label, {
        "minSize": 0.0, "maxSize": max_size, "scalingGroupName": label,
        "vswitchIds": ["vsw-id"]}, deps={"vswitchIds": [sw]})
    deps = {"scalingGroupId": [sg]}
    if mounts:
        deps["userData"] = list(mounts)
    sc = res("alicloud:ess/scalingConfiguration:ScalingConfiguration", f"{label}-sc", {
        "scalingGroupId": "sg-id", "instanceType": itype,
        "imageId": "ubuntu_22_04_x64_20G_alibase_20240508.vhd", "active": True,
        "securityGroupId": "sg-1", "tags": TAGS,
        **({"userData": "IyEvYmluL2Jhc2g="} if mounts else {}), **cfg}, deps=deps)
    return [sw, sg, sc]


def _aks(name="aks", rg="ml-rg", pool_size="Standard_NC4as_T4_v3", max_count=2.0, **p):
    mc = res("azure-native:containerservice:ManagedCluster", name, {
        "resourceGroupName": rg, "resourceName": name, "location": "eastus", "dnsPrefix": "ml",
        "agentPoolProfiles": [
            {"name": "system", "mode": "System", "vmSize": "Standard_D4s_v5", "count": 1.0},
            {"name": "gpu", "mode": "User", "vmSize": pool_size, "enableAutoScaling": True,
             "minCount": 0.0, "maxCount": max_count, "count": 1.0}],
        "identity": {"type": "SystemAssigned"}, "tags": TAGS, **p})
    return mc


def _b64(text):
    return base64.b64encode(text.encode()).decode()


def _next_cron(now_utc, zone, hour, weekdays):
    """Next local `hour`:00 in `zone` on one of `weekdays` (Monday 0) strictly after now."""
    tz = ZoneInfo(zone)
    local = now_utc.astimezone(tz)
    for d in range(0, 9):
        day = (local + timedelta(days=d)).date()
        cand = datetime(day.year, day.month, day.day, hour, tzinfo=tz)
        if cand > local and cand.weekday() in weekdays:
            return cand
    raise AssertionError("no run found")


# ================================================== A. reservation + consumer priced once

def test_a1_native_open_odcr_and_native_instances_once(pack):
    """aws-native CapacityReservation (open, the default match criteria) of 2 g6e.xlarge in
    us-east-1a and two aws-native Instances g6e.xlarge in us-east-1a (on-demand, default
    preference open: they run in the open ODCR, docs.aws.amazon.com/AWSEC2/latest/UserGuide/
    capacity-reservations-using.html). Expect: once, 2 x 1.861 x 730 = 2,717.06."""
    r = res("aws-native:ec2:CapacityReservation", "a1-odcr", {
        "instanceType": "g6e.xlarge", "instancePlatform": "Linux/UNIX",
        "availabilityZone": "us-east-1a", "instanceCount": 2, "instanceMatchCriteria": "open"})
    vms = [res("aws-native:ec2:Instance", f"a1-{i}", {
        "instanceType": "g6e.xlarge", "imageId": "ami-0a1b2c3d4e5f60718",
        "availabilityZone": "us-east-1a",
        "tags": [{"key": k, "value": v} for k, v in TAGS.items()]}) for i in range(2)]
    assert near(estimate(pack, [r, *vms], AWS), 2 * G6E_1 * MONTH)


def test_a2_group_declining_reservations_beside_open_odcr(pack):
    """Open ODCR of 2 g5.12xlarge in us-east-1a; an ASG of 2 g5.12xlarge in us-east-1a whose
    launch template says capacityReservationPreference "none" (never runs in a reservation,
    API_LaunchTemplateCapacityReservationSpecificationRequest). Both bill.
    Expect: 4 x 5.672 x 730 = 16,562.24."""
    r = _odcr("a2-odcr", "g5.12xlarge", 2.0)
    s = subnet("a2-sn", "us-east-1a")
    t = lt("a2-lt", "g5.12xlarge",
           capacityReservationSpecification={"capacityReservationPreference": "none"})
    assert near(estimate(pack, [r, s, t, asg("a2", t, [s], 2)], AWS), 4 * G5_12 * MONTH)


def test_a3_gcp_open_reservation_smaller_than_mig(pack):
    """Open GCP reservation (specificReservationRequired false) of 2 g2-standard-8 in
    us-central1-a; a MIG of 3 g2-standard-8 in that zone, default affinity ANY: 2 inside, 1
    beyond. Expect: 3 x 0.853624 x 730 = 1,869.44."""
    r = _gres("a3-res", "g2-standard-8", 2.0, False)
    t = gtemplate("a3-tpl", "g2-standard-8")
    assert near(estimate(pack, [r, t, mig("a3", t, "us-central1-a", 3)], GCP),
                3 * G2_8 * MONTH)


def test_a4_gcp_vm_refusing_reservations_beside_open_reservation(pack):
    """Open reservation of 2 a2-highgpu-1g; one a2-highgpu-1g VM with reservationAffinity
    NO_RESERVATION (consumes none, cloud.google.com/compute/docs/instances/reservations-consume).
    Expect: 3 x 3.67339 x 730 = 8,044.72."""
    r = _gres("a4-res", "a2-highgpu-1g", 2.0, False)
    vm = gvm("a4", "a2-highgpu-1g", reservationAffinity={"type": "NO_RESERVATION"})
    assert near(estimate(pack, [r, vm], GCP), 3 * A2_1 * MONTH)


def test_a5_classic_azure_reservation_and_classic_scale_set_once(pack):
    """Classic azurerm: CapacityReservationGroup, CapacityReservation of 2
    Standard_NC24ads_A100_v4 (zone 1), a LinuxVirtualMachineScaleSet of 2 with
    capacityReservationGroupId from the group. Expect: once, 2 x 3.673 x 730 = 5,362.58."""
    crg = res("azure:compute/capacityReservationGroup:CapacityReservationGroup", "a5-crg", {
        "resourceGroupName": "ml-rg", "location": "eastus", "zones": ["1"], "tags": TAGS})
    cr = res("azure:compute/capacityReservation:CapacityReservation", "a5-cr", {
        "capacityReservationGroupId": "crg-id", "zone": "1",
        "sku": {"name": "Standard_NC24ads_A100_v4", "capacity": 2.0}, "tags": TAGS},
        deps={"capacityReservationGroupId": [crg]})
    ss = res("azure:compute/linuxVirtualMachineScaleSet:LinuxVirtualMachineScaleSet", "a5", {
        "resourceGroupName": "ml-rg", "location": "eastus", "sku": "Standard_NC24ads_A100_v4",
        "instances": 2.0, "zones": ["1"], "adminUsername": "ml",
        "capacityReservationGroupId": "crg-id",
        "networkInterfaces": [{"name": "nic", "primary": True, "ipConfigurations": [
            {"name": "ip", "primary": True, "subnetId": "subnet-id"}]}], "tags": TAGS},
        deps={"capacityReservationGroupId": [crg]})
    assert near(estimate(pack, [crg, cr, ss], AZ), 2 * NC24 * MONTH)


def test_a6_azure_scale_set_larger_than_its_reservation(pack):
    """Reservation of 2 Standard_NC24ads_A100_v4; a scale set of 3 in its group: 2 inside, 1
    beyond. Expect: 3 x 3.673 x 730 = 8,043.87."""
    crg = _crg("a6-crg")
    cr = _cr("a6-cr", crg, "Standard_NC24ads_A100_v4", 2.0)
    ss = _in_crg(vmss("a6", "Standard_NC24ads_A100_v4", 3.0), crg)
    assert near(estimate(pack, [crg, cr, ss], AZ), 3 * NC24 * MONTH)


def test_a7_alibaba_target_reservation_outlives_its_instance(pack):
    """Alibaba Target reservation of 2 gn7i-c8g1.2xlarge, Limited, ending in 48 h; one instance
    in it released in 24 h. The reservation bills for 48 h whatever runs inside.
    Expect: 2 x 2.56083 x 48 = 245.84."""
    sw = vsw("a7-sw")
    cr = res("alicloud:ecs/capacityReservation:CapacityReservation", "a7-cr", {
        "instanceType": "ecs.gn7i-c8g1.2xlarge", "instanceAmount": 2.0,
        "zoneIds": ["eu-central-1a"], "endTimeType": "Limited", "endTime": hours_from_now(48),
        "matchCriteria": "Target", "platform": "linux", "tags": TAGS})
    n = ecs("a7", switch=sw, release="24h", privatePoolOptionsMatchCriteria="Target",
            privatePoolOptionsId="cr-id")
    n.deps["privatePoolOptionsId"] = [cr]
    assert _lifetime_ok(estimate(pack, [sw, cr, n], ALI), 2 * GN7I, 48)


def test_a8_spot_request_beside_open_odcr_of_its_type(pack):
    """Open ODCR of 2 g6.xlarge in us-east-1a; a SpotInstanceRequest g6.xlarge in us-east-1a
    (spot instances never use On-Demand Capacity Reservations). The catalog has no spot price
    for g6.xlarge, so on demand. Expect: 2 x 0.8048 x 730 + 0.8048 x 730 = 1,762.51."""
    r = _odcr("a8-odcr", "g6.xlarge", 2.0)
    sr = res("aws:ec2/spotInstanceRequest:SpotInstanceRequest", "a8", {
        "ami": "ami-0a1b2c3d4e5f60718", "instanceType": "g6.xlarge",
        "availabilityZone": "us-east-1a", "spotType": "one-time",
        "associatePublicIpAddress": False, "tags": TAGS})
    assert near(estimate(pack, [r, sr], AWS), 3 * G6_1 * MONTH)


def _block_group(label, fee_subnet="us-east-1a", target=None):
    s = subnet(f"{label}-sn", fee_subnet)
    spec = {"capacityReservationTarget": {"capacityReservationId": "cr-0feedc0ffee000001"}}
    t = lt(f"{label}-lt", "p5.48xlarge", instanceMarketOptions={"marketType": "capacity-block"},
           capacityReservationSpecification=spec)
    if target is not None:
        t.deps["capacityReservationSpecification"] = [target]
    return [s, t, asg(label, t, [s], 2)]


def test_a9_capacity_block_fee_is_not_shortened_by_a_stop(pack):
    """ASG of 2 p5.48xlarge in a Capacity Block, fee 31,464 USD in capacityBlockFeesUsd, and a
    Schedule to 0 in 10 h. A block is paid up front and not refunded when instances stop
    (aws.amazon.com/ec2/capacityblocks/pricing: "pay upfront"). Expect: 31,464."""
    s, t, g = _block_group("a9")
    stop = _sched("a9-stop", g, 10, 0, 0, 0)
    got = estimate(pack, [s, t, g, stop], AWS, {"capacityBlockFeesUsd": {"a9": 31464}})
    assert near(got, 31464), got


def test_a10_bought_block_and_its_group_priced_once(pack):
    """The stack buys a block (aws:ec2/capacityBlockReservation) and an ASG launches into it
    (template's capacityReservationTarget depends on it); fee 20,000 given for the group (docs:
    "priced at the upfront fee the spend-limit config gives for that group"; a used block is
    "priced with that group, once"). Expect: 20,000."""
    blk = res("aws:ec2/capacityBlockReservation:CapacityBlockReservation", "a10-blk", {
        "capacityBlockOfferingId": "cb-0123456789abcdef0", "instancePlatform": "Linux/UNIX",
        "tags": TAGS})
    s, t, g = _block_group("a10", target=blk)
    got = estimate(pack, [blk, s, t, g], AWS, {"capacityBlockFeesUsd": {"a10": 20000}})
    assert near(got, 20000), got






# ================================================== B. compute the pack must see

def test_b1_spot_request_priced_at_spot(pack):
    """A SpotInstanceRequest of p4d.24xlarge in us-east-1 (docs: one spot instance); catalog
    spot 8.1915. Expect: 8.1915 x 730 = 5,979.80."""
    sr = res("aws:ec2/spotInstanceRequest:SpotInstanceRequest", "b1", {
        "ami": "ami-0a1b2c3d4e5f60718", "instanceType": "p4d.24xlarge",
        "availabilityZone": "us-east-1a", "spotType": "persistent",
        "instanceInterruptionBehavior": "stop", "associatePublicIpAddress": False,
        "tags": TAGS})
    assert near(estimate(pack, [sr], AWS), P4D_SPOT * MONTH)


def test_b2_instance_from_regional_template(pack):
    """gcp InstanceFromTemplate whose source is a RegionInstanceTemplate of g2-standard-8.
    Expect: 0.853624 x 730 = 623.15."""
    t = res("gcp:compute/regionInstanceTemplate:RegionInstanceTemplate", "b2-tpl", {
        "region": "us-central1", "machineType": "g2-standard-8", "labels": LABELS,
        "disks": [{"sourceImage": "debian-cloud/debian-12", "boot": True}],
        "networkInterfaces": [{"network": "default"}],
        "scheduling": {"onHostMaintenance": "TERMINATE"}})
    i = res("gcp:compute/instanceFromTemplate:InstanceFromTemplate", "b2", {
        "zone": "us-central1-a", "sourceInstanceTemplate": "tpl-id", "labels": LABELS},
        deps={"sourceInstanceTemplate": [t]})
    assert near(estimate(pack, [t, i], GCP), G2_8 * MONTH)


def test_b3_ec2_fleet_override_by_availability_zone(pack):
    """EC2 Fleet whose override names availabilityZone us-east-1b (no subnet; the FleetLaunch
    TemplateOverrides AvailabilityZone field); its template mounts an FSx in us-east-1a.
    Expect: storage-same-zone fail."""
    sa = subnet("b3-a", "us-east-1a")
    fs = fsx("b3-fs", sa)
    t = lt("b3-lt", "g5.12xlarge", mounts=[fs])
    fleet = res("aws:ec2/fleet:Fleet", "b3", {
        "type": "instant", "launchTemplateConfigs": [{
            "launchTemplateSpecification": {"launchTemplateId": "lt-id", "version": "$Latest"},
            "overrides": [{"availabilityZone": "us-east-1b", "instanceType": "g5.12xlarge"}]}],
        "targetCapacitySpecification": {"defaultTargetCapacityType": "on-demand",
                                        "totalTargetCapacity": 2.0}, "tags": TAGS},
        deps={"launchTemplateConfigs": [t]})
    found = run(pack, [sa, fs, t, fleet, aws_budget("100000")], provider=AWS)
    assert verdict(found, SSZ) == "fail", messages(found, SSZ)


def test_b4_instance_from_template_with_one_interface_object(pack):
    """aws:ec2/instance launched from a template whose networkInterfaces is ONE object naming a
    us-east-1b subnet; the template mounts an FSx in us-east-1a. Expect: storage-same-zone
    fail."""
    sa, sb = subnet("b4-a", "us-east-1a"), subnet("b4-b", "us-east-1b")
    fs = fsx("b4-fs", sa)
    t = lt("b4-lt", "g6e.xlarge", mounts=[fs], networkInterfaces={
        "deviceIndex": 0.0, "subnetId": "subnet-b", "associatePublicIpAddress": "false"})
    t.deps["networkInterfaces"] = [sb]
    i = res("aws:ec2/instance:Instance", "b4", {
        "launchTemplate": {"id": "lt-id", "version": "$Latest"}, "tags": TAGS},
        deps={"launchTemplate": [t]})
    found = run(pack, [sa, sb, fs, t, i, aws_budget()], provider=AWS)
    assert verdict(found, SSZ) == "fail", messages(found, SSZ)
    # Round 2: the reason the docstring gives (the FSx is not in the nodes' zone, us-east-1b).
    # Round 1 passed on "the GPU nodes' zone cannot be read. Found: nothing" instead.
    assert "b4-fs" in messages(found, SSZ), messages(found, SSZ)


def test_b4b_instance_from_one_interface_template_same_zone(pack):
    """Round 2 (written before its first run): the b4 stack with the template's one interface
    object on the FSx's own us-east-1a subnet. Docs: a list input given as one object is read
    as a list of that one, and AWS zones are read through the subnet. Expect: storage-same-zone
    pass."""
    sa = subnet("b4b-a", "us-east-1a")
    fs = fsx("b4b-fs", sa)
    t = lt("b4b-lt", "g6e.xlarge", mounts=[fs], networkInterfaces={
        "deviceIndex": 0.0, "subnetId": "subnet-a", "associatePublicIpAddress": "false"})
    t.deps["networkInterfaces"] = [sa]
    i = res("aws:ec2/instance:Instance", "b4b", {
        "launchTemplate": {"id": "lt-id", "version": "$Latest"}, "tags": TAGS},
        deps={"launchTemplate": [t]})
    found = run(pack, [sa, fs, t, i, aws_budget()], provider=AWS)
    assert verdict(found, SSZ) == "pass", messages(found, SSZ)


def test_b4c_instance_from_listed_interface_template_same_zone(pack):
    """Round 2 (written before its first run): the same with networkInterfaces as a one-entry
    list, to tell the one-object reading from the instance-through-template zone reading.
    Expect: storage-same-zone pass."""
    sa = subnet("b4c-a", "us-east-1a")
    fs = fsx("b4c-fs", sa)
    t = lt("b4c-lt", "g6e.xlarge", mounts=[fs], networkInterfaces=[{
        "deviceIndex": 0.0, "subnetId": "subnet-a", "associatePublicIpAddress": "false"}])
    t.deps["networkInterfaces"] = [sa]
    i = res("aws:ec2/instance:Instance", "b4c", {
        "launchTemplate": {"id": "lt-id", "version": "$Latest"}, "tags": TAGS},
        deps={"launchTemplate": [t]})
    found = run(pack, [sa, fs, t, i, aws_budget()], provider=AWS)
    assert verdict(found, SSZ) == "pass", messages(found, SSZ)


def test_b5_native_ec2_fleet_on_demand(pack):
    """aws-native Ec2Fleet (maintain) of 4 on-demand g6e.xlarge from an aws-native template.
    Expect: 4 x 1.861 x 730 = 5,434.12."""
    s = subnet("b5-sn", "us-east-1a")
    t = _native_lt("b5-lt", "g6e.xlarge")
    f = res("aws-native:ec2:Ec2Fleet", "b5", {
        "type": "maintain", "launchTemplateConfigs": [{
            "launchTemplateSpecification": {"launchTemplateId": "lt-id", "version": "1"},
            "overrides": [{"instanceType": "g6e.xlarge", "subnetId": "subnet-id"}]}],
        "targetCapacitySpecification": {"totalTargetCapacity": 4,
                                        "defaultTargetCapacityType": "on-demand",
                                        "onDemandTargetCapacity": 4}},
        deps={"launchTemplateConfigs": [t, s]})
    assert near(estimate(pack, [s, t, f], AWS), 4 * G6E_1 * MONTH)






def test_b8_gke_pool_total_max_node_count(pack):
    """GKE NodePool of g2-standard-8, autoscaling totalMaxNodeCount 5 (the cap for the whole
    pool, cloud.google.com/kubernetes-engine/docs/concepts/cluster-autoscaler).
    Expect: 5 x 0.853624 x 730 = 3,115.73."""
    np = res("gcp:container/nodePool:NodePool", "b8", {
        "cluster": "ml", "location": "us-central1-a", "initialNodeCount": 1.0,
        "autoscaling": {"totalMinNodeCount": 0.0, "totalMaxNodeCount": 5.0,
                        "locationPolicy": "ANY"},
        "nodeConfig": {"machineType": "g2-standard-8", "labels": LABELS}})
    assert near(estimate(pack, [np], GCP), 5 * G2_8 * MONTH)




def test_b10_aks_agent_pool_autoscaling_max(pack):
    """An AKS cluster (system pool D4s_v5, not GPU) plus a separate AgentPool of
    Standard_NC4as_T4_v3 autoscaling 0..4. Expect: GPU part 4 x 0.526 x 730 = 1,535.92; the
    estimate is at least that (the D4s_v5 may be priced too, never less)."""
    mc = res("azure-native:containerservice:ManagedCluster", "b10-aks", {
        "resourceGroupName": "ml-rg", "location": "eastus", "dnsPrefix": "ml",
        "agentPoolProfiles": [{"name": "system", "mode": "System",
                               "vmSize": "Standard_D4s_v5", "count": 1.0}],
        "identity": {"type": "SystemAssigned"}, "tags": TAGS})
    pool = res("azure-native:containerservice:AgentPool", "b10", {
        "resourceGroupName": "ml-rg", "resourceName": "aks-name", "agentPoolName": "t4",
        "mode": "User", "vmSize": "Standard_NC4as_T4_v3", "enableAutoScaling": True,
        "minCount": 0.0, "maxCount": 4.0, "count": 1.0, "tags": TAGS},
        deps={"resourceName": [mc]})
    got = estimate(pack, [mc, pool], AZ)
    assert 4 * NC4T4 * MONTH - 2 <= got <= 4 * NC4T4 * MONTH + 0.5 * MONTH, got




# ================================================== C. stops that do (not) stop

def test_c1_recurring_weekday_stop_in_berlin(pack):
    """Classic Schedule to 0 with recurrence "0 22 * * 1-5", timeZone Europe/Berlin, nothing
    restarts the group (3 g5.12xlarge). Expect: 3 x 5.672 x hours to the next weekday 22:00
    Berlin (docs: a recurring stop's first run)."""
    s, t, g = _g5_group("c1", 3)
    stop = _sched("c1-stop", g, None, 0, 0, 0, recurrence="0 22 * * 1-5",
                  timeZone="Europe/Berlin")
    now = datetime.now(timezone.utc)
    hours = (_next_cron(now, "Europe/Berlin", 22, {0, 1, 2, 3, 4}) - now).total_seconds() / 3600
    assert _lifetime_ok(estimate(pack, [s, t, g, stop], AWS), 3 * G5_12, hours)


def test_c2_stop_then_weekday_morning_restart(pack):
    """Stop to 0 in 30 h, and a Schedule "0 8 * * 1-5" (UTC) back to 3: the group restarts.
    Expect: no lifetime, 3 x 5.672 x 730 = 12,421.68."""
    s, t, g = _g5_group("c2", 3)
    stop = _sched("c2-stop", g, 30, 0, 0, 0)
    start = _sched("c2-start", g, None, 0, 3, 3, recurrence="0 8 * * 1-5")
    assert near(estimate(pack, [s, t, g, stop, start], AWS), 3 * G5_12 * MONTH)




def test_c4_scheduler_stop_beside_rule_run_lambda_on_the_instance(pack):
    """g5.12xlarge; a Scheduler stopInstances at +20 h; an EventBridge rule rate(12 hours)
    whose target is a Lambda with an input depending on the instance (docs: "any other target
    acting on the nodes, such as a Lambda function whose input depends on them"; a rule
    recurs, so it may run after the stop). Expect: a pause, 5.672 x 730 = 4,140.56.
    (Rewritten after the first run: the first version's Lambda named TAG_KEY team, TAG_VALUE
    ml, a tag on every resource of the stack, the shape review35h l1 decided singles out
    nothing; it repeated a decided case.)"""
    i = ec2("c4", "g5.12xlarge")
    stop = _scheduler("c4-stop", "arn:aws:scheduler:::aws-sdk:ec2:stopInstances", i, _at(20))
    fn = res("aws:lambda/function:Function", "c4-starter", {
        "runtime": "python3.12", "handler": "main.handler",
        "role": "arn:aws:iam::123456789012:role/lambda", "tags": TAGS})
    rule = res("aws:cloudwatch/eventRule:EventRule", "c4-wake", {
        "scheduleExpression": "rate(12 hours)", "state": "ENABLED", "tags": TAGS})
    tgt = res("aws:cloudwatch/eventTarget:EventTarget", "c4-wake-t", {
        "rule": "c4-wake", "arn": "arn:aws:lambda:us-east-1:123456789012:function:c4-starter",
        "input": json.dumps({"InstanceIds": ["i-id"], "action": "start"})},
        deps={"rule": [rule], "arn": [fn], "input": [i]})
    assert near(estimate(pack, [i, stop, fn, rule, tgt], AWS), G5_12 * MONTH)


def test_c5_autoscale_stop_written_with_an_offset(pack):
    """Azure autoscale (enabled) stop profile (capacity 0) whose fixedDate start is written
    with an explicit +09:00 offset, 30 h from now, timeZone "Tokyo Standard Time"; 2 x
    Standard_NC24ads_A100_v4. Expect: 30 h: 2 x 3.673 x 30 = 220.38."""
    ss = vmss("c5", "Standard_NC24ads_A100_v4", 2.0)
    tokyo = ZoneInfo("Asia/Tokyo")
    start = (datetime.now(timezone.utc) + timedelta(hours=30)).astimezone(tokyo)
    end = start + timedelta(days=60)
    a = _autoscale(ss, [_profile("default", 2), _profile("off", 0, {
        "timeZone": "Tokyo Standard Time", "start": start.isoformat(timespec="seconds"),
        "end": end.isoformat(timespec="seconds")})])
    assert _lifetime_ok(estimate(pack, [ss, a], AZ), 2 * NC24, 30)


def test_c6_alibaba_release_time_already_past(pack):
    """A gn7i instance whose autoReleaseTime was 2 h ago (the API refuses a past time;
    docs: releases nothing). Expect: spend-limit fail; estimate the month 2.56083 x 730 =
    1,869.41."""
    i = ecs("c6", release=hours_from_now(-2))
    assert verdict(run(pack, [i], provider=ALI), SPEND) == "fail"
    assert near(estimate(pack, [i], ALI), GN7I * MONTH)


def test_c7_scheduler_terminate_weekdays_in_los_angeles(pack):
    """A g6e.xlarge with a Scheduler terminateInstances "cron(0 18 ? * MON-FRI *)" in
    America/Los_Angeles (EventBridge Scheduler cron allows day names, docs.aws.amazon.com/
    scheduler/latest/UserGuide/schedule-types.html#cron-based). Nothing starts it.
    Expect: 1.861 x hours to the next weekday 18:00 in Los Angeles."""
    i = ec2("c7", "g6e.xlarge")
    stop = _scheduler("c7-stop", "arn:aws:scheduler:::aws-sdk:ec2:terminateInstances", i,
                      "cron(0 18 ? * MON-FRI *)", tz="America/Los_Angeles")
    now = datetime.now(timezone.utc)
    hours = (_next_cron(now, "America/Los_Angeles", 18, {0, 1, 2, 3, 4}) - now
             ).total_seconds() / 3600
    assert _lifetime_ok(estimate(pack, [i, stop], AWS), G6E_1, hours)




def test_c9_native_action_desired_and_min_zero_max_left(pack):
    """aws-native group (min "0", max "3") with a ScheduledAction in 30 h of minSize "0",
    desiredCapacity "0" and no maxSize (kept), no scaling policy: docs' "desired and min 0" is a
    stop. Expect: 3 x 5.672 x 30 = 510.48."""
    s, t, g = _native_group("c9")
    a = res("aws-native:autoscaling:ScheduledAction", "c9-stop", {
        "autoScalingGroupName": "c9-grp", "startTime": hours_from_now(30), "minSize": "0",
        "desiredCapacity": "0"}, deps={"autoScalingGroupName": [g]})
    assert _lifetime_ok(estimate(pack, [s, t, g, a], AWS), 3 * G5_12, 30)


def test_c10_instance_schedule_that_expires_before_its_stop(pack):
    """A GCP instance schedule whose only stop is "0 0 1 1 *" (1 January, UTC) but whose
    expirationTime is in 50 h, so the stop never runs. From 29 December 22:00 UTC on, 1 January
    comes first: then the stop is "0 0 1 2 *" (1 February), the same premise (the run used to
    fail by its own assertion on 29-31 December). Expect: no lifetime: 0.853624 x 730 = 623.15."""
    now = datetime.now(timezone.utc)
    jan1 = datetime(now.year + 1, 1, 1, tzinfo=timezone.utc)
    month = 1 if now + timedelta(hours=51) < jan1 else 2
    pol = res("gcp:compute/resourcePolicy:ResourcePolicy", "c10-pol", {
        "region": "us-central1", "instanceSchedulePolicy": {
            "vmStopSchedule": {"schedule": f"0 0 1 {month} *"}, "timeZone": "UTC",
            "expirationTime": hours_from_now(50)}})
    vm = gvm("c10", "g2-standard-8", resourcePolicies="pol-id")
    vm.deps["resourcePolicies"] = [pol]
    assert near(estimate(pack, [pol, vm], GCP), G2_8 * MONTH)


def test_c11_ess_stop_then_ess_raise(pack):
    """ESS group (max 2 gn7i) with a task to 0 at +30 h and another raising max to 2 at +40 h.
    Expect: a pause, the month: 2 x 2.56083 x 730 = 3,738.81."""
    sw, sg, sc = _ess("c11")
    out = [sw, sg, sc]
    for name, h, v in (("c11-off", 30, 0.0), ("c11-on", 40, 2.0)):
        out.append(res("alicloud:ess/scheduledTask:ScheduledTask", name, {
            "scalingGroupId": "sg-id", "launchTime": hours_from_now(h)[:-4] + "Z",
            "minValue": 0.0, "maxValue": v, "desiredCapacity": v, "taskEnabled": True},
            deps={"scalingGroupId": [sg]}))
    assert near(estimate(pack, out, ALI), 2 * GN7I * MONTH)


def test_c12_scheduler_update_names_auto_named_group_by_pulumi_name(pack):
    """A Scheduler updateAutoScalingGroup at +24 h with input AutoScalingGroupName "c12" (the
    Pulumi resource name) and MaxSize/MinSize/DesiredCapacity 0; the group has no `name`, so
    AWS calls it c12-<random>: the input names another group. Expect: the month, 3 x 5.672 x
    730 = 12,421.68."""
    s, t, g = _g5_group("c12", 3)
    upd = _scheduler("c12-stop", "arn:aws:scheduler:::aws-sdk:autoscaling:"
                     "updateAutoScalingGroup", None, _at(24), payload={
                         "AutoScalingGroupName": "c12", "MinSize": 0, "MaxSize": 0,
                         "DesiredCapacity": 0})
    assert near(estimate(pack, [s, t, g, upd], AWS), 3 * G5_12 * MONTH)


# ================================================== D. budgets that do (not) cover

def test_d1_aws_budget_on_ec2_compute_service_covers(pack):
    """A g6.xlarge and a 5,000 budget with costFilters Service ["Amazon Elastic Compute Cloud -
    Compute"] (the Cost Explorer service name of EC2 instances). Expect: spend-limit pass."""
    b = aws_budget("5000", costFilters=[{"name": "Service", "values": [
        "Amazon Elastic Compute Cloud - Compute"]}])
    found = run(pack, [ec2("d1", "g6.xlarge"), b], provider=AWS)
    assert verdict(found, SPEND) == "pass", messages(found, SPEND)


def test_d2_gcp_budget_on_compute_engine_service_covers(pack):
    """A g2-standard-8 VM and a budget whose budgetFilter.services is
    ["services/6F81-5844-456A"], Compute Engine's Cloud Billing service id (Cloud Billing
    Catalog API, services list). Expect: spend-limit pass."""
    b = gcp_budget(budgetFilter={"services": ["services/6F81-5844-456A"]})
    found = run(pack, [gvm("d2", "g2-standard-8"), b], provider=GCP)
    assert verdict(found, SPEND) == "pass", messages(found, SPEND)


def test_d3_gcp_budget_on_bigquery_only(pack):
    """The same VM; the only budget filtered to services ["services/24E6-581D-38E5"]
    (BigQuery). Expect: spend-limit fail (no budget alarm for the VM)."""
    b = gcp_budget(budgetFilter={"services": ["services/24E6-581D-38E5"]})
    found = run(pack, [gvm("d3", "g2-standard-8"), b], provider=GCP)
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)


def test_d4_azure_filter_resource_group_other_case(pack):
    """Scale set in resource group "ml-rg" (literal); subscription budget with filter
    dimensions ResourceGroupName In ["ML-RG"] (resource group names are case-insensitive;
    docs: compared case-insensitively). Expect: spend-limit pass."""
    b = az_budget(filter={"dimensions": {"name": "ResourceGroupName", "operator": "In",
                                         "values": ["ML-RG"]}})
    found = run(pack, [vmss("d4", "Standard_NC4as_T4_v3", 2.0), b], provider=AZ)
    assert verdict(found, SPEND) == "pass", messages(found, SPEND)


def test_d5_budget_on_aks_clusters_own_group(pack):
    """AKS cluster "aks" in ml-rg with a GPU pool (default node group MC_ml-rg_aks_eastus); the
    only budget is scoped to ml-rg, which holds only the Kubernetes service resource
    (learn.microsoft.com/azure/aks/faq). Expect: spend-limit fail."""
    mc = _aks("aks")
    b = az_budget(scope=f"{SUB}/resourceGroups/ml-rg")
    found = run(pack, [mc, b], provider={**AZ, "subscriptionId": SUB.split("/")[-1]})
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)


def test_d6_budget_on_aks_named_node_group(pack):
    """The same cluster with nodeResourceGroup "aks-nodes"; a budget scoped to that group.
    Expect: spend-limit pass."""
    mc = _aks("aks", nodeResourceGroup="aks-nodes")
    b = az_budget(scope=f"{SUB}/resourceGroups/aks-nodes")
    found = run(pack, [mc, b], provider={**AZ, "subscriptionId": SUB.split("/")[-1]})
    assert verdict(found, SPEND) == "pass", messages(found, SPEND)


def test_d7_region_budget_leaves_out_the_west_group(pack):
    """A us-east-1 group and a us-west-2 group (own providers) of g6.xlarge; the only budget
    filters Region ["us-east-1"]. Expect: spend-limit fail naming d7-west."""
    east = [subnet("d7e-sn", "us-east-1a")]
    east += [lt("d7e-lt", "g6.xlarge")]
    east.append(asg("d7-east", east[1], [east[0]], 2))
    west = [subnet("d7w-sn", "us-west-2a")]
    west += [lt("d7w-lt", "g6.xlarge")]
    west.append(asg("d7-west", west[1], [west[0]], 2))
    b = aws_budget(costFilters=[{"name": "Region", "values": ["us-east-1"]}])
    stack = _on(AWS, *east, b) + _on({"region": "us-west-2"}, *west)
    found = run(pack, stack, provider=None)
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)
    assert "d7-west" in messages(found, SPEND)


def test_d8_mig_all_instances_label_overrides_template(pack):
    """MIG whose template is labelled team=ml but allInstancesConfig.labels team=vision (it
    overrides, docs); budget labels team=ml. Expect: spend-limit fail."""
    t = gtemplate("d8-tpl", "g2-standard-8")
    m = mig("d8", t, "us-central1-a", 2)
    m.props["allInstancesConfig"] = {"labels": {"team": "vision"}}
    found = run(pack, [t, m, gcp_budget(budgetFilter={"labels": {"team": "ml"}})],
                provider=GCP)
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)


def test_d9_eks_node_group_tags_do_not_reach_instances(pack):
    """EKS managed node group (g6.xlarge, max 2) tagged team=ml, no launch template; budget
    TagKeyValue user:team$ml. EKS tags "don't propagate to any other resources"
    (docs.aws.amazon.com/eks/latest/APIReference/API_TagResource.html), so the instances carry
    no team tag. Expect: spend-limit fail."""
    s = subnet("d9-sn", "us-east-1a")
    ng = res("aws:eks/nodeGroup:NodeGroup", "d9", {
        "clusterName": "ml", "nodeRoleArn": "arn:aws:iam::123456789012:role/node",
        "subnetIds": ["subnet-id"], "instanceTypes": ["g6.xlarge"],
        "amiType": "AL2023_x86_64_NVIDIA", "capacityType": "ON_DEMAND",
        "scalingConfig": {"minSize": 0.0, "maxSize": 2.0, "desiredSize": 1.0}, "tags": TAGS},
        deps={"subnetIds": [s]})
    b = aws_budget(costFilters=[{"name": "TagKeyValue", "values": ["user:team$ml"]}])
    found = run(pack, [s, ng, b], provider=AWS)
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)






def test_d12_aws_budget_notifying_an_sns_topic_only(pack):
    """A g6.xlarge; a 5,000 budget whose notification has only subscriberSnsTopicArns (docs:
    an e-mail or SNS subscriber). Expect: spend-limit pass."""
    b = aws_budget("5000", notifications=[{
        "comparisonOperator": "GREATER_THAN", "threshold": 80.0,
        "thresholdType": "PERCENTAGE", "notificationType": "FORECASTED",
        "subscriberSnsTopicArns": ["arn:aws:sns:us-east-1:123456789012:budget"]}])
    found = run(pack, [ec2("d12", "g6.xlarge"), b], provider=AWS)
    assert verdict(found, SPEND) == "pass", messages(found, SPEND)


# ================================================== E. malformed values

def test_e1_odcr_count_nan(pack):
    """ODCR of g5.12xlarge with instanceCount NaN, a 1,000,000 budget. Expect: spend-limit not
    pass."""
    r = _odcr("e1-odcr", "g5.12xlarge", float("nan"))
    found = run(pack, [r, aws_budget("1000000")], provider=AWS)
    assert verdict(found, SPEND) != "pass", messages(found, SPEND)


def test_e2_negative_mig_target_size_beside_a_good_mig(pack):
    """A good MIG of 2 g2-standard-8 and a MIG of targetSize -3, 1,000,000 budget. Expect:
    spend-limit not pass, naming e2-bad."""
    t = gtemplate("e2-tpl", "g2-standard-8")
    good, bad = mig("e2-ok", t, "us-central1-a", 2), mig("e2-bad", t, "us-central1-a", 2)
    bad.props["targetSize"] = -3.0
    found = run(pack, [t, good, bad, gcp_budget("1000000")], provider=GCP)
    assert verdict(found, SPEND) != "pass", messages(found, SPEND)
    assert "e2-bad" in messages(found, SPEND)






def test_e5_azure_budget_amount_in_words(pack):
    """A T4 scale set and the only budget with amount "twenty thousand". Expect: not pass."""
    found = run(pack, [vmss("e5", "Standard_NC4as_T4_v3", 2.0),
                       az_budget("twenty thousand")], provider=AZ)
    assert verdict(found, SPEND) != "pass", messages(found, SPEND)


def test_e6_nan_lustre_on_gcp_hides_no_aws_cross_zone_mount(pack):
    """GCP: a VM in us-central1-a mounting a Managed Lustre of capacityGib "NaN" in its zone.
    AWS: an ASG in us-east-1a mounting an FSx in us-east-1b. Expect: storage-same-zone fail
    naming e6-fs; spend-limit not pass."""
    gl = glustre("e6-gl", "us-central1-a", gib="NaN")
    vm = gtemplate("e6-tpl", "g2-standard-8", mounts=[gl])
    m = mig("e6-mig", vm, "us-central1-a", 1)
    sa, sb = subnet("e6-a", "us-east-1a"), subnet("e6-b", "us-east-1b")
    fs = fsx("e6-fs", sb)
    t = lt("e6-lt", "g5.12xlarge", mounts=[fs])
    stack = (_on(GCP, gl, vm, m, gcp_budget("1000000"))
             + _on(AWS, sa, sb, fs, t, asg("e6", t, [sa], 2), aws_budget("1000000")))
    found = run(pack, stack, provider=None)
    assert verdict(found, SSZ) == "fail", messages(found, SSZ)
    assert "e6-fs" in messages(found, SSZ)
    assert verdict(found, SPEND) != "pass", messages(found, SPEND)












def test_e12_malformed_aws_size_keeps_gcp_alarm_finding(pack):
    """AWS: an ASG of g6.xlarge with maxSize "lots" (budgeted). GCP: a g2-standard-8 VM with no
    budget. Expect: spend-limit fail, and the findings still say GCP has no budget alarm."""
    s = subnet("e12-sn", "us-east-1a")
    t = lt("e12-lt", "g6.xlarge")
    g = asg("e12", t, [s], 2, maxSize="lots")
    stack = _on(AWS, s, t, g, aws_budget("1000000")) + _on(GCP, gvm("e12-gcp", "g2-standard-8"))
    found = run(pack, stack, provider=None)
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)
    assert "no budget alarm on gcp" in messages(found, SPEND).lower()


def test_e12b_gcp_alarm_finding_is_on_the_gcp_vm(pack):
    """Round 2 (written before its first run): the e12 stack. The "no budget alarm on gcp"
    finding is about the GCP VM: it is reported on e12b-gcp (its URN) or names it, not only on
    the malformed AWS group."""
    s = subnet("e12b-sn", "us-east-1a")
    t = lt("e12b-lt", "g6.xlarge")
    g = asg("e12b", t, [s], 2, maxSize="lots")
    stack = (_on(AWS, s, t, g, aws_budget("1000000"))
             + _on(GCP, gvm("e12b-gcp", "g2-standard-8")))
    found = run(pack, stack, provider=None)
    ds = [d for d in found if d.policy == SPEND and "no budget alarm on gcp" in d.message]
    assert ds, messages(found, SPEND)
    assert any("e12b-gcp" in d.urn or "e12b-gcp" in d.message for d in ds), \
        [(d.urn, d.message) for d in ds]


def test_e13_alibaba_reservation_amount_in_words(pack):
    """Alibaba capacity reservation (Limited, 48 h) of instanceAmount "two". Expect: not
    pass."""
    cr = res("alicloud:ecs/capacityReservation:CapacityReservation", "e13", {
        "instanceType": "ecs.gn7i-c8g1.2xlarge", "instanceAmount": "two",
        "zoneIds": ["eu-central-1a"], "endTimeType": "Limited", "endTime": hours_from_now(48),
        "matchCriteria": "Open", "platform": "linux", "tags": TAGS})
    found = run(pack, [cr], provider=ALI)
    assert verdict(found, SPEND) != "pass", messages(found, SPEND)


# ================================================== F. scope: who shares a fabric and storage



def _amlfs(name, zone):
    return res("azure-native:storagecache:AmlFilesystem", name, {
        "resourceGroupName": "ml-rg", "location": "eastus", "zones": [zone],
        "storageCapacityTiB": 16.0, "sku": {"name": "AMLFS-Durable-Premium-125"},
        "filesystemSubnet": "subnet-id", "tags": TAGS})


def test_f2_azure_two_clusters_mounts_swapped(pack):
    """Scale set in zone 1 mounts the AMLFS in zone 2, scale set in zone 2 mounts the AMLFS in
    zone 1. Expect: storage-same-zone fail (both filesystems)."""
    f1, f2 = _amlfs("f2-fs1", "1"), _amlfs("f2-fs2", "2")
    s1 = vmss("f2-z1", "Standard_NC24ads_A100_v4", 2.0, zones=("1",),
              deps={"virtualMachineProfile": [f2]})
    s2 = vmss("f2-z2", "Standard_NC24ads_A100_v4", 2.0, zones=("2",),
              deps={"virtualMachineProfile": [f1]})
    found = run(pack, [f1, f2, s1, s2, az_budget()], provider=AZ)
    assert verdict(found, SSZ) == "fail", messages(found, SSZ)
    assert "f2-fs1" in messages(found, SSZ) and "f2-fs2" in messages(found, SSZ)




def test_f4_s3_bucket_read_across_regions_and_unread_log_bucket(pack):
    """A us-east-1 GPU ASG whose template's user data depends on a bucket in us-west-2 (its own
    provider); a log bucket in eu-west-1 nothing reads. Expect: storage-same-zone fail naming
    f4-data, not f4-logs."""
    data = res("aws:s3/bucketV2:BucketV2", "f4-data", {"bucket": "f4-data", "tags": TAGS})
    logs = res("aws:s3/bucketV2:BucketV2", "f4-logs", {"bucket": "f4-logs", "tags": TAGS})
    s = subnet("f4-sn", "us-east-1a")
    t = lt("f4-lt", "g5.12xlarge", mounts=[data])
    stack = (_on(AWS, s, t, asg("f4", t, [s], 2), aws_budget())
             + _on({"region": "us-west-2"}, data) + _on({"region": "eu-west-1"}, logs))
    found = run(pack, stack, provider=None)
    assert verdict(found, SSZ) == "fail", messages(found, SSZ)
    assert "f4-data" in messages(found, SSZ) and "f4-logs" not in messages(found, SSZ)


def test_f5_gcs_bucket_in_europe_read_by_us_vm(pack):
    """A g2-standard-8 VM in us-central1-a whose metadata depends on a bucket in EUROPE-WEST4.
    Expect: storage-same-zone fail."""
    b = res("gcp:storage/bucket:Bucket", "f5-data", {
        "location": "EUROPE-WEST4", "uniformBucketLevelAccess": True, "labels": LABELS})
    vm = gvm("f5", "g2-standard-8", metadata={"startup-script": "gsutil cp gs://f5-data/x ."})
    vm.deps["metadata"] = [b]
    found = run(pack, [b, vm, gcp_budget()], provider=GCP)
    assert verdict(found, SSZ) == "fail", messages(found, SSZ)


def test_f6_azure_storage_account_in_other_region_read_by_scale_set(pack):
    """An eastus T4 scale set whose profile depends on a storage account in westeurope.
    Expect: storage-same-zone fail."""
    sa = res("azure-native:storage:StorageAccount", "f6-sa", {
        "resourceGroupName": "ml-rg", "location": "westeurope", "kind": "StorageV2",
        "sku": {"name": "Standard_LRS"}, "tags": TAGS})
    ss = vmss("f6", "Standard_NC4as_T4_v3", 2.0, deps={"virtualMachineProfile": [sa]})
    found = run(pack, [sa, ss, az_budget()], provider=AZ)
    assert verdict(found, SSZ) == "fail", messages(found, SSZ)


def test_f7_alibaba_two_scaling_groups_one_cpfs_in_its_users_zone(pack):
    """ESS group in eu-central-1a mounting a CPFS in eu-central-1a; a second GPU ESS group in
    eu-central-1b mounting nothing. Expect: storage-same-zone pass."""
    fs = cpfs("f7-cpfs", "eu-central-1a")
    a = _ess("f7-a", zone="eu-central-1a", mounts=[fs])
    b = _ess("f7-b", zone="eu-central-1b")
    found = run(pack, [fs, *a, *b], provider=ALI)
    assert verdict(found, SSZ) == "pass", messages(found, SSZ)


def test_f8_s3_express_bucket_in_other_az_id(pack):
    """A GPU ASG on a subnet of availabilityZoneId use1-az2 reading an S3 Express directory
    bucket in use1-az4 (its template depends on it). Expect: storage-same-zone fail."""
    s = subnet("f8-sn", "us-east-1a", availabilityZoneId="use1-az2")
    b = res("aws:s3/directoryBucket:DirectoryBucket", "f8-x", {
        "bucket": "train--use1-az4--x-s3", "dataRedundancy": "SingleAvailabilityZone",
        "type": "Directory", "location": {"name": "use1-az4", "type": "AvailabilityZone"}})
    t = lt("f8-lt", "g5.12xlarge", mounts=[b])
    found = run(pack, [s, b, t, asg("f8", t, [s], 2), aws_budget()], provider=AWS)
    assert verdict(found, SSZ) == "fail", messages(found, SSZ)


def test_f9_efs_one_zone_mounted_from_other_zone(pack):
    """EFS One Zone (availabilityZoneName us-east-1b) with a mount target; a GPU ASG in
    us-east-1a mounting it (template depends on the mount target). Expect: storage-same-zone
    fail."""
    sa, sb = subnet("f9-a", "us-east-1a"), subnet("f9-b", "us-east-1b")
    efs = res("aws:efs/fileSystem:FileSystem", "f9-efs", {
        "availabilityZoneName": "us-east-1b", "encrypted": True, "tags": TAGS})
    mt = res("aws:efs/mountTarget:MountTarget", "f9-mt", {
        "fileSystemId": "fs-id", "subnetId": "subnet-b"},
        deps={"fileSystemId": [efs], "subnetId": [sb]})
    t = lt("f9-lt", "g5.12xlarge", mounts=[mt])
    found = run(pack, [sa, sb, efs, mt, t, asg("f9", t, [sa], 2), aws_budget()], provider=AWS)
    assert verdict(found, SSZ) == "fail", messages(found, SSZ)


def test_f10_zonal_filestore_shared_with_cpu_vm_in_other_zone(pack):
    """A GPU VM in us-central1-a and a CPU VM (n2-standard-8) in us-central1-b both mount a
    ZONAL Filestore in us-central1-a. Expect: storage-same-zone pass."""
    share = res("gcp:filestore/instance:Instance", "f10-share", {
        "location": "us-central1-a", "tier": "ZONAL", "labels": LABELS,
        "fileShares": {"name": "data", "capacityGb": 1024.0},
        "networks": [{"network": "default", "modes": ["MODE_IPV4"]}]})
    gpu = gvm("f10-gpu", "g2-standard-8", metadata={"startup-script": "mount"})
    cpu = gvm("f10-cpu", "n2-standard-8", zone="us-central1-b",
              metadata={"startup-script": "mount"})
    gpu.deps["metadata"] = [share]
    cpu.deps["metadata"] = [share]
    found = run(pack, [share, gpu, cpu, gcp_budget()], provider=GCP)
    assert verdict(found, SSZ) == "pass", messages(found, SSZ)


# ================================================== G. literal ids outside the stack

def _literal_fsx_stack(label):
    s = subnet(f"{label}-sn", "us-east-1a")
    fs = res("aws:fsx/lustreFileSystem:LustreFileSystem", f"{label}-fs", {
        "subnetIds": "subnet-0feed0000000000aa", "storageCapacity": 1200.0,
        "deploymentType": "PERSISTENT_2", "perUnitStorageThroughput": 250.0, "tags": TAGS})
    t = lt(f"{label}-lt", "g5.12xlarge", mounts=[fs])
    return [s, fs, t, asg(label, t, [s], 2), aws_budget()]




def test_g2_fsx_on_literal_subnet_told_other_zone(pack):
    """The same, told us-east-1c. Expect: storage-same-zone fail."""
    found = run(pack, _literal_fsx_stack("g2"),
                {SSZ: {"zones": {"subnet-0feed0000000000aa": "us-east-1c"}}}, provider=AWS)
    assert verdict(found, SSZ) == "fail", messages(found, SSZ)


def test_g3_gpu_instance_on_literal_subnet_without_storage(pack):
    """A g6e.xlarge on a literal subnet id, no filesystem or bucket anywhere. Nothing to
    compare. Expect: storage-same-zone pass (no "cannot decide")."""
    i = res("aws:ec2/instance:Instance", "g3", {
        "ami": "ami-0a1b2c3d4e5f60718", "instanceType": "g6e.xlarge",
        "subnetId": "subnet-0feed0000000000bb", "associatePublicIpAddress": False,
        "tags": TAGS})
    found = run(pack, [i, aws_budget()], provider=AWS)
    assert verdict(found, SSZ) == "pass", messages(found, SSZ)


def test_g4_literal_subnet_cannot_decide_at_mandatory_level(pack):
    """FSx on a literal subnet, untold, with storage-same-zone cannotDecide "mandatory".
    Expect: "cannot decide" reported at the mandatory level."""
    found = run(pack, _literal_fsx_stack("g4"), {SSZ: {"cannotDecide": "mandatory"}},
                provider=AWS)
    ds = [d for d in found if d.policy == SSZ and "cannot decide" in d.message]
    assert ds and all(d.level == "mandatory" for d in ds), messages(found, SSZ)


def test_g5_user_data_names_literal_fsx_told_same_zone(pack):
    """A GPU ASG in us-east-1a whose template's user data mounts
    fs-0123456789abcdef0.fsx.us-east-1.amazonaws.com (not in the stack); config zones tells
    fs-0123456789abcdef0 is in us-east-1a. Expect: storage-same-zone pass."""
    s = subnet("g5-sn", "us-east-1a")
    ud = _b64(f"#!/bin/bash\nmount -t lustre {FS_ID}.fsx.us-east-1.amazonaws.com@tcp:/abcd "
              "/fsx\n")
    t = res("aws:ec2/launchTemplate:LaunchTemplate", "g5-lt", {
        "imageId": "ami-0a1b2c3d4e5f60718", "instanceType": "g5.12xlarge", "userData": ud,
        "tags": TAGS})
    found = run(pack, [s, t, asg("g5", t, [s], 2), aws_budget()],
                {SSZ: {"zones": {FS_ID: "us-east-1a"}}}, provider=AWS)
    assert verdict(found, SSZ) == "pass", messages(found, SSZ)


def test_g6_spot_fleet_on_literal_subnet_told_other_zone(pack):
    """Spot Fleet of g6e.xlarge on literal subnet-0feed0000000000cc, told us-east-1b; its
    launch specification's user data depends on the stack's FSx in us-east-1a.
    Expect: storage-same-zone fail."""
    sa = subnet("g6-a", "us-east-1a")
    fs = fsx("g6-fs", sa)
    f = res("aws:ec2/spotFleetRequest:SpotFleetRequest", "g6", {
        "iamFleetRole": "arn:aws:iam::123456789012:role/fleet", "targetCapacity": 2.0,
        "launchSpecifications": [{"instanceType": "g6e.xlarge", "ami": "ami-0a1b2c3d4e5f60718",
                                  "subnetId": "subnet-0feed0000000000cc",
                                  "userData": "IyEvYmluL2Jhc2g="}], "tags": TAGS},
        deps={"launchSpecifications": [fs]})
    found = run(pack, [sa, fs, f, aws_budget()],
                {SSZ: {"zones": {"subnet-0feed0000000000cc": "us-east-1b"}}}, provider=AWS)
    assert verdict(found, SSZ) == "fail", messages(found, SSZ)


# ================================================== H. public exposure

def test_h1_alibaba_eip_association_resource_on_gpu_instance(pack):
    """alicloud eip.Association (instanceType EcsInstance) joining an EipAddress to a gn7i
    instance. Expect: no-public-ingress fail."""
    i = ecs("h1")
    eip = res("alicloud:ecs/eipAddress:EipAddress", "h1-eip", {
        "bandwidth": "10", "internetChargeType": "PayByTraffic", "tags": TAGS})
    assoc = res("alicloud:eip/association:Association", "h1-assoc", {
        "allocationId": "eip-id", "instanceId": "i-id", "instanceType": "EcsInstance"},
        deps={"allocationId": [eip], "instanceId": [i]})
    found = run(pack, [i, eip, assoc], provider=ALI)
    assert verdict(found, NPI) == "fail", messages(found, NPI)


def test_h2_classic_scale_set_public_ip_per_instance(pack):
    """Classic LinuxVirtualMachineScaleSet (T4) whose ipConfiguration carries publicIpAddresses
    [{name}]: every instance gets a public IP. Expect: no-public-ingress fail."""
    ss = res("azure:compute/linuxVirtualMachineScaleSet:LinuxVirtualMachineScaleSet", "h2", {
        "resourceGroupName": "ml-rg", "location": "eastus", "sku": "Standard_NC4as_T4_v3",
        "instances": 2.0, "adminUsername": "ml",
        "networkInterfaces": [{"name": "nic", "primary": True, "ipConfigurations": [
            {"name": "ip", "primary": True, "subnetId": "subnet-id",
             "publicIpAddresses": [{"name": "pub"}]}]}], "tags": TAGS})
    found = run(pack, [ss, az_budget()], provider=AZ)
    assert verdict(found, NPI) == "fail", messages(found, NPI)


def test_h3_gcp_vm_with_external_ipv6(pack):
    """A g2-standard-8 VM with stackType IPV4_IPV6 and ipv6AccessConfigs [{networkTier
    PREMIUM}]: an external IPv6 address reachable from the internet
    (cloud.google.com/compute/docs/ip-addresses/configure-ipv6-address). Expect:
    no-public-ingress fail."""
    vm = gvm("h3", "g2-standard-8", networkInterfaces=[{
        "network": "default", "subnetwork": "ml-dual", "stackType": "IPV4_IPV6",
        "ipv6AccessConfigs": [{"networkTier": "PREMIUM"}]}])
    found = run(pack, [vm, gcp_budget()], provider=GCP)
    assert verdict(found, NPI) == "fail", messages(found, NPI)


def test_h4_native_instance_interface_with_public_ip(pack):
    """aws-native Instance g6.xlarge with networkInterfaces [{deviceIndex "0",
    associatePublicIpAddress true, subnetId of a private stack subnet}]. Expect: fail."""
    s = subnet("h4-sn", "us-east-1a")
    i = res("aws-native:ec2:Instance", "h4", {
        "instanceType": "g6.xlarge", "imageId": "ami-0a1b2c3d4e5f60718",
        "networkInterfaces": [{"deviceIndex": "0", "associatePublicIpAddress": True,
                               "subnetId": "subnet-id"}],
        "tags": [{"key": k, "value": v} for k, v in TAGS.items()]},
        deps={"networkInterfaces": [s]})
    found = run(pack, [s, i, aws_budget()], provider=AWS)
    assert verdict(found, NPI) == "fail", messages(found, NPI)


def test_h5_ess_scaling_configuration_with_public_bandwidth(pack):
    """ESS scaling configuration of gn7i with internetMaxBandwidthOut 50 (a public IP per
    node). Expect: no-public-ingress fail."""
    stack = _ess("h5", internetMaxBandwidthOut=50.0)
    found = run(pack, stack, provider=ALI)
    assert verdict(found, NPI) == "fail", messages(found, NPI)


def test_h6_eip_association_on_a_spot_request_instance(pack):
    """EipAssociation whose instanceId depends on a SpotInstanceRequest of g6.xlarge (its
    spotInstanceId). Expect: no-public-ingress fail."""
    s = subnet("h6-sn", "us-east-1a")
    sr = res("aws:ec2/spotInstanceRequest:SpotInstanceRequest", "h6", {
        "ami": "ami-0a1b2c3d4e5f60718", "instanceType": "g6.xlarge", "subnetId": "subnet-id",
        "associatePublicIpAddress": False, "waitForFulfillment": True, "tags": TAGS},
        deps={"subnetId": [s]})
    eip = res("aws:ec2/eip:Eip", "h6-eip", {"domain": "vpc", "tags": TAGS})
    assoc = res("aws:ec2/eipAssociation:EipAssociation", "h6-assoc", {
        "allocationId": "eipalloc-id", "instanceId": "i-id"},
        deps={"allocationId": [eip], "instanceId": [sr]})
    found = run(pack, [s, sr, eip, assoc, aws_budget()], provider=AWS)
    assert verdict(found, NPI) == "fail", messages(found, NPI)


def test_h7_eks_node_group_template_asking_public_ip(pack):
    """EKS node group (g6.xlarge) from a stack launch template whose networkInterfaces
    [{associatePublicIpAddress "true"}]. Expect: no-public-ingress fail."""
    s = subnet("h7-sn", "us-east-1a")
    t = res("aws:ec2/launchTemplate:LaunchTemplate", "h7-lt", {
        "networkInterfaces": [{"deviceIndex": 0.0, "associatePublicIpAddress": "true"}],
        "tags": TAGS})
    ng = res("aws:eks/nodeGroup:NodeGroup", "h7", {
        "clusterName": "ml", "nodeRoleArn": "arn:aws:iam::123456789012:role/node",
        "subnetIds": ["subnet-id"], "instanceTypes": ["g6.xlarge"],
        "launchTemplate": {"id": "lt-id", "version": "1"},
        "scalingConfig": {"minSize": 0.0, "maxSize": 2.0, "desiredSize": 1.0}, "tags": TAGS},
        deps={"subnetIds": [s], "launchTemplate": [t]})
    found = run(pack, [s, t, ng, aws_budget()], provider=AWS)
    assert verdict(found, NPI) == "fail", messages(found, NPI)


# ================================================== I. configuration typos

def test_i1_storage_zone_singular_refused(pack):
    """storage-same-zone "zone" (for "zones"). Expect: INVALID_ARGUMENT naming it."""
    assert "zone" in _config_refused(pack, SSZ, "zone", {"subnet-0abc": "us-east-1a"})


def test_i2_ssh_cidr_singular_refused(pack):
    """no-public-ingress "sshCidr". Expect: INVALID_ARGUMENT naming it."""
    assert "sshCidr" in _config_refused(pack, NPI, "sshCidr", ["203.0.113.0/24"])


def test_i3_negative_block_fee_refused(pack):
    """spend-limit capacityBlockFeesUsd {"blk": -5} (docs: a negative fee is refused).
    Expect: INVALID_ARGUMENT."""
    _config_refused(pack, SPEND, "capacityBlockFeesUsd", {"blk": -5})


def test_i4_misspelt_policy_name_refused(pack):
    """A config entry for "spend-limits" (no such policy). Expect: INVALID_ARGUMENT naming it.
    (Fixed after the first run: the entry lacked the enforcementLevel the CLI always sends, so
    the harness raised KeyError before anything reached the pack.)"""
    config = pack.cli_config()
    config["spend-limits"] = {"enforcementLevel": "mandatory", "maxMonthlyUsd": 1000}
    with pytest.raises(grpc.RpcError) as err:
        pack.send_config(config)
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "spend-limits" in err.value.details()


def test_i5_cannot_decide_level_not_in_enum_refused(pack):
    """spend-limit cannotDecide "warn" (only mandatory / advisory). Expect: INVALID_ARGUMENT."""
    assert "cannotDecide" in _config_refused(pack, SPEND, "cannotDecide", "warn")




# ================================================== K. catalog reach

@pytest.mark.parametrize("itype,region,rate", [
    ("g4ad.xlarge", "us-east-1", 0.37853),
    ("inf2.xlarge", "eu-west-1", 0.94775),
    ("p5.4xlarge", "us-east-1", 6.88),
])
def test_k1_aws_types_priced(pack, itype, region, rate):
    """One instance of each (AWS inference/training families the issue names: g4ad AMD, inf2,
    the single-H100 p5.4xlarge). Expect: rate x 730."""
    i = ec2(f"k1-{itype}", itype, availabilityZone=f"{region}a")
    assert near(estimate(pack, [i], {"region": region}), rate * MONTH)


@pytest.mark.parametrize("mtype,zone,rate", [
    ("a3-highgpu-1g", "us-central1-a", 11.0612),
    ("g4-standard-6", "europe-west4-a", 0.615512),
])
def test_k2_gcp_types_priced(pack, mtype, zone, rate):
    """One VM of each. Expect: rate x 730."""
    vm = gvm(f"k2-{mtype}", mtype, zone=zone)
    assert near(estimate(pack, [vm], {"project": "ml-prod", "region": zone[:-2]}),
                rate * MONTH)


def test_k3_gcp_n1_highmem_with_p4(pack):
    """n1-highmem-8 with 1 nvidia-tesla-p4 in us-central1-a: 0.473212 + 0.6 = 1.073212/h.
    Expect: 783.44."""
    vm = gvm("k3", "n1-highmem-8", guestAccelerators=[{"type": "nvidia-tesla-p4",
                                                        "count": 1.0}])
    assert near(estimate(pack, [vm], GCP), (0.473212 + 0.6) * MONTH)


@pytest.mark.parametrize("size,rate", [
    ("Standard_NV6ads_A10_v5", 0.454),
    ("Standard_NV4as_v4", 0.233),
])
def test_k4_azure_sizes_priced(pack, size, rate):
    """A scale set of 1 of each in eastus. Expect: rate x 730."""
    assert near(estimate(pack, [vmss(f"k4-{size}", size, 1.0)], AZ), rate * MONTH)


def test_k5_alibaba_vgpu_and_gn8is(pack):
    """ecs.sgn7i-vws-m2.xlarge in eu-central-1 for 72 h (0.271691 x 72 = 19.56) and
    ecs.gn8is.2xlarge in ap-southeast-1 for 48 h (2.57541 x 48 = 123.62), own providers.
    Expect: 143.18 (each rounded up to whole hours)."""
    a = ecs("k5-vws", itype="ecs.sgn7i-vws-m2.xlarge", release="72h")
    b = ecs("k5-l20", itype="ecs.gn8is.2xlarge", release="48h")
    stack = _on(ALI, a) + _on({"region": "ap-southeast-1"}, b)
    got = estimate(pack, stack, None)
    assert abs(got - (0.271691 * 72 + 2.57541 * 48)) <= 3, got


def test_k6_estimate_names_catalog_date(pack):
    """The estimate for a g4ad.xlarge names the catalog's date (issue: "keep the catalog's date
    visible in every estimate"). Expect: a YYYY-MM-DD date in the spend-limit finding."""
    found = run(pack, [ec2("k6", "g4ad.xlarge")], {SPEND: {"maxMonthlyUsd": 1}}, provider=AWS)
    assert re.search(r"20\d\d-\d\d-\d\d", messages(found, SPEND)), messages(found, SPEND)


# ================================================== X. combinations

def test_x1_block_odcr_and_group_in_it(pack):
    """A Capacity Block group (2 p5.48xlarge, fee 10,000) plus an open ODCR of 2 g6.xlarge in
    us-east-1a and an ASG of 2 g6.xlarge there (inside it). Expect: 10,000 + 2 x 0.8048 x 730
    = 11,175.01."""
    blk = _block_group("x1-blk")
    r = _odcr("x1-odcr", "g6.xlarge", 2.0)
    s = subnet("x1-sn", "us-east-1a")
    t = lt("x1-lt", "g6.xlarge")
    stack = blk + [r, s, t, asg("x1", t, [s], 2)]
    got = estimate(pack, stack, AWS, {"capacityBlockFeesUsd": {"x1-blk": 10000}})
    assert near(got, 10000 + 2 * G6_1 * MONTH), got


def test_x2_four_clouds_bad_release_and_public_eip(pack):
    """AWS g6.xlarge private but given an Eip (instance dependency); GCP and Azure compute
    budgeted; Alibaba gn7i with autoReleaseTime "next friday". Expect: no-public-ingress fail
    naming x2-aws; spend-limit fail naming x2-ali."""
    vm = ec2("x2-aws", "g6.xlarge")
    eip = res("aws:ec2/eip:Eip", "x2-eip", {"domain": "vpc", "instance": "i-id", "tags": TAGS},
              deps={"instance": [vm]})
    stack = (_on(AWS, vm, eip, aws_budget())
             + _on(GCP, gvm("x2-gcp", "g2-standard-8"), gcp_budget())
             + _on(AZ, vmss("x2-az", "Standard_NC4as_T4_v3", 2.0), az_budget())
             + _on(ALI, ecs("x2-ali", release="next friday")))
    found = run(pack, stack, provider=None)
    assert verdict(found, NPI) == "fail", messages(found, NPI)
    assert "x2-aws" in messages(found, NPI) or "x2-eip" in messages(found, NPI)
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)
    assert "x2-ali" in messages(found, SPEND)
