"""`trainstack check` and the CrossGuard pack return the same verdicts on the same plan.

Offline verdicts (policies/runner.py on the plan) are compared with the diagnostics of the real
pack process (Analyze on every resource + AnalyzeStack) for every stack and for bad variants that
make each policy fire, under the same policy config: same policy, level, resource and message.
"""
from __future__ import annotations

import copy

import pytest

from tests.conftest import edited, plan_for
from trainstack import PROJECT_DIR
from trainstack.check.offline import run_check
from trainstack.plan import engine   # engine.render: tests/policies/conftest.py may share renders
from trainstack.plan.stacks import stack_config, stack_names
from trainstack_policies.model import from_policy_resources, from_resource_args
from trainstack_policies.pack_config import parse, reconcile


def _offline(plan, given=None) -> set[tuple]:
    config, _ = reconcile(parse(given))
    return {(v.policy, v.reported_level, x.urn, x.message)
            for v in run_check(plan, config) for x in v.violations}


def _pack(pack, plan, given=None) -> set[tuple]:
    pack.configure(given)
    return {(d.policy, d.level, d.urn, d.message) for d in pack.analyze_plan(plan)}


def _variants(spec: dict) -> dict[str, tuple[dict, str]]:
    """name -> (spec, the policy it must make fail)."""
    def changed(**edits):
        return edited(spec, **edits)
    return {
        "no-retain": (changed(bucket__retain_on_destroy=False), "bucket-retained"),
        "open-ssh": (changed(access__ssh_cidrs=["0.0.0.0/0"]), "no-public-ingress"),
        "missing-tag": (changed(tags={"team": "ml", "cost-center": "1234"}), "required-tags"),
        "low-budget": (changed(budget__monthly_usd=5000), "spend-limit"),
        "no-lifetime": (changed(workload__max_hours=None), "spend-limit"),
        "tcp": (changed(interconnect="tcp"), "rdma-for-multinode"),
    }


@pytest.mark.parametrize("stack", stack_names(PROJECT_DIR))
@pytest.mark.parametrize("given", [None, {"spend-limit": {"maxMonthlyUsd": 1000}},
                                   {"all": "advisory"}])
def test_same_verdicts_on_every_stack(pack, stack, given):
    plan = engine.render(stack_config(PROJECT_DIR, stack), stack=stack)
    assert _offline(plan, given) == _pack(pack, plan, given)


@pytest.mark.parametrize("cloud", ["aws", "gcp"])
@pytest.mark.parametrize("variant", ["no-retain", "open-ssh", "missing-tag", "low-budget",
                                     "no-lifetime", "tcp"])
def test_same_verdicts_on_bad_variants(pack, example_spec, cloud, variant):
    spec, policy = _variants(example_spec)[variant]
    plan = plan_for(spec, cloud)
    offline = _offline(plan)
    assert policy in {f[0] for f in offline}
    assert offline == _pack(pack, plan)


def test_same_verdicts_when_the_plan_is_broken_by_hand(pack, example_spec):
    """Zone and encryption cannot be broken through the spec: break the plan itself."""
    plan = plan_for(example_spec, "aws")
    public = next(r for r in plan.resources if r.name.endswith("-public-subnet"))
    public.inputs["availabilityZone"] = "us-east-1b"
    fs = next(r for r in plan.resources if r.type.endswith("LustreFileSystem"))
    fs.property_dependencies["subnetIds"] = [public.urn]
    lt = next(r for r in plan.resources if r.type.endswith("LaunchTemplate"))
    lt.inputs["blockDeviceMappings"][0]["ebs"]["encrypted"] = "false"
    offline = _offline(plan)
    assert {f[0] for f in offline} == {"storage-same-zone", "encryption-at-rest"}
    assert offline == _pack(pack, plan)


def test_the_in_process_wrappers_agree_with_the_runner(example_spec):
    """policies/pack.py's validate functions on pulumi_policy argument objects built by hand
    (with the analyzer's unknown-checking proxies) report what the runner reports."""
    from pulumi_policy import (
        PolicyResource,
        PolicyResourceOptions,
        ResourceValidationArgs,
        StackValidationArgs,
        StackValidationPolicy,
    )
    from pulumi_policy.policy import PolicyCustomTimeouts
    from pulumi_policy.proxy import unknown_checking_proxy

    from trainstack_policies.pack import policies
    spec = _variants(example_spec)["open-ssh"][0]
    spec["bucket"]["retain_on_destroy"] = False
    plan = plan_for(spec, "aws")
    opts = PolicyResourceOptions(False, [], None, [], PolicyCustomTimeouts(0, 0, 0), [])
    objects = {r.urn: PolicyResource(r.type, unknown_checking_proxy(copy.deepcopy(r.inputs)),
                                     r.urn, r.name, opts, None, None, [], {})
               for r in plan.resources}
    for r in plan.resources:
        objects[r.urn].property_dependencies = {
            k: [objects[u] for u in urns] for k, urns in r.property_dependencies.items()}
    views = from_policy_resources(list(objects.values()))
    assert len(views) == len([r for r in plan.resources if not r.type.startswith("pulumi:")])

    reported = set()
    for policy in policies():
        def report(message, urn=None, name=policy.name):
            reported.add((name, urn or "", message))
        if isinstance(policy, StackValidationPolicy):
            policy.validate(StackValidationArgs(list(objects.values()), {}), report)
        else:
            for r in plan.resources:
                args = ResourceValidationArgs(r.type, unknown_checking_proxy(
                    copy.deepcopy(r.inputs)), r.urn, r.name, opts, None, {})
                assert from_resource_args(args).props == r.inputs
                policy.validate(args, report)
    offline = {(p, urn, m) for p, _, urn, m in _offline(plan)}
    assert {p for p, _, _ in offline} == {"no-public-ingress", "bucket-retained"}
    assert reported == offline
