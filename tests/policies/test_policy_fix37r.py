"""Issue 35, the fixes for review37's findings (helper fix37r): the cases around each fix that
the review's own stacks (test_policy_review37.py) do not reach. Expected verdicts and prices are
worked by hand before the run, from policies/catalog_data (each row cites its source):
  eu-central-1: ecs.gn7i-c8g1.2xlarge 2.56083 on demand, 0.799598 spot (SpotAsPriceGo);
    ecs.gn7i-c16g1.4xlarge 2.71098.
  us-central1 (gcp_attached_gpus.csv): n1-standard-8 0.38; nvidia-tesla-t4 0.35;
    nvidia-tesla-p100 1.46.
A month is 730 h.
"""
from __future__ import annotations

from tests.policies.test_policy_review35f import (
    AWS,
    GCP,
    NPI,
    SPEND,
    TAGS,
    aws_budget,
    estimate,
    gvm,
    lt,
    messages,
    near,
    subnet,
    verdict,
    vsw,
)
from tests.policies.test_policy_review37 import ALI, IMG, p4d_group
from tests.policy_fixtures import AWS_ALERTS, res
from tests.policy_harness import run

MONTH = 730
GN7I_8, GN7I_8_SPOT, GN7I_16 = 2.56083, 0.799598, 2.71098
N1S8, T4, P100 = 0.38, 0.35, 1.46


# ------------------------------------------------- fleets choosing nodes by attributes (c1)

def _fleet(name, template, overrides, deps, kind="aws:ec2/fleet:Fleet"):
    return res(kind, name, {
        "type": "maintain", "launchTemplateConfigs": [{
            "launchTemplateSpecification": {"launchTemplateId": "lt-id", "version": "1"},
            "overrides": overrides}],
        "targetCapacitySpecification": {"defaultTargetCapacityType": "on-demand",
                                        "totalTargetCapacity": 2.0}, "tags": TAGS},
        deps={"launchTemplateConfigs": [template, *deps]})


def test_fleet_by_template_requirements(pack):
    """An aws.ec2.Fleet whose overrides only name a subnet, its launch template asking for
    instanceRequirements acceleratorTypes [gpu], acceleratorCount min 1: GPU capacity with no
    budget. Expect: spend-limit fail (no budget alarm)."""
    s = subnet("a", "us-east-1a")
    t = lt("gpu-lt", None, instanceRequirements={
        "vcpuCount": {"min": 4}, "memoryMib": {"min": 16384}, "acceleratorTypes": ["gpu"],
        "acceleratorCount": {"min": 1}})
    t.props.pop("instanceType")
    f = _fleet("gpu-fleet", t, [{"subnetId": "subnet-id"}], [s])
    found = run(pack, [s, t, f], provider=AWS)
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)


def test_aws_native_fleet_by_its_native_template_requirements(pack):
    """An aws-native Ec2Fleet whose aws-native launch template's launchTemplateData asks for
    instanceRequirements with acceleratorCount min 2 (no override asks). Expect: spend-limit
    fail."""
    t = res("aws-native:ec2:LaunchTemplate", "ir-lt", {"launchTemplateData": {
        "imageId": "ami-0a1b2c3d4e5f60718", "instanceRequirements": {
            "vCpuCount": {"min": 8}, "memoryMiB": {"min": 32768},
            "acceleratorCount": {"min": 2}}}})
    f = _fleet("ir-fleet", t, [{"availabilityZone": "us-east-1a"}], [],
               kind="aws-native:ec2:Ec2Fleet")
    found = run(pack, [t, f], provider=AWS)
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)


def test_cpu_fleet_by_requirements_needs_no_budget(pack):
    """An aws.ec2.Fleet whose override asks for 4+ vCPUs and 8 GiB, no accelerators: CPU
    compute, which needs no budget alarm. Expect: spend-limit pass (no false alarm)."""
    s = subnet("a", "us-east-1a")
    t = lt("cpu-lt", None)
    t.props.pop("instanceType")
    f = _fleet("cpu-fleet", t, [{"subnetId": "subnet-id", "instanceRequirements": {
        "vcpuCount": {"min": 4}, "memoryMib": {"min": 8192}}}], [s])
    found = run(pack, [s, t, f], provider=AWS)
    assert verdict(found, SPEND) == "pass", messages(found, SPEND)


