"""fix71: the two pack defects of the blind review71 (tests/policies/test_policy_review71.py), with
hand-computed neighbours, over gRPC as `pulumi preview --policy-pack policies` drives the pack
(tests/policy_harness.py). The stacks are review71's bases (same figures: AWS 2 p5.48xlarge,
~12,141 USD of 20,000; GCP 2 a3-ultragpu-8g; Azure 2 ND96isr_H100_v5; Alibaba 2 gn8v), built by
its helpers; each case names the verdict of every policy (the others stay "pass").

DEFECT 1: an aws-native AutoScalingGroup choosing its nodes by attributes (instanceRequirements
  with accelerators, in a mixed instances override or in its aws-native LaunchTemplate's
  launchTemplateData) drew no finding. Docs: "Unpriceable GPU capacity (..., GPU nodes chosen by
  attributes (`instanceRequirements` with accelerators), ...) is a mandatory violation that names
  it"; "an `aws-native:autoscaling:AutoScalingGroup` is read the same". CloudFormation
  InstanceRequirements (AWS::AutoScaling::AutoScalingGroup, AWS::EC2::LaunchTemplate) spells the
  accelerator keys AcceleratorCount {Min, Max}, AcceleratorTypes (gpu | fpga | inference),
  AcceleratorManufacturers, AcceleratorNames, camel-cased by aws-native as the classic provider
  writes them. API_InstanceRequirements, AcceleratorCount: "To exclude accelerator-enabled
  instance types, set Max to 0." rdma: the base's 2 nodes plus the group are "GPU capacity of
  more than one node in total", and a type the catalog does not list "may have an RDMA fabric"
  (review71 c07): advisory.
DEFECT 2: a GCP / Azure port written as the one-port range "22-22" is port 22 (pulumi_gcp
  Firewall allows.ports: "Each entry must be either an integer or a range"; azure-native
  destinationPortRange: "Integer or range between 0 and 65535"): SSH from a listed sshCidrs CIDR
  passes, as "22" does; "21-22" and "22-23" hold ports beside 22 and stay violations.
"""
from __future__ import annotations

import pytest

from tests.policies.test_policy_review71 import (
    NFPR, NPI, RDMA, SPEND, SSH_WORLD, TAGS, TCP22, W4, _add, _ali_rules, _aws_group, _fpr,
    _fw, _native_asg_attr, _nlt, _nsg_in, _nsg_rule, _reqs, _run_case, _sgir, named, unknown,
)
from tests.policy_fixtures import res

ATTR_MSG = {SPEND: ["nasg", "GPU nodes chosen by attributes"]}


def _nlt_reqs(reqs: dict):
    """An aws-native LaunchTemplate whose launchTemplateData carries instanceRequirements."""
    def build(s):
        return res("aws-native:ec2:LaunchTemplate", "nlt", {"launchTemplateData": {
            "imageId": "ami-1", "instanceRequirements": {
                "vCpuCount": {"min": 4}, "memoryMiB": {"min": 16384}, **reqs},
            "networkInterfaces": [{"deviceIndex": 0, "associatePublicIpAddress": False,
                                   "subnetId": "subnet-x"}]}},
            deps={"launchTemplateData": [named(s, "train-a")]})
    return build


def _nasg_plain(max_size: str):
    """An aws-native group whose mixed instances policy names only its template (no overrides)."""
    return lambda s: res("aws-native:autoscaling:AutoScalingGroup", "nasg", {
        "minSize": "0", "maxSize": max_size, "vpcZoneIdentifier": ["subnet-x"],
        "mixedInstancesPolicy": {"launchTemplate": {
            "launchTemplateSpecification": {"launchTemplateId": "lt-x", "version": "1"}}},
        "tags": [{"key": k, "value": v, "propagateAtLaunch": True} for k, v in TAGS.items()]},
        deps={"vpcZoneIdentifier": [named(s, "train-a")], "mixedInstancesPolicy": [named(s, "nlt")]})


