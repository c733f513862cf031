"""Issue 24, same-zone per cluster and edge subnets, over gRPC as `pulumi preview --policy-pack`
drives the pack.

- storage-same-zone matches a filesystem to the GPU compute that mounts it (its launch template,
  instance template, scale set or scaling configuration depends on the filesystem, as user data
  built from its DNS name / mount point does), else to the compute sharing its subnet or VPC
  network in its region, else to its region's cluster;
- a bucket is judged only when a GPU cluster reads it (its compute, or a filesystem it mounts
  through an import path / data repository association / HSM container, depends on it), and
  then against that cluster's region;
- a public subnet holding only NAT gateways / load balancers is an edge subnet; one a group is
  placed in is not, whatever its tags; a subnet unknown at preview is "cannot decide".

Expected values are worked out by hand in each test: the zone of a filesystem is its subnet's /
location's / zones' zone, the zone of a group its subnet's / zone's / zones'.
"""
from __future__ import annotations

import pytest

from tests.policy_fixtures import OWNER_LABELS, OWNER_TAGS, res
from tests.policy_harness import run
from tests.policies.test_policy_abuse_unknowns import budget, of
from trainstack_policies.model import UNKNOWN

TAGS = dict(OWNER_TAGS)
LABELS = dict(OWNER_LABELS)
ZONE = "storage-same-zone"
INGRESS = "no-public-ingress"


def messages(found):
    return sorted(d.message for d in found)


# ------------------------------------------------------------------------------------- AWS

def aws_subnet(name, zone, **props):
    return res("aws:ec2/subnet:Subnet", name, {"availabilityZone": zone, "tags": TAGS, **props})


def aws_group(name, zone, reads=(), subnet=None):
    """An ASG of 2 x p5.48xlarge in its own subnet; its launch template's user data is built
    from `reads` (filesystems, buckets), so it depends on them."""
    subnet = subnet or aws_subnet(f"{name}-subnet", zone)
    lt = res("aws:ec2/launchTemplate:LaunchTemplate", f"{name}-lt", {
        "instanceType": "p5.48xlarge", "userData": "I2Nsb3VkLWNvbmZpZw==", "tags": TAGS},
        deps={"userData": list(reads)} if reads else {})
    group = res("aws:autoscaling/group:Group", name, {
        "minSize": 0.0, "maxSize": 2.0, "vpcZoneIdentifiers": [UNKNOWN], "tags": [
            {"key": k, "value": v, "propagateAtLaunch": True} for k, v in TAGS.items()]},
        deps={"launchTemplate": [lt], "vpcZoneIdentifiers": [subnet]})
    return [subnet, lt, group]


def fsx(name, zone, **deps):
    """An FSx for Lustre in a storage subnet of its own (not the nodes')."""
    subnet = aws_subnet(f"{name}-subnet", zone)
    fs = res("aws:fsx/lustreFileSystem:LustreFileSystem", name, {
        "storageCapacity": 1200.0, "perUnitStorageThroughput": 250.0, "subnetIds": [UNKNOWN],
        "tags": TAGS}, deps={"subnetIds": [subnet], **deps})
    return [subnet, fs]


def s3(name, region):
    return res("aws:s3/bucket:Bucket", name, {"region": region, "tags": {
        **TAGS, "trainstack:retain": "true"}}, retain=True)


def two_aws_clusters(a_mounts, b_mounts):
    """gpu-a in us-east-1a, gpu-b in us-east-1b (one region: one cluster by region alone);
    fs-a in us-east-1a, fs-b in us-east-1b."""
    sa, fs_a = fsx("fs-a", "us-east-1a")
    sb, fs_b = fsx("fs-b", "us-east-1b")
    fs = {"fs-a": fs_a, "fs-b": fs_b}
    return [sa, fs_a, sb, fs_b, *aws_group("gpu-a", "us-east-1a", [fs[a_mounts]]),
            *aws_group("gpu-b", "us-east-1b", [fs[b_mounts]]), budget("900000")]


def test_aws_each_cluster_mounting_its_own_fsx_in_its_zone_passes(pack):
    # Old code pooled gpu-a and gpu-b (one region) and reported them spanning two zones.
    assert of(run(pack, two_aws_clusters("fs-a", "fs-b")), ZONE) == []


