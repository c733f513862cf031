"""Alibaba Cloud test helpers (issue 21).

CPFS exists only in the China-site regions and Singapore, and the shipped price data lists the
eRDMA types (ebmgn8v, gn8v) and gn7e only outside them (eu-central-1, ap-northeast-1). To plan
those shapes where their file system exists, tests add STUB price rows in cn-wulanchabu that
copy the listed prices. The stubs are test data only: they are not a cited price, and the
shipped catalog does not carry them.
"""
from __future__ import annotations

import copy
import dataclasses

from trainstack_components import catalog

STUB_REGION, STUB_ZONE = "cn-wulanchabu", "cn-wulanchabu-c"
STUBBED = {"ecs.ebmgn8v.48xlarge": "eu-central-1", "ecs.gn8v-8x.48xlarge": "eu-central-1",
           "ecs.gn7e-c16g1.32xlarge": "ap-northeast-1"}


def stub_rows(real: tuple) -> tuple:
    rows = []
    for itype, region in STUBBED.items():
        listed = next(p for p in real if p.instance_type == itype and p.region == region)
        rows.append(dataclasses.replace(listed, region=STUB_REGION, zones=(STUB_ZONE,),
                                        source="TEST STUB (tests/alicloud_helpers.py): "
                                        f"the {region} price copied, not a cited price"))
    return tuple(rows)


def stub_cpfs_region_prices(monkeypatch) -> None:
    """Make catalog.prices() return the shipped rows plus the cn-wulanchabu stubs."""
    real = catalog.prices.__wrapped__()  # the shipped rows (functools.cache keeps the function)
    extra = stub_rows(real)
    monkeypatch.setattr(catalog, "prices", lambda: real + extra)
    # price() looks rows up in an index built once from prices(): a test that priced anything
    # before this stub would leave the stub rows out of it (order-dependent failures).
    index = catalog._prices_by_key.__wrapped__()
    for row in extra:
        index.setdefault((row.cloud, row.instance_type, row.region), row)
    monkeypatch.setattr(catalog, "_prices_by_key", lambda: index)
    monkeypatch.setattr(catalog, "priced_regions", lambda cloud: frozenset(
        p.region for p in real + extra if p.cloud == cloud))


def in_cpfs_region(spec: dict, instance_type: str | None = None, gpu: str | None = None) -> dict:
    """`spec` (the example) moved to the stub CPFS region, on `instance_type` / `gpu`."""
    spec = copy.deepcopy(spec)
    spec["clouds"]["alicloud"].update(region=STUB_REGION, zone=STUB_ZONE,
                                      instance_type=instance_type)
    if gpu:
        spec["gpu"] = [gpu]
    return spec
