"""Issue 35, a BLIND hostile review (helper review85) of the CrossGuard pack over gRPC
(tests/policy_harness.py). Focus: resource types of docs/policies.md's coverage table that no
earlier review file names (grep of every test_policy_review*.py for the quoted type token):
aws:alb/* (load balancer, listener, target group, target group attachment), aws:autoscaling/
attachment to an ALB target group, gcp:compute/perInstanceConfig, regionPerInstanceConfig,
regionBackendService / regionUrlMap / regionTargetHttpsProxy, azure:consumption/
budgetSubscription (classic budget), azure-native:network:LoadBalancerBackendAddressPool, each
as one correct stack and one with a single mistake, on the four clusters of
tests/policy_fixtures.py (which all pass). The pack's code was not read.

RESULTS (agreed / cases on each blind batch's first run; 75 blind cases (68 stacks + 7
  Configure calls) plus 4 bases and 3 probes; 66/75 agree first run, 7 MY mistakes, 1 DEFECT):
  batch 1: 25/26. aws:alb internal / public / internal left out, the ASG by autoscaling
    Attachment or targetGroupArns, a CPU-only target, nothing behind; GCP perInstanceConfig
    externalIps one object / list / unknown / empty / internal only, regionPerInstanceConfig on a
    CPU regional MIG, regional EXTERNAL_MANAGED vs INTERNAL_MANAGED HTTPS LB (regionBackendService,
    regionUrlMap, regionTargetHttpsProxy); azure classic budgetSubscription 25,000 / 15,000 /
    '25,000' / disabled notification / negative / beside the native one; azure-native
    LoadBalancerBackendAddressPool public / internal / not joined / no rule. g06 MY MISTAKE.
  batch 2: 32/34 (27 stacks + 7 Configure). Classic aws:elb internal / public / left out, an
    aws:alb ListenerRule forward, aws-native PlacementGroup cluster / spread / partition,
    skipResources on the GPU ASG, regional LB -> CPU MIG, a per-instance IP by literal group,
    maxMonthlyUsd caps (GCP 20,000 < 24,990.99; Azure 15,000 < 18,877.44 = 2 x 98.32 x 96;
    Alibaba 5,000 < 11,187.99 = 2 x 58.2708 x 96), classic budget next month / tag and
    ResourceLocation filters / amount unknown, Alibaba hpcCluster with and without the deployment
    set, autoReleaseTime 'next week'; Configure: maxMonthlyUSD, spend-limt, "50000", a bare
    skipResources name, sshCIDRs refused with INVALID_ARGUMENT naming the key. g13 l05 MY MISTAKES.
  batch 3: 9/15. aws-native classic ELB (scheme left out / internal / internet-facing), a public
    subnet holding only an ALB and a VPC endpoint (aws / aws-native), the GPU ASG in it with
    template interfaces 'false' / silent / 'true'; classic azure:lb LoadBalancer + Rule +
    BackendAddressPool + NetworkInterfaceBackendAddressPoolAssociation to a classic T4 VM;
    a GCP notificationChannel's userLabels. z19-z22 MY MISTAKES, a17 a19 DEFECT 1.

MY MISTAKES (each fixed in its own commit): g06 NPI covers "every node's public-IP settings", CPU
  nodes too; g13 "a budget of the stack whose amount is above [maxMonthlyUsd] is itself a
  violation"; l05 an autoReleaseTime that is not ISO-8601 is "a violation naming the value";
  z19-z22 a lone classic VM is a one-node group, not asked for placement.

DEFECT 1 (xfail strict, a17 a19; smallest: a19, the base AWS stack + an aws-native:
  elasticloadbalancing:LoadBalancer `scheme: internet-facing` the GPU ASG names in
  `loadBalancers` by dependency: no finding at all). Doc: "AWS `aws:lb`/`aws:alb`/`aws:elb`
  balancers without `internal: true` ... to target groups the nodes are attached to or an ASG
  registers in, and aws-native ones alike, mixing freely with the classic ones"; the type is in
  the no-public-ingress coverage row. Reach (probes): d1 its `instances` naming a g4dn.xlarge by
  dependency is missed too (xfail); d2 the aws:elb twin fails as it should; d3 internal passes.

Planted test-side bug: _alb's `internal` forced True -> a02 a05 a11 failed (3), reverted from a cp
  backup.

Noticed, left alone: the aws-native SDK is not installed in .venv, so the aws-native ELB inputs
  (scheme, instances, listeners) follow CloudFormation's AWS::ElasticLoadBalancing::LoadBalancer.
  The classic Azure budget's reach over a classic VM in resource group 'rg' was not varied.
"""
from __future__ import annotations

from typing import Any

import pytest

from tests.policy_fixtures import CLUSTERS, month_first, res
from tests.policy_harness import run, verdict

SSZ, SPEND, TAGS_P, RDMA = "storage-same-zone", "spend-limit", "required-tags", "rdma-for-multinode"
NPI, ENC, RET = "no-public-ingress", "encryption-at-rest", "bucket-retained"
POLICIES = (SSZ, SPEND, TAGS_P, RDMA, NPI, ENC, RET)
F, P, U_ = "fail", "pass", "undecided"
TAGS = {"owner": "alice", "team": "ml", "cost-center": "1234", "trainstack:max-hours": "96"}
LABELS = {"owner": "alice", "team": "ml", "cost_center": "1234"}