def _native_asg_attr_on_nlt(max_size: str):
    return lambda s: res("aws-native:autoscaling:AutoScalingGroup", "nasg", {
        "minSize": "0", "maxSize": max_size, "vpcZoneIdentifier": ["subnet-x"],
        "mixedInstancesPolicy": {"launchTemplate": {
            "launchTemplateSpecification": {"launchTemplateId": "lt-x", "version": "1"},
            "overrides": [{"instanceRequirements": {
                "vCpuCount": {"min": 8}, "memoryMiB": {"min": 32768},
                "acceleratorManufacturers": ["nvidia"]}}]}},
        "tags": [{"key": k, "value": v, "propagateAtLaunch": True} for k, v in TAGS.items()]},
        deps={"vpcZoneIdentifier": [named(s, "train-a")], "mixedInstancesPolicy": [named(s, "nlt")]})


DEFECT1 = [
    ("n01", "aws", {}, _native_asg_attr("1", {"acceleratorNames": ["a10g"]}),
     {SPEND: "fail", RDMA: "advisory", "_msg": ATTR_MSG}, None,
     "aws-native group by attributes, acceleratorNames [a10g]: GPU nodes it cannot price"),
    ("n02", "aws", {}, _native_asg_attr("4", {"acceleratorCount": {"min": 2, "max": 8}}),
     {SPEND: "fail", RDMA: "advisory", "_msg": {SPEND: ["nasg", ">= 2 accelerator(s)"]}}, None,
     "aws-native group, acceleratorCount min 2: at least 2 accelerators per node"),
    ("n03", "aws", {}, _native_asg_attr("4", {"acceleratorCount": {"min": 0, "max": 0},
                                               "acceleratorManufacturers": ["nvidia"]}), {}, None,
     "CPU twin: max 0 excludes accelerator-enabled types whatever the manufacturer "
     "(API_InstanceRequirements AcceleratorCount: 'set Max to 0')"),
    ("n04", "aws", {}, _native_asg_attr("4", {"acceleratorTypes": ["fpga"]}), {}, None,
     "CPU twin: FPGA accelerators only (f1-type), no GPU and no count"),
    ("n05", "aws", {}, _native_asg_attr("4", {"acceleratorCount": {"min": unknown()}}),
     {SPEND: "fail", RDMA: "advisory", "_msg": ATTR_MSG}, None,
     "an accelerator count unknown at preview may ask for GPUs: GPU capacity it cannot price"),
    ("n06", "aws", {}, _native_asg_attr("4", {"acceleratorTypes": "gpu"}),
     {SPEND: "fail", RDMA: "advisory", "_msg": ATTR_MSG}, None,
     "acceleratorTypes written as one string 'gpu' (a list of that one)"),
    ("n07", "aws", {}, _add(_nlt_reqs({"acceleratorTypes": ["gpu"]}), _nasg_plain("4")),
     {SPEND: "fail", RDMA: "advisory", "_msg": ATTR_MSG}, None,
     "the aws-native template's launchTemplateData.instanceRequirements asks for GPUs; the group's "
     "policy names only that template"),
    ("n08", "aws", {}, _add(_nlt_reqs({"acceleratorCount": {"max": 0}}), _nasg_plain("4")), {},
     None, "CPU twin: the template's requirements exclude accelerators"),
    ("n09", "aws", {}, _add(_nlt(), _native_asg_attr_on_nlt("1")),
     {SPEND: "fail", RDMA: "advisory", "_msg": ATTR_MSG}, None,
     "AcceleratorManufacturers [nvidia] alone on an override, from an aws-native template"),
    ("n10", "aws", {}, _aws_group(None, 4.0, mixed=_reqs(acceleratorCount={"max": 0.0},
                                                         acceleratorManufacturers=["nvidia"])),
     {}, None, "classic twin of n03: max 0 excludes accelerators on a classic group too"),
]


