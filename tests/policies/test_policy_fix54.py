"""fix54: the pack defects the blind review tests/policies/test_policy_review54.py found (issue 35),
each test written and run failing before its fix. Over gRPC, as `pulumi preview --policy-pack`
drives the pack (tests/policy_harness.py).

1. A list input written as one object is a list of that one (docs, spend-limit Sizes: "a list
   input given as one object (a launch template's networkInterfaces: {...}) is read as a list
   of that one"): the GPU and node-pool lists too, on every cloud that has one (GCP
   guestAccelerators on a VM, template, GKE pool or reservation; a GKE cluster's nodePools; an
   AKS cluster's agentPoolProfiles; a SageMaker endpoint configuration's productionVariants;
   fleet launchTemplateConfigs on AWS and Alibaba).
2. Alibaba security group rules that together cover every address on one group (docs,
   no-public-ingress, "Split across resources") are a violation, as AWS's and Azure's are; on a
   group named by a literal id too (the rules still share one group).
3. A placement strategy unknown at preview is "cannot decide" (docs, "Values unknown at
   preview"), not "not in a placement construct": AWS placement group strategy, Alibaba
   deployment set strategy, a GCP resource policy's collocation.

Prices (policies/catalog_data, on-demand USD/h; a month is 730 h): gcp_attached_gpus.csv
us-central1 n1-standard-8 0.38, nvidia-tesla-t4 0.35; prices.csv gcp us-central1 g2-standard-8
0.853624 (623.15 a month), azure eastus Standard_NC4as_T4_v3 0.526 (383.98 a month).
"""
from __future__ import annotations

from tests.policies.test_policy_fix37r import ALI as ALI_PROVIDER
from tests.policies.test_policy_fix37r import _apg, vsw
from tests.policies.test_policy_fix37r import _tpl as _apg_tpl
from tests.policies.test_policy_review35d import estimate, near
from tests.policies.test_policy_review54 import (
    AWSP, GLAB, NPI, OWN, RDMA, SPEND, UNK, _aws_efa_group, ali, ali_node, ali_sg_rule,
    azure, check, g_budget, g_mig, g_tpl, gcp, with_provider,
)
from tests.policy_fixtures import res
from tests.policy_harness import run

N1_T4 = 0.38 + 0.35            # one n1-standard-8 with one T4, USD/h
T4_ONE = {"type": "nvidia-tesla-t4", "count": 2.0}


# ============================================ 1. a GPU or node-pool list written as one object

def _n1_vm(accels):
    return res("gcp:compute/instance:Instance", "notebook", {
        "name": "notebook", "zone": "us-central1-a", "machineType": "n1-standard-8",
        "labels": dict(GLAB), "guestAccelerators": accels,
        "bootDisk": {"initializeParams": {"image": "debian-cloud/debian-12"}},
        "networkInterfaces": [{"network": "default"}]})


def test_1a_vm_accelerators_as_one_object_are_priced(pack):
    # Expected: (0.38 + 2 x 0.35) x 730 = 788.40, as the list form [{t4, 2}] is.
    assert near(estimate(pack, gcp(_n1_vm(T4_ONE))), (0.38 + 2 * 0.35) * 730)
    assert near(estimate(pack, gcp(_n1_vm([T4_ONE]))), (0.38 + 2 * 0.35) * 730)


def test_1b_vm_accelerator_of_unknown_type_as_one_object_fails_closed(pack):
    # Expected: an attached GPU whose type is unknown at preview has no price: spend fails
    # closed (docs: "So does an attached GPU whose type or count is unknown at preview"),
    # whichever way the list is written; a budget far above any price does not help.
    for accels in ({"type": UNK, "count": 1.0}, [{"type": UNK, "count": 1.0}]):
        found = check(pack, gcp(_n1_vm(accels), g_budget(units="100000")), {SPEND: "fail"})
        assert any("cannot be estimated" in d.message or "no price" in d.message
                   for d in found if d.policy == SPEND), [d.message for d in found]


def test_1c_template_accelerators_as_one_object_behind_a_group(pack):
    # Expected: a MIG of 3 from an n1-standard-8 template with {t4, 2} as one object:
    # 3 x 788.40 = 2,365.20.
    tpl = g_tpl("nb-tpl", machine="n1-standard-8", guestAccelerators=dict(T4_ONE))
    assert near(estimate(pack, gcp(tpl, g_mig("nb", tpl, 3))), 3 * (0.38 + 2 * 0.35) * 730)


