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

Figures (components/catalog/prices.csv, a month is 730 h): aws us-east-1 g5.xlarge 1.006 USD/h
= 734.38 a month; gcp us-central1 g2-standard-8 0.853624 = 623.15 a month. Every budget below
is 1,000, above either figure: were a refused filter read as no filter, the stack would pass.
"""
from __future__ import annotations

import pytest

from tests.policies.test_policy_fix80 import SPEND, check
from tests.policies.test_policy_review49 import (
    AWS, GCP_C, aws_box, aws_budget, gcp_budget, gcp_vm, subnet,
)


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
