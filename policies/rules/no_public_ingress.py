"""no-public-ingress: nothing open to the internet except SSH from the configured CIDRs; no public IPs
on nodes.

An ingress rule from 0.0.0.0/0 or ::/0 (Azure: also `*`, `Internet`, `Any`) is a violation
unless it opens only TCP port 22 and that very CIDR is listed in `sshCidrs`. A rule whose sources
together cover the whole address space (0.0.0.0/1 + 128.0.0.0/1) is world-open too, and so is a
GCP ingress allow rule with no source ranges, tags or service accounts (GCP then applies
0.0.0.0/0). Deny rules and disabled rules open nothing. Rules from narrower sources are the
cluster's own business (EFA/IB self rules, the spec's access.ssh_cidrs).

Here: the policy's metadata, each cloud's per-resource check (rules and node public-IP
settings) and check_stack, which asks the modules that judge the stack as a whole:
node_addresses (public subnets, the default VPC), public_entries (inbound NAT, public balancers
and front doors), dnat (Alibaba forward entries, Azure Firewall DNAT) and split_ingress (rules
that open a group only together). world_sources reads which sources are the whole internet.
"""
from __future__ import annotations

from typing import Any, Iterable, Mapping

from trainstack_policies import capacity
from trainstack_policies.inventory import spot_fleet_view
from trainstack_policies.inventory.gpu_names import gpu_named
from trainstack_policies.model import (
    AWS_INTERFACE_KEYS,
    UNKNOWN,
    BadNumber,
    Resource,
    UnknownValue,
    Violation,
    as_list,
    checked_number,
    has_unknown,
    number,
    short_repr,
    truthy,
    violation,
)
from trainstack_policies.rules.dnat import alicloud_dnat, azure_firewall_dnat
from trainstack_policies.rules.node_addresses import (
    AWS_INSTANCES,
    AWS_LAUNCH_CONFIGURATIONS,
    AWS_NATIVE_SUBNET,
    AWS_SUBNET,
    AZURE_BATCH_POOL,
    AZURE_ML_PUBLIC_IP,
    LAUNCH_TEMPLATE_SET,
    NATIVE_SPOT_FLEET,
    azure_ml_public_ip,
    batch_public_ip,
    default_vpc,
    interfaces_path,
    public_subnets,
)
from trainstack_policies.rules.public_entries import azure_nat_pools, public_balancers
from trainstack_policies.rules.split_ingress import (
    ALI_RULE,
    AZURE_CLASSIC_NSG,
    AZURE_CLASSIC_RULE,
    NATIVE_INGRESS,
    NATIVE_SECURITY_GROUP,
    split_rules,
)
from trainstack_policies.rules.world_sources import allowed_ssh, as_world, covered, only_port_22

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
    for source, path in covered(list(cidrs), r):
        world = as_world(source, r, path)
        if world and not allowed_ssh(world, ssh_only, config):
            ports = "all ports" if proto in ("-1", "all") else _ports(low, high)
            out.append(_open_rule(r, world, ports, ssh_only, config, path))
    return out


def _aws(r: Resource, config) -> list[Violation]:
    t = r.type
    if t == "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule":
        return _aws_rule(r, [(r.get("cidrIpv4"), "cidrIpv4"), (r.get("cidrIpv6"), "cidrIpv6")],
                         r.get("ipProtocol"), r.get("fromPort"), r.get("toPort"), config)
    if t == "aws:ec2/securityGroupRule:SecurityGroupRule":
        cidrs = [(c, "cidrBlocks") for c in r.items("cidrBlocks")]
        cidrs += [(c, "ipv6CidrBlocks") for c in r.items("ipv6CidrBlocks")]
        kind = r.get("type")
        if kind is UNKNOWN and any(as_world(c, r, p) for c, p in covered(cidrs, r)):
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
    if t == NATIVE_INGRESS:
        # CloudFormation AWS::EC2::SecurityGroupIngress (pulumi-aws-native: its property names
        # in camelCase): one rule, CidrIp / CidrIpv6, IpProtocol ("-1": all traffic), FromPort,
        # ToPort; a SourcePrefixListId is judged where the prefix list is declared.
        return _aws_rule(r, [(r.get("cidrIp"), "cidrIp"), (r.get("cidrIpv6"), "cidrIpv6")],
                         r.get("ipProtocol"), r.get("fromPort"), r.get("toPort"), config)
    if t == NATIVE_SECURITY_GROUP:
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
        worlds = {w for w in (as_world(c, r, p) for c, p in covered(cidrs, r)) if w}
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
            if not groups and not allowed_ssh("0.0.0.0/0", True, config):
                # EKS: an SSH key without source security groups opens port 22 to 0.0.0.0/0.
                return [_open_rule(r, "0.0.0.0/0", "port 22", True, config,
                                   "remoteAccess without sourceSecurityGroupIds")]
        return []
    if t in LAUNCH_TEMPLATE_SET:
        # _nic and _known, inline: a p5 template has 33 interfaces, and the path of each is
        # only needed to say which one is unknown. An aws-native template's interfaces are
        # under launchTemplateData, the same flag on each (CloudFormation
        # AWS::EC2::LaunchTemplate NetworkInterface.AssociatePublicIpAddress).
        path = interfaces_path(r)
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
    if (t in AWS_INSTANCES or t in AWS_LAUNCH_CONFIGURATIONS) and \
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
    if t == "aws:ec2/spotFleetRequest:SpotFleetRequest" or t == NATIVE_SPOT_FLEET:
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
        # "22" or the one-port range "22-22" (world_sources.only_port_22).
        ssh_only = ssh_only and str(protocol).lower() in ("tcp", "6") and only_port_22(ports)
        parts.append(f"{protocol} {','.join(ports) or 'all ports'}")
    return ssh_only, "; ".join(parts)



