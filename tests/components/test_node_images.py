"""Issue 31: what each default node image holds (components/catalog/node_images.csv), what the
boot installs on top of it, the training image's CUDA against the image's driver (NVIDIA's
table, cuda_drivers.csv), and the findings of the boot-to-first-run review, each a test that
fails on the code before the fix."""
import json
import os
import sys
from pathlib import Path

import pytest

from tests.boot_helpers import boot_node, run_step, stand_in, step_text, user_data
from tests.conftest import EXAMPLE
from trainstack_components.agents import job_agent
from trainstack_components.azure import planning as azure_planning
from trainstack_components.catalog import node_images, runtime_images
from trainstack_components.errors import SpecError
from trainstack_components.program import resolve

CLOUDS = ("aws", "gcp", "azure", "alicloud")


@pytest.mark.parametrize("cloud", CLOUDS)
def test_every_default_image_has_a_cited_manifest(cloud):
    items = node_images.manifest(cloud)
    assert set(items) == set(node_images.ITEMS)
    for line in items.values():
        assert line.source, f"{cloud} {line.item}: no source"


def test_the_azure_manifest_is_the_image_the_plan_pins():
    assert azure_planning.IMAGE["version"] in node_images.image_name("azure")


# Hand-picked from NVIDIA's tables (cuda_drivers.csv): CUDA 13.x needs >= 580.65.06 or a
# forward-compatible branch (R470, R525, R535, R550); R560 is not one.
@pytest.mark.parametrize("driver, cuda, runs", [
    ("560.35.03", "13.1", False),    # the Azure HPC image pinned before issue 31
    ("545.23.08", "13.0", False),    # a feature branch, not forward-compatible
    ("580.126.16", "13.1", True),
    ("550.127.08", "13.1", True),    # R550: forward-compatibility mode (Alibaba's boot driver)
    ("560.35.03", "12.6", True),     # CUDA 12.x: minor version compatibility from 525.60.13
    ("520.61.05", "12.0", False),
])
def test_cuda_against_the_driver(driver, cuda, runs):
    assert node_images.cuda_runs(driver, cuda) is runs


def test_every_default_training_image_runs_on_its_node_image():
    for cloud in CLOUDS:
        row = runtime_images.defaults()[cloud]
        assert node_images.check_cuda(cloud, row["cuda"], row["image"]) is None, cloud


def test_the_plan_refuses_a_training_image_the_driver_cannot_run(monkeypatch):
    """The Azure node image as it was (driver 560) with the default image (CUDA 13.1)."""
    old = dict(node_images.manifest("azure"))
    old["driver"] = node_images.ImageItem("azure", "ubuntu-hpc 22.04.2024102301", "driver", True,
                                          "560.35.03", "azhpc-images tag ubuntu-hpc-20241023")
    monkeypatch.setattr(node_images, "manifest", lambda cloud: old if cloud == "azure" else {})
    config = {"trainstack:cloud": "azure", "trainstack:specFile": str(EXAMPLE)}
    with pytest.raises(SpecError) as refused:
        resolve(config.get, EXAMPLE.parent)
    assert refused.value.field == "runtime.image"
    assert "560.35.03" in str(refused.value) and "CUDA 13.1" in str(refused.value)


def test_every_default_training_image_is_pinned_by_digest():
    for cloud, row in runtime_images.defaults().items():
        assert row["pinned"] == "digest" and "@sha256:" in row["image"], cloud


# -- what the boot installs on top of the image -----------------------------------------------

def test_the_boot_installs_docker_and_the_toolkit_where_the_image_lacks_them():
    for family in ("a3-ultra", "a4", "a3-mega"):
        script = step_text(user_data(family), "packages")
        assert "install -y -qq docker.io" in script, family
        assert "nvidia-container-toolkit=1.17.8-1" in script, family
        assert "nvidia-ctk runtime configure --runtime=docker" in script, family
        assert "python3-venv" in script, family
    aws = step_text(user_data("p5"), "packages")
    assert "docker.io" not in aws and "nvidia-container-toolkit=" not in aws  # the DLAMI has them
    assert "python3-venv" in aws


def test_packages_run_before_the_runtime_and_jobs_steps():
    import yaml
    order = [cmd[1] for cmd in yaml.safe_load(user_data("a3-ultra"))["runcmd"]]
    assert order.index("packages") < order.index("runtime") < order.index("jobs")


