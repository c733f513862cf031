"""fix65: the three spend-limit defects review65 found (issue 35).

1. A GPU group the pack cannot price or size (a negative maxSize, a size unknown at preview, an
   FSx capacity written as a list) hid the over-budget finding on what it CAN price. That part
   adds up to a lower bound of the truth (what cannot be priced is left out, never counted below
   zero), so where it alone is over the cap the finding is reported too, saying it is a lower
   bound; every finding naming the unpriced part stays.
2. Azure: a budget filtered by ResourceId (or ResourceGroupName) beside an AKS pool whose cluster
   is not in the stack was judged to leave the pool out (no alarm, mandatory); docs/policies.md:
   "AKS and Azure ML nodes' ids are not built: 'cannot decide'", and "A budget on another group
   while such a node resource group is unknown at preview (or the pool's cluster is not in the
   stack) is 'cannot decide'". A ResourceId in a group that may be the compute's auto-named one
   was dropped the same way (its "may be" lost among the filter's values): now "cannot decide".
3. AWS: a Running warm pool keeps at least its minSize (CloudFormation AWS::AutoScaling::WarmPool:
   "When your Auto Scaling group scales out and the size of the warm pool shrinks, Amazon EC2 Auto
   Scaling launches new instances into the warm pool to maintain its minimum size"); without
   MaxGroupPreparedCapacity it holds "the difference between the group's maximum capacity and
   its desired capacity" (API_PutWarmPool), at most maxSize; -1 "remove[s] a value that you
   previously set" (ibid., valid range from -1). So a group of maxSize M with a pool of minSize
   m is at most M + max(m, M) instances without it, max(M + m, P) with P = MaxGroupPreparedCapacity
   (which counts the group and the pool together). A minSize that does not read is a violation.

Expected values by hand from components/catalog/prices.csv (on-demand USD/h, 730 h a month):
aws us-east-1 g5.xlarge 1.006 (734.38 a node-month), g6.xlarge 0.8048 (587.504 a node-month);
azure eastus Standard_NC4as_T4_v3 0.526 (383.98 a node-month). The findings give the figure
rounded to whole USD ("Found: N USD/month").
"""
from __future__ import annotations

import re

from tests.policies.test_policy_review52 import (
    AWS,
    AZS,
    SPEND,
    SUB,
    TAGS,
    UNKNOWN,
    asg,
    aws_budget,
    check,
    estimate,
    lt,
    subnet,
)
from tests.policy_fixtures import AZURE_ALERTS, res

G5 = 1.006 * 730       # 734.38 USD a node-month
G6 = 0.8048 * 730      # 587.504
BOUND = "even as a lower bound"


def _group(name, size, itype="g5.xlarge", sn=None, **props):
    sn = sn or subnet()
    t = lt(f"{name}-lt", itype)
    return [t, asg(name, t, [sn], size, name=name, **props)]


def _spend(found):
    return [d.message for d in found if d.policy == SPEND]


def _figure(msg):
    return int(re.search(r"Found: ([\d,]+) USD/month", msg).group(1).replace(",", ""))


def _over(found):
    """The one over-the-cap finding, which must say it is a lower bound."""
    msgs = [m for m in _spend(found) if "exceeds" in m]
    assert len(msgs) == 1, _spend(found)
    assert BOUND in msgs[0], msgs[0]
    return msgs[0]


# ------------------------------------------------------------------ 1. the lower bound is reported

def test_m19_shape_negative_decoy_keeps_the_over_budget_finding(pack):
    """A g5.xlarge group of maxSize 30 (30 x 734.38 = 22,031.40 > the 20,000 budget) beside a
    decoy g5.xlarge group of maxSize -3: the decoy's invalid size AND the over-budget finding,
    whose figure is the priced part, 22,031, and names the decoy as left out."""
    sn = subnet()
    st = [sn] + _group("train", 30, sn=sn) + _group("decoy", -3, sn=sn) + [aws_budget()]
    found = check(pack, st, AWS, {SPEND: "fail"})
    assert any("is not valid" in m and "decoy" in m for m in _spend(found)), _spend(found)
    msg = _over(found)
    assert "exceeds the stack's budget" in msg and "decoy" in msg.split("Found:")[0], msg
    assert _figure(msg) == round(30 * G5) == 22031


