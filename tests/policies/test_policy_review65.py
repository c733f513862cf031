"""Issue 35, a BLIND hostile review (helper review65) of the CrossGuard pack over gRPC, driven as
`pulumi preview --policy-pack policies` drives it (tests/policy_harness.py). Focus: the classes
where the last reviews (62, 63) found defects that were just fixed, with new stacks: (1) compute
the pack does not see (types and fields no earlier review used, on all four clouds) and CPU-only
twins that must not draw a GPU finding; (2) malformed values in every field that sizes, prices or
caps; (3) public exposure to GPU nodes through entry points on Azure, GCP, Alibaba and AWS, with
internal-only controls; (4) budgets narrowed as the docs name, with the compute of (1). The pack's
code was not read: every verdict comes from docs/policies.md, the catalog CSVs, the Pulumi SDK
schemas in .venv and cited provider pages; each batch's expectations were committed before its
first run.

RESULTS (agreed / cases on the first run of each blind batch; 190 blind cases, 185 agree, 2 MY
  mistakes, 3 pack defects; plus 5 probes written after a finding and counted apart; 5 strict
  xfails in all):
  batch 1: 44/44 (compute not seen and CPU twins): Cloud9 g4dn, CodeBuild fleets (custom g5 type,
    LINUX_GPU_CONTAINER), SageMaker Studio apps, InstanceFromMachineImage (a2 type, N1 + T4),
    Dataflow Flex Template g2 workers, Azure ML inference pools (nodeSkuType) and batch deployments,
    ACI container group profiles (gpu {count, sku}), ECS image pipelines, ECI scaling configs (gpu,
    gn instanceTypes), FC v3 gpuConfig: all named; g5g (T4G) priced as GPU; false alarms absent on
    t4g (instanceFamily, ElastiCache nodeType), a GPU EKS AMI on m5, Kubernetes labels and taints
    (GKE, AKS), descriptions, tags, user data, CUDA images, {count: 0}, ecs.g7.
  batch 2: 40/43 (malformed values, each where a lenient reading would pass): lists, objects, text,
    '1e3' weights, secrets (a secret list), unknowns at depth 2 on EKS, mixed weights, Spot / EC2
    Fleet, Batch maxVcpus, ODCR counts, budgets (AWS, GCP, Azure, classic), FSx / Lustre / AMLFS /
    CPFS capacities, a Schedule raise, autoscalers, GKE pools, GCP reservations and accelerator
    counts, AKS / AML / Batch pool / capacity reservation sizes, Alibaba reservations: all named.
    m33 and m42 MY MISTAKES (below); m19 DEFECT 1.
  batch 3: 47/47 (exposure): Application Gateway by address / NIC pool / private listener / private
    only / unknown frontend; Firewall policy DNAT (*, halves, narrowed, private DNAT, IP groups,
    sshCidrs on 22 and not 8888); classic LB rule + NIC pool association, private twin; standalone
    NAT rule by name and group in other case, and naming another balancer; frontends unknown; GCP
    PORTMAP NEG (external / internal managed), GCE_VM_IP NEG list under an external NLB, target pool,
    internal target instance, SSL proxy, internal TCP proxy, an empty access config; Alibaba GA
    basic endpoint and endpoint group on an intranet SLB, NLB / ALB internet and intranet, DNAT on
    internet vs intranet NAT gateways, EIP on a NAT gateway vs a node; AWS NLB internet / internal,
    GA and CloudFront VPC origin on internal balancers, HTTP API VPC_LINK, INTERNET integration,
    REST API PRIVATE vs REGIONAL, Gateway LB; and the AKS T4 follow-ups of m31 (m44 m45).
  batch 4: 37/38 (budgets narrowed over the compute above): AWS InstanceType, UsageType (USE1-,
    no prefix, USW2-, EBS), Service, TagKeyValue over EKS (tags not propagated) and Batch CEs
    (computeResources.tags, env tags only, a template key in conflict), AZ, a second narrower budget
    below / above what it covers, maxMonthlyUsd (over, under, a budget above it); GCP labels over
    VMs, GKE pools (Kubernetes labels vs resourceLabels), MIG allInstancesConfig, services,
    projects by number / other, resourceAncestors; Azure ResourceGroupName and MeterCategory over
    Azure ML compute, resource-group scopes over AKS pools (the cluster's own group, the MC_ group,
    a custom node group in other case, a cluster not in the stack). n34 DEFECT 2.
  batch 5: 17/18 (more of (1) and (2)): SageMaker user profile / space, M2, m7g, warm pools, a
    documented unreadable on-demand percentage, a regional MIG size list, a reservation's
    accelerator count 'two', a classic scale set's instances list, a sku.capacity object, an
    instance set amount, tags naming GPU sizes. v06 DEFECT 3.
  probes (after a finding, counted apart): 4b q01 (DEFECT 2's reach), q02 q03 agree; 5b w01
    (DEFECT 3), w02 agrees.

MY MISTAKES (each fixed in its own commit): m33, an AKS AgentPool names no location, so the pack
  prices it at its type's dearest catalog region (7.35 USD/h, documented), not the cluster's
  eastus: over the budget, a fail; m42, I asked the finding to name the input (instanceAmount), the
  docs promise "that resource and value" (it says "its size ['1']").

DEFECT 1 (spend-limit; a finding hidden, verdict unchanged). Smallest: m19 = the AWS base group at
  maxSize 40 (211,354 USD for its 96 h, 20,000 budget) beside a decoy g5.xlarge group of maxSize -3:
  only the decoy's "a number that sizes GPU capacity is not valid" is reported; the over-budget
  finding on train-nodes ("the estimated monthly cost exceeds the stack's budget", reported without
  the decoy) is gone, though what the pack can price already exceeds the cap and the decoy can only
  add. Docs: a malformed value "is judged for that resource alone" ("a NaN accelerator count does not
  stop storage-same-zone from reporting a filesystem ..."), "never a zero and never left out (a decoy
  group of maxSize: -510 does not cancel a 512-node group ...)". Reach (probed): a group of unknown
  type, a weight 'two', an FSx capacity list each hide the same finding. The verdict stays "fail".
DEFECT 2 (spend-limit; a false alarm, mandatory). Smallest: n34 = the Azure base set in rg, a
  budget whose filter is ResourceId [the set's ARM id], and an AKS T4 pool of a cluster not in the
  stack: "no budget alarm on azure for gpu ... (leaves out the GPU compute)". Docs: "ResourceId (a
  scale set's or VM's ARM id ...; AKS and Azure ML nodes' ids are not built: 'cannot decide')".
  Reach: q01, the filter also naming aks-gpu-12345678-vmss in MC_rg_aks_eastus, the form of the
  pool's own set: still "leaves out". Not reached: the cluster in the stack (q02) and Azure ML
  compute (q03): "cannot decide", as documented.
DEFECT 3 (spend-limit; priced below the truth). Smallest: w01 = a g5.xlarge group of maxSize 2
  with a Running warm pool of minSize 20 and no maxGroupPreparedCapacity: priced at 4 nodes
  (2,937.52 a month, ~15,078 in all, a pass); AWS keeps at least minSize in the pool (CloudFormation
  AWS::AutoScaling::WarmPool: "launches new instances into the warm pool to maintain its minimum
  size"), so up to 22 nodes, 16,156.36 (~28,297 > 20,000). docs/policies.md (Sizes) itself says
  "without it, maxSize more", which holds only while minSize <= maxSize; with it, "the larger of it
  and maxSize plus the pool's minSize" (w02 agrees). Reach: v06, a minSize ['1'] is never read, so
  the malformed size passes silently (docs: a size written as a list "is a violation").

Planted bug (test side; the pack's code was not read): `_aws_lb_to` writing `internal: True`
whatever it is given: x40 fails, every other batch-3 case passes; reverted.

Noticed, left alone: a validation finding names the resource and value, not the input; every
unpriceable GPU group (not only a malformed one) hides the over-budget finding (DEFECT 1's root, a
report, not a verdict); AWS PurchaseType filters not tried (no cited value strings); CodeBuild
project `environment.type: LINUX_GPU_CONTAINER` not tried (a `type` key is read only for a GPU
type, by the docs); a Synapse GPU pool (`nodeSizeFamily`) and Alibaba EAIS / ENS types not tried
(outside the docs' sign words).

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


# DEFECTS 1-3 (m19; n34, q01; v06, w01) were fixed by fix65 (issue 35): their strict xfails are
# gone, the cases run as written.
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
    assert got == want, (cid, [(d.policy, d.level, d.message[:400]) for d in found])
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


ALI = "eu-central-1"
AZT = dict(AZ_TAGS)
ALT = {"owner": "alice", "team": "ml", "cost-center": "1234"}   # alicloud_cluster's owner tags


def _aws_lt_asg(name: str, itype: str, max_size: float, extra_lt: Optional[dict] = None,
                extra_asg: Optional[dict] = None) -> Callable[[list], list]:
    """A second AWS group: its own launch template (no public IP) in the base stack's private
    subnet train-a (us-east-1a), tags propagated."""
    def build(s):
        lt = res("aws:ec2/launchTemplate:LaunchTemplate", f"{name}-lt", {
            "instanceType": itype, "tags": dict(TAGS),
            "networkInterfaces": [{"deviceIndex": 0.0, "associatePublicIpAddress": "false"}],
            "tagSpecifications": [{"resourceType": "instance", "tags": dict(TAGS)}],
            **(extra_lt or {})})
        asg = res("aws:autoscaling/group:Group", name, {
            "minSize": 0.0, "maxSize": max_size, "vpcZoneIdentifiers": ["subnet-x"],
            "launchTemplate": {"id": "lt-y", "version": "$Latest"},
            "tags": [{"key": k, "value": v, "propagateAtLaunch": True} for k, v in TAGS.items()],
            **(extra_asg or {})},
            deps={"launchTemplate": [lt], "vpcZoneIdentifiers": [named(s, "train-a")]})
        return [lt, asg]
    return build


def _ali_vsw(s):
    return named(s, "vsw")


# ------------------------------------------------------------------------------------ batch 1
# (1) Compute the pack may not see, and CPU twins that must not draw a GPU finding. Docs
# (Coverage, last paragraph): "spend-limit also names any other resource that carries a GPU sign
# as GPU capacity it cannot estimate. A sign is, in a type field (a key instanceType, ..., or one
# ending in Type, Types or TypeName ...), a GPU type of any of the four clouds ..., or, in a value
# not in one cloud's own type-name form ..., a word GPU ... (not t4g, also AWS's Graviton family);
# ... an accelerator field that declares at least one accelerator (keys ... gpu, gpus, gpuCount,
# gpuType ...); an object by its count, {count: 0} declaring none ... keys ending in tags or labels
# never." Scope: a GPU node is one "whose type the catalog lists with GPUs" (g5g: T4G, catalog).
# Every base stack is under its budget (AWS ~12,141 < 20,000; GCP 25,164.51 < 30,000; Azure
# <= 21,286.07 < 25,000; Alibaba: autoReleaseTime on both nodes, no budget resource).

B1 = [
    ("k00", "aws", {}, None, {}, None, "control: the AWS base"),
    ("k01", "aws", {}, _new("aws:cloud9/environmentEc2:EnvironmentEc2", "ide", {
        "instanceType": "g4dn.xlarge", "imageId": "amazonlinux-2023-x86_64",
        "automaticStopTimeMinutes": 30.0, "subnetId": "subnet-x", "tags": dict(TAGS)}),
     {SPEND: "fail"}, None,
     "a Cloud9 EC2 environment on g4dn.xlarge (a catalog GPU type, T4) in an instanceType key: a "
     "resource the coverage table does not list carrying a GPU sign: GPU capacity it cannot "
     "estimate"),
    ("k02", "aws", {}, _new("aws:cloud9/environmentEc2:EnvironmentEc2", "ide", {
        "instanceType": "t3.small", "imageId": "amazonlinux-2023-x86_64",
        "automaticStopTimeMinutes": 30.0, "subnetId": "subnet-x", "tags": dict(TAGS)}),
     {}, None, "CPU twin of k01: t3.small, no sign"),
    ("k03", "aws", {}, _new("aws:codebuild/fleet:Fleet", "ci", {
        "name": "ci", "baseCapacity": 2.0, "computeType": "CUSTOM_INSTANCE_TYPE",
        "environmentType": "LINUX_CONTAINER",
        "computeConfiguration": {"instanceType": "g5.xlarge"}, "tags": dict(TAGS)}),
     {SPEND: "fail"}, None,
     "a CodeBuild reserved-capacity fleet of 2 custom g5.xlarge (computeConfiguration.instanceType; "
     "docs.aws.amazon.com/codebuild build-env-ref-compute-types reserved capacity instance types): "
     "a GPU type in an instanceType key at depth 2"),
    ("k04", "aws", {}, _new("aws:codebuild/fleet:Fleet", "ci", {
        "name": "ci", "baseCapacity": 1.0, "computeType": "BUILD_GENERAL1_LARGE",
        "environmentType": "LINUX_GPU_CONTAINER", "tags": dict(TAGS)}),
     {SPEND: "fail"}, None,
     "a CodeBuild fleet of environmentType LINUX_GPU_CONTAINER (a key ending in Type whose value, not "
     "in a cloud's type-name form, holds the word GPU)"),
    ("k05", "aws", {}, _new("aws:codebuild/fleet:Fleet", "ci", {
        "name": "ci", "baseCapacity": 4.0, "computeType": "BUILD_GENERAL1_LARGE",
        "environmentType": "LINUX_CONTAINER", "tags": dict(TAGS)}),
     {}, None, "CPU twin of k04: LINUX_CONTAINER"),
    ("k06", "aws", {}, _new("aws:sagemaker/app:App", "jl", {
        "domainId": "d-1", "userProfileName": "bob", "appType": "JupyterLab", "appName": "default",
        "resourceSpec": {"instanceType": "ml.g5.xlarge"}, "tags": dict(TAGS)}),
     {SPEND: "fail"}, None,
     "a SageMaker Studio app on ml.g5.xlarge: the docs name 'SageMaker ml.* GPU variants' as "
     "unpriceable GPU capacity"),
    ("k07", "aws", {}, _new("aws:sagemaker/app:App", "jl", {
        "domainId": "d-1", "userProfileName": "bob", "appType": "JupyterLab", "appName": "default",
        "resourceSpec": {"instanceType": "ml.t3.medium"}, "tags": dict(TAGS)}),
     {}, None, "CPU twin of k06: ml.t3.medium"),
    ("k08", "aws", {}, _new("aws:ec2/defaultCreditSpecification:DefaultCreditSpecification", "cred",
                            {"instanceFamily": "t4g", "cpuCredits": "unlimited"}),
     {}, None,
     "false alarm: instanceFamily t4g (Graviton burstable; the docs: 'not t4g, also AWS's Graviton "
     "family'); not a GPU family of AWS (p/g/gr/trn/inf/dl: t4g starts with t)"),
    ("k09", "aws", {}, _new("aws:elasticache/cluster:Cluster", "cache", {
        "clusterId": "cache", "engine": "redis", "nodeType": "cache.t4g.micro",
        "numCacheNodes": 1.0, "tags": dict(TAGS)}),
     {}, None, "false alarm: an ElastiCache nodeType cache.t4g.micro (a type key; t4g is no GPU)"),
    ("k10", "aws", {}, _new("aws:redshift/cluster:Cluster", "dw", {
        "clusterIdentifier": "dw", "nodeType": "ra3.xlplus", "numberOfNodes": 2.0,
        "masterUsername": "admin", "encrypted": "true", "tags": dict(TAGS)}),
     {}, None, "CPU twin: a Redshift nodeType ra3.xlplus"),
    ("k11", "aws", {}, _add(_aws_lt_asg("arm-gpu", "g5g.16xlarge", 10.0)),
     {SPEND: "fail"}, None,
     "g5g.16xlarge IS a GPU type (catalog instance_types: 2 x T4G), whatever 'g' in Graviton: 10 x "
     "2.744 USD/h (prices.csv us-east-1) x 730 = 20,031.20 + base ~12,141 = ~32,172 > 20,000. rdma: "
     "its catalog fabric is tcp, not asked. Same subnet (1a) as the FSx: storage passes"),
    ("k12", "aws", {}, _add(_aws_lt_asg("arm-cpu", "t4g.2xlarge", 10.0)),
     {}, None, "CPU twin of k11: 10 x t4g.2xlarge (Graviton, no GPU): not GPU capacity, not in the "
     "catalog: named and left out; the base stays under 20,000"),
    ("k13", "aws", {}, _new("aws:eks/nodeGroup:NodeGroup", "sys", {
        "clusterName": "eks", "nodeRoleArn": "arn:aws:iam::111111111111:role/n",
        "subnetIds": ["subnet-x"], "instanceTypes": ["m5.large"], "amiType": "AL2_x86_64_GPU",
        "scalingConfig": {"minSize": 1.0, "maxSize": 4.0, "desiredSize": 1.0},
        "labels": {"nvidia.com/gpu.present": "true", "accelerator": "nvidia"},
        "tags": dict(TAGS)}, deps=lambda s: {"subnetIds": [named(s, "train-a")]}),
     {}, None,
     "false alarm: an EKS node group of m5.large (CPU) whose amiType is AL2_x86_64_GPU and whose "
     "Kubernetes labels name GPUs: an in-scope group is GPU by its type (Scope), labels are never "
     "read; an image name launches no GPU"),
    ("k14", "aws", {}, _new("aws:eks/nodeGroup:NodeGroup", "inf", {
        "clusterName": "eks", "nodeRoleArn": "arn:aws:iam::111111111111:role/n",
        "subnetIds": ["subnet-x"], "instanceTypes": ["g6.xlarge"], "amiType": "AL2_x86_64_GPU",
        "scalingConfig": {"minSize": 1.0, "maxSize": 20.0, "desiredSize": 1.0},
        "tags": dict(TAGS)}, deps=lambda s: {"subnetIds": [named(s, "train-a")]}),
     {SPEND: "fail"}, None,
     "control for k13: g6.xlarge (L4) x 20 (pools at their maximum) x 0.8048 x 730 = 11,750.08 + "
     "~12,141 = ~23,891 > 20,000. rdma: EKS node groups are left to their service"),
    ("k15", "aws", {}, _add(_aws_lt_asg("web", "t3.large", 4.0, extra_lt={
        "description": "placeholder until p5.48xlarge capacity arrives; gpu later",
        "tags": {**TAGS, "next-instance-type": "p4d.24xlarge", "gpu": "planned"}})),
     {}, None,
     "false alarm: a t3.large group whose template's description and own tags name p5/p4d and GPU: "
     "description is no type field, tags never read"),
    ("k16", "aws", {}, _new("aws:ec2/instance:Instance", "gpu-bastion", {
        "instanceType": "t3.medium", "subnetId": "subnet-x", "associatePublicIpAddress": False,
        "userData": "#!/bin/bash\n# launch p4d.24xlarge jobs with --gpus all\n",
        "tags": {**TAGS, "Name": "gpu-bastion", "role": "gpu-scheduler"}},
        deps=lambda s: {"subnetId": [named(s, "train-a")]}),
     {}, None, "false alarm: a t3.medium named gpu-bastion whose user data names p4d: no sign"),
    # ----- GCP
    ("k20", "gcp", {}, None, {}, None, "control: the GCP base"),
    ("k21", "gcp", {}, _new("gcp:compute/instanceFromMachineImage:InstanceFromMachineImage", "mi", {
        "zone": "us-west1-b", "sourceMachineImage": "projects/ml/global/machineImages/trainer",
        "machineType": "a2-highgpu-1g", "labels": dict(LABELS),
        "networkInterfaces": [{"network": "train"}]}),
     {SPEND: "fail"}, None,
     "an InstanceFromMachineImage of a2-highgpu-1g (catalog GPU type, 1 A100): not in the coverage "
     "table (InstanceFromTemplate is), a GPU sign in machineType: GPU capacity it cannot estimate"),
    ("k22", "gcp", {}, _new("gcp:compute/instanceFromMachineImage:InstanceFromMachineImage", "mi", {
        "zone": "us-west1-b", "sourceMachineImage": "projects/ml/global/machineImages/trainer",
        "machineType": "n1-standard-8", "labels": dict(LABELS),
        "guestAccelerators": [{"type": "nvidia-tesla-t4", "count": 1.0}],
        "networkInterfaces": [{"network": "train"}]}),
     {SPEND: "fail"}, None, "n1-standard-8 + 1 T4 in guestAccelerators (an accelerator key)"),
    ("k23", "gcp", {}, _new("gcp:compute/instanceFromMachineImage:InstanceFromMachineImage", "mi", {
        "zone": "us-west1-b", "sourceMachineImage": "projects/ml/global/machineImages/gpu-trainer",
        "machineType": "n2-standard-8", "labels": {**LABELS, "gpu": "none"},
        "description": "was a2-highgpu-1g", "networkInterfaces": [{"network": "train"}]}),
     {}, None, "CPU twin of k21: n2-standard-8; 'gpu' only in the image name, a label, a description"),
    ("k24", "gcp", {}, _new("gcp:dataflow/flexTemplateJob:FlexTemplateJob", "etl", {
        "name": "etl", "region": "us-west1", "containerSpecGcsPath": "gs://t/spec.json",
        "machineType": "g2-standard-8", "maxWorkers": 4.0, "labels": dict(LABELS)}),
     {SPEND: "fail"}, None,
     "a Dataflow Flex Template job on g2-standard-8 workers (G2: L4 GPUs, the docs' GPU family g2) "
     "in machineType"),
    ("k25", "gcp", {}, _new("gcp:dataflow/flexTemplateJob:FlexTemplateJob", "etl", {
        "name": "etl", "region": "us-west1", "containerSpecGcsPath": "gs://t/spec.json",
        "machineType": "n2-standard-4", "launcherMachineType": "e2-standard-2", "maxWorkers": 40.0,
        "labels": dict(LABELS)}),
     {}, None, "CPU twin of k24: n2-standard-4 workers"),
    ("k26", "gcp", {}, _new("gcp:container/nodePool:NodePool", "sys", {
        "cluster": "projects/ml/locations/us-west1/clusters/c", "location": "us-west1",
        "autoscaling": {"minNodeCount": 1.0, "maxNodeCount": 5.0},
        "networkConfig": {"enablePrivateNodes": True},
        "nodeConfig": {"machineType": "e2-standard-4",
                       "labels": {**LABELS, "accelerator": "nvidia-tesla-t4", "gpu": "true"},
                       "resourceLabels": dict(LABELS),
                       "taints": [{"key": "nvidia.com/gpu", "value": "present",
                                   "effect": "NO_SCHEDULE"}]}}),
     {}, None,
     "false alarm: a private CPU pool (e2-standard-4) whose Kubernetes labels say accelerator / gpu "
     "and whose taint names nvidia.com/gpu: labels never read, no accelerator field"),
    ("k27", "gcp", {}, _new("gcp:compute/instance:Instance", "dev", {
        "zone": "us-west1-b", "machineType": "n2-standard-8", "labels": dict(LABELS),
        "description": "GPU driver build box",
        "bootDisk": {"initializeParams": {
            "image": "projects/deeplearning-platform-release/global/images/family/common-cu124"}},
        "metadata": {"install-nvidia-driver": "True"},
        "networkInterfaces": [{"network": "train"}]}),
     {}, None, "false alarm: an n2 VM from a Deep Learning (CUDA) image: no accelerator, no GPU type"),
    ("k28", "gcp", {}, _new("gcp:compute/instance:Instance", "dev", {
        "zone": "us-west1-b", "machineType": "n1-standard-4", "labels": dict(LABELS),
        "guestAccelerators": [{"type": "nvidia-tesla-t4", "count": 0.0}],
        "networkInterfaces": [{"network": "train"}]}),
     {}, None,
     "CPU twin: an N1 VM whose guestAccelerators entry has count 0 ('{count: 0} declaring none'); "
     "n1-standard-4 is a CPU machine (left out of the estimate if not priced)"),
    # ----- Azure
    ("k30", "azure", {}, None, {}, None, "control: the Azure base"),
    ("k31", "azure", {}, _new("azure-native:machinelearningservices:InferencePool", "pool", {
        "resourceGroupName": "rg", "workspaceName": "ws", "location": "eastus",
        "inferencePoolName": "pool", "inferencePoolProperties": {
            "nodeSkuType": "Standard_NC24ads_A100_v4"}, "tags": AZT}),
     {SPEND: "fail"}, None,
     "an Azure ML inference pool of Standard_NC24ads_A100_v4 (catalog GPU type, A100) in nodeSkuType "
     "(a key ending in Type): GPU capacity it cannot estimate"),
    ("k32", "azure", {}, _new("azure-native:machinelearningservices:InferencePool", "pool", {
        "resourceGroupName": "rg", "workspaceName": "ws", "location": "eastus",
        "inferencePoolName": "pool", "inferencePoolProperties": {"nodeSkuType": "Standard_D4s_v3"},
        "tags": AZT}),
     {}, None, "CPU twin of k31"),
    ("k33", "azure", {}, _new("azure-native:machinelearningservices:BatchDeployment", "score", {
        "resourceGroupName": "rg", "workspaceName": "ws", "endpointName": "ep", "location": "eastus",
        "properties": {"compute": "azureml:k8s", "resources": {
            "instanceType": "Standard_NC6s_v3", "instanceCount": 2.0}}, "tags": AZT}),
     {SPEND: "fail"}, None,
     "an Azure ML batch deployment on 2 Standard_NC6s_v3 (V100; an N-series size) in "
     "properties.resources.instanceType"),
    ("k34", "azure", {}, _new("azure-native:containerinstance:ContainerGroupProfile", "gprof", {
        "resourceGroupName": "rg", "location": "eastus", "osType": "Linux", "sku": "Standard",
        "containers": [{"name": "infer", "image": "nvcr.io/nvidia/tritonserver:24.05-py3",
                        "resources": {"requests": {"cpu": 4.0, "memoryInGB": 16.0,
                                                   "gpu": {"count": 1.0, "sku": "V100"}}}}],
        "tags": AZT}),
     {SPEND: "fail"}, None,
     "an ACI container group profile requesting 1 V100 (resources.requests.gpu {count, sku}: the "
     "key gpu, an object by its count 1)"),
    ("k35", "azure", {}, _new("azure-native:containerinstance:ContainerGroupProfile", "gprof", {
        "resourceGroupName": "rg", "location": "eastus", "osType": "Linux", "sku": "Standard",
        "containers": [{"name": "gpu-exporter", "image": "nvcr.io/nvidia/k8s/dcgm-exporter:3",
                        "resources": {"requests": {"cpu": 1.0, "memoryInGB": 2.0}}}],
        "tags": AZT}),
     {}, None, "CPU twin of k34: no gpu request; 'gpu'/'nvidia' only in names and the image"),
    ("k36", "azure", {}, _new("azure-native:kusto:Cluster", "adx", {
        "resourceGroupName": "rg", "location": "eastus",
        "sku": {"name": "Standard_E8ads_v5", "tier": "Standard", "capacity": 2.0}, "tags": AZT}),
     {}, None, "CPU twin: a sku object whose name is a CPU size (E8ads_v5)"),
    ("k37", "azure", {}, _new("azure-native:containerservice:AgentPool", "cpu", {
        "resourceGroupName": "rg", "resourceName": "aks", "agentPoolName": "cpu",
        "vmSize": "Standard_D8s_v5", "count": 2.0, "mode": "User",
        "nodeLabels": {"gpu": "true", "accelerator": "nvidia"},
        "nodeTaints": ["sku=gpu:NoSchedule"], "tags": AZT}),
     {}, None,
     "false alarm: an AKS CPU pool (D8s_v5) labelled/tainted for GPU workloads (AKS's GPU docs' "
     "sku=gpu:NoSchedule taint): in-scope compute judged by its vmSize; labels never read"),
    ("k38", "azure", {}, _new("azure-native:compute:VirtualMachineScaleSet", "viz", {
        "resourceGroupName": "rg", "location": "eastus", "zones": ["1"],
        "sku": {"name": "Standard_NV36ads_A10_v5", "capacity": 2.0, "tier": "Standard"},
        "virtualMachineProfile": {"priority": "Regular", "networkProfile": {
            "networkInterfaceConfigurations": [{"name": "nic", "primary": True,
                                                "ipConfigurations": [{"name": "ip"}]}]}},
        "tags": AZT}),
     {SPEND: "fail"}, None,
     "a second GPU set, 2 x Standard_NV36ads_A10_v5 (A10, 3.2 USD/h eastus) x 730 = 4,672.00 + "
     "base <= 21,286.07 = <= 25,958.07 and >= 4,672 + 18,877.44 + 2,230.60 > 25,000: over the budget. "
     "rdma: tcp fabric, not asked"),
    # ----- Alibaba Cloud
    ("k40", "ali", {}, None, {}, None, "control: the Alibaba base"),
    ("k41", "ali", {}, _new("alicloud:ecs/ecsImagePipeline:EcsImagePipeline", "img", {
        "baseImageType": "IMAGE", "baseImage": "ubuntu_22_04_x64_20G_alibase_20240101.vhd",
        "instanceType": "ecs.gn6i-c4g1.xlarge", "vswitchId": "vsw-id", "internetMaxBandwidthOut": 0.0,
        "tags": ALT}, region=ALI),
     {SPEND: "fail"}, None,
     "an ECS image pipeline whose build instance is ecs.gn6i-c4g1.xlarge (gn family, T4): a GPU "
     "type in an instanceType key"),
    ("k42", "ali", {}, _new("alicloud:ecs/ecsImagePipeline:EcsImagePipeline", "img", {
        "baseImageType": "IMAGE", "baseImage": "ubuntu_22_04_x64_20G_alibase_20240101.vhd",
        "instanceType": "ecs.g7.large", "vswitchId": "vsw-id", "internetMaxBandwidthOut": 0.0,
        "description": "builds the GPU driver image", "tags": ALT}, region=ALI),
     {}, None, "CPU twin: ecs.g7.large ('ecs.g7.xlarge ... read as names only': g7 is general purpose)"),
    ("k43", "ali", {}, _new("alicloud:ess/eciScalingConfiguration:EciScalingConfiguration", "eci", {
        "scalingGroupId": "asg-1", "securityGroupId": "sg-1", "containerGroupName": "infer",
        "containers": [{"name": "infer", "image": "triton:24", "cpu": 4.0, "memory": 16.0,
                        "gpu": 1.0}], "tags": ALT}, region=ALI),
     {SPEND: "fail"}, None, "an ECI scaling configuration whose container asks gpu: 1 (key gpu)"),
    ("k44", "ali", {}, _new("alicloud:ess/eciScalingConfiguration:EciScalingConfiguration", "eci", {
        "scalingGroupId": "asg-1", "securityGroupId": "sg-1", "containerGroupName": "infer",
        "instanceTypes": ["ecs.gn7i-c8g1.2xlarge"],
        "containers": [{"name": "infer", "image": "triton:24"}], "tags": ALT}, region=ALI),
     {SPEND: "fail"}, None, "an ECI scaling configuration on instanceTypes [ecs.gn7i-c8g1.2xlarge] (A10)"),
    ("k45", "ali", {}, _new("alicloud:ess/eciScalingConfiguration:EciScalingConfiguration", "eci", {
        "scalingGroupId": "asg-1", "securityGroupId": "sg-1", "containerGroupName": "gpu-monitor",
        "instanceTypes": ["ecs.c6.large"], "cpu": 2.0, "memory": 4.0,
        "containers": [{"name": "gpu-monitor", "image": "nvidia/dcgm", "cpu": 2.0, "memory": 4.0}],
        "tags": ALT}, region=ALI),
     {}, None, "CPU twin of k43/k44"),
    ("k46", "ali", {}, _new("alicloud:fc/v3Function:V3Function", "fn", {
        "functionName": "infer", "runtime": "custom-container", "handler": "index.handler",
        "memorySize": 32768.0, "cpu": 8.0,
        "gpuConfig": {"gpuType": "fc.gpu.tesla.1", "gpuMemorySize": 16384.0}}, region=ALI),
     {SPEND: "fail"}, None,
     "a Function Compute function with gpuConfig.gpuType fc.gpu.tesla.1 (key gpuType in the "
     "accelerator list)"),
    ("k47", "ali", {}, _new("alicloud:fc/v3Function:V3Function", "fn", {
        "functionName": "gpu-report", "runtime": "python3.10", "handler": "index.handler",
        "memorySize": 512.0, "cpu": 0.35, "description": "reports GPU use"}, region=ALI),
     {}, None, "CPU twin of k46: no gpuConfig"),
    ("k48", "ali", {}, _new("alicloud:ecs/instance:Instance", "gpu-jump", {
        "instanceType": "ecs.g7.xlarge", "vswitchId": "vsw-id", "instanceName": "gpu-jump",
        "description": "GPU node jump host (ecs.gn7i-c8g1.2xlarge pool)",
        "internetMaxBandwidthOut": 0.0, "tags": {**ALT, "gpu": "jump"}},
        deps=lambda s: {"vswitchId": [_ali_vsw(s)]}, region=ALI),
     {}, None, "false alarm: an ecs.g7.xlarge instance named and described as a GPU jump host"),
]


@pytest.mark.parametrize("case", _params(B1))
def test_batch1(pack, case):
    _run_case(pack, case)


# ------------------------------------------------------------------------------------ batch 2
# (2) Malformed values in fields that size, price or cap, each chosen so that a lenient reading
# (a list read as its one item, an object or text dropped as absent) PASSES, so only the
# documented violation fails. Docs (Values unknown at preview): "a size, budget amount, fleet or
# Auto Scaling group instance weight, filesystem capacity, accelerator count ... that is NaN,
# infinite, negative ... or text that is no number ..., or that is written as a list or an object
# where a number, or the object holding it, is asked for (... neither read as absent nor as its
# one item) is a violation naming that resource and value, never a zero and never left out ...
# It is judged for that resource alone"; "An input the program marks secret is not unknown".
# Figures for the lenient readings (prices.csv): g6.xlarge 0.8048 (us-east-1), g4dn.xlarge 0.526,
# g5.xlarge 1.006, g2-standard-4 0.706832 (us-west1), a2-highgpu-1g 3.67339, NC24ads_A100_v4
# 3.673 (eastus), NC4as_T4_v3 <= 0.894 (its dearest region); a month is 730 h.

def _eks_gpu(name: str, scaling: Any, itype: str = "g6.xlarge"):
    return lambda s: res("aws:eks/nodeGroup:NodeGroup", name, {
        "clusterName": "eks", "nodeRoleArn": "arn:aws:iam::111111111111:role/n",
        "subnetIds": ["subnet-x"], "instanceTypes": [itype], "scalingConfig": scaling,
        "tags": dict(TAGS)}, deps={"subnetIds": [named(s, "train-a")]})


def _mixed_asg(weights: list, max_size: float = 2.0):
    """An ASG of a mixed instances policy over g5.xlarge overrides with these weights."""
    def build(s):
        lt = res("aws:ec2/launchTemplate:LaunchTemplate", "mix-lt", {
            "instanceType": "g5.xlarge", "tags": dict(TAGS),
            "networkInterfaces": [{"deviceIndex": 0.0, "associatePublicIpAddress": "false"}],
            "tagSpecifications": [{"resourceType": "instance", "tags": dict(TAGS)}]})
        asg = res("aws:autoscaling/group:Group", "mix", {
            "minSize": 0.0, "maxSize": max_size, "vpcZoneIdentifiers": ["subnet-x"],
            "mixedInstancesPolicy": {"launchTemplate": {
                "launchTemplateSpecification": {"launchTemplateId": "lt-m", "version": "$Latest"},
                "overrides": [{"instanceType": "g5.xlarge", "weightedCapacity": w}
                              for w in weights]}},
            "tags": [{"key": k, "value": v, "propagateAtLaunch": True} for k, v in TAGS.items()]},
            deps={"mixedInstancesPolicy": [lt], "vpcZoneIdentifiers": [named(s, "train-a")]})
        return [lt, asg]
    return build


def _spot_fleet(target: Any):
    return lambda s: res("aws:ec2/spotFleetRequest:SpotFleetRequest", "sf", {
        "iamFleetRole": "arn:aws:iam::111111111111:role/fleet", "targetCapacity": target,
        "launchSpecifications": [{"instanceType": "g4dn.xlarge", "ami": "ami-1",
                                  "subnetId": "subnet-x", "associatePublicIpAddress": False,
                                  "tags": dict(TAGS)}], "tags": dict(TAGS)},
        deps={"launchSpecifications": [named(s, "train-a")]})


def _gke_gpu(autoscaling: Any, machine: str = "g2-standard-4"):
    return lambda s: res("gcp:container/nodePool:NodePool", "gpu-pool", {
        "cluster": "projects/ml/locations/us-west1-c/clusters/c", "location": "us-west1-c",
        "autoscaling": autoscaling, "networkConfig": {"enablePrivateNodes": True},
        "nodeConfig": {"machineType": machine, "resourceLabels": dict(LABELS)}})


def _aks_gpu(extra: dict, size: str = "Standard_NC24ads_A100_v4"):
    return lambda s: res("azure-native:containerservice:AgentPool", "gpu", {
        "resourceGroupName": "rg", "resourceName": "aks", "agentPoolName": "gpu", "vmSize": size,
        "mode": "User", "tags": AZT, **extra})


def _aml(scale: dict):
    return lambda s: res("azure-native:machinelearningservices:Compute", "aml", {
        "resourceGroupName": "rg", "workspaceName": "ws", "location": "eastus", "tags": AZT,
        "properties": {"computeType": "AmlCompute", "properties": {
            "vmSize": "Standard_NC24ads_A100_v4", "enableNodePublicIp": False,
            "scaleSettings": scale}}})


B2 = [
    ("m01", "aws", {}, _add(_eks_gpu("inf", {"minSize": 0.0, "maxSize": [1.0], "desiredSize": 0.0})),
     {SPEND: "fail"}, None,
     "an EKS g6.xlarge group with scalingConfig.maxSize [1]: read as 1 it would add 587.50 (12,729 "
     "< 20,000, a pass); the docs: a list where a number is asked is a violation naming it"),
    ("m02", "aws", {}, _add(_eks_gpu("inf", [{"minSize": 0.0, "maxSize": 1.0,
                                                "desiredSize": 0.0}])),
     {SPEND: "fail"}, None, "scalingConfig itself as a list of one ('or the object holding it')"),
    ("m03", "aws", {}, _add(_eks_gpu("inf", {"minSize": 0.0, "maxSize": secret(1.0),
                                               "desiredSize": 0.0})),
     {}, None, "control: a secret maxSize 1 is read as 1: 587.50 + ~12,141 < 20,000"),
    ("m04", "aws", {}, _add(_eks_gpu("inf", {"minSize": 0.0, "maxSize": secret([1.0]),
                                               "desiredSize": 0.0})),
     {SPEND: "fail"}, None, "a secret whose value is the list [1]: read as that list, a violation"),
    ("m05", "aws", {}, _add(_eks_gpu("inf", {"minSize": 0.0, "maxSize": unknown(),
                                               "desiredSize": 0.0})),
     {SPEND: "fail"}, None, "maxSize unknown at preview at depth 2: 'a ... maximum size unknown at "
     "preview' is GPU capacity that cannot be priced (mandatory)"),
    ("m06", "aws", {}, _add(_mixed_asg([["2"]])),
     {SPEND: "fail"}, None,
     "a mixed-instances g5.xlarge group (maxSize 2) whose weightedCapacity is the list ['2']: "
     "ignored it prices 2 x 1.006 x 730 = 1,468.76 (< 20,000 with the base); a weight written as "
     "a list is a violation"),
    ("m07", "aws", {}, _add(_mixed_asg([{"value": 2.0}])),
     {SPEND: "fail"}, None, "weightedCapacity an object {value: 2}"),
    ("m08", "aws", {}, _add(_mixed_asg(["1e3"])),
     {SPEND: "fail"}, None, "weightedCapacity '1e3' = 1000: outside AWS's 1-999 ('\"1000\"' is "
     "reported)"),
    ("m09", "aws", {}, _add(_mixed_asg(["1", unknown()])),
     {SPEND: "fail"}, None, "one override's weight unknown at preview: 'a weight unknown at preview "
     "leaves the size unknown': cannot be priced"),
    ("m10", "aws", {}, _add(_mixed_asg(["2", "1"])),
     {}, None, "control: weights 2 and 1 (maxSize 2 units): (2 + 2) / 1 = 4 instances at most x "
     "1.006 x 730 = 2,937.52 + ~12,141 < 20,000"),
    ("m11", "aws", {}, _add(_spot_fleet([1.0])),
     {SPEND: "fail"}, None,
     "a Spot Fleet of g4dn.xlarge with targetCapacity [1]: as 1 it is <= 384 a month (a pass)"),
    ("m12", "aws", {}, _add(lambda s: res("aws:ec2/fleet:Fleet", "ef", {
        "type": "maintain",
        "launchTemplateConfigs": [{"launchTemplateSpecification": {"launchTemplateId": "lt-f",
                                                                   "version": "1"},
                                   "overrides": [{"instanceType": "g4dn.xlarge",
                                                  "subnetId": "subnet-x"}]}],
        "targetCapacitySpecification": [{"totalTargetCapacity": 1.0,
                                         "defaultTargetCapacityType": "on-demand"}],
        "tags": dict(TAGS)}, deps={"launchTemplateConfigs": [named(s, "train-a")]})),
     {SPEND: "fail"}, None,
     "an EC2 Fleet whose targetCapacitySpecification is a list of one object (the object holding "
     "the size, as a list)"),
    ("m13", "aws", {}, _add(lambda s: res("aws:batch/computeEnvironment:ComputeEnvironment", "ce", {
        "type": "MANAGED", "computeResources": {
            "type": "EC2", "maxVcpus": [4.0], "minVcpus": 0.0, "instanceTypes": ["g4dn.xlarge"],
            "subnets": ["subnet-x"], "securityGroupIds": ["sg-x"],
            "instanceRole": "arn:aws:iam::111111111111:instance-profile/b",
            "tags": dict(TAGS)}, "tags": dict(TAGS)},
        deps={"computeResources": [named(s, "train-a")]})),
     {SPEND: "fail"}, None,
     "a Batch CE of g4dn.xlarge (4 vCPUs) with maxVcpus [4]: as 4 it is 1 node (BEST_FIT) x 0.526 x "
     "730 = 383.98 (a pass); a list is a violation"),
    ("m14", "aws", {}, _new("aws:ec2/capacityReservation:CapacityReservation", "odcr", {
        "instanceType": "g5.xlarge", "instancePlatform": "Linux/UNIX",
        "availabilityZone": "us-east-1a", "instanceCount": {"count": 1.0}, "tags": dict(TAGS)}),
     {SPEND: "fail"}, None,
     "an ODCR of g5.xlarge whose instanceCount is an object: as 1 it is 734.38 (a pass)"),
    ("m15", "aws", {}, _set("train-budget", "limitAmount", {"amount": "50000"}),
     {SPEND: "fail"}, None, "the only AWS budget's limitAmount an object: 'a budget that cannot be "
     "read is not \"no cap\"': a violation"),
    ("m16", "aws", {}, _new("aws:budgets/budget:Budget", "ops-budget", {
        "budgetType": "COST", "timeUnit": "MONTHLY", "limitAmount": "NaN", "limitUnit": "USD",
        "notifications": AWS_ALERTS, "tags": dict(TAGS)}),
     {SPEND: "fail", "_msg": {SPEND: ["ops-budget"]}}, None,
     "a second budget of amount 'NaN' beside the valid 20,000: the NaN "
     "amount is a violation on it (never dropped)"),
    ("m17", "aws", {}, _set("scratch", "storageCapacity", [1200.0]),
     {SPEND: "fail"}, None, "the FSx storageCapacity [1200]: as 1200 it is cheaper (a pass); a "
     "filesystem capacity written as a list is a violation"),
    ("m18", "aws", {}, _new("aws:autoscaling/schedule:Schedule", "train-raise", {
        "autoscalingGroupName": "asg-x", "scheduledActionName": "raise", "maxSize": ["2"],
        "minSize": -1.0, "desiredCapacity": -1.0, "startTime": hours_from_now(10)},
        deps=lambda s: {"autoscalingGroupName": [named(s, "train-nodes")]}),
     {SPEND: "fail"}, None,
     "a Schedule raising the group to maxSize ['2'] (its own maximum is 2): 'A raise whose size does "
     "not read (... an input that does not parse) leaves the group unsized: ... failing closed'"),
    ("m19", "aws", {"max_size": 40.0}, _add(_aws_lt_asg("decoy", "g5.xlarge", -3.0)),
     {SPEND: "fail", "_msg": {SPEND: ["decoy", "exceeds"]}}, None,
     "the base group at maxSize 40 (40 x 55.04 x 96 = 211,353.60 > 20,000) beside a decoy GPU group "
     "of maxSize -3: both are named (the decoy's value never cancels the over-budget finding)"),
    # ----- GCP (base: budget 30,000, estimate 25,164.51)
    ("m20", "gcp", {}, _new("gcp:compute/autoscaler:Autoscaler", "as", {
        "zone": "us-west1-c", "target": "mig-id",
        "autoscalingPolicy": {"minReplicas": 0.0, "maxReplicas": [1.0]}},
        deps=lambda s: {"target": [named(s, "train-mig")]}),
     {SPEND: "fail"}, None,
     "an autoscaler on the MIG with maxReplicas [1]: as 1 (or absent) the group stays at its target "
     "size 2 (a pass); a list is a violation"),
    ("m21", "gcp", {}, _new("gcp:compute/autoscaler:Autoscaler", "as", {
        "zone": "us-west1-c", "target": "mig-id",
        "autoscalingPolicy": [{"minReplicas": 0.0, "maxReplicas": 1.0}]},
        deps=lambda s: {"target": [named(s, "train-mig")]}),
     {SPEND: "fail"}, None, "autoscalingPolicy itself a list of one"),
    ("m22", "gcp", {}, _add(_gke_gpu({"minNodeCount": 0.0, "maxNodeCount": [1.0]})),
     {SPEND: "fail"}, None,
     "a private GKE pool of g2-standard-4 with autoscaling.maxNodeCount [1]: as 1 it is 515.99 a "
     "month (25,680.50 < 30,000, a pass)"),
    ("m23", "gcp", {}, _add(_gke_gpu({"totalMinNodeCount": 0.0, "totalMaxNodeCount": "3 nodes"})),
     {SPEND: "fail"}, None, "totalMaxNodeCount '3 nodes': text that is no number"),
    ("m24", "gcp", {}, _add(_gke_gpu({"minNodeCount": 0.0, "maxNodeCount": 1.0})),
     {}, None, "control for m22/m23: maxNodeCount 1: 515.99 + 25,164.51 = 25,680.50 < 30,000"),
    ("m25", "gcp", {}, _new("gcp:compute/reservation:Reservation", "resv", {
        "zone": "us-west1-b", "specificReservationRequired": True,
        "specificReservation": {"count": [1.0], "instanceProperties": {
            "machineType": "a2-highgpu-1g"}}}),
     {SPEND: "fail"}, None,
     "a reservation of a2-highgpu-1g with count [1]: as 1 it is 2,681.57 (27,846.08 < 30,000)"),
    ("m26", "gcp", {}, _new("gcp:compute/instance:Instance", "t4vm", {
        "zone": "us-west1-b", "machineType": "n1-standard-8", "labels": dict(LABELS),
        "guestAccelerators": [{"type": "nvidia-tesla-t4", "count": ["1"]}],
        "networkInterfaces": [{"network": "train"}]}),
     {SPEND: "fail"}, None, "an N1 VM whose accelerator count is ['1']: 'accelerator count ... "
     "written as a list' is a violation"),
    ("m27", "gcp", {}, _set("scratch", "capacityGib", "36,000"),
     {SPEND: "fail"}, None, "the Lustre capacityGib '36,000' (a comma: text that is no number, as "
     "the docs' budget of '100,000')"),
    ("m28", "gcp", {}, _setp("train-budget", "amount.specifiedAmount.units", {"value": "30000"}),
     {SPEND: "fail"}, None, "the budget's units an object: the budget cannot be read"),
    ("m29", "gcp", {}, _set("train-budget", "amount", [{"specifiedAmount": {
        "currencyCode": "USD", "units": "30000"}}]),
     {SPEND: "fail"}, None, "the budget's amount a list of one object (the object holding it)"),
    ("m30", "gcp", {}, _setp("train-budget", "amount.specifiedAmount.units", secret("30000")),
     {}, None, "control: a secret units '30000' is read as 30000"),
    # ----- Azure (base: budget 25,000, estimate <= 21,286.07)
    ("m31", "azure", {}, _add(_aks_gpu({"enableAutoScaling": True, "minCount": 0.0,
                                        "maxCount": [1.0], "count": 0.0})),
     {SPEND: "fail"}, None,
     "an AKS A100 pool with maxCount [1]: as 1 it is 3.673 x 730 = 2,681.29 (<= 23,967.36 < 25,000, "
     "a pass); the subscription budget covers its node resource group"),
    ("m32", "azure", {}, _add(_aks_gpu({"count": {"value": 1.0}})),
     {SPEND: "fail"}, None, "an AKS A100 pool of fixed count {value: 1}"),
    ("m33", "azure", {}, _add(_aks_gpu({"count": 1.0})),
     {SPEND: "fail"}, None,
     "a pool of 1 A100: an AgentPool has no location input, so it is priced at its type's dearest "
     "catalog region ('when none is set it is priced at its type's dearest catalog region'): 7.35 x "
     "730 = 5,365.50 + the base (>= 18,877.44 + 2,230.60) > 25,000. MY MISTAKE on the first run: I "
     "priced it at eastus's 3.673 (the cluster's region is not the pool's input)"),
    ("m34", "azure", {}, _add(_aml({"maxNodeCount": ["1"], "minNodeCount": 0.0})),
     {SPEND: "fail"}, None, "an AmlCompute A100 cluster with maxNodeCount ['1'] (as 1: 2,681.29)"),
    ("m35", "azure", {}, _new("azure-native:compute:CapacityReservation", "cr", {
        "resourceGroupName": "rg", "capacityReservationGroupName": "crg", "location": "eastus",
        "zones": ["1"], "sku": {"name": "Standard_NC4as_T4_v3", "capacity": "one"}, "tags": AZT}),
     {SPEND: "fail"}, None, "a capacity reservation of NC4as_T4_v3 with capacity 'one'"),
    ("m36", "azure", {}, _set("budget", "amount", {"value": 25000.0}),
     {SPEND: "fail"}, None, "the Azure budget's amount an object"),
    ("m37", "azure", {}, _new("azure:consumption/budgetSubscription:BudgetSubscription", "classic", {
        "subscriptionId": "/subscriptions/s", "amount": "25,000", "timeGrain": "Monthly",
        "timePeriod": {"startDate": "2026-01-01T00:00:00Z"},
        "notifications": [{"enabled": True, "operator": "GreaterThan", "threshold": 80.0,
                           "contactEmails": ["ml-platform@example.com"]}]}),
     {SPEND: "fail"}, None, "a second (classic) budget of amount '25,000' beside the valid one: a "
     "violation on it"),
    ("m38", "azure", {}, _set("fs", "storageCapacityTiB", ["8"]),
     {SPEND: "fail"}, None, "the AMLFS storageCapacityTiB ['8']"),
    ("m39", "azure", {}, _new("azure-native:batch:Pool", "bp", {
        "resourceGroupName": "rg", "accountName": "ba", "vmSize": "Standard_NC4as_T4_v3",
        "scaleSettings": {"fixedScale": {"targetDedicatedNodes": ["1"],
                                         "targetLowPriorityNodes": 0.0}},
        "deploymentConfiguration": {"virtualMachineConfiguration": {
            "imageReference": {"publisher": "microsoft-dsvm", "offer": "ubuntu-hpc",
                               "sku": "2204"}, "nodeAgentSkuId": "batch.node.ubuntu 22.04"}}}),
     {SPEND: "fail"}, None,
     "a Batch pool of NC4as_T4_v3 with targetDedicatedNodes ['1']: as 1 it is <= 0.894 x 730 = "
     "652.62 (a pass)"),
    # ----- Alibaba Cloud (no budget resource; the base passes)
    ("m40", "ali", {}, _set("fs", "capacity", "lots"),
     {SPEND: "fail", "_msg": {SPEND: ["fs"]}}, None, "the CPFS capacity 'lots': a violation naming it"),
    ("m41", "ali", {}, _chain(_set("fs", "capacity", "lots"), _set("fs", "zoneId", "eu-central-1b")),
     {SPEND: "fail", SSZ: "fail"}, None,
     "'judged for that resource alone': the CPFS's bad capacity does not stop storage-same-zone "
     "from reporting it in 1b while the nodes are in 1a"),
    ("m42", "ali", {}, _new("alicloud:ecs/capacityReservation:CapacityReservation", "cr", {
        "instanceType": "ecs.gn7i-c8g1.2xlarge", "instanceAmount": ["1"], "zoneIds": ["eu-central-1a"],
        "endTimeType": "Limited", "endTime": hours_from_now(48), "matchCriteria": "Target",
        "tags": ALT}, region=ALI),
     {SPEND: "fail", "_msg": {SPEND: ["cr (alicloud", "['1']"]}}, None,
     "an Alibaba capacity reservation ending in 48 h (2.56083 x 48 = 122.92 as 1) whose instanceAmount "
     "is ['1']: a violation naming the resource and value (MY MISTAKE on the first run: I asked for "
     "the input's name, which the docs do not promise: 'a violation naming that resource and value')"),
    ("m43", "ali", {}, _new("alicloud:ecs/capacityReservation:CapacityReservation", "cr", {
        "instanceType": "ecs.gn7i-c8g1.2xlarge", "instanceAmount": 1.0, "zoneIds": ["eu-central-1a"],
        "endTimeType": "Limited", "endTime": hours_from_now(48), "matchCriteria": "Target",
        "tags": ALT}, region=ALI),
     {}, None, "control for m42: instanceAmount 1, Limited to 48 h: priced until then"),
]


@pytest.mark.parametrize("case", _params(B2))
def test_batch2(pack, case):
    _run_case(pack, case)


# ------------------------------------------------------------------------------------ batch 3
# (3) Public exposure to GPU nodes through entry points, with internal-only controls. Docs
# (no-public-ingress): Application Gateways "with a listener ... on a public frontend IP
# configuration, to GPU nodes that join a backend pool of the gateway (... a NIC's included) or
# that its pools name by address (backendAddresses[].ipAddress: a NIC of the stack ... whose static
# private IP is the literal, and the VMs using it); a gateway with only a private frontend, or whose
# listeners are all on its private frontend, takes nothing in ...; a listener whose frontend is
# unknown at preview beside a public frontend is 'cannot decide'"; Azure Firewall DNAT (policy rule
# collection groups) "whose sources cover all addresses ... and whose translatedAddress is a node of
# the stack"; private IP DNAT, narrowed sources and SSH from sshCidrs pass; IP groups "cannot
# decide"; classic balancers through azure:lb/rule and NIC pool associations; standalone NAT rules
# by name and group, case-insensitively; frontends unknown: "cannot decide"; GCP forwarding rules
# EXTERNAL / EXTERNAL_MANAGED to backend services, target pools or proxies, NEGs (zonal GCE_VM_IP /
# GCE_VM_IP_PORT, regional GCE_VM_IP_PORTMAP); Alibaba GA (basic endpoints, endpoint groups on a
# balancer, internal or not), SLB/NLB/ALB internet, DNAT to a node's literal private IP (an intranet
# NAT gateway's passes), EIPs on nodes (on a NAT gateway: passes); AWS ALB/NLB not internal (not
# Gateway), Global Accelerator and CloudFront VPC origins on internal balancers, API Gateway
# VPC_LINK (a PRIVATE-only REST API passes). Extra GPU nodes stay under each budget: an A100 VM
# 3.673 x 730 = 2,681.29 (Azure <= 23,967.36 < 25,000); an a2-highgpu-1g 2,681.57 (GCP 27,846.08 <
# 30,000); a g5.xlarge 734.38 (AWS ~12,875 < 20,000); all tcp fabric (rdma not asked).
AZ_SUB = "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Network"
AGW = f"{AZ_SUB}/applicationGateways/agw"
VN = f"{AZ_SUB}/virtualNetworks/v"


def _az_gpu_vm(ip: str = "10.0.1.10", ipconf_extra: Optional[dict] = None, nic_deps=None):
    """A GPU VM (Standard_NC24ads_A100_v4, eastus zone 1) on a NIC with a static private IP."""
    def build(s):
        nic = res("azure-native:network:NetworkInterface", "gpu-nic", {
            "resourceGroupName": "rg", "location": "eastus", "networkInterfaceName": "gpu-nic",
            "ipConfigurations": [{"name": "ip", "privateIPAddress": ip,
                                  "privateIPAllocationMethod": "Static",
                                  "subnet": {"id": f"{VN}/subnets/s"}, **(ipconf_extra or {})}],
            "tags": AZT}, deps=nic_deps(s) if nic_deps else None)
        vm = res("azure-native:compute:VirtualMachine", "gpu-vm", {
            "resourceGroupName": "rg", "location": "eastus", "zones": ["1"], "vmName": "gpu-vm",
            "hardwareProfile": {"vmSize": "Standard_NC24ads_A100_v4"},
            "networkProfile": {"networkInterfaces": [{"id": f"{AZ_SUB}/networkInterfaces/gpu-nic"}]},
            "tags": AZT}, deps={"networkProfile": [nic]})
        return [nic, vm]
    return build


def _agw(listener_fe: Any = "pub", public: bool = True, addresses: Optional[list] = None):
    """An Application Gateway v2: a public frontend (when `public`) and a private one, one HTTPS
    listener on `listener_fe`, one pool naming `addresses`."""
    def build(s):
        out = []
        fes = [{"name": "priv", "privateIPAddress": "10.0.3.10", "privateIPAllocationMethod": "Static",
                "subnet": {"id": f"{VN}/subnets/agw"}}]
        deps = {}
        if public:
            pip = res("azure-native:network:PublicIPAddress", "agw-pip", {
                "resourceGroupName": "rg", "location": "eastus", "sku": {"name": "Standard"},
                "publicIPAllocationMethod": "Static", "tags": AZT})
            out.append(pip)
            fes.insert(0, {"name": "pub", "publicIPAddress": {"id": f"{AZ_SUB}/publicIPAddresses/agw-pip"}})
            deps["frontendIPConfigurations"] = [pip]
        fe_ref = listener_fe if listener_fe is unknown() else f"{AGW}/frontendIPConfigurations/{listener_fe}"
        out.append(res("azure-native:network:ApplicationGateway", "agw", {
            "resourceGroupName": "rg", "location": "eastus", "applicationGatewayName": "agw",
            "sku": {"name": "Standard_v2", "tier": "Standard_v2", "capacity": 2.0},
            "gatewayIPConfigurations": [{"name": "gw", "subnet": {"id": f"{VN}/subnets/agw"}}],
            "frontendIPConfigurations": fes, "frontendPorts": [{"name": "p443", "port": 443.0}],
            "httpListeners": [{"name": "l", "frontendIPConfiguration": {"id": fe_ref},
                               "frontendPort": {"id": f"{AGW}/frontendPorts/p443"},
                               "protocol": "Https"}],
            "backendAddressPools": [{"name": "bp", "backendAddresses": [
                {"ipAddress": a} for a in (addresses or [])]}],
            "backendHttpSettingsCollection": [{"name": "hs", "port": 8000.0, "protocol": "Http"}],
            "requestRoutingRules": [{"name": "r", "ruleType": "Basic", "priority": 100.0,
                                     "httpListener": {"id": f"{AGW}/httpListeners/l"},
                                     "backendAddressPool": {"id": f"{AGW}/backendAddressPools/bp"},
                                     "backendHttpSettings": {
                                         "id": f"{AGW}/backendHttpSettingsCollection/hs"}}],
            "tags": AZT}, deps=deps))
        return out
    return build


def _fw_dnat(sources: Optional[list] = None, dests: Optional[list] = None, port: str = "8000",
             ip_groups: Optional[list] = None, translated: str = "10.0.1.10"):
    rule = {"ruleType": "NatRule", "name": "in", "ipProtocols": ["TCP"],
            "destinationAddresses": dests or ["20.62.1.4"], "destinationPorts": ["443"],
            "translatedAddress": translated, "translatedPort": port}
    if ip_groups is not None:
        rule["sourceIpGroups"] = ip_groups
    else:
        rule["sourceAddresses"] = sources or ["*"]
    return lambda s: res("azure-native:network:FirewallPolicyRuleCollectionGroup", "dnat", {
        "resourceGroupName": "rg", "firewallPolicyName": "fwp", "priority": 100.0,
        "ruleCollections": [{"ruleCollectionType": "FirewallPolicyNatRuleCollection", "name": "nat",
                             "priority": 100.0, "action": {"type": "DNAT"}, "rules": [rule]}]})


def _classic_lb(public: bool = True):
    """A classic balancer with its own azure:lb/rule to a pool a classic GPU VM's NIC joins."""
    def build(s):
        out = []
        lb_id = "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Network/loadBalancers/clb"
        if public:
            pip = res("azure:network/publicIp:PublicIp", "clb-pip", {
                "name": "clb-pip", "resourceGroupName": "rg", "location": "eastus",
                "allocationMethod": "Static", "sku": "Standard", "tags": AZT})
            out.append(pip)
            fe = {"name": "fe", "publicIpAddressId": f"{AZ_SUB}/publicIPAddresses/clb-pip"}
        else:
            fe = {"name": "fe", "subnetId": f"{VN}/subnets/s", "privateIpAddress": "10.0.2.6",
                  "privateIpAddressAllocation": "Static"}
        lb = res("azure:lb/loadBalancer:LoadBalancer", "clb", {
            "name": "clb", "resourceGroupName": "rg", "location": "eastus", "sku": "Standard",
            "frontendIpConfigurations": [fe], "tags": AZT},
            deps={"frontendIpConfigurations": out[:1]} if public else None)
        pool = res("azure:lb/backendAddressPool:BackendAddressPool", "cpool", {
            "loadbalancerId": lb_id, "name": "pool"}, deps={"loadbalancerId": [lb]})
        rule = res("azure:lb/rule:Rule", "crule", {
            "loadbalancerId": lb_id, "name": "https", "protocol": "Tcp", "frontendPort": 443.0,
            "backendPort": 8000.0, "frontendIpConfigurationName": "fe",
            "backendAddressPoolIds": [f"{lb_id}/backendAddressPools/pool"]},
            deps={"loadbalancerId": [lb], "backendAddressPoolIds": [pool]})
        nic = res("azure:network/networkInterface:NetworkInterface", "cnic", {
            "name": "cnic", "resourceGroupName": "rg", "location": "eastus",
            "ipConfigurations": [{"name": "ip", "subnetId": f"{VN}/subnets/s",
                                  "privateIpAddressAllocation": "Dynamic"}], "tags": AZT})
        assoc = res("azure:network/networkInterfaceBackendAddressPoolAssociation:"
                    "NetworkInterfaceBackendAddressPoolAssociation", "cassoc", {
                        "networkInterfaceId": "cnic-id", "ipConfigurationName": "ip",
                        "backendAddressPoolId": "pool-id"},
                    deps={"networkInterfaceId": [nic], "backendAddressPoolId": [pool]})
        vm = res("azure:compute/linuxVirtualMachine:LinuxVirtualMachine", "cvm", {
            "name": "cvm", "resourceGroupName": "rg", "location": "eastus", "zone": "1",
            "size": "Standard_NC24ads_A100_v4", "adminUsername": "azureuser",
            "networkInterfaceIds": ["cnic-id"],
            "osDisk": {"caching": "ReadWrite", "storageAccountType": "Premium_LRS"},
            "sourceImageReference": {"publisher": "Canonical", "offer": "ubuntu-24_04-lts",
                                     "sku": "server", "version": "latest"}, "tags": AZT},
            deps={"networkInterfaceIds": [nic]})
        return out + [lb, pool, rule, nic, assoc, vm]
    return build


