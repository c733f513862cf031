"""The declared lifetime on Azure: an autoscale setting on the scale set that holds it at 0 from
the deadline on, for good (components/lifetime.py has the deadline's rules).

Azure autoscale (learn.microsoft.com azure-monitor autoscale-understanding-settings, and the
AutoscaleProfile reference of the Monitor API 2022-10-01): a fixed-date profile wins over the
default profile inside its window, outside every window the default profile applies, and a
profile's `default` capacity "is only used if the current instance count is lower than the
default". So:
- the DEFAULT profile (the one without a window) is 0..0, default 0: before the first deploy's
  start and after the deadline, with no end date, autoscale holds the set at 0 and nothing lets
  it come back;
- the `declared-nodes` profile holds the window [start, deadline): 0..nodes with default 0 and no
  rules, so autoscale never raises a set someone scaled down by hand (default 0 is never above
  the current count) and never lowers a running one (it is inside 0..nodes).
Azure deallocates every node at the deadline with no trainstack process running. Data in the
bucket and the filesystem are not touched; scale-in unmounts Lustre first (components/azure/
boot.py, the Terminate scheduled event).

The token is azure-native v3's `monitor:AutoscaleSetting` (v2's `insights` module is gone from the
SDK; the policy pack's enforced-lifetime check accepts both).
"""
from __future__ import annotations

from datetime import datetime
from typing import Optional

import pulumi
from pulumi_azure_native import monitor

from trainstack_components.lifetime import FROM_CLOCK, Lifetime, iso, outputs

PROFILE = "lifetime-over"          # the default profile: 0 outside the lifetime, forever
WINDOW_PROFILE = "declared-nodes"  # the lifetime's window


def _zero() -> monitor.ScaleCapacityArgs:
    return monitor.ScaleCapacityArgs(minimum="0", maximum="0", default="0")


def profiles(lifetime: Lifetime, nodes: int, now: datetime) -> list[monitor.AutoscaleProfileArgs]:
    held = [monitor.AutoscaleProfileArgs(name=PROFILE, rules=[], capacity=_zero())]
    if lifetime.expired(now):
        return held  # past the deadline no window is declared at all
    return held + [monitor.AutoscaleProfileArgs(
        name=WINDOW_PROFILE, rules=[],
        capacity=monitor.ScaleCapacityArgs(minimum="0", maximum=str(nodes), default="0"),
        fixed_date=monitor.TimeWindowArgs(start=iso(lifetime.start), end=iso(lifetime.deadline),
                                          time_zone="UTC"))]


def enforce(parent: pulumi.Resource, name: str, scale_set, resource_group, location: str,
            nodes: int, lifetime: Optional[Lifetime], now: datetime,
            tags: dict[str, str]) -> dict[str, object]:
    """Declare the hold at 0 from the deadline; returns the outputs that show it."""
    if lifetime is None:
        return {}
    monitor.AutoscaleSetting(
        f"{name}-lifetime", autoscale_setting_name=f"{name}-lifetime",
        resource_group_name=resource_group, location=location, enabled=True,
        target_resource_uri=scale_set.id, profiles=profiles(lifetime, nodes, now), tags=tags,
        opts=pulumi.ResourceOptions(
            parent=parent,
            # Without a persisted start a plain `pulumi up` would move the window.
            ignore_changes=["profiles"] if lifetime.source == FROM_CLOCK else None))
    return {**outputs(lifetime, now),
            "lifetime_enforcement": f"autoscale setting {name}-lifetime: its default profile "
                                    f"{PROFILE} holds the scale set at 0 (min = max = default = 0) "
                                    f"outside {iso(lifetime.start)} .. {iso(lifetime.deadline)}, "
                                    "with no end date"}
