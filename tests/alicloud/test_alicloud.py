"""The Alibaba Cloud cluster under Pulumi's mock engine (issue 12): every part the issue names on
the example's old shape (ebmgn8v, two ERIs), a one-ERI gn8v, a TCP-only gn7e and an SCC type in
an HPC cluster, and each bad input refused before any resource. Since issue 21 every shape is in
a region with CPFS: the eRDMA and gn7e shapes on STUB prices in cn-wulanchabu
(tests/alicloud_helpers.py), the SCC shape (the example's choice now) in cn-beijing."""
import importlib
import inspect
import json
from datetime import datetime, timedelta, timezone

import pytest
import yaml
from typer.testing import CliRunner

from tests.alicloud_helpers import STUB_REGION, STUB_ZONE, in_cpfs_region, stub_cpfs_region_prices
from tests.conftest import ROOT, assert_clean_error, by_id, one, plan_for, write_spec
from trainstack.plan import engine
from trainstack.cli.app import app
from trainstack_components.alicloud import planning
from trainstack_components.tags import CLUSTER_TAG, RETAIN_TAG
from trainstack_policies.inventory import lifetimes as pack_lifetimes

INSTANCE = "alicloud:ecs/instance:Instance"
DSET = "alicloud:ecs/ecsDeploymentSet:EcsDeploymentSet"
HPC = "alicloud:ecs/hpcCluster:HpcCluster"
SWITCH = "alicloud:vpc/switch:Switch"
SG = "alicloud:ecs/securityGroup:SecurityGroup"
SG_RULE = "alicloud:ecs/securityGroupRule:SecurityGroupRule"
CPFS = "alicloud:nas/fileSystem:FileSystem"
MOUNT = "alicloud:nas/mountTarget:MountTarget"
FILESET = "alicloud:nas/fileset:Fileset"
FLOW = "alicloud:nas/dataFlow:DataFlow"
BUCKET = "alicloud:oss/bucket:Bucket"
ROLE = "alicloud:ram/role:Role"
POLICY = "alicloud:ram/policy:Policy"
ROLE_LINK = "alicloud:ecs/ramRoleAttachment:RamRoleAttachment"
ALARM = "alicloud:cms/alarm:Alarm"
NOW = datetime(2026, 12, 1, 8, 0, 0, tzinfo=timezone.utc)

runner = CliRunner()


@pytest.fixture(autouse=True)
def fixed_clock(monkeypatch):
    # The plan and the pack read one clock: a release time the plan fixed at NOW + 96 h is
    # 96 h away for the pack too, whatever today's date (on the real clock it lay in the past
    # from 2026-12-05 on, and the pack priced the month).
    monkeypatch.setattr(planning, "utc_now", lambda: NOW)
    monkeypatch.setattr(pack_lifetimes, "_now", lambda: NOW)
    stub_cpfs_region_prices(monkeypatch)


@pytest.fixture
def example_spec(example_spec):
    """The example on its pre-issue-21 shape (H(96GB) -> ebmgn8v), in a region with CPFS."""
    return in_cpfs_region(example_spec)


def ebmgn8v(spec):
    return in_cpfs_region(spec)


def gn8v(spec):
    return in_cpfs_region(spec, "ecs.gn8v-8x.48xlarge")


def gn7e(spec):
    return in_cpfs_region(spec, gpu="A100-80GB")


def scc(spec):
    spec["gpu"] = ["A100-80GB"]
    spec["clouds"]["alicloud"].update(region="cn-beijing", zone="cn-beijing-i")
    return spec


CLUSTERS = {"ebmgn8v": (ebmgn8v, "ecs.ebmgn8v.48xlarge", STUB_ZONE),
            "gn8v": (gn8v, "ecs.gn8v-8x.48xlarge", STUB_ZONE),
            "gn7e": (gn7e, "ecs.gn7e-c16g1.32xlarge", STUB_ZONE),
            "scc": (scc, "ecs.sccgn7ex.32xlarge", "cn-beijing-i")}


@pytest.fixture(scope="module")
def plans():
    """One offline plan per cluster shape (the clock is fixed inside)."""
    import copy

    import yaml
    base = yaml.safe_load((ROOT / "examples" / "cluster.yaml").read_text())
    mp = pytest.MonkeyPatch()
    mp.setattr(planning, "utc_now", lambda: NOW)
    stub_cpfs_region_prices(mp)
    try:
        return {key: plan_for(make(copy.deepcopy(base)), "alicloud")
                for key, (make, _, _) in CLUSTERS.items()}
    finally:
        mp.undo()


