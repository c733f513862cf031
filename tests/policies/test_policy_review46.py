"""Issue 35, a BLIND hostile review (helper review46): the pull requests trainstack's own users
write against the four clusters trainstack renders (tests/policy_fixtures.py builds the same
resources as `trainstack plan --json`), driven over gRPC as `pulumi preview --policy-pack` drives
the pack (tests/policy_harness.py). The pack's rule code was not read: the verdicts come from
docs/policies.md (the pack's promise), the providers' public docs and the catalog's CSV rows.

Each case changes one thing a team changes in a PR and states, BEFORE the first run, the
verdict of EVERY policy (the ones not named stay "pass"): "fail" (a mandatory violation that
decides), "advisory" (an advisory violation), "undecided" ("cannot decide") or "pass".

Prices (policies/catalog_data/prices.csv, on-demand / spot USD/h; a month is 730 h; lifetimes
round up to whole hours):
  aws us-east-1: p5.48xlarge 55.04 / 55.04; p4d.24xlarge 21.9576 / 8.1915; g5.xlarge 1.006.
  gcp us-west1: a3-ultragpu-8g 86.7599 / 40.9943; g2-standard-8 0.853624.
  azure eastus: Standard_ND96isr_H100_v5 98.32 / (no spot price in the catalog).
  alibaba eu-central-1: ecs.gn8v-8x.48xlarge 58.2708 / 7.58244.
Storage (filesystem_prices.csv, per GB(GiB)-month): FSx PERSISTENT_2 250 MB/s/TiB 0.28211;
GCP Managed Lustre 250 0.21. Before the first run I took CPFS at 0.244 (the Lingjun row) and
AMLFS at the 0.145 floor; the catalog's own rows are in storage_prices.csv (my mistake, found
after the fourth batch's run): AMLFS Durable-Premium-250 0.000373 USD/GiB-h x 730 = 0.2723
USD/GiB-month, CPFS advance_200 1.4 CNY/GiB-month x fx.csv 0.1375 = 0.1925 USD/GiB-month. No
verdict of batches 1-3 changes (worked below).

Baselines (unchanged clusters, worked once here and used by the cases):
  AWS: 2 x 55.04 x 96 h (stop Schedule at 96 h) = 10,567.68; FSx 4,800 x 0.28211 = 1,354.13
    (at most 1,454 if read as GiB); total ~11,922 under the 20,000 budget.
  GCP: 2 x 86.7599 x 96 h (maxRunDuration 96 h) = 16,656.90; Lustre 36,000 x 0.21 = 7,560
    (it bills per provisioned GiB-hour until deleted: the VMs' stop does not stop it); the
    bucket fed from it, priced at the filesystem's size (docs: "the bucket fed from them"),
    36,000 GiB = 38,654.71 GB x 0.02 = 773.09 (left out of this sum before the first run: my
    arithmetic slip, no verdict changes); total 24,990 (the fixture's 20,000 would be over:
    each GCP case sets its budget).
  Azure: 2 x 98.32 x 96 h (autoscale stop at 96 h) = 18,877.44; AMLFS 8,192 GiB x 0.2723 =
    2,230.70 a month; storage account at the filesystem's 8,796 GB x 0.018 = 158; ~21,266
    (over the fixture's 20,000: each Azure case sets 50,000; z01: 37,754.88 + 2,388.70 =
    40,143.58 < 50,000 still).
  Alibaba: 2 x 58.2708 x 96 h (autoReleaseTime) = 11,187.99; CPFS 3,600 x 0.1925 = 693 a month;
    bucket at the filesystem's 3,865 GB x 0.0173 = 67 (l06: 1,455.83 + 693 + 67 = 2,216 < 5,000);
    no budget resource on Alibaba: the autoReleaseTime stands in for the alarm (docs).
"""
from __future__ import annotations

from datetime import datetime, timezone

import pytest

from tests.policy_fixtures import (
    alicloud_cluster, aws_cluster, azure_cluster, by_name, find, gcp_cluster, hours_from_now,
    res,
)
from tests.policy_harness import run
from tests.policy_harness import verdict as _verdict

SSZ, SPEND, TAGS_P, RDMA = "storage-same-zone", "spend-limit", "required-tags", "rdma-for-multinode"
NPI, ENC, RET = "no-public-ingress", "encryption-at-rest", "bucket-retained"
POLICIES = (SSZ, SPEND, TAGS_P, RDMA, NPI, ENC, RET)
AWS = {"region": "us-east-1"}
GCP = {"project": "ml-prod", "region": "us-west1"}
AZ = {"location": "eastus"}
ALI = {"region": "eu-central-1"}
TAGS = {"owner": "alice", "team": "ml", "cost-center": "1234"}


