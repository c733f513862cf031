"""Issue 35, the edges the earlier reviews left open (helper packedges): stacks written the way
teams write Pulumi programs (input names as the installed pulumi_aws / pulumi_gcp /
pulumi_azure_native / pulumi_alicloud SDKs define them, in the engine's camelCase), driven over
gRPC as `pulumi preview --policy-pack` drives the pack.

Each test's expected verdict per policy is written in its comment BEFORE the pack was changed,
with a one-line citation of the provider document that decides it and, where spend matters, the
monthly figure worked by hand from the catalog's cited rows (policies/catalog_data/prices.csv,
on-demand USD/h): p4d.24xlarge us-east-1 21.9576, a2-highgpu-8g us-central1 29.3871,
Standard_ND96amsr_A100_v4 eastus 32.77, ecs.gn8v-8x.48xlarge eu-central-1 58.2708; a month is
730 h; a stop N hours away prices N hours. Policies a test does not name are not asked about.

Edges: 1 inbound NAT of a load balancer outside the stack; 2 public load balancers' ordinary
rules to GPU backends (four clouds); 3 the Azure subscription check for AKS and Azure ML
compute; 4 budgets that notify no one (AWS, GCP, Azure; pulumi-alicloud has no budget
resource); 5 stops not read before (GCP terminationTime and instance schedules, Alibaba ESS
scheduled tasks, EventBridge Scheduler); 6 reservations whose tenancy / platform / CPU platform
the instances do not match.

First run (committed before the pack changed): 50 cases, 24 disagreed, each a blind spot the
pack then closed (1a-b, 2a, 2d-e, 2g-h, 2j-k, 3a x3, 4a, 4d-e, 4g, 5a, 5d, 5f, 5h-i, 6a-b, 6d);
the 26 controls agreed. Written later, with their change: 5k (seen failing without it) and the
odd-shapes test. A bug planted in rules/no_public_ingress.py (an AWS balancer public only when
`internal` is explicitly false) was caught by 2d and 2e.
"""
from __future__ import annotations

import json
import math
from datetime import datetime, timedelta, timezone

import pytest

from tests.policies.test_policy_review35 import any_level, mandatory
from tests.policies.test_policy_review35c import (
    ALI,
    AWS,
    AZ,
    GCP,
    LABELS,
    NPI,
    SPEND,
    TAGS,
    no_crash,
    undecided,
)
from tests.policies.test_policy_review35d import (
    MONTH,
    ali_node,
    estimate,
    gce,
    near,
    p4d,
    vmss,
)
from tests.policy_fixtures import hours_from_now, res
from tests.policy_harness import run

SUB = "11111111-1111-1111-1111-111111111111"
OTHER_SUB = "22222222-2222-2222-2222-222222222222"
EMAIL = "ml-platform@example.com"


def no_alarm(found, cloud):
    return [d for d in mandatory(found, SPEND) if f"no budget alarm on {cloud}" in d.message]


# ------------------------------------------------------------------------------------ budgets

def aws_budget(usd="1000000", notifications=True, **props):
    return res("aws:budgets/budget:Budget", props.pop("name", "budget"), {
        "budgetType": "COST", "timeUnit": "MONTHLY", "limitAmount": usd, "limitUnit": "USD",
        **({"notifications": [{"comparisonOperator": "GREATER_THAN", "threshold": 80.0,
                               "thresholdType": "PERCENTAGE", "notificationType": "ACTUAL",
                               "subscriberEmailAddresses": [EMAIL]}]} if notifications else {}),
        "tags": TAGS, **props})


def gcp_budget(units="1000000", **props):
    return res("gcp:billing/budget:Budget", "budget", {
        "billingAccount": "000000-AAAAAA-BBBBBB",
        "amount": {"specifiedAmount": {"currencyCode": "USD", "units": units}}, **props})


GCP_RULES = [{"thresholdPercent": 0.8, "spendBasis": "CURRENT_SPEND"}]


def azure_budget(amount=1000000.0, scope=f"/subscriptions/{SUB}", notifications=True,
                 **props):
    return res("azure-native:consumption:Budget", "budget", {
        "amount": amount, "category": "Cost", "timeGrain": "Monthly", "scope": scope,
        **({"notifications": {"actual80": {"enabled": True, "operator": "GreaterThan",
                                           "threshold": 80.0, "contactEmails": [EMAIL]}}}
           if notifications else {}), **props})


# ============================================ 1. inbound NAT of a load balancer outside the stack

NAT_POOL_ID = ("/subscriptions/0000/resourceGroups/shared-net/providers/Microsoft.Network/"
               "loadBalancers/edge-lb/inboundNatPools/ssh")
NAT_RULE_ID = ("/subscriptions/0000/resourceGroups/shared-net/providers/Microsoft.Network/"
               "loadBalancers/edge-lb/inboundNatRules/ssh-a100")


def _nat_vmss(**ip):
    return vmss("a100", virtualMachineProfile={"networkProfile": {
        "networkInterfaceConfigurations": [{"name": "nic", "primary": True, "ipConfigurations": [
            {"name": "ip", "subnet": {"id": "snet"}, **ip}]}]}})


def test_1a_a_scale_set_in_the_nat_pool_of_a_balancer_the_stack_does_not_create(pack):
    # Expected: an A100 scale set whose ipConfiguration joins inboundNatPools of "edge-lb", a
    # load balancer named by a literal id and created elsewhere. An inbound NAT rule forwards a
    # frontend port to a backend VM (learn.microsoft.com/azure/load-balancer/inbound-nat-rules);
    # whether that frontend is public is the balancer's, which the stack cannot show:
    # no-public-ingress "cannot decide" (advisory by default, mandatory when cannotDecide is
    # mandatory), never a pass and never a plain violation.
    stack = [_nat_vmss(loadBalancerInboundNatPools=[{"id": NAT_POOL_ID}]), azure_budget()]
    found = run(pack, stack, provider=AZ)
    no_crash(found)
    assert mandatory(found, NPI) == []
    assert undecided(found, NPI) and "edge-lb" in undecided(found, NPI)[0].message
    strict = run(pack, stack, {NPI: {"cannotDecide": "mandatory"}}, provider=AZ)
    assert [d for d in mandatory(strict, NPI) if "cannot decide" in d.message]


