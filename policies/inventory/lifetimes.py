"""Enforced lifetimes: the hours until the plan itself stops a node group's nodes."""
from __future__ import annotations

import csv
import math
import re
from datetime import datetime, timedelta, timezone, tzinfo
from fnmatch import fnmatchcase
from functools import lru_cache
from pathlib import Path
from typing import Any, Optional
from urllib.parse import parse_qs, urlsplit

from trainstack_policies.capacity import AWS_NATIVE_ASG, AZ_CLASSIC_VMSS
from trainstack_policies.exemptions import tag_value
from trainstack_policies.inventory.groups import NodeGroup
from trainstack_policies.inventory.referrers import (
    AWS_NATIVE_ASG_SCHEDULE,
    _SCHEDULER,
    _StackIndex,
)
from trainstack_policies.inventory.tags import tags_of
from trainstack_policies.inventory.tokens import (
    ALI_CAPACITY_RESERVATION,
    ALI_INSTANCE,
    ALI_INSTANCE_SET,
    ALI_LAUNCH_TEMPLATES,
    ALI_SCALING_GROUP,
    AWS_ASG,
    AWS_INSTANCE,
    AWS_NATIVE_ODCR,
    AWS_ODCR,
    AZ_VMSS,
    GCP_IGM,
    GCP_INSTANCE,
    GCP_INSTANCE_FROM_TEMPLATE,
    GCP_REGION_IGM,
    GCP_RESOURCE_POLICY,
    GCP_TEMPLATES,
    MAX_HOURS_TAG,
)
from trainstack_policies.inventory.values import _dicts, dig_value, json_text
from trainstack_policies.model import (
    UNKNOWN,
    BadNumber,
    Resource,
    checked_number,
    dig,
    digits,
    first_zone_region,
    number,
)


GCP_RESERVATION = "gcp:compute/reservation:Reservation"


def _declared_hours(g: NodeGroup) -> Optional[float]:
    for holder in (g.resource, g.template):
        tags = tags_of(holder) if holder is not None else None
        if holder is not None and isinstance(tags, dict):
            text = tag_value(holder, tags, MAX_HOURS_TAG)
            if isinstance(text, str) and not text.strip():
                # A blank value ("", spaces) declares no lifetime: read as no tag, not as a
                # number that fails (checked_number refuses blank text where a number is needed;
                # this tag prices nothing: it never shortens the estimate).
                continue
            value = checked_number(text)
            if isinstance(value, BadNumber) or value == 0:
                g.invalid_tags.append(f"its {MAX_HOURS_TAG} tag {value.text if value else '0'} is "
                                 "not a positive finite number of hours")
                return None
            if value:
                return value
    return None


def _now() -> datetime:
    return datetime.now(timezone.utc)


def _hours_until(value: Any) -> Optional[float]:
    """Hours from now until an ISO-8601 time (None when it is not a time, or already past)."""
    when = _parse_time(value)
    if when is None:
        return None
    # Whole hours, rounded up: the started hour is billed (and a stop set "96 hours from now"
    # a moment before this check still reads as 96).
    hours = math.ceil((when - _now()).total_seconds() / 3600 - 1e-6)
    return float(hours) if hours > 0 else None


def _scales_to_zero(s: Resource, group: Resource, scaled: bool = False) -> bool:
    """An AWS scheduled action that leaves the group at 0 instances: maxSize or desired 0 with
    the minimum 0 after it (the provider's default for an omitted size is 0; -1 leaves the
    group's own). A minimum above 0 keeps nodes, or makes AWS refuse the action (desired and
    max must not be below min: docs.aws.amazon.com/autoscaling/ec2/userguide/
    asg-capacity-limits.html): no stop either way. With a scaling policy on the group
    (`scaled`), only maxSize 0 holds it at 0 (_held_at_zero)."""
    # aws-native (CloudFormation AWS::AutoScaling::ScheduledAction) sends only the sizes it
    # is given, and the API leaves the others as they are; the classic provider sends 0 for
    # one left out and leaves out only -1 (terraform-provider-aws internal/service/
    # autoscaling/schedule.go: "we accept -1 to mean don't include this parameter").
    native = s.type == AWS_NATIVE_ASG_SCHEDULE

    def after(key: str) -> Optional[float]:
        value = s.get(key)
        n = number(value)
        if n == -1 or (native and value is None):
            return number(group.get(key))
        return 0.0 if n is None and value is None else n
    desired, low, high = after("desiredCapacity"), after("minSize"), after("maxSize")
    return _held_at_zero(low, high, desired, scaled)


def _held_at_zero(low: Optional[float], high: Optional[float], desired: Optional[float],
                  scaled: bool) -> bool:
    """Sizes that leave an AWS group at 0: minimum 0 with maximum or desired 0. A scaling policy
    on the group sets the desired capacity anywhere between minimum and maximum when its alarm
    fires (docs.aws.amazon.com/autoscaling/ec2/userguide/as-scale-based-on-demand.html): beside
    one, only a maximum of 0 keeps the group at 0; desired 0 under a larger maximum is a pause."""
    return low == 0 and (high == 0 or (desired == 0 and not scaled))


