"""Issue 35, budgets that do not cover the compute (review44 u01-u03, v01, v03, v05-v07): every
budget filter dimension is read and decided, or makes the budget's coverage "cannot decide";
none is taken as covering the GPU compute because the pack does not read it. Per cloud and
dimension: one filter that takes the GPU compute in (pass), one that leaves it out (fail: no
budget alarm), one the pack cannot decide (undecided). Driven over gRPC as `pulumi preview`
drives the pack. Expectations written before the code (commit order shows it).

What each dimension means (the sources the expectations rest on):
  - AWS Budgets cost filters (docs.aws.amazon.com/cost-management/latest/userguide/
    budgets-create-filters): Billing entity "AWS" (AWS services) vs "AWS Marketplace"
    (Marketplace purchases); Usage type; Cost category (rules defined in Cost Categories,
    outside the program). Expression dimension keys and match options:
    docs.aws.amazon.com/aws-cost-management/latest/APIReference/
    API_budgets_ExpressionDimensionValues.html; CostCategories / Not roots: API_budgets_Expression.
  - EC2 usage types: region-BoxUsage:instance-type (On-Demand), region-SpotUsage:instance-type
    (Spot), region-DedicatedUsage:instance-type (Dedicated Instances), region-EBS:... (volumes)
    (docs.aws.amazon.com/AWSEC2/latest/UserGuide/ec2-billing-usage-reports.html); the region
    short codes, USE1 us-east-1, USW2 us-west-2 (docs.aws.amazon.com/global-infrastructure/
    latest/regions/aws-region-billing-codes.html; us-east-1 usage types also appear with no
    prefix).
  - Azure budget filter: and / dimensions / tags, and `not` in Microsoft.Consumption budgets
    2019-10-01 (learn.microsoft.com/azure/templates/microsoft.consumption/2019-10-01/budgets;
    learn.microsoft.com/javascript/api/@azure/arm-consumption/budgetfilter), operator "In".
    VM meters: serviceName / meter category "Virtual Machines", serviceFamily "Compute"
    (learn.microsoft.com/rest/api/cost-management/retail-prices/azure-retail-prices).
    ResourceId: the ARM id /subscriptions/{sub}/resourceGroups/{rg}/providers/
    Microsoft.Compute/virtualMachineScaleSets/{name}.
  - GCP budgetFilter (cloud.google.com/python/docs/reference/billingbudgets/latest/
    google.cloud.billing.budgets_v1.types.Filter): subaccounts and resourceAncestors (which
    billing subaccount / folder a project is under is set outside the program);
    creditTypesTreatment changes how credits count, not whose usage counts.

Figures (policies/catalog_data/prices.csv, on-demand USD/h, 730 h a month):
  AWS p5.48xlarge us-east-1 55.04: 1 node = 40,179.20 < 500,000.
  Azure Standard_NC24ads_A100_v4 eastus 3.673: 2 nodes = 5,362.58 < 20,000.
  GCP a2-highgpu-1g us-central1 3.67339: 1 VM = 2,681.57 < 100,000.
"""
from __future__ import annotations

import pytest

from tests.policies.test_policy_review35f import (
    AWS, AZ, GCP, SPEND, SUB, asg, aws_budget, az_budget, gcp_budget, gvm, lt, messages, subnet,
    verdict, vmss,
)
from tests.policy_fixtures import AZURE_ALERTS, res
from tests.policy_harness import run

RG = SUB + "/resourceGroups/ml-rg"
VMSS_ID = RG + "/providers/Microsoft.Compute/virtualMachineScaleSets/"


def _p5(label):
    s = subnet(f"{label}-sn", "us-east-1a")
    t = lt(f"{label}-lt", "p5.48xlarge")
    return [s, t, asg(label, t, [s], 1)]


def _aws(pack, label, **budget):
    found = run(pack, [*_p5(label), aws_budget("500000", **budget)], provider=AWS)
    return verdict(found, SPEND), messages(found, SPEND)


