"""fix83: review81's two spend-limit defects and its Wavelength note, with hand figures.

DEFECT 1: a Lambda starter whose variables name a node tag's key in the EC2 filter form
(`tag:KEY`) as a VALUE (PREFIX_KEY / PREFIX_NAME beside PREFIX_VALUE(S)) is a start.
DEFECT 2: a node group is tied to a capacity reservation only through its own reference input
(Azure capacityReservation.capacityReservationGroup.id, an AgentPool's capacityReservationGroupID;
an AWS template's capacityReservationTarget), never through a dependency of another input.
Wavelength: the price list keys Boston and San Francisco Bay Area by the carrier code alone
(us-east-1-wl1, us-west-2-wl1: location "US East (Verizon) - Boston" / "US West (Verizon) - San
Francisco Bay Area", the first Wavelength Zones); other cities by city code.

Figures (review80/81 bases):
  AWS base ~12,143 (2 p5.48xlarge 55.04 x 96 h = 10,567.68 + FSx ~1,464.53 + bucket 110.40);
    its month without the stop ~81,933.
  AWS ODCR of 2 p5.48xlarge in us-east-1a, no end: 2 x 55.04 x 730 = 80,358.40, billed anyway;
    nodes inside it: 80,358.40 + 1,464.53 + 110.40 = 81,933.33; beside it: + 10,567.68 = 92,501.
    A budget of 85,000 tells them apart.
  Azure: reservation 4 x 3.673 x 730 = 10,725.16; set of 4 NC24ads_A100_v4 10,725.16; base
    21,286.07: once 32,011.23, both 42,736.39; budget 32,500. An AKS pool adds a system node
    (1 Standard_D4s_v5, at most ~140): once <= 32,151, both >= 42,736.
  Wavelength g4dn.2xlarge (prices.csv us-east-1-wl1 1.317): 4 x 1.317 x 730 = 3,845.64;
    + ~12,143 = 15,989 (pass at 16,500, fail at 15,500; the region's 0.752 would give 14,339).
"""
from __future__ import annotations

import pytest

from trainstack_policies import catalog
from tests.policies.test_policy_review80 import (
    NPI, RDMA, SPEND, _chain, _setp, lambda_start, named, unknown)
from tests.policies.test_policy_review81 import _run_case, az_crg, crg_custom_data, edge_asg
from tests.policy_fixtures import res

SUB = "s"   # the base budget's scope, /subscriptions/s
CRG_ID = (f"/subscriptions/{SUB}/resourceGroups/rg-ml/providers/Microsoft.Compute/"
          "capacityReservationGroups/a100-crg")


# ------------------------------------------------------------------------------- DEFECT 1
CASES_LAMBDA = [
    ("m01", "aws", {}, lambda_start({"FILTER_KEY": " tag:team ", "FILTER_VALUE": "research"}),
     {SPEND: "fail"}, None, "tag:team with blanks around it: a start, the month ~81,933"),
    ("m02", "aws", {}, lambda_start({"FILTER_NAME": "tag:team", "FILTER_VALUES": "infra,research"}),
     {SPEND: "fail"}, None, "a comma list holding research (AWS tag values hold no comma): start"),
    ("m03", "aws", {}, lambda_start({"FILTER_NAME": "tag:team", "FILTER_VALUES": "infra"}), {},
     None, "team=infra: no node carries it: no start, ~12,143 < 20,000"),
    ("m04", "aws", {}, lambda_start({"TagKey": "tag:owner", "TagValues": "b*"}),
     {SPEND: "fail"}, None, "a wildcard value b* finds owner=bob: a start"),
    ("m05", "aws", {}, lambda_start({"SELECT_NAME": "tag:owner", "SELECT_VALUE": "alice"}), {},
     None, "owner=alice: not the nodes' (bob): no start"),
    ("m06", "aws", {}, lambda_start({"FILTER_NAME": "team", "FILTER_VALUES": "research"}),
     {SPEND: "fail"}, None, "the key without tag: in a NAME variable: a start"),
]


@pytest.mark.parametrize("case", CASES_LAMBDA, ids=[c[0] for c in CASES_LAMBDA])
def test_lambda_tag_forms(pack, case):
    _run_case(pack, case)


