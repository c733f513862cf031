"""What every benchmark shares: the machine it ran on, medians, specs per cloud, subprocess runs.

Benchmarks are run by hand (never in the test suite) and print ratios, so that a result means the
same on a laptop and in CI: the ratio to a baseline measured in the same run, on the same machine.
"""
from __future__ import annotations

import copy
import gc
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from importlib import metadata
from pathlib import Path
from typing import Callable

import yaml

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
# components/ and policies/ import as trainstack_components / trainstack_policies: from this
# checkout's import root (tests/checkout.py), never from the tree the venv was installed from.
from tests.checkout import PYTHONPATH as CHECKOUT_PATH  # noqa: E402
from tests.checkout import activate  # noqa: E402

activate()

EXAMPLE = ROOT / "examples" / "cluster.yaml"
PACKAGES = ("pulumi", "pulumi-aws", "pulumi-gcp", "pulumi-azure-native", "pulumi-alicloud",
            "pulumi-policy", "pydantic", "typer", "rich")
# Environment that keeps child processes on this checkout, whatever is installed in the venv.
CHILD_ENV = {**os.environ, "PYTHONPATH": CHECKOUT_PATH}


def machine() -> dict[str, str]:
    """The facts a reader needs to compare two RESULTS.md files."""
    try:
        mem_kib = next(int(line.split()[1]) for line in Path("/proc/meminfo").read_text().splitlines()
                       if line.startswith("MemTotal:"))
        memory = f"{mem_kib / 1024 / 1024:.1f} GiB"
    except (OSError, StopIteration):
        memory = "unknown"
    versions = {}
    for name in PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return {"cpu cores": str(os.cpu_count()), "memory": memory,
            "python": platform.python_version(), "platform": platform.platform(),
            **versions}


def median_seconds(fn: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def median_cpu_seconds(fns: list[Callable[[], object]], repeats: int) -> list[float]:
    """Median CPU seconds (this process, all its threads: time.process_time) of each function,
    the functions alternated within every repeat: on a shared, loaded machine wall time measures
    the neighbours, and a slow minute would otherwise fall on one side of a ratio only.
    Everything alive before the first repeat (the imported SDKs: millions of objects) is frozen
    out of the garbage collector (gc.freeze): a full collection would otherwise rescan it at a
    random point of either side, adding ~0.2 s to that one call (seen on AWS). Collections of
    what the functions themselves allocate still happen and still count."""
    gc.collect()
    gc.freeze()
    times: list[list[float]] = [[] for _ in fns]
    try:
        for _ in range(repeats):
            for fn, fn_times in zip(fns, times):
                start = time.process_time()
                fn()
                fn_times.append(time.process_time() - start)
    finally:
        gc.unfreeze()
    return [statistics.median(t) for t in times]


def example() -> dict:
    return yaml.safe_load(EXAMPLE.read_text())


def spec_for(cloud: str, nodes: int | None = None, base: dict | None = None) -> dict:
    """The example spec narrowed to one cloud, with a budget that pays for `nodes` nodes."""
    spec = copy.deepcopy(base or example())
    spec["clouds"] = {cloud: spec["clouds"][cloud]}
    if nodes is not None:
        spec["nodes"] = nodes
        # 300 USD per node-hour for a month is more than any catalogued type costs.
        spec["budget"]["monthly_usd"] = 300 * nodes * 730
    return spec


def implemented_clouds() -> list[str]:
    from trainstack_components.base import implemented_clouds as registered
    return [c for c in registered() if c in (example().get("clouds") or {})]


def render_config(spec: dict, cloud: str) -> dict[str, str]:
    return {"trainstack:cloud": cloud, "trainstack:spec": json.dumps(spec)}


def run_cli(args: list[str], cwd: Path = ROOT) -> float:
    """Wall seconds of one `python -m trainstack ...` in a fresh process (exit code must be 0)."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "trainstack", *args], cwd=cwd, env=CHILD_ENV,
                          capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"trainstack {' '.join(args)} exited {done.returncode}:\n"
                           f"{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return seconds


def run_python(code: str) -> tuple[float, str]:
    """Wall seconds and stdout of `python -c code` in a fresh process."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=CHILD_ENV,
                          capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"python -c failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return seconds, done.stdout


def table(header: list[str], rows: list[list[object]]) -> str:
    """A GitHub markdown table (RESULTS.md and the terminal read the same text)."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def verdict(ok: bool) -> str:
    return "met" if ok else "MISSED"


def main(doc: str, run: Callable[..., tuple[str, bool]], **options: int) -> None:
    """A benchmark's command line: its integer options (e.g. repeats=5), the machine, the table
    run() returns, and whether every target was met."""
    import argparse
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    for name, default in options.items():
        parser.add_argument(f"--{name}", type=int, default=default)
    args = parser.parse_args()
    print(json.dumps(machine(), indent=1))
    text, ok = run(*(getattr(args, name) for name in options))
    print(text)
    print("all targets met" if ok else "some targets missed")
