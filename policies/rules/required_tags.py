"""required-tags: every taggable resource carries the configured cost-allocation tags, non-blank.

Tags the provider adds to every resource (AWS `defaultTags`, GCP `defaultLabels`) count: the
provider resource travels with every Analyze request; defaults unknown at preview may hold a
missing tag ("cannot decide"). A blank value counts as missing.

GCP resources carry labels, whose keys allow only [a-z0-9_-]; a required tag such as
`cost-center` is matched against the normalised label key there (policies/inventory/tags.py).
"""
from __future__ import annotations

from typing import Any, Mapping

from trainstack_policies.exemptions import own_tags
from trainstack_policies.inventory import (
    is_taggable,
    provider_tags_unknown,
    tag_key_of,
    tag_value,
    tags_of,
)
from trainstack_policies.model import UNKNOWN, Resource, UnknownValue, Violation, violation

NAME = "required-tags"
DESCRIPTION = "Every taggable resource carries the required cost-allocation tags (GCP: labels)."
ENFORCEMENT_LEVEL = "mandatory"
KIND = "resource"
SEVERITY = "medium"
REMEDIATION = (
    'Add the missing tags under `tags:` in the spec (trainstack puts them on every resource), '
    'on the resource, or once on the provider (AWS default_tags, GCP default_labels). Blank '
    'values count as missing.'
)
SCOPE = (
    'Every resource of the four clouds that takes tags or labels (a known taggable type, or '
    "any resource with a tags/labels map), with the provider's default tags/labels counted. "
)
DEFAULT_TAGS = ["owner", "team", "cost-center"]
CONFIG_SCHEMA = {
    "requiredTags": {
        "type": "array", "items": {"type": "string", "minLength": 1}, "uniqueItems": True,
        "default": DEFAULT_TAGS,
        "description": "Tag keys every taggable resource must carry with a non-empty value.",
    },
}


def check(resource: Resource, config: Mapping[str, Any]) -> list[Violation]:
    if not is_taggable(resource):
        return []
    key = tag_key_of(resource)
    given = resource.get(key)
    if given is UNKNOWN:
        raise UnknownValue(resource, key)
    # Its own tags (exemptions.own_tags, without that copy where they are a map: only read).
    own = given if isinstance(given, dict) else own_tags(resource)
    required = config.get("requiredTags", DEFAULT_TAGS)
    for k in required:
        v = own.get(k)
        if v is None or v is UNKNOWN or not str(v).strip():
            break
    else:
        # Every required tag is the resource's own under that very key, known and not blank:
        # the provider's default tags cannot change that (its own tags win over them, and
        # tag_value reads a key that is there before any spelling of it), so the provider is
        # not read (reading it compares its inputs: most resources pass here).
        return []
    required = list(required)
    tags = tags_of(resource)
    values = {k: tag_value(resource, tags, k) for k in required}
    for k, v in values.items():
        if v is UNKNOWN:
            raise UnknownValue(resource, f"{key}.{k}")
    # A blank value ("" or spaces) allocates cost to nobody: it counts as missing.
    missing = [k for k, v in values.items() if v is None or not str(v).strip()]
    if not missing:
        return []
    unread = provider_tags_unknown(resource)
    if unread and any(tag_value(resource, own, k) is None for k in missing):
        # The provider's default tags, unknown at preview, may hold a tag missing here (one
        # the resource sets blank itself stays blank: its own tags win over the defaults).
        raise UnknownValue(resource, unread)
    noun = "labels" if key == "labels" else "tags"
    present = ", ".join(sorted(tags)) or f"no {noun}"
    return [violation(resource, f"missing required {noun} {', '.join(missing)}", present,
                      f"{noun} {', '.join(required)} with non-empty values",
                      f"add {', '.join(missing)} under `tags:` in the spec (trainstack puts them "
                      f"on every resource), or pass them in this resource's {key}")]
