"""What several commands share: how a plan is chosen (--stack, or --spec with --cloud), where the
project is (`find_project`: --project DIR, else Pulumi.yaml from the working directory upward),
the options that mean the same thing everywhere, and the consoles they print through."""
from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console

from trainstack import PROJECT_DIR, sizing
from trainstack.stacks import find_project, find_project_or_none
from trainstack_components.clouds import names as implemented_clouds
from trainstack_components.errors import SpecError

__all__ = ["find_project", "find_project_or_none", "project_dir", "render_plan"]

# `trainstack --project DIR <command>` (or TRAINSTACK_PROJECT) sets this for every command.
_PROJECT_OVERRIDE: dict[str, Optional[Path]] = {"dir": None}


def set_project_override(folder: Optional[Path]) -> None:
    _PROJECT_OVERRIDE["dir"] = folder


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
CnyRateOpt = typer.Option(None, "--cny-rate", help="CNY per USD (default: the catalog's stated "
                          "rate).")
IdleOverheadOpt = typer.Option(sizing.DEFAULT_IDLE_OVERHEAD, "--idle-overhead",
                               help="Idle/debug time as a fraction of the run.")
PreemptionOverheadOpt = typer.Option(sizing.DEFAULT_PREEMPTION_OVERHEAD, "--preemption-overhead",
                                     help="Spot: redone work as a fraction.")


def stack_or_spec_config(stack: Optional[str], spec: Optional[Path], cloud: Optional[str],
                         project: Optional[Path] = None):
    """(name, config, project folder) for --stack NAME or --spec FILE [--cloud CLOUD]."""
    from trainstack.stacks import only_cloud, spec_file_config, stack_config
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
    from trainstack.engine import render
    name, config, folder = stack_or_spec_config(stack, spec, cloud, project)
    return render(config, stack=name, project_dir=folder)


def check_output_file(path: Optional[Path], option: str) -> None:
    """An output file the command will write: its folder exists and it is not a folder itself."""
    if path is None:
        return
    if path.is_dir():
        raise SpecError(f"{option} {path}", "is a directory.", "Pass a file name, e.g. "
                        f"{path / 'report.html'}.")
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        raise SpecError(f"{option} {path}", f"cannot be written: the folder {parent} does not "
                        "exist.", f"Create it first (mkdir -p {parent}) or pick another path.")
    if path.exists() and not os.access(path, os.W_OK) or not os.access(parent, os.W_OK):
        raise SpecError(f"{option} {path}", "cannot be written (no permission).",
                        "Pick a path you can write.")


# -- output ------------------------------------------------------------------------------------
# Rich wraps at 80 columns when stdout is not a terminal; piped output (grep, less, a CI log)
# should keep each table row on one line instead. COLUMNS, when set, still wins.
PIPED_WIDTH = 1000


_PREPARED = False  # set by prepare_consoles(), for consoles a command creates later


def console(stderr: bool = False) -> Console:
    """A console for a command's output; on the real command line it has the piped-output
    behaviour prepare_consoles() gives the module-level ones."""
    # emoji=False: `trainstack:cloud:` in a message is a config key, not the ☁ emoji code.
    made = Console(stderr=stderr, soft_wrap=True, emoji=False)
    if _PREPARED:
        _fit(made)
    return made


def _reader_gone(stream_console: Console) -> None:
    """Rich's on_broken_pipe, but exit 0: `trainstack plan | head` closing the pipe is the
    reader saying "enough", not a failure."""
    stream_console.quiet = True
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    raise SystemExit(0)


def prepare_consoles() -> None:
    """For the real command line (main()): every trainstack console exits 0 on a closed pipe,
    and gets a wide page when its stream is not a terminal (unless COLUMNS is set)."""
    global _PREPARED
    _PREPARED = True
    for name, module in list(sys.modules.items()):
        if not name.startswith("trainstack") or module is None:
            continue
        for value in list(vars(module).values()):
            if isinstance(value, Console):
                _fit(value)


def _fit(stream_console: Console) -> None:
    # rich has no hook for a closed pipe but this method: the instance's own replaces it
    stream_console.on_broken_pipe = (  # type: ignore[method-assign]
        lambda: _reader_gone(stream_console))
    stream_console._emoji = False  # the modules' own consoles too: `:cloud:` is text (see console())
    if not os.environ.get("COLUMNS") and not stream_console.is_terminal:
        stream_console.width = PIPED_WIDTH
