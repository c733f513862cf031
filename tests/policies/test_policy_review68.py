"""Issue 35, a BLIND hostile review (helper review68) of the CrossGuard pack over gRPC, driven as
`pulumi preview --policy-pack policies` drives it (tests/policy_harness.py). Focus: CAPACITY AND
LIFETIMES on all four clouds, with stacks unlike review64's and review66's (which covered open /
targeted / other-zone ODCRs, Capacity Blocks on an ASG, GCP reservations on a MIG, Azure capacity
reservations on a scale set, Alibaba Open / Target reservations, Schedules, Cloud Scheduler jobs,
Azure fixed-date profiles, autoReleaseTime past / garbled / PrePaid): here reservations that END
(ODCR endDate, GCP deleteAtTime / deleteAfterDuration, Alibaba endTime before the nodes' release),
reservations reached through a capacity-reservation resource group, aws-native ODCRs, single
instances, mixed spot / on-demand groups, EKS Capacity Block node groups, GKE node pools and AKS
pools in reservations, N1 + T4 reservations (with and without the GPU), classic Azure CRGs,
Alibaba elasticity assurances and reserved instances; lifetimes by -1 sizes, one-time and recurring
restarts before / after the stop, recurrences in a time zone, RFC 3339 offsets, instance-schedule
windows, flex-start resize requests, ARM ids in another case, autoReleaseTime in other shapes.
The pack's code was not read: every verdict comes from docs/policies.md, the catalog CSVs, the
Pulumi SDK schemas in .venv and cited provider pages; each batch's expectations were committed
before its first run. About half the cases are correct stacks that must pass.

RESULTS (agreed / cases on the first run of each blind batch; 97 blind cases, 61 of them correct
  stacks that must pass; 94 agree on the first run, 0 MY mistakes, 3 pack defects; plus 6 probes
  written after the findings and counted apart, 3 of them agree; 6 strict xfails in all):
  batch 1: 39/42 (capacity): ODCRs open / ending in 48 h (nodes running on: priced for the month,
    not the reservation's 48 h; nodes stopped at 96 h: between 576.81 and 4,386.19) / targeted in
    a capacity-reservation resource group with and without the ODCR in it / preference open
    written out / aws-native open and targeted / a targeted ODCR of 1 an instance targets by
    dependency, preference none, dedicated tenancy / a p4d group all spot (23,133.04) and all on
    demand (16,029.05) / a CPU ODCR; Capacity Blocks: an ASG with a fee and a 96 h stop (the fee,
    12,000, whole), an EKS CAPACITY_BLOCK node group with and without its fee; GCP reservations
    shared, deleted in 48 h (deleteAtTime, deleteAfterDuration), GKE pools ANY / SPECIFIC / NO,
    N1 + T4 reservations with and without the T4 (1,065.80 vs 1,065.80 + 554.80), a2 VM inside
    a reservation of 1, on demand and Spot; Azure AKS AgentPool in / out of a CRG, classic CRG +
    LinuxVirtualMachineScaleSet in / out, a single VM in / out, the AKS pool inline; Alibaba
    elasticity assurance and reserved instance (fail closed, named), a reservation ending at
    48 h before the nodes' 96 h release (520.51..525.93, not 260.25), 200 h, a PrePaid
    EcsInstanceSet, spot nodes alone and beside an open reservation. a04 DEFECT 1, z07 DEFECT 2,
    k07 DEFECT 3.
  batch 2: 42/42 (lifetimes): Schedules with maxSize -1 with and without a scaling policy, a
    one-time raise after / before the stop, a recurring raise, a recurring raise ending before
    the stop, recurring stops in UTC, America/New_York and Asia/Kolkata, a literal name, a
    maxSize-0 stop beside a scaling policy; GCP terminationTime with -07:00, +09:00, milliseconds,
    maxRunDuration STOP with and without a start schedule, instance schedules with an
    expirationTime before the stop and a startTime 48 h on (+58 h), a Spot VM, flex-start resize
    requests all / not all with a run duration, a MIG of target 1 with a request; Azure fixed-date
    stops by dependency, by literal ARM id, by the id in other letter cases, in another
    subscription, a zero window followed by a default profile of 2 / of 0, a set in a CRG (the
    reservation's month), disabled; Alibaba autoReleaseTime with +08:00, -10:00, milliseconds, a
    Unix epoch, 30 February, past the month (3,958.03 against 1,000 and 5,000), no charge type,
    an EcsInstanceSet.
  batch 3: 13/13: an EKS on-demand group inside an open ODCR, an EKS SPOT group beside one, a
    bought Capacity Block an EKS CAPACITY_BLOCK group launches into (its fee, once), aws-native
    ScheduledActions on a classic group (0/0/0, desired only over min 0, desired only over min 1),
    a one-zone regional MIG (once) and a two-zone one (twice), a GKE pool autoscaling past its
    reservation (2,492.58), two VMs sharing a reservation, an AKS pool autoscaling past its CRG,
    Alibaba Open nodes of another type, a Target reservation with None nodes.
  probes (counted apart): 3/6 (q01 q02 DEFECT 1; q06 DEFECT 3; q03 q04 q05 agree).
  FIXED (helper fix68): DEFECTS 1-3 below; their six cases pass as written, no xfail left.

DEFECT 1 (spend-limit false alarm, mandatory: capacity counted twice). Smallest: a04 = a targeted
  ODCR of 2 g6e.4xlarge in us-west-2a, put in a capacity-reservation resource group
  (aws:resourcegroups/group with AWS::EC2::CapacityReservationPool; an aws:resourcegroups/
  resource depending on the group and the ODCR), the group's launch template targeting the
  resource group (capacityReservationTarget.capacityReservationResourceGroupArn depending on it):
  priced "2 x g6e.4xlarge x 3.00 USD/h x 730 h = 4,386; 2 x ... = 4,386" = 8,772 > 6,000. The
  nodes launch into the ODCR: 4,386.19. Docs: "a group launched into a reservation of the stack
  ... is priced only for its nodes beyond the reservation ...: reservation and consumer are
  counted once" (the docs name the consumer by its target depending on the ODCR and do not name
  the resource-group path; nor do they list it as a limit). Reach: a single instance targeting
  the group (q01, 4,386 > 3,000), the ODCR open in the group (q02). Control: a05 (the ODCR never
  in the group) rightly twice.
DEFECT 2 (spend-limit false alarm, mandatory: counted twice). Smallest: z07 = an azure-native
  ManagedCluster whose agentPoolProfiles hold a GPU pool of 2 Standard_NC8as_T4_v3 in zone 1
  with capacityReservationGroupID on the stack's group (a reservation of 2): priced 2,196 >
  1,500, while the same pool as an azure-native AgentPool (z01) is counted once, 1,097.92.
  learn.microsoft.com/azure/aks/use-capacity-reservation-groups: the pool is associated with the
  group. Not reached: classic KubernetesClusterNodePool (q03) and a classic cluster's
  defaultNodePool (q04), both once.
DEFECT 3 (spend-limit below the truth: spot counted as reserved). Smallest: k07 = two Alibaba
  spot nodes (spotStrategy SpotAsPriceGo, privatePoolOptionsMatchCriteria Open, released at
  96 h) beside an open immediate capacity reservation of 2 to 200 h: priced "0 x ... spot ...
  (1 more inside reservation ft-cr, priced there) = 0" each, 1,090 < 1,200; the truth is 1,084.39
  + 162.46 = 1,246.85 > 1,200. Alibaba: "Immediate Capacity Reservation guarantees resources only
  for pay-as-you-go instances, not spot instances" (help.aliyun.com/en/ecs/user-guide/
  overview-of-immediate-capacity-reservation); docs: "spot nodes use neither" (said of ODCRs and
  GCP reservations; AWS a12 and GCP g11 are priced right). Reach: SpotWithPriceLimit (q06). Not
  reached: the match criteria left out (q05, priced 1,254).

Planted bug (test side; the pack's code was not read): `odcr` writing availabilityZone us-west-2b
  whatever zone it is given: a01 a02 a06 a13 b01 fail, every other case passes (a03's range is
  wide on purpose; a09 ties the instance to the ODCR by dependency); reverted.

Noticed, left alone: an AWS ODCR's endDate is not promised by the docs (a03 accepts either the
  month or the truth); k03 (the Alibaba reservation ending before the nodes) is priced right,
  reservation then pay-as-you-go ("When the reservation is released, existing pay-as-you-go
  instances ... continue to run"); Alibaba nodes that leave privatePoolOptionsMatchCriteria out
  were not checked against an open reservation for pay-as-you-go nodes; an Azure Spot scale set
  in a CRG was dropped before its run (the support page I could find says nothing of Spot);
  autoReleaseTime with an offset is read at its instant (p01 p02) although the ECS API asks for
  yyyy-MM-ddTHH:mm:ssZ in UTC and may refuse it (InvalidAutoReleaseTime.Malformed), which would
  create no node.

Each case states the verdict of EVERY policy (those not named stay "pass"): "fail", "advisory",
"undecided" ("cannot decide") or "pass"; its `why` is the hand calculation or the cited source.
`_est` is the range the estimate spend-limit states (its Found, USD/month) must fall in when a
cap of 1 USD forces it out (maxMonthlyUsd 1 added to the case's config).
"""
from __future__ import annotations

import json
import math
import re
from datetime import datetime, timedelta, timezone
from typing import Any, Callable, Optional
from zoneinfo import ZoneInfo

import pytest

from tests.policy_fixtures import AWS_ALERTS, AZURE_ALERTS, GCP_ALERTS, res
from tests.policy_harness import PolicyPackProcess, run, verdict

SSZ, SPEND, TAGS_P, RDMA = "storage-same-zone", "spend-limit", "required-tags", "rdma-for-multinode"
NPI, ENC, RET = "no-public-ingress", "encryption-at-rest", "bucket-retained"
POLICIES = (SSZ, SPEND, TAGS_P, RDMA, NPI, ENC, RET)
TAGS = {"owner": "mia", "team": "speech", "cost-center": "5150"}
LABELS = {"owner": "mia", "team": "speech", "cost_center": "5150"}
AZ_TAGS = {"owner": "mia", "team": "speech", "cost-center": "5150"}
ALI = "eu-central-1"
MONTH = 730.0

# Rates (components/catalog/prices.csv, on-demand / spot USD/h; a month is 730 h). Every type below
# is a `tcp` row of instance_types.csv (no RDMA fabric), so rdma-for-multinode asks nothing
# ("Not asked: ... a type whose catalog row has no RDMA fabric"), except where said.
G6E = 3.00424        # aws g6e.4xlarge us-west-2 (no spot price in the row)
P4D, P4D_SPOT = 21.9576, 9.7315   # aws p4d.24xlarge us-west-2 (efa: only single nodes used)
G2 = 0.853624        # gcp g2-standard-8 us-central1
A2, A2_SPOT = 3.67339, 1.29336    # gcp a2-highgpu-1g us-central1
N1_8, T4 = 0.38, 0.35             # gcp_attached_gpus.csv: n1-standard-8, nvidia-tesla-t4 us-central1
NC8 = 0.752          # azure Standard_NC8as_T4_v3 eastus
GN7I, GN7I_SPOT = 2.71098, 0.846144   # alibaba ecs.gn7i-c16g1.4xlarge eu-central-1 (eu-central-1a)


