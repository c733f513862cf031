"""Issue 35 / review62, the three AWS Batch compute environment defects (helper fix62): a
compute environment's `computeResources.launchTemplate` is its launch template as an Auto
Scaling group's is (DEFECTS 1 and 3), and its `computeResources.subnets` place it as an Auto
Scaling group's `vpcZoneIdentifiers` do (DEFECT 2). Driven over gRPC (tests/policy_harness.py).

Expected figures, by hand from components/catalog: p5.48xlarge is 192 vCPUs
(instance_types.csv) and 55.04 USD/h on demand in us-east-1 (prices.csv); a month is 730 h. A
managed EC2 compute environment with the BEST_FIT strategy runs ceil(maxVcpus / 192) nodes, so
384 vCPUs are 2 nodes = 2 x 55.04 x 730 = 80,358.40 USD/month and 768 vCPUs 4 nodes =
160,716.80. c6i.8xlarge is in no catalog file (a CPU type the pack cannot size).
"""
from __future__ import annotations

from typing import Any, Optional

from tests.policies.test_policy_review35f import estimate, messages, near
from tests.policy_fixtures import res
from tests.policy_harness import run, verdict

AWS = {"region": "us-east-1"}
SPEND, SSZ = "spend-limit", "storage-same-zone"
TAGS = {"owner": "dana", "team": "research", "cost-center": "7100"}
P5_MONTH = 55.04 * 730            # one p5.48xlarge for a month: 40,179.20 USD
LT = "aws:ec2/launchTemplate:LaunchTemplate"
CE = "aws:batch/computeEnvironment:ComputeEnvironment"
LITERAL = "subnet-0f1e2d3c4b5a69788"


def subnet(name: str, zone: str) -> Any:
    return res("aws:ec2/subnet:Subnet", name, {"availabilityZone": zone, "vpcId": "vpc-0fix62",
                                               "cidrBlock": "10.62.0.0/20", "tags": dict(TAGS)})


def fsx(name: str, on: Any, subnet_ids: Optional[list] = None) -> Any:
    return res("aws:fsx/lustreFileSystem:LustreFileSystem", name, {
        "subnetIds": subnet_ids or ["subnet-x"], "storageCapacity": 1200.0,
        "deploymentType": "PERSISTENT_2", "perUnitStorageThroughput": 125.0,
        "tags": dict(TAGS)}, deps={"subnetIds": [on]} if on is not None else {})


def template(name: str, mounts: tuple = (), **props: Any) -> Any:
    deps: dict = {"userData": list(mounts)} if mounts else {}
    odcr = props.pop("odcr", None)
    if odcr is not None:
        props["capacityReservationSpecification"] = {"capacityReservationTarget": {
            "capacityReservationId": "cr-x"}}
        deps["capacityReservationSpecification"] = [odcr]
    return res(LT, name, {"userData": "I2Nsb3VkLWNvbmZpZw==" if mounts else None,
                          "tags": dict(TAGS), **props}, deps=deps)


def block(lt_name: str = "gpu-lt", mounts: tuple = ()) -> Any:
    """A launch template that buys into an EC2 Capacity Block (as awsome-distributed-training's
    p5 Batch template writes it)."""
    return template(lt_name, mounts, instanceMarketOptions={"marketType": "capacity-block"},
                    capacityReservationSpecification={"capacityReservationTarget": {
                        "capacityReservationId": "cr-0a1b2c3d4e5f67890"}})


def ce(name: str, lt: Any, subnets: list, vcpus: float = 384.0, types: Any = None,
       subnet_ids: Optional[list] = None) -> Any:
    """A managed EC2 compute environment, BEST_FIT, from launch template `lt` (None: none)."""
    cr = {"type": "EC2", "allocationStrategy": "BEST_FIT", "maxVcpus": vcpus, "minVcpus": 0.0,
          "instanceTypes": types if types is not None else ["p5.48xlarge"],
          "subnets": subnet_ids if subnet_ids is not None else ["subnet-x"] * len(subnets),
          "securityGroupIds": ["sg-0fix62"],
          "instanceRole": "arn:aws:iam::111122223333:instance-profile/ecsInstanceRole"}
    if lt is not None:
        cr["launchTemplate"] = {"launchTemplateId": "lt-x", "version": "$Latest"}
    deps = [d for d in [lt, *subnets] if d is not None]
    return res(CE, name, {"type": "MANAGED", "state": "ENABLED", "computeResources": cr,
                          "tags": dict(TAGS)}, deps={"computeResources": deps} if deps else {})


