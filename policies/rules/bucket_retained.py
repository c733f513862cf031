"""bucket-retained: the training-data bucket survives `pulumi destroy`.

The resource option that makes it survive, retainOnDelete, is not visible to a policy pack: the
analyzer protocol's AnalyzerResourceOptions carries protect, ignoreChanges, deleteBeforeReplace,
aliases, customTimeouts and parent, but no retainOnDelete (pulumi/runtime/proto/analyzer_pb2.pyi,
pulumi 3.272). So a rule that only read the option would pass offline and could never fail in
`pulumi preview`, or the other way round. Instead the check rests on what both runners see:

- the component marks every bucket it retains with the tag/label `trainstack:retain=true`, set
  by the same line of code that sets retain_on_delete (components/aws/cluster.py `_bucket`), so the
  marker cannot drift from the option within trainstack's own components;
- `forceDestroy` must not be true (AWS, GCP, Alibaba): a force-destroyable bucket empties itself
  the moment anything deletes it;
- where the runner does see the option (the offline checker reads it from the mock engine), a
  marker without retainOnDelete is itself a violation, so `trainstack check` catches a marker that
  lies. The pack cannot: a hand-written program that sets the tag but not the option passes
  `pulumi preview`. That is the protocol's limit, stated here rather than hidden.
"""
from __future__ import annotations

from typing import Any, Mapping

from policies.inventory import RETAIN_TAG, is_bucket, retained_marker
from policies.model import UNKNOWN, Resource, UnknownValue, Violation, truthy, violation

NAME = "bucket-retained"
DESCRIPTION = ("The bucket survives `pulumi destroy`: retainOnDelete (marked by the "
               f"{RETAIN_TAG}=true tag/label) and no forceDestroy.")
ENFORCEMENT_LEVEL = "mandatory"
KIND = "resource"

_FIX = ("set bucket.retain_on_destroy: true in the spec (trainstack then sets retain_on_delete, "
        f"force_destroy=False and the {RETAIN_TAG} tag together); in a hand-written program pass "
        f"ResourceOptions(retain_on_delete=True), force_destroy=False and tag {RETAIN_TAG}=true")


def check(resource: Resource, config: Mapping[str, Any]) -> list[Violation]:
    if not is_bucket(resource):
        return []
    out: list[Violation] = []
    force = resource.get("forceDestroy")
    if force is UNKNOWN:
        raise UnknownValue(resource, "forceDestroy")
    if truthy(force):
        out.append(violation(resource, "the bucket is force-destroyable", "forceDestroy true",
                             "forceDestroy false", _FIX))
    marker = retained_marker(resource)
    if marker is UNKNOWN:
        raise UnknownValue(resource, "tags")
    if str(marker or "").lower() != "true":
        out.append(violation(resource, "the bucket is not marked as retained on destroy",
                             f"{RETAIN_TAG}={marker}" if marker is not None
                             else f"no {RETAIN_TAG} tag", f"{RETAIN_TAG}=true with "
                             "retainOnDelete", _FIX))
    elif resource.retain is False:
        out.append(violation(resource, f"the bucket is tagged {RETAIN_TAG}=true but "
                             "retainOnDelete is not set", "retainOnDelete false",
                             "retainOnDelete true", _FIX))
    return out
