"""fix80: two gaps found by blind reviewers, each with cases written before the fix (expected
verdicts by hand from docs/policies.md, the providers' docs and the catalog CSVs).

GAP 1 (no-public-ingress, GCP notebooks): a Vertex AI Workbench instance
  (`gcp:workbench/instance:Instance`) gets an external IP unless `gceSetup.disablePublicIp` is
  true: Notebooks API v2 GceSetup.disablePublicIp "If true, no external IP will be assigned to
  this VM instance" (optional, so false when left out), and pulumi-gcp workbench.Instance
  gce_setup.network_interfaces.access_configs: "If no accessConfigs specified, the instance will
  have an external internet access through an ephemeral external IP address". The older
  user-managed notebook (`gcp:notebooks/instance:Instance`: noPublicIp, "If true, no public IP
  will be assigned to this instance") and managed runtime (`gcp:notebooks/runtime:Runtime`:
  virtualMachine.virtualMachineConfig.internalIpOnly, "By default, runtimes are not restricted
  to internal IP addresses, and will have ephemeral external IP addresses assigned to each
  vm") likewise. spend-limit already names each as GPU capacity by its GPU sign; a GPU notebook
  with a public IP was judged by nothing. Judged as a GPU VM with an access config: a violation
  unless the flag says no public IP; a flag unknown at preview: "cannot decide".
GAP 2 (spend-limit, budgets): a budget period date that does not read (text that is no date,
  fullwidth digits, a month 13, a list, a date missing its day) was read as "no end" (or "no
  start"), so the budget counted as the stack's cap. docs/policies.md: "a budget that cannot be
  read is not 'no cap'", every value the pack cannot read is a violation naming it.

Figures (components/catalog/prices.csv, a month is 730 h): gcp us-central1 g2-standard-8
0.853624 USD/h = 623.15 a month; aws us-east-1 g5.xlarge 1.006 = 734.38; azure eastus
Standard_NC4as_T4_v3 0.526 = 383.98.
"""
from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

import pytest

from tests.policies.test_policy_review49 import (
    AWS, AZ, GCP_C, LABELS, NPI, POLICIES, SPEND, T4, aws_box, aws_budget, az_budget, az_nic,
    az_vm, gcp_budget, gcp_vm, subnet,
)
from tests.policy_fixtures import res
from tests.policy_harness import run
from tests.policy_harness import verdict as _verdict


def unknown() -> Any:
    from trainstack_policies.model import UNKNOWN
    return UNKNOWN


def check(pack, stack, provider, expected, words=()):
    """Every policy's verdict as `expected` ("pass" where not named); `words`: (policy, text)
    each of which one of that policy's findings must hold."""
    found = run(pack, stack, None, provider=provider)
    got = {p: _verdict(found, p) for p in POLICIES}
    want = {p: expected.get(p, "pass") for p in POLICIES}
    shown = " | ".join(f"{d.policy}[{d.level}]: {d.message}" for d in found)
    assert got == want, (got, shown)
    for policy, text in words:
        assert any(d.policy == policy and text in d.message for d in found), (policy, text, shown)


# ------------------------------------------------------------------------------------- GAP 1
WB = "gcp:workbench/instance:Instance"
A100 = [{"type": "NVIDIA_TESLA_A100", "coreCount": "1"}]
T4_GCP = [{"type": "NVIDIA_TESLA_T4", "coreCount": "1"}]


def workbench(setup: Any = None, **props):
    given = {"location": "us-central1-a", "labels": dict(LABELS), **props}
    if setup is not None:
        given["gceSetup"] = setup
    return res(WB, "nb", given)


def notebook(**props):
    return res("gcp:notebooks/instance:Instance", "old-nb", {
        "location": "us-central1-a", "labels": dict(LABELS),
        "vmImage": {"project": "deeplearning-platform-release", "imageFamily": "pytorch-latest-gpu"},
        **props})


def runtime(vm_config: dict):
    return res("gcp:notebooks/runtime:Runtime", "rt", {
        "location": "us-central1", "labels": dict(LABELS),
        "virtualMachine": {"virtualMachineConfig": {
            "dataDisk": {"initializeParams": {"diskSizeGb": 100.0}}, **vm_config}}})


