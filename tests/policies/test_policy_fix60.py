"""fix60: spend-limit variants the blind reviews 60 and 61 did not write, over gRPC as
`pulumi preview --policy-pack policies` drives the pack (tests/policy_harness.py).

Region unknown at preview (review60 DEFECT 1). docs/policies.md (spend-limit, Sizes): "a group no
known input places in a region, whose own `region`, provider's `region` ... or, on GCP, zone is
unknown, is GPU capacity that cannot be priced"; a group's own region or zone overrides its
provider's, and a known zone name places it (an AWS group's own zones or its stack subnets'; a
regional MIG's distribution zones); an AZ ID places nothing. The stacks are review60's realistic
clusters (AWS 12,032.21 USD under a 20,000 budget; GCP 25,164.51 under 30,000), one input changed.

GPU signs (review61 DEFECT 1 and 4). docs/policies.md (Coverage): a key ending in `InstanceType`,
`InstanceTypes` or `MachineType` is a type field, a key named `accelerator` an accelerator field,
and a GKE cluster whose node auto-provisioning has a `resourceLimits` entry other than cpu and
memory whose maximum is not 0 (or limits unknown) is GPU capacity the pack cannot estimate;
its value decides, so a CPU type there is no sign.
"""
from __future__ import annotations

from typing import Any

import pytest

from tests.policies.test_policy_review60 import (
    AWS_P,
    GCP_P,
    LABELS,
    SPEND,
    TAGS,
    U,
    aws,
    gcp,
    gcp_cron,
    named,
)
from tests.policy_fixtures import res
from tests.policy_harness import PolicyPackProcess, run, verdict

REGION_UNKNOWN = "its region is unknown until apply"


def spend(pack, stack: list, provider: dict) -> tuple[str, str]:
    found = run(pack, stack, None, provider)
    return verdict(found, SPEND), " ".join(d.message for d in found if d.policy == SPEND)


# ------------------------------------------------------------------ region unknown at preview

def _asg_region_unknown_zone_unknown(s):
    """The ASG's own region unknown, its stack subnet's zone unknown too: nothing places it."""
    named(s, "train-nodes").props["region"] = U()
    named(s, "train-a").props["availabilityZone"] = U()
    return s


def _asg_region_unknown_own_zone(s):
    """The ASG's own region unknown, placed by its own literal availabilityZones."""
    asg = named(s, "train-nodes")
    asg.props["region"] = U()
    asg.props.pop("vpcZoneIdentifiers")
    asg.deps.pop("vpcZoneIdentifiers")
    asg.props["availabilityZones"] = ["us-east-1a"]
    return s


def _asg_region_unknown_zone_id(s):
    named(s, "train-nodes").props["region"] = U()
    sub = named(s, "train-a")
    sub.props.pop("availabilityZone")
    sub.props["availabilityZoneId"] = "use1-az4"
    return s


def _instance(region: Any):
    def mutate(s):
        props = {"instanceType": "g6.12xlarge", "ami": "ami-0123456789abcdef0",
                 "metadataOptions": {"httpTokens": "required"}, "region": region}
        return s + [res("aws:ec2/instance:Instance", "notebook", props)]
    return mutate


def _mig_provider_zone_unknown(s):
    named(s, "train-mig").props.pop("zone")
    return s


def _from_template_zone_unknown(s):
    return s + [res("gcp:compute/instanceFromTemplate:InstanceFromTemplate", "eval-vm",
                    {"zone": U(), "sourceInstanceTemplate": U()},
                    deps={"sourceInstanceTemplate": [named(s, "train-tpl")],
                          "zone": [named(s, "train-subnet")]})]


def _rmig(zones: list, job_region: str = ""):
    """A named regional MIG of 1 a3-ultragpu-8g (86.7599 USD/h) whose own region is another
    resource's output; with job_region, a literal Cloud Scheduler job resizing
    regions/<job_region>/.../serve-rmig to 0 in 96 h (97 whole hours)."""
    def mutate(s):
        subnet = named(s, "train-subnet")
        props = {"name": "serve-rmig", "region": U(), "targetSize": 1.0,
                 "baseInstanceName": "serve", "versions": [{"instanceTemplate": U()}]}
        if zones:
            props["distributionPolicyZones"] = zones
        out = s + [res("gcp:compute/regionInstanceGroupManager:RegionInstanceGroupManager",
                       "serve-rmig", props,
                       deps={"versions": [named(s, "train-tpl")], "region": [subnet]})]
        if job_region:
            uri = (f"https://compute.googleapis.com/compute/v1/projects/ml/regions/{job_region}/"
                   "regionInstanceGroupManagers/serve-rmig/resize?size=0")
            out.append(res("gcp:cloudscheduler/job:Job", "serve-stop",
                           {"region": "us-west1", "schedule": gcp_cron(96), "timeZone": "Etc/UTC",
                            "httpTarget": {"uri": uri, "httpMethod": "POST",
                                           "oauthToken": {"serviceAccountEmail": U()}}},
                           deps={"httpTarget": [named(s, "scheduler-sa")]}))
        return out
    return mutate


