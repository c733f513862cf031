"""The AWS cluster under Pulumi's mock engine: every part the foundation issue names."""
import importlib
import inspect
import json

import pytest

from tests.conftest import one, plan_for
from trainstack_components.tags import CLUSTER_TAG, MANAGED_BY_TAG, STACK_TAG

LT = "aws:ec2/launchTemplate:LaunchTemplate"
ASG = "aws:autoscaling/group:Group"
FSX = "aws:fsx/lustreFileSystem:LustreFileSystem"
SUBNET = "aws:ec2/subnet:Subnet"
BUCKET = "aws:s3/bucket:Bucket"


@pytest.fixture
def plan(example_spec):
    return plan_for(example_spec, "aws")


def test_component_token_and_every_child_parented_and_prefixed(plan):
    component = one(plan, "trainstack:aws:GpuCluster")
    children = [r for r in plan.resources if r.custom]
    assert children and all(r.parent == component.urn for r in children)
    assert all(r.name.startswith("llm-finetune-") for r in children)
    assert len({r.urn for r in plan.resources}) == len(plan.resources)


@pytest.mark.parametrize("type_name, efa", [("p5.48xlarge", 32), ("p5en.48xlarge", 16),
                                             ("p6-b200.48xlarge", 8)])
def test_launch_template_has_one_efa_per_network_card(example_spec, type_name, efa):
    example_spec["gpu"] = ["H100", "H200", "B200"]
    example_spec["clouds"]["aws"]["instance_type"] = type_name
    plan = plan_for(example_spec, "aws")
    lt = one(plan, LT)
    assert lt.inputs["instanceType"] == type_name
    kinds = [n["interfaceType"] for n in lt.inputs["networkInterfaces"]]
    assert kinds.count("efa-only") == efa and kinds.count("interface") == 1
    first = lt.inputs["networkInterfaces"][0]
    assert (first["networkCardIndex"], first["deviceIndex"], first["interfaceType"]) == (0, 0, "interface")


def test_nodes_and_filesystem_share_the_subnet_in_the_spec_zone(plan):
    subnet_urns = {r.urn: r for r in plan.of_type(SUBNET)}
    fsx, asg, lt = one(plan, FSX), one(plan, ASG), one(plan, LT)
    (fs_subnet,) = fsx.property_dependencies["subnetIds"]
    (node_subnet,) = asg.property_dependencies["vpcZoneIdentifiers"]
    assert fs_subnet == node_subnet
    assert subnet_urns[fs_subnet].inputs["availabilityZone"] == "us-east-1a"
    assert fsx.inputs["subnetIds"] == asg.inputs["vpcZoneIdentifiers"][0]
    # The interfaces name no subnet: the group's subnet (the filesystem's) places all of them;
    # a subnet in the launch template as well conflicts with the group's (review 2026-12).
    assert not [n for n in lt.inputs["networkInterfaces"] if n.get("subnetId")]
    assert plan.zone_of(fsx) == plan.zone_of(asg) == "us-east-1a"


def test_group_size_is_the_node_count_in_one_placement_group(plan):
    asg = one(plan, ASG)
    assert asg.inputs["minSize"] == asg.inputs["maxSize"] == asg.inputs["desiredCapacity"] == 2
    pg = one(plan, "aws:ec2/placementGroup:PlacementGroup")
    assert pg.inputs["strategy"] == "cluster"
    assert asg.property_dependencies["placementGroup"] == [pg.urn]


def test_resource_count_does_not_grow_with_nodes(example_spec):
    small = plan_for(example_spec, "aws")
    example_spec["nodes"] = 64
    example_spec["budget"]["monthly_usd"] = 2_000_000
    large = plan_for(example_spec, "aws")
    assert len(small.resources) == len(large.resources)
    assert one(large, ASG).inputs["desiredCapacity"] == 64


def test_spot_goes_through_market_options(example_spec):
    assert "instanceMarketOptions" not in one(plan_for(example_spec, "aws"), LT).inputs
    example_spec["spot"] = True
    lt = one(plan_for(example_spec, "aws"), LT)
    assert lt.inputs["instanceMarketOptions"] == {"marketType": "spot"}


def test_security_group_self_rules_and_no_outside_ingress(plan):
    sg = one(plan, "aws:ec2/securityGroup:SecurityGroup")
    ingress = plan.of_type("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule")
    egress = plan.of_type("aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule")
    self_rules = [r for r in ingress + egress
                  if r.property_dependencies.get("referencedSecurityGroupId") == [sg.urn]]
    assert {r.type for r in self_rules} == {ingress[0].type, egress[0].type}
    assert all(r.inputs["ipProtocol"] == "-1" and "fromPort" not in r.inputs for r in self_rules)
    assert not any("cidrIpv4" in r.inputs or "cidrIpv6" in r.inputs for r in ingress)


