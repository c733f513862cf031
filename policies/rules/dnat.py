"""Destination NAT from the internet to a node of the stack (no-public-ingress): a NAT gateway or
firewall translates a port of its public IP to a node's private address, so the node is reachable
from the internet without an address of its own, as through a load balancer's inbound NAT
(public_entries).

- Alibaba NAT gateway DNAT entries (vpc.ForwardEntry) whose internal IP is a node of the stack's;
  an entry of a VPC (intranet) NAT gateway opens nothing to the internet (alicloud_dnat).
- Azure Firewall DNAT rules (a classic firewall's natRuleCollections or a firewall policy's rule
  collection groups) from sources covering all addresses to a node of the stack, SSH from the
  configured CIDRs excepted (azure_firewall_dnat).
"""
from __future__ import annotations

from typing import Any, Optional

from trainstack_policies.model import UNKNOWN, Resource, UnknownValue, Violation, violation
from trainstack_policies.rules.public_entries import AZURE_NIC, azure_private_ips, nic_nodes
from trainstack_policies.rules.world_sources import allowed_ssh, as_world, covered, network, plain_list


_ALI_DNAT = "alicloud:vpc/forwardEntry:ForwardEntry"
_ALI_NODES = ("alicloud:ecs/instance:Instance", "alicloud:ecs/ecsInstanceSet:EcsInstanceSet",
              "alicloud:ecs/ecsNetworkInterface:EcsNetworkInterface",
              "alicloud:vpc/networkInterface:NetworkInterface")
_ALI_NAT_GATEWAY = "alicloud:vpc/natGateway:NatGateway"


def alicloud_dnat(resources: list[Resource]) -> list[Violation]:
    """Alibaba DNAT entries (vpc.ForwardEntry) whose internal IP is a node of the stack's: the
    NAT gateway forwards a port (or, ipProtocol "any", every port) of its public EIP to the node,
    which is then reachable from the internet without an address of its own (NAT Gateway,
    "DNAT"), as through an Azure load balancer's inbound NAT. A DNAT entry of a VPC (intranet)
    NAT gateway maps a private address and opens nothing to the internet. An internalIp written
    as a literal address reaches the node the stack gives that private IP."""
    out = []
    by_ip: Optional[dict[str, list[Resource]]] = None
    for r in resources:
        if r.type != _ALI_DNAT:
            continue
        nodes = [d for d in r.deps.get("internalIp", []) if d.type in _ALI_NODES]
        literal = r.get("internalIp")
        gateways = [d for ds in r.deps.values() for d in ds if d.type == _ALI_NAT_GATEWAY]
        if not nodes and isinstance(literal, str):
            by_ip = _ali_private_ips(resources) if by_ip is None else by_ip
            nodes = by_ip.get(literal.strip(), [])
            # A private address is one VPC's: a node of another VPC than the gateway's is
            # not reached (kept where either VPC cannot be read, or one is the stack's
            # vpc.Network and the other a literal id, which may be the same VPC).
            vpcs = {_ali_vpc(g) for g in gateways} - {None}
            if len(vpcs) == 1:
                (vpc,) = vpcs
                nodes = [n for n in nodes if (v := _ali_vpc(n)) is None or v == vpc
                         or type(v) is not type(vpc)]
        intranet = any(str(d.get("networkType") or "internet").lower() == "intranet"
                       for d in gateways)
        if nodes and not intranet:
            port = "every port" if str(r.get("ipProtocol")).lower() == "any" else \
                f"{r.get('ipProtocol')} {r.get('externalPort')}"
            out.append(violation(r, "a DNAT entry forwards a public port to a node",
                                 f"{port} of the NAT gateway's EIP to "
                                 f"{', '.join(sorted({d.name for d in nodes}))}",
                                 "no DNAT to nodes; SNAT for egress only",
                                 "remove the forward entry; reach the nodes through a bastion "
                                 "or the SSH CIDRs"))
    return out


_AZURE_FIREWALL = "azure-native:network:AzureFirewall"
_AZURE_FIREWALL_RCG = "azure-native:network:FirewallPolicyRuleCollectionGroup"
_AZURE_PIP = "azure-native:network:PublicIPAddress"


