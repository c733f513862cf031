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


def test_the_sdk_root_stubs_keep_the_roots_own_names_and_only_the_services_used():
    """tools/typecheck.py's stub of an SDK root: the real root's own imports (its functions,
    e.g. pulumi_aws.get_caller_identity_output, which components/aws/identity.py calls), the
    services of SDK_SERVICES, and not the TYPE_CHECKING block that names all 240 AWS services
    (what made mypy read 42,000 modules). Whether each service the code uses is named is
    test_the_three_packages_are_mypy_clean's: a missing one is a mypy error."""
    from tools.typecheck import SDK_SERVICES, sdk_stubs
    pytest.importorskip("pulumi_aws")
    stub = (sdk_stubs() / "pulumi_aws" / "__init__.pyi").read_text()
    assert "from .get_caller_identity import *" in stub
    assert "TYPE_CHECKING" not in stub and "accessanalyzer" not in stub
    named = re.findall(r"^from \. import (\w+) as \1$", stub, re.M)
    assert named == list(SDK_SERVICES["pulumi_aws"]) and "ec2" in named
