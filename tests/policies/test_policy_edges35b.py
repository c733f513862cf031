"""Issue 35, two edges test_policy_edges35 left open (helper packedges2), driven over gRPC as
`pulumi preview --policy-pack` drives the pack, with stacks written the way teams write them.

Each test's expected verdict is written in its comment BEFORE the pack was changed, with a
one-line citation of the provider document that decides it; spend is worked by hand from the
catalog's cited rows (policies/catalog_data/prices.csv, on-demand USD/h): p4d.24xlarge
us-east-1 21.9576, Standard_ND96amsr_A100_v4 eastus 32.77; a month is 730 h; a stop N hours
away prices N whole hours (the started hour is billed).

7. Azure budgets scoped to a resource group, against AKS and Azure ML compute. An AKS cluster
   spans two resource groups: the one the ManagedCluster is created in holds only the
   Kubernetes service resource; the node resource group (`nodeResourceGroup`, default
   MC_<resource group>_<cluster>_<location>) holds the node VMs and their scale sets
   (learn.microsoft.com/azure/aks/faq, "Why are two resource groups created with AKS?"). A
   budget evaluates the costs of its scope only (learn.microsoft.com/azure/cost-management-
   billing/costs/tutorial-acm-create-budgets). So a budget on the cluster's own group does NOT
   cover the GPU node pool's VM cost; one on the node resource group does; when the node
   resource group cannot be read at preview, "cannot decide". Azure ML compute is a child of
   its workspace (Microsoft.MachineLearningServices/workspaces/computes) and bills in the
   workspace's resource group (the Compute's resourceGroupName).

8. Recurring stops (EventBridge Scheduler cron()/rate(), EventBridge scheduled rules). The
   spend-limit policy prices the hours until the plan itself stops the nodes (docs/policies.md,
   Lifetimes). A recurring stop with nothing in the stack that starts or scales the nodes up
   again stops them at its first occurrence after the deploy and they stay stopped: that is a
   lifetime, as the GCP instance schedule with a stop and no start already is. A recurring stop
   beside a start (or a target the pack cannot read that acts on the same nodes) is a pause,
   not a lifetime: the month. Targets must be readable, as for at() schedules.

First run (committed before the pack changed, f954151): 29 cases, 12 disagreed, each closed by
the change after it (7b, 7c, 7d x2, 7e, 7f, 7g: the AKS node resource group and the Azure ML
workspace group were not read; 8a, 8c, 8d, 8f, 8h: no recurring stop was read); the 17 others
agreed (7a agreed only because AKS compute was in no resource group at all). test_policy_edges35
5j's "recurring" variant (a cron() stop with no start, expected the month) moved here as 8a.
Written later, failing first: 8j (a stop keeping the maximum beside a scaling policy). Bugs
planted: counting the AKS cluster's own resource group as the pool's (budgets.py) was caught by
7a and 7e; reading the EventBridge day of week as 0-6 from Sunday (lifetimes.py) by 8c.
"""
from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest

from tests.policies.test_policy_edges35 import (
    ASG_TO_ZERO,
    P4D,
    SUB,
    _named_asg,
    aws_budget,
    azure_budget,
    no_alarm,
)
from tests.policies.test_policy_review35 import any_level, mandatory
from tests.policies.test_policy_review35c import AWS, SPEND, TAGS, no_crash, undecided
from tests.policies.test_policy_review35d import MONTH, estimate, near, p4d
from tests.policy_fixtures import res
from tests.policy_harness import run
from trainstack_policies.model import UNKNOWN

ND96 = 32.77
AZ_SUB = {"location": "eastus", "subscriptionId": SUB}


def _rg(group):
    return f"/subscriptions/{SUB}/resourceGroups/{group}"


# ======================================== 7. Azure resource-group budgets and AKS / Azure ML

