"""The GCP cluster under Pulumi's mock engine (issue 3): an H200 (RDMA), a B200 and an H100
(TCPXO) cluster, every part the issue names, and each bad input refused before any resource."""
import importlib
import inspect
import json
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from tests.conftest import ROOT, by_id, one, plan_for, write_spec
from trainstack.cli.app import app
from trainstack_components.errors import SpecError
from trainstack_components.gcp import planning

COMPONENT = "trainstack:gcp:GpuCluster"
NETWORK = "gcp:compute/network:Network"
SUBNET = "gcp:compute/subnetwork:Subnetwork"
FIREWALL = "gcp:compute/firewall:Firewall"
TEMPLATE = "gcp:compute/instanceTemplate:InstanceTemplate"
MIG = "gcp:compute/instanceGroupManager:InstanceGroupManager"
POLICY = "gcp:compute/resourcePolicy:ResourcePolicy"
LUSTRE = "gcp:lustre/instance:Instance"
BUCKET = "gcp:storage/bucket:Bucket"
BUDGET = "gcp:billing/budget:Budget"
CHANNEL = "gcp:monitoring/notificationChannel:NotificationChannel"
PROJECT = "my-gcp-project"

runner = CliRunner()


def h200(spec):
    """The example itself: a3-ultragpu-8g (H200, RoCE) pinned in us-central1-b."""
    return spec


def b200(spec):
    spec["gpu"] = ["B200"]
    spec["clouds"]["gcp"].update(region="us-central1", zone="us-central1-b", instance_type=None)
    return spec


def h100_tcpxo(spec):
    spec["gpu"] = ["H100"]
    spec["clouds"]["gcp"].update(region="us-east4", zone="us-east4-a",
                                 instance_type="a3-megagpu-8g")
    return spec


CLUSTERS = {"h200": (h200, "a3-ultragpu-8g", "us-central1", "us-central1-b"),
            "b200": (b200, "a4-highgpu-8g", "us-central1", "us-central1-b"),
            "h100": (h100_tcpxo, "a3-megagpu-8g", "us-east4", "us-east4-a")}


@pytest.fixture(params=sorted(CLUSTERS))
def cluster(request, example_spec):
    make, itype, region, zone = CLUSTERS[request.param]
    spec = make(example_spec)
    return plan_for(spec, "gcp"), itype, region, zone


@pytest.fixture
def plan(example_spec):
    return plan_for(example_spec, "gcp")


# ----------------------------------------------------------------------------- selection

def test_the_three_clusters_select_the_expected_types(cluster):
    plan, itype, region, zone = cluster
    sel = plan.inputs.selection
    assert (sel.instance.name, sel.region, sel.zone) == (itype, region, zone)
    assert plan.outputs["instance_type"] == itype
    assert (plan.outputs["region"], plan.outputs["zone"]) == (region, zone)


def test_example_is_rdma_h200_and_budget_pays_a_day(plan, example_spec):
    sel = plan.inputs.selection
    assert sel.instance.gpu == "H200" and sel.use_rdma
    assert plan.outputs["interconnect"] == "GPUDirect RDMA over RoCE v2 (8 MRDMA NICs, 3200 Gbps)"
    assert example_spec["budget"]["monthly_usd"] >= 24 * plan.outputs["usd_per_hour"]


def test_the_catalog_choice_falls_through_h100_to_rdma_h200_where_h100_is_not_offered(example_spec):
    # zones.csv: a3-highgpu-8g (H100) in us-west1-a;us-west1-b only, a3-ultragpu-8g (H200) and
    # its RoCE profile in us-west1-c
    example_spec["clouds"]["gcp"].update(region="us-west1", zone="us-west1-c", instance_type=None)
    sel = plan_for(example_spec, "gcp").inputs.selection
    assert (sel.instance.name, sel.instance.gpu, sel.use_rdma) == ("a3-ultragpu-8g", "H200", True)


