"""`trainstack compare --html`: one self-contained page, no CDN, no fetches.

The compare result is embedded as JSON; a short inline script (written here, no library) draws
two SVG charts from it: the run's cost per cloud stacked by compute / storage / transfer, and
the estimated hours per cloud. When it has drawn them it records on <body> how many bars it drew
(`data-charts="drawn"`, `data-cost-bars`, `data-time-bars`), which is what the browser test
reads. The numbers are also in a plain HTML table, so the page reads without JavaScript.
"""
from __future__ import annotations

import html
import json
import re
from typing import Any, Callable, Optional

from trainstack.cost.compare_records import (
    ERROR,
    NOT_IMPLEMENTED_STATUS,
    CompareRow,
    Comparison,
    cheapest_caveat,
)
from trainstack.cost.money import human_params

COLORS = {"compute": "#2563eb", "storage": "#f59e0b", "transfer": "#059669", "hours": "#7c3aed"}

_TEMPLATE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>trainstack compare: __NAME__</title>
<style>
  body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #111827;
         background: #ffffff; margin: 24px 32px; max-width: 1100px; }
  h1 { font-size: 20px; margin: 0 0 4px; }
  h2 { font-size: 16px; margin: 24px 0 8px; }
  .sub { color: #4b5563; margin: 0 0 12px; }
  .chart svg { display: block; }
  .chart text { font: 12px system-ui, sans-serif; fill: #111827; }
  .chart .axis { stroke: #9ca3af; stroke-width: 1; }
  .chart .grid { stroke: #e5e7eb; stroke-width: 1; }
  .chart .muted { fill: #6b7280; }
  .chart .mark { fill: #047857; font-weight: 600; }
  .chart svg { width: 100%; height: auto; }
  table { border-collapse: collapse; margin-top: 8px; font-size: 13px; width: 100%;
          table-layout: fixed; }
  th, td { border: 1px solid #e5e7eb; padding: 4px 8px; text-align: left; vertical-align: top;
           overflow-wrap: anywhere; }
  th { background: #f9fafb; }
  ul.notes { color: #374151; padding-left: 20px; }
  .legend span { display: inline-block; margin-right: 16px; }
  .legend i { display: inline-block; width: 12px; height: 12px; margin-right: 4px;
              vertical-align: -1px; }
</style>
</head>
<body>
<h1>trainstack compare: __NAME__</h1>
<p class="sub">__SUBTITLE__</p>

<h2>Run cost per cloud (__CURRENCY__), by component</h2>
<div class="legend">__LEGEND__</div>
<div class="chart" id="cost-chart"></div>

<h2>Estimated training hours per cloud</h2>
<div class="chart" id="time-chart"></div>

<h2>Numbers</h2>
__TABLE__

<h2>Assumptions and notes</h2>
<ul class="notes">
__NOTES__
</ul>

<script type="application/json" id="compare-data">__DATA__</script>
<script>
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("compare-data").textContent);
  var colors = __COLORS__;
  var parts = ["compute", "storage", "transfer"];
  var NS = "http://www.w3.org/2000/svg";
  // Drawn at the width the page gives the chart (at most 960 px), never scaled down from a
  // wider drawing: a 960-unit chart shown 640 px wide set its 12 px labels at 8 px.
  var HOST = document.getElementById("cost-chart").clientWidth || 960;
  var W = Math.max(560, Math.min(960, HOST)), LABEL = 150, RIGHT = Math.min(330, Math.round(W * 0.34)),
      ROW = 40, BAR = 26, TOP = 10, AXIS = 28;

  function el(name, attrs, text) {
    var node = document.createElementNS(NS, name);
    for (var k in attrs) { node.setAttribute(k, attrs[k]); }
    if (text !== undefined) { node.textContent = text; }
    return node;
  }
  function fmt(v, digits) {
    return v.toLocaleString("en-US", {minimumFractionDigits: digits, maximumFractionDigits: digits});
  }
  function axis(v) {   // a 1-2-5 step and the multiple of it just above v
    if (!(v > 0)) { v = 1; }
    var raw = v / 4, p = Math.pow(10, Math.floor(Math.log(raw) / Math.LN10)), step = 10 * p;
    [1, 2, 5, 10].some(function (m) { if (m * p >= raw) { step = m * p; return true; } return false; });
    var n = Math.ceil(v / step - 1e-9);
    return {max: n * step, step: step, ticks: n,
            digits: step >= 1 ? 0 : Math.min(6, Math.ceil(-Math.log(step) / Math.LN10))};
  }
  function frame(host, rows, top, unit) {
    var a = axis(top), max = a.max;
    var h = TOP + rows.length * ROW + AXIS;
    var svg = el("svg", {width: W, height: h, viewBox: "0 0 " + W + " " + h, role: "img"});
    var span = W - LABEL - RIGHT;
    for (var t = 0; t <= a.ticks; t++) {
      var x = LABEL + span * t / a.ticks;
      svg.appendChild(el("line", {x1: x, x2: x, y1: TOP - 4, y2: h - AXIS + 4,
                                  "class": t === 0 ? "axis" : "grid"}));
      svg.appendChild(el("text", {x: x, y: h - 8, "text-anchor": "middle", "class": "muted"},
                         fmt(a.step * t, a.digits) + (t === a.ticks ? " " + unit : "")));
    }
    rows.forEach(function (r, i) {
      svg.appendChild(el("text", {x: LABEL - 10, y: TOP + i * ROW + BAR / 2 + 4,
                                  "text-anchor": "end"}, r.cloud));
    });
    host.appendChild(svg);
    return {svg: svg, scale: function (v) { return span * v / max; }};
  }
  function skipped(r) {
    if (r.status === "ok") { return null; }
    return r.status === "not_implemented" ? "not implemented yet" : "selection failed: " + r.message;
  }

  var rows = data.clouds, cur = data.currency;
  var costBars = 0, timeBars = 0;

  // cost chart: one stacked bar per cloud
  var costMax = Math.max.apply(null, rows.map(function (r) { return r.cost.total || 0; }));
  var cost = frame(document.getElementById("cost-chart"), rows, costMax, cur);
  rows.forEach(function (r, i) {
    var y = TOP + i * ROW, x = LABEL, why = skipped(r);
    if (why === null && r.cost.total === null) { why = "no cost: " + (r.hours_note || "no hours"); }
    if (why !== null) {
      cost.svg.appendChild(el("text", {x: LABEL + 8, y: y + BAR / 2 + 4, "class": "muted"},
                              why.length > 110 ? why.slice(0, 107) + "..." : why));
      return;
    }
    parts.forEach(function (p) {
      var v = r.cost[p];
      if (!(v > 0)) { return; }
      var w = Math.max(2, cost.scale(v));   // a sliver stays visible; the label has the figure
      var rect = el("rect", {x: x, y: y, width: w, height: BAR, fill: colors[p],
                             "class": "bar cost-bar " + p, "data-cloud": r.cloud});
      rect.appendChild(el("title", {}, r.cloud + " " + p + ": " + fmt(v, 2) + " " + cur));
      cost.svg.appendChild(rect);
      x += w;
      costBars += 1;
    });
    var label = fmt(r.cost.total, 2) + " " + cur + (r.cost.complete ? "" : " +?")
                + (r.fits ? "" : " (does not fit)");
    if (r.cheapest) { label += "  \\u2605 cheapest"; }
    cost.svg.appendChild(el("text", {x: x + 8, y: y + BAR / 2 + 4,
                                     "class": r.cheapest ? "mark" : ""}, label));
  });

  // time chart: one bar per cloud
  var timeMax = Math.max.apply(null, rows.map(function (r) { return r.hours || 0; }));
  var time = frame(document.getElementById("time-chart"), rows, timeMax, "h");
  rows.forEach(function (r, i) {
    var y = TOP + i * ROW, why = skipped(r);
    if (why === null && r.hours === null) { why = "no hours: " + r.hours_note; }
    if (why !== null) {
      time.svg.appendChild(el("text", {x: LABEL + 8, y: y + BAR / 2 + 4, "class": "muted"},
                              why.length > 110 ? why.slice(0, 107) + "..." : why));
      return;
    }
    var w = Math.max(2, time.scale(r.hours));
    var rect = el("rect", {x: LABEL, y: y, width: w, height: BAR, fill: colors.hours,
                           "class": "bar time-bar", "data-cloud": r.cloud});
    rect.appendChild(el("title", {}, r.cloud + ": " + fmt(r.hours, 2) + " h"));
    time.svg.appendChild(rect);
    timeBars += 1;
    var label = fmt(r.hours, 2) + " h on " + r.gpus + " x " + r.gpu + (r.fits ? "" : " (does not fit)");
    if (r.fastest) { label += "  \\u26a1 fastest"; }
    time.svg.appendChild(el("text", {x: LABEL + w + 8, y: y + BAR / 2 + 4,
                                     "class": r.fastest ? "mark" : ""}, label));
  });

  document.body.setAttribute("data-cost-bars", String(costBars));
  document.body.setAttribute("data-time-bars", String(timeBars));
  // what the browser test reads: whether anything reaches past the window's width
  document.body.setAttribute("data-overflow-x",
    document.documentElement.scrollWidth > document.documentElement.clientWidth ? "yes" : "no");
  // what the browser test reads: the size the chart labels are shown at
  var shown = document.querySelector("#cost-chart svg").getBoundingClientRect().width;
  document.body.setAttribute("data-chart-font-px", (12 * shown / W).toFixed(1));
  document.body.setAttribute("data-charts", "drawn");
})();
</script>
</body>
</html>
"""


def _e(value: Any) -> str:
    return html.escape("" if value is None else str(value))


def _money(value: Optional[float], cur: str, complete: bool = True) -> str:
    return "-" if value is None else f"{value:,.2f} {cur}" + ("" if complete else " +?")


def capacity_cell(r: CompareRow) -> str:
    """The capacity a row is priced at, and which price stands in when it is not its own."""
    kind = (r.capacity or "").replace("_", " ")
    return kind if r.priced_as in ("on-demand list price", "spot price") else (
        f"{kind} ({r.priced_as})")


def run_rate_complete(r: CompareRow) -> bool:
    """The run-rate prices nodes, filesystem and bucket: a missing one of those makes it +?."""
    return r.run_rate_complete()


def _lines(result: Comparison) -> list[tuple[str, Callable[[CompareRow], Any]]]:
    cur = result.currency

    def fs(r: CompareRow) -> str:
        f = r.filesystem
        return "-" if f is None or not f.capacity_gib else (
            f"{f.product}: {f.capacity_gib:,} GiB, {f.throughput_mbps_per_tib} MB/s/TiB "
            f"({f.throughput_mbps or 0:,.0f} MB/s)")

    def hours(r: CompareRow) -> str:
        billed = r.cost.billed_hours
        return "-" if r.hours is None else f"{r.hours:,.2f}" + (
            "" if billed is None else f" (billed {billed:,.2f})")

    return [
        ("region", lambda r: r.region),
        ("instance type", lambda r: f"{r.nodes} x {r.instance_type}"),
        ("GPU", lambda r: f"{r.gpus} x {r.gpu}" + ("" if r.fits else " (does not fit)")),
        ("interconnect", lambda r: r.interconnect),
        ("capacity", capacity_cell),
        (f"{cur}/h", lambda r: _money(r.price_per_hour, cur)),
        ("hours", hours),
        ("compute", lambda r: _money(r.cost.compute, cur)),
        ("storage", lambda r: _money(r.cost.storage, cur,
                                     not ({"filesystem", "bucket"} & set(r.cost.missing)))),
        ("transfer", lambda r: _money(r.cost.transfer, cur, "transfer" not in r.cost.missing)),
        ("total", lambda r: _money(r.cost.total, cur, r.cost.complete)
         + ("" if r.cost.finishes else " (job cut at max_hours)")),
        ("monthly run-rate", lambda r: _money(r.monthly_run_rate, cur, r.run_rate_complete())),
        ("filesystem", fs),
        ("policy", lambda r: r.policy.verdict + (
            f" ({', '.join(r.policy.failed)})" if r.policy.failed else "")),
        ("cheapest / fastest", lambda r: " ".join(
            m for m, on in (("cheapest", r.cheapest), ("fastest", r.fastest)) if on)),
    ]


def _table(result: Comparison) -> str:
    """One column per cloud, one row per quantity: as many columns as clouds, so the table fits
    the page at any width (no horizontal scroll hides a column)."""
    rows = result.clouds
    lines = ["<table id=\"numbers\">",
             "<tr><th></th>" + "".join(f"<th>{_e(r.cloud)}</th>" for r in rows) + "</tr>"]
    for i, (label, cell) in enumerate(_lines(result)):
        tds = []
        for r in rows:
            if r.ok:
                tds.append(f"<td>{_e(cell(r))}</td>")
            elif i == 0:
                msg = "not implemented yet" if r.status == NOT_IMPLEMENTED_STATUS else r.message
                tds.append(f"<td>{_e(msg)}</td>")
            else:
                tds.append("<td>-</td>")
        lines.append(f"<tr><th>{_e(label)}</th>{''.join(tds)}</tr>")
    lines.append("</table>")
    return "\n".join(lines)


def _notes(result: Comparison) -> str:
    a, sizes = result.assumptions, result.assumptions.sizes
    items = [
        f"Bucket: {sizes.bucket_gb:,.2f} GB ({sizes.bucket_note}).",
        f"Transfer: {sizes.transfer_gb:,.3f} GB ({sizes.transfer_note}).",
        f"Idle/debug overhead: {a.idle_overhead:.0%} of the run is added to compute and "
        "storage." + (f" Spot preemption overhead: {a.preemption_overhead:.0%}."
                      if a.preemption_overhead is not None else ""),
        "Hours = training FLOPs / (GPUs x dense datasheet peak x MFU) / scaling efficiency "
        "(1.0 on one node, 0.9 across RDMA nodes, 5/8 across TCP nodes).",
        "Monthly run-rate = the cluster left running for 730 hours (what a monthly estimate "
        "shows); the run cost above prices the planned run only.",
        "+? marks a total that leaves out an item the catalog has no cited price for.",
        *([caveat] if (caveat := cheapest_caveat(result)) else []),
        f"Exchange rate for any CNY figure: {result.fx['cny_per_usd']:g} CNY per USD "
        f"({result.fx['source']}).",
    ]
    for r in result.clouds:
        if r.unpriced:
            items.append(f"{r.cloud}: unpriced: {'; '.join(r.unpriced)}")
        items += [f"{r.cloud}: {n}" for n in r.notes]
        if r.status == ERROR:
            items.append(f"{r.cloud}: selection failed: {r.message}")
        if r.policy.failed:
            items.append(f"{r.cloud}: policy: {r.policy.detail}")
        if r.ok:
            items.append(f"{r.cloud}: node price {r.price_source} (as of "
                         f"{r.price_as_of}).")
    return "\n".join(f"<li>{_e(i)}</li>" for i in items)


def render_html(result: Comparison) -> str:
    """The report page for one `compare()` result."""
    wl = result.workload
    what = (f"{wl.method} training, {human_params(wl.params)} parameters, "
            f"{human_params(wl.train_tokens or 0)} tokens, {wl.precision}, MFU {wl.mfu or 0:g}, "
            if wl.params is not None else "no workload (rates only), ")
    subtitle = f"{what}{wl.nodes} node(s){', spot' if wl.spot else ''}; spec {result.spec}"
    legend = "".join(f"<span><i style=\"background:{COLORS[p]}\"></i>{p}</span>"
                     for p in ("compute", "storage", "transfer"))
    # the page's script draws from the --json document (the same keys scripts read)
    data = json.dumps(result.as_json(), sort_keys=True).replace("<", "\\u003c").replace(">", "\\u003e")
    values = {"NAME": _e(result.name), "SUBTITLE": _e(subtitle),
              "CURRENCY": _e(result.currency), "LEGEND": legend, "TABLE": _table(result),
              "NOTES": _notes(result), "COLORS": json.dumps(COLORS), "DATA": data}
    # one pass, so that no filled-in text is ever read as a placeholder
    page = re.sub(r"__([A-Z]+)__", lambda m: values[m.group(1)], _TEMPLATE)
    if result.measured is not None:  # issue 22: compare --measured
        from trainstack.cost.measured import html_section
        page = page.replace("</body>", html_section(result) + "\n</body>", 1)
    return page
