"""Issue 35 (lead), review66 DEFECT 1: an attached-accelerator entry whose count is 0 attaches
nothing, on any machine (docs/policies.md Coverage: "{count: 0} declaring none"; programs write
`count = var.gpus` set to 0 for a CPU node). It was read as one GPU: a CPU-only stack failed
spend-limit closed and an N1 VM was priced with a T4 it does not have.

Figures by hand from components/catalog/gcp_attached_gpus.csv (us-central1, on demand):
n1-standard-8 0.38 USD/h, nvidia-tesla-t4 0.35 USD/h per GPU; a month is 730 h.
Driven over gRPC (tests/policy_harness.py)."""
from __future__ import annotations

from typing import Any

from tests.policies.test_policy_review35f import estimate, messages, near
from tests.policy_fixtures import OWNER_LABELS, res
from tests.policy_harness import run, verdict

GCP = {"project": "ml-prod", "region": "us-central1"}
SPEND, RDMA = "spend-limit", "rdma-for-multinode"


def vm(name: str, machine: str, accelerators: Any) -> Any:
    return res("gcp:compute/instance:Instance", name, {
        "machineType": machine, "zone": "us-central1-a", "labels": dict(OWNER_LABELS),
        "guestAccelerators": accelerators,
        "networkInterfaces": [{"network": "default"}],
        "bootDisk": {"initializeParams": {"image": "debian-cloud/debian-12"}}})


def test_a_zero_count_on_an_n1_adds_no_gpu_to_its_price(pack):
    """n1-standard-8 with [{T4, 0}, {T4, 2}]: the machine and 2 T4s, (0.38 + 2 x 0.35) x 730
    = 788.40 USD a month (the zero entry read as one GPU gave 1,043.90)."""
    stack = [vm("n1", "n1-standard-8", [{"type": "nvidia-tesla-t4", "count": 0.0},
                                         {"type": "nvidia-tesla-t4", "count": 2.0}])]
    assert near(estimate(pack, stack, GCP), 788.40), estimate(pack, stack, GCP)


def test_a_zero_count_makes_no_gpu_node(pack):
    """An e2-standard-8 and an n1-standard-8, each with [{T4, count 0}] (the second as the text
    "0", which numbers as text are read as): CPU nodes, a CPU-only stack that needs no budget.
    Expect: spend-limit and rdma pass."""
    stack = [vm("e2", "e2-standard-8", [{"type": "nvidia-tesla-t4", "count": 0.0}]),
             vm("n1", "n1-standard-8", {"type": "nvidia-tesla-t4", "count": "0"})]
    found = run(pack, stack, provider=GCP)
    assert verdict(found, SPEND) == "pass", messages(found, SPEND)
    assert verdict(found, RDMA) == "pass", messages(found, RDMA)


def test_a_count_of_one_on_an_e2_is_still_refused(pack):
    """Control: [{T4, count 1}] on an e2 declares a GPU the machine cannot take: GPU capacity
    the pack cannot price (the docs: a count known at preview declares accelerators on any
    machine). Expect: spend-limit fails."""
    found = run(pack, [vm("e2", "e2-standard-8", [{"type": "nvidia-tesla-t4", "count": 1.0}])],
                provider=GCP)
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)
