"""Issue 35, a BLIND hostile review (helper review70) of the CrossGuard pack over gRPC, driven as
`pulumi preview --policy-pack policies` drives it (tests/policy_harness.py). Focus, on all four
clouds: (1) same-zone storage scope with storage types and mounts the earlier reviews (62, 64, 65,
67) did not use: EFS regional / One Zone and mount targets, FSx for OpenZFS SINGLE_AZ / MULTI_AZ,
FSx for ONTAP, S3 Express directory buckets, Filestore tiers (and its deprecated `zone`),
Parallelstore, Azure Files and NetApp Files, Alibaba NAS mount targets, CSI volumes on Kubernetes
pools, literal ids with and without `zones`; (2) budget scope: time units and grains, cost types,
filters, periods, notifications; (3) tags / labels and encryption rules on those resources.
About half the cases are correct stacks that must pass. The pack's code was not read: every
verdict comes from docs/policies.md, the catalog CSVs, the Pulumi SDK schemas in .venv and cited
provider pages; each batch's expectations were committed before its first run. Builders are
review67's (copied so this file stands alone, same figures).

RESULTS (agreed / cases on the first run of each blind batch; 217 blind cases, 93 of them
  correct stacks that must pass; 216 agree on the first run, 1 MY mistake, 0 pack defects; plus 1
  probe written after the mistake and counted apart; no xfail):
  batch 1: 51/52 (storage scope): EFS regional vs One Zone, directly and through mount targets,
    mounted by GPU / CPU groups / nothing, two clusters with their own One Zone EFS and swapped,
    CSI PersistentVolumes on EKS pools (GPU in / out of zone, a CPU pool's own EFS: matched to
    the GPU cluster, as the docs define 'only CPU compute mounts'); OpenZFS SINGLE_AZ_1/2,
    MULTI_AZ_1, SINGLE_AZ_HA_2 on a literal subnet with and without `zones`; ONTAP; FSx on a
    literal subnet (no config, told 1a / 1d, config naming another subnet); S3 Express by AZ ID
    vs a name-only or ID-only subnet; a bucket in us-west-2; Filestore ZONAL / BASIC_SSD /
    BASIC_HDD by the deprecated `zone` / ENTERPRISE / REGIONAL in another region; Parallelstore
    in / out of zone; two GCP clusters and swapped; a CPU MIG's own Filestore; a GCS bucket in
    europe-west4; AMLFS in westus2, without zones, mounted only by a CPU set; Azure Files shares
    of an account in westus (read / not read); Azure NetApp Files; CPFS through NAS mount
    targets; CPFS on a literal vSwitch with and without `zones`; OSS in eu-west-1. s26 MY MISTAKE.
  batch 2: 78/78 (budget scope): AWS DAILY / QUARTERLY / ANNUALLY, cost types (amortised,
    blended, credits, refunds, tax), Service / Region / LinkedAccount / PurchaseType / AZ /
    UsageType filters, RI_UTILIZATION and Savings Plans coverage budgets, SNS-only / empty
    subscribers / no notification with and without a STOP_EC2_INSTANCES budget action, periods
    not begun / ended / running, a narrower budget that covers (the cap) or leaves out (no cap),
    notifications unknown as a list / as one entry; GCP calendarPeriod QUARTER / YEAR / MONTH,
    customPeriod of a year (2,500 a month), of a month, not begun, projects by id / number /
    other, credit types, services, subaccounts, Pub/Sub only, IAM recipients disabled with and
    without a channel, labels, forecast rules; Azure Quarterly / Annually / BillingMonth /
    BillingQuarter / BillingAnnual, disabled notifications, action group / role only, forecast,
    Usage category, resource-group scopes, ResourceLocation / MeterSubCategory filters,
    costmanagement:Budget, classic BudgetSubscription, periods, a management group alone.
  batch 3: 62/62 (tags and encryption): misspelt keys (cost_centre, costcenter, cost-centre),
    AWS `Owner` (case-sensitive), provider defaultTags / defaultLabels known, partial, unknown,
    blanks that defaults do not fill, values and maps unknown at preview, an ASG the defaults do
    not reach, budgets, EFS / OpenZFS / Parallelstore / Filestore / AMLFS / ANF / CPFS / vSwitch
    tags; EFS encrypted false / absent / unknown, S3 SSE AES-256 typo vs AES256 / aws:kms:dsse,
    EBS encryption by default in the volume's region vs another, Cloud KMS names (bare, key
    ring only, a key version, unknown), Key Vault URLs (key, version, secret, bare, unknown),
    Azure blob encryption disabled, NAS standard / extreme encryptType 0 / 1 / 2 / absent, CPFS
    encryptType 0, OSS rules.
  batch 4: 26/26: AWS filterExpression in the Budgets API's key names (REGION, SERVICE, not,
    ands, ors, tags, STARTS_WITH), plannedLimits without limitAmount (read: 5,000 caps, fail),
    autoAdjustData and GCP lastPeriodAmount (cannot decide, naming the billing service),
    maxMonthlyUsd against ANNUALLY / DAILY budgets (compared per month) and a MONTHLY one above
    it, CNY budgets per QUARTER and per DAY, zones unknown at preview (One Zone EFS, Filestore),
    a Lustre placed by the provider's default zone, a zoneless Azure set.

MY MISTAKE (fixed in its own commit): s26, an S3 Express directory bucket no GPU group reads. I
  read it as a bucket ('A bucket no cluster reads ... is not flagged wherever it is'); the docs
  list directory buckets among the 'Single-zone storage types ... held to the nodes' zone too' in
  the filesystem-matching paragraph, so an unread one is matched to its region's cluster like an
  unmounted EFS One Zone (s08): cannot decide by AZ ID against a name-only subnet, and a fail
  against another AZ ID (f26, the probe, agrees). The two paragraphs could say which one wins.

DEFECTS: none found in these classes. Every case above has a twin differing in one input with
  the other verdict (s02/s03, s12/s13, s15/s16/s17, s23/s24/s25, s28/s29, s33/s34, s35/s36,
  s40/s41, s47/s48, s49/s50/s51, b01/b02, b08/b09, b21/b22, b23/b24, g01/g02, g06/g07, z06/z07,
  t02/t04, t14/t11, e06/e05, e19/e21, e27/e26, f01/f02, f18/f19, f22/f23, ...).

Planted bug (test side; the pack's code was not read): `_efs` writing the One Zone zone as
  `availabilityZone` (no such EFS input) instead of `availabilityZoneName`: s02 s04 s07 s08 s09 s11
  f20 fail, the other 211 pass; reverted.

Noticed, left alone: (1) FSx for ONTAP SINGLE_AZ (s18) and Azure NetApp Files (s44) in another
  zone than the GPU nodes that mount them pass: neither is in storage-same-zone's coverage nor
  among the single-zone types the docs name (EFS One Zone, OpenZFS SINGLE_AZ, S3 Express), as
  documented; Alibaba standard / extreme NAS zones are likewise not compared (not tried). (2) A
  CSI mount on a Kubernetes pool is not seen (s11): a CPU pool's own One Zone EFS fails as the
  GPU cluster's, per the docs' definition of 'only CPU compute mounts'. (3) docs/policies.md never
  says how a budget of another period is turned into a month (AWS timeUnit, Azure timeGrain incl.
  the Billing* grains, GCP calendarPeriod / customPeriod, plannedLimits): the pack converts them
  all (b01-b05, g01-g08, z01-z08, f09, f12, f14, f16-f19), so only the doc is silent. (4) The docs
  name 'a Parallelstore's kmsKey', but pulumi-gcp 10.2.0's parallelstore.Instance has no such input.
  (5) Not tried: an EFS without any tags map (not in the AWS required-tags list: per the docs not
  judged), EFS in another region, GKE pools with Filestore CSI.

Each case states the verdict of EVERY policy (those not named stay "pass"): "fail", "advisory",
"undecided" ("cannot decide") or "pass"; its `why` is the hand calculation or the cited source.
"""
from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from typing import Any, Callable, Optional

import pytest

from tests.policy_fixtures import (AWS_ALERTS, AZURE_ALERTS, GCP_ALERTS, alicloud_cluster,
                                   azure_cluster, hours_from_now, res)
from tests.policy_harness import PolicyPackProcess, run, verdict

SSZ, SPEND, TAGS_P, RDMA = "storage-same-zone", "spend-limit", "required-tags", "rdma-for-multinode"
NPI, ENC, RET = "no-public-ingress", "encryption-at-rest", "bucket-retained"
POLICIES = (SSZ, SPEND, TAGS_P, RDMA, NPI, ENC, RET)
TAGS = {"owner": "bob", "team": "research", "cost-center": "4711"}
LABELS = {"owner": "bob", "team": "research", "cost_center": "4711"}
AZ_TAGS = {"owner": "alice", "team": "ml", "cost-center": "1234"}
SECRET_SIG = "4dabf18193072939515e22adb298388d"


def unknown() -> Any:
    from trainstack_policies.model import UNKNOWN
    return UNKNOWN


def secret(value: Any) -> dict:
    """A value the program marks secret, as the engine sends it to the pack."""
    return {SECRET_SIG: "1b47061264138c4ac30d75fd1eb44270", "value": value}


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


VN = "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/v"
ALI = "eu-central-1"
AZT = dict(AZ_TAGS)
ALT = {"owner": "alice", "team": "ml", "cost-center": "1234"}   # alicloud_cluster's owner tags


# ------------------------------------------------------------------------- batch 1 (storage)
# Figures: AWS base ~12,141 (2 p5 x 96 h + FSx + bucket) < 20,000; a second group of 2
# g5.xlarge (1.006 USD/h, prices.csv us-east-1) with no stop adds 2 x 1.006 x 730 = 1,468.76.
# A filesystem with no cited price is priced at the catalog's lowest parallel-filesystem price
# (filesystem_prices.csv: 0.145 USD/GiB-month, gcp managed_lustre_125): an OpenZFS of 1,024 GB or
# a Filestore of 2,560 GiB adds <= ~400 (+ the bucket at the filesystems' capacity, 0.023 / 0.02
# per GB). Parallelstore 12,000 GiB x 0.0001917808 x 730 = 1,680.00 (storage_prices.csv), the
# GCP bucket + 12,000 x 1.0737 x 0.02 = 257.70: GCP 25,164.51 + 1,937.70 = 27,102.21 < 30,000.
# a2-highgpu-1g us-west1 3.67339 (x 730 = 2,681.57). EFS has no capacity input (elastic).

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


def _efs(name: str, zone: Optional[str] = None, encrypted: Any = True,
         tags: Optional[dict] = None, region: Optional[str] = None):
    props: dict = {"performanceMode": "generalPurpose", "throughputMode": "elastic",
                   "creationToken": name, "tags": dict(TAGS) if tags is None else tags}
    if encrypted is not None:
        props["encrypted"] = encrypted
    if zone:
        props["availabilityZoneName"] = zone
    if region:
        props["region"] = region
    return lambda s: res("aws:efs/fileSystem:FileSystem", name, props)


