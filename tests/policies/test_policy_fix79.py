"""fix79: two defects earlier fixers found, over gRPC as `pulumi preview --policy-pack policies`
drives the pack (tests/policy_harness.py, through review74's _run_case).

1. spend-limit, AWS budgets: every filter value compared as AWS compares it. "The default values
   for MatchOptions are EQUALS and CASE_SENSITIVE" (Cost Explorer API, DimensionValues; the
   Budgets Expression takes the same ExpressionDimensionValues). The values AWS bills under:
   UsageType `USE1-BoxUsage:p5.48xlarge` (docs.aws.amazon.com/AWSEC2/latest/UserGuide/
   ec2-billing-usage-reports.html: `BoxUsage`, `SpotUsage`; region codes upper case);
   PurchaseType `On Demand Instances`, `Spot Instances`, `Standard Reserved Instances`,
   `Savings Plans` (Cost Explorer GetDimensionValues PURCHASE_TYPE); BillingEntity `AWS`,
   `AWS Marketplace` (cost-management user guide, budgets-create-filters); Service
   `Amazon Elastic Compute Cloud - Compute`. A value in another case (or spelling) matches
   nothing: the budget counts none of the GPU nodes' hours, so it is neither their alarm nor
   their cap. Filter NAMES are case-sensitive too: AWS refuses a budget whose costFilters key
   is `service` ("InvalidParameterException: Unable to create/update budget - service is not
   in the supported in cost budget dimension set: [PurchaseType, TagKeyValue, UsageTypeGroup,
   Service, AZ, Region, Operation, InstanceType, UsageType, BillingEntity, LinkedAccount]",
   hashicorp/terraform#19370), and a filterExpression dimension key is an enum (AZ |
   INSTANCE_TYPE | ... | USAGE_TYPE | BILLING_ENTITY: API_budgets_ExpressionDimensionValues): a
   budget AWS refuses is never created, so it is no cap and no alarm, even inside a `not`.

   Figures: review74's AWS cluster, an Auto Scaling group of 2 On-Demand p5.48xlarge in
   us-east-1a (USE1), stopped at 96 h: 2 x 55.04 x 96 = 10,567.68 + storage ~1,574 = ~12,141
   USD, under the one budget's 20,000. A budget that covers the group: pass. One that does not,
   with no other budget: "no budget alarm on aws", a mandatory violation: fail.
"""
from __future__ import annotations

import pytest

from tests.policies.test_policy_fix75 import _abud, _dim
from tests.policies.test_policy_review74 import SPEND as SPEND_P, _run_case

GOOD = "USE1-BoxUsage:p5.48xlarge"


def _cf(name, *values):
    return _abud(costFilters=[{"name": name, "values": list(values)}])


def _ex(expr):
    return _abud(filterExpression=expr)


def _c(cid, mutate, want, why, msg=()):
    expect = {SPEND_P: want} if want else {}
    if msg:
        expect["_msg"] = {SPEND_P: list(msg)}
    return (cid, "aws", {}, mutate, expect, None, why)


