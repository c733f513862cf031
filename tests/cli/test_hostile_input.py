"""Every command, driven with hostile input (issue 25): specs, stack files, flags and paths that
hypothesis makes up. Whatever comes in, the command ends with exit 0, 1 or 2 and no traceback.

Example counts are modest on purpose (CI time); each property still covers every command. PATH
holds no `pulumi` and no cloud CLI, so the commands that need one stop with their one-line
message instead of touching anything real.
"""
from __future__ import annotations

import copy
import tempfile
import traceback
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from tests.conftest import EXAMPLE
from trainstack.plan.init import write_project

runner = CliRunner()
SETTINGS = settings(max_examples=25, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])
BASE = yaml.safe_load(EXAMPLE.read_text())
# One cloud, so that compare renders one plan per example instead of four.
ONE_CLOUD = yaml.safe_dump({**BASE, "clouds": {"aws": BASE["clouds"]["aws"]}})

# Values a user (or a broken tool) may put anywhere.
scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-2**70, 2**70),
    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=30),
    st.sampled_from(["", " ", "13e9", "1e400", "-0", "nan", ".inf", "aws", "us-east-1", "H100",
                     "nodes=4", "{nodes: 4}", "[", "trainstack:cloud", ":cloud:", "[bold]x[/]",
                     "\x00", "é" * 5, "../../etc/passwd"]))
values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=8), inner, max_size=3)),
    max_leaves=8)


def _paths(data: object, prefix: tuple = ()) -> list[tuple]:
    out = [prefix] if prefix else []
    if isinstance(data, dict):
        for key, value in data.items():
            out += _paths(value, prefix + (key,))
    return out


SPEC_PATHS = _paths(BASE)


def _clean(result, argv) -> None:
    """Exit 0/1/2, and nothing escaped but a clean exit."""
    error = result.exception
    if error is not None and not isinstance(error, SystemExit):
        trace = "".join(traceback.format_exception(type(error), error, error.__traceback__))
        pytest.fail(f"trainstack {argv!r} raised:\n{trace}")
    assert result.exit_code in (0, 1, 2), (argv, result.exit_code, result.output)
    assert "Traceback" not in result.output, (argv, result.output)


def _invoke(argv: list[str]):
    from trainstack.cli.app import app
    result = runner.invoke(app, argv)
    _clean(result, argv)
    return result


@pytest.fixture(autouse=True)
def _no_real_tools(monkeypatch, tmp_path):
    """No pulumi, no cloud CLI, no credentials, no project from the environment."""
    bin_dir = tmp_path / "empty-bin"
    bin_dir.mkdir()
    monkeypatch.setenv("PATH", str(bin_dir))
    monkeypatch.setenv("HOME", str(tmp_path))
    for var in ("TRAINSTACK_PROJECT", "PULUMI_BACKEND_URL", "PULUMI_ROOT", "AWS_PROFILE",
                "AWS_ACCESS_KEY_ID", "GOOGLE_APPLICATION_CREDENTIALS"):
        monkeypatch.delenv(var, raising=False)


@SETTINGS
@given(where=st.sampled_from(SPEC_PATHS), value=values,
       command=st.sampled_from([["plan", "--cloud", "aws"], ["plan", "--cloud", "gcp"],
                                ["check", "--cloud", "azure"], ["plan", "--cloud", "alicloud"],
                                ["estimate"], ["estimate", "--cloud", "aws"]]))
def test_any_spec_field_set_to_anything(where, value, command):
    spec = copy.deepcopy(BASE)
    target = spec
    for key in where[:-1]:
        target = target[key]
    target[where[-1]] = value
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "cluster.yaml"
        path.write_text(yaml.safe_dump(spec, allow_unicode=True))
        _invoke([command[0], "--spec", str(path), *command[1:]])


@SETTINGS
@given(text=st.one_of(
    st.text(max_size=200), st.binary(max_size=100).map(lambda b: b.decode("latin-1")),
    st.sampled_from(["", "---\n", "a: [", "- 1\n- 2", "!!python/object:os.system x", "&a [*a]",
                     "x: &a 1\ny: *b", "{" * 3000])),
       command=st.sampled_from([["plan", "--cloud", "aws"], ["check"], ["estimate"],
                                ["compare"]]))
def test_any_text_as_a_spec_file(text, command):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "cluster.yaml"
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
        _invoke([command[0], "--spec", str(path), *command[1:]])


