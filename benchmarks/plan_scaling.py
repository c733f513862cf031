"""How offline planning scales with cluster size, per cloud. Run by hand:

    .venv/bin/python benchmarks/plan_scaling.py [--repeats 5] [--markdown]

Each (cloud, nodes) point runs in a fresh process: one warm-up render (provider SDK imports), then
the median of several renders, then one render under tracemalloc for the peak of Python memory.
Targets: the resource count does not depend on `nodes` where the cloud has a group resource
(Alibaba's per-node eRDMA instances are the documented exception), and the plan at the largest
size takes at most 1.2 x the plan at 1 node. A size a cloud refuses (Azure's single placement
group, Alibaba's LowLatency deployment set) is replaced by that cloud's largest valid size.
"""
from __future__ import annotations

import json
import subprocess
import sys
import tracemalloc

from common import (
    CHILD_ENV,
    ROOT,
    implemented_clouds,
    median_seconds,
    render_config,
    spec_for,
    table,
    verdict,
)
from common import main as bench_main

SIZES = (1, 8, 64, 512)
TIME_TARGET = 1.2
PER_NODE_CLOUDS = {"alicloud"}  # eRDMA cannot be set through a group resource (issue 12)


def probe(cloud: str, nodes: int, repeats: int) -> dict:
    """One point, measured in this process (called in a child by `measure`)."""
    from trainstack.plan.engine import render
    from trainstack_components.errors import SpecError
    config = render_config(spec_for(cloud, nodes), cloud)
    try:
        count = len(render(config).resources)
    except SpecError as err:
        return {"refused": str(err).splitlines()[0][:300]}
    seconds = median_seconds(lambda config=config: render(config), repeats)
    tracemalloc.start()
    render(config)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return {"seconds": seconds, "resources": count, "peak_mib": peak / 2**20}


def measure(cloud: str, nodes: int, repeats: int) -> dict:
    code = (f"import sys, json; sys.path.insert(0, {str(ROOT / 'benchmarks')!r}); "
            f"import plan_scaling; print(json.dumps(plan_scaling.probe({cloud!r}, {nodes}, "
            f"{repeats})))")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=CHILD_ENV,
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{cloud} at {nodes} nodes failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def largest_valid(cloud: str, upper: int, repeats: int) -> tuple[int, dict]:
    """The largest node count the cloud plans, by bisection below a refused size."""
    low, high, best = 1, upper, None
    while low <= high:
        mid = (low + high) // 2
        point = measure(cloud, mid, 1)
        if "refused" in point:
            high = mid - 1
        else:
            low, best = mid + 1, mid
    return best, measure(cloud, best, repeats)


def run(repeats: int) -> tuple[str, bool]:
    rows, all_ok = [], True
    for cloud in implemented_clouds():
        points, notes = [], []
        for nodes in SIZES:
            point = measure(cloud, nodes, repeats)
            if "refused" in point:
                nodes, point = largest_valid(cloud, nodes, repeats)
                notes.append(f"{cloud} refuses more than {nodes} nodes")
                points.append((nodes, point))
                break
            points.append((nodes, point))
        base_time, base_count = points[0][1]["seconds"], points[0][1]["resources"]
        for nodes, point in points:
            ratio = point["seconds"] / base_time
            flat = point["resources"] == base_count or cloud in PER_NODE_CLOUDS
            ok = flat and ratio <= TIME_TARGET
            all_ok &= ok
            rows.append([cloud, nodes, f"{point['seconds'] * 1000:.0f}", f"{ratio:.2f}",
                         point["resources"], f"{point['peak_mib']:.1f}",
                         verdict(ok) + (" (per-node by design)" if cloud in PER_NODE_CLOUDS
                                        and point["resources"] != base_count else "")])
        for note in notes:
            rows.append([cloud, "", "", "", "", "", note])
    text = table(["cloud", "nodes", "ms (median)", "time vs 1 node", "resources",
                  "peak MiB (tracemalloc)", f"target <= {TIME_TARGET}x, flat count"], rows)
    return text, all_ok


if __name__ == "__main__":
    bench_main(__doc__, run, repeats=5)
