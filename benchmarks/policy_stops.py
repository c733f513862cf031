"""The pack over a stack of many nodes, each with an EventBridge stop of its own: how its time
grows with the stack, and whether two copies of the pack judge it alike.

    PYTHONPATH=build/import_root:. .venv/bin/python benchmarks/policy_stops.py \\
        --pack-dir BEFORE/policies --pack-dir policies [--nodes 200 800]

The stack (N p4d.24xlarge instances; two thirds stopped by an EventBridge Scheduler schedule
depending on the instance, one third by a scheduled rule's AWS-StopEC2Instance target that
names its rule by name; N/10 Auto Scaling groups, each with a Scheduler updateAutoScalingGroup
naming it by its own name, half to 0, half raising it; N/10 budgets filtered to a tag; one
Lambda schedule naming one team's tag) is the case benchmarks/policy_grpc.py's stack does not
reach: lifetimes and raises once read every schedule, target and rule for every node. Each pack
runs in a process of its own (runner.evaluate, every rule, spend-limit's cap forced to 1 USD);
it prints the CPU seconds of that call and a SHA-256 of every verdict plus the estimate's text
(which names each stop it priced). Times are cut to the hour, so a minute boundary between the
two runs changes nothing; an hour boundary can: rerun. No test runs it.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
from benchmarks.policy_grpc import PACK_IMPORT  # noqa: E402  (the path above first)

_CHILD = PACK_IMPORT + """import hashlib, json
from datetime import datetime, timedelta, timezone
from tests.policy_fixtures import OWNER_TAGS, res
from trainstack_policies.pack_config import PolicyConfig
from trainstack_policies.rules import RULES
from trainstack_policies.rules.spend_limit import _evaluate
from trainstack_policies.runner import evaluate

n, teams = int(sys.argv[2]), max(int(sys.argv[2]) // 10, 1)
at = (datetime.now(timezone.utc).replace(minute=0, second=0, microsecond=0)
      + timedelta(hours=30)).strftime("%Y-%m-%dT%H:%M:%S")
def aws(*args, **kwargs):
    return res(*args, **kwargs, provider_region="us-east-1")
def schedule(name, expr, arn, payload=None, deps=None):
    target = {"arn": arn, "roleArn": "arn:aws:iam::1:role/s"}
    if payload is not None:
        target["input"] = json.dumps(payload)
    return aws("aws:scheduler/schedule:Schedule", name, {
        "scheduleExpression": expr, "flexibleTimeWindow": {"mode": "OFF"}, "target": target},
        deps=deps)
sdk = "arn:aws:scheduler:::aws-sdk:"
stack = []
for i in range(n):
    node = aws("aws:ec2/instance:Instance", f"n{i}", {
        "instanceType": "p4d.24xlarge", "ami": "ami-1", "availabilityZone": "us-east-1a",
        "associatePublicIpAddress": False, "tags": {**OWNER_TAGS, "pool": f"team{i % teams}"}})
    stack.append(node)
    if i % 3:
        stack.append(schedule(f"s{i}", f"at({at})", sdk + "ec2:stopInstances",
                              {"InstanceIds": ["i-x"]}, {"target": [node]}))
        continue
    stack += [aws("aws:cloudwatch/eventRule:EventRule", f"rule{i}", {
                  "name": f"rule{i}", "scheduleExpression": "cron(0 5 * * ? *)"}),
              aws("aws:cloudwatch/eventTarget:EventTarget", f"t{i}", {
                  "rule": f"rule{i}", "input": "x", "arn": "arn:aws:ssm:us-east-1::"
                  "automation-definition/AWS-StopEC2Instance:$DEFAULT"}, deps={"input": [node]})]
for j in range(teams):
    lt = aws("aws:ec2/launchTemplate:LaunchTemplate", f"lt{j}", {
        "instanceType": "g5.xlarge", "imageId": "ami-1", "tags": dict(OWNER_TAGS)})
    group = aws("aws:autoscaling/group:Group", f"g{j}", {
        "name": f"grp{j}", "minSize": 0.0, "maxSize": 2.0, "desiredCapacity": 2.0,
        "availabilityZones": ["us-east-1a"], "launchTemplate": {"id": "x", "version": "1"},
        "tags": [{"key": k, "value": v, "propagateAtLaunch": True}
                 for k, v in OWNER_TAGS.items()]}, deps={"launchTemplate": [lt]})
    sizes = {"MinSize": 0, "MaxSize": 0, "DesiredCapacity": 0} if j % 2 else {"MaxSize": 4}
    stack += [lt, group, schedule(f"up{j}", f"at({at})", sdk + "autoscaling:updateAutoScalingGroup",
                                  {"AutoScalingGroupName": f"grp{j}", **sizes}),
              aws("aws:budgets/budget:Budget", f"b{j}", {
                  "budgetType": "COST", "timeUnit": "MONTHLY", "limitAmount": "50000",
                  "limitUnit": "USD", "tags": dict(OWNER_TAGS),
                  "costFilters": [{"name": "TagKeyValue", "values": [f"user:pool$team{j}"]}],
                  "notifications": [{"comparisonOperator": "GREATER_THAN", "threshold": 80,
                                     "thresholdType": "PERCENTAGE", "notificationType": "ACTUAL",
                                     "subscriberEmailAddresses": ["a@b.c"]}]})]
fn = aws("aws:lambda/function:Function", "fn", {"runtime": "python3.12", "handler": "m.h",
         "role": "r", "environment": {"variables": {"TAG_FILTER": "pool=team1"}}})
stack += [fn, schedule("lam", "cron(0 3 * * ? *)", "arn:aws:lambda:us-east-1:1:function:fn",
                       deps={"target": [fn]})]
config = {r.name: PolicyConfig(r.enforcement_level) for r in RULES}
config["spend-limit"] = PolicyConfig("mandatory", {"maxMonthlyUsd": 1})
cpu = time.process_time()
verdicts = evaluate(stack, config)
cpu = time.process_time() - cpu
text = "\\n".join(repr(v) for v in verdicts) + "\\n" + _evaluate(stack, {})[1].describe(None)
print(len(stack), f"{cpu:.2f}", hashlib.sha256(text.encode()).hexdigest())
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pack-dir", action="append", type=Path, required=True,
                        help="a copy of policies/ (one or two)")
    parser.add_argument("--nodes", type=int, nargs="+", default=[200, 800])
    args = parser.parse_args()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONHASHSEED": "0"}
    differ = False
    for n in args.nodes:
        digests = set()
        for pack in args.pack_dir:
            out = subprocess.run([sys.executable, "-c", _CHILD, str(pack.resolve()), str(n)],
                                 env=env, capture_output=True, text=True, check=True)
            resources, cpu, digest = out.stdout.split()
            digests.add(digest)
            print(f"{pack}: {n} nodes, {resources} resources, {cpu} CPU s, sha256 {digest[:16]}")
        if len(digests) > 1:
            differ = True
            print(f"DIFFERENT at {n} nodes")
    if len(args.pack_dir) == 2 and not differ:
        print("IDENTICAL at every size")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
