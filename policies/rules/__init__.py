"""The trainstack guardrails: one module per concern, each a pure function over `Resource` views.

A stack rule is `check(resources, config) -> list[Violation]`; a resource rule is
`check(resource, config) -> list[Violation]` and never reads dependencies (the engine's per-resource
Analyze call has none). `RULES` is the single list both runners use: policies/pack.py wraps it as
CrossGuard policies, policies/runner.py runs it offline for `trainstack check`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Optional

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


def _rule(module: Any) -> Rule:
    return Rule(module.NAME, module.DESCRIPTION, module.ENFORCEMENT_LEVEL, module.KIND,
                module.check, getattr(module, "CONFIG_SCHEMA", {}),
                tuple(getattr(module, "REQUIRED", ())), getattr(module, "summary", None))


RULES: tuple[Rule, ...] = tuple(_rule(m) for m in (
    storage_same_zone, spend_limit, required_tags, rdma_for_multinode, no_public_ingress,
    encryption_at_rest, bucket_retained))

BY_NAME = {r.name: r for r in RULES}