def test_negative_decoy_under_the_budget_adds_no_over_budget_finding(pack):
    """maxSize 20 (14,687.60 < 20,000) beside the decoy: only the decoy's invalid size."""
    sn = subnet()
    st = [sn] + _group("train", 20, sn=sn) + _group("decoy", -3, sn=sn) + [aws_budget()]
    found = check(pack, st, AWS, {SPEND: "fail"})
    assert not any("exceeds" in m for m in _spend(found)), _spend(found)
    assert any("is not valid" in m for m in _spend(found)), _spend(found)


def test_unknown_size_keeps_the_over_budget_finding(pack):
    """The decoy's maxSize unknown at preview (GPU capacity that cannot be estimated): both
    that finding and the over-budget one on 22,031."""
    sn = subnet()
    st = [sn] + _group("train", 30, sn=sn) + _group("later", 1, sn=sn) + [aws_budget()]
    st[-2].props["maxSize"] = UNKNOWN
    found = check(pack, st, AWS, {SPEND: "fail"})
    assert any("cannot be estimated" in m for m in _spend(found)), _spend(found)
    msg = _over(found)
    assert "later" in msg.split("Found:")[0] and _figure(msg) == 22031, msg


def test_fsx_capacity_list_keeps_the_over_budget_finding(pack):
    """An FSx filesystem whose storageCapacity is [1200] (a violation) beside the 30-node group:
    the filesystem is left out of the figure (22,031), which is still over 20,000."""
    sn = subnet()
    fs = res("aws:fsx/lustreFileSystem:LustreFileSystem", "scratch", {
        "subnetIds": "sn-a-id", "storageCapacity": [1200.0], "deploymentType": "PERSISTENT_2",
        "perUnitStorageThroughput": 125.0, "tags": dict(TAGS)}, deps={"subnetIds": [sn]})
    st = [sn, fs] + _group("train", 30, sn=sn) + [aws_budget()]
    found = check(pack, st, AWS, {SPEND: "fail"})
    assert any("is not valid" in m and "scratch" in m for m in _spend(found)), _spend(found)
    msg = _over(found)
    assert "scratch" in msg.split("Found:")[0] and _figure(msg) == 22031, msg


def test_max_monthly_usd_lower_bound(pack):
    """maxMonthlyUsd 10,000 and a 20-node group (14,687.60) beside the decoy: "exceeds the
    policy's maxMonthlyUsd, even as a lower bound" on 14,688."""
    sn = subnet()
    st = [sn] + _group("train", 20, sn=sn) + _group("decoy", -3, sn=sn) + \
        [aws_budget(amount="10000.00")]
    found = check(pack, st, AWS, {SPEND: "fail"}, {SPEND: {"maxMonthlyUsd": 10000}})
    msg = _over(found)
    assert "maxMonthlyUsd" in msg.split("Found:")[0] and _figure(msg) == round(20 * G5) == 14688


def test_partial_budget_lower_bound(pack):
    """A budget of 20,000 filtered to InstanceType g5.xlarge takes in the 30-node group and the
    decoy; one of 1,000 filtered to g6.xlarge takes in a 1-node g6 group (587.50 < 1,000). The
    g5 budget covers the cloud's 22,618.90 less the g6 group's 587.50 = 22,031.40 > 20,000:
    "what budget g5-budget covers exceeds it, even as a lower bound"."""
    sn = subnet()

    def filtered(name, amount, itype):
        return aws_budget(name=name, amount=amount,
                          costFilters=[{"name": "InstanceType", "values": [itype]}])
    st = [sn] + _group("train", 30, sn=sn) + _group("decoy", -3, sn=sn) + \
        _group("small", 1, itype="g6.xlarge", sn=sn) + \
        [filtered("g5-budget", "20000.00", "g5.xlarge"), filtered("g6-budget", "1000.00", "g6.xlarge")]
    found = check(pack, st, AWS, {SPEND: "fail"})
    msg = _over(found)
    assert "what budget g5-budget covers" in msg and "22,031.40 USD/month" in msg, msg
    assert round(30 * G5 + G6 - G6, 2) == 22031.40


# ------------------------------------------------- 2. AKS pools under Azure budget filters