def unknown() -> Any:
    from trainstack_policies.model import UNKNOWN
    return UNKNOWN


def named(stack: list, name: str):
    return next(r for r in stack if r.name == name)


# ------------------------------------------------------------------------------ AWS: aws:alb/*
# aws_cluster: an ASG "nodes" of 2 x p5.48xlarge in us-east-1a behind a 96 h stop schedule, FSx,
# bucket, budget 20,000 (the fixture's own hand calculation; every policy passes).
def _alb(internal: Any = True, target: str = "asg", scheme_key: str = "internal"):
    def mutate(s):
        subnet, asg = named(s, "nodes-subnet"), named(s, "nodes")
        lbp: dict = {"loadBalancerType": "application", "subnets": ["subnet-a"], "tags": TAGS}
        if internal is not None:
            lbp[scheme_key] = internal
        lb = res("aws:alb/loadBalancer:LoadBalancer", "web-alb", lbp, deps={"subnets": [subnet]})
        tg = res("aws:alb/targetGroup:TargetGroup", "web-tg",
                 {"port": 8000.0, "protocol": "HTTP", "vpcId": "vpc-1", "targetType": "instance",
                  "tags": TAGS})
        lis = res("aws:alb/listener:Listener", "web-lis",
                  {"loadBalancerArn": "arn", "port": 443.0, "protocol": "HTTPS",
                   "defaultActions": [{"type": "forward", "targetGroupArn": "tg-arn"}]},
                  deps={"loadBalancerArn": [lb], "defaultActions": [tg]})
        out = [lb, tg, lis]
        if target == "asg":
            out.append(res("aws:autoscaling/attachment:Attachment", "web-att",
                           {"autoscalingGroupName": "nodes-name", "lbTargetGroupArn": "tg-arn"},
                           deps={"autoscalingGroupName": [asg], "lbTargetGroupArn": [tg]}))
        elif target == "cpu":
            vm = res("aws:ec2/instance:Instance", "web-vm",
                     {"instanceType": "t3.small", "ami": "ami-1", "subnetId": "subnet-a",
                      "associatePublicIpAddress": False, "tags": TAGS,
                      "rootBlockDevice": {"encrypted": True}},
                     deps={"subnetId": [subnet]})
            out += [vm, res("aws:alb/targetGroupAttachment:TargetGroupAttachment", "web-tga",
                            {"targetGroupArn": "tg-arn", "targetId": "i-web", "port": 8000.0},
                            deps={"targetGroupArn": [tg], "targetId": [vm]})]
        elif target == "asg-tgarns":
            asg.props["targetGroupArns"] = ["tg-arn"]
            asg.deps["targetGroupArns"] = [tg]
        return s + out
    return mutate


# ------------------------------------------------------------- GCP: per-instance configs, RLB
# gcp_cluster: a zonal MIG "nodes" of 2 x a3-ultragpu-8g in us-west1-c, Lustre, bucket, budget
# 30,000 over an estimate of 24,990.99 (the fixture's hand calculation), a 96 h stop job.
def _pic(external: Any = "one", typ: str = "gcp:compute/perInstanceConfig:PerInstanceConfig",
         on: str = "nodes", internal: bool = False):
    def mutate(s):
        mig = named(s, on)
        ps: dict = {}
        if external == "one":
            ps["externalIps"] = {"interfaceName": "nic0", "autoDelete": "NEVER",
                                 "ipAddress": {"address": "projects/ml-prod/regions/us-west1/"
                                                          "addresses/web-ip"}}
        elif external == "list":
            ps["externalIps"] = [{"interfaceName": "nic0", "autoDelete": "ON_PERMANENT_"
                                  "INSTANCE_DELETION"}]
        elif external == "unknown":
            ps["externalIps"] = unknown()
        elif external == "empty":
            ps["externalIps"] = []
        if internal:
            ps["internalIps"] = [{"interfaceName": "nic0", "autoDelete": "NEVER",
                                  "ipAddress": {"address": "10.0.0.7"}}]
        p = {"name": "node-0001", "instanceGroupManager": "nodes-1a2b3c4",
             "preservedState": ps, "minimalAction": "NONE"}
        if typ.endswith("RegionPerInstanceConfig"):
            p["region"] = "us-west1"
            p["regionInstanceGroupManager"] = p.pop("instanceGroupManager")
            deps = {"regionInstanceGroupManager": [mig]}
        else:
            p["zone"] = "us-west1-c"
            deps = {"instanceGroupManager": [mig]}
        return s + [res(typ, "pinned-0001", p, deps=deps)]
    return mutate


def _cpu_rmig(s):
    """A regional CPU MIG of 2 x e2-standard-4 (an API tier; no GPU, no filesystem mount)."""
    tpl = res("gcp:compute/regionInstanceTemplate:RegionInstanceTemplate", "api-tpl",
              {"region": "us-west1", "machineType": "e2-standard-4", "labels": LABELS,
               "networkInterfaces": [{"network": "default"}]})
    mig = res("gcp:compute/regionInstanceGroupManager:RegionInstanceGroupManager", "api",
              {"region": "us-west1", "targetSize": 2.0, "baseInstanceName": "api",
               "versions": [{"instanceTemplate": "api-tpl-id"}]}, deps={"versions": [tpl]})
    return s + [tpl, mig]


def _then(*fs):
    def mutate(s):
        for f in fs:
            s = f(s)
        return s
    return mutate


