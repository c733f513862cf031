"""Issue 35, a BLIND hostile review (helper review54), weighted to GCP, Azure and Alibaba Cloud and
to the policies other than spend-limit. The pack's code under policies/ was not read; each
verdict comes from docs/policies.md, docs/billing-after-stop.md and the catalog CSV rows. Driven
over gRPC as `pulumi preview --policy-pack` drives the pack (tests/policy_harness.py). Each case
states the verdict of EVERY policy (those not named stay "pass"): "fail", "advisory",
"undecided" ("cannot decide") or "pass". Each batch was committed before its first run.

Results per batch (agreed / cases, first run): filled in below as the batches run.

Prices (components/catalog/prices.csv, on-demand USD/h; a month is 730 h):
  gcp us-central1: g2-standard-8 0.853624 (623.15 a month); gcp_attached_gpus.csv us-central1:
  n1-standard-8 0.38, nvidia-tesla-t4 0.35. azure eastus: Standard_NC4as_T4_v3 0.526 (383.98),
  Standard_ND96asr_v4 27.197 (19,853.81, infiniband). alibaba eu-central-1:
  ecs.gn7i-c8g1.2xlarge 2.56083, ecs.ebmgn8v.48xlarge 58.2708 (erdma). filesystem_prices.csv:
  gcp managed_lustre_125 0.145 USD/GiB-month, alibaba cpfs 0.244 USD/GiB-month.
  instance_types.csv: g2-standard-8, NC4as_T4_v3, gn7i-c8g1.2xlarge fabric tcp (never asked
  by rdma-for-multinode).
"""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from tests.policy_fixtures import res
from tests.policy_harness import run
from tests.policy_harness import verdict as _verdict

SSZ, SPEND, TAGS_P, RDMA = "storage-same-zone", "spend-limit", "required-tags", "rdma-for-multinode"
NPI, ENC, RET = "no-public-ingress", "encryption-at-rest", "bucket-retained"
POLICIES = (SSZ, SPEND, TAGS_P, RDMA, NPI, ENC, RET)
UNK = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"          # the engine's unknown string
SECRET_SIG = "4dabf18193072939515e22adb298388d"        # Pulumi's secret signature key


def secret(value):
    """A value the program marks secret, as the engine serialises it."""
    return {SECRET_SIG: "1b47061264138c4ac30d75fd1eb44270", "value": value}


GCPP = {"project": "ml-prod", "region": "us-central1", "zone": "us-central1-a"}
SUB = "00000000-0000-0000-0000-000000000054"
AZP = {"location": "eastus", "subscriptionId": SUB}
ALIP = {"region": "eu-central-1"}
AWSP = {"region": "us-east-1"}
OWN = {"owner": "bob", "team": "vision", "cost-center": "cc-77"}
GLAB = {"owner": "bob", "team": "vision", "cost_center": "cc-77"}


def _later(hours):
    return (datetime.now(timezone.utc) + timedelta(hours=hours)).strftime("%Y-%m-%dT%H:%M:%SZ")


def check(pack, stack, expected, config=None):
    urns = [r.urn for r in stack]
    assert len(urns) == len(set(urns)), "every resource its own URN"
    found = run(pack, stack, config)
    got = {p: _verdict(found, p) for p in POLICIES}
    ok = all(got[p] == expected.get(p, "pass") for p in POLICIES)
    assert ok, (got, " | ".join(f"{d.policy}[{d.level}]: {d.message}" for d in found))
    return found


def with_provider(props, *resources):
    for r in resources:
        r.provider = dict(props)
    return list(resources)


def protected(r):
    r.protect = True
    return r


# ------------------------------------------------------------------------------ GCP builders

def g_budget(name="ml-budget", units="5000", **extra):
    return res("gcp:billing/budget:Budget", name, {
        "billingAccount": "01AB23-CD45EF-6789AB",
        "amount": {"specifiedAmount": {"currencyCode": "USD", "units": units}},
        "thresholdRules": [{"thresholdPercent": 0.5}, {"thresholdPercent": 0.9}], **extra})


