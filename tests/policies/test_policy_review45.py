"""Issue 35, a BLIND hostile review (helper review45): 60 NEW stacks, aimed at AWS and the pack's
non-budget policies (rdma-for-multinode, no-public-ingress, encryption-at-rest, bucket-retained,
required-tags, storage-same-zone), EKS managed and self-managed groups, Capacity Blocks, FSx for
Lustre with data repository associations, security-group rules as their own resources, the
aws-native twins, and the pack's config. Driven over gRPC as `pulumi preview --policy-pack`
drives it (tests/policy_harness.py); every resource has its own URN. The pack's rule code was
not read: the expectations come from docs/policies.md (the pack's promise) and the providers'
public docs, written here BEFORE the first run.

Verdicts: "pass", "fail" (a mandatory violation that decides), "undecided" ("cannot decide");
for rdma-for-multinode (advisory) "flagged" (a finding that is not "cannot decide") or not.

Prices (policies/catalog_data/prices.csv, on-demand USD/h, us-east-1; a month is 730 h):
  p4d.24xlarge 21.9576; p5.48xlarge 55.04; g5.12xlarge 5.672.
Fabric (instance_types.csv): p4d.24xlarge efa, 4 RDMA NICs; p5.48xlarge efa, 32.

Sources cited in the cases:
  [EFA]   docs.aws.amazon.com/AWSEC2/latest/UserGuide/efa-acc-inst-types.html (EFA-supported
          accelerated types; G5: g5.8xlarge, g5.12xlarge, g5.16xlarge, g5.24xlarge, g5.48xlarge)
  [PG]    docs.aws.amazon.com/AWSEC2/latest/UserGuide/placement-strategies.html (only the
          cluster strategy packs instances close together for low-latency networking; spread
          and partition place them on distinct hardware)
  [CB-EKS] docs.aws.amazon.com/eks/latest/userguide/capacity-blocks-mng.html (managed node
          groups in a Capacity Block: capacityType CAPACITY_BLOCK with a launch template that
          targets the block's reservation)
  [FSX-ENC] docs.aws.amazon.com/fsx/latest/LustreGuide/encryption-at-rest.html (every FSx for
          Lustre file system is encrypted at rest, scratch and persistent)
  [EBS-ENC] docs.aws.amazon.com/ebs/latest/userguide/encryption-by-default.html (per Region;
          without it a new volume is unencrypted unless asked)
  [SG]    docs.aws.amazon.com/vpc/latest/userguide/security-group-rules.html (protocol -1 is
          all traffic, all ports; a rule may name a prefix list or another security group)
  [EKS-SSH] docs.aws.amazon.com/eks/latest/APIReference/API_RemoteAccessConfig.html (with
          sourceSecurityGroups, port 22 is opened to those groups only)

Results. Round 1 (60 cases, committed in 9df37c9 before the first run): 54 agreed, 6 did not,
all six the pack's (strict xfails, no expectation changed): r10 (catalog: g5.48xlarge recorded
without EFA, so a multi-node g5.48xlarge group is never asked for its fabric), and five
aws-native twins the pack does not read: n13 aws-native:ec2:SecurityGroup inline ingress,
n14 aws-native:ec2:SecurityGroupIngress, e12 aws-native:ec2:Volume, e13 aws-native:ec2:
LaunchTemplate block devices, k6 aws-native:s3:Bucket. No crash; no mistake of mine found.
Fixed by helper fix45 (the six xfails removed in the commits that fix them; siblings in
tests/policies/test_policy_fix45.py): the aws-native twins are judged as the classic types, and
the catalog marks every type EC2 reports as EFA-supported (g5.48xlarge among them) as an EFA row.
"""
from __future__ import annotations

import grpc
import pytest

from tests.policies.test_policy_review35f import (
    AWS, MONTH, NPI, SPEND, SSZ, TAGS, asg, aws_budget, estimate, judged, messages, near,
    no_crash, subnet, verdict,
)
from tests.policy_fixtures import res
from tests.policy_harness import run
from trainstack_policies.model import UNKNOWN

RDMA, ENC, RET, TAG = "rdma-for-multinode", "encryption-at-rest", "bucket-retained", "required-tags"
P4D = 21.9576
AMI = "ami-0a1b2c3d4e5f60718"
NATIVE_TAGS = [{"key": k, "value": v} for k, v in TAGS.items()]


def flagged(found, policy):
    """A finding of `policy` that decides (any level), exemption notes left out."""
    no_crash(found)
    return any(d.policy == policy and "cannot decide" not in d.message for d in judged(found))


def exempt_notes(found, policy):
    return [d for d in found if d.policy == policy and d.message.startswith("exempt: ")]


def _on(provider, *resources):
    for r in resources:
        r.provider = dict(provider)
    return list(resources)


# ------------------------------------------------------------------------------ builders

def efa_nics(cards, kind="efa"):
    return [{"networkCardIndex": float(c), "deviceIndex": 0.0 if c == 0 else 1.0,
             "interfaceType": kind, "associatePublicIpAddress": "false",
             "deleteOnTermination": "true"} for c in range(cards)]


def plain_nics():
    return [{"networkCardIndex": 0.0, "deviceIndex": 0.0, "associatePublicIpAddress": "false"}]


def gpu_lt(name, itype, nics=None, mounts=(), **p):
    deps = {"userData": list(mounts)} if mounts else {}
    props = {"imageId": AMI, "instanceType": itype, "tags": TAGS,
             "networkInterfaces": nics if nics is not None else plain_nics(), **p}
    if mounts:
        props["userData"] = "I2Nsb3VkLWNvbmZpZwptb3VudHM6IFtbZnN4XV0="
    return res("aws:ec2/launchTemplate:LaunchTemplate", name, props, deps=deps)


def pgroup(name, strategy="cluster", **p):
    return res("aws:ec2/placementGroup:PlacementGroup", name,
               {"strategy": strategy, "tags": TAGS, **p})


