"""Capacity a cloud really sells (issue 8), under the mock engine: for each capacity type on AWS
and Google Cloud the exact inputs, and each impossible request refused before any resource."""
import copy

import pytest
from typer.testing import CliRunner

from tests.conftest import ROOT, assert_clean_error, one, plan_for, write_spec
from trainstack.cli.app import app
from trainstack_components.errors import SpecError

runner = CliRunner()

LT = "aws:ec2/launchTemplate:LaunchTemplate"
ASG = "aws:autoscaling/group:Group"
PG = "aws:ec2/placementGroup:PlacementGroup"
TEMPLATE = "gcp:compute/instanceTemplate:InstanceTemplate"
MIG = "gcp:compute/instanceGroupManager:InstanceGroupManager"
POLICY = "gcp:compute/resourcePolicy:ResourcePolicy"
RESIZE = "gcp:compute/resizeRequest:ResizeRequest"
PSA = "gcp:servicenetworking/connection:Connection"
ODCR = "cr-0123456789abcdef0"


def with_capacity(spec, cloud, **capacity):
    spec = copy.deepcopy(spec)
    spec["clouds"][cloud]["capacity"] = capacity
    return spec


def a4(spec):
    spec = copy.deepcopy(spec)
    spec["gpu"] = ["B200"]
    spec["clouds"]["gcp"].update(region="us-central1", zone="us-central1-b", instance_type=None)
    return spec


def a3_mega(spec):
    spec = copy.deepcopy(spec)
    spec["gpu"] = ["H100"]
    spec["clouds"]["gcp"].update(region="us-east4", zone="us-east4-a",
                                 instance_type="a3-megagpu-8g")
    return spec


# ------------------------------------------------------------------------------------ AWS

def test_aws_on_demand_has_a_cluster_placement_group_and_no_capacity_inputs(example_spec):
    plan = plan_for(example_spec, "aws")
    lt, asg, pg = one(plan, LT), one(plan, ASG), one(plan, PG)
    assert "instanceMarketOptions" not in lt.inputs
    assert "capacityReservationSpecification" not in lt.inputs
    assert asg.property_dependencies["placementGroup"] == [pg.urn]


def test_aws_reservation_targets_the_odcr_without_a_placement_group(example_spec):
    plan = plan_for(with_capacity(example_spec, "aws", type="reservation", reservation=ODCR), "aws")
    lt, asg = one(plan, LT), one(plan, ASG)
    assert lt.inputs["capacityReservationSpecification"] == {
        "capacityReservationTarget": {"capacityReservationId": ODCR}}
    assert "instanceMarketOptions" not in lt.inputs
    assert plan.of_type(PG) == [] and "placementGroup" not in asg.inputs
    assert plan.outputs["placement_group"] is None and plan.outputs["capacity"] == "reservation"


def test_aws_capacity_block_is_a_market_type_plus_the_reservation_target(example_spec):
    plan = plan_for(with_capacity(example_spec, "aws", type="capacity_block", reservation=ODCR),
                    "aws")
    lt = one(plan, LT)
    assert lt.inputs["instanceMarketOptions"] == {"marketType": "capacity-block"}
    assert lt.inputs["capacityReservationSpecification"] == {
        "capacityReservationTarget": {"capacityReservationId": ODCR}}
    assert plan.of_type(PG) == []


def test_aws_spot_per_cloud_capacity_equals_the_top_level_shorthand(example_spec):
    shorthand = copy.deepcopy(example_spec)
    shorthand["spot"] = True
    for spec in (shorthand, with_capacity(example_spec, "aws", type="spot")):
        plan = plan_for(spec, "aws")
        assert one(plan, LT).inputs["instanceMarketOptions"] == {"marketType": "spot"}
        assert len(plan.of_type(PG)) == 1


def test_aws_group_uses_the_fixed_launch_template_version(example_spec):
    plan = plan_for(example_spec, "aws")
    lt, asg = one(plan, LT), one(plan, ASG)
    version = asg.inputs["launchTemplate"]["version"]
    assert version == "1" and version != "$Latest"
    assert lt.urn in asg.property_dependencies["launchTemplate"]
    assert plan.outputs["launch_template_version"] == 1


def test_aws_image_is_pinned_in_stack_config_once_resolved(example_spec):
    plan = plan_for(example_spec, "aws")
    assert one(plan, LT).inputs["imageId"] == plan.outputs["image"] == "ami-0offline000000000"
    assert "pins it as trainstack:image" in plan.outputs["image_pin"]
    plan = plan_for(example_spec, "aws", extra_config={"trainstack:image": "ami-0pinned0000000001"})
    assert one(plan, LT).inputs["imageId"] == "ami-0pinned0000000001"
    assert plan.outputs["image_pin"] == "pinned in stack config (trainstack:image)"