GPU_NB = {SPEND: "fail"}           # a GPU sign of a type the pack does not size: spend fails
GPU_PUBLIC = {SPEND: "fail", NPI: "fail"}
NOTEBOOKS = [
    ("w01", workbench({"machineType": "a2-highgpu-1g", "acceleratorConfigs": A100}), GPU_PUBLIC,
     "a2-highgpu-1g with an A100, disablePublicIp left out (false): an external IP"),
    ("w02", workbench({"machineType": "a2-highgpu-1g", "acceleratorConfigs": A100,
                       "disablePublicIp": True}), GPU_NB,
     "w01 with disablePublicIp true: no external IP"),
    ("w03", workbench({"machineType": "g2-standard-8", "disablePublicIp": False}), GPU_PUBLIC,
     "a G2 machine (an L4 built in, no acceleratorConfigs), disablePublicIp false"),
    ("w04", workbench({"machineType": "n1-standard-8", "acceleratorConfigs": T4_GCP}),
     GPU_PUBLIC, "an N1 with a T4 in acceleratorConfigs (coreCount as text), flag left out"),
    ("w05", workbench({"machineType": "n1-standard-4"}), {},
     "a CPU notebook (no accelerators, an N1 machine): not GPU compute, not judged"),
    ("w06", workbench(), {},
     "no gceSetup at all: Workbench's default n1-standard-4 (gcloud), no GPU: not judged"),
    ("w07", workbench({"machineType": "a2-highgpu-1g", "acceleratorConfigs": A100,
                       "disablePublicIp": unknown()}), {SPEND: "fail", NPI: "undecided"},
     "the flag unknown at preview: cannot decide"),
    ("w08", workbench({"machineType": "n1-standard-4", "disablePublicIp": unknown()}), {},
     "a CPU notebook whose flag is unknown: not GPU compute, nothing to decide"),
    ("w09", workbench({"machineType": unknown()}), {SPEND: "fail", NPI: "undecided"},
     "a machine type unknown at preview, no accelerators, flag left out: it may be a GPU "
     "machine with a public IP (fix82: spend fails closed, as for a VM whose type is unknown)"),
    ("w10", workbench({"machineType": "n1-standard-8",
                       "acceleratorConfigs": [{"type": "NVIDIA_TESLA_T4", "coreCount": "0"}]}),
     {}, "an accelerator entry of count 0 declares none (docs: {count: 0} declaring none)"),
    ("w11", workbench({"machineType": "a2-highgpu-1g", "acceleratorConfigs": A100,
                       "disablePublicIp": "yes"}), GPU_PUBLIC,
     "a flag that is no boolean ('yes'): cannot be read, so no proof of no public IP"),
    ("w12", workbench([{"machineType": "a2-highgpu-1g", "disablePublicIp": True}]), GPU_PUBLIC,
     "gceSetup written as a list of one: neither absent nor its one item (a violation naming "
     "it); spend finds the a2 type inside it"),
    ("w13", workbench({"machineType": "g2-standard-8", "disablePublicIp": True,
                       "networkInterfaces": [{"network": "default"}]}), GPU_NB,
     "a G2 notebook with disablePublicIp true: pass"),
    ("w14", workbench({"machineType": "n1-standard-8", "acceleratorConfigs": unknown()}),
     {SPEND: "fail", NPI: "undecided"},
     "accelerators unknown at preview (spend: a sign, failing closed), flag left out: whether "
     "a GPU notebook gets a public IP is known only after apply"),
    ("w15", workbench(unknown()), {SPEND: "fail", NPI: "undecided"},
     "the whole gceSetup unknown at preview: machine and flag unknown"),
    ("n01", notebook(machineType="n1-standard-4", acceleratorConfig={
        "type": "NVIDIA_TESLA_T4", "coreCount": 1.0}), GPU_PUBLIC,
     "a user-managed notebook with a T4, noPublicIp left out (false)"),
    ("n02", notebook(machineType="n1-standard-4", noPublicIp=True, acceleratorConfig={
        "type": "NVIDIA_TESLA_T4", "coreCount": 1.0}), GPU_NB, "n01 with noPublicIp true"),
    ("n03", notebook(machineType="n1-standard-4"), {}, "a CPU user-managed notebook"),
    ("n04", notebook(machineType="a2-highgpu-1g", noPublicIp=unknown()),
     {SPEND: "fail", NPI: "undecided"}, "an A2 notebook whose noPublicIp is unknown"),
    ("r01", runtime({"machineType": "n1-standard-4", "acceleratorConfig": {
        "type": "NVIDIA_TESLA_V100", "coreCount": 1.0}}), GPU_PUBLIC,
     "a managed runtime with a V100, internalIpOnly left out: ephemeral external IPs"),
    ("r02", runtime({"machineType": "n1-standard-4", "internalIpOnly": True,
                     "acceleratorConfig": {"type": "NVIDIA_TESLA_V100", "coreCount": 1.0}}),
     GPU_NB, "r01 with internalIpOnly true"),
    ("r03", runtime({"machineType": "n1-standard-4"}), {}, "a CPU runtime"),
    ("r04", runtime({"machineType": "g2-standard-8", "internalIpOnly": unknown()}),
     {SPEND: "fail", NPI: "undecided"}, "a G2 runtime whose internalIpOnly is unknown"),
]