def test_aws_swapped_mounts_fail_naming_both_filesystems(pack):
    found = of(run(pack, two_aws_clusters("fs-b", "fs-a")), ZONE)
    # fs-a (us-east-1a) is mounted by gpu-b (us-east-1b), fs-b (us-east-1b) by gpu-a.
    assert [m.split(". Fix:")[0] for m in messages(found)] == [
        "fs-a (aws:fsx/lustreFileSystem:LustreFileSystem): the filesystem is not in the GPU "
        "nodes' zone. Found: us-east-1a. Expected: us-east-1b",
        "fs-b (aws:fsx/lustreFileSystem:LustreFileSystem): the filesystem is not in the GPU "
        "nodes' zone. Found: us-east-1b. Expected: us-east-1a"]
    assert all(d.level == "mandatory" for d in found)


def test_a_filesystem_no_compute_mounts_is_left_to_the_group_without_visible_mounts(pack):
    # gpu-a mounts fs-a (its user data names it); gpu-b's mounts cannot be seen. fs-c in
    # us-east-1b is matched to gpu-b only, so it passes; in us-east-1c it is flagged against
    # gpu-b's zone.
    sa, fs_a = fsx("fs-a", "us-east-1a")
    sc, fs_c = fsx("fs-c", "us-east-1b")
    stack = [sa, fs_a, sc, fs_c, *aws_group("gpu-a", "us-east-1a", [fs_a]),
             *aws_group("gpu-b", "us-east-1b"), budget("900000")]
    assert of(run(pack, stack), ZONE) == []
    sc.props["availabilityZone"] = "us-east-1c"
    [d] = of(run(pack, stack), ZONE)
    assert "fs-c (" in d.message and "Found: us-east-1c. Expected: us-east-1b" in d.message


# ------------------------------------------------------------------------------------- GCP

def gcp_group(name, zone, reads=(), network=None, network_name=None):
    nic = {"network": network_name if network_name else UNKNOWN if network else "default"}
    deps = {}
    if reads:
        deps["metadata"] = list(reads)
    if network is not None:
        deps["networkInterfaces"] = [network]
    template = res("gcp:compute/instanceTemplate:InstanceTemplate", f"{name}-template", {
        "machineType": "a3-highgpu-8g", "networkInterfaces": [nic], "labels": LABELS,
        "metadata": {"startup-script": "#!/bin/bash"}}, deps=deps)
    igm = res("gcp:compute/instanceGroupManager:InstanceGroupManager", name, {
        "zone": zone, "targetSize": 2.0, "baseInstanceName": name,
        "versions": [{"instanceTemplate": UNKNOWN}]}, deps={"versions": [template]})
    return [template, igm]


def gcp_fs(kind, name, zone, network=None, network_name=None):
    props = {"location": zone, "capacityGib": "36000", "labels": LABELS}
    if kind == "lustre":
        props["perUnitStorageThroughput"] = "250"
    if network is not None or network_name:
        props["network"] = network_name or UNKNOWN
    return res(f"gcp:{kind}/instance:Instance", name, props,
               deps={"network": [network]} if network is not None else {})


@pytest.mark.parametrize("kind", ["lustre", "parallelstore"])
def test_gcp_instance_templates_mounting_their_own_filesystem(pack, kind):
    fs_a = gcp_fs(kind, "fs-a", "us-central1-a")
    fs_b = gcp_fs(kind, "fs-b", "us-central1-b")

    def stack(a, b):
        return [fs_a, fs_b, *gcp_group("gpu-a", "us-central1-a", [a]),
                *gcp_group("gpu-b", "us-central1-b", [b])]
    assert of(run(pack, stack(fs_a, fs_b)), ZONE) == []
    found = of(run(pack, stack(fs_b, fs_a)), ZONE)
    assert [m.split(". Fix:")[0].split(": ", 1)[1] for m in messages(found)] == [
        "the filesystem is not in the GPU nodes' zone. Found: us-central1-a. "
        "Expected: us-central1-b",
        "the filesystem is not in the GPU nodes' zone. Found: us-central1-b. "
        "Expected: us-central1-a"]
    assert [m.split(" (")[0] for m in messages(found)] == ["fs-a", "fs-b"]


