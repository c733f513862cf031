"""The pack as the engine runs it: a subprocess serving gRPC, called like `pulumi preview` would.

One pack process for the module (started exactly as the engine starts it, see
tests/policy_harness.py), fed the resources of a mock-engine run of every stack in stacks/.
"""
from __future__ import annotations

import pytest
from pulumi.runtime.proto import analyzer_pb2 as apb

from trainstack import PROJECT_DIR
from trainstack.plan.engine import render
from trainstack.plan.stacks import stack_config, stack_names
from trainstack_policies.model import UNKNOWN_STRING_SENTINEL
from trainstack_policies.rules import BY_NAME

STACKS = stack_names(PROJECT_DIR)
# Azure's plan does not enforce its declared lifetime yet: priced for 730 h, it fails spend-limit.
PASSING_STACKS = STACKS  # every stack enforces its declared lifetime
STACK_POLICIES = {"storage-same-zone", "spend-limit", "rdma-for-multinode", "encryption-at-rest"}


@pytest.fixture(scope="module")
def plans():
    """The example stacks as the components render them (each enforces the lifetime its spec
    declares, except Azure's for now: a tag alone does not shrink the estimate)."""
    return {name: render(stack_config(PROJECT_DIR, name), stack=name) for name in STACKS}


def test_the_first_stdout_line_is_only_the_port(pack):
    assert pack.first_line == f"{pack.port}\n".encode()


def test_handshake_is_unimplemented_which_the_engine_tolerates(pack):
    import grpc
    with pytest.raises(grpc.RpcError) as err:
        pack.stub.Handshake(apb.AnalyzerHandshakeRequest(engine_address="127.0.0.1:1",
                                                         root_directory=".",
                                                         program_directory="."))
    assert err.value.code() == grpc.StatusCode.UNIMPLEMENTED


def test_analyzer_info(pack):
    info = pack.info
    assert info.name == "trainstack-guardrails" and info.supportsConfig
    policies = {p.name: p for p in info.policies}
    assert set(policies) == set(BY_NAME)
    for name, p in policies.items():
        level = "advisory" if name == "rdma-for-multinode" else "mandatory"
        assert apb.EnforcementLevel.Name(p.enforcementLevel).lower() == level, name
        kind = apb.POLICY_TYPE_STACK if name in STACK_POLICIES else apb.POLICY_TYPE_RESOURCE
        assert p.policy_type == kind, name
        assert p.description == BY_NAME[name].description
    config = pack.cli_config()
    assert config["required-tags"]["requiredTags"] == ["owner", "team", "cost-center"]
    assert config["no-public-ingress"]["sshCidrs"] == []
    assert "maxMonthlyUsd" not in config["spend-limit"]   # unset: the stack's budget is the cap


def test_the_harness_config_matches_the_checkers(pack):
    from trainstack_policies.pack_config import parse, reconcile
    given = {"all": "advisory", "spend-limit": {"enforcementLevel": "mandatory",
                                                "maxMonthlyUsd": 1000}}
    ours, _ = reconcile(parse(given))
    theirs = pack.cli_config(given)
    assert {n: {"enforcementLevel": c.enforcement_level, **c.properties}
            for n, c in ours.items()} == theirs


@pytest.mark.parametrize("stack", PASSING_STACKS)
def test_every_stack_passes_with_the_default_config(pack, plans, stack):
    pack.configure()
    found = pack.analyze_plan(plans[stack])
    assert [d for d in found if d.level == "mandatory"] == []
    assert found == []   # not even advisory findings: the example stacks use RDMA


