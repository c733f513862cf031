"""Issue 35, a BLIND hostile review (helper review79) of the CrossGuard pack over gRPC, driven as
`pulumi preview --policy-pack policies` drives it (tests/policy_harness.py). Focus: Google Cloud
across issue 35's classes, stacks written as GCP teams write them (Cluster Toolkit a3-highgpu
blueprint: a zonal MIG of a3-highgpu-8g from a template with 1 gVNIC + 4 GPU NICs, a COLLOCATED
policy, Managed Lustre fed from a GCS bucket, a billing budget). The pack's code was not read:
every verdict comes from docs/policies.md, the catalog CSVs (policies/catalog_data) and the
Pulumi SDK schemas in .venv; each batch's expectations were committed before its first run.
Builders follow review72's (copied and changed so this file stands alone).

RESULTS (agreed / cases on the first run of each blind batch; 155 blind cases (151 stacks + 4
  `zones` configurations over gRPC, plus the base), 56 of the stacks correct ones that must pass;
  151 agree on the first run, 3 MY mistakes, 1 harness slip, 0 pack defects, no xfail):
  batch 1: 54/58 (r16 a builder slip: UNKNOWN passed uncalled as the count, fixed before its
    verdict was compared; it then agreed). Reservations: SPECIFIC / ANY / another zone /
    specific-only beside an ANY template / NO_RESERVATION / 4 under 2 (150,000 and 300,000) /
    1 under 2 / SPOT MIG beside ANY (209,708.61) / from the stack's template / from an outside
    template / minCpuPlatform mismatch / an idle g2 reservation / count 'two' and unknown /
    shared SPECIFIC_PROJECTS / an IFT + MIG in one SPECIFIC reservation of 1 (3 nodes) / a
    literal outside reservation; GKE pools (default affinity under ANY, consumeReservationType
    SPECIFIC, default under specific-only). Compute: Workbench a2 / n1+T4 acceleratorConfigs /
    CPU, Dataproc g2 / T4 accelerators / CPU, a GKE g2 pool, inline pool, default pool of 3,
    IFT CPU override / a3 / outside template, a partial-URL machineType, a3-edgegpu-8g
    (unpriced.csv), n1+T4 at 132,500 / 133,000, a T4 by URL, count 0, e2 + T4 (fails closed).
    Stops: Cloud Scheduler 72 h, autoscaler beside it, a regional URL on a zonal MIG, a daily
    cron, a restart job, project by number, paused false; VM maxRunDuration, terminationTime
    before it, STOP + vmStartSchedule, an instance schedule, DELETE beside a start; template
    maxRunDuration on a MIG; flex-start resize requests 168 h (40,000 / 30,000), without a
    duration, on a MIG of 2. c12 c14 c19 MY MISTAKES.
  batch 2: 93/93. Budgets: projects by id / other / number, services Compute / Storage, labels
    (template, allInstancesConfig override), creditTypesTreatment, CNY 1,100,000 / 950,000,
    EUR, a future customPeriod, GKE resourceLabels vs Kubernetes labels vs conflicting values,
    Pub/Sub only, default recipients off with / without a channel, resourceAncestors, two
    budgets 140,000 / 130,000 beside 200,000, '150,000', -5, nanos, Compute in another
    project, no thresholds, the MIG in its own project. Malformed: targetSize '2' / -2,
    maxReplicas 'lots' / [4], GKE maxNodeCount NaN / nodeCount true, count 'one', capacityGib
    '18,000', Filestore -1024, ' a3-highgpu-8g ', resizeBy 'two', '7 days', one-object
    guestAccelerators. Storage: Lustre / ZONAL Filestore / Parallelstore in -b, REGIONAL /
    ENTERPRISE / BASIC_SSD Filestore, a CPU-only mount, two clusters own vs swapped, a
    europe-west4 bucket, a regional MIG over a+b, VMs / MIGs placed by the provider's zone,
    Shared VPC literal subnetworks, a MIG zone unknown. Exposure: access configs, IPv6 access
    configs, sshCidrs, 8888 / ::/0 / deny / disabled / no source / halves / IAP / egress /
    targetTags, network firewall policy rules allow / deny, EXTERNAL vs INTERNAL NLB, an
    EXTERNAL_MANAGED HTTP LB, a zonal NEG endpoint, a per-instance external IP, public GKE
    cluster, pool networkConfig as a list / enablePrivateNodes false, a target instance, a CPU
    bastion's external IP, sourceRanges unknown. Tags, KMS key names, forceDestroy.
    Config: `zones` values us-central1-a accepted; 'US-CENTRAL1-A', 'us-central1' and a zone
    URL refused with INVALID_ARGUMENT naming zones (4/4).

MY MISTAKES (fixed in their own commit): c12 c14 c19, rdma: its scope is "GPU capacity of more
  than one node in total", so a lone VM beside the MIG of 2 whose type is outside the catalog
  (a3-edgegpu-8g, e2-standard-8 with a T4) is asked for placement and its fabric (advisory);
  an IFT from a template the stack does not create has a type unknown: "cannot decide".

Planted test-side bug: the base MIG's zone us-central1-a -> us-central1-b: 130 of 156 failed,
  reverted from a cp backup. (A price constant planted wrong changes nothing: the figures are
  checked through budget thresholds worked by hand, not compared with the pack's estimate.)

Noticed, left alone: (1) c08's inline pool sits in a private cluster (NPI passes as it should);
  a public cluster's inline pools were not written (being fixed).
  (2) A reservation's deleteAtTime / deleteAfterDuration ends its billing early; the month is
  priced, above the truth, not a defect. (3) Workbench instances default to a public IP
  (disablePublicIp false); the docs list no Workbench exposure, so only private ones were
  written. (4) r20-r22: GKE pools are matched to reservations (ANY and SPECIFIC) though the
  docs' text names VMs and `reservationAffinity`; the verdicts agree with the docs' "counted
  once" for groups.
"""
from __future__ import annotations

import math
from datetime import datetime, timedelta, timezone
from typing import Any, Callable, Optional

import pytest

from tests.policy_fixtures import GCP_ALERTS, res
from tests.policy_harness import run, verdict

SSZ, SPEND, TAGS_P, RDMA = "storage-same-zone", "spend-limit", "required-tags", "rdma-for-multinode"
NPI, ENC, RET = "no-public-ingress", "encryption-at-rest", "bucket-retained"
POLICIES = (SSZ, SPEND, TAGS_P, RDMA, NPI, ENC, RET)
LABELS = {"owner": "ravi", "team": "pretrain", "cost_center": "7730"}
NAN = math.nan
F, P, U_, A = "fail", "pass", "undecided", "advisory"


def unknown() -> Any:
    from trainstack_policies.model import UNKNOWN
    return UNKNOWN


def named(stack: list, name: str):
    return next(r for r in stack if r.name == name)


def cron_at(hours: float) -> str:
    """The unix cron `M H D Mon *` of the first whole UTC minute at or after now + hours."""
    t = datetime.now(timezone.utc) + timedelta(hours=hours)
    w = t.replace(second=0, microsecond=0)
    t = w if w == t else w + timedelta(minutes=1)
    return f"{t.minute} {t.hour} {t.day} {t.month} *"


def iso_utc(hours: float) -> str:
    t = datetime.now(timezone.utc) + timedelta(hours=hours)
    return t.replace(microsecond=0).strftime("%Y-%m-%dT%H:%M:%SZ")


# Rates (policies/catalog_data/prices.csv, on-demand / spot USD/h; a month is 730 h).
A3H = 88.49            # gcp a3-highgpu-8g us-central1 (spot 53.0936); fabric gpudirect-tcpx: no
A3H_SPOT = 53.0936     #   RDMA row (rdma false), so rdma-for-multinode never asks about it.
G2 = 0.853624          # gcp g2-standard-8 us-central1 (L4 x1, tcp)
N1_8, T4 = 0.38, 0.35  # gcp_attached_gpus.csv n1-standard-8 / nvidia-tesla-t4 us-central1
# Storage: Managed Lustre 18,000 GiB at managed_lustre_125 0.145 USD/GiB-month = 2,610.00; the
#   bucket at the filesystem's size, 18,000 GiB = 19,327.35 GB x 0.02 (gcs_standard_regional
#   us-central1) = 386.55. STORE = 2,996.55.
STORE = 2610.0 + 386.55
MONTH = 730.0
BASE = 2 * A3H * MONTH + STORE     # 129,195.40 + 2,996.55 = 132,191.95 (< 150,000)
GCP_PROV = {"project": "ml-team", "region": "us-central1", "zone": "us-central1-a"}