def _az(pack, label, flt, **kw):
    ss = vmss(f"{label}-a100", "Standard_NC24ads_A100_v4", 2.0, **kw)
    found = run(pack, [ss, az_budget(20000.0, filter=flt)], provider=AZ)
    return verdict(found, SPEND), messages(found, SPEND)


def _gcp(pack, label, flt):
    found = run(pack, [gvm(f"{label}-a2", "a2-highgpu-1g"),
                          gcp_budget("100000", budgetFilter=flt)], provider=GCP)
    return verdict(found, SPEND), messages(found, SPEND)


def _dim(name, values, operator="In"):
    return {"dimensions": {"name": name, "operator": operator, "values": values}}


def _cf(name, *values):
    return {"costFilters": [{"name": name, "values": list(values)}]}


# ===================================================================================== AWS

@pytest.mark.parametrize("values, expected", [
    (["BoxUsage:p5.48xlarge"], "pass"),            # us-east-1 On-Demand hours, no prefix
    (["USE1-BoxUsage:p5.48xlarge"], "pass"),       # the same with its region code
    (["USW2-BoxUsage:p5.48xlarge"], "fail"),       # us-west-2's hours, not the group's
    (["USE1-BoxUsage:p4d.24xlarge"], "fail"),      # another instance type
    (["USE1-SpotUsage:p5.48xlarge"], "fail"),      # Spot hours; the group is On-Demand
    (["USE1-EBS:VolumeUsage.gp3"], "fail"),        # volumes, not instance hours
    (["USE1-TimedStorage-ByteHrs"], "fail"),       # S3 storage (review44 v05)
    (["USE1-TimedStorage-ByteHrs", "USE1-BoxUsage:p5.48xlarge"], "pass"),   # values: OR
    (["USE1-DedicatedUsage:p5.48xlarge"], "undecided"),   # tenancy the pack does not read
])
def test_aws_usage_type(pack, values, expected):
    got, text = _aws(pack, "ut", **_cf("UsageType", *values))
    assert got == expected, text


@pytest.mark.parametrize("values, expected", [
    (["AWS"], "pass"), (["AWS Marketplace"], "fail"), (["Some Reseller"], "undecided")])
def test_aws_billing_entity(pack, values, expected):
    got, text = _aws(pack, "be", **_cf("BillingEntity", *values))
    assert got == expected, text


@pytest.mark.parametrize("name", ["CostCategory", "Operation", "UsageTypeGroup", "Nonsense"])
def test_aws_filter_names_not_read_cannot_decide(pack, name):
    got, text = _aws(pack, "cc", **_cf(name, "Team$vision"))
    assert got == "undecided", text


def test_aws_unread_filter_beside_one_that_leaves_out_fails(pack):
    """Filters of different names all apply: a Region that leaves the compute out decides,
    whatever the CostCategory. Expect: fail."""
    got, text = _aws(pack, "mix", costFilters=[{"name": "CostCategory", "values": ["Team$vision"]},
                                         {"name": "Region", "values": ["eu-west-1"]}])
    assert got == "fail", text


@pytest.mark.parametrize("expression, expected", [
    ({"dimensions": {"key": "USAGE_TYPE", "values": ["USE1-BoxUsage:p5.48xlarge"]}}, "pass"),
    ({"dimensions": {"key": "USAGE_TYPE", "values": ["USE1-TimedStorage-ByteHrs"]}}, "fail"),
    ({"dimensions": {"key": "BILLING_ENTITY", "values": ["AWS"]}}, "pass"),
    ({"dimensions": {"key": "BILLING_ENTITY", "values": ["AWS Marketplace"]}}, "fail"),
    ({"not": {"dimensions": {"key": "USAGE_TYPE", "values": ["USE1-BoxUsage:p5.48xlarge"]}}},
     "fail"),
    ({"dimensions": {"key": "OPERATION", "values": ["RunInstances"]}}, "undecided"),
    ({"costCategories": {"key": "Team", "values": ["vision"]}}, "undecided"),
    ({"dimensions": {"key": "REGION", "values": ["us-east"],
                     "matchOptions": ["STARTS_WITH"]}}, "undecided"),
    ({"ands": [{"costCategories": {"key": "Team", "values": ["vision"]}},
              {"dimensions": {"key": "REGION", "values": ["eu-west-1"]}}]}, "fail"),
])
def test_aws_filter_expression(pack, expression, expected):
    got, text = _aws(pack, "fx", filterExpression=expression)
    assert got == expected, text


