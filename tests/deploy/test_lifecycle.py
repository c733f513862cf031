"""`trainstack up` / `destroy`: real Automation API calls, a clear line when the CLI or the
credentials are missing. A stand-in `pulumi` binary records what the API asks of the CLI."""
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.conftest import ROOT
from trainstack.deploy import lifecycle
from trainstack.cli.app import app
from trainstack_components.errors import SpecError

runner = CliRunner()


@pytest.fixture
def no_pulumi(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))  # an empty PATH: no pulumi binary anywhere
    monkeypatch.delenv("PULUMI_ROOT", raising=False)


@pytest.mark.parametrize("command", ["up", "preview", "destroy"])
def test_missing_cli_is_one_clear_line(no_pulumi, command):
    result = runner.invoke(app, [command, "--stack", "aws"])
    assert result.exit_code == 2
    assert "Pulumi CLI" in result.output and "not found" in result.output
    assert "offline commands" in result.output and "Traceback" not in result.output


def test_spec_errors_come_before_the_cli_check(no_pulumi):
    result = runner.invoke(app, ["up", "--stack", "nowhere"])
    assert result.exit_code == 2 and "--stack nowhere" in result.output


def test_missing_credentials_are_named(tmp_path):
    with pytest.raises(SpecError) as raised:
        lifecycle.check_credentials("aws", env={}, home=tmp_path)
    assert "AWS_PROFILE" in str(raised.value) and raised.value.field == "aws credentials"
    lifecycle.check_credentials("aws", env={"AWS_PROFILE": "dev"}, home=tmp_path)
    (tmp_path / ".config" / "gcloud").mkdir(parents=True)
    (tmp_path / ".config" / "gcloud" / "application_default_credentials.json").write_text("{}")
    lifecycle.check_credentials("gcp", env={}, home=tmp_path)


