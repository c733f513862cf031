"""Issue 35, a BLIND hostile review (helper review52). Cases written blind from docs/policies.md,
docs/billing-after-stop.md and the catalog CSVs; each batch committed before its first run.
Results per batch: see the end of this docstring (filled in after each run).

Driven over gRPC as `pulumi preview --policy-pack` drives the pack (tests/policy_harness.py). The
pack's code under policies/ was not read. Each case states the verdict of EVERY policy (those
not named stay "pass"): "fail", "advisory", "undecided" ("cannot decide") or "pass".

Prices (components/catalog/prices.csv, on-demand USD/h; a month is 730 h):
  aws us-east-1: g5.xlarge 1.006 (4 vCPU); g5.2xlarge 1.212 (8 vCPU); g6.xlarge 0.8048.
  gcp us-central1: g2-standard-8 0.853624. azure eastus: Standard_NC4as_T4_v3 0.526,
  Standard_NC24ads_A100_v4 3.673. alibaba eu-central-1: ecs.gn7i-c8g1.2xlarge 2.56083.
  All these rows have fabric tcp (instance_types.csv): rdma-for-multinode never asks them.
"""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

import grpc
import pytest

from tests.policy_fixtures import AWS_ALERTS, AZURE_ALERTS, GCP_ALERTS, OWNER_LABELS, res
from tests.policy_harness import run
from tests.policy_harness import verdict as _verdict

SSZ, SPEND, TAGS_P, RDMA = "storage-same-zone", "spend-limit", "required-tags", "rdma-for-multinode"
NPI, ENC, RET = "no-public-ingress", "encryption-at-rest", "bucket-retained"
POLICIES = (SSZ, SPEND, TAGS_P, RDMA, NPI, ENC, RET)
UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"  # Pulumi's unknown string
AWS = {"region": "us-east-1"}
GCP = {"project": "ml-prod", "region": "us-central1", "zone": "us-central1-a"}
SUB = "00000000-0000-0000-0000-000000000052"
AZS = {"location": "eastus", "subscriptionId": SUB}
ALI = {"region": "eu-central-1"}
TAGS = {"owner": "alice", "team": "ml", "cost-center": "1234"}
LABELS = dict(OWNER_LABELS)
ASG_TAGS = [{"key": k, "value": v, "propagateAtLaunch": True} for k, v in TAGS.items()]
NATIVE_TAGS = [{"key": k, "value": v} for k, v in TAGS.items()]
NATIVE_ASG_TAGS = [{"key": k, "value": v, "propagateAtLaunch": True} for k, v in TAGS.items()]

G5 = 1.006 * 730          # 734.38 a month
G5_2X = 1.212 * 730       # 884.76
G2 = 0.853624 * 730       # 623.15552


def _now():
    return datetime.now(timezone.utc)


def _iso(hours):
    return (_now() + timedelta(hours=hours)).strftime("%Y-%m-%dT%H:%M:%SZ")


def check(pack, stack, provider, expected, config=None):
    urns = [r.urn for r in stack]
    assert len(urns) == len(set(urns)), "every resource its own URN"
    found = run(pack, stack, config, provider=provider)
    got = {p: _verdict(found, p) for p in POLICIES}
    ok = all(got[p] == expected.get(p, "pass") for p in POLICIES)
    assert ok, (got, " | ".join(f"{d.policy}[{d.level}]: {d.message}" for d in found))
    return found


def on(stack, props):
    for r in stack:
        r.provider = dict(props)
    return stack


# ------------------------------------------------------------------------------ AWS builders

def aws_budget(name="budget", amount="20000.00", **extra):
    return res("aws:budgets/budget:Budget", name, {
        "budgetType": "COST", "timeUnit": "MONTHLY", "limitAmount": amount, "limitUnit": "USD",
        "notifications": AWS_ALERTS, "tags": dict(TAGS), **extra})


def subnet(name="sn-a", zone="us-east-1a", **extra):
    return res("aws:ec2/subnet:Subnet", name, {"availabilityZone": zone, "vpcId": "vpc-0r52",
                                               "cidrBlock": "10.52.1.0/24", "tags": dict(TAGS),
                                               **extra})


