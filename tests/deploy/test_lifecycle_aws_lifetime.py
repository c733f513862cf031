"""AWS enforces the declared lifetime itself: a scheduled action sets the node group to 0 at
first deploy + lifetime, and the deadline does not move on later `up`s."""
from datetime import datetime, timedelta, timezone

import pytest

from tests.conftest import edited, plan_for
from trainstack_components import lifetime

SCHEDULE = "aws:autoscaling/schedule:Schedule"
ASG = "aws:autoscaling/group:Group"
FIRST_DEPLOY = "2026-12-01T08:00:00Z"


def at(text):
    return lambda: lifetime.parse_iso(text)


@pytest.fixture
def clock(monkeypatch):
    def set_now(text):
        monkeypatch.setattr(lifetime, "utc_now", at(text))
    set_now("2026-12-01T09:30:00Z")
    return set_now


def started(spec, start=FIRST_DEPLOY):
    return plan_for(spec, "aws", extra_config={lifetime.LIFETIME_START_KEY: start})


def test_the_schedule_scales_the_group_to_zero_at_first_deploy_plus_lifetime(example_spec, clock):
    plan = started(example_spec)  # examples/cluster.yaml declares 96 hours
    (schedule,) = plan.of_type(SCHEDULE)
    (group,) = plan.of_type(ASG)
    assert schedule.inputs["startTime"] == "2026-12-05T08:00:00Z"
    assert (schedule.inputs["minSize"], schedule.inputs["maxSize"],
            schedule.inputs["desiredCapacity"]) == (0, 0, 0)
    assert schedule.property_dependencies["autoscalingGroupName"] == [group.urn]
    assert "recurrence" not in schedule.inputs  # one-off, not a daily stop
    assert plan.outputs["lifetime_deadline"] == "2026-12-05T08:00:00Z"
    assert plan.outputs["lifetime_start_source"] == lifetime.FROM_CONFIG


def test_later_ups_keep_the_deadline(example_spec, clock):
    first = started(example_spec).of_type(SCHEDULE)[0].inputs["startTime"]
    clock("2026-12-03T17:45:00Z")  # two days later, another `up`
    assert started(example_spec).of_type(SCHEDULE)[0].inputs["startTime"] == first


def test_a_longer_lifetime_counts_from_the_first_deploy(example_spec, clock):
    longer = edited(example_spec, workload__max_hours=120)
    assert started(longer).outputs["lifetime_deadline"] == "2026-12-06T08:00:00Z"


def test_top_level_max_hours_works_without_a_workload(example_spec, clock):
    spec = edited(example_spec, workload=None, max_hours=10)
    assert started(spec).of_type(SCHEDULE)[0].inputs["startTime"] == "2026-12-01T18:00:00Z"


def test_after_the_deadline_the_program_declares_no_nodes_and_no_schedule(example_spec, clock):
    clock("2026-12-05T08:00:01Z")
    plan = started(example_spec)
    assert plan.of_type(SCHEDULE) == []  # AWS rejects scheduled actions in the past
    group = plan.of_type(ASG)[0].inputs
    assert (group["minSize"], group["maxSize"], group["desiredCapacity"]) == (0, 0, 0)
    assert plan.outputs["lifetime_expired"] is True


def test_before_the_deadline_the_group_has_its_nodes(example_spec, clock):
    group = started(example_spec).of_type(ASG)[0].inputs
    assert group["desiredCapacity"] == example_spec["nodes"]


def test_without_a_lifetime_there_is_no_schedule(example_spec, clock):
    plan = plan_for(edited(example_spec, workload=None), "aws")
    assert plan.of_type(SCHEDULE) == [] and "lifetime_deadline" not in plan.outputs


def test_an_unpersisted_start_uses_the_clock_and_says_so(example_spec, clock):
    plan = plan_for(example_spec, "aws")
    assert plan.outputs["lifetime_deadline"] == "2026-12-05T09:30:00Z"
    assert plan.outputs["lifetime_start_source"] == lifetime.FROM_CLOCK


def test_a_clock_start_is_kept_by_a_plain_pulumi_up(example_spec, clock):
    (from_clock,) = plan_for(example_spec, "aws").of_type(SCHEDULE)
    (from_config,) = started(example_spec).of_type(SCHEDULE)
    assert from_clock.ignore_changes == ["startTime"] and not from_config.ignore_changes


def test_lifetime_arithmetic_handles_fractions_and_offsets():
    life = lifetime.lifetime_for(1.5, config_start="2026-12-01T10:00:00+01:00")
    assert lifetime.iso(life.deadline) == "2026-12-01T10:30:00Z"
    assert not life.expired(datetime(2026, 12, 1, 10, 29, tzinfo=timezone.utc))
    assert life.expired(life.deadline + timedelta(seconds=1))
    assert lifetime.lifetime_for(None) is None


def test_a_deadline_closer_than_a_deploy_is_scheduled_after_it_not_in_the_past(example_spec, clock):
    # First deploy 08:00 + 2 h; this `up` at 09:50: AWS rejects a start time in the past, and
    # the deploy may take until 10:20, so the action is set for 10:20.
    clock("2026-12-01T09:50:00Z")
    (schedule,) = started(edited(example_spec, workload__max_hours=2)).of_type(SCHEDULE)
    assert schedule.inputs["startTime"] == "2026-12-01T10:20:00Z"
