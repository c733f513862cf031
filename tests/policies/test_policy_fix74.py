"""fix74: review74's DEFECT 1, a storage-same-zone `zones` value written as an AWS AZ ID, and its
neighbours, over gRPC as `pulumi preview --policy-pack policies` drives the pack
(tests/policy_harness.py), on review74's AWS cluster (ASG of 2 p5.48xlarge on subnet train-a in
us-east-1a, its launch template mounting the FSx `scratch` on train-a and the bucket `datasets`).

docs/policies.md (storage-same-zone): an AZ ID "compared with AZ IDs ... decides, same or not;
compared with a zone name it is 'cannot decide', since which name an AZ ID has differs from one
AWS account to another" (docs.aws.amazon.com/ram/latest/userguide/working-with-az-ids.html). An
AZ ID is a region code, "-az" and digits (use1-az4, usw2-az1, apne1-az4); a Local Zone's ID adds
the zone's code (use1-bos1-az1). A value of that form in the `zones` config is an AZ ID; any other
value is a zone name, compared as before (a typo such as "banana" is refused: fix75).
"""
from __future__ import annotations

from typing import Optional

import pytest

from tests.policies.test_policy_review74 import (
    LIT_FS,
    SSZ,
    TAGS,
    ZONES,
    _add,
    _chain,
    _mount,
    _run_case,
    asg_subnets,
    aws_vm,
    literal_fsx_userdata,
    named,
)
from tests.policy_fixtures import res


def _id_only(subnet: str, az_id: str):
    """The stack's subnet given only its AZ ID (aws.ec2.Subnet takes the name or the ID)."""
    def mutate(s):
        p = named(s, subnet).props
        p.pop("availabilityZone", None)
        p["availabilityZoneId"] = az_id
        return s
    return mutate


def _express(az_id: str):
    """An S3 Express One Zone directory bucket in `az_id` (its location names an AZ ID) that the
    GPU launch template's user data reads."""
    return _chain(_add(lambda s: res("aws:s3/directoryBucket:DirectoryBucket", "express", {
        "bucket": f"ckpt--{az_id}--x-s3", "location": {"name": az_id, "type": "AvailabilityZone"},
        "dataRedundancy": "SingleAvailabilityZone", "type": "Directory", "forceDestroy": False,
        "tags": dict(TAGS)})), _mount("train-lt", "express"))


def _fsx_literal(s):
    """The FSx on a literal subnet id the stack does not create (no subnet of the stack behind)."""
    fs = named(s, "scratch")
    fs.props["subnetIds"] = ["subnet-0fs"]
    fs.deps.pop("subnetIds", None)
    return s


LIT = asg_subnets("train-nodes", ["subnet-0lit"])   # the group on a literal subnet only
MIXED = asg_subnets("train-nodes", ["subnet-0lit"], keep=True)   # beside its stack subnet


def _case(cid: str, mutate, want: Optional[str], told: dict, why: str, msg: tuple = ()):
    expect: dict = {SSZ: want} if want else {}
    if msg:
        expect["_msg"] = {SSZ: list(msg)}
    return (cid, "aws", {}, mutate, expect, ZONES(told), why)


