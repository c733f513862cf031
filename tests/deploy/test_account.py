"""`trainstack bootstrap <cloud>` asks the cloud what a first deploy needs (issue 31): Azure's
feature registration, resource providers and the deploying identity's roles; GCP's APIs; AWS's
P-instance quota. Stand-in CLIs answer as the real ones do; the plan lists the needs offline."""
import json

import pytest
from typer.testing import CliRunner

from tests.conftest import EXAMPLE, stand_in_cli
from trainstack.cli.app import app
from trainstack.deploy import account, bootstrap

runner = CliRunner()

# `az` as a subscription where the feature is not registered (Azure CLI output formats: -o tsv).
AZ = """#!/bin/bash
echo "az $*" >> "$FAKE_LOG"
case "$1 $2" in
  "feature show") echo "${FEATURE_STATE:-NotRegistered}" ;;
  "provider show") case "$4" in Microsoft.ContainerInstance) echo "${ACI_STATE:-Registered}" ;;
                   *) echo Registered ;; esac ;;
  "role assignment") [ "$5" = me@example.com ] || exit 3
                     printf 'Contributor\\n%s\\n' "${ROLE:-User Access Administrator}" ;;
  "account show") echo me@example.com ;;
esac
"""
AZ_SIGNED_OUT = """#!/bin/bash
echo "ERROR: Please run 'az login' to setup account." >&2
exit 1
"""


@pytest.fixture
def cli(tmp_path, monkeypatch):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    monkeypatch.setenv("FAKE_LOG", str(tmp_path / "calls.log"))
    return bin_dir


def test_azure_names_the_unregistered_feature_and_the_way_out(cli, monkeypatch):
    stand_in_cli(cli, "az", AZ)
    result = runner.invoke(app, ["bootstrap", "azure"])
    assert result.exit_code == 2, result.output
    text = " ".join(result.output.split())
    assert "feature Microsoft.Compute/UseStandardSecurityType registered: missing" in text
    assert ("az feature register --namespace Microsoft.Compute --name "
            "UseStandardSecurityType") in text
    assert "Microsoft.ContainerInstance" not in text.split("missing")[1]   # registered


def test_azure_names_the_provider_and_the_role_missing(cli, monkeypatch):
    stand_in_cli(cli, "az", AZ)
    monkeypatch.setenv("FEATURE_STATE", "Registered")
    monkeypatch.setenv("ACI_STATE", "NotRegistered")
    monkeypatch.setenv("ROLE", "Reader")
    result = runner.invoke(app, ["bootstrap", "azure"])
    assert result.exit_code == 2
    text = " ".join(result.output.split())
    assert "resource provider Microsoft.ContainerInstance registered: missing" in text
    assert "az provider register -n Microsoft.ContainerInstance" in text
    assert "Owner or User Access Administrator: missing" in text


def test_azure_ready_passes(cli, monkeypatch):
    stand_in_cli(cli, "az", AZ)
    monkeypatch.setenv("FEATURE_STATE", "Registered")
    result = runner.invoke(app, ["bootstrap", "azure"])
    assert result.exit_code == 0, result.output
    assert "azure account: 10 checks passed" in result.output


def test_signed_out_is_one_line_naming_the_login(cli):
    stand_in_cli(cli, "az", AZ_SIGNED_OUT)
    result = runner.invoke(app, ["bootstrap", "azure"])
    assert result.exit_code == 2
    assert "has no credentials" in result.output and "az login" in result.output
    assert "Traceback" not in result.output


def test_no_cli_is_one_line_naming_it(cli, monkeypatch):
    monkeypatch.setenv("PATH", str(cli))      # no gcloud anywhere
    result = runner.invoke(app, ["bootstrap", "gcp"])
    assert result.exit_code == 2
    assert "`gcloud` is not installed" in " ".join(result.output.split())