def odcr(count: float = 2.0, zone: str = "us-east-1a") -> Any:
    return res("aws:ec2/capacityReservation:CapacityReservation", "p5-odcr", {
        "instanceType": "p5.48xlarge", "instancePlatform": "Linux/UNIX", "availabilityZone": zone,
        "instanceCount": count, "instanceMatchCriteria": "targeted", "endDateType": "unlimited",
        "tags": dict(TAGS)})


def budget(amount: str = "100000") -> Any:
    from tests.policy_fixtures import AWS_ALERTS
    return res("aws:budgets/budget:Budget", "budget", {
        "budgetType": "COST", "timeUnit": "MONTHLY", "limitAmount": amount, "limitUnit": "USD",
        "notifications": AWS_ALERTS, "tags": dict(TAGS)})


# --------------------------------------------------------------- DEFECT 1: capacity booked by the template

def test_ce_capacity_block_template_priced_at_its_fee(pack):
    """A 2-node p5 CE whose launch template is a Capacity Block, fee 30,000 in the config.
    Expect: the estimate is the fee, 30,000 (the on-demand month would be 80,358.40)."""
    s, lt = subnet("a", "us-east-1a"), block()
    stack = [s, lt, ce("gpu-ce", lt, [s])]
    assert near(estimate(pack, stack, AWS, {"capacityBlockFeesUsd": {"gpu-ce": 30000.0}}),
                30000.0)


def test_ce_capacity_block_template_without_fee_cannot_be_estimated(pack):
    """The same CE without capacityBlockFeesUsd under a 100,000 budget: a block is paid up front
    at a price neither the catalog nor the preview holds. Expect: spend-limit fails closed
    naming the CE's fee key (the on-demand month, 80,358.40, would pass the budget)."""
    s, lt = subnet("a", "us-east-1a"), block()
    found = run(pack, [s, lt, ce("gpu-ce", lt, [s]), budget("100000")], provider=AWS)
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)
    assert '"capacityBlockFeesUsd": {"gpu-ce"' in messages(found, SPEND), messages(found, SPEND)


def test_ce_aws_native_capacity_block_template_priced_at_its_fee(pack):
    """The block written as an aws-native launch template (launchTemplateData.instanceMarket
    Options.marketType capacity-block), 4 nodes (768 vCPUs), fee 45,000. Expect: 45,000 (the
    on-demand month would be 160,716.80)."""
    s = subnet("a", "us-east-1a")
    lt = res("aws-native:ec2:LaunchTemplate", "gpu-lt", {"launchTemplateData": {
        "instanceMarketOptions": {"marketType": "capacity-block"},
        "capacityReservationSpecification": {"capacityReservationTarget": {
            "capacityReservationId": "cr-0a1b2c3d4e5f67890"}}}})
    stack = [s, lt, ce("gpu-ce", lt, [s], vcpus=768.0)]
    assert near(estimate(pack, stack, AWS, {"capacityBlockFeesUsd": {"gpu-ce": 45000.0}}),
                45000.0)


def test_ce_template_on_demand_control(pack):
    """Control: the same CE from an ordinary launch template (no block, no reservation).
    Expect: the on-demand month, 2 x 55.04 x 730 = 80,358.40."""
    s, lt = subnet("a", "us-east-1a"), template("gpu-lt")
    assert near(estimate(pack, [s, lt, ce("gpu-ce", lt, [s])], AWS), 2 * P5_MONTH)


def test_ce_template_targeting_the_stacks_odcr_counted_once(pack):
    """A targeted ODCR of 2 p5.48xlarge in us-east-1a that the CE's template targets
    (capacityReservationSpecification depends on it); the CE runs 4 nodes in us-east-1a.
    Expect: the ODCR 2 x 40,179.20 + the 2 nodes beyond it 2 x 40,179.20 = 160,716.80 (counted
    twice: 241,075.20)."""
    s, r = subnet("a", "us-east-1a"), odcr()
    lt = template("gpu-lt", odcr=r)
    assert near(estimate(pack, [s, r, lt, ce("gpu-ce", lt, [s], vcpus=768.0)], AWS),
                4 * P5_MONTH)


def test_ce_not_in_the_targeted_odcr_is_priced_beside_it(pack):
    """Control: the same targeted ODCR with a CE whose template targets nothing: a targeted
    ODCR takes only instances that name it. Expect: both priced, 2 x 40,179.20 + 2 x
    40,179.20 = 160,716.80 for a 2-node CE."""
    s, r, lt = subnet("a", "us-east-1a"), odcr(), template("gpu-lt")
    assert near(estimate(pack, [s, r, lt, ce("gpu-ce", lt, [s])], AWS), 4 * P5_MONTH)


