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
B. storage-same-zone: an AWS instance's zone is its subnet's (VPC User Guide: a subnet is in one
   zone). An instance (aws or aws-native) or Spot Instance request launched from a launch
   template whose network interfaces name a subnet launches there, unless the request names its
   own subnetId or network interfaces: "Any additional parameters that you specify for the new
   instance overwrite the corresponding parameters included in the launch template" (EC2 API
   RunInstances, LaunchTemplate). An EC2 Fleet / Spot Fleet launches into its template's subnet
   where no override names a subnet or zone (FleetLaunchTemplateOverrides SubnetId /
   AvailabilityZone override the template). An aws-native instance reads its zone the same way
   (CloudFormation AWS::EC2::Instance SubnetId, NetworkInterfaces[].SubnetId).
C. spend-limit: "no budget alarm on <cloud>" is about that cloud's GPU compute: it is reported
   on (and so names) a GPU group of that cloud, whatever cloud the stack's first group is on.
   An Alibaba autoReleaseTime already past is refused with an expected value that states no
   date (any date written into the pack is past some day).
"""
from __future__ import annotations

import pytest

import re

from tests.policies.test_policy_review35f import (
    AWS, AZ, GCP, NPI, SPEND, SSZ, TAGS, asg, aws_budget, ec2, ecs, fsx, gcp_budget,
    gvm, lt, messages, subnet, verdict, vmss,
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


# ======================================================= B. the zone read through the template

def _template(name, on_subnet, mounts, as_list=True, **p):
    nic = {"deviceIndex": 0.0, "subnetId": "subnet-id", "associatePublicIpAddress": "false"}
    t = lt(name, "g6e.xlarge", mounts=mounts, networkInterfaces=[nic] if as_list else nic, **p)
    t.deps["networkInterfaces"] = [on_subnet]
    return t


def _from(kind, name, template, **p):
    deps = {"launchTemplate": [template]}
    for key, value in p.pop("deps", {}).items():
        deps[key] = value
    return res(kind, name, {"launchTemplate": {"id": "lt-id", "version": "$Latest"},
                            "tags": TAGS, **p}, deps=deps)


@pytest.mark.parametrize("kind", ["aws:ec2/instance:Instance",
                                  "aws:ec2/spotInstanceRequest:SpotInstanceRequest"])
@pytest.mark.parametrize("fs_zone, expected", [("us-east-1b", "pass"), ("us-east-1a", "fail")])
def test_b1_instance_zone_from_its_template_interface(pack, kind, fs_zone, expected):
    """The template's interface names the us-east-1b stack subnet; the FSx it mounts is in
    fs_zone. Same zone: pass; us-east-1a: fail, naming the FSx."""
    sa, sb = subnet("b1-a", "us-east-1a"), subnet("b1-b", "us-east-1b")
    fs = fsx("b1-fs", sa if fs_zone == "us-east-1a" else sb)
    t = _template("b1-lt", sb, [fs])
    found = run(pack, [sa, sb, fs, t, _from(kind, "b1", t), aws_budget()], provider=AWS)
    assert verdict(found, SSZ) == expected, messages(found, SSZ)
    if expected == "fail":
        assert "b1-fs" in messages(found, SSZ) and "us-east-1b" in messages(found, SSZ)


def test_b2_instance_own_subnet_wins_over_the_template(pack):
    """The instance names its own us-east-1a stack subnet; its template's interface names
    us-east-1b; the FSx is in us-east-1a. RunInstances takes the instance's own: pass."""
    sa, sb = subnet("b2-a", "us-east-1a"), subnet("b2-b", "us-east-1b")
    fs = fsx("b2-fs", sa)
    t = _template("b2-lt", sb, [fs])
    i = _from("aws:ec2/instance:Instance", "b2", t, subnetId="subnet-a", deps={"subnetId": [sa]})
    found = run(pack, [sa, sb, fs, t, i, aws_budget()], provider=AWS)
    assert verdict(found, SSZ) == "pass", messages(found, SSZ)