def test_up_without_credentials_stops_before_touching_the_stack(fake_pulumi, monkeypatch, tmp_path):
    for var in ("AWS_PROFILE", "AWS_ACCESS_KEY_ID", "AWS_WEB_IDENTITY_TOKEN_FILE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    result = runner.invoke(app, ["up", "--stack", "aws"])
    assert result.exit_code == 2 and "aws credentials" in result.output
    assert [c["args"][0] for c in fake_pulumi()] == ["version"]


def test_up_selects_the_stack_on_a_local_file_backend_and_runs_the_program(fake_pulumi,
                                                                            monkeypatch):
    monkeypatch.delenv("PULUMI_BACKEND_URL")   # the default: the checkout's (an up writes none)
    result = runner.invoke(app, ["up", "--stack", "aws"])
    assert result.exit_code == 0, result.output
    calls = fake_pulumi()
    select = next(c for c in calls if c["args"][:2] == ["stack", "select"])
    assert select["args"][-1] == "aws"
    up = next(c for c in calls if c["args"][0] == "up")
    assert "--yes" in up["args"] and up["args"][up["args"].index("--stack") + 1] == "aws"
    assert up["backend"] == f"file://{ROOT / lifecycle.STATE_DIR}"
    assert Path(up["cwd"]) == ROOT
    assert "llm-finetune-nodes" in result.output


def test_destroy_says_what_it_keeps(fake_pulumi):
    result = runner.invoke(app, ["destroy", "--stack", "aws"])
    assert result.exit_code == 0, result.output
    assert any(c["args"][0] == "destroy" for c in fake_pulumi())
    assert "llm-finetune-data-a1b2" in result.output and "kept" in result.output


def test_a_failing_deploy_exits_1_with_the_cli_error(fake_pulumi, monkeypatch):
    monkeypatch.setenv("FAKE_PULUMI_FAIL", "1")
    result = runner.invoke(app, ["up", "--stack", "aws"])
    assert result.exit_code == 1
    assert "no valid credential sources" in result.output and "Traceback" not in result.output


def option(args, name):
    return args[args.index(name) + 1]


def test_up_runs_the_policy_pack_and_streams_progress(fake_pulumi):
    result = runner.invoke(app, ["up", "--stack", "aws"])
    assert result.exit_code == 0, result.output
    up = next(c for c in fake_pulumi() if c["args"][0] == "up")
    assert option(up["args"], "--policy-pack") == str(ROOT / "policies")
    assert up["passphrase"] == "test-passphrase"
    assert "up: done" in result.output  # the CLI's own output, streamed through on_output


def test_preview_runs_the_policy_pack_and_reports_the_changes(fake_pulumi):
    result = runner.invoke(app, ["preview", "--stack", "aws"])
    assert result.exit_code == 0, result.output
    preview = next(c for c in fake_pulumi() if c["args"][0] == "preview")
    assert option(preview["args"], "--policy-pack") == str(ROOT / "policies")
    assert option(preview["args"], "--stack") == "aws"
    assert "create 27" in result.output


def test_destroy_runs_no_policy_pack(fake_pulumi):
    assert runner.invoke(app, ["destroy", "--stack", "aws"]).exit_code == 0
    destroy = next(c for c in fake_pulumi() if c["args"][0] == "destroy")
    assert "--policy-pack" not in destroy["args"] and "--yes" in destroy["args"]


@pytest.mark.parametrize("how", ["flag", "env"])
def test_any_backend_through_the_flag_or_the_environment(fake_pulumi, monkeypatch, how):
    url = "s3://team-state/trainstack"
    extra = ["--backend", url] if how == "flag" else []
    if how == "env":
        monkeypatch.setenv("PULUMI_BACKEND_URL", url)
    result = runner.invoke(app, ["up", "--stack", "aws", *extra])
    assert result.exit_code == 0, result.output
    assert {c["backend"] for c in fake_pulumi() if c["args"][0] != "version"} == {url}


def test_a_too_old_cli_is_one_clear_line(fake_pulumi, monkeypatch):
    monkeypatch.setenv("FAKE_PULUMI_VERSION", "v3.100.0")
    result = runner.invoke(app, ["up", "--stack", "aws"])
    assert result.exit_code == 2, result.output
    assert "too old" in result.output and lifecycle.MIN_PULUMI_VERSION in result.output
    assert "Traceback" not in result.output
    assert [c["args"][0] for c in fake_pulumi()] == ["version"]


def test_a_file_backend_without_a_passphrase_stops_before_the_stack(fake_pulumi, monkeypatch):
    monkeypatch.delenv("PULUMI_CONFIG_PASSPHRASE")
    monkeypatch.delenv("PULUMI_CONFIG_PASSPHRASE_FILE", raising=False)
    result = runner.invoke(app, ["up", "--stack", "aws"])
    assert result.exit_code == 2 and "PULUMI_CONFIG_PASSPHRASE" in result.output
    assert [c["args"][0] for c in fake_pulumi()] == ["version"]


def test_an_explicitly_empty_passphrase_is_respected(fake_pulumi, monkeypatch):
    monkeypatch.setenv("PULUMI_CONFIG_PASSPHRASE", "")
    assert runner.invoke(app, ["up", "--stack", "aws"]).exit_code == 0
    assert next(c for c in fake_pulumi() if c["args"][0] == "up")["passphrase"] == ""


def test_a_cloud_backend_needs_no_passphrase(tmp_path):
    env = lifecycle.backend_env(tmp_path, "s3://state", env={})
    assert env == {"PULUMI_BACKEND_URL": "s3://state"}


@pytest.mark.parametrize("command, says", [("destroy", "Tear a stack down"),
                                           ("preview", "what `up` would change"),
                                           ("up", "Deploy a stack")])
def test_each_command_help_describes_itself(command, says):
    result = runner.invoke(app, [command, "--help"])
    assert result.exit_code == 0 and says in " ".join(result.output.split())
    assert "--backend" in result.output


def test_the_first_up_writes_the_lifetime_start_into_the_stack_config(fake_pulumi):
    from trainstack_components.lifetime import LIFETIME_START_KEY
    result = runner.invoke(app, ["up", "--stack", "aws"])  # the example declares 96 hours
    assert result.exit_code == 0, result.output
    calls = [c["args"] for c in fake_pulumi()]
    # one write of the lifetime start (up may set other keys too: the pinned image after it)
    (config_set,) = [a for a in calls if a[:2] == ["config", "set"] and LIFETIME_START_KEY in a]
    assert option(config_set, "--stack") == "aws"
    moment = config_set[-1]
    assert moment.endswith("Z") and moment[:2] == "20"
    assert calls.index(config_set) < next(i for i, a in enumerate(calls) if a[0] == "up")


def test_a_persisted_lifetime_start_is_not_rewritten(tmp_path):
    from trainstack_components.lifetime import LIFETIME_START_KEY

    class Recorder:
        calls = []

        def set_config(self, *a):
            self.calls.append(a)

    from types import SimpleNamespace
    inputs = SimpleNamespace(spec=SimpleNamespace(lifetime_hours=96))
    lifecycle.fix_lifetime_start(Recorder(), inputs, {LIFETIME_START_KEY: "2026-12-01T08:00:00Z"})
    lifecycle.fix_lifetime_start(Recorder(), SimpleNamespace(spec=SimpleNamespace(lifetime_hours=None)),
                                 {})
    assert Recorder.calls == []