def _cluster(gpu=True, **props):
    pool = ({"name": "gpu", "vmSize": "Standard_ND96amsr_A100_v4", "count": 2.0,
             "mode": "System", "availabilityZones": ["1"]} if gpu else
            {"name": "system", "vmSize": "Standard_D4s_v5", "count": 1.0, "mode": "System",
             "availabilityZones": ["1"]})
    return res("azure-native:containerservice:ManagedCluster", "aks", {
        "resourceGroupName": "train", "resourceName": "aks", "location": "eastus",
        "dnsPrefix": "aks", "agentPoolProfiles": [pool], "tags": TAGS, **props})


def _pool(cluster=None, **props):
    return res("azure-native:containerservice:AgentPool", "a100-pool", {
        "resourceGroupName": "train", "resourceName": "aks",
        "vmSize": "Standard_ND96amsr_A100_v4", "count": 2.0, "availabilityZones": ["1"],
        "mode": "User", "tags": TAGS, **props},
        deps={"resourceName": [cluster]} if cluster is not None else {})


def _aml(group="train"):
    return res("azure-native:machinelearningservices:Compute", "a100-cluster", {
        "resourceGroupName": group, "workspaceName": "ml", "location": "eastus",
        "properties": {"computeType": "AmlCompute", "properties": {
            "vmSize": "Standard_ND96amsr_A100_v4", "vmPriority": "Dedicated",
            "scaleSettings": {"minNodeCount": 0.0, "maxNodeCount": 2.0}}}, "tags": TAGS})


def test_7a_a_budget_on_the_aks_clusters_own_group_does_not_cover_its_nodes(pack):
    # Expected: ManagedCluster "aks" in resource group "train" (eastus) with a 2-node A100
    # pool, and one budget scoped to /resourceGroups/train: that group holds only the
    # Kubernetes service resource, the node VMs bill in MC_train_aks_eastus (AKS FAQ, cited
    # above): spend-limit mandatory "no budget alarm on azure".
    found = run(pack, [_cluster(), azure_budget(scope=_rg("train"))], provider=AZ_SUB)
    no_crash(found)
    assert no_alarm(found, "azure"), [d.message for d in any_level(found, SPEND)]


def test_7b_a_budget_on_the_default_node_resource_group_covers_the_pool(pack):
    # Expected (control): the same cluster, the budget scoped to /resourceGroups/
    # MC_train_aks_eastus, the default node resource group (AKS FAQ): it covers the node VMs;
    # 2 x 32.77 x 730 = 47,844.20 under 1,000,000: spend-limit pass.
    found = run(pack, [_cluster(), azure_budget(scope=_rg("MC_train_aks_eastus"))],
                provider=AZ_SUB)
    no_crash(found)
    assert mandatory(found, SPEND) == [], [d.message for d in any_level(found, SPEND)]


def test_7c_a_named_node_resource_group_replaces_the_default(pack):
    # Expected: nodeResourceGroup "train-gpu-nodes" on the cluster: the nodes bill there
    # (ManagedClusterProperties.nodeResourceGroup, "the name of the resource group containing
    # agent pool nodes", learn.microsoft.com/rest/api/aks/managed-clusters/create-or-update).
    # A budget on it: pass; a budget on the default name MC_train_aks_eastus (no such group
    # now): "no budget alarm on azure".
    named = {"nodeResourceGroup": "train-gpu-nodes"}
    ok = run(pack, [_cluster(**named), azure_budget(scope=_rg("train-gpu-nodes"))],
             provider=AZ_SUB)
    no_crash(ok)
    assert mandatory(ok, SPEND) == [], [d.message for d in any_level(ok, SPEND)]
    off = run(pack, [_cluster(**named), azure_budget(scope=_rg("MC_train_aks_eastus"))],
              provider=AZ_SUB)
    no_crash(off)
    assert no_alarm(off, "azure")


