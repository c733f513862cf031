"""Issue 35, helper fix47: the classes of review47's two rdma-for-multinode defects, over gRPC as
`pulumi preview` drives it (tests/policy_harness.py). Each case states every policy's verdict
(review47's `check`: those not named pass); expectations were worked by hand from the pack's
promise (docs/policies.md), the providers' public docs and the catalog's rows, and committed
before the code.

1. GCP N1 machines with attached GPUs (guestAccelerators) have no instance_types.csv row. N1 has
   no RDMA network: GPUDirect-RDMA (RoCE) is an A3 Ultra / A4 / A4X feature, and an N1 VM with
   GPUs talks over its ordinary VPC NIC(s) (cloud.google.com/compute/docs/gpus/
   gpu-network-bandwidth; GKE's GPUDirectStrategy enum: "RDMA: GPUDirect-RDMA on A3 Ultra, and
   A4 machine types", cloud.google.com/kubernetes-engine/docs/reference/rest/v1beta1/
   NodeConfig). docs: "Not asked: a type whose catalog row has no RDMA fabric": not asked, as two
   g2-standard-8 (a tcp row) are not. The class: every way N1 + GPUs reaches the rule (an
   instance template behind a MIG, InstanceFromTemplate, a GKE node pool).
   Prices (gcp_attached_gpus.csv, us-central1): n1-standard-8 0.38 + nvidia-tesla-t4 0.35 per GPU
   = 0.73 USD/h; a month is 730 h: 2 VMs = 1,065.80.
2. The classic azure provider's compute, read as its azure-native twin: a scale set
   (Linux/Windows/Orchestrated) is placed by singlePlacementGroup true (pulumi-azure
   compute.LinuxVirtualMachineScaleSet / WindowsVirtualMachineScaleSet / Orchestrated...:
   single_placement_group); a VM by its availabilitySetId, proximityPlacementGroupId or
   virtualMachineScaleSetId (pulumi-azure compute.LinuxVirtualMachine / WindowsVirtualMachine).
   Prices (prices.csv, eastus): Standard_ND96isr_H100_v5 98.32 USD/h: 2 nodes a month =
   143,547.20 < 200,000 (the budget of each case): spend pass.
"""
from __future__ import annotations

from tests.policies.test_policy_review47 import (
    AZ, GCP_C, LABELS, RDMA, TAGS, az_budget, check, gcp_budget, gcp_vm,
)
from tests.policy_fixtures import res

# ------------------------------------------------------------------ 1. N1 with attached GPUs

T4 = [{"type": "nvidia-tesla-t4", "count": 1.0}]


def n1_template(name="t4-tmpl", kind="gcp:compute/instanceTemplate:InstanceTemplate", **extra):
    return res(kind, name, {
        "machineType": "n1-standard-8", "guestAccelerators": T4, "labels": dict(LABELS),
        "networkInterfaces": [{"network": "default"}],
        "disks": [{"sourceImage": "debian-cloud/debian-12", "boot": True}],
        "scheduling": {"onHostMaintenance": "TERMINATE"}, **extra})


def test_n1_t4_mig_of_two_from_a_template_is_not_asked(pack):
    """A zonal MIG of 2 from an instance template n1-standard-8 + 1 T4, no resource policy,
    budget 5,000: 1,065.80 < 5,000: spend pass. N1 has no RDMA fabric: RDMA pass."""
    t = n1_template()
    m = res("gcp:compute/instanceGroupManager:InstanceGroupManager", "t4", {
        "zone": "us-central1-a", "targetSize": 2.0, "baseInstanceName": "t4",
        "versions": [{"instanceTemplate": "t4-tmpl-id"}]}, deps={"versions": [t]})
    check(pack, [t, m, gcp_budget(units="5000")], GCP_C, {})