def test_ssh_cidrs_open_port_22_only_to_them(example_spec):
    example_spec["access"]["ssh_cidrs"] = ["203.0.113.0/24"]
    plan = plan_for(example_spec, "aws")
    ssh = [r for r in plan.of_type("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule")
           if "cidrIpv4" in r.inputs]
    assert [(r.inputs["cidrIpv4"], r.inputs["fromPort"], r.inputs["toPort"]) for r in ssh] == [
        ("203.0.113.0/24", 22, 22)]


def test_filesystem_is_persistent2_rounded_and_linked_to_the_bucket(example_spec):
    # EFA on FSx asked for (p5 is an EFA client), so it is sized in EFA steps: 5,000 GiB at
    # 200 MB/s/TiB (977 MB/s) is cheapest as 9,600 GiB at 500 (one 9,600 GiB EFA step).
    example_spec["filesystem"] = {"capacity_gib": 5000, "throughput_mbps_per_tib": 200}
    example_spec["clouds"]["aws"]["fsx_efa"] = True
    plan = plan_for(example_spec, "aws")
    fsx = one(plan, FSX)
    assert fsx.inputs["deploymentType"] == "PERSISTENT_2"
    assert fsx.inputs["efaEnabled"] is True
    assert fsx.inputs["metadataConfiguration"] == {"mode": "AUTOMATIC"}
    assert fsx.inputs["storageCapacity"] == 9600
    assert fsx.inputs["perUnitStorageThroughput"] == 500
    assert plan.outputs["filesystem_monthly_usd"] > 0
    dra = one(plan, "aws:fsx/dataRepositoryAssociation:DataRepositoryAssociation")
    bucket = one(plan, BUCKET)
    assert dra.property_dependencies["fileSystemId"] == [fsx.urn]
    assert dra.property_dependencies["dataRepositoryPath"] == [bucket.urn]
    assert dra.inputs["dataRepositoryPath"] == "s3://llm-finetune-data/data/"
    # The whole filesystem is linked ("/", then the only association FSx allows: FSx API
    # Reference, DataRepositoryAssociation FileSystemPath), so the reaper's export reaches every
    # file; the stack says so to the reaper and to `trainstack status`.
    assert dra.inputs["fileSystemPath"] == "/"
    assert plan.outputs["filesystem_bucket_path"] == "/"
    # A stack deployed with the older "/bucket" association replaces it: the old one must go
    # first, as "/" may not sit beside another association.
    assert dra.delete_before_replace is True
    assert dra.inputs["deleteDataInFilesystem"] is False   # the files stay where they are
    events = ["NEW", "CHANGED", "DELETED"]
    assert dra.inputs["s3"]["autoImportPolicy"]["events"] == events
    assert dra.inputs["s3"]["autoExportPolicy"]["events"] == events
    assert plan.outputs["filesystem_capacity_gib"] == 9600


def test_filesystem_without_efa_uses_the_plain_persistent2_steps(example_spec):
    example_spec["interconnect"] = "tcp"
    example_spec["filesystem"] = {"capacity_gib": 5000, "throughput_mbps_per_tib": 200}
    fsx = one(plan_for(example_spec, "aws"), FSX)
    assert "efaEnabled" not in fsx.inputs
    # 125 MB/s/TiB needs 8,000 GiB for 977 MB/s -> 9,600 GiB, cheaper than 7,200 GiB at 250
    assert (fsx.inputs["storageCapacity"], fsx.inputs["perUnitStorageThroughput"]) == (9600, 125)


def test_bucket_is_versioned_encrypted_private_and_retained(plan):
    bucket = one(plan, BUCKET)
    assert bucket.retain_on_delete and bucket.inputs["forceDestroy"] is False
    assert bucket.inputs["region"] == "us-east-1"
    # The boot's shipped agents (BucketObjectv2) go with the stack; the bucket's settings stay.
    by_type = {r.type.split(":")[-1]: r for r in plan.resources
               if r.property_dependencies.get("bucket") == [bucket.urn]
               and not r.type.endswith("BucketObjectv2")}
    assert by_type["BucketVersioning"].inputs["versioningConfiguration"]["status"] == "Enabled"
    sse = by_type["BucketServerSideEncryptionConfiguration"].inputs["rules"][0]
    assert sse["applyServerSideEncryptionByDefault"]["sseAlgorithm"] == "aws:kms"
    block = by_type["BucketPublicAccessBlock"].inputs
    assert all(block[k] is True for k in ("blockPublicAcls", "blockPublicPolicy",
                                          "ignorePublicAcls", "restrictPublicBuckets"))
    assert all(r.retain_on_delete for r in by_type.values())


