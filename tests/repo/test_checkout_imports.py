"""Tests import the checkout they live in, also under the installed package names (a worktree or
mutmut's mutants/ copy would otherwise test the installed tree without a word)."""
import subprocess
import sys
from pathlib import Path

import trainstack
import trainstack_components
import trainstack_policies
from tests.checkout import PYTHONPATH as CHECKOUT_PATH

ROOT = Path(__file__).resolve().parents[2]


def test_in_process_imports_come_from_this_checkout():
    assert Path(trainstack_components.__file__).resolve() == ROOT / "components" / "__init__.py"
    assert Path(trainstack_policies.__file__).resolve() == ROOT / "policies" / "__init__.py"
    assert Path(trainstack.__file__).resolve() == ROOT / "trainstack" / "__init__.py"


def test_subprocesses_given_the_checkout_path_import_it_too():
    out = subprocess.run(
        [sys.executable, "-c", "import trainstack_components, os; "
         "print(os.path.realpath(trainstack_components.__file__))"],
        env={"PYTHONPATH": CHECKOUT_PATH, "PATH": "/usr/bin:/bin"}, capture_output=True, text=True,
        check=True, cwd="/")
    assert Path(out.stdout.strip()) == ROOT / "components" / "__init__.py"
