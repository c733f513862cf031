"""Catalog reach over gRPC (issue 35): a type priced for the first time is priced by spend-limit
with its cited price and the price's date; a type the provider lists without a public price fails
closed, naming the missing price and the source that lists the type.

Expected monthly costs, by hand (1 node x USD/h x 730 h: no lifetime is enforced, so the month),
each from the row as its public source gives it:
- AWS g7.2xlarge us-east-1: 2.52 USD/h (github.com/tsaol/aws-gpu data/g7_instances.js and
  all_gpu_instances.js @299375be7a2b940b53b3d80ec79fd66ee688f4fa, pricing.us-east-1.onDemand;
  file "Last updated: 2026-08-26") x 730 = 1,839.60.
- GCP n1-standard-8 + 1 x nvidia-tesla-v100, us-central1: 0.38 (the N1 machine row) + 2.48 (the
  V100 row for 1 GPU, zones a/b/c/f alike) = 2.86 USD/h (github.com/skypilot-org/skypilot-catalog
  catalogs/v8/gcp/vms.csv @006059e0f18acb1341e22a27751e9f80df6ba92f) x 730 = 2,087.80.
- Azure Standard_NC8ads_A10_v4 westeurope: 1.43 USD/h (github.com/andy-diericks/azure-pricing-radar
  data/latest/vm-eu-west.json @cf741f25c50759745f8eb5dcaf6c3746669c8f31, product "Virtual Machines
  NCadsA10v4 Series", meter "NC8ads_A10_v4"; snapshot 2026-08-22) x 730 = 1,043.90.
- Alibaba ecs.sgn7i-vws-m2.xlarge cn-hangzhou: 0.27289975 USD/h in zones j and k alike
  (github.com/sugarlxn/skypilot-catalog catalogs/v8/alicloud/vms.csv @003c56a7, CNY x 0.138),
  0.2729 in the catalog (6 significant digits, tools/build_price_catalog.py) x 730 = 199.22.
  Alibaba has no budget resource: the cap is the policy's maxMonthlyUsd.
"""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from tests.catalog.test_gcp_n1_attached_gpus_grpc import n1_stack
from tests.policy_fixtures import AWS_ALERTS, AZURE_ALERTS, GCP_ALERTS, OWNER_TAGS, res
from tests.policy_harness import run


def _later(hours: float) -> str:
    return (datetime.now(timezone.utc) + timedelta(hours=hours)).strftime("%Y-%m-%dT%H:%M:%SZ")


def aws_stack(itype: str, budget: str) -> list:
    node = res("aws:ec2/instance:Instance", "infer", {
        "instanceType": itype, "region": "us-east-1", "ami": "ami-0abc", "tags": OWNER_TAGS})
    budget_ = res("aws:budgets/budget:Budget", "budget", {
        "notifications": AWS_ALERTS,
        "budgetType": "COST", "timeUnit": "MONTHLY", "limitAmount": budget, "limitUnit": "USD",
        "tags": OWNER_TAGS})
    return [node, budget_]


def gcp_stack(machine: str, budget: str) -> list:
    labels = {"owner": "alice", "team": "ml", "cost_center": "1234"}
    node = res("gcp:compute/instance:Instance", "infer", {
        "machineType": machine, "zone": "us-central1-a", "labels": labels,
        "bootDisk": {"initializeParams": {"image": "debian-12"}},
        "networkInterfaces": [{"network": "default"}]})
    budget_ = res("gcp:billing/budget:Budget", "budget", {
        "thresholdRules": GCP_ALERTS,
        "amount": {"specifiedAmount": {"currencyCode": "USD", "units": budget}}})
    return [node, budget_]


def azure_stack(size: str, budget: float) -> list:
    node = res("azure-native:compute:VirtualMachine", "infer", {
        "location": "westeurope", "hardwareProfile": {"vmSize": size},
        "priority": "Regular", "tags": OWNER_TAGS})
    budget_ = res("azure-native:consumption:Budget", "budget", {
        "notifications": AZURE_ALERTS,
        "amount": budget, "category": "Cost", "timeGrain": "Monthly", "scope": "/subscriptions/s"})
    return [node, budget_]


def alicloud_stack(itype: str) -> list:
    switch = res("alicloud:vpc/switch:Switch", "vsw", {"zoneId": "cn-hangzhou-j",
                                                      "tags": OWNER_TAGS},
                 provider_region="cn-hangzhou")
    node = res("alicloud:ecs/instance:Instance", "infer", {
        "instanceType": itype, "vswitchId": "vsw-id", "internetMaxBandwidthOut": 0.0,
        "tags": OWNER_TAGS, "autoReleaseTime": _later(2000)},   # beyond a month: a month priced
        deps={"vswitchId": [switch]}, provider_region="cn-hangzhou")
    return [switch, node]


V100 = [{"type": "nvidia-tesla-v100", "count": 1.0}]
ALI_CAP = lambda usd: {"spend-limit": {"maxMonthlyUsd": usd}}   # noqa: E731