def test_1b_a_gpu_vms_nic_in_a_nat_rule_of_a_balancer_the_stack_does_not_create(pack):
    # Expected: azure-native NetworkInterface (of a Standard_ND96amsr_A100_v4 VM) whose
    # ipConfiguration joins inboundNatRules of the literal "edge-lb": as 1a, "cannot decide"
    # at the configured level (learn.microsoft.com/azure/load-balancer/inbound-nat-rules).
    nic = res("azure-native:network:NetworkInterface", "a100-nic", {
        "location": "eastus", "resourceGroupName": "train",
        "ipConfigurations": [{"name": "ip", "subnet": {"id": "snet"},
                              "loadBalancerInboundNatRules": [{"id": NAT_RULE_ID}]}]})
    vm = res("azure-native:compute:VirtualMachine", "a100", {
        "location": "eastus", "resourceGroupName": "train",
        "hardwareProfile": {"vmSize": "Standard_ND96amsr_A100_v4"}, "zones": ["1"],
        "networkProfile": {"networkInterfaces": [{"id": "nic-id", "primary": True}]},
        "tags": TAGS}, deps={"networkProfile": [nic]})
    stack = [nic, vm, azure_budget()]
    found = run(pack, stack, provider=AZ)
    no_crash(found)
    assert mandatory(found, NPI) == [] and undecided(found, NPI)
    strict = run(pack, stack, {NPI: {"cannotDecide": "mandatory"}}, provider=AZ)
    assert [d for d in mandatory(strict, NPI) if "cannot decide" in d.message]


def test_1c_no_nat_at_all_stays_decided(pack):
    # Expected (control): the same scale set with a private ipConfiguration and no NAT pool:
    # nothing to decide, no-public-ingress pass with no "cannot decide".
    found = run(pack, [_nat_vmss(), azure_budget()], provider=AZ)
    no_crash(found)
    assert mandatory(found, NPI) == [] and undecided(found, NPI) == []


# ===================================== 2. public load balancers' ordinary rules to GPU backends

def _azure_lb(public=True, rules=True, outbound=False):
    pip = res("azure-native:network:PublicIPAddress", "lb-ip", {
        "location": "eastus", "resourceGroupName": "train", "sku": {"name": "Standard"},
        "publicIPAllocationMethod": "Static"})
    frontend = ({"name": "fe", "publicIPAddress": {"id": "pip-id"}} if public else
                {"name": "fe", "subnet": {"id": "snet"}, "privateIPAllocationMethod": "Dynamic"})
    lb = res("azure-native:network:LoadBalancer", "lb", {
        "location": "eastus", "resourceGroupName": "train", "sku": {"name": "Standard"},
        "frontendIPConfigurations": [frontend],
        "backendAddressPools": [{"name": "gpus"}],
        **({"loadBalancingRules": [{"name": "triton", "protocol": "Tcp", "frontendPort": 8000.0,
                                    "backendPort": 8000.0,
                                    "frontendIPConfiguration": {"id": "fe-id"},
                                    "backendAddressPool": {"id": "pool-id"}}]} if rules else {}),
        **({"outboundRules": [{"name": "egress", "protocol": "All",
                               "frontendIPConfigurations": [{"id": "fe-id"}],
                               "backendAddressPool": {"id": "pool-id"}}]} if outbound else {})},
        deps={"frontendIPConfigurations": [pip]} if public else {})
    nodes = _nat_vmss(loadBalancerBackendAddressPools=[{"id": "pool-id"}])
    nodes.deps["virtualMachineProfile"] = [lb]
    return [pip, lb, nodes, azure_budget()] if public else [lb, nodes, azure_budget()]


def test_2a_azure_public_balancer_rule_to_a_gpu_backend_pool(pack):
    # Expected: a Standard public load balancer with a load-balancing rule (TCP 8000) to the
    # backend pool the A100 scale set joins: "a load-balancing rule distributes incoming
    # traffic sent to a frontend to the backend pool instances" (learn.microsoft.com/azure/
    # load-balancer/components#load-balancing-rules): public ingress to GPU nodes:
    # no-public-ingress mandatory.
    found = run(pack, _azure_lb(), provider=AZ)
    no_crash(found)
    assert [d for d in mandatory(found, NPI) if "load balancer" in d.message]


def test_2b_azure_public_balancer_used_only_for_outbound_is_no_ingress(pack):
    # Expected (control): the same public balancer with an outbound rule only (SNAT for egress,
    # learn.microsoft.com/azure/load-balancer/outbound-rules) and no load-balancing rule:
    # nothing comes in: no-public-ingress pass.
    found = run(pack, _azure_lb(rules=False, outbound=True), provider=AZ)
    no_crash(found)
    assert mandatory(found, NPI) == []


def test_2c_azure_internal_balancer_rule_is_no_exposure(pack):
    # Expected (control): an internal frontend (subnet address) with the same rule: pass.
    found = run(pack, _azure_lb(public=False), provider=AZ)
    no_crash(found)
    assert mandatory(found, NPI) == []


def _aws_nlb(internal=False, via_asg=False, kind="network"):
    lb = res("aws:lb/loadBalancer:LoadBalancer", "infer", {
        "loadBalancerType": kind, **({"internal": True} if internal else {}),
        "subnets": ["subnet-a"], "tags": TAGS})
    tg = res("aws:lb/targetGroup:TargetGroup", "gpus", {
        "port": 8000.0, "protocol": "TCP" if kind == "network" else "HTTP",
        "vpcId": "vpc-1", "targetType": "instance", "tags": TAGS})
    listener = res("aws:lb/listener:Listener", "l8000", {
        "loadBalancerArn": "arn:lb", "port": 8000.0,
        "protocol": "TCP" if kind == "network" else "HTTP",
        "defaultActions": [{"type": "forward", "targetGroupArn": "arn:tg"}]},
        deps={"loadBalancerArn": [lb], "defaultActions": [tg]})
    if via_asg:
        lt = res("aws:ec2/launchTemplate:LaunchTemplate", "lt", {
            "imageId": "ami-0a1b2c3d4e5f60718", "instanceType": "p4d.24xlarge", "tags": TAGS})
        group = res("aws:autoscaling/group:Group", "a100-nodes", {
            "minSize": 0.0, "maxSize": 2.0, "desiredCapacity": 2.0,
            "availabilityZones": ["us-east-1a"], "targetGroupArns": ["arn:tg"],
            "launchTemplate": {"id": "lt-id", "version": "$Latest"}},
            deps={"launchTemplate": [lt], "targetGroupArns": [tg]})
        nodes = [lt, group]
    else:
        node = p4d("a100", associatePublicIpAddress=False)   # not a default-VPC public IP
        attach = res("aws:lb/targetGroupAttachment:TargetGroupAttachment", "a100-in-tg", {
            "targetGroupArn": "arn:tg", "targetId": "i-id", "port": 8000.0},
            deps={"targetGroupArn": [tg], "targetId": [node]})
        nodes = [node, attach]
    return [lb, tg, listener, *nodes, aws_budget()]


