"""The trainstack command line. Offline commands need no Pulumi CLI and no credentials."""
from __future__ import annotations

import json
import os
import sys
from functools import wraps
from pathlib import Path
from typing import Callable, Optional

import typer
from rich.markup import escape
from rich.table import Table

from trainstack import __version__
from trainstack.plan.select import CloudOpt, ProjectOpt, RequiredStackOpt, SpecOpt, StackOpt, project_dir, render_plan, set_project_override
from trainstack.console import console
from trainstack.deploy.lifecycle import DeployFailed
from trainstack.cost.sizing import SizingError
from trainstack_components.clouds import names as implemented_clouds
from trainstack_components.errors import SpecError

app = typer.Typer(no_args_is_help=True, rich_markup_mode=None,  # plain help: rich_utils costs 70 ms
                  help="One GPU training-cluster spec, built the same on every cloud trainstack "
                  f"implements ({', '.join(implemented_clouds())}), through Pulumi.")
out = console()
err = console(stderr=True)

EXIT_BAD_INPUT = 2


def _show_version(value: bool) -> None:
    if value:
        print(f"trainstack {__version__}")
        raise typer.Exit()


@app.callback()
def _options(
    version: bool = typer.Option(False, "--version", callback=_show_version, is_eager=True,
                                 help="Print the version and exit."),
    project: Optional[Path] = typer.Option(
        None, "--project", envvar="TRAINSTACK_PROJECT",
        help="The trainstack project folder for every command (default: the nearest "
        "Pulumi.yaml from the current folder upward, as pulumi finds it)."),
):
    """One GPU training-cluster spec on every cloud trainstack implements."""
    del version
    set_project_override(project)


def _as_typed(problem: Exception, command: Callable) -> str:
    """The message, naming a flag as the user typed it (`--cny-rate`) where the code raised it
    under its parameter name (`cny_rate`): the command's own options say which is which."""
    import inspect

    from typer.models import OptionInfo
    field = getattr(problem, "field", None)
    text = str(problem)
    if not field or not text.startswith(f"{field}:"):
        return text
    param = inspect.signature(command).parameters.get(field)
    if param is None or not isinstance(param.default, OptionInfo):
        return text
    decls = [d for d in (param.default.param_decls or ()) if d.startswith("--")]
    flag = max(decls, key=len) if decls else "--" + field.replace("_", "-")
    return flag + text[len(field):]


def user_errors(command: Callable) -> Callable:
    """Bad input is one paragraph on stderr and exit 2, never a traceback. Messages quote user
    text and patterns (`[a-z]`), so they are printed escaped, never read as rich markup."""
    @wraps(command)
    def wrapper(*args, **kwargs):
        try:
            return command(*args, **kwargs)
        except DeployFailed as failed:
            err.print(f"[bold red]pulumi failed:[/]\n{escape(str(failed))}", markup=True,
                      highlight=False)
            raise typer.Exit(1) from None
        except (SpecError, SizingError) as problem:
            err.print(f"[bold red]error:[/] {escape(_as_typed(problem, command))}", markup=True,
                      highlight=False)
            raise typer.Exit(EXIT_BAD_INPUT) from None
        except OSError as failed:
            # A path the user named that cannot be read or written (`--html /proc/r.html`,
            # `init` under a file): the path and the reason, never a traceback.
            if isinstance(failed, BrokenPipeError):
                raise  # main() turns a closed pipe into a clean exit 0
            # A write that fails after the open (`--html /dev/full`) names no file.
            where = f"{failed.filename}: " if failed.filename is not None else ""
            err.print(f"[bold red]error:[/] {escape(str(where))}"
                      f"{escape(failed.strerror or str(failed))}. Check the path"
                      f"{'' if where else 's you passed'} and its permissions, or pick another.",
                      markup=True, highlight=False)
            raise typer.Exit(EXIT_BAD_INPUT) from None
    return wrapper


@app.command()
@user_errors
def plan(stack: Optional[str] = StackOpt, spec: Optional[Path] = SpecOpt,
         cloud: Optional[str] = CloudOpt, project: Optional[Path] = ProjectOpt,
         as_json: bool = typer.Option(False, "--json", help="Print the plan as one JSON object.")):
    """Render the cluster offline under Pulumi's mock engine and list its resources."""
    result = render_plan(stack, spec, cloud, project)
    changes = [dict(c) for c in result.inputs.tag_changes]
    image, needs = _node_image_and_account(result)
    if as_json:
        document = result.to_json()
        document["tag_changes"] = changes
        document["warnings"] = list(result.warnings)
        document["node_image"] = image
        document["account_needs"] = needs
        print(json.dumps(document, indent=2, sort_keys=True))
        return
    table = Table(title=f"trainstack plan: {result.cloud} (stack {escape(result.stack)})")
    for column in ("type", "name", "zone"):
        table.add_column(column, overflow="fold")
    for resource in result.resources:
        table.add_row(escape(resource.type), escape(resource.name), escape(result.zone_of(resource)))
    out.print(table)
    outputs = Table(title="outputs (offline placeholders where the cloud assigns the value)")
    outputs.add_column("output")
    outputs.add_column("value")
    for key, value in sorted(result.outputs.items()):
        outputs.add_row(escape(key), escape(json.dumps(value) if not isinstance(value, str)
                                            else value))
    out.print(outputs)
    for change in changes:
        out.print(f"tag {change['tag']}: {change['value']!r} becomes the {result.cloud} label "
                  f"{change['label']}: {change['label_value']!r} (the cloud's label rules)",
                  markup=False, highlight=False)
    out.print(f"node image: {image['image']}", markup=False, highlight=False)
    for item in image["installs"]:
        out.print(f"  the boot installs {item['what']}: {item['why']}", markup=False,
                  highlight=False)
    if needs:
        out.print(f"the account needs (`trainstack bootstrap {result.cloud}` checks them):",
                  markup=False, highlight=False)
    for need in needs:
        out.print(f"  {need['what']}: {need['why']}", markup=False, highlight=False)
    sel = result.inputs.selection
    out.print(f"{len(result.resources)} resources; selection: {sel.instance.name} "
              f"x {result.inputs.spec.nodes}, {sel.fabric_note}, "
              f"{sel.usd_per_hour:,.2f} USD/h (price source: "
              f"{sel.price.source}, as of {sel.price.as_of})", markup=False, highlight=False)
    for warning in result.warnings:  # missing stack config (trainstack/plan/required_config.py)
        out.print(warning, markup=False, highlight=False)


