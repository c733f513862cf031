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
    if filters is UNKNOWN:
        return "costFilters (unknown until apply)", True
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
    if f is UNKNOWN:
        return "budgetFilter (unknown until apply)", True
    if not isinstance(f, dict):
        return "", True
    parts = [f"{k}={v}" for k, v in f.items() if k in (
        "services", "labels", "subaccounts", "resourceAncestors", "projects") and v]
    services = [str(v).lower() for v in _list(f.get("services"))]
    covers = not services or any(v in _COMPUTE_SERVICES["gcp"] for v in services)
    return ("; ".join(parts) if not covers else ""), covers


def budgets(resources: list[Resource]) -> list[Budget]:
    out: list[Budget] = []
    for r in resources:
        if r.type == AWS_BUDGET:
            if str(r.get("budgetType") or "COST").upper() != "COST":
                continue   # USAGE / RI_* / SAVINGS_PLANS_* budgets count hours or GB, not USD
            amount, unknown, invalid = _amount(r, "limitAmount")
            scope, covers = _aws_filters(r)
            out.append(Budget(r, _per_month(amount, r.get("timeUnit")),
                              str(r.get("limitUnit") or "USD"), str(r.get("limitAmount")),
                              unknown, invalid, scope, covers))
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
            out.append(Budget(r, _per_month(amount, period),
                              str(r.get("amount.specifiedAmount.currencyCode") or "USD"),
                              str(r.get("amount.specifiedAmount.units")), unknown, invalid,
                              scope, covers))
        elif r.type in AZ_BUDGETS:
            if str(r.get("category") or "Cost").lower() != "cost":
                continue   # a Usage budget is not a spend limit
            amount, unknown, invalid = _amount(r, "amount")
            scope = ""
            # Azure budgets are in the billing account's currency; trainstack bills in USD.
            out.append(Budget(r, _per_month(amount, r.get("timeGrain")), "USD",
                              str(r.get("amount")), unknown, invalid, scope))
    return out
