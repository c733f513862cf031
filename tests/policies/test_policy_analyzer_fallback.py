"""The pack's two serving paths give the same findings: policies/analyzer.py (one read per
request, installed by __main__) and pulumi_policy's own servicer running the policies'
validate functions (what runs if another pulumi-policy lacks the helpers the analyzer uses).
Only the analyzer adds exemption notes, which the callback API cannot send."""
from __future__ import annotations

import pytest
from pulumi.runtime.proto import analyzer_pb2 as apb
from pulumi_policy import EnforcementLevel
from pulumi_policy import policy as stock

from tests.policy_fixtures import CLUSTERS, find
from tests.policy_harness import _struct, engine_value, provider_for
from trainstack_policies import analyzer
from trainstack_policies.model import UNKNOWN
from trainstack_policies.pack import PACK_NAME, policies


def _servicer(cls):
    s = cls(PACK_NAME, "0.0.1", policies(), EnforcementLevel.ADVISORY, None, None, None, None,
            None, None, None)
    s.Configure(apb.ConfigureAnalyzerRequest(policyConfig={
        p.name: apb.PolicyConfig(enforcementLevel=apb.MANDATORY if p.enforcement_level ==
                                 EnforcementLevel.MANDATORY else apb.ADVISORY,
                                 properties=_struct({}))
        for p in policies()}), None)
    return s


def _diagnostics(servicer, resources):
    def provider(r):
        return provider_for(r.cloud if r.cloud != "azure" else "azure-native",
                            {"region": r.provider_region} if r.provider_region else {})
    out = set()
    for r in resources:
        response = servicer.Analyze(apb.AnalyzeRequest(
            type=r.type, name=r.name, urn=r.urn, properties=_struct(engine_value(r.props)),
            provider=provider(r)), None)
        out |= {(d.policyName, d.enforcementLevel, d.urn, d.message.split(": cannot")[0])
                for d in response.diagnostics}
    response = servicer.AnalyzeStack(apb.AnalyzeStackRequest(resources=[apb.AnalyzerResource(
        type=r.type, name=r.name, urn=r.urn, properties=_struct(engine_value(r.props)),
        propertyDependencies={k: apb.AnalyzerPropertyDependencies(urns=[d.urn for d in ds])
                              for k, ds in r.deps.items()}, provider=provider(r))
        for r in resources]), None)
    out |= {(d.policyName, d.enforcementLevel, d.urn, d.message.split(": cannot")[0])
            for d in response.diagnostics}
    return out


def _broken(cloud):
    resources = CLUSTERS[cloud]()
    first = resources[0]
    first.props["tags" if cloud != "gcp" else "labels"] = {}
    if cloud == "aws":
        find(resources, "LustreFileSystem").props["storageCapacity"] = UNKNOWN
    return resources


@pytest.mark.parametrize("cloud", sorted(CLUSTERS))
@pytest.mark.parametrize("build", [lambda c: CLUSTERS[c](), _broken], ids=["valid", "broken"])
def test_both_serving_paths_give_the_same_findings(cloud, build):
    base = stock._PolicyAnalyzerServicer
    assert analyzer.compatible(base)
    fast = _diagnostics(_servicer(analyzer.make(base)), build(cloud))
    slow = _diagnostics(_servicer(base), build(cloud))
    assert fast == slow
    assert bool(fast) == (build is _broken)   # the broken stacks do have findings


def _remediate(servicer, levels):
    servicer.Configure(apb.ConfigureAnalyzerRequest(policyConfig={
        name: apb.PolicyConfig(enforcementLevel=level, properties=_struct({}))
        for name, level in levels.items()}), None)
    r = CLUSTERS["aws"]()[0]
    response = servicer.Remediate(apb.AnalyzeRequest(
        type=r.type, name=r.name, urn=r.urn, properties=_struct(engine_value(r.props))), None)
    return ([(x.policy_name, x.reason) for x in response.not_applicable],
            [(x.policyName, x.diagnostic) for x in response.remediations])


@pytest.mark.parametrize("levels", [
    {},
    # required-tags and no-public-ingress are resource policies; spend-limit a stack policy,
    # which pulumi_policy never asks to remediate.
    {"required-tags": apb.REMEDIATE, "no-public-ingress": apb.REMEDIATE,
     "spend-limit": apb.REMEDIATE},
], ids=["default-levels", "set-to-remediate"])
def test_remediate_answers_as_pulumi_policy_does_without_reading_the_resource(levels):
    """The engine sends Remediate before Analyze for every resource; the analyzer answers it
    without deserialising the request, and the answer is pulumi_policy's own."""
    base = stock._PolicyAnalyzerServicer
    fast = _remediate(_servicer(analyzer.make(base)), levels)
    assert fast == _remediate(_servicer(base), levels)
    expected = sorted(name for name in levels if name != "spend-limit")
    assert sorted(name for name, _ in fast[0]) == expected
    assert fast[1] == []
