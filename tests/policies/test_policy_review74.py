"""Issue 35, a BLIND hostile review (helper review74) of the CrossGuard pack over gRPC, driven as
`pulumi preview --policy-pack policies` drives it (tests/policy_harness.py). Focus, on all four
clouds: SCOPE AND THINGS OUTSIDE THE STACK: same-zone storage judged for the GPUs that share a
fabric and the storage they read (two clusters in one network, one filesystem shared by both, an
inference group spread over zones, CPU-only mounts, single GPU nodes), zones given only by literal
subnet / vSwitch ids, AZ IDs and the `zones` config, provider default regions / zones, a second
AWS region through explicit providers, Elastic IPs on literal instance ids, and budgets that cover
compute outside the stack. The pack's code was not read: every verdict comes from docs/policies.md,
the catalog CSVs (policies/catalog_data), the Pulumi SDK schemas in .venv; each batch's
expectations were committed before its first run. Builders are review70's (copied).

RESULTS (agreed / cases on the first run of each blind batch; 145 blind cases, 64 of them
  correct stacks that must pass; 143 agree, 1 MY mistake, 1 pack defect (1 xfail); plus 3 probes
  written after the defect and counted apart (1 holds, 2 xfail)):
  batch 1: 45/46 (AWS scope): two clusters in one VPC (own / swapped / one shared FSx / unmounted
    FSx matched by subnet and by VPC with two zones near it), a spread g5 inference group reading
    only a bucket (same region / us-west-2 provider / mounting the FSx), CPU-only groups mounting
    their own FSx in another zone (and a GPU template that also mounts it), one-node GPU groups
    and single g6.xlarge instances by availabilityZone / stack subnet / literal subnet (with and
    without `zones`, availabilityZone beside a literal subnet), literal subnets on the ASG, beside
    its own subnet, on an EKS node group (one and two told zones) and on a second group of the same
    template, the zones config naming another id or a subnet the stack creates, AZ IDs in the
    config against name and ID-only subnets, literal FSx DNS names told or not, also mounted by a
    second group in another zone. a19/a20 first raised a TypeError in my builder (a harness slip,
    fixed in its own commit before any verdict was compared; both then agreed). a32: DEFECT 1.
  batch 2: 37/37 (GCP, Azure, Alibaba scope): the same shapes with MIGs / Managed Lustre, sets /
    AMLFS, gn8v pairs / CPFS; a g2-standard-8 VM by its own zone, no zone, the provider's default
    zone; a regional inference MIG over two zones; CPU VMs / sets / nodes with their own Filestore
    / AMLFS / CPFS; a literal Lustre path in a startup script (nothing invented); a storage account
    placed by the azure-native provider's `location`; literal vSwitches with and without `zones`,
    an Alibaba node's own zoneId beside a literal vSwitch.
  batch 3: 38/38: a second cluster on an explicit us-west-2 provider (own FSx / the us-east-1
    bucket / the us-east-1 FSx / an unmounted FSx by VPC), the whole stack on a us-west-2
    default provider, a bucket's own pulumi-aws 7 `region`, Region-filtered budgets per region;
    budgets over compute outside the stack (InstanceType, Region, AZ, TagKeyValue, LinkedAccount
    below and above the estimate, S3-only; GCP other project, other label, Cloud Storage only;
    Azure other resource group, ResourceLocation, other subscription): no finding invented, and
    their covering twins fail; Elastic IPs on literal instance / ENI ids (AWS and Alibaba),
    attached to nothing, or by dependency to a node of the stack.
  batch 4: 23/24: ASGs placed by availabilityZones in the default VPC, a MIG placed by the
    provider's default zone (its stop URL then names another zone: no stop), CPFS on a literal
    vSwitch without zoneId (told / untold), Azure spread inference sets, an OSS bucket in another
    region read by one node, budgets by GCP project number / Azure ResourceId of a set in another
    group / AWS allowedAccountIds with LinkedAccount / EC2 - Other, EIPs on a NAT gateway, a
    literal ENI, alicloud eip.Association on an instance and on an SLB, a literal-subnet group on
    the us-west-2 provider. c24 MY MISTAKE.

MY MISTAKE (fixed in its own commit): c24, a us-west-2 group on an untold literal subnet
  mounting a literal FSx told us-east-1a. I expected the known regions to decide it (fail); the
  docs keep a group 'placed only by such an id' at "cannot decide ... until the config tells its
  zone", and the pack says exactly that. (My DNS name also said us-west-2.)

DEFECT 1 (xfail a32; reach p02, p03): a `zones` value written as an AZ ID is read as a zone name.
  Smallest case: the base AWS cluster's group on literal subnet-0lit, config
  {"storage-same-zone": {"zones": {"subnet-0lit": "use1-az4"}}}, the FSx on a stack subnet in
  us-east-1a: a mandatory "the filesystem is not in the GPU nodes' zone. Found: us-east-1a.
  Expected: use1-az4". Doc: "compared with a zone name it is 'cannot decide', since which name an
  AZ ID has differs from one AWS account to another" (storage-same-zone); "A known setting of a
  type or value its schema refuses ... is refused the same way" (the schema accepts it). In an
  account where use1-az4 is us-east-1a the stack is correct and is blocked. Reach: a literal FSx id
  told use1-az4 (p02, mandatory fail), an instance on a literal subnet told use1-az4 beside a 1a
  group (p03: "span more than one zone. Found: us-east-1a, use1-az4"). Holds: against an ID-only
  subnet the config's AZ ID is "cannot decide" (a33), and a name told against an ID-only subnet too
  (p01). Fix either way: refuse a value of the AZ ID form in the schema, or read it as an AZ ID.

Planted bug (test side; the pack's code was not read): aws_b's subnet train-b always in
  us-east-1a: a02 a03 a07 a47 r05 fail, the other 140 pass (3 xfail); reverted.

Noticed, left alone: (1) the zones config accepts any string as a zone ("banana", "eu-west-1a"
  for a us-east-1 subnet) and fails the stack on it, visibly: a typo is loud, never a silent pass.
  (2) c24: a cross-region mount whose regions are both known (provider us-west-2, FSx told
  us-east-1a) waits on the nodes' literal subnet; the docs say so, but the region alone decides.
  (3) e01-e03, e06, c20, c21: EIPs on literal instance / ENI ids are mandatory violations (I
  allowed fail or cannot decide). c16 / c17: the provider's allowedAccountIds is read (a
  LinkedAccount budget on it caps; on another account it passes), which the docs only imply.
  (4) Not tried: aws-native Subnet AZ IDs, ACK pools on literal vSwitches, GCP multi-region
  buckets ("US") read by one region's cluster.

Each case states the verdict of EVERY policy (those not named stay "pass"): "fail", "advisory",
"undecided" ("cannot decide") or "pass" (a tuple: any of them); its `why` is the reasoning.
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


# =========================================================================== review74's own
ALT = {"owner": "alice", "team": "ml", "cost-center": "1234"}   # the fixtures' owner tags
ZONES = lambda z: {SSZ: {"zones": z}}   # noqa: E731
LIT_FS = "fs-0123456789abcdef0"


def _tagged(r, tags=None):
    r.props.setdefault("tags", dict(tags or TAGS))
    return r


# ---------------------------------------------------------------- AWS: a second cluster and parts
# Figures (prices.csv): p5.48xlarge 55.04 USD/h in us-east-1 and us-west-2; g5.xlarge 1.006 and
# g6.xlarge 0.8048 in us-east-1; the base cluster (review70) is ~12,141 a month (2 p5 x 96-97 h +
# FSx 4,800 GB ~1,464 + bucket ~110) under its 20,000 budget. A second cluster of the same shape
# adds 2 x 55.04 x 97 = 10,677.76 + ~1,464 + ~110 (its FSx's export): ~24,400 for both, so its
# cases give the budget 60,000 (< 60,000 with room; the month of both would be ~163,600).
def aws_b(zone: str = "us-east-1b", fs_subnet: Optional[str] = "train-b",
          mount: Optional[list] = None, region: Optional[str] = None, vpc: str = "vpc-1",
          itype: str = "p5.48xlarge", max_size: float = 2.0, stop: bool = True,
          subnet_literal: Optional[list] = None, fs_zone: Optional[str] = None):
    """A second training cluster: subnet train-b in `zone`, FSx scratch-b on `fs_subnet` (a
    subnet of the stack; None: no filesystem), an EFA launch template whose user data names the
    filesystems in `mount` (default: its own, plus the datasets bucket), an ASG of `max_size`,
    its own cluster placement group and stop Schedule; `region`: all of it on that provider."""
    def mutate(s):
        prov = {"region": region} if region else None
        out = []
        sub = res("aws:ec2/subnet:Subnet", "train-b", {"availabilityZone": zone, "vpcId": vpc,
                                                       "cidrBlock": "10.0.2.0/24",
                                                       "tags": dict(TAGS)})
        out.append(sub)
        if fs_zone:   # a third subnet for the filesystem
            out.append(res("aws:ec2/subnet:Subnet", "fs-sub", {"availabilityZone": fs_zone,
                                                             "vpcId": vpc, "cidrBlock": "10.0.3.0/24",
                                                             "tags": dict(TAGS)}))
        pool = s + out
        fs = None
        if fs_subnet:
            fs = res("aws:fsx/lustreFileSystem:LustreFileSystem", "scratch-b",
                     {"subnetIds": "subnet-y", "storageCapacity": 4800.0,
                      "deploymentType": "PERSISTENT_2", "perUnitStorageThroughput": 250.0,
                      "tags": dict(TAGS)}, deps={"subnetIds": [named(pool, fs_subnet)]})
            out.append(fs)
        pool = s + out
        mounts = [named(pool, n) for n in (mount if mount is not None else
                                            (["scratch-b"] if fs else []) + ["datasets"])]
        pg = res("aws:ec2/placementGroup:PlacementGroup", "train-pg-b",
                 {"strategy": "cluster", "tags": dict(TAGS)})
        nics = [{"networkCardIndex": float(c), "deviceIndex": 0.0, "interfaceType": "efa",
                 "associatePublicIpAddress": "false"} for c in range(32)]
        lt = res("aws:ec2/launchTemplate:LaunchTemplate", "train-lt-b",
                 {"instanceType": itype, "networkInterfaces": nics, "userData": "IyEvYmluL2Jhc2g=",
                  "blockDeviceMappings": [{"deviceName": "/dev/xvda", "ebs": {
                      "volumeSize": 500.0, "volumeType": "gp3", "encrypted": "true"}}],
                  "tagSpecifications": [{"resourceType": "instance", "tags": dict(TAGS)}],
                  "tags": dict(TAGS)}, deps={"userData": mounts})
        asg = res("aws:autoscaling/group:Group", "train-nodes-b",
                  {"minSize": 0.0, "maxSize": max_size, "desiredCapacity": max_size,
                   "placementGroup": "train-pg-b",
                   "vpcZoneIdentifiers": subnet_literal or ["subnet-y"],
                   "launchTemplate": {"id": "lt-y", "version": "$Latest"},
                   "tags": [{"key": k, "value": v, "propagateAtLaunch": True}
                            for k, v in TAGS.items()]},
                  deps={"launchTemplate": [lt], "placementGroup": [pg],
                        **({} if subnet_literal else {"vpcZoneIdentifiers": [sub]})})
        out += [pg, lt, asg]
        if stop:
            out.append(res("aws:autoscaling/schedule:Schedule", "train-stop-b",
                           {"autoscalingGroupName": "asg-y", "scheduledActionName": "stop",
                            "minSize": 0.0, "maxSize": 0.0, "desiredCapacity": 0.0,
                            "startTime": hours_from_now(96)},
                           deps={"autoscalingGroupName": [asg]}))
        if prov:
            for r in out:
                r.provider = dict(prov)
        return s + out
    return mutate


def aws_infer(subnets: tuple = ("train-a", "train-b"), reads: tuple = ("datasets",),
              itype: str = "g5.xlarge", max_size: float = 4.0, bucket_region: Optional[str] = None):
    """An inference group for availability: g5.xlarge (1 GPU, no EFA row) over two zones' subnets,
    no placement group, its launch template reading only the bucket(s) in `reads`; a subnet of
    these names that the stack lacks is made (train-b us-east-1b, train-c us-east-1c)."""
    zones = {"train-b": "us-east-1b", "train-c": "us-east-1c"}

    def mutate(s):
        out = []
        for n in subnets:
            if not any(r.name == n for r in s + out):
                out.append(res("aws:ec2/subnet:Subnet", n, {
                    "availabilityZone": zones[n], "vpcId": "vpc-1",
                    "cidrBlock": f"10.0.{len(out) + 5}.0/24", "tags": dict(TAGS)}))
        if bucket_region:
            b = res("aws:s3/bucket:Bucket", "models", {"forceDestroy": False, "tags": {
                **TAGS, "trainstack:retain": "true"}}, retain=True)
            b.provider = {"region": bucket_region}
            out.append(b)
        pool = s + out
        lt = res("aws:ec2/launchTemplate:LaunchTemplate", "infer-lt",
                 {"instanceType": itype, "userData": "IyEvYmluL2Jhc2g=",
                  "blockDeviceMappings": [{"deviceName": "/dev/xvda", "ebs": {
                      "volumeSize": 200.0, "volumeType": "gp3", "encrypted": "true"}}],
                  "tagSpecifications": [{"resourceType": "instance", "tags": dict(TAGS)}],
                  "tags": dict(TAGS)}, deps={"userData": [named(pool, n) for n in reads]})
        asg = res("aws:autoscaling/group:Group", "infer",
                  {"minSize": 1.0, "maxSize": max_size, "desiredCapacity": 2.0,
                   "vpcZoneIdentifiers": ["subnet-z"] * len(subnets),
                   "launchTemplate": {"id": "lt-z", "version": "$Latest"},
                   "tags": [{"key": k, "value": v, "propagateAtLaunch": True}
                            for k, v in TAGS.items()]},
                  deps={"launchTemplate": [lt], "vpcZoneIdentifiers": [named(pool, n)
                                                                       for n in subnets]})
        return s + out + [lt, asg]
    return mutate


def aws_cpu(subnet: str = "train-b", fs_subnet: Optional[str] = "cpu-sub",
            fs_zone: str = "us-east-1c", mounts: tuple = ("home",)):
    """A CPU-only group (c7i.4xlarge, 1 node) on `subnet`, mounting its own small FSx 'home'
    (1,200 GB PERSISTENT_2 125) on a subnet in `fs_zone`; names in `mounts` are mounted."""
    def mutate(s):
        out = []
        if not any(r.name == subnet for r in s):
            out.append(res("aws:ec2/subnet:Subnet", subnet, {"availabilityZone": "us-east-1b",
                                                            "vpcId": "vpc-1",
                                                            "cidrBlock": "10.0.2.0/24",
                                                            "tags": dict(TAGS)}))
        if fs_subnet:
            sub = res("aws:ec2/subnet:Subnet", fs_subnet, {"availabilityZone": fs_zone,
                                                          "vpcId": "vpc-1",
                                                          "cidrBlock": "10.0.9.0/24",
                                                          "tags": dict(TAGS)})
            home = res("aws:fsx/lustreFileSystem:LustreFileSystem", "home",
                       {"subnetIds": "subnet-h", "storageCapacity": 1200.0,
                        "deploymentType": "PERSISTENT_2", "perUnitStorageThroughput": 125.0,
                        "tags": dict(TAGS)}, deps={"subnetIds": [sub]})
            out += [sub, home]
        pool = s + out
        lt = res("aws:ec2/launchTemplate:LaunchTemplate", "cpu-lt",
                 {"instanceType": "c7i.4xlarge", "userData": "IyEvYmluL2Jhc2g=",
                  "blockDeviceMappings": [{"deviceName": "/dev/xvda", "ebs": {
                      "volumeSize": 100.0, "volumeType": "gp3", "encrypted": "true"}}],
                  "tagSpecifications": [{"resourceType": "instance", "tags": dict(TAGS)}],
                  "tags": dict(TAGS)}, deps={"userData": [named(pool, n) for n in mounts]})
        asg = res("aws:autoscaling/group:Group", "cpu",
                  {"minSize": 1.0, "maxSize": 1.0, "desiredCapacity": 1.0,
                   "vpcZoneIdentifiers": ["subnet-c"],
                   "launchTemplate": {"id": "lt-c", "version": "$Latest"},
                   "tags": [{"key": k, "value": v, "propagateAtLaunch": True}
                            for k, v in TAGS.items()]},
                  deps={"launchTemplate": [lt], "vpcZoneIdentifiers": [named(pool, subnet)]})
        return s + out + [lt, asg]
    return mutate


def aws_vm(name: str = "dev", itype: str = "g6.xlarge", az: Optional[str] = "us-east-1b",
           subnet: Optional[str] = None, subnet_lit: Optional[str] = None,
           mounts: tuple = ("scratch",)):
    """One GPU instance (aws:ec2/instance) placed by `az`, a subnet of the stack, or a literal
    subnet id, its user data naming `mounts`; encrypted root volume, no public IP."""
    def mutate(s):
        props: dict = {"instanceType": itype, "ami": "ami-0abc", "userData": "IyEvYmluL2Jhc2g=",
                       "associatePublicIpAddress": False,
                       "rootBlockDevice": {"volumeSize": 200.0, "encrypted": True},
                       "tags": dict(TAGS)}
        deps: dict = {"userData": [named(s, n) for n in mounts]}
        if az:
            props["availabilityZone"] = az
        if subnet:
            props["subnetId"] = "subnet-v"
            deps["subnetId"] = [named(s, subnet)]
        if subnet_lit:
            props["subnetId"] = subnet_lit
        return s + [res("aws:ec2/instance:Instance", name, props, deps=deps)]
    return mutate


def aws_budget(name: str, amount: str, filters: Optional[dict] = None):
    props: dict = {"budgetType": "COST", "timeUnit": "MONTHLY", "limitAmount": amount,
                   "limitUnit": "USD", "notifications": AWS_ALERTS, "tags": dict(TAGS)}
    if filters:
        props["costFilters"] = [{"name": k, "values": v} for k, v in filters.items()]
    return _add(lambda s: res("aws:budgets/budget:Budget", name, props))


def asg_subnets(group: str, literals: list, keep: bool = False):
    """The group's vpcZoneIdentifiers: literal ids (keep: beside its own subnet of the stack)."""
    def mutate(s):
        r = named(s, group)
        if keep:
            r.props["vpcZoneIdentifiers"] = list(r.props["vpcZoneIdentifiers"]) + literals
        else:
            r.props["vpcZoneIdentifiers"] = list(literals)
            r.deps.pop("vpcZoneIdentifiers", None)
        return s
    return mutate


