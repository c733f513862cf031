"""Issue 35 (lead, from fix71's note): a mixed-instances group or fleet whose overrides name a
type AND choose others by attributes (an override with instanceRequirements asking for
accelerators and no instanceType). AWS picks any type matching the attributes for the latter
(API_InstanceRequirements), which no catalog row prices, so the group is GPU capacity spend-limit
cannot estimate (docs: "GPU nodes chosen by attributes (`instanceRequirements` with
accelerators)" are unpriceable GPU capacity), whatever the typed overrides cost. Before: priced
at the typed override alone (a pass at 4 x g4dn.xlarge), the attribute-chosen nodes never named.
Expectations follow review71's own cases for the same shapes: c04 (typed g5/g4dn, max 4: 15,078.52
< 20,000, every policy passes), c07 (classic ASG by attributes: spend-limit fails, rdma asks),
c09 (EC2 Fleet by attributes: spend-limit fails), d14 (aws-native ASG by attributes: both)."""
from __future__ import annotations

import pytest

from tests.policies.test_policy_review71 import (
    RDMA, SPEND, TAGS, _add, _aws_group, _fleet, _lt, _reqs, _run_case, named, res,
)

TYPED = {"instanceType": "g4dn.xlarge"}


def _native_mixed(overrides: list, max_size: str = "4"):
    def build(s):
        return res("aws-native:autoscaling:AutoScalingGroup", "nasg", {
            "minSize": "0", "maxSize": max_size, "vpcZoneIdentifier": ["subnet-x"],
            "mixedInstancesPolicy": {"launchTemplate": {
                "launchTemplateSpecification": {"launchTemplateId": "lt-x", "version": "1"},
                "overrides": overrides}},
            "tags": [{"key": k, "value": v, "propagateAtLaunch": True} for k, v in TAGS.items()]},
            deps={"vpcZoneIdentifier": [named(s, "train-a")],
                  "mixedInstancesPolicy": [named(s, "extra-lt")]})
    return _add(_lt("extra-lt", None), build)


CASES = [
    ("t01", "aws", {}, _aws_group(None, 4.0, mixed=[TYPED] + _reqs(acceleratorTypes=["gpu"])),
     {SPEND: "fail", RDMA: "advisory"}, None,
     "classic ASG: g4dn.xlarge beside an override by attributes [gpu]: unpriceable (c07)"),
    ("t02", "aws", {}, _aws_group("g4dn.xlarge", 4.0,
                                  mixed=[TYPED] + _reqs(acceleratorCount={"min": 1.0})),
     {SPEND: "fail", RDMA: "advisory"}, None,
     "the same over a g4dn template, attributes by count: unpriceable"),
    ("t03", "aws", {}, _aws_group(None, 4.0, mixed=[TYPED] + _reqs(acceleratorCount={"max": 0.0})),
     {}, None, "CPU twin: the attribute override excludes accelerators (max 0): priced at g4dn, "
     "cheaper than c04's g5: under 15,078.52 < 20,000"),
    ("t04", "aws", {}, _aws_group(None, 4.0, mixed=[TYPED]), {}, None,
     "control: the typed override alone (c04's cheaper half)"),
    ("t05", "aws", {}, _fleet([dict(TYPED, subnetId="subnet-x")] + _reqs(acceleratorNames=["a10g"]),
                              4.0), {SPEND: "fail"}, None,
     "EC2 Fleet: g4dn.xlarge beside an override by attributes [a10g]: unpriceable (c09)"),
    ("t06", "aws", {}, _native_mixed([TYPED, {"instanceRequirements": {
        "vCpuCount": {"min": 4}, "memoryMiB": {"min": 16384}, "acceleratorTypes": ["gpu"]}}]),
     {SPEND: "fail", RDMA: "advisory"}, None,
     "aws-native ASG: g4dn.xlarge beside an override by attributes [gpu]: unpriceable (d14)"),
    ("t07", "aws", {}, _native_mixed([TYPED, {"instanceRequirements": {
        "vCpuCount": {"min": 4}, "memoryMiB": {"min": 16384}, "acceleratorCount": {"max": 0}}}]),
     {}, None, "aws-native CPU twin: the attribute override excludes accelerators"),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_typed_and_attribute_overrides(pack, case):
    _run_case(pack, case)
