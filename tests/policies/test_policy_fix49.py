"""Issue 35, helper fix49: the classes of review49's three blind spots (a22, e06/e06b, y07),
over gRPC as `pulumi preview` drives the pack (tests/policy_harness.py). Each case states every
policy's verdict (review49's `check`: those not named pass); expectations were worked by hand
from the pack's promise (docs/policies.md), the providers' public docs and the catalog's rows,
and committed before the code.

Prices (components/catalog/prices.csv, on-demand USD/h, a month 730 h): aws us-east-1
g5.xlarge 1.006, g5.2xlarge 1.212; azure eastus Standard_NC4as_T4_v3 0.526 (383.98 a month).

1. Instance weights (a22). docs/policies.md, "Numbers are validated": a fleet weight that is
   NaN, infinite, negative or text that is no number is a violation naming that resource and
   value, never left out. An Auto Scaling group's override WeightedCapacity is a string whose
   value must be 1-999 (docs.aws.amazon.com/autoscaling/ec2/APIReference/
   API_LaunchTemplateOverrides.html, WeightedCapacity: "Valid Range: Minimum value of 1.
   Maximum value of 999."; CloudFormation AWS::AutoScaling::AutoScalingGroup
   LaunchTemplateOverrides, the same field for aws-native): a weight outside it ("0", "1000")
   is refused by AWS, and the pack reports it by name rather than price a group AWS would not
   create with weights it cannot read. EC2 Fleet / Spot Fleet weights are doubles above 0
   (API_FleetLaunchTemplateOverridesRequest, WeightedCapacity): their readable fractions stay
   as they are (test_policy_coverage_cases), their malformed ones are violations (already so,
   kept here for the aws-native twins).
2. Classic AKS node public IPs (e06). pulumi-azure containerservice.KubernetesClusterNodePool
   `nodePublicIpEnabled` ("Should each node have a Public IP Address?", v6; `enableNodePublicIp`
   in v5) and KubernetesCluster `defaultNodePool.nodePublicIpEnabled` (`enableNodePublicIp` in
   v5): a node pool with it true gives every node a public IP, as the azure-native AgentPool's
   enableNodePublicIP does: no-public-ingress fail; false or absent: pass; unknown at preview:
   cannot decide.
3. Azure ML compute instances (y07). "An Azure Machine Learning compute instance is a managed
   cloud-based workstation" (learn.microsoft.com/azure/machine-learning/concept-compute-
   instance): one VM of its size, billed while it runs. azure-native machinelearningservices
   Compute with properties.computeType ComputeInstance (properties.properties.vmSize) and the
   classic azure machinelearning.ComputeInstance (`virtualMachineSize`) are 1 node of that size:
   GPU capacity needing a budget, priced 1 x price x 730. Attached computes (Kubernetes,
   VirtualMachine, HDInsight, Databricks...) launch nothing of their own; an AKS compute that
   creates its cluster (properties.properties.agentVmSize, agentCount) carries a GPU size the
   pack does not size: named as GPU capacity it cannot estimate (spend fail), never left out.
"""
from __future__ import annotations

import pytest

from tests.policies.test_policy_review49 import (
    ASG_TAGS, AWS, AZ, NPI, SPEND, T4, TAGS, _mixed, aws_budget, aws_lt, az_budget, check, res,
    subnet,
)
# The engine's marker for a value unknown at preview (as tests/policies/test_policy_review48.py).
UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"

# ------------------------------------------------------------------ 1. instance weights


@pytest.mark.parametrize("weight", ["NaN", "Infinity", "0", "0.5", "1000", "", "2 units"])
def test_w1_asg_override_weight_out_of_range_is_refused(pack, weight):
    """a22's group (maxSize 8, g5.xlarge "1") with the g5.2xlarge weight `weight`: not a
    number in AWS's 1-999: a violation naming it, whatever the budget (90,000): spend fail.
    ("" is a weight given as empty text: no number.)"""
    sn = subnet()
    lt = aws_lt("mixed-lt", "g5.xlarge")
    check(pack, [sn, lt, _mixed("mixed", sn, lt, 8, [("g5.xlarge", "1"), ("g5.2xlarge", weight)]),
                 aws_budget(amount="90000.00")], AWS, {SPEND: "fail"})


