"""fix81: review80's two spend-limit defects, fixed, with cases of this helper's own.

DEFECT 1 (lifetimes._finds_by_tag): a scheduled Lambda whose environment or input names a tag of
the nodes may start them, whatever tags the function itself carries (docs/policies.md: "a Lambda
function that finds them by tag: its input or environment variables name a tag of the nodes");
only the nodes' tags are matched. review35h's stack (tests/policies/test_policy_review35h.py): one
p4d.24xlarge in us-east-1 (21.9576 USD/h, prices.csv), stopped at +30 h by a Scheduler
ec2:stopInstances; a nightly Lambda. Stop holds: 21.9576 x 30 = 658.73; a pause: the month,
21.9576 x 730 = 16,029.05.

DEFECT 2 (pricing._locations): a group in an AWS Local Zone or Wavelength Zone is priced at that
zone's row of prices.csv (g4dn.2xlarge, on-demand USD/h: us-east-1 0.752, us-east-1-bos-1 1.015,
us-east-1-lim-1 1.725, us-east-1-wl1-atl1 1.317), never the region's; no row for the type there
(p5.48xlarge in us-east-1-bos-1, a Wavelength city the catalog does not list): cannot be priced.
AWS names a Local Zone us-east-1-bos-1a in the zone group us-east-1-bos-1 (AZ ID use1-bos1-az1)
and a Wavelength Zone us-east-1-wl1-atl-wlz-1 (AZ ID use1-wl1-atl-wlz1: AWS Wavelength guide,
"Available Wavelength Zones"). Four g4dn.2xlarge for the month, no storage: 4 x 730 = 2,920
node-hours: bos-1 2,963.80; wl1-atl1 3,845.64; lim-1 5,037.00; us-east-1 2,195.84.
"""
from __future__ import annotations

from typing import Optional

import pytest

from tests.policies.test_policy_review35d import estimate, near
from tests.policies.test_policy_review35f import AWS
from tests.policies.test_policy_review35h import P4D, POOL, _daily, _function, _node, _stop
from tests.policy_fixtures import OWNER_TAGS, res
from tests.policy_harness import run, verdict

SPEND = "spend-limit"


# ------------------------------------------------------------------------------------ DEFECT 1
def _lambda_stack(node_tags: dict, variables: dict, fn_tags: Optional[dict] = None) -> list:
    node = _node(node_tags)
    fn = _function(variables)
    if fn_tags is not None:
        fn.props["tags"] = dict(fn_tags)
    return [node, _stop(node), fn, _daily(fn)]


@pytest.mark.parametrize("fn_tags", [None, dict(POOL), {**OWNER_TAGS, **POOL}],
                         ids=["untagged", "pool-tag", "cost-and-pool-tags"])
def test_d1_lambda_naming_the_nodes_pool_tag_is_a_start(pack, fn_tags):
    # TAG_KEY gpu-pool / TAG_VALUE a100-nightly names the node's tag: a DescribeInstances filter
    # tag:gpu-pool=a100-nightly finds the node whatever the function is tagged: the month.
    stack = _lambda_stack({**OWNER_TAGS, **POOL},
                          {"TAG_KEY": "gpu-pool", "TAG_VALUE": "a100-nightly"}, fn_tags)
    assert near(estimate(pack, stack, AWS), P4D * 730)


def test_d1_tagging_api_filter_on_a_cost_tag_both_carry_is_a_start(pack):
    # A Tagging API filter [{Key: owner, Values: [<the owner>]}] in the environment as JSON
    # text, the function tagged with the same cost tags: it finds the node too: the month.
    owner = OWNER_TAGS["owner"]
    stack = _lambda_stack({**OWNER_TAGS, **POOL},
                          {"FILTERS": f'[{{"Key": "owner", "Values": ["{owner}"]}}]'},
                          dict(OWNER_TAGS))
    assert near(estimate(pack, stack, AWS), P4D * 730)


def test_d1_a_tag_only_the_function_carries_finds_nothing(pack):
    # Control: the Lambda names role=nightly-starter, a tag of the function alone; no node
    # carries it, so the filter finds no node: the stop holds, 30 h, 658.73.
    stack = _lambda_stack({**OWNER_TAGS, **POOL},
                          {"TAG_KEY": "role", "TAG_VALUE": "nightly-starter"},
                          {**OWNER_TAGS, "role": "nightly-starter"})
    assert near(estimate(pack, stack, AWS), P4D * 30)


