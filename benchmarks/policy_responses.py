"""Whether two copies of the policy pack answer the benchmark's requests byte for byte alike.

    PYTHONPATH=build/import_root:. .venv/bin/python benchmarks/policy_responses.py \\
        --pack-dir BEFORE/policies --pack-dir policies [--resources 20000]

A speed change to the pack must not change a single response. This runs the pass that
benchmarks/policy_grpc.py times in-process (for each resource Remediate then Analyze, then one
AnalyzeStack: 40,001 calls at 20,000 resources) on the same requests with each pack, each in a
fresh process, and compares every serialised response (SerializeToString(deterministic=True),
in call order). It prints the count, the SHA-256 of each pack's responses, and the first call
that differs; the exit status is 1 if any differs. No test runs it (it takes a minute).
"""
from __future__ import annotations

import argparse
import hashlib
import os
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# The benchmark's handler set-up (policy_grpc.HANDLER_SETUP), then its pass writing each response.
_DUMP = """
with open(sys.argv[3], "wb") as out:
    def write(response):
        raw = response.SerializeToString(deterministic=True)
        out.write(struct.pack(">I", len(raw)) + raw)
    for request in analyze:
        write(servicer.Remediate(request, None))
        write(servicer.Analyze(request, None))
    write(servicer.AnalyzeStack(stack, None))
"""


def _split(data: bytes) -> list[bytes]:
    out, at = [], 0
    while at < len(data):
        (n,) = struct.unpack_from(">I", data, at)
        out.append(data[at + 4:at + 4 + n])
        at += 4 + n
    return out


def main() -> int:
    from benchmarks.policy_grpc import HANDLER_SETUP, requests, stack
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pack-dir", action="append", type=Path, required=True,
                        help="a copy of policies/ (give two)")
    parser.add_argument("--resources", type=int, default=20_000)
    args = parser.parse_args()
    if len(args.pack_dir) != 2:
        parser.error("give --pack-dir twice")
    analyze, stack_request = requests(stack(args.resources))
    env = {**os.environ, "PULUMI_PROJECT": "trainstack", "PULUMI_STACK": "bench",
           "PULUMI_ORGANIZATION": "organization", "PULUMI_DRY_RUN": "true",
           "PULUMI_CONFIG": "{}", "PYTHONHASHSEED": "0"}
    with tempfile.TemporaryDirectory() as tmp:
        given = Path(tmp) / "requests.bin"
        with given.open("wb") as f:
            for message in [*analyze, stack_request]:
                raw = message.SerializeToString()
                f.write(struct.pack(">I", len(raw)) + raw)
        answers = []
        for i, pack in enumerate(args.pack_dir):
            out = Path(tmp) / f"responses{i}.bin"
            subprocess.run([sys.executable, "-c", HANDLER_SETUP + _DUMP, str(pack.resolve()),
                            str(given), str(out)], env=env, check=True)
            data = out.read_bytes()
            answers.append(_split(data))
            print(f"{pack}: {len(answers[-1])} responses, {len(data):,} bytes, "
                  f"sha256 {hashlib.sha256(data).hexdigest()}")
    first, second = answers
    if len(first) != len(second):
        print(f"DIFFERENT: {len(first)} against {len(second)} responses")
        return 1
    for i, (a, b) in enumerate(zip(first, second)):
        if a != b:
            call = "AnalyzeStack" if i == len(first) - 1 else \
                ("Remediate", "Analyze")[i % 2] + f" of resource {i // 2}"
            print(f"DIFFERENT: response {i} ({call})")
            return 1
    print(f"IDENTICAL: all {len(first)} responses")
    return 0


if __name__ == "__main__":
    sys.exit(main())
