"""AWS budgets: who they notify, their costFilters and filterExpression against the GPU compute,
and plannedLimits."""
from __future__ import annotations

import re
from datetime import datetime
from typing import Any, Optional

from trainstack_policies.inventory.budgets_common import (
    _UNREAD,
    _any_of,
    _Compute,
    _compute_of,
    _cost_filter_entry,
    _end_time,
    _entries,
    _present,
    _tag_matches,
    _unread_text,
)
from trainstack_policies.inventory.values import _dicts, _list
from trainstack_policies.model import (
    UNKNOWN,
    BadNumber,
    Resource,
    checked_number,
    has_unknown,
    short_repr,
)


def _aws_silent(r: Resource, actions: list[Resource]) -> tuple[str, str]:
    """(why it notifies no one, the input unknown at preview that may make it so): an AWS
    budget with no notification that has a subscriber (e-mail or SNS topic) and no budget
    action with subscribers: AWS Budgets tells only a notification's subscribers (Budgets API
    CreateBudget, NotificationsWithSubscribers; BudgetAction subscribers). A notification
    entry unknown at preview is one: each takes a subscriber (e-mail or SNS topic, "Either
    this or subscriber_sns_topic_arns is required"); the list unknown may be empty."""
    notes = r.get("notifications")
    if notes is not UNKNOWN and any(
            n is UNKNOWN or isinstance(n, dict) and (_present(n.get("subscriberEmailAddresses"))
                                                    or _present(n.get("subscriberSnsTopicArns")))
            for n in _entries(notes)):
        return "", ""
    name = r.get("name")
    for a in actions:
        if any(d is r for d in a.deps.get("budgetName", [])) or \
                (isinstance(name, str) and name and a.get("budgetName") == name):
            if _present(a.get("subscribers")):
                return "", ""
    if notes is UNKNOWN:
        return "", "notifications"
    return ("no notification with an e-mail or SNS subscriber, and no budget action"
            if not _entries(notes) else "its notifications have no subscriber"), ""


# AWS: the Service filter's values are Cost Explorer's service names. Instance hours are
# "Amazon Elastic Compute Cloud - Compute" (shown as "EC2-Instances"); "EC2 - Other" is EBS,
# snapshots, NAT gateways, data transfer and idle addresses, never instance hours.
# Compared exactly, as AWS compares a filter value ("The default values for MatchOptions are
# EQUALS and CASE_SENSITIVE", Cost Explorer API DimensionValues): a value in another case or
# spacing names no service AWS bills under and matches nothing.
_AWS_INSTANCE_HOURS = {"Amazon Elastic Compute Cloud - Compute", "EC2-Instances"}
_AWS_NOT_INSTANCE_HOURS = {"EC2 - Other", "EC2-Other"}


def _folded(value: str) -> str:
    """A value with case and runs of spaces folded: to tell a near miss of a value AWS bills
    under (which matches nothing) from a value the pack does not know."""
    return " ".join(value.lower().split())


def _near_miss(value: str, known: set) -> bool:
    """Another spelling (case, spaces) of one of the `known` values, not the value itself."""
    return value not in known and _folded(value) in {_folded(k) for k in known}


def _aws_service(value: str) -> Any:
    """Whether one Service filter value takes in EC2 instance hours: True, False, or _UNREAD
    for a value that names EC2 otherwise (what it holds is not the pack's to guess)."""
    if value in _AWS_INSTANCE_HOURS:
        return True
    if value in _AWS_NOT_INSTANCE_HOURS or \
            _near_miss(value, _AWS_INSTANCE_HOURS | _AWS_NOT_INSTANCE_HOURS):
        return False   # EC2 - Other, or a near miss that matches no cost at all
    text = _folded(value)
    if "ec2" in text or "elastic compute cloud" in text:
        return _UNREAD
    return False


# AWS Region billing codes, the prefix of a usage type (docs.aws.amazon.com/global-
# infrastructure/latest/regions/aws-region-billing-codes.html); us-east-1 usage types also
# appear with no prefix. A prefix not listed here is "cannot decide".
_AWS_BILLING_REGIONS = {
    "USE1": "us-east-1", "USE2": "us-east-2", "USW1": "us-west-1", "USW2": "us-west-2",
    "CAN1": "ca-central-1", "CAN2": "ca-west-1", "MXC1": "mx-central-1", "AFS1": "af-south-1",
    "APE1": "ap-east-1", "APE2": "ap-east-2", "APN1": "ap-northeast-1",
    "APN2": "ap-northeast-2", "APN3": "ap-northeast-3", "APS1": "ap-southeast-1",
    "APS2": "ap-southeast-2", "APS3": "ap-south-1", "APS4": "ap-southeast-3",
    "APS5": "ap-south-2", "APS6": "ap-southeast-4", "APS7": "ap-southeast-5",
    "EU": "eu-west-1", "EUC1": "eu-central-1", "EUW2": "eu-west-2", "EUW3": "eu-west-3",
    "SAE1": "sa-east-1", "UGW1": "us-gov-west-1"}