def rng(x: float, y: Optional[float] = None) -> tuple[float, float]:
    """The estimate's range: x..y (y = x) widened by 2 USD for rounding."""
    return (x - 2, (x if y is None else y) + 2)


def unknown() -> Any:
    from trainstack_policies.model import UNKNOWN
    return UNKNOWN


def named(stack: list, name: str):
    return next(r for r in stack if r.name == name)


# -------------------------------------------------------------------------------- time helpers
def _later(hours: float) -> datetime:
    """now + hours, rounded UP to the whole minute."""
    at = datetime.now(timezone.utc) + timedelta(hours=hours)
    whole = at.replace(second=0, microsecond=0)
    return whole if whole == at else whole + timedelta(minutes=1)


def iso_utc(hours: float) -> str:
    return _later(hours).strftime("%Y-%m-%dT%H:%M:%SZ")


def iso_off(hours: float, offset_h: int, frac: bool = False) -> str:
    """The instant now+hours written in the wall clock of UTC+offset_h with its RFC 3339 offset."""
    tz = timezone(timedelta(hours=offset_h))
    text = _later(hours).astimezone(tz).isoformat(timespec="milliseconds" if frac else "seconds")
    return text


def cron_daily(hours: float, tz: str = "UTC") -> str:
    w = _later(hours).astimezone(ZoneInfo(tz))
    return f"{w.minute} {w.hour} * * *"


# ----------------------------------------------------------------------------------- builders
# AWS us-west-2 (provider region): a private subnet in us-west-2a, a launch template of
#   g6e.4xlarge (L40S x1, tcp) with no public IP, an Auto Scaling group `ft-nodes` (name input
#   "ft-nodes") of max 2, a COST budget that e-mails (6,000 unless said). No filesystem, no
#   bucket: the estimate is the nodes alone. The month: 2 x 3.00424 x 730 = 4,386.19.
def aws1(itype: str = "g6e.4xlarge", max_size: Any = 2.0, budget: Any = "6000",
         stop_h: Optional[float] = None, mixed: Optional[dict] = None) -> list:
    sub = res("aws:ec2/subnet:Subnet", "ft-a", {"availabilityZone": "us-west-2a", "vpcId": "vpc-1",
                                                "cidrBlock": "10.30.1.0/24", "tags": dict(TAGS)})
    lt = res("aws:ec2/launchTemplate:LaunchTemplate", "ft-lt", {
        "instanceType": itype,
        "networkInterfaces": [{"deviceIndex": 0.0, "associatePublicIpAddress": "false"}],
        "tagSpecifications": [{"resourceType": "instance", "tags": dict(TAGS)}],
        "tags": dict(TAGS)})
    asg_p: dict = {"name": "ft-nodes", "minSize": 0.0, "maxSize": max_size,
                   "desiredCapacity": 1.0, "vpcZoneIdentifiers": ["subnet-a"],
                   "tags": [{"key": k, "value": v, "propagateAtLaunch": True}
                            for k, v in TAGS.items()]}
    if mixed is None:
        asg_p["launchTemplate"] = {"id": "lt-a", "version": "$Latest"}
        deps = {"launchTemplate": [lt], "vpcZoneIdentifiers": [sub]}
    else:
        asg_p["mixedInstancesPolicy"] = {
            "launchTemplate": {"launchTemplateSpecification": {"launchTemplateId": "lt-a",
                                                               "version": "$Latest"}},
            "instancesDistribution": mixed}
        deps = {"mixedInstancesPolicy": [lt], "vpcZoneIdentifiers": [sub]}
    asg = res("aws:autoscaling/group:Group", "ft-nodes", asg_p, deps=deps)
    bud = res("aws:budgets/budget:Budget", "ft-budget", {
        "budgetType": "COST", "timeUnit": "MONTHLY", "limitAmount": budget, "limitUnit": "USD",
        "notifications": AWS_ALERTS, "tags": dict(TAGS)})
    out = [sub, lt, asg, bud]
    if stop_h is not None:
        out.append(aws_sched("ft-stop", hours=stop_h)(out)[-1])
    return out


def aws_sched(name: str, hours: Optional[float] = None, size: float = 0.0, dep: bool = True,
              **p):
    """An aws:autoscaling/schedule:Schedule on ft-nodes setting min / max / desired to `size`."""
    def build(s):
        props = {"autoscalingGroupName": "ft-nodes", "scheduledActionName": name,
                 "minSize": size, "maxSize": size, "desiredCapacity": size, **p}
        if hours is not None:
            props["startTime"] = iso_utc(hours)
        return res("aws:autoscaling/schedule:Schedule", name, props,
                   deps={"autoscalingGroupName": [named(s, "ft-nodes")]} if dep else {})
    return _add(build)


# An AWS base with no group: the subnet and a 3,000 budget (single-instance cases).
def aws0(budget: Any = "3000") -> list:
    sub = res("aws:ec2/subnet:Subnet", "ft-a", {"availabilityZone": "us-west-2a", "vpcId": "vpc-1",
                                                "cidrBlock": "10.30.1.0/24", "tags": dict(TAGS)})
    sub_b = res("aws:ec2/subnet:Subnet", "ft-b", {"availabilityZone": "us-west-2b",
                                                  "vpcId": "vpc-1", "cidrBlock": "10.30.2.0/24",
                                                  "tags": dict(TAGS)})
    bud = res("aws:budgets/budget:Budget", "ft-budget", {
        "budgetType": "COST", "timeUnit": "MONTHLY", "limitAmount": budget, "limitUnit": "USD",
        "notifications": AWS_ALERTS, "tags": dict(TAGS)})
    return [sub, sub_b, bud]


def ec2(name: str = "ft-vm", itype: str = "g6e.4xlarge", subnet: str = "ft-a", **p):
    return _add(lambda s: res("aws:ec2/instance:Instance", name, {
        "instanceType": itype, "ami": "ami-0abc", "subnetId": "subnet-x",
        "associatePublicIpAddress": False, "tags": dict(TAGS), **p},
        deps={"subnetId": [named(s, subnet)]}))


def odcr(name: str = "ft-odcr", itype: str = "g6e.4xlarge", zone: str = "us-west-2a",
         count: Any = 2.0, **p):
    return _add(lambda s: res("aws:ec2/capacityReservation:CapacityReservation", name, {
        "instanceType": itype, "instancePlatform": "Linux/UNIX", "availabilityZone": zone,
        "instanceCount": count, "endDateType": "unlimited", "tags": dict(TAGS), **p}))


def lt_set(key: str, value: Any, dep_on: Optional[str] = None, lt: str = "ft-lt"):
    def mutate(s):
        r = named(s, lt)
        r.props[key] = value
        if dep_on:
            r.deps[key] = [named(s, dep_on)]
        return s
    return mutate


# GCP us-central1-a (provider project ml, region us-central1): an instance template of
#   g2-standard-8 (L4 x1, tcp), a zonal MIG `ft-mig` (name input "ft-mig") of target 2, an
#   internal firewall, a budget with threshold rules (2,000 unless said). The month:
#   2 x 0.853624 x 730 = 1,246.29.
def gcp1(mtype: str = "g2-standard-8", target: Any = 2.0, budget: Any = "2000",
         tpl_extra: Optional[dict] = None) -> list:
    tpl = res("gcp:compute/instanceTemplate:InstanceTemplate", "ft-tpl", {
        "machineType": mtype, "networkInterfaces": [{"network": "default"}],
        "labels": dict(LABELS), "scheduling": {"provisioningModel": "STANDARD",
                                               "onHostMaintenance": "TERMINATE"},
        "disks": [{"boot": True, "sourceImage": "debian-cloud/debian-12"}],
        **(tpl_extra or {})})
    mig = res("gcp:compute/instanceGroupManager:InstanceGroupManager", "ft-mig", {
        "name": "ft-mig", "zone": "us-central1-a", "targetSize": target,
        "baseInstanceName": "ft", "versions": [{"instanceTemplate": "tpl-id"}]},
        deps={"versions": [tpl]})
    return [tpl, mig] + gcp0(budget)


def gcp0(budget: Any = "1000") -> list:
    bud = res("gcp:billing/budget:Budget", "ft-budget", {
        "billingAccount": "000000-000000-000000",
        "amount": {"specifiedAmount": {"currencyCode": "USD", "units": budget}},
        "thresholdRules": GCP_ALERTS})
    fw = res("gcp:compute/firewall:Firewall", "ft-intra", {
        "network": "default", "direction": "INGRESS", "sourceRanges": ["10.128.0.0/9"],
        "allows": [{"protocol": "all"}]})
    return [bud, fw]


def gres(name: str = "ft-res", mtype: str = "g2-standard-8", count: Any = 2.0,
         zone: str = "us-central1-a", required: Optional[bool] = None, gpus: Optional[list] = None,
         **p):
    def build(_s):
        ip: dict = {"machineType": mtype}
        if gpus is not None:
            ip["guestAccelerators"] = gpus
        props = {"name": name, "zone": zone,
                 "specificReservation": {"count": count, "instanceProperties": ip}, **p}
        if required is not None:
            props["specificReservationRequired"] = required
        return res("gcp:compute/reservation:Reservation", name, props)
    return _add(build)


def gvm(name: str = "ft-vm", mtype: str = "a2-highgpu-1g", scheduling: Optional[dict] = None,
        policies: Optional[list] = None, **p):
    """One GCP VM in us-central1-a (explicit name input), policies attached by dependency."""
    def build(s):
        pols = [named(s, n) for n in (policies or [])]
        return res("gcp:compute/instance:Instance", name, {
            "name": name, "zone": "us-central1-a", "machineType": mtype, "labels": dict(LABELS),
            "bootDisk": {"initializeParams": {"image": "debian-cloud/debian-12"}},
            "networkInterfaces": [{"network": "default"}],
            "scheduling": {"provisioningModel": "STANDARD", "onHostMaintenance": "TERMINATE",
                           **(scheduling or {})},
            **({"resourcePolicies": [f"{n}-id" for n in policies]} if policies else {}), **p},
            deps={"resourcePolicies": pols} if pols else {})
    return _add(build)


def sched_pol(name: str, stop: Optional[str] = None, start: Optional[str] = None,
              tz: str = "UTC", **extra):
    def build(_s):
        p: dict = {"timeZone": tz, **extra}
        if stop:
            p["vmStopSchedule"] = {"schedule": stop}
        if start:
            p["vmStartSchedule"] = {"schedule": start}
        return res("gcp:compute/resourcePolicy:ResourcePolicy", name,
                   {"region": "us-central1", "instanceSchedulePolicy": p})
    return _add(build)


# Azure eastus (provider subscription s, location eastus): an azure-native scale set `ft-vmss`
#   (vmScaleSetName "ft-vmss", resource group "rg") of 2 Standard_NC8as_T4_v3 (T4 x1, tcp) in
#   zone 1, and a subscription budget that e-mails (1,500 unless said). The month:
#   2 x 0.752 x 730 = 1,097.92.
def az1(capacity: Any = 2.0, budget: float = 1500.0) -> list:
    vmss = res("azure-native:compute:VirtualMachineScaleSet", "ft-vmss", {
        "vmScaleSetName": "ft-vmss", "resourceGroupName": "rg", "location": "eastus",
        "zones": ["1"], "sku": {"name": "Standard_NC8as_T4_v3", "capacity": capacity,
                                "tier": "Standard"},
        "virtualMachineProfile": {"priority": "Regular", "networkProfile": {
            "networkInterfaceConfigurations": [{"name": "nic", "primary": True,
                                                "ipConfigurations": [{"name": "ip"}]}]}},
        "tags": dict(AZ_TAGS)})
    return [vmss] + az0(budget)


