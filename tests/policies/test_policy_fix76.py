"""fix76: the two spend-limit defects review76 found (issue 35).

A. An AWS Auto Scaling group's warm pool whose `poolState` is unknown at preview was priced as
   the Stopped default (the group alone). It may be Running, so it is priced as Running (the
   most it can cost: the group at maxSize plus the larger of the pool's minSize and maxSize, or
   with maxGroupPreparedCapacity P the larger of P and maxSize + minSize) and the estimate says
   so, as the docs price a Cloud Scheduler stop whose `paused` is unknown (the month, named).
B. Python's int() and float() read any Unicode decimal digit ('０' U+FF10, '٠' U+0660, '०'
   U+0966), Unicode blanks and '_' between digits; the clouds' APIs and cron take ASCII digits.
   So text reads as a number only in ASCII digits (model.number, model.digits for cron fields
   and rate counts): a stop in other digits stops nothing (the month), a size in them is the
   "is not valid" violation. review73 a16 / b16 left '２' open (pass or fail): now a violation.

Expected figures by hand from components/catalog/prices.csv (on-demand USD/h; 730 h a month):
aws us-east-1 g5.xlarge 1.006 (734.38 a node-month); gcp us-west1 a3-ultragpu-8g 86.7599
(63,334.73 a month); alibaba eu-central-1 ecs.gn8v-8x.48xlarge 58.2708 (42,537.68 a month).
"""
from __future__ import annotations

from datetime import datetime, timezone

import pytest

from tests.policies.test_policy_fix65 import _figure, _group, _spend
from tests.policies.test_policy_review35f import estimate as estimate35f
from tests.policies.test_policy_review35f import lt as lt35f
from tests.policies.test_policy_review35f import near
from tests.policies.test_policy_review35f import subnet as subnet35f
from tests.policies.test_policy_review52 import AWS, UNKNOWN, aws_budget, check, estimate, subnet
from tests.policy_fixtures import res
from tests.policies.test_policy_review76 import (RDMA, SPEND, _run_case, az_autoscale, cron_fixed,
                                                 eb_sched, asg_body, ess, ess_task, gcp_vm,
                                                 iso_utc, sched_policy, wall)
from trainstack_policies.inventory import lifetimes
from trainstack_policies.model import BadNumber, checked_number, digits, number

G5 = 1.006 * 730          # 734.38 USD a g5.xlarge node-month
A3U_MONTH = 86.7599 * 730   # 63,334.727
GN8_MONTH = 58.2708 * 730   # 42,537.684
ARABIC = str.maketrans("0123456789", "٠١٢٣٤٥٦٧٨٩")       # U+0660..0669
DEVANAGARI = str.maketrans("0123456789", "०१२३४५६७८९")   # U+0966..096F
FULLWIDTH = str.maketrans("0123456789", "０１２３４５６７８９")


# ------------------------------------------------------------------ A. warm pool state unknown

def _warm(**pool):
    sn = subnet()
    return [sn] + _group("warm", 2, sn=sn, warmPool=pool)


def test_unknown_pool_state_is_priced_as_running_and_said(pack):
    """maxSize 2, minSize 1, poolState unknown: as Running, 2 + max(1, 2) = 4 x 734.38 =
    2,937.52 (was 2 x 734.38 = 1,468.76, the Stopped default); the estimate names it."""
    stack = _warm(minSize=1.0, poolState=UNKNOWN)
    assert estimate(pack, stack, AWS) == round(4 * G5) == 2938
    found = check(pack, stack + [aws_budget(amount="2000.00")], AWS, {SPEND: "fail"})
    msg = next(m for m in _spend(found) if "exceeds" in m)
    assert _figure(msg) == 2938
    assert "warmPool.poolState is unknown until apply" in msg, msg


def test_unknown_pool_state_with_prepared_capacity(pack):
    """minSize 5, maxGroupPreparedCapacity 3, poolState unknown: max(2 + 5, 3) = 7 x 734.38 =
    5,140.66."""
    assert estimate(pack, _warm(minSize=5.0, maxGroupPreparedCapacity=3.0, poolState=UNKNOWN),
                    AWS) == 5141


def test_unknown_pool_state_and_unknown_size_cannot_be_estimated(pack):
    """poolState and minSize both unknown: the Running pool has no size: GPU capacity that
    cannot be estimated (fails closed), as a Running pool of unknown minSize is."""
    found = check(pack, _warm(minSize=UNKNOWN, poolState=UNKNOWN) + [aws_budget()], AWS,
                  {SPEND: "fail"})
    assert any("cannot be estimated" in m and "warm" in m for m in _spend(found)), _spend(found)


@pytest.mark.parametrize("state", ["Stopped", "Hibernated", None])
def test_known_stopped_states_add_no_compute(pack, state):
    """Stopped, Hibernated and the default (Stopped) bill disks, not instances: 2 x 734.38 =
    1,468.76, and no word about an unknown state."""
    pool = {"minSize": 5.0} if state is None else {"minSize": 5.0, "poolState": state}
    stack = _warm(**pool)
    assert estimate(pack, stack, AWS) == 1469


