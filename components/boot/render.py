"""Pure renderers: boot steps -> one `#cloud-config` document (write_files + runcmd).

Every step becomes a script under STEP_DIR, run through a small runner that logs it and keeps
its exit code; runcmd calls the runner once per step, in order. AWS passes the document as
launch-template user data (base64, gzip when over the 16 KB limit); GCP as `user-data` metadata.
"""
from __future__ import annotations

import base64
import gzip
import hashlib
import posixpath
import shlex
from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

import yaml

from trainstack_components.boot.model import STATE_DIR, STEP_DIR, BootFile, BootStep, CloudBoot, NodeContext
from trainstack_components.boot.steps import _function, boot_steps, step_files
from trainstack_components.errors import SpecError

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


SHIP_PREFIX = "trainstack/boot"
FETCH_STEP = "fetch"
FETCH_WAIT_S = 6   # between two tries of the `fetch` step (CloudBoot.fetch_window_s in all)


@dataclass(frozen=True)
class ShippedFile:
    """A bulky boot file that travels through the cluster's bucket: the cloud's component
    uploads `content` to `key` at deploy time; the `fetch` step writes it to `path` at boot.
    The key is content-addressed, so a changed file is a new key, hence new user data and (on
    AWS) a new launch-template version: nodes never boot a mix of old user data and new code."""

    key: str
    path: str
    content: str
    permissions: str
    sha256: str


def shipped_file(file: BootFile) -> ShippedFile:
    digest = hashlib.sha256(file.content.encode()).hexdigest()
    key = f"{SHIP_PREFIX}/{digest[:16]}/{posixpath.basename(file.path)}"
    return ShippedFile(key, file.path, file.content, file.permissions, digest)


