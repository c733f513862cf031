"""Nodes that get public addresses of their own, judged over the stack (no-public-ingress).

- AWS public subnets (mapPublicIpOnLaunch true) by what is placed in them: compute placed there
  gets a public IP unless it declines one itself (an interface's associatePublicIpAddress false,
  read through launch templates, configurations and fleets); NAT gateways and load balancers
  (EDGE) and what only describes the subnet (PLACES_NOTHING) hold none. Compute whose subnet is
  unknown at preview and depends on no subnet of the stack may land in a public one.
- AWS compute that names no subnet: EC2 launches it in the default VPC's default subnet, and "By
  default, a default subnet is a public subnet" (docs.aws.amazon.com/vpc/latest/userguide/
  default-vpc.html).
- Azure ML compute and Batch pools whose nodes get public IPs by a flag or by its default (called
  per resource by no_public_ingress's Azure check).
The AWS type tokens and launch-template readers here serve no_public_ingress's AWS check too.
"""
from __future__ import annotations

from typing import Any, Iterable, Optional

from trainstack_policies.model import (
    AWS_INTERFACE_KEYS,
    UNKNOWN,
    Resource,
    UnknownValue,
    Violation,
    truthy,
    violation,
)
from trainstack_policies.rules.world_sources import plain_list


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
NATIVE_SPOT_FLEET = "aws-native:ec2:SpotFleet"
_SPOT_FLEETS = ("aws:ec2/spotFleetRequest:SpotFleetRequest", NATIVE_SPOT_FLEET)
# An instance and a Spot Instance request (which takes an instance's inputs and launches one).
AWS_INSTANCES = ("aws:ec2/instance:Instance", "aws:ec2/spotInstanceRequest:SpotInstanceRequest")


def _declines_public_ip(r: Resource) -> bool:
    """Compute that turns public IPs off itself (the interface's associatePublicIpAddress
    overrides the subnet's mapPublicIpOnLaunch): an instance, a launch template whose every
    interface says false, or a group / fleet whose every launch template does."""
    if r.type in AWS_INSTANCES or r.type in AWS_LAUNCH_CONFIGURATIONS:
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
        nics = r.list_entries(interfaces_path(r), AWS_INTERFACE_KEYS)
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
LAUNCH_TEMPLATE_SET = frozenset(_AWS_LAUNCH_TEMPLATES)
AWS_LAUNCH_CONFIGURATIONS = ("aws:ec2/launchConfiguration:LaunchConfiguration",
                              "aws-native:autoscaling:LaunchConfiguration")


def _launch_templates(r: Resource, with_configurations: bool = False) -> list[Resource]:
    """The stack's launch templates a group, fleet or instance launches from (and, asked, its
    launch configuration, which holds associatePublicIpAddress but no interfaces)."""
    keys = _AWS_TEMPLATE_KEYS + (("launchConfiguration", "launchConfigurationName")
                                 if with_configurations else ())
    kinds = _AWS_LAUNCH_TEMPLATES + AWS_LAUNCH_CONFIGURATIONS if with_configurations else \
        _AWS_LAUNCH_TEMPLATES
    return [d for key in keys for d in r.deps.get(key, []) if d.type in kinds]


def interfaces_path(template: Resource) -> str:
    """Where a launch template keeps its network interfaces (aws: networkInterfaces;
    aws-native: under launchTemplateData)."""
    return "launchTemplateData.networkInterfaces" \
        if template.type == "aws-native:ec2:LaunchTemplate" else "networkInterfaces"


def _template_interfaces(template: Resource) -> Any:
    """A launch template's network interfaces."""
    return template.get(interfaces_path(template))


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
    if own or r.type in LAUNCH_TEMPLATE_SET:
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


def public_subnets(resources: list[Resource]) -> tuple[list[Violation], Optional[UnknownValue]]:
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
                           if r.type in _PLACEMENT and r.type not in LAUNCH_TEMPLATE_SET)


def _first_placed_unknown(unplaced: Iterable[tuple[Resource, Optional[str]]]
                          ) -> Optional[tuple[Resource, str]]:
    """The first compute (not a launch template, not one turning public IPs off itself)
    placed in a subnet unknown at preview, with the input that names it."""
    for r, key in unplaced:
        if key is None or r.type in LAUNCH_TEMPLATE_SET or _declines_public_ip(r):
            continue
        return r, key
    return None


def _first_unplaced(unplaced: Iterable[tuple[Resource, Optional[str]]]) -> Optional[UnknownValue]:
    """_unknown_placement's answer from (resource, _unknown_subnet(resource)) in stack order
    (public_subnets has them already: the stack is not walked twice)."""
    first = _first_placed_unknown(unplaced)
    if first is None:
        return None
    r, key = first
    return UnknownValue(r, f"{key} (a subnet unknown at preview, with no subnet of the "
                           "stack behind it: its mapPublicIpOnLaunch may be true, giving "
                           "the nodes public IP addresses)")


_AZURE_ML_COMPUTE = "azure-native:machinelearningservices:Compute"
_AZURE_CLASSIC_ML_CLUSTER = "azure:machinelearning/computeCluster:ComputeCluster"
_AZURE_CLASSIC_ML_INSTANCE = "azure:machinelearning/computeInstance:ComputeInstance"
AZURE_ML_PUBLIC_IP = frozenset({_AZURE_ML_COMPUTE, _AZURE_CLASSIC_ML_CLUSTER,
                                 _AZURE_CLASSIC_ML_INSTANCE})
AZURE_BATCH_POOL = "azure-native:batch:Pool"


def azure_ml_public_ip(r: Resource) -> list[Violation]:
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


def batch_public_ip(r: Resource) -> list[Violation]:
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
    return any(_names_subnet(v) for v in plain_list(value))


def default_vpc(resources: list[Resource]) -> list[Violation]:
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