_REGION_PREFIX = re.compile(r"^([A-Z]{2,4}[0-9]?)-(.*)$")
_INSTANCE_TYPE = re.compile(r"^[a-z][a-z0-9-]*\.[a-z0-9-]+$")
# EC2 usage types that bill instance hours (docs.aws.amazon.com/AWSEC2/latest/UserGuide/
# ec2-billing-usage-reports.html): BoxUsage (On-Demand) and SpotUsage (Spot) are compared with
# the GPU groups; the others (Dedicated Instances, Dedicated Hosts, capacity reservations)
# turn on a tenancy or reservation the pack does not compare: "cannot decide". Spelt as AWS
# bills them and compared case and all (CASE_SENSITIVE, the default): "USE1-boxusage:..."
# names no usage type and matches nothing.
_AWS_HOURS = {"BoxUsage": False, "SpotUsage": True}
_AWS_OTHER_HOURS = ("DedicatedUsage", "HostBoxUsage", "HostUsage", "Reservation", "UnusedBox",
                    "UnusedDed", "DedicatedRes", "HeavyUsage")


def _usage_type(value: str, compute: _Compute) -> Any:
    """Whether one UsageType value takes in the GPU nodes' instance hours: True, False (another
    region, instance type or purchase option, or not instance hours: storage, transfer, EBS),
    UNKNOWN (the compute's type or region is unknown), _UNREAD."""
    m = _REGION_PREFIX.match(value)
    prefix, rest = (m.group(1), m.group(2)) if m else ("", value)
    family, _, itype = rest.partition(":")
    typed = bool(_INSTANCE_TYPE.match(itype))
    if family not in _AWS_HOURS and not family.startswith(_AWS_OTHER_HOURS):
        return False   # not instance hours (TimedStorage-ByteHrs, EBS:VolumeUsage.gp3, ...)
    if not typed and _INSTANCE_TYPE.match(itype.lower()):
        return False   # a type in upper case (P5.48XLARGE): EC2 bills none under that name
    if any(t is UNKNOWN for t in compute.types):
        return UNKNOWN
    if typed and itype not in compute.types:
        return False   # another instance type's hours
    if family not in _AWS_HOURS or not typed:
        return _UNREAD
    region = _AWS_BILLING_REGIONS.get(prefix) if prefix else "us-east-1"
    if region is None:
        return _UNREAD
    if any(not isinstance(r, str) or not r for r in compute.regions):   # unread or unknown
        return UNKNOWN
    return any(r == region and spot == _AWS_HOURS[family]
               for r, spot in zip(compute.regions, compute.spot))


