"""spend-limit: a budget alarm exists, and the cluster left running stays under the cap.

The cap is the policy config's `maxMonthlyUsd` when set, else the stack's own budget amount; a
budget above `maxMonthlyUsd` is itself a violation. The estimate is policies/pricing.py's: the
same catalog the components pick instance types from. pulumi-alicloud has no budget resource
(cloud-map §4.2), so on Alibaba Cloud an auto-release time on every node stands in for the alarm.
"""
from __future__ import annotations

from typing import Any, Mapping, Optional

from policies import pricing
from policies.inventory import (
    ALI_INSTANCE,
    ALI_INSTANCE_SET,
    AWS_BUDGET,
    AZ_BUDGETS,
    GCP_BUDGET,
    buckets,
    budgets,
    filesystems,
    max_hours,
    node_groups,
)
from policies.model import UNKNOWN, Resource, UnknownValue, Violation, violation

NAME = "spend-limit"
DESCRIPTION = ("A budget alarm exists, and the cluster's estimated monthly cost if left running "
               "(nodes x catalog price x 730 h or the declared lifetime, plus storage) stays "
               "under the cap.")
ENFORCEMENT_LEVEL = "mandatory"
KIND = "stack"
CONFIG_SCHEMA = {
    "maxMonthlyUsd": {
        "type": "number", "exclusiveMinimum": 0,
        "description": "Monthly spend cap in USD. Unset: the stack's own budget amount is the cap.",
    },
}

_BUDGET_TYPE = {"aws": AWS_BUDGET, "gcp": GCP_BUDGET, "azure": AZ_BUDGETS[0]}


def _cap_config(config: Mapping[str, Any]) -> Optional[float]:
    value = config.get("maxMonthlyUsd")
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) \
        else None


def _evaluate(resources: list[Resource], config: Mapping[str, Any]):
    groups = node_groups(resources)
    for g in groups:
        if g.instance_type is UNKNOWN:
            raise UnknownValue(g.template or g.resource, "instanceType")
    est = pricing.estimate(groups, filesystems(resources), buckets(resources), max_hours(groups))
    found_budgets = budgets(resources)
    cap_config = _cap_config(config)
    amounts = [b.monthly for b in found_budgets if b.monthly is not None]
    cap = cap_config if cap_config is not None else (min(amounts) if amounts else None)
    return groups, est, found_budgets, cap_config, cap


def check(resources: list[Resource], config: Mapping[str, Any]) -> list[Violation]:
    groups, est, found_budgets, cap_config, cap = _evaluate(resources, config)
    if not groups:
        return []
    out: list[Violation] = []
    clouds = sorted({g.cloud for g in groups})
    anchor = groups[0].resource

    # 1. The alarm (on Alibaba Cloud: the auto-release time standing in for it).
    for cloud in clouds:
        if cloud == "alicloud":
            for node in (g for g in groups if g.cloud == "alicloud"):
                release = node.resource.get("autoReleaseTime")
                if release is UNKNOWN:
                    raise UnknownValue(node.resource, "autoReleaseTime")
                if node.resource.type not in (ALI_INSTANCE, ALI_INSTANCE_SET) or not release:
                    out.append(violation(
                        node.resource, "no auto-release time, which stands in for the budget alarm "
                        "on Alibaba Cloud (pulumi-alicloud has no budget resource)",
                        release or None, "an autoReleaseTime (ISO-8601 UTC) on every node",
                        "set auto_release_time on each pay-as-you-go ecs.Instance or "
                        "ecs.EcsInstanceSet (an ess scaling group cannot release itself)"))
        elif not any(b.resource.cloud == cloud for b in found_budgets):
            out.append(violation(
                anchor, f"the stack has no budget alarm on {cloud}", "no budget resource",
                f"a {_BUDGET_TYPE.get(cloud, 'budget')} with alert thresholds",
                "set budget.monthly_usd and budget.emails in the spec (trainstack creates the "
                "budget), or add a budget resource to the program"))

    # 2. Budgets above the configured cap, or in another currency.
    for b in found_budgets:
        if b.currency.upper() != "USD":
            out.append(violation(b.resource, "the budget is not in USD", b.currency, "USD",
                                 "set the budget's currency to USD"))
        if cap_config is not None and b.monthly is not None and b.monthly > cap_config:
            out.append(violation(
                b.resource, "the budget amount is above the policy's maxMonthlyUsd",
                f"{b.monthly:,.2f} USD/month", f"at most {cap_config:,.2f} USD/month",
                "lower budget.monthly_usd in the spec, or raise maxMonthlyUsd in the policy "
                "config"))

    # 3. The estimate against the cap.
    if est.missing:
        out.append(violation(anchor, "the monthly cost cannot be estimated: no catalog price",
                             "; ".join(est.missing), "a catalog price for every node group",
                             "use an instance type and region listed in "
                             "components/catalog/prices.csv"))
    elif cap is not None and est.total > cap:
        source = "the policy's maxMonthlyUsd" if cap_config is not None else "the stack's budget"
        out.append(violation(
            anchor, f"the estimated monthly cost exceeds {source}", est.describe(),
            f"at most {cap:,.2f} USD/month",
            "use fewer nodes, spot: true, or a smaller instance type; or declare "
            "workload.max_hours (the cluster's maximum lifetime) in the spec"))
    return out


def summary(resources: list[Resource], config: Mapping[str, Any]) -> str:
    groups, est, _, cap_config, cap = _evaluate(resources, config)
    if not groups:
        return "no node groups"
    if est.missing:
        return "no catalog price for " + "; ".join(est.missing)
    source = ("maxMonthlyUsd" if cap_config is not None else "budget" if cap is not None
              else "no cap")
    capped = f" vs cap {cap:,.0f} USD ({source})" if cap is not None else " (no cap set)"
    return f"estimate {est.describe()}{capped}"
