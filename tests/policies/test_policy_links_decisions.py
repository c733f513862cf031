"""storage-same-zone's matching of storage to GPU compute (policies/links.py), judged in-process:
the rule function itself, as `trainstack check` runs it, so the mutation run (pyproject.toml
[tool.mutmut]) sees every decision. tests/policies/test_policy_storage_links.py drives the same
behaviour through the pack's gRPC server.

How a filesystem is matched (worked out by hand in each test):
1. to the GPU groups whose compute depends on it (user data / metadata / custom data built from
   its DNS name or mount point; Alibaba through its mount target);
2. else to the groups sharing its subnet / vSwitch;
3. else to the groups on its VPC network (AWS VPC, GCP network by resource or by name, Azure
   vnet by resource or by subnet id), in the filesystem's region only;
4. else to the GPU cluster of its region; else to every GPU group of its cloud.
From step 2 on, a group whose own mounts are visible is left to them where others remain.
A bucket is judged only when a cluster reads it (its compute, or a filesystem it mounts, depends
on it), against that cluster's region; the finding names at most five readers, then "N more".
"""
from __future__ import annotations

import pytest

from tests.policy_fixtures import res
from trainstack_policies.model import UNKNOWN, UnknownValue
from trainstack_policies.rules import storage_same_zone

FIX_FSX = "create the FSx file system in the node group's subnet (subnet_ids = that subnet)"
SPAN_FIX = "put every node group in one zone, so the filesystem can be in it too"


def same_zone(stack):
    # A fresh list each time: the inventory keeps the last list's groups by identity.
    return storage_same_zone.check(list(stack), {})


def messages(stack):
    return sorted(v.message for v in same_zone(stack))


def only(stack):
    found = same_zone(stack)
    assert len(found) == 1, [v.message for v in found]
    return found[0]


# ------------------------------------------------------------------------------------- AWS

def subnet(name, zone, **props):
    return res("aws:ec2/subnet:Subnet", name, {"availabilityZone": zone, **props})


def aws_group(name, zone, reads=(), on=None, region=None):
    """An ASG of 2 x p5.48xlarge in subnet `on` (else one of its own in `zone`); its launch
    template's user data is built from `reads`, so it depends on them."""
    on = on or subnet(f"{name}-subnet", zone)
    lt = res("aws:ec2/launchTemplate:LaunchTemplate", f"{name}-lt", {
        "instanceType": "p5.48xlarge"}, deps={"userData": list(reads)} if reads else {})
    group = res("aws:autoscaling/group:Group", name, {
        "minSize": 0.0, "maxSize": 2.0, **({"region": region} if region else {})},
        deps={"launchTemplate": [lt], "vpcZoneIdentifiers": [on]})
    return [on, lt, group]


def fsx(name, zone, on=None, **deps):
    """An FSx for Lustre in subnet `on` (else a storage subnet of its own in `zone`)."""
    on = on or subnet(f"{name}-subnet", zone)
    fs = res("aws:fsx/lustreFileSystem:LustreFileSystem", name, {
        "storageCapacity": 1200.0, "perUnitStorageThroughput": 250.0},
        deps={"subnetIds": [on], **deps})
    return [on, fs]


def s3(name, region):
    return res("aws:s3/bucket:Bucket", name, {"region": region})


def test_each_group_is_matched_to_the_filesystem_its_user_data_mounts():
    sa, fs_a = fsx("fs-a", "us-east-1a")
    sb, fs_b = fsx("fs-b", "us-east-1b")
    # gpu-a (us-east-1a) mounts fs-a (us-east-1a), gpu-b (us-east-1b) fs-b: one region, yet
    # two clusters by their mounts, each with its filesystem in its zone.
    stack = [sa, fs_a, sb, fs_b, *aws_group("gpu-a", "us-east-1a", [fs_a]),
             *aws_group("gpu-b", "us-east-1b", [fs_b])]
    assert same_zone(stack) == []
    # Swapped: fs-a is gpu-b's (us-east-1b) and fs-b gpu-a's (us-east-1a).
    stack = [sa, fs_a, sb, fs_b, *aws_group("gpu-a", "us-east-1a", [fs_b]),
             *aws_group("gpu-b", "us-east-1b", [fs_a])]
    assert messages(stack) == [
        "fs-a (aws:fsx/lustreFileSystem:LustreFileSystem): the filesystem is not in the GPU "
        f"nodes' zone. Found: us-east-1a. Expected: us-east-1b. Fix: {FIX_FSX}",
        "fs-b (aws:fsx/lustreFileSystem:LustreFileSystem): the filesystem is not in the GPU "
        f"nodes' zone. Found: us-east-1b. Expected: us-east-1a. Fix: {FIX_FSX}"]