def test_n1_t4_regional_mig_from_a_region_template_is_not_asked(pack):
    """A regionInstanceTemplate n1-standard-8 + 1 T4 and a regional MIG of 2 over us-central1-a
    and -b: 1,065.80 < 5,000: spend pass; RDMA pass (and an HA spread is no cluster anyway)."""
    t = n1_template("t4-rt", "gcp:compute/regionInstanceTemplate:RegionInstanceTemplate",
                    region="us-central1")
    m = res("gcp:compute/regionInstanceGroupManager:RegionInstanceGroupManager", "t4", {
        "region": "us-central1", "targetSize": 2.0, "baseInstanceName": "t4",
        "distributionPolicyZones": ["us-central1-a", "us-central1-b"],
        "versions": [{"instanceTemplate": "t4-rt-id"}]}, deps={"versions": [t]})
    check(pack, [t, m, gcp_budget(units="5000")], GCP_C, {})


def test_two_n1_t4_instances_from_a_template_are_not_asked(pack):
    """Two InstanceFromTemplate VMs of the N1 + T4 template in us-central1-a: 1,065.80 < 5,000:
    spend pass; RDMA pass."""
    t = n1_template()
    vms = [res("gcp:compute/instanceFromTemplate:InstanceFromTemplate", f"t4-{i}", {
        "zone": "us-central1-a", "sourceInstanceTemplate": "t4-tmpl-id", "labels": dict(LABELS)},
        deps={"sourceInstanceTemplate": [t]}) for i in range(2)]
    check(pack, [t, *vms, gcp_budget(units="5000")], GCP_C, {})


def test_n1_vms_with_two_v100s_each_are_not_asked(pack):
    """Two n1-standard-8 VMs, each with 2 nvidia-tesla-v100, in us-central1-a. The GPU differs,
    the machine series does not: no RDMA fabric on N1 whatever GPU it carries: RDMA pass. Spend
    with a budget of 100,000 (v100 is at most a few USD/h per GPU: far under): pass."""
    vms = [gcp_vm(f"v100-{i}", "n1-standard-8",
                  guestAccelerators=[{"type": "nvidia-tesla-v100", "count": 2.0}])
           for i in range(2)]
    check(pack, vms + [gcp_budget(units="100000")], GCP_C, {})


def test_n1_t4_gke_pool_of_two_is_left_to_gke(pack):
    """A private GKE cluster (default pool removed) and a node pool of 2 n1-standard-8 + 1 T4 in
    us-central1-a: node pools are left to their service (docs scope): RDMA pass; 1,065.80 <
    5,000: spend pass."""
    cl = res("gcp:container/cluster:Cluster", "ml-gke", {
        "location": "us-central1-a", "removeDefaultNodePool": True, "initialNodeCount": 1.0,
        "privateClusterConfig": {"enablePrivateNodes": True, "enablePrivateEndpoint": False,
                                 "masterIpv4CidrBlock": "172.16.0.0/28"},
        "resourceLabels": dict(LABELS)})
    pool = res("gcp:container/nodePool:NodePool", "t4-pool", {
        "cluster": "ml-gke-id", "location": "us-central1-a", "nodeCount": 2.0,
        "networkConfig": {"enablePrivateNodes": True},
        "nodeConfig": {"machineType": "n1-standard-8", "guestAccelerators": T4,
                       "labels": dict(LABELS)}}, deps={"cluster": [cl]})
    check(pack, [cl, pool, gcp_budget(units="5000")], GCP_C, {})


def test_control_two_a3_ultra_vms_without_placement_are_still_asked(pack):
    """Control: two a3-ultragpu-8g VMs (a RoCE row, 8 MRDMA NICs) with one NIC and no resource
    policy, in us-west1-b (the catalog's us-west1 row, 86.7599): 2 x 86.7599 x 730 = 126,669.45
    < 200,000: spend pass; RDMA advisory (no placement, no MRDMA NICs). An RDMA type is asked."""
    vms = [gcp_vm(f"h200-{i}", "a3-ultragpu-8g", zone="us-west1-b") for i in range(2)]
    check(pack, vms + [gcp_budget(units="200000")],
          {"project": "ml-prod", "region": "us-west1"}, {RDMA: "advisory"})


