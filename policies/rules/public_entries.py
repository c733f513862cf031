"""GPU nodes the internet reaches through a public entry point of the stack, with no public IP of
their own (no-public-ingress). One Analyze call cannot see this: the entry point is another
resource, so check_stack asks here.

- Azure inbound NAT rules and pools (azure-native and classic) of a public load balancer, joined
  by scale sets, VMs and NICs (azure_nat_pools); NAT rules named by literal ids of a balancer the
  stack does not create are "cannot decide" (OutsideStack).
- The walk from each public balancer (Azure load balancers and Application Gateways, AWS, GCP and
  Alibaba balancers and forwarding rules) or public front door (front_doors.py) through the
  load-balancing plumbing, tiered in the direction traffic flows (_LB_TIERS), to the GPU compute
  it names (public_balancers).
The NIC readers (azure_private_ips, nic_nodes) serve dnat too, and group_key serves
split_ingress.
"""
from __future__ import annotations

from typing import Any, Iterable, Optional

from trainstack_policies.inventory.budgets import RESOURCE_GROUPS, resource_group_key
from trainstack_policies.model import (
    UNKNOWN,
    OutsideStack,
    Resource,
    UnknownValue,
    Violation,
    truthy,
    violation,
)
from trainstack_policies.rules import front_doors
from trainstack_policies.rules.world_sources import plain_list


_AZURE_LB = "azure-native:network:LoadBalancer"
_AGW = "azure-native:network:ApplicationGateway"
AZURE_NIC = "azure-native:network:NetworkInterface"
_AZURE_NIC_PATHS = {
    "azure-native:compute:VirtualMachineScaleSet":
        "virtualMachineProfile.networkProfile.networkInterfaceConfigurations",
    "azure-native:compute:VirtualMachine": "networkProfile.networkInterfaceConfigurations",
    "azure-native:network:NetworkInterface": "",
}


def _public_frontend(lb: Resource) -> bool:
    """A load balancer with a public frontend (an Azure load balancer is public or internal)."""
    return any(isinstance(fe, dict) and (fe.get("publicIPAddress") or fe.get("publicIPPrefix"))
               for fe in plain_list(lb.get("frontendIPConfigurations")))


def _public_nat(lb: Resource) -> bool:
    """A load balancer with a public frontend and inbound NAT pools or rules: each forwards a
    port of the public address to one backend VM (learn.microsoft.com/azure/load-balancer/
    inbound-nat-rules)."""
    return _public_frontend(lb) and bool(plain_list(lb.get("inboundNatPools"))
                                         or plain_list(lb.get("inboundNatRules")))


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
    return value is UNKNOWN or any(fe is UNKNOWN for fe in plain_list(value))


def _unread_frontend(lb: Resource) -> UnknownValue:
    return UnknownValue(lb, f"{_frontends_key(lb)} (whether load balancer {lb.name}, which forwards ports to "
                            "the nodes, has a public frontend)")


def _lb_public(lb: Resource) -> bool:
    """An Azure load balancer, azure-native or classic, with a public frontend."""
    if lb.type == _CLASSIC_LB:
        return any(isinstance(fe, dict) and (fe.get("publicIpAddressId") or fe.get("publicIpPrefixId"))
                   for fe in plain_list(lb.get("frontendIpConfigurations")))
    return _public_frontend(lb)


def group_key(r: Resource) -> Optional[str]:
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
        name, group, path = r.get("loadBalancerName"), group_key(r), "loadBalancerName"
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
    same = [lb for lb in balancers if _lb_name(lb) == name.lower() and group_key(lb) == group
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
            for nic in configs for ip in plain_list(nic.get("ipConfigurations")) if isinstance(ip, dict)
            for key in ("loadBalancerInboundNatPools", "loadBalancerInboundNatRules")
            for ref in plain_list(ip.get(key))]


def _balancer_of(ref: Any) -> str:
    """The load balancer an ARM id of a NAT pool / rule names (".../loadBalancers/<name>/...")."""
    parts = ref.split("/") if isinstance(ref, str) else []
    lowered = [p.lower() for p in parts]
    if "loadbalancers" in lowered and lowered.index("loadbalancers") + 1 < len(parts):
        return parts[lowered.index("loadbalancers") + 1]
    return str(ref)