def test_an_image_without_the_toolkit_fails_the_packages_step_by_name(tmp_path):
    """AWS's manifest says the DLAMI has docker and the toolkit: an image without nvidia-ctk
    fails the step with a message naming it (the box is no rubber stamp)."""
    root, bin_dir, env = boot_node(tmp_path)
    stand_in(bin_dir, "docker", "exit 0\n")
    stand_in(bin_dir, "apt-get", "exit 0\n")
    stand_in(bin_dir, "dpkg-query", "echo 'install ok installed'\n")   # python3-venv is there
    env = {**env, "PATH": f"{bin_dir}:{Path(sys.executable).parent}:/usr/bin:/bin"}
    result = run_step(user_data("p5"), "packages", root, bin_dir, env)
    if (Path("/usr/bin/nvidia-ctk")).exists():
        pytest.skip("this machine has nvidia-ctk")
    assert result.returncode != 0
    assert "NVIDIA container toolkit is missing" in result.stdout


# -- AWS: the private ECR image needs a login before the pull ------------------------------------

ECR_DOCKER = r"""echo "docker $*" >> "$FAKE_LOG"
case "$1" in
  login) [ "$(cat)" = ecr-token ] && touch "$FAKE_LOG.login" ;;
  pull) case "$2$3" in
          *.dkr.ecr.*) [ -e "$FAKE_LOG.login" ] || {
            echo "no basic auth credentials" >&2; exit 1; } ;;
        esac ;;
  image) echo "763104351884.dkr.ecr.us-east-1.amazonaws.com/x@sha256:""" + "ab" * 32 + r"""" ;;
  run) echo '{}' ;;
esac
"""


def test_aws_logs_in_to_ecr_before_pulling_the_private_image(tmp_path):
    root, bin_dir, env = boot_node(tmp_path)
    stand_in(bin_dir, "docker", ECR_DOCKER)
    stand_in(bin_dir, "aws", 'echo "aws $*" >> "$FAKE_LOG"\n'
             '[ "$1 $2" = "ecr get-login-password" ] && echo ecr-token\n')
    stand_in(bin_dir, "nvidia-smi", "echo 580.126.16\n")
    stand_in(bin_dir, "sleep", "exit 0\n")
    result = run_step(user_data("p5"), "runtime", root, bin_dir, env)
    assert result.returncode == 0, result.stdout + result.stderr
    calls = (tmp_path / "calls.log").read_text().splitlines()
    # the two sides of `aws ... | docker login` run at once, so either may log first; both come
    # before the pull
    token = calls.index("aws ecr get-login-password --region us-east-1")
    login = next(i for i, c in enumerate(calls) if c.startswith(
        "docker login --username AWS --password-stdin 763104351884.dkr.ecr.us-east-1.amazonaws.com"))
    assert next(i for i, c in enumerate(calls) if c.startswith("docker pull")) > max(token, login)


# -- every cloud: the pinned agent environment, python3-venv -------------------------------------

@pytest.mark.parametrize("family, backend", [("a3-ultra", "gcsfs")])
def test_the_agent_environment_is_pinned(family, backend):
    script = step_text(user_data(family), "jobs")
    assert f"-c /opt/trainstack/agent-requirements/{backend}.txt fsspec {backend}" in script
    from trainstack_components.boot import jobs
    lock = jobs.agent_lock(backend).splitlines()
    pins = [line for line in lock if line and not line.startswith("#")]
    assert pins and all("==" in line for line in pins)
    assert any(line.startswith(f"{backend}==") for line in pins)
    assert any(line.startswith("fsspec==") for line in pins)



def test_the_agents_venv_is_filled_by_the_pip_wheel_python3_venv_brings(tmp_path):
    """No pip inside the venv: the pip of python3-pip-whl (which python3-venv depends on), run
    from its wheel by the venv's python, installs the pinned closure without byte-compiling it;
    setuptools goes in only where the closure has sdists (not s3fs's)."""
    from tests.boot_helpers import run_jobs_step
    result, venv, wheels, calls = run_jobs_step(
        tmp_path, user_data("p5"), ("pip-23.0.1-py3-none-any.whl",
                                    "setuptools-66.1.1-py3-none-any.whl"))
    assert result.returncode == 0, result.stdout + result.stderr
    assert calls[0] == f"python3 -m venv --without-pip {venv}"
    assert calls[1:] == [f"venv-python {wheels}/pip-23.0.1-py3-none-any.whl/pip install --quiet "
                         "--disable-pip-version-check --no-compile -c "
                         "/opt/trainstack/agent-requirements/s3fs.txt fsspec s3fs"]


def test_a_venv_without_the_pip_wheel_fails_the_jobs_step_by_name(tmp_path):
    """python3-venv's dependency missing (the venv module itself is in python3's stdlib): the
    step names the package and leaves no half-made venv for the next boot to take as done."""
    from tests.boot_helpers import run_jobs_step
    result, venv, wheels, calls = run_jobs_step(tmp_path, user_data("p5"), ())
    assert result.returncode == 1
    assert f"no pip wheel in {wheels} (python3-pip-whl, which python3-venv depends on)" \
        in result.stdout
    assert not venv.exists() and not any(c.startswith("venv-python") for c in calls)