def literal_fsx_userdata(lt: str = "train-lt", fs_id: str = LIT_FS, region: str = "us-east-1",
                         drop: bool = True):
    """The template's user data mounts an FSx the stack does not create, by its DNS name; the
    stack's own FSx (and its repository association) are dropped."""
    script = (f"#!/bin/bash\nmount -t lustre {fs_id}.fsx.{region}.amazonaws.com@tcp:/fsx /fsx\n")

    def mutate(s):
        if drop:
            s = [r for r in s if r.name not in ("scratch", "scratch-s3")]
        r = named(s, lt)
        r.props["userData"] = base64.b64encode(script.encode()).decode()
        r.deps["userData"] = [d for d in r.deps.get("userData", []) if d.name == "datasets"]
        return s
    return mutate


def with_provider(name: str, props: dict):
    def mutate(s):
        named(s, name).provider = dict(props)
        return s
    return mutate


def eks_literal(subnets: list):
    """The ASG replaced by an EKS managed node group of 2 p5.48xlarge on literal subnet ids,
    launched from the same template (its user data mounts the FSx); no stop (EKS month)."""
    def mutate(s):
        s = [r for r in s if r.name not in ("train-nodes", "train-stop")]
        ng = res("aws:eks/nodeGroup:NodeGroup", "train-ng",
                 {"clusterName": "train", "nodeRoleArn": "arn:aws:iam::123456789012:role/node",
                  "subnetIds": subnets, "scalingConfig": {"minSize": 0.0, "maxSize": 2.0,
                                                          "desiredSize": 2.0},
                  "launchTemplate": {"id": "lt-x", "version": "1"}, "tags": dict(TAGS)},
                 deps={"launchTemplate": [named(s, "train-lt")]})
        return s + [ng]
    return mutate