def _az_pub_lb(name: str = "lb-pub", frontends: Any = None, rules: bool = False):
    def build(s):
        pip = res("azure-native:network:PublicIPAddress", f"{name}-pip", {
            "resourceGroupName": "rg", "location": "eastus", "sku": {"name": "Standard"},
            "publicIPAllocationMethod": "Static", "tags": AZT})
        lb_id = f"{AZ_SUB}/loadBalancers/{name}"
        props = {"resourceGroupName": "rg", "loadBalancerName": name, "location": "eastus",
                 "sku": {"name": "Standard"},
                 "frontendIPConfigurations": frontends if frontends is not None else [
                     {"name": "fe", "publicIPAddress": {"id": f"{AZ_SUB}/publicIPAddresses/{name}-pip"}}],
                 "backendAddressPools": [{"name": "pool"}], "tags": AZT}
        if rules:
            props["loadBalancingRules"] = [{
                "name": "https", "protocol": "Tcp", "frontendPort": 443.0, "backendPort": 443.0,
                "frontendIPConfiguration": {"id": f"{lb_id}/frontendIPConfigurations/fe"},
                "backendAddressPool": {"id": f"{lb_id}/backendAddressPools/pool"}}]
        lb = res("azure-native:network:LoadBalancer", name, props,
                 deps={"frontendIPConfigurations": [pip]})
        return [pip, lb]
    return build