@pytest.mark.parametrize("variant", ["node-group-unknown", "cluster-name-unknown"])
def test_7d_a_node_resource_group_unknown_at_preview_cannot_be_decided(pack, variant):
    # Expected: the budget is on /resourceGroups/train-gpu-nodes and the cluster's
    # nodeResourceGroup is unknown at preview (computed from another output), or the cluster
    # has no nodeResourceGroup and its resourceName is unknown (so the default MC_ name is):
    # whether the budget's group is the one the nodes bill in is known only after apply:
    # spend-limit "cannot decide" (mandatory by default), not "no budget alarm", not a pass.
    props = ({"nodeResourceGroup": UNKNOWN} if variant == "node-group-unknown"
             else {"resourceName": UNKNOWN})
    found = run(pack, [_cluster(**props), azure_budget(scope=_rg("train-gpu-nodes"))],
                provider=AZ_SUB)
    no_crash(found)
    assert undecided(found, SPEND), [d.message for d in any_level(found, SPEND)]
    assert no_alarm(found, "azure") == []


def test_7e_an_agent_pool_bills_in_its_clusters_node_resource_group(pack):
    # Expected: a GPU AgentPool of the CPU-only cluster "aks" (its resourceName depends on the
    # ManagedCluster): the pool's VMs are in the cluster's node resource group (AKS FAQ). A
    # budget on MC_train_aks_eastus: pass; a budget on "train": "no budget alarm on azure".
    cluster = _cluster(gpu=False)
    ok = run(pack, [cluster, _pool(cluster), azure_budget(scope=_rg("MC_train_aks_eastus"))],
             provider=AZ_SUB)
    no_crash(ok)
    assert mandatory(ok, SPEND) == [], [d.message for d in any_level(ok, SPEND)]
    off = run(pack, [cluster, _pool(cluster), azure_budget(scope=_rg("train"))],
              provider=AZ_SUB)
    no_crash(off)
    assert no_alarm(off, "azure")


def test_7f_an_agent_pool_of_a_cluster_outside_the_stack_cannot_be_decided(pack):
    # Expected: a GPU AgentPool naming a cluster "aks" the stack does not create, a budget on
    # "train": the cluster's node resource group (default or named) is not in the stack:
    # spend-limit "cannot decide", not "no budget alarm", not a pass.
    found = run(pack, [_pool(), azure_budget(scope=_rg("train"))], provider=AZ_SUB)
    no_crash(found)
    assert undecided(found, SPEND), [d.message for d in any_level(found, SPEND)]
    assert no_alarm(found, "azure") == []


def test_7g_azure_ml_compute_bills_in_its_workspaces_group(pack):
    # Expected: AmlCompute (max 2 A100 nodes) in the workspace's group "train": a budget on
    # "train" covers it (pass, 47,844.20 under 1,000,000); a budget on "other-team":
    # "no budget alarm on azure".
    ok = run(pack, [_aml(), azure_budget(scope=_rg("train"))], provider=AZ_SUB)
    no_crash(ok)
    assert mandatory(ok, SPEND) == [], [d.message for d in any_level(ok, SPEND)]
    off = run(pack, [_aml(), azure_budget(scope=_rg("other-team"))], provider=AZ_SUB)
    no_crash(off)
    assert no_alarm(off, "azure")


def test_7h_a_budget_on_the_node_resource_group_still_prices_the_pool(pack):
    # Expected (control, with the estimate): the 7b stack under a cap of 1 USD states
    # 2 x 32.77 x 730 = 47,844.20.
    stack = [_cluster(), azure_budget(scope=_rg("MC_train_aks_eastus"))]
    assert near(estimate(pack, stack, AZ_SUB), 2 * ND96 * MONTH)


# ================================================ 8. recurring stops: Scheduler and rules

def _in(hours=10, minutes=30, days=0):
    """A time `days` d `hours` h `minutes` min from now, to the minute (UTC)."""
    return (datetime.now(timezone.utc) + timedelta(days=days, hours=hours, minutes=minutes)
            ).replace(second=0, microsecond=0)


