"""The declared lifetime on AWS: a one-off scheduled action sets the node group to 0 at the deadline.

components/lifetime.py has the deadline's rules (first deploy + lifetime, persisted by
`trainstack up`). Without a persisted start (a plain `pulumi up`, an offline plan) the clock
stands in; the schedule then ignores later changes of its start time, so a plain `pulumi up`
keeps the first deadline too.

After the deadline AWS has already scaled the group to 0; the program then declares 0 nodes and
no schedule itself (AWS rejects a start time in the past), so a later `up` never brings the
nodes back by accident. Raise `max_hours` to get them back.
"""
from __future__ import annotations

from datetime import datetime
from typing import Optional

import pulumi
import pulumi_aws as aws

from trainstack_components.lifetime import FROM_CLOCK, Lifetime, check, iso, outputs, schedule_time


def enforce(parent: pulumi.Resource, name: str, group: aws.autoscaling.Group,
            lifetime: Optional[Lifetime], region: str, now: datetime) -> dict[str, object]:
    """Declare the scale-to-0 action; returns the outputs that show the deadline."""
    if lifetime is None:
        return {}
    check(lifetime, "aws")
    if not lifetime.expired(now):
        aws.autoscaling.Schedule(
            f"{name}-lifetime-end", autoscaling_group_name=group.name,
            scheduled_action_name=f"{name}-lifetime-end",
            # A deadline closer than a deploy: AWS rejects a start time in the past.
            start_time=iso(schedule_time(lifetime, now)),
            min_size=0, max_size=0, desired_capacity=0, region=region,
            opts=pulumi.ResourceOptions(
                parent=parent,
                ignore_changes=["startTime"] if lifetime.source == FROM_CLOCK else None))
    return outputs(lifetime, now)
