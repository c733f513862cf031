"""Cost-allocation tags every trainstack resource carries.

Tags are passed explicitly to each child instead of through a transform: transforms are engine
callbacks, so the offline mock engine would never apply them (pulumi-notes §2).
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

from trainstack_components.catalog.data_sizes import DATA_MB_TAG, data_mb_tag

if TYPE_CHECKING:
    from trainstack_components.spec import ClusterSpec

CLUSTER_TAG = "trainstack:cluster"
STACK_TAG = "trainstack:stack"
MANAGED_BY_TAG = "managed-by"
# Markers the policy pack reads (policies/): the analyzer protocol shows a policy neither the spec
# nor resource options such as retainOnDelete, only resource properties.
RETAIN_TAG = "trainstack:retain"        # on a bucket created with retain_on_delete=True
MAX_HOURS_TAG = "trainstack:max-hours"  # the spec's workload.max_hours, rounded up
# Alibaba Cloud's nodes only (pulumi-alicloud has no budget resource): the spec's
# budget.monthly_usd, which spend-limit takes as the stack's budget. It can only lower the cap.
BUDGET_TAG = "trainstack:budget-usd"
# the bucket's expected contents, MB (components/catalog/data_sizes.py), for the spend check
OWN_TAGS = (CLUSTER_TAG, STACK_TAG, MANAGED_BY_TAG, RETAIN_TAG, MAX_HOURS_TAG, DATA_MB_TAG,
            BUDGET_TAG)


def cluster_tags(spec: ClusterSpec, stack: str) -> dict[str, str]:
    tags = {**spec.tags, CLUSTER_TAG: spec.name, STACK_TAG: stack, MANAGED_BY_TAG: "trainstack"}
    if spec.lifetime_hours:
        tags[MAX_HOURS_TAG] = str(math.ceil(spec.lifetime_hours))
    wl = spec.workload
    data_mb = data_mb_tag(wl.model_params, wl.train_tokens, wl.method) if wl else None
    if data_mb:
        tags[DATA_MB_TAG] = data_mb
    return tags


# AWS tag rules (AWS "Tag restrictions", e.g. the Batch and ECS user guides): at most 50 tags per
# resource (aws: tags not counted), keys 1-128 and values 0-256 Unicode characters, and the set
# every tagging service accepts: letters, digits, spaces and `_ . : / = + - @`. S3 and FSx refuse
# anything else at `pulumi up`, so trainstack refuses it at plan time.
AWS_MAX_TAGS = 50
AWS_TAG_SYMBOLS = "_.:/=+-@ "
# Besides cluster_tags(), a resource carries at most one more: `Name` (VPC, subnets, instances)
# or the bucket's RETAIN_TAG.
AWS_EXTRA_TAGS = 1


def _aws_bad_char(text: str):
    return next((ch for ch in text if not (ch.isalnum() or ch in AWS_TAG_SYMBOLS)), None)


def check_aws_tags(spec: ClusterSpec, stack: str = "stack") -> None:
    from trainstack_components.errors import SpecError
    for key, value in spec.tags.items():
        for part, text in (("key", key), ("value", value)):
            bad = _aws_bad_char(text)
            if bad is not None:
                raise SpecError(f"tags.{key}", f"the tag {part} {text!r} contains {bad!r}, which "
                                "AWS tags refuse (S3 and FSx accept only letters, digits, spaces "
                                "and _ . : / = + - @).", "Remove or replace that character.")
    total = len(cluster_tags(spec, stack)) + AWS_EXTRA_TAGS
    if total > AWS_MAX_TAGS:
        own = total - len(spec.tags)
        raise SpecError("tags", f"{len(spec.tags)} tags plus trainstack's own {own} make {total} "
                        f"on some AWS resources; AWS allows at most {AWS_MAX_TAGS}.",
                        f"Keep at most {AWS_MAX_TAGS - own} tags.")