def check(pack, stack, provider, expected, config=None):
    found = run(pack, stack, config, provider=provider)
    want = {p: expected.get(p, "pass") for p in POLICIES}
    got = {p: _verdict(found, p) for p in POLICIES}
    assert got == want, " | ".join(f"{d.policy}[{d.level}]: {d.message}" for d in found)


def _nodes(stack):
    return by_name(stack, "nodes")


# ============================================================== AWS (aws_cluster)

def test_a01_second_node_group_same_template_no_stop(pack):
    """PR: a second p5.48xlarge ASG of 2 ("nodes-b") on the same launch template, subnet and
    placement group, with no stop schedule. Spend: 11,922 + 2 x 55.04 x 730 = 80,358.40 more ->
    ~92,280 > 20,000: fail. Everything else unchanged (same zone, EFA template, placed)."""
    stack = aws_cluster()
    n = _nodes(stack)
    b = res("aws:autoscaling/group:Group", "nodes-b", {**n.props}, deps={**n.deps})
    check(pack, stack + [b], AWS, {SPEND: "fail"})


def test_a02_size_doubled_over_budget(pack):
    """PR: nodes 2 -> 4 (min/max/desired), stop schedule kept at 96 h. 4 x 55.04 x 96 =
    21,135.36 + 1,354 = 22,489 > 20,000: spend fail."""
    stack = aws_cluster(nodes=4)
    check(pack, stack, AWS, {SPEND: "fail"})


def test_a03_size_three_still_under(pack):
    """PR: nodes 2 -> 3. 3 x 55.04 x 96 = 15,851.52 + 1,354 = 17,206 < 20,000: all pass."""
    check(pack, aws_cluster(nodes=3), AWS, {})


def test_a04_stop_schedule_removed(pack):
    """PR: the 96 h stop Schedule deleted (max_hours None). 2 x 55.04 x 730 = 80,358.40 > 20,000:
    spend fail."""
    check(pack, aws_cluster(max_hours=None), AWS, {SPEND: "fail"})


def test_a05_stop_moved_to_200h(pack):
    """PR: stop Schedule moved from 96 h to 200 h. 2 x 55.04 x 200 = 22,016 > 20,000: fail."""
    stack = aws_cluster()
    sched = find(stack, "schedule:Schedule")
    sched.props["startTime"] = hours_from_now(200)
    check(pack, stack, AWS, {SPEND: "fail"})


def test_a06_stop_moved_to_150h(pack):
    """PR: stop moved to 150 h. 2 x 55.04 x 150 = 16,512 + 1,354 = 17,866 < 20,000: pass."""
    stack = aws_cluster()
    find(stack, "schedule:Schedule").props["startTime"] = hours_from_now(150)
    check(pack, stack, AWS, {})


def test_a07_budget_cut_to_10k(pack):
    """PR: budget limitAmount 20,000 -> 10,000. ~11,922 > 10,000: spend fail."""
    check(pack, aws_cluster(budget_usd="10000.00"), AWS, {SPEND: "fail"})


def test_a08_budget_written_with_thousands_separator(pack):
    """PR: limitAmount "25,000" (docs: text that is no number, e.g. "100,000", is a violation,
    never "no cap"): spend fail."""
    check(pack, aws_cluster(budget_usd="25,000"), AWS, {SPEND: "fail"})


def test_a09_bucket_moved_to_us_west_2(pack):
    """PR: the data bucket (read by the nodes' user data) in us-west-2 while nodes are in
    us-east-1 (docs: the bucket a cluster reads is compared with its region): SSZ fail."""
    check(pack, aws_cluster(bucket_region="us-west-2"), AWS, {SSZ: "fail"})


def test_a10_fsx_moved_to_other_zone(pack):
    """PR: FSx placed on a us-east-1b subnet, nodes in us-east-1a, nodes mount it: SSZ fail."""
    check(pack, aws_cluster(fs_zone="us-east-1b"), AWS, {SSZ: "fail"})


def test_a11_ssh_opened_to_world_for_debugging(pack):
    """PR: the SSH rule's source widened to 0.0.0.0/0 (no sshCidrs configured): NPI fail."""
    stack = aws_cluster()
    by_name(stack, "ssh").props["cidrIpv4"] = "0.0.0.0/0"
    check(pack, stack, AWS, {NPI: "fail"})


def test_a12_jupyter_port_opened_to_world(pack):
    """PR: a new ingress rule tcp 8888 from 0.0.0.0/0 (tagged): NPI fail."""
    rule = res("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule", "jupyter", {
        "cidrIpv4": "0.0.0.0/0", "ipProtocol": "tcp", "fromPort": 8888.0, "toPort": 8888.0,
        "securityGroupId": "sg-0abc", "tags": dict(TAGS)})
    check(pack, aws_cluster() + [rule], AWS, {NPI: "fail"})