def test_a_boot_after_a_failed_install_fills_the_venv_again(tmp_path):
    """pip failing half-way (a mirror down, a wheel cut short) fails the step and leaves a venv
    with a python but not the agent's closure; the next boot (a reboot, cloud-init run again)
    must install again, not take that venv as done and start an agent without fsspec."""
    from tests.boot_helpers import run_jobs_step
    wheels = ("pip-23.0.1-py3-none-any.whl",)
    failed, venv, _, _ = run_jobs_step(tmp_path, user_data("p5"), wheels, pip_fails=True)
    assert failed.returncode != 0
    (tmp_path / "calls.log").unlink()
    again, _, _, calls = run_jobs_step(tmp_path, user_data("p5"), wheels)
    assert again.returncode == 0, again.stdout + again.stderr
    assert any(c.startswith("venv-python") and " install " in c for c in calls), calls


# -- the container sees the fabric, and keeps its own PATH --------------------------------------

FAKE_DOCKER = """#!{python}
import json, os, sys

argv = sys.argv[1:]
keys = [argv[i + 1] for i, a in enumerate(argv) if a == "-e"]
with open({record!r}, "w") as out:
    json.dump({{"argv": argv, "env": {{k: os.environ.get(k) for k in keys}}}}, out)
"""


def test_the_container_gets_the_fabric_mounts_and_only_the_ncl_environment(tmp_path, monkeypatch):
    root = tmp_path / "root"
    (root / "etc/trainstack").mkdir(parents=True)
    (root / "etc/profile.d").mkdir(parents=True)
    (root / "etc/trainstack/runtime.env").write_text("TS_IMAGE=repo/img@sha256:" + "a" * 64 + "\n")
    (root / "etc/trainstack/container-mounts").write_text("/usr/local/gib\n")
    (root / "etc/profile.d/trainstack-nccl.sh").write_text(
        "export NCCL_NET=gIB\nexport PATH=/host/only:$PATH\n"
        'LD_LIBRARY_PATH="/usr/local/gib/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"\n'
        "export LD_LIBRARY_PATH\n")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    record = tmp_path / "docker.json"
    (bin_dir / "docker").write_text(FAKE_DOCKER.format(python=sys.executable, record=str(record)))
    (bin_dir / "docker").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.delenv("LD_LIBRARY_PATH", raising=False)
    store = job_agent.DirStore(str(tmp_path / "bucket"))
    store.put("jobs/j/request.json", json.dumps(
        {"id": "j", "argv": ["python3", "-c", "pass"], "launcher": "none"}).encode())
    agent = job_agent.Agent(store, job_agent.Node("n0", str(root)), [], poll_s=0.1)
    assert agent.run("j") == 0
    seen = json.loads(record.read_text())
    argv = seen["argv"]
    assert "-v" in argv and "/usr/local/gib:/usr/local/gib" in argv
    assert seen["env"]["NCCL_NET"] == "gIB"
    assert "PATH" not in seen["env"] and "LD_LIBRARY_PATH" not in seen["env"]
    # the plugin folder goes in front of the image's own LD_LIBRARY_PATH, inside the container
    assert seen["env"][job_agent.HOST_LIBS_ENV] == "/usr/local/gib/lib64"
    image_at = argv.index("repo/img@sha256:" + "a" * 64)
    assert argv[image_at + 1:image_at + 3] == ["sh", "-c"]
    assert argv[-3:] == ["python3", "-c", "pass"]


def test_container_env_keys():
    keys = job_agent.container_env_keys(["PATH", "LD_LIBRARY_PATH", "HOME", "NCCL_NET",
                                         "FI_PROVIDER", "MASTER_ADDR", "NODE_RANK", "LANG"])
    assert keys == ["FI_PROVIDER", "MASTER_ADDR", "NCCL_NET", "NODE_RANK"]


@pytest.mark.parametrize("family, mounts", [
    ("a3-ultra", ["/usr/local/gib"]),
    ("a3-mega", ["/var/lib/tcpxo/lib64", "/run/tcpx", "/dev/aperture_devices"]),
])
def test_the_fabric_step_lists_the_plugin_paths_for_the_container(family, mounts):
    script = step_text(user_data(family), "fabric")
    listed = next(line for line in script.splitlines() if line.startswith("patterns=("))
    assert listed == "patterns=(" + " ".join(mounts) + ")"