def _vmss_in_pool(lb: str):
    def mutate(s):
        ipc = named(s, "nodes").props["virtualMachineProfile"]["networkProfile"][
            "networkInterfaceConfigurations"][0]["ipConfigurations"][0]
        ipc["loadBalancerBackendAddressPools"] = [
            {"id": f"{AZ_SUB}/loadBalancers/{lb}/backendAddressPools/pool"}]
        named(s, "nodes").deps["virtualMachineProfile"] = list(
            named(s, "nodes").deps.get("virtualMachineProfile", [])) + [named(s, lb)]
        return s
    return mutate


def _nat_rule(lb_name: str, group: str):
    return lambda s: res("azure-native:network:InboundNatRule", "nat-ssh", {
        "resourceGroupName": group, "loadBalancerName": lb_name, "inboundNatRuleName": "ssh",
        "protocol": "Tcp", "frontendPort": 50022.0, "backendPort": 22.0,
        "frontendIPConfiguration": {"id": f"{AZ_SUB}/loadBalancers/lb-pub/frontendIPConfigurations/fe"}})


# GCP: one a2-highgpu-1g VM "solo" beside the base MIG.
def _gsolo(s):
    return res("gcp:compute/instance:Instance", "solo", {
        "zone": "us-west1-c", "name": "solo", "machineType": "a2-highgpu-1g",
        "networkInterfaces": [{"network": "train", "networkIp": "10.10.0.7"}],
        "bootDisk": {"initializeParams": {"image": "debian-12"}},
        "scheduling": {"onHostMaintenance": "TERMINATE"}, "labels": dict(LABELS)})


