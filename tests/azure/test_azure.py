"""The Azure cluster under Pulumi's mock engine (issue 11): an H100 and an H200 cluster, every part
the issue names, the guardrail policies on the plan, and each bad input refused before any
resource."""
import ipaddress

import pytest
import yaml
from typer.testing import CliRunner

from tests.conftest import assert_clean_error, one, plan_for, write_spec
from trainstack.check.offline import run_check
from trainstack.cli.app import app
from trainstack_components.tags import CLUSTER_TAG, RETAIN_TAG

VMSS = "azure-native:compute:VirtualMachineScaleSet"
AMLFS = "azure-native:storagecache:AmlFilesystem"
VNET = "azure-native:network:VirtualNetwork"
SUBNET = "azure-native:network:Subnet"
NSG = "azure-native:network:NetworkSecurityGroup"
PIP = "azure-native:network:PublicIPAddress"
BUDGET = "azure-native:consumption:Budget"
ACCOUNT = "azure-native:storage:StorageAccount"
CONTAINER = "azure-native:storage:BlobContainer"
IDENTITY = "azure-native:managedidentity:UserAssignedIdentity"
ROLE = "azure-native:authorization:RoleAssignment"
BASTION = "azure-native:network:BastionHost"
RG = "azure-native:resources:ResourceGroup"
RESERVATION = ("/subscriptions/0000/resourceGroups/gpu/providers/Microsoft.Compute/"
               "capacityReservationGroups/h100")

runner = CliRunner()


def h100(spec):
    return spec  # the example: [H100, H200] in eastus zone 1 -> Standard_ND96isr_H100_v5


def h200(spec):
    spec["gpu"] = ["H200"]
    spec["clouds"]["azure"].update(region="swedencentral", zone="2")
    # 3 x 110.272 USD/h (prices.csv swedencentral) x 96 h = 31,758.34; AMLFS 32 TiB = 32,768 GiB
    # x 0.000373 USD/GiB-h (storage_prices.csv managed_lustre_durable_premium_250 swedencentral)
    # x 730 = 8,922.40 for the whole month (it bills until destroy); the workload's 26.4 GB of
    # blob x 0.016928 = 0.45: 40,681.19, under 45,000 (40,000 would be over).
    spec["budget"]["monthly_usd"] = 45000
    spec["nodes"] = 3
    spec["filesystem"]["capacity_gib"] = 30 * 1024  # 32 TiB at 250 MB/s/TiB -> a /26
    return spec


CLUSTERS = {"h100": (h100, "Standard_ND96isr_H100_v5", "eastus", "1", 2, 8, 27),
            "h200": (h200, "Standard_ND96isr_H200_v5", "swedencentral", "2", 3, 32, 26)}


@pytest.fixture(scope="module", params=sorted(CLUSTERS))
def cluster(request):
    import copy

    from tests.conftest import EXAMPLE
    make, *expected = CLUSTERS[request.param]
    spec = make(copy.deepcopy(yaml.safe_load(EXAMPLE.read_text())))
    return (plan_for(spec, "azure"), *expected)


def test_one_scale_set_with_a_single_placement_group_of_the_right_size_and_zone(cluster):
    plan, itype, region, zone, nodes, _, _ = cluster
    vmss = one(plan, VMSS)
    assert vmss.inputs["sku"]["name"] == itype
    assert vmss.inputs["sku"]["capacity"] == nodes
    assert vmss.inputs["singlePlacementGroup"] is True
    assert vmss.inputs["orchestrationMode"] == "Uniform"
    assert vmss.inputs["overprovision"] is False
    assert vmss.inputs["zones"] == [zone] and vmss.inputs["location"] == region
    profile = vmss.inputs["virtualMachineProfile"]
    assert profile["priority"] == "Regular" and "capacityReservation" not in profile
    image = profile["storageProfile"]["imageReference"]
    assert (image["publisher"], image["offer"]) == ("microsoft-dsvm", "ubuntu-hpc")
    assert image["version"] not in ("", "latest")
    nic = profile["networkProfile"]["networkInterfaceConfigurations"][0]
    assert nic["enableAcceleratedNetworking"] is True
    assert not any("publicIPAddressConfiguration" in ip for ip in nic["ipConfigurations"])