def _rlb(scheme: str = "EXTERNAL_MANAGED"):
    def mutate(s):
        mig = named(s, "nodes")
        bs = res("gcp:compute/regionBackendService:RegionBackendService", "infer-bs",
                 {"region": "us-west1", "loadBalancingScheme": scheme, "protocol": "HTTP",
                  "backends": [{"group": "nodes-ig", "balancingMode": "UTILIZATION"}]},
                 deps={"backends": [mig]})
        um = res("gcp:compute/regionUrlMap:RegionUrlMap", "infer-um",
                 {"region": "us-west1", "defaultService": "bs-id"},
                 deps={"defaultService": [bs]})
        px = res("gcp:compute/regionTargetHttpsProxy:RegionTargetHttpsProxy", "infer-px",
                 {"region": "us-west1", "urlMap": "um-id", "sslCertificates": ["cert"]},
                 deps={"urlMap": [um]})
        fr = res("gcp:compute/forwardingRule:ForwardingRule", "infer-fr",
                 {"region": "us-west1", "loadBalancingScheme": scheme, "portRange": "443",
                  "target": "px-id", "network": "default",
                  **({"subnetwork": "default"} if scheme.startswith("INTERNAL") else {})},
                 deps={"target": [px]})
        return s + [bs, um, px, fr]
    return mutate


# ------------------------------------------------ Azure: classic budget, LB backend address pool
# azure_cluster: a VMSS "nodes" of 2 x Standard_ND96isr_H100_v5 (eastus, 98.32 USD/h) stopped at
# 96 h by an autoscale profile, AMLFS 8 TiB, an account, a native budget of 25,000 over an
# estimate of at most 21,286.07 (the fixture's hand calculation). Compute alone: 2 x 98.32 x 96
# = 18,877.44 (when run at exactly 96 h; whole hours rounded up can add 1 h: 19,074.08).
def _cbudget(amount: Any = 25000.0, enabled: Any = True, start_months: int = 0,
             drop_native: bool = True, **extra):
    def mutate(s):
        if drop_native:
            s = [r for r in s if r.name != "budget"]
        start = month_first(start_months).strftime("%Y-%m-%dT%H:%M:%SZ")
        b = res("azure:consumption/budgetSubscription:BudgetSubscription", "cbudget",
                {"name": "gpu-monthly", "subscriptionId": "/subscriptions/s", "amount": amount,
                 "timeGrain": "Monthly", "timePeriod": {"startDate": start},
                 "notifications": [{"enabled": enabled, "operator": "GreaterThan",
                                    "threshold": 80.0, "thresholdType": "Actual",
                                    "contactEmails": ["ml-oncall@example.com"]}], **extra})
        return s + [b]
    return mutate


def _azlb(public: bool = True, rule: bool = True, join: bool = True):
    def mutate(s):
        vmss = named(s, "nodes")
        fe: dict = {"name": "fe"}
        out = []
        if public:
            pip = res("azure-native:network:PublicIPAddress", "lb-pip",
                      {"location": "eastus", "sku": {"name": "Standard"},
                       "publicIPAllocationMethod": "Static", "tags": TAGS})
            fe["publicIPAddress"] = {"id": "pip-id"}
            out.append(pip)
            fdeps = {"frontendIPConfigurations": [pip]}
        else:
            fe["subnet"] = {"id": "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Network/"
                                  "virtualNetworks/vnet/subnets/nodes"}
            fe["privateIPAllocationMethod"] = "Dynamic"
            fdeps = {}
        lbp: dict = {"location": "eastus", "loadBalancerName": "infer-lb",
                     "resourceGroupName": "rg", "sku": {"name": "Standard"},
                     "frontendIPConfigurations": [fe]}
        pool_id = ("/subscriptions/s/resourceGroups/rg/providers/Microsoft.Network/loadBalancers/"
                   "infer-lb/backendAddressPools/gpu")
        if rule:
            lbp["loadBalancingRules"] = [{
                "name": "https", "protocol": "Tcp", "frontendPort": 443.0, "backendPort": 8000.0,
                "frontendIPConfiguration": {"id": "fe-id"},
                "backendAddressPool": {"id": pool_id}}]
        lb = res("azure-native:network:LoadBalancer", "infer-lb", lbp, deps=fdeps)
        pool = res("azure-native:network:LoadBalancerBackendAddressPool", "gpu-pool",
                   {"loadBalancerName": "infer-lb", "resourceGroupName": "rg",
                    "backendAddressPoolName": "gpu"}, deps={"loadBalancerName": [lb]})
        if join:
            ipc = vmss.props["virtualMachineProfile"]["networkProfile"][
                "networkInterfaceConfigurations"][0]["ipConfigurations"][0]
            ipc["loadBalancerBackendAddressPools"] = [{"id": "pool-id"}]
            vmss.deps.setdefault("virtualMachineProfile", []).append(pool)
        return s + out + [lb, pool]
    return mutate


D1 = ("DEFECT 1: an internet-facing aws-native classic ELB (aws-native:elasticloadbalancing:"
      "LoadBalancer) that the GPU ASG registers in by `loadBalancers` is not seen: docs 'aws:elb "
      "balancers without internal: true ... an ASG registers in, and aws-native ones alike, "
      "mixing freely with the classic ones' (the aws:elb twin, a08, fails as it should)")
XFAIL: dict[str, str] = {}   # DEFECT 1 fixed by the lead (public_entries._AWSN_ELB)


