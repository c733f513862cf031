"""fix84: the two Alibaba defects review82 found, over gRPC as `pulumi preview` drives the pack.

DEFECT 1 (rdma-for-multinode): an `hpcClusterId` places SCC types only (the sccgn / scch
families; instance_types.csv: ecs.sccgn7ex.32xlarge, fabric roce, the catalog's one SCC type).
For any other type it is "the ID of the HPC cluster to which to assign the instance" (ECS
RunInstances), which places nothing: eRDMA ebmgn8v / gn8v-8x still need a LowLatency deployment
set. DEFECT 2 (no-public-ingress): an intranet CLB / NLB / ALB given an EIP serves the internet
("You can associate EIPs with SLB instances, including internal-facing CLB instances in VPCs,
ALB instances, and NLB instances", alibabacloud.com/help/doc-detail/197100.htm; "After you
associate an EIP with a cloud resource, that resource can communicate over the internet",
alibabacloud.com/help/doc-detail/72125.htm): GPU nodes behind it are a violation, as behind an
internet balancer. Expectations are written by hand from those texts and docs/policies.md; only
the two policies concerned are asked (the base stack, review82's, passes every other one).
"""
from __future__ import annotations

import pytest

from tests.policies.test_policy_review82 import (
    ALI, NPI, RDMA, TAGS, U, _alb, _each_node, _named, _nlb, _plus, _slb, base,
)
from tests.policy_fixtures import res
from tests.policy_harness import run, verdict

SCC = "ecs.sccgn7ex.32xlarge"
GN8V = "ecs.gn8v-8x.48xlarge"
EIP_LINK = "alicloud:ecs/eipAssociation:EipAssociation"


def _eip(name: str = "lb-eip"):
    return res("alicloud:ecs/eipAddress:EipAddress", name, {"bandwidth": "100",
                                                          "tags": dict(TAGS)},
               provider_region=ALI)


def _link_to(lb_name: str, kind=None, type_: str = EIP_LINK, target="lb-id"):
    """An EIP association whose instanceId depends on the balancer `lb_name`."""
    def b(s):
        eip = _eip()
        props = {"allocationId": "eip-id", "instanceId": target}
        if kind is not None:
            props["instanceType"] = kind
        return [eip, res(type_, "lb-eip-link", props,
                         deps={"allocationId": [eip], "instanceId": [_named(s, lb_name)]},
                         provider_region=ALI)]
    return b


def _link_free(target, kind="SlbInstance"):
    """An EIP association to something the stack does not create (no dependency)."""
    def b(s):
        eip = _eip()
        return [eip, res(EIP_LINK, "lb-eip-link", {"allocationId": "eip-id", "instanceId": target,
                                                   "instanceType": kind},
                         deps={"allocationId": [eip]}, provider_region=ALI)]
    return b


def _zone_eip(lb_name: str, key: str, value):
    def m(s):
        lb = _named(s, lb_name)
        lb.props["zoneMappings"] = [dict(z) for z in lb.props["zoneMappings"]]
        lb.props["zoneMappings"][0][key] = value
        return s
    return m


def _chain(*ms):
    def m(s):
        for f in ms:
            s = f(s)
        return s
    return m


def _no_backend(s):
    """The CLB with its backend server removed: no GPU node behind it."""
    return [r for r in s if r.name != "slb-be"]


def _nat_eip(s):
    nat = res("alicloud:vpc/natGateway:NatGateway", "nat", {
        "vpcId": "vpc-1", "vswitchId": "vsw-a-id", "natType": "Enhanced",
        "networkType": "internet", "natGatewayName": "nat", "tags": dict(TAGS)},
        deps={"vswitchId": [_named(s, "vsw-a")]}, provider_region=ALI)
    eip = _eip("nat-eip")
    link = res(EIP_LINK, "nat-eip-link", {"allocationId": "nat-eip-id", "instanceId": "nat-id",
                                          "instanceType": "Nat"},
               deps={"allocationId": [eip], "instanceId": [nat]}, provider_region=ALI)
    return s + [nat, eip, link]