def test_filesystem_is_in_the_scale_sets_zone_and_its_own_subnet(cluster):
    plan, _, region, zone, _, tib, prefix = cluster
    fs, vmss = one(plan, AMLFS), one(plan, VMSS)
    assert fs.inputs["zones"] == vmss.inputs["zones"] == [zone]
    assert fs.inputs["location"] == region
    assert fs.inputs["storageCapacityTiB"] == tib
    assert fs.inputs["sku"]["name"] == "AMLFS-Durable-Premium-250"
    assert set(fs.inputs["maintenanceWindow"]) == {"dayOfWeek", "timeOfDayUTC"}
    subnets = {f"{s.name}-id": s for s in plan.of_type(SUBNET)}
    fs_subnet = subnets[fs.inputs["filesystemSubnet"]]
    assert ipaddress.ip_network(fs_subnet.inputs["addressPrefix"]).prefixlen == prefix
    node_subnet = subnets[vmss.inputs["virtualMachineProfile"]["networkProfile"][
        "networkInterfaceConfigurations"][0]["ipConfigurations"][0]["subnet"]["id"]]
    assert node_subnet is not fs_subnet


def test_filesystem_imports_from_and_archives_to_the_clusters_container(cluster):
    plan = cluster[0]
    hsm = one(plan, AMLFS).inputs["hsm"]["settings"]
    containers = {f"{c.name}-id": c for c in plan.of_type(CONTAINER)}
    assert containers[hsm["container"]].inputs["containerName"] == "data"
    assert hsm["loggingContainer"] in containers and hsm["loggingContainer"] != hsm["container"]


def test_vnet_is_clear_of_the_infiniband_range(cluster):
    plan = cluster[0]
    ib = ipaddress.ip_network("172.16.0.0/16")
    vnet = one(plan, VNET)
    for prefix in vnet.inputs["addressSpace"]["addressPrefixes"]:
        assert not ipaddress.ip_network(prefix).overlaps(ib)
    for subnet in plan.of_type(SUBNET):
        assert not ipaddress.ip_network(subnet.inputs["addressPrefix"]).overlaps(ib)


def test_no_internet_ingress_and_no_public_ip_on_a_node(cluster):
    plan = cluster[0]
    rules = one(plan, NSG).inputs["securityRules"]
    allow_in = [r for r in rules if r["direction"] == "Inbound" and r["access"] == "Allow"]
    assert allow_in == []  # the example's access.ssh_cidrs is empty
    deny = [r for r in rules if r["access"] == "Deny"]
    assert deny and deny[0]["sourceAddressPrefix"] == "Internet"
    # Public addresses exist only on the NAT gateway (egress) and Bastion (the way in).
    bastion, nat = one(plan, BASTION), one(plan, "azure-native:network:NatGateway")
    used = {bastion.inputs["ipConfigurations"][0]["publicIPAddress"]["id"],
            nat.inputs["publicIpAddresses"][0]["id"]}
    assert {f"{p.name}-id" for p in plan.of_type(PIP)} == used
    assert plan.outputs["way_in"].startswith("Azure Bastion")


def test_ssh_cidrs_open_port_22_from_those_cidrs_only(example_spec):
    example_spec["access"]["ssh_cidrs"] = ["203.0.113.0/24"]
    rules = one(plan_for(example_spec, "azure"), NSG).inputs["securityRules"]
    allow = [r for r in rules if r["access"] == "Allow" and r["direction"] == "Inbound"]
    assert [(r["sourceAddressPrefix"], r["destinationPortRange"], r["protocol"]) for r in allow] \
        == [("203.0.113.0/24", "22", "Tcp")]


