"""Issue 35 (lead): an Auto Scaling group's `mixedInstancesPolicy.launchTemplate.overrides`
written as ONE object (not a list) was dropped (fix54 noticed), while the docs (spend-limit
Sizes) say a list input given as one object is read as a list of that one. Dropped, its type
went unpriced (a dearer override priced as the template's cheaper type) and its weight unread
(weighted units priced as instances). Prices: g5.xlarge 1.006, g5.12xlarge 5.672 USD/h in
us-east-1 (components/catalog/prices.csv); a month is 730 h. Expectations written before the
fix; over gRPC as `pulumi preview` drives the pack."""
from __future__ import annotations

from tests.policies.test_policy_review53 import AWS, RDMA, SPEND, T, UNK, budget, expect, g5_pair
from tests.policy_fixtures import res

_CAP = {SPEND: {"maxMonthlyUsd": 5000}}   # the budget (4,000) under it, as the docs ask


def _mixed(g, tpl, sn, overrides):
    del g.props["launchTemplate"]
    g.props["mixedInstancesPolicy"] = {"launchTemplate": {
        "launchTemplateSpecification": {"launchTemplateId": UNK, "version": "$Latest"},
        "overrides": overrides}}
    g.deps = {"mixedInstancesPolicy": [tpl], "vpcZoneIdentifiers": [sn]}
    return g


def test_a_dearer_override_written_as_one_object_is_priced(pack):
    """maxSize 2, template g5.xlarge, the one override g5.12xlarge: priced at the dearest type,
    2 x 5.672 x 730 = 8,281.12 > 5,000: fail (the template alone would be 1,468.76: pass).
    Two g5.12xlarge (an EFA type in the catalog) with no EFA interface: rdma advisory."""
    sn, tpl, g = g5_pair(max_size=2)
    for overrides in ([{"instanceType": "g5.12xlarge"}], {"instanceType": "g5.12xlarge"}):
        stack = [sn, tpl, _mixed(g, tpl, sn, overrides) if "launchTemplate" in g.props else g,
                 budget("4000")]
        g.props["mixedInstancesPolicy"]["launchTemplate"]["overrides"] = overrides
        found = expect(pack, stack, AWS, {SPEND: "fail", RDMA: "advisory"}, _CAP)
        assert any("8,281 USD/month" in d.message for d in found if d.policy == SPEND), overrides


def test_a_weight_written_as_one_object_is_read(pack):
    """maxSize 8 units, the one override g5.xlarge at weight 4: (8 + 4) / 4 = 3 instances,
    3 x 1.006 x 730 = 2,203.14 < 5,000: pass (unweighted, 8 instances would be 5,875.04: fail)."""
    sn, tpl, g = g5_pair(max_size=8)
    _mixed(g, tpl, sn, {"instanceType": "g5.xlarge", "weightedCapacity": "4"})
    expect(pack, [sn, tpl, g, budget("4000")], AWS, {}, _CAP)


def test_an_aws_native_group_reads_one_object_overrides_too(pack):
    """The aws-native group (maxSize "2", vpcZoneIdentifier) with the one override g5.12xlarge:
    8,281.12 > 5,000: fail; rdma advisory as above."""
    sn, tpl, _ = g5_pair(max_size=2)
    g = res("aws-native:autoscaling:AutoScalingGroup", "native-trainers", {
        "minSize": "0", "maxSize": "2", "desiredCapacity": "0", "vpcZoneIdentifier": [UNK],
        "mixedInstancesPolicy": {"launchTemplate": {
            "launchTemplateSpecification": {"launchTemplateId": UNK, "version": "$Latest"},
            "overrides": {"instanceType": "g5.12xlarge"}}},
        "tags": [{"key": k, "value": v, "propagateAtLaunch": True} for k, v in T.items()]},
        deps={"mixedInstancesPolicy": [tpl], "vpcZoneIdentifier": [sn]})
    found = expect(pack, [sn, tpl, g, budget("4000")], AWS, {SPEND: "fail", RDMA: "advisory"}, _CAP)
    assert any("8,281 USD/month" in d.message for d in found if d.policy == SPEND)
