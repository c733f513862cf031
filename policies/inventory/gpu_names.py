"""What a value names as GPU hardware, on any of the four clouds: the vocabulary of spend-limit's
GPU signs (capacity.gpu_signs), which sweep the resources the pack does not size.

A type field may hold a type of any cloud's catalog, whatever the resource's own cloud (GKE on
AWS names `p4d.24xlarge`, GKE on Azure `Standard_NC24ads_A100_v4`), or a service's own name that
names GPU hardware by its words (AppStream `stream.graphics.g4dn.xlarge`, WorkSpaces
`GRAPHICSPRO_G4DN`, Container Apps `NC24-A100` and `Consumption-GPU-NC8as-T4`). A value in one
cloud's own form of a type name (`p4d.24xlarge`, `Standard_A10`, `ecs.g7.xlarge`) is judged as
that name only: a CPU name may hold a word that elsewhere names a GPU (Azure's Standard_A10 is a
CPU size, the A10 a GPU).
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from trainstack_policies.inventory.groups import gpu_reason
from trainstack_policies.inventory.tokens import GPU_FAMILIES

CLOUDS = ("aws", "gcp", "azure", "alicloud")

# One cloud's own form of a type name: AWS family.size (SageMaker ml.family.size), Azure
# Standard_/Basic_ sizes, Alibaba Cloud ecs.* types.
_OWN_FORM = re.compile(r"(?:ml\.)?[a-z][a-z0-9-]*\.[a-z0-9-]+|(?:standard|basic)_[a-z0-9_]+|"
                       r"ecs\.[a-z0-9.-]+", re.I)
# Words that are no GPU model although the catalog's GPU column spells one so: T4G (the T4 of
# g5g) is also AWS's Graviton t4g family (db.t4g.micro, cache.t4g.small); a bare v<digits> is a
# version (the catalog's Alibaba "v8").
_NOT_MODELS = re.compile(r"t4g|v\d{1,2}")


@lru_cache(maxsize=1)
def gpu_models() -> frozenset[str]:
    """The GPU models of the catalog's GPU column, lower case, as one word of a name: A100 of
    A100-80GB, T4, L40S, MI300X, M60 ..."""
    from trainstack_policies.catalog import instance_types
    out = set()
    for t in instance_types():
        base = re.split(r"[-(]", t.gpu)[0].lower()
        if t.gpu_count and re.fullmatch(r"[a-z]{1,3}\d{1,4}[a-z]{0,2}", base) and \
                not _NOT_MODELS.fullmatch(base):
            out.add(base)
    return frozenset(out)


@lru_cache(maxsize=4096)
def gpu_named(cloud: str, value: Any, kind: str = "type") -> str:
    """Why a value names GPU hardware ("" when it does not). `kind`: "type", a type field's
    value (a list of names split on commas: Elastic Beanstalk's InstanceTypes "g5.xlarge,
    g5.2xlarge"); "name", a value read only as a whole name (a `type` key); "family", an
    instance family (`instanceFamily: g4dn`)."""
    if not isinstance(value, str) or not value.strip():
        return ""
    if kind == "family":
        return _family(cloud, value.strip())
    for name in re.split(r"[,\s]+", value.strip()) if kind == "type" else [value.strip()]:
        found = _named(cloud, name, kind)
        if found:
            return found
    return ""


def _named(cloud: str, name: str, kind: str) -> str:
    if not name:
        return ""
    # The whole name, on its resource's own cloud, then on any other: GKE on AWS and on Azure
    # are gcp: resources launching AWS and Azure types.
    for c in (cloud, *(c for c in CLOUDS if c != cloud)):
        reason = gpu_reason(c, name)
        if reason:
            return reason if c == cloud else f"{reason}, a {c} type"
    if kind != "type" or _OWN_FORM.fullmatch(name):
        return ""
    # A service's own name, by its words: GPU, a graphics class (AppStream stream.graphics*,
    # WorkSpaces GRAPHICS*: GPU instances and bundles), a GPU model (NC24-A100,
    # Consumption-GPU-NC8as-T4).
    for word in re.split(r"[^A-Za-z0-9]+", name):
        w = word.lower()
        if w == "gpu" or w.startswith("graphics"):
            return f"'{word}' in it names GPU hardware"
        if w in gpu_models():
            return f"the GPU model {word} in it"
    return ""


def _family(cloud: str, family: str) -> str:
    """An instance family of GPU types, as its resource's cloud names families: AWS g4dn (a
    Dedicated Host's instanceFamily), GCP a3, Alibaba Cloud ecs.gn7i (or gn7i), an Azure N-series
    family (standardNCADSA100v4Family). Only its own cloud's: Alibaba's general-purpose g6 family
    is AWS's GPU g6."""
    f = family.lower()
    found = {"aws": lambda: GPU_FAMILIES["aws"].match(f + "."),
             "gcp": lambda: GPU_FAMILIES["gcp"].match(f + "-"),
             "alicloud": lambda: GPU_FAMILIES["alicloud"].match(f if f.startswith("ecs.")
                                                                else "ecs." + f),
             "azure": lambda: re.match(r"standard_?n", f)}.get(cloud)
    return f"{family}, a GPU instance family" if found is not None and found() else ""