def _efs_mt(name: str, fs: str, subnet: str):
    return lambda s: res("aws:efs/mountTarget:MountTarget", name,
                         {"fileSystemId": "fs-x", "subnetId": "subnet-x"},
                         deps={"fileSystemId": [named(s, fs)], "subnetId": [named(s, subnet)]})


def _zfs(name: str, dtype: str, subnets: list, literal: Optional[list] = None,
         tags: Optional[dict] = None):
    def build(s):
        props: dict = {"deploymentType": dtype, "storageCapacity": 1024.0,
                       "throughputCapacity": 160.0, "storageType": "SSD",
                       "subnetIds": literal or ["subnet-x"] * len(subnets),
                       "tags": dict(TAGS) if tags is None else tags}
        deps = {"subnetIds": [named(s, n) for n in subnets]} if subnets else {}
        if dtype.startswith("MULTI"):
            props["preferredSubnetId"] = (literal or ["subnet-x"])[0]
            if subnets:
                deps["preferredSubnetId"] = [named(s, subnets[0])]
        return res("aws:fsx/openZfsFileSystem:OpenZfsFileSystem", name, props, deps=deps)
    return build


def _ontap(name: str, subnet: str):
    return lambda s: res("aws:fsx/ontapFileSystem:OntapFileSystem", name, {
        "deploymentType": "SINGLE_AZ_2", "storageCapacity": 1024.0,
        "throughputCapacityPerHaPair": 384.0, "haPairs": 1.0, "subnetIds": ["subnet-x"],
        "preferredSubnetId": "subnet-x", "tags": dict(TAGS)},
        deps={"subnetIds": [named(s, subnet)], "preferredSubnetId": [named(s, subnet)]})


def _asg2(name: str, subnet: str, itype: str = "g5.xlarge", max_size: float = 2.0):
    """A second AWS group (own template, no public IP) on `subnet`, tags propagated, no stop."""
    def build(s):
        lt = res("aws:ec2/launchTemplate:LaunchTemplate", f"{name}-lt", {
            "instanceType": itype, "tags": dict(TAGS), "userData": "IyEvYmluL2Jhc2g=",
            "networkInterfaces": [{"deviceIndex": 0.0, "associatePublicIpAddress": "false"}],
            "tagSpecifications": [{"resourceType": "instance", "tags": dict(TAGS)}]})
        asg = res("aws:autoscaling/group:Group", name, {
            "minSize": 0.0, "maxSize": max_size, "vpcZoneIdentifiers": ["subnet-y"],
            "launchTemplate": {"id": "lt-y", "version": "$Latest"},
            "tags": [{"key": k, "value": v, "propagateAtLaunch": True} for k, v in TAGS.items()]},
            deps={"launchTemplate": [lt], "vpcZoneIdentifiers": [named(s, subnet)]})
        return [lt, asg]
    return build


def _eks(name: str, subnet: str, itype: str = "g5.xlarge"):
    return lambda s: res("aws:eks/nodeGroup:NodeGroup", name, {
        "clusterName": "train", "nodeRoleArn": "arn:aws:iam::111111111111:role/ng",
        "subnetIds": ["subnet-x"], "instanceTypes": [itype],
        "scalingConfig": {"minSize": 0.0, "maxSize": 2.0, "desiredSize": 2.0}, "tags": dict(TAGS)},
        deps={"subnetIds": [named(s, subnet)]})


def _pv(name: str, fs: str, driver: str = "efs.csi.aws.com"):
    """A Kubernetes PersistentVolume whose CSI volume handle is the filesystem's id."""
    return lambda s: res("kubernetes:core/v1:PersistentVolume", name, {
        "metadata": {"name": name}, "spec": {
            "capacity": {"storage": "5Ti"}, "accessModes": ["ReadWriteMany"],
            "persistentVolumeReclaimPolicy": "Retain",
            "csi": {"driver": driver, "volumeHandle": "fs-x"}}}, deps={"spec": [named(s, fs)]})


def _dirbucket(az_id: str):
    return lambda s: res("aws:s3/directoryBucket:DirectoryBucket", "express", {
        "bucket": f"ckpt--{az_id}--x-s3", "location": {"name": az_id, "type": "AvailabilityZone"},
        "dataRedundancy": "SingleAvailabilityZone", "type": "Directory", "forceDestroy": False,
        "tags": dict(TAGS)})


def _subnet_id_only(az_id: str):
    """The base subnet given only its AZ ID (aws.ec2.Subnet takes either)."""
    def mutate(s):
        p = named(s, "train-a").props
        p.pop("availabilityZone", None)
        p["availabilityZoneId"] = az_id
        return s
    return mutate


def _fsx_literal(subnet: str = "subnet-0lit"):
    def mutate(s):
        fs = named(s, "scratch")
        fs.props["subnetIds"] = [subnet]
        fs.deps.pop("subnetIds", None)
        return s
    return mutate


# GCP storage
def _g_filestore(name: str, tier: str, where: str = "us-west1-c", key: str = "location",
                 kms: Optional[str] = None, labels: Optional[dict] = None):
    props: dict = {"tier": tier, key: where, "fileShares": {"name": "share", "capacityGb": 2560.0},
                   "networks": [{"network": "train", "modes": ["MODE_IPV4"]}],
                   "labels": dict(LABELS) if labels is None else labels}
    if kms is not None:
        props["kmsKeyName"] = kms
    return lambda s: res("gcp:filestore/instance:Instance", name, props)


def _g_pstore(name: str, where: str = "us-west1-c", labels: Optional[dict] = None):
    return lambda s: res("gcp:parallelstore/instance:Instance", name, {
        "instanceId": name, "location": where, "capacityGib": "12000",
        "network": "projects/ml/global/networks/train", "deploymentType": "SCRATCH",
        "labels": dict(LABELS) if labels is None else labels})


def _g_mig2(name: str, zone: str, mounts: list, mtype: str = "a2-highgpu-1g", target: float = 1.0):
    """A second GCP MIG (own template, no external IP) whose startup script names `mounts`."""
    def build(s):
        tpl = res("gcp:compute/instanceTemplate:InstanceTemplate", f"{name}-tpl", {
            "machineType": mtype, "networkInterfaces": [{"network": "train"}],
            "labels": dict(LABELS), "metadata": {"startup-script": "mount"}},
            deps={"metadata": [named(s, m) for m in mounts]})
        mig = res("gcp:compute/instanceGroupManager:InstanceGroupManager", name, {
            "zone": zone, "targetSize": target, "baseInstanceName": name, "name": name,
            "versions": [{"instanceTemplate": "tpl-2"}]}, deps={"versions": [tpl]})
        return [tpl, mig]
    return build


def _g_remount(tpl: str, *fs: str):
    """The template's startup script names only `fs` (and the bucket)."""
    def mutate(s):
        t = named(s, tpl)
        t.deps["metadata"] = [d for d in t.deps["metadata"] if d.type == "gcp:storage/bucket:Bucket"]
        t.deps["metadata"] += [named(s, n) for n in fs]
        return s
    return mutate


# Azure storage
def _az_share(s):
    return res("azure-native:storage:FileShare", "share", {
        "accountName": "data", "resourceGroupName": "rg", "shareName": "ckpt",
        "shareQuota": 1024.0, "enabledProtocols": "SMB"}, deps={"accountName": [named(s, "data")]})


def _az_anf(zone: str):
    return lambda s: res("azure-native:netapp:Volume", "anf-vol", {
        "location": "eastus", "zones": [zone], "accountName": "anf", "poolName": "pool",
        "resourceGroupName": "rg", "creationToken": "ckpt", "serviceLevel": "Premium",
        "usageThreshold": 107374182400.0, "subnetId": f"{VN}/subnets/anf", "tags": dict(AZT)})


def _az_cpu_set(zone: str, mounts: list):
    def build(s):
        base = named(s, "nodes")
        props = json.loads(json.dumps(base.props))
        props["zones"] = [zone]
        props["sku"] = {"name": "Standard_D8s_v5", "capacity": 2.0, "tier": "Standard"}
        return res("azure-native:compute:VirtualMachineScaleSet", "cpu-set", props,
                   deps={"virtualMachineProfile": [named(s, m) for m in mounts]})
    return build


def _az_deps(name: str, *keep: str):
    def mutate(s):
        r = named(s, name)
        r.deps["virtualMachineProfile"] = [named(s, k) for k in keep]
        return s
    return mutate


# Alibaba storage
def _ali_vsw_b(s):
    return res("alicloud:vpc/switch:Switch", "vsw-b", {"zoneId": "eu-central-1b",
                                                       "tags": dict(ALT)}, provider_region=ALI)


def _ali_mt(fs: str, vsw: str):
    return lambda s: res("alicloud:nas/mountTarget:MountTarget", "fs-mt", {
        "fileSystemId": "fs-id", "vswitchId": "vsw-id", "vpcId": "vpc-id",
        "networkType": "Vpc"}, deps={"fileSystemId": [named(s, fs)],
                                     "vswitchId": [named(s, vsw)]}, provider_region=ALI)


def _ali_nodes_mount(*names: str):
    def mutate(s):
        for n in ("node-0", "node-1"):
            r = named(s, n)
            r.deps["userData"] = [named(s, "data")] + [named(s, x) for x in names]
        return s
    return mutate


def _ali_cpfs_literal_vsw(s):
    fs = named(s, "fs")
    fs.props.pop("zoneId", None)
    fs.props["vswitchId"] = "vsw-0lit"
    fs.props["vpcId"] = "vpc-0lit"
    return s


ZONES = lambda z: {SSZ: {"zones": z}}   # noqa: E731

