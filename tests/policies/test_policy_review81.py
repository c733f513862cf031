"""Issue 35, a BLIND hostile review (helper review81) of the CrossGuard pack over gRPC, driven as
`pulumi preview --policy-pack policies` drives it (tests/policy_harness.py). Focus: the
behaviours changed in the last two hours, on every cloud where they apply, hunting regressions,
false alarms on correct stacks and holes at their edges. The pack's code was not read: every
verdict comes from docs/policies.md, the catalog CSVs (policies/catalog_data) and the Pulumi SDK
schemas in .venv; each batch's expectations were committed before its first run. The base
stacks and builders are review80's (imported: same figures, see its header).

RESULTS: (filled in after the runs)
"""
from __future__ import annotations

import json
from typing import Any, Optional

import pytest

from tests.policies.test_policy_review80 import (
    AWS_P, ENC, GCP_P, LABELS, NPI, NOSTOP, POLICIES, POOL_ARN, RDMA, RET, SPEND, SSZ, TAGS,
    TAGS_P, ZONES, _add, _awsn_tags, _chain, _drop, _new, _set, _setp, aws, azure, ali,
    batch_ce, budget2, budget_set, cf, crg_native, dim, elb, fe, fsx_literal, gcp, gcp_cron,
    lambda_start, lt_target, max_hours, named, odcr, unknown)
from tests.policy_fixtures import AZURE_ALERTS, OWNER_LABELS, OWNER_TAGS, res
from tests.policy_harness import run, verdict

PROVIDERS = {"aws": AWS_P, "gcp": GCP_P, "azure": {}, "ali": {}}
BUILD = {"aws": aws, "gcp": gcp, "azure": azure, "ali": ali}
XFAIL: dict[str, str] = {}


def _params(cases):
    return [pytest.param(c, id=c[0], marks=[pytest.mark.xfail(strict=True, reason=XFAIL[c[0]])]
                         if c[0] in XFAIL else []) for c in cases]


def _run_case(pack, case):
    cid, cloud, kwargs, mutate, expect, config, _why = case
    stack = BUILD[cloud](**kwargs)
    provider = dict(PROVIDERS[cloud])
    if mutate is not None:
        stack = mutate(stack)
    found = run(pack, stack, config, provider)
    got = {p: verdict(found, p) for p in POLICIES}
    want = {p: expect.get(p, "pass") for p in POLICIES}
    ok = all(got[p] in (w if isinstance(w, tuple) else (w,)) for p, w in want.items())
    assert ok, (cid, got, [(d.policy, d.level, d.message[:400]) for d in found])
    for policy, needles in expect.get("_msg", {}).items():
        text = " ".join(d.message for d in found if d.policy == policy)
        for needle in needles:
            assert needle in text, (cid, policy, needle, text[:1500])


# ------------------------------------------------------------------------------------ figures
# AWS base (review80 aws()): 2 p5.48xlarge (55.04) x 96 h = 10,567.68 + FSx ~1,464.53 + bucket
#   110.40 = ~12,143 under 20,000. The month without its stop: ~81,933.
# GCP base (gcp()): 25,164.51 under 30,000 (2 a3-ultragpu-8g 86.7599 x 97 h + 8,333.09
#   storage); the month 135,002.54.
# Azure base (azure()): 2 Standard_ND96isr_H100_v5 (98.32 eastus) x 96 h = 18,877.44 + storage
#   <= 2,408.63 = 21,286.07 under 25,000 (subscription budget).
# Alibaba base (ali()): 2 ecs.gn8v-8x.48xlarge released at 96 h; CPFS in eu-central-1a.
BASE_AWS = 12143.0
BASE_AZ = 21286.07


