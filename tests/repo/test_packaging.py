"""An installed trainstack works outside its source tree (issue 15): the wheel carries every file
the code reads at run time (catalog, budget-stop functions, node agent, the CrossGuard pack,
init's templates), and run from the unpacked wheel (not installed, not the checkout) it finds
them there: the policy pack `up`/`preview` attach is the installed `policies/` folder, and
`init` + `plan --stack aws` work in a project of the user's own. Offline: setuptools and wheel
from the test environment, no index."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from email.message import Message
from email.parser import Parser
from pathlib import Path

import pytest

from tests.conftest import ROOT
from trainstack import __version__

PACKAGES = ("components", "policies", "trainstack")  # folders of the checkout


def _installed_names() -> dict[str, str]:
    """Folder -> the import name it installs as: pyproject's `package-dir` mapping (see
    tools/rename_import_packages.py), else the folder's own name."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    found = re.search(r"(?m)^package-dir = \{(.*)\}$", text)
    pairs = re.findall(r'"([\w.]+)" = "([\w./]+)"', found.group(1)) if found else []
    return {folder: name for name, folder in pairs}


INSTALLED = _installed_names()


def _in_wheel(relative: str) -> str:
    """A checkout path (components/x.py) as the wheel names it."""
    top, _, rest = relative.partition("/")
    return "/".join(filter(None, (INSTALLED.get(top, top), rest)))
JUNK = shutil.ignore_patterns("__pycache__", "*.pyc", "venv", ".venv", "build", "*.egg-info")


def _source_files() -> set[str]:
    """Every file of the three packages in this tree, as the wheel names it."""
    files = set()
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*"):
            parts = path.relative_to(ROOT).parts
            if path.is_file() and not any(p in ("__pycache__", "venv", ".venv") for p in parts) \
                    and path.suffix != ".pyc":
                files.add(_in_wheel("/".join(parts)))
    return files


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel built from a copy of the tree (the build never writes into the checkout)."""
    work = tmp_path_factory.mktemp("wheel")
    src = work / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    for package in PACKAGES:
        shutil.copytree(ROOT / package, src / package, ignore=JUNK)
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-index", "--no-deps",
                           "--no-build-isolation", "-q", "-w", str(work / "out"), str(src)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, "wheel build failed (setuptools and wheel are test " \
        f"dependencies):\n{done.stdout}\n{done.stderr}"
    (built,) = (work / "out").glob("trainstack-*.whl")
    return built


@pytest.fixture(scope="module")
def names(wheel) -> set[str]:
    with zipfile.ZipFile(wheel) as archive:
        return set(archive.namelist())


@pytest.fixture(scope="module")
def unpacked(wheel, tmp_path_factory) -> Path:
    site = tmp_path_factory.mktemp("site")
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(site)
    return site


def test_every_file_of_the_packages_is_in_the_wheel(names):
    missing = sorted(_source_files() - names)
    assert not missing, f"not in the wheel (add them to [tool.setuptools.package-data]): {missing}"


def test_the_files_the_code_reads_are_package_files(names):
    import trainstack_components.catalog as catalog
    from trainstack.plan import init
    from trainstack.deploy import lifecycle
    from trainstack_components.agents import idle_agent
    from trainstack_components.aws import budget_action as aws_budget
    from trainstack_components.aws import cloud as aws_cloud
    from trainstack_components.gcp import budget_action as gcp_budget
    from trainstack_policies import catalog as pack_catalog
    read = [aws_budget.FUNCTION_DIR / "handler.py",
            *(gcp_budget.FUNCTION_DIR / n for n in ("main.py", "requirements.txt")),
            *catalog.DATA.glob("*.csv"), aws_cloud._AZ_FILE, *pack_catalog.DATA.glob("*.csv"),
            *(lifecycle.policy_pack_dir() / n for n in ("PulumiPolicy.yaml", "requirements.txt",
                                                          "__main__.py")),
            init.TEMPLATES / "cluster.yaml", Path(idle_agent.__file__)]
    assert len(list(pack_catalog.DATA.glob("*.csv"))) >= 5 and len(read) > 20
    for path in read:
        relative = path.resolve().relative_to(ROOT).as_posix()
        assert relative.split("/")[0] in PACKAGES, f"{relative} is read outside the packages"
        assert _in_wheel(relative) in names, f"{relative} is read at run time but not in the wheel"


def test_the_wheel_holds_only_the_packages_and_the_command(wheel, names):
    tops = {n.split("/")[0] for n in names}
    assert tops == {*(INSTALLED.get(p, p) for p in PACKAGES),
                    f"{wheel.name.split('-')[0]}-{wheel.name.split('-')[1]}.dist-info"}
    assert not (ROOT / "functions").exists()  # the budget-stop code moved into components/
    entry = next(n for n in names if n.endswith("entry_points.txt"))
    with zipfile.ZipFile(wheel) as archive:
        assert "trainstack = trainstack.cli:main" in archive.read(entry).decode()


def test_init_from_a_checkout_points_the_project_at_the_checkout(tmp_path):
    from trainstack.plan.init import requirements_txt, write_project
    write_project(tmp_path / "p")
    lines = (tmp_path / "p" / "requirements.txt").read_text().splitlines()
    # [all]: the project's stacks cover every cloud, and the program imports the stack's SDK.
    assert f"trainstack[all] @ {ROOT.resolve().as_uri()}" in lines
    assert requirements_txt(tmp_path).splitlines()[-1] == f"trainstack[all]=={__version__}"


def _metadata(wheel: Path) -> Message:
    """The wheel's core metadata (an RFC 822 header block, as pip reads it)."""
    with zipfile.ZipFile(wheel) as archive:
        name = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        return Parser().parsestr(archive.read(name).decode(), headersonly=True)