def az0(budget: float = 1500.0) -> list:
    return [res("azure-native:consumption:Budget", "ft-budget", {
        "amount": budget, "category": "Cost", "timeGrain": "Monthly", "scope": "/subscriptions/s",
        "notifications": AZURE_ALERTS})]


def az_crg(name: str = "ft-crg", capacity: Any = 2.0, zone: str = "1"):
    def build(_s):
        crg = res("azure-native:compute:CapacityReservationGroup", name, {
            "location": "eastus", "zones": [zone], "resourceGroupName": "rg",
            "tags": dict(AZ_TAGS)})
        cr = res("azure-native:compute:CapacityReservation", f"{name}-cr", {
            "location": "eastus", "zones": [zone], "resourceGroupName": "rg",
            "capacityReservationGroupName": "ft-crg", "tags": dict(AZ_TAGS),
            "sku": {"name": "Standard_NC8as_T4_v3", "capacity": capacity}},
            deps={"capacityReservationGroupName": [crg]})
        return [crg, cr]
    return _add(build)


def az_join_vmss(crg: str = "ft-crg"):
    def mutate(s):
        vmss = named(s, "ft-vmss")
        vmss.props["virtualMachineProfile"]["capacityReservation"] = {
            "capacityReservationGroup": {"id": "crg-id"}}
        vmss.deps["virtualMachineProfile"] = [named(s, crg)]
        return s
    return mutate


def az_autoscale(name: str = "ft-stop", profiles: Optional[list] = None, enabled: Any = True,
                 target: Optional[str] = None):
    """An azure-native monitor AutoscaleSetting on ft-vmss: by dependency, or a literal URI."""
    def build(s):
        p: dict = {"location": "eastus", "resourceGroupName": "rg",
                   "targetResourceUri": target or "vmss-id", "profiles": profiles or []}
        if enabled is not None:
            p["enabled"] = enabled
        return res("azure-native:monitor:AutoscaleSetting", name, p,
                   deps={} if target else {"targetResourceUri": [named(s, "ft-vmss")]})
    return _add(build)


def zero_profile(hours: float, end: str = "2037-12-31T00:00:00Z", name: str = "stop") -> dict:
    return {"name": name, "capacity": {"minimum": "0", "maximum": "0", "default": "0"},
            "rules": [], "fixedDate": {"start": iso_utc(hours), "end": end}}


RUN2 = {"name": "run", "capacity": {"minimum": "2", "maximum": "2", "default": "2"}, "rules": []}


# Alibaba eu-central-1 (provider region): a vSwitch in eu-central-1a and two pay-as-you-go
#   ecs.gn7i-c16g1.4xlarge (A10 x1, tcp) instances released at now + 96 h (autoReleaseTime
#   stands in for the alarm: no budget resource in pulumi-alicloud). The cap is the config's
#   maxMonthlyUsd. 96 h: 2 x 2.71098 x 96 = 520.51 (97 h: 525.93); the month: 3,958.03.
def ali1(release: Any = "96h", charge: Optional[str] = "PostPaid", **node_p) -> list:
    if isinstance(release, str) and release.endswith("h"):
        release = iso_utc(float(release[:-1]))
    vsw = res("alicloud:vpc/switch:Switch", "ft-vsw", {"zoneId": "eu-central-1a",
                                                        "vpcId": "vpc-1",
                                                        "cidrBlock": "10.40.1.0/24",
                                                        "tags": dict(TAGS)},
              provider_region=ALI)
    nodes = []
    for i in range(2):
        p = {"instanceType": "ecs.gn7i-c16g1.4xlarge", "vswitchId": "vsw-id",
             "imageId": "ubuntu_22_04_x64", "internetMaxBandwidthOut": 0.0, "tags": dict(TAGS),
             **node_p}
        if charge is not None:
            p["instanceChargeType"] = charge
        if release is not None:
            p["autoReleaseTime"] = release
        nodes.append(res("alicloud:ecs/instance:Instance", f"node-{i}", p,
                         deps={"vswitchId": [vsw]}, provider_region=ALI))
    return [vsw, *nodes]


def ali0() -> list:
    return [res("alicloud:vpc/switch:Switch", "ft-vsw", {
        "zoneId": "eu-central-1a", "vpcId": "vpc-1", "cidrBlock": "10.40.1.0/24",
        "tags": dict(TAGS)}, provider_region=ALI)]


def ali_nodes(key: str, value: Any):
    def mutate(s):
        for n in ("node-0", "node-1"):
            named(s, n).props[key] = value
        return s
    return mutate


def ali_cr(name: str = "ft-cr", end_h: Optional[float] = 200, match: str = "Open"):
    def build(_s):
        props = {"instanceType": "ecs.gn7i-c16g1.4xlarge", "instanceAmount": 2.0,
                 "zoneIds": ["eu-central-1a"], "matchCriteria": match, "platform": "linux",
                 "tags": dict(TAGS)}
        if end_h is not None:
            props.update(endTimeType="Limited", endTime=iso_utc(end_h))
        else:
            props["endTimeType"] = "Unlimited"
        return res("alicloud:ecs/capacityReservation:CapacityReservation", name, props,
                   provider_region=ALI)
    return _add(build)


def cap(usd: float) -> dict:
    return {SPEND: {"maxMonthlyUsd": usd}}


AWS_P = {"region": "us-west-2"}
GCP_P = {"project": "ml", "region": "us-central1"}
AZ_P = {"subscriptionId": "s", "location": "eastus"}
ALI_P = {"region": ALI}
PROVIDERS = {"aws": AWS_P, "aws0": AWS_P, "gcp": GCP_P, "gcp0": GCP_P, "azure": AZ_P,
             "azure0": AZ_P, "ali": ALI_P, "ali0": ALI_P}
BUILD: dict[str, Callable[..., list]] = {"aws": aws1, "aws0": aws0, "gcp": gcp1, "gcp0": gcp0,
                                         "azure": az1, "azure0": az0, "ali": ali1, "ali0": ali0}


# The six strict xfails (a04 q01 q02: DEFECT 1; z07: DEFECT 2; k07 q06: DEFECT 3) were fixed
# by helper fix68 (inventory.reservations): they run as ordinary cases now, the reviewer's
# expectations unchanged.
def _params(cases):
    return [pytest.param(c, id=c[0]) for c in cases]


def _merge(config: Optional[dict], extra: dict) -> dict:
    out = json.loads(json.dumps(config or {}))
    for k, v in extra.items():
        out.setdefault(k, {})
        out[k].update(v)
    return out


def _run_case(pack, case):
    cid, cloud, kwargs, mutate, expect, config, _why = case
    stack = BUILD[cloud](**kwargs)
    provider = dict(PROVIDERS[cloud])
    if mutate is not None:
        out = mutate(stack)
        if isinstance(out, tuple):   # (stack, provider props)
            stack, provider = out
        else:
            stack = out
    found = run(pack, stack, config, provider)
    got = {p: verdict(found, p) for p in POLICIES}
    want = {p: expect.get(p, "pass") for p in POLICIES}
    assert got == want, (cid, [(d.policy, d.level, d.message[:400]) for d in found])
    for policy, needles in expect.get("_msg", {}).items():   # what the findings must name
        text = " ".join(d.message for d in found if d.policy == policy)
        for needle in needles:
            assert needle in text, (cid, policy, needle, text[:1500])
    if "_est" in expect:
        lo, hi = expect["_est"]
        found = run(pack, stack, _merge(config, {SPEND: {"maxMonthlyUsd": 1}}), provider)
        figures = sorted({m.group(1) for d in found if d.policy == SPEND and "exceeds" in d.message
                          for m in [re.search(r"Found: ([\d,.]+) USD/month", d.message)] if m})
        assert len(figures) == 1, (cid, [d.message[:600] for d in found if d.policy == SPEND])
        figure = float(figures[0].replace(",", "").rstrip("."))
        assert lo <= figure <= hi, (cid, figure, (lo, hi))


def _add(*extra_fns):
    """A mutation adding resources built from the stack (each fn: stack -> resource or list)."""
    def mutate(s):
        for fn in extra_fns:
            r = fn(s)
            s = s + (r if isinstance(r, list) else [r])
        return s
    return mutate


def _set(name: str, key: str, value: Any):
    def mutate(s):
        named(s, name).props[key] = value
        return s
    return mutate


def _setp(name: str, path: str, value: Any):
    """Set a dotted path (`sku.capacity`) on a resource, creating dicts on the way."""
    def mutate(s):
        target = named(s, name).props
        parts = path.split(".")
        for part in parts[:-1]:
            target = target.setdefault(part, {})
        target[parts[-1]] = value
        return s
    return mutate


def _deps(name: str, key: str, *targets: str):
    """Make `name`'s input `key` depend on the named resources (none: drop the dependency)."""
    def mutate(s):
        r = named(s, name)
        if targets:
            r.deps[key] = [named(s, t) for t in targets]
        else:
            r.deps.pop(key, None)
        return s
    return mutate


def _drop(*names: str):
    return lambda s: [r for r in s if r.name not in names]


def _chain(*fns):
    def mutate(s):
        provider = None
        for fn in fns:
            s = fn(s)
            if isinstance(s, tuple):
                s, provider = s
        return (s, provider) if provider is not None else s
    return mutate


# ------------------------------------------------------------------------------------ batch 1
# Capacity counted once, twice or not at all (docs, spend-limit "Sizes": reservations "at their
# count, billed whether used or not"; "a group launched into a reservation of the stack ... is
# priced only for its nodes beyond the reservation"; an Alibaba one "priced until" its endTime;
# Capacity Blocks at the configured fee; "any other resource that carries a GPU sign" cannot be
# estimated). Budgets sit between "once" and "twice" so that either error changes the verdict.
TARGET = "capacityReservationSpecification"
ODCR2 = 2 * G6E * MONTH                    # 4,386.19
ONCE_A, TWICE_A = rng(ODCR2), rng(2 * ODCR2)   # .. 8,772.38 > 6,000
A96 = (2 * G6E * 96, 2 * G6E * 97)         # 576.81 .. 582.82
CRG_ARN = "arn:aws:resource-groups:us-west-2:111122223333:group/ft-crg"


def cr_group(member: bool = True):
    """A capacity-reservation resource group (AWS::EC2::CapacityReservationPool) holding ft-odcr
    (aws:resourcegroups/resource:Resource depending on both) or not."""
    def build(s):
        grp = res("aws:resourcegroups/group:Group", "ft-crg", {
            "name": "ft-crg", "tags": dict(TAGS), "configurations": [
                {"type": "AWS::EC2::CapacityReservationPool"},
                {"type": "AWS::ResourceGroups::Generic", "parameters": [
                    {"name": "allowed-resource-types",
                     "values": ["AWS::EC2::CapacityReservation"]}]}]})
        out = [grp]
        if member:
            out.append(res("aws:resourcegroups/resource:Resource", "ft-crg-member", {
                "groupArn": CRG_ARN, "resourceArn": "arn:aws:ec2:us-west-2:1:capacity-reservation/x"},
                deps={"groupArn": [grp], "resourceArn": [named(s, "ft-odcr")]}))
        return out
    return _add(build)


