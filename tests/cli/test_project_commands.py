"""Every command that works on a stack works in the user's own project (issue 15): found from the
current folder upward or named with --project, never the trainstack source tree. The stand-in
`pulumi` records where the Automation API ran it (cwd) and which backend it used."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.conftest import ROOT
from trainstack.deploy import lifecycle
from trainstack.cli.app import app
from trainstack.plan.init import write_project

runner = CliRunner()


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A project `trainstack init` wrote, outside the source tree, with the shell in a subfolder."""
    folder = tmp_path / "team-llm"
    write_project(folder)
    (folder / "jobs").mkdir()
    monkeypatch.chdir(folder / "jobs")
    monkeypatch.delenv("PULUMI_BACKEND_URL", raising=False)   # the project's own backend
    assert ROOT not in folder.parents
    return folder.resolve()


def _pulumi_calls(calls, verb):
    found = [c for c in calls if c["args"][: len(verb)] == verb]
    assert found, f"no `pulumi {' '.join(verb)}` call in {[c['args'] for c in calls]}"
    return found


def _assert_in_project(calls, project):
    for call in calls:
        if call["args"][:1] == ["version"]:
            continue  # PulumiCommand asks for the version before there is a workspace
        assert Path(call["cwd"]).resolve() == project, call
        assert call["backend"] == f"file://{project / lifecycle.STATE_DIR}", call


@pytest.mark.parametrize("command, verb", [("up", ["up"]), ("preview", ["preview"]),
                                           ("destroy", ["destroy"])])
def test_stack_commands_run_pulumi_in_the_discovered_project(fake_pulumi, project,  # noqa: F811
                                                              command, verb):
    result = runner.invoke(app, [command, "--stack", "aws"])
    assert result.exit_code == 0, result.output
    calls = fake_pulumi()
    (run,) = _pulumi_calls(calls, verb)
    assert run["args"][run["args"].index("--stack") + 1] == "aws"
    _assert_in_project(calls, project)
    assert (project / lifecycle.STATE_DIR).is_dir()  # the file backend lives in the project


@pytest.mark.parametrize("where", ["option", "global"])
def test_project_option_points_elsewhere(fake_pulumi, project, tmp_path, monkeypatch,  # noqa: F811
                                         where):
    monkeypatch.chdir(tmp_path)  # no project here or above
    args = (["preview", "--stack", "aws", "--project", str(project)] if where == "option"
            else ["--project", str(project), "preview", "--stack", "aws"])
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    _assert_in_project(fake_pulumi(), project)


def test_up_attaches_the_installed_policy_pack_not_a_project_folder(fake_pulumi, project):  # noqa: F811
    result = runner.invoke(app, ["up", "--stack", "aws"])
    assert result.exit_code == 0, result.output
    (up,) = _pulumi_calls(fake_pulumi(), ["up"])
    pack = Path(up["args"][up["args"].index("--policy-pack") + 1])
    import trainstack_policies as policies
    assert pack == Path(policies.__file__).resolve().parent
    assert (pack / "PulumiPolicy.yaml").is_file() and project not in pack.parents


def test_outside_any_project_the_commands_say_so(fake_pulumi, tmp_path, monkeypatch):  # noqa: F811
    monkeypatch.chdir(tmp_path)
    for args in (["up", "--stack", "aws"], ["preview", "--stack", "aws"],
                 ["destroy", "--stack", "aws"], ["reap", "--dry-run"], ["bootstrap", "aws"],
                 ["status", "--stack", "aws"], ["connect", "--stack", "aws"]):
        result = runner.invoke(app, args)
        assert result.exit_code == 2, (args, result.output)
        assert "no trainstack project" in result.output and "trainstack init" in result.output
    log = tmp_path / "calls.jsonl"  # the stand-in's log: not one stack touched anywhere
    assert not log.exists() or not [c for c in fake_pulumi() if c["args"][:1] != ["version"]]


def test_reap_lists_the_projects_stacks(fake_pulumi, project, tmp_path, monkeypatch):  # noqa: F811
    monkeypatch.setenv("FAKE_PULUMI_STACKS", str(tmp_path / "stacks.json"))
    (tmp_path / "stacks.json").write_text(json.dumps({}))
    result = runner.invoke(app, ["reap", "--dry-run", "--audit-log", str(tmp_path / "a.jsonl")])
    assert result.exit_code == 0, result.output
    calls = fake_pulumi()
    _pulumi_calls(calls, ["stack", "ls"])
    _assert_in_project(calls, project)


def test_bootstrap_keeps_its_state_in_the_projects_backend(fake_pulumi, project):  # noqa: F811
    result = runner.invoke(app, ["bootstrap", "aws", "--skip-account-check"])
    assert result.exit_code == 0, result.output
    calls = fake_pulumi()
    (up,) = _pulumi_calls(calls, ["up"])
    # An inline program runs in a temporary folder; its state is the project's backend.
    assert up["backend"] == f"file://{project / lifecycle.STATE_DIR}"


def test_bootstrap_leaves_no_folder_in_the_temp_directory(fake_pulumi, project, tmp_path,  # noqa: F811
                                                          monkeypatch):
    # The Automation API gives an inline program a folder of its own (mkdtemp, "automation-")
    # and never removes it: each bootstrap left one in /tmp. Run twice, nothing is left.
    import tempfile
    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    for _ in range(2):
        result = runner.invoke(app, ["bootstrap", "aws", "--skip-account-check"])
        assert result.exit_code == 0, result.output
    assert list(temp.iterdir()) == []


@pytest.mark.parametrize("command", ["status", "connect"])
def test_status_and_connect_read_the_projects_stack(fake_pulumi, project, monkeypatch,  # noqa: F811
                                                    command):
    # No cloud CLI / bucket here: the command may stop after reading the outputs, but it read
    # them from the project's stack.
    runner.invoke(app, [command, "--stack", "aws"])
    calls = fake_pulumi()
    _pulumi_calls(calls, ["stack", "output"])
    _assert_in_project(calls, project)
