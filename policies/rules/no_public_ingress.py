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
from functools import lru_cache
from typing import Any, Iterable, Mapping, Optional, Union

from trainstack_policies.inventory import spot_fleet_view
from trainstack_policies.inventory.budgets import RESOURCE_GROUPS, resource_group_key
from trainstack_policies.model import (
    AWS_INTERFACE_KEYS,
    UNKNOWN,
    BadNumber,
    OutsideStack,
    Resource,
    UnknownValue,
    Violation,
    as_list,
    checked_number,
    number,
    truthy,
    violation,
)
from trainstack_policies.rules import front_doors

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
    'Every ingress rule of the four clouds (AWS security groups and rules, aws or aws-native, '
    'and managed prefix lists; GCP firewalls, '
    "Azure NSGs and rules, Alibaba security group rules), every node's public-IP settings, "
    "GPU nodes behind an internet-facing load balancer or Application Gateway, a public front "
    "door or an Azure inbound NAT, and DNAT to nodes (Alibaba NAT gateways, Azure Firewall), "
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


@lru_cache(maxsize=4096)   # a stack repeats a handful of CIDRs on every rule of every group
def _network(source: str) -> Union[ipaddress.IPv4Network, ipaddress.IPv6Network, None]:
    """ipaddress.ip_network(source, strict=False), or None where that raises ValueError (networks
    are immutable, so one parse serves every rule that names the same CIDR)."""
    try:
        return ipaddress.ip_network(source, strict=False)
    except ValueError:
        return None


@lru_cache(maxsize=4096)
def _world_cidr(source: str) -> Optional[str]:
    net = _network(source)
    return str(net) if net is not None and net.prefixlen == 0 else None


def _world(source: Any, r: Resource, path: str) -> Optional[str]:
    """The source as a world-open CIDR, or None."""
    if source is UNKNOWN:
        raise UnknownValue(r, path)
    if not isinstance(source, str) or not source:
        return None
    if r.cloud == "azure" and source.lower() in AZURE_WORLD:
        return "::/0" if source == "::/0" else "0.0.0.0/0"
    return _world_cidr(source)


def _covered(sources: list[tuple[Any, str]], r: Resource) -> list[tuple[Any, str]]:
    """`sources`, plus a synthetic world entry when together they cover all of IPv4 or IPv6."""
    nets: dict[int, list] = {4: [], 6: []}
    for source, path in sources:
        if source is UNKNOWN:
            raise UnknownValue(r, path)
        net = _network(source) if isinstance(source, str) else None
        if net is not None and net.prefixlen:
            nets[net.version].append(net)
    out = list(sources)
    worlds = {str(w) for w in (_world(src, r, p) for src, p in sources) if w}
    for version, world in ((4, "0.0.0.0/0"), (6, "::/0")):
        if world in worlds or len(nets[version]) < 2:
            continue   # one network that is not the whole space cannot collapse into it
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
    if lo is not None and lo == hi:
        return f"port {int(lo)}"
    return f"ports {int(lo or 0)}-{int(hi or 65535)}"


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


_NATIVE_INGRESS = "aws-native:ec2:SecurityGroupIngress"
_NATIVE_SECURITY_GROUP = "aws-native:ec2:SecurityGroup"


def _aws(r: Resource, config) -> list[Violation]:
    t = r.type
    if t == "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule":
        return _aws_rule(r, [(r.get("cidrIpv4"), "cidrIpv4"), (r.get("cidrIpv6"), "cidrIpv6")],
                         r.get("ipProtocol"), r.get("fromPort"), r.get("toPort"), config)
    if t == "aws:ec2/securityGroupRule:SecurityGroupRule":
        cidrs = [(c, "cidrBlocks") for c in r.items("cidrBlocks")]
        cidrs += [(c, "ipv6CidrBlocks") for c in r.items("ipv6CidrBlocks")]
        kind = r.get("type")
        if kind is UNKNOWN and any(_world(c, r, p) for c, p in _covered(cidrs, r)):
            raise UnknownValue(r, "type")
        if kind != "ingress":
            return []
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
    if t == _NATIVE_INGRESS:
        # CloudFormation AWS::EC2::SecurityGroupIngress (pulumi-aws-native: its property names
        # in camelCase): one rule, CidrIp / CidrIpv6, IpProtocol ("-1": all traffic), FromPort,
        # ToPort; a SourcePrefixListId is judged where the prefix list is declared.
        return _aws_rule(r, [(r.get("cidrIp"), "cidrIp"), (r.get("cidrIpv6"), "cidrIpv6")],
                         r.get("ipProtocol"), r.get("fromPort"), r.get("toPort"), config)
    if t == _NATIVE_SECURITY_GROUP:
        # CloudFormation AWS::EC2::SecurityGroup SecurityGroupIngress: a list of the same rules
        # (SecurityGroupEgress opens nothing to the internet).
        out = []
        for i, rule in enumerate(r.items("securityGroupIngress")):
            if rule is UNKNOWN:
                raise UnknownValue(r, f"securityGroupIngress.{i}")
            if not isinstance(rule, dict):
                continue
            out += _aws_rule(r, [(rule.get("cidrIp"), f"securityGroupIngress.{i}.cidrIp"),
                                 (rule.get("cidrIpv6"), f"securityGroupIngress.{i}.cidrIpv6")],
                             rule.get("ipProtocol"), rule.get("fromPort"), rule.get("toPort"),
                             config)
        return out
    if t in ("aws:ec2/managedPrefixList:ManagedPrefixList",
             "aws:ec2/managedPrefixListEntry:ManagedPrefixListEntry",
             # CloudFormation AWS::EC2::PrefixList: Entries [{Cidr, Description}].
             "aws-native:ec2:PrefixList"):
        cidrs = ([(r.get("cidr"), "cidr")] if t.endswith("Entry") else
                 [(e.get("cidr"), f"entries.{i}.cidr") for i, e in enumerate(r.items("entries"))
                  if _nic(r, e, f"entries.{i}")])
        worlds = {w for w in (_world(c, r, p) for c, p in _covered(cidrs, r)) if w}
        if worlds:
            return [violation(r, "the managed prefix list holds the whole internet: every "
                              "security group rule that uses it is world-open",
                              ", ".join(sorted(worlds)), "only known CIDRs",
                              "list your office/VPN CIDRs in the prefix list instead")]
        return []
    if t == "aws:eks/nodeGroup:NodeGroup":
        remote = r.get("remoteAccess")
        if remote is UNKNOWN:
            raise UnknownValue(r, "remoteAccess")
        if isinstance(remote, dict) and remote.get("ec2SshKey"):
            groups = remote.get("sourceSecurityGroupIds")
            if groups is UNKNOWN:
                raise UnknownValue(r, "remoteAccess.sourceSecurityGroupIds")
            if not groups and not _allowed_ssh("0.0.0.0/0", True, config):
                # EKS: an SSH key without source security groups opens port 22 to 0.0.0.0/0.
                return [_open_rule(r, "0.0.0.0/0", "port 22", True, config,
                                   "remoteAccess without sourceSecurityGroupIds")]
        return []
    if t in _LAUNCH_TEMPLATE_SET:
        # _nic and _known, inline: a p5 template has 33 interfaces, and the path of each is
        # only needed to say which one is unknown. An aws-native template's interfaces are
        # under launchTemplateData, the same flag on each (CloudFormation
        # AWS::EC2::LaunchTemplate NetworkInterface.AssociatePublicIpAddress).
        path = _interfaces_path(r)
        public_nics = []
        for i, n in enumerate(r.entries(path, AWS_INTERFACE_KEYS)):
            if n is UNKNOWN:
                raise UnknownValue(r, f"{path}.{i}")
            if not isinstance(n, dict):
                continue
            value = n.get("associatePublicIpAddress")
            if value is UNKNOWN:
                raise UnknownValue(r, f"{path}.{i}.associatePublicIpAddress")
            # truthy(value), inline: asked of every interface of every template ("false",
            # the usual value, first: no strip() and lower() calls for it).
            if value == "false" or value is None:
                continue
            if value is True or (isinstance(value, str) and value.strip().lower() == "true"):
                public_nics.append(n)
        if public_nics:
            return [violation(r, "the nodes' network interfaces get public IP addresses",
                              "associatePublicIpAddress \"true\"", "\"false\"",
                              "set associate_public_ip_address=\"false\" on every interface; "
                              "reach nodes through SSH CIDRs, a bastion or SSM")]
    if (t in _AWS_INSTANCES or t in _AWS_LAUNCH_CONFIGURATIONS) and \
            truthy(r.known("associatePublicIpAddress")):
        # aws-native: CloudFormation AWS::AutoScaling::LaunchConfiguration AssociatePublicIpAddress,
        # the same switch for every instance of the group.
        return [violation(r, "the node gets a public IP address", "associatePublicIpAddress true",
                          "false", "set associate_public_ip_address=False")]
    if t == "aws-native:ec2:Instance":
        # CloudFormation AWS::EC2::Instance has no top-level switch: an interface's
        # AssociatePublicIpAddress true gives the instance a public IPv4 address (EC2 API
        # InstanceNetworkInterfaceSpecification.AssociatePublicIpAddress, "Indicates whether to
        # assign a public IPv4 address to an instance"), whatever the subnet maps on launch.
        public = []
        for i, n in enumerate(r.entries("networkInterfaces", AWS_INTERFACE_KEYS)):
            if _nic(r, n, f"networkInterfaces.{i}") and \
                    truthy(_known(r, n, "associatePublicIpAddress", f"networkInterfaces.{i}")):
                public.append(i)
        if public:
            return [violation(r, "the node gets a public IP address",
                              f"associatePublicIpAddress true on network interface(s) {public}",
                              "false", "set associate_public_ip_address=False on every network "
                              "interface; reach nodes through SSH CIDRs, a bastion or SSM")]
    if t == "aws:ec2/spotFleetRequest:SpotFleetRequest" or t == _NATIVE_SPOT_FLEET:
        # Launch specifications take an instance's inputs (pulumi-aws SpotFleetRequest
        # launch_specifications[].associate_public_ip_address); an aws-native SpotFleet's
        # (CloudFormation SpotFleetLaunchSpecification) hold it on their interfaces, which
        # spot_fleet_view reads into the same flat input.
        r = spot_fleet_view(r)
        public = [i for i, spec in enumerate(r.entries("launchSpecifications",
                                                        ("associatePublicIpAddress",)))
                  if _nic(r, spec, f"launchSpecifications.{i}")
                  and truthy(_known(r, spec, "associatePublicIpAddress",
                                    f"launchSpecifications.{i}"))]
        if public:
            return [violation(r, "the fleet's nodes get public IP addresses",
                              f"associatePublicIpAddress true on launch specification(s) {public}",
                              "false", "set associate_public_ip_address=False on every launch "
                              "specification")]
    if t == AWS_SUBNET or t == AWS_NATIVE_SUBNET:
        # A public subnet is judged with the stack (check_stack): whether it is an edge subnet
        # depends on what is placed in it, which one Analyze call cannot see. An unknown
        # mapPublicIpOnLaunch is undecided here, and the stack look leaves it alone.
        r.known("mapPublicIpOnLaunch")
        return []
    if t == "aws:ec2/eip:Eip" and (r.get("instance") or r.get("networkInterface")):
        return [violation(r, "an Elastic IP is attached to a node",
                          r.get("instance") or r.get("networkInterface"),
                          "Elastic IPs only on NAT gateways",
                          "remove the association; use a NAT gateway for egress")]
    # The association, not the Eip, names the node when the address is attached apart (aws-native:
    # CloudFormation AWS::EC2::EIPAssociation, with the same InstanceId / NetworkInterfaceId).
    if t in ("aws:ec2/eipAssociation:EipAssociation", "aws-native:ec2:EipAssociation") and (
            r.get("instanceId") or r.get("networkInterfaceId")):
        return [violation(r, "an Elastic IP is associated with a node",
                          r.get("instanceId") or r.get("networkInterfaceId"),
                          "Elastic IPs only on NAT gateways",
                          "remove the association; use a NAT gateway for egress")]
    # aws-native (CloudFormation AWS::EC2::EIP InstanceId): the same address on the same node.
    if t == "aws-native:ec2:Eip" and r.get("instanceId"):
        return [violation(r, "an Elastic IP is attached to a node", r.get("instanceId"),
                          "Elastic IPs only on NAT gateways",
                          "remove instanceId; use a NAT gateway for egress")]
    return []