def placed_asg(label, itype, size, nics=None, strategy="cluster", zone="us-east-1a",
               mounts=(), **p):
    s = subnet(f"{label}-sn", zone)
    t = gpu_lt(f"{label}-lt", itype, nics, mounts=mounts)
    out = [s, t]
    g = asg(label, t, [s], size, **p)
    if strategy:
        pg = pgroup(f"{label}-pg", strategy)
        g.props["placementGroup"] = "pg-id"
        g.deps["placementGroup"] = [pg]
        out.append(pg)
    return out + [g]


def ng(name, itype, size, subnets, template=None, **p):
    deps = {"subnetIds": list(subnets)}
    props = {"clusterName": "train", "nodeGroupName": name,
             "nodeRoleArn": "arn:aws:iam::123456789012:role/eks-node",
             "subnetIds": ["subnet-id"] * len(subnets), "instanceTypes": [itype],
             "scalingConfig": {"minSize": 0.0, "maxSize": float(size),
                               "desiredSize": float(size)},
             "capacityType": "ON_DEMAND", "tags": TAGS, **p}
    if template is not None:
        props["launchTemplate"] = {"id": "lt-id", "version": "1"}
        deps["launchTemplate"] = [template]
    return res("aws:eks/nodeGroup:NodeGroup", name, props, deps=deps)


def lustre(name, on_subnet=None, deployment="PERSISTENT_2", gib=2400.0, literal=None, **p):
    props = {"storageCapacity": gib, "deploymentType": deployment, "tags": TAGS, **p}
    if deployment.startswith("PERSISTENT"):
        props.setdefault("perUnitStorageThroughput", 250.0 if deployment == "PERSISTENT_2"
                         else 200.0)
    if literal:
        props["subnetIds"] = literal
        return res("aws:fsx/lustreFileSystem:LustreFileSystem", name, props)
    props["subnetIds"] = "subnet-id"
    return res("aws:fsx/lustreFileSystem:LustreFileSystem", name, props,
               deps={"subnetIds": [on_subnet]})


def bucket(name, protect=False, **p):
    b = res("aws:s3/bucketV2:BucketV2", name, {"bucket": f"{name}-ml-7f3a", "forceDestroy": False,
                                              "tags": TAGS, **p})
    b.protect = protect
    return b


def dra(name, fs, bkt):
    return res("aws:fsx/dataRepositoryAssociation:DataRepositoryAssociation", name, {
        "fileSystemId": "fs-id", "dataRepositoryPath": "s3://bucket-id/datasets",
        "fileSystemPath": "/datasets", "batchImportMetaDataOnCreate": True, "tags": TAGS},
        deps={"fileSystemId": [fs], "dataRepositoryPath": [bkt]})


def sg(name, ingress=(), egress=(), **p):
    return res("aws:ec2/securityGroup:SecurityGroup", name, {
        "vpcId": "vpc-0team", "description": f"{name} nodes", "ingress": list(ingress),
        "egress": list(egress), "tags": TAGS, **p})


def in_rule(name, group, port=443, proto="tcp", **p):
    props = {"securityGroupId": "sg-id", "ipProtocol": proto, "tags": TAGS, **p}
    if port is not None:
        lo, hi = port if isinstance(port, tuple) else (port, port)
        props.update(fromPort=float(lo), toPort=float(hi))
    deps = {"securityGroupId": [group]}
    for key in ("prefixListId", "referencedSecurityGroupId"):
        if key in p and not isinstance(p[key], str):
            deps[key] = [p[key]]
            props[key] = "pl-id" if key == "prefixListId" else "sg-ref-id"
    return res("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule", name, props,
               deps=deps)


def sg_rule(name, group, kind, port=443, **p):
    return res("aws:ec2/securityGroupRule:SecurityGroupRule", name, {
        "type": kind, "securityGroupId": "sg-id", "protocol": "tcp", "fromPort": float(port),
        "toPort": float(port), **p}, deps={"securityGroupId": [group]})


def volume(name, **p):
    return res("aws:ebs/volume:Volume", name, {"availabilityZone": "us-east-1a", "size": 500.0,
                                               "type": "gp3", "tags": TAGS, **p})


def ebs_default(enabled=True):
    return res("aws:ebs/encryptionByDefault:EncryptionByDefault", "ebs-default",
               {"enabled": enabled})


def config_refused(pack, policy, key, value):
    config = pack.cli_config()
    config.setdefault(policy, {})[key] = value
    with pytest.raises(grpc.RpcError) as err:
        pack.send_config(config)
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT, err.value.details()
    return err.value.details()


# ============================================== R. rdma-for-multinode on self-managed groups

def test_r1_p4d_cluster_group_with_four_efa_passes(pack):
    """ASG of 2 x p4d.24xlarge in a cluster placement group, launch template with 4 EFA
    interfaces (interfaceType efa, one per network card; catalog: 4 RDMA NICs). Placement and
    fastest fabric both given. Expect: rdma not flagged."""
    found = run(pack, placed_asg("r1", "p4d.24xlarge", 2, efa_nics(4)), provider=AWS)
    assert not flagged(found, RDMA), messages(found, RDMA)


def test_r2_p4d_cluster_group_without_efa_is_flagged(pack):
    """The same group, cluster placement group, but its template's one interface is a plain
    ENA (no interfaceType). Multi-node p4d without its RDMA fabric. Expect: flagged."""
    found = run(pack, placed_asg("r2", "p4d.24xlarge", 2, plain_nics()), provider=AWS)
    assert flagged(found, RDMA), messages(found, RDMA)


def test_r3_spread_placement_group_is_no_cluster(pack):
    """2 x p4d with 4 EFA interfaces in a placement group of strategy "spread": spread puts
    each instance on distinct hardware [PG]; docs ask for an AWS *cluster* placement group.
    Expect: flagged."""
    found = run(pack, placed_asg("r3", "p4d.24xlarge", 2, efa_nics(4), strategy="spread"),
                provider=AWS)
    assert flagged(found, RDMA), messages(found, RDMA)


