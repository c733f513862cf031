"""Raises: the largest size anything in the stack can set a node group to.

A group's own maximum is not the most it runs when a schedule, job or task of the stack sets
it larger later: an autoscaling Schedule or aws-native ScheduledAction, an EventBridge
Scheduler autoscaling:updateAutoScalingGroup, a Cloud Scheduler job's instanceGroupManagers
resize, an ESS scheduled task. lifetimes.py reads the same resources as STARTS (a raise after
a stop voids it); here their sizes are priced (spend-limit: "nodes at their maximum").
A raise whose size cannot be read leaves the group unsized (count None: cannot decide),
never priced at its smaller own size. Every lookup goes through the stack index (by group).
"""
from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, urlsplit

from trainstack_policies.capacity import AWS_NATIVE_ASG
from trainstack_policies.inventory.groups import NodeGroup
from trainstack_policies.inventory.lifetimes import (
    _COMPUTE_PATH,
    _asg_name_key,
    _cloud_jobs_on,
    _eventbridge_target,
    _job_effect,
    _scheduler_effect,
)
from trainstack_policies.inventory.referrers import AWS_NATIVE_ASG_SCHEDULE, _StackIndex
from trainstack_policies.inventory.tokens import ALI_SCALING_GROUP, AWS_ASG, GCP_IGM, GCP_REGION_IGM
from trainstack_policies.model import UNKNOWN, Resource, checked_number, number

_UNREAD = object()   # a size that is there but does not read (unknown at preview, no number)


def _size(value: Any) -> Any:
    """A whole non-negative size, None when left out, _UNREAD when it cannot be read."""
    n = checked_number(value)
    if n is None and value is None:
        return None
    if n is UNKNOWN or not isinstance(n, float) or n != int(n):
        return _UNREAD
    return int(n)


def _aws_sizes(r: Resource, index: _StackIndex) -> list[tuple[Resource, Any]]:
    key = _asg_name_key(r)
    sizes: list[tuple[Resource, Any]] = []
    for s in index.schedules.of(r, key) + index.native_schedules.of(r, key):
        # Classic: -1 leaves the group's own size (and 0 stands for one left out, which
        # raises nothing); aws-native sends only the sizes given (lifetimes._scales_to_zero).
        # desiredCapacity above maxSize is refused by AWS, so both bound the group.
        for k in ("maxSize", "desiredCapacity"):
            value = s.get(k)
            if s.type != AWS_NATIVE_ASG_SCHEDULE and number(value) == -1:
                continue
            sizes.append((s, _size(value)))
    scaled = bool(index.scaling_policies.of(r, key) or index.native_scaling_policies.of(r, key))
    for e in index.eventbridge:
        state = e.get("state")
        if isinstance(state, str) and state.upper() == "DISABLED":
            continue
        action, payload = _eventbridge_target(e)
        # Only UpdateAutoScalingGroup moves the maximum (SetDesiredCapacity stays under it).
        if action != "autoscaling:updateautoscalinggroup" or \
                _scheduler_effect(r, e, scaled) != "start":
            continue
        if not isinstance(payload, dict):
            sizes.append((e, _UNREAD))   # an input unknown at preview or that does not parse
            continue
        sizes += [(e, _size(payload.get(k))) for k in ("MaxSize", "DesiredCapacity")]
    return sizes


def _gcp_sizes(r: Resource, index: _StackIndex) -> list[tuple[Resource, Any]]:
    sizes: list[tuple[Resource, Any]] = []
    for job in _cloud_jobs_on(r, index):
        if _job_effect(r, job) != "start":
            continue
        target = job.get("httpTarget")
        uri = target.get("uri") if isinstance(target, dict) else None
        parts = urlsplit(uri.strip()) if isinstance(uri, str) else None
        path = _COMPUTE_PATH.match(parts.path) if parts is not None else None
        if path is None or path.group(6) != "resize":
            continue   # no resize: the target size stays (another call cannot set it)
        given = parse_qs(parts.query).get("size") if parts is not None else None
        sizes.append((job, _size(given[0]) if given and len(given) == 1 else _UNREAD))
    return sizes


def _ali_sizes(r: Resource, index: _StackIndex) -> list[tuple[Resource, Any]]:
    # A disabled task runs nothing; a task's maxValue / desiredCapacity left out keeps the
    # group's own (lifetimes._ess_bound).
    return [(t, _size(t.get(k))) for t in index.ess_tasks.of(r, name_key=None)
            if str(t.get("taskEnabled")).lower() != "false"
            for k in ("maxValue", "desiredCapacity")]


def raise_to_largest(g: NodeGroup, index: _StackIndex) -> None:
    """Set `g.count` to the largest size any raise in the stack sets (never lower it); None
    (cannot decide) when a raise's size does not read."""
    r = g.resource
    if r.type in (AWS_ASG, AWS_NATIVE_ASG):
        sizes = _aws_sizes(r, index)
    elif r.type in (GCP_IGM, GCP_REGION_IGM):
        sizes = _gcp_sizes(r, index)
    elif r.type == ALI_SCALING_GROUP:
        sizes = _ali_sizes(r, index)
    else:
        return
    for by, n in sizes:
        if g.count is None:
            return
        if n is _UNREAD:
            g.count = None
            g.size_unread = (f"GPU capacity of a size unknown until apply ({by.name} ({by.type}) "
                             "raises it to a size that does not read)")
            return
        if n is not None and n > g.count:
            g.count = n
