"""AWS budget action: the budget's stop notifications stop the nodes (group to 0, data kept).

Budgets -> an SNS topic (its policy lets budgets.amazonaws.com publish) -> a Lambda function
(components/functions/aws_budget_stop) whose role may update only this Auto Scaling group.

Two notifications publish to the topic (`notifications()`): the FORECAST reaching 100 % of the
budget, and ACTUAL spend at the last alert threshold capped at STOP_ACTUAL_PERCENT. Billing
reports actual cost hours late (at 16 x p5 that is thousands of dollars past 100 %), so waiting
for actual 100 % overspends; AWS forecasts only once the account has some cost history.

A stop that fails must not vanish: SNS redelivers to the function, the function's own async
retries end in a dead-letter SQS queue (and so does an SNS delivery that never reached it),
kept 14 days, and a CloudWatch alarm on that queue goes into ALARM (wire it to a pager).
"""
from __future__ import annotations

import json
from pathlib import Path

import pulumi
import pulumi_aws as aws

FUNCTION_DIR = Path(__file__).resolve().parents[1] / "functions" / "aws_budget_stop"  # package data
RUNTIME = "python3.12"
STOP_ACTUAL_PERCENT = 90.0    # actual spend that stops the nodes, at most
STOP_FORECAST_PERCENT = 100.0


def notifications(thresholds: list[float], emails: list[str], stop_topic_arn
                  ) -> list[aws.budgets.BudgetNotificationArgs]:
    """The budget's notifications: e-mail at every alert threshold (actual spend), and the stop
    topic on the forecast and on actual spend at min(last threshold, STOP_ACTUAL_PERCENT)."""
    stop_at = min(max(thresholds), STOP_ACTUAL_PERCENT)
    percents = sorted(set(thresholds) | {stop_at})

    def note(kind, percent, stop):
        return aws.budgets.BudgetNotificationArgs(
            comparison_operator="GREATER_THAN", notification_type=kind, threshold=float(percent),
            threshold_type="PERCENTAGE", subscriber_email_addresses=list(emails) or None,
            subscriber_sns_topic_arns=[stop_topic_arn] if stop else None)
    return [note("ACTUAL", p, p == stop_at) for p in percents] + \
        [note("FORECASTED", STOP_FORECAST_PERCENT, True)]


def _topic_policy(topic_arn: str, account_id: str, budget_name: str = "*") -> str:
    # Only this account's budget may publish (the confused-deputy conditions AWS's "Creating an
    # Amazon SNS topic for budget notifications" policy carries).
    budget = f"budget/{budget_name}" if budget_name != "*" else "*"
    return json.dumps({"Version": "2012-10-17", "Statement": [{
        "Sid": "AwsBudgetsPublish", "Effect": "Allow",
        "Principal": {"Service": "budgets.amazonaws.com"},
        "Action": "SNS:Publish", "Resource": topic_arn,
        "Condition": {"StringEquals": {"aws:SourceAccount": account_id},
                      "ArnLike": {"aws:SourceArn": f"arn:aws:budgets::{account_id}:{budget}"}}}]})


def group_arn_pattern(region: str, group_name: str) -> str:
    """The group's ARN by name (its UUID part wildcarded), the form IAM examples use for
    Auto Scaling groups; known before the group exists, so the plan shows the real policy."""
    return f"arn:aws:autoscaling:{region}:*:autoScalingGroup:*:autoScalingGroupName/{group_name}"


def _role_policy(group_arn: str, queue_arn: str) -> str:
    return json.dumps({"Version": "2012-10-17", "Statement": [
        {"Sid": "StopThisGroupOnly", "Effect": "Allow",
         "Action": "autoscaling:UpdateAutoScalingGroup", "Resource": group_arn},
        {"Sid": "DeadLetter", "Effect": "Allow", "Action": "sqs:SendMessage",
         "Resource": queue_arn},
        {"Sid": "Logs", "Effect": "Allow", "Resource": "*",
         "Action": ["logs:CreateLogGroup", "logs:CreateLogStream", "logs:PutLogEvents"]}]})


