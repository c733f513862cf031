"""Helper fix68: neighbours of review68's three capacity defects, over gRPC as `pulumi preview`
drives the pack, on review68's stacks (its builders and its case runner).

DEFECT 1, AWS: a launch template / instance whose capacityReservationTarget names a Capacity
  Reservation group (capacityReservationResourceGroupArn) launches into the group's ODCRs:
  "Instances that target a group of Capacity Reservations match with any Capacity Reservation in
  the group that has matching attributes (instance type, platform, Availability Zone, and
  tenancy) and available capacity. If the group does not have a Capacity Reservation with
  matching attributes and available capacity, the instances run using On-Demand capacity"
  (docs.aws.amazon.com/AWSEC2/latest/UserGuide/create-cr-group.html). The group is an
  aws:resourcegroups/group:Group with the AWS::EC2::CapacityReservationPool configuration
  (.../create-group.html); its ODCRs are added by aws:resourcegroups/resource:Resource (groupArn:
  "Name or ARN of the resource group", pulumi_aws). A membership that cannot be read (an input
  unknown at preview naming nothing of the stack) counts nothing: reservation and nodes both
  priced, never below the truth.
DEFECT 2, Azure: an azure-native ManagedCluster's inline agentPoolProfiles entry with
  capacityReservationGroupID on the stack's group is associated with it
  (learn.microsoft.com/azure/aks/use-capacity-reservation-groups), as an AgentPool is.
DEFECT 3, Alibaba: "Immediate Capacity Reservation guarantees resources only for pay-as-you-go
  instances, not spot instances" (help.aliyun.com/en/ecs/user-guide/
  overview-of-immediate-capacity-reservation): spot nodes are priced at spot beside it.

Figures (review68's catalog rows): g6e.4xlarge us-west-2 3.00424 USD/h, x 2 x 730 h = 4,386.19
(twice 8,772.38; one node 2,193.10); Standard_NC8as_T4_v3 eastus 0.752, x 2 x 730 = 1,097.92
(twice 2,195.84); ecs.gn7i-c16g1.4xlarge eu-central-1 2.71098 on demand, 0.846144 spot: the
reservation of 2 to 200 h 1,084.39..1,089.81 (200..201 h), two spot nodes for 96..97 h
162.46..164.15, one 81.23..82.08.
"""
from __future__ import annotations

from typing import Any

import pytest

from tests.policies.test_policy_review68 import (
    AZ2,
    CR200,
    CRG_ARN,
    G6E,
    GN7I_SPOT,
    MONTH,
    ONCE_A,
    SPEND,
    SPOT96,
    TARGET,
    TWICE_A,
    _chain,
    _params,
    _run_case,
    aks,
    ali_cr,
    ali_nodes,
    az_crg,
    cap,
    cr_group,
    ec2,
    lt_set,
    named,
    odcr,
    rng,
    unknown,
)
from tests.policy_harness import PolicyPackProcess

ARN_EAST = "arn:aws:resource-groups:us-east-1:111122223333:group/ft-crg"
ARN_OTHER = "arn:aws:resource-groups:us-west-2:111122223333:group/other-crg"


def _member(key: str, value: Any, drop_dep: bool = True):
    """Set the group member's input `key` (groupArn / resourceArn) to `value`, without its
    dependency unless drop_dep is False."""
    def mutate(s):
        m = named(s, "ft-crg-member")
        m.props[key] = value
        if drop_dep:
            m.deps.pop(key, None)
        return s
    return mutate


def _group_configs(value: Any):
    def mutate(s):
        named(s, "ft-crg").props["configurations"] = value
        return s
    return mutate


def _targeting(arn: str = CRG_ARN, dep: bool = True):
    """ft-lt targets the resource group by `arn`, depending on it or not (a literal)."""
    return lt_set(TARGET, {"capacityReservationTarget": {
        "capacityReservationResourceGroupArn": arn}}, "ft-crg" if dep else None)


def _in_group(**odcr_p):
    return (odcr(instanceMatchCriteria="targeted", **odcr_p), cr_group(member=True))


