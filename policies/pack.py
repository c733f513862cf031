"""The rules as CrossGuard policies: thin wrappers that turn pulumi_policy arguments into views.

Imported by __main__.py (which only constructs the PolicyPack) and by nothing at import time that
writes to stdout: the engine reads the pack's first stdout line as its gRPC port.
"""
from __future__ import annotations

from typing import Any, Callable

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

from policies.model import (
    UNKNOWN_STRING_SENTINEL,
    UnknownValue,
    from_policy_resources,
    from_resource_args,
    undecided_message,
)
from policies.rules import RULES, Rule

PACK_NAME = "trainstack-guardrails"
LEVELS = {"advisory": EnforcementLevel.ADVISORY, "mandatory": EnforcementLevel.MANDATORY,
          "remediate": EnforcementLevel.REMEDIATE, "disabled": EnforcementLevel.DISABLED}


class _Undecided(UnknownValueError):
    """pulumi_policy's own error, so the analyzer reports its advisory "can't run policy ...
    during preview: <message>" diagnostic; the message says what waits for apply."""

    def __init__(self, err: UnknownValue):
        super().__init__(UNKNOWN_STRING_SENTINEL, [err.resource.name, *err.path.split(".")])
        self.message = undecided_message(err)


def _unknown(err: UnknownValue) -> UnknownValueError:
    return _Undecided(err)


def _resource_validate(rule: Rule) -> Callable[[ResourceValidationArgs, ReportViolation], None]:
    def validate(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
        try:
            found = rule.run_resource(from_resource_args(args), args.get_config() or {})
        except UnknownValue as err:
            raise _unknown(err) from None
        for v in found:
            report_violation(v.message, args.urn)
    return validate


def _stack_validate(rule: Rule) -> Callable[[StackValidationArgs, ReportViolation], None]:
    def validate(args: StackValidationArgs, report_violation: ReportViolation) -> None:
        try:
            found = rule.run_stack(from_policy_resources(args.resources), args.get_config() or {})
        except UnknownValue as err:
            raise _unknown(err) from None
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
