"""Issue 14's observed cases, each driven through the pack over gRPC as `pulumi preview` drives it.

Every case is an ordinary Pulumi program's resources (not trainstack's components): inputs as
the engine sends them (unknowns as its sentinels), property dependencies by URN, the protect
option, and the provider resource the engine attaches to every request.
"""
from __future__ import annotations

import pytest

from tests.policy_fixtures import (
    AWS_ALERTS,
    GCP_ALERTS,
    OWNER_LABELS,
    OWNER_TAGS,
    aws_cluster,
    find,
    gcp_cluster,
    res,
    set_prop,
    stop_schedule,
)
from tests.policy_harness import run
from trainstack_policies.model import UNKNOWN

TAGS = dict(OWNER_TAGS)
LABELS = dict(OWNER_LABELS)


def policies(found, level=None):
    return {d.policy for d in found if level is None or d.level == level}


def judged(found):
    """The diagnostics that judge something: every one but the exemption notes."""
    return [d for d in found if not d.message.startswith("exempt: ")]


def exempt_notes(found):
    return {(d.policy, d.urn) for d in found if d.message.startswith("exempt: ")
            and d.level == "advisory"}


def of(found, policy):
    return [d for d in found if d.policy == policy]


def aws_subnet(name, zone):
    return res("aws:ec2/subnet:Subnet", name, {"availabilityZone": zone, "tags": TAGS})


def aws_budget(usd="50000"):
    return res("aws:budgets/budget:Budget", "budget", {
        "notifications": AWS_ALERTS, "budgetType": "COST", "timeUnit": "MONTHLY",
        "limitAmount": usd, "limitUnit": "USD", "tags": TAGS})


def launch_template(itype, **props):
    return res("aws:ec2/launchTemplate:LaunchTemplate", "lt",
               {"instanceType": itype, "tags": TAGS, **props})


def asg(lt, subnets, size=3.0, **props):
    return res("aws:autoscaling/group:Group", "web",
               {"minSize": 1.0, "maxSize": size, "desiredCapacity": size,
                "tags": [{"key": k, "value": v, "propagateAtLaunch": True}
                         for k, v in TAGS.items()], **props},
               deps={"launchTemplate": [lt], "vpcZoneIdentifiers": subnets})


AWS = {"region": "us-east-1"}


# ------------------------------------------------------------------------------ false alarms

def test_a_non_gpu_asg_across_three_zones_passes_every_policy(pack):
    subnets = [aws_subnet(f"s{z}", f"us-east-1{z}") for z in "abc"]
    lt = launch_template("t3.small")
    efs = res("aws:efs/fileSystem:FileSystem", "shared", {"encrypted": True, "tags": TAGS})
    assert run(pack, [*subnets, lt, asg(lt, subnets), efs], provider=AWS) == []


@pytest.mark.parametrize("cloud, resources", [
    ("aws", lambda: [res("aws:ec2/instance:Instance", "box",
                         {"instanceType": "t3.micro", "availabilityZone": "us-east-1a",
                          # no public IP from the default VPC's subnet (no-public-ingress)
                          "associatePublicIpAddress": False, "tags": TAGS})]),
    ("gcp", lambda: [res("gcp:compute/instance:Instance", "box",
                         {"machineType": "e2-small", "zone": "us-central1-a",
                          "labels": LABELS})]),
])
def test_non_gpu_instances_outside_the_catalog_pass_spend_limit(pack, cloud, resources):
    assert run(pack, resources()) == []


@pytest.mark.parametrize("itype, region, named", [
    # p5e.48xlarge: AWS publishes no on-demand price for it, so the catalog records it as listed
    # without a price (components/catalog/unpriced.csv) and the refusal says so
    ("p5e.48xlarge", "us-east-1", "p5e.48xlarge in us-east-1 (8 x H200, listed publicly without "
                                  "a public price) has no catalog price: listed publicly"),
    ("p5.48xlarge", "ap-south-2", "p5.48xlarge in ap-south-2 (8 x H100 (catalog))"),
])
def test_gpu_capacity_the_catalog_cannot_price_fails_closed(pack, itype, region, named):
    subnet = res("aws:ec2/subnet:Subnet", "s", {"availabilityZone": f"{region}a", "tags": TAGS})
    lt = launch_template(itype)
    found = run(pack, [subnet, lt, asg(lt, [subnet], 2.0), aws_budget()],
                provider={"region": region})
    [d] = of(found, "spend-limit")
    assert d.level == "mandatory" and "cannot be estimated" in d.message and named in d.message


