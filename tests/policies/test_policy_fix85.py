"""fix85: review83's three spend-limit defects, with cases written before each fix (expected
verdicts by hand from docs/policies.md, pulumi_aws 7.51's schema and the catalog CSVs).

DEFECT 3 (budget filters in a shape the pack did not read were taken as "no filter"):
  pulumi_aws 7.51 `budgets.Budget(cost_filters: Sequence[BudgetCostFilterArgs])` takes a list
  of {name, values}; the pre-v5 map {"InstanceType": ["t3.small"]} is no such entry, so it is
  refused as a filter the pack cannot read (docs: "never read as 'no filter'"). One {name,
  values} object written for the list is a list of it (model.as_list), so it is read, and a
  Region it leaves the compute out of is no alarm. A GCP budgetFilter `projects`, `services`,
  `resourceAncestors` or `subaccounts` is a list of names (billingbudgets v1 Filter: repeated
  string); written as text it is refused (the docs read one name as a list of one only for
  `instanceTypes`).

DEFECT 2 (a budget amount unknown at preview hid the known estimate over maxMonthlyUsd):
  maxMonthlyUsd caps the whole stack's estimate whatever a budget's amount, so the known figure
  over it is reported; the unknown amount is asked about only where nothing else fails (docs:
  "An unknown is only asked about where it could hide a violation"). Azure eastus
  Standard_NC4as_T4_v3 0.526 USD/h = 383.98 a month.

Figures (components/catalog/prices.csv, a month is 730 h): aws us-east-1 g5.xlarge 1.006 USD/h
= 734.38 a month; gcp us-central1 g2-standard-8 0.853624 = 623.15 a month. Every budget below
is 1,000, above either figure: were a refused filter read as no filter, the stack would pass.
"""
from __future__ import annotations

import pytest

from tests.policies.test_policy_fix80 import SPEND, check, unknown
from tests.policies.test_policy_review49 import (
    AWS, AZ, GCP_C, T4, aws_box, aws_budget, az_budget, az_nic, az_vm, gcp_budget, gcp_vm,
    subnet,
)
from tests.policy_harness import run, verdict


def _aws(budget) -> list:
    sn = subnet()
    return [sn, aws_box("gpu", "g5.xlarge", sn), budget]


# ----------------------------------------------------------------------------------- DEFECT 3
@pytest.mark.parametrize("filters", [
    {"InstanceType": ["t3.small"]},                       # review83's smallest: t3-only
    {"Service": ["Amazon Simple Storage Service"]},       # an S3-only budget
    {"Region": ["us-east-1"]},                            # would cover, but cannot be read
    {"name": "Region", "values": ["us-east-1"], "matchOption": "EQUALS"},   # no entry's shape
], ids=["map-t3", "map-s3", "map-region", "entry-plus-key"])
def test_d3_aws_cost_filters_map_refused(pack, filters):
    b = aws_budget(name="mapped", amount="1000.00", costFilters=filters)
    check(pack, _aws(b), AWS, {SPEND: "fail"}, [(SPEND, "mapped"), (SPEND, "costFilters {")])


def test_d3_aws_one_entry_object_is_read_as_a_list_of_it(pack):
    """{name: Region, values: [eu-west-1]} for the list: the g5 in us-east-1 is left out, so
    the budget is no alarm for it (before: read as no filter, a pass)."""
    b = aws_budget(name="one", amount="1000.00",
                   costFilters={"name": "Region", "values": ["eu-west-1"]})
    check(pack, _aws(b), AWS, {SPEND: "fail"}, [(SPEND, "no budget alarm")])


@pytest.mark.parametrize("filters", [{}, {"Region": None}, [], None],
                         ids=["empty", "null-value", "empty-list", "absent"])
def test_d3_aws_cost_filters_that_set_nothing_pass(pack, filters):
    """Null and empty are how the engine sends "not set": no filter, 1,000 > 734.38: pass."""
    b = aws_budget(name="plain", amount="1000.00", costFilters=filters)
    check(pack, _aws(b), AWS, {})


@pytest.mark.parametrize("field,value", [
    ("projects", "projects/ml-prod"), ("projects", "projects/other"),
    ("services", "services/95FF-2EF5-5EA1"), ("services", "services/6F81-5844-456A"),
    ("resourceAncestors", "folders/123"), ("projects", {"id": "projects/ml-prod"}),
])
def test_d3_gcp_name_list_as_text_refused(pack, field, value):
    b = gcp_budget(name="texted", units="1000", budgetFilter={field: value})
    check(pack, [gcp_vm("gpu", "g2-standard-8"), b], GCP_C, {SPEND: "fail"},
          [(SPEND, "texted"), (SPEND, f"budgetFilter.{field}")])