def test_r4_partition_placement_group_is_no_cluster(pack):
    """The same with strategy "partition" (partitions on separate racks [PG]). Expect: flagged."""
    found = run(pack, placed_asg("r4", "p4d.24xlarge", 2, efa_nics(4), strategy="partition"),
                provider=AWS)
    assert flagged(found, RDMA), messages(found, RDMA)


def test_r6_desired_zero_max_four_still_multinode(pack):
    """ASG p4d maxSize 4, desiredCapacity 0 (scaled up by jobs), no placement, no EFA. It is
    not parked (docs: "a parked group (maximum 0)"); it may run 4 nodes. Expect: flagged."""
    stack = placed_asg("r6", "p4d.24xlarge", 4, plain_nics(), strategy=None)
    stack[-1].props["desiredCapacity"] = 0.0
    found = run(pack, stack, provider=AWS)
    assert flagged(found, RDMA), messages(found, RDMA)


def test_r7_eks_node_group_left_to_service(pack):
    """An EKS managed node group of 4 x p4d.24xlarge, no placement group, no EFA: docs leave
    managed pools (EKS node groups) to their service. Expect: not flagged."""
    s = subnet("r7-sn", "us-east-1a")
    found = run(pack, [s, ng("r7", "p4d.24xlarge", 4, [s])], provider=AWS)
    assert not flagged(found, RDMA), messages(found, RDMA)


def _block_lt(name, nics, itype="p5.48xlarge", market=True):
    return gpu_lt(name, itype, nics, capacityReservationSpecification={
        "capacityReservationTarget": {"capacityReservationId": "cr-0b1c2d3e4f5a60718"}},
        **({"instanceMarketOptions": {"marketType": "capacity-block"}} if market else {}))


def test_r8_capacity_block_with_efa_counts_as_placement(pack):
    """ASG of 2 x p5.48xlarge from a template targeting a Capacity Block (literal cr- id) with
    32 EFA interfaces, no placement group: docs count a targeted reservation / Capacity Block
    as the placement construct. Expect: not flagged."""
    s = subnet("r8-sn", "us-east-1a")
    t = _block_lt("r8-lt", efa_nics(32))
    found = run(pack, [s, t, asg("r8", t, [s], 2)], provider=AWS)
    assert not flagged(found, RDMA), messages(found, RDMA)


def test_r9_capacity_block_without_efa_is_flagged(pack):
    """The same block-placed group whose template has one plain interface: placement is given,
    the fabric is not (p5.48xlarge: 32 EFA cards). Expect: flagged."""
    s = subnet("r9-sn", "us-east-1a")
    t = _block_lt("r9-lt", plain_nics())
    found = run(pack, [s, t, asg("r9", t, [s], 2)], provider=AWS)
    assert flagged(found, RDMA), messages(found, RDMA)


def test_r10_g5_48xlarge_group_has_efa_to_use(pack):
    """ASG of 4 x g5.48xlarge, no placement group, plain interface. AWS lists g5.48xlarge as
    EFA-supported [EFA] (G5: g5.8xlarge .. g5.48xlarge), so a 4-node group has an RDMA fabric
    it does not use, and no cluster placement. Expect: flagged."""
    found = run(pack, placed_asg("r10", "g5.48xlarge", 4, plain_nics(), strategy=None),
                provider=AWS)
    assert flagged(found, RDMA), messages(found, RDMA)


def test_r11_rdma_made_mandatory_fails(pack):
    """r2's stack with {"rdma-for-multinode": "mandatory"}: the finding is a mandatory
    violation. Expect: verdict fail."""
    found = run(pack, placed_asg("r11", "p4d.24xlarge", 2, plain_nics()),
                {RDMA: "mandatory"}, provider=AWS)
    assert verdict(found, RDMA) == "fail", messages(found, RDMA)


def test_r13_native_group_without_placement_is_flagged(pack):
    """aws-native AutoScalingGroup of 3 x p4d.24xlarge from an aws-native launch template with
    no network interfaces and no placement group: the aws-native twin of r2. Expect:
    flagged."""
    s = subnet("r13-sn", "us-east-1a")
    t = res("aws-native:ec2:LaunchTemplate", "r13-lt", {"launchTemplateData": {
        "instanceType": "p4d.24xlarge", "imageId": AMI}})
    g = res("aws-native:autoscaling:AutoScalingGroup", "r13", {
        "minSize": "0", "maxSize": "3", "desiredCapacity": "3",
        "launchTemplate": {"launchTemplateId": "lt-id", "version": "1"},
        "vpcZoneIdentifier": ["subnet-id"],
        "tags": [{"key": k, "value": v, "propagateAtLaunch": True} for k, v in TAGS.items()]},
        deps={"launchTemplate": [t], "vpcZoneIdentifier": [s]})
    found = run(pack, [s, t, g], provider=AWS)
    assert flagged(found, RDMA), messages(found, RDMA)


# ============================================== B. Capacity Blocks and reservations (spend-limit)

def test_b1_eks_capacity_block_priced_at_fee(pack):
    """EKS node group capacityType CAPACITY_BLOCK, 2 x p5.48xlarge, its template targeting a
    block (literal cr- id) with marketType capacity-block [CB-EKS]; capacityBlockFeesUsd
    {"b1": 10572} (2 x 7 d x 24 h x 31.464). Expect estimate 10,572 (the fee, once), never
    2 x 55.04 x 730 = 80,358.40."""
    s = subnet("b1-sn", "us-east-1a")
    t = _block_lt("b1-lt", efa_nics(32))
    g = ng("b1", "p5.48xlarge", 2, [s], t, capacityType="CAPACITY_BLOCK")
    got = estimate(pack, [s, t, g, aws_budget("200000")], AWS,
                   {"capacityBlockFeesUsd": {"b1": 10572}})
    assert near(got, 10572), got


