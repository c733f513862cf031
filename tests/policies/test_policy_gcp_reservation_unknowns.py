"""Issue 35, a GCP reservation whose attached GPUs are unknown at preview (lead; fix37more
noticed it: instances and templates read them as GPUs of unknown type, reservations read an
unknown list as no GPU and an unknown count as 1). Over gRPC (tests/policy_harness.py).

Figures by hand (policies/catalog_data/gcp_attached_gpus.csv, us-central1): n1-standard-8
0.38 USD/h, nvidia-tesla-t4 0.35 USD/h; a month is 730 h. With 50,000 USD budgets beside them,
a reservation the pack can price passes; one it cannot fails closed ("cannot be estimated"),
never priced below the truth."""
from __future__ import annotations

from tests.policies.test_policy_review35f import (
    GCP,
    SPEND,
    estimate,
    gcp_budget,
    messages,
    near,
    verdict,
)
from tests.policy_fixtures import res
from tests.policy_harness import run
from trainstack_policies.model import UNKNOWN


def _reservation(machine, accelerators, count=2):
    props = {"machineType": machine}
    if accelerators is not None:
        props["guestAccelerators"] = accelerators
    return res("gcp:compute/reservation:Reservation", "res", {
        "name": "res", "zone": "us-central1-a", "specificReservation": {
            "count": count, "instanceProperties": props}})


def test_known_t4s_are_priced_control(pack):
    """2 x (n1-standard-8 + 1 T4): 2 x (0.38 + 0.35) x 730 = 1,065.80."""
    r = _reservation("n1-standard-8", [{"acceleratorType": "nvidia-tesla-t4",
                                         "acceleratorCount": 1}])
    assert near(estimate(pack, [r], GCP), 2 * (0.38 + 0.35) * 730)


def test_an_unknown_accelerator_list_on_n1_cannot_be_estimated(pack):
    """guestAccelerators unknown at preview on n1-standard-8: GPUs of a type and number known
    after apply. Expect: spend-limit fail, "cannot be estimated" (it was priced as the
    machines alone, 2 x 0.38 x 730 = 554.80, below any GPU's price)."""
    found = run(pack, [_reservation("n1-standard-8", UNKNOWN), gcp_budget("50000")],
                provider=GCP)
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)
    assert "cannot be estimated" in messages(found, SPEND)


def test_an_unknown_accelerator_entry_cannot_be_estimated(pack):
    """One entry of guestAccelerators unknown at preview beside a known T4. Expect: fail,
    "cannot be estimated"."""
    r = _reservation("n1-standard-8", [{"acceleratorType": "nvidia-tesla-t4",
                                         "acceleratorCount": 1}, UNKNOWN])
    found = run(pack, [r, gcp_budget("50000")], provider=GCP)
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)
    assert "cannot be estimated" in messages(found, SPEND)


def test_a_t4_of_unknown_count_is_not_priced_as_one(pack):
    """A T4 entry whose acceleratorCount is unknown at preview: it was priced as 1 T4 per VM
    (1,065.80), which may be half the truth. Expect: fail, "cannot be estimated"."""
    r = _reservation("n1-standard-8", [{"acceleratorType": "nvidia-tesla-t4",
                                         "acceleratorCount": UNKNOWN}])
    found = run(pack, [r, gcp_budget("50000")], provider=GCP)
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)
    assert "cannot be estimated" in messages(found, SPEND)


def test_unknown_accelerators_on_a_machine_that_takes_none_add_none(pack):
    """The same unknown list on e2-standard-8, which takes no attached GPU ("GPUs can't be used
    with other machine series", cloud.google.com/compute/docs/gpus/about-gpus): no GPU
    capacity, so no budget is asked for. Expect: spend-limit pass with no budget."""
    found = run(pack, [_reservation("e2-standard-8", UNKNOWN)], provider=GCP)
    assert verdict(found, SPEND) == "pass", messages(found, SPEND)


def test_a_vm_of_unknown_gpu_count_beside_a_reservation_is_judged_not_crashed(pack):
    """The known reservation of 2 x (n1-standard-8 + 1 T4) and, in its zone, a VM of
    n1-standard-8 whose T4 count is unknown at preview: whether the VM matches the reservation
    cannot be told (a match needs the same count), so it is not taken into it, and its own GPUs
    have no price. Expect: no error from the pack; spend-limit fail, "cannot be estimated"."""
    r = _reservation("n1-standard-8", [{"acceleratorType": "nvidia-tesla-t4",
                                         "acceleratorCount": 1}])
    vm = res("gcp:compute/instance:Instance", "vm", {
        "zone": "us-central1-a", "machineType": "n1-standard-8",
        "bootDisk": {"initializeParams": {"image": "debian-cloud/debian-12"}},
        "networkInterfaces": [{"network": "default"}],
        "guestAccelerators": [{"type": "nvidia-tesla-t4", "count": UNKNOWN}],
        "scheduling": {"onHostMaintenance": "TERMINATE"}})
    found = run(pack, [r, vm, gcp_budget("50000")], provider=GCP)
    assert verdict(found, SPEND) == "fail", messages(found, SPEND)
    assert "cannot be estimated" in messages(found, SPEND)
