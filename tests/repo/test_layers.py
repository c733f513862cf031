"""The layers and rules of ARCHITECTURE.md hold (issue 30): import-linter's contracts in pyproject's
[tool.importlinter], run by tools/layers.py as .ci/run runs them, are kept by this tree, and each
one is broken, by name, when a copy of the tree gets the import it forbids."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytest.importorskip("importlinter", reason="import-linter is in the test extra: pip install -e '.[test]'")

CONTRACTS = {   # id -> name, as pyproject.toml spells them (the output names a contract by name)
    "layers": "trainstack layers: an upper layer may import a lower one, never the reverse",
    "cli-imported-by-nothing": "nothing imports trainstack.cli (but python -m trainstack)",
    "clouds-independent": "clouds never import each other",
    "pack-stands-alone": "the policy pack imports nothing of trainstack or trainstack_components",
    "components-below-trainstack": "components never import trainstack",
    "boot-cloud-neutral": "boot steps import no cloud folder",
    "cost-maths-pure": "the cost maths imports neither Pulumi nor trainstack.plan / trainstack.deploy",
    "plan-below-deploy": "plan never imports deploy",
    "no-circles": "no import circle between the modules of any package",
}


def lint(root: Path) -> subprocess.CompletedProcess:
    """tools/layers.py of the tree at `root`, in a fresh process (its import root, its contracts)."""
    return subprocess.run([sys.executable, str(root / "tools" / "layers.py")], cwd=root,
                          capture_output=True, text=True, timeout=300)


def verdicts(output: str) -> dict[str, str]:
    """contract name -> KEPT / BROKEN, from the output's Contracts section."""
    found = {}
    for line in output.splitlines():
        for word in ("KEPT", "BROKEN"):
            if line.endswith(" " + word):
                found[line[:-len(word) - 1]] = word
    return found


def test_this_tree_keeps_every_contract():
    run = lint(ROOT)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert verdicts(run.stdout) == {name: "KEPT" for name in CONTRACTS.values()}, run.stdout


def test_pyproject_states_the_contracts_this_test_names():
    import tomllib
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    assert {c["id"]: c["name"] for c in config["contracts"]} == CONTRACTS


def test_ci_runs_the_layering_check():
    assert "\n.venv/bin/python tools/layers.py\n" in (ROOT / ".ci" / "run").read_text()


@pytest.fixture(scope="module")
def tree_copy(tmp_path_factory) -> Path:
    """The packages, the contracts and the runner, copied (import root built on first run)."""
    copy = tmp_path_factory.mktemp("tree")
    skip = shutil.ignore_patterns("__pycache__", "*.pyc")
    for folder in ("trainstack", "components", "policies"):
        shutil.copytree(ROOT / folder, copy / folder, ignore=skip)
    for file in ("pyproject.toml", "tools/layers.py", "tests/__init__.py", "tests/checkout.py"):
        (copy / file).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / file, copy / file)
    return copy


# (file to plant in, the import planted, the contracts it breaks): one per rule, each an import a
# newcomer could plausibly write. Function-level imports count (the hidden circles were such).
PLANTED = [
    ("trainstack/plan/stacks.py", "def _planted():\n    from trainstack.deploy import lifecycle\n",
     {"layers", "plan-below-deploy", "no-circles"}),   # deploy imports plan: a circle too
    ("trainstack/console.py", "import trainstack.cost.money\n", {"layers", "no-circles"}),
    ("trainstack/reap/store.py", "import trainstack.measure.billing\n", {"layers"}),
    ("trainstack/measure/status.py", "def _planted():\n    import trainstack.cli.app\n",
     {"layers", "cli-imported-by-nothing"}),   # cli imports commands by name, when run
    ("components/aws/cloud.py", "from trainstack_components.gcp import planning as _gcp\n",
     {"clouds-independent"}),
    ("policies/model.py", "import trainstack_components.spec\n", {"pack-stands-alone"}),
    ("components/spec.py", "def _planted():\n    import trainstack.console\n",
     {"components-below-trainstack"}),
    ("components/boot/__init__.py", "def _planted():\n    import trainstack_components.azure.boot\n",
     # every cloud imports boot/, so through it aws would import azure
     {"boot-cloud-neutral", "clouds-independent", "no-circles"}),
    ("trainstack/cost/sizing_time.py", "def _planted():\n    import pulumi\n", {"cost-maths-pure"}),
    # compare renders plans: the records would reach trainstack.plan and Pulumi through it
    ("trainstack/cost/compare_records.py", "def _planted():\n    import trainstack.cost.compare\n",
     {"no-circles", "cost-maths-pure"}),
    ("components/gcp/cluster.py", "def _planted():\n    from trainstack_components.gcp.cloud import GcpCloud\n",
     {"no-circles"}),
]


@pytest.mark.parametrize("path, planted, broken", PLANTED, ids=[p[0] for p in PLANTED])
def test_a_planted_import_breaks_the_rule_it_breaks(tree_copy, path, planted, broken):
    target = tree_copy / path
    original = target.read_text()
    target.write_text(original + "\n\n" + planted)
    try:
        run = lint(tree_copy)
    finally:
        target.write_text(original)
    assert run.returncode == 1, run.stdout[-4000:] + run.stderr[-2000:]
    expected = {CONTRACTS[c]: ("BROKEN" if c in broken else "KEPT") for c in CONTRACTS}
    assert verdicts(run.stdout) == expected, run.stdout
    # The report under "Broken contracts" names the contract and the planted module.
    report = run.stdout.split("Broken contracts", 1)[1]
    for c in broken:
        assert CONTRACTS[c] in report
    leaf = Path(path).stem if Path(path).stem != "__init__" else Path(path).parent.name
    assert leaf in report, report
