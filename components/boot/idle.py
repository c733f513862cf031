"""The idle signal as a boot step every cloud's nodes run (issue 13): the idle agent
(components/agents/idle_agent.py), its systemd service and minutely timer, and an upload script
built from the cloud's own `CloudBoot.upload`, so `heartbeats/<node>.json` lands in the cluster's
bucket where `trainstack reap` reads it. Registered with `extensions.add_step_provider`; no
cloud's code names it.

The node's name is the cloud's (`CloudBoot.node_name`: the AWS instance id, the GCP instance
name), the same key as the health record `status/<node>.json`.
"""
from __future__ import annotations

from importlib import resources

from trainstack_components.agents import idle_agent
from trainstack_components.boot import extensions
from trainstack_components.boot.model import CONFIG_DIR, STATE_DIR, BootFile, BootStep, CloudBoot, NodeContext
from trainstack_components.boot.steps import HEALTH_STEP, _function

STEP_NAME = "idle"
HEARTBEAT_PREFIX = "heartbeats"   # <bucket>/heartbeats/<node>.json: trainstack.reap.reaper's layout
UPLOAD_SCRIPT = "/opt/trainstack/idle-upload"
ENV_FILE = idle_agent.ENV_FILE
assert ENV_FILE.startswith(CONFIG_DIR + "/")

# The agent runs as the node's `/usr/bin/python3` (stdlib only); it ships as package data.
AGENT_SOURCE = resources.files("trainstack_components.agents").joinpath("idle_agent.py").read_text("utf-8")

_UPLOAD_HEADER = f"""#!/bin/bash
# trainstack idle agent's upload: $1 (a heartbeat file) to {HEARTBEAT_PREFIX}/$2.json in the
# cluster's bucket, with the cloud's own CLI (CloudBoot.upload).
set -euo pipefail
# shellcheck source=/dev/null
. {CONFIG_DIR}/node.env
"""


def upload_script(ctx: NodeContext, cloud: CloudBoot) -> str:
    return _UPLOAD_HEADER + cloud.upload(ctx, "$1", f"{HEARTBEAT_PREFIX}/$2.json").strip() + "\n"


def idle_step(ctx: NodeContext, cloud: CloudBoot) -> BootStep:
    """Write the agent, the upload script and the units; name the node; start the timer."""
    units = idle_agent.unit_files(f"{UPLOAD_SCRIPT} {{src}} {{node}}")
    files = (BootFile(idle_agent.AGENT_PATH, AGENT_SOURCE, "0755", bulky=True),
             BootFile(UPLOAD_SCRIPT, upload_script(ctx, cloud), "0755"),
             *(BootFile(path, text) for path, text in units.items()))
    script = _function("node_name", cloud.node_name()) + f"""
node="$(node_name || true)"
if [ -z "$node" ]; then
  echo "no node name from the cloud; the heartbeat falls back to the host name"
  node="$(hostname)"
fi
mkdir -p {CONFIG_DIR} {STATE_DIR}/steps
# Busy while booting: the agent reads this marker until the runner records the last step's end.
rm -f {STATE_DIR}/steps/{idle_agent.HEALTH_STEP}.rc
touch {STATE_DIR}/{idle_agent.BOOTING_FILE}
printf 'TS_NODE=%s\\n' "$node" > {ENV_FILE}
systemctl daemon-reload
systemctl enable --now {idle_agent.TIMER}
"""
    # First in boot: a node waiting on Lustre or its peers reports "booting", never silence.
    return BootStep(STEP_NAME, script, f"idle agent every minute: {HEARTBEAT_PREFIX}/<node>.json "
                    "in the bucket (jobs, GPU use, sessions, boot)", files=files, first=True)


@extensions.add_step_provider
def idle_steps(ctx: NodeContext, cloud: CloudBoot) -> list[BootStep]:
    return [idle_step(ctx, cloud)]


assert idle_agent.STATE_DIR == STATE_DIR and idle_agent.HEALTH_STEP == HEALTH_STEP
