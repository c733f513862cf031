"""`trainstack plan` and `trainstack schema` as users run them."""
import json

import jsonschema
import yaml
from typer.testing import CliRunner

from tests.conftest import EXAMPLE
from trainstack.cli.app import app

runner = CliRunner()


def test_plan_json_has_cloud_resources_and_outputs_sorted():
    result = runner.invoke(app, ["plan", "--spec", str(EXAMPLE), "--cloud", "aws", "--json"])
    assert result.exit_code == 0, result.output
    plan = json.loads(result.output)
    assert plan["cloud"] == "aws"
    keys = [(r["type"], r["name"]) for r in plan["resources"]]
    assert keys == sorted(keys)
    assert all({"type", "name", "inputs"} <= r.keys() for r in plan["resources"])
    assert plan["outputs"]["node_group"] == "llm-finetune-nodes"


def test_plan_by_stack_matches_plan_by_spec():
    by_stack = json.loads(runner.invoke(app, ["plan", "--stack", "aws", "--json"]).output)
    by_spec = json.loads(runner.invoke(
        app, ["plan", "--spec", str(EXAMPLE), "--cloud", "aws", "--json"]).output)
    strip = lambda p: sorted((r["type"], r["name"]) for r in p["resources"])  # noqa: E731
    assert strip(by_stack) == strip(by_spec)
    assert by_stack["stack"] == "aws"


def test_plan_table_shows_zones():
    result = runner.invoke(app, ["plan", "--stack", "aws"], terminal_width=200)
    assert result.exit_code == 0, result.output
    fs_line = next(line for line in result.output.splitlines() if "llm-finetune-fs " in line)
    assert "us-east-1a" in fs_line


def test_schema_validates_the_example_and_rejects_a_typo():
    result = runner.invoke(app, ["schema"])
    schema = json.loads(result.output)
    example = yaml.safe_load(EXAMPLE.read_text())
    jsonschema.validate(example, schema)
    example["nodez"] = 2
    try:
        jsonschema.validate(example, schema)
    except jsonschema.ValidationError as err:
        assert "nodez" in err.message
    else:
        raise AssertionError("the schema accepted an unknown field")



