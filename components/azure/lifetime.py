"""The declared lifetime on Azure: an autoscale setting on the scale set whose fixed-date profile
holds the capacity at 0 from the deadline (components/lifetime.py has the deadline's rules).

Azure autoscale (learn.microsoft.com azure-monitor autoscale-understanding-settings): the
setting's fixed-date profile wins over the default profile inside its window, and a profile
without rules keeps the instance count between its minimum and maximum. So:
- the default profile is 0..nodes with no rules: it never changes a running cluster (nor one
  scaled by hand within that range), and after the fixed window it keeps a stopped set stopped;
- the `lifetime-end` profile is 0..0 from the deadline: Azure deallocates every node then, with
  no trainstack process running. Data in the bucket and the filesystem are not touched.

The token is azure-native v3's `monitor:AutoscaleSetting` (v2's `insights` module is gone from the
SDK; the policy pack's enforced-lifetime check accepts both).
"""
from __future__ import annotations

from datetime import datetime, timedelta
from typing import Optional

import pulumi
from pulumi_azure_native import monitor

from components.lifetime import FROM_CLOCK, Lifetime, iso, outputs

# How long the 0-capacity window lasts; after it the default profile's 0..nodes keeps 0.
HOLD_AT_ZERO = timedelta(days=365)
PROFILE = "lifetime-end"


def profiles(lifetime: Lifetime, nodes: int) -> list[monitor.AutoscaleProfileArgs]:
    return [
        monitor.AutoscaleProfileArgs(
            name="declared-nodes", rules=[],
            capacity=monitor.ScaleCapacityArgs(minimum="0", maximum=str(nodes),
                                               default=str(nodes))),
        monitor.AutoscaleProfileArgs(
            name=PROFILE, rules=[],
            capacity=monitor.ScaleCapacityArgs(minimum="0", maximum="0", default="0"),
            fixed_date=monitor.TimeWindowArgs(start=iso(lifetime.deadline),
                                              end=iso(lifetime.deadline + HOLD_AT_ZERO),
                                              time_zone="UTC")),
    ]


def enforce(parent: pulumi.Resource, name: str, scale_set, resource_group, location: str,
            nodes: int, lifetime: Optional[Lifetime], now: datetime,
            tags: dict[str, str]) -> dict[str, object]:
    """Declare the scale-in at the deadline; returns the outputs that show it."""
    if lifetime is None:
        return {}
    if not lifetime.expired(now):
        monitor.AutoscaleSetting(
            f"{name}-lifetime", autoscale_setting_name=f"{name}-lifetime",
            resource_group_name=resource_group, location=location, enabled=True,
            target_resource_uri=scale_set.id, profiles=profiles(lifetime, nodes), tags=tags,
            opts=pulumi.ResourceOptions(
                parent=parent,
                # Without a persisted start a plain `pulumi up` would move the deadline.
                ignore_changes=["profiles"] if lifetime.source == FROM_CLOCK else None))
    return {**outputs(lifetime, now),
            "lifetime_enforcement": f"autoscale setting {name}-lifetime: profile {PROFILE} "
                                    f"holds the scale set at 0 from {iso(lifetime.deadline)}"}
