"""Throughput of the policy pack as the engine drives it: over gRPC, a request per resource.

    .venv/bin/python benchmarks/policy_grpc.py [--resources 20000] [--repeats 3]
    .venv/bin/python benchmarks/policy_grpc.py --in-process-only [--pack-dir DIR]   # (b) only

`pulumi preview --policy-pack policies` starts the pack and, for every resource, calls Remediate
and then Analyze (its inputs and provider: the two passes of the engine's step generator,
pulumi/pulumi pkg/resource/deploy/step_generator.go), and AnalyzeStack once with every resource.
This benchmark does the same against the real pack process (tests/policy_harness.py starts it
exactly as the engine does):
a stack of N resources built by repeating the hand-built four-cloud clusters of
tests/policy_fixtures.py (each copy renamed, dependencies kept within the copy). The requests
are built before the clock starts (the engine builds them in Go); the clock covers every
Remediate, Analyze and AnalyzeStack call, i.e. the pack's work plus gRPC. Target: 20,000
resources in under 5 s on the reference machine. It prints the figure; no test times anything.

Issue 35's targets, both from the same run: the pack over gRPC at most 1.25x the time of 40,001
bare calls to a stock Python gRPC server (`StockServer`, its calls made right after each pack
repeat so that both see the same load; the ratio is of the medians), and the handlers in-process
at least 20,000 resources per second. Both server processes' CPU time is printed beside them.
The pack serves with its own one-thread server (policies/serving.py) unless
TRAINSTACK_POLICY_SERVER=stock is set (then with pulumi_policy's grpc.server, as before issue 35's
speed work); the floor is the stock server either way, so with its own server the pack can come
in under 1.0x.

It also prints what no pack can go below here: the same number of bare round trips between the
same two processes (the transport floor), and the pack's own handler time in-process, without
gRPC. On the 2-core reference machine the floor alone is over 5 s (a Python gRPC server spends
about 0.3 ms of CPU per unary call there, with an empty handler, whichever client calls it), so
the target is out of reach for any Python pack on it; the pack's share is what this code owns.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import NamedTuple, Optional

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

TARGET_SECONDS = 5.0
# Issue 35: measured in one run, as ratios that hold on a loaded machine too.
TARGET_RATIO = 1.25      # the pack over gRPC / as many bare calls to a stock Python gRPC server
TARGET_RATE = 20_000     # resources per second, the pack's handlers in-process


def stack(size: int) -> list:
    from tests.policy_fixtures import CLUSTERS
    base = [r for build in CLUSTERS.values() for r in build()]
    out = []
    copy = 0
    while len(out) < size:
        renamed = {id(r): replace(r, name=f"{r.name}-{copy}", urn=f"{r.urn}-{copy}",
                                  props=dict(r.props)) for r in base}
        for r in base:
            view = renamed[id(r)]
            view.deps = {k: [renamed[id(d)] for d in ds if id(d) in renamed]
                         for k, ds in r.deps.items()}
            out.append(view)
        copy += 1
    return out[:size]


def requests(resources: list):
    from pulumi.runtime.proto import analyzer_pb2 as apb

    from tests.policy_harness import _struct, engine_value, provider_for

    def provider(r):
        props = {"region": r.provider_region} if r.provider_region else {}
        return provider_for(r.cloud if r.cloud != "azure" else "azure-native", props)

    providers = {}
    analyze = []
    for r in resources:
        key = (r.cloud, r.provider_region)
        if key not in providers:
            providers[key] = provider(r)
        analyze.append(apb.AnalyzeRequest(
            type=r.type, name=r.name, urn=r.urn, properties=_struct(engine_value(r.props)),
            options=apb.AnalyzerResourceOptions(protect=r.protect), provider=providers[key]))
    stack_request = apb.AnalyzeStackRequest(resources=[apb.AnalyzerResource(
        type=r.type, name=r.name, urn=r.urn, properties=_struct(engine_value(r.props)),
        dependencies=sorted({d.urn for ds in r.deps.values() for d in ds}),
        propertyDependencies={k: apb.AnalyzerPropertyDependencies(urns=[d.urn for d in ds])
                              for k, ds in r.deps.items()},
        options=apb.AnalyzerResourceOptions(protect=r.protect),
        provider=providers[(r.cloud, r.provider_region)]) for r in resources])
    return analyze, stack_request


# A fresh process's first lines: the pack of argv[1] imported as trainstack_policies, as its
# __main__ installs it (benchmarks/policy_stops.py starts its processes the same way).
PACK_IMPORT = """
import importlib.util, os, struct, sys, time
from pathlib import Path
pack = Path(sys.argv[1])
spec = importlib.util.spec_from_file_location("trainstack_policies", pack / "__init__.py",
                                              submodule_search_locations=[str(pack)])