def test_b2_eks_capacity_block_type_alone_is_a_block(pack):
    """EKS node group capacityType CAPACITY_BLOCK whose template targets the block's
    reservation without instanceMarketOptions (EKS sets the market itself for a
    CAPACITY_BLOCK group [CB-EKS]), fee {"b2": 10572}. The nodes run in the block: the fee,
    not 80,358.40 on demand. Expect estimate 10,572."""
    s = subnet("b2-sn", "us-east-1a")
    t = _block_lt("b2-lt", efa_nics(32), market=False)
    g = ng("b2", "p5.48xlarge", 2, [s], t, capacityType="CAPACITY_BLOCK")
    got = estimate(pack, [s, t, g, aws_budget("200000")], AWS,
                   {"capacityBlockFeesUsd": {"b2": 10572}})
    assert near(got, 10572), got


def test_b3_eks_capacity_block_without_fee_fails_closed(pack):
    """b1's group with no fee configured, maxMonthlyUsd 1,000,000 and a 1,000,000 budget: a
    block's price is neither in the catalog nor known at preview, so it is GPU capacity that
    cannot be estimated (docs), never the on-demand month (80,358.40, under the cap).
    Expect: spend-limit fail."""
    s = subnet("b3-sn", "us-east-1a")
    t = _block_lt("b3-lt", efa_nics(32))
    g = ng("b3", "p5.48xlarge", 2, [s], t, capacityType="CAPACITY_BLOCK")
    found = run(pack, [s, t, g, aws_budget("1000000")], {SPEND: {"maxMonthlyUsd": 1000000}},
                provider=AWS)
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)


def test_b4_eks_group_in_targeted_odcr_priced_once(pack):
    """A targeted ODCR of 2 x p4d.24xlarge in us-east-1a (of the stack); an EKS node group of
    maxSize 3 whose template's capacityReservationSpecification depends on it. 2 inside the
    reservation + 1 beyond = 3 x 21.9576 x 730 = 48,087.14."""
    s = subnet("b4-sn", "us-east-1a")
    cr = res("aws:ec2/capacityReservation:CapacityReservation", "b4-cr", {
        "instanceType": "p4d.24xlarge", "instancePlatform": "Linux/UNIX",
        "availabilityZone": "us-east-1a", "instanceCount": 2.0,
        "instanceMatchCriteria": "targeted", "tags": TAGS})
    t = gpu_lt("b4-lt", "p4d.24xlarge", efa_nics(4), capacityReservationSpecification={
        "capacityReservationTarget": {"capacityReservationId": "cr-id"}})
    t.deps["capacityReservationSpecification"] = [cr]
    del t.props["instanceType"]
    g = ng("b4", "p4d.24xlarge", 3, [s], t)
    got = estimate(pack, [s, cr, t, g, aws_budget("100000")], AWS)
    assert near(got, 3 * P4D * MONTH), got


def test_b5_odcr_larger_than_group_bills_whole(pack):
    """A targeted ODCR of 4 x p4d.24xlarge; an ASG of maxSize 2 launched into it. The
    reservation bills all 4 whether used or not; the group adds nothing beyond it.
    Expect: 4 x 21.9576 x 730 = 64,116.19."""
    s = subnet("b5-sn", "us-east-1a")
    cr = res("aws:ec2/capacityReservation:CapacityReservation", "b5-cr", {
        "instanceType": "p4d.24xlarge", "instancePlatform": "Linux/UNIX",
        "availabilityZone": "us-east-1a", "instanceCount": 4.0,
        "instanceMatchCriteria": "targeted", "tags": TAGS})
    t = gpu_lt("b5-lt", "p4d.24xlarge", efa_nics(4), capacityReservationSpecification={
        "capacityReservationTarget": {"capacityReservationId": "cr-id"}})
    t.deps["capacityReservationSpecification"] = [cr]
    got = estimate(pack, [s, cr, t, asg("b5", t, [s], 2), aws_budget("100000")], AWS)
    assert near(got, 4 * P4D * MONTH), got


# ============================================== S. FSx for Lustre and buckets (storage-same-zone)

def test_s1_scratch_fsx_other_zone_fails(pack):
    """SCRATCH_2 FSx (a single-subnet, single-AZ file system) on a us-east-1b subnet, mounted
    by the launch template of a p4d ASG in us-east-1a. Expect: storage-same-zone fail."""
    fs_sn = subnet("s1-fs-sn", "us-east-1b")
    fs = lustre("s1-fs", fs_sn, "SCRATCH_2", 1200.0)
    stack = placed_asg("s1", "p4d.24xlarge", 2, efa_nics(4), mounts=[fs])
    found = run(pack, [fs_sn, fs] + stack, provider=AWS)
    assert verdict(found, SSZ) == "fail", messages(found, SSZ)


def test_s3_dra_bucket_other_region_fails(pack):
    """FSx in the nodes' zone (us-east-1a) linked by a data repository association to a bucket
    whose provider is us-west-2: the cluster reads that bucket through its filesystem (docs:
    "a resource depends on both that filesystem and the bucket (an FSx data repository
    association)"). Expect: fail."""
    stack = placed_asg("s3", "p4d.24xlarge", 2, efa_nics(4))
    fs = lustre("s3-fs", stack[0])
    stack[1].props["userData"] = "I2Nsb3VkLWNvbmZpZw=="
    stack[1].deps["userData"] = [fs]
    b = _on({"region": "us-west-2"}, bucket("s3-data", protect=True))[0]
    found = run(pack, [fs, b, dra("s3-dra", fs, b)] + stack, provider=AWS)
    assert verdict(found, SSZ) == "fail", messages(found, SSZ)


