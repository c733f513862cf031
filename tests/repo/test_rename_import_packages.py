"""tools/rename_import_packages.py does the whole rename by itself (issue 25): on a copy of this
tree it rewrites everything in one run and nothing in a second, and the wheel it yields installs
next to other distributions that define `components` and `policies` modules without breaking
them or itself. Offline: wheels are built from local sources, no index."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

SCRIPT = "tools/rename_import_packages.py"


def _tree_copy(dest: Path) -> Path:
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"],
                            cwd=ROOT, capture_output=True, text=True, check=True).stdout
    for line in listed.splitlines():
        source = ROOT / line
        if source.is_file() and not line.startswith(".ci/node/"):
            (dest / line).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / line)
    return dest


def _run(argv, cwd: Path, **env) -> subprocess.CompletedProcess:
    environment = {**os.environ, **env}
    environment.pop("TRAINSTACK_PROJECT", None)
    return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=600,
                          env=environment)


def _wheel(source: Path, out: Path) -> Path:
    done = _run([sys.executable, "-m", "pip", "wheel", "--no-index", "--no-deps",
                 "--no-build-isolation", "-q", "-w", str(out), str(source)], source)
    assert done.returncode == 0, done.stdout + done.stderr
    return max(out.glob("*.whl"), key=lambda p: p.stat().st_mtime)


@pytest.fixture(scope="module")
def renamed(tmp_path_factory) -> Path:
    tree = _tree_copy(tmp_path_factory.mktemp("tree"))
    done = _run([sys.executable, SCRIPT], tree)
    assert done.returncode == 0, done.stdout + done.stderr
    return tree


def test_one_run_does_it_all_and_a_second_changes_nothing(renamed):
    again = _run([sys.executable, SCRIPT], renamed)
    assert again.returncode == 0 and "0 file(s) changed (already renamed)" in again.stdout, \
        again.stdout + again.stderr
    assert _run([sys.executable, SCRIPT, "--check"], renamed).returncode == 0
    pyproject = (renamed / "pyproject.toml").read_text()
    assert ('package-dir = {"trainstack_components" = "components", '
            '"trainstack_policies" = "policies"}') in pyproject
    for folder in ("components", "policies"):   # the folders stay where the design card says
        assert (renamed / folder / "__init__.py").is_file()
    main = (renamed / "__main__.py").read_text()
    assert "from trainstack_components.program import run" in main


def test_the_renamed_wheel_installs_next_to_squatters(renamed, tmp_path):
    squat = tmp_path / "squat"
    for name in ("components", "policies"):
        (squat / name).mkdir(parents=True)
        (squat / name / "__init__.py").write_text(f"MARK = 'someone else\\'s {name}'\n")
    (squat / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["setuptools>=68"]\nbuild-backend = "setuptools.build_meta"\n'
        '[project]\nname = "squatter"\nversion = "1.0"\n'
        '[tool.setuptools]\npackages = ["components", "policies"]\n')
    site = tmp_path / "site"
    wheels = [_wheel(squat, tmp_path / "w1"), _wheel(renamed, tmp_path / "w2")]
    done = _run([sys.executable, "-m", "pip", "install", "--no-index", "--no-deps", "-q",
                 "--target", str(site), *map(str, wheels)], tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert {p.name for p in site.iterdir()} >= {"components", "policies", "trainstack",
                                                "trainstack_components", "trainstack_policies"}
    probe = """
import json, components, policies
from trainstack.cli.app import app
from trainstack.deploy import lifecycle
import trainstack_components.program, trainstack_policies.pack
print(json.dumps([components.MARK, policies.MARK, str(lifecycle.policy_pack_dir()),
                  trainstack_components.program.__file__]))
"""
    env = {"PYTHONPATH": str(site), "COLUMNS": "200"}
    done = _run([sys.executable, "-c", probe], tmp_path, **env)
    assert done.returncode == 0, done.stderr
    marks = json.loads(done.stdout)
    assert marks[:2] == ["someone else's components", "someone else's policies"]
    assert Path(marks[2]) == site / "trainstack_policies"
    assert Path(marks[3]).is_relative_to(site)
    spec = renamed / "examples" / "cluster.yaml"
    for command in (["plan", "--json"], ["check"]):
        done = _run([sys.executable, "-m", "trainstack.cli.app", command[0], "--spec", str(spec),
                     "--cloud", "aws", *command[1:]], tmp_path, **env)
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
