"""The planted mutations of issue 26: each one applied alone, its tests run, and it must be
killed (a test fails). Prints one line per mutation and exits 1 when any survives.

    python benchmarks/mutation_planted.py

Mutations are planted in a temporary copy of the repository, never in the checkout. Run with
the project's venv; it takes about a minute on two cores. The policy mutations belong
to the policy pack's own tests, the reaper ones to the reaper's.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Mutation:
    name: str
    path: str
    old: str
    new: str
    tests: tuple[str, ...]


MUTATIONS = (
    Mutation("fabric preference dropped (GCP H100 picks a3-highgpu over a3-megagpu)",
             "components/base.py",
             "key=lambda t: (-t.gpu_count, not t.rdma, -(t.fabric_gbps or 0), t.name)",
             "key=lambda t: (-t.gpu_count, not t.rdma, t.name)",
             ("tests/test_mutation_kills.py",)),
    Mutation("fits boundary <= -> <", "components/memory.py",
             "return memory.total <= usable_bytes(gpu_memory_bytes, headroom)",
             "return memory.total < usable_bytes(gpu_memory_bytes, headroom)",
             ("tests/test_mutation_kills.py",)),
    Mutation("filesystem tier floor max -> min", "components/catalog/filesystems.py",
             "return max(requested_gib, for_throughput)",
             "return min(requested_gib, for_throughput)",
             ("tests/test_mutation_kills.py",)),
    Mutation("lifetime >= -> >", "components/lifetime.py",
             "return now >= self.deadline", "return now > self.deadline",
             ("tests/test_mutation_kills.py",)),
    Mutation("GCP label byte limit +8", "components/gcp/planning.py",
             "LABEL_MAX_BYTES = 127", "LABEL_MAX_BYTES = 135",
             ("tests/test_mutation_kills.py",)),
    Mutation("AWS stockout marker dropped", "trainstack/capacity_guard.py",
             '"insufficientinstancecapacity", ', "",
             ("tests/test_mutation_kills.py",)),
    Mutation("ZeRO sharding over one node only", "components/base.py",
             "gpus = spec.nodes * itype.gpu_count", "gpus = itype.gpu_count",
             ("tests/test_mutation_kills.py",)),
    Mutation("spot preemption overhead on a price that is no discount", "trainstack/sizing_cost.py",
             "return spot and spot_usd_hr is not None and spot_usd_hr < ondemand_usd_hr",
             "return spot",
             ("tests/test_numbers_spec.py",)),
    Mutation("the lifetime does not cut the billed hours", "trainstack/sizing_cost.py",
             "billed = needed if max_hours is None else min(needed, max_hours)",
             "billed = needed", ("tests/test_numbers_spec.py",)),
    Mutation("unfused attention as the default", "components/memory.py",
             'DEFAULT_ATTENTION = "sdpa"', 'DEFAULT_ATTENTION = "eager"',
             ("tests/test_memory_advice.py",)),
)


def run(m: Mutation, tree: Path) -> tuple[bool, float]:
    """Plant `m` in the copy `tree` (never in the checkout: a commit made meanwhile must not
    pick up a planted bug), run its tests there, and undo it."""
    path = tree / m.path
    original = path.read_text()
    if original.count(m.old) != 1:
        raise SystemExit(f"{m.path}: the text to mutate for {m.name!r} is not there exactly once; "
                         "update benchmarks/mutation_planted.py")
    start = time.monotonic()
    try:
        path.write_text(original.replace(m.old, m.new))
        env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONDONTWRITEBYTECODE": "1"}
        result = subprocess.run([sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider",
                                 *m.tests], cwd=tree, env=env, capture_output=True, text=True)
    finally:
        path.write_text(original)
    return result.returncode != 0, time.monotonic() - start


def main() -> int:
    survived = 0
    scratch = Path(tempfile.mkdtemp(prefix="trainstack-planted-"))
    tree = scratch / "repo"
    shutil.copytree(ROOT, tree, ignore=shutil.ignore_patterns(
        ".git", ".venv", "mutants", "__pycache__", ".mypy_cache", ".pytest_cache", ".hypothesis"))
    try:
        results = [(m, *run(m, tree)) for m in MUTATIONS]
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    for m, killed, seconds in results:
        survived += not killed
        print(f"{'killed  ' if killed else 'SURVIVED'} {seconds:5.1f} s  {m.name}", flush=True)
    print(f"planted mutations killed: {len(MUTATIONS) - survived}/{len(MUTATIONS)}")
    return 1 if survived else 0


if __name__ == "__main__":
    raise SystemExit(main())
