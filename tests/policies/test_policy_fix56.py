"""fix56: the two false alarms the blind review tests/policies/test_policy_review56.py found (issue
35, its "DEFECT 1" and "DEFECT 2"), each test written and run failing before its fix. Over gRPC,
as `pulumi preview --policy-pack` drives the pack (tests/policy_harness.py), on review56's own
clusters (its module docstring gives their estimates by hand).

Fix 1 (storage-same-zone). An AWS filesystem placed by a subnet id unknown at preview (the list
or an entry of it) with no subnet of the stack behind it (a stack reference) has its zone read
only at apply: "cannot decide" naming `subnetIds`, at the configured cannotDecide level (docs,
storage-same-zone: "A value unknown at preview for one filesystem or bucket is 'cannot decide'"),
as the GCP, Azure and Alibaba filesystems already were, not the mandatory "the filesystem's zone
cannot be read", which no `zones` entry can clear. FSx for Lustre and FSx for OpenZFS (SINGLE_AZ)
are the two AWS filesystems the pack places by subnetIds; a MULTI_AZ OpenZFS is reachable from
every zone of its region, so it has no zone to compare. Controls: the same unknown id behind a
stack subnet is read through that subnet (us-east-1b: a violation), and a known violation of
another filesystem still stands beside the unknown one.

Fix 2 (spend-limit, rdma-for-multinode). A guestAccelerators entry whose count alone is unknown
at preview is an entry "unknown at preview" (docs, Scope): on a machine series that cannot take
attached GPUs (E2, N2, C2, the N1 shared-core f1-micro / g1-small) it adds none; on N1 (and a
machine unknown at preview) it still counts as at least one GPU, which cannot be priced (spend
fails closed, "attached nvidia-tesla-t4 GPUs whose count is unknown until apply"). The GCP
cluster's estimate is 24,990.99 USD against its 30,000 budget (review56), so a VM that adds no
GPU leaves spend-limit passing; one read as GPU capacity of no price fails it closed.
"""
from __future__ import annotations

from typing import Any

import pytest

from tests.policies.test_policy_review56 import (
    LABELS,
    POLICIES,
    RDMA,
    SPEND,
    SSZ,
    TAGS,
    _fs_literal,
    _fs_whole_unknown,
    _lt,
    aws,
    gcp,
    named,
    verdicts,
)
from tests.policy_fixtures import res
from trainstack_policies.model import UNKNOWN


def _expect(pack, cloud: str, stack: list, want: dict, config=None) -> list:
    got, found = verdicts(pack, stack, cloud, config)
    assert got == {p: want.get(p, "pass") for p in POLICIES}, \
        [(d.policy, d.level, d.message[:300]) for d in found]
    return found


def _ssz(found: list) -> list:
    return [d for d in found if d.policy == SSZ]


# ===================================================================== fix 1: storage-same-zone

def _openzfs(s: list, kind: str, subnets: Any, deps: Any = None) -> list:
    """An FSx for OpenZFS the GPU nodes mount (their launch template's user data depends on it)."""
    fs = res("aws:fsx/openZfsFileSystem:OpenZfsFileSystem", "home",
             {"deploymentType": kind, "subnetIds": subnets, "storageCapacity": 64.0,
              "throughputCapacity": 160.0, "tags": dict(TAGS)},
             deps={"subnetIds": deps} if deps else {})
    _lt(s).deps["userData"].append(fs)
    return s + [fs]


def _subnet_b(s: list) -> Any:
    return res("aws:ec2/subnet:Subnet", "train-b", {"availabilityZone": "us-east-1b",
                                                    "vpcId": "vpc-1", "tags": dict(TAGS)})


@pytest.mark.parametrize("mutate", [lambda s: _fs_literal(s, UNKNOWN), _fs_whole_unknown],
                         ids=["entry", "whole-list"])
def test_1a_lustre_on_an_unread_subnet_cannot_decide(pack, mutate):
    """FSx for Lustre with subnetIds = [<unknown>] or <unknown>, no stack subnet behind it.
    Expect: storage-same-zone 'cannot decide' naming subnetIds, advisory (the default level);
    it was the mandatory 'the filesystem's zone cannot be read. Found: nothing'."""
    found = _expect(pack, "aws", mutate(aws()), {SSZ: "undecided"})
    (d,) = _ssz(found)
    assert d.level == "advisory" and "subnetIds" in d.message, d.message
    assert "zone cannot be read" not in d.message


