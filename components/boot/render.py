"""Pure renderers: boot steps -> one `#cloud-config` document (write_files + runcmd).

Every step becomes a script under STEP_DIR, run through a small runner that logs it and keeps
its exit code; runcmd calls the runner once per step, in order. AWS passes the document as
launch-template user data (base64, gzip when over the 16 KB limit); GCP as `user-data` metadata.
"""
from __future__ import annotations

import base64
import gzip
from typing import Sequence

import yaml

from components.boot.model import STATE_DIR, STEP_DIR, BootFile, BootStep, CloudBoot, NodeContext
from components.boot.steps import boot_steps, step_files

RUNNER = f"{STEP_DIR}/run-step"
BOOT_LOG = "/var/log/trainstack-boot.log"
STEP_HEADER = ("#!/bin/bash\n# trainstack boot step {name}: {description}\n"
               "set -euo pipefail\n# shellcheck source=/dev/null\n. /etc/trainstack/node.env\n")
AWS_USER_DATA_LIMIT = 16 * 1024  # bytes, before base64 (EC2 user data limit)

_RUNNER_SCRIPT = f"""#!/bin/bash
# trainstack: run one boot step, log it, keep its exit code for the health record.
set -uo pipefail
step="$1"
mkdir -p {STATE_DIR}/steps
echo "$(date -u +%FT%TZ) start $step" >> {BOOT_LOG}
bash "{STEP_DIR}/$step.sh" >> {BOOT_LOG} 2>&1
rc=$?
echo "$rc" > "{STATE_DIR}/steps/$step.rc"
echo "$(date -u +%FT%TZ) end $step rc=$rc" >> {BOOT_LOG}
exit 0
"""


def step_script(step: BootStep) -> str:
    """The whole script of one step, as the node runs it (and as shellcheck reads it)."""
    header = STEP_HEADER.format(name=step.name, description=step.description or step.name)
    return header + step.script.strip() + "\n"


def cloud_config(steps: Sequence[BootStep], files: Sequence[BootFile] = ()) -> str:
    """`#cloud-config` text: `files`, then each step's own files and script, then runcmd."""
    written = [*files, BootFile(RUNNER, _RUNNER_SCRIPT, "0755")]
    written += [BootFile(f"{STEP_DIR}/{s.name}.sh", step_script(s), "0755") for s in steps]
    paths = [f.path for f in written]
    duplicated = sorted({p for p in paths if paths.count(p) > 1})
    if duplicated:
        raise ValueError(f"two boot files write the same path: {', '.join(duplicated)}")
    document = {
        "write_files": [{"path": f.path, "permissions": f.permissions, "owner": "root:root",
                         "content": f.content} for f in written],
        "runcmd": [[RUNNER, s.name] for s in steps],
    }
    return "#cloud-config\n" + yaml.dump(document, Dumper=_LiteralDumper, sort_keys=False,
                                         width=1000)


def render_user_data(ctx: NodeContext, cloud: CloudBoot, extra_steps: Sequence[BootStep] = (),
                     extra_files: Sequence[BootFile] = ()) -> str:
    """The node's cloud-config for one cluster: the standard steps, then the registered
    providers' steps (components.boot.extensions), then `extra_steps`, then the health record;
    the cluster's facts file plus `extra_files`."""
    from components.boot.extensions import provided_steps
    steps = boot_steps(ctx, cloud, [*provided_steps(ctx, cloud), *extra_steps])
    return cloud_config(steps, [*step_files(ctx, cloud, steps), *extra_files])


def boot_outline(ctx: NodeContext, cloud: CloudBoot, extra_steps: Sequence[BootStep] = ()) -> str:
    """One line for the plan: every step a node runs, in order, with what it does."""
    from components.boot.extensions import provided_steps
    steps = boot_steps(ctx, cloud, [*provided_steps(ctx, cloud), *extra_steps])
    return "; ".join(f"{s.name}: {s.description or s.name}" for s in steps)


def aws_user_data(text: str) -> str:
    """Base64 for a launch template; gzip first when the text is over EC2's limit (cloud-init
    reads gzip user data)."""
    raw = text.encode()
    if len(raw) > AWS_USER_DATA_LIMIT:
        raw = gzip.compress(raw, mtime=0)
    if len(raw) > AWS_USER_DATA_LIMIT:
        raise ValueError(f"user data is {len(raw)} bytes gzipped; EC2 allows {AWS_USER_DATA_LIMIT}")
    return base64.b64encode(raw).decode()


def decode_aws_user_data(encoded: str) -> str:
    raw = base64.b64decode(encoded)
    return (gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw).decode()


class _LiteralDumper(getattr(yaml, "CSafeDumper", yaml.SafeDumper)):
    """Multi-line strings as `|` blocks, so the rendered user data reads like the scripts.
    libyaml's emitter when PyYAML has it (the same text, ten times faster: every plan renders
    user data), else the pure-Python one."""


def _str(dumper: yaml.SafeDumper, value: str):
    lines = value.splitlines()
    style = "|" if "\n" in value and all(line == line.rstrip() for line in lines) else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_LiteralDumper.add_representer(str, _str)