def fetch_attempts(cloud: CloudBoot) -> int:
    """How many failed downloads the `fetch` step takes before it gives up: the cloud's
    window at FETCH_WAIT_S apart."""
    return max(1, -(-cloud.fetch_window_s // FETCH_WAIT_S))


def fetch_step(ctx: NodeContext, cloud: CloudBoot, shipped: Sequence[ShippedFile]) -> BootStep:
    """Download every shipped file to its path with its permissions, checking its sha256 (the
    nodes may write to their bucket, so the bytes are checked, not trusted); retried, since the
    node's credentials and its route to the bucket may come a little after boot starts. The
    retries are one budget for the whole step (the cloud's fetch window): credentials that come
    late are waited for once, and a step whose files never come ends within the window (each
    later file still gets one try), naming every key it could not fetch."""
    calls = "\n".join(
        "fetch_file " + " ".join(shlex.quote(v) for v in (f.key, f.path, f.permissions, f.sha256))
        + " || failed=1" for f in shipped)
    script = _function("download", cloud.download(ctx, "$1", "$2")) + f"""
tries_left={fetch_attempts(cloud)}
fetch_file() {{
  local key="$1" path="$2" mode="$3" sha="$4" attempt=0
  mkdir -p "$(dirname "$path")"
  while :; do
    attempt=$((attempt + 1))
    if download "$key" "$path.fetch" && echo "$sha  $path.fetch" | sha256sum -c --status -; then
      chmod "$mode" "$path.fetch"
      mv -f "$path.fetch" "$path"
      return 0
    fi
    tries_left=$((tries_left - 1))
    if [ "$tries_left" -le 0 ]; then break; fi
    echo "attempt $attempt: $key not fetched or its sha256 differs; retrying in {FETCH_WAIT_S} s"
    sleep {FETCH_WAIT_S}
  done
  rm -f "$path.fetch"
  echo "$key: not fetched (or its sha256 differs) after $attempt attempts; $path is missing"
  return 1
}}
failed=0
{calls}
exit "$failed"
"""
    return BootStep(FETCH_STEP, script, f"{len(shipped)} bulky files (the agents' code) from "
                    f"{SHIP_PREFIX}/ in the bucket, sha256 checked")


@dataclass(frozen=True)
class RenderedBoot:
    """A node's cloud-config, the files its cloud must put in the bucket for it, and the plan's
    one-line outline of its steps (boot_outline's), from one pass over the steps."""

    text: str
    shipped: tuple[ShippedFile, ...] = ()
    outline: str = ""


def _boot(ctx: NodeContext, cloud: CloudBoot, extra_steps: Sequence[BootStep],
          extra_files: Sequence[BootFile], ship: bool):
    from trainstack_components.boot.extensions import provided_steps
    steps = boot_steps(ctx, cloud, [*provided_steps(ctx, cloud), *extra_steps])
    files = [*step_files(ctx, cloud, steps), *extra_files]
    shipped = tuple(shipped_file(f) for f in files if ship and f.bulky)
    if shipped:
        # First of all: the agents' steps (the idle agent among them) start what it fetches.
        steps = [fetch_step(ctx, cloud, shipped), *steps]
        files = [f for f in files if not f.bulky]
    return steps, files, shipped


def render_boot(ctx: NodeContext, cloud: CloudBoot, extra_steps: Sequence[BootStep] = (),
                extra_files: Sequence[BootFile] = (), ship: bool = False) -> RenderedBoot:
    """The node's cloud-config for one cluster: the standard steps, then the registered
    providers' steps (trainstack_components.boot.extensions), then `extra_steps`, then the health record;
    the cluster's facts file plus `extra_files`. With `ship`, bulky files leave the document:
    a first step fetches them from the bucket, and `shipped` says what to upload there."""
    steps, files, shipped = _boot(ctx, cloud, extra_steps, extra_files, ship)
    return RenderedBoot(cloud_config(steps, files), shipped, _outline(steps))


def render_user_data(ctx: NodeContext, cloud: CloudBoot, extra_steps: Sequence[BootStep] = (),
                     extra_files: Sequence[BootFile] = ()) -> str:
    """The cloud-config with every file inline (a cloud whose user data has room for them)."""
    return render_boot(ctx, cloud, extra_steps, extra_files).text


def shipped_files(ctx: NodeContext, cloud: CloudBoot, extra_steps: Sequence[BootStep] = (),
                  extra_files: Sequence[BootFile] = ()) -> tuple[ShippedFile, ...]:
    """What `render_boot(..., ship=True)` ships, without rendering the document."""
    return _boot(ctx, cloud, extra_steps, extra_files, True)[2]


def render_shipped(ctx: NodeContext, cloud: CloudBoot,
                   planned: Sequence[ShippedFile]) -> RenderedBoot:
    """The boot with its bulky files shipped, checked against `planned` (the objects the
    cluster declared from `shipped_files` before the bucket existed): a bulky BootFile that read
    a deploy-time value would ask for keys no object holds."""
    rendered = render_boot(ctx, cloud, ship=True)
    if {f.key for f in rendered.shipped} != {f.key for f in planned}:
        raise ValueError(
            "the boot files shipped through the bucket depend on values only known at deploy "
            f"time: planned {sorted(f.key for f in planned)}, rendered "
            f"{sorted(f.key for f in rendered.shipped)}; a bulky BootFile must not read "
            "the bucket, role or filesystem from its NodeContext")
    return rendered


def shipped_object_name(cluster: str, file: ShippedFile) -> str:
    """The bucket object's Pulumi name for one shipped file: `<cluster>-boot-<file name>`."""
    return f"{cluster}-boot-{posixpath.basename(file.path).replace('_', '-').replace('.', '-')}"


def boot_outline(ctx: NodeContext, cloud: CloudBoot, extra_steps: Sequence[BootStep] = (),
                 ship: bool = False) -> str:
    """One line for the plan: every step a node runs, in order, with what it does (also
    RenderedBoot.outline, for a cluster that renders the boot anyway)."""
    return _outline(_boot(ctx, cloud, extra_steps, (), ship)[0])


def _outline(steps: Sequence[BootStep]) -> str:
    return "; ".join(f"{s.name}: {s.description or s.name}" for s in steps)


def user_data_too_large(cloud: str, size: int, limit: int, where: str) -> SpecError:
    """The plan's refusal of a boot that no longer fits its cloud's user data: the size, the
    limit and the way out, as one paragraph (exit 2), before any node is asked for."""
    return SpecError(
        f"{cloud} node user data",
        f"is {size:,} bytes gzipped; {where} takes at most {limit:,} bytes (before base64).",
        "Shrink the boot: drop or shorten the steps a provider adds "
        "(trainstack_components.boot.extensions), or mark its large files BootFile(bulky=True) "
        "so they travel through the cluster's bucket instead of the user data.")


def aws_user_data(text: str) -> str:
    """Base64 for a launch template; gzip first when the text is over EC2's limit (cloud-init
    reads gzip user data). Still over it: a SpecError (exit 2 at `trainstack plan`)."""
    raw = text.encode()
    if len(raw) > AWS_USER_DATA_LIMIT:
        raw = gzip.compress(raw, mtime=0)
    if len(raw) > AWS_USER_DATA_LIMIT:
        raise user_data_too_large("aws", len(raw), AWS_USER_DATA_LIMIT,
                                  "an EC2 launch template")
    return base64.b64encode(raw).decode()


def decode_aws_user_data(encoded: str) -> str:
    raw = base64.b64decode(encoded)
    return (gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw).decode()


if TYPE_CHECKING:   # the stubs know no CSafeDumper; it is a SafeDumper with libyaml's emitter
    from yaml import SafeDumper as _SafeDumper
else:
    _SafeDumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


class _LiteralDumper(_SafeDumper):
    """Multi-line strings as `|` blocks, so the rendered user data reads like the scripts.
    libyaml's emitter when PyYAML has it (the same text, ten times faster: every plan renders
    user data), else the pure-Python one."""


def _str(dumper: yaml.SafeDumper, value: str):
    lines = value.splitlines()
    style = "|" if "\n" in value and all(line == line.rstrip() for line in lines) else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_LiteralDumper.add_representer(str, _str)
