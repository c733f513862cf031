"""Taking back what a destroy left behind on purpose.

`bucket.retain_on_destroy` keeps the bucket (and, on Azure, its storage account and group) when
the cluster is destroyed. The next `up` of the same stack declares them again and would try to
create them anew: S3 answers BucketAlreadyOwnedByYou outside us-east-1, GCS and OSS names are
global, Azure's data group already exists. So after a destroy, trainstack writes the physical
ids of the retained resources into the stack config key `trainstack:adopt` ({resource name:
id}); the program declares each of those resources with Pulumi's `import` option, and `up`
removes the key once the import succeeded.
"""
from __future__ import annotations

import json
from typing import Any, Mapping, Optional

from trainstack_components.errors import SpecError
from trainstack_components.project import PROJECT

ADOPT_KEY = f"{PROJECT}:adopt"

_FIX = (f"trainstack writes this key after a destroy that keeps the bucket. If the kept "
        f"resources were deleted by hand since, remove it: `pulumi config rm {ADOPT_KEY}`.")


def parse_adopt(raw: Any) -> dict[str, str]:
    """The adoption map from its stack config value (a JSON object of non-empty strings)."""
    if raw in (None, ""):
        return {}
    try:
        value = json.loads(raw) if isinstance(raw, str) else raw
    except (ValueError, RecursionError):
        raise SpecError(ADOPT_KEY, "is not a JSON object of resource names and ids.",
                        _FIX) from None
    if not isinstance(value, dict) or not all(
            isinstance(k, str) and k and isinstance(v, str) and v.strip()
            for k, v in value.items()):
        raise SpecError(ADOPT_KEY, "must map resource names to the ids of existing resources "
                        "(non-empty strings).", _FIX)
    return dict(value)


def import_id(adopt: Mapping[str, str], resource_name: str, retained: bool) -> Optional[str]:
    """The id to import `resource_name` from, when a destroy kept it; only retained resources
    are ever adopted (anything else was deleted with the cluster)."""
    return adopt.get(resource_name) if retained else None