# --------------------------------------------------------------------------- batch 1 (AWS scope)
TWO = {"budget": "60000"}
MONTH_B = {"budget": "100000"}   # EKS month: 2 x 55.04 x 730 = 80,358.40 + ~1,574 < 100,000
CASES_1 = [
    # -- two clusters in one VPC
    ("a01", "aws", TWO, aws_b(), {}, None,
     "two clusters in vpc-1, 1a and 1b, each mounting its own FSx in its zone: 'two clusters in "
     "one region, in two zones, each mounting its own filesystem in its own zone, pass'"),
    ("a02", "aws", TWO, _chain(aws_b(mount=["scratch", "datasets"]),
                               _mount("train-lt", "scratch-b"), _unmount("train-lt", "scratch")),
     {SSZ: "fail"}, None, "swapped mounts: 'swapped mounts fail on both filesystems'"),
    ("a03", "aws", TWO, aws_b(fs_subnet=None, mount=["scratch", "datasets"]), {SSZ: "fail"}, None,
     "one FSx in 1a mounted by groups in 1a and 1b: 'the span verdict stays for groups seen to "
     "mount it' (its estimate: one FSx less, still < 60,000)"),
    ("a04", "aws", TWO, _chain(aws_b(mount=["datasets"]), _unmount("train-lt", "scratch")), {},
     None, "neither group mounts (user data names only the bucket); each FSx shares its own "
     "cluster's subnet (step 2): each in its group's zone, pass"),
    ("a05", "aws", TWO, _chain(aws_b(fs_subnet="train-a", mount=["datasets"]),
                               _unmount("train-lt", "scratch")), {}, None,
     "both FSx on train-a (1a), none mounted: step 2 matches both to the 1a group, pass"),
    ("a06", "aws", TWO, _chain(aws_b(fs_subnet="fs-sub", fs_zone="us-east-1c", mount=["datasets"]),
                               ), {SSZ: "fail"}, None,
     "scratch-b on a 1c subnet of vpc-1, mounted by no group (group b reads only the bucket): "
     "step 3, the groups near it are in 1a and 1b: 'passes when it is in the zone of one of them "
     "and otherwise fails'"),
    ("a07", "aws", TWO, _chain(aws_b(fs_subnet="fs-sub", fs_zone="us-east-1b", mount=["datasets"])),
     {}, None, "a06 with the unmounted filesystem's subnet in 1b: the zone of group b, pass"),
    ("a08", "aws", TWO, aws_b(zone="us-east-1a"), {}, None,
     "a second cluster in the same zone 1a, its own FSx: pass"),
    # -- an inference group spread over zones
    ("a09", "aws", {}, aws_infer(), {}, None,
     "base + 4 g5.xlarge over 1a and 1b reading only the us-east-1 bucket (the month 4 x 1.006 x "
     "730 = 2,937.52; ~15,080 < 20,000); a bucket is compared by region; no fabric row, not asked"),
    ("a10", "aws", {}, aws_infer(subnets=("train-b", "train-c")), {}, None,
     "the spread group in 1b and 1c, the bucket only: the FSx (1a) is mounted by the 1a group "
     "(step 1), the spread group mounts nothing: pass"),
    ("a11", "aws", {}, aws_infer(reads=("models",), bucket_region="us-west-2"), {SSZ: "fail"}, None,
     "the spread group reads a bucket on a us-west-2 provider: 'the bucket in their region' fails"),
    ("a12", "aws", {}, aws_infer(reads=("scratch",)), {SSZ: "fail"}, None,
     "the spread group (1a + 1b) mounts the 1a FSx: groups seen to mount it keep the span verdict"),
    ("a13", "aws", {}, aws_infer(subnets=("train-a",), reads=("scratch", "datasets")), {}, None,
     "the g5 group on train-a only, mounting the 1a FSx: pass"),
    # -- CPU-only compute
    ("a14", "aws", {}, aws_cpu(), {}, None,
     "a CPU group in 1b mounting its own FSx in 1c that no GPU group mounts: 'not the GPUs' "
     "storage and is not judged' (1,200 GB ~ 366 + c7i ~ 520 a month: < 20,000)"),
    ("a15", "aws", {}, aws_cpu(mounts=("home", "scratch")), {}, None,
     "the CPU group also mounts the GPU FSx (1a): the GPUs in 1a mount it too, same zone: pass"),
    ("a16", "aws", {}, _chain(aws_cpu(), _mount("train-lt", "home")), {SSZ: "fail"}, None,
     "a14 with the GPU template also mounting 'home' (1c): no longer only CPU compute, fail"),
    ("a17", "aws", {}, aws_cpu(fs_zone="us-east-1a", subnet="train-b"), {}, None,
     "the CPU group in 1b, its home FSx in 1a: not judged, pass"),
    # -- single GPU nodes
    ("a19", "aws", {"max_size": 1.0},
     _chain(_add(_sub("train-b")), _mount("train-lt", "scratch")), {},
     None, "base of 1 node mounting the 1a FSx: pass (rdma: one node, not asked)"),
    ("a20", "aws", {}, _chain(_add(_sub("train-b")), aws_vm(az="us-east-1b", subnet="train-b")),
     {SSZ: "fail"}, None,
     "one g6.xlarge instance in 1b (its subnet) mounting the 1a FSx: one GPU node is GPU "
     "capacity, 'every parallel filesystem the GPU nodes mount is in their zone'; the group in 1a "
     "mounts it too, so it spans 1a/1b: fail (0.8048 x 730 = 587.50 more: < 20,000)"),
    ("a21", "aws", {}, aws_vm(az="us-east-1a"), {}, None,
     "the instance by its availabilityZone 1a, mounting the 1a FSx: pass"),
    ("a22", "aws", {}, aws_vm(az=None, subnet="train-a"), {}, None,
     "the instance on the stack's 1a subnet: pass"),
    ("a23", "aws", {}, aws_vm(az=None, subnet_lit="subnet-0dev"), {SSZ: "undecided"}, None,
     "the instance on a literal subnet only: 'cannot decide ... until the config tells its zone'"),
    ("a24", "aws", {}, aws_vm(az=None, subnet_lit="subnet-0dev"), {},
     ZONES({"subnet-0dev": "us-east-1a"}), "a23 told 1a: pass"),
    ("a25", "aws", {}, aws_vm(az=None, subnet_lit="subnet-0dev"), {SSZ: "fail"},
     ZONES({"subnet-0dev": "us-east-1d"}), "a23 told 1d: fail"),
    ("a26", "aws", {}, aws_vm(az="us-east-1b", subnet_lit="subnet-0dev"), {SSZ: "fail"}, None,
     "the instance's availabilityZone 1b wins over its literal subnet ('its availabilityZone, "
     "else its own subnetId'): decided without the config, fail"),
    ("a27", "aws", {}, aws_vm(az="us-east-1a", subnet_lit="subnet-0dev"), {}, None,
     "availabilityZone 1a beside the literal subnet: pass without the config"),
    # -- literal subnets and the zones config on groups
    ("a28", "aws", {}, asg_subnets("train-nodes", ["subnet-0lit"]), {SSZ: "undecided"}, None,
     "the GPU group on a literal subnet, mounting the stack's 1a FSx: cannot decide"),
    ("a29", "aws", {}, asg_subnets("train-nodes", ["subnet-0lit"]), {},
     ZONES({"subnet-0lit": "us-east-1a"}), "told 1a: pass"),
    ("a30", "aws", {}, asg_subnets("train-nodes", ["subnet-0lit"]), {SSZ: "fail"},
     ZONES({"subnet-0lit": "us-east-1c"}), "told 1c: fail"),
    ("a31", "aws", {}, asg_subnets("train-nodes", ["subnet-0lit"]), {SSZ: "undecided"},
     ZONES({"subnet-0other": "us-east-1a"}), "the config names another subnet: still undecided"),
    ("a32", "aws", {}, asg_subnets("train-nodes", ["subnet-0lit"]), {SSZ: "undecided"},
     ZONES({"subnet-0lit": "use1-az4"}),
     "told an AZ ID: compared with the FSx subnet's zone NAME it cannot be decided ('which name "
     "an AZ ID has differs from one AWS account to another')"),
    ("a33", "aws", {}, _chain(asg_subnets("train-nodes", ["subnet-0lit"]),
                              lambda s: (named(s, "train-a").props.pop("availabilityZone"),
                                         named(s, "train-a").props.update(
                                             availabilityZoneId="use1-az4"), s)[-1]),
     {SSZ: ("pass", "undecided")}, ZONES({"subnet-0lit": "use1-az4"}),
     "the FSx subnet given only its AZ ID use1-az4, the group told use1-az4: the same AZ ID "
     "(pass), or the config read as names only (undecided); never a fail"),
    ("a34", "aws", {}, asg_subnets("train-nodes", ["subnet-0lit"], keep=True), {SSZ: "undecided"},
     None, "the stack's 1a subnet plus a literal one: 'a literal id beside the stack's own subnet "
     "included' is undecided"),
    ("a35", "aws", {}, asg_subnets("train-nodes", ["subnet-0lit"], keep=True), {},
     ZONES({"subnet-0lit": "us-east-1a"}), "a34 told 1a: both subnets in 1a, pass"),
    ("a36", "aws", {}, asg_subnets("train-nodes", ["subnet-0lit"], keep=True), {SSZ: "fail"},
     ZONES({"subnet-0lit": "us-east-1b"}),
     "a34 told 1b: a group seen to mount the 1a FSx spans 1a/1b: fail"),
    ("a37", "aws", {}, lambda s: s, {}, ZONES({"subnet-x": "us-east-1b"}),
     "the config names the literal 'subnet-x' that the base group and FSx hold beside their "
     "dependency on the stack's subnet train-a (1a): the zones config is for ids 'the stack does "
     "not create'; the dependency places them: pass"),
    ("a38", "aws", MONTH_B, eks_literal(["subnet-0eks"]), {SSZ: "undecided"}, None,
     "an EKS node group on a literal subnet, its template mounting the 1a FSx: undecided "
     "(month 80,358.40 + ~1,574 < 100,000)"),
    ("a39", "aws", MONTH_B, eks_literal(["subnet-0eks"]), {},
     ZONES({"subnet-0eks": "us-east-1a"}), "a38 told 1a: pass"),
    ("a40", "aws", MONTH_B, eks_literal(["subnet-0eks", "subnet-0eks2"]), {SSZ: "fail"},
     ZONES({"subnet-0eks": "us-east-1a", "subnet-0eks2": "us-east-1b"}),
     "two literal subnets told 1a and 1b, the node group mounting the 1a FSx: a span, fail"),
    # -- two groups from one template, one on a literal subnet
    ("a41", "aws", TWO, aws_b(fs_subnet=None, mount=["scratch", "datasets"],
                              subnet_literal=["subnet-0b"]), {SSZ: "undecided"}, None,
     "group b on a literal subnet mounting the 1a FSx: undecided until told"),
    ("a42", "aws", TWO, aws_b(fs_subnet=None, mount=["scratch", "datasets"],
                              subnet_literal=["subnet-0b"]), {},
     ZONES({"subnet-0b": "us-east-1a"}), "a41 told 1a: pass"),
    ("a43", "aws", TWO, aws_b(fs_subnet=None, mount=["scratch", "datasets"],
                              subnet_literal=["subnet-0b"]), {SSZ: "fail"},
     ZONES({"subnet-0b": "us-east-1b"}), "a41 told 1b: fail"),
    # -- literal FSx ids
    ("a44", "aws", {}, literal_fsx_userdata(), {SSZ: "undecided"}, None,
     "user data mounts fs-0123456789abcdef0 by its DNS name: undecided naming the id"),
    ("a45", "aws", {}, literal_fsx_userdata(), {}, ZONES({LIT_FS: "us-east-1a"}), "told 1a: pass"),
    ("a46", "aws", {}, literal_fsx_userdata(), {SSZ: "fail"}, ZONES({LIT_FS: "us-east-1b"}),
     "told 1b: 'a file system told in another zone than the nodes' fails'"),
    ("a47", "aws", TWO, _chain(literal_fsx_userdata(), aws_b(fs_subnet=None, mount=["datasets"]),
                               literal_fsx_userdata("train-lt-b")), {SSZ: "fail"},
     ZONES({LIT_FS: "us-east-1a"}),
     "groups in 1a and 1b both mount the literal FSx told 1a: group b is in 1b, fail"),
]


