"""Issue 20, AWS: a first `pulumi up` that succeeds, and nodes that stay alike.

Every item runs on the plans of the example spec and of a 16-node spec on p5 and p5en. Expected
values come from the AWS documents cited in docs/reviews/review-aws.md, or are worked out by hand here.
"""
from __future__ import annotations

import copy
import functools
import json

import pytest
import yaml

from tests.conftest import EXAMPLE, one, plan_for
from trainstack_components.aws import planning
from trainstack_components.catalog import instance_type

FSX = "aws:fsx/lustreFileSystem:LustreFileSystem"
LT = "aws:ec2/launchTemplate:LaunchTemplate"
DRA = "aws:fsx/dataRepositoryAssociation:DataRepositoryAssociation"
LIFECYCLE = "aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration"
TOPIC_POLICY = "aws:sns/topicPolicy:TopicPolicy"
SG_RULES = ("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule",
            "aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule")
GIB = 2 ** 30 / 1e9   # GiB per GB: the FSx rows are USD per GB-month
PER_GB = {125: 0.18858, 250: 0.28211, 500: 0.47069, 1000: 0.84863}  # filesystem_prices.csv


def _spec(instance=None, nodes=None, **aws):
    spec = copy.deepcopy(yaml.safe_load(EXAMPLE.read_text()))
    if instance:
        spec["gpu"] = ["H100", "H200"]
        spec["clouds"]["aws"]["instance_type"] = instance
    if nodes:
        spec["nodes"] = nodes
        spec["budget"]["monthly_usd"] = 1_000_000   # 16 nodes pass the one-day spend check
    spec["clouds"]["aws"].update(aws)
    return spec


SPECS = {"example": _spec(), "p5-16": _spec("p5.48xlarge", 16),
         "p5en-16": _spec("p5en.48xlarge", 16)}


@functools.lru_cache(maxsize=None)
def _plan(key: str, image: str = ""):
    extra = {"trainstack:image": image} if image else None
    return plan_for(SPECS[key], "aws", extra_config=extra)


@pytest.fixture(params=sorted(SPECS), scope="module")
def plan(request):
    return _plan(request.param)


# -- FSx waits for its security-group rules ------------------------------------------------------

def test_fsx_depends_on_the_self_referencing_rules_not_only_the_group(plan):
    fsx = one(plan, FSX)
    rules = [r for t in SG_RULES for r in plan.of_type(t)
             if r.inputs.get("referencedSecurityGroupId")]
    assert len(rules) == 2   # self in, self out (EFA and Lustre's port 988 ride on them)
    missing = [r.name for r in rules if r.urn not in fsx.dependencies]
    assert not missing, f"FSx can be created before {missing}: 400 InvalidNetworkSettings"


# -- the program pins the DLAMI ------------------------------------------------------------------

def test_a_resolved_dlami_is_kept_by_the_template_on_a_plain_pulumi_up(plan):
    lt = one(plan, LT)
    assert lt.inputs["imageId"] == "ami-0offline000000000"   # from the SSM parameter today
    assert "imageId" in lt.ignore_changes
    # the output `up` writes into the stack file is the template's own image
    assert plan.outputs["image"] == lt.inputs["imageId"]


@pytest.mark.parametrize("key", sorted(SPECS))
def test_an_image_chosen_in_stack_config_or_the_spec_goes_through(key):
    lt = one(_plan(key, image="ami-0pinned00000000000"), LT)
    assert lt.inputs["imageId"] == "ami-0pinned00000000000"
    assert "imageId" not in lt.ignore_changes
    spec = copy.deepcopy(SPECS[key])
    spec["clouds"]["aws"]["image_id"] = "ami-0fromspec0000000000"
    lt = one(plan_for(spec, "aws"), LT)
    assert (lt.inputs["imageId"], lt.ignore_changes) == ("ami-0fromspec0000000000", [])


# -- the budget topic's policy -------------------------------------------------------------------

def test_only_this_accounts_budget_may_publish_to_the_stop_topic(plan):
    policy = json.loads(one(plan, TOPIC_POLICY).inputs["policy"])
    (statement,) = policy["Statement"]
    assert statement["Principal"] == {"Service": "budgets.amazonaws.com"}
    budget = one(plan, "aws:budgets/budget:Budget").inputs["name"]
    assert statement["Condition"] == {
        "StringEquals": {"aws:SourceAccount": "000000000000"},   # the offline account
        "ArnLike": {"aws:SourceArn": f"arn:aws:budgets::000000000000:budget/{budget}"}}


# -- heartbeats: lifecycle and kept out of FSx ---------------------------------------------------

