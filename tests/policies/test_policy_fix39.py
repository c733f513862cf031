"""Issue 35, helper fix39: the two defects review39 found (d13, t4), driven over gRPC as
`pulumi preview --policy-pack` drives the pack (tests/policy_harness.py).

1. An Azure autoscale profile's fixedDate start/end without an offset is a wall-clock time in
   its fixedDate.timeZone (learn.microsoft.com/rest/api/monitor/autoscale-settings: TimeWindow
   "the timezone of the start and end times for the profile"), a Windows time zone id. The
   expected instants below come from the IANA zone the Unicode CLDR windowsZones.xml maps each
   id to (territory "001": "Tokyo Standard Time" -> Asia/Tokyo, UTC+9 with no daylight
   saving; "Pacific Standard Time" -> America/Los_Angeles), through Python's zoneinfo. A zone
   the table does not list is read at the latest instant it can mean for a stop (UTC-12: 12 h
   after the UTC reading) and at the earliest for the end of a pause (UTC+14: 14 h before).
2. A budget scoped to a management group takes in the subscriptions that are in that group;
   which they are is set outside the program: "cannot decide", as an AWS LinkedAccount filter
   naming an account the provider does not.

Figures: Standard_NC24ads_A100_v4 eastus 3.673 USD/h, Standard_NC4as_T4_v3 eastus 0.526 USD/h
(policies/catalog_data/prices.csv); a month is 730 h.
"""
from __future__ import annotations

from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

from tests.policies.test_policy_review35f import (
    AZ,
    SPEND,
    SUB,
    az_budget,
    estimate,
    messages,
    near,
    verdict,
    vmss,
)
from tests.policy_fixtures import res
from tests.policy_harness import run

NC24, T4 = 3.673, 0.526
MONTH = 730
FMT = "%Y-%m-%dT%H:%M:%S"


def _wall(hours: float, zone: str) -> str:
    """The wall-clock time `hours` from now in an IANA zone, with no offset."""
    return (datetime.now(timezone.utc) + timedelta(hours=hours)).astimezone(
        ZoneInfo(zone)).strftime(FMT)


def _profile(name, capacity, window=None):
    p = {"name": name, "rules": [], "capacity": {
        "minimum": str(capacity), "maximum": str(capacity), "default": str(capacity)}}
    if window is not None:
        p["fixedDate"] = window
    return p


def _autoscale(ss, profiles):
    return res("azure-native:monitor:AutoscaleSetting", "as", {
        "resourceGroupName": "ml-rg", "location": "eastus", "enabled": True,
        "targetResourceUri": "vmss-id", "profiles": profiles},
        deps={"targetResourceUri": [ss]})


def _a100s():
    return vmss("a100", "Standard_NC24ads_A100_v4", 2.0)


# ------------------------------------------------------------------- 1. fixedDate time zones

def test_stop_in_tokyo_time_is_read_in_tokyo(pack):
    """Stop profile (capacity 0) from the Tokyo wall-clock time 30 h from now, for 60 days.
    Expect 30 h: 2 x 3.673 x 30 = 220.38 (read as UTC-12 it was 30 + 9 + 12 = 51 h, 374.65)."""
    ss = _a100s()
    a = _autoscale(ss, [_profile("default", 2), _profile("off", 0, {
        "timeZone": "Tokyo Standard Time", "start": _wall(30, "Asia/Tokyo"),
        "end": _wall(30 + 60 * 24, "Asia/Tokyo")})])
    assert near(estimate(pack, [ss, a], AZ), 2 * NC24 * 30, slack=2 * NC24 * 0.5)


def test_a_zone_not_in_the_table_keeps_the_latest_reading(pack):
    """"Mars Standard Time" is no Windows zone: its start (the UTC wall clock 30 h from now) is
    read at its latest, UTC-12: 42 h, 2 x 3.673 x 42 = 308.53 (never fewer hours than true)."""
    ss = _a100s()
    a = _autoscale(ss, [_profile("default", 2), _profile("off", 0, {
        "timeZone": "Mars Standard Time", "start": _wall(30, "UTC"),
        "end": _wall(30 + 60 * 24, "UTC")})])
    assert near(estimate(pack, [ss, a], AZ), 2 * NC24 * 42, slack=2 * NC24 * 0.5)


def test_an_offset_in_the_time_wins_over_the_zone(pack):
    """A start written with its own offset (+09:00, 30 h from now) is that instant whatever
    the timeZone says ("Pacific Standard Time"): 30 h, 220.38."""
    ss = _a100s()
    start = (datetime.now(timezone.utc) + timedelta(hours=30)).astimezone(
        timezone(timedelta(hours=9)))
    a = _autoscale(ss, [_profile("default", 2), _profile("off", 0, {
        "timeZone": "Pacific Standard Time", "start": start.isoformat(timespec="seconds"),
        "end": (start + timedelta(days=60)).isoformat(timespec="seconds")})])
    assert near(estimate(pack, [ss, a], AZ), 2 * NC24 * 30, slack=2 * NC24 * 0.5)