def test_1b_at_the_configured_cannot_decide_level(pack):
    """cannotDecide: mandatory makes the same finding mandatory, still 'cannot decide'."""
    found = _expect(pack, "aws", _fs_literal(aws(), UNKNOWN), {SSZ: "undecided"},
                    {SSZ: {"cannotDecide": "mandatory"}})
    (d,) = _ssz(found)
    assert d.level == "mandatory" and "cannot decide" in d.message and "subnetIds" in d.message


@pytest.mark.parametrize("subnets", [[UNKNOWN], UNKNOWN], ids=["entry", "whole-list"])
def test_1c_single_az_openzfs_on_an_unread_subnet_cannot_decide(pack, subnets):
    """An FSx for OpenZFS SINGLE_AZ_1 (one subnet, one zone) on a subnet unknown at preview,
    mounted by the GPU nodes, beside the Lustre on their own subnet (same zone). Expect:
    'cannot decide' naming subnetIds, not 'the filesystem's zone cannot be read'."""
    found = _expect(pack, "aws", _openzfs(aws(), "SINGLE_AZ_1", subnets), {SSZ: "undecided"})
    (d,) = _ssz(found)
    assert "home" in d.message and "subnetIds" in d.message, d.message


def test_1d_multi_az_openzfs_on_unread_subnets_has_no_zone_control(pack):
    """MULTI_AZ_1 OpenZFS is reachable from every zone of its region (us-east-1, the provider's):
    its unknown subnets decide nothing. Expect: pass."""
    _expect(pack, "aws", _openzfs(aws(), "MULTI_AZ_1", [UNKNOWN, UNKNOWN]), {})


def test_1e_unknown_id_behind_a_stack_subnet_is_read_through_it_control(pack):
    """subnetIds = [<unknown>] depending on the stack's subnet in us-east-1b: the zone is that
    subnet's, us-east-1b, not the nodes' us-east-1a. Expect: fail (not cannot decide)."""
    s = aws()
    sub = _subnet_b(s)
    fs = named(s, "scratch")
    fs.props["subnetIds"] = [UNKNOWN]
    fs.deps["subnetIds"] = [sub]
    found = _expect(pack, "aws", s + [sub], {SSZ: "fail"})
    assert any("not in the GPU nodes' zone" in d.message and "us-east-1b" in d.message
               for d in _ssz(found)), [d.message for d in _ssz(found)]


def test_1f_a_known_violation_stands_beside_an_unread_subnet_control(pack):
    """Lustre on an unread subnet, and a SINGLE_AZ OpenZFS on the stack's subnet in us-east-1b:
    the OpenZFS is in the wrong zone whatever the Lustre's turns out to be. Expect: fail."""
    s = _fs_literal(aws(), UNKNOWN)
    sub = _subnet_b(s)
    found = _expect(pack, "aws", _openzfs(s, "SINGLE_AZ_1", ["subnet-b"], [sub]) + [sub],
                    {SSZ: "fail"})
    assert any(d.level == "mandatory" and "home" in d.message and "us-east-1b" in d.message
               for d in _ssz(found)), [d.message for d in _ssz(found)]


@pytest.mark.parametrize("kind", ["efs-one-zone", "s3-express"])
def test_1g_other_aws_zonal_storage_unknown_cannot_decide_control(pack, kind):
    """The other zonal AWS storage the pack reads, its zone unknown at preview: an EFS One Zone
    (availabilityZoneName) and an S3 Express One Zone directory bucket (location.name). Expect:
    'cannot decide' (already so before fix 1; guards the shared path)."""
    s = aws()
    if kind == "efs-one-zone":
        extra = res("aws:efs/fileSystem:FileSystem", "home",
                    {"availabilityZoneName": UNKNOWN, "encrypted": True, "tags": dict(TAGS)})
    else:
        extra = res("aws:s3/directoryBucket:DirectoryBucket", "home",
                    {"bucket": "home--use1-az4--x-s3", "forceDestroy": False,
                     "location": {"name": UNKNOWN, "type": "AvailabilityZone"}})
    _lt(s).deps["userData"].append(extra)
    found = _expect(pack, "aws", s + [extra], {SSZ: "undecided"})
    assert all("cannot decide" in d.message for d in _ssz(found))

