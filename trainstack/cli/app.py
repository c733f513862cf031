"""The trainstack command line. Offline commands need no Pulumi CLI and no credentials.

Each command lives in the module COMMANDS names and is imported only when it runs (or its own
--help is asked): `trainstack --help` lists every command from COMMANDS' short help without
importing one, so it starts in the time of typer alone (benchmarks/startup.py).
"""
from __future__ import annotations

import importlib
import os
import sys
from functools import wraps
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping, MutableMapping, NamedTuple, Optional

import typer
from typer.core import TyperGroup
from typer.models import CommandInfo

from trainstack import __version__
from trainstack_components.clouds import names as implemented_clouds

EXIT_BAD_INPUT = 2


class Command(NamedTuple):
    module: str        # where the command's function lives
    function: str
    help: str          # the first paragraph of its docstring (tests/cli/test_cli_imports.py checks)
    user_errors: bool = True   # bad input: one paragraph and exit 2 (user_errors below)


# Listed in this order by `trainstack --help`. A new command is one line here (ARCHITECTURE.md).
COMMANDS: dict[str, Command] = {
    "plan": Command("trainstack.cli.plan", "plan",
                    "Render the cluster offline under Pulumi's mock engine and list its resources."),
    "schema": Command("trainstack.cli.schema", "schema",
                      "Print the JSON Schema of cluster.yaml (for editors and CI validation).",
                      user_errors=False),
    "estimate": Command("trainstack.cost.estimate", "estimate_command",
                        "Memory per GPU, training FLOPs and hours for a workload (and its cost, "
                        "given a price)."),
    "compare": Command("trainstack.cost.compare", "compare_command",
                       "Price the spec's planned run on every configured cloud: hours, cost, "
                       "cheapest, fastest."),
    "check": Command("trainstack.check.offline", "check_command",
                     "Run the policy pack's rules on the offline plan; exit 1 on a mandatory "
                     "violation."),
    "bootstrap": Command("trainstack.deploy.bootstrap", "bootstrap_command",
                         "One-time account setup every cluster shares: check what a first "
                         "deploy needs (Azure: feature, providers, roles; GCP: APIs, IAM; AWS: "
                         "P-instance quota) and, on AWS, activate the cost-allocation tag."),
    "connect": Command("trainstack.deploy.connect", "connect_command",
                       "Open a shell on a node (SSM on AWS, IAP on GCP, Bastion on Azure), or "
                       "print the command."),
    "status": Command("trainstack.measure.status", "status_command",
                      "Show each node's boot health record (GPUs, RDMA devices, filesystem, failed "
                      "steps)."),
    "up": Command("trainstack.cli.deploy", "up",
                  "Deploy a stack, judged by the policy pack (needs the Pulumi CLI and cloud "
                  "credentials)."),
    "preview": Command("trainstack.cli.deploy", "preview",
                       "Show what `up` would change, judged by the policy pack (needs the Pulumi "
                       "CLI)."),
    "destroy": Command("trainstack.cli.deploy", "destroy",
                       "Tear a stack down; the bucket stays unless the spec says "
                       "retain_on_destroy: false."),
    "reap": Command("trainstack.reap.reaper", "reap_command",
                    "Destroy trainstack stacks whose nodes sat idle past "
                    "idle.teardown_after_minutes (data kept)."),
    "run": Command("trainstack.measure.run", "run_command",
                   "Run CMD on every node of the stack under torchrun; exit code = the worst "
                   "node's."),
    "bench": Command("trainstack.measure.bench", "bench_command",
                     "Measure the stack: fabric, storage, training on one and all nodes, "
                     "readiness."),
    "trial": Command("trainstack.trial.command", "trial_command",
                     "Choose by measuring: bring each candidate up (cheapest first, the next "
                     "zone on a stockout), bench it, tear it down, and recommend one, within "
                     "--budget-usd."),
    "local-nodes": Command("trainstack.measure.local_nodes", "local_nodes_command",
                           "Start (up N --bucket-url file://DIR) or stop (down) stand-in nodes on "
                           "this machine."),
    "init": Command("trainstack.plan.init", "init_command",
                    "Create a trainstack project: Pulumi.yaml, __main__.py, cluster.yaml, stacks/, "
                    ".gitignore."),
    "resume-check": Command("trainstack.measure.resume_check", "resume_check_cli",
                            "Prove the script resumes exactly: K steps straight vs K/2, a stop, "
                            "and a resume."),
}

_REAL_COMMAND_LINE = {"on": False}   # main() ran: consoles get the piped-output behaviour


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


