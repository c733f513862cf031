"""Helper fix75b: four defects left in issue 35's classes ("capacity counted twice or not at all",
"public exposure", "malformed values never cheaper than the truth"), over gRPC as `pulumi
preview --policy-pack policies` drives the pack, on review68's and review69's stacks (their
builders and case runners). Each case states the verdict of every policy (those not named stay
"pass"); `why` holds the hand calculation or the sentence it rests on.

DEFECT A (counted twice): an aws-native Capacity Reservation group (aws-native:resourcegroups:
  Group, CloudFormation AWS::ResourceGroups::Group: Configuration, Name, ResourceQuery, Resources
  "[ String, ... ]") holding an ODCR in its `resources` was not read: the nodes a launch template
  launches into the group and the ODCR were both priced. "Instances that target a group of
  Capacity Reservations match with any Capacity Reservation in the group that has matching
  attributes" (docs.aws.amazon.com/AWSEC2/latest/UserGuide/create-cr-group.html); "You can
  include either a Configuration or a ResourceQuery, but not both" (the CloudFormation reference):
  a group by resource query is no CapacityReservationPool. A member that cannot be read counts
  nothing: both priced, never below the truth.
DEFECT B (counted not at all): an Azure Spot pool / scale set in a capacity reservation group
  was priced inside the reservation (0 beyond it). learn.microsoft.com/azure/virtual-machines/
  capacity-reservation-overview, "Limitations and restrictions": "Spot VMs and Azure Dedicated
  Host Nodes aren't supported with Capacity Reservation": priced at spot beside it.
DEFECT C (unknown at preview passing): an azure-native ManagedCluster whose agentPoolProfiles (or
  one entry) are unknown at preview was skipped; docs (Scope, Values unknown at preview): a type
  unknown at preview is a GPU node, and GPU capacity spend-limit cannot size fails closed, named.
DEFECT D (public exposure read as absent): a GKE node pool's networkConfig written as a list of
  one ([{enablePrivateNodes: false}]) read as absent (the cluster's private nodes stood in). Docs
  (Values unknown at preview, Numbers are validated): an object written as a list of one is
  "neither read as absent nor as its one item", a violation naming the resource and the value.

Figures (components/catalog/prices.csv = policies/catalog_data/prices.csv): g6e.4xlarge
us-west-2 3.00424 USD/h, 2 x 730 h = 4,386.19 (twice 8,772.38 > 6,000); Standard_NC8as_T4_v3
eastus 0.752 on demand, 0.089638 spot: a reservation of 2 for the month 1,097.92, two Spot nodes
2 x 0.089638 x 730 = 130.87, together 1,228.79 (> 1,200; inside the reservation 1,097.92 < 1,200).
GCP (review69's base): 2 x a2-ultragpu-2g 10.1376 x 730 = 14,800.90 under 20,000; a GKE pool of 2
g2-standard-8 0.853624 x 730 = 1,246.29.
"""
from __future__ import annotations

from typing import Any

import pytest

from tests.policies import test_policy_review69 as r69
from tests.policies.test_policy_review68 import (
    AZ2,
    CRG_ARN,
    MONTH,
    NC8,
    ONCE_A,
    SPEND,
    TAGS,
    TARGET,
    TWICE_A,
    _add,
    _chain,
    _params,
    _run_case,
    aks,
    az_crg,
    az_join_vmss,
    lt_set,
    named,
    native_odcr,
    odcr,
    rng,
    unknown,
)
from tests.policy_fixtures import res

NPI = "no-public-ingress"
NTAGS = [{"key": k, "value": v} for k, v in TAGS.items()]
POOL_CFG = [{"type": "AWS::EC2::CapacityReservationPool"},
            {"type": "AWS::ResourceGroups::Generic", "parameters": [
                {"name": "allowed-resource-types", "values": ["AWS::EC2::CapacityReservation"]}]}]
ODCR_ARN = "arn:aws:ec2:us-west-2:111122223333:capacity-reservation/cr-0123456789abcdef0"
NC8_SPOT = 0.089638
SPOT2 = 2 * NC8_SPOT * MONTH              # 130.87


def native_group(resources: Any = None, deps: tuple = ("ft-odcr",), configuration: Any = None,
                 query: Any = None):
    """An aws-native:resourcegroups:Group ft-crg: the CapacityReservationPool configuration
    (unless `query` replaces it or `configuration` is given), `resources` [one ARN unknown at
    preview] depending on `deps`."""
    def build(s):
        p: dict = {"name": "ft-crg", "tags": list(NTAGS)}
        if query is not None:
            p["resourceQuery"] = query
        else:
            p["configuration"] = POOL_CFG if configuration is None else configuration
        p["resources"] = [unknown()] if resources is None else resources
        return res("aws-native:resourcegroups:Group", "ft-crg", p,
                   deps={"resources": [named(s, d) for d in deps]} if deps else {})
    return _add(build)


