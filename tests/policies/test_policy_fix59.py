"""Fix59: review59's defects 1-4 (tests/policies/test_policy_review59.py) and the variants its
cases did not write, over gRPC as `pulumi preview --policy-pack policies` drives the pack.

Defect 1: Azure ML and Batch nodes' public IPs (no-public-ingress); defect 2: an ACK node pool's
scalingConfig.isBondEip; defect 3: an ECI container group's EIP; defect 4: the legacy classic
azure:compute/scaleSet:ScaleSet read as the classic sets are, and a VM size in `sku.name` as a
GPU sign. Every case states the verdict of every policy (those not named stay "pass"), from
the review's stacks; `why` is the hand calculation or the provider doc.
"""
from __future__ import annotations

from typing import Any

import pytest

from tests.policies.test_policy_review59 import (
    NPI, POLICIES, RDMA, SPEND, SUB, TAGS, _add, _aml_props, _batch_pool, _eci, ali, ali_ack, aml,
    az, azc, named, unknown,
)
from tests.policy_fixtures import AZURE_ALERTS, hours_from_now, res
from tests.policy_harness import PolicyPackProcess, run, verdict

AZ_P = {"location": "eastus"}
ALI_P = {"region": "eu-central-1"}
LEGACY = "azure:compute/scaleSet:ScaleSet"


def _check(pack, cid: str, stack: list, provider: dict, expect: dict) -> None:
    found = run(pack, stack, None, provider)
    got = {p: verdict(found, p) for p in POLICIES}
    want = {p: expect.get(p, "pass") for p in POLICIES}
    assert got == want, (cid, [(d.policy, d.level, d.message[:300]) for d in found])


# ------------------------------------------------------------------------------ Azure ML, Batch

def _classic_ml(kind: str, public: Any):
    """A classic Azure ML compute beside the AmlCompute stack (public None: the flag left out)."""
    def build(s):
        if kind == "cluster":
            props: dict = {"name": "train-cc", "location": "eastus",
                           "machineLearningWorkspaceId": "ws-id", "vmPriority": "Dedicated",
                           "vmSize": "Standard_ND96amsr_A100_v4",
                           "scaleSettings": {"minNodeCount": 0.0, "maxNodeCount": 2.0,
                                             "scaleDownNodesAfterIdleDuration": "PT30M"}}
            type_ = "azure:machinelearning/computeCluster:ComputeCluster"
        else:
            props = {"name": "train-ci", "machineLearningWorkspaceId": "ws-id",
                     "virtualMachineSize": "Standard_NC4as_T4_v3", "subnetResourceId": "subnet-id"}
            type_ = "azure:machinelearning/computeInstance:ComputeInstance"
        if public is not None:
            props["nodePublicIpEnabled"] = public
        return res(type_, f"train-{kind}", {**props, "tags": dict(TAGS)})
    return build


def _pool_ip(config: Any):
    def mutate(s):
        s = _add(_batch_pool("NoPublicIPAddresses"))(s)
        named(s, "train-batch").props["networkConfiguration"]["publicIPAddressConfiguration"] = config
        return s
    return mutate


AZURE_ML = [
    ("a01", _aml_props(enableNodePublicIp=unknown()), {NPI: "undecided"},
     "AmlCompute enableNodePublicIp unknown at preview: public or not is decided at apply"),
    ("a02", _aml_props(enableNodePublicIp=False), {},
     "control: false gives the nodes no public IPs (m01's stack: 47,844.20 < 60,000)"),
    ("a03", _add(_classic_ml("cluster", None)), {NPI: "fail", SPEND: "fail"},
     "classic ComputeCluster, nodePublicIpEnabled left out: 'Defaults to true' (pulumi-azure / "
     "azurerm machine_learning_compute_cluster); spend names its GPU vmSize (n01)"),
    ("a04", _add(_classic_ml("cluster", False)), {SPEND: "fail"},
     "the same cluster with nodePublicIpEnabled false: no public IP"),
    ("a05", _add(_classic_ml("cluster", unknown())), {NPI: "undecided", SPEND: "fail"},
     "the classic cluster's flag unknown at preview"),
    ("a06", _add(_classic_ml("instance", None)), {NPI: "fail"},
     "classic ComputeInstance, flag left out: 'Defaults to true' (azurerm "
     "machine_learning_compute_instance); 47,844.20 + 0.526 x 730 = 48,228.18 < 60,000"),
    ("a07", _add(_classic_ml("instance", False)), {}, "the same instance with false"),
    ("b01", _pool_ip({"provision": "NoPublicIPAddresses"}), {SPEND: "fail"},
     "Batch pool NoPublicIPAddresses: no public IP; spend as d1c: 71,766.30 > 60,000"),
    ("b02", _pool_ip({"provision": "UserManaged", "ipAddressIds": ["pip-prefix-id"]}),
     {NPI: "fail", SPEND: "fail"},
     "UserManaged: 'Public IPs are provided by the user and will be used to provision the "
     "Compute Nodes' (Batch REST IPAddressProvisioningType)"),
    ("b03", _pool_ip({}), {NPI: "fail", SPEND: "fail"},
     "publicIPAddressConfiguration without provision: the default is BatchManaged (Batch REST)"),
    ("b04", _pool_ip({"provision": unknown()}), {NPI: "undecided", SPEND: "fail"},
     "provision unknown at preview"),
]