# ------------------------------------------------------------------------- GCP (a3-highgpu base)
# Cluster Toolkit a3-highgpu-8g (us-central1-a): a zonal MIG of 2 from a template with 1 gVNIC +
#   4 GPU NICs, COLLOCATED, Managed Lustre 18,000 GiB in us-central1-a mounted by the template's
#   startup script with the bucket, internal firewall, budget 150,000 on the billing account.
def gcp(target: Any = 2.0, budget: Any = "150000", lustre_zone: str = "us-central1-a",
        mtype: Any = "a3-highgpu-8g", mig_zone: str = "us-central1-a") -> list:
    bucket = res("gcp:storage/bucket:Bucket", "a3-data", {
        "location": "US-CENTRAL1", "forceDestroy": False, "uniformBucketLevelAccess": True,
        "labels": {**LABELS, "trainstack_retain": "true"}}, retain=True)
    net = res("gcp:compute/network:Network", "a3-sysnet", {"autoCreateSubnetworks": False})
    sub = res("gcp:compute/subnetwork:Subnetwork", "a3-sys-sub", {
        "region": "us-central1", "ipCidrRange": "10.0.0.0/18", "network": "net"},
        deps={"network": [net]})
    pol = res("gcp:compute/resourcePolicy:ResourcePolicy", "a3-compact", {
        "region": "us-central1", "groupPlacementPolicy": {"collocation": "COLLOCATED",
                                                           "vmCount": 2.0}})
    fs = res("gcp:lustre/instance:Instance", "a3-lustre", {
        "instanceId": "a3-lustre", "location": lustre_zone, "capacityGib": "18000",
        "filesystem": "lfs", "perUnitStorageThroughput": "125", "network": "net",
        "labels": dict(LABELS)}, deps={"network": [net]})
    nics = [{"network": "net", "subnetwork": "sub", "nicType": "GVNIC"}] + [
        {"network": f"gpunet-{i}", "subnetwork": f"gpusub-{i}", "nicType": "GVNIC"}
        for i in range(4)]
    tpl = res("gcp:compute/instanceTemplate:InstanceTemplate", "a3-tpl", {
        "machineType": mtype, "labels": dict(LABELS), "networkInterfaces": nics,
        "resourcePolicies": "pol", "scheduling": {"onHostMaintenance": "TERMINATE",
                                                  "provisioningModel": "STANDARD"},
        "disks": [{"boot": True, "sourceImage": "projects/ml-team/global/images/family/slurm-a3",
                   "diskSizeGb": 200.0, "diskType": "pd-balanced"}],
        "metadata": {"startup-script": "mount -t lustre x@tcp:/lfs /lustre; gsutil ls gs://a3-data"}},
        deps={"networkInterfaces": [net, sub], "resourcePolicies": [pol], "metadata": [fs, bucket]})
    mig = res("gcp:compute/instanceGroupManager:InstanceGroupManager", "a3-mig", {
        "name": "a3high-mig", "zone": mig_zone, "baseInstanceName": "a3high",
        "targetSize": target, "versions": [{"instanceTemplate": "tpl"}]}, deps={"versions": [tpl]})
    fw = res("gcp:compute/firewall:Firewall", "a3-internal", {
        "network": "net", "direction": "INGRESS", "sourceRanges": ["10.0.0.0/8"],
        "allows": [{"protocol": "tcp"}, {"protocol": "udp"}, {"protocol": "icmp"}]},
        deps={"network": [net]})
    out = [bucket, net, sub, pol, fs, tpl, mig, fw]
    if budget is not None:
        out.append(res("gcp:billing/budget:Budget", "a3-budget", {
            "billingAccount": "000000-000000-000000", "displayName": "a3",
            "amount": {"specifiedAmount": {"currencyCode": "USD", "units": budget}},
            "thresholdRules": GCP_ALERTS}))
    return out


# ------------------------------------------------------------------------------------- mutators
def _chain(*fns):
    def mutate(s):
        for fn in fns:
            out = fn(s)
            if isinstance(out, tuple):
                return out
            s = out
        return s
    return mutate


def _add(build: Callable[[list], Any]):
    def mutate(s):
        r = build(s)
        return s + (r if isinstance(r, list) else [r])
    return mutate


def _set(name: str, path: str, value: Any):
    """Set a dotted path (list indices as numbers) on resource `name`; value may be a callable."""
    def mutate(s):
        r = named(s, name)
        parts = path.split(".")
        t: Any = r.props
        for part in parts[:-1]:
            t = t[int(part)] if isinstance(t, list) else t.setdefault(part, {})
        v = value() if callable(value) else value
        if isinstance(t, list):
            t[int(parts[-1])] = v
        else:
            t[parts[-1]] = v
        return s
    return mutate


def _del(name: str, path: str):
    def mutate(s):
        parts = path.split(".")
        t: Any = named(s, name).props
        for part in parts[:-1]:
            t = t[part]
        t.pop(parts[-1], None)
        return s
    return mutate


def _drop(*names: str):
    def mutate(s):
        return [r for r in s if r.name not in names]
    return mutate


def _dep(name: str, key: str, *others: str):
    def mutate(s):
        r = named(s, name)
        r.deps[key] = list(r.deps.get(key, [])) + [named(s, o) for o in others]
        return s
    return mutate


def _prov(**changes):
    def mutate(s):
        return s, {**GCP_PROV, **changes}
    return mutate


def _budget(units: Any = "150000", **extra):
    def mutate(s):
        b = named(s, "a3-budget")
        b.props["amount"]["specifiedAmount"]["units"] = units
        b.props.update(extra)
        return s
    return mutate


XFAIL: dict[str, str] = {}


def _params(cases):
    return [pytest.param(c, id=c[0], marks=[pytest.mark.xfail(strict=True, reason=XFAIL[c[0]])]
                         if c[0] in XFAIL else []) for c in cases]


def _run_case(pack, case):
    cid, mutate, expect, config, _why = case
    stack = gcp()
    provider = dict(GCP_PROV)
    if mutate is not None:
        out = mutate(stack)
        if isinstance(out, tuple):
            stack, provider = out
        else:
            stack = out
    found = run(pack, stack, config, provider)
    got = {p: verdict(found, p) for p in POLICIES}
    want = {p: expect.get(p, "pass") for p in POLICIES}
    assert got == want, (cid, [(d.policy, d.level, d.message[:600]) for d in found])
    for policy, needles in expect.get("_msg", {}).items():
        text = " ".join(d.message for d in found if d.policy == policy)
        for needle in needles:
            assert needle in text, (cid, policy, needle, text[:1500])


def test_base_passes(pack):
    """The base stack: BASE = 132,191.95 < 150,000, every policy passes."""
    _run_case(pack, ("base", None, {}, None, ""))


# ------------------------------------------------------------------------------- batch 1 helpers
def _res(rname: str = "a3-res", count: Any = 2.0, zone: str = "us-central1-a",
         required: Optional[bool] = None, mtype: Optional[str] = "a3-highgpu-8g",
         template: Optional[str] = None, name: str = "a3-reservation", **props):
    """A GCP reservation (`name` input rname), by its instanceProperties or a source template
    (`template`: the stack's template by dependency when it is 'a3-tpl', else a literal URL)."""
    def build(s):
        spec: dict = {"count": count() if callable(count) else count}
        deps: dict = {}
        if template == "a3-tpl":
            spec["sourceInstanceTemplate"] = ("https://www.googleapis.com/compute/v1/projects/"
                                              "ml-team/global/instanceTemplates/a3-tpl-1a2b")
            deps["specificReservation"] = [named(s, "a3-tpl")]
        elif template:
            spec["sourceInstanceTemplate"] = template
        else:
            spec["instanceProperties"] = {"machineType": mtype}
        p = {"name": rname, "zone": zone, "specificReservation": spec, **props}
        if required is not None:
            p["specificReservationRequired"] = required
        return res("gcp:compute/reservation:Reservation", name, p, deps=deps)
    return _add(build)


def _specific(on: str = "a3-tpl", rname: str = "a3-res", dep: Optional[str] = "a3-reservation"):
    def mutate(s):
        r = named(s, on)
        r.props["reservationAffinity"] = {
            "type": "SPECIFIC_RESERVATION", "specificReservation": {
                "key": "compute.googleapis.com/reservation-name", "values": [rname]}}
        if dep:
            r.deps["reservationAffinity"] = [named(s, dep)]
        return s
    return mutate


def _spot(on: str = "a3-tpl"):
    return _set(on, "scheduling", {"provisioningModel": "SPOT", "preemptible": True,
                                   "automaticRestart": False,
                                   "instanceTerminationAction": "DELETE",
                                   "onHostMaintenance": "TERMINATE"})