GKE_CLUSTER_TYPE = "gcp:container/cluster:Cluster"


def _gke(r: Resource) -> list[Violation]:
    """A GKE cluster or node pool whose nodes get external IPs; a cluster's inline `nodePools`
    judged each as a standalone NodePool is. A pool's own networkConfig.enablePrivateNodes
    overrides the cluster's ("If enable_private_nodes is not specified, then the value is
    derived from cluster.privateClusterConfig.enablePrivateNodes": GKE API NodeNetworkConfig).
    A value unknown at preview is "cannot decide" only where nothing here fails."""
    out: list[Violation] = []
    unknown = None
    try:
        out += _gke_own(r)
    except UnknownValue as e:
        unknown = e
    if r.type == GKE_CLUSTER_TYPE:
        pools = r.get("nodePools")
        if pools is UNKNOWN:
            unknown = unknown or UnknownValue(r, "nodePools")
        # One pool written as one object is a list of that one (as spend-limit reads it).
        for i, pool in enumerate([] if pools is UNKNOWN else as_list(pools)):
            try:
                out += _gke_inline_pool(r, i, pool)
            except UnknownValue as e:
                unknown = unknown or e
    if not out and unknown is not None:
        raise unknown
    return out


def _gke_inline_pool(r: Resource, i: int, pool: Any) -> list[Violation]:
    """One entry of a cluster's nodePools, as _gke_own judges a standalone NodePool."""
    if pool is UNKNOWN:
        raise UnknownValue(r, f"nodePools.{i}")
    if not isinstance(pool, Mapping):
        return []   # no pool the pack can read (spend-limit fails closed on it)
    name = pool.get("name")
    where = f"nodePools.{i}" + (f" ({name})" if isinstance(name, str) and name else "")
    net = pool.get("networkConfig")
    if net is UNKNOWN:
        raise UnknownValue(r, f"nodePools.{i}.networkConfig")
    if net is not None and not isinstance(net, Mapping):
        return [violation(r, "whether the GKE nodes get external IP addresses cannot be read",
                          f"{where} networkConfig {short_repr(net)} is no object",
                          "an object with enablePrivateNodes true",
                          "write networkConfig as one object (not a list of one) with "
                          "enable_private_nodes=True")]
    private = net.get("enablePrivateNodes") if net is not None else None
    if private is UNKNOWN:
        raise UnknownValue(r, f"nodePools.{i}.networkConfig.enablePrivateNodes")
    if private is False:
        return [violation(r, "the GKE nodes get external IP addresses",
                          f"enablePrivateNodes {private} ({where})", "true",
                          "set private_cluster_config.enable_private_nodes=True (node "
                          "pools: network_config.enable_private_nodes=True)")]
    return []