@pytest.fixture(params=sorted(CLUSTERS))
def cluster(request, plans):
    _, itype, zone = CLUSTERS[request.param]
    return plans[request.param], itype, zone


@pytest.fixture
def plan(plans):
    return plans["ebmgn8v"]


def test_the_h96_shape_selects_erdma_nodes_in_a_cpfs_region(plan):
    sel = plan.inputs.selection
    assert (sel.instance.name, sel.region, sel.zone, sel.use_rdma) == (
        "ecs.ebmgn8v.48xlarge", STUB_REGION, STUB_ZONE, True)
    assert [n.name for n in plan.of_type(INSTANCE)] == ["llm-finetune-node-0",
                                                        "llm-finetune-node-1"]
    assert "per node" in plan.outputs["nodes_note"] and "eRDMA" in plan.outputs["nodes_note"]


def test_each_shape_picks_its_type(cluster):
    plan, itype, zone = cluster
    assert plan.inputs.selection.instance.name == itype
    assert all(n.inputs["instanceType"] == itype for n in plan.of_type(INSTANCE))


# ----------------------------------------------------------------------------- fabric

def test_erdma_on_every_node_with_one_eri_per_erdma_card(plans):
    for key, eris in (("ebmgn8v", 2), ("gn8v", 1)):
        nodes = plans[key].of_type(INSTANCE)
        assert len(nodes) == 2
        for n in nodes:
            found = [n.inputs["networkInterfaceTrafficMode"]]
            secondary = n.inputs.get("networkInterfaces")
            if secondary:
                found.append(secondary["networkInterfaceTrafficMode"])
                assert secondary["networkCardIndex"] == 1
            assert found == ["HighPerformance"] * eris, (key, n.name)


def test_types_without_eri_get_standard_interfaces(plans):
    for key in ("gn7e", "scc"):
        for n in plans[key].of_type(INSTANCE):
            assert n.inputs["networkInterfaceTrafficMode"] == "Standard"
            assert "networkInterfaces" not in n.inputs
    assert "no eRDMA" in plans["gn7e"].outputs["interconnect"]


def test_rdma_required_on_a_tcp_type_exits_2(tmp_path, example_spec):
    spec = gn7e(example_spec)
    spec["interconnect"] = "rdma"
    spec["clouds"]["alicloud"]["instance_type"] = "ecs.gn7e-c16g1.32xlarge"
    result = runner.invoke(app, ["plan", "--spec", str(write_spec(tmp_path, spec)),
                                 "--cloud", "alicloud"])
    assert_clean_error(result, "interconnect", "ecs.gn7e-c16g1.32xlarge")


# ----------------------------------------------------------------------------- placement

def test_every_node_in_the_low_latency_set_and_the_vswitch_zone(cluster):
    plan, itype, zone = cluster
    ids = by_id(plan)
    (vsw,) = [v for v in plan.of_type(SWITCH) if not v.name.endswith("-fs-vsw")]  # the nodes' one
    assert vsw.inputs["zoneId"] == zone
    for n in plan.of_type(INSTANCE):
        assert ids[n.inputs["vswitchId"]] is vsw
        assert plan.zone_of(n) == zone
        if itype == "ecs.sccgn7ex.32xlarge":
            assert ids[n.inputs["hpcClusterId"]].type == HPC
            assert "deploymentSetId" not in n.inputs
        else:
            dset = ids[n.inputs["deploymentSetId"]]
            assert dset.type == DSET and dset.inputs["strategy"] == "LowLatency"
    assert len(plan.of_type(DSET) + plan.of_type(HPC)) == 1


def test_twenty_one_nodes_in_a_low_latency_set_exit_2(tmp_path, example_spec):
    example_spec["nodes"] = 21
    example_spec["budget"]["monthly_usd"] = 500000
    result = runner.invoke(app, ["plan", "--spec", str(write_spec(tmp_path, example_spec)),
                                 "--cloud", "alicloud"])
    assert_clean_error(result, "nodes", "at most 20", "LowLatency")


def test_twenty_nodes_plan(example_spec):
    example_spec["nodes"] = 20
    example_spec["budget"]["monthly_usd"] = 500000
    plan = plan_for(example_spec, "alicloud")
    nodes = plan.of_type(INSTANCE)
    assert len(nodes) == 20 and len({n.inputs["privateIp"] for n in nodes}) == 20


