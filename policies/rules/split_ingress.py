"""Ingress split across rules (no-public-ingress): rules that are each narrow but together open a
security group or NSG to the whole internet (0.0.0.0/1 in one rule, 128.0.0.0/1 in another).
The per-resource Analyze call sees one rule; the stack sees them all, grouped by the group they
name (by dependency, or by a literal id no resource stands behind), a group's own inline entries
joined with the standalone rules (split_rules). The rule and group type tokens live here and
no_public_ingress's per-resource checks import them.
"""
from __future__ import annotations

import ipaddress
from typing import Any, Mapping, Optional

from trainstack_policies.model import UNKNOWN, Resource, Violation, violation
from trainstack_policies.rules.public_entries import group_key
from trainstack_policies.rules.world_sources import network, plain_list


NATIVE_INGRESS = "aws-native:ec2:SecurityGroupIngress"
NATIVE_SECURITY_GROUP = "aws-native:ec2:SecurityGroup"
AZURE_CLASSIC_RULE = "azure:network/networkSecurityRule:NetworkSecurityRule"
AZURE_CLASSIC_NSG = "azure:network/networkSecurityGroup:NetworkSecurityGroup"
ALI_RULE = "alicloud:ecs/securityGroupRule:SecurityGroupRule"


_SPLIT_RULES = {
    # rule type -> (the input naming its group, how to read (sources, is_allow_ingress))
    "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule": "securityGroupId",
    "aws:ec2/securityGroupRule:SecurityGroupRule": "securityGroupId",
    NATIVE_INGRESS: "groupId",
    "azure-native:network:SecurityRule": "networkSecurityGroupName",
    AZURE_CLASSIC_RULE: "networkSecurityGroupName",
    ALI_RULE: "securityGroupId",
}


def _rule_sources(r: Resource) -> list[tuple[Any, str]]:
    """The sources of one allow-ingress rule resource ([] for egress, deny, or unknown)."""
    t = r.type
    if t.startswith("aws:vpc/"):
        return [(r.get("cidrIpv4"), "cidrIpv4"), (r.get("cidrIpv6"), "cidrIpv6")]
    if t == NATIVE_INGRESS:
        return _native_sources(r.props)
    if t.startswith("aws:ec2/"):
        if r.get("type") != "ingress":
            return []
        return _ec2_sources(r.props)
    if t == ALI_RULE:
        # An accept rule (policy defaults to accept) letting traffic in, as _alicloud judges one.
        if r.get("type") != "ingress" or str(r.get("policy") or "accept").lower() != "accept":
            return []
        return [(r.get("cidrIp"), "cidrIp"), (r.get("ipv6CidrIp"), "ipv6CidrIp")]
    return _nsg_sources(r.props)


# The same readings for a rule resource and for one entry of a group's inline list: the entries
# of an aws SecurityGroup's `ingress` are aws:ec2 rules without `type`, those of an aws-native
# SecurityGroup's `securityGroupIngress` are SecurityGroupIngress rules, and those of an NSG's
# `securityRules` are SecurityRules.
def _ec2_sources(rule: Mapping[str, Any]) -> list[tuple[Any, str]]:
    return [(c, "cidrBlocks") for c in plain_list(rule.get("cidrBlocks"))] + \
        [(c, "ipv6CidrBlocks") for c in plain_list(rule.get("ipv6CidrBlocks"))]


def _native_sources(rule: Mapping[str, Any]) -> list[tuple[Any, str]]:
    return [(rule.get("cidrIp"), "cidrIp"), (rule.get("cidrIpv6"), "cidrIpv6")]


def _nsg_sources(rule: Mapping[str, Any]) -> list[tuple[Any, str]]:
    if str(rule.get("direction", "")).lower() != "inbound" or \
            str(rule.get("access", "")).lower() != "allow":
        return []
    return [(rule.get("sourceAddressPrefix"), "sourceAddressPrefix")] + \
        [(s, "sourceAddressPrefixes") for s in plain_list(rule.get("sourceAddressPrefixes"))]


_INLINE_RULES = {
    # group type -> (its inline rule list, how to read one entry)
    "aws:ec2/securityGroup:SecurityGroup": ("ingress", _ec2_sources),
    NATIVE_SECURITY_GROUP: ("securityGroupIngress", _native_sources),
    "azure-native:network:NetworkSecurityGroup": ("securityRules", _nsg_sources),
    AZURE_CLASSIC_NSG: ("securityRules", _nsg_sources),
}


def _inline_sources(g: Resource) -> list[tuple[Any, str, str]]:
    """(rule, label, source) for each source of a group's own inline allow-ingress entries; an
    entry is a rule of its own (rule: (group, index)). Entries unknown at preview are left to
    the group's own Analyze call, which says "cannot decide" for them."""
    key, read = _INLINE_RULES[g.type]
    entries = g.get(key)
    if entries is UNKNOWN or not entries:
        return []
    out = []
    # One object is a list of that one, as the group's own Analyze call reads it (items()).
    for i, entry in enumerate(entries if isinstance(entries, (list, tuple)) else [entries]):
        if not isinstance(entry, dict):
            continue
        name = entry.get("name")
        label = f"{g.name} {key}.{i}" + (f" ({name})" if isinstance(name, str) and name else "")
        out += [((id(g), i), label, src) for src, _ in read(entry)
                if isinstance(src, str) and src]
    return out


