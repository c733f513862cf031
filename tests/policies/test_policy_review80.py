"""Issue 35, a BLIND hostile review (helper review80) of the CrossGuard pack over gRPC, driven as
`pulumi preview --policy-pack policies` drives it (tests/policy_harness.py). Focus: AWS (classic
and aws-native) across issue 35's classes, stacks as teams write them (ParallelCluster-like ASGs
on EFA launch templates with FSx for Lustre fed from S3 by a data repository association, EKS
GPU node groups, Batch compute environments, HyperPod), and the areas fixed in the hour before:
Capacity Reservation groups (classic / aws-native; membership by dependency, literal ARN,
resource query), aws-native ELBv2 mixed with classic, Batch CEs mixing optimal/CPU and GPU
types, the validated `zones` config, a blank `trainstack:max-hours` tag, case-sensitive
InstanceType budget filters. The pack's code was not read: every verdict comes from
docs/policies.md, the catalog CSVs (policies/catalog_data) and the Pulumi SDK schemas in .venv;
each batch's expectations were committed before its first run. Builders are review77's (copied
so this file stands alone, same figures).

RESULTS (agreed / cases on the first run of each blind batch; 211 blind cases: 187 stacks, 76
  of them correct stacks that must pass, and 24 `zones` values over gRPC (16 valid forms that
  must be taken); 204 agree on the first run, 4 MY mistakes, 2 pack defects (3 cases); plus 7
  probes written after the findings and counted apart (2 hold, 5 strict xfail); 8 xfails):
  batch 1: 24/24. CR groups: classic (pool configuration) + Resource by dependency, by the
    group's name, by literal ARN (own / other name / other region), resourceQuery groups
    (classic, aws-native), aws-native `resources` on one / two ODCRs, configuration unknown, no
    members; ODCR zone, tenancy, type, count 1 / 'many', open vs preference none, by id.
  batch 2: 25/27. Capacity Blocks (no fee, fee per group, bought block alone / launched into,
    counted once); stops: Scheduler at() / DISABLED / Pulumi name / recurring or one-time start,
    aws-native ScheduledAction (all 0; desired 0 with group min 0 / 1; beside a scaling
    policy), recurring classic stop + morning scale-up, rule + SSM Stop/Terminate/Start
    runbooks on an instance, Lambda starters. s17, s19: DEFECT 1.
  batch 3: 47/51. AWS budgets: InstanceType case (costFilters, filterExpression, CASE_INSENSITIVE,
    not / ors / ands), Region, AZ, TagKeyValue, Service, LinkedAccount, CostCategory, CNY / EUR,
    USAGE, no subscribers, '20,000', 0, smallest covering cap, maxMonthlyUsd, period not begun,
    unknown filter; malformed sizes / types; max-hours blank / spaces / 0 / abc / -5 / NaN / 1 h.
    m04, m06, m12, m15: MY mistakes.
  batch 4: 28/28. Batch CEs (optimal, optimal+p4d, optimal+g5.xlarge, c5.large, p4d sized by
    BEST_FIT vs BEST_FIT_PROGRESSIVE, a GPU family, literal subnets with zones); ELBv2 aws-native
    and classic mixed (LB / listener / rule / TG each way, scheme omitted, gateway, internal),
    Global Accelerator classic / aws-native, HTTP API VPC_LINK vs INTERNET.
  batch 5: 52/52. EIPs, NAT-only public subnet, GPU ASG in it, SG rules, prefix lists, template
    interface 'true'; EKS node groups (zone, tag filters, maxSize 'x'); HyperPod ml.p5 / ml.c5;
    `zones` on a literal FSx subnet (names, AZ IDs, Local / Wavelength Zones) and 24 values.
  batch 6: 20/20. aws-native group entries (two on one ODCR, one on ODCR + key), Resource by a
    literal group ARN, an instance in a group, spot beside an open ODCR, aws-native ASG in a
    classic TG, Batch sizing by strategy, p4d CE left out by a p5 filter, AZ-ID subnets with
    zones, max-hours on the template's own tags (blank / -5 / tab).
  batch 7: 8/9. Local Zone prices, GA literal ARN to an aws-native NLB by name, REST API VPC links
    (REGIONAL / PRIVATE / unknown). y01: DEFECT 2.

MY MISTAKES (own commit a9f7cc6): m04 rdma: a type it cannot read (a list) is "cannot decide";
  m06 rdma: 'A type the catalog does not list ... may have an RDMA fabric, so a group of more
  than one node of it is asked'; m12 / m15: I read "the group's launch ... template's tag" as the
  template's instance `tagSpecifications`; the pack reads the template's own `tags` (probed:
  -5 / 0 there fail), which the docs' words allow.

DEFECT 1 (spend-limit, a stop that does not stop priced as a lifetime). Smallest: s17 = the
  base (2 p5, autoscaling Schedule to 0 in 96 h, ~12,141 under 20,000) + a Lambda function with
  environment {TAG_KEY: team, TAG_VALUE: research} (a tag the nodes carry) as the target of a
  weekday `cron(0 8 ? * MON-FRI *)` rule, the function tagged with the stack's cost tags (owner,
  team, cost-center, as required-tags asks): passes at 96 h; the month is ~81,933. Docs: "a
  Lambda function that finds them by tag: its input or environment variables name a tag of the
  nodes, key (KEY or tag:KEY) and value, or hold JSON text the pack cannot parse ... makes it a
  pause: the month". Reach: s19 (cut-short JSON), q1 (owner=bob), q3 (Scheduler
  updateAutoScalingGroup stop), q5 (the function tagged team=research only). Holds: the same
  function untagged (q2), a tag the function does not carry (q4 auto-start=true), a function
  whose input depends on the nodes. So a tag the function itself carries is not taken as
  finding the nodes, though EC2 DescribeInstances by tag finds instances, never the function.
DEFECT 2 (spend-limit, priced below the truth / catalog reach). Smallest: y01 = the base + an ASG
  of 10 g4dn.2xlarge on a subnet in us-east-1-bos-1a (the Boston Local Zone), budget 18,500:
  priced "10 x g4dn.2xlarge x 0.75 USD/h x 730 h = 5,490" (17,630 in all, passes), while
  prices.csv lists g4dn.2xlarge in us-east-1-bos-1 at 1.015 (7,409.50; ~19,551, over). Docs:
  the zone places the group ("a known zone name does: an AWS group's ... zones or those of the
  stack subnets it launches in"), and the estimate is held "never below the truth" elsewhere;
  nothing says a Local Zone is priced as its parent region. Reach: Atlanta Local Zone (q7),
  Wavelength Zone us-east-1-wl1-atl-wlz-1 (q6, catalog 1.317). Holds: the group in us-east-1b.

Planted bug (test side): NOSTOP's budget 100,000 -> 170,000 (above the counted-twice figure):
  15 failed, reverted from a cp backup.

Noticed, left alone: (1) m04's rdma note says "instanceType can't be known during preview" for a
  literal list, which is known and unreadable: wording only. (2) A max-hours tag in a launch
  template's instance tagSpecifications is not validated (it never shortens the estimate, so
  only the check is lost); the docs could say "the template's own tags". (3) Spot Batch CEs, an
  aws-native Batch CE, IPv6 on nodes and Local Zone ODCRs were not tried.
"""
from __future__ import annotations

import base64
import json
from datetime import datetime, timedelta, timezone
from typing import Any, Callable, Optional

import pytest

from tests.policy_fixtures import (AWS_ALERTS, AZURE_ALERTS, GCP_ALERTS, alicloud_cluster,
                                   azure_cluster, hours_from_now, res)
from tests.policy_harness import run, verdict

SSZ, SPEND, TAGS_P, RDMA = "storage-same-zone", "spend-limit", "required-tags", "rdma-for-multinode"
NPI, ENC, RET = "no-public-ingress", "encryption-at-rest", "bucket-retained"
POLICIES = (SSZ, SPEND, TAGS_P, RDMA, NPI, ENC, RET)
TAGS = {"owner": "bob", "team": "research", "cost-center": "4711"}
LABELS = {"owner": "bob", "team": "research", "cost_center": "4711"}
AZ_TAGS = {"owner": "alice", "team": "ml", "cost-center": "1234"}


def unknown() -> Any:
    from trainstack_policies.model import UNKNOWN
    return UNKNOWN


def named(stack: list, name: str):
    return next(r for r in stack if r.name == name)


# ----------------------------------------------------------------------------------- builders
# AWS and GCP: review61's clusters (same figures), copied so this file stands alone:
#   AWS us-east-1a: ASG of 2 p5.48xlarge (55.04 USD/h), 32 EFA, cluster placement group, stop in
#     96 h; FSx 4,800 GB PERSISTENT_2 250 (1,354.13; the pack's row gives ~1,464) + bucket 110.40;
#     budget 20,000. Estimate 2 x 55.04 x 96 = 10,567.68 + 1,464.53 = 12,032.21 (~12,141).
#     The month: 80,358.40 + 1,464.53 = 81,822.93.
#   GCP us-west1-c: MIG of 2 a3-ultragpu-8g (86.7599 USD/h), COLLOCATED, Cloud Scheduler resize to
#     0 in 97 h (the cron's minute); Managed Lustre 36,000 GiB (7,560.00) + bucket 773.09 =
#     8,333.09; budget 30,000. Estimate 16,831.42 + 8,333.09 = 25,164.51. The month: 135,002.54.
# Azure (tests/policy_fixtures.azure_cluster): 2 Standard_ND96isr_H100_v5 (98.32 USD/h eastus) x
#   96 h = 18,877.44 + AMLFS <= 2,230.60 + account <= 178.03 = <= 21,286.07; budget 25,000 on the
#   subscription. The month: 2 x 98.32 x 730 = 143,547.20 + 2,408.63 = 145,955.83.
# Alibaba (alicloud_cluster): 2 ecs.gn8v-8x.48xlarge (58.2708 USD/h eu-central-1) released at 96 h
#   (autoReleaseTime stands in for the alarm; no budget resource in pulumi-alicloud); CPFS 3,600 GB
#   in eu-central-1a; LowLatency deployment set, eRDMA HighPerformance.
def aws(zone: str = "us-east-1a", budget: Any = "20000", hours: Optional[float] = 96,
        itype: Any = "p5.48xlarge", max_size: Any = 2.0) -> list:
    sub = res("aws:ec2/subnet:Subnet", "train-a", {"availabilityZone": zone, "vpcId": "vpc-1",
                                                   "cidrBlock": "10.0.1.0/24", "tags": dict(TAGS)})
    pg = res("aws:ec2/placementGroup:PlacementGroup", "train-pg",
             {"strategy": "cluster", "tags": dict(TAGS)})
    bucket = res("aws:s3/bucket:Bucket", "datasets", {"forceDestroy": False,
                                                      "tags": {**TAGS, "trainstack:retain": "true"}},
                 retain=True)
    fs = res("aws:fsx/lustreFileSystem:LustreFileSystem", "scratch",
             {"subnetIds": "subnet-x", "storageCapacity": 4800.0, "deploymentType": "PERSISTENT_2",
              "perUnitStorageThroughput": 250.0, "tags": dict(TAGS)},
             deps={"subnetIds": [sub]})
    dra = res("aws:fsx/dataRepositoryAssociation:DataRepositoryAssociation", "scratch-s3",
              {"fileSystemPath": "/", "dataRepositoryPath": "s3://datasets/data/", "tags": dict(TAGS)},
              deps={"fileSystemId": [fs], "dataRepositoryPath": [bucket]})
    nics = [{"networkCardIndex": float(c), "deviceIndex": 0.0,
             "interfaceType": "efa", "associatePublicIpAddress": "false"} for c in range(32)]
    lt = res("aws:ec2/launchTemplate:LaunchTemplate", "train-lt",
             {"instanceType": itype, "networkInterfaces": nics, "userData": "IyEvYmluL2Jhc2g=",
              "blockDeviceMappings": [{"deviceName": "/dev/xvda", "ebs": {
                  "volumeSize": 500.0, "volumeType": "gp3", "encrypted": "true"}}],
              "tagSpecifications": [{"resourceType": "instance", "tags": dict(TAGS)}],
              "tags": dict(TAGS)},
             deps={"userData": [fs, bucket]})
    asg = res("aws:autoscaling/group:Group", "train-nodes",
              {"minSize": 0.0, "maxSize": max_size, "desiredCapacity": 2.0,
               "placementGroup": "train-pg", "vpcZoneIdentifiers": ["subnet-x"],
               "launchTemplate": {"id": "lt-x", "version": "$Latest"},
               "tags": [{"key": k, "value": v, "propagateAtLaunch": True} for k, v in TAGS.items()]},
              deps={"launchTemplate": [lt], "vpcZoneIdentifiers": [sub], "placementGroup": [pg]})
    bud = res("aws:budgets/budget:Budget", "train-budget",
              {"budgetType": "COST", "timeUnit": "MONTHLY", "limitAmount": budget, "limitUnit": "USD",
               "notifications": AWS_ALERTS, "tags": dict(TAGS)})
    sg = res("aws:ec2/securityGroup:SecurityGroup", "train-sg",
             {"vpcId": "vpc-1", "description": "cluster", "tags": dict(TAGS)})
    rule = res("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule", "intra",
               {"securityGroupId": "sg-x", "cidrIpv4": "10.0.0.0/16", "ipProtocol": "-1",
                "tags": dict(TAGS)}, deps={"securityGroupId": [sg]})
    out = [sub, pg, bucket, fs, dra, lt, asg, bud, sg, rule]
    if hours is not None:
        out.append(res("aws:autoscaling/schedule:Schedule", "train-stop",
                       {"autoscalingGroupName": "asg-x", "scheduledActionName": "stop",
                        "minSize": 0.0, "maxSize": 0.0, "desiredCapacity": 0.0,
                        "startTime": hours_from_now(hours)},
                       deps={"autoscalingGroupName": [asg]}))
    return out