# ======================================================================== batch 1: `zones` form
# (id, value, accepted). Docs (storage-same-zone, Config `zones`): a zone name as the provider
# writes it (AWS / Alibaba region + letter, Local Zone `us-west-2-lax-1a`, Wavelength
# `us-east-1-wl1-bos-wlz-1`, GCP region + suffix, Alibaba city + letter, Azure 1/2/3) or an
# AWS AZ ID (region code, -az, digits; a Local Zone's with its own code; a Wavelength Zone's).
# Every other value is refused over gRPC (INVALID_ARGUMENT naming zones.<id>).
ZONE_VALUES = [
    # AWS regional zones (docs.aws.amazon.com/global-infrastructure regions list)
    ("v01", "il-central-1a", True), ("v02", "mx-central-1a", True), ("v03", "ca-west-1b", True),
    ("v04", "ap-southeast-7a", True), ("v05", "cn-north-1a", True),
    ("v06", "us-gov-east-1c", True), ("v07", "eu-south-2a", True),
    # AWS Local Zones (names as EC2 writes them)
    ("v08", "us-west-2-den-1a", True), ("v09", "ap-south-1-del-1a", True),
    ("v10", "eu-central-1-ham-1a", True), ("v11", "us-east-1-dfw-2a", True),
    ("v12", "us-west-2-lax-1b", True),
    # AWS Wavelength Zones
    ("v13", "us-west-2-wl1-sea-wlz-1", True), ("v14", "eu-west-2-wl1-lon-wlz-1", True),
    ("v15", "ap-northeast-2-wl1-cjj-wlz-1", True), ("v16", "ca-central-1-wl1-yto-wlz-1", True),
    # AWS AZ IDs: regional, GovCloud, China, Local Zone, Wavelength
    ("v17", "apne1-az4", True), ("v18", "use1-az6", True), ("v19", "usgw1-az1", True),
    ("v20", "cnn1-az1", True), ("v21", "usw2-den1-az1", True), ("v22", "aps1-del1-az1", True),
    ("v23", "usw2-wl1-sea-wlz1", True), ("v24", "euw2-wl1-lon-wlz1", True),
    # GCP
    ("v25", "europe-west4-b", True), ("v26", "northamerica-northeast2-a", True),
    ("v27", "me-central2-c", True), ("v28", "africa-south1-a", True), ("v29", "us-east5-c", True),
    # Azure
    ("v30", "1", True), ("v31", "3", True),
    # Alibaba Cloud (Chinese regions: city + letter; international: region + letter)
    ("v32", "cn-beijing-l", True), ("v33", "cn-wulanchabu-c", True),
    ("v34", "cn-hongkong-b", True), ("v35", "ap-southeast-5a", True),
    ("v36", "cn-zhangjiakou-a", True), ("v37", "me-east-1a", True),
    # refused
    ("r01", "us-east-1-bos-1", False),    # a Local Zone GROUP, not a zone
    ("r02", "US-WEST-2-DEN-1A", False), ("r03", "us-central1", False), ("r04", "eastus", False),
    ("r05", "0", False), ("r06", "use1-az4 ", False), ("r07", "us_east_1a", False),
    ("r08", "apne1-az", False), ("r09", "Zone 1", False),
    ("r10", "projects/ml/zones/us-central1-a", False), ("r11", "us-east-1a.", False),
    ("r12", "USE1-AZ4", False),
]


@pytest.mark.parametrize("case", ZONE_VALUES, ids=[c[0] for c in ZONE_VALUES])
def test_zone_values(pack, case):
    import grpc
    cid, value, accepted = case
    if accepted:
        found = run(pack, aws(), {SSZ: {"zones": {"subnet-0zz": value}}}, AWS_P)
        got = {p: verdict(found, p) for p in POLICIES}
        assert all(v == "pass" for v in got.values()), (cid, got)
        return
    config = pack.cli_config()
    config[SSZ]["zones"] = {"subnet-0zz": value}
    with pytest.raises(grpc.RpcError) as err:
        pack.send_config(config)
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT, (cid, err.value.details())
    assert "zones" in err.value.details(), (cid, err.value.details())


# ---- the zones config used on stacks (AWS AZ IDs, Alibaba vSwitch ids)
def az_id_subnet(az_id: str = "use1-az4"):
    """The base's subnet given only its AZ ID (no name)."""
    def mutate(s):
        sub = named(s, "train-a")
        sub.props.pop("availabilityZone", None)
        sub.props["availabilityZoneId"] = az_id
        return s
    return mutate


def ali_literal_vsw(vsw: str = "vsw-0lit"):
    def mutate(s):
        for r in s:
            if r.name.startswith("node-"):
                r.props["vswitchId"] = vsw
                r.deps.pop("vswitchId", None)
        return s
    return mutate


