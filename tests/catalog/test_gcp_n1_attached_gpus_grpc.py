"""GCP N1 with attached GPUs (guestAccelerators) is priced over gRPC as N1 machine + GPUs (issue
35). Before: an n1-standard-8 carrying a T4 is GPU capacity (it declares accelerators) with no
catalog price, so spend-limit failed closed ("cannot be estimated") whatever its budget.

The figures, from the cited rows of components/catalog/gcp_attached_gpus.csv
(github.com/skypilot-org/skypilot-catalog catalogs/v8/gcp/vms.csv
@006059e0f18acb1341e22a27751e9f80df6ba92f; a GPU row there is the price of attaching that many
GPUs, the machine row the N1 machine alone), and the hand sums written before the code:
- us-central1: n1-standard-8 0.38 USD/h (spot 0.10446); nvidia-tesla-t4 0.35 per GPU (spot 0.175).
- 3 nodes x (0.38 + 2 x 0.35) = 3 x 1.08 USD/h x 730 h = 2,365.20 USD/month.
- spot: 3 x (0.10446 + 2 x 0.175) = 3 x 0.45446 x 730 = 995.27.
- europe-west4, 1 node: n1-standard-8 0.41834 + 1 x nvidia-tesla-p4 0.63 = 1.04834 x 730 = 765.29.
"""
from __future__ import annotations

from tests.policy_harness import run
from tests.policy_fixtures import GCP_ALERTS, res

LABELS = {"owner": "alice", "team": "ml", "cost_center": "1234"}


def n1_stack(budget: str, gpus: list, zone: str = "us-central1-a", nodes: float = 3.0,
             spot: bool = False) -> list:
    template = res("gcp:compute/instanceTemplate:InstanceTemplate", "infer", {
        "machineType": "n1-standard-8", "labels": LABELS, "guestAccelerators": gpus,
        "scheduling": {"provisioningModel": "SPOT" if spot else "STANDARD",
                       "onHostMaintenance": "TERMINATE"},
        "networkInterfaces": [{"network": "default"}]})
    igm = res("gcp:compute/instanceGroupManager:InstanceGroupManager", "infer", {
        "zone": zone, "targetSize": nodes, "baseInstanceName": "infer",
        "versions": [{"instanceTemplate": "infer-id"}]}, deps={"versions": [template]})
    budget_ = res("gcp:billing/budget:Budget", "budget", {
        "thresholdRules": GCP_ALERTS,
        "amount": {"specifiedAmount": {"currencyCode": "USD", "units": budget}}})
    return [template, igm, budget_]


T4_X2 = [{"type": "nvidia-tesla-t4", "count": 2.0}]


def _spend(pack, resources) -> list:
    return [d for d in run(pack, resources) if d.policy == "spend-limit"]


def test_n1_with_two_t4_under_its_budget_passes(pack):
    assert _spend(pack, n1_stack("2400", T4_X2)) == []


def test_n1_with_two_t4_over_its_budget_fails_with_machine_plus_gpus(pack):
    [d] = _spend(pack, n1_stack("2300", T4_X2))
    assert d.level == "mandatory" and "the estimated monthly cost exceeds" in d.message
    assert "2,365 USD/month" in d.message
    assert "3 x n1-standard-8 + 2 x nvidia-tesla-t4 x 1.08 USD/h x 730 h" in d.message
    # the rows' date is shown: the day the snapshot was read (its commit date is not known)
    assert "as of 2026-11-30 (date the snapshot was read" in d.message


def test_spot_n1_with_gpus_is_priced_at_the_spot_rates(pack):
    assert _spend(pack, n1_stack("1000", T4_X2, spot=True)) == []
    [d] = _spend(pack, n1_stack("990", T4_X2, spot=True))
    assert "995 USD/month" in d.message


def test_the_accelerator_type_may_be_a_url_and_another_region_has_its_own_prices(pack):
    p4 = [{"type": "projects/p/zones/europe-west4-b/acceleratorTypes/nvidia-tesla-p4",
           "count": 1.0}]
    assert _spend(pack, n1_stack("770", p4, zone="europe-west4-b", nodes=1.0)) == []
    [d] = _spend(pack, n1_stack("760", p4, zone="europe-west4-b", nodes=1.0))
    assert "765 USD/month" in d.message


def test_a_gpu_the_table_does_not_price_still_fails_closed(pack):
    # nvidia-tesla-v100 has no row in us-east4 (the source lists V100 in us-central1, us-east1,
    # us-west1, europe-west4, asia-east1 only): the machine alone would price the node below the
    # truth.
    v100 = [{"type": "nvidia-tesla-v100", "count": 1.0}]
    [d] = _spend(pack, n1_stack("1000000", v100, zone="us-east4-a"))
    assert d.level == "mandatory" and "nvidia-tesla-v100 in us-east4" in d.message
    assert "no catalog price" in d.message
