"""`trainstack up`, `preview` and `destroy`: the stack's lifecycle through the Automation API
(trainstack/deploy/lifecycle.py), with the Pulumi engine's output streamed as it comes."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from trainstack.console import console
from trainstack.deploy.bootstrap import deploy_notes
from trainstack.plan.select import ProjectOpt, RequiredStackOpt, project_dir

out = console()
err = console(stderr=True)


def _echo(line: str) -> None:
    out.print(line, end="", markup=False, highlight=False)


SkipCredentials = typer.Option(False, "--skip-credential-check",
                               help="Deploy with credentials trainstack cannot see (instance roles).")
BackendOpt = typer.Option(None, "--backend", help="Pulumi backend URL (default: PULUMI_BACKEND_URL, "
                          "else a file:// backend in the project's .pulumi-state).")


def up(stack: str = RequiredStackOpt, skip_credential_check: bool = SkipCredentials,
       backend: Optional[str] = BackendOpt, project: Optional[Path] = ProjectOpt):
    """Deploy a stack, judged by the policy pack (needs the Pulumi CLI and cloud credentials)."""
    from trainstack.deploy import lifecycle
    from trainstack.plan.stacks import stack_config
    folder = project_dir(project)
    outputs = lifecycle.up(stack, echo=_echo, project_dir=folder,
                           skip_credential_check=skip_credential_check, backend=backend)
    for key, value in sorted(outputs.items()):
        out.print(f"{key}: {value}", markup=False, highlight=False)
    for note in deploy_notes(stack_config(folder, stack).get("trainstack:cloud", "")):
        err.print(f"note: {note}", markup=False, highlight=False)


def preview(stack: str = RequiredStackOpt, skip_credential_check: bool = SkipCredentials,
            backend: Optional[str] = BackendOpt, project: Optional[Path] = ProjectOpt):
    """Show what `up` would change, judged by the policy pack (needs the Pulumi CLI)."""
    from trainstack.deploy import lifecycle
    changes = lifecycle.preview(stack, echo=_echo, project_dir=project_dir(project),
                                skip_credential_check=skip_credential_check, backend=backend)
    out.print("changes: " + (", ".join(f"{k} {v}" for k, v in sorted(changes.items())) or "none"),
              markup=False, highlight=False)


def destroy(stack: str = RequiredStackOpt, skip_credential_check: bool = SkipCredentials,
            backend: Optional[str] = BackendOpt, project: Optional[Path] = ProjectOpt):
    """Tear a stack down; the bucket stays unless the spec says retain_on_destroy: false."""
    from trainstack.deploy import lifecycle
    kept = lifecycle.destroy(stack, echo=_echo, project_dir=project_dir(project),
                             skip_credential_check=skip_credential_check, backend=backend)
    for item in kept:
        out.print(f"kept: {item}", markup=False, highlight=False)
