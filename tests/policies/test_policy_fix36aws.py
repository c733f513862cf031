"""Issue 35 / review36, the AWS fixes beyond the review's own cases (helper fix36aws): the
aws-native forms of what the classic provider already had (an Elastic IP association, an ODCR
that ends, an ODCR a group in another zone cannot fill, an EC2 Fleet from an aws-native
template), and a budget's LinkedAccount filter against the provider's assumed role or several
allowed accounts. Driven over gRPC (tests/policy_harness.py). Expected verdicts and figures are
worked by hand before the run from policies/catalog_data/prices.csv (p5.48xlarge us-east-1
55.04 USD/h; g6e.12xlarge us-east-1 10.4926; p4d.24xlarge us-east-1 21.9576); a month is 730 h.
"""
from __future__ import annotations

from tests.policies.test_policy_review35f import (
    AWS,
    MONTH,
    NPI,
    SPEND,
    aws_budget,
    ec2,
    estimate,
    messages,
    near,
    subnet,
    verdict,
)
from tests.policies.test_policy_review36 import (
    G6E12,
    P5,
    _linked_budget,
    _native_asg,
    _native_lt,
    _p4d_pair,
)
from tests.policy_fixtures import hours_from_now, res
from tests.policy_harness import run


def test_aws_native_eip_association_on_gpu_instance_fails(pack):
    """An aws-native EipAssociation (AWS::EC2::EIPAssociation) of an address with a g5.xlarge
    instance on a private subnet: the instance answers on a public address.
    Expect: no-public-ingress fail."""
    s = subnet("a", "us-east-1a")
    i = ec2("l4", "g5.xlarge", on_subnet=s)
    eip = res("aws-native:ec2:Eip", "l4-eip", {"domain": "vpc"})
    assoc = res("aws-native:ec2:EipAssociation", "l4-assoc", {
        "allocationId": "eipalloc-id", "instanceId": "i-id"},
        deps={"allocationId": [eip], "instanceId": [i]})
    found = run(pack, [s, i, eip, assoc, aws_budget()], provider=AWS)
    assert verdict(found, NPI) == "fail", messages(found, NPI)


def test_aws_native_eip_on_no_node_passes(pack):
    """An aws-native Eip allocated for a NAT gateway (no instanceId) beside a private GPU
    instance: no node gets a public address. Expect: no-public-ingress pass."""
    s = subnet("a", "us-east-1a")
    i = ec2("l4", "g5.xlarge", on_subnet=s)
    eip = res("aws-native:ec2:Eip", "nat-eip", {"domain": "vpc"})
    found = run(pack, [s, i, eip, aws_budget()], provider=AWS)
    assert verdict(found, NPI) == "pass", messages(found, NPI)


def test_aws_native_odcr_that_ends_bills_until_its_end(pack):
    """An aws-native ODCR of 2 p5.48xlarge, endDateType limited, endDate 48 h from now
    (AWS::EC2::CapacityReservation EndDate: "you stop paying ... when the reservation
    expires"), nothing in it. Expect: estimate 2 x 55.04 x 48 = 5,283.84."""
    cr = res("aws-native:ec2:CapacityReservation", "two-days", {
        "instanceType": "p5.48xlarge", "instancePlatform": "Linux/UNIX",
        "availabilityZone": "us-east-1a", "instanceCount": 2, "endDateType": "limited",
        "endDate": hours_from_now(48)})
    assert near(estimate(pack, [cr], AWS), 2 * P5 * 48)


def test_aws_native_group_in_another_zone_does_not_fill_the_odcr(pack):
    """An open aws-native ODCR of 2 g6e.12xlarge in us-east-1a and an aws-native group of 2
    g6e.12xlarge in us-east-1b (its subnet): an ODCR takes instances of its own zone only.
    Expect: both priced, 2 x 2 x 10.4926 x 730 = 30,638.39."""
    cr = res("aws-native:ec2:CapacityReservation", "l40s-odcr", {
        "instanceType": "g6e.12xlarge", "instancePlatform": "Linux/UNIX",
        "availabilityZone": "us-east-1a", "instanceCount": 2})
    s = subnet("b", "us-east-1b")
    t = _native_lt("l40s-lt", "g6e.12xlarge")
    g = _native_asg("l40s", t, 2, vpcZoneIdentifier=["subnet-id"])
    g.deps["vpcZoneIdentifier"] = [s]
    assert near(estimate(pack, [cr, s, t, g], AWS), 2 * 2 * G6E12 * MONTH)


def test_aws_native_spot_group_does_not_fill_the_odcr(pack):
    """The same ODCR and an aws-native group of 2 g6e.12xlarge in us-east-1a whose template
    asks for spot: spot instances do not launch into a capacity reservation (EC2 User Guide,
    capacity-reservations-launch). Expect: the reservation is priced whole (2 x 10.4926 x 730
    = 15,319.20) and the spot group on top of it, so the estimate is above 15,319.20."""
    cr = res("aws-native:ec2:CapacityReservation", "l40s-odcr", {
        "instanceType": "g6e.12xlarge", "instancePlatform": "Linux/UNIX",
        "availabilityZone": "us-east-1a", "instanceCount": 2})
    t = _native_lt("l40s-lt", "g6e.12xlarge", instanceMarketOptions={"marketType": "spot"})
    g = _native_asg("l40s", t, 2, availabilityZones=["us-east-1a"])
    assert estimate(pack, [cr, t, g], AWS) > 2 * G6E12 * MONTH + 2


def test_budget_on_the_account_of_the_assumed_role_caps_the_stack(pack):
    """The LinkedAccount 210987654321 budget of 50,000; the provider assumes
    arn:aws:iam::210987654321:role/deploy, so the stack deploys to that account. The group is
    2 x 21.9576 x 730 = 32,058.10 < 50,000. Expect: spend-limit pass."""
    s, t, g = _p4d_pair()
    provider = {"region": "us-east-1",
                "assumeRole": {"roleArn": "arn:aws:iam::210987654321:role/deploy"}}
    found = run(pack, [s, t, g, _linked_budget()], provider=provider)
    assert verdict(found, SPEND) == "pass", messages(found, SPEND)


def test_budget_on_one_of_two_allowed_accounts_is_undecided(pack):
    """The LinkedAccount 210987654321 budget; the provider may deploy to 123456789012 or
    210987654321 (allowedAccountIds): which one the credentials pick is not in the program.
    Expect: spend-limit undecided."""
    s, t, g = _p4d_pair()
    provider = {"region": "us-east-1", "allowedAccountIds": ["123456789012", "210987654321"]}
    found = run(pack, [s, t, g, _linked_budget()], provider=provider)
    assert verdict(found, SPEND) == "undecided", messages(found, SPEND)


def test_budget_whose_only_account_is_forbidden_is_no_alarm(pack):
    """The LinkedAccount 210987654321 budget; the provider names no allowed account but forbids
    210987654321 (forbiddenAccountIds): the stack never deploys there.
    Expect: spend-limit fail, "no budget alarm on aws"."""
    s, t, g = _p4d_pair()
    provider = {"region": "us-east-1", "forbiddenAccountIds": ["210987654321"]}
    found = run(pack, [s, t, g, _linked_budget()], provider=provider)
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)
    assert "no budget alarm on aws" in messages(found, SPEND)
