"""Exemptions a reviewer can see and a provider default cannot grant.

A resource is exempt from a policy only by something written for that resource:
- its OWN tag/label `trainstack:policy-skip` naming the policies (commas or spaces; GCP label
  values allow neither, so "__" separates there), or "all". Tags a provider adds to every
  resource (AWS `defaultTags`, arriving in the inputs as `tagsAll`; GCP `defaultLabels`, as
  `effectiveLabels`/`terraformLabels`) never count: one provider-wide entry would otherwise
  exempt the whole stack;
- a `skipResources` entry in the policy's config: a URN (glob patterns allowed, e.g.
  `urn:pulumi:prod::app::aws:s3/bucket:Bucket::scratch-*`) or a `<type>::<name>` pattern
  (`aws:s3/bucket:Bucket::scratch-*`). A bare name is refused by the schema and never
  matches: `["web"]` must not also exempt a 512-node GPU group that happens to be named `web`.
Every exemption is reported (pack: an advisory note per exempt resource and policy; `trainstack
check`: listed in the output and as SARIF suppressions).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from fnmatch import fnmatchcase
from functools import lru_cache
from typing import Any, Iterable, Optional

from trainstack_policies.model import UNKNOWN, Resource

SKIP_TAG = "trainstack:policy-skip"
SKIP_SCHEMA = {
    "type": "array", "default": [],
    "items": {"type": "string", "minLength": 1, "pattern": "::"},
    "description": "Resources this policy does not judge (documented exemptions): URNs or "
                   "<type>::<name> patterns (glob * and ? allowed), e.g. "
                   "aws:s3/bucket:Bucket::scratch-*. Bare names are refused.",
}
_SEPARATORS = re.compile(r"[,;\s]+|__")
_LABEL_CHARS = re.compile(r"[^a-z0-9]+")


@dataclass(frozen=True)
class Exemption:
    policy: str
    urn: str
    name: str
    type: str
    how: str

    @property
    def message(self) -> str:
        return f"{self.name} ({self.type}) is exempt from {self.policy} by {self.how}"


def tag_key(r: Resource) -> str:
    if r.type == "gcp:monitoring/notificationChannel:NotificationChannel":
        return "userLabels"
    return "labels" if r.cloud == "gcp" else "tags"


def own_tags(r: Resource) -> Any:
    """The tags/labels the program set on this resource itself (never tagsAll, effectiveLabels
    or the provider's defaults); AWS ASG tag lists flattened; UNKNOWN if unknown."""
    value = r.get(tag_key(r))
    if value is UNKNOWN:
        return UNKNOWN
    if isinstance(value, list):
        return {str(t.get("key")): t.get("value") for t in value if isinstance(t, dict)}
    return dict(value) if isinstance(value, dict) else {}


def own_tag(r: Resource, key: str) -> Any:
    """The value of the resource's own tag `key` (GCP: by normalised label key, Azure: case-
    insensitive); None when absent, UNKNOWN when the tags are unknown."""
    value = r.get(tag_key(r))
    if value is UNKNOWN:
        return UNKNOWN
    if isinstance(value, list):
        tags = {str(t.get("key")): t.get("value") for t in value if isinstance(t, dict)}
    elif isinstance(value, dict):
        tags = value   # what own_tags() gives, without its copy: tag_value() only reads
    else:
        return None    # own_tags() gives {}: no tag
    return tag_value(r, tags, key)


def tag_value(r: Resource, tags: dict, key: str) -> Any:
    """The value of tag `key` in `tags` (GCP: by normalised label key; Azure: tag names are
    case-insensitive); None when absent."""
    if key in tags:
        return tags[key]
    # The first tag, in the tags' order, whose key matches (plain loops: most resources of
    # these clouds are asked for a tag they do not have, which walks every key).
    cloud = r.cloud
    if cloud == "gcp":
        wanted = normalize_label_key(key)
        for k in tags:
            if normalize_label_key(k) == wanted:
                return tags[k]
    elif cloud == "azure":
        wanted = key.lower()
        for k in tags:
            if k.lower() == wanted:
                return tags[k]
    return None


@lru_cache(maxsize=4096)   # a stack uses a handful of label keys, read for every resource
def normalize_label_key(key: str) -> str:
    """GCP label keys allow only [a-z0-9_-]; `trainstack:cluster`, `trainstack_cluster` and
    `trainstack-cluster` all normalise to the same key, whichever spelling a component chose."""
    return _LABEL_CHARS.sub("_", key.lower()).strip("_")


def skip_names(r: Resource) -> frozenset[str]:
    """The policy names (or "all") the resource's own skip tag exempts it from."""
    if r.cloud not in ("aws", "gcp", "azure", "alicloud"):
        return frozenset()
    value = own_tag(r, SKIP_TAG)
    if value is UNKNOWN or value is None:
        return frozenset()
    return frozenset(n for n in _SEPARATORS.split(str(value).strip().lower()) if n)


def matching_entry(entries: Iterable[Any], r: Resource) -> Optional[str]:
    """The first `skipResources` entry that names `r` (URN or type::name pattern), else None."""
    for entry in entries:
        if not isinstance(entry, str) or "::" not in entry:
            continue   # a bare name: refused by the schema, never a match
        if entry.startswith("urn:"):
            if entry == r.urn or fnmatchcase(r.urn, entry):
                return entry
        elif fnmatchcase(f"{r.type}::{r.name}", entry):
            return entry
    return None
