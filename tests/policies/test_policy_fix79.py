"""fix79: two defects earlier fixers found, over gRPC as `pulumi preview --policy-pack policies`
drives the pack (tests/policy_harness.py, through review74's _run_case).

1. spend-limit, AWS budgets: every filter value compared as AWS compares it. "The default values
   for MatchOptions are EQUALS and CASE_SENSITIVE" (Cost Explorer API, DimensionValues; the
   Budgets Expression takes the same ExpressionDimensionValues). The values AWS bills under:
   UsageType `USE1-BoxUsage:p5.48xlarge` (docs.aws.amazon.com/AWSEC2/latest/UserGuide/
   ec2-billing-usage-reports.html: `BoxUsage`, `SpotUsage`; region codes upper case);
   PurchaseType `On Demand Instances`, `Spot Instances`, `Standard Reserved Instances`,
   `Savings Plans` (Cost Explorer GetDimensionValues PURCHASE_TYPE); BillingEntity `AWS`,
   `AWS Marketplace` (cost-management user guide, budgets-create-filters); Service
   `Amazon Elastic Compute Cloud - Compute`. A value in another case (or spelling) matches
   nothing: the budget counts none of the GPU nodes' hours, so it is neither their alarm nor
   their cap. Filter NAMES are case-sensitive too: AWS refuses a budget whose costFilters key
   is `service` ("InvalidParameterException: Unable to create/update budget - service is not
   in the supported in cost budget dimension set: [PurchaseType, TagKeyValue, UsageTypeGroup,
   Service, AZ, Region, Operation, InstanceType, UsageType, BillingEntity, LinkedAccount]",
   hashicorp/terraform#19370), and a filterExpression dimension key is an enum (AZ |
   INSTANCE_TYPE | ... | USAGE_TYPE | BILLING_ENTITY: API_budgets_ExpressionDimensionValues): a
   budget AWS refuses is never created, so it is no cap and no alarm, even inside a `not`.

   Figures: review74's AWS cluster, an Auto Scaling group of 2 On-Demand p5.48xlarge in
   us-east-1a (USE1), stopped at 96 h: 2 x 55.04 x 96 = 10,567.68 + storage ~1,574 = ~12,141
   USD, under the one budget's 20,000. A budget that covers the group: pass. One that does not,
   with no other budget: "no budget alarm on aws", a mandatory violation: fail.
"""
from __future__ import annotations

import pytest

from tests.policies.test_policy_fix75 import _abud, _dim
from tests.policies.test_policy_review74 import SPEND as SPEND_P, _run_case

GOOD = "USE1-BoxUsage:p5.48xlarge"


def _cf(name, *values):
    return _abud(costFilters=[{"name": name, "values": list(values)}])


def _ex(expr):
    return _abud(filterExpression=expr)


def _c(cid, mutate, want, why, msg=()):
    expect = {SPEND_P: want} if want else {}
    if msg:
        expect["_msg"] = {SPEND_P: list(msg)}
    return (cid, "aws", {}, mutate, expect, None, why)


