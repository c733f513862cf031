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

    def __init__(self, resources: list[Resource], types: Any, key: str,
                 placed: Optional[list[tuple[int, Resource]]] = None):
        """`placed`: the (stack position, resource) pairs of `types` alone, in stack order, when
        the caller has them (_StackIndex sorts the stack by type once for all its indexes)."""
        types = (types,) if isinstance(types, str) else tuple(types)
        self._key = key
        self._by_dep: dict[int, list[tuple[int, Resource]]] = {}
        self._by_name: dict[str, list[tuple[int, Resource]]] = {}
        if placed is None:
            placed = [(pos, r) for pos, r in enumerate(resources) if r.type in types]
        for pos, r in placed:
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
        # One pass over the stack, sorting out the types the indexes below read (each index
        # used to make a pass of its own: ten passes over every resource per stack).
        wanted: dict[str, list[tuple[int, Resource]]] = {t: [] for t in _INDEXED}
        for pos, r in enumerate(resources):
            found = wanted.get(r.type)
            if found is not None:
                found.append((pos, r))

        def referrers(types: Any, key: str) -> Referrers:
            types = (types,) if isinstance(types, str) else tuple(dict.fromkeys(types))
            placed = wanted[types[0]] if len(types) == 1 else \
                sorted((p for t in types for p in wanted[t]), key=lambda p: p[0])
            return Referrers(resources, types, key, placed)

        self.schedules = referrers(AWS_ASG_SCHEDULE, "autoscalingGroupName")
        self.autoscale = referrers(AZ_AUTOSCALE, "targetResourceUri")
        self.resizes = referrers(GCP_RESIZE_REQUEST, "instanceGroupManager")
        self.scaling_configs = referrers(ALI_SCALING_CONFIG, "scalingGroupId")
        self.gcp_autoscalers = referrers(_GCP_AUTOSCALERS, "target")
        # Stops read by lifetimes.enforced_hours: Alibaba ESS scheduled tasks (by their
        # group), EventBridge Scheduler schedules (few; each names its target in its input).
        self.ess_tasks = referrers(_ESS_TASK, "scalingGroupId")
        self.eventbridge = [r for _, r in wanted[_SCHEDULER]]
        # Scaling policies on an AWS group: they set its desired capacity up to its maximum.
        self.scaling_policies = referrers(_ASG_POLICY, "autoscalingGroupName")
        # EventBridge scheduled rules and their targets (a target names its rule).
        self.event_rules = [r for _, r in wanted[_EVENT_RULE]]
        self.event_targets = [r for _, r in wanted[_EVENT_TARGET]]


_GCP_AUTOSCALERS = ("gcp:compute/autoscaler:Autoscaler",
                    "gcp:compute/regionAutoscaler:RegionAutoscaler")
_ESS_TASK = "alicloud:ess/scheduledTask:ScheduledTask"
_SCHEDULER = "aws:scheduler/schedule:Schedule"
_ASG_POLICY = "aws:autoscaling/policy:Policy"
_EVENT_RULE = "aws:cloudwatch/eventRule:EventRule"
_EVENT_TARGET = "aws:cloudwatch/eventTarget:EventTarget"
# Every type _StackIndex indexes (a token is a type or a tuple of types).
_INDEXED = tuple(t for token in (AWS_ASG_SCHEDULE, AZ_AUTOSCALE, GCP_RESIZE_REQUEST,
                                 ALI_SCALING_CONFIG, _GCP_AUTOSCALERS, _ESS_TASK, _SCHEDULER,
                                 _ASG_POLICY, _EVENT_RULE, _EVENT_TARGET)
                 for t in ((token,) if isinstance(token, str) else token))