def test_1d_gke_pool_accelerators_as_one_object(pack):
    # Expected: a zonal GKE pool of 2 n1-standard-8 nodes, nodeConfig.guestAccelerators
    # {t4, count 2} as one object: 2 x 788.40 = 1,576.80.
    pool = res("gcp:container/nodePool:NodePool", "t4-pool", {
        "cluster": "ml", "location": "us-central1-a", "nodeCount": 2.0,
        "nodeConfig": {"machineType": "n1-standard-8", "labels": dict(GLAB),
                       "guestAccelerators": dict(T4_ONE)}})
    assert near(estimate(pack, gcp(pool)), 2 * (0.38 + 2 * 0.35) * 730)


def test_1e_reservation_accelerators_as_one_object(pack):
    # Expected: a reservation of 2 n1-standard-8 each with one T4 (instanceProperties
    # guestAccelerators {acceleratorType, acceleratorCount} as one object), billed used or not:
    # 2 x (0.38 + 0.35) x 730 = 1,065.80.
    rsv = res("gcp:compute/reservation:Reservation", "t4-rsv", {
        "name": "t4-rsv", "zone": "us-central1-a", "specificReservation": {
            "count": 2.0, "instanceProperties": {
                "machineType": "n1-standard-8",
                "guestAccelerators": {"acceleratorType": "nvidia-tesla-t4",
                                      "acceleratorCount": 1.0}}}})
    assert near(estimate(pack, gcp(rsv)), 2 * N1_T4 * 730)


def test_1f_gke_cluster_node_pools_as_one_object(pack):
    # Expected: a zonal cluster whose inline nodePools is one object, 2 g2-standard-8 nodes:
    # 2 x 623.15 = 1,246.29 (read as no pool, it would be the default CPU pool, no GPU).
    cluster = res("gcp:container/cluster:Cluster", "ml", {
        "name": "ml", "location": "us-central1-a", "resourceLabels": dict(GLAB),
        "nodePools": {"name": "gpu", "nodeCount": 2.0,
                      "nodeConfig": {"machineType": "g2-standard-8", "labels": dict(GLAB)}}})
    assert near(estimate(pack, gcp(cluster)), 2 * 0.853624 * 730)


def test_1g_aks_agent_pool_profiles_as_one_object(pack):
    # Expected: an AKS cluster whose agentPoolProfiles is one object, 2 Standard_NC4as_T4_v3:
    # 2 x 0.526 x 730 = 767.96.
    aks = res("azure-native:containerservice:ManagedCluster", "aks", {
        "resourceName": "aks", "resourceGroupName": "rg-ml", "location": "eastus",
        "dnsPrefix": "aks", "tags": dict(OWN),
        "agentPoolProfiles": {"name": "gpu", "vmSize": "Standard_NC4as_T4_v3", "count": 2.0,
                              "mode": "System"}})
    assert near(estimate(pack, azure(aks)), 2 * 0.526 * 730)


def test_1h_sagemaker_variants_as_one_object(pack):
    # Expected: an endpoint configuration whose productionVariants is one object, 1 x
    # ml.g5.xlarge: SageMaker ml.* GPU variants are GPU capacity the pack cannot price (docs,
    # spend-limit), a violation naming it under any cap, as the list form is.
    variant = {"variantName": "main", "modelName": "m", "instanceType": "ml.g5.xlarge",
               "initialInstanceCount": 1.0}
    for variants in (dict(variant), [dict(variant)]):
        cfg = res("aws:sagemaker/endpointConfiguration:EndpointConfiguration", "serve", {
            "name": "serve", "productionVariants": variants, "tags": dict(OWN)})
        found = check(pack, with_provider(AWSP, cfg), {SPEND: "fail"},
                      config={SPEND: {"maxMonthlyUsd": 10 ** 6}})
        assert any("ml.g5.xlarge" in d.message for d in found if d.policy == SPEND)


