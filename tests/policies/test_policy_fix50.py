"""Issue 35, helper fix50: the classes of review50's four defects, over gRPC as `pulumi preview`
drives the pack (tests/policy_harness.py). Each case states every policy's verdict (those not
named pass); expectations were worked by hand from the pack's promise (docs/policies.md), the
providers' public docs and the catalog's rows, and committed before the code.

Prices (policies/catalog_data/prices.csv, on-demand USD/h, a month 730 h): aws us-east-1
g5.xlarge 1.006, g5.2xlarge 1.212, g5.12xlarge 5.672, p4d.24xlarge 21.9576, p5.48xlarge 55.04;
fsx_lustre_persistent2_125 0.18858 USD/GB-month. Fabric (instance_types.csv): p4d.24xlarge efa,
4 EFA cards; g5.12xlarge efa, 1 card; g5.xlarge and g5.2xlarge tcp.

1. Every type a group may launch (b02/b03/b14). rdma-for-multinode: "With more than one node,
   the nodes sit in a placement construct and use the instance type's fastest fabric". A mixed
   instances group (classic aws:autoscaling/group or CloudFormation AWS::AutoScaling::
   AutoScalingGroup through aws-native) may launch any of its overrides' types, every node of
   the dearest included (spend-limit prices it so): if one of them has an RDMA fabric and the
   group may run more than one node, it is asked as for that type, whatever the order of the
   overrides. EC2 Fleet / Spot Fleet are left to their service (docs, Scope): not asked.
2. Placement unknown at preview (d02/d19/e03/e04/f03/f05). docs/policies.md, "Values unknown at
   preview": a value the engine knows only after apply is "cannot decide" at the configured
   level (storage-same-zone: advisory), never the mandatory "the GPU nodes' zone cannot be
   read", which is for values the pack can never read (a literal subnet id the stack does not
   create, its zone not told in the config).
3. Public IPs on an unknown subnet (d18/f01/f02). docs/policies.md no-public-ingress: "A group
   whose subnets are unknown at preview with no subnet of the stack behind them ... is 'cannot
   decide'": its subnet's mapPublicIpOnLaunch may be true. Compute that turns public IPs off
   itself (associatePublicIpAddress false; a template whose every interface says "false") hides
   nothing: pass.
4. A Cloud Scheduler resize-to-0 job whose `paused` is unknown at preview (d03): it may be
   paused, so it is no stop (the month is priced, never less than the truth), and the estimate
   says so, naming the job.
"""
from __future__ import annotations

import pytest

from tests.policies.test_policy_fix49 import _native_mixed
from tests.policies.test_policy_review48 import cron_at, gcp_no_stop, job, zonal_uri
from tests.policies.test_policy_review49 import (
    ALI, ASG_TAGS, AWS, NPI, POLICIES, RDMA, SPEND, SSZ, TAGS, _mixed, _verdict, ali_node,
    ali_switch, aws_asg, aws_budget, aws_lt, res, subnet,
)
from tests.policy_fixtures import by_name
from tests.policy_harness import run

# The engine's marker for a value unknown at preview (as tests/policies/test_policy_review48.py).
UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"
GCP = {"project": "ml-prod", "region": "us-west1"}
MANDATORY_NPI = {NPI: {"cannotDecide": "mandatory"}}


def check(pack, stack, provider, expected, config=None, contains=None):
    urns = [r.urn for r in stack]
    assert len(urns) == len(set(urns)), "every resource its own URN"
    found = run(pack, stack, config, provider=provider)
    got = {p: _verdict(found, p) for p in POLICIES}
    detail = " | ".join(f"{d.policy}[{d.level}]: {d.message}" for d in found)
    for p in POLICIES:
        want = expected.get(p, "pass")
        assert got[p] in want if isinstance(want, tuple) else got[p] == want, (got, detail)
    for policy, texts in (contains or {}).items():
        for text in texts:
            assert any(d.policy == policy and text in d.message for d in found), (text, detail)
    return found