def azure_nat_pools(resources: list[Resource]) -> tuple[list[Violation], Optional[UnknownValue]]:
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
                plain_list(r.get("inboundNatPools")) or plain_list(r.get("inboundNatRules"))):
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
        configs = [r.props] if not path else [n for n in plain_list(r.get(path)) if isinstance(n, dict)]
        nat = [str(ip.get("name")) for nic in configs for ip in plain_list(nic.get("ipConfigurations"))
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
_AWSN_LB = "aws-native:elasticloadbalancingv2:LoadBalancer"
# The aws-native Classic Load Balancer (CloudFormation AWS::ElasticLoadBalancing::LoadBalancer):
# its `instances`, or an Auto Scaling group naming it in `loadBalancers`, are its nodes, as the
# classic aws:elb one's (review85 DEFECT 1: absent from the tiers, never walked).
_AWSN_ELB = "aws-native:elasticloadbalancing:LoadBalancer"
_LB_TIERS = {
    "aws:lb/loadBalancer:LoadBalancer": 0, "aws:alb/loadBalancer:LoadBalancer": 0,
    "aws:elb/loadBalancer:LoadBalancer": 0, _AWSN_ELB: 0,
    "aws:lb/listener:Listener": 1, "aws:alb/listener:Listener": 1,
    # A listener rule names its listener (listenerArn), so it sits a tier above it (review67:
    # at the listener's tier, a rule depending only on its listener was never reached).
    "aws:lb/listenerRule:ListenerRule": 2, "aws:alb/listenerRule:ListenerRule": 2,
    "aws:lb/targetGroup:TargetGroup": 3, "aws:alb/targetGroup:TargetGroup": 3,
    "aws:lb/targetGroupAttachment:TargetGroupAttachment": 4,
    "aws:alb/targetGroupAttachment:TargetGroupAttachment": 4,
    "aws:autoscaling/attachment:Attachment": 4, "aws:elb/attachment:Attachment": 3,
    # aws-native (CloudFormation AWS::ElasticLoadBalancingV2::*): a listener's defaultActions
    # (targetGroupArn, forwardConfig.targetGroups) and a rule's actions name target groups; a
    # target group names its nodes in `targets` (id: an instance id or IP). Tiered as the
    # classic ones, so the two mix (review77 DEFECT 2: absent, the walk never left the balancer).
    _AWSN_LB: 0, "aws-native:elasticloadbalancingv2:Listener": 1,
    "aws-native:elasticloadbalancingv2:ListenerRule": 2,
    "aws-native:elasticloadbalancingv2:TargetGroup": 3,
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
    if t == _AWSN_LB or t == _AWSN_ELB:
        # scheme internet-facing (the default) or internal; a Gateway Load Balancer has none
        # (CloudFormation AWS::ElasticLoadBalancingV2::LoadBalancer Scheme, Type; a Classic
        # Load Balancer's Scheme alike, "internet-facing" unless "internal", and no Type).
        # A type unknown at preview is read as the classic loadBalancerType is: not a gateway.
        if str(r.get("type") or "").lower() == "gateway":
            return False
        scheme = r.get("scheme")
        if scheme is UNKNOWN:
            return UNKNOWN
        return str(scheme or "internet-facing").lower() != "internal"
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
        inbound = bool(plain_list(r.get("loadBalancingRules"))) or any(
            isinstance(n, dict) and n.get("backendAddressPool")
            for n in plain_list(r.get("inboundNatRules")))
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
    if frontends is UNKNOWN or any(fe is UNKNOWN for fe in plain_list(frontends)):
        return UNKNOWN
    public = {str(fe.get("name")).lower() for fe in plain_list(frontends)
              if isinstance(fe, dict) and (fe.get("publicIPAddress") or fe.get("publicIPPrefix"))}
    if not public:
        return False
    unread = False
    for key in ("httpListeners", "listeners"):
        listeners = agw.get(key)
        if listeners is UNKNOWN:
            return UNKNOWN
        for listener in plain_list(listeners):
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
            for nic in plain_list(r.get("networkInterfaces")) if isinstance(nic, dict)
            for ip in plain_list(nic.get("ipConfigurations")))
    path = _AZURE_NIC_PATHS.get(r.type)
    if path is None:
        return True
    configs = [r.props] if not path else [n for n in plain_list(r.get(path)) if isinstance(n, dict)]
    if any(isinstance(ip, dict) and any(ip.get(k) for k in keys)
           for nic in configs for ip in plain_list(nic.get("ipConfigurations"))):
        return True
    return r.type == "azure-native:compute:VirtualMachine" and any(
        _in_backend_pool(nic, keys) for nic in r.deps.get("networkProfile", ())
        if nic.type == AZURE_NIC)


def azure_private_ips(resources: list[Resource]) -> dict[str, list[Resource]]:
    """The static private IPv4 / IPv6 addresses the stack gives its azure-native NICs
    (ipConfigurations[].privateIPAddress) -> those NICs."""
    by_ip: dict[str, list[Resource]] = {}
    for nic in resources:
        if nic.type != AZURE_NIC:
            continue
        for ip in plain_list(nic.get("ipConfigurations")):
            address = ip.get("privateIPAddress") if isinstance(ip, dict) else None
            if isinstance(address, str) and address.strip():
                by_ip.setdefault(address.strip(), []).append(nic)
    return by_ip


def nic_nodes(nics: Iterable[Resource], resources: list[Resource]) -> list[Resource]:
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
    nics = [d for d in agw.deps.get("backendAddressPools", ()) if d.type == AZURE_NIC]
    addresses = [a.get("ipAddress") for pool in plain_list(agw.get("backendAddressPools"))
                 if isinstance(pool, dict) for a in plain_list(pool.get("backendAddresses"))
                 if isinstance(a, dict)]
    literal = [a.strip() for a in addresses if isinstance(a, str) and a.strip()]
    if literal:
        by_ip = azure_private_ips(resources) if by_ip is None else by_ip
        nics += [n for a in literal for n in by_ip.get(a, []) if n not in nics]
    return nic_nodes(nics, resources)


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


# Alibaba EIP associations (pulumi-alicloud ecs.EipAssociation; the eip.Association alias).
_ALI_EIP_LINKS = ("alicloud:ecs/eipAssociation:EipAssociation",
                  "alicloud:eip/association:Association")
# instanceType values naming something other than a balancer (pulumi-alicloud ecs.EipAssociation
# instance_type: Nat, SlbInstance, EcsInstance (the default), NetworkInterface, HaVip, IpAddress).
_NOT_BALANCER_EIP = ("nat", "ecsinstance", "networkinterface", "havip", "ipaddress")


def _ali_eip(lb: Resource, links: list[Resource]) -> Any:
    """What serves an Alibaba balancer to the internet whatever its addressType (an EIP), an
    UnknownValue where that rests on a value unknown at preview, or None. EIPs associate with
    "internal-facing CLB instances in VPCs, ALB instances and NLB instances"
    (alibabacloud.com/help/doc-detail/197100.htm, EIP FAQ), and "after you
    associate an EIP with a cloud resource, that resource can communicate over the internet"
    (alibabacloud.com/help/doc-detail/72125.htm): an association that depends on the balancer,
    or an NLB / ALB zone mapping naming an EIP (`allocationId`, ALB `eipType` too)."""
    for link in links:
        if any(d is lb for ds in link.deps.values() for d in ds):
            return f"EIP association {link.name}"
    unread: Optional[str] = None
    for zm in plain_list(lb.get("zoneMappings")):
        if not isinstance(zm, dict):
            continue
        for key in ("allocationId", "eipType"):
            value = zm.get(key)
            if value is UNKNOWN:
                unread = unread or f"zoneMappings[].{key}"
            elif isinstance(value, str) and value.strip():
                return f"zoneMappings[].{key} {value.strip()}"
    if unread:
        return UnknownValue(lb, f"{unread} (an EIP unknown at preview may serve the balancer "
                                "to the internet)")
    for link in links:
        kind = link.get("instanceType")
        target = link.get("instanceId")
        if kind is not UNKNOWN and str(kind or "EcsInstance").lower() in _NOT_BALANCER_EIP:
            continue
        if target is UNKNOWN and not link.deps.get("instanceId"):
            # An SlbInstance association whose target is unknown at preview, with no resource
            # of the stack behind it: it may be this balancer.
            return UnknownValue(link, "instanceId (an EIP association whose target is unknown "
                                      "at preview may be on the GPU nodes' load balancer)")
    return None


def public_balancers(resources: list[Resource]
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
            by_ip = azure_private_ips(resources) if by_ip is None else by_ip
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
        eip = None
        if public is not True and lb.type.startswith("alicloud:") and lb.type in _LB_TIERS:
            eip = _ali_eip(lb, [r for r in resources if r.type in _ALI_EIP_LINKS])
            if isinstance(eip, UnknownValue):
                unknown = unknown or eip
                eip = None
            elif eip is not None:
                public = True
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
                "balancer", f"{lb.name} ({lb.type}) forwards internet traffic to them"
                + (f" ({eip} gives it an internet address)" if eip else ""),
                "no internet-facing load balancer or front door in front of GPU nodes",
                "make the load balancer internal (AWS internal=True, GCP INTERNAL scheme, Azure "
                "a private frontend or listener, Alibaba addressType intranet and no EIP) and "
                "put no public "
                "front door (AWS or Alibaba Global Accelerator, CloudFront VPC origin, API "
                "Gateway VPC link, Front Door Private Link) before it, or front the nodes with a "
                "CPU tier; reach the nodes through a bastion or the SSH CIDRs"))
    return out, unknown


def _tier(r: Resource, default: int = 0) -> int:
    """A resource's tier in the walk from the internet: front doors, then balancers, listeners,
    target groups, attachments."""
    tier = _LB_TIERS.get(r.type)
    return tier if tier is not None else front_doors.TIERS.get(r.type, default)