def _g_regional_portmap(scheme: str):
    def mutate(s):
        solo = _gsolo(s)
        neg = res("gcp:compute/regionNetworkEndpointGroup:RegionNetworkEndpointGroup", "rneg", {
            "region": "us-west1", "networkEndpointType": "GCE_VM_IP_PORTMAP", "network": "train",
            "subnetwork": "train-sub"})
        ep = res("gcp:compute/regionNetworkEndpoint:RegionNetworkEndpoint", "rep", {
            "region": "us-west1", "regionNetworkEndpointGroup": "rneg", "instance": "solo",
            "ipAddress": "10.10.0.7", "port": 8000.0, "clientDestinationPort": 50000.0},
            deps={"regionNetworkEndpointGroup": [neg], "instance": [solo]})
        bs = res("gcp:compute/regionBackendService:RegionBackendService", "rbs", {
            "region": "us-west1", "loadBalancingScheme": scheme, "protocol": "HTTP",
            "backends": [{"group": "rneg-id", "balancingMode": "UTILIZATION"}]},
            deps={"backends": [neg]})
        um = res("gcp:compute/regionUrlMap:RegionUrlMap", "rum", {
            "region": "us-west1", "defaultService": "rbs"}, deps={"defaultService": [bs]})
        px = res("gcp:compute/regionTargetHttpProxy:RegionTargetHttpProxy", "rpx", {
            "region": "us-west1", "urlMap": "rum"}, deps={"urlMap": [um]})
        fr = res("gcp:compute/forwardingRule:ForwardingRule", "rfr", {
            "region": "us-west1", "loadBalancingScheme": scheme, "portRange": "80", "target": "rpx",
            "network": "train"}, deps={"target": [px]})
        return s + [solo, neg, ep, bs, um, px, fr]
    return mutate


