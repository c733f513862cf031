"""fix55: the pack defect the blind review tests/policies/test_policy_review55.py found (issue 35,
its "Defect 1"), each test written and run failing before the fix. Over gRPC, as `pulumi preview
--policy-pack` drives the pack (tests/policy_harness.py).

A security group's or NSG's own inline rules that are each narrow but together cover all
addresses (0.0.0.0/1 in one entry, 128.0.0.0/1 in another) are world-open on that group (docs,
no-public-ingress, "Split across resources": "rules that are each narrow but together cover all
addresses on one security group or NSG ... are a violation on the group"), alone or joined with
the standalone rules that depend on the group. The inline entries are matched as the standalone
rules are: Azure Allow Inbound only, every AWS inline ingress entry; protocol and ports are not
compared (the standalone path does not compare them either). Expected values are the halves by
hand: 0.0.0.0/1 = 0.0.0.0-127.255.255.255, 128.0.0.0/1 = 128.0.0.0-255.255.255.255, so together
0.0.0.0/0; ::/1 + 8000::/1 = ::/0. Controls: halves that leave a gap (0.0.0.0/1 + 128.0.0.0/2),
a Deny or Outbound half, halves on two different groups.

GCP firewalls have no group: each firewall is judged alone (halves in two firewalls on one
network are not joined, and docs/policies.md now says so).
"""
from __future__ import annotations

from tests.policies.test_policy_review55 import (
    AWS, AZ, GCP, NPI, TAGS, aws_sg, check, gcp_fw, nsg_rule, on, sg_rule,
)
from tests.policy_fixtures import res

_AZ_BASE = {"protocol": "Tcp", "sourcePortRange": "*", "destinationAddressPrefix": "*",
            "destinationPortRange": "443"}


def _az_entry(name, cidr, priority, access="Allow", direction="Inbound"):
    return {**_AZ_BASE, "name": name, "priority": priority, "access": access,
            "direction": direction, "sourceAddressPrefix": cidr}


def _classic_nsg(*entries, name="cnsg"):
    return res("azure:network/networkSecurityGroup:NetworkSecurityGroup", name, {
        "location": "eastus", "resourceGroupName": "rg-ml", "tags": dict(TAGS),
        "securityRules": list(entries)})


def _native_nsg(*entries, name="nsg", nsg_name="nsg-in"):
    return res("azure-native:network:NetworkSecurityGroup", name, {
        "location": "eastus", "resourceGroupName": "rg-ml", "networkSecurityGroupName": nsg_name,
        "tags": dict(TAGS), "securityRules": list(entries)})


def _aws_sg(name="web-sg", *entries):
    sg = aws_sg(name)
    sg.props["ingress"] = [{"protocol": "tcp", "fromPort": 443.0, "toPort": 443.0, **e}
                           for e in entries]
    return sg


def _native_sg(*cidrs, v6=False):
    return res("aws-native:ec2:SecurityGroup", "nsg55", {
        "groupDescription": "web", "vpcId": "vpc-0r55", "securityGroupIngress": [
            {"ipProtocol": "tcp", "fromPort": 443, "toPort": 443, ("cidrIpv6" if v6 else "cidrIp"): c}
            for c in cidrs]})


def _on_group(found, group, world):
    """The split finding is on the group itself and names the world it opens to."""
    hits = [d for d in found if d.policy == NPI and d.urn == group.urn
            and f"together are open to {world}" in d.message]
    assert hits, [(d.urn, d.message) for d in found if d.policy == NPI]
    return hits


# ============================================================== inline halves on one group

def test_1a_classic_nsg_inline_halves_fail_on_the_nsg(pack):
    nsg = _classic_nsg(_az_entry("lo", "0.0.0.0/1", 100.0), _az_entry("hi", "128.0.0.0/1", 110.0))
    found = check(pack, on(AZ, nsg), {NPI: "fail"})
    _on_group(found, nsg, "0.0.0.0/0")


def test_1b_native_nsg_inline_ipv6_quarters_fail(pack):
    # ::/2, 4000::/2, 8000::/2, c000::/2: the four quarters of IPv6 = ::/0.
    entries = [_az_entry(f"q{i}", f"{p}::/2", 100.0 + i)
               for i, p in enumerate(("0", "4000", "8000", "c000"))]
    nsg = _native_nsg(*entries)
    _on_group(check(pack, on(AZ, nsg), {NPI: "fail"}), nsg, "::/0")


def test_1c_nsg_inline_halves_with_a_gap_pass(pack):
    # 0.0.0.0/1 + 128.0.0.0/2 leaves 192.0.0.0/2 out: not all addresses.
    nsg = _native_nsg(_az_entry("lo", "0.0.0.0/1", 100.0), _az_entry("hi", "128.0.0.0/2", 110.0))
    check(pack, on(AZ, nsg), {})


