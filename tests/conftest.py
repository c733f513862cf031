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
