"""Issue 35, a BLIND hostile review (helper review59) of the CrossGuard pack over gRPC, on AZURE
(azure-native and the classic `azure:` provider) and ALIBABA CLOUD, driven as `pulumi preview
--policy-pack policies` drives it (tests/policy_harness.py). The pack's code was not read: every
verdict comes from docs/policies.md, docs/billing-after-stop.md and the catalog CSVs, and each
batch's expectations were committed before its first run.

RESULTS (agreed / cases on the first run of each batch; 268 cases, 254 agree, 14 strict xfails;
the 14 pass since fix59 fixed defects 1-4, and their xfail marks are gone):
  batch 1: 30/30 (azure-native sets: ND H100/H200/MI300X/NDv4/NC A100, placement, stops, budget
    scopes and filters, AMLFS/account zones, encryption, retain, NSGs, scale-set public IPs, tags).
  batch 2: 36/36 once MY builder bug was fixed (`_add` built every extra resource from the
    original stack: b14/b15 raised StopIteration before any verdict). Classic sets, autoscale,
    budgets (subscription, RG, MG), NSGs; Alibaba instances, SG rules, EIPs, OSS.
  batch 3: 38/39; m03 is defect 1. AKS, Azure ML, capacity reservations, LBs; Alibaba sets, ESS,
    ACK, DNAT/SNAT, SLB/NLB, reservations, NAS.
  batch 4: 46/50 (50 cases: over the brief's 40, and the commit said 48: a miscount); d1a-d1d are
    defect 1's reach; h10 first raised TypeError in MY `_set` (no list index), fixed.
  batch 5: 40/40. batch 6: 27/28 (the commit said 29: a miscount); x01 is defect 2.
  batch 7: 10/12; y05 was MY mistake (the auto-named group's name given as a literal, which the
    pack rightly read as another group; a preview sends it unknown), fixed in its own commit;
    y02, y03: defect 2's reach.
  batch 8: 17/18; g04 is defect 3. batch 9: 6/8 (n01 first crashed in MY builder: a mutation
    wrapped in `_add`); n01: defect 1's reach; n03: defect 4. batch 10: 2/5; f02-f04: defect 4.
  batch 11: 2/2 (an Alibaba auto-provisioning group; its template's public bandwidth).

DEFECT 1 (blind spot; no-public-ingress). Smallest: m03 = an Azure ML AmlCompute of 2
  ND96amsr_A100_v4 (spend prices it: 47,844.20) with `enableNodePublicIp: true` ("true -
  Indicates that the compute nodes will have public IPs provisioned", pulumi-azure-native): no
  finding. Docs (no-public-ingress Scope): "every node's public-IP settings". Reach: the flag left
  out (d1a; the service default is true, azure-ai-ml `enable_node_public_ip: bool = True`), a GPU
  ComputeInstance (d1b), an azure-native Batch pool with `publicIPAddressConfiguration.provision:
  BatchManaged` (d1c), the classic ComputeInstance `nodePublicIpEnabled` (d1d) and ComputeCluster
  (n01). Not reached: AKS pools (k03, k04, p22, p23), scale sets (z28, c14, p09, v05), VM NICs
  (d1e, d1g) and VM-created NICs (v01).
DEFECT 2 (blind spot; no-public-ingress). Smallest: x01 = an ACK node pool of gn8v-8x.48xlarge
  whose `scalingConfig.isBondEip` is true ("Whether to bind EIP for an instance", pulumi-alicloud
  cs.NodePool): no finding (same docs sentence). Reach: the flag unknown at preview gives no
  "cannot decide" (y02); an A10 pool (y03). Not reached: the pool's `internetMaxBandwidthOut` (e06).
DEFECT 3 (blind spot; no-public-ingress). Smallest: g04 = an ECI container group on
  ecs.gn7i-c8g1.2xlarge with a GPU and `autoCreateEip: true` ("automatically create an EIP and
  bind the EIP to the elastic container instance"): spend-limit counts it as GPU capacity (g03),
  no-public-ingress says nothing. Same docs sentence.
DEFECT 4 (compute not seen; spend-limit). Smallest: n03 = the azure-native cluster plus a legacy
  classic `azure:compute/scaleSet:ScaleSet` of 2 Standard_ND96isr_H100_v5 (`sku.name`, as on an
  azure-native set), no stop: no finding, neither 143,547.20 a month over the 25,000 budget nor
  "GPU capacity it cannot estimate". Docs (coverage note): "spend-limit also names any other
  resource that carries a GPU sign (a GPU instance type ...) in a type or accelerator field".
  Reach: 4 nodes beside a covered set (f02), its `publicIpAddressConfiguration` (f03), an Azure
  Lab Services lab of 20 NC4as_T4_v3 (`virtualMachineProfile.sku.name`, f04). Not reached: the
  legacy `azure:compute/virtualMachine` `vmSize` (n04), a classic Batch pool (n02), an autoScale
  Batch pool (g02), an ML online deployment (g01), an Alibaba elasticity assurance (f05), all
  failing closed. (To weigh: whether `sku.name` is "a type field" in the docs' words.)

Controls that agree (selection): the three stacks (z01, c01, b01) and realistic variants (z02-z05,
c06, k01, m01, p21, e02, u01); stops that do not stop (z08 no `enabled`, z09 recurrence, c03,
s02, s03, y04 an auto-named set, y10 past the month, g05 one set of two, g06 one node of two) and
stops that do (c01 classic default enabled, s01 literal ARM id, w07 insights token, h11/y11 PST
wall clock, h12/y12 an unlisted zone read at UTC-12); reservations counted once (r01, p19), nodes
beyond or of another type priced (r05, r06), a literal group not matched (r03); budgets that do
not cover (z11, z14, k05, k08, p25, s04, s06, s07, g13, w03, w05, c15) or cannot decide (z12,
z15, c18, y05, g14) and caps (w01 the smaller covering budget, p07/p08 maxMonthlyUsd, x07/x08
Alibaba lifetimes); Spot priorityMixPolicy priced regular-first (p04-p06); an autoscale maximum
sizing a set (p01-p03); malformed and unknown values (h01-h09, a01-a10, w08, w09, r07, p20,
g15-g18); exposure through NSGs in any case, prefixes, halves inline/standalone/literal (z23-z27,
c07-c13, h13-h17, y07, p10-p13, n07, n09), LBs and NAT (l01-l07, p14-p18, g07), Alibaba EIPs,
DNAT, SLB/NLB/ALB (b14, b15, e07-e12, u03, u04, x05, x06, a13, a14, n08, g09); catalog reach
(q01 GB200 unpriced.csv, q02/y08/y09 unpriced regions, q03 ebmgn9t).

Planted bug (then reverted): az() ignoring `fs_zone` (the AMLFS always in the set's zone): z17
failed, every other case passed.

Each case states the verdict of EVERY policy (those not named stay "pass"): "fail", "advisory",
"undecided" ("cannot decide") or "pass"; its `why` is the hand calculation.

The stacks (my own builders, as a team new to the pack would write them from the docs):
  azure-native eastus zone 1: scale set of 2 Standard_ND96isr_H100_v5 (98.32 USD/h, prices.csv
    eastus), singlePlacementGroup true, an enabled autoscale profile of capacity 0 in 96 h; AMLFS
    Durable Premium 250, 8 TiB, zone 1; a retained storage account; a subscription budget of
    25,000 with an e-mail. Estimate: 2 x 98.32 x 96 = 18,877.44 + AMLFS 8,192 GiB x at most
    0.000373 USD/GiB-h (storage_prices.csv, dearest region) x 730 = 2,230.60 + the account at the
    filesystem's size, 8,796.09 GB x at most 0.02024 (blob_hot_lrs, dearest) = 178.03 -> at most
    21,286.07 < 25,000. Left running for the month: 2 x 98.32 x 730 = 143,547.20 -> > 25,000.
  classic azure: the same nodes as an `azure:compute/linuxVirtualMachineScaleSet`, stopped by an
    `azure:monitoring/autoscaleSetting` (enabled left out: the classic default is true), an
    `azure:consumption/budgetSubscription` of 25,000, an azure-native AMLFS and account.
  Alibaba eu-central-1a: 2 ecs.gn8v-8x.48xlarge (58.2708 USD/h, erdma) ecs.Instance nodes in a
    LowLatency deployment set, HighPerformance traffic mode, PostPaid, autoReleaseTime in 96 h
    (stands in for the alarm), no public bandwidth; CPFS in eu-central-1a; a retained OSS bucket
    with KMS SSE; an intra-VPC security group rule.
"""
from __future__ import annotations

from typing import Any, Optional

import pytest

from tests.policy_fixtures import AZURE_ALERTS, hours_from_now, month_first, res
from tests.policy_harness import run, verdict, PolicyPackProcess

SSZ, SPEND, TAGS_P, RDMA = "storage-same-zone", "spend-limit", "required-tags", "rdma-for-multinode"
NPI, ENC, RET = "no-public-ingress", "encryption-at-rest", "bucket-retained"
POLICIES = (SSZ, SPEND, TAGS_P, RDMA, NPI, ENC, RET)
TAGS = {"owner": "carol", "team": "vision", "cost-center": "9001"}
AZ_P = {"location": "eastus"}
ALI_P = {"region": "eu-central-1"}
SUB = "/subscriptions/00000000-0000-0000-0000-000000000001"


def unknown() -> Any:
    from trainstack_policies.model import UNKNOWN
    return UNKNOWN


def named(stack: list, name: str):
    return next(r for r in stack if r.name == name)


def _set(name: str, key: str, value: Any):
    def mutate(s):
        target = named(s, name).props
        parts = key.split(".")
        for p in parts[:-1]:   # a digit indexes a list
            target = target[int(p)] if p.isdigit() else target[p]
        target[parts[-1]] = value
        return s
    return mutate


def _pop(name: str, key: str):
    def mutate(s):
        named(s, name).props.pop(key)
        return s
    return mutate


def _add(*extra_fns):
    """Append resources built by functions of the stack (so they can depend on its resources)."""
    def mutate(s):
        for f in extra_fns:   # one at a time: a later one may depend on an earlier one
            s = s + [f(s)]
        return s
    return mutate


def _chain(*fns):
    def mutate(s):
        for f in fns:
            s = f(s)
        return s
    return mutate


def _drop(name: str):
    return lambda s: [r for r in s if r.name != name]


# ------------------------------------------------------------------------------ azure-native

def az(sku: Any = "Standard_ND96isr_H100_v5", location: str = "eastus", zone: str = "1",
       fs_zone: Optional[str] = None, acct_location: Optional[str] = None, budget: Any = 25000.0,
       hours: Optional[float] = 96, capacity: Any = 2.0, spg: Any = True) -> list:
    amlfs = res("azure-native:storagecache:AmlFilesystem", "scratch",
                {"location": location, "resourceGroupName": "train", "zones": [fs_zone or zone],
                 "storageCapacityTiB": 8.0, "sku": {"name": "AMLFS-Durable-Premium-250"},
                 "filesystemSubnet": "/subscriptions/s/resourceGroups/train/providers/"
                                     "Microsoft.Network/virtualNetworks/v/subnets/fs",
                 "maintenanceWindow": {"dayOfWeek": "Sunday", "timeOfDayUTC": "02:00"},
                 "tags": dict(TAGS)})
    acct = res("azure-native:storage:StorageAccount", "datasets",
               {"location": acct_location or location, "resourceGroupName": "train-data",
                "kind": "StorageV2", "sku": {"name": "Standard_LRS"},
                "tags": {**TAGS, "trainstack:retain": "true"}}, retain=True)
    props: dict = {"location": location, "resourceGroupName": "train", "zones": [zone],
                   "vmScaleSetName": "train-vmss",
                   "sku": {"name": sku, "capacity": capacity, "tier": "Standard"},
                   "virtualMachineProfile": {
                       "priority": "Regular", "osProfile": {"customData": "I2Nsb3Vk"},
                       "networkProfile": {"networkInterfaceConfigurations": [
                           {"name": "nic", "primary": True, "enableAcceleratedNetworking": True,
                            "ipConfigurations": [{"name": "ip", "subnet": {"id": "subnet-id"}}]}]}},
                   "tags": dict(TAGS)}
    if spg is not None:
        props["singlePlacementGroup"] = spg
    vmss = res("azure-native:compute:VirtualMachineScaleSet", "train-vmss", props,
               deps={"virtualMachineProfile": [amlfs, acct]})
    bud = res("azure-native:consumption:Budget", "train-budget",
              {"amount": budget, "category": "Cost", "timeGrain": "Monthly", "scope": SUB,
               "budgetName": "train", "notifications": AZURE_ALERTS})
    nsg = res("azure-native:network:NetworkSecurityGroup", "train-nsg",
              {"location": location, "resourceGroupName": "train",
               "networkSecurityGroupName": "train-nsg", "tags": dict(TAGS),
               "securityRules": [{"name": "vnet", "access": "Allow", "direction": "Inbound",
                                  "priority": 100.0, "protocol": "*",
                                  "sourceAddressPrefix": "VirtualNetwork", "sourcePortRange": "*",
                                  "destinationAddressPrefix": "*", "destinationPortRange": "*"}]})
    out = [amlfs, acct, vmss, bud, nsg]
    if hours is not None:
        out.append(res("azure-native:monitor:AutoscaleSetting", "train-stop",
                       {"enabled": True, "targetResourceUri": "vmss-id", "location": location,
                        "resourceGroupName": "train", "tags": dict(TAGS), "profiles": [
                            {"name": "end", "capacity": {"minimum": "0", "maximum": "0",
                                                         "default": "0"}, "rules": [],
                             "fixedDate": {"start": hours_from_now(hours),
                                           "end": "2037-12-31T00:00:00Z"}}]},
                       deps={"targetResourceUri": [vmss]}))
    return out


def _az_filter(dim: str, values: list, operator: str = "In"):
    return _set("train-budget", "filter", {"dimensions": {"name": dim, "operator": operator,
                                                          "values": values}})


def _nsg_inline(source: Any, access: str = "Allow", port: str = "443", proto: str = "Tcp",
                key: str = "sourceAddressPrefix"):
    def mutate(s):
        named(s, "train-nsg").props["securityRules"].append(
            {"name": "web", "access": access, "direction": "Inbound", "priority": 200.0,
             "protocol": proto, key: source, "sourcePortRange": "*",
             "destinationAddressPrefix": "*", "destinationPortRange": port})
        return s
    return mutate


def _az_rule(source: Any, access: str = "Allow", port: str = "8888", name: str = "jupyter",
             key: str = "sourceAddressPrefix"):
    def build(s):
        return res("azure-native:network:SecurityRule", name,
                   {"resourceGroupName": "train", "networkSecurityGroupName": "train-nsg",
                    "securityRuleName": name, "access": access, "direction": "Inbound",
                    "priority": 300.0, "protocol": "Tcp", key: source, "sourcePortRange": "*",
                    "destinationAddressPrefix": "*", "destinationPortRange": port},
                   deps={"networkSecurityGroupName": [named(s, "train-nsg")]})
    return build


def _vmss_public_ip(s):
    ipc = named(s, "train-vmss").props["virtualMachineProfile"]["networkProfile"][
        "networkInterfaceConfigurations"][0]["ipConfigurations"][0]
    ipc["publicIPAddressConfiguration"] = {"name": "pip", "idleTimeoutInMinutes": 15.0}
    return s