def fsx(sn, name="scratch"):
    """FSx for Lustre PERSISTENT_2 125 MB/s/TiB, 1,200 GB on `sn`: 1200 x 0.18858 = 226.30."""
    return res("aws:fsx/lustreFileSystem:LustreFileSystem", name, {
        "subnetIds": f"{sn.name}-id", "storageCapacity": 1200.0, "deploymentType": "PERSISTENT_2",
        "perUnitStorageThroughput": 125.0, "tags": dict(TAGS)}, deps={"subnetIds": [sn]})


def _no_weights(group):
    spec = group.props["mixedInstancesPolicy"]["launchTemplate"]
    for o in spec["overrides"]:
        o.pop("weightedCapacity", None)
    return group


# ------------------------------------------------------------ 1. every type a group may launch

def test_r1_mixed_group_tcp_first_then_efa(pack):
    """Overrides [g5.xlarge, p4d.24xlarge], maxSize 8, no placement group, no EFA: it may
    launch 8 p4d.24xlarge (efa): rdma advisory. spend 8 x 21.9576 x 730 = 128,232.38 <
    300,000: pass."""
    sn = subnet()
    lt = aws_lt("mixed-lt", "g5.xlarge")
    g = _no_weights(_mixed("mixed", sn, lt, 8, [("g5.xlarge", None), ("p4d.24xlarge", None)]))
    check(pack, [sn, lt, g, aws_budget(amount="300000.00")], AWS, {RDMA: "advisory"},
          contains={RDMA: ["placement construct"]})


def test_r2_mixed_group_tcp_first_placed_with_efa(pack):
    """r1 in a cluster placement group of the stack, its template with 4 EFA interfaces (p4d's
    4 cards): every policy passes."""
    sn = subnet()
    pg = res("aws:ec2/placementGroup:PlacementGroup", "pg", {"strategy": "cluster",
                                                            "tags": dict(TAGS)})
    lt = aws_lt("mixed-lt", "g5.xlarge", networkInterfaces=[
        {"deviceIndex": float(i), "networkCardIndex": float(i), "interfaceType": "efa",
         "associatePublicIpAddress": "false"} for i in range(4)])
    g = _no_weights(_mixed("mixed", sn, lt, 8, [("g5.xlarge", None), ("p4d.24xlarge", None)]))
    g.props["placementGroup"] = "pg-id"
    g.deps["placementGroup"] = [pg]
    check(pack, [sn, pg, lt, g, aws_budget(amount="300000.00")], AWS, {})


def test_r3_mixed_group_efa_type_needs_its_interfaces(pack):
    """r2 with ONE EFA interface on the template: placed, but p4d.24xlarge has 4 EFA cards:
    rdma advisory (the fabric), naming p4d.24xlarge."""
    sn = subnet()
    pg = res("aws:ec2/placementGroup:PlacementGroup", "pg", {"strategy": "cluster",
                                                            "tags": dict(TAGS)})
    lt = aws_lt("mixed-lt", "g5.xlarge", networkInterfaces=[
        {"deviceIndex": 0.0, "interfaceType": "efa", "associatePublicIpAddress": "false"}])
    g = _no_weights(_mixed("mixed", sn, lt, 8, [("g5.xlarge", None), ("p4d.24xlarge", None)]))
    g.props["placementGroup"] = "pg-id"
    g.deps["placementGroup"] = [pg]
    check(pack, [sn, pg, lt, g, aws_budget(amount="300000.00")], AWS, {RDMA: "advisory"},
          contains={RDMA: ["p4d.24xlarge"]})


def test_r4_weighted_group_may_launch_three_efa_nodes(pack):
    """Weights g5.xlarge "1", g5.12xlarge "4", maxSize 8: up to 12 units, 3 g5.12xlarge (1 EFA
    card): rdma advisory. spend 12 x 5.672 / 4 x 730 = 12,421.68 < 15,000: pass."""
    sn = subnet()
    lt = aws_lt("mixed-lt", "g5.xlarge")
    g = _mixed("mixed", sn, lt, 8, [("g5.xlarge", "1"), ("g5.12xlarge", "4")])
    check(pack, [sn, lt, g, aws_budget(amount="15000.00")], AWS, {RDMA: "advisory"})