def test_s4_dra_bucket_same_region_passes(pack):
    """s3's stack with the bucket in us-east-1. Expect: pass."""
    stack = placed_asg("s4", "p4d.24xlarge", 2, efa_nics(4))
    fs = lustre("s4-fs", stack[0])
    stack[1].props["userData"] = "I2Nsb3VkLWNvbmZpZw=="
    stack[1].deps["userData"] = [fs]
    b = bucket("s4-data", protect=True)
    found = run(pack, [fs, b, dra("s4-dra", fs, b)] + stack, provider=AWS)
    assert verdict(found, SSZ) == "pass", messages(found, SSZ)


def test_s6_eks_group_mounting_fsx_in_other_zone_fails(pack):
    """An EKS node group of 2 x p4d on a us-east-1a subnet, its launch template's user data
    built from an FSx PERSISTENT_2 on a us-east-1c subnet. Expect: fail."""
    s = subnet("s6-sn", "us-east-1a")
    fs_sn = subnet("s6-fs-sn", "us-east-1c")
    fs = lustre("s6-fs", fs_sn)
    t = gpu_lt("s6-lt", "p4d.24xlarge", efa_nics(4), mounts=[fs])
    found = run(pack, [s, fs_sn, fs, t, ng("s6", "p4d.24xlarge", 2, [s], t)], provider=AWS)
    assert verdict(found, SSZ) == "fail", messages(found, SSZ)


def test_s7_literal_fsx_subnet_told_other_zone_fails(pack):
    """FSx on a literal subnet "subnet-0f5a1e2d3c4b5a697" (not the stack's), mounted by a p4d
    group in us-east-1a; config zones tells that subnet is in us-east-1d. Expect: fail."""
    fs = lustre("s7-fs", literal=["subnet-0f5a1e2d3c4b5a697"])
    stack = placed_asg("s7", "p4d.24xlarge", 2, efa_nics(4), mounts=[fs])
    found = run(pack, [fs] + stack, {SSZ: {"zones": {"subnet-0f5a1e2d3c4b5a697": "us-east-1d"}}},
                provider=AWS)
    assert verdict(found, SSZ) == "fail", messages(found, SSZ)


def test_s8_literal_fsx_subnet_untold_is_undecided(pack):
    """s7's stack without the zones config: the FSx's zone is read nowhere. Expect: undecided
    (cannot decide at the default advisory level), not fail and not a silent pass."""
    fs = lustre("s8-fs", literal=["subnet-0f5a1e2d3c4b5a698"])
    stack = placed_asg("s8", "p4d.24xlarge", 2, efa_nics(4), mounts=[fs])
    found = run(pack, [fs] + stack, provider=AWS)
    assert verdict(found, SSZ) == "undecided", messages(found, SSZ)


def test_s9_fsx_mounted_only_by_cpu_group_not_judged(pack):
    """FSx in us-east-1b mounted only by a c6i.4xlarge ASG (CPU preprocessing) in us-east-1b;
    a p4d group in us-east-1a mounts nothing and shares no subnet. Docs: a filesystem only CPU
    compute mounts is not the GPUs' storage. Expect: pass."""
    cpu_sn = subnet("s9-cpu-sn", "us-east-1b")
    fs = lustre("s9-fs", cpu_sn)
    cpu_lt = gpu_lt("s9-cpu-lt", "c6i.4xlarge", mounts=[fs])
    cpu = asg("s9-cpu", cpu_lt, [cpu_sn], 4)
    stack = placed_asg("s9", "p4d.24xlarge", 2, efa_nics(4))
    found = run(pack, [cpu_sn, fs, cpu_lt, cpu] + stack, provider=AWS)
    assert verdict(found, SSZ) == "pass", messages(found, SSZ)


def test_s10_multi_subnet_eks_group_spanning_zones_with_fsx(pack):
    """An EKS node group of 4 x p4d over two subnets (us-east-1a and us-east-1b) whose template
    mounts an FSx in us-east-1a: half its nodes may land in 1b, across the zone from their
    filesystem. Expect: fail."""
    sa, sb = subnet("s10-a", "us-east-1a"), subnet("s10-b", "us-east-1b")
    fs = lustre("s10-fs", sa)
    t = gpu_lt("s10-lt", "p4d.24xlarge", efa_nics(4), mounts=[fs])
    found = run(pack, [sa, sb, fs, t, ng("s10", "p4d.24xlarge", 4, [sa, sb], t)], provider=AWS)
    assert verdict(found, SSZ) == "fail", messages(found, SSZ)


# ============================================== N. no-public-ingress: rules as resources

def test_n1_ingress_rule_ipv6_world_https_fails(pack):
    """aws:vpc/securityGroupIngressRule cidrIpv6 "::/0", tcp 443. Expect: fail."""
    g = sg("n1-sg")
    found = run(pack, [g, in_rule("n1-https6", g, cidrIpv6="::/0")], provider=AWS)
    assert verdict(found, NPI) == "fail", messages(found, NPI)


def test_n2_world_ssh_listed_in_ssh_cidrs_passes(pack):
    """Ingress rule cidrIpv4 0.0.0.0/0 tcp 22 with sshCidrs ["0.0.0.0/0"] (docs: world-open
    CIDRs allowed for TCP 22 only). Expect: pass."""
    g = sg("n2-sg")
    found = run(pack, [g, in_rule("n2-ssh", g, 22, cidrIpv4="0.0.0.0/0")],
                {NPI: {"sshCidrs": ["0.0.0.0/0"]}}, provider=AWS)
    assert verdict(found, NPI) == "pass", messages(found, NPI)


def test_n3_udp_22_is_not_ssh(pack):
    """n2 with ipProtocol "udp": the allowance is for TCP 22 only. Expect: fail."""
    g = sg("n3-sg")
    found = run(pack, [g, in_rule("n3-udp", g, 22, "udp", cidrIpv4="0.0.0.0/0")],
                {NPI: {"sshCidrs": ["0.0.0.0/0"]}}, provider=AWS)
    assert verdict(found, NPI) == "fail", messages(found, NPI)