def test_aws_held_group_is_sized_to_zero_for_the_scale_back(example_spec):
    asg = one(plan_for(example_spec, "aws", extra_config={"trainstack:holdNodes": "true"}), ASG)
    assert asg.inputs["minSize"] == asg.inputs["desiredCapacity"] == 0
    assert asg.inputs["maxSize"] == 2


@pytest.mark.parametrize("spec_edit, fragment", [
    ({"type": "flex_start"}, "'flex_start' is not something aws sells"),
    ({"type": "reservation", "reservation": "my-odcr"}, "is not a capacity reservation ID"),
])
def test_aws_refuses_what_it_does_not_sell(example_spec, spec_edit, fragment):
    with pytest.raises(SpecError) as err:
        plan_for(with_capacity(example_spec, "aws", **spec_edit), "aws")
    assert fragment in str(err.value)


def test_aws_capacity_block_refused_on_a_type_without_blocks(example_spec):
    spec = with_capacity(example_spec, "aws", type="capacity_block", reservation=ODCR)
    spec["gpu"] = ["A100-80GB"]
    with pytest.raises(SpecError) as err:
        plan_for(spec, "aws")
    text = str(err.value)
    assert "p4de.24xlarge (A100-80GB) is not sold as capacity_block on aws" in text
    assert "clouds.aws.capacity.type" in text and "reservation: cr-..." in text


def test_no_plan_contains_a_cost_allocation_tag(example_spec):
    for cloud in ("aws", "gcp"):
        plan = plan_for(example_spec, cloud)
        assert not [r for r in plan.resources if r.type.startswith("aws:costexplorer/")]


# ------------------------------------------------------------------------------------ GCP

@pytest.mark.parametrize("make", [lambda s: s, a4], ids=["a3-ultragpu-8g", "a4-highgpu-8g"])
def test_gcp_on_demand_a3_ultra_and_a4_exit_2_naming_the_three_ways(example_spec, tmp_path, make):
    spec = make(example_spec)
    spec["clouds"]["gcp"].pop("capacity")
    result = runner.invoke(app, ["plan", "--spec", str(write_spec(tmp_path, spec)),
                                 "--cloud", "gcp"])
    assert_clean_error(result, "clouds.gcp.capacity.type", "is not sold as on_demand",
                       "{type: reservation, reservation: <reservation name or id>}",
                       "{type: flex_start} plus max_hours", "{type: spot}")


def test_gcp_spot_is_spot_with_termination_action_and_a_workload_policy(example_spec):
    plan = plan_for(example_spec, "gcp")  # the example: clouds.gcp.capacity {type: spot}
    scheduling = one(plan, TEMPLATE).inputs["scheduling"]
    assert scheduling["provisioningModel"] == "SPOT" and scheduling["preemptible"] is True
    assert scheduling["instanceTerminationAction"] == "DELETE"
    assert "reservationAffinity" not in one(plan, TEMPLATE).inputs
    assert one(plan, POLICY).inputs["workloadPolicy"] == {"type": "HIGH_THROUGHPUT",
                                                        "maxTopologyDistance": "BLOCK"}
    assert plan.of_type(RESIZE) == []


def test_gcp_reservation_is_reservation_bound_to_the_named_reservation(example_spec):
    plan = plan_for(with_capacity(example_spec, "gcp", type="reservation",
                                  reservation="a3u-block-1"), "gcp")
    template = one(plan, TEMPLATE)
    scheduling = template.inputs["scheduling"]
    assert scheduling["provisioningModel"] == "RESERVATION_BOUND"
    assert scheduling["instanceTerminationAction"] == "DELETE"
    assert "maxRunDuration" not in scheduling  # the reservation is paid whole; it ends the VMs
    assert template.inputs["reservationAffinity"] == {
        "type": "SPECIFIC_RESERVATION",
        "specificReservation": {"key": "compute.googleapis.com/reservation-name",
                                "values": ["a3u-block-1"]}}
    # The reservation's dense placement fixes where the VMs go: no workload policy on top.
    assert plan.of_type(POLICY) == [] and "resourcePolicies" not in one(plan, MIG).inputs
    assert plan.outputs["placement_group"] is None


def test_gcp_reservation_on_a3_mega_is_standard_with_specific_affinity(example_spec):
    spec = with_capacity(a3_mega(example_spec), "gcp", type="reservation", reservation="mega-r")
    template = one(plan_for(spec, "gcp"), TEMPLATE)
    assert template.inputs["scheduling"]["provisioningModel"] == "STANDARD"
    assert template.inputs["reservationAffinity"]["specificReservation"]["values"] == ["mega-r"]


