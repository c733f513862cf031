"""Issue 21, Azure: what a first real `pulumi up` needs and what keeps nodes trainable, checked on
the example spec and on 8-node ND H100 v5 / ND H200 v5 plans (docs/reviews/review-azure.md has each
rule's source)."""
import copy
import json
import subprocess

import pytest
import yaml
from typer.testing import CliRunner

from tests.conftest import EXAMPLE, assert_clean_error, one, plan_for
from trainstack.deploy import capacity_guard
from trainstack.plan import required_config
from trainstack.cli.app import app
from trainstack_components.azure.boot import _MY_EVENTS, SCALE_IN_WATCHER, SCHEDULED_EVENTS
from trainstack_components.pinning import HOLD_KEY

VMSS = "azure-native:compute:VirtualMachineScaleSet"
SUBNET = "azure-native:network:Subnet"
NSG = "azure-native:network:NetworkSecurityGroup"
NAT = "azure-native:network:NatGateway"
ACCOUNT = "azure-native:storage:StorageAccount"
BLOB_SERVICE = "azure-native:storage:BlobServiceProperties"
RG = "azure-native:resources:ResourceGroup"
BUDGET = "azure-native:consumption:Budget"
AMLFS = "azure-native:storagecache:AmlFilesystem"
WAIT = "azure-native:resources:AzureCliScript"
ROLE = "azure-native:authorization:RoleAssignment"
PROVIDER = {"trainstack:azureLustreProviderObjectId": "11111111-2222-3333-4444-555555555555",
            "trainstack:sshPublicKey": "ssh-ed25519 AAAA test"}
runner = CliRunner()


def _spec(gpu=None, nodes=None, region=None):
    spec = yaml.safe_load(EXAMPLE.read_text())
    if gpu:
        spec["gpu"] = [gpu]
    if nodes:
        spec["nodes"] = nodes
        spec["budget"]["monthly_usd"] = 400000
    if region:
        spec["clouds"]["azure"]["region"] = region
    return spec


SHAPES = {"example": (lambda: _spec(), "Standard_ND96isr_H100_v5", 2),
          "ndh100v5-8": (lambda: _spec("H100", 8), "Standard_ND96isr_H100_v5", 8),
          "ndh200v5-8": (lambda: _spec("H200", 8, "swedencentral"), "Standard_ND96isr_H200_v5", 8)}


@pytest.fixture(scope="module", params=sorted(SHAPES))
def shape(request):
    make, itype, nodes = SHAPES[request.param]
    plan = plan_for(make(), "azure", extra_config=PROVIDER)
    assert plan.inputs.selection.instance.name == itype
    return plan, nodes


def test_scale_set_has_a_system_assigned_identity_for_entra_ssh(shape):
    vmss = one(shape[0], VMSS)
    assert vmss.inputs["identity"]["type"] == "SystemAssigned, UserAssigned"
    ext = vmss.inputs["virtualMachineProfile"]["extensionProfile"]["extensions"][0]
    assert ext["type"] == "AADSSHLoginForLinux"


def test_security_type_is_standard_not_trusted_launch(shape):
    profile = one(shape[0], VMSS).inputs["virtualMachineProfile"]
    assert profile["securityProfile"] == {"securityType": "Standard"}


def test_filesystem_waits_for_role_propagation_after_its_grants(shape):
    plan = shape[0]
    (wait,) = plan.of_type(WAIT)
    grants = [r for r in plan.of_type(ROLE) if r.inputs["principalId"] == PROVIDER[
        "trainstack:azureLustreProviderObjectId"]]
    assert len(grants) == 2 and {g.urn for g in grants} <= set(wait.dependencies)
    assert wait.urn in one(plan, AMLFS).dependencies
    # Microsoft: "up to five minutes" for role settings to propagate.
    assert wait.inputs["scriptContent"] == "sleep 300"
    assert wait.inputs["kind"] == "AzureCLI" and wait.inputs["cleanupPreference"] == "Always"


def test_lustre_subnet_gets_out_to_azurecloud(shape):
    plan = shape[0]
    fs_subnet = next(s for s in plan.of_type(SUBNET) if s.name.endswith("-fs"))
    assert fs_subnet.inputs["defaultOutboundAccess"] is False
    assert fs_subnet.inputs["natGateway"]["id"] == f"{one(plan, NAT).name}-id"
    rules = one(plan, NSG).inputs["securityRules"]
    out = [r for r in rules if r["direction"] == "Outbound" and r["access"] == "Allow"
           and r["destinationAddressPrefix"] == "AzureCloud"]
    assert len(out) == 1
    assert (out[0]["protocol"], out[0]["destinationPortRange"], out[0]["sourceAddressPrefix"]) \
        == ("*", "*", "VirtualNetwork")
    # Outranks the explicit internet deny (lower number wins) and any default.
    assert all(out[0]["priority"] < r["priority"] for r in rules if r["access"] == "Deny")