CASES_Z = [
    ("z01", "aws", {}, _chain(az_id_subnet(), fsx_literal()), {},
     ZONES({"subnet-0abc": "use1-az4"}),
     "nodes' subnet by AZ ID use1-az4, FSx literal told use1-az4: same zone decided"),
    ("z02", "aws", {}, _chain(az_id_subnet(), fsx_literal()), {SSZ: "fail"},
     ZONES({"subnet-0abc": "use1-az6"}), "told use1-az6: another zone"),
    ("z03", "aws", {}, _chain(az_id_subnet(), fsx_literal()), {SSZ: "undecided"},
     ZONES({"subnet-0abc": "us-east-1a"}), "a name against an AZ ID: cannot decide"),
    ("z04", "ali", {}, ali_literal_vsw(), {SSZ: "undecided"}, None,
     "nodes on a literal vSwitch, untold: cannot decide"),
    ("z05", "ali", {}, ali_literal_vsw(), {}, ZONES({"vsw-0lit": "eu-central-1a"}),
     "told eu-central-1a, CPFS in eu-central-1a: same"),
    ("z06", "ali", {}, ali_literal_vsw(), {SSZ: "fail"}, ZONES({"vsw-0lit": "eu-central-1b"}),
     "told eu-central-1b: another zone"),
    ("z07", "aws", {}, fsx_literal(), {}, ZONES({"subnet-0abc": "us-east-1a",
                                                 "vsw-9": "cn-hangzhou-h", "s-2": "2"}),
     "several valid forms of several clouds in one map, the FSx subnet told 1a"),
]


@pytest.mark.parametrize("case", _params(CASES_Z), ids=[c[0] for c in CASES_Z])
def test_zones_stacks(pack, case):
    _run_case(pack, case)


# ================================================================ batch 2: spend-limit reading
# ---- max-hours blank on every cloud
def az_tag(key: str, value: str):
    def mutate(s):
        r = named(s, "nodes")
        r.props["tags"] = {**r.props["tags"], key: value}
        return s
    return mutate


def ali_tag(key: str, value: str):
    def mutate(s):
        for r in s:
            if r.name.startswith("node-"):
                r.props["tags"] = {**r.props["tags"], key: value}
        return s
    return mutate


def lt_own_tag(value: str):
    def mutate(s):
        named(s, "train-lt").props["tags"]["trainstack:max-hours"] = value
        return s
    return mutate


MH = "trainstack:max-hours"
CASES_M = [
    ("m01", "azure", {}, az_tag(MH, ""), {}, None,
     "Azure: blank max-hours tag = no tag; the autoscale stop still gives 96 h: 21,286 < 25,000"),
    ("m02", "azure", {}, az_tag(MH, "   "), {}, None, "Azure: spaces only = no tag"),
    ("m03", "azure", {}, az_tag(MH, "0"), {SPEND: "fail"}, None, "Azure: zero is a violation"),
    ("m04", "azure", {}, az_tag(MH, "\uff19\uff16"), {SPEND: "fail"}, None,
     "Azure: fullwidth '96' is text that is no number: a violation"),
    ("m05", "ali", {}, ali_tag(MH, ""), {}, None, "Alibaba: blank tag = no tag"),
    ("m06", "ali", {}, ali_tag(MH, "abc"), {SPEND: "fail"}, None, "Alibaba: no number"),
    ("m07", "ali", {}, ali_tag(MH, "\u0664\u0668"), {SPEND: "fail"}, None,
     "Alibaba: Arabic-Indic '48' does not read: a violation"),
    ("m08", "aws", {}, _chain(max_hours(""), lt_own_tag("48")), {}, None,
     "AWS: blank on the group, 48 on the template's own tags: read, no finding (never shortens)"),
    ("m09", "aws", {}, _chain(max_hours(""), lt_own_tag("abc")), {SPEND: "fail"}, None,
     "AWS: blank on the group; the template's own tag 'abc' is still read: a violation"),
    ("m10", "aws", {}, _chain(max_hours(" "), lt_own_tag("")), {}, None,
     "AWS: blank on both: no tag, the 96 h stop prices ~12,143"),
    ("m11", "aws", {"hours": None, "budget": "100000"}, max_hours(""), {}, None,
     "AWS: blank tag, no stop: the month ~81,933 < 100,000"),
    ("m12", "aws", {}, max_hours("-1"), {SPEND: "fail"}, None, "AWS: negative"),
    ("m13", "aws", {}, max_hours("\uff14\uff18"), {SPEND: "fail"}, None,
     "AWS: fullwidth 48: does not read, a violation"),
    ("m14", "aws", {}, max_hours("72"), {}, None, "AWS: a plain 72 h tag with a 96 h stop"),
]

# ---- numbers, crons and dates in non-ASCII digits (and the ASCII forms that must read)
FW = str.maketrans("0123456789", "\uff10\uff11\uff12\uff13\uff14\uff15\uff16\uff17\uff18\uff19")
AR = str.maketrans("0123456789", "\u0660\u0661\u0662\u0663\u0664\u0665\u0666\u0667\u0668\u0669")