# ----------------------------------------------------------------------------- network

def test_no_public_ip_and_no_ingress_without_ssh_cidrs(plan):
    for n in plan.of_type(INSTANCE):
        assert n.inputs["internetMaxBandwidthOut"] == 0
    assert {g.inputs["innerAccessPolicy"] for g in plan.of_type(SG)} == {"Accept"}
    assert plan.of_type(SG_RULE) == []
    assert "Cloud Assistant" in plan.outputs["access"]


def test_ssh_only_from_the_listed_cidrs(example_spec):
    example_spec["access"]["ssh_cidrs"] = ["203.0.113.0/24", "2001:db8::/32"]
    rules = plan_for(example_spec, "alicloud").of_type(SG_RULE)
    assert len(rules) == 2
    assert {(r.inputs.get("cidrIp"), r.inputs.get("ipv6CidrIp")) for r in rules} == {
        ("203.0.113.0/24", None), (None, "2001:db8::/32")}
    for r in rules:
        assert (r.inputs["type"], r.inputs["ipProtocol"], r.inputs["portRange"]) == (
            "ingress", "tcp", "22/22")


# ----------------------------------------------------------------------------- CPFS and OSS

def test_cpfs_in_the_nodes_zone_and_vswitch_fed_from_the_bucket(cluster):
    plan, _, zone = cluster
    ids = by_id(plan)
    fs = one(plan, CPFS)
    (vsw,) = [v for v in plan.of_type(SWITCH) if v.name.endswith("-fs-vsw")]  # CPFS's own VPC
    assert (fs.inputs["fileSystemType"], fs.inputs["protocolType"]) == ("cpfs", "cpfs")
    assert fs.inputs["zoneId"] == zone and ids[fs.inputs["vswitchId"]] is vsw
    assert vsw.inputs["zoneId"] == zone
    assert fs.inputs["capacity"] == 4800 and fs.inputs["capacity"] % 1200 == 0
    mount = one(plan, MOUNT)
    assert ids[mount.inputs["fileSystemId"]] is fs and ids[mount.inputs["vswitchId"]] is vsw
    fileset, flow, bucket = one(plan, FILESET), one(plan, FLOW), one(plan, BUCKET)
    assert ids[fileset.inputs["fileSystemId"]] is fs
    assert flow.inputs["sourceStorage"] == f"oss://{bucket.inputs.get('bucket', bucket.name)}"
    assert flow.inputs["fsetId"] == "fset-offline" and flow.inputs["throughput"] in (600, 1200, 1500)
    assert bucket.urn in flow.dependencies  # the bucket (and its cpfs-dataflow tag) comes first
    assert bucket.inputs["tags"]["cpfs-dataflow"] == "true"


def test_cpfs_capacity_rounds_up_to_a_1200_gib_step(example_spec):
    example_spec["filesystem"]["capacity_gib"] = 5000
    fs = one(plan_for(example_spec, "alicloud"), CPFS)
    assert fs.inputs["capacity"] == 6000


def test_bucket_private_versioned_encrypted_and_retained(plan):
    bucket = one(plan, BUCKET)
    assert bucket.retain_on_delete and bucket.inputs["forceDestroy"] is False
    assert bucket.inputs["tags"][RETAIN_TAG] == "true"
    assert bucket.inputs["versioning"] == {"status": "Enabled"}
    assert bucket.inputs["serverSideEncryptionRule"]["sseAlgorithm"] == "AES256"
    acl = one(plan, "alicloud:oss/bucketAcl:BucketAcl")
    assert acl.inputs["acl"] == "private" and acl.retain_on_delete
    block = one(plan, "alicloud:oss/bucketPublicAccessBlock:BucketPublicAccessBlock")
    assert block.inputs["blockPublicAccess"] is True


def test_bucket_not_retained_when_the_spec_says_so(example_spec):
    example_spec["bucket"]["retain_on_destroy"] = False
    bucket = one(plan_for(example_spec, "alicloud"), BUCKET)
    assert not bucket.retain_on_delete and bucket.inputs["forceDestroy"] is True
    assert RETAIN_TAG not in bucket.inputs["tags"]


# ----------------------------------------------------------------------------- budget