def _daily_cron(when):
    # EventBridge cron: minutes hours day-of-month month day-of-week year.
    return f"cron({when.minute} {when.hour} * * ? *)"


def _schedule(name, action, payload, expr, deps=None, **props):
    return res("aws:scheduler/schedule:Schedule", name, {
        "scheduleExpression": expr, "flexibleTimeWindow": {"mode": "OFF"},
        "target": {"arn": f"arn:aws:scheduler:::aws-sdk:{action}",
                   "roleArn": "arn:aws:iam::1:role/scheduler",
                   "input": json.dumps(payload)}, **props}, deps=deps or {})


ASG_UP = {"AutoScalingGroupName": "a100-nodes", "MinSize": 0, "MaxSize": 2,
          "DesiredCapacity": 2}


def test_8a_a_daily_scheduler_stop_with_no_start_stops_the_group_at_its_first_run(pack):
    # Expected: cron(M H * * ? *) (UTC, the default scheduleExpressionTimezone) firing next
    # 10 h 30 min from now, target autoscaling:updateAutoScalingGroup setting the stack's group
    # to 0, and nothing in the stack scales it up again: the group is 0 from the first run on
    # (cron-based schedules, docs.aws.amazon.com/scheduler/latest/UserGuide/
    # schedule-types.html): 11 h, 2 x 21.9576 x 11 = 483.07 (not the month, 32,058.10).
    stop = _schedule("stop-gpus", "autoscaling:updateAutoScalingGroup", ASG_TO_ZERO,
                     _daily_cron(_in()))
    assert near(estimate(pack, [*_named_asg(), stop, aws_budget()], AWS), 2 * P4D * 11)


def test_8b_a_daily_stop_paired_with_a_daily_start_is_no_lifetime(pack):
    # Expected: the 8a stop plus a Scheduler schedule every morning setting the group to
    # min 0 / max 2 / desired 2 (a start): the nodes run again every day: the month,
    # 2 x 21.9576 x 730 = 32,058.10.
    stop = _schedule("stop-gpus", "autoscaling:updateAutoScalingGroup", ASG_TO_ZERO,
                     _daily_cron(_in()))
    start = _schedule("start-gpus", "autoscaling:updateAutoScalingGroup", ASG_UP,
                      _daily_cron(_in(hours=20)))
    stack = [*_named_asg(), stop, start, aws_budget()]
    assert near(estimate(pack, stack, AWS), 2 * P4D * MONTH)


def test_8c_a_weekday_cron_counts_days_of_week_from_sunday_as_1(pack):
    # Expected: cron(M H ? * D *) with D the EventBridge day-of-week (1-7, SUN-SAT: schedule-
    # types.html, cron expressions) of the day after tomorrow, at H:M 2 d 30 min from now:
    # the first run is then, 49 h (a reading of D as 0-6 from Sunday would give 73 h):
    # ec2:stopInstances on the p4d instance it depends on: 21.9576 x 49 = 1,075.92.
    when = _in(hours=0, days=2)
    dow = when.isoweekday() % 7 + 1
    node = p4d("a100")
    stop = _schedule("stop-gpu", "ec2:stopInstances", {"InstanceIds": ["i-from-node"]},
                     f"cron({when.minute} {when.hour} ? * {dow} *)", deps={"target": [node]})
    assert near(estimate(pack, [node, stop, aws_budget()], AWS), P4D * 49)


def test_8d_a_rate_schedule_starts_at_its_start_date(pack):
    # Expected: rate(1 day) stopping the instance with startDate 24 h from now: "use
    # StartDate to set the first occurrence"; without one a rate schedule "starts invoking the
    # target immediately" (schedule-types.html, rate-based): 24 h, 21.9576 x 24 = 526.98;
    # with no startDate, the first hour: 21.9576 x 1 = 21.96.
    node = p4d("a100")
    start = (datetime.now(timezone.utc) + timedelta(hours=24)).strftime("%Y-%m-%dT%H:%M:%SZ")
    stop = _schedule("stop-gpu", "ec2:stopInstances", {"InstanceIds": ["i-from-node"]},
                     "rate(1 day)", deps={"target": [node]}, startDate=start)
    assert near(estimate(pack, [node, stop, aws_budget()], AWS), P4D * 24)
    now = _schedule("stop-gpu", "ec2:stopInstances", {"InstanceIds": ["i-from-node"]},
                    "rate(1 day)", deps={"target": [node]})
    assert near(estimate(pack, [node, now, aws_budget()], AWS), P4D * 1)


