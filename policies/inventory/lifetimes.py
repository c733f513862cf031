"""Enforced lifetimes: the hours until the plan itself stops a node group's nodes."""
from __future__ import annotations

import math
from datetime import datetime, timezone
from typing import Any, Optional

from trainstack_policies.exemptions import tag_value
from trainstack_policies.inventory.groups import NodeGroup
from trainstack_policies.inventory.referrers import _StackIndex
from trainstack_policies.inventory.tags import tags_of
from trainstack_policies.inventory.tokens import (
    ALI_CAPACITY_RESERVATION,
    ALI_INSTANCE,
    ALI_INSTANCE_SET,
    ALI_LAUNCH_TEMPLATES,
    AWS_ASG,
    AZ_VMSS,
    GCP_TEMPLATES,
    MAX_HOURS_TAG,
)
from trainstack_policies.inventory.values import _dicts, dig_value
from trainstack_policies.model import BadNumber, Resource, checked_number, number


AWS_ODCR = "aws:ec2/capacityReservation:CapacityReservation"
GCP_RESERVATION = "gcp:compute/reservation:Reservation"


def _declared_hours(g: NodeGroup) -> Optional[float]:
    for holder in (g.resource, g.template):
        tags = tags_of(holder) if holder is not None else None
        if holder is not None and isinstance(tags, dict):
            value = checked_number(tag_value(holder, tags, MAX_HOURS_TAG))
            if isinstance(value, BadNumber) or value == 0:
                g.invalid.append(f"its {MAX_HOURS_TAG} tag {value.text if value else '0'} is "
                                 "not a positive finite number of hours")
                return None
            if value:
                return value
    return None


def _now() -> datetime:
    return datetime.now(timezone.utc)


def _hours_until(value: Any) -> Optional[float]:
    """Hours from now until an ISO-8601 time (None when it is not a time, or already past)."""
    if not isinstance(value, str) or not value:
        return None
    try:
        when = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    # Whole hours, rounded up: the started hour is billed (and a stop set "96 hours from now"
    # a moment before this check still reads as 96).
    hours = math.ceil((when - _now()).total_seconds() / 3600 - 1e-6)
    return float(hours) if hours > 0 else None


def _scales_to_zero(s: Resource, group: Resource) -> bool:
    """An AWS scheduled action that leaves the group at 0 instances: maxSize or desired 0 with
    the minimum 0 after it (the provider's default for an omitted size is 0; -1 leaves the
    group's own). A minimum above 0 keeps nodes, or makes AWS refuse the action (desired and
    max must not be below min: docs.aws.amazon.com/autoscaling/ec2/userguide/
    asg-capacity-limits.html): no stop either way."""
    def after(key: str) -> Optional[float]:
        n = number(s.get(key))
        if n == -1:
            return number(group.get(key))
        return 0.0 if n is None and s.get(key) is None else n
    desired, low, high = after("desiredCapacity"), after("minSize"), after("maxSize")
    return low == 0 and (high == 0 or desired == 0)