B1 = [
    ("z01", "az", {}, None, {}, None,
     "control: at most 21,286.07 < 25,000; AMLFS in zone 1; account eastus; SPG true; tags"),
    ("z02", "az", {"sku": "Standard_ND96isr_H200_v5", "location": "eastus2"}, None, {}, None,
     "ND H200 v5 eastus2 84.8 USD/h: 2 x 84.8 x 96 = 16,281.60 + at most 2,408.63 = 18,690.23"),
    ("z03", "az", {"sku": "Standard_ND96isr_MI300X_v5", "location": "eastus2"}, None, {}, None,
     "ND MI300X v5 eastus2 48 USD/h: 2 x 48 x 96 = 9,216 + 2,408.63 = 11,624.63; infiniband "
     "by size, SPG true"),
    ("z04", "az", {"sku": "Standard_ND96asr_v4", "location": "westus2"}, None, {}, None,
     "NDv4 westus2 27.197: 2 x 27.197 x 96 = 5,221.82 + 2,408.63 < 25,000"),
    ("z05", "az", {"sku": "Standard_NC24ads_A100_v4", "spg": False}, None, {}, None,
     "NC24ads A100 v4 fabric tcp, no RDMA: rdma not asked even unplaced; 2 x 3.673 x 96 = 705.22"),
    ("z06", "az", {"spg": False}, None, {RDMA: "advisory"}, None,
     "2 x ND H100 v5 (infiniband) with singlePlacementGroup false: not placed"),
    ("z07", "az", {"spg": None}, None, {RDMA: "advisory"}, None,
     "singlePlacementGroup left out on an azure-native set: not placed (docs)"),
    ("z08", "az", {}, _pop("train-stop", "enabled"), {SPEND: "fail"}, None,
     "azure-native autoscale without `enabled` (API default false) stops nothing: the month, "
     "143,547.20 + 2,408.63 > 25,000"),
    ("z09", "az", {}, _set("train-stop", "profiles", [
        {"name": "nightly", "capacity": {"minimum": "0", "maximum": "0", "default": "0"},
         "rules": [], "recurrence": {"frequency": "Week", "schedule": {
             "timeZone": "UTC", "days": ["Saturday"], "hours": [0.0], "minutes": [0.0]}}}]),
     {SPEND: "fail"}, None, "a recurrence profile is no lifetime: the month > 25,000"),
    ("z10", "az", {}, _set("train-budget", "scope", SUB + "/resourceGroups/train"), {}, None,
     "a budget on the scale set's own resource group `train` (literal both sides) covers it"),
    ("z11", "az", {}, _set("train-budget", "scope", SUB + "/resourceGroups/other"),
     {SPEND: "fail"}, None, "a budget on another resource group: no alarm for the scale set"),
    ("z12", "az", {}, _set("train-budget", "scope",
                           "/providers/Microsoft.Management/managementGroups/ml"),
     {SPEND: "undecided"}, None,
     "a management-group budget alone: neither the alarm nor for certain the cap: cannot decide"),
    ("z13", "az", {}, _az_filter("ResourceLocation", ["East US"]), {}, None,
     "ResourceLocation 'East US' (spaces and case ignored) takes the eastus set in"),
    ("z14", "az", {}, _az_filter("ResourceLocation", ["westus2"]), {SPEND: "fail"}, None,
     "ResourceLocation westus2 leaves the eastus set out: no budget alarm for it"),
    ("z15", "az", {}, _az_filter("MeterSubCategory", ["NDv5"]), {SPEND: "undecided"}, None,
     "MeterSubCategory is an unread dimension: cannot decide"),
    ("z16", "az", {}, _az_filter("MeterCategory", ["Virtual Machines"]), {}, None,
     "MeterCategory Virtual Machines takes the VM meters in"),
    ("z17", "az", {"fs_zone": "2"}, None, {SSZ: "fail"}, None, "AMLFS zone 2, nodes zone 1"),
    ("z18", "az", {"acct_location": "westus2"}, None, {SSZ: "fail"}, None,
     "the account the nodes' custom data reads is in westus2, the nodes in eastus"),
    ("z19", "az", {}, _set("scratch", "encryptionSettings", {"keyEncryptionKey": {
        "keyUrl": "https://kv1.vault.azure.net/secrets/lustre", "sourceVault": {"id": "kv-id"}}}),
     {ENC: "fail"}, None, "an AMLFS key URL that is a secret's URL is refused"),
    ("z20", "az", {}, _set("scratch", "encryptionSettings", {"keyEncryptionKey": {
        "keyUrl": "https://kv1.vault.azure.net/keys/lustre/0123abcd",
        "sourceVault": {"id": "kv-id"}}}), {}, None, "a Key Vault key URL with version passes"),
    ("z21", "az", {}, _set("datasets", "encryption", {
        "keySource": "Microsoft.Storage", "services": {"blob": {"enabled": False}}}),
     {ENC: "fail"}, None, "blob encryption disabled on the account"),
    ("z22", "az", {}, lambda s: (setattr(named(s, "datasets"), "retain", None),
                                 named(s, "datasets").props["tags"].pop("trainstack:retain"),
                                 s)[2], {RET: "fail"}, None,
     "the account neither protected nor tagged trainstack:retain"),
    ("z23", "az", {}, _nsg_inline("Internet"), {NPI: "fail"}, None,
     "an inline NSG rule Allow Inbound from the service tag Internet on 443"),
    ("z24", "az", {}, _nsg_inline("Internet", access="Deny"), {}, None, "a Deny rule opens nothing"),
    ("z25", "az", {}, _add(_az_rule("*")), {NPI: "fail"}, None,
     "a standalone SecurityRule from `*` on 8888"),
    ("z26", "az", {}, _add(_az_rule("AzureLoadBalancer")), {}, None,
     "the service tag AzureLoadBalancer is not world-open"),
    ("z27", "az", {}, _nsg_inline("Internet", port="22"), {}, {NPI: {"sshCidrs": ["0.0.0.0/0"]}},
     "SSH from Internet (judged as 0.0.0.0/0) with 0.0.0.0/0 in sshCidrs: allowed"),
    ("z28", "az", {}, _vmss_public_ip, {NPI: "fail"}, None,
     "a scale-set ipConfiguration with publicIPAddressConfiguration: a public IP on every node"),
    ("z29", "az", {}, lambda s: (named(s, "scratch").props["tags"].pop("team"), s)[1],
     {TAGS_P: "fail"}, None, "the AMLFS lacks `team`"),
    ("z30", "az", {}, lambda s: (named(s, "train-vmss").props.__setitem__(
        "tags", {"Owner": "carol", "TEAM": "vision", "Cost-Center": "9001"}), s)[1], {}, None,
     "Azure tag names are compared case-insensitively"),
]

BUILD = {"az": az}
PROVIDERS = {"az": AZ_P, "azc": AZ_P, "ali": ALI_P}


def check(pack, cid: str, cloud: str, stack: list, expect: dict, config=None) -> list:
    found = run(pack, stack, config, PROVIDERS[cloud])
    got = {p: verdict(found, p) for p in POLICIES}
    want = {p: expect.get(p, "pass") for p in POLICIES}
    assert got == want, (cid, [(d.policy, d.level, d.message[:400]) for d in found])
    return found


def _run_case(pack, case):
    cid, cloud, kwargs, mutate, expect, config, _why = case
    stack = BUILD[cloud](**kwargs)
    if mutate is not None:
        stack = mutate(stack)
    return check(pack, cid, cloud, stack, expect, config)


# Defects 1-4 were fixed on branch fix59 (their cases pass plain; tests/policies/
# test_policy_fix59.py holds the variants this review did not write).
XFAIL: dict[str, str] = {}


def _params(cases):
    return [pytest.param(c, id=c[0], marks=[pytest.mark.xfail(strict=True, reason=XFAIL[c[0]])]
                         if c[0] in XFAIL else []) for c in cases]


@pytest.mark.parametrize("case", _params(B1))
def test_batch1(pack, case):
    _run_case(pack, case)


# ------------------------------------------------------------------------------ batch 2
# classic azure (`azure:`) and Alibaba Cloud basics

CLASSIC_ALERTS = [{"enabled": True, "threshold": 80.0, "operator": "GreaterThan",
                   "thresholdType": "Actual", "contactEmails": ["ml-platform@example.com"]}]


def azc(sku: Any = "Standard_ND96isr_H100_v5", instances: Any = 2.0, spg: Any = None,
        hours: Optional[float] = 96, enabled: Any = None, budget: Any = 25000.0,
        kind: str = "linux") -> list:
    """Classic azure compute, stop and budget; the AMLFS and account are azure-native (the
    classic provider's filesystems are not in the docs' tables)."""
    rg = res("azure:core/resourceGroup:ResourceGroup", "train-rg",
             {"name": "train", "location": "eastus", "tags": dict(TAGS)})
    amlfs = az()[0]
    acct = az()[1]
    nics = [{"name": "nic", "primary": True, "enableAcceleratedNetworking": True,
             "ipConfigurations": [{"name": "ip", "primary": True, "subnetId": "subnet-id"}]}]
    if kind == "linux":
        props: dict = {"name": "train-vmss", "resourceGroupName": "train", "location": "eastus",
                       "sku": sku, "instances": instances, "zones": ["1"],
                       "adminUsername": "azureuser", "networkInterfaces": nics,
                       "customData": "I2Nsb3Vk", "tags": dict(TAGS)}
        type_ = "azure:compute/linuxVirtualMachineScaleSet:LinuxVirtualMachineScaleSet"
    else:   # Flexible orchestration
        props = {"name": "train-vmss", "resourceGroupName": "train", "location": "eastus",
                 "skuName": sku, "instances": instances, "zones": ["1"],
                 "platformFaultDomainCount": 1.0, "networkInterfaces": nics,
                 "userDataBase64": "I2Nsb3Vk", "tags": dict(TAGS)}
        type_ = ("azure:compute/orchestratedVirtualMachineScaleSet:"
                 "OrchestratedVirtualMachineScaleSet")
    if spg is not None:
        props["singlePlacementGroup"] = spg
    vmss = res(type_, "train-vmss", props,
               deps={"customData": [amlfs, acct], "userDataBase64": [amlfs, acct],
                     "resourceGroupName": [rg]})
    bud = res("azure:consumption/budgetSubscription:BudgetSubscription", "train-budget",
              {"name": "train", "subscriptionId": SUB, "amount": budget, "timeGrain": "Monthly",
               "timePeriod": {"startDate": "2026-12-01T00:00:00Z"},
               "notifications": CLASSIC_ALERTS})
    nsg = res("azure:network/networkSecurityGroup:NetworkSecurityGroup", "train-nsg",
              {"name": "train-nsg", "resourceGroupName": "train", "location": "eastus",
               "tags": dict(TAGS), "securityRules": [
                   {"name": "vnet", "priority": 100.0, "direction": "Inbound", "access": "Allow",
                    "protocol": "*", "sourcePortRange": "*", "destinationPortRange": "*",
                    "sourceAddressPrefix": "VirtualNetwork", "destinationAddressPrefix": "*"}]},
              deps={"resourceGroupName": [rg]})
    out = [rg, amlfs, acct, vmss, bud, nsg]
    if hours is not None:
        stop: dict = {"name": "train-stop", "resourceGroupName": "train", "location": "eastus",
                      "targetResourceId": "vmss-id", "tags": dict(TAGS), "profiles": [
                          {"name": "end", "capacity": {"default": 0.0, "minimum": 0.0,
                                                       "maximum": 0.0},
                           "fixedDate": {"start": hours_from_now(hours),
                                         "end": "2037-12-31T00:00:00Z"}}]}
        if enabled is not None:
            stop["enabled"] = enabled
        out.append(res("azure:monitoring/autoscaleSetting:AutoscaleSetting", "train-stop", stop,
                       deps={"targetResourceId": [vmss]}))
    return out


def _classic_rule(source: Any, access: str = "Allow", port: str = "443", key="sourceAddressPrefix",
                  name: str = "web", nsg_dep: bool = True, nsg_name: str = "train-nsg",
                  rg: str = "train"):
    def build(s):
        return res("azure:network/networkSecurityRule:NetworkSecurityRule", name,
                   {"name": name, "resourceGroupName": rg, "networkSecurityGroupName": nsg_name,
                    "priority": 210.0 + len(s), "direction": "Inbound", "access": access,
                    "protocol": "Tcp", "sourcePortRange": "*", "destinationPortRange": port,
                    key: source, "destinationAddressPrefix": "*"},
                   deps={"networkSecurityGroupName": [named(s, "train-nsg")]} if nsg_dep else {})
    return build


def _classic_inline(source: Any, access: str = "Allow", port: str = "443"):
    def mutate(s):
        named(s, "train-nsg").props["securityRules"].append(
            {"name": "web", "priority": 200.0, "direction": "Inbound", "access": access,
             "protocol": "Tcp", "sourcePortRange": "*", "destinationPortRange": port,
             "sourceAddressPrefix": source, "destinationAddressPrefix": "*"})
        return s
    return mutate


def _classic_pip(s):
    ipc = named(s, "train-vmss").props["networkInterfaces"][0]["ipConfigurations"][0]
    ipc["publicIpAddresses"] = [{"name": "pip", "idleTimeoutInMinutes": 15.0}]
    return s


def ali(itype: str = "ecs.gn8v-8x.48xlarge", zone: str = "eu-central-1a",
        fs_zone: Optional[str] = None, release: Any = "96h", strategy: Any = "LowLatency",
        mode: Any = "HighPerformance", charge: str = "PostPaid", bandwidth: Any = 0.0,
        nodes: int = 2) -> list:
    when = hours_from_now(float(release[:-1])) if isinstance(release, str) and \
        release.endswith("h") else release
    vsw = res("alicloud:vpc/switch:Switch", "train-vsw",
              {"zoneId": zone, "vpcId": "vpc-1", "cidrBlock": "10.1.0.0/24", "tags": dict(TAGS)})
    ds = res("alicloud:ecs/ecsDeploymentSet:EcsDeploymentSet", "train-ds", {"strategy": strategy})
    cpfs = res("alicloud:nas/fileSystem:FileSystem", "scratch",
               {"fileSystemType": "cpfs", "protocolType": "cpfs", "storageType": "advance_200",
                "capacity": 3600.0, "zoneId": fs_zone or zone, "vpcId": "vpc-1",
                "vswitchId": "vsw-x", "tags": dict(TAGS)})
    bucket = res("alicloud:oss/bucket:Bucket", "datasets",
                 {"forceDestroy": False, "serverSideEncryptionRule": {"sseAlgorithm": "KMS"},
                  "tags": {**TAGS, "trainstack:retain": "true"}}, retain=True)
    sg = res("alicloud:ecs/securityGroup:SecurityGroup", "train-sg",
             {"vpcId": "vpc-1", "tags": dict(TAGS)})
    rule = res("alicloud:ecs/securityGroupRule:SecurityGroupRule", "intra",
               {"type": "ingress", "ipProtocol": "all", "portRange": "-1/-1",
                "cidrIp": "10.1.0.0/16", "securityGroupId": "sg-x"}, deps={"securityGroupId": [sg]})
    out = [vsw, ds, cpfs, bucket, sg, rule]
    for i in range(nodes):
        props = {"instanceType": itype, "vswitchId": "vsw-x", "deploymentSetId": "ds-x",
                 "privateIp": f"10.1.0.{10 + i}",
                 "networkInterfaceTrafficMode": mode, "internetMaxBandwidthOut": bandwidth,
                 "instanceChargeType": charge, "securityGroups": ["sg-x"],
                 "userData": "bW91bnQ=", "tags": dict(TAGS)}
        if when is not None:
            props["autoReleaseTime"] = when
        out.append(res("alicloud:ecs/instance:Instance", f"train-{i}", props,
                       deps={"vswitchId": [vsw], "deploymentSetId": [ds],
                             "securityGroups": [sg], "userData": [cpfs, bucket]}))
    return out


def _ali_rule(cidr: str = "0.0.0.0/0", policy: Optional[str] = None, port: str = "443/443",
              name: str = "web", key: str = "cidrIp"):
    def build(s):
        props = {"type": "ingress", "ipProtocol": "tcp", "portRange": port, key: cidr,
                 "securityGroupId": "sg-x", "priority": 1.0}
        if policy is not None:
            props["policy"] = policy
        return res("alicloud:ecs/securityGroupRule:SecurityGroupRule", name, props,
                   deps={"securityGroupId": [named(s, "train-sg")]})
    return build


def _ali_eip(target: str = "train-0", instance_type: str = "EcsInstance"):
    def build(s):
        eip = named(s, "train-eip")
        return res("alicloud:ecs/eipAssociation:EipAssociation", "train-eip-assoc",
                   {"allocationId": "eip-x", "instanceId": "i-x", "instanceType": instance_type},
                   deps={"allocationId": [eip], "instanceId": [named(s, target)]})
    return build


def _eip(s):
    return res("alicloud:ecs/eipAddress:EipAddress", "train-eip",
               {"bandwidth": "100", "internetChargeType": "PayByTraffic", "tags": dict(TAGS)})


def _natgw(s):
    return res("alicloud:vpc/natGateway:NatGateway", "train-nat",
               {"vpcId": "vpc-1", "vswitchId": "vsw-x", "natType": "Enhanced",
                "networkType": "internet", "paymentType": "PayAsYouGo", "tags": dict(TAGS)},
               deps={"vswitchId": [named(s, "train-vsw")]})


