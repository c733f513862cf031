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


# ============================================================ fix 2: unknown count, no N1 machine

T4_UNKNOWN = [{"type": "nvidia-tesla-t4", "count": UNKNOWN}]


def _vm(machine: Any, accels: Any = None) -> Any:
    return res("gcp:compute/instance:Instance", "debug-vm",
               {"zone": "us-west1-c", "machineType": machine,
                "guestAccelerators": T4_UNKNOWN if accels is None else accels,
                "bootDisk": {"initializeParams": {"image": "debian-12"}},
                "networkInterfaces": [{"network": "train"}], "labels": dict(LABELS)})


@pytest.mark.parametrize("machine", ["c2-standard-8", "n2d-standard-4", "g1-small", "e2-micro"])
def test_2a_vm_of_a_series_that_takes_no_gpu_adds_none(pack, machine):
    """A VM of another series with guestAccelerators [{t4, count: <unknown>}]: no GPU node.
    Expect: every policy passes (spend: 24,990.99 < 30,000; the VM is never judged)."""
    _expect(pack, "gcp", gcp() + [_vm(machine)], {})


def test_2b_gke_pool_on_the_default_machine_adds_none(pack):
    """A GKE node pool naming no machineType runs GKE's default e2-medium; 2 nodes with
    guestAccelerators [{t4, count: <unknown>}]. Expect: pass (not GPU capacity)."""
    pool = res("gcp:container/nodePool:NodePool", "cpu-pool",
               {"location": "us-west1-c", "cluster": "gke", "nodeCount": 2.0,
                "nodeConfig": {"guestAccelerators": T4_UNKNOWN, "labels": dict(LABELS)}})
    _expect(pack, "gcp", gcp() + [pool], {})


def test_2c_n2_template_behind_a_mig_of_two_adds_none(pack):
    """An n2-standard-8 instance template with [{t4, count: <unknown>}] behind a 2-VM MIG in the
    cluster's zone. Expect: pass: spend not failed closed, rdma asks nothing of it (it asked for a
    placement construct and a fabric before)."""
    tpl = res("gcp:compute/instanceTemplate:InstanceTemplate", "cpu-tpl",
              {"machineType": "n2-standard-8", "guestAccelerators": T4_UNKNOWN,
               "networkInterfaces": [{"network": "train"}], "labels": dict(LABELS)})
    mig = res("gcp:compute/instanceGroupManager:InstanceGroupManager", "cpu-mig",
              {"zone": "us-west1-c", "targetSize": 2.0, "baseInstanceName": "cpu",
               "versions": [{"instanceTemplate": "cpu-tpl-id"}]}, deps={"versions": [tpl]})
    _expect(pack, "gcp", gcp() + [tpl, mig], {})


def test_2d_e2_reservation_adds_none(pack):
    """A reservation of 2 e2-standard-8 whose T4 acceleratorCount is unknown at preview (an E2
    cannot take one): CPU capacity, never judged. Expect: pass (it was GPU capacity that
    cannot be estimated: spend failed closed)."""
    r = res("gcp:compute/reservation:Reservation", "cpu-res",
            {"name": "cpu-res", "zone": "us-west1-c", "specificReservation": {
                "count": 2.0, "instanceProperties": {
                    "machineType": "e2-standard-8", "guestAccelerators": [
                        {"acceleratorType": "nvidia-tesla-t4", "acceleratorCount": UNKNOWN}]}}})
    _expect(pack, "gcp", gcp() + [r], {})


@pytest.mark.parametrize("machine", ["n1-standard-8", "custom-8-30720", UNKNOWN],
                         ids=["n1", "n1-custom", "machine-unknown"])
def test_2e_a_machine_that_may_take_gpus_still_fails_closed_control(pack, machine):
    """The same VM on an N1 machine (predefined or custom) or a machine unknown at preview: at
    least one T4 of unknown number, which has no price. Expect: spend fail naming the VM. rdma:
    an N1 machine with attached GPUs is not asked; a machine unknown at preview may have an RDMA
    fabric, beside the cluster's 2 nodes (GPU capacity of more than one node in total): cannot
    decide."""
    want = {SPEND: "fail", **({RDMA: "undecided"} if machine is UNKNOWN else {})}
    found = _expect(pack, "gcp", gcp() + [_vm(machine)], want)
    text = " ".join(d.message for d in found if d.policy == SPEND)
    assert "debug-vm" in text, text
    if machine == "n1-standard-8":
        assert "attached nvidia-tesla-t4 GPUs whose count is unknown until apply" in text, text


def test_2f_a_count_known_at_preview_still_declares_control(pack):
    """e2-standard-8 with guestAccelerators [{t4, count: 1}]: a declared accelerator, known at
    preview, is a GPU node (docs, Scope: 'that declares accelerators'); no catalog price for the
    E2 with a T4. Expect: spend fail (only what is unknown on such a machine adds none); rdma:
    a type outside instance_types.csv beside the cluster's 2 nodes, its fabric unknown: advisory."""
    found = _expect(pack, "gcp", gcp() + [_vm("e2-standard-8", [{"type": "nvidia-tesla-t4",
                                                                 "count": 1.0}])],
                    {SPEND: "fail", RDMA: "advisory"})
    assert "debug-vm" in " ".join(d.message for d in found if d.policy == SPEND)