PLACED = "places SCC types only"
CASES = [
    # DEFECT 1 ---------------------------------------------------------------------------
    ("h01", dict(itype=SCC, ds=None, mode=None, cpfs=None), _each_node(hpcClusterId="hpc-1"),
     {RDMA: "pass"}, "SCC pair in an HPC cluster, no deployment set: placed; roce asks no mode"),
    ("h02", dict(itype=SCC, ds=None, mode=None, cpfs=None), _each_node(hpcClusterId=U()),
     {RDMA: "pass"}, "SCC pair, HPC cluster id unknown at preview: placed (docs)"),
    ("h03", dict(itype=SCC, ds=None, mode=None, cpfs=None), None, {RDMA: "advisory"},
     "SCC pair with neither an HPC cluster nor a deployment set: unplaced"),
    ("h04", dict(itype=SCC, ds="LowLatency", mode=None, cpfs=None), None, {RDMA: "pass"},
     "SCC pair in a LowLatency set: a deployment set places any type"),
    ("h05", dict(), _each_node(hpcClusterId="hpc-1"), {RDMA: "pass"},
     "ebmgn8v in a LowLatency set AND an HPC cluster: the set places them"),
    ("h06", dict(ds="Availability"), _each_node(hpcClusterId="hpc-1"), {RDMA: "advisory"},
     "ebmgn8v in an Availability set and an HPC cluster: neither places"),
    ("h07", dict(ds=None), _each_node(hpcClusterId="hpc-1"),
     {RDMA: "advisory", "_msg": {RDMA: [PLACED, "not in a placement construct"]}},
     "ebmgn8v, HPC cluster only: the finding names the cluster and why it does not count"),
    ("h08", dict(ds=None, itype=GN8V, mode="Standard"), _each_node(hpcClusterId="hpc-1"),
     {RDMA: "advisory", "_msg": {RDMA: ["not in a placement construct", "fastest fabric"]}},
     "gn8v-8x, HPC cluster only, Standard mode: unplaced and no eRDMA, both reported"),
    ("h09", dict(n=1, ds=None), _each_node(hpcClusterId="hpc-1"), {RDMA: "pass"},
     "one ebmgn8v node asks nothing"),
    # DEFECT 2 ---------------------------------------------------------------------------
    ("e01", dict(), _plus(_slb("intranet"), _link_to("slb", "SlbInstance")),
     {NPI: "fail", "_msg": {NPI: ["slb", "gives it an internet address", "EIP association"]}},
     "intranet CLB + ecs.EipAssociation (SlbInstance) by dependency, node 0 behind it"),
    ("e02", dict(), _plus(_slb("intranet"), _link_to(
        "slb", "SlbInstance", type_="alicloud:eip/association:Association")), {NPI: "fail"},
     "the same through the eip.Association type"),
    ("e03", dict(), _plus(_nlb("Intranet"), _link_to("nlb")),
     {NPI: "fail", "_msg": {NPI: ["gives it an internet address"]}},
     "intranet NLB with an association that depends on it (no instanceType)"),
    ("e04", dict(), _chain(_plus(_alb("Intranet")), _zone_eip("alb", "allocationId", "eip-77")),
     {NPI: "fail", "_msg": {NPI: ["zoneMappings[].allocationId eip-77"]}},
     "intranet ALB naming an EIP in a zone mapping"),
    ("e05", dict(), _chain(_plus(_alb("Intranet")), _zone_eip("alb", "eipType", "Common")),
     {NPI: "fail"}, "intranet ALB with an eipType in a zone mapping"),
    ("e06", dict(), _chain(_plus(_nlb("Intranet")), _zone_eip("nlb", "allocationId", U())),
     {NPI: "undecided"}, "intranet NLB, zone-mapping EIP unknown at preview: cannot decide"),
    ("e07", dict(), _plus(_slb("intranet"), _link_free(U())), {NPI: "undecided"},
     "SlbInstance association, target unknown at preview, no resource behind it"),
    ("e08", dict(), _plus(_slb("intranet"), _link_free("lb-elsewhere")), {},
     "SlbInstance association to a literal balancer the stack does not create"),
    ("e09", dict(), _chain(_plus(_slb("intranet"), _link_to("slb", "SlbInstance")), _no_backend),
     {}, "EIP on an intranet CLB with no GPU node behind it passes"),
    ("e10", dict(), _chain(_plus(_slb("intranet")), _nat_eip), {},
     "intranet CLB beside a NAT gateway's EIP: the EIP is the NAT's, not the balancer's"),
    ("e11", dict(), _plus(_nlb("Intranet")), {}, "intranet NLB, no EIP: passes (as n14)"),
    ("e12", dict(), _plus(_slb("intranet"), _link_free(U(), kind="Nat")), {},
     "a NAT association with an unknown target is no balancer's"),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_fix84(pack, case):
    cid, kwargs, mutate, expect, _why = case
    stack = base(**kwargs)
    if mutate is not None:
        stack = mutate(stack)
    found = run(pack, stack, None, None)
    for policy in (RDMA, NPI):
        assert verdict(found, policy) == expect.get(policy, "pass"), (
            cid, policy, [(d.policy, d.message[:400]) for d in found if d.policy == policy])
    for policy, needles in expect.get("_msg", {}).items():
        text = " ".join(d.message for d in found if d.policy == policy)
        for needle in needles:
            assert needle in text, (cid, policy, needle, text[:1500])