def test_r5_mixed_group_of_tcp_types_only(pack):
    """Control: overrides [g5.xlarge, g5.2xlarge] (both tcp), maxSize 8: nothing to ask. spend
    8 x 1.212 x 730 = 7,078.08 < 8,000: every policy passes."""
    sn = subnet()
    lt = aws_lt("mixed-lt", "g5.xlarge")
    g = _no_weights(_mixed("mixed", sn, lt, 8, [("g5.xlarge", None), ("g5.2xlarge", None)]))
    check(pack, [sn, lt, g, aws_budget(amount="8000.00")], AWS, {})


def test_r6_mixed_group_of_one_node(pack):
    """Overrides [g5.xlarge, p4d.24xlarge], maxSize 1: one node: not multi-node: pass. spend
    21.9576 x 730 = 16,029.05 < 20,000: pass."""
    sn = subnet()
    lt = aws_lt("mixed-lt", "g5.xlarge")
    g = _no_weights(_mixed("mixed", sn, lt, 1, [("g5.xlarge", None), ("p4d.24xlarge", None)]))
    check(pack, [sn, lt, g, aws_budget(amount="20000.00")], AWS, {})


def test_r7_native_mixed_group_tcp_first_then_efa(pack):
    """The aws-native AutoScalingGroup of r1 (CloudFormation MixedInstancesPolicy overrides
    [g5.xlarge, p4d.24xlarge], MaxSize "8"): rdma advisory. spend 128,232.38 < 300,000: pass."""
    sn = subnet()
    lt = aws_lt("mixed-lt", "g5.xlarge")
    g = _native_mixed("mixed", sn, lt, 8, [("g5.xlarge", None), ("p4d.24xlarge", None)])
    _no_weights(g)
    check(pack, [sn, lt, g, aws_budget(amount="300000.00")], AWS, {RDMA: "advisory"})


def test_r8_mixed_group_override_type_unknown(pack):
    """Overrides [g5.xlarge, <unknown at preview>], maxSize 8: the second type may have an
    RDMA fabric: rdma "cannot decide" (advisory default): undecided. spend: a type unknown
    until apply cannot be priced: fail closed."""
    sn = subnet()
    lt = aws_lt("mixed-lt", "g5.xlarge")
    g = _no_weights(_mixed("mixed", sn, lt, 8, [("g5.xlarge", None), (UNKNOWN, None)]))
    check(pack, [sn, lt, g, aws_budget(amount="300000.00")], AWS,
          {RDMA: "undecided", SPEND: "fail"})


def test_r9_ec2_fleet_of_two_types_left_to_its_service(pack):
    """An EC2 Fleet (maintain, target 8 on demand) whose overrides are g5.xlarge and
    p4d.24xlarge: fleets are left to their service (rdma Scope): pass. spend 8 x 21.9576 x 730
    = 128,232.38 < 300,000: pass."""
    sn = subnet()
    lt = aws_lt("fleet-lt", "g5.xlarge")
    fleet = res("aws:ec2/fleet:Fleet", "fleet", {
        "type": "maintain",
        "launchTemplateConfigs": [{"launchTemplateSpecification": {
            "launchTemplateId": "fleet-lt-id", "version": "$Latest"},
            "overrides": [{"subnetId": "gpu-subnet-id", "instanceType": t}
                          for t in ("g5.xlarge", "p4d.24xlarge")]}],
        "targetCapacitySpecification": {"totalTargetCapacity": 8.0,
                                        "defaultTargetCapacityType": "on-demand"},
        "tags": dict(TAGS)}, deps={"launchTemplateConfigs": [lt, sn]})
    check(pack, [sn, lt, fleet, aws_budget(amount="300000.00")], AWS, {})


# ------------------------------------------------------------ 2. placement unknown at preview

def _private_lt(name="gpu-lt", itype="g5.xlarge"):
    return aws_lt(name, itype, networkInterfaces=[
        {"deviceIndex": 0.0, "associatePublicIpAddress": "false"}])


