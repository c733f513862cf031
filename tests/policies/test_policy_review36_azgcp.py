"""Issue 35, review36's Azure and Google Cloud cases (a3, a4, c1, c2, d4), around their edges:
what the fixes must also do, and what they must not (never cheaper than the truth). Driven over
gRPC as `pulumi preview --policy-pack` drives the pack. Each expected figure is worked by hand
from policies/catalog_data/prices.csv (each row carries its public source):
Standard_ND96isr_H100_v5 eastus 98.32, Standard_NC24ads_A100_v4 eastus 3.673,
Standard_NC4as_T4_v3 eastus 0.526, g2-standard-8 us-central1 0.853624 USD/h; a month is 730 h.
"""
from __future__ import annotations

from tests.policies.test_policy_review35f import (
    AZ,
    GCP,
    LABELS,
    MONTH,
    SPEND,
    SUB,
    TAGS,
    az_autoscale,
    estimate,
    gcp_budget,
    messages,
    near,
    verdict,
    vmss,
)
from tests.policy_fixtures import hours_from_now, res
from tests.policy_harness import run
from trainstack_policies.model import UNKNOWN

SUB_ID = SUB.rsplit("/", 1)[-1]
ND96, NC24, T4VM, G2_8 = 98.32, 3.673, 0.526, 0.853624


def _classic_crg():
    return res("azure:compute/capacityReservationGroup:CapacityReservationGroup", "crg", {
        "resourceGroupName": "ml-rg", "location": "eastus", "zones": ["1"], "tags": TAGS})


def test_classic_reservation_and_the_scale_set_launched_into_it_priced_once(pack):
    """A classic reservation of 2 ND96isr_H100_v5 and a classic Linux scale set of 2 of that
    size launched into its group (capacityReservationGroupId): the reservation bills whether
    used or not and the VMs in it add nothing (learn.microsoft.com/azure/virtual-machines/
    capacity-reservation-overview). Expect 2 x 98.32 x 730 = 143,547.20, not twice that."""
    crg = _classic_crg()
    cr = res("azure:compute/capacityReservation:CapacityReservation", "h100-cr", {
        "capacityReservationGroupId": "crg-id", "zone": "1",
        "sku": {"name": "Standard_ND96isr_H100_v5", "capacity": 2}, "tags": TAGS},
        deps={"capacityReservationGroupId": [crg]})
    ss = res("azure:compute/linuxVirtualMachineScaleSet:LinuxVirtualMachineScaleSet", "h100", {
        "resourceGroupName": "ml-rg", "location": "eastus", "sku": "Standard_ND96isr_H100_v5",
        "instances": 2.0, "zones": ["1"], "capacityReservationGroupId": "crg-id", "tags": TAGS},
        deps={"capacityReservationGroupId": [crg]})
    assert near(estimate(pack, [crg, cr, ss], AZ), 2 * ND96 * MONTH)
    # Not launched into it (no capacityReservationGroupId): both bill, 4 x 98.32 x 730.
    ss.deps, ss.props["capacityReservationGroupId"] = {}, None
    assert near(estimate(pack, [crg, cr, ss], AZ), 4 * ND96 * MONTH)


def test_classic_aks_cluster_gpu_default_pool_is_priced(pack):
    """A classic KubernetesCluster whose default pool is 2 Standard_NC24ads_A100_v4 (no
    autoscaling). Expect 2 x 3.673 x 730 = 5,362.58; autoscaling to 4: 4 x 3.673 x 730."""
    aks = res("azure:containerservice/kubernetesCluster:KubernetesCluster", "aks", {
        "resourceGroupName": "ml-rg", "location": "eastus", "dnsPrefix": "ml",
        "defaultNodePool": {"name": "gpu", "vmSize": "Standard_NC24ads_A100_v4",
                            "nodeCount": 2}, "tags": TAGS})
    assert near(estimate(pack, [aks], AZ), 2 * NC24 * MONTH)
    aks.props["defaultNodePool"] = {**aks.props["defaultNodePool"],
                                    "autoScalingEnabled": True, "minCount": 1, "maxCount": 4}
    assert near(estimate(pack, [aks], AZ), 4 * NC24 * MONTH)


