"""Docs that show the tool's output are checked against the tool (issue 25), so they cannot
drift: docs/cost.md's real run, the report picture's data, the README's claims about user data
and about policy exemptions."""
from __future__ import annotations

import base64
import gzip
import json

import yaml
from typer.testing import CliRunner

from tests.conftest import EXAMPLE, ROOT, plan_for, write_spec
from tools import gen_docs
from trainstack.cli.app import app

README = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())


def test_cost_md_shows_what_compare_prints_for_the_example():
    documented = gen_docs.documented_block((ROOT / "docs" / "cost.md").read_text(encoding="utf-8"))
    assert documented == gen_docs.example_block(), (
        "docs/cost.md's example run is stale: run `python tools/gen_docs.py`")


def test_the_report_picture_was_taken_from_what_compare_gives_now():
    stored = (ROOT / "docs" / "report.json").read_text()
    assert stored == gen_docs._canonical(gen_docs.report_result()), (
        "docs/report.png shows an older compare result: run `python tools/gen_docs.py`")
    assert "docs/compare-example.yaml" in (ROOT / "docs" / "cost.md").read_text()


def test_the_generated_block_is_what_the_doc_says_it_is():
    block = gen_docs.example_block()
    assert block.startswith("trainstack compare: llm-finetune (lora, 13B params, 100M tokens")
    table = [line for line in block.splitlines() if line[:1] in "┏┃┡│└"]
    assert table and max(len(line) for line in table) <= gen_docs.DOC_WIDTH  # notes soft-wrap


def _user_data(plan, token: str, *path: str) -> str:
    [resource] = plan.of_type(token)[:1]
    value = resource.inputs
    for key in path:
        value = value[key]
    return value


def test_the_readme_says_how_each_cloud_carries_the_cloud_config():
    text = " ".join(README.split())
    assert ("as text on Google Cloud (`metadata.user-data`), gzip+base64 on AWS and Azure "
            "(`userData`, `customData`," in text)
    assert "base64 on Alibaba Cloud (`userData`, gzipped too only past ECS's 32 KB)" in text
    spec = yaml.safe_load(EXAMPLE.read_text())
    aws = _user_data(plan_for(spec, "aws"), "aws:ec2/launchTemplate:LaunchTemplate", "userData")
    ali = _user_data(plan_for(spec, "alicloud"), "alicloud:ecs/instance:Instance", "userData")
    assert gzip.decompress(base64.b64decode(aws)).startswith(b"#cloud-config")
    # the agents shipped through OSS, the rest fits ECS's 32 KB as it is
    assert base64.b64decode(ali).startswith(b"#cloud-config")
    gcp = _user_data(plan_for(spec, "gcp"), "gcp:compute/instanceTemplate:InstanceTemplate",
                     "metadata", "user-data")
    assert gcp.startswith("#cloud-config")
    azure = _user_data(plan_for(spec, "azure"), "azure-native:compute:VirtualMachineScaleSet",
                       "virtualMachineProfile", "osProfile", "customData")
    assert gzip.decompress(base64.b64decode(azure)).startswith(b"#cloud-config")


def test_the_policy_skip_advice_in_the_readme_works(tmp_path, example_spec):
    """The tag cannot come from cluster.yaml (as the README now says); skipResources can."""
    assert "it cannot come from `cluster.yaml`" in README
    runner = CliRunner()
    tagged = dict(example_spec, tags={**example_spec["tags"], "trainstack:policy-skip": "all"})
    refused = runner.invoke(app, ["check", "--spec", str(write_spec(tmp_path, tagged, "t.yaml")),
                                  "--cloud", "aws"])
    assert refused.exit_code == 2 and "reserved" in refused.output
    costly = dict(example_spec, nodes=8)   # 8 x p5 far over the 20,000 USD budget
    costly["workload"] = {**example_spec["workload"], "max_hours": None}
    spec = str(write_spec(tmp_path, costly))
    failed = runner.invoke(app, ["check", "--spec", spec, "--cloud", "aws", "--format", "json"])
    assert failed.exit_code == 1 and "spend-limit" in failed.stdout
    config = tmp_path / "policy.json"
    skip = {"spend-limit": {"skipResources": ["aws:autoscaling/group:Group::llm-finetune-nodes"]}}
    config.write_text(json.dumps(skip))
    skipped = runner.invoke(app, ["check", "--spec", spec, "--cloud", "aws", "--policy-config",
                                  str(config)])
    assert skipped.exit_code == 0, skipped.output
    assert ('{"spend-limit": {"skipResources": ["aws:autoscaling/group:Group::llm-finetune-nodes"]}}'
            in README)