def test_fastest_on_a3_high_takes_gpudirect_tcpx_and_says_so(tmp_path, example_spec):
    # the example's zone without its instance_type: zones.csv lists a3-highgpu-8g (H100, the gpu
    # list's first choice) in us-central1-b, which is why the example names a3-ultragpu-8g
    example_spec["clouds"]["gcp"]["instance_type"] = None
    assert example_spec["clouds"]["gcp"]["zone"] == "us-central1-b"
    plan = plan_for(example_spec, "gcp")
    assert plan.outputs["instance_type"] == "a3-highgpu-8g"
    assert plan.outputs["interconnect"].startswith("GPUDirect-TCPX (4 GPU NICs, 1000 Gbps")
    result = runner.invoke(app, ["plan", "--spec", str(write_spec(tmp_path, example_spec)),
                                 "--cloud", "gcp"], terminal_width=400)
    assert result.exit_code == 0, result.output
    assert "GPUDirect-TCPX (4 GPU NICs" in result.output


# ----------------------------------------------------------------------------- structure

def test_component_token_and_every_child_parented_and_prefixed(cluster):
    plan = cluster[0]
    component = one(plan, COMPONENT)
    children = [r for r in plan.resources if r.custom]
    assert children and all(r.parent == component.urn for r in children)
    assert all(r.name.startswith("llm-finetune-") for r in children)
    assert len({r.urn for r in plan.resources}) == len(plan.resources)
    assert all(r.inputs.get("project", PROJECT) == PROJECT for r in children)


@pytest.mark.parametrize("make", [h200, b200])
def test_rdma_nic_layout_two_gvnics_and_eight_mrdma_on_a_roce_vpc(example_spec, make):
    plan = plan_for(make(example_spec), "gcp")
    zone, region = plan.inputs.selection.zone, plan.inputs.selection.region
    ids = by_id(plan)
    nics = one(plan, TEMPLATE).inputs["networkInterfaces"]
    assert [n["nicType"] for n in nics] == ["GVNIC", "GVNIC"] + ["MRDMA"] * 8
    gvnic_nets = [ids[n["network"]].name for n in nics if n["nicType"] == "GVNIC"]
    assert gvnic_nets == ["llm-finetune-vpc", "llm-finetune-gvnic1-vpc"]
    (roce_vpc,) = {ids[n["network"]].urn: ids[n["network"]] for n in nics
                   if n["nicType"] == "MRDMA"}.values()
    assert roce_vpc.name == "llm-finetune-roce-vpc"
    assert roce_vpc.inputs["networkProfile"] == \
        f"projects/{PROJECT}/global/networkProfiles/{zone}-vpc-roce"
    subnets = [ids[n["subnetwork"]] for n in nics if n["nicType"] == "MRDMA"]
    assert len({s.name for s in subnets}) == 8
    assert all(s.property_dependencies["network"] == [roce_vpc.urn] for s in subnets)
    assert all(s.inputs["region"] == region for s in subnets)
    # the RoCE VPC takes no VPC firewall rules; the two gVNIC VPCs get their internal rule
    rules = {ids[f.inputs["network"]].name for f in plan.of_type(FIREWALL)}
    assert "llm-finetune-roce-vpc" not in rules
    assert {"llm-finetune-vpc", "llm-finetune-gvnic1-vpc"} <= rules


def test_tcpxo_nic_layout_one_vpc_per_gpu_nic(example_spec):
    plan = plan_for(h100_tcpxo(example_spec), "gcp")
    ids = by_id(plan)
    nics = one(plan, TEMPLATE).inputs["networkInterfaces"]
    assert [n["nicType"] for n in nics] == ["GVNIC"] * 9
    networks = [ids[n["network"]] for n in nics]
    assert len({n.name for n in networks}) == 9                    # 1 host + 8 GPU NIC VPCs
    assert [n.name for n in networks[1:]] == [f"llm-finetune-gpu{i}-vpc" for i in range(8)]
    assert all(n.inputs["mtu"] == 8244 and "networkProfile" not in n.inputs for n in networks)
    for nic in nics[1:]:
        subnet = ids[nic["subnetwork"]]
        assert subnet.property_dependencies["network"] == [ids[nic["network"]].urn]
    firewalled = {ids[f.inputs["network"]].name for f in plan.of_type(FIREWALL)}
    assert {n.name for n in networks} <= firewalled              # TCP between GPU NICs allowed
    assert not plan.of_type(NETWORK)[0].inputs.get("networkProfile")
    assert len(plan.of_type(NETWORK)) == 9


