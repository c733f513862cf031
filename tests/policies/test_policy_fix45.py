"""Issue 35, helper fix45: siblings of review45's six strict xfails, over gRPC as `pulumi preview`
drives it (tests/policy_harness.py). Expectations were worked by hand from the pack's promise
(docs/policies.md) and the providers' public docs, and committed before the code.

aws-native twins (pulumi-aws-native gives CloudFormation's property names in camelCase):
  [CFN-SG]   docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/
             aws-resource-ec2-securitygroup.html: SecurityGroupIngress [{IpProtocol, FromPort,
             ToPort, CidrIp, CidrIpv6, SourcePrefixListId, SourceSecurityGroupId}];
             IpProtocol -1 is all protocols (and so all ports).
  [CFN-SGI]  .../aws-resource-ec2-securitygroupingress.html: the same keys, plus GroupId.
  [CFN-PL]   .../aws-resource-ec2-prefixlist.html: Entries [{Cidr, Description}].
  [CFN-VOL]  .../aws-resource-ec2-volume.html: Encrypted, SnapshotId, KmsKeyId.
  [CFN-LT]   .../aws-properties-ec2-launchtemplate-launchtemplatedata.html:
             BlockDeviceMappings [{DeviceName, Ebs {Encrypted, SnapshotId, ...}, VirtualName}].
  [CFN-EC2]  .../aws-resource-ec2-instance.html: BlockDeviceMappings [{DeviceName, Ebs
             {Encrypted, ...}, NoDevice, VirtualName}].
  [CFN-S3]   .../aws-resource-s3-bucket.html: Tags [{Key, Value}]; no ForceDestroy (a bucket
             CloudFormation deletes must be empty).
  [EBS-ENC]  docs.aws.amazon.com/ebs/latest/userguide/encryption-by-default.html (per Region; a
             new volume is unencrypted unless asked or covered by it).
"""
from __future__ import annotations

from tests.policies.test_policy_review35f import AWS, NPI, TAGS, messages, verdict
from tests.policies.test_policy_review45 import ENC, NATIVE_TAGS, RET, exempt_notes
from tests.policy_fixtures import res
from tests.policy_harness import run
from trainstack_policies.model import UNKNOWN

AMI = "ami-0a1b2c3d4e5f60718"


def native_sg(name, ingress=(), egress=(), **p):
    props = {"groupDescription": f"{name} nodes", "vpcId": "vpc-0team", "tags": NATIVE_TAGS,
             **p}
    if ingress is not None:
        props["securityGroupIngress"] = ingress if ingress is UNKNOWN else list(ingress)
    if egress:
        props["securityGroupEgress"] = list(egress)
    return res("aws-native:ec2:SecurityGroup", name, props)


def rule(proto="tcp", port=443, **p):
    out = {"ipProtocol": proto, **p}
    if port is not None:
        lo, hi = port if isinstance(port, tuple) else (port, port)
        out.update(fromPort=lo, toPort=hi)
    return out


def native_in(name, group, proto="tcp", port=443, **p):
    return res("aws-native:ec2:SecurityGroupIngress", name,
               {"groupId": "sg-id", **rule(proto, port, **p)}, deps={"groupId": [group]})


def npi(pack, stack, config=None):
    found = run(pack, stack, config, provider=AWS)
    return verdict(found, NPI), messages(found, NPI)


# ============================================== no-public-ingress: aws-native SecurityGroup

def test_native_sg_all_protocols_world_fails(pack):
    """Inline ingress ipProtocol "-1" (all traffic [CFN-SG]) from 0.0.0.0/0: world-open on
    every port. Expect: fail, the message says all ports."""
    v, m = npi(pack, [native_sg("a1-sg", [rule("-1", None, cidrIp="0.0.0.0/0")])])
    assert v == "fail", m
    assert "all ports" in str(m), m


def test_native_sg_ipv6_world_ssh_fails_without_ssh_cidrs(pack):
    """Inline tcp 22 from cidrIpv6 ::/0, sshCidrs empty. Expect: fail."""
    v, m = npi(pack, [native_sg("a2-sg", [rule(port=22, cidrIpv6="::/0")])])
    assert v == "fail", m


def test_native_sg_world_ssh_allowed_by_ssh_cidrs(pack):
    """Inline tcp 22-22 from 0.0.0.0/0 with sshCidrs ["0.0.0.0/0"]: the one allowed world
    source. Expect: pass."""
    v, m = npi(pack, [native_sg("a3-sg", [rule(port=22, cidrIp="0.0.0.0/0")])],
               {NPI: {"sshCidrs": ["0.0.0.0/0"]}})
    assert v == "pass", m


