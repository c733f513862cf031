"""Public front doors to private targets (no-public-ingress, review61 DEFECT 2): AWS services
that take traffic from the internet and hand it to a load balancer, listener or instance inside
the VPC, internal or not. public_entries.public_balancers walks from each front door, as
from an internet-facing balancer, to the GPU nodes behind it.

- Global Accelerator endpoint groups: an accelerator's static anycast IPs take internet traffic
  to its endpoints: Application / Network Load Balancers ("can be internet-facing or
  internal"), EC2 instances and Elastic IPs (docs.aws.amazon.com/global-accelerator/latest/dg/
  about-endpoints-caveats.html).
- CloudFront VPC origins: a distribution serves an ALB, NLB or EC2 instance "in private
  subnets" to its viewers, CloudFront being "the single point of entry" (docs.aws.amazon.com/
  AmazonCloudFront/latest/DeveloperGuide/private-content-vpc-origins.html). A VPC origin exists
  to be a distribution's origin, and a distribution serves the internet: the origin is the
  front door, wherever its distribution is declared.
- API Gateway private integrations (connectionType VPC_LINK): they "expose your HTTP/HTTPS
  resources within an Amazon VPC for access by clients outside of the VPC" (docs.aws.amazon.com/
  apigateway/latest/developerguide/set-up-private-integration.html). An HTTP or WebSocket API
  (apigatewayv2) has only public endpoints; a REST API (apigateway) whose endpointConfiguration
  types are all PRIVATE is reached only from VPC endpoints and publishes nothing.

Other clouds' front doors (review63 DEFECTS 5 and 8):
- Azure Front Door Premium origins with a shared Private Link resource (azure-native cdn
  AFDOrigin `sharedPrivateLinkResource`): Front Door "can connect to your origin using Private
  Link", an origin "hosted in a virtual network", so that it need not be public (learn.microsoft.
  com/azure/frontdoor/private-link); for a VM origin the link is a Private Link service on the
  internal load balancer in front of it (learn.microsoft.com/samples/azure/azure-quickstart-
  templates/front-door-premium-vm-private-link). Front Door's endpoints are on the internet. An
  origin without Private Link reaches only public addresses, which are judged where they are.
- Alibaba Cloud Global Accelerator endpoint groups (alicloud ga.EndpointGroup
  `endpointConfigurations`, types ECS, ENI, SLB, ALB, NLB among them) and basic GA endpoints
  (ga.BasicEndpoint `endpointAddress`, types ECS, ENI, SLB, NLB, "Private connection"): the
  accelerator's public IPs take internet traffic to a private ECS instance or internal balancer
  (alibabacloud.com/help/en/ga/user-guide/add-and-manage-endpoint-groups-and-endpoints-for-a-
  basic-ga-instance; .../create-and-manage-the-endpoint-groups-of-intelligent-routing-listeners).
"""
from __future__ import annotations

import re
from typing import Any, Optional

from trainstack_policies.model import UNKNOWN, Resource

# Front door type -> (the inputs naming its targets, its tier in the walk). A v1 (REST) VPC link
# sits between its integration and the NLB it names (targetArns).
_GA_EG = ("aws:globalaccelerator/endpointGroup:EndpointGroup",
          "aws-native:globalaccelerator:EndpointGroup")
_VPC_ORIGINS = ("aws:cloudfront/vpcOrigin:VpcOrigin", "aws-native:cloudfront:VpcOrigin")
_V2_INTEGRATIONS = ("aws:apigatewayv2/integration:Integration",
                    "aws-native:apigatewayv2:Integration")
