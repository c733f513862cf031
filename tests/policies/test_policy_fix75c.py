"""fix75c: review75's DEFECTS 1-2, GCP reservations (gcp:compute/reservation) and future
reservations (gcp:compute/futureReservation) built from an instance template by
`sourceInstanceTemplate` instead of `instanceProperties`, over gRPC as `pulumi preview
--policy-pack policies` drives the pack (tests/policy_harness.py), on review75's GCP base (a
1,000 USD budget with threshold rules, an internal firewall; provider project ml, us-central1).

The field takes "a full or partial URL" of a template: https://www.googleapis.com/compute/v1/
projects/P/global/instanceTemplates/T, projects/P/global/instanceTemplates/T, global/
instanceTemplates/T (cloud.google.com/compute/docs/reference/rest/v1/reservations,
AllocationSpecificSKUReservation.sourceInstanceTemplate: "If you use this field, you must exclude
the instanceProperties field"); a future reservation's is "the instance template that will be
used to populate the ReservedInstanceProperties" (FutureReservationSpecificSKUProperties). A
template of the stack is the one the input depends on (as a MIG's versions): its machine type
and accelerators are reserved. Any other value, a literal URL (global or regional) or one unknown
at preview with no template behind it, names a template the stack does not create: its type is
read nowhere, so spend-limit names the reservation and fails closed (docs/policies.md, Scope).

Rates (components/catalog/prices.csv, gcp_attached_gpus.csv, us-central1, on demand USD/h, a
month 730 h): a2-highgpu-1g 3.67339 (2,681.57 a month); n1-standard-8 0.38 + nvidia-tesla-t4
0.35 = 0.73 (532.90 a month per VM).
"""
from __future__ import annotations

from typing import Any, Optional

import pytest

from tests.policies.test_policy_review75 import (
    A2,
    LABELS,
    MONTH,
    N1_8,
    SPEND,
    T4,
    _add,
    _chain,
    _run_case,
    iso_utc,
    rng,
    unknown,
)
from tests.policy_fixtures import res

REGIONAL = "gcp:compute/regionInstanceTemplate:RegionInstanceTemplate"
GLOBAL = "gcp:compute/instanceTemplate:InstanceTemplate"
OUTSIDE = "which the stack does not create"


def tpl(name: str, mtype: str, kind: str = GLOBAL, gpus: Optional[list] = None):
    """An instance template of the stack (explicit name input), global or regional."""
    def build(_s):
        p: dict = {"name": name, "machineType": mtype, "labels": dict(LABELS),
                   "networkInterfaces": [{"network": "default"}],
                   "disks": [{"boot": True, "sourceImage": "debian-cloud/debian-12"}],
                   "scheduling": {"provisioningModel": "STANDARD",
                                  "onHostMaintenance": "TERMINATE"}}
        if kind == REGIONAL:
            p["region"] = "us-central1"
        if gpus is not None:
            p["guestAccelerators"] = gpus
        return res(kind, name, p)
    return _add(build)


def _find(s: list, name: str):
    return next(r for r in s if r.name == name)


def reservation(source: Any, dep: Optional[str] = None, count: float = 1.0):
    """A reservation in us-central1-a built from `source` (sourceInstanceTemplate), depending
    on the stack's template `dep` where given."""
    return _add(lambda s: res("gcp:compute/reservation:Reservation", "ft-res", {
        "name": "ft-res", "zone": "us-central1-a",
        "specificReservation": {"count": count, "sourceInstanceTemplate": source}},
        deps={"specificReservation": [_find(s, dep)]} if dep else {}))


def future(source: Any, dep: Optional[str] = None):
    """A calendar-mode future reservation of 2 in us-central1-a, from `source`."""
    return _add(lambda s: res("gcp:compute/futureReservation:FutureReservation", "ft-fr", {
        "name": "ft-fr", "project": "ml", "zone": "us-central1-a",
        "reservationMode": "CALENDAR", "deploymentType": "DENSE", "planningStatus": "SUBMITTED",
        "timeWindow": {"startTime": iso_utc(72), "endTime": iso_utc(72 + 168)},
        "specificSkuProperties": {"totalCount": "2", "sourceInstanceTemplate": source}},
        deps={"specificSkuProperties": [_find(s, dep)]} if dep else {}))


