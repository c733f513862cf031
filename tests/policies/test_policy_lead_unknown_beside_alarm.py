"""An unknown at preview hides no violation found beside it (lead, from fix85's note).

docs/policies.md: "An unknown is only asked about where it could hide a violation", and
spend-limit asks "cannot decide" only where nothing else fails. fix85 made an unknown budget
amount and a garbage max-hours tag follow that rule; a GPU group or filesystem whose size is
unknown at preview still ended the check with "cannot decide" when a budget-alarm violation
had been found beside it (a budget with no notification), so the violation was never shown
and, with cannotDecide advisory, the stack passed.

Expected by hand: a g5.xlarge (734.38 USD/month, prices.csv us-east-1 1.006 x 730) under a
20,000 budget that notifies no one, beside an FSx for Lustre whose storageCapacity is unknown:
the budget is no alarm (docs: "a budget ... with no notification ... is no alarm"), a
violation whatever the filesystem's size; so spend-limit fails, and does not pass under
cannotDecide advisory. With the notifications in place the unknown size could hide an
overrun (no maxMonthlyUsd; the budget is the cap), so "cannot decide"
stays where the docs put it: asked, not failed.
"""
from __future__ import annotations

from tests.policies.test_policy_fix80 import SPEND, unknown
from tests.policies.test_policy_review49 import AWS, aws_box, aws_budget, res, subnet
from tests.policy_harness import run, verdict


def _stack(notify: bool) -> list:
    sn = subnet()
    fs = res("aws:fsx/lustreFileSystem:LustreFileSystem", "scratch", {
        "subnetIds": [sn.urn], "storageCapacity": unknown(), "deploymentType": "PERSISTENT_2",
        "perUnitStorageThroughput": 125})
    budget = aws_budget() if notify else aws_budget(notifications=[])
    return [sn, aws_box("gpu", "g5.xlarge", sn), fs, budget]


def test_a_silent_budget_is_reported_beside_an_unknown_filesystem_size(pack):
    found = run(pack, _stack(notify=False), {SPEND: {"cannotDecide": "advisory"}}, AWS)
    assert verdict(found, SPEND) == "fail", [d.message for d in found]


def test_with_its_alarm_the_unknown_size_is_still_asked(pack):
    found = run(pack, _stack(notify=True), {SPEND: {"cannotDecide": "advisory"}}, AWS)
    assert verdict(found, SPEND) == "undecided", [d.message for d in found]
