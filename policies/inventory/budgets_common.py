"""Budgets, shared by the per-cloud readers (budgets_aws, budgets_gcp, budgets_azure): the Budget,
what the GPU compute is to a filter, amounts and periods, dates, and filter shapes."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any, Optional

from trainstack_policies.inventory.values import _list, json_text
from trainstack_policies.model import (
    UNKNOWN,
    BadNumber,
    Resource,
    checked_number,
    has_unknown,
    number,
    short_repr,
)


@dataclass
class Budget:
    resource: Resource
    monthly: Optional[float]   # None: no fixed amount (e.g. GCP last_period_amount)
    currency: str
    amount_text: str
    unknown: str = ""          # the input path whose value is unknown at preview
    invalid: str = ""          # an amount that is NaN, infinite or not positive
    # Filters that leave out the GPU compute (an S3-only budget; a Region, tag/label, project
    # or instance type the GPU compute does not have): it watches part of the bill, not the
    # GPU spend, so it is neither the stack's cap nor its GPU alarm. Tag/label filters the GPU
    # compute carries keep it the stack's budget; an AWS LinkedAccount filter does when it
    # names the account(s) the compute's provider deploys to, and is undecided when the
    # program names none.
    scope: str = ""
    covers_compute: bool = True   # its filters still include the compute that runs GPU nodes
    # Filters (or an Azure scope) that cannot be read at preview: neither the cap nor, alone,
    # the alarm; "cannot decide" when no other budget covers the compute.
    filters_unknown: str = ""
    # Another currency: "" (USD), the rate it was converted at (monthly is then in USD), or
    # undecided text when no cited rate exists (monthly is then None).
    converted: str = ""
    no_rate: str = ""
    # Why the amount is set by the billing service, not the program (an AWS auto-adjusting
    # budget, a GCP budget of last period's spend): no cap the pack can read, before or after
    # apply ("cannot decide" where it would be the cap); monthly is then None.
    open_amount: str = ""
    # Why the budget tells no one when it is crossed ("" when it notifies someone, or when
    # that is unknown at preview): it still states the cap, but it is no alarm.
    silent: str = ""
    # The input unknown at preview that may leave it notifying no one (its notification list,
    # a notification that may be disabled): no alarm the pack can count, "cannot decide".
    silent_unknown: str = ""
    # Whether it covers the compute turns on a fact the pack cannot read (an AKS cluster's
    # node resource group unknown at preview or outside the stack): "cannot decide", as
    # filters_unknown, with this text.
    outside: str = ""
    # Per GPU group of its cloud (by id() of the group's resource): the groups its scope or
    # filters leave out (why), and those it may or may not take in (filters_unknown, outside).
    # A budget that takes in group A is no alarm for group B and caps the stack less B.
    leaves_out: dict[int, str] = field(default_factory=dict)
    unsure: dict[int, tuple[str, str]] = field(default_factory=dict)
    # A time period date that is there but no date the pack can read (text such as
    # "tomorrow", fullwidth digits, a month 13, a list): the input and its value. Never read as
    # "no end" (or "no start"): the budget is neither the cap nor the alarm, and a violation.
    unread_period: str = ""
    # A filter written in another shape than the provider's (a list of one where one object is
    # asked for, an entry that is no object), or a planned limit whose start does not read: the
    # input and its value. Never read as "no filter": neither the cap nor the alarm, a violation.
    unread_input: str = ""

    def coverage(self, group: Resource) -> Optional[bool]:
        """Whether it takes in one GPU group's cost: True, False, or None (cannot decide)."""
        if id(group) in self.unsure:
            return None
        if id(group) in self.leaves_out:
            return False
        if self.covers_compute:
            return True
        return None if self.filters_unknown or self.outside else False

    def why_unsure(self, group: Resource) -> tuple[str, str]:
        """(unknown path, outside text) that leaves its coverage of the group undecided."""
        return self.unsure.get(id(group), (self.filters_unknown, self.outside))


def _entries(value: Any) -> list:
    """A list input as its items; one object given where a list is asked for, as a list of it."""
    return [value] if isinstance(value, dict) else _list(value)


def _present(value: Any) -> bool:
    """A recipient list / topic that is set (a value unknown at preview will be set)."""
    return has_unknown(value) or bool(value)