def lt(name, itype, deps=None, **props):
    return res("aws:ec2/launchTemplate:LaunchTemplate", name, {
        "instanceType": itype, "imageId": "ami-0r52", "tags": dict(TAGS), **props},
        deps=deps or {})


def asg(rname, template, subnets, size, tags=None, **props):
    return res("aws:autoscaling/group:Group", rname, {
        "minSize": 0.0, "maxSize": float(size), "desiredCapacity": float(size),
        "launchTemplate": {"id": f"{template.name}-id", "version": "$Latest"},
        "vpcZoneIdentifiers": [f"{s.name}-id" for s in subnets],
        "tags": list(ASG_TAGS if tags is None else tags), **props},
        deps={"launchTemplate": [template], "vpcZoneIdentifiers": list(subnets)})


def box(name, itype, sn, deps=None, **props):
    props.setdefault("tags", dict(TAGS))
    return res("aws:ec2/instance:Instance", name, {
        "instanceType": itype, "ami": "ami-0r52", "subnetId": f"{sn.name}-id",
        "associatePublicIpAddress": False, **props},
        deps={"subnetId": [sn], **(deps or {})})


def batch_ce(name, sn, types, max_vcpus, ce_type="EC2", strategy=None, **extra):
    cr = {"type": ce_type, "maxVcpus": max_vcpus, "minVcpus": 0.0, "instanceTypes": list(types),
          "subnets": [f"{sn.name}-id"], "securityGroupIds": ["sg-0r52"],
          "instanceRole": "arn:aws:iam::123456789012:instance-profile/ecsInstanceRole",
          "tags": dict(TAGS)}
    if strategy:
        cr["allocationStrategy"] = strategy
    return res("aws:batch/computeEnvironment:ComputeEnvironment", name, {
        "type": "MANAGED", "computeResources": {**cr, **extra}, "tags": dict(TAGS)},
        deps={"computeResources": [sn]})


# ------------------------------------------------------------------------------ GCP builders

def gcp_budget(name="gbudget", units="1000", **extra):
    return res("gcp:billing/budget:Budget", name, {
        "billingAccount": "000000-AAAAAA-BBBBBB",
        "amount": {"specifiedAmount": {"currencyCode": "USD", "units": units}},
        "thresholdRules": GCP_ALERTS, **extra})


def template(name, machine="g2-standard-8", labels=None, deps=None, **props):
    return res("gcp:compute/instanceTemplate:InstanceTemplate", name, {
        "machineType": machine, "labels": dict(labels or LABELS),
        "networkInterfaces": [{"network": "default"}],
        "disks": [{"sourceImage": "debian-cloud/debian-12", "boot": True}],
        "scheduling": {"onHostMaintenance": "TERMINATE"}, **props}, deps=deps or {})


def mig(rname, tpl, size, zone="us-central1-a", **props):
    return res("gcp:compute/instanceGroupManager:InstanceGroupManager", rname, {
        "zone": zone, "targetSize": float(size), "baseInstanceName": rname,
        "versions": [{"instanceTemplate": f"{tpl.name}-id"}], **props},
        deps={"versions": [tpl]})


# ====================================================== batch 1: AWS and two clouds (26 cases)

def _two_clouds(aws_amount="2000.00", gcp_units="1500", with_gcp_budget=True):
    """2 g5.xlarge on AWS (1,468.76) and 2 g2-standard-8 on GCP (1,246.31): 2,715.07 in all."""
    sn = subnet()
    t = lt("aws-lt", "g5.xlarge")
    tpl = template("gcp-tpl")
    stack = on([sn, t, asg("aws-train", t, [sn], 2), aws_budget(amount=aws_amount)], AWS)
    stack += on([tpl, mig("gcp-train", tpl, 2)] +
                ([gcp_budget(units=gcp_units)] if with_gcp_budget else []), GCP)
    return stack


