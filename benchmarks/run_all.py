"""Run every benchmark and write benchmarks/RESULTS.md. Run by hand after the README's set-up:

    .venv/bin/python benchmarks/run_all.py [--quick]

--quick uses fewer repeats (for a smoke run); RESULTS.md should hold a full run.
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import subprocess
import sys
from pathlib import Path

import compare_cost
import plan_scaling
import policy_check
import sdk_floor
import startup
from common import machine, table

RESULTS = Path(__file__).with_name("RESULTS.md")
NOTES = Path(__file__).with_name("NOTES.md")  # hand-written analysis of misses, kept across runs


def fresh(module: str, *args) -> tuple[str, bool]:
    """One benchmark's run() in a fresh interpreter, so that no benchmark measures the heap (and
    the garbage collector's work) another one left behind."""
    code = (f"import json, sys; sys.path.insert(0, {str(Path(__file__).parent)!r}); "
            f"import {module}; print(json.dumps({module}.run(*{list(args)!r})))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{module} failed:\n{done.stderr[-3000:]}")
    text, ok = json.loads(done.stdout.strip().splitlines()[-1])
    return text, ok


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    r = 1 if args.quick else None
    sections = [
        ("Plan scaling", plan_scaling.__doc__, fresh("plan_scaling", r or 5)),
        ("Overhead against the SDK floor", sdk_floor.__doc__, fresh("sdk_floor", r or 7)),
        ("Start-up", startup.__doc__, fresh("startup", r or 7)),
        ("Compare", compare_cost.__doc__, fresh("compare_cost", r or 5)),
        ("Policy check", policy_check.__doc__, fresh("policy_check", 10_000, r or 5)),
    ]
    out = [f"# Benchmark results\n\nRun {dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M} UTC by "
           f"`benchmarks/run_all.py{' --quick' if args.quick else ''}`. Medians of several runs; "
           "every figure is a ratio to a baseline measured in the same run.\n",
           "## Machine\n", table(["", ""], [[k, v] for k, v in machine().items()]), ""]
    for title, doc, (text, ok) in sections:
        summary = doc.strip().split("\n\n")[-1] if doc else ""
        out += [f"## {title}: {'all targets met' if ok else 'target missed (see notes)'}\n",
                summary, "", text, ""]
        print(f"{title}: {'met' if ok else 'MISSED'}")
    if NOTES.exists():
        out += [NOTES.read_text()]
    RESULTS.write_text("\n".join(out))
    print(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()