def test_gcp_compute_and_filesystem_on_one_vpc_network_are_matched(pack):
    net_a = res("gcp:compute/network:Network", "net-a", {"autoCreateSubnetworks": False})
    net_b = res("gcp:compute/network:Network", "net-b", {"autoCreateSubnetworks": False})
    fs_a = gcp_fs("lustre", "fs-a", "us-central1-a", net_a)
    fs_b = gcp_fs("lustre", "fs-b", "us-central1-b", net_b)
    stack = [net_a, net_b, fs_a, fs_b, *gcp_group("gpu-a", "us-central1-a", network=net_a),
             *gcp_group("gpu-b", "us-central1-b", network=net_b)]
    # Each filesystem shares a network with the nodes in its own zone only.
    assert of(run(pack, stack), ZONE) == []
    # fs-a moved onto net-b: it is gpu-b's (us-central1-b), in us-central1-a.
    fs_a.deps = {"network": [net_b]}
    [d] = of(run(pack, stack), ZONE)
    assert d.message.startswith("fs-a (") and "Found: us-central1-a. Expected: us-central1-b" \
        in d.message
    # A mount says otherwise: gpu-a's startup script names fs-a, so fs-a is gpu-a's.
    stack[4].deps["metadata"] = [fs_a]
    assert of(run(pack, stack), ZONE) == []


def test_gcp_networks_named_by_path_and_a_global_network_across_regions(pack):
    path = "projects/p/global/networks/{}"
    fs_a = gcp_fs("lustre", "fs-a", "us-central1-a", network_name=path.format("train-a"))
    stack = [fs_a,
             *gcp_group("gpu-a", "us-central1-a", network_name=path.format("train-a")),
             *gcp_group("gpu-b", "us-central1-b", network_name=path.format("train-b")),
             # the same global network in another region: another cluster, not a span
             *gcp_group("gpu-eu", "europe-west4-a", network_name=path.format("train-a"))]
    assert of(run(pack, stack), ZONE) == []
    fs_a.props["network"] = path.format("train-b")
    [d] = of(run(pack, stack), ZONE)
    assert "Found: us-central1-a. Expected: us-central1-b" in d.message


# ------------------------------------------------------------------------------------ Azure

def vmss(name, zone, **deps):
    return res("azure-native:compute:VirtualMachineScaleSet", name, {
        "location": "eastus", "zones": [zone], "tags": TAGS,
        "sku": {"name": "Standard_ND96isr_H100_v5", "capacity": 2.0},
        "virtualMachineProfile": {"priority": "Regular"}}, deps=deps)


def amlfs(name, zone, subnet="", **deps):
    return res("azure-native:storagecache:AmlFilesystem", name, {
        "location": "eastus", "zones": [zone], "storageCapacityTiB": 8.0,
        "sku": {"name": "AMLFS-Durable-Premium-250"}, "filesystemSubnet": subnet or UNKNOWN,
        "tags": TAGS}, deps=deps)


def test_azure_scale_sets_mounting_their_own_amlfs(pack):
    fs_1, fs_2 = amlfs("fs-1", "1"), amlfs("fs-2", "2")
    assert of(run(pack, [fs_1, fs_2, vmss("gpu-1", "1", virtualMachineProfile=[fs_1]),
                         vmss("gpu-2", "2", virtualMachineProfile=[fs_2])]), ZONE) == []
    found = of(run(pack, [fs_1, fs_2, vmss("gpu-1", "1", virtualMachineProfile=[fs_2]),
                          vmss("gpu-2", "2", virtualMachineProfile=[fs_1])]), ZONE)
    assert [(m.split(" (")[0], m.split("Found: ")[1].split(". Fix")[0])
            for m in messages(found)] == [
        ("fs-1", "zone 1 in eastus. Expected: zone 2 in eastus"),
        ("fs-2", "zone 2 in eastus. Expected: zone 1 in eastus")]


