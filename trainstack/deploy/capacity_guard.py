"""What `up` does after the Pulumi deploy: pin the node image, or scale a group that did not get
its capacity back to zero.

No partial cluster bills after a failed capacity request. AWS: the Auto Scaling group waits for
every node (`wait_for_capacity_timeout`); GCP: the managed instance group waits for a stable group
(flex-start asks for all nodes in one ResizeRequest and never starts part of them). When that
wait fails for want of capacity, the group may hold some nodes already, and the provider keeps
the part-created group in the state. `scale_back` then deploys once more with
`trainstack:holdNodes`, which sizes the group to zero (AWS, GCP, Azure's scale set, Alibaba's
per-node instances), removes the key again, and `up` fails with
a message that says so: the network, filesystem and bucket stay, the nodes are gone, and the next
`up` asks for all of them again. Any other failure is left alone, since a failed update of a
running cluster must not take its nodes away.
"""
from __future__ import annotations

from typing import Callable, Optional

from trainstack.deploy.errors import DeployFailed
from trainstack_components.pinning import HOLD_KEY, IMAGE_KEY

# Phrases in provider errors that mean "the cloud had no capacity (or quota) for the nodes".
CAPACITY_MARKERS = (
    "insufficientinstancecapacity", "insufficient capacity", "capacity satisfied",
    "waiting for capacity", "reservationcapacityexceeded", "capacity reservation",
    "zone_resource_pool_exhausted", "resource_pool_exhausted", "does not have enough resources",
    "quota_exceeded", "quota exceeded", "quota '", "stockout", "waiting for instances",
    # Azure: "Allocation failed. We do not have sufficient capacity ..." and the
    # AllocationFailed / ZonalAllocationFailed / OverconstrainedAllocationRequest codes
    # (learn.microsoft.com virtual-machines/troubleshooting/allocation-failure).
    "allocation failed", "allocationfailed", "overconstrainedallocationrequest",
    # Alibaba Cloud ECS RunInstances/CreateInstance: OperationDenied.NoStock (sold out in the
    # zone) and the zone-level stock codes.
    "operationdenied.nostock", "nostock", "zone.notonsale",
    # The rest of the codes trainstack/trial/capacity_errors.csv records with their sources:
    # EC2's Capacity Block / Spot / vCPU-quota codes and Azure's SkuNotAvailable.
    "insufficientcapacity", "unfulfillablecapacity", "vcpulimitexceeded", "skunotavailable",
)


def is_capacity_failure(message: str) -> bool:
    text = message.lower()
    # GCP flex-start: the group's one ResizeRequest ended FAILED (not granted in the zone).
    resize_failed = "resizerequest" in text and "failed" in text
    return resize_failed or any(marker in text for marker in CAPACITY_MARKERS)


def scale_back(selected, failure: Exception, stack: str, echo: Callable[[str], None],
               run: Callable) -> Exception:
    """Size the node group to zero after a capacity failure; return the error `up` raises."""
    import pulumi.automation as auto

    if not is_capacity_failure(str(failure)):
        return failure
    echo("\ntrainstack: the nodes did not all get capacity; scaling the node group back to 0\n")
    selected.set_config(HOLD_KEY, auto.ConfigValue("true"))
    try:
        run(lambda: selected.up(on_output=echo))
    except DeployFailed as also:
        return DeployFailed(
            f"{failure}\nThe cloud did not grant every node, and scaling the group back to 0 "
            f"failed too ({also}). Nodes may still be running and billing: run `trainstack "
            f"destroy --stack {stack}` or size the group to 0 in the cloud console.")
    finally:
        selected.remove_config(HOLD_KEY)
    return DeployFailed(
        f"{failure}\nThe cloud did not grant every node, so the node group was scaled back to 0: "
        "no node is running or billing. The network, filesystem and bucket stay (they bill "
        f"too). Run `trainstack up --stack {stack}` again to retry, choose another capacity type "
        f"(docs/capacity.md), or `trainstack destroy --stack {stack}`.")


def pin_image(selected, outputs: dict, echo: Callable[[str], None]) -> Optional[str]:
    """Write the image the first deploy resolved into the stack file, once."""
    import pulumi.automation as auto
    image = outputs.get("image")
    if not image or IMAGE_KEY in selected.get_all_config():
        return None
    selected.set_config(IMAGE_KEY, auto.ConfigValue(str(image)))
    echo(f"\ntrainstack: pinned the node image {image} as {IMAGE_KEY} in the stack file; every "
         "later deploy, heal and replacement boots it until you change that key.\n")
    return str(image)
