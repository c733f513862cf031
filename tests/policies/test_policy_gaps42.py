"""Issue 35, gaps42: the gaps fix42 left, driven over gRPC as `pulumi preview --policy-pack`
drives the pack. Expected verdicts are worked by hand from the providers' public documentation
(cited per test) and the catalog's prices (policies/catalog_data/prices.csv, us-east-1:
p4d.24xlarge 21.9576 USD/h on demand, 8.1915 USD/h spot; g5.xlarge 1.006 USD/h on demand),
written before the code. 730 hours a month.

1. aws-native:ec2:SpotFleet (CloudFormation AWS::EC2::SpotFleet, one property
   SpotFleetRequestConfigData: "Describes the configuration of a Spot Fleet request"; its
   TargetCapacity, OnDemandTargetCapacity, LaunchSpecifications (SpotFleetLaunchSpecification:
   InstanceType, SubnetId, Placement.AvailabilityZone, NetworkInterfaces[], TagSpecifications,
   WeightedCapacity, InstanceRequirements) and LaunchTemplateConfigs (LaunchTemplateSpecification,
   Overrides[]: InstanceType, SubnetId, AvailabilityZone, WeightedCapacity, InstanceRequirements);
   docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/aws-resource-ec2-spotfleet.html and
   its property pages) is the same request as the classic aws:ec2/spotFleetRequest (EC2 API
   RequestSpotFleet, SpotFleetRequestConfigData): it is judged as that one is.
   "To tag instances at launch, specify the tags in the launch template (valid only if you use
   LaunchTemplateConfigs) or in the SpotFleetTagSpecification (valid only if you use
   LaunchSpecifications)"; the request's own TagSpecifications tag the request
   (API_SpotFleetRequestConfigData.html, TagSpecifications).
2. An aws-native EC2 instance launched from a launch template that names the instance type
   runs that type unless the instance names its own: "Any additional parameters that you
   specify for the new instance overwrite the corresponding parameters included in the launch
   template" (EC2 API RunInstances, LaunchTemplate; CloudFormation AWS::EC2::Instance
   LaunchTemplate / InstanceType pass to RunInstances).
3. A launch template whose network interface names a subnet the stack does not create (a
   literal subnet-...): its zone is not in the program (a subnet is in one zone, VPC User
   Guide "Subnets for your VPC"), so storage-same-zone says "cannot decide" at its cannotDecide
   level and decides once the pack config's `zones` tells it, as for a literal subnetId on an
   instance (test_policy_literal_ids.py).
4. EC2 Fleet / Spot Fleet: an override that names no subnet or zone launches where its launch
   template puts it ("FleetLaunchTemplateOverrides ... SubnetId / AvailabilityZone": any
   property set overrides the template's, one left out does not); so a fleet whose overrides
   are mixed runs in the overrides' zones and in the template's.
"""
from __future__ import annotations

import pytest

from tests.policies.test_policy_review35f import (
    AWS, NPI, SPEND, SSZ, TAGS, aws_budget, estimate, fsx, lt, messages, near, subnet, verdict,
)
from tests.policy_fixtures import res
from tests.policy_harness import run
from trainstack_policies.model import UNKNOWN

RDMA, REQ_TAGS = "rdma-for-multinode", "required-tags"
NATIVE_TAGS = [{"key": k, "value": v} for k, v in TAGS.items()]
MONTH = 730
P4D_SPOT, P4D_OD, G5_OD = 8.1915, 21.9576, 1.006
AMI = "ami-0a1b2c3d4e5f60718"
ROLE = "arn:aws:iam::123456789012:role/fleet"
LITERAL = "subnet-0abc1234def567890"


# ============================================================ 1. aws-native:ec2:SpotFleet

def native_fleet(name, config, deps=()):
    return res("aws-native:ec2:SpotFleet", name, {"spotFleetRequestConfigData": {
        "iamFleetRole": ROLE, **config}}, deps={"spotFleetRequestConfigData": list(deps)})


def classic_fleet(name, config, deps=()):
    keys = [k for k in ("launchSpecifications", "launchTemplateConfigs") if k in config]
    return res("aws:ec2/spotFleetRequest:SpotFleetRequest", name, {
        "iamFleetRole": ROLE, "tags": TAGS, **config},
        deps={k: list(deps) for k in keys})


def _spec(on_subnet=True, **p):
    return {"instanceType": "p4d.24xlarge", "imageId": AMI,
            **({"subnetId": "subnet-id"} if on_subnet else {}), **p}


