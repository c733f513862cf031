"""Issue 35, the open edges the last sessions left (helper edges35), driven over gRPC as
`pulumi preview --policy-pack` drives the pack, each expected verdict written in the test's
comment BEFORE the pack was changed, with the provider document or schema keyword that decides it.

11. One validator for the pack's configuration. `trainstack check --policy-config` and the
    pack's Configure (a runner that sends settings the CLI would not validate) refuse the same
    bad settings with the same words: JSON Schema draft 7 (the keyword each case breaks is named;
    the wording is the jsonschema library's, which the Pulumi CLI's gojsonschema mirrors in
    meaning) plus the pack's own "not in the policy's schema" for a key it does not take.
12. An aws-native AutoScalingGroup with no vpcZoneIdentifier (availabilityZones only) launches
    "into the default VPC subnet in each Availability Zone" (docs.aws.amazon.com/autoscaling/
    ec2/APIReference/API_CreateAutoScalingGroup.html, AvailabilityZones), and "by default, a
    default subnet is a public subnet" (docs.aws.amazon.com/vpc/latest/userguide/default-
    vpc.html): no-public-ingress fails it unless its launch template turns public IPs off, as
    for the classic aws.autoscaling.Group.
13. rate() schedules. EventBridge Scheduler: "use StartDate to set the first occurrence"; with
    none, the schedule "starts invoking the target immediately" (docs.aws.amazon.com/scheduler/
    latest/UserGuide/schedule-types.html, rate-based). A scheduled rule: "a rate expression
    starts when you create the scheduled event rule, and then it runs on a defined schedule"
    (docs.aws.amazon.com/eventbridge/latest/userguide/eb-rate-expressions.html): its first run is
    no later than one period after creation. A recurring start runs until its endDate.
14. Alibaba DNAT (vpc.ForwardEntry) whose internalIp is written as a literal address, the
    private IP the stack gives a node (ecs.Instance privateIp): the node is reachable from the
    internet through the NAT gateway's EIP as when the entry depends on the node.
15. A Lambda function run on a schedule that finds the nodes by tag (the tag's key and value in
    its environment variables or in the schedule's input, e.g. an ec2:DescribeInstances filter
    "tag:KEY"): what its code does cannot be read, and it may start them again (Scheduler
    Lambda targets: docs.aws.amazon.com/scheduler/latest/UserGuide/managing-targets-
    templated.html), as the pack already reads a Lambda whose input depends on the nodes: a stop
    before its run is a pause. One naming a tag the nodes do not carry changes nothing.

Spend is worked by hand from the catalog's cited rows (policies/catalog_data/prices.csv,
on-demand USD/h): p4d.24xlarge us-east-1 21.9576; g6e.xlarge us-east-1 1.861.

First run (committed before the pack changed, e790502; 15 in a09c08a): section 11, 6 of 12
disagreed (zero, negative, negative-fee: Configure said "0.0", "-250.0", "-1.0", as gRPC's Struct
carries numbers; empty-item: "is too short" against jsonschema's "should be non-empty";
duplicates: the value left out; zone-number was mine, a misspelt key "zone" for "zones", and
after the fix it disagreed as the others, "1.0"); 12a and 12d (an aws-native group placed by
zones passed), 14a (DNAT to a literal private IP passed), 15a x2, 15b, 15c (a Lambda finding the
nodes by tag left the stop a lifetime) disagreed; 12b, 12c, 13a-13d, 14b, 15d agreed (13: the
pack already read rate() as the documents say; only the rule's citation was added). Written
later: a misspelt key beside a bad value (Configure named the key first, check the value:
disagreed, 2c55245), and an unknown policy beside a bad value (agreed; it guards the
order Configure now keeps).
Bugs planted, each caught: schema_errors without _json_numbers by 11 zero, negative,
negative-fee, zone-number; the aws-native template's interfaces read at its top level by 12b;
the literal internalIp looked up unstripped-plus-space by 14a; a rule's rate() read as firing at
once by 13a; a Scheduler startDate ignored by 13b; the Lambda's environment not read by 15a
[environment], 15b, 15c; "tag:KEY" not read by 15a[input-filter]; the tag's value not required
by 15d; Configure checking the policy names after the values by the unknown-policy case.
"""
from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import grpc
import pytest
from typer.testing import CliRunner

