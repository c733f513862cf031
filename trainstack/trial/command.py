"""`trainstack trial`: the command line of the trial loop (trainstack/trial/runner.py)."""
from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Optional

import typer

from trainstack_components.errors import SpecError


def trial_command(
    cmd: Optional[list[str]] = typer.Argument(None, help="Your training command, after `--` "
                                              "(default: the built-in small model)."),
    candidates: Optional[str] = typer.Option(None, "--candidates", help="Stacks to try, comma "
                                             "separated (e.g. aws,gcp,azure: the stack files "
                                             "named so)."),
    budget_usd: Optional[float] = typer.Option(None, "--budget-usd", min=0, help="The most the "
                                               "trial may cost; refused up front if the sum of "
                                               "the candidates' trial prices is more."),
    spec: Optional[str] = typer.Option(None, "--spec", help="The spec file every candidate "
                                       "uses (default: each stack file's trainstack:specFile)."),
    data: Optional[Path] = typer.Option(None, "--data", help="A folder with a subset of your "
                                        "data, staged into each candidate's bucket (data/)."),
    nodes: Optional[int] = typer.Option(None, "--nodes", min=1, help="Nodes per candidate "
                                        "(default: the spec's)."),
    boot_hours: float = typer.Option(0.5, "--boot-hours", min=0, help="Priced hours: boot."),
    staging_hours: float = typer.Option(0.25, "--staging-hours", min=0, help="Priced hours: "
                                        "data staging."),
    bench_hours: float = typer.Option(0.5, "--bench-hours", min=0, help="Priced hours: bench."),
    teardown_hours: float = typer.Option(0.25, "--teardown-hours", min=0, help="Priced hours: "
                                         "teardown."),
    health_timeout: float = typer.Option(1800, "--health-timeout", min=0.1, help="Seconds to "
                                         "wait for every node healthy."),
    poll: float = typer.Option(10, "--poll", min=0.05, help="Seconds between health polls."),
    max_moves: int = typer.Option(3, "--max-moves", min=0, help="Other zones/regions to try per "
                                  "candidate after a capacity error."),
    steps: int = typer.Option(50, "--steps", min=1, help="Bench training steps."),
    model: str = typer.Option("small", "--model", help="Built-in model: small | tiny."),
    checkpoint_mib: float = typer.Option(1024.0, "--checkpoint-mib", min=1),
    allreduce_mib: list[float] = typer.Option([64.0, 1024.0], "--allreduce-mib"),
    lustre: str = typer.Option("/lustre", "--lustre"),
    scratch: str = typer.Option("/scratch", "--scratch"),
    bench_timeout: float = typer.Option(3600, "--bench-timeout", min=1, help="Seconds per bench "
                                        "part."),
    min_scaling: float = typer.Option(0.8, "--min-scaling", min=0, max=1, help="Scaling "
                                      "efficiency a candidate must reach to be recommended."),
    out_dir: Path = typer.Option(Path("trial-results"), "--out-dir"),
    html_out: Optional[Path] = typer.Option(None, "--html", help="Also write the HTML report."),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
    resume_: bool = typer.Option(False, "--resume", help="Tear down what a stopped trial left "
                                 "up (its journal says what)."),
    cheapest_gpu: bool = typer.Option(False, "--cheapest-gpu", help="Trial each candidate's "
                                      "cheapest GPU type that plans in its region (the canary)."),
    skip_credential_check: bool = typer.Option(False, "--skip-credential-check"),
):
    """Choose by measuring: bring each candidate up (cheapest first, the next zone on a
    stockout), bench it, tear it down, and recommend one, within --budget-usd."""
    from trainstack.measure.bench import MODEL_SIZES, BenchOptions
    from trainstack.plan.select import project_dir as find_project
    from trainstack.trial import result as res
    from trainstack.trial.plan import TrialHours
    from trainstack.trial.runner import BudgetSpent, Trial, TrialInterrupted, TrialOptions, resume

    project = find_project()

    def echo(line: str) -> None:
        print(line, file=sys.stderr if as_json else sys.stdout, flush=True)

    if resume_:
        left = resume(project, echo, skip_credential_check=skip_credential_check)
        if left:
            raise typer.Exit(1)
        return
    if not candidates:
        raise SpecError("--candidates", "is required (or --resume).",
                        "Name the stacks to try, e.g. --candidates aws,gcp,azure.")
    if budget_usd is None:
        raise SpecError("--budget-usd", "is required: a trial brings real GPU nodes up.",
                        "Pass the most the trial may cost, e.g. --budget-usd 300.")
    if model not in MODEL_SIZES:
        raise SpecError("--model", f"{model!r} is not a built-in model.",
                        f"Use one of: {', '.join(MODEL_SIZES)}.")
    names = [c.strip() for c in candidates.split(",") if c.strip()]
    if len(set(names)) != len(names):
        raise SpecError("--candidates", f"{candidates} names a stack twice.",
                        "Name each candidate stack once.")
    opts = TrialOptions(
        candidates=names, budget_usd=budget_usd, spec=spec, data=data,
        train_cmd=shlex.join(cmd) if cmd else None, nodes=nodes,
        hours=TrialHours(boot_hours, staging_hours, bench_hours, teardown_hours),
        health_timeout_s=health_timeout, poll_s=poll, max_moves=max_moves,
        bench=BenchOptions(steps=steps, model=model, checkpoint_mib=checkpoint_mib,
                           allreduce_mib=allreduce_mib, lustre=lustre, scratch=scratch,
                           timeout_s=bench_timeout),
        out_dir=out_dir, skip_credential_check=skip_credential_check, cheapest_gpu=cheapest_gpu)
    trial = Trial(project, opts, echo)
    try:
        results = trial.run()
    except TrialInterrupted as stopped:
        echo(f"trial: stopped by {stopped.signame}; see {trial.journal.path if trial.started else '-'}")
        raise typer.Exit(130 if stopped.signame == "SIGINT" else 143) from None
    except BudgetSpent as spent:
        echo(f"trial: stopped: {spent}; every stack it created was destroyed")
        raise typer.Exit(1) from None
    trial_id = trial.journal.data["id"]
    bench_dir = out_dir / trial_id / "bench"
    spec_path = Path(spec) if spec else project / trial.price_spec_file()
    comparison = res.compare_measured(spec_path, bench_dir, sorted({r.cloud for r in results}))
    rec = res.recommend(results, comparison, min_scaling)
    doc = res.document(trial_id, results, comparison, rec, budget_usd)
    (out_dir / trial_id).mkdir(parents=True, exist_ok=True)
    (out_dir / trial_id / "trial.json").write_text(json.dumps(doc, indent=2, sort_keys=True))
    for url in set(trial.journal.data["buckets"].values()):
        trial.journal._copy_to_bucket(url, json.dumps(doc, indent=2, sort_keys=True),
                                      "result.json")
    if html_out is not None:
        html_out.write_text(res.html_page(doc, comparison))
    if as_json:
        print(json.dumps(doc, indent=2, sort_keys=True))
    else:
        from trainstack.cost.measured import print_measured
        if comparison.measured is not None:
            print_measured(comparison)
        for line in res.text_lines(doc):
            print(line)
    live = trial.journal.live_stacks()
    if live:
        echo(f"trial: these stacks may still be up and billing: {', '.join(live)}; run "
             "`trainstack trial --resume` (or `trainstack destroy --stack NAME`)")
    if live or any(r.left_behind for r in results):
        raise typer.Exit(1)
