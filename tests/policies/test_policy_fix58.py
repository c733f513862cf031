"""fix58: the four defects review58 found (tests/policies/test_policy_review58.py, DEFECT A-D),
with cases of my own where the review has none on a cloud or form, over gRPC as
`pulumi preview --policy-pack policies` drives the pack (the review's `drive`: each resource's
explicit provider resource travels with it).

A. A budget whose notification list is unknown at preview may notify no one: "cannot decide"
   (docs/policies.md: "A budget that notifies no one is no alarm"; unknowns never pass in
   silence). What reaches someone whatever the unknown holds still passes: an AWS notification
   entry unknown as a whole (AWS requires a subscriber on every notification, as review58 d1d
   relies on: Terraform/Pulumi aws budgets "Either this or subscriber_sns_topic_arns is
   required"), a GCP budget with a Pub/Sub topic (it gets every update).
B. A provider whose default tags are unknown at preview may hold the required tags: "cannot
   decide", never "missing". An Auto Scaling group is the exception the AWS provider documents:
   default_tags reach every resource that takes tags "with the exception of the
   aws_autoscaling_group resource", so an untagged group is missing its tags whatever they hold.
C. A region unknown at preview fails closed on every cloud (docs: "a size or region unknown at
   preview"), review58 covering AWS, GCP (unknown zone), Alibaba and aws-native; here an Azure
   set with no location of its own on a provider whose location is unknown, and a GCP VM with
   no zone of its own on a provider whose zone is unknown and which names no region.
D. storage-same-zone asks about an unknown region only where storage could be compared with it,
   and one cloud's unknown never hides another cloud's violation.

Figures: Standard_NC4as_T4_v3 eastus 0.526 USD/h x 730 = 383.98 a node (3: 1,151.94);
g5.xlarge us-east-1 1.006 x 730 = 734.38; g2-standard-8 us-central1 0.853624 x 730 = 623.15;
Managed Lustre 18,000 GiB x 0.21 = 3,780 a month (review58 s22: 4,403.15 with the VM).
"""
from __future__ import annotations

from tests.policies.test_policy_review58 import (
    AWS_ALERTS, SPEND, SSZ, TAGS_P, UNK, R, _amlfs, _gcp_lustre_stack, _with, aws_asg,
    aws_budget, aws_lt, aws_one, az_budget, az_vmss, check, gcp_budget, gcp_vm, on, secret,
    subnet,
)


def case(cid, build, expect, providers=None, why=""):
    return (cid, build, expect, None, providers, why)


# ------------------------------------------------------------------------------ A. silent budgets

def test_a1_aws_notifications_unknown_with_a_budget_action_that_has_subscribers(pack):
    # The budget action depends on the budget and e-mails a subscriber: AWS Budgets tells the
    # action's subscribers when it runs, so the budget notifies someone whatever the unknown
    # notification list holds. 734.38 < 1,000: pass.
    def build():
        rs = _with(aws_one(), "budget", notifications=UNK)
        budget = rs[-1]
        action = R("aws:budgets/budgetAction:BudgetAction", "stop-gpu",
                   {"budgetName": "budget", "actionType": "APPLY_IAM_POLICY",
                    "approvalModel": "AUTOMATIC", "notificationType": "ACTUAL",
                    "actionThreshold": {"actionThresholdType": "PERCENTAGE",
                                        "actionThresholdValue": 100.0},
                    "subscribers": [{"address": "ml-platform@example.com",
                                     "subscriptionType": "EMAIL"}]},
                   deps={"budgetName": [budget]})
        return rs + [action]
    check(pack, case("a1", build, {}))


def test_a2_aws_one_notification_entry_unknown_notifies_someone(pack):
    # One entry of the list unknown: it is a notification, and AWS requires a subscriber on
    # each: pass (as review58 d1d, one step up).
    check(pack, case("a2", lambda: _with(aws_one(), "budget", notifications=[UNK]), {}))


def test_a3_gcp_threshold_rules_unknown_with_a_pubsub_topic(pack):
    # A Pub/Sub topic gets every budget update (NotificationsRule.pubsubTopic): it notifies
    # someone whatever thresholdRules holds. 623.15 < 700: pass.
    check(pack, case("a3", lambda: [gcp_vm(), _with([gcp_budget("700")], "budget",
                                                     thresholdRules=UNK, allUpdatesRule={
                                                         "pubsubTopic": "projects/ml/topics/b"})[0]],
                     {}))