def native_odcr(match: str = "open"):
    return _add(lambda s: res("aws-native:ec2:CapacityReservation", "ft-odcr", {
        "instanceType": "g6e.4xlarge", "instancePlatform": "Linux/UNIX",
        "availabilityZone": "us-west-2a", "instanceCount": 2, "instanceMatchCriteria": match,
        "tagSpecifications": [{"resourceType": "capacity-reservation",
                               "tags": [{"key": k, "value": v} for k, v in TAGS.items()]}]}))


CB_LT = {"marketType": "capacity-block"}
CB_TARGET = {"capacityReservationTarget": {"capacityReservationId": "cr-0cb1234567890abcd"}}


def eks_block():
    """An EKS managed node group of capacityType CAPACITY_BLOCK, launched from a launch template
    that sets marketType capacity-block and the block's reservation id, as EKS requires
    (docs.aws.amazon.com/eks/latest/userguide/capacity-blocks-mng.html)."""
    def build(s):
        lt = res("aws:ec2/launchTemplate:LaunchTemplate", "ft-cb-lt", {
            "instanceType": "p5.48xlarge", "instanceMarketOptions": dict(CB_LT),
            "capacityReservationSpecification": dict(CB_TARGET),
            "tagSpecifications": [{"resourceType": "instance", "tags": dict(TAGS)}],
            "tags": dict(TAGS)})
        ng = res("aws:eks/nodeGroup:NodeGroup", "ft-eks", {
            "clusterName": "ml", "nodeRoleArn": "arn:aws:iam::111122223333:role/node",
            "subnetIds": ["subnet-x"], "capacityType": "CAPACITY_BLOCK",
            "scalingConfig": {"desiredSize": 1.0, "maxSize": 1.0, "minSize": 0.0},
            "launchTemplate": {"id": "lt-cb", "version": "1"}, "tags": dict(TAGS)},
            deps={"subnetIds": [named(s, "ft-a")], "launchTemplate": [lt]})
        return [lt, ng]
    return _add(build)


RES2 = 2 * G2 * MONTH                      # 1,246.29
N1T4 = 2 * (N1_8 + T4) * MONTH             # 1,065.80
N1CPU = 2 * N1_8 * MONTH                   # 554.80
A2M = A2 * MONTH                           # 2,681.57
AFF = "reservationAffinity"


def gke_pool(affinity: Optional[dict]):
    """A GKE node pool of 2 g2-standard-8 nodes in the zonal cluster ml-gke (us-central1-a)."""
    cfg: dict = {"machineType": "g2-standard-8", "resourceLabels": dict(LABELS),
                 "oauthScopes": ["https://www.googleapis.com/auth/cloud-platform"]}
    if affinity is not None:
        cfg[AFF] = affinity
    return _add(lambda s: res("gcp:container/nodePool:NodePool", "ft-pool", {
        "cluster": "ml-gke", "location": "us-central1-a", "nodeCount": 2.0, "nodeConfig": cfg}))


AZ2 = 2 * NC8 * MONTH                      # 1,097.92


def aks(join: bool = True, inline: bool = False):
    """An AKS cluster (system pool Standard_D4s_v5, no catalog row) and a user pool of 2
    Standard_NC8as_T4_v3 in zone 1, in the capacity reservation group ft-crg or not
    (capacityReservationGroupID: "AKS will associate the specified agent pool with the Capacity
    Reservation Group", learn.microsoft.com/azure/aks/use-capacity-reservation-groups)."""
    def build(s):
        gpu = {"name": "gpu", "mode": "User", "vmSize": "Standard_NC8as_T4_v3", "count": 2.0,
               "availabilityZones": ["1"], "osType": "Linux"}
        if join:
            gpu["capacityReservationGroupID"] = "crg-id"
        system = {"name": "system", "mode": "System", "vmSize": "Standard_D4s_v5",
                  "count": 1.0, "osType": "Linux"}
        cl = res("azure-native:containerservice:ManagedCluster", "ft-aks", {
            "resourceName": "ft-aks", "resourceGroupName": "rg", "location": "eastus",
            "dnsPrefix": "ft", "identity": {"type": "UserAssigned"},
            "agentPoolProfiles": [system, gpu] if inline else [system], "tags": dict(AZ_TAGS)},
            deps={"agentPoolProfiles": [named(s, "ft-crg")]} if inline and join else {})
        if inline:
            return [cl]
        pool = res("azure-native:containerservice:AgentPool", "ft-gpu", {
            "resourceName": "ft-aks", "resourceGroupName": "rg", "agentPoolName": "gpu",
            **{k: v for k, v in gpu.items() if k != "name"}},
            deps={"resourceName": [cl], **({"capacityReservationGroupID": [named(s, "ft-crg")]}
                                           if join else {})})
        return [cl, pool]
    return _add(build)


def classic_crg(join: bool = True):
    def build(_s):
        crg = res("azure:compute/capacityReservationGroup:CapacityReservationGroup", "ft-crg", {
            "name": "ft-crg", "location": "eastus", "resourceGroupName": "rg", "zones": ["1"],
            "tags": dict(AZ_TAGS)})
        cr = res("azure:compute/capacityReservation:CapacityReservation", "ft-cr", {
            "name": "ft-cr", "capacityReservationGroupId": "crg-id", "zone": "1",
            "sku": {"name": "Standard_NC8as_T4_v3", "capacity": 2.0}, "tags": dict(AZ_TAGS)},
            deps={"capacityReservationGroupId": [crg]})
        vmss = res("azure:compute/linuxVirtualMachineScaleSet:LinuxVirtualMachineScaleSet",
                   "ft-lvmss", {
                       "name": "ft-lvmss", "location": "eastus", "resourceGroupName": "rg",
                       "sku": "Standard_NC8as_T4_v3", "instances": 2.0, "zones": ["1"],
                       "adminUsername": "ml", "upgradeMode": "Manual",
                       **({"capacityReservationGroupId": "crg-id"} if join else {}),
                       "networkInterfaces": [{"name": "nic", "primary": True, "ipConfigurations": [
                           {"name": "ip", "primary": True, "subnetId": "subnet-id"}]}],
                       "osDisk": {"caching": "ReadWrite", "storageAccountType": "Premium_LRS"},
                       "sourceImageReference": {"publisher": "Canonical", "offer": "ubuntu-24_04-lts",
                                                "sku": "server", "version": "latest"},
                       "tags": dict(AZ_TAGS)},
                   deps={"capacityReservationGroupId": [crg]} if join else {})
        return [crg, cr, vmss]
    return _add(build)


def az_vm(join: bool = True):
    def build(s):
        p = {"vmName": "ft-vm1", "resourceGroupName": "rg", "location": "eastus", "zones": ["1"],
             "hardwareProfile": {"vmSize": "Standard_NC8as_T4_v3"},
             "networkProfile": {"networkInterfaces": [{"id": "nic-id", "primary": True}]},
             "tags": dict(AZ_TAGS)}
        deps = {}
        if join:
            p["capacityReservation"] = {"capacityReservationGroup": {"id": "crg-id"}}
            deps = {"capacityReservation": [named(s, "ft-crg")]}
        return res("azure-native:compute:VirtualMachine", "ft-vm1", p, deps=deps)
    return _add(build)


CR48 = (2 * GN7I * 96, 2 * GN7I * 97)     # 520.51 .. 525.93: 48 h reserved + 48 h pay-as-you-go
CR200 = (2 * GN7I * 200, 2 * GN7I * 201)  # 1,084.39 .. 1,089.81
SPOT96 = (2 * GN7I_SPOT * 96, 2 * GN7I_SPOT * 97)   # 162.46 .. 164.15


def ali_other(type_: str, name: str, props: dict):
    return _add(lambda s: res(type_, name, {**props, "tags": dict(TAGS)}, provider_region=ALI))


