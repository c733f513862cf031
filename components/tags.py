"""Cost-allocation tags every trainstack resource carries.

Tags are passed explicitly to each child instead of through a transform: transforms are engine
callbacks, so the offline mock engine would never apply them (pulumi-notes §2).
"""
from __future__ import annotations

import math

from components.catalog.data_sizes import DATA_MB_TAG, data_mb_tag
from components.spec import ClusterSpec

CLUSTER_TAG = "trainstack:cluster"
STACK_TAG = "trainstack:stack"
MANAGED_BY_TAG = "managed-by"
# Markers the policy pack reads (policies/): the analyzer protocol shows a policy neither the spec
# nor resource options such as retainOnDelete, only resource properties.
RETAIN_TAG = "trainstack:retain"        # on a bucket created with retain_on_delete=True
MAX_HOURS_TAG = "trainstack:max-hours"  # the spec's workload.max_hours, rounded up
# the bucket's expected contents, MB (components/catalog/data_sizes.py), for the spend check
OWN_TAGS = (CLUSTER_TAG, STACK_TAG, MANAGED_BY_TAG, RETAIN_TAG, MAX_HOURS_TAG, DATA_MB_TAG)


def cluster_tags(spec: ClusterSpec, stack: str) -> dict[str, str]:
    tags = {**spec.tags, CLUSTER_TAG: spec.name, STACK_TAG: stack, MANAGED_BY_TAG: "trainstack"}
    if spec.lifetime_hours:
        tags[MAX_HOURS_TAG] = str(math.ceil(spec.lifetime_hours))
    wl = spec.workload
    data_mb = data_mb_tag(wl.model_params, wl.train_tokens, wl.method) if wl else None
    if data_mb:
        tags[DATA_MB_TAG] = data_mb
    return tags