def test_2d_aws_internet_facing_nlb_to_a_gpu_instance(pack):
    # Expected: aws.lb.LoadBalancer (network, `internal` left out: internet-facing is the
    # default; "internet-facing load balancers can route requests from clients over the
    # internet", docs.aws.amazon.com/elasticloadbalancing/latest/APIReference/
    # API_CreateLoadBalancer.html, Scheme) with a listener forwarding to a target group the
    # p4d instance is attached to: public ingress to a GPU node: no-public-ingress mandatory.
    found = run(pack, _aws_nlb(), provider=AWS)
    no_crash(found)
    assert [d for d in mandatory(found, NPI) if "load balancer" in d.message]


def test_2e_aws_internet_facing_alb_to_a_gpu_autoscaling_group(pack):
    # Expected: an internet-facing ALB whose listener forwards to a target group that the p4d
    # ASG registers its instances in (targetGroupArns): no-public-ingress mandatory (same
    # source as 2d).
    found = run(pack, _aws_nlb(via_asg=True, kind="application"), provider=AWS)
    no_crash(found)
    assert [d for d in mandatory(found, NPI) if "load balancer" in d.message]


def test_2f_aws_internal_nlb_is_no_exposure(pack):
    # Expected (control): internal = true ("the nodes of an internal load balancer have only
    # private IP addresses", same source): no-public-ingress pass.
    found = run(pack, _aws_nlb(internal=True), provider=AWS)
    no_crash(found)
    assert mandatory(found, NPI) == []


def _gcp_lb(scheme="EXTERNAL", pool=False):
    if pool:
        vm = gce("a100")
        target = res("gcp:compute/targetPool:TargetPool", "gpus", {
            "region": "us-central1", "instances": ["us-central1-a/a100"]},
            deps={"instances": [vm]})
        rule = res("gcp:compute/forwardingRule:ForwardingRule", "infer", {
            "region": "us-central1", "portRange": "8000", "target": "pool-self-link",
            **({"loadBalancingScheme": scheme} if scheme else {})}, deps={"target": [target]})
        return [vm, target, rule, gcp_budget(thresholdRules=GCP_RULES)]
    tpl = res("gcp:compute/instanceTemplate:InstanceTemplate", "a100-tpl", {
        "machineType": "a2-highgpu-8g", "disks": [{"boot": True, "sourceImage": "img"}],
        "networkInterfaces": [{"network": "default"}],
        "scheduling": {"onHostMaintenance": "TERMINATE"}, "labels": LABELS})
    mig = res("gcp:compute/instanceGroupManager:InstanceGroupManager", "a100-mig", {
        "zone": "us-central1-a", "targetSize": 2.0, "baseInstanceName": "a100",
        "versions": [{"instanceTemplate": "tpl"}]}, deps={"versions": [tpl]})
    backend = res("gcp:compute/regionBackendService:RegionBackendService", "gpus", {
        "region": "us-central1", "loadBalancingScheme": scheme or "EXTERNAL",
        "protocol": "TCP", "backends": [{"group": "mig-instance-group"}]},
        deps={"backends": [mig]})
    rule = res("gcp:compute/forwardingRule:ForwardingRule", "infer", {
        "region": "us-central1", "portRange": "8000", "backendService": "bs-id",
        **({"loadBalancingScheme": scheme} if scheme else {})},
        deps={"backendService": [backend]})
    return [tpl, mig, backend, rule, gcp_budget(thresholdRules=GCP_RULES)]


def test_2g_gcp_external_forwarding_rule_to_a_gpu_backend_service(pack):
    # Expected: a regional forwarding rule with loadBalancingScheme EXTERNAL to a backend
    # service whose backend is the a2-highgpu-8g MIG: an external passthrough Network Load
    # Balancer "can receive traffic from any client on the internet" (cloud.google.com/
    # load-balancing/docs/network): no-public-ingress mandatory.
    found = run(pack, _gcp_lb(), provider=GCP)
    no_crash(found)
    assert [d for d in mandatory(found, NPI) if "load balancer" in d.message]


def test_2h_gcp_default_scheme_forwarding_rule_to_a_target_pool_of_a_gpu_vm(pack):
    # Expected: a forwarding rule with no loadBalancingScheme (EXTERNAL is the default,
    # pulumi-gcp compute.ForwardingRule load_balancing_scheme) to a target pool holding the
    # a2-highgpu-8g VM (cloud.google.com/load-balancing/docs/network/networklb-target-pools):
    # no-public-ingress mandatory.
    found = run(pack, _gcp_lb(scheme=None, pool=True), provider=GCP)
    no_crash(found)
    assert [d for d in mandatory(found, NPI) if "load balancer" in d.message]


def test_2i_gcp_internal_forwarding_rule_is_no_exposure(pack):
    # Expected (control): loadBalancingScheme INTERNAL (internal passthrough NLB, reachable
    # from the VPC only): no-public-ingress pass.
    found = run(pack, _gcp_lb(scheme="INTERNAL"), provider=GCP)
    no_crash(found)
    assert mandatory(found, NPI) == []


def _ali_slb(address="internet", nlb=False):
    node = ali_node("a100")
    if nlb:
        lb = res("alicloud:nlb/loadBalancer:LoadBalancer", "infer", {
            "addressType": "Internet" if address == "internet" else "Intranet",
            "loadBalancerType": "Network", "vpcId": "vpc-train",
            "zoneMappings": [{"vswitchId": "vsw-a", "zoneId": "eu-central-1a"}], "tags": TAGS},
            provider_region=ALI)
        group = res("alicloud:nlb/serverGroup:ServerGroup", "gpus", {
            "serverGroupName": "gpus", "serverGroupType": "Instance", "vpcId": "vpc-train",
            "protocol": "TCP", "tags": TAGS}, provider_region=ALI)
        listener = res("alicloud:nlb/listener:Listener", "l8000", {
            "listenerPort": 8000.0, "listenerProtocol": "TCP", "loadBalancerId": "nlb-id",
            "serverGroupId": "sg-id"}, deps={"loadBalancerId": [lb], "serverGroupId": [group]},
            provider_region=ALI)
        attach = res("alicloud:nlb/serverGroupServerAttachment:ServerGroupServerAttachment",
                     "a100-in-group", {"serverGroupId": "sg-id", "serverId": "i-id",
                                       "serverType": "Ecs", "port": 8000.0},
                     deps={"serverGroupId": [group], "serverId": [node]}, provider_region=ALI)
        return [node, lb, group, listener, attach]
    lb = res("alicloud:slb/applicationLoadBalancer:ApplicationLoadBalancer", "infer", {
        "loadBalancerName": "infer", "addressType": address, "loadBalancerSpec": "slb.s2.small",
        **({"vswitchId": "vsw-a"} if address == "intranet" else {}), "tags": TAGS},
        provider_region=ALI)
    backends = res("alicloud:slb/backendServer:BackendServer", "a100-backend", {
        "loadBalancerId": "lb-id", "backendServers": [{"serverId": "i-id", "weight": 100.0}]},
        deps={"loadBalancerId": [lb], "backendServers": [node]}, provider_region=ALI)
    return [node, lb, backends]