def test_a13_tag_renamed_on_the_filesystem(pack):
    """PR: the FSx's `cost-center` tag renamed `costcenter`: required-tags fail on it."""
    stack = aws_cluster()
    fs = by_name(stack, "fs")
    tags = dict(fs.props["tags"])
    tags["costcenter"] = tags.pop("cost-center")
    fs.props["tags"] = tags
    check(pack, stack, AWS, {TAGS_P: "fail"})


def test_a14_launch_template_root_volume_unencrypted(pack):
    """PR: the launch template gains a 500 GiB gp3 root volume with encrypted "false" (docs:
    EBS in launch templates must be encrypted): encryption-at-rest fail."""
    stack = aws_cluster()
    by_name(stack, "lt").props["blockDeviceMappings"] = [{"deviceName": "/dev/xvda", "ebs": {
        "volumeSize": 500.0, "volumeType": "gp3", "encrypted": "false"}}]
    check(pack, stack, AWS, {ENC: "fail"})


def test_a15_bucket_force_destroy_turned_on(pack):
    """PR: forceDestroy true on the data bucket (docs: no forceDestroy): bucket-retained fail."""
    stack = aws_cluster()
    by_name(stack, "data").props["forceDestroy"] = True
    check(pack, stack, AWS, {RET: "fail"})


def _p4d_efa():
    return ([{"networkCardIndex": 0.0, "deviceIndex": 0.0, "interfaceType": "efa",
              "associatePublicIpAddress": "false"}]
            + [{"networkCardIndex": float(c), "deviceIndex": 0.0, "interfaceType": "efa",
                "associatePublicIpAddress": "false"} for c in range(1, 4)])


def test_a16_p4d_spot_in_launch_template_three_nodes_no_stop(pack):
    """PR: p5 -> p4d.24xlarge (4 EFA cards), spot via the launch template's
    instanceMarketOptions.marketType "spot" (EC2 RunInstances InstanceMarketOptionsRequest),
    size 3, stop removed. Spot: 3 x 8.1915 x 730 = 17,939.39 + 1,354 = 19,293 < 20,000: pass
    (on demand it would be 3 x 21.9576 x 730 = 48,087)."""
    stack = aws_cluster(nodes=3, max_hours=None)
    t = by_name(stack, "lt")
    t.props.update(instanceType="p4d.24xlarge", networkInterfaces=_p4d_efa(),
                   instanceMarketOptions={"marketType": "spot"})
    check(pack, stack, AWS, {})


def test_a17_open_capacity_reservation_added(pack):
    """PR: an open ODCR for 2 x p5.48xlarge in us-east-1a with no end date (bills 730 h whether
    used or not; the group inside adds nothing): 2 x 55.04 x 730 = 80,358.40 > 20,000: fail."""
    odcr = res("aws:ec2/capacityReservation:CapacityReservation", "p5-odcr", {
        "instanceType": "p5.48xlarge", "instancePlatform": "Linux/UNIX",
        "availabilityZone": "us-east-1a", "instanceCount": 2.0, "instanceMatchCriteria": "open",
        "endDateType": "unlimited", "tags": dict(TAGS)})
    check(pack, aws_cluster() + [odcr], AWS, {SPEND: "fail"})


def test_a18_second_group_in_other_zone_same_template(pack):
    """PR: a second 2-node group in us-east-1b on the SAME launch template (whose user data
    mounts the FSx in us-east-1a), stopped at 96 h, budget raised to 40,000. SSZ: a group that
    mounts the filesystem in another zone: fail. Spend: 4 x 55.04 x 96 + 1,354 = 22,489 <
    40,000: pass. RDMA: the group shares the cluster placement group: pass."""
    stack = aws_cluster(budget_usd="40000.00")
    n = _nodes(stack)
    sb = res("aws:ec2/subnet:Subnet", "nodes-subnet-b", {
        "availabilityZone": "us-east-1b", "region": "us-east-1", "tags": dict(TAGS)})
    g = res("aws:autoscaling/group:Group", "nodes-b", {**n.props},
            deps={**n.deps, "vpcZoneIdentifiers": [sb]})
    stop = res("aws:autoscaling/schedule:Schedule", "nodes-b-stop", {
        "autoscalingGroupName": "b", "desiredCapacity": 0.0, "minSize": 0.0, "maxSize": 0.0,
        "scheduledActionName": "stop", "startTime": hours_from_now(96)},
        deps={"autoscalingGroupName": [g]})
    check(pack, stack + [sb, g, stop], AWS, {SSZ: "fail"})