def test_gcp_flex_start_grows_an_empty_group_with_one_resize_request(example_spec):
    spec = with_capacity(example_spec, "gcp", type="flex_start")
    plan = plan_for(spec, "gcp")
    template, mig, resize = one(plan, TEMPLATE), one(plan, MIG), one(plan, RESIZE)
    scheduling = template.inputs["scheduling"]
    assert scheduling["provisioningModel"] == "FLEX_START"
    assert scheduling["maxRunDuration"] == {"seconds": 96 * 3600}
    assert scheduling["instanceTerminationAction"] == "DELETE"
    assert scheduling["automaticRestart"] is False
    assert template.inputs["reservationAffinity"] == {"type": "NO_RESERVATION"}
    assert mig.inputs["targetSize"] == 0 and mig.inputs["waitForInstances"] is False
    assert mig.inputs["instanceLifecyclePolicy"] == {"defaultActionOnFailure": "DO_NOTHING"}
    assert resize.inputs["resizeBy"] == 2 and resize.inputs["zone"] == "us-central1-b"
    assert resize.property_dependencies["instanceGroupManager"] == [mig.urn]
    assert plan.outputs["capacity_request"] == resize.name


def test_gcp_flex_start_needs_a_lifetime_of_at_most_seven_days(example_spec):
    spec = with_capacity(example_spec, "gcp", type="flex_start")
    spec["workload"].pop("max_hours")
    with pytest.raises(SpecError) as err:
        plan_for(spec, "gcp")
    assert "max_hours" in str(err.value) and "flex_start" in str(err.value)
    spec["max_hours"] = 200
    with pytest.raises(SpecError) as err:
        plan_for(spec, "gcp")
    assert "168" in str(err.value)


def test_gcp_top_level_max_hours_limits_on_demand_nodes(example_spec):
    spec = a3_mega(example_spec)
    spec["clouds"]["gcp"].pop("capacity")
    spec["workload"].pop("max_hours")
    scheduling = one(plan_for(spec, "gcp"), TEMPLATE).inputs["scheduling"]
    assert "maxRunDuration" not in scheduling and "instanceTerminationAction" not in scheduling
    spec["max_hours"] = 12
    scheduling = one(plan_for(spec, "gcp"), TEMPLATE).inputs["scheduling"]
    assert scheduling["maxRunDuration"] == {"seconds": 12 * 3600}
    assert scheduling["instanceTerminationAction"] == "DELETE"


def test_gcp_refuses_capacity_blocks_naming_what_it_sells(example_spec):
    with pytest.raises(SpecError) as err:
        plan_for(with_capacity(example_spec, "gcp", type="capacity_block", reservation="x"), "gcp")
    assert "'capacity_block' is not something gcp sells; it offers on_demand, spot, " \
           "reservation, flex_start" in str(err.value)


def test_gcp_bad_reservation_name_is_refused(example_spec):
    with pytest.raises(SpecError) as err:
        plan_for(with_capacity(example_spec, "gcp", type="reservation", reservation="My Res"),
                 "gcp")
    assert "clouds.gcp.capacity.reservation" in str(err.value)


def test_gcp_private_service_access_abandons_on_delete(example_spec):
    psa = one(plan_for(example_spec, "gcp"), PSA)
    assert psa.inputs["deletionPolicy"] == "ABANDON"


def test_gcp_held_group_is_empty_and_asks_for_no_capacity(example_spec):
    spec = with_capacity(example_spec, "gcp", type="flex_start")
    plan = plan_for(spec, "gcp", extra_config={"trainstack:holdNodes": "true"})
    assert one(plan, MIG).inputs["targetSize"] == 0 and plan.of_type(RESIZE) == []
    plan = plan_for(example_spec, "gcp", extra_config={"trainstack:holdNodes": "true"})
    assert one(plan, MIG).inputs["targetSize"] == 0


def test_capacity_data_names_catalog_types_known_capacity_types_and_a_source():
    from typing import get_args

    from trainstack_components import catalog
    from trainstack_components.spec import CapacityType
    known = set(get_args(CapacityType))
    # every fact names a catalog type, and every AWS/GCP type of a GPU the sizing knows (the
    # training GPUs of gpu_models.csv) that the planner picks by itself has its facts; the
    # inference types priced for the policy pack (issue 35: g5, g6, L4, T4...) sell on demand
    import csv
    with (ROOT / "components" / "catalog" / "gpu_models.csv").open() as handle:
        training = {row["gpu"] for row in csv.DictReader(handle)}
    every = {(t.cloud, t.name) for t in catalog.instance_types()}
    picked = {(t.cloud, t.name) for t in catalog.instance_types()
              if t.auto_choice and t.gpu in training and t.cloud in ("aws", "gcp")}
    facts = catalog.capacity_facts()
    named = {(f.cloud, f.instance_type) for f in facts}
    assert named <= every
    assert picked <= named, sorted(picked - named)
    for fact in facts:
        assert set(fact.types) <= known and fact.types, fact
        assert fact.source and fact.as_of, fact
        assert (fact.reservation_model in ("STANDARD", "RESERVATION_BOUND")) == (fact.cloud == "gcp")
    assert "on_demand" not in catalog.capacity_fact("gcp", "a3-ultragpu-8g").types
    assert "on_demand" not in catalog.capacity_fact("gcp", "a4-highgpu-8g").types
