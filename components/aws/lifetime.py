"""The declared lifetime on AWS: a one-off scheduled action sets the node group to 0 at the deadline.

The deadline is `start + lifetime_hours`, where `start` is the first deploy. `trainstack up` writes
that moment into the stack's config (`trainstack:lifetimeStart`) the first time it deploys a stack
with a declared lifetime, so every later `up` computes the same deadline, and a changed
`max_hours` moves it relative to the first deploy, not to today. Without the key (a plain
`pulumi up`, an offline plan) the clock stands in and the output says so; the schedule then
ignores later changes of its start time, so a plain `pulumi up` keeps the first deadline too.

After the deadline AWS has already scaled the group to 0; the program then declares 0 nodes and
no schedule itself (AWS rejects a start time in the past), so a later `up` never brings the
nodes back by accident. Raise `max_hours` to get them back.
"""
from __future__ import annotations

from datetime import datetime
from typing import Callable, Optional

import pulumi
import pulumi_aws as aws

# The cloud-neutral part lives in components/lifetime.py; these names stay importable from here.
from components.lifetime import (  # noqa: F401
    FROM_CLOCK,
    FROM_CONFIG,
    LIFETIME_START_KEY,
    Lifetime,
    iso,
    lifetime_for,
    nodes_now,
    outputs,
    parse_iso,
    utc_now,
)
from components.lifetime import from_stack_config as _from_stack_config


def from_stack_config(hours: Optional[float], clock: Optional[Callable[[], datetime]] = None
                      ) -> Optional[Lifetime]:
    # `utc_now` looked up here at call time, so a test that patches this module's clock holds.
    return _from_stack_config(hours, clock or (lambda: utc_now()))


def enforce(parent: pulumi.Resource, name: str, group: aws.autoscaling.Group,
            lifetime: Optional[Lifetime], region: str, now: datetime) -> dict[str, object]:
    """Declare the scale-to-0 action; returns the outputs that show the deadline."""
    if lifetime is None:
        return {}
    if not lifetime.expired(now):
        aws.autoscaling.Schedule(
            f"{name}-lifetime-end", autoscaling_group_name=group.name,
            scheduled_action_name=f"{name}-lifetime-end", start_time=iso(lifetime.deadline),
            min_size=0, max_size=0, desired_capacity=0, region=region,
            opts=pulumi.ResourceOptions(
                parent=parent,
                ignore_changes=["startTime"] if lifetime.source == FROM_CLOCK else None))
    return outputs(lifetime, now)