def gcp_cron(hours: float) -> str:
    at = datetime.now(timezone.utc) + timedelta(hours=hours, minutes=1)
    return f"{at.minute} {at.hour} {at.day} {at.month} *"


def gcp(zone: str = "us-west1-c", budget: Any = "30000", hours: Optional[float] = 96,
        mtype: Any = "a3-ultragpu-8g", target: Any = 2.0) -> list:
    pol = res("gcp:compute/resourcePolicy:ResourcePolicy", "compact",
              {"region": "us-west1", "groupPlacementPolicy": {"collocation": "COLLOCATED",
                                                              "vmCount": 2.0}})
    lustre = res("gcp:lustre/instance:Instance", "scratch",
                 {"location": zone, "capacityGib": "36000", "instanceId": "scratch",
                  "perUnitStorageThroughput": "250", "network": "projects/ml/global/networks/train",
                  "labels": dict(LABELS)})
    bucket = res("gcp:storage/bucket:Bucket", "datasets",
                 {"location": "US-WEST1", "forceDestroy": False,
                  "labels": {**LABELS, "trainstack_retain": "true"}}, retain=True)
    nics = [{"nicType": "GVNIC"}] * 2 + [{"nicType": "MRDMA"}] * 8
    tpl = res("gcp:compute/instanceTemplate:InstanceTemplate", "train-tpl",
              {"machineType": mtype, "networkInterfaces": nics, "resourcePolicies": "compact-id",
               "labels": dict(LABELS), "scheduling": {"provisioningModel": "STANDARD"},
               "metadata": {"startup-script": "mount"}},
              deps={"resourcePolicies": [pol], "metadata": [lustre, bucket]})
    mig = res("gcp:compute/instanceGroupManager:InstanceGroupManager", "train-mig",
              {"zone": zone, "targetSize": target, "baseInstanceName": "train",
               "name": "train-mig", "versions": [{"instanceTemplate": "tpl-id"}]},
              deps={"versions": [tpl]})
    bud = res("gcp:billing/budget:Budget", "train-budget",
              {"billingAccount": "000000-000000-000000",
               "amount": {"specifiedAmount": {"currencyCode": "USD", "units": budget}},
               "thresholdRules": GCP_ALERTS})
    fw = res("gcp:compute/firewall:Firewall", "intra",
             {"network": "train", "direction": "INGRESS", "sourceRanges": ["10.10.0.0/16"],
              "allows": [{"protocol": "all"}]})
    out = [pol, lustre, bucket, tpl, mig, bud, fw]
    if hours is not None:
        uri = (f"https://compute.googleapis.com/compute/v1/projects/ml/zones/{zone}/"
               "instanceGroupManagers/train-mig/resize?size=0")
        out.append(res("gcp:cloudscheduler/job:Job", "train-stop", {
            "region": "us-west1", "schedule": gcp_cron(hours), "timeZone": "Etc/UTC",
            "httpTarget": {"uri": uri, "httpMethod": "POST",
                           "oauthToken": {"serviceAccountEmail": "stop@ml.iam.gserviceaccount.com"}}},
            deps={"httpTarget": [mig]}))
    return out


def azure(**kw) -> list:
    return azure_cluster(**kw)


def ali(**kw) -> list:
    return alicloud_cluster(**kw)


AWS_P = {"region": "us-east-1"}
GCP_P = {"project": "ml", "region": "us-west1"}
PROVIDERS = {"aws": AWS_P, "gcp": GCP_P, "azure": {}, "ali": {}}
BUILD: dict[str, Callable[..., list]] = {"aws": aws, "gcp": gcp, "azure": azure, "ali": ali}


D1 = ("DEFECT 1: a Lambda starter that finds the nodes by a tag the function itself also carries "
      "(the required cost tags) is not seen as a start: the stop is taken as a lifetime")
D2 = ("DEFECT 2: a group in an AWS Local Zone / Wavelength Zone subnet is priced at its region's "
      "rate although the catalog lists the zone's higher rate: below the truth")
# Both fixed by fix81 (lifetimes._finds_by_tag matches the nodes' tags only; pricing prices a
# Local / Wavelength Zone group at its zone's catalog row): no case is left xfail.
XFAIL: dict[str, str] = {}


def _params(cases):
    return [pytest.param(c, id=c[0], marks=[pytest.mark.xfail(strict=True, reason=XFAIL[c[0]])]
                         if c[0] in XFAIL else []) for c in cases]


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
    # a tuple of verdicts: any of them (where the docs leave the level open but rule out a pass)
    ok = all(got[p] in (w if isinstance(w, tuple) else (w,)) for p, w in want.items())
    assert ok, (cid, got, [(d.policy, d.level, d.message[:400]) for d in found])
    for policy, needles in expect.get("_msg", {}).items():   # what the findings must name
        text = " ".join(d.message for d in found if d.policy == policy)
        for needle in needles:
            assert needle in text, (cid, policy, needle, text[:1500])


def _add(*extra_fns):
    """A mutation adding resources built from the stack (each fn: stack -> resource or list)."""
    def mutate(s):
        for fn in extra_fns:
            r = fn(s)
            s = s + (r if isinstance(r, list) else [r])
        return s
    return mutate


def _new(type_: str, name: str, props: dict, deps: Optional[Callable[[list], dict]] = None,
         region: Optional[str] = None):
    """A mutation adding one resource (deps: stack -> {input: [resources]})."""
    def build(s):
        return res(type_, name, json.loads(json.dumps(props)) if not _has_unknown(props) else props,
                   deps=deps(s) if deps else None, provider_region=region)
    return _add(build)


def _has_unknown(v: Any) -> bool:
    if isinstance(v, dict):
        return any(_has_unknown(x) for x in v.values())
    if isinstance(v, list):
        return any(_has_unknown(x) for x in v)
    return v is unknown()


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


def _drop(name: str):
    return lambda s: [r for r in s if r.name != name]


def _chain(*fns):
    def mutate(s):
        for fn in fns:
            s = fn(s)
        return s
    return mutate


def _sub(name: str, zone: Optional[str] = "us-east-1b", az_id: Optional[str] = None,
         cidr: str = "10.0.2.0/24"):
    props: dict = {"vpcId": "vpc-1", "cidrBlock": cidr, "tags": dict(TAGS)}
    if zone:
        props["availabilityZone"] = zone
    if az_id:
        props["availabilityZoneId"] = az_id
    return lambda s: res("aws:ec2/subnet:Subnet", name, props)


def _mount(holder: str, *names: str, key: str = "userData", only: bool = False):
    """The holder's `key` input built from these resources (its user data names them)."""
    def mutate(s):
        r = named(s, holder)
        old = [] if only else list(r.deps.get(key, []))
        r.deps[key] = old + [named(s, n) for n in names]
        return s
    return mutate


def _unmount(holder: str, name: str, key: str = "userData"):
    def mutate(s):
        r = named(s, holder)
        r.deps[key] = [d for d in r.deps.get(key, []) if d.name != name]
        return s
    return mutate


ALT = {"owner": "alice", "team": "ml", "cost-center": "1234"}   # the fixtures' owner tags
ZONES = lambda z: {SSZ: {"zones": z}}   # noqa: E731


def _tagged(r, tags=None):
    r.props.setdefault("tags", dict(tags or TAGS))
    return r




# ----------------------------------------------------------------------------- review80 parts
# Figures (policies/catalog_data/prices.csv, us-east-1): p5.48xlarge 55.04 USD/h on demand,
# p5en.48xlarge 63.296, p4d.24xlarge 21.9576 (96 vCPUs, instance_types.csv), g5.xlarge 1.006.
# The base (review77's aws(): 2 p5 in us-east-1a, stop in 96 h, FSx 4,800 GB P2-250 + bucket)
# is ~12,141 a month under its 20,000 budget; without its stop (hours=None) the month is
# 2 x 55.04 x 730 = 80,358.40 + ~1,575 storage = ~81,933.
# A 2-node p5 ODCR bills 2 x 55.04 x 730 = 80,358.40 whether used or not: counted once with the
# base month ~81,933; counted twice 160,716.80 + ~1,575 = ~162,291. Budget 100,000 tells them apart.
P5_MONTH = 2 * 55.04 * 730          # 80,358.40
ONCE = P5_MONTH + 1575              # ~81,933
TWICE = 2 * P5_MONTH + 1575         # ~162,291
assert ONCE < 100000 < TWICE


def _awsn_tags(tags=None):
    return [{"key": k, "value": v} for k, v in (tags or TAGS).items()]


def odcr(name: str = "p5-odcr", zone: str = "us-east-1a", count: Any = 2.0,
         itype: str = "p5.48xlarge", match: str = "targeted", native: bool = False, **extra):
    def build(s):
        props = {"availabilityZone": zone, "instanceCount": count, "instanceType": itype,
                 "instancePlatform": "Linux/UNIX", "instanceMatchCriteria": match, **extra}
        if native:
            props["tagSpecifications"] = [{"resourceType": "capacity-reservation",
                                           "tags": _awsn_tags()}]
            return res("aws-native:ec2:CapacityReservation", name, props)
        props["tags"] = dict(TAGS)
        return res("aws:ec2/capacityReservation:CapacityReservation", name, props)
    return _add(build)


POOL_CFG = [{"type": "AWS::EC2::CapacityReservationPool"},
            {"type": "AWS::ResourceGroups::Generic", "parameters": [
                {"name": "allowed-resource-types", "values": ["AWS::EC2::CapacityReservation"]}]}]
QUERY = {"type": "TAG_FILTERS_1_0", "query": json.dumps({
    "ResourceTypeFilters": ["AWS::EC2::CapacityReservation"],
    "TagFilters": [{"Key": "team", "Values": ["research"]}]})}


def crg(name: str = "p5-pool", query: bool = False, config: bool = True):
    """A classic Capacity Reservation group (explicit name)."""
    def build(s):
        props: dict = {"name": name, "tags": dict(TAGS)}
        if config:
            props["configurations"] = POOL_CFG
        if query:
            props["resourceQuery"] = QUERY
        return res("aws:resourcegroups/group:Group", name, props)
    return _add(build)


def crg_member(group: str = "p5-pool", member: str = "p5-odcr", group_dep: bool = True,
               member_dep: bool = True, group_lit: Optional[str] = None):
    def build(s):
        deps = {}
        if group_dep:
            deps["groupArn"] = [named(s, group)]
        if member_dep:
            deps["resourceArn"] = [named(s, member)]
        return res("aws:resourcegroups/resource:Resource", f"{group}-{member}",
                   {"groupArn": group_lit or unknown(), "resourceArn": unknown()}, deps=deps)
    return _add(build)


