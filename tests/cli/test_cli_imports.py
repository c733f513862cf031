"""What the CLI loads before it does anything: `--help` and `schema` answer without Pulumi or a
provider SDK, and `plan --cloud X` loads X's SDK only (benchmarks/startup.py times them)."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.conftest import ROOT

SDKS = {"aws": "pulumi_aws", "gcp": "pulumi_gcp", "azure": "pulumi_azure_native",
        "alicloud": "pulumi_alicloud"}

_PROBE = """
import json, sys
sys.argv = ["trainstack", *{args!r}]
from trainstack.cli.app import main
try:
    main()
except SystemExit:
    pass
loaded = sorted({{m.split(".")[0] for m in sys.modules}})
sys.__stdout__.write("\\nLOADED=" + json.dumps(loaded) + "\\n")
"""


def loaded_packages(*args: str) -> set[str]:
    done = subprocess.run([sys.executable, "-c", _PROBE.format(args=list(args))], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    line = next(ln for ln in reversed(done.stdout.splitlines()) if ln.startswith("LOADED="))
    return set(json.loads(line[len("LOADED="):]))


@pytest.mark.parametrize("args", [["--help"], ["schema"], ["plan", "--help"]])
def test_help_and_schema_load_no_pulumi(args):
    loaded = loaded_packages(*args)
    assert not loaded & ({"pulumi", "grpc"} | set(SDKS.values())), sorted(loaded)


def test_help_lists_every_registered_cloud_without_loading_them():
    from trainstack_components import clouds
    done = subprocess.run([sys.executable, "-m", "trainstack", "plan", "--help"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120, env={
                              **__import__("os").environ, "COLUMNS": "200"})
    assert all(name in done.stdout for name in clouds.names()), done.stdout


@pytest.mark.parametrize("cloud", sorted(SDKS))
def test_plan_loads_only_its_own_cloud_sdk(cloud):
    loaded = loaded_packages("plan", "--spec", "examples/cluster.yaml", "--cloud", cloud, "--json")
    assert loaded & set(SDKS.values()) == {SDKS[cloud]}


# -- commands are imported only when run (issue 30) ------------------------------------------------

def test_help_imports_no_command_module():
    from trainstack.cli.app import COMMANDS
    probe = _PROBE.replace('{{m.split(".")[0] for m in sys.modules}}', "set(sys.modules)")
    done = subprocess.run([sys.executable, "-c", probe.format(args=["--help"])], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    line = next(ln for ln in reversed(done.stdout.splitlines()) if ln.startswith("LOADED="))
    loaded = set(json.loads(line[len("LOADED="):]))
    modules = {entry.module for entry in COMMANDS.values()}
    assert not loaded & modules, sorted(loaded & modules)
    assert "Commands:" in done.stdout and all(name in done.stdout for name in COMMANDS)


@pytest.mark.parametrize("name", ["plan", "status", "resume-check"])
def test_a_commands_own_help_imports_its_module(name):
    from trainstack.cli.app import COMMANDS
    probe = _PROBE.replace('{{m.split(".")[0] for m in sys.modules}}', "set(sys.modules)")
    done = subprocess.run([sys.executable, "-c", probe.format(args=[name, "--help"])], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    line = next(ln for ln in reversed(done.stdout.splitlines()) if ln.startswith("LOADED="))
    assert COMMANDS[name].module in json.loads(line[len("LOADED="):])
    assert "Usage:" in done.stdout and name in done.stdout


def test_the_listed_help_is_each_commands_own_docstring():
    """`--help` shows COMMANDS' help without importing; it must say what the command's docstring
    (its own --help) says."""
    import inspect

    from trainstack.cli.app import COMMANDS, load_command
    for name, entry in COMMANDS.items():
        doc = inspect.getdoc(load_command(name)) or ""
        assert entry.help.split() == doc.split("\n\n")[0].split(), name


def test_help_listing_is_the_same_with_every_command_built():
    """The listing from COMMANDS' help (nothing imported) equals typer's own, from the commands."""
    import typer.main
    from typer import _click

    from trainstack.cli.app import COMMANDS, app
    group = typer.main.get_command(app)
    ctx = _click.Context(group, info_name="trainstack", terminal_width=100)
    lazy = group.get_help(ctx)
    assert not group.commands.built   # nothing was built to list them
    for name in COMMANDS:
        group.get_command(ctx, name)   # builds it
    assert group.get_help(ctx) == lazy
    assert len(group.commands.built) == len(COMMANDS)


def test_a_mistyped_command_is_still_answered_with_the_nearest_name():
    from typer.testing import CliRunner

    from trainstack.cli.app import app
    result = CliRunner().invoke(app, ["plna"])
    assert result.exit_code == 2
    assert "plan" in result.output
