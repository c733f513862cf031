"""Budget actions: the budget's last threshold stops the nodes (group to 0, data kept).
The plans wire budget -> topic -> function; the function code runs offline here."""
import base64
import json

import pytest

from components.aws import budget_action as aws_stop
from components.functions.aws_budget_stop import handler as aws_handler
from components.functions.gcp_budget_stop import main as gcp_main
from components.gcp import budget_action as gcp_stop
from tests.conftest import plan_for


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


def test_aws_only_the_last_budget_notification_publishes_to_the_stop_topic(aws_plan):
    budget = one(aws_plan, "aws:budgets/budget:Budget")
    topic = one(aws_plan, "aws:sns/topic:Topic")
    notes = sorted(budget.inputs["notifications"], key=lambda n: n["threshold"])
    assert [bool(n.get("subscriberSnsTopicArns")) for n in notes] == [False] * (len(notes) - 1) + [True]
    assert budget.property_dependencies["notifications"] == [topic.urn]
    assert all(n["subscriberEmailAddresses"] for n in notes)  # e-mails still go out


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
    assert role_policy.property_dependencies["policy"] == [group.urn]
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
    assert float(env["STOP_FRACTION"]) == max(gcp_plan.inputs.spec.budget.alert_percents) / 100


def test_gcp_the_function_may_resize_only_this_group(gcp_plan):
    member = one(gcp_plan, "gcp:projects/iAMMember:IAMMember")
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


def test_gcp_a_cloud_event_object_is_read_like_the_dict_form():
    class CloudEvent:
        data = budget_event(1.0)["data"]
    assert gcp_main.notification(CloudEvent())["costAmount"] == 1.0
