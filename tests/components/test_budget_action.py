"""Budget actions: the budget's last threshold stops the nodes (group to 0, data kept).
The plans wire budget -> topic -> function; the function code runs offline here."""
import base64
import json

import pytest

from tests.conftest import plan_for
from trainstack_components.aws import budget_action as aws_stop
from trainstack_components.functions.aws_budget_stop import handler as aws_handler
from trainstack_components.functions.gcp_budget_stop import main as gcp_main
from trainstack_components.gcp import budget_action as gcp_stop


def one(plan, token):
    """The budget-stop resource of a type (the nodes have a role and account of their own)."""
    found = plan.of_type(token)
    if len(found) > 1:
        found = [r for r in found if "budget-stop" in r.name]
    (found,) = found
    return found


# -- AWS plan ---------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def aws_plan():
    import copy

    import yaml

    from tests.conftest import EXAMPLE
    return plan_for(copy.deepcopy(yaml.safe_load(EXAMPLE.read_text())), "aws")


def test_aws_the_forecast_and_a_lower_actual_threshold_publish_to_the_stop_topic(aws_plan):
    # examples/cluster.yaml: alerts at 50/80/100 %. Actual 100 % arrives hours late in billing,
    # so the stop fires on actual 90 % and on the forecast reaching 100 %.
    budget = one(aws_plan, "aws:budgets/budget:Budget")
    topic = one(aws_plan, "aws:sns/topic:Topic")
    stops = sorted((n["notificationType"], n["threshold"]) for n in budget.inputs["notifications"]
                   if n.get("subscriberSnsTopicArns"))
    assert stops == [("ACTUAL", 90.0), ("FORECASTED", 100.0)]
    assert budget.property_dependencies["notifications"] == [topic.urn]
    assert all(n["subscriberEmailAddresses"] for n in budget.inputs["notifications"])


def test_aws_a_last_threshold_below_the_cap_stops_there():
    notes = aws_stop.notifications([50.0, 75.0], ["a@example.com"], "arn:topic")
    stops = [(n.notification_type, n.threshold) for n in notes if n.subscriber_sns_topic_arns]
    assert stops == [("ACTUAL", 75.0), ("FORECASTED", 100.0)]


def test_aws_a_failed_stop_lands_in_a_dead_letter_queue_with_an_alarm(aws_plan):
    queue = one(aws_plan, "aws:sqs/queue:Queue")
    function = one(aws_plan, "aws:lambda/function:Function")
    assert function.property_dependencies["deadLetterConfig"] == [queue.urn]
    subscription = one(aws_plan, "aws:sns/topicSubscription:TopicSubscription")
    assert subscription.property_dependencies["redrivePolicy"] == [queue.urn]
    statements = json.loads(one(aws_plan, "aws:iam/rolePolicy:RolePolicy").inputs["policy"])["Statement"]
    assert any(s["Action"] == "sqs:SendMessage" for s in statements)
    queue_policy = json.loads(one(aws_plan, "aws:sqs/queuePolicy:QueuePolicy").inputs["policy"])
    assert queue_policy["Statement"][0]["Principal"] == {"Service": "sns.amazonaws.com"}
    alarm = one(aws_plan, "aws:cloudwatch/metricAlarm:MetricAlarm")
    assert alarm.inputs["namespace"] == "AWS/SQS" and alarm.inputs["threshold"] == 0


def test_aws_the_topic_lets_budgets_publish(aws_plan):
    policy = json.loads(one(aws_plan, "aws:sns/topicPolicy:TopicPolicy").inputs["policy"])
    (statement,) = policy["Statement"]
    assert statement["Principal"] == {"Service": "budgets.amazonaws.com"}
    assert statement["Action"] == "SNS:Publish"
    topic = one(aws_plan, "aws:sns/topic:Topic")
    assert statement["Resource"].startswith("arn:aws:sns:us-east-1:")  # the topic's own ARN
    assert statement["Resource"].endswith(f":{topic.name}")