def test_a19_debug_box_with_public_ip(pack):
    """PR: a g5.xlarge debug instance in the nodes' subnet with associatePublicIpAddress true.
    NPI fail. Spend: + 1.006 x 730 = 734.38 -> ~12,656 < 20,000: pass. Single node, no fabric:
    rdma pass; same zone: SSZ pass."""
    stack = aws_cluster()
    box = res("aws:ec2/instance:Instance", "debug", {
        "ami": "ami-0a1b2c3d4e5f60718", "instanceType": "g5.xlarge", "subnetId": "subnet-id",
        "associatePublicIpAddress": True, "tags": dict(TAGS)},
        deps={"subnetId": [by_name(stack, "nodes-subnet")]})
    check(pack, stack + [box], AWS, {NPI: "fail"})


def test_a20_cap_from_config_instead_of_budget(pack):
    """PR: the team sets maxMonthlyUsd 11,000 in the policy config (budget 20,000 stays).
    ~11,922 > 11,000: spend fail."""
    check(pack, aws_cluster(), AWS, {SPEND: "fail"}, config={SPEND: {"maxMonthlyUsd": 11000}})


def test_a21_fsx_bills_past_the_nodes_stop(pack):
    """(Added after the first run, expectation written before running it.) Budget 11,500, the
    stop at 96 h kept. Truth: nodes 10,567.68; FSx 4,800 GiB x 0.28211 x 1.073741824 = 1,453.98
    for the whole month (FSx bills per provisioned GB-month, used or not, after the nodes stop:
    aws.amazon.com/fsx/lustre/pricing, docs/billing-after-stop.md); bucket at the filesystem's
    size 5,153.96 GB x 0.023 = 118.54; total 12,140.20 > 11,500: spend fail."""
    check(pack, aws_cluster(budget_usd="11500.00"), AWS, {SPEND: "fail"})


# ============================================================== GCP (gcp_cluster)

def test_g01_budget_cut_to_20k(pack):
    """Budget 20,000 (the fixture's): 16,656.90 + 7,560 + 773.09 = 24,990 > 20,000: fail."""
    check(pack, gcp_cluster(budget_units="20000"), GCP, {SPEND: "fail"})


def test_g02_budget_60k_passes(pack):
    """Budget 60,000: 24,216.90 < 60,000: all pass (the baseline every GCP case edits)."""
    check(pack, gcp_cluster(budget_units="60000"), GCP, {})


def test_g03_max_run_duration_removed(pack):
    """PR: the template's maxRunDuration dropped. 2 x 86.7599 x 730 = 126,669.45 > 60,000: fail."""
    check(pack, gcp_cluster(budget_units="60000", max_hours=None), GCP, {SPEND: "fail"})


def test_g04_spot_provisioning_under_20k(pack):
    """PR: provisioningModel SPOT (96 h kept), budget 20,000. 2 x 40.9943 x 96 = 7,870.91 +
    7,560 = 15,430.91 < 20,000: pass (on demand 24,216.90 would fail)."""
    stack = gcp_cluster(budget_units="20000")
    by_name(stack, "template").props["scheduling"]["provisioningModel"] = "SPOT"
    check(pack, stack, GCP, {})


def test_g05_lustre_in_other_zone(pack):
    """PR: Lustre location us-west1-a, MIG (mounting it) in us-west1-c: SSZ fail."""
    check(pack, gcp_cluster(fs_location="us-west1-a", budget_units="60000"), GCP, {SSZ: "fail"})


def test_g06_bucket_in_europe(pack):
    """PR: the data bucket (read by the startup script) in EUROPE-WEST4: SSZ fail."""
    check(pack, gcp_cluster(bucket_location="EUROPE-WEST4", budget_units="60000"), GCP,
          {SSZ: "fail"})


def test_g07_ssh_firewall_opened_to_world(pack):
    """PR: a debugging firewall allowing tcp:22 from 0.0.0.0/0 (no sshCidrs): NPI fail."""
    fw = res("gcp:compute/firewall:Firewall", "debug-ssh", {
        "direction": "INGRESS", "sourceRanges": ["0.0.0.0/0"], "network": "default",
        "allows": [{"protocol": "tcp", "ports": ["22"]}]})
    check(pack, gcp_cluster(budget_units="60000") + [fw], GCP, {NPI: "fail"})


def test_g08_label_renamed_on_template(pack):
    """PR: the template's `cost_center` label renamed `costcentre`: required-tags fail."""
    stack = gcp_cluster(budget_units="60000")
    labels = by_name(stack, "template").props["labels"]
    labels["costcentre"] = labels.pop("cost_center")
    check(pack, stack, GCP, {TAGS_P: "fail"})