GCP_ZONE_UNKNOWN = {"project": "ml", "region": "us-west1", "zone": U(), "defaultLabels": dict(LABELS)}

REGION_CASES = [
    ("r01", aws, {}, _asg_region_unknown_zone_unknown, AWS_P, "fail", REGION_UNKNOWN,
     "the ASG's own region unknown and its stack subnet's availabilityZone unknown: no known input "
     "places it; the provider's us-east-1 does not (its own region overrides it)"),
    ("r02", aws, {}, _asg_region_unknown_own_zone, AWS_P, "pass", "",
     "control: its own region unknown, its own availabilityZones us-east-1a place it in us-east-1: "
     "2 x 55.04 x 96 = 10,567.68 + 1,354.13 + 110.40 = 12,032.21 < 20,000"),
    ("r03", aws, {}, _instance(U()), AWS_P, "fail", REGION_UNKNOWN,
     "an EC2 g6.12xlarge whose own region is unknown, naming no subnet or zone"),
    ("r04", aws, {}, _asg_region_unknown_zone_id, AWS_P, "fail", REGION_UNKNOWN,
     "the ASG's own region unknown, its stack subnet named only by its AZ ID use1-az4: an AZ ID "
     "places nothing (the pack compares AZ IDs with AZ IDs only)"),
    ("r05", aws, {}, _instance("us-east-1"), AWS_P, "pass", "",
     "control: the instance's own region literal: 4.6016 x 730 = 3,359.17 + 12,032.21 = 15,391.38 "
     "< 20,000"),
    ("r06", gcp, {}, _mig_provider_zone_unknown, GCP_ZONE_UNKNOWN, "fail", REGION_UNKNOWN,
     "the MIG names no zone, the provider's zone (its default) is unknown, the provider's region "
     "us-west1 known: the zone chooses the region, so the group cannot be priced"),
    ("r07", gcp, {}, _from_template_zone_unknown, GCP_P, "fail", REGION_UNKNOWN,
     "an InstanceFromTemplate of the a3-ultragpu-8g template whose zone is unknown"),
    ("r08", gcp, {"budget": "1000000"}, _rmig([]), GCP_P, "fail", REGION_UNKNOWN,
     "a regional MIG whose own region is unknown and that names no distribution zone: under a "
     "budget of 1,000,000 (priced at us-west1 it would be 88,499.24) it fails as unpriceable"),
    ("r09", gcp, {"budget": "50000"}, _rmig(["us-west1-c"], "us-west1"), GCP_P, "pass", "",
     "its region unknown, distribution zone us-west1-c places it in us-west1, and the literal job "
     "on regions/us-west1/.../serve-rmig stops it: 86.7599 x 97 = 8,415.71 + 25,164.51 = "
     "33,580.22 < 50,000"),
    ("r10", gcp, {"budget": "50000"}, _rmig(["us-west1-c"], "asia-northeast1"), GCP_P, "fail",
     "exceeds",
     "the same job naming regions/asia-northeast1: another group's stop, not this one's (the "
     "region its zone places it in is us-west1): the month, 63,334.73 + 25,164.51 = 88,499.24 > "
     "50,000"),
]


@pytest.mark.parametrize("case", REGION_CASES, ids=[c[0] for c in REGION_CASES])
def test_region_unknown(pack, case):
    cid, build, kwargs, mutate, provider, want, text, _why = case
    got, message = spend(pack, mutate(build(**kwargs)), provider)
    assert got == want, (cid, message[:1500])
    assert text in message, (cid, message[:1500])


# ------------------------------------------------------------------------------------ GPU signs

def _gke(auto: Any, keep_default_pool: bool = False):
    def mutate(s):
        props = {"location": "us-west1-c", "initialNodeCount": 1.0,
                 "removeDefaultNodePool": not keep_default_pool, "network": "train",
                 "resourceLabels": dict(LABELS), "clusterAutoscaling": auto,
                 "privateClusterConfig": {"enablePrivateNodes": True,
                                          "masterIpv4CidrBlock": "172.16.0.0/28"}}
        if keep_default_pool:
            props["nodeConfig"] = {"machineType": "e2-standard-4", "resourceLabels": dict(LABELS)}
        return s + [res("gcp:container/cluster:Cluster", "gke", props)]
    return mutate


CPU_MEM = [{"resourceType": "cpu", "maximum": 1000.0}, {"resourceType": "memory", "maximum": 8000.0}]
H100 = {"resourceType": "nvidia-h100-80gb", "maximum": 64.0}


