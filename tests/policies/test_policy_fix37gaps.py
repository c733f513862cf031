"""Issue 35, four blind spots the last session noticed and left (helper fix37gaps), driven over
gRPC as `pulumi preview --policy-pack` drives the pack (tests/policy_harness.py), with the
builders of tests/policies/test_policy_review35f.py (test_policy_review36.py's aws-native
template and group builders are redone here, the template with user data that mounts).

Each case's docstring gives its expected verdict, written before the first run: "pass", "fail"
(a mandatory violation) or "undecided" ("cannot decide"), and any price worked by hand from the
catalog's cited rows (policies/catalog_data/prices.csv, on-demand USD/h):
  Standard_NC24ads_A100_v4 eastus 3.673; Standard_NC4as_T4_v3 eastus 0.526;
  Standard_ND96isr_H100_v5 eastus 98.32; p4d.24xlarge us-east-1 21.9576; and
gcp_attached_gpus.csv: n1-standard-8 us-central1 0.38, nvidia-tesla-t4 us-central1 0.35.
A month is 730 h.

1. Azure budgets scoped to a resource group, against the classic azure provider's AKS pools
   and capacity reservations. Where a node bills decides which group-scoped budget caps it:
   an AKS pool's nodes are in the cluster's node resource group (nodeResourceGroup, else
   MC_<resourceGroupName>_<name>_<location>: learn.microsoft.com/azure/aks/faq, "Why are two
   resource groups created with AKS?"), as the pack already reads it for azure-native pools; a
   capacity reservation is a resource of its capacity reservation group's resource group (the
   classic CapacityReservation has no group of its own: registry.terraform.io/providers/
   hashicorp/azurerm/latest/docs/resources/capacity_reservation).
2. aws-native EC2 Fleets and launch templates (CloudFormation AWS::EC2::EC2Fleet,
   AWS::EC2::LaunchTemplate): a fleet's launch template config overrides place its nodes
   (Overrides[].SubnetId / AvailabilityZone: docs.aws.amazon.com/AWSCloudFormation/latest/
   TemplateReference/aws-properties-ec2-ec2fleet-fleetlaunchtemplateoverridesrequest.html), as
   the classic aws.ec2.Fleet's do; an interface of an aws-native template asking for a public
   IP (LaunchTemplateData.NetworkInterfaces[].AssociatePublicIpAddress) gives the nodes one, as
   a classic template's interface does (which the pack fails on the template itself).
3. A separate GKE node pool (gcp.container.NodePool) whose nodeConfig, machineType or
   guestAccelerators is unknown at preview may run GPUs, and the pack cannot price it: never a
   pass. The pack's rule for GPU capacity it cannot price is to fail closed at spend-limit's
   configured level ("the monthly cost of GPU capacity cannot be estimated ... unknown until
   apply": an ASG or scale set of unknown type, an N1 VM of unknown attached GPU, review35
   e2/e3/s6; a GKE cluster's default pool of unknown nodeConfig, review36_azgcp), and these
   cases expect the same (the brief asked "cannot decide"; the first draft of these tests did,
   and was matched to that rule before the first commit, since a pool of unknown machineType
   already got it). A pool of a known GPU-less machine and no accelerators stays CPU.
4. (No test here.) Every region where gcp_attached_gpus.csv prices an attached GPU (the six of
   its accelerator rows) has all 22 N1 predefined shapes priced: tests/catalog/
   test_catalog_reach.py::test_every_n1_shape_a_gpu_attaches_to_is_priced_where_n1_gpus_are
   already asserts it (a machine row deleted in one region fails it).
"""
from __future__ import annotations

from tests.policies.test_policy_review35f import (
    AWS,
    AZ,
    GCP,
    LABELS,
    MONTH,
    NPI,
    SPEND,
    SSZ,
    SUB,
    TAGS,
    aws_budget,
    az_budget,
    estimate,
    fsx,
    gcp_budget,
    judged,
    messages,
    near,
    subnet,
    verdict,
)
from tests.policy_fixtures import res
from tests.policy_harness import run
from trainstack_policies.model import UNKNOWN