def test_w2_asg_readable_weights_still_priced_as_units(pack):
    """a21's readable weights "1" and "2" (10 units x 1.006 x 730 = 7,343.80) under 7,400:
    spend pass (the fix refuses only unreadable weights)."""
    sn = subnet()
    lt = aws_lt("mixed-lt", "g5.xlarge")
    check(pack, [sn, lt, _mixed("mixed", sn, lt, 8, [("g5.xlarge", "1"), ("g5.2xlarge", "2")]),
                 aws_budget(amount="7400.00")], AWS, {})


def test_w3_asg_weight_as_a_number_999(pack):
    """Weights given as numbers 1 and 999 (the API's top): 8 + 999 = 1,007 units, the dearer
    per unit g5.xlarge 1.006: 739,539.06 > 90,000: spend fail (a readable weight, priced)."""
    sn = subnet()
    lt = aws_lt("mixed-lt", "g5.xlarge")
    check(pack, [sn, lt, _mixed("mixed", sn, lt, 8, [("g5.xlarge", 1.0), ("g5.2xlarge", 999.0)]),
                 aws_budget(amount="90000.00")], AWS, {SPEND: "fail"})


def _native_mixed(name, sn, lt, max_units, weights):
    return res("aws-native:autoscaling:AutoScalingGroup", name, {
        "minSize": "0", "maxSize": str(max_units), "vpcZoneIdentifier": [f"{sn.name}-id"],
        "mixedInstancesPolicy": {
            "launchTemplate": {
                "launchTemplateSpecification": {"launchTemplateId": f"{lt.name}-id",
                                                "version": "1"},
                "overrides": [{"instanceType": t, "weightedCapacity": w} for t, w in weights]},
            "instancesDistribution": {"onDemandPercentageAboveBaseCapacity": 100}},
        "tags": list(ASG_TAGS)}, deps={"mixedInstancesPolicy": [lt], "vpcZoneIdentifier": [sn]})


@pytest.mark.parametrize("weight", ["two", "-2", "NaN"])
def test_w4_native_asg_override_weight_no_number(pack, weight):
    """An aws-native AutoScalingGroup of a22's shape (CloudFormation's MixedInstancesPolicy,
    the same WeightedCapacity string): a violation naming the weight: spend fail at 90,000."""
    sn = subnet()
    lt = aws_lt("mixed-lt", "g5.xlarge")
    check(pack, [sn, lt, _native_mixed("mixed", sn, lt, 8, [("g5.xlarge", "1"),
                                                            ("g5.2xlarge", weight)]),
                 aws_budget(amount="90000.00")], AWS, {SPEND: "fail"})


def test_w5_native_asg_override_types_priced(pack):
    """The aws-native group with readable weights "1" and "2", maxSize 8: as the classic one,
    10 units at the dearer per unit (g5.xlarge 1.006): 7,343.80 > 7,200: spend fail (its
    launch template's g5.xlarge alone at 8 nodes would be 5,875.04, under)."""
    sn = subnet()
    lt = aws_lt("mixed-lt", "g5.xlarge")
    check(pack, [sn, lt, _native_mixed("mixed", sn, lt, 8, [("g5.xlarge", "1"),
                                                            ("g5.2xlarge", "2")]),
                 aws_budget(amount="7200.00")], AWS, {SPEND: "fail"})


def test_w6_native_asg_override_type_dearer_than_its_template(pack):
    """The aws-native group, no weights, overrides g5.xlarge and g5.2xlarge, maxSize 8: it may
    launch 8 g5.2xlarge: 8 x 1.212 x 730 = 7,078.08 > 6,000: spend fail (the template's
    g5.xlarge alone: 5,875.04, under)."""
    sn = subnet()
    lt = aws_lt("mixed-lt", "g5.xlarge")
    g = _native_mixed("mixed", sn, lt, 8, [("g5.xlarge", None), ("g5.2xlarge", None)])
    for o in g.props["mixedInstancesPolicy"]["launchTemplate"]["overrides"]:
        o.pop("weightedCapacity")
    check(pack, [sn, lt, g, aws_budget(amount="6000.00")], AWS, {SPEND: "fail"})


