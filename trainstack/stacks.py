"""Read stack files the way the Pulumi CLI does, without the CLI.

Project-level `config:` defaults in Pulumi.yaml come first (objects under `value:`), then the
stack file's keys replace them whole; objects travel as JSON strings, as in PULUMI_CONFIG.
"""
from __future__ import annotations

import json
from pathlib import Path

import yaml

from components.errors import SpecError
from components.program import PROJECT, PROVIDER_REGION_KEYS
from components.spec import load_spec


def stack_names(project_dir: Path) -> list[str]:
    return sorted(p.name[len("Pulumi."):-len(".yaml")]
                  for p in (project_dir / "stacks").glob("Pulumi.*.yaml"))


def _flat(value) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def _namespaced(key: str) -> str:
    return key if ":" in key else f"{PROJECT}:{key}"


def stack_config(project_dir: Path, stack: str) -> dict[str, str]:
    path = project_dir / "stacks" / f"Pulumi.{stack}.yaml"
    if not path.is_file():
        raise SpecError(f"--stack {stack}", f"has no stack file ({path} does not exist).",
                        "Use one of: " + (", ".join(stack_names(project_dir)) or "none yet")
                        + ", or pass --spec FILE --cloud CLOUD.")
    config: dict[str, str] = {}
    project = yaml.safe_load((project_dir / "Pulumi.yaml").read_text()) or {}
    for key, decl in (project.get("config") or {}).items():
        value = decl.get("value", decl.get("default")) if isinstance(decl, dict) else decl
        if value is not None:
            config[_namespaced(key)] = _flat(value)
    try:
        stack_file = yaml.safe_load(path.read_text()) or {}
    except yaml.YAMLError:
        raise SpecError(str(path), "is not valid YAML.", "Fix the stack file's syntax.") from None
    for key, value in (stack_file.get("config") or {}).items():
        config[_namespaced(key)] = _flat(value)
    return config


def spec_file_config(spec_path: Path, cloud: str) -> dict[str, str]:
    """Config for `--spec FILE --cloud CLOUD`: as if a stack file named just those two."""
    spec = load_spec(spec_path)
    config = {f"{PROJECT}:cloud": cloud, f"{PROJECT}:specFile": str(spec_path.resolve())}
    location = getattr(spec.clouds, cloud, None) if cloud in PROVIDER_REGION_KEYS else None
    if location is not None:
        config[PROVIDER_REGION_KEYS[cloud]] = location.region
    return config
