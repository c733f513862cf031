"""GCP budgets: who they notify, their budgetFilter against the GPU compute, customPeriod."""
from __future__ import annotations

from typing import Any

from trainstack_policies.inventory.budgets_common import (
    _compute_of,
    _end_time,
    _entries,
    _present,
    _tag_matches,
    _unread_text,
)
from trainstack_policies.inventory.values import _list
from trainstack_policies.model import UNKNOWN, Resource, has_unknown


def _gcp_silent(r: Resource) -> tuple[str, str]:
    """(why its alerts reach no one, the input unknown at preview that may make it so): e-mails
    go out when a threshold rule is crossed, to the billing account's administrators and users
    unless allUpdatesRule.disableDefaultIamRecipients, and to its monitoring channels; a
    Pub/Sub topic gets every update (cloud.google.com/billing/docs/reference/budget/rest/v1/
    billingAccounts.budgets#NotificationsRule)."""
    rules, every = r.get("thresholdRules"), r.get("allUpdatesRule")
    if every is UNKNOWN:
        return "", "allUpdatesRule"   # a topic may be there, or every recipient turned off
    every = every if isinstance(every, dict) else {}
    if _present(every.get("pubsubTopic")):
        return "", ""
    if rules is UNKNOWN:
        return "", "thresholdRules"   # may be empty: no threshold, no e-mail
    if not _entries(rules):
        return "no thresholdRules (alert e-mails go out only when a threshold is crossed) and " \
               "no allUpdatesRule.pubsubTopic", ""
    if _present(every.get("monitoringNotificationChannels")) or \
            every.get("enableProjectLevelRecipients") is True:
        return "", ""
    disable = every.get("disableDefaultIamRecipients")
    if disable is UNKNOWN:
        return "", "allUpdatesRule.disableDefaultIamRecipients"
    if disable is not True:
        return "", ""
    if every.get("enableProjectLevelRecipients") is UNKNOWN:
        return "", "allUpdatesRule.enableProjectLevelRecipients"
    return "allUpdatesRule.disableDefaultIamRecipients true with no monitoring channel and no " \
           "Pub/Sub topic", ""


# GCP: Compute Engine's Cloud Billing service id, as a budgetFilter.services entry names it.
_GCP_COMPUTE_SERVICE = "services/6f81-5844-456a"


def _gcp_filters(r: Resource, resources: list[Resource],
                 cache: dict) -> tuple[str, bool, str, str]:
    """(scope text, covers compute, undecided filter, outside text) of a GCP budget's
    budgetFilter: its services must take in Compute Engine, its projects the GPU compute's
    project, its labels a label the GPU compute carries (cloud.google.com/billing/docs/
    reference/budget/rest/v1/billingAccounts.budgets#filter). Its resourceAncestors (folders,
    organizations: "usage from only this set of folders and organizations") take in the
    compute only if its project is under one of them, which the program does not show (the
    google provider names a project, never its folder or organization): "cannot decide"
    (outside text) where the other filters take the compute in."""
    f = r.get("budgetFilter")
    if has_unknown({k: v for k, v in f.items() if k != "calendarPeriod"}
                    if isinstance(f, dict) else f):
        return "budgetFilter (unknown until apply)", False, "budgetFilter", ""
    if not isinstance(f, dict):
        return "", True, "", ""
    parts = [f"{k}={v}" for k, v in f.items() if k in (
        "services", "labels", "subaccounts", "resourceAncestors", "projects") and v]
    services = [str(v).lower() for v in _list(f.get("services"))]
    covers: Any = not services or _GCP_COMPUTE_SERVICE in services
    undecided = ""
    projects = [str(v) for v in _list(f.get("projects"))]
    if covers and projects:
        compute = _compute_of(resources, "gcp", cache)
        ids = {p.split("/")[-1] for p in projects}
        if any(not isinstance(p, str) or not p for p in compute.projects):
            undecided = "budgetFilter.projects (the GPU compute's project is not known)"
        elif not any(p in ids for p in compute.projects) and not any(i.isdigit() for i in ids):
            # Only a project id the compute does not run in leaves it out. The API takes
            # project numbers (projects/{number}, as trainstack's own budget writes it), and
            # which project a number is the stack does not say: a number is taken as the
            # stack's own project.
            covers = False
    labels = f.get("labels")
    if covers and isinstance(labels, dict) and labels:
        compute = _compute_of(resources, "gcp", cache)
        for key, value in labels.items():
            hit = _tag_matches(compute.tags, key, value)
            if hit is UNKNOWN:
                undecided = undecided or "budgetFilter.labels (the GPU compute's are unknown)"
            elif not hit:
                covers = False
    if undecided and covers:
        return f"budgetFilter ({undecided})", False, "budgetFilter", ""
    ancestors = [str(v) for v in _list(f.get("resourceAncestors")) if v]
    if covers and ancestors:
        outside = (f"budgetFilter.resourceAncestors {', '.join(ancestors)}: whether the GPU "
                   "compute's project is under "
                   f"{'that' if len(ancestors) == 1 else 'one of those'} folder or "
                   "organization is not in the program (budget the project instead)")
        return outside, False, "", outside
    # subaccounts: which billing subaccount pays for the compute's project is set outside the
    # program; it, and any field the pack does not know, is "cannot decide" while nothing else
    # leaves the compute out. creditTypes and creditTypesTreatment change how credits count,
    # not whose usage counts.
    unread = [f"{k}={v}" for k, v in f.items() if v not in (None, [], {}, "")
              and k not in _GCP_READ]
    if covers and unread:
        text = _unread_text(f"budgetFilter {'; '.join(unread)}")
        return text, False, "", text
    return ("; ".join(parts) if not covers else ""), bool(covers), "", ""


# budgetFilter fields that are lists of names (billingbudgets v1 Filter: repeated string); one
# written as text is no filter the pack reads (the docs read a name as a list of one only for
# `instanceTypes`), never "no filter".
_GCP_NAME_LISTS = ("budgetFilter.projects", "budgetFilter.services",
                   "budgetFilter.resourceAncestors", "budgetFilter.subaccounts")

# budgetFilter fields the pack reads (cloud.google.com/python/docs/reference/billingbudgets/
# latest/google.cloud.billing.budgets_v1.types.Filter).
_GCP_READ = frozenset({"services", "projects", "labels", "calendarPeriod", "customPeriod",
                       "creditTypes", "creditTypesTreatment", "resourceAncestors"})


def _custom_months(period: Any) -> float:
    """The months a GCP customPeriod spans (its amount is for the whole period), at least 1;
    1 when it has no end (open-ended: the whole amount may go in its first month)."""
    if not isinstance(period, dict):
        return 1.0
    start, end = _end_time(period.get("startDate")), _end_time(period.get("endDate"))
    if start is None or end is None or end <= start:
        return 1.0
    # _end_time gives the end of each day: the period runs from the start day's beginning.
    hours = (end - start).total_seconds() / 3600 + 24
    return max(1.0, hours / 730)