_PERIODS = {"MONTHLY": 1, "MONTH": 1, "BILLINGMONTH": 1, "QUARTERLY": 3,
            "QUARTER": 3, "BILLINGQUARTER": 3, "ANNUALLY": 12, "YEAR": 12, "BILLINGANNUAL": 12,
            "DAILY": 24 / 730}


def _per_month(amount: Optional[float], period: Any) -> Optional[float]:
    if amount is None:
        return None
    months = _PERIODS.get(str(period or "MONTHLY").replace(" ", "").upper(), 1)
    return amount / months


def _amount(r: Resource, path: str) -> tuple[Optional[float], str, str]:
    """(amount, unknown path, invalid text) of a budget amount input."""
    value = checked_number(r.reach(path))
    if value is UNKNOWN:
        return None, path, ""
    if isinstance(value, BadNumber) or value == 0:
        return None, "", value.text if value else "0"
    return value, "", ""


class _Compute:
    """What the stack's GPU compute of one cloud is, for matching a budget's filters: its
    regions, tags/labels, projects and types (read once per stack, only for a budget with a
    filter that names them)."""

    def __init__(self, resources: list[Resource], cloud: str, only: Optional[list] = None):
        from trainstack_policies.inventory.compute import gpu_groups
        from trainstack_policies.inventory.tags import instance_tags
        self.regions: list[str] = []
        self.tags: list[Any] = []          # per group: a dict, or UNKNOWN
        self.projects: list[Any] = []
        self.types: list[Any] = []
        self.zones: list[Any] = []         # every group's zones ("" unread, UNKNOWN)
        self.spot: list[bool] = []         # per group: spot (else On-Demand)
        # per group (AWS): (accounts its provider may deploy to or None, accounts it may not)
        self.accounts: list[tuple[Any, set]] = []
        # per group (Azure): (ARM resource type, name) of a scale set or VM, the name None
        # when auto-named; None for compute whose ARM id the pack does not build (AKS, AML)
        self.arm: list[Any] = []
        for g in (gpu_groups(resources) if only is None else only):
            if g.cloud != cloud:
                continue
            self.regions.append(g.region)
            self.zones += list(g.zones)
            self.spot.append(bool(g.spot))
            self.types += list(g.instance_types)
            if cloud == "aws":
                self.accounts.append(_aws_accounts(g.resource))
            if cloud == "azure":
                self.arm.append(_arm_name(g.resource))
            self.tags.append(instance_tags(g.resource, g.template))
            if cloud == "gcp":
                project = g.resource.get("project") or (
                    g.template.get("project") if g.template is not None else None) \
                    or g.resource.provider.get("project")
                self.projects.append(project)


# The ARM resource type and name input of the Azure compute whose id is
# /subscriptions/{sub}/resourceGroups/{group}/providers/{type}/{name} (azure-native and
# classic scale sets and VMs).
_ARM_NAMES = {
    "azure-native:compute:VirtualMachineScaleSet": ("microsoft.compute/virtualmachinescalesets",
                                                    "vmScaleSetName"),
    "azure-native:compute:VirtualMachine": ("microsoft.compute/virtualmachines", "vmName"),
    **{t: ("microsoft.compute/virtualmachinescalesets", "name") for t in (
        "azure:compute/linuxVirtualMachineScaleSet:LinuxVirtualMachineScaleSet",
        "azure:compute/windowsVirtualMachineScaleSet:WindowsVirtualMachineScaleSet",
        "azure:compute/orchestratedVirtualMachineScaleSet:OrchestratedVirtualMachineScaleSet",
        "azure:compute/scaleSet:ScaleSet")},
    **{t: ("microsoft.compute/virtualmachines", "name") for t in (
        "azure:compute/linuxVirtualMachine:LinuxVirtualMachine",
        "azure:compute/windowsVirtualMachine:WindowsVirtualMachine")},
}


def _arm_name(r: Resource) -> Any:
    """(ARM type, lower-case name or None when auto-named / unknown) of a scale set or VM; None
    for other compute."""
    if r.type not in _ARM_NAMES:
        return None
    kind, key = _ARM_NAMES[r.type]
    name = r.get(key)
    return (kind, name.lower() if isinstance(name, str) and name else None)