def _ip_configurations_with(r: Resource, path: str, key: str) -> list:
    """The names of the IP configurations under `path` (a list of NIC configurations, each with
    `ipConfigurations`) that set `key` (a public IP configuration): an azure-native VM's or
    scale set's networkInterfaceConfigurations, the legacy classic set's networkProfiles. A NIC,
    IP configuration or `key` unknown at preview raises UnknownValue (_nic, _known)."""
    return [ip.get("name") for i, nic in enumerate(r.items(path))
            if _nic(r, nic, f"{path}.{i}")
            for j, ip in enumerate(r.items(f"{path}.{i}.ipConfigurations",
                                           nic.get("ipConfigurations")))
            if _nic(r, ip, f"{path}.{i}.ipConfigurations.{j}")
            and _known(r, ip, key, f"{path}.{i}.ipConfigurations.{j}")]


def _nic(r: Resource, value: Any, path: str) -> bool:
    """A list entry that is a dict; an entry unknown at preview cannot be judged."""
    if value is UNKNOWN:
        raise UnknownValue(r, path)
    return isinstance(value, dict)


def _known(r: Resource, entry: dict, key: str, path: str) -> Any:
    """r.known(f"{path}.{key}") for `entry`, the dict at `path`: read from the entry itself
    instead of walking the path again from the resource's inputs."""
    value = entry.get(key)
    if value is UNKNOWN:
        raise UnknownValue(r, f"{path}.{key}")
    return value


def _edge_tagged(subnet: Resource) -> bool:
    """A public subnet whose own tag says it holds only NAT gateways / load balancers
    (trainstack:subnet-role = edge, or the EKS/ELB convention kubernetes.io/role/elb = 1)."""
    tags = subnet.known("tags")
    unread = False
    if isinstance(tags, list):
        # aws-native (CloudFormation AWS::EC2::Subnet Tags): a list of {key, value}; an entry
        # unknown at preview may be the edge tag.
        unread = any(t is UNKNOWN or (isinstance(t, dict) and (
            t.get("key") is UNKNOWN or t.get("value") is UNKNOWN)) for t in tags)
        tags = {str(t.get("key")): t.get("value") for t in tags
                if isinstance(t, dict) and t.get("key") is not UNKNOWN}
    if not isinstance(tags, dict):
        return False
    if str(tags.get("trainstack:subnet-role", "")).lower() == "edge" or \
            str(tags.get("kubernetes.io/role/elb", "")) == "1":
        return True
    if unread:
        raise UnknownValue(subnet, "tags")
    return False


AWS_SUBNET = "aws:ec2/subnet:Subnet"
AWS_NATIVE_SUBNET = "aws-native:ec2:Subnet"
# A subnet of the stack behind a placement, aws or aws-native (CloudFormation AWS::EC2::Subnet).
_SUBNETS = (AWS_SUBNET, AWS_NATIVE_SUBNET)
_SUBNET_SET = frozenset(_SUBNETS)
# What may sit in a public subnet without a node getting a public IP: NAT gateways and load
# balancers (the edge), and what only describes the subnet (routes, ACLs, endpoints).
EDGE = frozenset({
    "aws:ec2/natGateway:NatGateway", "aws:lb/loadBalancer:LoadBalancer",
    "aws:alb/loadBalancer:LoadBalancer", "aws:elb/loadBalancer:LoadBalancer",
    # aws-native (CloudFormation AWS::EC2::NatGateway, AWS::ElasticLoadBalancingV2::
    # LoadBalancer, AWS::ElasticLoadBalancing::LoadBalancer).
    "aws-native:ec2:NatGateway", "aws-native:elasticloadbalancingv2:LoadBalancer",
    "aws-native:elasticloadbalancing:LoadBalancer",
})
PLACES_NOTHING = frozenset({
    "aws:ec2/routeTableAssociation:RouteTableAssociation",
    "aws:ec2/networkAclAssociation:NetworkAclAssociation", "aws:ec2/networkAcl:NetworkAcl",
    "aws:ec2/vpcEndpoint:VpcEndpoint",
    "aws:ec2/vpcEndpointSubnetAssociation:VpcEndpointSubnetAssociation",
    "aws:ec2/subnetCidrReservation:SubnetCidrReservation",
    "aws-native:ec2:SubnetRouteTableAssociation", "aws-native:ec2:SubnetNetworkAclAssociation",
    "aws-native:ec2:VpcEndpoint", "aws-native:ec2:SubnetCidrBlock",
})
# AWS compute and the inputs that name its subnets: where one is unknown and depends on no
# subnet of the stack, the nodes may land in any subnet, a public one included.
_PLACEMENT = {
    "aws:autoscaling/group:Group": ("vpcZoneIdentifiers",),
    "aws:ec2/instance:Instance": ("subnetId",),
    "aws:ec2/spotInstanceRequest:SpotInstanceRequest": ("subnetId",),
    # CloudFormation AWS::AutoScaling::AutoScalingGroup VPCZoneIdentifier and AWS::EC2::Instance
    # SubnetId / NetworkInterfaces[].SubnetId, through aws-native.
    "aws-native:autoscaling:AutoScalingGroup": ("vpcZoneIdentifier",),
    "aws-native:ec2:Instance": ("subnetId", "networkInterfaces"),
    "aws:eks/nodeGroup:NodeGroup": ("subnetIds",),
    "aws:ec2/launchTemplate:LaunchTemplate": ("networkInterfaces",),
    "aws:ec2/spotFleetRequest:SpotFleetRequest": ("launchTemplateConfigs",
                                                  "launchSpecifications"),
    # CloudFormation AWS::EC2::SpotFleet, read through spot_fleet_view: the same inputs.
    "aws-native:ec2:SpotFleet": ("launchTemplateConfigs", "launchSpecifications"),
    "aws:ec2/fleet:Fleet": ("launchTemplateConfigs",),
    "aws-native:ec2:Ec2Fleet": ("launchTemplateConfigs",),
}


def _false(value: Any) -> bool:
    return value is False or (isinstance(value, str) and value.strip().lower() == "false")


# CloudFormation AWS::EC2::SpotFleet (read through inventory's spot_fleet_view), and the two
# Spot Fleet requests.
_NATIVE_SPOT_FLEET = "aws-native:ec2:SpotFleet"
_SPOT_FLEETS = ("aws:ec2/spotFleetRequest:SpotFleetRequest", _NATIVE_SPOT_FLEET)
# An instance and a Spot Instance request (which takes an instance's inputs and launches one).
_AWS_INSTANCES = ("aws:ec2/instance:Instance", "aws:ec2/spotInstanceRequest:SpotInstanceRequest")


def _declines_public_ip(r: Resource) -> bool:
    """Compute that turns public IPs off itself (the interface's associatePublicIpAddress
    overrides the subnet's mapPublicIpOnLaunch): an instance, a launch template whose every
    interface says false, or a group / fleet whose every launch template does."""
    if r.type in _AWS_INSTANCES or r.type in _AWS_LAUNCH_CONFIGURATIONS:
        return _false(r.get("associatePublicIpAddress"))
    if r.type == "aws-native:ec2:Instance":
        # CloudFormation AWS::EC2::Instance has no top-level setting: each interface's
        # NetworkInterfaces[].AssociatePublicIpAddress.
        nics = r.get("networkInterfaces")
        return isinstance(nics, list) and bool(nics) and all(
            isinstance(n, dict) and _false(n.get("associatePublicIpAddress")) for n in nics)
    if r.type in _SPOT_FLEETS and r.get("launchSpecifications"):
        specs = r.get("launchSpecifications")
        specs = [specs] if isinstance(specs, dict) else specs
        return isinstance(specs, list) and bool(specs) and all(
            isinstance(s, dict) and _false(s.get("associatePublicIpAddress")) for s in specs)
    if r.type in _AWS_LAUNCH_TEMPLATES:
        # The keys read of each interface: as its Analyze call read them (the view keeps
        # that reading; rdma-for-multinode asks the same), not the 33 interfaces of a p5
        # template decoded whole.
        nics = r.list_entries(_interfaces_path(r), AWS_INTERFACE_KEYS)
        if not nics:
            return False   # no list, or an empty one
        return all(isinstance(n, dict) and _false(n.get("associatePublicIpAddress"))
                   for n in nics)
    templates = _launch_templates(r, with_configurations=True)
    return bool(templates) and all(_declines_public_ip(t) for t in templates)


_AWS_TEMPLATE_KEYS = ("launchTemplate", "mixedInstancesPolicy", "launchTemplateConfigs")
# aws and aws-native (CloudFormation's AWS::EC2::LaunchTemplate keeps its settings under
# launchTemplateData; an aws-native group names its configuration by launchConfigurationName).
_AWS_LAUNCH_TEMPLATES = ("aws:ec2/launchTemplate:LaunchTemplate", "aws-native:ec2:LaunchTemplate")
_LAUNCH_TEMPLATE_SET = frozenset(_AWS_LAUNCH_TEMPLATES)
_AWS_LAUNCH_CONFIGURATIONS = ("aws:ec2/launchConfiguration:LaunchConfiguration",
                              "aws-native:autoscaling:LaunchConfiguration")


def _launch_templates(r: Resource, with_configurations: bool = False) -> list[Resource]:
    """The stack's launch templates a group, fleet or instance launches from (and, asked, its
    launch configuration, which holds associatePublicIpAddress but no interfaces)."""
    keys = _AWS_TEMPLATE_KEYS + (("launchConfiguration", "launchConfigurationName")
                                 if with_configurations else ())
    kinds = _AWS_LAUNCH_TEMPLATES + _AWS_LAUNCH_CONFIGURATIONS if with_configurations else \
        _AWS_LAUNCH_TEMPLATES
    return [d for key in keys for d in r.deps.get(key, []) if d.type in kinds]


def _interfaces_path(template: Resource) -> str:
    """Where a launch template keeps its network interfaces (aws: networkInterfaces;
    aws-native: under launchTemplateData)."""
    return "launchTemplateData.networkInterfaces" \
        if template.type == "aws-native:ec2:LaunchTemplate" else "networkInterfaces"


def _template_interfaces(template: Resource) -> Any:
    """A launch template's network interfaces."""
    return template.get(_interfaces_path(template))


def _unknown_subnet(r: Resource) -> Optional[str]:
    """The input of compute `r` that names a subnet unknown at preview, with no subnet of the
    stack behind it (a value from elsewhere), or None. Compute that names no subnet of its own
    launches into its launch templates' interface subnets: those are read instead."""
    keys = _PLACEMENT.get(r.type)
    if not keys:
        return None
    deps = r.deps
    own = False
    for key in keys:
        placed = False
        for d in deps.get(key, ()):
            if d.type in _SUBNET_SET:
                placed = True
                break
        if placed:
            own = True
            continue
        value = r.get(key)
        if value is UNKNOWN or _holds_unknown_subnet(value):
            return key
        own = own or bool(value)   # an empty list or string names no subnet
    if own or r.type in _LAUNCH_TEMPLATE_SET:
        return None
    for t in _launch_templates(r):
        if _unknown_subnet(t) is not None:
            return f"networkInterfaces of its launch template {t.name}"
    return None