def test_m01_two_clouds_gcp_over_its_own_budget(pack):
    """GCP's share 1,246.31 > its budget 1,000; AWS 1,468.76 < 2,000. Docs (Budgets): cloud by
    cloud, the smallest budget of that cloud against that cloud's share: spend fail."""
    check(pack, _two_clouds(gcp_units="1000"), None, {SPEND: "fail"})


def test_m02_two_clouds_each_under_its_own_budget(pack):
    """Each share under its own budget (1,468.76 < 2,000; 1,246.31 < 1,500) although the sum
    2,715.07 is above both: docs, "a stack on AWS and GCP passes with each cloud under its own
    budget although the sum is over both": pass."""
    check(pack, _two_clouds(), None, {})


def test_m03_two_clouds_no_gcp_budget(pack):
    """Only the AWS budget: docs, "no budget alarm on <cloud>" for GCP: spend fail."""
    check(pack, _two_clouds(with_gcp_budget=False), None, {SPEND: "fail"})


def test_m04_two_clouds_max_monthly_on_the_sum(pack):
    """maxMonthlyUsd 2,500 is "on the whole stack's estimate, every cloud together": 2,715.07 >
    2,500: spend fail (each budget is below 2,500, so no budget is above the cap)."""
    check(pack, _two_clouds(), None, {SPEND: "fail"}, config={SPEND: {"maxMonthlyUsd": 2500}})


def test_m05_two_clouds_max_monthly_above_the_sum(pack):
    """maxMonthlyUsd 3,000 over 2,715.07, budgets 2,000 and 1,500 below it: pass."""
    check(pack, _two_clouds(), None, {}, config={SPEND: {"maxMonthlyUsd": 3000}})


def test_m06_two_clouds_aws_budget_above_max_monthly(pack):
    """maxMonthlyUsd 1,800 with the AWS budget 2,000 above it: docs, "a budget of the stack
    whose amount is above it is itself a violation on that budget" (and the sum is over):
    spend fail."""
    check(pack, _two_clouds(), None, {SPEND: "fail"}, config={SPEND: {"maxMonthlyUsd": 1800}})


# --- AWS Batch (docs, Sizes: ceil(maxVcpus / fewest vCPUs), one more unless EC2 BEST_FIT)

def test_b01_batch_ec2_best_fit_default(pack):
    """EC2 compute environment of g5.xlarge (4 vCPU), maxVcpus 16, no strategy (BEST_FIT):
    ceil(16/4) = 4 nodes x 734.38 = 2,937.52 < 3,000: pass."""
    sn = subnet()
    check(pack, [sn, batch_ce("batch-g5", sn, ["g5.xlarge"], 16.0),
                 aws_budget(amount="3000.00")], AWS, {})


def test_b02_batch_ec2_best_fit_progressive(pack):
    """b01 with BEST_FIT_PROGRESSIVE: one more node, 5 x 734.38 = 3,671.90 > 3,000: fail."""
    sn = subnet()
    check(pack, [sn, batch_ce("batch-g5", sn, ["g5.xlarge"], 16.0,
                              strategy="BEST_FIT_PROGRESSIVE"),
                 aws_budget(amount="3000.00")], AWS, {SPEND: "fail"})


def test_b03_batch_two_types_dearest_over(pack):
    """types g5.xlarge (4 vCPU) and g5.2xlarge (8), maxVcpus 16, BEST_FIT_PROGRESSIVE:
    ceil(16/4) + 1 = 5 nodes at the dearest (g5.2xlarge 884.76) = 4,423.80 > 4,400: fail."""
    sn = subnet()
    check(pack, [sn, batch_ce("batch-mix", sn, ["g5.xlarge", "g5.2xlarge"], 16.0,
                              strategy="BEST_FIT_PROGRESSIVE"),
                 aws_budget(amount="4400.00")], AWS, {SPEND: "fail"})


