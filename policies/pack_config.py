"""Policy configuration the way the Pulumi CLI builds it, for runners that have no CLI.

`pulumi preview --policy-pack-config FILE` reads the CrossGuard config format
(`{"all": "advisory", "spend-limit": {"enforcementLevel": "mandatory", "maxMonthlyUsd": 1000}}`),
starts from each policy's enforcement level and schema defaults, applies `all` and then each
policy's entry, and validates the result against each policy's schema with gojsonschema
(pulumi/pulumi pkg/resource/analyzer/config.go: parsePolicyPackConfig, ReconcilePolicyPackConfig,
applyConfig, validatePolicyPackConfig). This module does the same steps with `jsonschema`, so
`trainstack check` and the gRPC tests configure the rules exactly as `pulumi preview` would.
"""
from __future__ import annotations

import copy
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Optional

from trainstack_policies.rules import LEVELS, RULES, Rule


class PolicyConfigError(ValueError):
    """The policy config is not valid; the message names the policy and the problem."""


@dataclass
class PolicyConfig:
    enforcement_level: str
    properties: dict[str, Any] = field(default_factory=dict)


def config_schema(rule: Rule) -> dict[str, Any]:
    """The JSON schema the CLI validates a policy's properties with (config.go convertSchema)."""
    schema: dict[str, Any] = {"type": "object", "properties": copy.deepcopy(dict(rule.schema))}
    if rule.required:
        schema["required"] = list(rule.required)
    return schema


def defaults(rules: tuple[Rule, ...] = RULES) -> dict[str, PolicyConfig]:
    """Every policy at its own enforcement level, with its schema defaults (createConfigWithDefaults)."""
    return {r.name: PolicyConfig(r.enforcement_level,
                                 {k: copy.deepcopy(v["default"])
                                  for k, v in r.schema.items() if "default" in v})
            for r in rules}


def _level(value: Any, where: str) -> str:
    if not isinstance(value, str) or value not in LEVELS:
        raise PolicyConfigError(f"{where}: {value!r} is not a valid enforcement level "
                                f"(use one of {', '.join(LEVELS)})")
    return value


def parse(data: Any) -> dict[str, tuple[Optional[str], dict[str, Any]]]:
    """The CrossGuard config format -> {policy: (level or None, properties)} (parsePolicyPackConfig)."""
    if data is None:
        return {}
    if not isinstance(data, Mapping):
        raise PolicyConfigError("the policy config must be a JSON object keyed by policy name "
                                "(or \"all\")")
    parsed: dict[str, tuple[Optional[str], dict[str, Any]]] = {}
    for name, value in data.items():
        if isinstance(value, str):
            parsed[name] = (_level(value, name), {})
        elif isinstance(value, Mapping):
            props = dict(value)
            level = None
            if "enforcementLevel" in props:
                level = _level(props.pop("enforcementLevel"), f"{name}.enforcementLevel")
            if level is None and not props:
                continue
            parsed[name] = (level, props)
        else:
            raise PolicyConfigError(f"{name}: {value!r} is not a valid value; it must be an "
                                    "enforcement level string or an object")
    return parsed


def load(path: Path) -> dict[str, tuple[Optional[str], dict[str, Any]]]:
    try:
        text = path.read_text()
    except OSError as err:
        raise PolicyConfigError(f"{path}: cannot be read ({err.strerror})") from None
    return parse_text(path, text)


def parse_text(path: Path, text: str) -> dict[str, tuple[Optional[str], dict[str, Any]]]:
    """The text of the file at `path` parsed; an empty file sets nothing."""
    if not text.strip():
        return {}
    try:
        return parse(json.loads(text, parse_constant=_no_constant))
    except json.JSONDecodeError as err:
        raise PolicyConfigError(f"{path}: is not valid JSON ({err.msg}, line {err.lineno})") \
            from None


def _no_constant(name: str) -> Any:
    # Python's json reads NaN and Infinity, which JSON does not have; a NaN maxMonthlyUsd
    # compares false with every estimate, so the spend limit would always pass.
    raise PolicyConfigError(f"{name} is not a JSON number (JSON has no NaN or Infinity); "
                            "write a finite number such as 50000")