def _hours_until(stamp: str) -> float:
    at = datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)
    return (at - NOW).total_seconds() / 3600


def test_auto_release_time_is_what_monthly_usd_buys_at_the_catalog_price(example_spec):
    example_spec["workload"].pop("max_hours")  # no declared lifetime: the budget decides
    plan = plan_for(example_spec, "alicloud")
    # catalog sources: ecs.ebmgn8v.48xlarge in eu-central-1, 58.2708 USD/h on demand; 2 nodes
    # = 116.5416 USD/h. The storage month comes out of the 25,000 budget first (it bills until
    # destroy): CPFS 4,800 GiB (4 x 1,200 GiB steps) x 1.4 CNY/GiB-month
    # (cpfs_200mbps_per_tib_EXAMPLE) / 7.2734 CNY per USD (fx.csv) = 923.91, + OSS 26.4 GB (13e9
    # x 2 B weights + 1e8 tokens x 4 B; a LoRA run writes back no full checkpoint) x 0.0173
    # USD/GB-month (oss_standard_lrs) = 0.46: 924.37. (25,000 - 924.37) / 116.5416 = 206.58 h,
    # rounded down to whole hours (the pack counts a started hour): 206 h.
    assert plan.inputs.selection.instance.name == "ecs.ebmgn8v.48xlarge"
    price = 2 * 58.2708
    stamps = {n.inputs["autoReleaseTime"] for n in plan.of_type(INSTANCE)}
    assert stamps == {"2026-12-09T22:00:00Z"}   # NOW (2026-12-01T08:00Z) + 206 h
    assert _hours_until(stamps.pop()) * price + 924.37 <= 25000
    note = plan.outputs["budget_protection"]
    assert "no budget resource" in note and "206.0 h from first deploy" in note
    assert "after the storage month (4,800 GiB CPFS" in note


def test_a_declared_lifetime_shorter_than_the_budget_wins(plan):
    assert {n.inputs["autoReleaseTime"] for n in plan.of_type(INSTANCE)} == {
        "2026-12-05T08:00:00Z"}  # workload.max_hours: 96
    assert "max_hours" in plan.outputs["budget_protection"]
    assert plan.outputs["auto_release_time"] == "2026-12-05T08:00:00Z"  # the nodes' own value
    assert "2026-12-05T08:00:00Z" in plan.outputs["budget_protection"]


def test_spot_release_is_priced_on_demand(example_spec):
    """SpotAsPriceGo bills up to the on-demand price (issue 21): the budget buys on-demand hours."""
    spec = scc(example_spec)
    spec["workload"].pop("max_hours")
    spec["clouds"]["alicloud"]["capacity"] = {"type": "spot"}
    plan = plan_for(spec, "alicloud")
    for n in plan.of_type(INSTANCE):
        assert n.inputs["spotStrategy"] == "SpotAsPriceGo"
        hours = _hours_until(n.inputs["autoReleaseTime"])
        # on-demand 49.8728 USD/h per node (catalog sources): SpotAsPriceGo can bill up to it, so
        # the 25,000 budget less the 924.37 storage month (CPFS 923.91 + OSS 0.46, worked in
        # test_auto_release_time_is_what_monthly_usd_buys_at_the_catalog_price) buys
        # 24,075.63 / (2 x 49.8728) = 241.37 h, whole hours 241; not / (2 x spot)
        assert hours == 241


def test_the_release_time_keeps_the_packs_month_inside_the_budget(example_spec):
    """The release time and the spend-limit policy price the same month: nodes until the
    release, CPFS and the bucket for the whole month. Without a workload (the bucket at the
    filesystem's size) and a 20,000 budget, by hand: CPFS 4,800 GiB x 1.4 CNY / 7.2734 = 923.91;
    OSS 4,800 GiB = 5,153.96 GB x 0.0173 = 89.16; (20,000 - 1,013.08) / (2 x 49.8728) = 190.35 h,
    whole hours 190; the pack's estimate 2 x 49.8728 x 190 + 1,013.08 = 19,964.74 <= 20,000.
    (Before: 20,000 / 99.7456 = 200.5 h, which the pack counted as 201 h plus storage: over.)"""
    from trainstack.check.offline import run_check
    spec = scc(example_spec)
    spec.pop("workload")
    spec["budget"]["monthly_usd"] = 20000
    plan = plan_for(spec, "alicloud")
    assert {_hours_until(n.inputs["autoReleaseTime"]) for n in plan.of_type(INSTANCE)} == {190}
    spend = next(v for v in run_check(plan) if v.policy == "spend-limit")
    assert spend.status == "pass", spend
    assert "estimate 19,965 USD/month" in spend.note


