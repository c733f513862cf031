"""The test suite's CPU time, whole and per test: what issue 36 asks to halve.

    .venv/bin/python benchmarks/suite_cpu.py [pytest args...]      # default: the README's line

Runs the README's test command (`pytest -q -n auto`) with this file as a pytest plugin. The whole
figure is the CPU time (user + system) of pytest and every process it waited for: the xdist
workers, and through them each subprocess a test ran and reaped. Per test, each worker records
its own CPU time plus its reaped children's around the test's setup, call and teardown; the
report sums those per folder and lists the costliest tests, so the next cut is visible.
Baseline: 29.5 CPU-minutes, issue 36's measurement of the suite (under load). Target: half.
CPU time is inflated less by load than wall time, but not immune to it: note `uptime` beside a
figure. Processes a test leaves to another parent (the node boxes' namespaced processes, the local
nodes' agents once re-parented) are not in the waited-for figure; the machine's own busy time
over the run (/proc/stat) counts them, and is the suite's cost when nothing else runs.
"""
from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import pytest

BASELINE_CPU_MINUTES = 29.5
TARGET_RATIO = 0.5
# Folders the suite gained after issue 36's 29.5 was measured that hold a whole new kind of test,
# named with where they came from; the like-for-like figure leaves them out and keeps everything
# else added since (more tests than were measured then: the comparison can only err against us).
LATER_FOLDERS = {"tests/box": "issue 31's node boxes, first committed in 75376c9 "
                              "(2026-12-01 23:02), after issue 36 was filed"}
OUT_ENV = "TRAINSTACK_SUITE_CPU_OUT"
# Where to keep the per-test rows (JSON lines) after the run, for a closer look than the report's.
KEEP_ENV = "TRAINSTACK_SUITE_CPU_KEEP"


def _cpu_seconds() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    reaped = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + reaped.ru_utime + reaped.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    """Around one test's setup, call and teardown (a module or session fixture's cost lands on
    the first test that needs it)."""
    del nextitem
    start = _cpu_seconds()
    yield
    out = os.environ.get(OUT_ENV)
    if out:
        with open(out, "a") as lines:
            lines.write(json.dumps({"test": item.nodeid,
                                    "cpu": round(_cpu_seconds() - start, 3)}) + "\n")


def machine_busy_seconds() -> float:
    """CPU seconds all processes on this machine have used since boot (/proc/stat: user, nice,
    system, irq, softirq, steal; idle and iowait left out); 0 where there is no /proc."""
    try:
        fields = Path("/proc/stat").read_text().splitlines()[0].split()[1:]
    except OSError:
        return 0.0
    user, nice, system, _idle, _iowait, irq, softirq, steal = (int(f) for f in fields[:8])
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


def like_for_like(by_folder: dict[str, float], whole_cpu: float, complete: bool) -> list[str]:
    """The suite as issue 36 measured it: the whole run less the per-test CPU of LATER_FOLDERS
    (collection and worker start-up stay in whole)."""
    later = {f: by_folder[f] for f in LATER_FOLDERS if f in by_folder}
    if not later:
        return []
    rest = whole_cpu - sum(later.values())
    return [f"like for like, without {', '.join(later)} ({'; '.join(LATER_FOLDERS[f] for f in later)}"
            f": {sum(later.values()):.0f} CPU s): {rest / 60:.1f} CPU-minutes, "
            f"{rest / 60 / BASELINE_CPU_MINUTES:.2f}x: "
            + ("no verdict" if not complete else
               "met" if rest / 60 <= BASELINE_CPU_MINUTES * TARGET_RATIO else "missed")]


def report(rows: list[dict], whole_cpu: float, wall: float, complete: bool,
           machine_cpu: float = 0.0) -> str:
    by_folder: dict[str, float] = defaultdict(float)
    for row in rows:
        parts = row["test"].split("/")
        by_folder["/".join(parts[:2]) if len(parts) > 2 else parts[0]] += row["cpu"]
    lines = [f"whole suite: {whole_cpu / 60:.1f} CPU-minutes ({whole_cpu:.0f} s) in {wall / 60:.1f} min wall "
             f"({len(rows)} tests); per-test sum {sum(r['cpu'] for r in rows) / 60:.1f} "
             f"CPU-minutes (the rest: collection, worker start-up)",
             f"against issue 36's {BASELINE_CPU_MINUTES} CPU-minutes: "
             f"{whole_cpu / 60 / BASELINE_CPU_MINUTES:.2f}x (target <= {TARGET_RATIO}x): "
             + ("no verdict: the run failed or ran a part of the suite" if not complete else
                "met" if whole_cpu / 60 <= BASELINE_CPU_MINUTES * TARGET_RATIO else "missed"),
             *like_for_like(by_folder, whole_cpu, complete),
             f"the machine's busy time over the run (every process, the suite's alone only on "
             f"an idle machine): {machine_cpu / 60:.1f} CPU-minutes",
             f"load average at the end: {os.getloadavg()[0]:.1f}", "", "per folder (CPU s):"]
    lines += [f"  {cpu:8.1f}  {folder}" for folder, cpu in
              sorted(by_folder.items(), key=lambda kv: -kv[1])]
    by_file: dict[str, float] = defaultdict(float)
    for row in rows:
        by_file[row["test"].split("::")[0]] += row["cpu"]
    lines += ["", "costliest 25 files (CPU s):"]
    lines += [f"  {cpu:8.1f}  {name}" for name, cpu in
              sorted(by_file.items(), key=lambda kv: -kv[1])[:25]]
    lines += ["", "costliest 30 tests (CPU s):"]
    lines += [f"  {r['cpu']:8.1f}  {r['test']}" for r in
              sorted(rows, key=lambda r: -r["cpu"])[:30]]
    return "\n".join(lines)


def main(args: list[str]) -> int:
    root = Path(__file__).resolve().parents[1]
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "cpu.jsonl"
        env = {**os.environ, OUT_ENV: str(out),
               "PYTHONPATH": os.pathsep.join(filter(None, [str(Path(__file__).parent),
                                                           os.environ.get("PYTHONPATH")]))}
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        busy_before = machine_busy_seconds()
        started = time.monotonic()
        done = subprocess.run([sys.executable, "-m", "pytest", "-p", "suite_cpu",
                               *(args or ["-q", "-n", "auto", "-rs"])], cwd=root, env=env)
        wall = time.monotonic() - started
        machine_cpu = machine_busy_seconds() - busy_before
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        whole = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        rows = [json.loads(line) for line in out.read_text().splitlines()] if out.exists() else []
        if os.environ.get(KEEP_ENV) and out.exists():
            Path(os.environ[KEEP_ENV]).write_text(out.read_text())
    print(report(rows, whole, wall, complete=done.returncode == 0 and not args and bool(rows),
                 machine_cpu=machine_cpu))
    return done.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