def test_1d_nsg_inline_deny_or_outbound_half_opens_nothing(pack):
    # The standalone path joins Allow Inbound rules only: a Deny or Outbound half is no half.
    for other in (_az_entry("hi", "128.0.0.0/1", 110.0, access="Deny"),
                  _az_entry("hi", "128.0.0.0/1", 110.0, direction="Outbound")):
        check(pack, on(AZ, _classic_nsg(_az_entry("lo", "0.0.0.0/1", 100.0), other)), {})


def test_1e_aws_sg_inline_halves_fail_on_the_group(pack):
    sg = _aws_sg("web-sg", {"cidrBlocks": ["0.0.0.0/1"]}, {"cidrBlocks": ["128.0.0.0/1"]})
    _on_group(check(pack, on(AWS, sg), {NPI: "fail"}), sg, "0.0.0.0/0")


def test_1f_aws_sg_inline_ipv6_halves_other_ports_fail(pack):
    # The halves on different ports (443 and 80): the standalone path does not compare ports,
    # and neither does the inline one.
    sg = _aws_sg("web-sg", {"ipv6CidrBlocks": ["::/1"]},
                 {"ipv6CidrBlocks": ["8000::/1"], "fromPort": 80.0, "toPort": 80.0})
    _on_group(check(pack, on(AWS, sg), {NPI: "fail"}), sg, "::/0")


def test_1g_aws_sg_inline_gap_passes(pack):
    sg = _aws_sg("web-sg", {"cidrBlocks": ["0.0.0.0/1"]}, {"cidrBlocks": ["128.0.0.0/2"]},
                 {"ipv6CidrBlocks": ["::/1"]})
    check(pack, on(AWS, sg), {})


def test_1h_aws_native_sg_inline_ipv6_halves_fail(pack):
    sg = _native_sg("::/1", "8000::/1", v6=True)
    _on_group(check(pack, on(AWS, sg), {NPI: "fail"}), sg, "::/0")


def test_1i_one_inline_entry_with_both_halves_is_one_finding(pack):
    # One entry holding both halves is judged by its own resource already (q03): the stack
    # look adds no second finding for the same entry.
    sg = _aws_sg("web-sg", {"cidrBlocks": ["0.0.0.0/1", "128.0.0.0/1"]})
    found = check(pack, on(AWS, sg), {NPI: "fail"})
    assert len([d for d in found if d.policy == NPI]) == 1, [d.message for d in found]


# ============================================================== inline + standalone on one group

def test_2a_native_nsg_inline_half_and_classic_rule_half_fail(pack):
    nsg = _native_nsg(_az_entry("lo", "0.0.0.0/1", 100.0))
    rule = nsg_rule("hi", "128.0.0.0/1", nsg="nsg-in", priority=120.0, classic=True)
    rule.deps = {"networkSecurityGroupName": [nsg]}
    found = check(pack, on(AZ, nsg, rule), {NPI: "fail"})
    assert "hi" in " ".join(d.message for d in _on_group(found, nsg, "0.0.0.0/0"))


def test_2b_aws_sg_inline_half_and_native_ingress_half_fail(pack):
    sg = _aws_sg("web-sg", {"cidrBlocks": ["0.0.0.0/1"]})
    rule = res("aws-native:ec2:SecurityGroupIngress", "hi", {
        "groupId": "web-sg-id", "cidrIp": "128.0.0.0/1", "ipProtocol": "tcp", "fromPort": 443,
        "toPort": 443}, deps={"groupId": [sg]})
    _on_group(check(pack, on(AWS, sg, rule), {NPI: "fail"}), sg, "0.0.0.0/0")


def test_2c_inline_half_and_a_rule_on_another_group_pass(pack):
    # The upper half is a rule of sg-b: neither group covers all addresses.
    a = _aws_sg("sg-a", {"cidrBlocks": ["0.0.0.0/1"]})
    b = aws_sg("sg-b")
    check(pack, on(AWS, a, b, sg_rule("hi", "128.0.0.0/1", b)), {})


def test_2d_inline_half_and_an_egress_rule_half_pass(pack):
    sg = _aws_sg("web-sg", {"cidrBlocks": ["0.0.0.0/1"]})
    egress = res("aws:ec2/securityGroupRule:SecurityGroupRule", "out", {
        "type": "egress", "securityGroupId": "web-sg-id", "cidrBlocks": ["128.0.0.0/1"],
        "protocol": "tcp", "fromPort": 443.0, "toPort": 443.0}, deps={"securityGroupId": [sg]})
    check(pack, on(AWS, sg, egress), {})


# ============================================================== GCP: no group to join on

def test_3a_gcp_halves_in_two_firewalls_are_judged_one_by_one(pack):
    # Documented (no-public-ingress): each firewall alone; neither half is all addresses.
    check(pack, on(GCP, gcp_fw("lo", sourceRanges=["0.0.0.0/1"]),
                   gcp_fw("hi", sourceRanges=["128.0.0.0/1"])), {})