def test_1i_alibaba_auto_provisioning_configs_as_one_object(pack):
    # Expected: an auto provisioning group whose launchTemplateConfigs is one object, weight
    # 0.5, totalTargetCapacity 2, pay-as-you-go: 2 / 0.5 = 4 x ecs.gn7i-c8g1.2xlarge x 2.56083
    # x 730 = 7,477.62 (read as no config, the weight is lost: 2 nodes, half the bill).
    sw = vsw("vsw-a", "eu-central-1a")
    tpl = _apg_tpl("ecs.gn7i-c8g1.2xlarge")
    apg = _apg("half-apg", tpl, sw, {"instanceType": "ecs.gn7i-c8g1.2xlarge", "vswitchId": "vsw-id",
                                     "weightedCapacity": "0.5", "maxPrice": "3"},
               totalTargetCapacity="2", defaultTargetCapacityType="PayAsYouGo")
    assert near(estimate(pack, [sw, tpl, apg], ALI_PROVIDER), 4 * 2.56083 * 730)


def test_1j_ec2_fleet_configs_as_one_object(pack):
    # Expected: an EC2 Fleet of 2 whose launchTemplateConfigs is one object overriding its
    # g5.xlarge template with p4d.24xlarge: 2 x 21.9576 x 730 = 32,058.10 (read as no config,
    # the template's g5.xlarge: 2 x 1.006 x 730 = 1,468.76).
    sn = res("aws:ec2/subnet:Subnet", "a", {"vpcId": "vpc-1", "availabilityZone": "us-east-1a",
                                            "cidrBlock": "10.0.0.0/20", "tags": dict(OWN)})
    tpl = res("aws:ec2/launchTemplate:LaunchTemplate", "g5-lt", {
        "instanceType": "g5.xlarge", "imageId": "ami-0f54", "tags": dict(OWN)})
    fleet = res("aws:ec2/fleet:Fleet", "fleet", {
        "type": "maintain", "launchTemplateConfigs": {
            "launchTemplateSpecification": {"launchTemplateId": "g5-lt-id", "version": "1"},
            "overrides": [{"instanceType": "p4d.24xlarge", "subnetId": "a-id"}]},
        "targetCapacitySpecification": {"defaultTargetCapacityType": "on-demand",
                                        "totalTargetCapacity": 2.0}, "tags": dict(OWN)},
        deps={"launchTemplateConfigs": [tpl, sn]})
    assert near(estimate(pack, with_provider(AWSP, sn, tpl, fleet)), 2 * 21.9576 * 730)


# ===================== 2. Alibaba rules that together cover every address on one security group

def _sg(name="web-sg"):
    return res("alicloud:ecs/securityGroup:SecurityGroup", name, {
        "securityGroupName": name, "vpcId": "vpc-gw5ml", "tags": dict(OWN)})


def test_2a_alibaba_halves_on_one_group_name_the_group_and_the_rules(pack):
    # Expected: 0.0.0.0/1 + 128.0.0.0/1 on one group: a violation on the group, naming both
    # halves and both rules (docs: "a violation on the group, found with the stack").
    sg = _sg()
    found = check(pack, ali(sg, ali_sg_rule("lo", "0.0.0.0/1", "443/443", sg),
                            ali_sg_rule("hi", "128.0.0.0/1", "443/443", sg)), {NPI: "fail"})
    msgs = [d.message for d in found if d.policy == NPI]
    assert any("0.0.0.0/1 + 128.0.0.0/1" in m and "hi, lo" in m for m in msgs), msgs
    assert all(d.urn == sg.urn for d in found if d.policy == NPI), msgs


def test_2b_alibaba_halves_that_do_not_let_traffic_in_pass(pack):
    # Expected: the same halves as egress rules, or as ingress rules with policy drop, open
    # nothing to the internet: pass.
    for change in ({"type": "egress"}, {"policy": "drop"}):
        sg = _sg()
        rules = [ali_sg_rule(n, c, "443/443", sg) for n, c in (("lo", "0.0.0.0/1"),
                                                                 ("hi", "128.0.0.0/1"))]
        for r in rules:
            r.props.update(change)
        check(pack, ali(sg, *rules), {})


def test_2c_alibaba_halves_on_two_literal_groups_pass(pack):
    # Expected: 0.0.0.0/1 on sg-a, 128.0.0.0/1 on sg-b (literal ids, groups made elsewhere): no
    # group is open to every address: pass.
    lo, hi = ali_sg_rule("lo", "0.0.0.0/1", "443/443"), ali_sg_rule("hi", "128.0.0.0/1", "443/443")
    lo.props["securityGroupId"], hi.props["securityGroupId"] = "sg-a", "sg-b"
    check(pack, ali(lo, hi), {})