def gcp_job_schedule(transform=None):
    def mutate(s):
        job = named(s, "train-stop")
        if transform is not None:
            job.props["schedule"] = job.props["schedule"].translate(transform)
        return s
    return mutate


def stop_recurrence(rec: str):
    def mutate(s):
        named(s, "train-stop").props["recurrence"] = rec
        return s
    return mutate


def az_profile_max(value: str):
    def mutate(s):
        named(s, "stop").props["profiles"][0]["capacity"]["maximum"] = value
        return s
    return mutate


def ali_release(transform):
    def mutate(s):
        for r in s:
            if r.name.startswith("node-"):
                r.props["autoReleaseTime"] = r.props["autoReleaseTime"].translate(transform)
        return s
    return mutate


CASES_N = [
    ("n01", "aws", {}, _set("train-nodes", "maxSize", "\uff12"), {SPEND: "fail"}, None,
     "maxSize fullwidth 2: a violation, never a zero"),
    ("n02", "aws", {}, _set("train-nodes", "maxSize", " 2 "), {}, None,
     "maxSize ' 2 ' reads as 2: ~12,143"),
    ("n03", "aws", {}, _set("train-nodes", "maxSize", "\u0662"), {SPEND: "fail"}, None,
     "maxSize Arabic-Indic 2"),
    ("n04", "aws", {"budget": "\uff12\uff10\uff10\uff10\uff10"}, None, {SPEND: "fail"}, None,
     "budget limitAmount fullwidth 20000: cannot be read: a violation"),
    ("n05", "aws", {"budget": "20000.00"}, None, {}, None, "budget '20000.00' reads"),
    ("n06", "aws", {"budget": " 20000 "}, None, {}, None, "budget with ASCII blanks reads"),
    ("n07", "aws", {"budget": "2e4"}, None, {}, None, "budget '2e4' = 20,000 reads"),
    ("n08", "aws", {}, stop_recurrence("0 8 * * *"), {}, None,
     "recurring stop at 08:00 daily from 96 h: first run within 96-120 h: <= 2 x 55.04 x 120 "
     "= 13,209.60 + 1,575 = 14,785 < 20,000"),
    ("n09", "aws", {}, stop_recurrence("0 8 * * *".translate(FW)), {SPEND: "fail"}, None,
     "the recurrence in fullwidth digits stops nothing: the month ~81,933 > 20,000"),
    ("n10", "aws", {}, stop_recurrence("0 8 * * *".translate(AR)), {SPEND: "fail"}, None,
     "the recurrence in Arabic-Indic digits stops nothing"),
    ("n11", "gcp", {}, gcp_job_schedule(), {}, None, "GCP base: ASCII cron stop: 25,164.51"),
    ("n12", "gcp", {}, gcp_job_schedule(FW), {SPEND: "fail"}, None,
     "GCP: the resize-to-0 cron in fullwidth digits: no stop, the month 135,002 > 30,000"),
    ("n13", "azure", {}, az_profile_max("\uff10"), {SPEND: "fail"}, None,
     "Azure: profile maximum fullwidth 0: refused as a size, not a stop of 0"),
    ("n14", "azure", {}, az_profile_max("0"), {}, None, "Azure: ASCII '0' stops: 21,286"),
    ("n15", "ali", {}, ali_release(FW), {SPEND: "fail"}, None,
     "Alibaba: autoReleaseTime in fullwidth digits is no ISO time: no lifetime, no alarm"),
    ("n16", "gcp", {"budget": "\uff13\uff10\uff10\uff10\uff10"}, None, {SPEND: "fail"}, None,
     "GCP budget units fullwidth 30000: a violation"),
    ("n17", "gcp", {"budget": "30000"}, None, {}, None, "GCP budget '30000' reads"),
]

# ---- budget period dates (AWS, GCP, Azure)
def gcp_period(start: Optional[dict], end: Optional[dict]):
    def mutate(s):
        period: dict = {}
        if start is not None:
            period["startDate"] = start
        if end is not None:
            period["endDate"] = end
        named(s, "train-budget").props["budgetFilter"] = {"customPeriod": period}
        return s
    return mutate


def az_period(start: Any, end: Any = None):
    def mutate(s):
        tp: dict = {"startDate": start}
        if end is not None:
            tp["endDate"] = end
        named(s, "budget").props["timePeriod"] = tp
        return s
    return mutate