def _nat_collections(r: Resource) -> str:
    """The input holding a firewall's NAT rules: an Azure Firewall's classic
    natRuleCollections, a firewall policy rule collection group's ruleCollections."""
    return "natRuleCollections" if r.type == _AZURE_FIREWALL else "ruleCollections"


def _dnat_rules(r: Resource) -> list[tuple[str, dict]]:
    """(path, rule) of each DNAT rule of an Azure Firewall (natRuleCollections, action Dnat:
    the classic rules) or of a firewall policy's rule collection group (ruleCollections of
    ruleCollectionType FirewallPolicyNatRuleCollection, action DNAT, rules of ruleType
    NatRule). An action unknown at preview, or left out, is read as DNAT (the only action a
    policy's NAT collection has)."""
    key = _nat_collections(r)
    out = []
    for i, coll in enumerate(r.items(key)):
        if coll is UNKNOWN:
            raise UnknownValue(r, f"{key}.{i}")
        if not isinstance(coll, dict):
            continue
        if r.type == _AZURE_FIREWALL_RCG and \
                str(coll.get("ruleCollectionType")) != "FirewallPolicyNatRuleCollection":
            continue
        action = coll.get("action")
        kind = action.get("type") if isinstance(action, dict) else None
        if isinstance(kind, str) and kind.lower() != "dnat":
            continue
        for j, rule in enumerate(r.items(f"{key}.{i}.rules", coll.get("rules"))):
            if rule is UNKNOWN:
                raise UnknownValue(r, f"{key}.{i}.rules.{j}")
            if isinstance(rule, dict) and (r.type == _AZURE_FIREWALL
                                           or str(rule.get("ruleType", "NatRule")) == "NatRule"):
                out.append((f"{key}.{i}.rules.{j}", rule))
    return out


def _private_address(value: Any) -> bool:
    net = network(value) if isinstance(value, str) else None
    return net is not None and net.is_private and net.prefixlen == net.max_prefixlen


def _dnat_public(r: Resource, rule: dict, path: str) -> Any:
    """True / UNKNOWN / False: a DNAT rule takes traffic in on a public address of the
    firewall. Private IP DNAT translates traffic sent to the firewall's private address, from
    peered, VPN or ExpressRoute networks, not the internet (learn.microsoft.com/azure/firewall/
    tutorial-private-ip-dnat): a rule whose destinations are all literal private addresses."""
    dests = rule.get("destinationAddresses")
    if isinstance(dests, list) and dests and all(_private_address(d) for d in dests):
        return False
    if isinstance(dests, list) and any(isinstance(d, str) and not _private_address(d)
                                       for d in dests):
        return True
    # Unknown at preview (the firewall's address is an output): public where the firewall
    # has a public IP (classic rules: its own ipConfigurations) or the rules depend on one.
    key = _nat_collections(r)
    if any(d.type == _AZURE_PIP for d in r.deps.get(key, ())) or (
            r.type == _AZURE_FIREWALL and any(isinstance(ip, dict) and ip.get("publicIPAddress")
                                              for ip in plain_list(r.get("ipConfigurations")))):
        return True
    return UNKNOWN