@pytest.mark.parametrize("variant", ["start-instances", "disabled", "ends-before", "other-asg",
                                     "last-day", "opaque-target"])
def test_8e_recurring_scheduler_stops_that_do_not_bound_the_spend(pack, variant):
    # Expected, each the month (2 x 21.9576 x 730 = 32,058.10 for the group, 16,029.05 for the
    # instance): a daily ec2:stopInstances beside a daily ec2:startInstances on the same
    # instance (a start); the stop's state DISABLED; an endDate before its first run ("before
    # which the schedule can invoke its target", pulumi-aws scheduler.Schedule end_date); an
    # input naming a group that is not the stack's; cron with "L" (last day of month, the
    # pack does not read it: no stop); a daily lambda:invoke schedule whose input depends on
    # the instance beside the stop (a target the pack cannot read may start it again).
    node = p4d("a100")
    ec2_stop = {"InstanceIds": ["i-from-node"]}
    cron = _daily_cron(_in())
    if variant == "other-asg":
        payload = dict(ASG_TO_ZERO, AutoScalingGroupName="someone-elses-group")
        stop = _schedule("stop-gpus", "autoscaling:updateAutoScalingGroup", payload, cron)
        assert near(estimate(pack, [*_named_asg(), stop, aws_budget()], AWS),
                    2 * P4D * MONTH)
        return
    extra, props, expr = [], {}, cron
    if variant == "start-instances":
        extra = [_schedule("start-gpu", "ec2:startInstances", ec2_stop,
                           _daily_cron(_in(hours=20)), deps={"target": [node]})]
    elif variant == "disabled":
        props = {"state": "DISABLED"}
    elif variant == "ends-before":
        props = {"endDate": (datetime.now(timezone.utc) + timedelta(hours=2)).strftime(
            "%Y-%m-%dT%H:%M:%SZ")}
    elif variant == "last-day":
        expr = "cron(0 18 L * ? *)"
    else:
        extra = [res("aws:scheduler/schedule:Schedule", "wake-gpu", {
            "scheduleExpression": _daily_cron(_in(hours=20)),
            "flexibleTimeWindow": {"mode": "OFF"},
            "target": {"arn": "arn:aws:lambda:us-east-1:1:function:wake-gpus",
                       "roleArn": "arn:aws:iam::1:role/scheduler", "input": UNKNOWN}},
            deps={"target": [node]})]
    stop = _schedule("stop-gpu", "ec2:stopInstances", ec2_stop, expr,
                     deps={"target": [node]}, **props)
    assert near(estimate(pack, [node, stop, *extra, aws_budget()], AWS), P4D * MONTH)


def _rule(name, expr, **props):
    return res("aws:cloudwatch/eventRule:EventRule", name, {
        "name": name, "scheduleExpression": expr, **props})


def _ssm_target(rule, document, node, name="stop"):
    return res("aws:cloudwatch/eventTarget:EventTarget", f"{name}-target", {
        "rule": rule.props["name"],
        "arn": f"arn:aws:ssm:us-east-1:111122223333:automation-definition/{document}:$DEFAULT",
        "roleArn": "arn:aws:iam::111122223333:role/events-ssm", "input": UNKNOWN},
        deps={"rule": [rule], "input": [node]})


