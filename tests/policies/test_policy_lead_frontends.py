"""Issue 35 (lead): an Azure load balancer whose frontends are unknown at preview (the whole
`frontendIPConfigurations` list, or one entry of it, built from another resource's output) was
read as internal, so the inbound NAT and load-balancing rules it forwards to GPU nodes passed
(fix53 noticed it). docs/policies.md, "Values unknown at preview": an unknown is asked where it
could hide a violation; public or internal is exactly what such a frontend hides, so each case
below is "cannot decide" (undecided), and known frontends keep their verdicts (controls).
Expectations written before the fix; over gRPC as `pulumi preview` drives the pack."""
from __future__ import annotations

from tests.policies.test_policy_review53 import AZ, NPI, RG, SUB, T, UNK, az_lb, az_nat_rule, expect
from tests.policy_fixtures import res


def _unread_lb(name="edge-lb", whole=True, **extra):
    lb = az_lb(name)
    lb.props["frontendIPConfigurations"] = UNK if whole else [UNK]
    lb.props.update(extra)
    return lb


def test_inline_nat_rules_behind_unknown_frontends_are_undecided(pack):
    """A balancer with an inline inbound NAT rule (port 50022 to 22) whose frontend list is
    unknown: public or not cannot be read: undecided, not pass."""
    lb = _unread_lb(inboundNatRules=[{"name": "ssh", "protocol": "Tcp", "frontendPort": 50022.0,
                                      "backendPort": 22.0}])
    expect(pack, [lb], AZ, {NPI: "undecided"})


def test_one_unknown_frontend_entry_is_undecided_too(pack):
    lb = _unread_lb(whole=False, inboundNatPools=[{
        "name": "ssh", "protocol": "Tcp", "frontendPortRangeStart": 50000.0,
        "frontendPortRangeEnd": 50099.0, "backendPort": 22.0}])
    expect(pack, [lb], AZ, {NPI: "undecided"})


def test_a_standalone_rule_on_a_balancer_with_unknown_frontends_is_undecided(pack):
    lb = _unread_lb()
    expect(pack, [lb, az_nat_rule(lb)], AZ, {NPI: "undecided"})


def test_a_classic_rule_on_a_classic_balancer_with_unknown_frontends_is_undecided(pack):
    lb = res("azure:lb/loadBalancer:LoadBalancer", "edge-lb", {
        "name": "edge-lb", "resourceGroupName": RG, "location": "eastus", "sku": "Standard",
        "frontendIpConfigurations": UNK, "tags": dict(T)})
    rule = res("azure:lb/natRule:NatRule", "ssh-nat", {
        "loadbalancerId": UNK, "resourceGroupName": RG, "name": "ssh", "protocol": "Tcp",
        "frontendPort": 50022.0, "backendPort": 22.0, "frontendIpConfigurationName": "pub"},
        deps={"loadbalancerId": [lb]})
    expect(pack, [lb, rule], AZ, {NPI: "undecided"})


def test_unknown_frontends_without_nat_or_rules_forward_nothing(pack):
    """Control: the same balancer with no NAT and no load-balancing rules takes nothing in:
    pass."""
    expect(pack, [_unread_lb()], AZ, {})


def test_known_frontends_keep_their_verdicts(pack):
    """Controls: a known public frontend with the standalone rule fails; a known private one
    passes."""
    public = az_lb()
    expect(pack, [public, az_nat_rule(public)], AZ, {NPI: "fail"})
    private = az_lb(public=False)
    expect(pack, [private, az_nat_rule(private)], AZ, {})


def test_a_gpu_scale_set_behind_load_balancing_rules_of_unknown_frontends_is_undecided(pack):
    """A scale set of Standard_ND96isr_H100_v5 in the backend pool of a balancer with a
    load-balancing rule on port 8888 and unknown frontends: undecided (a public frontend would
    be a violation, an internal one a pass). spend-limit fails on its own: GPU capacity with no
    budget alarm (docs, spend-limit); rdma passes (capacity 0, no multi-node job)."""
    pool_id = (f"/subscriptions/{SUB}/resourceGroups/{RG}/providers/Microsoft.Network/"
               "loadBalancers/edge-lb/backendAddressPools/nodes")
    lb = _unread_lb(loadBalancingRules=[{"name": "jupyter", "protocol": "Tcp", "frontendPort": 8888.0,
                                         "backendPort": 8888.0}],
                    backendAddressPools=[{"name": "nodes"}])
    vmss = res("azure-native:compute:VirtualMachineScaleSet", "gpu", {
        "resourceGroupName": RG, "location": "eastus", "zones": ["1"], "tags": dict(T),
        "sku": {"name": "Standard_ND96isr_H100_v5", "capacity": 0.0},
        "virtualMachineProfile": {"networkProfile": {"networkInterfaceConfigurations": [{
            "name": "nic", "primary": True, "ipConfigurations": [{
                "name": "ip", "subnet": {"id": UNK},
                "loadBalancerBackendAddressPools": [{"id": pool_id}]}]}]}}},
        deps={"virtualMachineProfile": [lb]})
    found = expect(pack, [lb, vmss], AZ, {NPI: "undecided", "spend-limit": "fail"})
    assert any("budget" in d.message for d in found if d.policy == "spend-limit")
