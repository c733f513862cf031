"""Read stack files the way the Pulumi CLI does, without the CLI.

Project-level `config:` defaults in Pulumi.yaml come first (objects under `value:`), then the
stack file's keys replace them whole; objects travel as JSON strings, as in PULUMI_CONFIG.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

from trainstack_components.errors import SpecError
from trainstack_components.project import PROJECT, PROVIDER_REGION_KEYS


def load_yaml(path: Path, what: str):
    from trainstack_components.yaml_files import load_yaml as load
    return load(path, what)


def load_spec(path: Path):
    from trainstack_components.spec import load_spec as load
    return load(path)

PROJECT_FILE = "Pulumi.yaml"


def _project_file_data(project_dir: Path) -> dict:
    data = load_yaml(project_dir / PROJECT_FILE, "Pulumi project file")
    if not isinstance(data, dict):
        raise SpecError(str(project_dir / PROJECT_FILE), "is not a YAML mapping.",
                        "Run `trainstack init` in an empty folder for a working project.")
    return data


def is_trainstack_project(project_dir: Path) -> bool:
    """A Pulumi project of trainstack's: Pulumi.yaml names the project `trainstack` or declares a
    config key in the `trainstack:` namespace (what `trainstack init` writes)."""
    if not (project_dir / PROJECT_FILE).is_file():
        return False
    data = _project_file_data(project_dir)
    config = data.get("config")
    if not isinstance(config, dict):
        config = {}
    return data.get("name") == PROJECT or any(str(k).startswith(f"{PROJECT}:") for k in config)


def find_project_or_none(start: Optional[Path] = None) -> Optional[Path]:
    """The nearest folder from `start` (default: the working directory) upward that holds a
    Pulumi.yaml, as the Pulumi CLI looks for it; None when there is none or it is not trainstack's."""
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / PROJECT_FILE).is_file():
            return folder if is_trainstack_project(folder) else None
    return None


def find_project(start: Optional[Path] = None, override: Optional[Path] = None) -> Path:
    """The trainstack project every command works in: `--project DIR` when given, else the
    nearest Pulumi.yaml from the working directory upward. SpecError (exit 2) when there is none."""
    if override is not None:
        folder = Path(override)
        if not (folder / PROJECT_FILE).is_file():
            raise SpecError(f"--project {override}", f"has no {PROJECT_FILE}.",
                            "Pass the folder `trainstack init` created, or run `trainstack init "
                            f"{override}`.")
        if not is_trainstack_project(folder):
            raise SpecError(f"--project {override}", "is a Pulumi project but not a trainstack "
                            "one (its Pulumi.yaml declares no trainstack: config).",
                            "Run `trainstack init` in a new folder.")
        return folder.resolve()
    found = find_project_or_none(start)
    if found is None:
        here = (start or Path.cwd()).resolve()
        raise SpecError("project", f"no trainstack project in {here} or any folder above it (no "
                        f"{PROJECT_FILE} with trainstack config).",
                        "Run `trainstack init` here, cd into your project, or pass --project DIR.")
    return found


def stacks_dir(project_dir: Path) -> Path:
    """Where the stack files live: Pulumi.yaml's stackConfigDir, else the project folder."""
    sub = _project_file_data(project_dir).get("stackConfigDir")
    return project_dir / sub if isinstance(sub, str) and sub else project_dir


def stack_names(project_dir: Path) -> list[str]:
    return sorted(p.name[len("Pulumi."):-len(".yaml")]
                  for p in stacks_dir(project_dir).glob("Pulumi.*.yaml"))


def _flat(value) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def _namespaced(key: str) -> str:
    return key if ":" in key else f"{PROJECT}:{key}"


def stack_config(project_dir: Path, stack: str, also: str = "") -> dict[str, str]:
    """The stack's flat config. `also`: another way out the calling command accepts (plan and
    check take --spec FILE --cloud CLOUD; up, connect and status do not, so they never say it)."""
    path = stacks_dir(project_dir) / f"Pulumi.{stack}.yaml"
    if not path.is_file():
        raise SpecError(f"--stack {stack}", f"has no stack file ({path} does not exist).",
                        "Use one of: " + (", ".join(stack_names(project_dir)) or "none yet")
                        + (f", {also}." if also else "."))
    config: dict[str, str] = {}
    project = _project_file_data(project_dir)
    declared = project.get("config") or {}
    if not isinstance(declared, dict):
        raise SpecError(str(project_dir / PROJECT_FILE), "config: is not a mapping.",
                        "Declare config keys as `trainstack:specFile: {value: cluster.yaml}`.")
    for key, decl in declared.items():
        value = decl.get("value", decl.get("default")) if isinstance(decl, dict) else decl
        if value is not None:
            config[_namespaced(str(key))] = _flat(value)
    stack_file = load_yaml(path, "stack file") or {}
    stack_values = stack_file.get("config") if isinstance(stack_file, dict) else None
    if not isinstance(stack_values, (dict, type(None))) or not isinstance(stack_file, dict):
        raise SpecError(str(path), "is not a mapping with a `config:` mapping.",
                        "A stack file is `config:` followed by `trainstack:cloud: aws` and so on.")
    for key, value in (stack_values or {}).items():
        config[_namespaced(str(key))] = _flat(value)
    return config


def only_cloud(spec_path: Path) -> str:
    """`--spec FILE` without --cloud: the one cloud the spec configures, else SpecError."""
    configured = load_spec(spec_path).clouds.configured()
    if len(configured) != 1:
        raise SpecError("--cloud", f"is needed: {spec_path} configures {len(configured)} "
                        f"clouds ({', '.join(configured)}).",
                        f"Pass --cloud {configured[0]} (or another of them).")
    return configured[0]


def spec_file_config(spec_path: Path, cloud: str) -> dict[str, str]:
    """Config for `--spec FILE --cloud CLOUD`: as if a stack file named just those two."""
    spec = load_spec(spec_path)
    config = {f"{PROJECT}:cloud": cloud, f"{PROJECT}:specFile": str(spec_path.resolve())}
    location = getattr(spec.clouds, cloud, None) if cloud in PROVIDER_REGION_KEYS else None
    if location is not None:
        config[PROVIDER_REGION_KEYS[cloud]] = location.region
    return config