# --------------------------------------------------------------- DEFECT 2: literal and unknown subnets

def _literal_stack(fs_on_literal: bool = False, subnet_ids: Optional[list] = None,
                   ce_subnets: Optional[list] = None) -> list:
    """A GPU CE on a literal subnet id (made by another stack), its template mounting an FSx;
    the FSx on the stack's subnet in us-east-1a, or on the same literal id."""
    s = subnet("a", "us-east-1a")
    fs = fsx("scratch", None, [LITERAL]) if fs_on_literal else fsx("scratch", s)
    lt = template("gpu-lt", (fs,))
    env = ce("gpu-ce", lt, ce_subnets or [], subnet_ids=subnet_ids or [LITERAL])
    return [s, fs, lt, env]


def test_ce_on_literal_subnet_is_cannot_decide(pack):
    """The CE placed only by a literal subnet id, its FSx on the stack's subnet in us-east-1a.
    Expect: storage-same-zone "cannot decide" naming the id and the zones config, never the
    mandatory "the GPU nodes' zone cannot be read"."""
    found = run(pack, _literal_stack(), provider=AWS)
    assert verdict(found, SSZ) == "undecided", messages(found, SSZ)
    text = " ".join(d.message for d in found if d.policy == SSZ)
    assert LITERAL in text and "zones" in text, text


def test_ce_on_literal_subnet_told_its_zone(pack):
    """The zones config tells the literal subnet's zone. Expect: us-east-1a (the FSx's zone)
    passes; us-east-1b fails as "not in the GPU nodes' zone"."""
    ok = run(pack, _literal_stack(), {SSZ: {"zones": {LITERAL: "us-east-1a"}}}, provider=AWS)
    assert verdict(ok, SSZ) == "pass", messages(ok, SSZ)
    bad = run(pack, _literal_stack(), {SSZ: {"zones": {LITERAL: "us-east-1b"}}}, provider=AWS)
    assert verdict(bad, SSZ) == "fail", messages(bad, SSZ)
    assert "not in the GPU nodes' zone" in messages(bad, SSZ), messages(bad, SSZ)


def test_ce_and_fsx_on_the_same_literal_subnet_pass(pack):
    """CE and FSx on the same single literal subnet: one subnet is one zone. Expect: pass
    without the config."""
    found = run(pack, _literal_stack(fs_on_literal=True), provider=AWS)
    assert verdict(found, SSZ) == "pass", messages(found, SSZ)


def test_ce_on_unknown_subnet_is_cannot_decide(pack):
    """The CE's subnets from a stack reference, unknown at preview, no stack subnet behind them;
    the FSx in us-east-1a. Expect: storage-same-zone "cannot decide"."""
    from trainstack_policies.model import UNKNOWN
    found = run(pack, _literal_stack(subnet_ids=[UNKNOWN]), provider=AWS)
    assert verdict(found, SSZ) == "undecided", messages(found, SSZ)


def test_ce_literal_subnet_beside_the_stacks_own(pack):
    """The CE on the stack's subnet in us-east-1a AND a literal one (two entries, one stack
    subnet behind them). Expect: cannot decide untold; told us-east-1a: pass; told us-east-1b:
    the nodes span two zones (fail)."""
    def stack() -> list:
        s = subnet("a", "us-east-1a")
        fs = fsx("scratch", s)
        lt = template("gpu-lt", (fs,))
        return [s, fs, lt, ce("gpu-ce", lt, [s], subnet_ids=["subnet-x", LITERAL])]
    untold = run(pack, stack(), provider=AWS)
    assert verdict(untold, SSZ) == "undecided", messages(untold, SSZ)
    same = run(pack, stack(), {SSZ: {"zones": {LITERAL: "us-east-1a"}}}, provider=AWS)
    assert verdict(same, SSZ) == "pass", messages(same, SSZ)
    other = run(pack, stack(), {SSZ: {"zones": {LITERAL: "us-east-1b"}}}, provider=AWS)
    assert verdict(other, SSZ) == "fail", messages(other, SSZ)
    assert "span more than one zone" in messages(other, SSZ), messages(other, SSZ)


# --------------------------------------------------------------- DEFECT 3: mounts through the template