B1 = [
    # ----- AWS: EFS regional / One Zone, mount targets
    ("s01", "aws", {}, _chain(_add(_sub("train-b"), _efs("home"), _efs_mt("home-b", "home", "train-b")),
                              _mount("train-lt", "home-b")), {}, None,
     "a regional EFS (no availabilityZoneName) whose only mount target is in us-east-1b, mounted by "
     "the us-east-1a GPU template through it: EFS is regional (docs: 'An EFS name (.efs.) is not "
     "matched: EFS is regional'; only One Zone is held to the nodes' zone)"),
    ("s02", "aws", {}, _chain(_add(_sub("train-b"), _efs("home", zone="us-east-1b"),
                                   _efs_mt("home-b", "home", "train-b")),
                              _mount("train-lt", "home-b")), {SSZ: "fail"}, None,
     "EFS One Zone in us-east-1b mounted by the us-east-1a GPU template through its mount target "
     "(docs: 'Single-zone storage types are held to the nodes' zone too: EFS One Zone "
     "(availabilityZoneName)'; matched 'directly or through a mount target (EFS, NAS)')"),
    ("s03", "aws", {}, _chain(_add(_efs("home", zone="us-east-1a"), _efs_mt("home-a", "home", "train-a")),
                              _mount("train-lt", "home-a")), {}, None,
     "EFS One Zone in us-east-1a, the nodes' zone, through a mount target on their subnet"),
    ("s04", "aws", {}, _chain(_add(_sub("train-b"), _efs("home", zone="us-east-1b")),
                              _mount("train-lt", "home")), {SSZ: "fail"}, None,
     "EFS One Zone in us-east-1b mounted directly (the user data built from its DNS name)"),
    ("s05", "aws", {}, _chain(_add(_sub("train-b"), _efs("home", zone="us-east-1b"),
                                   _efs_mt("home-b", "home", "train-b"),
                                   _asg2("cpu", "train-b", itype="m5.2xlarge")),
                              _mount("cpu-lt", "home-b")), {}, None,
     "EFS One Zone in us-east-1b mounted only by a CPU group (m5.2xlarge) there (docs: 'A filesystem "
     "that only CPU compute mounts ... is not judged'); m5.2xlarge is not in the catalog: left out"),
    ("s06", "aws", {}, _chain(_add(_sub("train-b"), _efs("home", zone="us-east-1b"),
                                   _efs_mt("home-b", "home", "train-b"), _asg2("gpu-b", "train-b")),
                              _mount("gpu-b-lt", "home-b")), {}, None,
     "two GPU clusters: the p5 group in us-east-1a with its FSx there, a g5.xlarge group in "
     "us-east-1b mounting its EFS One Zone in us-east-1b; ~12,141 + 1,468.76 < 20,000"),
    ("s07", "aws", {}, _chain(_add(_sub("train-b"), _efs("home", zone="us-east-1b"),
                                   _efs_mt("home-b", "home", "train-b"), _asg2("gpu-b", "train-b")),
                              _mount("train-lt", "home-b")), {SSZ: "fail"}, None,
     "s06 with the EFS mounted by the us-east-1a p5 template instead (the g5 group mounts nothing): "
     "a group seen to mount a One Zone EFS in another zone"),
    ("s08", "aws", {}, _add(_sub("train-b"), _efs("home", zone="us-east-1b"),
                            _efs_mt("home-b", "home", "train-b")), {SSZ: "fail"}, None,
     "EFS One Zone in us-east-1b that nothing mounts, the only GPU cluster in us-east-1a (docs: "
     "steps 3-5, 'otherwise fails as not in the GPU nodes' zone')"),
    ("s09", "aws", {}, _chain(_add(_sub("train-b"), _efs("home", zone="us-east-1b"),
                                   _efs_mt("home-b", "home", "train-b"), _eks("gpu-ng", "train-a"),
                                   _pv("home-pv", "home")),
                              ), {SSZ: "fail"}, None,
     "an EKS GPU node group in us-east-1a reading a One Zone EFS in us-east-1b through a CSI "
     "PersistentVolume: no group depends on it, so it is matched by region: not the nodes' zone"),
    ("s10", "aws", {}, _add(_efs("home", zone="us-east-1a"), _efs_mt("home-a", "home", "train-a"),
                            _eks("gpu-ng", "train-a"), _pv("home-pv", "home")), {}, None,
     "s09 with the One Zone EFS in us-east-1a, the pool's zone; 2 g5.xlarge month 1,468.76 + ~12,141"),
    ("s11", "aws", {}, _add(_sub("train-b"), _efs("home", zone="us-east-1b"),
                            _efs_mt("home-b", "home", "train-b"), _eks("cpu-ng", "train-b", "m5.2xlarge"),
                            _pv("home-pv", "home")), {SSZ: "fail"}, None,
     "a CPU EKS pool in us-east-1b reading its One Zone EFS there through CSI only: no launch "
     "template, instance template or group depends on it, so it is not 'only CPU compute mounts' "
     "(docs' definition) and is matched to the GPU cluster of its region (us-east-1a): a "
     "documented limit (a CSI mount is not seen), expected fail"),
    # ----- AWS: FSx for OpenZFS, ONTAP
    ("s12", "aws", {}, _chain(_add(_sub("train-b"), _zfs("zfs", "SINGLE_AZ_2", ["train-b"])),
                              _mount("train-lt", "zfs")), {SSZ: "fail"}, None,
     "FSx for OpenZFS SINGLE_AZ_2 in us-east-1b mounted by the us-east-1a GPU template (docs: 'FSx "
     "for OpenZFS SINGLE_AZ (its subnet; MULTI_AZ is regional)')"),
    ("s13", "aws", {}, _chain(_add(_zfs("zfs", "SINGLE_AZ_1", ["train-a"])),
                              _mount("train-lt", "zfs")), {}, None,
     "OpenZFS SINGLE_AZ_1 on the nodes' own subnet; 1,024 GB priced <= ~200"),
    ("s14", "aws", {}, _chain(_add(_sub("train-b"), _zfs("zfs", "MULTI_AZ_1", ["train-b", "train-a"])),
                              _mount("train-lt", "zfs")), {}, None,
     "OpenZFS MULTI_AZ_1 over us-east-1b (preferred) and us-east-1a: regional, passes"),
    ("s15", "aws", {}, _chain(_add(_zfs("zfs", "SINGLE_AZ_HA_2", [], literal=["subnet-0zfs"])),
                              _mount("train-lt", "zfs")), {SSZ: "undecided"}, None,
     "OpenZFS SINGLE_AZ_HA_2 on a literal subnet id the stack does not create, no zones config "
     "(docs: 'an FSx for Lustre's or FSx for OpenZFS SINGLE_AZ's subnetIds ... cannot decide')"),
    ("s16", "aws", {}, _chain(_add(_zfs("zfs", "SINGLE_AZ_HA_2", [], literal=["subnet-0zfs"])),
                              _mount("train-lt", "zfs")), {SSZ: "fail"},
     ZONES({"subnet-0zfs": "us-east-1c"}),
     "s15 with zones {subnet-0zfs: us-east-1c}: 'then it is judged like any other'"),
    ("s17", "aws", {}, _chain(_add(_zfs("zfs", "SINGLE_AZ_HA_2", [], literal=["subnet-0zfs"])),
                              _mount("train-lt", "zfs")), {},
     ZONES({"subnet-0zfs": "us-east-1a"}), "s15 told in us-east-1a: passes"),
    ("s18", "aws", {}, _chain(_add(_sub("train-b"), _ontap("ontap", "train-b")),
                              _mount("train-lt", "ontap")), {}, None,
     "FSx for ONTAP SINGLE_AZ_2 in us-east-1b mounted by the GPU template: ONTAP is neither a "
     "parallel filesystem the docs list nor one of the single-zone types named (EFS One Zone, "
     "OpenZFS SINGLE_AZ, S3 Express); not in the coverage table: not judged (noted)"),
    # ----- AWS: FSx on a literal subnet, S3 Express, buckets
    ("s19", "aws", {}, _fsx_literal(), {SSZ: "undecided"}, None,
     "the FSx on a literal subnet id the stack does not create, no zones config: 'cannot decide ... "
     "naming the id and this key'"),
    ("s20", "aws", {}, _fsx_literal(), {}, ZONES({"subnet-0lit": "us-east-1a"}),
     "s19 told us-east-1a"),
    ("s21", "aws", {}, _fsx_literal(), {SSZ: "fail"}, ZONES({"subnet-0lit": "us-east-1d"}),
     "s19 told us-east-1d"),
    ("s22", "aws", {}, _fsx_literal(), {SSZ: "undecided"}, ZONES({"subnet-0other": "us-east-1a"}),
     "s19 with a zones config that names another subnet: still cannot decide"),
    ("s23", "aws", {}, _chain(_add(_dirbucket("use1-az4")), _mount("train-lt", "express")),
     {SSZ: "undecided"}, None,
     "an S3 Express directory bucket in use1-az4 read by the GPU template, the nodes' subnet named "
     "by zone name only (docs: 'compared with a zone name it is cannot decide, since which name an "
     "AZ ID has differs from one AWS account to another')"),
    ("s24", "aws", {}, _chain(_add(_dirbucket("use1-az4")), _mount("train-lt", "express"),
                              _subnet_id_only("use1-az4")), {}, None,
     "s23 with the nodes' subnet given availabilityZoneId use1-az4: same AZ ID (the FSx on the "
     "same subnet)"),
    ("s25", "aws", {}, _chain(_add(_dirbucket("use1-az6")), _mount("train-lt", "express"),
                              _subnet_id_only("use1-az4")), {SSZ: "fail"}, None,
     "s24 with the directory bucket in use1-az6: another AZ ID"),
    ("s26", "aws", {}, _add(_dirbucket("use1-az6")), {SSZ: "undecided"}, None,
     "a directory bucket in use1-az6 no GPU cluster reads. MY MISTAKE (first run): I read it as a "
     "bucket ('A bucket no cluster reads ... is not flagged'); the docs list S3 Express directory "
     "buckets among the 'Single-zone storage types ... held to the nodes' zone too', in the "
     "filesystem-matching paragraph (steps 3-5 match an unmounted one to its region's cluster), "
     "so it is compared by AZ ID with a name-only subnet: cannot decide"),
    ("s27", "aws", {}, _setp("datasets", "region", "us-west-2"), {SSZ: "fail"}, None,
     "the datasets bucket (read by the template's user data and the DRA) in us-west-2 (its own "
     "region input), the nodes in us-east-1"),
    # ----- GCP: Filestore tiers, Parallelstore, two clusters
    ("s28", "gcp", {}, _chain(_add(_g_filestore("home", "ZONAL", "us-west1-b")),
                              _mount("train-tpl", "home", key="metadata")), {SSZ: "fail"}, None,
     "a ZONAL Filestore in us-west1-b named by the GPU template's startup script, nodes in "
     "us-west1-c"),
    ("s29", "gcp", {}, _chain(_add(_g_filestore("home", "BASIC_SSD", "us-west1-c")),
                              _mount("train-tpl", "home", key="metadata")), {}, None,
     "a BASIC_SSD Filestore in us-west1-c, the nodes' zone; ~25,600 < 30,000"),
    ("s30", "gcp", {}, _chain(_add(_g_filestore("home", "BASIC_HDD", "us-west1-a", key="zone")),
                              _mount("train-tpl", "home", key="metadata")), {SSZ: "fail"}, None,
     "a BASIC_HDD Filestore placed by the deprecated `zone` input (us-west1-a): the docs read GCP "
     "'zone/location'"),
    ("s31", "gcp", {}, _chain(_add(_g_filestore("home", "ENTERPRISE", "us-west1")),
                              _mount("train-tpl", "home", key="metadata")), {}, None,
     "an ENTERPRISE Filestore in us-west1 (docs: 'A regional Filestore tier (REGIONAL, ENTERPRISE) "
     "is compared by region only')"),
    ("s32", "gcp", {}, _chain(_add(_g_filestore("home", "REGIONAL", "us-east1")),
                              _mount("train-tpl", "home", key="metadata")), {SSZ: "fail"}, None,
     "a REGIONAL Filestore in us-east1 mounted by the us-west1 nodes: another region"),
    ("s33", "gcp", {}, _chain(_add(_g_pstore("pstore", "us-west1-b")),
                              _mount("train-tpl", "pstore", key="metadata")), {SSZ: "fail"}, None,
     "Parallelstore in us-west1-b mounted by the us-west1-c template"),
    ("s34", "gcp", {}, _chain(_add(_g_pstore("pstore", "us-west1-c")),
                              _mount("train-tpl", "pstore", key="metadata")), {}, None,
     "Parallelstore in us-west1-c; 25,164.51 + 1,680.00 + 257.70 = 27,102.21 < 30,000"),
    ("s35", "gcp", {"budget": "40000"}, _add(_g_filestore("home-a", "ZONAL", "us-west1-a"),
                                            _g_mig2("mig-a", "us-west1-a", ["home-a"])), {}, None,
     "a second GPU cluster (1 a2-highgpu-1g) in us-west1-a mounting its ZONAL Filestore there, the "
     "base in us-west1-c with its Lustre: two clusters pass; ~25,164 + 2,681.57 + ~430 < 40,000"),
    ("s36", "gcp", {"budget": "40000"}, _chain(
        _add(_g_filestore("home-a", "ZONAL", "us-west1-a"), _g_mig2("mig-a", "us-west1-a", ["scratch"])),
        _g_remount("train-tpl", "home-a")), {SSZ: "fail"}, None,
     "s35 with the mounts swapped: each cluster mounts the other zone's filesystem"),
    ("s37", "gcp", {"budget": "40000"}, _add(
        _g_filestore("home-a", "ZONAL", "us-west1-a"),
        _g_mig2("cpu-a", "us-west1-a", ["home-a"], mtype="n2-standard-8", target=2.0)), {}, None,
     "a CPU MIG (n2-standard-8) in us-west1-a mounting its own ZONAL Filestore: not judged"),
    ("s38", "gcp", {}, _setp("datasets", "location", "EUROPE-WEST4"), {SSZ: "fail"}, None,
     "the datasets bucket (named by the startup script) in europe-west4, nodes in us-west1"),
    # ----- Azure: AMLFS region / zones, Azure Files, NetApp, CPU mounts
    ("s39", "azure", {}, _setp("fs", "location", "westus2"), {SSZ: "fail"}, None,
     "the AMLFS the set mounts in westus2 zone 1, the set in eastus zone 1: another region"),
    ("s40", "azure", {"account_location": "westus"}, None, {SSZ: "fail"}, None,
     "the storage account the set's custom data names in westus, the set in eastus"),
    ("s41", "azure", {"account_location": "westus"}, _az_deps("nodes", "fs"), {}, None,
     "s40 with the set naming only the AMLFS: the westus account is read by no cluster"),
    ("s42", "azure", {"account_location": "westus"},
     _chain(_add(_az_share), _az_deps("nodes", "fs", "share")),
     {SSZ: "fail"}, None,
     "an Azure Files share of the westus account mounted by the set (the set depends on the share, "
     "'a part of it', as a blob container)"),
    ("s43", "azure", {}, _chain(_add(_az_share), _az_deps("nodes", "fs", "share")), {}, None,
     "s42 with the account in eastus"),
    ("s44", "azure", {}, _chain(_add(_az_anf("2")), _az_deps("nodes", "fs", "data", "anf-vol")), {}, None,
     "an Azure NetApp Files volume in zone 2 mounted by the zone-1 set: not a filesystem the docs "
     "compare (not in the coverage table): not judged (noted)"),
    ("s45", "azure", {}, lambda s: (named(s, "fs").props.pop("zones") and s), {SSZ: "fail"}, None,
     "an AMLFS with no zones input, mounted by the set: 'the filesystem's zone cannot be read' "
     "(mandatory) for a filesystem whose zone the pack could never read"),
    ("s46", "azure", {"fs_zone": "2"}, _chain(_az_deps("nodes", "data"), _add(_az_cpu_set("2", ["fs"]))),
     {}, None,
     "the AMLFS in zone 2 mounted only by a CPU set (Standard_D8s_v5, not in the catalog) in zone "
     "2; the GPU set in zone 1 mounts only the account: not judged"),
    # ----- Alibaba: CPFS through mount targets, literal vSwitch, OSS region
    ("s47", "ali", {"fs_zone": "eu-central-1b"}, _chain(_add(_ali_vsw_b, _ali_mt("fs", "vsw-b")),
                                                       _ali_nodes_mount("fs-mt")), {SSZ: "fail"}, None,
     "CPFS in eu-central-1b reached through a NAS mount target on a vSwitch there, the GPU nodes' "
     "user data built from the mount target: not their zone"),
    ("s48", "ali", {}, _chain(_add(_ali_mt("fs", "vsw")), _ali_nodes_mount("fs-mt")), {}, None,
     "s47 with CPFS and mount target in eu-central-1a"),
    ("s49", "ali", {}, _ali_cpfs_literal_vsw, {SSZ: "undecided"}, None,
     "CPFS placed only by a literal vswitchId, zoneId left out (docs: 'a CPFS file system's "
     "vswitchId where its zoneId is left out, cannot decide')"),
    ("s50", "ali", {}, _ali_cpfs_literal_vsw, {}, ZONES({"vsw-0lit": "eu-central-1a"}),
     "s49 told eu-central-1a"),
    ("s51", "ali", {}, _ali_cpfs_literal_vsw, {SSZ: "fail"}, ZONES({"vsw-0lit": "eu-central-1b"}),
     "s49 told eu-central-1b"),
    ("s52", "ali", {"bucket_region": "eu-west-1"}, None, {SSZ: "fail"}, None,
     "the OSS bucket the nodes' user data names in eu-west-1 (its provider's region), the nodes in "
     "eu-central-1"),
]