def test_provider_default_tags_and_labels_count_for_required_tags(pack):
    bucket = res("aws:s3/bucket:Bucket", "logs", {"tags": {"trainstack:retain": "true"}})
    assert policies(run(pack, [bucket])) == {"required-tags"}
    assert run(pack, [bucket], provider={"region": "us-east-1",
                                         "defaultTags": {"tags": TAGS}}) == []
    gbucket = res("gcp:storage/bucket:Bucket", "logs", {"location": "US-CENTRAL1",
                                                        "labels": {"trainstack_retain": "true"}})
    assert policies(run(pack, [gbucket])) == {"required-tags"}
    assert run(pack, [gbucket], provider={"project": "p", "defaultLabels": LABELS}) == []
    # Object-valued provider inputs may arrive as JSON strings (from stack config).
    import json
    assert run(pack, [bucket], provider={"defaultTags": json.dumps({"tags": TAGS})}) == []



def test_a_resource_s_own_tags_win_over_the_provider_s_defaults_for_required_tags(pack):
    """Its own tags override the provider's default tags (tags_of: "its own over the
    provider's default tags"), whichever of the two is blank: a blank own tag is missing even
    where the provider's default has a value, and a blank default changes nothing where the
    resource's own tag has one."""
    blank_own = res("aws:s3/bucket:Bucket", "logs",
                    {"tags": {**TAGS, "owner": "  ", "trainstack:retain": "true"}})
    provider = {"region": "us-east-1", "defaultTags": {"tags": {"owner": "alice"}}}
    [d] = run(pack, [blank_own], provider=provider)
    assert d.policy == "required-tags" and "missing required tags owner" in d.message
    tagged = res("aws:s3/bucket:Bucket", "logs", {"tags": {**TAGS, "trainstack:retain": "true"}})
    assert run(pack, [tagged], provider={"region": "us-east-1", "defaultTags": {
        "tags": {"owner": "", "team": " ", "cost-center": ""}}}) == []
    gbucket = res("gcp:storage/bucket:Bucket", "logs", {
        "location": "US-CENTRAL1", "labels": {**LABELS, "team": "", "trainstack_retain": "true"}})
    [d] = run(pack, [gbucket], provider={"project": "p", "defaultLabels": {"team": "ml"}})
    assert d.policy == "required-tags" and "missing required labels team" in d.message


def test_the_provider_default_zone_places_a_gpu_instance(pack):
    node = res("gcp:compute/instance:Instance", "node",
               {"machineType": "a3-ultragpu-8g", "labels": LABELS})
    fs = res("gcp:lustre/instance:Instance", "fs",
             {"location": "us-west1-b", "capacityGib": "18000", "labels": LABELS})
    budget = res("gcp:billing/budget:Budget", "b", {
        "thresholdRules": GCP_ALERTS,
        "amount": {"specifiedAmount": {
        "currencyCode": "USD", "units": "200000"}}})
    provider = {"project": "p", "region": "us-west1", "zone": "us-west1-c"}
    [d] = of(run(pack, [node, fs, budget], provider=provider), "storage-same-zone")
    assert "Found: us-west1-b. Expected: us-west1-c" in d.message
    provider["zone"] = "us-west1-b"
    assert of(run(pack, [node, fs, budget], provider=provider), "storage-same-zone") == []


def test_protect_in_the_resource_options_retains_a_bucket(pack):
    bucket = res("aws:s3/bucket:Bucket", "data", {"tags": TAGS})
    [d] = run(pack, [bucket])
    assert d.policy == "bucket-retained"
    bucket.protect = True
    assert run(pack, [bucket]) == []


