"""`trainstack compare --measured`: the bench results (trainstack/measure/bench.py) in place of the
assumptions, shown beside them.

For each compared cloud with a bench result of that cloud (the newest one found):

  tokens/s on one node, for the spec's model = bench one-node tokens/s x bench model params /
      workload params (the FLOP rate measured is held; exact when the bench ran your model,
      i.e. `bench --train-cmd`, and said so by its params)
  scaling efficiency = the bench's tokens/s(N) / (N x tokens/s(1)); 1.0 on one node
  tokens/s of the cluster = one node x spec nodes x scaling efficiency
  hours = train tokens / that / 3600
  MFU implied = the spec's MFU x measured one-node tokens/s / the one-node tokens/s the
      assumptions give (hours are FLOPs / (GPUs x peak x MFU) / efficiency in trainstack/sizing)
  run cost = (compute + storage) x measured hours / assumed hours + transfer: every part but the
      transfer is billed per hour of the run (trainstack/sizing_cost.run_cost)
  cost per million tokens = run cost / train tokens x 1e6

The assumed figures stay in the row; the measured ones go into the comparison's `measured`
(compare_records.MeasuredSet), keyed by cloud, so text, JSON and HTML show them side by side.
"""
from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Optional

from rich.console import Console
from rich.table import Table

from trainstack.cost.compare_records import (
    BenchRef,
    CompareRow,
    Comparison,
    MeasuredCloud,
    MeasuredCost,
    MeasuredSet,
    MeasuredSpeed,
    MeasuredVersusAssumed,
    WorkloadSummary,
)
from trainstack_components.errors import SpecError

DEFAULT_DIR = Path("bench-results")
PARAMS_TOLERANCE = 0.10   # within 10 %: the bench ran the spec's model
# N nodes cannot do more than N times one node's work: a measured scaling efficiency above
# 1 + this is noise (a shared machine) or a one-node run that was slowed, and is not used. 5 %
# leaves room for the run-to-run spread of a short bench on a quiet cluster.
SCALING_TOLERANCE = 0.05


def superlinear(efficiency: Optional[float]) -> bool:
    """Whether a measured scaling efficiency is above what N nodes can do (1 + tolerance)."""
    return efficiency is not None and efficiency > 1 + SCALING_TOLERANCE


def load_benches(paths: list[Path]) -> dict[str, dict]:
    """The newest bench result per cloud from files and folders of *.json."""
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            files.extend(sorted(path.glob("*.json")))
        elif path.is_file():
            files.append(path)
        else:
            raise SpecError("--bench", f"{path} does not exist.",
                            "Run `trainstack bench` first (it writes bench-results/), or pass "
                            "--bench FILE.")
    newest: dict[str, dict] = {}
    for file in files:
        try:
            doc = json.loads(file.read_text())
        except (OSError, ValueError) as bad:
            raise SpecError("--bench", f"{file} is not a bench result ({bad}).",
                            "Pass the JSON `trainstack bench` wrote.") from None
        if not isinstance(doc, dict) or doc.get("version") != 1 or "training" not in doc:
            raise SpecError("--bench", f"{file} is not a bench result (no version 1 "
                            "training section).", "Pass the JSON `trainstack bench` wrote.")
        cloud = doc.get("cloud") or "?"
        doc["_file"] = str(file)
        if cloud not in newest or doc.get("time", "") > newest[cloud].get("time", ""):
            newest[cloud] = doc
    return newest