module = importlib.util.module_from_spec(spec)
sys.modules["trainstack_policies"] = module
spec.loader.exec_module(module)
"""

# A fresh process's set-up: the pack imported, and the requests of argv[2] read back
# (benchmarks/policy_responses.py runs the same, then its own pass).
HANDLER_SETUP = PACK_IMPORT + """from pulumi.runtime.proto import analyzer_pb2 as apb
from pulumi_policy import EnforcementLevel
from pulumi_policy import policy as stock
from trainstack_policies.pack import PACK_NAME, install_analyzer, policies
install_analyzer()
servicer = stock._PolicyAnalyzerServicer(PACK_NAME, "0.0.1", policies(), EnforcementLevel.ADVISORY,
                                         None, None, None, None, None, None, None)
data = Path(sys.argv[2]).read_bytes()
messages, at = [], 0
while at < len(data):
    (n,) = struct.unpack_from(">I", data, at)
    messages.append(data[at + 4:at + 4 + n])
    at += 4 + n
analyze = [apb.AnalyzeRequest.FromString(m) for m in messages[:-1]]
stack = apb.AnalyzeStackRequest.FromString(messages[-1])
"""

_HANDLERS = HANDLER_SETUP + """
start, cpu = time.perf_counter(), time.process_time()
for request in analyze:
    servicer.Remediate(request, None)
    servicer.Analyze(request, None)
servicer.AnalyzeStack(stack, None)
print(time.perf_counter() - start, time.process_time() - cpu)
"""


def in_process(pack_dir: Path, analyze: list, stack_request) -> tuple[float, float]:
    """The pack's handlers (those of `pack_dir`, installed as its __main__ installs them) called
    directly, without gRPC, in a process of their own: the pack's own share, as (wall seconds,
    CPU seconds of that process); on a loaded machine the CPU time is what load disturbs least."""
    import os
    import struct
    import subprocess
    import tempfile
    with tempfile.NamedTemporaryFile(suffix=".bin") as requests_file:
        for message in [*analyze, stack_request]:
            raw = message.SerializeToString()
            requests_file.write(struct.pack(">I", len(raw)) + raw)
        requests_file.flush()
        env = {**os.environ, "PULUMI_PROJECT": "trainstack", "PULUMI_STACK": "bench",
               "PULUMI_ORGANIZATION": "organization", "PULUMI_DRY_RUN": "true",
               "PULUMI_CONFIG": "{}"}
        out = subprocess.run([sys.executable, "-c", _HANDLERS, str(pack_dir), requests_file.name],
                             env=env, capture_output=True, text=True, check=True)
    wall, cpu = out.stdout.strip().splitlines()[-1].split()
    return float(wall), float(cpu)


def floor(pack, calls: int) -> float:
    """The transport alone: `calls` round trips of the cheapest RPC (GetPluginInfo) between the
    same two Python processes; what no pack code can go below on this machine."""
    from google.protobuf import empty_pb2
    start = time.perf_counter()
    for _ in range(calls):
        pack.stub.GetPluginInfo(empty_pb2.Empty())
    return time.perf_counter() - start


_STOCK_SERVER = """
import sys
from concurrent import futures
import grpc
def call(request, context):
    return b""
handler = grpc.method_handlers_generic_handler("bench.Empty", {
    "Call": grpc.unary_unary_rpc_method_handler(call)})