@pytest.mark.parametrize("stack", STACKS)
def test_a_lower_max_monthly_usd_turns_a_pass_into_a_mandatory_violation(pack, plans, stack):
    pack.configure({"spend-limit": {"maxMonthlyUsd": 1000}})
    found = pack.analyze_plan(plans[stack])
    assert {d.policy for d in found} == {"spend-limit"}
    assert {d.level for d in found} == {"mandatory"}
    messages = " ".join(d.message for d in found)
    if stack != "alicloud":  # pulumi-alicloud has no budget resource to be above the cap
        assert "the budget amount is above the policy's maxMonthlyUsd" in messages
    assert "the estimated monthly cost exceeds the policy's maxMonthlyUsd" in messages
    assert all(d.urn.startswith(f"urn:pulumi:{stack}::trainstack::") for d in found)

    # `all: advisory` downgrades it, `disabled` silences it, a raised cap clears it.
    pack.configure({"all": "advisory", "spend-limit": {"maxMonthlyUsd": 1000}})
    assert {d.level for d in pack.analyze_plan(plans[stack])} == {"advisory"}
    pack.configure({"spend-limit": {"enforcementLevel": "disabled", "maxMonthlyUsd": 1000}})
    assert pack.analyze_plan(plans[stack]) == []
    pack.configure({"spend-limit": {"maxMonthlyUsd": 1_000_000}})
    assert pack.analyze_plan(plans[stack]) == []


def test_a_negative_cap_is_rejected_before_configure(pack):
    import jsonschema
    with pytest.raises(jsonschema.ValidationError):
        pack.cli_config({"spend-limit": {"maxMonthlyUsd": -1}})


def test_resource_policies_run_in_analyze(pack):
    pack.configure({"no-public-ingress": {"sshCidrs": ["198.51.100.0/24"]}})
    urn = "urn:pulumi:test::trainstack::aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule::ssh"
    props = {"cidrIpv4": "0.0.0.0/0", "ipProtocol": "tcp", "fromPort": 22, "toPort": 22,
             "tags": {"owner": "a", "team": "t", "cost-center": "1"}}
    [d] = pack.analyze("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule", "ssh", urn,
                       props)
    assert (d.policy, d.level, d.urn) == ("no-public-ingress", "mandatory", urn)
    assert "Found: source 0.0.0.0/0, port 22" in d.message
    assert "now: 198.51.100.0/24" in d.message
    pack.configure({"no-public-ingress": {"sshCidrs": ["0.0.0.0/0"]}})
    assert pack.analyze("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule", "ssh", urn,
                        props) == []


def test_required_tags_config_reaches_the_pack(pack):
    pack.configure({"required-tags": {"requiredTags": ["owner", "project"]}})
    [d] = pack.analyze("aws:s3/bucket:Bucket", "b", "urn:pulumi:test::trainstack::aws:s3/bucket:"
                       "Bucket::b", {"tags": {"owner": "a", "trainstack:retain": "true"},
                                     "forceDestroy": False})
    assert d.policy == "required-tags" and "missing required tags project" in d.message


def test_a_value_unknown_during_preview_is_an_advisory_cant_run(pack):
    pack.configure()
    urn = "urn:pulumi:test::trainstack::aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule::x"
    found = pack.analyze("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule", "x", urn,
                         {"cidrIpv4": UNKNOWN_STRING_SENTINEL, "ipProtocol": "tcp",
                          "fromPort": 22, "toPort": 22,
                          "tags": {"owner": "a", "team": "t", "cost-center": "1"}})
    [d] = found
    assert d.policy == "no-public-ingress" and d.level == "advisory"
    assert "can't run policy 'no-public-ingress'" in d.message and "during preview" in d.message


def test_the_filesystem_zone_is_followed_through_an_unknown_subnet_id(pack, plans):
    """At preview the FSx subnetIds is unknown; the zone comes from the dependency."""
    import copy
    plan = copy.deepcopy(plans["aws"])
    fs = next(r for r in plan.resources if r.type == "aws:fsx/lustreFileSystem:LustreFileSystem")
    fs.inputs["subnetIds"] = UNKNOWN_STRING_SENTINEL
    pack.configure()
    assert pack.analyze_plan(plan) == []
    public = next(r for r in plan.resources if r.name.endswith("-public-subnet"))
    public.inputs["availabilityZone"] = "us-east-1b"
    fs.property_dependencies["subnetIds"] = [public.urn]
    [d] = pack.analyze_plan(plan)
    assert d.policy == "storage-same-zone" and d.level == "mandatory" and d.urn == fs.urn
    assert "Found: us-east-1b. Expected: us-east-1a" in d.message
