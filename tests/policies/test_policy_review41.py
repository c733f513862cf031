"""Issue 35, a fresh BLIND hostile review (helper review41), driven over gRPC as
`pulumi preview --policy-pack` drives the pack (tests/policy_harness.py). The pack's rule code
was not read. Only the builders and verdict reader of test_policy_review35f.py are imported.
Scope cut short by the 01:08 UTC deadline: a handful of cases, not the 50-70 asked.

Expected verdicts are written in each docstring before the first run; prices are
policies/catalog_data/prices.csv rows (as quoted in test_policy_review40.py's header):
aws us-east-1 g6.xlarge 0.8048; gcp us-central1 g2-standard-8 0.853624; azure eastus
Standard_NV36ads_A10_v5 3.2. A month is 730 h.
"""
from __future__ import annotations

from tests.policies.test_policy_review35f import (
    AWS, AZ, GCP, MONTH, NPI, SPEND, TAGS, asg, aws_budget, az_budget, ec2, estimate, gvm, lt,
    messages, near, subnet, verdict, vmss,
)
from tests.policy_fixtures import res
from tests.policy_harness import run


def test_k1_single_g6_xlarge_priced(pack):
    """aws ec2 g6.xlarge in us-east-1a with a budget. Expect estimate 0.8048 x 730 = 587.50."""
    assert near(estimate(pack, [ec2("k1", "g6.xlarge"), aws_budget()], AWS), 0.8048 * MONTH)


def test_k2_gcp_g2_standard_8_priced(pack):
    """gcp g2-standard-8 in us-central1-a with a budget. Expect 0.853624 x 730 = 623.15."""
    from tests.policies.test_policy_review35f import gcp_budget
    assert near(estimate(pack, [gvm("k2", "g2-standard-8"), gcp_budget()], GCP),
                0.853624 * MONTH)


def test_k3_azure_vmss_a10_priced(pack):
    """azure-native VMSS of Standard_NV36ads_A10_v5, capacity 2, subscription budget.
    Expect 2 x 3.2 x 730 = 4,672."""
    assert near(estimate(pack, [vmss("k3", "Standard_NV36ads_A10_v5", 2), az_budget()], AZ),
                2 * 3.2 * MONTH)


def test_e1_gpu_instance_no_budget_fails(pack):
    """aws ec2 g6.xlarge and no budget at all. Expect spend-limit fail."""
    found = run(pack, [ec2("e1", "g6.xlarge")], provider=AWS)
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)


def test_f1_asg_max_size_unreadable_not_pass(pack):
    """An ASG of g6.xlarge with maxSize "many" beside a 1 USD cap. Expect spend-limit not pass
    (undecided or fail: an unreadable size never makes the total smaller)."""
    s = subnet("f1-sn", "us-east-1a")
    t = lt("f1-lt", "g6.xlarge")
    g = asg("f1", t, [s], 2, maxSize="many", desiredCapacity="many")
    found = run(pack, [s, t, g, aws_budget("1")], {SPEND: {"maxMonthlyUsd": 1}}, provider=AWS)
    assert verdict(found, SPEND) != "pass", messages(found, SPEND)


def test_i1_eip_on_gpu_instance_fails(pack):
    """An aws.ec2.Eip with `instance` the stack's g6.xlarge instance. Expect no-public-ingress
    fail (issue 35: an Elastic IP associated with a GPU instance must not pass)."""
    s = subnet("i1-sn", "us-east-1a")
    vm = ec2("i1", "g6.xlarge", s)
    eip = res("aws:ec2/eip:Eip", "i1-eip", {"domain": "vpc", "instance": "i-id", "tags": TAGS},
              deps={"instance": [vm]})
    found = run(pack, [s, vm, eip, aws_budget()], provider=AWS)
    assert verdict(found, NPI) == "fail", messages(found, NPI)