NAME_VS_ID = "which zone name an AZ ID has differs"
CASES = [
    # -- a literal subnet told an AZ ID, against a subnet of the stack given only its AZ ID
    _case("n01", _chain(LIT, _id_only("train-a", "use1-az4")), None,
          {"subnet-0lit": "use1-az4"},
          "group told use1-az4, the FSx on an ID-only use1-az4 subnet: the same AZ ID, pass"),
    _case("n02", _chain(LIT, _id_only("train-a", "use1-az6")), "fail",
          {"subnet-0lit": "use1-az4"},
          "group told use1-az4, the FSx on an ID-only use1-az6 subnet: two AZ IDs, fail",
          ("not in the GPU nodes' zone", "use1-az4", "use1-az6")),
    _case("n03", LIT, "undecided", {"subnet-0lit": "usw2-az1"},
          "review74 a32 with another AZ ID (usw2-az1, another region's): an AZ ID against the "
          "FSx subnet's name us-east-1a is never compared as a name", (NAME_VS_ID,)),
    _case("n04", LIT, "undecided", {"subnet-0lit": "use1-bos1-az1"},
          "a Local Zone's AZ ID (use1-bos1-az1) against the name us-east-1a: cannot decide",
          (NAME_VS_ID,)),
    # -- told AZ ID against an S3 Express directory bucket's AZ ID
    _case("n05", _chain(LIT, _id_only("train-a", "use1-az4"), _express("use1-az4")), None,
          {"subnet-0lit": "use1-az4"},
          "group told use1-az4 reads a use1-az4 directory bucket (the FSx on an ID-only "
          "use1-az4 subnet): pass"),
    _case("n06", _chain(LIT, _id_only("train-a", "use1-az4"), _express("use1-az6")), "fail",
          {"subnet-0lit": "use1-az4"},
          "group told use1-az4 reads a use1-az6 directory bucket: another AZ ID, fail (the FSx "
          "passes)", ("directory bucket", "use1-az6")),
    _case("n07", _chain(LIT, _express("use1-az4")), "undecided", {"subnet-0lit": "us-east-1a"},
          "group told the NAME us-east-1a (the FSx there: pass) reads a use1-az4 directory "
          "bucket: a name against an AZ ID, cannot decide"),
    # -- a literal FSx told an AZ ID
    _case("n08", _chain(literal_fsx_userdata(), _id_only("train-a", "use1-az4")), None,
          {LIT_FS: "use1-az4"}, "literal FSx told use1-az4, the nodes on an ID-only use1-az4 "
          "subnet: pass"),
    _case("n09", _chain(literal_fsx_userdata(), _id_only("train-a", "use1-az4")), "fail",
          {LIT_FS: "use1-az6"}, "literal FSx told use1-az6, the nodes on use1-az4: fail",
          (LIT_FS, "use1-az6")),
    # -- spans: an instance on a literal subnet told an AZ ID beside the group
    _case("n10", _chain(_id_only("train-a", "use1-az4"), aws_vm(az=None, subnet_lit="subnet-0dev")),
          None, {"subnet-0dev": "use1-az4"},
          "a g6.xlarge on a literal subnet told use1-az4 beside the group on an ID-only use1-az4 "
          "subnet, both mounting the FSx there: one zone, pass"),
    _case("n11", _chain(_id_only("train-a", "use1-az4"), aws_vm(az=None, subnet_lit="subnet-0dev")),
          "fail", {"subnet-0dev": "use1-az6"},
          "the same instance told use1-az6: use1-az4 and use1-az6, the nodes span two zones",
          ("span more than one zone",)),
    # -- a literal id beside the stack's own subnet (the count rule), told an AZ ID
    _case("n12", _chain(MIXED, _id_only("train-a", "use1-az4")), None,
          {"subnet-0lit": "use1-az4"},
          "the group on its ID-only use1-az4 subnet and a literal one told use1-az4: pass"),
    _case("n13", MIXED, "undecided", {"subnet-0lit": "use1-az4"},
          "the group on its us-east-1a subnet and a literal one told use1-az4: a name beside an "
          "AZ ID, cannot decide (not a span)", (NAME_VS_ID,)),
    # -- the FSx on a literal subnet told an AZ ID
    _case("n18", _fsx_literal, "undecided", {"subnet-0fs": "use1-az4"},
          "the FSx's literal subnet told use1-az4, the nodes on the name us-east-1a: cannot "
          "decide", (NAME_VS_ID,)),
    _case("n19", _chain(_fsx_literal, _id_only("train-a", "use1-az4")), None,
          {"subnet-0fs": "use1-az4"}, "the same, the nodes' subnet given only use1-az4: pass"),
    _case("n20", _chain(_fsx_literal, _id_only("train-a", "use1-az4")), "fail",
          {"subnet-0fs": "use1-az6"}, "told use1-az6, the nodes on use1-az4: fail",
          ("not in the GPU nodes' zone", "use1-az6")),
    # -- told names: unchanged
    _case("n14", LIT, None, {"subnet-0lit": "us-east-1a"}, "told the name us-east-1a: pass"),
    _case("n15", LIT, "fail", {"subnet-0lit": "us-east-1b"}, "told us-east-1b: fail",
          ("not in the GPU nodes' zone", "us-east-1b")),
    # (n16, "banana" read as a zone name and failing, went with fix75: the schema now refuses a
    # value of neither form, tests/policies/test_policy_fix75.py)
    _case("n17", literal_fsx_userdata(), "fail", {LIT_FS: "us-east-1b"},
          "literal FSx told the name us-east-1b, nodes in us-east-1a: fail"),
]


@pytest.mark.parametrize("case", [pytest.param(c, id=c[0]) for c in CASES])
def test_zones_config_az_id(pack, case):
    _run_case(pack, case)
