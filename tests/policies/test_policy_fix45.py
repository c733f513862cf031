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
