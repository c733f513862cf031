"""Cloud Scheduler jobs are matched to managed instance groups through an index (by the group a
job depends on, by the group name its Compute API URL names: policies/inventory/lifetimes.py
_cloud_jobs_on), so that a stack of many groups and many jobs does not compare each group with
each job. Two groups in one stack that differ only in their `name` input must each keep their
own jobs: a stop on one is no stop on the other, a restart of one restarts only that one.

Expected lifetimes by hand: a job written for `hours` from now fires at the first whole minute
at or after it (tests/policy_fixtures.cron_at), and the pack rounds the hours up (a stop never
earlier than the truth): 96 h -> 96 or 97, 200 h -> 200 or 201. A group whose only stop is
followed by a job that resizes it to anything else (a start) has no lifetime (None).
"""
from __future__ import annotations

from dataclasses import replace

from tests.policy_fixtures import by_name, gcp_cluster, gcp_stop_job
from trainstack_policies import inventory

JOB = "gcp:cloudscheduler/job:Job"


def _two_groups():
    """gcp_cluster()'s stack without its job, with a second group `nodes-b` that is the first
    one (same project, zone, template, size) but for its name input: `train-a` and `train-b`."""
    stack = [r for r in gcp_cluster() if r.type != JOB]
    a = by_name(stack, "nodes")
    a.props["name"] = "train-a"
    a.props["project"] = "ml-prod"   # the project the jobs' URLs name (a literal needs it)
    b = replace(a, name="nodes-b", urn=a.urn + "-b", props={**a.props, "name": "train-b"},
                deps=dict(a.deps))
    return stack + [b], a, b


def _lifetimes(stack):
    return {g.resource.name: (g.lifetime_hours, g.lifetime_how)
            for g in inventory.node_groups(stack)}


def test_a_literal_stop_names_one_group_of_two():
    """Jobs naming `train-a` (stop, 96 h) and `train-b` (stop, 200 h) by literal URL: each
    group is stopped by its own job."""
    stack, a, b = _two_groups()
    stack += [gcp_stop_job(a, hours=96, group="train-a", name="stop-a", depends=False),
              gcp_stop_job(b, hours=200, group="train-b", name="stop-b", depends=False)]
    found = _lifetimes(stack)
    assert found["nodes"][0] in (96, 97) and "stop-a" in found["nodes"][1], found
    assert found["nodes-b"][0] in (200, 201) and "stop-b" in found["nodes-b"][1], found


def test_a_restart_of_one_group_leaves_the_other_stopped():
    """Both groups stopped at 96 h by literal jobs; a third job resizes `train-b` to 4 (a
    start, after which the stop does not hold): `train-b` has no lifetime, `train-a` keeps 96."""
    stack, a, b = _two_groups()
    stack += [gcp_stop_job(a, hours=96, group="train-a", name="stop-a", depends=False),
              gcp_stop_job(b, hours=96, group="train-b", name="stop-b", depends=False),
              gcp_stop_job(b, hours=120, group="train-b", size=4, name="grow-b",
                           depends=False)]
    found = _lifetimes(stack)
    assert found["nodes"][0] in (96, 97), found
    assert found["nodes-b"] == (None, ""), found


def test_a_job_that_depends_on_one_group_does_not_stop_its_twin():
    """Auto-named groups (no name input): a job whose URL is an Output of `nodes` (a
    dependency) stops it at 96 h; `nodes-b`, the same group but for the dependency, runs
    the month (no lifetime)."""
    stack, a, b = _two_groups()
    del a.props["name"], b.props["name"]
    stack.append(gcp_stop_job(a, hours=96, name="stop-a"))
    found = _lifetimes(stack)
    assert found["nodes"][0] in (96, 97), found
    assert found["nodes-b"] == (None, ""), found


def test_two_stops_at_the_same_time_name_the_first_in_stack_order():
    """Two jobs stopping `train-a` at the same minute, one by dependency (later in the stack),
    one by literal name (earlier): the estimate names the earlier one, as a scan in stack
    order does."""
    stack, a, _ = _two_groups()
    first = gcp_stop_job(a, hours=96, group="train-a", name="stop-literal", depends=False)
    second = replace(first, name="stop-depends", urn=first.urn + "-2",
                     deps={"httpTarget": [a]})
    found = _lifetimes(stack + [first, second])
    assert "stop-literal" in found["nodes"][1], found
    found = _lifetimes(stack + [second, first])
    assert "stop-depends" in found["nodes"][1], found


# ---------------------------------------------------------------------------------- budgets
# budgets.budgets() judges each budget once per class of GPU groups that read alike to a budget
# (not once per group). Two AWS groups that differ only in their provider's account must stay
# two classes for a LinkedAccount filter: the budget watches account 111122223333's spend, so
# it takes in the group deployed there (allowedAccountIds ["111122223333"]) and leaves out the
# same group deployed to 444455556666 (the pulumi-aws provider refuses any account outside
# allowedAccountIds: a group pinned to 444455556666 bills there, not to the filter's account).

def _aws_twins():
    from tests.policy_fixtures import aws_cluster
    stack = [r for r in aws_cluster() if not r.type.startswith("aws:budgets/")]
    a = by_name(stack, "nodes")
    a.provider = {"region": "us-east-1", "allowedAccountIds": ["111122223333"]}
    b = replace(a, name="nodes-b", urn=a.urn + "-b", props=dict(a.props), deps=dict(a.deps),
                provider={"region": "us-east-1", "allowedAccountIds": ["444455556666"]})
    return stack + [b], a, b


def _linked_budget():
    from tests.policy_fixtures import res
    from tests.policy_fixtures import AWS_ALERTS
    return res("aws:budgets/budget:Budget", "acct-budget", {
        "budgetType": "COST", "timeUnit": "MONTHLY", "limitAmount": "50000", "limitUnit": "USD",
        "notifications": AWS_ALERTS,
        "costFilters": [{"name": "LinkedAccount", "values": ["111122223333"]}]})


def test_a_linked_account_budget_covers_only_the_group_in_its_account():
    for first_in_stack in ("a", "b"):
        stack, a, b = _aws_twins()
        if first_in_stack == "b":   # whichever group is read first, each keeps its own account
            stack = [r for r in stack if r is not a] + [a]
        [budget] = [x for x in inventory.budgets(stack + [_linked_budget()])
                    if x.resource.name == "acct-budget"]
        assert budget.coverage(a) is True, (first_in_stack, budget)
        assert budget.coverage(b) is False, (first_in_stack, budget)