def test_noncurrent_heartbeat_and_status_versions_expire(plan):
    rules = one(plan, LIFECYCLE).inputs["rules"]
    by_prefix = {r["filter"]["prefix"]: r for r in rules}
    # the reaper and `status` read heartbeats/<node>.json and status/<node>.json by name
    assert set(by_prefix) == {"heartbeats/", "status/"}
    for rule in by_prefix.values():
        assert rule["status"] == "Enabled"
        assert rule["noncurrentVersionExpiration"] == {"noncurrentDays": 1}
        assert "expiration" not in rule   # the current heartbeat itself stays


def test_fsx_auto_import_is_scoped_away_from_the_agents_keys(plan):
    dra = one(plan, DRA)
    path = dra.inputs["dataRepositoryPath"]
    bucket = plan.outputs["bucket_name"]
    assert path == f"s3://{bucket}/data/"
    for key in ("heartbeats/node-1.json", "status/node-1.json"):
        assert not f"s3://{bucket}/{key}".startswith(path)
    assert "NEW" in dra.inputs["s3"]["autoImportPolicy"]["events"]


# -- EFA on FSx only when asked for or cheapest --------------------------------------------------

def test_efa_is_off_when_a_plain_tier_meets_the_ask_for_less(plan):
    # every spec asks for the example's 4,800 GiB at 250: plain 250 @ 4,800 GiB
    # = 4800 x 0.28211 x 1.0737 = 1,453.98 USD; the cheapest EFA size, 1000 @ 4,800 GiB,
    # = 4800 x 0.84863 x 1.0737 = 4,373.81 USD
    assert plan.outputs["filesystem_efa_enabled"] is False
    fsx = one(plan, FSX)
    assert "efaEnabled" not in fsx.inputs
    assert (fsx.inputs["storageCapacity"], fsx.inputs["perUnitStorageThroughput"]) == (4800, 250)
    assert plan.outputs["filesystem_monthly_usd"] == pytest.approx(1453.98, abs=0.01)


def test_the_issues_example_3000_gib_at_200_by_hand():
    # aggregate ask: 3000 / 1024 x 200 = 585.9 MB/s. Plain: 125 needs 4,800 GiB (2 x 2,400),
    # 4800 x 0.18858 x 1.0737 = 971.93 USD. EFA steps: 1000 @ 4,800 GiB = 4,373.81 USD (250 @
    # 19,200 and 500 @ 9,600 cost more). So no EFA.
    p5 = instance_type("aws", "p5.48xlarge")
    auto = planning.fsx_plan(p5, True, 3000, 200, "us-east-1")
    assert (auto.efa, auto.choice.tier, auto.choice.capacity_gib) == (False, 125, 4800)
    assert auto.choice.monthly_usd == pytest.approx(971.93, abs=0.01)
    asked = planning.fsx_plan(p5, True, 3000, 200, "us-east-1", asked=True)
    assert (asked.efa, asked.choice.tier, asked.choice.capacity_gib) == (True, 1000, 4800)
    assert asked.choice.monthly_usd == pytest.approx(4373.81, abs=0.01)


def test_efa_is_chosen_when_it_is_the_cheapest_way_to_the_throughput():
    # 4,800 GiB at 1000: plain 1000 @ 4,800 is the cheapest plain size and EFA's one 4,800 GiB
    # step costs the same (4,373.81 USD), so EFA comes free
    p5 = instance_type("aws", "p5.48xlarge")
    auto = planning.fsx_plan(p5, True, 4800, 1000, "us-east-1")
    assert (auto.efa, auto.choice.tier, auto.choice.capacity_gib) == (True, 1000, 4800)
    assert planning.fsx_plan(p5, True, 4800, 1000, "us-east-1", asked=False).efa is False


@pytest.mark.parametrize("key", ["p5-16", "p5en-16"])
def test_asking_for_efa_in_the_spec_gets_it(key):
    spec = copy.deepcopy(SPECS[key])
    spec["clouds"]["aws"]["fsx_efa"] = True
    plan = plan_for(spec, "aws")
    fsx = one(plan, FSX)
    assert fsx.inputs["efaEnabled"] is True
    assert (fsx.inputs["storageCapacity"], fsx.inputs["perUnitStorageThroughput"]) == (4800, 1000)
    assert plan.outputs["filesystem_monthly_usd"] == pytest.approx(4800 * PER_GB[1000] * GIB,
                                                                   abs=0.01)


def test_asking_for_efa_on_a_type_that_cannot_use_it_is_refused():
    from trainstack_components.errors import SpecError
    with pytest.raises(SpecError) as refused:
        planning.fsx_plan(instance_type("aws", "p4d.24xlarge"), True, 4800, 250, "us-east-1",
                          asked=True)
    assert refused.value.field == "clouds.aws.fsx_efa"