def test_an_unmounted_filesystem_goes_to_the_groups_whose_mounts_cannot_be_seen():
    # gpu-a mounts fs-a; gpu-b's user data names no filesystem. fs-c (own subnet, no network)
    # falls to the us-east-1 cluster {gpu-a, gpu-b}, and of those to gpu-b only.
    sa, fs_a = fsx("fs-a", "us-east-1a")
    sc, fs_c = fsx("fs-c", "us-east-1b")
    stack = [sa, fs_a, sc, fs_c, *aws_group("gpu-a", "us-east-1a", [fs_a]),
             *aws_group("gpu-b", "us-east-1b")]
    assert same_zone(stack) == []
    sc.props["availabilityZone"] = "us-east-1c"
    v = only(stack)
    assert v.resource.startswith("fs-c (") and (v.found, v.expected) == ("us-east-1c",
                                                                       "us-east-1b")
    # Both groups' mounts visible (gpu-b mounts fs-a too): fs-c is the whole cluster's, which
    # spans us-east-1a and us-east-1b.
    stack = [sa, fs_a, sc, fs_c, *aws_group("gpu-a", "us-east-1a", [fs_a]),
             *aws_group("gpu-b", "us-east-1b", [fs_a])]
    found = same_zone(stack)
    assert any(v.problem == "the GPU nodes span more than one zone" and
               v.found == "us-east-1a, us-east-1b" and v.fix == SPAN_FIX for v in found)


def test_a_filesystem_in_a_groups_subnet_is_that_groups():
    # gpu-a and gpu-b in one region; fs in gpu-b's subnet: gpu-b's (us-east-1b).
    a, b = aws_group("gpu-a", "us-east-1a"), aws_group("gpu-b", "us-east-1b")
    _, fs = fsx("fs", "", on=b[0])
    assert same_zone([*a, *b, fs]) == []
    _, fs = fsx("fs", "", on=a[0])
    assert same_zone([*a, *b, fs]) == []


def test_a_filesystem_in_any_of_a_groups_subnets_is_that_groups():
    # gpu-a spans three subnets of us-east-1a, gpu-b one of us-east-1b, all in one VPC. The
    # FSx in gpu-a's first subnet is gpu-a's by that subnet, before the shared VPC (which
    # would give it both groups, two zones).
    vpc = res("aws:ec2/vpc:Vpc", "vpc", {"cidrBlock": "10.0.0.0/16"})
    subnets = [res("aws:ec2/subnet:Subnet", f"a-{i}", {"availabilityZone": "us-east-1a"},
                   deps={"vpcId": [vpc]}) for i in range(3)]
    b_subnet = res("aws:ec2/subnet:Subnet", "b-0", {"availabilityZone": "us-east-1b"},
                   deps={"vpcId": [vpc]})
    _, lt, gpu_a = aws_group("gpu-a", "us-east-1a", on=subnets[0])
    gpu_a.deps["vpcZoneIdentifiers"] = list(subnets)
    _, fs = fsx("fs", "", on=subnets[0])
    stack = [vpc, *subnets, b_subnet, lt, gpu_a, *aws_group("gpu-b", "", on=b_subnet)[1:], fs]
    assert same_zone(stack) == []