def test_native_sg_world_port_range_holding_22_not_ssh_only(pack):
    """Inline tcp 20-23 from 0.0.0.0/0 with sshCidrs ["0.0.0.0/0"]: more than SSH. Expect:
    fail."""
    v, m = npi(pack, [native_sg("a4-sg", [rule(port=(20, 23), cidrIp="0.0.0.0/0")])],
               {NPI: {"sshCidrs": ["0.0.0.0/0"]}})
    assert v == "fail", m


def test_native_sg_private_sources_and_prefix_list_pass(pack):
    """Inline tcp 443 from 10.0.0.0/8, and a rule naming only a prefix list (a literal pl-
    id, judged where the list is declared) and one naming a security group. Expect: pass."""
    v, m = npi(pack, [native_sg("a5-sg", [
        rule(cidrIp="10.0.0.0/8"), rule(sourcePrefixListId="pl-0a1b2c3d4e5f60718"),
        rule("-1", None, sourceSecurityGroupId="sg-0a1b2c3d4e5f60718")])])
    assert v == "pass", m


def test_native_sg_world_egress_opens_nothing(pack):
    """No ingress; securityGroupEgress -1 to 0.0.0.0/0 (the default egress). Expect: pass."""
    v, m = npi(pack, [native_sg("a6-sg", None, [rule("-1", None, cidrIp="0.0.0.0/0")])])
    assert v == "pass", m


def test_native_sg_ingress_unknown_is_undecided(pack):
    """securityGroupIngress unknown at preview: any rule may be world-open. Expect:
    undecided."""
    v, m = npi(pack, [native_sg("a7-sg", UNKNOWN)])
    assert v == "undecided", m


def test_native_sg_rule_cidr_unknown_is_undecided(pack):
    """One inline rule whose cidrIp is unknown at preview (tcp 443). Expect: undecided."""
    v, m = npi(pack, [native_sg("a8-sg", [rule(cidrIp=UNKNOWN)])])
    assert v == "undecided", m


def test_native_sg_one_world_rule_among_private_fails(pack):
    """Two inline rules, 10.0.0.0/8 tcp 443 and 0.0.0.0/0 udp 4789: the second opens the
    group. Expect: fail."""
    v, m = npi(pack, [native_sg("a9-sg", [rule(cidrIp="10.0.0.0/8"),
                                           rule("udp", 4789, cidrIp="0.0.0.0/0")])])
    assert v == "fail", m


# ============================================== no-public-ingress: aws-native SecurityGroupIngress

def test_native_ingress_all_traffic_world_fails(pack):
    """SecurityGroupIngress ipProtocol "-1" cidrIp 0.0.0.0/0 [CFN-SGI]. Expect: fail."""
    g = native_sg("b1-sg")
    v, m = npi(pack, [g, native_in("b1-in", g, "-1", None, cidrIp="0.0.0.0/0")])
    assert v == "fail", m


def test_native_ingress_private_source_passes(pack):
    """SecurityGroupIngress tcp 443 cidrIp 172.16.0.0/12. Expect: pass."""
    g = native_sg("b2-sg")
    v, m = npi(pack, [g, native_in("b2-in", g, cidrIp="172.16.0.0/12")])
    assert v == "pass", m


def test_native_ingress_source_unknown_is_undecided(pack):
    """SecurityGroupIngress tcp 443 whose cidrIp is unknown at preview. Expect: undecided."""
    g = native_sg("b3-sg")
    v, m = npi(pack, [g, native_in("b3-in", g, cidrIp=UNKNOWN)])
    assert v == "undecided", m


def test_native_ingress_ssh_world_allowed_by_ssh_cidrs(pack):
    """SecurityGroupIngress tcp 22 cidrIpv6 ::/0, sshCidrs ["::/0"]. Expect: pass."""
    g = native_sg("b4-sg")
    v, m = npi(pack, [g, native_in("b4-in", g, port=22, cidrIpv6="::/0")],
               {NPI: {"sshCidrs": ["::/0"]}})
    assert v == "pass", m