def _aws_accounts(r: Resource) -> tuple[Any, set]:
    """(the accounts r's AWS provider may deploy to, the accounts it may not): its
    allowedAccountIds, else the account of the role it assumes (the last of assumeRoles, an
    arn:aws:iam::<account>:role/... ARN); None where the program names no account, UNKNOWN
    where that is unknown at preview; forbiddenAccountIds (pulumi-aws provider inputs)."""
    provider = r.provider
    forbidden = json_text(provider.get("forbiddenAccountIds"))
    refused = {str(a) for a in forbidden if isinstance(a, (str, int))} \
        if isinstance(forbidden, list) else set()
    allowed = json_text(provider.get("allowedAccountIds"))
    if has_unknown(allowed):
        return UNKNOWN, refused
    if isinstance(allowed, list) and allowed:
        return {str(a) for a in allowed}, refused
    roles: Any = []
    for key in ("assumeRoles", "assumeRole"):
        value = json_text(provider.get(key))
        roles = roles or ([value] if isinstance(value, dict) else _list(value))
    arns = [role.get("roleArn") if isinstance(role, dict) else UNKNOWN for role in roles
            if isinstance(role, dict) or role is UNKNOWN]
    arn = arns[-1] if arns else None
    if has_unknown(arn):
        return UNKNOWN, refused
    account = str(arn).split(":")[4] if isinstance(arn, str) and arn.count(":") >= 5 else ""
    return ({account} if account.isdigit() else None), refused


def _compute_of(resources: list[Resource], cloud: str, cache: dict) -> _Compute:
    if cloud not in cache:
        cache[cloud] = _Compute(resources, cloud)
    return cache[cloud]


def _tag_matches(tags: list[Any], key: str, value: Any) -> Any:
    """True when a group carries tag key=value, UNKNOWN when a group's tags are unknown."""
    if any(t is UNKNOWN for t in tags):
        return UNKNOWN
    return any(str(t.get(key)) == str(value) for t in tags if key in t)


# A filter whose reach the pack does not read (an AWS CostCategory, a GCP subaccount, an Azure
# dimension or operator it does not know): the budget's coverage of the GPU compute is then
# "cannot decide" (Budget.outside), never "covers". No apply would tell it either.
_UNREAD = object()


def _unread_text(what: str) -> str:
    return (f"{what}: the pack does not read which costs this filter takes in, so whether it "
            "takes in the GPU compute cannot be decided (filter on a dimension the pack reads: "
            "docs/policies.md, budgets)")


def _any_of(results: list[Any]) -> Any:
    """Alternatives (the values of one filter): True if one takes the compute in, else
    undecided if one may (_UNREAD, None: a group that may be the compute's, UNKNOWN, as
    _azure_part orders them), else False."""
    if True in results:
        return True
    if any(r is _UNREAD for r in results):
        return _UNREAD
    if any(r is None for r in results):
        return None
    if any(r is UNKNOWN for r in results):
        return UNKNOWN
    return False


def _end_time(value: Any) -> Optional[datetime]:
    """A budget's end as a UTC time: AWS "2025-12-31_23:59", Azure ISO-8601, GCP
    {year, month, day} (the end of that day, each a whole number); None when absent or not a
    time. Text reads only in ASCII (as model.number reads numbers): Python's strptime would
    read fullwidth digits (its digit class matches any Unicode digit), no cloud's date format does."""
    try:
        if isinstance(value, dict):
            y, m, d = (number(value.get(k)) for k in ("year", "month", "day"))
            if y is None or m is None or d is None or not all(
                    float(n).is_integer() for n in (y, m, d)):
                return None
            return datetime(int(y), int(m), int(d), tzinfo=timezone.utc) + timedelta(days=1)
        if not isinstance(value, str) or not value.strip() or not value.isascii():
            return None
        text = value.strip()
        if "_" in text:
            return datetime.strptime(text, "%Y-%m-%d_%H:%M").replace(tzinfo=timezone.utc)
        when = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except (ValueError, OverflowError):
        return None
    return when if when.tzinfo is not None else when.replace(tzinfo=timezone.utc)