def test_2j_alibaba_internet_slb_to_a_gpu_server(pack):
    # Expected: slb.ApplicationLoadBalancer addressType "internet" ("the system allocates a
    # public IP address so that the instance can forward requests from the Internet",
    # pulumi-alicloud slb.ApplicationLoadBalancer address_type) with the gn8v instance as a
    # backend server: no-public-ingress mandatory.
    found = run(pack, _ali_slb())
    no_crash(found)
    assert [d for d in mandatory(found, NPI) if "load balancer" in d.message]


def test_2k_alibaba_internet_nlb_to_a_gpu_server(pack):
    # Expected: nlb.LoadBalancer addressType "Internet" with a listener to a server group the
    # gn8v instance is attached to (alibabacloud.com/help/en/slb/network-load-balancer/
    # developer-reference/api-nlb-2022-04-30-createloadbalancer, AddressType Internet: "the
    # NLB instance uses a public IP address"): no-public-ingress mandatory.
    found = run(pack, _ali_slb(nlb=True))
    no_crash(found)
    assert [d for d in mandatory(found, NPI) if "load balancer" in d.message]


def test_2l_alibaba_intranet_slb_is_no_exposure(pack):
    # Expected (control): addressType "intranet" (an intranet address only, same SDK doc):
    # no-public-ingress pass.
    found = run(pack, _ali_slb(address="intranet"))
    no_crash(found)
    assert mandatory(found, NPI) == []


# =============================================== 3. the Azure subscription of AKS and ML compute

def _aks_pool():
    return res("azure-native:containerservice:AgentPool", "a100-pool", {
        "resourceGroupName": "train", "resourceName": "aks", "vmSize": "Standard_ND96amsr_A100_v4",
        "count": 2.0, "availabilityZones": ["1"], "mode": "User", "tags": TAGS})


def _aks_cluster():
    return res("azure-native:containerservice:ManagedCluster", "aks", {
        "resourceGroupName": "train", "location": "eastus", "dnsPrefix": "aks",
        "agentPoolProfiles": [{"name": "gpu", "vmSize": "Standard_ND96amsr_A100_v4",
                               "count": 2.0, "mode": "System", "availabilityZones": ["1"]}],
        "tags": TAGS})


def _aml_compute():
    return res("azure-native:machinelearningservices:Compute", "a100-cluster", {
        "resourceGroupName": "train", "workspaceName": "ml", "location": "eastus",
        "properties": {"computeType": "AmlCompute", "properties": {
            "vmSize": "Standard_ND96amsr_A100_v4", "vmPriority": "Dedicated",
            "scaleSettings": {"minNodeCount": 0.0, "maxNodeCount": 2.0}}}, "tags": TAGS})


@pytest.mark.parametrize("make", [_aks_pool, _aks_cluster, _aml_compute],
                         ids=["aks-agent-pool", "aks-cluster-pool", "aml-compute"])
def test_3a_a_budget_on_another_subscription_is_no_alarm_for_aks_or_aml(pack, make):
    # Expected: the provider deploys into subscription 1111...; the only budget's scope is
    # /subscriptions/2222...: a budget "evaluates the costs of" its scope only
    # (learn.microsoft.com/azure/cost-management-billing/costs/tutorial-acm-create-budgets),
    # and the AKS / Azure ML nodes bill in the subscription they are deployed into:
    # spend-limit mandatory "no budget alarm on azure".
    found = run(pack, [make(), azure_budget(scope=f"/subscriptions/{OTHER_SUB}")],
                provider={"location": "eastus", "subscriptionId": SUB})
    no_crash(found)
    assert no_alarm(found, "azure"), [d.message for d in any_level(found, SPEND)]


@pytest.mark.parametrize("make", [_aks_pool, _aks_cluster, _aml_compute],
                         ids=["aks-agent-pool", "aks-cluster-pool", "aml-compute"])
def test_3b_a_budget_on_the_same_subscription_is_the_alarm(pack, make):
    # Expected (control): the budget on the compute's own subscription covers it; 2 x 32.77 x
    # 730 = 47,844.20 under 1,000,000: spend-limit pass.
    found = run(pack, [make(), azure_budget(scope=f"/subscriptions/{SUB}")],
                provider={"location": "eastus", "subscriptionId": SUB})
    no_crash(found)
    assert mandatory(found, SPEND) == []


# ======================================================= 4. budgets that notify no one

def test_4a_an_aws_budget_without_notifications_is_no_alarm(pack):
    # Expected: a COST budget of 1,000,000 with no notification: AWS Budgets tells only the
    # subscribers of a notification ("a notification ... and a list of up to 10 subscribers",
    # docs.aws.amazon.com/aws-cost-management/latest/APIReference/
    # API_budgets_CreateBudget.html, NotificationsWithSubscribers); the policy asks for a
    # budget ALARM: spend-limit mandatory "no budget alarm on aws", naming the budget and that
    # it notifies no one.
    found = run(pack, [p4d("a100"), aws_budget(notifications=False)], provider=AWS)
    no_crash(found)
    alarms = no_alarm(found, "aws")
    assert alarms and "notif" in alarms[0].message, [d.message for d in found]


def test_4b_an_aws_budget_with_a_notification_is_the_alarm(pack):
    # Expected (control): the same budget with an 80 % ACTUAL notification to an e-mail:
    # 21.9576 x 730 = 16,029.05 under 1,000,000: spend-limit pass.
    found = run(pack, [p4d("a100"), aws_budget()], provider=AWS)
    no_crash(found)
    assert mandatory(found, SPEND) == []