def enforced_hours(g: NodeGroup, resources: list[Resource],
                   index: Optional[_StackIndex] = None) -> tuple[Optional[float], str]:
    """(hours, how) when the plan itself stops the nodes, else (None, "") or (None, why): why
    a stop in the plan is not counted, for the estimate to say (a Cloud Scheduler job whose
    `paused` is unknown at preview, _mig_stop).

    The hours are those until the stopping resource's OWN time: an AWS autoscaling Schedule's
    startTime that sets the group to 0, Alibaba's autoReleaseTime, an Azure autoscale profile of
    capacity 0 from its fixedDate start; GCP scheduling.maxRunDuration is a duration per VM
    (a single VM's only: a managed instance group keeps its target size, so a group is stopped
    by a Cloud Scheduler job that resizes it to 0, or by its flex-start ResizeRequests' run
    duration: _mig_stop).
    A lifetime tag is only a declaration and never shortens the estimate: a 1 h tag with a stop
    in 2031 is priced to 2031 (a month at most). A stop that restarts (anything in the stack,
    on any path, that may start the nodes after it: a later or recurring start, _holds; an
    Azure recurrence profile) is no lifetime: the month is priced. A one-time start before
    the stop changes nothing about it.
    """
    r = g.resource
    _declared_hours(g)   # only validated: a NaN or negative lifetime tag is reported
    if (r.type in (AWS_ASG, AWS_NATIVE_ASG, AZ_VMSS, AWS_INSTANCE, ALI_SCALING_GROUP, GCP_IGM,
                   GCP_REGION_IGM) or r.type in AZ_CLASSIC_VMSS) and index is None:
        index = _StackIndex(resources)
    if r.type in (AWS_ASG, AWS_NATIVE_ASG) and index is not None:
        # The group's own name input (an aws-native group's is autoScalingGroupName): a
        # literal equal to it names the group (_asg_name_key).
        key = _asg_name_key(r)
        schedules = index.schedules.of(r, key) + index.native_schedules.of(r, key)
        scaled = bool(index.scaling_policies.of(r, key) or
                      index.native_scaling_policies.of(r, key))
        stops: list[Resource] = []
        restarts: list[Resource] = []
        for s in schedules:   # each schedule's sizes read once
            (stops if _scales_to_zero(s, r, scaled) else restarts).append(s)
        last = _last_start(r, index, scaled, restarts)
        timed: list[tuple[float, str]] = []
        for s in stops:
            if s.get("recurrence"):
                first = _recurring_stop(s, last)
                if first is not None:
                    timed.append(first)
                continue
            hours = _hours_until(s.get("startTime"))
            when = _parse_time(s.get("startTime"))
            if hours is not None and when is not None and _holds(when, last):
                timed.append((hours, f"autoscaling Schedule {s.name} sets the group to 0 at "
                                     f"{s.get('startTime')}"))
        eventbridge = _eventbridge_stop(r, index, scaled, last)
        if eventbridge is not None:
            timed.append(eventbridge)
        if timed:
            return min(timed, key=lambda x: x[0])
    if r.type == AWS_INSTANCE and index is not None:
        eventbridge = _eventbridge_stop(r, index, last=_last_start(r, index, False, []))
        if eventbridge is not None:
            return eventbridge
    if r.type == ALI_SCALING_GROUP and index is not None:
        ess = _ess_stop(r, index.ess_tasks.of(r, name_key=None))
        if ess is not None:
            return ess
    if r.type in (GCP_IGM, GCP_REGION_IGM) and index is not None:
        # Never the template's own maxRunDuration / terminationTime: see _mig_stop.
        return _mig_stop(r, index) or (None, "")
    if r.cloud == "gcp" and g.template is not None:
        # A group with several versions (a canary) runs VMs of every version's template: the
        # run duration is a lifetime only when each of them sets one (the longest counts).
        holders = [d for d in r.deps.get("versions", []) if d.type in GCP_TEMPLATES] \
            or [g.template]
        own_stops = [_gcp_own_stop(h) for h in holders]
        gcp_stop: Optional[tuple[float, str]] = None
        # Instance schedules attach to single VMs only (not to a MIG's). A start schedule in
        # any policy attached to the VM starts it again, on a cron schedule (it recurs, so it
        # runs after any stop): a stop that leaves the VM stopped (an instance schedule, or
        # its own stop with instanceTerminationAction STOP, the default) is then a pause;
        # a VM deleted (DELETE) has nothing left to start.
        # A policy whose schedule is unknown at preview may start it.
        policies = [p for p in r.deps.get("resourcePolicies", [])
                    if p.type == GCP_RESOURCE_POLICY] \
            if r.type in (GCP_INSTANCE, GCP_INSTANCE_FROM_TEMPLATE) else []
        started = any(p.get("instanceSchedulePolicy") is UNKNOWN or dig(
            p.get("instanceSchedulePolicy"), "vmStartSchedule") for p in policies)
        if started:
            own_stops = [stop if str(h.get("scheduling.instanceTerminationAction")).upper()
                         == "DELETE" else None for h, stop in zip(holders, own_stops)]
        if own_stops and all(stop is not None for stop in own_stops):
            gcp_stop = max((stop for stop in own_stops if stop is not None), key=lambda x: x[0])
        if not started:
            for policy in policies:
                scheduled = _instance_schedule_stop(policy)
                if scheduled is not None and (gcp_stop is None or scheduled[0] < gcp_stop[0]):
                    gcp_stop = scheduled
        if gcp_stop is not None:
            return gcp_stop
    if r.type == ALI_CAPACITY_RESERVATION and r.get("endTimeType") != "Unlimited":
        # Released at its endTime ("Limited"); "Unlimited" bills until released by hand.
        end = r.get("endTime")
        hours = _hours_until(end)
        if hours is not None:
            return hours, f"endTime {end}"
    if (r.type == AWS_ODCR or r.type == AWS_NATIVE_ODCR) and \
            str(r.get("endDateType") or "").lower() == "limited":
        # Billed until its endDate, then released (pulumi-aws CapacityReservation end_date;
        # CloudFormation AWS::EC2::CapacityReservation EndDateType / EndDate).
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
    if (r.type == AZ_VMSS or r.type in AZ_CLASSIC_VMSS) and index is not None:
        # azure-native settings and the classic provider's (read as native ones: a classic
        # set's or a native set's, whichever provider the setting comes from).
        for s in index.azure_autoscale(r):
            if str(s.get("enabled")).lower() != "true":
                # A disabled setting scales nothing, its stop profile included; `enabled`
                # defaults to false (azure-native monitor.AutoscaleSetting: "The default value
                # is 'false'"), so one that leaves it out (or unknown at preview) stops nothing.
                # (The classic provider's defaults to true: referrers.classic_autoscale_view.)
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


def _holds(stop: datetime, last: Optional[float]) -> bool:
    """Whether a stop at `stop` leaves the nodes stopped: nothing may start them (`last` None),
    or the last start runs strictly before it (a start before a stop changes nothing about
    the stop; one at the same moment cannot be ordered and is read as after it)."""
    return last is None or last < (stop - _now()).total_seconds() / 3600


def _asg_restart_hours(s: Resource) -> float:
    """Hours from now until the last run of an autoscaling Schedule that leaves the group
    above 0: its startTime when it runs once; when it recurs, its endTime (a recurring action
    runs no more after it: API_PutScheduledUpdateGroupAction.html, EndTime); infinite when it
    recurs with no endTime or a time does not read (it may run after any stop)."""
    if s.get("recurrence"):
        end = _parse_time(s.get("endTime"))
        return math.inf if end is None else (end - _now()).total_seconds() / 3600
    when = _parse_time(s.get("startTime"))
    if when is None:
        return math.inf
    return (when - _now()).total_seconds() / 3600


def _scheduler_start_hours(s: Resource) -> float:
    """Hours from now until the latest an EventBridge Scheduler start may run: a one-time
    at() schedule at its time plus a FLEXIBLE window's maximumWindowInMinutes (one-time
    schedules run once: docs.aws.amazon.com/scheduler/latest/UserGuide/schedule-types.html);
    infinite for a recurring one or one that does not read."""
    expr = s.get("scheduleExpression")
    if not isinstance(expr, str) or not expr.strip().startswith("at("):
        end = _parse_time(s.get("endDate"))   # a recurring schedule invokes nothing after it
        return math.inf if end is None else (end - _now()).total_seconds() / 3600
    when = _first_run(expr, _zone(s.get("scheduleExpressionTimezone")))
    window = s.get("flexibleTimeWindow")
    late = number(window.get("maximumWindowInMinutes")) \
        if isinstance(window, dict) and str(window.get("mode")).upper() == "FLEXIBLE" else 0
    if when is None or late is None or not math.isfinite(late) or late < 0:
        return math.inf
    return (when - _now()).total_seconds() / 3600 + late / 60


def _last_start(r: Resource, index: _StackIndex, scaled: bool,
                restarts: list[Resource]) -> Optional[float]:
    """Hours from now until the last time anything in the stack may start the AWS group or
    instance `r` again (infinite when a start recurs or its time does not read), None when
    nothing does: autoscaling Schedules that leave the group above 0 (`restarts`), EventBridge
    Scheduler schedules that start it (_scheduler_effect), and scheduled rules' targets that
    start or act on it (_rule_effect; a rule recurs, or fires on events)."""
    times = [_asg_restart_hours(s) for s in restarts]
    # A schedule whose state is DISABLED invokes nothing (API_CreateSchedule.html, State);
    # a state unknown at preview may be ENABLED.
    times += [_scheduler_start_hours(e) for e in _eventbridge_on(r, index)
              if _scheduler_effect(r, e, scaled) == "start"
              and not (isinstance(e.get("state"), str) and e.get("state").upper() == "DISABLED")]
    times += [math.inf for t in _targets_on(r, index)
              if _rule_effect(r, t, _rule_of(t, index))[0] == "start"]
    return max(times) if times else None


