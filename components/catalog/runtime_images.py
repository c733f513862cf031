"""The training image each cloud's nodes pull when the spec names none (runtime_images.csv:
one per cloud, carrying the fabric's NCCL plugin the way the cloud documents for containers)."""
from __future__ import annotations

import csv
from functools import lru_cache
from importlib import resources
from typing import Optional


@lru_cache(maxsize=1)
def defaults() -> dict[str, dict[str, str]]:
    text = resources.files("trainstack_components.catalog").joinpath("runtime_images.csv").read_text("utf-8")
    return {row["cloud"]: row for row in csv.DictReader(text.splitlines())}


def runtime_image(cloud: str, region: str, image: Optional[str] = None) -> str:
    """The spec's image, else the cloud's default with its region filled in ("" if none)."""
    chosen = image or defaults().get(cloud, {}).get("image", "")
    return chosen.replace("{region}", region or "")
