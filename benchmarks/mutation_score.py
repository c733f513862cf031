"""Mutation score of the modules that decide money, capacity, placement and lifetime (issue 26).

    python benchmarks/mutation_score.py                 # every module in [tool.mutmut]
    python benchmarks/mutation_score.py sizing_cost     # only mutants whose name matches
    python benchmarks/mutation_score.py --planted-only  # only the planted mutations

Two parts. 1. mutmut (PyPI, the `dev` extra) mutates the modules listed in pyproject.toml's
[tool.mutmut] `only_mutate` and runs, for each mutant, the hand-computed tests listed there
(a subset of the suite, so a run stays bounded: about 10-15 minutes for all five modules on two
shared cores; pass a module name to run one). It prints killed / survived per module and the
score = killed / (killed + survived); mutants mutmut could not run (timeouts, no tests) are
counted as survived. 2. benchmarks/mutation_planted.py plants the specific bugs issue 26 lists
and checks each one is killed. Exit status 1 when a planted mutation survives.
"""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def mutmut(*args: str, timeout: int) -> subprocess.CompletedProcess:
    exe = shutil.which("mutmut", path=str(BIN)) or shutil.which("mutmut")
    if exe is None:
        raise SystemExit("mutmut is not installed: pip install -e '.[dev]'")
    return subprocess.run([exe, *args], cwd=ROOT, capture_output=True, text=True, timeout=timeout)


def scores(pattern: str | None) -> dict[str, Counter]:
    # A fresh run every time: mutmut keeps results in mutants/, which would mix in old code.
    shutil.rmtree(ROOT / "mutants", ignore_errors=True)
    names = [f"*{pattern}*"] if pattern else []
    mutmut("run", "--max-children", "2", *names, timeout=3600)
    listing = mutmut("results", "--all", "true", timeout=600).stdout
    per_module: dict[str, Counter] = defaultdict(Counter)
    for line in listing.splitlines():
        m = re.match(r"\s*([\w.]+?)\.x.*__mutmut_\d+: (.+)$", line.strip())
        if m and (pattern is None or pattern in m.group(1)):
            per_module[m.group(1)][m.group(2).strip()] += 1
    return per_module


def main(argv: list[str]) -> int:
    planted_only = "--planted-only" in argv
    pattern = next((a for a in argv if not a.startswith("--")), None)
    if not planted_only:
        total = Counter()
        print("module                                   killed  survived  score")
        for module, counts in sorted(scores(pattern).items()):
            killed = counts["killed"]
            other = sum(v for k, v in counts.items() if k not in ("killed", "skipped"))
            total["killed"] += killed
            total["other"] += other
            print(f"{module:40} {killed:6} {other:9}  {killed / max(1, killed + other):6.1%}")
        print(f"{'all':40} {total['killed']:6} {total['other']:9}  "
              f"{total['killed'] / max(1, total['killed'] + total['other']):6.1%}")
    planted = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "mutation_planted.py")],
                             cwd=ROOT)
    return planted.returncode


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
