"""Cloud-neutral node bootstrap: boot steps as data, one `CloudBoot` per cloud, pure renderers.

    from trainstack_components.boot import NodeContext, render_user_data
    text = render_user_data(ctx, AwsBoot(), extra_steps=[BootStep("heartbeat", "...", files=(...))])

A new cloud writes only `components/<cloud>/boot.py` with a `CloudBoot` subclass (Lustre
client, mount options, NVMe discovery, fabric, node name/addresses, upload) and calls
`render_user_data(ctx, ItsBoot())` where its component builds the node template.

Extra steps (a `BootStep` carries its own files) run after the standard ones and before the
health record, which reports their exit codes: pass `extra_steps=` to `render_user_data`, or
register a provider once with `extensions.add_step_provider(fn)` (fn: NodeContext -> steps) so
every cloud's nodes run them without touching any cloud's code. `extra_files=` adds files only.
"""
from trainstack_components.boot import extensions
from trainstack_components.boot.model import (
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
from trainstack_components.boot.render import (
    RenderedBoot,
    ShippedFile,
    aws_user_data,
    boot_outline,
    cloud_config,
    decode_aws_user_data,
    render_boot,
    render_shipped,
    render_user_data,
    shipped_files,
    shipped_object_name,
    step_script,
    user_data_too_large,
)
from trainstack_components.boot.steps import (
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
    "RenderedBoot", "ShippedFile", "render_boot", "render_shipped", "shipped_files", "shipped_object_name", "user_data_too_large",
]