def test_interconnect_tcp_builds_without_the_roce_vpc(example_spec):
    example_spec["interconnect"] = "tcp"
    example_spec["clouds"]["gcp"].update(region="us-south1", zone="us-south1-b")  # no profile
    plan = plan_for(example_spec, "gcp")
    assert plan.outputs["instance_type"] == "a3-ultragpu-8g" and not plan.inputs.selection.use_rdma
    nics = one(plan, TEMPLATE).inputs["networkInterfaces"]
    assert [n["nicType"] for n in nics] == ["GVNIC", "GVNIC"]
    assert not any("networkProfile" in n.inputs for n in plan.of_type(NETWORK))
    assert plan.outputs["interconnect"].startswith("gVNIC only")


def test_group_and_lustre_in_the_same_zone_group_under_a_workload_policy(cluster):
    plan, _, region, zone = cluster
    mig, fs, policy, template = one(plan, MIG), one(plan, LUSTRE), one(plan, POLICY), one(plan, TEMPLATE)
    assert plan.zone_of(mig) == plan.zone_of(fs) == zone
    assert mig.inputs["targetSize"] == 2 and mig.inputs["baseInstanceName"] == "llm-finetune-node"
    assert mig.property_dependencies["versions"] == [template.urn]
    # A workload policy on the group, not COLLOCATED/vm_count (which a healing MIG breaks).
    assert policy.inputs["region"] == region
    assert policy.inputs["workloadPolicy"] == {"type": "HIGH_THROUGHPUT",
                                               "maxTopologyDistance": "BLOCK"}
    assert "groupPlacementPolicy" not in policy.inputs
    assert mig.inputs["resourcePolicies"] == {"workloadPolicy": (
        f"projects/{PROJECT}/regions/{region}/resourcePolicies/llm-finetune-placement")}
    assert mig.property_dependencies["resourcePolicies"] == [policy.urn]
    assert "resourcePolicies" not in template.inputs
    # Managed Lustre shares no placement policy with the nodes.
    assert "placementPolicy" not in fs.inputs and policy.urn not in fs.dependencies
    assert plan.outputs["placement_group"] == "llm-finetune-placement"
    assert plan.outputs["node_group"] == "llm-finetune-nodes"


def test_nodes_terminate_on_maintenance_and_spot_uses_the_provisioning_model(example_spec):
    # The example asks for spot on GCP: A3 Ultra is not sold on demand.
    template = one(plan_for(example_spec, "gcp"), TEMPLATE)
    assert template.inputs["machineType"] == "a3-ultragpu-8g"
    scheduling = template.inputs["scheduling"]
    assert scheduling["provisioningModel"] == "SPOT" and scheduling["preemptible"] is True
    assert scheduling["automaticRestart"] is False
    assert scheduling["instanceTerminationAction"] == "DELETE"
    assert scheduling["onHostMaintenance"] == "TERMINATE"
    assert scheduling["maxRunDuration"] == {"seconds": 96 * 3600}  # workload.max_hours: 96
    assert template.inputs["disks"][0]["diskType"] == "hyperdisk-balanced"
    assert not any("accessConfigs" in n for n in template.inputs["networkInterfaces"])
    on_demand = h100_tcpxo(example_spec)
    on_demand["clouds"]["gcp"].pop("capacity")
    scheduling = one(plan_for(on_demand, "gcp"), TEMPLATE).inputs["scheduling"]
    assert scheduling["provisioningModel"] == "STANDARD" and scheduling["preemptible"] is False
    assert scheduling["automaticRestart"] is True
    assert scheduling["onHostMaintenance"] == "TERMINATE"
    assert scheduling["maxRunDuration"] == {"seconds": 96 * 3600}
    assert scheduling["instanceTerminationAction"] == "DELETE"


def test_boot_image_is_resolved_from_the_family_once_and_pinned(example_spec):
    plan = plan_for(example_spec, "gcp")
    image = one(plan, TEMPLATE).inputs["disks"][0]["sourceImage"]
    # One dated image, never the family URL (a family boots whatever is newest at heal time).
    assert image.startswith("projects/ubuntu-os-accelerator-images/global/images/"
                            "ubuntu-accelerator-2204-amd64-with-nvidia-580")
    assert "/family/" not in image
    assert plan.outputs["image"] == image and "pins it" in plan.outputs["image_pin"]
    pinned = "projects/ubuntu-os-accelerator-images/global/images/ubuntu-accelerator-x-v20261101"
    plan = plan_for(example_spec, "gcp", extra_config={"trainstack:image": pinned})
    assert one(plan, TEMPLATE).inputs["disks"][0]["sourceImage"] == pinned
    assert plan.outputs["image_pin"] == "pinned in stack config (trainstack:image)"


