"""The aws-native Classic Load Balancer in front of GPU nodes (lead, review85 DEFECT 1).

CloudFormation AWS::ElasticLoadBalancing::LoadBalancer Scheme: "internet-facing" unless
"internal" (the default is internet-facing), as the classic aws:elb's `internal` unset. So, with
review85's g4dn.xlarge registered in the balancer's `instances` (by dependency): the scheme left
out is internet-facing, a violation on the nodes; a scheme unknown at preview may be either:
"cannot decide" (docs: a balancer whose public side is unknown at preview is "cannot decide").
Planted: the balancer left out of public_entries' tiers -> both cases and review85 a17 a19 d1
pass silently (fail here).
"""
from __future__ import annotations

from tests.policies.test_policy_fix80 import unknown
from tests.policies.test_policy_review85 import NPI, _g4dn_behind, _run_case


def test_scheme_left_out_is_internet_facing(pack):
    _run_case(pack, ("l1", "aws", _g4dn_behind(True, None), {NPI: "fail"},
                     "aws-native classic ELB, no scheme: internet-facing"))


def test_scheme_unknown_at_preview_cannot_be_decided(pack):
    _run_case(pack, ("l2", "aws", _g4dn_behind(True, unknown()), {NPI: "undecided"},
                     "aws-native classic ELB, scheme unknown at preview"))
