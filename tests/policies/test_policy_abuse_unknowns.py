"""Issue 24, items 1-3 over gRPC, as `pulumi preview --policy-pack` drives the pack: exemptions
that cannot be abused, no crash on unknown containers, and unknowns that would hide a violation
reported as "cannot decide" (mandatory for spend-limit by default, advisory elsewhere unless
the policy's cannotDecide says mandatory). Expected values are worked out by hand in comments.
"""
from __future__ import annotations

import jsonschema
import pytest

from tests.policy_fixtures import AWS_ALERTS, OWNER_TAGS, aws_cluster, azure_cluster, find, res
from tests.policy_harness import run
from trainstack_policies.model import UNKNOWN

TAGS = dict(OWNER_TAGS)
AWS = {"region": "us-east-1"}


def judged(found):
    return [d for d in found if not d.message.startswith("exempt: ")]


def of(found, policy, level=None):
    return [d for d in judged(found) if d.policy == policy and (level is None or d.level == level)]


def gpu_group(name="gpu", nodes=512.0, itype="p5.48xlarge", zone="us-east-1a", **props):
    subnet = res("aws:ec2/subnet:Subnet", f"{name}-subnet", {"availabilityZone": zone,
                                                             "tags": TAGS})
    lt = res("aws:ec2/launchTemplate:LaunchTemplate", f"{name}-lt",
             {"instanceType": itype, "tags": TAGS})
    group = res("aws:autoscaling/group:Group", name,
                {"minSize": 0.0, "maxSize": nodes, "tags": [
                    {"key": k, "value": v, "propagateAtLaunch": True} for k, v in TAGS.items()],
                 **props}, deps={"launchTemplate": [lt], "vpcZoneIdentifiers": [subnet]})
    return [subnet, lt, group]


def budget(usd="20000", **props):
    return res("aws:budgets/budget:Budget", props.pop("name", "budget"),
               {"notifications": AWS_ALERTS,
                "budgetType": "COST", "timeUnit": "MONTHLY", "limitAmount": usd,
                "limitUnit": "USD", "tags": TAGS, **props})


def world_rule(name="web"):
    return res("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule", name,
               {"cidrIpv4": "0.0.0.0/0", "ipProtocol": "tcp", "fromPort": 443.0,
                "toPort": 443.0, "tags": TAGS})


# ---------------------------------------------------------------- 1. exemptions cannot be abused

def test_a_provider_default_skip_tag_exempts_nothing(pack):
    bucket = res("aws:s3/bucket:Bucket", "scratch", {"forceDestroy": True, "tags": TAGS})
    stack = [*gpu_group(), world_rule(), bucket, budget()]
    provider = {**AWS, "defaultTags": {"tags": {"trainstack:policy-skip": "all"}}}
    found = run(pack, stack, provider=provider)
    # 512 x p5.48xlarge is far above the 20,000 USD budget; the rule is world-open; the bucket
    # is force-destroyable and not retained: all still judged, nothing listed as exempt.
    assert {d.policy for d in found if d.level == "mandatory"} >= {
        "spend-limit", "no-public-ingress", "bucket-retained"}
    assert not [d for d in found if d.message.startswith("exempt: ")]
    # The AWS provider's Check copies default tags into tagsAll: that is not the resource's own.
    for r in stack:
        r.props["tagsAll"] = {**TAGS, "trainstack:policy-skip": "all"}
    assert of(run(pack, stack, provider=AWS), "no-public-ingress")
    # The GCP provider's defaultLabels / effectiveLabels likewise.
    fw = res("gcp:compute/firewall:Firewall", "open", {
        "direction": "INGRESS", "sourceRanges": ["0.0.0.0/0"], "allows": [{"protocol": "all"}],
        "effectiveLabels": {"trainstack_policy-skip": "all"}})
    assert of(run(pack, [fw], provider={"project": "p", "defaultLabels": {
        "trainstack_policy-skip": "all"}}), "no-public-ingress")