def test_native_ingress_halves_split_across_rules_fail(pack):
    """Two SecurityGroupIngress on one aws-native group, cidrIp 0.0.0.0/1 and 128.0.0.0/1, tcp
    443: together every IPv4 address (the twin of the classic split rules). Expect: fail."""
    g = native_sg("b5-sg")
    v, m = npi(pack, [g, native_in("b5-lo", g, cidrIp="0.0.0.0/1"),
                      native_in("b5-hi", g, cidrIp="128.0.0.0/1")])
    assert v == "fail", m


def test_native_prefix_list_holding_world_fails(pack):
    """aws-native:ec2:PrefixList entries 10.0.0.0/8 and 0.0.0.0/0 [CFN-PL], and an ingress rule
    whose sourcePrefixListId depends on it. Expect: fail."""
    pl = res("aws-native:ec2:PrefixList", "b6-pl", {
        "prefixListName": "partners", "addressFamily": "IPv4", "maxEntries": 5,
        "entries": [{"cidr": "10.0.0.0/8"}, {"cidr": "0.0.0.0/0"}], "tags": NATIVE_TAGS})
    g = native_sg("b6-sg")
    r = res("aws-native:ec2:SecurityGroupIngress", "b6-in", {
        "groupId": "sg-id", **rule(sourcePrefixListId="pl-id")},
        deps={"groupId": [g], "sourcePrefixListId": [pl]})
    v, m = npi(pack, [pl, g, r])
    assert v == "fail", m


def test_native_prefix_list_of_private_entries_passes(pack):
    """aws-native:ec2:PrefixList with 10.0.0.0/8 and 192.168.0.0/16 only. Expect: pass."""
    pl = res("aws-native:ec2:PrefixList", "b7-pl", {
        "prefixListName": "corp", "addressFamily": "IPv4", "maxEntries": 5,
        "entries": [{"cidr": "10.0.0.0/8"}, {"cidr": "192.168.0.0/16"}], "tags": NATIVE_TAGS})
    v, m = npi(pack, [pl])
    assert v == "pass", m


# ============================================== encryption-at-rest: aws-native EBS

def native_volume(name, **p):
    return res("aws-native:ec2:Volume", name, {"availabilityZone": "us-east-1a", "size": 500,
                                               "volumeType": "gp3", "tags": NATIVE_TAGS, **p})


def ebs_default(enabled=True):
    return res("aws:ebs/encryptionByDefault:EncryptionByDefault", "ebs-default",
               {"enabled": enabled})


def enc(pack, stack):
    found = run(pack, stack, provider=AWS)
    return verdict(found, ENC), messages(found, ENC)


def native_lt(name, mappings):
    return res("aws-native:ec2:LaunchTemplate", name, {"launchTemplateData": {
        "instanceType": "p4d.24xlarge", "imageId": AMI, "blockDeviceMappings": mappings}})


def test_native_volume_encryption_unset_fails(pack):
    """aws-native Volume with encrypted unset, no snapshot, no default encryption [EBS-ENC].
    Expect: fail."""
    v, m = enc(pack, [native_volume("c1-data")])
    assert v == "fail", m


def test_native_volume_encrypted_passes(pack):
    """encrypted true. Expect: pass."""
    v, m = enc(pack, [native_volume("c2-data", encrypted=True)])
    assert v == "pass", m


def test_native_volume_under_default_encryption_passes(pack):
    """encrypted unset beside aws:ebs/encryptionByDefault enabled in the same region
    (us-east-1). Expect: pass."""
    v, m = enc(pack, [ebs_default(), native_volume("c3-data")])
    assert v == "pass", m


def test_native_volume_false_under_default_encryption_in_other_region_fails(pack):
    """encrypted false; the default encryption is under a us-west-2 provider [EBS-ENC: per
    Region]. Expect: fail."""
    d = ebs_default()
    d.provider = {"region": "us-west-2"}
    v, m = enc(pack, [d, native_volume("c4-data", encrypted=False)])
    assert v == "fail", m


def test_native_volume_from_snapshot_takes_its_encryption(pack):
    """encrypted unset, snapshotId set: the volume takes the snapshot's encryption. Expect:
    pass."""
    v, m = enc(pack, [native_volume("c5-data", snapshotId="snap-0a1b2c3d4e5f60718")])
    assert v == "pass", m


def test_native_volume_encrypted_unknown_is_undecided(pack):
    """encrypted unknown at preview. Expect: undecided."""
    v, m = enc(pack, [native_volume("c6-data", encrypted=UNKNOWN)])
    assert v == "undecided", m


