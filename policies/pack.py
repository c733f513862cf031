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
    StackValidationArgs,
    StackValidationPolicy,
)
from pulumi_policy.proxy import UnknownValueError

from policies.model import UNKNOWN_STRING_SENTINEL, UnknownValue, from_policy_resources, from_resource_args
from policies.rules import RULES, Rule

PACK_NAME = "trainstack-guardrails"
LEVELS = {"advisory": EnforcementLevel.ADVISORY, "mandatory": EnforcementLevel.MANDATORY,
          "remediate": EnforcementLevel.REMEDIATE, "disabled": EnforcementLevel.DISABLED}


def _unknown(err: UnknownValue) -> UnknownValueError:
    # Re-raised as pulumi_policy's own error, the analyzer reports the usual advisory
    # "can't run policy ... during preview" diagnostic.
    return UnknownValueError(UNKNOWN_STRING_SENTINEL, [err.resource.name, *err.path.split(".")])


def _resource_validate(rule: Rule) -> Callable[[ResourceValidationArgs, ReportViolation], None]:
    def validate(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
        try:
            found = rule.check(from_resource_args(args), args.get_config() or {})
        except UnknownValue as err:
            raise _unknown(err) from None
        for v in found:
            report_violation(v.message, args.urn)
    return validate


def _stack_validate(rule: Rule) -> Callable[[StackValidationArgs, ReportViolation], None]:
    def validate(args: StackValidationArgs, report_violation: ReportViolation) -> None:
        try:
            found = rule.check(from_policy_resources(args.resources), args.get_config() or {})
        except UnknownValue as err:
            raise _unknown(err) from None
        for v in found:
            report_violation(v.message, v.urn or None)
    return validate


def _schema(rule: Rule) -> Any:
    if not rule.config_schema:
        return None
    return PolicyConfigSchema(properties=dict(rule.config_schema), required=list(rule.required))


def policies() -> list:
    out: list = []
    for rule in RULES:
        common = dict(name=rule.name, description=rule.description,
                      enforcement_level=LEVELS[rule.enforcement_level],
                      config_schema=_schema(rule))
        if rule.kind == "stack":
            out.append(StackValidationPolicy(validate=_stack_validate(rule), **common))
        else:
            out.append(ResourceValidationPolicy(validate=_resource_validate(rule), **common))
    return out
