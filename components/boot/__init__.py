"""Cloud-neutral node bootstrap: boot steps as data, one `CloudBoot` per cloud, pure renderers.

    from components.boot import NodeContext, render_user_data
    text = render_user_data(ctx, AwsBoot(), extra_steps=[BootStep("heartbeat", "...", files=(...))])

A new cloud writes only `components/<cloud>/boot.py` with a `CloudBoot` subclass (Lustre
client, mount options, NVMe discovery, fabric, node name/addresses, upload). Extra steps run
after the standard ones and before the health record; extra files are written before any step.
"""
from components.boot import extensions
from components.boot.model import (
    CONFIG_DIR,
    MASTER_PORT,
    MOUNT_PATH,
    SCRATCH_PATH,
    STATE_DIR,
    BootFile,
    BootStep,
    CloudBoot,
    Fabric,
    NodeContext,
)
from components.boot.render import (
    aws_user_data,
    boot_outline,
    cloud_config,
    decode_aws_user_data,
    render_user_data,
    step_script,
)
from components.boot.steps import (
    HEALTH_FILE,
    HOSTFILE,
    NCCL_PROFILE,
    RANKS_PROFILE,
    boot_steps,
)

__all__ = [
    "CONFIG_DIR", "HEALTH_FILE", "HOSTFILE", "MASTER_PORT", "MOUNT_PATH", "NCCL_PROFILE",
    "RANKS_PROFILE", "SCRATCH_PATH", "STATE_DIR", "BootFile", "BootStep", "CloudBoot", "Fabric",
    "NodeContext", "aws_user_data", "boot_outline", "boot_steps", "cloud_config",
    "decode_aws_user_data", "extensions", "render_user_data", "step_script",
]