def test_s3_without_an_sse_resource_is_encrypted_by_default(pack):
    bucket = res("aws:s3/bucketV2:BucketV2", "data", {"tags": {**TAGS, "trainstack:retain": "true"}})
    assert run(pack, [bucket]) == []


def test_a_gcp_deny_rule_from_everywhere_is_not_public_ingress(pack):
    deny = res("gcp:compute/firewall:Firewall", "deny-all",
               {"direction": "INGRESS", "sourceRanges": ["0.0.0.0/0"],
                "denies": [{"protocol": "all"}], "network": "default"})
    assert run(pack, [deny]) == []


def test_a_usage_budget_is_not_a_usd_budget(pack):
    resources = aws_cluster()
    resources.append(res("aws:budgets/budget:Budget", "hours",
                         {"budgetType": "USAGE", "timeUnit": "MONTHLY", "limitAmount": "300",
                          "limitUnit": "Hrs", "tags": TAGS}))
    assert run(pack, resources) == []


def test_an_unknown_value_is_an_advisory_cannot_decide(pack):
    rule = res("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule", "in",
               {"cidrIpv4": UNKNOWN, "ipProtocol": "tcp", "fromPort": 443.0, "toPort": 443.0,
                "tags": TAGS})
    [d] = run(pack, [rule])
    assert d.policy == "no-public-ingress" and d.level == "advisory"
    assert "cannot decide until apply" in d.message


def test_an_unknown_filesystem_size_cannot_be_decided_mandatory_by_default_for_spend(pack):
    resources = aws_cluster()
    set_prop(find(resources, "LustreFileSystem"), "storageCapacity", UNKNOWN)
    [d] = run(pack, resources)
    assert (d.policy, d.level) == ("spend-limit", "mandatory")
    assert "cannot decide: " in d.message and "capacity is unknown" in d.message
    [d] = run(pack, resources, {"spend-limit": {"cannotDecide": "advisory"}})
    assert (d.policy, d.level) == ("spend-limit", "advisory")
    assert "cannot decide until apply" in d.message
    resources = aws_cluster()
    set_prop(find(resources, "LaunchTemplate"), "instanceType", UNKNOWN)
    [d] = of(run(pack, resources), "spend-limit")
    assert d.level == "mandatory" and "an instance type unknown until apply" in d.message


def test_gpu_capacity_that_cannot_be_priced_fails_closed_whatever_cannot_decide_says(pack):
    """docs/policies.md: GPU capacity spend-limit cannot size or price is a violation, not a
    "cannot decide" that `cannotDecide: advisory` would soften (an unpriced group of any size)."""
    resources = aws_cluster()
    set_prop(find(resources, "LaunchTemplate"), "instanceType", UNKNOWN)
    [d] = of(run(pack, resources, {"spend-limit": {"cannotDecide": "advisory"}}), "spend-limit")
    assert d.level == "mandatory" and "cannot decide" not in d.message
    assert "cannot be estimated" in d.message and "an instance type unknown until apply" in d.message


# ------------------------------------------------------------------------------ blind spots

def _subnet():
    return aws_subnet("s", "us-east-1a")


