"""First contact (issue 25): inputs a new user really types end in one paragraph and exit 2, never
a traceback, and read-only commands never create anything."""
from __future__ import annotations

import asyncio
import json

import pytest
from typer.testing import CliRunner

from tests.conftest import only_stand_ins_on_path
from trainstack.cli.app import app
from trainstack.plan.init import write_project

runner = CliRunner()


@pytest.fixture
def project(tmp_path):
    folder = tmp_path / "proj"
    write_project(folder)
    return folder


def _stack(project, cloud: str, *lines: str) -> None:
    (project / "stacks" / f"Pulumi.{cloud}.yaml").write_text(
        "config:\n" + "".join(f"  {line}\n" for line in (f"trainstack:cloud: {cloud}", *lines)))


def _bad_input(result) -> str:
    """Exit 2 with a message, and no exception escaped (CliRunner keeps it in .exception)."""
    assert result.exit_code == 2, (result.exit_code, result.output, result.exception)
    assert "Traceback" not in result.output
    return " ".join(result.output.split())


# -- tracebacks -----------------------------------------------------------------------------------

def test_overrides_as_a_plain_string_is_one_paragraph(project):
    # what `pulumi config set trainstack:overrides nodes=4` stores
    _stack(project, "aws", "trainstack:overrides: nodes=4")
    text = _bad_input(runner.invoke(app, ["--project", str(project), "plan", "--stack", "aws"]))
    assert "trainstack:overrides: is the text 'nodes=4', not a mapping" in text
    assert "pulumi config set --path 'trainstack:overrides.nodes' 4" in text


def test_an_error_the_overrides_make_names_the_stack_file_not_cluster_yaml(project):
    _stack(project, "aws", "trainstack:overrides: {nodes: 0}")
    text = _bad_input(runner.invoke(app, ["--project", str(project), "plan", "--stack", "aws"]))
    assert text.startswith("error: nodes:") and "stack file's trainstack:overrides" in text
    assert "cluster.yaml" not in text


def test_an_error_in_cluster_yaml_still_names_cluster_yaml_when_overrides_exist(project):
    spec = project / "cluster.yaml"
    spec.write_text(spec.read_text().replace("max_hours: 96 ", "max_hours: -1 "))
    _stack(project, "aws", "trainstack:overrides: {nodes: 4}")
    text = _bad_input(runner.invoke(app, ["--project", str(project), "plan", "--stack", "aws"]))
    assert text.startswith("error: max_hours:") and "Fix the value in cluster.yaml" in text


def test_a_region_mismatch_names_the_stack_file(project):
    _stack(project, "aws", "aws:region: us-west-2")
    text = _bad_input(runner.invoke(app, ["--project", str(project), "plan", "--stack", "aws"]))
    assert "aws:region: the stack file sets 'us-west-2'" in text
    assert "clouds.aws.region in cluster.yaml is 'us-east-1'" in text


def test_deeply_nested_yaml_is_one_paragraph(tmp_path):
    spec = tmp_path / "deep.yaml"
    spec.write_text("name: x\nnodes: " + "[" * 5000 + "]" * 5000 + "\n")
    text = _bad_input(runner.invoke(app, ["plan", "--spec", str(spec), "--cloud", "aws"]))
    assert "nests lists or mappings too deeply" in text