from tests.policies.test_policy_edges35 import ASG_TO_ZERO, _named_asg
from tests.policies.test_policy_edges35b import _in, _rule, _schedule, _ssm_target
from tests.policies.test_policy_review35d import estimate, near, p4d
from tests.policies.test_policy_review35f import (
    ALI,
    AWS,
    NPI,
    aws_budget,
    ec2,
    ecs,
    messages,
    verdict,
)
from tests.policy_fixtures import res
from tests.policy_harness import run

P4D = 21.9576
G6E = 1.861


# ============================================================ 11. one validator for the config

# (policy, settings, the words both must say). Expected, each: `trainstack check` exits 2 and
# the pack's Configure answers INVALID_ARGUMENT, each naming the policy, the key and the fault
# in the same words (a setting either one would drop must stop the run).
BAD = [
    # type: number; the text "1000" is a string, never read as a number
    ("spend-limit", {"maxMonthlyUsd": "1000"},
     "spend-limit: maxMonthlyUsd: '1000' is not of type 'number'"),
    # type: number; JSON true is a boolean, not 1
    ("spend-limit", {"maxMonthlyUsd": True},
     "spend-limit: maxMonthlyUsd: True is not of type 'number'"),
    # exclusiveMinimum 0: a cap of 0 or below
    ("spend-limit", {"maxMonthlyUsd": 0},
     "spend-limit: maxMonthlyUsd: 0 is less than or equal to the minimum of 0"),
    ("spend-limit", {"maxMonthlyUsd": -250},
     "spend-limit: maxMonthlyUsd: -250 is less than or equal to the minimum of 0"),
    # a key the policy does not take (the CLI ignores it: the cap would be dropped)
    ("spend-limit", {"maxMonthlyUSD": 1000},
     "spend-limit: maxMonthlyUSD not in the policy's schema"),
    # additionalProperties {type: number, minimum: 0}: a negative fee
    ("spend-limit", {"capacityBlockFeesUsd": {"gpu-block": -1}},
     "spend-limit: capacityBlockFeesUsd.gpu-block: -1 is less than the minimum of 0"),
    # enum [mandatory, advisory]
    ("spend-limit", {"cannotDecide": "sometimes"},
     "spend-limit: cannotDecide: 'sometimes' is not one of ['mandatory', 'advisory']"),
    # type: array; one CIDR given as a string
    ("no-public-ingress", {"sshCidrs": "203.0.113.0/24"},
     "no-public-ingress: sshCidrs: '203.0.113.0/24' is not of type 'array'"),
    # items minLength 1
    ("no-public-ingress", {"sshCidrs": [""]},
     "no-public-ingress: sshCidrs.0: '' should be non-empty"),
    # uniqueItems
    ("required-tags", {"requiredTags": ["owner", "owner"]},
     "required-tags: requiredTags: ['owner', 'owner'] has non-unique elements"),
    # skipResources items pattern "::" (a bare name is refused)
    ("required-tags", {"skipResources": ["scratch-bucket"]},
     "required-tags: skipResources.0: 'scratch-bucket' does not match '::'"),
    # additionalProperties {type: string}: a zone given as a number
    ("storage-same-zone", {"zones": {"subnet-0aaa1111": 1}},
     "storage-same-zone: zones.subnet-0aaa1111: 1 is not of type 'string'"),
]
IDS = ["string-number", "boolean", "zero", "negative", "misspelt-key", "negative-fee",
       "enum", "string-for-array", "empty-item", "duplicates", "bare-skip-name",
       "zone-number"]


def _words(text):
    return " ".join(text.split())


def _check_refusal(tmp_path, policy, settings):
    """`trainstack check --policy-config FILE` on the aws example stack: (exit code, output)."""
    from trainstack.cli.app import app
    config = tmp_path / "policy.json"
    config.write_text(json.dumps({policy: {"enforcementLevel": "mandatory", **settings}}))
    result = CliRunner().invoke(app, ["check", "--stack", "aws", "--policy-config",
                                      str(config)])
    return result.exit_code, _words(result.output)


def _configure_refusal(pack, policy, settings):
    """Configure as a runner that does not validate sends it: the CLI's full config (every
    policy at its defaults) with `settings` on `policy`: the problem text of the refusal."""
    config = pack.cli_config()
    config[policy].update(settings)
    with pytest.raises(grpc.RpcError) as err:
        pack.send_config(config)
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    return _words(err.value.details()).split(". Fix the ")[0]