def test_azure_compute_and_filesystem_in_one_vnet_are_matched(pack):
    vnets = {k: res("azure-native:network:VirtualNetwork", f"vnet-{k}", {"location": "eastus"})
             for k in "ab"}
    subnets = {(k, role): res("azure-native:network:Subnet", f"{role}-{k}", {
        "addressPrefix": "10.0.0.0/24"}, deps={"virtualNetworkName": [vnets[k]]})
        for k in "ab" for role in ("nodes", "lustre")}
    fs_a = amlfs("fs-a", "1", filesystemSubnet=[subnets["a", "lustre"]])
    fs_b = amlfs("fs-b", "2", filesystemSubnet=[subnets["b", "lustre"]])
    stack = [*vnets.values(), *subnets.values(), fs_a, fs_b,
             vmss("gpu-a", "1", virtualMachineProfile=[subnets["a", "nodes"]]),
             vmss("gpu-b", "2", virtualMachineProfile=[subnets["b", "nodes"]])]
    assert of(run(pack, stack), ZONE) == []
    fs_a.deps = {"filesystemSubnet": [subnets["b", "lustre"]]}
    [d] = of(run(pack, stack), ZONE)
    assert d.message.startswith("fs-a (") and \
        "Found: zone 1 in eastus. Expected: zone 2 in eastus" in d.message


def test_azure_existing_vnet_named_by_subnet_id(pack):
    sid = "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/{}" \
          "/subnets/{}"

    def node(name, zone, vnet):
        r = vmss(name, zone)
        r.props["virtualMachineProfile"]["networkProfile"] = {"networkInterfaceConfigurations": [
            {"name": "nic", "primary": True, "ipConfigurations": [
                {"name": "ip", "subnet": {"id": sid.format(vnet, "nodes")}}]}]}
        return r
    fs_a = amlfs("fs-a", "1", subnet=sid.format("vnet-a", "lustre"))
    stack = [fs_a, node("gpu-a", "1", "vnet-a"), node("gpu-b", "2", "vnet-b")]
    assert of(run(pack, stack), ZONE) == []
    fs_a.props["filesystemSubnet"] = sid.format("vnet-b", "lustre")
    [d] = of(run(pack, stack), ZONE)
    assert "Found: zone 1 in eastus. Expected: zone 2 in eastus" in d.message


# ---------------------------------------------------------------------------------- Alibaba

ALI = "eu-central-1"


def ali_group(name, zone, mount=None):
    """An ESS scaling group of ecs.gn8v-8x.48xlarge; its scaling configuration's user data
    names `mount` (a CPFS mount target), so it depends on it."""
    vsw = res("alicloud:vpc/switch:Switch", f"{name}-vsw", {"zoneId": zone, "tags": TAGS},
              provider_region=ALI)
    group = res("alicloud:ess/scalingGroup:ScalingGroup", name, {
        "minSize": 0.0, "maxSize": 2.0, "vswitchIds": [UNKNOWN], "tags": TAGS},
        deps={"vswitchIds": [vsw]}, provider_region=ALI)
    config = res("alicloud:ess/scalingConfiguration:ScalingConfiguration", f"{name}-config", {
        "instanceType": "ecs.gn8v-8x.48xlarge", "scalingGroupId": UNKNOWN, "userData": "x",
        "internetMaxBandwidthOut": 0.0, "tags": TAGS},
        deps={"scalingGroupId": [group], **({"userData": [mount]} if mount else {})},
        provider_region=ALI)
    return [vsw, group, config]


def cpfs(name, zone):
    fs = res("alicloud:nas/fileSystem:FileSystem", name, {
        "fileSystemType": "cpfs", "protocolType": "cpfs", "storageType": "advance_200",
        "capacity": 3600.0, "zoneId": zone, "encryptType": 1.0, "tags": TAGS},
        provider_region=ALI)
    mount = res("alicloud:nas/mountTarget:MountTarget", f"{name}-mount", {
        "fileSystemId": UNKNOWN}, deps={"fileSystemId": [fs]}, provider_region=ALI)
    return fs, mount