T4_ONE = [{"type": "nvidia-tesla-t4", "count": 1.0}]
A3 = "projects/ml/global/instanceTemplates/a3-tpl"
REGION_URL = ("https://www.googleapis.com/compute/v1/projects/ml/regions/us-central1/"
              "instanceTemplates/a3-tpl")


def _fail(*needles: str) -> dict:
    return {SPEND: "fail", "_msg": {SPEND: list(needles)}}


CASES = [
    # -- reservations: a template of the stack, by dependency, is priced
    ("r01", "gcp0", {"budget": "3000"},
     _chain(tpl("a2-tpl", "a2-highgpu-1g", REGIONAL), reservation("tpl-link", "a2-tpl")),
     {"_est": rng(A2 * MONTH)}, None,
     "a reservation of 1 from the stack's REGIONAL a2-highgpu-1g template: 3.67339 x 730 = "
     "2,681.57 < 3,000"),
    ("r02", "gcp0", {}, _chain(tpl("t4-tpl", "n1-standard-8", gpus=T4_ONE),
                               reservation("tpl-link", "t4-tpl", count=2.0)),
     {SPEND: "fail", "_est": rng(2 * (N1_8 + T4) * MONTH)}, None,
     "a reservation of 2 from the stack's n1-standard-8 + 1 T4 template: the template's attached "
     "GPU reserved too, 2 x (0.38 + 0.35) x 730 = 1,065.80 > 1,000"),
    ("r03", "gcp0", {}, _chain(tpl("cpu-tpl", "n2-standard-8"),
                               reservation(unknown(), "cpu-tpl", count=4.0)),
     {}, None,
     "the stack's CPU template's self link unknown at preview (a new template), the reservation "
     "depending on it: the template is read, no GPU, nothing asked"),
    # -- reservations: a template the stack does not create fails closed, named
    ("r04", "gcp0", {}, reservation("global/instanceTemplates/a3-tpl"),
     _fail("ft-res", "'global/instanceTemplates/a3-tpl'", OUTSIDE), None,
     "a partial global URL (global/instanceTemplates/T): read nowhere, named"),
    ("r05", "gcp0", {}, reservation(REGION_URL),
     _fail("ft-res", REGION_URL, OUTSIDE), None,
     "a full regional URL: read nowhere, named"),
    ("r06", "gcp0", {}, _chain(tpl("a3-tpl", "n2-standard-8"), reservation(A3)),
     _fail("ft-res", OUTSIDE), None,
     "a literal URL whose last segment is the name of a template of the stack, with no "
     "dependency on it: tied by dependency only, as a MIG's versions are, so read nowhere "
     "(never below the truth: the URL's project may not be this stack's)"),
    # -- future reservations
    ("f01", "gcp0", {}, _chain(tpl("a2-tpl", "a2-highgpu-1g", REGIONAL),
                               future("tpl-link", "a2-tpl")),
     _fail("ft-fr", "a2-tpl", "a2-highgpu-1g"), None,
     "a future reservation from the stack's regional a2-highgpu-1g template: GPU capacity the "
     "pack does not size, named with the template's type"),
    ("f02", "gcp0", {}, _chain(tpl("t4-tpl", "n1-standard-8", gpus=T4_ONE),
                               future(unknown(), "t4-tpl")),
     _fail("ft-fr", "t4-tpl"), None,
     "from the stack's n1 + T4 template, its self link unknown at preview: the attached GPU is "
     "the sign"),
    ("f03", "gcp0", {}, _chain(tpl("cpu-tpl", "n2-standard-8"), future("tpl-link", "cpu-tpl")),
     {}, None, "from the stack's CPU template: no GPU, nothing asked"),
    ("f04", "gcp0", {}, future("projects/ml/regions/us-central1/instanceTemplates/gpu"),
     _fail("ft-fr", "projects/ml/regions/us-central1/instanceTemplates/gpu", "does not create"),
     None, "a partial regional URL the stack does not create: read nowhere, named"),
    ("f05", "gcp0", {}, future(unknown()),
     _fail("ft-fr", "unknown until apply", "does not create"), None,
     "a template unknown at preview with none of the stack behind it: named"),
]


@pytest.mark.parametrize("case", [pytest.param(c, id=c[0]) for c in CASES])
def test_source_instance_template(pack, case):
    _run_case(pack, case)