# DEFECT 1 (a32, p02, p03) fixed by helper fix74: a `zones` value of the AZ ID form is read as an
# AZ ID. The reviewer's expectations are kept as written.
XFAIL: dict[str, str] = {}


def _params(cases):
    return [pytest.param(c, id=c[0], marks=[pytest.mark.xfail(strict=True, reason=XFAIL[c[0]])]
                         if c[0] in XFAIL else []) for c in cases]


@pytest.mark.parametrize("case", _params(CASES_1))
def test_batch1(pack, case):
    _run_case(pack, case)


# ------------------------------------------------------------------ GCP, Azure, Alibaba builders
# GCP base (review70): MIG of 2 a3-ultragpu-8g (86.7599 USD/h us-west1) in us-west1-c stopped at
# 97 h: 16,831.42; Managed Lustre 36,000 GiB 7,560.00; bucket 773.09: 25,164.51 < 30,000. A second
# cluster adds 16,831.42 + 7,560.00 + 773.09 (the bucket holds both filesystems' data): ~50,330,
# so its cases give 80,000. g2-standard-8 0.853624 USD/h: one VM's month 623.15; four 2,492.58.
def gcp_stop(mig: str, zone: str, name: str):
    def build(s):
        uri = (f"https://compute.googleapis.com/compute/v1/projects/ml/zones/{zone}/"
               f"instanceGroupManagers/{mig}/resize?size=0")
        return res("gcp:cloudscheduler/job:Job", f"{name}-stop", {
            "region": "us-west1", "schedule": gcp_cron(96), "timeZone": "Etc/UTC",
            "httpTarget": {"uri": uri, "httpMethod": "POST", "oauthToken": {
                "serviceAccountEmail": "stop@ml.iam.gserviceaccount.com"}}},
            deps={"httpTarget": [named(s, mig)]})
    return build


def gcp_b(zone: str = "us-west1-b", lustre_zone: Optional[str] = "same",
          mount: Optional[list] = None, network: str = "projects/ml/global/networks/train"):
    """A second a3-ultragpu-8g cluster (train-mig-b) in `zone`, its own Managed Lustre scratch-b
    (in `lustre_zone`, 'same': the group's; None: none), its template naming `mount`."""
    def mutate(s):
        out = []
        if lustre_zone:
            out.append(res("gcp:lustre/instance:Instance", "scratch-b", {
                "location": zone if lustre_zone == "same" else lustre_zone,
                "capacityGib": "36000", "instanceId": "scratch-b",
                "perUnitStorageThroughput": "250", "network": network,
                "labels": dict(LABELS)}))
        pool = s + out
        names = mount if mount is not None else (["scratch-b"] if lustre_zone else []) + ["datasets"]
        nics = [{"nicType": "GVNIC"}] * 2 + [{"nicType": "MRDMA"}] * 8
        tpl = res("gcp:compute/instanceTemplate:InstanceTemplate", "train-tpl-b", {
            "machineType": "a3-ultragpu-8g", "networkInterfaces": nics,
            "resourcePolicies": "compact-id", "labels": dict(LABELS),
            "scheduling": {"provisioningModel": "STANDARD"}, "metadata": {"startup-script": "m"}},
            deps={"resourcePolicies": [named(s, "compact")],
                  "metadata": [named(pool, n) for n in names]})
        mig = res("gcp:compute/instanceGroupManager:InstanceGroupManager", "train-mig-b", {
            "zone": zone, "targetSize": 2.0, "baseInstanceName": "trainb", "name": "train-mig-b",
            "versions": [{"instanceTemplate": "tpl-b"}]}, deps={"versions": [tpl]})
        s2 = s + out + [tpl, mig]
        return s2 + [gcp_stop("train-mig-b", zone, "b")(s2)]
    return mutate


def gcp_vm(name: str = "dev", mtype: str = "g2-standard-8", zone: Optional[str] = "us-west1-b",
           mounts: tuple = ("scratch",)):
    def mutate(s):
        props: dict = {"machineType": mtype, "networkInterfaces": [{"network": "train"}],
                       "bootDisk": {"initializeParams": {"image": "debian-12"}},
                       "labels": dict(LABELS), "metadata": {"startup-script": "m"}}
        if zone:
            props["zone"] = zone
        return s + [res("gcp:compute/instance:Instance", name, props,
                        deps={"metadata": [named(s, n) for n in mounts]})]
    return mutate


def gcp_rmig(zones: tuple = ("us-west1-a", "us-west1-b"), reads: tuple = ("datasets",),
             bucket_location: Optional[str] = None):
    """An inference regional MIG of 4 g2-standard-8 spread over `zones`, reading `reads`."""
    def mutate(s):
        out = []
        if bucket_location:
            out.append(res("gcp:storage/bucket:Bucket", "models", {
                "location": bucket_location, "forceDestroy": False,
                "labels": {**LABELS, "trainstack_retain": "true"}}, retain=True))
        pool = s + out
        tpl = res("gcp:compute/instanceTemplate:InstanceTemplate", "infer-tpl", {
            "machineType": "g2-standard-8", "networkInterfaces": [{"network": "train"}],
            "labels": dict(LABELS), "metadata": {"startup-script": "m"}},
            deps={"metadata": [named(pool, n) for n in reads]})
        mig = res("gcp:compute/regionInstanceGroupManager:RegionInstanceGroupManager", "infer", {
            "region": "us-west1", "targetSize": 4.0, "baseInstanceName": "infer", "name": "infer",
            "distributionPolicyZones": list(zones), "versions": [{"instanceTemplate": "tpl-i"}]},
            deps={"versions": [tpl]})
        return s + out + [tpl, mig]
    return mutate


def gcp_cpu(vm_zone: str = "us-west1-b", fs_zone: str = "us-west1-a"):
    """A CPU VM (n2-standard-8) mounting its own zonal BASIC_HDD Filestore 'home' (1 TiB)."""
    def mutate(s):
        fs = res("gcp:filestore/instance:Instance", "home", {
            "location": fs_zone, "tier": "BASIC_HDD",
            "fileShares": {"capacityGb": 1024.0, "name": "home"},
            "networks": [{"network": "train", "modes": ["MODE_IPV4"]}], "labels": dict(LABELS)})
        vm = res("gcp:compute/instance:Instance", "login", {
            "machineType": "n2-standard-8", "zone": vm_zone,
            "networkInterfaces": [{"network": "train"}],
            "bootDisk": {"initializeParams": {"image": "debian-12"}}, "labels": dict(LABELS),
            "metadata": {"startup-script": "m"}}, deps={"metadata": [fs]})
        return s + [fs, vm]
    return mutate


def gcp_budget(name: str, amount: str, flt: Optional[dict] = None):
    props: dict = {"billingAccount": "000000-000000-000000",
                   "amount": {"specifiedAmount": {"currencyCode": "USD", "units": amount}},
                   "thresholdRules": GCP_ALERTS}
    if flt:
        props["budgetFilter"] = flt
    return _add(lambda s: res("gcp:billing/budget:Budget", name, props))