# ------------------------------------------------- budgets whose amount the service sets (e6, s9)

def test_aws_forecast_budget_with_a_limit_amount_is_still_no_cap(pack):
    """autoAdjustData FORECAST beside limitAmount 50,000: AWS sets the amount from its forecast
    (API_budgets_AutoAdjustData), so 50,000 is not the cap. Expect: spend-limit undecided."""
    b = aws_budget("50000", autoAdjustData={"autoAdjustType": "FORECAST"})
    found = run(pack, p4d_group() + [b], provider=AWS)
    assert verdict(found, SPEND) == "undecided", messages(found, SPEND)


def test_open_amount_hides_no_cap_of_the_config(pack):
    """A GCP lastPeriodAmount budget over an a2-highgpu-1g VM with maxMonthlyUsd 1: the
    estimate, 3.67339 x 730 = 2,681.57, exceeds the configured cap; the open amount does not
    turn that into "cannot decide"."""
    b = res("gcp:billing/budget:Budget", "budget", {
        "billingAccount": "01A2B3-C4D5E6-F7A8B9", "displayName": "ml monthly",
        "amount": {"lastPeriodAmount": True},
        "thresholdRules": [{"thresholdPercent": 0.8, "spendBasis": "CURRENT_SPEND"}]})
    assert near(estimate(pack, [gvm("a2", "a2-highgpu-1g"), b], GCP), 3.67339 * MONTH)


def test_aws_budget_with_a_fixed_limit_still_caps(pack):
    """The same p4d group (2 x 21.9576 x 730 = 32,058.10) under a fixed 50,000 budget with
    AWS_ALERTS and no autoAdjustData. Expect: spend-limit pass (unchanged)."""
    b = res("aws:budgets/budget:Budget", "fixed", {
        "budgetType": "COST", "timeUnit": "MONTHLY", "limitAmount": "50000",
        "limitUnit": "USD", "notifications": AWS_ALERTS, "tags": TAGS})
    found = run(pack, p4d_group() + [b], provider=AWS)
    assert verdict(found, SPEND) == "pass", messages(found, SPEND)


# ------------------------------------------------- ACK node pool public bandwidth (r15)

def test_ack_node_pool_without_public_bandwidth_passes(pack):
    """An ACK node pool with internetMaxBandwidthOut 0 (no public IPs). Expect:
    no-public-ingress pass."""
    sw = vsw("vsw-a", "eu-central-1a")
    pool = res("alicloud:cs/nodePool:NodePool", "a10-private", {
        "clusterId": "c8f2a1b3c4d5e6f708192a3b4c5d6e7f8", "nodePoolName": "a10",
        "vswitchIds": ["vsw-id"], "instanceTypes": ["ecs.gn7i-c16g1.4xlarge"],
        "desiredSize": "2", "internetMaxBandwidthOut": 0.0, "tags": TAGS},
        deps={"vswitchIds": [sw]})
    found = run(pack, [sw, pool], provider=ALI)
    assert verdict(found, NPI) == "pass", messages(found, NPI)


# ------------------------------------------------- Alibaba auto provisioning groups (c4)

def _apg(name, tpl, sw, configs, **p):
    return res("alicloud:ecs/autoProvisioningGroup:AutoProvisioningGroup", name, {
        "launchTemplateId": "lt-id", "autoProvisioningGroupType": "maintain",
        "launchTemplateConfigs": configs, **p},
        deps={"launchTemplateId": [tpl], "launchTemplateConfigs": [sw]})


def _tpl(itype):
    return res("alicloud:ecs/ecsLaunchTemplate:EcsLaunchTemplate", "tpl", {
        "launchTemplateName": "gn7i", "imageId": IMG, "instanceType": itype,
        "securityGroupId": "sg-1", "tags": TAGS})


