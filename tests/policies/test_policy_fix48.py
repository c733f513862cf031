"""Issue 35, helper fix48: the classes of review48's four defects (s05, s14, c01/x09,
w06/w07/x01/x02), over gRPC as `pulumi preview` drives the pack (tests/policy_harness.py). Each
case states every policy's verdict (review48's `check`: those not named pass); expectations were
worked by hand from the pack's promise (docs/policies.md), the providers' public docs and the
catalog's rows, and committed before the code.

GCP fixture (tests/policy_fixtures.py gcp_cluster, review48's docstring): 2 x a3-ultragpu-8g
86.7599 USD/h (us-west1) x H started hours + Lustre 36,000 GiB x 0.21 = 7,560 + its bucket at
the Lustre's 36,000 GiB (38,654.71 GB) 773.09: H = 49: 16,835.56; H = 25: 12,671.09; the month
(730 h): 126,669.45 + 8,333.09 = 135,002.54.

1. The Compute API host. A Cloud Scheduler job stops a group when it POSTs the Compute API's
   instanceGroupManagers.resize (regionInstanceGroupManagers.resize) with size=0. Google
   documents the method at https://compute.googleapis.com/compute/v1/projects/{project}/zones/
   {zone}/instanceGroupManagers/{resourceId}/resize (cloud.google.com/compute/docs/reference/
   rest/v1/instanceGroupManagers/resize), and the API returns each resource's `selfLink` on its
   older root, https://www.googleapis.com/compute/v1/projects/... (the InstanceGroupManager
   resource's selfLink, cloud.google.com/compute/docs/reference/rest/v1/instanceGroupManagers;
   the Terraform/Pulumi provider's self_link output), which serves the same API. Both hosts
   are the Compute API; no other host is (another Google API, a look-alike domain). A host is
   compared without regard to case (RFC 3986 3.2.2).
2. The project. The URL's `projects/<p>` is compared with the group's project: its own
   `project` input, else the gcp provider's `project` (as budgets are matched to groups). A
   project the pack cannot read (unknown at preview, or given nowhere in the program: the
   provider then takes it from the environment, GOOGLE_PROJECT or the gcloud config, which a
   policy does not see) is treated as the group's name is: only a URL that depends on the
   group (an Output of it) names it; a literal URL is not read as its stop, and the month is
   priced (never shorter than the truth).
3. Classic Azure scale sets: pulumi-azure / azurerm LinuxVirtualMachineScaleSet and
   WindowsVirtualMachineScaleSet `singlePlacementGroup`: "Should this Virtual Machine Scale Set
   be limited to a Single Placement Group, which means the number of instances will be capped
   at 100 Virtual Machines. Defaults to `true`." Left out: placed. The Orchestrated (Flexible)
   set documents no default ("the service will determine what this value should be based off
   of the value contained within the sku_name field", azurerm
   orchestrated_virtual_machine_scale_set): left out, not placed. Prices (eastus):
   Standard_ND96isr_H100_v5 98.32 USD/h.
4. A bucket without the `trainstack:data-mb` tag is bounded by its own cloud's filesystems (a
   cloud's bucket does not hold another cloud's filesystem export).
"""
from __future__ import annotations

from tests.policies.test_policy_review48 import (
    ALI, AWS, AZ, GCP, RDMA, SPEND, TAGS, UNKNOWN, _regional, az_budget, check, classic_vmss,
    drop, gcp_no_stop, job, named_mig, on, zonal_uri,
)
from tests.policy_fixtures import (
    OWNER_LABELS, aws_cluster, by_name, cron_at, gcp_cluster, res,
)

LABELS = dict(OWNER_LABELS)

# ------------------------------------------------------------------ 1. the Compute API host


def test_h1_www_host_literal_url_naming_the_groups_own_name(pack):
    """The MIG named "train-z"; a literal URL on www.googleapis.com (no dependency), resize to
    0 at 48 h: the Compute API on its selfLink host: 49 h: 16,835.56 < 20,000: spend pass."""
    stack = gcp_no_stop("20000")
    named_mig(stack)
    uri = zonal_uri("train-z", host="www.googleapis.com")
    check(pack, stack + [job("train-z-stop", uri, cron_at(48))], GCP, {})