# (id, cloud, mutate, expect, why)
BATCH1 = [
    # --- AWS aws:alb: an inference front on the training ASG
    ("a01", "aws", _alb(True), {}, "internal ALB -> ASG attachment: nothing public"),
    ("a02", "aws", _alb(False), {NPI: F}, "internal: false, ASG attached to its target group"),
    ("a03", "aws", _alb(None), {NPI: F}, "internal left out: internet-facing by default"),
    ("a04", "aws", _alb(False, target="cpu"), {},
     "public ALB to a t3.small in a private subnet only: no GPU node behind it"),
    ("a05", "aws", _alb(False, target="asg-tgarns"), {NPI: F},
     "public ALB; the ASG registers in its target group by targetGroupArns"),
    ("a06", "aws", _alb(True, target="asg-tgarns"), {}, "internal ALB via targetGroupArns"),
    ("a07", "aws", _alb(False, target="none"), {},
     "public ALB whose target group nothing joins: nothing behind it"),
    # --- GCP per-instance configs
    ("g01", "gcp", _pic("one"), {NPI: F}, "externalIps as one object on a GPU MIG's VM"),
    ("g02", "gcp", _pic("list"), {NPI: F}, "externalIps as a list of one"),
    ("g03", "gcp", _pic("unknown"), {NPI: U_}, "externalIps unknown at preview"),
    ("g04", "gcp", _pic(None, internal=True), {}, "only a preserved internal IP"),
    ("g05", "gcp", _pic("empty"), {}, "externalIps an empty list: names no interface"),
    ("g06", "gcp", _then(_cpu_rmig, _pic(
        "one", typ="gcp:compute/regionPerInstanceConfig:RegionPerInstanceConfig", on="api")),
     {NPI: F}, "a regional CPU MIG's VM pinned to an external IP: 'every node's public-IP"
               " settings' (MY MISTAKE: first written as a pass)"),
    ("g07", "gcp", _then(_cpu_rmig, _pic(
        None, typ="gcp:compute/regionPerInstanceConfig:RegionPerInstanceConfig", on="api",
        internal=True)), {}, "regional per-instance config with an internal IP only"),
    # --- GCP regional HTTPS load balancer in front of the GPU MIG
    ("g08", "gcp", _rlb("EXTERNAL_MANAGED"), {NPI: F}, "regional external HTTPS LB -> GPU MIG"),
    ("g09", "gcp", _rlb("INTERNAL_MANAGED"), {}, "regional internal HTTPS LB -> GPU MIG"),
    # --- Azure classic budget (subscription) instead of the native one
    ("z01", "azure", _cbudget(25000.0), {}, "classic subscription budget 25,000 > 21,286.07"),
    ("z02", "azure", _cbudget(15000.0), {SPEND: F},
     "15,000 < compute alone 18,877.44 (2 x 98.32 x 96)"),
    ("z03", "azure", _cbudget("25,000"), {SPEND: F}, "amount '25,000' does not read"),
    ("z04", "azure", _cbudget(25000.0, enabled=False), {SPEND: F},
     "its only notification disabled: notifies no one"),
    ("z05", "azure", _cbudget(-25000.0), {SPEND: F}, "a negative amount"),
    ("z06", "azure", _cbudget(25000.0, drop_native=False), {},
     "both budgets, native and classic, 25,000 each"),
    # --- Azure standalone LB backend address pool joined by the VMSS
    ("z07", "azure", _azlb(public=True), {NPI: F}, "public LB rule -> pool the VMSS joins"),
    ("z08", "azure", _azlb(public=False), {}, "internal LB (private frontend)"),
    ("z09", "azure", _azlb(public=True, join=False), {}, "public LB, the VMSS joins no pool"),
    ("z10", "azure", _azlb(public=True, rule=False), {},
     "public LB without any rule: takes nothing in"),
]


def _params(cases):
    return [pytest.param(c, id=c[0], marks=[pytest.mark.xfail(strict=True, reason=XFAIL[c[0]])]
                         if c[0] in XFAIL else []) for c in cases]


def _run_case(pack, case):
    cid, cloud, mutate, expect, _why = case
    stack = CLUSTERS[cloud]()
    if mutate is not None:
        stack = mutate(stack)
    found = run(pack, stack, expect.get("_config"), None)
    got = {p: verdict(found, p) for p in POLICIES}
    want = {p: expect.get(p, P) for p in POLICIES}
    assert got == want, (cid, [(d.policy, d.level, d.message[:500]) for d in found])


@pytest.mark.parametrize("cloud", ["aws", "gcp", "azure", "alicloud"])
def test_bases_pass(pack, cloud):
    _run_case(pack, ("base-" + cloud, cloud, None, {}, ""))


@pytest.mark.parametrize("case", _params(BATCH1))
def test_batch1(pack, case):
    _run_case(pack, case)


# ------------------------------------------------------------------------------- batch 2 helpers
def _elb(internal: Any = False):
    def mutate(s):
        asg = named(s, "nodes")
        p: dict = {"subnets": ["subnet-a"], "tags": TAGS, "listeners": [{
            "lbPort": 443.0, "lbProtocol": "tcp", "instancePort": 8000.0,
            "instanceProtocol": "tcp"}]}
        if internal is not None:
            p["internal"] = internal
        elb = res("aws:elb/loadBalancer:LoadBalancer", "web-elb", p,
                  deps={"subnets": [named(s, "nodes-subnet")]})
        asg.props["loadBalancers"] = ["web-elb"]
        asg.deps["loadBalancers"] = [elb]
        return s + [elb]
    return mutate