def test_a_provider_wide_retain_tag_retains_no_bucket(pack):
    bucket = res("aws:s3/bucket:Bucket", "data", {"tags": TAGS})
    found = run(pack, [bucket], provider={**AWS, "defaultTags": {"tags": {
        "trainstack:retain": "true"}}})
    [d] = of(found, "bucket-retained")
    assert "not marked as retained" in d.message
    bucket.props["tags"] = {**TAGS, "trainstack:retain": "true"}
    bucket.protect = True
    assert of(run(pack, [bucket]), "bucket-retained") == []


def test_skip_resources_refuses_a_bare_name_and_patterns_match_type_and_name(pack):
    with pytest.raises(jsonschema.ValidationError, match="does not match"):
        pack.configure({"spend-limit": {"skipResources": ["web"]}})
    stack = [*gpu_group(name="web"), budget()]
    # A pattern for buckets named web does not exempt the GPU group named web.
    found = run(pack, stack, {"spend-limit": {"skipResources": ["aws:s3/bucket:Bucket::web"]}})
    assert of(found, "spend-limit", "mandatory")
    group = stack[2]
    found = run(pack, stack, {"spend-limit": {"skipResources": [
        "aws:autoscaling/group:Group::we?"]}})
    assert of(found, "spend-limit") == []
    [note] = [d for d in found if d.message.startswith("exempt: ")]
    assert (note.policy, note.level, note.urn) == ("spend-limit", "advisory", group.urn)
    assert "skipResources entry 'aws:autoscaling/group:Group::we?'" in note.message
    # A URN glob works too, and a URN of another stack does not match.
    assert of(run(pack, stack, {"spend-limit": {"skipResources": [
        "urn:pulumi:test::trainstack::aws:autoscaling/group:Group::*"]}}), "spend-limit") == []
    assert of(run(pack, stack, {"spend-limit": {"skipResources": [
        "urn:pulumi:prod::trainstack::aws:autoscaling/group:Group::web"]}}), "spend-limit")


def test_a_bare_name_that_reaches_the_pack_unvalidated_matches_nothing(pack):
    """The CLI refuses bare names; a config that skipped validation still exempts nothing: the
    pack's Configure refuses it too (the schema's "::" pattern, review35f), and the matcher
    itself never takes a bare name for a resource's name."""
    import grpc
    from pulumi.runtime.proto import analyzer_pb2 as apb

    from tests.policy_harness import _struct
    from trainstack_policies.exemptions import matching_entry
    config = pack.cli_config()
    config["spend-limit"]["skipResources"] = ["web"]
    with pytest.raises(grpc.RpcError) as err:
        pack.stub.Configure(apb.ConfigureAnalyzerRequest(policyConfig={
            name: apb.PolicyConfig(
                enforcementLevel=apb.EnforcementLevel.Value(value.pop("enforcementLevel").upper()),
                properties=_struct(value)) for name, value in config.items()}))
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "skipResources" in err.value.details() and "'web'" in err.value.details()
    group = gpu_group(name="web")[2]
    assert group.name == "web" and matching_entry(["web"], group) is None
    found = run(pack, [*gpu_group(name="web"), budget()], provider=AWS)
    assert of(found, "spend-limit", "mandatory")
    assert not [d for d in found if d.message.startswith("exempt: ")]


# ------------------------------------------------------------------------------- 2. no crashes

@pytest.mark.parametrize("ports", [UNKNOWN, [UNKNOWN], ["22", UNKNOWN]])
def test_unknown_gcp_firewall_ports_do_not_fail_analyze(pack, ports):
    private = res("gcp:compute/firewall:Firewall", "internal", {
        "direction": "INGRESS", "sourceRanges": ["10.0.0.0/8"],
        "allows": [{"protocol": "tcp", "ports": ports}]})
    assert run(pack, [private]) == []      # a private source: the ports do not matter
    world = res("gcp:compute/firewall:Firewall", "world", {
        "direction": "INGRESS", "sourceRanges": ["0.0.0.0/0"],
        "allows": [{"protocol": "tcp", "ports": ports}]})
    [d] = run(pack, [world])
    assert (d.policy, d.level) == ("no-public-ingress", "advisory")
    assert "cannot decide until apply" in d.message and "allows.0.ports" in d.message
    [d] = run(pack, [world], {"no-public-ingress": {"cannotDecide": "mandatory"}})
    assert d.level == "mandatory" and "cannot decide: world: .allows.0.ports" in d.message