def test_top_level_spot_means_the_spot_strategy(example_spec):
    spec = scc(example_spec)
    spec["spot"] = True
    plan = plan_for(spec, "alicloud")
    assert {n.inputs["spotStrategy"] for n in plan.of_type(INSTANCE)} == {"SpotAsPriceGo"}
    assert plan.outputs["usd_per_hour"] == pytest.approx(
        2 * plan.inputs.selection.price.spot_usd_hr, abs=1e-3)


def test_the_release_time_is_fixed_at_first_deploy(monkeypatch, example_spec):
    """Later `pulumi up`s must not move it: the nodes ignore changes to autoReleaseTime."""
    seen = {}
    original = engine._RecordingMonitor.RegisterResource

    def record(self, request):
        seen[request.name] = list(request.ignoreChanges)
        return original(self, request)

    monkeypatch.setattr(engine._RecordingMonitor, "RegisterResource", record)
    plan = plan_for(example_spec, "alicloud")
    for n in plan.of_type(INSTANCE):
        assert "autoReleaseTime" in seen[n.name]


def test_idle_gpu_alarm_watches_every_node(plan):
    alarm = one(plan, ALARM)
    assert (alarm.inputs["project"], alarm.inputs["metric"]) == (
        "acs_ecs_dashboard", "instance_gpu_gpu_usedutilization")
    dims = json.loads(alarm.inputs["metricDimensions"])
    assert {d["instanceId"] for d in dims} == {f"{n.name}-id" for n in plan.of_type(INSTANCE)}
    warn = alarm.inputs["escalationsWarn"]
    assert (warn["comparisonOperator"], warn["times"]) == ("<=", 12)  # 60 min / 5 min periods
    assert alarm.inputs["contactGroups"]


# ----------------------------------------------------------------------------- capacity

def test_reservation_uses_the_private_pool(example_spec):
    example_spec["clouds"]["alicloud"]["capacity"] = {"type": "reservation",
                                                      "reservation": "eap-bp1example"}
    for n in plan_for(example_spec, "alicloud").of_type(INSTANCE):
        assert n.inputs["privatePoolOptionsMatchCriteria"] == "Target"
        assert n.inputs["privatePoolOptionsId"] == "eap-bp1example"
        assert n.inputs["spotStrategy"] == "NoSpot"


@pytest.mark.parametrize("kind", ["capacity_block", "flex_start"])
def test_capacity_alibaba_does_not_sell_exits_2(tmp_path, example_spec, kind):
    example_spec["clouds"]["alicloud"]["capacity"] = (
        {"type": kind, "reservation": "x"} if kind == "capacity_block" else {"type": kind})
    result = runner.invoke(app, ["plan", "--spec", str(write_spec(tmp_path, example_spec)),
                                 "--cloud", "alicloud"])
    assert_clean_error(result, "clouds.alicloud.capacity.type", "on_demand", "reservation")


# ----------------------------------------------------------------------------- identity

def test_node_role_reaches_only_the_cluster_bucket(plan):
    role, policy, bucket = one(plan, ROLE), one(plan, POLICY), one(plan, BUCKET)
    trust = json.loads(role.inputs["assumeRolePolicyDocument"])
    assert trust["Statement"][0]["Principal"]["Service"] == ["ecs.aliyuncs.com"]
    name = bucket.inputs.get("bucket", bucket.name)
    doc = json.loads(policy.inputs["policyDocument"])
    fs = one(plan, CPFS)
    # The bucket, and a look-up of the cluster's own CPFS export (tests/alicloud/test_alicloud_boot.py).
    assert {r for s in doc["Statement"] for r in s["Resource"]} == {
        f"acs:oss:*:*:{name}", f"acs:oss:*:*:{name}/*", f"acs:nas:*:*:filesystem/{fs.name}-id"}
    links = plan.of_type(ROLE_LINK)
    assert sorted(link.inputs["instanceId"] for link in links) == sorted(
        f"{n.name}-id" for n in plan.of_type(INSTANCE))
    assert {link.inputs["ramRoleName"] for link in links} == {role.inputs["roleName"]}


# ----------------------------------------------------------------------------- boot

