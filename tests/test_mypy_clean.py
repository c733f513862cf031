"""The modules .ci/run type-checks stay mypy clean (issue 26); skipped where mypy is absent."""
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_the_ci_mypy_modules_are_clean():
    pytest.importorskip("mypy", reason="mypy is in the dev extra: pip install -e '.[dev]'")
    text = (ROOT / ".ci" / "run").read_text()
    command = re.search(r"\.venv/bin/mypy (.+?)\n(?!\s)", text, re.S).group(1)
    paths = command.replace("\\\n", " ").split()
    assert "trainstack/compare.py" in paths and "components/memory.py" in paths
    exe = shutil.which("mypy") or sys.executable
    args = ([exe] if exe.endswith("mypy") else [sys.executable, "-m", "mypy"]) + paths
    run = subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-3000:]