NC24, T4VM, ND96 = 3.673, 0.526, 98.32
CLASSIC_AKS = "azure:containerservice/kubernetesCluster:KubernetesCluster"
CLASSIC_POOL = "azure:containerservice/kubernetesClusterNodePool:KubernetesClusterNodePool"


def _rg_budget(group, amount=20000.0):
    return az_budget(amount, scope=f"{SUB}/resourceGroups/{group}")


# ============================================ 1. group-scoped Azure budgets, classic compute

def _classic_aks(default_pool=None, **p):
    return res(CLASSIC_AKS, "aks", {
        "name": "aks-train", "resourceGroupName": "ml-rg", "location": "eastus",
        "dnsPrefix": "ml", "defaultNodePool": default_pool or {
            "name": "system", "vmSize": "Standard_D4s_v5", "nodeCount": 1},
        "identity": {"type": "SystemAssigned"}, "tags": TAGS, **p})


def _classic_t4_pool(cluster):
    return res(CLASSIC_POOL, "t4pool", {
        "kubernetesClusterId": "aks-id", "vmSize": "Standard_NC4as_T4_v3",
        "autoScalingEnabled": True, "minCount": 0, "maxCount": 3, "nodeCount": 1,
        "tags": TAGS}, deps={"kubernetesClusterId": [cluster]})


def test_1a_classic_aks_gpu_default_pool_budget_on_another_group(pack):
    """A classic KubernetesCluster whose default pool is 2 Standard_NC24ads_A100_v4, its nodes
    in nodeResourceGroup "gpu-nodes-a"; the only budget (20,000 USD) is scoped to resource
    group "gpu-nodes-b". The estimate 2 x 3.673 x 730 = 5,362.58 is under it, but it does not
    track these nodes. Expect: spend-limit fail, no budget alarm on azure, naming gpu-nodes-b."""
    aks = _classic_aks({"name": "gpu", "vmSize": "Standard_NC24ads_A100_v4", "nodeCount": 2},
                       nodeResourceGroup="gpu-nodes-a")
    found = run(pack, [aks, _rg_budget("gpu-nodes-b")], provider=AZ)
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)
    assert "no budget alarm on azure" in messages(found, SPEND)
    assert "gpu-nodes-b" in messages(found, SPEND)


def test_1b_classic_aks_gpu_default_pool_budget_on_its_node_group(pack):
    """The same cluster with the budget scoped to "gpu-nodes-a" (any case: ARM names are
    case-insensitive, so "GPU-Nodes-A"). Expect: spend-limit pass (5,362.58 < 20,000)."""
    aks = _classic_aks({"name": "gpu", "vmSize": "Standard_NC24ads_A100_v4", "nodeCount": 2},
                       nodeResourceGroup="gpu-nodes-a")
    found = run(pack, [aks, _rg_budget("GPU-Nodes-A")], provider=AZ)
    assert verdict(found, SPEND) == "pass", messages(found, SPEND)
    assert near(estimate(pack, [aks], AZ), 2 * NC24 * MONTH)


def test_1c_classic_node_pool_in_default_node_group(pack):
    """A classic KubernetesClusterNodePool of Standard_NC4as_T4_v3, autoscaling 0..3, in a
    classic cluster "aks-train" of group "ml-rg" in eastus with no nodeResourceGroup: its nodes
    are in MC_ml-rg_aks-train_eastus. Budget (20,000) scoped to that group: pass (estimate
    3 x 0.526 x 730 = 1,151.94, the CPU system pool priced only where the catalog lists it)."""
    aks = _classic_aks()
    pool = _classic_t4_pool(aks)
    found = run(pack, [aks, pool, _rg_budget("MC_ml-rg_aks-train_eastus")], provider=AZ)
    assert verdict(found, SPEND) == "pass", messages(found, SPEND)
    assert near(estimate(pack, [aks, pool], AZ), 3 * T4VM * MONTH)