def test_s1_asg_on_an_unknown_subnet_beside_fsx(pack):
    """A 1 x g5.xlarge ASG whose vpcZoneIdentifiers is [unknown at preview] (no stack subnet
    behind it), its template's interface public IP "false"; an FSx on a stack subnet in
    us-east-1a: storage-same-zone undecided. spend 734.38 + 226.30 = 960.68 < 2,000: pass."""
    sn = subnet()
    lt = _private_lt()
    g = res("aws:autoscaling/group:Group", "gpu", {
        "minSize": 0.0, "maxSize": 1.0, "vpcZoneIdentifiers": [UNKNOWN],
        "launchTemplate": {"id": "gpu-lt-id", "version": "$Latest"}, "tags": list(ASG_TAGS)},
        deps={"launchTemplate": [lt]})
    check(pack, [sn, lt, g, fsx(sn), aws_budget(amount="2000.00")], AWS, {SSZ: "undecided"},
          contains={SSZ: ["cannot decide"]})


def test_s2_asg_whole_subnet_list_unknown(pack):
    """s1 with the whole vpcZoneIdentifiers list unknown at preview: storage-same-zone
    undecided; the rest as s1."""
    sn = subnet()
    lt = _private_lt()
    g = res("aws:autoscaling/group:Group", "gpu", {
        "minSize": 0.0, "maxSize": 1.0, "vpcZoneIdentifiers": UNKNOWN,
        "launchTemplate": {"id": "gpu-lt-id", "version": "$Latest"}, "tags": list(ASG_TAGS)},
        deps={"launchTemplate": [lt]})
    check(pack, [sn, lt, g, fsx(sn), aws_budget(amount="2000.00")], AWS, {SSZ: "undecided"})


def test_s3_native_asg_on_an_unknown_subnet(pack):
    """The aws-native AutoScalingGroup of s1 (vpcZoneIdentifier [unknown at preview]):
    storage-same-zone undecided; spend 960.68 < 2,000: pass."""
    sn = subnet()
    lt = _private_lt()
    g = res("aws-native:autoscaling:AutoScalingGroup", "gpu", {
        "minSize": "0", "maxSize": "1", "vpcZoneIdentifier": [UNKNOWN],
        "launchTemplate": {"launchTemplateId": "gpu-lt-id", "version": "1"},
        "tags": list(ASG_TAGS)}, deps={"launchTemplate": [lt]})
    check(pack, [sn, lt, g, fsx(sn), aws_budget(amount="2000.00")], AWS, {SSZ: "undecided"})


def test_s4_eks_group_on_an_unknown_subnet(pack):
    """An EKS p5.48xlarge group (max 2) on subnetIds [unknown at preview] beside an FSx on a
    stack subnet: storage-same-zone undecided; no-public-ingress: its subnet may map public IPs
    and the group does not turn them off: undecided (advisory). spend 80,358.40 + 226.30 <
    100,000: pass."""
    sn = subnet()
    g = res("aws:eks/nodeGroup:NodeGroup", "gpu", {
        "clusterName": "ml", "nodeRoleArn": "arn:aws:iam::111111111111:role/n",
        "subnetIds": [UNKNOWN], "instanceTypes": ["p5.48xlarge"], "tags": dict(TAGS),
        "scalingConfig": {"minSize": 0.0, "maxSize": 2.0, "desiredSize": 2.0}})
    check(pack, [sn, g, fsx(sn), aws_budget(amount="100000.00")], AWS,
          {SSZ: "undecided", NPI: "undecided"})


def test_s5_spot_fleet_override_subnet_unknown(pack):
    """A Spot Fleet (target 2) of p4d.24xlarge whose override subnetId is unknown at preview,
    its template's interface public IP "false", beside an FSx on a stack subnet:
    storage-same-zone undecided. spend 2 x 8.1915 x 730 = 11,959.59 + 226.30 < 15,000: pass."""
    sn = subnet()
    lt = _private_lt("fleet-lt", "p4d.24xlarge")
    fleet = res("aws:ec2/spotFleetRequest:SpotFleetRequest", "fleet", {
        "iamFleetRole": "arn:aws:iam::111111111111:role/fleet", "targetCapacity": 2.0,
        "launchTemplateConfigs": [{"launchTemplateSpecification": {
            "id": "fleet-lt-id", "version": "$Latest"},
            "overrides": [{"subnetId": UNKNOWN, "instanceType": "p4d.24xlarge"}]}],
        "tags": dict(TAGS)}, deps={"launchTemplateConfigs": [lt]})
    check(pack, [sn, lt, fleet, fsx(sn), aws_budget(amount="15000.00")], AWS,
          {SSZ: "undecided"})