@pytest.mark.parametrize("policy,settings,words", BAD, ids=IDS)
def test_11_a_bad_setting_is_refused_by_check_and_by_configure_in_the_same_words(
        pack, tmp_path, policy, settings, words):
    over_grpc = _configure_refusal(pack, policy, settings)
    code, output = _check_refusal(tmp_path, policy, settings)
    assert code == 2, output
    assert over_grpc.startswith(words), over_grpc
    assert over_grpc in output, (over_grpc, output)


def test_11_a_misspelt_key_beside_a_bad_value_reads_the_same_from_both(pack, tmp_path):
    # Expected: {"maxMonthlyUSD": 1000, "maxMonthlyUsd": "1000"}: both refuse it and say the
    # same first: the value the schema refuses (what `trainstack check` has always said first).
    settings = {"maxMonthlyUSD": 1000, "maxMonthlyUsd": "1000"}
    over_grpc = _configure_refusal(pack, "spend-limit", settings)
    code, output = _check_refusal(tmp_path, "spend-limit", settings)
    assert code == 2, output
    assert over_grpc == "spend-limit: maxMonthlyUsd: '1000' is not of type 'number'", over_grpc
    assert over_grpc in output, (over_grpc, output)


def test_11_an_unknown_policy_beside_a_bad_value_is_named_first_by_both(pack, tmp_path):
    # Expected: "spend-limits" (no such policy) beside spend-limit maxMonthlyUsd "1000": both
    # refuse it naming the unknown policy first, as check reads the names before the values.
    config = tmp_path / "policy.json"
    config.write_text(json.dumps({"spend-limits": {"enforcementLevel": "mandatory"},
                                  "spend-limit": {"maxMonthlyUsd": "1000"}}))
    from trainstack.cli.app import app
    result = CliRunner().invoke(app, ["check", "--stack", "aws", "--policy-config", str(config)])
    assert result.exit_code == 2, result.output
    first = "'spend-limits' is not a policy of this pack"
    assert _words(result.output).split("policy.json: ", 1)[1].startswith(first), result.output
    sent = pack.cli_config()
    sent["spend-limit"]["maxMonthlyUsd"] = "1000"
    sent["spend-limits"] = {"enforcementLevel": "mandatory"}
    with pytest.raises(grpc.RpcError) as err:
        pack.send_config(sent)
    assert err.value.details().startswith(first), err.value.details()


def test_11_good_settings_pass_both(pack, tmp_path):
    # Expected: maxMonthlyUsd 1000 (a JSON integer, a float once over gRPC's Struct), sshCidrs
    # one CIDR, a fee of 0: taken by both (check exits 0 or 1 on the verdicts, never 2).
    good = {"maxMonthlyUsd": 1000, "capacityBlockFeesUsd": {"gpu-block": 0}}
    config = pack.cli_config()
    config["spend-limit"].update(good)
    config["no-public-ingress"]["sshCidrs"] = ["203.0.113.0/24"]
    pack.send_config(config)
    code, output = _check_refusal(tmp_path, "spend-limit", good)
    assert code in (0, 1), output


# ================================================ 12. aws-native groups in the default VPC

def _native_lt(name="lt", **data):
    return res("aws-native:ec2:LaunchTemplate", name, {"launchTemplateData": {
        "instanceType": "g6.xlarge", "imageId": "ami-0a1b2c3d4e5f60718", **data}})


def _native_asg(template=None, **props):
    deps = {"launchTemplate": [template]} if template is not None else {}
    return res("aws-native:autoscaling:AutoScalingGroup", "l4-nodes", {
        "minSize": "0", "maxSize": "2", "desiredCapacity": "1",
        "launchTemplate": {"launchTemplateId": "lt-id", "version": "1"}, **props}, deps=deps)


def test_12a_native_group_placed_by_zones_gets_public_ips(pack):
    # Expected: fail. availabilityZones only, a launch template with no interfaces: the
    # default VPC's default subnets, public IPs on launch.
    t = _native_lt()
    g = _native_asg(t, availabilityZones=["us-east-1a"])
    found = run(pack, [t, g, aws_budget()], provider=AWS)
    assert verdict(found, NPI) == "fail", messages(found, NPI)
    assert any("default VPC" in d.message and d.urn == g.urn for d in found
               if d.policy == NPI), messages(found, NPI)