def test_b03c_batch_two_types_dearest_under(pack):
    """b03 under a 4,500 budget: 4,423.80 < 4,500: pass."""
    sn = subnet()
    check(pack, [sn, batch_ce("batch-mix", sn, ["g5.xlarge", "g5.2xlarge"], 16.0,
                              strategy="BEST_FIT_PROGRESSIVE"),
                 aws_budget(amount="4500.00")], AWS, {})


def test_b04_batch_gpu_family(pack):
    """instanceTypes ["g5"] (a family): docs, not sized, "a GPU family ... in it cannot be
    estimated": spend fail under a 90,000 budget."""
    sn = subnet()
    check(pack, [sn, batch_ce("batch-fam", sn, ["g5"], 16.0),
                 aws_budget(amount="90000.00")], AWS, {SPEND: "fail"})


def test_b05_batch_optimal_is_no_gpu(pack):
    """instanceTypes ["optimal"] (Batch picks C/M/R families): no GPU sign, so no GPU capacity:
    no budget is needed (docs, Scope: only GPU nodes need a budget alarm): pass."""
    sn = subnet()
    check(pack, [sn, batch_ce("batch-cpu", sn, ["optimal"], 256.0)], AWS, {})


def test_b06_batch_max_vcpus_unknown(pack):
    """b01 with maxVcpus unknown at preview: a GPU size unknown at preview fails closed."""
    sn = subnet()
    check(pack, [sn, batch_ce("batch-unk", sn, ["g5.xlarge"], UNKNOWN),
                 aws_budget(amount="90000.00")], AWS, {SPEND: "fail"})


def test_b07_batch_max_vcpus_negative(pack):
    """maxVcpus -16: a negative size is a violation naming it: spend fail."""
    sn = subnet()
    check(pack, [sn, batch_ce("batch-neg", sn, ["g5.xlarge"], -16.0),
                 aws_budget(amount="90000.00")], AWS, {SPEND: "fail"})


def test_b08_batch_spot_without_budget(pack):
    """A SPOT environment of g6.xlarge, maxVcpus 8, and no budget: GPU capacity with no budget
    alarm on AWS: spend fail."""
    sn = subnet()
    check(pack, [sn, batch_ce("batch-spot", sn, ["g6.xlarge"], 8.0, ce_type="SPOT")], AWS,
          {SPEND: "fail"})


# --- budgets with tag filters against the tags the GPU instances carry

def _team_budget(amount="2000.00"):
    return aws_budget("team-budget", amount=amount,
                      costFilters=[{"name": "TagKeyValue", "values": ["user:team$ml"]}])


def test_t01_tag_budget_propagated(pack):
    """ASG of 2 g5.xlarge (1,468.76) whose tags propagate at launch, budget on user:team$ml
    2,000: the budget takes the group in: pass."""
    sn = subnet()
    t = lt("lt", "g5.xlarge")
    check(pack, [sn, t, asg("train", t, [sn], 2), _team_budget()], AWS, {})


def test_t02_tag_budget_not_propagated(pack):
    """t01 with team's propagateAtLaunch false: the instances do not carry team=ml, the only
    budget leaves the group out: "no budget alarm on aws for ...": spend fail."""
    sn = subnet()
    t = lt("lt", "g5.xlarge")
    tags = [{**x, "propagateAtLaunch": x["key"] != "team"} for x in ASG_TAGS]
    check(pack, [sn, t, asg("train", t, [sn], 2, tags=tags), _team_budget()], AWS,
          {SPEND: "fail"})


def test_t03_tag_budget_from_template_tag_specifications(pack):
    """t02's group whose launch template tags instances with team=ml (tagSpecifications of
    resourceType instance): docs, those count: pass."""
    sn = subnet()
    t = lt("lt", "g5.xlarge", tagSpecifications=[{"resourceType": "instance",
                                                   "tags": {"team": "ml"}}])
    tags = [{**x, "propagateAtLaunch": x["key"] != "team"} for x in ASG_TAGS]
    check(pack, [sn, t, asg("train", t, [sn], 2, tags=tags), _team_budget()], AWS, {})


