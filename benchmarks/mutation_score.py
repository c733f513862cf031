"""Mutation score of the modules that decide money, capacity, placement and lifetime (issue 26).

    python benchmarks/mutation_score.py                 # every module in [tool.mutmut]
    python benchmarks/mutation_score.py sizing_cost     # only mutants whose name matches
    python benchmarks/mutation_score.py --planted-only  # only the planted mutations

Two parts. 1. mutmut (PyPI, the `dev` extra) mutates the modules listed in pyproject.toml's
[tool.mutmut] `only_mutate` and runs, for each mutant, the hand-computed tests listed there
(a subset of the suite, so a run stays bounded: 6 min 20 s for all eleven modules, 4,164
mutants, on two cores, measured 2026-12-01 with the planted mutations; one module alone takes
1-3 min, staging and mutmut's test-mapping run included; pass part of a module name to run
only its mutants). It prints killed / timed out / survived per
module and the score = (killed + timed out) / all run: a mutant whose tests never finish (an
endless loop) is detected, as PIT and Stryker count it, and has its own column; mutants mutmut
could not run (no tests, suspicious) count as survived. 2. benchmarks/mutation_planted.py
plants the specific bugs issue 26 lists and checks each one is killed. Exit status 1 when a
planted mutation survives, or when mutmut found no test for any mutant of a module (the run
did not test that module's mutated code).

mutmut names a mutant after its file's path (components/memory.py -> components.memory...) and
a mutant only runs when that name is the running function's module, but components/ and
policies/ import as trainstack_components and trainstack_policies: run in the checkout, no
test would ever reach a mutant of components/. So mutmut runs in a stage, build/mutation/,
that holds the tree under the import names (links to this checkout's folders) with the
[tool.mutmut] paths renamed to match. Inspect a survivor there:
`cd build/mutation && mutmut show <name>`.
"""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
STAGE = ROOT / "build" / "mutation"
# The folders that import under another name (pyproject's [tool.setuptools] package-dir).
IMPORT_NAMES = {"components": "trainstack_components", "policies": "trainstack_policies"}
# Not part of the tree the tests see.
NOT_STAGED = {"build", "mutants", "pyproject.toml"}


def import_path(path: str) -> str:
    """A checkout path (components/memory.py) under its import name (trainstack_components/...)."""
    head, sep, rest = path.partition("/")
    return IMPORT_NAMES.get(head, head) + sep + rest


def checkout_path(module: str) -> str:
    """mutmut's module name in the stage (trainstack_components.memory) as the checkout's file."""
    head, _, rest = module.partition(".")
    back = {v: k for k, v in IMPORT_NAMES.items()}
    return "/".join([back.get(head, head), *rest.split(".")]) + ".py"


def toml_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    raise TypeError(f"[tool.mutmut] value {value!r} has no TOML form here")


def staged_config(config: dict) -> dict:
    """[tool.mutmut] for the stage: mutated paths under their import names, and the checkout's
    folders copied under both names (tests read data files by checkout path)."""
    staged = dict(config)
    for key in ("source_paths", "only_mutate", "do_not_mutate"):
        if key in staged:
            staged[key] = [import_path(p) for p in staged[key]]
    copied = list(config.get("also_copy", []))
    for folder, name in IMPORT_NAMES.items():
        copied += [p for p in (folder, name) if p not in copied]
    staged["also_copy"] = copied
    return staged


def stage() -> Path:
    """build/mutation/: links to this checkout's entries, the import-name folders, and a
    pyproject.toml whose [tool.mutmut] is staged_config's."""
    shutil.rmtree(STAGE, ignore_errors=True)   # also mutmut's old results (old code's mutants)
    STAGE.mkdir(parents=True)
    for entry in ROOT.iterdir():
        if entry.name not in NOT_STAGED and not entry.name.startswith("."):
            (STAGE / entry.name).symlink_to(entry)
    for folder, name in IMPORT_NAMES.items():
        (STAGE / name).symlink_to(ROOT / folder, target_is_directory=True)
    text = (ROOT / "pyproject.toml").read_text()
    config = tomllib.loads(text)["tool"]["mutmut"]
    section = "[tool.mutmut]\n" + "".join(f"{k} = {toml_value(v)}\n"
                                         for k, v in staged_config(config).items())
    start = text.index("[tool.mutmut]\n")
    end = text.find("\n[", start)
    rest = text[end + 1:] if end != -1 else ""
    (STAGE / "pyproject.toml").write_text(text[:start] + section + "\n" + rest)
    return STAGE


def mutmut(*args: str, timeout: int) -> subprocess.CompletedProcess:
    exe = shutil.which("mutmut", path=str(BIN)) or shutil.which("mutmut")
    if exe is None:
        raise SystemExit("mutmut is not installed: pip install -e '.[dev]'")
    return subprocess.run([exe, *args], cwd=STAGE, capture_output=True, text=True, timeout=timeout)


def scores(pattern: str | None) -> dict[str, Counter]:
    stage()   # a fresh stage every time: mutmut's kept results would mix in old code
    names = [f"*{pattern}*"] if pattern else []
    mutmut("run", "--max-children", "2", *names, timeout=3600)
    listing = mutmut("results", "--all", "true", timeout=600).stdout
    per_module: dict[str, Counter] = defaultdict(Counter)
    for line in listing.splitlines():
        m = re.match(r"\s*([\w.]+?)\.x.*__mutmut_\d+: (.+)$", line.strip())
        if m and (pattern is None or pattern in m.group(1)):
            per_module[m.group(1)][m.group(2).strip()] += 1
    return per_module


def main(argv: list[str]) -> int:
    planted_only = "--planted-only" in argv
    pattern = next((a for a in argv if not a.startswith("--")), None)
    untested = []
    if not planted_only:
        total = Counter()
        print("module                                   killed  timeout  survived  score")
        for module, counts in sorted(scores(pattern).items()):
            killed, timeout = counts["killed"], counts["timeout"]
            other = sum(v for k, v in counts.items() if k not in ("killed", "timeout", "skipped"))
            total.update(killed=killed, timeout=timeout, other=other)
            print(f"{checkout_path(module):40} {killed:6} {timeout:8} {other:9}  "
                  f"{(killed + timeout) / max(1, killed + timeout + other):6.1%}")
            if not killed and counts["no tests"]:
                untested.append(checkout_path(module))
        detected = total["killed"] + total["timeout"]
        print(f"{'all':40} {total['killed']:6} {total['timeout']:8} {total['other']:9}  "
              f"{detected / max(1, detected + total['other']):6.1%}")
        for path in untested:
            print(f"{path}: mutmut found no test reaching any of its mutants, so none ran: the "
                  f"tests do not import the mutated copy under mutmut's name for it")
    planted = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "mutation_planted.py")],
                             cwd=ROOT)
    return planted.returncode or (1 if untested else 0)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
