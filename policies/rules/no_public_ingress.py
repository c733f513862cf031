"""no-public-ingress: nothing open to the internet except SSH from the configured CIDRs; no public IPs
on nodes.

An ingress rule from 0.0.0.0/0 or ::/0 (Azure: also `*`, `Internet`, `Any`) is a violation
unless it opens only TCP port 22 and that very CIDR is listed in `sshCidrs`. A rule whose sources
together cover the whole address space (0.0.0.0/1 + 128.0.0.0/1) is world-open too, and so is a
GCP ingress allow rule with no source ranges, tags or service accounts (GCP then applies
0.0.0.0/0). Deny rules and disabled rules open nothing. Rules from narrower sources are the
cluster's own business (EFA/IB self rules, the spec's access.ssh_cidrs).
"""
from __future__ import annotations

import ipaddress
from typing import Any, Iterable, Mapping, Optional

from policies.model import UNKNOWN, Resource, UnknownValue, Violation, number, truthy, violation

NAME = "no-public-ingress"
DESCRIPTION = ("No ingress from 0.0.0.0/0 or ::/0 except SSH from the configured CIDRs, and no "
               "public IP addresses on nodes.")
ENFORCEMENT_LEVEL = "mandatory"
KIND = "resource"
SEVERITY = "critical"
REMEDIATION = (
    'Remove the world-open rule or narrow its source to known CIDRs (spec access.ssh_cidrs); '
    "for SSH that must be world-open, list the CIDR in the policy's sshCidrs. Remove public "
    'IPs from nodes; use a NAT gateway for egress and a bastion/IAP/SSM for access.'
)
SCOPE = (
    'Every ingress rule of the four clouds (AWS security groups and rules, GCP firewalls, '
    "Azure NSGs and rules, Alibaba security group rules) and every node's public-IP settings, "
    'for any stack; deny and disabled rules open nothing. '
)
CONFIG_SCHEMA = {
    "sshCidrs": {
        "type": "array", "items": {"type": "string", "minLength": 1}, "default": [],
        "description": "CIDRs allowed to reach TCP port 22 even when they are world-open.",
    },
}

WORLD = {"0.0.0.0/0", "::/0"}
AZURE_WORLD = {"*", "internet", "any", "0.0.0.0/0", "::/0"}


def _world(source: Any, r: Resource, path: str) -> Optional[str]:
    """The source as a world-open CIDR, or None."""
    if source is UNKNOWN:
        raise UnknownValue(r, path)
    if not isinstance(source, str) or not source:
        return None
    if r.cloud == "azure" and source.lower() in AZURE_WORLD:
        return "::/0" if source == "::/0" else "0.0.0.0/0"
    try:
        net = ipaddress.ip_network(source, strict=False)
    except ValueError:
        return None
    return str(net) if net.prefixlen == 0 else None


def _covered(sources: list[tuple[Any, str]], r: Resource) -> list[tuple[Any, str]]:
    """`sources`, plus a synthetic world entry when together they cover all of IPv4 or IPv6."""
    nets: dict[int, list] = {4: [], 6: []}
    for source, path in sources:
        if source is UNKNOWN:
            raise UnknownValue(r, path)
        try:
            net = ipaddress.ip_network(source, strict=False) if isinstance(source, str) else None
        except ValueError:
            net = None
        if net is not None and net.prefixlen:
            nets[net.version].append(net)
    out = list(sources)
    worlds = {str(w) for w in (_world(src, r, p) for src, p in sources) if w}
    for version, world in ((4, "0.0.0.0/0"), (6, "::/0")):
        if world in worlds:
            continue
        collapsed = list(ipaddress.collapse_addresses(nets[version]))
        if len(collapsed) == 1 and collapsed[0].prefixlen == 0:
            split = " + ".join(sorted(str(n) for n in nets[version]))
            out.append((world, f"sources {split} (together all addresses)"))
    return out