def _recurring_stop(s: Resource, last: Optional[float]) -> Optional[tuple[float, str]]:
    """An autoscaling Schedule with a `recurrence` that leaves the group at 0 stops it at its
    first run, and the group stays at 0 when nothing in the stack may scale it up again after
    that run (`last`: _last_start): recurrence is unix cron in `timeZone` (UTC by
    default), its first run not before startTime and not after endTime
    (docs.aws.amazon.com/autoscaling/ec2/APIReference/API_PutScheduledUpdateGroupAction.html).
    None when it is no lifetime: a start after it, or a time that does not read."""
    expr, zone = s.get("recurrence"), _zone(s.get("timeZone"))
    if not isinstance(expr, str) or zone is None:
        return None
    start, end = _parse_time(s.get("startTime")), _parse_time(s.get("endTime"))
    if (s.get("startTime") and start is None) or (s.get("endTime") and end is None):
        return None
    now = _now()
    when = _next_cron(expr, zone, max(now, start) if start else now)
    if when is None or (end is not None and when > end) or not _holds(when, last):
        return None
    hours = math.ceil((when - now).total_seconds() / 3600 - 1e-6)
    return float(max(hours, 1)), (f"autoscaling Schedule {s.name} sets the group to 0 at "
                                  f"{when:%Y-%m-%dT%H:%MZ} ({expr}, "
                                  f"{s.get('timeZone') or 'UTC'}), and nothing scales it up")


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
# Windows time zone id -> IANA zone: the Unicode CLDR mapping (territory "001", the zone each
# Windows id stands for), kept beside this module. Read once, the first time a profile names
# a zone other than UTC.
_WINDOWS_ZONES_CSV = Path(__file__).resolve().parent / "windows_zones.csv"
_windows_zones: Optional[dict[str, str]] = None


def _windows_zone(name: str) -> Optional[tzinfo]:
    """The IANA zone a Windows time zone id names (None when the table does not list it, or
    this Python has no time zone database for it)."""
    global _windows_zones
    if _windows_zones is None:
        with _WINDOWS_ZONES_CSV.open(newline="") as f:
            _windows_zones = {row["windows"].strip().lower(): row["iana"]
                              for row in csv.DictReader(f)}
    iana = _windows_zones.get(" ".join(name.split()).lower())
    if iana is None:
        return None
    try:
        from zoneinfo import ZoneInfo
        return ZoneInfo(iana)
    except (ValueError, KeyError, OSError, ImportError):   # no tzdata: ZoneInfoNotFoundError
        return None


def _azure_hours(profile: dict, key: str, latest: bool = True) -> Optional[float]:
    """Hours until a fixed-date profile's start or end. A time with no offset is in the
    profile's fixedDate.timeZone (Azure TimeWindow: "the timezone of the start and end times
    for the profile"), a Windows time zone id read through the CLDR table (_windows_zone); a
    wall-clock time that a daylight-saving change makes ambiguous is read at its later
    instant (`latest`, a stop or the end of a running window) or its earlier one (the end of
    a pause). A zone the table does not list (or that this Python cannot load) is read at the
    latest instant it can mean, 12 h after the same reading in UTC (UTC-12 is the westernmost
    zone), or the earliest, 14 h before it (UTC+14, the easternmost), so a stop is never read
    earlier than it happens nor a pause shorter."""
    value = dig_value(profile, f"fixedDate.{key}")
    hours = _hours_until(value)
    zone = dig_value(profile, "fixedDate.timeZone")
    if not isinstance(value, str) or not isinstance(zone, str) or \
            zone.strip().lower() in _AZURE_UTC:
        return hours
    try:
        wall = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        return hours
    if wall.tzinfo is not None:
        return hours
    tz = _windows_zone(zone)
    if tz is None:
        if hours is None:
            return None
        return hours + 12 if latest else (hours - 14 if hours > 14 else None)
    instants = [wall.replace(tzinfo=tz, fold=fold).astimezone(timezone.utc) for fold in (0, 1)]
    when = max(instants) if latest else min(instants)
    whole = math.ceil((when - _now()).total_seconds() / 3600 - 1e-6)
    return float(whole) if whole > 0 else None


def _window_ends_within_a_month(stop: dict, profiles: list[dict]) -> bool:
    """A fixed-date profile of capacity 0 that ends within the month is a pause, not a
    lifetime, when another profile brings capacity back after it ends. Autoscale evaluates
    fixed-date profiles first, then recurring ones, then the default, and uses the first that
    applies (learn.microsoft.com/azure/azure-monitor/autoscale/autoscale-multiprofile): once
    the window is over, a recurrence profile or the default profile (no fixedDate, no
    recurrence) that runs nodes applies again, and so does a fixed-date profile that runs
    nodes past the window's end, from within the month. A window with none of these after it
    (only zero profiles, or fixed-date ones that end before it) is a stop."""
    end = dig_value(stop, "fixedDate.end")
    hours = _azure_hours(stop, "end", latest=False)
    if not isinstance(end, str) or (hours is not None and hours >= 730):
        return False
    for p in profiles:
        if p is stop or number(dig_value(p, "capacity.maximum")) == 0:
            continue
        if not p.get("fixedDate"):
            return True   # a recurrence or the default profile: it applies after the window
        if _runs_after(p, hours or 0.0):
            return True
    return False


def _runs_after(profile: dict, after: float) -> bool:
    """Whether a fixed-date profile that runs nodes is in force past `after` hours from now and
    begins within the month. A time that cannot be read counts as in force (a pause is never
    priced cheaper than the truth); one already past does not."""
    ends = _azure_hours(profile, "end")
    if ends is None:
        text = dig_value(profile, "fixedDate.end")
        if _parse_time(text) is not None and _hours_until(text) is None:
            return False   # it ended already
        return True
    if ends <= after:
        return False
    starts = _azure_hours(profile, "start", latest=False)
    return starts is None or starts < 730


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


# ------------------------------------------------------------------- GCP: the VM's own stop

def _gcp_own_stop(holder: Resource) -> Optional[tuple[float, str]]:
    """The earliest stop a VM (or its template) sets itself: scheduling.maxRunDuration (from
    its start, now) or scheduling.terminationTime (an RFC 3339 time); at either Compute Engine
    stops or deletes the VM (instanceTerminationAction STOP, the default, or DELETE:
    cloud.google.com/compute/docs/instances/limit-vm-runtime). A time that does not parse or
    has passed stops nothing."""
    out: list[tuple[float, str]] = []
    seconds = number(holder.get("scheduling.maxRunDuration.seconds"))
    if seconds is not None and seconds > 0 and math.isfinite(seconds):
        out.append((seconds / 3600, "scheduling.maxRunDuration on the "
                    + ("template" if holder.type in GCP_TEMPLATES else "VM")))
    when = holder.get("scheduling.terminationTime")
    hours = _hours_until(when)
    if hours is not None:
        out.append((hours, f"scheduling.terminationTime {when}"))
    return min(out, key=lambda x: x[0]) if out else None


# ------------------------------------------------------ GCP: what stops a managed instance group

# A managed instance group (MIG) keeps its target size. Google documents the template's time
# limit per VM ("When the MIG creates VMs based on the template, the time limit is applied to
# each VM", cloud.google.com/compute/docs/instance-groups/limit-vm-runtime-in-migs), and a group
# that repairs the VMs it is short of ("If any of the MIG's VMs is not running ... the group will
# retry until it creates that VM successfully", instanceLifecyclePolicy.defaultActionOnFailure
# REPAIR, the default); nothing read for this pack says the limit lowers the group's target
# size, so a VM the limit ends may come back with a fresh limit (components/gcp/lifetime.py).
# The pack never prices below the truth: the template's limit is no lifetime for the group,
# which is stopped only by what sets its size to 0 and keeps it there.
# The Compute API is served on two hosts: compute.googleapis.com, where Google documents its
# methods (POST https://compute.googleapis.com/compute/v1/projects/{project}/zones/{zone}/
# instanceGroupManagers/{resourceId}/resize, cloud.google.com/compute/docs/reference/rest/v1/
# instanceGroupManagers/resize), and www.googleapis.com, its older root, on which the API
# returns every resource's selfLink (https://www.googleapis.com/compute/v1/projects/...,
# cloud.google.com/compute/docs/reference/rest/v1/instanceGroupManagers): a URL built from the
# group's selfLink calls the same method. No other host is the Compute API.
_COMPUTE_HOSTS = frozenset({"compute.googleapis.com", "www.googleapis.com"})
_COMPUTE_PATH = re.compile(
    r"^/compute/(?:v1|beta|alpha)/projects/([^/]+)/(zones|regions)/([^/]+)/"
    r"(instanceGroupManagers|regionInstanceGroupManagers)/([^/]+)/([^/]+)$")


