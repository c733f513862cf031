"""`trainstack connect` (SSM / IAP) and `trainstack status` (the nodes' health records).

A stand-in `pulumi` (tests/fake_pulumi.py) answers the stack's outputs; stand-ins for `aws` and
`gcloud` answer the node group's instances. PATH holds only the stand-ins, so a real cloud CLI
on this machine is never called.
"""
from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from tests.conftest import only_stand_ins_on_path, stand_in_cli
from trainstack.measure import status
from trainstack.cli.app import app

runner = CliRunner()

AWS = r"""#!/bin/bash
echo "$*" >> "$FAKE_LOG"
if [ -n "${FAKE_CLI_FAIL:-}" ]; then echo "An error occurred (ExpiredToken): expired" >&2; exit 255; fi
case "$*" in
  "autoscaling describe-auto-scaling-groups"*) printf 'i-0b\ti-0a\n' ;;
esac
"""
GCLOUD = r"""#!/bin/bash
echo "$*" >> "$FAKE_LOG"
case "$*" in
  "compute instance-groups managed list-instances"*) printf 'llm-finetune-node-b\nllm-finetune-node-a\n' ;;
esac
"""


@pytest.fixture
def stand_ins(monkeypatch, tmp_path):
    bin_dir = only_stand_ins_on_path(monkeypatch, tmp_path, unset=(
        "AWS_PROFILE", "AWS_ACCESS_KEY_ID", "GOOGLE_APPLICATION_CREDENTIALS", "GOOGLE_CREDENTIALS"))

    def add(name: str, body: str) -> None:
        stand_in_cli(bin_dir, name, body)
    add.log = tmp_path / "calls.log"
    return add


def test_connect_print_on_aws_is_the_exact_ssm_command(stand_ins, monkeypatch):
    stand_ins("aws", AWS)
    monkeypatch.setenv("AWS_PROFILE", "test")
    result = runner.invoke(app, ["connect", "--stack", "aws", "--node", "1", "--print"])
    assert result.exit_code == 0, result.output
    assert result.output.strip() == "aws ssm start-session --target i-0b --region us-east-1"
    assert ("autoscaling describe-auto-scaling-groups --region us-east-1 "
            "--auto-scaling-group-names llm-finetune-nodes") in stand_ins.log.read_text()


def test_connect_print_on_gcp_is_the_exact_iap_command(stand_ins, monkeypatch, tmp_path):
    stand_ins("gcloud", GCLOUD)
    adc = tmp_path / ".config" / "gcloud" / "application_default_credentials.json"
    adc.parent.mkdir(parents=True)
    adc.write_text("{}")
    result = runner.invoke(app, ["connect", "--stack", "gcp", "--print"])
    assert result.exit_code == 0, result.output
    # the zone is stacks/Pulumi.gcp.yaml's gcp:zone
    assert result.output.strip() == ("gcloud compute ssh llm-finetune-node-a --zone us-central1-b "
                                     "--project my-gcp-project --tunnel-through-iap")
    assert "list-instances llm-finetune-nodes --zone us-central1-b" in stand_ins.log.read_text()


def test_connect_without_the_cloud_cli_is_one_line(stand_ins, monkeypatch):
    monkeypatch.setenv("AWS_PROFILE", "test")
    result = runner.invoke(app, ["connect", "--stack", "aws", "--print"])
    assert result.exit_code == 2
    assert "aws CLI" in result.output and "Session Manager plugin" in result.output
    assert "Traceback" not in result.output


def test_connect_without_credentials_is_one_line(stand_ins):
    stand_ins("aws", AWS)
    result = runner.invoke(app, ["connect", "--stack", "aws", "--print"])
    assert result.exit_code == 2
    assert "aws credentials" in result.output and "AWS_PROFILE" in result.output
    assert not stand_ins.log.exists()  # the cloud was never asked


def test_connect_reports_the_cli_failure_in_one_line(stand_ins, monkeypatch):
    stand_ins("aws", AWS)
    monkeypatch.setenv("AWS_PROFILE", "test")
    monkeypatch.setenv("FAKE_CLI_FAIL", "1")
    result = runner.invoke(app, ["connect", "--stack", "aws", "--print"])
    assert result.exit_code == 2 and "ExpiredToken" in result.output
    assert "Traceback" not in result.output


def test_connect_node_out_of_range(stand_ins, monkeypatch):
    stand_ins("aws", AWS)
    monkeypatch.setenv("AWS_PROFILE", "test")
    result = runner.invoke(app, ["connect", "--stack", "aws", "--node", "2", "--print"])
    assert result.exit_code == 2 and "--node" in result.output and "0 to 1" in result.output