def crg_native(name: str = "p5-pool", members: Optional[list] = ("p5-odcr",),
               configuration: Any = "pool", query: bool = False):
    def build(s):
        props: dict = {"name": name, "tags": _awsn_tags()}
        if configuration == "pool":
            props["configuration"] = POOL_CFG
        elif configuration is not None:
            props["configuration"] = configuration
        if query:
            props["resourceQuery"] = QUERY
        deps = {}
        if members is not None:
            props["resources"] = [unknown() for _ in members]
            deps["resources"] = [named(s, m) for m in members]
        return res("aws-native:resourcegroups:Group", name, props, deps=deps)
    return _add(build)


def lt_target(group: Optional[str] = "p5-pool", arn: Optional[str] = None,
              reservation: Optional[str] = None, pref: Optional[str] = None):
    """The base launch template targets a CR group (by dependency, or a literal ARN) or an ODCR."""
    def mutate(s):
        lt = named(s, "train-lt")
        spec: dict = {}
        if pref:
            spec["capacityReservationPreference"] = pref
        if group or arn:
            spec["capacityReservationTarget"] = {"capacityReservationResourceGroupArn":
                                                 arn or unknown()}
            if group and not arn:
                lt.deps["capacityReservationSpecification"] = [named(s, group)]
        if reservation:
            spec["capacityReservationTarget"] = {"capacityReservationId": unknown()}
            lt.deps["capacityReservationSpecification"] = [named(s, reservation)]
        lt.props["capacityReservationSpecification"] = spec
        return s
    return mutate


POOL_ARN = "arn:aws:resource-groups:us-east-1:123456789012:group/p5-pool"
NOSTOP = {"hours": None, "budget": "100000"}

CASES_1 = [
    # ---- capacity counted once / twice: Capacity Reservation groups
    ("c01", "aws", NOSTOP, _chain(odcr(), crg(), crg_member(), lt_target()), {}, None,
     "classic CR group (pool configuration) + Resource adding the ODCR by dependency, nodes "
     "target the group: once, ~81,933 < 100,000"),
    ("c02", "aws", NOSTOP, _chain(odcr(), crg(), crg_member()), {SPEND: "fail"}, None,
     "targeted ODCR in a group, nodes target nothing: twice, ~162,291 > 100,000"),
    ("c03", "aws", NOSTOP, _chain(odcr(), crg(config=False, query=True), crg_member(),
                                  lt_target()), {SPEND: "fail"}, None,
     "a group by resource query is no CR group (docs): the nodes' target adds nothing: twice"),
    ("c04", "aws", NOSTOP, _chain(odcr(), crg(), crg_member(), lt_target(group=None,
                                                                        arn=POOL_ARN)),
     {}, None, "literal ARN of the group's name in its region (provider us-east-1): once"),
    ("c05", "aws", NOSTOP, _chain(odcr(), crg(), crg_member(), lt_target(
        group=None, arn="arn:aws:resource-groups:us-east-1:123456789012:group/other-pool")),
     {SPEND: "fail"}, None, "literal ARN of another group: twice"),
    ("c06", "aws", NOSTOP, _chain(odcr(), crg(), crg_member(), lt_target(
        group=None, arn="arn:aws:resource-groups:us-west-2:123456789012:group/p5-pool")),
     {SPEND: "fail"}, None, "literal ARN of the group's name in another region: twice"),
    ("c07", "aws", NOSTOP, _chain(odcr(), crg(), crg_member(member_dep=False), lt_target()),
     {SPEND: "fail"}, None, "the Resource's resourceArn unknown, on no ODCR: membership unread, "
                            "adds nothing: twice"),
    ("c08", "aws", NOSTOP, _chain(odcr(), crg(), crg_member(group_dep=False,
                                                            group_lit="p5-pool"), lt_target()),
     {}, None, "groupArn given as the group's name (the Resource takes 'Name or ARN') ... docs: "
               "'its groupArn depending on the group or naming it': once"),
    ("c09", "aws", NOSTOP, _chain(odcr(), crg_native(), lt_target()), {}, None,
     "aws-native group with the pool configuration, resources [unknown] on the one ODCR: once"),
    ("c10", "aws", NOSTOP, _chain(odcr(), crg_native(configuration=None, query=True),
                                  lt_target()), {SPEND: "fail"}, None,
     "aws-native group by resourceQuery, no configuration: no CR group: twice"),
    ("c11", "aws", NOSTOP, _chain(odcr(), crg_native(configuration=unknown()), lt_target()),
     {SPEND: ("fail", "undecided")}, None,
     "aws-native group whose configuration is unknown: 'adds nothing, so reservation and nodes "
     "are both priced': twice (over 100,000)"),
    ("c12", "aws", NOSTOP, _chain(odcr(native=True), crg_native(), lt_target()), {}, None,
     "aws-native ODCR in an aws-native group: once"),
    ("c13", "aws", NOSTOP, _chain(odcr(native=True), crg(), crg_member(), lt_target()), {},
     None, "aws-native ODCR added to a classic group by a Resource: once"),
    ("c14", "aws", NOSTOP, _chain(odcr(zone="us-east-1b"), crg(), crg_member(), lt_target()),
     {SPEND: "fail"}, None, "ODCR in 1b, nodes in 1a: no match: twice"),
    ("c15", "aws", NOSTOP, _chain(odcr(tenancy="dedicated"), crg(), crg_member(), lt_target()),
     {SPEND: "fail"}, None, "dedicated ODCR, default-tenancy nodes: both priced"),
    ("c16", "aws", NOSTOP, _chain(odcr(itype="p5en.48xlarge"), crg(), crg_member(),
                                  lt_target()), {SPEND: "fail"}, None,
     "p5en ODCR (2 x 63.296 x 730 = 92,412) + p5 nodes 80,358: both, over 100,000"),
    ("c17", "aws", NOSTOP, _chain(odcr(count=1.0), crg(), crg_member(), lt_target()), {},
     None, "1-node ODCR: 1 inside (40,179) + 1 beyond (40,179) + ~1,575: ~81,933 < 100,000"),
    ("c18", "aws", NOSTOP, _chain(odcr(match="open")), {}, None,
     "open ODCR of the type in the zone, On-Demand nodes with default (open) preference: once"),
    ("c19", "aws", NOSTOP, _chain(odcr(match="open"), lt_target(group=None, pref="none")),
     {SPEND: "fail"}, None, "open ODCR, nodes' preference none: twice"),
    ("c20", "aws", NOSTOP, _chain(odcr(), lt_target(group=None, reservation="p5-odcr")), {},
     None, "nodes target the ODCR by id (dependency): once"),
    ("c21", "aws", NOSTOP, _chain(odcr(count="many"), crg(), crg_member(), lt_target()),
     {SPEND: "fail"}, None, "instanceCount 'many': malformed, a violation naming it"),
    ("c22", "aws", NOSTOP, _chain(odcr(), odcr(name="p5-odcr-2"), crg_native(
        members=["p5-odcr", "p5-odcr-2"]), lt_target()), {SPEND: "fail"}, None,
     "two 2-node ODCRs in the aws-native group: 160,716.80 reserved (nodes inside) + ~1,575 "
     "= ~162,291 > 100,000, whether or not the nodes count once"),
    ("c23", "aws", {"hours": None, "budget": "200000"}, _chain(
        odcr(), odcr(name="p5-odcr-2"), crg_native(members=["p5-odcr", "p5-odcr-2"]),
        lt_target()), {}, None, "same under 200,000: ~162,291 passes"),
    ("c24", "aws", NOSTOP, _chain(odcr(), crg_native(members=None), lt_target()),
     {SPEND: "fail"}, None, "aws-native group with no resources listed and no Resource: the "
                            "ODCR is no member: twice"),
]


# ---- Capacity Blocks
def lt_block(dep: Optional[str] = None):
    def mutate(s):
        lt = named(s, "train-lt")
        lt.props["instanceMarketOptions"] = {"marketType": "capacity-block"}
        lt.props["capacityReservationSpecification"] = {"capacityReservationTarget": {
            "capacityReservationId": "cr-0123456789abcdef0" if dep is None else unknown()}}
        if dep:
            lt.deps["capacityReservationSpecification"] = [named(s, dep)]
        return s
    return mutate


def block(name: str = "p5-block"):
    return _new("aws:ec2/capacityBlockReservation:CapacityBlockReservation", name, {
        "capacityBlockOfferingId": "cb-0123456789abcdef0", "instancePlatform": "Linux/UNIX",
        "tags": dict(TAGS)})


FEES = lambda d: {SPEND: {"capacityBlockFeesUsd": d}}   # noqa: E731


def sched_at(hours: float) -> str:
    at = datetime.now(timezone.utc) + timedelta(hours=hours)
    return "at(" + at.strftime("%Y-%m-%dT%H:%M:%S") + ")"


def scheduler(name: str, payload: dict, expr: str, state: str = "ENABLED",
              action: str = "autoscaling:updateAutoScalingGroup"):
    return _new("aws:scheduler/schedule:Schedule", name, {
        "scheduleExpression": expr, "scheduleExpressionTimezone": "UTC", "state": state,
        "flexibleTimeWindow": {"mode": "OFF"},
        "target": {"arn": f"arn:aws:scheduler:::aws-sdk:{action}",
                   "roleArn": "arn:aws:iam::123456789012:role/sched", "input": json.dumps(payload)}})


ASG_NAME = _set("train-nodes", "name", "train-nodes-asg")
STOP0 = {"AutoScalingGroupName": "train-nodes-asg", "MinSize": 0, "MaxSize": 0,
         "DesiredCapacity": 0}


def native_action(name: str, start_h: float, **sizes):
    return _new("aws-native:autoscaling:ScheduledAction", name, {
        "autoScalingGroupName": unknown(), "startTime": hours_from_now(start_h), **sizes},
        deps=lambda s: {"autoScalingGroupName": [named(s, "train-nodes")]})


def classic_sched(name: str, rec: Optional[str], **sizes):
    props = {"autoscalingGroupName": "asg-x", "scheduledActionName": name, **sizes}
    if rec:
        props["recurrence"] = rec
    else:
        props["startTime"] = hours_from_now(96)
    return _new("aws:autoscaling/schedule:Schedule", name, props,
                deps=lambda s: {"autoscalingGroupName": [named(s, "train-nodes")]})


def gpu_vm(stop: Optional[str] = None, extra_start: bool = False):
    """The base with its ASG, template and stop replaced by one p5 instance (subnet 1a, FSx
    mounted); `stop`: an EventBridge rule running AWS-StopEC2Instance on it, `rate(1 day)`."""
    def mutate(s):
        s = [r for r in s if r.name not in ("train-nodes", "train-lt", "train-stop")]
        vm = res("aws:ec2/instance:Instance", "dev", {
            "instanceType": "p5.48xlarge", "subnetId": "subnet-x", "ami": "ami-0abc",
            "associatePublicIpAddress": False, "userData": "IyEvYmluL2Jhc2g=",
            "rootBlockDevice": {"volumeSize": 200.0, "encrypted": True}, "tags": dict(TAGS)},
            deps={"subnetId": [named(s, "train-a")],
                  "userData": [named(s, "scratch"), named(s, "datasets")]})
        out = s + [vm]
        for i, doc in enumerate([stop] + (["AWS-StartEC2Instance"] if extra_start else [])):
            if doc is None:
                continue
            rule = res("aws:cloudwatch/eventRule:EventRule", f"rule-{i}", {
                "scheduleExpression": "rate(1 day)" if i == 0 else "cron(0 8 * * ? *)",
                "state": "ENABLED", "tags": dict(TAGS)})
            tgt = res("aws:cloudwatch/eventTarget:EventTarget", f"tgt-{i}", {
                "rule": "r", "arn": f"arn:aws:ssm:us-east-1::automation-definition/{doc}:$DEFAULT",
                "roleArn": "arn:aws:iam::123456789012:role/ssm",
                "input": unknown()}, deps={"rule": [rule], "input": [vm]})
            out += [rule, tgt]
        return out
    return mutate


