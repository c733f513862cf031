"""`trainstack estimate`: memory per GPU, FLOPs, hours and (given a price) the run's cost.

The workload comes from `--spec FILE` (its `workload` section, `gpu` list and `nodes`) or from
flags; a flag always overrides the spec. The arithmetic is trainstack/cost/sizing.py's; this module
only gathers the inputs, applies the bad-input rules of issue 5 and prints.

Defaults when a spec gives them and no flag does: GPUs = nodes x --gpus-per-node (8), GPU model
= the first in the spec's `gpu` preference list that the workload fits at some GPU count (the
ones passed over are named), fabric = tcp when `interconnect: tcp`, else rdma. Without a spec: one
GPU, no GPU model (the fit table still covers every catalog model), fabric rdma.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

import typer
from rich.console import Console, JustifyMethod
from rich.table import Table

from trainstack.cost import sizing
from trainstack.cost.options import CnyRateOpt, IdleOverheadOpt, PreemptionOverheadOpt
from trainstack.cost.estimate_records import EstimateResult, PricePerGpuHour, SizingEstimate
from trainstack.cost.money import (  # noqa: F401  (re-exported: estimate's old public names)
    CURRENCIES,
    check_currency,
    conversion_factor,
    fx_rate,
    human_params,
    priced_as,
)
from trainstack.cost.sizing import SizingError, Workload
from trainstack_components.catalog import gpu_models as gpu_catalog
from trainstack_components.memory import PRESETS

out = Console(soft_wrap=True)

GB = 1e9


# --------------------------------------------------------------------------- inputs

def _spec_fields(spec_path: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """(Workload fields, other defaults) from a cluster.yaml."""
    from trainstack_components.spec import load_spec
    spec = load_spec(spec_path)
    other: dict[str, Any] = {"nodes": spec.nodes, "gpu_list": list(spec.gpu),
                             "fabric": "tcp" if spec.interconnect == "tcp" else "rdma",
                             "max_hours": spec.lifetime_hours}
    if spec.workload is None:
        return {}, other
    wl = spec.workload
    fields = dict(params=wl.model_params, method=wl.method, precision=wl.precision,
                  zero_stage=wl.zero_stage, seq_len=wl.seq_len, micro_batch=wl.micro_batch,
                  layers=wl.layers, hidden=wl.hidden, heads=wl.heads, recompute=wl.recompute,
                  lora_rank=wl.lora_rank, attention=wl.attention)
    other.update(tokens=wl.train_tokens, mfu=wl.mfu)
    return fields, other


@dataclass(frozen=True)
class EstimateRequest:
    """What `trainstack estimate` was asked: the spec and every flag (None = not given, so the
    spec's value or the default applies)."""
    spec: Optional[Path] = None
    params: Optional[float] = None
    preset: Optional[str] = None
    method: Optional[str] = None
    precision: Optional[str] = None
    zero_stage: Optional[int] = None
    gpus: Optional[int] = None
    gpu: Optional[str] = None
    seq_len: Optional[int] = None
    micro_batch: Optional[int] = None
    layers: Optional[int] = None
    hidden: Optional[int] = None
    heads: Optional[int] = None
    recompute: Optional[bool] = None
    recompute_mode: Optional[str] = None
    lora_rank: Optional[int] = None
    attention: Optional[str] = None
    tokens: Optional[float] = None
    mfu: Optional[float] = None
    flops_factor: Optional[float] = None
    peak_tflops: Optional[float] = None
    scaling_efficiency: Optional[float] = None
    fabric: Optional[str] = None
    gpus_per_node: int = 8
    headroom: float = sizing.DEFAULT_HEADROOM
    price_per_gpu_hour: Optional[float] = None
    price_currency: str = "USD"
    currency: Optional[str] = None
    cny_rate: Optional[float] = None
    idle_overhead: float = sizing.DEFAULT_IDLE_OVERHEAD
    spot: bool = False
    preemption_overhead: float = sizing.DEFAULT_PREEMPTION_OVERHEAD
    cloud: Optional[str] = None


def build_estimate(req: EstimateRequest) -> EstimateResult:
    """Everything `trainstack estimate` prints (`.as_json()` is the --json document). Raises
    SizingError/SpecError on bad input, including a workload that fits the GPU (or, with no GPU
    named, any catalog GPU) at no GPU count."""
    # The fields the body refines (the selection, the spec and the defaults fill them in).
    gpu, gpus, gpus_per_node, fabric = req.gpu, req.gpus, req.gpus_per_node, req.fabric
    tokens, mfu, spot = req.tokens, req.mfu, req.spot
    price_per_gpu_hour, price_currency = req.price_per_gpu_hour, req.price_currency
    fields: dict[str, Any] = {}
    other: dict[str, Any] = {}
    if req.spec is not None:
        fields, other = _spec_fields(req.spec)
    flags = dict(params=req.params, method=req.method, precision=req.precision, zero_stage=req.zero_stage,
                 seq_len=req.seq_len, micro_batch=req.micro_batch, layers=req.layers, hidden=req.hidden,
                 heads=req.heads, lora_rank=req.lora_rank, preset=req.preset, attention=req.attention)
    if req.recompute_mode is not None:
        flags["recompute"] = req.recompute_mode
    elif req.recompute is not None:
        flags["recompute"] = req.recompute
    if req.preset is not None and req.params is None:
        fields.pop("params", None)   # the preset's parameter count, not the spec's
    if req.preset is not None or req.layers is not None or req.hidden is not None or req.heads is not None:
        for dim in ("layers", "hidden", "heads"):   # a shape from flags replaces the spec's
            fields.pop(dim, None)
    fields.update({k: v for k, v in flags.items() if v is not None})

    gpus_per_node = sizing._positive_int("gpus_per_node", gpus_per_node, 1024)
    selection = None
    if req.cloud is not None:
        if req.spec is None:
            raise SizingError("--cloud", "needs --spec: the cloud's selection reads the spec.")
        # The one selection plan/check/compare use: instance type, GPU model and count.
        from trainstack_components.base import get_cloud
        from trainstack_components.spec import load_spec
        selection = get_cloud(req.cloud).select(load_spec(req.spec))
        gpu = gpu if gpu is not None else selection.instance.gpu
        gpus = gpus if gpus is not None else selection.gpus
        gpus_per_node = selection.instance.gpu_count
        fabric = fabric if fabric is not None else (
            "rdma" if selection.use_rdma else "tcp")
    if gpus is None:
        gpus = other["nodes"] * gpus_per_node if "nodes" in other else 1
    w = Workload(gpus=gpus, **fields)
    tokens = tokens if tokens is not None else other.get("tokens")   # None: memory only
    mfu = mfu if mfu is not None else other.get("mfu", sizing.DEFAULT_MFU)
    fabric = fabric if fabric is not None else other.get("fabric", "rdma")
    sizing.fabric_class(fabric)
    models = gpu_catalog.load_gpu_models()
    gpu_note = None
    if gpu is not None:
        gpu_model = gpu_catalog.get_gpu_model(gpu, models)
    elif other.get("gpu_list"):
        gpu_model, gpu_note = _first_gpu_that_fits(w, other["gpu_list"], models, req.headroom)
    else:
        gpu_model = None

    sized = sizing.estimate(w, tokens, gpu=gpu_model, gpu_models=models,
                            peak_tflops=req.peak_tflops, mfu=mfu, flops_factor=req.flops_factor,
                            scaling_efficiency=req.scaling_efficiency, gpus_per_node=gpus_per_node,
                            fabric=fabric, headroom=req.headroom)
    result = EstimateResult(sized, spec=str(req.spec) if req.spec is not None else None, currency="USD",
                            fx=None, cost_note="pass --price-per-gpu-hour to price the run; "
                            "`trainstack compare --spec` prices it on every cloud")
    result.fit_note = _what_never_fits(w, sized, models, gpu_model, req.headroom)
    if selection is not None:
        gpu_note = (f"{req.cloud}: {selection.nodes} x {selection.instance.name} (the selection "
                    f"plan, check and compare use)"
                    + ("; passed over: " + "; ".join(selection.passed_over)
                       if selection.passed_over else ""))
    result.gpu_note = gpu_note if gpu_note is None or result.fit_note is None else (
        gpu_note + "; " + result.fit_note)

    # With --cloud the price is the selection's, at the capacity the spec gives that cloud
    # (clouds.<cloud>.capacity, else the top-level spot shorthand), unless a price is passed.
    result.capacity = selection.capacity.type if selection is not None else None
    if selection is not None:
        # A catalog spot price that is no discount is priced like on-demand (no preemption
        # overhead): spot must never come out dearer than on-demand for the same row.
        spot = sizing.spot_discounted(spot or selection.spot, selection.price.ondemand_usd_hr,
                                      selection.price.spot_usd_hr)
        if price_per_gpu_hour is None:
            price_per_gpu_hour = (selection.price.hourly(selection.spot)
                                  / selection.instance.gpu_count)
            price_currency = "USD"
            result.priced_as = (f"{req.cloud} catalog, {selection.instance.name} in "
                                   f"{selection.region}, capacity "
                                   f"{selection.capacity.type}: {priced_as(selection)} "
                                   f"(price as of {selection.price.as_of})")

    price_currency = check_currency(price_currency, "price_currency")
    display = check_currency(req.currency if req.currency is not None else price_currency)
    fx = fx_rate(req.cny_rate)
    result.currency = display
    result.fx = fx if (display != "USD" or price_currency != "USD"
                       or req.cny_rate is not None) else None
    max_hours = other.get("max_hours")
    result.max_hours = max_hours
    if max_hours is not None and sized.hours is not None:
        needed = sizing.run_cost(nodes=1, price_per_node_hour=0, hours=sized.hours,
                                 idle_overhead=req.idle_overhead, spot=spot,
                                 preemption_overhead=req.preemption_overhead, max_hours=max_hours)
        result.lifetime_note = needed.lifetime_note()
    if price_per_gpu_hour is not None:
        # checked under its own name: run_cost would report it as price_per_node_hour
        from trainstack.cost.sizing_cost import _price
        _price("price_per_gpu_hour", price_per_gpu_hour)
        if sized.hours is None:
            result.cost_note = "no hours, so no cost: " + (sized.hours_note or "")
        else:
            cost = sizing.run_cost(nodes=w.gpus, price_per_node_hour=price_per_gpu_hour,
                                   hours=sized.hours, idle_overhead=req.idle_overhead,
                                   spot=spot, preemption_overhead=req.preemption_overhead,
                                   currency=price_currency, max_hours=max_hours)
            factor = conversion_factor(price_currency, display, fx)
            if factor != 1.0:
                cost = cost.converted(factor, display)
            result.price_per_gpu_hour = PricePerGpuHour(price_per_gpu_hour, price_currency)
            result.cost = cost
            result.cost_note = (f"{w.gpus} GPUs x {price_per_gpu_hour:g} {price_currency}/GPU-h"
                                + f" x {cost.billed_hours:.2f} billed h (idle/debug "
                                f"overhead {req.idle_overhead:.0%}"
                                + (f", spot preemption overhead {req.preemption_overhead:.0%}"
                                   if spot else "") + ")"
                                + (f", converted at {fx['cny_per_usd']:g} CNY/USD"
                                   if factor != 1.0 else "")
                                + (f"; price: {result.priced_as}"
                                   if result.priced_as else ""))
    return result


def _what(w: Workload) -> str:
    return (f"{w.method} training of a {human_params(w.n_params)} model ({w.precision}, "
            f"ZeRO stage {w.zero_stage}, micro-batch {w.micro_batch}, seq {w.seq_len})")


def _first_gpu_that_fits(w: Workload, names: list[str], models: dict,
                         headroom: float) -> tuple[Any, Optional[str]]:
    """The spec's `gpu` is a preference list: take the first model the workload fits at some
    GPU count, saying which were passed over and why. When none fits, the first is kept so the
    breakdown still prints (and the command exits 1)."""
    skipped: list[str] = []
    for name in names:
        model = gpu_catalog.get_gpu_model(name, models)
        if sizing.min_gpus_that_fit(w, model.memory_bytes, headroom) is not None:
            note = None
            if skipped:
                note = (f"{model.name} is the first GPU in the spec's list that fits; passed "
                        f"over: " + "; ".join(skipped))
            return model, note
        skipped.append(f"{model.name} ({sizing.no_fit_reason(w, model.memory_bytes, headroom)})")
    first = gpu_catalog.get_gpu_model(names[0], models)
    return first, f"{_what(w)} fits none of the spec's GPUs at any count: " + "; ".join(skipped)


def _what_never_fits(w: Workload, sized: SizingEstimate, models: dict, gpu_model,
                     headroom: float) -> Optional[str]:
    """A workload that fits at no GPU count is an answer, not bad input: `fits` is set false,
    `min_gpus` stays null, and the note returned says why and what would change it (the
    command exits 1). None when it fits at some count."""
    what = _what(w)
    if gpu_model is not None and sized.min_gpus is None:
        sized.fits = False
        return f"{what} on {gpu_model.name} {sized.min_gpus_note}"
    if gpu_model is None and all(v.min_gpus is None for v in sized.fits_by_gpu.values()):
        largest = max(models.values(), key=lambda m: m.memory_bytes)
        reason = sizing.no_fit_reason(w, largest.memory_bytes, headroom)
        sized.fits = False
        return (f"{what} fits no GPU model in the catalog; on the largest "
                f"({largest.name}, {largest.memory_gb:g} GB) it {reason}")
    return None


def _gb(n: Optional[float]) -> str:
    return "-" if n is None else f"{n / GB:,.1f} GB"


def _money(amount: Optional[float], currency: str) -> str:
    return "-" if amount is None else f"{amount:,.2f} {currency}"


def print_estimate(result: EstimateResult, console: Optional[Console] = None) -> None:
    console = console or out
    r = result.sizing
    wl = r.workload
    shape = wl.shape
    title = (f"trainstack estimate: {human_params(wl.params)} parameters, {wl.method}, "
             f"{wl.precision}, ZeRO stage {wl.zero_stage}, {wl.gpus} GPU(s)")
    mem = Table(title=title + "\nmemory per GPU")
    mem.add_column("term")
    mem.add_column("per GPU", justify="right")
    mem.add_column("bytes", justify="right")
    for key in ("weights", "gradients", "optimizer", "activations", "total"):
        mem.add_row(key if key != "total" else "[bold]total[/]", _gb(r.per_gpu_bytes[key]),
                    f"{r.per_gpu_bytes[key]:,}")
    console.print(mem)
    console.print(f"shape: {shape['layers']} layers, hidden {shape['hidden']}, {shape['heads']} "
                  f"heads ({shape['source']}); seq {wl.seq_len}, micro-batch "
                  f"{wl.micro_batch}, recompute {wl.recompute}"
                  + (f"; LoRA rank {wl.lora_rank}, {wl.adapter_params:,} adapter "
                     f"parameters" if wl.method != "full" else ""), highlight=False)

    fit = Table(title=f"fits per GPU model (keeping {r.headroom:.0%} of memory free)")
    columns: tuple[tuple[str, JustifyMethod], ...] = (
        ("GPU", "left"), ("memory", "right"), ("usable", "right"),
        (f"fits at {wl.gpus} GPU(s)", "center"), ("smallest GPU count", "right"))
    for col, just in columns:
        fit.add_column(col, justify=just)
    for name, row in r.fits_by_gpu.items():
        mark = " <-" if name == r.gpu else ""
        fit.add_row(name + mark, f"{row.memory_gb:g} GB",
                    f"{row.memory_gb * (1 - r.headroom):,.1f} GB",
                    "yes" if row.fits else "no",
                    str(row.min_gpus) if row.min_gpus is not None else "none")
    console.print(fit)
    if r.gpu is not None:
        smallest = r.min_gpus if r.min_gpus is not None else "none (see below)"
        console.print(f"smallest GPU count that fits on {r.gpu}: [bold]{smallest}[/]",
                      highlight=False)
    if result.gpu_note:
        console.print(f"note: {result.gpu_note}", highlight=False)
    if result.fit_note and result.fit_note not in (result.gpu_note or ""):
        console.print(f"[red]does not fit[/]: {result.fit_note}", highlight=False)

    time = Table(title="time")
    time.add_column("quantity")
    time.add_column("value", justify="right")
    time.add_row("training FLOPs", "-" if r.training_flops is None else
                 f"{r.training_flops:.4g} ({r.flops_factor or 0:g} x params x tokens)")
    time.add_row("tokens", "-" if wl.tokens is None else f"{wl.tokens:.4g}")
    time.add_row("peak per GPU", "-" if r.peak_tflops is None else
                 f"{r.peak_tflops:g} TFLOPS {wl.precision} ({r.peak_source})")
    time.add_row("MFU", f"{r.mfu:g}")
    time.add_row("scaling efficiency", f"{r.scaling_efficiency:g} ({r.nodes} node(s) of "
                 f"{r.gpus_per_node}, fabric {r.fabric})")
    time.add_row("[bold]hours[/]", "-" if r.hours is None else f"{r.hours:,.2f}")
    console.print(time)
    if r.hours_note:
        console.print(f"note: {r.hours_note}", highlight=False)
    if result.lifetime_note:
        console.print(f"[red]lifetime[/]: {result.lifetime_note}", highlight=False)

    if result.cost is not None:
        c, cur = result.cost, result.currency
        cost = Table(title=f"run cost ({cur})")
        cost.add_column("item")
        cost.add_column(cur, justify="right")
        cost.add_row("compute", _money(c.compute, cur))
        cost.add_row("  of which idle/preemption overhead", _money(c.overhead, cur))
        cost.add_row("[bold]total[/]", _money(c.total, cur))
        console.print(cost)
    console.print(f"cost: {result.cost_note}", highlight=False)
    if result.fx is not None:
        fx = result.fx
        console.print(f"exchange rate: {fx['cny_per_usd']:g} CNY per USD ({fx['source']}"
                      + (f", {fx['as_of']}" if fx["as_of"] else "") + ")", highlight=False)


# --------------------------------------------------------------------------- command

def estimate_command(
    spec: Optional[Path] = typer.Option(None, "--spec", help="Take the workload from this "
                                        "cluster.yaml (flags override it)."),
    cloud: Optional[str] = typer.Option(None, "--cloud", help="With --spec: the GPU type and "
                                        "count this cloud's selection plans (as plan/compare)."),
    params: Optional[float] = typer.Option(None, "--params", help="Model parameters, e.g. 13e9."),
    preset: Optional[str] = typer.Option(None, "--preset", help="Known model shape: "
                                         + ", ".join(PRESETS) + "."),
    method: Optional[str] = typer.Option(None, "--method", help="full | lora | qlora"),
    precision: Optional[str] = typer.Option(None, "--precision", help="bf16 | fp16 | fp8 | tf32"),
    zero_stage: Optional[int] = typer.Option(None, "--zero-stage", help="DeepSpeed ZeRO stage 0-3."),
    gpus: Optional[int] = typer.Option(None, "--gpus", help="Data-parallel GPUs (default: spec "
                                       "nodes x 8, else 1)."),
    gpu: Optional[str] = typer.Option(None, "--gpu", help="GPU model, e.g. H100, A100-80GB."),
    seq_len: Optional[int] = typer.Option(None, "--seq-len", help="Sequence length."),
    micro_batch: Optional[int] = typer.Option(None, "--micro-batch", help="Sequences per GPU "
                                              "per step."),
    layers: Optional[int] = typer.Option(None, "--layers", help="Transformer layers (with "
                                         "--hidden and --heads: a shape instead of --preset)."),
    hidden: Optional[int] = typer.Option(None, "--hidden", help="Hidden size (model width)."),
    heads: Optional[int] = typer.Option(None, "--heads", help="Attention heads."),
    recompute: Optional[bool] = typer.Option(None, "--recompute/--no-recompute",
                                             help="Full activation recomputation on/off."),
    recompute_mode: Optional[str] = typer.Option(None, "--recompute-mode",
                                                 help="none | selective | full"),
    lora_rank: Optional[int] = typer.Option(None, "--lora-rank", help="LoRA adapter rank "
                                            "(with --method lora or qlora)."),
    attention: Optional[str] = typer.Option(None, "--attention", help="sdpa (fused kernels, "
                                            "default) | eager (unfused: stores the s x s "
                                            "scores)."),
    tokens: Optional[float] = typer.Option(None, "--tokens", help="Training tokens, e.g. 1e8."),
    mfu: Optional[float] = typer.Option(None, "--mfu", help="Model FLOPs utilisation in (0, 1]; "
                                        "default 0.4."),
    flops_factor: Optional[float] = typer.Option(None, "--flops-factor", help="FLOPs per "
                                                 "parameter per token (default 6 full, 4 LoRA)."),
    peak_tflops: Optional[float] = typer.Option(None, "--peak-tflops", help="Override the GPU's "
                                                "datasheet dense peak."),
    scaling_efficiency: Optional[float] = typer.Option(None, "--scaling-efficiency",
                                                       help="Override the fabric default."),
    fabric: Optional[str] = typer.Option(None, "--fabric", help="rdma | tcp (for the default "
                                         "scaling efficiency across nodes)."),
    gpus_per_node: int = typer.Option(8, "--gpus-per-node"),
    headroom: float = typer.Option(sizing.DEFAULT_HEADROOM, "--headroom",
                                   help="Fraction of GPU memory kept free."),
    price_per_gpu_hour: Optional[float] = typer.Option(None, "--price-per-gpu-hour",
                                                       help="Price one GPU-hour (in "
                                                       "--price-currency)."),
    price_currency: str = typer.Option("USD", "--price-currency", help="USD | CNY"),
    currency: Optional[str] = typer.Option(None, "--currency", help="Show costs in USD or CNY "
                                           "(default: the price's currency)."),
    cny_rate: Optional[float] = CnyRateOpt,
    idle_overhead: float = IdleOverheadOpt,
    spot: bool = typer.Option(False, "--spot", help="Spot price: add the preemption overhead."),
    preemption_overhead: float = PreemptionOverheadOpt,
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object."),
):
    """Memory per GPU, training FLOPs and hours for a workload (and its cost, given a price)."""
    result = build_estimate(EstimateRequest(
        spec=spec, params=params, preset=preset, method=method, precision=precision,
        zero_stage=zero_stage, gpus=gpus, gpu=gpu, seq_len=seq_len, micro_batch=micro_batch,
        layers=layers, hidden=hidden, heads=heads, recompute=recompute,
        recompute_mode=recompute_mode, lora_rank=lora_rank, attention=attention,
        tokens=tokens, mfu=mfu,
        flops_factor=flops_factor, peak_tflops=peak_tflops,
        scaling_efficiency=scaling_efficiency, fabric=fabric, gpus_per_node=gpus_per_node,
        headroom=headroom, price_per_gpu_hour=price_per_gpu_hour, price_currency=price_currency,
        currency=currency, cny_rate=cny_rate, idle_overhead=idle_overhead, spot=spot,
        preemption_overhead=preemption_overhead, cloud=cloud))
    if as_json:
        print(json.dumps(result.as_json(), indent=2, sort_keys=True))
    else:
        print_estimate(result)
    if result.sizing.fits is False and result.sizing.min_gpus is None:
        raise typer.Exit(1)   # an answer ("it does not fit"), not bad input (that is 2)