GCLOUD = """#!/bin/bash
case "$*" in
  *"services list"*) all="$*"; api="${all##*config.name=}"; api="${api%% *}"
                     case " $ENABLED " in *" $api "*) echo "$api" ;; esac ;;
  *"get-iam-policy"*) case "$*" in *"bindings.members:me@example.com"*) echo roles/owner ;; esac ;;
  "config get-value account") echo me@example.com ;;
esac
"""


def test_gcp_names_the_disabled_api(cli, monkeypatch):
    stand_in_cli(cli, "gcloud", GCLOUD)
    monkeypatch.setenv("ENABLED", "serviceusage.googleapis.com")
    missing = account.check_account("gcp", account.needs("gcp", project="p1"))
    assert len(missing) == 1
    assert missing[0].startswith("API cloudresourcemanager.googleapis.com enabled: missing")
    assert missing[0].endswith("gcloud services enable cloudresourcemanager.googleapis.com "
                               "--project p1")


AWS = """#!/bin/bash
echo "aws $*" >> "$FAKE_LOG"
[ "$1 $2" = "service-quotas get-service-quota" ] && echo "${QUOTA:-0.0}"
"""


@pytest.mark.parametrize("quota, missing", [("384.0", 0), ("192.0", 1)])
def test_aws_p_instance_quota_in_vcpus(cli, monkeypatch, tmp_path, quota, missing):
    """Two p5.48xlarge are 2 x 192 = 384 vCPUs (EC2 quota L-417A185B counts vCPUs)."""
    stand_in_cli(cli, "aws", AWS)
    monkeypatch.setenv("QUOTA", quota)
    wanted = account.needs("aws", region="us-east-1", instance_type="p5.48xlarge", vcpus=384)
    found = account.check_account("aws", wanted)
    assert len(found) == missing
    assert "--quota-code L-417A185B --region us-east-1" in (tmp_path / "calls.log").read_text()
    if missing:
        assert "L-417A185B" in found[0] and "--desired-value 384" in found[0]


def test_the_example_clusters_needs_come_from_its_spec(tmp_path):
    (tmp_path / "cluster.yaml").write_text(EXAMPLE.read_text())
    wanted = bootstrap.account_needs("aws", tmp_path)
    (quota,) = wanted
    assert quota.argv[-5] == "us-east-1" or "us-east-1" in quota.argv


def test_the_plan_lists_the_needs_and_the_node_image_offline():
    result = runner.invoke(app, ["plan", "--spec", str(EXAMPLE), "--cloud", "azure", "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    assert any("UseStandardSecurityType" in n["what"] for n in doc["account_needs"])
    assert doc["node_image"]["image"].startswith("microsoft-dsvm:ubuntu-hpc:2204:")
    gcp = json.loads(runner.invoke(app, ["plan", "--spec", str(EXAMPLE), "--cloud", "gcp",
                                         "--json"]).output)
    installs = {i["what"] for i in gcp["node_image"]["installs"]}
    assert {"docker.io", "nvidia-container-toolkit", "python3-venv"} <= installs


def test_docs_first_deploy_lists_what_bootstrap_checks_for_the_example():
    from tests.conftest import ROOT
    from trainstack_components.program import resolve
    clusters = {}
    for cloud in ("aws", "gcp", "azure", "alicloud"):
        inputs = resolve({"trainstack:cloud": cloud, "trainstack:specFile": str(EXAMPLE)}.get,
                         EXAMPLE.parent)
        clusters[cloud] = (inputs.spec, inputs.selection)
    doc = (ROOT / "docs" / "first-deploy.md").read_text()
    block = doc.split(account.FIRST_DEPLOY_BEGIN + "\n")[1].split(account.FIRST_DEPLOY_END)[0]
    assert block == account.first_deploy_block(clusters), "docs/first-deploy.md is stale"


def test_alicloud_has_nothing_to_check_and_needs_no_cli(cli, monkeypatch):
    monkeypatch.setenv("PATH", str(cli))
    assert account.check_account("alicloud", account.needs("alicloud")) == []
