"""What each cloud's default node image holds (node_images.csv, one cited source per line), what
the boot must install on top of it, and whether a training image's CUDA runs on its driver
(cuda_drivers.csv: NVIDIA's minimum driver per CUDA major and the branches that run a newer
CUDA in forward-compatibility mode).

    lacking("gcp")                 -> ["docker", "container_toolkit", "python3_venv", ...]
    check_cuda("azure", "13.1")    -> None, or a SpecError naming the driver and the way out
"""
from __future__ import annotations

import csv
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Optional

from trainstack_components.errors import SpecError

# What a boot step needs from the image, and why (the plan prints the why).
NEEDS = {
    "docker": "the runtime step pulls the training image and the job agent runs jobs in it",
    "container_toolkit": "`docker run --gpus all` needs the NVIDIA container toolkit",
    "python3_venv": "the job agent's pinned environment is a venv (python3 -m venv)",
}
PACKAGE_NAMES = {"docker": "docker.io", "container_toolkit": "nvidia-container-toolkit",
                 "python3_venv": "python3-venv"}
ITEMS = ("driver", "cuda", "docker", "container_toolkit", "python3_venv", "rdma_stack",
         "nccl_plugin", "fs_client", "release_notes")


@dataclass(frozen=True)
class ImageItem:
    cloud: str
    image: str
    item: str
    present: bool
    value: str
    source: str


def _read(name: str) -> list[dict[str, str]]:
    text = resources.files("trainstack_components.catalog").joinpath(name).read_text("utf-8")
    return list(csv.DictReader(text.splitlines()))


@lru_cache(maxsize=1)
def manifests() -> dict[str, dict[str, ImageItem]]:
    """cloud -> item -> the manifest line."""
    out: dict[str, dict[str, ImageItem]] = {}
    for row in _read("node_images.csv"):
        item = ImageItem(row["cloud"], row["image"], row["item"], row["present"] == "yes",
                         row["value"], row["source"])
        out.setdefault(item.cloud, {})[item.item] = item
    return out


def manifest(cloud: str) -> dict[str, ImageItem]:
    return manifests().get(cloud, {})


def image_name(cloud: str) -> str:
    """The node image's name as its first manifest line gives it."""
    items = list(manifest(cloud).values())
    return items[0].image if items else ""


def lacking(cloud: str) -> list[str]:
    """What a boot step needs that the cloud's node image does not hold: the boot installs it."""
    items = manifest(cloud)
    return [need for need in NEEDS if need in items and not items[need].present]


def installs(cloud: str) -> list[tuple[str, str]]:
    """(what the boot installs on top of the image, why): the plan's per-image line."""
    items = manifest(cloud)
    out = [(PACKAGE_NAMES[need], NEEDS[need]) for need in lacking(cloud)]
    for item, why in (("driver", "the image has no GPU driver"),
                      ("rdma_stack", "the fabric's verbs userspace"),
                      ("nccl_plugin", "the fabric's NCCL plugin, mounted into the container"),
                      ("fs_client", "the cluster filesystem's client, matching the kernel")):
        line = items.get(item)
        if line and not line.present and (line.value or item != "nccl_plugin"):
            out.append((item + (f" {line.value}" if line.value else ""), why))
    return out


@lru_cache(maxsize=1)
def _cuda_rules() -> tuple[dict[int, str], dict[int, set[int]]]:
    minimum: dict[int, str] = {}
    forward: dict[int, set[int]] = {}
    for row in _read("cuda_drivers.csv"):
        major = int(row["cuda_major"])
        if row["rule"] == "minimum":
            minimum[major] = row["driver"]
        else:
            forward[major] = {int(b) for b in row["driver"].split()}
    return minimum, forward


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in text.split(".") if p.isdigit())


def cuda_runs(driver: str, cuda: str) -> bool:
    """Whether CUDA `cuda` (major.minor) runs on driver `driver` (a release or a branch): the
    driver is at least the minimum for that CUDA major, or its branch is one of those NVIDIA
    supports in forward-compatibility mode on data center GPUs."""
    minimum, forward = _cuda_rules()
    major = _version(cuda)[0]
    if major not in minimum:
        raise ValueError(f"no minimum driver for CUDA {major}.x in cuda_drivers.csv")
    have = _version(driver)
    need = _version(minimum[major])
    if have[:1] == need[:1] and len(have) == 1:   # a branch only (580): the branch suffices
        return True
    return have >= need or have[0] in forward.get(major, set())


def check_cuda(cloud: str, cuda: str, image: str) -> Optional[SpecError]:
    """A SpecError when the training image's CUDA does not run on the node image's driver."""
    driver = manifest(cloud).get("driver")
    if not driver or not driver.value or not cuda:
        return None
    if cuda_runs(driver.value, cuda):
        return None
    minimum, forward = _cuda_rules()
    major = _version(cuda)[0]
    branches = ", ".join(f"R{b}" for b in sorted(forward.get(major, ())))
    return SpecError(
        "runtime.image",
        f"the training image {image} needs CUDA {cuda}, which NVIDIA driver {driver.value} of "
        f"the {cloud} node image ({driver.image}) cannot run: CUDA {major}.x needs driver "
        f">= {minimum[major]}, or a forward-compatible branch ({branches}) "
        "(components/catalog/cuda_drivers.csv)",
        "pin a training image built for an older CUDA in runtime.image, or a node image with a "
        "newer driver (components/catalog/node_images.csv)")