def g_tpl(name, machine="g2-standard-8", labels=None, deps=None, **props):
    return res("gcp:compute/instanceTemplate:InstanceTemplate", name, {
        "machineType": machine, "labels": dict(GLAB if labels is None else labels),
        "networkInterfaces": [{"network": "default", "subnetwork": "ml-subnet"}],
        "disks": [{"sourceImage": "projects/debian-cloud/global/images/family/debian-12",
                   "boot": True, "autoDelete": True}],
        "scheduling": {"onHostMaintenance": "TERMINATE", "automaticRestart": True},
        **props}, deps=deps or {})


def g_mig(name, tpl, size, zone="us-central1-a", **props):
    if zone is not None:
        props["zone"] = zone
    return res("gcp:compute/instanceGroupManager:InstanceGroupManager", name, {
        "name": name, "baseInstanceName": name, "targetSize": float(size),
        "versions": [{"name": "primary", "instanceTemplate": f"projects/ml-prod/global/"
                      f"instanceTemplates/{tpl.name}"}], **props},
        deps={"versions": [tpl]})


def g_lustre(name="scratch", zone="us-central1-a", gib=18000, **props):
    return res("gcp:lustre/instance:Instance", name, {
        "instanceId": name, "location": zone, "capacityGib": str(gib),
        "filesystem": "lfs", "network": "projects/ml-prod/global/networks/default",
        "perUnitStorageThroughput": "125", "labels": dict(GLAB), **props})


def mount_meta(fs):
    """An instance template's metadata that mounts the Lustre (built from its outputs)."""
    return {"metadata": {"startup-script": f"mount -t lustre {fs.name}-mount-point /mnt/lustre"}}


def g_bucket(name, location, **props):
    return protected(res("gcp:storage/bucket:Bucket", name, {
        "name": f"ml-prod-{name}", "location": location, "uniformBucketLevelAccess": True,
        "labels": dict(GLAB), **props}))


def gcp(*resources, provider=None):
    return with_provider(provider or GCPP, *resources)


def _gcp_cluster(fs_zone="us-central1-a", budget="5000"):
    """2 g2-standard-8 (2 x 623.15 = 1,246.29) mounting an 18,000 GiB Lustre at 0.145
    (2,610.00): 3,856.29 a month."""
    fs = g_lustre(zone=fs_zone)
    tpl = g_tpl("train-tpl", deps={"metadata": [fs]}, **mount_meta(fs))
    return gcp(fs, tpl, g_mig("train", tpl, 2), g_budget(units=budget))


# ======================================================= batch 1: Google Cloud (17 cases)

def test_g01_gcp_lustre_same_zone_baseline(pack):
    """The control: MIG and mounted Lustre both in us-central1-a, 3,856.29 < 5,000, labels
    complete, no public address (no accessConfigs): every policy passes."""
    check(pack, _gcp_cluster(), {})


def test_g02_gcp_mounted_lustre_other_zone(pack):
    """g01 with the Lustre in us-central1-b: "Every parallel filesystem the GPU nodes mount is in
    their zone": storage fail."""
    check(pack, _gcp_cluster(fs_zone="us-central1-b"), {SSZ: "fail"})


def test_g03_gcp_lustre_by_literal_name_other_zone(pack):
    """The mount written by literal text, no dependency: the Lustre (us-central1-b) is then
    matched by network (step 3) or region (step 4) to the one GPU group (us-central1-a), whose
    known zones are one, not two: not in the nodes' zone: storage fail."""
    fs = g_lustre(zone="us-central1-b")
    tpl = g_tpl("train-tpl", metadata={"startup-script": "mount -t lustre 10.0.0.9@tcp:/lfs /mnt"})
    check(pack, gcp(fs, tpl, g_mig("train", tpl, 2), g_budget()), {SSZ: "fail"})


def test_g04_gcp_zone_from_provider_default(pack):
    """A MIG with no `zone` input takes the provider's default zone (us-central1-a, docs: "GCP
    zone/location or the provider's default zone"); its mounted Lustre is in us-central1-c:
    storage fail."""
    fs = g_lustre(zone="us-central1-c")
    tpl = g_tpl("train-tpl", deps={"metadata": [fs]}, **mount_meta(fs))
    check(pack, gcp(fs, tpl, g_mig("train", tpl, 2, zone=None), g_budget()), {SSZ: "fail"})


