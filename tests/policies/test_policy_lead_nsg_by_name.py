"""Issue 35 (lead): an NSG of the stack whose own inline rule holds one half of the address
space, and a standalone rule that names that NSG by its literal name and resource group (no
dependency) holding the other: together open to 0.0.0.0/0 on one NSG, but the standalone rule
was grouped as "a group the stack does not create" and the halves were never joined (fix55
noticed). An Azure NSG is named by its name in its resource group, case-insensitively
(learn.microsoft.com/azure/azure-resource-manager/management/resource-name-rules), as the NAT
rules' balancers are (fix53). docs/policies.md no-public-ingress, "Split across resources":
rules that together cover all addresses on one security group or NSG are a violation on the
group. Expectations written before the fix; over gRPC as `pulumi preview` drives the pack."""
from __future__ import annotations

from tests.policies.test_policy_review55 import AZ, NPI, TAGS, _native_nsg_rules, check, nsg_rule, on
from tests.policy_fixtures import res


def test_an_inline_half_and_a_half_naming_the_nsg_by_name_fail_on_the_nsg(pack):
    """Inline 0.0.0.0/1 on nsg-in (rg-ml); a SecurityRule naming "NSG-IN" in rg-ml with
    128.0.0.0/1: one NSG open to the world: fail, on the NSG."""
    nsg = _native_nsg_rules("0.0.0.0/1")
    found = check(pack, on(AZ, nsg, nsg_rule("hi", "128.0.0.0/1", nsg="NSG-IN", rg="rg-ml")),
                  {NPI: "fail"})
    assert any(d.urn == nsg.urn for d in found if d.policy == NPI), [d.urn for d in found]


def test_the_same_name_in_another_resource_group_is_another_nsg(pack):
    """Control: the rule names nsg-in in rg-other: another NSG, each half alone: pass."""
    nsg = _native_nsg_rules("0.0.0.0/1")
    check(pack, on(AZ, nsg, nsg_rule("hi", "128.0.0.0/1", nsg="nsg-in", rg="rg-other")), {})


def test_a_classic_nsg_by_name_joins_its_inline_half(pack):
    """The classic NSG (name nsg-c, rg-ml) with inline 128.0.0.0/1 and a classic rule naming it
    with 0.0.0.0/1: fail."""
    nsg = res("azure:network/networkSecurityGroup:NetworkSecurityGroup", "nsg-c", {
        "name": "nsg-c", "location": "eastus", "resourceGroupName": "rg-ml", "tags": dict(TAGS),
        "securityRules": [{"name": "hi", "priority": 110.0, "access": "Allow",
                           "direction": "Inbound", "protocol": "Tcp", "sourcePortRange": "*",
                           "sourceAddressPrefix": "128.0.0.0/1", "destinationAddressPrefix": "*",
                           "destinationPortRange": "443"}]})
    rule = nsg_rule("lo", "0.0.0.0/1", nsg="nsg-c", rg="rg-ml", classic=True)
    check(pack, on(AZ, nsg, rule), {NPI: "fail"})