# AWS Budgets cost filters compared with the GPU compute (docs.aws.amazon.com/cost-management/
# latest/userguide/budgets-create-filters; API_budgets_Budget CostFilters): Service, Region,
# TagKeyValue ("user:<key>$<value>"), InstanceType, AZ, LinkedAccount, PurchaseType,
# UsageType (_usage_type), BillingEntity ("AWS": AWS services; "AWS Marketplace": Marketplace
# purchases, which EC2 instance hours are not). Any other name (CostCategory, Operation,
# UsageTypeGroup, ...) is _UNREAD.
def _aws_filter_covers(name: str, values: list[str], compute: _Compute) -> Any:
    if name == "region":
        if any(not isinstance(r, str) or not r for r in compute.regions):   # unread or unknown
            return UNKNOWN
        return any(r in values for r in compute.regions)
    if name == "tagkeyvalue":
        out: Any = False
        for v in values:
            key, sep, wanted = v.partition("$")
            if not sep:
                continue
            key = key[len("user:"):] if key.startswith("user:") else key
            hit = _tag_matches(compute.tags, key, wanted)
            if hit is True:
                return True
            if hit is UNKNOWN:
                out = UNKNOWN
        return out
    if name == "instancetype":
        if any(t is UNKNOWN for t in compute.types):
            return UNKNOWN
        # Exactly, case and all: "The default values for MatchOptions are EQUALS and
        # CASE_SENSITIVE" (Cost Explorer API, DimensionValues); a value in another case
        # (P5.48XLARGE) counts none of the hours EC2 bills as p5.48xlarge.
        return any(t in values for t in compute.types)
    if name == "az":
        # Availability zone names (us-east-1a): the budget watches spend in those zones only.
        if any(not isinstance(z, str) or not z for z in compute.zones):
            return UNKNOWN
        return any(z in values for z in compute.zones)
    if name == "linkedaccount":
        # The member accounts whose spend the budget counts: it covers a group whose provider
        # deploys only to those accounts; one that deploys elsewhere (or only to accounts the
        # filter leaves out) is left out; a provider that names no account may deploy to any
        # (the credentials decide, which the program does not hold): undecided.
        accounts = set(values)
        found: Any = False
        for allowed, refused in compute.accounts:
            if accounts and accounts <= refused:
                continue
            if allowed is None or allowed is UNKNOWN:
                found = UNKNOWN
            elif allowed <= accounts:
                return True
            elif allowed & accounts:
                found = UNKNOWN
        return found
    if name == "service":
        return _any_of([_aws_service(v) for v in values])
    if name == "usagetype":
        return _any_of([_usage_type(v, compute) for v in values])
    if name == "billingentity":
        # "AWS" / "AWS Marketplace" (China: "Amazon" / "Amazon Web Services Marketplace"),
        # exactly: another case or spacing ("aws") matches nothing.
        if set(values) & _AWS_ENTITIES:
            return True
        if values and all(v in _AWS_MARKETPLACE or _near_miss(v, _AWS_ENTITIES | _AWS_MARKETPLACE)
                          for v in values):
            return False
        return _UNREAD
    if name == "purchasetype":
        # Purchase option, as Cost Explorer bills it ("On Demand Instances", "Spot Instances",
        # "Standard Reserved Instances", "Savings Plans"...), exactly: On-Demand GPU nodes need
        # "On Demand Instances", spot nodes "Spot Instances"; "on demand instances" or
        # "On-Demand Instances" matches nothing.
        return any(("Spot Instances" if spot else "On Demand Instances") in values
                   for spot in compute.spot)
    return _UNREAD


_AWS_ENTITIES = {"AWS", "Amazon"}
_AWS_MARKETPLACE = {"AWS Marketplace", "Amazon Web Services Marketplace"}

# costFilters names as AWS Budgets spells them (the map keys of CostFilters), and the pack's
# name for those it compares. AWS refuses another case: "service is not in the supported in cost
# budget dimension set: [PurchaseType, TagKeyValue, UsageTypeGroup, Service, AZ, Region,
# Operation, InstanceType, UsageType, BillingEntity, LinkedAccount]" (hashicorp/terraform#19370).
_COST_FILTER_NAMES = {"Region": "region", "TagKeyValue": "tagkeyvalue",
                      "InstanceType": "instancetype", "AZ": "az", "LinkedAccount": "linkedaccount",
                      "Service": "service", "UsageType": "usagetype",
                      "BillingEntity": "billingentity", "PurchaseType": "purchasetype"}
_AWS_FILTER_NAMES = set(_COST_FILTER_NAMES) | {
    "CostCategory", "InvoicingEntity", "LegalEntityName", "Operation", "UsageTypeGroup"}
# filterExpression dimension Keys AWS takes (an enum: API_budgets_ExpressionDimensionValues).
_AWS_EXPRESSION_KEYS = {
    "AZ", "INSTANCE_TYPE", "LINKED_ACCOUNT", "LINKED_ACCOUNT_NAME", "OPERATION", "PURCHASE_TYPE",
    "REGION", "SERVICE", "SERVICE_CODE", "USAGE_TYPE", "USAGE_TYPE_GROUP", "RECORD_TYPE",
    "OPERATING_SYSTEM", "TENANCY", "SCOPE", "PLATFORM", "SUBSCRIPTION_ID", "LEGAL_ENTITY_NAME",
    "INVOICING_ENTITY", "DEPLOYMENT_OPTION", "DATABASE_ENGINE", "CACHE_ENGINE",
    "INSTANCE_TYPE_FAMILY", "BILLING_ENTITY", "RESERVATION_ID", "RESOURCE_ID", "RIGHTSIZING_TYPE",
    "SAVINGS_PLANS_TYPE", "SAVINGS_PLAN_ARN", "PAYMENT_OPTION", "RESERVATION_MODIFIED",
    "TAG_KEY", "COST_CATEGORY_NAME"}


def _misspelt(name: str, known: set) -> str:
    """The name AWS spells `name` as, when `name` is it in another case ("" otherwise)."""
    return next((k for k in sorted(known) if k != name and k.lower() == name.lower()), "")


