"""Run the rules without an engine: the offline half of "one set of rules, two ways to run it".

`evaluate()` applies every rule to `Resource` views exactly as the pack does (policies/pack.py):
stack rules see all resources, resource rules see one resource at a time with no dependencies
(the engine's Analyze call carries none), a disabled policy is skipped, `remediate` counts as
mandatory (none of these policies remediates), and a value unknown during preview makes the
policy "unknown" (advisory), as pulumi_policy's analyzer does.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Optional

from trainstack_policies.model import Resource, UnknownValue, Violation, undecided_message
from trainstack_policies.pack_config import PolicyConfig, defaults
from trainstack_policies.rules import DISABLED, MANDATORY, REMEDIATE, RULES, Rule, skip_names


@dataclass
class Verdict:
    policy: str
    description: str
    enforcement_level: str        # as configured
    kind: str
    severity: str = "medium"
    url: str = ""
    remediation: str = ""
    violations: list[Violation] = field(default_factory=list)
    note: str = ""
    unknown: str = ""             # why the policy could not run (a value unknown during preview)
    exemptions: list = field(default_factory=list)   # trainstack_policies.exemptions.Exemption

    @property
    def reported_level(self) -> str:
        """The level the engine reports violations at (remediate -> mandatory)."""
        return MANDATORY if self.enforcement_level == REMEDIATE else self.enforcement_level

    @property
    def status(self) -> str:
        if self.enforcement_level == DISABLED:
            return "disabled"
        if self.violations:
            return "fail"
        return "unknown" if self.unknown else "pass"

    @property
    def blocking(self) -> bool:
        return self.status == "fail" and self.reported_level == MANDATORY

    def to_json(self) -> dict:
        return {"policy": self.policy, "enforcementLevel": self.enforcement_level,
                "severity": self.severity, "url": self.url, "status": self.status,
                "blocking": self.blocking, "note": self.note,
                "unknown": self.unknown,
                "exemptions": [{"urn": e.urn, "resource": e.name, "type": e.type, "how": e.how}
                               for e in self.exemptions],
                "violations": [{"urn": v.urn, "resource": v.resource, "problem": v.problem,
                                "found": v.found, "expected": v.expected, "fix": v.fix,
                                "message": v.message} for v in self.violations]}


class _Stack:
    """What every rule reads of the same resources, worked out once per evaluate(): each
    resource's skip-tag exemptions and its dependency-free view for resource rules."""

    def __init__(self, resources: list[Resource]):
        self.resources = resources
        self.skips: dict[int, frozenset] = {}
        self._bare: Optional[list[Resource]] = None
        for r in resources:
            self.skips[id(r)] = skip_names(r)

    @property
    def bare(self) -> list[Resource]:
        """The resources as the engine's Analyze call sees them: no dependencies."""
        if self._bare is None:
            self._bare = [r.without_deps() for r in self.resources]
            for r, b in zip(self.resources, self._bare, strict=True):
                self.skips[id(b)] = self.skips[id(r)]
        return self._bare


def _run(rule: Rule, stack: _Stack, props: Mapping) -> tuple[list[Violation], list[str]]:
    if rule.kind == "stack":
        return rule.run_stack(stack.resources, props, stack.skips), []
    found: list[Violation] = []
    undecided: list[str] = []
    for resource in stack.bare:
        try:
            found += rule.run_resource(resource, props, stack.skips)
        except UnknownValue as unknown:
            # The engine asks per resource: one undecided resource leaves the others judged.
            if props.get("cannotDecide", rule.undecided_default) == MANDATORY:
                found.append(undecided_violation(unknown))
            else:
                undecided.append(undecided_message(unknown))
    try:
        found += rule.run_across(stack.resources, props, stack.skips)
    except UnknownValue as unknown:
        if props.get("cannotDecide", rule.undecided_default) == MANDATORY:
            found.append(undecided_violation(unknown))
        else:
            undecided.append(undecided_message(unknown))
    return found, undecided


def undecided_violation(err: UnknownValue) -> Violation:
    r = err.resource
    return Violation(r.urn, f"{r.name} ({r.type})", f"cannot decide: {err}", err.FOUND,
                     err.EXPECTED, err.FIX)


def evaluate(resources: list[Resource], config: Optional[Mapping[str, PolicyConfig]] = None,
             rules: tuple[Rule, ...] = RULES) -> list[Verdict]:
    config = dict(config or defaults(rules))
    stack = _Stack(resources)
    verdicts = []
    for rule in rules:
        cfg = config.get(rule.name) or PolicyConfig(rule.enforcement_level)
        verdict = Verdict(rule.name, rule.description, cfg.enforcement_level, rule.kind,
                          rule.severity, rule.url, rule.remediation)
        verdicts.append(verdict)
        if cfg.enforcement_level == DISABLED:
            continue
        verdict.exemptions = rule.exemptions(stack.resources, cfg.properties, stack.skips)
        try:
            verdict.violations, undecided = _run(rule, stack, cfg.properties)
            if undecided:
                verdict.unknown = (f"can't run policy '{rule.name}' during preview: "
                                   + "; ".join(undecided))
            if rule.summary is not None:
                verdict.note = rule.summary(resources, cfg.properties)
        except UnknownValue as unknown:
            verdict.violations = []
            if cfg.properties.get("cannotDecide", rule.undecided_default) == MANDATORY:
                verdict.violations = [undecided_violation(unknown)]
            else:
                verdict.unknown = (f"can't run policy '{rule.name}' during preview: "
                                   f"{undecided_message(unknown)}")
    return verdicts


def blocking(verdicts: list[Verdict]) -> bool:
    return any(v.blocking for v in verdicts)