def unknown_names(given: Mapping[str, Any], rules: tuple[Rule, ...] = RULES) -> list[str]:
    """A policy name the pack does not have, said the way `trainstack check` and the pack's
    Configure both refuse it."""
    known = {r.name for r in rules}
    return [f"{name!r} is not a policy of this pack (known: {', '.join(sorted(known))}); "
            "the Pulumi CLI ignores it too" for name in given if name not in known | {"all"}]


def unknown_properties(rule: Rule, properties: Mapping[str, Any]) -> list[str]:
    """A setting the policy does not take (a typo such as maxMonthlyUSD), or []."""
    unknown = sorted(set(properties) - set(rule.schema) - {"enforcementLevel"})
    if not unknown:
        return []
    return [f"{rule.name}: {', '.join(unknown)} not in the policy's schema "
            f"(it takes: {', '.join(rule.schema)})"]


def _json_numbers(value: Any) -> Any:
    """`value` with every whole float as an int: JSON has one number type, and a Struct sent
    over gRPC carries 1000 as 1000.0, so the refusal reads the same from the file and over
    gRPC ("-250 is less than ...", not "-250.0")."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, list):
        return [_json_numbers(v) for v in value]
    if isinstance(value, dict):
        return {k: _json_numbers(v) for k, v in value.items()}
    return value


def _finite_number(checker: Any, value: Any) -> bool:
    # JSON has no NaN or Infinity; a NaN cap compares false with every estimate.
    # An integer past float64 (1 and 400 zeros) is no number either: the Pulumi CLI (Go
    # float64) cannot read it, and the rules read numbers as floats.
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    if isinstance(value, int):
        try:
            value = float(value)
        except OverflowError:
            return False
    return math.isfinite(value)


_FINITE_DRAFT7: list[Any] = []


def _validator(rule: Rule) -> Any:
    """The draft 7 validator of the policy's config schema (config_schema), its "number"
    finite only (the class is built once)."""
    if not _FINITE_DRAFT7:
        import jsonschema
        draft7 = jsonschema.Draft7Validator
        _FINITE_DRAFT7.append(jsonschema.validators.extend(
            draft7, type_checker=draft7.TYPE_CHECKER.redefine("number", _finite_number)))
    return _FINITE_DRAFT7[0](config_schema(rule))


def schema_errors(rule: Rule, properties: Mapping[str, Any]) -> list[str]:
    """What the policy's JSON schema refuses in `properties` (maxMonthlyUsd "1000", a negative
    fee, a bare skip name), one line each, as "policy: key.path: jsonschema's message". The one
    check both `trainstack check` (reconcile) and the pack's Configure make, so a setting one
    refuses the other refuses in the same words (the CLI validates before it sends; a runner
    that does not would otherwise have the rule drop the setting in silence)."""
    errors = []
    for error in _validator(rule).iter_errors(_json_numbers(dict(properties))):
        where = ".".join(str(p) for p in error.absolute_path)
        message = error.message
        if error.validator == "pattern" and isinstance(error.schema, Mapping) and \
                error.schema.get("description"):
            # A value its pattern refuses, said by what the value must be (storage-same-zone's
            # zones: "'banana' is not a zone name or AWS AZ ID as the provider writes it (...)"),
            # not by the regular expression.
            message = f"{error.instance!r} is not {error.schema['description']}"
        errors.append(f"{rule.name}: {where + ': ' if where else ''}{message}")
    return sorted(errors)


def reconcile(given: Optional[Mapping[str, tuple[Optional[str], dict[str, Any]]]] = None,
              rules: tuple[Rule, ...] = RULES) -> tuple[dict[str, PolicyConfig], list[str]]:
    """Defaults, then `all`, then each policy's entry; validated. Returns (config, warnings)."""
    result = defaults(rules)
    given = dict(given or {})
    all_level = given.get("all", (None, {}))[0]
    if all_level:
        for config in result.values():
            config.enforcement_level = all_level
    warnings = unknown_names(given, rules)
    for name, (level, props) in given.items():
        if name not in result:
            continue
        if level:
            result[name].enforcement_level = level
        result[name].properties.update(copy.deepcopy(props))
    errors = []
    for rule in rules:
        errors += schema_errors(rule, result[rule.name].properties)
        if rule.name in given:
            warnings += unknown_properties(rule, result[rule.name].properties)
    if errors:
        raise PolicyConfigError("; ".join(errors))
    return result, warnings
