"""The README's test line relies on `--dist loadgroup` (pyproject's addopts): the torchrun and
resume-check tests carry `xdist_group` marks so that one worker runs each group, one test at a
time (their rendezvous and deadlines are timed on 2 cores) and builds the group's shared fixtures
once. pytest 9.2 with pytest-xdist 3.8 drops the marks silently (pytest-dev/pytest-xdist issue
1386): nothing fails, the groups just spread over the workers. This runs a small grouped module
under the project's own pytest configuration and checks where its tests ran."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

PROBE = '''
import os, time
import pytest

pytestmark = pytest.mark.xdist_group("probe")

@pytest.mark.parametrize("n", range(4))
def test_grouped(n, tmp_path_factory):
    out = os.environ["PROBE_OUT"]
    with open(os.path.join(out, f"grouped-{n}"), "w") as f:
        f.write(os.environ.get("PYTEST_XDIST_WORKER", "none"))
    time.sleep(0.3)       # long enough that an idle second worker would take one

@pytest.mark.xdist_group(name="other")
def test_other_group():
    time.sleep(0.3)
'''


def test_the_project_configuration_keeps_a_group_on_one_worker(tmp_path):
    pytest.importorskip("xdist")
    probe = tmp_path / "test_probe_groups.py"
    probe.write_text(PROBE)
    out = tmp_path / "out"
    out.mkdir()
    env = {**os.environ, "PROBE_OUT": str(out)}
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-n", "2", "-p", "no:cacheprovider",
         "-c", str(ROOT / "pyproject.toml"), "--rootdir", str(tmp_path),
         "--basetemp", str(tmp_path / "bt"), str(probe)],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    workers = {p.name: p.read_text() for p in out.iterdir()}
    assert len(workers) == 4, workers
    assert "none" not in workers.values(), "the probe did not run under xdist"
    assert len(set(workers.values())) == 1, (
        f"one xdist_group ran on several workers: {workers}; with pytest 9.2 and pytest-xdist "
        "3.8 `--dist loadgroup` ignores the marks (install with -c constraints.txt)")