def split_rules(resources: list[Resource]) -> list[Violation]:
    """Rules that are each narrow but together open a group to the whole internet (0.0.0.0/1
    in one rule, 128.0.0.0/1 in another): the per-resource Analyze call cannot see that, the
    stack can. Grouped by the security group / NSG the rules depend on; a group's own inline
    entries are its rules too, each one rule, joined with the standalone ones."""
    by_group: dict[Any, tuple[Optional[Resource], list[tuple[Any, str, str]]]] = {}
    literal_rules: dict[Any, list[Resource]] = {}   # a literal group's rule resources
    own_nsgs = _nsgs_by_name(resources)
    for r in resources:
        if r.type in _INLINE_RULES:
            by_group.setdefault(id(r), (r, []))[1].extend(_inline_sources(r))
            continue
        key = _SPLIT_RULES.get(r.type)
        if key is None:
            continue
        sources = [(id(r), r.name, src) for src, _ in _rule_sources(r)
                   if isinstance(src, str) and src]
        groups = r.deps.get(key, [])
        for g in groups:
            by_group.setdefault(id(g), (g, []))[1].extend(sources)
        named = None if groups or r.cloud != "azure" else _named_nsg(r, key, own_nsgs)
        if named is not None:
            # The stack's own NSG, named by its name and resource group: its rules.
            by_group.setdefault(id(named), (named, []))[1].extend(sources)
            continue
        literal = None if groups else _literal_group(r, key)
        if literal is not None:
            # A group the stack does not create, named by its id (or an NSG by its name and
            # resource group): rules naming the same one are still one group's rules.
            by_group.setdefault(literal, (None, []))[1].extend(sources)
            if sources:
                literal_rules.setdefault(literal, []).append(r)
    out = []
    for key, (group, sources) in by_group.items():
        if len({rule for rule, _, _ in sources}) < 2:
            continue   # one rule (resource or inline entry): its own Analyze call judged it
        nets: dict[int, list] = {4: [], 6: []}
        for _, _, src in sources:
            net = network(src)
            if net is None:
                continue
            if net.prefixlen == 0:
                break   # a world-open rule: reported on that rule itself
            nets[net.version].append(net)
        else:
            for version, world in ((4, "0.0.0.0/0"), (6, "::/0")):
                collapsed = list(ipaddress.collapse_addresses(nets[version]))
                if len(collapsed) == 1 and collapsed[0].prefixlen == 0:
                    names = sorted({label for _, label, _ in sources})
                    # A literal group is in no resource of the stack: the finding goes on the
                    # first of its rules by name, naming the group.
                    subject = group or min(literal_rules[key], key=lambda r: r.name)
                    what = "its ingress rules" if group is not None else \
                        f"the ingress rules on {key[-1]}"
                    out.append(violation(
                        subject, f"{what} together are open to {world}",
                        f"{' + '.join(sorted(str(n) for n in nets[version]))} across rules "
                        f"{', '.join(names)}", "no world-open ingress, in one rule or split",
                        "narrow the rules' sources to known CIDRs"))
    return out


# An NSG's own name input per provider (pulumi-azure-native NetworkSecurityGroup
# networkSecurityGroupName; pulumi-azure network.NetworkSecurityGroup name).
_NSG_NAMES = {"azure-native:network:NetworkSecurityGroup": "networkSecurityGroupName",
              AZURE_CLASSIC_NSG: "name"}


def _nsgs_by_name(resources: list[Resource]) -> dict[tuple[str, str], Resource]:
    """The stack's NSGs by (resource group, name), lower case (Azure names are
    case-insensitive); an NSG left to auto-naming, or whose group cannot be read, is named by
    no literal for certain and is left out."""
    out: dict[tuple[str, str], Resource] = {}
    for g in resources:
        key = _NSG_NAMES.get(g.type)
        name = g.get(key) if key else None
        if not isinstance(name, str) or not name:
            continue
        group = group_key(g)
        if group is not None:
            out[(group, name.lower())] = g
    return out


def _named_nsg(r: Resource, key: str, nsgs: dict[tuple[str, str], Resource]) -> Optional[Resource]:
    """The stack's NSG a standalone rule names by its name and resource group, if any."""
    name, group = r.get(key), group_key(r)
    return nsgs.get((group, name.lower())) if isinstance(name, str) and group else None


def _literal_group(r: Resource, key: str) -> Optional[tuple[str, ...]]:
    """The group a rule names by a literal id that no resource of the stack stands behind, as
    a key (cloud, [resource group,] id); None where it names none, or one unknown at preview
    (an id read at apply may be any group). An Azure NSG name is one only in its resource
    group."""
    name = r.get(key)
    if not isinstance(name, str) or not name:
        return None
    if r.cloud != "azure":
        return (r.cloud, name)
    group = r.get("resourceGroupName")
    return (r.cloud, group.lower(), name.lower()) if isinstance(group, str) and group else None