B2 = [
    ("c01", "azc", {}, None, {}, None,
     "control (classic): Linux set, singlePlacementGroup left out (provider default true: placed); "
     "classic autoscale with enabled left out (classic default true), capacity 0 in 96 h; "
     "budgetSubscription 25,000 with an e-mail; at most 21,286.07"),
    ("c02", "azc", {"spg": False}, None, {RDMA: "advisory"}, None,
     "classic Linux set with singlePlacementGroup false: not placed"),
    ("c03", "azc", {"enabled": False}, None, {SPEND: "fail"}, None,
     "classic autoscale enabled false: no stop; the month 143,547.20 + 2,408.63 > 25,000"),
    ("c04", "azc", {"hours": None}, None, {SPEND: "fail"}, None, "no stop: the month > 25,000"),
    ("c05", "azc", {"kind": "flex"}, None, {RDMA: "advisory"}, None,
     "Orchestrated (Flexible) set with singlePlacementGroup left out: not placed (docs); the "
     "classic autoscale reads an Orchestrated set as a Linux one: <= 21,286.07"),
    ("c06", "azc", {"kind": "flex", "spg": True}, None, {}, None,
     "Orchestrated set with singlePlacementGroup true: placed"),
    ("c07", "azc", {}, _classic_inline("Internet"), {NPI: "fail"}, None,
     "classic NSG inline rule from Internet on 443"),
    ("c08", "azc", {}, _classic_inline("internet"), {NPI: "fail"}, None,
     "the service tag in lower case: 'in any case'"),
    ("c09", "azc", {}, _add(_classic_rule("Any")), {NPI: "fail"}, None,
     "classic standalone NetworkSecurityRule from `Any`"),
    ("c10", "azc", {}, _add(_classic_rule("Internet", access="Deny")), {}, None,
     "a Deny rule opens nothing"),
    ("c11", "azc", {}, _add(_classic_rule("10.0.0.0/0")), {NPI: "fail"}, None,
     "a /0 written with host bits is world-open"),
    ("c12", "azc", {}, _add(_classic_rule(["0.0.0.0/1", "128.0.0.0/1"], key="sourceAddressPrefixes")),
     {NPI: "fail"}, None, "one rule's sourceAddressPrefixes together cover all addresses"),
    ("c13", "azc", {}, _add(_classic_rule("0.0.0.0/1", name="half-a"),
                            _classic_rule("128.0.0.0/1", name="half-b")),
     {NPI: "fail"}, None, "two standalone halves on one NSG of the stack: a violation on the group"),
    ("c14", "azc", {}, _classic_pip, {NPI: "fail"}, None,
     "classic scale-set ipConfiguration publicIpAddresses: scale-set public IPs"),
    ("c15", "azc", {}, _set("train-budget", "timePeriod",
                            {"startDate": f"{month_first(2):%Y-%m-%dT%H:%M:%SZ}"}),
     {SPEND: "fail"}, None, "a budget whose period has not begun (written 2027-02-01; the first of "
     "the month 2 months on) tracks nothing: no alarm"),
    ("c16", "azc", {"budget": 15000.0}, None, {SPEND: "fail"}, None,
     "at least 18,877.44 + storage > 15,000"),
    ("c17", "azc", {}, lambda s: [r if r.name != "train-budget" else res(
        "azure:consumption/budgetResourceGroup:BudgetResourceGroup", "train-budget",
        {"name": "train", "resourceGroupId": "rg-id", "amount": 25000.0, "timeGrain": "Monthly",
         "timePeriod": {"startDate": "2026-12-01T00:00:00Z"}, "notifications": CLASSIC_ALERTS},
        deps={"resourceGroupId": [named(s, "train-rg")]}) for r in s], {}, None,
     "a classic resource-group budget built from the set's own ResourceGroup covers it"),
    ("c18", "azc", {}, lambda s: [r if r.name != "train-budget" else res(
        "azure:consumption/budgetManagementGroup:BudgetManagementGroup", "train-budget",
        {"name": "train", "managementGroupId": "/providers/Microsoft.Management/"
         "managementGroups/ml", "amount": 25000.0, "timeGrain": "Monthly",
         "timePeriod": {"startDate": "2026-12-01T00:00:00Z"}, "notifications": CLASSIC_ALERTS})
        for r in s], {SPEND: "undecided"}, None,
     "a classic management-group budget alone: cannot decide"),
    ("b01", "ali", {}, None, {}, None,
     "control: autoReleaseTime on every node, LowLatency set, HighPerformance, no public IP"),
    ("b02", "ali", {"bandwidth": 100.0}, None, {NPI: "fail"}, None,
     "internetMaxBandwidthOut 100 gives each node a public IP (Scope: every node's public-IP "
     "settings)"),
    ("b03", "ali", {"charge": "PrePaid"}, None, {SPEND: "fail"}, None,
     "autoReleaseTime on subscription nodes releases nothing: no stand-in for the alarm"),
    ("b04", "ali", {"release": "2026-01-01T00:00:00Z"}, None, {SPEND: "fail"}, None,
     "an autoReleaseTime already past releases nothing: a violation naming it"),
    ("b05", "ali", {"release": None}, None, {SPEND: "fail"}, None,
     "no autoReleaseTime and no budget resource on Alibaba: no alarm"),
    ("b06", "ali", {"strategy": "Availability"}, None, {RDMA: "advisory"}, None,
     "a deployment set of strategy Availability places nothing for RDMA"),
    ("b07", "ali", {"mode": "Standard"}, None, {RDMA: "advisory"}, None,
     "gn8v-8x.48xlarge is erdma; traffic mode Standard: not the fastest fabric"),
    ("b08", "ali", {"itype": "ecs.gn7e-c16g1.32xlarge", "mode": "Standard"}, None,
     {SPEND: "fail"}, None,
     "gn7e-c16g1.32xlarge fabric tcp: rdma not asked; prices.csv prices it only in "
     "ap-northeast-1/2, not eu-central-1: a catalog type in a region without a price fails closed"),
    ("b09", "ali", {"fs_zone": "eu-central-1b"}, None, {SSZ: "fail"}, None,
     "CPFS in eu-central-1b, nodes mounting it in eu-central-1a"),
    ("b10", "ali", {}, _add(_ali_rule()), {NPI: "fail"}, None, "0.0.0.0/0 tcp 443 accept"),
    ("b11", "ali", {}, _add(_ali_rule(policy="drop")), {}, None, "a drop rule opens nothing"),
    ("b12", "ali", {}, _add(_ali_rule("::/0", key="ipv6CidrIp")), {NPI: "fail"}, None,
     "ipv6CidrIp ::/0"),
    ("b13", "ali", {}, _add(_ali_rule("0.0.0.0/1", name="h1"), _ali_rule("128.0.0.0/1", name="h2")),
     {NPI: "fail"}, None, "two halves on one security group: a violation on the group"),
    ("b14", "ali", {}, _add(_eip, _ali_eip()), {NPI: "fail"}, None,
     "an EIP associated with a GPU node"),
    ("b15", "ali", {}, _add(_eip, _natgw, _ali_eip("train-nat", "Nat")), {}, None,
     "an EIP on the NAT gateway passes"),
    ("b16", "ali", {}, _set("datasets", "forceDestroy", True), {RET: "fail"}, None,
     "OSS bucket with forceDestroy"),
    ("b17", "ali", {}, _pop("datasets", "serverSideEncryptionRule"), {ENC: "fail"}, None,
     "OSS with no server-side encryption rule (remediation names one)"),
    ("b18", "ali", {}, lambda s: (named(s, "train-vsw").props.pop("tags"), s)[1], {TAGS_P: "fail"},
     None, "the vSwitch carries no tags"),
]
BUILD.update({"azc": azc, "ali": ali})


@pytest.mark.parametrize("case", _params(B2))
def test_batch2(pack, case):
    _run_case(pack, case)


# ------------------------------------------------------------------------------ batch 3
# AKS, Azure ML, capacity reservations, load balancers; Alibaba sets, ESS, ACK, NAT, SLB/NLB/ALB

def aks(max_count: Any = 2.0, budget_scope: str = SUB, budget: Any = 160000.0,
        node_rg: Optional[str] = None, inline: bool = False, public: Any = False) -> list:
    """An AKS cluster (system pool of Standard_D4s_v5, no catalog row: left out) and a GPU pool
    of ND H100 v5 autoscaling 0..max_count; no stop (AKS has none in the docs)."""
    gpu_pool = {"name": "gpu", "mode": "User", "vmSize": "Standard_ND96isr_H100_v5",
                "enableAutoScaling": True, "minCount": 0.0, "maxCount": max_count, "count": 0.0,
                "availabilityZones": ["1"], "enableNodePublicIP": public, "osType": "Linux"}
    props: dict = {"resourceName": "train-aks", "resourceGroupName": "train",
                   "location": "eastus", "dnsPrefix": "train", "tags": dict(TAGS),
                   "agentPoolProfiles": [{"name": "system", "mode": "System",
                                          "vmSize": "Standard_D4s_v5", "count": 1.0,
                                          "osType": "Linux"}] + ([gpu_pool] if inline else [])}
    if node_rg:
        props["nodeResourceGroup"] = node_rg
    cluster = res("azure-native:containerservice:ManagedCluster", "train-aks", props)
    out = [cluster]
    if not inline:
        pool = {k: v for k, v in gpu_pool.items() if k != "name"}
        out.append(res("azure-native:containerservice:AgentPool", "gpu",
                       {**pool, "agentPoolName": "gpu", "resourceName": "train-aks",
                        "resourceGroupName": "train", "tags": dict(TAGS)},
                       deps={"resourceName": [cluster]}))
    out.append(res("azure-native:consumption:Budget", "train-budget",
                   {"amount": budget, "category": "Cost", "timeGrain": "Monthly",
                    "scope": budget_scope, "budgetName": "train",
                    "notifications": AZURE_ALERTS}))
    return out


def aml(vm_size: str = "Standard_ND96amsr_A100_v4", max_nodes: Any = 2.0, budget: Any = 60000.0,
        public: Any = False, compute_type: str = "AmlCompute") -> list:
    inner: dict = {"vmSize": vm_size, "vmPriority": "Dedicated"}
    if compute_type == "AmlCompute":
        inner.update(scaleSettings={"maxNodeCount": max_nodes, "minNodeCount": 0.0},
                     enableNodePublicIp=public)
    comp = res("azure-native:machinelearningservices:Compute", "train-aml",
               {"computeName": "train", "workspaceName": "ws", "resourceGroupName": "train",
                "location": "eastus", "tags": dict(TAGS),
                "properties": {"computeType": compute_type, "properties": inner}})
    bud = res("azure-native:consumption:Budget", "train-budget",
              {"amount": budget, "category": "Cost", "timeGrain": "Monthly", "scope": SUB,
               "budgetName": "train", "notifications": AZURE_ALERTS})
    return [comp] + ([bud] if budget is not None else [])


def _crg(literal: bool = False, capacity: float = 2.0):
    def mutate(s):
        crg = res("azure-native:compute:CapacityReservationGroup", "train-crg",
                  {"capacityReservationGroupName": "train-crg", "resourceGroupName": "train",
                   "location": "eastus", "zones": ["1"], "tags": dict(TAGS)})
        cr = res("azure-native:compute:CapacityReservation", "train-cr",
                 {"capacityReservationGroupName": "train-crg", "capacityReservationName": "h100",
                  "resourceGroupName": "train", "location": "eastus", "zones": ["1"],
                  "sku": {"name": "Standard_ND96isr_H100_v5", "capacity": capacity},
                  "tags": dict(TAGS)}, deps={"capacityReservationGroupName": [crg]})
        vmss = named(s, "train-vmss")
        vmss.props["virtualMachineProfile"]["capacityReservation"] = {
            "capacityReservationGroup": {"id": "/subscriptions/s/resourceGroups/other/providers/"
                                               "Microsoft.Compute/capacityReservationGroups/x"
                                         if literal else "crg-id"}}
        if not literal:
            vmss.deps["virtualMachineProfile"] = vmss.deps["virtualMachineProfile"] + [crg]
        return s + [crg, cr]
    return mutate


def _lb(public: bool = True, rules: bool = True, nat_pools: bool = False, outbound: bool = False):
    def mutate(s):
        pip = res("azure-native:network:PublicIPAddress", "lb-pip",
                  {"resourceGroupName": "train", "location": "eastus", "tags": dict(TAGS),
                   "sku": {"name": "Standard"}, "publicIPAllocationMethod": "Static"})
        fe = ({"name": "fe", "publicIPAddress": {"id": "pip-id"}} if public else
              {"name": "fe", "subnet": {"id": "subnet-id"}, "privateIPAddress": "10.0.0.5",
               "privateIPAllocationMethod": "Static"})
        props: dict = {"loadBalancerName": "train-lb", "resourceGroupName": "train",
                       "location": "eastus", "sku": {"name": "Standard"}, "tags": dict(TAGS),
                       "frontendIPConfigurations": [fe],
                       "backendAddressPools": [{"name": "pool"}]}
        fe_id = ("/subscriptions/s/resourceGroups/train/providers/Microsoft.Network/"
                 "loadBalancers/train-lb/frontendIPConfigurations/fe")
        pool_id = ("/subscriptions/s/resourceGroups/train/providers/Microsoft.Network/"
                   "loadBalancers/train-lb/backendAddressPools/pool")
        if rules:
            props["loadBalancingRules"] = [{"name": "https", "protocol": "Tcp",
                                            "frontendPort": 443.0, "backendPort": 443.0,
                                            "frontendIPConfiguration": {"id": fe_id},
                                            "backendAddressPool": {"id": pool_id}}]
        if nat_pools:
            props["inboundNatPools"] = [{"name": "ssh", "protocol": "Tcp",
                                         "frontendPortRangeStart": 50000.0,
                                         "frontendPortRangeEnd": 50099.0, "backendPort": 22.0,
                                         "frontendIPConfiguration": {"id": fe_id}}]
        if outbound:
            props["outboundRules"] = [{"name": "out", "protocol": "All",
                                       "frontendIPConfigurations": [{"id": fe_id}],
                                       "backendAddressPool": {"id": pool_id}}]
        lb = res("azure-native:network:LoadBalancer", "train-lb", props,
                 deps={"frontendIPConfigurations": [pip]} if public else {})
        vmss = named(s, "train-vmss")
        ipc = vmss.props["virtualMachineProfile"]["networkProfile"][
            "networkInterfaceConfigurations"][0]["ipConfigurations"][0]
        ipc["loadBalancerBackendAddressPools"] = [{"id": pool_id}]
        if nat_pools:
            ipc["loadBalancerInboundNatPools"] = [{"id": pool_id.replace(
                "backendAddressPools/pool", "inboundNatPools/ssh")}]
        vmss.deps["virtualMachineProfile"] = vmss.deps["virtualMachineProfile"] + [lb]
        return s + [pip, lb]
    return mutate


def _nat_rule(lb_name: str = "train-lb", dep: bool = False):
    def build(s):
        return res("azure-native:network:InboundNatRule", "ssh-0",
                   {"loadBalancerName": lb_name, "resourceGroupName": "train",
                    "inboundNatRuleName": "ssh-0", "protocol": "Tcp", "frontendPort": 50022.0,
                    "backendPort": 22.0, "frontendIPConfiguration": {"id": "fe-id"}},
                   deps={"loadBalancerName": [named(s, "train-lb")]} if dep else {})
    return build


def _classic_lb(s):
    rg = named(s, "train-rg")
    pip = res("azure:network/publicIp:PublicIp", "lb-pip",
              {"name": "lb-pip", "resourceGroupName": "train", "location": "eastus",
               "allocationMethod": "Static", "sku": "Standard", "tags": dict(TAGS)})
    lb = res("azure:lb/loadBalancer:LoadBalancer", "train-lb",
             {"name": "train-lb", "resourceGroupName": "train", "location": "eastus",
              "sku": "Standard", "tags": dict(TAGS),
              "frontendIpConfigurations": [{"name": "fe", "publicIpAddressId": "pip-id"}]},
             deps={"frontendIpConfigurations": [pip], "resourceGroupName": [rg]})
    pool = res("azure:lb/backendAddressPool:BackendAddressPool", "pool",
               {"name": "pool", "loadbalancerId": "lb-id"}, deps={"loadbalancerId": [lb]})
    rule = res("azure:lb/rule:Rule", "https",
               {"name": "https", "loadbalancerId": "lb-id", "protocol": "Tcp",
                "frontendPort": 443.0, "backendPort": 443.0,
                "frontendIpConfigurationName": "fe", "backendAddressPoolIds": ["pool-id"]},
               deps={"loadbalancerId": [lb], "backendAddressPoolIds": [pool]})
    vmss = named(s, "train-vmss")
    vmss.props["networkInterfaces"][0]["ipConfigurations"][0][
        "loadBalancerBackendAddressPoolIds"] = ["pool-id"]
    vmss.deps["networkInterfaces"] = [pool]
    return s + [pip, lb, pool, rule]


def ali_set(itype: str = "ecs.ebmgn8v.48xlarge", amount: Any = 2.0, release: Any = "96h") -> list:
    base = ali(nodes=0)
    when = hours_from_now(float(release[:-1])) if isinstance(release, str) and \
        release.endswith("h") else release
    props = {"instanceType": itype, "amount": amount, "imageId": "ubuntu_22_04_x64",
             "securityGroupIds": ["sg-x"], "vswitchId": "vsw-x", "deploymentSetId": "ds-x",
             "instanceChargeType": "PostPaid", "internetMaxBandwidthOut": 0.0,
             "tags": dict(TAGS)}
    if when is not None:
        props["autoReleaseTime"] = when
    vsw, ds, cpfs, bucket, sg = (named(base, n) for n in
                                 ("train-vsw", "train-ds", "scratch", "datasets", "train-sg"))
    ecs_set = res("alicloud:ecs/ecsInstanceSet:EcsInstanceSet", "train-set", props,
                  deps={"vswitchId": [vsw], "deploymentSetId": [ds], "securityGroupIds": [sg],
                        "imageId": [cpfs, bucket]})
    return base + [ecs_set]


def ali_ess(itype: str = "ecs.gn8v-8x.48xlarge", max_size: Any = 2.0) -> list:
    base = ali(nodes=0)
    vsw, cpfs, bucket, sg = (named(base, n) for n in ("train-vsw", "scratch", "datasets",
                                                      "train-sg"))
    group = res("alicloud:ess/scalingGroup:ScalingGroup", "train-ess",
                {"minSize": 0.0, "maxSize": max_size, "scalingGroupName": "train",
                 "vswitchIds": ["vsw-x"], "tags": dict(TAGS)}, deps={"vswitchIds": [vsw]})
    conf = res("alicloud:ess/scalingConfiguration:ScalingConfiguration", "train-ess-conf",
               {"scalingGroupId": "ess-x", "instanceType": itype, "imageId": "ubuntu_22_04_x64",
                "securityGroupId": "sg-x", "internetMaxBandwidthOut": 0.0, "active": True,
                "userData": "bW91bnQ=", "tags": dict(TAGS)},
               deps={"scalingGroupId": [group], "securityGroupId": [sg],
                     "userData": [cpfs, bucket]})
    return base + [group, conf]


