"""Two boot steps every cloud's nodes run (issue 22), registered with
`extensions.add_step_provider` like the idle agent:

  runtime  pulls the training image (`NodeContext.runtime_image`: the spec's runtime.image,
           pinned by digest, else the cloud's default from components/catalog/runtime_images.csv),
           times the pull, resolves the digest actually pulled, and records the versions jobs
           will see: torch, CUDA and NCCL inside the image, the driver on the host. They go to
           /var/lib/trainstack/runtime.json, which the health record carries (`runtime`), so
           `trainstack status` can flag a node that differs ([Seed] sec. 4.5).
  jobs     installs and starts the job agent (components/agents/job_agent.py) as a service: it
           polls the bucket for `trainstack run` requests and launches torchrun in that image.

Both steps are cloud-neutral data: the only cloud facts are the node's name (`CloudBoot
.node_name`) and the bucket's URL scheme.
"""
from __future__ import annotations

import shlex
from importlib import resources
from typing import Optional

from trainstack_components.agents import job_agent
from trainstack_components.catalog import node_images
from trainstack_components.boot import extensions
from trainstack_components.boot.model import CONFIG_DIR, STATE_DIR, BootFile, BootStep, CloudBoot, NodeContext
from trainstack_components.boot.preemption import node_copy
from trainstack_components.boot.steps import _function

RUNTIME_STEP = "runtime"
JOBS_STEP = "jobs"
PACKAGES_STEP = "packages"
# apt waits for cloud-init's and unattended-upgrades' lock instead of failing at once.
APT = "apt-get -o DPkg::Lock::Timeout=600"
# NVIDIA Container Toolkit install guide (apt): the repository and its key, one version for
# every package of the toolkit (the guide pins them together with NVIDIA_CONTAINER_TOOLKIT_VERSION).
TOOLKIT_VERSION = "1.17.8-1"
TOOLKIT_KEY = "https://nvidia.github.io/libnvidia-container/gpgkey"
TOOLKIT_KEYRING = "/usr/share/keyrings/nvidia-container-toolkit-keyring.gpg"
TOOLKIT_REPO = "https://nvidia.github.io/libnvidia-container/stable/deb/$(ARCH) /"
TOOLKIT_PACKAGES = ("nvidia-container-toolkit", "nvidia-container-toolkit-base",
                    "libnvidia-container-tools", "libnvidia-container1")
# The agent's one pinned environment (the seed's sec. 4.5), per bucket backend: every package
# of the closure at one version, installed with --no-deps so nothing floats.
AGENT_LOCK_DIR = "/opt/trainstack/agent-requirements"
VENV_READY = "dpkg-query -W -f='${Status}' python3-venv 2>/dev/null | grep -q 'ok installed'"
SC2016 = "# shellcheck disable=SC2016  # dpkg-query's own ${Status}\n"
RUNTIME_RECORD = f"{STATE_DIR}/runtime.json"
assert job_agent.RUNTIME_ENV.startswith(CONFIG_DIR + "/")
assert job_agent.ENV_FILE.startswith(CONFIG_DIR + "/")

# fsspec's backend per cloud, for the agent's polling (the node's python reads the bucket).
BUCKET_BACKENDS = {"aws": ("s3", "s3fs"), "gcp": ("gs", "gcsfs"), "azure": ("abfs", "adlfs"),
                   "alicloud": ("oss", "ossfs")}
AGENT_VENV = "/opt/trainstack/venv"
AGENT_VENV_FILLED = f"{AGENT_VENV}/.trainstack-filled"   # written once the closure is in
# The pip that fills the agent's venv: the wheel of Debian's and Ubuntu's python3-pip-whl, which
# python3-venv depends on (ensurepip installs from it), run as it is: pip's own __main__ puts the
# wheel on sys.path ("This allows the usage python pip-*.whl/pip install pip-*.whl", pypa/pip
# src/pip/__main__.py). The venv is made --without-pip: nothing runs pip in it after this step,
# and ensurepip's copy of pip and setuptools (unpacked and byte-compiled) was half its CPU.
PIP_WHEELS = "/usr/share/python-wheels"
# Backends whose closure holds packages PyPI has only as sdists (crcmod 1.7, oss2 2.18.4): pip
# 22/23 (jammy's, bookworm's) builds those with the venv's setuptools (`setup.py install`); without
# it pip would build them in an isolated environment with the newest setuptools from the index,
# unpinned. That venv gets setuptools from python3-setuptools-whl (python3-venv depends on it too).
SOURCE_BUILDS = {"ossfs": ("crcmod", "oss2")}


# The agent as the node gets it: comments and docstrings dropped (the module's first line kept,
# argparse's description), as the preemption agent's. ECS takes 32 KiB of gzipped user data for
# the whole boot, which carries the agents inline; the repository file stays the documented one.
_SOURCE = resources.files("trainstack_components.agents").joinpath("job_agent.py").read_text("utf-8")
AGENT_SOURCE = ("#!/usr/bin/env python3\n" if _SOURCE.startswith("#!") else "") + node_copy(_SOURCE)

