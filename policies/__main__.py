"""The CrossGuard entry point: `pulumi preview --policy-pack policies` runs this file.

It only constructs the pack. PolicyPack() serves gRPC forever and writes its port as the first
line of stdout, which the engine parses; nothing may print to stdout before it.
"""
from pulumi_policy import PolicyPack

from policies.pack import PACK_NAME, policies

PolicyPack(
    PACK_NAME,
    policies(),
    description="trainstack guardrails: same-zone storage, spend limits, tags, RDMA, ingress, "
                "encryption and bucket retention for GPU training clusters on four clouds.",
)
