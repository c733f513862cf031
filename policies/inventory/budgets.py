"""Budgets: the monthly cap each declares, its currency, and whether its filters cover compute.

The per-cloud readers are budgets_aws, budgets_gcp and budgets_azure; what they share (the
Budget, amounts, periods and dates, filter shapes) is budgets_common. Budget, RESOURCE_GROUPS and
resource_group_key are imported from here."""
from __future__ import annotations

from typing import Any, Optional

from trainstack_policies.inventory.budgets_aws import _aws_filters, _aws_silent, _planned
from trainstack_policies.inventory.budgets_azure import (
    RESOURCE_GROUPS,
    _azure_cover,
    _azure_silent,
    _classic_azure_budget,
    _compute_groups,
    _compute_subscriptions,
    resource_group_key,
)
from trainstack_policies.inventory.budgets_common import (
    Budget,
    _amount,
    _Compute,
    _ended,
    _not_started,
    _per_month,
    _unread_period,
    _unread_shape,
)
from trainstack_policies.inventory.budgets_gcp import (
    _GCP_NAME_LISTS,
    _custom_months,
    _gcp_filters,
    _gcp_silent,
)
from trainstack_policies.inventory.tokens import AWS_BUDGET, AZ_BUDGETS, GCP_BUDGET

AWS_BUDGET_ACTION = "aws:budgets/budgetAction:BudgetAction"
from trainstack_policies.model import UNKNOWN, Resource, number

__all__ = ["AWS_BUDGET_ACTION", "RESOURCE_GROUPS", "Budget", "budgets", "resource_group_key"]


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


def _per_group(b: Budget, classes: list, judge: Any) -> None:
    """Judge the budget against each GPU group of its cloud alone, and set what it covers from
    that: the alarm for the groups it takes in, none for the others. Groups that read the
    same to a budget (`classes`: (their own _Compute cache, Azure billing groups, members))
    are judged once: judge(cache, azure) gives (scope text, covers, unknown path, outside
    text). With no GPU group the stack-wide reading stays (it is what a GPU sign or capacity
    block outside the groups is judged by)."""
    if not classes:
        return
    scopes: list[tuple[str, str, str]] = []
    covered = False
    for cache, azure, members in classes:
        scope, covers, unknown, outside = judge(cache, azure)
        if unknown or outside:
            b.unsure.update((id(g.resource), (unknown, outside)) for g in members)
            scopes.append((scope, unknown, outside))
        elif covers:
            covered = True
        else:
            b.leaves_out.update((id(g.resource), scope) for g in members)
            scopes.append((scope, "", ""))
    if covered:
        b.covers_compute, b.scope, b.filters_unknown, b.outside = True, "", "", ""
        return
    unread = next((x for x in scopes if x[1] or x[2]), None) or scopes[0]
    b.covers_compute = False
    b.scope, b.filters_unknown, b.outside = unread


def _not_spend(r: Resource, why: str) -> Budget:
    """A budget that is no spend limit (an AWS USAGE budget, an Azure Usage budget): neither the
    cap nor the alarm, kept so a finding names it and why it does not count."""
    return Budget(r, None, "USD", "", scope=why, covers_compute=False)