def test_1a_native_spot_fleet_priced_at_spot_from_its_launch_specifications(pack):
    """targetCapacity 2 of p4d.24xlarge, spot: 2 x 8.1915 x 730 = 11,959.59."""
    s = subnet("1a-sn", "us-east-1a")
    f = native_fleet("1a", {"targetCapacity": 2, "launchSpecifications": [_spec()]}, [s])
    assert near(estimate(pack, [s, f], AWS), 2 * P4D_SPOT * MONTH)


def test_1b_native_spot_fleet_weights_and_on_demand_part(pack):
    """launchTemplateConfigs with an override of weight 4 and targetCapacity 8 (2 instances),
    onDemandTargetCapacity 4 (1 instance): 1 x 21.9576 + 1 x 8.1915 per hour x 730
    = 22,008.84 (Spot Fleet: "the difference as Spot capacity", RequestSpotFleet)."""
    s = subnet("1b-sn", "us-east-1a")
    t = lt("1b-lt", "p4d.24xlarge")
    f = native_fleet("1b", {"targetCapacity": 8, "onDemandTargetCapacity": 4,
                            "launchTemplateConfigs": [{
                                "launchTemplateSpecification": {"launchTemplateId": "lt-id",
                                                                "version": "1"},
                                "overrides": [{"instanceType": "p4d.24xlarge",
                                               "subnetId": "subnet-id",
                                               "weightedCapacity": 4}]}]}, [s, t])
    assert near(estimate(pack, [s, t, f], AWS), (P4D_OD + P4D_SPOT) * MONTH)


def test_1c_native_spot_fleet_by_attributes_is_gpu_capacity_never_a_pass(pack):
    """An override that asks for accelerators by instanceRequirements (acceleratorCount.min
    8) names no type: GPU capacity the catalog cannot price: spend-limit never passes it."""
    s = subnet("1c-sn", "us-east-1a")
    t = lt("1c-lt", None)
    del t.props["instanceType"]
    f = native_fleet("1c", {"targetCapacity": 2, "launchTemplateConfigs": [{
        "launchTemplateSpecification": {"launchTemplateId": "lt-id", "version": "1"},
        "overrides": [{"subnetId": "subnet-id", "instanceRequirements": {
            "vCpuCount": {"min": 8}, "memoryMiB": {"min": 16384},
            "acceleratorCount": {"min": 8}, "acceleratorTypes": ["gpu"]}}]}]}, [s, t])
    found = run(pack, [s, t, f, aws_budget("1000000")], provider=AWS)
    assert verdict(found, SPEND) != "pass", messages(found, SPEND)
    assert "1c (aws-native:ec2:SpotFleet)" in messages(found, SPEND)


@pytest.mark.parametrize("where, expected", [
    ("subnet-same", "pass"), ("subnet-other", "fail"), ("placement-other", "fail"),
    ("nic-subnet-other", "fail")])
def test_1d_native_spot_fleet_zone_against_its_lustre(pack, where, expected):
    """FSx for Lustre in us-east-1a. The fleet's nodes in the zone of their launch
    specification's subnet (SubnetId, or its interface's SubnetId) or its
    Placement.AvailabilityZone: us-east-1a passes, us-east-1b fails (span / not same zone)."""
    sa, sb = subnet("1d-a", "us-east-1a"), subnet("1d-b", "us-east-1b")
    fs = fsx("1d-fs", sa)
    spec = {"subnet-same": _spec(), "subnet-other": _spec(),
            "placement-other": _spec(False, placement={"availabilityZone": "us-east-1b"}),
            "nic-subnet-other": _spec(False, networkInterfaces=[{
                "deviceIndex": 0, "subnetId": "subnet-id",
                "associatePublicIpAddress": False}])}[where]
    deps = [sa] if where == "subnet-same" else [sb] if "subnet" in where else []
    f = native_fleet("1d", {"targetCapacity": 2, "launchSpecifications": [spec]}, deps)
    found = run(pack, [sa, sb, fs, f, aws_budget("1000000")], provider=AWS)
    assert verdict(found, SSZ) == expected, messages(found, SSZ)
    if expected == "fail":   # failed for the zone read, not for a zone that cannot be read
        assert "us-east-1b" in messages(found, SSZ), messages(found, SSZ)