def test_g09_inference_mig_added_in_another_zone(pack):
    """PR: a 2-VM g2-standard-8 inference MIG in us-west1-a that mounts nothing, no stop.
    Spend: + 2 x 0.853624 x 730 = 1,246.29 -> 25,463.19 < 60,000: pass. SSZ: the Lustre is
    mounted by the a3 MIG in its own zone (docs step 1): pass. RDMA: g2 has no RDMA fabric, not
    asked: pass."""
    t = res("gcp:compute/instanceTemplate:InstanceTemplate", "infer-tpl", {
        "machineType": "g2-standard-8", "networkInterfaces": [{"network": "default"}],
        "labels": {"owner": "alice", "team": "ml", "cost_center": "1234"},
        "scheduling": {"onHostMaintenance": "TERMINATE"}})
    m = res("gcp:compute/instanceGroupManager:InstanceGroupManager", "infer", {
        "zone": "us-west1-a", "targetSize": 2.0, "baseInstanceName": "infer",
        "versions": [{"instanceTemplate": "infer-tpl-id"}]}, deps={"versions": [t]})
    check(pack, gcp_cluster(budget_units="60000") + [t, m], GCP, {})


def test_g10_budget_alerts_removed(pack):
    """PR: the budget's thresholdRules removed, no pubsub topic (docs: notifies no one, a
    violation): spend fail."""
    stack = gcp_cluster(budget_units="60000")
    del by_name(stack, "budget").props["thresholdRules"]
    check(pack, stack, GCP, {SPEND: "fail"})


def test_g11_bucket_force_destroy(pack):
    """PR: forceDestroy true on the GCS bucket: bucket-retained fail."""
    stack = gcp_cluster(budget_units="60000")
    by_name(stack, "data").props["forceDestroy"] = True
    check(pack, stack, GCP, {RET: "fail"})


# ============================================================== Azure (azure_cluster)

def test_z01_capacity_doubled_under_50k(pack):
    """PR: capacity 2 -> 4, stop kept at 96 h, budget 50,000. 4 x 98.32 x 96 = 37,754.88 + at
    most 1,276 (AMLFS) = 39,031 < 50,000: pass."""
    stack = azure_cluster(budget_amount=50000.0)
    _nodes(stack).props["sku"]["capacity"] = 4.0
    check(pack, stack, AZ, {})


def test_z02_stop_profile_removed(pack):
    """PR: the autoscale stop removed. 2 x 98.32 x 730 = 143,547.20 > 50,000: spend fail."""
    check(pack, azure_cluster(budget_amount=50000.0, max_hours=None), AZ, {SPEND: "fail"})


def test_z03_stop_moved_to_300h(pack):
    """PR: stop moved to 300 h. 2 x 98.32 x 300 = 58,992 > 50,000: spend fail."""
    check(pack, azure_cluster(budget_amount=50000.0, max_hours="300"), AZ, {SPEND: "fail"})


def test_z04_spot_scale_set_without_catalog_spot_price(pack):
    """PR: priority Spot, no stop. The catalog has no spot price for ND96isr_H100_v5 in eastus
    (unpriceable -> fail closed), and even at the regular price 143,547 > 50,000: spend fail."""
    stack = azure_cluster(budget_amount=50000.0, max_hours=None)
    _nodes(stack).props["virtualMachineProfile"].update(
        priority="Spot", evictionPolicy="Delete", billingProfile={"maxPrice": -1.0})
    check(pack, stack, AZ, {SPEND: "fail"})


def test_z05_amlfs_in_zone_2(pack):
    """PR: AMLFS zones ["2"], scale set in zone 1 mounting it: SSZ fail."""
    check(pack, azure_cluster(budget_amount=50000.0, fs_zone="2"), AZ, {SSZ: "fail"})


def test_z06_nsg_opened_from_internet(pack):
    """PR: NSG rule Allow Inbound tcp 8888 from `Internet` (the service tag for the public
    address space, learn.microsoft.com/azure/virtual-network/service-tags-overview): NPI fail."""
    stack = azure_cluster(budget_amount=50000.0)
    by_name(stack, "nsg").props["securityRules"].append({
        "name": "jupyter", "access": "Allow", "direction": "Inbound", "priority": 200.0,
        "protocol": "Tcp", "sourceAddressPrefix": "Internet", "sourcePortRange": "*",
        "destinationAddressPrefix": "*", "destinationPortRange": "8888"})
    check(pack, stack, AZ, {NPI: "fail"})


def test_z07_blob_encryption_disabled(pack):
    """PR: storage account encryption.services.blob.enabled false (docs: Azure blob encryption
    not disabled): encryption-at-rest fail."""
    stack = azure_cluster(budget_amount=50000.0)
    by_name(stack, "data").props["encryption"] = {
        "keySource": "Microsoft.Storage", "services": {"blob": {"enabled": False}}}
    check(pack, stack, AZ, {ENC: "fail"})