_SUBNET_KEYS = frozenset(("subnetId", "subnetIds"))


def _holds_unknown_subnet(value: Any) -> bool:
    # Loops, not generators, and a call only for a list or dict: this walks every placement
    # input of the stack's AWS compute once per stack (packspeed16).
    if isinstance(value, list):
        for v in value:
            if v is UNKNOWN or (isinstance(v, (list, dict)) and _holds_unknown_subnet(v)):
                return True
        return False
    if isinstance(value, dict):
        for k, v in value.items():
            if k in _SUBNET_KEYS:
                if v is UNKNOWN:
                    return True
            elif isinstance(v, (list, dict)) and _holds_unknown_subnet(v):
                return True
        return False
    return False


def _public_subnets(resources: list[Resource]) -> tuple[list[Violation], Optional[UnknownValue]]:
    """Public AWS subnets (aws or aws-native, mapPublicIpOnLaunch true) judged by what is
    placed in them: any
    instance, group, launch template or other resource that depends on the subnet gets a public
    IP there (a violation, whatever the subnet's tags say); one referenced only by NAT gateways
    and load balancers, or tagged as an edge subnet, holds none."""
    public = [r for r in resources if r.type in _SUBNET_SET
              and truthy(r.get("mapPublicIpOnLaunch"))]
    if not public:
        return [], _unknown_placement(resources)
    ids = {id(s) for s in public}
    placed: dict[int, list[Resource]] = {}
    edge: set[int] = set()
    unplaced: list[tuple[Resource, str]] = []
    for r in resources:
        for deps in r.deps.values():
            for d in deps:
                if id(d) not in ids or r.type in PLACES_NOTHING:
                    continue
                if r.type in EDGE:
                    edge.add(id(d))
                elif _declines_public_ip(r):
                    continue
                elif r not in placed.setdefault(id(d), []):
                    placed[id(d)].append(r)
        key = _unknown_subnet(r)
        if key is not None:
            unplaced.append((r, key))
    out: list[Violation] = []
    unknown: Optional[UnknownValue] = None
    fix = ("set map_public_ip_on_launch=False (the NAT gateway gives egress), or place the "
           "nodes in a private subnet")
    for s in public:
        if placed.get(id(s)):
            names = ", ".join(f"{r.name} ({r.type})" for r in placed[id(s)][:5])
            out.append(violation(s, "instances launched in this subnet get public IP addresses",
                                 f"mapPublicIpOnLaunch true, and placed in it: {names}",
                                 "false, or only NAT gateways / load balancers in it", fix))
            continue
        try:
            edge_only = id(s) in edge or _edge_tagged(s)
        except UnknownValue as err:
            unknown = unknown or err
            continue
        if not edge_only:
            out.append(violation(s, "instances launched in this subnet get public IP addresses",
                                 "mapPublicIpOnLaunch true", "false", fix))
        else:
            # An edge subnet, unless compute whose subnet is unknown lands in it: compute, not
            # a launch template (a group naming its own subnets is placed by them, one naming
            # none reaches its template's interfaces in _unknown_subnet), and not compute that
            # turns public IPs off itself (review60 DEFECT 2).
            first = _first_placed_unknown(unplaced)
            if first is not None:
                r, key = first
                unknown = unknown or UnknownValue(r, f"{key} (a subnet unknown at preview may "
                                                     f"be the public subnet {s.name})")
    return out, unknown or _first_unplaced(unplaced)


def _unknown_placement(resources: list[Resource]) -> Optional[UnknownValue]:
    """"cannot decide" for AWS compute placed in a subnet unknown at preview with no subnet of
    the stack behind it (a stack reference, a data source), unless it turns public IPs off
    itself: that subnet's mapPublicIpOnLaunch may be true, and then its nodes get public IPs
    (docs: a group whose subnets are unknown at preview with no subnet of the stack behind
    them is "cannot decide")."""
    # The type first: a launch template is never this answer (what launches from it is), so
    # its interfaces are not walked here.
    return _first_unplaced((r, _unknown_subnet(r)) for r in resources
                           if r.type in _PLACEMENT and r.type not in _LAUNCH_TEMPLATE_SET)


def _first_placed_unknown(unplaced: Iterable[tuple[Resource, Optional[str]]]
                          ) -> Optional[tuple[Resource, str]]:
    """The first compute (not a launch template, not one turning public IPs off itself)
    placed in a subnet unknown at preview, with the input that names it."""
    for r, key in unplaced:
        if key is None or r.type in _LAUNCH_TEMPLATE_SET or _declines_public_ip(r):
            continue
        return r, key
    return None


def _first_unplaced(unplaced: Iterable[tuple[Resource, Optional[str]]]) -> Optional[UnknownValue]:
    """_unknown_placement's answer from (resource, _unknown_subnet(resource)) in stack order
    (_public_subnets has them already: the stack is not walked twice)."""
    first = _first_placed_unknown(unplaced)
    if first is None:
        return None
    r, key = first
    return UnknownValue(r, f"{key} (a subnet unknown at preview, with no subnet of the "
                           "stack behind it: its mapPublicIpOnLaunch may be true, giving "
                           "the nodes public IP addresses)")


# A MIG's per-instance configs (zonal and regional), which may preserve an external IP per VM.
_GCP_PER_INSTANCE = ("gcp:compute/perInstanceConfig:PerInstanceConfig",
                     "gcp:compute/regionPerInstanceConfig:RegionPerInstanceConfig")


def _gcp_ports(r: Resource, allows: list) -> tuple[bool, str]:
    """(ssh_only, description) for a firewall's `allows` list; ports unknown at preview raise
    UnknownValue (asked only once a source is world-open)."""
    parts, ssh_only = [], True
    for i, a in enumerate(allows):
        if not _nic(r, a, f"allows.{i}"):
            ssh_only = False
            continue
        ports = a.get("ports")
        if ports is UNKNOWN or (isinstance(ports, list) and UNKNOWN in ports):
            raise UnknownValue(r, f"allows.{i}.ports")
        ports = [str(p) for p in ports] if isinstance(ports, list) else []
        protocol = a.get("protocol")
        if protocol is UNKNOWN:
            raise UnknownValue(r, f"allows.{i}.protocol")
        ssh_only = ssh_only and str(protocol).lower() in ("tcp", "6") and ports == ["22"]
        parts.append(f"{protocol} {','.join(ports) or 'all ports'}")
    return ssh_only, "; ".join(parts)


def _gcp(r: Resource, config) -> list[Violation]:
    if r.type == "gcp:compute/firewall:Firewall":
        direction = r.known("direction")
        if str(direction or "INGRESS").upper() != "INGRESS" or r.known("disabled") is True:
            return []
        allows = r.items("allows")
        if not allows:
            return []   # a deny rule (or one that allows nothing) opens nothing
        ranges = [(source, f"sourceRanges.{i}") for i, source in
                  enumerate(r.items("sourceRanges"))]
        if not ranges and not r.items("sourceTags") and not r.items("sourceServiceAccounts"):
            # GCP: an ingress rule with no source at all applies to 0.0.0.0/0.
            ranges = [("0.0.0.0/0", "sourceRanges (none set: GCP applies 0.0.0.0/0)")]
        worlds = [(w, path) for w, path in ((_world(src, r, p), p) for src, p in
                                            _covered(ranges, r)) if w]
        if not worlds:
            return []   # a private source: the ports do not matter
        ssh_only, ports = _gcp_ports(r, allows)
        return [_open_rule(r, world, ports, ssh_only, config, path) for world, path in worlds
                if not _allowed_ssh(world, ssh_only, config)]
    if r.type in ("gcp:compute/networkFirewallPolicyRule:NetworkFirewallPolicyRule",
                  "gcp:compute/regionNetworkFirewallPolicyRule:RegionNetworkFirewallPolicyRule",
                  "gcp:compute/firewallPolicyRule:FirewallPolicyRule"):
        ranges = [(src, f"match.srcIpRanges.{i}")
                  for i, src in enumerate(r.items("match.srcIpRanges"))]
        worlds = [(w, p) for w, p in ((_world(src, r, p), p) for src, p in _covered(ranges, r))
                  if w]
        if not worlds:
            return []
        if str(r.known("direction") or "INGRESS").upper() != "INGRESS" or \
                str(r.known("action")).lower() != "allow" or r.known("disabled") is True:
            return []
        layer4 = [{"protocol": c.get("ipProtocol"), "ports": c.get("ports")}
                  if isinstance(c, dict) else c for c in r.items("match.layer4Configs")]
        ssh_only, ports = _gcp_ports(r, layer4) if layer4 else (False, "all ports")
        return [_open_rule(r, w, ports, ssh_only, config, p) for w, p in worlds
                if not _allowed_ssh(w, ssh_only, config)]
    if r.type in ("gcp:container/cluster:Cluster", "gcp:container/nodePool:NodePool"):
        private = (r.get("privateClusterConfig.enablePrivateNodes")
                   if r.type.endswith("Cluster") else r.get("networkConfig.enablePrivateNodes"))
        if r.type.endswith("Cluster") and private is None:
            private = r.get("networkConfig.defaultEnablePrivateNodes")
        if private is UNKNOWN:
            raise UnknownValue(r, "privateClusterConfig.enablePrivateNodes")
        if private is False or (private is None and r.type.endswith("Cluster")
                                and not r.get("autopilot")):
            # GKE nodes get external IPs unless private nodes are enabled.
            return [violation(r, "the GKE nodes get external IP addresses",
                              f"enablePrivateNodes {private}", "true",
                              "set private_cluster_config.enable_private_nodes=True (node "
                              "pools: network_config.enable_private_nodes=True)")]
        return []
    if r.type in _GCP_PER_INSTANCE:
        # A MIG's per-instance config preserving an external IP on an interface: "assign
        # specific IP addresses to each VM instance in a MIG", external IPv4 included
        # (cloud.google.com/compute/docs/instance-groups/configuring-stateful-ip-addresses-in-
        # migs): that VM gets the address, whatever its template says (review61 DEFECT 5).
        ips = r.get("preservedState.externalIps")
        if ips is UNKNOWN or r.get("preservedState") is UNKNOWN:
            raise UnknownValue(r, "preservedState.externalIps")
        entries = as_list(ips)
        if entries:
            names = [e.get("interfaceName") if isinstance(e, dict) else e for e in entries]
            return [violation(r, "the managed instance group's VM gets an external IP address",
                              f"preservedState.externalIps on interface(s) "
                              f"{['unknown' if n is UNKNOWN else n for n in names]}",
                              "no preserved external IPs",
                              "remove preserved_state.external_ip; use Cloud NAT for egress "
                              "and IAP or the SSH CIDRs for access")]
        return []
    if r.type in ("gcp:compute/instanceTemplate:InstanceTemplate",
                  "gcp:compute/regionInstanceTemplate:RegionInstanceTemplate",
                  "gcp:compute/instance:Instance",
                  "gcp:compute/instanceFromTemplate:InstanceFromTemplate"):
        nics = r.entries("networkInterfaces", ("accessConfigs", "ipv6AccessConfigs"))
        public = [i for i, n in enumerate(nics) if _nic(r, n, f"networkInterfaces.{i}")
                  and (_known(r, n, "accessConfigs", f"networkInterfaces.{i}")
                       or _known(r, n, "ipv6AccessConfigs", f"networkInterfaces.{i}"))]
        if public:
            keys = [k for k in ("accessConfigs", "ipv6AccessConfigs")
                    if any(_known(r, nics[i], k, f"networkInterfaces.{i}") for i in public)]
            return [violation(r, "the nodes get external IP addresses",
                              f"{' and '.join(keys)} on network interface(s) {public}",
                              "no access_configs or ipv6_access_configs on any network "
                              "interface",
                              "remove access_configs and ipv6_access_configs; use Cloud NAT "
                              "for egress and IAP or the SSH CIDRs for access")]
    return []


