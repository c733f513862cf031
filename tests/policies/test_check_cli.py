"""`trainstack check`: the example stacks pass (exit 0); each bad variant fails with the right
policy name (exit 1); bad input exits 2; markdown and JSON output."""
from __future__ import annotations

import copy
import json

import pytest
from typer.testing import CliRunner

from tests.conftest import ROOT, edited, plan_for, write_spec
from trainstack import PROJECT_DIR
from trainstack.cli.app import app
from trainstack.plan.stacks import stack_names

runner = CliRunner()
# Azure's plan does not enforce its declared lifetime yet (no autoscale setting to 0), so it is
# priced for 730 h and fails spend-limit; the other clouds' components enforce max_hours.
STACKS = stack_names(PROJECT_DIR)


def check(*args: str):
    return runner.invoke(app, ["check", *args])


@pytest.mark.parametrize("stack", STACKS)
def test_every_example_stack_passes(stack):
    """The workflow's command, in this process (a fresh interpreter per stack only re-imported
    the SDKs): each plan enforces the lifetime its spec declares, so spend-limit prices 96 h and
    every mandatory policy passes."""
    done = runner.invoke(app, ["--project", str(ROOT), "check", "--stack", stack, "--format", "markdown"])
    assert done.exit_code == 0, done.output
    assert f"### trainstack check: stack `{stack}`" in done.stdout
    assert "passes every mandatory policy" in done.stdout
    assert "FAIL" not in done.stdout


def test_the_example_spec_passes_on_aws():
    result = check("--spec", "examples/cluster.yaml", "--cloud", "aws")
    assert result.exit_code == 0, result.output
    assert "ok: no mandatory policy is violated" in result.output


def _edit(spec: dict, path: str, value) -> dict:
    return edited(spec, **{path.replace(".", "__"): value})


@pytest.mark.parametrize("path, value, policy", [
    ("bucket.retain_on_destroy", False, "bucket-retained"),
    ("access.ssh_cidrs", ["0.0.0.0/0"], "no-public-ingress"),
    ("tags", {"team": "ml", "cost-center": "1234"}, "required-tags"),
    ("budget.monthly_usd", 5000, "spend-limit"),
    ("workload.max_hours", None, "spend-limit"),
])
def test_each_bad_variant_fails_with_its_policy(tmp_path, example_spec, path, value, policy):
    spec = write_spec(tmp_path, _edit(example_spec, path, value))
    result = check("--spec", str(spec), "--cloud", "aws", "--format", "json")
    assert result.exit_code == 1, result.output
    report = json.loads(result.stdout)
    failing = {p["policy"] for p in report["policies"] if p["status"] == "fail"}
    assert failing == {policy}
    assert report["blocking"] is True
    [entry] = [p for p in report["policies"] if p["policy"] == policy]
    assert entry["blocking"] and entry["violations"]
    for v in entry["violations"]:
        assert v["found"] and v["expected"] and v["fix"] and v["resource"]


def test_an_advisory_failure_does_not_block(tmp_path, example_spec):
    spec = write_spec(tmp_path, _edit(example_spec, "interconnect", "tcp"))
    result = check("--spec", str(spec), "--cloud", "aws", "--format", "markdown")
    assert result.exit_code == 0, result.output
    assert "| `rdma-for-multinode` | advisory | FAIL (1) |" in result.stdout
    assert "**rdma-for-multinode** (advisory)" in result.stdout
    assert "passes every mandatory policy" in result.stdout


@pytest.mark.parametrize("policy", ["storage-same-zone", "encryption-at-rest"])
def test_plan_level_breakage_fails_with_its_policy(monkeypatch, example_spec, policy):
    """The components always get zone and encryption right; break the rendered plan instead."""
    plan = copy.deepcopy(plan_for(example_spec, "aws"))
    if policy == "storage-same-zone":
        public = next(r for r in plan.resources if r.name.endswith("-public-subnet"))
        public.inputs["availabilityZone"] = "us-east-1b"
        fs = next(r for r in plan.resources if r.type.endswith("LustreFileSystem"))
        fs.property_dependencies["subnetIds"] = [public.urn]
    else:
        lt = next(r for r in plan.resources if r.type.endswith("LaunchTemplate"))
        lt.inputs["blockDeviceMappings"][0]["ebs"]["encrypted"] = "false"
    import trainstack.plan.select
    monkeypatch.setattr(trainstack.plan.select, "render_plan", lambda *args: plan)
    result = check("--stack", "aws")
    assert result.exit_code == 1, result.output
    assert f"{policy} (mandatory): " in result.output
    assert "blocked: a mandatory policy is violated" in result.output