server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
server.add_generic_rpc_handlers((handler,))
port = server.add_insecure_port("127.0.0.1:0")
server.start()
print(port, flush=True)
sys.stdin.read()
server.stop(0)
"""


def process_cpu(pid: int) -> float:
    """CPU seconds (user + system) process `pid` has used so far (Linux /proc; 0.0 elsewhere):
    what load disturbs least, to set beside the wall-clock figures."""
    import os
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class StockServer:
    """A stock Python gRPC server (grpc.server with a 4-thread pool, one generic handler
    returning an empty message) in a process of its own, and a channel to it: the transport a
    Python pack cannot go below. Started once; `calls(n)` times n sequential unary calls, as
    the engine makes them, so the floor can be measured between the pack's repeats."""

    def __init__(self) -> None:
        import subprocess

        import grpc
        self.server = subprocess.Popen([sys.executable, "-c", _STOCK_SERVER],
                                       stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        port = int(self.server.stdout.readline())
        self.channel = grpc.insecure_channel(f"127.0.0.1:{port}")
        self.call = self.channel.unary_unary("/bench.Empty/Call")
        self.call(b"", timeout=30)     # connected before any clock starts

    def calls(self, n: int) -> tuple[float, float]:
        """(wall seconds, the server process's CPU seconds) for n calls."""
        call = self.call
        cpu = process_cpu(self.server.pid)
        start = time.perf_counter()
        for _ in range(n):
            call(b"")
        return time.perf_counter() - start, process_cpu(self.server.pid) - cpu

    def close(self) -> None:
        self.channel.close()
        self.server.stdin.close()
        self.server.wait(timeout=30)


def stock_floor(calls: int) -> float:
    """`calls` sequential unary calls to a fresh StockServer, in wall seconds."""
    server = StockServer()
    try:
        return server.calls(calls)[0]
    finally:
        server.close()


class Measured(NamedTuple):
    seconds: float            # the pack over gRPC, median of the repeats
    stack_seconds: float      # of which AnalyzeStack
    diagnostics: int
    transport: float          # 2N+1 GetPluginInfo round trips to the pack process
    handlers: float           # the handlers in-process, wall
    handlers_cpu: float       # the handlers in-process, CPU
    stock: float              # 2N+1 calls to the stock server, median of the repeats
    pack_cpu: float           # the pack process's CPU over gRPC, median of the repeats
    stock_cpu: float          # the stock server process's CPU, median of the repeats
    ratios: list              # pack / stock of each repeat (each pair measured back to back)


def measure(size: int, repeats: int, pack_dir: Optional[Path] = None) -> Measured:
    """Each repeat drives the pack over gRPC and then makes as many bare calls to the stock
    server, back to back, so that both see the same load; the ratio is of the medians."""
    from tests.policy_harness import PACK_DIR, PolicyPackProcess
    resources = stack(size)
    analyze, stack_request = requests(resources)
    calls = 2 * size + 1
    pack = PolicyPackProcess(pack_dir=pack_dir or PACK_DIR)
    stock = StockServer()
    try:
        pack.configure()
        runs, stack_runs, pack_cpu, stock_runs, stock_cpu, diagnostics = [], [], [], [], [], 0
        for _ in range(repeats):
            cpu = process_cpu(pack.proc.pid)
            start = time.perf_counter()
            diagnostics = 0
            for request in analyze:
                pack.stub.Remediate(request)
                diagnostics += len(pack.stub.Analyze(request).diagnostics)
            middle = time.perf_counter()
            diagnostics += len(pack.stub.AnalyzeStack(stack_request).diagnostics)
            end = time.perf_counter()
            pack_cpu.append(process_cpu(pack.proc.pid) - cpu)
            runs.append(end - start)
            stack_runs.append(end - middle)
            wall, server_cpu = stock.calls(calls)
            stock_runs.append(wall)
            stock_cpu.append(server_cpu)
        return Measured(statistics.median(runs), statistics.median(stack_runs), diagnostics,
                        floor(pack, calls), *in_process(pack_dir or PACK_DIR, analyze,
                                                        stack_request),
                        statistics.median(stock_runs), statistics.median(pack_cpu),
                        statistics.median(stock_cpu),
                        [p / s for p, s in zip(runs, stock_runs)])
    finally:
        stock.close()
        pack.close()


def in_process_only(size: int, repeats: int, pack_dir: Optional[Path],
                    load_start: tuple) -> int:
    """Target (b) alone: the same requests, the handlers in a fresh process each repeat."""
    from tests.policy_harness import PACK_DIR
    analyze, stack_request = requests(stack(size))
    runs = [in_process(pack_dir or PACK_DIR, analyze, stack_request) for _ in range(repeats)]
    wall = statistics.median(w for w, _ in runs)
    cpu = statistics.median(c for _, c in runs)
    print(f"load average (1, 5, 15 min) at the start: {' '.join(f'{x:.2f}' for x in load_start)}"
          f", at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"in-process, {size:,} resources, median of {repeats}: {wall:.2f} s wall = "
          f"{size / wall:,.0f} resources/s (target >= {TARGET_RATE:,}/s: "
          f"{'PASS' if size / wall >= TARGET_RATE else 'FAIL'}); by CPU time {cpu:.2f} s = "
          f"{size / cpu:,.0f} resources/s; each (wall, CPU): "
          f"{', '.join(f'({w:.2f}, {c:.2f})' for w, c in runs)}")
    return 0 if size / wall >= TARGET_RATE else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--resources", type=int, default=20_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--pack-dir", type=Path, default=None,
                        help="another copy of the pack to measure (e.g. an older commit's "
                             "policies/, from `git archive`), for a same-machine comparison")
    parser.add_argument("--in-process-only", action="store_true",
                        help="only target (b): the handlers in-process, --repeats times (each "
                             "in a fresh process), without the gRPC runs")
    args = parser.parse_args()
    load_start = os.getloadavg()
    if args.in_process_only:
        return in_process_only(args.resources, args.repeats, args.pack_dir, load_start)
    m = measure(args.resources, args.repeats, args.pack_dir)
    seconds, stack_seconds, stock = m.seconds, m.stack_seconds, m.stock
    handlers, handlers_cpu = m.handlers, m.handlers_cpu
    calls = 2 * args.resources + 1
    ratio, rate = seconds / stock, args.resources / handlers
    ok = ratio <= TARGET_RATIO and rate >= TARGET_RATE
    print(f"load average (1, 5, 15 min) at the start: {' '.join(f'{x:.2f}' for x in load_start)}"
          f", at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"policy pack over gRPC: {args.resources:,} resources in {seconds:.2f} s "
          f"(Remediate + Analyze x {args.resources:,}: {seconds - stack_seconds:.2f} s, "
          f"AnalyzeStack: "
          f"{stack_seconds:.2f} s; median of {args.repeats}; {m.diagnostics:,} diagnostics) "
          f"-> {args.resources / seconds:,.0f} resources/s; target < {TARGET_SECONDS:g} s: "
          f"{'PASS' if seconds < TARGET_SECONDS else 'FAIL'}")
    print(f"transport floor: {calls:,} bare round trips (GetPluginInfo) take "
          f"{m.transport:.2f} s here ({m.transport / seconds:.0%} of the total); the pack's "
          f"handlers alone, in-process: {handlers:.2f} s ({handlers / seconds:.0%})")
    own = ((args.pack_dir or ROOT / "policies") / "serving.py").exists()
    server = ("its own (serving.Server)" if own and os.environ.get("TRAINSTACK_POLICY_SERVER")
              != "stock" else "pulumi_policy's grpc.server" + (
                  " (TRAINSTACK_POLICY_SERVER=stock)" if own else " (the pack has no serving.py)"))
    print(f"the pack process served by: {server}")
    print(f"ratio: the pack over gRPC / {calls:,} bare calls to a stock Python gRPC server "
          f"({stock:.2f} s, median of {args.repeats}, each right after a pack repeat) = "
          f"{ratio:.2f}x (target <= {TARGET_RATIO:g}x: "
          f"{'PASS' if ratio <= TARGET_RATIO else 'FAIL'}); per repeat: "
          f"{', '.join(f'{r:.2f}x' for r in m.ratios)}")
    if m.stock_cpu:
        print(f"server CPU (what load disturbs least): the pack process {m.pack_cpu:.2f} s, the "
              f"stock server {m.stock_cpu:.2f} s (medians) = {m.pack_cpu / m.stock_cpu:.2f}x")
    print(f"in-process: {rate:,.0f} resources/s (target >= {TARGET_RATE:,}/s: "
          f"{'PASS' if rate >= TARGET_RATE else 'FAIL'}); by the handlers' CPU time "
          f"({handlers_cpu:.2f} s): {args.resources / handlers_cpu:,.0f} resources/s")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