def _gke(pool: Optional[dict] = None, private: Any = True, inline: Optional[list] = None,
         default_node: Optional[dict] = None, initial: float = 1.0):
    """A GKE cluster on the base network (private nodes unless private=False), the default pool
    removed unless default_node is given, and a standalone GPU pool (pool: its nodeConfig and
    sizes)."""
    def build(s):
        net, sub = named(s, "a3-sysnet"), named(s, "a3-sys-sub")
        c: dict = {"name": "a3-gke", "location": "us-central1-a", "network": "net",
                   "subnetwork": "sub", "initialNodeCount": initial,
                   "resourceLabels": dict(LABELS), "deletionProtection": False}
        if private is True:
            c["privateClusterConfig"] = {"enablePrivateNodes": True,
                                         "masterIpv4CidrBlock": "172.16.0.0/28"}
        elif private is not None and private is not False:
            c["privateClusterConfig"] = private
        if default_node is None:
            c["removeDefaultNodePool"] = True
        else:
            c["nodeConfig"] = default_node
        if inline is not None:
            c["nodePools"] = inline
        cluster = res("gcp:container/cluster:Cluster", "a3-gke", c,
                      deps={"network": [net], "subnetwork": [sub]})
        out = [cluster]
        if pool is not None:
            out.append(res("gcp:container/nodePool:NodePool", "gpu-pool", {
                "name": "gpu-pool", "cluster": "a3-gke", "location": "us-central1-a", **pool},
                deps={"cluster": [cluster]}))
        return out
    return _add(build)


def _gke_only(pool: dict, **kw):
    """GKE instead of the MIG: the template and MIG dropped, the pool on the base network."""
    return _chain(_drop("a3-tpl", "a3-mig"), _gke(pool, **kw))


A3_POOL = {"nodeCount": 2.0, "nodeConfig": {"machineType": "a3-highgpu-8g",
                                            "resourceLabels": dict(LABELS)}}


def _vm(name: str = "a3-vm", mtype: str = "a3-highgpu-8g", zone: Optional[str] = "us-central1-a",
        scheduling: Optional[dict] = None, mount: bool = False, **props):
    def build(s):
        p = {"name": name, "machineType": mtype, "labels": dict(LABELS),
             "bootDisk": {"initializeParams": {"image": "projects/ml-team/global/images/family/x"}},
             "networkInterfaces": [{"network": "net", "subnetwork": "sub", "nicType": "GVNIC"}],
             **props}
        if zone:
            p["zone"] = zone
        if scheduling is not None:
            p["scheduling"] = scheduling
        deps = {"networkInterfaces": [named(s, "a3-sysnet"), named(s, "a3-sys-sub")]}
        if mount:
            p["metadata"] = {"startup-script": "mount -t lustre x@tcp:/lfs /lustre"}
            deps["metadata"] = [named(s, "a3-lustre"), named(s, "a3-data")]
        return res("gcp:compute/instance:Instance", name, p, deps=deps)
    return _add(build)


def _ift(name: str = "a3-ift", template: Optional[str] = "a3-tpl", **props):
    def build(s):
        p = {"name": name, "zone": "us-central1-a", **props}
        deps = {}
        if template == "a3-tpl":
            p["sourceInstanceTemplate"] = "a3-tpl-id"
            deps["sourceInstanceTemplate"] = [named(s, "a3-tpl")]
        else:
            p["sourceInstanceTemplate"] = template
        return res("gcp:compute/instanceFromTemplate:InstanceFromTemplate", name, p, deps=deps)
    return _add(build)


def _job(name: str = "a3-stop", hours: float = 72.0, project: str = "ml-team",
         group: str = "a3high-mig", size: int = 0, schedule: Optional[str] = None,
         where: str = "zones/us-central1-a/instanceGroupManagers", dep: bool = True,
         host: str = "compute.googleapis.com", **extra):
    def build(s):
        uri = (f"https://{host}/compute/v1/projects/{project}/{where}/{group}/resize?size={size}")
        return res("gcp:cloudscheduler/job:Job", name, {
            "region": "us-central1", "schedule": schedule or cron_at(hours),
            "timeZone": "Etc/UTC", "httpTarget": {
                "uri": uri, "httpMethod": "POST",
                "oauthToken": {"serviceAccountEmail": "sched@ml-team.iam.gserviceaccount.com"}},
            **extra}, deps={"httpTarget": [named(s, "a3-mig")]} if dep else {})
    return _add(build)


def _autoscaler(max_replicas: Any = 2.0, name: str = "a3-as"):
    def build(s):
        return res("gcp:compute/autoscaler:Autoscaler", name, {
            "zone": "us-central1-a", "target": "mig-id",
            "autoscalingPolicy": {"maxReplicas": max_replicas, "minReplicas": 0.0,
                                  "cooldownPeriod": 60.0,
                                  "cpuUtilization": {"target": 0.6}}},
            deps={"target": [named(s, "a3-mig")]})
    return _add(build)


def _resize(by: Any = 2.0, seconds: Any = "604800", name: str = "a3-flex"):
    def build(s):
        p: dict = {"name": name, "zone": "us-central1-a", "instanceGroupManager": "a3high-mig",
                   "resizeBy": by}
        if seconds is not None:
            p["requestedRunDuration"] = {"seconds": seconds}
        return res("gcp:compute/resizeRequest:ResizeRequest", name, p,
                   deps={"instanceGroupManager": [named(s, "a3-mig")]})
    return _add(build)


def _schedule_policy(stop_h: Optional[float] = 48.0, start_h: Optional[float] = None,
                     name: str = "a3-sched", on: str = "a3-vm"):
    def build(s):
        isp: dict = {"timeZone": "Etc/UTC"}
        if stop_h is not None:
            isp["vmStopSchedule"] = {"schedule": cron_at(stop_h)}
        if start_h is not None:
            isp["vmStartSchedule"] = {"schedule": cron_at(start_h)}
        pol = res("gcp:compute/resourcePolicy:ResourcePolicy", name,
                  {"region": "us-central1", "instanceSchedulePolicy": isp})
        vm = named(s, on)
        vm.props["resourcePolicies"] = "sched-id"
        vm.deps["resourcePolicies"] = [pol]
        return pol
    return _add(build)


def _workbench(mtype: str = "a2-highgpu-1g", acc: Optional[list] = None):
    def build(s):
        gs: dict = {"machineType": mtype, "disablePublicIp": True,
                    "networkInterfaces": [{"network": "net", "subnet": "sub"}]}
        if acc is not None:
            gs["acceleratorConfigs"] = acc
        return res("gcp:workbench/instance:Instance", "nb", {
            "name": "research-nb", "location": "us-central1-a", "gceSetup": gs,
            "labels": dict(LABELS)})
    return _add(build)


def _dataproc(worker: dict):
    def build(s):
        return res("gcp:dataproc/cluster:Cluster", "prep", {
            "name": "prep", "region": "us-central1", "labels": dict(LABELS),
            "clusterConfig": {"gceClusterConfig": {"zone": "us-central1-a",
                                                   "internalIpOnly": True,
                                                   "subnetwork": "sub"},
                              "masterConfig": {"numInstances": 1.0,
                                               "machineType": "n2-standard-8"},
                              "workerConfig": {"numInstances": 2.0, **worker}}})
    return _add(build)


NO_MIG = _drop("a3-mig")
T4x1 = [{"type": "nvidia-tesla-t4", "count": 1.0}]
SCHED72 = {"maxRunDuration": {"seconds": "259200"}, "instanceTerminationAction": "DELETE",
           "provisioningModel": "STANDARD", "onHostMaintenance": "TERMINATE"}