def test_12b_native_group_whose_template_declines_public_ips(pack):
    # Expected: pass. The template's only interface says associatePublicIpAddress false,
    # which overrides the subnet's mapPublicIpOnLaunch (the classic group's w4/u-cases).
    t = _native_lt(networkInterfaces=[{"deviceIndex": 0, "associatePublicIpAddress": False,
                                        "groups": ["sg-0team"]}])
    g = _native_asg(t, availabilityZones=["us-east-1a"])
    found = run(pack, [t, g, aws_budget()], provider=AWS)
    assert verdict(found, NPI) == "pass", messages(found, NPI)


def test_12c_native_group_in_a_subnet_is_not_in_the_default_vpc(pack):
    # Expected: pass both ways: vpcZoneIdentifier a literal subnet id, and a private subnet of
    # the stack (mapPublicIpOnLaunch unset: false).
    t = _native_lt()
    g = _native_asg(t, vpcZoneIdentifier=["subnet-0aaa1111"])
    found = run(pack, [t, g, aws_budget()], provider=AWS)
    assert verdict(found, NPI) == "pass", messages(found, NPI)
    s = res("aws:ec2/subnet:Subnet", "private-a", {"vpcId": "vpc-0team",
                                                   "availabilityZone": "us-east-1a",
                                                   "cidrBlock": "10.1.0.0/20"})
    g = _native_asg(t, vpcZoneIdentifier=["subnet-id"])
    g.deps["vpcZoneIdentifier"] = [s]
    found = run(pack, [s, t, g, aws_budget()], provider=AWS)
    assert verdict(found, NPI) == "pass", messages(found, NPI)


def test_12d_native_group_from_a_native_launch_configuration_without_public_ip(pack):
    # Expected: pass. A launch configuration (AWS::AutoScaling::LaunchConfiguration
    # AssociatePublicIpAddress false) named by launchConfigurationName; and fail when it
    # leaves the setting out (the default subnet's default applies).
    lc = res("aws-native:autoscaling:LaunchConfiguration", "lc", {
        "imageId": "ami-0a1b2c3d4e5f60718", "instanceType": "g6.xlarge",
        "associatePublicIpAddress": False})
    g = res("aws-native:autoscaling:AutoScalingGroup", "l4-nodes", {
        "minSize": "0", "maxSize": "1", "availabilityZones": ["us-east-1a"],
        "launchConfigurationName": "lc-name"}, deps={"launchConfigurationName": [lc]})
    found = run(pack, [lc, g, aws_budget()], provider=AWS)
    assert verdict(found, NPI) == "pass", messages(found, NPI)
    del lc.props["associatePublicIpAddress"]
    found = run(pack, [lc, g, aws_budget()], provider=AWS)
    assert verdict(found, NPI) == "fail", messages(found, NPI)


# ======================================================================= 13. rate() schedules

def test_13a_a_rate_rule_stops_no_later_than_one_period_after_creation(pack):
    # Expected: a rule rate(7 days) running AWS-StopEC2Instance on the g6e.xlarge instance it
    # depends on, nothing restarts it: the first run at the latest 7 d = 168 h after creation:
    # 1.861 x 168 = 312.65.
    node = ec2("box", "g6e.xlarge")
    rule = _rule("weekly", "rate(7 days)")
    stack = [node, rule, _ssm_target(rule, "AWS-StopEC2Instance", node), aws_budget()]
    assert near(estimate(pack, stack, AWS), G6E * 168)


def test_13b_a_rate_scheduler_stop_with_a_start_date_runs_first_then(pack):
    # Expected: Scheduler rate(2 days) ec2:stopInstances with startDate 10 h 30 min from now:
    # the first occurrence is the startDate (not one period after it): 11 started hours,
    # 21.9576 x 11 = 241.53.
    node = p4d("a100")
    start = _in(hours=10, minutes=30).strftime("%Y-%m-%dT%H:%M:%SZ")
    stop = _schedule("stop-gpu", "ec2:stopInstances", {"InstanceIds": ["i-from-node"]},
                     "rate(2 days)", deps={"target": [node]}, startDate=start)
    assert near(estimate(pack, [node, stop, aws_budget()], AWS), P4D * 11)


def test_13c_a_recurring_rate_start_makes_a_later_stop_a_pause(pack):
    # Expected: a one-time stop at +30 h beside a rate(12 hours) ec2:startInstances on the same
    # instance with no endDate: the start runs after the stop (it recurs), so the stop is a
    # pause: the month, 21.9576 x 730 = 16,029.05.
    node = p4d("a100")
    ids = {"InstanceIds": ["i-from-node"]}
    when = _in(hours=30, minutes=0).strftime("%Y-%m-%dT%H:%M:%S")
    stop = _schedule("stop-gpu", "ec2:stopInstances", ids, f"at({when})",
                     deps={"target": [node]})
    start = _schedule("start-gpu", "ec2:startInstances", ids, "rate(12 hours)",
                      deps={"target": [node]})
    assert near(estimate(pack, [node, stop, start, aws_budget()], AWS), P4D * 730)