def _node_image_and_account(result) -> tuple[dict, list[dict]]:
    """The node image, what the boot installs on top of it and why (catalog/node_images.csv),
    and what the account needs (deploy/account.py): offline, nothing is asked."""
    from trainstack.deploy import account
    from trainstack_components.catalog import node_images
    image = {"image": node_images.image_name(result.cloud),
             "installs": [{"what": what, "why": why}
                          for what, why in node_images.installs(result.cloud)]}
    needs = [{"what": n.what, "why": n.why, "fix": n.fix} for n in
             account.cluster_needs(result.cloud, result.inputs.spec, result.inputs.selection)]
    return image, needs


@app.command()
def schema():
    """Print the JSON Schema of cluster.yaml (for editors and CI validation)."""
    from trainstack_components.spec import ClusterSpec
    document = ClusterSpec.model_json_schema()
    document["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    document["title"] = "trainstack cluster.yaml"
    print(json.dumps(document, indent=2, sort_keys=True))


from trainstack.cost.compare import compare_command  # noqa: E402  (issue 5)
from trainstack.cost.estimate import estimate_command  # noqa: E402

app.command("estimate")(user_errors(estimate_command))
app.command("compare")(user_errors(compare_command))

from trainstack.check.offline import check_command  # noqa: E402  (issue 4: the policy pack offline)

app.command("check")(user_errors(check_command))

from trainstack.deploy.bootstrap import bootstrap_command, deploy_notes  # noqa: E402  (issue 8)

app.command("bootstrap")(user_errors(bootstrap_command))


from trainstack.deploy.connect import connect_command  # noqa: E402  (issue 9: a way in, node health)
from trainstack.measure.status import status_command  # noqa: E402

app.command("connect")(user_errors(connect_command))
app.command("status")(user_errors(status_command))


def _echo(line: str) -> None:
    out.print(line, end="", markup=False, highlight=False)


SkipCredentials = typer.Option(False, "--skip-credential-check",
                               help="Deploy with credentials trainstack cannot see (instance roles).")
BackendOpt = typer.Option(None, "--backend", help="Pulumi backend URL (default: PULUMI_BACKEND_URL, "
                          "else a file:// backend in the project's .pulumi-state).")


@app.command()
@user_errors
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


@app.command()
@user_errors
def preview(stack: str = RequiredStackOpt, skip_credential_check: bool = SkipCredentials,
            backend: Optional[str] = BackendOpt, project: Optional[Path] = ProjectOpt):
    """Show what `up` would change, judged by the policy pack (needs the Pulumi CLI)."""
    from trainstack.deploy import lifecycle
    changes = lifecycle.preview(stack, echo=_echo, project_dir=project_dir(project),
                                skip_credential_check=skip_credential_check, backend=backend)
    out.print("changes: " + (", ".join(f"{k} {v}" for k, v in sorted(changes.items())) or "none"),
              markup=False, highlight=False)


@app.command()
@user_errors
def destroy(stack: str = RequiredStackOpt, skip_credential_check: bool = SkipCredentials,
            backend: Optional[str] = BackendOpt, project: Optional[Path] = ProjectOpt):
    """Tear a stack down; the bucket stays unless the spec says retain_on_destroy: false."""
    from trainstack.deploy import lifecycle
    kept = lifecycle.destroy(stack, echo=_echo, project_dir=project_dir(project),
                             skip_credential_check=skip_credential_check, backend=backend)
    for item in kept:
        out.print(f"kept: {item}", markup=False, highlight=False)


from trainstack.reap.reaper import reap_command  # noqa: E402  (issue 13: idle stacks torn down)

app.command("reap")(user_errors(reap_command))

from trainstack.measure.bench import bench_command  # noqa: E402  (issue 22: run and measure on the nodes)
from trainstack.measure.run import run_command  # noqa: E402

app.command("run")(user_errors(run_command))
app.command("bench")(user_errors(bench_command))

from trainstack.plan.init import init_command  # noqa: E402  (issue 15: a project of your own)

app.command("init")(user_errors(init_command))

from trainstack.measure.resume_check import resume_check_cli  # noqa: E402  (issue 23: resume proven)

app.command("resume-check")(user_errors(resume_check_cli))


def _quiet_stdout() -> None:
    """After a closed pipe (`trainstack plan | head`): nothing more reaches stdout, and the
    interpreter's final flush does not fail either."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def main() -> None:
    from trainstack.console import prepare_consoles
    prepare_consoles()
    try:
        app()
    except BrokenPipeError:
        _quiet_stdout()
        sys.exit(0)
    except SystemExit:
        # typer turns EPIPE into exit 1 after swapping stdout for click's PacifyFlushWrapper:
        # the reader closed the pipe, which is how `head` says "enough", not a failure.
        if type(sys.stdout).__name__ == "PacifyFlushWrapper":
            _quiet_stdout()
            sys.exit(0)
        raise


if __name__ == "__main__":
    main()
