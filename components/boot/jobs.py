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

from trainstack_components.agents import job_agent
from trainstack_components.boot import extensions
from trainstack_components.boot.model import CONFIG_DIR, STATE_DIR, BootFile, BootStep, CloudBoot, NodeContext
from trainstack_components.boot.steps import _function

RUNTIME_STEP = "runtime"
JOBS_STEP = "jobs"
RUNTIME_RECORD = f"{STATE_DIR}/runtime.json"
assert job_agent.RUNTIME_ENV.startswith(CONFIG_DIR + "/")
assert job_agent.ENV_FILE.startswith(CONFIG_DIR + "/")

# fsspec's backend per cloud, for the agent's polling (the node's python reads the bucket).
BUCKET_BACKENDS = {"aws": ("s3", "s3fs"), "gcp": ("gs", "gcsfs"), "azure": ("abfs", "adlfs"),
                   "alicloud": ("oss", "ossfs")}
AGENT_VENV = "/opt/trainstack/venv"


def _without_docstring(source: str) -> str:
    """The agent with its module docstring cut to one line: EC2 takes 16 KiB of gzipped user
    data for every file of the boot, and the docstring is for readers of the repository."""
    head, quote, rest = source.partition('"""')
    first, _, after = rest.partition('"""')
    return f'{head}"""{first.splitlines()[0]}"""{after}' if quote else source


AGENT_SOURCE = _without_docstring(
    resources.files("trainstack_components.agents").joinpath("job_agent.py").read_text("utf-8"))

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


def runtime_step(ctx: NodeContext) -> BootStep:
    image = ctx.runtime_image
    if not image:
        script = (f"mkdir -p {STATE_DIR}\necho '{{\"image\": null}}' > {RUNTIME_RECORD}\n"
                  "echo 'no runtime image: jobs run on the host'\n")
        return BootStep(RUNTIME_STEP, script, "no training image configured")
    quoted = shlex.quote(image)
    script = f"""
mkdir -p {STATE_DIR} {CONFIG_DIR}
if ! command -v docker >/dev/null; then
  echo "docker is not installed on this image: the training image cannot run"
  printf '{{"image": "%s", "error": "no docker"}}\\n' {quoted} > {RUNTIME_RECORD}
  exit 1
fi
start=$(date +%s)
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


def jobs_step(ctx: NodeContext, cloud: CloudBoot) -> BootStep:
    """The job agent as a service. Its python is a venv with fsspec and the cloud's backend (the
    agent itself is stdlib only; the backend reads the bucket with the node's own identity)."""
    backend = BUCKET_BACKENDS.get(ctx.cloud, ("", ""))[1]
    files = (BootFile(job_agent.AGENT_PATH, AGENT_SOURCE, "0755", bulky=True),
             BootFile(f"/etc/systemd/system/{job_agent.SERVICE}",
                      job_agent.unit_file(f"{AGENT_VENV}/bin/python")))
    script = _function("node_name", cloud.node_name()) + f"""
node="$(node_name || true)"
[ -n "$node" ] || node="$(hostname)"
mkdir -p {CONFIG_DIR} {STATE_DIR}/jobs
printf 'TS_NODE=%s\\nTS_BUCKET_URL=%s\\n' "$node" {shlex.quote(bucket_url(ctx))} > {job_agent.ENV_FILE}
if [ ! -x {AGENT_VENV}/bin/python ]; then
  python3 -m venv {AGENT_VENV}
  {AGENT_VENV}/bin/pip install --quiet fsspec {backend}
fi
systemctl daemon-reload
systemctl enable --now {job_agent.SERVICE}
"""
    return BootStep(JOBS_STEP, script, "job agent: runs `trainstack run` jobs under torchrun",
                    files=files)


@extensions.add_step_provider
def job_steps(ctx: NodeContext, cloud: CloudBoot) -> list[BootStep]:
    return [runtime_step(ctx), jobs_step(ctx, cloud)]