# (stack under its cap, config, stack over it, config, the estimate line, the total, its date)
NEW_ROWS = {
    "aws": (lambda: aws_stack("g7.2xlarge", "1850"), None,
            lambda: aws_stack("g7.2xlarge", "1800"), None,
            "1 x g7.2xlarge x 2.52 USD/h x 730 h", "1,840",
            "2026-08-26 (file's 'Last updated')"),
    "gcp": (lambda: n1_stack("2100", V100, nodes=1.0), None,
            lambda: n1_stack("2000", V100, nodes=1.0), None,
            "1 x n1-standard-8 + 1 x nvidia-tesla-v100 x 2.86 USD/h x 730 h", "2,088",
            "2026-11-30 (date the snapshot was read; its commit date is not retrievable)"),
    "azure": (lambda: azure_stack("Standard_NC8ads_A10_v4", 1050.0), None,
              lambda: azure_stack("Standard_NC8ads_A10_v4", 1000.0), None,
              "1 x Standard_NC8ads_A10_v4 x 1.43 USD/h x 730 h", "1,044", "2026-08-22"),
    "alicloud": (lambda: alicloud_stack("ecs.sgn7i-vws-m2.xlarge"), ALI_CAP(200),
                 lambda: alicloud_stack("ecs.sgn7i-vws-m2.xlarge"), ALI_CAP(190),
                 "1 x ecs.sgn7i-vws-m2.xlarge x 0.27 USD/h x 730 h", "199",
                 "2026-11-30 (date the snapshot was read; its commit date is not retrievable)"),
}

# A type each provider lists publicly with no public price: (stack, config, the words the refusal
# must carry: the type, the missing price, the source that lists it, why there is no price).
UNPRICED = {
    "aws": (lambda: aws_stack("p5e.48xlarge", "1000000"), None,
            ["p5e.48xlarge in us-east-1", "has no catalog price",
             "botocore 1.43.117", "no public on-demand price: sold through EC2 Capacity Blocks"]),
    "gcp": (lambda: gcp_stack("a4x-highgpu-4g", "1000000"), None,
            ["a4x-highgpu-4g in us-central1", "has no catalog price",
             "cloud.google.com/compute/docs/accelerator-optimized-machines",
             "no price row in Cyclenerd pricing.yml"]),
    "azure": (lambda: azure_stack("Standard_ND128isr_NDR_GB200_v6", 1e6), None,
              ["Standard_ND128isr_NDR_GB200_v6 in westeurope", "has no catalog price",
               "nd-gb200-v6-series", "no meter in github.com/andy-diericks/azure-pricing-radar"]),
    "alicloud": (lambda: alicloud_stack("ecs.gn7-c12g1.3xlarge"), ALI_CAP(1_000_000),
                 ["ecs.gn7-c12g1.3xlarge in cn-hangzhou", "has no catalog price",
                  "gpu-accelerated-compute-optimized-and-vgpu-accelerated-instance-families-1",
                  "no pay-as-you-go row in github.com/sugarlxn/skypilot-catalog"]),
}


def _spend(pack, resources, config) -> list:
    return [d for d in run(pack, resources, config) if d.policy == "spend-limit"]


@pytest.mark.parametrize("cloud", sorted(NEW_ROWS))
def test_a_newly_priced_type_under_its_cap_passes(pack, cloud):
    under, config, *_ = NEW_ROWS[cloud]
    assert _spend(pack, under(), config) == []


@pytest.mark.parametrize("cloud", sorted(NEW_ROWS))
def test_a_newly_priced_type_over_its_cap_fails_with_the_hand_priced_estimate_and_date(pack,
                                                                                      cloud):
    _, _, over, config, line, total, as_of = NEW_ROWS[cloud]
    [d] = _spend(pack, over(), config)
    assert d.level == "mandatory" and "the estimated monthly cost exceeds" in d.message
    assert f"Found: {total} USD/month ({line}" in d.message
    assert f"= {total}; catalog prices as of {as_of})" in d.message
    assert "cannot be estimated" not in d.message


@pytest.mark.parametrize("cloud", sorted(UNPRICED))
def test_a_listed_type_without_a_public_price_fails_closed_naming_why(pack, cloud):
    stack, config, words = UNPRICED[cloud]
    [d] = _spend(pack, stack(), config)
    assert d.level == "mandatory" and "cannot be estimated" in d.message
    for word in words:
        assert word in d.message, (word, d.message)


def test_a_region_the_provider_sells_a_type_in_without_a_price_is_not_called_not_offered(pack):
    """gcloud lists a3-megagpu-8g in us-central1 (Cyclenerd tools/machinetyperegion.csv
    @dac31281) and no source prices it there: over gRPC the refusal says it is sold there with no
    price found, names the list, and does not say "not offered"."""
    [d] = _spend(pack, gcp_stack("a3-megagpu-8g", "1000000"), None)
    assert d.level == "mandatory" and "cannot be estimated" in d.message
    for word in ("a3-megagpu-8g in us-central1", "has no catalog price",
                 "listed as sold in us-central1", "tools/machinetyperegion.csv",
                 "no price for this region in Cyclenerd pricing.yml"):
        assert word in d.message, (word, d.message)
    assert "not offered" not in d.message