def _alb_rule(internal: bool = False):
    """The listener's default answers 404; a listener rule forwards /v1/* to the GPU target
    group, which the ASG is attached to."""
    def mutate(s):
        s = _alb(internal, target="asg")(s)
        lis, tg = named(s, "web-lis"), named(s, "web-tg")
        lis.props["defaultActions"] = [{"type": "fixed-response", "fixedResponse": {
            "contentType": "text/plain", "statusCode": "404"}}]
        lis.deps = {"loadBalancerArn": lis.deps["loadBalancerArn"]}
        rule = res("aws:alb/listenerRule:ListenerRule", "web-rule",
                   {"listenerArn": "lis-arn", "priority": 10.0,
                    "actions": [{"type": "forward", "targetGroupArn": "tg-arn"}],
                    "conditions": [{"pathPattern": {"values": ["/v1/*"]}}]},
                   deps={"listenerArn": [lis], "actions": [tg]})
        return s + [rule]
    return mutate


def _native_pg(strategy: str = "cluster"):
    def mutate(s):
        asg = named(s, "nodes")
        s = [r for r in s if r.name != "pg"]
        pg = res("aws-native:ec2:PlacementGroup", "pg-native", {"strategy": strategy})
        asg.props["placementGroup"] = "pg-native-name"
        asg.deps["placementGroup"] = [pg]
        return s + [pg]
    return mutate


def _hpc(keep_dset: bool):
    def mutate(s):
        hpc = res("alicloud:ecs/hpcCluster:HpcCluster", "hpc", {"name": "train-hpc"},
                  provider_region="eu-central-1")
        for n in (named(s, "node-0"), named(s, "node-1")):
            n.props["hpcClusterId"] = "hpc-id"
            n.deps["hpcClusterId"] = [hpc]
            if not keep_dset:
                n.props.pop("deploymentSetId")
                n.deps.pop("deploymentSetId")
        if not keep_dset:
            s = [r for r in s if r.name != "dset"]
        return s + [hpc]
    return mutate


def _rlb_cpu(s):
    """A regional external HTTPS LB in front of the regional CPU MIG only."""
    s = _cpu_rmig(s)
    out = _rlb("EXTERNAL_MANAGED")(s)
    bs = named(out, "infer-bs")
    bs.deps["backends"] = [named(out, "api")]
    return out


def _pic_literal(s):
    """The GPU MIG's VM pinned to an external IP, the group named by a literal (no dependency)."""
    out = _pic("one")(s)
    named(out, "pinned-0001").deps = {}
    return out


def _release(value: Any):
    def mutate(s):
        for n in (named(s, "node-0"), named(s, "node-1")):
            n.props["autoReleaseTime"] = value
        return s
    return mutate


def _cfg(spend=None, npi=None):
    c: dict = {}
    if spend is not None:
        c[SPEND] = spend
    if npi is not None:
        c[NPI] = npi
    return c