def _cpfs(sw):
    """CPFS of 3,600 GiB in eu-central-1a (review49 b18: 692.94 a month)."""
    return res("alicloud:nas/fileSystem:FileSystem", "cpfs", {
        "fileSystemType": "cpfs", "protocolType": "cpfs", "storageType": "advance_200",
        "capacity": 3600.0, "zoneId": sw.props["zoneId"], "vpcId": "vpc-ali",
        "vswitchId": f"{sw.name}-id", "tags": dict(TAGS)}, deps={"vswitchId": [sw]})


def test_s6_alibaba_instance_on_an_unknown_vswitch(pack):
    """A gn7i node (released in 48 h) whose vswitchId is unknown at preview, no zone of its own,
    a CPFS on a stack vSwitch: storage-same-zone undecided. spend: capped at 1,000: 692.94 +
    48 x 2.56083 = 815.86 < 1,000: pass."""
    from tests.policies.test_policy_review49 import _release_in
    sw = ali_switch()
    n = res("alicloud:ecs/instance:Instance", "a10", {
        "instanceType": "ecs.gn7i-c8g1.2xlarge", "vswitchId": UNKNOWN,
        "imageId": "ubuntu_22_04_x64", "internetMaxBandwidthOut": 0.0,
        "instanceChargeType": "PostPaid", "autoReleaseTime": _release_in(48), "tags": dict(TAGS)})
    check(pack, [sw, _cpfs(sw), n], ALI, {SSZ: "undecided"},
          config={SPEND: {"maxMonthlyUsd": 1000}})


def test_s7_ess_group_on_an_unknown_vswitch(pack):
    """An ESS scaling group (max 2) of gn7i whose vswitchIds is [unknown at preview], a CPFS on
    a stack vSwitch: storage-same-zone undecided; spend: an ESS group has no autoReleaseTime
    stand-in for the alarm: fail."""
    sw = ali_switch()
    group = res("alicloud:ess/scalingGroup:ScalingGroup", "a10-group", {
        "minSize": 0.0, "maxSize": 2.0, "scalingGroupName": "a10", "vswitchIds": [UNKNOWN],
        "tags": dict(TAGS)})
    conf = res("alicloud:ess/scalingConfiguration:ScalingConfiguration", "a10-conf", {
        "scalingGroupId": "a10-group-id", "instanceType": "ecs.gn7i-c8g1.2xlarge",
        "imageId": "ubuntu_22_04_x64", "securityGroupId": "sg-ali", "active": True,
        "internetMaxBandwidthOut": 0.0, "tags": dict(TAGS)}, deps={"scalingGroupId": [group]})
    check(pack, [sw, _cpfs(sw), group, conf], ALI, {SSZ: "undecided", SPEND: "fail"},
          config={SPEND: {"maxMonthlyUsd": 90000}})


def test_s8_ack_pool_on_an_unknown_vswitch(pack):
    """An ACK node pool (max 2, gn7i) whose vswitchIds is [unknown at preview], a CPFS on a
    stack vSwitch: storage-same-zone undecided; spend: no autoReleaseTime stand-in: fail."""
    sw = ali_switch()
    pool = res("alicloud:cs/nodePool:NodePool", "a10-pool", {
        "clusterId": "c-ack", "vswitchIds": [UNKNOWN],
        "instanceTypes": ["ecs.gn7i-c8g1.2xlarge"],
        "scalingConfig": {"minSize": 0.0, "maxSize": 2.0, "enable": True},
        "internetMaxBandwidthOut": 0.0, "tags": dict(TAGS)})
    check(pack, [sw, _cpfs(sw), pool], ALI, {SSZ: "undecided", SPEND: "fail"},
          config={SPEND: {"maxMonthlyUsd": 90000}})


