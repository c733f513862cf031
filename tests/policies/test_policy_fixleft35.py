"""fixleft35: pack defects earlier sessions left open (issue 35), each test written and run
failing before its fix. Over gRPC, as `pulumi preview --policy-pack` drives the pack
(tests/policy_harness.py).

1. A scheduled Lambda whose input or environment the pack cannot read (JSON text nested past
   what json reads, or that does not parse) may start the nodes, so a stop before it is a pause
   (review35h l7b). Docs, lifetimes: "anything in the stack that starts them or may start them
   again after the stop's first run ... makes it a pause"; "Values unknown at preview": a value
   the pack cannot read never passes in silence. A readable text naming no tag leaves the stop,
   as a Lambda naming no tag does (review35h l1).
3. Reach gaps. (a) An AWS group or instance that names no subnet of its own launches into its
   launch template's interface subnet; one unknown at preview with no subnet of the stack
   behind it may be public. Docs, no-public-ingress: "A group whose subnets are unknown at
   preview with no subnet of the stack behind them ... is 'cannot decide': any AWS compute
   placed so". (b) A scale set whose singlePlacementGroup is unknown at preview (classic or
   azure-native) may be unplaced: "cannot decide", not the advisory "not placed" (docs,
   "Values unknown at preview": an unknown is asked about where it could hide a violation).

Figures from policies/catalog_data/prices.csv, on-demand USD/h: p4d.24xlarge us-east-1 21.9576
(the stop 30 h away: 21.9576 x 30 = 658.73; the month: 21.9576 x 730 = 16,029.05).
"""
from __future__ import annotations

import json

import pytest

from tests.policies.test_policy_fix48 import _windows_vmss
from tests.policies.test_policy_review35d import estimate, near
from tests.policies.test_policy_review35f import AWS
from tests.policies.test_policy_review35h import POOL, _lambda_stack
from tests.policies.test_policy_review48 import classic_vmss
from tests.policies.test_policy_review51 import (
    AZ, NPI, RDMA, UNKNOWN, asg, aws_budget, az_budget, box, check, lt, subnet,
)
from tests.policy_fixtures import OWNER_TAGS

P4D = 21.9576
NODE_TAGS = {**OWNER_TAGS, **POOL}
# JSON nested 5,000 lists deep (json.loads: RecursionError), the node's tag at the bottom, and
# the same nesting around a tag the node does not carry: unreadable either way.
DEEP = "[" * 5000 + json.dumps({"tag:gpu-pool": "a100-nightly"}) + "]" * 5000
DEEP_OTHER = "[" * 5000 + json.dumps({"tag:gpu-pool": "h100-daytime"}) + "]" * 5000
BROKEN = '{"Filters": [{"Name": "tag:gpu-pool", "Values": ["a100-nightly"]'   # cut short


# ===================================== 1. an input the pack cannot read may start the nodes

@pytest.mark.parametrize("raw", [DEEP, DEEP_OTHER, BROKEN], ids=["deep", "deep-other", "broken"])
def test_1a_a_schedule_input_the_pack_cannot_read_makes_the_stop_a_pause(pack, raw):
    # Expected: the month, 21.9576 x 730 = 16,029.05: what the Lambda is given cannot be read,
    # so it may name the node's tag (or its id); the stop 30 h away is a pause.
    stack = _lambda_stack(NODE_TAGS, raw=raw)
    assert near(estimate(pack, stack, AWS), P4D * 730)


def test_1b_an_environment_variable_the_pack_cannot_read_makes_the_stop_a_pause(pack):
    # Expected: the month, 16,029.05: a variable holding JSON too deep to parse, as 1a.
    stack = _lambda_stack(NODE_TAGS, {"TAG_FILTERS": DEEP, "SLACK_CHANNEL": "#ml-costs"})
    assert near(estimate(pack, stack, AWS), P4D * 730)


