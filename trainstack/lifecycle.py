"""`trainstack up` / `destroy`: the Pulumi Automation API over the project's own stacks.

These need what the offline commands do not: the Pulumi CLI (with its provider plugins) and
cloud credentials. Both are checked first and a missing one is named in one line; state goes to a
local `file://` backend inside the project unless PULUMI_BACKEND_URL says otherwise.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

from components.errors import SpecError
from trainstack import PROJECT_DIR
from trainstack.engine import prevalidate
from trainstack.stacks import stack_config

STATE_DIR = ".pulumi-state"


@dataclass(frozen=True)
class Credentials:
    env_any: tuple[tuple[str, ...], ...]  # any one group of variables, all set
    files: tuple[str, ...]                # or any one of these files (under $HOME)
    how: str


# Where each provider's SDK looks for credentials first; instance roles / managed identities
# cannot be seen offline, hence --skip-credential-check.
CREDENTIALS = {
    "aws": Credentials((("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"), ("AWS_PROFILE",),
                        ("AWS_WEB_IDENTITY_TOKEN_FILE",)),
                       (".aws/credentials", ".aws/config"),
                       "set AWS_PROFILE or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, or run `aws configure`"),
    "gcp": Credentials((("GOOGLE_APPLICATION_CREDENTIALS",), ("GOOGLE_CREDENTIALS",)),
                       (".config/gcloud/application_default_credentials.json",),
                       "run `gcloud auth application-default login` or set GOOGLE_APPLICATION_CREDENTIALS"),
    "azure": Credentials((("ARM_CLIENT_ID", "ARM_CLIENT_SECRET", "ARM_TENANT_ID"), ("ARM_USE_MSI",),
                          ("ARM_USE_OIDC",)),
                         (".azure/azureProfile.json",),
                         "run `az login` or set ARM_CLIENT_ID/ARM_CLIENT_SECRET/ARM_TENANT_ID"),
    "alicloud": Credentials((("ALICLOUD_ACCESS_KEY", "ALICLOUD_SECRET_KEY"),
                             ("ALIBABA_CLOUD_ACCESS_KEY_ID", "ALIBABA_CLOUD_ACCESS_KEY_SECRET"),
                             ("ALICLOUD_PROFILE",)),
                            (".aliyun/config.json",),
                            "set ALICLOUD_ACCESS_KEY/ALICLOUD_SECRET_KEY or run `aliyun configure`"),
}


def check_credentials(cloud: str, env: Optional[dict] = None, home: Optional[Path] = None) -> None:
    env = os.environ if env is None else env
    home = Path.home() if home is None else home
    need = CREDENTIALS[cloud]
    if any(all(env.get(v) for v in group) for group in need.env_any):
        return
    if any((home / f).is_file() for f in need.files):
        return
    raise SpecError(f"{cloud} credentials", "were not found in the environment or the usual files.",
                    f"To deploy, {need.how}; or pass --skip-credential-check when running on an "
                    "instance role. Offline commands (plan, check, estimate, compare) need none.")


def pulumi_command():
    import pulumi.automation as auto
    try:
        return auto.PulumiCommand(root=os.environ.get("PULUMI_ROOT"))
    except FileNotFoundError as missing:
        raise SpecError("Pulumi CLI", f"was not found ({missing.filename!r} is not installed).",
                        "Install it (https://www.pulumi.com/docs/install/) or set PULUMI_ROOT; "
                        "offline commands (plan, check, estimate, compare) do not need it.") from None
    except auto.InvalidVersionError as old:
        raise SpecError("Pulumi CLI", f"is too old: {old}", "Upgrade the Pulumi CLI.") from None


def backend_env(project_dir: Path) -> dict[str, str]:
    state = project_dir / STATE_DIR
    return {
        "PULUMI_BACKEND_URL": os.environ.get("PULUMI_BACKEND_URL", f"file://{state}"),
        # The file backend encrypts secrets with a passphrase; an empty one is Pulumi's
        # documented way to opt out, and users who need one export their own.
        "PULUMI_CONFIG_PASSPHRASE": os.environ.get("PULUMI_CONFIG_PASSPHRASE", ""),
    }


def select_stack(stack: str, project_dir: Path = PROJECT_DIR, skip_credential_check: bool = False):
    """Everything that can fail cheaply fails first: spec, CLI, credentials; then the stack."""
    import pulumi.automation as auto
    inputs = prevalidate(stack_config(project_dir, stack), project_dir)
    command = pulumi_command()
    if not skip_credential_check:
        check_credentials(inputs.cloud)
    env = backend_env(project_dir)
    if env["PULUMI_BACKEND_URL"].startswith("file://"):
        Path(env["PULUMI_BACKEND_URL"][len("file://"):]).mkdir(parents=True, exist_ok=True)
    workspace = auto.LocalWorkspace(work_dir=str(project_dir), pulumi_command=command,
                                    env_vars=env)
    return inputs, auto.Stack.create_or_select(stack, workspace)


class DeployFailed(RuntimeError):
    """The Pulumi CLI ran and failed (credentials rejected, quota, a provider error)."""


def _run(action: Callable[[], object]):
    import pulumi.automation as auto
    try:
        return action()
    except auto.CommandError as failed:
        lines = [line for line in str(failed).splitlines() if line.strip()]
        raise DeployFailed("\n".join(lines[-8:])) from None


def up(stack: str, echo: Callable[[str], None], project_dir: Path = PROJECT_DIR,
       skip_credential_check: bool = False) -> dict:
    from trainstack.capacity_guard import pin_image, scale_back
    _, selected = select_stack(stack, project_dir, skip_credential_check)
    try:
        result = _run(lambda: selected.up(on_output=echo))
    except DeployFailed as failed:  # no part of a cluster left billing (issue 8)
        raise scale_back(selected, failed, stack, echo, _run) from None
    outputs = {k: v.value for k, v in result.outputs.items()}
    pin_image(selected, outputs, echo)
    return outputs


def destroy(stack: str, echo: Callable[[str], None], project_dir: Path = PROJECT_DIR,
            skip_credential_check: bool = False) -> list[str]:
    """Destroy the stack's resources; returns what stays behind on purpose (the bucket)."""
    inputs, selected = select_stack(stack, project_dir, skip_credential_check)
    outputs = {k: v.value for k, v in _run(selected.outputs).items()}
    _run(lambda: selected.destroy(on_output=echo))
    kept = []
    if inputs.spec.bucket.retain_on_destroy and outputs.get("bucket_name"):
        kept.append(f"bucket {outputs['bucket_name']} (retain_on_destroy: true)")
    return kept