def test_aws_the_function_may_update_only_this_group(aws_plan):
    group = one(aws_plan, "aws:autoscaling/group:Group")
    role_policy = one(aws_plan, "aws:iam/rolePolicy:RolePolicy")
    statements = json.loads(role_policy.inputs["policy"])["Statement"]
    scale = next(s for s in statements if s["Action"] == "autoscaling:UpdateAutoScalingGroup")
    assert group.urn in role_policy.property_dependencies["policy"]
    assert scale["Resource"] == ("arn:aws:autoscaling:us-east-1:*:autoScalingGroup:*:"
                                 "autoScalingGroupName/llm-finetune-nodes")
    assert not any("autoscaling:*" in json.dumps(s) for s in statements)


def test_aws_the_function_ships_the_repo_handler_and_names_the_group(aws_plan):
    function = one(aws_plan, "aws:lambda/function:Function")
    group = one(aws_plan, "aws:autoscaling/group:Group")
    assert function.inputs["handler"] == "handler.handler" and function.inputs["runtime"] == "python3.12"
    (asset,) = function.inputs["code"]["archive"]["assets"].values()
    assert asset["asset"]["path"] == str(aws_stop.FUNCTION_DIR / "handler.py")
    assert function.property_dependencies["environment"] == [group.urn]
    permission = one(aws_plan, "aws:lambda/permission:Permission")
    assert permission.inputs["principal"] == "sns.amazonaws.com"
    subscription = one(aws_plan, "aws:sns/topicSubscription:TopicSubscription")
    assert subscription.inputs["protocol"] == "lambda"


# -- AWS function, against moto's Auto Scaling API --------------------------------------------

SNS_EVENT = {"Records": [{"EventSource": "aws:sns", "Sns": {
    "Message": "AWS Budget Notification December 01, 2026\nAWS Account 123456789012\n"
               "Budget Name: llm-finetune-aws-monthly\nAlert Threshold: > $40,000.00\n"
               "ACTUAL Amount: $40,120.55"}}]}


@pytest.fixture
def moto_group(monkeypatch):
    moto = pytest.importorskip("moto", reason="moto is not installed (the test extra has it)")
    import boto3
    for key, value in {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
                       "AWS_DEFAULT_REGION": "us-east-1"}.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("AWS_ENDPOINT_URL", raising=False)
    with moto.mock_aws():
        client = boto3.client("autoscaling", region_name="us-east-1")
        client.create_launch_configuration(LaunchConfigurationName="lc", ImageId="ami-12c6146b",
                                           InstanceType="t3.micro")
        for name in ("llm-finetune-nodes", "someone-else"):
            client.create_auto_scaling_group(AutoScalingGroupName=name, LaunchConfigurationName="lc",
                                             MinSize=2, MaxSize=2, DesiredCapacity=2,
                                             AvailabilityZones=["us-east-1a"])
        monkeypatch.setenv("GROUP_NAME", "llm-finetune-nodes")
        yield client


def sizes(client, name):
    (g,) = client.describe_auto_scaling_groups(AutoScalingGroupNames=[name])["AutoScalingGroups"]
    return g["MinSize"], g["MaxSize"], g["DesiredCapacity"]


def test_aws_a_budget_notification_sets_the_group_to_zero(moto_group):
    result = aws_handler.handler(SNS_EVENT, None, client=moto_group)
    assert result["stopped"] is True and "Budget Notification" in result["notification"]
    assert sizes(moto_group, "llm-finetune-nodes") == (0, 0, 0)
    assert sizes(moto_group, "someone-else") == (2, 2, 2)


def test_aws_an_event_that_is_not_a_notification_changes_nothing(moto_group):
    assert aws_handler.handler({"Records": []}, None, client=moto_group)["stopped"] is False
    assert sizes(moto_group, "llm-finetune-nodes") == (2, 2, 2)


def test_aws_the_handler_creates_its_own_client_in_the_runtime(moto_group):
    assert aws_handler.handler(SNS_EVENT, None)["stopped"] is True  # boto3, as in Lambda
    assert sizes(moto_group, "llm-finetune-nodes") == (0, 0, 0)


# -- GCP plan ---------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def gcp_plan():
    import copy

    import yaml

    from tests.conftest import EXAMPLE
    return plan_for(copy.deepcopy(yaml.safe_load(EXAMPLE.read_text())), "gcp")