VALUE_CASES = [
    # UsageType
    _c("a01", _cf("UsageType", GOOD), None, "USE1-BoxUsage:p5.48xlarge: the group's hours: pass"),
    _c("a02", _cf("UsageType", "USE1-boxusage:p5.48xlarge"), "fail",
       "boxusage in lower case: no usage type AWS bills, no hours: fail"),
    _c("a03", _cf("UsageType", "USE1-BOXUSAGE:p5.48xlarge"), "fail", "BOXUSAGE: fail"),
    _c("a04", _cf("UsageType", "use1-BoxUsage:p5.48xlarge"), "fail",
       "region code use1 in lower case: matches nothing: fail"),
    _c("a05", _cf("UsageType", "USE1-BoxUsage:P5.48XLARGE"), "fail",
       "type in upper case: EC2 bills p5.48xlarge, the value matches nothing: fail"),
    _c("a06", _cf("UsageType", "boxusage:p5.48xlarge", GOOD), None,
       "one exact value among two: pass"),
    # PurchaseType
    _c("a07", _cf("PurchaseType", "On Demand Instances"), None, "On Demand Instances: pass"),
    _c("a08", _cf("PurchaseType", "on demand instances"), "fail", "lower case: fail"),
    _c("a09", _cf("PurchaseType", "ON DEMAND INSTANCES"), "fail", "upper case: fail"),
    _c("a10", _cf("PurchaseType", "On-Demand Instances"), "fail",
       "hyphenated: not the value Cost Explorer bills under: fail"),
    # BillingEntity
    _c("a11", _cf("BillingEntity", "AWS"), None, "AWS: pass"),
    _c("a12", _cf("BillingEntity", "aws"), "fail", "aws: matches nothing: fail"),
    _c("a13", _cf("BillingEntity", "Aws"), "fail", "Aws: fail"),
    # Service
    _c("a14", _cf("Service", "Amazon Elastic Compute Cloud - Compute"), None, "EC2 compute: pass"),
    _c("a15", _cf("Service", "amazon elastic compute cloud - compute"), "fail", "lower: fail"),
    _c("a16", _cf("Service", "AMAZON ELASTIC COMPUTE CLOUD - COMPUTE"), "fail", "upper: fail"),
    # filterExpression, the same values
    _c("e01", _ex(_dim("USAGE_TYPE", GOOD)), None, "USAGE_TYPE exact: pass"),
    _c("e02", _ex(_dim("USAGE_TYPE", "USE1-boxusage:p5.48xlarge")), "fail", "lower: fail"),
    _c("e03", _ex(_dim("PURCHASE_TYPE", "on demand instances")), "fail", "lower: fail"),
    _c("e04", _ex(_dim("BILLING_ENTITY", "aws")), "fail", "lower: fail"),
    _c("e05", _ex(_dim("SERVICE", "amazon elastic compute cloud - compute")), "fail",
       "lower: fail"),
    _c("e06", _ex(_dim("USAGE_TYPE", "USE1-boxusage:p5.48xlarge", match=["EQUALS"])), "fail",
       "EQUALS written out: the same, case-sensitive: fail"),
    _c("e07", _ex({"not": _dim("USAGE_TYPE", "USE1-boxusage:p5.48xlarge")}), None,
       "NOT a usage type that matches nothing: every hour is in: pass"),
    _c("e08", _ex({"not": _dim("PURCHASE_TYPE", "on demand instances")}), None,
       "NOT a purchase type that matches nothing: pass"),
    _c("e09", _ex(_dim("USAGE_TYPE", "USE1-boxusage:p5.48xlarge", match=["CASE_INSENSITIVE"])),
       ("fail", "undecided"), "a match option the pack does not compare: never the cap"),
    _c("e10", _ex(_dim("BILLING_ENTITY", "aws", match=["CASE_INSENSITIVE"])),
       ("fail", "undecided"), "CASE_INSENSITIVE: never the cap"),
    _c("e11", _ex(_dim("INSTANCE_TYPE", "p5.48xlarge", match=["equals"])), ("fail", "undecided"),
       "match option 'equals' is no MatchOption value (the enum is upper case): never the cap"),
    _c("e12", _ex({"ors": [_dim("USAGE_TYPE", "USE1-boxusage:p5.48xlarge"),
                           _dim("BILLING_ENTITY", "aws")]}), "fail",
       "OR of two values that match nothing: fail"),
]

NAME_CASES = [
    _c("n01", _cf("InstanceType", "p5.48xlarge"), None, "InstanceType: pass"),
    _c("n02", _cf("instancetype", "p5.48xlarge"), "fail",
       "costFilters key instancetype: AWS refuses the budget: no cap, no alarm: fail",
       ("instancetype", "InstanceType")),
    _c("n03", _cf("INSTANCETYPE", "p5.48xlarge"), "fail", "INSTANCETYPE: refused: fail"),
    _c("n04", _cf("region", "us-east-1"), "fail", "region: refused: fail", ("region", "Region")),
    _c("n05", _cf("Region", "us-east-1"), None, "Region: pass"),
    _c("n06", _cf("usageType", GOOD), "fail", "usageType: refused: fail"),
    _c("n07", _cf("billingentity", "AWS"), "fail", "billingentity: refused: fail"),
    _c("n08", _ex(_dim("instance_type", "p5.48xlarge")), "fail",
       "filterExpression key instance_type: no Key value AWS takes: refused: fail",
       ("instance_type", "INSTANCE_TYPE")),
    _c("n09", _ex(_dim("Usage_Type", GOOD)), "fail", "Usage_Type: refused: fail"),
    _c("n10", _ex({"not": _dim("instance_type", "g6.xlarge")}), "fail",
       "a refused key inside NOT: the budget is still refused, never 'everything': fail"),
    _c("n11", _ex({"ands": [_dim("REGION", "us-east-1"), _dim("region", "us-east-1")]}), "fail",
       "a refused key beside a good one: refused: fail"),
    _c("n12", _abud(costFilters=[{"name": "Region", "values": ["us-east-1"]},
                                 {"name": "purchaseType", "values": ["On Demand Instances"]}]),
       "fail", "one refused name among good ones: refused: fail"),
]


@pytest.mark.parametrize("case", [pytest.param(c, id=c[0]) for c in VALUE_CASES])
def test_aws_budget_filter_values_case_sensitive(pack, case):
    _run_case(pack, case)


@pytest.mark.parametrize("case", [pytest.param(c, id=c[0]) for c in NAME_CASES])
def test_aws_budget_filter_names_case_sensitive(pack, case):
    _run_case(pack, case)


