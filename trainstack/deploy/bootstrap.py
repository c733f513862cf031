"""`trainstack bootstrap <cloud>`: the one-time, account-wide steps. On every cloud it first asks
the cloud whether the account has what a first deploy needs (trainstack/deploy/account.py); on
AWS it then activates the cluster tag key.

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

import tempfile

from pathlib import Path
from typing import Callable, Optional

import typer

from trainstack.deploy import account
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


def account_needs(cloud: str, project_dir: Optional[Path] = None) -> list[account.Need]:
    """What the account needs for the project's cluster.yaml (its region, instance family and
    vCPUs, project), or the cloud's general needs when there is no spec to read."""
    from trainstack_components.program import resolve
    folder = project_dir or Path.cwd()
    spec_file = folder / "cluster.yaml"
    if spec_file.is_file():
        config = {"trainstack:cloud": cloud, "trainstack:specFile": str(spec_file)}
        try:
            inputs = resolve(config.get, folder)
        except SpecError:
            inputs = None
        if inputs is not None:
            return account.cluster_needs(cloud, inputs.spec, inputs.selection)
    return account.needs(cloud)


def check_account_ready(cloud: str, echo: Callable[[str], None],
                        project_dir: Optional[Path] = None, run=None) -> None:
    """Ask the cloud about each need; one paragraph naming every missing one, exit 2."""
    wanted = account_needs(cloud, project_dir)
    missing = account.check_account(cloud, wanted, run)
    if missing:
        raise SpecError(f"bootstrap {cloud}", "the account is not ready for a first deploy: "
                        + " | ".join(missing) + ".",
                        "Fix each (the command is given), then run `trainstack bootstrap "
                        f"{cloud}` again.")
    echo(f"{cloud} account: {len(wanted)} checks passed "
         f"({'; '.join(n.what for n in wanted) or 'nothing to check'})\n")


def bootstrap(cloud: str, echo: Callable[[str], None], project_dir: Optional[Path] = None,
              skip_credential_check: bool = False, skip_account_check: bool = False,
              run=None) -> dict:
    """Check the account has what a first deploy needs (account.py), then run the cloud's
    bootstrap program once, where it has one; re-running it changes nothing. Its state goes to
    the project's backend (`project_dir`, else the discovered project), beside the clusters'."""
    from trainstack.deploy.lifecycle import (
        DeployFailed,
        _run,
        backend_env,
        check_credentials,
        pulumi_command,
        resolve_project,
    )
    if cloud not in account.CLI:
        raise SpecError(f"bootstrap {cloud}", "is not a cloud trainstack deploys to.",
                        "Use one of: " + ", ".join(account.CLI) + ".")
    if cloud not in _PROGRAMS:
        if not skip_account_check:
            check_account_ready(cloud, echo, project_dir, run)
        return {"account": "ready" if not skip_account_check else "not checked"}
    import pulumi.automation as auto

    from trainstack_components.clouds import require_sdk
    require_sdk(cloud)  # the bootstrap program imports the cloud's SDK (its pip extra)
    command = pulumi_command()
    if not skip_credential_check:
        check_credentials(cloud)
    if not skip_account_check:
        check_account_ready(cloud, echo, project_dir, run)
    project_dir = resolve_project(project_dir)
    env = backend_env(project_dir)
    if env["PULUMI_BACKEND_URL"].startswith("file://"):
        Path(env["PULUMI_BACKEND_URL"][len("file://"):]).mkdir(parents=True, exist_ok=True)
    # The inline program's folder is ours to remove: left to itself, the Automation API makes
    # one with mkdtemp and never deletes it (one /tmp/automation-* per run).
    with tempfile.TemporaryDirectory(prefix="trainstack-bootstrap-") as work_dir:
        stack = auto.create_or_select_stack(
            stack_name=cloud, project_name=BOOTSTRAP_PROJECT, program=_PROGRAMS[cloud],
            opts=auto.LocalWorkspaceOptions(work_dir=work_dir, pulumi_command=command,
                                            env_vars=env))
        stack.set_config("aws:region", auto.ConfigValue(COST_EXPLORER_REGION))
        try:
            result = _run(lambda: stack.up(on_output=echo))
        except DeployFailed as failed:
            raise DeployFailed(f"{failed}\n{NOT_SEEN_HINT}") from None
    return {k: v.value for k, v in result.outputs.items()}


def bootstrap_command(
    cloud: str = typer.Argument(..., help="aws, gcp, azure or alicloud: check the account "
                                "(features, providers, roles, APIs, quotas); aws also "
                                "activates the trainstack:cluster cost tag"),
    skip_credential_check: bool = typer.Option(
        False, "--skip-credential-check",
        help="Run with credentials trainstack cannot see (instance roles)."),
    skip_account_check: bool = typer.Option(
        False, "--skip-account-check",
        help="Do not ask the cloud what the account has (no cloud CLI here)."),
    project: Optional[Path] = ProjectOpt,
) -> None:
    """One-time account setup every cluster shares: check what a first deploy needs (Azure:
    feature, providers, roles; GCP: APIs, IAM; AWS: P-instance quota) and, on AWS, activate
    the cost-allocation tag."""
    from trainstack.console import console
    from trainstack.plan.select import project_dir
    folder = project_dir(project)
    out = console()
    outputs = bootstrap(cloud, lambda line: out.print(line, end="", markup=False, highlight=False),
                        project_dir=folder, skip_credential_check=skip_credential_check,
                        skip_account_check=skip_account_check)
    for key, value in sorted(outputs.items()):
        out.print(f"{key}: {value}", markup=False, highlight=False)