def test_13d_a_rate_start_that_ends_before_the_stop_changes_nothing(pack):
    # Expected: the same rate(12 hours) start with endDate 6 h from now ("before which the
    # schedule can invoke its target", API_CreateSchedule.html EndDate): its last run is before
    # the stop at +30 h, so the stop holds: 30 h, 21.9576 x 30 = 658.73.
    node = p4d("a100")
    ids = {"InstanceIds": ["i-from-node"]}
    when = _in(hours=30, minutes=0).strftime("%Y-%m-%dT%H:%M:%S")
    stop = _schedule("stop-gpu", "ec2:stopInstances", ids, f"at({when})",
                     deps={"target": [node]})
    end = (datetime.now(timezone.utc) + timedelta(hours=6)).strftime("%Y-%m-%dT%H:%M:%SZ")
    start = _schedule("start-gpu", "ec2:startInstances", ids, "rate(12 hours)",
                      deps={"target": [node]}, endDate=end)
    assert near(estimate(pack, [node, stop, start, aws_budget()], AWS), P4D * 30)


# ========================================================== 14. DNAT to a literal internal IP

def _nat(network="internet"):
    return res("alicloud:vpc/natGateway:NatGateway", "nat", {
        "vpcId": "vpc-id", "vswitchId": "vsw-id", "natType": "Enhanced",
        "paymentType": "PayAsYouGo", "networkType": network})


def _dnat(nat, internal_ip):
    return res("alicloud:vpc/forwardEntry:ForwardEntry", "ssh", {
        "forwardTableId": "ftb-id", "externalIp": "47.0.0.1", "externalPort": "22",
        "ipProtocol": "tcp", "internalIp": internal_ip, "internalPort": "22"},
        deps={"forwardTableId": [nat]})


def test_14a_dnat_to_the_literal_private_ip_of_a_gpu_node(pack):
    # Expected: fail. The node is given privateIp 10.0.1.20 and the entry forwards port 22 of
    # the internet NAT gateway's EIP to 10.0.1.20, written as text.
    n = ecs("n0", privateIp="10.0.1.20")
    nat = _nat()
    found = run(pack, [n, nat, _dnat(nat, "10.0.1.20")], provider=ALI)
    assert verdict(found, NPI) == "fail", messages(found, NPI)


def test_14b_dnat_to_another_address_or_through_a_vpc_nat_is_no_exposure(pack):
    # Expected: pass, each: the entry forwards to 10.0.1.99 (no node of the stack has it), and
    # the same address as the node's through a VPC (intranet) NAT gateway, which maps private
    # addresses only.
    n = ecs("n0", privateIp="10.0.1.20")
    nat = _nat()
    found = run(pack, [n, nat, _dnat(nat, "10.0.1.99")], provider=ALI)
    assert verdict(found, NPI) == "pass", messages(found, NPI)
    vpc_nat = _nat("intranet")
    found = run(pack, [n, vpc_nat, _dnat(vpc_nat, "10.0.1.20")], provider=ALI)
    assert verdict(found, NPI) == "pass", messages(found, NPI)


# ==================================================== 15. a Lambda that finds the nodes by tag

POOL_TAG = {"gpu-pool": "a100-nightly"}


def _function(variables=None):
    return res("aws:lambda/function:Function", "wake-gpus", {
        "runtime": "python3.12", "handler": "main.handler", "role": "arn:aws:iam::1:role/fn",
        **({"environment": {"variables": variables}} if variables else {})})


def _lambda_schedule(fn, payload=None, expr=None):
    return res("aws:scheduler/schedule:Schedule", "wake", {
        "scheduleExpression": expr or f"cron(0 {_in(hours=40).hour} * * ? *)",
        "flexibleTimeWindow": {"mode": "OFF"},
        "target": {"arn": "arn:aws:lambda:us-east-1:111122223333:function:wake-gpus",
                   "roleArn": "arn:aws:iam::1:role/scheduler",
                   **({"input": json.dumps(payload)} if payload is not None else {})}},
        deps={"target": [fn]})