# =================================================================================== Azure

@pytest.mark.parametrize("values, expected", [
    (["eastus"], "pass"), (["East US"], "pass"), (["westeurope"], "fail")])
def test_azure_resource_location(pack, values, expected):
    got, text = _az(pack, "loc", _dim("ResourceLocation", values))
    assert got == expected, text


def test_azure_operator_not_in_cannot_decide(pack):
    got, text = _az(pack, "op", _dim("ResourceLocation", ["eastus"], operator="Contains"))
    assert got == "undecided", text


@pytest.mark.parametrize("values, named, expected", [
    ([VMSS_ID + "train"], "train", "pass"),
    ([VMSS_ID.upper() + "TRAIN"], "train", "pass"),                  # ARM ids: any case
    ([VMSS_ID + "inference"], "train", "fail"),                      # another scale set
    ([SUB + "/resourceGroups/other-rg/providers/Microsoft.Compute/"
      "virtualMachineScaleSets/train"], "train", "fail"),           # another group
    ([VMSS_ID + "train"], None, "undecided"),      # auto-named: its name is read after apply
])
def test_azure_resource_id(pack, values, named, expected):
    kw = {"vmScaleSetName": named} if named else {}
    got, text = _az(pack, "rid", _dim("ResourceId", values), **kw)
    assert got == expected, text


@pytest.mark.parametrize("name, values, expected", [
    ("MeterCategory", ["Virtual Machines"], "pass"),
    ("MeterCategory", ["Storage"], "fail"),
    ("ServiceName", ["Virtual Machines", "Bandwidth"], "pass"),
    ("ServiceName", ["Storage"], "fail"),
    ("ServiceFamily", ["Compute"], "pass"),
    ("ServiceFamily", ["Storage", "Networking"], "fail"),
    ("MeterSubCategory", ["NCadsA100v4 Series"], "undecided"),
    ("ChargeType", ["Usage"], "undecided"),
    ("ResourceType", ["microsoft.compute/virtualmachinescalesets"], "undecided"),
])
def test_azure_service_and_meter_dimensions(pack, name, values, expected):
    got, text = _az(pack, "svc", _dim(name, values))
    assert got == expected, text


@pytest.mark.parametrize("inner, expected", [
    (_dim("ResourceGroupName", ["ml-rg"]), "fail"),          # everything but the compute
    (_dim("ResourceGroupName", ["other-rg"]), "pass"),       # everything but another group
    (_dim("MeterCategory", ["Storage"]), "pass"),
    (_dim("MeterSubCategory", ["NCadsA100v4 Series"]), "undecided"),
])
def test_azure_not(pack, inner, expected):
    got, text = _az(pack, "not", {"not": inner})
    assert got == expected, text


def test_azure_unread_and_clause_beside_one_that_leaves_out_fails(pack):
    got, text = _az(pack, "and", {"and": [_dim("ChargeType", ["Usage"]),
                                    _dim("ResourceLocation", ["westeurope"])]})
    assert got == "fail", text


# ===================================================================================== GCP