# ------------------------------------------------------------------------------------- batch 1
# Figures: BASE = 132,191.95. Twice (reservation of 2 + the MIG's 2 outside it) = 4 x 88.49 x 730
#   = 258,390.80 + 2,996.55 = 261,387.35. Three nodes = 193,793.10 + 2,996.55 = 196,789.65.
TWICE = 4 * A3H * MONTH + STORE
THREE = 3 * A3H * MONTH + STORE
CASES1 = [
    # --- reservations: counted once, twice, or not at all
    ("r01", _chain(_res(required=True), _specific()), {}, None,
     "SPECIFIC reservation of 2 named by the template: once, BASE < 150,000"),
    ("r02", _res(), {}, None, "ANY reservation (default) of 2 of its type in its zone: once"),
    ("r03", _res(zone="us-central1-b"), {SPEND: F}, None,
     "ANY reservation in another zone: not the nodes', TWICE 261,387.35 > 150,000"),
    ("r04", _res(required=True), {SPEND: F}, None,
     "specificReservationRequired true, template ANY: not consumed, TWICE > 150,000"),
    ("r05", _chain(_res(), _set("a3-tpl", "reservationAffinity", {"type": "NO_RESERVATION"})),
     {SPEND: F}, None, "NO_RESERVATION template beside an ANY reservation: TWICE"),
    ("r06", _chain(_res(count=4.0, required=True), _specific()), {SPEND: F}, None,
     "reservation of 4 under a MIG of 2: 4 billed, 261,387.35 > 150,000"),
    ("r07", _chain(_res(count=4.0, required=True), _specific(), _budget("300000")), {}, None,
     "reservation of 4 under a MIG of 2, budget 300,000: 261,387.35 < 300,000"),
    ("r08", _chain(_res(count=1.0, required=True), _specific()), {}, None,
     "reservation of 1 under a MIG of 2: 1 inside + 1 beyond = 2 nodes, BASE (3 would be "
     "196,789.65 > 150,000)"),
    ("r09", _chain(_res(), _spot()), {SPEND: F}, None,
     "SPOT MIG beside an ANY reservation: spot nodes use none; 129,195.40 + 2 x 53.0936 x 730 "
     "(77,516.66) + 2,996.55 = 209,708.61 > 150,000"),
    ("r10", _chain(_res(), _spot(), _budget("220000")), {}, None,
     "the same under 220,000: 209,708.61 passes"),
    ("r11", _res(template="a3-tpl"), {}, None,
     "ANY reservation built from the stack's template (sourceInstanceTemplate by dependency): "
     "once"),
    ("r12", _res(template="projects/ml-team/global/instanceTemplates/a3-golden"), {SPEND: F},
     None, "reservation from a template the stack does not create: its type read nowhere"),
    ("r13", _chain(_res(), _set("a3-tpl", "minCpuPlatform",
                                                    "Intel Sapphire Rapids"),
                   _set("a3-reservation", "specificReservation.instanceProperties.minCpuPlatform",
                        "Intel Ice Lake")), {SPEND: F}, None,
     "reservation minCpuPlatform Ice Lake vs template Sapphire Rapids: both priced, TWICE"),
    ("r14", _chain(_res(mtype="g2-standard-8", name="g2-reservation", rname="g2-res"),
                   _budget("133000")), {SPEND: F}, None,
     "an idle g2-standard-8 reservation of 2 beside: 2 x 0.853624 x 730 = 1,246.29 billed, "
     "133,438.24 > 133,000"),
    ("r15", _res(count="two"), {SPEND: F}, None, "reservation count 'two': named"),
    ("r16", _res(count=unknown), {SPEND: F}, None, "reservation count unknown: fails closed"),
    ("r17", _res(shareSettings={"shareType": "SPECIFIC_PROJECTS", "projectMaps": [
        {"id": "ml-infer", "projectId": "ml-infer"}]}), {}, None,
     "a shared ANY reservation the owner project's MIG consumes: once"),
    ("r18", _chain(_res(count=1.0, required=True), _ift(), _specific("a3-tpl"),
                   _budget("250000")), {}, None,
     "an InstanceFromTemplate and the MIG target a SPECIFIC reservation of 1: 3 nodes, "
     "196,789.65 < 250,000 (twice-counted would be 4: 261,387.35)"),
    ("r19", _specific(rname="projects/ml-team/reservations/elsewhere", dep=None), {}, None,
     "template SPECIFIC to a reservation outside the stack: MIG priced, BASE"),
    ("r20", _chain(_gke_only(A3_POOL), _res()), {}, None,
     "GKE pool of 2 a3-highgpu-8g with default affinity beside an ANY reservation: once, BASE"),
    ("r21", _chain(_gke_only({**A3_POOL, "nodeConfig": {
        **A3_POOL["nodeConfig"], "reservationAffinity": {
            "consumeReservationType": "SPECIFIC_RESERVATION",
            "key": "compute.googleapis.com/reservation-name", "values": ["a3-res"]}}}),
        _res(required=True)), {}, None,
     "GKE pool naming a SPECIFIC reservation of 2: once, BASE"),
    ("r22", _chain(_gke_only(A3_POOL), _res(required=True)), {SPEND: F}, None,
     "GKE pool default affinity beside a specific-only reservation: TWICE"),
    # --- compute the pack may not see
    ("c01", _workbench(), {SPEND: F}, None, "Workbench instance a2-highgpu-1g: named"),
    ("c02", _workbench("n1-standard-8", [{"type": "NVIDIA_TESLA_T4", "coreCount": "1"}]),
     {SPEND: F}, None, "Workbench n1 + acceleratorConfigs T4: named"),
    ("c03", _workbench("e2-standard-8"), {}, None, "a CPU Workbench instance: nothing"),
    ("c04", _dataproc({"machineType": "g2-standard-8"}), {SPEND: F}, None,
     "Dataproc workers g2-standard-8: named"),
    ("c05", _dataproc({"machineType": "n1-standard-8", "accelerators": [
        {"acceleratorType": "nvidia-tesla-t4", "acceleratorCount": 1.0}]}), {SPEND: F}, None,
     "Dataproc workers with T4 accelerators: named"),
    ("c06", _dataproc({"machineType": "n2-standard-8"}), {}, None, "CPU Dataproc: nothing"),
    ("c07", _chain(_gke({"autoscaling": {"minNodeCount": 0.0, "maxNodeCount": 3.0},
                         "nodeConfig": {"machineType": "g2-standard-8",
                                        "resourceLabels": dict(LABELS)}}),
                   _budget("133000")), {SPEND: F}, None,
     "a GKE g2 pool of max 3 beside the MIG: 3 x 0.853624 x 730 = 1,869.44, 134,061.39 > 133,000"),
    ("c08", _gke(inline=[{"name": "gpu", "nodeCount": 2.0,
                          "nodeConfig": {"machineType": "a3-highgpu-8g"}}]), {SPEND: F}, None,
     "a private cluster's inline a3 pool of 2 beside the MIG: TWICE 261,387.35 > 150,000"),
    ("c09", _chain(_gke(default_node={"machineType": "g2-standard-8"}, initial=3.0),
                   _budget("133000")), {SPEND: F}, None,
     "the cluster's default pool of 3 g2-standard-8: 1,869.44 more, 134,061.39 > 133,000"),
    ("c10", _ift(machineType="e2-standard-4"), {}, None,
     "InstanceFromTemplate of the a3 template with its own CPU machineType: CPU"),
    ("c11", _ift(), {SPEND: F}, None,
     "InstanceFromTemplate of the a3 template: THREE 196,789.65 > 150,000"),
    ("c12", _ift(template="projects/ml-team/global/instanceTemplates/a3-golden"),
     {SPEND: F, RDMA: U_},
     None, "InstanceFromTemplate from a template outside the stack: type read nowhere"),
    ("c13", _vm(mtype="zones/us-central1-a/machineTypes/a3-highgpu-8g"), {SPEND: F}, None,
     "a VM typed by a partial URL: priced (THREE) or unreadable: fails either way"),
    ("c14", _vm(mtype="a3-edgegpu-8g"), {SPEND: F, RDMA: A}, None,
     "a3-edgegpu-8g: an a3 family type outside the catalog: cannot be priced"),
    ("c15", _chain(_vm(mtype="n1-standard-8", guestAccelerators=T4x1), _budget("132500")),
     {SPEND: F}, None, "n1-standard-8 + T4: (0.38 + 0.35) x 730 = 532.90, 132,724.85 > 132,500"),
    ("c16", _chain(_vm(mtype="n1-standard-8", guestAccelerators=T4x1), _budget("133000")), {},
     None, "the same under 133,000"),
    ("c17", _chain(_vm(mtype="n1-standard-8", guestAccelerators=[
        {"type": "projects/ml-team/zones/us-central1-a/acceleratorTypes/nvidia-tesla-t4",
         "count": 1.0}]), _budget("132500")), {SPEND: F}, None,
     "T4 named by its URL: priced (over 132,500) or unreadable: fails either way"),
    ("c18", _chain(_vm(mtype="n1-standard-8", guestAccelerators=[
        {"type": "nvidia-tesla-t4", "count": 0.0}]), _budget("132500")), {}, None,
     "an N1 VM with a T4 count of 0: CPU; at most 277.40 more, 132,469.35 < 132,500"),
    ("c19", _vm(mtype="e2-standard-8", guestAccelerators=T4x1), {SPEND: F, RDMA: A}, None,
     "a known count declares accelerators on any machine: e2 + T4 cannot be priced"),
    # --- stops
    ("s01", _chain(_job(), _budget("20000")), {}, None,
     "Cloud Scheduler resize to 0 in 72 h: 2 x 88.49 x 73 = 12,919.54 + 2,996.55 < 20,000"),
    ("s02", _chain(_job(), _autoscaler(), _budget("20000")), {SPEND: F}, None,
     "an autoscaler on the MIG may size it up after the stop: the month"),
    ("s03", _chain(_job(where="regions/us-central1/regionInstanceGroupManagers"),
                   _budget("20000")), {SPEND: F}, None,
     "a regional resize URL for a zonal MIG: not the group's, the month"),
    ("s04", _chain(_job(schedule="0 3 * * *"), _budget("20000")), {}, None,
     "a daily resize to 0 at 03:00 UTC, nothing raises it: at most 24 h"),
    ("s05", _chain(_job(), _job(name="a3-start", hours=96.0, size=2), _budget("20000")),
     {SPEND: F}, None, "a resize back to 2 after the stop: a pause, the month"),
    ("s06", _chain(_job(project="123456789012"), _budget("20000")), {}, None,
     "the project given by number in the URL: the group's own"),
    ("s07", _chain(NO_MIG, _vm(scheduling=SCHED72, mount=True), _budget("20000")), {}, None,
     "a single a3 VM with maxRunDuration 72 h (DELETE): 88.49 x 73 = 6,459.77 + 2,996.55"),
    ("s08", _chain(NO_MIG, _vm(scheduling={**SCHED72, "terminationTime": iso_utc(48)},
                               mount=True), _budget("8000")), {}, None,
     "terminationTime 48 h before maxRunDuration 72 h: 49 h, 4,336.01 + 2,996.55 = 7,332.56"),
    ("s09", _chain(NO_MIG, _vm(scheduling={**SCHED72, "instanceTerminationAction": "STOP"},
                               mount=True), _schedule_policy(None, 96.0), _budget("20000")),
     {SPEND: F}, None, "maxRunDuration STOP with a vmStartSchedule attached: a pause"),
    ("s10", _chain(NO_MIG, _vm(mount=True), _schedule_policy(48.0), _budget("8000")), {}, None,
     "an instance schedule stopping the VM in 48 h, no start: 7,332.56 < 8,000"),
    ("s11", _chain(_set("a3-tpl", "scheduling", SCHED72), _budget("20000")), {SPEND: F}, None,
     "a MIG's template maxRunDuration alone: no lifetime, the month"),
    ("s12", _chain(_set("a3-mig", "targetSize", 0.0), _resize(), _budget("40000")), {}, None,
     "flex-start: target 0, a resize request of 2 for 168 h: 29,732.64 + 2,996.55 < 40,000"),
    ("s13", _chain(_set("a3-mig", "targetSize", 0.0), _resize(), _budget("30000")),
     {SPEND: F}, None, "the same, 32,729.19 > 30,000"),
    ("s14", _chain(_set("a3-mig", "targetSize", 0.0), _resize(seconds=None),
                   _budget("40000")), {SPEND: F}, None,
     "a resize request without requestedRunDuration: the month"),
    ("s15", _resize(seconds=None), {SPEND: F}, None,
     "a resize request of 2 on a MIG of 2: 4 nodes, TWICE > 150,000"),
    ("s16", _chain(_job(paused=False), _budget("20000")), {}, None, "paused false: a stop"),
    ("s17", _chain(NO_MIG, _vm(scheduling=SCHED72, mount=True), _schedule_policy(None, 96.0),
                   _budget("20000")), {}, None,
     "maxRunDuration DELETE beside a start schedule: a deleted VM has nothing to start"),
]