def test_8f_a_scheduled_rule_running_the_stop_runbook_stops_the_instance(pack):
    # Expected: an EventBridge rule cron(M H * * ? *) (rules run in UTC: docs.aws.amazon.com/
    # eventbridge/latest/userguide/eb-scheduled-rule-pattern.html) firing next 10 h 30 min
    # from now, its target the AWS-StopEC2Instance automation runbook (docs.aws.amazon.com/
    # systems-manager-automation-runbooks/latest/userguide/automation-aws-stopec2instance.html)
    # with an input built from the p4d instance's id, nothing starts it again: 11 h,
    # 21.9576 x 11 = 241.53. AWS-TerminateEC2Instance likewise.
    for document in ("AWS-StopEC2Instance", "AWS-TerminateEC2Instance"):
        node = p4d("a100")
        rule = _rule("stop-gpus", _daily_cron(_in()))
        stack = [node, rule, _ssm_target(rule, document, node), aws_budget()]
        assert near(estimate(pack, stack, AWS), P4D * 11), document


@pytest.mark.parametrize("variant", ["start-runbook", "disabled", "event-pattern",
                                     "lambda-target", "other-instance"])
def test_8g_scheduled_rules_that_do_not_bound_the_spend(pack, variant):
    # Expected, each the month (21.9576 x 730 = 16,029.05): the 8f rule beside a second rule
    # whose target is AWS-StartEC2Instance on the same instance (a start); the rule's state
    # DISABLED; a rule on an event pattern (no schedule: when it fires is not the plan's);
    # the rule's target a Lambda function (what it does cannot be read); the runbook's input
    # built from another instance.
    node = p4d("a100")
    rule = _rule("stop-gpus", _daily_cron(_in()),
                 **({"state": "DISABLED"} if variant == "disabled" else {}))
    if variant == "event-pattern":
        rule = res("aws:cloudwatch/eventRule:EventRule", "stop-gpus", {
            "name": "stop-gpus",
            "eventPattern": json.dumps({"source": ["aws.health"]})})
    target = _ssm_target(rule, "AWS-StopEC2Instance", node)
    extra = []
    if variant == "start-runbook":
        wake = _rule("start-gpus", _daily_cron(_in(hours=20)))
        extra = [wake, _ssm_target(wake, "AWS-StartEC2Instance", node, name="start")]
    elif variant == "lambda-target":
        target.props["arn"] = "arn:aws:lambda:us-east-1:111122223333:function:stop-gpus"
    elif variant == "other-instance":
        target.deps["input"] = [p4d("elsewhere-cpu", instanceType="t3.small")]
    stack = [node, rule, target, *extra, aws_budget()]
    assert near(estimate(pack, stack, AWS), P4D * MONTH)


def test_8h_a_recurring_scheduler_stop_in_another_time_zone(pack):
    # Expected: cron(M H * * ? *) in scheduleExpressionTimezone "Asia/Tokyo" (UTC+9, no
    # daylight saving) where H:M is Tokyo's wall time 10 h 30 min from now: the first run is
    # then (schedule-types.html, time zones): 11 h on the instance: 21.9576 x 11 = 241.53.
    when = _in().astimezone(timezone(timedelta(hours=9)))
    node = p4d("a100")
    stop = _schedule("stop-gpu", "ec2:stopInstances", {"InstanceIds": ["i-from-node"]},
                     _daily_cron(when), deps={"target": [node]},
                     scheduleExpressionTimezone="Asia/Tokyo")
    assert near(estimate(pack, [node, stop, aws_budget()], AWS), P4D * 11)