# ------------------------------------------------------------------ B. ASCII digits only

@pytest.mark.parametrize("text,want", [
    ("20000.00", 20000.0), (" 2 ", 2.0), ("1e3", 1000.0), ("+3", 3.0), (".5", 0.5), ("5.", 5.0),
    ("-1", -1.0)])
def test_ascii_number_text_still_reads(text, want):
    assert number(text) == want


@pytest.mark.parametrize("text", [
    "２", "０", "2".translate(ARABIC), "0".translate(DEVANAGARI), "２００００", "1_000", "0_0",
    "\u20032", "2\u00a0", "1e\uff13", "2 units", "0x10", ""])
def test_other_digits_blanks_and_underscores_do_not_read(text):
    """None from number(); BadNumber (the 'is not valid' violation) from checked_number."""
    assert number(text) is None
    assert isinstance(checked_number(text), BadNumber)


def test_digits_reads_ascii_digits_alone():
    assert digits("59") == 59 and digits("0") == 0
    for text in ("５９", "5".translate(ARABIC), "+5", " 5", "5_0", "", "-1"):
        assert digits(text) is None, text


def test_cron_in_other_digits_does_not_parse():
    """A unix cron '0 20 1 6 *' reads; the same in fullwidth, Arabic-Indic or Devanagari digits,
    or split by an em space (U+2003), does not; nor does a step '*/５'."""
    after = datetime(2030, 5, 1, tzinfo=timezone.utc)
    utc = timezone.utc
    assert lifetimes._next_cron("0 20 1 6 *", utc, after) == datetime(2030, 6, 1, 20, 0,
                                                                     tzinfo=utc)
    for table in (FULLWIDTH, ARABIC, DEVANAGARI):
        assert lifetimes._next_cron("0 20 1 6 *".translate(table), utc, after) is None
    assert lifetimes._next_cron("0\u200320 1 6 *", utc, after) is None
    assert lifetimes._next_cron("*/５ * * * *", utc, after) is None
    assert lifetimes._next_cron("*/5 * * * *", utc, after) == datetime(2030, 5, 1, 0, 5,
                                                                      tzinfo=utc)


def test_eventbridge_rate_at_and_cron_in_other_digits_do_not_read():
    """rate(3 days) reads (now, with no startDate: a Scheduler rate starts at once); rate(３
    days) does not; a cron 120 h away reads at that minute, its fullwidth twin does not; an
    at() in Arabic-Indic digits does not."""
    utc = timezone.utc
    assert lifetimes._first_run("rate(3 days)", utc) is not None
    assert lifetimes._first_run("rate(３ days)", utc) is None
    w = wall(120, "UTC")
    cron = f"cron({w.minute} {w.hour} {w.day} {w.month} ? {w.year})"
    assert lifetimes._first_run(cron, utc) == w
    assert lifetimes._first_run(cron.translate(FULLWIDTH), utc) is None
    year = datetime.now(utc).year + 1
    assert lifetimes._first_run(f"at({year}-01-01T00:00:00)", utc) == datetime(
        year, 1, 1, tzinfo=utc)
    assert lifetimes._first_run(f"at({year}-01-01T00:00:00)".translate(ARABIC), utc) is None


def test_size_in_fullwidth_digits_is_a_violation(pack):
    """maxSize '２' (review73 a16 took 2 or no number): now a size that does not read, the
    'is not valid' violation naming it, under a budget the group at 2 would fit (1,468.76)."""
    stack = [subnet()]
    stack += _group("fw", 2, sn=stack[0])
    stack[-1].props["maxSize"] = "２"
    found = check(pack, stack + [aws_budget(amount="20000.00")], AWS, {SPEND: "fail"})
    assert any("is not valid" in m and "'２'" in m for m in _spend(found)), _spend(found)


def test_budget_amount_in_fullwidth_digits_is_no_cap(pack):
    """limitAmount '２００００' (review73 b16 left it open): an amount that does not read, never
    the cap: the budget is reported, the group (1,468.76) notwithstanding."""
    stack = [subnet()]
    stack += _group("fw", 2, sn=stack[0])
    found = check(pack, stack + [aws_budget(amount="２００００")], AWS, {SPEND: "fail"})
    assert any("２００００" in m for m in _spend(found)), _spend(found)


# The stops, end to end (review76's builders; figures by hand): each in digits of another
# script stops nothing, so the month is priced; the ASCII twin beside it holds.
def _est(lo, hi):
    return (lo - 2, hi + 2)


