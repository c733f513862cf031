"""Issue 35, a BLIND hostile review (helper review58) of the CrossGuard pack over gRPC, as
`pulumi preview --policy-pack policies` drives it. The pack's code was not read: every verdict
comes from docs/policies.md, docs/billing-after-stop.md and the catalog CSVs, and each batch's
expectations were committed before its first run.

Focus: the ENCODINGS and RESOURCE SHAPES a real engine and real programs produce that a hand-built
fixture rarely does: secrets (whole objects, single fields, list entries) as the engine marshals
them to an analyzer, values unknown at preview at each depth, numbers written as strings, one
object for a list, explicit providers (several of one cloud, their own region / zone / default
tags / labels / subscription), aws-native and classic-azure twins, components (parent URNs, one
name under two parents), protect, mixed clouds, capacity reservations with their consumers, and
budgets in each filter form.

This file drives the pack through its own small driver (`drive`) rather than the shared views:
it sends each resource's explicit provider resource (its own name, URN and inputs), the parent
URN (AnalyzerResource.parent and options.parent) and a child URN's qualified type
(`parentType$childType`), as the engine does for a component's children.

RESULTS (agreed / cases on each batch's first run; 163 cases, 147 agreed, 4 MY mistakes fixed in
commits of their own, 12 strict xfails = 4 defects and their reach):
  batch 1 (secrets): 23/23.
  batch 2 (unknowns): 26/30. u10, u25 MY mistakes: a scale set whose whole sku is unknown may be
    several nodes of an unknown type, so rdma cannot decide; the instance's stack subnet in
    us-east-1a names the region the unknown provider region hides. u14, u26: defects A and B.
  batch 3 (reach of A, B; numbers as text; one object for a list): 22/26 (the commit said 25: a
    miscount). d1b, d1c: A on GCP and Azure; d2b, d2c: B on GCP labels and the tags map.
  batch 4 (providers, twins, components, protect, two clouds): 25/27. p12 MY mistake: a child's
    URN holds its parent's type, not its name, so two children 'gpu' under two Trainer components
    share one URN (the engine refuses that stack). p24: defect C.
  batch 5 (ODCR, Capacity Blocks, GCP and Azure reservations, Alibaba): 25/25.
  batch 6 (budget filter forms, reach of C): 21/24. f04 MY mistake (EUW1 is no billing code;
    eu-west-1's is EU). c01: C on GCP; c02: defect D.
  batch 7 (reach of C and D): 5/8. e01: D on an Azure VM; e07, e08: C on Alibaba and aws-native.

DEFECT A (blind spot; spend-limit). Smallest: u14 = one g5.xlarge (734.38 a month), an AWS COST
  budget of 1,000 whose `notifications` are unknown at preview. Docs: "A budget that notifies no
  one is no alarm" and "A policy that needs a value the engine knows only after apply never passes
  it in silence". The pack passes: the unknown list may be empty. Reach: a GCP budget's
  `thresholdRules` (d1b), an Azure budget's `notifications` (d1c). Not reached: one AWS
  notification whose e-mail list is unknown (d1d passes: AWS requires a subscriber).
DEFECT B (false alarm; required-tags). Smallest: u26 = untagged resources on an aws provider whose
  `defaultTags` are unknown at preview: a mandatory "missing required tags ... Found: no tags".
  Docs: required-tags counts "the provider's default tags/labels"; an unknown is "cannot decide",
  never a violation. Reach: `defaultTags.tags` unknown (d2c), a GCP provider's `defaultLabels`
  (d2b). Not reached: one default tag's value unknown (d2a: cannot decide, as documented).
DEFECT C (blind spot; spend-limit). Smallest: p24 = one g5.xlarge, no subnet or zone (public IPs
  off), on an aws provider whose `region` is unknown, budget 2,000. Docs: GPU capacity that cannot
  be priced ("a size or region unknown at preview") "fails closed". The pack prices it at the
  dearest catalog region, saying "region not named in the program" (1.71 x 730 = 1,248), and
  passes. Reach: a GCP VM of unknown zone on a provider with no region (c01), an Alibaba node on a
  literal vSwitch (e07), an aws-native instance (e08). Not reached: Azure (c02, e01 fail closed:
  "its region is unknown until apply"); compute whose stack subnet, vSwitch or provider names the
  region (u25, e03, e04, e05 priced there).
DEFECT D (noise; storage-same-zone). Smallest: c02 = an azure-native scale set whose `location` is
  unknown, a budget, no filesystem or bucket: "cannot decide ... .location". Docs: "An unknown is
  only asked about where it could hide a violation"; with nothing to compare none can hide.
  Reach: an azure-native VM (e01). Not reached: unknown zones of a set (e02), a GCP zone (c01,
  e03), an AWS subnet zone (e04), an Alibaba vSwitch zone (e05); with an AMLFS in the stack the
  question is right (e06 agrees).

Controls that agree (selection): secrets at every depth read as values (s02-s23: a secret
mixedInstancesPolicy, override entry, type, size, provider region, defaultTags, labels,
accelerator entry and list, sku, budget amount, rule entries, forceDestroy, encrypted, Alibaba
auto-release, provider zone); unknown sizes, types and override entries fail closed (u01-u10);
numbers as text and text as numbers (n01-n12, weights '1'/'4' n09); one object for a list
(o01-o07); two regions on two aws providers priced each in its own (p01); provider subscription,
project, defaultTags and defaultLabels reaching budgets' filters as documented (p04-p07, p25-p27);
aws-native and classic-azure twins counted beside their siblings (p08-p11); one child name under
two parent types (p13) and skip patterns matching a child (p14, p15); a stop that is a component's
child (p17); reservations counted once with each consumer form and twice where the consumer cannot
use them (r01-r25: a literal reservation group target r08, spot r09, Capacity Block fees r10-r14,
sourceInstanceTemplate r20); AWS filterExpression with the SDK's REGION / SERVICE keys, not, ands,
tags (f05-f09), GCP and Azure filter forms and the classic and costmanagement budgets (f10-f22).

FIXED by fix58 (tests/policies/test_policy_fix58.py): A, B, C and D; their xfail marks are gone,
no expectation changed.

Planted bugs in MY builders (then reverted): odcr() ignoring its zone (always us-east-1a): r04
failed, every other case passed; drive() ignoring each resource's explicit provider: s08, s09,
s23, d2a, v05, p01, p04, p06, p25, p26 failed. (s07 did not: its secret eu-west-1 and the default
us-east-1 both price under 830; it checks only that the secret region reads.)

Each case states the verdict of EVERY policy (those not named stay "pass"): "fail", "advisory",
"undecided" ("cannot decide") or "pass"; its `why` is the hand calculation.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

import pytest
from pulumi.runtime.proto import analyzer_pb2 as apb

from tests.policy_fixtures import AWS_ALERTS, AZURE_ALERTS, GCP_ALERTS, hours_from_now
from tests.policy_harness import Diagnostic, PolicyPackProcess, _struct, provider_for, verdict

SSZ, SPEND, TAGS_P, RDMA = "storage-same-zone", "spend-limit", "required-tags", "rdma-for-multinode"
NPI, ENC, RET = "no-public-ingress", "encryption-at-rest", "bucket-retained"
POLICIES = (SSZ, SPEND, TAGS_P, RDMA, NPI, ENC, RET)
TAGS = {"owner": "carol", "team": "vision", "cost-center": "5150"}
LABELS = {"owner": "carol", "team": "vision", "cost_center": "5150"}
# The engine's wire forms: Pulumi's unknown sentinel, and a secret kept for an analyzer.
UNK = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"
SIG = "4dabf18193072939515e22adb298388d"


def secret(value: Any) -> dict:
    return {SIG: "1b47061264138c4ac30d75fd1eb44270", "value": value}


@dataclass
class R:
    type: str
    name: str
    props: dict
    deps: dict = field(default_factory=dict)   # input name -> [R]
    provider: Optional[str] = None            # key into the stack's providers; None: default
    protect: bool = False
    parent: Optional["R"] = None

    @property
    def qtype(self) -> str:
        return (self.parent.qtype + "$" if self.parent else "") + self.type

    @property
    def urn(self) -> str:
        return f"urn:pulumi:test::trainstack::{self.qtype}::{self.name}"

    @property
    def pkg(self) -> str:
        return self.type.split(":", 1)[0]


DEFAULT_PROVIDERS = {
    "aws": {"region": "us-east-1"}, "aws-native": {"region": "us-east-1"},
    "gcp": {"project": "ml", "region": "us-central1", "zone": "us-central1-a"},
    "azure-native": {"location": "eastus"}, "azure": {"features": {}},
    "alicloud": {"region": "eu-central-1"},
}


def drive(pack: PolicyPackProcess, rs: list, config: Optional[dict] = None,
          providers: Optional[dict] = None) -> list:
    """Configure, Analyze each resource, then AnalyzeStack: providers = {key: (pkg, props)}."""
    pack.configure(config)
    provs = {k: (k, v) for k, v in DEFAULT_PROVIDERS.items()}
    provs.update(providers or {})

    def prov(r: R) -> Optional[apb.AnalyzerProviderResource]:
        key = r.provider or r.pkg
        if key not in provs:   # a component resource: no provider
            return None
        pkg, props = provs[key]
        return provider_for(pkg, props, name=("default" if r.provider is None else key))

    found: list = []
    for r in rs:
        for d in pack.analyze(r.type, r.name, r.urn, r.props, r.protect, prov(r)):
            found.append(Diagnostic(d.policy, d.level, d.urn or r.urn, d.message, d.description))
    stack = apb.AnalyzeStackRequest(resources=[apb.AnalyzerResource(
        type=r.type, name=r.name, urn=r.urn, properties=_struct(r.props),
        parent=r.parent.urn if r.parent else "",
        dependencies=sorted({d.urn for ds in r.deps.values() for d in ds}),
        propertyDependencies={k: apb.AnalyzerPropertyDependencies(urns=[d.urn for d in ds])
                              for k, ds in r.deps.items()},
        options=apb.AnalyzerResourceOptions(protect=r.protect,
                                            parent=r.parent.urn if r.parent else ""),
        provider=prov(r)) for r in rs])
    return found + pack._diagnostics(pack.stub.AnalyzeStack(stack))


# ----------------------------------------------------------------------------------- builders
# AWS: a private subnet of the stack (us-east-1a), GPU compute on it with public IPs off, a COST
# budget with an e-mail. g5.xlarge us-east-1 1.006 USD/h x 730 = 734.38 a month; eu-west-1
# 1.123 x 730 = 819.79; p4d.24xlarge us-east-1 21.9576 x 730 = 16,029.05 (prices.csv).

def subnet(name: str = "priv-a", zone: str = "us-east-1a", **kw) -> R:
    return R("aws:ec2/subnet:Subnet", name, {"availabilityZone": zone, "vpcId": "vpc-1",
                                             "cidrBlock": "10.0.1.0/24", "tags": dict(TAGS)}, **kw)


def aws_budget(amount: Any = "1000", name: str = "budget", **props) -> R:
    return R("aws:budgets/budget:Budget", name,
             {"budgetType": "COST", "timeUnit": "MONTHLY", "limitAmount": amount,
              "limitUnit": "USD", "notifications": AWS_ALERTS, "tags": dict(TAGS), **props})


def aws_vm(name: str, itype: Any, sub: R, **kw) -> R:
    props = {"ami": "ami-0abc", "instanceType": itype, "subnetId": "subnet-x",
             "associatePublicIpAddress": False, "tags": dict(TAGS)}
    props.update(kw.pop("props", {}))
    return R("aws:ec2/instance:Instance", name, props, deps={"subnetId": [sub]}, **kw)


def aws_asg(name: str, lt: R, sub: R, max_size: Any = 2.0, mip: Any = None) -> R:
    props = {"minSize": 0.0, "maxSize": max_size, "desiredCapacity": 1.0,
             "vpcZoneIdentifiers": ["subnet-x"],
             "tags": [{"key": k, "value": v, "propagateAtLaunch": True} for k, v in TAGS.items()]}
    deps = {"vpcZoneIdentifiers": [sub]}
    if mip is None:
        props["launchTemplate"] = {"id": "lt-x", "version": "$Latest"}
        deps["launchTemplate"] = [lt]
    else:
        props["mixedInstancesPolicy"] = mip
        deps["mixedInstancesPolicy"] = [lt]
    return R("aws:autoscaling/group:Group", name, props, deps=deps)


def aws_lt(itype: Any = "g5.xlarge", name: str = "lt", **props) -> R:
    return R("aws:ec2/launchTemplate:LaunchTemplate", name,
             {"instanceType": itype, "imageId": "ami-0abc", "tags": dict(TAGS),
              "tagSpecifications": [{"resourceType": "instance", "tags": dict(TAGS)}], **props})


def mip(overrides: Any) -> dict:
    return {"launchTemplate": {"launchTemplateSpecification": {"launchTemplateId": "lt-x",
                                                               "version": "$Latest"},
                               "overrides": overrides}}


def aws_one(itype: Any = "g5.xlarge", budget: Any = "1000") -> list:
    sub = subnet()
    return [sub, aws_vm("gpu", itype, sub), aws_budget(budget)]


def aws_mixed(overrides: Any, budget: Any = "5000", max_size: Any = 2.0) -> list:
    sub, lt = subnet(), aws_lt("g5.xlarge")
    return [sub, lt, aws_asg("nodes", lt, sub, max_size, mip(overrides)), aws_budget(budget)]


# GCP: g2-standard-8 us-central1 0.853624 x 730 = 623.15; n1-standard-8 0.38 + nvidia-tesla-t4
# 0.35 per GPU (gcp_attached_gpus.csv us-central1): 1 T4 532.90, 2 T4 788.40 a month.

def gcp_budget(units: Any = "1000", name: str = "budget", **extra) -> R:
    return R("gcp:billing/budget:Budget", name,
             {"billingAccount": "000000-000000-000000",
              "amount": {"specifiedAmount": {"currencyCode": "USD", "units": units}},
              "thresholdRules": GCP_ALERTS, **extra})


def gcp_vm(name: str = "gpu", mtype: Any = "g2-standard-8", zone: Any = "us-central1-a",
           **props) -> R:
    p = {"machineType": mtype, "networkInterfaces": [{"network": "default"}],
         "bootDisk": {"initializeParams": {"image": "debian-12"}}, "labels": dict(LABELS)}
    if zone is not None:
        p["zone"] = zone
    p.update(props)
    return R("gcp:compute/instance:Instance", name, p)


# Azure: Standard_NC4as_T4_v3 eastus 0.526 x 730 = 383.98 a node (tcp fabric).
AZ_SKU = "Standard_NC4as_T4_v3"


def az_budget(amount: Any = 1000.0, name: str = "budget", scope: Any = "/subscriptions/sub-1",
              **extra) -> R:
    return R("azure-native:consumption:Budget", name,
             {"amount": amount, "category": "Cost", "timeGrain": "Monthly", "scope": scope,
              "notifications": AZURE_ALERTS, **extra})


def az_vmss(name: str = "nodes", sku: Any = None, **props) -> R:
    p = {"location": "eastus", "resourceGroupName": "train", "singlePlacementGroup": True,
         "sku": sku if sku is not None else {"name": AZ_SKU, "capacity": 3.0, "tier": "Standard"},
         "virtualMachineProfile": {"priority": "Regular", "networkProfile": {
             "networkInterfaceConfigurations": [{"name": "nic", "primary": True,
                                                 "ipConfigurations": [{"name": "ip"}]}]}},
         "tags": dict(TAGS)}
    p.update(props)
    return R("azure-native:compute:VirtualMachineScaleSet", name, p)


# Alibaba: ecs.gn7i-c8g1.2xlarge eu-central-1 2.56083 USD/h.

def ali_vm(name: str = "gpu", itype: Any = "ecs.gn7i-c8g1.2xlarge", release: Any = None,
           vsw: Optional[R] = None, **props) -> list:
    vsw = vsw or R("alicloud:vpc/switch:Switch", "vsw",
                   {"zoneId": "eu-central-1a", "vpcId": "vpc-1", "cidrBlock": "10.1.0.0/24",
                    "tags": dict(TAGS)})
    p = {"instanceType": itype, "vswitchId": "vsw-x", "internetMaxBandwidthOut": 0.0,
         "instanceChargeType": "PostPaid", "securityGroups": ["sg-x"], "tags": dict(TAGS),
         "autoReleaseTime": release if release is not None else hours_from_now(48)}
    p.update(props)
    return [vsw, R("alicloud:ecs/instance:Instance", name, p, deps={"vswitchId": [vsw]})]


def _with(rs: list, name: str, **props) -> list:
    next(r for r in rs if r.name == name).props.update(props)
    return rs


def on(provider: str, rs: list, untag: bool = False) -> list:
    """Every resource on the explicit provider `provider`; `untag`: without tags of their own."""
    for r in rs:
        r.provider = provider
        if untag:
            r.props.pop("tags", None)
            r.props.pop("labels", None)
    return rs


def check(pack, case) -> list:
    cid, build, expect, config, providers, _why = case
    rs = build()
    found = drive(pack, rs, config, providers)
    got = {p: verdict(found, p) for p in POLICIES}
    want = {p: expect.get(p, "pass") for p in POLICIES}
    assert got == want, (cid, [(d.policy, d.level, d.message[:400]) for d in found])
    return found


# ------------------------------------------------------------------------------------ batch 1
# Secrets, as the engine marshals them to an analyzer: docs "An input the program marks secret is
# not unknown: the engine sends the pack its value, and every policy reads it as that value".

def _s03():   # the whole mixedInstancesPolicy secret
    rs = aws_mixed([{"instanceType": "g5.xlarge"}, {"instanceType": "p4d.24xlarge"}])
    asg = rs[2]
    asg.props["mixedInstancesPolicy"] = secret(asg.props["mixedInstancesPolicy"])
    return rs


def _s19():
    sub = subnet()
    vol = R("aws:ebs/volume:Volume", "scratch-vol",
            {"availabilityZone": "us-east-1a", "size": 500.0, "type": "gp3",
             "encrypted": secret(False), "tags": dict(TAGS)})
    return [sub, vol]


def _gcp_lustre_stack() -> list:
    lustre = R("gcp:lustre/instance:Instance", "scratch",
               {"location": "us-central1-b", "capacityGib": "18000", "instanceId": "scratch",
                "perUnitStorageThroughput": "250", "network": "projects/ml/global/networks/train",
                "labels": dict(LABELS)})
    vm = gcp_vm(zone=None, metadata={"startup-script": "mount lustre"})
    vm.deps = {"metadata": [lustre]}
    vm.provider = "gcpz"
    return [lustre, vm, gcp_budget("20000")]


B1 = [
    ("s01", lambda: aws_one(), {}, None, None,
     "control: 1 g5.xlarge us-east-1 = 734.38 < 1,000; private subnet of the stack; all tagged"),
    ("s02", lambda: aws_one(secret("g5.xlarge")), {}, None, None,
     "a secret instanceType is that type: 734.38 < 1,000 (unread it would fail closed)"),
    ("s03", _s03, {SPEND: "fail", RDMA: "advisory"}, None, None,
     "the whole mixedInstancesPolicy secret: overrides [g5.xlarge, p4d.24xlarge] at maxSize 2 "
     "priced at the dearest, 2 x 16,029.05 = 32,058.10 > 5,000; rdma: may run 2 p4d (EFA) with "
     "no placement group -> advisory (unread, 2 x g5.xlarge = 1,468.76 would pass both)"),
    ("s04", lambda: aws_mixed([{"instanceType": "g5.xlarge"},
                               secret({"instanceType": "p4d.24xlarge"})]),
     {SPEND: "fail", RDMA: "advisory"}, None, None,
     "as s03, only the second override entry secret: same 32,058.10 > 5,000"),
    ("s05", lambda: aws_mixed([{"instanceType": "g5.xlarge"},
                               {"instanceType": secret("p4d.24xlarge")}]),
     {SPEND: "fail", RDMA: "advisory"}, None, None,
     "as s03, only the override's instanceType secret"),
    ("s06", lambda: aws_mixed([{"instanceType": "g5.xlarge"}], budget="1500",
                              max_size=secret(2.0)), {}, None, None,
     "maxSize secret 2: 2 x 734.38 = 1,468.76 < 1,500 (an unread size would fail closed)"),
    ("s07", lambda: on("euw", aws_one(budget="830")),
     {}, None, {"euw": ("aws", {"region": secret("eu-west-1")})},
     "every resource on an explicit aws provider whose region is secret eu-west-1: "
     "1.123 x 730 = 819.79 < 830 (the dearest region, sa-east-1 1.71, would fail)"),
    ("s08", lambda: on("tagged", aws_one(), untag=True),
     {}, None, {"tagged": ("aws", {"region": "us-east-1", "defaultTags": secret({"tags": TAGS})})},
     "no own tags, the provider's defaultTags a secret object holding all three: default tags count "
     "for required-tags"),
    ("s09", lambda: on("tagged", aws_one(), untag=True),
     {}, None, {"tagged": ("aws", {"region": "us-east-1", "defaultTags": {
         "tags": {**TAGS, "owner": secret("carol")}}})},
     "as s08 with only the owner value secret"),
    ("s10", lambda: [gcp_vm(labels=secret(dict(LABELS))), gcp_budget("700")], {}, None, None,
     "a GCP VM's whole labels map secret: read; g2-standard-8 623.15 < 700"),
    ("s11", lambda: [gcp_vm(mtype="n1-standard-8", guestAccelerators=[
        secret({"type": "nvidia-tesla-t4", "count": 1.0})]), gcp_budget("600")], {}, None, None,
     "a secret accelerator entry: n1-standard-8 + 1 T4 = (0.38 + 0.35) x 730 = 532.90 < 600 "
     "(an unread entry would be an unknown GPU: fail closed)"),
    ("s12", lambda: [gcp_vm(mtype="n1-standard-8", guestAccelerators=secret(
        [{"type": "nvidia-tesla-t4", "count": 2.0}])), gcp_budget("600")], {SPEND: "fail"},
     None, None,
     "the whole guestAccelerators list secret, 2 T4: (0.38 + 0.70) x 730 = 788.40 > 600 (unread: "
     "a CPU VM with no budget need, a pass)"),
    ("s13", lambda: [az_vmss(sku=secret({"name": AZ_SKU, "capacity": 3.0, "tier": "Standard"})),
                     az_budget(1200.0)], {}, None, None,
     "the scale set's sku object secret: 3 x 383.98 = 1,151.94 < 1,200"),
    ("s14", lambda: [az_vmss(), az_budget(secret(1000.0))], {SPEND: "fail"}, None, None,
     "a secret Azure budget amount 1,000 < 1,151.94"),
    ("s15", lambda: [R("aws:ec2/securityGroup:SecurityGroup", "web",
                       {"vpcId": "vpc-1", "description": "web", "tags": dict(TAGS), "ingress": [
                           {"protocol": "tcp", "fromPort": 22.0, "toPort": 22.0,
                            "cidrBlocks": ["10.0.0.0/8"]},
                           secret({"protocol": "tcp", "fromPort": 443.0, "toPort": 443.0,
                                   "cidrBlocks": ["0.0.0.0/0"]})]})],
     {NPI: "fail"}, None, None,
     "a security group's second inline ingress entry secret: tcp 443 from 0.0.0.0/0"),
    ("s16", lambda: [R("gcp:compute/firewall:Firewall", "web",
                       {"network": "default", "direction": "INGRESS",
                        "sourceRanges": secret(["0.0.0.0/0"]),
                        "allows": [{"protocol": "tcp", "ports": ["443"]}]})],
     {NPI: "fail"}, None, None, "a GCP firewall's sourceRanges secret [0.0.0.0/0], tcp 443"),
    ("s17", lambda: [R("azure-native:network:NetworkSecurityGroup", "nsg",
                       {"location": "eastus", "resourceGroupName": "train", "tags": dict(TAGS),
                        "securityRules": [{"name": "https", "access": "Allow",
                                           "direction": "Inbound", "priority": 100.0,
                                           "protocol": "Tcp",
                                           "sourceAddressPrefix": secret("Internet"),
                                           "sourcePortRange": "*",
                                           "destinationAddressPrefix": "*",
                                           "destinationPortRange": "443"}]})],
     {NPI: "fail"}, None, None, "an NSG rule whose sourceAddressPrefix is secret 'Internet'"),
    ("s18", lambda: [R("aws:s3/bucket:Bucket", "data",
                       {"forceDestroy": secret(True),
                        "tags": {**TAGS, "trainstack:retain": "true"}}, protect=True)],
     {RET: "fail"}, None, None,
     "a protected bucket whose forceDestroy is secret true: 'no forceDestroy' fails"),
    ("s19", _s19, {ENC: "fail"}, None, None, "an EBS volume whose encrypted is secret false"),
    ("s20", lambda: ali_vm(release=secret(hours_from_now(48))), {}, None, None,
     "a secret autoReleaseTime 48 h away stands in for the alarm (Alibaba has no budget): pass"),
    ("s21", lambda: ali_vm(itype=secret("ecs.gn7i-c8g1.2xlarge")), {}, None, None,
     "a secret Alibaba instance type; priced 2.56083 x 48 h, released; no cap"),
    ("s22", lambda: _gcp_lustre_stack(), {SSZ: "fail"}, None,
     {"gcpz": ("gcp", {"project": "ml", "region": "us-central1",
                       "zone": secret("us-central1-a")})},
     "a VM with no zone of its own on a provider whose zone is secret us-central1-a mounts (metadata "
     "dependency) a Managed Lustre in us-central1-b; spend: 623.15 + 18,000 x 0.21 = 4,403.15 < 20,000"),
    ("s23", lambda: _gcp_lustre_stack(), {}, None,
     {"gcpz": ("gcp", {"project": "ml", "region": "us-central1",
                       "zone": secret("us-central1-b")})},
     "control for s22: the provider's secret zone is us-central1-b, the Lustre's"),
]


# DEFECTS: strict xfails, the reason naming the docs sentence the pack's verdict contradicts.
# None left: fix58 fixed A-D (u14 u26 d1b d1c d2b d2c p24 c01 c02 e01 e07 e08 pass unmarked).
XFAIL: dict[str, str] = {}


def params(batch: list) -> list:
    return [pytest.param(c, id=c[0], marks=[pytest.mark.xfail(strict=True, reason=XFAIL[c[0]])]
                         if c[0] in XFAIL else []) for c in batch]


@pytest.mark.parametrize("case", params(B1))
def test_batch1(pack, case):
    check(pack, case)


# ------------------------------------------------------------------------------------ batch 2
# Values unknown at preview at each depth (the engine's sentinel): docs "Values unknown at
# preview": GPU capacity that cannot be sized or priced fails closed; anything else is "cannot
# decide" (spend-limit's cannotDecide mandatory by default, the others' advisory: both read here
# as "undecided"); an unknown is asked about only where it could hide a violation.

def _gcp_mig(labels_cfg: Any = None, budget_filter: Optional[dict] = None) -> list:
    tpl = R("gcp:compute/instanceTemplate:InstanceTemplate", "tpl",
            {"machineType": "g2-standard-8", "networkInterfaces": [{"network": "default"}],
             "disks": [{"sourceImage": "debian-12", "boot": True}], "labels": dict(LABELS)})
    props = {"zone": "us-central1-a", "targetSize": 1.0, "baseInstanceName": "gpu",
             "versions": [{"instanceTemplate": "tpl-id"}]}
    if labels_cfg is not None:
        props["allInstancesConfig"] = {"labels": labels_cfg}
    mig = R("gcp:compute/instanceGroupManager:InstanceGroupManager", "mig", props,
            deps={"versions": [tpl]})
    extra = {"budgetFilter": budget_filter} if budget_filter else {}
    return [tpl, mig, gcp_budget("1000", **extra)]


def _sg(entries: list) -> list:
    return [R("aws:ec2/securityGroup:SecurityGroup", "web",
              {"vpcId": "vpc-1", "description": "web", "tags": dict(TAGS), "ingress": entries})]


def _ssh_entry() -> dict:
    return {"protocol": "tcp", "fromPort": 22.0, "toPort": 22.0, "cidrBlocks": ["10.0.0.0/8"]}


def _unknown_propagate() -> list:
    rs = aws_mixed([{"instanceType": "g5.xlarge"}], budget="1500")
    rs[2].props["tags"] = [{"key": k, "value": v, "propagateAtLaunch": UNK} for k, v in TAGS.items()]
    rs[1].props["tagSpecifications"] = []
    rs[3].props["costFilters"] = [{"name": "TagKeyValue", "values": ["user:team$vision"]}]
    return rs


B2 = [
    ("u01", lambda: aws_mixed([{"instanceType": "g5.xlarge"}], max_size=UNK), {SPEND: "fail"},
     None, None, "an ASG whose maxSize is unknown: GPU capacity that cannot be sized fails closed"),
    ("u02", lambda: aws_mixed(UNK), {SPEND: "fail", RDMA: "undecided"}, None, None,
     "the overrides list unknown: the group may launch any type (a type unknown at preview fails "
     "closed); rdma: an override type unknown at preview is 'cannot decide'"),
    ("u03", lambda: aws_mixed([{"instanceType": "g5.xlarge"}, UNK]),
     {SPEND: "fail", RDMA: "undecided"}, None, None, "as u02, one override entry unknown"),
    ("u04", lambda: aws_mixed([{"instanceType": "g5.xlarge"}, {"instanceType": UNK}]),
     {SPEND: "fail", RDMA: "undecided"}, None, None, "as u02, one override's instanceType unknown"),
    ("u05", lambda: (lambda lt, sub: [sub, lt, aws_asg("nodes", lt, sub, 2.0, UNK),
                                      aws_budget("5000")])(aws_lt(), subnet()),
     {SPEND: "fail", RDMA: "undecided"}, None, None,
     "the whole mixedInstancesPolicy unknown: no type can be read -> fails closed; rdma cannot decide"),
    ("u06", lambda: [gcp_vm(mtype="n1-standard-8", guestAccelerators=[
        {"type": "nvidia-tesla-t4", "count": UNK}]), gcp_budget("5000")], {SPEND: "fail"},
     None, None, "documented: an N1 VM with a T4 of unknown count fails closed (no price); rdma: "
     "N1 with attached GPUs is not asked (and one VM)"),
    ("u07", lambda: [gcp_vm(guestAccelerators=UNK), gcp_budget("700")], {}, None, None,
     "guestAccelerators unknown on a g2-standard-8 (a known non-N1 machine): they add none; "
     "623.15 < 700"),
    ("u08", lambda: [gcp_vm(mtype=UNK), gcp_budget("5000")], {SPEND: "fail"}, None, None,
     "a GCP VM whose machineType is unknown: a GPU node whose type is unknown fails closed"),
    ("u09", lambda: [az_vmss(sku={"name": AZ_SKU, "capacity": UNK}), az_budget(5000.0)],
     {SPEND: "fail"}, None, None, "a scale set whose capacity is unknown: not sized, fails closed"),
    ("u10", lambda: [az_vmss(sku=UNK), az_budget(5000.0)], {SPEND: "fail", RDMA: "undecided"},
     None, None,
     "a scale set whose whole sku is unknown: type and size unknown, fails closed; rdma: the size "
     "may be several nodes of a type unknown at preview: cannot decide (MY MISTAKE on the first run: "
     "I had left rdma at pass, as for the single VM of u08)"),
    ("u11", lambda: [az_vmss(), az_budget(UNK)], {SPEND: "undecided"}, None, None,
     "a budget amount unknown at preview is 'cannot decide' (spend-limit's mandatory level)"),
    ("u12", lambda: aws_one(budget=UNK), {SPEND: "undecided"}, None, None,
     "an AWS limitAmount unknown at preview: cannot decide"),
    ("u13", lambda: [gcp_vm(), gcp_budget(UNK)], {SPEND: "undecided"}, None, None,
     "a GCP budget's specifiedAmount.units unknown: cannot decide"),
    ("u14", lambda: _with(aws_one(), "budget", notifications=UNK), {SPEND: "undecided"}, None,
     None, "the budget's notifications unknown: whether it notifies anyone cannot be decided "
     "(734.38 < 1,000 otherwise)"),
    ("u15", lambda: _with(aws_one(), "budget", costFilters=[{"name": "Region", "values": [UNK]}]),
     {SPEND: "undecided"}, None, None,
     "docs: a budget whose filters hold a value unknown at preview is not the cap, and with no "
     "other budget of AWS covering, the alarm is cannot decide"),
    ("u16", lambda: aws_one() + [aws_budget("2000", name="regional", costFilters=[
        {"name": "Region", "values": [UNK]}])], {}, None, None,
     "as u15 beside a plain 1,000 budget that covers: the unknown-filter budget (2,000) is at or "
     "above the most it would cover (734.38): no verdict changes"),
    ("u17", lambda: _sg([_ssh_entry(), UNK]), {NPI: "undecided"}, None, None,
     "an unknown inline ingress entry: 'An unknown rule inside a list is advisory, never a "
     "crash' (cannot decide at the advisory level)"),
    ("u18", lambda: _sg([{"protocol": "tcp", "fromPort": 443.0, "toPort": 443.0,
                          "cidrBlocks": [UNK]}]), {NPI: "undecided"}, None, None,
     "an inline entry whose only CIDR is unknown: may be 0.0.0.0/0"),
    ("u19", lambda: [R("gcp:compute/firewall:Firewall", "web",
                       {"network": "default", "direction": "INGRESS", "sourceRanges": UNK,
                        "allows": [{"protocol": "tcp", "ports": ["443"]}]})],
     {NPI: "undecided"}, None, None, "a firewall whose sourceRanges are unknown"),
    ("u20", lambda: [R("azure-native:network:NetworkSecurityGroup", "nsg",
                       {"location": "eastus", "resourceGroupName": "train", "tags": dict(TAGS),
                        "securityRules": [{"name": "https", "access": "Allow",
                                           "direction": "Inbound", "priority": 100.0,
                                           "protocol": "Tcp", "sourceAddressPrefix": UNK,
                                           "sourcePortRange": "*",
                                           "destinationAddressPrefix": "*",
                                           "destinationPortRange": "443"}]})],
     {NPI: "undecided"}, None, None, "an NSG Allow Inbound rule whose source is unknown"),
    ("u21", lambda: [R("aws:s3/bucket:Bucket", "data",
                       {"forceDestroy": UNK, "tags": {**TAGS, "trainstack:retain": "true"}},
                       protect=True)], {RET: "undecided"}, None, None,
     "a protected bucket whose forceDestroy is unknown: it may be true"),
    ("u22", lambda: [R("aws:s3/bucket:Bucket", "data", {"forceDestroy": False, "tags": UNK})],
     {RET: "undecided", TAGS_P: "undecided"}, None, None,
     "an unprotected bucket whose whole tags map is unknown: the retain tag and the required "
     "tags may both be there"),
    ("u23", lambda: [_with([subnet()], "priv-a", tags={**TAGS, "owner": UNK})[0]],
     {TAGS_P: "undecided"}, None, None, "a subnet whose owner tag value is unknown"),
    ("u24", lambda: [R("aws:ebs/volume:Volume", "vol",
                       {"availabilityZone": "us-east-1a", "size": 100.0, "encrypted": UNK,
                        "tags": dict(TAGS)})], {ENC: "undecided"}, None, None,
     "an EBS volume whose encrypted flag is unknown (no encryption by default in the stack)"),
    ("u25", lambda: on("r", aws_one()), {}, None,
     {"r": ("aws", {"region": UNK})},
     "the aws provider's region unknown at preview, but the instance is on the stack's subnet in "
     "us-east-1a, which names the region: 734.38 < 1,000 (MY MISTAKE on the first run: I expected "
     "fail closed and overlooked the subnet's zone; the provider-region-only shape is v05)"),
    ("u26", lambda: on("t", aws_one(), untag=True), {TAGS_P: "undecided"}, None,
     {"t": ("aws", {"region": "us-east-1", "defaultTags": UNK})},
     "untagged resources on a provider whose defaultTags are unknown: cannot decide"),
    ("u27", lambda: [R("aws:autoscaling/group:Group", "nodes",
                       {"minSize": 0.0, "maxSize": 2.0, "vpcZoneIdentifiers": [UNK],
                        "launchTemplate": {"id": "lt-x", "version": "$Latest"},
                        "tags": [{"key": k, "value": v, "propagateAtLaunch": True}
                                 for k, v in TAGS.items()]},
                       deps={"launchTemplate": [lt := aws_lt()]}), lt, aws_budget("1500")],
     {NPI: "undecided"}, None, None,
     "documented: an ASG whose subnets are unknown with no stack subnet behind them is cannot "
     "decide for no-public-ingress; spend 2 x 734.38 = 1,468.76 < 1,500"),
    ("u28", _unknown_propagate, {SPEND: "undecided"}, None, None,
     "a budget filtered on TagKeyValue user:team$vision, the group's tags propagateAtLaunch "
     "unknown (and no template instance tags): documented cannot decide"),
    ("u29", lambda: _gcp_mig(UNK, {"labels": {"team": "vision"}}), {SPEND: "undecided"}, None,
     None, "a budget filtered on label team=vision, the MIG's allInstancesConfig.labels unknown "
     "(they override the template's): documented cannot decide"),
    ("u30", lambda: _gcp_mig({"team": "vision"}, {"labels": {"team": "vision"}}), {}, None, None,
     "control for u29: allInstancesConfig.labels team=vision known; 623.15 < 1,000"),
]


@pytest.mark.parametrize("case", params(B2))
def test_batch2(pack, case):
    check(pack, case)


# ------------------------------------------------------------------------------------ batch 3
# The reach of defects A and B; numbers written as strings (and strings as numbers where the SDK
# takes a string: an AWS budget's limitAmount, an override's weightedCapacity); one object where
# the docs say a list input given as one object "is read as a list of that one".

def _aws_weighted(w1: Any, w2: Any, budget: str) -> list:
    return aws_mixed([{"instanceType": "g5.xlarge", "weightedCapacity": w1},
                      {"instanceType": "g5.4xlarge", "weightedCapacity": w2}], budget=budget,
                     max_size=8.0)


def _rule(port: Any, cidr: str = "0.0.0.0/0") -> list:
    return [R("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule", "in",
              {"securityGroupId": "sg-0abc", "cidrIpv4": cidr, "ipProtocol": "tcp",
               "fromPort": port, "toPort": port, "tags": dict(TAGS)})]


def _eks(types: Any, budget: str = "5000") -> list:
    sub = subnet()
    ng = R("aws:eks/nodeGroup:NodeGroup", "gpu-pool",
           {"clusterName": "train", "nodeRoleArn": "arn:aws:iam::123456789012:role/node",
            "subnetIds": ["subnet-x"], "instanceTypes": types,
            "scalingConfig": {"minSize": 0.0, "maxSize": 1.0, "desiredSize": 1.0},
            "tags": dict(TAGS)}, deps={"subnetIds": [sub]})
    return [sub, ng, aws_budget(budget)]


def _lt_public_one_object() -> list:
    sub, lt = subnet(), aws_lt("g5.xlarge", networkInterfaces={
        "deviceIndex": 0.0, "associatePublicIpAddress": "true", "subnetId": "subnet-x"})
    lt.deps = {"networkInterfaces": [sub]}
    return [sub, lt, aws_asg("nodes", lt, sub, 1.0), aws_budget("1000")]


def _aks(profiles: Any, budget: float = 1100.0) -> list:
    mc = R("azure-native:containerservice:ManagedCluster", "aks",
           {"location": "eastus", "resourceGroupName": "train", "dnsPrefix": "train",
            "agentPoolProfiles": profiles, "tags": dict(TAGS)})
    return [mc, az_budget(budget)]


def _gke(pools: Any, budget: str = "1200") -> list:
    cl = R("gcp:container/cluster:Cluster", "gke",
           {"location": "us-central1-a", "nodePools": pools,
            "privateClusterConfig": {"enablePrivateNodes": True}})
    return [cl, gcp_budget(budget)]


def _no_subnet_vm() -> list:
    vm = R("aws:ec2/instance:Instance", "gpu",
           {"ami": "ami-0abc", "instanceType": "g5.xlarge", "associatePublicIpAddress": False,
            "tags": dict(TAGS)}, provider="r")
    return [vm] + on("r", [aws_budget("1000")])


B3 = [
    ("d1b", lambda: [gcp_vm(), _with([gcp_budget("700")], "budget", thresholdRules=UNK)[0]],
     {SPEND: "undecided"}, None, None,
     "reach of A: a GCP budget whose thresholdRules are unknown (no pubsub topic): it may notify "
     "no one; 623.15 < 700 otherwise"),
    ("d1c", lambda: [az_vmss(), az_budget(1200.0, notifications=UNK)], {SPEND: "undecided"},
     None, None, "reach of A: an Azure budget whose notifications are unknown"),
    ("d1d", lambda: _with(aws_one(), "budget", notifications=[
        {**AWS_ALERTS[0], "subscriberEmailAddresses": UNK}]), {}, None, None,
     "control for A: one notification whose e-mail list is unknown; AWS requires a subscriber on "
     "a notification, so it notifies someone: pass"),
    ("d2a", lambda: on("t", [_with([subnet()], "priv-a", tags={"team": "vision",
                                                             "cost-center": "5150"})[0]]),
     {TAGS_P: "undecided"}, None,
     {"t": ("aws", {"region": "us-east-1", "defaultTags": {"tags": {"owner": UNK}}})},
     "reach of B: only the default owner tag's value unknown; team and cost-center on the subnet"),
    ("d2b", lambda: on("l", [gcp_vm(), gcp_budget("700")], untag=True), {TAGS_P: "undecided"}, None,
     {"l": ("gcp", {"project": "ml", "region": "us-central1", "zone": "us-central1-a",
                    "defaultLabels": UNK})},
     "reach of B on GCP: a VM with no labels on a provider whose defaultLabels are unknown"),
    ("d2c", lambda: on("t", [subnet()], untag=True), {TAGS_P: "undecided"}, None,
     {"t": ("aws", {"region": "us-east-1", "defaultTags": {"tags": UNK}})},
     "reach of B: defaultTags.tags unknown (the map, not the block)"),
    ("v05", _no_subnet_vm, {SPEND: "fail"}, None, {"r": ("aws", {"region": UNK})},
     "an instance with no subnet or zone (default VPC, public IPs off: no-public-ingress passes) on "
     "a provider whose region is unknown: a region unknown at preview fails closed"),
    ("n01", lambda: aws_mixed([{"instanceType": "g5.xlarge"}], budget="1500", max_size="2"), {},
     None, None, "maxSize '2' is a number written as text: 2 x 734.38 = 1,468.76 < 1,500"),
    ("n02", lambda: [az_vmss(sku={"name": AZ_SKU, "capacity": "3", "tier": "Standard"}),
                     az_budget(1200.0)], {}, None, None,
     "capacity '3': 1,151.94 < 1,200"),
    ("n03", lambda: _with(_with(_gcp_mig(), "mig", targetSize="2"), "budget",
           amount={"specifiedAmount": {"currencyCode": "USD", "units": "1300"}}), {}, None, None,
     "a MIG's targetSize '2': 2 x 623.15 = 1,246.29 < 1,300"),
    ("n04", lambda: aws_one(budget=1000.0), {}, None, None,
     "an AWS limitAmount given as a number 1000: 734.38 < 1,000"),
    ("n05", lambda: [gcp_vm(), gcp_budget(700.0)], {}, None, None,
     "a GCP budget's units given as a number 700: 623.15 < 700"),
    ("n06", lambda: [az_vmss(), az_budget("1200")], {}, None, None,
     "an Azure amount given as text '1200': 1,151.94 < 1,200"),
    ("n07", lambda: _rule("22"), {}, {NPI: {"sshCidrs": ["0.0.0.0/0"]}}, None,
     "world-open SSH with ports written '22' and 0.0.0.0/0 in sshCidrs: allowed"),
    ("n08", lambda: _rule("443"), {NPI: "fail"}, {NPI: {"sshCidrs": ["0.0.0.0/0"]}}, None,
     "as n07 on port '443': not SSH, world-open: fail"),
    ("n09", lambda: _aws_weighted("1", "4", "9000"), {}, None, None,
     "weights '1' (g5.xlarge 1.006/unit) and '4' (g5.4xlarge 1.624/4 = 0.406/unit), maxSize 8 "
     "units: at most (8 + 4) x 1.006 x 730 = 8,812.56 < 9,000 (unweighted, 8 g5.4xlarge would be "
     "9,484.16)"),
    ("n10", lambda: _aws_weighted(1.0, 4.0, "9000"), {}, None, None,
     "as n09 with the weights as numbers"),
    ("n11", lambda: [gcp_vm(mtype="n1-standard-8", guestAccelerators=[
        {"type": "nvidia-tesla-t4", "count": "2"}]), gcp_budget("800")], {}, None, None,
     "an accelerator count '2': (0.38 + 0.70) x 730 = 788.40 < 800"),
    ("n12", lambda: [R("gcp:compute/firewall:Firewall", "web",
                       {"network": "default", "direction": "INGRESS",
                        "sourceRanges": ["0.0.0.0/0"],
                        "allows": [{"protocol": "tcp", "ports": [443.0]}]})],
     {NPI: "fail"}, None, None, "a world-open firewall whose port is the number 443"),
    ("o01", lambda: aws_mixed({"instanceType": "p4d.24xlarge"}),
     {SPEND: "fail", RDMA: "advisory"}, None, None,
     "overrides given as one object {p4d.24xlarge}: 2 x 16,029.05 = 32,058.10 > 5,000; rdma: 2 p4d "
     "without a placement group or EFA"),
    ("o02", lambda: [gcp_vm(mtype="n1-standard-8", guestAccelerators={
        "type": "nvidia-tesla-t4", "count": 2.0}), gcp_budget("600")], {SPEND: "fail"}, None,
     None, "guestAccelerators as one object, 2 T4: 788.40 > 600"),
    ("o03", lambda: _eks("p4d.24xlarge"), {SPEND: "fail"}, None, None,
     "an EKS node group's instanceTypes as one string: 1 x 16,029.05 > 5,000; rdma: managed "
     "pools are left to their services"),
    ("o04", _lt_public_one_object, {NPI: "fail"}, None, None,
     "a launch template's networkInterfaces as one object saying associatePublicIpAddress 'true'"),
    ("o05", lambda: _aks({"name": "gpu", "vmSize": AZ_SKU, "count": 2.0, "maxCount": 3.0,
                          "minCount": 1.0, "enableAutoScaling": True, "mode": "System"}),
     {SPEND: "fail"}, None, None,
     "an AKS cluster's agentPoolProfiles as one object: 3 (maxCount) x 383.98 = 1,151.94 > 1,100 "
     "(the subscription budget covers the node resource group)"),
    ("o06", lambda: _gke({"name": "gpu", "nodeCount": 2.0,
                          "nodeConfig": {"machineType": "g2-standard-8"}}), {SPEND: "fail"},
     None, None, "a GKE cluster's nodePools as one object: 2 x 623.15 = 1,246.29 > 1,200"),
    ("o07", lambda: _gke([{"name": "gpu", "nodeCount": 2.0,
                           "nodeConfig": {"machineType": "g2-standard-8"}}], budget="1300"), {},
     None, None, "control for o06: the list form under a 1,300 budget"),
]


@pytest.mark.parametrize("case", params(B3))
def test_batch3(pack, case):
    check(pack, case)


# ------------------------------------------------------------------------------------ batch 4
# Explicit providers (several of one cloud, their own region / project / subscription / default
# tags and labels), aws-native and classic-azure twins, components (children under parent URNs,
# one name under two parents), protect, exemptions by pattern, stacks on two clouds.

def _two_regions(budget: str) -> list:
    east, west = subnet("priv-e", "us-east-1a"), subnet("priv-w", "eu-west-1a", provider="west")
    a = aws_vm("gpu-e", "g5.xlarge", east)
    b = aws_vm("gpu-w", "g5.xlarge", west, provider="west")
    return [east, west, a, b, aws_budget(budget)]


WEST = {"west": ("aws", {"region": "eu-west-1"})}


def _native_twin() -> list:
    sub = subnet()
    nat = R("aws-native:ec2:Instance", "gpu-native",
            {"imageId": "ami-0abc", "instanceType": "g5.xlarge",
             "networkInterfaces": [{"deviceIndex": "0", "subnetId": "subnet-x",
                                    "associatePublicIpAddress": False}],
             "tags": [{"key": k, "value": v} for k, v in TAGS.items()]},
            deps={"networkInterfaces": [sub]})
    return [sub, nat, aws_vm("gpu", "g5.xlarge", sub), aws_budget("1000")]


def _native_region() -> list:
    nat = R("aws-native:ec2:Instance", "gpu-native",
            {"imageId": "ami-0abc", "instanceType": "g5.xlarge",
             "networkInterfaces": [{"deviceIndex": "0", "subnetId": "subnet-0abc",
                                    "associatePublicIpAddress": False}],
             "tags": [{"key": k, "value": v} for k, v in TAGS.items()]}, provider="nw")
    return [nat, aws_budget("830")]


def _classic_twin(budget: float) -> list:
    classic = R("azure:compute/linuxVirtualMachineScaleSet:LinuxVirtualMachineScaleSet",
                "nodes-classic",
                {"location": "eastus", "resourceGroupName": "train", "sku": AZ_SKU,
                 "instances": 3.0, "adminUsername": "azureuser",
                 "networkInterfaces": [{"name": "nic", "primary": True, "ipConfigurations": [
                     {"name": "ip", "primary": True, "subnetId": "/subscriptions/sub-1/x"}]}],
                 "tags": dict(TAGS)})
    return [classic, az_vmss(), az_budget(budget)]


TRAINER = R("acme:index:Trainer", "a", {})
TRAINER_B = R("acme:index:Trainer", "b", {})
INFER = R("acme:index:Inference", "a", {})


def _children(parents: list, budget: Optional[str] = "1000", prefix: bool = False) -> list:
    out: list = []
    for i, par in enumerate(parents):
        sub = subnet(f"priv-{i}", parent=par)
        out += [par, sub, aws_vm(f"{par.name}-gpu" if prefix else "gpu", "g5.xlarge", sub,
                                 parent=par)]
    return out + ([aws_budget(budget)] if budget else [])


def _component_stop() -> list:
    comp = R("acme:index:Trainer", "t", {})
    sub, lt = subnet(parent=comp), aws_lt()
    asg = aws_asg("nodes", lt, sub, 2.0)
    lt.parent = asg.parent = comp
    stop = R("aws:autoscaling/schedule:Schedule", "nodes-stop",
             {"autoscalingGroupName": "asg-x", "scheduledActionName": "stop", "minSize": 0.0,
              "maxSize": 0.0, "desiredCapacity": 0.0, "startTime": hours_from_now(48)},
             deps={"autoscalingGroupName": [asg]}, parent=comp)
    return [comp, sub, lt, asg, stop, aws_budget("100")]


def _bucket(protect: bool = False, tags: Optional[dict] = None, provider: Optional[str] = None):
    return [R("aws:s3/bucket:Bucket", "data", {"forceDestroy": False, "tags": tags or dict(TAGS)},
              protect=protect, provider=provider)]


def _mig_default_labels(filter_labels: dict) -> list:
    rs = _gcp_mig(None, {"labels": filter_labels})
    rs[0].props["labels"] = {"owner": "carol", "cost_center": "5150"}
    rs[0].provider = "lab"
    return rs


LAB = {"lab": ("gcp", {"project": "ml", "region": "us-central1", "zone": "us-central1-a",
                       "defaultLabels": {"team": "vision"}})}
DEFTAG = {"dt": ("aws", {"region": "us-east-1", "defaultTags": {"tags": {"team": "vision"}}})}


def _tag_filtered_vm() -> list:
    rs = aws_one()
    rs[1].props["tags"] = {"owner": "carol", "cost-center": "5150"}
    rs[1].provider = "dt"
    rs[2].props["costFilters"] = [{"name": "TagKeyValue", "values": ["user:team$vision"]}]
    return rs


def _tag_filtered_asg() -> list:
    rs = aws_mixed([{"instanceType": "g5.xlarge"}], budget="1500")
    rs[2].props["tags"] = [{"key": "owner", "value": "carol", "propagateAtLaunch": True},
                           {"key": "cost-center", "value": "5150", "propagateAtLaunch": True},
                           {"key": "team", "value": "vision", "propagateAtLaunch": False}]
    rs[2].provider = "dt"
    rs[1].props["tagSpecifications"] = []
    rs[3].props["costFilters"] = [{"name": "TagKeyValue", "values": ["user:team$vision"]}]
    return rs


B4 = [
    ("p01", lambda: _two_regions("1500"), {SPEND: "fail"}, None, WEST,
     "two aws providers: g5.xlarge in us-east-1 (734.38) and on the eu-west-1 provider (819.79) = "
     "1,554.17 > 1,500 (both at us-east-1 would be 1,468.76)"),
    ("p02", lambda: _two_regions("1600"), {}, None, WEST, "control for p01: 1,554.17 < 1,600"),
    ("p03", lambda: [*on("dt2", [subnet("priv-t")], untag=True),
                     *on("bare", [subnet("priv-u")], untag=True)], {TAGS_P: "fail"}, None,
     {"dt2": ("aws", {"region": "us-east-1", "defaultTags": {"tags": TAGS}}),
      "bare": ("aws", {"region": "us-east-1"})},
     "two aws providers, only one with defaultTags: the untagged subnet on the other misses all"),
    ("p04", lambda: [*on("s2", [az_vmss()]), az_budget(1200.0)], {SPEND: "fail"}, None,
     {"s2": ("azure-native", {"location": "eastus", "subscriptionId": "sub-2"})},
     "the scale set's provider names subscription sub-2, the budget's scope is sub-1: it covers "
     "nothing, no budget alarm on Azure"),
    ("p05", lambda: [*on("s1", [az_vmss()]), az_budget(1200.0)], {}, None,
     {"s1": ("azure-native", {"location": "eastus", "subscriptionId": "sub-1"})},
     "control for p04: sub-1 on both; 1,151.94 < 1,200"),
    ("p06", lambda: [*on("other", [gcp_vm()]), gcp_budget(
        "1000", budgetFilter={"projects": ["projects/ml"]})], {SPEND: "fail"}, None,
     {"other": ("gcp", {"project": "lab-sandbox", "region": "us-central1",
                        "zone": "us-central1-a"})},
     "the VM's provider names project lab-sandbox; the only budget filters project ml: it leaves "
     "the VM out, no budget alarm on GCP"),
    ("p07", lambda: [gcp_vm(), gcp_budget("1000", budgetFilter={"projects": ["projects/ml"]})], {},
     None, None, "control for p06: the default provider's project ml; 623.15 < 1,000"),
    ("p08", _native_twin, {SPEND: "fail"}, None, None,
     "an aws-native instance beside a classic one, both g5.xlarge: 1,468.76 > 1,000"),
    ("p09", _native_region, {}, None, {"nw": ("aws-native", {"region": "eu-west-1"})},
     "an aws-native instance on a literal subnet (public IPs off) on an aws-native provider in "
     "eu-west-1: 819.79 < 830"),
    ("p10", lambda: _classic_twin(2000.0), {SPEND: "fail"}, None, None,
     "a classic LinuxVirtualMachineScaleSet of 3 beside an azure-native set of 3: 6 x 383.98 = "
     "2,303.88 > 2,000"),
    ("p11", lambda: _classic_twin(2400.0), {}, None, None, "control for p10: 2,303.88 < 2,400"),
    ("p12", lambda: _children([TRAINER, TRAINER_B], prefix=True), {SPEND: "fail"}, None, None,
     "two components of one type, children 'a-gpu' and 'b-gpu': 1,468.76 > 1,000 (MY MISTAKE on "
     "the first run: I had named both children 'gpu', but a child's URN holds its parent's TYPE, "
     "not its name, so the two had one URN: a stack the engine refuses as a duplicate URN; the "
     "collision that can happen, one name under two parent types, is p13)"),
    ("p13", lambda: _children([TRAINER, INFER]), {SPEND: "fail"}, None, None,
     "two components both named 'a' of two types, each with a child 'gpu': 1,468.76 > 1,000"),
    ("p14", lambda: _children([TRAINER], budget=None), {}, {SPEND: {"skipResources": [
        "aws:ec2/instance:Instance::gpu"]}}, None,
     "a component's child GPU instance, no budget at all, exempt by the pattern "
     "'aws:ec2/instance:Instance::gpu' (<type>::<name>): an exempt GPU group is left out"),
    ("p15", lambda: _children([TRAINER], budget=None), {}, {SPEND: {"skipResources": [
        "urn:pulumi:test::trainstack::acme:index:Trainer$aws:ec2/instance:Instance::gpu"]}}, None,
     "as p14, exempt by its full child URN"),
    ("p16", lambda: _children([TRAINER], budget=None), {SPEND: "fail"}, None, None,
     "control for p14: not exempt, no budget alarm"),
    ("p17", _component_stop, {}, None, None,
     "ASG, template, subnet and a Schedule to 0 in 48 h all children of a component, the schedule "
     "depending on the group: 2 x 1.006 x 48 = 96.58 < 100 (the month would be 1,468.76)"),
    ("p18", lambda: _bucket(protect=True), {}, None, None,
     "a protected bucket without the retain tag: a preview sees protect"),
    ("p19", lambda: _bucket(tags=dict(TAGS), provider="rt"), {RET: "fail"}, None,
     {"rt": ("aws", {"region": "us-east-1",
                     "defaultTags": {"tags": {"trainstack:retain": "true"}}})},
     "trainstack:retain only in the provider's defaultTags: counts only on the bucket itself"),
    ("p20", lambda: _bucket(tags=dict(TAGS), provider="sk"), {RET: "fail"}, None,
     {"sk": ("aws", {"region": "us-east-1",
                     "defaultTags": {"tags": {"trainstack:policy-skip": "all"}}})},
     "a policy-skip in the provider's default tags never exempts"),
    ("p21", lambda: aws_one() + [gcp_vm(), gcp_budget("700")], {}, None, None,
     "AWS 734.38 under its 1,000 and GCP 623.15 under its 700: each cloud under its own budget"),
    ("p22", lambda: aws_one() + [gcp_vm(), gcp_budget("700")], {SPEND: "fail"},
     {SPEND: {"maxMonthlyUsd": 1300}}, None,
     "as p21 with maxMonthlyUsd 1,300 on the whole stack: 1,357.53 > 1,300"),
    ("p23", lambda: aws_one(budget="2000") + [gcp_vm()], {SPEND: "fail"}, None, None,
     "an AWS budget never covers GCP: the GCP VM has no budget alarm"),
    ("p24", lambda: _no_subnet_vm()[:1] + on("r", [aws_budget("2000")]), {SPEND: "fail"}, None,
     {"r": ("aws", {"region": UNK})},
     "docs: GPU capacity of a region unknown at preview fails closed ('cannot be estimated'); "
     "at the dearest region (1.71 x 730 = 1,248.30) it would be under 2,000"),
    ("p25", lambda: _mig_default_labels({"team": "vision"}), {}, None, LAB,
     "a budget filtered on label team=vision; the MIG's template carries team only through its "
     "provider's defaultLabels, which its VMs carry: covered; 623.15 < 1,000"),
    ("p26", _tag_filtered_vm, {}, None, DEFTAG,
     "a TagKeyValue user:team$vision budget; an aws:ec2/instance whose team tag comes only from "
     "its provider's defaultTags, which reach it: covered; 734.38 < 1,000"),
    ("p27", _tag_filtered_asg, {SPEND: "fail"}, None, DEFTAG,
     "as p26 for an ASG: defaultTags (team) do not reach an ASG's instances, and its own team tag "
     "does not propagate at launch: the budget leaves it out, no budget alarm on AWS"),
]


@pytest.mark.parametrize("case", params(B4))
def test_batch4(pack, case):
    check(pack, case)


# ------------------------------------------------------------------------------------ batch 5
# Capacity bought ahead and its consumers, in each way the SDKs let a program tie them: docs
# spend-limit Sizes, "a group launched into a reservation of the stack ... is priced only for its
# nodes beyond the reservation ...: reservation and consumer are counted once", Capacity Blocks.

def odcr(count: Any = 2.0, criteria: Optional[str] = None, zone: str = "us-east-1a",
         name: str = "odcr") -> R:
    p = {"instanceType": "g5.xlarge", "instancePlatform": "Linux/UNIX", "availabilityZone": zone,
         "instanceCount": count, "tags": dict(TAGS)}
    if criteria:
        p["instanceMatchCriteria"] = criteria
    return R("aws:ec2/capacityReservation:CapacityReservation", name, p)


def _odcr_case(criteria: Optional[str], spec: Any = None, link: bool = True,
               res_zone: str = "us-east-1a", count: Any = 2.0, **vm_props) -> list:
    sub, cr = subnet(), odcr(count, criteria, res_zone)
    vm = aws_vm("gpu", "g5.xlarge", sub, props=vm_props)
    if spec is not None:
        vm.props["capacityReservationSpecification"] = spec
        if link:
            vm.deps["capacityReservationSpecification"] = [cr]
    return [sub, cr, vm, aws_budget("1500")]


TARGET = {"capacityReservationTarget": {"capacityReservationId": "cr-x"}}


def _block(fee: Optional[dict], budget: str = "10000") -> tuple:
    blk = R("aws:ec2/capacityBlockReservation:CapacityBlockReservation", "block",
            {"capacityBlockOfferingId": "cb-0123456789abcdef0", "instancePlatform": "Linux/UNIX",
             "tags": dict(TAGS)})
    return [blk, aws_budget(budget)], ({SPEND: {"capacityBlockFeesUsd": fee}} if fee else None)


def _block_group(fee: Optional[dict]) -> list:
    blk = R("aws:ec2/capacityBlockReservation:CapacityBlockReservation", "block",
            {"capacityBlockOfferingId": "cb-0123456789abcdef0", "instancePlatform": "Linux/UNIX",
             "tags": dict(TAGS)})
    sub = subnet()
    lt = aws_lt("p4d.24xlarge", instanceMarketOptions={"marketType": "capacity-block"},
                capacityReservationSpecification={"capacityReservationTarget": {
                    "capacityReservationId": "cr-block"}})
    lt.deps = {"capacityReservationSpecification": [blk]}
    return [blk, sub, lt, aws_asg("nodes", lt, sub, 2.0), aws_budget("10000")]


def gres(required: Optional[bool] = None, zone: str = "us-central1-a", tpl: Optional[R] = None,
         count: Any = 2.0) -> R:
    spec: dict = {"count": count}
    if tpl is None:
        spec["instanceProperties"] = {"machineType": "g2-standard-8"}
    else:
        spec["sourceInstanceTemplate"] = "projects/ml/global/instanceTemplates/res-tpl"
    p = {"name": "gpu-res", "zone": zone, "specificReservation": spec}
    if required is not None:
        p["specificReservationRequired"] = required
    return R("gcp:compute/reservation:Reservation", "gpu-res", p,
             deps={"specificReservation": [tpl]} if tpl else {})


SPECIFIC = {"type": "SPECIFIC_RESERVATION", "specificReservation": {
    "key": "compute.googleapis.com/reservation-name", "values": ["gpu-res"]}}


def _gcp_res_case(required: Optional[bool], affinity: Optional[dict], res_zone: str = "us-central1-a",
                  link: bool = True) -> list:
    res = gres(required, res_zone)
    vm = gcp_vm(**({"reservationAffinity": affinity} if affinity else {}))
    if affinity and link:
        vm.deps = {"reservationAffinity": [res]}
    return [res, vm, gcp_budget("1300")]


def _gcp_res_from_template() -> list:
    tpl = R("gcp:compute/instanceTemplate:InstanceTemplate", "res-tpl",
            {"machineType": "g2-standard-8", "networkInterfaces": [{"network": "default"}],
             "disks": [{"sourceImage": "debian-12", "boot": True}], "labels": dict(LABELS)})
    return [tpl, gres(True, tpl=tpl), gcp_budget("1300")]


def _az_res_case(link: bool, budget: Optional[float] = 1200.0) -> list:
    grp = R("azure-native:compute:CapacityReservationGroup", "crg",
            {"resourceGroupName": "train", "location": "eastus", "tags": dict(TAGS)})
    cr = R("azure-native:compute:CapacityReservation", "cr",
           {"capacityReservationGroupName": "crg", "resourceGroupName": "train",
            "location": "eastus", "sku": {"name": AZ_SKU, "capacity": 3.0}, "tags": dict(TAGS)},
           deps={"capacityReservationGroupName": [grp]})
    vmss = az_vmss()
    if link:
        vmss.props["virtualMachineProfile"]["capacityReservation"] = {
            "capacityReservationGroup": {"id": "crg-id"}}
        vmss.deps = {"virtualMachineProfile": [grp]}
    out = [grp, cr] + ([vmss] if link is not None else [])
    return out + ([az_budget(budget)] if budget else [])


def _ali_res(end_type: str, end: Optional[str] = None) -> list:
    p = {"instanceType": "ecs.gn7i-c8g1.2xlarge", "instanceAmount": 2.0,
         "zoneIds": ["eu-central-1a"], "endTimeType": end_type, "matchCriteria": "Open",
         "platform": "linux", "tags": dict(TAGS)}
    if end:
        p["endTime"] = end
    return [R("alicloud:ecs/capacityReservation:CapacityReservation", "ali-res", p)]


B5 = [
    ("r01", lambda: _odcr_case("targeted", TARGET), {}, None, None,
     "a targeted ODCR of 2 g5.xlarge and an instance targeting it (dependency): counted once, "
     "2 x 734.38 = 1,468.76 < 1,500 (twice would be 2,203.14)"),
    ("r02", lambda: _odcr_case(None), {}, None, None,
     "an open ODCR (default criteria) takes the On-Demand instance of its type in its zone "
     "(preference open by default): once, 1,468.76 < 1,500"),
    ("r03", lambda: _odcr_case("targeted"), {SPEND: "fail"}, None, None,
     "a targeted ODCR the instance does not name: both priced, 2,203.14 > 1,500"),
    ("r04", lambda: _odcr_case(None, res_zone="us-east-1b"), {SPEND: "fail"}, None, None,
     "an open ODCR in us-east-1b, the instance in us-east-1a: not its zone, both priced"),
    ("r05", lambda: _odcr_case(None, {"capacityReservationPreference": "none"}, link=False),
     {SPEND: "fail"}, None, None,
     "an open ODCR beside an instance whose capacityReservationPreference is none: both priced"),
    ("r06", lambda: _odcr_case("targeted", secret(TARGET)), {}, None, None,
     "as r01 with the whole capacityReservationSpecification secret: once"),
    ("r07", lambda: _odcr_case("targeted", TARGET, count="2"), {}, None, None,
     "as r01 with instanceCount '2' written as text: once"),
    ("r08", lambda: _odcr_case(None, {"capacityReservationTarget": {
        "capacityReservationResourceGroupArn":
            "arn:aws:resource-groups:us-east-1:123456789012:group/crs"}}, link=False),
     {SPEND: "fail"}, None, None,
     "an open ODCR of the stack beside an instance that targets a literal reservation group the "
     "stack does not create: a targeted instance launches only there (not matched, priced), and "
     "the open ODCR bills unused: 2,203.14 > 1,500"),
    ("r09", lambda: _odcr_case(None, instanceMarketOptions={"marketType": "spot"}),
     {SPEND: "fail"}, None, None,
     "a spot instance beside an open ODCR: spot nodes use no reservation; 1,468.76 + the spot node "
     "(or a spot price that cannot be read) > 1,500"),
    ("r10", lambda: _block(None)[0], {SPEND: "fail"}, None, None,
     "a Capacity Block the stack buys, no group, no fee in capacityBlockFeesUsd: cannot be estimated"),
    ("r11", lambda: _block({"block": 5000})[0], {}, _block({"block": 5000})[1], None,
     "the block's fee 5,000 under its own name: 5,000 < 10,000"),
    ("r12", lambda: _block({"block": 12000})[0], {SPEND: "fail"}, _block({"block": 12000})[1],
     None, "the block's fee 12,000 > 10,000"),
    ("r13", lambda: _block_group({"nodes": 8000}), {RDMA: "advisory"},
     {SPEND: {"capacityBlockFeesUsd": {"nodes": 8000}}}, None,
     "an ASG of 2 p4d launched (template marketType capacity-block, target depending on the block) "
     "into the stack's block; the group's fee 8,000 < 10,000, the block priced with it once; rdma: "
     "the block places the nodes, but the template gives no EFA interface (p4d: 4) -> advisory"),
    ("r14", lambda: _block_group(None), {SPEND: "fail", RDMA: "advisory"}, None, None,
     "as r13 without a fee: cannot be estimated, never the on-demand month"),
    ("r15", lambda: _gcp_res_case(True, SPECIFIC), {}, None, None,
     "a GCP specific reservation of 2 g2-standard-8 (required) and a VM naming it: once, "
     "2 x 623.15 = 1,246.29 < 1,300 (twice 1,869.44)"),
    ("r16", lambda: _gcp_res_case(None, None), {}, None, None,
     "a reservation left to specificReservationRequired false and a VM left to ANY_RESERVATION, "
     "same type and zone: once"),
    ("r17", lambda: _gcp_res_case(None, {"type": "NO_RESERVATION"}, link=False), {SPEND: "fail"},
     None, None, "a VM with NO_RESERVATION beside the reservation: both, 1,869.44 > 1,300"),
    ("r18", lambda: _gcp_res_case(True, {"type": "ANY_RESERVATION"}, link=False), {SPEND: "fail"},
     None, None, "a reservation that requires naming it; the VM ANY_RESERVATION: both priced"),
    ("r19", lambda: _gcp_res_case(None, None, res_zone="us-central1-b"), {SPEND: "fail"}, None,
     None, "the reservation in us-central1-b, the VM in us-central1-a: both priced"),
    ("r20", _gcp_res_from_template, {}, None, None,
     "a reservation of 2 whose machine type comes from sourceInstanceTemplate (a template of the "
     "stack, g2-standard-8): 1,246.29 < 1,300"),
    ("r21", lambda: _az_res_case(True), {}, None, None,
     "an Azure capacity reservation of 3 and a scale set of 3 in its group (dependency): once, "
     "1,151.94 < 1,200 (twice 2,303.88)"),
    ("r22", lambda: _az_res_case(False), {SPEND: "fail"}, None, None,
     "the scale set not in the reservation's group: both priced, 2,303.88 > 1,200"),
    ("r23", lambda: _az_res_case(None, budget=None), {SPEND: "fail"}, None, None,
     "an Azure capacity reservation alone, no budget: GPU capacity that needs a budget alarm"),
    ("r24", lambda: _ali_res("Unlimited"), {SPEND: "fail"}, None, None,
     "an Alibaba capacity reservation without endTimeType Limited: a violation"),
    ("r25", lambda: _ali_res("Limited", hours_from_now(48)), {}, None, None,
     "Limited with an endTime in 48 h: priced until then, 2 x 2.56083 x 48 = 245.84"),
]


@pytest.mark.parametrize("case", params(B5))
def test_batch5(pack, case):
    check(pack, case)


# ------------------------------------------------------------------------------------ batch 6
# Budgets in each filter form the docs name (spend-limit, Budgets: "Read and decided"), the
# Azure budget twins, and the reach of defect C on GCP and Azure.

def _aws_f(**props) -> list:
    return _with(aws_one(), "budget", **props)


def _aws_expr(expr: dict) -> list:
    return _aws_f(filterExpression=expr, metrics="UnblendedCost")


def _gcp_f(flt: dict) -> list:
    return [gcp_vm(), gcp_budget("700", budgetFilter=flt)]


def _az_f(flt: dict, budget_type: str = "azure-native:consumption:Budget") -> list:
    b = az_budget(1200.0, filter=flt)
    b.type = budget_type
    return [az_vmss(), b]


def _az_classic(kind: str) -> list:
    common = {"amount": 1200.0, "timeGrain": "Monthly",
              "timePeriod": {"startDate": "2026-01-01T00:00:00Z"},
              "notifications": [{"enabled": True, "operator": "GreaterThan", "threshold": 80.0,
                                 "contactEmails": ["ml-platform@example.com"]}]}
    if kind == "sub":
        return [az_vmss(), R("azure:consumption/budgetSubscription:BudgetSubscription", "budget",
                             {**common, "subscriptionId": "/subscriptions/sub-1"})]
    return [az_vmss(), R("azure:consumption/budgetResourceGroup:BudgetResourceGroup", "budget",
                         {**common, "resourceGroupId": "/subscriptions/sub-1/resourceGroups/TRAIN"})]


EC2 = "Amazon Elastic Compute Cloud - Compute"


def _dim(name: str, values: list) -> dict:
    return {"dimensions": {"name": name, "operator": "In", "values": values}}


B6 = [
    ("f01", lambda: _aws_f(costFilters=[{"name": "Service", "values": [EC2]}]), {}, None, None,
     "costFilters Service = EC2 compute takes the instance hours in: 734.38 < 1,000"),
    ("f02", lambda: _aws_f(costFilters=[{"name": "Service", "values": ["EC2 - Other"]}]),
     {SPEND: "fail"}, None, None, "Service 'EC2 - Other' leaves the instance hours out: no alarm"),
    ("f03", lambda: _aws_f(costFilters=[{"name": "UsageType",
                                         "values": ["BoxUsage:g5.xlarge"]}]), {}, None, None,
     "UsageType BoxUsage:g5.xlarge (us-east-1, no prefix) is the node's on-demand hours"),
    ("f04", lambda: _aws_f(costFilters=[{"name": "UsageType",
                                         "values": ["USW2-BoxUsage:g5.xlarge"]}]), {SPEND: "fail"},
     None, None, "UsageType for us-west-2 (billing code USW2) leaves the us-east-1 node out (MY "
     "MISTAKE on the first run: I wrote EUW1 for eu-west-1, whose billing code is EU; EUW1 is no "
     "listed code, so the pack's 'cannot decide' was right)"),
    ("f05", lambda: _aws_expr({"dimensions": {"key": "REGION", "values": ["eu-west-1"]}}),
     {SPEND: "fail"}, None, None,
     "filterExpression dimensions REGION (the Cost Explorer key the SDK documents) eu-west-1: "
     "leaves the us-east-1 node out"),
    ("f06", lambda: _aws_expr({"dimensions": {"key": "SERVICE", "values": [EC2]}}), {}, None, None,
     "filterExpression SERVICE = EC2 compute: covers"),
    ("f07", lambda: _aws_expr({"not": {"dimensions": {"key": "REGION", "values": ["us-east-1"]}}}),
     {SPEND: "fail"}, None, None, "filterExpression not REGION us-east-1: leaves the node out"),
    ("f08", lambda: _aws_expr({"tags": {"key": "team", "values": ["vision"]}}), {}, None, None,
     "filterExpression tags team = vision: the instance carries it, covered"),
    ("f09", lambda: _aws_expr({"ands": [{"dimensions": {"key": "SERVICE", "values": [EC2]}},
                                        {"tags": {"key": "team", "values": ["audio"]}}]}),
     {SPEND: "fail"}, None, None, "ands: EC2 and team = audio: the tag leaves the node out"),
    ("f10", lambda: _gcp_f({"services": ["services/6F81-5844-456A"]}), {}, None, None,
     "GCP services Compute Engine: covers, 623.15 < 700"),
    ("f11", lambda: _gcp_f({"services": ["services/95FF-2EF5-5EA1"]}), {SPEND: "fail"}, None, None,
     "GCP services Cloud Storage only: leaves the VM out, no alarm"),
    ("f12", lambda: _gcp_f({"projects": ["projects/123456789012"]}), {}, None, None,
     "a project given by number is taken as the stack's own"),
    ("f13", lambda: _gcp_f({"creditTypesTreatment": "EXCLUDE_ALL_CREDITS",
                            "calendarPeriod": "MONTH"}), {}, None, None,
     "credit treatment and calendar period do not change reach"),
    ("f14", lambda: _gcp_f({"labels": {"team": "audio"}}), {SPEND: "fail"}, None, None,
     "labels team=audio: the VM's team is vision, left out"),
    ("f15", lambda: _az_f({"tags": {"name": "team", "operator": "In", "values": ["vision"]}}), {},
     None, None, "Azure filter tags team In [vision]: covers, 1,151.94 < 1,200"),
    ("f16", lambda: _az_f(_dim("ResourceLocation", ["East US"])), {}, None, None,
     "ResourceLocation 'East US' (spaces and case ignored) = eastus: covers"),
    ("f17", lambda: _az_f(_dim("ResourceLocation", ["westeurope"])), {SPEND: "fail"}, None, None,
     "ResourceLocation westeurope leaves the eastus set out"),
    ("f18", lambda: _az_f({"and": [_dim("ResourceGroupName", ["TRAIN"]),
                                   _dim("MeterCategory", ["Virtual Machines"])]}), {}, None, None,
     "and: ResourceGroupName TRAIN (case-insensitive) and MeterCategory Virtual Machines: covers"),
    ("f19", lambda: _az_f(_dim("ChargeType", ["Usage"])), {SPEND: "undecided"}, None, None,
     "a dimension the pack does not read (ChargeType) makes the only budget's reach cannot decide"),
    ("f20", lambda: _az_f(_dim("ServiceFamily", ["Compute"]),
                          budget_type="azure-native:costmanagement:Budget"), {}, None, None,
     "the costmanagement Budget twin with ServiceFamily Compute: covers"),
    ("f21", lambda: _az_classic("sub"), {}, None, None,
     "a classic budgetSubscription on /subscriptions/sub-1: covers, 1,151.94 < 1,200"),
    ("f22", lambda: _az_classic("rg"), {}, None, None,
     "a classic budgetResourceGroup on resource group TRAIN (the set's 'train', case-insensitive)"),
    ("c01", lambda: [gcp_vm(zone=UNK), gcp_budget("5000")], {SPEND: "fail"}, None,
     {"gcp": ("gcp", {"project": "ml"})},
     "reach of C: a GCP VM whose zone is unknown on a provider naming no region or zone"),
    ("c02", lambda: [az_vmss(location=UNK), az_budget(5000.0)], {SPEND: "fail"}, None, None,
     "reach of C: a scale set whose location is unknown (3 x NC4as_T4_v3 anywhere is below 5,000 "
     "in most regions)"),
]


@pytest.mark.parametrize("case", params(B6))
def test_batch6(pack, case):
    check(pack, case)


# ------------------------------------------------------------------------------------ batch 7
# The reach of defects C and D (found in batch 6): a location, zone or region unknown at preview
# on each cloud's compute, with no filesystem or bucket (nothing storage-same-zone could find), and
# one with a filesystem (where the question can hide a violation).

def _az_vm(**props) -> R:
    p = {"location": "eastus", "resourceGroupName": "train",
         "hardwareProfile": {"vmSize": AZ_SKU},
         "networkProfile": {"networkInterfaces": [{"id": "nic-id"}]}, "tags": dict(TAGS)}
    p.update(props)
    return R("azure-native:compute:VirtualMachine", "gpu", p)


def _amlfs() -> R:
    return R("azure-native:storagecache:AmlFilesystem", "scratch",
             {"location": "eastus", "resourceGroupName": "train", "zones": ["1"],
              "storageCapacityTiB": 8.0, "sku": {"name": "AMLFS-Durable-Premium-250"},
              "filesystemSubnet": "subnet-id", "tags": dict(TAGS),
              "maintenanceWindow": {"dayOfWeek": "Sunday", "timeOfDayUTC": "02:00"}})


def _unknown_zone_subnet() -> list:
    sub = subnet()
    sub.props["availabilityZone"] = UNK
    return [sub, aws_vm("gpu", "g5.xlarge", sub), aws_budget("1000")]


def _ali_literal_vsw() -> list:
    vm = ali_vm()[1]
    vm.deps = {}
    vm.props["vswitchId"] = "vsw-0abc"
    return on("ar", [vm])


def _native_unknown_region() -> list:
    rs = _native_region()
    rs[1].props["limitAmount"] = "5000"
    return rs


B7 = [
    ("e01", lambda: [_az_vm(location=UNK), az_budget(5000.0)], {SPEND: "fail"}, None, None,
     "reach of D on an azure-native VM of unknown location, no filesystem: storage-same-zone has "
     "nothing to compare (pass); spend-limit fails closed (region unknown)"),
    ("e02", lambda: [az_vmss(zones=UNK), az_budget(1200.0)], {}, None, None,
     "a scale set in eastus whose zones are unknown, no filesystem: nothing to ask; 1,151.94 < 1,200"),
    ("e03", lambda: [gcp_vm(zone=UNK), gcp_budget("700")], {SPEND: "fail"}, None, None,
     "a GCP VM of unknown zone on the default provider (region us-central1); nothing for "
     "storage-same-zone. fix60 changed spend pass -> fail (review60 DEFECT 1, d1b): docs 'whose "
     "own region, provider's region or, on GCP, zone is unknown, is GPU capacity that cannot be "
     "priced'; the zone chooses the region, so the provider's us-central1 (623.15 < 700) does not "
     "place it"),
    ("e04", _unknown_zone_subnet, {}, None, None,
     "a stack subnet whose availabilityZone is unknown, an instance on it, no filesystem: the "
     "provider names us-east-1, 734.38 < 1,000; nothing for storage-same-zone"),
    ("e05", lambda: ali_vm(vsw=R("alicloud:vpc/switch:Switch", "vsw",
                                 {"zoneId": UNK, "vpcId": "vpc-1", "cidrBlock": "10.1.0.0/24",
                                  "tags": dict(TAGS)})), {}, None, None,
     "an Alibaba node on a vSwitch whose zone is unknown, no filesystem: the provider's region "
     "prices it; released in 48 h"),
    ("e06", lambda: [az_vmss(location=UNK), _amlfs(), az_budget(50000.0)],
     {SPEND: "fail", SSZ: "fail"}, None, None,
     "control for D: with an AMLFS in eastus zone 1 in the stack, the set's unknown location is "
     "asked; spend fails closed on the region. fix60 changed ssz undecided -> fail: the set names "
     "no zone, so 'the GPU nodes' zone cannot be read' (mandatory) whatever its location, and docs "
     "say an unknown 'never hides a known one' (review60 d1c: the same on a regional MIG)"),
    ("e07", _ali_literal_vsw, {SPEND: "fail"}, None,
     {"ar": ("alicloud", {"region": UNK})},
     "reach of C on Alibaba: a node on a literal vSwitch id (no stack vSwitch) on a provider whose "
     "region is unknown: a region unknown at preview fails closed"),
    ("e08", _native_unknown_region, {SPEND: "fail"}, None, {"nw": ("aws-native", {"region": UNK})},
     "reach of C on aws-native: an instance on a literal subnet, provider region unknown, budget "
     "5,000 (the dearest g5.xlarge region is 1,248.30 a month)"),
]


@pytest.mark.parametrize("case", params(B7))
def test_batch7(pack, case):
    check(pack, case)