def test_4c_an_aws_budget_whose_action_notifies_is_the_alarm(pack):
    # Expected: no notification on the budget itself, but an aws.budgets.BudgetAction on it
    # (actionThreshold 100 %, subscribers: an e-mail; "budget actions ... notify the
    # subscribers", docs.aws.amazon.com/cost-management/latest/userguide/
    # budgets-controls.html): someone is told and the action runs: spend-limit pass.
    b = aws_budget(notifications=False)
    action = res("aws:budgets/budgetAction:BudgetAction", "stop", {
        "budgetName": "budget", "actionType": "RUN_SSM_DOCUMENTS", "approvalModel": "AUTOMATIC",
        "notificationType": "ACTUAL", "executionRoleArn": "arn:aws:iam::1:role/x",
        "actionThreshold": {"actionThresholdType": "PERCENTAGE", "actionThresholdValue": 100.0},
        "definition": {"ssmActionDefinition": {"actionSubType": "STOP_EC2_INSTANCES",
                                               "region": "us-east-1", "instanceIds": ["i-1"]}},
        "subscribers": [{"address": EMAIL, "subscriptionType": "EMAIL"}]},
        deps={"budgetName": [b]})
    found = run(pack, [p4d("a100"), b, action], provider=AWS)
    no_crash(found)
    assert mandatory(found, SPEND) == []


def test_4d_a_gcp_budget_without_threshold_rules_or_channels_is_no_alarm(pack):
    # Expected: a billing budget with neither thresholdRules nor an allUpdatesRule: alert
    # e-mails go out "when a threshold is exceeded" (disableDefaultIamRecipients, cloud.google
    # .com/billing/docs/reference/budget/rest/v1/billingAccounts.budgets#NotificationsRule),
    # and it has no threshold and no Pub/Sub topic: no one is told: spend-limit mandatory.
    found = run(pack, [gce("a100"), gcp_budget()], provider=GCP)
    no_crash(found)
    assert no_alarm(found, "gcp"), [d.message for d in found]


def test_4e_a_gcp_budget_that_turns_off_its_only_recipients_is_no_alarm(pack):
    # Expected: thresholdRules at 80 %, but allUpdatesRule.disableDefaultIamRecipients true
    # with no monitoring channel and no Pub/Sub topic (same source): no recipient left:
    # spend-limit mandatory.
    b = gcp_budget(thresholdRules=GCP_RULES,
                   allUpdatesRule={"disableDefaultIamRecipients": True})
    found = run(pack, [gce("a100"), b], provider=GCP)
    no_crash(found)
    assert no_alarm(found, "gcp"), [d.message for d in found]


def test_4f_a_gcp_budget_with_thresholds_for_the_billing_admins_is_the_alarm(pack):
    # Expected (control): thresholdRules at 80 %, default recipients kept (the billing account
    # administrators and users get the e-mails, same source): 29.3871 x 730 = 21,452.58 under
    # 1,000,000: spend-limit pass. Also with recipients off but a Pub/Sub topic: pass.
    found = run(pack, [gce("a100"), gcp_budget(thresholdRules=GCP_RULES)], provider=GCP)
    no_crash(found)
    assert mandatory(found, SPEND) == []
    piped = gcp_budget(allUpdatesRule={"disableDefaultIamRecipients": True,
                                       "pubsubTopic": "projects/ml-prod/topics/budget",
                                       "schemaVersion": "1.0"})
    found = run(pack, [gce("a100"), piped], provider=GCP)
    assert mandatory(found, SPEND) == []


def test_4g_an_azure_budget_without_notifications_is_no_alarm(pack):
    # Expected: a consumption budget on the compute's subscription with no notifications (or
    # only a disabled one): a budget alerts through its notifications' contacts
    # (learn.microsoft.com/rest/api/consumption/budgets/create-or-update, Notification:
    # enabled, contactEmails, contactRoles, contactGroups): spend-limit mandatory.
    prov = {"location": "eastus", "subscriptionId": SUB}
    found = run(pack, [vmss("a100"), azure_budget(notifications=False)], provider=prov)
    no_crash(found)
    assert no_alarm(found, "azure"), [d.message for d in found]
    off = azure_budget(notifications=False)
    off.props["notifications"] = {"actual80": {"enabled": False, "operator": "GreaterThan",
                                               "threshold": 80.0, "contactEmails": [EMAIL]}}
    found = run(pack, [vmss("a100"), off], provider=prov)
    assert no_alarm(found, "azure"), [d.message for d in found]


def test_4h_an_azure_budget_with_a_notification_is_the_alarm(pack):
    # Expected (control): an enabled 80 % notification to an e-mail: 2 x 32.77 x 730 =
    # 47,844.20 under 1,000,000: spend-limit pass.
    found = run(pack, [vmss("a100"), azure_budget()],
                provider={"location": "eastus", "subscriptionId": SUB})
    no_crash(found)
    assert mandatory(found, SPEND) == []


# ======================================================= 5. stops not read before

A2 = 29.3871
P4D = 21.9576
GN8V = 58.2708


def _gcp_estimate(pack, vm, extra=()):
    return estimate(pack, [*extra, vm, gcp_budget(thresholdRules=GCP_RULES)], GCP)


def test_5a_gcp_termination_time_deletes_the_vm(pack):
    # Expected: scheduling.terminationTime 48 h from now with instanceTerminationAction DELETE:
    # "Compute Engine ... deletes the VM at the termination time" (cloud.google.com/compute/
    # docs/instances/limit-vm-runtime): 48 x 29.3871 = 1,410.58 USD, not the month (21,452.58).
    vm = gce("a100", scheduling={"onHostMaintenance": "TERMINATE",
                                 "terminationTime": hours_from_now(48),
                                 "instanceTerminationAction": "DELETE"})
    assert near(_gcp_estimate(pack, vm), 48 * A2)


def test_5b_gcp_the_earlier_of_termination_time_and_max_run_duration_stops(pack):
    # Expected: terminationTime 96 h away and maxRunDuration 24 h with STOP (a stopped VM
    # bills no vCPU, memory or GPU: cloud.google.com/compute/docs/instances/
    # stop-start-instance): the earlier stop, 24 x 29.3871 = 705.29.
    vm = gce("a100", scheduling={"onHostMaintenance": "TERMINATE",
                                 "terminationTime": hours_from_now(96),
                                 "maxRunDuration": {"seconds": 24 * 3600.0},
                                 "instanceTerminationAction": "STOP"})
    assert near(_gcp_estimate(pack, vm), 24 * A2)