def test_alicloud_scaling_configs_mounting_their_own_cpfs_through_a_mount_target(pack):
    fs_a, mount_a = cpfs("fs-a", "eu-central-1a")
    fs_b, mount_b = cpfs("fs-b", "eu-central-1b")
    base = [fs_a, mount_a, fs_b, mount_b]
    assert of(run(pack, base + ali_group("gpu-a", "eu-central-1a", mount_a)
                  + ali_group("gpu-b", "eu-central-1b", mount_b)), ZONE) == []
    found = of(run(pack, base + ali_group("gpu-a", "eu-central-1a", mount_b)
                   + ali_group("gpu-b", "eu-central-1b", mount_a)), ZONE)
    assert [(m.split(" (")[0], m.split("Found: ")[1].split(". Fix")[0])
            for m in messages(found)] == [
        ("fs-a", "eu-central-1a. Expected: eu-central-1b"),
        ("fs-b", "eu-central-1b. Expected: eu-central-1a")]


# ---------------------------------------------------------------------------------- buckets

def test_a_bucket_is_judged_only_when_a_cluster_reads_it_against_that_cluster(pack):
    east = aws_group("gpu-east", "us-east-1a")
    west = aws_group("gpu-west", "us-west-2a")
    shared, logs = s3("shared", "eu-west-1"), s3("logs", "us-east-1")
    stack = [*east, *west, shared, logs, budget("900000")]
    # Nobody reads either: a bucket in a third region is no cluster's (old code flagged it).
    assert of(run(pack, stack), ZONE) == []
    # gpu-west's user data names the us-east-1 bucket: west reads across regions (old code
    # passed it, us-east-1 being some cluster's region).
    west[1].deps = {"userData": [logs]}
    [d] = of(run(pack, stack), ZONE)
    assert d.message.startswith(
        "logs (aws:s3/bucket:Bucket): the bucket is not in the region of the GPU cluster that "
        "reads it (gpu-west in us-west-2). Found: us-east-1. Expected: us-west-2")
    # A region unknown at preview matters only for a bucket a cluster reads.
    shared.props["region"] = UNKNOWN
    assert [d.policy for d in of(run(pack, stack), ZONE)] == [ZONE]
    east[1].deps = {"userData": [shared]}
    # The known finding on logs stands; alone, the unknown is "cannot decide".
    [d] = of(run(pack, stack), ZONE)
    assert d.level == "mandatory" and d.message.startswith("logs (")
    west[1].deps = {}
    found = of(run(pack, stack), ZONE)
    assert [d.level for d in found] == ["advisory"] and "shared: .region" in found[0].message


@pytest.mark.parametrize("link", ["importPath", "association"])
def test_a_bucket_read_through_the_clusters_filesystem(pack, link):
    data = s3("datasets", "us-west-2")
    subnet, fs = fsx("fs", "us-east-1a")
    stack = [subnet, fs, *aws_group("gpu", "us-east-1a", [fs]), data, budget("900000")]
    # Not read: no finding (old code flagged any bucket outside the only cluster's region).
    assert of(run(pack, stack), ZONE) == []
    if link == "importPath":
        fs.props["importPath"] = UNKNOWN
        fs.deps["importPath"] = [data]
    else:
        stack.append(res("aws:fsx/dataRepositoryAssociation:DataRepositoryAssociation", "link", {
            "fileSystemId": UNKNOWN, "fileSystemPath": "/bucket", "dataRepositoryPath": UNKNOWN},
            deps={"fileSystemId": [fs], "dataRepositoryPath": [data]}))
    [d] = of(run(pack, stack), ZONE)
    assert "datasets (aws:s3/bucket:Bucket)" in d.message and \
        "(gpu in us-east-1). Found: us-west-2. Expected: us-east-1" in d.message


