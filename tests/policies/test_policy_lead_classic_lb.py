"""Issue 35 (lead): GPU nodes behind a CLASSIC Azure load balancer (pulumi-azure
`azure:lb/loadBalancer:LoadBalancer`, with its separate `azure:lb/rule:Rule` and
`azure:lb/backendAddressPool:BackendAddressPool`) were not followed (fix53 noticed: only the
azure-native balancer was), so a public classic balancer forwarding a port to a GPU scale set
passed. docs/policies.md no-public-ingress: "GPU nodes behind an internet-facing load balancer
... for any stack". An Azure balancer takes traffic in through its load-balancing rules
(learn.microsoft.com/azure/load-balancer/components); the classic provider writes each rule as
its own `lb.Rule` naming the balancer by `loadbalancerId` and the pools by
`backendAddressPoolIds`; a scale set joins a pool by its IP configuration's
`loadBalancerBackendAddressPoolIds`, a VM's NIC by a
`NetworkInterfaceBackendAddressPoolAssociation`. A frontend is public by `publicIpAddressId`.

Every stack holds one Standard_NC4as_T4_v3 node (0.526 USD/h in eastus, prices.csv; a month
384.0 < the 1,000 budget: spend passes) and the budget; the verdicts differ only in
no-public-ingress. Expectations written before the fix; over gRPC as `pulumi preview` drives
the pack."""
from __future__ import annotations

from tests.policies.test_policy_review53 import AZ, NPI, RG, SUB, T, UNK, abudget, expect
from tests.policy_fixtures import res

_SUBNET = f"/subscriptions/{SUB}/resourceGroups/{RG}/providers/Microsoft.Network/virtualNetworks/vn/subnets/nodes"


def _lb(frontend="public"):
    fe = {"name": "fe"}
    if frontend == "public":
        fe["publicIpAddressId"] = UNK
    elif frontend == "internal":
        fe["subnetId"] = _SUBNET
    return res("azure:lb/loadBalancer:LoadBalancer", "edge", {
        "name": "edge", "resourceGroupName": RG, "location": "eastus", "sku": "Standard",
        "frontendIpConfigurations": UNK if frontend == "unknown" else [fe], "tags": dict(T)})


def _pool(lb):
    return res("azure:lb/backendAddressPool:BackendAddressPool", "nodes", {
        "name": "nodes", "loadbalancerId": UNK}, deps={"loadbalancerId": [lb]})


def _rule(lb, pool, port=8888.0):
    return res("azure:lb/rule:Rule", "jupyter", {
        "name": "jupyter", "loadbalancerId": UNK, "protocol": "Tcp", "frontendPort": port,
        "backendPort": port, "frontendIpConfigurationName": "fe", "backendAddressPoolIds": [UNK]},
        deps={"loadbalancerId": [lb], "backendAddressPoolIds": [pool]})


def _scale_set(pool=None):
    ip = {"name": "ip", "primary": True, "subnetId": _SUBNET}
    if pool is not None:
        ip["loadBalancerBackendAddressPoolIds"] = [UNK]
    return res("azure:compute/linuxVirtualMachineScaleSet:LinuxVirtualMachineScaleSet", "gpu", {
        "resourceGroupName": RG, "location": "eastus", "sku": "Standard_NC4as_T4_v3",
        "instances": 1.0, "zones": ["1"], "adminUsername": "azureuser", "tags": dict(T),
        "networkInterfaces": [{"name": "nic", "primary": True, "ipConfigurations": [ip]}]},
        deps={"networkInterfaces": [pool]} if pool is not None else {})


def test_a_gpu_scale_set_behind_a_public_classic_balancer_rule_fails(pack):
    lb = _lb()
    pool = _pool(lb)
    found = expect(pack, [lb, pool, _rule(lb, pool), _scale_set(pool), abudget()], AZ, {NPI: "fail"})
    assert any("edge" in d.message for d in found if d.policy == NPI)


def test_behind_an_internal_classic_balancer_it_passes(pack):
    lb = _lb("internal")
    pool = _pool(lb)
    expect(pack, [lb, pool, _rule(lb, pool), _scale_set(pool), abudget()], AZ, {})


def test_a_public_classic_balancer_with_no_rule_forwards_nothing(pack):
    """A pool on a public balancer but no load-balancing rule: nothing is forwarded in: pass."""
    lb = _lb()
    pool = _pool(lb)
    expect(pack, [lb, pool, _scale_set(pool), abudget()], AZ, {})


def test_a_set_outside_the_pool_beside_a_public_rule_passes(pack):
    """The rule forwards to the pool; the scale set joins no pool: pass."""
    lb = _lb()
    pool = _pool(lb)
    expect(pack, [lb, pool, _rule(lb, pool), _scale_set(), abudget()], AZ, {})


def test_a_classic_vm_joined_by_a_nic_association_fails(pack):
    """A classic LinuxVirtualMachine whose NIC a NetworkInterfaceBackendAddressPoolAssociation
    puts in the pool a public rule forwards to: fail."""
    lb = _lb()
    pool = _pool(lb)
    nic = res("azure:network/networkInterface:NetworkInterface", "vm-nic", {
        "resourceGroupName": RG, "location": "eastus", "tags": dict(T),
        "ipConfigurations": [{"name": "ip", "subnetId": _SUBNET,
                              "privateIpAddressAllocation": "Dynamic"}]})
    assoc = res("azure:network/networkInterfaceBackendAddressPoolAssociation:"
                "NetworkInterfaceBackendAddressPoolAssociation", "vm-in-pool", {
                    "networkInterfaceId": UNK, "ipConfigurationName": "ip",
                    "backendAddressPoolId": UNK},
                deps={"networkInterfaceId": [nic], "backendAddressPoolId": [pool]})
    vm = res("azure:compute/linuxVirtualMachine:LinuxVirtualMachine", "gpu-vm", {
        "resourceGroupName": RG, "location": "eastus", "size": "Standard_NC4as_T4_v3",
        "zone": "1", "adminUsername": "azureuser", "networkInterfaceIds": [UNK], "tags": dict(T)},
        deps={"networkInterfaceIds": [nic]})
    expect(pack, [lb, pool, _rule(lb, pool), nic, assoc, vm, abudget()], AZ, {NPI: "fail"})


def test_a_classic_balancer_with_unknown_frontends_is_undecided(pack):
    lb = _lb("unknown")
    pool = _pool(lb)
    expect(pack, [lb, pool, _rule(lb, pool), _scale_set(pool), abudget()], AZ, {NPI: "undecided"})
