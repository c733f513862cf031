"""Messages a new user meets first (issue 36): each names the cause and the way out."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from tests.conftest import EXAMPLE, assert_clean_error
from trainstack.cli.app import app

runner = CliRunner()


def _spec_with(tmp_path: Path, edit) -> Path:
    data = yaml.safe_load(EXAMPLE.read_text())
    edit(data)
    path = tmp_path / "cluster.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def test_a_typo_in_a_required_key_is_named_before_the_missing_key(tmp_path):
    # `node: 2` instead of `nodes: 2`: pydantic reports "nodes missing" first and the extra key
    # second; the user's mistake is the extra key.
    spec = _spec_with(tmp_path, lambda d: d.__setitem__("node", d.pop("nodes")))
    result = runner.invoke(app, ["plan", "--spec", str(spec), "--cloud", "aws"])
    assert_clean_error(result, "node: is not a known field", "Did you mean `nodes`?")
    assert "is required" not in result.output


def test_a_typo_in_a_nested_key_gets_the_nearest_field_of_that_section(tmp_path):
    spec = _spec_with(tmp_path, lambda d: d["clouds"]["aws"].__setitem__(
        "regoin", d["clouds"]["aws"].pop("region")))
    result = runner.invoke(app, ["plan", "--spec", str(spec), "--cloud", "aws"])
    assert_clean_error(result, "clouds.aws.regoin: is not a known field", "Did you mean `region`?")


def test_an_unknown_key_far_from_any_field_gets_no_guess(tmp_path):
    spec = _spec_with(tmp_path, lambda d: d.__setitem__("zzzzqqq", 1))
    result = runner.invoke(app, ["plan", "--spec", str(spec), "--cloud", "aws"])
    assert_clean_error(result, "zzzzqqq: is not a known field")
    assert "Did you mean" not in result.output


def test_an_empty_spec_from_dev_null_is_called_empty_not_missing():
    result = runner.invoke(app, ["plan", "--spec", "/dev/null", "--cloud", "aws"])
    assert_clean_error(result, "/dev/null", "is empty")
    assert "does not exist" not in result.output


def test_no_message_sends_an_init_project_to_a_file_it_does_not_have(tmp_path):
    (tmp_path / "list.yaml").write_text("- 1\n- 2\n")
    result = runner.invoke(app, ["plan", "--spec", str(tmp_path / "list.yaml"), "--cloud", "aws"])
    assert_clean_error(result, "is not a YAML mapping", "trainstack init")
    assert "examples/cluster.yaml" not in result.output


@pytest.mark.parametrize("command", ["check", "connect", "status", "run", "bench"])
def test_every_project_command_takes_project_after_its_name(command):
    result = runner.invoke(app, [command, "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert re.search(r"--project\b", result.output), result.output


def test_check_with_project_after_the_command_finds_that_projects_stack(tmp_path, monkeypatch):
    # run from an empty folder: only --project can lead check to this repository's stacks/
    monkeypatch.chdir(tmp_path)
    root = EXAMPLE.parents[1]
    result = runner.invoke(app, ["check", "--stack", "aws", "--project", str(root),
                                 "--format", "json"])
    assert result.exit_code in (0, 1), result.output   # verdicts, not "no project"
    assert "no trainstack project" not in result.output.lower()


def _help_of(command: str, option: str) -> str:
    import typer.main
    group = typer.main.get_command(app)
    params = group.get_command(None, command).params
    return next(p.help or "" for p in params if option in getattr(p, "opts", ()))


@pytest.mark.parametrize("command, option", [
    ("estimate", "--layers"), ("estimate", "--hidden"), ("estimate", "--heads"),
    ("estimate", "--lora-rank"), ("bench", "--checkpoint-mib"), ("bench", "--out-dir")])
def test_options_say_what_they_are(command, option):
    assert len(_help_of(command, option).split()) >= 2, f"{command} {option} has no help text"


def test_status_on_a_missing_local_bucket_says_the_folder_is_missing(tmp_path):
    missing = tmp_path / "no-such-bucket"
    result = runner.invoke(app, ["status", "--bucket-url", f"file://{missing}"])
    assert_clean_error(result, "--bucket-url", "does not exist")


def test_compare_exits_non_zero_when_a_cloud_could_not_be_planned(tmp_path):
    # an instance type the catalog does not have: the aws row's selection fails
    spec = _spec_with(tmp_path, lambda d: d["clouds"]["aws"].__setitem__(
        "instance_type", "p9.nonexistent"))
    result = runner.invoke(app, ["compare", "--spec", str(spec)])
    assert "aws: selection failed" in result.output, result.output
    assert result.exit_code == 1, result.output
    assert "could not plan aws" in result.output


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/full"])
def test_an_endless_device_as_the_spec_is_refused_not_read_forever(device):
    # read as a device (so /dev/null is "empty"), but only up to a limit: these never end
    result = runner.invoke(app, ["plan", "--spec", device, "--cloud", "aws"])
    assert_clean_error(result, device, "is larger than")