def test_init_into_a_path_that_cannot_be_written(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    text = _bad_input(runner.invoke(app, ["init", str(blocker / "proj")]))
    assert "cannot be written" in text and str(blocker / "proj") in text


def test_compare_html_to_a_path_the_system_refuses(tmp_path):
    # /proc exists and root may "write" it by permission bits, yet no file can be created there
    text = _bad_input(runner.invoke(app, ["compare", "--spec", "examples/cluster.yaml",
                                          "--html", "/proc/report.html"]))
    assert "/proc/report.html" in text and "Check the path" in text


def _missing_stack_env(monkeypatch, tmp_path, project):
    only_stand_ins_on_path(monkeypatch, tmp_path, stacks={}, unset=("AWS_PROFILE",))
    monkeypatch.chdir(project)


@pytest.mark.parametrize("argv", [["connect", "--stack", "aws", "--print"],
                                  ["status", "--stack", "aws"]])
def test_reading_a_stack_never_deployed_is_one_line_and_creates_nothing(argv, monkeypatch,
                                                                         tmp_path, project):
    _missing_stack_env(monkeypatch, tmp_path, project)
    text = _bad_input(runner.invoke(app, argv))
    assert "--stack aws: has a stack file but is not deployed" in text
    assert "trainstack up --stack aws" in text
    calls = [json.loads(line)["args"] for line in (tmp_path / "pulumi.jsonl").read_text().splitlines()]
    assert ["stack", "select", "--stack", "aws"] in calls
    assert not any(call[:2] == ["stack", "init"] for call in calls), calls


def test_a_render_closes_the_event_loop_pulumi_left_behind():
    """Pulumi's sync_await sets up a loop when none is set; a later render used to replace it
    unclosed, and the garbage collector closing it at exit printed `Invalid file descriptor`."""
    from pulumi.runtime.sync_await import _ensure_event_loop

    from tests.conftest import EXAMPLE
    from trainstack.plan.engine import render
    from trainstack.plan.stacks import spec_file_config
    asyncio.set_event_loop(None)
    leftover = _ensure_event_loop()
    render(spec_file_config(EXAMPLE, "aws"))
    assert leftover.is_closed()


# -- nothing changed silently --------------------------------------------------------------------

def _spec_with(tmp_path, example_spec, **changes):
    from tests.conftest import edited, write_spec
    return write_spec(tmp_path, edited(example_spec, **changes))


@pytest.mark.parametrize("field, value", [("nodes", True), ("nodes", "2"), ("spot", 1),
                                          ("workload__recompute", "yes"), ("max_hours", True),
                                          ("idle__teardown_after_minutes", False)])
def test_a_bool_or_text_where_a_number_or_bool_is_asked_is_refused(field, value, tmp_path,
                                                                     example_spec):
    spec = _spec_with(tmp_path, example_spec, **{field: value})
    text = _bad_input(runner.invoke(app, ["plan", "--spec", str(spec), "--cloud", "aws"]))
    assert text.startswith(f"error: {field.replace('__', '.')}:")


def test_numbers_still_read_as_numbers(example_spec):
    from trainstack_components.spec import parse_spec
    example_spec.update(nodes=3, max_hours=12)   # an int where a float is asked is fine
    example_spec["workload"].update(model_params="13e9", max_hours=None)
    spec = parse_spec(example_spec)
    assert (spec.nodes, spec.max_hours, spec.workload.model_params) == (3, 12.0, 13e9)


@pytest.mark.parametrize("field", ["max_hours", "workload__max_hours"])
def test_a_lifetime_shorter_than_a_deploy_is_refused_with_the_minimum(field, tmp_path,
                                                                       example_spec):
    others = {"workload__max_hours": None} if field == "max_hours" else {}
    spec = _spec_with(tmp_path, example_spec, **{field: 0.001, **others})
    text = _bad_input(runner.invoke(app, ["plan", "--spec", str(spec), "--cloud", "aws"]))
    assert "below the 1 h minimum" in text and "a deploy takes about 20-30 minutes" in text
    assert "Value error" not in text
    ok = _spec_with(tmp_path, example_spec, **{field: 1, **others})
    assert runner.invoke(app, ["plan", "--spec", str(ok), "--cloud", "aws"]).exit_code == 0


def test_the_spec_and_the_cli_default_to_the_same_method():
    """A spec `workload` without `method` and `trainstack estimate --params` without --method
    size the same job (7B x 1T tokens was 682 h as LoRA vs 1,023 h as full fine-tuning)."""
    import dataclasses

    from trainstack_components.memory import Workload
    from trainstack_components.spec import WorkloadSpec
    cli_default = {f.name: f.default for f in dataclasses.fields(Workload)}["method"]
    assert WorkloadSpec(model_params=7e9, train_tokens=1e12).method == cli_default == "full"
    readme = " ".join(open("README.md", encoding="utf-8").read().split())
    assert "`method` defaults to `full`, as `trainstack estimate` without `--method` does" in readme


# -- messages --------------------------------------------------------------------------------------

def test_a_config_key_in_a_message_is_not_turned_into_an_emoji(project):
    (project / "stacks" / "Pulumi.aws.yaml").write_text("config:\n  aws:region: us-east-1\n")
    result = runner.invoke(app, ["--project", str(project), "plan", "--stack", "aws"])
    text = _bad_input(result)
    assert "☁" not in result.output
    assert "trainstack:cloud: is not set" in text and "`trainstack:cloud: aws`" in text


@pytest.mark.parametrize("argv, flag", [
    (["estimate", "--spec", "examples/cluster.yaml", "--cny-rate", "-1"], "--cny-rate"),
    (["compare", "--spec", "examples/cluster.yaml", "--idle-overhead", "-5"], "--idle-overhead"),
    (["estimate", "--params", "7e9", "--tokens", "1e9", "--gpu", "H100",
      "--price-per-gpu-hour", "-3"], "--price-per-gpu-hour")])
def test_flag_errors_name_the_flag_not_the_parameter(argv, flag):
    text = _bad_input(runner.invoke(app, argv))
    assert text.startswith(f"error: {flag}:"), text
    assert "cny_rate" not in text and "idle_overhead" not in text and "price_per" not in text


@pytest.mark.parametrize("command", ["connect", "status", "up"])
def test_a_missing_stack_suggests_only_what_the_command_accepts(command, project):
    result = runner.invoke(app, ["--project", str(project), command, "--stack", "nope"])
    text = _bad_input(result)
    assert "--stack nope: has no stack file" in text and "aws" in text
    assert "--spec" not in text
    assert "--spec" not in runner.invoke(app, [command, "--help"]).output  # it really has none


def test_plan_with_a_missing_stack_still_offers_spec(project):
    text = _bad_input(runner.invoke(app, ["--project", str(project), "plan", "--stack", "nope"]))
    assert "or pass --spec FILE --cloud CLOUD" in text


@pytest.mark.parametrize("cloud, zone", [("aws", "mars-1a"), ("alicloud", "mars-1a")])
def test_an_unknown_region_is_a_region_error_not_a_gpu_error(cloud, zone, tmp_path, example_spec):
    from tests.conftest import write_spec
    example_spec["clouds"] = {cloud: {**example_spec["clouds"][cloud], "region": "mars-1",
                                      "zone": zone}}
    spec = write_spec(tmp_path, example_spec)
    text = _bad_input(runner.invoke(app, ["plan", "--spec", str(spec)]))
    assert text.startswith(f"error: clouds.{cloud}.region: 'mars-1' is not among the {cloud} "
                           "regions"), text
    assert "eu-central-1" in text   # both clouds price GPU types in Frankfurt


def test_a_workload_that_fits_no_gpu_count_says_none_not_None():
    result = runner.invoke(app, ["estimate", "--params", "1e13", "--gpu", "H100"])
    assert "smallest GPU count that fits on H100: none" in result.output
    assert "None" not in result.output
