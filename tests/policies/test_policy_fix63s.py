"""Fix63s: review63's DEFECTS 1, 2, 3, 4 and 9 (tests/policies/test_policy_review63.py), and the
variants that review did not write, over gRPC as `pulumi preview --policy-pack policies` drives
the pack. The stacks are review63's (its builders, figures in its header); each case states the
verdict of every policy (those not named stay "pass") and `why` holds the hand calculation from
the catalog CSVs or the cited public source.
"""
from __future__ import annotations

import pytest

from tests.policies import test_policy_review63 as r63
from tests.policy_fixtures import res
from tests.policy_harness import PolicyPackProcess

SPEND, RDMA, SSZ, NPI = r63.SPEND, r63.RDMA, r63.SSZ, r63.NPI
AZ_TAGS, TAGS, LABELS = r63.AZ_TAGS, r63.TAGS, r63.LABELS
_new, _set, _setp, _add, named = r63._new, r63._set, r63._setp, r63._add, r63.named


@pytest.fixture(scope="module")
def pack():
    p = PolicyPackProcess()
    yield p
    p.close()


# ------------------------------------------------------------------------------------ DEFECT 9
# A value written in another shape than the number, or the object holding it, that is asked
# for. Docs (Numbers are validated): a size or budget amount that is no number "is a violation
# naming that resource and value, never a zero and never left out"; "a budget that cannot be
# read is not 'no cap'". Scope: GPU capacity "whose type is ... read nowhere" is named and fails
# closed, so a scale set whose sku cannot be read does not vanish as "no GPU".

def _az_reservation(sku):
    return _new("azure-native:compute:CapacityReservation", "cr", {
        "resourceGroupName": "rg", "capacityReservationGroupName": "crg", "location": "eastus",
        "zones": ["1"], "sku": sku, "tags": dict(AZ_TAGS)})


D9 = [
    ("n01", "aws", {"max_size": {"value": 2.0}}, None,
     {SPEND: "fail", "_msg": {SPEND: ["{'value': 2.0}"]}}, None,
     "maxSize written as an object {value: 2}: no number; a violation naming the value"),
    ("n02", "aws", {"max_size": [2.0]}, None, {SPEND: "fail", "_msg": {SPEND: ["[2.0]"]}}, None,
     "maxSize [2] (review63 m06): the finding names the list, not a size read from it"),
    ("n03", "aws", {"budget": {"amount": "20000"}}, None,
     {SPEND: "fail", "_msg": {SPEND: ["{'amount': '20000'}"]}}, None,
     "limitAmount written as an object: the budget cannot be read; not 'no cap', a violation "
     "naming it"),
    ("n04", "gcp", {}, _set("train-budget", "amount", [
        {"specifiedAmount": {"currencyCode": "USD", "units": "30000"}}]),
     {SPEND: "fail", "_msg": {SPEND: ["'units': '30000'"]}}, None,
     "the whole `amount` a list of one (an object expected), one level above review63 q09: the "
     "amount cannot be read"),
    ("n05", "azure", {}, _set("nodes", "sku", 2.0),
     {SPEND: "fail", RDMA: "undecided", "_msg": {SPEND: ["its size 2.0 is not a finite"]}}, None,
     "the scale set's sku a number: neither its size nor its type reads (sku.capacity is not "
     "read as 2 from it); GPU capacity that fails closed; rdma cannot read the type: cannot "
     "decide (as for review53's group whose type is read nowhere)"),
    ("n06", "azure", {}, _set("nodes", "sku", [{"name": "Standard_ND96isr_H100_v5", "capacity": 2.0}]),
     {SPEND: "fail", RDMA: "undecided",
      "_msg": {SPEND: ["its size [{", "'name': 'Standard_ND96isr_H100_v5'", "}] is not"]}},
     None, "review63 r03's shape: the finding names the sku list (the size refused first; the "
     "type that cannot be read makes it GPU capacity, so the stack is judged at all)"),
    ("n07", "azure", {}, _az_reservation([{"name": "Standard_NC4as_T4_v3", "capacity": 1.0}]),
     {SPEND: "fail", "_msg": {SPEND: ["cr (azure-native:compute:CapacityReservation)",
                                      "is not a finite"]}}, None,
     "an Azure capacity reservation whose sku is a list of one: billed used or not, so its "
     "size that cannot be read is a violation naming it (reservations are not placed by rdma)"),
    ("n08", "azure", {}, _az_reservation({"name": "Standard_NC4as_T4_v3", "capacity": 1.0}), {},
     None,
     "control: the same reservation with sku an object: 1 x 0.526 USD/h (catalog, eastus) x 730 "
     "h = 383.98; <= 21,286.07 + 383.98 = 21,670.05 < 25,000"),
    ("n09", "aws", {}, _set("scratch", "storageCapacity", {"gb": 4800.0}),
     {SPEND: "fail", "_msg": {SPEND: ["{'gb': 4800.0}"]}}, None,
     "FSx storageCapacity written as an object: 'a filesystem capacity ... is a violation'"),
    ("n10", "ali", {}, r63._ali_set({"count": 2.0}), {SPEND: "fail"}, None,
     "an instance set amount written as an object: the set's size cannot be read"),
    ("n11", "gcp", {"target": {"size": 2.0}}, None, {SPEND: "fail"}, None,
     "MIG targetSize written as an object"),
]


@pytest.mark.parametrize("case", D9, ids=[c[0] for c in D9])
def test_defect9_shapes(pack, case):
    r63._run_case(pack, case)
