"""After a destroy that keeps the bucket: write down what was kept, so that the next `up`
imports it instead of failing to create it again (components/adoption.py has the program's
side). Used by `trainstack destroy` and by the reaper; `up` clears the record once it ran.

The record goes to two places: the stack config (the checkout's stack file) and, for a
self-managed backend (file://, s3://, gs://), a copy beside the backend's own state
(`<backend>/.pulumi/trainstack-adopt/<project>/<stack>.json`), which outlives a CI runner's
checkout; `up` takes the record from there when the stack file has none."""
from __future__ import annotations

import json
import shlex
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from trainstack_components.adoption import ADOPT_KEY
from trainstack_components.project import PROJECT

BACKEND_SCHEMES = ("file://", "s3://", "gs://")


def record_url(backend: Optional[str], stack_name: str) -> Optional[str]:
    """Where a self-managed backend keeps this stack's adopt record (None: Pulumi Cloud and
    backends fsspec is not set up to reach here)."""
    if not backend or not backend.startswith(BACKEND_SCHEMES):
        return None
    return (f"{backend.rstrip('/')}/.pulumi/trainstack-adopt/{PROJECT}/"
            f"{stack_name.replace('/', '_')}.json")


def save_record(backend: Optional[str], stack_name: str, kept: dict[str, str]) -> Optional[str]:
    import fsspec
    url = record_url(backend, stack_name)
    if url is None:
        return None
    with fsspec.open(url, "wb", auto_mkdir=True) as out:
        out.write(json.dumps(kept, sort_keys=True).encode())
    return url


def load_record(backend: Optional[str], stack_name: str) -> dict[str, str]:
    import fsspec
    url = record_url(backend, stack_name)
    if url is None:
        return {}
    try:
        with fsspec.open(url, "rb") as found:
            return json.loads(found.read())
    except FileNotFoundError:
        return {}


def drop_record(backend: Optional[str], stack_name: str) -> None:
    import fsspec
    url = record_url(backend, stack_name)
    if url is None:
        return
    fs, path = fsspec.core.url_to_fs(url)
    try:
        fs.rm(path)
    except FileNotFoundError:
        pass


@dataclass
class Kept:
    """What a destroy kept, where its record was written and what could not be written."""
    ids: dict[str, str] = field(default_factory=dict)
    recorded: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)


def retained_ids(deployment: dict[str, Any]) -> dict[str, str]:
    """{resource name: id} of the custom resources a destroy leaves in place (retainOnDelete),
    read from `pulumi stack export`'s deployment; providers and components carry no data."""
    kept = {}
    for r in deployment.get("resources") or []:
        if not r.get("retainOnDelete") or not r.get("custom") or not r.get("id"):
            continue
        if str(r.get("type", "")).startswith("pulumi:providers:"):
            continue
        kept[str(r["urn"]).rsplit("::", 1)[-1]] = str(r["id"])
    return kept


def destroy_keeping(stack: Any, destroy: Callable[[], object],
                    backend: Optional[str] = None,
                    deployment: Optional[dict[str, Any]] = None) -> Kept:
    """Run `destroy` on an Automation API stack and, once it succeeded, record the ids of what
    it kept: beside the backend's state (see the module doc) and in the stack's config. The ids
    are read before: the destroy removes them from the state (from `deployment`, the state a
    caller has just read to judge the destroy, else from a `pulumi stack export` now). A
    destroy that fails records nothing (the kept resources are still in the state); a record
    that cannot be written after a destroy that succeeded is said in `failed`, never raised as
    a failed destroy."""
    import pulumi.automation as auto
    if deployment is None:
        deployment = stack.export_stack().deployment or {}
    kept = Kept(retained_ids(deployment))
    destroy()
    if not kept.ids:
        return kept
    value = json.dumps(kept.ids, sort_keys=True)
    try:
        where = save_record(backend, stack.name, kept.ids)
        if where:
            kept.recorded.append(where)
    except Exception as failed:  # noqa: BLE001 (the destroy is done; said, not raised)
        kept.failed.append(f"backend record: {type(failed).__name__}: {failed}")
    try:
        stack.set_config(ADOPT_KEY, auto.ConfigValue(value))
        kept.recorded.append("the stack file")
    except Exception as failed:  # noqa: BLE001
        lines = [line for line in str(failed).splitlines() if line.strip()] or [""]
        kept.failed.append(f"pulumi config set: {lines[-1]}")
    return kept


def adopt_command(stack_name: str, kept: dict[str, str]) -> str:
    """The CLI line that records `kept` for `stack_name` where the destroy's own record is not
    (a reaper on a CI runner writes it into a checkout that is thrown away)."""
    return (f"pulumi config set --stack {shlex.quote(stack_name)} {ADOPT_KEY} "
            f"{shlex.quote(json.dumps(kept, sort_keys=True))}")


def take_record(stack: Any, backend: Optional[str], echo: Callable[[str], None]) -> None:
    """Before `up`: a stack file without the record (a fresh checkout, a CI runner) gets the one
    kept beside the backend's state, so the kept bucket is imported, not made anew."""
    import pulumi.automation as auto
    if ADOPT_KEY in stack.get_all_config():
        return
    try:
        kept = load_record(backend, stack.name)
    except Exception as failed:  # noqa: BLE001 (said: the up goes on, as without a record)
        echo(f"warning: the record of what the last destroy kept ({record_url(backend, stack.name)}) "
             f"could not be read: {type(failed).__name__}: {failed}; if a destroy kept the "
             f"bucket, record it first (pulumi config set {ADOPT_KEY} ...)\n")
        return
    if kept:
        stack.set_config(ADOPT_KEY, auto.ConfigValue(json.dumps(kept, sort_keys=True)))
        echo(f"taking back what the last destroy kept: {', '.join(sorted(kept.values()))}\n")


def adopted(stack: Any, backend: Optional[str] = None) -> None:
    """After a successful `up`: the kept resources are in the state again, the record goes."""
    if ADOPT_KEY in stack.get_all_config():
        stack.remove_config(ADOPT_KEY)
    try:
        drop_record(backend, stack.name)
    except Exception:  # noqa: BLE001 (an unreadable record is warned about by the next up)
        pass