def test_classic_aks_pool_of_unknown_maximum_is_not_priced_low(pack):
    """An autoscaling classic pool whose maxCount is unknown until apply: its size cannot be
    read, so spend-limit cannot pass it (not priced at its nodeCount of 1)."""
    pool = res("azure:containerservice/kubernetesClusterNodePool:KubernetesClusterNodePool",
               "t4pool", {"kubernetesClusterId": "aks-id", "vmSize": "Standard_NC4as_T4_v3",
                          "autoScalingEnabled": True, "minCount": 0, "nodeCount": 1,
                          "tags": TAGS})

    pool.props["maxCount"] = UNKNOWN
    found = run(pack, [pool], {SPEND: {"maxMonthlyUsd": 100000}}, provider=AZ)
    assert verdict(found, SPEND) != "pass", messages(found, SPEND)


def _stop_setting(ss, uri):
    a = az_autoscale(ss, [{"name": "off", "capacity": {"minimum": "0", "maximum": "0",
                                                       "default": "0"}, "rules": [],
                           "fixedDate": {"start": hours_from_now(48),
                                         "end": "2037-01-01T00:00:00Z"}}])
    a.deps = {}
    a.props["targetResourceUri"] = uri
    return a


def _uri(sub=SUB, rg="ml-rg", name="a100-train"):
    return f"{sub}/resourceGroups/{rg}/providers/Microsoft.Compute/virtualMachineScaleSets/{name}"


def test_literal_id_in_any_case_ties_the_named_scale_set(pack):
    """ARM ids are case-insensitive: /SUBSCRIPTIONS/.../RESOURCEGROUPS/ML-RG/... names the same
    set. Expect the 48 h stop: 2 x 3.673 x 48 = 352.61."""
    ss = vmss("a100", "Standard_NC24ads_A100_v4", 2.0, vmScaleSetName="a100-train")
    prov = {"location": "eastus", "subscriptionId": SUB_ID}
    a = _stop_setting(ss, _uri().upper())
    assert near(estimate(pack, [ss, a], prov), 2 * NC24 * 48, slack=3)


def test_literal_id_of_another_set_group_or_subscription_stops_nothing(pack):
    """The same literal id shape naming another set: another resource group, another
    subscription, another name, or a set whose subscription the pack cannot read (the provider
    names none) or that is auto-named (no vmScaleSetName). Each: the month,
    2 x 3.673 x 730 = 5,362.58."""
    prov = {"location": "eastus", "subscriptionId": SUB_ID}
    named = dict(vmScaleSetName="a100-train")
    other_sub = "/subscriptions/0d0d0d0d-0000-4000-8000-00000000b002"
    for uri, p, kw in [(_uri(rg="legacy-rg"), prov, named),
                       (_uri(sub=other_sub), prov, named),
                       (_uri(name="a100-old"), prov, named),
                       (_uri(), AZ, named),
                       (_uri(name="a100"), prov, {})]:
        ss = vmss("a100", "Standard_NC24ads_A100_v4", 2.0, **kw)
        got = estimate(pack, [ss, _stop_setting(ss, uri)], p)
        assert near(got, 2 * NC24 * MONTH, slack=3), (uri, p, kw, got)


def _gke(**p):
    return res("gcp:container/cluster:Cluster", "l4-gke", {
        "location": "us-central1-a", "deletionProtection": False, "resourceLabels": LABELS,
        **p})


L4_CONFIG = {"machineType": "g2-standard-8", "labels": LABELS}


def test_gke_regional_default_pool_counts_every_zone(pack):
    """A regional cluster (location us-central1, no nodeLocations): initialNodeCount is per
    zone, and the pool runs in the region's three default zones
    (cloud.google.com/kubernetes-engine/docs/concepts/regional-clusters).
    Expect 1 x 3 x 0.853624 x 730 = 1,869.44 (a cluster fee may be added)."""
    c = _gke(location="us-central1", initialNodeCount=1, nodeConfig=L4_CONFIG)
    got = estimate(pack, [c], GCP)
    assert 3 * G2_8 * MONTH - 2 <= got <= 3 * G2_8 * MONTH + 75, got