def test_n4_port_range_around_22_is_not_ssh_only(pack):
    """n2 with fromPort 20, toPort 23 (opens 20, 21, 23 too). Expect: fail."""
    g = sg("n4-sg")
    found = run(pack, [g, in_rule("n4-range", g, (20, 23), cidrIpv4="0.0.0.0/0")],
                {NPI: {"sshCidrs": ["0.0.0.0/0"]}}, provider=AWS)
    assert verdict(found, NPI) == "fail", messages(found, NPI)


def test_n5_all_protocols_world_fails_even_with_ssh_allowance(pack):
    """ipProtocol "-1" (all traffic, all ports [SG]) from 0.0.0.0/0, sshCidrs ["0.0.0.0/0"]:
    it opens far more than TCP 22. Expect: fail."""
    g = sg("n5-sg")
    found = run(pack, [g, in_rule("n5-all", g, None, "-1", cidrIpv4="0.0.0.0/0")],
                {NPI: {"sshCidrs": ["0.0.0.0/0"]}}, provider=AWS)
    assert verdict(found, NPI) == "fail", messages(found, NPI)


def test_n7_sg_rule_ingress_ipv6_blocks_fails(pack):
    """aws:ec2/securityGroupRule type ingress, ipv6CidrBlocks ["::/0"], tcp 8888 (Jupyter).
    Expect: fail."""
    g = sg("n7-sg")
    found = run(pack, [g, sg_rule("n7-jupyter", g, "ingress", 8888, ipv6CidrBlocks=["::/0"])],
                provider=AWS)
    assert verdict(found, NPI) == "fail", messages(found, NPI)


def test_n8_inline_ipv6_ingress_fails(pack):
    """aws:ec2/securityGroup with an inline ingress block ipv6CidrBlocks ["::/0"], tcp 6006
    (TensorBoard). Expect: fail."""
    g = sg("n8-sg", ingress=[{"protocol": "tcp", "fromPort": 6006.0, "toPort": 6006.0,
                              "cidrBlocks": [], "ipv6CidrBlocks": ["::/0"]}])
    found = run(pack, [g], provider=AWS)
    assert verdict(found, NPI) == "fail", messages(found, NPI)


def test_n9_prefix_list_holding_world_fails(pack):
    """A managed prefix list of the stack with entries 10.0.0.0/8 and 0.0.0.0/0; an ingress rule
    tcp 443 whose prefixListId depends on it (docs: managed prefix lists holding 0.0.0.0/0 are
    judged). Expect: fail."""
    pl = res("aws:ec2/managedPrefixList:ManagedPrefixList", "n9-pl", {
        "name": "partners", "addressFamily": "IPv4", "maxEntries": 5.0, "tags": TAGS,
        "entries": [{"cidr": "10.0.0.0/8", "description": "corp"},
                    {"cidr": "0.0.0.0/0", "description": "temporary"}]})
    g = sg("n9-sg")
    found = run(pack, [pl, g, in_rule("n9-pl-rule", g, prefixListId=pl)], provider=AWS)
    assert verdict(found, NPI) == "fail", messages(found, NPI)


def test_n12_ipv6_halves_split_across_rules_fail(pack):
    """Two ingress rules on one group, cidrIpv6 "::/1" and "8000::/1", tcp 443: together all
    IPv6 addresses, the IPv6 twin of docs' 0.0.0.0/1 + 128.0.0.0/1. Expect: fail."""
    g = sg("n12-sg")
    found = run(pack, [g, in_rule("n12-lo", g, cidrIpv6="::/1"),
                       in_rule("n12-hi", g, cidrIpv6="8000::/1")], provider=AWS)
    assert verdict(found, NPI) == "fail", messages(found, NPI)


def test_n13_native_security_group_world_ingress_fails(pack):
    """aws-native:ec2:SecurityGroup with securityGroupIngress [{ipProtocol tcp, 443, cidrIp
    0.0.0.0/0}] (CloudFormation AWS::EC2::SecurityGroup): an AWS security group rule open to
    the world; docs' scope is every ingress rule. Expect: fail."""
    g = res("aws-native:ec2:SecurityGroup", "n13-sg", {
        "groupDescription": "inference", "vpcId": "vpc-0team", "tags": NATIVE_TAGS,
        "securityGroupIngress": [{"ipProtocol": "tcp", "fromPort": 443, "toPort": 443,
                                  "cidrIp": "0.0.0.0/0"}]})
    found = run(pack, [g], provider=AWS)
    assert verdict(found, NPI) == "fail", messages(found, NPI)


def test_n14_native_ingress_resource_ipv6_world_fails(pack):
    """aws-native:ec2:SecurityGroupIngress (its own resource) cidrIpv6 "::/0", tcp 8443.
    Expect: fail."""
    g = res("aws-native:ec2:SecurityGroup", "n14-sg", {
        "groupDescription": "api", "vpcId": "vpc-0team", "tags": NATIVE_TAGS})
    r = res("aws-native:ec2:SecurityGroupIngress", "n14-in", {
        "groupId": "sg-id", "ipProtocol": "tcp", "fromPort": 8443, "toPort": 8443,
        "cidrIpv6": "::/0"}, deps={"groupId": [g]})
    found = run(pack, [g, r], provider=AWS)
    assert verdict(found, NPI) == "fail", messages(found, NPI)


def test_n15_skip_resources_glob_exempts_rule(pack):
    """A world-open tcp 443 ingress rule "public-https-lb" and skipResources
    ["aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule::public-https-*"] (docs'
    example). Expect: pass, one exempt note naming it."""
    g = sg("n15-sg")
    found = run(pack, [g, in_rule("public-https-lb", g, cidrIpv4="0.0.0.0/0")], {NPI: {
        "skipResources": ["aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule::"
                          "public-https-*"]}}, provider=AWS)
    assert verdict(found, NPI) == "pass", messages(found, NPI)
    assert any("public-https-lb" in d.message for d in exempt_notes(found, NPI)), found


