"""Start-up cost of the CLI, and which provider SDKs each command imports.

    .venv/bin/python benchmarks/startup.py [--repeats 7]

Targets: `trainstack --help` and `trainstack schema` import no provider SDK and take at most
2 x `python -c "import pydantic"`; `trainstack plan --cloud X` imports X's SDK and no other.
Every measurement is a fresh process (median of several), as a user's shell would start it.
"""
from __future__ import annotations

import json
import statistics

from common import implemented_clouds, run_python, table, verdict
from common import main as bench_main

TARGET = 2.0
SDK_OF = {"aws": "pulumi_aws", "gcp": "pulumi_gcp", "azure": "pulumi_azure_native",
          "alicloud": "pulumi_alicloud"}
SDKS = tuple(SDK_OF.values())

# Runs the CLI in-process, then reports the provider SDK packages it imported.
_CLI = """
import sys, json
sys.argv = ["trainstack", *{args!r}]
from trainstack.cli.app import main
try:
    main()
except SystemExit:
    pass
sdks = sorted({{m.split(".")[0] for m in sys.modules if m.split(".")[0] in {sdks!r}}})
sys.__stdout__.write("\\nSDKS=" + json.dumps(sdks) + "\\n")
"""


def cli(args: list[str]) -> tuple[float, list[str]]:
    seconds, out = run_python(_CLI.format(args=args, sdks=SDKS))
    line = next(ln for ln in reversed(out.splitlines()) if ln.startswith("SDKS="))
    return seconds, json.loads(line[5:])


def median_cli(args: list[str], repeats: int) -> tuple[float, list[str]]:
    runs = [cli(args) for _ in range(repeats)]
    return statistics.median(s for s, _ in runs), runs[-1][1]


def run(repeats: int) -> tuple[str, bool]:
    baseline = statistics.median(run_python("import pydantic")[0] for _ in range(repeats))
    rows = [["python -c 'import pydantic'", f"{baseline * 1000:.0f}", "1.00", "-", "baseline"]]
    all_ok = True
    for args in (["--help"], ["schema"]):
        seconds, sdks = median_cli(args, repeats)
        ok = not sdks and seconds / baseline <= TARGET
        all_ok &= ok
        rows.append([f"trainstack {' '.join(args)}", f"{seconds * 1000:.0f}",
                     f"{seconds / baseline:.2f}", ", ".join(sdks) or "none",
                     verdict(ok) + f" (<= {TARGET}x, no SDK)"])
    for cloud in implemented_clouds():
        args = ["plan", "--spec", "examples/cluster.yaml", "--cloud", cloud, "--json"]
        seconds, sdks = median_cli(args, max(3, repeats // 2))
        ok = sdks == [SDK_OF[cloud]]
        all_ok &= ok
        rows.append([f"trainstack plan --cloud {cloud}", f"{seconds * 1000:.0f}",
                     f"{seconds / baseline:.2f}", ", ".join(sdks) or "none",
                     verdict(ok) + f" (only {SDK_OF[cloud]})"])
    return table(["command", "ms (median, fresh process)", "vs import pydantic",
                  "provider SDKs imported", "target"], rows), all_ok


if __name__ == "__main__":
    bench_main(__doc__, run, repeats=7)
