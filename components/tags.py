"""Cost-allocation tags every trainstack resource carries.

Tags are passed explicitly to each child instead of through a transform: transforms are engine
callbacks, so the offline mock engine would never apply them (pulumi-notes §2).
"""
from __future__ import annotations

from components.spec import ClusterSpec

CLUSTER_TAG = "trainstack:cluster"
STACK_TAG = "trainstack:stack"
MANAGED_BY_TAG = "managed-by"


def cluster_tags(spec: ClusterSpec, stack: str) -> dict[str, str]:
    return {**spec.tags, CLUSTER_TAG: spec.name, STACK_TAG: stack, MANAGED_BY_TAG: "trainstack"}