@pytest.mark.parametrize("weight", ["NaN", -2.0, "two"])
def test_w7_native_ec2_fleet_weight_no_number(pack, weight):
    """An aws-native Ec2Fleet of g5.xlarge, totalTargetCapacity 4, its override weight
    `weight`: a violation naming it: spend fail at 90,000."""
    sn = subnet()
    lt = aws_lt("fleet-lt", "g5.xlarge")
    fleet = res("aws-native:ec2:Ec2Fleet", "fleet", {
        "type": "maintain", "launchTemplateConfigs": [{
            "launchTemplateSpecification": {"launchTemplateId": "fleet-lt-id", "version": "1"},
            "overrides": [{"instanceType": "g5.xlarge", "subnetId": "gpu-subnet-id",
                           "weightedCapacity": weight}]}],
        "targetCapacitySpecification": {"totalTargetCapacity": 4,
                                        "defaultTargetCapacityType": "on-demand"}},
        deps={"launchTemplateConfigs": [lt, sn]})
    check(pack, [sn, lt, fleet, aws_budget(amount="90000.00")], AWS, {SPEND: "fail"})


def test_w8_native_spot_fleet_weight_text(pack):
    """An aws-native SpotFleet, targetCapacity 4, launch specification g5.xlarge of weight
    "four": a violation naming it: spend fail at 90,000."""
    sn = subnet()
    fleet = res("aws-native:ec2:SpotFleet", "sfleet", {"spotFleetRequestConfigData": {
        "iamFleetRole": "arn:aws:iam::1:role/fleet", "targetCapacity": 4,
        "launchSpecifications": [{"instanceType": "g5.xlarge", "imageId": "ami-0abc",
                                  "subnetId": "gpu-subnet-id", "weightedCapacity": "four"}]}},
        deps={"spotFleetRequestConfigData": [sn]})
    check(pack, [sn, fleet, aws_budget(amount="90000.00")], AWS, {SPEND: "fail"})


# ------------------------------------------------------------ 2. classic AKS node public IPs

def _classic_aks(**pool):
    return res("azure:containerservice/kubernetesCluster:KubernetesCluster", "aks", {
        "resourceGroupName": "ml", "location": "eastus", "dnsPrefix": "ml",
        "identity": {"type": "SystemAssigned"},
        "defaultNodePool": {"name": "system", "vmSize": T4, "nodeCount": 1.0, **pool},
        "tags": dict(TAGS)})


def _classic_pool(aks, **props):
    return res("azure:containerservice/kubernetesClusterNodePool:KubernetesClusterNodePool",
               "gpu", {"kubernetesClusterId": "aks-id", "vmSize": T4, "nodeCount": 1.0,
                       "tags": dict(TAGS), **props}, deps={"kubernetesClusterId": [aks]})


def test_n1_classic_pool_with_the_v5_field(pack):
    """A KubernetesClusterNodePool of 1 T4 with enableNodePublicIp true (pulumi-azure v5's
    name): public IPs on the nodes: NPI fail. Spend 2 x 383.98 = 767.96 < 1,000: pass."""
    aks = _classic_aks()
    check(pack, [aks, _classic_pool(aks, enableNodePublicIp=True), az_budget(amount=1000.0)],
          AZ, {NPI: "fail"})


def test_n2_classic_default_pool_with_the_v5_field(pack):
    """The cluster's defaultNodePool with enableNodePublicIp true: NPI fail (383.98 < 500)."""
    check(pack, [_classic_aks(enableNodePublicIp=True), az_budget(amount=500.0)], AZ,
          {NPI: "fail"})


def test_n3_classic_pool_public_ips_off(pack):
    """nodePublicIpEnabled false on the pool and the default pool: every policy passes."""
    aks = _classic_aks(nodePublicIpEnabled=False)
    check(pack, [aks, _classic_pool(aks, nodePublicIpEnabled=False), az_budget(amount=1000.0)],
          AZ, {})


def test_n4_classic_pool_public_ips_unknown(pack):
    """nodePublicIpEnabled unknown at preview on the pool: NPI cannot decide."""
    aks = _classic_aks()
    check(pack, [aks, _classic_pool(aks, nodePublicIpEnabled=UNKNOWN),
                 az_budget(amount=1000.0)], AZ, {NPI: "undecided"})


def test_n5_classic_pool_public_ips_as_text(pack):
    """nodePublicIpEnabled "true" (text, as a YAML program may send it): NPI fail."""
    aks = _classic_aks()
    check(pack, [aks, _classic_pool(aks, nodePublicIpEnabled="true"),
                 az_budget(amount=1000.0)], AZ, {NPI: "fail"})


# ------------------------------------------------------------ 3. Azure ML compute instances

