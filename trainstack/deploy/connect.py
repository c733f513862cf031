"""`trainstack connect`: a shell on a node of a deployed stack, without opening it to the Internet.

AWS: Session Manager (`aws ssm start-session`); GCP: IAP TCP forwarding with OS Login
(`gcloud compute ssh --tunnel-through-iap`); Azure: Azure Bastion's native client with Entra ID
sign-in (`az network bastion ssh --auth-type AAD`); Alibaba Cloud: Cloud Assistant
(`aliyun ecs StartTerminalSession`). The node comes from the stack's outputs (its node
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

from trainstack.plan.select import ProjectOpt, use_project
from trainstack_components.errors import SpecError

CLIS = {
    "aws": ("aws", "install AWS CLI v2 and the Session Manager plugin "
                   "(docs.aws.amazon.com/systems-manager/latest/userguide/"
                   "session-manager-working-with-install-plugin.html)"),
    "gcp": ("gcloud", "install the Google Cloud CLI (cloud.google.com/sdk/docs/install) and run "
                      "`gcloud auth login`"),
    "azure": ("az", "install the Azure CLI (learn.microsoft.com/cli/azure/install-azure-cli) with "
                    "its bastion and ssh extensions (az extension add --name bastion; az extension "
                    "add --name ssh) and run `az login`"),
    "alicloud": ("aliyun", "install the Alibaba Cloud CLI (github.com/aliyun/aliyun-cli) and run "
                           "`aliyun configure`"),
}


def deployed(stack: str, project_dir: Optional[Path] = None):
    """The stack's planned inputs and its deployed outputs (through the Pulumi CLI), in the
    discovered project (`--project`, else from the current folder upward) unless one is given."""
    from trainstack.deploy import lifecycle
    inputs, selected = lifecycle.select_stack(stack, project_dir, skip_credential_check=True,
                                              create=False)
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


def _azure_instances(cli: str, outputs: dict) -> list[str]:
    """The scale set's running instance ids, in numeric order (the order ranks do not follow:
    ranks go by address; this is only a stable way to name node N)."""
    text = _run_cli([cli, "vmss", "list-instances", "--resource-group", outputs["resource_group"],
                     "--name", outputs["node_group"], "--query",
                     "[?provisioningState=='Succeeded'].instanceId", "--output", "tsv"])
    return sorted(text.split(), key=lambda i: (len(i), i))


def _azure_session(node: str, outputs: dict) -> list[str]:
    return ["az", "network", "bastion", "ssh", "--name", outputs["bastion_name"],
            "--resource-group", outputs["resource_group"], "--target-resource-id",
            f"{outputs['scale_set_id']}/virtualMachines/{node}", "--auth-type", "AAD"]


def alicloud_running_nodes(cli: str, outputs: dict, inputs) -> list[str]:
    """Alibaba Cloud: the stack's per-node instances (`node_ids`, in node order) that are
    Running, in that order, so --node N is node N while every node runs."""
    import json
    ids = list(outputs.get("node_ids") or [])
    if not ids:
        return []
    text = _run_cli([cli, "ecs", "DescribeInstances", "--RegionId", inputs.selection.region,
                     "--InstanceIds", json.dumps(ids), "--Status", "Running",
                     "--PageSize", "100"])
    try:
        running = {i["InstanceId"] for i in json.loads(text)["Instances"]["Instance"]}
    except (ValueError, KeyError, TypeError):
        raise SpecError("aliyun CLI", "answered DescribeInstances with something other than "
                        "its JSON.", "Check the CLI version and profile.") from None
    return [i for i in ids if i in running]


def node_names(cloud: str, cli: str, outputs: dict, inputs) -> list[str]:
    """The node group's running instances (ids on AWS, Azure and Alibaba Cloud, names on GCP),
    sorted (Alibaba Cloud: in node order)."""
    if cloud == "alicloud":
        return alicloud_running_nodes(cli, outputs, inputs)
    group, selection = outputs["node_group"], inputs.selection
    if cloud == "azure":
        return _azure_instances(cli, outputs)
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
    if cloud == "azure":
        return _azure_session(node, outputs)
    if cloud == "alicloud":
        # Cloud Assistant's session: no public IP, no open port (its answer is the session's
        # WebSocket URL, which the ECS console's Workbench also opens).
        return ["aliyun", "ecs", "StartTerminalSession", "--RegionId", inputs.selection.region,
                "--InstanceId.1", node]
    if cloud == "aws":
        return ["aws", "ssm", "start-session", "--target", node, "--region",
                inputs.selection.region]
    return ["gcloud", "compute", "ssh", node, "--zone", inputs.selection.zone, "--project",
            _project(outputs, inputs), "--tunnel-through-iap"]


def connect_command(stack: str = typer.Option(..., "--stack", help="A deployed stack's name."),
                    node: int = typer.Option(0, "--node", min=0,
                                             help="Which node, 0-based, in the group's order."),
                    print_only: bool = typer.Option(False, "--print",
                                                    help="Print the command; do not run it."),
                    project: Optional[Path] = ProjectOpt):
    """Open a shell on a node (SSM on AWS, IAP on GCP, Bastion on Azure), or print the command."""
    use_project(project)
    from trainstack.deploy import lifecycle
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