# Azure classic budget filters. Compute 2 x 98.32 x 96 (97) h = 18,877.44 (19,074.08).
# GCP estimate 24,990.99 (25,164.51 at 97 h). Alibaba compute alone 2 x 58.2708 (prices.csv
# ecs.gn8v-8x.48xlarge eu-central-1) x 96 h = 11,187.99: over 5,000 whatever the CPFS costs.
BATCH2 = [
    ("a08", "aws", _elb(False), {NPI: F}, "classic ELB internal false, the ASG's loadBalancers"),
    ("a09", "aws", _elb(True), {}, "classic ELB internal"),
    ("a10", "aws", _elb(None), {NPI: F}, "classic ELB internal left out: internet-facing"),
    ("a11", "aws", _alb_rule(False), {NPI: F}, "public ALB: a listener rule forwards to GPU TG"),
    ("a12", "aws", _alb_rule(True), {}, "internal ALB with the same listener rule"),
    ("a13", "aws", _native_pg("cluster"), {}, "aws-native cluster placement group"),
    ("a14", "aws", _native_pg("spread"), {RDMA: "advisory"}, "aws-native spread group"),
    ("a15", "aws", _native_pg("partition"), {RDMA: "advisory"}, "aws-native partition group"),
    ("a16", "aws", _alb(False), {NPI: P, "_config": _cfg(npi={"skipResources": [
        "aws:autoscaling/group:Group::nodes"]})}, "the GPU ASG exempt from NPI by skipResources"),
    ("g10", "gcp", _rlb_cpu, {}, "regional external LB -> CPU MIG only (no external IPs)"),
    ("g11", "gcp", _pic_literal, {NPI: F}, "per-instance external IP, group by literal name"),
    ("g12", "gcp", None, {SPEND: F, "_config": _cfg({"maxMonthlyUsd": 20000})},
     "cap 20,000 < estimate 24,990.99"),
    ("g13", "gcp", None, {"_config": _cfg({"maxMonthlyUsd": 31000})},
     "cap 31,000 > estimate 25,164.51 even at 97 h, and >= the stack's budget of 30,000 (MY"
     " MISTAKE: first 27,000, under the budget: 'a budget of the stack whose amount is above it"
     " is itself a violation')"),
    ("g14", "gcp", _then(_cpu_rmig, _rlb("INTERNAL_MANAGED")), {},
     "internal regional LB on the GPU MIG beside a CPU MIG"),
    ("z11", "azure", _cbudget(25000.0, start_months=1), {SPEND: F},
     "classic budget starting next month: no budget in force this month"),
    ("z12", "azure", _cbudget(25000.0, filter={"tags": [{"name": "team", "values": ["ml"]}]}),
     {}, "classic budget filtered on tag team=ml, which the VMSS carries"),
    ("z13", "azure", _cbudget(25000.0, filter={"tags": [{"name": "team",
                                                          "values": ["vision"]}]}),
     {SPEND: F}, "filtered on team=vision: does not take the GPU VMSS in"),
    ("z14", "azure", _cbudget(25000.0, filter={"dimensions": [{
        "name": "ResourceLocation", "operator": "In", "values": ["East US"]}]}), {},
     "ResourceLocation 'East US' (spaces and case ignored) = eastus"),
    ("z15", "azure", _cbudget(25000.0, filter={"dimensions": [{
        "name": "ResourceLocation", "operator": "In", "values": ["westeurope"]}]}),
     {SPEND: F}, "ResourceLocation westeurope: not the VMSS's"),
    ("z16", "azure", None, {SPEND: F, "_config": _cfg({"maxMonthlyUsd": 15000})},
     "cap 15,000 < compute alone 18,877.44"),
    ("z17", "azure", None, {"_config": _cfg({"maxMonthlyUsd": 30000})},
     "cap 30,000 > at most 21,286.07 (+196.64 for a 97th hour)"),
    ("z18", "azure", _cbudget(unknown()), {SPEND: U_},
     "classic amount unknown at preview, nothing else fails: undecided -> mandatory default"),
    ("l01", "alicloud", _hpc(False), {RDMA: "advisory"},
     "gn8v in an HPC cluster, no deployment set: hpcClusterId places SCC types only"),
    ("l02", "alicloud", _hpc(True), {}, "HPC cluster beside the LowLatency deployment set"),
    ("l03", "alicloud", None, {SPEND: F, "_config": _cfg({"maxMonthlyUsd": 5000})},
     "cap 5,000 < compute alone 11,187.99"),
    ("l04", "alicloud", _release("next week"), {SPEND: F, "_config": _cfg({"maxMonthlyUsd": 60000})},
     "autoReleaseTime that does not read stops nothing: the month, 2 x 58.2708 x 730 = 85,075.37"
     " > 60,000"),
    ("l05", "alicloud", _release("next week"), {SPEND: F},
     "the same with no cap: 'An Alibaba autoReleaseTime that is not an ISO-8601 time ... is no"
     " lifetime and no stand-in for the budget alarm (a violation naming the value)' (MY MISTAKE:"
     " first written as a pass)"),
]


@pytest.mark.parametrize("case", _params(BATCH2))
def test_batch2(pack, case):
    _run_case(pack, case)


CONFIGS = [
    ("c01", {SPEND: {"maxMonthlyUSD": 50000}}, "maxMonthlyUSD"),
    ("c02", {"spend-limt": {"maxMonthlyUsd": 50000}}, "spend-limt"),
    ("c03", {SPEND: {"maxMonthlyUsd": "50000"}}, "maxMonthlyUsd"),
    ("c04", {NPI: {"skipResources": ["web"]}}, "skipResources"),
    ("c05", {SPEND: {"maxMonthlyUsd": 50000}}, None),
    ("c06", {NPI: {"skipResources": ["aws:alb/loadBalancer:LoadBalancer::web-*"]}}, None),
    ("c07", {NPI: {"sshCIDRs": ["203.0.113.0/24"]}}, "sshCIDRs"),
]


@pytest.mark.parametrize("case", CONFIGS, ids=[c[0] for c in CONFIGS])
def test_config_typos(pack, case):
    """Docs: a setting a policy does not take, a policy name the pack does not have, or a known
    setting of a type its schema refuses: Configure answers INVALID_ARGUMENT naming the key."""
    import grpc
    cid, given, key = case
    config = pack.cli_config()
    for pol, props in given.items():
        config.setdefault(pol, {"enforcementLevel": "mandatory"}).update(props)
    if key is None:
        pack.send_config(config)
        return
    with pytest.raises(grpc.RpcError) as err:
        pack.send_config(config)
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT, (cid, err.value.details())
    assert key in err.value.details(), (cid, err.value.details())


# ------------------------------------------------------------------------------- batch 3 helpers
T2 = {"owner": "alice", "team": "ml", "cost-center": "1234"}


def _native_elb(scheme: Any = None):
    """An aws-native classic ELB (AWS::ElasticLoadBalancing::LoadBalancer) the classic ASG names
    in `loadBalancers`: 'mixing freely with the classic ones'."""
    def mutate(s):
        asg = named(s, "nodes")
        p: dict = {"subnets": ["subnet-a"], "listeners": [{
            "loadBalancerPort": "443", "protocol": "TCP", "instancePort": "8000"}]}
        if scheme is not None:
            p["scheme"] = scheme
        elb = res("aws-native:elasticloadbalancing:LoadBalancer", "web-nelb", p,
                  deps={"subnets": [named(s, "nodes-subnet")]})
        asg.props["loadBalancers"] = ["web-nelb"]
        asg.deps["loadBalancers"] = [elb]
        return s + [elb]
    return mutate