def test_gcp_and_azure_buckets_read_through_an_import_or_an_hsm_container(pack):
    # GCP: the import command (a local Command after the Lustre instance) names the bucket.
    fs = gcp_fs("lustre", "fs", "us-central1-a")
    bucket = res("gcp:storage/bucket:Bucket", "data", {"location": "US", "labels": LABELS})
    command = res("command:local:Command", "fs-import", {"create": UNKNOWN, "triggers": [UNKNOWN]},
                  deps={"create": [bucket], "triggers": [fs]})
    stack = [fs, bucket, *gcp_group("gpu", "us-central1-a", [fs])]
    assert of(run(pack, stack), ZONE) == []
    [d] = of(run(pack, stack + [command]), ZONE)
    assert "the bucket is in a multi-region, not the region of the GPU cluster that reads it " \
           "(gpu in us-central1). Found: US. Expected: US-CENTRAL1" in d.message
    # Azure: the AmlFilesystem's HSM container lives in a westus account.
    account = res("azure-native:storage:StorageAccount", "acct", {
        "location": "westus", "kind": "StorageV2", "sku": {"name": "Standard_LRS"},
        "tags": TAGS})
    container = res("azure-native:storage:BlobContainer", "data", {
        "accountName": UNKNOWN, "containerName": "data"}, deps={"accountName": [account]})
    fs = amlfs("fs", "1")
    stack = [account, container, fs, vmss("gpu", "1", virtualMachineProfile=[fs])]
    assert of(run(pack, stack), ZONE) == []
    fs.props["hsm"] = {"settings": {"container": UNKNOWN, "loggingContainer": UNKNOWN}}
    fs.deps["hsm"] = [container]
    [d] = of(run(pack, stack), ZONE)
    assert "acct (azure-native:storage:StorageAccount)" in d.message and \
        "(gpu in eastus). Found: westus. Expected: eastus" in d.message


# ----------------------------------------------------------------------------- edge subnets

def public_subnet(**tags):
    return aws_subnet("public", "us-east-1a", mapPublicIpOnLaunch=True,
                      tags={**TAGS, **tags})


def edge(public):
    nat = res("aws:ec2/natGateway:NatGateway", "nat", {
        "subnetId": UNKNOWN, "allocationId": UNKNOWN, "tags": TAGS}, deps={"subnetId": [public]})
    alb = res("aws:lb/loadBalancer:LoadBalancer", "alb", {
        "loadBalancerType": "application", "internal": False, "subnets": [UNKNOWN],
        "tags": TAGS}, deps={"subnets": [public]})
    routes = res("aws:ec2/routeTableAssociation:RouteTableAssociation", "public-routes", {
        "subnetId": UNKNOWN, "routeTableId": "rtb-1"}, deps={"subnetId": [public]})
    return [nat, alb, routes]


def test_a_public_subnet_holding_only_nat_and_alb_is_an_edge_subnet(pack):
    public = public_subnet()
    private = aws_subnet("private", "us-east-1a")
    stack = [public, *edge(public), *aws_group("gpu", "us-east-1a", subnet=private),
             budget("900000")]
    # Untagged, but only the NAT gateway, the ALB and a route table association use it.
    assert of(run(pack, stack), INGRESS) == []


@pytest.mark.parametrize("tags", [{}, {"kubernetes.io/role/elb": "1"},
                                  {"trainstack:subnet-role": "edge"}],
                         ids=["untagged", "elb-tag", "edge-tag"])
def test_a_gpu_group_placed_in_a_public_subnet_is_a_violation_whatever_its_tags(pack, tags):
    public = public_subnet(**tags)
    stack = [public, *edge(public), *aws_group("gpu", "us-east-1a", subnet=public),
             budget("900000")]
    [d] = of(run(pack, stack), INGRESS)
    assert d.level == "mandatory" and d.urn == public.urn
    assert "public (aws:ec2/subnet:Subnet): instances launched in this subnet get public IP " \
           "addresses. Found: mapPublicIpOnLaunch true, and placed in it: gpu " \
           "(aws:autoscaling/group:Group)" in d.message


def test_a_public_subnet_with_nothing_at_the_edge_is_still_a_violation(pack):
    public = public_subnet()
    routes = edge(public)[2]
    [d] = of(run(pack, [public, routes]), INGRESS)
    assert "Found: mapPublicIpOnLaunch true. Expected: false" in d.message