def ymd(y, m, d=None):
    out = {"year": float(y), "month": float(m)}
    if d is not None:
        out["day"] = float(d)
    return out


CASES_D = [
    ("d01", "aws", {}, budget_set(timePeriodStart="2026-12-01_00:00",
                                  timePeriodEnd="2087-06-15_00:00"), {}, None,
     "AWS: a period begun, ending 2087: covers"),
    ("d02", "aws", {}, budget_set(timePeriodStart="tomorrow"), {SPEND: "fail"}, None,
     "AWS: start 'tomorrow' reads as no date: neither cap nor alarm, a violation"),
    ("d03", "aws", {}, budget_set(timePeriodEnd="2087-13-01_00:00"), {SPEND: "fail"}, None,
     "AWS: month 13"),
    ("d04", "aws", {}, budget_set(timePeriodEnd="2087-06-15_00:00".translate(FW)),
     {SPEND: "fail"}, None, "AWS: an end in fullwidth digits"),
    ("d05", "aws", {}, budget_set(timePeriodEnd="2026-11-30_00:00"), {SPEND: "fail"}, None,
     "AWS: a period that ended (now Dec 2026): tracks nothing: no alarm"),
    ("d06", "aws", {}, budget_set(timePeriodStart=unknown()), {SPEND: "undecided"}, None,
     "AWS: a start unknown at preview, no other budget: cannot decide"),
    ("d07", "aws", {}, _chain(budget_set(timePeriodStart="tomorrow"), budget2("ok", "20000")),
     {SPEND: "fail"}, None,
     "AWS: the unreadable one is still reported although another budget covers"),
    ("d08", "aws", {}, _chain(budget_set(timePeriodStart=unknown()), budget2("ok", "20000")),
     {}, None, "AWS: an unknown start beside a covering budget at the same amount: decides"),
    ("d09", "gcp", {}, gcp_period(ymd(2026, 12, 1), ymd(2099, 12, 31)), {SPEND: "fail"}, None,
     "MY MISTAKE: a GCP custom-period budget's amount is for the whole period (Cloud Billing: "
     "a custom date range budget tracks the range's total), so 30,000 over 2026-12..2099-12 is "
     "~34 USD a month, under the 25,165 estimate: over the cap (the pack says 'at most 34.18')"),
    ("d10", "gcp", {}, gcp_period(ymd(2026, 12, 1), ymd(2099, 13, 1)), {SPEND: "fail"}, None,
     "GCP: end month 13"),
    ("d11", "gcp", {}, gcp_period(ymd(2026, 12), None), {SPEND: "fail"}, None,
     "GCP: a start missing its day"),
    ("d12", "gcp", {}, gcp_period(ymd(2026, 12, 1), ymd(10000, 1, 1)), {SPEND: "fail"}, None,
     "GCP: year past 9999"),
    ("d13", "gcp", {}, gcp_period(ymd(2026, 12, 1), None), {}, None,
     "GCP: a start only (no end): covers"),
    ("d14", "gcp", {}, gcp_period({"year": 2026.5, "month": 12.0, "day": 1.0}, None),
     {SPEND: "fail"}, None, "GCP: a year that is no whole number"),
    ("d15", "azure", {}, az_period("2026-12-01T00:00:00Z", "2031-12-01T00:00:00Z"), {}, None,
     "Azure: period begun, ends 2031: covers"),
    ("d16", "azure", {}, az_period("2026-12-01T00:00:00Z", "tomorrow"), {SPEND: "fail"}, None,
     "Azure: end 'tomorrow'"),
    ("d17", "azure", {}, az_period(["2026-12-01T00:00:00Z"]), {SPEND: "fail"}, None,
     "Azure: start written as a list"),
    ("d18", "azure", {}, az_period("2026-12-01T00:00:00Z", "2031-02-30T00:00:00Z"),
     {SPEND: "fail"}, None, "Azure: 30 February"),
    ("d19", "azure", {}, az_period("2026-12-01T00:00:00Z"), {}, None, "Azure: start only"),
    ("d20", "azure", {}, az_period("2027-06-01T00:00:00Z"), {SPEND: "fail"}, None,
     "Azure: a period that has not begun: no alarm"),
]