def test_1d_classic_node_pool_budget_on_other_group(pack):
    """The same pool with the budget scoped to "other-rg", which holds neither the cluster nor
    its nodes. Expect: spend-limit fail (no budget alarm on azure, naming other-rg)."""
    aks = _classic_aks()
    pool = _classic_t4_pool(aks)
    found = run(pack, [aks, pool, _rg_budget("other-rg")], provider=AZ)
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)
    assert "other-rg" in messages(found, SPEND)


def test_1e_classic_node_pool_of_auto_named_cluster_is_undecided(pack):
    """The cluster has no `name` (auto-named: aks plus a random suffix), so its default node
    group MC_ml-rg_<name>_eastus cannot be read at preview; a budget on "other-rg" may or may
    not be it. Expect: spend-limit undecided (never pass, never a hard fail), as for an
    azure-native cluster of unknown resourceName."""
    aks = _classic_aks()
    del aks.props["name"]
    pool = _classic_t4_pool(aks)
    found = run(pack, [aks, pool, _rg_budget("other-rg")], provider=AZ)
    assert verdict(found, SPEND) == "undecided", messages(found, SPEND)


def _classic_reservation(group="res-a"):
    crg = res("azure:compute/capacityReservationGroup:CapacityReservationGroup", "crg", {
        "name": "crg", "resourceGroupName": group, "location": "eastus", "zones": ["1"],
        "tags": TAGS})
    cr = res("azure:compute/capacityReservation:CapacityReservation", "h100-cr", {
        "name": "h100-cr", "capacityReservationGroupId": "crg-id", "zone": "1",
        "sku": {"name": "Standard_ND96isr_H100_v5", "capacity": 2}, "tags": TAGS},
        deps={"capacityReservationGroupId": [crg]})
    return crg, cr


def test_1f_classic_capacity_reservation_budget_on_another_group(pack):
    """A classic capacity reservation of 2 Standard_ND96isr_H100_v5 in a reservation group of
    resource group "res-a" (2 x 98.32 x 730 = 143,547.20 a month, used or not); the only
    budget (200,000) is scoped to "res-b". Expect: spend-limit fail (no budget alarm on
    azure, naming res-b)."""
    crg, cr = _classic_reservation()
    found = run(pack, [crg, cr, _rg_budget("res-b", 200000.0)], provider=AZ)
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)
    assert "res-b" in messages(found, SPEND)


def test_1g_classic_capacity_reservation_budget_on_its_group(pack):
    """The same reservation with the 200,000 budget scoped to "res-a". Expect: spend-limit
    pass (143,547.20 < 200,000); with 100,000 instead: fail (exceeds)."""
    crg, cr = _classic_reservation()
    found = run(pack, [crg, cr, _rg_budget("res-a", 200000.0)], provider=AZ)
    assert verdict(found, SPEND) == "pass", messages(found, SPEND)
    found = run(pack, [crg, cr, _rg_budget("res-a", 100000.0)], provider=AZ)
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)
    assert "exceeds" in messages(found, SPEND)
    assert near(estimate(pack, [crg, cr], AZ), 2 * ND96 * MONTH)


def test_1h_azure_native_capacity_reservation_by_group(pack):
    """The azure-native pair (CapacityReservationGroup and CapacityReservation, both with
    resourceGroupName "res-a"): a budget on "res-b" fails, one on "res-a" passes (as 1f/1g)."""
    crg = res("azure-native:compute:CapacityReservationGroup", "crg", {
        "resourceGroupName": "res-a", "location": "eastus", "zones": ["1"], "tags": TAGS})
    cr = res("azure-native:compute:CapacityReservation", "h100-cr", {
        "resourceGroupName": "res-a", "capacityReservationGroupName": "crg",
        "location": "eastus", "zones": ["1"],
        "sku": {"name": "Standard_ND96isr_H100_v5", "capacity": 2}, "tags": TAGS},
        deps={"capacityReservationGroupName": [crg]})
    found = run(pack, [crg, cr, _rg_budget("res-b", 200000.0)], provider=AZ)
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)
    found = run(pack, [crg, cr, _rg_budget("res-a", 200000.0)], provider=AZ)
    assert verdict(found, SPEND) == "pass", messages(found, SPEND)


# =============================================== 2. aws-native EC2 Fleets and launch templates