def test_filesystems_are_matched_by_vpc_within_their_region_only():
    # gpu-a (us-east-1a) and gpu-b (us-east-1b) each in a VPC of its own; each FSx in a storage
    # subnet of its cluster's VPC, in its cluster's zone: matched by VPC, no finding.
    vpcs = {k: res("aws:ec2/vpc:Vpc", f"vpc-{k}", {"cidrBlock": "10.0.0.0/16"}) for k in "ab"}
    stack = list(vpcs.values())
    storage = {}
    for k in "ab":
        zone = f"us-east-1{k}"
        nodes = subnet(f"nodes-{k}", zone)
        nodes.deps = {"vpcId": [vpcs[k]]}
        storage[k], fs = fsx(f"fs-{k}", zone)
        storage[k].deps = {"vpcId": [vpcs[k]]}
        stack += [storage[k], fs, *aws_group(f"gpu-{k}", zone, on=nodes)]
    assert same_zone(stack) == []
    # fs-a's storage subnet moved into vpc-b (still us-east-1a): gpu-b's, in another zone.
    storage["a"].deps = {"vpcId": [vpcs["b"]]}
    v = only(stack)
    assert v.resource.startswith("fs-a (") and (v.found, v.expected) == ("us-east-1a",
                                                                       "us-east-1b")


def test_gpu_clusters_in_two_regions_are_two_clusters():
    # east: gpu-e1 (us-east-1a), gpu-e2 (us-east-1b); west: gpu-w (us-west-2a). A filesystem
    # nobody mounts, on no shared subnet or network, belongs to its region's cluster.
    stack = [*aws_group("gpu-e1", "us-east-1a"), *aws_group("gpu-e2", "us-east-1b"),
             *aws_group("gpu-w", "us-west-2a")]
    assert same_zone([*stack, *fsx("fs", "us-west-2a")]) == []
    v = only([*stack, *fsx("fs", "us-west-2b")])
    assert (v.found, v.expected) == ("us-west-2b", "us-west-2a")
    # In us-east-1, used by neither group: two groups in two zones near it may be two clusters
    # (issue 35), not one spanning zones. In the zone of one of them it is that one's ...
    assert same_zone([*stack, *fsx("fs", "us-east-1a")]) == []
    # ... in neither zone it is in the wrong zone for both.
    v = only([*stack, *fsx("fs", "us-east-1c")])
    assert v.problem == "the filesystem is not in the GPU nodes' zone"
    assert (v.found, v.expected) == ("us-east-1c", "one of us-east-1a, us-east-1b")
    # In a region without a cluster: every GPU group of the cloud, three zones.
    v = only([*stack, *fsx("fs", "eu-west-1a")])
    assert v.found == "us-east-1a, us-east-1b, us-west-2a"


def test_a_zone_unknown_at_preview_is_cannot_decide_for_every_filesystem_of_the_group():
    # gpu's subnet zone is unknown until apply; its region is named. Three filesystems fall
    # to it (us-east-1 cluster): two FSx and a Multi-AZ OpenZFS (regional). None can be
    # decided, and none is judged against a zone or region the group does not have.
    gpu = aws_group("gpu", UNKNOWN, region="us-east-1")
    zfs = res("aws:fsx/openZfsFileSystem:OpenZfsFileSystem", "zfs", {
        "deploymentType": "MULTI_AZ_1", "storageCapacity": 64.0, "region": "us-east-1"},
        deps={"subnetIds": [subnet("zfs-subnet", "us-east-1b")]})
    stack = [*gpu, *fsx("fs-1", "us-east-1a"), zfs.deps["subnetIds"][0], zfs,
             *fsx("fs-2", "us-east-1c")]
    with pytest.raises(UnknownValue) as err:
        same_zone(stack)
    assert err.value.resource.name == "gpu" and err.value.path == "zone"
    # One group's zone unknown, two others known and different: the span is known now.
    stack = [*aws_group("gpu-u", UNKNOWN, region="us-east-1"),
             *aws_group("gpu-a", "us-east-1a"), *aws_group("gpu-b", "us-east-1b"),
             *fsx("fs", "us-east-1a")]
    v = only(stack)
    assert v.problem == "the GPU nodes span more than one zone"
    assert v.found == "us-east-1a, us-east-1b"


# ------------------------------------------------------------------------------------- GCP

def gcp_group(name, zone, reads=(), network=None, network_name="default"):
    """An instance group of 2 x a3-highgpu-8g; its template's startup script names `reads`;
    its interface is on `network` (a resource) or the network named `network_name`."""
    deps = {"metadata": list(reads)} if reads else {}
    if network is not None:
        deps["networkInterfaces"] = [network]
    template = res("gcp:compute/instanceTemplate:InstanceTemplate", f"{name}-template", {
        "machineType": "a3-highgpu-8g",
        "networkInterfaces": [{"network": UNKNOWN if network is not None else network_name}]},
        deps=deps)
    igm = res("gcp:compute/instanceGroupManager:InstanceGroupManager", name, {
        "zone": zone, "targetSize": 2.0}, deps={"versions": [template]})
    return [template, igm]


