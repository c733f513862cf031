"""fix77: review77's two defects, fixed, with cases of this helper's own (expectations by hand
from docs/policies.md and the catalog CSVs, written before the first run).

DEFECT 1 (storage-same-zone): an AWS Batch compute environment naming a GPU type beside a type
  without catalog vCPUs (`optimal`, c5.large) was left out of the GPU groups (capacity returned
  no group, gpu_signs() named it for spend only), so the filesystem only it mounts was matched
  to the other GPU cluster. Docs: only "a Batch compute environment of CPU types only ... is CPU
  compute", and a filesystem is matched first to "the GPU groups whose compute mounts it ... (an
  AWS Batch compute environment's computeResources.launchTemplate)". Now it is a GPU group of a
  size not read: spend still fails it closed ("is not sized (a GPU family or GPU type in it
  cannot be estimated)"), storage sees its zone and mounts.
DEFECT 2 (no-public-ingress): aws-native elasticloadbalancingv2 LoadBalancer / Listener /
  ListenerRule / TargetGroup were not in the walk from a public balancer. CloudFormation
  AWS::ElasticLoadBalancingV2::LoadBalancer: Scheme internet-facing (the default) or internal;
  a Gateway Load Balancer has no scheme. Listener DefaultActions / ListenerRule Actions name
  target groups (TargetGroupArn, ForwardConfig.TargetGroups[].TargetGroupArn); TargetGroup
  Targets[].Id names the instance; AWS::AutoScaling::AutoScalingGroup TargetGroupARNs
  (aws-native targetGroupArns) puts a group's nodes in a target group.

Figures (prices.csv / instance_types.csv, us-east-1): the AWS base ~12,141 a month under its
20,000 budget; p4d.24xlarge 96 vCPUs, 21.9576 USD/h; g6.xlarge 0.8048 USD/h: two for a month
2 x 0.8048 x 730 = 1,175.01 (12,141 + 1,175 < 20,000).
"""
from __future__ import annotations

import pytest

from tests.policies.test_policy_review77 import (
    B40, NPI, SPEND, SSZ, TAGS, _add, _awsn_tags, _chain, _run_case, aws_gpu_vm,
    batch_ce, home_fsx, named, prep_sub, unknown,
)
from tests.policy_fixtures import res

# ------------------------------------------------------------------------------ DEFECT 1
CE_MIX = ("optimal", "p4d.24xlarge")
STORAGE = [
    ("s01", "aws", B40, _chain(prep_sub(), batch_ce(types=CE_MIX, max_vcpus=96.0,
                                                    mounts=("scratch",))),
     {SSZ: "fail", SPEND: "fail", "_msg": {SSZ: ["us-east-1a", "us-east-1c"], SPEND: ["prep-ce"]}}, None,
     "the mixed CE in 1c mounts the GPUs' 1a FSx: a GPU group seen to mount it, so the span "
     "verdict naming both zones (as b07 with p4d alone); spend fails the unsized CE closed"),
    ("s02", "aws", B40, _chain(prep_sub(), prep_sub("home-sub", "us-east-1a"),
                               home_fsx("home-sub"),
                               batch_ce(types=CE_MIX, max_vcpus=96.0)),
     {SSZ: "fail", SPEND: "fail", "_msg": {SSZ: ["home", "us-east-1a", "us-east-1c"]}}, None,
     "the mixed CE in 1c alone mounts 'home', which is in 1a: matched to the CE (step 1), so "
     "home is not in its GPU nodes' zone (found 1a, expected 1c)"),
    ("s03", "aws", B40, _chain(prep_sub(), home_fsx(),
                               batch_ce(types=("c5.large", "g5.xlarge", "optimal"),
                                        max_vcpus=96.0)),
     {SPEND: "fail"}, None,
     "three types, the GPU one in the middle, home in the CE's 1c: pass (the spend verdict as "
     "q2's: optimal has no catalog vCPUs)"),
    ("s04", "aws", {}, _chain(prep_sub(), prep_sub("home-sub", "us-east-1a"),
                              home_fsx("home-sub"),
                              batch_ce(types=("optimal", "c5.large"), max_vcpus=96.0)),
     {}, None,
     "CPU types only (optimal, c5.large) in 1c mounting a 1a home: CPU compute, not judged "
     "(the fix must not turn CPU-only environments into GPU groups)"),
]


@pytest.mark.parametrize("case", STORAGE, ids=[c[0] for c in STORAGE])
def test_defect1_mixed_batch_environment(pack, case):
    _run_case(pack, case)


# ------------------------------------------------------------------------------ DEFECT 2
def _nlb(name: str = "web", scheme=None, kind: str = "application"):
    props: dict = {"type": kind, "subnets": ["subnet-a", "subnet-b"], "tags": _awsn_tags()}
    if scheme is not None:
        props["scheme"] = scheme
    return res("aws-native:elasticloadbalancingv2:LoadBalancer", name, props)


def _ntg(targets: list):
    return res("aws-native:elasticloadbalancingv2:TargetGroup", "web-tg", {
        "protocol": "HTTP", "port": 8000, "vpcId": "vpc-1", "targetType": "instance",
        "targets": [{"id": "i-x", "port": 8000}] if targets else [], "tags": _awsn_tags()},
        deps={"targets": targets} if targets else None)


def native_forward_config(scheme=None):
    """A listener forwarding by forwardConfig.targetGroups (no targetGroupArn)."""
    def build(s):
        lb, tg = _nlb(scheme=scheme), _ntg([named(s, "dev")])
        ls = res("aws-native:elasticloadbalancingv2:Listener", "web-l", {
            "loadBalancerArn": "arn-lb", "port": 80, "protocol": "HTTP",
            "defaultActions": [{"type": "forward", "forwardConfig": {
                "targetGroups": [{"targetGroupArn": "arn-tg", "weight": 1}]}}]},
            deps={"loadBalancerArn": [lb], "defaultActions": [tg]})
        return [lb, tg, ls]
    return _add(build)


