"""Issue 35 (lead): an Alibaba CPFS whose zone input is left out and whose vSwitch is unknown at
preview with no vSwitch of the stack behind it (fix56 noticed: its zone read as "", the
mandatory "zone cannot be read"). docs/policies.md storage-same-zone: a value unknown at
preview for one filesystem is "cannot decide" (the default advisory level). Controls: the
same CPFS on a vSwitch of the stack in another zone fails; on the nodes' zone passes.
Expectations written before any fix; over gRPC as `pulumi preview` drives the pack."""
from __future__ import annotations

from tests.policies.test_policy_fix56 import _expect, _ssz
from tests.policies.test_policy_review56 import SSZ, TAGS, ali, named
from tests.policy_fixtures import res
from trainstack_policies.model import UNKNOWN


def _on_vswitch(value, dep=None):
    s = ali()
    fs = named(s, "scratch")
    del fs.props["zoneId"]
    fs.props["vswitchId"] = value
    if dep is not None:
        fs.deps["vswitchId"] = [dep]
        s.append(dep)
    return s


def test_a_cpfs_on_an_unread_vswitch_cannot_decide(pack):
    found = _expect(pack, "ali", _on_vswitch(UNKNOWN), {SSZ: "undecided"})
    assert all("zone cannot be read" not in d.message for d in _ssz(found)), \
        [d.message for d in _ssz(found)]


def test_a_cpfs_on_a_stack_vswitch_in_another_zone_fails_control(pack):
    vsw = res("alicloud:vpc/switch:Switch", "other-vsw", {"zoneId": "eu-central-1b",
                                                          "vpcId": "vpc-1", "cidrBlock": "10.8.0.0/24",
                                                          "tags": dict(TAGS)})
    _expect(pack, "ali", _on_vswitch(UNKNOWN, vsw), {SSZ: "fail"})