def _user_error(problem: Exception, command: Callable) -> Optional[int]:
    """Print `problem` as the user's to fix and return the exit code, or None when it is not
    (then it propagates). The error classes are imported here, on the error path only."""
    from rich.markup import escape

    from trainstack.console import console
    from trainstack.cost.sizing import SizingError
    from trainstack.deploy.errors import DeployFailed
    from trainstack_components.errors import SpecError
    err = console(stderr=True)
    if isinstance(problem, DeployFailed):
        err.print(f"[bold red]pulumi failed:[/]\n{escape(str(problem))}", markup=True,
                  highlight=False)
        return 1
    if isinstance(problem, (SpecError, SizingError)):
        err.print(f"[bold red]error:[/] {escape(_as_typed(problem, command))}", markup=True,
                  highlight=False)
        return EXIT_BAD_INPUT
    if isinstance(problem, OSError) and not isinstance(problem, BrokenPipeError):
        # A path the user named that cannot be read or written (`--html /proc/r.html`, `init`
        # under a file): the path and the reason, never a traceback. A closed pipe is main()'s
        # (a clean exit 0). A write that fails after the open (`--html /dev/full`) names no file.
        where = f"{problem.filename}: " if problem.filename is not None else ""
        err.print(f"[bold red]error:[/] {escape(str(where))}"
                  f"{escape(problem.strerror or str(problem))}. Check the path"
                  f"{'' if where else 's you passed'} and its permissions, or pick another.",
                  markup=True, highlight=False)
        return EXIT_BAD_INPUT
    return None


def user_errors(command: Callable) -> Callable:
    """Bad input is one paragraph on stderr and exit 2, never a traceback. Messages quote user
    text and patterns (`[a-z]`), so they are printed escaped, never read as rich markup."""
    @wraps(command)
    def wrapper(*args, **kwargs):
        try:
            return command(*args, **kwargs)
        except Exception as problem:
            code = _user_error(problem, command)
            if code is None:
                raise
            raise typer.Exit(code) from None
    return wrapper


def load_command(name: str) -> Callable:
    """The function behind command `name`, as the app runs it (imports its module)."""
    entry = COMMANDS[name]
    function = getattr(importlib.import_module(entry.module), entry.function)
    if _REAL_COMMAND_LINE["on"]:
        from trainstack.console import prepare_consoles
        prepare_consoles()   # the consoles the command's modules made at import
    return user_errors(function) if entry.user_errors else function


class _Commands(MutableMapping[str, Any]):
    """The group's commands: those built so far, plus every COMMANDS name, built on first use."""

    def __init__(self, built: Mapping[str, Any], build: Callable[[str], Any]) -> None:
        self.built, self._build = dict(built), build

    def __getitem__(self, name: str) -> Any:
        if name not in self.built:
            if name not in COMMANDS:
                raise KeyError(name)
            self.built[name] = self._build(name)
        return self.built[name]

    def __setitem__(self, name: str, command: Any) -> None:
        self.built[name] = command

    def __delitem__(self, name: str) -> None:
        del self.built[name]

    def __iter__(self) -> Iterator[str]:
        yield from COMMANDS
        yield from (name for name in self.built if name not in COMMANDS)

    def __len__(self) -> int:
        return len(COMMANDS) + sum(name not in COMMANDS for name in self.built)


class LazyGroup(TyperGroup):
    """typer's group, whose COMMANDS are built from their modules only when looked up; the help
    listing shows each unbuilt one from its COMMANDS help."""

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        self.commands = _Commands(self.commands, self._build)

    def _build(self, name: str) -> Any:
        return typer.main.get_command_from_info(
            CommandInfo(name=name, callback=load_command(name)),
            pretty_exceptions_short=app.pretty_exceptions_short,
            rich_markup_mode=app.rich_markup_mode)

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        return self.commands.get(cmd_name)

    def list_commands(self, ctx: Any) -> list[str]:
        return list(self.commands)   # the names only: TyperGroup's items() would build them all

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        built = self.commands.built if isinstance(self.commands, _Commands) else self.commands
        listed = [(name, built[name] if name in built else
                   typer.core.TyperCommand(name=name, help=COMMANDS[name].help))
                  for name in self.list_commands(ctx)]
        rows = [(name, command) for name, command in listed if not command.hidden]
        if rows:
            # click's own listing (TyperGroup.format_commands), over those stand-ins
            limit = formatter.width - 6 - max(len(name) for name, _ in rows)
            with formatter.section("Commands"):
                formatter.write_dl([(name, command.get_short_help_str(limit))
                                    for name, command in rows])


app = typer.Typer(cls=LazyGroup, no_args_is_help=True,
                  rich_markup_mode=None,  # plain help: rich_utils costs 70 ms
                  help="One GPU training-cluster spec, built the same on every cloud trainstack "
                  f"implements ({', '.join(implemented_clouds())}), through Pulumi.")


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
    from trainstack.plan.select import set_project_override
    set_project_override(project)


def _quiet_stdout() -> None:
    """After a closed pipe (`trainstack plan | head`): nothing more reaches stdout, and the
    interpreter's final flush does not fail either."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def main() -> None:
    _REAL_COMMAND_LINE["on"] = True
    try:
        if sys.argv[1:] == ["schema"]:
            # No option, no project, one file printed: answered before typer, whose option
            # coercion imports the whole of pydantic for the group's --project and --version
            # (typer._adapters), twice the start-up the command needs (benchmarks/startup.py).
            from trainstack.cli.schema import schema
            schema()
            return
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