def test_native_template_encrypted_and_ephemeral_pass(pack):
    """aws-native LaunchTemplate: one EBS mapping encrypted true, one instance-store mapping
    (virtualName ephemeral0, no ebs). Expect: pass."""
    v, m = enc(pack, [native_lt("c7-lt", [
        {"deviceName": "/dev/xvdb", "ebs": {"volumeSize": 2000, "encrypted": True}},
        {"deviceName": "/dev/xvdc", "virtualName": "ephemeral0"}])])
    assert v == "pass", m


def test_native_template_unset_fails(pack):
    """One EBS mapping with encrypted unset, no default encryption. Expect: fail."""
    v, m = enc(pack, [native_lt("c8-lt", [{"deviceName": "/dev/xvdb",
                                            "ebs": {"volumeSize": 2000}}])])
    assert v == "fail", m


def test_native_template_under_default_encryption_passes(pack):
    """The same unset mapping beside EBS encryption by default in us-east-1. Expect: pass."""
    v, m = enc(pack, [ebs_default(), native_lt("c9-lt", [
        {"deviceName": "/dev/xvdb", "ebs": {"volumeSize": 2000}}])])
    assert v == "pass", m


def test_native_template_mappings_unknown_is_undecided(pack):
    """launchTemplateData.blockDeviceMappings unknown at preview. Expect: undecided."""
    v, m = enc(pack, [native_lt("c10-lt", UNKNOWN)])
    assert v == "undecided", m


def test_native_instance_unset_data_volume_fails(pack):
    """aws-native Instance with blockDeviceMappings [{/dev/sdf, ebs {volumeSize 1000}}]
    (encrypted unset) [CFN-EC2]. Expect: fail."""
    i = res("aws-native:ec2:Instance", "c11", {
        "imageId": AMI, "instanceType": "g5.12xlarge", "subnetId": "subnet-0a1b2c3d",
        "tags": NATIVE_TAGS, "blockDeviceMappings": [
            {"deviceName": "/dev/sdf", "ebs": {"volumeSize": 1000, "volumeType": "gp3"}}]})
    v, m = enc(pack, [i])
    assert v == "fail", m


def test_native_instance_encrypted_volume_passes(pack):
    """The same instance with ebs.encrypted true. Expect: pass."""
    i = res("aws-native:ec2:Instance", "c12", {
        "imageId": AMI, "instanceType": "g5.12xlarge", "subnetId": "subnet-0a1b2c3d",
        "tags": NATIVE_TAGS, "blockDeviceMappings": [
            {"deviceName": "/dev/sdf", "ebs": {"volumeSize": 1000, "encrypted": True}}]})
    v, m = enc(pack, [i])
    assert v == "pass", m


# ============================================== bucket-retained: aws-native S3 bucket

def native_bucket(name, tags=None, protect=False, **p):
    b = res("aws-native:s3:Bucket", name, {"bucketName": f"{name}-ml-7f3a",
                                           "tags": NATIVE_TAGS if tags is None else tags, **p})
    b.protect = protect
    return b


def ret(pack, stack, provider=AWS):
    found = run(pack, stack, provider=provider)
    return verdict(found, RET), messages(found, RET), found


def test_native_bucket_protected_passes(pack):
    """protect (in the request's resource options). Expect: pass."""
    v, m, _ = ret(pack, [native_bucket("d1-data", protect=True)])
    assert v == "pass", m


def test_native_bucket_retain_tag_passes(pack):
    """Own tags [{key: trainstack:retain, value: "true"}, ...] [CFN-S3]. Expect: pass (the
    pack cannot see retainOnDelete; the marker stands for it, as on the classic bucket)."""
    v, m, _ = ret(pack, [native_bucket("d2-data", NATIVE_TAGS + [
        {"key": "trainstack:retain", "value": "true"}])])
    assert v == "pass", m


def test_native_bucket_retain_tag_false_fails(pack):
    """trainstack:retain = "false". Expect: fail."""
    v, m, _ = ret(pack, [native_bucket("d3-data", NATIVE_TAGS + [
        {"key": "trainstack:retain", "value": "false"}])])
    assert v == "fail", m


def test_native_bucket_tags_unknown_is_undecided(pack):
    """No protect, tags unknown at preview (the marker may be among them). Expect:
    undecided."""
    v, m, _ = ret(pack, [native_bucket("d4-data", UNKNOWN)])
    assert v == "undecided", m