def lustre(name, zone, network_name=None, network=None):
    props = {"location": zone, "capacityGib": "36000", "perUnitStorageThroughput": "250"}
    if network_name is not None:
        props["network"] = network_name
    return res("gcp:lustre/instance:Instance", name, props,
               deps={"network": [network]} if network is not None else {})


PATH = "projects/p/global/networks/{}"


def test_gcp_networks_named_by_path_match_only_within_the_filesystems_region():
    fs = lustre("fs-a", "us-central1-a", PATH.format("train-a"))
    stack = [fs, *gcp_group("gpu-a", "us-central1-a", network_name=PATH.format("train-a")),
             *gcp_group("gpu-b", "us-central1-b", network_name=PATH.format("train-b")),
             # the same global network in another region: another cluster, not a match
             *gcp_group("gpu-eu", "europe-west4-a", network_name=PATH.format("train-a"))]
    assert same_zone(stack) == []
    fs.props["network"] = PATH.format("train-b")
    v = only(stack)
    assert v.message == (
        "fs-a (gcp:lustre/instance:Instance): the filesystem is not in the GPU nodes' zone. "
        "Found: us-central1-a. Expected: us-central1-b. Fix: set the instance's location to "
        "the node group's zone")


def test_gcp_network_resources_match_a_filesystem_naming_them():
    # The groups' interfaces depend on network resources whose name is train-a / train-b;
    # the Lustre instance names its network by path, the Filestore through `networks`.
    nets = {k: res("gcp:compute/network:Network", f"net-{k}", {"name": f"train-{k}"})
            for k in "ab"}
    fs = lustre("fs", "us-central1-a", PATH.format("train-a"))
    share = res("gcp:filestore/instance:Instance", "share", {
        "location": "us-central1-b", "tier": "ZONAL",
        "fileShares": {"name": "s", "capacityGb": 1024.0},
        "networks": [{"network": "train-b", "modes": ["MODE_IPV4"]}]})
    stack = [*nets.values(), fs, share,
             *gcp_group("gpu-a", "us-central1-a", network=nets["a"]),
             *gcp_group("gpu-b", "us-central1-b", network=nets["b"])]
    assert same_zone(stack) == []
    share.props["networks"][0]["network"] = "train-a"
    v = only(stack)
    assert v.resource == "share (gcp:filestore/instance:Instance)"
    assert (v.found, v.expected) == ("us-central1-b", "us-central1-a")
    # A dependency on the network resource matches too (its name unknown until apply).
    share.props["networks"][0]["network"] = UNKNOWN
    share.deps = {"networks": [nets["b"]]}
    nets["b"].props["name"] = UNKNOWN
    assert same_zone(stack) == []


def test_a_network_unknown_at_preview_matches_nothing():
    # gpu-a's network and the filesystem's are unknown until apply: that is no shared network,
    # so the filesystem falls to the us-central1 groups, in two zones: two clusters near it
    # (issue 35), not one spanning zones. It must be in the zone of one of them.
    fs = lustre("fs", "us-central1-a", UNKNOWN)
    stack = [fs, *gcp_group("gpu-a", "us-central1-a", network_name=UNKNOWN),
             *gcp_group("gpu-b", "us-central1-b")]
    assert same_zone(stack) == []
    fs.props["location"] = "us-central1-c"
    v = only(stack)
    assert v.problem == "the filesystem is not in the GPU nodes' zone"
    assert v.expected == "one of us-central1-a, us-central1-b"


# ------------------------------------------------------------------------------------ Azure

def vmss(name, zone, **deps):
    return res("azure-native:compute:VirtualMachineScaleSet", name, {
        "location": "eastus", "zones": [zone],
        "sku": {"name": "Standard_ND96isr_H100_v5", "capacity": 2.0}}, deps=deps)


def amlfs(name, zone, subnet_id=None, **deps):
    return res("azure-native:storagecache:AmlFilesystem", name, {
        "location": "eastus", "zones": [zone], "storageCapacityTiB": 8.0,
        "sku": {"name": "AMLFS-Durable-Premium-250"},
        **({"filesystemSubnet": subnet_id} if subnet_id is not None else {})}, deps=deps)