def _group_location(group: Resource) -> Any:
    """The zone (zonal group) or region (regional group) a Compute API URL names it by."""
    if group.type == GCP_IGM:
        value = group.get("zone") or (group.provider or {}).get("zone")
    else:
        value = group.get("region") or (group.provider or {}).get("region") \
            or group.provider_region
        zones = group.get("distributionPolicyZones")
        if value is UNKNOWN and isinstance(zones, list):
            # Its region unknown at preview, placed by a known distribution zone (compute.py).
            value = first_zone_region(zones) or UNKNOWN
    return value.rsplit("/", 1)[-1] if isinstance(value, str) else value


def _group_project(group: Resource) -> Any:
    """The project a Compute API URL names the group by: its own `project` input, else its
    provider's `project` (as budgets.py matches a group to a budget's projects); a resource
    path (projects/<id>) read by its last segment. UNKNOWN at preview, or None where the
    program gives it nowhere (the provider then takes it from the environment, GOOGLE_PROJECT
    or the gcloud config, which a policy does not see)."""
    value = group.get("project") or (group.provider or {}).get("project")
    if isinstance(value, str):
        return value.rstrip("/").rsplit("/", 1)[-1] or None
    return value


def _job_url(job: Resource) -> Any:
    """A Cloud Scheduler job's HTTP target URL read once for every reader (_job_effect, the
    index of _cloud_jobs_on, raises.py): (its urlsplit parts, the Compute API path's match or
    None), or None where the job has no URL text."""
    target = job.get("httpTarget")
    uri = target.get("uri") if isinstance(target, dict) else None
    if not isinstance(uri, str):
        return None
    parts = urlsplit(uri.strip())
    return parts, _COMPUTE_PATH.match(parts.path)


def _job_effect(group: Resource, job: Resource) -> str:
    """What a Cloud Scheduler job does to the managed instance group `group`: "stop" (a POST,
    with an OAuth token, of the Compute API's instanceGroupManagers.resize (or
    regionInstanceGroupManagers.resize) with size=0 on this group, not paused), "start" (any
    other call on the group that is not a read: a resize to another size, a call the pack cannot
    read; it may bring nodes back), or "" (it acts on another group, reads, or never runs).

    The group is this one when the URL's project and zone (region) are the group's and its name
    the group's own `name` input, or, for a group whose name the pack cannot read (auto-named:
    its cloud name is the resource name plus a random suffix), when the job's URL depends on the
    group (an Output of it): a literal equal to the resource name names another group. A
    project the pack cannot read (unknown at preview, or given nowhere: _group_project) is
    treated as such a name for a stop: only a URL that depends on the group is read as its
    stop; a literal URL is not (the month is priced, never shorter than the truth), while a
    literal call that may start it counts as a start."""
    depends = _acts_on(group, job)
    target = job.get("httpTarget")
    url = _job_url(job)
    if url is None:
        return "start" if depends else ""
    parts, path = url
    if parts.scheme != "https" or parts.netloc.lower() not in _COMPUTE_HOSTS or path is None:
        return "start" if depends else ""
    project, scope, location, kind, name, action = path.groups()
    regional = group.type == GCP_REGION_IGM
    if (scope == "regions") != regional or (kind == "regionInstanceGroupManagers") != regional:
        return ""
    own_location = _group_location(group)
    if isinstance(own_location, str) and own_location and own_location != location:
        return ""
    own_project = _group_project(group)
    # A project number is taken as the stack's own project, as a budget's projects filter
    # takes it (budgets.py): the API's form, which the stack never names its project by.
    if isinstance(own_project, str) and own_project != project and not project.isdigit():
        return ""
    # A project, or a zone (region) unknown at preview, the pack cannot read: a literal URL
    # may or may not name this group; never read as its stop, while a call that may start it
    # still counts as a start.
    unsure = (not isinstance(own_project, str) or own_location is UNKNOWN) and not depends
    own_name = group.get("name")
    if isinstance(own_name, str) and own_name:
        if own_name != name:
            return ""
    elif not depends:
        return ""
    method = target.get("httpMethod")
    if isinstance(method, str) and method.upper() == "GET":
        return ""
    paused = job.get("paused")
    sizes = parse_qs(parts.query).get("size")
    stops = action == "resize" and sizes == ["0"] and isinstance(method, str) and \
        method.upper() == "POST" and isinstance(target.get("oauthToken"), dict)
    if stops:
        # Paused (or unknown at preview, so perhaps paused): no stop, and no start either; one
        # whose `paused` is unknown is said in the estimate ("paused?", _mig_stop).
        if not unsure and paused is UNKNOWN:
            return "paused?"
        return "" if unsure or (paused is not False and paused is not None) else "stop"
    return "" if paused is True else "start"


def _url_group_name(job: Resource) -> Optional[str]:
    """The group name a Cloud Scheduler job's URL names in a Compute API path (the segment
    _job_effect compares with the group's `name` input), or None where its URL names none."""
    url = _job_url(job)
    return url[1].group(5) if url is not None and url[1] is not None else None


def _cloud_jobs_on(group: Resource, index: _StackIndex) -> list[Resource]:
    """The Cloud Scheduler jobs that _job_effect may find acting on `group`, in stack order:
    those with an input that depends on the group, and those whose URL names a group of the
    group's own `name` input (_job_effect answers "" for every other job: a literal URL
    acts on a group only through that name). Indexed once per stack, so a stack of many groups
    and many jobs no longer compares every group with every job."""
    jobs = index.cloud_jobs
    if not jobs:
        return []
    found = index.cloud_job_index
    if found is None:
        by_dep: dict[int, list[int]] = {}
        by_name: dict[str, list[int]] = {}
        for pos, job in enumerate(jobs):
            for d in {id(d) for deps in job.deps.values() for d in deps}:
                by_dep.setdefault(d, []).append(pos)
            name = _url_group_name(job)
            if name is not None:
                by_name.setdefault(name, []).append(pos)
        found = index.cloud_job_index = (by_dep, by_name)
    by_dep, by_name = found
    positions = set(by_dep.get(id(group), ()))
    own_name = group.get("name")
    if isinstance(own_name, str) and own_name:
        positions.update(by_name.get(own_name, ()))
    return [jobs[pos] for pos in sorted(positions)]


