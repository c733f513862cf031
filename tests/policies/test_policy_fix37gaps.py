"""Issue 35, four blind spots the last session noticed and left (helper fix37gaps), driven over
gRPC as `pulumi preview --policy-pack` drives the pack (tests/policy_harness.py), with the
builders of tests/policies/test_policy_review35f.py and test_policy_review36.py.

Each case's docstring gives its expected verdict, written before the first run: "pass", "fail"
(a mandatory violation) or "undecided" ("cannot decide"), and any price worked by hand from the
catalog's cited rows (policies/catalog_data/prices.csv, on-demand USD/h):
  Standard_NC24ads_A100_v4 eastus 3.673; Standard_NC4as_T4_v3 eastus 0.526;
  Standard_ND96isr_H100_v5 eastus 98.32. A month is 730 h.

1. Azure budgets scoped to a resource group, against the classic azure provider's AKS pools
   and capacity reservations. Where a node bills decides which group-scoped budget caps it:
   an AKS pool's nodes are in the cluster's node resource group (nodeResourceGroup, else
   MC_<resourceGroupName>_<name>_<location>: learn.microsoft.com/azure/aks/faq, "Why are two
   resource groups created with AKS?"), as the pack already reads it for azure-native pools; a
   capacity reservation is a resource of its capacity reservation group's resource group (the
   classic CapacityReservation has no group of its own: registry.terraform.io/providers/
   hashicorp/azurerm/latest/docs/resources/capacity_reservation).
"""
from __future__ import annotations

from tests.policies.test_policy_review35f import (
    AZ,
    MONTH,
    SPEND,
    SUB,
    TAGS,
    az_budget,
    estimate,
    messages,
    near,
    verdict,
)
from tests.policy_fixtures import res
from tests.policy_harness import run

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