def ali_ack(itype: str = "ecs.gn8v-8x.48xlarge", max_size: Any = 2.0, bandwidth: Any = 0.0) -> list:
    base = ali(nodes=0)
    vsw = named(base, "train-vsw")
    pool = res("alicloud:cs/nodePool:NodePool", "train-gpu",
               {"clusterId": "c-literal123", "nodePoolName": "gpu", "instanceTypes": [itype],
                "vswitchIds": ["vsw-x"], "internetMaxBandwidthOut": bandwidth,
                "scalingConfig": {"enable": True, "minSize": 0.0, "maxSize": max_size},
                "tags": dict(TAGS)}, deps={"vswitchIds": [vsw]})
    return base + [pool]


def _dnat(internal: str = "10.1.0.10", dep: bool = False):
    def build(s):
        return res("alicloud:vpc/forwardEntry:ForwardEntry", "ssh-dnat",
                   {"forwardTableId": "ftb-x", "externalIp": "47.0.0.1", "externalPort": "2222",
                    "internalIp": internal, "internalPort": "22", "ipProtocol": "tcp"},
                   deps={"forwardTableId": [named(s, "train-nat")],
                         **({"internalIp": [named(s, "train-0")]} if dep else {})})
    return build


def _snat(s):
    return res("alicloud:vpc/snatEntry:SnatEntry", "egress",
               {"snatTableId": "stb-x", "sourceVswitchId": "vsw-x", "snatIp": "47.0.0.1"},
               deps={"snatTableId": [named(s, "train-nat")],
                     "sourceVswitchId": [named(s, "train-vsw")]})


def _slb(address_type: str = "internet"):
    def mutate(s):
        lb = res("alicloud:slb/loadBalancer:LoadBalancer", "train-slb",
                 {"loadBalancerName": "train", "addressType": address_type,
                  "loadBalancerSpec": "slb.s2.small", "vswitchId": (
                      "vsw-x" if address_type == "intranet" else None), "tags": dict(TAGS)})
        lb.props = {k: v for k, v in lb.props.items() if v is not None}
        be = res("alicloud:slb/backendServer:BackendServer", "train-slb-be",
                 {"loadBalancerId": "lb-x", "backendServers": [
                     {"serverId": "i-x", "weight": 100.0, "type": "ecs"}]},
                 deps={"loadBalancerId": [lb], "backendServers": [named(s, "train-0")]})
        listener = res("alicloud:slb/listener:Listener", "train-slb-https",
                       {"loadBalancerId": "lb-x", "frontendPort": 443.0, "backendPort": 443.0,
                        "protocol": "tcp", "bandwidth": -1.0}, deps={"loadBalancerId": [lb]})
        return s + [lb, be, listener]
    return mutate


def _nlb(s):
    lb = res("alicloud:nlb/loadBalancer:LoadBalancer", "train-nlb",
             {"loadBalancerName": "train", "addressType": "Internet", "addressIpVersion": "ipv4",
              "vpcId": "vpc-1", "zoneMappings": [{"vswitchId": "vsw-x",
                                                   "zoneId": "eu-central-1a"}],
              "tags": dict(TAGS)})
    sg = res("alicloud:nlb/serverGroup:ServerGroup", "train-nlb-sg",
             {"serverGroupName": "train", "vpcId": "vpc-1", "protocol": "TCP",
              "serverGroupType": "Instance", "tags": dict(TAGS)})
    att = res("alicloud:nlb/serverGroupServerAttachment:ServerGroupServerAttachment", "train-nlb-0",
              {"serverGroupId": "sgp-x", "serverId": "i-x", "serverType": "Ecs", "port": 443.0,
               "weight": 100.0}, deps={"serverGroupId": [sg], "serverId": [named(s, "train-0")]})
    lst = res("alicloud:nlb/listener:Listener", "train-nlb-l",
              {"loadBalancerId": "nlb-x", "serverGroupId": "sgp-x", "listenerProtocol": "TCP",
               "listenerPort": 443.0}, deps={"loadBalancerId": [lb], "serverGroupId": [sg]})
    return s + [lb, sg, att, lst]


def _ali_cr(end_type: str = "Unlimited"):
    def build(s):
        props = {"instanceType": "ecs.gn8v-8x.48xlarge", "instanceAmount": 2.0,
                 "zoneIds": ["eu-central-1a"], "matchCriteria": "Open",
                 "endTimeType": end_type, "tags": dict(TAGS)}
        if end_type == "Limited":
            props["endTime"] = hours_from_now(96)
        return res("alicloud:ecs/capacityReservation:CapacityReservation", "train-cr", props)
    return build


def _nas_standard(encrypt: Any = None):
    def build(s):
        props = {"fileSystemType": "standard", "protocolType": "NFS",
                 "storageType": "Performance", "zoneId": "eu-central-1a", "tags": dict(TAGS)}
        if encrypt is not None:
            props["encryptType"] = encrypt
        return res("alicloud:nas/fileSystem:FileSystem", "home", props)
    return build


B3 = [
    ("k01", "aks", {}, None, {}, None,
     "control: AKS GPU AgentPool ND H100 v5 autoscaling to 2: 2 x 98.32 x 730 = 143,547.20 (no "
     "stop), budget 160,000 on the subscription; system pool D4s_v5 has no catalog row: left out; "
     "AKS places its own nodes (rdma not asked)"),
    ("k02", "aks", {"max_count": 4.0}, None, {SPEND: "fail"}, None,
     "maxCount 4: 4 x 98.32 x 730 = 287,094.40 > 160,000"),
    ("k03", "aks", {"public": True}, None, {NPI: "fail"}, None,
     "enableNodePublicIP true on the AgentPool"),
    ("k04", "aks", {"inline": True, "public": True}, None, {NPI: "fail"}, None,
     "enableNodePublicIP true on an inline agentPoolProfiles entry"),
    ("k05", "aks", {"budget_scope": SUB + "/resourceGroups/train"}, None, {SPEND: "fail"}, None,
     "a budget on the cluster's own group never takes the pool in (AKS FAQ): no alarm"),
    ("k06", "aks", {"budget_scope": SUB + "/resourceGroups/MC_train_train-aks_eastus"}, None, {},
     None, "a budget on the default node resource group MC_<rg>_<name>_<location> covers it"),
    ("k07", "aks", {"budget_scope": SUB + "/resourceGroups/train-nodes", "node_rg": "train-nodes"},
     None, {}, None, "a budget on the explicit nodeResourceGroup covers the pool"),
    ("k08", "aks", {"budget_scope": SUB + "/resourceGroups/elsewhere", "node_rg": "train-nodes"},
     None, {SPEND: "fail"}, None, "a budget on an unrelated group with the node group known: no alarm"),
    ("m01", "aml", {}, None, {}, None,
     "control: AmlCompute ND96amsr A100 v4 maxNodeCount 2: 2 x 32.77 x 730 = 47,844.20 < 60,000"),
    ("m02", "aml", {"budget": 40000.0}, None, {SPEND: "fail"}, None, "47,844.20 > 40,000"),
    ("m03", "aml", {"public": True}, None, {NPI: "fail"}, None,
     "AmlCompute enableNodePublicIp true: 'the compute nodes will have public IPs' (SDK); Scope: "
     "every node's public-IP settings"),
    ("m04", "aml", {"vm_size": "Standard_NC4as_T4_v3", "compute_type": "ComputeInstance",
                    "budget": None}, None, {SPEND: "fail"}, None,
     "a compute instance is one GPU VM for the month needing a budget like any GPU node: none"),
    ("r01", "az", {"budget": 150000.0}, _crg(), {}, None,
     "capacity reservation of 2 ND H100 v5 (the month, used or not): 143,547.20; the set's 2 "
     "nodes inside it priced there (counted once) + storage 2,408.63 = 145,955.83 < 150,000 "
     "(counted twice it would be 164,833.27)"),
    ("r02", "az", {"budget": 140000.0}, _crg(), {SPEND: "fail"}, None,
     "the reservation alone bills 143,547.20 > 140,000 whatever the set's stop"),
    ("r03", "az", {"budget": 150000.0}, _crg(literal=True), {SPEND: "fail"}, None,
     "the set names a literal reservation group elsewhere: the stack's reservation is not its: "
     "143,547.20 + 18,877.44 + 2,408.63 = 164,833.27 > 150,000"),
    ("r04", "az", {}, _chain(_crg(), _drop("train-budget")), {SPEND: "fail"}, None,
     "a reservation and a set with no budget: no alarm"),
    ("l01", "az", {}, _lb(), {NPI: "fail"}, None,
     "the nodes are in the backend pool of a public LB's load-balancing rule"),
    ("l02", "az", {}, _lb(public=False), {}, None, "the same behind a private frontend"),
    ("l03", "az", {}, _lb(rules=False, nat_pools=True), {NPI: "fail"}, None,
     "inbound NAT pools of a public LB of the stack"),
    ("l04", "az", {}, _lb(rules=False, outbound=True), {}, None,
     "outbound rules alone take nothing in"),
    ("l05", "az", {}, _chain(_lb(rules=False, outbound=True), _add(_nat_rule())), {NPI: "fail"},
     None, "a standalone InboundNatRule naming the public LB by its name and group"),
    ("l06", "az", {}, _add(_nat_rule("edge-lb")), {NPI: "undecided"}, None,
     "an InboundNatRule naming a balancer the stack does not create: cannot decide"),
    ("l07", "azc", {}, _classic_lb, {NPI: "fail"}, None,
     "classic LB with a public frontend, an azure:lb/rule to the pool the classic set joins"),
    ("e01", "ali_set", {}, None, {RDMA: "advisory"}, None,
     "EcsInstanceSet of 2 ebmgn8v.48xlarge (erdma) in a LowLatency set: it has no traffic-mode "
     "field, so the fabric advisory; auto-release stands in for the alarm"),
    ("e02", "ali_set", {"itype": "ecs.gn7i-c8g1.2xlarge"}, None, {}, None,
     "EcsInstanceSet of 2 gn7i-c8g1.2xlarge (tcp): nothing asked; priced 2.56083 in eu-central-1"),
    ("e03", "ali_set", {"release": None}, None, {SPEND: "fail", RDMA: "advisory"}, None,
     "an instance set without autoReleaseTime: no alarm"),
    ("e04", "ali_ess", {}, None, {SPEND: "fail", RDMA: "advisory"}, None,
     "ESS group of gn8v-8x.48xlarge max 2: no autoReleaseTime on its nodes (no stand-in for the "
     "alarm); an ESS group is never placed"),
    ("e05", "ali_ack", {}, None, {SPEND: "fail"}, None,
     "ACK GPU pool: no autoReleaseTime, no budget: no alarm; ACK places its own nodes"),
    ("e06", "ali_ack", {"bandwidth": 10.0}, None, {SPEND: "fail", NPI: "fail"}, None,
     "ACK pool with internetMaxBandwidthOut 10: public IPs on nodes (ACK is in NPI's table)"),
    ("e07", "ali", {}, _add(_eip, _natgw, _ali_eip("train-nat", "Nat"), _dnat()), {NPI: "fail"},
     None, "a DNAT entry to node train-0's literal private IP 10.1.0.10"),
    ("e08", "ali", {}, _add(_eip, _natgw, _ali_eip("train-nat", "Nat"), _snat), {}, None,
     "SNAT only: egress, nothing in"),
    ("e09", "ali", {}, _add(_eip, _natgw, _dnat("10.1.0.99")), {}, None,
     "a DNAT entry to an IP that is no node of the stack"),
    ("e10", "ali", {}, _slb(), {NPI: "fail"}, None, "an internet SLB with a GPU node as backend"),
    ("e11", "ali", {}, _slb("intranet"), {}, None, "an intranet SLB"),
    ("e12", "ali", {}, _nlb, {NPI: "fail"}, None, "an Internet NLB whose server group holds a node"),
    ("e13", "ali", {}, _add(_ali_cr()), {SPEND: "fail"}, None,
     "an Alibaba capacity reservation without endTimeType Limited: a month and a violation"),
    ("e14", "ali", {}, _add(_ali_cr("Limited")), {}, None,
     "a Limited reservation ending in 96 h: priced until then; no budget resource needed"),
    ("e15", "ali", {}, _add(_nas_standard()), {ENC: "fail"}, None,
     "a standard NAS without encryptType"),
    ("e16", "ali", {}, _add(_nas_standard(1.0)), {}, None, "a standard NAS with encryptType 1"),
]
BUILD.update({"aks": aks, "aml": aml, "ali_set": ali_set, "ali_ess": ali_ess, "ali_ack": ali_ack})
PROVIDERS.update({"aks": AZ_P, "aml": AZ_P, "ali_set": ALI_P, "ali_ess": ALI_P, "ali_ack": ALI_P})


@pytest.mark.parametrize("case", _params(B3))
def test_batch3(pack, case):
    _run_case(pack, case)


# ------------------------------------------------------------------------------ batch 4
# defect 1's reach; hostile and malformed values; catalog reach; budgets and stops

def _aml_props(**inner):
    def mutate(s):
        props = named(s, "train-aml").props["properties"]["properties"]
        for k, v in inner.items():
            if v is None:
                props.pop(k, None)
            else:
                props[k] = v
        return s
    return mutate


def _batch_pool(provision: str = "BatchManaged"):
    def build(s):
        return res("azure-native:batch:Pool", "train-batch",
                   {"accountName": "trainbatch", "poolName": "gpu", "resourceGroupName": "train",
                    "vmSize": "Standard_ND96amsr_A100_v4",
                    "scaleSettings": {"fixedScale": {"targetDedicatedNodes": 1.0,
                                                     "targetLowPriorityNodes": 0.0}},
                    "deploymentConfiguration": {"virtualMachineConfiguration": {
                        "imageReference": {"publisher": "microsoft-dsvm",
                                           "offer": "ubuntu-hpc", "sku": "2204"},
                        "nodeAgentSkuId": "batch.node.ubuntu 22.04"}},
                    "networkConfiguration": {"subnetId": "subnet-id",
                                             "publicIPAddressConfiguration": {
                                                 "provision": provision}}})
    return build


def _classic_ci(s):
    return res("azure:machinelearning/computeInstance:ComputeInstance", "train-ci",
               {"name": "train-ci", "machineLearningWorkspaceId": "ws-id",
                "virtualMachineSize": "Standard_NC4as_T4_v3", "nodePublicIpEnabled": True,
                "subnetResourceId": "subnet-id", "tags": dict(TAGS)})


def _native_vm_nic(public: bool = True):
    def build_nic(s):
        ipc: dict = {"name": "ip", "subnet": {"id": "subnet-id"},
                     "privateIPAllocationMethod": "Dynamic"}
        if public:
            ipc["publicIPAddress"] = {"id": "pip-id"}
        return res("azure-native:network:NetworkInterface", "vm-nic",
                   {"networkInterfaceName": "vm-nic", "resourceGroupName": "train",
                    "location": "eastus", "ipConfigurations": [ipc], "tags": dict(TAGS),
                    "enableAcceleratedNetworking": True},
                   deps={"ipConfigurations": [named(s, "vm-pip")]} if public else {})

    def build_vm(s):
        return res("azure-native:compute:VirtualMachine", "dev-vm",
                   {"vmName": "dev-vm", "resourceGroupName": "train", "location": "eastus",
                    "zones": ["1"], "hardwareProfile": {"vmSize": "Standard_NC4as_T4_v3"},
                    "networkProfile": {"networkInterfaces": [{"id": "nic-id", "primary": True}]},
                    "tags": dict(TAGS)}, deps={"networkProfile": [named(s, "vm-nic")]})

    def build_pip(s):
        return res("azure-native:network:PublicIPAddress", "vm-pip",
                   {"resourceGroupName": "train", "location": "eastus",
                    "sku": {"name": "Standard"}, "publicIPAllocationMethod": "Static",
                    "tags": dict(TAGS)})
    return _add(build_pip, build_nic, build_vm)


def _classic_vm_nic(s):
    pip = res("azure:network/publicIp:PublicIp", "vm-pip",
              {"name": "vm-pip", "resourceGroupName": "train", "location": "eastus",
               "allocationMethod": "Static", "sku": "Standard", "tags": dict(TAGS)})
    nic = res("azure:network/networkInterface:NetworkInterface", "vm-nic",
              {"name": "vm-nic", "resourceGroupName": "train", "location": "eastus",
               "ipConfigurations": [{"name": "ip", "subnetId": "subnet-id",
                                     "privateIpAddressAllocation": "Dynamic",
                                     "publicIpAddressId": "pip-id"}], "tags": dict(TAGS)},
              deps={"ipConfigurations": [pip]})
    vm = res("azure:compute/linuxVirtualMachine:LinuxVirtualMachine", "dev-vm",
             {"name": "dev-vm", "resourceGroupName": "train", "location": "eastus",
              "size": "Standard_NC4as_T4_v3", "zone": "1", "adminUsername": "azureuser",
              "networkInterfaceIds": ["nic-id"], "tags": dict(TAGS)},
             deps={"networkInterfaceIds": [nic]})
    return s + [pip, nic, vm]


def _no_storage(s):
    """The scale set alone (no AMLFS, no account): its hours are the whole estimate."""
    s = [r for r in s if r.name not in ("scratch", "datasets")]
    named(s, "train-vmss").deps["virtualMachineProfile"] = []
    return s


