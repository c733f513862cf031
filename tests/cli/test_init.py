"""`trainstack init` and project discovery: trainstack used from a project of your own."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from tests.checkout import PYTHONPATH as CHECKOUT_PATH
from tests.conftest import ROOT, assert_clean_error
from trainstack.cli.app import app
from trainstack_components.base import implemented_clouds

runner = CliRunner()


def cli(*args, cwd: Path):
    """The installed command as a user runs it: a child process in `cwd`."""
    env = {**os.environ, "PYTHONPATH": CHECKOUT_PATH}
    env.pop("TRAINSTACK_PROJECT", None)
    return subprocess.run([sys.executable, "-m", "trainstack", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


def here(monkeypatch, *args, cwd: Path):
    """The same command run in this process from `cwd`, with no TRAINSTACK_PROJECT: what it
    finds from the working folder is what a child process there finds. In-process because a
    child that renders re-imports a provider SDK (about 3 CPU s each); the real command line's
    discovery from its own folder is tests/repo/test_packaging.py's installed init and plan, and
    its exit 2 outside a project is test_stack_outside_any_project_says_how_to_get_one here."""
    monkeypatch.chdir(cwd)
    monkeypatch.delenv("TRAINSTACK_PROJECT", raising=False)
    result = runner.invoke(app, list(args))
    return subprocess.CompletedProcess(args, result.exit_code, result.stdout, result.stderr)


def test_init_then_plan_in_an_empty_folder_works_offline(tmp_path, monkeypatch):
    done = here(monkeypatch, "init", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    expected = {"Pulumi.yaml", "__main__.py", "cluster.yaml", ".gitignore",
                *(f"stacks/Pulumi.{c}.yaml" for c in implemented_clouds())}
    written = {str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.is_file()}
    assert expected <= written
    main = [line for line in (tmp_path / "__main__.py").read_text().splitlines() if line]
    assert len(main) == 2 and "trainstack_components.program import run" in main[0]
    project = yaml.safe_load((tmp_path / "Pulumi.yaml").read_text())
    assert project["runtime"]["name"] == "python" and project["stackConfigDir"] == "stacks"
    plan = here(monkeypatch, "plan", "--stack", "aws", "--json", cwd=tmp_path)
    assert plan.returncode == 0, plan.stderr
    result = json.loads(plan.stdout)
    assert result["stack"] == "aws" and result["cloud"] == "aws"
    assert any(r["type"] == "aws:fsx/lustreFileSystem:LustreFileSystem" for r in result["resources"])


def test_the_project_is_found_from_a_subfolder_and_its_own_spec_is_used(tmp_path, monkeypatch):
    assert here(monkeypatch, "init", "proj", cwd=tmp_path).returncode == 0
    spec = tmp_path / "proj" / "cluster.yaml"
    spec.write_text(spec.read_text().replace("nodes: 2 ", "nodes: 3 ", 1))
    sub = tmp_path / "proj" / "notebooks" / "deep"
    sub.mkdir(parents=True)
    plan = here(monkeypatch, "plan", "--stack", "aws", "--json", cwd=sub)
    assert plan.returncode == 0, plan.stderr
    asg = next(r for r in json.loads(plan.stdout)["resources"]
               if r["type"] == "aws:autoscaling/group:Group")
    assert asg["inputs"]["desiredCapacity"] == 3


def test_every_stack_init_writes_renders_and_passes_check(tmp_path):
    from trainstack.plan.init import write_project
    write_project(tmp_path)
    for cloud in implemented_clouds():
        result = runner.invoke(app, ["--project", str(tmp_path), "check", "--stack", cloud])
        assert result.exit_code == 0, (cloud, result.output)


def test_project_override_from_anywhere(tmp_path, monkeypatch):
    assert here(monkeypatch, "init", "proj", cwd=tmp_path).returncode == 0
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    plan = here(monkeypatch, "plan", "--stack", "gcp", "--project", str(tmp_path / "proj"), "--json",
                cwd=elsewhere)
    assert plan.returncode == 0, plan.stderr
    assert json.loads(plan.stdout)["cloud"] == "gcp"
    check = here(monkeypatch, "--project", str(tmp_path / "proj"), "check", "--stack", "aws",
                 cwd=elsewhere)
    assert check.returncode == 0, check.stderr


def test_stack_outside_any_project_says_how_to_get_one(tmp_path):
    done = cli("plan", "--stack", "aws", cwd=tmp_path)
    assert done.returncode == 2
    assert "trainstack init" in done.stderr and "--project" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_pulumi_project_that_is_not_trainstacks_is_not_used(tmp_path):
    (tmp_path / "Pulumi.yaml").write_text("name: other\nruntime: python\n")
    (tmp_path / "stacks").mkdir()
    done = cli("plan", "--stack", "aws", cwd=tmp_path)
    assert done.returncode == 2 and "no trainstack project" in done.stderr


def test_init_never_overwrites(tmp_path):
    (tmp_path / "cluster.yaml").write_text("mine: true\n")
    result = runner.invoke(app, ["init", str(tmp_path)])
    assert_clean_error(result, "cluster.yaml", "nothing was written")
    assert (tmp_path / "cluster.yaml").read_text() == "mine: true\n"
    assert not (tmp_path / "Pulumi.yaml").exists()


def test_init_into_a_file_is_refused(tmp_path):
    target = tmp_path / "a-file"
    target.write_text("")
    assert_clean_error(runner.invoke(app, ["init", str(target)]), "is not a folder")


def test_the_repositorys_own_program_is_the_same_two_liner():
    main = [line for line in (ROOT / "__main__.py").read_text().splitlines() if line]
    assert len(main) == 2
    assert main[0].startswith("from trainstack_components.program import run") and main[1] == "run(__file__)"


@pytest.mark.parametrize("name", ["trainstack", "trainstack-project", "my-cluster"])
def test_find_project_recognises_trainstack_projects(tmp_path, name):
    from trainstack.plan.stacks import find_project, find_project_or_none
    marker = "" if name == "trainstack" else "config:\n  trainstack:specFile:\n    value: c.yaml\n"
    (tmp_path / "Pulumi.yaml").write_text(f"name: {name}\nruntime: python\n{marker}")
    deep = tmp_path / "a" / "b"
    deep.mkdir(parents=True)
    assert find_project_or_none(deep) == tmp_path.resolve()
    assert find_project(deep) == tmp_path.resolve()
    assert find_project(override=tmp_path) == tmp_path.resolve()
