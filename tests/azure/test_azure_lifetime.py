"""Azure enforces the declared lifetime itself (issues 13, 21): an autoscale setting on the scale
set whose DEFAULT profile is 0..0 (default 0) and whose only window is [first deploy, first deploy
+ lifetime); the deadline does not move on later `up`s, and once passed the program declares 0
nodes and a setting with no window at all."""

import pytest

from tests.conftest import edited, plan_for
from trainstack_components import lifetime
from trainstack_policies.inventory import AZ_AUTOSCALE

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


ZERO = {"minimum": "0", "maximum": "0", "default": "0"}


def test_the_scale_set_is_held_at_zero_from_first_deploy_plus_lifetime(example_spec, clock):
    plan = started(example_spec)  # examples/cluster.yaml declares 96 hours
    (setting,) = plan.of_type(AUTOSCALE)
    (vmss,) = plan.of_type(VMSS)
    assert setting.inputs["enabled"] is True
    assert setting.property_dependencies["targetResourceUri"] == [vmss.urn]
    profiles = _profiles(setting)
    # The default profile (no window, no end) holds 0: nothing after the deadline brings it back.
    held = profiles["lifetime-over"]
    assert held["capacity"] == ZERO and held["rules"] == []
    assert "fixedDate" not in held and "recurrence" not in held
    # The lifetime's window: never raises a set scaled down by hand (default 0 <= any count),
    # never lowers a running one (inside 0..nodes).
    window = profiles["declared-nodes"]
    assert window["capacity"] == {"minimum": "0", "maximum": "2", "default": "0"}
    assert window["fixedDate"] == {"start": FIRST_DEPLOY, "end": "2026-12-05T08:00:00Z",
                                   "timeZone": "UTC"}
    assert window["rules"] == []
    assert plan.outputs["lifetime_deadline"] == "2026-12-05T08:00:00Z"
    assert plan.outputs["lifetime_start_source"] == lifetime.FROM_CONFIG
    assert vmss.inputs["sku"]["capacity"] == 2


def test_a_later_up_keeps_the_first_deadline(example_spec, clock):
    clock("2026-12-03T17:00:00Z")
    (setting,) = started(example_spec).of_type(AUTOSCALE)
    assert _profiles(setting)["declared-nodes"]["fixedDate"]["end"] == "2026-12-05T08:00:00Z"
    longer = started(edited(example_spec, workload__max_hours=120))
    (setting,) = longer.of_type(AUTOSCALE)
    assert _profiles(setting)["declared-nodes"]["fixedDate"]["end"] == "2026-12-06T08:00:00Z"


def test_after_the_deadline_the_plan_declares_no_nodes_and_no_window(example_spec, clock):
    clock("2026-12-05T08:00:01Z")
    plan = started(example_spec)
    (vmss,) = plan.of_type(VMSS)
    assert vmss.inputs["sku"]["capacity"] == 0
    # The setting stays, holding 0 with no window that could let the set come back.
    (setting,) = plan.of_type(AUTOSCALE)
    assert [p["name"] for p in setting.inputs["profiles"]] == ["lifetime-over"]
    assert setting.inputs["profiles"][0]["capacity"] == ZERO
    assert plan.outputs["lifetime_expired"] is True


def test_no_profile_ever_has_a_default_above_zero(example_spec, clock):
    for now in ("2026-12-01T09:30:00Z", "2026-12-09T00:00:00Z"):
        clock(now)
        (setting,) = started(example_spec).of_type(AUTOSCALE)
        assert all(p["capacity"]["default"] == "0" for p in setting.inputs["profiles"])


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