# --------------------------------------------------------------------------------------------
# 2. no-public-ingress, GCP: node pools written inline in a gcp:container/cluster:Cluster's
#    `nodePools`, judged exactly as a standalone gcp:container/nodePool:NodePool. GKE: a pool's
#    NodeNetworkConfig.enablePrivateNodes, "Whether nodes have internal IP addresses only. If
#    enable_private_nodes is not specified, then the value is derived from
#    cluster.privateClusterConfig.enablePrivateNodes" (Google.Cloud.Container.V1
#    NodeNetworkConfig; pulumi-gcp ClusterNodePoolNetworkConfig.enablePrivateNodes): a pool
#    with false gets external IPs on its nodes even in a private cluster. Unknown at preview:
#    "cannot decide" (no-public-ingress defaults to advisory); networkConfig as a list of one:
#    refused, as fix75b D refuses it on a standalone pool.
#    Base: review69's GCP stack and its private cluster ml-gke, with an inline pool of 2
#    g2-standard-8 instead of the standalone pool (fix75b g04's figures: 14,800.90 + 1,246.29 =
#    16,047.19 < 20,000: spend-limit passes throughout).
from tests.policies import test_policy_review69 as r69  # noqa: E402
from tests.policies.test_policy_review69 import NPI  # noqa: E402
from tests.policy_fixtures import res  # noqa: E402


def _unknown():
    from trainstack_policies.model import UNKNOWN
    return UNKNOWN


def _inline(*pools, cluster: dict | None = None, as_object: bool = False):
    def build(s):
        props = dict(r69.GKE_CLUSTER)
        props.update(cluster or {})
        plist = [p if p is _unknown() else {"name": f"pool{i}", "nodeCount": 2.0,
                                               "nodeConfig": r69.g_node(), **p}
                 for i, p in enumerate(pools)]
        props["nodePools"] = plist[0] if as_object else plist
        return [res("gcp:container/cluster:Cluster", "ml-gke", props)]
    return r69._add(build)


def _g(cid, mutate, want, why, msg=()):
    expect: dict = {NPI: want} if want else {}
    if msg:
        expect["_msg"] = {NPI: list(msg)}
    return (cid, "gcp", {}, mutate, expect, None, why)


CPU = {"nodeConfig": {"machineType": "e2-standard-4", "oauthScopes": ["cloud-platform"]}}
INLINE_CASES = [
    _g("p01", _inline({"networkConfig": {"enablePrivateNodes": False}}), "fail",
       "inline pool with enablePrivateNodes false in a private cluster: external IPs",
       ("ml-gke", "the GKE nodes get external IP addresses", "enablePrivateNodes False")),
    _g("p02", _inline({"networkConfig": {"enablePrivateNodes": True}}), None, "private: pass"),
    _g("p03", _inline({}), None, "no networkConfig: the private cluster's setting: pass"),
    _g("p04", _inline({"networkConfig": [{"enablePrivateNodes": True}]}), "fail",
       "networkConfig as a list of one: refused, named (fix75b D)",
       ("ml-gke", "networkConfig", "'enablePrivateNodes': True")),
    _g("p05", _inline({"networkConfig": {"enablePrivateNodes": _unknown()}}), "undecided",
       "enablePrivateNodes unknown at preview: cannot decide", ("enablePrivateNodes",)),
    _g("p06", _inline({"networkConfig": _unknown()}), "undecided",
       "networkConfig unknown at preview: cannot decide"),
    _g("p07", _inline({"networkConfig": {"enablePrivateNodes": True}},
                      {"networkConfig": {"enablePrivateNodes": False}}), "fail",
       "the second of two inline pools is public: fail", ("pool1",)),
    _g("p08", _inline({**CPU, "networkConfig": {"enablePrivateNodes": False}}), "fail",
       "a CPU pool: judged as a standalone pool is, GPU or not: fail"),
    _g("p09", _inline({"networkConfig": {"enablePrivateNodes": False}}, as_object=True), "fail",
       "nodePools written as one object: read as a list of that one (as spend-limit reads it)"),
    _g("p11", _inline({"networkConfig": {"enablePrivateNodes": False}},
                      cluster={"privateClusterConfig": {"enablePrivateNodes": _unknown()}}),
       "fail", "the cluster's setting unknown, the pool's own false decides: fail"),
    _g("p12", _inline({"networkConfig": {"enablePrivateNodes": True}},
                      cluster={"privateClusterConfig": {"enablePrivateNodes": False}}), "fail",
       "control: the cluster itself public (its own finding, unchanged)"),
]


@pytest.mark.parametrize("case", [pytest.param(c, id=c[0]) for c in INLINE_CASES])
def test_gke_inline_node_pools_private_nodes(pack, case):
    r69._run_case(pack, case)


def test_gke_inline_pool_unknown_is_undecided(pack):
    """p10: an inline pool unknown at preview may be a public one: no-public-ingress cannot
    decide, naming it (the other policies' verdicts on a pool they cannot size are theirs:
    spend-limit fails closed on it, docs "Values unknown at preview")."""
    from tests.policy_harness import run, verdict
    stack = _inline(_unknown())(r69.BUILD["gcp"]())
    found = run(pack, stack, None, dict(r69.PROVIDERS["gcp"]))
    assert verdict(found, NPI) == "undecided", [(d.policy, d.message[:300]) for d in found]
    text = " ".join(d.message for d in found if d.policy == NPI)
    assert "nodePools.0" in text, text