def test_budget_on_the_resource_group_notifies_per_threshold(cluster):
    plan = cluster[0]
    budget = one(plan, BUDGET)
    (rg,) = [r for r in plan.of_type(RG) if r.name == "llm-finetune-rg"]
    assert budget.inputs["scope"] == f"{rg.name}-id"
    assert budget.inputs["timeGrain"] == "Monthly" and budget.inputs["category"] == "Cost"
    assert budget.inputs["timePeriod"]["startDate"][8:] == "01T00:00:00Z"
    notes = budget.inputs["notifications"]
    assert sorted(n["threshold"] for n in notes.values()) == [50.0, 80.0, 100.0]
    assert set(notes) == {"actual-50-percent", "actual-80-percent", "actual-100-percent"}
    assert all(n["contactEmails"] == ["ml-ops@example.com"] and n["enabled"]
               for n in notes.values())


def test_tags_on_every_resource_that_takes_tags(cluster):
    plan = cluster[0]
    untaggable = {SUBNET, CONTAINER, ROLE, BUDGET, "azure-native:storage:BlobServiceProperties"}
    for r in plan.resources:
        if not r.custom or r.type in untaggable:
            continue
        tags = r.inputs.get("tags")
        assert tags and tags[CLUSTER_TAG] == "llm-finetune" and tags["team"] == "ml", r.name


def test_bucket_is_kept_on_destroy_and_locked_down(cluster):
    plan = cluster[0]
    account = one(plan, ACCOUNT)
    assert account.retain_on_delete and account.inputs["tags"][RETAIN_TAG] == "true"
    assert account.inputs["kind"] == "StorageV2"
    assert account.inputs["enableHttpsTrafficOnly"] is True
    assert account.inputs["minimumTlsVersion"] == "TLS1_2"
    assert account.inputs["allowBlobPublicAccess"] is False
    assert account.inputs["encryption"]["services"]["blob"]["enabled"] is True
    data = next(c for c in plan.of_type(CONTAINER) if c.inputs["containerName"] == "data")
    assert data.retain_on_delete and data.inputs["publicAccess"] == "None"


def test_bucket_not_kept_when_the_spec_says_so(example_spec):
    example_spec["bucket"]["retain_on_destroy"] = False
    account = one(plan_for(example_spec, "azure"), ACCOUNT)
    assert not account.retain_on_delete and RETAIN_TAG not in account.inputs["tags"]


def test_node_identity_gets_blob_data_access_on_the_clusters_container_only(cluster):
    plan = cluster[0]
    identity, vmss = one(plan, IDENTITY), one(plan, VMSS)
    (container,) = [c for c in plan.of_type(CONTAINER) if c.inputs["containerName"] == "data"]
    roles = {r.inputs["roleDefinitionId"].rsplit("/", 1)[1]: r for r in plan.of_type(ROLE)}
    assert set(roles) == {"ba92f5b4-2d11-453d-a403-e96b0029c9fe",   # Storage Blob Data Contributor
                          "acdd72a7-3385-48ef-bd42-f606fba81ae7"}   # Reader
    blob, reader = roles["ba92f5b4-2d11-453d-a403-e96b0029c9fe"], \
        roles["acdd72a7-3385-48ef-bd42-f606fba81ae7"]
    assert blob.inputs["scope"] == f"{container.name}-id"  # not the account (issue 21)
    assert reader.inputs["scope"] == f"{vmss.name}-id"  # peers for rank discovery, nothing else
    for role in (blob, reader):
        assert role.inputs["roleDefinitionId"].startswith(
            "/subscriptions/00000000-0000-0000-0000-000000000000/providers/"
            "Microsoft.Authorization/roleDefinitions/")
        assert role.inputs["principalId"] == "00000000-0000-0000-0000-00000000beef"  # identity's
    # System-assigned too: AADSSHLoginForLinux needs it (issue 21).
    assert vmss.inputs["identity"] == {"type": "SystemAssigned, UserAssigned",
                                       "userAssignedIdentities": [f"{identity.name}-id"]}