def _edge(asg_in: bool = False, lt_public: Any = "false", native_vpce: bool = False):
    """A public subnet (mapPublicIpOnLaunch) in us-east-1a holding a public ALB and an interface
    VPC endpoint; `asg_in`: the GPU ASG also launches into it."""
    def mutate(s):
        asg, lt = named(s, "nodes"), named(s, "lt")
        pub = res("aws:ec2/subnet:Subnet", "edge-subnet",
                  {"availabilityZone": "us-east-1a", "region": "us-east-1",
                   "mapPublicIpOnLaunch": True, "cidrBlock": "10.0.200.0/24", "tags": T2})
        lb = res("aws:alb/loadBalancer:LoadBalancer", "edge-alb",
                 {"loadBalancerType": "application", "internal": False, "subnets": ["e"],
                  "tags": T2}, deps={"subnets": [pub]})
        if native_vpce:
            vpce = res("aws-native:ec2:VpcEndpoint", "ssm-vpce",
                       {"vpcId": "vpc-1", "serviceName": "com.amazonaws.us-east-1.ssm",
                        "vpcEndpointType": "Interface", "subnetIds": ["e"]},
                       deps={"subnetIds": [pub]})
        else:
            vpce = res("aws:ec2/vpcEndpoint:VpcEndpoint", "ssm-vpce",
                       {"vpcId": "vpc-1", "serviceName": "com.amazonaws.us-east-1.ssm",
                        "vpcEndpointType": "Interface", "subnetIds": ["e"], "tags": T2},
                       deps={"subnetIds": [pub]})
        if asg_in:
            asg.deps["vpcZoneIdentifiers"] = asg.deps["vpcZoneIdentifiers"] + [pub]
            for nic in lt.props["networkInterfaces"]:
                if lt_public is None:
                    nic.pop("associatePublicIpAddress", None)
                else:
                    nic["associatePublicIpAddress"] = lt_public
        return s + [pub, lb, vpce]
    return mutate


def _classic_lb(public: bool = True, rule: bool = True, assoc: bool = True):
    """A classic VM Standard_NC4as_T4_v3 (eastus, 0.526 USD/h) on a classic NIC, joined to a
    classic balancer's pool by NetworkInterfaceBackendAddressPoolAssociation. Added cost
    0.526 x 730 = 383.98: the estimate at most 21,286.07 + 196.64 (a 97th hour) + 383.98 =
    21,866.69 < 25,000. Three GPU nodes in total, the lone VM a one-node group: not asked for
    placement (MY MISTAKE z19-z22: first written rdma advisory after review79's c12/c14/c19; the
    docs' remediation reads "Put multi-node GPU groups in a placement construct")."""
    def mutate(s):
        rg = "/subscriptions/s/resourceGroups/rg"
        out = []
        fe: dict = {"name": "fe"}
        fdeps: dict = {}
        if public:
            pip = res("azure:network/publicIp:PublicIp", "clb-pip",
                      {"location": "eastus", "resourceGroupName": "rg", "allocationMethod":
                       "Static", "sku": "Standard", "tags": T2})
            fe["publicIpAddressId"] = f"{rg}/providers/Microsoft.Network/publicIPAddresses/clb"
            fdeps = {"frontendIpConfigurations": [pip]}
            out.append(pip)
        else:
            fe["subnetId"] = f"{rg}/providers/Microsoft.Network/virtualNetworks/v/subnets/n"
            fe["privateIpAddressAllocation"] = "Dynamic"
        lb = res("azure:lb/loadBalancer:LoadBalancer", "clb",
                 {"name": "clb", "location": "eastus", "resourceGroupName": "rg",
                  "sku": "Standard", "frontendIpConfigurations": [fe], "tags": T2}, deps=fdeps)
        pool = res("azure:lb/backendAddressPool:BackendAddressPool", "clb-pool",
                   {"name": "t4", "loadbalancerId": "clb-id"}, deps={"loadbalancerId": [lb]})
        out += [lb, pool]
        if rule:
            out.append(res("azure:lb/rule:Rule", "clb-https",
                           {"name": "https", "loadbalancerId": "clb-id", "protocol": "Tcp",
                            "frontendPort": 443.0, "backendPort": 8000.0,
                            "frontendIpConfigurationName": "fe",
                            "backendAddressPoolIds": ["pool-id"]},
                           deps={"loadbalancerId": [lb], "backendAddressPoolIds": [pool]}))
        nic = res("azure:network/networkInterface:NetworkInterface", "t4-nic",
                  {"location": "eastus", "resourceGroupName": "rg", "tags": T2,
                   "ipConfigurations": [{"name": "ip", "subnetId": f"{rg}/providers/Microsoft."
                                         "Network/virtualNetworks/v/subnets/n",
                                         "privateIpAddressAllocation": "Dynamic"}]})
        vm = res("azure:compute/linuxVirtualMachine:LinuxVirtualMachine", "t4-vm",
                 {"location": "eastus", "resourceGroupName": "rg", "size": "Standard_NC4as_T4_v3",
                  "adminUsername": "azureuser", "networkInterfaceIds": ["nic-id"], "tags": T2,
                  "osDisk": {"caching": "ReadWrite", "storageAccountType": "Premium_LRS"}},
                 deps={"networkInterfaceIds": [nic]})
        out += [nic, vm]
        if assoc:
            out.append(res("azure:network/networkInterfaceBackendAddressPoolAssociation:"
                           "NetworkInterfaceBackendAddressPoolAssociation", "t4-assoc",
                           {"networkInterfaceId": "nic-id", "ipConfigurationName": "ip",
                            "backendAddressPoolId": "pool-id"},
                           deps={"networkInterfaceId": [nic], "backendAddressPoolId": [pool]}))
        return s + out
    return mutate