@pytest.mark.parametrize("case", NOTEBOOKS, ids=[c[0] for c in NOTEBOOKS])
def test_gap1_gpu_notebooks_public_ip(pack, case):
    _, nb, expected, _why = case
    check(pack, [nb, gcp_budget(units="90000")], GCP_C, expected,
          [(NPI, nb.name)] if expected.get(NPI) == "fail" else [])


def test_gap1_the_finding_names_the_flag(pack):
    check(pack, [workbench({"machineType": "a2-highgpu-1g", "acceleratorConfigs": A100}),
                 gcp_budget(units="90000")], GCP_C, GPU_PUBLIC, [(NPI, "disablePublicIp")])
    check(pack, [workbench({"machineType": "a2-highgpu-1g", "disablePublicIp": "yes"}),
                 gcp_budget(units="90000")], GCP_C, GPU_PUBLIC, [(NPI, "'yes'")])
    check(pack, [workbench([{"machineType": "a2-highgpu-1g", "disablePublicIp": True}]),
                 gcp_budget(units="90000")], GCP_C, GPU_PUBLIC, [(NPI, "gceSetup [{")])


def test_gap1_gpu_machine_beside_unknown_accelerators(pack):
    """An a2-highgpu-1g (a GPU machine, catalog) whose acceleratorConfigs are unknown at
    preview, the flag left out: a GPU notebook whatever the accelerators: NPI fail."""
    for setup in ({"acceleratorConfigs": unknown(), "machineType": "a2-highgpu-1g"},
                  {"machineType": "a2-highgpu-1g", "acceleratorConfigs": unknown()}):
        check(pack, [workbench(setup), gcp_budget(units="90000")], GCP_C, GPU_PUBLIC,
              [(NPI, "a2-highgpu-1g")])


# ------------------------------------------------------------------------------------- GAP 2
def _gcp_date(when: datetime) -> dict:
    return {"year": float(when.year), "month": float(when.month), "day": float(when.day)}


NOW = datetime.now(timezone.utc)
# A custom period of about a month around now: 1,000 over (31 days + a day) / 730 h is about
# 1.05 months, 950 a month, above the g2-standard-8's 623.15.
START, END = _gcp_date(NOW - timedelta(days=1)), _gcp_date(NOW + timedelta(days=30))


def _gcp_stack(period: dict) -> list:
    return [gcp_vm("gpu", "g2-standard-8"),
            gcp_budget(units="1000", budgetFilter={"customPeriod": period})]


GCP_DATES = [
    ("g00", {"startDate": START, "endDate": END}, {}, None,
     "a readable custom period around now: the budget covers the VM: pass"),
    ("g01", {"startDate": START, "endDate": "tomorrow"}, {SPEND: "fail"}, "'tomorrow'",
     "an end date that is text, no date"),
    ("g02", {"startDate": START, "endDate": {"year": "２０９９", "month": 12.0, "day": 31.0}},
     {SPEND: "fail"}, "２０９９", "a year in fullwidth digits (numbers read in ASCII only)"),
    ("g03", {"startDate": START, "endDate": {"year": 2099.0, "month": 13.0, "day": 1.0}},
     {SPEND: "fail"}, "13", "a month 13"),
    ("g04", {"startDate": START, "endDate": [END]}, {SPEND: "fail"}, "[{",
     "an end date written as a list of one"),
    ("g05", {"startDate": START, "endDate": {"year": 2099.0, "month": 12.0}}, {SPEND: "fail"},
     "2099", "an end date missing its day (year, month and day are each required)"),
    ("g06", {"startDate": "yesterday", "endDate": END}, {SPEND: "fail"}, "'yesterday'",
     "a start date that is no date"),
    ("g07", {"startDate": START, "endDate": unknown()}, {SPEND: "undecided"}, None,
     "an end date unknown at preview: cannot decide"),
]


