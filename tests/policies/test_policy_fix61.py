"""Fix61: review60's DEFECT 2 and review61's DEFECTS 2, 3 and 5 (tests/policies/
test_policy_review60.py, test_policy_review61.py), and the variants those reviews did not write,
over gRPC as `pulumi preview --policy-pack policies` drives the pack. Each case states the verdict
of every policy (those not named stay "pass"); `why` is the docs sentence or the provider doc.
"""
from __future__ import annotations

from typing import Any

import pytest

from tests.policies import test_policy_review60 as r60
from tests.policy_fixtures import res
from tests.policy_harness import PolicyPackProcess, run, verdict

NPI, SPEND, RDMA, SSZ = r60.NPI, r60.SPEND, r60.RDMA, r60.SSZ
POLICIES = r60.POLICIES
U = r60.U
named = r60.named


def _check(pack, cid: str, stack: list, provider: dict, expect: dict, config=None) -> None:
    found = run(pack, stack, config, provider)
    got = {p: verdict(found, p) for p in POLICIES}
    want = {p: expect.get(p, "pass") for p in POLICIES}
    assert got == want, (cid, [(d.policy, d.level, d.message[:900]) for d in found])


# -------------------------------------------------- review60 DEFECT 2: launch template interfaces

def _nic_subnet_elsewhere(s):
    """The template's interfaces name a subnet id unknown at preview with no stack subnet behind
    it (a stack reference); the group names its own private subnet of the stack."""
    for nic in named(s, "train-lt").props["networkInterfaces"]:
        nic["subnetId"] = U()
    return s


def _group_by_zones(s):
    """The group placed by availabilityZones, naming no subnet of its own."""
    asg = named(s, "train-nodes")
    asg.props.pop("vpcZoneIdentifiers")
    asg.deps.pop("vpcZoneIdentifiers")
    asg.props["availabilityZones"] = ["us-east-1a"]
    return s


def _one_nic_unknown(s):
    named(s, "train-lt").props["networkInterfaces"][5] = U()
    return s


def _group_subnet_elsewhere(s):
    named(s, "train-nodes").deps.pop("vpcZoneIdentifiers")
    return s


D1 = [
    ("l01", r60._then(r60._edge_subnet, _nic_subnet_elsewhere), {},
     "docs: 'a group or instance that names no subnet of its own is placed by its launch "
     "template's interfaces': this group names its private subnet, so the template's unknown "
     "interface subnet does not place it, beside an edge subnet as without one (passes)"),
    ("l02", r60._then(r60._aws_nat, _nic_subnet_elsewhere), {},
     "the same beside a NAT-only public subnet"),
    ("l04", r60._then(r60._edge_subnet, _group_subnet_elsewhere), {NPI: "undecided", SSZ: "undecided"},
     "control: the group's own vpcZoneIdentifiers unknown with no stack subnet behind it may be "
     "the edge subnet: cannot decide; storage-same-zone: docs 'a subnet id unknown at preview with "
     "no stack subnet behind it ... is cannot decide ... an Auto Scaling group's vpcZoneIdentifiers'"),
    ("l05", r60._then(r60._edge_subnet, _group_by_zones, _one_nic_unknown),
     {NPI: "undecided", RDMA: "advisory"},
     "control: a group naming no subnet is placed by its template's interfaces; one of them "
     "unknown as a whole may name the edge subnet (or ask for a public IP): cannot decide; rdma "
     "counts the 31 known EFA interfaces of 32 (advisory, as before this fix)"),
    ("l06", r60._then(r60._edge_subnet, _group_by_zones, _nic_subnet_elsewhere), {NPI: "undecided"},
     "control: the same with every interface's subnetId unknown from elsewhere"),
    ("l07", r60._then(r60._edge_subnet, _group_by_zones), {NPI: "fail"},
     "a group placed by availabilityZones whose template's interfaces name no subnet (only their "
     "securityGroups unknown) launches in the default VPC: docs 'AWS compute that names no subnet "
     "at all (... no launch template interface naming a subnet) launches in the default VPC, whose "
     "default subnets are public': a violation, not a cannot decide"),
]


@pytest.mark.parametrize("case", D1, ids=[c[0] for c in D1])
def test_template_interfaces(pack, case):
    cid, mutate, expect, _why = case
    _check(pack, cid, mutate(r60.aws()), r60.AWS_P, expect)


