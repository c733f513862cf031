"""Issue 35, fix42: the three pack defects review42 left as strict xfails, and their siblings,
driven over gRPC as `pulumi preview --policy-pack` drives the pack. Expected verdicts are written
from the providers' public documentation (cited per test), before the fix.

A. no-public-ingress: a network interface that says associatePublicIpAddress true gives the
   instance a public IPv4 address (EC2 API InstanceNetworkInterfaceSpecification
   .AssociatePublicIpAddress: "Indicates whether to assign a public IPv4 address to an
   instance"; CloudFormation AWS::EC2::Instance NetworkInterface passes it through, and has no
   top-level switch). The same holds for the classic shapes: aws:ec2/instance's own
   associatePublicIpAddress (its networkInterfaces only attach existing interfaces, pulumi-aws
   InstanceNetworkInterface has no such flag), a launch template's interfaces (aws and
   aws-native), and a launch configuration (aws; aws-native: CloudFormation
   AWS::AutoScaling::LaunchConfiguration AssociatePublicIpAddress).
"""
from __future__ import annotations

import pytest

from tests.policies.test_policy_review35f import (
    AWS, NPI, TAGS, aws_budget, ec2, lt, messages, subnet, verdict,
)
from tests.policy_fixtures import res
from tests.policy_harness import run
from trainstack_policies.model import UNKNOWN

NATIVE_TAGS = [{"key": k, "value": v} for k, v in TAGS.items()]


# ======================================================= A. public IPs asked for by the node

def _native_instance(name, nics, on_subnet):
    return res("aws-native:ec2:Instance", name, {
        "instanceType": "g6.xlarge", "imageId": "ami-0a1b2c3d4e5f60718",
        "networkInterfaces": nics, "tags": NATIVE_TAGS}, deps={"networkInterfaces": [on_subnet]})


@pytest.mark.parametrize("nics, expected", [
    ([{"deviceIndex": "0", "associatePublicIpAddress": True, "subnetId": "subnet-id"}], "fail"),
    # A list input given as one object is a list of that one (as the pack reads templates).
    ({"deviceIndex": "0", "associatePublicIpAddress": True, "subnetId": "subnet-id"}, "fail"),
    # The second interface asks for it: the pack does not rely on AWS refusing it.
    ([{"deviceIndex": "0", "associatePublicIpAddress": False, "subnetId": "subnet-id"},
      {"deviceIndex": "1", "associatePublicIpAddress": "true", "subnetId": "subnet-id"}], "fail"),
    ([{"deviceIndex": "0", "associatePublicIpAddress": False, "subnetId": "subnet-id"}], "pass"),
    # Not set: the private stack subnet (mapPublicIpOnLaunch false) decides: no public IP.
    ([{"deviceIndex": "0", "subnetId": "subnet-id"}], "pass"),
    ([{"deviceIndex": "0", "associatePublicIpAddress": UNKNOWN, "subnetId": "subnet-id"}],
     "undecided"),
], ids=["list-true", "one-object-true", "eth1-true", "false", "unset", "unknown"])
def test_a1_native_instance_interface_public_ip(pack, nics, expected):
    s = subnet("a1-sn", "us-east-1a")
    found = run(pack, [s, _native_instance("a1", nics, s), aws_budget()], provider=AWS)
    assert verdict(found, NPI) == expected, messages(found, NPI)
    if expected == "fail":
        assert "a1 (aws-native:ec2:Instance)" in messages(found, NPI)


@pytest.mark.parametrize("public, expected", [(True, "fail"), (False, "pass")])
def test_a2_native_launch_configuration_public_ip(pack, public, expected):
    """An aws-native LaunchConfiguration with AssociatePublicIpAddress true: every instance of
    its group gets a public IPv4 address, as with the classic aws:ec2/launchConfiguration."""
    s = subnet("a2-sn", "us-east-1a")
    lc = res("aws-native:autoscaling:LaunchConfiguration", "a2-lc", {
        "instanceType": "g6.xlarge", "imageId": "ami-0a1b2c3d4e5f60718",
        "associatePublicIpAddress": public})
    g = res("aws-native:autoscaling:AutoScalingGroup", "a2", {
        "minSize": "0", "maxSize": "1", "desiredCapacity": "1",
        "launchConfigurationName": "a2-lc-name", "vpcZoneIdentifier": ["subnet-id"],
        "tags": [{"key": k, "value": v, "propagateAtLaunch": True} for k, v in TAGS.items()]},
        deps={"launchConfigurationName": [lc], "vpcZoneIdentifier": [s]})
    found = run(pack, [s, lc, g, aws_budget()], provider=AWS)
    assert verdict(found, NPI) == expected, messages(found, NPI)
    if expected == "fail":
        assert "a2-lc (aws-native:autoscaling:LaunchConfiguration)" in messages(found, NPI)


@pytest.mark.parametrize("shape", ["classic-instance", "classic-template", "native-template",
                                   "classic-template-one-object", "classic-launch-config"])
def test_a3_classic_and_template_siblings_with_a_public_interface(pack, shape):
    """The siblings of a1 say the same thing the same way: each is public (fail)."""
    s = subnet("a3-sn", "us-east-1a")
    nic = {"deviceIndex": 0.0, "associatePublicIpAddress": "true", "subnetId": "subnet-id"}
    if shape == "classic-instance":
        node = ec2("a3", "g6.xlarge", s, associatePublicIpAddress=True)
    elif shape == "classic-template":
        node = lt("a3", "g6.xlarge", networkInterfaces=[nic])
        node.deps["networkInterfaces"] = [s]
    elif shape == "classic-template-one-object":
        node = lt("a3", "g6.xlarge", networkInterfaces=nic)
        node.deps["networkInterfaces"] = [s]
    elif shape == "native-template":
        node = res("aws-native:ec2:LaunchTemplate", "a3", {"launchTemplateData": {
            "instanceType": "g6.xlarge", "imageId": "ami-0a1b2c3d4e5f60718",
            "networkInterfaces": [dict(nic, associatePublicIpAddress=True)]}},
            deps={"launchTemplateData": [s]})
    else:
        node = res("aws:ec2/launchConfiguration:LaunchConfiguration", "a3", {
            "imageId": "ami-0a1b2c3d4e5f60718", "instanceType": "g6.xlarge",
            "associatePublicIpAddress": True})
    found = run(pack, [s, node, aws_budget()], provider=AWS)
    assert verdict(found, NPI) == "fail", messages(found, NPI)
    assert "a3 (" in messages(found, NPI)