AMI = "ami-0a1b2c3d4e5f60718"


def _native_subnet(name, zone):
    return res("aws-native:ec2:Subnet", name, {
        "vpcId": "vpc-0team", "availabilityZone": zone, "cidrBlock": "10.20.0.0/20",
        "mapPublicIpOnLaunch": False, "tags": [{"key": k, "value": v} for k, v in TAGS.items()]})


def _native_lt(name, itype, mounts=(), **data):
    deps = {"launchTemplateData": list(mounts)} if mounts else {}
    user = {"userData": "IyEvYmluL2Jhc2gKbW91bnQgLXQgbHVzdHJl"} if mounts else {}
    return res("aws-native:ec2:LaunchTemplate", name, {"launchTemplateData": {
        "instanceType": itype, "imageId": AMI, **user, **data}}, deps=deps)


def _native_fleet(name, template, overrides, size=2, subnets=()):
    return res("aws-native:ec2:Ec2Fleet", name, {
        "type": "maintain", "launchTemplateConfigs": [{
            "launchTemplateSpecification": {"launchTemplateId": "lt-id", "version": "1"},
            "overrides": overrides}],
        "targetCapacitySpecification": {"totalTargetCapacity": size,
                                        "defaultTargetCapacityType": "on-demand"}},
        deps={"launchTemplateConfigs": [template, *subnets]})


def _native_asg(name, template, subnets, size=2):
    return res("aws-native:autoscaling:AutoScalingGroup", name, {
        "minSize": "0", "maxSize": str(size), "desiredCapacity": str(size),
        "launchTemplate": {"launchTemplateId": "lt-id", "version": "1"},
        "vpcZoneIdentifier": ["subnet-id"] * len(subnets),
        "tags": [{"key": k, "value": v, "propagateAtLaunch": True} for k, v in TAGS.items()]},
        deps={"launchTemplate": [template], "vpcZoneIdentifier": list(subnets)})


def test_2a_native_fleet_override_subnet_in_other_zone_than_fsx(pack):
    """An FSx for Lustre in us-east-1a; an aws-native launch template of p4d.24xlarge whose
    user data mounts it (no subnet of its own); an aws-native EC2 Fleet of 2 whose override
    names a us-east-1b subnet (classic aws.ec2.Subnet, as teams mix). The GPUs run in 1b.
    Expect: storage-same-zone fail (test_c3 of review35f is the classic fleet's)."""
    sa, sb = subnet("a", "us-east-1a"), subnet("b", "us-east-1b")
    fs = fsx("fs", sa)
    t = _native_lt("fleet-lt", "p4d.24xlarge", mounts=[fs])
    f = _native_fleet("fleet", t, [{"subnetId": "subnet-b", "instanceType": "p4d.24xlarge"}],
                      subnets=[sb])
    found = run(pack, [sa, sb, fs, t, f, aws_budget("100000")], provider=AWS)
    assert verdict(found, SSZ) == "fail", messages(found, SSZ)
    assert _placed_in_1b(found), messages(found, SSZ)


def test_2b_native_fleet_override_native_subnet_in_other_zone(pack):
    """The same with the override's subnet an aws-native:ec2:Subnet in us-east-1b.
    Expect: storage-same-zone fail."""
    sa, sb = subnet("a", "us-east-1a"), _native_subnet("b", "us-east-1b")
    fs = fsx("fs", sa)
    t = _native_lt("fleet-lt", "p4d.24xlarge", mounts=[fs])
    f = _native_fleet("fleet", t, [{"subnetId": "subnet-b", "instanceType": "p4d.24xlarge"}],
                      subnets=[sb])
    found = run(pack, [sa, sb, fs, t, f, aws_budget("100000")], provider=AWS)
    assert verdict(found, SSZ) == "fail", messages(found, SSZ)
    assert _placed_in_1b(found), messages(found, SSZ)


