"""`trainstack check`: the policy pack's verdicts on an offline plan, with no cloud credentials.

Renders the stack (or spec + cloud) under the mock engine, runs the very rules the CrossGuard
pack runs (policies/runner.py), configured the way `pulumi preview --policy-pack-config FILE`
configures them (policies/pack_config.py), and prints the verdicts as a table, as markdown for a
pull-request summary, as JSON, or as SARIF 2.1.0 for code scanning. Exit 1 when a mandatory
policy is violated, 0 otherwise, 2 on bad input (a bad spec, stack or policy config).
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Optional

import typer
from rich.console import Console
from rich.table import Table

from trainstack.plan.select import CloudOpt, ProjectOpt, SpecOpt, StackOpt
from trainstack_components.errors import SpecError

FORMATS = ("table", "markdown", "json", "sarif")
EXIT_VIOLATION = 1

out = Console(soft_wrap=True)
err = Console(stderr=True, soft_wrap=True)

_MARK = {"pass": "pass", "fail": "FAIL", "disabled": "disabled", "unknown": "unknown"}


_CONFIG_EXAMPLE = ("Use the CrossGuard format, e.g. {\"all\": \"advisory\", \"spend-limit\": "
                   "{\"enforcementLevel\": \"mandatory\", \"maxMonthlyUsd\": 1000}}.")


def _read_policy_config(path: Path):
    """The file parsed like trainstack_policies.pack_config.load, but read as users save it (UTF-8 or a
    UTF-16 BOM file, trainstack_components.spec.read_text): a bad encoding is exit 2, not a traceback."""
    from trainstack_components.spec import read_text
    from trainstack_policies.pack_config import PolicyConfigError, parse_text
    if not path.exists():
        raise PolicyConfigError(f"{path}: cannot be read (it does not exist)")
    text = read_text(path, "policy config")
    parsed = parse_text(path, text)
    data = json.loads(text) if text.strip() else {}
    if isinstance(data, dict):
        # parse() drops an entry with no settings, as the Pulumi CLI does; a misspelt name must
        # still be named, not pass silently.
        from trainstack_policies.rules import RULES
        known = {r.name for r in RULES} | {"all"}
        unknown = sorted(str(name) for name in data if name not in known)
        if unknown:
            raise PolicyConfigError(f"{', '.join(map(repr, unknown))} is not a policy of this pack "
                                    f"(known: {', '.join(sorted(known - {'all'}))})")
    return parsed


def policy_config(path: Optional[Path]):
    """The reconciled config, or SpecError (exit 2) naming the file and the problem.

    An unknown policy name or property is refused here although the Pulumi CLI only ignores it:
    a typo such as `maxMonthlyUSD` would otherwise drop the cap and pass."""
    from trainstack_policies.pack_config import PolicyConfigError, reconcile
    where = f"--policy-config {path}" if path else "policy config"
    try:
        config, warnings = reconcile(_read_policy_config(path) if path else None)
    except PolicyConfigError as problem:
        raise SpecError(where, f"{problem}.", _CONFIG_EXAMPLE) from None
    if warnings:
        raise SpecError(where, "; ".join(warnings) + ".",
                        "Fix the spelling (a setting the pack does not know is never applied).")
    return config, warnings


def run_check(plan: Any, config=None) -> list:
    """The verdicts on a rendered plan (config: trainstack_policies.pack_config.reconcile()'s result)."""
    from trainstack_policies.model import from_plan
    from trainstack_policies.runner import evaluate
    return evaluate(from_plan(plan), config)


def _result(v) -> str:
    if v.status == "fail":
        return f"FAIL ({len(v.violations)})" + (" - blocks" if v.blocking else "")
    return _MARK[v.status]


def render_json(plan, verdicts) -> str:
    from trainstack_policies.runner import blocking
    return json.dumps({"stack": plan.stack, "cloud": plan.cloud,
                       "blocking": blocking(verdicts),
                       "policies": [v.to_json() for v in verdicts]}, indent=2, sort_keys=True)


def _spec_of_stack(stack_file: Path) -> Optional[Path]:
    """The spec file a stack file names (trainstack:specFile, relative to the project)."""
    import yaml

    from trainstack import PROJECT_DIR
    try:
        config = (yaml.safe_load(stack_file.read_text(encoding="utf-8")) or {}).get("config")
    except (OSError, yaml.YAMLError, AttributeError):
        return None
    name = config.get("trainstack:specFile") if isinstance(config, dict) else None
    return PROJECT_DIR / (name or "examples/cluster.yaml")


def render_sarif(plan, verdicts, stack: Optional[str], spec: Optional[Path],
                 docs_url: Optional[str] = None) -> str:
    """SARIF 2.1.0 (trainstack/check/sarif.py); each result at the spec line of the field to change:
    in the stack file's overrides when set there, else in the spec it names (or --spec)."""
    from importlib.metadata import PackageNotFoundError, version

    from trainstack import PROJECT_DIR

    from trainstack.check import sarif
    source = spec if spec is not None else PROJECT_DIR / "stacks" / f"Pulumi.{stack}.yaml"
    sources = [Path(source)]
    if spec is None:
        named = _spec_of_stack(Path(source))
        if named is not None:
            sources.append(named)
    try:
        tool_version = version("trainstack")
    except PackageNotFoundError:
        tool_version = None
    return json.dumps(sarif.render(plan, verdicts, Path(source), PROJECT_DIR, tool_version,
                                   sources, docs_url), indent=2)


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_markdown(plan, verdicts) -> str:
    from trainstack_policies.runner import blocking
    verdict = ("**blocked**: a mandatory policy is violated" if blocking(verdicts)
               else "passes every mandatory policy")
    lines = [f"### trainstack check: stack `{plan.stack}` ({plan.cloud})", "",
             f"{len(plan.resources)} resources planned offline; {verdict}.", "",
             "| policy | level | result | details |", "| --- | --- | --- | --- |"]
    for v in verdicts:
        lines.append(f"| `{v.policy}` | {v.enforcement_level} | {_result(v)} | "
                     f"{_md(v.note or v.unknown)} |")
    failing = [v for v in verdicts if v.violations]
    if failing:
        lines += ["", "#### Violations", ""]
        for v in failing:
            for violation in v.violations:
                lines.append(f"- **{v.policy}** ({v.reported_level}): {_md(violation.message)}")
    exempt = [e for v in verdicts for e in v.exemptions]
    if exempt:
        lines += ["", "#### Exemptions", ""] + [f"- {_md(e.message)}" for e in exempt]
    return "\n".join(lines) + "\n"


def print_table(plan, verdicts) -> None:
    from trainstack_policies.runner import blocking
    table = Table(title=f"trainstack check: stack {plan.stack} ({plan.cloud})")
    for column in ("policy", "level", "result", "details"):
        table.add_column(column, overflow="fold")
    for v in verdicts:
        style = "red" if v.blocking else "yellow" if v.status in ("fail", "unknown") else None
        table.add_row(v.policy, v.enforcement_level, _result(v), v.note or v.unknown, style=style)
    out.print(table)
    for v in verdicts:
        for violation in v.violations:
            out.print(f"[bold]{v.policy}[/] ({v.reported_level}): ", end="", markup=True)
            out.print(violation.message, markup=False, highlight=False)
        for e in v.exemptions:
            out.print(f"exempt: {e.message}", markup=False, highlight=False)
    out.print("blocked: a mandatory policy is violated" if blocking(verdicts)
              else "ok: no mandatory policy is violated", markup=False, highlight=False)


def check_command(
    stack: Optional[str] = StackOpt,
    spec: Optional[Path] = SpecOpt,
    cloud: Optional[str] = CloudOpt,
    project: Optional[Path] = ProjectOpt,
    policy_config_file: Optional[Path] = typer.Option(
        None, "--policy-config", help="Policy config in the CrossGuard format, as for `pulumi "
        "preview --policy-pack-config`."),
    output: str = typer.Option("table", "--format", help="table | markdown | json | sarif "
                               "(SARIF 2.1.0 for GitHub code scanning)"),
    docs_url: Optional[str] = typer.Option(
        None, "--docs-url", envvar="TRAINSTACK_DOCS_URL",
        help="Where the policy docs live (SARIF helpUri = <url>#<policy>); default: the "
             "pack's docs/policies.md on GitHub."),
):
    """Run the policy pack's rules on the offline plan; exit 1 on a mandatory violation."""
    from trainstack.plan.select import render_plan
    from trainstack_policies.runner import blocking
    if output not in FORMATS:
        raise SpecError("--format", f"{output!r} is not a format of check.",
                        f"Use one of: {', '.join(FORMATS)}.")
    config, warnings = policy_config(policy_config_file)  # bad config: exit 2 before rendering
    plan = render_plan(stack, spec, cloud, project)
    verdicts = run_check(plan, config)
    for warning in warnings:
        err.print(f"warning: policy config: {warning}", markup=False, highlight=False)
    from trainstack.deploy.bootstrap import deploy_notes
    for note in deploy_notes(plan.cloud):
        err.print(f"note: {note}", markup=False, highlight=False)
    for warning in plan.warnings:  # missing stack config (trainstack/plan/required_config.py)
        err.print(warning, markup=False, highlight=False)
    if output == "json":
        print(render_json(plan, verdicts))
    elif output == "sarif":
        print(render_sarif(plan, verdicts, stack, spec, docs_url))
    elif output == "markdown":
        print(render_markdown(plan, verdicts), end="")
    else:
        print_table(plan, verdicts)
    if blocking(verdicts):
        raise typer.Exit(EXIT_VIOLATION)