def _azure_rules(r: Resource, rules: list, prefix: str, config) -> list[Violation]:
    out = []
    for i, rule in enumerate(rules):
        if rule is UNKNOWN:
            raise UnknownValue(r, f"{prefix}{i}")
        if not isinstance(rule, dict):
            continue
        sources = [(rule.get("sourceAddressPrefix"), f"{prefix}sourceAddressPrefix")]
        sources += [(s, f"{prefix}sourceAddressPrefixes") for s in r.items(
            f"{prefix}sourceAddressPrefixes", rule.get("sourceAddressPrefixes"))]
        if not any(_world(src, r, p) for src, p in _covered(sources, r)):
            continue   # a private source opens nothing to the internet, whatever its direction
        for key in ("direction", "access"):
            if rule.get(key) is UNKNOWN:
                raise UnknownValue(r, f"{prefix}{key}")
        if str(rule.get("direction", "")).lower() != "inbound" or \
                str(rule.get("access", "")).lower() != "allow":
            continue
        ports: list[Any] = [rule.get("destinationPortRange")] + r.items(
            f"{prefix}destinationPortRanges", rule.get("destinationPortRanges"))
        ports = [str(p) for p in ports if p not in (None, "")]
        ssh_only = str(rule.get("protocol", "")).lower() == "tcp" and ports == ["22"]
        for source, path in _covered(sources, r):
            world = _world(source, r, path)
            if world and not _allowed_ssh(world, ssh_only, config):
                shown = "all ports" if not ports or "*" in ports else "ports " + ",".join(ports)
                out.append(_open_rule(r, world, shown, ssh_only, config, path))
    return out


_AZURE_CLASSIC_RULE = "azure:network/networkSecurityRule:NetworkSecurityRule"
_AZURE_CLASSIC_NSG = "azure:network/networkSecurityGroup:NetworkSecurityGroup"
_AZURE_CLASSIC_AKS_CLUSTER = "azure:containerservice/kubernetesCluster:KubernetesCluster"
_AZURE_CLASSIC_AKS_POOL = ("azure:containerservice/kubernetesClusterNodePool:"
                           "KubernetesClusterNodePool")
_CLASSIC_NODE_PUBLIC_IP = ("nodePublicIpEnabled", "enableNodePublicIp")
_AZURE_CLASSIC_VMSS = ("azure:compute/linuxVirtualMachineScaleSet:LinuxVirtualMachineScaleSet",
                       "azure:compute/windowsVirtualMachineScaleSet:WindowsVirtualMachineScaleSet",
                       "azure:compute/orchestratedVirtualMachineScaleSet:"
                       "OrchestratedVirtualMachineScaleSet")


def _azure(r: Resource, config) -> list[Violation]:
    if r.type in (_AZURE_CLASSIC_RULE, "azure-native:network:SecurityRule"):
        return _azure_rules(r, [r.props], "", config)
    if r.type in ("azure-native:network:NetworkSecurityGroup", _AZURE_CLASSIC_NSG):
        return _azure_rules(r, r.items("securityRules"), "securityRules.", config)
    if r.type in ("azure-native:compute:VirtualMachineScaleSet",
                  "azure-native:compute:VirtualMachine"):
        # A VM may create its NICs itself (networkProfile.networkInterfaceConfigurations, with
        # networkApiVersion; the Flexible scale set's way), public IP configuration included.
        path = ("virtualMachineProfile.networkProfile.networkInterfaceConfigurations"
                if r.type.endswith("ScaleSet") else "networkProfile.networkInterfaceConfigurations")
        public = _ip_configurations_with(r, path, "publicIPAddressConfiguration")
        if public:
            return [violation(r, "the scale set's VMs get public IP addresses"
                              if r.type.endswith("ScaleSet") else "the VM gets a public IP address",
                              f"publicIPAddressConfiguration on {', '.join(map(str, public))}",
                              "no publicIPAddressConfiguration",
                              "remove public_ip_address_configuration; use a NAT gateway for "
                              "egress and Bastion or the SSH CIDRs for access")]
    if r.type in ("azure-native:containerservice:AgentPool",
                  "azure-native:containerservice:ManagedCluster"):
        # enableNodePublicIP: "whether each node is allocated its own public IP" (AgentPool,
        # and each of a ManagedCluster's agentPoolProfiles).
        if r.type.endswith("AgentPool"):
            public = [r.name] if truthy(r.known("enableNodePublicIP")) else []
        else:
            public = [str(p.get("name")) for i, p in enumerate(r.entries(
                          "agentPoolProfiles", ("name", "enableNodePublicIP")))
                      if _nic(r, p, f"agentPoolProfiles.{i}") and truthy(_known(
                          r, p, "enableNodePublicIP", f"agentPoolProfiles.{i}"))]
        if public:
            return [violation(r, "the AKS nodes get public IP addresses",
                              f"enableNodePublicIP true on {', '.join(public)}", "false",
                              "set enable_node_public_ip=False; use a NAT gateway for egress")]
        return []
    if r.type in (_AZURE_CLASSIC_AKS_CLUSTER, _AZURE_CLASSIC_AKS_POOL):
        # The classic provider's names for the same setting: nodePublicIpEnabled (pulumi-azure
        # v6, azurerm 4 node_public_ip_enabled: "Should each node have a Public IP Address?")
        # and enableNodePublicIp (v5, enable_node_public_ip), on a KubernetesClusterNodePool
        # and on a KubernetesCluster's defaultNodePool.
        if r.type == _AZURE_CLASSIC_AKS_POOL:
            pool, path = r.props, ""
        else:
            pool, path = r.get("defaultNodePool"), "defaultNodePool."
            if pool is UNKNOWN:
                raise UnknownValue(r, "defaultNodePool")
        if not isinstance(pool, dict):
            return []
        named = [key for key in _CLASSIC_NODE_PUBLIC_IP
                 if truthy(_known(r, pool, key, "defaultNodePool") if path else r.known(key))]
        if named:
            where = f"the default node pool {pool.get('name')!r}" if path else "the node pool"
            return [violation(r, "the AKS nodes get public IP addresses",
                              f"{named[0]} true on {where}", "false",
                              "set node_public_ip_enabled=False; use a NAT gateway for egress")]
        return []
    if r.type in _AZURE_CLASSIC_VMSS:
        public = []
        for i, nic in enumerate(r.items("networkInterfaces")):
            if not _nic(r, nic, f"networkInterfaces.{i}"):
                continue
            for j, ip in enumerate(r.items(f"networkInterfaces.{i}.ipConfigurations")):
                if _nic(r, ip, f"networkInterfaces.{i}.ipConfigurations.{j}") and \
                        r.known(f"networkInterfaces.{i}.ipConfigurations.{j}.publicIpAddresses"):
                    public.append(str(ip.get("name")))
        if public:
            return [violation(r, "the scale set's VMs get public IP addresses",
                              f"publicIpAddresses on {', '.join(public)}",
                              "no public_ip_addresses", "remove public_ip_addresses from the "
                              "ip_configuration; use a NAT gateway and Bastion")]
        return []
    if r.type == _AZURE_LEGACY_VMSS:
        # The legacy classic set (pulumi-azure compute.ScaleSet): networkProfiles[].
        # ipConfigurations[].publicIpAddressConfiguration, "a public IP address configuration
        # for each VM", as the azure-native set's publicIPAddressConfiguration.
        public = [str(name) for name in
                  _ip_configurations_with(r, "networkProfiles", "publicIpAddressConfiguration")]
        if public:
            return [violation(r, "the scale set's VMs get public IP addresses",
                              f"publicIpAddressConfiguration on {', '.join(public)}",
                              "no public_ip_address_configuration",
                              "remove public_ip_address_configuration; use a NAT gateway and "
                              "Bastion")]
        return []
    if r.type == _AZURE_SF_NODE_TYPE:
        # "Specifies whether each node is allocated its own public IPv4 [IPv6] address"
        # (azure-native servicefabric NodeType enableNodePublicIP / enableNodePublicIPv6;
        # learn.microsoft.com/rest/api/servicefabric/managedclusters/node-types).
        public = [key for key in ("enableNodePublicIP", "enableNodePublicIPv6")
                  if truthy(r.known(key))]
        if public:
            return [violation(r, "the Service Fabric nodes get public IP addresses",
                              f"{' and '.join(public)} true", "false",
                              "set enable_node_public_ip (and _i_pv6) to False; use the "
                              "cluster's load balancer or a NAT gateway")]
        return []
    if r.type in _AZURE_ML_PUBLIC_IP:
        return _azure_ml_public_ip(r)
    if r.type == _AZURE_BATCH_POOL:
        return _batch_public_ip(r)
    if r.type in ("azure-native:network:NetworkInterface",
                  "azure:network/networkInterface:NetworkInterface"):
        # azure-native names the address publicIPAddress (an object with its id); the classic
        # provider publicIpAddressId (its id).
        key = "publicIPAddress" if r.type.startswith("azure-native") else "publicIpAddressId"
        public = [ip.get("name") for ip in r.items("ipConfigurations")
                  if isinstance(ip, dict) and ip.get(key)]
        if public:
            return [violation(r, "a network interface has a public IP address",
                              f"{key} on {', '.join(map(str, public))}",
                              f"no {key}", "remove the public IP from the NIC")]
    return []


_AZURE_LEGACY_VMSS = "azure:compute/scaleSet:ScaleSet"
_AZURE_ML_COMPUTE = "azure-native:machinelearningservices:Compute"
_AZURE_CLASSIC_ML_CLUSTER = "azure:machinelearning/computeCluster:ComputeCluster"
_AZURE_CLASSIC_ML_INSTANCE = "azure:machinelearning/computeInstance:ComputeInstance"
_AZURE_ML_PUBLIC_IP = frozenset({_AZURE_ML_COMPUTE, _AZURE_CLASSIC_ML_CLUSTER,
                                 _AZURE_CLASSIC_ML_INSTANCE})
_AZURE_BATCH_POOL = "azure-native:batch:Pool"
_AZURE_SF_NODE_TYPE = "azure-native:servicefabric:NodeType"


def _azure_ml_public_ip(r: Resource) -> list[Violation]:
    """Azure ML compute whose nodes get public IPs. azure-native: an AmlCompute's
    properties.properties.enableNodePublicIp, "true - Indicates that the compute nodes will have
    public IPs provisioned"; left out it is true (the ARM default the pulumi-azure-native SDK
    fills in, amlComputePropertiesArgsProvideDefaults: `enableNodePublicIp ?? true`; azure-ai-ml
    AmlCompute `enable_node_public_ip: bool = True`). A ComputeInstance takes the same flag,
    read only where it is given: the current API gives it no default (the SDK's
    computeInstancePropertiesArgsProvideDefaults fills in none). Classic: ComputeCluster and
    ComputeInstance nodePublicIpEnabled, "Whether the compute cluster [instance] will have a
    public ip ... Defaults to `true`" (pulumi-azure / azurerm machine_learning_compute_*)."""
    if r.type == _AZURE_ML_COMPUTE:
        kind = r.get("properties.computeType")
        if kind not in ("AmlCompute", "ComputeInstance"):
            return []   # attached compute (AKS, VMs, ...): judged where its nodes are made
        path = "properties.properties.enableNodePublicIp"
        value = r.known(path, True if kind == "AmlCompute" else None)
    else:
        path = "nodePublicIpEnabled"
        value = r.known(path, True)
    if not truthy(value):
        return []
    said = f"{path.rsplit('.', 1)[-1]} " + ("true" if r.get(path) is not None
                                            else "left out (the default, true)")
    return [violation(r, "the Azure ML compute nodes get public IP addresses", said, "false",
                      "set enable_node_public_ip=False (classic: node_public_ip_enabled) with a "
                      "subnet, or use a managed network without public IPs")]