@pytest.mark.parametrize("case", AZURE_ML, ids=[c[0] for c in AZURE_ML])
def test_azure_ml_and_batch_public_ips(pack, case):
    cid, mutate, expect, _why = case
    _check(pack, cid, mutate(aml()), AZ_P, expect)


def test_native_compute_instance_flag_left_out_is_not_read_as_public(pack):
    """m04's twin with a budget: the current API gives a ComputeInstance's enableNodePublicIp no
    default (pulumi-azure-native computeInstancePropertiesArgsProvideDefaults fills none in), so
    the pack reads only a flag that is given: left out passes, given true fails (d1b)."""
    stack = aml(vm_size="Standard_NC4as_T4_v3", compute_type="ComputeInstance")
    _check(pack, "ci-left-out", stack, AZ_P, {})
    _check(pack, "ci-true", _aml_props(enableNodePublicIp=True)(
        aml(vm_size="Standard_NC4as_T4_v3", compute_type="ComputeInstance")), AZ_P, {NPI: "fail"})


# ------------------------------------------------------------------------------ Alibaba ACK, ECI

def _eci_with(**props):
    def mutate(s):
        s = _add(_eci())(s)
        named(s, "infer").props.update(props)
        return s
    return mutate


ALIBABA = [
    ("k01", "ack", lambda s: (named(s, "train-gpu").props["scalingConfig"].update(
        isBondEip=True), s)[1], {SPEND: "fail", NPI: "fail"},
     "isBondEip true with no EIP bandwidth or charge type given: still an EIP per node"),
    ("e01", "ali", _eci_with(eipInstanceId="eip-0abc"), {SPEND: "fail", NPI: "fail"},
     "an existing EIP bound by eipInstanceId ('The ID of the elastic IP address (EIP)')"),
    ("e02", "ali", _eci_with(eipInstanceId=unknown()), {SPEND: "fail", NPI: "fail"},
     "an EIP of the stack bound by its id, unknown at preview: an EIP is bound whatever its id"),
    ("e03", "ali", _eci_with(autoCreateEip=unknown()), {SPEND: "fail", NPI: "undecided"},
     "autoCreateEip unknown at preview"),
    ("e04", "ali", _eci_with(autoCreateEip=False), {SPEND: "fail"},
     "autoCreateEip false and no eipInstanceId: private (spend: g03's missing alarm stand-in)"),
]


@pytest.mark.parametrize("case", ALIBABA, ids=[c[0] for c in ALIBABA])
def test_alibaba_eips(pack, case):
    cid, base, mutate, expect, _why = case
    _check(pack, cid, mutate(ali_ack() if base == "ack" else ali()), ALI_P, expect)


# ------------------------------------------------------------------------------ legacy ScaleSet

def legacy(hours: Any = 96, spg: Any = None, budget_scope: str = SUB, public: Any = None) -> list:
    """review59's classic stack (azc) with its Linux set swapped for a legacy compute.ScaleSet of
    2 ND96isr H100 v5 in zone 1, stopped (hours) by the classic autoscale setting naming it."""
    base = azc(hours=None)
    rg, amlfs, acct = named(base, "train-rg"), named(base, "scratch"), named(base, "datasets")
    ipc: dict = {"name": "ip", "primary": True, "subnetId": "subnet-id"}
    if public is not None:
        ipc["publicIpAddressConfiguration"] = public
    props: dict = {"name": "train-vmss", "resourceGroupName": "train", "location": "eastus",
                   "sku": {"name": "Standard_ND96isr_H100_v5", "tier": "Standard",
                           "capacity": 2.0},
                   "upgradePolicyMode": "Manual", "zones": ["1"],
                   "osProfile": {"computerNamePrefix": "train", "adminUsername": "azureuser",
                                 "customData": "I2Nsb3Vk"},
                   "networkProfiles": [{"name": "nic", "primary": True,
                                        "acceleratedNetworking": True,
                                        "ipConfigurations": [ipc]}],
                   "tags": dict(TAGS)}
    if spg is not None:
        props["singlePlacementGroup"] = spg
    vmss = res(LEGACY, "train-vmss", props,
               deps={"osProfile": [amlfs, acct], "resourceGroupName": [rg]})
    out = [r for r in base if r.name != "train-vmss"] + [vmss]
    if budget_scope != SUB:
        out = [r for r in out if r.name != "train-budget"] + [res(
            "azure-native:consumption:Budget", "train-budget",
            {"amount": 25000.0, "category": "Cost", "timeGrain": "Monthly",
             "scope": budget_scope, "budgetName": "train",
             "notifications": AZURE_ALERTS})]
    if hours is not None:
        out.append(res("azure:monitoring/autoscaleSetting:AutoscaleSetting", "train-stop",
                       {"name": "train-stop", "resourceGroupName": "train", "location": "eastus",
                        "targetResourceId": "vmss-id", "tags": dict(TAGS), "profiles": [
                            {"name": "end", "capacity": {"default": 0.0, "minimum": 0.0,
                                                         "maximum": 0.0},
                             "fixedDate": {"start": hours_from_now(hours),
                                           "end": "2037-12-31T00:00:00Z"}}]},
                       deps={"targetResourceId": [vmss]}))
    return out