def _g_neg_list_nlb(scheme: str = "EXTERNAL"):
    def mutate(s):
        solo = _gsolo(s)
        neg = res("gcp:compute/networkEndpointGroup:NetworkEndpointGroup", "zneg", {
            "zone": "us-west1-c", "networkEndpointType": "GCE_VM_IP", "network": "train",
            "subnetwork": "train-sub"})
        lst = res("gcp:compute/networkEndpointList:NetworkEndpointList", "zeps", {
            "zone": "us-west1-c", "networkEndpointGroup": "zneg",
            "networkEndpoints": [{"instance": "solo", "ipAddress": "10.10.0.7"}]},
            deps={"networkEndpointGroup": [neg], "networkEndpoints": [solo]})
        bs = res("gcp:compute/regionBackendService:RegionBackendService", "rbs", {
            "region": "us-west1", "loadBalancingScheme": scheme, "protocol": "TCP",
            "backends": [{"group": "zneg-id", "balancingMode": "CONNECTION"}]},
            deps={"backends": [neg]})
        fr = res("gcp:compute/forwardingRule:ForwardingRule", "rfr", {
            "region": "us-west1", "loadBalancingScheme": scheme, "backendService": "rbs",
            "allPorts": True}, deps={"backendService": [bs]})
        return s + [solo, neg, lst, bs, fr]
    return mutate


def _g_target_pool(s):
    solo = _gsolo(s)
    tp = res("gcp:compute/targetPool:TargetPool", "tp", {
        "region": "us-west1", "instances": ["us-west1-c/solo"]}, deps={"instances": [solo]})
    fr = res("gcp:compute/forwardingRule:ForwardingRule", "tpfr", {
        "region": "us-west1", "target": "tp", "portRange": "8000"}, deps={"target": [tp]})
    return s + [solo, tp, fr]


def _g_target_instance_internal(s):
    solo = _gsolo(s)
    ti = res("gcp:compute/targetInstance:TargetInstance", "ti", {
        "zone": "us-west1-c", "instance": "solo"}, deps={"instance": [solo]})
    fr = res("gcp:compute/forwardingRule:ForwardingRule", "tifr", {
        "region": "us-west1", "loadBalancingScheme": "INTERNAL", "target": "ti", "network": "train",
        "subnetwork": "train-sub", "ipProtocol": "TCP", "allPorts": True}, deps={"target": [ti]})
    return s + [solo, ti, fr]


def _g_ssl_proxy(s):
    bs = res("gcp:compute/backendService:BackendService", "sslbs", {
        "loadBalancingScheme": "EXTERNAL", "protocol": "SSL",
        "backends": [{"group": "mig-ig", "balancingMode": "UTILIZATION"}]},
        deps={"backends": [named(s, "train-mig")]})
    px = res("gcp:compute/targetSSLProxy:TargetSSLProxy", "sslpx", {
        "backendService": "sslbs", "sslCertificates": ["cert"]}, deps={"backendService": [bs]})
    fr = res("gcp:compute/globalForwardingRule:GlobalForwardingRule", "sslfr", {
        "portRange": "443", "target": "sslpx"}, deps={"target": [px]})
    return s + [bs, px, fr]


def _g_internal_tcp_proxy(s):
    bs = res("gcp:compute/regionBackendService:RegionBackendService", "tcpbs", {
        "region": "us-west1", "loadBalancingScheme": "INTERNAL_MANAGED", "protocol": "TCP",
        "backends": [{"group": "mig-ig", "balancingMode": "UTILIZATION"}]},
        deps={"backends": [named(s, "train-mig")]})
    px = res("gcp:compute/regionTargetTcpProxy:RegionTargetTcpProxy", "tcppx", {
        "region": "us-west1", "backendService": "tcpbs"}, deps={"backendService": [bs]})
    fr = res("gcp:compute/forwardingRule:ForwardingRule", "tcpfr", {
        "region": "us-west1", "loadBalancingScheme": "INTERNAL_MANAGED", "portRange": "443",
        "target": "tcppx", "network": "train", "subnetwork": "train-sub"}, deps={"target": [px]})
    return s + [bs, px, fr]


def _tpl_first_nic(nic: dict):
    def mutate(s):
        named(s, "train-tpl").props["networkInterfaces"][0] = nic
        return s
    return mutate


# Alibaba: the base nodes node-0 / node-1 (node-0 given the private IP 10.1.0.10).
def _ali_node_ip(s):
    named(s, "node-0").props["privateIp"] = "10.1.0.10"
    return s


def _ali_nlb(address: str):
    def mutate(s):
        lb = res("alicloud:nlb/loadBalancer:LoadBalancer", "nlb", {
            "addressType": address, "loadBalancerType": "Network", "vpcId": "vpc-1",
            "zoneMappings": [{"vswitchId": "vsw-id", "zoneId": "eu-central-1a"}], "tags": ALT},
            deps={"zoneMappings": [named(s, "vsw")]}, provider_region=ALI)
        sg = res("alicloud:nlb/serverGroup:ServerGroup", "nlb-sg", {
            "serverGroupName": "gpu", "serverGroupType": "Instance", "vpcId": "vpc-1",
            "protocol": "TCP", "tags": ALT}, provider_region=ALI)
        att = res("alicloud:nlb/serverGroupServerAttachment:ServerGroupServerAttachment", "nlb-att", {
            "serverGroupId": "sgp-1", "serverId": "i-0", "serverType": "Ecs", "port": 8000.0},
            deps={"serverGroupId": [sg], "serverId": [named(s, "node-0")]}, provider_region=ALI)
        ls = res("alicloud:nlb/listener:Listener", "nlb-l", {
            "loadBalancerId": "nlb-1", "serverGroupId": "sgp-1", "listenerProtocol": "TCP",
            "listenerPort": 443.0}, deps={"loadBalancerId": [lb], "serverGroupId": [sg]},
            provider_region=ALI)
        return s + [lb, sg, att, ls]
    return mutate


def _ali_alb(address: str):
    def mutate(s):
        lb = res("alicloud:alb/loadBalancer:LoadBalancer", "alb", {
            "addressType": address, "loadBalancerEdition": "Standard", "vpcId": "vpc-1",
            "loadBalancerBillingConfig": {"payType": "PayAsYouGo"},
            "zoneMappings": [{"vswitchId": "vsw-id", "zoneId": "eu-central-1a"}], "tags": ALT},
            deps={"zoneMappings": [named(s, "vsw")]}, provider_region=ALI)
        sg = res("alicloud:alb/serverGroup:ServerGroup", "alb-sg", {
            "serverGroupName": "gpu", "vpcId": "vpc-1", "protocol": "HTTP",
            "healthCheckConfig": {"healthCheckEnabled": False},
            "stickySessionConfig": {"stickySessionEnabled": False},
            "servers": [{"serverId": "i-1", "serverType": "Ecs", "port": 8000.0}], "tags": ALT},
            deps={"servers": [named(s, "node-1")]}, provider_region=ALI)
        ls = res("alicloud:alb/listener:Listener", "alb-l", {
            "loadBalancerId": "alb-1", "listenerProtocol": "HTTP", "listenerPort": 80.0,
            "defaultActions": [{"type": "ForwardGroup", "forwardGroupConfig": {
                "serverGroupTuples": [{"serverGroupId": "sgp-1"}]}}]},
            deps={"loadBalancerId": [lb], "defaultActions": [sg]}, provider_region=ALI)
        return s + [lb, sg, ls]
    return mutate


def _ali_dnat(network_type: str):
    def mutate(s):
        s = _ali_node_ip(s)
        ngw = res("alicloud:vpc/natGateway:NatGateway", "ngw", {
            "vpcId": "vpc-1", "natType": "Enhanced", "vswitchId": "vsw-id",
            "networkType": network_type, "paymentType": "PayAsYouGo", "tags": ALT},
            deps={"vswitchId": [named(s, "vsw")]}, provider_region=ALI)
        fe = res("alicloud:vpc/forwardEntry:ForwardEntry", "dnat", {
            "forwardTableId": "ftb-1", "externalIp": "47.1.2.3" if network_type == "internet"
            else "10.1.9.9", "externalPort": "8000", "ipProtocol": "tcp",
            "internalIp": "10.1.0.10", "internalPort": "8000"},
            deps={"forwardTableId": [ngw]}, provider_region=ALI)
        return s + [ngw, fe]
    return mutate


# AWS: a g5.xlarge instance "inf-1" in the private subnet train-a.
def _aws_inf(s):
    return res("aws:ec2/instance:Instance", "inf-1", {
        "instanceType": "g5.xlarge", "subnetId": "subnet-x", "associatePublicIpAddress": False,
        "ami": "ami-1", "tags": dict(TAGS)}, deps={"subnetId": [named(s, "train-a")]})


def _aws_lb_to(kind: str = "network", internal: bool = False, to: str = "inf",
               front: Optional[str] = None):
    """A balancer (+ listener + target group) to the g5 instance (to='inf') or the base ASG
    (to='asg'), optionally behind a front door: 'ga', 'vpcorigin', 'httpapi'."""
    def mutate(s):
        out = list(s)
        lb = res("aws:lb/loadBalancer:LoadBalancer", "lb", {
            "name": "inf-lb", "loadBalancerType": kind, "internal": internal,
            "subnets": ["subnet-x"], "tags": dict(TAGS)}, deps={"subnets": [named(s, "train-a")]})
        proto = {"network": "TCP", "application": "HTTP", "gateway": "GENEVE"}[kind]
        tg = res("aws:lb/targetGroup:TargetGroup", "tg", {
            "port": 6081.0 if kind == "gateway" else 8000.0, "protocol": proto, "vpcId": "vpc-1",
            "targetType": "instance", "tags": dict(TAGS)})
        out += [lb, tg]
        if to == "inf":
            inf = _aws_inf(s)
            out += [inf, res("aws:lb/targetGroupAttachment:TargetGroupAttachment", "tga", {
                "targetGroupArn": "tg-arn", "targetId": "i-1", "port": 8000.0},
                deps={"targetGroupArn": [tg], "targetId": [inf]})]
        else:
            asg = named(out, "train-nodes")
            asg.props["targetGroupArns"] = ["tg-arn"]
            asg.deps["targetGroupArns"] = [tg]
        ls = res("aws:lb/listener:Listener", "ls", {
            "loadBalancerArn": "lb-arn", **({} if kind == "gateway" else
                                           {"port": 443.0 if kind == "application" else 8000.0,
                                            "protocol": "HTTP" if kind == "application" else "TCP"}),
            "defaultActions": [{"type": "forward", "targetGroupArn": "tg-arn"}], "tags": dict(TAGS)},
            deps={"loadBalancerArn": [lb], "defaultActions": [tg]})
        out.append(ls)
        if front == "ga":
            out.append(res("aws:globalaccelerator/endpointGroup:EndpointGroup", "ga-eg", {
                "listenerArn": "arn:aws:globalaccelerator::111111111111:accelerator/a/listener/l",
                "endpointConfigurations": [{"endpointId": "lb-arn", "weight": 100.0,
                                            "clientIpPreservationEnabled": True}]},
                deps={"endpointConfigurations": [lb]}))
        elif front == "vpcorigin":
            out.append(res("aws:cloudfront/vpcOrigin:VpcOrigin", "vo", {
                "vpcOriginEndpointConfig": {"name": "inf", "arn": "lb-arn", "httpPort": 80.0,
                                            "httpsPort": 443.0, "originProtocolPolicy": "http-only",
                                            "originSslProtocols": {"items": ["TLSv1.2"],
                                                                   "quantity": 1.0}},
                "tags": dict(TAGS)}, deps={"vpcOriginEndpointConfig": [lb]}))
        elif front == "httpapi":
            out.append(res("aws:apigatewayv2/integration:Integration", "api-int", {
                "apiId": "api-1", "integrationType": "HTTP_PROXY", "integrationMethod": "ANY",
                "connectionType": "VPC_LINK", "connectionId": "vl-1", "integrationUri": "ls-arn",
                "payloadFormatVersion": "1.0"}, deps={"integrationUri": [ls]}))
        return out
    return mutate