def test_t04_tag_budget_from_provider_default_tags_on_an_instance(pack):
    """A g5.xlarge instance with no tags of its own and the provider's defaultTags carrying all
    three: docs, defaultTags reach an aws:ec2/instance: the team budget covers it, and
    required-tags counts the provider's default tags: pass."""
    sn = subnet()
    i = box("solo", "g5.xlarge", sn, tags={})
    stack = on([sn, i, _team_budget()], {"region": "us-east-1",
                                         "defaultTags": {"tags": dict(TAGS)}})
    sn.props["tags"] = {}
    check(pack, stack, None, {})


def test_t05_tag_budget_against_an_eks_node_group(pack):
    """An EKS node group of g5.xlarge (max 2) tagged team=ml: docs, EKS tags propagate to no
    other resource, so the team budget leaves its instances out: spend fail."""
    sn = subnet()
    ng = res("aws:eks/nodeGroup:NodeGroup", "eks-gpu", {
        "clusterName": "ml-eks", "nodeRoleArn": "arn:aws:iam::123456789012:role/eks-node",
        "subnetIds": [f"{sn.name}-id"], "instanceTypes": ["g5.xlarge"],
        "scalingConfig": {"minSize": 0.0, "maxSize": 2.0, "desiredSize": 0.0},
        "tags": dict(TAGS)}, deps={"subnetIds": [sn]})
    check(pack, [sn, ng, _team_budget()], AWS, {SPEND: "fail"})


# --- open capacity reservations and their consumers: counted once

def _odcr(zone="us-east-1a", count=2.0, **extra):
    return res("aws:ec2/capacityReservation:CapacityReservation", "odcr", {
        "instanceType": "g5.xlarge", "instancePlatform": "Linux/UNIX",
        "availabilityZone": zone, "instanceCount": count, "tags": dict(TAGS), **extra})


def test_r01_open_odcr_and_its_group_counted_once(pack):
    """An open ODCR of 2 g5.xlarge in us-east-1a and an On-Demand ASG of max 2 g5.xlarge in
    us-east-1a: docs, the open ODCR takes the nodes, counted once: 1,468.76 < 1,500: pass."""
    sn = subnet()
    t = lt("lt", "g5.xlarge")
    check(pack, [sn, t, asg("train", t, [sn], 2), _odcr(), aws_budget(amount="1500.00")],
          AWS, {})


def test_r02_open_odcr_in_another_zone(pack):
    """r01 with the ODCR in us-east-1b: the nodes (us-east-1a) do not use it; both bill:
    2,937.52 > 1,500: fail."""
    sn = subnet()
    t = lt("lt", "g5.xlarge")
    check(pack, [sn, t, asg("train", t, [sn], 2), _odcr("us-east-1b"),
                 aws_budget(amount="1500.00")], AWS, {SPEND: "fail"})


def test_r03_targeted_odcr_the_group_does_not_name(pack):
    """r01 with instanceMatchCriteria targeted and no group naming it: both bill: fail."""
    sn = subnet()
    t = lt("lt", "g5.xlarge")
    check(pack, [sn, t, asg("train", t, [sn], 2), _odcr(instanceMatchCriteria="targeted"),
                 aws_budget(amount="1500.00")], AWS, {SPEND: "fail"})


def test_r04_open_odcr_smaller_than_the_group(pack):
    """ODCR of 2, group max 4: 2 inside, 2 beyond: 4 x 734.38 = 2,937.52 < 3,000: pass."""
    sn = subnet()
    t = lt("lt", "g5.xlarge")
    check(pack, [sn, t, asg("train", t, [sn], 4), _odcr(), aws_budget(amount="3000.00")],
          AWS, {})


def test_r04b_open_odcr_smaller_than_the_group_over(pack):
    """r04 under 2,500: 2,937.52 > 2,500: fail."""
    sn = subnet()
    t = lt("lt", "g5.xlarge")
    check(pack, [sn, t, asg("train", t, [sn], 4), _odcr(), aws_budget(amount="2500.00")],
          AWS, {SPEND: "fail"})