@pytest.mark.parametrize("resource", [
    res("aws:ec2/securityGroup:SecurityGroup", "sg", {"ingress": [UNKNOWN], "tags": TAGS}),
    res("azure-native:network:NetworkSecurityGroup", "nsg",
        {"securityRules": [UNKNOWN], "tags": TAGS}),
    res("gcp:compute/instance:Instance", "vm", {"machineType": "e2-small", "labels": {
        "owner": "a", "team": "t", "cost_center": "c"}, "networkInterfaces": [UNKNOWN]}),
    res("aws:ec2/launchTemplate:LaunchTemplate", "lt", {"instanceType": "t3.small",
                                                        "blockDeviceMappings": [UNKNOWN],
                                                        "tags": TAGS}),
])
def test_an_unknown_container_entry_is_cannot_decide_not_a_crash(pack, resource):
    found = run(pack, [resource])
    assert found and all(d.level == "advisory" and "cannot decide" in d.message for d in found)


# ------------------------------------------------------- 3. unknowns that would hide a violation

UNDECIDED = [
    ("sg-rule-type", res("aws:ec2/securityGroupRule:SecurityGroupRule", "r", {
        "type": UNKNOWN, "cidrBlocks": ["0.0.0.0/0"], "protocol": "-1", "fromPort": 0.0,
        "toPort": 0.0}), "no-public-ingress", ".type"),
    ("lt-public-ip", res("aws:ec2/launchTemplate:LaunchTemplate", "lt", {
        "instanceType": "t3.small", "tags": TAGS,
        "networkInterfaces": [{"associatePublicIpAddress": UNKNOWN}]}), "no-public-ingress",
     "associatePublicIpAddress"),
    ("instance-public-ip", res("aws:ec2/instance:Instance", "vm", {
        "instanceType": "t3.small", "tags": TAGS, "associatePublicIpAddress": UNKNOWN}),
     "no-public-ingress", "associatePublicIpAddress"),
    ("subnet-map-public", res("aws:ec2/subnet:Subnet", "s", {
        "availabilityZone": "us-east-1a", "tags": TAGS, "mapPublicIpOnLaunch": UNKNOWN}),
     "no-public-ingress", "mapPublicIpOnLaunch"),
    ("nsg-direction", res("azure-native:network:SecurityRule", "r", {
        "direction": UNKNOWN, "access": "Allow", "sourceAddressPrefix": "*",
        "destinationPortRange": "443", "protocol": "Tcp"}), "no-public-ingress", "direction"),
    ("nsg-access", res("azure-native:network:SecurityRule", "r", {
        "direction": "Inbound", "access": UNKNOWN, "sourceAddressPrefix": "Internet",
        "destinationPortRange": "*", "protocol": "*"}), "no-public-ingress", "access"),
    ("ali-policy", res("alicloud:ecs/securityGroupRule:SecurityGroupRule", "r", {
        "type": "ingress", "policy": UNKNOWN, "cidrIp": "0.0.0.0/0", "ipProtocol": "all",
        "portRange": "-1/-1"}), "no-public-ingress", "policy"),
    ("gcp-nic", res("gcp:compute/instanceTemplate:InstanceTemplate", "t", {
        "machineType": "e2-small", "networkInterfaces": [{"network": "n"}, UNKNOWN]}),
     "no-public-ingress", "networkInterfaces.1"),
    ("lt-ebs", res("aws:ec2/launchTemplate:LaunchTemplate", "lt", {
        "instanceType": "t3.small", "tags": TAGS,
        "blockDeviceMappings": [{"deviceName": "/dev/xvda", "ebs": UNKNOWN}]}),
     "encryption-at-rest", "blockDeviceMappings.0.ebs"),
    ("root-device", res("aws:ec2/instance:Instance", "vm", {
        "instanceType": "t3.small", "tags": TAGS, "rootBlockDevice": UNKNOWN}),
     "encryption-at-rest", "rootBlockDevice"),
    ("ali-fs-type", res("alicloud:nas/fileSystem:FileSystem", "nas", {
        "fileSystemType": UNKNOWN, "protocolType": "NFS", "tags": TAGS}),
     "encryption-at-rest", "fileSystemType"),
]