@pytest.mark.parametrize("build", [
    lambda s, lt: res("aws:ec2/spotFleetRequest:SpotFleetRequest", "fleet",
                      {"targetCapacity": 4.0, "iamFleetRole": "arn", "launchSpecifications": [
                          {"instanceType": "p5.48xlarge", "ami": "ami-1",
                           "availabilityZone": "us-east-1a"}], "tags": TAGS}),
    lambda s, lt: res("aws:ec2/fleet:Fleet", "fleet",
                      {"targetCapacitySpecification": {"totalTargetCapacity": 4.0,
                                                       "defaultTargetCapacityType": "on-demand"},
                       "launchTemplateConfigs": [{"launchTemplateSpecification": {
                           "launchTemplateId": "lt-1", "version": "$Latest"},
                           "overrides": [{"instanceType": "p5.48xlarge"}]}], "tags": TAGS},
                      deps={"launchTemplateConfigs": [lt]}),
    lambda s, lt: res("aws:eks/nodeGroup:NodeGroup", "gpus",
                      {"clusterName": "c", "nodeRoleArn": "arn", "instanceTypes": ["p5.48xlarge"],
                       "scalingConfig": {"minSize": 0.0, "maxSize": 4.0, "desiredSize": 1.0},
                       "subnetIds": ["subnet-1"], "tags": TAGS}, deps={"subnetIds": [s]}),
    lambda s, lt: res("aws:autoscaling/group:Group", "mixed",
                      {"minSize": 0.0, "maxSize": 4.0, "mixedInstancesPolicy": {
                          "launchTemplate": {"launchTemplateSpecification": {"launchTemplateId":
                                                                             "lt-1"},
                                             "overrides": [{"instanceType": "m5.large"},
                                                           {"instanceType": "p5.48xlarge"}]}},
                       "tags": []}, deps={"mixedInstancesPolicy": [lt],
                                          "vpcZoneIdentifiers": [s]}),
], ids=["spot-fleet", "ec2-fleet", "eks-node-group", "mixed-instances"])
def test_gpu_capacity_in_fleets_node_groups_and_mixed_policies_is_priced(pack, build):
    s, lt = _subnet(), launch_template("m5.large")
    found = run(pack, [s, lt, build(s, lt), aws_budget("50000")], provider=AWS)
    [d] = of(found, "spend-limit")
    assert d.level == "mandatory" and "exceeds the stack's budget" in d.message
    assert "4 x p5.48xlarge" in d.message


def test_a_gke_node_pool_with_gpus_is_priced_and_placed(pack):
    pool = res("gcp:container/nodePool:NodePool", "gpus",
               {"cluster": "c", "location": "us-west1-c", "nodeCount": 4.0,
                "nodeConfig": {"machineType": "a3-ultragpu-8g", "labels": LABELS}})
    budget = res("gcp:billing/budget:Budget", "b", {
        "thresholdRules": GCP_ALERTS,
        "amount": {"specifiedAmount": {
        "currencyCode": "USD", "units": "50000"}}})
    fs = res("gcp:filestore/instance:Instance", "fs",
             {"location": "us-west1-a", "tier": "ZONAL", "labels": LABELS,
              "fileShares": {"name": "share", "capacityGb": 10240.0}})
    found = run(pack, [pool, budget, fs])
    assert "4 x a3-ultragpu-8g" in of(found, "spend-limit")[0].message
    [d] = of(found, "storage-same-zone")
    assert "Found: us-west1-a. Expected: us-west1-c" in d.message


def test_declared_accelerators_make_a_gpu_node(pack):
    node = res("gcp:compute/instance:Instance", "n1",
               {"machineType": "n1-standard-8", "zone": "us-east4-a", "labels": LABELS,
                "guestAccelerators": [{"type": "nvidia-tesla-v100", "count": 1.0}]})
    # A V100 attached to N1 in us-east4 has no catalog row (the source prices V100 in other
    # regions: tests/catalog/test_gcp_n1_attached_gpus_grpc.py), so the GPU node fails closed,
    # naming the part.
    [d] = [d for d in of(run(pack, [node]), "spend-limit") if "cannot be estimated" in d.message]
    assert "nvidia-tesla-v100 in us-east4 (N1 with attached GPUs: n1-standard-8 + 1 x " \
        "nvidia-tesla-v100) has no catalog price" in d.message


def test_filestore_beside_gce_gpus_in_another_zone_fails(pack):
    resources = gcp_cluster()
    resources.append(res("gcp:filestore/instance:Instance", "home",
                         {"location": "us-west1-a", "tier": "BASIC_SSD", "labels": LABELS,
                          "fileShares": {"name": "home", "capacityGb": 2560.0}}))
    [d] = run(pack, resources)
    assert d.policy == "storage-same-zone" and d.urn.endswith("::home")


def test_an_asg_of_unknown_size_counts_at_its_maximum_else_fails_closed(pack):
    resources = aws_cluster(nodes=2)
    group = find(resources, "autoscaling/group:Group")
    group.props["desiredCapacity"] = UNKNOWN
    group.props["maxSize"] = 40.0
    [d] = of(run(pack, resources), "spend-limit")
    assert "40 x p5.48xlarge" in d.message
    group.props["maxSize"] = UNKNOWN
    [d] = of(run(pack, resources), "spend-limit")
    assert d.level == "mandatory" and "size unknown until apply" in d.message


