"""Issue 35 (lead): an FSx filesystem placed on an aws-native `ec2:Subnet` of the stack (fix56
noticed: the filesystem's zone was read only through a classic subnet, as an ASG's once was).
A subnet's zone is its `availabilityZone` in either provider (CloudFormation AWS::EC2::Subnet
AvailabilityZone; pulumi-aws ec2.Subnet availability_zone). The review56 AWS cluster's GPU
nodes are in us-east-1a. docs/policies.md storage-same-zone: a filesystem in another zone than
the GPU nodes that mount it is a violation. Expectations written before any fix; over gRPC."""
from __future__ import annotations

import pytest

from tests.policies.test_policy_fix56 import _expect, _ssz
from tests.policies.test_policy_review56 import SSZ, TAGS, aws, named
from tests.policy_fixtures import res
from trainstack_policies.model import UNKNOWN


def _native_subnet(zone: str):
    return res("aws-native:ec2:Subnet", "native-sub", {
        "availabilityZone": zone, "vpcId": "vpc-1", "cidrBlock": "10.9.0.0/24",
        "tags": [{"key": k, "value": v} for k, v in TAGS.items()]})


@pytest.mark.parametrize("zone, want", [("us-east-1b", "fail"), ("us-east-1a", "pass")])
def test_lustre_on_an_aws_native_subnet_is_judged_by_its_zone(pack, zone, want):
    s = aws()
    sub = _native_subnet(zone)
    fs = named(s, "scratch")
    fs.props["subnetIds"] = [UNKNOWN]
    fs.deps["subnetIds"] = [sub]
    found = _expect(pack, "aws", s + [sub], {SSZ: want} if want != "pass" else {})
    if want == "fail":
        assert any("us-east-1b" in d.message for d in _ssz(found)), [d.message for d in _ssz(found)]


@pytest.mark.parametrize("zone, want", [("us-east-1b", "fail"), ("us-east-1a", "pass")])
def test_an_asg_on_an_aws_native_subnet_is_judged_by_its_zone(pack, zone, want):
    """The GPU group on an aws-native subnet in `zone`, the Lustre on the classic subnet in
    us-east-1a: us-east-1b is another zone than the filesystem's (fail); us-east-1a the same
    (pass)."""
    s = aws()
    sub = _native_subnet(zone)
    group = named(s, "train-nodes")
    group.props["vpcZoneIdentifiers"] = [UNKNOWN]
    group.deps["vpcZoneIdentifiers"] = [sub]
    found = _expect(pack, "aws", s + [sub], {SSZ: want} if want != "pass" else {})
    if want == "fail":   # for the zone read through the native subnet, not for want of one
        assert any("us-east-1b" in d.message for d in _ssz(found)), [d.message for d in _ssz(found)]