def budgets(resources: list[Resource]) -> list[Budget]:
    out: list[Budget] = []
    azure_groups: Optional[set[str]] = None
    azure_unread = ""
    azure_never: frozenset[str] = frozenset()
    azure_subscriptions: Optional[set[str]] = None
    cache: dict = {}
    actions = [r for r in resources if r.type == AWS_BUDGET_ACTION]
    by_cloud: dict[str, list] = {}

    def gpu(cloud: str) -> list:
        """The cloud's GPU groups, in classes that read the same to any budget (per stack, so
        a stack of many like groups judges each budget once per kind, not once per group)."""
        if cloud not in by_cloud:
            from trainstack_policies.inventory.compute import gpu_groups
            kinds: dict[str, tuple[dict, Any, list]] = {}
            for g in gpu_groups(resources):
                if g.cloud != cloud:
                    continue
                c = _Compute(resources, cloud, [g])
                azure: Any = None
                if cloud == "azure":
                    names, unread, never = _compute_groups(resources, g)
                    subs = _compute_subscriptions([g.resource])
                    azure = (names, unread, subs, never)
                # Every field a budget's filters read (_aws_filter_covers' LinkedAccount reads the
                # accounts: two groups that differ only in their provider's account are two
                # classes), sets sorted so that equal ones key alike.
                accounts = [(a if a is None or a is UNKNOWN else sorted(a), sorted(refused))
                            for a, refused in c.accounts]
                key = repr((c.regions, c.tags, c.projects, c.types, c.zones, c.spot, c.arm,
                            accounts,
                            azure and (sorted(azure[0]), azure[1],
                                       None if azure[2] is None else sorted(azure[2]),
                                       sorted(azure[3]))))
                kinds.setdefault(key, ({cloud: c}, azure, []))[2].append(g)
            by_cloud[cloud] = list(kinds.values())
        return by_cloud[cloud]

    for r in resources:
        if r.type == AWS_BUDGET:
            kind = str(r.get("budgetType") or "COST").upper()
            if kind != "COST":
                # USAGE / RI_* / SAVINGS_PLANS_* budgets count hours, GB or coverage, not USD
                out.append(_not_spend(r, f"budgetType {kind} (it counts usage or reservation "
                                         "coverage, not cost: no spend limit)"))
                continue
            amount, unknown, invalid = _amount(r, "limitAmount")
            planned_unread = ""
            if r.get("limitAmount") is None and r.get("plannedLimits") is not None:
                amount, unknown, invalid, planned_unread = _planned(r)
            # AutoAdjustData: "the parameters that determine the budget amount for an
            # auto-adjusting budget" (docs.aws.amazon.com/aws-cost-management/latest/
            # APIReference/API_budgets_AutoAdjustData.html): AWS sets the amount from past
            # spend (HISTORICAL) or its forecast (FORECAST), whatever limitAmount says.
            auto = r.get("autoAdjustData")
            open_amount = ""
            if auto is UNKNOWN:
                amount, unknown, invalid = None, "autoAdjustData", ""
            elif isinstance(auto, dict) and auto:
                amount, unknown, invalid = None, "", ""
                open_amount = (f"amount is set by AWS Budgets ({auto.get('autoAdjustType')} "
                               "auto-adjusting budget, autoAdjustData), not by the program")
            scope, covers, undecided, outside = _aws_filters(r, resources, cache)
            ended = _ended(r, "timePeriodEnd") or _not_started(r, "timePeriodStart")
            at, unread = _unread_period(r, "timePeriodEnd", "timePeriodStart")
            if ended:
                scope, covers, undecided, outside = ended, False, "", ""
            elif unread or at:
                ended = unread or f"{at} (unknown until apply)"
                scope, covers, undecided, outside = ended, False, at, ""
            shape = planned_unread or _unread_shape(r, ("filterExpression",), ("costFilters",))
            if shape and not ended:
                ended = shape
                scope, covers, undecided, outside = shape, False, "", ""
            silent, maybe = _aws_silent(r, actions)
            b = Budget(r, _per_month(amount, r.get("timeUnit")), str(r.get("limitUnit") or "USD"),
                       str(r.get("limitAmount")), unknown, invalid, scope, covers, undecided,
                       silent=silent, silent_unknown=maybe, outside=outside,
                       open_amount=open_amount, unread_period=unread, unread_input=shape)
            if not ended:
                _per_group(b, gpu("aws"), lambda cache, _, r=r: _aws_filters(r, resources,
                                                                             cache))
            out.append(_in_usd(b))
        elif r.type == GCP_BUDGET:
            last = r.get("amount.lastPeriodAmount")
            open_amount = ""
            if r.get("amount.specifiedAmount.units") is None and last is UNKNOWN:
                amount, unknown, invalid = None, "amount.lastPeriodAmount", ""
            elif r.get("amount.specifiedAmount.units") is None and last is not None:
                # lastPeriodAmount: the amount is last period's spend, known only to Cloud
                # Billing (cloud.google.com/billing/docs/reference/budget/rest/v1/
                # billingAccounts.budgets#LastPeriodAmount).
                amount, unknown, invalid = None, "", ""
                open_amount = ("amount is last period's spend (amount.lastPeriodAmount), "
                               "known only to Cloud Billing") if last else ""
            else:
                amount, unknown, invalid = _amount(r, "amount.specifiedAmount.units")
                nanos = number(r.get("amount.specifiedAmount.nanos")) or 0
                amount = amount + nanos / 1e9 if amount is not None else None
            period = r.get("budgetFilter.calendarPeriod") or "MONTH"
            custom = r.get("budgetFilter.customPeriod")
            if isinstance(custom, dict) and amount is not None:
                period, amount = "MONTH", amount / _custom_months(custom)
            scope, covers, undecided, outside = _gcp_filters(r, resources, cache)
            ended = _ended(r, "budgetFilter.customPeriod.endDate") or \
                _not_started(r, "budgetFilter.customPeriod.startDate")
            at, unread = _unread_period(r, "budgetFilter.customPeriod.endDate",
                                        "budgetFilter.customPeriod.startDate")
            if ended:
                scope, covers, undecided, outside = ended, False, "", ""
            elif unread or at:
                ended = unread or f"{at} (unknown until apply)"
                scope, covers, undecided, outside = ended, False, at, ""
            shape = _unread_shape(r, ("budgetFilter",), (), _GCP_NAME_LISTS)
            if shape and not ended:
                ended = shape
                scope, covers, undecided, outside = shape, False, "", ""
            silent, maybe = _gcp_silent(r)
            b = Budget(r, _per_month(amount, period),
                       str(r.get("amount.specifiedAmount.currencyCode") or "USD"),
                       str(r.get("amount.specifiedAmount.units")), unknown, invalid, scope,
                       covers, undecided, silent=silent, silent_unknown=maybe,
                       open_amount=open_amount,
                       outside=outside, unread_period=unread, unread_input=shape)
            if not ended:
                _per_group(b, gpu("gcp"), lambda cache, _, r=r: _gcp_filters(r, resources,
                                                                             cache))
            out.append(_in_usd(b))
        elif r.type in AZ_BUDGETS:
            category = str(r.get("category") or "Cost")
            if category.lower() != "cost":
                out.append(_not_spend(r, f"category {category} (a {category} budget counts "
                                         "usage, not cost: no spend limit)"))
                continue
            if r.type.startswith("azure:"):
                r = _classic_azure_budget(r)
            amount, unknown, invalid = _amount(r, "amount")
            if azure_groups is None:
                # once per stack, not per budget
                azure_groups, azure_unread, azure_never = _compute_groups(resources)
                azure_subscriptions = _compute_subscriptions(resources)
            scope, covers, scope_unknown, outside = _azure_cover(
                r, resources, azure_groups, azure_unread, azure_subscriptions, cache,
                azure_never)
            ended = _ended(r, "timePeriod.endDate") or _not_started(r, "timePeriod.startDate")
            at, unread = _unread_period(r, "timePeriod.endDate", "timePeriod.startDate")
            if ended:
                scope, covers, scope_unknown, outside = ended, False, "", ""
            elif unread or at:
                ended = unread or f"{at} (unknown until apply)"
                scope, covers, scope_unknown, outside = ended, False, at, ""
            shape = _unread_shape(r, ("filter",))
            if shape and not ended:
                ended = shape
                scope, covers, scope_unknown, outside = shape, False, "", ""
            # Azure budgets are in the billing account's currency; trainstack bills in USD.
            silent, maybe = _azure_silent(r)
            b = Budget(r, _per_month(amount, r.get("timeGrain")), "USD", str(r.get("amount")),
                       unknown, invalid, scope, covers, scope_unknown,
                       silent=silent, silent_unknown=maybe, outside=outside,
                       unread_period=unread, unread_input=shape)
            if not ended:
                _per_group(b, gpu("azure"), lambda cache, azure, r=r: _azure_cover(
                    r, resources, azure[0], azure[1], azure[2], cache, azure[3]))
            out.append(b)
    return out