# Azure (tests/policy_fixtures.azure_cluster): 2 Standard_ND96isr_H100_v5 (98.32 USD/h eastus) in
# zone 1 stopped at 96 h: <= 21,286.07 with AMLFS 8 TiB and the account, budget 25,000. A second
# set adds 18,877.44 (+1 h: 196.64) + AMLFS <= 2,230.60 + the account's share <= 178.03:
# <= ~42,770, so its cases give 60,000. NC4as_T4_v3 0.526 USD/h: one VM's month 383.98.
def az_b(zone: str = "2", fs: Optional[str] = "same", mount: Optional[list] = None):
    def mutate(s):
        out = []
        if fs:
            out.append(res("azure-native:storagecache:AmlFilesystem", "fs-b", {
                "location": "eastus", "zones": [zone if fs == "same" else fs],
                "storageCapacityTiB": 8.0, "sku": {"name": "AMLFS-Durable-Premium-250"},
                "filesystemSubnet": "subnet-id", "tags": dict(ALT)}))
        pool = s + out
        names = mount if mount is not None else (["fs-b"] if fs else []) + ["data"]
        vmss = res("azure-native:compute:VirtualMachineScaleSet", "nodes-b", {
            "location": "eastus", "zones": [zone], "singlePlacementGroup": True,
            "sku": {"name": "Standard_ND96isr_H100_v5", "capacity": 2.0, "tier": "Standard"},
            "virtualMachineProfile": {"priority": "Regular", "networkProfile": {
                "networkInterfaceConfigurations": [{"name": "nic", "primary": True,
                                                    "ipConfigurations": [{"name": "ip"}]}]}},
            "tags": dict(ALT)}, deps={"virtualMachineProfile": [named(pool, n) for n in names]})
        stop = res("azure-native:monitor:AutoscaleSetting", "stop-b", {
            "enabled": True, "targetResourceUri": "vmss-b-id", "location": "eastus", "profiles": [
                {"name": "stop", "capacity": {"minimum": "0", "maximum": "0", "default": "0"},
                 "rules": [], "fixedDate": {"start": hours_from_now(96.0),
                                            "end": "2037-12-31T00:00:00Z"}}]},
            deps={"targetResourceUri": [vmss]})
        return s + out + [vmss, stop]
    return mutate


def az_vm(name: str = "dev", size: str = "Standard_NC4as_T4_v3", zone: Optional[str] = "2",
          mounts: tuple = ("fs",)):
    def mutate(s):
        props: dict = {"location": "eastus", "hardwareProfile": {"vmSize": size},
                       "networkProfile": {"networkInterfaces": [{"id": "nic-id"}]},
                       "osProfile": {"computerName": name, "adminUsername": "azureuser",
                                     "customData": "I2Nsb3VkLWNvbmZpZw=="},
                       "tags": dict(ALT)}
        if zone:
            props["zones"] = [zone]
        return s + [res("azure-native:compute:VirtualMachine", name, props,
                        deps={"osProfile": [named(s, n) for n in mounts]})]
    return mutate


def az_cpu(set_zone: str = "2", fs_zone: str = "3"):
    def mutate(s):
        fs = res("azure-native:storagecache:AmlFilesystem", "home", {
            "location": "eastus", "zones": [fs_zone], "storageCapacityTiB": 8.0,
            "sku": {"name": "AMLFS-Durable-Premium-250"}, "filesystemSubnet": "subnet-id",
            "tags": dict(ALT)})
        vmss = res("azure-native:compute:VirtualMachineScaleSet", "login", {
            "location": "eastus", "zones": [set_zone],
            "sku": {"name": "Standard_D8s_v5", "capacity": 1.0, "tier": "Standard"},
            "virtualMachineProfile": {"priority": "Regular"}, "tags": dict(ALT)},
            deps={"virtualMachineProfile": [fs]})
        return s + [fs, vmss]
    return mutate


# Alibaba (tests/policy_fixtures.alicloud_cluster): 2 ecs.gn8v-8x.48xlarge in eu-central-1a with
# autoReleaseTime at 96 h (the stand-in for the alarm; no budget resource), CPFS in 1a.
def ali_b(zone: str = "eu-central-1b", fs: Optional[str] = "same", mount: Optional[list] = None,
          itype: str = "ecs.gn8v-8x.48xlarge", count: int = 2):
    def mutate(s):
        out = [res("alicloud:vpc/switch:Switch", "vsw-b", {"zoneId": zone, "tags": dict(ALT)},
                   provider_region="eu-central-1")]
        if fs:
            out.append(res("alicloud:nas/fileSystem:FileSystem", "fs-b", {
                "fileSystemType": "cpfs", "protocolType": "cpfs", "storageType": "advance_200",
                "capacity": 3600.0, "zoneId": zone if fs == "same" else fs, "encryptType": 1.0,
                "tags": dict(ALT)}, provider_region="eu-central-1"))
        pool = s + out
        names = mount if mount is not None else (["fs-b"] if fs else []) + ["data"]
        for i in range(count):
            out.append(res("alicloud:ecs/instance:Instance", f"node-b{i}", {
                "instanceType": itype, "vswitchId": "vsw-b-id", "deploymentSetId": "dset-id",
                "networkInterfaceTrafficMode": "HighPerformance", "internetMaxBandwidthOut": 0.0,
                "tags": dict(ALT), "autoReleaseTime": hours_from_now(96.0),
                "userData": "I2Nsb3VkLWNvbmZpZw=="},
                deps={"vswitchId": [out[0]], "deploymentSetId": [named(s, "dset")],
                      "userData": [named(pool, n) for n in names]},
                provider_region="eu-central-1"))
        return s + out
    return mutate


def ali_literal_vsw(vsw: str = "vsw-0lit"):
    def mutate(s):
        for n in ("node-0", "node-1"):
            r = named(s, n)
            r.props["vswitchId"] = vsw
            r.deps.pop("vswitchId", None)
        return s
    return mutate


def ali_cpu(zone: str = "eu-central-1b", fs_zone: str = "eu-central-1c"):
    def mutate(s):
        sw = res("alicloud:vpc/switch:Switch", "vsw-cpu", {"zoneId": zone, "tags": dict(ALT)},
                 provider_region="eu-central-1")
        fs = res("alicloud:nas/fileSystem:FileSystem", "home", {
            "fileSystemType": "cpfs", "protocolType": "cpfs", "storageType": "advance_200",
            "capacity": 3600.0, "zoneId": fs_zone, "tags": dict(ALT)},
            provider_region="eu-central-1")
        vm = res("alicloud:ecs/instance:Instance", "login", {
            "instanceType": "ecs.g7.2xlarge", "vswitchId": "vsw-cpu-id",
            "internetMaxBandwidthOut": 0.0, "tags": dict(ALT), "userData": "I2Nsb3VkLWNvbmZpZw=="},
            deps={"vswitchId": [sw], "userData": [fs]}, provider_region="eu-central-1")
        return s + [sw, fs, vm]
    return mutate


