"""fix73: hand-computed neighbours of review73's four spend-limit defects, over gRPC as `pulumi
preview --policy-pack policies` drives the pack (builders are review73's, imported).

D1/D4: a boolean or blank text where a size or a budget amount goes is no number: a violation
naming it (docs/policies.md, Numbers are validated: "never a zero and never left out"; "a budget
that cannot be read is not \"no cap\""); a plain number beside it is still read.
D2: a type name is read with surrounding whitespace stripped, and priced as the name is
(prices.csv: aws p5.48xlarge us-east-1 55.04 USD/h, row 1595; gcp a3-ultragpu-8g us-west1
86.7599 USD/h, row 2686).
D3: an AWS launch template instanceType in another shape than a name (a number here) cannot be
read and fails closed (docs, Scope: "a type written in another shape than a name ... is one that
cannot be read; spend-limit names it and fails closed").
"""
from typing import Any

import pytest

from tests.policies.test_policy_review73 import (_A, PROVIDERS, _abud, _prop, _setp, aws, azure,
                                                 gcp)
from tests.policy_harness import run, verdict

SPEND = "spend-limit"


def _spend(pack, cloud: str, stack: list) -> tuple[str, str]:
    found = run(pack, stack, None, dict(PROVIDERS[cloud]))
    return verdict(found, SPEND), " ".join(d.message for d in found if d.policy == SPEND)


def test_checked_number_refuses_booleans_and_blank_text():
    from trainstack_policies.model import BadNumber, checked_number
    for value in (True, False, "", "  ", "\t"):
        assert isinstance(checked_number(value), BadNumber), value
    # neighbours: absent stays absent, numbers (a zero included) stay numbers
    assert checked_number(None) is None
    assert checked_number(0.0) == 0.0 and checked_number(1) == 1.0 and checked_number(" 2 ") == 2.0


# (id, cloud, stack, needles the spend-limit finding must name)
FAILS: list[tuple[str, str, Any, tuple[str, ...]]] = [
    ("aws-maxsize-false", "aws", lambda: _prop(_A, "maxSize", False)(aws(budget="13500")),
     ("train-nodes", "False")),
    ("aws-maxsize-blank", "aws", lambda: _prop(_A, "maxSize", "  ")(aws(budget="13500")),
     ("train-nodes", "'  '")),
    ("azure-capacity-blank", "azure", lambda: _setp("nodes", "sku.capacity", "")(azure()),
     ("nodes", "''")),
    ("aws-budget-blank", "aws", lambda: _abud(limitAmount="  ")(aws()), ("train-budget", "'  '")),
    ("aws-budget-false", "aws", lambda: _abud(limitAmount=False)(aws()), ("train-budget", "False")),
    # the month (no stop): 2 x 55.04 x 730 = 80,358.40 > 20,000, the type read without its blanks
    ("aws-type-tab-space", "aws", lambda: aws(itype="\tp5.48xlarge ", hours=None),
     ("2 x p5.48xlarge x 55.04 USD/h x 730 h = 80,358",)),
    # 2 x 86.7599 x 730 = 126,669.45 > 30,000
    ("gcp-type-space-newline", "gcp", lambda: gcp(mtype=" a3-ultragpu-8g\n", hours=None),
     ("2 x a3-ultragpu-8g x 86.76 USD/h x 730 h = 126,669",)),
    # a number for a type: no name, fails closed naming it (96 h would price 12,142 and pass)
    ("aws-type-number", "aws", lambda: aws(itype=5.0), ("train-nodes", "cannot be read", "5.0")),
]


@pytest.mark.parametrize("case", FAILS, ids=[c[0] for c in FAILS])
def test_named_violation(pack, case):
    cid, cloud, build, needles = case
    level, text = _spend(pack, cloud, build())
    assert level == "fail", (cid, level, text[:800])
    for needle in needles:
        assert needle in text, (cid, needle, text[:1500])


PASSES: list[tuple[str, str, Any]] = [
    # maxSize 1 (a number, not true): 1 x 55.04 x 96 = 5,283.84 + FSx 1,454 + bucket 119
    # = 6,857 <= 13,500: read as a size, so it passes (true is not read as this 1)
    ("aws-maxsize-one", "aws", lambda: _prop(_A, "maxSize", 1.0)(aws(budget="13500"))),
    # 96 h with the stripped name: 2 x 55.04 x 96 = 10,567.68 + 1,454 + 119 = 12,141 <= 20,000
    ("aws-type-leading-tab-96h", "aws", lambda: aws(itype="\tp5.48xlarge")),
]


@pytest.mark.parametrize("case", PASSES, ids=[c[0] for c in PASSES])
def test_read_and_priced(pack, case):
    cid, cloud, build = case
    level, text = _spend(pack, cloud, build())
    assert level == "pass", (cid, level, text[:800])


def test_instance_type_false_is_not_dropped(pack):
    """An aws:ec2/instance whose own instanceType is false: there, no name, so a type that
    cannot be read, named (before fix73 `false or <template's>` dropped it: no template, no
    type, the GPU-or-not question never asked)."""
    from tests.policy_fixtures import res
    inst = res("aws:ec2/instance:Instance", "gpu-box",
               {"instanceType": False, "availabilityZone": "us-east-1a",
                "tags": {"owner": "bob", "team": "research", "cost-center": "4711"}})
    level, text = _spend(pack, "aws", [inst])
    assert level == "fail", text[:800]
    assert "gpu-box" in text and "cannot be read" in text and "False" in text, text[:1500]