def test_custom_data_is_the_shared_boot_with_azures_facts(cluster):
    from trainstack_components.azure.boot import decode_custom_data
    plan = cluster[0]
    data = one(plan, VMSS).inputs["virtualMachineProfile"]["osProfile"]["customData"]
    config = yaml.safe_load(decode_custom_data(data))
    assert [c[1] for c in config["runcmd"]] == [
        "idle", "lustre", "scratch", "fabric", "ranks", "packages", "runtime", "jobs",
        "preemption", "scale-in-unmount", "health"]
    assert any("NCCL_TOPO_FILE=/opt/microsoft/ndv5-topo.xml" in f["content"]
               for f in config["write_files"])


def test_guardrail_policies_pass_on_the_azure_plan(cluster):
    verdicts = run_check(cluster[0])
    assert {v.policy: v.status for v in verdicts} == {v.policy: "pass" for v in verdicts}
    assert len(verdicts) >= 7


# ----------------------------------------------------------------------------- capacity

def test_spot_is_spot_priority_evicted_by_deallocation(example_spec):
    example_spec["clouds"]["azure"]["capacity"] = {"type": "spot"}
    profile = one(plan_for(example_spec, "azure"), VMSS).inputs["virtualMachineProfile"]
    assert profile["priority"] == "Spot" and profile["evictionPolicy"] == "Deallocate"
    assert profile["billingProfile"]["maxPrice"] == -1


def test_reservation_associates_the_group_with_the_scale_set(example_spec):
    example_spec["interconnect"] = "tcp"
    example_spec["clouds"]["azure"]["capacity"] = {"type": "reservation",
                                                   "reservation": RESERVATION}
    vmss = one(plan_for(example_spec, "azure"), VMSS)
    profile = vmss.inputs["virtualMachineProfile"]
    assert profile["capacityReservation"]["capacityReservationGroup"]["id"] == RESERVATION
    assert vmss.inputs["singlePlacementGroup"] is False  # Azure's rule for reservations


@pytest.mark.parametrize("edit, fragments", [
    ({"gpu": ["B200"]}, ["gpu", "B200", "4 GPUs per VM", "Standard_ND96isr_H100_v5",
                         "Standard_ND96isr_H200_v5", "Standard_ND96amsr_A100_v4"]),
    ({"nodes": 101}, ["nodes", "single placement group", "300"]),
    ({"capacity": {"type": "flex_start"}}, ["clouds.azure.capacity.type", "on_demand"]),
    ({"capacity": {"type": "capacity_block", "reservation": "cb-1"}},
     ["clouds.azure.capacity.type", "reservation"]),
    ({"capacity": {"type": "reservation", "reservation": RESERVATION}},
     ["singlePlacementGroup=false", "interconnect: tcp"]),
    ({"zone": "eastus-1"}, ["clouds.azure.zone", "\"1\""]),
])
def test_bad_azure_input_exits_2_with_a_clear_message(tmp_path, example_spec, edit, fragments):
    for key, value in edit.items():
        if key in ("gpu", "nodes"):
            example_spec[key] = value
        else:
            example_spec["clouds"]["azure"][key] = value
    if edit.get("nodes"):
        example_spec["budget"]["monthly_usd"] = 10_000_000
    path = write_spec(tmp_path, example_spec)
    assert_clean_error(runner.invoke(app, ["plan", "--spec", str(path), "--cloud", "azure"]),
                       *fragments)


# ----------------------------------------------------------------------------- deploy config

def test_lustre_blob_access_is_granted_before_the_filesystem_when_configured(example_spec):
    provider = "11111111-2222-3333-4444-555555555555"
    plan = plan_for(example_spec, "azure",
                    extra_config={"trainstack:azureLustreProviderObjectId": provider})
    account, fs = one(plan, ACCOUNT), one(plan, AMLFS)
    grants = [r for r in plan.of_type(ROLE) if r.inputs["principalId"] == provider]
    assert len(plan.of_type(ROLE)) == 4
    assert sorted(r.inputs["roleDefinitionId"].rsplit("/", 1)[1] for r in grants) == sorted(
        ["17d1049b-9a84-46fb-8f53-869881c3d3ab", "ba92f5b4-2d11-453d-a403-e96b0029c9fe"])
    assert all(r.inputs["scope"] == f"{account.name}-id" for r in grants)
    # The grants, then a wait for their propagation, then the file system (issue 21).
    (wait,) = plan.of_type("azure-native:resources:AzureCliScript")
    assert {r.urn for r in grants} <= set(wait.dependencies)
    assert wait.urn in fs.dependencies
    assert plan.outputs["filesystem_blob_access"].startswith("granted")


