"""The type check: mypy over trainstack/, components/ and policies/, whole (issue 26).

    .venv/bin/python tools/typecheck.py

`.ci/run` runs this, and tests/repo/test_mypy_clean.py runs the same `command()` in the same
`environment()`, so a type error anywhere in the three packages fails CI and the test suite alike.

components/ and policies/ import as trainstack_components and trainstack_policies through
setuptools' editable finder, which mypy cannot follow. So the packages are checked under their
import names from build/import_root/ (the symlinks tests/checkout.py makes to this tree's folders),
with that and the repository root first on MYPYPATH. The configuration is pyproject's
[tool.mypy]; its exclude keeps build/ out except build/import_root/.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("trainstack", "trainstack_components", "trainstack_policies")
FOLDERS = ("trainstack", "components", "policies")   # the same packages, as folders


def environment() -> dict[str, str]:
    """os.environ with MYPYPATH naming this tree's import root (built here if missing)."""
    sys.path.insert(0, str(ROOT))
    from tests.checkout import IMPORT_ROOT, activate
    activate()
    return {**os.environ, "MYPYPATH": os.pathsep.join([str(IMPORT_ROOT), str(ROOT)])}


def command() -> list[str]:
    return [sys.executable, "-m", "mypy", *(arg for p in PACKAGES for arg in ("-p", p))]


def main() -> int:
    return subprocess.run(command(), cwd=ROOT, env=environment(), check=False).returncode


if __name__ == "__main__":
    sys.exit(main())