def test_a_pebibyte_of_unpriced_lustre_breaks_a_50k_budget(pack):
    resources = aws_cluster(nodes=1, budget_usd="50000.00", max_hours=None)
    assert run(pack, resources) == []           # 1 x p5 for a month: 40,179 USD + 4.8 TiB
    fs = find(resources, "LustreFileSystem")
    # PERSISTENT_1 at 200 MB/s/TiB is a real FSx tier the catalog cites no price for.
    set_prop(fs, "deploymentType", "PERSISTENT_1")
    set_prop(fs, "perUnitStorageThroughput", 200.0)
    assert run(pack, resources) == []           # 4.8 TiB at the lower bound still fits
    set_prop(fs, "storageCapacity", 1024.0 * 1024)
    [d] = run(pack, resources)
    assert d.policy == "spend-limit" and "exceeds the stack's budget" in d.message
    assert "1,048,576 GiB FSx for Lustre x at least" in d.message


def test_a_lifetime_tag_without_enforcement_does_not_shrink_the_estimate(pack):
    resources = aws_cluster()                      # tagged max-hours 96, with a stop schedule
    assert run(pack, resources) == []
    resources = [r for r in resources if not r.type.endswith("schedule:Schedule")]
    [d] = run(pack, resources)
    assert d.policy == "spend-limit" and "x 730 h" in d.message
    resources.append(stop_schedule(find(resources, "autoscaling/group:Group")))
    assert run(pack, resources) == []


def test_unencrypted_ebs_efs_and_rds_fail_encryption_at_rest(pack):
    resources = [
        launch_template("t3.small", blockDeviceMappings=[{"deviceName": "/dev/xvda",
                                                          "ebs": {"volumeSize": 50.0}}]),
        res("aws:ec2/instance:Instance", "box", {"instanceType": "t3.micro", "tags": TAGS,
                                                 "rootBlockDevice": {"encrypted": False}}),
        res("aws:ebs/volume:Volume", "vol", {"availabilityZone": "us-east-1a", "size": 10.0,
                                             "tags": TAGS}),
        res("aws:efs/fileSystem:FileSystem", "efs", {"tags": TAGS}),
        res("aws:rds/instance:Instance", "db", {"instanceClass": "db.t3.micro", "tags": TAGS}),
    ]
    found = run(pack, resources)
    assert {d.urn.rsplit("::", 1)[1] for d in of(found, "encryption-at-rest")} == \
        {"lt", "box", "vol", "efs", "db"}
    resources.append(res("aws:ebs/encryptionByDefault:EncryptionByDefault", "ebs-default",
                         {"enabled": True}))
    assert {d.urn.rsplit("::", 1)[1] for d in of(run(pack, resources), "encryption-at-rest")} \
        == {"efs", "db"}


@pytest.mark.parametrize("props", [
    {"direction": "INGRESS", "allows": [{"protocol": "tcp", "ports": ["443"]}]},
    {"direction": "INGRESS", "allows": [{"protocol": "tcp", "ports": ["443"]}],
     "sourceRanges": ["0.0.0.0/1", "128.0.0.0/1"]},
], ids=["no-source-ranges", "two-halves"])
def test_gcp_ingress_open_to_the_world_in_disguise(pack, props):
    [d] = run(pack, [res("gcp:compute/firewall:Firewall", "open", {"network": "n", **props})])
    assert d.policy == "no-public-ingress" and "ingress from 0.0.0.0/0" in d.message


def test_aws_rules_split_into_halves_are_world_open(pack):
    rule = res("aws:ec2/securityGroupRule:SecurityGroupRule", "halves",
               {"type": "ingress", "protocol": "tcp", "fromPort": 5432.0, "toPort": 5432.0,
                "cidrBlocks": ["0.0.0.0/1", "128.0.0.0/1"], "securityGroupId": "sg"})
    [d] = run(pack, [rule])
    assert "together all addresses" in d.message