def test_a_running_window_ending_in_pacific_time(pack):
    """A default profile of capacity 0 holds the set at 0 outside its one window of capacity
    2, which ends at the Pacific wall-clock time 10 h from now (autoscale-multiprofile).
    Expect 10 h: 2 x 3.673 x 10 = 73.46 (read as UTC-12 it was 10 - 8 + 12 = 14 h)."""
    ss = _a100s()
    a = _autoscale(ss, [_profile("default", 0), _profile("on", 2, {
        "timeZone": "Pacific Standard Time", "start": _wall(-1, "America/Los_Angeles"),
        "end": _wall(10, "America/Los_Angeles")})])
    assert near(estimate(pack, [ss, a], AZ), 2 * NC24 * 10, slack=2 * NC24 * 0.5)


def test_a_pause_ending_within_the_month_in_tokyo_time(pack):
    """Stop profile from the Tokyo wall-clock time 30 h from now to 726 h from now, beside a
    running default profile: the window ends within the month (726 < 730 h), then the set
    runs again, so it is a pause: the month, 2 x 3.673 x 730 = 5,362.58. (Its end read as
    UTC was 735 h: a lifetime of 51 h, 374.65.)"""
    ss = _a100s()
    a = _autoscale(ss, [_profile("default", 2), _profile("off", 0, {
        "timeZone": "Tokyo Standard Time", "start": _wall(30, "Asia/Tokyo"),
        "end": _wall(726, "Asia/Tokyo")})])
    assert near(estimate(pack, [ss, a], AZ), 2 * NC24 * MONTH)


def test_a_pause_end_in_an_unlisted_zone_is_read_at_its_earliest(pack):
    """As above in "Mars Standard Time", the end the UTC wall clock 740 h from now: at its
    earliest (UTC+14) 726 h, within the month: a pause, 5,362.58."""
    ss = _a100s()
    a = _autoscale(ss, [_profile("default", 2), _profile("off", 0, {
        "timeZone": "Mars Standard Time", "start": _wall(30, "UTC"),
        "end": _wall(740, "UTC")})])
    assert near(estimate(pack, [ss, a], AZ), 2 * NC24 * MONTH)


def test_the_table_cites_cldr_and_loads_in_zoneinfo():
    """Every row names its source, and each IANA zone loads (a row this Python cannot load
    would fall back to the conservative reading, not fail)."""
    import csv
    from pathlib import Path
    path = Path(__file__).resolve().parents[2] / "policies" / "inventory" / "windows_zones.csv"
    rows = list(csv.DictReader(path.open()))
    assert len(rows) == len({r["windows"] for r in rows}) > 100
    assert all("unicode-org/cldr@" in r["source"] for r in rows)
    names = {r["windows"]: r["iana"] for r in rows}
    assert names["Pacific Standard Time"] == "America/Los_Angeles"
    assert names["Tokyo Standard Time"] == "Asia/Tokyo"
    for r in rows:
        ZoneInfo(r["iana"])


# --------------------------------------------------------- 2. budgets on a management group

MG = "/providers/Microsoft.Management/managementGroups/ml-mg"


def _t4s():
    return vmss("t4", "Standard_NC4as_T4_v3", 2.0)


def test_native_budget_on_a_management_group_is_undecided(pack):
    """2 x 0.526 x 730 = 767.96 under a 100,000 budget on ml-mg: whether the subscription is
    in ml-mg is not in the stack. Expect: undecided, naming the management group."""
    found = run(pack, [_t4s(), az_budget(100000.0, scope=MG)], provider=AZ)
    assert verdict(found, SPEND) == "undecided", messages(found, SPEND)
    text = messages(found, SPEND)
    assert "management group is not in the program" in text, text
    assert "currency" not in text, text


def test_classic_management_group_budget_is_undecided(pack):
    """pulumi-azure consumption.BudgetManagementGroup (managementGroupId, amount, timeGrain,
    timePeriod, notifications) on ml-mg. Expect: undecided."""
    b = res("azure:consumption/budgetManagementGroup:BudgetManagementGroup", "mg-budget", {
        "managementGroupId": MG, "amount": 100000.0, "timeGrain": "Monthly",
        "timePeriod": {"startDate": "2026-12-01T00:00:00Z"},
        "notifications": [{"enabled": True, "threshold": 80.0, "operator": "GreaterThan",
                           "contactEmails": ["ml-oncall@example.com"]}]})
    found = run(pack, [_t4s(), b], provider=AZ)
    assert verdict(found, SPEND) == "undecided", messages(found, SPEND)


def test_a_resource_group_budget_beside_it_decides(pack):
    """The same, plus a 2,000 budget on the compute's resource group ml-rg: that one caps
    767.96 < 2,000 and notifies: pass."""
    rg = res("azure-native:consumption:Budget", "rg-budget", {
        **az_budget().props, "amount": 2000.0, "scope": f"{SUB}/resourceGroups/ml-rg"})
    found = run(pack, [_t4s(), az_budget(100000.0, scope=MG), rg], provider=AZ)
    assert verdict(found, SPEND) == "pass", messages(found, SPEND)


def test_a_subscription_budget_still_caps(pack):
    """A 2,000 budget on a subscription (the provider names none): taken as the cap, as
    trainstack's own test stacks write it (unchanged by this fix): pass."""
    found = run(pack, [_t4s(), az_budget(2000.0)], provider=AZ)
    assert verdict(found, SPEND) == "pass", messages(found, SPEND)