def lambda_start(env: dict):
    """A Lambda function on a weekday cron rule (a 'start the training nodes' function)."""
    def build(s):
        fn = res("aws:lambda/function:Function", "starter", {
            "runtime": "python3.12", "handler": "app.handler", "role": "arn:aws:iam::1:role/l",
            "environment": {"variables": env}, "tags": dict(TAGS)})
        rule = res("aws:cloudwatch/eventRule:EventRule", "weekday-8", {
            "scheduleExpression": "cron(0 8 ? * MON-FRI *)", "tags": dict(TAGS)})
        tgt = res("aws:cloudwatch/eventTarget:EventTarget", "weekday-8-fn", {
            "rule": "r", "arn": "arn"}, deps={"rule": [rule], "arn": [fn]})
        return [fn, rule, tgt]
    return _add(build)


CASES_2 = [
    ("k01", "aws", {}, lt_block(), {SPEND: "fail"}, None,
     "nodes in a Capacity Block, no fee in capacityBlockFeesUsd: cannot be estimated"),
    ("k02", "aws", {"budget": "40000"}, lt_block(), {}, FEES({"train-nodes": 30000}),
     "fee 30,000 + ~1,575 storage < 40,000"),
    ("k03", "aws", {}, lt_block(), {SPEND: "fail"}, FEES({"train-nodes": 30000}),
     "fee 30,000 + ~1,575 > 20,000"),
    ("k04", "aws", {}, block(), {SPEND: "fail"}, None,
     "a bought block no group launches into, no fee: GPU capacity that cannot be estimated"),
    ("k05", "aws", {"budget": "40000"}, block(), {}, FEES({"p5-block": 15000}),
     "the block's fee 15,000 + base ~12,141 = ~27,141 < 40,000"),
    ("k06", "aws", {"budget": "40000"}, _chain(block(), lt_block(dep="p5-block")), {},
     FEES({"train-nodes": 30000}),
     "the group launches into the stack's block: priced once at the group's fee, ~31,575"),
    ("k07", "aws", {"budget": "40000"}, _chain(block(), lt_block(dep="p5-block")),
     {}, FEES({"train-nodes": 30000, "p5-block": 30000}),
     "both names given a fee; docs: 'one a group launches into is priced with that group, "
     "once': 31,575 < 40,000 (twice would be 61,575)"),
    # ---- stops
    ("s01", "aws", {"hours": None}, _chain(ASG_NAME, scheduler("stop-at", STOP0,
                                                               sched_at(96))), {}, None,
     "Scheduler at() in 96 h, updateAutoScalingGroup to 0 naming the group's name: ~12,141"),
    ("s02", "aws", {"hours": None}, _chain(ASG_NAME, scheduler("stop-at", STOP0, sched_at(96),
                                                               state="DISABLED")),
     {SPEND: "fail"}, None, "DISABLED: no stop, the month ~81,933"),
    ("s03", "aws", {"hours": None}, _chain(ASG_NAME, scheduler(
        "stop-at", {**STOP0, "AutoScalingGroupName": "train-nodes"}, sched_at(96))),
     {SPEND: "fail"}, None, "input names the Pulumi resource name, not the group's name"),
    ("s04", "aws", {"hours": None}, _chain(ASG_NAME, scheduler("stop-at", STOP0, sched_at(96)),
                                           scheduler("start", {**STOP0, "MaxSize": 2,
                                                               "DesiredCapacity": 2},
                                                     "cron(0 8 ? * 2-6 *)")),
     {SPEND: "fail"}, None, "a recurring start above 0: the stop is a pause"),
    ("s05", "aws", {"hours": None}, _chain(ASG_NAME, scheduler("stop-at", STOP0, sched_at(96)),
                                           scheduler("start", {**STOP0, "MaxSize": 2,
                                                               "DesiredCapacity": 2},
                                                     sched_at(24))), {}, None,
     "a one-time start at 24 h before the stop at 96 h changes nothing"),
    ("s06", "aws", {"hours": None}, _chain(ASG_NAME, scheduler("stop-at", STOP0, sched_at(48)),
                                           scheduler("start", {**STOP0, "MaxSize": 2,
                                                               "DesiredCapacity": 2},
                                                     sched_at(72))), {SPEND: "fail"}, None,
     "a one-time start after the stop: the month"),
    ("s07", "aws", {"hours": None}, native_action("stop-n", 96, minSize=0, maxSize=0,
                                                  desiredCapacity=0), {}, None,
     "aws-native ScheduledAction on the classic group by dependency, all 0 in 96 h"),
    ("s08", "aws", {"hours": None}, native_action("stop-n", 96, desiredCapacity=0), {}, None,
     "aws-native: desired 0, min left as the group's 0: 'desired and min 0' -> stop"),
    ("s09", "aws", {"hours": None}, _chain(_set("train-nodes", "minSize", 1.0),
                                           native_action("stop-n", 96, desiredCapacity=0)),
     {SPEND: "fail"}, None, "aws-native desired 0 under a group minimum 1: refused, no stop"),
    ("s10", "aws", {"hours": None}, _chain(native_action("stop-n", 96, desiredCapacity=0),
                                           _new("aws:autoscaling/policy:Policy", "tt", {
                                               "autoscalingGroupName": "asg-x",
                                               "policyType": "TargetTrackingScaling"},
                                               deps=lambda s: {"autoscalingGroupName": [
                                                   named(s, "train-nodes")]})),
     {SPEND: "fail"}, None, "desired 0 beside a scaling policy, max 2: a pause"),
    ("s11", "aws", {"hours": None}, classic_sched("nightly", "0 20 * * *", minSize=0.0,
                                                  maxSize=0.0, desiredCapacity=0.0), {}, None,
     "recurring nightly stop, nothing starts it: first run within 24 h"),
    ("s12", "aws", {"hours": None}, _chain(
        classic_sched("nightly", "0 20 * * *", minSize=0.0, maxSize=0.0, desiredCapacity=0.0),
        classic_sched("morning", "0 8 * * 1-5", minSize=0.0, maxSize=2.0,
                      desiredCapacity=2.0)), {SPEND: "fail"}, None,
     "nightly stop + weekday morning scale-up: a pause, the month"),
    ("s13", "aws", {}, gpu_vm(stop="AWS-StopEC2Instance"), {}, None,
     "one p5 instance, rule rate(1 day) with AWS-StopEC2Instance on it: 24 h x 55.04 = 1,321"),
    ("s14", "aws", {}, gpu_vm(stop=None), {SPEND: "fail"}, None,
     "one p5 instance for the month: 40,179 + ~1,575 > 20,000"),
    ("s15", "aws", {}, gpu_vm(stop="AWS-StopEC2Instance", extra_start=True), {SPEND: "fail"},
     None, "stop rule + a start rule (AWS-StartEC2Instance) on it: a pause, the month"),
    ("s16", "aws", {}, gpu_vm(stop="AWS-TerminateEC2Instance"), {}, None,
     "terminate runbook: 24 h"),
    ("s17", "aws", {}, lambda_start({"TAG_KEY": "team", "TAG_VALUE": "research"}),
     {SPEND: "fail"}, None, "a Lambda on a rule finds nodes by their tag team=research: the "
                            "base's 96 h stop becomes a pause"),
    ("s18", "aws", {}, lambda_start({"TAG_KEY": "team", "TAG_VALUE": "web"}), {}, None,
     "a Lambda naming a tag the nodes do not carry: the stop holds"),
    ("s19", "aws", {}, lambda_start({"FILTER": '{"tag:team": ["research"'}), {SPEND: "fail"},
     None, "JSON text cut short: may name a tag: a pause"),
    ("s20", "aws", {"hours": None}, _chain(ASG_NAME, scheduler(
        "stop-rate", STOP0, "rate(7 days)")), {}, None,
     "rate() without startDate: runs now: 0 or 1 h; nothing starts it: passes"),
]


# ---- budgets
def budget_set(**props):
    def mutate(s):
        named(s, "train-budget").props.update(props)
        return s
    return mutate


def cf(name, *values):
    return budget_set(costFilters=[{"name": name, "values": list(values)}])


def dim(key, *values, opts=("EQUALS",)):
    return {"dimensions": {"key": key, "values": list(values), "matchOptions": list(opts)}}


def fe(expr):
    return budget_set(filterExpression=expr)


def budget2(name, amount, **props):
    return _new("aws:budgets/budget:Budget", name, {
        "budgetType": "COST", "timeUnit": "MONTHLY", "limitAmount": amount, "limitUnit": "USD",
        "notifications": AWS_ALERTS, "tags": dict(TAGS), **props})


MAXM = lambda v: {SPEND: {"maxMonthlyUsd": v}}   # noqa: E731

CASES_3 = [
    ("b01", "aws", {}, cf("InstanceType", "p5.48xlarge"), {}, None, "exact type: covers"),
    ("b02", "aws", {}, cf("InstanceType", "P5.48XLARGE"), {SPEND: "fail"}, None,
     "upper case: counts no p5.48xlarge hours: no alarm"),
    ("b03", "aws", {}, cf("InstanceType", "p5.48xlarge", "P5.48XLARGE"), {}, None,
     "both spellings: the exact one covers"),
    ("b04", "aws", {}, fe(dim("INSTANCE_TYPE", "p5.48xlarge")), {}, None,
     "filterExpression INSTANCE_TYPE EQUALS exact"),
    ("b05", "aws", {}, fe(dim("INSTANCE_TYPE", "P5.48xlarge")), {SPEND: "fail"}, None,
     "filterExpression, case differs: no alarm"),
    ("b06", "aws", {}, fe(dim("INSTANCE_TYPE", "P5.48XLARGE", opts=("CASE_INSENSITIVE",))),
     {SPEND: "undecided"}, None, "CASE_INSENSITIVE: reach cannot decide"),
    ("b07", "aws", {}, fe({"not": dim("INSTANCE_TYPE", "p5.48xlarge")}), {SPEND: "fail"}, None,
     "not p5: leaves them out"),
    ("b08", "aws", {}, fe({"ors": [dim("INSTANCE_TYPE", "g5.xlarge"),
                                   dim("INSTANCE_TYPE", "p5.48xlarge")]}), {}, None,
     "ors: one takes them in"),
    ("b09", "aws", {}, fe({"ands": [dim("REGION", "us-east-1"),
                                    dim("INSTANCE_TYPE", "p5.48xlarge")]}), {}, None,
     "ands region + type: covers"),
    ("b10", "aws", {}, fe({"ands": [dim("REGION", "us-west-2"),
                                    dim("INSTANCE_TYPE", "p5.48xlarge")]}), {SPEND: "fail"},
     None, "ands with another region: out"),
    ("b11", "aws", {}, cf("Region", "us-east-1"), {}, None, "Region: covers"),
    ("b12", "aws", {}, cf("AZ", "us-east-1b"), {SPEND: "fail"}, None, "AZ 1b, nodes 1a: out"),
    ("b13", "aws", {}, cf("AZ", "us-east-1a"), {}, None, "AZ 1a: covers"),
    ("b14", "aws", {}, cf("TagKeyValue", "user:team$research"), {}, None,
     "tag the instances carry (propagateAtLaunch, template instance tags)"),
    ("b15", "aws", {}, cf("TagKeyValue", "user:team$infra"), {SPEND: "fail"}, None,
     "another value: out"),
    ("b16", "aws", {}, cf("Service", "Amazon Elastic Compute Cloud - Compute"), {}, None,
     "EC2 compute service: covers"),
    ("b17", "aws", {}, cf("Service", "EC2 - Other"), {SPEND: "fail"}, None,
     "EC2 - Other: out"),
    ("b18", "aws", {}, cf("LinkedAccount", "123456789012"), {SPEND: "undecided"}, None,
     "LinkedAccount the program does not show: cannot decide"),
    ("b19", "aws", {}, cf("CostCategory", "ml"), {SPEND: "undecided"}, None,
     "an unread filter name: cannot decide"),
    ("b20", "aws", {}, _chain(cf("CostCategory", "ml"), budget2("all", "50000")), {}, None,
     "hmm: CostCategory budget 20,000 may be the cap; it is above the most it would cover "
     "(~12,141): changes no verdict; the 50,000 budget covers"),
    ("b21", "aws", {}, budget_set(limitUnit="CNY", limitAmount="150000"), {}, None,
     "150,000 CNY / 7.2734 = 20,623 USD > ~12,141"),
    ("b22", "aws", {}, budget_set(limitUnit="CNY", limitAmount="80000"), {SPEND: "fail"},
     None, "80,000 CNY = 10,999 USD < ~12,141"),
    ("b23", "aws", {}, budget_set(limitUnit="EUR"), {SPEND: "undecided"}, None,
     "no cited EUR rate: cannot decide"),
    ("b24", "aws", {}, budget_set(budgetType="USAGE"), {SPEND: "fail"}, None,
     "USAGE budget is no spend limit: no alarm"),
    ("b25", "aws", {}, budget_set(notifications=[]), {SPEND: "fail"}, None,
     "notifies no one"),
    ("b26", "aws", {}, budget_set(limitAmount="20,000"), {SPEND: "fail"}, None,
     "'20,000' is no number"),
    ("b27", "aws", {}, budget_set(limitAmount="0"), {SPEND: "fail"}, None, "zero budget"),
    ("b28", "aws", {}, _chain(cf("InstanceType", "p5.48xlarge"),
                              budget_set(limitAmount="10000"), budget2("all", "50000")),
     {SPEND: "fail"}, None, "the smallest covering budget 10,000 < ~12,141"),
    ("b29", "aws", {}, _chain(cf("InstanceType", "g5.xlarge"), budget_set(limitAmount="10000"),
                              budget2("all", "50000")), {}, None,
     "the 10,000 budget leaves the GPUs out: cap 50,000"),
    ("b30", "aws", {}, None, {SPEND: "fail"}, MAXM(15000),
     "maxMonthlyUsd 15,000 with a 20,000 budget: the budget is above the cap"),
    ("b31", "aws", {"budget": "14000"}, None, {}, MAXM(15000), "budget 14,000 under 15,000"),
    ("b32", "aws", {"budget": "14000"}, None, {SPEND: "fail"}, MAXM(10000),
     "estimate ~12,141 > maxMonthlyUsd 10,000"),
    ("b33", "aws", {}, budget_set(timePeriodStart="2099-01-01_00:00"), {SPEND: "fail"}, None,
     "period not begun: no alarm"),
    ("b34", "aws", {}, cf("InstanceType", unknown()), {SPEND: "undecided"}, None,
     "filter value unknown at preview: not the cap, alarm cannot decide"),
    # ---- malformed and the max-hours tag
    ("m01", "aws", {"max_size": "two"}, None, {SPEND: "fail"}, None, "maxSize 'two'"),
    ("m02", "aws", {"max_size": -1.0}, None, {SPEND: "fail"}, None, "maxSize -1"),
    ("m03", "aws", {"max_size": True}, None, {SPEND: "fail"}, None, "maxSize true"),
    ("m04", "aws", {"itype": ["p5.48xlarge"]}, None, {SPEND: "fail", RDMA: "undecided"}, None,
     "instanceType as a list: a type that cannot be read; rdma: its fabric rests on a type it "
     "cannot read: cannot decide (MY MISTAKE: left out on the first run)"),
    ("m05", "aws", {"itype": " p5.48xlarge "}, None, {}, None, "whitespace stripped"),
    ("m06", "aws", {"itype": "P5.48XLARGE"}, None, {SPEND: ("fail", "pass"), RDMA: "advisory"},
     None,
     "hmm: upper-case AWS type: EC2 type names are lower case; the catalog does not list it: "
     "unpriceable -> fail (or priced as p5). rdma (MY MISTAKE): 'A type the catalog does not "
     "list ... may have an RDMA fabric, so a group of more than one node of it is asked'"),
]


