"""A mandatory "cannot decide" (cannotDecide: mandatory) says what it found and how to fix it
for the kind of decision that is open: a budget in a currency with no cited rate is not "a
value unknown during preview" (apply would not tell it either), and neither is a subnet the
stack does not create. Over gRPC, as `pulumi preview` drives the pack (review36's e5 noticed the
first)."""
from __future__ import annotations

from tests.policies.test_policy_review35f import (
    AWS,
    GCP,
    SPEND,
    SSZ,
    _literal_stack,
    gcp_budget,
    gvm,
    judged,
)
from tests.policy_harness import run


def _messages(found, policy):
    return [d.message for d in judged(found) if d.policy == policy]


def test_a_budget_in_yen_says_it_has_no_rate_not_that_a_value_is_unknown(pack):
    # An a2-highgpu-1g VM (3.67339 USD/h x 730 = 2,681.57 USD/month) under a budget of
    # 10,000,000 JPY: fx.csv cites no JPY rate, so whether the budget covers it is open.
    found = run(pack, [gvm("a2", "a2-highgpu-1g"), gcp_budget("10000000", currency="JPY")],
                config={SPEND: {"enforcementLevel": "mandatory", "cannotDecide": "mandatory"}},
                provider=GCP)
    (message,) = [m for m in _messages(found, SPEND) if "cannot decide" in m]
    assert "JPY" in message
    assert "Found: a budget amount in a currency the catalog cites no USD rate for" in message
    assert "unknown during preview" not in message
    assert "Fix: give the budget in USD" in message


def test_a_subnet_outside_the_stack_says_so_and_points_at_the_config(pack):
    # A p4d group on literal subnet-0aaa1111 mounting an FSx on literal subnet-0bbb2222, neither
    # created here: which zones they are in only the pack's config can say.
    found = run(pack, _literal_stack(),
                config={SSZ: {"enforcementLevel": "mandatory", "cannotDecide": "mandatory"}},
                provider=AWS)
    messages = [m for m in _messages(found, SSZ) if "cannot decide" in m]
    assert messages
    for message in messages:
        assert "Found: a fact about something this stack does not create" in message
        assert "unknown during preview" not in message
        assert "Fix: tell the pack in this policy's config" in message