def test_r05_open_odcr_and_a_spot_group(pack):
    """r01 with the group's template asking for spot (instanceMarketOptions spot): docs, "spot
    nodes use neither": the ODCR bills 1,468.76 beside the spot group; the group has no spot
    price in the catalog row (g5.xlarge us-east-1 spot empty), so whatever it is priced at,
    1,468.76 + its price exceeds 1,500 (a spot price of g5.xlarge is above 0.0433/h):
    fail."""
    sn = subnet()
    t = lt("lt", "g5.xlarge", instanceMarketOptions={"marketType": "spot"})
    check(pack, [sn, t, asg("train", t, [sn], 2), _odcr(), aws_budget(amount="1500.00")],
          AWS, {SPEND: "fail"})


# --- aws-native group with a classic template, and its scheduled action

def _native_group(min_size="0"):
    sn = subnet()
    t = lt("lt", "g5.xlarge")
    g = res("aws-native:autoscaling:AutoScalingGroup", "native-train", {
        "autoScalingGroupName": "native-train", "minSize": min_size, "maxSize": "2",
        "launchTemplate": {"launchTemplateId": "lt-id", "version": "$Latest"},
        "vpcZoneIdentifier": ["sn-a-id"], "tags": list(NATIVE_ASG_TAGS)},
        deps={"launchTemplate": [t], "vpcZoneIdentifier": [sn]})
    return [sn, t, g]


def _native_stop(group, **sizes):
    return res("aws-native:autoscaling:ScheduledAction", "native-stop", {
        "autoScalingGroupName": "native-train", "startTime": _iso(48), **sizes},
        deps={"autoScalingGroupName": [group]})


def test_n01_native_group_with_a_classic_template(pack):
    """aws-native ASG of max "2" launched from a classic g5.xlarge template: 1,468.76 < 1,500:
    pass."""
    check(pack, _native_group() + [aws_budget(amount="1500.00")], AWS, {})


def test_n02_native_group_stopped_in_48h(pack):
    """n01 under a 200 budget with a ScheduledAction at +48 h setting min, max, desired "0":
    2 x 1.006 x 48-49 h = 96.58-98.59 < 200: pass."""
    st = _native_group()
    st.append(_native_stop(st[2], minSize="0", maxSize="0", desiredCapacity="0"))
    check(pack, st + [aws_budget(amount="200.00")], AWS, {})


def test_n02c_native_group_not_stopped(pack):
    """CONTROL: n02 without the action: 1,468.76 > 200: fail."""
    check(pack, _native_group() + [aws_budget(amount="200.00")], AWS, {SPEND: "fail"})


def test_n03_native_desired_zero_under_a_minimum_of_one(pack):
    """The action sets only desiredCapacity "0" on a group of minSize "1": docs, aws-native
    leaves omitted sizes as the group has them, "desired 0 under a group minimum above 0 is
    refused by AWS and stops nothing": the month, 1,468.76 > 200: fail."""
    st = _native_group(min_size="1")
    st.append(_native_stop(st[2], desiredCapacity="0"))
    check(pack, st + [aws_budget(amount="200.00")], AWS, {SPEND: "fail"})


def test_z01_parked_group_scaled_up_by_a_schedule(pack):
    """An ASG min = max = desired 0 of g5.xlarge and an aws:autoscaling/schedule raising it to
    maxSize 4 / desired 4 at +24 h, recurring never: the group will run 4 nodes; priced at its
    maximum it must not be 0 (never below the truth): 4 x 734.38 x (month less 24 h) >=
    2,839 > 1,000: fail."""
    sn = subnet()
    t = lt("lt", "g5.xlarge")
    g = asg("parked", t, [sn], 0, name="parked")
    up = res("aws:autoscaling/schedule:Schedule", "parked-up", {
        "autoscalingGroupName": "parked", "scheduledActionName": "up", "minSize": 0.0,
        "maxSize": 4.0, "desiredCapacity": 4.0, "startTime": _iso(24)},
        deps={"autoscalingGroupName": [g]})
    check(pack, [sn, t, g, up, aws_budget(amount="1000.00")], AWS, {SPEND: "fail"})