@pytest.mark.parametrize("nics, on_subnet, expected", [
    ([{"deviceIndex": 0, "associatePublicIpAddress": True, "subnetId": "subnet-id"}], True,
     "fail"),
    ([{"deviceIndex": 0, "associatePublicIpAddress": False, "subnetId": "subnet-id"}], True,
     "pass"),
    (None, True, "pass"),      # the private stack subnet decides
    (None, False, "fail"),     # no subnet: the default VPC's public default subnet
    ([{"deviceIndex": 0, "associatePublicIpAddress": UNKNOWN, "subnetId": "subnet-id"}], True,
     "undecided"),
], ids=["nic-public", "nic-private", "private-subnet", "default-vpc", "unknown"])
def test_1e_native_spot_fleet_public_ip(pack, nics, on_subnet, expected):
    """SpotFleetLaunchSpecification.NetworkInterfaces[].AssociatePublicIpAddress true gives each
    node a public IPv4 address (InstanceNetworkInterfaceSpecification); with no subnet at all
    the nodes launch in the default VPC, whose default subnets are public
    (docs.aws.amazon.com/vpc/latest/userguide/default-vpc.html)."""
    s = subnet("1e-sn", "us-east-1a")
    spec = _spec(on_subnet and nics is None, **({"networkInterfaces": nics} if nics else {}))
    if not on_subnet:
        spec["placement"] = {"availabilityZone": "us-east-1a"}
    f = native_fleet("1e", {"targetCapacity": 2, "launchSpecifications": [spec]},
                     [s] if on_subnet else [])
    found = run(pack, [s, f, aws_budget("1000000")], provider=AWS)
    assert verdict(found, NPI) == expected, messages(found, NPI)
    if expected == "fail":
        assert "1e (aws-native:ec2:SpotFleet)" in messages(found, NPI)


@pytest.mark.parametrize("tagged_where, expected", [
    ("launch-specification", "pass"), ("request-only", "fail")])
def test_1f_native_spot_fleet_instance_tags_and_a_tag_filtered_budget(pack, tagged_where,
                                                                        expected):
    """A budget of 20,000 filtered to TagKeyValue user:project$alpha covers the fleet's
    11,959.59 only where its instances carry project=alpha: a launch specification's
    TagSpecifications of resourceType instance do; the request's own TagSpecifications
    (resourceType spot-fleet-request) tag only the request: then no budget covers the fleet
    (AWS Budgets tracks only the cost its filters match): "no budget alarm on aws"."""
    s = subnet("1f-sn", "us-east-1a")
    alpha = [{"key": "project", "value": "alpha"}]
    spec = _spec()
    config = {"targetCapacity": 2, "launchSpecifications": [spec]}
    if tagged_where == "launch-specification":
        spec["tagSpecifications"] = [{"resourceType": "instance", "tags": alpha}]
    else:
        config["tagSpecifications"] = [{"resourceType": "spot-fleet-request", "tags": alpha}]
    f = native_fleet("1f", config, [s])
    budget = aws_budget("20000", costFilters=[{"name": "TagKeyValue",
                                               "values": ["user:project$alpha"]}])
    found = run(pack, [s, f, budget], provider=AWS)
    assert verdict(found, SPEND) == expected, messages(found, SPEND)


@pytest.mark.parametrize("kind", ["classic", "native"])
def test_1g_spot_fleet_placement_left_to_the_service_either_way(pack, kind):
    """rdma-for-multinode leaves EC2 Fleet / Spot Fleet placement to the service (its SCOPE):
    a 2-node p4d Spot Fleet, classic or aws-native, is not judged there (pass)."""
    s = subnet("1g-sn", "us-east-1a")
    make = classic_fleet if kind == "classic" else native_fleet
    f = make("1g", {"targetCapacity": 2, "launchSpecifications": [_spec()]}, [s])
    found = run(pack, [s, f, aws_budget("1000000")], provider=AWS)
    assert verdict(found, RDMA) == "pass", messages(found, RDMA)
    # ... and priced: the budget of 1,000,000 is not exceeded, 2 x 8.1915 x 730 is stated.
    assert verdict(found, SPEND) == "pass", messages(found, SPEND)