@pytest.mark.parametrize("field,value", [
    ("projects", ["projects/ml-prod"]), ("services", ["services/6F81-5844-456A"]),
    ("projects", ""), ("projects", None), ("projects", []),
])
def test_d3_gcp_name_lists_that_read_pass(pack, field, value):
    """The list shape naming the compute's project / Compute Engine, or not set: 1,000 covers
    623.15: pass."""
    b = gcp_budget(name="listed", units="1000", budgetFilter={field: value})
    check(pack, [gcp_vm("gpu", "g2-standard-8"), b], GCP_C, {})


# ----------------------------------------------------------------------------------- DEFECT 2
def _az(budget) -> list:
    nic = az_nic("t4-nic")
    return [nic, az_vm("t4-box", T4, nic), budget]


AMOUNT_UNKNOWN = {
    "aws": (lambda: _aws(aws_budget(name="b", amount=unknown())), AWS, 734.38),
    "gcp": (lambda: [gcp_vm("gpu", "g2-standard-8"), gcp_budget(name="b", units=unknown())],
            GCP_C, 623.15),
    "azure": (lambda: _az(az_budget(name="b", amount=unknown())), AZ, 383.98),
}


@pytest.mark.parametrize("cloud", sorted(AMOUNT_UNKNOWN))
def test_d2_unknown_amount_hides_no_max_monthly_overrun(pack, cloud):
    """maxMonthlyUsd 100 under the known figure: the overrun is a violation (mandatory), and
    with cannotDecide advisory nothing lets the stack pass."""
    build, provider, figure = AMOUNT_UNKNOWN[cloud]
    found = run(pack, build(), {SPEND: {"maxMonthlyUsd": 100, "cannotDecide": "advisory"}},
                provider)
    assert verdict(found, SPEND) == "fail", [d.message for d in found]
    over = [d.message for d in found if d.policy == SPEND and "maxMonthlyUsd" in d.message]
    assert any(f"Found: {round(figure):,} USD" in m for m in over), over   # shown whole


@pytest.mark.parametrize("cloud", sorted(AMOUNT_UNKNOWN))
def test_d2_unknown_amount_under_the_cap_still_asked(pack, cloud):
    """maxMonthlyUsd 10,000 above the figure: the amount may be above the cap (a violation
    on the budget): "cannot decide", nothing else reported."""
    build, provider, _ = AMOUNT_UNKNOWN[cloud]
    found = run(pack, build(), {SPEND: {"maxMonthlyUsd": 10000}}, provider)
    assert verdict(found, SPEND) == "undecided", [d.message for d in found]


@pytest.mark.parametrize("cloud", sorted(AMOUNT_UNKNOWN))
def test_d2_unknown_amount_no_cap_configured_still_asked(pack, cloud):
    """No maxMonthlyUsd: the budget is the cap and its amount is unknown: "cannot decide"."""
    build, provider, _ = AMOUNT_UNKNOWN[cloud]
    found = run(pack, build(), None, provider)
    assert verdict(found, SPEND) == "undecided", [d.message for d in found]


# ----------------------------------------------------------------------------------- DEFECT 1
# A trainstack:max-hours tag that is no positive finite number is a violation, but the tag never
# shortens the estimate: the group is priced for the month (g5.xlarge 734.38, T4 383.98), and
# the figure over maxMonthlyUsd 100 is reported whole (no "lower bound": nothing is left out).
@pytest.mark.parametrize("cloud,tag", [("aws", "NaN"), ("aws", "abc"), ("azure", "-5"),
                                       ("azure", "0")])
def test_d1_garbage_max_hours_tag_still_priced(pack, cloud, tag):
    if cloud == "aws":
        stack, provider, figure = _aws(aws_budget(name="b", amount="1000.00")), AWS, 734.38
    else:
        stack, provider, figure = _az(az_budget(name="b", amount=1000.0)), AZ, 383.98
    stack[1].props["tags"]["trainstack:max-hours"] = tag
    found = run(pack, stack, {SPEND: {"maxMonthlyUsd": 100}}, provider)
    msgs = [d.message for d in found if d.policy == SPEND]
    assert verdict(found, SPEND) == "fail", msgs
    assert any("trainstack:max-hours tag" in m and "not a positive finite" in m for m in msgs)
    over = [m for m in msgs if "exceeds the policy's maxMonthlyUsd" in m]
    assert over and f"Found: {round(figure):,} USD" in over[0], msgs
    assert "lower bound" not in over[0]


def test_d1_garbage_tag_under_the_budget_is_only_the_tag(pack):
    """1,000 covers the month of the g5 (734.38): the tag's own violation is the only one."""
    stack = _aws(aws_budget(name="b", amount="1000.00"))
    stack[1].props["tags"]["trainstack:max-hours"] = "abc"
    found = run(pack, stack, None, AWS)
    msgs = [d.message for d in found if d.policy == SPEND]
    assert len(msgs) == 1 and "trainstack:max-hours tag 'abc'" in msgs[0], msgs