def test_b3_instance_own_interface_wins_over_the_template(pack):
    """The instance attaches an existing interface of the stack (aws:ec2/networkInterface on
    the us-east-1a subnet) as device 0; its template's interface names us-east-1b. The FSx in
    us-east-1b is then in the other zone: fail."""
    sa, sb = subnet("b3-a", "us-east-1a"), subnet("b3-b", "us-east-1b")
    fs = fsx("b3-fs", sb)
    eni = res("aws:ec2/networkInterface:NetworkInterface", "b3-eni",
              {"subnetId": "subnet-a", "tags": TAGS}, deps={"subnetId": [sa]})
    t = _template("b3-lt", sb, [fs])
    i = _from("aws:ec2/instance:Instance", "b3", t,
              networkInterfaces=[{"deviceIndex": 0.0, "networkInterfaceId": "eni-id"}],
              deps={"networkInterfaces": [eni]})
    found = run(pack, [sa, sb, fs, eni, t, i, aws_budget()], provider=AWS)
    assert verdict(found, SSZ) == "fail", messages(found, SSZ)
    assert "b3-fs" in messages(found, SSZ)


def test_b4_instance_own_literal_subnet_is_not_the_templates(pack):
    """The instance names a subnet the stack does not create (a literal id); its template's
    interface names the FSx's own us-east-1b subnet. The instance's own subnet wins, and its
    zone is not in the program: not the template's zone (no pass); 'cannot decide'."""
    sb = subnet("b4-b", "us-east-1b")
    fs = fsx("b4-fs", sb)
    t = _template("b4-lt", sb, [fs])
    i = _from("aws:ec2/instance:Instance", "b4", t, subnetId="subnet-0feedface0000000a")
    found = run(pack, [sb, fs, t, i, aws_budget()], provider=AWS)
    assert verdict(found, SSZ) == "undecided", messages(found, SSZ)


def test_b5_template_placement_zone(pack):
    """A template without interfaces whose placement names us-east-1b; the FSx is in
    us-east-1a (RequestLaunchTemplateData.Placement.AvailabilityZone): fail."""
    sa = subnet("b5-a", "us-east-1a")
    fs = fsx("b5-fs", sa)
    t = lt("b5-lt", "g6e.xlarge", mounts=[fs], placement={"availabilityZone": "us-east-1b"})
    found = run(pack, [sa, fs, t, _from("aws:ec2/instance:Instance", "b5", t), aws_budget()],
                provider=AWS)
    assert verdict(found, SSZ) == "fail", messages(found, SSZ)
    assert "b5-fs" in messages(found, SSZ)


@pytest.mark.parametrize("key", ["subnetId", "networkInterfaces"])
@pytest.mark.parametrize("fs_zone, expected", [("us-east-1a", "pass"), ("us-east-1b", "fail")])
def test_b6_native_instance_zone_from_its_subnet(pack, key, fs_zone, expected):
    """An aws-native Instance on the us-east-1a stack subnet (SubnetId, or its interface's);
    it mounts the FSx (user data built from it) in fs_zone."""
    sa, sb = subnet("b6-a", "us-east-1a"), subnet("b6-b", "us-east-1b")
    fs = fsx("b6-fs", sa if fs_zone == "us-east-1a" else sb)
    value = "subnet-a" if key == "subnetId" else [{"deviceIndex": "0", "subnetId": "subnet-a"}]
    i = res("aws-native:ec2:Instance", "b6", {
        "instanceType": "g6e.xlarge", "imageId": "ami-0a1b2c3d4e5f60718", key: value,
        "userData": "IyEvYmluL2Jhc2g=", "tags": [{"key": k, "value": v} for k, v in TAGS.items()]},
        deps={key: [sa], "userData": [fs]})
    found = run(pack, [sa, sb, fs, i, aws_budget()], provider=AWS)
    assert verdict(found, SSZ) == expected, messages(found, SSZ)
    if expected == "fail":
        assert "b6-fs" in messages(found, SSZ)