# ---- AWS budget filters: case-sensitive, correct spellings must still cover
CASES_B = [
    ("b01", "aws", {}, cf("PurchaseType", "On Demand Instances"), {}, None,
     "Cost Explorer's PURCHASE_TYPE value: covers"),
    ("b02", "aws", {}, cf("PurchaseType", "On-Demand Instances"), {SPEND: "fail"}, None,
     "the docs' counter-example: counts nothing"),
    ("b03", "aws", {}, cf("UsageType", "USE1-BoxUsage:p5.48xlarge"), {}, None,
     "the us-east-1 usage type with its code: covers"),
    ("b04", "aws", {}, cf("UsageType", "BoxUsage:p5.48xlarge"), {}, None,
     "us-east-1 also with no prefix: covers"),
    ("b05", "aws", {}, cf("UsageType", "USE1-BoxUsage:P5.48XLARGE"), {SPEND: "fail"}, None,
     "type upper-cased in the usage type"),
    ("b06", "aws", {}, cf("BillingEntity", "AWS"), {}, None, "BillingEntity AWS: covers"),
    ("b07", "aws", {}, cf("BillingEntity", "aws"), {SPEND: "fail"}, None, "lower-case aws"),
    ("b08", "aws", {}, cf("Service", "amazon elastic compute cloud - compute"), {SPEND: "fail"},
     None, "Service in lower case"),
    ("b09", "aws", {}, fe(dim("SERVICE", "Amazon Elastic Compute Cloud - Compute")), {}, None,
     "filterExpression SERVICE exact: covers"),
    ("b10", "aws", {}, fe(dim("PURCHASE_TYPE", "On Demand Instances")), {}, None,
     "filterExpression PURCHASE_TYPE exact: covers"),
    ("b11", "aws", {}, fe(dim("USAGE_TYPE", "USE1-BoxUsage:p5.48xlarge")), {}, None,
     "filterExpression USAGE_TYPE exact: covers"),
    ("b12", "aws", {}, fe(dim("BILLING_ENTITY", "AWS")), {}, None,
     "filterExpression BILLING_ENTITY AWS: covers"),
    ("b13", "aws", {}, fe(dim("AZ", "us-east-1a")), {}, None, "filterExpression AZ: covers"),
    ("b14", "aws", {}, fe(dim("az", "us-east-1a")), {SPEND: "fail"}, None,
     "key 'az' is not an upper-case Key value: budget never created, no alarm"),
    ("b15", "aws", {}, cf("REGION", "us-east-1"), {SPEND: "fail"}, None,
     "costFilters name 'REGION' (not 'Region'): refused by AWS: no budget"),
    ("b16", "aws", {}, cf("instanceType", "p5.48xlarge"), {SPEND: "fail"}, None,
     "costFilters name 'instanceType': refused"),
    ("b17", "aws", {}, fe({"not": dim("INSTANCE_TYPE", "P5.48XLARGE")}), {}, None,
     "not around a wrong-case value leaves every hour in: covers"),
    ("b18", "aws", {}, cf("PurchaseType", "on demand instances", "On Demand Instances"), {},
     None, "one exact value among the values: covers"),
    ("b19", "aws", {}, cf("InstanceType", "p5.48xlarge "), {SPEND: "fail"}, None,
     "a trailing blank: compared exactly, counts nothing"),
    ("b20", "aws", {}, _chain(cf("InstanceType", "P5.48XLARGE"), budget2("ok", "20000")), {},
     None, "a wrong-case budget beside an exact one: the exact one is the cap and alarm"),
    ("b21", "aws", {}, _chain(cf("InstanceType", "P5.48XLARGE"),
                              budget_set(limitAmount="5000"), budget2("ok", "20000")), {},
     None, "a 5,000 budget that counts no p5 hours is not the cap: 20,000 covers ~12,143"),
    ("b22", "aws", {}, fe({"ands": [dim("SERVICE", "Amazon Elastic Compute Cloud - Compute"),
                                    dim("PURCHASE_TYPE", "On Demand Instances"),
                                    dim("REGION", "us-east-1")]}), {}, None,
     "ands of three exact dimensions: covers"),
    ("b23", "aws", {}, fe({"tags": {"key": "team", "values": ["research"],
                                    "matchOptions": ["EQUALS"]}}), {}, None,
     "filterExpression tags (Cost Explorer TagValues key 'team') the instances carry: covers"),
    ("b24", "aws", {}, cf("TagKeyValue", "user:Team$research"), {SPEND: "fail"}, None,
     "tag key in another case: AWS tag keys are case-sensitive: counts nothing"),
]


@pytest.mark.parametrize("case", _params(CASES_M + CASES_N + CASES_D + CASES_B),
                         ids=[c[0] for c in CASES_M + CASES_N + CASES_D + CASES_B])
def test_batch2(pack, case):
    _run_case(pack, case)