@pytest.mark.parametrize("case", _params(CASES1), ids=[c[0] for c in CASES1])
def test_batch1(pack, case):
    _run_case(pack, case)


# ------------------------------------------------------------------------------- batch 2 helpers
def _filter(**flt):
    return _set("a3-budget", "budgetFilter", flt)


def _budget2(name: str, units: str, **extra):
    def build(s):
        return res("gcp:billing/budget:Budget", name, {
            "billingAccount": "000000-000000-000000", "displayName": name,
            "amount": {"specifiedAmount": {"currencyCode": "USD", "units": units}},
            "thresholdRules": GCP_ALERTS, **extra})
    return _add(build)


def _fs_swap(kind: str = "filestore", location: str = "us-central1-b", tier: str = "ZONAL",
             cap: Any = 10240.0):
    """Replace the Managed Lustre by a Filestore or Parallelstore the template mounts."""
    def mutate(s):
        net = named(s, "a3-sysnet")
        if kind == "filestore":
            fs = res("gcp:filestore/instance:Instance", "a3-fs2", {
                "name": "a3-home", "location": location, "tier": tier,
                "fileShares": {"name": "home", "capacityGb": cap},
                "networks": [{"network": "a3-sysnet", "modes": ["MODE_IPV4"]}],
                "labels": dict(LABELS)}, deps={"networks": [net]})
        else:
            fs = res("gcp:parallelstore/instance:Instance", "a3-fs2", {
                "instanceId": "a3-ps", "location": location, "capacityGib": "12000",
                "network": "net", "labels": dict(LABELS)}, deps={"network": [net]})
        s = [r for r in s if r.name != "a3-lustre"]
        tpl = named(s, "a3-tpl")
        tpl.deps["metadata"] = [fs, named(s, "a3-data")]
        return s + [fs]
    return mutate


def _cpu_mig(mount: bool = True, zone: str = "us-central1-b"):
    """A CPU data-prep MIG (n2-standard-8) that mounts the Lustre; the GPU template stops
    mounting it (it keeps reading the bucket)."""
    def mutate(s):
        tpl = named(s, "a3-tpl")
        tpl.deps["metadata"] = [named(s, "a3-data")]
        ct = res("gcp:compute/instanceTemplate:InstanceTemplate", "prep-tpl", {
            "machineType": "n2-standard-8", "labels": dict(LABELS),
            "networkInterfaces": [{"network": "net", "subnetwork": "sub"}],
            "disks": [{"boot": True, "sourceImage": "debian-cloud/debian-12"}],
            "metadata": {"startup-script": "mount -t lustre x@tcp:/lfs /lustre"}},
            deps={"metadata": [named(s, "a3-lustre")] if mount else []})
        cm = res("gcp:compute/instanceGroupManager:InstanceGroupManager", "prep-mig", {
            "name": "prep-mig", "zone": zone, "baseInstanceName": "prep", "targetSize": 4.0,
            "versions": [{"instanceTemplate": "prep-tpl"}]}, deps={"versions": [ct]})
        return s + [ct, cm]
    return mutate


def _second_cluster(swap: bool = False):
    """Cluster B: 2 g2-standard-8 in us-central1-b, its own Lustre 9,000 GiB in -b; each
    template mounts its own Lustre (or the other's, swap=True)."""
    def mutate(s):
        net = named(s, "a3-sysnet")
        fs_b = res("gcp:lustre/instance:Instance", "g2-lustre", {
            "instanceId": "g2-lustre", "location": "us-central1-b", "capacityGib": "9000",
            "filesystem": "lfs2", "perUnitStorageThroughput": "125", "network": "net",
            "labels": dict(LABELS)}, deps={"network": [net]})
        fs_a = named(s, "a3-lustre")
        tpl_b = res("gcp:compute/instanceTemplate:InstanceTemplate", "g2-tpl", {
            "machineType": "g2-standard-8", "labels": dict(LABELS),
            "networkInterfaces": [{"network": "net", "subnetwork": "sub"}],
            "disks": [{"boot": True, "sourceImage": "debian-cloud/debian-12"}],
            "metadata": {"startup-script": "mount -t lustre y@tcp:/lfs2 /lustre"}},
            deps={"metadata": [fs_a if swap else fs_b]})
        if swap:
            named(s, "a3-tpl").deps["metadata"] = [fs_b, named(s, "a3-data")]
        mig_b = res("gcp:compute/instanceGroupManager:InstanceGroupManager", "g2-mig", {
            "name": "g2-mig", "zone": "us-central1-b", "baseInstanceName": "g2",
            "targetSize": 2.0, "versions": [{"instanceTemplate": "g2-tpl"}]},
            deps={"versions": [tpl_b]})
        return s + [fs_b, tpl_b, mig_b]
    return mutate