DEFECT2 = [
    ("m01", "gcp", {}, _fw("r", sourceRanges=[W4], allows=[{"protocol": "tcp", "ports": ["21-22"]}]),
     {NPI: "fail"}, SSH_WORLD, "21-22 holds port 21 beside 22"),
    ("m02", "gcp", {}, _fw("r", sourceRanges=[W4], allows=[{"protocol": "tcp", "ports": ["22-23"]}]),
     {NPI: "fail"}, SSH_WORLD, "22-23 holds port 23 beside 22"),
    ("m03", "gcp", {}, _fw("r", sourceRanges=[W4], allows=[{"protocol": "tcp",
                                                           "ports": ["22", "22-22"]}]),
     {}, SSH_WORLD, "22 and 22-22: port 22 alone, listed"),
    ("m04", "gcp", {}, _fw("r", sourceRanges=[W4], allows=[{"protocol": "udp", "ports": ["22-22"]}]),
     {NPI: "fail"}, SSH_WORLD, "UDP 22-22 is no SSH (sshCidrs allows TCP 22 only)"),
    ("m05", "gcp", {}, _fw("r", sourceRanges=[W4], allows=[{"protocol": "tcp", "ports": ["22-22"]}]),
     {NPI: "fail"}, None, "22-22 from the world, nothing listed in sshCidrs"),
    ("m06", "gcp", {}, _fw("r", sourceRanges=[W4], allows=TCP22 + [{"protocol": "tcp",
                                                                    "ports": ["80-80"]}]),
     {NPI: "fail"}, SSH_WORLD, "22 beside the one-port range 80-80: port 80 is open too"),
    ("m07", "gcp", {}, _fpr(NFPR, "nfp", action="allow", match={
        "srcIpRanges": [W4], "layer4Configs": [{"ipProtocol": "tcp", "ports": ["22-23"]}]}),
     {NPI: "fail"}, SSH_WORLD, "network firewall policy rule 22-23"),
    ("m08", "azure", {}, _nsg_in({"sourceAddressPrefix": "Internet", "destinationPortRange": "21-22"}),
     {NPI: "fail"}, SSH_WORLD, "inline Tcp 21-22 from Internet"),
    ("m09", "azure", {}, _nsg_in({"sourceAddressPrefix": "Internet", "destinationPortRange": None,
                                  "destinationPortRanges": ["22", "22-22"]}), {}, SSH_WORLD,
     "inline destinationPortRanges 22 and 22-22: port 22 alone"),
    ("m10", "azure", {}, _nsg_rule(sourceAddressPrefix="Internet", destinationPortRange="22-23"),
     {NPI: "fail"}, SSH_WORLD, "standalone SecurityRule 22-23"),
    ("m11", "azure", {}, _nsg_rule(sourceAddressPrefix="Internet", destinationPortRange="22-22",
                                   protocol="Udp"), {NPI: "fail"}, SSH_WORLD, "Udp 22-22"),
    ("m12", "ali", {}, _ali_rules({"portRange": "22/23", "cidrIp": W4}), {NPI: "fail"}, SSH_WORLD,
     "Alibaba 22/23: port 23 beside 22"),
    ("m13", "ali", {}, _ali_rules({"portRange": "22/22", "cidrIp": W4}), {}, SSH_WORLD,
     "Alibaba's own one-port form 22/22 still passes (review71 b01 p08)"),
    ("m14", "aws", {}, _sgir("ssh", cidrIpv4=W4, ipProtocol="tcp", fromPort=21.0, toPort=22.0),
     {NPI: "fail"}, SSH_WORLD, "AWS fromPort 21 toPort 22"),
    ("m15", "aws", {}, _sgir("ssh", cidrIpv4=W4, ipProtocol="tcp", fromPort=22.0, toPort=22.0),
     {}, SSH_WORLD, "AWS fromPort 22 toPort 22 still passes (review71 a03)"),
]


@pytest.mark.parametrize("case", DEFECT1, ids=[c[0] for c in DEFECT1])
def test_defect1_native_group_by_attributes(pack, case):
    _run_case(pack, case)


@pytest.mark.parametrize("case", DEFECT2, ids=[c[0] for c in DEFECT2])
def test_defect2_one_port_range(pack, case):
    _run_case(pack, case)