def test_g05_gcp_cpu_group_mounting_from_another_zone(pack):
    """g01 plus a CPU MIG (n2-standard-8, 4 VMs) in us-central1-b that mounts the same Lustre:
    "CPU compute is never part of the GPU cluster, whatever its zone"; n2 has no catalog price,
    so it is named and left out of the estimate (3,856.29 < 5,000): every policy passes."""
    stack = _gcp_cluster()
    fs = stack[0]
    cpu_tpl = g_tpl("prep-tpl", machine="n2-standard-8", deps={"metadata": [fs]},
                    **mount_meta(fs))
    stack += gcp(cpu_tpl, g_mig("prep", cpu_tpl, 4, zone="us-central1-b"))
    check(pack, stack, {})


def test_g06_gcp_regional_mig_over_two_zones_mounting(pack):
    """A regional MIG of 2 g2-standard-8 over us-central1-a and -b that mounts a Lustre in -a:
    "two known zones are a span", and "the span verdict stays for groups seen to mount it":
    storage fail (g2 has fabric tcp: rdma not asked)."""
    fs = g_lustre()
    tpl = g_tpl("serve-tpl", deps={"metadata": [fs]}, **mount_meta(fs))
    rmig = res("gcp:compute/regionInstanceGroupManager:RegionInstanceGroupManager", "serve", {
        "name": "serve", "baseInstanceName": "serve", "region": "us-central1",
        "targetSize": 2.0, "distributionPolicyZones": ["us-central1-a", "us-central1-b"],
        "versions": [{"instanceTemplate": "projects/ml-prod/global/instanceTemplates/x"}]},
        deps={"versions": [tpl]})
    check(pack, gcp(fs, tpl, rmig, g_budget()), {SSZ: "fail"})


def test_g07_gcp_label_key_with_hyphen(pack):
    """Template labels owner, team and `cost-center` (hyphen): "GCP label keys are matched
    normalised (cost-center = cost_center)": pass."""
    fs = g_lustre()
    tpl = g_tpl("train-tpl", labels=OWN, deps={"metadata": [fs]}, **mount_meta(fs))
    check(pack, gcp(fs, tpl, g_mig("train", tpl, 2), g_budget()), {})


def test_g08_gcp_provider_default_labels_complete_the_set(pack):
    """The template carries owner and cost_center, the provider's defaultLabels carry team:
    required-tags counts "the provider's default tags/labels": pass."""
    fs = g_lustre()
    tpl = g_tpl("train-tpl", labels={"owner": "bob", "cost_center": "cc-77"},
                deps={"metadata": [fs]}, **mount_meta(fs))
    prov = dict(GCPP, defaultLabels={"team": "vision"})
    check(pack, gcp(fs, tpl, g_mig("train", tpl, 2), g_budget(), provider=prov), {})


def test_g09_gcp_blank_label_value(pack):
    """The template's team label is "": "Blank values count as missing": required-tags fail."""
    fs = g_lustre()
    tpl = g_tpl("train-tpl", labels=dict(GLAB, team=""), deps={"metadata": [fs]},
                **mount_meta(fs))
    check(pack, gcp(fs, tpl, g_mig("train", tpl, 2), g_budget()), {TAGS_P: "fail"})


def _read_bucket(location, **props):
    """A GPU MIG in us-central1-a whose template reads the bucket (depends on it); no
    filesystem, so the untagged bucket is priced at 0 ("the capacity of its cloud's
    filesystems"): 1,246.29 < 5,000."""
    b = g_bucket("datasets", location, **props)
    tpl = g_tpl("train-tpl", deps={"metadata": [b]},
                metadata={"startup-script": "gcsfuse ml-prod-datasets /data"})
    return gcp(b, tpl, g_mig("train", tpl, 2), g_budget())


