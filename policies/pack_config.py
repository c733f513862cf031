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
import re
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


_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "number": (int, float), "integer": (int, float), "string": (str,), "array": (list,),
    "object": (dict,), "boolean": (bool,)}


def _value_errors(schema: Mapping[str, Any], value: Any, where: str) -> list[str]:
    """What JSON Schema (the keywords the rules' schemas use: type, enum, minimum,
    exclusiveMinimum, minLength, pattern, items, uniqueItems, additionalProperties) finds
    wrong with `value`; no jsonschema needed, so the pack checks it in its own process."""
    kind = schema.get("type")
    if isinstance(kind, str) and kind in _JSON_TYPES:
        numeric = kind in ("number", "integer")
        if not isinstance(value, _JSON_TYPES[kind]) or (numeric and isinstance(value, bool)) \
                or (kind == "integer" and isinstance(value, float) and not value.is_integer()):
            return [f"{where}: {value!r} is not of type {kind!r}"]
        if isinstance(value, float) and not math.isfinite(value):
            return [f"{where}: {value!r} is not a finite number"]
    errors: list[str] = []
    if "enum" in schema and value not in schema["enum"]:
        errors.append(f"{where}: {value!r} is not one of {schema['enum']!r}")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            errors.append(f"{where}: {value!r} is less than the minimum of {schema['minimum']}")
        if "exclusiveMinimum" in schema and value <= schema["exclusiveMinimum"]:
            errors.append(f"{where}: {value!r} is less than or equal to the minimum of "
                          f"{schema['exclusiveMinimum']}")
    if isinstance(value, str):
        if len(value) < schema.get("minLength", 0):
            errors.append(f"{where}: {value!r} is too short")
        if "pattern" in schema and not re.search(schema["pattern"], value):
            errors.append(f"{where}: {value!r} does not match {schema['pattern']!r}")
    if isinstance(value, list):
        if isinstance(schema.get("items"), Mapping):
            for i, item in enumerate(value):
                errors += _value_errors(schema["items"], item, f"{where}.{i}")
        if schema.get("uniqueItems") and len({json.dumps(v, sort_keys=True) for v in value}) \
                != len(value):
            errors.append(f"{where}: has non-unique elements")
    if isinstance(value, dict) and isinstance(schema.get("additionalProperties"), Mapping):
        for key, item in value.items():
            errors += _value_errors(schema["additionalProperties"], item, f"{where}.{key}")
    return errors


def schema_errors(rule: Rule, properties: Mapping[str, Any]) -> list[str]:
    """A setting of a type or value the policy's schema refuses (maxMonthlyUsd "1000"), said
    the way the pack's Configure refuses it (the CLI validates before it sends; a runner that
    does not would otherwise have the rule drop the setting in silence)."""
    return [e for key, value in properties.items() if key in rule.schema
            for e in _value_errors(rule.schema[key], value, f"{rule.name}: {key}")]


def reconcile(given: Optional[Mapping[str, tuple[Optional[str], dict[str, Any]]]] = None,
              rules: tuple[Rule, ...] = RULES) -> tuple[dict[str, PolicyConfig], list[str]]:
    """Defaults, then `all`, then each policy's entry; validated. Returns (config, warnings)."""
    import jsonschema

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
        validator = jsonschema.Draft7Validator(config_schema(rule))
        for error in sorted(validator.iter_errors(result[rule.name].properties), key=str):
            where = ".".join(str(p) for p in error.absolute_path)
            errors.append(f"{rule.name}: {where + ': ' if where else ''}{error.message}")
        if rule.name in given:
            warnings += unknown_properties(rule, result[rule.name].properties)
    if errors:
        raise PolicyConfigError("; ".join(errors))
    return result, warnings