@pytest.mark.parametrize("case", _params(B1))
def test_batch1(pack, case):
    _run_case(pack, case)


# ------------------------------------------------------------------------- batch 2 (budgets)
# Base estimates (review67's figures): AWS 12,032.21 to ~12,141 (budget 20,000); GCP 25,164.51
# (budget 30,000); Azure <= 21,286.07 and >= 20,940 whatever AMLFS row (budget 25,000).
# A budget of another period is a cap per month of its amount / its months (test_policy_decisions'
# 'a quarterly budget caps a third of it per month'; review35's ANNUALLY 240,000 = 20,000): a
# DAILY amount is x 28..31 days. Thresholds are kept far from the estimates.
NOW = datetime.now(timezone.utc)


def _aws_day(days: float) -> str:
    return (NOW + timedelta(days=days)).strftime("%Y-%m-%d_%H:%M")


def _g_date(days: float) -> dict:
    d = NOW + timedelta(days=days)
    return {"year": float(d.year), "month": float(d.month), "day": float(d.day)}


def _az_iso(days: float) -> str:
    return (NOW + timedelta(days=days)).strftime("%Y-%m-%dT00:00:00Z")


def _abud(**props):
    """Set inputs of the AWS base budget (None drops the input)."""
    def mutate(s):
        p = named(s, "train-budget").props
        for k, v in props.items():
            if v is None:
                p.pop(k, None)
            else:
                p[k] = v
        return s
    return mutate


def _gbud(**props):
    def mutate(s):
        p = named(s, "train-budget").props
        for k, v in props.items():
            if v is None:
                p.pop(k, None)
            else:
                p[k] = v
        return s
    return mutate


def _gfilter(**f):
    return _gbud(budgetFilter=f)


def _g_amount(units: str):
    return {"specifiedAmount": {"currencyCode": "USD", "units": units}}


def _zbud(**props):
    def mutate(s):
        p = named(s, "budget").props
        for k, v in props.items():
            if v is None:
                p.pop(k, None)
            else:
                p[k] = v
        return s
    return mutate


def _cf(name: str, *values: str) -> list:
    return [{"name": name, "values": list(values)}]


def _aws_bud2(name: str, amount: str, **props):
    return lambda s: res("aws:budgets/budget:Budget", name, {
        "budgetType": "COST", "timeUnit": "MONTHLY", "limitAmount": amount, "limitUnit": "USD",
        "notifications": AWS_ALERTS, "tags": dict(TAGS), **props})


def _aws_action(s):
    return res("aws:budgets/budgetAction:BudgetAction", "stop-gpus", {
        "budgetName": "train-budget", "actionType": "RUN_SSM_DOCUMENTS",
        "approvalModel": "AUTOMATIC", "notificationType": "ACTUAL",
        "actionThreshold": {"actionThresholdType": "PERCENTAGE", "actionThresholdValue": 100.0},
        "definition": {"ssmActionDefinition": {"actionSubType": "STOP_EC2_INSTANCES",
                                               "region": "us-east-1", "instanceIds": ["i-0abc"]}},
        "executionRoleArn": "arn:aws:iam::111111111111:role/budget-actions",
        "subscribers": [{"address": "ml-platform@example.com", "subscriptionType": "EMAIL"}],
        "tags": dict(TAGS)}, deps={"budgetName": [named(s, "train-budget")]})


def _az_rg(s):
    named(s, "nodes").props["resourceGroupName"] = "rg"
    return s


def _az_dim(name: str, *values: str) -> dict:
    return {"dimensions": {"name": name, "operator": "In", "values": list(values)}}


def _az_note(**kw) -> dict:
    n = {"enabled": True, "operator": "GreaterThan", "threshold": 80.0}
    n.update(kw)
    return {"actual80": n}


def _az_replace(type_: str, props: dict):
    def mutate(s):
        return [r for r in s if r.name != "budget"] + [res(type_, "budget", props)]
    return mutate


SNS = [{"comparisonOperator": "GREATER_THAN", "threshold": 80.0, "thresholdType": "PERCENTAGE",
        "notificationType": "FORECASTED",
        "subscriberSnsTopicArns": ["arn:aws:sns:us-east-1:111111111111:budget"]}]
NOBODY = [{"comparisonOperator": "GREATER_THAN", "threshold": 80.0, "thresholdType": "PERCENTAGE",
           "notificationType": "ACTUAL", "subscriberEmailAddresses": [],
           "subscriberSnsTopicArns": []}]