def test_5c_gcp_termination_time_that_is_no_time_stops_nothing(pack):
    # Expected: terminationTime "friday evening" (no RFC 3339 time): no stop, the month:
    # 730 x 29.3871 = 21,452.58.
    vm = gce("a100", scheduling={"onHostMaintenance": "TERMINATE",
                                 "terminationTime": "friday evening",
                                 "instanceTerminationAction": "DELETE"})
    assert near(_gcp_estimate(pack, vm), MONTH * A2)


def _schedule_policy(start=False, **schedule):
    return res("gcp:compute/resourcePolicy:ResourcePolicy", "nightly-stop", {
        "region": "us-central1", "instanceSchedulePolicy": {
            "timeZone": "UTC", "vmStopSchedule": {"schedule": "0 18 * * *"},
            **({"vmStartSchedule": {"schedule": "0 8 * * *"}} if start else {}), **schedule}})


def _hours_to_next_18_utc():
    now = datetime.now(timezone.utc)
    stop = now.replace(hour=18, minute=0, second=0, microsecond=0)
    if stop <= now:
        stop += timedelta(days=1)
    return math.ceil((stop - now).total_seconds() / 3600 - 1e-6)


def test_5d_gcp_instance_schedule_stops_the_gpu_vm_at_its_next_stop(pack):
    # Expected: a resource policy whose instanceSchedulePolicy stops VMs at 18:00 UTC daily
    # and never starts them, attached to the a2-highgpu-8g VM (resourcePolicies): the VM is
    # stopped at the next 18:00 UTC and nothing starts it again (cloud.google.com/compute/docs/
    # instances/schedule-instance-start-stop): priced until then, at most 24 h (705.29).
    policy = _schedule_policy()
    vm = gce("a100", resourcePolicies=["policy-self-link"])
    vm.deps["resourcePolicies"] = [policy]
    hours = _hours_to_next_18_utc()
    assert near(_gcp_estimate(pack, vm, [policy]), hours * A2)


def test_5e_gcp_instance_schedule_that_starts_again_or_is_not_attached_stops_nothing(pack):
    # Expected: the same policy with a vmStartSchedule at 08:00 (it restarts the VM each day):
    # no lifetime, the month; and the stop-only policy attached to no GPU VM: the month.
    policy = _schedule_policy(start=True)
    vm = gce("a100", resourcePolicies=["policy-self-link"])
    vm.deps["resourcePolicies"] = [policy]
    assert near(_gcp_estimate(pack, vm, [policy]), MONTH * A2)
    loose = _schedule_policy()
    assert near(_gcp_estimate(pack, gce("a100"), [loose]), MONTH * A2)


def _ali_group():
    sw = res("alicloud:vpc/switch:Switch", "vsw", {"zoneId": "eu-central-1a", "vpcId": "vpc-x",
                                                    "tags": TAGS}, provider_region=ALI)
    group = res("alicloud:ess/scalingGroup:ScalingGroup", "gpus", {
        "minSize": 0.0, "maxSize": 2.0, "scalingGroupName": "gpus", "vswitchIds": ["vsw-id"]},
        deps={"vswitchIds": [sw]}, provider_region=ALI)
    conf = res("alicloud:ess/scalingConfiguration:ScalingConfiguration", "conf", {
        "scalingGroupId": "sg-id", "instanceType": "ecs.gn8v-8x.48xlarge",
        "imageId": "ubuntu_22_04_x64_20G_alibase", "active": True, "tags": TAGS},
        deps={"scalingGroupId": [group]}, provider_region=ALI)
    return [sw, group, conf]


def _ali_task(group, hours=72.0, literal=None, **props):
    when = (datetime.now(timezone.utc) + timedelta(hours=hours)).strftime("%Y-%m-%dT%H:%MZ")
    return res("alicloud:ess/scheduledTask:ScheduledTask", "stop-gpus", {
        "scalingGroupId": literal or "sg-id", "launchTime": when, "minValue": 0.0,
        "maxValue": 0.0, "desiredCapacity": 0.0, **props},
        deps={} if literal else {"scalingGroupId": [group]}, provider_region=ALI)


def test_5f_alibaba_ess_scheduled_task_scales_the_gpu_group_to_zero(pack):
    # Expected: ess.ScheduledTask on the group (scalingGroupId) with minValue = maxValue =
    # desiredCapacity 0 at a launchTime 72 h away, once: it sets the group's bounds at that
    # time (alibabacloud.com/help/en/auto-scaling/developer-reference/
    # api-ess-2014-08-28-createscheduledtask, ScalingGroupId with MinValue/MaxValue), so the
    # gn8v nodes run 72 h: 2 x 58.2708 x 72 = 8,391.00 (launchTime is to the minute, so up to
    # one hour more: 8,507.54).
    stack = _ali_group()
    found = estimate(pack, [*stack, _ali_task(stack[1])])
    assert 2 * GN8V * 72 - 1 <= found <= 2 * GN8V * 73 + 1


@pytest.mark.parametrize("variant", ["disabled", "daily", "other-group", "max-one"])
def test_5g_alibaba_ess_scheduled_tasks_that_do_not_stop(pack, variant):
    # Expected: taskEnabled false; recurrenceType Daily (it recurs: no lifetime); a literal
    # scalingGroupId the stack does not create; maxValue 1 (a node stays): each stops nothing:
    # the month, 2 x 58.2708 x 730 = 85,075.37.
    stack = _ali_group()
    props = {"disabled": {"taskEnabled": False},
             "daily": {"recurrenceType": "Daily", "recurrenceValue": "1",
                       "recurrenceEndTime": hours_from_now(24 * 20)[:16] + "Z"},
             "other-group": {"literal": "asg-0literal"},
             "max-one": {"maxValue": 1.0, "minValue": 0.0, "desiredCapacity": 1.0}}[variant]
    assert near(estimate(pack, [*stack, _ali_task(stack[1], **props)]), 2 * GN8V * MONTH)


def _at(hours):
    return "at(" + (datetime.now(timezone.utc) + timedelta(hours=hours)).strftime(
        "%Y-%m-%dT%H:%M:%S") + ")"


