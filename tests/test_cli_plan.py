"""`trainstack plan` and `trainstack schema` as users run them."""
import json

import jsonschema
import yaml
from typer.testing import CliRunner

from tests.conftest import EXAMPLE
from trainstack.cli import app

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
              "from trainstack.engine import render\n"
              "try:\n"
              f"    render(json.loads({json.dumps(json.dumps(config))}),"
              f" project_dir=pathlib.Path({str(tmp_path)!r}))\n"
              "except Exception as failure:\n"
              "    print('REJECTED', type(failure).__name__, failure)\n"
              "    sys.exit(3)\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 3, done.stdout + done.stderr
    assert "REJECTED" in done.stdout and "subnet_ids" in done.stdout