def _stop_local(zone_id: str):
    def mutate(s):
        profile = named(s, "train-stop").props["profiles"][0]
        profile["fixedDate"]["start"] = hours_from_now(96).rstrip("Z")
        profile["fixedDate"]["end"] = "2037-12-31T00:00:00"
        profile["fixedDate"]["timeZone"] = zone_id
        return s
    return mutate


def _with_sub(sub_id: str):
    def mutate(s):
        for r in s:
            r.provider = {"location": "eastus", "subscriptionId": sub_id}
        return s
    return mutate


ARM_SET = SUB + "/resourceGroups/train/providers/Microsoft.Compute/virtualMachineScaleSets/"


def _stop_literal(set_name: str):
    def mutate(s):
        stop = named(s, "train-stop")
        stop.props["targetResourceUri"] = ARM_SET + set_name
        stop.deps = {}
        return s
    return mutate


def _stop_then_default(s):
    named(s, "train-stop").props["profiles"] = [
        {"name": "end", "capacity": {"minimum": "0", "maximum": "0", "default": "0"},
         "rules": [], "fixedDate": {"start": hours_from_now(96), "end": hours_from_now(120)}},
        {"name": "run", "capacity": {"minimum": "2", "maximum": "2", "default": "2"},
         "rules": []}]
    return s


def _ali_eip_new(s):
    eip = named(s, "train-eip")
    return res("alicloud:eip/association:Association", "train-eip-assoc2",
               {"allocationId": "eip-x", "instanceId": "i-x", "instanceType": "EcsInstance"},
               deps={"allocationId": [eip], "instanceId": [named(s, "train-0")]})


def _alb(s):
    lb = res("alicloud:alb/loadBalancer:LoadBalancer", "train-alb",
             {"loadBalancerName": "train", "addressType": "Internet", "vpcId": "vpc-1",
              "loadBalancerEdition": "Standard", "addressAllocatedMode": "Dynamic",
              "loadBalancerBillingConfig": {"payType": "PayAsYouGo"},
              "zoneMappings": [{"vswitchId": "vsw-x", "zoneId": "eu-central-1a"},
                               {"vswitchId": "vsw-y", "zoneId": "eu-central-1b"}],
              "tags": dict(TAGS)})
    sgp = res("alicloud:alb/serverGroup:ServerGroup", "train-alb-sg",
              {"serverGroupName": "train", "protocol": "HTTP", "vpcId": "vpc-1",
               "serverGroupType": "Instance", "healthCheckConfig": {"healthCheckEnabled": False},
               "stickySessionConfig": {"stickySessionEnabled": False},
               "servers": [{"serverId": "i-x", "serverType": "Ecs", "port": 8080.0,
                            "weight": 100.0}], "tags": dict(TAGS)},
              deps={"servers": [named(s, "train-0")]})
    lst = res("alicloud:alb/listener:Listener", "train-alb-l",
              {"loadBalancerId": "alb-x", "listenerProtocol": "HTTP", "listenerPort": 80.0,
               "defaultActions": [{"type": "ForwardGroup", "forwardGroupConfig": {
                   "serverGroupTuples": [{"serverGroupId": "sgp-x"}]}}]},
              deps={"loadBalancerId": [lb], "defaultActions": [sgp]})
    return s + [lb, sgp, lst]


B4 = [
    # defect 1's reach
    ("d1a", "aml", {}, _aml_props(enableNodePublicIp=None), {NPI: "fail"}, None,
     "enableNodePublicIp left out: the service's default is true (azure-ai-ml AmlCompute "
     "`enable_node_public_ip: bool = True`): public IPs"),
    ("d1b", "aml", {"vm_size": "Standard_NC4as_T4_v3", "compute_type": "ComputeInstance"},
     _aml_props(enableNodePublicIp=True), {NPI: "fail"}, None,
     "a GPU compute instance with enableNodePublicIp true; 0.526 x 730 = 383.98 < 60,000"),
    ("d1c", "aml", {}, _add(_batch_pool()), {NPI: "fail", SPEND: "fail"}, None,
     "an azure-native Batch pool of 1 ND96amsr A100 v4 (fixedScale 1) with "
     "publicIPAddressConfiguration BatchManaged: a public IP per node; spend: 47,844.20 + "
     "32.77 x 730 = 23,922.10 -> 71,766.30 > 60,000"),
    ("d1d", "aml", {}, _add(_classic_ci), {NPI: "fail"}, None,
     "classic ComputeInstance with nodePublicIpEnabled true; 47,844.20 + 383.98 < 60,000"),
    ("d1e", "az", {}, _native_vm_nic(), {NPI: "fail"}, None,
     "an azure-native GPU VM (NC4as T4 v3, 383.98) whose NIC has a publicIPAddress"),
    ("d1f", "az", {}, _native_vm_nic(public=False), {}, None, "the same NIC without a public IP"),
    ("d1g", "azc", {}, _classic_vm_nic, {NPI: "fail"}, None,
     "classic Linux GPU VM whose NIC has publicIpAddressId (docs: NIC public IPs)"),
    # hostile and malformed, Azure
    ("h01", "az", {"capacity": "many"}, None, {SPEND: "fail"}, None,
     "capacity 'many' is a violation naming it; rdma: the set is placed and its fabric is the "
     "size's own infiniband, so nothing to ask whatever its size"),
    ("h02", "az", {"capacity": -2.0}, None, {SPEND: "fail"}, None, "a negative capacity"),
    ("h03", "az", {"capacity": float("nan")}, None, {SPEND: "fail"}, None, "a NaN capacity"),
    ("h04", "az", {"sku": unknown()}, None, {SPEND: "fail", RDMA: "undecided"}, None,
     "a size unknown at preview fails closed; rdma: placed, the fabric rests on the unknown type"),
    ("h05", "az", {"sku": "standard_nd96isr_h100_v5"}, None, {}, None,
     "Azure VM sizes in any case: the same price and fabric as z01"),
    ("h06", "az", {"sku": "Standard_NC6"}, None, {SPEND: "fail", RDMA: "advisory"}, None,
     "Standard_NC6 (K80, retired; the docs' example): outside the catalog, N-series: fails "
     "closed; 2 nodes of an unlisted type, placed: the one advisory 'fabric is unknown'"),
    ("h07", "az", {"budget": "25,000"}, None, {SPEND: "fail"}, None, "budget '25,000' is no number"),
    ("h08", "az", {"budget": 0.0}, None, {SPEND: "fail"}, None, "a budget of 0"),
    ("h09", "az", {"budget": unknown()}, None, {SPEND: "undecided"}, None,
     "a budget amount unknown at preview: cannot decide"),
    ("h10", "az", {}, _set("train-stop", "profiles.0.fixedDate.start", "next tuesday"),
     {SPEND: "fail"}, None, "a stop time that does not read is no stop: the month"),
    ("h11", "az", {"budget": 21000.0}, _chain(_no_storage, _stop_local("Pacific Standard Time")),
     {}, None,
     "a wall-clock start 96 h ahead read in Pacific Standard Time (UTC-8 in December) is 104 h: "
     "2 x 98.32 x 104 = 20,450.56 < 21,000"),
    ("h12", "az", {"budget": 21000.0}, _chain(_no_storage, _stop_local("Mars Standard Time")),
     {SPEND: "fail"}, None,
     "a zone the table does not list: read at UTC-12, 108 h: 2 x 98.32 x 108 = 21,237.12 > 21,000"),
    ("h13", "az", {}, _nsg_inline("INTERNET"), {NPI: "fail"}, None, "Internet in upper case"),
    ("h14", "az", {}, _nsg_inline(["10.0.0.0/8", "Internet"], key="sourceAddressPrefixes"),
     {NPI: "fail"}, None, "Internet inside sourceAddressPrefixes"),
    ("h15", "az", {}, lambda s: (named(s, "train-nsg").props["securityRules"].append(unknown()),
                                 s)[1], {NPI: "undecided"}, None,
     "an NSG rule unknown at preview inside the list: never a crash, never a pass"),
    ("h16", "az", {}, _chain(_nsg_inline("0.0.0.0/1"), _add(_az_rule("128.0.0.0/1", name="half"))),
     {NPI: "fail"}, None,
     "an inline half and a standalone half (depending on the NSG) cover all addresses"),
    ("h17", "azc", {}, _add(_classic_rule("0.0.0.0/1", name="lit-a", nsg_dep=False,
                                          nsg_name="edge-nsg", rg="net"),
                            _classic_rule("128.0.0.0/1", name="lit-b", nsg_dep=False,
                                          nsg_name="EDGE-NSG", rg="Net")),
     {NPI: "fail"}, None,
     "two standalone halves naming one literal NSG, in different case: one group's: a violation"),
    # stops and budgets
    ("s01", "az", {}, _chain(_with_sub("00000000-0000-0000-0000-000000000001"),
                             _stop_literal("train-vmss")), {}, None,
     "the autoscale names the set by its literal ARM id (vmScaleSetName train-vmss, the "
     "provider's subscription): a stop"),
    ("s02", "az", {}, _chain(_with_sub("00000000-0000-0000-0000-000000000001"),
                             _stop_literal("other-vmss")), {SPEND: "fail"}, None,
     "a literal ARM id of another set: no stop, the month > 25,000"),
    ("s03", "az", {}, _stop_then_default, {SPEND: "fail"}, None,
     "a capacity-0 window 96-120 h from now, then a profile of 2 nodes: a pause, no lifetime"),
    ("s04", "az", {}, _with_sub("11111111-1111-1111-1111-111111111111"), {SPEND: "fail"}, None,
     "the budget is on subscription 0000...1, the compute's provider names 1111...1: it covers "
     "nothing"),
    ("s05", "az", {}, _set("train-budget", "filter", {"tags": {"name": "owner", "operator": "In",
                                                               "values": ["carol"]}}), {}, None,
     "a tag filter owner=carol the set carries"),
    ("s06", "az", {}, _set("train-budget", "filter", {"tags": {"name": "owner", "operator": "In",
                                                               "values": ["dave"]}}),
     {SPEND: "fail"}, None, "a tag filter owner=dave leaves the set out"),
    ("s07", "az", {}, _set("train-budget", "filter", {"not": {"dimensions": {
        "name": "ResourceLocation", "operator": "In", "values": ["eastus"]}}}), {SPEND: "fail"},
     None, "not(ResourceLocation eastus) leaves the eastus set out"),
    ("s08", "az", {}, _set("train-budget", "category", "Usage"), {SPEND: "fail"}, None,
     "an Azure Usage budget is no spend limit: no alarm"),
    ("s09", "az", {}, _chain(_with_sub("00000000-0000-0000-0000-000000000001"),
                             _az_filter("ResourceId", [ARM_SET + "train-vmss"])), {}, None,
     "ResourceId of the set named explicitly (vmScaleSetName train-vmss)"),
    # catalog reach
    ("q01", "az", {"sku": "Standard_ND128isr_NDR_GB200_v6"}, None,
     {SPEND: "fail", RDMA: "advisory"}, None,
     "GB200 v6: unpriced.csv (listed, no public price): fails closed naming the source; not in "
     "instance_types.csv: placed, 'fabric unknown'"),
    ("q02", "az", {"sku": "Standard_ND96isr_H200_v5"}, None, {SPEND: "fail"}, None,
     "ND H200 v5 priced only in eastus2/westus2: in eastus it cannot be priced"),
    ("q03", "ali", {"itype": "ecs.ebmgn9t.48xlarge"}, None, {SPEND: "fail", RDMA: "advisory"}, None,
     "ebmgn9t.48xlarge: unpriced.csv; no instance_types row: placed, fabric unknown"),
    # hostile and malformed, Alibaba
    ("a01", "ali", {"release": "2027-13-45T00:00:00Z"}, None, {SPEND: "fail"}, None,
     "an autoReleaseTime that is no time: a violation naming it"),
    ("a02", "ali", {"itype": unknown()}, None, {SPEND: "fail", RDMA: "undecided"}, None,
     "a type unknown at preview fails closed; rdma placed, fabric rests on it"),
    ("a03", "ali", {"mode": "highperformance"}, None, {RDMA: "advisory"}, None,
     "'HighPerformance (that spelling)': lower case does not declare eRDMA"),
    ("a04", "ali", {"mode": unknown()}, None, {RDMA: "undecided"}, None, "traffic mode unknown"),
    ("a05", "ali", {"strategy": unknown()}, None, {RDMA: "undecided"}, None,
     "deployment-set strategy unknown"),
    ("a06", "ali", {"bandwidth": unknown()}, None, {NPI: "undecided"}, None,
     "internetMaxBandwidthOut unknown at preview: a public IP may be given"),
    ("a07", "ali_set", {"amount": "two"}, None, {SPEND: "fail", RDMA: "advisory"}, None,
     "instance-set amount 'two'; the set's fabric advisory stands either way"),
    ("a08", "ali_set", {"amount": -2.0}, None, {SPEND: "fail", RDMA: "advisory"}, None,
     "a negative amount"),
    ("a09", "ali_ess", {"max_size": float("nan")}, None, {SPEND: "fail", RDMA: "advisory"}, None,
     "ESS maxSize NaN (and no alarm)"),
    ("a10", "ali", {}, _set("scratch", "capacity", -3600.0), {SPEND: "fail"}, None,
     "a negative CPFS capacity"),
    ("a11", "ali", {}, _add(lambda s: res(
        "alicloud:ecs/securityGroupRule:SecurityGroupRule", "egress",
        {"type": "egress", "ipProtocol": "all", "portRange": "-1/-1", "cidrIp": "0.0.0.0/0",
         "securityGroupId": "sg-x"}, deps={"securityGroupId": [named(s, "train-sg")]})), {}, None,
     "an egress rule to 0.0.0.0/0 is no ingress"),
    ("a12", "ali", {}, _add(_ali_rule(port="-1/-1")), {NPI: "fail"}, None,
     "all ports from 0.0.0.0/0"),
    ("a13", "ali", {}, _add(_eip, _ali_eip_new), {NPI: "fail"}, None,
     "eip.Association (the newer type) to a node"),
    ("a14", "ali", {}, _alb, {NPI: "fail"}, None, "an Internet ALB whose server group holds a node"),
]


@pytest.mark.parametrize("case", _params(B4))
def test_batch4(pack, case):
    _run_case(pack, case)


# ------------------------------------------------------------------------------ batch 5
# sizes raised by autoscale, spot mixes, caps, classic AKS and reservations, more exposure paths

def _autoscale_max(maximum: str = "8", enabled: Any = True):
    def build(s):
        props: dict = {"targetResourceUri": "vmss-id", "location": "eastus",
                       "resourceGroupName": "train", "tags": dict(TAGS), "profiles": [
                           {"name": "load", "capacity": {"minimum": "2", "maximum": maximum,
                                                         "default": "2"},
                            "rules": []}]}
        if enabled is not None:
            props["enabled"] = enabled
        return res("azure-native:monitor:AutoscaleSetting", "train-scale", props,
                   deps={"targetResourceUri": [named(s, "train-vmss")]})
    return build


def _spot_mix(base: Any, pct: Any):
    def mutate(s):
        vmss = named(s, "train-vmss")
        vmss.props["virtualMachineProfile"].update(priority="Spot", evictionPolicy="Delete",
                                                   billingProfile={"maxPrice": -1.0})
        vmss.props["orchestrationMode"] = "Flexible"
        vmss.props["priorityMixPolicy"] = {"baseRegularPriorityCount": base,
                                           "regularPriorityPercentageAboveBase": pct}
        return s
    return mutate


def _second_ipconfig_public(s):
    nic = named(s, "train-vmss").props["virtualMachineProfile"]["networkProfile"][
        "networkInterfaceConfigurations"]
    nic.append({"name": "nic2", "primary": False, "ipConfigurations": [
        {"name": "ip2", "subnet": {"id": "subnet-id"}},
        {"name": "ip3", "subnet": {"id": "subnet-id"},
         "publicIPAddressConfiguration": {"name": "pip3"}}]})
    return s


def aks_classic(public_key: Optional[str] = None, max_count: Any = 2.0, inline: bool = False,
                budget_rg: Optional[str] = None) -> list:
    rg = res("azure:core/resourceGroup:ResourceGroup", "train-rg",
             {"name": "train", "location": "eastus", "tags": dict(TAGS)})
    gpu = {"vmSize": "Standard_ND96isr_H100_v5", "autoScalingEnabled": True, "minCount": 0.0,
           "maxCount": max_count, "zones": ["1"]}
    if public_key:
        gpu[public_key] = True
    default = ({"name": "gpu", **gpu} if inline else
               {"name": "system", "vmSize": "Standard_D4s_v5", "nodeCount": 1.0})
    cluster = res("azure:containerservice/kubernetesCluster:KubernetesCluster", "train-aks",
                  {"name": "train-aks", "resourceGroupName": "train", "location": "eastus",
                   "dnsPrefix": "train", "defaultNodePool": default,
                   "identity": {"type": "SystemAssigned"}, "tags": dict(TAGS)},
                  deps={"resourceGroupName": [rg]})
    out = [rg, cluster]
    if not inline:
        out.append(res("azure:containerservice/kubernetesClusterNodePool:"
                       "KubernetesClusterNodePool", "gpu",
                       {"name": "gpu", "kubernetesClusterId": "aks-id", "mode": "User", **gpu,
                        "tags": dict(TAGS)}, deps={"kubernetesClusterId": [cluster]}))
    if budget_rg:
        out.append(res("azure:consumption/budgetResourceGroup:BudgetResourceGroup",
                       "train-budget",
                       {"name": "train", "amount": 160000.0, "timeGrain": "Monthly",
                        "resourceGroupId": SUB + "/resourceGroups/" + budget_rg,
                        "timePeriod": {"startDate": "2026-12-01T00:00:00Z"},
                        "notifications": CLASSIC_ALERTS}))
    else:
        out.append(res("azure:consumption/budgetSubscription:BudgetSubscription", "train-budget",
                       {"name": "train", "subscriptionId": SUB, "amount": 160000.0,
                        "timeGrain": "Monthly",
                        "timePeriod": {"startDate": "2026-12-01T00:00:00Z"},
                        "notifications": CLASSIC_ALERTS}))
    return out