def test_resource_count_does_not_grow_with_nodes(example_spec):
    small = plan_for(example_spec, "gcp")
    example_spec["nodes"] = 64
    example_spec["budget"]["monthly_usd"] = 5_000_000
    large = plan_for(example_spec, "gcp")
    assert len(small.resources) == len(large.resources)
    assert one(large, MIG).inputs["targetSize"] == 64
    assert one(large, POLICY).inputs == one(small, POLICY).inputs  # no per-size vm_count


# ----------------------------------------------------------------------------- network edges

def test_host_vpc_internal_allow_all_and_no_outside_ingress(plan):
    ids = by_id(plan)
    rules = {r.name: r for r in plan.of_type(FIREWALL)}
    internal = rules["llm-finetune-vpc-internal"]
    assert ids[internal.inputs["network"]].name == "llm-finetune-vpc"
    assert internal.inputs["allows"] == [{"protocol": "all"}]
    assert internal.inputs["direction"] == "INGRESS"
    assert internal.inputs["sourceRanges"] == ["10.42.0.0/18", "10.42.128.0/20"]
    assert not any(n.startswith("llm-finetune-ssh") for n in rules)
    for rule in rules.values():
        assert "0.0.0.0/0" not in rule.inputs.get("sourceRanges", [])
    # egress through Cloud NAT, GCS through Private Google Access
    assert one(plan, "gcp:compute/routerNat:RouterNat").inputs["natIpAllocateOption"] == "AUTO_ONLY"
    host_subnet = next(s for s in plan.of_type(SUBNET) if s.name == "llm-finetune-subnet")
    assert host_subnet.inputs["privateIpGoogleAccess"] is True


def test_ssh_only_from_access_ssh_cidrs(example_spec):
    example_spec["access"]["ssh_cidrs"] = ["203.0.113.0/24", "198.51.100.7/32", "2001:db8::/32"]
    plan = plan_for(example_spec, "gcp")
    ids = by_id(plan)
    ssh = {r.name: r for r in plan.of_type(FIREWALL) if r.name.startswith("llm-finetune-ssh")}
    assert sorted(ssh) == ["llm-finetune-ssh-v4", "llm-finetune-ssh-v6"]
    assert ssh["llm-finetune-ssh-v4"].inputs["sourceRanges"] == ["203.0.113.0/24", "198.51.100.7/32"]
    assert ssh["llm-finetune-ssh-v6"].inputs["sourceRanges"] == ["2001:db8::/32"]
    for rule in ssh.values():
        assert rule.inputs["allows"] == [{"ports": ["22"], "protocol": "tcp"}]
        assert ids[rule.inputs["network"]].name == "llm-finetune-vpc"


# ----------------------------------------------------------------------------- filesystem

def test_lustre_rounded_to_the_tier_with_psa_on_the_host_vpc(plan):
    ids = by_id(plan)
    fs = one(plan, LUSTRE)
    # 4,800 GiB at 250 MB/s/TiB: 9,000 GiB at 1000 (9,000 x 0.60 = 5,400 USD/month) rather than
    # 18,000 at 500 (6,120), 36,000 at 250 (7,560) or 72,000 at 125 (10,440)
    assert fs.inputs["capacityGib"] == "9000" and fs.inputs["perUnitStorageThroughput"] == "1000"
    assert fs.inputs["filesystem"] == "llmfinet" and fs.inputs["instanceId"] == "llm-finetune-test"
    assert ids[fs.inputs["network"]].name == "llm-finetune-vpc"
    psa_range = one(plan, "gcp:compute/globalAddress:GlobalAddress")
    assert (psa_range.inputs["purpose"], psa_range.inputs["addressType"],
            psa_range.inputs["prefixLength"]) == ("VPC_PEERING", "INTERNAL", 20)
    assert ids[psa_range.inputs["network"]].name == "llm-finetune-vpc"
    psa = one(plan, "gcp:servicenetworking/connection:Connection")
    assert psa.inputs["service"] == "servicenetworking.googleapis.com"
    assert psa.inputs["reservedPeeringRanges"] == ["llm-finetune-psa-range"]
    assert psa.property_dependencies["reservedPeeringRanges"] == [psa_range.urn]
    assert psa.urn in fs.dependencies
    assert plan.outputs["filesystem_capacity_gib"] == 9_000
    assert plan.outputs["filesystem_throughput_mbps_per_tib"] == 1000
    assert plan.outputs["filesystem_monthly_usd"] == pytest.approx(5400.0)
    note = plan.outputs["filesystem_capacity_note"]
    assert "1000 MB/s/TiB at 9,000 GiB = 5,400 USD/month, the cheapest tier" in note
    assert plan.outputs["filesystem_dns"] == "192.0.2.1@tcp:/llmfinet"
    assert plan.outputs["filesystem_mount_name"] == "llmfinet"


