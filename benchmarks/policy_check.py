"""Throughput of the offline policy checker on a large plan.

    .venv/bin/python benchmarks/policy_check.py [--resources 10000] [--repeats 3]

A 10,000-resource plan is built by repeating a real rendered cluster (each copy with its own
names and URNs, dependencies rewired within the copy), then every rule runs on it as `trainstack
check` runs them. Target: at least 20,000 resources per second. A rule that compares every
resource with every other shows up here as a falling rate when --resources grows.
"""
from __future__ import annotations

import argparse
import dataclasses
import json

from common import implemented_clouds, machine, median_seconds, render_config, spec_for, table, verdict

TARGET = 20_000


def big_plan(cloud: str, size: int):
    from trainstack.engine import Plan, render
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
    from policies.model import from_plan
    from policies.runner import evaluate
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--resources", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print(json.dumps(machine(), indent=1))
    text, ok = run(args.resources, args.repeats)
    print(text)
    print("all targets met" if ok else "some targets missed")


if __name__ == "__main__":
    main()