def test_b7_native_instance_from_native_template(pack):
    """An aws-native Instance from an aws-native template whose interface names the us-east-1b
    subnet; the FSx it mounts is in us-east-1a: fail."""
    sa, sb = subnet("b7-a", "us-east-1a"), subnet("b7-b", "us-east-1b")
    fs = fsx("b7-fs", sa)
    t = res("aws-native:ec2:LaunchTemplate", "b7-lt", {"launchTemplateData": {
        "instanceType": "g6e.xlarge", "imageId": "ami-0a1b2c3d4e5f60718",
        "networkInterfaces": [{"deviceIndex": 0, "subnetId": "subnet-b"}]}},
        deps={"launchTemplateData": [sb]})
    i = res("aws-native:ec2:Instance", "b7", {
        "instanceType": "g6e.xlarge", "launchTemplate": {"launchTemplateId": "lt-id",
                                                         "version": "1"},
        "userData": "IyEvYmluL2Jhc2g=", "tags": [{"key": k, "value": v} for k, v in TAGS.items()]},
        deps={"launchTemplate": [t], "userData": [fs]})
    found = run(pack, [sa, sb, fs, t, i, aws_budget()], provider=AWS)
    assert verdict(found, SSZ) == "fail", messages(found, SSZ)
    assert "b7-fs" in messages(found, SSZ)


def _fleet(kind, name, template, overrides=None):
    conf = {"launchTemplateSpecification": {"launchTemplateId": "lt-id", "version": "$Latest"}}
    if overrides:
        conf["overrides"] = overrides
    if kind == "aws:ec2/fleet:Fleet":
        props = {"type": "instant", "targetCapacitySpecification": {
            "defaultTargetCapacityType": "on-demand", "totalTargetCapacity": 2.0}}
    else:
        props = {"iamFleetRole": "arn:aws:iam::123456789012:role/fleet", "targetCapacity": 2.0}
    return res(kind, name, {**props, "launchTemplateConfigs": [conf], "tags": TAGS},
               deps={"launchTemplateConfigs": [template]})


@pytest.mark.parametrize("kind", ["aws:ec2/fleet:Fleet",
                                  "aws:ec2/spotFleetRequest:SpotFleetRequest"])
@pytest.mark.parametrize("fs_zone, expected", [("us-east-1b", "pass"), ("us-east-1a", "fail")])
def test_b8_fleet_zone_from_its_template_interface(pack, kind, fs_zone, expected):
    """A fleet with no override naming a subnet or zone, from a template whose one interface
    object names the us-east-1b stack subnet; the FSx is in fs_zone."""
    sa, sb = subnet("b8-a", "us-east-1a"), subnet("b8-b", "us-east-1b")
    fs = fsx("b8-fs", sa if fs_zone == "us-east-1a" else sb)
    t = _template("b8-lt", sb, [fs], as_list=False)
    found = run(pack, [sa, sb, fs, t, _fleet(kind, "b8", t), aws_budget("100000")], provider=AWS)
    assert verdict(found, SSZ) == expected, messages(found, SSZ)
    if expected == "fail":
        assert "b8-fs" in messages(found, SSZ)


def test_b9_fleet_override_zone_wins_over_the_template(pack):
    """The override names availabilityZone us-east-1a, the template's interface us-east-1b;
    the FSx is in us-east-1a: the override wins, pass."""
    sa, sb = subnet("b9-a", "us-east-1a"), subnet("b9-b", "us-east-1b")
    fs = fsx("b9-fs", sa)
    t = _template("b9-lt", sb, [fs])
    fleet = _fleet("aws:ec2/fleet:Fleet", "b9", t, [{"availabilityZone": "us-east-1a",
                                                     "instanceType": "g6e.xlarge"}])
    found = run(pack, [sa, sb, fs, t, fleet, aws_budget("100000")], provider=AWS)
    assert verdict(found, SSZ) == "pass", messages(found, SSZ)


# ======================================================= C. spend-limit findings on their cloud

def _on(provider, *resources):
    for r in resources:
        r.provider = dict(provider)
    return list(resources)


def _alarm_findings(found, cloud):
    return [d for d in found if d.policy == SPEND
            and f"the stack has no budget alarm on {cloud}" in d.message]