@pytest.mark.parametrize("throughput, capacity, tier, size, says", [
    # every tier cited (issue 20): 9,000 GiB at 1000 = 5,400 USD/month beats 18,000 at 500
    (200, 4_800, 1000, 9_000, "= 5,400 USD/month, the cheapest tier"),
    (40, 4_800, 1000, 9_000, "= 5,400 USD/month, the cheapest tier"),
    (1000, 10_000, 1000, 18_000, "1000 MB/s/TiB at 18,000 GiB"),
    # 72,000 GiB asked for: every tier needs 72,000 GiB, and 125 is the cheapest per GiB
    (125, 72_000, 125, 72_000, "= 10,440 USD/month, the cheapest tier"),
])
def test_throughput_tiers_map_and_say_so(example_spec, throughput, capacity, tier, size, says):
    example_spec["filesystem"] = {"capacity_gib": capacity, "throughput_mbps_per_tib": throughput}
    plan = plan_for(example_spec, "gcp")
    fs = one(plan, LUSTRE)
    assert (fs.inputs["perUnitStorageThroughput"], fs.inputs["capacityGib"]) == (str(tier), str(size))
    assert says in plan.outputs["filesystem_capacity_note"]


def test_outputs_record_the_import_and_the_export_the_teardown_must_run(plan):
    tail = f"--location=us-central1-b --project={PROJECT} --gcs-path-uri=gs://llm-finetune-data/ " \
           "--lustre-path=/"
    assert plan.outputs["filesystem_export_command"] == \
        f"gcloud lustre instances export-data llm-finetune-test {tail}"
    assert plan.outputs["filesystem_import_command"] == \
        f"gcloud lustre instances import-data llm-finetune-test {tail}"


# ----------------------------------------------------------------------------- bucket

def test_bucket_in_the_region_uniform_versioned_private_and_retained(cluster):
    plan, _, region, _ = cluster
    bucket = one(plan, BUCKET)
    assert bucket.inputs["location"].lower() == region       # a region, never a multi-region
    assert bucket.inputs["uniformBucketLevelAccess"] is True
    assert bucket.inputs["versioning"] == {"enabled": True}
    assert bucket.inputs["publicAccessPrevention"] == "enforced"
    assert bucket.retain_on_delete and bucket.inputs["forceDestroy"] is False
    assert plan.outputs["bucket_name"] == "llm-finetune-data"


def test_bucket_not_retained_when_the_spec_says_so(example_spec):
    example_spec["bucket"]["retain_on_destroy"] = False
    bucket = one(plan_for(example_spec, "gcp"), BUCKET)
    assert not bucket.retain_on_delete and bucket.inputs["forceDestroy"] is True


# ----------------------------------------------------------------------------- budget

def test_budget_thresholds_filter_and_email_channels(example_spec):
    example_spec["budget"].update(alert_percents=[100, 50, 80, 120],
                                  emails=["ml-ops@example.com", "finance@example.com"])
    plan = plan_for(example_spec, "gcp")
    budget = one(plan, BUDGET)
    assert budget.inputs["billingAccount"] == "000000-000000-000000"
    assert budget.inputs["amount"] == {"specifiedAmount": {"currencyCode": "USD", "units": "25000"}}
    rules = [(r["spendBasis"], r["thresholdPercent"]) for r in budget.inputs["thresholdRules"]]
    assert [p for basis, p in rules if basis == "CURRENT_SPEND"] == [0.5, 0.8, 1.0, 1.2]
    # plus the forecast rule the budget stop acts on (components/gcp/budget_action.py)
    assert [p for basis, p in rules if basis == "FORECASTED_SPEND"] == [1.0]
    assert budget.inputs["budgetFilter"]["projects"] == ["projects/000000000000"]
    assert budget.inputs["budgetFilter"]["labels"] == {"trainstack_cluster": "llm-finetune"}
    channels = sorted(plan.of_type(CHANNEL), key=lambda c: c.name)
    assert [c.inputs["labels"]["email_address"] for c in channels] == [
        "ml-ops@example.com", "finance@example.com"]
    assert all(c.inputs["type"] == "email" for c in channels)
    assert sorted(budget.inputs["allUpdatesRule"]["monitoringNotificationChannels"]) == \
        sorted(f"{c.name}-id" for c in channels)
    assert plan.outputs["budget_name"] == "llm-finetune-test-monthly"