VALUE_CASES = [
    # UsageType
    _c("a01", _cf("UsageType", GOOD), None, "USE1-BoxUsage:p5.48xlarge: the group's hours: pass"),
    _c("a02", _cf("UsageType", "USE1-boxusage:p5.48xlarge"), "fail",
       "boxusage in lower case: no usage type AWS bills, no hours: fail"),
    _c("a03", _cf("UsageType", "USE1-BOXUSAGE:p5.48xlarge"), "fail", "BOXUSAGE: fail"),
    _c("a04", _cf("UsageType", "use1-BoxUsage:p5.48xlarge"), "fail",
       "region code use1 in lower case: matches nothing: fail"),
    _c("a05", _cf("UsageType", "USE1-BoxUsage:P5.48XLARGE"), "fail",
       "type in upper case: EC2 bills p5.48xlarge, the value matches nothing: fail"),
    _c("a06", _cf("UsageType", "boxusage:p5.48xlarge", GOOD), None,
       "one exact value among two: pass"),
    # PurchaseType
    _c("a07", _cf("PurchaseType", "On Demand Instances"), None, "On Demand Instances: pass"),
    _c("a08", _cf("PurchaseType", "on demand instances"), "fail", "lower case: fail"),
    _c("a09", _cf("PurchaseType", "ON DEMAND INSTANCES"), "fail", "upper case: fail"),
    _c("a10", _cf("PurchaseType", "On-Demand Instances"), "fail",
       "hyphenated: not the value Cost Explorer bills under: fail"),
    # BillingEntity
    _c("a11", _cf("BillingEntity", "AWS"), None, "AWS: pass"),
    _c("a12", _cf("BillingEntity", "aws"), "fail", "aws: matches nothing: fail"),
    _c("a13", _cf("BillingEntity", "Aws"), "fail", "Aws: fail"),
    # Service
    _c("a14", _cf("Service", "Amazon Elastic Compute Cloud - Compute"), None, "EC2 compute: pass"),
    _c("a15", _cf("Service", "amazon elastic compute cloud - compute"), "fail", "lower: fail"),
    _c("a16", _cf("Service", "AMAZON ELASTIC COMPUTE CLOUD - COMPUTE"), "fail", "upper: fail"),
    # filterExpression, the same values
    _c("e01", _ex(_dim("USAGE_TYPE", GOOD)), None, "USAGE_TYPE exact: pass"),
    _c("e02", _ex(_dim("USAGE_TYPE", "USE1-boxusage:p5.48xlarge")), "fail", "lower: fail"),
    _c("e03", _ex(_dim("PURCHASE_TYPE", "on demand instances")), "fail", "lower: fail"),
    _c("e04", _ex(_dim("BILLING_ENTITY", "aws")), "fail", "lower: fail"),
    _c("e05", _ex(_dim("SERVICE", "amazon elastic compute cloud - compute")), "fail",
       "lower: fail"),
    _c("e06", _ex(_dim("USAGE_TYPE", "USE1-boxusage:p5.48xlarge", match=["EQUALS"])), "fail",
       "EQUALS written out: the same, case-sensitive: fail"),
    _c("e07", _ex({"not": _dim("USAGE_TYPE", "USE1-boxusage:p5.48xlarge")}), None,
       "NOT a usage type that matches nothing: every hour is in: pass"),
    _c("e08", _ex({"not": _dim("PURCHASE_TYPE", "on demand instances")}), None,
       "NOT a purchase type that matches nothing: pass"),
    _c("e09", _ex(_dim("USAGE_TYPE", "USE1-boxusage:p5.48xlarge", match=["CASE_INSENSITIVE"])),
       ("fail", "undecided"), "a match option the pack does not compare: never the cap"),
    _c("e10", _ex(_dim("BILLING_ENTITY", "aws", match=["CASE_INSENSITIVE"])),
       ("fail", "undecided"), "CASE_INSENSITIVE: never the cap"),
    _c("e11", _ex(_dim("INSTANCE_TYPE", "p5.48xlarge", match=["equals"])), ("fail", "undecided"),
       "match option 'equals' is no MatchOption value (the enum is upper case): never the cap"),
    _c("e12", _ex({"ors": [_dim("USAGE_TYPE", "USE1-boxusage:p5.48xlarge"),
                           _dim("BILLING_ENTITY", "aws")]}), "fail",
       "OR of two values that match nothing: fail"),
]

NAME_CASES = [
    _c("n01", _cf("InstanceType", "p5.48xlarge"), None, "InstanceType: pass"),
    _c("n02", _cf("instancetype", "p5.48xlarge"), "fail",
       "costFilters key instancetype: AWS refuses the budget: no cap, no alarm: fail",
       ("instancetype", "InstanceType")),
    _c("n03", _cf("INSTANCETYPE", "p5.48xlarge"), "fail", "INSTANCETYPE: refused: fail"),
    _c("n04", _cf("region", "us-east-1"), "fail", "region: refused: fail", ("region", "Region")),
    _c("n05", _cf("Region", "us-east-1"), None, "Region: pass"),
    _c("n06", _cf("usageType", GOOD), "fail", "usageType: refused: fail"),
    _c("n07", _cf("billingentity", "AWS"), "fail", "billingentity: refused: fail"),
    _c("n08", _ex(_dim("instance_type", "p5.48xlarge")), "fail",
       "filterExpression key instance_type: no Key value AWS takes: refused: fail",
       ("instance_type", "INSTANCE_TYPE")),
    _c("n09", _ex(_dim("Usage_Type", GOOD)), "fail", "Usage_Type: refused: fail"),
    _c("n10", _ex({"not": _dim("instance_type", "g6.xlarge")}), "fail",
       "a refused key inside NOT: the budget is still refused, never 'everything': fail"),
    _c("n11", _ex({"ands": [_dim("REGION", "us-east-1"), _dim("region", "us-east-1")]}), "fail",
       "a refused key beside a good one: refused: fail"),
    _c("n12", _abud(costFilters=[{"name": "Region", "values": ["us-east-1"]},
                                 {"name": "purchaseType", "values": ["On Demand Instances"]}]),
       "fail", "one refused name among good ones: refused: fail"),
]


@pytest.mark.parametrize("case", [pytest.param(c, id=c[0]) for c in VALUE_CASES])
def test_aws_budget_filter_values_case_sensitive(pack, case):
    _run_case(pack, case)


@pytest.mark.parametrize("case", [pytest.param(c, id=c[0]) for c in NAME_CASES])
def test_aws_budget_filter_names_case_sensitive(pack, case):
    _run_case(pack, case)