def _pool(key: str, value: Any):
    """Set the inline GPU pool's (agentPoolProfiles[1]) input `key`; None removes it."""
    def mutate(s):
        gpu = named(s, "ft-aks").props["agentPoolProfiles"][1]
        if value is None:
            gpu.pop(key, None)
        else:
            gpu[key] = value
        return s
    return mutate


def _crg_name(name: str):
    def mutate(s):
        named(s, "ft-crg").props["capacityReservationGroupName"] = name
        return s
    return mutate


def _add_private_pool_dep():
    def mutate(s):
        for n in ("node-0", "node-1"):
            node = named(s, n)
            node.props["privatePoolOptionsId"] = "crp-id"
            node.deps["privatePoolOptionsId"] = [named(s, "ft-cr")]
        return s
    return mutate


def _one_spot():
    def mutate(s):
        named(s, "node-1").props["spotStrategy"] = "SpotAsPriceGo"
        return s
    return mutate


ARM = "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/capacityReservationGroups/"
ALI_2PAYG_200 = rng(*CR200)
ONE_SPOT = (1 * GN7I_SPOT * 96, 1 * GN7I_SPOT * 97)      # 81.23 .. 82.08

CASES = [
    # --- AWS: a Capacity Reservation group
    ("f01", "aws", {}, _chain(*_in_group(), _targeting(dep=False)), {"_est": ONCE_A}, None,
     "a04 with the launch template naming the group by a literal ARN (region us-west-2, group/"
     "ft-crg: the group's name in the provider's region), no dependency: once, 4,386.19 < 6,000"),
    ("f02", "aws", {}, _chain(*_in_group(), _targeting(ARN_EAST, dep=False)),
     {SPEND: "fail", "_est": TWICE_A}, None,
     "a literal ARN of a group ft-crg in us-east-1: not the stack's us-west-2 group; the ODCR "
     "and the nodes both priced, 8,772.38 > 6,000"),
    ("f03", "aws", {}, _chain(*_in_group(), _targeting(ARN_OTHER, dep=False)),
     {SPEND: "fail", "_est": TWICE_A}, None,
     "a literal ARN of another group (other-crg) the stack does not create: twice"),
    ("f04", "aws", {}, _chain(*_in_group(), _targeting(), _member("resourceArn", unknown())),
     {SPEND: "fail", "_est": TWICE_A}, None,
     "the member's resourceArn unknown at preview, depending on no ODCR of the stack: the group's "
     "members cannot be read; the ODCR is not known to be in it: twice (never below the truth)"),
    ("f05", "aws", {}, _chain(*_in_group(), _targeting(), _member("groupArn", unknown())),
     {SPEND: "fail", "_est": TWICE_A}, None,
     "the member's groupArn unknown, depending on no group of the stack: twice"),
    ("f06", "aws", {}, _chain(*_in_group(), _targeting(), _member("groupArn", "ft-crg")),
     {"_est": ONCE_A}, None,
     "the member names the group by its name, no dependency ('Name or ARN of the resource "
     "group'): once"),
    ("f07", "aws", {}, _chain(*_in_group(), _targeting(), _group_configs(unknown())),
     {SPEND: "fail", "_est": TWICE_A}, None,
     "the group's configurations unknown at preview: not known to be a CapacityReservationPool, "
     "so its members are not read: twice"),
    ("f08", "aws", {}, _chain(*_in_group(zone="us-west-2b"), _targeting()),
     {SPEND: "fail", "_est": TWICE_A}, None,
     "the group's ODCR in us-west-2b, the nodes in us-west-2a: no matching attributes, the nodes "
     "run On-Demand: twice"),
    ("f09", "aws", {}, _chain(*_in_group(count=1.0), _targeting()),
     {"_est": ONCE_A}, None,
     "the group's ODCR holds 1 of the 2 nodes: ODCR 2,193.10 + 1 node beyond it 2,193.10 = "
     "4,386.19 < 6,000 (both nodes beside it: 6,579.29 over)"),
    ("f10", "aws0", {}, _chain(*_in_group(count=1.0), ec2(capacityReservationSpecification={
        "capacityReservationTarget": {"capacityReservationResourceGroupArn": CRG_ARN}})),
     {"_est": rng(G6E * MONTH)}, None,
     "q01 with the instance naming the group by a literal ARN only: once, 2,193.10 < 3,000"),
    ("f11", "aws", {}, _chain(odcr(instanceMatchCriteria="targeted"), cr_group(member=True),
                              lt_set(TARGET, {"capacityReservationPreference": "open"})),
     {SPEND: "fail", "_est": TWICE_A}, None,
     "the targeted ODCR in the group, the nodes targeting nothing (preference open): a targeted "
     "reservation takes only instances that target it: twice"),
    # --- Azure: an AKS cluster's inline pools
    ("f21", "azure0", {}, _chain(az_crg(), aks(join=False, inline=True)),
     {SPEND: "fail", "_est": rng(2 * AZ2)}, None,
     "z07 with the inline GPU pool outside the group (no capacityReservationGroupID, no "
     "dependency): both priced, 2,195.84 > 1,500"),
    ("f22", "azure0", {}, _chain(az_crg(), aks(join=True, inline=True),
                                 _pool("capacityReservationGroupID", None)),
     {SPEND: "fail", "_est": rng(2 * AZ2)}, None,
     "the cluster's agentPoolProfiles depend on the group but the GPU pool sets no "
     "capacityReservationGroupID: it is not in the group: twice"),
    ("f23", "azure0", {}, _chain(az_crg(), _crg_name("ft-crg"), aks(join=True, inline=True),
                                 _pool("capacityReservationGroupID", ARM + "other-crg")),
     {SPEND: "fail", "_est": rng(2 * AZ2)}, None,
     "the pool's id names another group (…/capacityReservationGroups/other-crg) than the stack's "
     "ft-crg: twice"),
    ("f24", "azure0", {}, _chain(az_crg(), _crg_name("ft-crg"), aks(join=True, inline=True),
                                 _pool("capacityReservationGroupID", ARM + "FT-CRG")),
     {"_est": rng(AZ2)}, None,
     "the pool's ARM id ends in the group's name (ARM names in any case): once, 1,097.92"),
    # --- Alibaba Cloud: spot beside a reservation
    ("f31", "ali", {"spotStrategy": "SpotAsPriceGo"}, _chain(
        ali_cr(end_h=200, match="Target"), ali_nodes("privatePoolOptionsMatchCriteria", "Target"),
        _add_private_pool_dep()),
     {SPEND: "fail", "_est": rng(CR200[0] + SPOT96[0], CR200[1] + SPOT96[1])}, cap(1200),
     "spot nodes targeting a Target reservation (privatePoolOptionsId on it): the reservation "
     "serves only pay-as-you-go instances: 1,084.39 + 162.46 = 1,246.85 > 1,200"),
    ("f32", "ali", {"spotStrategy": "NoSpot"}, _chain(
        ali_cr(end_h=200), ali_nodes("privatePoolOptionsMatchCriteria", "Open")),
     {"_est": ALI_2PAYG_200}, cap(1200),
     "spotStrategy NoSpot (pay-as-you-go) nodes, Open: inside the reservation, once: 1,084.39"),
    ("f33", "ali", {}, _chain(
        ali_cr(end_h=200), ali_nodes("privatePoolOptionsMatchCriteria", "Open"),
        _one_spot()),
     {"_est": (CR200[0] + ONE_SPOT[0] - 2, CR200[1] + ONE_SPOT[1] + 2)}, cap(1200),
     "node-0 pay-as-you-go (inside the reservation), node-1 SpotAsPriceGo (beside it, 96 h): "
     "1,084.39 + 81.23 = 1,165.62 < 1,200 (the spot node inside: 1,084.39, out of range)"),
]



@pytest.mark.parametrize("case", _params(CASES))
def test_fix68(pack, case):
    _run_case(pack, case)
