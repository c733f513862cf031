"""What several commands share: how a plan is chosen (--stack, or --spec with --cloud) and the
options that mean the same thing everywhere."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from components.errors import SpecError
from trainstack import PROJECT_DIR, sizing

StackOpt = typer.Option(None, "--stack", help="Stack name: stacks/Pulumi.<NAME>.yaml.")
RequiredStackOpt = typer.Option(..., "--stack", help="Stack name: stacks/Pulumi.<NAME>.yaml.")
SpecOpt = typer.Option(None, "--spec", help="A cluster.yaml (with --cloud).")
CloudOpt = typer.Option(None, "--cloud", help="aws | gcp | azure | alicloud (with --spec).")
CnyRateOpt = typer.Option(None, "--cny-rate", help="CNY per USD (default: the catalog's stated "
                          "rate).")
IdleOverheadOpt = typer.Option(sizing.DEFAULT_IDLE_OVERHEAD, "--idle-overhead",
                               help="Idle/debug time as a fraction of the run.")
PreemptionOverheadOpt = typer.Option(sizing.DEFAULT_PREEMPTION_OVERHEAD, "--preemption-overhead",
                                     help="Spot: redone work as a fraction.")


def stack_or_spec_config(stack: Optional[str], spec: Optional[Path], cloud: Optional[str]):
    from trainstack.stacks import spec_file_config, stack_config
    if stack and (spec or cloud):
        raise SpecError("--stack", "cannot be combined with --spec/--cloud.",
                        "Pass either --stack NAME or --spec FILE --cloud CLOUD.")
    if stack:
        return stack, stack_config(PROJECT_DIR, stack)
    if spec and cloud:
        return cloud, spec_file_config(spec, cloud)
    raise SpecError("--stack / --spec", "neither a stack nor a spec and cloud was given.",
                    "Pass --stack aws, or --spec examples/cluster.yaml --cloud aws.")


def render_plan(stack: Optional[str], spec: Optional[Path], cloud: Optional[str]):
    from trainstack.engine import render
    name, config = stack_or_spec_config(stack, spec, cloud)
    return render(config, stack=name)
