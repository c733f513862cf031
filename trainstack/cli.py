"""The trainstack command line. Offline commands need no Pulumi CLI and no credentials."""
from __future__ import annotations

import json
import sys
from functools import wraps
from pathlib import Path
from typing import Callable, Optional

import typer
from rich.console import Console
from rich.table import Table

from components.errors import SpecError
from trainstack.cli_common import CloudOpt, RequiredStackOpt, SpecOpt, StackOpt, render_plan
from trainstack.lifecycle import DeployFailed
from trainstack.sizing import SizingError

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="One GPU training-cluster spec on AWS, GCP, Azure and Alibaba Cloud.")
out = Console(soft_wrap=True)
err = Console(stderr=True, soft_wrap=True)

EXIT_BAD_INPUT = 2


def user_errors(command: Callable) -> Callable:
    """Bad input is one paragraph on stderr and exit 2, never a traceback."""
    @wraps(command)
    def wrapper(*args, **kwargs):
        try:
            return command(*args, **kwargs)
        except DeployFailed as failed:
            err.print(f"[bold red]pulumi failed:[/]\n{failed}", markup=True, highlight=False)
            raise typer.Exit(1) from None
        except (SpecError, SizingError) as problem:
            err.print(f"[bold red]error:[/] {problem}", markup=True, highlight=False)
            raise typer.Exit(EXIT_BAD_INPUT) from None
    return wrapper


@app.command()
@user_errors
def plan(stack: Optional[str] = StackOpt, spec: Optional[Path] = SpecOpt,
         cloud: Optional[str] = CloudOpt,
         as_json: bool = typer.Option(False, "--json", help="Print the plan as one JSON object.")):
    """Render the cluster offline under Pulumi's mock engine and list its resources."""
    result = render_plan(stack, spec, cloud)
    if as_json:
        print(json.dumps(result.to_json(), indent=2, sort_keys=True))
        return
    table = Table(title=f"trainstack plan: {result.cloud} (stack {result.stack})")
    for column in ("type", "name", "zone"):
        table.add_column(column, overflow="fold")
    for resource in result.resources:
        table.add_row(resource.type, resource.name, result.zone_of(resource))
    out.print(table)
    outputs = Table(title="outputs (offline placeholders where the cloud assigns the value)")
    outputs.add_column("output")
    outputs.add_column("value")
    for key, value in sorted(result.outputs.items()):
        outputs.add_row(key, json.dumps(value) if not isinstance(value, str) else value)
    out.print(outputs)
    out.print(f"{len(result.resources)} resources; selection: {result.inputs.selection.instance.name} "
              f"x {result.inputs.spec.nodes}, {result.inputs.selection.fabric_note}, "
              f"{result.inputs.selection.usd_per_hour:,.2f} USD/h (price source: "
              f"{result.inputs.selection.price.source}, as of {result.inputs.selection.price.as_of})")


@app.command()
def schema():
    """Print the JSON Schema of cluster.yaml (for editors and CI validation)."""
    from components.spec import ClusterSpec
    document = ClusterSpec.model_json_schema()
    document["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    document["title"] = "trainstack cluster.yaml"
    print(json.dumps(document, indent=2, sort_keys=True))


from trainstack.compare import compare_command  # noqa: E402  (issue 5)
from trainstack.estimate import estimate_command  # noqa: E402

app.command("estimate")(user_errors(estimate_command))
app.command("compare")(user_errors(compare_command))

from trainstack.check import check_command  # noqa: E402  (issue 4: the policy pack offline)

app.command("check")(user_errors(check_command))


from trainstack.connect import connect_command  # noqa: E402  (issue 9: a way in, node health)
from trainstack.status import status_command  # noqa: E402

app.command("connect")(user_errors(connect_command))
app.command("status")(user_errors(status_command))


def _echo(line: str) -> None:
    out.print(line, end="", markup=False, highlight=False)


SkipCredentials = typer.Option(False, "--skip-credential-check",
                               help="Deploy with credentials trainstack cannot see (instance roles).")


@app.command()
@user_errors
def up(stack: str = RequiredStackOpt,
       skip_credential_check: bool = SkipCredentials):
    """Deploy a stack (needs the Pulumi CLI, provider plugins and cloud credentials)."""
    from trainstack import lifecycle
    outputs = lifecycle.up(stack, echo=_echo, skip_credential_check=skip_credential_check)
    for key, value in sorted(outputs.items()):
        out.print(f"{key}: {value}", markup=False, highlight=False)


@app.command()
@user_errors
def destroy(stack: str = RequiredStackOpt,
            skip_credential_check: bool = SkipCredentials):
    """Tear a stack down; the bucket stays unless the spec says retain_on_destroy: false."""
    from trainstack import lifecycle
    kept = lifecycle.destroy(stack, echo=_echo, skip_credential_check=skip_credential_check)
    for item in kept:
        out.print(f"kept: {item}", markup=False, highlight=False)


def main() -> None:
    app()


if __name__ == "__main__":
    sys.exit(main())