def native_rule(scheme=None, kind: str = "application"):
    """A listener answering 404 by default, its rule forwarding /v1/* to the GPU target group."""
    def build(s):
        lb, tg = _nlb(scheme=scheme, kind=kind), _ntg([named(s, "dev")])
        ls = res("aws-native:elasticloadbalancingv2:Listener", "web-l", {
            "loadBalancerArn": "arn-lb", "port": 80, "protocol": "HTTP",
            "defaultActions": [{"type": "fixed-response",
                                "fixedResponseConfig": {"statusCode": "404"}}]},
            deps={"loadBalancerArn": [lb]})
        rule = res("aws-native:elasticloadbalancingv2:ListenerRule", "web-rule", {
            "listenerArn": "arn-l", "priority": 10,
            "conditions": [{"field": "path-pattern",
                            "pathPatternConfig": {"values": ["/v1/*"]}}],
            "actions": [{"type": "forward", "targetGroupArn": "arn-tg"}]},
            deps={"listenerArn": [ls], "actions": [tg]})
        return [lb, tg, ls, rule]
    return _add(build)


def group_in_target_group(native_group: bool):
    """The GPU group's nodes in an aws-native target group (no targets of its own) behind an
    aws-native internet-facing ALB: the classic base ASG (targetGroupArns), or an aws-native
    AutoScalingGroup of 2 g6.xlarge from an aws-native launch template (targetGroupArns)."""
    def mutate(s):
        lb, tg = _nlb(), _ntg([])
        ls = res("aws-native:elasticloadbalancingv2:Listener", "web-l", {
            "loadBalancerArn": "arn-lb", "port": 80, "protocol": "HTTP",
            "defaultActions": [{"type": "forward", "targetGroupArn": "arn-tg"}]},
            deps={"loadBalancerArn": [lb], "defaultActions": [tg]})
        out = s + [lb, tg, ls]
        if not native_group:
            asg = named(out, "train-nodes")
            asg.props["targetGroupArns"] = ["arn-tg"]
            asg.deps["targetGroupArns"] = [tg]
            return out
        nlt = res("aws-native:ec2:LaunchTemplate", "infer-lt", {"launchTemplateData": {
            "instanceType": "g6.xlarge", "imageId": "ami-1",
            "networkInterfaces": [{"deviceIndex": 0, "associatePublicIpAddress": False}],
            "blockDeviceMappings": [{"deviceName": "/dev/xvda", "ebs": {
                "volumeSize": 100, "volumeType": "gp3", "encrypted": True}}],
            "tagSpecifications": [{"resourceType": "instance", "tags": _awsn_tags()}]}})
        nasg = res("aws-native:autoscaling:AutoScalingGroup", "infer", {
            "minSize": "0", "maxSize": "2", "vpcZoneIdentifier": ["subnet-x"],
            "launchTemplate": {"launchTemplateId": "lt-x", "version": "1"},
            "targetGroupArns": ["arn-tg"],
            "tags": [{"key": k, "value": v, "propagateAtLaunch": True} for k, v in TAGS.items()]},
            deps={"vpcZoneIdentifier": [named(s, "train-a")], "launchTemplate": [nlt],
                  "targetGroupArns": [tg]})
        return out + [nlt, nasg]
    return mutate


def scheme_unknown(s):
    return _chain(aws_gpu_vm(), native_rule(scheme=unknown()))(s)


NPI_MSG = {NPI: ["web (aws-native:elasticloadbalancingv2:LoadBalancer)"]}
INGRESS = [
    ("n01", "aws", {}, _chain(aws_gpu_vm(), native_forward_config()),
     {NPI: "fail", "_msg": NPI_MSG}, None,
     "scheme left out (internet-facing by default), listener forwardConfig.targetGroups to the "
     "target group whose target is the GPU instance: fail naming the balancer"),
    ("n02", "aws", {}, _chain(aws_gpu_vm(), native_forward_config("internal")), {}, None,
     "n01 internal: pass"),
    ("n03", "aws", {}, _chain(aws_gpu_vm(), native_rule("internet-facing")),
     {NPI: "fail", "_msg": NPI_MSG}, None,
     "listener of a fixed response; its ListenerRule (listenerArn) forwards to the GPU target "
     "group: fail"),
    ("n04", "aws", {}, _chain(aws_gpu_vm(), native_rule("internal")), {}, None,
     "n03 internal: pass"),
    ("n05", "aws", {}, _chain(aws_gpu_vm(), native_rule(kind="gateway")), {}, None,
     "a Gateway Load Balancer (no scheme; it takes no internet traffic itself): pass"),
    ("n06", "aws", {}, scheme_unknown, {NPI: "undecided"}, None,
     "scheme unknown at preview in front of the GPU instance: cannot decide"),
    ("n07", "aws", {}, group_in_target_group(native_group=False),
     {NPI: "fail", "_msg": {NPI: ["train-nodes"]}}, None,
     "the classic base ASG's targetGroupArns into an aws-native target group behind an "
     "aws-native internet ALB: its p5 nodes are reachable, fail"),
    ("n08", "aws", {}, group_in_target_group(native_group=True),
     {NPI: "fail", "_msg": {NPI: ["infer"]}}, None,
     "an aws-native ASG of 2 g6.xlarge (1,175.01 a month: under the budget with the base) with "
     "targetGroupArns into that target group: fail naming it"),
]


@pytest.mark.parametrize("case", INGRESS, ids=[c[0] for c in INGRESS])
def test_defect2_native_balancers(pack, case):
    _run_case(pack, case)