def test_2d_aws_halves_on_a_literal_group(pack):
    # Expected: two aws:vpc ingress rules naming one literal group id, 0.0.0.0/1 and
    # 128.0.0.0/1: one group, open to every address: fail (the Alibaba twin is review54 s02).
    rules = [res("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule", f"half{i}", {
        "securityGroupId": "sg-0literal", "cidrIpv4": cidr, "ipProtocol": "tcp",
        "fromPort": 443.0, "toPort": 443.0, "tags": dict(OWN)})
        for i, cidr in enumerate(["0.0.0.0/1", "128.0.0.0/1"])]
    found = check(pack, with_provider(AWSP, *rules), {NPI: "fail"})
    assert any("sg-0literal" in d.message for d in found if d.policy == NPI)


# ============================================ 3. a placement strategy unknown at preview

def test_3a_aws_placement_strategy_unknown_names_it(pack):
    # Expected: cannot decide, naming the strategy (the review's q01 asks the verdict only).
    found = check(pack, _aws_efa_group(UNK), {RDMA: "undecided"})
    assert any("strategy" in d.message for d in found if d.policy == RDMA)


def _ali_erdma_pair(strategy):
    """Two ebmgn8v.48xlarge (eRDMA) in a deployment set of the stack whose strategy is given,
    eRDMA interfaces declared as the catalog asks, released in 48 h under a 20,000 cap:
    2 x 58.2708 x 48 = 5,594.00."""
    ds = res("alicloud:ecs/ecsDeploymentSet:EcsDeploymentSet", "ds", {
        "deploymentSetName": "ds", "strategy": strategy})
    nodes = [ali_node(f"n{i}", itype="ecs.ebmgn8v.48xlarge", deploymentSetId="ds-id",
                      deps={"deploymentSetId": [ds]}) for i in range(2)]
    return ali(ds, *nodes)


def test_3b_alibaba_deployment_set_strategy_unknown(pack):
    # Expected: the set's strategy decides placement; unknown at preview: cannot decide, and
    # the control LowLatency places the nodes (no placement finding).
    cfg = {SPEND: {"maxMonthlyUsd": 20000}}
    found = run(pack, _ali_erdma_pair(UNK), cfg)
    rdma = [d.message for d in found if d.policy == RDMA]
    assert any("cannot decide" in m and "strategy" in m for m in rdma), rdma
    assert not any("placement construct" in m for m in rdma), rdma
    known = [d.message for d in run(pack, _ali_erdma_pair("LowLatency"), cfg) if d.policy == RDMA]
    assert not any("placement construct" in m or "cannot decide" in m for m in known), known


def _gcp_policy_pair(collocation):
    pol = res("gcp:compute/resourcePolicy:ResourcePolicy", "compact", {
        "name": "compact", "region": "us-central1",
        "groupPlacementPolicy": {"collocation": collocation, "vmCount": 2.0}})
    vms = [res("gcp:compute/instance:Instance", f"a3-{i}", {
        "name": f"a3-{i}", "zone": "us-central1-a", "machineType": "a3-ultragpu-8g",
        "labels": dict(GLAB), "resourcePolicies": "compact-id",
        "networkInterfaces": [{"network": "default"}]}, deps={"resourcePolicies": [pol]})
        for i in range(2)]
    return gcp(pol, *vms)


def test_3c_gcp_collocation_unknown(pack):
    # Expected: a resource policy whose collocation is unknown at preview may be COLLOCATED:
    # cannot decide, no "not in a placement construct"; its control COLLOCATED places them.
    cfg = {SPEND: {"maxMonthlyUsd": 10 ** 6}}
    rdma = [d.message for d in run(pack, _gcp_policy_pair(UNK), cfg) if d.policy == RDMA]
    assert any("cannot decide" in m and "collocation" in m for m in rdma), rdma
    assert not any("placement construct" in m for m in rdma), rdma
    known = [d.message for d in run(pack, _gcp_policy_pair("COLLOCATED"), cfg)
             if d.policy == RDMA]
    assert not any("placement construct" in m or "cannot decide" in m for m in known), known