def _gke_own(r: Resource) -> list[Violation]:
    """A GKE cluster's own setting (its default pool) or a standalone NodePool's."""
    # The object holding enablePrivateNodes written as a list of one (or another shape) is
    # neither read as absent (the cluster's setting, or none, standing in) nor as its one
    # item: a violation naming it (docs, Numbers are validated; fix69's refusal of GCP
    # objects written as lists).
    holders = ("privateClusterConfig", "networkConfig") if r.type.endswith("Cluster") \
        else ("networkConfig",)
    shaped = [(key, r.get(key)) for key in holders
              if r.get(key) is not None and r.get(key) is not UNKNOWN
              and not isinstance(r.get(key), Mapping)]
    if shaped:
        key, value = shaped[0]
        return [violation(r, "whether the GKE nodes get external IP addresses cannot be read",
                          f"{key} {short_repr(value)} is no object", "an object with "
                          "enablePrivateNodes true",
                          f"write {key} as one object (not a list of one) with "
                          "enable_private_nodes=True")]
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
        worlds = [(w, path) for w, path in ((as_world(src, r, p), p) for src, p in
                                            covered(ranges, r)) if w]
        if not worlds:
            return []   # a private source: the ports do not matter
        ssh_only, ports = _gcp_ports(r, allows)
        return [_open_rule(r, world, ports, ssh_only, config, path) for world, path in worlds
                if not allowed_ssh(world, ssh_only, config)]
    if r.type in ("gcp:compute/networkFirewallPolicyRule:NetworkFirewallPolicyRule",
                  "gcp:compute/regionNetworkFirewallPolicyRule:RegionNetworkFirewallPolicyRule",
                  "gcp:compute/firewallPolicyRule:FirewallPolicyRule"):
        ranges = [(src, f"match.srcIpRanges.{i}")
                  for i, src in enumerate(r.items("match.srcIpRanges"))]
        worlds = [(w, p) for w, p in ((as_world(src, r, p), p) for src, p in covered(ranges, r))
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
                if not allowed_ssh(w, ssh_only, config)]
    if r.type in (GKE_CLUSTER_TYPE, "gcp:container/nodePool:NodePool"):
        return _gke(r)
    if r.type in _GCP_NOTEBOOKS:
        return _gcp_notebook(r)
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


# GCP notebook VMs, by (the object holding the machine, the flag that turns the external IP
# off): a Vertex AI Workbench instance (Notebooks API v2 GceSetup.disablePublicIp, "If true, no
# external IP will be assigned to this VM instance"; pulumi-gcp workbench.Instance: "If no
# accessConfigs specified, the instance will have an external internet access through an
# ephemeral external IP address"), the older user-managed notebook (notebooks v1 Instance
# noPublicIp, "If true, no public IP will be assigned to this instance") and managed runtime
# (VirtualMachineConfig.internalIpOnly: "By default, runtimes are not restricted to internal IP
# addresses, and will have ephemeral external IP addresses assigned to each vm").
# The object holding each flag is the one holding the machine (capacity.GCP_NOTEBOOK_VMS).
_GCP_NOTEBOOKS = {"gcp:workbench/instance:Instance": "disablePublicIp",
                  "gcp:notebooks/instance:Instance": "noPublicIp",
                  "gcp:notebooks/runtime:Runtime": "internalIpOnly"}


def _gcp_notebook(r: Resource) -> list[Violation]:
    """A GCP notebook VM with GPUs (spend-limit's GPU sign: a GPU machine type such as a2, a3,
    g2, or an accelerator config declaring one), judged as a GPU VM with an access config: a
    violation unless its flag says no external IP (a flag that is no boolean cannot be read,
    so it proves nothing). A flag, machine or accelerators unknown at preview that may hide
    it: "cannot decide". One without GPUs is not judged here."""
    holder_path, flag = capacity.GCP_NOTEBOOK_VMS[r.type], _GCP_NOTEBOOKS[r.type]
    holder: Any = r.props
    for part in holder_path.split(".") if holder_path else ():
        holder = holder.get(part) if isinstance(holder, Mapping) else holder
        if holder is UNKNOWN:
            raise UnknownValue(r, holder_path)
        if holder is not None and not isinstance(holder, Mapping):
            # Written in another shape than an object (a list of one): there, but neither
            # absent nor its one item (as GKE's privateClusterConfig written as a list).
            return [violation(r, "whether the notebook VM has GPUs and an external IP "
                              "address cannot be read", f"{holder_path} {short_repr(holder)} is no object",
                              f"an object with {flag} true",
                              f"write {holder_path} as one object (not a list of one) with "
                              f"{flag} true")]
    path = f"{holder_path}.{flag}" if holder_path else flag
    holder = holder if isinstance(holder, Mapping) else {}
    value = holder.get(flag)
    if value is True or (isinstance(value, str) and value.strip().lower() == "true"):
        return []
    machine = holder.get("machineType")
    signs = capacity.gpu_signs([r], set(), gpu_named)
    if isinstance(machine, str) and gpu_named(r.cloud, machine, "type"):
        gpus = f"machineType {machine}"
    elif signs and signs[0].value is not UNKNOWN:
        gpus = f"{signs[0].field} {signs[0].value}"
    else:
        # No GPU sign, or only accelerators unknown at preview (spend-limit's sign, failing
        # closed there); a machine or accelerators unknown at preview may be a GPU notebook's.
        hidden = [key for key in ("machineType", "acceleratorConfig", "acceleratorConfigs")
                  if has_unknown(holder.get(key))]
        if hidden or signs:
            key = hidden[0] if hidden else signs[0].field
            raise UnknownValue(r, f"{holder_path}.{key}" if holder_path else key)
        return []
    if value is UNKNOWN:
        raise UnknownValue(r, path)
    said = (f"{flag} left out (the default, false)" if value is None else
            f"{flag} {short_repr(value)}" + ("" if value is False or str(value).strip().lower()
                                              == "false" else " (no boolean)"))
    return [violation(r, "the GPU notebook VM gets an external IP address",
                      f"{said}; GPUs: {gpus}", f"{flag} true",
                      f"set {path} true; use Cloud NAT for egress and IAP or the SSH CIDRs "
                      "for access")]


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
        if not any(as_world(src, r, p) for src, p in covered(sources, r)):
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
        ssh_only = str(rule.get("protocol", "")).lower() == "tcp" and only_port_22(ports)
        for source, path in covered(sources, r):
            world = as_world(source, r, path)
            if world and not allowed_ssh(world, ssh_only, config):
                shown = "all ports" if not ports or "*" in ports else "ports " + ",".join(ports)
                out.append(_open_rule(r, world, shown, ssh_only, config, path))
    return out