def _unread_period(r: Resource, *paths: str) -> tuple[str, str]:
    """(path unknown at preview, unread text) of a budget's time period dates (AWS
    timePeriodEnd / timePeriodStart, Azure timePeriod.endDate / startDate, GCP
    budgetFilter.customPeriod.endDate / startDate): a date that is there but reads as no date
    (docs: "a budget that cannot be read is not 'no cap'") names the input and its value; one
    unknown at preview (or under a holder unknown at preview) gives its path. ("", "") when
    each is absent or reads."""
    for path in paths:
        value = r.reach(path)   # a holder in another shape: BadNumber naming it
        if value is None:
            continue
        if has_unknown(value):
            return path, ""
        if isinstance(value, BadNumber) or _end_time(value) is None:
            shown = value.text if isinstance(value, BadNumber) else short_repr(value)
            return "", f"{path} {shown} (no date the pack can read)"
    return "", ""


def _unread_shape(r: Resource, objects: tuple[str, ...], lists: tuple[str, ...] = (),
                  names: tuple[str, ...] = ()) -> str:
    """The input and value of a budget filter written in another shape than the provider's
    ("" when none): one of `objects` that is there but no object (GCP budgetFilter, Azure filter,
    AWS filterExpression: a list of one, text), one of `lists` that is an object but no
    {name, values} entry (AWS costFilters as the pre-v5 map {"InstanceType": ["t3.small"]}) or
    has an entry that is no object (AWS costFilters "Region=us-east-1"), or one of `names` that
    is set but no list (GCP budgetFilter.projects as text). Docs: "a budget that cannot be read
    is not 'no cap'"; read as no filter, it would be the whole account's budget, the stack's
    cap."""
    for path in objects:
        value = r.get(path)
        if value is not None and value is not UNKNOWN and not isinstance(value, dict):
            return f"{path} {short_repr(value)} (no object: a filter the pack cannot read)"
    for path in names:
        value = r.get(path)
        if value is not UNKNOWN and value != "" and _sets_something(value) and \
                not isinstance(value, (list, tuple)):
            return f"{path} {short_repr(value)} (no list: a filter the pack cannot read)"
    for path in lists:
        value = r.get(path)
        if isinstance(value, dict):
            if _sets_something(value) and not _cost_filter_entry(value):
                return (f"{path} {short_repr(value)} (an object that is no {{name, values}} "
                        "entry, such as the pre-v5 map {name: values}: a filter the pack "
                        "cannot read)")
            continue
        if value is None or value is UNKNOWN:
            continue
        entries = value if isinstance(value, (list, tuple)) else [value]
        odd = [e for e in entries if e is not UNKNOWN and not isinstance(e, dict)]
        if odd:
            return (f"{path} {short_repr(value)} (an entry that is no {{name, values}} object: "
                    "a filter the pack cannot read)")
    return ""


def _sets_something(value: Any) -> bool:
    """Whether a filter value sets anything: null and containers of nothing else are how the
    engine sends an input that is not set ("" is set: text where the provider wants no text)."""
    if isinstance(value, dict):
        return any(_sets_something(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(_sets_something(v) for v in value)
    return value is not None


def _cost_filter_entry(value: dict) -> bool:
    """An AWS costFilters entry {name, values} (one written for the list is a list of it:
    model.as_list), not the pre-v5 map {name: values} pulumi_aws 7 no longer takes."""
    return "name" in value and set(value) <= {"name", "values"}


def _ended(r: Resource, path: str) -> str:
    """The scope text of a budget whose time period ended before now ("" when it runs on): it
    tracks nothing from then on, so it is neither the cap nor the alarm (AWS TimePeriod.End,
    Azure timePeriod.endDate, GCP customPeriod.endDate)."""
    from trainstack_policies.inventory import lifetimes
    end = _end_time(r.get(path))
    if end is None or end > lifetimes._now():
        return ""
    return f"{path} {r.get(path)} (the budget's time period has ended)"


def _not_started(r: Resource, path: str) -> str:
    """The scope text of a budget whose time period starts after now ("" when it has begun):
    until then it tracks nothing, so it is neither the cap nor the alarm (AWS TimePeriod.Start,
    Azure timePeriod.startDate, GCP customPeriod.startDate)."""
    from trainstack_policies.inventory import lifetimes
    start = _end_time(r.get(path))
    if start is None:
        return ""
    if isinstance(r.get(path), dict):
        start -= timedelta(days=1)   # _end_time gives a {year, month, day}'s end; it starts then
    if start <= lifetimes._now():
        return ""
    return f"{path} {r.get(path)} (the budget's time period has not begun)"