def _rest_api(types: list):
    def mutate(s):
        s = _aws_lb_to("network", True, "asg")(s)
        api = res("aws:apigateway/restApi:RestApi", "api", {
            "name": "infer", "endpointConfiguration": {"types": types}, "tags": dict(TAGS)})
        vl = res("aws:apigateway/vpcLink:VpcLink", "vl", {
            "name": "vl", "targetArn": "lb-arn", "tags": dict(TAGS)}, deps={"targetArn": [named(s, "lb")]})
        integ = res("aws:apigateway/integration:Integration", "rint", {
            "restApi": "api-id", "resourceId": "r-1", "httpMethod": "ANY", "type": "HTTP_PROXY",
            "integrationHttpMethod": "ANY", "uri": "http://inf-lb.internal/",
            "connectionType": "VPC_LINK", "connectionId": "vl-id"},
            deps={"restApi": [api], "connectionId": [vl]})
        return s + [api, vl, integ]
    return mutate


B3 = [
    ("m44", "azure", {}, _add(_aks_gpu({"enableAutoScaling": True, "minCount": 0.0,
                                        "maxCount": [1.0], "count": 0.0},
                                       size="Standard_NC4as_T4_v3")),
     {SPEND: "fail"}, None,
     "batch-2 follow-up (m31 could not tell): an AKS T4 pool with maxCount [1]; as 1 it is <= 0.894 "
     "x 730 = 652.62 (<= 21,938.69 < 25,000, a pass); a list is a violation"),
    ("m45", "azure", {}, _add(_aks_gpu({"enableAutoScaling": True, "minCount": 0.0,
                                        "maxCount": 1.0, "count": 0.0},
                                       size="Standard_NC4as_T4_v3")),
     {}, None, "control for m44: maxCount 1: <= 21,938.69 < 25,000"),
    # ----- Azure Application Gateway / Firewall / balancers
    ("x01", "azure", {}, _add(_az_gpu_vm(), _agw("pub", addresses=["10.0.1.10"])),
     {NPI: "fail"}, None,
     "a gateway's public listener to a pool naming 10.0.1.10, the static private IP of the GPU VM's "
     "NIC: the VM is reached from the internet"),
    ("x02", "azure", {}, _add(_az_gpu_vm(), _agw("priv", addresses=["10.0.1.10"])),
     {}, None, "the same gateway with its only listener on the private frontend: takes nothing in"),
    ("x03", "azure", {}, _add(_az_gpu_vm(), _agw("priv", public=False, addresses=["10.0.1.10"])),
     {}, None, "a gateway with only a private frontend ('A public IP address isn't required for an "
     "internal endpoint')"),
    ("x04", "azure", {}, _add(_az_gpu_vm(), _agw(unknown(), addresses=["10.0.1.10"])),
     {NPI: "undecided"}, None, "the listener's frontend unknown at preview beside a public frontend"),
    ("x05", "azure", {}, _add(_az_gpu_vm(), _agw("pub", addresses=["10.0.1.99"])),
     {}, None, "a public listener to an address that is no NIC of the stack (the GPU VM is .10)"),
    ("x06", "azure", {}, _add(_agw("pub"), _az_gpu_vm(
        ipconf_extra={"applicationGatewayBackendAddressPools": [{"id": f"{AGW}/backendAddressPools/bp"}]},
        nic_deps=lambda s: {"ipConfigurations": [named(s, "agw")]})),
     {NPI: "fail"}, None, "the GPU VM's NIC joins the public gateway's pool itself (a NIC's "
     "applicationGatewayBackendAddressPools)"),
    ("x07", "azure", {}, _add(_az_gpu_vm(), _fw_dnat(["*"])),
     {NPI: "fail"}, None, "a firewall policy DNAT rule from * to the GPU VM's static IP"),
    ("x08", "azure", {}, _add(_az_gpu_vm(), _fw_dnat(["203.0.113.0/24"])),
     {}, None, "the same rule narrowed to 203.0.113.0/24"),
    ("x09", "azure", {}, _add(_az_gpu_vm(), _fw_dnat(["0.0.0.0/1", "128.0.0.0/1"])),
     {NPI: "fail"}, None, "sources 0.0.0.0/1 + 128.0.0.0/1: all addresses together"),
    ("x10", "azure", {}, _add(_az_gpu_vm(), _fw_dnat(["*"], dests=["10.0.0.4"])),
     {}, None, "private IP DNAT: the destination is the firewall's private IP (peered/VPN only)"),
    ("x11", "azure", {}, _add(_az_gpu_vm(), _fw_dnat(ip_groups=[
        "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Network/ipGroups/partners"])),
     {NPI: "undecided"}, None, "sources in an IP group (addresses not read): cannot decide"),
    ("x12", "azure", {}, _add(_az_gpu_vm(), _fw_dnat(["0.0.0.0/0"], port="22")),
     {}, {NPI: {"sshCidrs": ["0.0.0.0/0"]}},
     "SSH alone (TCP, translated port 22) from a CIDR listed in sshCidrs: passes"),
    ("x13", "azure", {}, _add(_az_gpu_vm(), _fw_dnat(["0.0.0.0/0"], port="8888")),
     {NPI: "fail"}, {NPI: {"sshCidrs": ["0.0.0.0/0"]}},
     "control for x12: the same source to port 8888 is no SSH"),
    ("x14", "azure", {}, _add(_classic_lb(True)),
     {NPI: "fail"}, None,
     "a classic public balancer's azure:lb/rule to a pool the classic A100 VM's NIC joins by a "
     "NetworkInterfaceBackendAddressPoolAssociation"),
    ("x15", "azure", {}, _add(_classic_lb(False)),
     {}, None, "the same classic balancer with a private frontend only"),
    ("x16", "azure", {}, _add(_az_pub_lb("lb-pub"), _nat_rule("LB-Pub", "RG")),
     {NPI: "fail"}, None, "a standalone InboundNatRule naming the public balancer by name and group "
     "in other case ('compared case-insensitively')"),
    ("x17", "azure", {}, _add(_az_pub_lb("lb-pub"), _nat_rule("edge-lb", "rg")),
     {NPI: "undecided"}, None, "a standalone rule naming a balancer the stack does not create"),
    ("x18", "azure", {}, _chain(_add(_az_pub_lb("lb-u", frontends=unknown(), rules=True)),
                                _vmss_in_pool("lb-u")),
     {NPI: "undecided"}, None, "the GPU set behind a balancer whose frontends are unknown at preview"),
    # ----- GCP
    ("x20", "gcp", {}, _g_regional_portmap("EXTERNAL_MANAGED"),
     {NPI: "fail"}, None,
     "a regional external ALB to a GCE_VM_IP_PORTMAP NEG whose endpoint names the GPU VM"),
    ("x21", "gcp", {}, _g_regional_portmap("INTERNAL_MANAGED"),
     {}, None, "the same chain INTERNAL_MANAGED: internal only"),
    ("x22", "gcp", {}, _g_neg_list_nlb("EXTERNAL"),
     {NPI: "fail"}, None,
     "an external passthrough NLB to a zonal GCE_VM_IP NEG filled by a NetworkEndpointList naming "
     "the GPU VM"),
    ("x23", "gcp", {}, _g_target_pool,
     {NPI: "fail"}, None, "a target pool holding the GPU VM, a forwarding rule of the default "
     "scheme (EXTERNAL)"),
    ("x24", "gcp", {}, _g_target_instance_internal,
     {}, None, "an INTERNAL forwarding rule to a target instance of the GPU VM"),
    ("x25", "gcp", {}, _g_ssl_proxy,
     {NPI: "fail"}, None, "a global SSL proxy (EXTERNAL backend service) to the GPU MIG"),
    ("x26", "gcp", {}, _g_internal_tcp_proxy,
     {}, None, "a regional internal TCP proxy (INTERNAL_MANAGED) to the GPU MIG"),
    ("x27", "gcp", {}, _tpl_first_nic({"nicType": "GVNIC", "network": "train", "accessConfigs": [{}]}),
     {NPI: "fail"}, None, "the GPU template's first NIC with an empty access config: an ephemeral "
     "external IPv4 on every node"),
    # ----- Alibaba Cloud
    ("x30", "ali", {}, _add(lambda s: res("alicloud:ga/basicEndpoint:BasicEndpoint", "ga-ep", {
        "acceleratorId": "ga-1", "endpointGroupId": "epg-1", "endpointType": "ECS",
        "endpointAddress": "i-0", "basicEndpointName": "gpu"},
        deps={"endpointAddress": [named(s, "node-0")]}, provider_region=ALI)),
     {NPI: "fail"}, None, "a basic GA endpoint on the GPU node node-0"),
    ("x31", "ali", {}, _add(
        lambda s: res("alicloud:slb/loadBalancer:LoadBalancer", "islb", {
            "addressType": "intranet", "loadBalancerSpec": "slb.s2.small", "vswitchId": "vsw-id",
            "tags": ALT}, deps={"vswitchId": [named(s, "vsw")]}, provider_region=ALI),
        lambda s: res("alicloud:slb/backendServer:BackendServer", "islb-nodes", {
            "loadBalancerId": "lb-1", "backendServers": [{"serverId": "i-0", "weight": 100.0}]},
            deps={"loadBalancerId": [named(s, "islb")], "backendServers": [named(s, "node-0")]},
            provider_region=ALI),
        lambda s: res("alicloud:ga/endpointGroup:EndpointGroup", "ga-eg", {
            "acceleratorId": "ga-1", "listenerId": "lsr-1", "endpointGroupRegion": ALI,
            "endpointConfigurations": [{"endpoint": "lb-1", "type": "SLB", "weight": 100.0}],
            "tags": ALT}, deps={"endpointConfigurations": [named(s, "islb")]}, provider_region=ALI)),
     {NPI: "fail"}, None, "a GA endpoint group on an INTERNAL SLB whose backend is node-0: 'internal "
     "or not'"),
    ("x32", "ali", {}, _ali_nlb("Internet"), {NPI: "fail"}, None,
     "an internet NLB listener to a server group holding node-0"),
    ("x33", "ali", {}, _ali_nlb("Intranet"), {}, None, "the same NLB Intranet"),
    ("x34", "ali", {}, _ali_alb("Internet"), {NPI: "fail"}, None,
     "an internet ALB listener forwarding to a server group holding node-1"),
    ("x35", "ali", {}, _ali_alb("Intranet"), {}, None, "the same ALB Intranet"),
    ("x36", "ali", {}, _ali_dnat("internet"), {NPI: "fail"}, None,
     "a DNAT entry on an internet NAT gateway to 10.1.0.10, node-0's literal private IP"),
    ("x37", "ali", {}, _ali_dnat("intranet"), {}, None,
     "the same DNAT entry on an intranet (VPC) NAT gateway: passes"),
    ("x38", "ali", {}, _chain(_ali_dnat("internet"), lambda s: [r for r in s if r.name != "dnat"] + [
        res("alicloud:ecs/eipAssociation:EipAssociation", "eip-ngw", {
            "allocationId": "eip-1", "instanceId": "ngw-1", "instanceType": "Nat"},
            deps={"instanceId": [named(s, "ngw")]}, provider_region=ALI)]),
     {}, None, "an EIP on the NAT gateway (no DNAT): passes"),
    ("x39", "ali", {}, _add(lambda s: res("alicloud:ecs/eipAssociation:EipAssociation", "eip-node", {
        "allocationId": "eip-1", "instanceId": "i-1", "instanceType": "EcsInstance"},
        deps={"instanceId": [named(s, "node-1")]}, provider_region=ALI)),
     {NPI: "fail"}, None, "an EIP associated with node-1"),
    # ----- AWS
    ("x40", "aws", {}, _aws_lb_to("network", False, "inf"), {NPI: "fail"}, None,
     "an internet-facing NLB (internal false) to a target group the g5 instance is attached to"),
    ("x41", "aws", {}, _aws_lb_to("network", True, "inf"), {}, None, "the same NLB internal"),
    ("x42", "aws", {}, _aws_lb_to("network", True, "inf", "ga"), {NPI: "fail"}, None,
     "a Global Accelerator endpoint group on the internal NLB"),
    ("x43", "aws", {}, _aws_lb_to("application", True, "asg", "vpcorigin"), {NPI: "fail"}, None,
     "a CloudFront VPC origin on an internal ALB whose target group the base ASG registers in"),
    ("x44", "aws", {}, _aws_lb_to("application", True, "asg", "httpapi"), {NPI: "fail"}, None,
     "an HTTP API VPC_LINK integration whose integrationUri is the internal ALB's listener"),
    ("x45", "aws", {}, _add(lambda s: res("aws:apigatewayv2/integration:Integration", "api-int", {
        "apiId": "api-1", "integrationType": "HTTP_PROXY", "integrationMethod": "ANY",
        "connectionType": "INTERNET", "integrationUri": "https://example.com/infer"})),
     {}, None, "an INTERNET integration reaches nothing private"),
    ("x46", "aws", {}, _rest_api(["PRIVATE"]), {}, None,
     "a REST API of PRIVATE endpoint type only through a VPC link to the internal NLB of the ASG"),
    ("x47", "aws", {}, _rest_api(["REGIONAL"]), {NPI: "fail"}, None,
     "control for x46: the REST API REGIONAL"),
    ("x48", "aws", {}, _aws_lb_to("gateway", False, "asg"), {}, None,
     "a Gateway Load Balancer (GENEVE, inspection appliances) is no ingress: 'not Gateway'"),
]


@pytest.mark.parametrize("case", _params(B3))
def test_batch3(pack, case):
    _run_case(pack, case)


# ------------------------------------------------------------------------------------ batch 4
# (4) Budgets narrowed in ways the docs name, over compute of the kinds above (EKS node groups,
# Batch compute environments, GKE pools, extra MIGs and VMs, Azure ML compute, AKS pools). Docs
# (spend-limit, Budgets): "every GPU group needs a budget on its cloud that notifies someone and
# whose scope and filters take that group in"; the read filters (AWS InstanceType, UsageType
# "<region code>-BoxUsage:<type>", us-east-1 also with no prefix, Service, TagKeyValue, AZ; GCP
# labels, services, projects (a number is the stack's own), resourceAncestors "cannot decide";
# Azure ResourceGroupName, MeterCategory, ResourceId (AKS and Azure ML ids not built: "cannot
# decide")); "EKS tags propagate to no other resource"; a Batch CE's instances carry
# computeResources.tags and its template's instance tagSpecifications ("a key the two give
# different values: cannot decide"), never the environment's own tags; a MIG's VMs carry the
# template's labels under allInstancesConfig.labels; GKE nodes carry resourceLabels, never
# nodeConfig.labels; an AKS pool bills in its node resource group, never the cluster's own group;
# a pool whose cluster is not in the stack beside a budget on another group: "cannot decide";
# "Such a budget caps what it covers"; maxMonthlyUsd caps the whole estimate and a budget above it
# is itself a violation.
# Figures: AWS base ~12,141; + EKS 2 x g6.xlarge x 730 = 1,175.01 (~13,316); + Batch CE of
# g4dn.xlarge, maxVcpus 8, BEST_FIT: 2 x 0.526 x 730 = 767.96. GCP base 25,164.51; + one
# g2-standard-4 for the month 515.99 (25,680.50 < 30,000). Azure base <= 21,286.07; + AmlCompute
# of 1 NC4as_T4_v3 in eastus 383.98; + an AKS T4 pool of 1 <= 652.62 (its dearest region).