def test_budget_amount_with_cents(example_spec):
    example_spec["budget"]["monthly_usd"] = 25_000.5
    amount = one(plan_for(example_spec, "gcp"), BUDGET).inputs["amount"]["specifiedAmount"]
    assert (amount["units"], amount["nanos"]) == ("25000", 500_000_000)


# ----------------------------------------------------------------------------- labels

def _sdk_takes_labels(token: str) -> bool:
    package, module_path, class_name = token.split(":")
    if package != "gcp":   # the Lustre import is a pulumi_command resource
        return False
    module = importlib.import_module(f"pulumi_gcp.{module_path.split('/')[0]}")
    return "labels" in inspect.signature(getattr(module, class_name)._internal_init).parameters


def test_awkward_tags_become_gcp_labels_on_every_labelled_resource(example_spec):
    example_spec["tags"] = {"Owner": "Alice.Smith", "Cost Center": "12/34", "team": "ML"}
    plan = plan_for(example_spec, "gcp")
    expected = {"owner": "alice_smith", "cost_center": "12_34", "team": "ml",
                "trainstack_cluster": "llm-finetune", "trainstack_stack": "test",
                "managed-by": "trainstack"}
    labelled = [r for r in plan.resources if r.custom and _sdk_takes_labels(r.type)]
    assert {r.type for r in labelled} >= {TEMPLATE, LUSTRE, BUCKET, CHANNEL,
                                          "gcp:compute/globalAddress:GlobalAddress"}
    for resource in labelled:
        # a notification channel's `labels` are its settings; its labels are `user_labels`
        labels = resource.inputs["userLabels" if resource.type == CHANNEL else "labels"]
        assert expected.items() <= labels.items(), resource.name
        assert all(planning.label_key(k) == k and planning.label_value(v) == v
                   for k, v in labels.items()), labels   # every label follows GCP's rules
        assert not {"Owner", "Cost Center", "owner "} & labels.keys()
    assert expected.items() <= one(plan, TEMPLATE).inputs["disks"][0]["labels"].items()


def test_tags_that_collide_as_labels_are_refused(example_spec):
    example_spec["tags"]["Owner"] = "Bob"   # the example already has owner: alice
    with pytest.raises(SpecError) as raised:
        plan_for(example_spec, "gcp")
    assert raised.value.field == "tags"
    assert "'Owner'" in raised.value.problem and "'owner'" in raised.value.problem
    plan_for(example_spec, "aws")  # AWS tag keys are case-sensitive: no collision there


# ----------------------------------------------------------------------------- plumbing

def test_apis_are_enabled_and_left_enabled_on_destroy(plan):
    services = plan.of_type("gcp:projects/service:Service")
    assert {s.inputs["service"] for s in services} >= {
        "compute.googleapis.com", "lustre.googleapis.com", "servicenetworking.googleapis.com",
        "billingbudgets.googleapis.com", "storage.googleapis.com", "monitoring.googleapis.com"}
    assert all(s.inputs["disableOnDestroy"] is False for s in services)
    api = {s.inputs["service"]: s.urn for s in services}
    assert api["lustre.googleapis.com"] in one(plan, LUSTRE).dependencies
    assert api["billingbudgets.googleapis.com"] in one(plan, BUDGET).dependencies


def test_plan_is_deterministic(example_spec, monkeypatch):
    # Time is an input too: without a persisted first deploy the lifetime (and the deadline
    # job's cron minute) counts from the clock.
    from trainstack_components import lifetime
    fixed = lifetime.utc_now()
    monkeypatch.setattr(lifetime, "utc_now", lambda: fixed)
    first = json.dumps(plan_for(example_spec, "gcp").to_json(), sort_keys=True)
    second = json.dumps(plan_for(example_spec, "gcp").to_json(), sort_keys=True)
    assert first == second