@pytest.mark.parametrize("case, resource, policy, path", UNDECIDED, ids=[c[0] for c in UNDECIDED])
def test_an_unknown_that_could_hide_a_violation_cannot_be_decided(pack, case, resource, policy,
                                                                  path):
    found = of(run(pack, [resource]), policy)
    assert [d.level for d in found] == ["advisory"], found
    assert "cannot decide until apply" in found[0].message and path in found[0].message
    found = of(run(pack, [resource], {policy: {"cannotDecide": "mandatory"}}), policy)
    assert [d.level for d in found] == ["mandatory"] and "cannot decide: " in found[0].message


def test_an_unknown_budget_amount_is_a_mandatory_cannot_decide(pack):
    stack = [*gpu_group(nodes=2.0), budget(UNKNOWN)]
    [d] = of(run(pack, stack, provider=AWS), "spend-limit")
    assert d.level == "mandatory" and "cannot decide: budget: .limitAmount" in d.message


def test_an_unknown_vmss_location_cannot_be_placed_against_its_filesystem(pack):
    stack = azure_cluster()
    find(stack, "VirtualMachineScaleSet").props["location"] = UNKNOWN
    found = of(run(pack, stack), "storage-same-zone")
    assert [d.level for d in found] == ["advisory"] and "location" in found[0].message


def test_a_private_rule_with_an_unknown_direction_is_still_private(pack):
    rule = res("azure-native:network:SecurityRule", "r", {
        "direction": UNKNOWN, "access": UNKNOWN, "sourceAddressPrefix": "10.0.0.0/8",
        "destinationPortRange": "*", "protocol": "*"})
    assert run(pack, [rule]) == []


# ------------------------------------------------------------------------ numbers are validated

def test_a_decoy_negative_group_does_not_cancel_a_real_one(pack):
    # 512 x p5.48xlarge alone is ~20.6 M USD/month; a decoy of -510 nodes would have brought
    # the sum to 2 nodes' worth (80,358 USD) had it been added as a number.
    # fix65 (review65 DEFECT 1): the decoy's finding no longer hides the real group's; the
    # 512 nodes alone, 512 x 55.04 x 730 = 20,571,750.40, are over the 100,000 budget, a lower
    # bound that leaves the decoy out.
    stack = [*gpu_group(nodes=512.0), *gpu_group(name="decoy", nodes=-510.0), budget("100000")]
    d, over = of(run(pack, stack, provider=AWS), "spend-limit")
    assert d.level == "mandatory" and "not valid" in d.message and "-510" in d.message
    assert over.level == "mandatory" and "even as a lower bound" in over.message, over.message
    assert "Found: 20,571,750 USD/month" in over.message, over.message


@pytest.mark.parametrize("amount", ["NaN", "inf", "-5", "0"])
def test_a_budget_that_is_no_amount_is_a_violation(pack, amount):
    stack = [*gpu_group(nodes=1.0, itype="p5.4xlarge"), budget(amount)]
    found = of(run(pack, stack, provider=AWS), "spend-limit")
    assert any("not a positive finite number" in d.message for d in found), found


