"""bucket-retained: the training-data bucket survives `pulumi destroy`.

A bucket is retained when any of these holds, read wherever the runner can see it:
- the `protect` resource option (the analyzer request carries it in AnalyzerResourceOptions, so
  `pulumi preview` sees it, and so does the offline checker);
- the `retainOnDelete` resource option, which the analyzer protocol does not carry
  (AnalyzerResourceOptions in pulumi 3.x / pulumi-policy 1.21 has protect, ignoreChanges,
  deleteBeforeReplace, aliases, customTimeouts, additionalSecretOutputs and parent only): the
  offline checker reads it from the mock engine;
- the tag/label `trainstack:retain=true`, which trainstack's components set on the same line of
  code that sets retain_on_delete, so a preview can see what the option cannot show it.
`forceDestroy` must not be true (AWS, GCP, Alibaba): a force-destroyable bucket empties itself
the moment anything deletes it. Where the runner sees retainOnDelete, a marker without it (and
without protect) is itself a violation: `trainstack check` catches a marker that lies. The pack
cannot, which is the protocol's limit, stated here rather than hidden.
"""
from __future__ import annotations

from typing import Any, Mapping

from trainstack_policies.inventory import BUCKET_TYPES, RETAIN_TAG, is_bucket, retained_marker
from trainstack_policies.model import UNKNOWN, Resource, UnknownValue, Violation, truthy, violation

NAME = "bucket-retained"
DESCRIPTION = ("The bucket survives `pulumi destroy`: protect or retainOnDelete (in a preview: "
               f"protect, or the {RETAIN_TAG}=true tag/label) and no forceDestroy.")
ENFORCEMENT_LEVEL = "mandatory"
KIND = "resource"
SEVERITY = "high"
REMEDIATION = (
    'Set bucket.retain_on_destroy: true in the spec (trainstack sets retain_on_delete, '
    'force_destroy=False and the trainstack:retain tag together); in a hand-written program '
    'pass ResourceOptions(protect=True) or retain_on_delete=True with the '
    'trainstack:retain=true tag, and force_destroy=False.'
)
SCOPE = (
    'Every object-storage bucket (S3, aws or aws-native, Cloud Storage, Azure storage account, '
    'OSS) of any '
    'stack. Exempt scratch buckets with the trainstack:policy-skip tag. '
)

_FIX = ("set bucket.retain_on_destroy: true in the spec (trainstack then sets retain_on_delete, "
        f"force_destroy=False and the {RETAIN_TAG} tag together); in a hand-written program pass "
        f"ResourceOptions(retain_on_delete=True), force_destroy=False and tag {RETAIN_TAG}=true")

# The only types check() judges: any other gives [] unread (Rule.types).
TYPES = BUCKET_TYPES


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
    if resource.protect or resource.retain is True:
        return out   # the resource option itself, seen by this runner
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
