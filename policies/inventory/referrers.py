"""Resources that point at a node group (schedules, autoscalers, resize requests), indexed once."""
from __future__ import annotations

from typing import Any, Optional

from trainstack_policies.inventory.tokens import (
    ALI_SCALING_CONFIG,
    AWS_ASG_SCHEDULE,
    AZ_AUTOSCALE,
    GCP_RESIZE_REQUEST,
)
from trainstack_policies.model import Resource


class Referrers:
    """The resources of some types that point at another resource through one input (a
    schedule at its group, a resize request at its instance group manager), indexed once so
    each group finds its own without scanning the whole stack (which made every node group cost
    a pass over every resource). A referrer points at a group through a property dependency on
    it, or by naming it (the input equals the group's `name_key` input);
    `of()` returns them in stack order, as a scan would have found them."""

    def __init__(self, resources: list[Resource], types: Any, key: str):
        types = (types,) if isinstance(types, str) else tuple(types)
        self._key = key
        self._by_dep: dict[int, list[tuple[int, Resource]]] = {}
        self._by_name: dict[str, list[tuple[int, Resource]]] = {}
        for pos, r in enumerate(resources):
            if r.type not in types:
                continue
            for d in r.deps.get(key, []):
                self._by_dep.setdefault(id(d), []).append((pos, r))
            value = r.get(key)
            if isinstance(value, str) and value != "":
                self._by_name.setdefault(value, []).append((pos, r))

    def of(self, group: Resource, name_key: Optional[str] = "name") -> list[Resource]:
        found = {pos: r for pos, r in self._by_dep.get(id(group), [])
                 if any(d is group for d in r.deps.get(self._key, []))}
        if name_key is not None:
            # Only the group's own name input: an auto-named group's cloud name is its resource
            # name plus a random suffix, so a literal equal to the resource name names another.
            name = group.get(name_key)
            if isinstance(name, str):
                found.update(self._by_name.get(name, []))
        return [found[pos] for pos in sorted(found)]


class _StackIndex:
    """The referrer indexes node_groups() and enforced_hours() need, built once per stack."""

    def __init__(self, resources: list[Resource]):
        self.schedules = Referrers(resources, AWS_ASG_SCHEDULE, "autoscalingGroupName")
        self.autoscale = Referrers(resources, AZ_AUTOSCALE, "targetResourceUri")
        self.resizes = Referrers(resources, GCP_RESIZE_REQUEST, "instanceGroupManager")
        self.scaling_configs = Referrers(resources, ALI_SCALING_CONFIG, "scalingGroupId")
        self.gcp_autoscalers = Referrers(resources, ("gcp:compute/autoscaler:Autoscaler",
                                                     "gcp:compute/regionAutoscaler:RegionAutoscaler"),
                                         "target")
        # Stops read by lifetimes.enforced_hours: Alibaba ESS scheduled tasks (by their
        # group), EventBridge Scheduler schedules (few; each names its target in its input).
        self.ess_tasks = Referrers(resources, "alicloud:ess/scheduledTask:ScheduledTask",
                                   "scalingGroupId")
        self.eventbridge = [r for r in resources if r.type == "aws:scheduler/schedule:Schedule"]
        # Scaling policies on an AWS group: they set its desired capacity up to its maximum.
        self.scaling_policies = Referrers(resources, "aws:autoscaling/policy:Policy",
                                          "autoscalingGroupName")
        # EventBridge scheduled rules and their targets (a target names its rule).
        self.event_rules = [r for r in resources if r.type == "aws:cloudwatch/eventRule:EventRule"]
        self.event_targets = [r for r in resources
                              if r.type == "aws:cloudwatch/eventTarget:EventTarget"]