def test_policy_config_lowers_the_cap(tmp_path):
    config = tmp_path / "policy.json"
    config.write_text(json.dumps({"spend-limit": {"enforcementLevel": "mandatory",
                                                  "maxMonthlyUsd": 1000}}))
    result = check("--stack", "aws", "--policy-config", str(config), "--format", "json")
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    assert [p["policy"] for p in report["policies"] if p["status"] == "fail"] == ["spend-limit"]

    config.write_text(json.dumps({"all": "advisory", "spend-limit": {"maxMonthlyUsd": 1000}}))
    result = check("--stack", "aws", "--policy-config", str(config), "--format", "json")
    assert result.exit_code == 0   # still failing, but advisory
    assert json.loads(result.stdout)["blocking"] is False


@pytest.mark.parametrize("content, words", [
    ('{"spend-limit": {"maxMonthlyUsd": -1}}', "maxMonthlyUsd: -1 is less than or equal to"),
    ('{"spend-limit": {"maxMonthlyUsd": "lots"}}', "'lots' is not of type 'number'"),
    ('{"required-tags": {"requiredTags": "owner"}}', "'owner' is not of type 'array'"),
    ('{"all": "sometimes"}', "'sometimes' is not a valid enforcement level"),
    ('{"spend-limit": {"enforcementLevel": 3}}', "3 is not a valid enforcement level"),
    ("[1, 2]", "must be a JSON object"),
    ("{not json", "is not valid JSON"),
])
def test_bad_policy_config_exits_2(tmp_path, content, words):
    config = tmp_path / "policy.json"
    config.write_text(content)
    result = check("--stack", "aws", "--policy-config", str(config))
    assert result.exit_code == 2, result.output
    assert words in result.output and "Traceback" not in result.output


def test_missing_policy_config_file_exits_2(tmp_path):
    result = check("--stack", "aws", "--policy-config", str(tmp_path / "nope.json"))
    assert result.exit_code == 2 and "cannot be read" in result.output


@pytest.mark.parametrize("entry", ['{"maxMonthlyUsd": 1}', "{}"])
def test_unknown_policy_names_are_refused_although_the_cli_ignores_them(tmp_path, entry):
    """Issue 15: a misspelt policy name would silently drop its cap; exit 2 instead (also with
    no settings, which the CrossGuard format otherwise skips)."""
    config = tmp_path / "policy.json"
    config.write_text('{"spend-limits": %s}' % entry)
    result = check("--stack", "aws", "--policy-config", str(config), "--format", "json")
    assert result.exit_code == 2
    assert "'spend-limits' is not a policy of this pack" in result.stderr


@pytest.mark.parametrize("args, words", [
    (["--stack", "nope"], "has no stack file"),
    (["--stack", "aws", "--format", "yaml"], "'yaml' is not a format of check"),
    (["--stack", "aws", "--cloud", "aws"], "cannot be combined"),
    ([], "neither a stack nor a spec"),
    (["--spec", "does-not-exist.yaml", "--cloud", "aws"], "does not exist"),
])
def test_bad_input_exits_2(args, words):
    result = check(*args)
    assert result.exit_code == 2, result.output
    assert words in result.output


def test_json_output_shape():
    result = check("--stack", "aws", "--format", "json")
    assert result.exit_code == 0
    report = json.loads(result.stdout)
    assert (report["stack"], report["cloud"], report["blocking"]) == ("aws", "aws", False)
    assert [p["policy"] for p in report["policies"]] == [
        "storage-same-zone", "spend-limit", "required-tags", "rdma-for-multinode",
        "no-public-ingress", "encryption-at-rest", "bucket-retained"]
    spend = report["policies"][1]
    # FSx is now plain 4,800 GiB at 250 (1,453.98 USD/month), not EFA at 1000 (4,373.81), and
    # priced for the whole month (it bills until destroy): 2 x 55.04 x 96 h = 10,567.68 +
    # 4,800 x 0.28211 x 1.073741824 = 1,453.98 + the workload's 26 GB bucket x 0.023 = 0.60
    # = 12,022.26, against the example's 25,000 budget.
    assert spend["note"].startswith("estimate 12,022 USD/month")
    assert "x 1 month (bills until destroy" in spend["note"]
    assert spend["note"].endswith("vs cap 25,000 USD (budget)")