def test_z08_tag_names_recased_on_scale_set(pack):
    """PR: the scale set's tags written `Owner`, `Team`, `Cost-Center` (docs: Azure tag names
    matched case-insensitively): all pass."""
    stack = azure_cluster(budget_amount=50000.0)
    n = _nodes(stack)
    n.props["tags"] = {"Owner": "alice", "Team": "ml", "Cost-Center": "1234",
                       "trainstack:max-hours": "96"}
    check(pack, stack, AZ, {})


def test_z09_budget_cut_to_15k(pack):
    """PR: budget 15,000. 18,877.44 + AMLFS > 15,000: spend fail."""
    check(pack, azure_cluster(budget_amount=15000.0), AZ, {SPEND: "fail"})


# ============================================================== Alibaba (alicloud_cluster)

def test_l01_release_time_removed_on_one_node(pack):
    """PR: node-1 loses its autoReleaseTime (no budget resource on Alibaba, the release time is
    the alarm on every GPU node): spend fail."""
    stack = alicloud_cluster()
    del by_name(stack, "node-1").props["autoReleaseTime"]
    check(pack, stack, ALI, {SPEND: "fail"})


def test_l02_cpfs_in_zone_b(pack):
    """PR: CPFS zoneId eu-central-1b, nodes (mounting it) in eu-central-1a: SSZ fail."""
    check(pack, alicloud_cluster(fs_zone="eu-central-1b"), ALI, {SSZ: "fail"})


def test_l03_bucket_in_hangzhou(pack):
    """PR: the OSS bucket the nodes read created by a cn-hangzhou provider: SSZ fail.
    (First run: I set only the fixture's provider_region, which the gRPC harness ignores when
    the stack's provider is given: my mistake; the bucket now carries its own provider.)"""
    stack = alicloud_cluster()
    by_name(stack, "data").provider = {"region": "cn-hangzhou"}
    check(pack, stack, ALI, {SSZ: "fail"})


def test_l04_ssh_rule_open_to_world(pack):
    """PR: security group rule ingress tcp 22/22 from 0.0.0.0/0: NPI fail."""
    rule = res("alicloud:ecs/securityGroupRule:SecurityGroupRule", "debug-ssh", {
        "type": "ingress", "ipProtocol": "tcp", "portRange": "22/22", "cidrIp": "0.0.0.0/0",
        "securityGroupId": "sg-id", "nicType": "intranet", "policy": "accept"})
    check(pack, alicloud_cluster() + [rule], ALI, {NPI: "fail"})


def test_l05_cpfs_encryption_off(pack):
    """PR: CPFS encryptType 0. The reviewer expected ENC fail (docs then: every NAS file system
    needs encrypt_type 1 or 2) and held it as a strict xfail; fixleft35 checked Alibaba Cloud's
    docs and kept CPFS unjudged, so this now asserts what they document: ENC pass.
    CreateFileSystem (alibabacloud.com/help/doc-detail/62611): "EncryptType ... This parameter
    is valid only if the FileSystemType parameter is set to standard or extreme"; pulumi-alicloud
    4.0.0 nas.FileSystem `encrypt_type`: "1: NAS managed key ... supported when FileSystemType =
    standard or extreme. 2: ... only when FileSystemType = extreme". The CPFS "Data encryption"
    page (alibabacloud.com/help/en/cpfs/data-encryption) protects a file system's key with "a
    customer master key (CMK) that you specify in KMS", through no parameter of the API or the
    provider trainstack deploys with: no encryptType a CPFS plan could set."""
    stack = alicloud_cluster()
    by_name(stack, "fs").props["encryptType"] = 0.0
    check(pack, stack, ALI, {})


def test_l06_spot_nodes_under_a_5k_cap(pack):
    """PR: spotStrategy SpotAsPriceGo on both nodes, cap maxMonthlyUsd 5,000. 2 x 7.58244 x 96
    = 1,455.83 + 878.40 = 2,334.23 < 5,000: pass (on demand 12,066 would fail)."""
    stack = alicloud_cluster()
    for i in range(2):
        by_name(stack, f"node-{i}").props["spotStrategy"] = "SpotAsPriceGo"
    check(pack, stack, ALI, {}, config={SPEND: {"maxMonthlyUsd": 5000}})


# ============================================================== second batch (written before
# running it; after the first batch's run)