def _allowed_ssh(world: str, ssh_only: bool, config: Mapping[str, Any]) -> bool:
    if not ssh_only:
        return False
    listed = set()
    for cidr in config.get("sshCidrs", []) or []:
        try:
            listed.add(str(ipaddress.ip_network(cidr, strict=False)))
        except ValueError:
            continue
    return world in listed


def _ports(low: Any, high: Any) -> str:
    lo, hi = number(low), number(high)
    if lo is None and hi is None:
        return "all ports"
    return f"port {int(lo)}" if lo == hi else f"ports {int(lo or 0)}-{int(hi or 65535)}"


def _open_rule(r: Resource, world: str, ports: str, ssh_only: bool, config,
               path: str = "") -> Violation:
    listed = ", ".join(config.get("sshCidrs", []) or []) or "none"
    fix = ("restrict the source to your office/VPN CIDRs (spec access.ssh_cidrs)" if ssh_only
           else "remove the rule, or narrow its source to known CIDRs")
    if ssh_only:
        fix += f"; or list {world} in the policy's sshCidrs (now: {listed}) if it is intended"
    via = f" ({path})" if path.startswith("sources") else ""
    return violation(r, f"ingress from {world} on {ports}", f"source {world}{via}, {ports}",
                     "no world-open ingress except TCP 22 from the configured sshCidrs", fix)


def _aws_rule(r: Resource, cidrs: Iterable[tuple[Any, str]], protocol: Any, low: Any,
              high: Any, config) -> list[Violation]:
    out = []
    proto = str(protocol).lower()
    ssh_only = proto in ("tcp", "6") and number(low) == 22 and number(high) == 22
    for source, path in _covered(list(cidrs), r):
        world = _world(source, r, path)
        if world and not _allowed_ssh(world, ssh_only, config):
            ports = "all ports" if proto in ("-1", "all") else _ports(low, high)
            out.append(_open_rule(r, world, ports, ssh_only, config, path))
    return out


def _aws(r: Resource, config) -> list[Violation]:
    t = r.type
    if t == "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule":
        return _aws_rule(r, [(r.get("cidrIpv4"), "cidrIpv4"), (r.get("cidrIpv6"), "cidrIpv6")],
                         r.get("ipProtocol"), r.get("fromPort"), r.get("toPort"), config)
    if t == "aws:ec2/securityGroupRule:SecurityGroupRule" and r.get("type") == "ingress":
        cidrs = [(c, "cidrBlocks") for c in r.items("cidrBlocks")]
        cidrs += [(c, "ipv6CidrBlocks") for c in r.items("ipv6CidrBlocks")]
        return _aws_rule(r, cidrs, r.get("protocol"), r.get("fromPort"), r.get("toPort"), config)
    if t == "aws:ec2/securityGroup:SecurityGroup":
        out = []
        for i, rule in enumerate(r.items("ingress")):
            if rule is UNKNOWN:
                raise UnknownValue(r, f"ingress.{i}")
            if not isinstance(rule, dict):
                continue
            cidrs = [(c, f"ingress.{i}.cidrBlocks")
                     for c in r.items(f"ingress.{i}.cidrBlocks", rule.get("cidrBlocks"))]
            cidrs += [(c, f"ingress.{i}.ipv6CidrBlocks")
                      for c in r.items(f"ingress.{i}.ipv6CidrBlocks", rule.get("ipv6CidrBlocks"))]
            out += _aws_rule(r, cidrs, rule.get("protocol"), rule.get("fromPort"),
                             rule.get("toPort"), config)
        return out
    if t == "aws:ec2/launchTemplate:LaunchTemplate":
        public = [n for n in r.items("networkInterfaces")
                  if isinstance(n, dict) and truthy(n.get("associatePublicIpAddress"))]
        if public:
            return [violation(r, "the nodes' network interfaces get public IP addresses",
                              "associatePublicIpAddress \"true\"", "\"false\"",
                              "set associate_public_ip_address=\"false\" on every interface; "
                              "reach nodes through SSH CIDRs, a bastion or SSM")]
    if t == "aws:ec2/instance:Instance" and r.get("associatePublicIpAddress") is True:
        return [violation(r, "the node gets a public IP address", "associatePublicIpAddress true",
                          "false", "set associate_public_ip_address=False")]
    if t == "aws:ec2/subnet:Subnet" and r.get("mapPublicIpOnLaunch") is True:
        return [violation(r, "instances launched in this subnet get public IP addresses",
                          "mapPublicIpOnLaunch true", "false",
                          "set map_public_ip_on_launch=False (the NAT gateway gives egress)")]
    if t == "aws:ec2/eip:Eip" and (r.get("instance") or r.get("networkInterface")):
        return [violation(r, "an Elastic IP is attached to a node",
                          r.get("instance") or r.get("networkInterface"),
                          "Elastic IPs only on NAT gateways",
                          "remove the association; use a NAT gateway for egress")]
    return []