def _mig_stop(group: Resource, index: _StackIndex) -> Optional[tuple[Optional[float], str]]:
    """The hours until the plan stops a managed instance group for good, or None; (None, why)
    where a job would stop it but its `paused` is unknown at preview (it may be paused: no stop,
    the month is priced, and the estimate says why).

    (a) A Cloud Scheduler job that resizes it to 0 (_job_effect): until its next firing, from
    its unix-cron `schedule` in its `timeZone` (UTC when left out); trainstack's writes a fixed
    date, "M H D Mon *" in Etc/UTC. A cron the pack cannot turn into a date within a month
    (it does not parse, names no day that comes, or a zone that is no IANA zone) is no stop:
    the month is priced, as for any stop whose time does not read. It holds only when nothing
    may size the group up again after it: another job that resizes it to anything else (a
    cron recurs) or an autoscaler on the group.
    (b) Flex-start: a group of target size 0 whose VMs all come from ResizeRequests that each
    set requestedRunDuration (or whose FLEX_START template sets maxRunDuration): Compute Engine deletes those VMs at its end and does not recreate
    them ("At the end of the run duration, the MIG deletes the created VMs",
    cloud.google.com/compute/docs/instance-groups/about-resize-requests-mig): the longest."""
    stops: list[tuple[float, str]] = []
    effects = [(job, _job_effect(group, job)) for job in _cloud_jobs_on(group, index)]
    maybe_paused = [job.name for job, e in effects if e == "paused?"]
    restarted = any(e == "start" for _, e in effects) or \
        bool(index.gcp_autoscalers.of(group, name_key=None))
    now = _now()
    for job, effect in effects:
        if effect != "stop" or restarted:
            continue
        expr, zone = job.get("schedule"), _zone(job.get("timeZone"))
        if not isinstance(expr, str) or zone is None:
            continue
        when = _next_cron(expr.strip(), zone, now)
        if when is None:
            continue
        hours = float(max(math.ceil((when - now).total_seconds() / 3600 - 1e-6), 1))
        stops.append((hours, f"Cloud Scheduler job {job.name} resizes the group to 0 at "
                             f"{when:%Y-%m-%dT%H:%MZ} ({expr.strip()}, "
                             f"{job.get('timeZone') or 'UTC'})"))
    requests = index.resizes.of(group)
    if requests and number(group.get("targetSize")) == 0:
        # A request without requestedRunDuration takes the run duration of its Flex-start VMs
        # from the template (provisioningModel FLEX_START with maxRunDuration; trainstack's
        # own): "Compute Engine deletes the Flex-start VMs at the end of their run duration"
        # (about-resize-requests-mig). Every version's template must set it.
        templates = [d for d in group.deps.get("versions", []) if d.type in GCP_TEMPLATES]
        flex = [number(t.get("scheduling.maxRunDuration.seconds")) if str(
            t.get("scheduling.provisioningModel")).upper() == "FLEX_START" else None
            for t in templates]
        template_run: Optional[float] = None
        if templates and all(s is not None and s > 0 and math.isfinite(s) for s in flex):
            template_run = max(s for s in flex if s is not None)
        runs = [number(rr.get("requestedRunDuration.seconds")) or template_run
                for rr in requests]
        if all(s is not None and s > 0 and math.isfinite(s) for s in runs):
            longest = max(s for s in runs if s is not None)
            stops.append((float(math.ceil(longest / 3600 - 1e-6)),
                          "the flex-start run duration of the ResizeRequests' VMs (Compute "
                          "Engine deletes them at its end)"))
    if stops:
        return min(stops, key=lambda x: x[0])
    if maybe_paused and not restarted:
        return None, (f"Cloud Scheduler job {', '.join(maybe_paused)} would resize the group "
                      "to 0, but its `paused` is unknown at preview (it may be paused): not "
                      "counted as a stop, the month is priced")
    return None


_CRON_NAMES = {name: i for i, name in enumerate(
    ("sun", "mon", "tue", "wed", "thu", "fri", "sat"))}