STOPS = [
    ("gcp-schedule-arabic", "gcp0", {}, gcp_vm(None, [sched_policy(
        "end", stop=cron_fixed(40).translate(ARABIC))]),
     {SPEND: "fail", "_est": _est(A3U_MONTH, A3U_MONTH)}, None,
     "an instance schedule's vmStopSchedule in Arabic-Indic digits: 86.7599 x 730 = 63,334.73"),
    ("gcp-schedule-ascii", "gcp0", {}, gcp_vm(None, [sched_policy("end", stop=cron_fixed(40))]),
     {"_est": _est(86.7599 * 40, 86.7599 * 41)}, None,
     "control: the same in ASCII, 40..41 h: 3,470.40..3,557.16 < 30,000"),
    ("gcp-maxrun-devanagari", "gcp0", {}, gcp_vm({"maxRunDuration": {
        "seconds": str(48 * 3600).translate(DEVANAGARI)}, "instanceTerminationAction": "DELETE"}),
     {SPEND: "fail", "_est": _est(A3U_MONTH, A3U_MONTH)}, None,
     "maxRunDuration seconds in Devanagari digits: no run limit, the month 63,334.73"),
    ("gcp-maxrun-underscore", "gcp0", {}, gcp_vm({"maxRunDuration": {"seconds": "172_800"},
                                                  "instanceTerminationAction": "DELETE"}),
     {SPEND: "fail", "_est": _est(A3U_MONTH, A3U_MONTH)}, None,
     "maxRunDuration seconds '172_800' (Compute's int64 takes no '_'): the month"),
    ("ess-arabic", "ali0", {}, ess(tasks=lambda g: [ess_task(
        "off", g, 48, maxValue="0".translate(ARABIC), minValue="0".translate(ARABIC))]),
     {SPEND: "fail", RDMA: "advisory",
      "_msg": {SPEND: ["off (alicloud:ess/scheduledTask:ScheduledTask) raises it to a size"]}},
     None, "an ESS task's maxValue '٠': a raise whose size does not read (docs): unsized"),
    ("ess-ascii", "ali0", {}, ess(tasks=lambda g: [ess_task("off", g, 48)]),
     {SPEND: "fail", "_est": _est(58.2708 * 48, 58.2708 * 49)}, None,
     "control: the same task in ASCII stops the one node at 48..49 h: 2,797.00..2,855.27 (no "
     "auto-release time: spend-limit still fails on Alibaba)"),
    ("azure-max-devanagari", "azure", {"max_hours": None}, az_autoscale(profiles=[
        {"name": "stop", "capacity": {"minimum": "0", "maximum": "0".translate(DEVANAGARI),
                                      "default": "0"},
         "rules": [], "fixedDate": {"start": iso_utc(96), "end": "2037-12-31T00:00:00Z"}}]),
     {SPEND: "fail", "_msg": {SPEND: ["maximum '०' is not valid"]}}, None,
     "a zero profile's maximum '०': a size that does not read, the violation naming it"),
    ("aws-scheduler-rate-fullwidth", "aws", {"hours": None, "asg_name": "train-asg"},
     eb_sched("asg-stop", "rate(３ days)", asg_body()),
     {SPEND: "fail", "_est": _est(2 * 55.04 * 730 + 1400, 2 * 55.04 * 730 + 1600)}, None,
     "a Scheduler rate(３ days) setting the group to 0: no time reads, the month: 2 x 55.04 x "
     "730 = 80,358.40 + storage 1,400..1,600"),
]


@pytest.mark.parametrize("case", STOPS, ids=[c[0] for c in STOPS])
def test_stops_in_other_digits(pack, case):
    _run_case(pack, case)


def _mixed(base):
    """review35f s5's group (us-west-2, max 3 p4d.24xlarge, 0 % on demand above the base)."""
    s = subnet35f("a", "us-west-2a")
    t = lt35f("lt", "p4d.24xlarge")
    g = res("aws:autoscaling/group:Group", "mixed", {
        "minSize": 0.0, "maxSize": 3.0, "desiredCapacity": 3.0, "vpcZoneIdentifiers": ["subnet-id"],
        "mixedInstancesPolicy": {
            "instancesDistribution": {"onDemandBaseCapacity": base,
                                      "onDemandPercentageAboveBaseCapacity": 0.0},
            "launchTemplate": {"launchTemplateSpecification": {"launchTemplateId": "lt-id",
                                                               "version": "$Latest"}}}},
        deps={"mixedInstancesPolicy": [t], "vpcZoneIdentifiers": [s]})
    return [s, t, g]


def test_on_demand_base_in_fullwidth_digits_is_not_all_spot(pack):
    """onDemandBaseCapacity '１' no longer reads as 1, and must not read as absent (all spot,
    3 x 9.7315 x 730 = 21,312): 'a value that does not read prices them all on demand', 3 x
    21.9576 x 730 = 48,087.14. The ASCII 1.0 beside it: 21.9576 + 2 x 9.7315 = 41.4206 x 730 =
    30,237.04 (review35f s5)."""
    us_west_2 = {"region": "us-west-2"}
    assert near(estimate35f(pack, _mixed(1.0), us_west_2), (21.9576 + 2 * 9.7315) * 730)
    assert near(estimate35f(pack, _mixed("１"), us_west_2), 3 * 21.9576 * 730)
