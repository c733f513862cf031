"""Budgets: the monthly cap each declares, its currency, and whether its filters cover compute."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

from trainstack_policies.inventory.tokens import AWS_BUDGET, AZ_BUDGETS, GCP_BUDGET
from trainstack_policies.inventory.values import _dicts, _list
from trainstack_policies.model import UNKNOWN, BadNumber, Resource, checked_number, number


@dataclass
class Budget:
    resource: Resource
    monthly: Optional[float]   # None: no fixed amount (e.g. GCP last_period_amount)
    currency: str
    amount_text: str
    unknown: str = ""          # the input path whose value is unknown at preview
    invalid: str = ""          # an amount that is NaN, infinite or not positive
    # Service filters that leave out compute (an S3-only budget): it watches part of the bill,
    # not the GPU spend, so it is neither the stack's cap nor its GPU alarm. Tag/label/account
    # filters keep it the stack's budget (the stack's resources carry those tags).
    scope: str = ""
    covers_compute: bool = True   # its filters still include the compute that runs GPU nodes
    # Filters (or an Azure scope) that cannot be read at preview: neither the cap nor, alone,
    # the alarm; "cannot decide" when no other budget covers the compute.
    filters_unknown: str = ""
    # Another currency: "" (USD), the rate it was converted at (monthly is then in USD), or
    # undecided text when no cited rate exists (monthly is then None).
    converted: str = ""
    no_rate: str = ""


def _has_unknown(value: Any) -> bool:
    if value is UNKNOWN:
        return True
    if isinstance(value, dict):
        return any(_has_unknown(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(_has_unknown(v) for v in value)
    return False


def _in_usd(b: Budget) -> Budget:
    """A budget in another currency, converted at the catalog's cited rate (fx.csv), or left
    without an amount ("cannot decide") when none is cited."""
    currency = b.currency.strip().upper()
    if currency in ("", "USD") or b.monthly is None:
        return b
    from trainstack_policies.catalog import fx_rate
    rate = fx_rate(currency)
    if rate is None:
        b.no_rate = (f"amount in {currency} (the catalog cites no {currency}-USD rate to "
                     "convert it at)")
        b.monthly = None
        return b
    per_usd, source, as_of = rate
    b.converted = (f"{b.amount_text} {currency} at {per_usd:g} {currency} per USD, {source}, "
                   f"as of {as_of}")
    b.monthly = b.monthly / per_usd
    return b


def _compute_groups(resources: list[Resource]) -> set[str]:
    """The resource groups (lower case) the stack's Azure scale sets and VMs are in."""
    out: set[str] = set()
    for c in resources:
        if c.type in ("azure-native:compute:VirtualMachineScaleSet",
                      "azure-native:compute:VirtualMachine"):
            names = [c.get("resourceGroupName")] + [d.get("resourceGroupName") or d.name
                                                   for d in c.deps.get("resourceGroupName", [])]
            out.update(n.lower() for n in names if isinstance(n, str))
    return out


def _azure_scope(r: Resource, compute_groups: set[str]) -> tuple[str, bool, str]:
    """(scope text, covers compute, unknown path) of an Azure budget scoped to a resource
    group: it covers the compute only when a GPU scale set or VM of the stack is in that
    group (its resourceGroupName, or the ResourceGroup resource it depends on)."""
    scope = r.get("scope")
    if scope is UNKNOWN:
        return "scope (unknown until apply)", False, "scope"
    if not isinstance(scope, str) or "/resourcegroups/" not in scope.lower():
        return "", True, ""
    group = scope.lower().split("/resourcegroups/")[1].split("/")[0]
    if group in compute_groups:
        return "", True, ""
    return f"scope {scope} (another resource group than the compute's)", False, ""


_PERIODS = {"MONTHLY": 1, "MONTH": 1, "BILLINGMONTH": 1, "QUARTERLY": 3,
            "QUARTER": 3, "BILLINGQUARTER": 3, "ANNUALLY": 12, "YEAR": 12, "BILLINGANNUAL": 12,
            "DAILY": 24 / 730}

# Billing service names/ids of the compute that runs GPU nodes, per cloud's budget filters.
_COMPUTE_SERVICES = {
    "aws": ("amazon elastic compute cloud", "ec2"),
    "gcp": ("services/6f81-5844-456a",),          # Compute Engine's Cloud Billing service id
}