def test_scale_in_notifies_the_vm_and_keeps_the_newest_rule(shape):
    vmss = one(shape[0], VMSS)
    assert vmss.inputs["scaleInPolicy"] == {"rules": ["NewestVM"], "forceDeletion": False}
    notice = vmss.inputs["virtualMachineProfile"]["scheduledEventsProfile"]
    assert notice == {"terminateNotificationProfile": {"enable": True, "notBeforeTimeout": "PT10M"}}


def _boot(plan):
    from trainstack_components.azure.boot import decode_custom_data
    data = one(plan, VMSS).inputs["virtualMachineProfile"]["osProfile"]["customData"]
    return yaml.safe_load(decode_custom_data(data))


def test_boot_unmounts_lustre_before_approving_the_terminate_event(shape):
    config = _boot(shape[0])
    files = {f["path"]: f["content"] for f in config["write_files"]}
    watcher = files[SCALE_IN_WATCHER]
    assert watcher.index("umount /lustre") < watcher.index("-X POST")
    assert SCHEDULED_EVENTS in watcher
    assert any(c[1] == "scale-in-unmount" for c in config["runcmd"])


@pytest.mark.parametrize("events, mine", [
    ([{"EventId": "e1", "EventType": "Terminate", "Resources": ["vmss_3"]}], ["e1"]),
    ([{"EventId": "e2", "EventType": "Preempt", "Resources": ["vmss_3", "vmss_4"]}], ["e2"]),
    ([{"EventId": "e3", "EventType": "Terminate", "Resources": ["vmss_4"]}], []),
    ([{"EventId": "e4", "EventType": "Reboot", "Resources": ["vmss_3"]}], []),
])
def test_the_watcher_picks_only_this_vms_terminate_or_preempt(events, mine):
    out = subprocess.run(["python3", "-c", _MY_EVENTS], input=json.dumps({"Events": events}),
                         capture_output=True, text=True, env={"ME": "vmss_3"}, check=True)
    assert out.stdout.split() == mine


def test_hold_nodes_sizes_the_scale_set_to_zero(example_spec):
    plan = plan_for(example_spec, "azure", extra_config={HOLD_KEY: "true"})
    assert one(plan, VMSS).inputs["sku"]["capacity"] == 0
    assert one(plan_for(example_spec, "azure"), VMSS).inputs["sku"]["capacity"] == 2


@pytest.mark.parametrize("message", [
    "Allocation failed. We do not have sufficient capacity for the requested VM size in this "
    "region.",
    "Code=\"OperationDenied.NoStock\" Message=\"The requested resource is sold out\"",
    "code: ZonalAllocationFailed",
])
def test_azure_and_alibaba_stockouts_count_as_capacity_failures(message):
    assert capacity_guard.is_capacity_failure(message)


def test_budget_start_comes_from_the_first_deploy_not_the_clock(example_spec):
    recorded = plan_for(example_spec, "azure",
                        extra_config={"trainstack:lifetimeStart": "2026-10-17T08:00:00Z"})
    budget = one(recorded, BUDGET)
    assert budget.inputs["timePeriod"]["startDate"] == "2026-10-01T00:00:00Z"
    assert not budget.ignore_changes
    # No recorded start: the clock stands in once, and later runs leave the period alone.
    assert one(plan_for(example_spec, "azure"), BUDGET).ignore_changes == ["timePeriod"]


def test_storage_is_restricted_soft_deleted_and_outside_the_cluster_group(shape):
    plan = shape[0]
    account = one(plan, ACCOUNT)
    rules = account.inputs["networkRuleSet"]
    assert rules["defaultAction"] == "Deny"
    subnets = {f"{s.name}-id" for s in plan.of_type(SUBNET) if not s.name.endswith("bastion")}
    assert {r["virtualNetworkResourceId"] for r in rules["virtualNetworkRules"]} == subnets
    assert all(any(e["service"] == "Microsoft.Storage" for e in s.inputs["serviceEndpoints"])
               for s in plan.of_type(SUBNET) if f"{s.name}-id" in subnets)
    # Managed Lustre's blob integration requires account-key access Enabled (documented
    # exception); OAuth is the default for everything else.
    assert account.inputs["allowSharedKeyAccess"] is True
    assert account.inputs["defaultToOAuthAuthentication"] is True
    (soft,) = plan.of_type(BLOB_SERVICE)
    assert soft.inputs["deleteRetentionPolicy"] == {"enabled": True, "days": 14}
    assert soft.inputs["containerDeleteRetentionPolicy"] == {"enabled": True, "days": 14}
    groups = {r.name: r for r in plan.of_type(RG)}
    data_rg = groups["llm-finetune-data-rg"]
    assert account.inputs["resourceGroupName"] == data_rg.inputs["resourceGroupName"] \
        != groups["llm-finetune-rg"].inputs["resourceGroupName"]
    assert data_rg.retain_on_delete and account.retain_on_delete
    assert plan.outputs["storage_resource_group"] == data_rg.inputs["resourceGroupName"]