def _classic_cr(capacity: Any = 2.0):
    def mutate(s):
        crg = res("azure:compute/capacityReservationGroup:CapacityReservationGroup", "train-crg",
                  {"name": "train-crg", "resourceGroupName": "train", "location": "eastus",
                   "zones": ["1"], "tags": dict(TAGS)})
        cr = res("azure:compute/capacityReservation:CapacityReservation", "train-cr",
                 {"name": "h100", "capacityReservationGroupId": "crg-id", "zone": "1",
                  "sku": {"name": "Standard_ND96isr_H100_v5", "capacity": capacity},
                  "tags": dict(TAGS)}, deps={"capacityReservationGroupId": [crg]})
        vmss = named(s, "train-vmss")
        vmss.props["capacityReservationGroupId"] = "crg-id"
        vmss.deps["capacityReservationGroupId"] = [crg]
        return s + [crg, cr]
    return mutate


def _classic_nat(kind: str = "rule", dep: bool = True, lb_id: str = ""):
    def mutate(s):
        s = _classic_lb(s)
        lb = named(s, "train-lb")
        if kind == "rule":
            r = res("azure:lb/natRule:NatRule", "ssh",
                    {"name": "ssh", "resourceGroupName": "train", "loadbalancerId": lb_id or "lb-id",
                     "protocol": "Tcp", "frontendPort": 50022.0, "backendPort": 22.0,
                     "frontendIpConfigurationName": "fe"},
                    deps={"loadbalancerId": [lb]} if dep else {})
        else:
            r = res("azure:lb/natPool:NatPool", "ssh",
                    {"name": "ssh", "resourceGroupName": "train", "loadbalancerId": "lb-id",
                     "protocol": "Tcp", "frontendPortStart": 50000.0, "frontendPortEnd": 50099.0,
                     "backendPort": 22.0, "frontendIpConfigurationName": "fe"},
                    deps={"loadbalancerId": [lb]})
        return [x for x in s if x.name != "https"] + [r]
    return mutate


def _lb_prefix(s):
    s = _lb()(s)
    lb = named(s, "train-lb")
    lb.props["frontendIPConfigurations"] = [{"name": "fe", "publicIPPrefix": {"id": "prefix-id"}}]
    return s


def _lb_frontends_unknown(s):
    s = _lb(rules=False, outbound=True)(s)
    named(s, "train-lb").props["frontendIPConfigurations"] = unknown()
    return s + [_nat_rule(dep=True)(s)]


def _ali_lt(literal: bool = False):
    def mutate(s):
        lt = res("alicloud:ecs/ecsLaunchTemplate:EcsLaunchTemplate", "train-lt",
                 {"launchTemplateName": "train", "instanceType": "ecs.gn8v-8x.48xlarge",
                  "imageId": "ubuntu_22_04_x64", "securityGroupId": "sg-x",
                  "networkInterfaces": [{"name": "eth1", "vswitchId": "vsw-x",
                                         "securityGroupId": "sg-x"}],
                  "tags": dict(TAGS)})
        for n in ("train-0", "train-1"):
            node = named(s, n)
            node.props.pop("instanceType")
            node.props["launchTemplateId"] = "lt-literal0001" if literal else "lt-x"
            if not literal:
                node.deps["launchTemplateId"] = [lt]
        return s if literal else s + [lt]
    return mutate


def _dnat_dep(nat_type: str = "internet"):
    def mutate(s):
        s = _add(_eip, _natgw)(s)
        named(s, "train-nat").props["networkType"] = nat_type
        return s + [res("alicloud:vpc/forwardEntry:ForwardEntry", "ssh-dnat",
                        {"forwardTableId": "ftb-x", "externalIp": "47.0.0.1",
                         "externalPort": "2222", "internalIp": "10.1.0.77",
                         "internalPort": "22", "ipProtocol": "tcp"},
                        deps={"forwardTableId": [named(s, "train-nat")],
                              "internalIp": [named(s, "train-0")]})]
    return mutate


def _ali_apg(s):
    lt = res("alicloud:ecs/ecsLaunchTemplate:EcsLaunchTemplate", "apg-lt",
             {"launchTemplateName": "apg", "instanceType": "ecs.gn8v-8x.48xlarge",
              "imageId": "ubuntu_22_04_x64", "securityGroupId": "sg-x", "tags": dict(TAGS)})
    apg = res("alicloud:ecs/autoProvisioningGroup:AutoProvisioningGroup", "train-apg",
              {"launchTemplateId": "lt-x", "totalTargetCapacity": "2",
               "payAsYouGoTargetCapacity": "2", "spotTargetCapacity": "0",
               "autoProvisioningGroupType": "maintain",
               "launchTemplateConfigs": [{"instanceType": "ecs.gn8v-8x.48xlarge",
                                          "vswitchId": "vsw-x", "weightedCapacity": "1",
                                          "maxPrice": "100"}]},
              deps={"launchTemplateId": [lt], "launchTemplateConfigs": [named(s, "train-vsw")]})
    return s + [lt, apg]


def _cpfs_on_vsw_b(s):
    vsw_b = res("alicloud:vpc/switch:Switch", "fs-vsw",
                {"zoneId": "eu-central-1b", "vpcId": "vpc-1", "tags": dict(TAGS)})
    cpfs = named(s, "scratch")
    cpfs.props.pop("zoneId")
    cpfs.deps["vswitchId"] = [vsw_b]
    return s + [vsw_b]


def _nic_mode(s):
    for n in ("train-0", "train-1"):
        node = named(s, n)
        node.props.pop("networkInterfaceTrafficMode")
        node.props["networkInterfaces"] = {"networkInterfaceTrafficMode": "HighPerformance",
                                           "vswitchId": "vsw-x", "securityGroupIds": ["sg-x"]}
    return s


B5 = [
    ("p01", "az", {"budget": 200000.0, "hours": None}, _add(_autoscale_max()), {SPEND: "fail"},
     None, "an enabled autoscale profile of maximum 8 sizes the set at 8: 8 x 98.32 x 730 = "
     "574,188.80 > 200,000 (capacity 2 alone: 145,955.83 would pass)"),
    ("p02", "az", {"budget": 200000.0, "hours": None}, _add(_autoscale_max(enabled=False)), {},
     None, "a disabled setting sizes nothing: 143,547.20 + at most 2,408.63 < 200,000"),
    ("p03", "az", {"budget": 200000.0, "hours": None}, _add(_autoscale_max("many")),
     {SPEND: "fail"}, None, "a profile maximum that is no number: the size does not read"),
    ("p04", "az", {"location": "westus2", "budget": 11000.0},
     _chain(_no_storage, _spot_mix(1.0, 0.0)), {SPEND: "fail"}, None,
     "a Spot set westus2, priorityMixPolicy base 1 regular, 0 % above: 1 x 98.32 + 1 x 18.1695 "
     "= 116.4895 x 96 = 11,183.00 > 11,000 (all at spot would be 3,488.54)"),
    ("p05", "az", {"location": "westus2", "budget": 12000.0},
     _chain(_no_storage, _spot_mix(1.0, 0.0)), {}, None, "the same under 12,000"),
    ("p06", "az", {"location": "westus2", "budget": 11000.0},
     _chain(_no_storage, _spot_mix("one", 0.0)), {SPEND: "fail"}, None,
     "a base that does not read counts as Regular: at least 2 x 98.32 x 96 = 18,877.44"),
    ("p07", "az", {}, None, {SPEND: "fail"}, {SPEND: {"maxMonthlyUsd": 22000}},
     "maxMonthlyUsd 22,000: the estimate (<= 21,286.07) is under it, but the budget 25,000 is "
     "above it: a violation on the budget"),
    ("p08", "az", {"budget": 21500.0}, None, {}, {SPEND: {"maxMonthlyUsd": 22000}},
     "budget 21,500 under the cap 22,000 and the estimate <= 21,286.07 under both"),
    ("p09", "az", {}, _second_ipconfig_public, {NPI: "fail"}, None,
     "a public IP configuration on the second ipConfiguration of a second NIC config"),
    ("p10", "az", {}, _nsg_inline("Internet", port="20-30"), {NPI: "fail"},
     {NPI: {"sshCidrs": ["0.0.0.0/0"]}}, "sshCidrs allow TCP 22 only; 20-30 opens more"),
    ("p11", "az", {}, _nsg_inline("Internet", port="22", proto="*"), {NPI: "fail"},
     {NPI: {"sshCidrs": ["0.0.0.0/0"]}}, "port 22 over any protocol is more than TCP 22"),
    ("p12", "az", {}, _nsg_inline("Internet", proto="Icmp", port="*"), {NPI: "fail"}, None,
     "ICMP from the internet is ingress from 0.0.0.0/0 too (no exception but TCP 22)"),
    ("p13", "az", {}, lambda s: (named(s, "train-nsg").props["securityRules"].append(
        {"name": "out", "access": "Allow", "direction": "Outbound", "priority": 300.0,
         "protocol": "*", "sourceAddressPrefix": "*", "sourcePortRange": "*",
         "destinationAddressPrefix": "Internet", "destinationPortRange": "*"}), s)[1], {}, None,
     "an Outbound rule is no ingress"),
    ("p14", "azc", {}, _classic_nat("rule"), {NPI: "fail"}, None,
     "classic NatRule on the public classic LB (dependency)"),
    ("p15", "azc", {}, _classic_nat("pool"), {NPI: "fail"}, None, "classic NatPool likewise"),
    ("p16", "azc", {}, _classic_nat("rule", dep=False, lb_id=(
        SUB + "/resourceGroups/TRAIN/providers/Microsoft.Network/loadBalancers/Train-LB")),
     {NPI: "fail"}, None,
     "a classic NatRule whose literal loadbalancerId names the stack's LB (name and group in "
     "another case; the provider names no subscription)"),
    ("p17", "az", {}, _lb_prefix, {NPI: "fail"}, None,
     "a frontend on a public IP prefix is public: nodes behind its rule"),
    ("p18", "az", {}, _lb_frontends_unknown, {NPI: "undecided"}, None,
     "frontends unknown at preview: its inbound NAT rule may be public: cannot decide"),
    ("p19", "azc", {"budget": 150000.0}, _classic_cr(), {}, None,
     "classic reservation of 2 + the classic set inside it: 143,547.20 + storage 2,408.63 = "
     "145,955.83 < 150,000, counted once"),
    ("p20", "azc", {"budget": 150000.0}, _classic_cr(capacity="two"), {SPEND: "fail"}, None,
     "a reservation capacity that is no number"),
    ("p21", "aksc", {}, None, {}, None,
     "control: classic AKS, GPU KubernetesClusterNodePool autoscaling to 2: 143,547.20 < "
     "160,000 (subscription budget)"),
    ("p22", "aksc", {"public_key": "nodePublicIpEnabled"}, None, {NPI: "fail"}, None,
     "classic pool nodePublicIpEnabled (v6)"),
    ("p23", "aksc", {"public_key": "enableNodePublicIp", "inline": True}, None, {NPI: "fail"},
     None, "classic defaultNodePool enableNodePublicIp (v5)"),
    ("p24", "aksc", {"max_count": 4.0}, None, {SPEND: "fail"}, None,
     "maxCount 4: 287,094.40 > 160,000"),
    ("p25", "aksc", {"budget_rg": "train"}, None, {SPEND: "fail"}, None,
     "a classic budget on the cluster's own resource group never takes the pool in"),
    ("p26", "aksc", {"budget_rg": "MC_train_train-aks_eastus"}, None, {}, None,
     "the default node resource group of the classic cluster covers the pool"),
    ("t01", "az", {}, lambda s: (named(s, "train-vmss").props["tags"].__setitem__("owner", " "),
                                 s)[1], {TAGS_P: "fail"}, None,
     "a blank (whitespace) owner counts as missing"),
    ("t02", "az", {"zone": "1"}, lambda s: (named(s, "train-vmss").props.__setitem__(
        "zones", ["1", "2"]), s)[1], {SSZ: "fail"}, None,
     "the set spans zones 1 and 2 and mounts the zone-1 AMLFS: not one zone"),
    ("t03", "az", {}, lambda s: (named(s, "scratch").props.__setitem__("location", "westus2"),
                                 s)[1], {SSZ: "fail"}, None,
     "AMLFS in westus2, the set in eastus"),
    ("t04", "az", {}, lambda s: (setattr(named(s, "datasets"), "protect", True),
                                 setattr(named(s, "datasets"), "retain", None),
                                 named(s, "datasets").props["tags"].pop("trainstack:retain"),
                                 s)[3], {}, None, "a protected account passes without the tag"),
    ("u01", "ali", {}, _ali_lt(), {}, None,
     "nodes with no type of their own from an EcsLaunchTemplate of the stack: its type; the "
     "nodes' own traffic mode declares eRDMA"),
    ("u02", "ali", {}, _ali_lt(literal=True), {SPEND: "fail", RDMA: "undecided"}, None,
     "nodes from a literal launch template the stack does not create, no type: GPU capacity "
     "whose type is read nowhere: fails closed; rdma: placed, the fabric rests on that type"),
    ("u03", "ali", {}, _dnat_dep(), {NPI: "fail"}, None,
     "a DNAT entry whose internalIp depends on node train-0"),
    ("u04", "ali", {}, _dnat_dep("intranet"), {}, None, "the same on an intranet NAT gateway"),
    ("u05", "ali", {}, _add(_ali_rule(port="22/22")), {NPI: "fail"}, None,
     "SSH from 0.0.0.0/0 with no sshCidrs"),
    ("u06", "ali", {}, _add(_ali_rule(port="22/22")), {}, {NPI: {"sshCidrs": ["0.0.0.0/0"]}},
     "SSH from 0.0.0.0/0 listed in sshCidrs"),
    ("u07", "ali", {}, _cpfs_on_vsw_b, {SSZ: "fail"}, None,
     "CPFS with no zoneId on a vSwitch in eu-central-1b (a CPFS zone is its vSwitch's)"),
    ("u08", "ali", {}, lambda s: (named(s, "train-0").props["tags"].__setitem__("team", ""),
                                  s)[1], {TAGS_P: "fail"}, None, "a blank team tag"),
    ("u09", "ali", {}, _set("datasets", "serverSideEncryptionRule", {"sseAlgorithm": "AES256"}),
     {}, None, "OSS SSE AES256 is a server-side encryption rule"),
    ("u10", "ali", {}, _nic_mode, {}, None,
     "eRDMA declared on each node's networkInterfaces object instead of the top-level field"),
]
BUILD.update({"aksc": aks_classic})
PROVIDERS.update({"aksc": AZ_P})


@pytest.mark.parametrize("case", _params(B5))
def test_batch5(pack, case):
    _run_case(pack, case)


# ------------------------------------------------------------------------------ batch 6
# more public-IP paths, reservations beyond their size, budgets' reach, Alibaba caps

def _vm_nic_configs(s):
    """An azure-native VM whose NIC the VM itself creates (networkInterfaceConfigurations,
    API 2020-12 on), with a public IP configuration."""
    return s + [res("azure-native:compute:VirtualMachine", "dev-vm",
                    {"vmName": "dev-vm", "resourceGroupName": "train", "location": "eastus",
                     "zones": ["1"], "hardwareProfile": {"vmSize": "Standard_NC4as_T4_v3"},
                     "networkProfile": {"networkApiVersion": "2020-11-01",
                                        "networkInterfaceConfigurations": [
                                            {"name": "nic", "primary": True,
                                             "ipConfigurations": [
                                                 {"name": "ip", "subnet": {"id": "subnet-id"},
                                                  "publicIPAddressConfiguration": {
                                                      "name": "pip",
                                                      "sku": {"name": "Standard"}}}]}]},
                     "tags": dict(TAGS)})]


def _two_vms(ppg: bool):
    def mutate(s):
        out = list(s)
        group = res("azure-native:compute:ProximityPlacementGroup", "ppg",
                    {"resourceGroupName": "train", "location": "eastus",
                     "proximityPlacementGroupType": "Standard", "tags": dict(TAGS)})
        if ppg:
            out.append(group)
        for i in range(2):
            props: dict = {"vmName": f"vm-{i}", "resourceGroupName": "train",
                           "location": "eastus", "zones": ["1"],
                           "hardwareProfile": {"vmSize": "Standard_ND96isr_H100_v5"},
                           "tags": dict(TAGS)}
            deps: dict = {}
            if ppg:
                props["proximityPlacementGroup"] = {"id": "ppg-id"}
                deps["proximityPlacementGroup"] = [group]
            out.append(res("azure-native:compute:VirtualMachine", f"vm-{i}", props, deps=deps))
        return out
    return mutate