def _instance(name, size, **props):
    return res("azure-native:machinelearningservices:Compute", name, {
        "resourceGroupName": "ml", "workspaceName": "ws", "computeName": name,
        "location": "eastus", "properties": {"computeType": "ComputeInstance",
                                             "properties": {"vmSize": size, **props}},
        "tags": dict(TAGS)})


def test_c1_compute_instance_over_budget(pack):
    """y07's T4 compute instance, budget 300: 1 x 383.98 > 300: spend fail."""
    check(pack, [_instance("t4-ci", T4), az_budget(amount=300.0)], AZ, {SPEND: "fail"})


def test_c2_compute_instance_under_budget(pack):
    """The same under a budget of 500: 383.98 < 500: every policy passes."""
    check(pack, [_instance("t4-ci", T4), az_budget(amount=500.0)], AZ, {})


def test_c3_compute_instance_of_a_cpu_size(pack):
    """A compute instance of Standard_DS3_v2 (no GPU), no budget: not GPU capacity: pass."""
    check(pack, [_instance("cpu-ci", "Standard_DS3_v2")], AZ, {})


def test_c4_compute_instance_size_unknown(pack):
    """A compute instance whose vmSize is unknown at preview, budget 90,000: its type cannot be
    read: never a pass: spend undecided or fail (the pack's cannotDecide level)."""
    check(pack, [_instance("ci", UNKNOWN), az_budget(amount=90000.0)], AZ,
          {SPEND: ("undecided", "fail")})


def _classic_instance(name, size):
    return res("azure:machinelearning/computeInstance:ComputeInstance", name, {
        "machineLearningWorkspaceId": "/subscriptions/s/resourceGroups/ml/providers/"
        "Microsoft.MachineLearningServices/workspaces/ws",
        "virtualMachineSize": size, "location": "eastus", "tags": dict(TAGS)})


def test_c5_classic_compute_instance_without_budget(pack):
    """The classic ComputeInstance of T4 (virtualMachineSize), no budget: spend fail."""
    # fix59: no-public-ingress fails: nodePublicIpEnabled is left out, and it "Defaults to
    # `true`" (pulumi-azure / azurerm machine_learning_compute_cluster / _instance).
    check(pack, [_classic_instance("t4-ci", T4)], AZ, {SPEND: "fail", NPI: "fail"})


def test_c6_classic_compute_instance_priced(pack):
    """The classic one under budgets of 300 (fail: 383.98) and 500 (pass)."""
    # fix59: no-public-ingress fails: nodePublicIpEnabled is left out, and it "Defaults to
    # `true`" (pulumi-azure / azurerm machine_learning_compute_cluster / _instance).
    check(pack, [_classic_instance("t4-ci", T4), az_budget(amount=300.0)], AZ, {SPEND: "fail", NPI: "fail"})
    check(pack, [_classic_instance("t4-ci", T4), az_budget(amount=500.0)], AZ, {NPI: "fail"})


def test_c7_aks_compute_that_creates_a_gpu_cluster(pack):
    """An Azure ML compute of computeType AKS with agentVmSize T4 and agentCount 3 (it creates
    the cluster): GPU capacity the pack does not size: spend fail at 90,000."""
    aks = res("azure-native:machinelearningservices:Compute", "aks-compute", {
        "resourceGroupName": "ml", "workspaceName": "ws", "computeName": "aks-compute",
        "location": "eastus", "properties": {"computeType": "AKS", "properties": {
            "agentCount": 3, "agentVmSize": T4, "clusterPurpose": "FastProd"}},
        "tags": dict(TAGS)})
    check(pack, [aks, az_budget(amount=90000.0)], AZ, {SPEND: "fail"})


def test_c8_attached_kubernetes_compute_launches_nothing(pack):
    """An attached Kubernetes compute (an existing cluster by resourceId, no size): it launches
    nothing of its own: every policy passes, no budget needed."""
    k = res("azure-native:machinelearningservices:Compute", "k8s", {
        "resourceGroupName": "ml", "workspaceName": "ws", "computeName": "k8s",
        "location": "eastus", "properties": {
            "computeType": "Kubernetes",
            "resourceId": "/subscriptions/s/resourceGroups/ml/providers/"
                          "Microsoft.ContainerService/managedClusters/existing",
            "properties": {"namespace": "default"}},
        "tags": dict(TAGS)})
    check(pack, [k], AZ, {})