def test_a4_azure_notification_entry_unknown_may_be_disabled(pack):
    # One notification of the map unknown: Azure's `enabled` is an input of each notification,
    # so it may be false: the only notification may reach no one: cannot decide.
    check(pack, case("a4", lambda: [az_vmss(), az_budget(1200.0, notifications={"actual80": UNK})],
                     {SPEND: "undecided"}))


def test_a5_a_known_silent_budget_beside_an_unknown_one_is_undecided_not_silent(pack):
    # Two budgets: one with no notification at all, one whose notifications are unknown. The
    # second may be the alarm: cannot decide, not "notifies no one".
    def build():
        rs = _with(aws_one(), "budget", notifications=[])
        return rs + [aws_budget("1000", name="other", notifications=UNK)]
    check(pack, case("a5", build, {SPEND: "undecided"}))


# -------------------------------------------------------------------------- B. default tags unknown

def test_b1_own_tags_complete_on_a_provider_with_unknown_default_tags(pack):
    # Every required tag on the subnet itself: the default tags cannot take one away: pass.
    check(pack, case("b1", lambda: on("t", [subnet()]), {},
                     {"t": ("aws", {"region": "us-east-1", "defaultTags": UNK})}))


def test_b2_an_autoscaling_group_gets_no_default_tags(pack):
    # The ASG carries no tags of its own; the AWS provider never applies default tags to an
    # aws_autoscaling_group, so unknown defaults cannot hold its tags: missing, a violation.
    def build():
        sub, lt = subnet(), aws_lt("g5.xlarge")
        asg = aws_asg("nodes", lt, sub)
        asg.props.pop("tags")
        return on("t", [sub, lt, asg, aws_budget("2000")])
    check(pack, case("b2", build, {TAGS_P: "fail"},
                     {"t": ("aws", {"region": "us-east-1", "defaultTags": UNK})}))


def test_b3_the_default_tags_list_entry_unknown(pack):
    # The provider takes defaultTags as a list of one {tags}; that one entry unknown.
    check(pack, case("b3", lambda: on("t", [subnet()], untag=True), {TAGS_P: "undecided"},
                     {"t": ("aws", {"region": "us-east-1", "defaultTags": [UNK]})}))


# ------------------------------------------------------------------------------- C. region unknown

def test_c1_azure_set_with_no_location_on_a_provider_whose_location_is_unknown(pack):
    # 3 x NC4as_T4_v3: eastus would be 1,151.94 < 5,000, but the region is unknown until
    # apply: fails closed, as an unknown location of its own does (review58 c02).
    def build():
        s = az_vmss()
        s.props.pop("location")
        s.provider = "loc"
        return [s, az_budget(5000.0)]
    check(pack, case("c1", build, {SPEND: "fail"},
                     {"loc": ("azure-native", {"location": UNK})}))


def test_c2_gcp_vm_with_no_zone_on_a_provider_whose_zone_is_unknown(pack):
    # No zone of its own, the provider's zone unknown and no provider region: its region is
    # unknown. g2-standard-8 at 623.15 in us-central1 would pass under 5,000.
    check(pack, case("c2", lambda: on("z", [gcp_vm(zone=None), gcp_budget("5000")]),
                     {SPEND: "fail"}, {"z": ("gcp", {"project": "ml", "zone": UNK})}))


def test_c3_the_failure_says_the_region_is_unknown_not_unnamed(pack):
    # review58 p24's stack: the finding names the unknown region, never "not named".
    found = check(pack, case("c3", lambda: on("r", [
        R("aws:ec2/instance:Instance", "gpu", {"ami": "ami-0abc", "instanceType": "g5.xlarge",
                                                "associatePublicIpAddress": False,
                                                "tags": {"owner": "carol", "team": "vision",
                                                         "cost-center": "5150"}}),
        aws_budget("2000")]), {SPEND: "fail"}, {"r": ("aws", {"region": UNK})}))
    text = " ".join(d.message for d in found if d.policy == SPEND)
    assert "its region is unknown until apply" in text, text
    assert "not named in the program" not in text, text