def _batch_public_ip(r: Resource) -> list[Violation]:
    """An azure-native Batch pool's networkConfiguration.publicIPAddressConfiguration.provision:
    BatchManaged ("A public IP will be created and managed by Batch"; the default when the
    configuration is given without it) or UserManaged ("Public IPs are provided by the user and
    will be used to provision the Compute Nodes") gives the nodes public IPs;
    NoPublicIPAddresses none (Azure Batch REST IPAddressProvisioningType)."""
    config = r.get("networkConfiguration.publicIPAddressConfiguration")
    if config is UNKNOWN:
        raise UnknownValue(r, "networkConfiguration.publicIPAddressConfiguration")
    if not isinstance(config, dict):
        return []
    provision = r.known("networkConfiguration.publicIPAddressConfiguration.provision")
    mode = str(provision or "BatchManaged")
    if mode.lower() == "nopublicipaddresses":
        return []
    return [violation(r, "the Batch pool's nodes get public IP addresses",
                      f"publicIPAddressConfiguration.provision {mode}"
                      + ("" if provision else " (the default)"), "NoPublicIPAddresses",
                      "set provision=NoPublicIPAddresses; use a NAT gateway for egress")]


_ALI_RULE = "alicloud:ecs/securityGroupRule:SecurityGroupRule"


def _alicloud(r: Resource, config) -> list[Violation]:
    if r.type == _ALI_RULE:
        sources = ((r.get("cidrIp"), "cidrIp"), (r.get("ipv6CidrIp"), "ipv6CidrIp"))
        if not any(_world(src, r, p) for src, p in sources):
            return []
        if r.known("type") != "ingress" or \
                str(r.known("policy") or "accept").lower() != "accept":
            return []
        proto = str(r.get("ipProtocol")).lower()
        port_range = str(r.get("portRange") or "-1/-1")
        ssh_only = proto == "tcp" and port_range == "22/22"
        out = []
        for source, path in sources:
            world = _world(source, r, path)
            if world and not _allowed_ssh(world, ssh_only, config):
                ports = ("all ports" if port_range == "-1/-1" or proto == "all"
                         else f"ports {port_range}")
                out.append(_open_rule(r, world, ports, ssh_only, config, path))
        return out
    if r.type in ("alicloud:ecs/instance:Instance", "alicloud:ecs/ecsInstanceSet:EcsInstanceSet",
                  "alicloud:ess/scalingConfiguration:ScalingConfiguration",
                  # ECS launch templates: what instances and scaling groups launch from them.
                  "alicloud:ecs/ecsLaunchTemplate:EcsLaunchTemplate",
                  "alicloud:ecs/launchTemplate:LaunchTemplate",
                  # An ACK node pool: internet_max_bandwidth_out gives each node a public IP
                  # (pulumi-alicloud cs.NodePool), and so does scalingConfig.isBondEip below.
                  _ALI_NODE_POOL):
        if r.type == _ALI_NODE_POOL and truthy(r.known("scalingConfig.isBondEip")):
            # "Whether to bind EIP for an instance. Default: `false`" (pulumi-alicloud
            # cs.NodePool scaling_config.is_bond_eip): an EIP on every node the pool scales out.
            return [violation(r, "the node pool binds an EIP to every node",
                              "scalingConfig.isBondEip true", "false",
                              "set scaling_config.is_bond_eip=False; use a NAT gateway for egress")]
        bandwidth = r.get("internetMaxBandwidthOut")
        if bandwidth is UNKNOWN:
            raise UnknownValue(r, "internetMaxBandwidthOut")
        mbit = checked_number(bandwidth)
        if isinstance(mbit, BadNumber):
            # "ten", NaN, -1: no bandwidth the pack can read, so no proof the nodes are private.
            return [violation(r, "the public bandwidth is no number of Mbit/s, so whether the "
                              "nodes get public IP addresses cannot be read",
                              f"internetMaxBandwidthOut {mbit.text}", "0",
                              "set internet_max_bandwidth_out=0; use a NAT gateway for egress")]
        if (mbit or 0) > 0:
            return [violation(r, "the nodes get public IP addresses",
                              f"internetMaxBandwidthOut {mbit:g} Mbit/s", "0",
                              "set internet_max_bandwidth_out=0; use a NAT gateway for egress")]
    if r.type == _ALI_ECI:
        # pulumi-alicloud eci.ContainerGroup: autoCreateEip "Specifies whether to automatically
        # create an EIP and bind the EIP to the elastic container instance"; eipInstanceId
        # "The ID of the elastic IP address (EIP)" binds an existing one (an id unknown at
        # preview is still an EIP bound, as an aws Eip's unknown `instance` is).
        said = "autoCreateEip true" if truthy(r.known("autoCreateEip")) else \
            "eipInstanceId" if r.get("eipInstanceId") else ""
        if said:
            return [violation(r, "the container group gets a public IP address (an EIP)", said,
                              "no EIP on the container group",
                              "remove auto_create_eip / eip_instance_id; use a NAT gateway for "
                              "egress")]
        return []
    if r.type in _ALI_EIP_ASSOCIATIONS and r.get("instanceId"):
        # instanceType defaults to EcsInstance; an EIP on a NAT gateway or load balancer is the
        # way out or in for the service, not a node's own address.
        kind = r.get("instanceType")
        if kind is UNKNOWN:
            raise UnknownValue(r, "instanceType")
        if str(kind or "EcsInstance") in ("EcsInstance", "NetworkInterface"):
            return [violation(r, "an EIP is associated with a node", r.get("instanceId"),
                              "EIPs only on NAT gateways",
                              "remove the association; use a NAT gateway for egress")]
    return []


_ALI_NODE_POOL = "alicloud:cs/nodePool:NodePool"
_ALI_ECI = "alicloud:eci/containerGroup:ContainerGroup"
_ALI_EIP_ASSOCIATIONS = ("alicloud:ecs/eipAssociation:EipAssociation",
                         "alicloud:eip/association:Association")


_SPLIT_RULES = {
    # rule type -> (the input naming its group, how to read (sources, is_allow_ingress))
    "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule": "securityGroupId",
    "aws:ec2/securityGroupRule:SecurityGroupRule": "securityGroupId",
    _NATIVE_INGRESS: "groupId",
    "azure-native:network:SecurityRule": "networkSecurityGroupName",
    _AZURE_CLASSIC_RULE: "networkSecurityGroupName",
    _ALI_RULE: "securityGroupId",
}


def _rule_sources(r: Resource) -> list[tuple[Any, str]]:
    """The sources of one allow-ingress rule resource ([] for egress, deny, or unknown)."""
    t = r.type
    if t.startswith("aws:vpc/"):
        return [(r.get("cidrIpv4"), "cidrIpv4"), (r.get("cidrIpv6"), "cidrIpv6")]
    if t == _NATIVE_INGRESS:
        return _native_sources(r.props)
    if t.startswith("aws:ec2/"):
        if r.get("type") != "ingress":
            return []
        return _ec2_sources(r.props)
    if t == _ALI_RULE:
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
    return [(c, "cidrBlocks") for c in _list(rule.get("cidrBlocks"))] + \
        [(c, "ipv6CidrBlocks") for c in _list(rule.get("ipv6CidrBlocks"))]


def _native_sources(rule: Mapping[str, Any]) -> list[tuple[Any, str]]:
    return [(rule.get("cidrIp"), "cidrIp"), (rule.get("cidrIpv6"), "cidrIpv6")]


def _nsg_sources(rule: Mapping[str, Any]) -> list[tuple[Any, str]]:
    if str(rule.get("direction", "")).lower() != "inbound" or \
            str(rule.get("access", "")).lower() != "allow":
        return []
    return [(rule.get("sourceAddressPrefix"), "sourceAddressPrefix")] + \
        [(s, "sourceAddressPrefixes") for s in _list(rule.get("sourceAddressPrefixes"))]


