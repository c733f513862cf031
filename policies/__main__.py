"""The CrossGuard entry point: `pulumi preview --policy-pack policies` runs this file.

It only constructs the pack. PolicyPack() serves gRPC forever and writes its port as the first
line of stdout, which the engine parses; nothing may print to stdout before it.

The pack is self-contained: `pulumi policy publish` uploads this directory alone, and Pulumi
Cloud unpacks it under a name of its own. So the modules' `policies.*` imports are bound to
this very directory, whatever it is called, and nothing outside it is imported (no trainstack,
no components; the catalog data is the copy in catalog_data/).
"""
import importlib.util
import sys
from pathlib import Path

_HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("trainstack_policies", _HERE / "__init__.py",
                                               submodule_search_locations=[str(_HERE)])
if _spec is None or _spec.loader is None:
    raise ImportError(f"{_HERE / '__init__.py'} is not a loadable package")
_package = importlib.util.module_from_spec(_spec)
sys.modules["trainstack_policies"] = _package
_spec.loader.exec_module(_package)

from pulumi_policy import PolicyPack  # noqa: E402

from trainstack_policies.pack import PACK_NAME, install_analyzer, policies  # noqa: E402

install_analyzer()
PolicyPack(
    PACK_NAME,
    policies(),
    description="trainstack guardrails: same-zone storage, spend limits, tags, RDMA, ingress, "
                "encryption and bucket retention for GPU training clusters on four clouds.",
)
