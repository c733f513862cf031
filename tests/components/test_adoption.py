"""The bucket outlives the cluster, and the next `up` takes it back: after a destroy that keeps
it, trainstack records the kept resources' ids in `trainstack:adopt`, the program imports each
of them instead of creating it (S3 outside us-east-1 answers BucketAlreadyOwnedByYou to a second
create; GCS/OSS names are global; Azure's data group would already exist), and `up` clears the
record. Driven through the mock engine and the stand-in `pulumi` binary."""
from __future__ import annotations

import json
import os

import pytest
from typer.testing import CliRunner

from tests.conftest import ROOT, plan_for
from tests.reap_helpers import stack, write_stacks
from trainstack.reap import reaper as reap
from trainstack.deploy.adoption import retained_ids
from trainstack.cli.app import app
from trainstack_components.errors import SpecError

runner = CliRunner()

# What each cloud keeps on destroy (components/<cloud>/cluster.py, `_bucket` / `_data`): the
# bucket or account and the settings that protect it, by resource name for the example spec.
KEPT = {
    "aws": {"llm-finetune-data", "llm-finetune-data-versioning", "llm-finetune-data-encryption",
            "llm-finetune-data-public-access", "llm-finetune-data-lifecycle"},
    "gcp": {"llm-finetune-data"},
    "azure": {"llm-finetune-data-rg", "llm-finetune-data", "llm-finetune-data-soft-delete",
              "llm-finetune-container"},
    "alicloud": {"llm-finetune-data", "llm-finetune-data-acl", "llm-finetune-data-public-access"},
}


@pytest.mark.parametrize("cloud", sorted(KEPT))
def test_what_a_destroy_kept_is_imported_and_nothing_else(example_spec, cloud):
    adopt = {name: f"existing-{i}" for i, name in enumerate(sorted(KEPT[cloud]))}
    plan = plan_for(example_spec, cloud, extra_config={"trainstack:adopt": json.dumps(adopt)})
    imported = {r.name: r.import_id for r in plan.resources if r.import_id}
    assert imported == adopt
    assert {r.name for r in plan.resources if r.retain_on_delete} == KEPT[cloud]


@pytest.mark.parametrize("cloud", sorted(KEPT))
def test_without_a_record_everything_is_created(example_spec, cloud):
    assert not [r.name for r in plan_for(example_spec, cloud).resources if r.import_id]


def test_a_spec_that_no_longer_keeps_the_bucket_adopts_nothing(example_spec):
    example_spec["bucket"]["retain_on_destroy"] = False
    plan = plan_for(example_spec, "aws", extra_config={
        "trainstack:adopt": json.dumps({"llm-finetune-data": "llm-finetune-data-a1b2"})})
    assert not [r.name for r in plan.resources if r.import_id]


@pytest.mark.parametrize("raw", ["not json", "[]", '{"llm-finetune-data": ""}',
                                 '{"llm-finetune-data": 3}'])
def test_a_broken_record_is_named_with_the_way_out(example_spec, raw):
    with pytest.raises(SpecError) as raised:
        plan_for(example_spec, "aws", extra_config={"trainstack:adopt": raw})
    assert raised.value.field == "trainstack:adopt"
    assert "pulumi config rm trainstack:adopt" in str(raised.value)


def test_retained_ids_are_read_from_the_exported_state():
    deployment = {"resources": [
        {"urn": "urn:pulumi:s::p::pulumi:providers:aws::default", "type": "pulumi:providers:aws",
         "custom": True, "id": "p1", "retainOnDelete": True},
        {"urn": "urn:pulumi:s::p::trainstack:aws:GpuCluster::c", "type": "trainstack:aws:GpuCluster",
         "custom": False, "retainOnDelete": True},
        {"urn": "urn:pulumi:s::p::trainstack:aws:GpuCluster$aws:s3/bucket:Bucket::c-data",
         "type": "aws:s3/bucket:Bucket", "custom": True, "id": "c-data-9f3e", "retainOnDelete": True},
        {"urn": "urn:pulumi:s::p::trainstack:aws:GpuCluster$aws:ec2/vpc:Vpc::c-vpc",
         "type": "aws:ec2/vpc:Vpc", "custom": True, "id": "vpc-1"},
    ]}
    assert retained_ids(deployment) == {"c-data": "c-data-9f3e"}
    assert retained_ids({}) == {}


