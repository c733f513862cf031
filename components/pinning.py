"""Per-stack values the program reads from Pulumi config rather than the spec.

`trainstack:image` pins the node image: empty on a stack's first deploy, when each cloud resolves
its default image (AWS: the Deep Learning AMI's SSM parameter; GCP: the image family) to one fixed
image and exports it as the `image` output, which `trainstack up` then writes back into the stack
file. Every later deploy, heal and spot replacement boots that same image until someone changes
the key on purpose. `trainstack:holdNodes` sizes the node group to zero; `up` sets it for one
deploy to scale a group back after a failed capacity request.
"""
from __future__ import annotations

from typing import Optional

import pulumi

IMAGE_KEY = "trainstack:image"
HOLD_KEY = "trainstack:holdNodes"


def pinned_image() -> Optional[str]:
    return pulumi.Config("trainstack").get("image") or None


def nodes_held() -> bool:
    return bool(pulumi.Config("trainstack").get_bool("holdNodes"))


def image_note(resolved_from: str, spec_image: Optional[str] = None) -> str:
    """What the plan says about the node image: where it comes from and whether it is pinned."""
    if spec_image:
        return "set in the spec (fixed)"
    if pinned_image():
        return f"pinned in stack config ({IMAGE_KEY})"
    return (f"resolved from {resolved_from} on this deploy; `trainstack up` then pins it as "
            f"{IMAGE_KEY} in the stack file")