def _eb_schedule(action, payload=None, deps=None, **props):
    return res("aws:scheduler/schedule:Schedule", "stop-gpus", {
        "scheduleExpression": _at(48), "flexibleTimeWindow": {"mode": "OFF"},
        "target": {"arn": f"arn:aws:scheduler:::aws-sdk:{action}",
                   "roleArn": "arn:aws:iam::1:role/scheduler",
                   **({"input": json.dumps(payload)} if payload is not None else {})},
        **props}, deps=deps or {})


def _named_asg():
    lt = res("aws:ec2/launchTemplate:LaunchTemplate", "lt", {
        "imageId": "ami-0a1b2c3d4e5f60718", "instanceType": "p4d.24xlarge", "tags": TAGS})
    group = res("aws:autoscaling/group:Group", "a100-nodes", {
        "name": "a100-nodes", "minSize": 0.0, "maxSize": 2.0, "desiredCapacity": 2.0,
        "availabilityZones": ["us-east-1a"],
        "launchTemplate": {"id": "lt-id", "version": "$Latest"}}, deps={"launchTemplate": [lt]})
    return [lt, group]


ASG_TO_ZERO = {"AutoScalingGroupName": "a100-nodes", "MinSize": 0, "MaxSize": 0,
               "DesiredCapacity": 0}


def test_5h_eventbridge_scheduler_sets_the_named_asg_to_zero(pack):
    # Expected: an aws.scheduler.Schedule, one-time at() 48 h away, universal target
    # autoscaling:updateAutoScalingGroup with input {AutoScalingGroupName: "a100-nodes",
    # MinSize 0, MaxSize 0, DesiredCapacity 0} (docs.aws.amazon.com/scheduler/latest/UserGuide/
    # managing-targets-universal.html; one-time schedules, schedule-types.html): the group is
    # 0 from then: 2 x 21.9576 x 48 = 2,107.93.
    stack = [*_named_asg(), _eb_schedule("autoscaling:updateAutoScalingGroup", ASG_TO_ZERO),
             aws_budget()]
    assert near(estimate(pack, stack, AWS), 2 * P4D * 48)


def test_5i_eventbridge_scheduler_stops_the_gpu_instance_it_depends_on(pack):
    # Expected: one-time at() 48 h away, universal target ec2:stopInstances, its input built
    # from the p4d instance's id (a property dependency on it; the id is known only after
    # apply): a stopped instance bills no compute (docs.aws.amazon.com/AWSEC2/latest/UserGuide/
    # ec2-instance-lifecycle.html): 21.9576 x 48 = 1,053.96.
    node = p4d("a100")
    sched = _eb_schedule("ec2:stopInstances", {"InstanceIds": ["i-from-the-instance"]},
                         deps={"target": [node]})
    assert near(estimate(pack, [node, sched, aws_budget()], AWS), P4D * 48)


@pytest.mark.parametrize("variant", ["disabled", "other-asg", "start-instances", "keeps-one"])
def test_5j_eventbridge_schedules_that_do_not_stop(pack, variant):
    # Expected: state DISABLED; a group name that is not the stack's group; ec2:startInstances;
    # MinSize 1: none stops the group: the month, 2 x 21.9576 x 730 = 32,058.10. (A cron()
    # stop with no start in the stack was here as "recurring: no lifetime"; it stops the group
    # at its first run and nothing restarts it: test_policy_edges35b 8a prices it so.)
    payload = dict(ASG_TO_ZERO)
    action, props = "autoscaling:updateAutoScalingGroup", {}
    if variant == "disabled":
        props = {"state": "DISABLED"}
    elif variant == "other-asg":
        payload["AutoScalingGroupName"] = "someone-elses-group"
    elif variant == "start-instances":
        action = "ec2:startInstances"
    else:
        payload.update(MinSize=1, DesiredCapacity=1)
    stack = [*_named_asg(), _eb_schedule(action, payload, **props), aws_budget()]
    assert near(estimate(pack, stack, AWS), 2 * P4D * MONTH)


# ============================================== 6. reservations the instances do not match

def _odcr(**props):
    return res("aws:ec2/capacityReservation:CapacityReservation", "a100s", {
        "instanceType": "p4d.24xlarge", "instanceCount": 1.0, "availabilityZone": "us-east-1a",
        "instancePlatform": "Linux/UNIX", "instanceMatchCriteria": "open", **props,
        "tags": TAGS})


def test_6a_a_dedicated_odcr_does_not_hold_a_default_tenancy_instance(pack):
    # Expected: an open ODCR of 1 p4d with tenancy "dedicated" and a p4d instance of default
    # tenancy in its zone: an instance launches into a reservation only with "matching
    # attributes (instance type, platform, Availability Zone, and tenancy)"
    # (docs.aws.amazon.com/AWSEC2/latest/UserGuide/capacity-reservations-launch.html): both
    # bill, 2 x 21.9576 x 730 = 32,058.10 (not 16,029.05).
    stack = [_odcr(tenancy="dedicated"), p4d("a100"), aws_budget()]
    assert near(estimate(pack, stack, AWS), 2 * P4D * MONTH)


def test_6b_a_windows_odcr_does_not_hold_a_linux_instance_it_targets(pack):
    # Expected: a targeted ODCR for instancePlatform "Windows"; the Linux p4d instance (an
    # Ubuntu AMI, no Windows sign) targets it by its capacityReservationSpecification: the
    # platform does not match (same source): both bill, 32,058.10.
    odcr = _odcr(instancePlatform="Windows", instanceMatchCriteria="targeted")
    node = p4d("a100", capacityReservationSpecification={
        "capacityReservationTarget": {"capacityReservationId": "cr-1"}})
    node.deps["capacityReservationSpecification"] = [odcr]
    assert near(estimate(pack, [odcr, node, aws_budget()], AWS), 2 * P4D * MONTH)


def test_6c_a_dedicated_odcr_holds_a_dedicated_template_group(pack):
    # Expected (control): ODCR tenancy "dedicated", and a group whose launch template places
    # its instance with placement.tenancy "dedicated": they match: priced once, 16,029.05.
    odcr = _odcr(tenancy="dedicated")
    lt = res("aws:ec2/launchTemplate:LaunchTemplate", "lt", {
        "imageId": "ami-0a1b2c3d4e5f60718", "instanceType": "p4d.24xlarge",
        "placement": {"tenancy": "dedicated"}, "tags": TAGS})
    group = res("aws:autoscaling/group:Group", "a100-nodes", {
        "minSize": 0.0, "maxSize": 1.0, "desiredCapacity": 1.0,
        "availabilityZones": ["us-east-1a"],
        "launchTemplate": {"id": "lt-id", "version": "$Latest"}}, deps={"launchTemplate": [lt]})
    assert near(estimate(pack, [odcr, lt, group, aws_budget()], AWS), P4D * MONTH)