def test_h2_www_host_regional_url(pack):
    """The regional group "train-r" and .../regions/us-west1/regionInstanceGroupManagers/
    train-r/resize?size=0 on www.googleapis.com at 48 h: 16,835.56 < 20,000: spend pass."""
    stack = drop(gcp_no_stop("20000"), "nodes")
    mig = _regional(stack)
    uri = ("https://www.googleapis.com/compute/v1/projects/ml-prod/regions/us-west1/"
           "regionInstanceGroupManagers/train-r/resize?size=0")
    check(pack, stack + [mig, job("train-r-stop", uri, cron_at(48))], GCP, {})


def test_h3_www_host_in_upper_case(pack):
    """h1 with the host written WWW.GoogleAPIs.com: a host is case-insensitive: spend pass."""
    stack = gcp_no_stop("20000")
    named_mig(stack)
    uri = zonal_uri("train-z", host="WWW.GoogleAPIs.com")
    check(pack, stack + [job("train-z-stop", uri, cron_at(48))], GCP, {})


def test_h4_another_google_api_host_is_no_stop(pack):
    """The compute path on storage.googleapis.com (the Cloud Storage API, not Compute), an
    Output of the group: it does not resize the group; a call on the group the pack cannot
    read may start it: the month: 135,002.54 > 20,000: spend fail."""
    stack = gcp_no_stop("20000")
    mig = by_name(stack, "nodes")
    uri = zonal_uri("nodes-8f3e2d1", host="storage.googleapis.com")
    check(pack, stack + [job("nodes-stop", uri, cron_at(48), target=mig)], GCP,
          {SPEND: "fail"})


def test_h5_look_alike_host_is_no_stop(pack):
    """A literal URL on www.googleapis.com.example.net (not Google's): no stop: the month:
    spend fail."""
    stack = gcp_no_stop("20000")
    named_mig(stack)
    uri = zonal_uri("train-z", host="www.googleapis.com.example.net")
    check(pack, stack + [job("train-z-stop", uri, cron_at(48))], GCP, {SPEND: "fail"})


def test_h6_bare_googleapis_host_is_no_stop(pack):
    """A literal URL on googleapis.com (no service host): no stop: spend fail."""
    stack = gcp_no_stop("20000")
    named_mig(stack)
    uri = zonal_uri("train-z", host="googleapis.com")
    check(pack, stack + [job("train-z-stop", uri, cron_at(48))], GCP, {SPEND: "fail"})


# ------------------------------------------------------------------------- 2. the project

def test_p1_group_in_its_own_project_stopped_by_a_url_naming_it(pack):
    """The MIG "train-z" sets project ml-staging (the provider's is ml-prod); the literal URL
    resizes projects/ml-staging/.../train-z at 48 h: the group's own project: 16,835.56 <
    20,000: spend pass (the budget has no project filter: it takes in the group)."""
    stack = gcp_no_stop("20000")
    mig = named_mig(stack)
    mig.props["project"] = "ml-staging"
    uri = zonal_uri("train-z", project="ml-staging")
    check(pack, stack + [job("train-z-stop", uri, cron_at(48))], GCP, {})


def test_p2_group_in_its_own_project_url_naming_the_providers(pack):
    """p1 with the URL on projects/ml-prod (the provider's project, not the group's own): a
    group train-z in ml-prod, not ours: the month: spend fail."""
    stack = gcp_no_stop("20000")
    mig = named_mig(stack)
    mig.props["project"] = "ml-staging"
    check(pack, stack + [job("train-z-stop", zonal_uri("train-z"), cron_at(48))], GCP,
          {SPEND: "fail"})


def test_p3_url_depending_on_the_group_names_another_project(pack):
    """The auto-named group in ml-prod (provider); the job's URL is an Output of the group but
    names projects/ml-staging: another project's group is resized: the month: spend fail."""
    stack = gcp_no_stop("20000")
    mig = by_name(stack, "nodes")
    uri = zonal_uri("nodes-8f3e2d1", project="ml-staging")
    check(pack, stack + [job("nodes-stop", uri, cron_at(48), target=mig)], GCP,
          {SPEND: "fail"})


def test_p4_project_given_nowhere_literal_url(pack):
    """Neither the group nor the provider names a project (the environment supplies it); the
    literal URL names projects/ml-prod/.../train-z: the pack cannot tell that it is the
    group's project: not read as its stop: the month: spend fail."""
    stack = gcp_no_stop("20000")
    named_mig(stack)
    check(pack, stack + [job("train-z-stop", zonal_uri("train-z"), cron_at(48))],
          {"region": "us-west1"}, {SPEND: "fail"})