def _aws_bud(**kw):
    def mutate(s):
        named(s, "train-budget").props.update(kw)
        return s
    return mutate


def _aws_bud2(name: str, amount: str, **kw):
    return lambda s: res("aws:budgets/budget:Budget", name, {
        "budgetType": "COST", "timeUnit": "MONTHLY", "limitAmount": amount, "limitUnit": "USD",
        "notifications": AWS_ALERTS, "tags": dict(TAGS), **kw})


def _cf(name: str, values: list) -> dict:
    return {"costFilters": [{"name": name, "values": values}]}


EKS2 = _eks_gpu("inf", {"minSize": 0.0, "maxSize": 2.0, "desiredSize": 1.0})
TKV = [{"name": "TagKeyValue", "values": ["user:team$research"]}]


def _ce(cr_tags: Optional[dict] = None, env_tags: Optional[dict] = None,
        lt_tags: Optional[dict] = None):
    """A managed EC2 Batch CE of g4dn.xlarge (maxVcpus 8) in train-a, optionally with a launch
    template whose instance tagSpecifications are `lt_tags`."""
    def build(s):
        out = []
        deps = [named(s, "train-a")]
        cr = {"type": "EC2", "maxVcpus": 8.0, "minVcpus": 0.0, "instanceTypes": ["g4dn.xlarge"],
              "subnets": ["subnet-x"], "securityGroupIds": ["sg-x"],
              "instanceRole": "arn:aws:iam::111111111111:instance-profile/b"}
        if cr_tags is not None:
            cr["tags"] = cr_tags
        if lt_tags is not None:
            lt = res("aws:ec2/launchTemplate:LaunchTemplate", "ce-lt", {
                "tagSpecifications": [{"resourceType": "instance", "tags": lt_tags}],
                "tags": dict(TAGS)})
            out.append(lt)
            deps.append(lt)
            cr["launchTemplate"] = {"launchTemplateId": "lt-ce", "version": "$Latest"}
        out.append(res("aws:batch/computeEnvironment:ComputeEnvironment", "ce", {
            "type": "MANAGED", "computeResources": cr,
            **({"tags": env_tags} if env_tags is not None else {})},
            deps={"computeResources": deps}))
        return out
    return build


def _gcp_bud(**kw):
    def mutate(s):
        named(s, "train-budget").props.update(kw)
        return s
    return mutate


def _g2_vm(labels: dict):
    return lambda s: res("gcp:compute/instance:Instance", "g2vm", {
        "zone": "us-west1-c", "machineType": "g2-standard-4", "labels": labels,
        "networkInterfaces": [{"network": "train"}],
        "scheduling": {"onHostMaintenance": "TERMINATE"}})


def _g2_mig(all_labels: Optional[dict]):
    def build(s):
        tpl = res("gcp:compute/instanceTemplate:InstanceTemplate", "g2-tpl", {
            "machineType": "g2-standard-4", "labels": dict(LABELS),
            "networkInterfaces": [{"network": "train"}],
            "scheduling": {"onHostMaintenance": "TERMINATE"}})
        mig = res("gcp:compute/instanceGroupManager:InstanceGroupManager", "g2-mig", {
            "zone": "us-west1-c", "targetSize": 1.0, "baseInstanceName": "g2", "name": "g2-mig",
            "versions": [{"instanceTemplate": "g2-tpl-id"}],
            **({"allInstancesConfig": {"labels": all_labels}} if all_labels is not None else {})},
            deps={"versions": [tpl]})
        return [tpl, mig]
    return build


RESEARCH = {"labels": {"team": "research"}}


def _az_bud(**kw):
    def mutate(s):
        named(s, "budget").props.update(kw)
        return s
    return mutate


def _az_dim(name: str, values: list) -> dict:
    return {"dimensions": {"name": name, "operator": "In", "values": values}}


def _az_rg_vmss(s):
    named(s, "nodes").props.update({"resourceGroupName": "rg", "vmScaleSetName": "nodes"})
    return s


def _aml_t4(group: str = "rg"):
    return lambda s: res("azure-native:machinelearningservices:Compute", "aml", {
        "resourceGroupName": group, "workspaceName": "ws", "location": "eastus", "tags": AZT,
        "computeName": "aml", "properties": {"computeType": "AmlCompute", "properties": {
            "vmSize": "Standard_NC4as_T4_v3", "enableNodePublicIp": False,
            "scaleSettings": {"maxNodeCount": 1.0, "minNodeCount": 0.0}}}})


def _aks_cluster(node_rg: Optional[str] = None):
    return lambda s: res("azure-native:containerservice:ManagedCluster", "aks", {
        "resourceGroupName": "rg", "resourceName": "aks", "location": "eastus", "dnsPrefix": "aks",
        **({"nodeResourceGroup": node_rg} if node_rg else {}),
        "agentPoolProfiles": [{"name": "system", "mode": "System", "vmSize": "Standard_D4s_v5",
                               "count": 1.0}], "tags": AZT})


def _aks_t4(with_cluster: bool):
    return lambda s: res("azure-native:containerservice:AgentPool", "gpu", {
        "resourceGroupName": "rg", "resourceName": "aks", "agentPoolName": "gpu",
        "vmSize": "Standard_NC4as_T4_v3", "count": 1.0, "mode": "User", "tags": AZT},
        deps={"resourceName": [named(s, "aks")]} if with_cluster else None)


def _az_bud2(name: str, scope: str, amount: float):
    return lambda s: res("azure-native:consumption:Budget", name, {
        "amount": amount, "category": "Cost", "timeGrain": "Monthly", "scope": scope,
        "notifications": AZURE_ALERTS})


RG_SCOPE = "/subscriptions/s/resourceGroups/rg"
VMSS_ID = ("/subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/"
           "virtualMachineScaleSets/nodes")

B4 = [
    # ----- AWS
    ("n01", "aws", {}, _chain(_aws_bud(**_cf("InstanceType", ["p5.48xlarge"])), _add(EKS2)),
     {SPEND: "fail"}, None, "an InstanceType filter of p5 only leaves the g6 EKS group out: no "
     "alarm for it"),
    ("n02", "aws", {}, _chain(_aws_bud(**_cf("InstanceType", ["p5.48xlarge", "g6.xlarge"])),
                              _add(EKS2)),
     {}, None, "both types: the budget takes both in; ~13,316 < 20,000"),
    ("n03", "aws", {}, _chain(_aws_bud(**_cf("UsageType", ["USE1-BoxUsage:p5.48xlarge",
                                                           "USE1-BoxUsage:g6.xlarge"])), _add(EKS2)),
     {}, None, "UsageType USE1-BoxUsage of both types (us-east-1's code USE1): on-demand hours of both"),
    ("n04", "aws", {}, _chain(_aws_bud(**_cf("UsageType", ["BoxUsage:p5.48xlarge",
                                                           "BoxUsage:g6.xlarge"])), _add(EKS2)),
     {}, None, "the same with no prefix ('us-east-1 also with no prefix')"),
    ("n05", "aws", {}, _chain(_aws_bud(**_cf("UsageType", ["USE1-BoxUsage:p5.48xlarge",
                                                           "USW2-BoxUsage:g6.xlarge"])), _add(EKS2)),
     {SPEND: "fail"}, None, "the g6 hours named for us-west-2 (USW2): the EKS group is left out"),
    ("n06", "aws", {}, _chain(_aws_bud(**_cf("UsageType", ["USE1-BoxUsage:p5.48xlarge",
                                                           "USE1-EBS:VolumeUsage.gp3"])), _add(EKS2)),
     {SPEND: "fail"}, None, "a usage type that is no instance hours (EBS) beside p5's: g6 left out"),
    ("n07", "aws", {}, _chain(_aws_bud(**_cf("Service", ["Amazon Elastic Compute Cloud - Compute"])),
                              _add(EKS2)),
     {}, None, "Service EC2 compute: takes the instance hours of both groups in"),
    ("n08", "aws", {}, _chain(_aws_bud(**_cf("Service", ["EC2 - Other"])), _add(EKS2)),
     {SPEND: "fail"}, None, "Service 'EC2 - Other' (volumes, NAT, transfer) leaves every group out"),
    ("n09", "aws", {}, _chain(_aws_bud(costFilters=TKV), _add(EKS2)),
     {SPEND: "fail"}, None, "TagKeyValue team$research: the ASG's propagated tags match; the EKS "
     "group's tags reach no instance ('EKS tags propagate to no other resource'): no alarm for it"),
    ("n10", "aws", {}, _chain(_aws_bud(costFilters=TKV), _add(_ce(cr_tags=dict(TAGS)))),
     {}, None, "the CE's computeResources.tags carry team research to its instances; 12,909 < 20,000"),
    ("n11", "aws", {}, _chain(_aws_bud(costFilters=TKV), _add(_ce(env_tags=dict(TAGS)))),
     {SPEND: "fail"}, None, "the CE's own tags only ('Compute environment tags do not propagate'): "
     "the CE's instances are left out"),
    ("n12", "aws", {}, _chain(_aws_bud(costFilters=TKV), _add(_ce(
        cr_tags=dict(TAGS), lt_tags={**TAGS, "team": "infra"}))),
     {SPEND: "undecided"}, None, "computeResources.tags team research vs its template's instance "
     "tags team infra: 'a key the two give different values: cannot decide'"),
    ("n13", "aws", {}, _chain(_aws_bud(**_cf("AZ", ["us-east-1a"])), _add(EKS2)),
     {}, None, "AZ us-east-1a: both groups are in train-a (1a)"),
    ("n14", "aws", {}, _chain(_aws_bud(**_cf("AZ", ["us-east-1b"])), _add(EKS2)),
     {SPEND: "fail"}, None, "AZ us-east-1b: no group is there"),
    ("n15", "aws", {}, _add(EKS2, _aws_bud2("team-budget", "5000", costFilters=TKV)),
     {SPEND: "fail"}, None, "a second budget of 5,000 on team research covers the ASG, not the EKS "
     "group: it caps ~13,316 - 1,175.01 = ~12,141 > 5,000"),
    ("n16", "aws", {}, _add(EKS2, _aws_bud2("team-budget", "15000", costFilters=TKV)),
     {}, None, "the same at 15,000: ~12,141 < 15,000; the unfiltered 20,000 covers the rest"),
    ("n17", "aws", {"budget": "13000"}, _add(EKS2), {SPEND: "fail"}, {SPEND: {"maxMonthlyUsd": 13000}},
     "maxMonthlyUsd 13,000: ~13,316 > 13,000"),
    ("n18", "aws", {"budget": "14000"}, _add(EKS2), {}, {SPEND: {"maxMonthlyUsd": 14000}},
     "maxMonthlyUsd 14,000 and a 14,000 budget: ~13,316 < 14,000"),
    ("n19", "aws", {}, _add(EKS2), {SPEND: "fail"}, {SPEND: {"maxMonthlyUsd": 14000}},
     "maxMonthlyUsd 14,000 beside the base budget of 20,000: 'a budget of the stack whose amount is "
     "above it is itself a violation'"),
    # ----- GCP
    ("n20", "gcp", {}, _chain(_gcp_bud(budgetFilter=RESEARCH), _add(_g2_vm(dict(LABELS)))),
     {}, None, "labels team research: the MIG's template and the g2 VM carry it; 25,680.50 < 30,000"),
    ("n21", "gcp", {}, _chain(_gcp_bud(budgetFilter=RESEARCH),
                              _add(_g2_vm({**LABELS, "team": "infra"}))),
     {SPEND: "fail"}, None, "the g2 VM labelled team infra: left out, no alarm for it"),
    ("n22", "gcp", {}, _chain(_gcp_bud(budgetFilter=RESEARCH), _add(lambda s: res(
        "gcp:container/nodePool:NodePool", "gpu-pool", {
            "cluster": "projects/ml/locations/us-west1-c/clusters/c", "location": "us-west1-c",
            "nodeCount": 1.0, "networkConfig": {"enablePrivateNodes": True},
            "nodeConfig": {"machineType": "g2-standard-4", "labels": {"team": "research"}}}))),
     {SPEND: "fail"}, None, "a GKE g2 pool with team research only in nodeConfig.labels (Kubernetes "
     "labels 'never reach billing'), its cluster not in the stack: left out"),
    ("n23", "gcp", {}, _chain(_gcp_bud(budgetFilter=RESEARCH), _add(lambda s: res(
        "gcp:container/nodePool:NodePool", "gpu-pool", {
            "cluster": "projects/ml/locations/us-west1-c/clusters/c", "location": "us-west1-c",
            "nodeCount": 1.0, "networkConfig": {"enablePrivateNodes": True},
            "nodeConfig": {"machineType": "g2-standard-4", "resourceLabels": {"team": "research"}}}))),
     {}, None, "the same pool with nodeConfig.resourceLabels team research: taken in"),
    ("n24", "gcp", {}, _chain(_gcp_bud(budgetFilter={"services": ["services/6F81-5844-456A"]}),
                              _add(_g2_vm(dict(LABELS)))),
     {}, None, "services Compute Engine"),
    ("n25", "gcp", {}, _chain(_gcp_bud(budgetFilter={"services": ["services/95FF-2EF5-5EA1"]}),
                              _add(_g2_vm(dict(LABELS)))),
     {SPEND: "fail"}, None, "services Cloud Storage only: every GPU group left out"),
    ("n26", "gcp", {}, _chain(_gcp_bud(budgetFilter={"projects": ["projects/123456789012"]}),
                              _add(_g2_vm(dict(LABELS)))),
     {}, None, "a project by number is taken as the stack's own"),
    ("n27", "gcp", {}, _chain(_gcp_bud(budgetFilter={"projects": ["projects/other-proj"]}),
                              _add(_g2_vm(dict(LABELS)))),
     {SPEND: "fail"}, None, "another project id (the stack's is 'ml'): left out"),
    ("n28", "gcp", {}, _chain(_gcp_bud(budgetFilter={"resourceAncestors": ["folders/123"]}),
                              _add(_g2_vm(dict(LABELS)))),
     {SPEND: "undecided"}, None, "resourceAncestors folders/123: cannot decide"),
    ("n29", "gcp", {}, _chain(_gcp_bud(budgetFilter=RESEARCH), _add(_g2_mig({"team": "infra"}))),
     {SPEND: "fail"}, None, "a g2 MIG whose allInstancesConfig.labels sets team infra over its "
     "template's team research: left out"),
    ("n30", "gcp", {}, _chain(_gcp_bud(budgetFilter=RESEARCH), _add(_g2_mig({"team": "research"}))),
     {}, None, "the same MIG with allInstancesConfig team research: taken in; 25,680.50 < 30,000"),
    # ----- Azure
    ("n31", "azure", {}, _chain(_az_rg_vmss, _az_bud(filter=_az_dim("ResourceGroupName", ["rg"])),
                                _add(_aml_t4("rg"))),
     {}, None, "ResourceGroupName rg: the set and the Azure ML compute ('in its workspace's group') "
     "are in rg; <= 21,670.05 < 25,000"),
    ("n32", "azure", {}, _chain(_az_rg_vmss, _az_bud(filter=_az_dim("ResourceGroupName", ["rg"])),
                                _add(_aml_t4("ml-rg"))),
     {SPEND: "fail"}, None, "the Azure ML compute in ml-rg: left out"),
    ("n33", "azure", {}, _chain(_az_bud(filter=_az_dim("MeterCategory", ["Virtual Machines"])),
                                _add(_aml_t4("rg"))),
     {}, None, "MeterCategory Virtual Machines: the VM meters of both"),
    ("n34", "azure", {}, _chain(_az_rg_vmss, _az_bud(filter=_az_dim("ResourceId", [VMSS_ID])),
                                _add(_aks_t4(False))),
     {SPEND: "undecided"}, None, "ResourceId of the set beside an AKS pool: 'AKS and Azure ML nodes' "
     "ids are not built: cannot decide'"),
    ("n35", "azure", {}, _chain(_az_rg_vmss, _az_bud(scope=RG_SCOPE),
                                _add(_aks_cluster(), _aks_t4(True))),
     {SPEND: "fail"}, None, "a budget on rg, the cluster's own group, beside a pool of that cluster: "
     "'such a budget never takes the pool in'"),
    ("n36", "azure", {}, _chain(_az_rg_vmss, _az_bud(scope=RG_SCOPE),
                                _add(_aks_cluster(), _aks_t4(True),
                                     _az_bud2("nodes-budget",
                                              "/subscriptions/s/resourceGroups/MC_rg_aks_eastus",
                                              5000.0))),
     {}, None, "plus a budget on MC_rg_aks_eastus (the default node resource group): the pool is "
     "taken in there; it covers <= 652.62 + the storage <= 2,408.63 < 5,000"),
    ("n37", "azure", {}, _chain(_az_rg_vmss, _az_bud(scope=RG_SCOPE), _add(_aks_t4(False))),
     {SPEND: "undecided"}, None, "a budget on rg beside a pool whose cluster is not in the stack: "
     "cannot decide"),
    ("n38", "azure", {}, _chain(_az_rg_vmss, _az_bud(scope=RG_SCOPE),
                                _add(_aks_cluster("aks-nodes"), _aks_t4(True),
                                     _az_bud2("nodes-budget", "/subscriptions/s/resourceGroups/AKS-NODES",
                                              5000.0))),
     {}, None, "nodeResourceGroup aks-nodes and a budget on AKS-NODES (case-insensitive)"),
]


