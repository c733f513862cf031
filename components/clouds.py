"""The registry of implemented clouds: each name and the module whose import registers its planner.

Importing this module imports no cloud, so `trainstack --help` and `schema` stay light;
`trainstack_components.base.get_cloud(name)` loads the one cloud a command needs (and with it only that
cloud's planning code; its provider SDK loads later still, when its component is built).
A new cloud is one package under components/ plus one line here.
"""
from __future__ import annotations

import importlib

CLOUD_MODULES = {
    "alicloud": "trainstack_components.alicloud.cloud",
    "aws": "trainstack_components.aws.cloud",
    "azure": "trainstack_components.azure.cloud",
    "gcp": "trainstack_components.gcp.cloud",
}


def names() -> list[str]:
    return sorted(CLOUD_MODULES)


def load(name: str) -> None:
    """Import the cloud's planning module, which registers its `Cloud` (trainstack_components.base)."""
    importlib.import_module(CLOUD_MODULES[name])
