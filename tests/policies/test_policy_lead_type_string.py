"""Issue 35 (lead): a node pool's `instanceTypes` written as one string instead of a list (an
ACK node pool, an EKS node group, an ESS scaling configuration) was read as no type, so a GPU pool was not GPU capacity at
all (fix54 noticed): a blind spot, where the docs read a list input written as one object as a
list of that one (spend-limit Sizes), and a GPU pool is priced at its maximum. Read as a list of
that one type, it is priced: ACK 3 x ecs.gn7i-c8g1.2xlarge x 2.56083 x 730 = 5,608.22; EKS
2 x g5.xlarge x 1.006 x 730 = 1,468.76 (components/catalog/prices.csv). Expectations written
before the fix; over gRPC as `pulumi preview` drives the pack."""
from __future__ import annotations

from tests.policies.test_policy_review52 import ALI, AWS, TAGS, _ack, _ess_with_tasks, estimate, subnet
from tests.policy_fixtures import res


def test_an_ack_pool_whose_types_are_one_string_is_priced(pack):
    stack = _ack()
    stack[1].props["instanceTypes"] = "ecs.gn7i-c8g1.2xlarge"
    assert abs(estimate(pack, stack, ALI) - 3 * 2.56083 * 730) <= 1.5


def test_an_eks_group_whose_types_are_one_string_is_priced(pack):
    sn = subnet()
    ng = res("aws:eks/nodeGroup:NodeGroup", "eks-gpu", {
        "clusterName": "ml-eks", "nodeRoleArn": "arn:aws:iam::123456789012:role/eks-node",
        "subnetIds": [f"{sn.name}-id"], "instanceTypes": "g5.xlarge",
        "scalingConfig": {"minSize": 0.0, "maxSize": 2.0, "desiredSize": 0.0},
        "tags": dict(TAGS)}, deps={"subnetIds": [sn]})
    assert abs(estimate(pack, [sn, ng], AWS) - 2 * 1.006 * 730) <= 1.5


def test_an_ess_configuration_whose_types_are_one_string_is_priced(pack):
    """An ESS group of max 2 whose scaling configuration names its type only in
    `instanceTypes`, written as one string: 2 x 2.56083 x 730 = 3,738.81."""
    stack = _ess_with_tasks([])
    conf = stack[2]
    del conf.props["instanceType"]
    conf.props["instanceTypes"] = "ecs.gn7i-c8g1.2xlarge"
    assert abs(estimate(pack, stack, ALI) - 2 * 2.56083 * 730) <= 1.5