def test_c4_a_secret_provider_region_is_still_read(pack):
    # Control: a secret region is a value, not an unknown (eu-west-1 819.79 < 830).
    check(pack, case("c4", lambda: on("euw", aws_one(budget="830")), {},
                     {"euw": ("aws", {"region": secret("eu-west-1")})}))


# ------------------------------------------------------------------------ D. asked only where it hides

def test_d1_classic_azure_set_of_unknown_location_with_nothing_to_compare(pack):
    # A classic LinuxVirtualMachineScaleSet, location unknown, no filesystem or bucket:
    # storage-same-zone has nothing to compare (pass); spend fails closed on the region.
    def build():
        s = R("azure:compute/linuxVirtualMachineScaleSet:LinuxVirtualMachineScaleSet", "nodes", {
            "resourceGroupName": "train", "location": UNK, "sku": "Standard_NC4as_T4_v3",
            "instances": 3.0, "adminUsername": "azureuser",
            "networkInterfaces": [{"name": "nic", "primary": True, "ipConfigurations": [
                {"name": "ip", "primary": True}]}],
            "tags": {"owner": "carol", "team": "vision", "cost-center": "5150"}})
        return [s, az_budget(5000.0)]
    check(pack, case("d1", build, {SPEND: "fail"}))


def test_d2_an_unknown_azure_location_hides_no_gcp_violation(pack):
    # review58 s22's GCP stack (VM in us-central1-a, its Lustre in us-central1-b: fail) beside
    # an Azure set of unknown location and no Azure storage. The GCP finding stands; spend
    # fails closed on the Azure region.
    def build():
        return _gcp_lustre_stack() + [az_vmss(location=UNK), az_budget(5000.0)]
    check(pack, case("d2", build, {SSZ: "fail", SPEND: "fail"},
                     {"gcpz": ("gcp", {"project": "ml", "region": "us-central1",
                                       "zone": "us-central1-a"})}))


def test_d3_an_azure_question_that_could_hide_a_violation_hides_no_known_one(pack):
    # As d2 with an AMLFS beside the Azure set (there the unknown location is a question,
    # review58 e06), the GCP violation still stands: one unknown never hides a known finding.
    def build():
        return _gcp_lustre_stack() + [az_vmss(location=UNK), _amlfs(), az_budget(50000.0)]
    check(pack, case("d3", build, {SSZ: "fail", SPEND: "fail"},
                     {"gcpz": ("gcp", {"project": "ml", "region": "us-central1",
                                       "zone": "us-central1-a"})}))


def test_b4_a_tag_set_blank_on_the_resource_stays_missing(pack):
    # owner "" on the subnet itself: its own tags win over the provider's defaults ("resource
    # tags take precedence", hashicorp.com/blog/default-tags-in-the-terraform-aws-provider),
    # so unknown defaults cannot fill it: missing (docs: a blank value counts as missing).
    check(pack, case("b4", lambda: on("t", [_with([subnet()], "priv-a", tags={
        "owner": "", "team": "vision", "cost-center": "5150"})[0]]), {TAGS_P: "fail"},
        {"t": ("aws", {"region": "us-east-1", "defaultTags": UNK})}))


def test_c5_a_region_filter_cannot_take_in_or_leave_out_a_group_of_unknown_region(pack):
    # p24's instance (provider region unknown) under one budget filtered on Region us-east-1:
    # whether it takes the instance in is unknown, so the alarm is "cannot decide" where
    # nothing else fails; here the estimate fails closed (region unknown), so spend fails and
    # the finding is the estimate's, not "no budget alarm" (the filter may take it in).
    found = check(pack, case("c5", lambda: on("r", [
        R("aws:ec2/instance:Instance", "gpu", {"ami": "ami-0abc", "instanceType": "g5.xlarge",
                                                "associatePublicIpAddress": False,
                                                "tags": {"owner": "carol", "team": "vision",
                                                         "cost-center": "5150"}}),
        aws_budget("2000", costFilters=[{"name": "Region", "values": ["us-east-1"]}])]),
        {SPEND: "fail"}, {"r": ("aws", {"region": UNK})}))
    text = " ".join(d.message for d in found if d.policy == SPEND)
    assert "no budget alarm" not in text, text