def _per_month(amount: Optional[float], period: Any) -> Optional[float]:
    if amount is None:
        return None
    months = _PERIODS.get(str(period or "MONTHLY").replace(" ", "").upper(), 1)
    return amount / months


def _amount(r: Resource, path: str) -> tuple[Optional[float], str, str]:
    """(amount, unknown path, invalid text) of a budget amount input."""
    value = checked_number(r.get(path))
    if value is UNKNOWN:
        return None, path, ""
    if isinstance(value, BadNumber) or value == 0:
        return None, "", value.text if value else "0"
    return value, "", ""


def _aws_filters(r: Resource) -> tuple[str, bool]:
    filters = r.get("costFilters")
    if _has_unknown(filters):
        return "costFilters (unknown until apply)", False
    parts, services = [], []
    for f in _dicts(filters):
        if isinstance(f, dict):
            values = [str(v) for v in _list(f.get("values"))]
            parts.append(f"{f.get('name')}={','.join(values)}")
            if str(f.get("name")).lower() == "service":
                services += values
    covers = not services or any(any(c in v.lower() for c in _COMPUTE_SERVICES["aws"])
                                 for v in services)
    return ("; ".join(parts) if not covers else ""), covers


def _gcp_filters(r: Resource) -> tuple[str, bool]:
    f = r.get("budgetFilter")
    if _has_unknown({k: v for k, v in f.items() if k != "calendarPeriod"}
                    if isinstance(f, dict) else f):
        return "budgetFilter (unknown until apply)", False
    if not isinstance(f, dict):
        return "", True
    parts = [f"{k}={v}" for k, v in f.items() if k in (
        "services", "labels", "subaccounts", "resourceAncestors", "projects") and v]
    services = [str(v).lower() for v in _list(f.get("services"))]
    covers = not services or any(v in _COMPUTE_SERVICES["gcp"] for v in services)
    return ("; ".join(parts) if not covers else ""), covers


def budgets(resources: list[Resource]) -> list[Budget]:
    out: list[Budget] = []
    azure_groups: Optional[set[str]] = None
    for r in resources:
        if r.type == AWS_BUDGET:
            if str(r.get("budgetType") or "COST").upper() != "COST":
                continue   # USAGE / RI_* / SAVINGS_PLANS_* budgets count hours or GB, not USD
            amount, unknown, invalid = _amount(r, "limitAmount")
            scope, covers = _aws_filters(r)
            out.append(_in_usd(Budget(r, _per_month(amount, r.get("timeUnit")),
                                      str(r.get("limitUnit") or "USD"), str(r.get("limitAmount")),
                                      unknown, invalid, scope, covers,
                                      "costFilters" if "unknown until" in scope else "")))
        elif r.type == GCP_BUDGET:
            last = r.get("amount.lastPeriodAmount")
            if r.get("amount.specifiedAmount.units") is None and last is not None:
                amount, unknown, invalid = None, "", ""
            else:
                amount, unknown, invalid = _amount(r, "amount.specifiedAmount.units")
                nanos = number(r.get("amount.specifiedAmount.nanos")) or 0
                amount = amount + nanos / 1e9 if amount is not None else None
            period = r.get("budgetFilter.calendarPeriod") or "MONTH"
            scope, covers = _gcp_filters(r)
            out.append(_in_usd(Budget(r, _per_month(amount, period),
                                      str(r.get("amount.specifiedAmount.currencyCode") or "USD"),
                                      str(r.get("amount.specifiedAmount.units")), unknown,
                                      invalid, scope, covers,
                                      "budgetFilter" if "unknown until" in scope else "")))
        elif r.type in AZ_BUDGETS:
            if str(r.get("category") or "Cost").lower() != "cost":
                continue   # a Usage budget is not a spend limit
            amount, unknown, invalid = _amount(r, "amount")
            if azure_groups is None:
                azure_groups = _compute_groups(resources)   # once per stack, not per budget
            scope, covers, scope_unknown = _azure_scope(r, azure_groups)
            if _has_unknown(r.get("filter")):
                scope, covers, scope_unknown = "filter (unknown until apply)", False, "filter"
            # Azure budgets are in the billing account's currency; trainstack bills in USD.
            out.append(Budget(r, _per_month(amount, r.get("timeGrain")), "USD",
                              str(r.get("amount")), unknown, invalid, scope, covers,
                              scope_unknown))
    return out
