"""The trainstack guardrails: one module per concern, each a pure function over `Resource` views.

A stack rule is `check(resources, config) -> list[Violation]`; a resource rule is
`check(resource, config) -> list[Violation]` and never reads dependencies (the engine's per-resource
Analyze call has none). `RULES` is the single list both runners use: policies/pack.py wraps it as
CrossGuard policies, policies/runner.py runs it offline for `trainstack check`.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Optional

from policies.inventory import tag_value, tags_of
from policies.model import Resource, Violation
from policies.rules import (
    bucket_retained,
    encryption_at_rest,
    no_public_ingress,
    rdma_for_multinode,
    required_tags,
    spend_limit,
    storage_same_zone,
)

ADVISORY, MANDATORY, DISABLED, REMEDIATE = "advisory", "mandatory", "disabled", "remediate"
LEVELS = (ADVISORY, MANDATORY, REMEDIATE, DISABLED)
SEVERITIES = ("low", "medium", "high", "critical")

# Where each policy is documented: docs/policies.md, one section per policy (anchor = its name).
DOCS_URL = "https://github.com/trainstack/trainstack/blob/main/docs/policies.md"

# Per-resource exemptions, as Checkov's `#checkov:skip=<check>:<reason>` comments do: a tag (GCP:
# label) naming the policies to skip, separated by commas or spaces (GCP label values allow
# neither, so there "__" separates), or "all"; or a policy's `skipResources` config list of
# resource names or URNs. An exempt resource is left out of stack policies' inputs (an exempt
# GPU group is not priced) and its findings are dropped.
SKIP_TAG = "trainstack:policy-skip"
SKIP_SCHEMA = {
    "type": "array", "items": {"type": "string", "minLength": 1}, "default": [],
    "description": "Resource names or URNs this policy does not judge (documented exemptions).",
}
_SEPARATORS = re.compile(r"[,;\s]+|__")


def skip_names(r: Resource) -> frozenset[str]:
    """The policy names (or "all") the resource's skip tag exempts it from."""
    tags = tags_of(r) if r.cloud in ("aws", "gcp", "azure", "alicloud") else {}
    value = tag_value(r, tags, SKIP_TAG) if isinstance(tags, dict) else None
    return frozenset(n for n in _SEPARATORS.split(str(value or "").strip().lower()) if n)


# Resource id -> skip_names(resource), computed once per stack by a runner that judges the same
# resources with every rule (policies/runner.py); without it each rule reads the tags again.
SkipNames = Mapping[int, frozenset]


@dataclass(frozen=True)
class Rule:
    name: str
    description: str
    enforcement_level: str
    kind: str                                   # "stack" | "resource"
    check: Callable[..., list]
    config_schema: Mapping[str, Any] = field(default_factory=dict)   # JSON-schema properties
    required: tuple[str, ...] = ()
    summary: Optional[Callable[..., str]] = None  # a one-line note for reports, e.g. the estimate
    severity: str = "medium"
    remediation: str = ""
    scope: str = ""                             # which resources it judges, for the docs

    @property
    def url(self) -> str:
        return f"{DOCS_URL}#{self.name}"

    @property
    def schema(self) -> dict[str, Any]:
        """The config schema the pack advertises: the rule's own properties plus skipResources."""
        return {**self.config_schema, "skipResources": SKIP_SCHEMA}

    def exempt(self, r: Resource, config: Mapping[str, Any],
               skips: Optional[SkipNames] = None) -> bool:
        listed = config.get("skipResources") or ()
        if listed and (r.name in listed or r.urn in listed):
            return True
        names = skips.get(id(r)) if skips is not None else None
        if names is None:
            names = skip_names(r)
        return self.name in names or "all" in names

    def run_stack(self, resources: list[Resource], config: Mapping[str, Any],
                  skips: Optional[SkipNames] = None) -> list[Violation]:
        exempt = {r.urn for r in resources if self.exempt(r, config, skips)}
        kept = [r for r in resources if r.urn not in exempt] if exempt else resources
        return [v for v in self.check(kept, config) if v.urn not in exempt]

    def run_resource(self, r: Resource, config: Mapping[str, Any],
                     skips: Optional[SkipNames] = None) -> list[Violation]:
        return [] if self.exempt(r, config, skips) else self.check(r, config)


def _rule(module: Any) -> Rule:
    assert module.SEVERITY in SEVERITIES, module.NAME
    return Rule(module.NAME, module.DESCRIPTION, module.ENFORCEMENT_LEVEL, module.KIND,
                module.check, getattr(module, "CONFIG_SCHEMA", {}),
                tuple(getattr(module, "REQUIRED", ())), getattr(module, "summary", None),
                module.SEVERITY, module.REMEDIATION.strip(), module.SCOPE.strip())


RULES: tuple[Rule, ...] = tuple(_rule(m) for m in (
    storage_same_zone, spend_limit, required_tags, rdma_for_multinode, no_public_ingress,
    encryption_at_rest, bucket_retained))

BY_NAME = {r.name: r for r in RULES}
