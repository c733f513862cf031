"""The layering check: import-linter's contracts (pyproject's [tool.importlinter]) over this tree.

    .venv/bin/python tools/layers.py

The contracts state ARCHITECTURE.md's layers and rules. components/ and policies/ import as
trainstack_components and trainstack_policies; grimp finds packages on sys.path, so the check
runs with this tree's import root (build/import_root/, tests/checkout.py) and the tree first on
PYTHONPATH, never the installed tree. `.ci/run` and tests/repo/test_layers.py run this same
`command()` in the same `environment()`.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def environment() -> dict[str, str]:
    """os.environ with PYTHONPATH naming this tree's import root (built here if missing)."""
    sys.path.insert(0, str(ROOT))
    from tests.checkout import PYTHONPATH, activate
    activate()
    return {**os.environ, "PYTHONPATH": PYTHONPATH}


def command() -> list[str]:
    # --no-cache: no .import_linter_cache/ in the tree; the graph takes under a second to build.
    return [sys.executable, "-c", "import sys; from importlinter.cli import lint_imports_command; "
            "sys.exit(lint_imports_command())", str(ROOT / "pyproject.toml"),
            "--no-cache", "--no-logo"]


def main() -> int:
    return subprocess.run(command(), cwd=ROOT, env=environment(), check=False).returncode


if __name__ == "__main__":
    sys.exit(main())