def test_the_wheel_offers_one_extra_per_cloud_and_a_base_without_sdks(wheel):
    """The metadata pip reads (core metadata 2.1: Provides-Extra, Requires-Dist with an `extra`
    marker): `trainstack[aws]` brings pulumi-aws alone, `[all]` the four clouds, `[test]` all of
    them (the tests render every cloud), and the base none (issue 36: 1.1 GB for the four)."""
    from packaging.requirements import Requirement
    metadata = _metadata(wheel)
    extras = set(metadata.get_all("Provides-Extra"))
    assert {"aws", "gcp", "azure", "alicloud", "all", "test"} <= extras
    by_extra: dict[str, set[str]] = {}
    for requirement in map(Requirement, metadata.get_all("Requires-Dist")):
        owner = next((e for e in extras if requirement.marker
                      and requirement.marker.evaluate({"extra": e})), "")
        by_extra.setdefault(owner, set()).add(
            requirement.name + (f"[{','.join(sorted(requirement.extras))}]"
                                if requirement.extras else ""))
    sdks = {"pulumi-aws", "pulumi-gcp", "pulumi-azure-native", "pulumi-alicloud", "pulumi-command"}
    assert not by_extra[""] & sdks and {"pulumi", "pulumi-policy", "typer"} <= by_extra[""]
    assert by_extra["aws"] == {"pulumi-aws"}
    assert by_extra["gcp"] == {"pulumi-gcp", "pulumi-command"}
    assert by_extra["azure"] == {"pulumi-azure-native"}
    assert by_extra["alicloud"] == {"pulumi-alicloud"}
    assert by_extra["all"] == {"trainstack[alicloud,aws,azure,gcp]"}
    assert "trainstack[all]" in by_extra["test"]


def _run_installed(unpacked: Path, cwd: Path, *code_or_args: str, module: bool = False):
    env = {**os.environ, "PYTHONPATH": str(unpacked), "COLUMNS": "200"}
    env.pop("TRAINSTACK_PROJECT", None)
    argv = [sys.executable, "-m", *code_or_args] if module else [sys.executable, "-c", *code_or_args]
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def test_installed_trainstack_reads_its_data_from_the_install(unpacked, tmp_path):
    done = _run_installed(unpacked, tmp_path, """
import json, trainstack
import trainstack_components.aws.budget_action as a
import trainstack_components.gcp.budget_action as g
from trainstack.deploy import lifecycle
from trainstack.plan import init
print(json.dumps({"pack": lifecycle.policy_packs()[0], "aws": str(a.FUNCTION_DIR),
                  "gcp": str(g.FUNCTION_DIR), "templates": str(init.TEMPLATES),
                  "module": trainstack.__file__}))""")
    assert done.returncode == 0, done.stderr
    where = {k: Path(v) for k, v in json.loads(done.stdout).items()}
    for key, path in where.items():
        assert unpacked in path.parents, f"{key}: {path} is not the installed copy"
    assert where["pack"] == unpacked / INSTALLED.get("policies", "policies")
    assert (where["pack"] / "PulumiPolicy.yaml").is_file()
    assert (where["aws"] / "handler.py").is_file() and (where["gcp"] / "main.py").is_file()


def test_installed_trainstack_inits_and_plans_a_project_of_its_own(unpacked, tmp_path):
    done = _run_installed(unpacked, tmp_path, "trainstack.cli.app", "init", "team", module=True)
    assert done.returncode == 0, done.stderr
    project = tmp_path / "team"
    requirements = (project / "requirements.txt").read_text()
    # Not the checkout (there is none): the same version, and how to install it.
    assert f"trainstack[all]=={__version__}" in requirements.splitlines() and "pip install" in requirements
    assert "file://" not in requirements
    done = _run_installed(unpacked, project, "trainstack.cli.app", "plan", "--stack", "aws", "--json",
                          module=True)
    assert done.returncode == 0, done.stderr
    plan = json.loads(done.stdout)
    assert plan["cloud"] == "aws" and plan["stack"] == "aws"
    assert any(r["type"] == "aws:lambda/function:Function" for r in plan["resources"])
