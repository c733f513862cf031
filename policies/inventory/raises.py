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
from urllib.parse import parse_qs

from trainstack_policies.capacity import AWS_NATIVE_ASG
from trainstack_policies.inventory.compute_aws import _aws_group
from trainstack_policies.inventory.groups import NodeGroup
from trainstack_policies.inventory.lifetimes import (
    _asg_name_key,
    _cloud_jobs_on,
    _eventbridge_on,
    _eventbridge_target,
    _job_effect,
    _job_url,
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
        # The maximum it sets bounds the group: AWS refuses a desired capacity above the
        # maximum (docs.aws.amazon.com/autoscaling/ec2/userguide/asg-capacity-limits.html).
        # Classic: -1 leaves the group's own (and 0 stands for one left out, raising nothing);
        # aws-native sends only the sizes given (lifetimes._scales_to_zero).
        value = s.get("maxSize")
        if s.type != AWS_NATIVE_ASG_SCHEDULE and number(value) == -1:
            continue
        sizes.append((s, _size(value)))
    scaled = bool(index.scaling_policies.of(r, key) or index.native_scaling_policies.of(r, key))
    for e in _eventbridge_on(r, index):
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
        sizes.append((e, _size(payload.get("MaxSize"))))
    return sizes


def _gcp_sizes(r: Resource, index: _StackIndex) -> list[tuple[Resource, Any]]:
    sizes: list[tuple[Resource, Any]] = []
    # A ResizeRequest adds its VMs to the target size when it is fulfilled, which may come
    # after a job's resize: each resize is priced with them on top (compute._gcp_group_size has
    # refused an unreadable resizeBy already: the group is then unsized).
    extra = sum(int(number(rr.get("resizeBy")) or 0) for rr in index.resizes.of(r))
    for job in _cloud_jobs_on(r, index):
        if _job_effect(r, job) != "start":
            continue
        url = _job_url(job)
        if url is None or url[1] is None or url[1].group(6) != "resize":
            continue   # no resize: the target size stays (another call cannot set it)
        given = parse_qs(url[0].query).get("size")
        size = _size(given[0]) if given and len(given) == 1 else _UNREAD
        sizes.append((job, size + extra if isinstance(size, int) else size))
    return sizes


def _ali_sizes(r: Resource, index: _StackIndex) -> list[tuple[Resource, Any]]:
    # A disabled task runs nothing; maxValue left out keeps the group's own
    # (lifetimes._ess_bound); DesiredCapacity must lie within MinValue-MaxValue
    # (api-ess-2014-08-28-createscheduledtask), so the maximum bounds the group.
    return [(t, _size(t.get("maxValue"))) for t in index.ess_tasks.of(r, name_key=None)
            if str(t.get("taskEnabled")).lower() != "false"]


def raise_to_largest(g: NodeGroup, index: _StackIndex) -> None:
    """Set `g.count` to the largest size any raise in the stack sets (never lower it); None
    (cannot decide) when a raise's size does not read."""
    r = g.resource
    if g.count is None:
        return   # unsized already (and its resize requests may not read: _gcp_sizes)
    if r.type in (AWS_ASG, AWS_NATIVE_ASG):
        sizes = _aws_sizes(r, index)
    elif r.type in (GCP_IGM, GCP_REGION_IGM):
        sizes = _gcp_sizes(r, index)
    elif r.type == ALI_SCALING_GROUP:
        sizes = _ali_sizes(r, index)
    else:
        return
    # An AWS group's count may exceed its maxSize (instance weights, a warm pool: compute_aws
    # adds them to it). A classic group is sized again from the raised maximum; an aws-native
    # one (weights, no warm pool) keeps what was added: count + (raise - maxSize), never
    # below the truth (weights are 1-999, so a lightest weight divides nothing up).
    own = number(r.get("maxSize")) if r.type in (AWS_ASG, AWS_NATIVE_ASG) else None
    added = int(g.count - own) if own is not None and 0 <= own <= g.count else 0
    largest = None
    for by, n in sizes:
        if n is _UNREAD:
            g.count = None
            g.size_unread = (f"GPU capacity of a size unknown until apply ({by.name} ({by.type}) "
                             "raises it to a size that does not read)")
            return
        if n is not None and n + added > g.count:
            g.count, largest = n + added, n
    if largest is not None and r.type == AWS_ASG:
        g.count = _aws_group(r, [], largest).count