def test_2c_native_fleet_override_zone_other_than_fsx(pack):
    """The override names availabilityZone us-east-1b (no subnet). Expect: storage-same-zone
    fail."""
    sa = subnet("a", "us-east-1a")
    fs = fsx("fs", sa)
    t = _native_lt("fleet-lt", "p4d.24xlarge", mounts=[fs])
    f = _native_fleet("fleet", t, [{"availabilityZone": "us-east-1b",
                                    "instanceType": "p4d.24xlarge"}])
    found = run(pack, [sa, fs, t, f, aws_budget("100000")], provider=AWS)
    assert verdict(found, SSZ) == "fail", messages(found, SSZ)
    assert _placed_in_1b(found), messages(found, SSZ)


def test_2d_native_fleet_override_in_the_fsx_zone(pack):
    """The override's subnet (aws-native) is in us-east-1a, the FSx's zone. Expect:
    storage-same-zone pass; the fleet alone (no filesystem) estimated at 2 x 21.9576 x 730 =
    32,058.10."""
    sa, sa2 = subnet("a", "us-east-1a"), _native_subnet("a2", "us-east-1a")
    fs = fsx("fs", sa)
    t = _native_lt("fleet-lt", "p4d.24xlarge", mounts=[fs])
    f = _native_fleet("fleet", t, [{"subnetId": "subnet-a2", "instanceType": "p4d.24xlarge"}],
                      subnets=[sa2])
    found = run(pack, [sa, sa2, fs, t, f, aws_budget("100000")], provider=AWS)
    assert verdict(found, SSZ) == "pass", messages(found, SSZ)
    t = _native_lt("fleet-lt", "p4d.24xlarge")
    f = _native_fleet("fleet", t, [{"subnetId": "subnet-a2", "instanceType": "p4d.24xlarge"}],
                      subnets=[sa2])
    assert near(estimate(pack, [sa2, t, f], AWS), 2 * 21.9576 * MONTH)


def _placed_in_1b(found):
    """The failure is the zone mismatch, the nodes read in us-east-1b (not "zone cannot be
    read")."""
    text = messages(found, SSZ)
    return "not in the GPU nodes' zone" in text and "Expected: us-east-1b" in text


_PUBLIC_NIC = [{"deviceIndex": 0, "associatePublicIpAddress": True, "subnetId": "subnet-a",
                "groups": ["sg-id"]}]


def test_2e_native_template_public_interface_used_by_native_fleet(pack):
    """An aws-native launch template of g5.12xlarge whose one interface asks for a public IP
    (associatePublicIpAddress true), used by an aws-native EC2 Fleet of 2. Expect:
    no-public-ingress fail (a classic template's public interface fails the same)."""
    s = subnet("a", "us-east-1a")
    t = _native_lt("pub-lt", "g5.12xlarge", networkInterfaces=_PUBLIC_NIC)
    t.deps["launchTemplateData"] = [s]
    f = _native_fleet("fleet", t, [{"instanceType": "g5.12xlarge"}])
    found = run(pack, [s, t, f, aws_budget()], provider=AWS)
    assert verdict(found, NPI) == "fail", messages(found, NPI)
    assert "public IP" in messages(found, NPI)


def test_2f_native_template_public_interface_used_by_native_group(pack):
    """The same template used by an aws-native AutoScalingGroup of 2 in a private subnet of the
    stack. Expect: no-public-ingress fail."""
    s = subnet("a", "us-east-1a")
    t = _native_lt("pub-lt", "g5.12xlarge", networkInterfaces=_PUBLIC_NIC)
    g = _native_asg("grp", t, [s])
    found = run(pack, [s, t, g, aws_budget()], provider=AWS)
    assert verdict(found, NPI) == "fail", messages(found, NPI)


def test_2g_native_template_public_interface_as_text_and_unknown(pack):
    """The interface's flag as the text "true" (CloudFormation takes strings) fails too; one
    unknown at preview is "cannot decide" (as for a classic template)."""
    s = subnet("a", "us-east-1a")
    nic = [{**_PUBLIC_NIC[0], "associatePublicIpAddress": "true"}]
    t = _native_lt("pub-lt", "g5.12xlarge", networkInterfaces=nic)
    found = run(pack, [s, t, _native_asg("grp", t, [s]), aws_budget()], provider=AWS)
    assert verdict(found, NPI) == "fail", messages(found, NPI)
    nic = [{**_PUBLIC_NIC[0], "associatePublicIpAddress": UNKNOWN}]
    t = _native_lt("pub-lt", "g5.12xlarge", networkInterfaces=nic)
    found = run(pack, [s, t, _native_asg("grp", t, [s]), aws_budget()], provider=AWS)
    assert verdict(found, NPI) == "undecided", messages(found, NPI)