def _targeting(arn: str = CRG_ARN, dep: bool = True):
    return lt_set(TARGET, {"capacityReservationTarget": {
        "capacityReservationResourceGroupArn": arn}}, "ft-crg" if dep else None)


def _native_lt(dep: bool = True):
    """ft-lt as an aws-native LaunchTemplate (its inputs under launchTemplateData, the one
    dependency list the engine records for them) targeting the group, and ft-nodes as the
    aws-native AutoScalingGroup launching it (max 2, in the us-west-2a subnet)."""
    def mutate(s):
        old = named(s, "ft-lt")
        lt = res("aws-native:ec2:LaunchTemplate", "ft-lt", {"launchTemplateData": {
            "instanceType": "g6e.4xlarge",
            "networkInterfaces": [{"deviceIndex": 0, "associatePublicIpAddress": False}],
            "tagSpecifications": [{"resourceType": "instance", "tags": list(NTAGS)}],
            TARGET: {"capacityReservationTarget": {
                "capacityReservationResourceGroupArn": CRG_ARN}}},
            "tagSpecifications": [{"resourceType": "launch-template", "tags": list(NTAGS)}]},
            deps={"launchTemplateData": [named(s, "ft-crg")]} if dep else {})
        asg = res("aws-native:autoscaling:AutoScalingGroup", "ft-nodes", {
            "autoScalingGroupName": "ft-nodes", "minSize": "0", "maxSize": "2",
            "desiredCapacity": "1", "launchTemplate": {"launchTemplateId": "lt-a",
                                                       "version": "1"},
            "vpcZoneIdentifier": ["subnet-a"],
            "tags": [{**t, "propagateAtLaunch": "true"} for t in NTAGS]},
            deps={"launchTemplate": [lt], "vpcZoneIdentifier": [named(s, "ft-a")]})
        return [lt if r is old else asg if r.name == "ft-nodes" else r for r in s]
    return mutate


def _classic_member():
    """A classic aws:resourcegroups/resource:Resource adding ft-odcr to the aws-native group
    (groupArn and resourceArn by dependency); the group lists no resources itself."""
    return _add(lambda s: res("aws:resourcegroups/resource:Resource", "ft-crg-member", {
        "groupArn": CRG_ARN, "resourceArn": ODCR_ARN},
        deps={"groupArn": [named(s, "ft-crg")], "resourceArn": [named(s, "ft-odcr")]}))


TARGETED = odcr(instanceMatchCriteria="targeted")