B1 = [
    # --- AWS On-Demand Capacity Reservations
    ("a01", "aws", {}, odcr(), {"_est": ONCE_A}, None,
     "an open ODCR of 2 g6e.4xlarge in us-west-2a (instanceMatchCriteria defaults to open) and the "
     "on-demand group of 2 in us-west-2a: counted once, 2 x 3.00424 x 730 = 4,386.19 < 6,000 "
     "(twice 8,772.38 would be over)"),
    ("a02", "aws", {}, odcr(endDateType="limited", endDate=iso_utc(48)), {"_est": ONCE_A}, None,
     "the ODCR ends in 48 h (endDateType limited: 'When a Capacity Reservation expires, the "
     "reserved capacity is released', EC2 API CreateCapacityReservation EndDate); the group of 2 "
     "has no stop and runs on after it, on demand: the truth is the nodes' month, 4,386.19 (the "
     "ODCR's 48 h are the same instance hours). The estimate must not fall below it"),
    ("a03", "aws", {"stop_h": 96}, odcr(endDateType="limited", endDate=iso_utc(48)),
     {"_est": (A96[0] - 2, ODCR2 + 2)}, None,
     "the ODCR ends in 48 h, the group stops at 96 h: truth 2 x 3.00424 x 96..97 = 576.81.. "
     "(48 h inside + 48 h on demand); the docs read no AWS endDate, so the ODCR's month 4,386.19 "
     "(counted once) is the most: either < 6,000"),
    ("a04", "aws", {}, _chain(
        odcr(instanceMatchCriteria="targeted"), cr_group(member=True),
        lt_set(TARGET, {"capacityReservationTarget": {
            "capacityReservationResourceGroupArn": CRG_ARN}}, "ft-crg")),
     {"_est": ONCE_A}, None,
     "a targeted ODCR placed in a capacity-reservation resource group, the launch template "
     "targeting that group (capacityReservationResourceGroupArn, pulumi_aws LaunchTemplate "
     "'ARN of the Capacity Reservation resource group in which to run the instance'): the nodes "
     "launch into the ODCR, counted once: 4,386.19 < 6,000"),
    ("a05", "aws", {}, _chain(
        odcr(instanceMatchCriteria="targeted"), cr_group(member=False),
        lt_set(TARGET, {"capacityReservationTarget": {
            "capacityReservationResourceGroupArn": CRG_ARN}}, "ft-crg")),
     {SPEND: "fail", "_est": TWICE_A}, None,
     "a04 with the ODCR never added to the group: the targeted ODCR takes no node (it is billed) "
     "and the nodes run on demand: 8,772.38 > 6,000"),
    ("a06", "aws", {}, _chain(odcr(), lt_set(TARGET, {"capacityReservationPreference": "open"})),
     {"_est": ONCE_A}, None,
     "the template's preference written out as open (the default): counted once"),
    ("a07", "aws", {}, native_odcr("open"), {"_est": ONCE_A}, None,
     "an aws-native:ec2:CapacityReservation (coverage table) open, 2 g6e.4xlarge us-west-2a, "
     "tags in its tagSpecifications as CloudFormation takes them: counted once: 4,386.19"),
    ("a08", "aws", {}, native_odcr("targeted"), {SPEND: "fail", "_est": TWICE_A}, None,
     "the aws-native ODCR targeted, nothing targets it: both priced, 8,772.38 > 6,000"),
    ("a09", "aws0", {}, _chain(
        odcr(count=1.0, instanceMatchCriteria="targeted"),
        ec2(capacityReservationSpecification={"capacityReservationTarget": {
            "capacityReservationId": "cr-x"}}),
        lambda s: _deps("ft-vm", TARGET, "ft-odcr")(s)),
     {"_est": rng(G6E * MONTH)}, None,
     "one g6e.4xlarge instance targeting a targeted ODCR of 1 by dependency (docs: 'its launch "
     "template's or instance's capacityReservationSpecification depends on the ODCR'): once, "
     "2,193.10 < 3,000 (twice 4,386.19 over)"),
    ("a10", "aws0", {}, _chain(
        odcr(count=1.0), ec2(capacityReservationSpecification={
            "capacityReservationPreference": "none"})),
     {SPEND: "fail", "_est": rng(2 * G6E * MONTH)}, None,
     "an open ODCR of 1, the instance's preference none: both priced, 4,386.19 > 3,000"),
    ("a11", "aws0", {}, _chain(odcr(count=1.0), ec2(tenancy="dedicated")), {SPEND: "fail"}, None,
     "an open ODCR of default tenancy, the instance's own tenancy dedicated (docs: 'an ODCR's "
     "tenancy ... against the instance's tenancy'): both priced, >= 4,386.19 > 3,000"),
    ("a12", "aws", {"itype": "p4d.24xlarge", "max_size": 1.0, "budget": "20000",
                    "mixed": {"onDemandBaseCapacity": 0.0,
                              "onDemandPercentageAboveBaseCapacity": 0.0,
                              "spotAllocationStrategy": "price-capacity-optimized"}},
     odcr(itype="p4d.24xlarge", count=1.0), {SPEND: "fail", "_est": rng(P4D * MONTH + P4D_SPOT * MONTH)},
     None,
     "an open ODCR of 1 p4d.24xlarge beside a group of 1 whose instancesDistribution makes every "
     "node spot ('spot nodes use neither'): 21.9576 x 730 = 16,029.05 + 9.7315 x 730 = 7,104.00 "
     "= 23,133.04 > 20,000"),
    ("a13", "aws", {"itype": "p4d.24xlarge", "max_size": 1.0, "budget": "20000",
                    "mixed": {"onDemandBaseCapacity": 0.0,
                              "onDemandPercentageAboveBaseCapacity": 100.0}},
     odcr(itype="p4d.24xlarge", count=1.0), {"_est": rng(P4D * MONTH)}, None,
     "a12 with every node on demand: inside the ODCR, counted once: 16,029.05 < 20,000"),
    ("a14", "aws", {"itype": "p5.48xlarge", "max_size": 1.0, "budget": "15000", "stop_h": 96},
     _chain(lt_set("instanceMarketOptions", dict(CB_LT)), lt_set(TARGET, dict(CB_TARGET))),
     {"_est": rng(12000)}, {SPEND: {"capacityBlockFeesUsd": {"ft-nodes": 12000}}},
     "a group of 1 p5.48xlarge launched into a Capacity Block, fee 12,000 configured, a stop at "
     "96 h: a block is 'paid up front' ('the whole fee in one month'), so the stop does not "
     "shrink it: 12,000 < 15,000"),
    ("a15", "aws0", {"budget": "15000"}, eks_block(), {"_est": rng(12000)},
     {SPEND: {"capacityBlockFeesUsd": {"ft-eks": 12000}}},
     "an EKS node group (capacityType CAPACITY_BLOCK) from a template of marketType "
     "capacity-block, its fee 12,000 under its name: priced at the fee, < 15,000"),
    ("a16", "aws0", {"budget": "15000"}, eks_block(),
     {SPEND: "fail", "_msg": {SPEND: ["capacityBlockFeesUsd"]}}, None,
     "a15 with no fee: 'without one is GPU capacity that cannot be estimated ... never the "
     "on-demand rate for a month'"),
    ("a17", "aws", {}, odcr(name="cpu-odcr", itype="m6i.large", count=4.0), {"_est": ONCE_A},
     None,
     "an open ODCR of 4 m6i.large (CPU; no catalog row: 'named and left out') beside the GPU "
     "group: the GPU nodes are not its type and stay priced, 4,386.19 < 6,000; a correct stack"),
    # --- GCP reservations
    ("g01", "gcp", {}, gres(), {"_est": rng(RES2)}, None,
     "a reservation of 2 g2-standard-8 in us-central1-a (specificReservationRequired defaults to "
     "false) and the MIG of 2 there (affinity left out: ANY_RESERVATION): once, "
     "2 x 0.853624 x 730 = 1,246.29 < 2,000 (twice 2,492.58 over)"),
    ("g02", "gcp", {}, gres(shareSettings={"shareType": "SPECIFIC_PROJECTS", "projectMaps": [
        {"id": "ml-eval", "projectId": "ml-eval"}]}), {"_est": rng(RES2)}, None,
     "g01 with the reservation shared with another project: the owner project still consumes "
     "it; once"),
    ("g03", "gcp", {}, gres(deleteAtTime=iso_utc(48)), {"_est": rng(RES2)}, None,
     "the reservation is deleted in 48 h (deleteAtTime, 'auto-deleted by Compute Engine'); the "
     "MIG runs on: the truth is the VMs' month 1,246.29, never less"),
    ("g04", "gcp", {}, gres(deleteAfterDuration={"seconds": "172800"}), {"_est": rng(RES2)}, None,
     "g03 with deleteAfterDuration 172,800 s (48 h): the same 1,246.29"),
    ("g05", "gcp0", {"budget": "2000"}, _chain(
        gres(), gke_pool({"consumeReservationType": "ANY_RESERVATION"})),
     {"_est": rng(RES2)}, None,
     "a GKE node pool of 2 g2-standard-8 in us-central1-a consuming ANY_RESERVATION beside the "
     "reservation of 2: the nodes are Compute Engine VMs of its machine type in its zone: once, "
     "1,246.29 < 2,000"),
    ("g06", "gcp0", {"budget": "2000"}, _chain(
        gres(required=True), gke_pool({
            "consumeReservationType": "SPECIFIC_RESERVATION",
            "key": "compute.googleapis.com/reservation-name", "values": ["ft-res"]})),
     {"_est": rng(RES2)}, None,
     "the pool names the reservation (SPECIFIC_RESERVATION, values [ft-res], its name input), "
     "specificReservationRequired true: once"),
    ("g07", "gcp0", {"budget": "2000"}, _chain(
        gres(), gke_pool({"consumeReservationType": "NO_RESERVATION"})),
     {SPEND: "fail", "_est": rng(2 * RES2)}, None,
     "the pool's NO_RESERVATION: both priced, 2,492.58 > 2,000"),
    ("g08", "gcp", {"mtype": "n1-standard-8", "budget": "1500", "tpl_extra": {
        "guestAccelerators": [{"type": "nvidia-tesla-t4", "count": 1.0}]}},
     gres(mtype="n1-standard-8", gpus=[{"acceleratorType": "nvidia-tesla-t4",
                                        "acceleratorCount": 1.0}]),
     {"_est": rng(N1T4)}, None,
     "a reservation of 2 n1-standard-8 + 1 T4 and a MIG of 2 such VMs: once, 2 x (0.38 + 0.35) x "
     "730 = 1,065.80 < 1,500 (twice 2,131.60 over)"),
    ("g09", "gcp", {"mtype": "n1-standard-8", "budget": "1000", "tpl_extra": {
        "guestAccelerators": [{"type": "nvidia-tesla-t4", "count": 1.0}]}},
     gres(mtype="n1-standard-8"),
     {SPEND: "fail", "_est": (N1T4 - 2, N1T4 + N1CPU + 2)}, None,
     "a reservation of 2 n1-standard-8 WITHOUT GPUs beside VMs with a T4: a VM consumes a "
     "reservation only if its properties match, GPUs included, so the VMs are all priced: "
     "1,065.80 (+ the CPU reservation 554.80 where priced) > 1,000"),
    ("g10", "gcp0", {"budget": "3000"}, _chain(
        gres(mtype="a2-highgpu-1g", count=1.0),
        gvm(scheduling={"maxRunDuration": {"seconds": 345600.0},
                        "instanceTerminationAction": "DELETE"})),
     {"_est": rng(A2M)}, None,
     "one a2-highgpu-1g VM (96 h maxRunDuration) inside a reservation of 1: the reservation "
     "bills the month, the VM inside it: 3.67339 x 730 = 2,681.57 < 3,000"),
    ("g11", "gcp0", {"budget": "2750"}, _chain(
        gres(mtype="a2-highgpu-1g", count=1.0),
        gvm(scheduling={"provisioningModel": "SPOT", "maxRunDuration": {"seconds": 345600.0},
                        "instanceTerminationAction": "DELETE"})),
     {SPEND: "fail", "_est": rng(A2M + A2_SPOT * 96, A2M + A2_SPOT * 97)}, None,
     "g10 with a Spot VM ('spot nodes use neither'): 2,681.57 + 1.29336 x 96..97 = 2,805.7 > "
     "2,750"),
    # --- Azure capacity reservation groups
    ("z01", "azure0", {}, _chain(az_crg(), aks(join=True)), {"_est": rng(AZ2)}, None,
     "an AKS user pool of 2 Standard_NC8as_T4_v3 in zone 1 associated with the capacity "
     "reservation group holding 2 of that size in zone 1: the pool's VMs use the reservation: "
     "once, 2 x 0.752 x 730 = 1,097.92 < 1,500 (twice 2,195.84 over)"),
    ("z02", "azure0", {}, _chain(az_crg(), aks(join=False)),
     {SPEND: "fail", "_est": rng(2 * AZ2)}, None,
     "z01 without capacityReservationGroupID: both priced, 2,195.84 > 1,500"),
    ("z03", "azure0", {}, classic_crg(join=True), {"_est": rng(AZ2)}, None,
     "classic azure: a CapacityReservation of 2 NC8as_T4_v3 (zone 1) in its group and a "
     "LinuxVirtualMachineScaleSet of 2 there with capacityReservationGroupId on the group: once"),
    ("z04", "azure0", {}, classic_crg(join=False), {SPEND: "fail", "_est": rng(2 * AZ2)}, None,
     "z03 with the scale set outside the group: both priced"),
    ("z05", "azure0", {"budget": 800.0}, _chain(az_crg(capacity=1.0), az_vm(join=True)),
     {"_est": rng(NC8 * MONTH)}, None,
     "one azure-native VM in the group (capacityReservation depends on it), a reservation of 1: "
     "once, 548.96 < 800 (twice 1,097.92 over)"),
    ("z06", "azure0", {"budget": 800.0}, _chain(az_crg(capacity=1.0), az_vm(join=False)),
     {SPEND: "fail", "_est": rng(2 * NC8 * MONTH)}, None,
     "z05 with the VM outside the group: 1,097.92 > 800"),
    ("z07", "azure0", {}, _chain(az_crg(), aks(join=True, inline=True)), {"_est": rng(AZ2)},
     None, "z01 with the GPU pool inline in the cluster's agentPoolProfiles: once"),
    # --- Alibaba Cloud
    ("k01", "ali", {}, ali_other("alicloud:ecs/elasticityAssurance:ElasticityAssurance", "ft-ea", {
        "instanceType": "ecs.gn7i-c16g1.4xlarge", "instanceAmount": 2.0,
        "zoneIds": ["eu-central-1a"], "period": 1.0, "periodUnit": "Month",
        "privatePoolOptionsMatchCriteria": "Open"}),
     {SPEND: "fail", "_msg": {SPEND: ["ft-ea"]}}, cap(5000),
     "an elasticity assurance for 2 gn7i (a paid reservation the catalog cannot price) beside "
     "the nodes: 'any other resource that carries a GPU sign ... in a type field' is GPU capacity "
     "it cannot estimate: fails closed, naming it"),
    ("k02", "ali", {}, ali_other("alicloud:ecs/reservedInstance:ReservedInstance", "ft-ri", {
        "instanceType": "ecs.gn7i-c16g1.4xlarge", "instanceAmount": 2.0, "period": 1.0,
        "periodUnit": "Year", "offeringType": "All Upfront", "zoneId": "eu-central-1a",
        "scope": "Zone", "platform": "Linux"}),
     {SPEND: "fail", "_msg": {SPEND: ["ft-ri"]}}, cap(5000),
     "a reserved instance of gn7i (All Upfront): a GPU type in a type field, fails closed"),
    ("k03", "ali", {}, _chain(ali_cr(end_h=48), ali_nodes("privatePoolOptionsMatchCriteria",
                                                          "Open")),
     {SPEND: "fail", "_est": rng(*CR48)}, cap(400),
     "an open reservation of 2 gn7i ending in 48 h, the Open nodes released at 96 h: 48 h inside "
     "it + 48 h pay-as-you-go = 2 x 2.71098 x 96..97 = 520.51..525.93 > 400 (pricing the nodes "
     "as inside it for its 48 h only would give 260.25)"),
    ("k04", "ali", {}, _chain(ali_cr(end_h=200), ali_nodes("privatePoolOptionsMatchCriteria",
                                                           "Open")),
     {"_est": rng(*CR200)}, cap(1200),
     "the reservation to 200 h, the nodes inside it until 96 h: once, 2 x 2.71098 x 200..201 = "
     "1,084.39 < 1,200"),
    ("k05", "ali0", {}, _add(lambda s: res("alicloud:ecs/ecsInstanceSet:EcsInstanceSet", "ft-set", {
        "amount": 2.0, "instanceType": "ecs.gn7i-c16g1.4xlarge", "imageId": "ubuntu_22_04_x64",
        "vswitchId": "vsw-id", "securityGroupIds": ["sg-1"], "instanceChargeType": "PrePaid",
        "period": 1.0, "periodUnit": "Month", "autoReleaseTime": iso_utc(96),
        "internetMaxBandwidthOut": 0.0, "tags": dict(TAGS)},
        deps={"vswitchId": [named(s, "ft-vsw")]}, provider_region=ALI)),
     {SPEND: "fail"}, cap(5000),
     "an EcsInstanceSet of 2 subscription (PrePaid) nodes with an autoReleaseTime: 'on a "
     "subscription node it is no lifetime and no stand-in for the budget alarm'"),
    ("k06", "ali", {"spotStrategy": "SpotAsPriceGo"}, None, {"_est": rng(*SPOT96)}, cap(1000),
     "the two nodes as spot (SpotAsPriceGo), released at 96 h: 2 x 0.846144 x 96..97 = "
     "162.46..164.15 < 1,000"),
    ("k07", "ali", {"spotStrategy": "SpotAsPriceGo"}, _chain(
        ali_cr(end_h=200), ali_nodes("privatePoolOptionsMatchCriteria", "Open")),
     {SPEND: "fail", "_est": rng(CR200[0] + SPOT96[0], CR200[1] + SPOT96[1])}, cap(1200),
     "an open reservation to 200 h beside spot nodes ('spot nodes use neither'): 1,084.39 + "
     "162.46 = 1,246.85 > 1,200"),
]