def max_hours(value: str, where: str = "asg"):
    def mutate(s):
        if where == "asg":
            named(s, "train-nodes").props["tags"].append(
                {"key": "trainstack:max-hours", "value": value, "propagateAtLaunch": True})
        else:
            named(s, "train-lt").props["tagSpecifications"][0]["tags"][
                "trainstack:max-hours"] = value
        return s
    return mutate


CASES_3 += [
    ("m07", "aws", {}, max_hours(""), {}, None, "blank tag: no tag"),
    ("m08", "aws", {}, max_hours("   "), {}, None, "spaces only: no tag"),
    ("m09", "aws", {}, max_hours("", where="lt"), {}, None, "blank on the template: no tag"),
    ("m10", "aws", {}, max_hours("0"), {SPEND: "fail"}, None, "zero"),
    ("m11", "aws", {}, max_hours("abc"), {SPEND: "fail"}, None, "no number"),
    ("m12", "aws", {}, max_hours("-5", where="lt"), {}, None,
     "MY MISTAKE: a tag in the template's tagSpecifications (instance tags) is not 'the launch "
     "template's tag' (its own `tags`, which the pack reads: probed); not read, no finding"),
    ("m13", "aws", {"hours": None}, max_hours("1"), {SPEND: "fail"}, None,
     "a 1 h tag never shortens: the month"),
    ("m14", "aws", {}, max_hours("1"), {}, None, "1 h tag with the 96 h stop: ~12,141"),
    ("m15", "aws", {}, _chain(max_hours(""), max_hours("0", where="lt")), {},
     None, "MY MISTAKE as m12: 0 in the template's tagSpecifications is no template tag"),
    ("m16", "aws", {}, max_hours("NaN"), {SPEND: "fail"}, None, "NaN"),
    ("m17", "aws", {"hours": None}, max_hours(""), {SPEND: "fail"}, None,
     "blank tag, no stop: the month as without the tag"),
]


# ---- AWS Batch compute environments (a data-prep / eval CE beside the training ASG)
def batch_ce(types, zone: str = "us-east-1c", mounts=("scratch",), own_fs: bool = False,
             max_vcpus: float = 256.0, strategy: Optional[str] = None, literal=None,
             on_base_subnet: bool = False):
    def build(s):
        out = []
        if on_base_subnet:
            sub = named(s, "train-a")
        else:
            sub = res("aws:ec2/subnet:Subnet", "prep-c", {"availabilityZone": zone,
                                                          "vpcId": "vpc-1",
                                                          "cidrBlock": "10.0.3.0/24",
                                                          "tags": dict(TAGS)})
            out.append(sub)
        pool = s + out
        if own_fs:
            out.append(res("aws:fsx/lustreFileSystem:LustreFileSystem", "home", {
                "subnetIds": [unknown()], "storageCapacity": 1200.0,
                "deploymentType": "PERSISTENT_2", "perUnitStorageThroughput": 125.0,
                "tags": dict(TAGS)}, deps={"subnetIds": [sub]}))
            pool = s + out
        names = list(mounts) + (["home"] if own_fs else [])
        lt = res("aws:ec2/launchTemplate:LaunchTemplate", "ce-lt", {
            "userData": "IyEvYmluL2Jhc2g=", "tags": dict(TAGS),
            "blockDeviceMappings": [{"deviceName": "/dev/xvda", "ebs": {
                "volumeSize": 100.0, "encrypted": "true"}}]},
            deps={"userData": [named(pool, n) for n in names]} if names else None)
        out.append(lt)
        cr = {"type": "EC2", "maxVcpus": max_vcpus, "minVcpus": 0.0,
              "instanceTypes": list(types), "subnets": literal or [unknown()],
              "securityGroupIds": ["sg-0batch"], "instanceRole": "arn:aws:iam::1:instance-profile/b",
              "launchTemplate": {"launchTemplateId": unknown()}, "tags": dict(TAGS)}
        if strategy:
            cr["allocationStrategy"] = strategy
        ce = res("aws:batch/computeEnvironment:ComputeEnvironment", "prep-ce", {
            "type": "MANAGED", "computeResources": cr, "tags": dict(TAGS)},
            deps={"computeResources": ([] if literal else [sub]) + [lt]})
        return out + [ce]
    return _add(build)


CASES_4 = [
    ("e01", "aws", {}, batch_ce(["optimal"], mounts=(), own_fs=True), {}, None,
     "CPU CE (optimal) on 1c with its own 1c FSx: not judged, never priced"),
    ("e02", "aws", {}, batch_ce(["optimal", "p4d.24xlarge"], mounts=(), own_fs=True),
     {SPEND: "fail"}, None, "optimal + p4d: GPU compute, its own 1c FSx in its zone (storage "
                            "passes), not sized (spend fails closed)"),
    ("e03", "aws", {}, batch_ce(["optimal", "g5.xlarge"]), {SPEND: "fail", SSZ: "fail"}, None,
     "optimal + g5.xlarge on 1c mounting the 1a scratch: a GPU group in another zone"),
    ("e04", "aws", {}, batch_ce(["c5.large"]), {}, None,
     "c5.large CE on 1c mounting the 1a scratch: CPU, not judged"),
    ("e05", "aws", {"budget": "50000"}, batch_ce(["p4d.24xlarge"], max_vcpus=192.0,
                                                 strategy="BEST_FIT_PROGRESSIVE",
                                                 on_base_subnet=True),
     {SPEND: "fail"}, None, "ceil(192/96)+1 = 3 x 21.9576 x 730 = 48,087 + ~12,141 > 50,000"),
    ("e06", "aws", {"budget": "50000"}, batch_ce(["p4d.24xlarge"], max_vcpus=192.0,
                                                 on_base_subnet=True), {}, None,
     "BEST_FIT default: 2 x 21.9576 x 730 = 32,058 + ~12,141 = ~44,200 < 50,000"),
    ("e07", "aws", {"budget": "50000"}, batch_ce(["p4d.24xlarge"], max_vcpus=192.0),
     {SSZ: "fail"}, None, "the p4d CE on 1c mounting the 1a scratch: span"),
    ("e08", "aws", {}, batch_ce(["g5"], mounts=(), on_base_subnet=True), {SPEND: "fail"}, None,
     "a GPU family only: cannot be estimated"),
    ("e09", "aws", {"budget": "50000"}, batch_ce(["p4d.24xlarge"], max_vcpus=96.0,
                                                 literal=["subnet-0lit"]),
     {SSZ: "undecided"}, None, "literal subnet, no zones config: cannot decide"),
    ("e10", "aws", {"budget": "50000"}, batch_ce(["p4d.24xlarge"], max_vcpus=96.0,
                                                 literal=["subnet-0lit"]), {},
     ZONES({"subnet-0lit": "us-east-1a"}), "told 1a: same zone"),
    ("e11", "aws", {"budget": "50000"}, batch_ce(["p4d.24xlarge"], max_vcpus=96.0,
                                                 literal=["subnet-0lit"]), {SSZ: "fail"},
     ZONES({"subnet-0lit": "us-east-1c"}), "told 1c: span"),
    ("e12", "aws", {}, batch_ce(["optimal", "p4d.24xlarge"], mounts=()), {SPEND: "fail"},
     None, "GPU CE on 1c mounting nothing: scratch is the ASG's (mounts it): storage passes"),
    ("e13", "aws", {}, batch_ce(["m5.large", "c5.xlarge"], mounts=("scratch",), own_fs=True),
     {}, None, "CPU-only CE mounting both: neither judged against it"),
]


# ---- aws-native ELBv2 beside classic
def elb(native_lb=True, scheme: Optional[str] = "internet-facing", native_tg=True,
        native_ls=True, rule=False, lb_type="application", link=True, classic_rule=False):
    def build(s):
        if native_lb:
            p = {"type": lb_type, "subnets": ["subnet-pub1", "subnet-pub2"], "tags": _awsn_tags()}
            if scheme is not None:
                p["scheme"] = scheme
            lb = res("aws-native:elasticloadbalancingv2:LoadBalancer", "web", p)
        else:
            lb = res("aws:lb/loadBalancer:LoadBalancer", "web", {
                "loadBalancerType": lb_type, "internal": scheme == "internal",
                "subnets": ["subnet-pub1", "subnet-pub2"], "tags": dict(TAGS)})
        if native_tg:
            tg = res("aws-native:elasticloadbalancingv2:TargetGroup", "web-tg", {
                "protocol": "HTTP", "port": 8000, "vpcId": "vpc-1", "targetType": "instance",
                "tags": _awsn_tags()})
        else:
            tg = res("aws:lb/targetGroup:TargetGroup", "web-tg", {
                "port": 8000.0, "protocol": "HTTP", "vpcId": "vpc-1", "tags": dict(TAGS)})
        fwd = [{"type": "forward", "targetGroupArn": unknown()}]
        fixed = [{"type": "fixed-response", "fixedResponseConfig": {"statusCode": "404"}}]
        ls = res("aws-native:elasticloadbalancingv2:Listener" if native_ls
                 else "aws:lb/listener:Listener", "web-https", {
                     "loadBalancerArn": unknown(), "port": 443, "protocol": "HTTPS",
                     "certificates": [{"certificateArn": "arn:aws:acm:us-east-1:1:certificate/x"}],
                     "defaultActions": fixed if (rule or classic_rule) else fwd},
                 deps={"loadBalancerArn": [lb],
                       **({} if (rule or classic_rule) else {"defaultActions": [tg]})})
        out = [lb, tg, ls]
        if rule:
            out.append(res("aws-native:elasticloadbalancingv2:ListenerRule", "web-api", {
                "listenerArn": unknown(), "priority": 10,
                "conditions": [{"field": "path-pattern", "values": ["/v1/*"]}],
                "actions": [{"type": "forward", "forwardConfig": {"targetGroups": [
                    {"targetGroupArn": unknown(), "weight": 1}]}}]},
                deps={"listenerArn": [ls], "actions": [tg]}))
        if classic_rule:
            out.append(res("aws:lb/listenerRule:ListenerRule", "web-api", {
                "listenerArn": unknown(), "priority": 10.0,
                "conditions": [{"pathPattern": {"values": ["/v1/*"]}}],
                "actions": [{"type": "forward", "targetGroupArn": unknown()}]},
                deps={"listenerArn": [ls], "actions": [tg]}))
        if link:
            asg = named(s, "train-nodes")
            asg.props["targetGroupArns"] = [unknown()]
            asg.deps["targetGroupArns"] = [tg]
        return out
    return _add(build)