# ------------------------------------------------------------------------------- DEFECT 2
def crg_named(name: str = "a100-crg"):
    """The CR group given its explicit name (an ARM id can name it)."""
    return _setp("a100-crg", "capacityReservationGroupName", name)


def vmss_ref(value, deps: bool):
    """The set's own capacityReservation set to `value`, with or without the profile's
    dependency on the group."""
    def mutate(s):
        vmss = named(s, "infer")
        vmss.props["virtualMachineProfile"]["capacityReservation"] = {
            "capacityReservationGroup": {"id": value}}
        if deps:
            vmss.deps["virtualMachineProfile"] = [named(s, "a100-crg")]
        else:
            vmss.deps.pop("virtualMachineProfile", None)
        return s
    return mutate


def pool_other_input():
    """The AKS pool of az_crg without capacityReservationGroupID, its nodeLabels built from the
    group (depends on it through another input)."""
    def mutate(s):
        pool = named(s, "gpu")
        pool.props["nodeLabels"] = {"crg": unknown()}
        pool.deps["nodeLabels"] = [named(s, "a100-crg")]
        return s
    return mutate


def profile_unknown():
    def mutate(s):
        s = az_crg("vmss", "Regular")(s)
        named(s, "infer").props["virtualMachineProfile"] = unknown()
        return s
    return mutate


AZ_SUB = {"subscriptionId": SUB}
CASES_AZ = [
    ("z01", "azure", {}, _chain(az_crg("aks", "Regular", tie=False), pool_other_input()),
     {SPEND: "fail"}, None, "AKS pool depending on the group only via nodeLabels: both, >42,736"),
    ("z02", "azure", {}, az_crg("aks", "Regular"), {}, None,
     "AKS pool with capacityReservationGroupID from the group: once, <= 32,151"),
    ("z03", "azure", {}, _chain(az_crg("vmss", "Regular", tie=False), crg_named(),
                                vmss_ref(CRG_ID, deps=False)), {}, AZ_SUB,
     "a literal ARM id of the stack's named group, same subscription: once, 32,011"),
    ("z04", "azure", {}, _chain(az_crg("vmss", "Regular", tie=False), crg_named(),
                                vmss_ref(CRG_ID, deps=False)), {SPEND: "fail"}, None,
     "the same literal, no subscription read: another subscription's group may be meant: both"),
    ("z05", "azure", {}, _chain(crg_custom_data(), crg_named(),
                                vmss_ref(CRG_ID.replace("a100-crg", "other-crg"), deps=True)),
     {SPEND: "fail"}, AZ_SUB, "customData depends on the group, the reference names another "
     "group: both, 42,736"),
    ("z06", "azure", {}, _chain(crg_custom_data(), crg_named(), vmss_ref(CRG_ID, deps=True)),
     {}, None, "a known id of the group (update preview) with the dependency: once, 32,011"),
    ("z07", "azure", {}, profile_unknown(), {SPEND: "fail", NPI: ("pass", "undecided")}, None,
     "the whole profile unknown at preview: the reference cannot be read: both, 42,736"),
]


@pytest.mark.parametrize("case", CASES_AZ, ids=[c[0] for c in CASES_AZ])
def test_azure_reservation_tie(pack, case):
    cid, cloud, kwargs, mutate, expect, provider, why = case
    _run_case_with(pack, (cid, cloud, kwargs, mutate, expect, None, why), provider or {})


def _run_case_with(pack, case, provider):
    from tests.policies import test_policy_review81 as r81
    saved = dict(r81.PROVIDERS["azure"])
    r81.PROVIDERS["azure"] = provider
    try:
        _run_case(pack, case)
    finally:
        r81.PROVIDERS["azure"] = saved


# AWS: an aws-native launch template (the engine records its inputs' dependencies under the one
# launchTemplateData). fix62's Batch CE (BEST_FIT, maxVcpus 384 / 192 = 2 p5.48xlarge) in
# us-east-1a beside a targeted ODCR of 2 p5.48xlarge (endDateType unlimited): each 2 x 55.04 x
# 730 = 80,358.40; inside the ODCR: 80,358.40 in all; beside it: 160,716.80.
def native_lt(target: bool, ref=None):
    from tests.policies.test_policy_fix62 import odcr as odcr62
    r = odcr62()
    data: dict = {"userData": unknown()}
    if target:
        data["capacityReservationSpecification"] = {
            "capacityReservationTarget": {"capacityReservationId": ref if ref else unknown()}}
    lt = res("aws-native:ec2:LaunchTemplate", "gpu-lt", {"launchTemplateData": data},
             deps={"launchTemplateData": [r]})
    return r, lt