AZ_FS = "azure-native:storagecache:AmlFilesystem"
AZ_FIX = "set zones=[<the nodes' zone>] and the nodes' location on the AmlFilesystem"


def test_azure_vnets_of_one_name_in_two_resource_groups_are_two_networks():
    # Both vnets are called "train" (names are unique only within a resource group): the
    # resources, not the names, say which subnet is in which.
    vnets = {k: res("azure-native:network:VirtualNetwork", f"vnet-{k}", {
        "location": "eastus", "virtualNetworkName": "train"}) for k in "ab"}
    subnets = {(k, role): res("azure-native:network:Subnet", f"{role}-{k}", {
        "addressPrefix": "10.0.0.0/24"}, deps={"virtualNetworkName": [vnets[k]]})
        for k in "ab" for role in ("nodes", "lustre")}
    fs_a = amlfs("fs-a", "1", filesystemSubnet=[subnets["a", "lustre"]])
    stack = [*vnets.values(), *subnets.values(), fs_a,
             vmss("gpu-a", "1", virtualMachineProfile=[subnets["a", "nodes"]]),
             vmss("gpu-b", "2", virtualMachineProfile=[subnets["b", "nodes"]])]
    assert same_zone(stack) == []
    fs_a.deps = {"filesystemSubnet": [subnets["b", "lustre"]]}
    assert messages(stack) == [
        f"fs-a ({AZ_FS}): the filesystem is not in the GPU nodes' zone. Found: zone 1 in "
        f"eastus. Expected: zone 2 in eastus. Fix: {AZ_FIX}"]


SID = "/subscriptions/s/resourceGroups/RG/providers/Microsoft.Network/virtualNetworks/{}" \
      "/subnets/{}"


def nic_configs(*subnet_ids):
    """A scale set's networkProfile: one interface, an IP configuration per subnet id (None:
    an IP configuration that names no subnet)."""
    return {"networkInterfaceConfigurations": [{"name": "nic", "ipConfigurations": [
        {"name": f"ip{i}", **({"subnet": {"id": s}} if s else {})}
        for i, s in enumerate(subnet_ids)]}]}


def test_azure_existing_vnets_are_read_from_subnet_ids_in_any_case():
    a, b = vmss("gpu-a", "1"), vmss("gpu-b", "2")
    a.props["virtualMachineProfile"] = {"networkProfile": nic_configs(
        None, SID.format("vnet-a", "nodes"))}
    b.props["virtualMachineProfile"] = {"networkProfile": nic_configs(
        SID.format("vnet-b", "nodes"))}
    # The filesystem's subnet id is spelt in lower case: Azure ids compare case-insensitively.
    fs = amlfs("fs", "1", SID.format("vnet-a", "lustre").lower())
    assert same_zone([fs, a, b]) == []
    # In gpu-b's very subnet: gpu-b's.
    fs.props["filesystemSubnet"] = SID.format("vnet-b", "nodes")
    v = only([fs, a, b])
    assert (v.found, v.expected) == ("zone 1 in eastus", "zone 2 in eastus")
    # In vnet-b's lustre subnet: still gpu-b's, by the vnet.
    fs.props["filesystemSubnet"] = SID.format("vnet-b", "lustre")
    v = only([fs, a, b])
    assert (v.found, v.expected) == ("zone 1 in eastus", "zone 2 in eastus")
    # Unknown until apply: no network to share, so the eastus groups, zones 1 and 2: the
    # filesystem in zone 1 is gpu-a's (issue 35: two clusters near it, not one spanning).
    fs.props["filesystemSubnet"] = UNKNOWN
    assert same_zone([fs, a, b]) == []
    fs.props["zones"] = ["3"]
    v = only([fs, a, b])
    assert (v.found, v.expected) == ("zone 3 in eastus", "one of zones 1, 2 in eastus")


def classic_vmss(name, zone, subnet_id):
    return res("azure:compute/linuxVirtualMachineScaleSet:LinuxVirtualMachineScaleSet", name, {
        "location": "eastus", "zones": [zone], "sku": "Standard_ND96isr_H100_v5",
        "instances": 2.0, "networkInterfaces": [{"name": "nic", "primary": True,
                                                 "ipConfigurations": [{"name": "ip",
                                                                       "subnetId": subnet_id}]}]})