def test_control_n1_vms_beside_an_unplaced_a3_ultra_pair(pack):
    """Control: the two N1 + T4 VMs pass on their own, the two a3-ultragpu-8g VMs beside them
    are still asked (us-west1; 2 x 0.73 x 730 + 126,669.45 = 127,735.25 < 200,000): RDMA
    advisory, for the A3 Ultra pair only (the messages name them, not the N1 VMs)."""
    from tests.policy_harness import run
    n1 = [gcp_vm(f"t4-{i}", "n1-standard-8", zone="us-west1-b", guestAccelerators=T4)
          for i in range(2)]
    a3 = [gcp_vm(f"h200-{i}", "a3-ultragpu-8g", zone="us-west1-b") for i in range(2)]
    stack = n1 + a3 + [gcp_budget(units="200000")]
    provider = {"project": "ml-prod", "region": "us-west1"}
    check(pack, stack, provider, {RDMA: "advisory"})
    named = {d.urn.rsplit("::", 1)[1] for d in run(pack, stack, None, provider=provider)
             if d.policy == RDMA}
    assert named == {"h200-0", "h200-1"}, named


# ------------------------------------------------------------------ 2. classic Azure placement

ND = "Standard_ND96isr_H100_v5"
NICS = [{"name": "nic", "primary": True, "ipConfigurations": [
    {"name": "ip", "primary": True, "subnetId": "/subscriptions/s/x/subnets/nodes"}]}]


def classic_set(kind, **props):
    base = {"resourceGroupName": "ml", "location": "eastus", "instances": 2.0, "zones": ["1"],
            "tags": dict(TAGS)}
    if kind == "Orchestrated":
        base.update(skuName=ND, platformFaultDomainCount=1.0)
    else:
        base.update(sku=ND, adminUsername="azureuser", networkInterfaces=NICS)
        if kind == "Windows":
            base["adminPassword"] = "not-a-secret-1!"
    token = (f"azure:compute/{kind[0].lower()}{kind[1:]}VirtualMachineScaleSet:"
             f"{kind}VirtualMachineScaleSet")
    return res(token, "train", {**base, **props})


def classic_vms(kind="Linux", n=2, deps=None, **props):
    token = f"azure:compute/{kind.lower()}VirtualMachine:{kind}VirtualMachine"
    extra = {"adminPassword": "not-a-secret-1!"} if kind == "Windows" else {}
    return [res(token, f"h100-{i}", {
        "resourceGroupName": "ml", "location": "eastus", "size": ND, "zone": "1",
        "adminUsername": "azureuser", "networkInterfaceIds": [f"/subscriptions/s/nic/h100-{i}"],
        "osDisk": {"caching": "ReadWrite", "storageAccountType": "Premium_LRS"},
        "tags": dict(TAGS), **extra, **props}, deps=dict(deps or {})) for i in range(n)]


def test_classic_windows_scale_set_in_one_placement_group_passes(pack):
    """A classic WindowsVirtualMachineScaleSet of 2 x ND96isr H100 v5, singlePlacementGroup
    true: one placement group (InfiniBand within it): RDMA pass; spend pass."""
    check(pack, [classic_set("Windows", singlePlacementGroup=True),
                 az_budget(amount=200000.0)], AZ, {})


def test_classic_orchestrated_set_in_one_placement_group_passes(pack):
    """A classic OrchestratedVirtualMachineScaleSet (skuName, instances 2, the required
    platformFaultDomainCount 1) with singlePlacementGroup true: RDMA pass; spend pass."""
    check(pack, [classic_set("Orchestrated", singlePlacementGroup=True),
                 az_budget(amount=200000.0)], AZ, {})


def test_classic_orchestrated_set_without_single_placement_group_is_asked(pack):
    """The same orchestrated set with singlePlacementGroup left out: the pulumi-azure docs say the
    service then decides it from the SKU, so the program does not place the nodes in one
    placement group; read as the azure-native set with no singlePlacementGroup (RDMA advisory,
    "singlePlacementGroup=None"). platformFaultDomainCount 1 counts fault domains ("max
    spreading"), it places nothing."""
    from tests.policy_harness import run
    stack = [classic_set("Orchestrated"), az_budget(amount=200000.0)]
    check(pack, stack, AZ, {RDMA: "advisory"})
    text = " ".join(d.message for d in run(pack, stack, None, provider=AZ) if d.policy == RDMA)
    assert "singlePlacementGroup=None" in text and "OrchestratedVirtualMachineScaleSet" in text, \
        text


