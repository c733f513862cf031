"""AWS Lambda: the budget's last threshold was crossed, so the node group goes to 0.

AWS Budgets publishes to an SNS topic that only the budget's last notification subscribes to;
SNS invokes this function. It sets the Auto Scaling group (GROUP_NAME, in the function's region)
to min/max/desired 0. The filesystem, the bucket and the rest of the stack stay: the data is
kept and a later `trainstack up` brings the nodes back. Its IAM role may update only this group.
"""
from __future__ import annotations

import json
import os


def budget_messages(event: dict) -> list[str]:
    return [record["Sns"]["Message"] for record in event.get("Records", [])
            if record.get("EventSource") == "aws:sns" or "Sns" in record]


def handler(event: dict, context=None, client=None) -> dict:
    messages = budget_messages(event)
    group = os.environ["GROUP_NAME"]
    if not messages:
        return {"stopped": False, "group": group, "reason": "not an SNS budget notification"}
    if client is None:
        import boto3  # in the Lambda runtime
        client = boto3.client("autoscaling")
    client.update_auto_scaling_group(AutoScalingGroupName=group, MinSize=0, MaxSize=0,
                                     DesiredCapacity=0)
    result = {"stopped": True, "group": group, "notification": messages[0][:500]}
    print(json.dumps(result))  # CloudWatch Logs: the record of why the nodes went away
    return result
