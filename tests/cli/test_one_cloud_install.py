"""A one-cloud install (issue 36): `pip install 'trainstack[aws]'` brings the AWS provider SDK
and no other. Here the other clouds' SDKs are taken out of the interpreter's view, as if that
extra alone had been installed: the AWS plan works, `plan --cloud gcp` names the extra to install
in one line (exit 2), and `compare` prices AWS and says which clouds it could not render and how
to add them (exit 1: a cloud that could not be planned makes a comparison incomplete).

The view: a folder of links to every entry of the real site-packages but the hidden SDKs,
swapped in for site-packages by a sitecustomize.py on PYTHONPATH (after the .pth files ran), so
that `import pulumi_gcp` fails exactly as in an environment that never installed it."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from tests.checkout import PYTHONPATH as CHECKOUT_PATH
from tests.conftest import ROOT

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    from pip._vendor import tomli as tomllib

SITE = Path(sysconfig.get_paths()["purelib"])
# What `trainstack[aws]` leaves out: the three other clouds' SDKs (pulumi-command is Google
# Cloud's: the Managed Lustre import), as distributions and their import packages.
NOT_IN_AWS = ("pulumi_gcp", "pulumi_azure_native", "pulumi_alicloud", "pulumi_command")
SITECUSTOMIZE = """
import os, sys
_real, _view = os.path.realpath(os.environ["HIDE_SITE"]), os.environ["SITE_VIEW"]
sys.path[:] = [_view if os.path.realpath(p) == _real else p for p in sys.path]
"""


def _hidden(name: str, hide: tuple[str, ...]) -> bool:
    """A site-packages entry of a hidden distribution: its package or its dist-info."""
    return any(name == module or re.fullmatch(rf"{module}-[^-]+\.dist-info", name)
               for module in hide)


def make_view(root: Path, hide: tuple[str, ...]) -> dict[str, str]:
    """The environment of a Python that sees site-packages without the `hide` SDKs."""
    view = root / "site"
    view.mkdir(parents=True)
    for entry in SITE.iterdir():
        if not _hidden(entry.name, hide):
            (view / entry.name).symlink_to(entry)
    custom = root / "custom"
    custom.mkdir()
    (custom / "sitecustomize.py").write_text(SITECUSTOMIZE)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(custom), CHECKOUT_PATH]),
           "HIDE_SITE": str(SITE), "SITE_VIEW": str(view), "COLUMNS": "250"}
    env.pop("TRAINSTACK_PROJECT", None)
    return env


@pytest.fixture(scope="module")
def aws_only(tmp_path_factory) -> dict[str, str]:
    return make_view(tmp_path_factory.mktemp("aws-only"), NOT_IN_AWS)


def trainstack(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "trainstack", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)


def test_the_view_hides_the_sdks_as_an_aws_only_install_would(aws_only):
    """The stand-in is honest: the hidden SDKs cannot be imported, the AWS one can."""
    probe = ("import importlib.util as u, json; print(json.dumps({m: u.find_spec(m) is not None "
             f"for m in {[*NOT_IN_AWS, 'pulumi_aws', 'pulumi']!r}}}))")
    done = subprocess.run([sys.executable, "-c", probe], env=aws_only, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {**{m: False for m in NOT_IN_AWS}, "pulumi_aws": True,
                                       "pulumi": True}
    done = subprocess.run([sys.executable, "-c", "import pulumi_gcp"], env=aws_only,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and "No module named 'pulumi_gcp'" in done.stderr


def test_the_main_job_plans_aws_with_the_aws_sdk_alone(aws_only):
    done = trainstack(aws_only, "plan", "--spec", "examples/cluster.yaml", "--cloud", "aws",
                      "--json")
    assert done.returncode == 0, done.stderr
    plan = json.loads(done.stdout)
    assert plan["cloud"] == "aws" and any(r["type"] == "aws:autoscaling/group:Group"
                                          for r in plan["resources"])


def test_estimate_needs_no_provider_sdk(aws_only):
    done = trainstack(aws_only, "estimate", "--spec", "examples/cluster.yaml")
    assert done.returncode == 0, done.stderr


def test_plan_of_a_cloud_without_its_sdk_names_the_extra(aws_only):
    done = trainstack(aws_only, "plan", "--spec", "examples/cluster.yaml", "--cloud", "gcp")
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr and done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, lines   # one paragraph, on one line at 250 columns
    assert lines[0].startswith("error: cloud gcp: needs the Pulumi provider SDK pulumi_gcp and "
                               "pulumi_command, which are not installed")
    assert "pip install 'trainstack[gcp]'" in lines[0] and "pip install -e '.[gcp]'" in lines[0]


@pytest.mark.parametrize("cloud, module", [("azure", "pulumi_azure_native"),
                                           ("alicloud", "pulumi_alicloud")])
def test_every_cloud_names_its_own_extra(aws_only, cloud, module):
    done = trainstack(aws_only, "check", "--spec", "examples/cluster.yaml", "--cloud", cloud)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert f"needs the Pulumi provider SDK {module}, which is not installed" in done.stderr
    assert f"pip install 'trainstack[{cloud}]'" in done.stderr and "Traceback" not in done.stderr


def test_gcp_needs_pulumi_command_too(tmp_path):
    """pulumi-gcp without pulumi-command (both are the gcp extra): the missing one is named."""
    env = make_view(tmp_path, ("pulumi_command",))
    done = trainstack(env, "plan", "--spec", "examples/cluster.yaml", "--cloud", "gcp")
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "needs the Pulumi provider SDK pulumi_command, which is not installed" in done.stderr
    assert "pulumi_gcp" not in done.stderr and "trainstack[gcp]" in done.stderr


def test_compare_prices_what_it_can_and_names_the_clouds_to_add(aws_only):
    done = trainstack(aws_only, "compare", "--spec", "examples/cluster.yaml")
    # Incomplete comparison: exit 1, as when a cloud's selection fails (trainstack/cost/compare.py).
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr
    status = next(ln for ln in done.stdout.splitlines() if ln.lstrip("│┃| ").startswith("status"))
    assert status.count("not rendered: SDK not installed (below)") == 3 and " ok " in status
    # One line per cloud not rendered, in compare's order (components/spec.py CLOUDS).
    for cloud, module in (("gcp", "pulumi_gcp and pulumi_command"),
                          ("azure", "pulumi_azure_native"), ("alicloud", "pulumi_alicloud")):
        assert (f"{cloud}: not rendered: cloud {cloud}: needs the Pulumi provider SDK {module}"
                in done.stdout)
        assert f"pip install 'trainstack[{cloud}]'" in done.stdout
    assert "selection failed" not in done.stdout + done.stderr
    assert done.stderr.strip() == (
        "error: compare could not render gcp, azure, alicloud: the provider SDK is not "
        "installed; add it with pip install 'trainstack[gcp,azure,alicloud]' (from a checkout: "
        "pip install -e '.[gcp,azure,alicloud]'), or remove those clouds from the spec.")


def test_compare_json_keeps_the_aws_row_priced_and_the_others_in_error(aws_only):
    done = trainstack(aws_only, "compare", "--spec", "examples/cluster.yaml", "--json")
    assert done.returncode == 1, done.stderr
    rows = {r["cloud"]: r for r in json.loads(done.stdout)["clouds"]}
    assert rows["aws"]["status"] == "ok" and rows["aws"]["cost"]["total"] > 0
    for cloud in ("gcp", "azure", "alicloud"):
        assert rows[cloud]["status"] == "error"
        assert f"pip install 'trainstack[{cloud}]'" in rows[cloud]["message"]


def test_bootstrap_aws_without_the_aws_sdk_names_the_extra(tmp_path):
    env = make_view(tmp_path, ("pulumi_aws",))
    done = trainstack(env, "bootstrap", "aws", "--skip-credential-check", "--skip-account-check")
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "pip install 'trainstack[aws]'" in done.stderr and "Traceback" not in done.stderr


# -- the extras and the registry agree -------------------------------------------------------

def test_each_cloud_extra_installs_the_modules_its_components_import():
    """pyproject's extra per cloud provides exactly the modules components/clouds.py requires
    (which distribution provides a module: the installed metadata, not our code)."""
    from importlib.metadata import packages_distributions

    from packaging.requirements import Requirement
    from trainstack_components import clouds
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    provides = packages_distributions()

    def normal(name: str) -> str:   # PEP 503: pulumi_gcp and pulumi-gcp are one distribution
        return re.sub(r"[-_.]+", "-", name).lower()
    for cloud in clouds.names():
        wanted = {normal(Requirement(r).name) for r in extras[cloud]}
        given = {normal(d) for module in clouds.CLOUD_SDKS[cloud] for d in provides[module]}
        assert wanted == given, (cloud, wanted, given)
    assert extras["all"] == [f"trainstack[{','.join(['aws', 'gcp', 'azure', 'alicloud'])}]"]
    assert set(clouds.CLOUD_SDKS) == set(clouds.names()) == {"aws", "gcp", "azure", "alicloud"}