# ----------------------------------- review61 DEFECT 3: a Spot Fleet's one-object launch spec tags

def _r61():
    from tests.policies import test_policy_review61 as r61
    return r61


def _spec_tags(tags: Any):
    def mutate(s):
        named(s, "sfr").props["launchSpecifications"]["tags"] = tags
        return s
    return mutate


def _spot_cases():
    r61 = _r61()
    team = r61._bud(costFilters=r61.TEAM)
    fleet = r61._add(r61._spot_fleet_one)
    return [
        ("s01", r61._chain(fleet, team, _spec_tags({**r61.TAGS, "team": "vision"})), {SPEND: "fail"},
         "the one object's tags say team=vision: the budget filtered to team=research leaves the "
         "fleet's instances out (docs: a Spot Fleet's instances take 'the tags every one of its "
         "launchSpecifications carries'): no alarm for them"),
        ("s02", r61._chain(fleet, team, _spec_tags(U())), {SPEND: "undecided"},
         "the one object's tags unknown at preview: whether the team filter takes the instances in "
         "cannot be decided"),
        ("s03", r61._chain(fleet, r61._bud(costFilters=[
            {"name": "TagKeyValue", "values": ["user:owner$bob"]}]), _spec_tags({"owner": "bob"})),
         {}, "the one object tagged owner=bob under an owner=bob filter: covered, 92,499 < 100,000 "
         "(w11's sum)"),
    ]


@pytest.mark.parametrize("cid", ["s01", "s02", "s03"])
def test_spot_fleet_one_object_tags(pack, cid):
    r61 = _r61()
    case = next(c for c in _spot_cases() if c[0] == cid)
    _, mutate, expect, _why = case
    _check(pack, cid, mutate(r61.aws(budget="100000")), r61.AWS_P, expect)


# ------------------------------------ review61 DEFECT 2: public front doors to internal targets

def _ga_target(endpoint: Any, lb_name: Any = None, dep: bool = False):
    """review61's Global Accelerator on the internal ALB, its endpoint rewritten: a literal ARN
    or an unknown id, with no dependency on the balancer unless `dep`."""
    def mutate(s):
        r61 = _r61()
        s = r61._add(r61._global_accelerator)(s)
        if lb_name is not None:
            named(s, "front").props["name"] = lb_name
        eg = named(s, "ga-eg")
        eg.props["endpointConfigurations"] = [{"endpointId": endpoint, "weight": 100.0}]
        if not dep:
            eg.deps.pop("endpointConfigurations")
        return s
    return mutate


def _v2_connection(kind: Any):
    def mutate(s):
        r61 = _r61()
        s = r61._add(r61._apigw_vpc_link)(s)
        integ = named(s, "to-nlb")
        if kind is None:
            integ.props.pop("connectionType")
        else:
            integ.props["connectionType"] = kind
        return s
    return mutate


def _rest_api(types: Any):
    """A REST API (apigateway v1) whose method integrates through a v1 VPC link with the
    internal NLB of the GPU group."""
    def mutate(s):
        r61 = _r61()
        out = r61._lb("network", internal=True)(s)
        api = res("aws:apigateway/restApi:RestApi", "rest",
                  {"name": "rest", "endpointConfiguration": {"types": types}, "tags": dict(r61.TAGS)})
        link = res("aws:apigateway/vpcLink:VpcLink", "rest-link",
                   {"name": "rest-link", "targetArns": ["nlb-arn"], "tags": dict(r61.TAGS)},
                   deps={"targetArns": [out[0]]})
        integ = res("aws:apigateway/integration:Integration", "rest-nlb",
                    {"restApi": "api-id", "resourceId": "res-id", "httpMethod": "ANY",
                     "type": "HTTP_PROXY", "integrationHttpMethod": "ANY",
                     "connectionType": "VPC_LINK", "connectionId": "link-id",
                     "uri": "http://nlb.internal:8000/"},
                    deps={"restApi": [api], "connectionId": [link]})
        return s + out + [api, link, integ]
    return mutate