@SETTINGS
@given(config=st.dictionaries(
    st.sampled_from(["trainstack:overrides", "trainstack:spec", "trainstack:specFile",
                     "aws:region", "gcp:region", "trainstack:lifetimeStart", "cloud",
                     "overrides"]), values, max_size=3),
    cloud=st.sampled_from(["aws", "gcp", None, "", "mars", 7]),
    raw=st.one_of(st.none(), st.none(), st.none(), st.text(max_size=60)),
    command=st.sampled_from(["plan", "check", "up", "preview", "destroy", "connect", "status"]))
def test_any_stack_file(config, cloud, raw, command):
    with tempfile.TemporaryDirectory() as folder:
        project = Path(folder) / "proj"
        write_project(project)
        stack = project / "stacks" / "Pulumi.aws.yaml"
        config = {"trainstack:cloud": cloud, **config}
        stack.write_text(raw if raw is not None else yaml.safe_dump({"config": config},
                                                                    allow_unicode=True))
        _invoke(["--project", str(project), command, "--stack", "aws"])


FLAG_VALUES = st.one_of(st.text(max_size=12), st.sampled_from(
    ["", "-1", "0", "nan", "inf", "-inf", "1e400", "1e-400", "13e9", "999999999999", "H100",
     "full", "CNY", "--", "-", "true", "\x00"]))
ESTIMATE_FLAGS = ["--params", "--preset", "--method", "--precision", "--zero-stage", "--gpus",
                  "--gpu", "--seq-len", "--micro-batch", "--layers", "--hidden", "--heads",
                  "--recompute-mode", "--lora-rank", "--tokens", "--mfu", "--flops-factor",
                  "--peak-tflops", "--scaling-efficiency", "--fabric", "--gpus-per-node",
                  "--headroom", "--price-per-gpu-hour", "--price-currency", "--currency",
                  "--cny-rate", "--idle-overhead", "--preemption-overhead", "--cloud"]
COMPARE_FLAGS = ["--currency", "--cny-rate", "--bucket-gb", "--transfer-gb", "--idle-overhead",
                 "--preemption-overhead"]


@SETTINGS
@given(flags=st.lists(st.tuples(st.sampled_from(ESTIMATE_FLAGS), FLAG_VALUES), min_size=1,
                      max_size=4),
       base=st.sampled_from([["--params", "7e9", "--tokens", "1e9"], ["--spec", str(EXAMPLE)],
                             []]))
def test_estimate_with_any_flags(flags, base):
    _invoke(["estimate", *base, *[part for flag in flags for part in flag]])


@SETTINGS
@given(flags=st.lists(st.tuples(st.sampled_from(COMPARE_FLAGS), FLAG_VALUES), min_size=1,
                      max_size=3))
def test_compare_with_any_flags(flags):
    with tempfile.TemporaryDirectory() as folder:
        spec = Path(folder) / "one.yaml"
        spec.write_text(ONE_CLOUD)
        _invoke(["compare", "--spec", str(spec), "--json",
                 *[part for flag in flags for part in flag]])


def _hostile_paths(root: Path) -> list[str]:
    blocker = root / "a-file"
    blocker.write_text("x")
    (root / "a-dir").mkdir(exist_ok=True)
    # Nothing here may be a place a command could really write to outside `root` (`init /` as
    # root would make / a project for every later test on the machine).
    return ["", ".", "/proc/x", "/proc/1/x", "/dev/null", "/dev/full", str(blocker),
            str(blocker / "below"), str(root / "a-dir"), str(root / "missing" / "deeper"),
            str(root / "new name with spaces"), "-", "--", "x" * 300, str(root / "é\u202e")]


@pytest.mark.parametrize("command", [
    ["plan", "--cloud", "aws", "--spec"], ["check", "--spec"], ["estimate", "--spec"],
    ["compare", "--spec"], ["compare", "--spec", "one.yaml", "--html"],
    ["check", "--spec", "one.yaml", "--policy-config"], ["init"],
    ["--project"], ["reap", "--dry-run", "--audit-log"], ["status", "--bucket-url"]])
def test_every_hostile_path(command, tmp_path, monkeypatch):
    """Every path option against every kind of bad path (a grid, not a sample: it is small)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "one.yaml").write_text(ONE_CLOUD)
    for path in _hostile_paths(tmp_path):
        argv = [*command, path] + (["plan", "--stack", "aws"] if command == ["--project"] else [])
        _invoke(argv)


@pytest.mark.parametrize("argv", [
    ["bootstrap", "--cloud", "aws"], ["reap", "--dry-run"], ["up", "--stack", "aws"],
    ["connect", "--stack", "aws", "--node", "-1"], ["status"], ["schema"],
    ["plan"], ["check"], ["estimate"], ["compare"], ["init", "--help"]])
def test_every_command_without_its_tools_or_input(argv, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _invoke(argv)