def test_s9_literal_subnet_of_another_stack_asks_the_zones_config(pack):
    """Control: the ASG of s1 on the LITERAL subnet "subnet-0f00" (not of the stack): docs
    (Config `zones`): "cannot decide", naming the id and the `zones` key, until the config tells
    its zone: undecided; told us-east-1b beside the FSx in us-east-1a: storage-same-zone fail.
    spend as s1: pass."""
    sn = subnet()
    lt = _private_lt()
    g = res("aws:autoscaling/group:Group", "gpu", {
        "minSize": 0.0, "maxSize": 1.0, "vpcZoneIdentifiers": ["subnet-0f00"],
        "launchTemplate": {"id": "gpu-lt-id", "version": "$Latest"}, "tags": list(ASG_TAGS)},
        deps={"launchTemplate": [lt]})
    stack = [sn, lt, g, fsx(sn), aws_budget(amount="2000.00")]
    check(pack, stack, AWS, {SSZ: "undecided"}, contains={SSZ: ["subnet-0f00", "zones"]})
    check(pack, stack, AWS, {SSZ: "fail"},
          config={SSZ: {"zones": {"subnet-0f00": "us-east-1b"}}})


def test_s10_unknown_subnet_id_of_a_stack_subnet_is_read(pack):
    """Control: the ASG's subnet id is unknown at preview but depends on a stack subnet in
    us-east-1b, the FSx in us-east-1a: the zones are read through it: storage-same-zone fail."""
    a, b = subnet("s-a", "us-east-1a"), subnet("s-b", "us-east-1b")
    lt = _private_lt()
    g = res("aws:autoscaling/group:Group", "gpu", {
        "minSize": 0.0, "maxSize": 1.0, "vpcZoneIdentifiers": [UNKNOWN],
        "launchTemplate": {"id": "gpu-lt-id", "version": "$Latest"}, "tags": list(ASG_TAGS)},
        deps={"launchTemplate": [lt], "vpcZoneIdentifiers": [b]})
    check(pack, [a, b, lt, g, fsx(a), aws_budget(amount="2000.00")], AWS, {SSZ: "fail"})


# ------------------------------------------------------------ 3. public IPs, subnet unknown

def _group_on_unknown_subnet(lt):
    return res("aws:autoscaling/group:Group", "gpu", {
        "minSize": 0.0, "maxSize": 1.0, "vpcZoneIdentifiers": [UNKNOWN],
        "launchTemplate": {"id": f"{lt.name}-id", "version": "$Latest"},
        "tags": list(ASG_TAGS)}, deps={"launchTemplate": [lt]})


def test_p1_asg_on_an_unknown_subnet(pack):
    """A 1 x g5.xlarge ASG on [unknown at preview], its template silent on public IPs, no
    filesystem; no-public-ingress cannotDecide mandatory: "cannot decide" naming
    vpcZoneIdentifiers: undecided. spend 734.38 < 2,000: pass."""
    lt = aws_lt("gpu-lt", "g5.xlarge")
    check(pack, [lt, _group_on_unknown_subnet(lt), aws_budget(amount="2000.00")], AWS,
          {NPI: "undecided"}, config=MANDATORY_NPI,
          contains={NPI: ["cannot decide", "vpcZoneIdentifiers"]})


def test_p2_asg_on_an_unknown_subnet_public_ips_off(pack):
    """p1 with the template's interface saying associatePublicIpAddress "false": no public IP
    whatever the subnet: every policy passes."""
    lt = _private_lt()
    check(pack, [lt, _group_on_unknown_subnet(lt), aws_budget(amount="2000.00")], AWS, {},
          config=MANDATORY_NPI)


def test_p3_instance_on_an_unknown_subnet(pack):
    """A g5.xlarge instance whose subnetId is unknown at preview, associatePublicIpAddress left
    out: undecided (mandatory setting), naming subnetId. spend 734.38 < 2,000: pass."""
    box = res("aws:ec2/instance:Instance", "box", {
        "instanceType": "g5.xlarge", "ami": "ami-0abc", "subnetId": UNKNOWN, "tags": dict(TAGS)})
    check(pack, [box, aws_budget(amount="2000.00")], AWS, {NPI: "undecided"},
          config=MANDATORY_NPI, contains={NPI: ["subnetId"]})


def test_p4_instance_on_an_unknown_subnet_public_ip_off(pack):
    """p3 with associatePublicIpAddress false: pass."""
    box = res("aws:ec2/instance:Instance", "box", {
        "instanceType": "g5.xlarge", "ami": "ami-0abc", "subnetId": UNKNOWN,
        "associatePublicIpAddress": False, "tags": dict(TAGS)})
    check(pack, [box, aws_budget(amount="2000.00")], AWS, {}, config=MANDATORY_NPI)