_V1_INTEGRATION = "aws:apigateway/integration:Integration"
_V1_LINK = "aws:apigateway/vpcLink:VpcLink"
_AFD_ORIGIN = "azure-native:cdn:AFDOrigin"
# A Private Link service sits between a Front Door origin and the internal balancer whose
# frontend it names (loadBalancerFrontendIpConfigurations).
_PRIVATE_LINK_SERVICE = "azure-native:network:PrivateLinkService"
_ALI_GA = ("alicloud:ga/endpointGroup:EndpointGroup", "alicloud:ga/basicEndpoint:BasicEndpoint")
TARGETS = {
    **{t: ("endpointConfigurations",) for t in _GA_EG},
    **{t: ("vpcOriginEndpointConfig",) for t in _VPC_ORIGINS},
    **{t: ("integrationUri",) for t in _V2_INTEGRATIONS},
    _V1_INTEGRATION: ("connectionId",),
    _AFD_ORIGIN: ("sharedPrivateLinkResource",),
    _ALI_GA[0]: ("endpointConfigurations",),
    _ALI_GA[1]: ("endpointAddress",),
}
# Below a balancer's tier (0) so the walk goes on to it; the v1 link and the Private Link
# service between the two.
TIERS = {**{t: -2 for t in TARGETS}, _V1_LINK: -1, _PRIVATE_LINK_SERVICE: -1}
_REST_APIS = ("aws:apigateway/restApi:RestApi",)


def public(door: Resource) -> Any:
    """True / False / UNKNOWN: the front door takes traffic from the internet."""
    if door.type in _V2_INTEGRATIONS or door.type == _V1_INTEGRATION:
        kind = door.get("connectionType")
        if kind is UNKNOWN:
            return UNKNOWN
        if str(kind or "INTERNET").upper() != "VPC_LINK":
            return False   # an integration over the internet reaches nothing private
        if door.type == _V1_INTEGRATION:
            return _rest_api_public(door)
        return True
    if door.type in _GA_EG or door.type in _ALI_GA:
        return True
    if door.type == _AFD_ORIGIN:
        link = door.get("sharedPrivateLinkResource")
        return UNKNOWN if link is UNKNOWN else bool(link)
    return door.type in _VPC_ORIGINS


def _rest_api_public(integration: Resource) -> Any:
    """A REST API of the stack is public unless every endpointConfiguration type is PRIVATE
    (the default is EDGE); one the stack does not create may be private or not."""
    apis = [d for ds in integration.deps.values() for d in ds if d.type in _REST_APIS]
    if not apis:
        return UNKNOWN
    for api in apis:
        types = api.get("endpointConfiguration.types")
        if types is UNKNOWN or api.get("endpointConfiguration") is UNKNOWN or (
                isinstance(types, list) and any(t is UNKNOWN for t in types)):
            return UNKNOWN
        if not (isinstance(types, list) and types
                and all(str(t).upper() == "PRIVATE" for t in types)):
            return True
    return False


def _holds_unknown(value: Any) -> bool:
    if value is UNKNOWN:
        return True
    if isinstance(value, dict):
        return any(_holds_unknown(v) for v in value.values())
    if isinstance(value, list):
        return any(_holds_unknown(v) for v in value)
    return False


def unknown_target(door: Resource, tiered: frozenset) -> Optional[str]:
    """The input of a front door whose target is unknown at preview with no resource of the
    stack's balancers, listeners or nodes behind it (a stack reference, a data source): it may
    be the GPU nodes' balancer. `tiered` is the set of ids of those resources."""
    for key in TARGETS.get(door.type, ()):
        if any(id(d) in tiered for d in door.deps.get(key, ())):
            continue
        if _holds_unknown(door.get(key)):
            return key
    return None


# A balancer's ARN names it: ...:loadbalancer/app|net/NAME/ID, a listener's
# ...:listener/app|net/NAME/ID/ID (docs.aws.amazon.com/elasticloadbalancing/latest/APIReference).
_LB_ARN = re.compile(r":(?:loadbalancer|listener)/(?:app|net)/([^/]+)/")


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def literal_balancers(door: Resource, balancers: list[Resource]) -> list[Resource]:
    """The stack's balancers a front door names by a literal ARN (their explicit `name`)."""
    names = {m.group(1) for key in TARGETS.get(door.type, ())
             for s in _strings(door.get(key)) for m in [_LB_ARN.search(s)] if m}
    return [lb for lb in balancers if isinstance(lb.get("name"), str) and lb.get("name") in names]