def test_operator_addresses_can_be_admitted_to_the_bucket(example_spec):
    plan = plan_for(example_spec, "azure",
                    extra_config={"trainstack:storageAllowedCidrs": "198.51.100.7, 203.0.113.0/24"})
    rules = one(plan, ACCOUNT).inputs["networkRuleSet"]["ipRules"]
    assert [r["iPAddressOrRange"] for r in rules] == ["198.51.100.7", "203.0.113.0/24"]


# -- required stack config --------------------------------------------------------------------

def test_up_and_preview_refuse_without_the_required_keys_naming_the_command(
        fake_pulumi, monkeypatch):
    monkeypatch.setenv("ARM_USE_MSI", "true")
    for command in ("up", "preview"):
        result = runner.invoke(app, [command, "--stack", "azure"])
        assert_clean_error(result, "trainstack:sshPublicKey",
                           "trainstack:azureLustreProviderObjectId",
                           "pulumi config set --stack azure trainstack:sshPublicKey")
    # Refused before anything ran: not even `pulumi version`.
    import os
    from pathlib import Path
    log = Path(os.environ["FAKE_PULUMI_LOG"])
    assert not log.exists() or fake_pulumi() == []


def test_refusal_names_only_what_is_missing():
    from trainstack_components.errors import SpecError
    with pytest.raises(SpecError) as raised:
        required_config.refuse_missing("azure", {"trainstack:sshPublicKey": "ssh-ed25519 A"},
                                       "prod")
    text = str(raised.value)
    assert "trainstack:azureLustreProviderObjectId" in text and "sshPublicKey" not in text
    assert "pulumi config set --stack prod trainstack:azureLustreProviderObjectId" in text
    required_config.refuse_missing("azure", PROVIDER, "prod")  # all set: no error
    required_config.refuse_missing("aws", {}, "prod")          # nothing required elsewhere


def test_offline_plan_renders_and_warns_once(tmp_path):
    spec = tmp_path / "cluster.yaml"
    spec.write_text(EXAMPLE.read_text())
    result = runner.invoke(app, ["plan", "--spec", str(spec), "--cloud", "azure"])
    assert result.exit_code == 0, result.output
    warnings = [line for line in result.output.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1
    assert "trainstack:sshPublicKey" in warnings[0]
    assert "trainstack:azureLustreProviderObjectId" in warnings[0]
    assert "pulumi config set" in warnings[0]
    document = json.loads(runner.invoke(app, ["plan", "--spec", str(spec), "--cloud", "azure",
                                              "--json"]).stdout)
    assert len(document["warnings"]) == 1


def test_offline_check_and_compare_warn_once(tmp_path):
    spec = tmp_path / "cluster.yaml"
    spec.write_text(EXAMPLE.read_text())
    check = runner.invoke(app, ["check", "--spec", str(spec), "--cloud", "azure"])
    assert check.exit_code == 0, check.output
    assert check.stderr.count("warning: stack config lacks trainstack:sshPublicKey") == 1
    compare = runner.invoke(app, ["compare", "--spec", str(spec), "--json"])
    assert compare.exit_code == 0, compare.output
    rows = {r["cloud"]: r for r in json.loads(compare.stdout)["clouds"]}
    assert sum("trainstack:azureLustreProviderObjectId" in n for n in rows["azure"]["notes"]) == 1
    # Azure's missing stack config is Azure's alone (Google Cloud's own deploy blockers, issue 36,
    # are its own warnings)
    assert not any("stack config lacks" in n for c in ("aws", "gcp") for n in rows[c]["notes"])


def test_no_warning_when_the_keys_are_set(example_spec):
    assert plan_for(example_spec, "azure", extra_config=PROVIDER).warnings == ()
    assert len(plan_for(copy.deepcopy(example_spec), "azure").warnings) == 1
    assert plan_for(example_spec, "aws").warnings == ()
