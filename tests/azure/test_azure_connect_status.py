"""`trainstack connect` and `trainstack status` on an Azure stack.

A stand-in `pulumi` (tests/fake_pulumi.py, FAKE_PULUMI_STACKS) answers the stack's outputs as the
Azure component exports them; a stand-in `az` answers the scale set's instances. PATH holds only
the stand-ins, so a real Azure CLI on this machine is never called.
"""
from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from tests.conftest import only_stand_ins_on_path, stand_in_cli
from trainstack.measure import status
from trainstack.cli.app import app

runner = CliRunner()
SCALE_SET_ID = ("/subscriptions/0000/resourceGroups/trainstack-llm-finetune-azure/providers/"
                "Microsoft.Compute/virtualMachineScaleSets/llm-finetune-nodes")
OUTPUTS = {"node_group": "llm-finetune-nodes", "scale_set_id": SCALE_SET_ID,
           "resource_group": "trainstack-llm-finetune-azure",
           "bastion_name": "llm-finetune-bastion", "bucket_name": "data",
           "storage_account": "tsllmfinetune567c0843",
           "bucket_url": "abfs://data@tsllmfinetune567c0843.dfs.core.windows.net"}
AZ = r"""#!/bin/bash
echo "$*" >> "$FAKE_LOG"
if [ -n "${FAKE_CLI_FAIL:-}" ]; then echo "ERROR: AADSTS700082: The refresh token has expired" >&2; exit 1; fi
case "$*" in
  "vmss list-instances"*) printf '10\n2\n' ;;
esac
"""


@pytest.fixture
def azure_stack(monkeypatch, tmp_path):
    bin_dir = only_stand_ins_on_path(
        monkeypatch, tmp_path, stacks={"azure": {"outputs": OUTPUTS}},
        unset=("ARM_CLIENT_ID", "ARM_CLIENT_SECRET", "ARM_TENANT_ID", "ARM_USE_MSI",
               "ARM_USE_OIDC"))

    def add_az(logged_in: bool = True):
        stand_in_cli(bin_dir, "az", AZ)
        if logged_in:
            profile = tmp_path / ".azure" / "azureProfile.json"
            profile.parent.mkdir(parents=True, exist_ok=True)
            profile.write_text("{}")
    add_az.log = tmp_path / "calls.log"
    return add_az


def test_connect_print_on_azure_is_the_exact_bastion_command(azure_stack):
    azure_stack()
    result = runner.invoke(app, ["connect", "--stack", "azure", "--node", "1", "--print"])
    assert result.exit_code == 0, result.output
    # Instance ids in numeric order: node 1 is instance 10, not 2.
    assert result.output.strip() == (
        "az network bastion ssh --name llm-finetune-bastion --resource-group "
        f"trainstack-llm-finetune-azure --target-resource-id {SCALE_SET_ID}/virtualMachines/10 "
        "--auth-type AAD")
    assert ("vmss list-instances --resource-group trainstack-llm-finetune-azure --name "
            "llm-finetune-nodes") in azure_stack.log.read_text()


def test_connect_on_azure_without_az_is_one_line(azure_stack, tmp_path):
    profile = tmp_path / ".azure" / "azureProfile.json"
    profile.parent.mkdir(parents=True)
    profile.write_text("{}")
    result = runner.invoke(app, ["connect", "--stack", "azure", "--print"])
    assert result.exit_code == 2
    assert "az CLI" in result.output and "install-azure-cli" in result.output
    assert "Traceback" not in result.output and len(result.output.strip().splitlines()) <= 3


def test_connect_on_azure_without_credentials_is_one_line(azure_stack):
    azure_stack(logged_in=False)
    result = runner.invoke(app, ["connect", "--stack", "azure", "--print"])
    assert result.exit_code == 2
    assert "azure credentials" in result.output and "az login" in result.output
    assert not azure_stack.log.exists()  # Azure was never asked


def test_connect_on_azure_reports_the_cli_failure_in_one_line(azure_stack, monkeypatch):
    azure_stack()
    monkeypatch.setenv("FAKE_CLI_FAIL", "1")
    result = runner.invoke(app, ["connect", "--stack", "azure", "--print"])
    assert result.exit_code == 2 and "AADSTS700082" in result.output
    assert "Traceback" not in result.output


def test_status_of_an_azure_stack_reads_its_container_by_account(azure_stack, tmp_path,
                                                                  monkeypatch):
    container = tmp_path / "container"
    (container / "status").mkdir(parents=True)
    record = {"node": "llm-finetune-nodes_0", "cloud": "azure", "node_rank": 0, "gpus": 8,
              "gpus_expected": 8, "rdma_devices": 8, "rdma_expected": 8,
              "filesystem_mounted": True, "mount_path": "/lustre", "scratch_mounted": True,
              "steps": {"lustre": 0}, "time": "2026-12-01T07:00:00Z", "ok": True}
    (container / "status" / "llm-finetune-nodes_0.json").write_text(json.dumps(record))
    asked = []
    original = status.read_records

    def local_read(url):  # the stack's container is abfs://...; read the local one instead
        asked.append(url)
        return original(f"file://{container}")
    monkeypatch.setattr(status, "read_records", local_read)
    from trainstack.measure import preemptions
    original_events = preemptions.read_events

    def local_events(url):  # the preemption events too (no Azure endpoint answers here)
        asked.append(url)
        return original_events(f"file://{container}")
    monkeypatch.setattr(preemptions, "read_events", local_events)
    result = runner.invoke(app, ["status", "--stack", "azure"], env={"COLUMNS": "200"})
    assert asked == [OUTPUTS["bucket_url"]] * 2
    assert "llm-finetune-nodes_0" in result.output and "8/8" in result.output
    assert result.exit_code == 1 and "1 of 2 node(s) ready" in result.output


def test_the_azure_bucket_url_names_the_account_for_adlfs():
    import fsspec
    url = status.stack_bucket_url("azure", OUTPUTS)
    fs, root = fsspec.core.url_to_fs(url + "/status")
    assert type(fs).__name__ == "AzureBlobFileSystem"
    assert (fs.account_name, root) == ("tsllmfinetune567c0843", "data/status")
    assert status.BUCKET_SCHEMES["azure"] == ("abfs", "adlfs")