def test_unknowns_that_could_hide_a_node_in_an_edge_subnet_cannot_be_decided(pack):
    public = public_subnet()
    # A group whose subnets come from elsewhere (unknown at preview, no subnet of this stack
    # behind them): it may land in the public subnet.
    subnet, lt, group = aws_group("gpu", "us-east-1a")
    group.deps = {"launchTemplate": [lt]}
    stack = [public, *edge(public), lt, group, budget("900000")]
    [d] = of(run(pack, stack), INGRESS)
    assert d.level == "advisory" and "cannot decide until apply" in d.message and \
        "gpu: .vpcZoneIdentifiers" in d.message and "public subnet public" in d.message
    [d] = of(run(pack, stack, {INGRESS: {"cannotDecide": "mandatory"}}), INGRESS)
    assert d.level == "mandatory" and "cannot decide: " in d.message
    # Tags unknown and nothing at the edge: whether it is tagged edge waits for apply.
    public.props["tags"] = UNKNOWN
    [d] = of(run(pack, [public]), INGRESS)
    assert d.level == "advisory" and "public: .tags" in d.message


def test_the_offline_runner_reports_the_stack_unknown_and_keeps_other_findings():
    from trainstack_policies.runner import evaluate
    public = public_subnet()
    subnet, lt, group = aws_group("gpu", "us-east-1a")
    group.deps = {"launchTemplate": [lt]}
    world = res("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule", "web", {
        "cidrIpv4": "0.0.0.0/0", "ipProtocol": "tcp", "fromPort": 443.0, "toPort": 443.0,
        "tags": TAGS})
    verdicts = {v.policy: v for v in evaluate([public, *edge(public), lt, group])}
    assert verdicts[INGRESS].status == "unknown" and "vpcZoneIdentifiers" in \
        verdicts[INGRESS].unknown
    verdicts = {v.policy: v for v in evaluate([public, *edge(public), lt, group, world])}
    assert [v.resource for v in verdicts[INGRESS].violations] == [
        "web (aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule)"]


def test_nodes_that_turn_public_ips_off_themselves_may_sit_in_a_public_subnet(pack):
    # The launch template's interface says associatePublicIpAddress "false": that overrides
    # the subnet's mapPublicIpOnLaunch, so the group's nodes get no public IP there.
    public = public_subnet()
    subnet, lt, group = aws_group("gpu", "us-east-1a", subnet=public)
    lt.props["networkInterfaces"] = [{"deviceIndex": 0.0, "associatePublicIpAddress": "false"}]
    stack = [public, *edge(public), lt, group, budget("900000")]
    assert of(run(pack, stack), INGRESS) == []
    # One interface that does not say false: the subnet's setting applies to it.
    lt.props["networkInterfaces"].append({"deviceIndex": 1.0})
    [d] = of(run(pack, stack), INGRESS)
    assert "placed in it: gpu (aws:autoscaling/group:Group)" in d.message


def test_aws_clusters_in_separate_vpcs_of_one_region_are_matched_by_vpc(pack):
    # gpu-a (us-east-1a) and gpu-b (us-east-1b) each in a VPC of its own, each FSx in a storage
    # subnet of its cluster's VPC, in its cluster's zone: no mounts visible, yet each
    # filesystem is matched to the nodes of its own VPC.
    vpcs = {k: res("aws:ec2/vpc:Vpc", f"vpc-{k}", {"cidrBlock": "10.0.0.0/16", "tags": TAGS})
            for k in "ab"}
    stack = list(vpcs.values())
    for k in "ab":
        zone = f"us-east-1{k}"
        nodes = aws_subnet(f"nodes-{k}", zone, vpcId=UNKNOWN)
        nodes.deps = {"vpcId": [vpcs[k]]}
        storage, fs = fsx(f"fs-{k}", zone)
        storage.props["vpcId"] = UNKNOWN
        storage.deps = {"vpcId": [vpcs[k]]}
        stack += [storage, fs, *aws_group(f"gpu-{k}", zone, subnet=nodes)]
    assert of(run(pack, stack + [budget("900000")]), ZONE) == []
    # fs-a's storage subnet moved into vpc-b (still us-east-1a): it is gpu-b's, in another zone.
    stack[2].deps = {"vpcId": [vpcs["b"]]}
    [d] = of(run(pack, stack + [budget("900000")]), ZONE)
    assert d.message.startswith("fs-a (") and "Found: us-east-1a. Expected: us-east-1b" \
        in d.message
