"""Issue 35, stops on an aws-native Auto Scaling group (lead; fix38 noticed the gap: an
aws-native ScheduledAction was read as a stop only on the classic group). Over gRPC, as
`pulumi preview --policy-pack` drives the pack (tests/policy_harness.py).

Expected figures, worked by hand: p4d.24xlarge us-east-1 on demand 21.9576 USD/h
(policies/catalog_data/prices.csv), 2 nodes. A stop in 30 h: 2 x 21.9576 x 30 = 1,317.46;
the month: 2 x 21.9576 x 730 = 32,058.10.

CloudFormation's AWS::AutoScaling::ScheduledAction sends only the sizes it is given; the group
keeps the others (its MinSize here is "0"). An aws-native ScalingPolicy on the group sets the
desired capacity anywhere up to the maximum when its alarm fires, so beside one only a maximum
of 0 holds the group at 0 (as for the classic group and policy)."""
from __future__ import annotations

from tests.policies.test_policy_review35f import AWS, estimate, near, subnet
from tests.policies.test_policy_review36 import _native_asg, _native_lt
from tests.policy_fixtures import hours_from_now, res

P4D = 21.9576


def _group(**p):
    s = subnet("train-a", "us-east-1a")
    t = _native_lt("train-lt", "p4d.24xlarge")
    g = _native_asg("train", t, 2, autoScalingGroupName="train-grp",
                    vpcZoneIdentifier=["subnet-id"], **p)
    g.deps["vpcZoneIdentifier"] = [s]
    return s, t, g


def _action(g, name="stop", hours=30.0, by_name=False, **sizes):
    return res("aws-native:autoscaling:ScheduledAction", f"train-{name}", {
        "autoScalingGroupName": "train-grp", "startTime": hours_from_now(hours), **sizes},
        deps={} if by_name else {"autoScalingGroupName": [g]})


def test_a_native_action_that_sets_the_native_group_to_zero_is_its_lifetime(pack):
    """min, max and desired 0 in 30 h, depending on the group. Expect: 1,317.46."""
    s, t, g = _group()
    stop = _action(g, minSize="0", maxSize="0", desiredCapacity="0")
    assert near(estimate(pack, [s, t, g, stop], AWS), 2 * P4D * 30, slack=3)


def test_a_native_action_naming_the_group_by_its_own_name_stops_it_too(pack):
    """The same action naming the group by its autoScalingGroupName literal ("train-grp", the
    group's own name input), no dependency. Expect: 1,317.46."""
    s, t, g = _group()
    stop = _action(g, by_name=True, maxSize="0", desiredCapacity="0")
    assert near(estimate(pack, [s, t, g, stop], AWS), 2 * P4D * 30, slack=3)


def test_desired_zero_beside_a_native_scaling_policy_is_a_pause(pack):
    """desired 0 only (the group keeps min "0" and max "2") and an aws-native ScalingPolicy
    on the group: the policy may raise it again. Expect: the month, 32,058.10."""
    s, t, g = _group()
    stop = _action(g, desiredCapacity="0")
    policy = res("aws-native:autoscaling:ScalingPolicy", "train-scale", {
        "autoScalingGroupName": "train-grp", "policyType": "TargetTrackingScaling",
        "targetTrackingConfiguration": {"targetValue": 50.0, "predefinedMetricSpecification": {
            "predefinedMetricType": "ASGAverageCPUUtilization"}}},
        deps={"autoScalingGroupName": [g]})
    assert near(estimate(pack, [s, t, g, stop, policy], AWS), 2 * P4D * 730, slack=3)


def test_a_native_stop_then_a_native_start_is_a_pause(pack):
    """A stop (max 0, desired 0) in 30 h and a start (max 2, desired 2) in 40 h: the group
    runs again after it. Expect: the month, 32,058.10."""
    s, t, g = _group()
    stop = _action(g, maxSize="0", desiredCapacity="0")
    start = _action(g, name="start", hours=40.0, maxSize="2", desiredCapacity="2")
    assert near(estimate(pack, [s, t, g, stop, start], AWS), 2 * P4D * 730, slack=3)


def test_a_native_action_whose_minimum_stays_above_zero_stops_nothing(pack):
    """The group's own minSize is "2" and the action sets only max and desired 0: AWS refuses
    a maximum below the minimum. Expect: the month, 32,058.10."""
    s, t, g = _group(minSize="2")
    stop = _action(g, maxSize="0", desiredCapacity="0")
    assert near(estimate(pack, [s, t, g, stop], AWS), 2 * P4D * 730, slack=3)
