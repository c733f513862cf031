"""`trainstack connect`: a shell on a node of a deployed stack, without opening it to the Internet.

AWS: Session Manager (`aws ssm start-session`); GCP: IAP TCP forwarding with OS Login
(`gcloud compute ssh --tunnel-through-iap`). The node comes from the stack's outputs (its node
group) and the cloud CLI (the group's instances, in a stable order); `--print` prints the exact
command instead of running it. Missing CLI or credentials: one line, exit 2.
"""
from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from pathlib import Path
from typing import Optional

import typer

from components.errors import SpecError

CLIS = {
    "aws": ("aws", "install AWS CLI v2 and the Session Manager plugin "
                   "(docs.aws.amazon.com/systems-manager/latest/userguide/"
                   "session-manager-working-with-install-plugin.html)"),
    "gcp": ("gcloud", "install the Google Cloud CLI (cloud.google.com/sdk/docs/install) and run "
                      "`gcloud auth login`"),
}


def deployed(stack: str, project_dir: Optional[Path] = None):
    """The stack's planned inputs and its deployed outputs (through the Pulumi CLI), in the
    discovered project (`--project`, else from the current folder upward) unless one is given."""
    from trainstack import lifecycle
    inputs, selected = lifecycle.select_stack(stack, project_dir, skip_credential_check=True)
    outputs = {k: v.value for k, v in lifecycle._run(selected.outputs).items()}
    if not outputs.get("node_group"):
        raise SpecError(f"--stack {stack}", "has no deployed node group in its outputs.",
                        f"Deploy it first: trainstack up --stack {stack}.")
    return inputs, outputs


def cloud_cli(cloud: str) -> str:
    if cloud not in CLIS:
        raise SpecError("cloud", f"trainstack connect does not support {cloud!r} yet.",
                        "Use the cloud's own console or CLI for now.")
    binary, how = CLIS[cloud]
    path = shutil.which(binary)
    if path is None:
        raise SpecError(f"{binary} CLI", "was not found on PATH; connect needs it.", f"To fix, {how}.")
    return path


def _run_cli(argv: list[str]) -> str:
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as failed:
        raise SpecError(Path(argv[0]).name, f"could not run: {failed}.",
                        "Check the CLI installation.") from None
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["(no message)"])[-1]
        raise SpecError(Path(argv[0]).name, f"failed: {last}",
                        "Check the cloud credentials (and that the stack is deployed).")
    return done.stdout


def _project(outputs: dict, inputs) -> str:
    return outputs.get("project") or inputs.spec.location("gcp").project or ""


def node_names(cloud: str, cli: str, outputs: dict, inputs) -> list[str]:
    """The node group's running instances (ids on AWS, names on GCP), sorted."""
    group, selection = outputs["node_group"], inputs.selection
    if cloud == "aws":
        text = _run_cli([cli, "autoscaling", "describe-auto-scaling-groups", "--region",
                         selection.region, "--auto-scaling-group-names", group, "--query",
                         "AutoScalingGroups[0].Instances[?LifecycleState=='InService']"
                         ".InstanceId", "--output", "text"])
    else:
        text = _run_cli([cli, "compute", "instance-groups", "managed", "list-instances", group,
                         "--zone", selection.zone, "--project", _project(outputs, inputs),
                         "--filter=instanceStatus=RUNNING",
                         "--format=value(instance.basename())"])
    return sorted(text.split())


def session_command(cloud: str, node: str, outputs: dict, inputs) -> list[str]:
    if cloud == "aws":
        return ["aws", "ssm", "start-session", "--target", node, "--region",
                inputs.selection.region]
    return ["gcloud", "compute", "ssh", node, "--zone", inputs.selection.zone, "--project",
            _project(outputs, inputs), "--tunnel-through-iap"]


def connect_command(stack: str = typer.Option(..., "--stack", help="A deployed stack's name."),
                    node: int = typer.Option(0, "--node", min=0,
                                             help="Which node, 0-based, in the group's order."),
                    print_only: bool = typer.Option(False, "--print",
                                                    help="Print the command; do not run it.")):
    """Open a shell on a node (SSM on AWS, IAP on GCP), or print the exact command."""
    from trainstack import lifecycle
    inputs, outputs = deployed(stack)
    cloud = inputs.cloud
    cli = cloud_cli(cloud)
    lifecycle.check_credentials(cloud)
    names = node_names(cloud, cli, outputs, inputs)
    if not names:
        raise SpecError(f"--stack {stack}", f"node group {outputs['node_group']} has no running "
                        "node.", "Wait for the group to start its nodes, or check `trainstack "
                        "status`.")
    if node >= len(names):
        raise SpecError("--node", f"{node} is out of range: the group has {len(names)} running "
                        "node(s).", f"Use --node 0 to {len(names) - 1}.")
    command = session_command(cloud, names[node], outputs, inputs)
    if print_only:
        print(shlex.join(command))
        return
    os.execvp(cli, [cli, *command[1:]])  # the session takes over this terminal

