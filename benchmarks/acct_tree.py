"""The CPU of a whole process tree, from BSD process accounting: what suite_cpu.py's
waited-for figure loses (processes re-parented away from pytest, such as a node box's services
killed with the box).

    accton /tmp/pacct                       # as root: every process that ends is recorded
    .venv/bin/python benchmarks/suite_cpu.py ... & echo "$! $(date +%s)"   # the root's pid, start
    accton off
    .venv/bin/python benchmarks/acct_tree.py /tmp/pacct PID START [--chains 4] [--children]

Reads the kernel's acct v3 records (linux/acct.h: 64 bytes; times in comp_t, AHZ=100 ticks).
A process is in the tree when its parent (the pid it named at exit, started before it and
alive when it started: pids are reused) is. Prints the total, the CPU per command name,
and with --chains the CPU per chain of command names (the process, its parent, ...); with
--children each subtree under the root's children (each node box's `unshare`), by start time.
Processes still running when the file is read are not in it.
"""
from __future__ import annotations

import argparse
import struct
import time
from collections import defaultdict

FMT = "<BBHIIIIIIf8H16s"      # struct acct_v3
SIZE = struct.calcsize(FMT)
AHZ = 100.0


def _comp(value: int) -> float:
    """comp_t: 13-bit mantissa, 3-bit base-8 exponent."""
    return float((value & 0x1FFF) << (3 * (value >> 13)))


def records(path: str) -> list[dict]:
    data = open(path, "rb").read()
    out = []
    for index, offset in enumerate(range(0, len(data) - SIZE + 1, SIZE)):
        f = struct.unpack_from(FMT, data, offset)
        out.append({"i": index, "pid": f[6], "ppid": f[7], "btime": f[8],
                    "end": f[8] + f[9] / AHZ, "cpu": (_comp(f[10]) + _comp(f[11])) / AHZ,
                    "comm": f[18].split(b"\0")[0].decode(errors="replace")})
    return out


class Tree:
    def __init__(self, path: str, root_pid: int, root_start: int):
        self.records = records(path)
        self.by_pid: dict[int, list[dict]] = defaultdict(list)
        for r in self.records:
            self.by_pid[r["pid"]].append(r)
        self.root_pid, self.root_start = root_pid, root_start
        self._inside: dict[int, bool] = {}
        self.rows = [r for r in self.records if self.inside(r)]

    def parent(self, r: dict) -> dict | None:
        candidates = [p for p in self.by_pid.get(r["ppid"], []) if p["i"] != r["i"]
                      and p["btime"] <= r["btime"] + 1 and p["end"] >= r["btime"] - 1]
        return min(candidates, key=lambda p: r["btime"] - p["btime"]) if candidates else None

    def is_root(self, r: dict) -> bool:
        return r["pid"] == self.root_pid and abs(r["btime"] - self.root_start) <= 2

    def inside(self, r: dict) -> bool:
        chain, verdict = [], False
        node: dict | None = r
        while node is not None and len(chain) < 256:
            if node["i"] in self._inside:
                verdict = self._inside[node["i"]]
                break
            chain.append(node)
            if self.is_root(node) or (node["ppid"] == self.root_pid
                                      and node["btime"] >= self.root_start - 1):
                verdict = True
                break
            node = self.parent(node)
        for n in chain:
            self._inside[n["i"]] = verdict
        return verdict

    def ancestry(self, r: dict) -> list[dict]:
        chain, node = [r], self.parent(r)
        while node is not None and not self.is_root(node) and len(chain) < 256:
            chain.append(node)
            node = self.parent(node)
        return chain


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pacct")
    parser.add_argument("pid", type=int)
    parser.add_argument("start", type=int, help="the root's start, seconds since the epoch")
    parser.add_argument("--chains", type=int, default=0, help="group by this many generations")
    parser.add_argument("--children", action="store_true", help="each child subtree of the "
                        "root's children (pytest's: the boxes)")
    args = parser.parse_args()
    tree = Tree(args.pacct, args.pid, args.start)
    print(f"tree: {sum(r['cpu'] for r in tree.rows):.1f} CPU s in {len(tree.rows)} processes")
    groups: dict[str, list[float]] = defaultdict(lambda: [0.0, 0])
    for r in tree.rows:
        key = (" < ".join(n["comm"] for n in tree.ancestry(r)[:args.chains]) if args.chains
               else r["comm"])
        groups[key][0] += r["cpu"]
        groups[key][1] += 1
    for key, (cpu, count) in sorted(groups.items(), key=lambda kv: -kv[1][0])[:40]:
        print(f"  {cpu:8.1f} {int(count):6d}  {key}")
    if args.children:
        subtrees: dict[tuple, list] = defaultdict(lambda: [0.0, defaultdict(float)])
        for r in tree.rows:
            chain = tree.ancestry(r)
            if len(chain) >= 2:      # chain[-1]: the root's child (pytest); chain[-2]: its child
                top = chain[-2]
                subtrees[(top["btime"], top["pid"], top["comm"])][0] += r["cpu"]
                subtrees[(top["btime"], top["pid"], top["comm"])][1][r["comm"]] += r["cpu"]
        print("subtrees under the root's children (start, command, CPU s, costliest commands):")
        for (start, _, comm), (cpu, by) in sorted(subtrees.items()):
            if cpu >= 0.5:
                top = sorted(by.items(), key=lambda kv: -kv[1])[:5]
                print(f"  {time.strftime('%H:%M:%S', time.gmtime(start))} {comm:10s} {cpu:7.1f}  "
                      + " ".join(f"{k}={v:.1f}" for k, v in top))


if __name__ == "__main__":
    main()
