"""The trainstack guardrails: one module per concern, each a pure function over `Resource` views.

A stack rule is `check(resources, config) -> list[Violation]`; a resource rule is
`check(resource, config) -> list[Violation]` and never reads dependencies (the engine's per-resource
Analyze call has none). `RULES` is the single list both runners use: policies/pack.py wraps it as
CrossGuard policies, policies/runner.py runs it offline for `trainstack check`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Collection, Mapping, Optional

from trainstack_policies import exemptions
from trainstack_policies.model import Resource, Violation
from trainstack_policies.rules import (
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

# Exemptions (policies/exemptions.py): a tag on the resource itself naming the policies to skip,
# or a policy's `skipResources` config list of URNs or type::name patterns; never a provider's
# default tags, and never a bare name. Every exemption is reported, not just applied.
SKIP_SCHEMA = exemptions.SKIP_SCHEMA
skip_names = exemptions.skip_names

# Resource id -> skip_names(resource), computed once per stack by a runner that judges the same
# resources with every rule (policies/runner.py); without it each rule reads the tags again.
SkipNames = Mapping[int, frozenset]

# How a rule reports a decision it cannot make at preview (a value unknown until apply, GPU
# capacity it cannot size): "mandatory" reports "cannot decide: ..." as a violation of the
# policy, "advisory" leaves it to the engine's advisory "can't run policy" note.
UNDECIDED_LEVELS = ("mandatory", "advisory")


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
    undecided_default: str = "advisory"         # see UNDECIDED_LEVELS
    # A resource rule's look across resources (run with the stack), for what one Analyze call
    # cannot see: `check_stack(resources, config) -> list[Violation]`.
    stack_check: Optional[Callable[..., list]] = None
    # A resource rule's check gives [] for a resource of any type not in `types`, reading
    # nothing of it: the analyzer then does not call it for those (None: every type).
    types: Optional[frozenset[str]] = None

    @property
    def url(self) -> str:
        return f"{DOCS_URL}#{self.name}"

    @property
    def schema(self) -> dict[str, Any]:
        """The config schema the pack advertises: the rule's own properties plus skipResources."""
        return {**self.config_schema, "skipResources": SKIP_SCHEMA,
                "cannotDecide": {
                    "type": "string", "enum": list(UNDECIDED_LEVELS),
                    "default": self.undecided_default,
                    "description": "How a decision the policy cannot make at preview is "
                                   "reported: mandatory = a 'cannot decide: <what is unknown>' "
                                   "violation of this policy; advisory = the engine's advisory "
                                   "'can't run policy' note."}}

    def exemption(self, r: Resource, config: Mapping[str, Any],
                  skips: Optional[SkipNames] = None) -> Optional[exemptions.Exemption]:
        """Why `r` is exempt from this policy, or None."""
        listed = config.get("skipResources") or ()
        entry = exemptions.matching_entry(listed, r) if listed else None
        if entry is not None:
            return exemptions.Exemption(self.name, r.urn, r.name, r.type,
                                        f"skipResources entry {entry!r} in the policy config")
        names = skips.get(id(r)) if skips is not None else None
        if names is None:
            names = skip_names(r)
        if self.name in names or "all" in names:
            return exemptions.Exemption(self.name, r.urn, r.name, r.type,
                                        f"the resource's own {exemptions.SKIP_TAG} tag "
                                        f"({', '.join(sorted(names))})")
        return None

    def exempt(self, r: Resource, config: Mapping[str, Any],
               skips: Optional[SkipNames] = None) -> bool:
        return self.exemption(r, config, skips) is not None

    def exemptions(self, resources: list[Resource], config: Mapping[str, Any],
                   skips: Optional[SkipNames] = None) -> list[exemptions.Exemption]:
        if skips is not None and not config.get("skipResources"):
            # Without skipResources only a resource's own skip tag exempts it: the resources
            # whose skip names are known to be empty are passed over without a look-up each.
            resources = [r for r in resources if skips.get(id(r), True)]
        return [e for e in (self.exemption(r, config, skips) for r in resources) if e]

    def _exempt_urns(self, resources: list[Resource], config: Mapping[str, Any],
                     skips: Optional[SkipNames], exempt: Optional[Collection[str]]
                     ) -> Collection[str]:
        if exempt is not None:
            return exempt
        return {e.urn for e in self.exemptions(resources, config, skips)}

    def run_stack(self, resources: list[Resource], config: Mapping[str, Any],
                  skips: Optional[SkipNames] = None,
                  exempt: Optional[Collection[str]] = None) -> list[Violation]:
        """`exempt`: the URNs exemptions() gives for these resources, when the caller has them."""
        exempt = self._exempt_urns(resources, config, skips, exempt)
        kept = [r for r in resources if r.urn not in exempt] if exempt else resources
        return [v for v in self.check(kept, config) if v.urn not in exempt]

    def run_across(self, resources: list[Resource], config: Mapping[str, Any],
                   skips: Optional[SkipNames] = None,
                   exempt: Optional[Collection[str]] = None) -> list[Violation]:
        """The resource rule's stack_check, with the same exemptions as run_stack."""
        if self.stack_check is None:
            return []
        exempt = self._exempt_urns(resources, config, skips, exempt)
        kept = [r for r in resources if r.urn not in exempt] if exempt else resources
        return [v for v in self.stack_check(kept, config) if v.urn not in exempt]

    def run_resource(self, r: Resource, config: Mapping[str, Any],
                     skips: Optional[SkipNames] = None) -> list[Violation]:
        return [] if self.exempt(r, config, skips) else self.check(r, config)


def _rule(module: Any) -> Rule:
    assert module.SEVERITY in SEVERITIES, module.NAME
    return Rule(module.NAME, module.DESCRIPTION, module.ENFORCEMENT_LEVEL, module.KIND,
                module.check, getattr(module, "CONFIG_SCHEMA", {}),
                tuple(getattr(module, "REQUIRED", ())), getattr(module, "summary", None),
                module.SEVERITY, module.REMEDIATION.strip(), module.SCOPE.strip(),
                getattr(module, "UNDECIDED_DEFAULT", "advisory"),
                getattr(module, "check_stack", None), getattr(module, "TYPES", None))


RULES: tuple[Rule, ...] = tuple(_rule(m) for m in (
    storage_same_zone, spend_limit, required_tags, rdma_for_multinode, no_public_ingress,
    encryption_at_rest, bucket_retained))

BY_NAME = {r.name: r for r in RULES}
