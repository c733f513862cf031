"""How a plan is chosen (--stack, or --spec with --cloud) and where the project is
(`find_project`: --project DIR, else Pulumi.yaml from the working directory upward), with the
options that mean the same thing in every command that renders a plan."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from trainstack import PROJECT_DIR
from trainstack.plan.stacks import find_project, find_project_or_none
from trainstack_components.clouds import names as implemented_clouds
from trainstack_components.errors import SpecError

__all__ = ["find_project", "find_project_or_none", "project_dir", "render_plan"]

# `trainstack --project DIR <command>` (or TRAINSTACK_PROJECT) sets this for every command.
_PROJECT_OVERRIDE: dict[str, Optional[Path]] = {"dir": None}


def set_project_override(folder: Optional[Path]) -> None:
    _PROJECT_OVERRIDE["dir"] = folder


def use_project(folder: Optional[Path]) -> None:
    """A command's own --project (as after the command name) means the same as the global one."""
    if folder is not None:
        set_project_override(folder)


def project_dir(override: Optional[Path] = None) -> Path:
    """The project a --stack command works in (SpecError, exit 2, when there is none)."""
    return find_project(override=override or _PROJECT_OVERRIDE["dir"])


def _cloud_name(value: Optional[str]) -> Optional[str]:
    return value.strip().lower() if isinstance(value, str) else value


CLOUD_CHOICES = " | ".join(implemented_clouds())
StackOpt = typer.Option(None, "--stack", help="Stack name: stacks/Pulumi.<NAME>.yaml of the "
                        "project (found from the current folder upward).")
RequiredStackOpt = typer.Option(..., "--stack", help="Stack name: stacks/Pulumi.<NAME>.yaml of "
                                "the project (found from the current folder upward).")
ProjectOpt = typer.Option(None, "--project", help="The trainstack project folder (default: the "
                          "nearest Pulumi.yaml from the current folder upward).")
SpecOpt = typer.Option(None, "--spec", help="A cluster.yaml (with --cloud, unless it names one "
                       "cloud).")
CloudOpt = typer.Option(None, "--cloud", callback=_cloud_name,
                        help=f"{CLOUD_CHOICES} (with --spec; default: the spec's only cloud).")


def stack_or_spec_config(stack: Optional[str], spec: Optional[Path], cloud: Optional[str],
                         project: Optional[Path] = None):
    """(name, config, project folder) for --stack NAME or --spec FILE [--cloud CLOUD]."""
    from trainstack.plan.stacks import only_cloud, spec_file_config, stack_config
    cloud = _cloud_name(cloud)
    if stack and (spec or cloud):
        raise SpecError("--stack", "cannot be combined with --spec/--cloud.",
                        "Pass either --stack NAME or --spec FILE --cloud CLOUD.")
    if stack:
        folder = project_dir(project)
        return stack, stack_config(folder, stack, also="or pass --spec FILE --cloud CLOUD"), folder
    if spec:
        cloud = cloud or only_cloud(spec)
        override = project or _PROJECT_OVERRIDE["dir"]
        found = find_project(override=override) if override else find_project_or_none()
        return cloud, spec_file_config(spec, cloud), found or PROJECT_DIR
    if cloud:
        raise SpecError("--cloud", "needs a spec to build.", "Pass --spec FILE with it, or "
                        "--stack NAME instead.")
    raise SpecError("--stack / --spec", "neither a stack nor a spec was given.",
                    "Pass --stack aws (in a project `trainstack init` made), or --spec "
                    "cluster.yaml.")


def render_plan(stack: Optional[str], spec: Optional[Path], cloud: Optional[str],
                project: Optional[Path] = None):
    from trainstack.plan.engine import render
    name, config, folder = stack_or_spec_config(stack, spec, cloud, project)
    return render(config, stack=name, project_dir=folder)