def _aws_refused(filters: Any, expression: Any) -> str:
    """Why AWS refuses the budget ("" when it does not, as far as the pack reads): a costFilters
    name or a filterExpression dimension key in another case than AWS's. AWS creates no such
    budget, so it is no cap and no alarm, whatever the rest of its filters say."""
    for f in _cost_filters(filters):
        if isinstance(f, dict) and isinstance(f.get("name"), str):
            right = _misspelt(f["name"], _AWS_FILTER_NAMES)
            if right:
                return (f"costFilters name {f['name']!r}: AWS refuses the budget (filter names are "
                        f"case-sensitive; the name is {right!r}), so it caps and watches nothing")
    stack = [expression]
    while stack:
        e = stack.pop()
        if not isinstance(e, dict):
            continue
        dims = e.get("dimensions")
        if isinstance(dims, dict) and isinstance(dims.get("key"), str):
            right = _misspelt(dims["key"], _AWS_EXPRESSION_KEYS)
            if right:
                return (f"filterExpression dimension key {dims['key']!r}: AWS refuses the budget "
                        f"(the key is one of its upper-case names, {right!r}), so it caps and "
                        "watches nothing")
        stack += _list(e.get("ands")) + _list(e.get("ors")) + [e.get("not")]
    return ""


def _cost_filters(filters: Any) -> list[Any]:
    """costFilters' {name, values} entries; one entry written for the list is a list of it
    (model.as_list). An object of another shape (the pre-v5 map) is refused by _unread_shape."""
    if isinstance(filters, dict):
        return [filters] if _cost_filter_entry(filters) else []
    return _dicts(filters)


def _aws_filters(r: Resource, resources: list[Resource], cache: dict
                 ) -> tuple[str, bool, str, str]:
    """(scope text, covers compute, undecided filter, outside text) of an AWS budget's cost
    filters. Filters of different names all apply (AND); the values of one name are
    alternatives (OR). A filter on a region, tag, instance type or linked account the stack's
    GPU compute does not have leaves it out; a linked account the program does not say it
    deploys to is "cannot decide" (outside text: no apply would tell it either)."""
    filters = r.get("costFilters")
    refused = _aws_refused(filters, r.get("filterExpression"))
    if refused:
        return refused, False, "", ""
    if has_unknown(filters):
        return "costFilters (unknown until apply)", False, "costFilters", ""
    parts, covers, undecided, outside = [], True, "", ""
    for f in _cost_filters(filters):
        if not isinstance(f, dict):
            continue
        values = [str(v) for v in _list(f.get("values"))]
        name = str(f.get("name"))
        parts.append(f"{name}={','.join(values)}")
        hit = _aws_filter_covers(_COST_FILTER_NAMES[name], values,
                                 _compute_of(resources, "aws", cache)) \
            if name in _COST_FILTER_NAMES else _UNREAD
        if hit is _UNREAD:
            outside = outside or _unread_text(f"costFilters {name}={','.join(values)}")
        elif hit is UNKNOWN and name == "LinkedAccount":
            outside = outside or _unnamed_account(name, values)
        elif hit is UNKNOWN:
            undecided = undecided or f"costFilters {name} (the GPU compute's is unknown)"
        elif not hit:
            covers = False
    expression = r.get("filterExpression")
    if has_unknown(expression):
        return "filterExpression (unknown until apply)", False, "filterExpression", ""
    if isinstance(expression, dict) and expression:
        hit = _aws_expression(expression, resources, cache)
        if hit is _UNREAD:
            outside = outside or _unread_text(f"filterExpression {expression}")
        elif hit is UNKNOWN:
            undecided = undecided or "filterExpression (the GPU compute's is unknown)"
        elif hit is False:
            covers = False
            parts.append(f"filterExpression {expression}")
    if undecided and covers:
        return f"costFilters ({undecided})", False, "costFilters", ""
    if outside and covers:
        return outside, False, "", outside
    return ("; ".join(parts) if not covers else ""), covers, "", ""


def _unnamed_account(name: str, values: list[str]) -> str:
    return (f"costFilters {name}={','.join(values)}: whether that is the account the GPU "
            "compute is deployed to is not in the program (its AWS provider names no "
            "allowedAccountIds or assumed role; set allowed_account_ids on the provider)")


# filterExpression dimension keys compared with the GPU compute (pulumi-aws Budget
# filter_expression; the Budgets API Expression: Dimensions, Tags, And, Or, Not).
_EXPRESSION_KEYS = {"REGION": "region", "INSTANCE_TYPE": "instancetype", "AZ": "az",
                    "PURCHASE_TYPE": "purchasetype", "LINKED_ACCOUNT": "linkedaccount",
                    "SERVICE": "service", "USAGE_TYPE": "usagetype",
                    "BILLING_ENTITY": "billingentity"}


