"""Stack config a cloud cannot deploy without (Azure: the admin SSH key and Managed Lustre's
service principal, components/azure/cloud.py REQUIRED_CONFIG).

`trainstack up` and `preview` refuse before anything runs, naming the `pulumi config set`
commands; the offline commands (plan, check, compare) still render and print one warning line.
A cloud declares its keys as `required_config` ({key: value to set}); none: nothing is required.
"""
from __future__ import annotations

from typing import Mapping, Optional

from trainstack_components.errors import SpecError


def required(cloud: str) -> dict[str, str]:
    from trainstack_components.base import get_cloud
    return dict(getattr(get_cloud(cloud), "required_config", None) or {})


def missing(cloud: str, config: Mapping[str, object]) -> list[str]:
    """The required keys `config` (a stack's flat config) lacks or has empty."""
    return [key for key in required(cloud) if not config.get(key)]


def set_commands(cloud: str, keys: list[str], stack: Optional[str]) -> str:
    where = f" --stack {stack}" if stack else ""
    values = required(cloud)
    return "; ".join(f"pulumi config set{where} {key} {values[key]}" for key in keys)


def refuse_missing(cloud: str, config: Mapping[str, object], stack: str) -> None:
    """SpecError (exit 2) naming each missing key and the command that sets it."""
    keys = missing(cloud, config)
    if keys:
        raise SpecError(", ".join(keys), f"{'is' if len(keys) == 1 else 'are'} not set in stack "
                        f"{stack}, and a {cloud} deploy fails without "
                        f"{'it' if len(keys) == 1 else 'them'} (docs/{cloud}.md).",
                        f"Run: {set_commands(cloud, keys, stack)}")


def warning_line(cloud: str, config: Mapping[str, object]) -> Optional[str]:
    """The one warning line the offline commands print (None when nothing is missing); the
    engine keeps it on the plan (Plan.warnings) and each command prints it where its output
    goes (plan: after the table or in the JSON; check: stderr; compare: the cloud's notes)."""
    keys = missing(cloud, config)
    if not keys:
        return None
    return (f"warning: stack config lacks {', '.join(keys)}: this plan renders, but `trainstack "
            f"up` will refuse until it is set ({set_commands(cloud, keys, None)})")


def blockers(inputs) -> list[SpecError]:
    """What the cloud says renders offline but cannot deploy (components/base.py
    Cloud.deploy_blockers): placeholder values, a region without the file system."""
    from trainstack_components.base import get_cloud
    return list(get_cloud(inputs.cloud).deploy_blockers(inputs.spec, inputs.selection))


def blocker_warnings(inputs) -> list[str]:
    """One warning line per blocker, for the offline commands (plan, check, compare)."""
    return [f"warning: {b.field}: {b.problem} `trainstack up` will refuse this. {b.fix}"
            for b in blockers(inputs)]


def refuse_blockers(inputs, stack: str) -> None:
    """`up` and `preview` stop (exit 2) at the first blocker, before the CLI runs."""
    found = blockers(inputs)
    if found:
        first = found[0]
        more = f" ({len(found) - 1} more after this one.)" if len(found) > 1 else ""
        raise SpecError(first.field, f"{first.problem} Stack {stack} cannot deploy it.",
                        first.fix + more)