CASES_A = [
    ("n01", "aws", {}, _chain(TARGETED, native_group(), _targeting()), {"_est": ONCE_A}, None,
     "a targeted ODCR of 2 g6e.4xlarge in an aws-native CapacityReservationPool group (its "
     "resources: one ARN unknown at preview, depending on the ODCR), the launch template "
     "targeting the group by dependency: the nodes launch into the ODCR: once, 4,386.19 < 6,000"),
    ("n02", "aws", {}, _chain(native_odcr("targeted"), native_group(), _targeting()),
     {"_est": ONCE_A}, None, "n01 with the ODCR aws-native too: once"),
    ("n03", "aws", {}, _chain(TARGETED, native_group(), _native_lt()), {"_est": ONCE_A}, None,
     "n01 with the launch template and the group aws-native (launchTemplateData."
     "capacityReservationSpecification.capacityReservationTarget."
     "capacityReservationResourceGroupArn): once"),
    ("n04", "aws", {}, _chain(TARGETED, native_group(), _targeting(dep=False)),
     {"_est": ONCE_A}, None,
     "the launch template names the group by a literal ARN of its name in the provider's region "
     "(…:group/ft-crg, us-west-2), no dependency: once"),
    ("n05", "aws", {}, _chain(odcr(instanceMatchCriteria="targeted", arn=ODCR_ARN),
                              native_group(resources=[ODCR_ARN], deps=()), _targeting()),
     {"_est": ONCE_A}, None,
     "the group lists the ODCR's known arn as a literal, no dependency: once"),
    ("n06", "aws", {}, _chain(TARGETED, native_group(deps=()), _targeting()),
     {SPEND: "fail", "_est": TWICE_A}, None,
     "the group's one resource unknown at preview, depending on no ODCR of the stack: the member "
     "cannot be read: ODCR and nodes both priced, 8,772.38 > 6,000 (never below the truth)"),
    ("n07", "aws", {}, _chain(TARGETED, native_group(resources=unknown()), _targeting()),
     {SPEND: "fail", "_est": TWICE_A}, None,
     "the whole resources list unknown at preview: which ARNs it holds cannot be read: twice"),
    ("n08", "aws", {}, _chain(TARGETED, native_group(deps=("ft-odcr", "ft-a")), _targeting()),
     {SPEND: "fail", "_est": TWICE_A}, None,
     "one unknown ARN depending on the ODCR and on the subnet: which of them it is cannot be "
     "read: twice"),
    ("n09", "aws", {}, _chain(TARGETED, native_group(configuration=unknown()), _targeting()),
     {SPEND: "fail", "_est": TWICE_A}, None,
     "the group's configuration unknown at preview: not known to be a CapacityReservationPool: "
     "twice"),
    ("n10", "aws", {}, _chain(TARGETED, native_group(query={
        "type": "TAG_FILTERS_1_0", "query": {"resourceTypeFilters": [
            "AWS::EC2::CapacityReservation"], "tagFilters": [{"key": "team", "values": [
                "speech"]}]}}), _targeting()),
     {SPEND: "fail", "_est": TWICE_A}, None,
     "a group by ResourceQuery (no Configuration: 'either a Configuration or a ResourceQuery, "
     "but not both'): no CapacityReservationPool, no target for launches: twice"),
    ("n11", "aws", {}, _chain(odcr(instanceMatchCriteria="targeted", zone="us-west-2b"),
                              native_group(), _targeting()),
     {SPEND: "fail", "_est": TWICE_A}, None,
     "the group's ODCR in us-west-2b, the nodes in us-west-2a: no matching attributes: twice"),
    ("n12", "aws", {}, _chain(TARGETED, native_group(resources=[], deps=()), _classic_member(),
                              _targeting()),
     {"_est": ONCE_A}, None,
     "the aws-native group's member added by a classic aws:resourcegroups/resource:Resource "
     "(groupArn on the group, resourceArn on the ODCR, by dependency): once"),
    ("n13", "aws", {}, _chain(TARGETED, native_group(resources=[], deps=()), _targeting()),
     {SPEND: "fail", "_est": TWICE_A}, None,
     "control: the group holds no ODCR: the targeted ODCR takes no node, both priced"),
]


def _spot_pool():
    def mutate(s):
        named(s, "ft-gpu").props["scaleSetPriority"] = "Spot"
        return s
    return mutate


def _spot_inline():
    def mutate(s):
        named(s, "ft-aks").props["agentPoolProfiles"][1]["scaleSetPriority"] = "Spot"
        return s
    return mutate


def _spot_vmss():
    def mutate(s):
        named(s, "ft-vmss").props["virtualMachineProfile"]["priority"] = "Spot"
        return s
    return mutate


CR_AND_SPOT = rng(AZ2 + SPOT2)                  # 1,228.79
B1200 = {"budget": 1200.0}

CASES_B = [
    ("s01", "azure0", B1200, _chain(az_crg(), aks(join=True), _spot_pool()),
     {SPEND: "fail", "_est": CR_AND_SPOT}, None,
     "an AKS AgentPool of 2 Standard_NC8as_T4_v3 scaleSetPriority Spot whose "
     "capacityReservationGroupID depends on the group: Spot VMs 'aren't supported with Capacity "
     "Reservation': the reservation 1,097.92 + the pool at spot 130.87 = 1,228.79 > 1,200"),
    ("s02", "azure0", B1200, _chain(az_crg(), aks(join=True)), {"_est": rng(AZ2)}, None,
     "control: the pool Regular: inside the reservation, once, 1,097.92 < 1,200"),
    ("s03", "azure0", B1200, _chain(az_crg(), aks(join=True, inline=True), _spot_inline()),
     {SPEND: "fail", "_est": CR_AND_SPOT}, None,
     "the Spot pool inline in the ManagedCluster's agentPoolProfiles, in the group: 1,228.79"),
    ("s04", "azure", {"budget": 1200.0}, _chain(az_crg(), az_join_vmss(), _spot_vmss()),
     {SPEND: "fail", "_est": CR_AND_SPOT}, None,
     "an azure-native scale set of 2, virtualMachineProfile.priority Spot, its capacityReservation"
     " on the group: 1,097.92 + 130.87 = 1,228.79 > 1,200"),
    ("s05", "azure", {"budget": 1200.0}, _chain(az_crg(), az_join_vmss()), {"_est": rng(AZ2)},
     None, "control: the scale set Regular in the group: once, 1,097.92"),
]


def _profiles(value: Any):
    def mutate(s):
        named(s, "ft-aks").props["agentPoolProfiles"] = value
        return s
    return mutate


SYSTEM = {"name": "system", "mode": "System", "vmSize": "Standard_D4s_v5", "count": 1.0,
          "osType": "Linux"}

