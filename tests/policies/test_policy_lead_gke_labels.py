"""Issue 35, review57's defect 1 (lead fix): a GKE pool's nodes carry GCP labels, not Kubernetes
ones. A GCP budget's `budgetFilter.labels` takes the pool in by the labels its Compute Engine
VMs carry: the cluster's `resourceLabels` (with the provider's defaultLabels) and the pool's
`nodeConfig.resourceLabels` ("The resource labels for the cluster / node pool to use to annotate
any related Google Compute Engine resources", GKE API v1 Cluster and NodeConfig), never
`nodeConfig.labels`, which pulumi-gcp documents as "The Kubernetes labels (key/value pairs) to be
applied to each node" and GKE's labels page says "do not inherit or share labels" with GKE's.
Which of the two a node gets when both set one key differently is not stated there: "cannot
decide". Driven over gRPC on review57's GKE A3 Ultra stack (its builder), whose budget is made to
filter on label team=pretrain; estimate 139,682.54 USD a month under its 150,000 budget (review57
f03), so the budget's reach alone decides spend-limit."""
from __future__ import annotations

import json

import pytest

from tests.policies.test_policy_review57 import GCP_P, LABELS, PROVIDERS, check, gke, named
from tests.policy_harness import PolicyPackProcess

SPEND = "spend-limit"
NO_TEAM = {k: v for k, v in LABELS.items() if k != "team"}


def stack(cluster: dict, pool, kubernetes=None) -> list:
    s = gke()
    named(s, "a3u-gke").props["resourceLabels"] = cluster
    config = named(s, "a3u-pool").props["nodeConfig"]
    config["resourceLabels"] = pool
    if kubernetes is not None:
        config["labels"] = kubernetes
    named(s, "a3u-budget").props["budgetFilter"] = {"labels": {"team": "pretrain"}}
    return s


def unknown():
    from trainstack_policies.model import UNKNOWN
    return UNKNOWN


CASES = [
    ("the pool's GCP label matches", stack(NO_TEAM, {"team": "pretrain"}), {}),
    ("only the Kubernetes label matches: no alarm for the pool",
     stack(NO_TEAM, {"team": "platform"}, {"team": "pretrain"}), {SPEND: "fail"}),
    ("the cluster's label reaches the nodes (Kubernetes label says otherwise)",
     stack(dict(LABELS), {"owner": "carol"}, {"team": "platform"}), {}),
    ("cluster and pool give team two values: which the node gets is not stated",
     stack(dict(LABELS), {"team": "platform"}), {SPEND: "undecided"}),
    ("the pool's GCP labels unknown at preview", stack(NO_TEAM, unknown()), {SPEND: "undecided"}),
    ("neither carries team: no alarm", stack(NO_TEAM, {"owner": "carol"}, {"team": "pretrain"}),
     {SPEND: "fail"}),
]


@pytest.mark.parametrize("why,stack_,expect", CASES, ids=[c[0] for c in CASES])
def test_a_gke_pool_is_taken_in_by_the_gcp_labels_its_nodes_carry(pack, why, stack_, expect):
    check(pack, why, "gke", stack_, expect)


def test_the_providers_default_labels_reach_the_nodes_through_the_cluster(pack):
    # pulumi-gcp merges the provider's defaultLabels into a cluster's labels (effectiveLabels).
    provider = {**GCP_P, "defaultLabels": json.dumps({"team": "pretrain"})}
    check(pack, "default labels", "gke", stack(NO_TEAM, {"owner": "carol"}), {}, None, provider)
    assert PROVIDERS["gke"] == GCP_P   # the other cases run on the plain provider
