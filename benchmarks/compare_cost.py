"""`compare` on every cloud against the sum of the single-cloud plans it stands for.

    .venv/bin/python benchmarks/compare_cost.py [--repeats 3]

`compare` renders each cloud's real offline plan, runs the policy verdict on it and prices it.
Measured as a user runs them, each a fresh process: `trainstack compare --spec S --json` against
`trainstack plan --spec S --cloud X --json` for every cloud X of S, summed. Target: compare <= 1.0
x the sum (no plan rendered twice, shared start-up paid once).
"""
from __future__ import annotations

import statistics
import tempfile
from pathlib import Path

import yaml
from common import example, implemented_clouds, run_cli, table, verdict
from common import main as bench_main

TARGET = 1.0


def run(repeats: int) -> tuple[str, bool]:
    clouds = implemented_clouds()
    spec = example()
    spec["clouds"] = {c: spec["clouds"][c] for c in clouds}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "cluster.yaml"
        path.write_text(yaml.safe_dump(spec, sort_keys=False))
        per_cloud = {c: statistics.median(
            run_cli(["plan", "--spec", str(path), "--cloud", c, "--json"]) for _ in range(repeats))
            for c in clouds}
        compare_s = statistics.median(run_cli(["compare", "--spec", str(path), "--json"])
                                      for _ in range(repeats))
    total = sum(per_cloud.values())
    ratio = compare_s / total
    rows = [[f"plan --cloud {c}", f"{s * 1000:.0f}", ""] for c, s in per_cloud.items()]
    rows.append(["sum of the plans", f"{total * 1000:.0f}", "1.00"])
    rows.append([f"compare ({len(clouds)} clouds)", f"{compare_s * 1000:.0f}",
                 f"{ratio:.2f} ({verdict(ratio <= TARGET)}, target <= {TARGET}x)"])
    return table(["command (fresh process)", "ms (median)", "vs sum of plans"], rows), \
        ratio <= TARGET


if __name__ == "__main__":
    bench_main(__doc__, run, repeats=3)