def test_apg_spot_default_prices_its_pay_as_you_go_part_on_demand(pack):
    """totalTargetCapacity "4", payAsYouGoTargetCapacity "1", defaultTargetCapacityType Spot,
    weight 1: 1 node on demand, 3 at spot. Expect: 1 x 2.56083 x 730 + 3 x 0.799598 x 730 =
    1,869.41 + 1,751.12 = 3,620.53."""
    sw = vsw("vsw-a", "eu-central-1a")
    tpl = _tpl("ecs.gn7i-c8g1.2xlarge")
    apg = _apg("spot-apg", tpl, sw, [{"instanceType": "ecs.gn7i-c8g1.2xlarge",
                                      "vswitchId": "vsw-id", "weightedCapacity": "1",
                                      "maxPrice": "3"}],
               totalTargetCapacity="4", payAsYouGoTargetCapacity="1",
               spotTargetCapacity="3", defaultTargetCapacityType="Spot")
    assert near(estimate(pack, [sw, tpl, apg], ALI),
                GN7I_8 * MONTH + 3 * GN7I_8_SPOT * MONTH)


def test_apg_weights_below_one_launch_more_instances(pack):
    """totalTargetCapacity "2" with weightedCapacity "0.5" (each instance fills half a unit):
    4 instances, pay-as-you-go. Expect: 4 x 2.56083 x 730 = 7,477.62."""
    sw = vsw("vsw-a", "eu-central-1a")
    tpl = _tpl("ecs.gn7i-c8g1.2xlarge")
    apg = _apg("half-apg", tpl, sw, [{"instanceType": "ecs.gn7i-c8g1.2xlarge",
                                      "vswitchId": "vsw-id", "weightedCapacity": "0.5",
                                      "maxPrice": "3"}],
               totalTargetCapacity="2", defaultTargetCapacityType="PayAsYouGo")
    assert near(estimate(pack, [sw, tpl, apg], ALI), 4 * GN7I_8 * MONTH)


def test_apg_without_a_config_type_takes_its_templates(pack):
    """Configs that name no instanceType: the template's ecs.gn7i-c16g1.4xlarge runs;
    totalTargetCapacity "2", no default type given (priced pay-as-you-go, the dearer).
    Expect: 2 x 2.71098 x 730 = 3,958.03."""
    sw = vsw("vsw-a", "eu-central-1a")
    tpl = _tpl("ecs.gn7i-c16g1.4xlarge")
    apg = _apg("tpl-apg", tpl, sw, [{"vswitchId": "vsw-id", "weightedCapacity": "1",
                                     "maxPrice": "3"}], totalTargetCapacity="2")
    assert near(estimate(pack, [sw, tpl, apg], ALI), 2 * GN7I_16 * MONTH)


# ------------------------------------------------- GCP reservations match attached GPUs (r12)

def _t4_reservation(kind="nvidia-tesla-t4", count=1.0):
    return res("gcp:compute/reservation:Reservation", "t4-res", {
        "name": "t4-res", "zone": "us-central1-a", "specificReservation": {
            "count": 1.0, "instanceProperties": {
                "machineType": "n1-standard-8", "guestAccelerators": [
                    {"acceleratorType": kind, "acceleratorCount": count}]}}})


def test_gcp_reservation_takes_the_vm_with_the_same_gpus(pack):
    """A reservation of 1 x (n1-standard-8 + 1 T4) and a VM n1-standard-8 + 1 T4 in its zone
    (default affinity): the VM runs in it. Expect: (0.38 + 0.35) x 730 = 532.90, once."""
    vm = gvm("t4", "n1-standard-8", guestAccelerators=[{"type": "nvidia-tesla-t4",
                                                         "count": 1.0}])
    assert near(estimate(pack, [_t4_reservation(), vm], GCP), (N1S8 + T4) * MONTH)


def test_gcp_reservation_of_t4s_does_not_take_a_vm_with_a_p100(pack):
    """The same reservation and a VM n1-standard-8 + 1 P100: another accelerator type, so
    both bill. Expect: 532.90 + (0.38 + 1.46) x 730 = 532.90 + 1,343.20 = 1,876.10."""
    vm = gvm("p100", "n1-standard-8", guestAccelerators=[
        {"type": "projects/ml-prod/zones/us-central1-a/acceleratorTypes/nvidia-tesla-p100",
         "count": 1.0}])
    assert near(estimate(pack, [_t4_reservation(), vm], GCP),
                (N1S8 + T4) * MONTH + (N1S8 + P100) * MONTH)
