"""Issue 35 (lead), review67 DEFECT 2: launch template overrides that name every instance type
replace the template's own type: "Any instance types that you specify override the instance type
in the launch template" (docs.aws.amazon.com/autoscaling/ec2/APIReference/
API_LaunchTemplateOverrides.html; EC2 Fleet's overrides alike). The template's type was priced
beside them, at the dearest of all, and a CPU override over a GPU template made a GPU group.

Figures by hand from components/catalog/prices.csv (us-east-1, on demand): g5.xlarge 1.006 USD/h,
g5.2xlarge 1.212 USD/h; a month is 730 h. Driven over gRPC (tests/policy_harness.py)."""
from __future__ import annotations

from typing import Any

from tests.policies.test_policy_fix62 import subnet, template
from tests.policies.test_policy_review35f import estimate, near
from tests.policy_fixtures import res

AWS = {"region": "us-east-1"}


def asg(lt: Any, s: Any, overrides: list) -> Any:
    return res("aws:autoscaling/group:Group", "gpu-asg", {
        "maxSize": 2.0, "minSize": 0.0, "vpcZoneIdentifiers": ["subnet-x"],
        "mixedInstancesPolicy": {"launchTemplate": {
            "launchTemplateSpecification": {"launchTemplateId": "lt-x", "version": "$Latest"},
            "overrides": overrides}}},
        deps={"mixedInstancesPolicy": [lt], "vpcZoneIdentifiers": [s]})


def test_an_override_replaces_the_templates_dearer_type(pack):
    """Template g5.2xlarge, one override g5.xlarge, maxSize 2: two g5.xlarge, 2 x 1.006 x 730 =
    1,468.76 USD a month (the template's type beside it priced 1,769.52)."""
    s = subnet("a", "us-east-1a")
    lt = template("gpu-lt", instanceType="g5.2xlarge")
    stack = [s, lt, asg(lt, s, [{"instanceType": "g5.xlarge"}])]
    assert near(estimate(pack, stack, AWS), 1468.76), estimate(pack, stack, AWS)


def test_an_override_with_its_own_template_keeps_every_type(pack):
    """Control: an override naming its own launch template (launchTemplateSpecification) does
    not say which types the others launch: the dearest of all is kept, 2 x 1.212 x 730 =
    1,769.52 (never fewer types than may launch)."""
    s = subnet("a", "us-east-1a")
    lt = template("gpu-lt", instanceType="g5.2xlarge")
    stack = [s, lt, asg(lt, s, [{"instanceType": "g5.xlarge"},
                                {"launchTemplateSpecification": {"launchTemplateId": "lt-x"}}])]
    assert near(estimate(pack, stack, AWS), 1769.52), estimate(pack, stack, AWS)


def test_an_ec2_fleet_override_replaces_the_templates_type(pack):
    """An instant EC2 Fleet of target 2 from a g5.2xlarge template with one g5.xlarge override:
    2 x 1.006 x 730 = 1,468.76."""
    s = subnet("a", "us-east-1a")
    lt = template("gpu-lt", instanceType="g5.2xlarge")
    fleet = res("aws:ec2/fleet:Fleet", "gpu-fleet", {
        "type": "instant", "targetCapacitySpecification": {
            "totalTargetCapacity": 2.0, "defaultTargetCapacityType": "on-demand",
            "onDemandTargetCapacity": 2.0},
        "launchTemplateConfigs": [{"launchTemplateSpecification": {"launchTemplateId": "lt-x",
                                                                   "version": "$Latest"},
                                   "overrides": [{"instanceType": "g5.xlarge",
                                                  "subnetId": "subnet-x"}]}]},
        deps={"launchTemplateConfigs": [lt, s]})
    assert near(estimate(pack, [s, lt, fleet], AWS), 1468.76), estimate(pack, [s, lt, fleet], AWS)