def ga(native=False, lb_scheme="internal"):
    def build(s):
        lb = res("aws-native:elasticloadbalancingv2:LoadBalancer", "inner", {
            "type": "application", "scheme": lb_scheme, "subnets": ["a", "b"],
            "tags": _awsn_tags()})
        tg = res("aws-native:elasticloadbalancingv2:TargetGroup", "inner-tg", {
            "protocol": "HTTP", "port": 8000, "vpcId": "vpc-1", "targetType": "instance",
            "tags": _awsn_tags()})
        ls = res("aws-native:elasticloadbalancingv2:Listener", "inner-l", {
            "loadBalancerArn": unknown(), "port": 80, "protocol": "HTTP",
            "defaultActions": [{"type": "forward", "targetGroupArn": unknown()}]},
            deps={"loadBalancerArn": [lb], "defaultActions": [tg]})
        asg = named(s, "train-nodes")
        asg.props["targetGroupArns"] = [unknown()]
        asg.deps["targetGroupArns"] = [tg]
        eg = res("aws-native:globalaccelerator:EndpointGroup" if native
                 else "aws:globalaccelerator/endpointGroup:EndpointGroup", "ga-eg", {
                     "listenerArn": "arn:aws:globalaccelerator::1:accelerator/a/listener/l",
                     "endpointGroupRegion": "us-east-1",
                     "endpointConfigurations": [{"endpointId": unknown(), "weight": 100}]},
                 deps={"endpointConfigurations": [lb]})
        return [lb, tg, ls, eg]
    return _add(build)


def apigw(conn="VPC_LINK"):
    def build(s):
        lb = res("aws-native:elasticloadbalancingv2:LoadBalancer", "inner", {
            "type": "application", "scheme": "internal", "subnets": ["a", "b"],
            "tags": _awsn_tags()})
        tg = res("aws-native:elasticloadbalancingv2:TargetGroup", "inner-tg", {
            "protocol": "HTTP", "port": 8000, "vpcId": "vpc-1", "targetType": "instance",
            "tags": _awsn_tags()})
        ls = res("aws-native:elasticloadbalancingv2:Listener", "inner-l", {
            "loadBalancerArn": unknown(), "port": 80, "protocol": "HTTP",
            "defaultActions": [{"type": "forward", "targetGroupArn": unknown()}]},
            deps={"loadBalancerArn": [lb], "defaultActions": [tg]})
        asg = named(s, "train-nodes")
        asg.props["targetGroupArns"] = [unknown()]
        asg.deps["targetGroupArns"] = [tg]
        props = {"apiId": "api-1", "integrationType": "HTTP_PROXY", "integrationMethod": "ANY",
                 "connectionType": conn, "payloadFormatVersion": "1.0"}
        deps = None
        if conn == "VPC_LINK":
            props.update(connectionId="vl-1", integrationUri=unknown())
            deps = {"integrationUri": [ls]}
        else:
            props["integrationUri"] = "https://example.com/api"
        integ = res("aws:apigatewayv2/integration:Integration", "api-int", props, deps=deps)
        return [lb, tg, ls, integ]
    return _add(build)


CASES_4 += [
    ("l01", "aws", {}, elb(), {NPI: "fail"}, None,
     "aws-native internet ALB + native listener -> native TG the classic ASG registers in"),
    ("l02", "aws", {}, elb(scheme="internal"), {}, None, "internal: passes"),
    ("l03", "aws", {}, elb(scheme=None), {NPI: "fail"}, None, "scheme left out: internet-facing"),
    ("l04", "aws", {}, elb(rule=True), {NPI: "fail"}, None,
     "native ListenerRule forwardConfig.targetGroups to the TG (default action fixed)"),
    ("l05", "aws", {}, elb(rule=True, scheme="internal"), {}, None, "same, internal"),
    ("l06", "aws", {}, elb(native_lb=False, native_ls=False), {NPI: "fail"}, None,
     "classic internet ALB + classic listener -> aws-native TG"),
    ("l07", "aws", {}, elb(native_tg=False), {NPI: "fail"}, None,
     "native ALB + native listener -> classic TG"),
    ("l08", "aws", {}, elb(native_tg=False, classic_rule=True), {NPI: "fail"}, None,
     "native ALB/listener + a classic ListenerRule to a classic TG"),
    ("l09", "aws", {}, elb(lb_type="gateway", scheme=None), {}, None,
     "a gateway balancer has no scheme: not internet-facing"),
    ("l10", "aws", {}, elb(link=False), {}, None, "internet ALB to a TG no GPU node joins"),
    ("l11", "aws", {}, elb(native_lb=False, native_ls=False, scheme="internal",
                           native_tg=True), {}, None, "classic internal ALB -> native TG"),
    ("l12", "aws", {}, ga(), {NPI: "fail"}, None, "GA endpoint on an internal native ALB"),
    ("l13", "aws", {}, ga(native=True), {NPI: "fail"}, None, "aws-native GA EndpointGroup"),
    ("l14", "aws", {}, apigw(), {NPI: "fail"}, None,
     "HTTP API VPC_LINK integration to the internal listener"),
    ("l15", "aws", {}, apigw(conn="INTERNET"), {}, None, "INTERNET integration: nothing private"),
]


# ---- public exposure
def eip_on_vm():
    return _add(lambda s: res("aws:ec2/eip:Eip", "dev-ip", {"domain": "vpc", "instance": unknown(),
                                                            "tags": dict(TAGS)},
                              deps={"instance": [named(s, "dev")]}))


def public_nat(asg_in: bool = False, asg_public_off: bool = True):
    def build(s):
        pub = res("aws:ec2/subnet:Subnet", "public-a", {
            "availabilityZone": "us-east-1a", "vpcId": "vpc-1", "cidrBlock": "10.0.0.0/24",
            "mapPublicIpOnLaunch": True, "tags": dict(TAGS)})
        eip = res("aws:ec2/eip:Eip", "nat-ip", {"domain": "vpc", "tags": dict(TAGS)})
        nat = res("aws:ec2/natGateway:NatGateway", "nat", {
            "subnetId": unknown(), "allocationId": unknown(), "tags": dict(TAGS)},
            deps={"subnetId": [pub], "allocationId": [eip]})
        if asg_in:
            asg = named(s, "train-nodes")
            asg.deps["vpcZoneIdentifiers"] = [pub]
            if not asg_public_off:
                for nic in named(s, "train-lt").props["networkInterfaces"]:
                    nic.pop("associatePublicIpAddress", None)
        return [pub, eip, nat]
    return _add(build)


def ingress(cidr: str, port: float, proto: str = "tcp", prefix: Optional[list] = None):
    def build(s):
        out = []
        props = {"securityGroupId": unknown(), "ipProtocol": proto, "fromPort": port,
                 "toPort": port, "tags": dict(TAGS)}
        deps = {"securityGroupId": [named(s, "train-sg")]}
        if prefix is not None:
            pl = res("aws:ec2/managedPrefixList:ManagedPrefixList", "office", {
                "name": "office", "addressFamily": "IPv4", "maxEntries": 5.0,
                "entries": [{"cidr": c} for c in prefix], "tags": dict(TAGS)})
            out.append(pl)
            props["prefixListId"] = unknown()
            deps["prefixListId"] = [pl]
        else:
            props["cidrIpv4"] = cidr
        out.append(res("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule",
                       f"in-{int(port)}", props, deps=deps))
        return out
    return _add(build)


SSH_OPEN = {NPI: {"sshCidrs": ["0.0.0.0/0"]}}


def lt_nic_public():
    def mutate(s):
        named(s, "train-lt").props["networkInterfaces"][0]["associatePublicIpAddress"] = "true"
        return s
    return mutate


# ---- EKS managed node group on the base template (the ASG and its stop replaced)
def eks(zone_c: bool = False, lt_tags: bool = True, max_size: Any = 2.0):
    def mutate(s):
        s = [r for r in s if r.name not in ("train-nodes", "train-stop")]
        out = []
        sub = named(s, "train-a")
        if zone_c:
            sub = res("aws:ec2/subnet:Subnet", "train-c", {"availabilityZone": "us-east-1c",
                                                           "vpcId": "vpc-1",
                                                           "cidrBlock": "10.0.4.0/24",
                                                           "tags": dict(TAGS)})
            out.append(sub)
        lt = named(s, "train-lt")
        if not lt_tags:
            lt.props.pop("tagSpecifications")
        ng = res("aws:eks/nodeGroup:NodeGroup", "gpu-ng", {
            "clusterName": "train", "nodeRoleArn": "arn:aws:iam::1:role/node",
            "subnetIds": [unknown()], "amiType": "AL2023_x86_64_NVIDIA",
            "scalingConfig": {"desiredSize": 2.0, "maxSize": max_size, "minSize": 0.0},
            "launchTemplate": {"id": unknown(), "version": "$Latest"}, "tags": dict(TAGS)},
            deps={"subnetIds": [sub], "launchTemplate": [lt]})
        return s + out + [ng]
    return mutate


def hyperpod(itype: str = "ml.p5.48xlarge", count: float = 2.0):
    return _new("aws-native:sagemaker:Cluster", "hyperpod", {
        "clusterName": "hp-train",
        "instanceGroups": [{"instanceGroupName": "workers", "instanceType": itype,
                            "instanceCount": count,
                            "executionRole": "arn:aws:iam::1:role/hp",
                            "lifeCycleConfig": {"sourceS3Uri": "s3://datasets/lcc/",
                                                "onCreate": "on_create.sh"}}],
        "vpcConfig": {"securityGroupIds": ["sg-1"], "subnets": ["subnet-0lit"]},
        "tags": _awsn_tags()})


def fsx_literal():
    def mutate(s):
        fs = named(s, "scratch")
        fs.props["subnetIds"] = ["subnet-0abc"]
        fs.deps.pop("subnetIds", None)
        return s
    return mutate


