"""Throughput of the offline policy checker on a large plan.

    .venv/bin/python benchmarks/policy_check.py [--resources 10000] [--repeats 3]

A 10,000-resource plan is built by repeating a real rendered cluster (each copy with its own
names and URNs, dependencies rewired within the copy), then every rule runs on it as `trainstack
check` runs them. Target: at least 20,000 resources per second. A rule that compares every
resource with every other shows up here as a falling rate when --resources grows.
"""
from __future__ import annotations

import dataclasses

from common import implemented_clouds, median_seconds, render_config, spec_for, table, verdict
from common import main as bench_main

TARGET = 20_000


def big_plan(cloud: str, size: int):
    from trainstack.plan.engine import Plan, render
    plan = render(render_config(spec_for(cloud), cloud))
    copies = -(-size // len(plan.resources))
    resources = []
    for i in range(copies):
        rename = {r.urn: f"{r.urn}-{i}" for r in plan.resources}
        for r in plan.resources:
            resources.append(dataclasses.replace(
                r, name=f"{r.name}-{i}", urn=rename[r.urn], parent=rename.get(r.parent, r.parent),
                dependencies=[rename.get(u, u) for u in r.dependencies],
                property_dependencies={k: [rename.get(u, u) for u in v]
                                       for k, v in r.property_dependencies.items()}))
    return Plan(plan.cloud, plan.stack, plan.inputs, resources[:size], plan.outputs)


def run(size: int, repeats: int) -> tuple[str, bool]:
    from trainstack_policies.model import from_plan
    from trainstack_policies.runner import evaluate
    rows, all_ok = [], True
    for cloud in implemented_clouds():
        plan = big_plan(cloud, size)
        seconds = median_seconds(lambda plan=plan: evaluate(from_plan(plan)), repeats)
        rate = len(plan.resources) / seconds
        all_ok &= rate >= TARGET
        rows.append([cloud, len(plan.resources), f"{seconds * 1000:.0f}", f"{rate:,.0f}",
                     f"{rate / TARGET:.2f}", verdict(rate >= TARGET)])
    return table(["cloud", "resources", "ms (median)", "resources/s", "vs target",
                  f"target >= {TARGET:,}/s"], rows), all_ok


if __name__ == "__main__":
    bench_main(__doc__, run, resources=10_000, repeats=3)
