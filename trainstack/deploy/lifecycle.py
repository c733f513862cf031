"""`trainstack up` / `preview` / `destroy`: the Pulumi Automation API over the project's stacks.

These need what the offline commands do not: the Pulumi CLI (with its provider plugins), cloud
credentials and, on a file backend, the secrets passphrase. All are checked first and a missing
one is named in one line; state goes to a local `file://` backend inside the project unless
`--backend` or PULUMI_BACKEND_URL says otherwise. `preview` and `up` run the policy pack.
"""
from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Mapping, Optional

from trainstack.deploy.errors import DeployFailed
from trainstack.plan.stacks import stack_config
from trainstack_components.errors import SpecError

STATE_DIR = ".pulumi-state"
POLICY_PACK_PACKAGE = "trainstack_policies"  # the installed package is the pack (PulumiPolicy.yaml inside)
# `--policy-pack` on preview/up and `stack ls --json` with these fields are older; 3.160 is the
# oldest CLI these commands were written against (the SDK pins a lower floor of its own).
MIN_PULUMI_VERSION = "3.160.0"


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


def check_credentials(cloud: str, env: Optional[Mapping[str, str]] = None,
                      home: Optional[Path] = None) -> None:
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
    from semver import VersionInfo
    try:
        return auto.PulumiCommand(root=os.environ.get("PULUMI_ROOT"),
                                  version=VersionInfo.parse(MIN_PULUMI_VERSION))
    except FileNotFoundError as missing:
        raise SpecError("Pulumi CLI", f"was not found ({missing.filename!r} is not installed).",
                        "Install it (https://www.pulumi.com/docs/install/) or set PULUMI_ROOT; "
                        "offline commands (plan, check, estimate, compare) do not need it.") from None
    except auto.InvalidVersionError as old:
        raise SpecError("Pulumi CLI", f"is too old: {str(old).strip()}",
                        f"Upgrade the Pulumi CLI to {MIN_PULUMI_VERSION} or later.") from None
    except (OSError, subprocess.CalledProcessError) as broken:
        raise SpecError("Pulumi CLI", f"did not answer `pulumi version` ({broken}).",
                        "Reinstall the Pulumi CLI or fix PULUMI_ROOT.") from None


def backend_url(project_dir: Path, backend: Optional[str] = None,
                env: Optional[Mapping[str, str]] = None) -> str:
    """`--backend`, else PULUMI_BACKEND_URL, else a file backend inside the project."""
    env = os.environ if env is None else env
    return backend or env.get("PULUMI_BACKEND_URL") or f"file://{project_dir / STATE_DIR}"


def backend_env(project_dir: Path, backend: Optional[str] = None,
                env: Optional[Mapping[str, str]] = None) -> dict[str, str]:
    """The variables the CLI runs with; a file backend without a passphrase stops here."""
    env = os.environ if env is None else env
    url = backend_url(project_dir, backend, env)
    out = {"PULUMI_BACKEND_URL": url}
    if url.startswith("file://"):
        # The file backend encrypts secrets with this passphrase; without one the CLI prompts,
        # which a non-interactive run turns into a hang or an opaque failure. An explicitly
        # empty PULUMI_CONFIG_PASSPHRASE is Pulumi's documented opt-out and is respected.
        if "PULUMI_CONFIG_PASSPHRASE" in env:
            out["PULUMI_CONFIG_PASSPHRASE"] = env["PULUMI_CONFIG_PASSPHRASE"]
        elif env.get("PULUMI_CONFIG_PASSPHRASE_FILE"):
            out["PULUMI_CONFIG_PASSPHRASE_FILE"] = env["PULUMI_CONFIG_PASSPHRASE_FILE"]
        else:
            raise SpecError("PULUMI_CONFIG_PASSPHRASE",
                            f"is not set, and the file backend {url} encrypts stack secrets with it.",
                            "Export PULUMI_CONFIG_PASSPHRASE (or PULUMI_CONFIG_PASSPHRASE_FILE); "
                            "an empty value opts out of encryption.")
        Path(url[len("file://"):]).mkdir(parents=True, exist_ok=True)
    return out


def resolve_project(project_dir: Optional[Path] = None) -> Path:
    """The user's project: `project_dir` when given, else `--project`/TRAINSTACK_PROJECT, else
    the nearest trainstack Pulumi.yaml from the working directory upward (SpecError if none)."""
    from trainstack.plan.select import project_dir as discovered
    return Path(project_dir) if project_dir is not None else discovered()


def workspace(project_dir: Optional[Path] = None, backend: Optional[str] = None):
    """A LocalWorkspace on the project with the backend settled (CLI and passphrase checked);
    the CLI runs in the project's folder, where its Pulumi.yaml and stacks/ are."""
    import pulumi.automation as auto
    project_dir = resolve_project(project_dir)
    command = pulumi_command()
    env = backend_env(project_dir, backend)
    return auto.LocalWorkspace(work_dir=str(project_dir), pulumi_command=command, env_vars=env)


