"""The registry of implemented clouds: each name and the module whose import registers its planner.

Importing this module imports no cloud, so `trainstack --help` and `schema` stay light;
`trainstack_components.base.get_cloud(name)` loads the one cloud a command needs (and with it only that
cloud's planning code; its provider SDK loads later still, when its component is built).
A new cloud is one package under components/, its lines here (planning module, provider SDK) and
its pip extra in pyproject.toml.
"""
from __future__ import annotations

import importlib
import importlib.util

from trainstack_components.errors import SpecError

CLOUD_MODULES = {
    "alicloud": "trainstack_components.alicloud.cloud",
    "aws": "trainstack_components.aws.cloud",
    "azure": "trainstack_components.azure.cloud",
    "gcp": "trainstack_components.gcp.cloud",
}

# The provider SDK modules each cloud's components import, installed by the pip extra of the
# cloud's name (pyproject.toml: `trainstack[gcp]`). The base install has none of them, so that a
# team deploying to one cloud installs one SDK (each is 160-360 MB).
CLOUD_SDKS = {
    "alicloud": ("pulumi_alicloud",),
    "aws": ("pulumi_aws",),
    "azure": ("pulumi_azure_native",),
    "gcp": ("pulumi_gcp", "pulumi_command"),
}


class MissingCloudSdk(SpecError):
    """A cloud's provider SDK is not installed: the way out is that cloud's pip extra."""

    LEAD = "needs the Pulumi provider SDK"

    @classmethod
    def said(cls, cloud: str, message: str) -> bool:
        """Whether `message` (a compare row's) is this error's for `cloud`."""
        return message.startswith(f"cloud {cloud}: {cls.LEAD} ")

    def __init__(self, cloud: str, missing: list[str]):
        self.cloud, self.missing, self.extra = cloud, missing, f"trainstack[{cloud}]"
        super().__init__(
            f"cloud {cloud}",
            f"{self.LEAD} {' and '.join(missing)}, which "
            f"{'is' if len(missing) == 1 else 'are'} not installed in this Python environment.",
            f"Install it: pip install '{self.extra}' (from a checkout: pip install -e '.[{cloud}]'); "
            "'trainstack[all]' installs every cloud.")


def missing_sdk(name: str) -> list[str]:
    """The cloud's provider SDK modules that cannot be imported here (found, not imported)."""
    return [module for module in CLOUD_SDKS.get(name, ()) if importlib.util.find_spec(module) is None]


def require_sdk(name: str) -> None:
    """Raise MissingCloudSdk (a SpecError: one line, exit 2) before anything imports the SDK."""
    missing = missing_sdk(name)
    if missing:
        raise MissingCloudSdk(name, missing)


def names() -> list[str]:
    return sorted(CLOUD_MODULES)


def load(name: str) -> None:
    """Import the cloud's planning module, which registers its `Cloud` (trainstack_components.base)."""
    importlib.import_module(CLOUD_MODULES[name])