def test_azure_classic_scale_sets_name_their_subnets_in_network_interfaces():
    a = classic_vmss("gpu-a", "1", SID.format("vnet-a", "nodes"))
    b = classic_vmss("gpu-b", "2", SID.format("vnet-b", "nodes"))
    fs = amlfs("fs", "2", SID.format("vnet-b", "lustre"))
    assert same_zone([a, b, fs]) == []
    fs.props["zones"] = ["1"]
    v = only([a, b, fs])
    assert (v.found, v.expected) == ("zone 1 in eastus", "zone 2 in eastus")


def test_azure_classic_scale_sets_with_two_interfaces_are_on_both_subnets():
    # gpu-b's first interface is on vnet-b's node subnet, its second on a management vnet:
    # the filesystem in vnet-b is still gpu-b's.
    a = classic_vmss("gpu-a", "1", SID.format("vnet-a", "nodes"))
    b = classic_vmss("gpu-b", "2", SID.format("vnet-b", "nodes"))
    b.props["networkInterfaces"].append({"name": "mgmt", "ipConfigurations": [
        {"name": "ip", "subnetId": SID.format("vnet-mgmt", "admin")}]})
    fs = amlfs("fs", "2", SID.format("vnet-b", "lustre"))
    assert same_zone([a, b, fs]) == []


def test_azure_vms_reach_their_subnet_through_a_network_interface():
    stack, vms = [], {}
    for k, zone in (("a", "1"), ("b", "2")):
        vnet = res("azure-native:network:VirtualNetwork", f"vnet-{k}", {"location": "eastus"})
        nodes = res("azure-native:network:Subnet", f"nodes-{k}", {},
                    deps={"virtualNetworkName": [vnet]})
        lustre_subnet = res("azure-native:network:Subnet", f"lustre-{k}", {},
                            deps={"virtualNetworkName": [vnet]})
        nic = res("azure-native:network:NetworkInterface", f"nic-{k}", {},
                  deps={"ipConfigurations": [nodes]})
        vms[k] = res("azure-native:compute:VirtualMachine", f"gpu-{k}", {
            "location": "eastus", "zones": [zone],
            "hardwareProfile": {"vmSize": "Standard_ND96isr_H100_v5"}},
            deps={"networkProfile": [nic]})
        stack += [vnet, nodes, lustre_subnet, nic, vms[k]]
    fs = amlfs("fs", "2", filesystemSubnet=[stack[7]])      # lustre-b
    assert same_zone([*stack, fs]) == []
    fs.props["zones"] = ["1"]
    v = only([*stack, fs])
    assert (v.found, v.expected) == ("zone 1 in eastus", "zone 2 in eastus")


def test_an_azure_storage_account_read_through_its_blob_container():
    account = res("azure-native:storage:StorageAccount", "acct", {"location": "westus"})
    container = res("azure-native:storage:BlobContainer", "data", {"accountName": UNKNOWN},
                    deps={"accountName": [account]})
    stack = [account, container, vmss("gpu", "1", virtualMachineProfile=[container])]
    assert messages(stack) == [
        "acct (azure-native:storage:StorageAccount): the bucket is not in the region of the GPU "
        "cluster that reads it (gpu in eastus). Found: westus. Expected: eastus. Fix: set "
        'location="eastus" on the storage account']
    account.props["location"] = "East US"
    assert same_zone(stack) == []


# ---------------------------------------------------------------------------------- Alibaba

ALI = "eu-central-1"


def ali_group(name, zone, mount=None):
    vsw = res("alicloud:vpc/switch:Switch", f"{name}-vsw", {"zoneId": zone},
              provider_region=ALI)
    group = res("alicloud:ess/scalingGroup:ScalingGroup", name, {
        "minSize": 0.0, "maxSize": 2.0}, deps={"vswitchIds": [vsw]}, provider_region=ALI)
    config = res("alicloud:ess/scalingConfiguration:ScalingConfiguration", f"{name}-config", {
        "instanceType": "ecs.gn8v-8x.48xlarge"},
        deps={"scalingGroupId": [group], **({"userData": [mount]} if mount else {})},
        provider_region=ALI)
    return [vsw, group, config]