@pytest.mark.parametrize("case", _params(B1))
def test_batch1(pack, case):
    _run_case(pack, case)


# ------------------------------------------------------------------------------------ batch 2
# Lifetimes and stops that do not stop (docs, spend-limit "Lifetimes"). Budgets sit between the
# stopped estimate and the month: AWS 1,000 (96 h 576.81..582.82; the month 4,386.19), GCP VM
# 1,000 (a2-highgpu-1g 96 h 352.65..356.32; the month 2,681.57), Azure 500 (96 h 144.38..145.89;
# the month 1,097.92), Alibaba maxMonthlyUsd 1,000 (96 h 520.51..525.93; the month 3,958.03).
A96R = rng(*A96)
V96 = rng(A2 * 96, A2 * 97)
Z96 = rng(2 * NC8 * 96, 2 * NC8 * 97)
K96 = rng(2 * GN7I * 96, 2 * GN7I * 97)
ASG = "arn:aws:autoscaling:us-west-2:1:autoScalingGroup:x:autoScalingGroupName/ft-nodes"


def scaling_policy():
    return _add(lambda s: res("aws:autoscaling/policy:Policy", "ft-cpu", {
        "autoscalingGroupName": "ft-nodes", "policyType": "TargetTrackingScaling",
        "targetTrackingConfiguration": {"targetValue": 60.0, "predefinedMetricSpecification": {
            "predefinedMetricType": "ASGAverageCPUUtilization"}}},
        deps={"autoscalingGroupName": [named(s, "ft-nodes")]}))


def resize_req(name: str, by: float = 1.0, seconds: Optional[str] = "345600"):
    return _add(lambda s: res("gcp:compute/resizeRequest:ResizeRequest", name, {
        "instanceGroupManager": "ft-mig", "zone": "us-central1-a", "resizeBy": by, "name": name,
        **({"requestedRunDuration": {"seconds": seconds}} if seconds else {})},
        deps={"instanceGroupManager": [named(s, "ft-mig")]}))


VMSS_ID = "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachineScaleSets/ft-vmss"
STOP_STD = {"maxRunDuration": {"seconds": 345600.0}, "instanceTerminationAction": "DELETE"}

