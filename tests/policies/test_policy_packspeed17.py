"""AnalyzeStack judges the inputs it is sent, also for a resource whose Analyze call cut a list
input (a launch template's network interfaces, read entry by entry: analyzer._View.entries).
Such a reading is not reused by the stack (packspeed17: comparing the whole inputs costs more
than reading the list again), and whatever the stack does with it, a change to the list between
Analyze and AnalyzeStack must be seen."""
from __future__ import annotations

from pulumi_policy import policy as stock

from tests.policies.test_policy_analyzer_fallback import _servicer
from tests.policies.test_policy_analyzer_reads import _analyze_each, _stack
from tests.policy_fixtures import CLUSTERS, find
from trainstack_policies import analyzer


def _without_efa(resources):
    # The p5 template's 32 EFA-only interfaces (tests/policy_fixtures.py) become plain ones:
    # rdma-for-multinode then finds a multi-node p5 group without EFA.
    lt = find(resources, "LaunchTemplate")
    lt.props["networkInterfaces"] = [{**n, "interfaceType": "interface"}
                                     for n in lt.props["networkInterfaces"]]
    return resources


def test_analyze_stack_reads_a_launch_templates_interfaces_as_sent_after_analyze():
    make = analyzer.make(stock._PolicyAnalyzerServicer)
    for analyzed, judged in ((CLUSTERS["aws"](), _without_efa(CLUSTERS["aws"]())),
                             (_without_efa(CLUSTERS["aws"]()), CLUSTERS["aws"]())):
        seen_first = _servicer(make)
        _analyze_each(seen_first, analyzed)
        after_analyze = _stack(seen_first, judged)
        fresh = _stack(_servicer(make), judged)
        other = _stack(_servicer(make), analyzed)
        assert after_analyze == fresh
        # The change is visible: the template Analyze saw is judged otherwise.
        assert fresh != other
        assert any(policy == "rdma-for-multinode" for policy, _, _ in fresh + other)
