"""Resources that point at a node group (schedules, autoscalers, resize requests), indexed once."""
from __future__ import annotations

from typing import Any, Optional

from trainstack_policies.inventory.tokens import (
    ALI_SCALING_CONFIG,
    AWS_ASG_SCHEDULE,
    AZ_AUTOSCALE,
    AZ_CLASSIC_AUTOSCALE,
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
        self._placed = placed
        for pos, r in placed:
            for d in r.deps.get(key, []):
                self._by_dep.setdefault(id(d), []).append((pos, r))
            value = r.get(key)
            if isinstance(value, str) and value != "":
                self._by_name.setdefault(value, []).append((pos, r))

    def of(self, group: Resource, name_key: Optional[str] = "name") -> list[Resource]:
        if not self._placed:
            return []   # none of these types in the stack (most indexes, most stacks)
        found = {pos: r for pos, r in self._by_dep.get(id(group), [])
                 if any(d is group for d in r.deps.get(self._key, []))}
        if name_key is not None:
            # Only the group's own name input: an auto-named group's cloud name is its resource
            # name plus a random suffix, so a literal equal to the resource name names another.
            name = group.get(name_key)
            if isinstance(name, str):
                found.update(self._by_name.get(name, []))
        return [found[pos] for pos in sorted(found)]


class _AzureTargets(Referrers):
    """Autoscale settings by their targetResourceUri (the classic provider's: targetResourceId):
    besides a dependency or the set's own `id` input, a literal ARM id names the stack's scale
    set when the set is named explicitly (vmScaleSetName; a classic set's `name`; an auto-named
    set's name has a random suffix, so no literal names it) and
    the id's resource group and name are the set's and its subscription the set's provider's
    (ARM ids are case-insensitive). A set whose subscription the pack cannot read (the
    environment or the CLI login chooses it) is not tied by a literal id: a stop on another
    subscription's set of the same name must not shorten this one's month."""

    def __init__(self, resources: list[Resource], types: Any, key: str,
                 placed: Optional[list[tuple[int, Resource]]] = None):
        super().__init__(resources, types, key, placed)
        self._by_id: dict[tuple[str, str, str], list[tuple[int, Resource]]] = {}
        for name, found in self._by_name.items():
            parsed = _scale_set_id(name)
            if parsed is not None:
                self._by_id.setdefault(parsed, []).extend(found)

    def of(self, group: Resource, name_key: Optional[str] = "name") -> list[Resource]:
        found = super().of(group, name_key)
        if not self._by_id:
            return found
        # azure-native sets name themselves in vmScaleSetName; the classic provider's in `name`.
        name = group.get("vmScaleSetName") if group.type.startswith("azure-native:") \
            else group.get("name")
        rg = group.get("resourceGroupName")
        sub = (group.provider or {}).get("subscriptionId")
        if not self._by_id or not (isinstance(name, str) and isinstance(rg, str)
                                   and isinstance(sub, str) and name and rg and sub):
            return found
        more = [r for _, r in self._by_id.get((sub.lower(), rg.lower(), name.lower()), [])
                if not any(r is f for f in found)]
        if not more:
            return found
        order = {id(r): pos for pos, r in self._placed}
        return sorted(found + more, key=lambda r: order.get(id(r), -1))


def classic_autoscale_view(s: Resource) -> Resource:
    """A classic autoscale setting (pulumi-azure monitoring.AutoscaleSetting) as the azure-native
    one lifetimes and sizing read: `enabled` left out is true (the classic provider's default,
    "Defaults to true"; the ARM API's is false, so the native reading skips a setting without
    it), and each fixedDate's `timezone` (default UTC) is the native timeZone. capacity
    {default, minimum, maximum} and a recurrence (its presence is what is read) are the same."""
    props = dict(s.props)
    if props.get("enabled") is None:
        props["enabled"] = True
    profiles = props.get("profiles")
    if isinstance(profiles, list):
        out = []
        for p in profiles:
            fixed = p.get("fixedDate") if isinstance(p, dict) else None
            if isinstance(fixed, dict) and "timeZone" not in fixed and "timezone" in fixed:
                p = {**p, "fixedDate": {**fixed, "timeZone": fixed["timezone"]}}
            out.append(p)
        props["profiles"] = out
    return Resource(s.type, s.name, s.urn, props, s.deps, provider_region=s.provider_region,
                    provider=s.provider)


def _scale_set_id(value: str) -> Optional[tuple[str, str, str]]:
    """(subscription, resource group, name), lower case, of a scale set's ARM id."""
    parts = value.strip("/").split("/")
    if len(parts) != 8 or [p.lower() for p in (parts[0], parts[2], parts[4], parts[5],
                                               parts[6])] != \
            ["subscriptions", "resourcegroups", "providers", "microsoft.compute",
             "virtualmachinescalesets"] or not all(parts[i] for i in (1, 3, 7)):
        return None
    return parts[1].lower(), parts[3].lower(), parts[7].lower()


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

        def referrers(types: Any, key: str, kind: type = Referrers) -> Any:
            types = (types,) if isinstance(types, str) else tuple(dict.fromkeys(types))
            placed = wanted[types[0]] if len(types) == 1 else \
                sorted((p for t in types for p in wanted[t]), key=lambda p: p[0])
            return kind(resources, types, key, placed)

        self.schedules = referrers(AWS_ASG_SCHEDULE, "autoscalingGroupName")
        # CloudFormation's AWS::AutoScaling::ScheduledAction through aws-native: the same
        # action under its own input name (lifetimes._scales_to_zero reads both).
        self.native_schedules = referrers(AWS_NATIVE_ASG_SCHEDULE, "autoScalingGroupName")
        self.autoscale: Referrers = referrers(AZ_AUTOSCALE, "targetResourceUri", _AzureTargets)
        # The classic provider's setting, by targetResourceId (matched as the native one is).
        self.classic_autoscale: Referrers = referrers(AZ_CLASSIC_AUTOSCALE, "targetResourceId",
                                                      _AzureTargets)
        self.resizes = referrers(GCP_RESIZE_REQUEST, "instanceGroupManager")
        self.scaling_configs = referrers(ALI_SCALING_CONFIG, "scalingGroupId")
        self.gcp_autoscalers = referrers(_GCP_AUTOSCALERS, "target")
        # Stops read by lifetimes.enforced_hours: Alibaba ESS scheduled tasks (by their
        # group), EventBridge Scheduler schedules (few; each names its target in its input).
        self.ess_tasks = referrers(_ESS_TASK, "scalingGroupId")
        self.eventbridge = [r for _, r in wanted[_SCHEDULER]]
        # Scaling policies on an AWS group: they set its desired capacity up to its maximum
        # (classic, and CloudFormation's AWS::AutoScaling::ScalingPolicy through aws-native).
        self.scaling_policies = referrers(_ASG_POLICY, "autoscalingGroupName")
        self.native_scaling_policies = referrers(_NATIVE_ASG_POLICY, "autoScalingGroupName")
        # EventBridge scheduled rules and their targets (a target names its rule).
        self.event_rules = [r for _, r in wanted[_EVENT_RULE]]
        self.event_targets = [r for _, r in wanted[_EVENT_TARGET]]
        # Cloud Scheduler jobs (few; each names the instance group it resizes in its URI).
        self.cloud_jobs = [r for _, r in wanted[_CLOUD_JOB]]
        # lifetimes._cloud_jobs_on's index of them (by dependency, by the group their URL
        # names), built on its first use.
        self.cloud_job_index: Optional[tuple[dict[int, list[int]], dict[str, list[int]]]] = None
        # lifetimes._eventbridge_on / _targets_on / _rule_of's index of the schedules, rule
        # targets and rules, built on first use.
        self.eventbridge_index: Any = None

    def azure_autoscale(self, group: Resource) -> list[Resource]:
        """The autoscale settings on an Azure scale set (azure-native or classic), azure-native
        ones first, classic ones read as native (classic_autoscale_view)."""
        return self.autoscale.of(group, name_key="id") + [
            classic_autoscale_view(s) for s in self.classic_autoscale.of(group, name_key="id")]


AWS_NATIVE_ASG_SCHEDULE = "aws-native:autoscaling:ScheduledAction"
_GCP_AUTOSCALERS = ("gcp:compute/autoscaler:Autoscaler",
                    "gcp:compute/regionAutoscaler:RegionAutoscaler")
_ESS_TASK = "alicloud:ess/scheduledTask:ScheduledTask"
_SCHEDULER = "aws:scheduler/schedule:Schedule"
_ASG_POLICY = "aws:autoscaling/policy:Policy"
_NATIVE_ASG_POLICY = "aws-native:autoscaling:ScalingPolicy"
_EVENT_RULE = "aws:cloudwatch/eventRule:EventRule"
_EVENT_TARGET = "aws:cloudwatch/eventTarget:EventTarget"
_CLOUD_JOB = "gcp:cloudscheduler/job:Job"
# Every type _StackIndex indexes (a token is a type or a tuple of types).
_INDEXED = tuple(t for token in (AWS_ASG_SCHEDULE, AWS_NATIVE_ASG_SCHEDULE, AZ_AUTOSCALE,
                                 AZ_CLASSIC_AUTOSCALE,
                                 GCP_RESIZE_REQUEST, ALI_SCALING_CONFIG, _GCP_AUTOSCALERS, _ESS_TASK, _SCHEDULER,
                                 _ASG_POLICY, _NATIVE_ASG_POLICY, _EVENT_RULE, _EVENT_TARGET,
                                 _CLOUD_JOB)
                 for t in ((token,) if isinstance(token, str) else token))