def test_a_missing_fabric_path_fails_the_fabric_step(tmp_path):
    root, bin_dir, env = boot_node(tmp_path)
    text = user_data("a3-ultra")
    # the setup's own commands pass; /usr/local/gib does not exist here
    for tool in ("apt-mark", "curl", "gpg", "apt-get"):
        stand_in(bin_dir, tool, "exit 0\n")
    stand_in(bin_dir, "dpkg-query", "echo 1.1.0\n")     # nccl-gib at the pinned version
    script = step_text(text, "fabric")
    if Path("/usr/local/gib").exists():
        pytest.skip("this machine has /usr/local/gib")
    assert "test -r /usr/local/gib/scripts/set_nccl_env.sh" in script
    result = run_step(text.replace("test -r /usr/local/gib/scripts/set_nccl_env.sh", "true"),
                      "fabric", root, bin_dir, env)
    assert result.returncode != 0
    assert "missing: /usr/local/gib" in result.stdout


# -- GCP: the gIB repository is signed by a key imported before apt-get update -------------------

@pytest.mark.parametrize("family", ["a3-ultra", "a4"])
def test_the_gib_repository_key_is_imported_before_the_update(family):
    script = step_text(user_data(family), "fabric")
    source = next(line for line in script.splitlines() if "gpudirect-gib-apt" in line
                  or "packages.cloud.google.com/apt \\" in line)
    assert "signed-by=/etc/apt/keyrings/cloud.google.gpg" in source
    key_at = script.index("gpg --dearmor --yes -o /etc/apt/keyrings/cloud.google.gpg")
    assert key_at < script.index("update -qq")


# -- Alibaba: the agent's OSS options from the RAM role's STS token ------------------------------

def test_oss_options_come_from_the_metadata_servers_role_credentials():
    asked = []

    def fetch(url):
        asked.append(url)
        return json.dumps({"AccessKeyId": "STS.id", "AccessKeySecret": "secret",
                           "SecurityToken": "token", "Expiration": "2030-01-01T00:00:00Z",
                           "Code": "Success"}).encode()
    options, expires = job_agent.oss_options(
        {"TS_OSS_ENDPOINT": "https://oss-cn-beijing-internal.aliyuncs.com",
         "TS_RAM_ROLE": "nodes-role"}, fetch)
    assert asked == ["http://100.100.100.200/latest/meta-data/ram/security-credentials/nodes-role"]
    assert options == {"endpoint": "https://oss-cn-beijing-internal.aliyuncs.com",
                       "key": "STS.id", "secret": "secret", "token": "token"}
    assert expires == 1893456000.0    # 2030-01-01T00:00:00Z
    with pytest.raises(ValueError, match="TS_OSS_ENDPOINT and TS_RAM_ROLE"):
        job_agent.oss_options({}, fetch)


def test_expiring_credentials_are_fetched_again():
    pytest.importorskip("fsspec")
    calls = []

    def options():
        calls.append(1)
        return {}, (0.0 if len(calls) == 1 else float("inf"))   # the first set already expired
    store = job_agent.FsspecStore("memory://trainstack-test-bucket", options)
    store.put("k", b"v")                     # expired: a fresh set before the write
    assert len(calls) == 2 and store.get("k") == b"v" and len(calls) == 2


def test_a_missing_python3_venv_is_installed_and_then_checked(tmp_path):
    """GCP's accelerator image lacks python3-venv: the step installs it; an apt that does not
    deliver it fails the step by name (Debian's ensurepip stub makes the package the test)."""
    root, bin_dir, env = boot_node(tmp_path)
    stand_in(bin_dir, "apt-get", 'echo "apt-get $*" >> "$FAKE_LOG"\n')
    stand_in(bin_dir, "dpkg-query", "exit 1\n")                    # never installed
    text = user_data("gcp-tcp").replace("command -v docker", "true").replace(
        "command -v nvidia-ctk", "true")
    for tool in ("systemctl", "nvidia-ctk", "curl", "gpg", "install"):
        stand_in(bin_dir, tool, "exit 0\n")
    result = run_step(text, "packages", root, bin_dir, env)
    assert result.returncode == 1
    assert "python3-venv is missing" in result.stdout
    assert "install -y -qq python3-venv" in (tmp_path / "calls.log").read_text()


def test_trainstack_plan_exits_2_naming_the_field(monkeypatch):
    from typer.testing import CliRunner

    from trainstack.cli.app import app
    old = dict(node_images.manifest("azure"))
    old["driver"] = node_images.ImageItem("azure", "ubuntu-hpc 22.04.2024102301", "driver", True,
                                          "560.35.03", "azhpc-images tag ubuntu-hpc-20241023")
    monkeypatch.setattr(node_images, "manifest", lambda cloud: old if cloud == "azure" else {})
    result = CliRunner().invoke(app, ["plan", "--spec", str(EXAMPLE), "--cloud", "azure"])
    assert result.exit_code == 2, result.output
    text = " ".join(result.output.split())
    assert "runtime.image" in text and "560.35.03" in text and "Traceback" not in text
