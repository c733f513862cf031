"""A single-GPU inference stack on each cloud is priced by spend-limit over gRPC (issue 35).

Before the catalog listed g5/g2/NVads A10/gn7i, these stacks failed closed ("cannot be
estimated") whatever their budget. Now: under its cap the stack passes, over it the stack fails
with the hand-computed estimate and the price's as-of date in the message.

Expected monthly costs, by hand (1 node x USD/h x 730 h: no lifetime is enforced, so the month):
- AWS g5.xlarge us-east-1: 1.006 USD/h (tsaol/aws-gpu all_gpu_instances.js @77fcd9fe, onDemand)
  x 730 = 734.38.
- GCP g2-standard-4 us-central1: 0.706832255 USD/h (Cyclenerd pricing.yml @fd66b26f, hour),
  0.706832 in the catalog (6 significant digits, tools/build_price_catalog.py) x 730 = 515.99.
- Azure Standard_NV36ads_A10_v5 westeurope: 4.16 USD/h (azure-pricing-radar vm-eu-west.json
  @cf741f25, Linux meter "NV36ads A10 v5") x 730 = 3,036.80.
- Alibaba ecs.gn7i-c8g1.2xlarge cn-hangzhou: 1.3270908 USD/h (sugarlxn/skypilot-catalog
  alicloud vms.csv @003c56a7), 1.32709 in the catalog x 730 = 968.78. Alibaba has no budget
  resource: the cap is the policy's maxMonthlyUsd, and an auto-release time beyond a month
  stands in for the alarm without shortening the priced month.
"""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from tests.policy_fixtures import AWS_ALERTS, AZURE_ALERTS, GCP_ALERTS, OWNER_TAGS, res
from tests.policy_harness import run


def _later(hours: float) -> str:
    return (datetime.now(timezone.utc) + timedelta(hours=hours)).strftime("%Y-%m-%dT%H:%M:%SZ")


def aws_stack(budget: str) -> list:
    node = res("aws:ec2/instance:Instance", "infer", {
        "instanceType": "g5.xlarge", "region": "us-east-1", "ami": "ami-0abc",
        "tags": OWNER_TAGS})
    budget_ = res("aws:budgets/budget:Budget", "budget", {
        "notifications": AWS_ALERTS,
        "budgetType": "COST", "timeUnit": "MONTHLY", "limitAmount": budget, "limitUnit": "USD",
        "tags": OWNER_TAGS})
    return [node, budget_]


def gcp_stack(budget: str) -> list:
    labels = {"owner": "alice", "team": "ml", "cost_center": "1234"}
    node = res("gcp:compute/instance:Instance", "infer", {
        "machineType": "g2-standard-4", "zone": "us-central1-a", "labels": labels,
        "bootDisk": {"initializeParams": {"image": "debian-12"}},
        "networkInterfaces": [{"network": "default"}]})
    budget_ = res("gcp:billing/budget:Budget", "budget", {
        "thresholdRules": GCP_ALERTS,
        "amount": {"specifiedAmount": {"currencyCode": "USD", "units": budget}}})
    return [node, budget_]


def azure_stack(budget: float) -> list:
    node = res("azure-native:compute:VirtualMachine", "infer", {
        "location": "westeurope", "hardwareProfile": {"vmSize": "Standard_NV36ads_A10_v5"},
        "priority": "Regular", "tags": OWNER_TAGS})
    budget_ = res("azure-native:consumption:Budget", "budget", {
        "notifications": AZURE_ALERTS,
        "amount": budget, "category": "Cost", "timeGrain": "Monthly", "scope": "/subscriptions/s"})
    return [node, budget_]


def alicloud_stack() -> list:
    switch = res("alicloud:vpc/switch:Switch", "vsw", {"zoneId": "cn-hangzhou-j",
                                                      "tags": OWNER_TAGS},
                 provider_region="cn-hangzhou")
    node = res("alicloud:ecs/instance:Instance", "infer", {
        "instanceType": "ecs.gn7i-c8g1.2xlarge", "vswitchId": "vsw-id",
        "internetMaxBandwidthOut": 0.0, "tags": OWNER_TAGS,
        "autoReleaseTime": _later(2000)},     # beyond a month: the month is priced
        deps={"vswitchId": [switch]}, provider_region="cn-hangzhou")
    return [switch, node]


# (stack under its cap, stack over it, pack config, the estimate line, the total USD, its date)
CASES = {
    "aws": (lambda: aws_stack("750"), lambda: aws_stack("700"), {},
            "1 x g5.xlarge x 1.01 USD/h x 730 h", "734",
            "2026-01-21 (file's 'Last updated')"),
    "gcp": (lambda: gcp_stack("600"), lambda: gcp_stack("500"), {},
            "1 x g2-standard-4 x 0.71 USD/h x 730 h", "516",
            "2026-07-30 (file generated)"),
    "azure": (lambda: azure_stack(3100.0), lambda: azure_stack(3000.0), {},
              "1 x Standard_NV36ads_A10_v5 x 4.16 USD/h x 730 h", "3,037",
              "2026-08-22"),
    "alicloud": (alicloud_stack, alicloud_stack, None,
                 "1 x ecs.gn7i-c8g1.2xlarge x 1.33 USD/h x 730 h", "969",
                 "2026-11-30 (date the snapshot was read; its commit date is not retrievable)"),
}
ALI_CAPS = (1000, 900)   # maxMonthlyUsd under / over 968.78


def _spend(pack, resources, config) -> list:
    return [d for d in run(pack, resources, config) if d.policy == "spend-limit"]


@pytest.mark.parametrize("cloud", sorted(CASES))
def test_a_single_gpu_stack_under_its_cap_passes(pack, cloud):
    under, _, config, *_ = CASES[cloud]
    if config is None:
        config = {"spend-limit": {"maxMonthlyUsd": ALI_CAPS[0]}}
    assert _spend(pack, under(), config) == []


@pytest.mark.parametrize("cloud", sorted(CASES))
def test_a_single_gpu_stack_over_its_cap_fails_with_the_estimate_and_its_date(pack, cloud):
    _, over, config, line, total, as_of = CASES[cloud]
    if config is None:
        config = {"spend-limit": {"maxMonthlyUsd": ALI_CAPS[1]}}
    [d] = _spend(pack, over(), config)
    assert d.level == "mandatory"
    assert "the estimated monthly cost exceeds" in d.message
    # Alibaba's line adds "(lifetime enforced by autoReleaseTime ...)": the release time is
    # read, then capped at the month.
    assert f"Found: {total} USD/month ({line}" in d.message
    assert f"= {total}; catalog prices as of {as_of})" in d.message
    assert "cannot be estimated" not in d.message