@pytest.mark.parametrize("aws_budgeted", [True, False])
def test_c1_gcp_alarm_finding_on_the_gcp_vm(pack, aws_budgeted):
    """AWS group first in the stack, then a GCP g2-standard-8 VM with no GCP budget. The GCP
    finding is on the VM (its URN, its name in the message), never on the AWS group; with no
    AWS budget either, the AWS finding stays on the AWS group."""
    s = subnet("c1-sn", "us-east-1a")
    t = lt("c1-lt", "g6.xlarge")
    g = asg("c1", t, [s], 2)
    stack = _on(AWS, s, t, g, *([aws_budget("1000000")] if aws_budgeted else [])) + \
        _on(GCP, gvm("c1-gcp", "g2-standard-8"))
    found = run(pack, stack, provider=None)
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)
    ds = _alarm_findings(found, "gcp")
    assert [d.urn.rsplit("::", 1)[-1] for d in ds] == ["c1-gcp"], [(d.urn, d.message) for d in ds]
    assert "c1-gcp (gcp:compute/instance:Instance)" in ds[0].message
    aws = _alarm_findings(found, "aws")
    assert [d.urn.rsplit("::", 1)[-1] for d in aws] == ([] if aws_budgeted else ["c1"])


def test_c2_azure_alarm_finding_on_the_scale_set(pack):
    """A GCP VM (budgeted) first, then an Azure T4 scale set with no budget: the azure finding
    is on the scale set."""
    stack = _on(GCP, gvm("c2-gcp", "g2-standard-8"), gcp_budget("1000000")) + \
        _on(AZ, vmss("c2-ss", "Standard_NC4as_T4_v3", 2.0))
    found = run(pack, stack, provider=None)
    ds = _alarm_findings(found, "azure")
    assert [d.urn.rsplit("::", 1)[-1] for d in ds] == ["c2-ss"], messages(found, SPEND)
    assert not _alarm_findings(found, "gcp"), messages(found, SPEND)


def test_c3_past_release_time_example_states_no_date(pack):
    """An ECS gn7i instance whose autoReleaseTime is already past: fail, and what it expects
    is a time later than now, with no example date that can itself be past."""
    found = run(pack, [ecs("c3", release="2025-01-01T00:00:00Z")], provider={"region":
                                                                            "eu-central-1"})
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)
    past = [d.message for d in found if "already past" in d.message]
    assert len(past) == 1, messages(found, SPEND)
    expected = past[0].split("Expected: ", 1)[1].split(". Fix: ", 1)[0]
    assert "later than now" in expected and "yyyy-MM-ddTHH:mm:ssZ" in expected, expected
    assert not re.search(r"\d{4}-\d{2}-\d{2}", expected), expected


def test_c4_malformed_release_time_example_states_no_date(pack):
    """An autoReleaseTime "friday" is not a time: fail; the form it expects carries no date."""
    found = run(pack, [ecs("c4", release="friday")], provider={"region": "eu-central-1"})
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)
    bad = [d.message for d in found if "is not a time" in d.message]
    assert len(bad) == 1, messages(found, SPEND)
    expected = bad[0].split("Expected: ", 1)[1].split(". Fix: ", 1)[0]
    assert "yyyy-MM-ddTHH:mm:ssZ" in expected and not re.search(r"\d{4}-\d{2}-\d{2}",
                                                                 expected), expected


@pytest.mark.parametrize("where", ["template-interface", "instance-subnet"])
def test_b10_a_subnet_unknown_at_preview_is_cannot_decide_not_unreadable(pack, where):
    """The subnet the nodes launch in is an output the program does not create (a stack
    reference, a data source): unknown at preview, no stack subnet behind it. Its zone is read
    at apply, so the same-zone verdict is "cannot decide" (undecided), never the mandatory
    "the GPU nodes' zone cannot be read"."""
    sb = subnet("b10-b", "us-east-1b")
    fs = fsx("b10-fs", sb)
    if where == "template-interface":
        nic = {"deviceIndex": 0.0, "subnetId": UNKNOWN, "associatePublicIpAddress": "false"}
        t = lt("b10-lt", "g6e.xlarge", mounts=[fs], networkInterfaces=[nic])
        i = _from("aws:ec2/instance:Instance", "b10", t)
    else:
        t = lt("b10-lt", "g6e.xlarge", mounts=[fs])
        i = _from("aws:ec2/instance:Instance", "b10", t, subnetId=UNKNOWN)
    found = run(pack, [sb, fs, t, i, aws_budget()], provider=AWS)
    assert verdict(found, SSZ) == "undecided", messages(found, SSZ)
    assert "cannot be read" not in messages(found, SSZ)