E100 = {"budget": "100000", "hours": None}
CASES_5 = [
    ("p01", "aws", {}, _chain(gpu_vm(stop="AWS-StopEC2Instance"), eip_on_vm()),
     {NPI: "fail"}, None, "an EIP on the GPU instance"),
    ("p02", "aws", {}, public_nat(), {}, None, "public subnet used only by a NAT gateway"),
    ("p03", "aws", {}, public_nat(asg_in=True, asg_public_off=False), {NPI: "fail"}, None,
     "the GPU ASG also in the public subnet, template interfaces not saying false"),
    ("p04", "aws", {}, ingress("0.0.0.0/0", 443.0), {NPI: "fail"}, None, "HTTPS from anywhere"),
    ("p05", "aws", {}, ingress("0.0.0.0/0", 22.0), {NPI: "fail"}, None, "SSH from anywhere"),
    ("p06", "aws", {}, ingress("0.0.0.0/0", 22.0), {}, SSH_OPEN, "SSH allowed by sshCidrs"),
    ("p07", "aws", {}, ingress("", 443.0, prefix=["0.0.0.0/0"]), {NPI: "fail"}, None,
     "a managed prefix list holding 0.0.0.0/0 as the rule's source"),
    ("p08", "aws", {}, ingress("", 443.0, prefix=["10.0.0.0/8"]), {}, None, "private list"),
    ("p09", "aws", {}, lt_nic_public(), {NPI: "fail"}, None, "template interface 'true'"),
    ("p10", "aws", {}, ingress("10.20.0.0/16", 443.0), {}, None, "private source"),
    ("p11", "aws", {}, ingress("::/0", 443.0), {NPI: ("pass", "fail")}, None,
     "cidrIpv4 '::/0' is no IPv4 CIDR (AWS would refuse); either verdict, no crash"),
    # ---- EKS
    ("n01", "aws", E100, eks(), {}, None,
     "EKS node group of 2 p5 on the EFA template: 80,358 + ~1,575 < 100,000"),
    ("n02", "aws", E100, eks(zone_c=True), {SSZ: "fail"}, None,
     "the node group on a 1c subnet mounting the 1a scratch"),
    ("n03", "aws", E100, _chain(eks(), cf("TagKeyValue", "user:team$research")), {}, None,
     "the nodes carry the template's instance tags"),
    ("n04", "aws", E100, _chain(eks(lt_tags=False), cf("TagKeyValue", "user:team$research")),
     {SPEND: "fail"}, None, "node group tags do not reach the instances: no alarm"),
    ("n05", "aws", E100, eks(max_size="x"), {SPEND: "fail"}, None, "maxSize 'x'"),
    ("n06", "aws", {"hours": None}, eks(), {SPEND: "fail"}, None, "~81,933 > 20,000"),
    # ---- HyperPod
    ("h01", "aws", {}, hyperpod(), {SPEND: "fail"}, None,
     "HyperPod ml.p5.48xlarge: a GPU type in a type field, not estimable"),
    ("h02", "aws", {}, hyperpod(itype="ml.c5.xlarge"), {}, None, "CPU HyperPod: nothing"),
    # ---- zones config on a literal FSx subnet
    ("z01", "aws", {}, fsx_literal(), {SSZ: "undecided"}, None, "literal FSx subnet, untold"),
    ("z02", "aws", {}, fsx_literal(), {}, ZONES({"subnet-0abc": "us-east-1a"}), "told 1a"),
    ("z03", "aws", {}, fsx_literal(), {SSZ: "fail"}, ZONES({"subnet-0abc": "us-east-1b"}),
     "told 1b"),
    ("z04", "aws", {}, fsx_literal(), {SSZ: "undecided"}, ZONES({"subnet-0abc": "use1-az4"}),
     "AZ ID vs the nodes' zone name: cannot decide"),
    ("z05", "aws", {}, fsx_literal(), {SSZ: "fail"},
     ZONES({"subnet-0abc": "us-east-1-bos-1a"}), "a Local Zone name: another zone"),
    ("z06", "aws", {}, fsx_literal(), {SSZ: "undecided"},
     ZONES({"subnet-0abc": "use1-bos1-az1"}), "a Local Zone AZ ID: cannot decide"),
    ("z07", "aws", {}, fsx_literal(), {SSZ: "fail"},
     ZONES({"subnet-0abc": "us-east-1-wl1-bos-wlz-1"}), "a Wavelength Zone name: another"),
    ("z08", "aws", {}, fsx_literal(), {SSZ: "undecided"},
     ZONES({"subnet-0abc": "use1-wl1-bos-wlz1"}), "a Wavelength AZ ID: cannot decide"),
    ("z09", "aws", {}, fsx_literal(), {SSZ: "undecided"},
     ZONES({"subnet-0other": "us-east-1a"}), "told another id only: still untold"),
]


# the `zones` values: (id, value, accepted)
ZONE_VALUES = [
    ("v01", "us-east-1a", True), ("v02", "us-gov-west-1a", True),
    ("v03", "us-west-2-lax-1a", True), ("v04", "us-east-1-wl1-bos-wlz-1", True),
    ("v05", "use1-az4", True), ("v06", "use1-bos1-az1", True),
    ("v07", "use1-wl1-bos-wlz1", True), ("v08", "ap-southeast-1a", True),
    ("v09", "cn-shanghai-finance-1z", True), ("v10", "cn-hangzhou-h", True),
    ("v11", "us-central1-a", True), ("v12", "2", True), ("v13", "eu-central-1b", True),
    ("v14", "usw2-az1", True), ("v15", "aps1-az3", True), ("v16", "me-central-1a", True),
    ("r01", "banana", False), ("r02", "us-east-1", False), ("r03", "US-EAST-1A", False),
    ("r04", "", False), ("r05", "https://www.googleapis.com/compute/v1/projects/p/zones/"
                                "us-central1-a", False),
    ("r06", "use1-az", False), ("r07", "4", False), ("r08", " us-east-1a", False),
]


@pytest.mark.parametrize("case", _params(CASES_1), ids=[c[0] for c in CASES_1])
def test_batch1(pack, case):
    _run_case(pack, case)


@pytest.mark.parametrize("case", _params(CASES_2), ids=[c[0] for c in CASES_2])
def test_batch2(pack, case):
    _run_case(pack, case)


@pytest.mark.parametrize("case", _params(CASES_3), ids=[c[0] for c in CASES_3])
def test_batch3(pack, case):
    _run_case(pack, case)


@pytest.mark.parametrize("case", _params(CASES_4), ids=[c[0] for c in CASES_4])
def test_batch4(pack, case):
    _run_case(pack, case)


@pytest.mark.parametrize("case", _params(CASES_5), ids=[c[0] for c in CASES_5])
def test_batch5(pack, case):
    _run_case(pack, case)


@pytest.mark.parametrize("case", ZONE_VALUES, ids=[c[0] for c in ZONE_VALUES])
def test_zone_values(pack, case):
    """Docs (storage-same-zone, Config `zones`): every listed form is taken; 'Any other value
    ... is refused by the policy's schema: ... the pack's Configure (INVALID_ARGUMENT over
    gRPC) stop with a message naming zones.<id>'. An accepted value on an id the stack does not
    use leaves the base stack passing."""
    import grpc
    import jsonschema
    cid, value, accepted = case
    given = {SSZ: {"zones": {"subnet-0zz": value}}}
    if accepted:
        found = run(pack, aws(), given, AWS_P)
        got = {p: verdict(found, p) for p in POLICIES}
        assert all(v == "pass" for v in got.values()), (cid, got)
        return
    config = pack.cli_config()
    config[SSZ]["zones"] = {"subnet-0zz": value}
    with pytest.raises(grpc.RpcError) as err:
        pack.send_config(config)
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT, (cid, err.value.details())
    assert "zones" in err.value.details(), (cid, err.value.details())
    with pytest.raises((jsonschema.ValidationError, grpc.RpcError)):
        pack.configure(given)   # the CLI's own schema check refuses it too (or Configure does)
    pack.configure(None)


# ---------------------------------------------------------------------------- batch 6 (edges)
def crg_native_deps(n_entries: int, extra_dep: bool = False):
    """An aws-native CR group whose `resources` hold n unknown entries that depend on the one
    ODCR (and, with extra_dep, on a KMS key too)."""
    def build(s):
        deps = [named(s, "p5-odcr")]
        out = []
        if extra_dep:
            key = res("aws:kms/key:Key", "k", {"description": "x", "tags": dict(TAGS)})
            out.append(key)
            deps.append(key)
        return out + [res("aws-native:resourcegroups:Group", "p5-pool", {
            "name": "p5-pool", "configuration": POOL_CFG, "tags": _awsn_tags(),
            "resources": [unknown() for _ in range(n_entries)]}, deps={"resources": deps})]
    return _add(build)


def vm_in_pool():
    """The ASG replaced by one p5 instance whose capacityReservationSpecification targets the
    CR group by dependency."""
    def mutate(s):
        s = gpu_vm(stop=None)(s)
        vm = named(s, "dev")
        vm.props["capacityReservationSpecification"] = {"capacityReservationTarget": {
            "capacityReservationResourceGroupArn": unknown()}}
        vm.deps["capacityReservationSpecification"] = [named(s, "p5-pool")]
        return s
    return mutate


def lt_spot():
    def mutate(s):
        named(s, "train-lt").props["instanceMarketOptions"] = {"marketType": "spot"}
        return s
    return mutate


def native_asg(internal: bool):
    """A 1-node g5.xlarge aws-native AutoScalingGroup (inference) on the base subnet, in a
    classic target group behind a classic ALB."""
    def build(s):
        lt = res("aws:ec2/launchTemplate:LaunchTemplate", "inf-lt", {
            "instanceType": "g5.xlarge", "tags": dict(TAGS),
            "networkInterfaces": [{"deviceIndex": 0.0, "associatePublicIpAddress": "false"}],
            "tagSpecifications": [{"resourceType": "instance", "tags": dict(TAGS)}]})
        lb = res("aws:lb/loadBalancer:LoadBalancer", "inf-lb", {
            "loadBalancerType": "application", "internal": internal,
            "subnets": ["subnet-pub1", "subnet-pub2"], "tags": dict(TAGS)})
        tg = res("aws:lb/targetGroup:TargetGroup", "inf-tg", {
            "port": 8000.0, "protocol": "HTTP", "vpcId": "vpc-1", "tags": dict(TAGS)})
        ls = res("aws:lb/listener:Listener", "inf-l", {
            "loadBalancerArn": unknown(), "port": 80.0, "protocol": "HTTP",
            "defaultActions": [{"type": "forward", "targetGroupArn": unknown()}]},
            deps={"loadBalancerArn": [lb], "defaultActions": [tg]})
        asg = res("aws-native:autoscaling:AutoScalingGroup", "inf-asg", {
            "minSize": "0", "maxSize": "1", "desiredCapacity": "1",
            "launchTemplate": {"launchTemplateId": unknown(), "version": "1"},
            "vpcZoneIdentifier": [unknown()], "targetGroupArns": [unknown()],
            "tags": [{"key": k, "value": v, "propagateAtLaunch": True} for k, v in TAGS.items()]},
            deps={"launchTemplate": [lt], "vpcZoneIdentifier": [named(s, "train-a")],
                  "targetGroupArns": [tg]})
        return [lt, lb, tg, ls, asg]
    return _add(build)


def az_id_subnet():
    def mutate(s):
        sub = named(s, "train-a")
        sub.props.pop("availabilityZone")
        sub.props["availabilityZoneId"] = "use1-az4"
        return s
    return mutate


def lt_own_max_hours(v: str):
    def mutate(s):
        named(s, "train-lt").props["tags"]["trainstack:max-hours"] = v
        return s
    return mutate