@pytest.mark.parametrize("raw", ["nightly cost report", '{"report": "nightly", "depth": [[1]]}'],
                         ids=["text", "json"])
def test_1c_a_readable_input_naming_no_tag_leaves_the_stop(pack, raw):
    # Expected: 30 h, 21.9576 x 30 = 658.73: plain text, or JSON that parses, naming no tag of
    # the node: the Lambda names nothing the pack reads as finding the node (review35h l1's
    # rule), so the control for 1a stays a stop.
    stack = _lambda_stack(NODE_TAGS, raw=raw)
    assert near(estimate(pack, stack, AWS), P4D * 30)


# ====================== 3a. a group with no subnet of its own, on its template's unknown subnet

def _on_template_subnet(nic, kind="asg"):
    """2 x g5.xlarge (1.006 USD/h, no EFA: rdma not asked), the group naming only a zone, the
    launch template's one interface `nic`. 2 x 1.006 x 730 = 1,468.76 < 20,000: spend pass."""
    t = lt("lt-g5", "g5.xlarge", networkInterfaces=[{"deviceIndex": 0.0, **nic}])
    if kind == "asg":
        g = asg("g5-group", t, [], 2, availabilityZones=["us-east-1a"])
        del g.props["vpcZoneIdentifiers"]
        g.deps.pop("vpcZoneIdentifiers")
    else:
        g = box("g5-box", "g5.xlarge", subnet(), deps={"launchTemplate": [t]},
                launchTemplate={"id": "lt-g5-id", "version": "$Latest"})
        for key in ("subnetId", "associatePublicIpAddress"):
            del g.props[key]
        g.deps.pop("subnetId")
    return [t, g, aws_budget()]


def test_3a_a_group_on_its_templates_unknown_subnet_is_cannot_decide(pack):
    # Expected: no-public-ingress "cannot decide" (undecided); every other policy passes.
    found = check(pack, _on_template_subnet({"subnetId": UNKNOWN}), {"region": "us-east-1"},
                  {NPI: "undecided"})
    assert any("networkInterfaces" in d.message for d in found if d.policy == NPI), found


def test_3a_an_instance_on_its_templates_unknown_subnet_is_cannot_decide(pack):
    # Expected: as the group: an instance with no subnetId launches into the template's.
    check(pack, _on_template_subnet({"subnetId": UNKNOWN}, kind="instance"),
          {"region": "us-east-1"}, {NPI: "undecided"})


def test_3a_controls_the_template_declines_public_ips_or_names_a_stack_subnet(pack):
    # Expected: pass. associatePublicIpAddress false on the interface overrides the subnet's
    # mapPublicIpOnLaunch; a private subnet of the stack behind the interface is known.
    check(pack, _on_template_subnet({"subnetId": UNKNOWN, "associatePublicIpAddress": "false"}),
          {"region": "us-east-1"}, {})
    sn = subnet()
    stack = _on_template_subnet({"subnetId": UNKNOWN})
    stack[0].deps["networkInterfaces"] = [sn]
    check(pack, [sn, *stack], {"region": "us-east-1"}, {})


# ================================ 3b. a scale set whose singlePlacementGroup is unknown at preview

def test_3b_a_classic_set_whose_single_placement_group_is_unknown_is_cannot_decide(pack):
    # Expected: rdma-for-multinode "cannot decide" (undecided): 2 x Standard_ND96isr_H100_v5
    # (InfiniBand) may be one placement group or not. 2 x 98.32 x 730 = 143,547.20 < 200,000:
    # spend pass.
    check(pack, [_windows_vmss("train-win", 2, singlePlacementGroup=UNKNOWN),
                 az_budget(amount=200000.0)], AZ, {RDMA: "undecided"})
    s = classic_vmss("train", "Standard_ND96isr_H100_v5", 2)
    s.props["singlePlacementGroup"] = UNKNOWN
    check(pack, [s, az_budget(amount=200000.0)], AZ, {RDMA: "undecided"})
