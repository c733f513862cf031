"""`trainstack init [DIR]`: a Pulumi project of your own that runs the installed trainstack.

What it writes is what `pulumi up` needs and every trainstack command finds (from the current
folder upward, as pulumi finds Pulumi.yaml): Pulumi.yaml, a two-line __main__.py, cluster.yaml,
one stack file per implemented cloud under stacks/, and a .gitignore. Existing files are never
overwritten.
"""
from __future__ import annotations

import re
from pathlib import Path

import typer
import yaml

from trainstack import PROJECT_DIR, __version__
from trainstack_components.clouds import names as implemented_clouds
from trainstack_components.errors import SpecError
from trainstack_components.project import PROJECT, PROVIDER_REGION_KEYS

TEMPLATES = Path(__file__).resolve().parent / "templates"

MAIN_PY = """from trainstack_components.program import run  # the trainstack Pulumi program

run(__file__)
"""

GITIGNORE = """.venv/
__pycache__/
*.pyc
.pulumi-state/
plan.json
report.html
"""

REQUIREMENTS_HEAD = """# The Pulumi program imports the installed trainstack
# (trainstack_components.program.run); `pulumi up` installs this file into the project's .venv
# (Pulumi.yaml: toolchain pip).
"""


# The program imports the stack's cloud's provider SDK, which comes with that cloud's extra.
EXTRAS_NOTE = ("# [all]: every cloud's provider SDK (about 1.1 GB); a project that deploys to one "
               "cloud\n# can name that cloud's extra instead ([aws], [gcp], [azure], [alicloud]).\n")


def requirements_txt(source: Path = PROJECT_DIR) -> str:
    """Where the trainstack that ran `init` came from: its checkout when it runs from one (so the
    project's .venv gets the same code), else the same version, pinned."""
    if (source / "pyproject.toml").is_file() and (source / "trainstack" / "__init__.py").is_file():
        return (REQUIREMENTS_HEAD + EXTRAS_NOTE + "# From the trainstack checkout `trainstack "
                "init` ran from; or `pip install -e` it into .venv yourself.\n"
                f"trainstack[all] @ {source.resolve().as_uri()}\n")
    return (REQUIREMENTS_HEAD + EXTRAS_NOTE + "# The version `trainstack init` ran with; if your "
            "package index does not have it,\n# pip install the same wheel into .venv (pip "
            "install --find-links DIR 'trainstack[all]').\n"
            f"trainstack[all]=={__version__}\n")


def _project_name(folder: Path) -> str:
    # Pulumi project names: letters, digits, `-`, `_` and `.`.
    name = re.sub(r"[^A-Za-z0-9_.-]+", "-", folder.name).strip("-.")
    return name or "trainstack-project"


def pulumi_yaml(name: str) -> str:
    return f"""name: {name}
description: A GPU training cluster built by trainstack from cluster.yaml
runtime:
  name: python
  options:
    toolchain: pip
    virtualenv: .venv
main: __main__.py
stackConfigDir: stacks
config:
  # trainstack reads its settings under the `{PROJECT}:` namespace; this key also marks the
  # folder as a trainstack project for `trainstack plan --stack NAME`.
  {PROJECT}:specFile:
    value: cluster.yaml
"""


def stack_yaml(cloud: str, spec: dict) -> str:
    location = (spec.get("clouds") or {}).get(cloud)
    lines = [f"# {cloud}: cluster.yaml built on {cloud}. Per-stack changes go under",
             "# trainstack:overrides and are deep-merged into the spec.", "config:",
             f"  {PROJECT}:cloud: {cloud}"]
    if isinstance(location, dict):
        if cloud in PROVIDER_REGION_KEYS and location.get("region"):
            lines.append(f"  {PROVIDER_REGION_KEYS[cloud]}: {location['region']}")
        if cloud == "gcp" and location.get("project"):
            lines.append(f"  gcp:project: {location['project']}")
    else:
        lines.insert(0, f"# cluster.yaml has no clouds.{cloud} section yet: add its region and "
                        "zone there first.")
    lines += ["  # trainstack:overrides:", "  #   nodes: 4"]
    return "\n".join(lines) + "\n"


def project_files(folder: Path) -> dict[str, str]:
    spec_text = (TEMPLATES / "cluster.yaml").read_text(encoding="utf-8")
    spec = yaml.safe_load(spec_text)
    files = {"Pulumi.yaml": pulumi_yaml(_project_name(folder)), "__main__.py": MAIN_PY,
             "cluster.yaml": spec_text, ".gitignore": GITIGNORE,
             "requirements.txt": requirements_txt()}
    for cloud in implemented_clouds():
        files[f"stacks/Pulumi.{cloud}.yaml"] = stack_yaml(cloud, spec)
    return files


def write_project(folder: Path) -> list[str]:
    """Write the project into `folder` (created if missing); SpecError if a file exists."""
    if folder.exists() and not folder.is_dir():
        raise SpecError(str(folder), "exists and is not a folder.", "Pass a new or empty folder.")
    files = project_files(folder.resolve())
    taken = sorted(name for name in files if (folder / name).exists())
    if taken:
        raise SpecError(str(folder), f"already has {', '.join(taken)}.",
                        "Run `trainstack init` in a new or empty folder; nothing was written.")
    for name, text in files.items():
        path = folder / name
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        except OSError as failed:
            raise SpecError(str(folder), f"cannot be written: {path} ({failed.strerror}).",
                            "Pass a folder you can write, e.g. trainstack init my-cluster.") \
                from None
    return list(files)


def init_command(folder: Path = typer.Argument(Path("."), help="Where to create the project "
                                               "(default: the current folder).")):
    """Create a trainstack project: Pulumi.yaml, __main__.py, cluster.yaml, stacks/, .gitignore."""
    written = write_project(folder)
    for name in written:
        print(f"wrote {folder / name}")
    where = "" if folder == Path(".") else f"cd {folder} && "
    stacks = ", ".join(implemented_clouds())
    print(f"next: {where}trainstack plan --stack aws   (stacks: {stacks}; edit cluster.yaml first)")