def _gcp_ports(allows: Any) -> tuple[bool, str]:
    """(ssh_only, description) for a firewall's `allows` list."""
    if not isinstance(allows, list) or not allows:
        return False, "all ports"
    ssh_only = all(isinstance(a, dict) and str(a.get("protocol")).lower() in ("tcp", "6")
                   and [str(p) for p in (a.get("ports") or [])] == ["22"] for a in allows)
    parts = []
    for a in allows:
        if isinstance(a, dict):
            ports = a.get("ports") or ["all ports"]
            parts.append(f"{a.get('protocol')} {','.join(map(str, ports))}")
    return ssh_only, "; ".join(parts)


def _gcp(r: Resource, config) -> list[Violation]:
    if r.type == "gcp:compute/firewall:Firewall":
        direction = r.known("direction")
        if str(direction or "INGRESS").upper() != "INGRESS" or r.known("disabled") is True:
            return []
        allows = r.items("allows")
        if not allows:
            return []   # a deny rule (or one that allows nothing) opens nothing
        ssh_only, ports = _gcp_ports(allows)
        ranges = [(source, f"sourceRanges.{i}") for i, source in
                  enumerate(r.items("sourceRanges"))]
        if not ranges and not r.items("sourceTags") and not r.items("sourceServiceAccounts"):
            # GCP: an ingress rule with no source at all applies to 0.0.0.0/0.
            ranges = [("0.0.0.0/0", "sourceRanges (none set: GCP applies 0.0.0.0/0)")]
        out = []
        for source, path in _covered(ranges, r):
            world = _world(source, r, path)
            if world and not _allowed_ssh(world, ssh_only, config):
                out.append(_open_rule(r, world, ports, ssh_only, config, path))
        return out
    if r.type in ("gcp:compute/instanceTemplate:InstanceTemplate",
                  "gcp:compute/regionInstanceTemplate:RegionInstanceTemplate",
                  "gcp:compute/instance:Instance"):
        nics = r.items("networkInterfaces")
        public = [i for i, n in enumerate(nics) if isinstance(n, dict)
                  and (n.get("accessConfigs") or n.get("ipv6AccessConfigs"))]
        if public:
            return [violation(r, "the nodes get external IP addresses",
                              f"accessConfigs on network interface(s) {public}",
                              "no access_configs on any network interface",
                              "remove access_configs; use Cloud NAT for egress and IAP or the "
                              "SSH CIDRs for access")]
    return []