EC2 = "Amazon Elastic Compute Cloud - Compute"
COMPUTE = "services/6F81-5844-456A"
GCS = "services/95FF-2EF5-5EA1"
MG = "/providers/Microsoft.Management/managementGroups/research"

B2 = [
    # ----- AWS: time units and cost types
    ("b01", "aws", {"budget": "500"}, _abud(timeUnit="DAILY"), {}, None,
     "DAILY 500: 14,000..15,500 a month (28..31 days) >= ~12,141"),
    ("b02", "aws", {"budget": "350"}, _abud(timeUnit="DAILY"), {SPEND: "fail"}, None,
     "DAILY 350: at most 350 x 31 = 10,850 a month < 12,032.21"),
    ("b03", "aws", {"budget": "180000"}, _abud(timeUnit="ANNUALLY"), {}, None,
     "ANNUALLY 180,000 = 15,000 a month >= ~12,141"),
    ("b04", "aws", {"budget": "120000"}, _abud(timeUnit="ANNUALLY"), {SPEND: "fail"}, None,
     "ANNUALLY 120,000 = 10,000 a month < 12,032.21"),
    ("b05", "aws", {"budget": "45000"}, _abud(timeUnit="QUARTERLY"), {}, None,
     "QUARTERLY 45,000 = 15,000 a month"),
    ("b06", "aws", {}, _abud(costTypes={"useAmortized": True, "includeCredit": False,
                                        "includeRefund": False, "includeUpfront": True}), {}, None,
     "a COST budget on amortised cost (RI / Savings Plans upfront spread), credits and refunds "
     "out: still a COST budget on what the nodes bill ('AWS budgets other than COST ... are not "
     "spend limits' names budget types, not cost types)"),
    ("b07", "aws", {}, _abud(costTypes={"useBlended": True, "includeTax": False,
                                        "includeSupport": False}), {}, None,
     "a COST budget on blended cost without tax and support: covers the instance hours"),
    # ----- AWS: filters
    ("b08", "aws", {}, _abud(costFilters=_cf("Service", EC2)), {}, None,
     "costFilters Service 'Amazon Elastic Compute Cloud - Compute' takes the instance hours in"),
    ("b09", "aws", {}, _abud(costFilters=_cf("Service", "Amazon Simple Storage Service")),
     {SPEND: "fail"}, None, "an S3-only budget: 'neither the cap nor the GPU alarm'"),
    ("b10", "aws", {}, _abud(costFilters=_cf("Service", "EC2 - Other")), {SPEND: "fail"}, None,
     "'EC2 - Other ... leaves them out'"),
    ("b11", "aws", {}, _abud(costFilters=_cf("Region", "us-east-1")), {}, None,
     "costFilters Region us-east-1, the nodes' region"),
    ("b12", "aws", {}, _abud(costFilters=_cf("Region", "eu-west-1")), {SPEND: "fail"}, None,
     "costFilters Region eu-west-1 leaves the us-east-1 nodes out: no alarm"),
    ("b13", "aws", {}, _abud(costFilters=_cf("LinkedAccount", "111111111111")),
     {SPEND: "undecided"}, None,
     "a LinkedAccount filter the program does not show the compute deploys to: cannot decide"),
    ("b14", "aws", {}, _abud(costFilters=_cf("PurchaseType", "On Demand Instances")), {}, None,
     "PurchaseType On Demand over on-demand nodes ('On-Demand nodes need the on-demand option')"),
    ("b15", "aws", {}, _abud(costFilters=_cf("PurchaseType", "Spot Instances")), {SPEND: "fail"},
     None, "PurchaseType Spot over on-demand nodes: left out, no alarm"),
    ("b16", "aws", {}, _abud(costFilters=_cf("AZ", "us-east-1a")), {}, None,
     "costFilters AZ us-east-1a, the group's subnet's zone"),
    ("b17", "aws", {}, _abud(costFilters=_cf("UsageType", "USE1-BoxUsage:p5.48xlarge")), {}, None,
     "UsageType USE1-BoxUsage:p5.48xlarge: the group's on-demand instance hours"),
    ("b18", "aws", {}, _abud(costFilters=_cf("UsageType", "USE1-EBS:VolumeUsage.gp3")),
     {SPEND: "fail"}, None, "UsageType of gp3 volumes: 'no instance hours': leaves them out"),
    # ----- AWS: types, notifications, actions, periods
    ("b19", "aws", {}, _abud(budgetType="RI_UTILIZATION", limitAmount="100",
                             limitUnit="PERCENTAGE", costFilters=_cf("Service", EC2)),
     {SPEND: "fail"}, None, "an RI_UTILIZATION budget is no spend limit: no alarm"),
    ("b20", "aws", {}, _add(_aws_bud2("sp-coverage", "80", budgetType="SAVINGS_PLANS_COVERAGE",
                                      limitUnit="PERCENTAGE")), {}, None,
     "a Savings Plans coverage budget beside the COST budget: changes nothing"),
    ("b21", "aws", {}, _abud(notifications=SNS), {}, None,
     "a forecast notification to an SNS topic only: notifies someone"),
    ("b22", "aws", {}, _abud(notifications=NOBODY), {SPEND: "fail"}, None,
     "a notification with empty subscriber lists: 'the budget notifies no one'"),
    ("b23", "aws", {}, _chain(_abud(notifications=None), _add(_aws_action)), {}, None,
     "no notification, but a budget action (STOP_EC2_INSTANCES) with an e-mail subscriber: 'no "
     "budget action with subscribers' is what makes no alarm, so this is one"),
    ("b24", "aws", {}, _abud(notifications=None), {SPEND: "fail"}, None,
     "no notification and no action: notifies no one"),
    ("b25", "aws", {}, _abud(timePeriodStart=_aws_day(40)), {SPEND: "fail"}, None,
     "a budget whose period starts in 40 days: 'has not begun ... neither the cap nor the alarm'"),
    ("b26", "aws", {}, _abud(timePeriodStart=_aws_day(-800), timePeriodEnd=_aws_day(-30)),
     {SPEND: "fail"}, None, "a budget whose period ended 30 days ago"),
    ("b27", "aws", {}, _abud(timePeriodStart=_aws_day(-800), timePeriodEnd=_aws_day(3000)), {},
     None, "a budget begun 800 days ago that ends in 3,000 days: tracks now"),
    ("b28", "aws", {}, _add(_aws_bud2("eu-only", "1000", costFilters=_cf("Region", "eu-west-1"))),
     {}, None, "a 1,000 budget on eu-west-1 only beside the 20,000: leaves the GPUs out, no cap"),
    ("b29", "aws", {}, _add(_aws_bud2("ec2-only", "5000", costFilters=_cf("Service", EC2))),
     {SPEND: "fail"}, None,
     "a 5,000 EC2-compute budget beside the 20,000: it covers the GPU group, so it is the "
     "smallest covering budget, the cap: ~12,141 > 5,000"),
    ("b30", "aws", {}, _abud(notifications=unknown()), {SPEND: "undecided"}, None,
     "notifications unknown at preview as a whole list: may notify no one, no other budget"),
    ("b31", "aws", {}, _abud(notifications=[unknown()]), {}, None,
     "one notification unknown as a whole: 'still has a subscriber (AWS requires one on each)'"),
    # ----- GCP: periods, filters, notifications
    ("g01", "gcp", {"budget": "90000"}, _gfilter(calendarPeriod="QUARTER"), {}, None,
     "calendarPeriod QUARTER 90,000 = 30,000 a month >= 25,164.51"),
    ("g02", "gcp", {"budget": "60000"}, _gfilter(calendarPeriod="QUARTER"), {SPEND: "fail"}, None,
     "QUARTER 60,000 = 20,000 a month < 25,164.51"),
    ("g03", "gcp", {"budget": "360000"}, _gfilter(calendarPeriod="YEAR"), {}, None,
     "YEAR 360,000 = 30,000 a month"),
    ("g04", "gcp", {"budget": "240000"}, _gfilter(calendarPeriod="YEAR"), {SPEND: "fail"}, None,
     "YEAR 240,000 = 20,000 a month"),
    ("g05", "gcp", {}, _gfilter(calendarPeriod="MONTH"), {}, None, "MONTH 30,000"),
    ("g06", "gcp", {}, _gfilter(customPeriod={"startDate": _g_date(-1), "endDate": _g_date(364)}),
     {SPEND: "fail"}, None,
     "a customPeriod of a year (yesterday to 364 days on) of 30,000: 2,500 a month, as a YEAR "
     "budget of 30,000 would be; the docs read customPeriod (with calendarPeriod)"),
    ("g07", "gcp", {}, _gfilter(customPeriod={"startDate": _g_date(-1), "endDate": _g_date(29)}),
     {}, None, "a customPeriod of one month (30 days) of 30,000"),
    ("g08", "gcp", {}, _gfilter(customPeriod={"startDate": _g_date(10), "endDate": _g_date(40)}),
     {SPEND: "fail"}, None, "a customPeriod starting in 10 days: has not begun: no alarm"),
    ("g09", "gcp", {}, _gfilter(projects=["projects/ml"]), {}, None,
     "projects [projects/ml], the provider's project"),
    ("g10", "gcp", {}, _gfilter(projects=["projects/other-proj"]), {SPEND: "fail"}, None,
     "projects [projects/other-proj]: leaves the ml project's nodes out"),
    ("g11", "gcp", {}, _gfilter(projects=["projects/123456789012"]), {}, None,
     "a project by number: 'taken as the stack's own project'"),
    ("g12", "gcp", {}, _gfilter(creditTypesTreatment="INCLUDE_SPECIFIED_CREDITS",
                                creditTypes=["COMMITTED_USAGE_DISCOUNT", "SUSTAINED_USAGE_DISCOUNT"]),
     {}, None, "credit types: 'how credits count, not whose usage: no effect on reach'"),
    ("g13", "gcp", {}, _gfilter(creditTypesTreatment="EXCLUDE_ALL_CREDITS"), {}, None,
     "EXCLUDE_ALL_CREDITS: no effect on reach"),
    ("g14", "gcp", {}, _gfilter(services=[GCS]), {SPEND: "fail"}, None,
     "services [Cloud Storage] only: leaves Compute Engine out"),
    ("g15", "gcp", {}, _gfilter(services=[COMPUTE, GCS]), {}, None,
     "services Compute Engine and Cloud Storage: covers"),
    ("g16", "gcp", {}, _gfilter(subaccounts=["billingAccounts/00AAAA-111111-222222"]),
     {SPEND: "undecided"}, None, "a subaccounts filter: cannot decide"),
    ("g17", "gcp", {}, _gbud(thresholdRules=None,
                             allUpdatesRule={"pubsubTopic": "projects/ml/topics/budget"}), {}, None,
     "no threshold rules, a Pub/Sub topic for all updates: notifies (a topic is named)"),
    ("g18", "gcp", {}, _gbud(allUpdatesRule={"disableDefaultIamRecipients": True}),
     {SPEND: "fail"}, None,
     "threshold rules but the default IAM recipients disabled and no channel or topic: no one"),
    ("g19", "gcp", {}, _gbud(allUpdatesRule={
        "disableDefaultIamRecipients": True,
        "monitoringNotificationChannels": ["projects/ml/notificationChannels/123"]}), {}, None,
     "g18 with a monitoring notification channel: notifies"),
    ("g20", "gcp", {}, _gfilter(labels={"team": "research"}), {}, None,
     "labels {team: research}; the template's VMs carry team=research"),
    ("g21", "gcp", {}, _gfilter(labels={"team": "infra"}), {SPEND: "fail"}, None,
     "labels {team: infra}: leaves the group out"),
    ("g22", "gcp", {}, _gbud(thresholdRules=[{"thresholdPercent": 1.0,
                                              "spendBasis": "FORECASTED_SPEND"}]), {}, None,
     "one forecast threshold rule: still notifies the billing admins"),
    ("g23", "gcp", {}, _gbud(amount=_g_amount("20000")), {SPEND: "fail"}, None,
     "units 20,000 < 25,164.51 (control)"),
    # ----- Azure: grains, notifications, category, scopes, filters
    ("z01", "azure", {"budget_amount": 75000.0}, _zbud(timeGrain="Quarterly"), {}, None,
     "Quarterly 75,000 = 25,000 a month >= 21,286.07"),
    ("z02", "azure", {"budget_amount": 60000.0}, _zbud(timeGrain="Quarterly"), {SPEND: "fail"}, None,
     "Quarterly 60,000 = 20,000 < 20,940"),
    ("z03", "azure", {"budget_amount": 300000.0}, _zbud(timeGrain="Annually"), {}, None,
     "Annually 300,000 = 25,000 a month"),
    ("z04", "azure", {"budget_amount": 240000.0}, _zbud(timeGrain="Annually"), {SPEND: "fail"}, None,
     "Annually 240,000 = 20,000 a month"),
    ("z05", "azure", {"budget_amount": 20000.0}, _zbud(timeGrain="BillingMonth"), {SPEND: "fail"},
     None, "BillingMonth 20,000 a month < 20,940"),
    ("z06", "azure", {"budget_amount": 75000.0}, _zbud(timeGrain="BillingQuarter"), {}, None,
     "BillingQuarter 75,000 = 25,000 a month"),
    ("z07", "azure", {"budget_amount": 60000.0}, _zbud(timeGrain="BillingQuarter"), {SPEND: "fail"},
     None, "BillingQuarter 60,000 = 20,000 a month (a quarter, as Quarterly; the grain enum of "
     "azure-native consumption.Budget: Monthly, Quarterly, Annually, BillingMonth, "
     "BillingQuarter, BillingAnnual)"),
    ("z08", "azure", {"budget_amount": 240000.0}, _zbud(timeGrain="BillingAnnual"), {SPEND: "fail"},
     None, "BillingAnnual 240,000 = 20,000 a month"),
    ("z09", "azure", {}, _zbud(notifications=_az_note(enabled=False,
                                                      contactEmails=["ml@example.com"])),
     {SPEND: "fail"}, None, "the only notification disabled: no enabled notification"),
    ("z10", "azure", {}, _zbud(notifications=_az_note(contactGroups=[
        "/subscriptions/s/resourceGroups/rg/providers/microsoft.insights/actionGroups/oncall"])),
     {}, None, "a notification to an action group only"),
    ("z11", "azure", {}, _zbud(notifications=_az_note(contactRoles=["Owner"])), {}, None,
     "a notification to the Owner role only"),
    ("z12", "azure", {}, _zbud(notifications=_az_note(thresholdType="Forecasted",
                                                      contactEmails=["ml@example.com"])), {}, None,
     "a forecasted notification with an e-mail"),
    ("z13", "azure", {}, _zbud(category="Usage"), {SPEND: "fail"}, None,
     "a Usage budget is no spend limit: no alarm"),
    ("z14", "azure", {}, _chain(_az_rg, _zbud(scope="/subscriptions/s/resourceGroups/rg")), {},
     None, "a budget on resource group rg, the set's resourceGroupName"),
    ("z15", "azure", {}, _chain(_az_rg, _zbud(scope="/subscriptions/s/resourceGroups/shared")),
     {SPEND: "fail"}, None,
     "a budget on group shared, the set in literal group rg: no Azure compute bills in it"),
    ("z16", "azure", {}, _zbud(filter=_az_dim("ResourceLocation", "East US")), {}, None,
     "ResourceLocation 'East US' (spaces and case ignored) over the eastus set"),
    ("z17", "azure", {}, _zbud(filter=_az_dim("ResourceLocation", "westeurope")), {SPEND: "fail"},
     None, "ResourceLocation westeurope: leaves the set out"),
    ("z18", "azure", {}, _zbud(filter=_az_dim("MeterSubCategory", "NDv5")), {SPEND: "undecided"},
     None, "a MeterSubCategory dimension: 'any other Azure dimension ... cannot decide'"),
    ("z19", "azure", {}, _az_replace("azure-native:costmanagement:Budget", {
        "amount": 25000.0, "category": "Cost", "timeGrain": "Monthly", "scope": "/subscriptions/s",
        "timePeriod": {"startDate": _az_iso(-20)}, "notifications": AZURE_ALERTS}), {}, None,
     "the same budget as a costmanagement:Budget (in the coverage table)"),
    ("z20", "azure", {}, _az_replace("azure:consumption/budgetSubscription:BudgetSubscription", {
        "subscriptionId": "/subscriptions/s", "amount": 75000.0, "timeGrain": "Quarterly",
        "timePeriod": {"startDate": _az_iso(-20)},
        "notifications": [{"enabled": True, "threshold": 80.0, "operator": "GreaterThan",
                           "contactEmails": ["ml@example.com"]}]}), {}, None,
     "a classic BudgetSubscription, Quarterly 75,000 = 25,000 a month"),
    ("z21", "azure", {}, _az_replace("azure:consumption/budgetSubscription:BudgetSubscription", {
        "subscriptionId": "/subscriptions/s", "amount": 60000.0, "timeGrain": "Quarterly",
        "timePeriod": {"startDate": _az_iso(-20)},
        "notifications": [{"enabled": True, "threshold": 80.0, "operator": "GreaterThan",
                           "contactEmails": ["ml@example.com"]}]}), {SPEND: "fail"}, None,
     "z20 at 60,000 a quarter = 20,000 a month"),
    ("z22", "azure", {}, _zbud(timePeriod={"startDate": _az_iso(40)}), {SPEND: "fail"}, None,
     "a budget that starts in 40 days: no alarm now"),
    ("z23", "azure", {}, _zbud(timePeriod={"startDate": _az_iso(-400), "endDate": _az_iso(-10)}),
     {SPEND: "fail"}, None, "a budget that ended 10 days ago"),
    ("z24", "azure", {}, _zbud(scope=MG), {SPEND: "undecided"}, None,
     "a management-group budget alone: 'cannot decide ... neither the alarm nor, for certain, "
     "the cap'"),
]