PROVIDERS["azure"] = {"subscriptionId": "s"}
G2 = {"budget": "80000"}
Z2 = {"budget_amount": 60000.0}
CASES_2 = [
    # -- GCP
    ("g01", "gcp", G2, gcp_b(), {}, None,
     "two a3-ultragpu clusters on one network in us-west1-b and -c, each mounting its own Managed "
     "Lustre in its zone: pass (~50,330 < 80,000)"),
    ("g02", "gcp", G2, _chain(gcp_b(mount=["scratch", "datasets"]), _mount(
        "train-tpl", "scratch-b", key="metadata"), _unmount("train-tpl", "scratch", key="metadata")),
     {SSZ: "fail"}, None, "swapped mounts: fail"),
    ("g03", "gcp", G2, gcp_b(lustre_zone=None, mount=["scratch", "datasets"]), {SSZ: "fail"}, None,
     "one Lustre (us-west1-c) mounted by MIGs in -b and -c: fail"),
    ("g04", "gcp", G2, _chain(gcp_b(mount=["datasets"]),
                              _unmount("train-tpl", "scratch", key="metadata")), {}, None,
     "neither template mounts; both Lustres on the one network, each in one cluster's zone: at "
     "step 3 'passes when it is in the zone of one of them'"),
    ("g05", "gcp", G2, gcp_b(lustre_zone="us-west1-a", mount=["datasets"]), {SSZ: "fail"}, None,
     "scratch-b in us-west1-a mounted by no one, near clusters in -b and -c: fail (not one of "
     "their zones)"),
    ("g06", "gcp", {}, gcp_vm(zone="us-west1-b"), {SSZ: "fail"}, None,
     "one g2-standard-8 VM (1 L4) in us-west1-b mounting the -c Lustre: GPU capacity of one node "
     "is held to the zone; the MIG in -c mounts it too: fail (+623.15: < 30,000)"),
    ("g07", "gcp", {}, gcp_vm(zone="us-west1-c"), {}, None, "the VM in -c: pass"),
    ("g08", "gcp", {}, gcp_vm(zone=None), {SSZ: ("fail", "undecided")}, None,
     "the VM names no zone; the provider (project ml, region us-west1) has no zone: 'the "
     "GPU nodes' zone cannot be read' is a mandatory finding (no zone it could ever read)"),
    ("g09", "gcp", {}, _chain(gcp_vm(zone=None), lambda s: (s, {**GCP_P, "zone": "us-west1-b"})),
     {SSZ: "fail"}, None, "the VM placed by the provider's default zone us-west1-b: fail"),
    ("g10", "gcp", {}, _chain(gcp_vm(zone=None), lambda s: (s, {**GCP_P, "zone": "us-west1-c"})),
     {}, None, "the provider's default zone us-west1-c: pass"),
    ("g11", "gcp", {}, gcp_rmig(), {}, None,
     "a regional MIG of 4 g2-standard-8 over -a and -b reading only the US-WEST1 bucket: pass "
     "(2,492.58 more: 27,657 < 30,000)"),
    ("g12", "gcp", {}, gcp_rmig(reads=("models",), bucket_location="EUROPE-WEST4"), {SSZ: "fail"},
     None, "the spread group reads a bucket in europe-west4: fail"),
    ("g13", "gcp", {}, gcp_rmig(reads=("scratch",)), {SSZ: "fail"}, None,
     "the spread group (-a, -b) mounts the -c Lustre: fail"),
    ("g14", "gcp", {}, gcp_cpu(), {}, None,
     "a CPU VM in -b mounting its own BASIC_HDD Filestore in -a: not judged, pass (1 TiB Filestore "
     "and an n2-standard-8: a few hundred a month)"),
    ("g15", "gcp", {}, _chain(gcp_cpu(), _mount("train-tpl", "home", key="metadata")),
     {SSZ: "fail"}, None, "the GPU template mounts 'home' (-a) too: fail"),
    ("g16", "gcp", {}, lambda s: (named(s, "train-tpl").props["metadata"].update(
        {"startup-script": "mount projects/ml/locations/us-west1-a/instances/ext"}) or s), {}, None,
     "a startup script naming a Lustre the stack does not create by its path: nothing the docs "
     "read ('GCP ... name their zone as an input of their own'); the stack's Lustre is in the "
     "zone: pass, no finding invented"),
    # -- Azure
    ("z01", "azure", Z2, az_b(), {}, None,
     "two ND H100 v5 sets in zones 1 and 2, each mounting its own AMLFS in its zone: pass"),
    ("z02", "azure", Z2, _chain(az_b(mount=["fs", "data"]), _mount(
        "nodes", "fs-b", key="virtualMachineProfile"),
        _unmount("nodes", "fs", key="virtualMachineProfile")), {SSZ: "fail"}, None, "swapped: fail"),
    ("z03", "azure", Z2, az_b(fs=None, mount=["fs", "data"]), {SSZ: "fail"}, None,
     "one AMLFS (zone 1) mounted by sets in zones 1 and 2: fail"),
    ("z04", "azure", Z2, az_b(fs="3", mount=["data"]), {SSZ: "fail"}, None,
     "fs-b in zone 3 mounted by no one (subnet 'subnet-id' literal, shared by no set), near sets "
     "in zones 1 and 2: fail"),
    ("z05", "azure", {}, az_vm(zone="2"), {SSZ: "fail"}, None,
     "one NC4as_T4_v3 VM in zone 2 whose custom data names the zone-1 AMLFS (the set in 1 mounts "
     "it too): fail (+383.98: < 25,000)"),
    ("z06", "azure", {}, az_vm(zone="1"), {}, None, "the VM in zone 1: pass"),
    ("z07", "azure", {"budget_amount": 40000.0}, az_cpu(), {}, None,
     "a CPU set (D8s_v5) in zone 2 mounting its own AMLFS in zone 3: not judged (8 TiB <= 2,230.60 "
     "+ D8s: < 40,000)"),
    ("z08", "azure", {"budget_amount": 40000.0},
     _chain(az_cpu(), _mount("nodes", "home", key="virtualMachineProfile")), {SSZ: "fail"}, None,
     "the GPU set mounts 'home' (zone 3) too: fail"),
    ("z09", "azure", {}, lambda s: ([r.props.pop("location") for r in s
                                     if r.name == "data"] and s, {"subscriptionId": "s",
                                                                   "location": "westus"}),
     {SSZ: ("fail", "undecided")}, None,
     "the account the set reads names no location; the azure-native provider's location is westus "
     "(the docs read the provider's 'default region'; Azure `location`): not the set's eastus"),
    ("z10", "azure", {}, lambda s: ([r.props.pop("location") for r in s
                                     if r.name == "data"] and s, {"subscriptionId": "s",
                                                                   "location": "eastus"}),
     {}, None, "z09 with the provider's location eastus: pass"),
    # -- Alibaba
    ("l01", "ali", {}, ali_b(), {}, None,
     "two gn8v pairs in eu-central-1a and -1b, each mounting its own CPFS in its zone: pass "
     "(autoReleaseTime on every GPU node; no cap)"),
    ("l02", "ali", {}, _chain(ali_b(mount=["fs", "data"]), _mount("node-0", "fs-b"),
                              _mount("node-1", "fs-b"), _unmount("node-0", "fs"),
                              _unmount("node-1", "fs")), {SSZ: "fail"}, None, "swapped: fail"),
    ("l03", "ali", {}, ali_b(fs=None, mount=["fs", "data"]), {SSZ: "fail"}, None,
     "one CPFS (1a) mounted by pairs in 1a and 1b: fail"),
    ("l04", "ali", {}, ali_b(fs=None, mount=["fs", "data"], itype="ecs.gn7i-c8g1.2xlarge",
                             count=1), {SSZ: "fail"}, None,
     "one gn7i-c8g1.2xlarge (1 A10) in 1b mounting the 1a CPFS: fail"),
    ("l05", "ali", {}, ali_b(fs=None, mount=["data"], itype="ecs.gn7i-c8g1.2xlarge", count=1), {},
     None, "that single node reads only the bucket (eu-central-1): pass"),
    ("l06", "ali", {}, ali_literal_vsw(), {SSZ: "undecided"}, None,
     "the pair on a literal vSwitch id, mounting the 1a CPFS: undecided"),
    ("l07", "ali", {}, ali_literal_vsw(), {}, ZONES({"vsw-0lit": "eu-central-1a"}),
     "told 1a: pass"),
    ("l08", "ali", {}, ali_literal_vsw(), {SSZ: "fail"}, ZONES({"vsw-0lit": "eu-central-1b"}),
     "told 1b: fail"),
    ("l09", "ali", {}, _chain(ali_literal_vsw(), lambda s: [
        (r.props.__setitem__("zoneId", "eu-central-1b") or r) if r.name in ("node-0", "node-1")
        else r for r in s]), {SSZ: "fail"}, None,
     "the nodes' own zoneId 1b beside the literal vSwitch ('Alibaba zoneId or the vSwitch's'): "
     "decided without the config, fail"),
    ("l10", "ali", {}, ali_cpu(), {}, None,
     "a CPU node (ecs.g7.2xlarge) in 1b mounting its own CPFS in 1c: not judged, pass"),
    ("l11", "ali", {}, _chain(ali_cpu(), _mount("node-0", "home")), {SSZ: "fail"}, None,
     "a GPU node mounts 'home' (1c) too: fail"),
]


@pytest.mark.parametrize("case", [pytest.param(c, id=c[0]) for c in CASES_2])
def test_batch2(pack, case):
    _run_case(pack, case)


# ------------------------------------------ batch 3: two AWS regions, budgets outside, Elastic IPs
def budget_set(name: str, key: str, value: Any):
    return _set(name, key, value)


def cost_filters(name: str, filters: dict):
    return _set(name, "costFilters", [{"name": k, "values": v} for k, v in filters.items()])


def az_rg(rg: str = "ml-rg"):
    def mutate(s):
        named(s, "nodes").props["resourceGroupName"] = rg
        return s
    return mutate


def az_budget(name: str, amount: float, scope: str, flt: Optional[dict] = None):
    props: dict = {"amount": amount, "category": "Cost", "timeGrain": "Monthly", "scope": scope,
                   "notifications": AZURE_ALERTS}
    if flt:
        props["filter"] = flt
    return _add(lambda s: res("azure-native:consumption:Budget", name, props))


def aws_eip(assoc: Optional[dict] = None, eip: Optional[dict] = None, dep: Optional[str] = None):
    """An Elastic IP (tagged) and, given `assoc`, an EipAssociation with those inputs;
    `dep`: the association (or the EIP's `instance`) depends on that resource of the stack."""
    def mutate(s):
        e = res("aws:ec2/eip:Eip", "ip", {"domain": "vpc", **(eip or {}), "tags": dict(TAGS)},
                deps={"instance": [named(s, dep)]} if dep and eip else None)
        out = [e]
        if assoc is not None:
            out.append(res("aws:ec2/eipAssociation:EipAssociation", "ip-assoc",
                           {"allocationId": "eipalloc-x", **assoc},
                           deps={"allocationId": [e],
                                 **({"instanceId": [named(s, dep)]} if dep else {})}))
        return s + out
    return mutate


def ali_eip(instance_id: str, itype: Optional[str] = None, dep: Optional[str] = None):
    def mutate(s):
        e = res("alicloud:ecs/eipAddress:EipAddress", "ip", {"bandwidth": "10",
                                                             "internetChargeType": "PayByTraffic",
                                                             "tags": dict(ALT)},
                provider_region="eu-central-1")
        props = {"allocationId": "eip-x", "instanceId": instance_id}
        if itype:
            props["instanceType"] = itype
        a = res("alicloud:ecs/eipAssociation:EipAssociation", "ip-assoc", props,
                deps={"allocationId": [e], **({"instanceId": [named(s, dep)]} if dep else {})},
                provider_region="eu-central-1")
        return s + [e, a]
    return mutate