def test_6d_a_gcp_reservation_for_another_cpu_platform_is_not_consumed(pack):
    # Expected: an automatically consumed reservation of 1 a2-highgpu-8g with
    # minCpuPlatform "Intel Ice Lake" and a VM of that type in its zone that asks for no CPU
    # platform: a VM consumes a reservation only when its properties match the reservation's,
    # minimum CPU platform included (cloud.google.com/compute/docs/instances/
    # reservations-consume): both bill, 2 x 29.3871 x 730 = 42,905.17.
    held = res("gcp:compute/reservation:Reservation", "a100-held", {
        "name": "a100-held", "zone": "us-central1-a", "specificReservationRequired": False,
        "specificReservation": {"count": 1.0, "instanceProperties": {
            "machineType": "a2-highgpu-8g", "minCpuPlatform": "Intel Ice Lake"}}})
    assert near(_gcp_estimate(pack, gce("a100"), [held]), 2 * A2 * MONTH)
    same = res("gcp:compute/reservation:Reservation", "a100-held", {
        "name": "a100-held", "zone": "us-central1-a", "specificReservationRequired": False,
        "specificReservation": {"count": 1.0, "instanceProperties": {
            "machineType": "a2-highgpu-8g"}}})
    # Control: the same reservation with no CPU platform: consumed, priced once (21,452.58).
    assert near(_gcp_estimate(pack, gce("a100"), [same]), A2 * MONTH)


# ============================================== odd shapes in every input read above: no crash

def _with(r, **props):
    r.props.update(props)
    return r


@pytest.mark.parametrize("shape", ["budgets", "balancers", "stops", "reservations"])
def test_odd_shapes_in_the_inputs_read_here_never_crash(pack, shape):
    # Expected: strings, numbers and objects where lists, objects or times are asked for, a
    # cron with out-of-range fields, a time zone that does not exist, JSON that does not parse:
    # no policy raises (which would make the whole policy undecided for the stack: no_crash).
    # Verdicts are not asked, except that GPU capacity is still judged by spend-limit.
    if shape == "budgets":
        stack = [p4d("a100"), gce("b100"), vmss("c100"),
                 _with(aws_budget(name="a"), notifications="x"),
                 _with(aws_budget(name="b"), notifications=[5, None]),
                 gcp_budget(thresholdRules={"thresholdPercent": "x"}, allUpdatesRule="x"),
                 _with(azure_budget(), notifications=["x", {"enabled": 5}]),
                 res("aws:budgets/budgetAction:BudgetAction", "act", {"budgetName": 5,
                                                                      "subscribers": "x"})]
        provider = {**AWS, **GCP, **AZ}
    elif shape == "balancers":
        stack = [p4d("a100"), gce("b100"), vmss("c100"), ali_node("d100"),
                 res("aws:lb/loadBalancer:LoadBalancer", "lb", {"internal": "maybe",
                                                                "loadBalancerType": 5}),
                 res("gcp:compute/forwardingRule:ForwardingRule", "fr",
                     {"loadBalancingScheme": ["x"]}),
                 res("azure-native:network:LoadBalancer", "alb", {
                     "frontendIPConfigurations": "x", "loadBalancingRules": {"a": 1},
                     "inboundNatRules": ["x", 5]}),
                 res("alicloud:slb/applicationLoadBalancer:ApplicationLoadBalancer", "slb",
                     {"addressType": 5}, provider_region=ALI),
                 _nat_vmss(loadBalancerInboundNatPools="x", loadBalancerBackendAddressPools=5)]
        for lb in stack[4:8]:
            stack[0].deps.setdefault("tags", []).append(lb)
        provider = {**AWS, **GCP, **AZ}
    elif shape == "stops":
        policy = res("gcp:compute/resourcePolicy:ResourcePolicy", "p", {"instanceSchedulePolicy": {
            "vmStopSchedule": {"schedule": "99 99 * * *"}, "timeZone": "Mars/Olympus_Mons",
            "startTime": 5, "expirationTime": "soon"}})
        vm = gce("b100", resourcePolicies=["p"], scheduling={
            "terminationTime": 12.0, "maxRunDuration": "long", "instanceTerminationAction": 5})
        vm.deps["resourcePolicies"] = [policy, policy]
        group = _ali_group()
        task = _ali_task(group[1], launchTime=5, maxValue="none", recurrenceType=["x"],
                         taskEnabled="maybe")
        lt, asg = _named_asg()
        eb = [_with(_eb_schedule("autoscaling:updateAutoScalingGroup"),
                    target={"arn": 5, "input": "{not json"}),
              _eb_schedule("autoscaling:updateAutoScalingGroup", ["a"],
                           scheduleExpression="at(2026-99-99T99:99:99)"),
              _eb_schedule("ec2:stopInstances", {"InstanceIds": "i-1"},
                           scheduleExpressionTimezone="Nowhere/Else")]
        stack = [policy, vm, *group, task, lt, asg, *eb]
        provider = {**AWS, **GCP}
    else:
        stack = [_odcr(tenancy=5, instancePlatform=None), p4d("a100", tenancy=["x"],
                                                               getPasswordData="yes"),
                 res("gcp:compute/reservation:Reservation", "r", {
                     "zone": "us-central1-a", "specificReservation": {
                         "count": 1.0, "instanceProperties": "x"}}),
                 gce("b100", minCpuPlatform=7)]
        provider = {**AWS, **GCP}
    found = run(pack, stack, provider=provider)
    no_crash(found)
    assert any_level(found, SPEND)


def test_5k_eventbridge_flexible_window_delays_the_stop(pack):
    # Expected: the 5h schedule with flexibleTimeWindow FLEXIBLE, maximumWindowInMinutes 240:
    # the call may come up to 4 h after the at() time (docs.aws.amazon.com/scheduler/latest/
    # UserGuide/managing-schedule-flexible-time-windows.html): priced to the latest, 52 h,
    # 2 x 21.9576 x 52 = 2,283.59 (not 48 h).
    sched = _eb_schedule("autoscaling:updateAutoScalingGroup", ASG_TO_ZERO,
                         flexibleTimeWindow={"mode": "FLEXIBLE", "maximumWindowInMinutes": 240.0})
    assert near(estimate(pack, [*_named_asg(), sched, aws_budget()], AWS), 2 * P4D * 52)