def enforced_hours(g: NodeGroup, resources: list[Resource],
                   index: Optional[_StackIndex] = None) -> tuple[Optional[float], str]:
    """(hours, how) when the plan itself stops the nodes, else (None, "").

    The hours are those until the stopping resource's OWN time: an AWS autoscaling Schedule's
    startTime that sets the group to 0, Alibaba's autoReleaseTime, an Azure autoscale profile of
    capacity 0 from its fixedDate start; GCP scheduling.maxRunDuration is a duration per VM.
    A lifetime tag is only a declaration and never shortens the estimate: a 1 h tag with a stop
    in 2031 is priced to 2031 (a month at most). A stop that restarts (a recurring schedule, or
    another schedule on the group that scales it up again, an Azure recurrence profile) is no
    lifetime: the month is priced.
    """
    r = g.resource
    _declared_hours(g)   # only validated: a NaN or negative lifetime tag is reported
    if r.type in (AWS_ASG, AZ_VMSS) and index is None:
        index = _StackIndex(resources)
    if r.type == AWS_ASG and index is not None:
        schedules = index.schedules.of(r)
        stops = [s for s in schedules if _scales_to_zero(s, r)]
        restarts = [s for s in schedules if not _scales_to_zero(s, r)]
        for s in stops:
            if s.get("recurrence") or restarts:
                return None, ""
            hours = _hours_until(s.get("startTime"))
            if hours is not None:
                return hours, f"autoscaling Schedule {s.name} sets the group to 0 at " \
                              f"{s.get('startTime')}"
    if r.cloud == "gcp" and g.template is not None:
        # A group with several versions (a canary) runs VMs of every version's template: the
        # run duration is a lifetime only when each of them sets one (the longest counts).
        holders = [d for d in r.deps.get("versions", []) if d.type in GCP_TEMPLATES] \
            or [g.template]
        durations = [number(h.get("scheduling.maxRunDuration.seconds")) for h in holders]
        known = [s for s in durations if s is not None and s > 0 and math.isfinite(s)]
        if known and len(known) == len(durations):
            return max(known) / 3600, "scheduling.maxRunDuration on the template"
    if r.type == ALI_CAPACITY_RESERVATION and r.get("endTimeType") != "Unlimited":
        # Released at its endTime ("Limited"); "Unlimited" bills until released by hand.
        end = r.get("endTime")
        hours = _hours_until(end)
        if hours is not None:
            return hours, f"endTime {end}"
    if r.type == AWS_ODCR and str(r.get("endDateType") or "").lower() == "limited":
        # Billed until its endDate, then released (pulumi-aws CapacityReservation end_date).
        hours = _hours_until(r.get("endDate"))
        if hours is not None:
            return hours, f"endDate {r.get('endDate')}"
    if r.type == GCP_RESERVATION:
        # Auto-deleted at deleteAtTime, or deleteAfterDuration after it is made (now).
        hours = _hours_until(r.get("deleteAtTime"))
        seconds = number(r.get("deleteAfterDuration.seconds"))
        if hours is None and seconds is not None and seconds > 0 and math.isfinite(seconds):
            hours = math.ceil(seconds / 3600 - 1e-6)
        if hours is not None:
            return float(hours), "the reservation's auto-delete time"
    if r.type in (ALI_INSTANCE, ALI_INSTANCE_SET) and not prepaid(r, g.template):
        release = ali_release(g)
        hours = _hours_until(release)
        if hours is not None:
            return hours, f"autoReleaseTime {release}"
    if r.type == AZ_VMSS and index is not None:
        for s in index.autoscale.of(r, name_key="id"):
            if str(s.get("enabled")).lower() != "true":
                # A disabled setting scales nothing, its stop profile included; `enabled`
                # defaults to false (azure-native monitor.AutoscaleSetting: "The default value
                # is 'false'"), so one that leaves it out (or unknown at preview) stops nothing.
                continue
            profiles = [p for p in _dicts(s.get("profiles")) if isinstance(p, dict)]
            held = _azure_held_outside_windows(s, profiles)
            if held is not None:
                return held
            for profile in profiles:
                if number(dig_value(profile, "capacity.maximum")) != 0:
                    continue
                if profile.get("recurrence"):
                    return None, ""
                if _window_ends_within_a_month(profile, profiles):
                    return None, ""
                hours = _azure_hours(profile, "start")
                if hours is not None:
                    return hours, (f"autoscale setting {s.name} scales the set to 0 at "
                                   f"{dig_value(profile, 'fixedDate.start')}")
    return None, ""


