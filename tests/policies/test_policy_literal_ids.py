"""Issue 35, class g over gRPC: things outside the stack. A subnet / vSwitch / filesystem the
program names by a literal id, with no resource of the stack behind it, has a zone the program
does not hold. Expected verdicts, written before the code: "cannot decide" at storage-same-zone's
configured level (advisory by default, naming the id and the way out), mandatory where
`cannotDecide: mandatory`, and decided once the pack config's `zones` tells the id's zone (the
nodes' own zone passes, another zone fails). Where it applies: AWS (subnet ids, FSx DNS names in
user data) and Alibaba Cloud (vSwitch ids). GCP and Azure compute and filesystems carry their
zone as an input of their own (`zone`/`location`, `zones`), so a literal network or subnet id
there names no zone to read.
"""
from __future__ import annotations

import base64

import grpc
import pytest

from tests.policy_fixtures import alicloud_cluster, aws_cluster, find
from tests.policy_harness import run
from tests.policies.test_policy_abuse_unknowns import of

ALI = {"region": "eu-central-1"}
FSX_ID = "fs-0123456789abcdef0"
MOUNT = (f"#!/bin/bash\nmount -t lustre -o relatime,flock "
         f"{FSX_ID}.fsx.us-east-1.amazonaws.com@tcp:/abcdefgh /fsx\n")


def _storage(found):
    return [d for d in found if d.policy == "storage-same-zone"]


def _literal_vswitch(where: str):
    stack = alicloud_cluster()
    if where == "filesystem":
        cpfs = find(stack, "nas/fileSystem:FileSystem")
        del cpfs.props["zoneId"]
        cpfs.props["vswitchId"] = "vsw-0existing"
    else:
        for node in [r for r in stack if r.type == "alicloud:ecs/instance:Instance"]:
            node.props["vswitchId"] = "vsw-0existing"
            del node.deps["vswitchId"]
    return stack


def _literal_fsx(encoded: bool):
    """The AWS cluster mounting a Lustre made in another stack, named only in the user data."""
    stack = aws_cluster()
    fs = find(stack, "LustreFileSystem")
    stack.remove(fs)
    lt = find(stack, "LaunchTemplate")
    lt.props["userData"] = base64.b64encode(MOUNT.encode()).decode() if encoded else MOUNT
    lt.deps["userData"] = [d for d in lt.deps["userData"] if d is not fs]
    return stack


CASES = {
    # case: (stack builder, the literal id, its zone in the nodes' zone, another zone, provider)
    "aws-fsx-in-base64-user-data": (lambda: _literal_fsx(True), FSX_ID, "us-east-1a",
                                    "us-east-1b", None),
    "aws-fsx-in-plain-user-data": (lambda: _literal_fsx(False), FSX_ID, "us-east-1a",
                                   "us-east-1b", None),
    "alicloud-vswitch-of-the-nodes": (lambda: _literal_vswitch("group"), "vsw-0existing",
                                      "eu-central-1a", "eu-central-1b", ALI),
    "alicloud-vswitch-of-the-cpfs": (lambda: _literal_vswitch("filesystem"), "vsw-0existing",
                                     "eu-central-1a", "eu-central-1b", ALI),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_literal_id_is_cannot_decide_at_the_configured_level_until_told(pack, case):
    build, literal, same, other, provider = CASES[case]
    # By hand: the id is made outside the stack, so its zone is not in the program: advisory
    # "cannot decide" naming the id and the zones config (never a pass, never mandatory) ...
    found = _storage(run(pack, build(), provider=provider))
    assert of(found, "storage-same-zone", "mandatory") == []
    [note] = found
    assert note.level == "advisory" and literal in note.message
    assert "zones config" in note.message
    assert "until apply" not in note.message   # apply will not tell it; only the config can
    # ... mandatory where the policy's cannotDecide says so,
    [d] = of(run(pack, build(), {"storage-same-zone": {"cannotDecide": "mandatory"}},
                 provider=provider), "storage-same-zone", "mandatory")
    assert "cannot decide" in d.message and literal in d.message
    # and decided once told: in the nodes' zone it passes, in another zone it fails.
    told = {"storage-same-zone": {"zones": {literal: same}}}
    assert _storage(run(pack, build(), told, provider=provider)) == []
    told["storage-same-zone"]["zones"][literal] = other
    [d] = of(run(pack, build(), told, provider=provider), "storage-same-zone", "mandatory")
    assert other in d.message
    assert ("not in the GPU nodes' zone" in d.message or "span more than one zone" in d.message)


def test_the_stacks_own_fsx_named_by_its_known_dns_name_is_not_outside_the_stack(pack):
    # By hand: on an update preview the FSx's dnsName is known, so the user data built from it
    # names it literally and depends on it (one name, one FSx dependency): it is the stack's
    # own Lustre in the nodes' zone, so nothing to decide and no violation.
    stack = aws_cluster()
    find(stack, "LaunchTemplate").props["userData"] = MOUNT
    assert _storage(run(pack, stack)) == []
    # A second name beside the one dependency is a file system from elsewhere; which of the
    # two is the stack's own is not in the program, so both wait for the zones config.
    other = "fs-0fedcba9876543210"
    find(stack, "LaunchTemplate").props["userData"] = MOUNT + MOUNT.replace(FSX_ID, other)
    [note] = _storage(run(pack, stack))
    assert note.level == "advisory" and "zones config" in note.message
    told = {"storage-same-zone": {"zones": {FSX_ID: "us-east-1a", other: "us-east-1a"}}}
    assert _storage(run(pack, stack, told)) == []


def test_an_efs_name_in_user_data_is_not_a_lustre_outside_the_stack(pack):
    # By hand: EFS is regional (mountable from every zone); an EFS DNS name in the user data is
    # no zonal filesystem, so the stack (nodes and their own Lustre in us-east-1a) passes.
    stack = aws_cluster()
    lt = find(stack, "LaunchTemplate")
    lt.props["userData"] = "mount -t nfs4 fs-0123abcd.efs.us-east-1.amazonaws.com:/ /home\n"
    assert _storage(run(pack, stack)) == []


def test_a_misspelt_zones_key_is_refused_like_any_other(pack):
    # By hand: "zone" for "zones" would leave every literal id undecided with no word; the
    # pack's Configure refuses it (INVALID_ARGUMENT naming the key), as trainstack check does.
    with pytest.raises(grpc.RpcError) as err:
        pack.configure({"storage-same-zone": {"zone": {FSX_ID: "us-east-1a"}}})
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "storage-same-zone: zone not in the policy's schema" in err.value.details()