def test_bucket_not_retained_when_the_spec_says_so(example_spec):
    example_spec["bucket"]["retain_on_destroy"] = False
    bucket = one(plan_for(example_spec, "aws"), BUCKET)
    assert not bucket.retain_on_delete and bucket.inputs["forceDestroy"] is True


def test_budget_amount_thresholds_emails_and_tag_filter(plan):
    budget = one(plan, "aws:budgets/budget:Budget")
    assert budget.inputs["limitAmount"] == "25000.00" and budget.inputs["limitUnit"] == "USD"
    assert budget.inputs["timeUnit"] == "MONTHLY" and budget.inputs["budgetType"] == "COST"
    notes = budget.inputs["notifications"]
    # 50/80/100 % actual (e-mail), 90 % actual and the 100 % forecast (the stop, issue 19).
    assert [(n["notificationType"], n["threshold"]) for n in notes] == [
        ("ACTUAL", 50), ("ACTUAL", 80), ("ACTUAL", 90), ("ACTUAL", 100), ("FORECASTED", 100)]
    assert all(n["subscriberEmailAddresses"] == ["ml-ops@example.com"] and
               n["thresholdType"] == "PERCENTAGE" for n in notes)
    assert budget.inputs["costFilters"] == [
        {"name": "TagKeyValue", "values": ["user:trainstack:cluster$llm-finetune"]}]
    # Activating the tag key is a one-time account step (trainstack bootstrap aws), not a resource
    # whose deletion would deactivate the key for every other cluster.
    assert plan.of_type("aws:costexplorer/costAllocationTag:CostAllocationTag") == []


def _sdk_takes_tags(token: str) -> bool:
    package, module_path, class_name = token.split(":")
    module_name = module_path.split('/')[0]
    # Python keywords get a trailing underscore in the SDK (aws:lambda -> pulumi_aws.lambda_).
    module = importlib.import_module(f"pulumi_aws.{module_name}{'_' if module_name == 'lambda' else ''}")
    cls = getattr(module, class_name)
    return "tags" in inspect.signature(cls._internal_init).parameters


def test_every_taggable_resource_carries_the_cluster_tags(plan):
    expected = {"team": "ml", "owner": "alice", "cost-center": "1234",
                CLUSTER_TAG: "llm-finetune", STACK_TAG: "test", MANAGED_BY_TAG: "trainstack"}
    taggable = [r for r in plan.resources if r.custom and _sdk_takes_tags(r.type)]
    assert len(taggable) >= 20
    for resource in taggable:
        tags = resource.inputs.get("tags")
        if resource.type == ASG:  # a list, propagated to the instances it launches
            assert all(t["propagateAtLaunch"] for t in tags)
            tags = {t["key"]: t["value"] for t in tags}
        assert tags is not None and expected.items() <= tags.items(), resource.name
    specs = one(plan, LT).inputs["tagSpecifications"]
    assert sorted(s["resourceType"] for s in specs) == ["instance", "network-interface", "volume"]
    assert all(expected.items() <= s["tags"].items() for s in specs)


def test_stack_outputs(plan):
    assert plan.outputs["node_group"] == "llm-finetune-nodes"
    assert plan.outputs["placement_group"] == "llm-finetune-pg"
    assert plan.outputs["bucket_name"] == "llm-finetune-data"
    assert plan.outputs["budget_name"] == "llm-finetune-test-monthly"
    assert {"filesystem_dns", "filesystem_mount_name"} <= plan.outputs.keys()
    # 2 nodes x the catalog's us-east-1 on-demand price of p5.48xlarge
    from trainstack_components import catalog
    assert plan.outputs["usd_per_hour"] == pytest.approx(
        2 * catalog.price("aws", "p5.48xlarge", "us-east-1").ondemand_usd_hr)


def test_plan_is_deterministic(example_spec, monkeypatch):
    # Time is an input too: without a persisted first deploy the lifetime counts from the clock.
    from trainstack_components import lifetime
    fixed = lifetime.utc_now()
    monkeypatch.setattr(lifetime, "utc_now", lambda: fixed)
    first = json.dumps(plan_for(example_spec, "aws").to_json(), sort_keys=True)
    second = json.dumps(plan_for(example_spec, "aws").to_json(), sort_keys=True)
    assert first == second
