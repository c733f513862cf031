"""The nodes' Google Cloud identity: a dedicated service account per cluster (never the default
compute account, which some organisations disable and which is in effect an editor), and the
Managed Lustre service agent's access to the bucket (import/export fail silently without it,
cluster-toolkit modules/file-system/managed-lustre README).
"""
from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass

import pulumi
import pulumi_gcp as gcp

from trainstack_components.gcp import planning

# Project-level roles: logs and metrics out. Rank discovery (listing the managed instance
# group's instances and their addresses) gets a custom role with only the permissions it calls
# (planning.RANK_DISCOVERY_PERMISSIONS), not roles/compute.viewer. Nothing else at project level.
PROJECT_ROLES = {"logs": "roles/logging.logWriter", "metrics": "roles/monitoring.metricWriter"}
BUCKET_ROLE = "roles/storage.objectUser"          # read/write/delete objects of this bucket only
LUSTRE_AGENT_BUCKET_ROLE = "roles/storage.admin"  # on the bucket only: import and export
ACCOUNT_ID_MAX = 30
_NOT_ID = re.compile(r"[^a-z0-9-]")


def service_account_id(name: str, stack: str) -> str:
    """A per-cluster, per-stack account ID: 6-30 chars, [a-z][a-z0-9-]*[a-z0-9]."""
    base = _NOT_ID.sub("-", f"{name}-{stack}".lower()).strip("-")
    if len(base) <= ACCOUNT_ID_MAX:
        return base if len(base) >= 6 else f"{base}-nodes"[:ACCOUNT_ID_MAX]
    digest = hashlib.sha256(base.encode()).hexdigest()[:6]
    return f"{base[:ACCOUNT_ID_MAX - 7].rstrip('-')}-{digest}"


def lustre_agent_member(project_number: str) -> str:
    return f"serviceAccount:service-{project_number}@gcp-sa-lustre.iam.gserviceaccount.com"


@dataclass(frozen=True)
class NodeIdentity:
    account: gcp.serviceaccount.Account
    member: pulumi.Output[str]
    lustre_agent_access: pulumi.Resource   # the Lustre service agent's grant on the bucket


def node_identity(name: str, stack: str, project: str, bucket: gcp.storage.Bucket,
                  apis: Mapping[str, pulumi.Resource], parent: pulumi.Resource) -> NodeIdentity:
    """`apis`: the project services by key; the account waits for "iam", the agent for "lustre"."""
    opts = pulumi.ResourceOptions(parent=parent)
    account = gcp.serviceaccount.Account(
        f"{name}-node-sa", project=project, account_id=service_account_id(name, stack),
        display_name=f"trainstack {name} ({stack}) nodes",
        description="trainstack nodes: logs, metrics, MIG listing, the cluster bucket",
        opts=pulumi.ResourceOptions(parent=parent, depends_on=[apis["iam"]]))
    member = account.email.apply(lambda email: f"serviceAccount:{email}")
    for key, role in PROJECT_ROLES.items():
        gcp.projects.IAMMember(f"{name}-node-{key}", project=project, role=role, member=member,
                               opts=opts)
    # A deleted custom role's ID stays taken for a while; the provider undeletes it on create.
    ranks = gcp.projects.IAMCustomRole(
        f"{name}-node-ranks-role", project=project, role_id=planning.rank_role_id(name, stack),
        title=f"trainstack {name} ({stack}) rank discovery",
        description="List this cluster's managed instance group and its instances' addresses",
        permissions=list(planning.RANK_DISCOVERY_PERMISSIONS),
        opts=pulumi.ResourceOptions(parent=parent, depends_on=[apis["iam"]]))
    gcp.projects.IAMMember(f"{name}-node-ranks", project=project, role=ranks.name, member=member,
                           opts=opts)
    gcp.storage.BucketIAMMember(f"{name}-node-bucket", bucket=bucket.name, role=BUCKET_ROLE,
                                member=member, opts=opts)
    # The agent exists only once asked for; ServiceIdentity makes sure it does.
    agent = gcp.projects.ServiceIdentity(f"{name}-lustre-agent", project=project,
                                         service="lustre.googleapis.com",
                                         opts=pulumi.ResourceOptions(parent=parent,
                                                                     depends_on=[apis["lustre"]]))
    number = gcp.organizations.get_project_output(
        project_id=project, opts=pulumi.InvokeOutputOptions(parent=parent)).number
    agent_access = gcp.storage.BucketIAMMember(
        f"{name}-lustre-agent-bucket", bucket=bucket.name, role=LUSTRE_AGENT_BUCKET_ROLE,
        member=number.apply(lustre_agent_member),
        opts=pulumi.ResourceOptions(parent=parent, depends_on=[agent]))
    return NodeIdentity(account, member, agent_access)
