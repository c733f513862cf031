"""Shared fixtures: the example spec as data, and offline plans rendered from it."""
from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml

from trainstack.engine import Plan, render

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "cluster.yaml"


@pytest.fixture
def example_spec() -> dict:
    """A fresh, mutable copy of examples/cluster.yaml."""
    return copy.deepcopy(yaml.safe_load(EXAMPLE.read_text()))


def plan_for(spec: dict, cloud: str, stack: str = "test", extra_config: dict | None = None) -> Plan:
    """Render `spec` (a dict) for `cloud` offline, as `trainstack plan --spec` would."""
    import json
    config = {"trainstack:cloud": cloud, "trainstack:spec": json.dumps(spec),
              **(extra_config or {})}
    return render(config, stack=stack)


def one(plan, token):
    """The one resource of `token` in the plan (fails naming what it found otherwise)."""
    found = plan.of_type(token)
    assert len(found) == 1, f"expected one {token}, got {[r.name for r in found]}"
    return found[0]


def by_id(plan):
    """The mock engine gives every resource the id `<name>-id`: map ids back to resources."""
    return {f"{r.name}-id": r for r in plan.resources}


def write_spec(tmp_path: Path, spec: dict, name: str = "cluster.yaml") -> Path:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(spec, sort_keys=False))
    return path


def edited(spec: dict, **edits) -> dict:
    """A copy of `spec` with `a__b=value` set at spec["a"]["b"]; None removes the key."""
    spec = copy.deepcopy(spec)
    for path, value in edits.items():
        *parents, last = path.split("__")
        target = spec
        for key in parents:
            target = target[key]
        if value is None:
            target.pop(last, None)
        else:
            target[last] = value
    return spec


def assert_clean_error(result, *expected):
    """A CLI result that failed on bad input: exit 2, one paragraph, no traceback."""
    assert result.exit_code == 2, result.output
    text = result.output
    assert "Traceback" not in text
    for fragment in expected:
        assert fragment in text, text
    assert text.strip().count("\n") <= 3  # one paragraph (rich may wrap a long line)


def install_fake_pulumi(bin_dir: Path) -> Path:
    """Put the stand-in `pulumi` CLI (tests/fake_pulumi.py) into bin_dir."""
    import sys
    binary = bin_dir / "pulumi"
    binary.write_text(f"#!{sys.executable}\n" + (ROOT / "tests" / "fake_pulumi.py").read_text())
    binary.chmod(0o755)
    return binary


def stand_in_cli(bin_dir: Path, name: str, body: str) -> Path:
    """An executable `name` in bin_dir that runs `body` (a whole script, shebang included)."""
    path = bin_dir / name
    path.write_text(body)
    path.chmod(0o755)
    return path


def only_stand_ins_on_path(monkeypatch, tmp_path: Path, stacks: dict | None = None,
                           unset: tuple[str, ...] = ()) -> Path:
    """A bin dir that is the whole PATH, holding the stand-in `pulumi` (answering `stacks`, a
    {stack: {"outputs": ...}} map, where given); HOME in tmp_path; stand-ins log to FAKE_LOG
    (tmp_path/calls.log); PULUMI_BACKEND_URL, PULUMI_ROOT and `unset` cleared. Returns bin dir."""
    import json
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    install_fake_pulumi(bin_dir)
    if stacks is not None:
        answers = tmp_path / "stacks.json"
        answers.write_text(json.dumps(stacks))
        monkeypatch.setenv("FAKE_PULUMI_STACKS", str(answers))
    monkeypatch.setenv("PATH", str(bin_dir))
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("PULUMI_CONFIG_PASSPHRASE", "")  # the file backend's secrets opt-out
    monkeypatch.setenv("FAKE_PULUMI_LOG", str(tmp_path / "pulumi.jsonl"))
    monkeypatch.setenv("FAKE_LOG", str(tmp_path / "calls.log"))
    for var in ("PULUMI_BACKEND_URL", "PULUMI_ROOT", *unset):
        monkeypatch.delenv(var, raising=False)
    return bin_dir


@pytest.fixture
def fake_pulumi(monkeypatch, tmp_path):
    """The stand-in `pulumi` first on PATH; returns a function listing the calls it got."""
    import json
    import os
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    install_fake_pulumi(bin_dir)
    log = tmp_path / "calls.jsonl"
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("FAKE_PULUMI_LOG", str(log))
    monkeypatch.setenv("AWS_PROFILE", "test")
    monkeypatch.setenv("PULUMI_CONFIG_PASSPHRASE", "test-passphrase")
    monkeypatch.delenv("PULUMI_BACKEND_URL", raising=False)
    monkeypatch.delenv("PULUMI_ROOT", raising=False)

    def calls():
        return [json.loads(line) for line in log.read_text().splitlines()]
    return calls
