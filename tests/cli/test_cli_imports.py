"""What the CLI loads before it does anything: `--help` and `schema` answer without Pulumi or a
provider SDK, and `plan --cloud X` loads X's SDK only (benchmarks/startup.py times them)."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.conftest import ROOT

SDKS = {"aws": "pulumi_aws", "gcp": "pulumi_gcp", "azure": "pulumi_azure_native",
        "alicloud": "pulumi_alicloud"}

_PROBE = """
import json, sys
sys.argv = ["trainstack", *{args!r}]
from trainstack.cli.app import main
try:
    main()
except SystemExit:
    pass
loaded = sorted({{m.split(".")[0] for m in sys.modules}})
sys.__stdout__.write("\\nLOADED=" + json.dumps(loaded) + "\\n")
"""


def loaded_packages(*args: str) -> set[str]:
    done = subprocess.run([sys.executable, "-c", _PROBE.format(args=list(args))], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    line = next(ln for ln in reversed(done.stdout.splitlines()) if ln.startswith("LOADED="))
    return set(json.loads(line[len("LOADED="):]))


@pytest.mark.parametrize("args", [["--help"], ["schema"], ["plan", "--help"]])
def test_help_and_schema_load_no_pulumi(args):
    loaded = loaded_packages(*args)
    assert not loaded & ({"pulumi", "grpc"} | set(SDKS.values())), sorted(loaded)


def test_help_lists_every_registered_cloud_without_loading_them():
    from trainstack_components import clouds
    done = subprocess.run([sys.executable, "-m", "trainstack", "plan", "--help"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120, env={
                              **__import__("os").environ, "COLUMNS": "200"})
    assert all(name in done.stdout for name in clouds.names()), done.stdout


@pytest.mark.parametrize("cloud", sorted(SDKS))
def test_plan_loads_only_its_own_cloud_sdk(cloud):
    loaded = loaded_packages("plan", "--spec", "examples/cluster.yaml", "--cloud", cloud, "--json")
    assert loaded & set(SDKS.values()) == {SDKS[cloud]}
