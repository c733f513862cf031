"""GCP budget action: the managed instance group goes to 0 on the forecast or a lower actual.

The billing budget publishes every update to a Pub/Sub topic (`all_updates_rule.pubsub_topic`);
a 2nd-gen Cloud Function (components/functions/gcp_budget_stop, its source uploaded to the
cluster's bucket) resizes the MIG to 0 once the FORECAST crosses 100 % (the budget's
FORECASTED_SPEND rule, `forecast_rules()`), or the actual cost crosses the last alert threshold
capped at STOP_ACTUAL_FRACTION: billing reports actual cost hours late, and at 16 x p5-class
nodes those hours are thousands of dollars. Its service account holds Compute Instance Admin
under an IAM condition naming this one group: a custom role would be smaller, but a deleted
custom role's ID stays reserved for weeks, which breaks reap-then-up.

For the function to run at all: the Eventarc trigger's account is granted `roles/run.invoker`
on the function's Cloud Run service (without it every delivery is refused), and the build runs
as a dedicated build account (projects created since mid-2024 no longer let the default compute
account build functions): logs, Artifact Registry and read access to the source object.
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
STOP_ACTUAL_FRACTION = 0.9    # actual spend that stops the nodes, at most (billing lags hours)
STOP_FORECAST_FRACTION = 1.0  # the forecast reaching the budget stops them too
# Project level: build logs, and the gcf-artifacts image the build pushes. The source object is
# read on the cluster's bucket only (SOURCE_READER there), not every bucket of the project.
BUILD_ROLES = ("roles/logging.logWriter", "roles/artifactregistry.writer")
SOURCE_READER = "roles/storage.objectViewer"
# A gen2 build does not read the source where we put it: Cloud Functions copies it into its own
# staging bucket, gcf-v2-sources-<project number>-<region>, and the build account reads it there
# (Cloud Run "Build service account": the account needs read access to the build's source in
# Cloud Storage). That bucket appears with the first function, so the grant is project-level
# under an IAM condition naming that bucket only (Cloud Storage resource names in conditions).
GCF_SOURCES_BUCKET = "gcf-v2-sources-{number}-{region}"


def gcf_sources_condition(number: str, region: str) -> str:
    bucket = GCF_SOURCES_BUCKET.format(number=number, region=region)
    return f'resource.name.startsWith("projects/_/buckets/{bucket}")'


INVOKER_ROLE = "roles/run.invoker"


def forecast_rules() -> list[gcp.billing.BudgetThresholdRuleArgs]:
    """The budget rule that makes billing report `forecastThresholdExceeded` to the function."""
    return [gcp.billing.BudgetThresholdRuleArgs(threshold_percent=STOP_FORECAST_FRACTION,
                                                spend_basis="FORECASTED_SPEND")]


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
    builder = gcp.serviceaccount.Account(
        f"{name}-budget-build", project=project, account_id=f"{name}-build"[:30].rstrip("-"),
        display_name=f"trainstack {name}: builds the budget-stop function", opts=child)
    builds: list[pulumi.Resource] = [gcp.projects.IAMMember(
        f"{name}-budget-build-{role.split('/')[1].split('.')[0]}", project=project, role=role,
        member=builder.email.apply(lambda e: f"serviceAccount:{e}"), opts=child)
        for role in BUILD_ROLES]
    builds.append(gcp.storage.BucketIAMMember(
        f"{name}-budget-build-source", bucket=bucket.name, role=SOURCE_READER,
        member=builder.email.apply(lambda e: f"serviceAccount:{e}"), opts=child))
    number = gcp.organizations.get_project_output(
        project_id=project, opts=pulumi.InvokeOutputOptions(parent=parent)).number
    builds.append(gcp.projects.IAMMember(
        f"{name}-budget-build-gcf-sources", project=project, role=SOURCE_READER,
        member=builder.email.apply(lambda e: f"serviceAccount:{e}"),
        condition=gcp.projects.IAMMemberConditionArgs(
            title="gcf-v2-sources only",
            description="the staging bucket Cloud Functions copies the source into",
            expression=number.apply(lambda n: gcf_sources_condition(n, region))),
        opts=child))
    source = gcp.storage.BucketObject(
        f"{name}-budget-stop-source", bucket=bucket.name,
        name="trainstack/functions/gcp_budget_stop.zip", source=source_archive(), opts=child)
    function = gcp.cloudfunctionsv2.Function(
        f"{name}-budget-stop", project=project, location=region, labels=labels,
        description="trainstack: resize the nodes to 0 when the budget is spent",
        build_config=gcp.cloudfunctionsv2.FunctionBuildConfigArgs(
            runtime=RUNTIME, entry_point=ENTRY_POINT, service_account=builder.id,
            source=gcp.cloudfunctionsv2.FunctionBuildConfigSourceArgs(
                storage_source=gcp.cloudfunctionsv2.FunctionBuildConfigSourceStorageSourceArgs(
                    bucket=bucket.name, object=source.name))),
        service_config=gcp.cloudfunctionsv2.FunctionServiceConfigArgs(
            max_instance_count=1, available_memory="256M", timeout_seconds=180,
            service_account_email=account.email,
            environment_variables={"PROJECT": project, "ZONE": zone, "GROUP": group.name,
                                   "STOP_FRACTION": f"{min(stop_fraction, STOP_ACTUAL_FRACTION):g}",
                                   "STOP_FORECAST_FRACTION": f"{STOP_FORECAST_FRACTION:g}"}),
        event_trigger=gcp.cloudfunctionsv2.FunctionEventTriggerArgs(
            trigger_region=region, event_type="google.cloud.pubsub.topic.v1.messagePublished",
            pubsub_topic=topic.id, retry_policy="RETRY_POLICY_RETRY",
            service_account_email=account.email),
        opts=pulumi.ResourceOptions(parent=parent, depends_on=[*apis, *builds]))
    # The trigger delivers as `account`: it must be allowed to invoke the function's service
    # (a 2nd-gen function is a Cloud Run service of the same name).
    gcp.cloudrunv2.ServiceIamMember(
        f"{name}-budget-stop-invoker", project=project, location=region, name=function.name,
        role=INVOKER_ROLE, member=account.email.apply(lambda e: f"serviceAccount:{e}"),
        opts=pulumi.ResourceOptions(parent=parent, depends_on=[function]))
    return topic