def measure_row(row: CompareRow, workload: WorkloadSummary, bench: dict) -> MeasuredCloud:
    """The measured figures of one compare row (see the module's formulas)."""
    out = MeasuredCloud(bench=BenchRef(bench.get("_file"), bench.get("time"), bench.get("nodes")))
    training = bench.get("training") or {}
    one = training.get("one_node") or {}
    tps_bench = one.get("tokens_per_s")
    eff_bench = training.get("scaling_efficiency")
    if not tps_bench:
        out.notes.append("the bench has no one-node tokens/s (its training run failed?)")
        return out
    params, tokens = workload.params, workload.train_tokens
    bench_params = one.get("model_params")
    tps_one = tps_bench
    if params and bench_params:
        tps_one = tps_bench * bench_params / params
        if abs(bench_params - params) > PARAMS_TOLERANCE * params:
            out.notes.append(f"the bench ran a {bench_params:,.0f}-parameter model, not the "
                             f"workload's {params:,.0f}: its tokens/s are scaled by the "
                             "parameter ratio (same FLOP rate); bench your own model with "
                             "--train-cmd for the real figure")
    out.tokens_per_s_one_node = tps_one
    nodes = row.nodes or 1
    refused = training.get("scaling_efficiency_refused")
    if nodes > 1 and (superlinear(eff_bench) or refused is not None):
        value = eff_bench if superlinear(eff_bench) else refused
        out.notes.append(f"the bench's scaling efficiency {value:.2f} is above 1 + "
                         f"{SCALING_TOLERANCE:g} (N nodes cannot do more than N times one "
                         "node's work: noise, or a slowed one-node run): not used; run "
                         "`trainstack bench --only training` again on a quiet cluster")
        return out
    eff = 1.0 if nodes == 1 else eff_bench
    if eff is None:
        out.notes.append("the bench measured one node only: no scaling efficiency")
        return out
    if nodes > 1 and bench.get("nodes") != nodes:
        out.notes.append(f"scaling efficiency measured on {bench.get('nodes')} nodes, applied "
                         f"to {nodes}")
    tps = tps_one * nodes * eff
    hours = tokens / tps / 3600 if tokens else None
    out.speed = MeasuredSpeed(tokens_per_s=tps, scaling_efficiency=eff, hours=hours)
    assumed_hours = row.hours
    assumed_eff = row.scaling_efficiency or 1.0
    if assumed_hours and tokens:
        assumed_tps = tokens / (assumed_hours * 3600)
        out.versus = MeasuredVersusAssumed(
            assumed_tokens_per_s=assumed_tps,
            mfu=(row.mfu * tps_one / (assumed_tps / (nodes * assumed_eff))
                 if row.mfu else None))
        cost = row.cost
        if cost.total is not None and hours:
            ratio = hours / assumed_hours
            total = ((cost.compute or 0) + (cost.storage or 0)) * ratio + (cost.transfer or 0)
            out.cost = MeasuredCost(total=total, complete=cost.complete,
                                    per_million_tokens=total / tokens * 1e6,
                                    assumed_per_million_tokens=cost.total / tokens * 1e6)
    return out


def attach(result: Comparison, paths: Optional[list[Path]] = None) -> Comparison:
    """Set result.measured: per cloud, the measured figures beside the assumed ones."""
    benches = load_benches(paths or [DEFAULT_DIR])
    measured = MeasuredSet(benches={c: b["_file"] for c, b in benches.items()})
    for row in result.clouds:
        bench = benches.get(row.cloud)
        if not row.ok:
            continue
        if bench is None:
            measured.clouds[row.cloud] = MeasuredCloud(
                notes=[f"no bench result for {row.cloud}: assumed figures only"])
            continue
        if row.instance_type and bench.get("instance_type") not in (None, row.instance_type):
            measured.clouds[row.cloud] = MeasuredCloud(notes=[
                f"the bench ran on {bench['instance_type']}, the plan selects "
                f"{row.instance_type}: not used"])
            continue
        measured.clouds[row.cloud] = measure_row(row, result.workload, bench)
    result.measured = measured
    return result


def _num(value: Optional[float], fmt: str = ",.0f", unit: str = "") -> str:
    if value is None:
        return "-"
    if fmt == "rate":   # tokens/s: whole numbers from 100 up, 3 significant digits below
        fmt = ",.0f" if abs(value) >= 100 else ".3g"
    return f"{value:{fmt}}{unit}"


def assumed_tokens_per_s(row: CompareRow, workload: WorkloadSummary) -> Optional[float]:
    """The row's own tokens/s (train tokens / its hours): shown with or without a bench."""
    if row.hours and workload.train_tokens:
        return workload.train_tokens / (row.hours * 3600)
    return None