_AZURE_CLASSIC_AKS_CLUSTER = "azure:containerservice/kubernetesCluster:KubernetesCluster"
_AZURE_CLASSIC_AKS_POOL = ("azure:containerservice/kubernetesClusterNodePool:"
                           "KubernetesClusterNodePool")
_CLASSIC_NODE_PUBLIC_IP = ("nodePublicIpEnabled", "enableNodePublicIp")
_AZURE_CLASSIC_VMSS = ("azure:compute/linuxVirtualMachineScaleSet:LinuxVirtualMachineScaleSet",
                       "azure:compute/windowsVirtualMachineScaleSet:WindowsVirtualMachineScaleSet",
                       "azure:compute/orchestratedVirtualMachineScaleSet:"
                       "OrchestratedVirtualMachineScaleSet")


def _azure(r: Resource, config) -> list[Violation]:
    if r.type in (AZURE_CLASSIC_RULE, "azure-native:network:SecurityRule"):
        return _azure_rules(r, [r.props], "", config)
    if r.type in ("azure-native:network:NetworkSecurityGroup", AZURE_CLASSIC_NSG):
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
    if r.type in AZURE_ML_PUBLIC_IP:
        return azure_ml_public_ip(r)
    if r.type == AZURE_BATCH_POOL:
        return batch_public_ip(r)
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


_AZURE_SF_NODE_TYPE = "azure-native:servicefabric:NodeType"


def _alicloud(r: Resource, config) -> list[Violation]:
    if r.type == ALI_RULE:
        sources = ((r.get("cidrIp"), "cidrIp"), (r.get("ipv6CidrIp"), "ipv6CidrIp"))
        if not any(as_world(src, r, p) for src, p in sources):
            return []
        if r.known("type") != "ingress" or \
                str(r.known("policy") or "accept").lower() != "accept":
            return []
        proto = str(r.get("ipProtocol")).lower()
        port_range = str(r.get("portRange") or "-1/-1")
        ssh_only = proto == "tcp" and port_range == "22/22"
        out = []
        for source, path in sources:
            world = as_world(source, r, path)
            if world and not allowed_ssh(world, ssh_only, config):
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
        # way out or in for the service, not a node's own address (an EIP on a balancer with
        # GPU nodes behind it is judged with the stack: public_entries.public_balancers).
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


def check_stack(resources: list[Resource], config: Mapping[str, Any]) -> list[Violation]:
    """What one Analyze call cannot see: public subnets judged by what is placed in them, and
    ingress split across rules. A value unknown at preview that could hide a violation is
    "cannot decide" when nothing else here fails."""
    # An aws-native SpotFleet as the classic request (spot_fleet_view: its config's inputs).
    resources = [spot_fleet_view(r) if r.type == NATIVE_SPOT_FLEET else r for r in resources]
    subnets, unknown = public_subnets(resources)
    nat, outside = azure_nat_pools(resources)
    balanced, lb_unknown = public_balancers(resources)
    firewall, fw_unknown = azure_firewall_dnat(resources, config)
    out = subnets + split_rules(resources) + nat + balanced + alicloud_dnat(resources) + \
        firewall + default_vpc(resources)
    unknown = unknown or outside or lb_unknown or fw_unknown
    if unknown is not None and not out:
        raise unknown
    return out


_HANDLERS = {"aws": _aws, "gcp": _gcp, "azure": _azure, "alicloud": _alicloud}


def check(resource: Resource, config: Mapping[str, Any]) -> list[Violation]:
    handler = _HANDLERS.get(resource.cloud)
    return handler(resource, config) if handler else []