def test_every_node_gets_the_same_shared_boot_user_data(plan):
    from trainstack_components.alicloud.boot import decode_ecs_user_data
    texts = {decode_ecs_user_data(n.inputs["userData"]) for n in plan.of_type(INSTANCE)}
    assert len(texts) == 1  # a node finds its rank from its own fixed address
    (text,) = texts
    assert text.startswith("#cloud-config\n")
    # fetch first: the agents' code comes from the bucket (tests/alicloud/test_alicloud_shipping.py)
    assert [c[1] for c in yaml.safe_load(text)["runcmd"]] == [
        "fetch", "idle", "lustre", "scratch", "fabric", "ranks", "packages", "runtime", "jobs", "preemption",
        "health"]


def test_no_erdma_environment_on_a_tcp_type(plans):
    from trainstack_components.alicloud.boot import decode_ecs_user_data
    for n in plans["gn7e"].of_type(INSTANCE):
        assert "NCCL_IB_HCA" not in decode_ecs_user_data(n.inputs["userData"])


# ----------------------------------------------------------------------------- tags

def _takes_tags(token: str) -> bool:
    _, module, cls = token.split(":")
    mod = importlib.import_module(f"pulumi_alicloud.{module.split('/')[0]}")
    return "tags" in inspect.signature(getattr(mod, cls)._internal_init).parameters


def test_tags_on_every_resource_that_takes_them(cluster):
    plan, _, _ = cluster
    wanted = plan.inputs.spec.tags
    custom = [r for r in plan.resources if r.custom]
    taggable = [r for r in custom if _takes_tags(r.type)]
    assert len(taggable) >= 12
    for r in taggable:
        tags = r.inputs.get("tags") or {}
        assert tags.get(CLUSTER_TAG) == "llm-finetune", r.type
        assert wanted.items() <= tags.items(), r.type
    for n in plan.of_type(INSTANCE):
        # The node alone also says the spec's budget (spend-limit's cap: Alibaba has no budget
        # resource); its disks carry the cluster's tags.
        assert n.inputs["tags"] == {**n.inputs["volumeTags"], "trainstack:budget-usd": "25000"}


# ----------------------------------------------------------------------------- the commands

def test_guardrail_policies_pass_on_every_shape(plans):
    """Every policy passes; on the STUB-priced shapes spend-limit cannot (the pack prices from
    its own catalog copy, which has no stub rows: it fails closed)."""
    from trainstack.check.offline import run_check
    for key, plan in plans.items():
        failing = {v.policy for v in run_check(plan) if v.status != "pass"}
        assert failing <= ({"spend-limit"} if key != "scc" else set()), (key, failing)


def test_check_passes_on_the_example(tmp_path):
    path = write_spec(tmp_path, yaml.safe_load((ROOT / "examples" / "cluster.yaml").read_text()))
    result = runner.invoke(app, ["check", "--spec", str(path), "--cloud", "alicloud"])
    assert result.exit_code == 0, result.output


def test_compare_prices_alibaba_for_real(tmp_path, example_spec):
    result = runner.invoke(app, ["compare", "--spec", str(write_spec(tmp_path, example_spec)),
                                 "--json"])
    assert result.exit_code == 0, result.output
    row = next(r for r in json.loads(result.output)["clouds"] if r["cloud"] == "alicloud")
    assert row["status"] == "ok" and row["instance_type"] == "ecs.ebmgn8v.48xlarge"
    assert row["usd_per_hour"] == pytest.approx(2 * 58.2708)  # the stub copies Frankfurt's
    assert row["filesystem"]["product"] == "CPFS" and row["filesystem"]["capacity_gib"] == 4800


def test_stack_file_and_readme():
    stack = (ROOT / "stacks" / "Pulumi.alicloud.yaml").read_text()
    assert "trainstack:cloud: alicloud" in stack and "alicloud:region: cn-beijing" in stack
    readme = (ROOT / "README.md").read_text()
    assert "Alibaba Cloud" in readme and "docs/alicloud.md" in readme


def test_a_tag_alibaba_refuses_exits_2_before_any_resource(tmp_path, example_spec):
    example_spec["tags"]["acs:team"] = "ml"
    result = runner.invoke(app, ["plan", "--spec", str(write_spec(tmp_path, example_spec)),
                                 "--cloud", "alicloud"])
    assert_clean_error(result, "tags.acs:team", "acs:")