def cpfs(name, zone):
    fs = res("alicloud:nas/fileSystem:FileSystem", name, {
        "fileSystemType": "cpfs", "storageType": "advance_200", "capacity": 3600.0,
        "zoneId": zone}, provider_region=ALI)
    mount = res("alicloud:nas/mountTarget:MountTarget", f"{name}-mount", {
        "fileSystemId": UNKNOWN}, deps={"fileSystemId": [fs]}, provider_region=ALI)
    return fs, mount


def test_alibaba_groups_mount_their_cpfs_through_its_mount_target():
    fs_a, mount_a = cpfs("fs-a", "eu-central-1a")
    fs_b, mount_b = cpfs("fs-b", "eu-central-1b")
    base = [fs_a, mount_a, fs_b, mount_b]
    assert same_zone(base + ali_group("gpu-a", "eu-central-1a", mount_a)
                     + ali_group("gpu-b", "eu-central-1b", mount_b)) == []
    found = same_zone(base + ali_group("gpu-a", "eu-central-1a", mount_b)
                      + ali_group("gpu-b", "eu-central-1b", mount_a))
    assert sorted((v.resource.split(" (")[0], v.found, v.expected) for v in found) == [
        ("fs-a", "eu-central-1a", "eu-central-1b"), ("fs-b", "eu-central-1b", "eu-central-1a")]


def test_an_oss_bucket_imported_through_the_mount_target_is_read_by_the_cluster():
    # An import job (a command after the mount target) copies from an OSS bucket created by a
    # provider for cn-hangzhou into the CPFS gpu-a mounts (eu-central-1).
    fs, mount = cpfs("fs", "eu-central-1a")
    bucket = res("alicloud:oss/bucket:Bucket", "data", {"bucket": "data"},
                 provider_region="cn-hangzhou")
    job = res("command:local:Command", "import", {"create": UNKNOWN},
              deps={"create": [bucket], "triggers": [mount]})
    stack = [fs, mount, bucket, *ali_group("gpu-a", "eu-central-1a", mount)]
    assert same_zone(stack) == []                     # nobody reads it yet
    assert messages([*stack, job]) == [
        "data (alicloud:oss/bucket:Bucket): the bucket is not in the region of the GPU cluster "
        "that reads it (gpu-a in eu-central-1). Found: cn-hangzhou. Expected: eu-central-1. "
        "Fix: create the bucket with a provider for the cluster's region"]


# ---------------------------------------------------------------------------------- buckets

def bucket_stack(link):
    """gpu-a and gpu-b (us-east-1a) mount fs-1 (us-east-1a); gpu-c (us-east-1b) mounts fs-2
    (us-east-1b). `datasets` (us-west-2) is imported into fs-1 (`link`); gpu-b and gpu-c read
    `scratch` (eu-west-1) directly."""
    datasets, scratch = s3("datasets", "us-west-2"), s3("scratch", "eu-west-1")
    s1, fs_1 = fsx("fs-1", "us-east-1a")
    s2, fs_2 = fsx("fs-2", "us-east-1b")
    stack = [s1, fs_1, s2, fs_2, datasets, scratch,
             *aws_group("gpu-a", "us-east-1a", [fs_1]),
             *aws_group("gpu-b", "us-east-1a", [fs_1, scratch]),
             *aws_group("gpu-c", "us-east-1b", [fs_2, scratch])]
    if link == "importPath":
        fs_1.deps["importPath"] = [datasets]
    else:
        stack.append(res("aws:fsx/dataRepositoryAssociation:DataRepositoryAssociation",
                         "link", {"fileSystemId": UNKNOWN, "dataRepositoryPath": UNKNOWN},
                         deps={"fileSystemId": [fs_1], "dataRepositoryPath": [datasets]}))
    return stack