# Printed by the image's python: what a job inside it will use.
_VERSIONS_PY = ("import json, torch; "
                "nccl = torch.cuda.nccl.version() if torch.cuda.is_available() else None; "
                "print(json.dumps({'torch': torch.__version__, 'cuda': torch.version.cuda, "
                "'nccl': '.'.join(map(str, nccl)) if isinstance(nccl, tuple) else nccl}))")


def bucket_url(ctx: NodeContext) -> str:
    scheme = BUCKET_BACKENDS.get(ctx.cloud, ("file", ""))[0]
    if ctx.cloud == "azure" and ctx.extra.get("storage_account"):
        return f"abfs://{ctx.bucket}@{ctx.extra['storage_account']}.dfs.core.windows.net"
    return f"{scheme}://{ctx.bucket}"


def runtime_step(ctx: NodeContext, cloud: Optional[CloudBoot] = None) -> BootStep:
    image = ctx.runtime_image
    if not image:
        script = (f"mkdir -p {STATE_DIR}\necho '{{\"image\": null}}' > {RUNTIME_RECORD}\n"
                  "echo 'no runtime image: jobs run on the host'\n")
        return BootStep(RUNTIME_STEP, script, "no training image configured")
    quoted = shlex.quote(image)
    login = cloud.registry_login(ctx, image).strip() if cloud else ""
    login_block = (_function("registry_login", login) + f"""if ! registry_login; then
  echo "docker login to the registry of {image} failed: a private image cannot be pulled"
  printf '{{"image": "%s", "error": "registry login failed"}}\\n' {quoted} > {RUNTIME_RECORD}
  exit 1
fi
""") if login else ""
    script = f"""
mkdir -p {STATE_DIR} {CONFIG_DIR}
if ! command -v docker >/dev/null; then
  echo "docker is not installed on this image: the training image cannot run"
  printf '{{"image": "%s", "error": "no docker"}}\\n' {quoted} > {RUNTIME_RECORD}
  exit 1
fi
{login_block}start=$(date +%s)
pulled=false
for attempt in 1 2 3; do
  if docker pull --quiet {quoted}; then pulled=true; break; fi
  echo "attempt $attempt: docker pull failed; retrying in 20 s"
  sleep 20
done
pull_seconds=$(( $(date +%s) - start ))
if [ "$pulled" != true ]; then
  printf '{{"image": "%s", "error": "pull failed", "pull_seconds": %d}}\\n' {quoted} \\
    "$pull_seconds" > {RUNTIME_RECORD}
  exit 1
fi
# The digest pulled (a tag-pinned default moves; the digest says what this node really runs).
digest="$(docker image inspect --format '{{{{index .RepoDigests 0}}}}' {quoted} 2>/dev/null || true)"
driver="$(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -1 || true)"
versions="$(docker run --rm --gpus all {quoted} python -c {shlex.quote(_VERSIONS_PY)} 2>/dev/null \\
  | tail -1 || true)"
case "$versions" in "{{"*) ;; *) versions='{{}}' ;; esac
printf '{{"image": "%s", "image_digest": "%s", "pull_seconds": %d, "driver": "%s", "versions": %s}}\\n' \\
  {quoted} "$digest" "$pull_seconds" "$driver" "$versions" > {RUNTIME_RECORD}
printf 'TS_IMAGE=%s\\n' "${{digest:-{image}}}" > {job_agent.RUNTIME_ENV}
"""
    return BootStep(RUNTIME_STEP, script, f"training image {image}: pulled, versions recorded")


def agent_lock(backend: str) -> str:
    """The pinned closure of the agent's bucket backend (agent_requirements/<backend>.txt)."""
    return (resources.files("trainstack_components.boot").joinpath("agent_requirements")
            .joinpath(f"{backend}.txt").read_text("utf-8"))


