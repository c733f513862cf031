"""How offline planning scales with cluster size. Run by hand: python benchmarks/plan_scaling.py

The node group keeps the resource count flat, so rendering 512 nodes should cost about what 2
nodes cost; the printed ratio is the check (target: under 1.5).
"""
from __future__ import annotations

import copy
import json
import statistics
import sys
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from trainstack.engine import render  # noqa: E402


def timed_render(spec: dict, cloud: str, repeats: int = 3) -> tuple[float, int]:
    config = {"trainstack:cloud": cloud, "trainstack:spec": json.dumps(spec)}
    times, count = [], 0
    for _ in range(repeats):
        start = time.perf_counter()
        count = len(render(config).resources)
        times.append(time.perf_counter() - start)
    return statistics.median(times), count


def main() -> None:
    base = yaml.safe_load((ROOT / "examples" / "cluster.yaml").read_text())
    timed_render(base, "aws", repeats=1)  # warm the provider SDK imports
    rows = []
    for nodes in (2, 64, 512):
        spec = copy.deepcopy(base)
        spec["nodes"] = nodes
        spec["budget"]["monthly_usd"] = 100 * nodes * 24 * 60
        seconds, count = timed_render(spec, "aws")
        rows.append((nodes, seconds, count))
    small = rows[0][1]
    print(f"{'nodes':>6} {'seconds':>8} {'resources':>9} {'time ratio vs 2 nodes':>22}")
    for nodes, seconds, count in rows:
        print(f"{nodes:>6} {seconds:>8.3f} {count:>9} {seconds / small:>22.2f}")


if __name__ == "__main__":
    main()