def test_p5_project_given_nowhere_url_of_the_group(pack):
    """p4 with the URL an Output of the (auto-named) group: built from the group, it names the
    group's project: 16,835.56 < 20,000: spend pass."""
    stack = gcp_no_stop("20000")
    mig = by_name(stack, "nodes")
    check(pack, stack + [job("nodes-stop", zonal_uri("nodes-8f3e2d1"), cron_at(48),
                             target=mig)], {"region": "us-west1"}, {})


def test_p6_group_project_unknown_at_preview_literal_url(pack):
    """The group's project input is an Output unknown at preview; the literal URL names
    projects/ml-prod/.../train-z: cannot be compared: not read as its stop: the month: spend
    fail."""
    stack = gcp_no_stop("20000")
    mig = named_mig(stack)
    mig.props["project"] = UNKNOWN
    check(pack, stack + [job("train-z-stop", zonal_uri("train-z"), cron_at(48))], GCP,
          {SPEND: "fail"})


def test_p7_project_read_from_the_full_resource_path(pack):
    """The group's project input written as projects/ml-staging (a resource path, read by
    its last segment as the zone is); the URL names ml-staging: spend pass."""
    stack = gcp_no_stop("20000")
    mig = named_mig(stack)
    mig.props["project"] = "projects/ml-staging"
    uri = zonal_uri("train-z", project="ml-staging")
    check(pack, stack + [job("train-z-stop", uri, cron_at(48))], GCP, {})


# ------------------------------------------------- 3. classic Azure singlePlacementGroup default

def _windows_vmss(name, instances, **props):
    return res("azure:compute/windowsVirtualMachineScaleSet:WindowsVirtualMachineScaleSet",
               name, {"resourceGroupName": "ml", "location": "eastus",
                      "sku": "Standard_ND96isr_H100_v5", "instances": float(instances),
                      "zones": ["1"], "adminUsername": "azureuser",
                      "adminPassword": "not-a-secret-1!",
                      "networkInterfaces": [{"name": "nic", "primary": True,
                                             "ipConfigurations": [{"name": "ip",
                                                                   "primary": True}]}],
                      "tags": dict(TAGS), **props})


def _orchestrated(name, **props):
    return res("azure:compute/orchestratedVirtualMachineScaleSet:"
               "OrchestratedVirtualMachineScaleSet", name, {
                   "resourceGroupName": "ml", "location": "eastus",
                   "skuName": "Standard_ND96isr_H100_v5", "instances": 2.0,
                   "platformFaultDomainCount": 1.0, "zones": ["1"], "tags": dict(TAGS),
                   **props})


def test_a1_windows_set_single_placement_group_false(pack):
    """A classic Windows set of 2 x ND96isr_H100_v5 with singlePlacementGroup false: not
    placed: RDMA advisory. 143,547.20 < 200,000: spend pass."""
    check(pack, [_windows_vmss("train-win", 2, singlePlacementGroup=False),
                 az_budget(amount=200000.0)], AZ, {RDMA: "advisory"})


def test_a2_linux_set_of_three_left_out(pack):
    """A classic Linux set of 3 x ND96isr_H100_v5, singlePlacementGroup left out (default
    true): placed: RDMA pass. 3 x 98.32 x 730 = 215,320.80 < 250,000: spend pass."""
    check(pack, [classic_vmss("train", "Standard_ND96isr_H100_v5", 3),
                 az_budget(amount=250000.0)], AZ, {})


def test_a3_windows_set_single_placement_group_true(pack):
    """The Windows set with singlePlacementGroup true: placed: RDMA pass; spend pass."""
    check(pack, [_windows_vmss("train-win", 2, singlePlacementGroup=True),
                 az_budget(amount=200000.0)], AZ, {})


def test_a4_orchestrated_set_single_placement_group_true(pack):
    """An Orchestrated (Flexible) set of 2 x ND96isr_H100_v5 with singlePlacementGroup true:
    placed: RDMA pass; 143,547.20 < 200,000: spend pass."""
    check(pack, [_orchestrated("train-flex", singlePlacementGroup=True),
                 az_budget(amount=200000.0)], AZ, {})


def test_a5_orchestrated_set_left_out_stays_not_placed(pack):
    """The Orchestrated set without singlePlacementGroup (no documented default; the service
    picks it from the SKU): not placed: RDMA advisory; spend pass."""
    check(pack, [_orchestrated("train-flex"), az_budget(amount=200000.0)], AZ,
          {RDMA: "advisory"})


# --------------------------------------------------- 4. a bucket bounded by its cloud's filesystems