def _channel(labels: Any = "ok"):
    def mutate(s):
        p: dict = {"type": "email", "displayName": "ml oncall",
                   "labels": {"email_address": "ml-oncall@example.com"}}
        if labels == "ok":
            p["userLabels"] = dict(LABELS)
        elif labels == "partial":
            p["userLabels"] = {"owner": "alice"}
        ch = res("gcp:monitoring/notificationChannel:NotificationChannel", "oncall", p)
        b = named(s, "budget")
        b.props["allUpdatesRule"] = {"monitoringNotificationChannels": ["ch-id"]}
        b.deps["allUpdatesRule"] = [ch]
        return s + [ch]
    return mutate


BATCH3 = [
    ("a17", "aws", _native_elb(None), {NPI: F}, "aws-native ELB, scheme left out: internet-facing"),
    ("a18", "aws", _native_elb("internal"), {}, "aws-native ELB, scheme internal"),
    ("a19", "aws", _native_elb("internet-facing"), {NPI: F}, "aws-native ELB internet-facing"),
    ("a20", "aws", _edge(), {}, "a public subnet holding only an ALB and a VPC endpoint"),
    ("a21", "aws", _edge(native_vpce=True), {}, "the same with an aws-native VPC endpoint"),
    ("a22", "aws", _edge(asg_in=True, lt_public="false"), {},
     "the GPU ASG launches into the public subnet too, but every template interface says"
     " associatePublicIpAddress 'false': the interface overrides the subnet"),
    ("a23", "aws", _edge(asg_in=True, lt_public=None), {NPI: F},
     "the same, the template's interfaces silent: the subnet maps public IPs"),
    ("a24", "aws", _edge(asg_in=True, lt_public="true"), {NPI: F},
     "the same, the template's interfaces asking for public IPs"),
    ("z19", "azure", _classic_lb(True), {NPI: F},
     "public classic LB rule -> pool the T4 VM's NIC joins by association"),
    ("z20", "azure", _classic_lb(False), {}, "private classic LB"),
    ("z21", "azure", _classic_lb(True, rule=False), {},
     "public classic LB without a rule: takes nothing in"),
    ("z22", "azure", _classic_lb(True, assoc=False), {},
     "public classic LB, the NIC joins no pool"),
    ("g15", "gcp", _channel("ok"), {}, "a budget notifying a labelled email channel"),
    ("g16", "gcp", _channel(None), {TAGS_P: F}, "the channel without userLabels"),
    ("g17", "gcp", _channel("partial"), {TAGS_P: F}, "the channel with owner only"),
]


@pytest.mark.parametrize("case", _params(BATCH3))
def test_batch3(pack, case):
    _run_case(pack, case)


# ---------------------------------------------------------------- DEFECT 1 probes (counted apart)
def _g4dn_behind(native: bool, scheme_or_internal: Any):
    """A g4dn.xlarge (us-east-1 0.526 USD/h; +383.98 a month, the base budget 20,000 still
    covers 2 x 55.04 x 97 = 10,677.76 + storage) in the private nodes subnet, registered in a
    balancer's `instances` by dependency."""
    def mutate(s):
        sub = named(s, "nodes-subnet")
        vm = res("aws:ec2/instance:Instance", "g4-vm",
                 {"instanceType": "g4dn.xlarge", "ami": "ami-1", "subnetId": "subnet-a",
                  "associatePublicIpAddress": False, "tags": T2,
                  "rootBlockDevice": {"encrypted": True}}, deps={"subnetId": [sub]})
        if native:
            p: dict = {"subnets": ["subnet-a"], "instances": ["i-g4"], "listeners": [{
                "loadBalancerPort": "443", "protocol": "TCP", "instancePort": "8000"}]}
            if scheme_or_internal is not None:
                p["scheme"] = scheme_or_internal
            lb = res("aws-native:elasticloadbalancing:LoadBalancer", "g4-elb", p,
                     deps={"subnets": [sub], "instances": [vm]})
        else:
            lb = res("aws:elb/loadBalancer:LoadBalancer", "g4-elb",
                     {"subnets": ["subnet-a"], "instances": ["i-g4"], "internal":
                      scheme_or_internal, "tags": T2, "listeners": [{
                          "lbPort": 443.0, "lbProtocol": "tcp", "instancePort": 8000.0,
                          "instanceProtocol": "tcp"}]},
                     deps={"subnets": [sub], "instances": [vm]})
        return s + [vm, lb]
    return mutate


PROBES = [
    ("d1", "aws", _g4dn_behind(True, "internet-facing"), {NPI: F},
     "aws-native classic ELB internet-facing, `instances` naming a GPU instance"),
    ("d2", "aws", _g4dn_behind(False, False), {NPI: F}, "the aws:elb twin (control)"),
    ("d3", "aws", _g4dn_behind(True, "internal"), {}, "aws-native classic ELB internal"),
]
# d1 (reach: `instances` too) passes since the fix, as a17 and a19


@pytest.mark.parametrize("case", _params(PROBES))
def test_defect_probes(pack, case):
    _run_case(pack, case)