def _regional_mig(zones: list):
    def mutate(s):
        s = [r for r in s if r.name != "a3-mig"]
        return s + [res("gcp:compute/regionInstanceGroupManager:RegionInstanceGroupManager",
                        "a3-rmig", {"name": "a3-rmig", "region": "us-central1",
                                    "distributionPolicyZones": zones, "targetSize": 2.0,
                                    "baseInstanceName": "a3",
                                    "versions": [{"instanceTemplate": "tpl"}]},
                        deps={"versions": [named(s, "a3-tpl")]})]
    return mutate


def _shared_vpc(lustre_zone: str = "us-central1-a"):
    def mutate(s):
        tpl = named(s, "a3-tpl")
        for i, nic in enumerate(tpl.props["networkInterfaces"]):
            nic["network"] = None
            nic["subnetwork"] = ("projects/host-net/regions/us-central1/subnetworks/"
                                 + ("gpu-sys" if i == 0 else f"gpu-{i}"))
            nic.pop("network")
        tpl.deps.pop("networkInterfaces", None)
        fs = named(s, "a3-lustre")
        fs.props["network"] = "projects/host-net/global/networks/shared"
        fs.props["location"] = lustre_zone
        fs.deps = {}
        return [r for r in s if r.name not in ("a3-sysnet", "a3-sys-sub", "a3-internal")]
    return mutate


def _fw(name: str = "open", **props):
    def build(s):
        p = {"network": "net", "direction": "INGRESS",
             **{k: (v() if callable(v) else v) for k, v in props.items()}}
        return res("gcp:compute/firewall:Firewall", name, p,
                   deps={"network": [named(s, "a3-sysnet")]})
    return _add(build)


def _lb(scheme: str = "EXTERNAL"):
    """A regional passthrough NLB: forwarding rule -> region backend service -> the MIG's group."""
    def build(s):
        bs = res("gcp:compute/regionBackendService:RegionBackendService", "a3-bs", {
            "region": "us-central1", "loadBalancingScheme": scheme, "protocol": "TCP",
            "backends": [{"group": "mig-ig", "balancingMode": "CONNECTION"}]},
            deps={"backends": [named(s, "a3-mig")]})
        fr = res("gcp:compute/forwardingRule:ForwardingRule", "a3-fr", {
            "region": "us-central1", "loadBalancingScheme": scheme, "ports": ["8000"],
            "backendService": "bs-id", **({"network": "net", "subnetwork": "sub"}
                                          if scheme == "INTERNAL" else {})},
            deps={"backendService": [bs]})
        return [bs, fr]
    return _add(build)


def _global_lb():
    def build(s):
        bs = res("gcp:compute/backendService:BackendService", "a3-gbs", {
            "loadBalancingScheme": "EXTERNAL_MANAGED", "protocol": "HTTP",
            "backends": [{"group": "mig-ig"}]}, deps={"backends": [named(s, "a3-mig")]})
        um = res("gcp:compute/uRLMap:URLMap", "a3-um", {"defaultService": "gbs"},
                 deps={"defaultService": [bs]})
        px = res("gcp:compute/targetHttpProxy:TargetHttpProxy", "a3-px", {"urlMap": "um"},
                 deps={"urlMap": [um]})
        fr = res("gcp:compute/globalForwardingRule:GlobalForwardingRule", "a3-gfr", {
            "loadBalancingScheme": "EXTERNAL_MANAGED", "portRange": "80", "target": "px"},
            deps={"target": [px]})
        return [bs, um, px, fr]
    return _add(build)


def _neg_lb():
    """A g2 VM (us-central1-a) behind a zonal NEG endpoint, a global external backend."""
    def build(s):
        vm = named(s, "a3-vm")
        neg = res("gcp:compute/networkEndpointGroup:NetworkEndpointGroup", "vm-neg", {
            "zone": "us-central1-a", "network": "net", "subnetwork": "sub",
            "networkEndpointType": "GCE_VM_IP_PORT", "defaultPort": 8000.0})
        ep = res("gcp:compute/networkEndpoint:NetworkEndpoint", "vm-ep", {
            "zone": "us-central1-a", "networkEndpointGroup": "vm-neg", "instance": "a3-vm",
            "ipAddress": "10.0.0.5", "port": 8000.0},
            deps={"networkEndpointGroup": [neg], "instance": [vm]})
        bs = res("gcp:compute/backendService:BackendService", "neg-bs", {
            "loadBalancingScheme": "EXTERNAL_MANAGED", "protocol": "HTTP",
            "backends": [{"group": "neg-id", "balancingMode": "RATE",
                          "maxRatePerEndpoint": 10.0}]}, deps={"backends": [neg]})
        um = res("gcp:compute/uRLMap:URLMap", "neg-um", {"defaultService": "b"},
                 deps={"defaultService": [bs]})
        px = res("gcp:compute/targetHttpProxy:TargetHttpProxy", "neg-px", {"urlMap": "um"},
                 deps={"urlMap": [um]})
        fr = res("gcp:compute/globalForwardingRule:GlobalForwardingRule", "neg-fr", {
            "loadBalancingScheme": "EXTERNAL_MANAGED", "portRange": "80", "target": "px"},
            deps={"target": [px]})
        return [neg, ep, bs, um, px, fr]
    return _add(build)


def _fw_policy_rule(action: str = "allow", ranges: Optional[list] = None):
    def build(s):
        pol = res("gcp:compute/networkFirewallPolicy:NetworkFirewallPolicy", "a3-fwp", {})
        rule = res("gcp:compute/networkFirewallPolicyRule:NetworkFirewallPolicyRule", "a3-fwp-r", {
            "firewallPolicy": "a3-fwp", "priority": 1000.0, "direction": "INGRESS",
            "action": action, "match": {"srcIpRanges": ranges or ["0.0.0.0/0"],
                                        "layer4Configs": [{"ipProtocol": "tcp",
                                                           "ports": ["8080"]}]}},
            deps={"firewallPolicy": [pol]})
        return [pol, rule]
    return _add(build)


def _pic():
    def build(s):
        return res("gcp:compute/perInstanceConfig:PerInstanceConfig", "a3-pic", {
            "zone": "us-central1-a", "instanceGroupManager": "a3high-mig", "name": "a3high-0",
            "preservedState": {"externalIps": [{"interfaceName": "nic0",
                                                "autoDelete": "NEVER",
                                                "ipAddress": {"address": "addr-id"}}]}},
            deps={"instanceGroupManager": [named(s, "a3-mig")]})
    return _add(build)


G2_POOL = {"nodeCount": 2.0, "nodeConfig": {"machineType": "g2-standard-8",
                                            "resourceLabels": dict(LABELS)}}
LFS_B = {"instanceId": "x"}


# ------------------------------------------------------------------------------------- batch 2
# Figures: BASE 132,191.95; CNY at fx.csv 7.2734 per USD: 1,100,000 CNY = 151,236.01 USD (pass),
#   950,000 CNY = 130,612.91 USD (< BASE: fail). Two clusters (z08): 129,195.40 + 2 x 0.853624 x
#   730 (1,246.29) + Lustre 18,000 + 9,000 GiB x 0.145 (3,915.00) + bucket 27,000 GiB = 28,991.03
#   GB x 0.02 (579.82) = 134,936.51 < 150,000.
def _future(years: int = 2) -> dict:
    y = datetime.now(timezone.utc).year + years
    return {"startDate": {"year": float(y), "month": 1.0, "day": 1.0},
            "endDate": {"year": float(y + 1), "month": 1.0, "day": 1.0}}