@pytest.mark.parametrize("case", _params(B2))
def test_batch2(pack, case):
    _run_case(pack, case)


# ------------------------------------------------------------ batch 3 (tags / labels, encryption)
# required-tags: owner, team, cost-center (GCP labels normalised: cost_center = cost-center; Azure
# tag names case-insensitive; AWS as written). encryption-at-rest: EFS encrypted=true, NAS
# standard / extreme encryptType 1 or 2, CPFS not judged, OSS needs a server-side encryption rule,
# S3 passes by default but a declared rule must name aws:kms, aws:kms:dsse or AES256; customer keys
# as full names (Cloud KMS `projects/<p>/locations/<l>/keyRings/<r>/cryptoKeys/<k>`, a Key Vault
# key URL `https://<vault>.vault.azure.net/keys/<name>[/<version>]`); a key unknown passes.
KMS = "projects/ml/locations/us-west1/keyRings/train/cryptoKeys/data"
VAULT = "/subscriptions/s/resourceGroups/rg/providers/Microsoft.KeyVault/vaults/kv"


def _props(name: str, **kv):
    """Set (or with None drop) top-level inputs of a resource."""
    def mutate(s):
        p = named(s, name).props
        for k, v in kv.items():
            if v is None:
                p.pop(k, None)
            else:
                p[k] = v
        return s
    return mutate


def _with_provider(mutate, **provider):
    def m(s):
        return mutate(s), provider
    return m


def _sse(alg: Any):
    return lambda s: res("aws:s3/bucketServerSideEncryptionConfiguration:"
                         "BucketServerSideEncryptionConfiguration", "datasets-sse", {
                             "bucket": "datasets-id", "rules": [
                                 {"applyServerSideEncryptionByDefault": {"sseAlgorithm": alg}}]},
                         deps={"bucket": [named(s, "datasets")]})


def _amlfs_key(url: Any):
    return _props("fs", encryptionSettings={"keyEncryptionKey": {
        "keyUrl": url, "sourceVault": {"id": VAULT}}})


def _nas(name: str, ftype: str, enc: Any, zone: Optional[str] = None):
    def build(s):
        props: dict = {"fileSystemType": ftype, "protocolType": "NFS",
                       "storageType": "Performance" if ftype == "standard" else "standard",
                       "description": name, "tags": dict(ALT)}
        if ftype == "extreme":
            props["capacity"] = 100.0
        if zone:
            props["zoneId"] = zone
        if enc is not None:
            props["encryptType"] = enc
        return res("alicloud:nas/fileSystem:FileSystem", name, props, provider_region=ALI)
    return build


def _ebs(s):
    return res("aws:ebs/volume:Volume", "ckpt-vol", {
        "availabilityZone": "us-east-1a", "size": 500.0, "type": "gp3", "encrypted": False,
        "tags": dict(TAGS)})


def _ebs_default(region: str):
    return lambda s: res("aws:ebs/encryptionByDefault:EncryptionByDefault", "ebs-default",
                         {"enabled": True, "region": region})


AWS_DT = {**AWS_P, "defaultTags": {"tags": dict(TAGS)}}
GCP_DL = lambda labels: {**GCP_P, "defaultLabels": labels}   # noqa: E731
FULL = dict(TAGS)