def _stopped_instance(tags):
    """A p4d instance stopped once at +30 h by a Scheduler ec2:stopInstances on it."""
    node = p4d("a100", tags={**p4d("x").props["tags"], **tags})
    when = _in(hours=30, minutes=0).strftime("%Y-%m-%dT%H:%M:%S")
    stop = _schedule("stop-gpu", "ec2:stopInstances", {"InstanceIds": ["i-from-node"]},
                     f"at({when})", deps={"target": [node]})
    return node, stop


@pytest.mark.parametrize("where", ["environment", "input-filter"])
def test_15a_a_daily_lambda_naming_the_nodes_tag_makes_the_stop_a_pause(pack, where):
    # Expected: the instance tagged gpu-pool=a100-nightly, stopped at +30 h, and a daily
    # Scheduler schedule invoking a Lambda whose environment says TAG_KEY gpu-pool, TAG_VALUE
    # a100-nightly (or whose input is a DescribeInstances filter tag:gpu-pool = a100-nightly):
    # the Lambda may start it after the stop: the month, 21.9576 x 730 = 16,029.05.
    node, stop = _stopped_instance(POOL_TAG)
    if where == "environment":
        fn = _function({"TAG_KEY": "gpu-pool", "TAG_VALUE": "a100-nightly"})
        wake = _lambda_schedule(fn)
    else:
        fn = _function()
        wake = _lambda_schedule(fn, {"Filters": [{"Name": "tag:gpu-pool",
                                                  "Values": ["a100-nightly"]}]})
    stack = [node, stop, fn, wake, aws_budget()]
    assert near(estimate(pack, stack, AWS), P4D * 730)


def test_15b_a_scheduled_rule_running_such_a_lambda_makes_the_stop_a_pause(pack):
    # Expected: the same, the Lambda the target of an EventBridge rule cron() (a rule recurs):
    # the month, 16,029.05.
    node, stop = _stopped_instance(POOL_TAG)
    fn = _function({"TAG_KEY": "gpu-pool", "TAG_VALUE": "a100-nightly"})
    rule = _rule("wake", "cron(0 8 * * ? *)")
    target = res("aws:cloudwatch/eventTarget:EventTarget", "wake-target", {
        "rule": "wake", "arn": "arn:aws:lambda:us-east-1:111122223333:function:wake-gpus"},
        deps={"rule": [rule], "arn": [fn]})
    stack = [node, stop, fn, rule, target, aws_budget()]
    assert near(estimate(pack, stack, AWS), P4D * 730)


def test_15c_a_lambda_naming_a_tag_the_group_propagates(pack):
    # Expected: the 2-node p4d group (tags gpu-pool=a100-nightly, propagateAtLaunch) set to 0
    # by a Scheduler updateAutoScalingGroup at() +48 h, and the daily tag-finding Lambda: a
    # pause, the month, 2 x 21.9576 x 730 = 32,058.10.
    lt, group = _named_asg()
    group.props["tags"] = [{"key": "gpu-pool", "value": "a100-nightly",
                            "propagateAtLaunch": True}]
    stop = res("aws:scheduler/schedule:Schedule", "stop-gpus", {
        "scheduleExpression": "at(" + _in(hours=48, minutes=0).strftime("%Y-%m-%dT%H:%M:%S")
        + ")", "flexibleTimeWindow": {"mode": "OFF"},
        "target": {"arn": "arn:aws:scheduler:::aws-sdk:autoscaling:updateAutoScalingGroup",
                   "roleArn": "arn:aws:iam::1:role/scheduler",
                   "input": json.dumps(ASG_TO_ZERO)}})
    fn = _function({"TAG_KEY": "gpu-pool", "TAG_VALUE": "a100-nightly"})
    stack = [lt, group, stop, fn, _lambda_schedule(fn), aws_budget()]
    assert near(estimate(pack, stack, AWS), 2 * P4D * 730)


def test_15d_a_lambda_naming_another_tag_changes_nothing(pack):
    # Expected (control): the Lambda's environment names gpu-pool=h100-daytime, a tag value the
    # instance does not carry, and nothing else of the nodes: the stop holds: 30 h,
    # 21.9576 x 30 = 658.73.
    node, stop = _stopped_instance(POOL_TAG)
    fn = _function({"TAG_KEY": "gpu-pool", "TAG_VALUE": "h100-daytime"})
    stack = [node, stop, fn, _lambda_schedule(fn), aws_budget()]
    assert near(estimate(pack, stack, AWS), P4D * 30)
