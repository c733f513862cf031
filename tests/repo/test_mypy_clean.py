"""trainstack/, components/ and policies/ are mypy clean, whole (issue 26): the same run .ci/run
makes (tools/typecheck.py's `run()`: its command, environment and shared cache), so a type error
anywhere fails the suite. Skipped where mypy is absent (it is in the dev extra)."""
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_ci_runs_the_type_check():
    text = (ROOT / ".ci" / "run").read_text()
    assert re.search(r"^\.venv/bin/python tools/typecheck\.py\s*$", text, re.M), \
        ".ci/run must run tools/typecheck.py"


def test_the_three_packages_are_mypy_clean():
    pytest.importorskip("mypy", reason="mypy is in the dev extra: pip install -e '.[dev]'")
    from tools.typecheck import FOLDERS, run
    done = run(capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    # Every module was checked, not just the packages' __init__ (an exclude that matched
    # build/import_root/ once checked 3 files and said "Success").
    checked = int(re.search(r"no issues found in (\d+) source files", done.stdout).group(1))
    modules = sum(1 for folder in FOLDERS for _ in (ROOT / folder).rglob("*.py"))
    assert checked >= modules, (checked, modules)