def test_a22_spot_by_mixed_instances_policy_three_p4d_no_stop(pack):
    """PR: the group switches to a mixedInstancesPolicy on the same template with p4d.24xlarge
    (4 EFA cards), onDemandBaseCapacity 0, onDemandPercentageAboveBaseCapacity 0 (all spot,
    docs "Sizes"), size 3, stop removed. 3 x 8.1915 x 730 = 17,939.39 + FSx 1,453.98 + bucket
    118.54 = 19,511.91 < 20,000: pass (on demand 48,087 would fail)."""
    stack = aws_cluster(nodes=3, max_hours=None)
    t = by_name(stack, "lt")
    t.props.update(instanceType="p4d.24xlarge", networkInterfaces=_p4d_efa())
    n = _nodes(stack)
    n.props["mixedInstancesPolicy"] = {
        "instancesDistribution": {"onDemandBaseCapacity": 0.0,
                                  "onDemandPercentageAboveBaseCapacity": 0.0,
                                  "spotAllocationStrategy": "capacity-optimized"},
        "launchTemplate": {"launchTemplateSpecification": {"launchTemplateId": "lt-id",
                                                           "version": "$Latest"},
                           "overrides": [{"instanceType": "p4d.24xlarge"}]}}
    n.deps["mixedInstancesPolicy"] = n.deps.pop("launchTemplate")
    check(pack, stack, AWS, {})


def test_a23_ipv6_https_opened_on_a_security_group(pack):
    """PR: an inline security group ingress tcp 443 from ::/0 (tagged): NPI fail."""
    sg = res("aws:ec2/securityGroup:SecurityGroup", "debug-sg", {
        "vpcId": "vpc-0team", "tags": dict(TAGS), "ingress": [{
            "protocol": "tcp", "fromPort": 443.0, "toPort": 443.0,
            "ipv6CidrBlocks": ["::/0"], "cidrBlocks": []}]})
    check(pack, aws_cluster() + [sg], AWS, {NPI: "fail"})


def test_g12_gcp_specific_reservation_added(pack):
    """PR: a specific reservation of 2 x a3-ultragpu-8g in us-west1-c, the template consuming
    it (SPECIFIC_RESERVATION). A reservation bills whether used or not, for as long as it
    exists (cloud.google.com/compute/docs/instances/reservations-overview), the MIG inside adds
    nothing: 2 x 86.7599 x 730 = 126,669.45 > 60,000: spend fail. RDMA: a specific reservation
    counts as placement (docs), the template also has its COLLOCATED policy: pass."""
    stack = gcp_cluster(budget_units="60000")
    r = res("gcp:compute/reservation:Reservation", "a3-res", {
        "zone": "us-west1-c", "specificReservationRequired": True,
        "specificReservation": {"count": 2.0, "instanceProperties": {
            "machineType": "a3-ultragpu-8g"}}})
    t = by_name(stack, "template")
    t.props["reservationAffinity"] = {"type": "SPECIFIC_RESERVATION", "specificReservation": {
        "key": "compute.googleapis.com/reservation-name", "values": ["a3-res"]}}
    t.deps["reservationAffinity"] = [r]
    check(pack, stack + [r], GCP, {SPEND: "fail"})


def _filestore(tier, location):
    return res("gcp:filestore/instance:Instance", "home", {
        "tier": tier, "location": location,
        "fileShares": {"name": "home", "capacityGb": 1024.0},
        "networks": [{"network": "default", "modes": ["MODE_IPV4"]}],
        "labels": {"owner": "alice", "team": "ml", "cost_center": "1234"}})


def test_g13_filestore_regional_tier_mounted(pack):
    """PR: a 1 TiB Filestore ENTERPRISE (regional) in us-west1 mounted by the template (docs: a
    regional tier is compared by region only): SSZ pass; at most 1,024 GiB x 0.60 = 614 more ->
    < 60,000: pass; Filestore is encrypted by Google by default: pass."""
    stack = gcp_cluster(budget_units="60000")
    fs = _filestore("ENTERPRISE", "us-west1")
    by_name(stack, "template").deps["metadata"].append(fs)
    check(pack, stack + [fs], GCP, {})


def test_g14_filestore_zonal_tier_in_other_zone(pack):
    """PR: the same share as ZONAL tier in us-west1-a, the MIG (mounting it) in us-west1-c:
    SSZ fail; the rest as g13."""
    stack = gcp_cluster(budget_units="60000")
    fs = _filestore("ZONAL", "us-west1-a")
    by_name(stack, "template").deps["metadata"].append(fs)
    check(pack, stack + [fs], GCP, {SSZ: "fail"})


def test_z10_azure_capacity_reservation_added(pack):
    """PR: a capacity reservation of 2 x ND96isr_H100_v5 in eastus zone 1 (billed at the
    pay-as-you-go rate whether used or not, learn.microsoft.com/azure/virtual-machines/
    capacity-reservation-overview). 2 x 98.32 x 730 = 143,547.20 > 50,000: spend fail."""
    cr = res("azure-native:compute:CapacityReservation", "h100-cr", {
        "capacityReservationGroupName": "crg", "resourceGroupName": "ml-rg",
        "location": "eastus", "zones": ["1"],
        "sku": {"name": "Standard_ND96isr_H100_v5", "capacity": 2.0}, "tags": dict(TAGS)})
    check(pack, azure_cluster(budget_amount=50000.0) + [cr], AZ, {SPEND: "fail"})