_CRON_NAMES.update({name: i + 1 for i, name in enumerate(
    ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"))})


def _cron_value(text: str) -> int:
    """A cron field's value: a day or month name, or ASCII digits (model.digits: unix cron and
    EventBridge take no other script's digits, which int() would read: review76 DEFECT B)."""
    value = _CRON_NAMES[text] if text in _CRON_NAMES else digits(text)
    if value is None:
        raise ValueError(text)
    return value


def _cron_field(text: str, low: int, high: int) -> Optional[set[int]]:
    """The values a unix-cron field allows (*, ?, lists, ranges, steps, day/month names)."""
    out: set[int] = set()
    for part in text.lower().split(","):
        base, _, step_text = part.partition("/")
        try:
            step = _cron_value(step_text) if step_text else 1
            if base in ("*", "?"):
                lo, hi = low, high
            elif "-" in base:
                a, b = base.split("-", 1)
                lo, hi = _cron_value(a), _cron_value(b)
            else:
                lo = _cron_value(base)
                hi = high if step_text else lo
        except ValueError:
            return None
        if step <= 0 or lo < low or hi > high or lo > hi:
            return None
        out.update(range(lo, hi + 1, step))
    return out


@lru_cache(maxsize=256)
def _cron_parsed(expr: str) -> Optional[tuple[tuple[int, ...], tuple[int, ...], frozenset[int],
                                              frozenset[int], frozenset[int], bool]]:
    """A 5-field unix-cron expression read once (a stack of many groups repeats the same few):
    (minutes and hours in order, days, months and weekdays (0-6) as sets, whether day of month
    and day of week are both restricted (then either one fires)), or None where it does not
    parse."""
    fields = expr.split()
    if len(fields) != 5 or not expr.isascii():
        return None   # five fields, split by ASCII blanks (str.split takes Unicode ones too)
    parsed = [_cron_field(f, lo, hi) for f, (lo, hi) in
              zip(fields, ((0, 59), (0, 23), (1, 31), (1, 12), (0, 7)))]
    if any(p is None for p in parsed):
        return None
    minutes, hours, days, months, weekdays = (p or set() for p in parsed)
    either = fields[2] not in ("*", "?") and fields[4] not in ("*", "?")
    return (tuple(sorted(minutes)), tuple(sorted(hours)), frozenset(days), frozenset(months),
            frozenset(d % 7 for d in weekdays), either)


def _next_cron(expr: str, zone: tzinfo, after: datetime) -> Optional[datetime]:
    """The first time after `after` a 5-field unix-cron expression fires in `zone` (within 32
    days; None past that, or when the expression does not parse)."""
    parsed = _cron_parsed(expr)
    if parsed is None:
        return None
    minutes, hours, days, months, weekdays, either = parsed
    local = after.astimezone(zone)
    for offset in range(33):
        day = (local + timedelta(days=offset)).date()
        if day.month not in months:
            continue
        dom, dow = day.day in days, day.isoweekday() % 7 in weekdays
        if not ((dom or dow) if either else (dom and dow)):
            continue
        for hour in hours:
            for minute in minutes:
                when = datetime(day.year, day.month, day.day, hour, minute, tzinfo=zone)
                if when > local:
                    return when.astimezone(timezone.utc)
    return None


def _zone(name: Any) -> Optional[tzinfo]:
    if name in (None, "", "UTC", "Etc/UTC"):
        return timezone.utc
    try:
        from zoneinfo import ZoneInfo
        return ZoneInfo(str(name))
    except (ValueError, KeyError, OSError, ImportError):
        return None


def _instance_schedule_stop(policy: Resource) -> Optional[tuple[float, str]]:
    """A GCP instance schedule (resource policy instanceSchedulePolicy) with a vmStopSchedule
    and no vmStartSchedule, attached to the VM: it stops the VM at the schedule's next time
    and nothing starts it again (cloud.google.com/compute/docs/instances/
    schedule-instance-start-stop). A start schedule restarts it (no lifetime); a schedule that
    does not parse, a time zone that does not exist, or a first stop after the policy's
    expirationTime stops nothing."""
    sp = policy.get("instanceSchedulePolicy")
    if not isinstance(sp, dict) or sp.get("vmStartSchedule"):
        return None
    expr, zone = dig(sp, "vmStopSchedule.schedule"), _zone(sp.get("timeZone"))
    if not isinstance(expr, str) or zone is None:
        return None
    now = _now()
    start = _parse_time(sp.get("startTime"))
    when = _next_cron(expr, zone, max(now, start) if start else now)
    end = _parse_time(sp.get("expirationTime"))
    if when is None or (end is not None and when > end):
        return None
    hours = math.ceil((when - now).total_seconds() / 3600 - 1e-6)
    return float(max(hours, 1)), (f"instance schedule {policy.name} stops the VM at "
                                  f"{when:%Y-%m-%dT%H:%MZ} ({expr}, {sp.get('timeZone') or 'UTC'})")


def _parse_time(value: Any) -> Optional[datetime]:
    return _parse_text(value) if isinstance(value, str) else None


# A stack names a few times, read for every group by several rules (20,000 resources: about
# 5,500 reads of a dozen strings); the reading is a function of the text alone, and a datetime
# cannot be changed by whoever is given it.
@lru_cache(maxsize=4096)
def _parse_text(value: str) -> Optional[datetime]:
    if not value.strip():
        return None
    try:
        when = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    return when if when.tzinfo is not None else when.replace(tzinfo=timezone.utc)


# ------------------------------------------------------------- Alibaba: ESS scheduled tasks

def _ess_bound(task: Resource, key: str, group: Resource, group_key: str) -> Optional[float]:
    value = task.get(key)
    return number(group.get(group_key)) if value is None else number(value)


def _ess_stop(group: Resource, tasks: list[Resource]) -> Optional[tuple[float, str]]:
    """An enabled one-time ESS scheduled task on the group (by its scalingGroupId) that sets
    its maximum (and so its minimum) to 0 at launchTime: Auto Scaling then removes its
    instances (alibabacloud.com/help/en/auto-scaling/developer-reference/
    api-ess-2014-08-28-createscheduledtask: ScalingGroupId with MinValue / MaxValue /
    DesiredCapacity). A task that recurs, is disabled, runs a scaling rule
    (scheduledAction, not read), keeps a node, or beside another task that may scale the
    group up again after it (one that recurs, or runs once later: _holds), stops nothing."""
    enabled = [t for t in tasks if str(t.get("taskEnabled")).lower() != "false"]
    stops, restarts = [], []
    for t in enabled:
        high = _ess_bound(t, "maxValue", group, "maxSize")
        low = _ess_bound(t, "minValue", group, "minSize")
        desired = t.get("desiredCapacity")
        if not t.get("scheduledAction") and high == 0 and low == 0 and \
                (desired is None or number(desired) == 0):
            stops.append(t)
        else:
            restarts.append(t)
    # A one-time task that raises the group runs at its launchTime; one that recurs, or whose
    # time does not read, may run after any stop.
    times = []
    for t in restarts:
        when = _parse_time(t.get("launchTime"))
        times.append(math.inf if t.get("recurrenceType") or when is None
                     else (when - _now()).total_seconds() / 3600)
    last = max(times) if times else None
    for t in stops:
        if t.get("recurrenceType"):
            return None
        hours = _hours_until(t.get("launchTime"))
        when = _parse_time(t.get("launchTime"))
        if hours is not None and when is not None and _holds(when, last):
            return hours, f"ESS scheduled task {t.name} sets the group to 0 at " \
                          f"{t.get('launchTime')}"
    return None


# ----------------------------------------------------------- AWS: EventBridge Scheduler

# re.ASCII: \d alone matches any Unicode decimal digit ('５'), which no schedule takes.
_AT = re.compile(r"^at\((\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)\)$", re.ASCII)
_CRON = re.compile(r"^cron\(([^()]*)\)$")
_RATE = re.compile(r"^rate\((\d+) (minute|minutes|hour|hours|day|days)\)$", re.ASCII)
# EventBridge cron counts the day of the week 1-7 from Sunday (SUN-SAT); unix cron 0-6.
_AWS_DAYS = {name: str(i + 1) for i, name in enumerate(
    ("sun", "mon", "tue", "wed", "thu", "fri", "sat"))}


def _next_aws_cron(fields_text: str, zone: tzinfo, after: datetime) -> Optional[datetime]:
    """The first time after `after` an EventBridge cron expression (minutes hours
    day-of-month month day-of-week year: docs.aws.amazon.com/scheduler/latest/UserGuide/
    schedule-types.html, eventbridge/latest/userguide/eb-scheduled-rule-pattern.html) fires in
    `zone`; None when it does not parse (L, W and # are not read) or fires in no year it
    allows within the next 32 days."""
    fields = fields_text.split()
    if len(fields) != 6 or not fields_text.isascii():
        return None
    minute, hour, dom, month, dow, year = fields
    if dow not in ("*", "?"):
        text = dow.lower()
        for name, value in _AWS_DAYS.items():
            text = text.replace(name, value)
        days = _cron_field(text, 1, 7)
        if days is None:
            return None
        dow = ",".join(str(d - 1) for d in sorted(days))
    years = None if year in ("*", "?") else _cron_field(year, 1970, 2199)
    if year not in ("*", "?") and years is None:
        return None
    when = _next_cron(" ".join((minute, hour, dom, month, dow)), zone, after)
    if when is None or (years is not None and when.astimezone(zone).year not in years):
        return None
    return when


def _first_run(expr: Any, zone: Optional[tzinfo], start: Any = None, end: Any = None,
               rate_from_start: bool = True) -> Optional[datetime]:
    """When a schedule expression first invokes its target from now: at() at its time (start
    and end do not apply to one-time schedules); cron() at its next time not before `start`
    (an EventBridge Scheduler startDate) and before `end` (endDate); rate() at `start` when it
    is to come, else now when `rate_from_start` (a Scheduler rate schedule with no startDate
    "starts invoking the target immediately", schedule-types.html), else one period from now
    (a scheduled rule: "a rate expression starts when you create the scheduled event rule, and
    then it runs on a defined schedule", eventbridge/latest/userguide/eb-rate-expressions.html,
    so its first run is at the latest one period after creation). None when it does not
    read."""
    if not isinstance(expr, str) or zone is None:
        return None
    expr = expr.strip()
    now = _now()
    match = _AT.match(expr)
    if match is not None:
        try:
            return datetime.fromisoformat(match.group(1)).replace(tzinfo=zone)
        except ValueError:
            return None
    if start is not None and _parse_time(start) is None:
        return None   # a startDate that is no time: when it begins is not readable
    if end is not None and _parse_time(end) is None:
        return None
    begin, stop = _parse_time(start), _parse_time(end)
    when: Optional[datetime] = None
    match = _CRON.match(expr)
    if match is not None:
        when = _next_aws_cron(match.group(1), zone, max(now, begin) if begin else now)
    match = _RATE.match(expr)
    if match is not None and int(match.group(1)) > 0:
        period = timedelta(**{match.group(2).rstrip("s") + "s": int(match.group(1))})
        if begin is not None and begin > now:
            when = begin
        else:
            when = now if rate_from_start and begin is None else now + period
    if when is None or (stop is not None and when >= stop):
        return None
    return when


def _eventbridge_hours(s: Resource) -> Optional[tuple[float, datetime]]:
    """Hours until an enabled EventBridge Scheduler schedule first invokes its target
    (_first_run, in its scheduleExpressionTimezone, UTC by default: schedule-types.html) at
    the latest (plus a FLEXIBLE window's maximumWindowInMinutes); at least 1 for a recurring
    schedule (the started hour is billed), with the earliest time it may run; None for a
    disabled schedule, a one-time schedule already past, or an expression, zone, date or
    window that does not read."""
    if str(s.get("state") or "ENABLED").upper() != "ENABLED":
        return None
    expr = s.get("scheduleExpression")
    when = _first_run(expr, _zone(s.get("scheduleExpressionTimezone")), s.get("startDate"),
                      s.get("endDate"))
    if when is None:
        return None
    # A flexible time window lets the call come up to maximumWindowInMinutes later.
    window = s.get("flexibleTimeWindow")
    late = number(window.get("maximumWindowInMinutes")) \
        if isinstance(window, dict) and str(window.get("mode")).upper() == "FLEXIBLE" else 0
    if late is None or not math.isfinite(late) or late < 0:
        return None
    hours = math.ceil((when - _now()).total_seconds() / 3600 + late / 60 - 1e-6)
    if isinstance(expr, str) and not expr.strip().startswith("at("):
        return float(max(hours, 1)), when
    return (float(hours), when) if hours > 0 else None


def _eventbridge_target(s: Resource) -> tuple[str, Any]:
    """(the universal target's service:action in lower case, its input as a dict, UNKNOWN, or
    None when it does not read)."""
    target = s.get("target")
    if not isinstance(target, dict) or not isinstance(target.get("arn"), str):
        return "", None
    action = target["arn"].lower().partition(":aws-sdk:")[2]
    payload = target.get("input")
    if payload is UNKNOWN:
        return action, UNKNOWN
    parsed = json_text(payload)   # None where it does not parse or nests too deep
    return action, parsed if isinstance(parsed, dict) else None


def _acts_on(r: Resource, holder: Resource) -> bool:
    """Whether any input of `holder` depends on the node resource `r`."""
    return any(d is r for deps in holder.deps.values() for d in deps)


_LAMBDA_FUNCTION = "aws:lambda/function:Function"


def _parsed(value: Any, out: list) -> bool:
    """Every mapping and string in `value` (a JSON text read as JSON), into `out`; False when
    some of it is JSON text that does not parse or nests past what json reads: what it names
    cannot be read, so it must not count as naming nothing."""
    if isinstance(value, str):
        out.append(value.strip())
        read = json_text(value)
        if read is None:
            return False
        return _parsed(read, out) if read is not value else True
    if isinstance(value, dict):
        out.append(value)
        return all([_parsed(v, out) for v in value.values()])
    if isinstance(value, list):
        return all([_parsed(v, out) for v in value])
    return True


def _matches(given: Any, value: str) -> bool:
    """A filter value (or a list of them) that finds the tag value `value`: equal, or a
    pattern with * or ? ("You can use wildcards with the filter values: * matches zero or
    more characters", docs.aws.amazon.com/AWSEC2/latest/APIReference/API_DescribeInstances
    .html)."""
    if isinstance(given, list):
        return any(_matches(g, value) for g in given)
    if not isinstance(given, str):
        return False
    given = given.strip()
    return given == value or (("*" in given or "?" in given) and fnmatchcase(value, given))


_KEY_NAMES = ("Key", "key", "Name", "name")
_VALUE_NAMES = ("Values", "values", "Value", "value")


def _names_tag(found: list, key: str, value: str) -> bool:
    """Whether what a Lambda is given names the tag key=value as one tag: a mapping
    {key: value} or {"tag:key": value} (a variable named by the key), an EC2 filter
    {Name: "tag:key", Values: [...]} or a Tagging API filter {Key: key, Values: [...]}, a pair
    of variables PREFIX_KEY = key and PREFIX_VALUE = value, or a string "key=value" (or
    "tag:key=value", among others split by commas or spaces); a key may be written key or
    tag:key (the EC2 filter form) in each of them. A pair of variables may name the key
    PREFIX_NAME (the filter's Name) as well. Values may be wildcards."""
    for item in found:
        if isinstance(item, str):
            for part in re.split(r"[,;\s]+", item):
                name, eq, given = part.partition("=")
                if eq and name.removeprefix("tag:") == key and _matches(given, value):
                    return True
            continue
        if _matches(item.get(key), value) or _matches(item.get(f"tag:{key}"), value):
            return True
        if any(item.get(n) in (key, f"tag:{key}") for n in _KEY_NAMES) and \
                any(_matches(item.get(n), value) for n in _VALUE_NAMES):
            return True
        for name, given in item.items():
            # PREFIX_KEY / PREFIX_NAME = key or tag:key (the Tagging API's Key, the EC2
            # filter's Name) beside PREFIX_VALUE(S) (review81 DEFECT 1: tag:key as a value).
            if not (isinstance(name, str) and isinstance(given, str)
                    and given.strip() in (key, f"tag:{key}")):
                continue
            for tail in ("KEY", "NAME"):
                if name.upper().endswith(tail):
                    prefix = name[:-len(tail)]
                    # A list in one variable, "a,b": a tag value holds no comma (AWS allows
                    # letters, digits, spaces and + - = . _ : / @), so the parts are values.
                    if any(_matches(got, value) or (isinstance(got, str) and _matches(
                            got.split(","), value)) for got in (item.get(prefix + suffix) for
                           suffix in ("VALUE", "VALUES", "Value", "Values", "value", "values"))):
                        return True
    return False


def _runs_lambda(holder: Resource) -> bool:
    """Whether a Scheduler schedule or rule target runs a Lambda function: a function of the
    stack it depends on, or an arn:aws:lambda:...:function: ARN."""
    if any(d.type == _LAMBDA_FUNCTION for deps in holder.deps.values() for d in deps):
        return True
    arn = dig(holder.props, "target.arn") if holder.type == _SCHEDULER else holder.get("arn")
    return isinstance(arn, str) and ":lambda:" in arn and ":function:" in arn


def _finds_by_tag(r: Resource, holder: Resource) -> bool:
    """Whether `holder` (a Scheduler schedule or a rule target) runs a Lambda function (an
    arn:aws:lambda:...:function: ARN, or a function of the stack it depends on) whose input or
    environment variables name a tag of the nodes as one tag (_names_tag): code that finds the
    nodes by tag, which may start them (what it does cannot be read). Only the nodes' tags
    are matched: a tag the function carries too (the team's cost tags, a provider's default
    tags) still finds the nodes, since a tag filter (ec2:DescribeInstances, the Tagging API
    with an instance type filter) returns the instances that carry it, never the function
    (review80 DEFECT 1; review35h l1 had read such a tag as singling out nothing). An input or
    variable that is JSON text the pack cannot parse (nested too deep, cut short) may name a
    tag of the nodes: it may start them too."""
    functions = [d for deps in holder.deps.values() for d in deps if d.type == _LAMBDA_FUNCTION]
    if not functions and not _runs_lambda(holder):
        return False
    tags = tags_of(r)
    if not isinstance(tags, dict):
        return False
    for t in r.deps.get("launchTemplate", []):   # the instances' tags a template sets
        for spec in _dicts(t.get("tagSpecifications")):
            if isinstance(spec, dict) and isinstance(spec.get("tags"), dict) and \
                    str(spec.get("resourceType")).lower() == "instance":
                tags = {**tags, **spec["tags"]}
    tags = {k: v for k, v in tags.items() if isinstance(v, str)}
    if not tags:
        return False
    found: list = []
    readable = _parsed(dig(holder.props, "target.input") if holder.type == _SCHEDULER else
                       holder.get("input"), found)
    for fn in functions:
        readable = _parsed(fn.get("environment.variables"), found) and readable
    # What cannot be read may name the nodes' tag: it may start them (docs, lifetimes).
    return not readable or any(_names_tag(found, k, v) for k, v in tags.items())


def _asg_name_key(group: Resource) -> str:
    """The input that holds an AWS group's own name: `name` (classic), `autoScalingGroupName`
    (aws-native, CloudFormation's AutoScalingGroupName)."""
    return "autoScalingGroupName" if group.type == AWS_NATIVE_ASG else "name"


def _scheduler_effect(r: Resource, s: Resource, scaled: bool = False) -> str:
    """What an EventBridge Scheduler schedule does to the group or instance `r`: "stop", "start"
    (it may start or scale the nodes up again), or "" (nothing the pack sees).
    autoscaling:updateAutoScalingGroup naming the group's own `name`: a stop when it leaves it
    at minimum 0 with maximum or desired 0 (sizes it leaves out keep the group's; beside a
    scaling policy on the group, maximum 0: _held_at_zero), else a start;
    ec2:stopInstances / ec2:terminateInstances depending on the instance, with InstanceIds
    (or an input unknown at preview): a stop; ec2:startInstances on it: a start. Any other
    target acting on the nodes (another autoscaling call naming the group, a Lambda function
    whose input depends on them or that finds them by tag: _finds_by_tag) cannot be read and
    may start them: a start."""
    action, payload = _eventbridge_target(s)
    if r.type in (AWS_ASG, AWS_NATIVE_ASG):
        name = r.get(_asg_name_key(r))
        names_it = isinstance(payload, dict) and isinstance(name, str) and \
            payload.get("AutoScalingGroupName") == name
        if action == "autoscaling:updateautoscalinggroup" and names_it:
            def after(key: str, group_key: str) -> Optional[float]:
                value = payload.get(key)
                return number(r.get(group_key)) if value is None else number(value)
            low, high = after("MinSize", "minSize"), after("MaxSize", "maxSize")
            desired = after("DesiredCapacity", "desiredCapacity")
            return "stop" if _held_at_zero(low, high, desired, scaled) else "start"
        return "start" if names_it or _acts_on(r, s) or _finds_by_tag(r, s) else ""
    if not _acts_on(r, s):
        return "start" if _finds_by_tag(r, s) else ""
    if action in ("ec2:stopinstances", "ec2:terminateinstances"):
        if payload is UNKNOWN or (isinstance(payload, dict) and isinstance(
                payload.get("InstanceIds"), list) and payload["InstanceIds"]):
            return "stop"
        return ""
    return "start"


# The AWS-owned Systems Manager Automation runbooks that stop, terminate or start EC2
# instances (InstanceId: a list of ids; docs.aws.amazon.com/systems-manager-automation-
# runbooks/latest/userguide/automation-aws-stopec2instance.html and its siblings): a
# scheduled rule's target runs one by its automation-definition ARN.
_RUNBOOKS = {"aws-stopec2instance": "stop", "aws-terminateec2instance": "stop",
             "aws-startec2instance": "start"}


def _rule_of(t: Resource, index: _StackIndex) -> Optional[Resource]:
    """The rule a target names: by dependency, else the first rule of the stack whose `name`
    is the target's `rule`."""
    for d in t.deps.get("rule", []):
        if d.type == "aws:cloudwatch/eventRule:EventRule":
            return d
    name = t.get("rule")
    if not isinstance(name, str) or not name:
        return None
    return _eventbridge_index(index).rules.get(name)


class _EventBridgeIndex:
    """Which EventBridge Scheduler schedules and rule targets may act on an AWS group or
    instance, by position in stack order: those that depend on it (by_dep), schedules whose
    input names a group by its own name (by_name), and those that run a Lambda function
    (lambdas: _finds_by_tag may find any node by tag). _scheduler_effect and _rule_effect
    answer "" for every other one, so a stack of many nodes and many stops is read in one
    pass, not nodes x schedules. rules: each rule name's first rule, for _rule_of."""

    def __init__(self, index: _StackIndex):
        self.schedules = self._positions(index.eventbridge, by_name=True)
        self.targets = self._positions(index.event_targets, by_name=False)
        self.rules: dict[str, Resource] = {}
        for rule in index.event_rules:
            name = rule.get("name")
            if isinstance(name, str):
                self.rules.setdefault(name, rule)

    @staticmethod
    def _positions(holders: list[Resource], by_name: bool
                   ) -> tuple[dict[int, list[int]], dict[str, list[int]], list[int]]:
        by_dep: dict[int, list[int]] = {}
        names: dict[str, list[int]] = {}
        lambdas: list[int] = []
        for pos, h in enumerate(holders):
            for d in {id(d) for deps in h.deps.values() for d in deps}:
                by_dep.setdefault(d, []).append(pos)
            if by_name:
                payload = _eventbridge_target(h)[1]
                name = payload.get("AutoScalingGroupName") if isinstance(payload, dict) else None
                if isinstance(name, str):
                    names.setdefault(name, []).append(pos)
            if _runs_lambda(h):
                lambdas.append(pos)
        return by_dep, names, lambdas


def _eventbridge_index(index: _StackIndex) -> _EventBridgeIndex:
    found = index.eventbridge_index
    if found is None:
        found = index.eventbridge_index = _EventBridgeIndex(index)
    return found


def _on(r: Resource, holders: list[Resource], positions: tuple) -> list[Resource]:
    by_dep, names, lambdas = positions
    found = set(by_dep.get(id(r), ()))
    found.update(lambdas)
    if r.type in (AWS_ASG, AWS_NATIVE_ASG):
        name = r.get(_asg_name_key(r))
        if isinstance(name, str):
            found.update(names.get(name, ()))
    return [holders[pos] for pos in sorted(found)]


def _eventbridge_on(r: Resource, index: _StackIndex) -> list[Resource]:
    """The Scheduler schedules whose _scheduler_effect on `r` may be other than "", in stack
    order (_EventBridgeIndex)."""
    if not index.eventbridge:
        return []
    return _on(r, index.eventbridge, _eventbridge_index(index).schedules)


def _targets_on(r: Resource, index: _StackIndex) -> list[Resource]:
    """The rule targets whose _rule_effect on `r` may be other than "", in stack order."""
    if not index.event_targets:
        return []
    return _on(r, index.event_targets, _eventbridge_index(index).targets)


def _rule_effect(r: Resource, t: Resource,
                 rule: Optional[Resource]) -> tuple[str, Optional[datetime]]:
    """(effect, when) of an EventBridge rule target on the instance or group `r`: a stop
    (with the rule's first scheduled run, in UTC) when an enabled rule with a
    cron()/rate() scheduleExpression runs AWS-StopEC2Instance or AWS-TerminateEC2Instance
    with an input that depends on the instance; "start" for AWS-StartEC2Instance, or any
    other target acting on the nodes (what it does cannot be read); "" otherwise. A rule
    cannot call Auto Scaling itself (scheduled rules' targets: eb-scheduled-rule-pattern.html),
    so no rule target reads as a group's stop."""
    if not _acts_on(r, t):
        return ("start", None) if _finds_by_tag(r, t) else ("", None)
    arn = t.get("arn")
    document = arn.lower().partition(":automation-definition/")[2].partition(":")[0] \
        if isinstance(arn, str) else ""
    effect = _RUNBOOKS.get(document, "start") if r.type == AWS_INSTANCE else "start"
    if effect != "stop":
        return effect, None
    if rule is None or str(rule.get("state") or "ENABLED").upper() not in (
            "ENABLED", "ENABLED_WITH_ALL_CLOUDTRAIL_MANAGEMENT_EVENTS") or \
            rule.get("isEnabled") is False:
        return "", None
    expr = rule.get("scheduleExpression")
    if not isinstance(expr, str) or expr.strip().startswith("at("):
        return "", None   # an event pattern fires on events, not on the plan's clock
    when = _first_run(expr, timezone.utc, rate_from_start=False)
    if when is None:
        return "", None
    return "stop", when


def _eventbridge_stop(r: Resource, index: _StackIndex, scaled: bool = False,
                      last: Optional[float] = None) -> Optional[tuple[float, str]]:
    """The first stop of the group or instance by an EventBridge Scheduler schedule
    (_scheduler_effect, at its first invocation: _eventbridge_hours) or a scheduled rule's
    target (_rule_effect), read only where the target is readable
    (docs.aws.amazon.com/scheduler/latest/UserGuide/managing-targets-universal.html), that
    nothing starts the nodes again after (`last`, the hours until the last start anywhere in
    the stack: _last_start). A stop, one-time or recurring, with no start after its first run
    stops the nodes then and they stay stopped: a lifetime. Anything that starts or may start
    them after it (a later or recurring start schedule or rule, an unreadable target acting on
    them) makes it a pause: no lifetime; a one-time start before it changes nothing."""
    stops: list[tuple[float, str]] = []
    for s in _eventbridge_on(r, index):
        effect = _scheduler_effect(r, s, scaled)
        timed = _eventbridge_hours(s) if effect == "stop" else None
        if timed is not None and _holds(timed[1], last):
            action = _eventbridge_target(s)[0]
            stops.append((timed[0], f"EventBridge schedule {s.name} ({action}) at "
                                    f"{s.get('scheduleExpression')}"))
    for t in _targets_on(r, index):
        rule = _rule_of(t, index)
        effect, when = _rule_effect(r, t, rule)
        if when is not None and rule is not None and _holds(when, last):
            hours = math.ceil((when - _now()).total_seconds() / 3600 - 1e-6)
            stops.append((float(max(hours, 1)), f"EventBridge rule {rule.name} "
                                                f"({t.get('arn')}) at "
                                                f"{rule.get('scheduleExpression')}"))
    if not stops:
        return None
    return min(stops, key=lambda x: x[0])