def test_native_bucket_retain_in_default_tags_only_fails(pack):
    """The marker only in the provider's defaultTags: it counts only on the bucket itself.
    Expect: fail."""
    b = native_bucket("d5-data")
    b.provider = {"region": "us-east-1",
                  "defaultTags": {"tags": {"trainstack:retain": "true"}}}
    v, m, _ = ret(pack, [b])
    assert v == "fail", m


def test_native_bucket_policy_skip_tag_exempts(pack):
    """An unprotected scratch bucket tagged trainstack:policy-skip bucket-retained. Expect:
    pass, one exempt note."""
    v, m, found = ret(pack, [native_bucket("d6-scratch", NATIVE_TAGS + [
        {"key": "trainstack:policy-skip", "value": "bucket-retained"}])])
    assert v == "pass", m
    assert exempt_notes(found, RET), found


# ============================================== rdma-for-multinode: the catalog's EFA reach
#
# [EFA] docs.aws.amazon.com/AWSEC2/latest/UserGuide/efa-acc-inst-types.html and efa.html
# "Supported instance types" (accelerated computing): G4dn g4dn.8xlarge, 12xlarge, 16xlarge
# (and metal); G5 g5.8xlarge-48xlarge; G6 g6.8xlarge-48xlarge; G6e g6e.8xlarge-48xlarge (G6e:
# up to four network cards, 400 Gbps); Gr6 gr6.8xlarge; P3dn; P4d; P4de; P5; P5en; P6. The
# smaller sizes (g5.4xlarge, g6.4xlarge, g4dn.4xlarge) are not listed. Machine-readable twin:
# eksctl pkg/utils/instance/instance_types.go EFASupported (EC2 DescribeInstanceTypes).

EFA_LISTED = ("g4dn.8xlarge", "g4dn.12xlarge", "g4dn.16xlarge", "g5.8xlarge", "g5.12xlarge",
              "g5.16xlarge", "g5.24xlarge", "g5.48xlarge", "g6.8xlarge", "g6.12xlarge",
              "g6.16xlarge", "g6.24xlarge", "g6.48xlarge", "g6e.8xlarge", "g6e.12xlarge",
              "g6e.16xlarge", "g6e.24xlarge", "g6e.48xlarge", "gr6.8xlarge", "p3dn.24xlarge",
              "p4d.24xlarge", "p4de.24xlarge", "p5.48xlarge", "p5en.48xlarge",
              "p6-b200.48xlarge", "p6-b300.48xlarge")
NOT_LISTED = ("g4dn.xlarge", "g4dn.4xlarge", "g5.xlarge", "g5.4xlarge", "g6.4xlarge",
              "g6e.4xlarge", "gr6.4xlarge")
RDMA = "rdma-for-multinode"


def test_pack_catalog_marks_every_listed_efa_type():
    """Every AWS type [EFA] lists is an EFA row of the pack's catalog (fabric efa, rdma, at
    least one EFA card); the unlisted smaller sizes are not."""
    from trainstack_policies import catalog
    for name in EFA_LISTED:
        t = catalog.instance_type("aws", name)
        assert t is not None and t.fabric == "efa" and t.rdma and t.rdma_nics >= 1, (name, t)
    for name in NOT_LISTED:
        t = catalog.instance_type("aws", name)
        assert t is not None and not t.rdma, (name, t)
    assert catalog.instance_type("aws", "g6e.48xlarge").rdma_nics == 4   # [EFA] G6e: 4 cards


def _group(label, itype, size, nics, placed):
    from tests.policies.test_policy_review45 import placed_asg
    return placed_asg(label, itype, size, nics, strategy="cluster" if placed else None)


def _rdma(pack, stack, level=None):
    found = run(pack, stack, {RDMA: level} if level else None, provider=AWS)
    return verdict(found, RDMA), messages(found, RDMA), found


def test_g5_48xlarge_group_without_efa_fails_when_mandatory(pack):
    """2 x g5.48xlarge, one plain interface, no placement group, rdma-for-multinode mandatory:
    an EFA-capable type [EFA] in a multi-node group that uses neither EFA nor a cluster
    placement. Expect: fail."""
    from tests.policies.test_policy_review45 import plain_nics
    v, m, _ = _rdma(pack, _group("f1", "g5.48xlarge", 2, plain_nics(), False), "mandatory")
    assert v == "fail", m


