"""The planted mutations of issue 26: each one applied alone, its tests run, and it must be
killed (a test fails). Prints one line per mutation and exits 1 when any survives.

    python benchmarks/mutation_planted.py

Mutations are planted in a temporary copy of the repository, never in the checkout. Run with
the project's venv; it takes about three minutes on two cores. Each test file listed for a
mutation is run alone and must kill it by a failing test (pytest's exit status 1; an error in
collection or set-up kills nothing): the policy mutations are listed with an in-process test
file (the one the mutmut run uses) and with the pack's gRPC tests (tests/policy_harness.py
starts the pack from the copy's policies/ folder), so both paths are shown to see the bug.
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
             ("tests/repo/test_mutation_kills.py",)),
    Mutation("fits boundary <= -> <", "components/memory.py",
             "return memory.total <= usable_bytes(gpu_memory_bytes, headroom)",
             "return memory.total < usable_bytes(gpu_memory_bytes, headroom)",
             ("tests/repo/test_mutation_kills.py",)),
    Mutation("filesystem tier floor max -> min", "components/catalog/filesystems.py",
             "return max(requested_gib, for_throughput)",
             "return min(requested_gib, for_throughput)",
             ("tests/repo/test_mutation_kills.py",)),
    Mutation("lifetime >= -> >", "components/lifetime.py",
             "return now >= self.deadline", "return now > self.deadline",
             ("tests/repo/test_mutation_kills.py",)),
    Mutation("GCP label byte limit +8", "components/gcp/planning.py",
             "LABEL_MAX_BYTES = 127", "LABEL_MAX_BYTES = 135",
             ("tests/repo/test_mutation_kills.py",)),
    Mutation("AWS stockout marker dropped", "trainstack/deploy/capacity_guard.py",
             '"insufficientinstancecapacity", ', "",
             ("tests/repo/test_mutation_kills.py",)),
    Mutation("ZeRO sharding over one node only", "components/base.py",
             "gpus = spec.nodes * itype.gpu_count", "gpus = itype.gpu_count",
             ("tests/repo/test_mutation_kills.py",)),
    Mutation("spot preemption overhead on a price that is no discount", "trainstack/cost/sizing_cost.py",
             "return spot and spot_usd_hr is not None and spot_usd_hr < ondemand_usd_hr",
             "return spot",
             ("tests/cost/test_numbers_spec.py",)),
    Mutation("the lifetime does not cut the billed hours", "trainstack/cost/sizing_cost.py",
             "billed = needed if max_hours is None else min(needed, max_hours)",
             "billed = needed", ("tests/cost/test_numbers_spec.py",)),
    Mutation("unfused attention as the default", "components/memory.py",
             'DEFAULT_ATTENTION = "sdpa"', 'DEFAULT_ATTENTION = "eager"',
             ("tests/cost/test_memory_advice.py",)),
    Mutation("spend-limit takes the largest budget as the cap", "policies/rules/spend_limit.py",
             "(min(amounts) if amounts else None)", "(max(amounts) if amounts else None)",
             ("tests/policies/test_policy_decisions.py", "tests/policies/test_policy_coverage_cases.py")),
    Mutation("spend-limit allows 10 % slack over the cap", "policies/rules/spend_limit.py",
             "elif cap is not None and est.total > cap:",
             "elif cap is not None and est.total > cap * 1.1:",
             ("tests/policies/test_policy_decisions.py", "tests/policies/test_policy_coverage_cases.py")),
    Mutation("same-zone accepts a filesystem in another Azure region",
             "policies/rules/storage_same_zone.py",
             "ok = fs.zone == zone and (not region or fs.region == region)",
             "ok = fs.zone == zone",
             ("tests/policies/test_policy_decisions.py", "tests/policies/test_policy_coverage_cases.py")),
    Mutation("same-zone skips regional filesystems", "policies/rules/storage_same_zone.py",
             "    if fs.regional:\n        # Reachable from every zone",
             "    if fs.regional:\n        return []\n        # Reachable from every zone",
             ("tests/policies/test_policy_decisions.py", "tests/policies/test_policy_coverage_cases.py")),
    Mutation("the reaper reads a missing bucket_retained as retained", "trainstack/reap/reaper.py",
             'if marker.get("bucket_retained") is not True:',
             'if marker.get("bucket_retained", True) is not True:',
             ("tests/reap/test_reap_decide.py", "tests/reap/test_reap.py")),
    Mutation("the reaper does not act on its re-check after taking the lock", "trainstack/reap/reaper.py",
             '"after taking the lock")\n        if stop:\n            return stop\n',
             '"after taking the lock")\n',
             ("tests/reap/test_reap_decide.py", "tests/reap/test_reap.py")),
    Mutation("the policy's GCP label-key normalisation dropped", "policies/exemptions.py",
             'return _LABEL_CHARS.sub("_", key.lower()).strip("_")', "return key.lower()",
             ("tests/policies/test_policy_decisions.py", "tests/policies/test_policy_coverage_cases.py")),
    Mutation("any AWS schedule counted as a scale to 0", "policies/inventory/lifetimes.py",
             "return high in (None, 0) or (desired in (None, 0) and low in (None, 0))",
             "return True",
             ("tests/policies/test_policy_decisions.py", "tests/policies/test_policy_coverage_cases.py")),
)


def run(m: Mutation, tree: Path) -> tuple[bool, float, str]:
    """Plant `m` in the copy `tree` (never in the checkout: a commit made meanwhile must not
    pick up a planted bug), run each of its test files there alone, and undo it. Killed when
    every file has a failing test; the second value is the time, the third what went wrong."""
    path = tree / m.path
    original = path.read_text()
    if original.count(m.old) != 1:
        raise SystemExit(f"{m.path}: the text to mutate for {m.name!r} is not there exactly once; "
                         "update benchmarks/mutation_planted.py")
    start = time.monotonic()
    missed = []
    try:
        path.write_text(original.replace(m.old, m.new))
        env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONDONTWRITEBYTECODE": "1"}
        for test in m.tests:
            result = subprocess.run([sys.executable, "-m", "pytest", "-x", "-q", "-p",
                                     "no:cacheprovider", test], cwd=tree, env=env,
                                    capture_output=True, text=True)
            # 1: a test failed. 0 survived; anything else (collection error, no tests, an
            # interrupted run) shows nothing about the mutation and must not pass as a kill.
            if result.returncode != 1:
                missed.append(f"{test}: pytest exit {result.returncode}"
                              + ("" if result.returncode == 0 else
                                 " (not a test failure)\n" + result.stdout[-2000:]))
    finally:
        path.write_text(original)
    return not missed, time.monotonic() - start, "; ".join(missed)


def main() -> int:
    survived = 0
    scratch = Path(tempfile.mkdtemp(prefix="trainstack-planted-"))
    tree = scratch / "repo"
    # build/ holds links to this checkout (tests/checkout.py's import root, the mutation
    # stage): copied, they would point the copy's tests back at the unplanted code.
    shutil.copytree(ROOT, tree, symlinks=True, ignore=shutil.ignore_patterns(
        ".git", ".venv", "mutants", "build", "__pycache__", ".mypy_cache", ".pytest_cache",
        ".hypothesis"))
    try:
        results = [(m, *run(m, tree)) for m in MUTATIONS]
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    for m, killed, seconds, missed in results:
        survived += not killed
        print(f"{'killed  ' if killed else 'SURVIVED'} {seconds:5.1f} s  {m.name}"
              + (f"\n           {missed}" if missed else ""), flush=True)
    print(f"planted mutations killed: {len(MUTATIONS) - survived}/{len(MUTATIONS)}")
    return 1 if survived else 0


if __name__ == "__main__":
    raise SystemExit(main())
