"""`trainstack check --format sarif`: SARIF 2.1.0 that GitHub code scanning accepts, validated
against the OASIS schema vendored in tests/data/ (see tests/data/README.md)."""
from __future__ import annotations

import copy
import json
from pathlib import Path

import jsonschema
import pytest
from typer.testing import CliRunner

from policies.rules import BY_NAME, RULES
from tests.conftest import edited, write_spec
from trainstack.cli import app

SCHEMA = json.loads((Path(__file__).parent / "data" / "sarif-schema-2.1.0.json").read_text())
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
    assert location["physicalLocation"]["artifactLocation"]["uri"] == path.resolve().as_uri()
    [logical] = location["logicalLocations"]
    assert logical["fullyQualifiedName"].startswith("urn:pulumi:")
    assert logical["kind"] == "resource"
    assert "0.0.0.0/0" in by_rule["no-public-ingress"][0]["message"]["text"]


def test_a_stack_file_location_is_relative_to_the_repository():
    import trainstack.cli_common
    from tests.conftest import ROOT
    plan = copy.deepcopy(trainstack.cli_common.render_plan("gcp", None, None))
    bucket = next(r for r in plan.resources if r.type == "gcp:storage/bucket:Bucket")
    bucket.inputs["labels"].pop("owner")
    from trainstack.check import render_sarif, run_check
    log = json.loads(render_sarif(plan, run_check(plan), "gcp", None))
    jsonschema.Draft4Validator(SCHEMA).validate(log)
    [result] = log["runs"][0]["results"]
    uri = result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert uri == "stacks/Pulumi.gcp.yaml" and (ROOT / uri).is_file()
    assert result["ruleId"] == "required-tags" and result["level"] == "error"


def test_a_policy_that_cannot_decide_is_a_note():
    import trainstack.cli_common
    from policies.model import UNKNOWN_STRING_SENTINEL
    plan = copy.deepcopy(trainstack.cli_common.render_plan("aws", None, None))
    fs = next(r for r in plan.resources if r.type.endswith("LustreFileSystem"))
    fs.inputs["storageCapacity"] = UNKNOWN_STRING_SENTINEL
    from policies.pack_config import reconcile
    from trainstack.check import render_sarif, run_check
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
