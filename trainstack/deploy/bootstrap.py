"""`trainstack bootstrap aws`: the one-time, account-wide step that activates the cluster tag key.

AWS Budgets filters each cluster's spend on the `trainstack:cluster` tag, which only works once the
key is an *active* cost-allocation tag. That activation is not a per-stack resource, for three
reasons (cloud-map §10; terraform-provider-aws #29068, #31442): a new key can be activated only
after billing has seen it (up to about a day after the first tagged resource), in an AWS
Organization only the payer account may do it, and deleting the resource deactivates the key for
the whole account, zeroing every other cluster's budget filter.

So it lives in its own small Pulumi program (project `trainstack-bootstrap`, stack `aws`, the same
state backend as the clusters), created once and retained on delete. Offline nothing can tell
whether the key is active, so `check` and `up` print `COST_TAG_NOTE` instead of guessing.
"""
from __future__ import annotations

from pathlib import Path
from typing import Callable, Optional

import typer

from trainstack.plan.select import ProjectOpt
from trainstack_components.errors import SpecError
from trainstack_components.tags import CLUSTER_TAG

BOOTSTRAP_PROJECT = "trainstack-bootstrap"
BOOTSTRAP_CLOUDS = ("aws",)
# Cost Explorer is a global service served from us-east-1.
COST_EXPLORER_REGION = "us-east-1"

COST_TAG_NOTE = (f"the AWS budget filters on the cost-allocation tag {CLUSTER_TAG!r}, which must be "
                 "active in the account; trainstack cannot see that offline. If this is the "
                 "account's first cluster, the budget reports $0 until you run `trainstack "
                 "bootstrap aws` once (about a day after the first `up`, in the payer account of "
                 "an AWS Organization).")


def deploy_notes(cloud: str) -> list[str]:
    """What `check` and `up` say plainly before a deploy of `cloud`."""
    return [COST_TAG_NOTE] if cloud == "aws" else []


def cost_tag_program() -> None:
    """The bootstrap program: one CostAllocationTag, kept when the stack is destroyed."""
    import pulumi
    import pulumi_aws as aws
    tag = aws.costexplorer.CostAllocationTag(
        "trainstack-cluster-tag", tag_key=CLUSTER_TAG, status="Active",
        opts=pulumi.ResourceOptions(retain_on_delete=True))
    pulumi.export("tag_key", tag.tag_key)
    pulumi.export("status", tag.status)


_PROGRAMS = {"aws": cost_tag_program}

NOT_SEEN_HINT = ("If AWS answers that the tag key was not found, billing has not seen it yet: "
                 "deploy a cluster first, wait up to 24 hours, then run `trainstack bootstrap "
                 "aws` again. In an AWS Organization run it with the payer (management) account.")


def bootstrap(cloud: str, echo: Callable[[str], None], project_dir: Optional[Path] = None,
              skip_credential_check: bool = False) -> dict:
    """Run the cloud's bootstrap program once; re-running it changes nothing. Its state goes to
    the project's backend (`project_dir`, else the discovered project), beside the clusters'."""
    from trainstack.deploy.lifecycle import (
        DeployFailed,
        _run,
        backend_env,
        check_credentials,
        pulumi_command,
        resolve_project,
    )
    if cloud not in _PROGRAMS:
        raise SpecError(f"bootstrap {cloud}", "has nothing to do on this cloud.",
                        "Use one of: " + ", ".join(BOOTSTRAP_CLOUDS) + " (Google Cloud budgets "
                        "filter on labels, which need no activation).")
    import pulumi.automation as auto
    command = pulumi_command()
    if not skip_credential_check:
        check_credentials(cloud)
    project_dir = resolve_project(project_dir)
    env = backend_env(project_dir)
    if env["PULUMI_BACKEND_URL"].startswith("file://"):
        Path(env["PULUMI_BACKEND_URL"][len("file://"):]).mkdir(parents=True, exist_ok=True)
    stack = auto.create_or_select_stack(
        stack_name=cloud, project_name=BOOTSTRAP_PROJECT, program=_PROGRAMS[cloud],
        opts=auto.LocalWorkspaceOptions(pulumi_command=command, env_vars=env))
    stack.set_config("aws:region", auto.ConfigValue(COST_EXPLORER_REGION))
    try:
        result = _run(lambda: stack.up(on_output=echo))
    except DeployFailed as failed:
        raise DeployFailed(f"{failed}\n{NOT_SEEN_HINT}") from None
    return {k: v.value for k, v in result.outputs.items()}


def bootstrap_command(
    cloud: str = typer.Argument(..., help="aws: activate the trainstack:cluster cost tag"),
    skip_credential_check: bool = typer.Option(
        False, "--skip-credential-check",
        help="Run with credentials trainstack cannot see (instance roles)."),
    project: Optional[Path] = ProjectOpt,
) -> None:
    """One-time account setup every cluster shares (AWS: activate the cost-allocation tag)."""
    from trainstack.console import console
    from trainstack.plan.select import project_dir
    folder = project_dir(project)
    out = console()
    outputs = bootstrap(cloud, lambda line: out.print(line, end="", markup=False, highlight=False),
                        project_dir=folder, skip_credential_check=skip_credential_check)
    for key, value in sorted(outputs.items()):
        out.print(f"{key}: {value}", markup=False, highlight=False)
