"""GCP budget action: at the budget's last threshold the managed instance group goes to 0.

The billing budget publishes every update to a Pub/Sub topic (`all_updates_rule.pubsub_topic`);
a 2nd-gen Cloud Function (components/functions/gcp_budget_stop, its source uploaded to the cluster's bucket)
resizes the MIG to 0 once cost >= budget x the last threshold. Its service account holds
Compute Instance Admin under an IAM condition naming this one group: a custom role would be
smaller, but a deleted custom role's ID stays reserved for weeks, which breaks reap-then-up.
"""
from __future__ import annotations

from pathlib import Path

import pulumi
import pulumi_gcp as gcp

FUNCTION_DIR = Path(__file__).resolve().parents[1] / "functions" / "gcp_budget_stop"  # package data
RUNTIME = "python312"
ENTRY_POINT = "entry"
# Cloud Billing's own publisher identity
# (cloud.google.com/billing/docs/how-to/budgets-programmatic-notifications).
BILLING_PUBLISHER = "serviceAccount:billing-budget-alert@system.gserviceaccount.com"
APIS = ("pubsub.googleapis.com", "cloudfunctions.googleapis.com", "cloudbuild.googleapis.com",
        "run.googleapis.com", "eventarc.googleapis.com", "artifactregistry.googleapis.com")
RESIZE_ROLE = "roles/compute.instanceAdmin.v1"


def group_condition(project: str, zone: str, group: str) -> str:
    return f'resource.name == "projects/{project}/zones/{zone}/instanceGroupManagers/{group}"'


def source_archive() -> pulumi.AssetArchive:
    return pulumi.AssetArchive({name: pulumi.FileAsset(str(FUNCTION_DIR / name))
                                for name in ("main.py", "requirements.txt")})


def budget_stop(parent: pulumi.Resource, name: str, *, project: str, region: str, zone: str,
                group: gcp.compute.InstanceGroupManager, bucket: gcp.storage.Bucket,
                stop_fraction: float, labels: dict[str, str]) -> gcp.pubsub.Topic:
    """Declare topic, function and permissions; returns the topic the budget publishes to."""
    apis = [gcp.projects.Service(f"{name}-api-{api.split('.')[0]}", project=project, service=api,
                                 disable_on_destroy=False, opts=pulumi.ResourceOptions(parent=parent))
            for api in APIS]
    child = pulumi.ResourceOptions(parent=parent, depends_on=apis)
    topic = gcp.pubsub.Topic(f"{name}-budget-stop", project=project, labels=labels, opts=child)
    gcp.pubsub.TopicIAMMember(f"{name}-budget-stop-billing", project=project, topic=topic.name,
                              role="roles/pubsub.publisher", member=BILLING_PUBLISHER, opts=child)
    account = gcp.serviceaccount.Account(
        f"{name}-budget-stop", project=project, account_id=f"{name}-stop"[:30].rstrip("-"),
        display_name=f"trainstack {name}: resizes the nodes to 0 at the budget", opts=child)
    gcp.projects.IAMMember(
        f"{name}-budget-stop-resize", project=project, role=RESIZE_ROLE,
        member=account.email.apply(lambda e: f"serviceAccount:{e}"),
        condition=gcp.projects.IAMMemberConditionArgs(
            title="only this cluster's node group",
            expression=group.name.apply(lambda g: group_condition(project, zone, g))),
        opts=child)
    source = gcp.storage.BucketObject(
        f"{name}-budget-stop-source", bucket=bucket.name,
        name="trainstack/functions/gcp_budget_stop.zip", source=source_archive(), opts=child)
    gcp.cloudfunctionsv2.Function(
        f"{name}-budget-stop", project=project, location=region, labels=labels,
        description="trainstack: resize the nodes to 0 when the budget is spent",
        build_config=gcp.cloudfunctionsv2.FunctionBuildConfigArgs(
            runtime=RUNTIME, entry_point=ENTRY_POINT,
            source=gcp.cloudfunctionsv2.FunctionBuildConfigSourceArgs(
                storage_source=gcp.cloudfunctionsv2.FunctionBuildConfigSourceStorageSourceArgs(
                    bucket=bucket.name, object=source.name))),
        service_config=gcp.cloudfunctionsv2.FunctionServiceConfigArgs(
            max_instance_count=1, available_memory="256M", timeout_seconds=180,
            service_account_email=account.email,
            environment_variables={"PROJECT": project, "ZONE": zone, "GROUP": group.name,
                                   "STOP_FRACTION": f"{stop_fraction:g}"}),
        event_trigger=gcp.cloudfunctionsv2.FunctionEventTriggerArgs(
            trigger_region=region, event_type="google.cloud.pubsub.topic.v1.messagePublished",
            pubsub_topic=topic.id, retry_policy="RETRY_POLICY_RETRY",
            service_account_email=account.email),
        opts=child)
    return topic
