"""What renders offline but cannot deploy on Google Cloud (issue 36): the template's placeholder
project and billing account, and a region without Managed Lustre. `plan` warns with each; `up`
refuses before the Pulumi CLI runs, naming the field and the way out."""
from __future__ import annotations

import csv
import json

import yaml
from typer.testing import CliRunner

from tests.conftest import EXAMPLE, ROOT, plan_for
from trainstack.cli.app import app

runner = CliRunner()
LUSTRE_ZONES = ROOT / "components" / "catalog" / "gcp_lustre_zones.csv"
TEMPLATE = ROOT / "trainstack" / "plan" / "templates" / "cluster.yaml"


def _lustre_regions() -> dict[str, list[str]]:
    with LUSTRE_ZONES.open(newline="", encoding="utf-8") as handle:
        return {row["region"]: row["zones"].split(";") for row in csv.DictReader(handle)}


def _example() -> dict:
    return yaml.safe_load(EXAMPLE.read_text())


def _deployable(spec: dict) -> dict:
    """The example with a real-looking project and billing account, in us-central1-b (listed by
    Managed Lustre's locations page, and a zone with a3-ultragpu-8g and its RoCE profile)."""
    gcp = spec["clouds"]["gcp"]
    gcp.update(project="acme-train-42", billing_account="01AB23-45CD67-89EF01",
               region="us-central1", zone="us-central1-b", instance_type="a3-ultragpu-8g")
    return spec


def test_the_placeholders_and_a_region_without_lustre_are_warned_in_the_plan():
    spec = _example()
    # us-west1-c has a3-ultragpu-8g and a RoCE profile (zones.csv) but no Managed Lustre
    spec["clouds"]["gcp"].update(region="us-west1", zone="us-west1-c")
    assert "us-west1" not in _lustre_regions()
    warnings = plan_for(spec, "gcp").warnings
    assert any("clouds.gcp.project" in w and "my-gcp-project" in w for w in warnings), warnings
    assert any("clouds.gcp.billing_account" in w for w in warnings), warnings
    assert any("clouds.gcp.region" in w and "Managed Lustre" in w for w in warnings), warnings
    assert all("`trainstack up` will refuse" in w for w in warnings)


def test_a_real_project_in_a_lustre_region_has_no_warning():
    spec = _deployable(_example())
    assert "us-central1-b" in _lustre_regions()["us-central1"]
    assert plan_for(spec, "gcp").warnings == ()


def test_the_example_is_in_a_lustre_zone_and_warns_only_of_its_placeholders():
    spec = _example()
    gcp = spec["clouds"]["gcp"]
    assert gcp["zone"] in _lustre_regions().get(gcp["region"], []), gcp
    warnings = plan_for(spec, "gcp").warnings
    fields = sorted(w.split(":")[1].strip() for w in warnings)
    assert fields == ["clouds.gcp.billing_account", "clouds.gcp.project"], warnings


def test_plan_json_carries_the_warnings(tmp_path):
    result = runner.invoke(app, ["plan", "--spec", str(EXAMPLE), "--cloud", "gcp", "--json"])
    assert result.exit_code == 0, result.output
    warnings = json.loads(result.output)["warnings"]
    assert any("clouds.gcp.project" in w for w in warnings), warnings


def test_up_refuses_the_placeholder_before_the_cli_runs(fake_pulumi, tmp_path):
    result = runner.invoke(app, ["up", "--stack", "gcp"])
    assert result.exit_code == 2, result.output
    assert "clouds.gcp.project" in result.output and "gcloud projects list" in result.output
    assert "more after this one" in result.output   # the billing account follows
    log = tmp_path / "calls.jsonl"   # the stand-in logs every call: none was made
    assert not log.exists() or not fake_pulumi()


def test_up_refuses_a_region_without_lustre_once_the_placeholders_are_gone(fake_pulumi, tmp_path):
    spec = _deployable(_example())
    spec["clouds"]["gcp"].update(region="us-west1", zone="us-west1-c")
    assert "us-west1" not in _lustre_regions()
    project = tmp_path / "proj"
    (project / "stacks").mkdir(parents=True)
    (project / "Pulumi.yaml").write_text((ROOT / "Pulumi.yaml").read_text())
    (project / "__main__.py").write_text((ROOT / "__main__.py").read_text())
    (project / "cluster.yaml").write_text(yaml.safe_dump(spec))
    (project / "stacks" / "Pulumi.gcp.yaml").write_text(yaml.safe_dump({"config": {
        "trainstack:cloud": "gcp", "trainstack:specFile": "cluster.yaml",
        "gcp:project": "acme-train-42", "gcp:region": "us-west1", "gcp:zone": "us-west1-c"}}))
    result = runner.invoke(app, ["up", "--stack", "gcp", "--project", str(project)])
    assert result.exit_code == 2, result.output
    assert "clouds.gcp.region" in result.output and "us-west1" in result.output


def test_the_init_template_is_in_a_lustre_zone_and_its_placeholders_are_refused():
    gcp = yaml.safe_load(TEMPLATE.read_text())["clouds"]["gcp"]
    assert gcp["zone"] in _lustre_regions().get(gcp["region"], []), gcp
    spec = yaml.safe_load(TEMPLATE.read_text())
    warnings = plan_for(spec, "gcp").warnings
    fields = sorted(w.split(":")[1].strip() for w in warnings)
    assert fields == ["clouds.gcp.billing_account", "clouds.gcp.project"], warnings
