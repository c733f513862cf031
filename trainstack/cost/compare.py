"""`trainstack compare --spec FILE`: the planned run priced on every cloud the spec configures.

For each cloud in the spec's `clouds` section, in the spec's order:
  * a cloud trainstack does not implement yet is listed as "not implemented yet";
  * otherwise the cluster is planned offline (`engine.render`, the same mock-engine plan as
    `trainstack plan`), so the instance type, interconnect and filesystem size/throughput are
    the components' own; a SpecError from that (no such GPU in the region, budget too small for
    a day, ...) is shown on the cloud's row with its message, and the other clouds go on;
  * hours: trainstack/cost/sizing.py with nodes x the type's GPUs at the GPU's datasheet peak, the
    spec's MFU, and the default scaling efficiency for the fabric the plan uses (RDMA or TCP);
  * cost: sizing.run_cost over the run, split into compute, storage (filesystem + bucket) and
    transfer; prices from the catalog (components/catalog/run_prices.py says which row and unit).

Data-size defaults (override with --bucket-gb / --transfer-gb), kept visible in every output:
  * bucket = the data-size model of components/catalog/data_sizes.py (dataset + starting weights
    + final checkpoint), the figure the spend-limit policy prices too;
  * transfer = downloading the trained result once to the internet: params x 2 bytes for full
    training, the LoRA adapter (adapter params x 2 bytes) otherwise. Uploading the dataset is
    ingress, which these providers do not charge for; the monthly free egress allowance is
    not deducted.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, Collection, Optional

import typer
from rich.console import Console
from rich.table import Table

from trainstack.cost import sizing
from trainstack.cost.options import CnyRateOpt, IdleOverheadOpt, PreemptionOverheadOpt
from trainstack.console import console as make_console
from trainstack.cost.compare_records import (
    cheapest_caveat,
    ERROR,
    NOT_IMPLEMENTED_STATUS,
    OK,
    Assumptions,
    CompareRow,
    Comparison,
    DataSizes,
    FilesystemLine,
    PolicyVerdict,
    PricedAmount,
    RowCost,
    WorkloadSummary,
)
from trainstack.cost.money import (  # noqa: F401  (priced_as re-exported)
    check_currency,
    conversion_factor,
    fx_rate,
    human_params,
    priced_as,
)
from trainstack.cost.sizing import Workload
from trainstack_components.catalog import gpu_models as gpu_catalog
from trainstack_components.catalog import run_prices
from trainstack_components.catalog.data_sizes import BYTES_PER_TOKEN, BYTES_PER_WEIGHT
from trainstack_components.catalog.data_sizes import data_sizes as catalog_data_sizes
from trainstack_components.errors import SpecError

out = Console(soft_wrap=True)
err = make_console(stderr=True)   # trainstack's console: no emoji codes in `key:value` text

COST_PARTS = ("compute", "storage", "transfer")
NOT_IMPLEMENTED = "not implemented yet"


# --------------------------------------------------------------------------- policy hook

def policy_verdict(plan) -> PolicyVerdict:
    """The policy pack's verdict on one offline plan (policies/runner.py, the rules `trainstack
    check` and the CrossGuard pack run), or n/a where the pack is not importable.

    verdict: "fail" when a mandatory policy fails, "warn" when only advisory ones do, "pass".
    """
    try:
        from trainstack_policies.model import from_plan
        from trainstack_policies.runner import evaluate
    except ImportError:
        return PolicyVerdict("n/a", "the policy pack (policies/) is not available")
    verdicts = evaluate(from_plan(plan))
    failed = [v for v in verdicts if v.status == "fail"]
    blocking = [v.policy for v in verdicts if v.blocking]
    detail = "; ".join(f"{v.policy}: {v.violations[0].message}" if v.violations else v.policy
                       for v in failed)
    return PolicyVerdict(
        verdict="fail" if blocking else ("warn" if failed else "pass"),
        detail=detail or f"{sum(v.status == 'pass' for v in verdicts)} policies pass",
        failed=[v.policy for v in failed], blocking=blocking,
        checked=sum(v.status in ("pass", "fail") for v in verdicts))


# --------------------------------------------------------------------------- data sizes

def data_sizes(workload: Workload, tokens: Optional[float], bucket_gb: Optional[float],
               transfer_gb: Optional[float]) -> DataSizes:
    """The bucket from the one data-size model (components/catalog/data_sizes.py, the figure the
    spend-limit policy prices too); the transfer is one download of the trained result."""
    model = catalog_data_sizes(workload.n_params, tokens, workload.method)
    result_params = workload.n_params if workload.method == "full" else workload.adapter_params
    result_gb = result_params * BYTES_PER_WEIGHT / 1e9
    for name, value in (("bucket_gb", bucket_gb), ("transfer_gb", transfer_gb)):
        if value is not None:
            sizing._in_range(name, value, 0, 1e9, "Give gigabytes, e.g. 500.", low_open=False)
    return DataSizes(
        dataset_gb=model.dataset_gb, model_gb=model.model_gb,
        checkpoint_gb=model.checkpoint_gb, result_gb=result_gb,
        bucket_gb=model.bucket_gb if bucket_gb is None else float(bucket_gb),
        bucket_note="--bucket-gb" if bucket_gb is not None else model.note(),
        transfer_gb=result_gb if transfer_gb is None else float(transfer_gb),
        transfer_note=("--transfer-gb" if transfer_gb is not None else
                       f"one download of the trained "
                       f"{'model' if workload.method == 'full' else 'LoRA adapter'} "
                       f"({result_params:,.0f} params x {BYTES_PER_WEIGHT} B = "
                       f"{result_gb:,.3f} GB) to the internet; dataset upload is ingress "
                       f"(not charged); free allowances not deducted"))


def no_workload_sizes(bucket_gb: Optional[float], transfer_gb: Optional[float]) -> DataSizes:
    """Without a workload nothing says what the bucket holds or what leaves: zero unless given."""
    for name, value in (("bucket_gb", bucket_gb), ("transfer_gb", transfer_gb)):
        if value is not None:
            sizing._in_range(name, value, 0, 1e9, "Give gigabytes, e.g. 500.", low_open=False)
    return DataSizes(
        bucket_gb=float(bucket_gb or 0.0),
        bucket_note="--bucket-gb" if bucket_gb is not None else
        "no workload in the spec: bucket contents unknown (pass --bucket-gb)",
        transfer_gb=float(transfer_gb or 0.0),
        transfer_note="--transfer-gb" if transfer_gb is not None else
        "no workload in the spec: no download assumed (pass --transfer-gb)")


# --------------------------------------------------------------------------- one cloud

def cloud_row(spec, spec_path: Path, cloud: str, sizes: DataSizes, *, display: str,
              fx: dict[str, Any], idle_overhead: float,
              preemption_overhead: float) -> CompareRow:
    """The compare row of one configured cloud."""
    from trainstack_components import base
    if cloud not in base.implemented_clouds():
        return CompareRow(cloud, NOT_IMPLEMENTED_STATUS, NOT_IMPLEMENTED)
    from trainstack.plan.engine import render
    from trainstack.plan.stacks import spec_file_config
    try:
        plan = render(spec_file_config(spec_path, cloud), stack=cloud)
    except SpecError as problem:  # a missing provider SDK too: its message names the extra
        return CompareRow(cloud, ERROR, str(problem))

    sel = plan.inputs.selection
    itype = sel.instance
    wl = spec.workload
    row = CompareRow(cloud, OK)
    row.notes.extend(plan.warnings)  # missing stack config (trainstack/plan/required_config.py)
    gpus = sel.gpus
    fabric = itype.fabric if sel.use_rdma else "tcp"
    row.hours_note = "no workload in the spec: no hours or run cost, only the rates"
    if wl is not None:
        w = Workload.from_spec(wl, gpus=gpus)
        model = gpu_catalog.get_gpu_model(itype.gpu)
        est = sizing.estimate(w, wl.train_tokens, gpu=model, gpu_models={model.name: model},
                              mfu=wl.mfu, fabric=fabric, gpus_per_node=itype.gpu_count)
        row.peak_tflops, row.mfu = est.peak_tflops, wl.mfu
        row.scaling_efficiency, row.hours, row.hours_note = (
            est.scaling_efficiency, est.hours, est.hours_note)
        row.fits, row.min_gpus = est.fits, est.min_gpus
        row.per_gpu_bytes_total = est.per_gpu_bytes["total"]
        if est.fits is False:
            row.fit_note = (f"does not fit {gpus} x {itype.gpu}: needs {est.min_gpus} GPUs"
                            if est.min_gpus is not None else est.min_gpus_note)
    factor = conversion_factor("USD", display, fx)
    # The cloud's own capacity (clouds.<cloud>.capacity, else the top-level spot shorthand):
    # the price every number of the row uses, and the row says which one it is.
    hourly = sel.price.hourly(sel.spot)
    row.region, row.zone, row.instance_type, row.nodes = (
        sel.region, sel.zone, itype.name, spec.nodes)
    row.gpu, row.gpus, row.interconnect, row.fabric, row.rdma = (
        itype.gpu, gpus, sel.fabric_note, fabric, sel.use_rdma)
    row.spot, row.capacity, row.priced_as = sel.spot, sel.capacity.type, priced_as(sel)
    row.usd_per_hour, row.price_per_hour = sel.usd_per_hour, sel.usd_per_hour * factor
    row.price_source, row.price_as_of = sel.price.source, sel.price.as_of
    row.policy = policy_verdict(plan)
    if sel.passed_over:
        row.passed_over = list(sel.passed_over)
        row.notes.append("passed over: " + "; ".join(sel.passed_over))
    if row.priced_as not in ("on-demand list price", "spot price") and sel.spot:
        row.notes.append(f"spot: {row.priced_as}")
    elif row.priced_as not in ("on-demand list price", "spot price"):
        row.notes.append(f"capacity {sel.capacity.type}: {row.priced_as}")
    if row.fit_note is not None:
        row.notes.append(row.fit_note)

    # storage and transfer prices, from the plan's own filesystem
    cny = fx["cny_per_usd"]
    capacity = plan.outputs.get("filesystem_capacity_gib")
    tier = plan.outputs.get("filesystem_throughput_mbps_per_tib")
    product, fs_price = run_prices.filesystem_price(cloud, (r.type for r in plan.resources),
                                                    tier, sel.region, cny)
    if capacity is None:
        fs_price = run_prices.RunPrice("filesystem", None, "usd_per_gib_month",
                                       note="the plan exports no filesystem_capacity_gib")
    bucket = run_prices.bucket_price(cloud, sel.region, cny)
    egress = run_prices.egress_price(cloud, sel.region, cny)
    row.filesystem = FilesystemLine(product, capacity, tier, fs_price)
    row.bucket = PricedAmount(sizes.bucket_gb, bucket)
    row.transfer = PricedAmount(sizes.transfer_gb, egress)
    missing = [p.what for p in (fs_price, bucket, egress) if p.missing]
    row.unpriced = [f"{product} {capacity:,} GiB at {tier} MB/s/TiB" if p.what == "filesystem"
                    and capacity else p.what for p in (fs_price, bucket, egress) if p.missing]
    for p in (fs_price, bucket, egress):
        if p.note:
            row.notes.append(f"{p.what}: {p.note}")

    priced = dict(
        filesystem_gib=capacity or 0, filesystem_price_per_gib_month=fs_price.value or 0,
        bucket_gb=sizes.bucket_gb, bucket_price_per_gb_month=bucket.value or 0)
    row.monthly_run_rate = sizing.monthly_run_rate(
        nodes=spec.nodes, price_per_node_hour=hourly, **priced) * factor
    if row.hours is None:
        row.notes.append(f"no cost: {row.hours_note}")
        return row
    cost = sizing.run_cost(nodes=spec.nodes, price_per_node_hour=hourly, hours=row.hours,
                           transfer_gb=sizes.transfer_gb,
                           transfer_price_per_gb=egress.value or 0,
                           idle_overhead=idle_overhead, spot=_spot_discounted(sel),
                           preemption_overhead=preemption_overhead, currency="USD",
                           max_hours=spec.lifetime_hours, **priced)
    if factor != 1.0:
        cost = cost.converted(factor, display)
    row.cost = RowCost(cost, complete=not missing, missing=missing)
    note = cost.lifetime_note()
    if note is not None:
        row.notes.append(note)
    return row


def _spot_discounted(sel) -> bool:
    return sizing.spot_discounted(sel.spot, sel.price.ondemand_usd_hr, sel.price.spot_usd_hr)


# --------------------------------------------------------------------------- marks

def mark_best(rows: list[CompareRow]) -> dict[str, list[str]]:
    """Set `cheapest` / `fastest` on the rows with the lowest total cost / hours, among the
    rows that were planned, fit the GPUs and have the number; ties are all marked. `cheapest`
    needs a fully priced total that no partly priced one (a lower bound) could undercut."""
    candidates = [r for r in rows if r.ok and r.fits]
    for r in rows:
        r.cheapest = r.fastest = False
    # A total with an unpriced part (+?) is only a lower bound: it is never called the
    # cheapest, and a priced total is the cheapest only if no such bound undercuts it.
    totals = [(r, r.cost.total) for r in candidates if r.cost.total is not None]
    bounds = [t for r, t in totals if not r.cost.complete]
    cheapest = _lowest([(r, t) for r, t in totals if r.cost.complete], bounds)
    fastest = _lowest([(r, r.hours) for r in candidates if r.hours is not None], [])
    for r in cheapest:
        r.cheapest = True
    for r in fastest:
        r.fastest = True
    return {"cheapest": [r.cloud for r in cheapest], "fastest": [r.cloud for r in fastest]}


def _lowest(known: list[tuple[CompareRow, float]], bounds: list[float]) -> list[CompareRow]:
    """The rows at the lowest value (ties all), or none when a lower bound undercuts it."""
    if not known:
        return []
    low = min(v for _, v in known)
    if bounds and min(bounds) < low:
        return []
    return [r for r, v in known if v == low]


# --------------------------------------------------------------------------- whole spec

def compare(spec_path: Path, *, currency: str = "USD", cny_rate: Optional[float] = None,
            bucket_gb: Optional[float] = None, transfer_gb: Optional[float] = None,
            idle_overhead: float = sizing.DEFAULT_IDLE_OVERHEAD,
            preemption_overhead: float = sizing.DEFAULT_PREEMPTION_OVERHEAD,
            clouds: Optional[Collection[str]] = None) -> Comparison:
    """Everything `trainstack compare` prints (`.as_json()` is the --json document). `clouds`:
    only those of the spec's clouds (the trial's candidates); the others are never rendered, so
    they cost nothing (a render is 0.5-3 CPU s with its provider SDK's import)."""
    from trainstack_components.spec import load_spec
    spec = load_spec(spec_path)
    display = check_currency(currency)
    fx = fx_rate(cny_rate)
    for name, value in (("idle_overhead", idle_overhead),
                        ("preemption_overhead", preemption_overhead)):
        sizing._in_range(name, value, 0, 10, "It is a fraction, e.g. 0.15 for 15%.",
                         low_open=False)
    wl = spec.workload
    if wl is not None:
        sizes = data_sizes(Workload.from_spec(wl, gpus=1), wl.train_tokens, bucket_gb,
                           transfer_gb)
    else:
        # No workload: the cluster's rates only (hours and run cost stay empty).
        sizes = no_workload_sizes(bucket_gb, transfer_gb)
    rows = [cloud_row(spec, spec_path, cloud, sizes, display=display, fx=fx,
                      idle_overhead=idle_overhead, preemption_overhead=preemption_overhead)
            for cloud in spec.clouds.configured() if clouds is None or cloud in clouds]
    any_spot = any(r.spot for r in rows)
    best = mark_best(rows)
    workload = WorkloadSummary(nodes=spec.nodes, spot=spec.spot, gpu=list(spec.gpu))
    if wl is not None:
        workload.params, workload.method, workload.precision = (
            wl.model_params, wl.method, wl.precision)
        workload.train_tokens, workload.mfu = wl.train_tokens, wl.mfu
    return Comparison(
        spec=str(spec_path), name=spec.name, currency=display, fx=fx, workload=workload,
        assumptions=Assumptions(
            sizes=sizes, bytes_per_token=BYTES_PER_TOKEN, idle_overhead=idle_overhead,
            preemption_overhead=preemption_overhead if any_spot else None,
            scaling_efficiency=dict(sizing.SCALING_EFFICIENCY),
            hours_per_month=sizing.HOURS_PER_MONTH),
        clouds=rows, cheapest=best["cheapest"], fastest=best["fastest"])


# --------------------------------------------------------------------------- printing

def _money(value: Optional[float], cur: str, complete: bool = True) -> str:
    if value is None:
        return "-"
    return f"{value:,.2f} {cur}" + ("" if complete else " +?")


def print_compare(result: Comparison, console: Optional[Console] = None) -> None:
    console = console or out
    rows, cur = result.clouds, result.currency
    wl = result.workload
    what = (f"{wl.method}, {human_params(wl.params)} params, "
            f"{human_params(wl.train_tokens or 0)} tokens, " if wl.params is not None
            else "no workload: rates only, ")
    table = Table(title=f"trainstack compare: {result.name} ({what}"
                        f"{wl.nodes} node(s))")
    table.add_column("")
    for r in rows:
        marks = " ".join(m for m, on in (("cheapest", r.cheapest), ("fastest", r.fastest)) if on)
        table.add_column(r.cloud + (f"\n[bold green]{marks}[/]" if marks else ""),
                         overflow="fold")

    def short(r: CompareRow) -> str:
        return NOT_IMPLEMENTED if r.status == NOT_IMPLEMENTED_STATUS else (
            "not rendered: SDK not installed (below)" if _sdk_missing(r) else
            "selection failed (below)")

    def line(label: str, fn: Callable[[CompareRow], Optional[str]]) -> None:
        table.add_row(label, *[(fn(r) if r.ok else (short(r) if label == "status" else ""))
                               for r in rows])

    def fs(r: CompareRow) -> str:
        f = r.filesystem
        return "-" if f is None or not f.capacity_gib else (
            f"{f.product}: {f.capacity_gib:,} GiB, {f.throughput_mbps_per_tib} MB/s/TiB "
            f"({f.throughput_mbps or 0:,.0f} MB/s)")

    line("status", lambda r: "ok")
    line("region", lambda r: r.region)
    line("instance type", lambda r: f"{r.nodes} x {r.instance_type}")
    line("GPU", lambda r: f"{r.gpus} x {r.gpu}"
         + (" [red](does not fit)[/]" if r.fits is False else ""))
    line("interconnect", lambda r: r.interconnect)
    line("capacity", lambda r: (r.capacity or "").replace("_", " ") + (
        "" if r.priced_as in ("on-demand list price", "spot price")
        else " (on-demand list price)"))
    line(f"{cur}/h", lambda r: _money(r.price_per_hour, cur))
    line("hours", lambda r: "-" if r.hours is None else
         f"{r.hours:,.2f} (billed {r.cost.billed_hours or 0:,.2f})")
    line("compute", lambda r: _money(r.cost.compute, cur))
    line("storage", lambda r: _money(r.cost.storage, cur,
                                     "filesystem" not in r.cost.missing
                                     and "bucket" not in r.cost.missing))
    line("transfer", lambda r: _money(r.cost.transfer, cur, "transfer" not in r.cost.missing))
    line("total", lambda r: _money(r.cost.total, cur, r.cost.complete))
    line("monthly run-rate", lambda r: _money(r.monthly_run_rate, cur, r.run_rate_complete()))
    line("filesystem", fs)
    line("policy", lambda r: r.policy.verdict + (
        f" ({', '.join(r.policy.failed)})" if r.policy.failed else ""))
    console.print(table)
    a, sizes = result.assumptions, result.assumptions.sizes
    console.print(f"assumptions: bucket {sizes.bucket_gb:,.2f} GB ({sizes.bucket_note}); "
                  f"transfer {sizes.transfer_gb:,.3f} GB ({sizes.transfer_note}); idle/debug "
                  f"overhead {a.idle_overhead:.0%} of the run"
                  + (f", spot preemption overhead {a.preemption_overhead:.0%}"
                     if a.preemption_overhead is not None else "")
                  + "; hours = FLOPs / (GPUs x dense peak x MFU) / scaling efficiency "
                  "(1.0 on one node, 0.9 across RDMA nodes, 5/8 across TCP nodes); "
                  "monthly run-rate = the cluster left running 730 h.", highlight=False)
    console.print("+? = a price the catalog does not cite is left out (see the notes). "
                  "policy = the policy pack on the offline plan (`trainstack check` for the "
                  "details): fail = a mandatory policy fails, warn = an advisory one.",
                  highlight=False)
    caveat = cheapest_caveat(result)
    if caveat:
        console.print(caveat, highlight=False, markup=False)
    if cur != "USD" or any("CNY" in note for r in rows for note in r.notes):
        console.print(f"exchange rate: {result.fx['cny_per_usd']:g} CNY per USD "
                      f"({result.fx['source']})", highlight=False)
    for r in rows:
        if r.status == ERROR:
            failure = "not rendered" if _sdk_missing(r) else "selection failed"
            console.print(f"{r.cloud}: {failure}: {r.message}", highlight=False, markup=False)
        if r.policy.failed:
            console.print(f"{r.cloud}: policy: {r.policy.detail}", highlight=False, markup=False)
        if r.unpriced:
            console.print(f"{r.cloud}: unpriced: {'; '.join(r.unpriced)}", highlight=False,
                          markup=False)
        for note in r.notes:
            console.print(f"{r.cloud}: {note}", highlight=False, markup=False)
        if r.ok:
            # an undated price row says so here ("unknown (...)"), next to the figures it gave
            console.print(f"{r.cloud}: node price {r.price_source} (as of "
                          f"{r.price_as_of})", highlight=False, markup=False)


# --------------------------------------------------------------------------- command

def compare_command(
    spec: Path = typer.Option(..., "--spec", help="The cluster.yaml whose clouds to compare."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object."),
    html: Optional[Path] = typer.Option(None, "--html", help="Also write a self-contained HTML "
                                        "report with cost and time charts."),
    currency: str = typer.Option("USD", "--currency", help="USD | CNY"),
    cny_rate: Optional[float] = CnyRateOpt,
    bucket_gb: Optional[float] = typer.Option(None, "--bucket-gb", help="Bucket contents in "
                                              "GB (default: dataset + starting weights)."),
    transfer_gb: Optional[float] = typer.Option(None, "--transfer-gb", help="Internet egress "
                                                "in GB (default: the trained result once)."),
    idle_overhead: float = IdleOverheadOpt,
    preemption_overhead: float = PreemptionOverheadOpt,
    measured: bool = typer.Option(False, "--measured", help="Use `trainstack bench` results "
                                  "(tokens/s, scaling efficiency) beside the assumed ones."),
    bench: Optional[list[Path]] = typer.Option(None, "--bench", help="Bench result files or "
                                               "folders (default: bench-results/)."),
):
    """Price the spec's planned run on every configured cloud: hours, cost, cheapest, fastest."""
    from trainstack.console import check_output_file
    check_output_file(html, "--html")  # before anything is computed or printed
    result = compare(spec, currency=currency, cny_rate=cny_rate, bucket_gb=bucket_gb,
                     transfer_gb=transfer_gb, idle_overhead=idle_overhead,
                     preemption_overhead=preemption_overhead)
    if measured or bench:  # issue 22: trainstack/cost/measured.py
        from trainstack.cost.measured import attach, print_measured
        attach(result, bench)
    if html is not None:
        from trainstack.cost.report import render_html
        html.write_text(render_html(result), encoding="utf-8")
    if as_json:
        print(json.dumps(result.as_json(), indent=2, sort_keys=True))
    else:
        print_compare(result)
        if result.measured is not None:
            print_measured(result, out)
        if html is not None:
            out.print(f"report: {html}", highlight=False)
    # The comparison is printed whole, but a cloud that could not be planned (its selection
    # failed, or its provider SDK is not installed) makes it incomplete: a script (or CI)
    # reading the exit code must not take it as a full answer.
    uninstalled = [r.cloud for r in result.clouds if _sdk_missing(r)]
    failed = [r.cloud for r in result.clouds if r.status == ERROR and r.cloud not in uninstalled]
    if uninstalled:
        extras = ",".join(uninstalled)
        err.print(f"error: compare could not render {', '.join(uninstalled)}: the provider SDK "
                  f"is not installed; add it with pip install 'trainstack[{extras}]' (from a "
                  f"checkout: pip install -e '.[{extras}]'), or remove "
                  f"{'that cloud' if len(uninstalled) == 1 else 'those clouds'} from the spec.",
                  markup=False, highlight=False)
    if failed:
        err.print(f"error: compare could not plan {', '.join(failed)} (see 'selection failed' "
                  "above); fix those clouds' sections of the spec or remove them.",
                  markup=False, highlight=False)
    if uninstalled or failed:
        raise typer.Exit(1)


def _sdk_missing(row: CompareRow) -> bool:
    """A row whose cloud was not rendered because its provider SDK is not installed."""
    from trainstack_components.clouds import MissingCloudSdk
    return row.status == ERROR and MissingCloudSdk.said(row.cloud, row.message or "")