@pytest.mark.parametrize("kind", ["classic", "native"])
def test_1h_spot_fleet_unknown_config_is_never_a_pass(pack, kind):
    """The whole config unknown at preview (aws-native: SpotFleetRequestConfigData; classic:
    targetCapacity and launchTemplateConfigs): GPU capacity of a type and size read after
    apply. Never a pass; the pack's standing decision for a GPU size unknown at preview is
    "cannot be estimated" (test_policy_decisions.py::test_a_size_unknown_at_preview_cannot_be_
    priced), so the native request gets the classic one's verdict and message.
    (First written as "undecided"; corrected to the classic request's verdict, which the
    brief asks for, after the classic one was run.)"""
    f = res("aws-native:ec2:SpotFleet", "1h", {"spotFleetRequestConfigData": UNKNOWN}) \
        if kind == "native" else res("aws:ec2/spotFleetRequest:SpotFleetRequest", "1h", {
            "iamFleetRole": ROLE, "targetCapacity": UNKNOWN, "launchTemplateConfigs": UNKNOWN})
    found = run(pack, [f, aws_budget("1000000")], provider=AWS)
    assert verdict(found, SPEND) != "pass", messages(found, SPEND)
    assert "1h (" in messages(found, SPEND)
    assert "size unknown until apply" in messages(found, SPEND)


# ============================================ 2. aws-native instance type from its template

def native_lt(name, itype=None, nics=None, deps=()):
    data = {"imageId": AMI, **({"instanceType": itype} if itype else {}),
            **({"networkInterfaces": nics} if nics is not None else {})}
    return res("aws-native:ec2:LaunchTemplate", name, {"launchTemplateData": data},
               deps={"launchTemplateData": list(deps)})


def native_instance(name, template, own_type=None, on_subnet=None):
    props = {"imageId": AMI, "launchTemplate": {"launchTemplateId": "lt-id", "version": "1"},
             "tags": NATIVE_TAGS, **({"instanceType": own_type} if own_type else {}),
             **({"subnetId": "subnet-id"} if on_subnet is not None else {})}
    deps = {"launchTemplate": [template]}
    if on_subnet is not None:
        deps["subnetId"] = [on_subnet]
    return res("aws-native:ec2:Instance", name, props, deps=deps)


@pytest.mark.parametrize("template_kind", ["native", "classic"])
def test_2a_native_instance_type_read_from_its_template(pack, template_kind):
    """The template names p4d.24xlarge, the instance none: one p4d on demand,
    21.9576 x 730 = 16,029.05."""
    s = subnet("2a-sn", "us-east-1a")
    t = native_lt("2a-lt", "p4d.24xlarge") if template_kind == "native" \
        else lt("2a-lt", "p4d.24xlarge")
    i = native_instance("2a", t, on_subnet=s)
    assert near(estimate(pack, [s, t, i], AWS), P4D_OD * MONTH)


def test_2b_native_instance_own_type_wins_over_the_template(pack):
    """The instance names g5.xlarge, its template p4d.24xlarge: the instance's own wins
    (RunInstances): 1.006 x 730 = 734.38."""
    s = subnet("2b-sn", "us-east-1a")
    t = native_lt("2b-lt", "p4d.24xlarge")
    i = native_instance("2b", t, own_type="g5.xlarge", on_subnet=s)
    assert near(estimate(pack, [s, t, i], AWS), G5_OD * MONTH)


# =========================== 3. a launch template's interface on a subnet the stack lacks

def _literal_stack(shape):
    sa = subnet("3-a", "us-east-1a")
    fs = fsx("3-fs", sa)
    nic = {"deviceIndex": 0, "subnetId": LITERAL, "associatePublicIpAddress": False}
    if shape == "classic-instance":
        t = lt("3-lt", "p4d.24xlarge", networkInterfaces=[nic])
        node = res("aws:ec2/instance:Instance", "3", {
            "ami": AMI, "launchTemplate": {"id": "lt-id", "version": "$Latest"},
            "tags": TAGS}, deps={"launchTemplate": [t]})
    elif shape == "native-instance":
        t = native_lt("3-lt", "p4d.24xlarge", nics=[nic])
        node = native_instance("3", t)
    else:   # an EC2 Fleet none of whose overrides names a subnet or zone
        t = lt("3-lt", "p4d.24xlarge", networkInterfaces=[nic])
        node = res("aws:ec2/fleet:Fleet", "3", {
            "type": "maintain", "targetCapacitySpecification": {
                "totalTargetCapacity": 2, "defaultTargetCapacityType": "on-demand"},
            "launchTemplateConfigs": [{"launchTemplateSpecification": {
                "launchTemplateId": "lt-id", "version": "$Latest"},
                "overrides": [{"instanceType": "p4d.24xlarge"}]}], "tags": TAGS},
            deps={"launchTemplateConfigs": [t]})
    return [sa, fs, t, node, aws_budget("1000000")]