def test_the_offline_plan_runs_the_provider_sdks_own_input_checks(tmp_path, example_spec):
    """A list where the SDK wants one subnet id fails the plan, as it would fail `pulumi up`.

    Run in a child process: the SDK's failure inside the mock engine's threads trips a CPython
    3.11.7 AST recursion-depth bug in whatever compiles next in the same process."""
    import subprocess
    import sys

    from tests.conftest import ROOT
    (tmp_path / "__main__.py").write_text(
        "import pulumi_aws as aws\n"
        "aws.fsx.LustreFileSystem('bad', subnet_ids=['subnet-a', 'subnet-b'],"
        " deployment_type='PERSISTENT_2')\n")
    config = {"trainstack:cloud": "aws", "trainstack:spec": json.dumps(example_spec)}
    script = ("import json, sys, pathlib\n"
              "from trainstack.plan.engine import render\n"
              "try:\n"
              f"    render(json.loads({json.dumps(json.dumps(config))}),"
              f" project_dir=pathlib.Path({str(tmp_path)!r}))\n"
              "except Exception as failure:\n"
              "    print('REJECTED', type(failure).__name__, failure)\n"
              "    sys.exit(3)\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 3, done.stdout + done.stderr
    assert "REJECTED" in done.stdout and "subnet_ids" in done.stdout


# -- issue 15 --------------------------------------------------------------------------------------

def _plan_spec(tmp_path, spec, *args):
    from tests.conftest import write_spec
    return runner.invoke(app, ["plan", "--spec", str(write_spec(tmp_path, spec)), *args])


def test_gcp_labels_keep_international_letters_and_report_what_changes(tmp_path, example_spec):
    example_spec["tags"].update(team="机器学习", project="ML Team!", city="Zürich")
    example_spec["clouds"] = {"gcp": example_spec["clouds"]["gcp"]}
    result = _plan_spec(tmp_path, example_spec, "--json")
    assert result.exit_code == 0, result.output
    plan = json.loads(result.output)
    bucket = next(r for r in plan["resources"] if r["type"] == "gcp:storage/bucket:Bucket")
    assert bucket["inputs"]["labels"]["team"] == "机器学习"        # kept: GCP accepts it
    assert bucket["inputs"]["labels"]["project"] == "ml_team_"
    assert plan["tag_changes"] == [
        {"tag": "city", "value": "Zürich", "label": "city", "label_value": "zürich"},
        {"tag": "project", "value": "ML Team!", "label": "project", "label_value": "ml_team_"}]
    text = _plan_spec(tmp_path, example_spec)
    assert "tag project: 'ML Team!' becomes the gcp label project: 'ml_team_'" in text.output
    assert "tag team" not in text.output
    example_spec["tags"] = {"notes": "n" * 70}     # GCP values hold at most 63 characters
    cut = json.loads(_plan_spec(tmp_path, example_spec, "--json").output)["tag_changes"]
    assert cut == [{"tag": "notes", "value": "n" * 70, "label": "notes", "label_value": "n" * 63}]


def test_aws_plans_report_no_tag_changes(tmp_path, example_spec):
    example_spec["tags"]["team"] = "机器学习"
    example_spec["clouds"] = {"aws": example_spec["clouds"]["aws"]}
    assert json.loads(_plan_spec(tmp_path, example_spec, "--json").output)["tag_changes"] == []


def test_plan_without_cloud_takes_the_specs_only_cloud(tmp_path, example_spec):
    example_spec["clouds"] = {"aws": example_spec["clouds"]["aws"]}
    result = _plan_spec(tmp_path, example_spec, "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["cloud"] == "aws"


def test_plan_without_cloud_on_a_two_cloud_spec_asks_for_one():
    from tests.conftest import assert_clean_error
    result = runner.invoke(app, ["plan", "--spec", str(EXAMPLE)])
    assert_clean_error(result, "--cloud", "aws, gcp")


def test_cloud_names_are_case_insensitive():
    result = runner.invoke(app, ["plan", "--spec", str(EXAMPLE), "--cloud", "AWS", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["cloud"] == "aws"


def test_help_lists_exactly_the_implemented_clouds():
    from trainstack_components.base import implemented_clouds
    from trainstack_components.spec import CLOUDS
    wide = {"COLUMNS": "400"}
    for args in (["--help"], ["plan", "--help"]):
        text = runner.invoke(app, args, env=wide).output
        for cloud in CLOUDS:
            assert (cloud in text) == (cloud in implemented_clouds()), (args, cloud, text)


def test_destroy_help_describes_destroy():
    text = runner.invoke(app, ["destroy", "--help"], env={"COLUMNS": "400"}).output
    assert "Tear a stack down" in text and "Deploy a stack" not in text


def test_version_and_shell_completion():
    from trainstack import __version__
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0 and result.output.strip() == f"trainstack {__version__}"
    text = runner.invoke(app, ["--help"], env={"COLUMNS": "400"}).output
    assert "--install-completion" in text and "--show-completion" in text


def test_piped_output_is_not_wrapped_at_80_columns():
    import os
    import subprocess
    import sys

    from tests.conftest import ROOT
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    done = subprocess.run([sys.executable, "-m", "trainstack", "plan", "--stack", "aws"],
                          capture_output=True, text=True, cwd=ROOT, env=env)
    assert done.returncode == 0, done.stderr
    last = done.stdout.strip().splitlines()[-1]
    assert last.startswith("27 resources") or "resources; selection" in last
    assert "price source" in last and "as of" in last   # one line, not wrapped
    assert max(map(len, done.stdout.splitlines())) > 80


def test_schema_takes_one_gpu_name_or_a_list_and_describes_every_workload_field():
    schema = json.loads(runner.invoke(app, ["schema"]).output)
    example = yaml.safe_load(EXAMPLE.read_text())
    for gpu in ("H100", ["H100", "H200"]):
        jsonschema.validate({**example, "gpu": gpu}, schema)
    for bad in ([], 7):
        try:
            jsonschema.validate({**example, "gpu": bad}, schema)
        except jsonschema.ValidationError:
            pass
        else:
            raise AssertionError(f"the schema accepted gpu: {bad!r}")
    workload = schema["$defs"]["WorkloadSpec"]["properties"]
    assert workload and all(field.get("description") for field in workload.values()), \
        [name for name, field in workload.items() if not field.get("description")]
