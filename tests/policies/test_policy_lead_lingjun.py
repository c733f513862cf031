"""Issue 35 (lead): PAI-Lingjun (eflo) nodes are GPU capacity by what the service is. Alibaba's
Lingjun terms page: "Nodes are high-performance GPU servers accelerated by the Lingjun
optimization suite" (alibabacloud.com/help/en/pai/basic-concepts-1). The pack does not price
them (no catalog row for an `efg*` machine type), so spend-limit names each as GPU capacity it
cannot estimate, whatever its machine type says; the cluster and network resources of Lingjun
launch nothing. Driven over gRPC (tests/policy_harness.py) on review63's Alibaba cluster."""
from __future__ import annotations

import pytest

from tests.policies.test_policy_review63 import ALI, AZ_TAGS, _run_case

SPEND = "spend-limit"

CASES = [
    ("hyper", "ali", {}, None, {SPEND: "fail"}, None,
     "an eflo HyperNode (SDK example machineType efg3.GN9A.ch72): a Lingjun GPU server"),
    ("node-unknown-type", "ali", {}, None, {SPEND: "fail"}, None,
     "an eflo Node whose machineType is unknown at preview: still a Lingjun GPU server"),
    ("cluster-only", "ali", {}, None, {}, None,
     "control: an eflo Cluster and a VPD (network) alone launch no node: no GPU sign"),
]


def _mutation(cid):
    from tests.policies.test_policy_review63 import _new, unknown
    if cid == "hyper":
        return _new("alicloud:eflo/hyperNode:HyperNode", "hn", {
            "zoneId": "eu-central-1a", "machineType": "efg3.GN9A.ch72", "hpnZone": "A1",
            "serverArch": "bmserver", "paymentType": "Subscription", "paymentDuration": 1.0,
            "tags": dict(AZ_TAGS)}, region=ALI)
    if cid == "node-unknown-type":
        return _new("alicloud:eflo/node:Node", "ln", {
            "machineType": unknown(), "zone": "eu-central-1a", "tags": dict(AZ_TAGS)}, region=ALI)

    def both(s):
        s = _new("alicloud:eflo/vpd:Vpd", "vpd", {"cidr": "10.0.0.0/8", "vpdName": "v"},
                 region=ALI)(s)
        return _new("alicloud:eflo/cluster:Cluster", "lc", {
            "clusterName": "lc", "clusterType": "Lite", "tags": dict(AZ_TAGS)}, region=ALI)(s)
    return both


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_lingjun(pack, case):
    cid, cloud, kwargs, _, expect, config, why = case
    _run_case(pack, (cid, cloud, kwargs, _mutation(cid), expect, config, why))