def jobs_step(ctx: NodeContext, cloud: CloudBoot) -> BootStep:
    """The job agent as a service. Its python is a venv with fsspec and the cloud's backend at
    the versions of agent_requirements/<backend>.txt (the agent itself is stdlib only; the
    backend reads the bucket with the node's own identity)."""
    backend = BUCKET_BACKENDS.get(ctx.cloud, ("", ""))[1]
    lock = f"{AGENT_LOCK_DIR}/{backend}.txt"
    files: tuple[BootFile, ...] = (BootFile(job_agent.AGENT_PATH, AGENT_SOURCE, "0755", bulky=True),
             BootFile(f"/etc/systemd/system/{job_agent.SERVICE}",
                      job_agent.unit_file(f"{AGENT_VENV}/bin/python")))
    if backend:
        files += (BootFile(lock, agent_lock(backend), bulky=True),)
    env = {"TS_BUCKET_URL": bucket_url(ctx), **cloud.agent_env(ctx)}
    env_lines = "".join(f"printf '%s=%s\\n' {shlex.quote(k)} {shlex.quote(v)}\n"
                        for k, v in env.items())
    # --no-compile: the agent imports a small part of the closure (its backend's client), which
    # its python compiles on first import; compiling all of it (botocore, the Azure and Google
    # SDKs) was the other half of the step's CPU.
    pip = (f'{AGENT_VENV}/bin/python "$pip_wheel/pip" install --quiet --disable-pip-version-check '
           "--no-compile")
    install = ""
    if backend in SOURCE_BUILDS:
        install += f"  {pip} --no-index {PIP_WHEELS}/setuptools-*.whl\n"
    if backend:
        install += f"  {pip} -c {lock} fsspec {backend}\n"
    script = _function("node_name", cloud.node_name()) + f"""
node="$(node_name || true)"
[ -n "$node" ] || node="$(hostname)"
mkdir -p {CONFIG_DIR} {STATE_DIR}/jobs
{{
printf 'TS_NODE=%s\\n' "$node"
{env_lines}}} > {job_agent.ENV_FILE}
if [ ! -f {AGENT_VENV_FILLED} ]; then
  # Filled only when the marker is there: an install that failed half-way (this step failing)
  # leaves a venv with a python but not the closure, which the next boot must build again.
  rm -rf {AGENT_VENV}
  # python3-venv and the pip wheel it depends on come from the packages step where the image
  # lacks them.
  python3 -m venv --without-pip {AGENT_VENV}
  wheels=({PIP_WHEELS}/pip-*.whl)
  pip_wheel="${{wheels[${{#wheels[@]}}-1]}}"
  if [ ! -f "$pip_wheel" ]; then
    rm -rf {AGENT_VENV}
    echo "no pip wheel in {PIP_WHEELS} (python3-pip-whl, which python3-venv depends on): the job agent's venv cannot be filled"
    exit 1
  fi
{install}  touch {AGENT_VENV_FILLED}
fi
systemctl daemon-reload
systemctl enable --now {job_agent.SERVICE}
"""
    return BootStep(JOBS_STEP, script, "job agent: runs `trainstack run` jobs under torchrun",
                    files=files)


def _apt_install(packages: str) -> str:
    return f"DEBIAN_FRONTEND=noninteractive {APT} install -y -qq {packages}"


def packages_step(ctx: NodeContext) -> BootStep:
    """What the boot needs and the node image lacks (components/catalog/node_images.csv),
    installed before anything uses it; what the manifest says the image has is checked, so a
    manifest that is wrong fails here, by name, not three steps later."""
    lacking = node_images.lacking(ctx.cloud)
    needs = ["python3_venv"] + (["docker", "container_toolkit"] if ctx.runtime_image else [])
    parts = []
    if "python3_venv" in lacking:
        # Debian's python3 carries an ensurepip that refuses to run: the package is the test (it
        # brings python3-pip-whl, whose pip fills the agent's venv in the jobs step).
        parts.append(f"{SC2016}{VENV_READY} || {{ {APT} update -qq && {_apt_install('python3-venv')}; }}")
    if "docker" in lacking and "docker" in needs:
        parts.append(f"command -v docker >/dev/null || {{ {APT} update -qq && "
                     f"{_apt_install('docker.io')}; }}\nsystemctl enable --now docker")
    if "container_toolkit" in lacking and "container_toolkit" in needs:
        pinned = " ".join(f"{p}={TOOLKIT_VERSION}" for p in TOOLKIT_PACKAGES)
        parts.append(f"""if ! command -v nvidia-ctk >/dev/null; then
  install -d -m 0755 "$(dirname {TOOLKIT_KEYRING})"
  curl -fsSL {TOOLKIT_KEY} | gpg --dearmor --yes -o {TOOLKIT_KEYRING}
  # shellcheck disable=SC2016  # $(ARCH) is apt's variable, written as it is
  echo 'deb [signed-by={TOOLKIT_KEYRING}] {TOOLKIT_REPO}' \\
    > /etc/apt/sources.list.d/nvidia-container-toolkit.list
  {APT} update -qq
  {_apt_install(pinned)}
fi
nvidia-ctk runtime configure --runtime=docker
systemctl restart docker""")
    checks = [f"{SC2016}{VENV_READY} || {{ echo \"python3-venv is missing: the job agent's venv "
              "cannot be made\"; exit 1; }"]
    if "docker" in needs:
        checks.append("command -v docker >/dev/null || { echo 'docker is missing: the training "
                      "image cannot run'; exit 1; }")
        checks.append("command -v nvidia-ctk >/dev/null || { echo 'the NVIDIA container toolkit "
                      "is missing: docker run --gpus cannot reach the GPUs'; exit 1; }")
    installed = ", ".join(node_images.PACKAGE_NAMES[n] for n in needs if n in lacking) or "nothing"
    image = node_images.image_name(ctx.cloud) or "the node image"
    return BootStep(PACKAGES_STEP, "\n".join(parts + checks) + "\n",
                    f"installs on top of {image.split(',')[0]}: {installed}")


@extensions.add_step_provider
def job_steps(ctx: NodeContext, cloud: CloudBoot) -> list[BootStep]:
    return [packages_step(ctx), runtime_step(ctx, cloud), jobs_step(ctx, cloud)]