def test_blank_tag_values_fail_required_tags(pack):
    [d] = run(pack, [res("aws:ec2/vpc:Vpc", "vpc", {"tags": {**TAGS, "owner": "  "}})])
    assert d.policy == "required-tags" and "missing required tags owner" in d.message


def test_an_unknown_object_in_a_security_group_ingress_list_does_not_crash(pack):
    sg = res("aws:ec2/securityGroup:SecurityGroup", "sg",
             {"tags": TAGS, "ingress": [UNKNOWN, {"protocol": "tcp", "fromPort": 22.0,
                                                  "toPort": 22.0, "cidrBlocks": ["10.0.0.0/8"]}]})
    [d] = run(pack, [sg])
    assert (d.policy, d.level) == ("no-public-ingress", "advisory")
    assert "cannot decide until apply" in d.message


# ------------------------------------------------------------------------- exemptions, metadata

def test_a_skip_tag_or_config_list_exempts_one_resource_from_named_policies(pack):
    rule = res("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule", "public-https",
               {"cidrIpv4": "0.0.0.0/0", "ipProtocol": "tcp", "fromPort": 443.0, "toPort": 443.0,
                "tags": TAGS})
    assert policies(run(pack, [rule])) == {"no-public-ingress"}
    found = run(pack, [rule], {"no-public-ingress": {"skipResources": [
        "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule::public-*"]}})
    assert exempt_notes(found) == {("no-public-ingress", rule.urn)} and judged(found) == []
    rule.props["tags"] = {**TAGS, "trainstack:policy-skip": "required-tags, no-public-ingress"}
    found = run(pack, [rule])
    assert exempt_notes(found) == {("no-public-ingress", rule.urn), ("required-tags", rule.urn)}
    assert judged(found) == []
    rule.props["tags"] = {**TAGS, "trainstack:policy-skip": "required-tags"}
    assert policies(judged(run(pack, [rule]))) == {"no-public-ingress"}


def test_a_gcp_label_exemption_separates_policies_with_double_underscores(pack):
    rule = res("gcp:compute/firewall:Firewall", "lb-health", {
        "direction": "INGRESS", "allows": [{"protocol": "tcp", "ports": ["80"]}],
        "sourceRanges": ["0.0.0.0/0"], "network": "n"})
    assert policies(run(pack, [rule])) == {"no-public-ingress"}
    # A firewall takes no labels: exempt it by URN in the policy's config instead.
    assert judged(run(pack, [rule], {"no-public-ingress": {"skipResources": [rule.urn]}})) == []
    bucket = res("gcp:storage/bucket:Bucket", "scratch", {"location": "US-WEST1", "labels": {
        **LABELS, "trainstack_policy-skip": "bucket-retained__storage-same-zone"}})
    found = run(pack, [bucket])
    assert judged(found) == [] and exempt_notes(found) == {
        ("bucket-retained", bucket.urn), ("storage-same-zone", bucket.urn)}


def test_an_exempt_gpu_group_is_not_priced(pack):
    resources = aws_cluster(max_hours=None)
    assert policies(run(pack, resources)) == {"spend-limit"}
    group = find(resources, "autoscaling/group:Group")
    group.props["tags"].append({"key": "trainstack:policy-skip", "value": "spend-limit",
                                "propagateAtLaunch": False})
    found = run(pack, resources)
    assert judged(found) == [] and exempt_notes(found) == {("spend-limit", group.urn)}


def test_every_policy_advertises_severity_remediation_and_a_docs_url(pack):
    from pulumi.runtime.proto import analyzer_pb2 as apb

    from trainstack_policies.rules import BY_NAME
    docs = (pack.info and __import__("pathlib").Path(__file__).resolve().parents[2]
            / "docs" / "policies.md").read_text()
    for p in pack.info.policies:
        rule = BY_NAME[p.name]
        assert apb.PolicySeverity.Name(p.severity).lower().endswith(rule.severity), p.name
        assert p.remediation_steps == rule.remediation and len(p.remediation_steps) > 40
        assert p.url.endswith(f"docs/policies.md#{p.name}")
        assert f"\n## {p.name}\n" in docs and rule.scope[:40] in docs.replace("\n", " ")