def prepaid(r: Resource, template: Optional[Resource] = None) -> bool:
    """An Alibaba subscription (PrePaid) instance: autoReleaseTime releases only pay-as-you-go
    and spot instances (ModifyInstanceAutoReleaseTime answers ChargeTypeViolation for others,
    alibabacloud.com/help/en/ecs/developer-reference/api-ecs-2014-05-26-
    modifyinstanceautoreleasetime), so it is no lifetime there. The charge type an instance
    leaves out comes from its ECS launch template, if it has one."""
    charge = r.get("instanceChargeType") or (
        template.get("instanceChargeType") if template is not None
        and template.type in ALI_LAUNCH_TEMPLATES else None)
    return str(charge or "").lower() == "prepaid"


def ali_release(g: Any) -> Any:
    """An Alibaba instance's autoReleaseTime: its own, else its ECS launch template's (the
    template fills in what RunInstances leaves out; pulumi-alicloud ecs.EcsLaunchTemplate
    auto_release_time)."""
    own = g.resource.get("autoReleaseTime")
    template = getattr(g, "template", None)
    if own or template is None or template.type not in ALI_LAUNCH_TEMPLATES:
        return own
    return template.get("autoReleaseTime") or own


# Azure's own name for UTC in a TimeWindow's timeZone (the Windows time zone ids it takes).
_AZURE_UTC = {"", "utc", "coordinated universal time", "utc+00", "utc-00"}


def _azure_hours(profile: dict, key: str) -> Optional[float]:
    """Hours until a fixed-date profile's start or end. A time with no offset is in the
    profile's fixedDate.timeZone (Azure TimeWindow: "the timezone of the start and end times
    for the profile"); for a zone other than UTC it is read at the latest instant it can mean,
    12 h after the same reading in UTC (UTC-12 is the westernmost zone), so a stop is never
    read earlier than it happens."""
    value = dig_value(profile, f"fixedDate.{key}")
    hours = _hours_until(value)
    zone = dig_value(profile, "fixedDate.timeZone")
    if hours is None or not isinstance(value, str) or not isinstance(zone, str) or \
            zone.strip().lower() in _AZURE_UTC:
        return hours
    try:
        offset = datetime.fromisoformat(value.strip().replace("Z", "+00:00")).tzinfo
    except ValueError:
        return hours
    return hours if offset is not None else hours + 12


def _window_ends_within_a_month(stop: dict, profiles: list[dict]) -> bool:
    """A fixed-date profile of capacity 0 that ends within the month, beside a default profile
    (no fixedDate, no recurrence) that runs nodes: when the window ends, autoscale returns to
    the default profile and the nodes run again (learn.microsoft.com/azure/azure-monitor/
    autoscale/autoscale-multiprofile), so the window is a pause, not a lifetime."""
    end = dig_value(stop, "fixedDate.end")
    hours = _hours_until(end)
    if not isinstance(end, str) or (hours is not None and hours >= 730):
        return False
    return any(number(dig_value(p, "capacity.maximum")) != 0 and not p.get("fixedDate")
               and not p.get("recurrence") for p in profiles)


def _azure_held_outside_windows(s: Resource, profiles: list[dict]) -> Optional[tuple[Optional[float], str]]:
    """A windowless (default) profile of capacity 0 holds the set at 0 outside every fixed-date
    window, for good; the nodes then run only until the end of the last window that allows them.
    No window left means 0 hours. A window that recurs is no lifetime (None, "")."""
    def zero(p: dict) -> bool:
        return number(dig_value(p, "capacity.maximum")) == 0

    if not any(zero(p) and not p.get("fixedDate") and not p.get("recurrence") for p in profiles):
        return None
    running = [p for p in profiles if not zero(p)]
    if any(p.get("recurrence") or not p.get("fixedDate") for p in running):
        return None, ""
    ends = [dig_value(p, "fixedDate.end") for p in running]
    hours = [_azure_hours(p, "end") for p in running]
    if any(not isinstance(end, str) for end in ends):
        return None, ""
    last = max((h for h in hours if h is not None), default=0.0)
    return last, (f"autoscale setting {s.name} holds the set at 0 outside its window"
                  f"{'s' if len(running) > 1 else ''} (last end {max(ends, default='none')})")