def test_gke_cluster_removing_its_default_pool_prices_only_its_node_pool(pack):
    """removeDefaultNodePool: the default pool is deleted once the cluster is up; the
    separate NodePool of 1 g2-standard-8 is what runs. Expect 0.853624 x 730 = 623.15."""
    c = _gke(initialNodeCount=1, removeDefaultNodePool=True, nodeConfig=L4_CONFIG)
    pool = res("gcp:container/nodePool:NodePool", "l4", {
        "cluster": "l4-gke", "location": "us-central1-a", "nodeCount": 1,
        "nodeConfig": L4_CONFIG})
    got = estimate(pack, [c, pool], GCP)
    assert G2_8 * MONTH - 2 <= got <= G2_8 * MONTH + 75, got


def test_gke_cluster_inline_pool_priced_at_its_autoscaling_maximum(pack):
    """An inline nodePools entry (g2-standard-8, autoscaling up to 3 per zone, one zone): the
    cluster's own nodeConfig does not apply. Expect 3 x 0.853624 x 730 = 1,869.44."""
    c = _gke(nodePools=[{"name": "l4", "initialNodeCount": 1, "nodeConfig": L4_CONFIG,
                         "autoscaling": {"minNodeCount": 0, "maxNodeCount": 3}}])
    got = estimate(pack, [c], GCP)
    assert 3 * G2_8 * MONTH - 2 <= got <= 3 * G2_8 * MONTH + 75, got


def test_gke_default_pool_of_unknown_machine_is_not_passed(pack):
    """A default pool whose nodeConfig is unknown at preview may be GPU capacity: spend-limit
    cannot pass it under a budget."""

    c = _gke(initialNodeCount=2, nodeConfig=UNKNOWN)
    found = run(pack, [c, gcp_budget("10000")], provider=GCP)
    assert verdict(found, SPEND) != "pass", messages(found, SPEND)


def test_gcp_reservation_of_an_unpriced_attached_gpu_is_not_priced_as_the_machine(pack):
    """A reservation of n1-standard-8 + 1 attached GPU of a type the catalog does not price:
    not priced at the machine alone (0.38 x 730 = 277.40) under a 1,000 budget."""
    r = res("gcp:compute/reservation:Reservation", "x-res", {
        "name": "x-res", "zone": "us-central1-a", "specificReservation": {
            "count": 1, "instanceProperties": {
                "machineType": "n1-standard-8",
                "guestAccelerators": [{"acceleratorType": "nvidia-made-up-gpu",
                                       "acceleratorCount": 1}]}}})
    found = run(pack, [r, gcp_budget("1000")], provider=GCP)
    assert verdict(found, SPEND) != "pass", messages(found, SPEND)


def test_a_reservation_prices_each_vm_s_attached_gpus_by_their_count(pack):
    # A GCP reservation of 3 x (n1-standard-16 + 2 nvidia-tesla-t4) in us-central1-a. By hand
    # (policies/catalog_data/gcp_attached_gpus.csv, us-central1): n1-standard-16 0.759996,
    # nvidia-tesla-t4 0.35 an hour each: 3 x (0.759996 + 2 x 0.35) x 730 = 3,197.39 USD/month
    # (one T4 a VM would be 2,430.89).
    r = res("gcp:compute/reservation:Reservation", "t4x2-res", {
        "name": "t4x2-res", "zone": "us-central1-a", "specificReservation": {
            "count": 3, "instanceProperties": {
                "machineType": "n1-standard-16",
                "guestAccelerators": [{"acceleratorType": "nvidia-tesla-t4",
                                       "acceleratorCount": 2}]}}})
    assert near(estimate(pack, [r], GCP), 3 * (0.759996 + 2 * 0.35) * MONTH)
