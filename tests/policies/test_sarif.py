"""`trainstack check --format sarif`: SARIF 2.1.0 that GitHub code scanning accepts, validated
against the OASIS schema vendored in tests/data/ (see tests/data/README.md)."""
from __future__ import annotations

import copy
import json
from pathlib import Path

import jsonschema
import pytest
from typer.testing import CliRunner

from tests.conftest import edited, write_spec
from trainstack.cli.app import app
from trainstack_policies.rules import BY_NAME, RULES

SCHEMA = json.loads((Path(__file__).parents[1] / "data" / "sarif-schema-2.1.0.json").read_text())
runner = CliRunner()


def sarif(*args: str) -> tuple[int, dict]:
    result = runner.invoke(app, ["check", *args, "--format", "sarif"])
    assert result.exit_code in (0, 1), result.output
    log = json.loads(result.stdout)
    jsonschema.Draft4Validator(SCHEMA).validate(log)
    return result.exit_code, log


def test_a_passing_stack_is_a_valid_log_with_one_rule_per_policy():
    code, log = sarif("--stack", "aws")
    assert code == 0 and log["version"] == "2.1.0"
    [run] = log["runs"]
    rules = run["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == [r.name for r in RULES]
    for r in rules:
        rule = BY_NAME[r["id"]]
        assert r["helpUri"].endswith(f"docs/policies.md#{rule.name}")
        assert r["help"]["text"] == rule.remediation
        assert r["properties"]["severity"] == rule.severity
        assert 0 < float(r["properties"]["security-severity"]) <= 10
    assert run["results"] == []
    assert run["properties"]["stack"] == "aws" and run["properties"]["blocking"] is False
    assert run["properties"]["estimate"].startswith("estimate ")
    assert run["automationDetails"]["id"] == "trainstack-check/aws/"


def test_violations_are_results_with_level_file_and_resource_urn(tmp_path, example_spec):
    spec = edited(example_spec, access__ssh_cidrs=["0.0.0.0/0"], interconnect="tcp")
    path = write_spec(tmp_path, spec)
    code, log = sarif("--spec", str(path), "--cloud", "aws")
    assert code == 1
    [run] = log["runs"]
    by_rule = {}
    for result in run["results"]:
        by_rule.setdefault(result["ruleId"], []).append(result)
        rule_ids = [r["id"] for r in run["tool"]["driver"]["rules"]]
        assert rule_ids[result["ruleIndex"]] == result["ruleId"]
    assert {r["level"] for r in by_rule["no-public-ingress"]} == {"error"}
    assert {r["level"] for r in by_rule["rdma-for-multinode"]} == {"warning"}
    [location] = by_rule["no-public-ingress"][0]["locations"]
    # A spec outside the repository: relative to its own directory (uriBaseId SPECDIR), at the
    # line of the field to change (access.ssh_cidrs).
    artifact = location["physicalLocation"]["artifactLocation"]
    assert artifact == {"uri": path.name, "uriBaseId": "SPECDIR"}
    assert run["originalUriBaseIds"]["SPECDIR"]["uri"] == path.resolve().parent.as_uri() + "/"
    ssh_line = next(i for i, text in enumerate(path.read_text().splitlines(), 1)
                    if text.strip().startswith("ssh_cidrs:"))
    assert location["physicalLocation"]["region"]["startLine"] == ssh_line
    [rdma] = by_rule["rdma-for-multinode"][0]["locations"]
    assert rdma["physicalLocation"]["region"]["startLine"] == next(
        i for i, text in enumerate(path.read_text().splitlines(), 1)
        if text.startswith("interconnect:"))
    [logical] = location["logicalLocations"]
    assert logical["fullyQualifiedName"].startswith("urn:pulumi:")
    assert logical["kind"] == "resource"
    assert "0.0.0.0/0" in by_rule["no-public-ingress"][0]["message"]["text"]


def test_a_stack_file_location_is_relative_to_the_repository():
    import trainstack.plan.select
    from tests.conftest import ROOT
    plan = copy.deepcopy(trainstack.plan.select.render_plan("gcp", None, None))
    bucket = next(r for r in plan.resources if r.type == "gcp:storage/bucket:Bucket")
    bucket.inputs["labels"].pop("owner")
    from trainstack.check.offline import render_sarif, run_check
    log = json.loads(render_sarif(plan, run_check(plan), "gcp", None))
    jsonschema.Draft4Validator(SCHEMA).validate(log)
    [result] = log["runs"][0]["results"]
    physical = result["locations"][0]["physicalLocation"]
    uri = physical["artifactLocation"]["uri"]
    # The stack file names examples/cluster.yaml and does not override tags: the result sits
    # at the spec's `tags:` line, repo-relative.
    assert uri == "examples/cluster.yaml" and (ROOT / uri).is_file()
    tags_line = next(i for i, text in enumerate((ROOT / uri).read_text().splitlines(), 1)
                     if text.startswith("tags:"))
    assert physical["region"]["startLine"] == tags_line
    assert result["ruleId"] == "required-tags" and result["level"] == "error"


def test_a_field_overridden_in_the_stack_file_is_located_there(tmp_path):
    from trainstack.check.sarif import fix_location
    stack = tmp_path / "Pulumi.x.yaml"
    stack.write_text("config:\n  trainstack:cloud: aws\n  trainstack:overrides:\n"
                     "    budget:\n      monthly_usd: 5\n")
    spec = tmp_path / "spec.yaml"
    spec.write_text("name: a\nbudget:\n  monthly_usd: 20000\ninterconnect: tcp\n")
    assert fix_location("spend-limit", [stack, spec]) == (stack, 5)
    assert fix_location("rdma-for-multinode", [stack, spec]) == (spec, 4)
    assert fix_location("required-tags", [stack, spec]) == (stack, 1)   # set nowhere


def test_rules_carry_the_security_tag_and_help_uri_from_configuration():
    result = runner.invoke(app, ["check", "--stack", "aws", "--format", "sarif", "--docs-url",
                                 "https://docs.example.com/policies"])
    log = json.loads(result.stdout)
    jsonschema.Draft4Validator(SCHEMA).validate(log)
    for r in log["runs"][0]["tool"]["driver"]["rules"]:
        assert "security" in r["properties"]["tags"]
        assert r["helpUri"] == f"https://docs.example.com/policies#{r['id']}"
    result = runner.invoke(app, ["check", "--stack", "aws", "--format", "sarif"],
                           env={"TRAINSTACK_DOCS_URL": "https://x.example/p"})
    rules = json.loads(result.stdout)["runs"][0]["tool"]["driver"]["rules"]
    assert rules[0]["helpUri"] == f"https://x.example/p#{rules[0]['id']}"


def test_exemptions_are_suppressed_results():
    import trainstack.plan.select
    from trainstack.check.offline import render_sarif, run_check
    from trainstack_policies.pack_config import reconcile
    plan = copy.deepcopy(trainstack.plan.select.render_plan("gcp", None, None))
    bucket = next(r for r in plan.resources if r.type == "gcp:storage/bucket:Bucket")
    bucket.inputs["labels"].pop("owner")
    config, _ = reconcile({"required-tags": (None, {"skipResources": [
        f"gcp:storage/bucket:Bucket::{bucket.name}"]})})
    log = json.loads(render_sarif(plan, run_check(plan, config), "gcp", None))
    jsonschema.Draft4Validator(SCHEMA).validate(log)
    [result] = log["runs"][0]["results"]
    assert result["ruleId"] == "required-tags" and result["suppressions"] == [{
        "kind": "external", "status": "accepted", "justification":
            f"exempt by skipResources entry 'gcp:storage/bucket:Bucket::{bucket.name}' in "
            "the policy config"}]


def test_a_policy_that_cannot_decide_is_a_note():
    import trainstack.plan.select
    from trainstack_policies.model import UNKNOWN_STRING_SENTINEL
    plan = copy.deepcopy(trainstack.plan.select.render_plan("aws", None, None))
    fs = next(r for r in plan.resources if r.type.endswith("LustreFileSystem"))
    fs.inputs["storageCapacity"] = UNKNOWN_STRING_SENTINEL
    from trainstack.check.offline import render_sarif, run_check
    from trainstack_policies.pack_config import reconcile
    advisory, _ = reconcile({"spend-limit": (None, {"cannotDecide": "advisory"})})
    log = json.loads(render_sarif(plan, run_check(plan, advisory), "aws", None))
    jsonschema.Draft4Validator(SCHEMA).validate(log)
    [note] = log["runs"][0]["results"]
    assert note["level"] == "note" and "cannot decide until apply" in note["message"]["text"]
    # By default spend-limit cannot pass what it cannot price: a blocking error.
    log = json.loads(render_sarif(plan, run_check(plan), "aws", None))
    [error] = log["runs"][0]["results"]
    assert error["level"] == "error" and "cannot decide: " in error["message"]["text"]


def test_the_schema_does_reject_a_broken_log():
    _, log = sarif("--stack", "aws")
    log["runs"][0]["results"] = [{"ruleId": "x", "level": "fatal", "message": {"text": "m"}}]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft4Validator(SCHEMA).validate(log)


def test_exemptions_are_listed_in_the_table_markdown_and_json(tmp_path):
    config = tmp_path / "policy.json"
    config.write_text(json.dumps({"bucket-retained": {"skipResources": [
        "gcp:storage/bucket:Bucket::*"]}}))
    for fmt in ("table", "markdown", "json"):
        result = runner.invoke(app, ["check", "--stack", "gcp", "--format", fmt,
                                     "--policy-config", str(config)])
        assert result.exit_code == 0, result.output
        assert "is exempt from bucket-retained by skipResources entry" in result.stdout \
            or '"how": "skipResources entry' in result.stdout, fmt