WEST = "us-west-2"
CASES_3 = [
    # -- a second AWS region through an explicit provider (p5.48xlarge us-west-2 55.04 USD/h)
    ("r01", "aws", TWO, aws_b(zone="us-west-2a", region=WEST, vpc="vpc-2", mount=["scratch-b"]),
     {}, None, "a second cluster wholly on a us-west-2 provider, mounting its own FSx in "
     "us-west-2a: 'two clusters in two regions are two clusters', pass (~24,400 < 60,000)"),
    ("r02", "aws", TWO, aws_b(zone="us-west-2a", region=WEST, vpc="vpc-2"), {SSZ: "fail"}, None,
     "the us-west-2 cluster also reads the datasets bucket of the us-east-1 provider: fail"),
    ("r03", "aws", TWO, aws_b(zone="us-west-2a", region=WEST, vpc="vpc-2", fs_subnet=None,
                              mount=["scratch"]), {SSZ: "fail"}, None,
     "the us-west-2 cluster mounts the us-east-1a FSx: fail"),
    ("r04", "aws", TWO, aws_b(zone="us-west-2a", region=WEST, vpc="vpc-2", fs_subnet="fs-sub",
                              fs_zone="us-west-2b", mount=[]), {SSZ: "fail"}, None,
     "an unmounted FSx on a us-west-2b subnet of vpc-2, whose only GPU group is in us-west-2a: "
     "fail (the us-east-1 cluster is another region's)"),
    ("r05", "aws", TWO, aws_b(zone="us-west-2a", region=WEST, vpc="vpc-2", fs_subnet="fs-sub",
                              fs_zone="us-west-2a", mount=[]), {}, None,
     "r04 with the FSx subnet in us-west-2a: pass"),
    ("r06", "aws", {"zone": "us-west-2a"}, lambda s: (s, {"region": WEST}), {}, None,
     "the whole base stack on a us-west-2 default provider in us-west-2a: pass (2 x 55.04 x "
     "97 = 10,677.76 + ~1,574 < 20,000)"),
    ("r07", "aws", {"zone": "us-west-2a"},
     lambda s: (with_provider("datasets", {"region": "us-east-1"})(s), {"region": WEST}),
     {SSZ: "fail"}, None, "r06 with the bucket on an explicit us-east-1 provider: fail"),
    ("r08", "aws", {}, _setp("datasets", "region", WEST), {SSZ: "fail"}, None,
     "the bucket's own `region` input (pulumi-aws 7: every resource takes `region`) is "
     "us-west-2, the cluster us-east-1: fail"),
    ("r09", "aws", {}, _chain(_setp("datasets", "region", WEST),
                              with_provider("datasets", {"region": WEST})), {SSZ: "fail"}, None,
     "r08 with its provider in us-west-2 too: fail"),
    ("r10", "aws", TWO, _chain(aws_b(zone="us-west-2a", region=WEST, vpc="vpc-2",
                                     mount=["scratch-b"]),
                               cost_filters("train-budget", {"Region": ["us-east-1"]})),
     {SPEND: "fail"}, None,
     "the one budget filters Region us-east-1: the us-west-2 group has no alarm"),
    ("r11", "aws", {"budget": "30000"},
     _chain(aws_b(zone="us-west-2a", region=WEST, vpc="vpc-2", mount=["scratch-b"]),
            cost_filters("train-budget", {"Region": ["us-east-1"]}),
            aws_budget("west-budget", "30000", {"Region": [WEST]})), {}, None,
     "one budget per region, 30,000 each: each covers its group; the least each covers is the "
     "estimate (~24,400) less the other group's 10,677.76: ~13,700 < 30,000: pass"),
    ("r12", "aws", {"budget": "30000"},
     _chain(aws_b(zone="us-west-2a", region=WEST, vpc="vpc-2", mount=["scratch-b"]),
            cost_filters("train-budget", {"Region": ["us-east-1"]}),
            aws_budget("west-budget", "5000", {"Region": [WEST]})), {SPEND: "fail"}, None,
     "the us-west-2 budget of 5,000 under what it covers (~13,700): fail"),
    # -- budgets over compute outside the stack: no finding invented
    ("b01", "aws", {}, aws_budget("g5-budget", "100", {"InstanceType": ["g5.xlarge"]}), {}, None,
     "a 100 budget for g5.xlarge (no such node here) beside the 20,000 one: it leaves the p5 out, "
     "'neither the cap nor the GPU alarm'; pass"),
    ("b02", "aws", {}, aws_budget("west", "100", {"Region": ["us-west-2"]}), {}, None,
     "a 100 budget on us-west-2 (the stack is in us-east-1): leaves it out, pass"),
    ("b03", "aws", {}, aws_budget("other-acct", "100", {"LinkedAccount": ["111111111111"]}),
     {SPEND: "undecided"}, None,
     "a 100 budget on a linked account the program does not show the compute deploys to, beside "
     "the 20,000 one: below the most it would cover, 'cannot decide'"),
    ("b04", "aws", {}, aws_budget("other-acct", "500000", {"LinkedAccount": ["111111111111"]}),
     {}, None, "b03 at 500,000, above the estimate: 'changes no verdict'"),
    ("b05", "aws", {}, aws_budget("other-team", "100", {"TagKeyValue": ["user:team$other"]}), {},
     None, "a 100 budget on team=other: the nodes carry team=research (propagateAtLaunch and "
     "the template's instance tags): leaves them out, pass"),
    ("b06", "aws", {}, aws_budget("our-team", "100", {"TagKeyValue": ["user:team$research"]}),
     {SPEND: "fail"}, None, "a 100 budget on team=research covers the nodes: the cap is 100, fail"),
    ("b07", "aws", {}, aws_budget("az-b", "100", {"AZ": ["us-east-1b"]}), {}, None,
     "a 100 budget on us-east-1b (the nodes are in 1a): leaves them out, pass"),
    ("b08", "aws", {}, cost_filters("train-budget", {"InstanceType": ["g5.xlarge"]}),
     {SPEND: "fail"}, None, "the only budget covers g5.xlarge only: the p5 group has no alarm"),
    ("b09", "aws", {}, aws_budget("s3", "100", {"Service": ["Amazon Simple Storage Service"]}),
     {}, None, "a 100 S3-only budget: 'an S3-only budget' leaves the GPU compute out: pass"),
    ("b10", "gcp", {}, gcp_budget("other", "100", {"projects": ["projects/other-proj"]}), {}, None,
     "a 100 GCP budget on another project: leaves the ml project's MIG out, pass"),
    ("b11", "gcp", {}, gcp_budget("other-team", "100", {"labels": {"team": "other"}}), {}, None,
     "a 100 budget on label team=other: the VMs carry team=research: pass"),
    ("b12", "gcp", {}, gcp_budget("gcs", "100", {"services": ["services/95FF-2EF5-5EA1"]}), {},
     None, "a 100 Cloud Storage-only budget: 'a services filter without Compute Engine leaves the "
     "compute out': pass"),
    ("b13", "gcp", {}, gcp_budget("ml", "100", {"projects": ["projects/ml"]}), {SPEND: "fail"},
     None, "a 100 budget on the ml project: covers, the cap is 100: fail"),
    ("b14", "azure", {}, _chain(az_rg(), az_budget("other-rg", 100.0,
                                                   "/subscriptions/s/resourceGroups/other-rg")),
     {}, None, "a 100 budget on resource group other-rg; the set bills in ml-rg: leaves it out"),
    ("b15", "azure", {}, _chain(az_rg(), az_budget("ml-rg", 100.0,
                                                   "/subscriptions/s/resourceGroups/ML-RG")),
     {SPEND: "fail"}, None, "a 100 budget on ML-RG (case-insensitive: the set's group): fail"),
    ("b16", "azure", {}, az_budget("westus", 100.0, "/subscriptions/s", {"dimensions": {
        "name": "ResourceLocation", "operator": "In", "values": ["westus"]}}), {}, None,
     "a 100 budget filtered to westus: the set is in eastus, left out: pass"),
    ("b17", "azure", {}, az_budget("other-sub", 100.0, "/subscriptions/other"), {}, None,
     "a 100 budget on another subscription than the provider's 's': covers nothing, pass"),
    ("b18", "azure", {}, az_budget("eastus", 100.0, "/subscriptions/s", {"dimensions": {
        "name": "ResourceLocation", "operator": "In", "values": ["East US"]}}), {SPEND: "fail"},
     None, "ResourceLocation 'East US' (spaces and case ignored) covers the set: fail"),
    # -- Elastic IPs on literal ids
    ("e01", "aws", {}, aws_eip(assoc={"instanceId": "i-0abc1234567890def"}),
     {NPI: ("fail", "undecided")}, None,
     "an EIP association naming a literal instance id: 'Elastic IPs attached to a node (... an "
     "EipAssociation with instanceId)'; an instance outside the stack is an instance: not a pass"),
    ("e02", "aws", {}, aws_eip(eip={"instance": "i-0abc1234567890def"}),
     {NPI: ("fail", "undecided")}, None, "an EIP whose `instance` is a literal id: as e01"),
    ("e03", "aws", {}, aws_eip(assoc={"networkInterfaceId": "eni-0abc1234567890def"}),
     {NPI: ("fail", "undecided")}, None, "an EIP association to a literal network interface"),
    ("e04", "aws", {}, _chain(aws_vm(az="us-east-1a"),
                              aws_eip(assoc={"instanceId": "i-x"}, dep="dev")), {NPI: "fail"},
     None, "an EIP association to the stack's GPU instance (dependency): fail"),
    ("e05", "aws", {}, aws_eip(), {}, None, "an EIP attached to nothing: pass"),
    ("e06", "ali", {}, ali_eip("i-gw8lit0000000000"), {NPI: ("fail", "undecided")}, None,
     "an Alibaba EIP associated with a literal ECS instance id: 'Alibaba EIPs associated with an "
     "ECS instance' are judged: not a pass"),
    ("e07", "ali", {}, ali_eip("ngw-gw8lit0000000000", itype="Nat"), {}, None,
     "an Alibaba EIP on a literal NAT gateway (instanceType Nat): 'one on a NAT gateway ... "
     "passes'"),
    ("e08", "ali", {}, ali_eip("i-x", dep="node-0"), {NPI: "fail"}, None,
     "an Alibaba EIP associated with the stack's GPU node (dependency): fail"),
]


@pytest.mark.parametrize("case", [pytest.param(c, id=c[0]) for c in CASES_3])
def test_batch3(pack, case):
    _run_case(pack, case)


# ---------------------------------------------------------------------------------- batch 4
def asg_by_zones(group: str, zones: list):
    """The group placed by `availabilityZones` (no vpcZoneIdentifiers): the default VPC; its
    template's interfaces all say associatePublicIpAddress "false"."""
    def mutate(s):
        r = named(s, group)
        r.props.pop("vpcZoneIdentifiers", None)
        r.deps.pop("vpcZoneIdentifiers", None)
        r.props["availabilityZones"] = list(zones)
        return s
    return mutate


def gcp_mig_zone_from_provider(zone: str):
    """The MIG names no zone: the gcp provider's default zone places it (stop URL: us-west1-c)."""
    def mutate(s):
        named(s, "train-mig").props.pop("zone")
        return s, {**GCP_P, "zone": zone}
    return mutate


def cpfs_on_literal_vsw(vsw: str = "vsw-0cpfs"):
    def mutate(s):
        r = named(s, "fs")
        r.props.pop("zoneId")
        r.props["vswitchId"] = vsw
        r.props["vpcId"] = "vpc-0lit"
        return s
    return mutate


def az_spread(zones: list, mounts: tuple = ("data",)):
    def mutate(s):
        vmss = res("azure-native:compute:VirtualMachineScaleSet", "infer", {
            "location": "eastus", "zones": list(zones),
            "sku": {"name": "Standard_NC4as_T4_v3", "capacity": 4.0, "tier": "Standard"},
            "virtualMachineProfile": {"priority": "Regular"}, "tags": dict(ALT)},
            deps={"virtualMachineProfile": [named(s, n) for n in mounts]})
        return s + [vmss]
    return mutate