def test_p5_eks_group_on_an_unknown_subnet(pack):
    """An EKS p5 group on subnetIds [unknown at preview]: undecided (mandatory setting). spend
    80,358.40 < 100,000: pass."""
    g = res("aws:eks/nodeGroup:NodeGroup", "gpu", {
        "clusterName": "ml", "nodeRoleArn": "arn:aws:iam::111111111111:role/n",
        "subnetIds": [UNKNOWN], "instanceTypes": ["p5.48xlarge"], "tags": dict(TAGS),
        "scalingConfig": {"minSize": 0.0, "maxSize": 2.0, "desiredSize": 2.0}})
    check(pack, [g, aws_budget(amount="100000.00")], AWS, {NPI: "undecided"},
          config=MANDATORY_NPI, contains={NPI: ["subnetIds"]})


def test_p6_asg_on_a_private_stack_subnet(pack):
    """Control: the subnet id unknown at preview but of a stack subnet (no mapPublicIpOnLaunch):
    read through it: every policy passes."""
    sn = subnet()
    lt = aws_lt("gpu-lt", "g5.xlarge")
    g = _group_on_unknown_subnet(lt)
    g.deps["vpcZoneIdentifiers"] = [sn]
    check(pack, [sn, lt, g, aws_budget(amount="2000.00")], AWS, {}, config=MANDATORY_NPI)


def test_p7_cpu_asg_on_an_unknown_subnet(pack):
    """A t3.small ASG (no GPU) on [unknown at preview]: no-public-ingress judges every node's
    public IP (docs Scope, any stack): undecided. No GPU capacity: no budget needed."""
    lt = aws_lt("web-lt", "t3.small")
    check(pack, [lt, _group_on_unknown_subnet(lt)], AWS, {NPI: "undecided"},
          config=MANDATORY_NPI)


def test_p8_native_asg_on_an_unknown_subnet(pack):
    """The aws-native AutoScalingGroup on vpcZoneIdentifier [unknown at preview], its template
    silent on public IPs: undecided (mandatory setting). spend 734.38 < 2,000: pass."""
    lt = aws_lt("gpu-lt", "g5.xlarge")
    g = res("aws-native:autoscaling:AutoScalingGroup", "gpu", {
        "minSize": "0", "maxSize": "1", "vpcZoneIdentifier": [UNKNOWN],
        "launchTemplate": {"launchTemplateId": "gpu-lt-id", "version": "1"},
        "tags": list(ASG_TAGS)}, deps={"launchTemplate": [lt]})
    check(pack, [lt, g, aws_budget(amount="2000.00")], AWS, {NPI: "undecided"},
          config=MANDATORY_NPI)


# ------------------------------------------------------------ 4. a stop job, paused unknown

def test_j1_resize_job_paused_unknown_is_no_stop_and_says_so(pack):
    """The GCP fixture's MIG (2 x a3-highgpu-8g in us-west1-c, 86.7599 USD/h, review48) with a
    resize-to-0 job at 48 h whose `paused` is unknown at preview: it may be paused: no stop, the
    month: 2 x 86.7599 x 730 + 8,333.09 = 135,002.54 > 20,000: spend fail, the estimate naming
    the job and its unknown `paused` (at 49 h, 16,835.56, it would pass)."""
    stack = gcp_no_stop("20000")
    mig = by_name(stack, "nodes")
    check(pack, stack + [job("nodes-stop", zonal_uri("nodes-8f3e2d1"), cron_at(48), target=mig,
                             paused=UNKNOWN)], GCP, {SPEND: "fail"},
          contains={SPEND: ["nodes-stop", "paused"]})


@pytest.mark.parametrize("paused", [False, None])
def test_j2_resize_job_not_paused_stops(pack, paused):
    """Control: paused false or left out: the stop holds: 16,835.56 < 20,000: pass."""
    stack = gcp_no_stop("20000")
    mig = by_name(stack, "nodes")
    extra = {} if paused is None else {"paused": paused}
    check(pack, stack + [job("nodes-stop", zonal_uri("nodes-8f3e2d1"), cron_at(48), target=mig,
                             **extra)], GCP, {})