ARN = "arn:aws:elasticloadbalancing:us-east-1:111111111111:loadbalancer/app/{}/50dc6c495c0c9188"
D2 = [
    ("f01", _ga_target(U()), {NPI: "undecided"},
     "the endpoint id unknown at preview with no resource of the stack behind it (a stack "
     "reference) may be the GPU group's internal ALB: cannot decide"),
    ("f02", _ga_target(ARN.format("serve-alb"), lb_name="serve-alb"), {NPI: "fail"},
     "the endpoint a literal ARN naming the stack's internal ALB by its explicit name serve-alb: "
     "Global Accelerator 'internet-facing or internal' ALB endpoints (about-endpoints-caveats)"),
    ("f03", _ga_target(ARN.format("other-alb"), lb_name="serve-alb"), {},
     "control: a literal ARN naming another balancer (other-alb), not the stack's: passes"),
    ("f04", _v2_connection("INTERNET"), {},
     "control: an HTTP API integration over the internet (connectionType INTERNET) reaches no "
     "private target, whatever it depends on"),
    ("f05", _v2_connection(U()), {NPI: "undecided"},
     "connectionType unknown at preview: VPC_LINK or not is decided at apply"),
    ("f06", _rest_api(["REGIONAL"]), {NPI: "fail"},
     "a REGIONAL REST API through a v1 VPC link to the internal NLB of the GPU group: 'expose "
     "your HTTP/HTTPS resources within an Amazon VPC for access by clients outside of the VPC' "
     "(set-up-private-integration)"),
    ("f07", _rest_api(["PRIVATE"]), {},
     "control: a PRIVATE REST API is reached only through interface VPC endpoints: not public"),
    ("f08", _rest_api(None), {NPI: "fail"},
     "a REST API with no endpoint types given is EDGE (the default): public"),
]


@pytest.mark.parametrize("case", D2, ids=[c[0] for c in D2])
def test_front_doors(pack, case):
    cid, mutate, expect, _why = case
    r61 = _r61()
    _check(pack, cid, mutate(r61.aws()), r61.AWS_P, expect)


# ------------------------- review61 DEFECT 5: a MIG per-instance config preserving an external IP

def _pic(kind: str, state: Any):
    """A per-instance config of the GPU MIG (zonal, or the regional twin) with `state` as its
    preservedState."""
    def mutate(s):
        props = {"instanceGroupManager": "train-mig", "name": "train-0", "preservedState": state}
        if kind == "region":
            type_, props["region"] = "gcp:compute/regionPerInstanceConfig:RegionPerInstanceConfig", \
                "us-west1"
            props["regionInstanceGroupManager"] = props.pop("instanceGroupManager")
        else:
            type_, props["zone"] = "gcp:compute/perInstanceConfig:PerInstanceConfig", "us-west1-c"
        return s + [res(type_, "node-0", props,
                        deps={"instanceGroupManager": [named(s, "train-mig")]})]
    return mutate


EXT = {"externalIps": [{"interfaceName": "nic0", "autoDelete": "NEVER",
                        "ipAddress": {"address": "34.82.10.1"}}]}
D5 = [
    ("p11", _pic("region", EXT), {NPI: "fail"},
     "the regional twin preserving 34.82.10.1 on nic0: the VM gets that external IP "
     "(configuring-stateful-ip-addresses-in-migs: 'assign specific IP addresses to each VM "
     "instance in a MIG', external IPv4 included)"),
    ("p12", _pic("zone", {"externalIps": U()}), {NPI: "undecided"},
     "the preserved external IPs unknown at preview: cannot decide"),
    ("p13", _pic("zone", {"internalIps": [{"interfaceName": "nic0", "autoDelete": "NEVER",
                                           "ipAddress": {"address": "10.10.0.5"}}],
                          "metadata": {"role": "rank0"}}), {},
     "control: a preserved internal IP and metadata give the VM no external address"),
    ("p14", _pic("zone", {"externalIps": {"interfaceName": "nic0",
                                          "ipAddress": {"address": "34.82.10.1"}}}), {NPI: "fail"},
     "the external IP written as one object (read as a list of that one)"),
]


@pytest.mark.parametrize("case", D5, ids=[c[0] for c in D5])
def test_per_instance_external_ip(pack, case):
    cid, mutate, expect, _why = case
    r61 = _r61()
    _check(pack, cid, mutate(r61.gcp()), r61.GCP_P, expect)