def _pool(cluster=None):
    """A T4 AKS pool of 1 node in group "ml" of cluster aks65, which the stack creates only when
    `cluster` is given (default node group MC_ml_aks65_eastus)."""
    return res("azure-native:containerservice:AgentPool", "t4-pool", {
        "resourceGroupName": "ml", "resourceName": "aks65", "agentPoolName": "t4",
        "vmSize": "Standard_NC4as_T4_v3", "count": 1.0, "mode": "User", "tags": dict(TAGS)},
        deps={"resourceName": [cluster]} if cluster is not None else None)


def _cluster():
    return res("azure-native:containerservice:ManagedCluster", "aks65", {
        "resourceGroupName": "ml", "resourceName": "aks65", "location": "eastus",
        "dnsPrefix": "aks65", "tags": dict(TAGS),
        "agentPoolProfiles": [{"name": "system", "mode": "System", "vmSize": "Standard_D4s_v5",
                               "count": 1.0}]})


def _az_budget(dimension, values):
    return res("azure-native:consumption:Budget", "abudget", {
        "amount": 5000.0, "category": "Cost", "timeGrain": "Monthly",
        "scope": f"/subscriptions/{SUB}", "notifications": AZURE_ALERTS,
        "filter": {"dimensions": {"name": dimension, "operator": "In", "values": values}}})


def _set_id(group, name="nodes"):
    return (f"/subscriptions/{SUB}/resourceGroups/{group}/providers/Microsoft.Compute/"
            f"virtualMachineScaleSets/{name}")


def test_n34_shape_resource_id_beside_a_pool_of_a_cluster_not_in_the_stack(pack):
    """ResourceId of a set in group "other" beside a pool whose cluster (and node resource
    group) the stack does not show: "cannot decide" (was: no alarm, mandatory). The pool's cost,
    at most 1 x 0.526 x 730 = 383.98 in eastus, is far under 5,000."""
    found = check(pack, [_pool(), _az_budget("ResourceId", [_set_id("other")])], AZS,
                  {SPEND: "undecided"})
    assert any("not in the stack" in m for m in _spend(found)), _spend(found)


def test_resource_group_name_beside_a_pool_of_a_cluster_not_in_the_stack(pack):
    """The same with a ResourceGroupName filter naming "other": "cannot decide", as a budget
    scoped to that group is (docs: "A budget on another group while ... the pool's cluster is
    not in the stack is 'cannot decide'")."""
    check(pack, [_pool(), _az_budget("ResourceGroupName", ["other"])], AZS, {SPEND: "undecided"})


def test_resource_id_in_the_clusters_own_group_leaves_the_pool_out(pack):
    """Control: the cluster in the stack (node group MC_ml_aks65_eastus, known): a ResourceId
    in "ml", the cluster's own group, never names the pool's nodes: no alarm, fail."""
    c = _cluster()
    check(pack, [c, _pool(c), _az_budget("ResourceId", [_set_id("ml")])], AZS, {SPEND: "fail"})


def test_resource_id_in_the_node_group_cannot_decide(pack):
    """Control (q02's shape): a ResourceId in MC_ml_aks65_eastus, the node group: the pool's
    set ids are not built: "cannot decide"."""
    c = _cluster()
    check(pack, [c, _pool(c), _az_budget("ResourceId", [_set_id("MC_ml_aks65_eastus",
                                                                "aks-t4-12345678-vmss")])],
          AZS, {SPEND: "undecided"})


def test_resource_id_beside_a_set_in_an_auto_named_group_cannot_decide(pack):
    """A T4 scale set (vmScaleSetName nodes, 1 x 383.98) in ResourceGroup "rg" of the stack with
    no resourceGroupName (auto-named: "rg" plus a random suffix): a ResourceId in group "rg2"
    may be that group: "cannot decide" (was: its "may be" lost among the filter's values, so
    the budget left the set out: no alarm, fail). Its twin naming the set in "rg" too, by id
    built on the literal: the same, undecided."""
    group = res("azure-native:resources:ResourceGroup", "rg", {"location": "eastus",
                                                               "tags": dict(TAGS)})
    vmss = res("azure-native:compute:VirtualMachineScaleSet", "nodes", {
        "resourceGroupName": UNKNOWN, "vmScaleSetName": "nodes", "location": "eastus",
        "sku": {"name": "Standard_NC4as_T4_v3", "capacity": 1.0}, "tags": dict(TAGS),
        "virtualMachineProfile": {"networkProfile": {"networkInterfaceConfigurations": [
            {"name": "nic", "primary": True, "ipConfigurations": [{"name": "ip"}]}]}}},
        deps={"resourceGroupName": [group]})
    check(pack, [group, vmss, _az_budget("ResourceId", [_set_id("rg2")])], AZS,
          {SPEND: "undecided"})


