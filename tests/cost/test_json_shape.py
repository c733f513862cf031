"""`compare --json` and `estimate --json` are a public interface: users script against their keys
and values. This pins both, key for key and value for value, against the output recorded from
the CLI before the compare rows became typed records (issue 26), so a refactor of the Python
side that changed a key, dropped one that is null, or changed a number fails here.

The recorded outputs are tests/data/json_shape/*.out.json, written by running a trainstack CLI
over CASES from the repository root:

    python tests/cost/test_json_shape.py --write /work/main/.venv/bin/trainstack

(they were recorded with main's CLI at b54a1d6). A deliberate change to the JSON regenerates them
with this tree's CLI, and the diff of the .out.json files is the change users will see.

Strings that quote the price catalog's citations (a price row's source and date, the exchange
rate's source) are checked for their type only, so a re-cited catalog row does not read as a
change of the interface; a timestamp the plan computes from the clock is masked; every other
value is compared exactly (floats to 1e-9 relative).
"""
import json
import math
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "json_shape"
SHAPE = "tests/data/json_shape"
CASES = {
    "compare_example": ["compare", "--spec", "examples/cluster.yaml", "--json"],
    "compare_example_cny_measured": [
        "compare", "--spec", "examples/cluster.yaml", "--json", "--currency", "CNY",
        "--cny-rate", "7.1", "--bucket-gb", "500", "--measured",
        "--bench", f"{SHAPE}/bench_aws.json", "--bench", f"{SHAPE}/bench_gcp.json",
        "--bench", f"{SHAPE}/bench_azure.json"],
    "compare_edges": ["compare", "--spec", f"{SHAPE}/edges.yaml", "--json"],
    "compare_no_workload": ["compare", "--spec", f"{SHAPE}/no_workload.yaml", "--json",
                            "--transfer-gb", "3"],
    "estimate_example": ["estimate", "--spec", "examples/cluster.yaml", "--json"],
    "estimate_example_gcp": ["estimate", "--spec", "examples/cluster.yaml", "--cloud", "gcp",
                             "--json"],
    "estimate_edges_priced": ["estimate", "--spec", f"{SHAPE}/edges.yaml", "--json",
                              "--price-per-gpu-hour", "2.5", "--currency", "CNY", "--spot"],
}
CITATION_KEYS = {"price_source", "price_as_of", "source", "as_of"}
# A release time the plan computes from the clock (Alibaba's autoReleaseTime = now + lifetime)
CLOCK = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")


def _same(got, want, where="$"):
    """Every difference between two JSON values, as 'path: what' lines."""
    if isinstance(want, dict):
        if not isinstance(got, dict):
            return [f"{where}: {type(got).__name__} instead of an object"]
        problems = [f"{where}: key {k!r} missing" for k in sorted(want.keys() - got.keys())]
        problems += [f"{where}: key {k!r} new" for k in sorted(got.keys() - want.keys())]
        for key in sorted(want.keys() & got.keys()):
            if key in CITATION_KEYS and isinstance(want[key], str):
                if not isinstance(got[key], str):
                    problems.append(f"{where}.{key}: {got[key]!r} is not a string")
                continue
            problems += _same(got[key], want[key], f"{where}.{key}")
        return problems
    if isinstance(want, list):
        if not isinstance(got, list) or len(got) != len(want):
            return [f"{where}: {got!r} != {want!r}"]
        return [p for i, (g, w) in enumerate(zip(got, want, strict=True))
                for p in _same(g, w, f"{where}[{i}]")]
    if isinstance(want, float) and isinstance(got, (int, float)) and not isinstance(got, bool):
        return [] if math.isclose(got, want, rel_tol=1e-9, abs_tol=1e-12) else [
            f"{where}: {got!r} != {want!r}"]
    if isinstance(want, str) and isinstance(got, str):
        got, want = CLOCK.sub("<now+>", got), CLOCK.sub("<now+>", want)
    if type(got) is not type(want) or got != want:
        return [f"{where}: {got!r} != {want!r}"]
    return []


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_json_output_is_the_recorded_one(case, monkeypatch):
    from typer.testing import CliRunner

    from trainstack.cli.app import app
    monkeypatch.chdir(ROOT)   # the specs are named by relative path, as "spec" echoes them
    result = CliRunner().invoke(app, CASES[case])
    want = json.loads((DATA / f"{case}.out.json").read_text())
    assert result.exit_code == want["exit_code"], result.output
    problems = _same(json.loads(result.stdout), want["json"])
    assert not problems, "\n".join(problems[:40])


def test_the_comparison_is_blind_to_nothing():
    """_same itself: a changed number, a new key, a missing null key and a changed citation's
    type are each found; a re-cited source is not a difference."""
    want = {"a": 1.0, "b": None, "price_source": "x", "c": [{"d": "e"}]}
    assert _same(dict(want), want) == []
    assert _same({**want, "a": 1.0001}, want)
    assert _same({**want, "z": 1}, want)
    assert _same({k: v for k, v in want.items() if k != "b"}, want)
    assert _same({**want, "c": [{"d": "f"}]}, want)
    assert _same({**want, "a": 1}, {**want, "a": True})
    assert _same({**want, "price_source": "y"}, want) == []
    assert _same({**want, "price_source": None}, want)
    assert _same({"t": "at 2026-12-10T01:49:13Z"}, {"t": "at 2026-12-10T01:48:33Z"}) == []


def _write(cli: str) -> None:
    for case, args in CASES.items():
        run = subprocess.run([cli, *args], cwd=ROOT, capture_output=True, text=True, timeout=600)
        doc = {"command": ["trainstack", *args], "exit_code": run.returncode,
               "json": json.loads(run.stdout)}
        (DATA / f"{case}.out.json").write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")
        print(case, run.returncode)


if __name__ == "__main__":
    if sys.argv[1:2] != ["--write"] or len(sys.argv) != 3:
        sys.exit("usage: python tests/cost/test_json_shape.py --write PATH/TO/trainstack")
    _write(sys.argv[2])
