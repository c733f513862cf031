"""Issue 35 (lead), review67 DEFECT 1: an ALB listener rule written as programs write it, naming
its listener (`listenerArn: listener.arn`, a dependency on the listener only), forwards the
balancer's traffic to its target group: GPU nodes registered there are reachable from the
internet when the balancer is internet-facing (docs/policies.md: "GPU nodes behind an
internet-facing load balancer of the stack, through its ordinary rules, are a violation").
The walk from the balancer skipped such a rule (it sat at its listener's tier).
Driven over gRPC (tests/policy_harness.py) on the hand-built AWS cluster (2 p5.48xlarge)."""
from __future__ import annotations

import pytest

from tests.policies.test_policy_review35f import messages
from tests.policy_fixtures import aws_cluster, by_name, res
from tests.policy_harness import run, verdict

NPI = "no-public-ingress"


def _alb_in_front(internal: bool) -> list:
    stack = aws_cluster()
    subnet = by_name(stack, "nodes-subnet")
    alb = res("aws:lb/loadBalancer:LoadBalancer", "alb", {
        "internal": internal, "loadBalancerType": "application", "subnets": ["subnet-x"]},
        deps={"subnets": [subnet]})
    tg = res("aws:lb/targetGroup:TargetGroup", "tg", {
        "port": 8000.0, "protocol": "HTTP", "vpcId": "vpc-x", "targetType": "instance"})
    listener = res("aws:lb/listener:Listener", "http", {
        "loadBalancerArn": "arn:alb", "port": 80.0, "protocol": "HTTP",
        "defaultActions": [{"type": "fixed-response", "fixedResponse": {
            "contentType": "text/plain", "statusCode": "404"}}]},
        deps={"loadBalancerArn": [alb]})
    rule = res("aws:lb/listenerRule:ListenerRule", "api", {
        "listenerArn": "arn:listener", "priority": 10.0,
        "actions": [{"type": "forward", "targetGroupArn": "arn:tg"}],
        "conditions": [{"pathPattern": {"values": ["/v1/*"]}}]},
        deps={"listenerArn": [listener], "actions": [tg]})
    asg = by_name(stack, "nodes")
    asg.props["targetGroupArns"] = ["arn:tg"]
    asg.deps["targetGroupArns"] = [tg]
    return stack + [alb, tg, listener, rule]


@pytest.mark.parametrize("internal, expect", [(False, "fail"), (True, "pass")],
                         ids=["internet-facing", "internal"])
def test_a_listener_rule_naming_its_listener_reaches_the_nodes(pack, internal, expect):
    """Internet-facing: the rule forwards /v1/* to the GPU group's target group: fail.
    Internal (the control): the same path from a private balancer: pass."""
    found = run(pack, _alb_in_front(internal), provider={"region": "us-east-1"})
    assert verdict(found, NPI) == expect, messages(found, NPI)