def select_stack(stack: str, project_dir: Optional[Path] = None,
                 skip_credential_check: bool = False, backend: Optional[str] = None,
                 require_config: bool = False, create: bool = True):
    """Everything that can fail cheaply fails first: spec, required stack config (a deploy:
    `require_config`), CLI, passphrase, credentials. `create=False` (connect, status: commands
    that only read) selects an existing stack and never makes an empty one in the backend."""
    import pulumi.automation as auto
    project_dir = resolve_project(project_dir)
    from trainstack.plan.engine import prevalidate  # Pulumi loads only when a stack is driven
    config = stack_config(project_dir, stack)
    inputs = prevalidate(config, project_dir)
    if require_config:
        from trainstack.plan.required_config import refuse_blockers, refuse_missing
        refuse_missing(inputs.cloud, config, stack)
        refuse_blockers(inputs, stack)
    ws = workspace(project_dir, backend)
    if not skip_credential_check:
        check_credentials(inputs.cloud)
    if create:
        return inputs, auto.Stack.create_or_select(stack, ws)
    try:
        return inputs, auto.Stack.select(stack, ws)
    except auto.StackNotFoundError:
        raise SpecError(f"--stack {stack}", "has a stack file but is not deployed: the backend "
                        f"{backend_url(project_dir, backend)} has no stack of that name.",
                        f"Deploy it first (trainstack up --stack {stack}), or point "
                        "PULUMI_BACKEND_URL at the backend it was deployed with.") from None


def _run(action: Callable[[], object]):
    import pulumi.automation as auto
    try:
        return action()
    except auto.CommandError as failed:
        lines = [line for line in str(failed).splitlines() if line.strip()]
        raise DeployFailed("\n".join(lines[-8:])) from None


def policy_pack_dir() -> Path:
    """The pack's folder: the `policies` package trainstack runs from (a checkout's policies/,
    or site-packages/policies when installed), never a folder of the user's project."""
    import importlib.util
    found = importlib.util.find_spec(POLICY_PACK_PACKAGE)
    locations = list(found.submodule_search_locations or []) if found else []
    folder = Path(locations[0]).resolve() if locations else None
    if folder is None or not (folder / "PulumiPolicy.yaml").is_file():
        raise SpecError("policy pack", f"was not found (no {POLICY_PACK_PACKAGE}/PulumiPolicy.yaml "
                        "next to the installed trainstack).",
                        "Reinstall trainstack (pip install --force-reinstall trainstack).")
    return folder


def policy_packs(project_dir: Optional[Path] = None) -> list[str]:
    """The packs `preview` and `up` attach (the same for every project)."""
    del project_dir
    return [str(policy_pack_dir())]


def fix_lifetime_start(selected, inputs, config: dict[str, str],
                       clock: Callable[[], datetime] = lambda: datetime.now(timezone.utc)) -> None:
    """On the first deploy of a stack with a declared lifetime, write down when it started, so
    the deadline (start + lifetime) stays where it is on every later `up`."""
    import pulumi.automation as auto

    from trainstack_components.lifetime import LIFETIME_START_KEY, iso
    # Alibaba Cloud counts its nodes' release time from this moment too, lifetime or not
    # (components/alicloud/cluster.py): past it, `up` declares no nodes.
    wanted = inputs.spec.lifetime_hours or getattr(inputs, "cloud", None) == "alicloud"
    if wanted and not config.get(LIFETIME_START_KEY):
        selected.set_config(LIFETIME_START_KEY, auto.ConfigValue(iso(clock())))


def up(stack: str, echo: Callable[[str], None], project_dir: Optional[Path] = None,
       skip_credential_check: bool = False, backend: Optional[str] = None,
       clock: Callable[[], datetime] = lambda: datetime.now(timezone.utc)) -> dict:
    from trainstack.deploy.adoption import adopted, take_record
    from trainstack.deploy.capacity_guard import pin_image, scale_back
    project_dir = resolve_project(project_dir)
    inputs, selected = select_stack(stack, project_dir, skip_credential_check, backend,
                                    require_config=True)
    fix_lifetime_start(selected, inputs, stack_config(project_dir, stack), clock)
    take_record(selected, backend_url(project_dir, backend), echo)
    try:
        result = _run(lambda: selected.up(on_output=echo, policy_packs=policy_packs(project_dir)))
    except DeployFailed as failed:  # no part of a cluster left billing (issue 8)
        raise scale_back(selected, failed, stack, echo, _run) from None
    outputs = {k: v.value for k, v in result.outputs.items()}
    adopted(selected, backend_url(project_dir, backend))
    pin_image(selected, outputs, echo)
    return outputs


def preview(stack: str, echo: Callable[[str], None], project_dir: Optional[Path] = None,
            skip_credential_check: bool = False, backend: Optional[str] = None) -> dict:
    """What `up` would change, judged by the policy pack; returns the change counts."""
    _, selected = select_stack(stack, project_dir, skip_credential_check, backend,
                               require_config=True)
    result = _run(lambda: selected.preview(on_output=echo, policy_packs=policy_packs(project_dir)))
    return dict(result.change_summary or {})


def destroy(stack: str, echo: Callable[[str], None], project_dir: Optional[Path] = None,
            skip_credential_check: bool = False, backend: Optional[str] = None) -> list[str]:
    """Destroy the stack's resources; returns what stays behind on purpose (the bucket)."""
    from trainstack.deploy.adoption import adopt_command, destroy_keeping
    inputs, selected = select_stack(stack, project_dir, skip_credential_check, backend)
    outputs = {k: v.value for k, v in _run(selected.outputs).items()}
    project_dir = resolve_project(project_dir)
    record = _run(lambda: destroy_keeping(selected, lambda: selected.destroy(on_output=echo),
                                          backend_url(project_dir, backend)))
    for failed in record.failed:
        echo(f"the record of what was kept was not written ({failed}); "
             f"record it by hand: {adopt_command(stack, record.ids)}\n")
    kept = []
    if inputs.spec.bucket.retain_on_destroy and outputs.get("bucket_name"):
        kept.append(f"bucket {outputs['bucket_name']} (retain_on_destroy: true)")
    return kept
