"""What the box's root holds on top of the Debian base, read from the node image's manifest
(components/catalog/node_images.csv, written by the issue-31 image work, one cited source per
line) and from the instance type's catalog row (GPUs, RDMA devices). Nothing else is put in: a
boot that needs what the manifest says the image lacks must install it (from the box's apt
repositories) or fail."""
from __future__ import annotations

import csv
import os
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# The cloud's own CLI on each default image (not a manifest item: the boot installs it where
# missing): the DLAMI carries the AWS CLI v2 (DLAMI release notes, "awscli"), Google's Ubuntu
# accelerator images the Google Cloud CLI (the google-cloud-cli snap of GCE Ubuntu images); the
# Azure HPC image and Alibaba's Ubuntu have none (the boot installs az and aliyun).
CLOUD_CLI = {"aws": ("aws", True), "gcp": ("gcloud", True), "azure": ("az", False),
             "alicloud": ("aliyun", False)}
# The kernel modules of the image's kernel (every Ubuntu kernel has these; the RDMA drivers
# of the clouds' NICs are in-tree): loaded when something asks.
KERNEL_MODULES = ("nfs", "mlx5_core", "mlx5_ib", "ib_uverbs", "rdma_ucm", "ib_core")


@dataclass(frozen=True)
class Item:
    present: bool
    value: str
    source: str


def manifest_path() -> Path:
    return Path(os.environ.get("TRAINSTACK_BOX_MANIFEST")
                or ROOT / "components" / "catalog" / "node_images.csv")


def manifest(cloud: str) -> dict[str, Item]:
    path = manifest_path()
    if not path.exists():
        raise FileNotFoundError(f"no node image manifest at {path}: the box holds what the "
                                "manifest says the image holds, so it cannot be built without it")
    items = {row["item"]: Item(row["present"] == "yes", row["value"], row["source"])
             for row in csv.DictReader(path.read_text().splitlines()) if row["cloud"] == cloud}
    if not items:
        raise KeyError(f"{path} has no lines for {cloud}")
    return items


@dataclass(frozen=True)
class Hardware:
    instance_type: str
    gpu: str
    gpus: int
    gpu_memory_gb: int
    fabric: str
    rdma_nics: int


def hardware(cloud: str, instance_type: str) -> Hardware:
    rows = csv.DictReader((ROOT / "components" / "catalog" / "instance_types.csv")
                          .read_text().splitlines())
    catalog_cloud = {"alicloud": "alibaba"}.get(cloud, cloud)   # the catalog's spelling
    for row in rows:
        if row["cloud"] == catalog_cloud and row["instance_type"] == instance_type:
            return Hardware(instance_type, row["gpu"], int(row["gpu_count"]),
                            int(float(row["gpu_memory_gb"] or 0)), row["fabric"],
                            int(row["rdma_nics"] or 0))
    raise KeyError(f"{cloud} {instance_type} is not in components/catalog/instance_types.csv")