B3 = [
    # ----- required-tags, AWS
    ("t01", "aws", {}, _props("scratch", tags={"owner": "bob", "team": "research",
                                               "cost_centre": "4711"}), {TAGS_P: "fail"}, None,
     "the FSx tagged cost_centre (a misspelt key): cost-center missing"),
    ("t02", "aws", {}, _with_provider(_props("scratch", tags=None), **AWS_DT), {}, None,
     "the FSx with no tags of its own, the provider's defaultTags give all three: counted"),
    ("t03", "aws", {}, _with_provider(_props("scratch", tags=None), **AWS_P, defaultTags=unknown()),
     {TAGS_P: "undecided"}, None,
     "the FSx with no tags, the provider's defaultTags unknown at preview: 'cannot decide, not "
     "missing'"),
    ("t04", "aws", {}, _with_provider(_props("scratch", tags={**FULL, "cost-center": ""}), **AWS_DT),
     {TAGS_P: "fail"}, None,
     "cost-center set blank on the FSx itself, the default tags holding it: 'a tag the resource "
     "sets blank itself stays missing (its own tags win over the defaults)'"),
    ("t05", "aws", {}, _props("scratch", tags={**FULL, "cost-center": unknown()}),
     {TAGS_P: "undecided"}, None,
     "cost-center's value unknown at preview (it may be blank: 'Blank values count as missing'): "
     "the general rule, never passed in silence"),
    ("t06", "aws", {}, _props("scratch", tags=unknown()), {TAGS_P: "undecided"}, None,
     "the FSx's whole tags map unknown at preview: cannot decide"),
    ("t07", "aws", {}, _add(_efs("home", tags={"owner": "bob", "cost-center": "4711"})),
     {TAGS_P: "fail"}, None, "an EFS with a tags map lacking team ('any resource with a tags map')"),
    ("t08", "aws", {}, _add(_efs("home", tags={})), {TAGS_P: "fail"}, None,
     "an EFS with an empty tags map: all three missing"),
    ("t09", "aws", {}, _add(_sub("train-b"), _zfs("zfs", "SINGLE_AZ_2", ["train-a"],
                                                  tags={"team": "research", "cost-center": "4711"})),
     {TAGS_P: "fail"}, None, "an OpenZFS lacking owner"),
    ("t10", "aws", {}, _with_provider(_props("train-nodes", tags=[
        {"key": "owner", "value": "bob", "propagateAtLaunch": True},
        {"key": "team", "value": "research", "propagateAtLaunch": True}]), **AWS_DT),
     {TAGS_P: "fail"}, None,
     "the ASG lacking cost-center, the provider's defaultTags holding it: 'so does one an AWS Auto "
     "Scaling group lacks (the provider gives it no default tags)'"),
    ("t11", "aws", {}, _props("scratch", tags={"Owner": "bob", "team": "research",
                                               "cost-center": "4711"}), {TAGS_P: "fail"}, None,
     "the FSx tagged Owner: AWS tag keys are case-sensitive (the docs match case-insensitively only "
     "Azure tag names), owner missing"),
    ("t12", "aws", {}, _with_provider(_props("scratch", tags={"owner": "carol"}),
                                      **{**AWS_P, "defaultTags": {"tags": {
                                          "team": "research", "cost-center": "4711"}}}), {}, None,
     "the FSx's own owner plus the provider's team and cost-center: all three"),
    ("t13", "aws", {}, _props("train-budget", tags={"owner": "bob"}), {TAGS_P: "fail"}, None,
     "the budget (aws:budgets/budget in the AWS list) lacking team and cost-center"),
    # ----- required-tags, GCP
    ("t14", "gcp", {}, _props("scratch", labels={"owner": "bob", "team": "research",
                                                 "cost-center": "4711"}), {}, None,
     "the Lustre labelled cost-center: 'GCP label keys are matched normalised'"),
    ("t15", "gcp", {}, _with_provider(_props("scratch", labels={"owner": "bob", "cost_center": "1"}),
                                      **GCP_DL({"team": "research"})), {}, None,
     "the Lustre lacking team, the provider's defaultLabels holding it"),
    ("t16", "gcp", {}, _add(_g_pstore("pstore", labels={"owner": "bob", "team": "research"})),
     {TAGS_P: "fail"}, None, "Parallelstore (in the GCP list) lacking cost_center"),
    ("t17", "gcp", {}, _add(_g_filestore("home", "ZONAL", labels={"owner": "bob"})),
     {TAGS_P: "fail"}, None, "a Filestore with a labels map lacking two keys"),
    ("t18", "gcp", {}, _props("scratch", labels=unknown()), {TAGS_P: "undecided"}, None,
     "the Lustre's labels unknown at preview"),
    ("t19", "gcp", {}, _with_provider(_props("scratch", labels={"team": "research",
                                                                "cost_center": "1"}),
                                      **GCP_DL(unknown())), {TAGS_P: "undecided"}, None,
     "the Lustre lacking owner, the provider's defaultLabels unknown at preview"),
    ("t20", "gcp", {}, _props("scratch", labels={**LABELS, "cost_center": ""}), {TAGS_P: "fail"},
     None, "cost_center blank on the Lustre: missing"),
    ("t21", "gcp", {}, _props("datasets", labels={"owner": "bob", "team": "research",
                                                  "trainstack_retain": "true"}),
     {TAGS_P: "fail"}, None, "the bucket lacking cost_center (retain label kept)"),
    # ----- required-tags, Azure and Alibaba
    ("t22", "azure", {}, _props("fs", tags={"OWNER": "alice", "Team": "ml", "Cost-Center": "1"}),
     {}, None, "the AMLFS tagged OWNER / Team / Cost-Center: Azure names case-insensitively"),
    ("t23", "azure", {}, _props("fs", tags={"team": "ml", "cost-center": "1"}), {TAGS_P: "fail"},
     None, "the AMLFS lacking owner"),
    ("t24", "azure", {}, _props("data", tags={"owner": "alice", "team": "ml", "costcenter": "1",
                                              "trainstack:retain": "true"}), {TAGS_P: "fail"},
     None, "the storage account tagged costcenter (misspelt)"),
    ("t25", "azure", {}, _props("fs", tags={"owner": "alice", "team": unknown(), "cost-center": "1"}),
     {TAGS_P: "undecided"}, None, "the AMLFS's team value unknown at preview"),
    ("t26", "azure", {}, _chain(_add(_az_anf("1")), _props("anf-vol", tags={"owner": "alice"})),
     {TAGS_P: "fail"}, None, "a NetApp volume with a tags map lacking team and cost-center"),
    ("t27", "ali", {}, _props("fs", tags={"owner": "alice", "team": "ml"}), {TAGS_P: "fail"}, None,
     "the CPFS (nas/fileSystem in the Alibaba list) lacking cost-center"),
    ("t28", "ali", {}, _props("vsw", tags={"owner": "alice", "team": "ml", "cost-centre": "1"}),
     {TAGS_P: "fail"}, None, "the vSwitch tagged cost-centre"),
    ("t29", "ali", {}, _chain(_add(_ali_mt("fs", "vsw")), _ali_nodes_mount("fs-mt")), {}, None,
     "a NAS mount target (no tags input) beside the tagged CPFS: nothing to judge"),
    # ----- encryption, AWS
    ("e01", "aws", {}, _add(_efs("home", encrypted=False)), {ENC: "fail"}, None,
     "an EFS with encrypted=false"),
    ("e02", "aws", {}, _add(_efs("home", encrypted=None)), {ENC: "fail"}, None,
     "an EFS with encrypted left out (EFS 'encrypted=true' must be declared)"),
    ("e03", "aws", {}, _add(_efs("home", encrypted=unknown())), {ENC: "undecided"}, None,
     "an EFS whose encrypted is unknown at preview: cannot decide (advisory level)"),
    ("e04", "aws", {}, _chain(_add(_efs("home")), _props("home", kmsKeyId="alias/efs-home")), {},
     None, "an encrypted EFS with a KMS alias (the docs ask full names of GCP and Azure keys only)"),
    ("e05", "aws", {}, _add(_sse("AES-256")), {ENC: "fail"}, None,
     "an SSE configuration naming AES-256 (a typo of AES256): 'must name aws:kms, aws:kms:dsse or "
     "AES256'"),
    ("e06", "aws", {}, _add(_sse("aws:kms:dsse")), {}, None, "an SSE configuration of aws:kms:dsse"),
    ("e07", "aws", {}, _add(_sse("AES256")), {}, None, "an SSE configuration of AES256"),
    ("e08", "aws", {}, _add(_ebs, _ebs_default("us-east-1")), {}, None,
     "an unencrypted EBS volume in us-east-1 with EBS encryption by default enabled there"),
    ("e09", "aws", {}, _add(_ebs, _ebs_default("us-west-2")), {ENC: "fail"}, None,
     "the same with encryption by default enabled in us-west-2 only: 'covers volumes of its own "
     "region only'"),
    # ----- encryption, GCP
    ("e10", "gcp", {}, _props("scratch", kmsKey=KMS), {}, None, "Lustre with a full key name"),
    ("e11", "gcp", {}, _props("scratch", kmsKey="data"), {ENC: "fail"}, None,
     "Lustre with a bare key name"),
    ("e12", "gcp", {}, _props("scratch", kmsKey="projects/ml/locations/us-west1/keyRings/train"),
     {ENC: "fail"}, None, "Lustre with a key ring's name, no cryptoKeys part"),
    ("e13", "gcp", {}, _props("scratch", kmsKey=unknown()), {}, None,
     "Lustre with a key unknown at preview (one the stack creates): passes"),
    ("e14", "gcp", {}, _add(_g_filestore("home", "ZONAL", kms=KMS)), {}, None,
     "a Filestore with a full key name"),
    ("e15", "gcp", {}, _add(_g_filestore("home", "ZONAL", kms="data")), {ENC: "fail"}, None,
     "a Filestore with a bare key name"),
    ("e16", "gcp", {}, _add(_g_filestore("home", "ZONAL", kms=KMS + "/cryptoKeyVersions/1")),
     {ENC: "fail"}, None,
     "a Filestore naming a key version, not the key: not the form "
     "'projects/<p>/locations/<l>/keyRings/<r>/cryptoKeys/<k>'"),
    ("e17", "gcp", {}, _props("datasets", encryption={"defaultKmsKeyName": KMS}), {}, None,
     "the bucket's default KMS key, full name"),
    ("e18", "gcp", {}, _props("datasets", encryption={"defaultKmsKeyName": "keyRings/train/"
                                                                          "cryptoKeys/data"}),
     {ENC: "fail"}, None, "the bucket's default key without projects/ and locations/"),
    # ----- encryption, Azure
    ("e19", "azure", {}, _amlfs_key("https://kv.vault.azure.net/keys/amlfs"), {}, None,
     "AMLFS key URL without version"),
    ("e20", "azure", {}, _amlfs_key("https://kv.vault.azure.net/keys/amlfs/0123456789abcdef"), {},
     None, "AMLFS key URL with a version"),
    ("e21", "azure", {}, _amlfs_key("https://kv.vault.azure.net/secrets/amlfs"), {ENC: "fail"},
     None, "AMLFS naming a secret's URL: refused"),
    ("e22", "azure", {}, _amlfs_key("amlfs"), {ENC: "fail"}, None, "AMLFS naming a bare key"),
    ("e23", "azure", {}, _amlfs_key(unknown()), {}, None, "AMLFS key URL unknown at preview"),
    ("e24", "azure", {}, _props("data", encryption={"keySource": "Microsoft.Storage", "services": {
        "blob": {"enabled": False, "keyType": "Account"}}}), {ENC: "fail"}, None,
     "the storage account with blob encryption disabled ('Azure blob encryption not disabled')"),
    ("e25", "azure", {}, _props("data", encryption={"keySource": "Microsoft.Storage", "services": {
        "blob": {"enabled": True, "keyType": "Account"},
        "file": {"enabled": True, "keyType": "Account"}}}), {}, None,
     "the storage account with blob and file encryption enabled"),
    # ----- encryption, Alibaba
    ("e26", "ali", {}, _add(_nas("home", "standard", 0.0)), {ENC: "fail"}, None,
     "a standard NAS with encryptType 0"),
    ("e27", "ali", {}, _add(_nas("home", "standard", 1.0)), {}, None,
     "a standard NAS with encryptType 1 (NAS-managed key)"),
    ("e28", "ali", {}, _add(_nas("home", "standard", None)), {ENC: "fail"}, None,
     "a standard NAS with encryptType left out"),
    ("e29", "ali", {}, _add(_nas("home", "extreme", 2.0, zone="eu-central-1a")), {}, None,
     "an extreme NAS with encryptType 2 (KMS)"),
    ("e30", "ali", {}, _add(_nas("home", "extreme", 0.0, zone="eu-central-1a")), {ENC: "fail"},
     None, "an extreme NAS with encryptType 0"),
    ("e31", "ali", {}, _props("fs", encryptType=0.0), {}, None,
     "CPFS with encryptType 0: not judged (documented, review46 l05)"),
    ("e32", "ali", {}, _props("data", serverSideEncryptionRule=None), {ENC: "fail"}, None,
     "the OSS bucket without a server-side encryption rule"),
    ("e33", "ali", {}, _props("data", serverSideEncryptionRule={"sseAlgorithm": "AES256"}), {},
     None, "the OSS bucket with an AES256 rule"),
]