# ============================================================== third batch (written before
# running it)

def test_a24_bucket_encryption_switched_to_sse_s3(pack):
    """PR: the bucket's SSE configuration aws:kms -> AES256 (docs: a declared configuration
    must name aws:kms, aws:kms:dsse or AES256): all pass."""
    stack = aws_cluster()
    sse = find(stack, "BucketServerSideEncryptionConfiguration")
    sse.props["rules"] = [{"applyServerSideEncryptionByDefault": {"sseAlgorithm": "AES256"}}]
    check(pack, stack, AWS, {})


def test_a25_root_volume_relies_on_encryption_by_default(pack):
    """PR: a 500 GiB gp3 root volume with `encrypted` unset, beside aws:ebs/encryptionByDefault
    enabled in us-east-1 (docs: covers volumes of its own region): all pass."""
    stack = aws_cluster()
    by_name(stack, "lt").props["blockDeviceMappings"] = [{"deviceName": "/dev/xvda", "ebs": {
        "volumeSize": 500.0, "volumeType": "gp3"}}]
    ebd = res("aws:ebs/encryptionByDefault:EncryptionByDefault", "ebs-default",
              {"enabled": True, "region": "us-east-1"})
    check(pack, stack + [ebd], AWS, {})


def test_a26_budget_period_starts_next_month(pack):
    """PR: the budget's timePeriodStart moved to the first of next month (written 2027-01-01_00:00,
    which began on that day; docs: a budget whose period has not begun tracks nothing now:
    neither the cap nor the alarm): spend fail (no alarm)."""
    now = datetime.now(timezone.utc)
    stack = aws_cluster()
    by_name(stack, "budget").props["timePeriodStart"] = \
        f"{now.year + now.month // 12:04d}-{now.month % 12 + 1:02d}-01_00:00"
    check(pack, stack, AWS, {SPEND: "fail"})


def test_z11_budget_period_ended(pack):
    """PR: the budget's timePeriod ended 2026-11-30 (docs: ended -> tracks nothing): spend
    fail."""
    stack = azure_cluster(budget_amount=50000.0)
    by_name(stack, "budget").props["timePeriod"] = {"startDate": "2026-01-01T00:00:00Z",
                                                    "endDate": "2026-11-30T00:00:00Z"}
    check(pack, stack, AZ, {SPEND: "fail"})


def test_l07_tag_renamed_on_one_node(pack):
    """PR: node-0's `owner` tag renamed `maintainer`: required-tags fail."""
    stack = alicloud_cluster()
    node = by_name(stack, "node-0")
    tags = dict(node.props["tags"])
    tags["maintainer"] = tags.pop("owner")
    node.props["tags"] = tags
    check(pack, stack, ALI, {TAGS_P: "fail"})


# ============================================================== fourth batch (written before
# running it): does the filesystem-at-the-nodes'-lifetime pricing of g01/a21 reach Azure and
# Alibaba too?

def test_z12_amlfs_bills_past_the_scale_set_stop(pack):
    """Budget 20,000 (the fixture's own until the month pricing: it is 25,000 now), stop at 96 h. Truth: nodes 18,877.44; AMLFS 8 TiB bills
    per provisioned TiB-hour until deleted (azure.microsoft.com/pricing/details/managed-lustre;
    docs/billing-after-stop.md), 8,192 GiB x 0.2723 = 2,230.70 for the month, + the account at
    the filesystem's 8,796 GB x 0.018 = 158: 21,266 > 20,000: spend fail."""
    check(pack, azure_cluster(budget_amount=20000.0), AZ, {SPEND: "fail"})


def test_l08_cpfs_bills_past_the_release_time(pack):
    """maxMonthlyUsd 11,500; nodes released at 96 h. Truth: 11,187.99 + CPFS 3,600 x 0.1925 =
    693 for the whole month (CPFS outlives the auto-release: docs/billing-after-stop.md) + the
    bucket 67 = 11,948 > 11,500: spend fail. (Written first with a 12,000 cap and CPFS at the
    Lingjun row's 0.244 = 12,066; with the catalog's advance_200 row the truth is 11,948, under
    12,000: my mistake, the cap moved to 11,500 so the case still asks its question.)"""
    check(pack, alicloud_cluster(), ALI, {SPEND: "fail"},
          config={SPEND: {"maxMonthlyUsd": 11500}})