def _classic_win(public: bool = False):
    def mutate(s):
        vmss = named(s, "train-vmss")
        vmss.type = "azure:compute/windowsVirtualMachineScaleSet:WindowsVirtualMachineScaleSet"
        vmss.urn = vmss.urn.replace("azure:compute/linuxVirtualMachineScaleSet:"
                                    "LinuxVirtualMachineScaleSet",
                                    "azure:compute/windowsVirtualMachineScaleSet:"
                                    "WindowsVirtualMachineScaleSet")
        vmss.props.pop("adminUsername")
        vmss.props.update(adminUsername="azadmin", adminPassword="x")
        if public:
            vmss.props["networkInterfaces"][0]["ipConfigurations"][0]["publicIpAddresses"] = [
                {"name": "pip"}]
        return s
    return mutate


def _classic_single_vm(s):
    return s + [res("azure:compute/linuxVirtualMachine:LinuxVirtualMachine", "big-vm",
                    {"name": "big-vm", "resourceGroupName": "train", "location": "eastus",
                     "size": "Standard_ND96isr_H100_v5", "zone": "1",
                     "adminUsername": "azureuser", "networkInterfaceIds": ["nic-id"],
                     "tags": dict(TAGS)})]


def _budget2(scope: str, amount: float, filt: Optional[dict] = None):
    def build(s):
        props = {"amount": amount, "category": "Cost", "timeGrain": "Monthly", "scope": scope,
                 "budgetName": "second", "notifications": AZURE_ALERTS}
        if filt:
            props["filter"] = filt
        return res("azure-native:consumption:Budget", "second-budget", props)
    return build


def _ack_eip(s):
    pool = named(s, "train-gpu")
    pool.props["scalingConfig"].update(isBondEip=True, eipInternetChargeType="PayByTraffic",
                                       eipBandwidth=100.0)
    return s


def _ess_bandwidth(s):
    named(s, "train-ess-conf").props["internetMaxBandwidthOut"] = 50.0
    return s


def _lt_bandwidth(s):
    s = _ali_lt()(s)
    named(s, "train-lt").props["internetMaxBandwidthOut"] = 50.0
    for n in ("train-0", "train-1"):   # the nodes no longer set 0 themselves: the template's 50
        named(s, n).props.pop("internetMaxBandwidthOut")
    return s


def _eni_eip(s):
    s = _add(_eip)(s)
    eni = res("alicloud:ecs/ecsNetworkInterface:EcsNetworkInterface", "train-eni",
              {"vswitchId": "vsw-x", "securityGroupIds": ["sg-x"], "tags": dict(TAGS)},
              deps={"vswitchId": [named(s, "train-vsw")]})
    att = res("alicloud:ecs/ecsNetworkInterfaceAttachment:EcsNetworkInterfaceAttachment",
              "train-eni-att", {"networkInterfaceId": "eni-x", "instanceId": "i-x"},
              deps={"networkInterfaceId": [eni], "instanceId": [named(s, "train-0")]})
    assoc = res("alicloud:ecs/eipAssociation:EipAssociation", "train-eip-eni",
                {"allocationId": "eip-x", "instanceId": "eni-x",
                 "instanceType": "NetworkInterface"},
                deps={"allocationId": [named(s, "train-eip")], "instanceId": [eni]})
    return s + [eni, att, assoc]


def _slb_attachment(s):
    lb = res("alicloud:slb/loadBalancer:LoadBalancer", "train-slb",
             {"loadBalancerName": "train", "addressType": "internet",
              "loadBalancerSpec": "slb.s2.small", "tags": dict(TAGS)})
    att = res("alicloud:slb/attachment:Attachment", "train-slb-att",
              {"loadBalancerId": "lb-x", "instanceIds": ["i-0", "i-1"], "weight": 100.0},
              deps={"loadBalancerId": [lb],
                    "instanceIds": [named(s, "train-0"), named(s, "train-1")]})
    return s + [lb, att]


def _crg_beyond(s):
    s = _crg()(s)
    named(s, "train-vmss").props["sku"]["capacity"] = 4.0
    return s


def _crg_other_sku(s):
    s = _crg()(s)
    named(s, "train-cr").props["sku"]["name"] = "Standard_ND96amsr_A100_v4"
    return s


B6 = [
    ("v01", "az", {}, _vm_nic_configs, {NPI: "fail"}, None,
     "an azure-native GPU VM whose own networkInterfaceConfigurations ask for a public IP "
     "(Scope: every node's public-IP settings); 383.98 more, under 25,000"),
    ("v02", "az", {}, _two_vms(False), {RDMA: "advisory", SPEND: "fail"}, None,
     "two ND H100 v5 VMs, no scale set, availability set or PPG: not placed; no stop for VMs: "
     "2 x 71,773.60 = 143,547.20 more > 25,000"),
    ("v03", "az", {"budget": 200000.0}, _two_vms(True), {}, None,
     "the same two VMs in a PPG of the stack: placed; 21,286.07 + 143,547.20 = 164,833.27 < "
     "200,000"),
    ("v04", "azc", {}, _classic_win(), {}, None,
     "classic Windows set, singlePlacementGroup left out: the provider default true, placed; "
     "the classic autoscale stops it"),
    ("v05", "azc", {}, _classic_win(public=True), {NPI: "fail"}, None,
     "classic Windows set with publicIpAddresses"),
    ("v06", "azc", {}, _classic_single_vm, {SPEND: "fail", RDMA: "advisory"}, None,
     "a classic ND H100 v5 VM beside the set, no stop: 71,773.60 more > 25,000; rdma's scope is "
     "GPU capacity of more than one node in total (as v02): the VM names no scale set, "
     "availability set or PPG: not placed"),
    ("r05", "az", {"budget": 160000.0}, _crg_beyond, {SPEND: "fail"}, None,
     "a set of 4 into a reservation of 2: reservation 143,547.20 + 2 nodes beyond it x 96 h = "
     "18,877.44 + storage 2,408.63 = 164,833.27 > 160,000 (the reservation alone: 145,955.83)"),
    ("r06", "az", {"budget": 60000.0}, _crg_other_sku, {SPEND: "fail"}, None,
     "a reservation of ND96amsr A100 v4 (2 x 32.77 x 730 = 47,844.20) in the group the H100 set "
     "names: nodes of another type are not inside it: at least 47,844.20 + 18,877.44 = "
     "66,721.64 > 60,000 (counted inside: about 50,252.83 would pass)"),
    ("r07", "az", {"budget": 150000.0}, _chain(_crg(), _set("train-cr", "sku.capacity", -2.0)),
     {SPEND: "fail"}, None, "a negative reservation capacity"),
    ("w01", "az", {}, _add(_budget2(SUB + "/resourceGroups/train", 10000.0)), {SPEND: "fail"},
     None, "a second budget of 10,000 on the set's own group also covers it: the smallest "
     "covering budget is the cap: <= 21,286.07 > 10,000 (at least 18,877.44)"),
    ("w02", "az", {}, _add(_budget2(SUB + "/resourceGroups/other", 10000.0)), {}, None,
     "a second budget of 10,000 on another group covers nothing of the stack: the 25,000 cap"),
    ("w03", "az", {}, _set("train-budget", "notifications", {
        "actual80": {"enabled": False, "operator": "GreaterThan", "threshold": 80.0,
                     "contactEmails": ["ml-platform@example.com"]}}), {SPEND: "fail"}, None,
     "the budget's only notification is disabled: it notifies no one"),
    ("w04", "az", {}, _set("train-budget", "notifications", {
        "actual80": {"enabled": True, "operator": "GreaterThan", "threshold": 80.0,
                     "contactRoles": ["Owner"]}}), {}, None, "a contact role is someone"),
    ("w05", "az", {}, _set("train-budget", "timePeriod", {"startDate": "2026-01-01T00:00:00Z",
                                                          "endDate": "2026-06-30T00:00:00Z"}),
     {SPEND: "fail"}, None, "a budget whose period ended in June tracks nothing now"),
    ("w06", "az", {}, lambda s: [r if r.name != "train-budget" else res(
        "azure-native:costmanagement:Budget", "train-budget", {
            "amount": 25000.0, "category": "Cost", "timeGrain": "Monthly", "scope": SUB,
            "budgetName": "train", "notifications": AZURE_ALERTS}) for r in s], {}, None,
     "an azure-native costmanagement Budget is read as a consumption one"),
    ("w07", "az", {}, lambda s: [r if r.name != "train-stop" else res(
        "azure-native:insights:AutoscaleSetting", "train-stop", r.props, deps=r.deps) for r in s],
     {}, None, "the older insights AutoscaleSetting token stops the set the same way"),
    ("w08", "aml", {}, _aml_props(scaleSettings={"maxNodeCount": unknown(),
                                                 "minNodeCount": 0.0}),
     {SPEND: "fail"}, None, "AmlCompute maxNodeCount unknown at preview: fails closed"),
    ("w09", "aks", {}, _set("gpu", "maxCount", "lots"), {SPEND: "fail"}, None,
     "an AKS pool maxCount that is no number"),
    ("w10", "aks", {"inline": True}, lambda s: (
        named(s, "train-aks").props["agentPoolProfiles"][1].update(
            enableAutoScaling=False, count=3.0), s)[1], {SPEND: "fail"}, None,
     "an inline GPU profile of 3 fixed nodes: 3 x 98.32 x 730 = 215,320.80 > 160,000"),
    ("x01", "ali_ack", {}, _ack_eip, {SPEND: "fail", NPI: "fail"}, None,
     "ACK scalingConfig isBondEip true binds an EIP to every node: a public IP (Scope: every "
     "node's public-IP settings)"),
    ("x02", "ali_ess", {}, _ess_bandwidth, {SPEND: "fail", RDMA: "advisory", NPI: "fail"}, None,
     "an ESS scaling configuration with internetMaxBandwidthOut 50: public IPs on its nodes"),
    ("x03", "ali", {}, _lt_bandwidth, {NPI: "fail"}, None,
     "nodes that set no bandwidth, launched from an EcsLaunchTemplate with "
     "internetMaxBandwidthOut 50: public IPs"),
    ("x04", "ali_set", {}, _set("train-set", "internetMaxBandwidthOut", 20.0),
     {NPI: "fail", RDMA: "advisory"}, None, "an EcsInstanceSet with public bandwidth"),
    ("x05", "ali", {}, _eni_eip, {NPI: "fail"}, None,
     "an EIP associated with a network interface (attached to a node)"),
    ("x06", "ali", {}, _slb_attachment, {NPI: "fail"}, None,
     "an internet SLB attached to the nodes by slb.Attachment"),
    ("x07", "ali", {"release": "48h"}, None, {}, {SPEND: {"maxMonthlyUsd": 11000}},
     "maxMonthlyUsd 11,000: 2 x 58.2708 x 48 = 5,593.99 + CPFS at most 3,600 x 0.244 = 878.40 + "
     "OSS 3,865.47 GB x 0.0173 = 66.87 -> at most 6,539.26"),
    ("x08", "ali", {}, None, {SPEND: "fail"}, {SPEND: {"maxMonthlyUsd": 11000}},
     "96 h: 2 x 58.2708 x 96 = 11,187.99 > 11,000 before any storage"),
    ("x09", "ali", {}, _add(lambda s: res(
        "alicloud:ecs/securityGroupRule:SecurityGroupRule", "from-sg",
        {"type": "ingress", "ipProtocol": "tcp", "portRange": "22/22",
         "sourceSecurityGroupId": "sg-bastion", "securityGroupId": "sg-x"},
        deps={"securityGroupId": [named(s, "train-sg")]})), {}, None,
     "a rule from another security group is no CIDR: not world-open"),
]


@pytest.mark.parametrize("case", _params(B6))
def test_batch6(pack, case):
    _run_case(pack, case)


# ------------------------------------------------------------------------------ batch 7
# defect 2's reach; literal ids and auto-naming; catalog regions; classic wall-clock stops

def _ack_eip_value(value: Any):
    def mutate(s):
        named(s, "train-gpu").props["scalingConfig"]["isBondEip"] = value
        return s
    return mutate


def _auto_rg(s):
    """The set's group is an azure-native ResourceGroup left to auto-naming."""
    rg = res("azure-native:resources:ResourceGroup", "train-rg",
             {"location": "eastus", "tags": dict(TAGS)})
    for r in s:
        if r.props.get("resourceGroupName") == "train":
            r.props["resourceGroupName"] = unknown()   # rg.name: unknown at preview
            r.deps["resourceGroupName"] = [rg]
    return [rg] + s


def _native_halves_literal(s):
    rules = [res("azure-native:network:SecurityRule", f"lit-{i}",
                 {"resourceGroupName": rg, "networkSecurityGroupName": nsg,
                  "securityRuleName": f"lit-{i}", "access": "Allow", "direction": "Inbound",
                  "priority": 400.0 + i, "protocol": "Tcp", "sourceAddressPrefix": half,
                  "sourcePortRange": "*", "destinationAddressPrefix": "*",
                  "destinationPortRange": "443"})
             for i, (half, nsg, rg) in enumerate([("0.0.0.0/1", "edge-nsg", "net"),
                                                   ("128.0.0.0/1", "Edge-NSG", "NET")])]
    return s + rules


def _classic_stop_local(zone_id: str):
    def mutate(s):
        s = [r for r in s if r.name not in ("scratch", "datasets")]
        named(s, "train-vmss").deps["customData"] = []
        named(s, "train-vmss").deps["userDataBase64"] = []
        fixed = named(s, "train-stop").props["profiles"][0]["fixedDate"]
        fixed.update(start=hours_from_now(96).rstrip("Z"), end="2037-12-31T00:00:00",
                     timezone=zone_id)
        return s
    return mutate


B7 = [
    ("y01", "ali_ack", {}, _ack_eip_value(False), {SPEND: "fail"}, None,
     "control: isBondEip false binds nothing (spend: the pool's missing alarm, as e05)"),
    ("y02", "ali_ack", {}, _ack_eip_value(unknown()), {SPEND: "fail", NPI: "undecided"}, None,
     "isBondEip unknown at preview: an EIP may be bound: cannot decide"),
    ("y03", "ali_ack", {"itype": "ecs.gn7i-c8g1.2xlarge"}, _ack_eip, {SPEND: "fail", NPI: "fail"},
     None, "the same EIP binding on an A10 inference pool (any node's public IP counts)"),
    ("y04", "az", {}, _chain(_with_sub("00000000-0000-0000-0000-000000000001"),
                             _pop("train-vmss", "vmScaleSetName"),
                             _stop_literal("train-vmss")), {SPEND: "fail"}, None,
     "the set is auto-named (no vmScaleSetName): a literal ARM id naming its Pulumi name names "
     "another set: no stop, the month"),
    ("y05", "az", {}, _chain(_auto_rg, _set("train-budget", "scope",
                                            SUB + "/resourceGroups/train")),
     {SPEND: "undecided"}, None,
     "the set's group is an auto-named ResourceGroup; a literal budget scope naming 'train' may "
     "or may not be it: cannot decide"),
    ("y06", "az", {}, _auto_rg, {}, None,
     "the same auto-named group with the subscription budget: covered"),
    ("y07", "az", {}, _native_halves_literal, {NPI: "fail"}, None,
     "two azure-native SecurityRules naming one literal NSG (case differs) with a half each"),
    ("y08", "az", {"location": "japaneast"}, None, {SPEND: "fail"}, None,
     "ND H100 v5 in japaneast: no catalog price there: fails closed"),
    ("y09", "az", {"sku": "Standard_ND96isr_MI300X_v5", "location": "westus2"}, None,
     {SPEND: "fail"}, None, "ND MI300X v5 priced only in eastus2: westus2 fails closed"),
    ("y10", "az", {"hours": 800}, None, {SPEND: "fail"}, None,
     "a stop 800 h away is capped at the month: 143,547.20 > 25,000"),
    ("y11", "azc", {"budget": 21000.0}, _classic_stop_local("Pacific Standard Time"), {}, None,
     "classic fixedDate.timezone PST, start 96 h ahead as wall-clock: 104 h: 20,450.56 < 21,000"),
    ("y12", "azc", {"budget": 21000.0}, _classic_stop_local("Nowhere Standard Time"),
     {SPEND: "fail"}, None, "classic, a zone no table lists: 108 h: 21,237.12 > 21,000"),
]


@pytest.mark.parametrize("case", _params(B7))
def test_batch7(pack, case):
    _run_case(pack, case)


# ------------------------------------------------------------------------------ batch 8
# compute the pack may not see; a stop on one set of two; partial auto-release; more exposure

def _online_deployment(s):
    return s + [res("azure-native:machinelearningservices:OnlineDeployment", "scorer",
                    {"endpointName": "score", "workspaceName": "ws", "resourceGroupName": "train",
                     "location": "eastus", "deploymentName": "blue", "tags": dict(TAGS),
                     "sku": {"name": "Default", "capacity": 2.0},
                     "properties": {"endpointComputeType": "Managed",
                                    "instanceType": "Standard_NC24ads_A100_v4",
                                    "scaleSettings": {"scaleType": "Default"}}})]