_INLINE_RULES = {
    # group type -> (its inline rule list, how to read one entry)
    "aws:ec2/securityGroup:SecurityGroup": ("ingress", _ec2_sources),
    _NATIVE_SECURITY_GROUP: ("securityGroupIngress", _native_sources),
    "azure-native:network:NetworkSecurityGroup": ("securityRules", _nsg_sources),
    _AZURE_CLASSIC_NSG: ("securityRules", _nsg_sources),
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


def _list(value: Any) -> list:
    return list(value) if isinstance(value, list) else []


def check_stack(resources: list[Resource], config: Mapping[str, Any]) -> list[Violation]:
    """What one Analyze call cannot see: public subnets judged by what is placed in them, and
    ingress split across rules. A value unknown at preview that could hide a violation is
    "cannot decide" when nothing else here fails."""
    # An aws-native SpotFleet as the classic request (spot_fleet_view: its config's inputs).
    resources = [spot_fleet_view(r) if r.type == _NATIVE_SPOT_FLEET else r for r in resources]
    subnets, unknown = _public_subnets(resources)
    nat, outside = _azure_nat_pools(resources)
    balanced, lb_unknown = _public_balancers(resources)
    firewall, fw_unknown = _azure_firewall_dnat(resources, config)
    out = subnets + _split_rules(resources) + nat + balanced + _alicloud_dnat(resources) + \
        firewall + _default_vpc(resources)
    unknown = unknown or outside or lb_unknown or fw_unknown
    if unknown is not None and not out:
        raise unknown
    return out


# AWS compute that names no subnet: an instance or Spot Instance request (aws and aws-native)
# without subnetId or network interfaces of its own, an Auto Scaling group (aws and aws-native)
# without vpcZoneIdentifiers / vpcZoneIdentifier (placed by availabilityZones, "used for
# launching into the default VPC subnet in each Availability Zone": docs.aws.amazon.com/
# autoscaling/ec2/APIReference/API_CreateAutoScalingGroup.html), an EC2 Fleet (aws and
# aws-native) / Spot Fleet none of whose overrides or launch specifications names a subnet. EC2
# launches it in the default VPC's
# default subnet, and "By default, a default subnet is a public subnet": it maps a public IPv4
# address on launch (docs.aws.amazon.com/vpc/latest/userguide/default-vpc.html).
_DEFAULT_VPC_PLACED = {"aws:ec2/instance:Instance": ("subnetId", "networkInterfaces"),
                       "aws:ec2/spotInstanceRequest:SpotInstanceRequest": (
                           "subnetId", "networkInterfaces"),
                       "aws-native:ec2:Instance": ("subnetId", "networkInterfaces"),
                       "aws:autoscaling/group:Group": ("vpcZoneIdentifiers",),
                       "aws-native:autoscaling:AutoScalingGroup": ("vpcZoneIdentifier",),
                       "aws:ec2/fleet:Fleet": ("launchTemplateConfigs",),
                       # CloudFormation AWS::EC2::EC2Fleet: the same launch template configs.
                       "aws-native:ec2:Ec2Fleet": ("launchTemplateConfigs",),
                       "aws:ec2/spotFleetRequest:SpotFleetRequest": (
                           "launchTemplateConfigs", "launchSpecifications"),
                       "aws-native:ec2:SpotFleet": (
                           "launchTemplateConfigs", "launchSpecifications")}
_FLEETS = ("aws:ec2/fleet:Fleet", "aws-native:ec2:Ec2Fleet",
           "aws:ec2/spotFleetRequest:SpotFleetRequest", "aws-native:ec2:SpotFleet")


def _names_subnet(value: Any) -> bool:
    """A launch template's interfaces, or a fleet's overrides / launch specifications, that
    place the nodes themselves (a subnetId or an existing interface), or that are unknown at
    preview."""
    if value is UNKNOWN:
        return True
    if isinstance(value, dict):
        return any(v is not None for k, v in value.items()
                   if k in ("subnetId", "networkInterfaceId")) or any(
            _names_subnet(v) for k, v in value.items()
            if k in ("overrides", "override", "networkInterfaces"))
    return any(_names_subnet(v) for v in _list(value))


def _default_vpc(resources: list[Resource]) -> list[Violation]:
    """AWS nodes launched in the default VPC get a public IP from its default subnet, unless
    they turn public IPs off themselves (_declines_public_ip). One that asks for a public IP
    outright is reported by its own Analyze call already."""
    out: list[Violation] = []
    for r in resources:
        keys = _DEFAULT_VPC_PLACED.get(r.type)
        if keys is None or _declines_public_ip(r) or truthy(r.get("associatePublicIpAddress")):
            continue
        if r.get("associatePublicIpAddress") is UNKNOWN:
            continue
        if any(r.deps.get(k) and any(d.type == AWS_SUBNET for d in r.deps[k]) for k in keys):
            continue
        if r.type in _FLEETS:
            if any(_names_subnet(r.get(k)) for k in keys):
                continue
        elif any(r.get(k) not in (None, []) or r.deps.get(k) for k in keys):
            continue
        if any(_names_subnet(_template_interfaces(tpl)) for tpl in _launch_templates(r)):
            continue
        out.append(violation(
            r, "the nodes launch in the default VPC, whose default subnets give them public IP "
            "addresses", f"no subnet in {' or '.join(keys)}: the default VPC's default subnet",
            "a private subnet of the stack, or associatePublicIpAddress false",
            "place the nodes in a private subnet (subnet_id / vpc_zone_identifiers / the "
            "fleet's overrides), or set associate_public_ip_address=False (on the launch "
            "template's interface for a group or fleet)"))
    return out


_AZURE_LB = "azure-native:network:LoadBalancer"
_AGW = "azure-native:network:ApplicationGateway"
_AZURE_NIC = "azure-native:network:NetworkInterface"
_AZURE_NIC_PATHS = {
    "azure-native:compute:VirtualMachineScaleSet":
        "virtualMachineProfile.networkProfile.networkInterfaceConfigurations",
    "azure-native:compute:VirtualMachine": "networkProfile.networkInterfaceConfigurations",
    "azure-native:network:NetworkInterface": "",
}


def _public_frontend(lb: Resource) -> bool:
    """A load balancer with a public frontend (an Azure load balancer is public or internal)."""
    return any(isinstance(fe, dict) and (fe.get("publicIPAddress") or fe.get("publicIPPrefix"))
               for fe in _list(lb.get("frontendIPConfigurations")))


def _public_nat(lb: Resource) -> bool:
    """A load balancer with a public frontend and inbound NAT pools or rules: each forwards a
    port of the public address to one backend VM (learn.microsoft.com/azure/load-balancer/
    inbound-nat-rules)."""
    return _public_frontend(lb) and bool(_list(lb.get("inboundNatPools"))
                                         or _list(lb.get("inboundNatRules")))


def _nat_violation(r: Resource, what: str, lb: str) -> Violation:
    return violation(r, "an inbound NAT pool or rule forwards a port of a public load balancer "
                     "to the backend VMs", f"{what} (load balancer {lb})",
                     "no inbound NAT from a public frontend",
                     "remove the inbound NAT pools/rules; use Bastion or the SSH CIDRs for "
                     "access")


_AZURE_NAT_RULE = "azure-native:network:InboundNatRule"
# The classic provider's balancer and its NAT rules and pools, separate resources that name the
# balancer by loadbalancerId (pulumi-azure lb.LoadBalancer, lb.NatRule, lb.NatPool); a frontend
# is public by publicIpAddressId or publicIpPrefixId.
_CLASSIC_LB = "azure:lb/loadBalancer:LoadBalancer"
_CLASSIC_NAT_POOL = "azure:lb/natPool:NatPool"
_CLASSIC_RULE = "azure:lb/rule:Rule"
_STANDALONE_NAT = frozenset({_AZURE_NAT_RULE, "azure:lb/natRule:NatRule", _CLASSIC_NAT_POOL})
_AZURE_LBS = frozenset({_AZURE_LB, _CLASSIC_LB})


def _frontends_key(lb: Resource) -> str:
    """An Azure balancer's frontend list input (the classic provider spells it Ip)."""
    return "frontendIpConfigurations" if lb.type == _CLASSIC_LB else "frontendIPConfigurations"


def _frontends_unread(lb: Resource) -> bool:
    """An Azure balancer whose frontends are unknown at preview (the whole list, or an entry):
    public or internal cannot be read, so what it forwards is "cannot decide", never a pass."""
    value = lb.get(_frontends_key(lb))
    return value is UNKNOWN or any(fe is UNKNOWN for fe in _list(value))


def _unread_frontend(lb: Resource) -> UnknownValue:
    return UnknownValue(lb, f"{_frontends_key(lb)} (whether load balancer {lb.name}, which forwards ports to "
                            "the nodes, has a public frontend)")


def _lb_public(lb: Resource) -> bool:
    """An Azure load balancer, azure-native or classic, with a public frontend."""
    if lb.type == _CLASSIC_LB:
        return any(isinstance(fe, dict) and (fe.get("publicIpAddressId") or fe.get("publicIpPrefixId"))
                   for fe in _list(lb.get("frontendIpConfigurations")))
    return _public_frontend(lb)


def _group_key(r: Resource) -> Optional[str]:
    """The resource group `r` is in, lower case (Azure names are case-insensitive): its literal
    resourceGroupName, or the ResourceGroup of the stack that input is built from (that
    group's own name, or "<urn>" for an auto-named one, which only a value built from the same
    ResourceGroup matches); None where it cannot be read at preview."""
    value = r.get("resourceGroupName")
    if isinstance(value, str):
        return value.lower()
    for d in r.deps.get("resourceGroupName", []):
        # A ResourceGroup of the stack, keyed as budgets key the compute's billing group.
        key = resource_group_key(d) if d.type in RESOURCE_GROUPS else None
        if key is not None:
            return key
    return None


def _lb_name(lb: Resource) -> Optional[str]:
    """A balancer's own name input, lower case; None when it has none (auto-named
    `<logical name><random suffix>`, which no literal names for certain) or it is unknown."""
    name = lb.get("loadBalancerName" if lb.type == _AZURE_LB else "name")
    return name.lower() if isinstance(name, str) else None


def _arm_segment(ident: str, kind: str) -> Optional[str]:
    """The name after `kind` ("subscriptions", "resourcegroups", "loadbalancers") in an ARM id."""
    parts = ident.split("/")
    lowered = [p.lower() for p in parts]
    i = lowered.index(kind) + 1 if kind in lowered else len(parts)
    return parts[i] if i < len(parts) and parts[i] else None


def _nat_balancers(r: Resource, balancers: list[Resource]
                   ) -> tuple[list[Resource], Optional[UnknownValue]]:
    """The balancers of the stack a standalone NAT rule or pool is on: those it depends on,
    else the one its loadBalancerName and resourceGroupName (classic: its literal
    loadbalancerId) name, by the balancer's own name and group inputs. Where it names none of
    them for certain (a balancer the stack does not create, an auto-named one, a name or
    group unknown at preview) its balancer's frontend cannot be read: "cannot decide"."""
    by_dependency = [d for ds in r.deps.values() for d in ds if d.type in _AZURE_LBS]
    if by_dependency:
        return by_dependency, None
    sub: Optional[str] = None
    if r.type == _AZURE_NAT_RULE:
        name, group, path = r.get("loadBalancerName"), _group_key(r), "loadBalancerName"
    else:
        ident, path = r.get("loadbalancerId"), "loadbalancerId"
        if not isinstance(ident, str):
            return [], UnknownValue(r, f"{path} (a load balancer unknown at preview, none of "
                                       "the stack's behind it: its frontend may be public)")
        name, group = _arm_segment(ident, "loadbalancers"), _arm_segment(ident, "resourcegroups")
        group, sub = group and group.lower(), _arm_segment(ident, "subscriptions")
    if not isinstance(name, str):
        return [], UnknownValue(r, f"{path} (a load balancer unknown at preview, none of the "
                                   "stack's behind it: its frontend may be public)")
    if group is None:
        return [], UnknownValue(r, f"resourceGroupName (whether load balancer {name} is one of "
                                   "this stack's, and whether its frontend is public)")
    same = [lb for lb in balancers if _lb_name(lb) == name.lower() and _group_key(lb) == group
            and (sub is None or str((lb.provider or {}).get("subscriptionId", sub)).lower()
                 == sub.lower())]
    if same:
        return same, None
    shown = name if group.startswith("<") else f"{name} in resource group {group}"
    return [], OutsideStack(r, f"{path} names load balancer {shown}, which this stack does not "
                               "create under that name, so whether its frontend is public "
                               "cannot be read (if it is internal, list the resource in this "
                               "policy's skipResources)")


def _nat_refs(configs: list) -> list[Any]:
    """The ids (or refs) of the inbound NAT pools and rules the IP configurations join."""
    return [ref.get("id") if isinstance(ref, dict) else ref
            for nic in configs for ip in _list(nic.get("ipConfigurations")) if isinstance(ip, dict)
            for key in ("loadBalancerInboundNatPools", "loadBalancerInboundNatRules")
            for ref in _list(ip.get(key))]


def _balancer_of(ref: Any) -> str:
    """The load balancer an ARM id of a NAT pool / rule names (".../loadBalancers/<name>/...")."""
    parts = ref.split("/") if isinstance(ref, str) else []
    lowered = [p.lower() for p in parts]
    if "loadbalancers" in lowered and lowered.index("loadbalancers") + 1 < len(parts):
        return parts[lowered.index("loadbalancers") + 1]
    return str(ref)


def _azure_nat_pools(resources: list[Resource]) -> tuple[list[Violation], Optional[UnknownValue]]:
    """Scale sets, VMs and NICs whose IP configurations join the inbound NAT pools or rules of a
    public load balancer of the stack: the nodes are reachable from the internet through it,
    no public IP of their own needed. Seen by the stack, since the balancer is another
    resource. NAT pools / rules named by literal ids, of a balancer the stack does not create,
    are "cannot decide" (OutsideStack): whether that balancer's frontend is public only the
    balancer shows (learn.microsoft.com/azure/load-balancer/inbound-nat-rules)."""
    out = []
    outside: Optional[UnknownValue] = None
    balancers = [r for r in resources if r.type in _AZURE_LBS]
    for r in resources:
        # The NAT pools and rules themselves, whether or not a node joins them yet (a VM
        # added later, or by hand, is reachable at once): docs, "Azure inbound NAT pools or
        # rules of a public load balancer of the stack are a violation".
        if r.type == _AZURE_LB and _public_nat(r):
            out.append(_nat_violation(r, "inboundNatPools / inboundNatRules", r.name))
            continue
        if r.type == _AZURE_LB and outside is None and _frontends_unread(r) and (
                _list(r.get("inboundNatPools")) or _list(r.get("inboundNatRules"))):
            outside = _unread_frontend(r)
        if r.type in _STANDALONE_NAT:
            named, why = _nat_balancers(r, balancers)
            public = sorted({d.name for d in named if _lb_public(d)})
            if public:
                what = "inbound NAT pool" if r.type == _CLASSIC_NAT_POOL else "inbound NAT rule"
                out.append(_nat_violation(r, what, ", ".join(public)))
            elif why is not None and outside is None:
                outside = why
            elif outside is None:
                unread = [d for d in named if _frontends_unread(d)]
                outside = _unread_frontend(unread[0]) if unread else None
            continue
        path = _AZURE_NIC_PATHS.get(r.type)
        if path is None:
            continue
        configs = [r.props] if not path else [n for n in _list(r.get(path)) if isinstance(n, dict)]
        nat = [str(ip.get("name")) for nic in configs for ip in _list(nic.get("ipConfigurations"))
               if isinstance(ip, dict) and (ip.get("loadBalancerInboundNatPools")
                                            or ip.get("loadBalancerInboundNatRules"))]
        stack_lbs = [d for ds in r.deps.values() for d in ds if d.type == _AZURE_LB] + \
            [lb for ds in r.deps.values() for d in ds if d.type == _AZURE_NAT_RULE
             for lb in d.deps.get("loadBalancerName", []) if lb.type == _AZURE_LB]
        if nat and not stack_lbs and outside is None:
            names = sorted({_balancer_of(ref) for ref in _nat_refs(configs) if ref is not UNKNOWN})
            outside = OutsideStack(r, f"{path or 'ipConfigurations'} joins the inbound NAT of "
                                      f"load balancer {', '.join(names) or '(unknown)'}, which "
                                      "this stack does not create, so whether its frontend is "
                                      "public cannot be read (if it is internal, list the "
                                      "resource in this policy's skipResources)")
        lbs = [d.name for d in stack_lbs if _public_nat(d)]
        unread = [d for d in stack_lbs if _frontends_unread(d)]
        if nat and not lbs and unread and outside is None:
            outside = _unread_frontend(unread[0])
        if nat and lbs:
            out.append(violation(r, "the nodes are reachable from the internet through the "
                                 "inbound NAT of a public load balancer",
                                 f"loadBalancerInboundNat* on {', '.join(nat)} (load balancer "
                                 f"{', '.join(sorted(set(lbs)))})",
                                 "no inbound NAT from a public frontend",
                                 "remove the inbound NAT pools/rules; use Bastion or the SSH "
                                 "CIDRs for access"))
    return out, outside


# Load-balancing plumbing, tiered in the direction traffic flows (a balancer or forwarding rule
# 0, listeners / proxies 1, URL maps and target groups / pools 2-3, attachments 3-4): from a
# public balancer, traffic reaches only resources of a higher tier, then the compute they name.
_LB_TIERS = {
    "aws:lb/loadBalancer:LoadBalancer": 0, "aws:alb/loadBalancer:LoadBalancer": 0,
    "aws:elb/loadBalancer:LoadBalancer": 0,
    "aws:lb/listener:Listener": 1, "aws:alb/listener:Listener": 1,
    # A listener rule names its listener (listenerArn), so it sits a tier above it (review67:
    # at the listener's tier, a rule depending only on its listener was never reached).
    "aws:lb/listenerRule:ListenerRule": 2, "aws:alb/listenerRule:ListenerRule": 2,
    "aws:lb/targetGroup:TargetGroup": 3, "aws:alb/targetGroup:TargetGroup": 3,
    "aws:lb/targetGroupAttachment:TargetGroupAttachment": 4,
    "aws:alb/targetGroupAttachment:TargetGroupAttachment": 4,
    "aws:autoscaling/attachment:Attachment": 4, "aws:elb/attachment:Attachment": 3,
    "aws:autoscaling/trafficSourceAttachment:TrafficSourceAttachment": 4,
    "gcp:compute/forwardingRule:ForwardingRule": 0,
    "gcp:compute/globalForwardingRule:GlobalForwardingRule": 0,
    "gcp:compute/targetHttpProxy:TargetHttpProxy": 1,
    "gcp:compute/targetHttpsProxy:TargetHttpsProxy": 1,
    "gcp:compute/targetTCPProxy:TargetTCPProxy": 1, "gcp:compute/targetSSLProxy:TargetSSLProxy": 1,
    "gcp:compute/regionTargetHttpProxy:RegionTargetHttpProxy": 1,
    "gcp:compute/regionTargetHttpsProxy:RegionTargetHttpsProxy": 1,
    "gcp:compute/regionTargetTcpProxy:RegionTargetTcpProxy": 1,
    "gcp:compute/uRLMap:URLMap": 2, "gcp:compute/regionUrlMap:RegionUrlMap": 2,
    "gcp:compute/backendService:BackendService": 3,
    "gcp:compute/regionBackendService:RegionBackendService": 3,
    "gcp:compute/targetPool:TargetPool": 3, "gcp:compute/targetInstance:TargetInstance": 3,
    "gcp:compute/instanceGroup:InstanceGroup": 4,
    # Zonal NEGs of GCE_VM_IP_PORT / GCE_VM_IP endpoints (regional: GCE_VM_IP_PORTMAP) are
    # backends of backend services as instance groups are; their endpoints name the VMs
    # (cloud.google.com/load-balancing/docs/negs/zonal-neg-concepts).
    "gcp:compute/networkEndpointGroup:NetworkEndpointGroup": 4,
    "gcp:compute/regionNetworkEndpointGroup:RegionNetworkEndpointGroup": 4,
    "gcp:compute/networkEndpoint:NetworkEndpoint": 5,
    "gcp:compute/networkEndpointList:NetworkEndpointList": 5,
    "gcp:compute/regionNetworkEndpoint:RegionNetworkEndpoint": 5,
    _AZURE_LB: 0, "azure-native:network:LoadBalancerBackendAddressPool": 2,
    # A (layer-7) Application Gateway, its backend pools inline (learn.microsoft.com/azure/
    # application-gateway/configuration-frontend-ip: public, private or both frontends).
    _AGW: 0,
    "azure-native:network:NetworkInterface": 3,
    # The classic provider's balancer: rules and pools are resources of their own; a VM's NIC
    # joins a pool by an association, which names the NIC.
    _CLASSIC_LB: 0, _CLASSIC_RULE: 1, "azure:lb/backendAddressPool:BackendAddressPool": 2,
    "azure:network/networkInterfaceBackendAddressPoolAssociation:"
    "NetworkInterfaceBackendAddressPoolAssociation": 3,
    "azure:network/networkInterface:NetworkInterface": 4,
    "alicloud:slb/loadBalancer:LoadBalancer": 0,
    "alicloud:slb/applicationLoadBalancer:ApplicationLoadBalancer": 0,
    "alicloud:nlb/loadBalancer:LoadBalancer": 0, "alicloud:alb/loadBalancer:LoadBalancer": 0,
    "alicloud:slb/listener:Listener": 1, "alicloud:nlb/listener:Listener": 1,
    "alicloud:alb/listener:Listener": 1,
    "alicloud:slb/serverGroup:ServerGroup": 2, "alicloud:nlb/serverGroup:ServerGroup": 2,
    "alicloud:alb/serverGroup:ServerGroup": 2,
    "alicloud:slb/backendServer:BackendServer": 3, "alicloud:slb/attachment:Attachment": 3,
    "alicloud:slb/serverGroupServerAttachment:ServerGroupServerAttachment": 3,
    "alicloud:nlb/serverGroupServerAttachment:ServerGroupServerAttachment": 3,
}


def _public_balancer(r: Resource) -> Any:
    """True / False / UNKNOWN: a balancer or forwarding rule that takes traffic from the
    internet. AWS: `internal` unset is internet-facing ("the default is an Internet-facing load
    balancer", elasticloadbalancing API CreateLoadBalancer Scheme; Gateway Load Balancers have no
    scheme). GCP: loadBalancingScheme EXTERNAL (the forwarding rule's default) or
    EXTERNAL_MANAGED. Azure: a public frontend with load-balancing rules, or inbound NAT rules
    to a backend pool (learn.microsoft.com/azure/load-balancer/components); outbound rules
    alone take nothing in. Alibaba Cloud: addressType internet (an SLB with no addressType and
    no vSwitch is on the internet: pulumi-alicloud slb address_type)."""
    t = r.type
    if t.startswith("aws:"):
        if str(r.get("loadBalancerType") or "").lower() == "gateway":
            return False
        internal = r.get("internal")
        return UNKNOWN if internal is UNKNOWN else not truthy(internal)
    if t.startswith("gcp:"):
        scheme = r.get("loadBalancingScheme")
        return UNKNOWN if scheme is UNKNOWN else \
            str(scheme or "EXTERNAL").upper() in ("EXTERNAL", "EXTERNAL_MANAGED")
    if t == _AGW:
        return _agw_public(r)
    if t == _AZURE_LB:
        public = _public_frontend(r)
        inbound = bool(_list(r.get("loadBalancingRules"))) or any(
            isinstance(n, dict) and n.get("backendAddressPool")
            for n in _list(r.get("inboundNatRules")))
        if inbound and not public and _frontends_unread(r):
            return UNKNOWN
        return public and inbound
    if t.startswith("alicloud:"):
        kind = r.get("addressType")
        if kind is UNKNOWN:
            return UNKNOWN
        if kind is None:
            return t.startswith("alicloud:slb/") and not r.get("vswitchId")
        return str(kind).lower() == "internet"
    return False


def _agw_public(agw: Resource) -> Any:
    """True / False / UNKNOWN: an Application Gateway with a listener on a public frontend IP
    configuration. A v2 gateway may carry a public frontend only for its management traffic
    and listen on its private one: that takes nothing in from the internet (learn.microsoft.
    com/azure/application-gateway/configuration-frontend-ip: "A public IP address isn't
    required for an internal endpoint")."""
    frontends = agw.get("frontendIPConfigurations")
    if frontends is UNKNOWN or any(fe is UNKNOWN for fe in _list(frontends)):
        return UNKNOWN
    public = {str(fe.get("name")).lower() for fe in _list(frontends)
              if isinstance(fe, dict) and (fe.get("publicIPAddress") or fe.get("publicIPPrefix"))}
    if not public:
        return False
    unread = False
    for key in ("httpListeners", "listeners"):
        listeners = agw.get(key)
        if listeners is UNKNOWN:
            return UNKNOWN
        for listener in _list(listeners):
            ref = listener.get("frontendIPConfiguration") if isinstance(listener, dict) else UNKNOWN
            ident = ref.get("id") if isinstance(ref, dict) else ref
            name = _arm_segment(ident, "frontendipconfigurations") if isinstance(ident, str) \
                else None
            if name is None:
                unread = True   # unknown at preview, or no frontend id: may be the public one
            elif name.lower() in public:
                return True
    return UNKNOWN if unread else False


# The pools an Azure IP configuration joins, by the kind of entry point the walk started at:
# a load balancer's, an Application Gateway's, or either behind a front door.
_LB_POOLS = ("loadBalancerBackendAddressPools",)
_AGW_POOLS = ("applicationGatewayBackendAddressPools",)
_ANY_POOLS = _LB_POOLS + _AGW_POOLS


def _pools_of(entry: Resource) -> tuple[str, ...]:
    if entry.type == _AGW:
        return _AGW_POOLS
    return _ANY_POOLS if entry.type in front_doors.TARGETS else _LB_POOLS


def _in_backend_pool(r: Resource, keys: tuple[str, ...] = _LB_POOLS) -> bool:
    """An Azure scale set, VM or NIC with an IP configuration in a backend pool (`keys`: a load
    balancer's, an Application Gateway's), or a VM whose NIC of the stack is (other compute is
    placed behind a balancer by the plumbing that names it)."""
    if r.type in _CLASSIC_SCALE_SETS:
        return "loadBalancerBackendAddressPools" in keys and any(
            isinstance(ip, dict) and ip.get("loadBalancerBackendAddressPoolIds")
            for nic in _list(r.get("networkInterfaces")) if isinstance(nic, dict)
            for ip in _list(nic.get("ipConfigurations")))
    path = _AZURE_NIC_PATHS.get(r.type)
    if path is None:
        return True
    configs = [r.props] if not path else [n for n in _list(r.get(path)) if isinstance(n, dict)]
    if any(isinstance(ip, dict) and any(ip.get(k) for k in keys)
           for nic in configs for ip in _list(nic.get("ipConfigurations"))):
        return True
    return r.type == "azure-native:compute:VirtualMachine" and any(
        _in_backend_pool(nic, keys) for nic in r.deps.get("networkProfile", ())
        if nic.type == _AZURE_NIC)


def _azure_private_ips(resources: list[Resource]) -> dict[str, list[Resource]]:
    """The static private IPv4 / IPv6 addresses the stack gives its azure-native NICs
    (ipConfigurations[].privateIPAddress) -> those NICs."""
    by_ip: dict[str, list[Resource]] = {}
    for nic in resources:
        if nic.type != _AZURE_NIC:
            continue
        for ip in _list(nic.get("ipConfigurations")):
            address = ip.get("privateIPAddress") if isinstance(ip, dict) else None
            if isinstance(address, str) and address.strip():
                by_ip.setdefault(address.strip(), []).append(nic)
    return by_ip


def _nic_nodes(nics: Iterable[Resource], resources: list[Resource]) -> list[Resource]:
    """The azure-native VMs of the stack that use these NICs (networkProfile), or the NICs
    themselves where no VM of the stack does (a VM attached elsewhere is still a node)."""
    out: list[Resource] = []
    for nic in nics:
        vms = [r for r in resources if r.type == "azure-native:compute:VirtualMachine"
               and any(d is nic for d in r.deps.get("networkProfile", ()))]
        out += [vm for vm in vms if vm not in out] or ([nic] if nic not in out else [])
    return out


def _agw_address_nodes(agw: Resource, resources: list[Resource],
                       by_ip: Optional[dict[str, list[Resource]]]) -> list[Resource]:
    """The nodes an Application Gateway's backend pools name by address (backendAddresses[].
    ipAddress): NICs of the stack it depends on there, or whose static private IP the literal
    is, and their VMs."""
    nics = [d for d in agw.deps.get("backendAddressPools", ()) if d.type == _AZURE_NIC]
    addresses = [a.get("ipAddress") for pool in _list(agw.get("backendAddressPools"))
                 if isinstance(pool, dict) for a in _list(pool.get("backendAddresses"))
                 if isinstance(a, dict)]
    literal = [a.strip() for a in addresses if isinstance(a, str) and a.strip()]
    if literal:
        by_ip = _azure_private_ips(resources) if by_ip is None else by_ip
        nics += [n for a in literal for n in by_ip.get(a, []) if n not in nics]
    return _nic_nodes(nics, resources)


# Classic scale sets join a balancer's pool by their IP configurations'
# loadBalancerBackendAddressPoolIds (pulumi-azure compute.LinuxVirtualMachineScaleSet).
_CLASSIC_SCALE_SETS = frozenset({
    "azure:compute/linuxVirtualMachineScaleSet:LinuxVirtualMachineScaleSet",
    "azure:compute/windowsVirtualMachineScaleSet:WindowsVirtualMachineScaleSet",
    "azure:compute/orchestratedVirtualMachineScaleSet:OrchestratedVirtualMachineScaleSet"})


def _classic_public(lb: Resource, resources: list[Resource]) -> Any:
    """True / False / UNKNOWN for a classic balancer: it takes traffic in through its
    `lb.Rule` resources (it has no inline rules), tied to it as standalone NAT rules are
    (by dependency, or by the name and group of their literal loadbalancerId)."""
    balancers = [r for r in resources if r.type in _AZURE_LBS]
    inbound = any(any(d is lb for d in _nat_balancers(rule, balancers)[0])
                  for rule in resources if rule.type == _CLASSIC_RULE)
    if not inbound:
        return False
    if _lb_public(lb):
        return True
    return UNKNOWN if _frontends_unread(lb) else False


def _public_balancers(resources: list[Resource]
                      ) -> tuple[list[Violation], Optional[UnknownValue]]:
    """GPU compute behind a public load balancer of the stack, through its ordinary rules
    (listeners, target groups, backend services, target pools, backend pools, server groups),
    or behind a public front door (front_doors: Global Accelerator, CloudFront VPC origin, API
    Gateway VPC link) to a balancer, listener or node of the stack, internal or not: it
    forwards internet traffic to the nodes, no public IP of their own needed."""
    balancers = [r for r in resources if _LB_TIERS.get(r.type) == 0]
    doors = [r for r in resources if r.type in front_doors.TARGETS]
    if not balancers and not doors:
        return [], None
    from trainstack_policies.inventory import gpu_groups
    gpu = {id(h): g.resource for g in gpu_groups(resources)
           for h in (g.resource, g.template) if h is not None}
    if not gpu:
        return [], None
    dependents: dict[int, list[Resource]] = {}
    for r in resources:
        if r.type in _LB_TIERS or id(r) in gpu:
            for ds in r.deps.values():
                for d in ds:
                    dependents.setdefault(id(d), []).append(r)
    out: list[Violation] = []
    unknown: Optional[UnknownValue] = None
    reported: set[int] = set()
    tiered = frozenset(id(r) for r in resources if r.type in _LB_TIERS or id(r) in gpu
                       or r.type in front_doors.TIERS)
    by_ip: Optional[dict[str, list[Resource]]] = None
    for lb in balancers + doors:
        if lb.type in front_doors.TARGETS:
            public = front_doors.public(lb)
            key = front_doors.unknown_target(lb, tiered) if public is not False else None
            if key is not None:
                unknown = unknown or UnknownValue(lb, f"{key} (a target unknown at preview may be "
                                                      "the GPU nodes or their load balancer)")
        reached: list[Resource] = []
        pools = _pools_of(lb)
        if lb.type == _AGW:
            by_ip = _azure_private_ips(resources) if by_ip is None else by_ip
            reached += [gpu[id(n)] for n in _agw_address_nodes(lb, resources, by_ip) if id(n) in gpu]
        seen = {id(lb)}
        frontier = [lb] + (front_doors.literal_balancers(lb, balancers)
                           if lb.type in front_doors.TARGETS else [])
        while frontier:
            node = frontier.pop()
            tier = _tier(node)
            for nxt in [d for ds in node.deps.values() for d in ds] + dependents.get(id(node), []):
                if id(nxt) in seen:
                    continue
                seen.add(id(nxt))
                if id(nxt) in gpu and _in_backend_pool(nxt, pools):
                    reached.append(gpu[id(nxt)])
                elif _tier(nxt, -3) > tier:
                    frontier.append(nxt)
        if not reached:
            continue
        if lb.type in front_doors.TARGETS:
            pass
        elif lb.type == _CLASSIC_LB:
            public = _classic_public(lb, resources)
        else:
            public = _public_balancer(lb)
        if public is UNKNOWN:
            unknown = unknown or (_unread_frontend(lb) if lb.type in _AZURE_LBS else UnknownValue(
                lb, "internal / loadBalancingScheme / addressType / connectionType (whether it "
                    "faces the internet)"))
            continue
        for node in reached:
            if not public or id(node) in reported:
                continue
            reported.add(id(node))
            out.append(violation(
                node, "the GPU nodes are reachable from the internet through a public load "
                "balancer", f"{lb.name} ({lb.type}) forwards internet traffic to them",
                "no internet-facing load balancer or front door in front of GPU nodes",
                "make the load balancer internal (AWS internal=True, GCP INTERNAL scheme, Azure "
                "a private frontend or listener, Alibaba addressType intranet) and put no public "
                "front door (AWS or Alibaba Global Accelerator, CloudFront VPC origin, API "
                "Gateway VPC link, Front Door Private Link) before it, or front the nodes with a "
                "CPU tier; reach the nodes through a bastion or the SSH CIDRs"))
    return out, unknown


def _tier(r: Resource, default: int = 0) -> int:
    """A resource's tier in the walk from the internet: front doors, then balancers, listeners,
    target groups, attachments."""
    tier = _LB_TIERS.get(r.type)
    return tier if tier is not None else front_doors.TIERS.get(r.type, default)


_ALI_DNAT = "alicloud:vpc/forwardEntry:ForwardEntry"
_ALI_NODES = ("alicloud:ecs/instance:Instance", "alicloud:ecs/ecsInstanceSet:EcsInstanceSet",
              "alicloud:ecs/ecsNetworkInterface:EcsNetworkInterface",
              "alicloud:vpc/networkInterface:NetworkInterface")
_ALI_NAT_GATEWAY = "alicloud:vpc/natGateway:NatGateway"


def _alicloud_dnat(resources: list[Resource]) -> list[Violation]:
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
    net = _network(value) if isinstance(value, str) else None
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
                                              for ip in _list(r.get("ipConfigurations")))):
        return True
    return UNKNOWN