def test_connect_without_the_pulumi_cli_is_one_line(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("PULUMI_ROOT", raising=False)
    result = runner.invoke(app, ["connect", "--stack", "aws"])
    assert result.exit_code == 2 and "Pulumi CLI" in result.output


# -- status ----------------------------------------------------------------------------------------

def _record(node, rank, ok=True, **changes):
    record = {"node": node, "cloud": "aws", "node_rank": rank, "gpus": 8, "gpus_expected": 8,
              "rdma_devices": 32, "rdma_expected": 32, "filesystem_mounted": True,
              "mount_path": "/lustre", "scratch_mounted": True, "steps": {"lustre": 0},
              "time": "2026-12-01T07:00:00Z", "ok": ok}
    return {**record, **changes}


@pytest.fixture
def bucket(tmp_path):
    root = tmp_path / "bucket"
    (root / "status").mkdir(parents=True)

    def put(name, record):
        (root / "status" / f"{name}.json").write_text(
            record if isinstance(record, str) else json.dumps(record))
    put.url = f"file://{root}"
    return put


def test_status_reads_every_record_and_shows_a_table(bucket):
    bucket("i-0b", _record("i-0b", 1, ok=False, filesystem_mounted=False,
                           steps={"lustre": 1, "ranks": 0}))
    bucket("i-0a", _record("i-0a", 0))
    result = runner.invoke(app, ["status", "--bucket-url", bucket.url], env={"COLUMNS": "200"})
    assert result.exit_code == 1, result.output  # not every node is ready
    lines = result.output.splitlines()
    row_a = next(i for i, line in enumerate(lines) if "i-0a" in line)
    row_b = next(i for i, line in enumerate(lines) if "i-0b" in line)
    assert row_a < row_b  # rank order
    assert "NOT mounted" in lines[row_b] and "lustre" in lines[row_b]
    assert "32/32" in lines[row_a] and "8/8" in lines[row_a]
    assert "1 of 2 node(s) ready" in result.output


def test_status_exit_0_when_every_node_is_ready_and_json(bucket):
    bucket("i-0a", _record("i-0a", 0))
    bucket("i-0b", _record("i-0b", 1))
    result = runner.invoke(app, ["status", "--bucket-url", bucket.url, "--json"])
    assert result.exit_code == 0, result.output
    document = json.loads(result.output)
    assert sorted(document["nodes"]) == ["i-0a", "i-0b"] and document["ready"] is True


def test_status_marks_an_unreadable_record(bucket):
    bucket("i-0a", "{not json")
    (health,) = status.read_records(bucket.url)
    assert not health.ok and "unreadable" in health.record["error"]


def test_status_with_no_records_yet(bucket):
    result = runner.invoke(app, ["status", "--bucket-url", bucket.url])
    assert result.exit_code == 1 and "no status records" in result.output


def test_status_of_a_stack_reads_its_bucket_and_expects_its_nodes(stand_ins, bucket,
                                                                  monkeypatch):
    bucket("i-0a", _record("i-0a", 0))
    asked = []

    def local_read(url):  # the stack's real bucket is s3://...; read the local one instead
        asked.append(url)
        return original(bucket.url)
    original = status.read_records
    monkeypatch.setattr(status, "read_records", local_read)
    result = runner.invoke(app, ["status", "--stack", "aws"])
    assert asked == ["s3://llm-finetune-data-a1b2"]  # bucket_name from the stack's outputs
    assert result.exit_code == 1 and "1 of 2 node(s) ready" in result.output
    assert "1 node(s) have not reported yet" in result.output


@pytest.mark.parametrize("cloud, url", [("aws", "s3://b"), ("gcp", "gs://b")])
def test_bucket_urls(cloud, url):
    assert status.bucket_url(cloud, "b") == url


def test_status_without_the_fsspec_backend_names_the_package(monkeypatch):
    import fsspec.core

    def missing(url, **kwargs):
        raise ImportError("Install s3fs to access S3")
    monkeypatch.setattr(fsspec.core, "url_to_fs", missing)
    result = runner.invoke(app, ["status", "--bucket-url", "s3://b"])
    assert result.exit_code == 2 and "pip install s3fs" in result.output


def test_status_needs_a_stack_or_a_url():
    result = runner.invoke(app, ["status"])
    assert result.exit_code == 2 and "--stack" in result.output



def test_status_piped_keeps_each_row_on_one_line(bucket):
    """The real command line, stdout a pipe and no COLUMNS: rows do not wrap at 80 columns."""
    import os
    import subprocess
    import sys
    bucket("i-0b", _record("i-0b", 1, ok=False, filesystem_mounted=False,
                           steps={"lustre": 1, "ranks": 0, "fabric": 0, "scratch": 0}))
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    done = subprocess.run([sys.executable, "-m", "trainstack", "status", "--bucket-url",
                           bucket.url], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 1, done.stderr
    (row,) = [line for line in done.stdout.splitlines() if "i-0b" in line]
    assert "NOT mounted" in row and "lustre" in row and len(row) > 80


@pytest.fixture
def black_hole():
    """An endpoint that accepts connections and never answers: a bucket behind a network path
    that drops replies. botocore waits 60 s per read and retries, minutes in all."""
    import socket
    import threading
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    held, stop = [], threading.Event()

    def accept():
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(server.accept()[0])
            except OSError:
                continue
    threading.Thread(target=accept, daemon=True).start()
    yield f"http://127.0.0.1:{server.getsockname()[1]}"
    stop.set()
    for conn in held:
        conn.close()
    server.close()


def test_status_on_a_bucket_that_never_answers_stops_at_its_deadline_naming_it(black_hole,
                                                                                monkeypatch):
    s3fs = pytest.importorskip("s3fs")
    s3fs.S3FileSystem.clear_instance_cache()   # fsspec keeps one per set of options
    monkeypatch.setattr(status, "STORE_DEADLINE_S", 3.0)
    for key, value in {"AWS_ENDPOINT_URL_S3": black_hole, "AWS_ACCESS_KEY_ID": "AKIDEXAMPLE",
                       "AWS_SECRET_ACCESS_KEY": "secret", "AWS_DEFAULT_REGION": "us-east-1"}.items():
        monkeypatch.setenv(key, value)
    result = runner.invoke(app, ["status", "--bucket-url", "s3://ts-hung-bucket"])
    assert result.exit_code == 2, result.output
    assert "the status records under s3://ts-hung-bucket/status/ did not answer within 3 s" \
        in " ".join(result.output.split())
    assert "Traceback" not in result.output