def assumed_per_million_tokens(row: CompareRow, workload: WorkloadSummary) -> Optional[float]:
    if row.cost.total is not None and workload.train_tokens:
        return row.cost.total / workload.train_tokens * 1e6
    return None


def rows_for_display(result: Comparison) -> list[tuple[str, list[str]]]:
    """(label, one cell per cloud) pairs, each cell "assumed -> measured"."""
    cur = result.currency
    clouds = [r for r in result.clouds if r.ok]
    m = result.measured.clouds if result.measured is not None else {}

    def of(r: CompareRow) -> MeasuredCloud:
        return m.get(r.cloud) or MeasuredCloud()

    def pair(assumed: Optional[float], measured_value: Optional[float], fmt: str = ",.0f",
             unit: str = "") -> str:
        return f"{_num(assumed, fmt, unit)} | {_num(measured_value, fmt, unit)}"

    def speed(r: CompareRow) -> Optional[MeasuredSpeed]:
        return of(r).speed

    def versus(r: CompareRow) -> Optional[MeasuredVersusAssumed]:
        return of(r).versus

    def cost(r: CompareRow) -> Optional[MeasuredCost]:
        return of(r).cost

    workload = result.workload
    lines = [
        ("tokens/s", [pair(v.assumed_tokens_per_s if (v := versus(r))
                           else assumed_tokens_per_s(r, workload),
                           s.tokens_per_s if (s := speed(r)) else None, "rate") for r in clouds]),
        ("MFU", [pair(r.mfu, v.mfu if (v := versus(r)) else None, ".2f") for r in clouds]),
        ("scaling efficiency", [pair(r.scaling_efficiency,
                                     s.scaling_efficiency if (s := speed(r)) else None, ".2f")
                                for r in clouds]),
        ("hours", [pair(r.hours, s.hours if (s := speed(r)) else None, ",.2f")
                   for r in clouds]),
        (f"run cost ({cur})", [pair(r.cost.total, c.total if (c := cost(r)) else None, ",.2f")
                               for r in clouds]),
        (f"{cur} per million tokens", [
            pair(c.assumed_per_million_tokens if (c := cost(r))
                 else assumed_per_million_tokens(r, workload),
                 c.per_million_tokens if c else None, ",.4f") for r in clouds]),
    ]
    return [("", [r.cloud for r in clouds])] + lines


def print_measured(result: Comparison, console: Optional[Console] = None) -> None:
    console = console or Console(soft_wrap=True)
    display = rows_for_display(result)
    table = Table(title="measured beside assumed (assumed | measured)")
    table.add_column("")
    for cloud in display[0][1]:
        table.add_column(cloud, overflow="fold")
    for label, cells in display[1:]:
        table.add_row(label, *cells)
    console.print(table)
    entries = result.measured.clouds if result.measured is not None else {}
    for cloud, entry in entries.items():
        if entry.bench is not None and entry.bench.file:
            console.print(f"{cloud}: measured by {entry.bench.file} ({entry.bench.time}, "
                          f"{entry.bench.nodes} node(s))", markup=False, highlight=False)
        for note in entry.notes:
            console.print(f"{cloud}: {note}", markup=False, highlight=False)


def html_section(result: Comparison) -> str:
    """The measured-beside-assumed table for the HTML report."""
    display = rows_for_display(result)
    head = "".join(f"<th>{html.escape(c)}</th>" for c in display[0][1])
    body = "\n".join("<tr><th>" + html.escape(label) + "</th>"
                     + "".join(f"<td>{html.escape(c)}</td>" for c in cells) + "</tr>"
                     for label, cells in display[1:])
    notes = "".join(f"<li>{html.escape(cloud)}: {html.escape(n)}</li>"
                    for cloud, e in (result.measured.clouds if result.measured else {}).items()
                    for n in e.notes)
    return (f'<section id="measured"><h2>Measured beside assumed (assumed | measured)</h2>'
            f"<table><tr><th></th>{head}</tr>\n{body}</table>"
            + (f"<ul>{notes}</ul>" if notes else "") + "</section>")
