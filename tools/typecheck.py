"""The type check: mypy over trainstack/, components/ and policies/, whole (issue 26).

    .venv/bin/python tools/typecheck.py

`.ci/run` runs this, and tests/repo/test_mypy_clean.py runs the same `run()` (the same
`command()` in the same `environment()`), so a type error anywhere in the three packages fails CI
and the test suite alike.

components/ and policies/ import as trainstack_components and trainstack_policies through
setuptools' editable finder, which mypy cannot follow. So the packages are checked under their
import names from build/import_root/ (the symlinks tests/checkout.py makes to this tree's folders),
with that and the repository root first on MYPYPATH. The configuration is pyproject's
[tool.mypy]; its exclude keeps build/ out except build/import_root/.

The cache. mypy follows the four provider SDKs (about 42,000 modules): with no cache that is
about 2 CPU-minutes, with one about 2 CPU-seconds. What it caches for them depends on the
interpreter (the venv's files) and mypy's version, not on the checkout, so the cache lives
outside the checkout, one folder per venv and mypy version (`cache_dir()`), and a fresh clone or
worktree on the same venv starts warm. mypy checks every cached module against its source's
hash and its options, so a checkout's own modules (the same names in another clone, different
text) are checked again whenever they differ. Two runs never use one cache at once (mypy keeps it
in one SQLite file): `run()` holds an exclusive lock on it for the run. $MYPY_CACHE_DIR, where
set, wins (mypy's own variable).
"""
from __future__ import annotations

import fcntl
import hashlib
import os
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("trainstack", "trainstack_components", "trainstack_policies")
FOLDERS = ("trainstack", "components", "policies")   # the same packages, as folders


def cache_dir() -> Path:
    """$MYPY_CACHE_DIR, else a folder under the user's cache keyed by this interpreter's prefix,
    its version and mypy's version."""
    if os.environ.get("MYPY_CACHE_DIR"):
        return Path(os.environ["MYPY_CACHE_DIR"])
    from importlib.metadata import version
    key = hashlib.sha256("\0".join([os.path.realpath(sys.prefix), sys.version,
                                    version("mypy")]).encode()).hexdigest()[:16]
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "trainstack" / f"mypy-{key}"


def environment() -> dict[str, str]:
    """os.environ with MYPYPATH naming this tree's import root (built here if missing) and
    MYPY_CACHE_DIR the shared cache."""
    sys.path.insert(0, str(ROOT))
    from tests.checkout import IMPORT_ROOT, activate
    activate()
    return {**os.environ, "MYPYPATH": os.pathsep.join([str(IMPORT_ROOT), str(ROOT)]),
            "MYPY_CACHE_DIR": str(cache_dir())}


def command() -> list[str]:
    return [sys.executable, "-m", "mypy", *(arg for p in PACKAGES for arg in ("-p", p))]


@contextmanager
def cache_lock(cache: Path):
    """Held while mypy runs on `cache`: a second run (another checkout, another test worker)
    waits for the first instead of writing the same SQLite file at once."""
    cache.parent.mkdir(parents=True, exist_ok=True)
    with open(cache.parent / f".{cache.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def run(**kwargs) -> subprocess.CompletedProcess:
    """`command()` in `environment()` from the repository root, under the cache's lock."""
    env = environment()
    with cache_lock(Path(env["MYPY_CACHE_DIR"])):
        return subprocess.run(command(), cwd=ROOT, env=env, check=False, **kwargs)


def main() -> int:
    return run().returncode


if __name__ == "__main__":
    sys.exit(main())