def _config(fake_pulumi_log):
    path = fake_pulumi_log + ".config.json"
    return json.load(open(path)) if os.path.exists(path) else {}


def test_destroy_records_what_it_kept_and_the_next_up_clears_it(fake_pulumi):
    result = runner.invoke(app, ["destroy", "--stack", "aws"])
    assert result.exit_code == 0, result.output
    log = os.environ["FAKE_PULUMI_LOG"]
    recorded = _config(log)["trainstack:adopt"]
    assert json.loads(recorded["value"]) == {"llm-finetune-data": "llm-finetune-data-a1b2"}
    order = [c["args"][0] if c["args"][0] == "destroy" else " ".join(c["args"][:2])
             for c in fake_pulumi()]
    assert order.index("stack export") < order.index("destroy") < order.index("config set")
    result = runner.invoke(app, ["up", "--stack", "aws"])
    assert result.exit_code == 0, result.output
    assert "trainstack:adopt" not in _config(log)


def test_a_failed_destroy_records_nothing(fake_pulumi, monkeypatch):
    monkeypatch.setenv("FAKE_PULUMI_FAIL", "1")
    result = runner.invoke(app, ["destroy", "--stack", "aws"])
    assert result.exit_code == 1
    assert "trainstack:adopt" not in _config(os.environ["FAKE_PULUMI_LOG"])


def test_the_reaper_records_what_its_destroy_kept(fake_pulumi, monkeypatch, tmp_path):
    monkeypatch.setenv("PULUMI_BACKEND_URL", f"file://{tmp_path}/state")
    monkeypatch.setenv("FAKE_PULUMI_STACKS", str(write_stacks(
        tmp_path / "stacks.json", {"aws": stack({"bucket_name": "llm-finetune-data-a1b2"})})))
    said: list[str] = []
    reap.PulumiStacks(project_dir=ROOT).destroy("aws", said.append)
    recorded = _config(os.environ["FAKE_PULUMI_LOG"])["trainstack:adopt"]
    assert json.loads(recorded["value"]) == {"llm-finetune-data": "llm-finetune-data-a1b2"}
    # On a CI runner the stack file is thrown away: the log carries the command that records it.
    assert said[-1].endswith("""pulumi config set --stack aws trainstack:adopt """
                             """'{"llm-finetune-data": "llm-finetune-data-a1b2"}')\n""")
    # ... and the copy beside the backend's state, which outlives the runner, is said too.
    assert (tmp_path / "state" / ".pulumi" / "trainstack-adopt" / "trainstack" / "aws.json").exists()
    assert "recorded: file://" in said[-1]


def test_a_failed_config_set_after_a_destroy_is_no_failed_destroy_and_up_finds_the_bucket(
        fake_pulumi, monkeypatch, tmp_path):
    """A read-only stack file (or a CI runner's checkout, thrown away): the destroy succeeded, the
    record beside the backend's state is what the next `up` takes the kept bucket back from."""
    monkeypatch.setenv("PULUMI_BACKEND_URL", f"file://{tmp_path}/state")
    monkeypatch.setenv("FAKE_PULUMI_CONFIG_FAIL", "1")
    result = runner.invoke(app, ["destroy", "--stack", "aws"])
    assert result.exit_code == 0, result.output
    assert "record it by hand: pulumi config set --stack aws trainstack:adopt" in result.output
    log = os.environ["FAKE_PULUMI_LOG"]
    assert "trainstack:adopt" not in _config(log)          # the stack file never got it
    monkeypatch.delenv("FAKE_PULUMI_CONFIG_FAIL")
    result = runner.invoke(app, ["up", "--stack", "aws"])
    assert result.exit_code == 0, result.output
    assert "taking back what the last destroy kept: llm-finetune-data-a1b2" in result.output
    order = [" ".join(c["args"][:3]) for c in fake_pulumi()]
    first_up = max(i for i, c in enumerate(order) if c.startswith("up"))
    assert order.index("config set trainstack:adopt") < first_up   # imported, not made anew
    assert "trainstack:adopt" not in _config(log)          # cleared after the up ...
    assert not list((tmp_path / "state" / ".pulumi" / "trainstack-adopt").rglob("*.json"))