@pytest.mark.parametrize("target,want", [
    (False, 160716.80),   # userData depends on the ODCR, no target: both priced
    (True, 80358.40),     # its target's capacityReservationId (unknown) from the ODCR: once
])
def test_aws_native_template_tie(pack, target, want):
    from tests.policies.test_policy_fix62 import AWS, ce, subnet
    from tests.policies.test_policy_review35f import estimate, near
    s = subnet("a", "us-east-1a")
    r, lt = native_lt(target)
    assert near(estimate(pack, [s, r, lt, ce("gpu-ce", lt, [s])], AWS), want)


def test_aws_native_template_two_odcrs_unread(pack):
    """The data depends on two targeted ODCRs of 2 p5.48xlarge (one through userData), its target
    unknown: which one it names is unread: both reservations and the CE priced, 3 x 80,358.40 =
    241,075.20."""
    from tests.policies.test_policy_fix62 import AWS, ce, subnet
    from tests.policies.test_policy_review35f import estimate, near
    s = subnet("a", "us-east-1a")
    r, lt = native_lt(True)
    r2 = res(r.type, "p5-odcr-2", dict(r.props))
    lt.deps["launchTemplateData"] = [r, r2]
    assert near(estimate(pack, [s, r, r2, lt, ce("gpu-ce", lt, [s])], AWS), 3 * 80358.40)


# ------------------------------------------------------------------------------- Wavelength
CASES_WL = [
    ("e01", "aws", {"budget": "16500"}, edge_asg(zone="us-east-1-wl1-bos-wlz-1"), {}, None,
     "Boston Wavelength at us-east-1-wl1's 1.317: 15,989 < 16,500"),
    ("e02", "aws", {"budget": "15500"}, edge_asg(zone="us-east-1-wl1-bos-wlz-1"),
     {SPEND: "fail"}, None, "Boston at 15,500: 15,989 over (never the region's 14,339)"),
    ("e03", "aws", {"budget": "16500"}, edge_asg(zone=None, az_id="use1-wl1-bos-wlz1"), {}, None,
     "Boston by AZ ID: the same row, 15,989 < 16,500"),
    ("e04", "aws", {"budget": "15500"}, edge_asg(zone=None, az_id="use1-wl1-bos-wlz1"),
     {SPEND: "fail"}, None, "Boston by AZ ID at 15,500: over"),
    ("e05", "aws", {"budget": "100000"}, edge_asg(zone="us-east-1-wl1-bos-wlz-1",
                                                  itype="g4dn.12xlarge"),
     {SPEND: "fail", RDMA: ("pass", "advisory")},
     None,
     "no g4dn.12xlarge row for Boston: fails closed"),
]


@pytest.mark.parametrize("case", CASES_WL, ids=[c[0] for c in CASES_WL])
def test_wavelength_generic_rows(pack, case):
    _run_case(pack, case)


@pytest.mark.parametrize("zone,zone_id,region,want", [
    ("us-west-2-wl1-sfo-wlz-1", False, "", "us-west-2-wl1"),
    ("usw2-wl1-sfo-wlz1", True, "us-west-2", "us-west-2-wl1"),
    ("us-east-1-wl1-bos-wlz-1", False, "", "us-east-1-wl1"),
    ("us-west-2-wl1-sea-wlz-1", False, "", "us-west-2-wl1-sea1"),
    ("us-east-1-wl1-phl-wlz-1", False, "", "us-east-1-wl1-phl1"),   # no row: not the generic
])
def test_wavelength_location(zone, zone_id, region, want):
    assert catalog.aws_edge_location(zone, region, zone_id=zone_id) == want
    if want.endswith("-wl1"):
        # prices.csv: aws,g4dn.2xlarge,us-west-2-wl1 / us-east-1-wl1,,1.317
        got = catalog.price("aws", "g4dn.2xlarge", want)
        assert got is not None and abs(got.ondemand_usd_hr - 1.317) < 1e-9
    if want == "us-east-1-wl1-phl1":
        assert catalog.price("aws", "g4dn.2xlarge", want) is None