def _batch_autoscale(s):
    return s + [res("azure-native:batch:Pool", "train-batch",
                    {"accountName": "trainbatch", "poolName": "gpu", "resourceGroupName": "train",
                     "vmSize": "Standard_ND96amsr_A100_v4",
                     "scaleSettings": {"autoScale": {"formula": "$TargetDedicatedNodes = 4;",
                                                     "evaluationInterval": "PT5M"}},
                     "networkConfiguration": {"subnetId": "subnet-id",
                                              "publicIPAddressConfiguration": {
                                                  "provision": "NoPublicIPAddresses"}}})]


def _eci(eip: bool = False):
    def build(s):
        props: dict = {"containerGroupName": "infer", "vswitchId": "vsw-x",
                       "securityGroupId": "sg-x", "instanceType": "ecs.gn7i-c8g1.2xlarge",
                       "containers": [{"name": "server", "image": "vllm/vllm-openai:latest",
                                       "gpu": 1.0, "cpu": 8.0, "memory": 30.0}],
                       "tags": dict(TAGS)}
        if eip:
            props.update(autoCreateEip=True, eipBandwidth=100.0)
        return res("alicloud:eci/containerGroup:ContainerGroup", "infer", props,
                   deps={"vswitchId": [named(s, "train-vsw")],
                         "securityGroupId": [named(s, "train-sg")]})
    return build


def _second_set(s):
    """A second ND H100 v5 set of 2 with no stop of its own (the stop depends on the first)."""
    first = named(s, "train-vmss")
    import copy
    other = res(first.type, "eval-vmss", copy.deepcopy(first.props),
                deps={k: list(v) for k, v in first.deps.items()})
    other.props["vmScaleSetName"] = "eval-vmss"
    return s + [other]


def _one_release(s):
    named(s, "train-1").props.pop("autoReleaseTime")
    return s


def _inline_nat_rule(s):
    s = _lb(rules=False, outbound=True)(s)
    named(s, "train-lb").props["inboundNatRules"] = [
        {"name": "ssh0", "protocol": "Tcp", "frontendPort": 50022.0, "backendPort": 22.0,
         "frontendIPConfiguration": {"id": "fe-id"}}]
    return s


def _bastion(s):
    pip = res("azure-native:network:PublicIPAddress", "bastion-pip",
              {"resourceGroupName": "train", "location": "eastus", "sku": {"name": "Standard"},
               "publicIPAllocationMethod": "Static", "tags": dict(TAGS)})
    host = res("azure-native:network:BastionHost", "bastion",
               {"resourceGroupName": "train", "location": "eastus", "sku": {"name": "Standard"},
                "ipConfigurations": [{"name": "ip", "subnet": {"id": "bastion-subnet-id"},
                                      "publicIPAddress": {"id": "pip-id"}}],
                "tags": dict(TAGS)}, deps={"ipConfigurations": [pip]})
    return s + [pip, host]


def _nlb_intranet(s):
    s = _nlb(s)
    named(s, "train-nlb").props["addressType"] = "Intranet"
    return s


B8 = [
    ("g01", "az", {}, _online_deployment, {SPEND: "fail"}, None,
     "an Azure ML managed online deployment of 2 x Standard_NC24ads_A100_v4 (instanceType): GPU "
     "capacity; if the pack does not size it, it carries a GPU type in a type field: 'GPU "
     "capacity it cannot estimate'; sized: 2 x 3.673 x 730 = 5,362.58 + 21,286.07 > 25,000 "
     "either way"),
    ("g02", "az", {"budget": 200000.0}, _batch_autoscale, {SPEND: "fail"}, None,
     "a Batch pool on an autoScale formula is not sized: GPU capacity that cannot be estimated"),
    ("g03", "ali", {}, _add(_eci()), {SPEND: "fail"}, None,
     "an ECI container group on ecs.gn7i-c8g1.2xlarge with a GPU: a GPU type in a type field "
     "(no auto-release: in any case no alarm stand-in for it)"),
    ("g04", "ali", {}, _add(_eci(eip=True)), {SPEND: "fail", NPI: "fail"}, None,
     "the same with autoCreateEip: a public IP on a GPU node"),
    ("g05", "az", {"budget": 50000.0}, _second_set, {SPEND: "fail"}, None,
     "two sets of 2 ND H100 v5; the stop names only the first: 18,877.44 + 143,547.20 + storage "
     "> 50,000 (both stopped: at most 40,163.51 would pass)"),
    ("g06", "ali", {}, _one_release, {SPEND: "fail"}, None,
     "auto-release on one node of two: not on every GPU node: no alarm stand-in"),
    ("g07", "az", {}, _inline_nat_rule, {NPI: "fail"}, None,
     "an inline inbound NAT rule of a public LB of the stack"),
    ("g08", "az", {}, _bastion, {}, None,
     "Bastion with its public IP: no node, no rule: passes (it bills: billing-after-stop)"),
    ("g09", "ali", {}, _nlb_intranet, {}, None, "an Intranet NLB holding a node"),
    ("g10", "az", {}, _nsg_inline("0.0.0.0/0", port="8443"), {NPI: "fail"}, None, "0.0.0.0/0"),
    ("g11", "az", {}, _nsg_inline("::/0"), {NPI: "fail"}, None, "::/0"),
    ("g12", "az", {}, _az_filter("ResourceGroupName", ["TRAIN"]), {}, None,
     "ResourceGroupName TRAIN (case-insensitive) is the set's group"),
    ("g13", "az", {}, _set("train-budget", "filter", {"and": [
        {"dimensions": {"name": "ResourceLocation", "operator": "In", "values": ["eastus"]}},
        {"tags": {"name": "owner", "operator": "In", "values": ["dave"]}}]}), {SPEND: "fail"},
     None, "and(eastus, owner=dave): the tag clause leaves the set out"),
    ("g14", "aks", {}, _az_filter("ResourceId", [SUB + "/resourceGroups/MC_train_train-aks_"
                                                 "eastus/providers/Microsoft.Compute/"
                                                 "virtualMachineScaleSets/aks-gpu-1234-vmss"]),
     {SPEND: "undecided"}, None, "AKS nodes' ids are not built: cannot decide"),
    ("g15", "az", {}, _set("scratch", "storageCapacityTiB", -8.0), {SPEND: "fail"}, None,
     "a negative AMLFS capacity"),
    ("g16", "az", {}, _set("scratch", "storageCapacityTiB", unknown()), {SPEND: "undecided"}, None,
     "an AMLFS capacity unknown at preview: cannot decide"),
    ("g17", "az", {}, lambda s: (named(s, "train-vmss").props["tags"].__setitem__(
        "trainstack:max-hours", "-5"), s)[1], {SPEND: "fail"}, None,
     "a negative trainstack:max-hours tag"),
    ("g18", "ali", {}, _set("scratch", "capacity", unknown()), {SPEND: "undecided"}, None,
     "a CPFS capacity unknown at preview: cannot decide"),
]


@pytest.mark.parametrize("case", _params(B8))
def test_batch8(pack, case):
    _run_case(pack, case)


# ------------------------------------------------------------------------------ batch 9
# defects' reach on the classic provider and other groups; legacy classic types; lower-case enums

def _classic_cluster(s):
    return s + [res("azure:machinelearning/computeCluster:ComputeCluster", "train-cc",
                    {"name": "train-cc", "location": "eastus",
                     "machineLearningWorkspaceId": "ws-id", "vmPriority": "Dedicated",
                     "vmSize": "Standard_ND96amsr_A100_v4", "nodePublicIpEnabled": True,
                     "scaleSettings": {"minNodeCount": 0.0, "maxNodeCount": 2.0,
                                       "scaleDownNodesAfterIdleDuration": "PT30M"},
                     "tags": dict(TAGS)})]


def _legacy(type_: str, props: dict):
    def build(s):
        return res(type_, "legacy", {"name": "legacy", "resourceGroupName": "train",
                                     "location": "eastus", **props, "tags": dict(TAGS)})
    return build


def _ess_from_lt(s):
    lt = res("alicloud:ecs/ecsLaunchTemplate:EcsLaunchTemplate", "ess-lt",
             {"launchTemplateName": "ess", "instanceType": "ecs.gn8v-8x.48xlarge",
              "imageId": "ubuntu_22_04_x64", "securityGroupId": "sg-x",
              "internetMaxBandwidthOut": 50.0, "tags": dict(TAGS)})
    group = named(s, "train-ess")
    group.props.update(launchTemplateId="lt-x", launchTemplateVersion="Latest")
    group.deps["launchTemplateId"] = [lt]
    return [r for r in s if r.name != "train-ess-conf"] + [lt]


def _old_slb(s):
    lb = res("alicloud:slb/applicationLoadBalancer:ApplicationLoadBalancer", "train-slb",
             {"loadBalancerName": "train", "addressType": "internet",
              "loadBalancerSpec": "slb.s2.small", "tags": dict(TAGS)})
    sg = res("alicloud:slb/serverGroup:ServerGroup", "train-vsg",
             {"loadBalancerId": "lb-x", "name": "train"}, deps={"loadBalancerId": [lb]})
    att = res("alicloud:slb/serverGroupServerAttachment:ServerGroupServerAttachment", "train-0-att",
              {"serverGroupId": "vsg-x", "serverId": "i-x", "port": 8080.0, "weight": 100.0,
               "type": "ecs"}, deps={"serverGroupId": [sg], "serverId": [named(s, "train-0")]})
    return s + [lb, sg, att]


def _nsg_lower(s):
    named(s, "train-nsg").props["securityRules"].append(
        {"name": "web", "access": "allow", "direction": "inbound", "priority": 200.0,
         "protocol": "tcp", "sourceAddressPrefix": "Internet", "sourcePortRange": "*",
         "destinationAddressPrefix": "*", "destinationPortRange": "443"})
    return s


B9 = [
    ("n01", "az", {}, _classic_cluster, {SPEND: "fail", NPI: "fail"}, None,
     "a classic Azure ML ComputeCluster (known: 'cannot be estimated') with nodePublicIpEnabled "
     "true: defect 1's reach on the classic provider"),
    ("n02", "az", {}, _add(_legacy("azure:batch/pool:Pool", {
        "accountName": "trainbatch", "vmSize": "Standard_ND96amsr_A100_v4",
        "nodeAgentSkuId": "batch.node.ubuntu 22.04",
        "fixedScale": {"targetDedicatedNodes": 2.0}})), {SPEND: "fail"}, None,
     "a classic Batch pool of a GPU vmSize: a GPU type in a type field: GPU capacity it cannot "
     "estimate, or sized: 47,844.20 more > 25,000"),
    ("n03", "az", {}, _add(_legacy("azure:compute/scaleSet:ScaleSet", {
        "sku": {"name": "Standard_ND96isr_H100_v5", "tier": "Standard", "capacity": 2.0},
        "upgradePolicyMode": "Manual"})), {SPEND: "fail"}, None,
     "the legacy classic azure:compute/scaleSet of 2 ND H100 v5 with no stop: a GPU type in "
     "sku.name: cannot estimate, or the month 143,547.20 > 25,000"),
    ("n04", "az", {}, _add(_legacy("azure:compute/virtualMachine:VirtualMachine", {
        "vmSize": "Standard_ND96isr_H100_v5", "networkInterfaceIds": ["nic-id"]})),
     {SPEND: "fail"}, None, "the legacy classic VirtualMachine of ND H100 v5: likewise"),
    ("n05", "ali_ess", {}, _ess_from_lt, {SPEND: "fail", RDMA: "advisory", NPI: "fail"}, None,
     "an ESS group launching from an EcsLaunchTemplate with internetMaxBandwidthOut 50: public "
     "IPs on its nodes (as x03 for instances)"),
    ("n07", "ali", {}, _add(lambda s: res(
        "alicloud:ecs/securityGroupRule:SecurityGroupRule", "ssh-all",
        {"type": "ingress", "ipProtocol": "all", "portRange": "-1/-1", "cidrIp": "0.0.0.0/0",
         "securityGroupId": "sg-x"}, deps={"securityGroupId": [named(s, "train-sg")]})),
     {NPI: "fail"}, {NPI: {"sshCidrs": ["0.0.0.0/0"]}},
     "all protocols and ports from 0.0.0.0/0 is more than TCP 22 whatever sshCidrs says"),
    ("n08", "ali", {}, _old_slb, {NPI: "fail"}, None,
     "an internet slb.ApplicationLoadBalancer with a node in its server group"),
    ("n09", "az", {}, _nsg_lower, {NPI: "fail"}, None,
     "access 'allow', direction 'inbound', protocol 'tcp' in lower case (ARM takes enum values "
     "in any case) from Internet"),
]


@pytest.mark.parametrize("case", _params(B9))
def test_batch9(pack, case):
    _run_case(pack, case)


# ------------------------------------------------------------------------------ batch 10
# defect 4's reach: GPU sizes in other fields and types

def _lab(s):
    return s + [res("azure-native:labservices:Lab", "class-lab",
                    {"labName": "class", "resourceGroupName": "train", "location": "eastus",
                     "tags": dict(TAGS), "virtualMachineProfile": {
                         "createOption": "Image", "usageQuota": "PT10H",
                         "useSharedPassword": "Disabled",
                         "adminUser": {"username": "labadmin"},
                         "imageReference": {"offer": "ubuntu", "publisher": "canonical",
                                            "sku": "22_04-lts", "version": "latest"},
                         "sku": {"name": "Standard_NC4as_T4_v3", "capacity": 20.0}}})]


B10 = [
    ("f01", "az", {}, _chain(_drop("train-budget"), _add(_legacy(
        "azure:compute/scaleSet:ScaleSet", {
            "sku": {"name": "Standard_ND96isr_H100_v5", "tier": "Standard", "capacity": 2.0},
            "upgradePolicyMode": "Manual"}))), {SPEND: "fail"}, None,
     "no budget at all beside the set (already a violation: no alarm) and a legacy ScaleSet: "
     "spend fails on the set whatever the legacy one does (a control for f02)"),
    ("f02", "az", {"budget": 200000.0, "hours": None}, _add(_legacy(
        "azure:compute/scaleSet:ScaleSet", {
            "sku": {"name": "Standard_ND96isr_H100_v5", "tier": "Standard", "capacity": 4.0},
            "upgradePolicyMode": "Manual"})), {SPEND: "fail"}, None,
     "the set alone for the month: 145,955.83 < 200,000; plus a legacy ScaleSet of 4 ND H100 v5 "
     "(4 x 98.32 x 730 = 287,094.40): over, or 'cannot estimate': fail either way"),
    ("f03", "az", {}, _add(_legacy("azure:compute/scaleSet:ScaleSet", {
        "sku": {"name": "Standard_ND96isr_H100_v5", "tier": "Standard", "capacity": 2.0},
        "upgradePolicyMode": "Manual",
        "networkProfiles": [{"name": "nic", "primary": True, "ipConfigurations": [
            {"name": "ip", "primary": True, "subnetId": "subnet-id",
             "publicIpAddressConfiguration": {"name": "pip", "idleTimeout": 15.0,
                                              "domainNameLabel": "train"}}]}]})),
     {SPEND: "fail", NPI: "fail"}, None,
     "the legacy ScaleSet also asks for a public IP per node (publicIpAddressConfiguration)"),
    ("f04", "az", {}, _lab, {SPEND: "fail"}, None,
     "an Azure Lab Services lab of 20 NC4as T4 v3 VMs (virtualMachineProfile.sku): GPU capacity; "
     "20 x 0.526 x 730 = 7,679.60 + 21,286.07 > 25,000, or cannot estimate"),
    ("f05", "ali", {}, _add(lambda s: res(
        "alicloud:ecs/elasticityAssurance:ElasticityAssurance", "assure",
        {"instanceAmount": 2.0, "instanceType": "ecs.gn8v-8x.48xlarge",
         "zoneIds": ["eu-central-1a"], "period": 1.0, "periodUnit": "Month",
         "tags": dict(TAGS)})), {SPEND: "fail"}, None,
     "an Alibaba elasticity assurance of 2 gn8v-8x.48xlarge (GPU type in instanceType): GPU "
     "capacity it cannot estimate, and no auto-release stands in for its alarm"),
]


@pytest.mark.parametrize("case", _params(B10))
def test_batch10(pack, case):
    _run_case(pack, case)


# ------------------------------------------------------------------------------ batch 11
# an auto-provisioning group (known: never placed) and its template's public bandwidth

def _apg_public(s):
    s = _ali_apg(s)
    named(s, "apg-lt").props["internetMaxBandwidthOut"] = 50.0
    return s


B11 = [
    ("o01", "ali", {}, _ali_apg, {SPEND: "fail", RDMA: "advisory"}, None,
     "an auto-provisioning group of 2 gn8v-8x.48xlarge beside the nodes: no auto-release on its "
     "instances (no alarm stand-in); an APG is always 'not placed' (known, documented)"),
    ("o02", "ali", {}, _apg_public, {SPEND: "fail", RDMA: "advisory", NPI: "fail"}, None,
     "its launch template gives internetMaxBandwidthOut 50: public IPs on its GPU nodes (as x03, "
     "n05 for instances and ESS groups)"),
]


@pytest.mark.parametrize("case", _params(B11))
def test_batch11(pack, case):
    _run_case(pack, case)
