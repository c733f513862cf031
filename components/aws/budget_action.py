"""AWS budget action: the budget's last notification stops the nodes (group to 0, data kept).

Budgets → an SNS topic (its policy lets budgets.amazonaws.com publish) → a Lambda function
(components/functions/aws_budget_stop) whose role may update only this Auto Scaling group.
"""
from __future__ import annotations

import json
from pathlib import Path

import pulumi
import pulumi_aws as aws

FUNCTION_DIR = Path(__file__).resolve().parents[1] / "functions" / "aws_budget_stop"  # package data
RUNTIME = "python3.12"


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


def _role_policy(group_arn: str) -> str:
    return json.dumps({"Version": "2012-10-17", "Statement": [
        {"Sid": "StopThisGroupOnly", "Effect": "Allow",
         "Action": "autoscaling:UpdateAutoScalingGroup", "Resource": group_arn},
        {"Sid": "Logs", "Effect": "Allow", "Resource": "*",
         "Action": ["logs:CreateLogGroup", "logs:CreateLogStream", "logs:PutLogEvents"]}]})


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
    role = aws.iam.Role(f"{name}-budget-stop-role", assume_role_policy=ASSUME_LAMBDA, tags=tags,
                        opts=child)
    aws.iam.RolePolicy(f"{name}-budget-stop-scale", role=role.id,
                       policy=group.name.apply(lambda g: _role_policy(group_arn_pattern(region, g))),
                       opts=child)
    function = aws.lambda_.Function(
        f"{name}-budget-stop", runtime=RUNTIME, handler="handler.handler", role=role.arn,
        code=pulumi.AssetArchive({"handler.py": pulumi.FileAsset(str(FUNCTION_DIR / "handler.py"))}),
        environment=aws.lambda_.FunctionEnvironmentArgs(variables={"GROUP_NAME": group.name}),
        timeout=60, region=region, tags=tags, opts=child)
    aws.lambda_.Permission(f"{name}-budget-stop-invoke", action="lambda:InvokeFunction",
                           function=function.name, principal="sns.amazonaws.com",
                           source_arn=topic.arn, region=region, opts=child)
    aws.sns.TopicSubscription(f"{name}-budget-stop-subscription", topic=topic.arn,
                              protocol="lambda", endpoint=function.arn, region=region, opts=child)
    return topic