def test_n17_world_ssh_not_in_narrow_ssh_cidrs_fails(pack):
    """Ingress 0.0.0.0/0 tcp 22 with sshCidrs ["203.0.113.0/24"] only: the world is not an
    allowed SSH source. Expect: fail."""
    g = sg("n17-sg")
    found = run(pack, [g, in_rule("n17-ssh", g, 22, cidrIpv4="0.0.0.0/0")],
                {NPI: {"sshCidrs": ["203.0.113.0/24"]}}, provider=AWS)
    assert verdict(found, NPI) == "fail", messages(found, NPI)


def test_n19_ipv6_world_ssh_not_covered_by_ipv4_allowance(pack):
    """sshCidrs ["0.0.0.0/0"]; an ingress rule cidrIpv6 "::/0" tcp 22: ::/0 is not in the
    allowed list. Expect: fail."""
    g = sg("n19-sg")
    found = run(pack, [g, in_rule("n19-ssh6", g, 22, cidrIpv6="::/0")],
                {NPI: {"sshCidrs": ["0.0.0.0/0"]}}, provider=AWS)
    assert verdict(found, NPI) == "fail", messages(found, NPI)


# ============================================== E. encryption-at-rest

def test_e1_unencrypted_volume_fails(pack):
    """aws:ebs/volume encrypted false, no encryption by default. Expect: fail."""
    found = run(pack, [volume("e1-scratch", encrypted=False)], provider=AWS)
    assert verdict(found, ENC) == "fail", messages(found, ENC)


def test_e2_volume_encryption_unset_fails(pack):
    """aws:ebs/volume with encrypted unset and no EncryptionByDefault in the stack: a new
    volume is unencrypted unless asked [EBS-ENC]. Expect: fail."""
    found = run(pack, [volume("e2-data")], provider=AWS)
    assert verdict(found, ENC) == "fail", messages(found, ENC)


def test_e3_volume_under_default_encryption_passes(pack):
    """e2's volume beside aws:ebs/encryptionByDefault enabled true, same provider region
    (us-east-1). Expect: pass."""
    found = run(pack, [ebs_default(), volume("e3-data")], provider=AWS)
    assert verdict(found, ENC) == "pass", messages(found, ENC)


def test_e4_default_encryption_in_other_region_does_not_cover(pack):
    """EncryptionByDefault under a us-west-2 provider, the volume under us-east-1: it is per
    Region [EBS-ENC]. Expect: fail."""
    d = _on({"region": "us-west-2"}, ebs_default())[0]
    found = run(pack, [d, volume("e4-data")], provider=AWS)
    assert verdict(found, ENC) == "fail", messages(found, ENC)


def test_e5_default_encryption_unknown_is_undecided(pack):
    """EncryptionByDefault whose enabled is unknown at preview, beside e2's volume. Docs: "an
    enabled unknown at preview is cannot decide". Expect: undecided."""
    found = run(pack, [ebs_default(UNKNOWN), volume("e5-data")], provider=AWS)
    assert verdict(found, ENC) == "undecided", messages(found, ENC)


def test_e6_launch_template_block_device_unencrypted_fails(pack):
    """A p4d launch template with blockDeviceMappings [{deviceName /dev/xvdb, ebs: {volumeSize
    2000, volumeType gp3, encrypted "false"}}] used by an ASG. Expect: fail."""
    stack = placed_asg("e6", "p4d.24xlarge", 2, efa_nics(4))
    stack[1].props["blockDeviceMappings"] = [{"deviceName": "/dev/xvdb", "ebs": {
        "volumeSize": 2000.0, "volumeType": "gp3", "encrypted": "false"}}]
    found = run(pack, stack, provider=AWS)
    assert verdict(found, ENC) == "fail", messages(found, ENC)


def test_e8_instance_data_volume_unset_fails(pack):
    """aws:ec2/instance g5.12xlarge with ebsBlockDevices [{deviceName /dev/sdf, volumeSize
    1000}] (encrypted unset, no snapshot, no default encryption) [EBS-ENC]. Expect: fail."""
    s = subnet("e8-sn", "us-east-1a")
    i = res("aws:ec2/instance:Instance", "e8", {
        "ami": AMI, "instanceType": "g5.12xlarge", "subnetId": "subnet-id",
        "associatePublicIpAddress": False, "tags": TAGS,
        "ebsBlockDevices": [{"deviceName": "/dev/sdf", "volumeSize": 1000.0,
                             "volumeType": "gp3"}]}, deps={"subnetId": [s]})
    found = run(pack, [s, i], provider=AWS)
    assert verdict(found, ENC) == "fail", messages(found, ENC)


def test_e10_scratch_fsx_without_kms_passes(pack):
    """FSx for Lustre SCRATCH_2 with no kmsKeyId: always encrypted at rest [FSX-ENC].
    Expect: pass."""
    s = subnet("e10-sn", "us-east-1a")
    found = run(pack, [s, lustre("e10-fs", s, "SCRATCH_2", 1200.0)], provider=AWS)
    assert verdict(found, ENC) == "pass", messages(found, ENC)


def test_e12_native_volume_unencrypted_fails(pack):
    """aws-native:ec2:Volume (CloudFormation AWS::EC2::Volume) encrypted false: EBS the program
    declares (docs' scope: "declared block storage (EBS ...)"). Expect: fail."""
    v = res("aws-native:ec2:Volume", "e12-data", {"availabilityZone": "us-east-1a",
                                                  "size": 500, "volumeType": "gp3",
                                                  "encrypted": False, "tags": NATIVE_TAGS})
    found = run(pack, [v], provider=AWS)
    assert verdict(found, ENC) == "fail", messages(found, ENC)