# ------------------------------------------------------------------ 3. Running warm pools

def _warm(**pool):
    sn = subnet()
    return [sn] + _group("warm", 2, sn=sn, warmPool={"poolState": "Running", **pool})


def test_w01_shape_min_size_above_max_size(pack):
    """maxSize 2, minSize 5, no maxGroupPreparedCapacity: 2 + max(5, 2) = 7 x 734.38 =
    5,140.66 (was 4 nodes, 2,937.52)."""
    assert estimate(pack, _warm(minSize=5.0), AWS) == round(7 * G5) == 5141


def test_min_size_below_max_size_keeps_max_size_more(pack):
    """minSize 1: 2 + max(1, 2) = 4 x 734.38 = 2,937.52."""
    assert estimate(pack, _warm(minSize=1.0), AWS) == round(4 * G5) == 2938


def test_prepared_capacity_minus_one_removes_it(pack):
    """maxGroupPreparedCapacity -1 ("to remove a value that you previously set"): priced as
    without it, 2 + max(5, 2) = 7 nodes = 5,141 (was: refused as a negative size)."""
    assert estimate(pack, _warm(minSize=5.0, maxGroupPreparedCapacity=-1.0), AWS) == 5141


def test_prepared_capacity_counts_group_and_pool(pack):
    """maxGroupPreparedCapacity 10, minSize 1: max(2 + 1, 10) = 10 x 734.38 = 7,343.80; with
    3 and minSize 5: max(2 + 5, 3) = 7 = 5,141."""
    assert estimate(pack, _warm(minSize=1.0, maxGroupPreparedCapacity=10.0), AWS) == 7344
    assert estimate(pack, _warm(minSize=5.0, maxGroupPreparedCapacity=3.0), AWS) == 5141


def test_min_size_twenty_is_over_the_budget(pack):
    """w01 itself on g5.xlarge: maxSize 2, minSize 20: 22 x 734.38 = 16,156.36 beside a 4,000
    USD/month budget: over it (the old reading, 4 nodes = 2,937.52, passed)."""
    found = check(pack, _warm(minSize=20.0) + [aws_budget(amount="4000.00")], AWS,
                  {SPEND: "fail"})
    msg = next(m for m in _spend(found) if "exceeds" in m)
    assert _figure(msg) == round(22 * G5) == 16156


def test_min_size_that_does_not_read_is_a_violation(pack):
    """minSize ['1'], 'two' or -1 (every one as 1 would be 2,937.52, under 20,000): a violation
    naming warmPool.minSize and the value, never read as absent."""
    for bad, shown in ((["1"], "['1']"), ("two", "'two'"), (-1.0, "-1")):
        found = check(pack, _warm(minSize=bad) + [aws_budget()], AWS, {SPEND: "fail"})
        assert any("is not valid" in m and "warmPool.minSize" in m and shown in m
                   for m in _spend(found)), (bad, _spend(found))


def test_min_size_unknown_at_preview_cannot_be_estimated(pack):
    """minSize unknown at preview: the group's size is unknown: GPU capacity that cannot be
    estimated (fails closed)."""
    found = check(pack, _warm(minSize=UNKNOWN) + [aws_budget()], AWS, {SPEND: "fail"})
    assert any("cannot be estimated" in m and "warm" in m for m in _spend(found)), _spend(found)


def test_stopped_pool_adds_no_compute(pack):
    """A Stopped pool of minSize 50 bills disks, not instance hours: 2 x 734.38 = 1,468.76."""
    sn = subnet()
    st = [sn] + _group("warm", 2, sn=sn, warmPool={"poolState": "Stopped", "minSize": 50.0})
    assert estimate(pack, st, AWS) == 1469