def test_stack_file_plans_the_same_cluster_as_the_spec():
    by_stack = json.loads(runner.invoke(app, ["plan", "--stack", "gcp", "--json"]).output)
    by_spec = json.loads(runner.invoke(app, ["plan", "--spec", str(ROOT / "examples/cluster.yaml"),
                                             "--cloud", "gcp", "--json"]).output)
    strip = lambda p: sorted((r["type"], r["name"]) for r in p["resources"])  # noqa: E731
    assert strip(by_stack) == strip(by_spec) and by_stack["cloud"] == "gcp"


# ----------------------------------------------------------------------------- bad input

def _gcp(spec, **changes):
    spec["clouds"]["gcp"].update(changes)
    return spec


@pytest.mark.parametrize("mutate, field, fragments", [
    (lambda s: s["clouds"]["gcp"].pop("project"), "clouds.gcp.project", ["missing"]),
    (lambda s: s["clouds"]["gcp"].pop("billing_account"), "clouds.gcp.billing_account",
     ["missing"]),
    (lambda s: _gcp(s, billing_account="my-account"), "clouds.gcp.billing_account",
     ["not a billing account"]),
    (lambda s: _gcp(s, zone="us-east4-b"), "clouds.gcp.zone", ["us-east4-b", "us-central1"]),
    # a zone without the chosen type
    (lambda s: _gcp(h100_tcpxo(s), region="us-east5", zone="us-east5-b"), "clouds.gcp.zone",
     ["a3-megagpu-8g", "us-east5-a"]),
    # a RoCE-profile zone that does not host the type
    (lambda s: _gcp(s.update(gpu=["H200"]) or s, region="us-central1", zone="us-central1-a"),
     "clouds.gcp.zone", ["us-central1-a has a RoCE network profile", "us-central1-b"]),
    # the type's zone has no RoCE profile
    (lambda s: _gcp(s, region="us-south1", zone="us-south1-b"), "clouds.gcp.zone",
     ["us-south1-b-vpc-roce", "interconnect: tcp"]),
    (lambda s: _gcp(s, instance_type=None).update(interconnect="rdma", gpu=["H100"]),
     "interconnect",
     ["a3-ultragpu-8g, a4-highgpu-8g"]),
    (lambda s: s["budget"].update(emails=[f"u{i}@example.com" for i in range(6)]),
     "budget.emails", ["at most 5"]),
    (lambda s: s["filesystem"].update(capacity_gib=50_000_000, throughput_mbps_per_tib=1000),
     "filesystem.capacity_gib", ["10,008,000"]),
    (lambda s: s["tags"].update({"Cost Center": "1", "cost_center": "2"}), "tags",
     ["'Cost Center'", "'cost_center'"]),
])
def test_bad_input_is_refused_with_the_field_named(example_spec, mutate, field, fragments):
    mutate(example_spec)
    with pytest.raises(SpecError) as raised:
        plan_for(example_spec, "gcp")
    assert raised.value.field == field, str(raised.value)
    for fragment in fragments:
        assert fragment in str(raised.value), str(raised.value)


def test_provider_region_must_match_the_spec(example_spec):
    with pytest.raises(SpecError) as raised:
        plan_for(example_spec, "gcp", extra_config={"gcp:region": "us-west1"})
    assert raised.value.field == "gcp:region"


def test_cli_bad_gcp_input_exits_2_with_one_paragraph(tmp_path, example_spec):
    del example_spec["clouds"]["gcp"]["billing_account"]
    path = write_spec(tmp_path, example_spec)
    done = subprocess.run([sys.executable, "-m", "trainstack", "plan", "--spec", str(path),
                           "--cloud", "gcp"], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr and done.stdout == ""
    assert "clouds.gcp.billing_account" in done.stderr
    assert done.stderr.strip().count("\n") <= 3

    _gcp(example_spec, billing_account="000000-000000-000000", region="us-central1",
         zone="us-central1-a")
    example_spec["gpu"] = ["H200"]
    result = runner.invoke(app, ["plan", "--spec", str(write_spec(tmp_path, example_spec)),
                                 "--cloud", "gcp"])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "clouds.gcp.zone" in result.output and "us-central1-b" in result.output
    assert result.output.strip().count("\n") <= 3