def test_without_the_lustre_provider_id_the_plan_says_what_is_missing(example_spec):
    plan = plan_for(example_spec, "azure")
    assert plan.outputs["filesystem_blob_access"].startswith("MISSING")
    assert "trainstack:azureLustreProviderObjectId" in plan.outputs["filesystem_blob_access"]


def test_the_admin_ssh_key_comes_from_stack_config(example_spec):
    key = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIExample user@host"
    plan = plan_for(example_spec, "azure", extra_config={"trainstack:sshPublicKey": key})
    linux = one(plan, VMSS).inputs["virtualMachineProfile"]["osProfile"]["linuxConfiguration"]
    assert linux["disablePasswordAuthentication"] is True
    assert linux["ssh"]["publicKeys"] == [{"keyData": key,
                                           "path": "/home/azureuser/.ssh/authorized_keys"}]


def test_the_subscription_in_the_spec_scopes_the_role_definitions(example_spec):
    example_spec["clouds"]["azure"]["subscription_id"] = "12345678-aaaa-bbbb-cccc-1234567890ab"
    for role in plan_for(example_spec, "azure").of_type(ROLE):
        assert role.inputs["roleDefinitionId"].startswith(
            "/subscriptions/12345678-aaaa-bbbb-cccc-1234567890ab/providers/")


def test_compare_prices_the_azure_plan_for_real():
    import json

    from tests.conftest import EXAMPLE
    result = runner.invoke(app, ["compare", "--spec", str(EXAMPLE), "--json"])
    assert result.exit_code == 0, result.output
    row = next(r for r in json.loads(result.output)["clouds"] if r["cloud"] == "azure")
    assert row["status"] == "ok" and row["instance_type"] == "Standard_ND96isr_H100_v5"
    assert row["policy"]["verdict"] == "pass" and row["policy"]["checked"] >= 7
    assert row["cost"]["filesystem"] > 0 and row["cost"]["total"] > row["cost"]["compute"]


# ----------------------------------------------------------------------------- operations

def test_the_reaper_finds_the_heartbeats_and_the_archive_command_in_the_outputs(example_spec,
                                                                               tmp_path):
    from trainstack.reap.reaper import CommandExportGuard, heartbeat_root
    plan = plan_for(example_spec, "azure")
    account = plan.outputs["storage_account"]
    assert heartbeat_root(plan.outputs, "azure") == \
        f"abfs://data@{account}.dfs.core.windows.net/heartbeats"
    assert plan.outputs["bucket_url"] == f"abfs://data@{account}.dfs.core.windows.net"
    ran = []
    ok, why = CommandExportGuard(run=lambda cmd: ran.append(cmd) or 0).confirm("azure",
                                                                                plan.outputs)
    assert ok and ran == [plan.outputs["filesystem_export_command"]]
    assert ran[0].startswith("requested=")   # the archive's start is checked against it
    assert "&& az amlfs archive --name llm-finetune-fs --resource-group " \
        "trainstack-llm-finetune-test " in ran[0]


def test_connect_finds_what_it_needs_in_the_outputs(example_spec):
    from trainstack.deploy.connect import session_command
    plan = plan_for(example_spec, "azure")
    command = session_command("azure", "3", plan.outputs, plan.inputs)
    assert command[:4] == ["az", "network", "bastion", "ssh"]
    assert f"{plan.outputs['scale_set_id']}/virtualMachines/3" in command
    assert plan.outputs["node_group"] == plan.outputs["scale_set"]