@pytest.mark.parametrize("link", ["importPath", "association"])
def test_buckets_name_the_clusters_that_read_them_directly_or_through_a_filesystem(link):
    assert messages(bucket_stack(link)) == [
        # Read through fs-1 by its two mounters only (not by gpu-c, whose fs-2 imports nothing).
        "datasets (aws:s3/bucket:Bucket): the bucket is not in the region of the GPU cluster "
        "that reads it (gpu-a, gpu-b in us-east-1). Found: us-west-2. Expected: us-east-1. "
        'Fix: set region="us-east-1" on the bucket',
        # Read by gpu-b and gpu-c themselves: gpu-a mounts fs-1 as gpu-b does, but fs-1 does
        # not read scratch.
        "scratch (aws:s3/bucket:Bucket): the bucket is not in the region of the GPU cluster "
        "that reads it (gpu-b, gpu-c in us-east-1). Found: eu-west-1. Expected: us-east-1. "
        'Fix: set region="us-east-1" on the bucket']


def test_a_bucket_of_another_cloud_is_skipped_not_the_end_of_the_list():
    gcs = res("gcp:storage/bucket:Bucket", "elsewhere", {"location": "EU"})
    data = s3("data", "eu-west-1")
    stack = [gcs, data, *aws_group("gpu", "us-east-1a", [data])]
    v = only(stack)
    assert v.resource == "data (aws:s3/bucket:Bucket)" and v.found == "eu-west-1"


def test_a_bucket_region_unknown_at_preview_is_cannot_decide_only_if_a_cluster_reads_it():
    data = s3("data", UNKNOWN)
    assert same_zone([data, *aws_group("gpu", "us-east-1a")]) == []
    with pytest.raises(UnknownValue) as err:
        same_zone([data, *aws_group("gpu", "us-east-1a", [data])])
    assert err.value.resource.name == "data" and err.value.path == "region"


@pytest.mark.parametrize("readers, shown", [
    (5, "gpu-1, gpu-2, gpu-3, gpu-4, gpu-5"),
    (6, "gpu-1, gpu-2, gpu-3, gpu-4, gpu-5, 1 more"),
    (8, "gpu-1, gpu-2, gpu-3, gpu-4, gpu-5, 3 more")])
def test_a_finding_names_five_readers_then_how_many_more(readers, shown):
    data = s3("data", "eu-west-1")
    stack = [data]
    for i in range(1, readers + 1):
        stack += aws_group(f"gpu-{i}", "us-east-1a", [data])
    v = only(stack)
    assert v.problem == ("the bucket is not in the region of the GPU cluster that reads it "
                         f"({shown} in us-east-1)")


def test_a_gcs_bucket_names_every_reader_and_the_region():
    bucket = res("gcp:storage/bucket:Bucket", "data", {"location": "EU"})
    stack = [bucket, *gcp_group("gpu-b", "us-central1-a", [bucket]),
             *gcp_group("gpu-a", "us-central1-a", [bucket])]
    assert messages(stack) == [
        "data (gcp:storage/bucket:Bucket): the bucket is in a multi-region, not the region of "
        "the GPU cluster that reads it (gpu-a, gpu-b in us-central1). Found: EU. Expected: "
        'US-CENTRAL1. Fix: set location="US-CENTRAL1" (a single region)']


def test_two_large_clusters_sharing_only_their_end_groups_are_placed_apart():
    # 64 groups mount fs-a: the two shared ones plus 62 of their own in us-east-1a. 64 groups
    # mount fs-b: the same two plus 62 of their own in us-east-1b. Both lists have 64 groups and
    # the same first and last, yet fs-b's cluster spans us-east-1a and us-east-1b (a span),
    # while fs-a's is all in us-east-1a, where fs-a is (no finding for it).
    sa, fs_a = fsx("fs-a", "us-east-1a")
    sb, fs_b = fsx("fs-b", "us-east-1a")
    first = aws_group("shared-0", "us-east-1a", [fs_a, fs_b])
    last = aws_group("shared-9", "us-east-1a", [fs_a, fs_b])
    own_a = [r for i in range(62) for r in aws_group(f"a-{i:02}", "us-east-1a", [fs_a])]
    own_b = [r for i in range(62) for r in aws_group(f"b-{i:02}", "us-east-1b", [fs_b])]
    found = same_zone([sa, fs_a, sb, fs_b, *first, *own_a, *own_b, *last])
    spans = [v for v in found if v.problem == "the GPU nodes span more than one zone"]
    assert [v.found for v in spans] == ["us-east-1a, us-east-1b"]
    assert all("fs-a" not in v.message for v in found)