@pytest.mark.parametrize("hours", ["NaN", "-1", "inf"])
def test_a_lifetime_tag_that_is_no_number_is_a_violation(pack, hours):
    stack = aws_cluster()
    group = find(stack, "autoscaling/group:Group")
    group.props["tags"] = [t for t in group.props["tags"] if t["key"] != "trainstack:max-hours"]
    group.props["tags"].append({"key": "trainstack:max-hours", "value": hours,
                                "propagateAtLaunch": True})
    [d] = of(run(pack, stack), "spend-limit")
    assert "trainstack:max-hours tag" in d.message and "not a positive finite" in d.message


def test_nan_and_infinity_are_refused_in_the_policy_config(tmp_path):
    from trainstack_policies.pack_config import PolicyConfigError, load
    for text in ('{"spend-limit": {"maxMonthlyUsd": NaN}}',
                 '{"spend-limit": {"maxMonthlyUsd": Infinity}}',
                 '{"spend-limit": {"maxMonthlyUsd": -Infinity}}'):
        path = tmp_path / "config.json"
        path.write_text(text)
        with pytest.raises(PolicyConfigError, match="not a JSON number"):
            load(path)


# ------------------------------------------------------------ the analyzer reads what the SDK reads

def test_the_analyzers_struct_reader_equals_pulumi_policys_deserialisation():
    """policies/analyzer.py reads each request's properties in one pass; it must give what
    plain(deserialize_properties(MessageToDict(...))) gives, secrets unwrapped and unknowns."""
    from google.protobuf import json_format
    from pulumi_policy.deserialize import deserialize_properties

    from tests.policy_fixtures import CLUSTERS
    from tests.policy_harness import _struct, engine_value
    from trainstack_policies.analyzer import _props
    from trainstack_policies.model import plain
    secret = {"4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270",
              "value": {"password": "hunter2", "n": 3.0}}
    samples = [engine_value(r.props) for build in CLUSTERS.values() for r in build()]
    samples.append({"a": secret, "b": [secret, UNKNOWN and "04da6b54-80e4-46f7-96ec-b56ff0331ba9"],
                    "c": None, "d": True, "e": [[1.0, "x"], {}]})
    for props in samples:
        message = _struct(props)
        expected = plain(deserialize_properties(json_format.MessageToDict(message)))
        assert _props(message) == expected


@pytest.mark.parametrize("resource", [
    res("gcp:compute/firewall:Firewall", "fw", {"direction": "INGRESS", "allows": "tcp:22",
                                                "sourceRanges": "0.0.0.0/0"}),
    res("aws:ec2/securityGroup:SecurityGroup", "sg", {"ingress": {"cidrBlocks": 3.0},
                                                      "tags": "owner=a"}),
    res("aws:autoscaling/group:Group", "g", {"maxSize": {"n": 1}, "tags": ["x", 1.0],
                                             "warmPool": "Running"}),
    res("azure-native:network:NetworkSecurityGroup", "nsg", {"securityRules": "all"}),
    res("aws:ec2/launchTemplate:LaunchTemplate", "lt", {"blockDeviceMappings": {"ebs": 1.0},
                                                        "networkInterfaces": "eni"}),
], ids=["firewall", "sg", "asg", "nsg", "lt"])
def test_inputs_of_an_unexpected_shape_never_fail_the_analyze_call(pack, resource):
    """Whatever the shape, the engine gets an answer (a finding or a 'cannot decide'), not a
    gRPC error that fails the whole preview."""
    found = run(pack, [resource])
    assert all(d.level in ("advisory", "mandatory") for d in found)


def test_a_stack_policy_meeting_an_unexpected_shape_says_so_instead_of_failing(pack):
    """A launch template whose networkInterfaces is a number (found by fuzzing the rules): the
    RDMA rule cannot read it; the engine gets an advisory 'cannot decide', not a gRPC error."""
    stack = aws_cluster()
    find(stack, "LaunchTemplate").props["networkInterfaces"] = 3.0
    found = of(run(pack, stack), "rdma-for-multinode")
    assert [d.level for d in found] == ["advisory"]
    assert "a shape the policy cannot read: TypeError" in found[0].message