@pytest.mark.parametrize("shape", ["classic-instance", "native-instance", "fleet"])
def test_3a_template_interface_on_a_literal_subnet_is_cannot_decide_until_told(pack, shape):
    """Untold: "cannot decide" (advisory by default) naming the subnet and the zones config,
    never the mandatory "zone cannot be read"; cannotDecide mandatory makes it mandatory; told
    us-east-1a (the Lustre's zone): pass; told us-east-1b: fail."""
    found = run(pack, _literal_stack(shape), provider=AWS)
    assert verdict(found, SSZ) == "undecided", messages(found, SSZ)
    ssz = [d for d in found if d.policy == SSZ]
    assert all(d.level == "advisory" for d in ssz), messages(found, SSZ)
    assert LITERAL in messages(found, SSZ) and "zones config" in messages(found, SSZ)
    assert "zone cannot be read" not in messages(found, SSZ)
    strict = run(pack, _literal_stack(shape), {SSZ: {"cannotDecide": "mandatory"}},
                 provider=AWS)
    assert any(d.level == "mandatory" and "cannot decide" in d.message and LITERAL in d.message
               for d in strict if d.policy == SSZ), messages(strict, SSZ)
    same = run(pack, _literal_stack(shape), {SSZ: {"zones": {LITERAL: "us-east-1a"}}},
               provider=AWS)
    assert verdict(same, SSZ) == "pass", messages(same, SSZ)
    other = run(pack, _literal_stack(shape), {SSZ: {"zones": {LITERAL: "us-east-1b"}}},
                provider=AWS)
    assert verdict(other, SSZ) == "fail", messages(other, SSZ)
    assert "us-east-1b" in messages(other, SSZ)


# ================================================ 4. fleets with mixed overrides

@pytest.mark.parametrize("kind", ["ec2-fleet", "spot-fleet", "native-spot-fleet"])
@pytest.mark.parametrize("mixed, expected", [(True, "fail"), (False, "pass")])
def test_4a_override_naming_no_subnet_launches_in_the_templates_zone(pack, kind, mixed,
                                                                     expected):
    """Lustre in us-east-1a; the template's interface subnet in us-east-1b. Overrides: one
    names the us-east-1a subnet, the other (mixed) names none, so it launches in the
    template's us-east-1b: the GPU nodes span two zones (fail). Control: both name the
    us-east-1a subnet: pass."""
    sa, sb = subnet("4-a", "us-east-1a"), subnet("4-b", "us-east-1b")
    fs = fsx("4-fs", sa)
    t = lt("4-lt", "p4d.24xlarge", networkInterfaces=[{"deviceIndex": 0,
                                                       "subnetId": "subnet-b"}])
    t.deps["networkInterfaces"] = [sb]
    second = {"instanceType": "p4d.24xlarge"} if mixed else \
        {"instanceType": "p4d.24xlarge", "subnetId": "subnet-a"}
    configs = [{"launchTemplateSpecification": {"launchTemplateId": "lt-id", "version": "1"},
                "overrides": [{"instanceType": "p4d.24xlarge", "subnetId": "subnet-a"},
                              second]}]
    if kind == "ec2-fleet":
        f = res("aws:ec2/fleet:Fleet", "4", {
            "type": "maintain", "targetCapacitySpecification": {
                "totalTargetCapacity": 2, "defaultTargetCapacityType": "spot"},
            "launchTemplateConfigs": configs, "tags": TAGS},
            deps={"launchTemplateConfigs": [sa, t]})
    elif kind == "spot-fleet":
        f = classic_fleet("4", {"targetCapacity": 2, "launchTemplateConfigs": configs},
                          [sa, t])
    else:
        f = native_fleet("4", {"targetCapacity": 2, "launchTemplateConfigs": configs}, [sa, t])
    found = run(pack, [sa, sb, fs, t, f, aws_budget("1000000")], provider=AWS)
    assert verdict(found, SSZ) == expected, messages(found, SSZ)
    if expected == "fail":
        assert "us-east-1b" in messages(found, SSZ)


def test_2c_native_instance_from_a_template_the_stack_does_not_create(pack):
    """The instance names no type and launches from a literal launch template id: its type is
    read nowhere in the stack, so it may be GPU capacity (as a classic instance's is): never a
    pass, the message says the template is not the stack's."""
    i = res("aws-native:ec2:Instance", "2c", {
        "imageId": AMI, "launchTemplate": {"launchTemplateId": "lt-0abc1234def567890",
                                           "version": "1"}, "tags": NATIVE_TAGS,
        "availabilityZone": "us-east-1a"})
    found = run(pack, [i, aws_budget("1000000")], provider=AWS)
    assert verdict(found, SPEND) != "pass", messages(found, SPEND)
    assert "which the stack does not create" in messages(found, SPEND)
