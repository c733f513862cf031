"""Spot preemption on every cloud's nodes (issue 23), as a boot step: the preemption agent
(components/agents/preemption_agent.py) as a long-running service watching the cloud's own
notice (the kind is data: `NOTICE_KINDS[cloud.cloud]`, or a cloud's `preemption_notice`
attribute), an upload script built from the cloud's `CloudBoot.upload` for events/<node>/...,
and the checkpoint helper for training scripts (components/training/resumable.py) on the
nodes' Python path as `trainstack_resumable`. Registered with `extensions.add_step_provider`;
no cloud's code names it.

Installed on on-demand nodes too: GPU VMs are stopped for host maintenance with a notice
(GCP's TERMINATE_ON_HOST_MAINTENANCE, Azure's Terminate events), and a job that saves then
loses nothing.
"""
from __future__ import annotations

import ast
from importlib import resources

from trainstack_components.agents import job_agent, preemption_agent
from trainstack_components.boot import extensions
from trainstack_components.boot.model import CONFIG_DIR, STATE_DIR, BootFile, BootStep, CloudBoot, NodeContext
from trainstack_components.boot.steps import _function

STEP_NAME = "preemption"
AGENT_PATH = "/opt/trainstack/preemption_agent.py"
UPLOAD_SCRIPT = "/opt/trainstack/preemption-upload"
HELPER_DIR = "/opt/trainstack/python"
HELPER_PATH = f"{HELPER_DIR}/trainstack_resumable.py"
ENV_FILE = f"{CONFIG_DIR}/preemption.env"
PROFILE = "/etc/profile.d/trainstack-resume.sh"
SERVICE = "trainstack-preemption.service"
assert preemption_agent.JOBS_DIR == STATE_DIR.lstrip("/") + "/jobs"



def node_copy(source: str) -> str:
    """The module as the node gets it: docstrings after the first line and comments dropped
    (ast.unparse), because EC2 takes 16 KB of gzipped user data and every step shares it. The
    repository file stays the documented source."""
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                    and isinstance(body[0].value.value, str):
                if isinstance(node, ast.Module):   # argparse shows its first line
                    body[0].value.value = body[0].value.value.strip().splitlines()[0]
                else:
                    node.body = body[1:] or [ast.Pass()]
    return ast.unparse(tree) + "\n"


AGENT_SOURCE = node_copy(
    resources.files("trainstack_components.agents").joinpath("preemption_agent.py").read_text("utf-8"))
HELPER_SOURCE = node_copy(
    resources.files("trainstack_components.training").joinpath("resumable.py").read_text("utf-8"))

UNIT = f"""\
[Unit]
Description=trainstack preemption agent: the cloud's preemption notice -> checkpoint, events
After=network-online.target
Wants=network-online.target

[Service]
# TS_NODE, TS_CLOUD: written at boot by the `{STEP_NAME}` step.
EnvironmentFile={ENV_FILE}
ExecStart=/usr/bin/python3 {AGENT_PATH} --upload '{UPLOAD_SCRIPT} {{src}} {{key}}'
Restart=always
RestartSec=5

[Install]
WantedBy=multi-user.target
"""

# The leaving mark and the notice belong to one boot. cloud-init's runcmd runs once per instance,
# so a VM stopped and started with its disk (GCP STOP/START, Azure deallocate) keeps them and
# would never take work again: this oneshot clears them on every boot, before either agent starts.
CLEAR_SERVICE = "trainstack-boot-clear.service"
CLEAR_UNIT = f"""\
[Unit]
Description=trainstack: clear the last boot's preemption notice and leaving mark
DefaultDependencies=no
After=local-fs.target
Before={SERVICE} {job_agent.SERVICE}

[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=/bin/rm -f /{preemption_agent.LEAVING_FILE} /{preemption_agent.NOTICE_FILE}

[Install]
WantedBy=multi-user.target
"""

# Every shell (and torchrun started from one) finds the helper. The shared rendezvous store is
# off because with it a replacement node never joins an elastic restart (pytorch/pytorch#135712).
PROFILE_TEXT = f"""\
export PYTHONPATH="{HELPER_DIR}${{PYTHONPATH:+:$PYTHONPATH}}"
export TORCH_DISABLE_SHARE_RDZV_TCP_STORE=1
"""

_UPLOAD_HEADER = """#!/bin/bash
# trainstack preemption agent's upload: $1 (an event file) to the key $2 in the cluster's bucket,
# with the cloud's own CLI (CloudBoot.upload).
set -euo pipefail
# shellcheck source=/dev/null
. {config}/node.env
"""


def notice_kind(cloud: CloudBoot) -> str:
    return getattr(cloud, "preemption_notice", None) or preemption_agent.NOTICE_KINDS[cloud.cloud]


def preemption_step(ctx: NodeContext, cloud: CloudBoot) -> BootStep:
    upload = (_UPLOAD_HEADER.format(config=CONFIG_DIR)
              + cloud.upload(ctx, "$1", "$2").strip() + "\n")
    files = (BootFile(AGENT_PATH, AGENT_SOURCE, "0755", bulky=True),
             BootFile(UPLOAD_SCRIPT, upload, "0755"),
             BootFile(HELPER_PATH, HELPER_SOURCE, bulky=True), BootFile(PROFILE, PROFILE_TEXT),
             BootFile(f"/etc/systemd/system/{SERVICE}", UNIT),
             BootFile(f"/etc/systemd/system/{CLEAR_SERVICE}", CLEAR_UNIT))
    script = _function("node_name", cloud.node_name()) + f"""
node="$(node_name || true)"
[ -n "$node" ] || node="$(hostname)"
mkdir -p {CONFIG_DIR} {STATE_DIR}/jobs {STATE_DIR}/events
printf 'TS_NODE=%s\\nTS_CLOUD=%s\\nTS_NOTICE_KIND=%s\\n' \\
  "$node" {cloud.cloud} {notice_kind(cloud)} > {ENV_FILE}
systemctl daemon-reload
systemctl enable {CLEAR_SERVICE}
systemctl enable --now {SERVICE}
"""
    return BootStep(STEP_NAME, script, f"preemption agent ({notice_kind(cloud)}): SIGTERM to the "
                    "job with the deadline, events/<node>/ in the bucket", files=files)


@extensions.add_step_provider
def preemption_steps(ctx: NodeContext, cloud: CloudBoot) -> list[BootStep]:
    if cloud.cloud not in preemption_agent.NOTICE_KINDS and not getattr(cloud, "preemption_notice",
                                                                         None):
        return []    # a cloud trainstack has no notice reader for yet
    return [preemption_step(ctx, cloud)]