def _aws_expression(expr: Any, resources: list[Resource], cache: dict) -> Any:
    """Whether an AWS budget's filterExpression takes in the stack's GPU compute: True, False,
    UNKNOWN (the compute's own value is unknown), _UNREAD (a dimension key, match option or
    CostCategories root the pack does not read), or None (an empty expression). Roots present
    together all apply (API_budgets_Expression: Dimensions, Tags, CostCategories, And, Or,
    Not; ExpressionDimensionValues MatchOptions: only EQUALS, the default, is compared)."""
    if not isinstance(expr, dict):
        return _UNREAD
    results: list[Any] = []
    for root, part in expr.items():
        if part is None or part == [] or part == {}:
            continue
        if root in ("ands", "ors", "not"):
            continue
        if root not in ("dimensions", "tags") or not isinstance(part, dict):
            results.append(_UNREAD)   # costCategories, or a root the pack does not know
            continue
        # As AWS spells them (an upper-case enum): "equals" is no EQUALS.
        options = [str(o) for o in _list(part.get("matchOptions"))]
        if options and options != ["EQUALS"]:
            results.append(_UNREAD)   # ABSENT, STARTS_WITH, CONTAINS ...: not compared
            continue
        key, values = str(part.get("key")), [str(v) for v in _list(part.get("values"))]
        compute = _compute_of(resources, "aws", cache)
        if root == "tags":
            results.append(_aws_filter_covers("tagkeyvalue",
                                              [f"{key}${v}" for v in values], compute))
        elif key in _EXPRESSION_KEYS:
            results.append(_aws_filter_covers(_EXPRESSION_KEYS[key], values, compute))
        else:
            results.append(_UNREAD)
    ands = [_aws_expression(e, resources, cache) for e in _list(expr.get("ands"))]
    if ands:
        results.append(_all_of(ands))
    ors = [_aws_expression(e, resources, cache) for e in _list(expr.get("ors"))]
    if ors:
        results.append(None if all(o is None for o in ors) else
                       _any_of([o for o in ors if o is not None]))
    if expr.get("not") is not None:
        inner = _aws_expression(expr["not"], resources, cache)
        results.append(not inner if isinstance(inner, bool) else inner)
    return _all_of(results)


def _all_of(results: list[Any]) -> Any:
    """Clauses that all apply: False if one leaves the compute out, else undecided if one
    cannot be decided (_UNREAD before UNKNOWN), else True (None: nothing to compare)."""
    if False in results:
        return False
    if any(r is _UNREAD for r in results):
        return _UNREAD
    if any(r is UNKNOWN for r in results):
        return UNKNOWN
    return True if True in results else None


def _planned(r: Resource) -> tuple[Optional[float], str, str, str]:
    """(amount, unknown path, invalid text, unread text) of an AWS budget given plannedLimits
    instead of a limitAmount (pulumi-aws Budget planned_limits: an amount per period from its
    start_time). The limit in force is the one whose period has begun last: "The key is the
    start of the month ... After all of the BudgetLimit values in PlannedBudgetLimits are used,
    the budget continues to use the last limit" (AWS Budgets API, Budget.PlannedBudgetLimits).
    An entry that is no object, or whose startTime is left out or does not read, may be that
    one: the budget cannot be read (unread text naming it), never its largest amount. Where
    none has begun, the largest."""
    from trainstack_policies.inventory import lifetimes
    planned = r.get("plannedLimits")
    if has_unknown(planned):
        return None, "plannedLimits", "", ""
    now = lifetimes._now()
    current: Optional[tuple[datetime, float]] = None
    largest: Optional[float] = None
    for i, p in enumerate(_dicts(planned)):
        if not isinstance(p, dict):
            return None, "", "", (f"plannedLimits.{i} {short_repr(p)} (no {{amount, "
                                  "startTime}} object: which limit is in force cannot be read)")
        value = checked_number(p.get("amount"))
        if isinstance(value, BadNumber) or value == 0:
            return None, "", value.text if value else "0", ""
        if value is None:
            continue
        largest = value if largest is None else max(largest, value)
        start = _end_time(p.get("startTime"))
        if start is None:
            return None, "", "", (f"plannedLimits.{i}.startTime {short_repr(p.get('startTime'))}"
                                  " (no start the pack can read: which limit is in force "
                                  "cannot be read)")
        if start <= now and (current is None or start > current[0]):
            current = (start, value)
    return (current[1] if current else largest), "", "", ""