def _two_clusters(swap: bool) -> list:
    """Two GPU CEs, in us-east-1a and us-east-1b, each with an FSx on its own subnet; each
    template mounts its own FSx, or (`swap`) the other zone's."""
    a, b = subnet("a", "us-east-1a"), subnet("b", "us-east-1b")
    fa, fb = fsx("fsx-a", a), fsx("fsx-b", b)
    la, lb = template("lt-a", (fb if swap else fa,)), template("lt-b", (fa if swap else fb,))
    return [a, b, fa, fb, la, lb, ce("ce-a", la, [a]), ce("ce-b", lb, [b])]


def test_ce_templates_mounting_the_other_zones_fsx_fail(pack):
    """Swapped mounts: the 1a CE's template mounts the FSx in 1b and the 1b CE's the one in 1a.
    Expect: storage-same-zone fails on both filesystems (each shares a subnet with the CE that
    does not mount it, which must not hide the mount)."""
    found = run(pack, _two_clusters(swap=True), provider=AWS)
    assert verdict(found, SSZ) == "fail", messages(found, SSZ)
    text = messages(found, SSZ)
    assert "fsx-a" in text and "fsx-b" in text, text


def test_ce_templates_mounting_their_own_fsx_pass(pack):
    """Control: each CE's template mounts its own zone's FSx. Expect: pass (two clusters)."""
    found = run(pack, _two_clusters(swap=False), provider=AWS)
    assert verdict(found, SSZ) == "pass", messages(found, SSZ)


def _cpu_beside_gpu(types: list) -> list:
    """A GPU CE in us-east-1a mounting its FSx there, and a CPU CE in us-east-1b whose template
    mounts its own FSx in us-east-1b."""
    a, b = subnet("a", "us-east-1a"), subnet("b", "us-east-1b")
    fa, fb = fsx("gpu-fsx", a), fsx("prep-fsx", b)
    la, lb = template("gpu-lt", (fa,)), template("prep-lt", (fb,))
    return [a, b, fa, fb, la, lb, ce("gpu-ce", la, [a]),
            ce("prep-ce", lb, [b], vcpus=256.0, types=types)]


def test_cpu_ce_template_mount_is_not_judged(pack):
    """The CPU CE is c6i.8xlarge (no catalog row: not sized). Expect: its FSx, mounted only by
    CPU compute, is not judged against the GPU nodes' zone: pass."""
    found = run(pack, _cpu_beside_gpu(["c6i.8xlarge"]), provider=AWS)
    assert verdict(found, SSZ) == "pass", messages(found, SSZ)


def test_optimal_ce_template_mount_is_not_judged(pack):
    """The CPU CE takes instanceTypes [optimal] (C, M and R families). Expect: pass, as above."""
    found = run(pack, _cpu_beside_gpu(["optimal"]), provider=AWS)
    assert verdict(found, SSZ) == "pass", messages(found, SSZ)


def test_gpu_and_cpu_types_in_one_ce_still_fail_closed(pack):
    """Control: a CE of [p5e.48xlarge, c6i.8xlarge] (p5e listed without a public price, c6i
    without catalog vCPUs): GPU capacity it cannot size. Expect: spend-limit fails closed
    naming p5e.48xlarge, as before."""
    s, lt = subnet("a", "us-east-1a"), template("gpu-lt")
    found = run(pack, [s, lt, ce("gpu-ce", lt, [s], types=["p5e.48xlarge", "c6i.8xlarge"]),
                       budget()], provider=AWS)
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)
    assert "p5e.48xlarge" in messages(found, SPEND), messages(found, SPEND)


# --------------------------------------------------------------- aws-native compute environments

def test_aws_native_ce_with_block_template_still_fails_closed(pack):
    """aws-native:batch:ComputeEnvironment is not sized (not in the coverage table): its
    instanceTypes are a GPU sign, GPU capacity that cannot be estimated, whatever its template
    (a fee given for it prices nothing). Expect: spend-limit fails closed naming it."""
    s, lt = subnet("a", "us-east-1a"), block()
    native = res("aws-native:batch:ComputeEnvironment", "gpu-ce", {
        "type": "MANAGED", "computeResources": {
            "type": "EC2", "allocationStrategy": "BEST_FIT", "maxvCpus": 384.0,
            "instanceTypes": ["p5.48xlarge"], "subnets": ["subnet-x"],
            "launchTemplate": {"launchTemplateId": "lt-x"}}, "tags": dict(TAGS)},
        deps={"computeResources": [lt, s]})
    found = run(pack, [s, lt, native, budget()],
                {SPEND: {"capacityBlockFeesUsd": {"gpu-ce": 30000.0}}}, provider=AWS)
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)
    assert "gpu-ce" in messages(found, SPEND), messages(found, SPEND)
