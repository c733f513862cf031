"""The pack runs from its own directory with only its own requirements, as `pulumi policy publish`
and Pulumi Cloud policy groups run it: no trainstack, no components, no project virtualenv.

The fresh-venv test is slow (a venv and a pip install of pulumi-policy and jsonschema from the
package index, about half a minute) but stays in the suite: it is the only proof the published pack works.
"""
from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.policy_fixtures import aws_cluster, find, set_prop
from tests.policy_harness import PACK_DIR, PolicyPackProcess

ROOT = PACK_DIR.parent
sys.path.insert(0, str(ROOT / "tools"))
import copy_catalog_to_pack  # noqa: E402


def test_the_packs_catalog_copy_equals_the_catalog():
    assert copy_catalog_to_pack.stale() == [], "run python tools/copy_catalog_to_pack.py"


def test_the_copy_script_writes_and_detects_a_stale_copy(tmp_path):
    target = tmp_path / "catalog_data"
    assert set(copy_catalog_to_pack.stale(target=target)) == set(copy_catalog_to_pack.FILES)
    copy_catalog_to_pack.copy(target=target)
    assert copy_catalog_to_pack.stale(target=target) == []
    (target / "prices.csv").write_text("cloud,instance_type\n")
    assert copy_catalog_to_pack.stale(target=target) == ["prices.csv"]


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.split(".")[0])
    return names


def test_the_pack_imports_neither_the_cli_package_nor_the_components():
    for path in PACK_DIR.rglob("*.py"):
        if "venv" in path.parts:
            continue
        assert not _imports(path) & {"trainstack", "trainstack_components"}, path


def test_pulumi_policy_yaml_points_at_nothing_outside_the_pack():
    text = (PACK_DIR / "PulumiPolicy.yaml").read_text()
    config = yaml.safe_load(text)
    venv = config["runtime"]["options"]["virtualenv"]
    assert (PACK_DIR / venv).resolve().is_relative_to(PACK_DIR.resolve())
    assert ".." not in text.split("runtime:")[1]
    requirements = (PACK_DIR / "requirements.txt").read_text().split()
    assert any(r.startswith("pulumi-policy") for r in requirements)
    assert any(r.startswith("jsonschema") for r in requirements)   # Configure validates with it


@pytest.mark.parametrize("cloud", ["aws", "gcp", "azure", "alicloud"])
def test_the_packs_storage_prices_equal_trainstack_compares(cloud):
    """policies/catalog.py picks storage rows as components/catalog/run_prices.py does."""
    from trainstack_components.catalog import run_prices
    from trainstack_policies import catalog as pack_catalog
    regions = {s.region for s in pack_catalog.storage_prices()} | {"us-east-1", "nowhere-1"}
    cny = pack_catalog.cny_per_usd()
    for token, _, tiers in run_prices.FILESYSTEM_PRODUCTS:
        if not token.startswith(cloud.replace("azure", "azure-native")):
            continue
        for tier in [*tiers, 250, 1000]:
            for region in regions:
                _, theirs = run_prices.filesystem_price(cloud, [token + "X"], tier, region, cny)
                _, ours = pack_catalog.filesystem_price(cloud, token + "X", tier, region)
                assert (ours.value is None) == (theirs.value is None), (token, tier, region)
                if ours.value is not None:
                    assert ours.value == pytest.approx(theirs.value), (token, tier, region)
    for region in regions:
        theirs = run_prices.bucket_price(cloud, region, cny)
        ours = pack_catalog.bucket_price(cloud, region)
        assert ours.value == pytest.approx(theirs.value) if theirs.value else ours.value is None


@pytest.fixture(scope="module")
def fresh_pack(tmp_path_factory):
    """A fresh venv (no system site-packages) with only the pack's requirements from the
    package index, and a copy of the pack directory under another name, away from the repo."""
    import os
    where = tmp_path_factory.mktemp("published")
    clean = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    venv = where / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    python = venv / "bin" / "python"
    config = subprocess.run([str(python), "-c", "import sys; print(sys.prefix != sys.base_prefix,"
                             " any('site-packages' in p and p.startswith(sys.base_prefix) "
                             "for p in sys.path))"], capture_output=True, text=True, check=True)
    assert config.stdout.split() == ["True", "False"]     # isolated from the system packages
    done = subprocess.run([str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check",
                           "-r", str(PACK_DIR / "requirements.txt")],
                          capture_output=True, text=True, timeout=900, env=clean)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    pack_dir = where / "guardrails-pack"
    shutil.copytree(PACK_DIR, pack_dir, ignore=shutil.ignore_patterns("venv", "__pycache__"))
    for banned in ("trainstack", "trainstack_components"):
        found = subprocess.run([str(python), "-c", f"import {banned}"], cwd=where,
                               capture_output=True, text=True, env=clean)
        assert found.returncode != 0, f"{banned} is importable in the fresh venv"
    process = PolicyPackProcess(pack_dir=pack_dir, python=str(python), timeout=120, isolated=True)
    yield process
    process.close()


def test_the_pack_runs_in_a_fresh_venv_over_grpc(fresh_pack):
    assert fresh_pack.info.name == "trainstack-guardrails" and len(fresh_pack.info.policies) == 7
    fresh_pack.configure()
    assert fresh_pack.analyze_views(aws_cluster()) == []
    resources = aws_cluster()
    # listed by AWS with no on-demand price, so not in the catalog (sources/README.md)
    set_prop(find(resources, "LaunchTemplate"), "instanceType", "p5e.48xlarge")
    found = fresh_pack.analyze_views(resources)
    assert {(d.policy, d.level) for d in found} == {("spend-limit", "mandatory"),
                                                    ("rdma-for-multinode", "advisory")}
    [d] = [d for d in found if d.policy == "spend-limit"]
    assert "p5e.48xlarge in us-east-1" in d.message     # judged from the pack's catalog copy


def test_the_fresh_venv_pack_refuses_a_bad_setting_with_its_own_jsonschema(fresh_pack):
    # The schema check runs in the pack's process with the jsonschema its requirements bring:
    # maxMonthlyUsd 0 breaks exclusiveMinimum 0, refused as `trainstack check` refuses it.
    import grpc
    config = fresh_pack.cli_config()
    config["spend-limit"]["maxMonthlyUsd"] = 0
    with pytest.raises(grpc.RpcError) as err:
        fresh_pack.send_config(config)
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "spend-limit: maxMonthlyUsd: 0 is less than or equal to the minimum of 0" in \
        err.value.details()
    fresh_pack.configure()
