"""Issue 35, helper fix53: review53's pack defect 1 (tests/policies/test_policy_review53.py p13,
d03, d04, d05, e05), where its own cases do not pin the fix, and the classic provider's NAT
rules and pools. Over gRPC as `pulumi preview` drives the pack (tests/policy_harness.py). Each
case states every policy's verdict (those not named pass); expectations were worked by hand
from docs/policies.md ("Azure inbound NAT pools or rules of a public load balancer of the
stack are a violation; of a load balancer the stack does not create (named by a literal id)
they are "cannot decide" at the configured level") and the providers' public docs, and
committed before the fix's first run.

A standalone inbound NAT rule names its balancer by name and resource group
(azure-native InboundNatRule `loadBalancerName`, `resourceGroupName`) or by ARM id (classic
`azure:lb/natRule:NatRule` and `azure:lb/natPool:NatPool`, `loadbalancerId`). It is the stack's
balancer when it depends on it, or when its name and group are the balancer's own inputs; Azure
resource and group names are case-insensitive (learn.microsoft.com/azure/azure-resource-manager/
management/resource-name-rules). A balancer is public or internal, by its frontend. A balancer
left without a name is auto-named `<logical name><random suffix>` (pulumi-azure-native
auto-naming), so a literal never names it for certain.

1. azure-native by name: k01 (case apart, public: fail), k02 (internal: pass), k03 (same
   name, another group: not the stack's: undecided), k04/k05 (the group from the stack's
   ResourceGroup, on both or on the rule only: fail), k06 (auto-named balancer: undecided),
   k07 (mandatory cannotDecide names the balancer), k08 (an outside rule beside a matched one
   hides no violation).
2. classic: c01-c03 by dependency (public rule and pool fail, internal passes), c04/c05 a
   literal id of an outside balancer or an unknown id (undecided), c06 a literal id of the
   stack's public balancer (fail), c07 the same id in another subscription (undecided).
"""
from __future__ import annotations

from tests.policies.test_policy_review53 import (
    AZ, NPI, RG, SUB, T, UNK, az_lb, az_nat_rule, expect,
)
from tests.policy_fixtures import res

OTHER_SUB = "00000000-0000-0000-0000-0000000000b7"


def _lb_id(name="shared-edge-lb", group="net", sub=SUB):
    return (f"/subscriptions/{sub}/resourceGroups/{group}/providers/Microsoft.Network/"
            f"loadBalancers/{name}")


def _messages(found):
    return " | ".join(d.message for d in found if d.policy == NPI)


# ---------------------------------------------------------------- 1. azure-native, by name

def test_k01_name_in_other_case_names_the_public_balancer(pack):
    """loadBalancerName "EDGE-LB" in the balancer's own group: Azure names are
    case-insensitive, so it is the stack's public edge-lb: fail, naming it."""
    lb = az_lb("edge-lb")
    found = expect(pack, [lb, az_nat_rule(lb_name="EDGE-LB")], AZ, {NPI: "fail"})
    assert "edge-lb" in _messages(found), _messages(found)


def test_k02_name_of_the_internal_balancer(pack):
    """The same literal naming the stack's internal balancer: it opens nothing: pass."""
    expect(pack, [az_lb("edge-lb", public=False), az_nat_rule(lb_name="edge-lb")], AZ, {})


def test_k03_same_name_another_group(pack):
    """"edge-lb" in resource group rg-other: a balancer of that name elsewhere, not the
    stack's (in rg-vision): "cannot decide": undecided."""
    rule = az_nat_rule(lb_name="edge-lb")
    rule.props["resourceGroupName"] = "rg-other"
    expect(pack, [az_lb("edge-lb"), rule], AZ, {NPI: "undecided"})


def _rg(name="net-rg", group_name=None):
    props = {"location": "eastus", "tags": dict(T)}
    if group_name:
        props["resourceGroupName"] = group_name
    return res("azure-native:resources:ResourceGroup", name, props)


def test_k04_group_from_the_same_resource_group(pack):
    """Rule and public balancer both in the group of one ResourceGroup of the stack (unknown
    at preview, auto-named), the rule naming "edge-lb": that balancer: fail."""
    rg = _rg()
    lb = az_lb("edge-lb")
    lb.props["resourceGroupName"] = UNK
    lb.deps["resourceGroupName"] = [rg]
    rule = az_nat_rule(lb_name="edge-lb")
    rule.props["resourceGroupName"] = UNK
    rule.deps["resourceGroupName"] = [rg]
    expect(pack, [rg, lb, rule], AZ, {NPI: "fail"})


def test_k05_rule_group_from_a_named_resource_group(pack):
    """The rule's group from a ResourceGroup named "rg-vision", the balancer's the literal
    "rg-vision": the same group: fail."""
    rg = _rg(group_name=RG)
    rule = az_nat_rule(lb_name="edge-lb")
    rule.props["resourceGroupName"] = UNK
    rule.deps["resourceGroupName"] = [rg]
    expect(pack, [rg, az_lb("edge-lb"), rule], AZ, {NPI: "fail"})


def test_k06_auto_named_balancer(pack):
    """The stack's public balancer has no loadBalancerName (auto-named edge-lb<suffix>); the
    rule's literal "edge-lb" is not it for certain: undecided."""
    lb = az_lb("edge-lb")
    del lb.props["loadBalancerName"]
    expect(pack, [lb, az_nat_rule(lb_name="edge-lb")], AZ, {NPI: "undecided"})


