"""The pack on clusters whose capacity is bought ahead (issue 14 follow-up to issue 8).

A targeted AWS capacity reservation or Capacity Block, a GCP SPECIFIC reservation and an Alibaba
HPC cluster each fix where the nodes go, so rdma-for-multinode accepts them as placement; a GCP
flex-start group is created empty and grown by a ResizeRequest, so spend-limit counts the
request's nodes. Each case is rendered by the real components, then judged offline and over the
analyzer's gRPC protocol (tests/policy_harness.py), as `pulumi preview --policy-pack` would.
"""
from __future__ import annotations

import copy

import pytest

from tests.conftest import EXAMPLE, plan_for
from trainstack_policies.inventory import gpu_groups
from trainstack_policies.model import UNKNOWN_STRING_SENTINEL, from_plan
from trainstack_policies.runner import evaluate

RDMA = "rdma-for-multinode"
ODCR = "cr-0123456789abcdef0"
LT = "aws:ec2/launchTemplate:LaunchTemplate"
TEMPLATE = "gcp:compute/instanceTemplate:InstanceTemplate"
RESIZE = "gcp:compute/resizeRequest:ResizeRequest"
ALI_NODE = "alicloud:ecs/instance:Instance"


def _base() -> dict:
    import yaml
    return yaml.safe_load(EXAMPLE.read_text())


def _capacity(cloud: str, **capacity) -> dict:
    spec = _base()
    spec["clouds"][cloud]["capacity"] = capacity
    return spec


def _scc() -> dict:
    spec = _base()
    spec["gpu"] = ["A100-80GB"]
    spec["clouds"]["alicloud"].update(region="cn-beijing", zone="cn-beijing-i")
    return spec


SPECS = {
    "aws-reservation": (lambda: _capacity("aws", type="reservation", reservation=ODCR), "aws"),
    "aws-capacity-block": (lambda: _capacity("aws", type="capacity_block", reservation=ODCR),
                           "aws"),
    "gcp-reservation": (lambda: _capacity("gcp", type="reservation", reservation="a3u-block-1"),
                        "gcp"),
    "alicloud-scc": (_scc, "alicloud"),
}


@pytest.fixture(scope="module")
def plans():
    return {key: plan_for(make(), cloud) for key, (make, cloud) in SPECS.items()}


@pytest.fixture(scope="module")
def flex_plan():
    return plan_for(_capacity("gcp", type="flex_start"), "gcp")


def one(plan, token):
    [found] = plan.of_type(token)
    return found


def rdma_offline(plan):
    [verdict] = [v for v in evaluate(from_plan(plan)) if v.policy == RDMA]
    return verdict


# ------------------------------------------------------------------- what the plans contain

def test_the_plans_carry_the_reservation_and_no_placement_construct_of_their_own(plans):
    """The premise of the cases below: without reading the reservation the rule saw nothing."""
    for key in ("aws-reservation", "aws-capacity-block"):
        plan = plans[key]
        assert one(plan, LT).inputs["capacityReservationSpecification"] == {
            "capacityReservationTarget": {"capacityReservationId": ODCR}}
        assert plan.of_type("aws:ec2/placementGroup:PlacementGroup") == []
    gcp = plans["gcp-reservation"]
    assert one(gcp, TEMPLATE).inputs["reservationAffinity"]["type"] == "SPECIFIC_RESERVATION"
    assert gcp.of_type("gcp:compute/resourcePolicy:ResourcePolicy") == []
    nodes = plans["alicloud-scc"].of_type(ALI_NODE)
    assert len(nodes) == 2 and all("hpcClusterId" in n.inputs and "deploymentSetId" not in n.inputs
                                   for n in nodes)


# ------------------------------------------------------------------------ offline checker

@pytest.mark.parametrize("key", sorted(SPECS))
def test_reserved_or_hpc_placement_passes_rdma_offline(plans, key):
    verdict = rdma_offline(plans[key])
    assert (verdict.status, verdict.violations) == ("pass", [])


def test_without_the_reservation_target_the_aws_group_is_unplaced(plans):
    plan = copy.deepcopy(plans["aws-reservation"])
    del one(plan, LT).inputs["capacityReservationSpecification"]
    verdict = rdma_offline(plan)
    assert verdict.status == "fail"
    assert "not in a placement construct" in verdict.violations[0].message


def test_an_open_gcp_reservation_affinity_is_no_placement(plans):
    """ANY_RESERVATION may land on any capacity: it places nothing."""
    plan = copy.deepcopy(plans["gcp-reservation"])
    one(plan, TEMPLATE).inputs["reservationAffinity"] = {"type": "ANY_RESERVATION"}
    verdict = rdma_offline(plan)
    assert verdict.status == "fail"
    assert "COLLOCATED or HIGH_THROUGHPUT" in verdict.violations[0].message


def test_scc_nodes_outside_the_hpc_cluster_are_unplaced(plans):
    plan = copy.deepcopy(plans["alicloud-scc"])
    for node in plan.of_type(ALI_NODE):
        del node.inputs["hpcClusterId"]
        node.property_dependencies.pop("hpcClusterId", None)
    verdict = rdma_offline(plan)
    assert verdict.status == "fail" and len(verdict.violations) == 2
    assert "HPC cluster for SCC types" in verdict.violations[0].message


