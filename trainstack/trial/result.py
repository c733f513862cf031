"""The trial's result: `compare --measured` over the candidates' bench files, what the trial
cost on each cloud, where capacity was found and where not, and a recommendation.

Recommendation: among the candidates that were measured, those whose fabric did not fall below
its cited floor or use the wrong network (bench_parse.judge_fabric; "not judged" on CPU or
without a floor is said, not held against it) and whose scaling efficiency reached
--min-scaling, the lowest measured cost per million trained tokens. Every other candidate is
named with the reason it was passed over.
"""
from __future__ import annotations

import html
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from trainstack.trial.runner import CandidateResult

DEFAULT_MIN_SCALING = 0.8


@dataclass
class Recommendation:
    chosen: Optional[str] = None
    reason: str = ""
    passed_over: dict[str, str] = field(default_factory=dict)
    notes: dict[str, list[str]] = field(default_factory=dict)

    def as_json(self) -> dict:
        return {"chosen": self.chosen, "reason": self.reason,
                "passed_over": dict(self.passed_over), "notes": dict(self.notes)}


def compare_measured(spec_path: Path, bench_dir: Path, clouds: Optional[list[str]] = None):
    """`compare --measured` of the spec over the candidates' clouds only."""
    from trainstack.cost.compare import compare
    from trainstack.cost.measured import attach
    result = compare(spec_path, clouds=clouds)
    if bench_dir.is_dir() and any(bench_dir.glob("*.json")):
        attach(result, [bench_dir])
    return result


def recommend(results: list[CandidateResult], comparison, min_scaling: float) -> Recommendation:
    rec = Recommendation()
    measured = comparison.measured.clouds if comparison is not None and comparison.measured else {}
    eligible: list[tuple[float, CandidateResult]] = []
    for r in results:
        if r.outcome != "measured":
            rec.passed_over[r.candidate] = f"{r.outcome}: {r.detail}".rstrip(": ")
            continue
        doc = r.bench or {}
        judge = (doc.get("fabric") or {}).get("judge") or {}
        notes = rec.notes.setdefault(r.candidate, [])
        if judge.get("below_floor"):
            rec.passed_over[r.candidate] = (f"fabric below its floor: "
                                            f"{doc['fabric'].get('busbw_gbps')} GB/s < "
                                            f"{judge.get('floor_gbps')} GB/s")
            continue
        if judge.get("wrong_network"):
            rec.passed_over[r.candidate] = (f"fabric on the wrong network: "
                                            f"{doc['fabric'].get('network')}, expected "
                                            f"{judge.get('expected_net')}")
            continue
        if judge.get("ok") is None:
            notes.append(f"fabric not judged: {judge.get('note') or 'no verdict'}")
        scaling = (doc.get("training") or {}).get("scaling_efficiency")
        if doc.get("nodes") == 1:
            notes.append("scaling not measured: the trial ran one node (--nodes)")
        if scaling is None:
            rec.passed_over[r.candidate] = "no scaling efficiency measured (training failed?)"
            continue
        if scaling < min_scaling:
            rec.passed_over[r.candidate] = (f"scaling efficiency {scaling:.2f} below the floor "
                                            f"{min_scaling:.2f} (--min-scaling)")
            continue
        entry = measured.get(r.cloud)
        cost = entry.cost if entry is not None else None
        if cost is None or cost.per_million_tokens is None:
            why = "; ".join(measured[r.cloud].notes) if measured.get(r.cloud) else \
                "the comparison has no row for it"
            rec.passed_over[r.candidate] = f"no measured cost per trained token ({why})"
            continue
        eligible.append((cost.per_million_tokens, r))
    if not eligible:
        rec.reason = "no candidate was measured with its floors reached"
        return rec
    eligible.sort(key=lambda e: e[0])
    best_cost, best = eligible[0]
    rec.chosen = best.candidate
    rec.reason = (f"the lowest measured cost per trained token: {best_cost:,.4f} "
                  f"{comparison.currency} per million tokens on {best.cloud}")
    for cost, r in eligible[1:]:
        rec.passed_over[r.candidate] = (f"{cost:,.4f} {comparison.currency} per million tokens, "
                                        f"more than {best.candidate}'s {best_cost:,.4f}")
    return rec


def document(trial_id: str, results: list[CandidateResult], comparison, rec: Recommendation,
             budget_usd: float) -> dict:
    return {"trial": trial_id, "budget_usd": budget_usd,
            "spent_usd": sum(r.spent_usd for r in results),
            "candidates": [r.as_json() for r in results],
            "capacity": {r.candidate: {"found": next(
                ({"region": a.region, "zone": a.zone, "capacity": a.capacity}
                 for a in r.attempts if a.outcome not in ("capacity", "skipped", "failed")), None),
                "not_found": [{"region": a.region, "zone": a.zone, "capacity": a.capacity,
                               "error": a.detail} for a in r.attempts if a.outcome == "capacity"]}
                for r in results},
            "comparison": comparison.as_json() if comparison is not None else None,
            "recommendation": rec.as_json(),
            "left_behind": "only the buckets (retain_on_destroy): every trial stack was destroyed"
            if not any(r.left_behind for r in results) else
            {r.candidate: r.left_behind for r in results if r.left_behind}}


def text_lines(doc: dict) -> list[str]:
    lines = [f"trial {doc['trial']}: spent {doc['spent_usd']:,.2f} USD of "
             f"{doc['budget_usd']:,.2f}"]
    for c in doc["candidates"]:
        cap = doc["capacity"][c["candidate"]]
        found = cap["found"]
        where = (f"capacity in {found['region']} {found['zone']} ({found['capacity']})"
                 if found else "no capacity found")
        tried = "; ".join(f"none in {n['zone']}: {n['error']}" for n in cap["not_found"])
        lines.append(f"{c['candidate']} ({c['cloud']}): {c['outcome']}; {where}"
                     + (f"; {tried}" if tried else "")
                     + f"; trial cost {c['spent_usd']:,.4f} USD (expected "
                     f"{c['price']['total_usd']:,.2f})")
        if c["outcome"] not in ("measured",) and c["detail"]:
            lines.append(f"  {c['detail']}")
    rec = doc["recommendation"]
    lines.append(f"recommendation: {rec['chosen'] or 'none'}: {rec['reason']}")
    for name, why in rec["passed_over"].items():
        lines.append(f"  passed over {name}: {why}")
    for name, notes in rec["notes"].items():
        for note in notes:
            lines.append(f"  {name}: {note}")
    left = doc["left_behind"]
    lines.append(f"left behind: {left}" if isinstance(left, str)
                 else "left behind (still billing!): " + json.dumps(left))
    return lines


def html_page(doc: dict, comparison) -> str:
    from trainstack.cost.report import render_html
    section = ("<section id=\"trial\"><h2>Trial</h2><ul>"
               + "".join(f"<li>{html.escape(line)}</li>" for line in text_lines(doc))
               + "</ul></section>")
    page = render_html(comparison)
    return page.replace("</body>", section + "\n</body>", 1)
