"""Azure enforces the declared lifetime itself (issue 13): an autoscale setting on the scale set
whose fixed-date profile holds it at 0 from first deploy + lifetime; the deadline does not move
on later `up`s, and once passed the program declares 0 nodes."""
from datetime import timedelta

import pytest

from components import lifetime
from policies.inventory import AZ_AUTOSCALE
from tests.conftest import edited, plan_for

AUTOSCALE = "azure-native:monitor:AutoscaleSetting"
VMSS = "azure-native:compute:VirtualMachineScaleSet"
FIRST_DEPLOY = "2026-12-01T08:00:00Z"


@pytest.fixture
def clock(monkeypatch):
    def set_now(text):
        monkeypatch.setattr(lifetime, "utc_now", lambda: lifetime.parse_iso(text))
    set_now("2026-12-01T09:30:00Z")
    return set_now


def started(spec, start=FIRST_DEPLOY):
    return plan_for(spec, "azure", extra_config={lifetime.LIFETIME_START_KEY: start})


def _profiles(setting) -> dict[str, dict]:
    return {p["name"]: p for p in setting.inputs["profiles"]}


def test_the_token_is_one_the_policy_pack_accepts():
    assert AUTOSCALE in AZ_AUTOSCALE


def test_the_scale_set_is_held_at_zero_from_first_deploy_plus_lifetime(example_spec, clock):
    plan = started(example_spec)  # examples/cluster.yaml declares 96 hours
    (setting,) = plan.of_type(AUTOSCALE)
    (vmss,) = plan.of_type(VMSS)
    assert setting.inputs["enabled"] is True
    assert setting.property_dependencies["targetResourceUri"] == [vmss.urn]
    end = _profiles(setting)["lifetime-end"]
    assert end["capacity"] == {"minimum": "0", "maximum": "0", "default": "0"}
    assert end["fixedDate"]["start"] == "2026-12-05T08:00:00Z"
    assert end["fixedDate"]["timeZone"] == "UTC" and end["rules"] == []
    # The default profile never moves a running cluster, and keeps a stopped one stopped.
    default = _profiles(setting)["declared-nodes"]
    assert default["capacity"] == {"minimum": "0", "maximum": "2", "default": "2"}
    assert "fixedDate" not in default and "recurrence" not in default
    assert plan.outputs["lifetime_deadline"] == "2026-12-05T08:00:00Z"
    assert plan.outputs["lifetime_start_source"] == lifetime.FROM_CONFIG
    assert vmss.inputs["sku"]["capacity"] == 2


def test_a_later_up_keeps_the_first_deadline(example_spec, clock):
    clock("2026-12-03T17:00:00Z")
    (setting,) = started(example_spec).of_type(AUTOSCALE)
    assert _profiles(setting)["lifetime-end"]["fixedDate"]["start"] == "2026-12-05T08:00:00Z"
    longer = started(edited(example_spec, workload__max_hours=120))
    (setting,) = longer.of_type(AUTOSCALE)
    assert _profiles(setting)["lifetime-end"]["fixedDate"]["start"] == "2026-12-06T08:00:00Z"


def test_after_the_deadline_the_plan_declares_no_nodes(example_spec, clock):
    clock("2026-12-05T08:00:01Z")
    plan = started(example_spec)
    (vmss,) = plan.of_type(VMSS)
    assert vmss.inputs["sku"]["capacity"] == 0
    assert plan.of_type(AUTOSCALE) == []
    assert plan.outputs["lifetime_expired"] is True


def test_without_a_persisted_start_the_clock_stands_in_and_the_profile_is_left_alone(
        example_spec, clock):
    plan = plan_for(example_spec, "azure")
    (setting,) = plan.of_type(AUTOSCALE)
    assert plan.outputs["lifetime_start"] == "2026-12-01T09:30:00Z"
    assert plan.outputs["lifetime_start_source"] == lifetime.FROM_CLOCK
    assert setting.ignore_changes == ["profiles"]
    assert not started(example_spec).of_type(AUTOSCALE)[0].ignore_changes


def test_without_a_declared_lifetime_nothing_scales_the_set_in(example_spec):
    spec = edited(example_spec, workload__max_hours=None)
    plan = plan_for(spec, "azure")
    assert plan.of_type(AUTOSCALE) == []
    assert "lifetime_deadline" not in plan.outputs


def test_the_hold_window_ends_well_after_the_deadline(example_spec, clock):
    (setting,) = started(example_spec).of_type(AUTOSCALE)
    window = _profiles(setting)["lifetime-end"]["fixedDate"]
    span = lifetime.parse_iso(window["end"]) - lifetime.parse_iso(window["start"])
    assert span >= timedelta(days=30)
