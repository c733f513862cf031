"""The coverage table in docs/policies.md is the one policies/coverage.py renders from the code,
and every type it lists is one the pack's code names."""
from __future__ import annotations

from pathlib import Path

from trainstack_policies import coverage

ROOT = Path(__file__).resolve().parents[2]


def test_the_docs_coverage_table_is_current():
    text = (ROOT / "docs" / "policies.md").read_text(encoding="utf-8")
    start = text.index(coverage.BEGIN)
    end = text.index(coverage.END) + len(coverage.END)
    assert text[start:end] == coverage.markdown(), \
        "docs/policies.md is stale: run `python -m trainstack_policies.coverage docs/policies.md`"


def test_every_listed_type_is_named_in_the_pack_code():
    named: set[str] = set()
    for path in (ROOT / "policies").rglob("*.py"):
        if path.name != "coverage.py":
            named |= coverage._literals(str(path))
    for policy, types in coverage.coverage().items():
        assert types <= named, (policy, sorted(types - named))


def test_the_table_has_each_policy_and_the_new_types():
    table = coverage.markdown()
    from trainstack_policies.rules import RULES
    for rule in RULES:
        assert f"| `{rule.name}` |" in table
    for token in ("aws:ec2/capacityReservation:CapacityReservation",
                  "azure-native:containerservice:AgentPool", "alicloud:cs/nodePool:NodePool",
                  "aws:ec2/managedPrefixList:ManagedPrefixList",
                  "gcp:compute/networkFirewallPolicyRule:NetworkFirewallPolicyRule",
                  "alicloud:ecs/ecsDisk:EcsDisk"):
        assert f"`{token}`" in table