LEGACY_CASES = [
    ("s01", {}, {},
     "stopped in 96 h by the classic setting (enabled left out: the classic default true): "
     "2 x 98.32 x 96 = 18,877.44 + AMLFS at most 2,230.60 + account 178.03 = 21,286.07 < "
     "25,000; singlePlacementGroup left out: 'Defaults to true' (pulumi-azure ScaleSet)"),
    ("s02", {"hours": None}, {SPEND: "fail"},
     "no stop: 2 x 98.32 x 730 = 143,547.20 > 25,000"),
    ("s03", {"spg": False}, {RDMA: "advisory"},
     "singlePlacementGroup false: 2 InfiniBand nodes in no one placement group"),
    ("s04", {"budget_scope": SUB + "/resourceGroups/train"}, {},
     "a budget on the set's own resource group `train` covers it"),
    ("s05", {"budget_scope": SUB + "/resourceGroups/other"}, {SPEND: "fail"},
     "a budget on another resource group: no alarm for the set"),
    ("s06", {"public": unknown()}, {NPI: "undecided"},
     "publicIpAddressConfiguration unknown at preview"),
]


@pytest.mark.parametrize("case", LEGACY_CASES, ids=[c[0] for c in LEGACY_CASES])
def test_legacy_scale_set(pack, case):
    cid, kwargs, expect, _why = case
    _check(pack, cid, legacy(**kwargs), AZ_P, expect)


def test_lab_of_cpu_vms_is_no_gpu_capacity(pack):
    """f04's control: a Lab Services lab whose virtualMachineProfile.sku.name is a D-series
    (no GPU) carries no GPU sign, so the az stack stays at 21,286.07 < 25,000."""
    lab = res("azure-native:labservices:Lab", "class-lab", {
        "labName": "class", "resourceGroupName": "train", "location": "eastus",
        "tags": dict(TAGS), "virtualMachineProfile": {
            "createOption": "Image", "usageQuota": "PT10H", "useSharedPassword": "Disabled",
            "adminUser": {"username": "labadmin"},
            "sku": {"name": "Standard_D4s_v5", "capacity": 20.0}}})
    _check(pack, "lab-cpu", az() + [lab], AZ_P, {})


@pytest.mark.parametrize("priority, expect", [("Low", {}), ("Regular", {SPEND: "fail"})])
def test_legacy_low_priority_is_priced_at_spot(pack, priority, expect):
    """A legacy set of 4 Standard_NC12s_v3 in centralus (prices.csv: 6.916 on demand, 0.788424
    spot), no stop, under a 10,000 subscription budget. priority Low (the evicted-at-will tier,
    "Possible values are `Low` and `Regular`", pulumi-azure ScaleSet) at spot: 4 x 0.788424 x
    730 = 2,302.20 < 10,000; Regular: 4 x 6.916 x 730 = 20,194.72 > 10,000."""
    vmss = res(LEGACY, "infer-vmss", {
        "name": "infer-vmss", "resourceGroupName": "infer", "location": "centralus",
        "sku": {"name": "Standard_NC12s_v3", "tier": "Standard", "capacity": 4.0},
        "priority": priority, "upgradePolicyMode": "Manual", "tags": dict(TAGS)})
    budget = res("azure-native:consumption:Budget", "infer-budget", {
        "amount": 10000.0, "category": "Cost", "timeGrain": "Monthly", "scope": SUB,
        "budgetName": "infer", "notifications": AZURE_ALERTS})
    _check(pack, f"low-{priority}", [vmss, budget], {"location": "centralus"}, expect)
