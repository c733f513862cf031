"""After a destroy that keeps the bucket: write down what was kept, so that the next `up`
imports it instead of failing to create it again (components/adoption.py has the program's
side). Used by `trainstack destroy` and by the reaper; `up` clears the record once it ran."""
from __future__ import annotations

import json
import shlex
from typing import Any, Callable

from trainstack_components.adoption import ADOPT_KEY


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


def destroy_keeping(stack: Any, destroy: Callable[[], object]) -> dict[str, str]:
    """Run `destroy` on an Automation API stack and, once it succeeded, record in the stack's
    config the ids of what it kept. The ids are read before: the destroy removes them from the
    state. A destroy that fails records nothing (the kept resources are still in the state)."""
    import pulumi.automation as auto
    kept = retained_ids(stack.export_stack().deployment or {})
    destroy()
    if kept:
        stack.set_config(ADOPT_KEY, auto.ConfigValue(json.dumps(kept, sort_keys=True)))
    return kept


def adopt_command(stack_name: str, kept: dict[str, str]) -> str:
    """The CLI line that records `kept` for `stack_name` where the destroy's own record is not
    (a reaper on a CI runner writes it into a checkout that is thrown away)."""
    return (f"pulumi config set --stack {shlex.quote(stack_name)} {ADOPT_KEY} "
            f"{shlex.quote(json.dumps(kept, sort_keys=True))}")


def adopted(stack: Any) -> None:
    """After a successful `up`: the kept resources are in the state again, the record goes."""
    if ADOPT_KEY in stack.get_all_config():
        stack.remove_config(ADOPT_KEY)
