"""The rules as CrossGuard policies, and the analyzer the engine talks to.

Imported by __main__.py (which only constructs the PolicyPack) and by nothing at import time that
writes to stdout: the engine reads the pack's first stdout line as its gRPC port.

Two ways the same rules answer the engine:
- `policies()`: one pulumi_policy policy per rule, whose validate functions turn pulumi_policy
  arguments into views. pulumi_policy's own servicer runs them; it deserialises every resource
  once per policy (a 20,000-resource AnalyzeStack four times over).
- `Analyzer` (installed by `install_analyzer()` before PolicyPack() starts serving): the same
  gRPC service, but each request's resources are read once and every rule judges the same views.
  It also reports what pulumi_policy's callback API cannot: every exemption, as an advisory note.
  It subclasses pulumi_policy's servicer and uses its configuration and reporting helpers; when
  those are not there (another pulumi-policy), install_analyzer() leaves the stock servicer, and
  the policies still run through their validate functions.
"""
from __future__ import annotations

import gc
from typing import Any, Callable, Mapping, Optional

from pulumi_policy import (
    EnforcementLevel,
    PolicyConfigSchema,
    ReportViolation,
    ResourceValidationArgs,
    ResourceValidationPolicy,
    Severity,
    StackValidationArgs,
    StackValidationPolicy,
)
from pulumi_policy.proxy import UnknownValueError

from trainstack_policies import analyzer, serving
from trainstack_policies.analyzer import rule_config
from trainstack_policies.model import (
    UNKNOWN_STRING_SENTINEL,
    UnknownValue,
    from_policy_resources,
    from_resource_args,
    undecided_message,
)
from trainstack_policies.rules import RULES, Rule
from trainstack_policies.runner import undecided_violation

PACK_NAME = "trainstack-guardrails"
LEVELS = {"advisory": EnforcementLevel.ADVISORY, "mandatory": EnforcementLevel.MANDATORY,
          "remediate": EnforcementLevel.REMEDIATE, "disabled": EnforcementLevel.DISABLED}
BY_NAME = {r.name: r for r in RULES}


class _Undecided(UnknownValueError):
    """pulumi_policy's own error, so the analyzer reports its advisory "can't run policy ...
    during preview: <message>" diagnostic; the message says what waits for apply."""

    def __init__(self, err: UnknownValue):
        super().__init__(UNKNOWN_STRING_SENTINEL, [err.resource.name, *err.path.split(".")])
        self.message = undecided_message(err)


def _mandatory_undecided(rule: Rule, config: Mapping[str, Any]) -> bool:
    return config.get("cannotDecide", rule.undecided_default) == "mandatory"


def _resource_validate(rule: Rule) -> Callable[[ResourceValidationArgs, ReportViolation], None]:
    def validate(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
        config = rule_config(rule, args.get_config())
        try:
            found = rule.run_resource(from_resource_args(args), config)
        except UnknownValue as err:
            if not _mandatory_undecided(rule, config):
                raise _Undecided(err) from None
            found = [undecided_violation(err)]
        for v in found:
            report_violation(v.message, args.urn)
    return validate


def _stack_validate(rule: Rule) -> Callable[[StackValidationArgs, ReportViolation], None]:
    def validate(args: StackValidationArgs, report_violation: ReportViolation) -> None:
        config = rule_config(rule, args.get_config())
        try:
            found = rule.run_stack(from_policy_resources(args.resources), config)
        except UnknownValue as err:
            if not _mandatory_undecided(rule, config):
                raise _Undecided(err) from None
            found = [undecided_violation(err)]
        for v in found:
            report_violation(v.message, v.urn or None)
    return validate


def _schema(rule: Rule) -> Any:
    return PolicyConfigSchema(properties=dict(rule.schema), required=list(rule.required))


def policies() -> list:
    out: list = []
    for rule in RULES:
        common = dict(name=rule.name, description=rule.description,
                      enforcement_level=LEVELS[rule.enforcement_level],
                      config_schema=_schema(rule), severity=Severity(rule.severity),
                      remediation_steps=rule.remediation, url=rule.url)
        if rule.kind == "stack":
            out.append(StackValidationPolicy(validate=_stack_validate(rule), **common))
        else:
            out.append(ResourceValidationPolicy(validate=_resource_validate(rule), **common))
    return out


def install_analyzer() -> bool:
    """Serve with `Analyzer` when this pulumi-policy has the helpers it builds on, and with
    serving.Server (one thread, no pool hand-off per call) where this grpc allows."""
    from pulumi_policy import policy as stock

    base = getattr(stock, "_PolicyAnalyzerServicer", None)
    if base is None or not analyzer.compatible(base):
        return False
    serving.install(stock)
    # Swapping the SDK's servicer class for one built on it (analyzer.py) is the only hook
    # pulumi_policy leaves; its stubs declare the name a class, not a replaceable one.
    stock._PolicyAnalyzerServicer = analyzer.make(base)  # type: ignore[misc, assignment]
    # Everything imported so far (pulumi, grpc, protobuf, the rules) lives as long as the
    # process: moved out of the collector's sight, a full collection while the engine waits
    # scans only what the requests made (gc.freeze, the documented use: after start-up).
    gc.freeze()
    # What Analyze reads is kept for AnalyzeStack (analyzer._Reader), so the live objects grow
    # with the stack; a full collection every 10 middle-generation passes (the default) scanned
    # them again and again: over a third of the handlers' time at 20,000 resources. One in 100;
    # young objects are still collected as often as before.
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, 100)
    return True