CASES_C = [
    ("c01", "azure0", {}, _chain(aks(join=False, inline=True), _profiles(unknown())),
     {SPEND: "fail", NPI: "undecided", "_msg": {SPEND: ["ft-aks", "cannot be estimated"]}},
     None,
     "a ManagedCluster whose agentPoolProfiles are unknown at preview: pools of a type and size "
     "unknown at preview, GPU capacity that cannot be sized: named, failing closed. "
     "no-public-ingress: the pools' enableNodePublicIP is unknown too: cannot decide (advisory)"),
    ("c02", "azure0", {}, _chain(aks(join=False, inline=True), _profiles([SYSTEM, unknown()])),
     {SPEND: "fail", NPI: "undecided", "_msg": {SPEND: ["ft-aks", "cannot be estimated"]}},
     None,
     "one entry unknown at preview beside the system pool: that pool cannot be sized: named; "
     "its enableNodePublicIP cannot be read: no-public-ingress cannot decide"),
    ("c05", "azure0", {}, _chain(aks(join=False, inline=True), _profiles([SYSTEM, [{
        "name": "gpu", "vmSize": "Standard_NC8as_T4_v3", "count": 2.0}]])),
     {SPEND: "fail", "_msg": {SPEND: ["ft-aks", "'vmSize': 'Standard_NC8as_T4_v3'"]}}, None,
     "an entry written as a list of one object: its size and type cannot be read; named with "
     "its value, never a pool dropped (as a classic cluster's defaultNodePool, fix69 f15)"),
    ("c03", "azure0", {}, _chain(aks(join=False, inline=True), _profiles([SYSTEM])), {}, None,
     "control: the system pool alone (Standard_D4s_v5, no GPU): nothing to price"),
    ("c04", "azure0", {}, aks(join=False, inline=True), {"_est": rng(AZ2)}, None,
     "control: the GPU pool known: 2 x 0.752 x 730 = 1,097.92 < 1,500"),
]

def _pool(network: Any):
    return r69.gke({"nodeCount": 2.0, "nodeConfig": r69.g_node(), "networkConfig": network})


def _no_network():
    def mutate(s):
        named(s, "gpu-pool").props.pop("networkConfig")
        return s
    return mutate


CASES_D = [
    ("g01", "gcp", {}, _pool([{"enablePrivateNodes": False}]),
     {NPI: "fail", "_msg": {NPI: ["gpu-pool", "networkConfig", "'enablePrivateNodes': False"]}},
     None,
     "a GKE pool's networkConfig written as a list of one holding enablePrivateNodes false: not "
     "read as absent (the cluster's private nodes standing in), a violation naming the value"),
    ("g02", "gcp", {}, _pool([{"enablePrivateNodes": True}]),
     {NPI: "fail", "_msg": {NPI: ["gpu-pool", "networkConfig", "'enablePrivateNodes': True"]}},
     None, "the list of one holding true: neither absent nor its one item: refused, named"),
    ("g03", "gcp", {}, _pool({"enablePrivateNodes": False}),
     {NPI: "fail", "_msg": {NPI: ["gpu-pool"]}}, None,
     "control: the object form, private nodes off: the pool's nodes get external IPs"),
    ("g04", "gcp", {}, _pool({"enablePrivateNodes": True}), {}, None,
     "control: the object form, private: 14,800.90 + 1,246.29 = 16,047.19 < 20,000, all pass"),
    ("g05", "gcp", {}, _chain(_pool({}), _no_network()), {}, None,
     "control: no networkConfig: the pool takes the private cluster's setting"),
    ("g06", "gcp", {}, _chain(_pool({"enablePrivateNodes": True}), r69._setp(
        "ml-gke", "privateClusterConfig", [{"enablePrivateNodes": True,
                                            "masterIpv4CidrBlock": "172.16.0.0/28"}])),
     {NPI: "fail", "_msg": {NPI: ["ml-gke", "privateClusterConfig",
                                  "'enablePrivateNodes': True"]}}, None,
     "the cluster's privateClusterConfig as a list of one: refused naming the value, not "
     "'enablePrivateNodes None'"),
]


@pytest.mark.parametrize("case", _params(CASES_A))
def test_aws_native_reservation_groups(pack, case):
    _run_case(pack, case)


@pytest.mark.parametrize("case", _params(CASES_B))
def test_azure_spot_beside_reservation(pack, case):
    _run_case(pack, case)


@pytest.mark.parametrize("case", _params(CASES_C))
def test_aks_profiles_unknown(pack, case):
    _run_case(pack, case)


@pytest.mark.parametrize("case", CASES_D, ids=[c[0] for c in CASES_D])
def test_gke_network_config_list(pack, case):
    r69._run_case(pack, case)