def test_2h_native_template_private_interface_passes(pack):
    """The interface says associatePublicIpAddress false, in a private subnet of the stack.
    Expect: no-public-ingress pass."""
    s = subnet("a", "us-east-1a")
    nic = [{**_PUBLIC_NIC[0], "associatePublicIpAddress": False}]
    t = _native_lt("priv-lt", "g5.12xlarge", networkInterfaces=nic)
    found = run(pack, [s, t, _native_asg("grp", t, [s]), aws_budget()], provider=AWS)
    assert verdict(found, NPI) == "pass", messages(found, NPI)




def test_2i_native_fleet_in_the_default_vpc(pack):
    """An aws-native EC2 Fleet of 2 g5.xlarge whose aws-native launch template names no
    interface and whose override names an availabilityZone only: it launches in the default
    VPC's default subnet, which gives public IPs (docs.aws.amazon.com/vpc/latest/userguide/
    default-vpc.html). Expect: no-public-ingress fail, as review35f w1 for the classic fleet."""
    t = _native_lt("lt", "g5.xlarge")
    f = _native_fleet("fleet", t, [{"availabilityZone": "us-east-1a"}])
    found = run(pack, [t, f, aws_budget()], provider=AWS)
    assert verdict(found, NPI) == "fail", messages(found, NPI)
    assert "default VPC" in messages(found, NPI)


def test_2j_native_fleet_in_a_private_subnet_of_the_stack(pack):
    """The same fleet whose override names a private aws-native subnet of the stack
    (mapPublicIpOnLaunch false). Expect: no-public-ingress pass."""
    s = _native_subnet("a", "us-east-1a")
    t = _native_lt("lt", "g5.xlarge")
    f = _native_fleet("fleet", t, [{"subnetId": "subnet-a"}], subnets=[s])
    found = run(pack, [s, t, f, aws_budget()], provider=AWS)
    assert verdict(found, NPI) == "pass", messages(found, NPI)


def _edge_subnet():
    """A public subnet of the stack that holds only a NAT gateway (an edge subnet)."""
    edge = subnet("edge", "us-east-1a", mapPublicIpOnLaunch=True)
    nat = res("aws:ec2/natGateway:NatGateway", "nat", {"subnetId": "subnet-edge",
                                                       "allocationId": "eipalloc-1"},
              deps={"subnetId": [edge]})
    return edge, nat


def test_2k_native_fleet_subnet_unknown_beside_an_edge_subnet(pack):
    """A public edge subnet (a NAT gateway only) beside the fleet. The fleet's override names
    its private aws-native subnet by id, unknown at preview (the subnet's output), the subnet
    behind it: not the edge subnet. Expect: no-public-ingress pass. With the override's subnet
    unknown and no subnet of the stack behind it, it may be the public one: undecided (as for
    a classic fleet)."""
    edge, nat = _edge_subnet()
    s = _native_subnet("a", "us-east-1a")
    t = _native_lt("lt", "g5.xlarge")
    f = _native_fleet("fleet", t, [{"subnetId": UNKNOWN}], subnets=[s])
    found = run(pack, [edge, nat, s, t, f, aws_budget()], provider=AWS)
    assert verdict(found, NPI) == "pass", messages(found, NPI)
    f = _native_fleet("fleet", t, [{"subnetId": UNKNOWN}])
    found = run(pack, [edge, nat, t, f, aws_budget()], provider=AWS)
    assert verdict(found, NPI) == "undecided", messages(found, NPI)


# ===================================================== 3. GKE node pools of unknown machine

