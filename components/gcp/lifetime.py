"""The declared lifetime on Google Cloud: at the deadline a Cloud Scheduler job resizes the
managed instance group to 0 (components/lifetime.py has the deadline's rules).

`scheduling.max_run_duration` on the instance template stops each VM after its run duration, but
a managed instance group keeps its target size: it recreates a VM deleted at its limit, with a
fresh limit, so compute may never stop. The job calls the Compute API's
`instanceGroupManagers.resize?size=0` itself, no trainstack process running; the template keeps
its `max_run_duration` (flex-start and spot rely on it). For flex-start (target size 0, the
nodes come from a ResizeRequest) the resize is harmless.

The job runs as an account of its own holding Compute Instance Admin under an IAM condition that
names this one group, the budget-stop function's grant (components/gcp/budget_action.py): a
second account, so the deadline does not depend on the budget function's six APIs and build.

Cron has no seconds and no year: the job fires at the deadline rounded up to the whole minute,
in UTC, and would fire again a year later (a resize to 0 again, harmless). A deadline closer
than a deploy (components/lifetime.py DEPLOY_LEAD) would be in the past by the time the job
exists, and cron would fire it a YEAR later: the job then fires at the end of the deploy window
instead, and a lifetime shorter than a deploy, or over Compute Engine's 120-day run duration,
is refused (components/lifetime.check). After the deadline the program declares 0 nodes and no
job, as on AWS, so a later `up` never brings the nodes back.

Flex-start: the nodes come from a ResizeRequest. One still waiting for capacity at the deadline
would deliver the nodes after it, so a second job cancels it at the deadline.
"""
from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Optional

import pulumi
import pulumi_gcp as gcp

from trainstack_components.gcp.budget_action import RESIZE_ROLE, group_condition
from trainstack_components.gcp.identity import service_account_id

# The clock, the stored first deploy and the expiry rule are components/lifetime.py's, as on AWS
# and Azure; this module only declares GCP's enforcement.
from trainstack_components.lifetime import FROM_CLOCK, Lifetime, check, iso, outputs, schedule_time

TIME_ZONE = "Etc/UTC"
COMPUTE_API = "https://compute.googleapis.com/compute/v1"
# Cloud Scheduler retries a failed resize (a busy group answers 4xx/5xx) at most 5 times.
RETRIES = gcp.cloudscheduler.JobRetryConfigArgs(
    retry_count=5, min_backoff_duration="30s", max_backoff_duration="600s")


def resize_uri(project: str, zone: str, group: str) -> str:
    return (f"{COMPUTE_API}/projects/{project}/zones/{zone}/instanceGroupManagers/{group}"
            "/resize?size=0")


def fire_at(deadline: datetime) -> datetime:
    """The first whole minute at or after the deadline, UTC (never before it)."""
    at = deadline.astimezone(timezone.utc)
    whole = at.replace(second=0, microsecond=0)
    return whole if whole == at else whole + timedelta(minutes=1)


def cron(deadline: datetime) -> str:
    at = fire_at(deadline)
    return f"{at.minute} {at.hour} {at.day} {at.month} *"


def cancel_uri(project: str, zone: str, group: str, request: str) -> str:
    return (f"{COMPUTE_API}/projects/{project}/zones/{zone}/instanceGroupManagers/{group}"
            f"/resizeRequests/{request}/cancel")


def enforce(parent: pulumi.Resource, name: str, stack: str, *, project: str, region: str,
            zone: str, group: gcp.compute.InstanceGroupManager, api: pulumi.Resource,
            lifetime: Optional[Lifetime], now: datetime,
            resize_request: Optional[gcp.compute.ResizeRequest] = None) -> dict[str, object]:
    """Declare the resize-to-0 job at the deadline (and the flex-start request's cancel);
    returns the outputs that show it."""
    if lifetime is None:
        return {}
    check(lifetime, "gcp")
    if lifetime.expired(now):
        return {**outputs(lifetime, now),
                "lifetime_enforcement": f"deadline {iso(lifetime.deadline)} passed: the group "
                                        "is declared at 0 nodes and the job is gone"}
    child = pulumi.ResourceOptions(parent=parent)
    account = gcp.serviceaccount.Account(
        f"{name}-lifetime", project=project, account_id=service_account_id(f"{name}-end", stack),
        display_name=f"trainstack {name} ({stack}): resizes the nodes to 0 at the deadline",
        opts=child)
    grant = gcp.projects.IAMMember(
        f"{name}-lifetime-resize", project=project, role=RESIZE_ROLE,
        member=account.email.apply(lambda e: f"serviceAccount:{e}"),
        condition=gcp.projects.IAMMemberConditionArgs(
            title="only this cluster's node group",
            expression=group.name.apply(lambda g: group_condition(project, zone, g))),
        opts=child)
    at = schedule_time(lifetime, now)
    # Without a persisted start a plain `pulumi up` would move the deadline.
    keep = ["schedule", "description"] if lifetime.source == FROM_CLOCK else None

    def job(suffix: str, what: str, uri: pulumi.Input[str]) -> None:
        gcp.cloudscheduler.Job(
            f"{name}-lifetime-{suffix}", project=project, region=region,
            description=f"trainstack {name}: {what} at the declared lifetime's end "
                        f"({iso(lifetime.deadline)})",
            schedule=cron(at), time_zone=TIME_ZONE, attempt_deadline="180s",
            retry_config=RETRIES,
            http_target=gcp.cloudscheduler.JobHttpTargetArgs(
                uri=uri, http_method="POST",
                oauth_token=gcp.cloudscheduler.JobHttpTargetOauthTokenArgs(
                    service_account_email=account.email)),
            opts=pulumi.ResourceOptions(parent=parent, depends_on=[api, grant],
                                        ignore_changes=keep))
    job("end", "resize the nodes to 0", group.name.apply(lambda g: resize_uri(project, zone, g)))
    if resize_request is not None:
        job("cancel-request", "cancel the flex-start resize request",
            pulumi.Output.all(group.name, resize_request.name).apply(
                lambda v: cancel_uri(project, zone, v[0], v[1])))
    return {**outputs(lifetime, now),
            "lifetime_enforcement": f"Cloud Scheduler job {name}-lifetime-end resizes the group "
                                    f"to 0 at {iso(fire_at(at))} ({TIME_ZONE})"
                                    + (", and cancels the flex-start request"
                                       if resize_request is not None else "")
                                    + (f"; late by {(at - lifetime.deadline).total_seconds() / 60:.0f}"
                                       " min: the deadline is closer than a deploy"
                                       if at > lifetime.deadline else "")}
