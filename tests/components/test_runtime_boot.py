"""The training image at boot (spec runtime.image, pinned by digest; a cited default per cloud),
its versions in the health record, and the job agent as a boot step on every cloud."""
import json

import pytest
from typer.testing import CliRunner

from tests.boot_helpers import boot_node, run_step, stand_in, user_data, written_files
from tests.conftest import write_spec
from trainstack.cli.app import app
from trainstack.measure.status import read_records
from trainstack_components.boot import jobs
from trainstack_components.catalog.runtime_images import defaults, runtime_image

DIGEST = "sha256:" + "ab" * 32
AWS_CLI = r"""case "$*" in
  "s3 cp"*) dest="${@: -1}"; mkdir -p "$FAKE_BUCKET/status"
            cp "${@: -2:1}" "$FAKE_BUCKET/status/${dest##*/}" ;;
esac
"""
AWS_CURL = r"""case "$*" in
  *api/token*) echo token ;;
  *instance-id) echo i-0a ;;
  *) exit 22 ;;
esac
"""
DOCKER = r"""echo "docker $*" >> "$FAKE_LOG"
case "$1" in
  login) cat >/dev/null ;;   # reads the password from the pipe, as docker login does
  pull) exit 0 ;;
  image) echo "registry.example/train@""" + DIGEST + r"""" ;;
  run) echo '{"torch": "2.9.0+cu130", "cuda": "13.0", "nccl": "2.27.7"}' ;;
esac
"""


def test_every_cloud_has_a_cited_default_and_aws_is_pinned_by_digest():
    assert set(defaults()) == {"aws", "gcp", "azure", "alicloud"}
    for row in defaults().values():
        assert row["source"] and row["as_of"] and row["pinned"] in ("digest", "tag")
        assert ("@sha256:" in row["image"]) == (row["pinned"] == "digest")
    assert runtime_image("aws", "eu-west-1").startswith("763104351884.dkr.ecr.eu-west-1.")
    mine = f"registry.example/train@{DIGEST}"
    assert runtime_image("aws", "eu-west-1", mine) == mine


ECR_LOGIN = '[ "$1 $2" = "ecr get-login-password" ] && echo token\n'


def test_the_runtime_step_pulls_the_image_and_records_versions(tmp_path):
    root, bin_dir, env = boot_node(tmp_path)
    stand_in(bin_dir, "docker", DOCKER)
    stand_in(bin_dir, "aws", ECR_LOGIN)      # the default image is in a private ECR registry
    stand_in(bin_dir, "nvidia-smi", "echo 535.161.08\n")
    text = user_data("p5")
    result = run_step(text, "runtime", root, bin_dir, env)
    assert result.returncode == 0, result.stdout + result.stderr
    record = json.loads((root / "state" / "runtime.json").read_text())
    assert record["image"] == runtime_image("aws", "us-east-1")
    assert record["image_digest"] == f"registry.example/train@{DIGEST}"
    assert record["driver"] == "535.161.08" and record["pull_seconds"] >= 0
    assert record["versions"] == {"torch": "2.9.0+cu130", "cuda": "13.0", "nccl": "2.27.7"}
    # jobs run in exactly the digest this node pulled
    assert (root / "etc" / "runtime.env").read_text() == f"TS_IMAGE=registry.example/train@{DIGEST}\n"
    calls = (tmp_path / "calls.log").read_text()
    assert "docker run --rm --gpus all" in calls
    # ... and the health record carries it, where `trainstack status` reads it
    stand_in(bin_dir, "aws", AWS_CLI)
    stand_in(bin_dir, "curl", AWS_CURL)
    health = run_step(text, "health", root, bin_dir, env)
    assert health.returncode == 0, health.stdout + health.stderr
    (node,) = read_records(f"file://{env['FAKE_BUCKET']}")
    assert node.record["runtime"] == record
    assert isinstance(node.record["uptime_s"], int)


def test_a_failed_pull_fails_the_step_and_says_so(tmp_path):
    root, bin_dir, env = boot_node(tmp_path)
    stand_in(bin_dir, "docker", 'case "$1" in login) cat >/dev/null ;; pull) exit 1 ;; esac\n')
    stand_in(bin_dir, "aws", ECR_LOGIN)
    stand_in(bin_dir, "sleep", "exit 0")
    result = run_step(user_data("p5"), "runtime", root, bin_dir, env)
    assert result.returncode != 0
    assert json.loads((root / "state" / "runtime.json").read_text())["error"] == "pull failed"


def test_the_job_agent_service_is_written_and_started():
    text = user_data("a3-ultra")
    files = written_files(text)
    assert "/opt/trainstack/job_agent.py" in files
    assert files["/opt/trainstack/job_agent.py"]["content"].startswith("#!/usr/bin/env python3")
    unit = files["/etc/systemd/system/trainstack-jobs.service"]["content"]
    assert "/opt/trainstack/venv/bin/python /opt/trainstack/job_agent.py" in unit
    from tests.boot_helpers import step_text
    script = step_text(text, "jobs")
    assert "gcsfs" in script and "TS_BUCKET_URL" in script and "gs://" in script
    assert "systemctl enable --now trainstack-jobs.service" in script


def test_bucket_urls_per_cloud():
    from tests.components.test_boot import _ctx
    assert jobs.bucket_url(_ctx()) == "s3://b"
    assert jobs.bucket_url(_ctx(cloud="gcp")) == "gs://b"
    assert jobs.bucket_url(_ctx(cloud="azure", extra={"storage_account": "acct"})) == \
        "abfs://b@acct.dfs.core.windows.net"


@pytest.mark.parametrize("image", ["nvcr.io/nvidia/pytorch:26.01-py3", "repo/x@sha256:abc",
                                   "Repo/X@sha256:" + "a" * 64])
def test_an_image_not_pinned_by_digest_is_refused(image, example_spec, tmp_path):
    spec = write_spec(tmp_path, {**example_spec, "runtime": {"image": image}})
    result = CliRunner().invoke(app, ["plan", "--spec", str(spec), "--cloud", "aws"])
    assert result.exit_code == 2, result.output
    assert "runtime.image" in result.output and "Traceback" not in result.output


def test_the_spec_image_reaches_the_nodes(example_spec):
    from tests.conftest import plan_for
    from trainstack_components.boot.render import decode_aws_user_data
    mine = f"registry.example/train@{DIGEST}"
    plan = plan_for({**example_spec, "runtime": {"image": mine}}, "aws")
    templates = [r for r in plan.resources if r.type == "aws:ec2/launchTemplate:LaunchTemplate"]
    text = decode_aws_user_data(templates[0].inputs["userData"])
    assert f"docker pull --quiet {mine}" in text