@pytest.mark.parametrize("case", _params(B4))
def test_batch4(pack, case):
    _run_case(pack, case)


# ----------------------------------------------------------------------------------- batch 4b
# PROBES, written AFTER n34's first run showed DEFECT 2 (not blind: counted apart). Docs: "ResourceId
# (a scale set's or VM's ARM id ...; AKS and Azure ML nodes' ids are not built: 'cannot decide')".
MC_ID = ("/subscriptions/s/resourceGroups/MC_rg_aks_eastus/providers/Microsoft.Compute/"
         "virtualMachineScaleSets/aks-gpu-12345678-vmss")

B4B = [
    ("q01", "azure", {}, _chain(_az_rg_vmss, _az_bud(filter=_az_dim("ResourceId", [VMSS_ID, MC_ID])),
                                _add(_aks_t4(False))),
     {SPEND: "undecided"}, None,
     "the filter also names a scale set in the pool's default node resource group (the form AKS "
     "gives its pools' sets): the pool may be in it; the pack says it leaves the GPU compute out"),
    ("q02", "azure", {}, _chain(_az_rg_vmss, _az_bud(filter=_az_dim("ResourceId", [VMSS_ID, MC_ID])),
                                _add(_aks_cluster(), _aks_t4(True))),
     {SPEND: "undecided"}, None, "the same with the cluster in the stack (node group MC_rg_aks_eastus)"),
    ("q03", "azure", {}, _chain(_az_rg_vmss, _az_bud(filter=_az_dim("ResourceId", [VMSS_ID])),
                                _add(_aml_t4("rg"))),
     {SPEND: "undecided"}, None, "control: Azure ML compute under the same filter: cannot decide, "
     "as documented"),
]


@pytest.mark.parametrize("case", _params(B4B))
def test_batch4b(pack, case):
    _run_case(pack, case)


# ------------------------------------------------------------------------------------ batch 5
# More neighbours of (1) and (2). Docs as in batches 1 and 2; also (Sizes) "without weights, its
# instancesDistribution prices onDemandBaseCapacity nodes, then onDemandPercentageAboveBaseCapacity
# percent of the rest ..., and a value that does not read prices them all on demand" (a lenient
# reading that is documented, never below the truth); a warm pool's sizes are sizes.
BAD = "not a finite non-negative number"


def _mixed_only(name: str):
    """The group launches through its mixed instances policy only (no top-level template)."""
    def mutate(s):
        asg = named(s, name)
        asg.props.pop("launchTemplate")
        asg.deps["mixedInstancesPolicy"] = asg.deps.pop("launchTemplate")
        return s
    return mutate


def _warm_asg(warm: dict):
    return _add(_aws_lt_asg("warm", "g5.xlarge", 2.0, extra_asg={"warmPool": warm}))


B5 = [
    ("v01", "aws", {}, _new("aws:sagemaker/userProfile:UserProfile", "bob", {
        "domainId": "d-1", "userProfileName": "bob", "userSettings": {
            "executionRole": "arn:aws:iam::111111111111:role/sm",
            "jupyterLabAppSettings": {"defaultResourceSpec": {"instanceType": "ml.g5.2xlarge"}}},
        "tags": dict(TAGS)}),
     {SPEND: "fail"}, None, "a SageMaker user profile whose JupyterLab apps default to ml.g5.2xlarge"),
    ("v02", "aws", {}, _new("aws:sagemaker/space:Space", "sp", {
        "domainId": "d-1", "spaceName": "team", "spaceSettings": {
            "appType": "JupyterLab",
            "jupyterLabAppSettings": {"defaultResourceSpec": {"instanceType": "ml.g6.xlarge"}}},
        "tags": dict(TAGS)}),
     {SPEND: "fail"}, None, "a SageMaker space on ml.g6.xlarge"),
    ("v03", "aws", {}, _new("aws:sagemaker/space:Space", "sp", {
        "domainId": "d-1", "spaceName": "team", "spaceSettings": {
            "appType": "JupyterLab",
            "jupyterLabAppSettings": {"defaultResourceSpec": {"instanceType": "ml.t3.medium"}}},
        "tags": dict(TAGS)}),
     {}, None, "CPU twin of v02"),
    ("v04", "aws", {}, _new("aws:m2/environment:Environment", "mf", {
        "name": "mf", "engineType": "microfocus", "instanceType": "M2.m5.large",
        "tags": dict(TAGS)}),
     {}, None, "CPU twin: a Mainframe Modernization environment of M2.m5.large (engineType ends in "
     "Type: 'microfocus' is no GPU sign)"),
    ("v05", "aws", {}, _new("aws:ec2/instance:Instance", "arm", {
        "instanceType": "m7g.xlarge", "subnetId": "subnet-x", "associatePublicIpAddress": False,
        "tags": dict(TAGS)}, deps=lambda s: {"subnetId": [named(s, "train-a")]}),
     {}, None, "false alarm: m7g (Graviton; a trailing g is no GPU family)"),
    ("v06", "aws", {}, _warm_asg({"poolState": "Running", "minSize": ["1"]}),
     {SPEND: "fail", "_msg": {SPEND: [BAD]}}, None,
     "a g5.xlarge group (max 2) with a Running warm pool of minSize ['1']: as 1 it is 3 x 1.006 x 730 "
     "= 2,203.14 (a pass); a size written as a list is a violation"),
    ("v07", "aws", {}, _warm_asg({"poolState": "Running", "maxGroupPreparedCapacity": "NaN"}),
     {SPEND: "fail", "_msg": {SPEND: [BAD]}}, None, "maxGroupPreparedCapacity 'NaN'"),
    ("v08", "aws", {}, _warm_asg({"poolState": "Running", "minSize": 1.0}),
     {}, None, "control: warm pool minSize 1: (2 + 1) x 1.006 x 730 = 2,203.14 + ~12,141 < 20,000"),
    ("v09", "aws", {}, _chain(_add(_aws_lt_asg("mixd", "g5.xlarge", 2.0, extra_asg={
        "mixedInstancesPolicy": {"instancesDistribution": {
            "onDemandBaseCapacity": 0.0, "onDemandPercentageAboveBaseCapacity": "half",
            "spotAllocationStrategy": "price-capacity-optimized"},
            "launchTemplate": {"launchTemplateSpecification": {"launchTemplateId": "lt-y"}}}})),
        _mixed_only("mixd")),
     {}, None, "a percentage 'half' that does not read prices every node on demand (documented): "
     "2 x 1.006 x 730 = 1,468.76, under the budget"),
    # ----- GCP
    ("v10", "gcp", {}, _add(lambda s: res("gcp:compute/regionInstanceTemplate:RegionInstanceTemplate",
                                          "g2-rtpl", {
        "region": "us-west1", "machineType": "g2-standard-4", "labels": dict(LABELS),
        "networkInterfaces": [{"network": "train"}],
        "scheduling": {"onHostMaintenance": "TERMINATE"}}),
        lambda s: res("gcp:compute/regionInstanceGroupManager:RegionInstanceGroupManager", "g2-rmig", {
            "region": "us-west1", "targetSize": ["1"], "baseInstanceName": "g2", "name": "g2-rmig",
            "distributionPolicyZones": ["us-west1-c"],
            "versions": [{"instanceTemplate": "g2-rtpl-id"}]},
            deps={"versions": [named(s, "g2-rtpl")]})),
     {SPEND: "fail", "_msg": {SPEND: [BAD]}}, None,
     "a regional MIG of g2-standard-4 with targetSize ['1']: as 1 it is 515.99 (a pass)"),
    ("v11", "gcp", {}, _new("gcp:compute/reservation:Reservation", "t4resv", {
        "zone": "us-west1-b", "specificReservation": {"count": 1.0, "instanceProperties": {
            "machineType": "n1-standard-4",
            "guestAccelerators": [{"acceleratorType": "nvidia-tesla-t4", "acceleratorCount": "two"}]}}}),
     {SPEND: "fail"}, None, "a reservation's accelerator count 'two': no number, fails closed"),
    ("v12", "gcp", {}, _new("gcp:compute/instance:Instance", "c3", {
        "zone": "us-west1-c", "machineType": "c3-standard-4", "guestAccelerators": [],
        "labels": {**LABELS, "machine_type": "a2-highgpu-1g"}, "networkInterfaces": [{"network": "train"}]}),
     {}, None, "false alarm: an empty guestAccelerators list and a label naming a2 (labels never read)"),
    # ----- Azure
    ("v13", "azure", {}, _new("azure:compute/linuxVirtualMachineScaleSet:LinuxVirtualMachineScaleSet",
                              "cvmss", {
        "name": "cvmss", "resourceGroupName": "rg", "location": "eastus", "zones": ["1"],
        "sku": "Standard_NC4as_T4_v3", "instances": ["1"], "adminUsername": "azureuser",
        "networkInterfaces": [{"name": "nic", "primary": True, "ipConfigurations": [
            {"name": "ip", "primary": True, "subnetId": f"{VN}/subnets/s"}]}],
        "osDisk": {"caching": "ReadWrite", "storageAccountType": "Premium_LRS"}, "tags": AZT}),
     {SPEND: "fail", "_msg": {SPEND: [BAD]}}, None,
     "a classic Linux scale set of NC4as_T4_v3 with instances ['1']: as 1 it is 383.98 (a pass)"),
    ("v14", "azure", {}, _new("azure-native:compute:VirtualMachineScaleSet", "cpu-set", {
        "resourceGroupName": "rg", "location": "eastus", "zones": ["1"],
        "sku": {"name": "Standard_D4s_v5", "capacity": 3.0},
        "virtualMachineProfile": {"networkProfile": {"networkInterfaceConfigurations": [
            {"name": "nic", "primary": True, "ipConfigurations": [{"name": "ip"}]}]}},
        "tags": {**AZT, "vmSize": "Standard_NC24ads_A100_v4", "gpu": "none"}}),
     {}, None, "false alarm: a CPU set whose tags name an A100 size"),
    ("v15", "azure", {}, _new("azure-native:compute:VirtualMachineScaleSet", "t4-set", {
        "resourceGroupName": "rg", "location": "eastus", "zones": ["1"],
        "sku": {"name": "Standard_NC4as_T4_v3", "capacity": {"count": 1.0}},
        "virtualMachineProfile": {"networkProfile": {"networkInterfaceConfigurations": [
            {"name": "nic", "primary": True, "ipConfigurations": [{"name": "ip"}]}]}},
        "tags": AZT}),
     {SPEND: "fail"}, None, "a T4 set whose sku.capacity is an object: as 1 it is 383.98 (a pass)"),
    # ----- Alibaba Cloud
    ("v16", "ali", {}, _new("alicloud:ecs/ecsInstanceSet:EcsInstanceSet", "iset", {
        "instanceType": "ecs.gn7i-c8g1.2xlarge", "amount": "2 nodes", "vswitchId": "vsw-id",
        "imageId": "ubuntu", "securityGroupIds": ["sg-1"], "internetMaxBandwidthOut": 0.0,
        "autoReleaseTime": hours_from_now(24), "tags": ALT}, region=ALI),
     {SPEND: "fail", "_msg": {SPEND: [BAD]}}, None,
     "an instance set of gn7i with amount '2 nodes' (released in 24 h): a violation naming it"),
    ("v17", "ali", {}, _new("alicloud:ecs/ecsInstanceSet:EcsInstanceSet", "iset", {
        "instanceType": "ecs.gn7i-c8g1.2xlarge", "amount": 2.0, "vswitchId": "vsw-id",
        "imageId": "ubuntu", "securityGroupIds": ["sg-1"], "internetMaxBandwidthOut": 0.0,
        "autoReleaseTime": hours_from_now(24), "tags": ALT}, region=ALI),
     {}, None, "control for v16: amount 2, released in 24 h (2 x 2.56083 x 24 = 122.92)"),
    ("v18", "ali", {}, _new("alicloud:ecs/instance:Instance", "c7", {
        "instanceType": "ecs.c7.xlarge", "vswitchId": "vsw-id", "internetMaxBandwidthOut": 0.0,
        "tags": {**ALT, "instanceType": "ecs.gn7i-c8g1.2xlarge"}},
        deps=lambda s: {"vswitchId": [_ali_vsw(s)]}, region=ALI),
     {}, None, "false alarm: a CPU instance whose tag is named instanceType (tags never read)"),
]


@pytest.mark.parametrize("case", _params(B5))
def test_batch5(pack, case):
    _run_case(pack, case)


# ----------------------------------------------------------------------------------- batch 5b
# PROBE, written AFTER v06's first run (not blind: counted apart). AWS (CloudFormation
# AWS::AutoScaling::WarmPool): "When your Auto Scaling group scales out and the size of the warm
# pool shrinks, Amazon EC2 Auto Scaling launches new instances into the warm pool to maintain its
# minimum size"; PutWarmPool: without MaxGroupPreparedCapacity it "launches and maintains the
# difference between the group's maximum capacity and its desired capacity". So a Running pool
# holds max(minSize, maxSize - desired) instances: maxSize 2, minSize 20 is up to 2 + 20 = 22.
B5B = [
    ("w01", "aws", {}, _warm_asg({"poolState": "Running", "minSize": 20.0}),
     {SPEND: "fail"}, None,
     "a g5.xlarge group (max 2) with a Running warm pool of minSize 20 and no "
     "maxGroupPreparedCapacity: (2 + 20) x 1.006 x 730 = 16,156.36 + ~12,141 = ~28,297 > 20,000 "
     "(the pack prices maxSize more, 4 x 734.38 = 2,937.52, and passes); its twin with "
     "maxGroupPreparedCapacity 3 is priced at 22 and fails, as documented"),
    ("w02", "aws", {}, _warm_asg({"poolState": "Running", "minSize": 20.0,
                                  "maxGroupPreparedCapacity": 3.0}),
     {SPEND: "fail"}, None, "control for w01: with maxGroupPreparedCapacity 3, the larger of 3 and "
     "2 + 20 = 22 nodes: ~28,297 > 20,000"),
]


@pytest.mark.parametrize("case", _params(B5B))
def test_batch5b(pack, case):
    _run_case(pack, case)