def test_e13_native_launch_template_unencrypted_fails(pack):
    """aws-native:ec2:LaunchTemplate of p4d.24xlarge with launchTemplateData.blockDeviceMappings
    [{deviceName /dev/xvdb, ebs: {volumeSize 2000, encrypted false}}]: EBS in a launch
    template (docs). Expect: fail."""
    t = res("aws-native:ec2:LaunchTemplate", "e13-lt", {"launchTemplateData": {
        "instanceType": "p4d.24xlarge", "imageId": AMI, "blockDeviceMappings": [
            {"deviceName": "/dev/xvdb", "ebs": {"volumeSize": 2000, "volumeType": "gp3",
                                                "encrypted": False}}]}})
    found = run(pack, [t], provider=AWS)
    assert verdict(found, ENC) == "fail", messages(found, ENC)


# ============================================== K. bucket-retained

def test_k2_protected_but_force_destroy_fails(pack):
    """protect, but forceDestroy true (docs: and no forceDestroy). Expect: fail."""
    found = run(pack, [bucket("k2-data", protect=True, forceDestroy=True)], provider=AWS)
    assert verdict(found, RET) == "fail", messages(found, RET)


def test_k4_retain_tag_only_in_default_tags_fails(pack):
    """No protect; trainstack:retain=true only in the provider's defaultTags (docs: counts only
    on the bucket itself). Expect: fail."""
    b = _on({"region": "us-east-1", "defaultTags": {"tags": {"trainstack:retain": "true"}}},
            bucket("k4-data"))[0]
    found = run(pack, [b], provider=AWS)
    assert verdict(found, RET) == "fail", messages(found, RET)


def test_k6_native_bucket_unprotected_fails(pack):
    """aws-native:s3:Bucket (CloudFormation AWS::S3::Bucket) without protect or retain tag:
    an S3 bucket (docs' scope: every object-storage bucket, S3 included). Expect: fail."""
    b = res("aws-native:s3:Bucket", "k6-data", {"bucketName": "k6-ml-7f3a",
                                                "tags": NATIVE_TAGS})
    found = run(pack, [b], provider=AWS)
    assert verdict(found, RET) == "fail", messages(found, RET)


def test_k7_policy_skip_tag_exempts_scratch_bucket(pack):
    """An unprotected scratch bucket tagged trainstack:policy-skip "bucket-retained" (docs:
    exempt scratch buckets with it). Expect: pass, an exempt note."""
    b = bucket("k7-scratch", forceDestroy=True,
               tags={**TAGS, "trainstack:policy-skip": "bucket-retained"})
    found = run(pack, [b], provider=AWS)
    assert verdict(found, RET) == "pass", messages(found, RET)
    assert exempt_notes(found, RET), found


# ============================================== T. required-tags

def _tag_verdict(pack, resource, config=None, provider=AWS):
    found = run(pack, [resource], config, provider=provider)
    return verdict(found, TAG), messages(found, TAG)


def test_t1_placement_group_missing_cost_center_fails(pack):
    """aws:ec2/placementGroup tags {owner, team} (no cost-center). Expect: fail."""
    v, m = _tag_verdict(pack, pgroup("t1-pg", tags={"owner": "alice", "team": "ml"}))
    assert v == "fail", m


def test_t3_whitespace_value_is_blank(pack):
    """A DataRepositoryAssociation whose cost-center is "  " (docs: blank values count as
    missing). Expect: fail."""
    r = res("aws:fsx/dataRepositoryAssociation:DataRepositoryAssociation", "t3-dra", {
        "fileSystemId": "fs-0123456789abcdef0", "dataRepositoryPath": "s3://ml/d",
        "fileSystemPath": "/d", "tags": {**TAGS, "cost-center": "  "}})
    v, m = _tag_verdict(pack, r)
    assert v == "fail", m


def test_t4_aws_keys_are_case_sensitive(pack):
    """A security group tagged {"Owner", "Team", "Cost-Center"}: AWS tag keys are
    case-sensitive (docs match case-insensitively only on Azure). Expect: fail."""
    v, m = _tag_verdict(pack, sg("t4-sg", tags={"Owner": "alice", "Team": "ml",
                                                "Cost-Center": "1234"}))
    assert v == "fail", m


def test_t6_native_vpc_missing_key_fails(pack):
    """aws-native:ec2:Vpc tags [{key owner}, {key team}] (no cost-center): a resource that
    takes tags (docs' scope: every resource of the four clouds that takes tags). Expect: fail."""
    r = res("aws-native:ec2:Vpc", "t6-vpc", {"cidrBlock": "10.20.0.0/16", "tags": [
        {"key": "owner", "value": "alice"}, {"key": "team", "value": "ml"}]})
    v, m = _tag_verdict(pack, r)
    assert v == "fail", m


# ============================================== C. configuration

def test_c1_required_tags_typo_refused(pack):
    """required-tags {"requiredTag": [...]} (missing s): docs: a setting a policy does not take
    is refused over gRPC with INVALID_ARGUMENT naming the key."""
    assert "requiredTag" in config_refused(pack, TAG, "requiredTag", ["owner"])


def test_c2_bare_name_skip_refused(pack):
    """no-public-ingress skipResources ["web"]: docs: a bare name is refused by the schema.
    Expect: INVALID_ARGUMENT naming skipResources."""
    assert "skipResources" in config_refused(pack, NPI, "skipResources", ["web"])


def test_c3_ssh_cidrs_as_string_refused(pack):
    """sshCidrs given as one string "0.0.0.0/0" (schema: array): a known setting of a type its
    schema refuses is refused (docs). Expect: INVALID_ARGUMENT naming sshCidrs."""
    assert "sshCidrs" in config_refused(pack, NPI, "sshCidrs", "0.0.0.0/0")


def test_c7_all_disabled_reports_nothing(pack):
    """{"all": "disabled"} over a stack with a world-open rule, an unencrypted volume and an
    untagged placement group: every policy disabled. Expect: no diagnostic at all."""
    g = sg("c7-sg")
    found = run(pack, [g, in_rule("c7-open", g, cidrIpv4="0.0.0.0/0"), volume("c7-v",
                       encrypted=False), pgroup("c7-pg", tags={})], {"all": "disabled"},
                provider=AWS)
    no_crash(found)
    assert not judged(found), found