def _azure_firewall_dnat(resources: list[Resource], config) -> tuple[list[Violation],
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
                by_ip = _azure_private_ips(resources) if by_ip is None else by_ip
                nics = by_ip.get(target.strip(), [])
                nodes = _nic_nodes(nics, resources)
            elif target is UNKNOWN:
                deps = r.deps.get(key, ())
                nodes = _nic_nodes([d for d in deps if d.type == _AZURE_NIC], resources) + [
                    d for d in deps if d.type in ("azure-native:compute:VirtualMachine",
                                                  "azure-native:compute:VirtualMachineScaleSet")]
            else:
                nodes = []
            if not nodes:
                continue
            sources = [(src, f"{path}.sourceAddresses")
                       for src in _list(rule.get("sourceAddresses"))]
            if rule.get("sourceAddresses") is UNKNOWN:
                unknown = unknown or UnknownValue(r, f"{path}.sourceAddresses")
                continue
            try:
                worlds = {w for w in (_world(src, r, p) for src, p in _covered(sources, r)) if w}
            except UnknownValue as e:
                unknown = unknown or e
                continue
            if not worlds:
                if _list(rule.get("sourceIpGroups")) or rule.get("sourceIpGroups") is UNKNOWN:
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
            protocols = [str(p).lower() for p in _list(rule.get("protocols")
                                                       or rule.get("ipProtocols"))]
            ssh_only = protocols == ["tcp"] * len(protocols) and bool(protocols) and \
                str(rule.get("translatedPort")).strip() == "22"
            world = sorted(worlds)[0]
            if _allowed_ssh(world, ssh_only, config):
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
                                                 for ip in _list(n.get(k))]
        for ip in {ip.strip() for ip in ips if isinstance(ip, str)}:
            by_ip.setdefault(ip, []).append(n)
    return by_ip


def _split_rules(resources: list[Resource]) -> list[Violation]:
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
            net = _network(src)
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
              _AZURE_CLASSIC_NSG: "name"}


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
        group = _group_key(g)
        if group is not None:
            out[(group, name.lower())] = g
    return out


def _named_nsg(r: Resource, key: str, nsgs: dict[tuple[str, str], Resource]) -> Optional[Resource]:
    """The stack's NSG a standalone rule names by its name and resource group, if any."""
    name, group = r.get(key), _group_key(r)
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


_HANDLERS = {"aws": _aws, "gcp": _gcp, "azure": _azure, "alicloud": _alicloud}


def check(resource: Resource, config: Mapping[str, Any]) -> list[Violation]:
    handler = _HANDLERS.get(resource.cloud)
    return handler(resource, config) if handler else []