def _amlfs():
    return res("azure-native:storagecache:AmlFilesystem", "az-scratch", {
        "location": "eastus", "zones": ["1"], "storageCapacityTiB": 8.0,
        "sku": {"name": "AMLFS-Durable-Premium-250"}, "filesystemSubnet": "subnet-id",
        "tags": dict(TAGS)})


def test_b1_aws_bucket_beside_an_azure_amlfs(pack):
    """The AWS fixture stopped at 24 h under 4,300 (2,641.92 + FSx 1,453.98 + its bucket at the
    FSx's 4,800 GiB = 5,153.96 GB x 0.023 = 118.54: 4,214.44) and an Azure AMLFS of 8 TiB alone
    (no Azure compute, no Azure budget): the AWS share stays 4,214.44 < 4,300: spend pass (the
    bucket at 4,800 + 8,192 GiB = 13,950.08 GB: 320.85, 4,416.75, over)."""
    stack = on(aws_cluster(budget_usd="4300.00", max_hours="24"), AWS) + on([_amlfs()], AZ)
    check(pack, stack, None, {})


def test_b2_own_filesystem_still_bounds_the_bucket(pack):
    """The GCP fixture, job at 24 h (25 h), under 12,600, beside an Alibaba CPFS of 3,600 GiB:
    its bucket is still sized by its own Lustre: 4,338.00 + 7,560 + 773.09 = 12,671.09 >
    12,600: spend fail (the bucket left unpriced: 11,898.00, a pass)."""
    cpfs = res("alicloud:nas/fileSystem:FileSystem", "ali-scratch", {
        "fileSystemType": "cpfs", "protocolType": "cpfs", "storageType": "advance_200",
        "capacity": 3600.0, "zoneId": "eu-central-1a", "tags": dict(TAGS)})
    stack = on(gcp_cluster(budget_units="12600", max_hours="24"), GCP) + on([cpfs], ALI)
    check(pack, stack, None, {SPEND: "fail"})


def test_b3_two_own_filesystems_bound_the_bucket_together(pack):
    """The GCP fixture (job at 24 h, 25 h) with a second Lustre of 36,000 GiB in its zone, and
    an Azure AMLFS alone beside it; GCP budget 20,900.
    GCP share: 4,338.00 + 2 x 7,560 + its bucket at both Lustres' 72,000 GiB (77,309.42 GB x
    0.02 = 1,546.19) = 21,004.19 > 20,900: spend fail (the bucket at one Lustre: 20,231.09, a
    pass)."""
    second = res("gcp:lustre/instance:Instance", "fs-2", {
        "location": "us-west1-c", "capacityGib": "36000", "perUnitStorageThroughput": "250",
        "labels": dict(LABELS)})
    stack = on(gcp_cluster(budget_units="20900", max_hours="24") + [second], GCP) + on(
        [_amlfs()], AZ)
    check(pack, stack, None, {SPEND: "fail"})


def test_b4_tagged_bucket_keeps_its_tag_in_a_multi_cloud_stack(pack):
    """The AWS fixture stopped at 24 h with its bucket tagged trainstack:data-mb 1,000,000 (1,000
    GB x 0.023 = 23.00) beside a GCP Lustre alone, AWS budget 4,150: 2,641.92 + 1,453.98 +
    23.00 = 4,118.90 < 4,150: spend pass (at the FSx's size, 4,214.44: over)."""
    lustre = res("gcp:lustre/instance:Instance", "gcp-scratch", {
        "location": "us-west1-c", "capacityGib": "36000", "perUnitStorageThroughput": "250",
        "network": "default", "labels": dict(LABELS)})
    aws = aws_cluster(budget_usd="4150.00", max_hours="24")
    bucket = next(r for r in aws if r.type.startswith("aws:s3"))
    bucket.props.setdefault("tags", {})["trainstack:data-mb"] = "1000000"
    stack = on(aws, AWS) + on([lustre], GCP)
    check(pack, stack, None, {})


def test_p8_project_given_nowhere_literal_start_still_counts(pack):
    """(Written after the code.) p5's stop, an Output of the group named "train-z", at 48 h, and
    a second job whose literal URL resizes projects/ml-prod/.../train-z to 2 daily: the
    project cannot be compared, so the literal call may be on our group and may start it
    after the stop: no lifetime: the month: spend fail."""
    stack = gcp_no_stop("20000")
    mig = named_mig(stack)
    check(pack, stack + [job("train-z-stop", zonal_uri("train-z"), cron_at(48), target=mig),
                         job("train-z-up", zonal_uri("train-z", size=2), "0 8 * * *")],
          {"region": "us-west1"}, {SPEND: "fail"})