def azure_firewall_dnat(resources: list[Resource], config) -> tuple[list[Violation],
                                                                     Optional[UnknownValue]]:
    """Azure Firewall DNAT rules from the internet to a node of the stack: the firewall
    translates a port of its public IP to the node's private address, which is then
    reachable from the internet without an address of its own ("translate your firewall
    public IP address and port to a private IP address and port": learn.microsoft.com/azure/
    firewall/tutorial-firewall-dnat), as an Alibaba DNAT entry. The node is the stack's NIC
    whose static privateIPAddress is the rule's literal translatedAddress (or the NIC / VM
    the rules depend on where it is unknown at preview), and the VMs using that NIC. A rule
    from sources that do not cover all addresses is the cluster's own business, as an NSG
    rule's (IP groups, whose addresses are not read: "cannot decide"); SSH alone from a
    world CIDR listed in sshCidrs passes."""
    out: list[Violation] = []
    unknown: Optional[UnknownValue] = None
    by_ip: Optional[dict[str, list[Resource]]] = None
    for r in resources:
        if r.type not in (_AZURE_FIREWALL, _AZURE_FIREWALL_RCG):
            continue
        key = _nat_collections(r)
        try:
            rules = _dnat_rules(r)
        except UnknownValue as e:
            unknown = unknown or e
            continue
        for path, rule in rules:
            target = rule.get("translatedAddress")
            if isinstance(target, str):
                by_ip = azure_private_ips(resources) if by_ip is None else by_ip
                nics = by_ip.get(target.strip(), [])
                nodes = nic_nodes(nics, resources)
            elif target is UNKNOWN:
                deps = r.deps.get(key, ())
                nodes = nic_nodes([d for d in deps if d.type == AZURE_NIC], resources) + [
                    d for d in deps if d.type in ("azure-native:compute:VirtualMachine",
                                                  "azure-native:compute:VirtualMachineScaleSet")]
            else:
                nodes = []
            if not nodes:
                continue
            sources = [(src, f"{path}.sourceAddresses")
                       for src in plain_list(rule.get("sourceAddresses"))]
            if rule.get("sourceAddresses") is UNKNOWN:
                unknown = unknown or UnknownValue(r, f"{path}.sourceAddresses")
                continue
            try:
                worlds = {w for w in (as_world(src, r, p) for src, p in covered(sources, r)) if w}
            except UnknownValue as e:
                unknown = unknown or e
                continue
            if not worlds:
                if plain_list(rule.get("sourceIpGroups")) or rule.get("sourceIpGroups") is UNKNOWN:
                    unknown = unknown or UnknownValue(
                        r, f"{path}.sourceIpGroups (the IP groups' addresses are not read: "
                           "they may hold all addresses)")
                continue
            public = _dnat_public(r, rule, path)
            if public is UNKNOWN:
                unknown = unknown or UnknownValue(
                    r, f"{path}.destinationAddresses (whether the rule takes traffic in on a "
                       "public IP of the firewall)")
                continue
            if not public:
                continue
            protocols = [str(p).lower() for p in plain_list(rule.get("protocols")
                                                       or rule.get("ipProtocols"))]
            ssh_only = protocols == ["tcp"] * len(protocols) and bool(protocols) and \
                str(rule.get("translatedPort")).strip() == "22"
            world = sorted(worlds)[0]
            if allowed_ssh(world, ssh_only, config):
                continue
            out.append(violation(r, "a DNAT rule forwards a public port of the firewall to a node",
                                 f"{path} ({rule.get('name')}): {world} to "
                                 f"{', '.join(sorted({n.name for n in nodes}))} "
                                 f"port {rule.get('translatedPort')}",
                                 "no DNAT from the internet to nodes",
                                 "remove the DNAT rule or narrow its sources to known CIDRs; "
                                 "reach the nodes through Bastion or the SSH CIDRs"))
    return out, unknown


def _ali_vpc(r: Resource) -> Any:
    """The VPC of a NAT gateway (vpcId) or a node (its vswitchId's vpcId): the stack's
    vpc.Network it depends on, else a literal id ("id", str), else None (cannot be read)."""
    if r.type != _ALI_NAT_GATEWAY:
        switches = r.deps.get("vswitchId", [])
        if len(switches) != 1:
            return None
        r = switches[0]
    networks = r.deps.get("vpcId", [])
    if networks:
        return id(networks[0]) if len(networks) == 1 else None
    value = r.get("vpcId")
    return ("id", value.strip()) if isinstance(value, str) and value.strip() else None


# The private addresses a program gives an Alibaba node: ecs.Instance and vpc.NetworkInterface
# privateIp / privateIps, ecs.EcsNetworkInterface primaryIpAddress / privateIpAddresses.
_ALI_IP_KEYS = ("privateIp", "primaryIpAddress")
_ALI_IP_LISTS = ("privateIps", "privateIpAddresses")


def _ali_private_ips(resources: list[Resource]) -> dict[str, list[Resource]]:
    by_ip: dict[str, list[Resource]] = {}
    for n in resources:
        if n.type not in _ALI_NODES:
            continue
        ips = [n.get(k) for k in _ALI_IP_KEYS] + [ip for k in _ALI_IP_LISTS
                                                 for ip in plain_list(n.get(k))]
        for ip in {ip.strip() for ip in ips if isinstance(ip, str)}:
            by_ip.setdefault(ip, []).append(n)
    return by_ip
