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

The cache. mypy follows the provider SDK services the code uses (sdk_stubs, below): with no
cache that is about 50 CPU-seconds (it was 3.4 CPU-minutes when it read every service of the
four SDKs, about 42,000 modules), with one a few CPU-seconds. What it caches for them depends on the
interpreter (the venv's files) and mypy's version, not on the checkout, so the cache lives
outside the checkout, one folder per venv and mypy version (`cache_dir()`), and a fresh clone or
worktree on the same venv starts warm. mypy checks every cached module against its source's
hash and its options, so a checkout's own modules (the same names in another clone, different
text) are checked again whenever they differ. Two runs never use one cache at once (mypy keeps it
in one SQLite file): `run()` holds an exclusive lock on it for the run. $MYPY_CACHE_DIR, where
set, wins (mypy's own variable).

The SDKs' package roots. Each provider SDK's `__init__.py` imports every one of its service
packages under `typing.TYPE_CHECKING` (pulumi_aws 240 of them), so mypy read all 42,000 modules
to check the few services the code uses: about 3 CPU-minutes on a fresh machine, most of the
suite's type check. `sdk_stubs()` writes, under build/typing_stubs/, a stub for each SDK's root
that keeps the real root's own imports (its functions and provider) and names only the services
in SDK_SERVICES; the services themselves are still read from the installed SDK (a package stub
on MYPYPATH shadows only the module it stubs), so every call into them is checked against the
SDK's real signatures, as before. A service the code starts to use and SDK_SERVICES lacks is a
mypy error ("Module has no attribute"), never a silent Any: add it here.
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


# The provider SDK services trainstack/, components/ and policies/ use (module attributes of the
# SDK root, or `from <sdk> import <service>`): the services the root stubs name.
SDK_SERVICES = {
    "pulumi_aws": ("autoscaling", "budgets", "cloudwatch", "costexplorer", "ec2", "fsx", "iam",
                   "lambda_", "s3", "sns", "sqs", "ssm", "vpc"),
    "pulumi_gcp": ("billing", "cloudfunctionsv2", "cloudrunv2", "cloudscheduler", "compute",
                   "lustre", "monitoring", "organizations", "projects", "pubsub",
                   "serviceaccount", "servicenetworking", "storage"),
    "pulumi_azure_native": (),
    "pulumi_alicloud": (),
}
STUBS = ROOT / "build" / "typing_stubs"


def sdk_stubs() -> Path:
    """build/typing_stubs/<sdk>/__init__.pyi for each installed SDK of SDK_SERVICES: the real
    root's lines before its `if typing.TYPE_CHECKING:` block, then the services named."""
    import importlib.util
    for sdk, services in SDK_SERVICES.items():
        spec = importlib.util.find_spec(sdk)
        if spec is None or spec.origin is None:
            continue   # not installed (a one-cloud install): mypy reports what imports it
        # The root's own imports come first; from its `if typing.TYPE_CHECKING:` on, it only
        # names its services (else: lazy imports) and registers its resource modules at runtime.
        text = Path(spec.origin).read_text()
        head, found, _ = text.partition("\nif typing.TYPE_CHECKING:")
        if not found:
            continue   # an SDK of another shape: mypy reads its real root
        kept = head.splitlines() + [f"from . import {name} as {name}" for name in services]
        stub = STUBS / sdk / "__init__.pyi"
        stub.parent.mkdir(parents=True, exist_ok=True)
        text = "\n".join(kept) + "\n"
        if not stub.exists() or stub.read_text() != text:
            stub.write_text(text)
    return STUBS


def environment() -> dict[str, str]:
    """os.environ with MYPYPATH naming this tree's import root (built here if missing), the
    SDK root stubs (sdk_stubs) and MYPY_CACHE_DIR the shared cache."""
    sys.path.insert(0, str(ROOT))
    from tests.checkout import IMPORT_ROOT, activate
    activate()
    return {**os.environ,
            "MYPYPATH": os.pathsep.join([str(IMPORT_ROOT), str(ROOT), str(sdk_stubs())]),
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