B2 = [
    # --- AWS Auto Scaling scheduled actions
    ("l01", "aws", {"budget": "1000", "stop_h": 96}, None, {"_est": A96R}, None,
     "a Schedule on ft-nodes (dependency) setting min / max / desired 0 at now+96 h: 2 x 3.00424 "
     "x 96..97 = 576.81..582.82 < 1,000"),
    ("l02", "aws", {"budget": "1000"}, aws_sched("ft-stop", 96, maxSize=-1.0),
     {"_est": A96R}, None,
     "the stop as desired 0, min 0 and maxSize -1 (docs: the classic provider 'leaves the "
     "group's own only for -1'; 'maxSize 0, or desired and min 0' stops): no scaling policy, so "
     "it holds: 96 h"),
    ("l03", "aws", {"budget": "1000"}, _chain(aws_sched("ft-stop", 96, maxSize=-1.0),
                                              scaling_policy()),
     {SPEND: "fail"}, None,
     "l02 beside a target-tracking policy ('Beside a scaling policy ... desired 0 under a larger "
     "maximum is a pause'): the month, 4,386.19 > 1,000"),
    ("l04", "aws", {"budget": "1000", "stop_h": 96}, aws_sched("ft-up", 120, size=2.0),
     {SPEND: "fail"}, None,
     "the stop at 96 h and a one-time Schedule raising the group to 2 at 120 h (a one-time start "
     "'voids only a stop it does not run strictly before'): a pause, the month"),
    ("l05", "aws", {"budget": "1000", "stop_h": 96}, aws_sched("ft-up", 10, size=2.0),
     {"_est": A96R}, None,
     "the raise at 10 h, before the stop ('a one-time start before the stop changes nothing'): "
     "96 h"),
    ("l06", "aws", {"budget": "1000", "stop_h": 96},
     aws_sched("ft-up", None, size=2.0, recurrence="0 8 * * 1-5"), {SPEND: "fail"}, None,
     "a recurring weekday raise to 2 ('A start that recurs ... may run after any stop'): the "
     "month"),
    ("l07", "aws", {"budget": "1000", "stop_h": 96},
     aws_sched("ft-up", None, size=2.0, recurrence="0 * * * *", endTime=iso_utc(48)),
     {"_est": A96R}, None,
     "an hourly raise whose endTime is 48 h away ('until its endTime ... after which it runs no "
     "more'), the stop at 96 h: 96 h"),
    ("l08", "aws", {"budget": "1000"}, aws_sched("ft-stop", None, recurrence=cron_daily(10)),
     {"_est": rng(2 * G6E * 10, 2 * G6E * 11)}, None,
     "a recurring daily stop at the wall time now+10 h (UTC, the default timeZone): its first run "
     "in 10 h and a minute: 11 whole hours, 2 x 3.00424 x 10..11 = 60.08..66.09"),
    ("l09", "aws", {"budget": "1000"}, aws_sched(
        "ft-stop", None, recurrence=cron_daily(10, "America/New_York"),
        timeZone="America/New_York"),
     {"_est": rng(2 * G6E * 10, 2 * G6E * 11)}, None,
     "l08 with the cron in America/New_York: the same instant, 10..11 h"),
    ("l10", "aws", {"budget": "1000"}, aws_sched(
        "ft-stop", None, recurrence=cron_daily(10, "Asia/Kolkata"), timeZone="Asia/Kolkata"),
     {"_est": rng(2 * G6E * 10, 2 * G6E * 11)}, None,
     "l08 in Asia/Kolkata (UTC+05:30, a half-hour offset): 10..11 h"),
    ("l11", "aws", {"budget": "1000"}, aws_sched("ft-stop", 96, dep=False), {"_est": A96R}, None,
     "the stop naming the group by the literal 'ft-nodes', its own name input, no dependency "
     "(docs: 'or a literal equal to the group's own name input'): 96 h"),
    ("l12", "aws", {"budget": "1000", "stop_h": 96}, scaling_policy(), {"_est": A96R}, None,
     "the stop sets maxSize 0 beside a scaling policy ('only a stop that sets the maximum to 0 "
     "holds the group at 0'): 96 h"),
    # --- GCP single VM a2-highgpu-1g (gcp0 budget 1,000)
    ("m01", "gcp0", {}, gvm(scheduling=dict(STOP_STD)), {"_est": V96}, None,
     "maxRunDuration 345,600 s (96 h), DELETE: 3.67339 x 96..97 = 352.65..356.32 < 1,000"),
    ("m02", "gcp0", {}, gvm(scheduling={"terminationTime": iso_off(96, -7),
                                        "instanceTerminationAction": "DELETE"}),
     {"_est": V96}, None,
     "terminationTime now+96 h written with a -07:00 offset (RFC 3339, as the API takes it): "
     "96 h (read as UTC wall time it would be 103 h)"),
    ("m03", "gcp0", {}, gvm(scheduling={"terminationTime": iso_off(96, 9),
                                        "instanceTerminationAction": "DELETE"}),
     {"_est": V96}, None,
     "terminationTime with a +09:00 offset: 96 h (read as UTC wall time it would be 105 h away, "
     "or 87 h for the -07:00 case's mirror)"),
    ("m04", "gcp0", {}, gvm(scheduling={"terminationTime": iso_off(96, 0, frac=True),
                                        "instanceTerminationAction": "DELETE"}),
     {"_est": V96}, None, "terminationTime with milliseconds and +00:00: 96 h"),
    ("m05", "gcp0", {}, gvm(scheduling={"maxRunDuration": {"seconds": 345600.0},
                                        "instanceTerminationAction": "STOP"}),
     {"_est": V96}, None,
     "maxRunDuration with STOP and no start schedule: a stopped VM's GPU does not bill and "
     "nothing starts it: 96 h"),
    ("m06", "gcp0", {}, _chain(
        sched_pol("ft-start", start="0 8 * * *"),
        gvm(scheduling={"maxRunDuration": {"seconds": 345600.0},
                        "instanceTerminationAction": "STOP"}, policies=["ft-start"])),
     {SPEND: "fail"}, None,
     "m05 with an instance schedule that only starts the VM daily ('a vmStartSchedule in any "
     "instance schedule attached to the VM ... makes ... maxRunDuration stop (STOP) a pause'): "
     "the month 2,681.57 > 1,000"),
    ("m07", "gcp0", {}, _chain(sched_pol("ft-sched", stop=cron_daily(10)),
                               gvm(policies=["ft-sched"])),
     {"_est": rng(A2 * 10, A2 * 11)}, None,
     "an instance schedule with only a daily vmStopSchedule at now+10 h (UTC): stopped in 10 h "
     "and a minute: 3.67339 x 10..11 = 36.73..40.41"),
    ("m08", "gcp0", {}, _chain(
        sched_pol("ft-sched", stop=cron_daily(10), expirationTime=iso_utc(2)),
        gvm(policies=["ft-sched"])),
     {SPEND: "fail"}, None,
     "m07 whose expirationTime is 2 h away, before the first stop ('not after expirationTime'): "
     "no stop, the month"),
    ("m09", "gcp0", {}, _chain(
        sched_pol("ft-sched", stop=cron_daily(10), startTime=iso_utc(48)),
        gvm(policies=["ft-sched"])),
     {"_est": rng(A2 * 58, A2 * 59)}, None,
     "m07 whose startTime is 48 h away ('not before startTime'): the daily stop's times are "
     "+10, +34, +58 h: the first not before +48 h is +58 h: 3.67339 x 58..59 = 213.06..216.73"),
    ("m10", "gcp0", {}, gvm(scheduling={"provisioningModel": "SPOT", **STOP_STD}),
     {"_est": rng(A2_SPOT * 96, A2_SPOT * 97)}, None,
     "a Spot VM with a 96 h maxRunDuration: 1.29336 x 96..97 = 124.16..125.46"),
    ("m11", "gcp", {"mtype": "a2-highgpu-1g", "target": 0.0, "budget": "1000"},
     _chain(resize_req("rr-1"), resize_req("rr-2", seconds=None)), {SPEND: "fail"}, None,
     "a flex-start MIG (target 0) with two resize requests of 1, only one with a "
     "requestedRunDuration (docs: 'whose VMs ALL come from ResizeRequests that set "
     "requestedRunDuration'): the month, 2 x 2,681.57 > 1,000"),
    ("m12", "gcp", {"mtype": "a2-highgpu-1g", "target": 0.0, "budget": "1000"},
     _chain(resize_req("rr-1"), resize_req("rr-2")),
     {"_est": rng(2 * A2 * 96, 2 * A2 * 97)}, None,
     "both requests with 96 h: 2 x 3.67339 x 96..97 = 705.29..712.64 < 1,000"),
    ("m13", "gcp", {"mtype": "a2-highgpu-1g", "target": 1.0, "budget": "1000"},
     resize_req("rr-1"), {SPEND: "fail"}, None,
     "a MIG of target 1 (not flex-start) plus a 96 h request of 1: the target VM runs the month, "
     "2,681.57 (+ the request) > 1,000"),
    # --- Azure autoscale (az1 budget 500)
    ("n01", "azure", {"budget": 500.0}, az_autoscale(profiles=[zero_profile(96)]),
     {"_est": Z96}, None,
     "an enabled fixed-date profile of capacity 0 from now+96 h to 2037 on the set: 2 x 0.752 x "
     "96..97 = 144.38..145.89 < 500"),
    ("n02", "azure", {"budget": 500.0}, az_autoscale(profiles=[zero_profile(96)], target=VMSS_ID),
     {"_est": Z96}, None,
     "n01 naming the set by a literal ARM id of its explicit vmScaleSetName in the provider's "
     "subscription (docs): 96 h"),
    ("n03", "azure", {"budget": 500.0}, az_autoscale(
        profiles=[zero_profile(96)],
        target="/subscriptions/s/resourcegroups/RG/providers/microsoft.compute/"
               "virtualmachinescalesets/FT-VMSS"),
     {"_est": Z96}, None,
     "n02's id in other letter cases: Azure resource ids are case-insensitive (the docs compare "
     "resource groups case-insensitively too): the same set, 96 h"),
    ("n04", "azure", {"budget": 500.0}, az_autoscale(
        profiles=[zero_profile(96)], target=VMSS_ID.replace("/subscriptions/s/",
                                                            "/subscriptions/other/")),
     {SPEND: "fail"}, None,
     "the literal id in another subscription names another set ('in the provider's "
     "subscription'): no stop, the month 1,097.92 > 500"),
    ("n05", "azure", {"budget": 500.0}, az_autoscale(profiles=[
        zero_profile(96, end=iso_utc(120)), RUN2]), {SPEND: "fail"}, None,
     "the zero window ends at 120 h and a default profile of 2 applies again ('a pause, not a "
     "lifetime'): the month"),
    ("n06", "azure", {"budget": 500.0}, az_autoscale(profiles=[
        zero_profile(96, end=iso_utc(120)),
        {"name": "idle", "capacity": {"minimum": "0", "maximum": "0", "default": "0"},
         "rules": []}]), {}, None,
     "the zero window ends at 120 h but the only other profile is also 0 ('only zero profiles'): "
     "it stops the set (at most 96 h) < 500"),
    ("n07", "azure", {"budget": 500.0}, _chain(az_crg(), az_join_vmss(),
                                               az_autoscale(profiles=[zero_profile(96)])),
     {SPEND: "fail", "_est": rng(AZ2)}, None,
     "n01 with the set in a capacity reservation group of 2: the reservation bills 'whether used "
     "or not', the month 1,097.92 > 500 (the stop ends the VMs, not the reservation)"),
    ("n08", "azure", {"budget": 500.0}, az_autoscale(profiles=[zero_profile(96)], enabled=False),
     {SPEND: "fail"}, None, "n01 disabled: stops nothing, the month"),
    # --- Alibaba autoReleaseTime (maxMonthlyUsd 1,000)
    ("p01", "ali", {"release": iso_off(96, 8)}, None, {"_est": K96}, cap(1000),
     "autoReleaseTime now+96 h written with +08:00 (an ISO-8601 time): 2 x 2.71098 x 96..97 = "
     "520.51..525.93 < 1,000"),
    ("p02", "ali", {"release": iso_off(96, -10)}, None, {"_est": K96}, cap(1000),
     "the same instant written with -10:00: 96 h (as UTC wall time it would read 86 h, below)"),
    ("p03", "ali", {"release": iso_off(96, 0, frac=True)}, None, {"_est": K96}, cap(1000),
     "with milliseconds and +00:00: 96 h"),
    ("p04", "ali", {"release": "1798761600"}, None, {SPEND: "fail"}, cap(1000),
     "a Unix epoch as text: not an ISO-8601 time, 'releases nothing ... a violation naming the "
     "value'"),
    ("p05", "ali", {"release": "2027-02-30T00:00:00Z"}, None, {SPEND: "fail"}, cap(1000),
     "30 February: no such date, no time: no stand-in, a violation"),
    ("p06", "ali", {"release": "1000h"}, None, {SPEND: "fail"}, cap(1000),
     "released at 1,000 h, past the month: the stand-in for the alarm holds, the month is priced, "
     "3,958.03 > 1,000"),
    ("p07", "ali", {"release": "1000h"}, None, {"_est": rng(2 * GN7I * MONTH)}, cap(5000),
     "p06 under a cap of 5,000: 3,958.03, a correct stack"),
    ("p08", "ali", {"charge": None}, None, {"_est": K96}, cap(1000),
     "instanceChargeType left out (PostPaid by default): released at 96 h"),
    ("p09", "ali0", {}, _add(lambda s: res("alicloud:ecs/ecsInstanceSet:EcsInstanceSet", "ft-set", {
        "amount": 2.0, "instanceType": "ecs.gn7i-c16g1.4xlarge", "imageId": "ubuntu_22_04_x64",
        "vswitchId": "vsw-id", "securityGroupIds": ["sg-1"], "instanceChargeType": "PostPaid",
        "autoReleaseTime": iso_utc(96), "internetMaxBandwidthOut": 0.0, "tags": dict(TAGS)},
        deps={"vswitchId": [named(s, "ft-vsw")]}, provider_region=ALI)),
     {"_est": K96}, cap(1000),
     "an EcsInstanceSet of 2 pay-as-you-go nodes released at 96 h: 520.51..525.93"),
]


@pytest.mark.parametrize("case", _params(B2))
def test_batch2(pack, case):
    _run_case(pack, case)


# ------------------------------------------------------------------------------------ batch 3
# More consumers, spot beside reservations, a one-zone regional MIG, aws-native scheduled
# actions on a classic group, and a bought Capacity Block an EKS node group launches into.
def eks_ng(name: str = "ft-eks", itype: str = "g6e.4xlarge", cap_type: str = "ON_DEMAND",
           max_size: float = 2.0):
    return _add(lambda s: res("aws:eks/nodeGroup:NodeGroup", name, {
        "clusterName": "ml", "nodeRoleArn": "arn:aws:iam::111122223333:role/node",
        "subnetIds": ["subnet-x"], "capacityType": cap_type, "instanceTypes": [itype],
        "scalingConfig": {"desiredSize": 1.0, "maxSize": max_size, "minSize": 0.0},
        "tags": dict(TAGS)}, deps={"subnetIds": [named(s, "ft-a")]}))


def bought_block_eks():
    def build(s):
        blk = res("aws:ec2/capacityBlockReservation:CapacityBlockReservation", "ft-block", {
            "capacityBlockOfferingId": "cb-0123456789abcdef0", "instancePlatform": "Linux/UNIX",
            "tags": dict(TAGS)})
        lt = res("aws:ec2/launchTemplate:LaunchTemplate", "ft-cb-lt", {
            "instanceType": "p5.48xlarge", "instanceMarketOptions": dict(CB_LT),
            "capacityReservationSpecification": {"capacityReservationTarget": {
                "capacityReservationId": "cr-x"}},
            "tagSpecifications": [{"resourceType": "instance", "tags": dict(TAGS)}],
            "tags": dict(TAGS)}, deps={"capacityReservationSpecification": [blk]})
        ng = res("aws:eks/nodeGroup:NodeGroup", "ft-eks", {
            "clusterName": "ml", "nodeRoleArn": "arn:aws:iam::111122223333:role/node",
            "subnetIds": ["subnet-x"], "capacityType": "CAPACITY_BLOCK",
            "scalingConfig": {"desiredSize": 1.0, "maxSize": 1.0, "minSize": 0.0},
            "launchTemplate": {"id": "lt-cb", "version": "1"}, "tags": dict(TAGS)},
            deps={"subnetIds": [named(s, "ft-a")], "launchTemplate": [lt]})
        return [blk, lt, ng]
    return _add(build)


