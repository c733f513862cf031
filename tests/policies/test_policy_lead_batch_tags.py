"""Issue 35 (lead, from fix62's "noticed"): the tags an AWS Batch compute environment's
instances carry, as a budget's tag filter reads them. "Compute environment tags do not propagate
to any other resources. Tags for the resources are specified in the tags member of the
computeResources object" (docs.aws.amazon.com/batch/latest/userguide/tag-resources.html,
"Tag support for AWS Batch resources"); "you can specify computeResources.tags to apply Amazon
EC2 tags to the instances that the compute environment launches" (.../compute-resources-tag-
access-policy.html). So a budget filtered on `user:team$research` covers the nodes when
`computeResources.tags` (or the launch template's instance tagSpecifications) say team=research,
and not when only the compute environment's own `tags` do.

Figures by hand: 2 p5.48xlarge nodes (384 vCPUs / 192, BEST_FIT) = 2 x 55.04 x 730 = 80,358.40
USD a month, under the 100,000 budget: the spend figure passes wherever the budget covers them.
Driven over gRPC (tests/policy_harness.py)."""
from __future__ import annotations

from typing import Any, Optional

from tests.policies.test_policy_fix62 import LT, TAGS, ce, messages, subnet
from tests.policy_fixtures import AWS_ALERTS, res
from tests.policy_harness import run, verdict

AWS = {"region": "us-east-1"}
SPEND = "spend-limit"
TEAM = [{"name": "TagKeyValue", "values": ["user:team$research"]}]
NO_TEAM = {k: v for k, v in TAGS.items() if k != "team"}


def team_budget() -> Any:
    return res("aws:budgets/budget:Budget", "team-budget", {
        "budgetType": "COST", "timeUnit": "MONTHLY", "limitAmount": "100000", "limitUnit": "USD",
        "notifications": AWS_ALERTS, "costFilters": TEAM, "tags": dict(TAGS)})


def stack(own: dict, resource_tags: Optional[Any] = None, instance_tags: Optional[Any] = None
          ) -> list:
    """One 2-node p5 compute environment from a launch template, in us-east-1a, with the
    environment's own `tags`, its `computeResources.tags` and the template's instance
    tagSpecifications as given, and the team-filtered budget."""
    s = subnet("a", "us-east-1a")
    props: dict = {"tags": dict(NO_TEAM)}
    if instance_tags is not None:
        props["tagSpecifications"] = [{"resourceType": "instance", "tags": instance_tags}]
    lt = res(LT, "gpu-lt", props)
    env = ce("gpu-ce", lt, [s])
    env.props["tags"] = dict(own)
    if resource_tags is not None:
        env.props["computeResources"]["tags"] = resource_tags
    return [s, lt, env, team_budget()]


def spend(found: list) -> str:
    return verdict(found, SPEND)


def test_the_environments_own_team_tag_does_not_reach_its_instances(pack):
    """team=research only on the compute environment itself: its instances carry no team tag,
    so the team budget leaves them out. Expect: fail, no budget alarm for gpu-ce."""
    found = run(pack, stack(own=TAGS), provider=AWS)
    assert spend(found) == "fail", messages(found, SPEND)
    assert "no budget alarm" in messages(found, SPEND), messages(found, SPEND)


def test_compute_resources_tags_reach_the_instances(pack):
    """team=research in computeResources.tags (the environment's own tags without it): the
    instances carry it and the budget covers 80,358.40 < 100,000. Expect: pass."""
    found = run(pack, stack(own=NO_TEAM, resource_tags={"team": "research"}), provider=AWS)
    assert spend(found) == "pass", messages(found, SPEND)


def test_the_templates_instance_tags_reach_the_instances(pack):
    """team=research in the launch template's instance tagSpecifications. Expect: pass."""
    found = run(pack, stack(own=NO_TEAM, instance_tags={"team": "research"}), provider=AWS)
    assert spend(found) == "pass", messages(found, SPEND)


def test_another_team_in_compute_resources_tags_is_left_out(pack):
    """computeResources.tags team=infra, the environment's own tags team=research: the
    instances are infra's. Expect: fail, no budget alarm."""
    found = run(pack, stack(own=TAGS, resource_tags={"team": "infra"}), provider=AWS)
    assert spend(found) == "fail", messages(found, SPEND)
    assert "no budget alarm" in messages(found, SPEND), messages(found, SPEND)


def test_the_providers_default_tags_do_not_reach_the_instances(pack):
    """The provider's defaultTags team=research tag the compute environment (pulumi sets them
    on its `tags`), which does not propagate. Expect: fail, no budget alarm."""
    found = run(pack, stack(own=NO_TEAM),
                provider={**AWS, "defaultTags": {"tags": {"team": "research"}}})
    assert spend(found) == "fail", messages(found, SPEND)


def test_compute_resources_tags_unknown_at_preview_cannot_decide(pack):
    """computeResources.tags unknown at preview (and nothing else says team): whether the budget
    takes the nodes in cannot be read. Expect: cannot decide."""
    from tests.policies.test_policy_review61 import unknown
    found = run(pack, stack(own=NO_TEAM, resource_tags=unknown()), provider=AWS)
    assert spend(found) == "undecided", messages(found, SPEND)


def test_template_and_compute_resources_disagree_cannot_decide(pack):
    """The template's instance tags say team=research, computeResources.tags team=infra: which
    one an instance gets is not stated in the Batch pages cited: cannot decide."""
    found = run(pack, stack(own=NO_TEAM, resource_tags={"team": "infra"},
                            instance_tags={"team": "research"}), provider=AWS)
    assert spend(found) == "undecided", messages(found, SPEND)
