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