def native_sched(name: str = "ft-stop", hours: float = 96, **sizes):
    return _add(lambda s: res("aws-native:autoscaling:ScheduledAction", name, {
        "autoScalingGroupName": "ft-nodes", "startTime": iso_utc(hours), **sizes},
        deps={"autoScalingGroupName": [named(s, "ft-nodes")]}))


def regional_mig(zones: list):
    def mutate(s):
        s = [r for r in s if r.name != "ft-mig"]
        return s + [res("gcp:compute/regionInstanceGroupManager:RegionInstanceGroupManager",
                        "ft-mig", {"name": "ft-mig", "region": "us-central1", "targetSize": 2.0,
                                   "baseInstanceName": "ft", "distributionPolicyZones": zones,
                                   "versions": [{"instanceTemplate": "tpl-id"}]},
                        deps={"versions": [named(s, "ft-tpl")]})]
    return mutate


GN7I_32 = 3.01127     # alibaba ecs.gn7i-c32g1.8xlarge eu-central-1 (eu-central-1a)

B3 = [
    ("b01", "aws0", {"budget": "6000"}, _chain(odcr(), eks_ng()), {"_est": ONCE_A}, None,
     "an EKS managed node group of max 2 on-demand g6e.4xlarge in us-west-2a beside an open ODCR "
     "of 2 there: its instances are On-Demand EC2 instances of the ODCR's type in its zone with "
     "the default open preference: once, 4,386.19 < 6,000"),
    ("b02", "aws0", {"budget": "20000"}, _chain(
        odcr(itype="p4d.24xlarge", count=1.0),
        eks_ng(itype="p4d.24xlarge", cap_type="SPOT", max_size=1.0)),
     {SPEND: "fail"}, None,
     "an EKS SPOT node group of 1 p4d.24xlarge beside an open ODCR of 1: spot uses no ODCR: "
     "16,029.05 + 9.7315 x 730 = 23,133.04 > 20,000"),
    ("b03", "aws0", {"budget": "15000"}, bought_block_eks(), {"_est": rng(12000)},
     {SPEND: {"capacityBlockFeesUsd": {"ft-eks": 12000}}},
     "a Capacity Block the stack buys, an EKS CAPACITY_BLOCK node group whose template targets "
     "it by dependency, the fee under the group's name: 'one a group launches into is priced "
     "with that group, once': 12,000 < 15,000"),
    ("b04", "aws", {"budget": "1000"}, native_sched(minSize=0, maxSize=0, desiredCapacity=0),
     {"_est": A96R}, None,
     "an aws-native ScheduledAction on the classic group (autoScalingGroupName dependency) "
     "setting 0 / 0 / 0 at 96 h: 96 h"),
    ("b05", "aws", {"budget": "1000"}, native_sched(desiredCapacity=0), {"_est": A96R}, None,
     "an aws-native action setting only desired 0; the group's own minimum is 0 ('aws-native "
     "leaves every omitted size as the group has it'): desired and min 0, a stop: 96 h"),
    ("b06", "aws", {"budget": "1000"}, _chain(_set("ft-nodes", "minSize", 1.0),
                                              native_sched(desiredCapacity=0)),
     {SPEND: "fail"}, None,
     "b05 with the group's minimum 1: 'desired 0 under a group minimum above 0 is refused by AWS "
     "and stops nothing': the month"),
    ("g12", "gcp", {}, _chain(gres(), regional_mig(["us-central1-a"])), {"_est": rng(RES2)}, None,
     "a regional MIG of 2 whose distributionPolicyZones is only us-central1-a, the reservation "
     "of 2 in us-central1-a: every VM is in the reservation's zone: once, 1,246.29 < 2,000"),
    ("g13", "gcp", {}, _chain(gres(), regional_mig(["us-central1-a", "us-central1-b"])),
     {SPEND: "fail"}, None,
     "the regional MIG spread over two zones may place VMs outside the reservation's zone "
     "(review64: 'a reservation a ... regional MIG may miss: both priced'): 2,492.58 > 2,000"),
    ("g14", "gcp0", {"budget": "3000"}, _chain(
        gres(), _add(lambda s: res("gcp:container/nodePool:NodePool", "ft-pool", {
            "cluster": "ml-gke", "location": "us-central1-a", "initialNodeCount": 1.0,
            "autoscaling": {"minNodeCount": 0.0, "maxNodeCount": 4.0},
            "nodeConfig": {"machineType": "g2-standard-8", "resourceLabels": dict(LABELS),
                           AFF: {"consumeReservationType": "ANY_RESERVATION"}}}))),
     {"_est": rng(2 * RES2)}, None,
     "a GKE pool of at most 4 beside a reservation of 2: 2 inside, 2 beyond: 1,246.29 + "
     "1,246.29 = 2,492.58 < 3,000"),
    ("g15", "gcp0", {"budget": "2000"}, _chain(
        gres(), gvm(mtype="g2-standard-8", reservationAffinity={
            "type": "SPECIFIC_RESERVATION", "specificReservation": {
                "key": "compute.googleapis.com/reservation-name", "values": ["ft-res"]}}),
        gvm(name="ft-vm2", mtype="g2-standard-8")),
     {"_est": rng(RES2)}, None,
     "two g2-standard-8 VMs, one naming the reservation of 2 (not required), one by default "
     "ANY: both inside, once, 1,246.29 < 2,000"),
    ("z08", "azure0", {"budget": 2500.0}, _chain(az_crg(), aks(join=True),
                                                 _set("ft-gpu", "enableAutoScaling", True),
                                                 _set("ft-gpu", "maxCount", 4.0),
                                                 _set("ft-gpu", "minCount", 0.0)),
     {"_est": rng(2 * AZ2)}, None,
     "the AKS pool in the group autoscaling to 4, a reservation of 2: 2 inside, 2 beyond: "
     "1,097.92 + 1,097.92 = 2,195.84 < 2,500"),
    ("k08", "ali", {}, _chain(ali_cr(end_h=200), ali_nodes("privatePoolOptionsMatchCriteria",
                                                           "Open"),
                              ali_nodes("instanceType", "ecs.gn7i-c32g1.8xlarge")),
     {SPEND: "fail"}, cap(1200),
     "an open reservation of gn7i-c16g1.4xlarge beside Open nodes of gn7i-c32g1.8xlarge ('of its "
     "type'): both priced: 1,084.39 + 2 x 3.01127 x 96 = 578.16 -> 1,662.55 > 1,200"),
    ("k09", "ali", {}, _chain(ali_cr(end_h=200, match="Target"),
                              ali_nodes("privatePoolOptionsMatchCriteria", "None")),
     {SPEND: "fail"}, cap(1200),
     "a Target reservation and nodes whose match criteria is None: both priced, 1,084.39 + "
     "520.51 = 1,604.90 > 1,200"),
]


@pytest.mark.parametrize("case", _params(B3))
def test_batch3(pack, case):
    _run_case(pack, case)


# ------------------------------------------------------------------------------------ probes
# Written after the first run of batch 1 to map the reach of its defects; counted apart.
def classic_crg_only():
    def build(_s):
        crg = res("azure:compute/capacityReservationGroup:CapacityReservationGroup", "ft-crg", {
            "name": "ft-crg", "location": "eastus", "resourceGroupName": "rg", "zones": ["1"],
            "tags": dict(AZ_TAGS)})
        cr = res("azure:compute/capacityReservation:CapacityReservation", "ft-cr", {
            "name": "ft-cr", "capacityReservationGroupId": "crg-id", "zone": "1",
            "sku": {"name": "Standard_NC8as_T4_v3", "capacity": 2.0}, "tags": dict(AZ_TAGS)},
            deps={"capacityReservationGroupId": [crg]})
        return [crg, cr]
    return _add(build)


def classic_aks(inline: bool):
    def build(s):
        crg = named(s, "ft-crg")
        gpu = {"vmSize": "Standard_NC8as_T4_v3", "nodeCount": 2.0, "zones": ["1"],
               "capacityReservationGroupId": "crg-id"}
        system = {"name": "system", "vmSize": "Standard_D4s_v5", "nodeCount": 1.0}
        cl = res("azure:containerservice/kubernetesCluster:KubernetesCluster", "ft-aks", {
            "name": "ft-aks", "location": "eastus", "resourceGroupName": "rg", "dnsPrefix": "ft",
            "identity": {"type": "SystemAssigned"},
            "defaultNodePool": {"name": "gpu", **gpu} if inline else system,
            "tags": dict(AZ_TAGS)}, deps={"defaultNodePool": [crg]} if inline else {})
        if inline:
            return [cl]
        return [cl, res("azure:containerservice/kubernetesClusterNodePool:KubernetesClusterNodePool",
                        "ft-gpu", {"name": "gpu", "kubernetesClusterId": "aks-id", **gpu,
                                   "tags": dict(AZ_TAGS)},
                        deps={"kubernetesClusterId": [cl], "capacityReservationGroupId": [crg]})]
    return _add(build)


PROBES = [
    ("q01", "aws0", {}, _chain(
        odcr(count=1.0, instanceMatchCriteria="targeted"), cr_group(member=True),
        ec2(capacityReservationSpecification={"capacityReservationTarget": {
            "capacityReservationResourceGroupArn": CRG_ARN}}),
        lambda s: _deps("ft-vm", TARGET, "ft-crg")(s)),
     {"_est": rng(G6E * MONTH)}, None,
     "DEFECT 1's reach: one instance targeting the resource group that holds a targeted ODCR of "
     "1: once, 2,193.10 < 3,000"),
    ("q02", "aws", {}, _chain(
        odcr(), cr_group(member=True),
        lt_set(TARGET, {"capacityReservationTarget": {
            "capacityReservationResourceGroupArn": CRG_ARN}}, "ft-crg")),
     {"_est": ONCE_A}, None,
     "DEFECT 1's reach: a04 with the ODCR open (in the group as well): once"),
    ("q03", "azure0", {}, _chain(classic_crg_only(), classic_aks(inline=False)),
     {"_est": rng(AZ2)}, None,
     "DEFECT 2's reach: a classic KubernetesClusterNodePool of 2 NC8as_T4_v3 with "
     "capacityReservationGroupId on the classic group holding 2: once, 1,097.92 < 1,500"),
    ("q04", "azure0", {}, _chain(classic_crg_only(), classic_aks(inline=True)),
     {"_est": rng(AZ2)}, None,
     "DEFECT 2's reach: a classic KubernetesCluster whose defaultNodePool is that GPU pool: once"),
    ("q05", "ali", {"spotStrategy": "SpotAsPriceGo"}, ali_cr(end_h=200), {SPEND: "fail"},
     cap(1200),
     "DEFECT 3's reach: k07 with the nodes' match criteria left out: spot still uses no "
     "reservation: 1,246.85 > 1,200"),
    ("q06", "ali", {"spotStrategy": "SpotWithPriceLimit", "spotPriceLimit": 1.0}, _chain(
        ali_cr(end_h=200), ali_nodes("privatePoolOptionsMatchCriteria", "Open")),
     {SPEND: "fail"}, cap(1200),
     "DEFECT 3's reach: SpotWithPriceLimit nodes (priced at most at the spot rate) beside the "
     "open reservation: 1,084.39 + >= 162.46 > 1,200"),
]


@pytest.mark.parametrize("case", _params(PROBES))
def test_probes(pack, case):
    _run_case(pack, case)