CASES_6 = [
    ("c25", "aws", NOSTOP, _chain(odcr(), crg_native_deps(2), lt_target()), {SPEND: "fail"},
     None, "two unknown entries on one ODCR: not 'as many ODCRs': adds nothing: twice"),
    ("c26", "aws", NOSTOP, _chain(odcr(), crg_native_deps(1, extra_dep=True), lt_target()),
     {SPEND: "fail"}, None, "the entry depends on a KMS key too ('and on nothing else'): twice"),
    ("c27", "aws", NOSTOP, _chain(odcr(), crg_native_deps(1), lt_target()), {}, None,
     "one entry on the one ODCR: once"),
    ("c28", "aws", NOSTOP, _chain(odcr(), crg(), crg_member(group_dep=False,
                                                            group_lit=POOL_ARN), lt_target()),
     {}, None, "the Resource names the group by its literal ARN (its name, its region): once"),
    ("c29", "aws", {"hours": None, "budget": "50000"}, _chain(
        odcr(count=1.0), crg(), crg_member(), vm_in_pool()), {}, None,
     "one p5 instance in a 1-node ODCR through the group: 40,179 + ~1,575 < 50,000 (twice "
     "80,358)"),
    ("c30", "aws", {"hours": None, "budget": "50000"}, _chain(
        odcr(count=1.0), crg(), vm_in_pool()), {SPEND: "fail"}, None,
     "no Resource adds the ODCR to the group: twice, 80,358 > 50,000"),
    ("c31", "aws", NOSTOP, _chain(odcr(match="open"), lt_spot()), {SPEND: "fail"}, None,
     "spot nodes use no ODCR: 80,358 reserved + 2 x p5 spot (55.04) x 730 = 80,358: ~162,291"),
    ("l16", "aws", {}, native_asg(internal=False), {NPI: "fail"}, None,
     "an aws-native g5 ASG registering in a classic TG behind an internet ALB"),
    ("l17", "aws", {}, native_asg(internal=True), {}, None,
     "same behind an internal ALB: 1 x 1.006 x 730 = 734 more, ~12,900 < 20,000"),
    ("e14", "aws", {"budget": "15500"}, batch_ce(["g5.xlarge"], max_vcpus=16.0, mounts=(),
                                                 on_base_subnet=True), {}, None,
     "BEST_FIT: ceil(16/4) = 4 x 1.006 x 730 = 2,937.52 + ~12,141-12,251 < 15,500"),
    ("e15", "aws", {"budget": "15500"}, batch_ce(["g5.xlarge"], max_vcpus=16.0, mounts=(),
                                                 on_base_subnet=True,
                                                 strategy="SPOT_CAPACITY_OPTIMIZED"),
     {SPEND: "fail"}, None, "hmm: EC2 with a non-BEST_FIT strategy: 5 x 1.006 x 730 = 3,671.90 "
                            "+ ~12,141 = ~15,813 > 15,500"),
    ("e16", "aws", {"budget": "50000"}, _chain(
        batch_ce(["p4d.24xlarge"], max_vcpus=96.0, mounts=(), on_base_subnet=True),
        cf("InstanceType", "p5.48xlarge")), {SPEND: "fail"}, None,
     "the budget filtered on p5 leaves the p4d CE out: no alarm for it"),
    ("e17", "aws", {"budget": "50000"}, _chain(
        batch_ce(["p4d.24xlarge"], max_vcpus=96.0, mounts=(), on_base_subnet=True),
        cf("InstanceType", "p5.48xlarge", "p4d.24xlarge")), {}, None,
     "both types: 1 x 21.9576 x 730 = 16,029 + ~12,141 < 50,000"),
    ("z10", "aws", {}, _chain(az_id_subnet(), fsx_literal()), {},
     ZONES({"subnet-0abc": "use1-az4"}), "ID-only nodes' subnet, FSx told the same AZ ID"),
    ("z11", "aws", {}, _chain(az_id_subnet(), fsx_literal()), {SSZ: "fail"},
     ZONES({"subnet-0abc": "use1-az6"}), "told another AZ ID: decided, not the same"),
    ("z12", "aws", {}, _chain(az_id_subnet(), fsx_literal()), {SSZ: "undecided"},
     ZONES({"subnet-0abc": "us-east-1a"}), "a zone name against an AZ ID: cannot decide"),
    ("m18", "aws", {}, _chain(max_hours(""), lt_own_max_hours("-5")), {SPEND: "fail"}, None,
     "blank on the group: the template's own tag -5 is still read"),
    ("m19", "aws", {}, _chain(max_hours(""), lt_own_max_hours("")), {}, None,
     "blank on both: no tag"),
    ("m20", "aws", {}, _chain(max_hours("0"), lt_own_max_hours("")), {SPEND: "fail"}, None,
     "0 on the group beside a blank template tag"),
    ("m21", "aws", {}, lt_own_max_hours("\t"), {}, None, "a tab only: blank (whitespace)"),
]


@pytest.mark.parametrize("case", _params(CASES_6), ids=[c[0] for c in CASES_6])
def test_batch6(pack, case):
    _run_case(pack, case)


# ---------------------------------------------------------------------------- batch 7
# Local Zones: prices.csv has rows per Local Zone (g4dn.2xlarge us-east-1 0.752, us-east-1-bos-1
# 1.015 USD/h, tsaol/aws-gpu). 10 nodes for the month: 7,409.50 in the Boston Local Zone,
# 5,489.60 in the region. With the base (~12,141-12,251): 19,551-19,661 vs 17,631-17,741;
# a budget of 18,500 is under the first and over the second.
def lz_group(zone: str):
    def build(s):
        sub = res("aws:ec2/subnet:Subnet", "lz-sub", {"availabilityZone": zone, "vpcId": "vpc-1",
                                                      "cidrBlock": "10.0.9.0/24",
                                                      "tags": dict(TAGS)})
        lt = res("aws:ec2/launchTemplate:LaunchTemplate", "lz-lt", {
            "instanceType": "g4dn.2xlarge", "tags": dict(TAGS),
            "networkInterfaces": [{"deviceIndex": 0.0, "associatePublicIpAddress": "false"}],
            "tagSpecifications": [{"resourceType": "instance", "tags": dict(TAGS)}]})
        asg = res("aws:autoscaling/group:Group", "lz-render", {
            "minSize": 0.0, "maxSize": 10.0, "desiredCapacity": 10.0,
            "vpcZoneIdentifiers": [unknown()], "launchTemplate": {"id": unknown(),
                                                                  "version": "$Latest"},
            "tags": [{"key": k, "value": v, "propagateAtLaunch": True} for k, v in TAGS.items()]},
            deps={"vpcZoneIdentifiers": [sub], "launchTemplate": [lt]})
        return [sub, lt, asg]
    return _add(build)


def inner_nlb(name: Optional[str] = "inner"):
    def build(s):
        p = {"type": "network", "scheme": "internal", "subnets": ["a", "b"],
             "tags": _awsn_tags()}
        if name:
            p["name"] = name
        lb = res("aws-native:elasticloadbalancingv2:LoadBalancer", "inner", p)
        tg = res("aws-native:elasticloadbalancingv2:TargetGroup", "inner-tg", {
            "protocol": "TCP", "port": 8000, "vpcId": "vpc-1", "targetType": "instance",
            "tags": _awsn_tags()})
        ls = res("aws-native:elasticloadbalancingv2:Listener", "inner-l", {
            "loadBalancerArn": unknown(), "port": 80, "protocol": "TCP",
            "defaultActions": [{"type": "forward", "targetGroupArn": unknown()}]},
            deps={"loadBalancerArn": [lb], "defaultActions": [tg]})
        asg = named(s, "train-nodes")
        asg.props["targetGroupArns"] = [unknown()]
        asg.deps["targetGroupArns"] = [tg]
        return [lb, tg, ls]
    return _add(build)


LB_ARN = "arn:aws:elasticloadbalancing:us-east-1:123456789012:loadbalancer/net/{}/50dc6c495c0c9188"


def ga_literal(lb_name: str):
    return _new("aws:globalaccelerator/endpointGroup:EndpointGroup", "ga-eg", {
        "listenerArn": "arn:aws:globalaccelerator::1:accelerator/a/listener/l",
        "endpointGroupRegion": "us-east-1",
        "endpointConfigurations": [{"endpointId": LB_ARN.format(lb_name), "weight": 100.0}]})


def rest_vpc_link(types):
    def build(s):
        link = res("aws:apigateway/vpcLink:VpcLink", "link", {
            "name": "link", "targetArn": unknown(), "tags": dict(TAGS)},
            deps={"targetArn": [named(s, "inner")]})
        api = res("aws:apigateway/restApi:RestApi", "api", {
            "name": "infer", "endpointConfiguration": {"types": types}, "tags": dict(TAGS)})
        integ = res("aws:apigateway/integration:Integration", "api-int", {
            "restApi": unknown(), "resourceId": "r", "httpMethod": "ANY",
            "type": "HTTP_PROXY", "integrationHttpMethod": "ANY",
            "uri": "http://inner.example/", "connectionType": "VPC_LINK",
            "connectionId": unknown()}, deps={"restApi": [api], "connectionId": [link]})
        return [link, api, integ]
    return _add(build)


CASES_7 = [
    ("y01", "aws", {"budget": "18500"}, lz_group("us-east-1-bos-1a"), {SPEND: "fail"}, None,
     "10 g4dn.2xlarge in the Boston Local Zone: 7,409.50 + ~12,141 = ~19,551 > 18,500 (at "
     "the region's 0.752 it would be ~17,631: below the truth)"),
    ("y02", "aws", {"budget": "18500"}, lz_group("us-east-1b"), {}, None,
     "the same in us-east-1b: 5,489.60 + ~12,141-12,251 < 18,500"),
    ("y03", "aws", {"budget": "30000"}, lz_group("us-east-1-bos-1a"), {}, None,
     "Local Zone group under 30,000"),
    ("g01", "aws", {}, _chain(inner_nlb(), ga_literal("inner")), {NPI: "fail"}, None,
     "GA endpointId: a literal ARN naming the stack's aws-native internal NLB by its name"),
    ("g02", "aws", {}, _chain(inner_nlb(), ga_literal("other")), {}, None,
     "a literal ARN of another balancer: reaches nothing of the stack"),
    ("g03", "aws", {}, inner_nlb(), {}, None, "the internal NLB alone: private"),
    ("g04", "aws", {}, _chain(inner_nlb(), rest_vpc_link(["REGIONAL"])), {NPI: "fail"}, None,
     "REST API VPC_LINK through a VpcLink on the internal NLB, REGIONAL endpoint"),
    ("g05", "aws", {}, _chain(inner_nlb(), rest_vpc_link(["PRIVATE"])), {}, None,
     "PRIVATE-only REST API: passes"),
    ("g06", "aws", {}, _chain(inner_nlb(), rest_vpc_link(unknown())), {NPI: "undecided"}, None,
     "endpoint types unknown at preview: cannot decide"),
]


@pytest.mark.parametrize("case", _params(CASES_7), ids=[c[0] for c in CASES_7])
def test_batch7(pack, case):
    _run_case(pack, case)


# ------------------------------------------------------------------ probes (after the findings)
def _fn_tags(tags: Optional[dict]):
    def mutate(s):
        fn = named(s, "starter")
        if tags is None:
            fn.props.pop("tags", None)
        else:
            fn.props["tags"] = dict(tags)
        return s
    return mutate


def _asg_tag(k: str, v: str):
    def mutate(s):
        named(s, "train-nodes").props["tags"].append({"key": k, "value": v,
                                                      "propagateAtLaunch": True})
        return s
    return mutate


TEAM = {"TAG_KEY": "team", "TAG_VALUE": "research"}
PROBES = [
    ("q1", "aws", {}, lambda_start({"TAG_KEY": "owner", "TAG_VALUE": "bob"}), {SPEND: "fail"},
     None, "DEFECT 1 reach: owner=bob, the function tagged with the cost tags: missed"),
    ("q2", "aws", {}, _chain(lambda_start(TEAM), _fn_tags(None)), {SPEND: "fail"}, None,
     "holds: the same starter, the function untagged: a pause, the month"),
    ("q3", "aws", {"hours": None}, _chain(ASG_NAME, scheduler("stop-at", STOP0, sched_at(96)),
                                          lambda_start(TEAM)), {SPEND: "fail"}, None,
     "DEFECT 1 reach: the stop a Scheduler updateAutoScalingGroup: missed too"),
    ("q4", "aws", {}, _chain(_asg_tag("auto-start", "true"),
                             lambda_start({"TAG_KEY": "auto-start", "TAG_VALUE": "true"})),
     {SPEND: "fail"}, None, "holds: a tag the function does not carry (auto-start=true)"),
    ("q5", "aws", {}, _chain(lambda_start(TEAM), _fn_tags({"team": "research"})),
     {SPEND: "fail", TAGS_P: "fail"}, None,
     "DEFECT 1 reach: the function carrying only team=research: missed"),
    ("q6", "aws", {"budget": "18500"}, lz_group("us-east-1-wl1-atl-wlz-1"), {SPEND: "fail"},
     None, "DEFECT 2 reach: Atlanta Wavelength Zone (us-east-1-wl1-atl1 1.317 USD/h): 10 x "
           "1.317 x 730 = 9,614 + ~12,141 > 18,500"),
    ("q7", "aws", {"budget": "18500"}, lz_group("us-east-1-atl-1a"), {SPEND: "fail"}, None,
     "DEFECT 2 reach: Atlanta Local Zone (us-east-1-atl-1 1.015): ~19,551 > 18,500"),
]


@pytest.mark.parametrize("case", _params(PROBES), ids=[c[0] for c in PROBES])
def test_probes(pack, case):
    _run_case(pack, case)