@pytest.mark.parametrize("case", _params(B3))
def test_batch3(pack, case):
    _run_case(pack, case)


# ------------------------------------------- batch 4 (budgets read in other shapes, zones unread)
# AWS filterExpression keys are the Budgets API's (REGION, SERVICE, ...: pulumi-aws
# BudgetFilterExpressionDimensions 'Valid values include AZ, INSTANCE_TYPE, ..., REGION,
# SERVICE'); the docs read 'the same keys in filterExpression ... combined as written, only the
# EQUALS match option compared'. maxMonthlyUsd: 'a budget of the stack whose amount is above it is
# itself a violation' (compared per month, as every cap is). CNY 7.2734 per USD (fx.csv).
NOT_PASS = ("fail", "undecided")


def _fx_dim(key: str, *values: str, match: Optional[list] = None) -> dict:
    d: dict = {"key": key, "values": list(values)}
    if match:
        d["matchOptions"] = match
    return {"dimensions": d}


MAXM = lambda usd: {SPEND: {"maxMonthlyUsd": usd}}   # noqa: E731

B4 = [
    # ----- AWS filterExpression in the API's key names
    ("f01", "aws", {}, _abud(filterExpression=_fx_dim("REGION", "us-east-1")), {}, None,
     "filterExpression REGION us-east-1: takes the nodes in"),
    ("f02", "aws", {}, _abud(filterExpression=_fx_dim("REGION", "eu-west-1")), {SPEND: "fail"},
     None, "filterExpression REGION eu-west-1: leaves them out, no alarm"),
    ("f03", "aws", {}, _abud(filterExpression={"not": _fx_dim("REGION", "eu-west-1")}), {}, None,
     "filterExpression not REGION eu-west-1: us-east-1 is in"),
    ("f04", "aws", {}, _abud(filterExpression={"ands": [_fx_dim("SERVICE", EC2),
                                                         _fx_dim("REGION", "us-east-1")]}), {},
     None, "ands of SERVICE EC2 compute and REGION us-east-1: in"),
    ("f05", "aws", {}, _abud(filterExpression={"ors": [
        _fx_dim("SERVICE", "Amazon Simple Storage Service"), _fx_dim("REGION", "eu-west-1")]}),
     {SPEND: "fail"}, None, "ors of S3 and eu-west-1: neither takes the us-east-1 EC2 hours in"),
    ("f06", "aws", {}, _abud(filterExpression={"tags": {"key": "team", "values": ["research"]}}),
     {}, None, "filterExpression tags team = research: the ASG propagates team=research"),
    ("f07", "aws", {}, _abud(filterExpression={"tags": {"key": "team", "values": ["infra"]}}),
     {SPEND: "fail"}, None, "filterExpression tags team = infra: left out"),
    ("f08", "aws", {}, _abud(filterExpression=_fx_dim("REGION", "us-east", match=["STARTS_WITH"])),
     {SPEND: "undecided"}, None, "a STARTS_WITH match option: 'only the EQUALS match option "
     "compared' ('any other ... match option' is cannot decide)"),
    # ----- amounts in other shapes
    ("f09", "aws", {}, _abud(limitAmount=None, limitUnit=None, plannedLimits=[
        {"startTime": _aws_day(-20), "amount": "5000", "unit": "USD"},
        {"startTime": _aws_day(10), "amount": "5000", "unit": "USD"}]), {SPEND: NOT_PASS}, None,
     "planned limits of 5,000 a month, no limitAmount: never 'no cap' (docs: 'a budget that cannot "
     "be read is not no cap'); 5,000 < ~12,141"),
    ("f10", "aws", {}, _abud(limitAmount=None, autoAdjustData={
        "autoAdjustType": "HISTORICAL", "historicalOptions": {"budgetAdjustmentPeriod": 3.0}}),
     {SPEND: NOT_PASS}, None,
     "an auto-adjusting budget, no limitAmount (AWS sets it from history): not a pass"),
    ("f11", "gcp", {}, _gbud(amount={"lastPeriodAmount": True}), {SPEND: NOT_PASS}, None,
     "a GCP budget at last period's amount (not known to the program): 'a budget amount' unknown "
     "is cannot decide, never a pass"),
    # ----- maxMonthlyUsd against budgets of other periods and currencies
    ("f12", "aws", {"budget": "180000"}, _abud(timeUnit="ANNUALLY"), {}, MAXM(16000.0),
     "maxMonthlyUsd 16,000, an ANNUALLY budget of 180,000 (15,000 a month, below it); ~12,141"),
    ("f13", "aws", {}, None, {SPEND: "fail"}, MAXM(16000.0),
     "maxMonthlyUsd 16,000 and the MONTHLY 20,000 budget: 'the budget amount is above the "
     "policy's maxMonthlyUsd'"),
    ("f14", "aws", {"budget": "500"}, _abud(timeUnit="DAILY"), {}, MAXM(16000.0),
     "maxMonthlyUsd 16,000, a DAILY budget of 500 (at most 15,500 a month)"),
    ("f15", "aws", {}, None, {SPEND: "fail"}, MAXM(10000.0),
     "maxMonthlyUsd 10,000 < ~12,032: over the cap (and the 20,000 budget above it)"),
    ("f16", "gcp", {"budget": "600000"}, _chain(
        _gfilter(calendarPeriod="QUARTER"),
        _gbud(amount={"specifiedAmount": {"currencyCode": "CNY", "units": "600000"}})), {}, None,
     "600,000 CNY a quarter = 82,492.37 USD / 3 = 27,497.46 a month >= 25,164.51"),
    ("f17", "gcp", {}, _chain(
        _gfilter(calendarPeriod="QUARTER"),
        _gbud(amount={"specifiedAmount": {"currencyCode": "CNY", "units": "450000"}})),
     {SPEND: "fail"}, None, "450,000 CNY a quarter = 20,623.09 a month < 25,164.51"),
    ("f18", "aws", {"budget": "4000"}, _abud(timeUnit="DAILY", limitUnit="CNY"), {}, None,
     "4,000 CNY a day: 112,000..124,000 CNY = 15,398..17,048 USD a month >= ~12,141"),
    ("f19", "aws", {"budget": "2000"}, _abud(timeUnit="DAILY", limitUnit="CNY"), {SPEND: "fail"},
     None, "2,000 CNY a day: at most 62,000 CNY = 8,524 USD a month < 12,032"),
    # ----- zones not readable, provider default zones
    ("f20", "aws", {}, _chain(_add(_efs("home", zone=unknown())), _mount("train-lt", "home")),
     {SSZ: "undecided"}, None, "a One Zone EFS mounted by the nodes, availabilityZoneName unknown"),
    ("f21", "gcp", {}, _chain(_add(_g_filestore("home", "ZONAL", unknown())),
                              _mount("train-tpl", "home", key="metadata")), {SSZ: "undecided"},
     None, "a ZONAL Filestore mounted by the nodes, location unknown at preview"),
    ("f22", "gcp", {}, _with_provider(_props("scratch", location=None), **GCP_P, zone="us-west1-c"),
     {}, None, "the Lustre with no location, the provider's default zone us-west1-c: the nodes' "
     "('GCP zone/location or the provider's default zone')"),
    ("f23", "gcp", {}, _with_provider(_props("scratch", location=None), **GCP_P, zone="us-west1-b"),
     {SSZ: "fail"}, None, "the same, the provider's default zone us-west1-b"),
    ("f24", "azure", {}, lambda s: (named(s, "nodes").props.pop("zones") and s), {SSZ: "fail"},
     None, "a GPU set with no zones mounting the zone-1 AMLFS: 'the GPU nodes' zone cannot be "
     "read' (mandatory: names no zone the pack could ever read)"),
    ("f25", "aws", {}, _add(_sub("train-b"), _efs("home", zone="us-east-1b"),
                            _efs_mt("home-b", "home", "train-b"), _asg2("gpu-b", "train-b")),
     {}, None, "a One Zone EFS in us-east-1b that nothing mounts, beside GPU groups in us-east-1a "
     "and us-east-1b (steps 3-5: in the zone of one of them)"),
    ("f26", "aws", {}, _chain(_add(_dirbucket("use1-az6")), _subnet_id_only("use1-az4")),
     {SSZ: "fail"}, None, "s26 with the nodes' subnet given use1-az4 only: the unread directory "
     "bucket, matched to the region's cluster as a single-zone store, in another AZ ID (s26's "
     "reading, written after s26's first run; counted as a probe)"),
]


@pytest.mark.parametrize("case", _params(B4))
def test_batch4(pack, case):
    _run_case(pack, case)