def test_p3dn_group_without_efa_fails_when_mandatory(pack):
    """3 x p3dn.24xlarge, plain interface, cluster placement group: placed, but EFA [EFA:
    P3dn] unused. Expect: fail."""
    from tests.policies.test_policy_review45 import plain_nics
    v, m, _ = _rdma(pack, _group("f2", "p3dn.24xlarge", 3, plain_nics(), True), "mandatory")
    assert v == "fail", m


def test_g4dn_12xlarge_group_without_efa_is_flagged(pack):
    """2 x g4dn.12xlarge, plain interface, no placement (advisory by default). Expect:
    flagged."""
    from tests.policies.test_policy_review45 import flagged, plain_nics
    found = run(pack, _group("f3", "g4dn.12xlarge", 2, plain_nics(), False), provider=AWS)
    assert flagged(found, RDMA), messages(found, RDMA)


def test_g5_48xlarge_group_with_efa_and_cluster_placement_passes(pack):
    """2 x g5.48xlarge, one EFA interface (its one network card), cluster placement group.
    Expect: not flagged."""
    from tests.policies.test_policy_review45 import efa_nics, flagged
    found = run(pack, _group("f4", "g5.48xlarge", 2, efa_nics(1), True), provider=AWS)
    assert not flagged(found, RDMA), messages(found, RDMA)


def test_g6e_48xlarge_one_efa_of_four_cards_is_flagged(pack):
    """2 x g6e.48xlarge with one EFA interface, cluster placement: G6e has four network cards
    [EFA], one interface leaves three unused. Expect: flagged."""
    from tests.policies.test_policy_review45 import efa_nics, flagged
    found = run(pack, _group("f5", "g6e.48xlarge", 2, efa_nics(1), True), provider=AWS)
    assert flagged(found, RDMA), messages(found, RDMA)


def test_g6e_48xlarge_four_efa_with_placement_passes(pack):
    """The same group with four EFA interfaces. Expect: not flagged."""
    from tests.policies.test_policy_review45 import efa_nics, flagged
    found = run(pack, _group("f6", "g6e.48xlarge", 2, efa_nics(4), True), provider=AWS)
    assert not flagged(found, RDMA), messages(found, RDMA)


def test_g5_4xlarge_group_is_not_asked_for_efa(pack):
    """4 x g5.4xlarge, plain interface, no placement: not in [EFA]'s list, so no fabric to
    use. Expect: not flagged."""
    from tests.policies.test_policy_review45 import flagged, plain_nics
    found = run(pack, _group("f7", "g5.4xlarge", 4, plain_nics(), False), provider=AWS)
    assert not flagged(found, RDMA), messages(found, RDMA)


def _spread(label, itype, size, zones):
    """An ASG of `size` x `itype` over one subnet per zone, plain interface, no placement."""
    from tests.policies.test_policy_review35f import asg, subnet
    from tests.policies.test_policy_review45 import gpu_lt, plain_nics
    subnets = [subnet(f"{label}-sn{z}", f"us-east-1{z}") for z in zones]
    t = gpu_lt(f"{label}-lt", itype, plain_nics())
    return [*subnets, t, asg(label, t, subnets, size)]


def test_inference_size_spread_over_zones_is_not_asked_for_efa(pack):
    """3 x g5.12xlarge (4 GPUs, EFA-capable) over us-east-1a/b/c: an inference group spread for
    availability. A cluster placement group is one Availability Zone's and EFA traffic does not
    leave the AZ [PG, EFA], so the spread group has no fabric to share (docs: an HA group is
    spread across zones on purpose). Expect: not flagged."""
    from tests.policies.test_policy_review45 import flagged
    found = run(pack, _spread("f8", "g5.12xlarge", 3, "abc"), provider=AWS)
    assert not flagged(found, RDMA), messages(found, RDMA)


def test_inference_size_in_one_zone_is_asked_for_efa(pack):
    """The same 3 x g5.12xlarge in us-east-1a only. Expect: flagged."""
    from tests.policies.test_policy_review45 import flagged
    found = run(pack, _spread("f9", "g5.12xlarge", 3, "a"), provider=AWS)
    assert flagged(found, RDMA), messages(found, RDMA)


def test_eight_gpu_group_spread_over_zones_still_flagged(pack):
    """2 x g5.48xlarge (8 GPUs, a training size) over us-east-1a/b, no EFA, no placement: not
    excused as an inference spread. Expect: flagged."""
    from tests.policies.test_policy_review45 import flagged
    found = run(pack, _spread("f10", "g5.48xlarge", 2, "ab"), provider=AWS)
    assert flagged(found, RDMA), messages(found, RDMA)