def test_k07_mandatory_cannot_decide_names_the_balancer(pack):
    """d03 with cannotDecide mandatory: a mandatory "cannot decide" naming shared-edge-lb."""
    found = expect(pack, [az_nat_rule(lb_name="shared-edge-lb")], AZ, {NPI: "undecided"},
                   {NPI: {"cannotDecide": "mandatory"}})
    mine = [d for d in found if d.policy == NPI]
    assert mine and all(d.level == "mandatory" and "cannot decide" in d.message for d in mine)
    assert "shared-edge-lb" in _messages(found), _messages(found)


def test_k08_outside_rule_beside_a_matched_one(pack):
    """One rule on an outside balancer, another naming the stack's public edge-lb: the
    violation stands: fail."""
    rule = az_nat_rule(lb_name="shared-edge-lb")
    outside = res(rule.type, "ssh-nat-outside", rule.props)
    expect(pack, [az_lb("edge-lb"), outside, az_nat_rule(lb_name="edge-lb")], AZ, {NPI: "fail"})


# ---------------------------------------------------------------------------- 2. classic

def _classic_lb(public=True, name="edge-lb"):
    fe = ({"name": "pub", "publicIpAddressId": UNK} if public else
          {"name": "priv", "subnetId": _lb_id().replace("loadBalancers/shared-edge-lb",
                                                         "virtualNetworks/vn/subnets/lb"),
           "privateIpAddressAllocation": "Dynamic"})
    pip = res("azure:network/publicIp:PublicIp", "edge-pip", {
        "resourceGroupName": RG, "location": "eastus", "allocationMethod": "Static",
        "sku": "Standard", "tags": dict(T)})
    lb = res("azure:lb/loadBalancer:LoadBalancer", name, {
        "name": name, "resourceGroupName": RG, "location": "eastus", "sku": "Standard",
        "frontendIpConfigurations": [fe], "tags": dict(T)},
        deps={"frontendIpConfigurations": [pip]} if public else {})
    return ([pip] if public else []) + [lb]


def _classic_nat(kind="rule", lb=None, lb_id=None):
    props = {"resourceGroupName": RG, "name": "ssh", "protocol": "Tcp", "backendPort": 22.0,
             "frontendIpConfigurationName": "pub",
             "loadbalancerId": UNK if lb is not None else lb_id}
    if kind == "rule":
        props["frontendPort"] = 50022.0
        t = "azure:lb/natRule:NatRule"
    else:
        props.update(frontendPortStart=50000.0, frontendPortEnd=50099.0)
        t = "azure:lb/natPool:NatPool"
    return res(t, f"ssh-{kind}", props, deps={"loadbalancerId": [lb]} if lb is not None else {})


def test_c01_classic_rule_on_public_balancer(pack):
    """A classic NatRule on the stack's public classic balancer (by dependency): fail."""
    stack = _classic_lb()
    found = expect(pack, stack + [_classic_nat("rule", stack[-1])], AZ, {NPI: "fail"})
    assert "edge-lb" in _messages(found), _messages(found)


def test_c02_classic_rule_on_internal_balancer(pack):
    """On an internal classic balancer (a subnet frontend): pass."""
    stack = _classic_lb(public=False)
    expect(pack, stack + [_classic_nat("rule", stack[-1])], AZ, {})


def test_c03_classic_pool_on_public_balancer(pack):
    """A classic NatPool on the stack's public classic balancer: fail."""
    stack = _classic_lb()
    expect(pack, stack + [_classic_nat("pool", stack[-1])], AZ, {NPI: "fail"})


def test_c04_classic_rule_on_outside_balancer(pack):
    """loadbalancerId a literal id of shared-edge-lb (group net), which the stack does not
    create: undecided; with cannotDecide mandatory, a mandatory "cannot decide" naming it."""
    rule = _classic_nat("rule", lb_id=_lb_id())
    expect(pack, [rule], AZ, {NPI: "undecided"})
    found = expect(pack, [rule], AZ, {NPI: "undecided"}, {NPI: {"cannotDecide": "mandatory"}})
    assert any(d.level == "mandatory" for d in found if d.policy == NPI)
    assert "shared-edge-lb" in _messages(found), _messages(found)


def test_c05_classic_pool_balancer_unknown(pack):
    """loadbalancerId unknown at preview with no balancer of the stack behind it: undecided."""
    expect(pack, [_classic_nat("pool", lb_id=UNK)], AZ, {NPI: "undecided"})


def test_c06_classic_literal_id_of_the_stack_balancer(pack):
    """A literal id naming edge-lb in rg-vision, on the provider's subscription: the stack's
    public classic balancer: fail."""
    stack = _classic_lb()
    rule = _classic_nat("rule", lb_id=_lb_id("edge-lb", RG))
    expect(pack, stack + [rule], AZ, {NPI: "fail"})


def test_c07_classic_literal_id_in_another_subscription(pack):
    """The same name and group in another subscription: another balancer: undecided."""
    stack = _classic_lb()
    rule = _classic_nat("rule", lb_id=_lb_id("edge-lb", RG, OTHER_SUB))
    expect(pack, stack + [rule], AZ, {NPI: "undecided"})
