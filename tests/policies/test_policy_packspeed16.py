"""packspeed16: no-public-ingress's walk for a subnet unknown at preview, where the id sits inside
an object (an interface, an override) rather than in a top-level input.

docs/policies.md no-public-ingress: "A group whose subnets are unknown at preview with no subnet
of the stack behind them ... is 'cannot decide'": that subnet's mapPublicIpOnLaunch may be true.
fix50 covers a subnet unknown in a top-level input (vpcZoneIdentifiers, subnetId, subnetIds);
these place the node through CloudFormation AWS::EC2::Instance NetworkInterfaces[].SubnetId
(aws-native networkInterfaces[].subnetId), the one placement the pack reads inside a list of
objects. Spend: g5.xlarge us-east-1 1.006 USD/h x 730 h = 734.38 < 2,000: pass.
"""
from __future__ import annotations

from tests.policies.test_policy_fix50 import MANDATORY_NPI, UNKNOWN, check
from tests.policies.test_policy_review49 import AWS, NPI, TAGS, aws_budget, res


def _native_box(interface):
    return res("aws-native:ec2:Instance", "box", {
        "instanceType": "g5.xlarge", "imageId": "ami-0abc", "networkInterfaces": [interface],
        "tags": [{"key": k, "value": v} for k, v in TAGS.items()]})


def test_native_instance_interface_on_an_unknown_subnet(pack):
    """The instance's one interface names a subnet unknown at preview and says nothing of
    public IPs: undecided (mandatory setting), naming networkInterfaces."""
    box = _native_box({"deviceIndex": "0", "subnetId": UNKNOWN})
    check(pack, [box, aws_budget(amount="2000.00")], AWS, {NPI: "undecided"},
          config=MANDATORY_NPI, contains={NPI: ["networkInterfaces"]})


def test_native_instance_interface_on_a_literal_subnet(pack):
    """Control: the same interface on a literal subnet id (no value unknown at preview): no
    subnet hides here, every policy passes."""
    box = _native_box({"deviceIndex": "0", "subnetId": "subnet-0abc"})
    check(pack, [box, aws_budget(amount="2000.00")], AWS, {}, config=MANDATORY_NPI)