def test_g10_gcp_bucket_region_in_upper_case(pack):
    """The bucket's location "US-CENTRAL1" (Cloud Storage reports locations upper case) is the
    nodes' region us-central1; protected: pass."""
    check(pack, _read_bucket("US-CENTRAL1"), {})


def test_g11_gcp_bucket_read_from_another_region(pack):
    """A bucket in EUROPE-WEST4 read by the us-central1 group: "the bucket in their region":
    storage fail."""
    check(pack, _read_bucket("EUROPE-WEST4"), {SSZ: "fail"})


def test_g12_gcp_protected_bucket_force_destroy(pack):
    """A protected bucket with forceDestroy true that no GPU group reads (its region is not
    judged): "protect or retainOnDelete ... and no forceDestroy": bucket-retained fail."""
    fs = g_lustre()
    tpl = g_tpl("train-tpl", deps={"metadata": [fs]}, **mount_meta(fs))
    stack = gcp(fs, tpl, g_mig("train", tpl, 2), g_budget(),
                g_bucket("logs", "EUROPE-WEST4", forceDestroy=True))
    check(pack, stack, {RET: "fail"})


def _label_budget_stack(tpl_team, group_team):
    fs = g_lustre()
    tpl = g_tpl("train-tpl", labels=dict(GLAB, team=tpl_team), deps={"metadata": [fs]},
                **mount_meta(fs))
    group = g_mig("train", tpl, 2, allInstancesConfig={"labels": {"team": group_team}})
    return gcp(fs, tpl, group, g_budget(budgetFilter={"labels": {"team": "research"}}))


def test_g13_gcp_group_labels_override_template_for_budget(pack):
    """Template team=vision, the group's allInstancesConfig.labels team=research, the only
    budget filters labels team=research: the VMs carry research ("allInstancesConfig.labels,
    which override and add to them"): covered, 3,856.29 < 5,000: pass."""
    check(pack, _label_budget_stack("vision", "research"), {})


def test_g14_gcp_group_labels_override_away_from_budget(pack):
    """g13 swapped: template team=research, group team=vision: the VMs carry vision, the only
    budget (team=research) leaves the group out: "no budget alarm": spend fail."""
    check(pack, _label_budget_stack("research", "vision"), {SPEND: "fail"})


def _n1_t4(accels, units):
    vm = res("gcp:compute/instance:Instance", "notebook", {
        "name": "notebook", "zone": "us-central1-a", "machineType": "n1-standard-8",
        "labels": dict(GLAB), "guestAccelerators": accels,
        "bootDisk": {"initializeParams": {"image": "debian-cloud/debian-12"}},
        "networkInterfaces": [{"network": "default"}],
        "scheduling": {"onHostMaintenance": "TERMINATE"}})
    return gcp(vm, g_budget(units=units))


@pytest.mark.xfail(strict=True, reason="defect 1, blind spot: guestAccelerators written as one object "
                   "is not read as a list of that one; the N1 VM is not GPU capacity")
def test_g15_gcp_accelerators_as_one_object(pack):
    """guestAccelerators written as one object {nvidia-tesla-t4, count 2} (docs: "a list input
    given as one object ... is read as a list of that one"): n1-standard-8 0.38 + 2 x T4 0.35
    = 1.08/h x 730 = 788.40 > budget 600: spend fail. Read as no GPU it would be 277.40 and
    need no budget: a blind spot."""
    check(pack, _n1_t4({"type": "nvidia-tesla-t4", "count": 2.0}, "600"), {SPEND: "fail"})


def test_g16_gcp_accelerators_as_list_control(pack):
    """The control: the list [{nvidia-tesla-t4, count 1}]: (0.38 + 0.35) x 730 = 532.90 < 600:
    pass."""
    check(pack, _n1_t4([{"type": "nvidia-tesla-t4", "count": 1.0}], "600"), {})


def test_g17_gcp_budget_amount_unknown(pack):
    """g01 with the budget's units unknown at preview: "What else is unknown at preview (... a
    budget amount) is cannot decide", mandatory by default: spend undecided."""
    check(pack, _gcp_cluster(budget=UNK), {SPEND: "undecided"})