def ali_eip2(instance_id: str, itype: Optional[str] = None):
    def mutate(s):
        props = {"allocationId": "eip-x", "instanceId": instance_id}
        if itype:
            props["instanceType"] = itype
        return s + [res("alicloud:eip/association:Association", "ip-assoc2", props,
                        provider_region="eu-central-1")]
    return mutate


def aws_nat():
    def mutate(s):
        edge = res("aws:ec2/subnet:Subnet", "edge", {
            "availabilityZone": "us-east-1a", "vpcId": "vpc-1", "cidrBlock": "10.0.250.0/24",
            "mapPublicIpOnLaunch": True, "tags": {**TAGS, "trainstack:subnet-role": "edge"}})
        e = res("aws:ec2/eip:Eip", "nat-ip", {"domain": "vpc", "tags": dict(TAGS)})
        nat = res("aws:ec2/natGateway:NatGateway", "nat", {
            "allocationId": "eipalloc-x", "subnetId": "subnet-e", "tags": dict(TAGS)},
            deps={"allocationId": [e], "subnetId": [edge]})
        return s + [edge, e, nat]
    return mutate


VMSS_ID = ("/subscriptions/s/resourceGroups/other-rg/providers/Microsoft.Compute/"
           "virtualMachineScaleSets/legacy")
GCP_MONTH_STOPLESS = "2 x 86.7599 x 730 = 126,669.45 > 30,000"
CASES_4 = [
    ("c01", "aws", {}, asg_by_zones("train-nodes", ["us-east-1b"]), {SSZ: "fail"}, None,
     "the GPU group placed by availabilityZones us-east-1b (default VPC, public IPs off in its "
     "template), mounting the 1a FSx: fail"),
    ("c02", "aws", {}, asg_by_zones("train-nodes", ["us-east-1a"]), {}, None,
     "c01 in us-east-1a: pass (NPI: 'unless it turns public IPs off itself')"),
    ("c03", "aws", {}, asg_by_zones("train-nodes", ["us-east-1a", "us-east-1b"]), {SSZ: "fail"},
     None, "availabilityZones 1a and 1b, mounting the 1a FSx: a span, fail"),
    ("c04", "aws", {}, _chain(asg_by_zones("train-nodes", ["us-east-1b"]),
                              _setp("train-lt", "networkInterfaces", [])),
     {SSZ: "fail", NPI: "fail", RDMA: "advisory"}, None,
     "c01 with a template of no interfaces: the default VPC's public subnets give public IPs "
     "('a violation on it unless it turns public IPs off itself'); rdma: no EFA interfaces is "
     "the advisory" + " (so rdma advisory)"),
    ("c05", "gcp", {}, gcp_mig_zone_from_provider("us-west1-c"), {}, None,
     "the MIG names no zone, the provider's default zone us-west1-c places it: the Lustre is there "
     "and the stop URL names us-west1-c: pass"),
    ("c06", "gcp", {}, gcp_mig_zone_from_provider("us-west1-b"), {SSZ: "fail", SPEND: "fail"},
     None, "the provider's zone us-west1-b: the Lustre (-c) is not in it, and the stop URL names "
     "zone us-west1-c, not the group's: no stop, the month " + GCP_MONTH_STOPLESS),
    ("c07", "ali", {}, cpfs_on_literal_vsw(), {SSZ: "undecided"}, None,
     "the CPFS on a literal vSwitch with no zoneId: 'a CPFS file system's vswitchId where its "
     "zoneId is left out' is cannot decide"),
    ("c08", "ali", {}, cpfs_on_literal_vsw(), {}, ZONES({"vsw-0cpfs": "eu-central-1a"}),
     "c07 told 1a: pass"),
    ("c09", "ali", {}, cpfs_on_literal_vsw(), {SSZ: "fail"}, ZONES({"vsw-0cpfs": "eu-central-1c"}),
     "c07 told 1c: fail"),
    ("c10", "azure", {}, az_spread(["1", "2"]), {}, None,
     "4 NC4as_T4_v3 over zones 1 and 2 reading only the eastus account: pass (4 x 0.526 x 730 = "
     "1,535.92 more: <= 22,822 < 25,000)"),
    ("c11", "azure", {}, az_spread(["1", "2"], ("fs", "data")), {SSZ: "fail"}, None,
     "the spread set mounts the zone-1 AMLFS: fail"),
    ("c12", "azure", {}, az_spread(["2"], ("data",)), {}, None,
     "the inference set in zone 2 reading only the account: pass"),
    ("c13", "ali", {}, _chain(_add(lambda s: res("alicloud:oss/bucket:Bucket", "data2", {
         "forceDestroy": False, "serverSideEncryptionRule": {"sseAlgorithm": "KMS"},
         "tags": {**ALT, "trainstack:retain": "true"}}, retain=True, provider_region="eu-west-1")),
         ali_b(fs=None, mount=["data2"], itype="ecs.gn7i-c8g1.2xlarge", count=1)),
     {SSZ: "fail"}, None, "one gn7i node in 1b reading an OSS bucket in eu-west-1: fail"),
    # -- budgets outside the stack, more
    ("c14", "gcp", {}, gcp_budget("by-number", "100", {"projects": ["projects/123456789012"]}),
     {SPEND: "fail"}, None, "a project by number is 'taken as the stack's own project': the cap "
     "is 100, fail"),
    ("c15", "azure", {}, _chain(az_rg(), az_budget("legacy", 100.0, "/subscriptions/s", {
        "dimensions": {"name": "ResourceId", "operator": "In", "values": [VMSS_ID]}})), {}, None,
     "a 100 budget on the ResourceId of a set in resource group other-rg (not in the stack); the "
     "stack's set bills in ml-rg, so it is not that id: left out, pass"),
    ("c16", "aws", {}, _chain(aws_budget("acct", "100", {"LinkedAccount": ["111111111111"]}),
                              lambda s: (s, {"region": "us-east-1",
                                             "allowedAccountIds": ["111111111111"]})),
     {SPEND: ("fail", "undecided")}, None,
     "the provider allows only account 111111111111 and a 100 budget names it: it covers the "
     "compute (fail) or the pack does not read allowedAccountIds (undecided); never a pass"),
    ("c17", "aws", {}, _chain(aws_budget("acct", "100", {"LinkedAccount": ["222222222222"]}),
                              lambda s: (s, {"region": "us-east-1",
                                             "allowedAccountIds": ["111111111111"]})),
     {SPEND: ("pass", "undecided")}, None,
     "the provider allows only 111111111111; a 100 budget on 222222222222 cannot take the compute "
     "in (pass) or the provider's accounts are not read (undecided); never a fail"),
    ("c18", "aws", {}, aws_budget("ec2-other", "100", {"Service": ["EC2 - Other"]}), {}, None,
     "a 100 'EC2 - Other' budget (volumes, NAT, transfer): 'leaves them out': pass"),
    # -- exposure, more
    ("c19", "aws", {}, aws_nat(), {}, None,
     "an EIP on a NAT gateway in an edge subnet: no node gets it, pass"),
    ("c20", "aws", {}, _chain(aws_nat(), aws_eip(eip={"networkInterface": "eni-0abc1234567890def"})),
     {NPI: ("fail", "undecided")}, None, "an EIP whose networkInterface is a literal ENI"),
    ("c21", "ali", {}, ali_eip2("i-gw8lit0000000000"), {NPI: ("fail", "undecided")}, None,
     "alicloud:eip/association:Association on a literal ECS instance: not a pass"),
    ("c22", "ali", {}, ali_eip2("lb-gw8lit0000000000", itype="SlbInstance"), {}, None,
     "the same association on a literal load balancer: 'one on a NAT gateway or load balancer "
     "passes'"),
    # -- two regions and the zones config together
    ("c23", "aws", TWO, aws_b(zone="us-west-2a", region=WEST, vpc="vpc-2", fs_subnet=None,
                              mount=["datasets"], subnet_literal=["subnet-0west"]),
     {SSZ: "fail"}, None,
     "a literal-subnet group on the us-west-2 provider reading the us-east-1 bucket: its region "
     "is known from the provider, so the bucket fails whatever its zone"),
    ("c24", "aws", TWO, _chain(aws_b(zone="us-west-2a", region=WEST, vpc="vpc-2", fs_subnet=None,
                                     mount=[], subnet_literal=["subnet-0west"]),
                               literal_fsx_userdata("train-lt-b", region=WEST, drop=False)),
     {SSZ: "undecided"}, ZONES({LIT_FS: "us-east-1a"}),
     "the us-west-2 group on an untold literal subnet mounts a literal FSx told us-east-1a: the "
     "docs keep a group 'placed only by such an id' at 'cannot decide ... until the config tells "
     "its zone' (MY MISTAKE on the first run: I expected the known regions to decide it)"),
]


@pytest.mark.parametrize("case", [pytest.param(c, id=c[0]) for c in CASES_4])
def test_batch4(pack, case):
    _run_case(pack, case)


# ---------------------------------------- probes of DEFECT 1's reach (written after it, apart)
PROBES = [
    ("p01", "aws", {}, _chain(asg_subnets("train-nodes", ["subnet-0lit"]), lambda s: (
        named(s, "train-a").props.pop("availabilityZone"),
        named(s, "train-a").props.update(availabilityZoneId="use1-az4"), s)[-1]),
     {SSZ: "undecided"}, ZONES({"subnet-0lit": "us-east-1a"}),
     "a zone NAME told for the literal subnet, the FSx on an ID-only subnet: cannot decide, as the "
     "docs say for a name against an AZ ID (holds)"),
    ("p02", "aws", {}, literal_fsx_userdata(), {SSZ: "undecided"}, ZONES({LIT_FS: "use1-az4"}),
     "a literal FSx told an AZ ID, the nodes on a name-only 1a subnet: cannot decide expected"),
    ("p03", "aws", {}, aws_vm(az=None, subnet_lit="subnet-0dev"), {SSZ: "undecided"},
     ZONES({"subnet-0dev": "use1-az4"}),
     "an instance on a literal subnet told use1-az4 beside the 1a group, both mounting the 1a "
     "FSx: cannot decide expected"),
]


@pytest.mark.parametrize("case", _params(PROBES))
def test_probes(pack, case):
    _run_case(pack, case)
