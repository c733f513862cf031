"""`plan` against the SDK floor in instructions: sdk_floor.py's comparison, counted by callgrind.

    .venv/bin/python benchmarks/sdk_floor_instructions.py [--renders 3] [CLOUD ...]

sdk_floor.py times both sides in CPU seconds, which on a shared 2-core machine moves by 10-20 %
from one run to the next (RESULTS.md: the same code gave AWS 0.94-1.17). The instructions a
render executes do not depend on the neighbours: this runs one child Python under valgrind's
callgrind with collection off, and turns it on only around N plans and then N floor replays of
each cloud (the same render and replay as sdk_floor.py, after one warm-up of each and a full
collection, so that the collector starts each side from the same state), so imports and set-up
are not counted. Target as sdk_floor.py's: plan <= 1.15 x floor.

Needs valgrind and a C compiler (Debian: `apt-get install valgrind gcc`): callgrind's client
requests are C macros, so a ten-line library is compiled into a temporary folder and called
through ctypes. About a minute per cloud and render under callgrind's slow-down.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
TARGET = 1.15
TOGGLE_C = """#include <valgrind/callgrind.h>
void cg_start(void) { CALLGRIND_ZERO_STATS; CALLGRIND_TOGGLE_COLLECT; }
void cg_stop(void) { CALLGRIND_TOGGLE_COLLECT; CALLGRIND_DUMP_STATS; }
"""
CHILD = """
import ctypes, gc, sys
sys.path.insert(0, {here!r})
lib = ctypes.CDLL({lib!r})
from common import spec_for, render_config
from trainstack.plan.engine import render
import sdk_floor as F
n = {renders}
for cloud in {clouds!r}:
    cfg = render_config(spec_for(cloud), cloud)
    plan = render(cfg)
    custom = [r for r in plan.resources if r.custom and not r.type.startswith("pulumi:")]
    wired, invokes = F.wiring(cloud, custom), F.recorded_invokes(cfg)
    F.replay(cloud, custom, wired, invokes)
    render(cfg)
    for side, fn in (("plan", lambda: render(cfg)),
                     ("floor", lambda: F.replay(cloud, custom, wired, invokes))):
        gc.collect()   # the same collector state before each side: counts repeat run to run
        lib.cg_start()
        for _ in range(n):
            fn()
        lib.cg_stop()
        print("MEASURED", cloud, side, flush=True)
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("clouds", nargs="*", default=["alicloud", "aws", "azure", "gcp"])
    parser.add_argument("--renders", type=int, default=3)
    args = parser.parse_args()
    missing = [tool for tool in ("valgrind", "cc") if shutil.which(tool) is None]
    if missing or not Path("/usr/include/valgrind/callgrind.h").is_file():
        sys.exit("sdk_floor_instructions: needs valgrind, its headers and a C compiler "
                 "(apt-get install valgrind gcc); missing: " + (", ".join(missing) or "callgrind.h"))
    with tempfile.TemporaryDirectory() as tmp:
        source, lib = Path(tmp) / "toggle.c", Path(tmp) / "libtoggle.so"
        source.write_text(TOGGLE_C)
        subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-o", str(lib), str(source)], check=True)
        child = Path(tmp) / "child.py"
        child.write_text(CHILD.format(here=str(HERE), lib=str(lib), renders=args.renders,
                                      clouds=args.clouds))
        out = Path(tmp) / "callgrind.out"
        run = subprocess.run(["valgrind", "--tool=callgrind", "--collect-atstart=no",
                              f"--callgrind-out-file={out}", sys.executable, str(child)],
                             capture_output=True, text=True, env=os.environ.copy())
        order = re.findall(r"^MEASURED (\S+) (\S+)$", run.stdout, re.M)
        if run.returncode != 0 or len(order) != 2 * len(args.clouds):
            sys.exit(f"sdk_floor_instructions: the child failed (rc {run.returncode}):\n"
                     f"{run.stdout[-2000:]}{run.stderr[-3000:]}")
        # One dump per cg_stop, numbered in order: callgrind.out.1, .2, ...
        counts = {}
        for i, key in enumerate(order, start=1):
            text = Path(f"{out}.{i}").read_text()
            counts[key] = int(re.search(r"^summary: (\d+)$", text, re.M).group(1))
    print(f"| cloud | plan instructions per render | floor per replay | plan / floor | "
          f"target <= {TARGET}x |")
    print("|---|---|---|---|---|")
    ok = True
    for cloud in args.clouds:
        plan, floor = counts[(cloud, "plan")], counts[(cloud, "floor")]
        ratio = plan / floor
        ok &= ratio <= TARGET
        print(f"| {cloud} | {plan / args.renders / 1e6:.1f} M | {floor / args.renders / 1e6:.1f} M "
              f"| {ratio:.3f} | {'met' if ratio <= TARGET else 'MISSED'} |")
    print("all targets met" if ok else "some targets missed")


if __name__ == "__main__":
    main()