def test_classic_linux_scale_set_of_many_placement_groups_is_asked(pack):
    """Control: a classic LinuxVirtualMachineScaleSet with singlePlacementGroup false (a large
    scale set: InfiniBand does not span its placement groups): RDMA advisory, naming the
    setting and the classic field to set."""
    from tests.policy_harness import run
    stack = [classic_set("Linux", singlePlacementGroup=False), az_budget(amount=200000.0)]
    check(pack, stack, AZ, {RDMA: "advisory"})
    text = " ".join(d.message for d in run(pack, stack, None, provider=AZ) if d.policy == RDMA)
    assert "singlePlacementGroup=False" in text and "LinuxVirtualMachineScaleSet" in text, text


def test_classic_windows_vms_in_an_availability_set_pass(pack):
    """Two classic WindowsVirtualMachine ND96isr H100 v5 sharing an availability set
    (availabilitySetId depends on it; no zone, as an availability set is zoneless): RDMA pass;
    spend pass."""
    aset = res("azure:compute/availabilitySet:AvailabilitySet", "ib-set", {
        "resourceGroupName": "ml", "location": "eastus", "tags": dict(TAGS)})
    vms = classic_vms("Windows", availabilitySetId="ib-set-id", zone=None,
                      deps={"availabilitySetId": [aset]})
    check(pack, [aset, *vms, az_budget(amount=200000.0)], AZ, {})


def test_classic_vms_joined_to_a_flexible_set_pass(pack):
    """Two classic LinuxVirtualMachine joined to a classic orchestrated set (their
    virtualMachineScaleSetId depends on it; the set names no SKU of its own, so it runs nothing
    by itself): RDMA pass; spend pass."""
    flex = res("azure:compute/orchestratedVirtualMachineScaleSet:OrchestratedVirtualMachineScaleSet",
               "flex", {"resourceGroupName": "ml", "location": "eastus", "zones": ["1"],
                        "platformFaultDomainCount": 1.0, "singlePlacementGroup": True,
                        "tags": dict(TAGS)})
    vms = classic_vms(virtualMachineScaleSetId="flex-id", deps={"virtualMachineScaleSetId": [flex]})
    check(pack, [flex, *vms, az_budget(amount=200000.0)], AZ, {})


def test_control_classic_vms_in_no_placement_construct_are_asked(pack):
    """Control: two classic LinuxVirtualMachine ND96isr H100 v5 sharing nothing: RDMA advisory
    on each ("not in a placement construct")."""
    from tests.policy_harness import run
    stack = [*classic_vms(), az_budget(amount=200000.0)]
    check(pack, stack, AZ, {RDMA: "advisory"})
    found = [d for d in run(pack, stack, None, provider=AZ) if d.policy == RDMA]
    assert len(found) == 2 and all("placement construct" in d.message for d in found), found


def test_control_a4x_vms_with_accelerators_stay_asked(pack):
    """Control for the N1 reading's reach: two a4x-highgpu-4g VMs (no catalog row) declaring
    4 nvidia-gb200 each, no resource policy. A4X is not N1 (only N1 takes attached GPUs: GCP
    "GPUs and machine series") and has GPUDirect-RDMA (cloud.google.com/compute/docs/gpus/
    gpu-network-bandwidth), so the declared accelerators do not make it a no-RDMA type: RDMA still
    says each VM is unplaced and its fabric unknown (advisory). Spend is not this case's subject
    (the type has no catalog price)."""
    from tests.policy_harness import run
    vms = [gcp_vm(f"gb200-{i}", "a4x-highgpu-4g",
                  guestAccelerators=[{"type": "nvidia-gb200", "count": 4.0}]) for i in range(2)]
    found = [d for d in run(pack, vms + [gcp_budget(units="500000")], None, provider=GCP_C)
             if d.policy == RDMA]
    unknown = {d.urn.rsplit("::", 1)[1] for d in found if "fabric is unknown" in d.message}
    unplaced = {d.urn.rsplit("::", 1)[1] for d in found if "placement construct" in d.message}
    assert unknown == unplaced == {"gb200-0", "gb200-1"}, [d.message for d in found]