@pytest.mark.parametrize("flt, expected", [
    ({"subaccounts": ["billingAccounts/012345-6789AB-CDEF01"]}, "undecided"),
    ({"resourceAncestors": ["folders/123456789012"]}, "undecided"),
    ({"creditTypesTreatment": "EXCLUDE_ALL_CREDITS"}, "pass"),
    ({"services": ["services/6F81-5844-456A"]}, "pass"),                  # Compute Engine
    ({"services": ["services/95FF-2EF5-5EA1"]}, "fail"),                  # Cloud Storage
    ({"projects": ["projects/other-project"]}, "fail"),
    ({"subaccounts": ["billingAccounts/012345-6789AB-CDEF01"],
      "services": ["services/95FF-2EF5-5EA1"]}, "fail"),
])
def test_gcp_budget_filter_fields(pack, flt, expected):
    got, text = _gcp(pack, "gf", flt)
    assert got == expected, text


# ============================================= the finding names a budget that does not count

def test_azure_usage_budget_named_in_the_finding(pack):
    """The only Azure budget is a Usage budget: the finding names it and why it does not
    count, not "no budget resource" alone."""
    b = res("azure-native:costmanagement:Budget", "usage-only", {
        "amount": 20000.0, "category": "Usage", "timeGrain": "Monthly", "scope": SUB,
        "timePeriod": {"startDate": "2026-12-01T00:00:00Z"}, "notifications": AZURE_ALERTS})
    found = run(pack, [vmss("mu-a100", "Standard_NC24ads_A100_v4", 2.0), b], provider=AZ)
    text = messages(found, SPEND)
    assert verdict(found, SPEND) == "fail", text
    assert "usage-only" in text and "Usage" in text, text


def test_azure_ended_budget_named_in_the_finding(pack):
    b = res("azure-native:consumption:Budget", "ended-one", {
        "amount": 20000.0, "category": "Cost", "timeGrain": "Monthly", "scope": SUB,
        "timePeriod": {"startDate": "2025-01-01T00:00:00Z", "endDate": "2026-06-30T00:00:00Z"},
        "notifications": AZURE_ALERTS})
    found = run(pack, [vmss("me-a100", "Standard_NC24ads_A100_v4", 2.0), b], provider=AZ)
    text = messages(found, SPEND)
    assert verdict(found, SPEND) == "fail", text
    assert "ended-one" in text and "ended" in text, text


def test_gcp_ended_budget_named_in_the_finding(pack):
    b = gcp_budget("100000", budgetFilter={"customPeriod": {
        "startDate": {"year": 2026.0, "month": 1.0, "day": 1.0},
        "endDate": {"year": 2026.0, "month": 6.0, "day": 30.0}}})
    found = run(pack, [gvm("ge-a2", "a2-highgpu-1g"), b], provider=GCP)
    text = messages(found, SPEND)
    assert verdict(found, SPEND) == "fail", text
    assert "budget budget" in text and "ended" in text, text


# The Service filter's values are Cost Explorer's service names. Instance hours are "Amazon
# Elastic Compute Cloud - Compute" (Cost Explorer shows it as "EC2-Instances"); "EC2 - Other"
# is EBS volumes and snapshots, NAT gateways, data transfer and idle addresses, never instance
# hours (Cost Explorer's Service filter; handbook.vantage.sh/aws/services/ec2-other-pricing).
# A value that names EC2 in some other way is neither: the pack cannot tell what it holds.
@pytest.mark.parametrize("values, expected", [
    (["Amazon Elastic Compute Cloud - Compute"], "pass"),
    # fix79: AWS compares case-sensitively ("The default values for MatchOptions are EQUALS
    # and CASE_SENSITIVE", Cost Explorer DimensionValues): a lower-case name matches nothing.
    (["amazon elastic compute cloud - compute"], "fail"),
    (["EC2 - Other"], "fail"),                                # volumes, NAT, transfer
    (["EC2-Other"], "fail"),
    (["EC2 - Other", "Amazon Elastic Compute Cloud - Compute"], "pass"),   # values: OR
    (["Amazon Simple Storage Service"], "fail"),
    (["Amazon EC2 Something New"], "undecided"),
])
def test_aws_service_filter_names_instance_hours_or_not(pack, values, expected):
    got, text = _aws(pack, "svc", **_cf("Service", *values))
    assert got == expected, text