def _queue_policy(queue_arn: str, topic_arn: str) -> str:
    """SNS may put a delivery it could not make into the dead-letter queue."""
    return json.dumps({"Version": "2012-10-17", "Statement": [{
        "Sid": "SnsRedrive", "Effect": "Allow", "Principal": {"Service": "sns.amazonaws.com"},
        "Action": "sqs:SendMessage", "Resource": queue_arn,
        "Condition": {"ArnEquals": {"aws:SourceArn": topic_arn}}}]})


ASSUME_LAMBDA = json.dumps({"Version": "2012-10-17", "Statement": [{
    "Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"},
    "Action": "sts:AssumeRole"}]})


def budget_stop(parent: pulumi.Resource, name: str, group: aws.autoscaling.Group, region: str,
                tags: dict[str, str], budget_name: str = "*") -> aws.sns.Topic:
    """Declare topic, function and permissions; returns the topic the budget notifies."""
    child = pulumi.ResourceOptions(parent=parent)
    topic = aws.sns.Topic(f"{name}-budget-stop", region=region, tags=tags, opts=child)
    account = aws.get_caller_identity_output(opts=pulumi.InvokeOutputOptions(parent=parent))
    aws.sns.TopicPolicy(f"{name}-budget-stop-publish", arn=topic.arn,
                        policy=pulumi.Output.all(topic.arn, account.account_id).apply(
                            lambda v: _topic_policy(v[0], v[1], budget_name)),
                        region=region, opts=child)
    dead = aws.sqs.Queue(f"{name}-budget-stop-dead-letter", message_retention_seconds=14 * 86400,
                         region=region, tags=tags, opts=child)
    aws.sqs.QueuePolicy(f"{name}-budget-stop-dead-letter", queue_url=dead.url,
                        policy=pulumi.Output.all(dead.arn, topic.arn).apply(
                            lambda a: _queue_policy(a[0], a[1])), region=region, opts=child)
    role = aws.iam.Role(f"{name}-budget-stop-role", assume_role_policy=ASSUME_LAMBDA, tags=tags,
                        opts=child)
    aws.iam.RolePolicy(f"{name}-budget-stop-scale", role=role.id,
                       policy=pulumi.Output.all(group.name, dead.arn).apply(
                           lambda a: _role_policy(group_arn_pattern(region, a[0]), a[1])),
                       opts=child)
    function = aws.lambda_.Function(
        f"{name}-budget-stop", runtime=RUNTIME, handler="handler.handler", role=role.arn,
        code=pulumi.AssetArchive({"handler.py": pulumi.FileAsset(str(FUNCTION_DIR / "handler.py"))}),
        environment=aws.lambda_.FunctionEnvironmentArgs(variables={"GROUP_NAME": group.name}),
        dead_letter_config=aws.lambda_.FunctionDeadLetterConfigArgs(target_arn=dead.arn),
        timeout=60, region=region, tags=tags, opts=child)
    aws.lambda_.Permission(f"{name}-budget-stop-invoke", action="lambda:InvokeFunction",
                           function=function.name, principal="sns.amazonaws.com",
                           source_arn=topic.arn, region=region, opts=child)
    aws.sns.TopicSubscription(f"{name}-budget-stop-subscription", topic=topic.arn,
                              protocol="lambda", endpoint=function.arn, region=region,
                              redrive_policy=dead.arn.apply(
                                  lambda arn: json.dumps({"deadLetterTargetArn": arn})),
                              opts=child)
    # Anything in the dead-letter queue is a stop that did not happen: say so.
    aws.cloudwatch.MetricAlarm(
        f"{name}-budget-stop-failed", alarm_description="trainstack: a budget stop failed; the "
        "nodes may still run (messages in the dead-letter queue)",
        namespace="AWS/SQS", metric_name="ApproximateNumberOfMessagesVisible",
        dimensions={"QueueName": dead.name}, statistic="Maximum", period=300,
        evaluation_periods=1, threshold=0, comparison_operator="GreaterThanThreshold",
        treat_missing_data="notBreaching", region=region, tags=tags, opts=child)
    return topic