def _gamelift(itype: str):
    def mutate(s):
        return s + [res("aws:gamelift/fleet:Fleet", "game", {
            "buildId": "build-1", "ec2InstanceType": itype, "name": "game",
            "runtimeConfiguration": {"serverProcesses": [{"concurrentExecutions": 1.0,
                                                           "launchPath": "/local/game/server"}]},
            "tags": dict(TAGS)})]
    return mutate


def _run_v1(selector: dict):
    def mutate(s):
        return s + [res("gcp:cloudrun/service:Service", "infer-v1", {
            "location": "us-west1", "template": {"spec": {
                "nodeSelector": selector,
                "containers": [{"image": "us-docker.pkg.dev/x/y"}]}}})]
    return mutate


def _run_v2(accelerator: Any):
    def mutate(s):
        return s + [res("gcp:cloudrunv2/service:Service", "infer-run", {
            "location": "us-west1", "labels": dict(LABELS), "template": {
                "scaling": {"maxInstanceCount": 10.0}, "nodeSelector": {"accelerator": accelerator},
                "containers": [{"image": "us-docker.pkg.dev/x/y"}]}})]
    return mutate


SIGN_CASES = [
    ("s01", aws, _gamelift("c5.large"), AWS_P, "pass", "",
     "a GameLift fleet on c5.large (no GPU): the type field is judged by its value, no false alarm"),
    ("s02", aws, _gamelift("g6.xlarge"), AWS_P, "fail", "ec2InstanceType=g6.xlarge",
     "a GameLift fleet on g6.xlarge (an L4 type): a GPU type in a key ending in InstanceType"),
    ("s03", gcp, _run_v2(U()), GCP_P, "fail", "accelerator=",
     "a Cloud Run v2 service whose nodeSelector.accelerator is unknown at preview: may be a GPU"),
    ("s04", gcp, _run_v2(""), GCP_P, "pass", "",
     "control: a Cloud Run v2 service whose accelerator is empty: no GPU"),
    ("s05", gcp, _run_v1({"run.googleapis.com/accelerator": "nvidia-l4"}), GCP_P, "fail",
     "run.googleapis.com/accelerator=nvidia-l4",
     "a Cloud Run v1 service with an L4 (nodeSelector run.googleapis.com/accelerator)"),
    ("n01", gcp, _gke({"enabled": True, "resourceLimits": CPU_MEM + [H100]}, keep_default_pool=True),
     GCP_P, "fail", "resourceLimits",
     "auto-provisioning of up to 64 H100s on a cluster that keeps its (CPU) default pool, which the "
     "pack sizes: the cluster is still named for the GPUs GKE may create"),
    ("n02", gcp, _gke({"enabled": False, "resourceLimits": CPU_MEM + [H100]}), GCP_P, "pass", "",
     "control: auto-provisioning disabled: its limits create no node"),
    ("n03", gcp, _gke({"enabled": True, "resourceLimits": CPU_MEM + [
        {"resourceType": "nvidia-l4", "maximum": 0.0}]}), GCP_P, "pass", "",
     "control: an L4 limit of maximum 0: no GPU node can be created"),
    ("n04", gcp, _gke({"enabled": True, "resourceLimits": U()}), GCP_P, "fail", "resourceLimits",
     "the limits unknown at preview: they may hold a GPU type"),
    ("n05", gcp, _gke({"enabled": True, "resourceLimits": H100}), GCP_P, "fail",
     "nvidia-h100-80gb", "the limits written as one object (a list of one): the H100 entry"),
]


@pytest.mark.parametrize("case", SIGN_CASES, ids=[c[0] for c in SIGN_CASES])
def test_gpu_signs(pack, case):
    cid, build, mutate, provider, want, text, _why = case
    got, message = spend(pack, mutate(build()), provider)
    assert got == want, (cid, message[:1500])
    assert text in message, (cid, message[:1500])


# ------------------------------------------------------------- a stop job of an unknown zone

@pytest.mark.parametrize("zone, want", [("us-west1-c", "stop"), (None, "")],
                         ids=["zone-known", "zone-unknown"])
def test_literal_stop_job_needs_the_groups_zone(zone, want):
    """The stop a Cloud Scheduler job's literal URL (zones/us-west1-c/.../train-mig) gives the
    zonal MIG train-mig: its own when the MIG's zone is us-west1-c; none when the MIG's zone is
    another resource's output (it may be any zone; the URL may name another group). Read
    directly: spend-limit cannot show it, as such a group fails closed on its region anyway."""
    from trainstack_policies.inventory.lifetimes import _job_effect
    s = gcp()
    mig, job = named(s, "train-mig"), named(s, "train-stop")
    mig.props["zone"] = zone if zone else U()
    mig.props["project"] = "ml"   # over gRPC the provider's project; a bare Resource has none
    assert _job_effect(mig, job) == want
