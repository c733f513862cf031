"""The options the cost commands (estimate, compare) share."""
from __future__ import annotations

import typer

from trainstack.cost import sizing

CnyRateOpt = typer.Option(None, "--cny-rate", help="CNY per USD (default: the catalog's stated "
                          "rate).")
IdleOverheadOpt = typer.Option(sizing.DEFAULT_IDLE_OVERHEAD, "--idle-overhead",
                               help="Idle/debug time as a fraction of the run.")
PreemptionOverheadOpt = typer.Option(sizing.DEFAULT_PREEMPTION_OVERHEAD, "--preemption-overhead",
                                     help="Spot: redone work as a fraction.")