# ------------------------------------------------------------------------------------ DEFECT 2
G4DN = {"us-east-1": 0.752, "us-east-1-bos-1": 1.015, "us-east-1-lim-1": 1.725,
        "us-east-1-wl1-atl1": 1.317}


def _subnet(name: str, zone: str, by_id: bool = False):
    key = "availabilityZoneId" if by_id else "availabilityZone"
    return res("aws:ec2/subnet:Subnet", name, {key: zone, "vpcId": "vpc-1",
                                               "cidrBlock": "10.0.9.0/24", "tags": OWNER_TAGS})


def _group(subnets: list, itype: str = "g4dn.2xlarge", zones: Optional[list] = None,
           native_subnets: bool = False) -> list:
    lt = res("aws:ec2/launchTemplate:LaunchTemplate", "lz-lt",
             {"instanceType": itype, "tags": OWNER_TAGS})
    props = {"minSize": 0.0, "maxSize": 4.0, "desiredCapacity": 4.0,
             "launchTemplate": {"id": "lt-x", "version": "$Latest"},
             "tags": [{"key": k, "value": v, "propagateAtLaunch": True}
                      for k, v in OWNER_TAGS.items()]}
    deps = {"launchTemplate": [lt]}
    if subnets:
        props["vpcZoneIdentifiers"] = ["subnet-x"] * len(subnets)
        deps["vpcZoneIdentifiers"] = list(subnets)
    if zones is not None:
        props["availabilityZones"] = zones
    asg = res("aws:autoscaling/group:Group", "lz-nodes", props, deps=deps)
    return [*subnets, lt, asg]


@pytest.mark.parametrize("zone, by_id, where", [
    ("us-east-1b", False, "us-east-1"),
    ("us-east-1-bos-1a", False, "us-east-1-bos-1"),
    ("use1-bos1-az1", True, "us-east-1-bos-1"),
    ("us-east-1-wl1-atl-wlz-1", False, "us-east-1-wl1-atl1"),
    ("use1-wl1-atl-wlz1", True, "us-east-1-wl1-atl1"),
    ("us-east-1-lim-1a", False, "us-east-1-lim-1"),
])
def test_d2_a_group_is_priced_at_its_zones_row(pack, zone, by_id, where):
    stack = _group([_subnet("s", zone, by_id)])
    assert near(estimate(pack, stack, AWS), 4 * G4DN[where] * 730)


def test_d2_the_groups_own_zones_place_it(pack):
    # No subnet: its availabilityZones ["us-east-1-bos-1a"]: 4 x 1.015 x 730 = 2,963.80.
    stack = _group([], zones=["us-east-1-bos-1a"])
    assert near(estimate(pack, stack, AWS), 2963.80)


def test_d2_zones_spanning_region_and_local_zones_take_the_dearest(pack):
    # us-east-1a (0.752), us-east-1-bos-1a (1.015), us-east-1-lim-1a (1.725): the dearest,
    # 4 x 1.725 x 730 = 5,037.00.
    stack = _group([_subnet("a", "us-east-1a"), _subnet("b", "us-east-1-bos-1a"),
                    _subnet("c", "us-east-1-lim-1a")])
    assert near(estimate(pack, stack, AWS), 5037.00)


@pytest.mark.parametrize("zone, itype, named", [
    ("us-east-1-bos-1a", "p5.48xlarge", "us-east-1-bos-1"),       # no p5 row in bos-1
    ("us-east-1-wl1-xyz-wlz-1", "g4dn.2xlarge", "us-east-1-wl1-xyz1"),   # a city not listed
])
def test_d2_no_row_in_the_zone_fails_closed(pack, zone, itype, named):
    # A cap far above the region's price (4 x p5 at 55.04 in us-east-1 = 160,716.80 / month)
    # still fails: the zone's price is not known, and the region's is never taken for it.
    found = run(pack, _group([_subnet("s", zone)], itype=itype),
                {SPEND: {"maxMonthlyUsd": 10_000_000}}, provider=AWS)
    assert verdict(found, SPEND) == "fail"
    text = " ".join(d.message for d in found if d.policy == SPEND)
    assert named in text and "no catalog price" in text, text