# -------------------------------------------------------------------------------- over gRPC

@pytest.mark.parametrize("key", sorted(SPECS))
def test_reserved_or_hpc_placement_gives_no_rdma_finding_over_grpc(pack, plans, key):
    pack.configure()
    assert [d for d in pack.analyze_plan(plans[key]) if d.policy == RDMA] == []


def test_a_reservation_id_unknown_at_preview_still_places_the_nodes(pack, plans):
    """A reservation created in the same stack has an ID only after apply; the target is set."""
    plan = copy.deepcopy(plans["aws-capacity-block"])
    one(plan, LT).inputs["capacityReservationSpecification"] = {
        "capacityReservationTarget": {"capacityReservationId": UNKNOWN_STRING_SENTINEL}}
    pack.configure()
    assert [d for d in pack.analyze_plan(plan) if d.policy == RDMA] == []


def test_grpc_reports_the_unplaced_cases(pack, plans):
    aws = copy.deepcopy(plans["aws-reservation"])
    del one(aws, LT).inputs["capacityReservationSpecification"]
    gcp = copy.deepcopy(plans["gcp-reservation"])
    one(gcp, TEMPLATE).inputs["reservationAffinity"] = {"type": "NO_RESERVATION"}
    pack.configure()
    for plan in (aws, gcp):
        found = [d for d in pack.analyze_plan(plan) if d.policy == RDMA]
        assert [d.level for d in found] == ["advisory"]
        assert "not in a placement construct" in found[0].message


# ------------------------------------------------------------------------ flex-start nodes

def test_flex_start_group_counts_the_resize_request_nodes(flex_plan):
    resize = one(flex_plan, RESIZE)
    assert one(flex_plan, "gcp:compute/instanceGroupManager:InstanceGroupManager"
               ).inputs["targetSize"] == 0
    [group] = gpu_groups(from_plan(flex_plan))
    assert group.count == resize.inputs["resizeBy"] == 2


def test_flex_start_nodes_are_priced_offline_and_over_grpc(pack, flex_plan):
    [spend] = [v for v in evaluate(from_plan(flex_plan)) if v.policy == "spend-limit"]
    assert spend.status == "pass"
    assert "2 x a3-ultragpu-8g" in spend.note and "96 h" in spend.note
    # A cap below two nodes for the enforced 96 h fails: the nodes are in the total.
    pack.configure({"spend-limit": {"maxMonthlyUsd": 10000}})
    found = [d for d in pack.analyze_plan(flex_plan) if d.policy == "spend-limit"]
    assert found and {d.level for d in found} == {"mandatory"}
    assert any("2 x a3-ultragpu-8g" in d.message for d in found)


def test_a_resize_unknown_at_preview_fails_closed_instead_of_counting_zero(flex_plan):
    plan = copy.deepcopy(flex_plan)
    one(plan, RESIZE).inputs["resizeBy"] = UNKNOWN_STRING_SENTINEL
    [group] = gpu_groups(from_plan(plan))
    assert group.count is None
    [spend] = [v for v in evaluate(from_plan(plan)) if v.policy == "spend-limit"]
    assert spend.status == "fail"
    assert "GPU capacity of a size unknown until apply" in spend.violations[0].message


# --------------------------------------------- each group finds its own schedule (the index)

def test_each_group_is_matched_to_its_own_stop_schedule_by_dependency_or_name():
    """The referrer index answers what a scan of the stack answered: a schedule stops the group
    it depends on or names, and no other group."""
    from tests.policy_fixtures import aws_cluster, hours_from_now, res, stop_schedule
    from trainstack_policies.inventory import Referrers, node_groups
    a = aws_cluster(max_hours=None)
    b = aws_cluster(max_hours=None)
    asg_a = next(r for r in a if r.type == "aws:autoscaling/group:Group")
    asg_b = next(r for r in b if r.type == "aws:autoscaling/group:Group")
    asg_b.name, asg_b.urn = "other-nodes", asg_b.urn + "-b"
    # Named by its own name input: a literal names only such a group (issue 35: an auto-named
    # group's cloud name is its resource name plus a random suffix).
    asg_b.props["name"] = "other-nodes"
    for r in (asg_a, asg_b):
        r.props["tags"].append({"key": "trainstack:max-hours", "value": "96",
                                "propagateAtLaunch": True})
    by_dep = stop_schedule(asg_a)
    by_name = res("aws:autoscaling/schedule:Schedule", "by-name",
                  {"autoscalingGroupName": "other-nodes", "desiredCapacity": 0.0,
                   "startTime": hours_from_now(96)})
    stack = a + b + [by_dep]
    hours = {g.resource.name: g.lifetime_hours for g in node_groups(stack)}
    assert hours == {"nodes": 96.0, "other-nodes": None}
    stack.append(by_name)
    hours = {g.resource.name: g.lifetime_hours for g in node_groups(stack)}
    assert hours == {"nodes": 96.0, "other-nodes": 96.0}
    index = Referrers(stack, "aws:autoscaling/schedule:Schedule", "autoscalingGroupName")
    assert index.of(asg_a) == [by_dep] and index.of(asg_b) == [by_name]