def _pool(node_config):
    return res("gcp:container/nodePool:NodePool", "pool", {
        "cluster": "projects/ml-prod/locations/us-central1-a/clusters/train",
        "location": "us-central1-a", "nodeCount": 2.0,
        **({} if node_config is None else {"nodeConfig": node_config})})


def _cfg(machine="n1-standard-8", **p):
    return {"machineType": machine, "labels": LABELS, **p}


_T4 = [{"type": "nvidia-tesla-t4", "count": 1}]


def _not_priced(found, level="mandatory"):
    """spend-limit says the pool's cost cannot be estimated (at `level`), naming it and what is
    unknown: never a pass."""
    mine = [d for d in judged(found) if d.policy == SPEND]
    text = messages(found, SPEND)
    assert any(d.level == level and "cannot be estimated" in d.message for d in mine), text
    assert "pool (gcp:container/nodePool:NodePool)" in text and "unknown until apply" in text


def test_3a_pool_whose_node_config_is_unknown(pack):
    """A node pool of 2 whose whole nodeConfig is unknown at preview (built from another
    resource's output), a 50,000 budget. Its machine and GPUs are read after apply only.
    Expect: spend-limit mandatory "cannot be estimated" (an instance type unknown until
    apply), not a pass."""
    _not_priced(run(pack, [_pool(UNKNOWN), gcp_budget()], provider=GCP))


def test_3b_pool_whose_accelerators_are_unknown(pack):
    """nodeConfig known, n1-standard-8 (no GPU of its own), guestAccelerators unknown at
    preview (N1 takes attached T4/V100/P4/P100s). Expect: spend-limit mandatory "cannot be
    estimated" (an attached GPU whose type is unknown until apply)."""
    _not_priced(run(pack, [_pool(_cfg(guestAccelerators=UNKNOWN)), gcp_budget()],
                    provider=GCP))


def test_3c_pool_whose_accelerator_entry_is_unknown(pack):
    """guestAccelerators a list of one entry unknown at preview. Expect: as 3b."""
    _not_priced(run(pack, [_pool(_cfg(guestAccelerators=[UNKNOWN])), gcp_budget()],
                    provider=GCP))


def test_3d_pool_whose_machine_type_is_unknown(pack):
    """machineType unknown at preview, no accelerators named. Expect: as 3a."""
    _not_priced(run(pack, [_pool(_cfg(UNKNOWN)), gcp_budget()], provider=GCP))


def test_3e_unknown_pool_at_the_configured_level(pack):
    """With spend-limit configured advisory, 3a's and 3b's findings are advisory (the
    configured level), and still there (never a pass)."""
    cfg = {SPEND: {"enforcementLevel": "advisory"}}
    for pool in (_pool(UNKNOWN), _pool(_cfg(guestAccelerators=UNKNOWN))):
        found = run(pack, [pool, gcp_budget()], cfg, provider=GCP)
        _not_priced(found, "advisory")
        assert all(d.level == "advisory" for d in judged(found) if d.policy == SPEND)


def test_3f_pool_of_known_cpu_machine_stays_cpu(pack):
    """nodeConfig e2-standard-8 (no GPU), no accelerators, and no budget in the stack: no GPU
    compute, so spend-limit asks for no budget. Expect: spend-limit pass; the same with
    nodeConfig left out (GKE's default e2-medium) and with guestAccelerators []."""
    for cfg in (_cfg("e2-standard-8"), None, _cfg("n1-standard-8", guestAccelerators=[])):
        found = run(pack, [_pool(cfg)], provider=GCP)
        assert verdict(found, SPEND) == "pass", (cfg, messages(found, SPEND))


def test_3g_pool_of_known_t4s_is_priced(pack):
    """The known shape still decides: n1-standard-8 + 1 T4 in us-central1, 2 nodes:
    2 x (0.38 + 0.35) x 730 = 1,065.80 (gcp_attached_gpus.csv). Expect: spend-limit pass
    under 50,000."""
    pool = _pool(_cfg(guestAccelerators=_T4))
    assert verdict(run(pack, [pool, gcp_budget()], provider=GCP), SPEND) == "pass"
    assert near(estimate(pack, [pool], GCP), 2 * (0.38 + 0.35) * MONTH)
