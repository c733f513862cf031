"""required-tags: every taggable resource carries the configured cost-allocation tags.

GCP resources carry labels, whose keys allow only [a-z0-9_-]; a required tag such as
`cost-center` is matched against the normalised label key there (policies/inventory.py).
"""
from __future__ import annotations

from typing import Any, Mapping

from policies.inventory import is_taggable, tag_key_of, tag_value, tags_of
from policies.model import UNKNOWN, Resource, UnknownValue, Violation, violation

NAME = "required-tags"
DESCRIPTION = "Every taggable resource carries the required cost-allocation tags (GCP: labels)."
ENFORCEMENT_LEVEL = "mandatory"
KIND = "resource"
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
    tags = tags_of(resource)
    if tags is UNKNOWN:
        raise UnknownValue(resource, key)
    required = list(config.get("requiredTags", DEFAULT_TAGS))
    missing = [k for k in required if tag_value(resource, tags, k) in (None, "")]
    if not missing:
        return []
    noun = "labels" if key == "labels" else "tags"
    present = ", ".join(sorted(tags)) or f"no {noun}"
    return [violation(resource, f"missing required {noun} {', '.join(missing)}", present,
                      f"{noun} {', '.join(required)} with non-empty values",
                      f"add {', '.join(missing)} under `tags:` in the spec (trainstack puts them "
                      f"on every resource), or pass them in this resource's {key}")]