@pytest.mark.parametrize("case", GCP_DATES, ids=[c[0] for c in GCP_DATES])
def test_gap2_gcp_budget_dates(pack, case):
    _, period, expected, word, _why = case
    check(pack, _gcp_stack(period), GCP_C, expected,
          [(SPEND, "budget"), (SPEND, word)] if word else [])


def _aws_stack(**period) -> list:
    sn = subnet()
    return [sn, aws_box("gpu", "g5.xlarge", sn), aws_budget(amount="1000.00", **period)]


AWS_DATES = [
    ("a00", {"timePeriodStart": "2020-01-01_00:00", "timePeriodEnd": "2087-06-15_00:00"}, {},
     None, "AWS's own default end (2087-06-15_00:00): pass (734.38 under 1,000)"),
    ("a01", {"timePeriodEnd": "tomorrow"}, {SPEND: "fail"}, "'tomorrow'", "text, no date"),
    ("a02", {"timePeriodEnd": "２０８７-06-15_00:00"}, {SPEND: "fail"}, "２０８７",
     "fullwidth digits, which Python's strptime reads"),
    ("a03", {"timePeriodStart": "２０２０-01-01_00:00"}, {SPEND: "fail"}, "２０２０",
     "a start in fullwidth digits"),
    ("a04", {"timePeriodEnd": "2087-13-15_00:00"}, {SPEND: "fail"}, "2087-13-15",
     "a month 13"),
    ("a05", {"timePeriodEnd": unknown()}, {SPEND: "undecided"}, None,
     "an end unknown at preview: cannot decide"),
]


@pytest.mark.parametrize("case", AWS_DATES, ids=[c[0] for c in AWS_DATES])
def test_gap2_aws_budget_dates(pack, case):
    _, period, expected, word, _why = case
    check(pack, _aws_stack(**period), AWS, expected,
          [(SPEND, "budget"), (SPEND, word)] if word else [])


def _az_stack(period) -> list:
    nic = az_nic("t4-nic")
    return [nic, az_vm("t4-box", T4, nic), az_budget(amount=500.0, timePeriod=period)]


AZ_DATES = [
    ("z00", {"startDate": "2020-01-01T00:00:00Z", "endDate": "2099-12-31T00:00:00Z"}, {}, None,
     "a readable period: pass (383.98 under 500)"),
    ("z01", {"startDate": "2020-01-01T00:00:00Z", "endDate": "tomorrow"}, {SPEND: "fail"},
     "'tomorrow'", "text, no date"),
    ("z02", {"startDate": "2020-01-01T00:00:00Z", "endDate": "２０９９-12-31T00:00:00Z"},
     {SPEND: "fail"}, "２０９９", "fullwidth digits"),
    ("z03", {"startDate": ["2020-01-01T00:00:00Z"]}, {SPEND: "fail"}, "['2020",
     "a start written as a list"),
    ("z04", {"startDate": "2020-01-01T00:00:00Z", "endDate": unknown()}, {SPEND: "undecided"},
     None, "an end unknown at preview: cannot decide"),
]


@pytest.mark.parametrize("case", AZ_DATES, ids=[c[0] for c in AZ_DATES])
def test_gap2_azure_budget_dates(pack, case):
    _, period, expected, word, _why = case
    check(pack, _az_stack(period), AZ, expected,
          [(SPEND, "budget"), (SPEND, word)] if word else [])


def test_gap2_unread_budget_beside_a_good_one(pack):
    """A readable budget covering the VM beside one whose end date is text: the unread one is
    still a violation naming it (not left out in silence because another budget caps)."""
    good = gcp_budget(name="good", units="1000")
    bad = gcp_budget(name="odd", units="100000", budgetFilter={"customPeriod": {
        "startDate": START, "endDate": "tomorrow"}})
    check(pack, [gcp_vm("gpu", "g2-standard-8"), good, bad], GCP_C, {SPEND: "fail"},
          [(SPEND, "odd"), (SPEND, "'tomorrow'")])
