"""compare, estimate and report do not import each other (issue 26): what they share lives in
trainstack/cost/money.py, so none of them needs another to load."""
import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MODULES = ("compare", "estimate", "report")


def _imports(name: str) -> set[str]:
    tree = ast.parse((ROOT / "trainstack" / "cost" / f"{name}.py").read_text())
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
    return found


def test_no_circle_between_compare_estimate_and_report():
    for name in MODULES:
        others = {f"trainstack.cost.{o}" for o in MODULES if o != name}
        # compare may load report lazily to write --html; nothing else crosses
        allowed = {"trainstack.cost.report"} if name == "compare" else set()
        assert not (_imports(name) & (others - allowed)), name
    assert "trainstack.cost.compare" not in _imports("report")
    assert "trainstack.cost.compare" not in _imports("estimate")


def test_the_shared_terms_still_answer_under_their_old_names():
    from trainstack.cost import compare, estimate, money
    assert estimate.fx_rate is money.fx_rate and compare.priced_as is money.priced_as
    assert money.human_params(13e9) == "13B" and money.human_params(6.7e9) == "6.7B"
    assert money.conversion_factor("USD", "CNY", {"cny_per_usd": 7.0}) == 7.0
    assert money.conversion_factor("CNY", "USD", {"cny_per_usd": 8.0}) == 0.125


def test_the_compare_records_sit_below_their_readers():
    """report and measured read compare's rows from trainstack/cost/compare_records.py, which imports
    none of compare, estimate, report or measured; nor does estimate_records.py."""
    readers = {f"trainstack.cost.{m}" for m in ("compare", "estimate", "report", "measured")}
    assert not _imports("compare_records") & readers
    assert not _imports("estimate_records") & readers   # estimate's rows (sizing builds them)
    for name in ("report", "measured"):
        assert "trainstack.cost.compare_records" in _imports(name), name
        assert "trainstack.cost.compare" not in _imports(name), name