CASES2 = [
    # --- budgets
    ("b01", _filter(projects=["projects/ml-team"]), {}, None, "projects by id: the stack's"),
    ("b02", _filter(projects=["projects/ml-infer"]), {SPEND: F}, None,
     "another project: no budget alarm for the MIG"),
    ("b03", _filter(projects=["projects/123456789012"]), {}, None,
     "a project by number: taken as the stack's own"),
    ("b04", _filter(services=["services/6F81-5844-456A"]), {}, None, "Compute Engine service"),
    ("b05", _filter(services=["services/95FF-2EF5-5EA1"]), {SPEND: F}, None,
     "Cloud Storage only: leaves the GPU VMs out"),
    ("b06", _filter(labels={"team": "pretrain"}), {}, None, "the template's label"),
    ("b07", _filter(labels={"team": "infer"}), {SPEND: F}, None, "a label no VM carries"),
    ("b08", _chain(_filter(labels={"team": "pretrain"}),
                   _set("a3-mig", "allInstancesConfig", {"labels": {"team": "infra"}})),
     {SPEND: F}, None, "allInstancesConfig.labels overrides the template's team label"),
    ("b09", _filter(creditTypesTreatment="EXCLUDE_ALL_CREDITS"), {}, None,
     "creditTypesTreatment: no effect on reach"),
    ("b10", _chain(_budget("1100000"), _set("a3-budget", "amount.specifiedAmount.currencyCode",
                                            "CNY")), {}, None, "1,100,000 CNY = 151,236.01 USD"),
    ("b11", _chain(_budget("950000"), _set("a3-budget", "amount.specifiedAmount.currencyCode",
                                           "CNY")), {SPEND: F}, None,
     "950,000 CNY = 130,612.91 USD < 132,191.95"),
    ("b12", _set("a3-budget", "amount.specifiedAmount.currencyCode", "EUR"), {SPEND: U_}, None,
     "EUR has no cited rate: cannot decide"),
    ("b13", _filter(customPeriod=_future()), {SPEND: F}, None,
     "a custom period that begins in two years: tracks nothing now"),
    ("b14", _chain(_gke_only(G2_POOL), _filter(labels={"team": "pretrain"})), {}, None,
     "GKE pool: cluster resourceLabels and nodeConfig.resourceLabels carry team=pretrain"),
    ("b15", _chain(_gke_only({**G2_POOL, "nodeConfig": {"machineType": "g2-standard-8",
                                                        "labels": {"team": "gpu"}}}),
                   _filter(labels={"team": "gpu"})), {SPEND: F}, None,
     "a budget on a Kubernetes label (nodeConfig.labels) never reaches billing"),
    ("b16", _chain(_gke_only({**G2_POOL, "nodeConfig": {"machineType": "g2-standard-8",
                                                        "resourceLabels": {"team": "gpu"}}}),
                   _filter(labels={"team": "gpu"})), {SPEND: U_}, None,
     "cluster resourceLabels team=pretrain vs pool resourceLabels team=gpu: cannot decide"),
    ("b17", _chain(_set("a3-budget", "thresholdRules", []),
                   _set("a3-budget", "allUpdatesRule",
                        {"pubsubTopic": "projects/ml-team/topics/budget"})), {}, None,
     "no thresholds but a Pub/Sub topic: notifies"),
    ("b18", _set("a3-budget", "allUpdatesRule", {"disableDefaultIamRecipients": True}),
     {SPEND: F}, None, "default recipients off and no channel or topic: notifies no one"),
    ("b19", _set("a3-budget", "allUpdatesRule", {
        "disableDefaultIamRecipients": True,
        "monitoringNotificationChannels": ["projects/ml-team/notificationChannels/42"]}), {},
     None, "default recipients off with a monitoring channel"),
    ("b20", _filter(resourceAncestors=["organizations/123456789"]), {SPEND: U_}, None,
     "resourceAncestors only: cannot decide"),
    ("b21", _chain(_budget("200000"), _budget2("team-b", "140000",
                                               budgetFilter={"projects": ["projects/ml-team"]})),
     {}, None, "the smallest covering budget 140,000 > 132,191.95"),
    ("b22", _chain(_budget("200000"), _budget2("team-b", "130000",
                                               budgetFilter={"projects": ["projects/ml-team"]})),
     {SPEND: F}, None, "the smallest covering budget 130,000 < 132,191.95"),
    ("b23", _budget("150,000"), {SPEND: F}, None, "units '150,000': named"),
    ("b24", _budget("-5"), {SPEND: F}, None, "units -5: named"),
    ("b25", _chain(_budget("132000"), _set("a3-budget", "amount.specifiedAmount.nanos",
                                           999999999.0)), {SPEND: F}, None,
     "132,000.999999999 < 132,191.95"),
    ("b26", _filter(services=["services/6F81-5844-456A"], projects=["projects/ml-infer"]),
     {SPEND: F}, None, "Compute but another project: leaves it out"),
    ("b27", _del("a3-budget", "thresholdRules"), {SPEND: F}, None,
     "no thresholds, no topic: notifies no one"),
    ("b28", _chain(_filter(projects=["projects/ml-team"]), _set("a3-mig", "project", "ml-infer"),
                   _set("a3-tpl", "project", "ml-infer")), {SPEND: F}, None,
     "the MIG in its own project ml-infer: a ml-team budget leaves it out"),
    ("b29", _chain(_filter(projects=["projects/ml-infer"]), _set("a3-mig", "project", "ml-infer"),
                   _set("a3-tpl", "project", "ml-infer")), {}, None,
     "the MIG's own project in the filter"),
    # --- malformed values
    ("m01", _set("a3-mig", "targetSize", "2"), {}, None, "'2' as text is 2"),
    ("m02", _set("a3-mig", "targetSize", -2.0), {SPEND: F}, None, "targetSize -2"),
    ("m03", _autoscaler("lots"), {SPEND: F}, None, "maxReplicas 'lots'"),
    ("m04", _gke({"autoscaling": {"minNodeCount": 0.0, "maxNodeCount": NAN},
                  "nodeConfig": {"machineType": "g2-standard-8"}}), {SPEND: F}, None,
     "GKE maxNodeCount NaN"),
    ("m05", _vm(mtype="n1-standard-8", guestAccelerators=[{"type": "nvidia-tesla-t4",
                                                           "count": "one"}]), {SPEND: F}, None,
     "accelerator count 'one'"),
    ("m06", _set("a3-lustre", "capacityGib", "18,000"), {SPEND: F}, None, "capacity '18,000'"),
    ("m07", _fs_swap(location="us-central1-a", cap=-1024.0), {SPEND: F}, None,
     "Filestore capacityGb -1024"),
    ("m08", _set("a3-tpl", "machineType", " a3-highgpu-8g "), {}, None,
     "a type with surrounding spaces is read stripped"),
    ("m09", _resize(by="two"), {SPEND: F}, None, "resizeBy 'two'"),
    ("m10", _gke({"nodeCount": True, "nodeConfig": {"machineType": "g2-standard-8"}}),
     {SPEND: F}, None, "GKE nodeCount true"),
    ("m11", _chain(_set("a3-mig", "targetSize", 0.0), _resize(seconds="7 days"),
                   _budget("40000")), {SPEND: F}, None,
     "requestedRunDuration '7 days' does not read: no lifetime, or named"),
    ("m12", _autoscaler([4.0]), {SPEND: F}, None, "maxReplicas [4]"),
    ("m13", _chain(_vm(mtype="n1-standard-8", guestAccelerators={"type": "nvidia-tesla-t4",
                                                                 "count": 1.0}),
                   _budget("132500")), {SPEND: F}, None,
     "guestAccelerators as one object: a list of one, 132,724.85 > 132,500"),
    # --- same-zone storage scope
    ("z01", None, {SSZ: F}, None, "placeholder replaced below"),
    ("z02", _fs_swap(), {SSZ: F}, None, "ZONAL Filestore in -b mounted by the -a MIG"),
    ("z03", _fs_swap(location="us-central1", tier="REGIONAL"), {}, None,
     "REGIONAL Filestore: compared by region"),
    ("z04", _fs_swap(location="us-central1", tier="ENTERPRISE"), {}, None,
     "ENTERPRISE Filestore: regional"),
    ("z05", _fs_swap(location="us-central1-a", tier="BASIC_SSD", cap=2560.0), {}, None,
     "BASIC_SSD Filestore in the nodes' zone"),
    ("z06", _fs_swap(kind="parallelstore"), {SSZ: F}, None, "Parallelstore in -b mounted"),
    ("z07", _chain(_set("a3-lustre", "location", "us-central1-b"), _cpu_mig()), {}, None,
     "Lustre in -b mounted only by a CPU MIG in -b: not the GPUs' storage"),
    ("z08", _second_cluster(), {}, None,
     "two clusters in -a and -b, each mounting its own Lustre: 134,936.51"),
    ("z09", _second_cluster(swap=True), {SSZ: F}, None, "swapped mounts: both fail"),
    ("z10", _set("a3-data", "location", "EUROPE-WEST4"), {SSZ: F}, None,
     "the bucket the GPU template reads in europe-west4"),
    ("z11", _regional_mig(["us-central1-a", "us-central1-b"]), {SSZ: F}, None,
     "a regional MIG over -a and -b mounting the -a Lustre: a span"),
    ("z12", _chain(NO_MIG, _vm(mtype="g2-standard-8", zone=None, mount=True)), {}, None,
     "a g2 VM with no zone: the provider's us-central1-a"),
    ("z13", _chain(NO_MIG, _vm(mtype="g2-standard-8", zone=None, mount=True),
                   _prov(zone="us-central1-b")), {SSZ: F}, None,
     "a g2 VM with no zone, the provider's zone -b, the Lustre in -a"),
    # --- things outside the stack
    ("o01", _shared_vpc(), {}, None,
     "Shared VPC literal subnetworks and network; zones from the resources' own inputs"),
    ("o02", _shared_vpc("us-central1-b"), {SSZ: F}, None, "the same, Lustre in -b"),
    ("o03", _del("a3-mig", "zone"), {}, None, "a MIG with no zone: the provider's -a"),
    ("o04", _chain(_del("a3-mig", "zone"), _prov(zone="us-central1-b")), {SSZ: F}, None,
     "a MIG with no zone, the provider's -b, the Lustre in -a"),
    ("o05", _set("a3-mig", "zone", unknown), {SSZ: U_, SPEND: F}, None,
     "a MIG zone unknown at preview: storage cannot decide; spend cannot price"),
    # --- public exposure
    ("e01", _set("a3-tpl", "networkInterfaces.0.accessConfigs", [{}]), {NPI: F}, None,
     "an ephemeral external IPv4 on nic0"),
    ("e02", _chain(_set("a3-tpl", "networkInterfaces.0.stackType", "IPV4_IPV6"),
                   _set("a3-tpl", "networkInterfaces.0.ipv6AccessConfigs",
                        [{"networkTier": "PREMIUM"}])), {NPI: F}, None,
     "an external IPv6 access config on nic0"),
    ("e03", _fw(sourceRanges=["0.0.0.0/0"], allows=[{"protocol": "tcp", "ports": ["22"]}]), {},
     {NPI: {"sshCidrs": ["0.0.0.0/0"]}}, "world SSH listed in sshCidrs"),
    ("e04", _fw(sourceRanges=["0.0.0.0/0"], allows=[{"protocol": "tcp", "ports": ["8888"]}]),
     {NPI: F}, None, "Jupyter open to the world"),
    ("e05", _fw(sourceRanges=["::/0"], allows=[{"protocol": "tcp", "ports": ["443"]}]),
     {NPI: F}, None, "::/0 on 443"),
    ("e06", _fw(sourceRanges=["0.0.0.0/0"], denies=[{"protocol": "all"}], priority=100.0), {},
     None, "a deny from the world"),
    ("e07", _fw(sourceRanges=["0.0.0.0/0"], allows=[{"protocol": "tcp", "ports": ["80"]}],
                disabled=True), {}, None, "a disabled world rule"),
    ("e08", _fw_policy_rule(), {NPI: F}, None, "a network firewall policy rule allowing the world"),
    ("e09", _fw_policy_rule("deny"), {}, None, "the same rule denying"),
    ("e10", _lb(), {NPI: F}, None, "an EXTERNAL passthrough NLB to the GPU MIG"),
    ("e11", _lb("INTERNAL"), {}, None, "an INTERNAL NLB to the GPU MIG"),
    ("e12", _global_lb(), {NPI: F}, None, "an EXTERNAL_MANAGED HTTP LB to the GPU MIG"),
    ("e13", _chain(_vm(mtype="g2-standard-8"), _neg_lb()), {NPI: F}, None,
     "a zonal NEG endpoint on a g2 VM behind an external LB"),
    ("e14", _pic(), {NPI: F}, None, "a per-instance config preserving an external IP"),
    ("e15", _gke(G2_POOL, private=None), {NPI: F}, None, "a GKE cluster without private nodes"),
    ("e16", _gke({**G2_POOL, "networkConfig": [{"enablePrivateNodes": True}]}), {NPI: F}, None,
     "a pool's networkConfig as a list of one: named"),
    ("e17", _gke({**G2_POOL, "networkConfig": {"enablePrivateNodes": False}}), {NPI: F}, None,
     "a pool turning private nodes off inside a private cluster"),
    ("e18", _chain(_vm(mtype="g2-standard-8"), _add(lambda s: [
        res("gcp:compute/targetInstance:TargetInstance", "vm-ti",
            {"zone": "us-central1-a", "instance": "a3-vm"}, deps={"instance": [named(s, "a3-vm")]}),
    ]), _add(lambda s: res("gcp:compute/forwardingRule:ForwardingRule", "vm-fr", {
        "region": "us-central1", "target": "ti", "portRange": "8000",
        "loadBalancingScheme": "EXTERNAL"}, deps={"target": [named(s, "vm-ti")]}))),
     {NPI: F}, None, "protocol forwarding to a GPU VM through a target instance"),
    ("e19", _vm(name="bastion", mtype="e2-small",
                networkInterfaces=[{"network": "net", "subnetwork": "sub",
                                    "accessConfigs": [{}]}]), {NPI: F}, None,
     "a CPU bastion with an external IP: a node's public IP"),
    ("e20", _fw(sourceRanges=unknown, allows=[{"protocol": "tcp", "ports": ["8000"]}]),
     {NPI: U_}, None, "sourceRanges unknown at preview: cannot decide (advisory)"),
    ("e21", _fw(sourceRanges=["0.0.0.0/0"], targetTags=["bastion"],
                allows=[{"protocol": "tcp", "ports": ["22"]}]), {NPI: F}, None,
     "world SSH to tagged VMs, no sshCidrs"),
    ("e22", _fw(sourceRanges=["35.235.240.0/20"], allows=[{"protocol": "tcp", "ports": ["22"]}]),
     {}, None, "IAP range"),
    ("e23", _fw(direction="EGRESS", destinationRanges=["0.0.0.0/0"], allows=[{"protocol": "all"}]),
     {}, None, "egress to the world"),
    ("e24", _fw(allows=[{"protocol": "tcp", "ports": ["80"]}]), {NPI: F}, None,
     "an ingress allow with no source: 0.0.0.0/0"),
    ("e25", _fw(sourceRanges=["0.0.0.0/1", "128.0.0.0/1"], allows=[{"protocol": "tcp",
                                                                    "ports": ["443"]}]),
     {NPI: F}, None, "halves in one firewall"),
    # --- tags, encryption, retention
    ("t01", _set("a3-tpl", "labels", {"owner": "ravi", "team": "pretrain"}), {TAGS_P: F}, None,
     "the template lacks cost_center"),
    ("t02", _chain(_set("a3-tpl", "labels", {"owner": "ravi", "team": "pretrain"}),
                   _prov(defaultLabels={"cost_center": "7730"})), {}, None,
     "the provider's defaultLabels supply cost_center"),
    ("t03", _set("a3-lustre", "labels", {"owner": "ravi", "team": "pretrain",
                                         "cost-center": "7730"}), {}, None,
     "cost-center matched normalised"),
    ("t04", _set("a3-tpl", "labels", {**LABELS, "cost_center": ""}), {TAGS_P: F}, None,
     "a blank cost_center"),
    ("n01", _set("a3-lustre", "kmsKey", "lustre-key"), {ENC: F}, None, "a bare key name"),
    ("n02", _set("a3-lustre", "kmsKey", "projects/ml-team/locations/us-central1/keyRings/r/"
                                        "cryptoKeys/lustre"), {}, None, "a full key name"),
    ("n03", _set("a3-data", "encryption", {"defaultKmsKeyName": "bucket-key"}), {ENC: F}, None,
     "a bucket's bare key name"),
    ("x01", _set("a3-data", "forceDestroy", True), {RET: F}, None, "forceDestroy true"),
]
# z01: the Lustre in -b, mounted by the -a MIG.
CASES2[CASES2.index(next(c for c in CASES2 if c[0] == "z01"))] = (
    "z01", _set("a3-lustre", "location", "us-central1-b"), {SSZ: F}, None,
    "Lustre in -b mounted by the -a MIG")


@pytest.mark.parametrize("case", _params(CASES2), ids=[c[0] for c in CASES2])
def test_batch2(pack, case):
    _run_case(pack, case)


CFG = [  # (id, zones value, refused)
    ("g01", {"projects/host-net/regions/us-central1/subnetworks/gpu-sys": "us-central1-a"}, False),
    ("g02", {"subnet-x": "US-CENTRAL1-A"}, True),
    ("g03", {"subnet-x": "us-central1"}, True),
    ("g04", {"subnet-x": "projects/p/zones/us-central1-a"}, True),
]


@pytest.mark.parametrize("case", CFG, ids=[c[0] for c in CFG])
def test_zones_config(pack, case):
    """Docs: a `zones` value that is no zone name is refused by the schema (INVALID_ARGUMENT)."""
    import grpc
    cid, zones, refused = case
    config = pack.cli_config()
    config.setdefault(SSZ, {"enforcementLevel": "mandatory"}).update({"zones": zones})
    if not refused:
        pack.send_config(config)
        return
    with pytest.raises(grpc.RpcError) as err:
        pack.send_config(config)
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT, (cid, err.value.details())
    assert "zones" in err.value.details(), (cid, err.value.details())