def test_gcp_the_budget_publishes_every_update_to_the_stop_topic(gcp_plan):
    budget = one(gcp_plan, "gcp:billing/budget:Budget")
    topic = one(gcp_plan, "gcp:pubsub/topic:Topic")
    rule = budget.inputs["allUpdatesRule"]
    assert rule["pubsubTopic"] == f"{topic.name}-id" and rule["schemaVersion"] == "1.0"
    assert rule["monitoringNotificationChannels"]  # e-mails still go out
    member = one(gcp_plan, "gcp:pubsub/topicIAMMember:TopicIAMMember")
    assert member.inputs["member"] == gcp_stop.BILLING_PUBLISHER
    assert member.inputs["role"] == "roles/pubsub.publisher"


def test_gcp_the_function_source_is_an_object_in_the_clusters_bucket(gcp_plan):
    bucket = next(r for r in gcp_plan.of_type("gcp:storage/bucket:Bucket") if r.name.endswith("-data"))
    source = one(gcp_plan, "gcp:storage/bucketObject:BucketObject")
    assert source.property_dependencies["bucket"] == [bucket.urn]
    files = source.inputs["source"]["archive"]["assets"]
    assert set(files) == {"main.py", "requirements.txt"}
    function = one(gcp_plan, "gcp:cloudfunctionsv2/function:Function")
    storage = function.inputs["buildConfig"]["source"]["storageSource"]
    assert storage["object"] == source.inputs["name"]
    assert function.inputs["buildConfig"]["entryPoint"] == gcp_stop.ENTRY_POINT


def test_gcp_the_function_is_triggered_by_the_topic_and_names_the_group(gcp_plan):
    function = one(gcp_plan, "gcp:cloudfunctionsv2/function:Function")
    group = one(gcp_plan, "gcp:compute/instanceGroupManager:InstanceGroupManager")
    trigger = function.inputs["eventTrigger"]
    assert trigger["eventType"] == "google.cloud.pubsub.topic.v1.messagePublished"
    env = function.inputs["serviceConfig"]["environmentVariables"]
    assert group.urn in function.property_dependencies["serviceConfig"]  # GROUP is the MIG's name
    assert env["ZONE"] == gcp_plan.inputs.selection.zone
    # The last alert threshold (100 %), capped at 90 %: billing reports actual cost late.
    assert float(env["STOP_FRACTION"]) == 0.9 and float(env["STOP_FORECAST_FRACTION"]) == 1.0


def test_gcp_the_budget_has_a_forecast_rule_for_the_stop(gcp_plan):
    budget = one(gcp_plan, "gcp:billing/budget:Budget")
    rules = {(r["spendBasis"], r["thresholdPercent"]) for r in budget.inputs["thresholdRules"]}
    assert ("FORECASTED_SPEND", 1.0) in rules and ("CURRENT_SPEND", 1.0) in rules


def test_gcp_the_trigger_account_may_invoke_the_function(gcp_plan):
    function = one(gcp_plan, "gcp:cloudfunctionsv2/function:Function")
    (invoker,) = gcp_plan.of_type("gcp:cloudrunv2/serviceIamMember:ServiceIamMember")
    assert invoker.inputs["role"] == "roles/run.invoker"
    # A 2nd-gen function is the Cloud Run service of its own name (known only once created).
    assert function.urn in invoker.dependencies
    trigger_account = function.inputs["eventTrigger"]["serviceAccountEmail"]
    assert invoker.inputs["member"] == f"serviceAccount:{trigger_account}"