@pytest.mark.parametrize("shape", ["scheduler", "rules", "azure"])
def test_8i_odd_shapes_in_the_new_reads_never_crash(pack, shape):
    # Expected: odd values where the new reads look (a cron of 5 fields, a rate with no unit,
    # a startDate that is no time, a rule whose state is a number, a target whose rule is a
    # list, a nodeResourceGroup that is a number): no policy raises; spend-limit still judges
    # the GPU capacity (no budget here covers it: "no budget alarm").
    node = p4d("a100")
    if shape == "scheduler":
        stack = [node, *_named_asg(),
                 _schedule("a", "ec2:stopInstances", {"InstanceIds": ["i"]}, "cron(0 18 * * *)",
                           deps={"target": [node]}),
                 _schedule("b", "ec2:stopInstances", {"InstanceIds": ["i"]}, "rate(often)",
                           deps={"target": [node]}, startDate="tomorrow"),
                 _schedule("c", "autoscaling:updateAutoScalingGroup", ASG_TO_ZERO,
                           "rate(0 days)", endDate=7)]
        provider = AWS
    elif shape == "rules":
        rule = _rule("r", "cron(99 99 * * ? *)", state=5)
        odd = _ssm_target(rule, "AWS-StopEC2Instance", node)
        odd.props["rule"] = ["x"]
        odd.props["arn"] = 7
        stack = [node, rule, odd, _rule("s", "rate(1 fortnight)"),
                 _ssm_target(_rule("s", "rate(-3 hours)"), "AWS-StopEC2Instance", node)]
        provider = AWS
    else:
        stack = [_cluster(nodeResourceGroup=5), _pool(resourceName=["x"]),
                 _aml(group=None), azure_budget(scope=_rg("MC_"))]
        provider = AZ_SUB
    found = run(pack, stack, provider=provider)
    no_crash(found)
    assert any_level(found, SPEND)


def _scaling_policy():
    return res("aws:autoscaling/policy:Policy", "queue-depth", {
        "autoscalingGroupName": "a100-nodes", "policyType": "StepScaling",
        "adjustmentType": "ExactCapacity",
        "stepAdjustments": [{"metricIntervalLowerBound": "0", "scalingAdjustment": 2.0}]})


@pytest.mark.parametrize("kind", ["scheduler", "autoscaling-schedule"])
def test_8j_a_stop_that_keeps_the_maximum_beside_a_scaling_policy_is_a_pause(pack, kind):
    # Expected: the stop sets only DesiredCapacity 0 (MinSize 0, MaxSize left at 2) and a
    # scaling policy on the group (autoscalingGroupName "a100-nodes") sets the desired capacity
    # between min and max on its alarm ("a scaling policy ... scales your Auto Scaling group
    # ... within the minimum and maximum", docs.aws.amazon.com/autoscaling/ec2/userguide/
    # as-scale-based-on-demand.html): the nodes can come back: no lifetime, the month,
    # 32,058.10. A stop that sets MaxSize 0 as well holds the group at 0 whatever the policy
    # does: 2 x 21.9576 x 11 = 483.07.
    keep_max = {"AutoScalingGroupName": "a100-nodes", "MinSize": 0, "DesiredCapacity": 0}
    when = _in()
    if kind == "scheduler":
        pause = _schedule("stop-gpus", "autoscaling:updateAutoScalingGroup", keep_max,
                          _daily_cron(when))
        stop = _schedule("stop-gpus", "autoscaling:updateAutoScalingGroup", ASG_TO_ZERO,
                         _daily_cron(when))
    else:
        start = (when + timedelta(minutes=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
        pause = res("aws:autoscaling/schedule:Schedule", "stop-gpus", {
            "autoscalingGroupName": "a100-nodes", "scheduledActionName": "stop",
            "startTime": start, "minSize": 0.0, "desiredCapacity": 0.0, "maxSize": -1.0})
        stop = res("aws:autoscaling/schedule:Schedule", "stop-gpus", {
            "autoscalingGroupName": "a100-nodes", "scheduledActionName": "stop",
            "startTime": start, "minSize": 0.0, "desiredCapacity": 0.0, "maxSize": 0.0})
    stack = [*_named_asg(), _scaling_policy(), aws_budget()]
    assert near(estimate(pack, [*stack, pause], AWS), 2 * P4D * MONTH)
    assert near(estimate(pack, [*stack, stop], AWS), 2 * P4D * 11)