def _azure_rules(r: Resource, rules: list, prefix: str, config) -> list[Violation]:
    out = []
    for i, rule in enumerate(rules):
        if rule is UNKNOWN:
            raise UnknownValue(r, f"{prefix}{i}")
        if not isinstance(rule, dict):
            continue
        if str(rule.get("direction", "")).lower() != "inbound" or \
                str(rule.get("access", "")).lower() != "allow":
            continue
        sources = [(rule.get("sourceAddressPrefix"), f"{prefix}sourceAddressPrefix")]
        sources += [(s, f"{prefix}sourceAddressPrefixes") for s in r.items(
            f"{prefix}sourceAddressPrefixes", rule.get("sourceAddressPrefixes"))]
        ports = [rule.get("destinationPortRange")] + r.items(
            f"{prefix}destinationPortRanges", rule.get("destinationPortRanges"))
        ports = [str(p) for p in ports if p not in (None, "")]
        ssh_only = str(rule.get("protocol", "")).lower() == "tcp" and ports == ["22"]
        for source, path in _covered(sources, r):
            world = _world(source, r, path)
            if world and not _allowed_ssh(world, ssh_only, config):
                shown = "all ports" if not ports or "*" in ports else "ports " + ",".join(ports)
                out.append(_open_rule(r, world, shown, ssh_only, config, path))
    return out


def _azure(r: Resource, config) -> list[Violation]:
    if r.type == "azure-native:network:SecurityRule":
        return _azure_rules(r, [r.props], "", config)
    if r.type == "azure-native:network:NetworkSecurityGroup":
        return _azure_rules(r, r.items("securityRules"), "securityRules.", config)
    if r.type == "azure-native:compute:VirtualMachineScaleSet":
        path = "virtualMachineProfile.networkProfile.networkInterfaceConfigurations"
        public = [ip.get("name") for nic in r.items(path) if isinstance(nic, dict)
                  for ip in r.items(path, nic.get("ipConfigurations"))
                  if isinstance(ip, dict) and ip.get("publicIPAddressConfiguration")]
        if public:
            return [violation(r, "the scale set's VMs get public IP addresses",
                              f"publicIPAddressConfiguration on {', '.join(map(str, public))}",
                              "no publicIPAddressConfiguration",
                              "remove public_ip_address_configuration; use a NAT gateway for "
                              "egress and Bastion or the SSH CIDRs for access")]
    if r.type == "azure-native:network:NetworkInterface":
        public = [ip.get("name") for ip in r.items("ipConfigurations")
                  if isinstance(ip, dict) and ip.get("publicIPAddress")]
        if public:
            return [violation(r, "a network interface has a public IP address",
                              f"publicIPAddress on {', '.join(map(str, public))}",
                              "no publicIPAddress", "remove the public IP from the NIC")]
    return []


def _alicloud(r: Resource, config) -> list[Violation]:
    if r.type == "alicloud:ecs/securityGroupRule:SecurityGroupRule":
        if r.get("type") != "ingress" or str(r.get("policy") or "accept").lower() != "accept":
            return []
        proto = str(r.get("ipProtocol")).lower()
        port_range = str(r.get("portRange") or "-1/-1")
        ssh_only = proto == "tcp" and port_range == "22/22"
        out = []
        for source, path in ((r.get("cidrIp"), "cidrIp"), (r.get("ipv6CidrIp"), "ipv6CidrIp")):
            world = _world(source, r, path)
            if world and not _allowed_ssh(world, ssh_only, config):
                ports = ("all ports" if port_range == "-1/-1" or proto == "all"
                         else f"ports {port_range}")
                out.append(_open_rule(r, world, ports, ssh_only, config, path))
        return out
    if r.type in ("alicloud:ecs/instance:Instance", "alicloud:ecs/ecsInstanceSet:EcsInstanceSet",
                  "alicloud:ess/scalingConfiguration:ScalingConfiguration"):
        bandwidth = r.get("internetMaxBandwidthOut")
        if bandwidth is UNKNOWN:
            raise UnknownValue(r, "internetMaxBandwidthOut")
        if (number(bandwidth) or 0) > 0:
            return [violation(r, "the nodes get public IP addresses",
                              f"internetMaxBandwidthOut {number(bandwidth):g} Mbit/s", "0",
                              "set internet_max_bandwidth_out=0; use a NAT gateway for egress")]
    return []


def check(resource: Resource, config: Mapping[str, Any]) -> list[Violation]:
    handler = {"aws": _aws, "gcp": _gcp, "azure": _azure, "alicloud": _alicloud}.get(
        resource.cloud)
    return handler(resource, config) if handler else []