def test_gcp_the_function_is_built_by_its_own_account(gcp_plan):
    function = one(gcp_plan, "gcp:cloudfunctionsv2/function:Function")
    (builder,) = [a for a in gcp_plan.of_type("gcp:serviceaccount/account:Account")
                  if a.name.endswith("budget-build")]
    assert builder.urn in function.property_dependencies["buildConfig"]
    assert function.inputs["buildConfig"]["serviceAccount"]  # not the default compute account
    members = [m for m in gcp_plan.of_type("gcp:projects/iAMMember:IAMMember")
               if builder.urn in m.property_dependencies.get("member", [])]
    roles = {m.inputs["role"] for m in members if "condition" not in m.inputs}
    assert roles == set(gcp_stop.BUILD_ROLES) == {"roles/logging.logWriter",
                                                  "roles/artifactregistry.writer"}
    # A gen2 build reads the source from Cloud Functions' staging bucket, not ours (issue 31):
    # read access there only, by a condition naming gcf-v2-sources-<project number>-<region>.
    (staging,) = [m for m in members if "condition" in m.inputs]
    assert staging.inputs["role"] == "roles/storage.objectViewer"
    region = gcp_plan.inputs.spec.location("gcp").region
    assert staging.inputs["condition"]["expression"] == (
        f'resource.name.startsWith("projects/_/buckets/gcf-v2-sources-000000000000-{region}")')
    (source,) = [m for m in gcp_plan.of_type("gcp:storage/bucketIAMMember:BucketIAMMember")
                 if builder.urn in m.property_dependencies.get("member", [])]
    assert source.inputs["role"] == "roles/storage.objectViewer"  # the cluster's bucket only


def test_gcp_the_function_may_resize_only_this_group(gcp_plan):
    member = next(m for m in gcp_plan.of_type("gcp:projects/iAMMember:IAMMember")
                  if m.name.endswith("budget-stop-resize"))
    assert member.inputs["role"] == gcp_stop.RESIZE_ROLE
    assert "instanceGroupManagers/" in member.inputs["condition"]["expression"]


# -- GCP function -----------------------------------------------------------------------------

def budget_event(cost, budget=50000.0, **extra):
    data = {"budgetDisplayName": "llm-finetune-gcp", "costAmount": cost, "budgetAmount": budget,
            "budgetAmountType": "SPECIFIED_AMOUNT", "currencyCode": "USD",
            "costIntervalStart": "2026-12-01T08:00:00Z", **extra}
    return {"data": {"message": {"data": base64.b64encode(json.dumps(data).encode()).decode()}}}


@pytest.fixture
def gcp_env(monkeypatch):
    for key, value in {"PROJECT": "demo", "ZONE": "us-central1-a", "GROUP": "llm-finetune-nodes",
                       "STOP_FRACTION": "1"}.items():
        monkeypatch.setenv(key, value)
    resized = []
    return lambda *call: resized.append(call), resized


def test_gcp_cost_at_the_budget_resizes_the_group_to_zero(gcp_env):
    resize, resized = gcp_env
    result = gcp_main.stop_on_budget(budget_event(50000.0, alertThresholdExceeded=1.0), resize)
    assert result["stopped"] is True
    assert resized == [("demo", "us-central1-a", "llm-finetune-nodes", 0)]


def test_gcp_cost_below_the_last_threshold_changes_nothing(gcp_env, monkeypatch):
    resize, resized = gcp_env
    assert gcp_main.stop_on_budget(budget_event(40000.0, alertThresholdExceeded=0.8),
                                   resize)["stopped"] is False
    monkeypatch.setenv("STOP_FRACTION", "0.8")  # the spec's last threshold may be 80 %
    assert gcp_main.stop_on_budget(budget_event(40000.0), resize)["stopped"] is True
    assert len(resized) == 1


def test_gcp_the_forecast_crossing_the_budget_stops_before_actual_cost(gcp_env, monkeypatch):
    resize, resized = gcp_env
    monkeypatch.setenv("STOP_FRACTION", "0.9")
    monkeypatch.setenv("STOP_FORECAST_FRACTION", "1.0")
    # 30 % spent, but the forecast crossed 100 %: stop now, not when the late actual arrives.
    assert gcp_main.stop_on_budget(budget_event(15000.0, forecastThresholdExceeded=1.0),
                                   resize)["stopped"] is True
    assert gcp_main.stop_on_budget(budget_event(15000.0, forecastThresholdExceeded=0.5),
                                   resize)["stopped"] is False
    assert gcp_main.stop_on_budget(budget_event(45000.0), resize)["stopped"] is True  # 90 %
    assert len(resized) == 2


def test_gcp_a_cloud_event_object_is_read_like_the_dict_form():
    class CloudEvent:
        data = budget_event(1.0)["data"]
    assert gcp_main.notification(CloudEvent())["costAmount"] == 1.0
