"""The reaper's store access against real storage APIs on loopback: S3 (moto in server mode,
through s3fs) and Azure Blob Storage (Azurite from npm, through adlfs). Heartbeats, the
exclusive lock and an unreadable store behave as on file://."""
from __future__ import annotations

import time

import fsspec
import pytest

from tests.conftest import use_azurite, use_s3
from tests.reap_helpers import FakeGuard, ago, beat, history_time, marked, put_beats
from trainstack import reap

# The servers (`s3_server`, `azurite`: one per module, skipped with the reason when moto or
# Azurite is missing) and the `store` fixture live in tests/conftest.py; tests/test_reap.py runs
# every reaper case on file://, S3 and Azure through them. Here: the store access itself, with
# an in-memory backend of stacks.


class MemoryStacks:
    """A backend of stacks held in memory (the Pulumi side is tested with the stand-in CLI)."""

    def __init__(self, stacks):
        self.stacks, self.destroyed = stacks, []

    def summaries(self):
        return [(name, False) for name in self.stacks]

    def outputs(self, stack):
        return dict(self.stacks[stack]["outputs"])

    def created(self, stack):
        return reap.parse_time(self.stacks[stack]["created"])

    def destroy(self, stack, echo):
        self.destroyed.append(stack)
        self.stacks[stack]["outputs"] = {}


def stacks_in(bucket: str, cloud: str, **heartbeat_urls):
    return {name: {"outputs": marked(cloud=cloud, bucket_name=bucket, heartbeat_url=url)
                   if url else marked(cloud=cloud, bucket_name=bucket),
                   "created": history_time(ago(600))} for name, url in heartbeat_urls.items()}


# -- S3 through moto --------------------------------------------------------------------------

@pytest.fixture
def s3(s3_server, monkeypatch):
    import boto3
    import s3fs
    use_s3(s3_server, monkeypatch)
    bucket = f"data-{time.monotonic_ns()}"
    boto3.client("s3", endpoint_url=s3_server).create_bucket(Bucket=bucket)
    yield bucket, fsspec.filesystem("s3")
    s3fs.S3FileSystem.clear_instance_cache()


def test_s3_idle_and_busy_stacks_from_heartbeats_in_the_bucket(s3):
    bucket, fs = s3
    put_beats(fs, f"{bucket}/idle/heartbeats", beat("node-0", 180), beat("node-1", 200))
    put_beats(fs, f"{bucket}/busy/heartbeats", beat("node-0", 2), beat("node-1", 200))
    backend = MemoryStacks(stacks_in(bucket, "aws", idle=f"s3://{bucket}/idle/heartbeats",
                                     busy=f"s3://{bucket}/busy/heartbeats"))
    guard = FakeGuard()
    decisions = {d.stack: d for d in reap.Reaper(backend, {"aws": guard}, dry_run=False,
                                                 yes=True).run()}
    assert decisions["idle"].result == "destroyed; bucket kept"
    assert decisions["busy"].action == "keep" and backend.destroyed == ["idle"]
    assert fs.exists(f"{bucket}/idle/heartbeats/node-0.json")  # the data stays


# file:// has no default: no cloud writes its heartbeats to a local path (HEARTBEAT_ROOTS).
@pytest.mark.parametrize("store", ["s3", "azure"], indirect=True)
def test_the_default_heartbeat_location_is_the_stacks_bucket_on_each_cloud(store):
    put_beats(store.fs, store.path("heartbeats"), beat("node-0", 180))
    backend = MemoryStacks(stacks_in(store.base, store.cloud, plain=None))
    (decision,) = reap.Reaper(backend, {store.cloud: FakeGuard()}).run()
    assert decision.action == "would-destroy"
    assert decision.evidence["heartbeats"] == store.url("heartbeats")


def test_s3_an_unreadable_store_is_a_report(s3):
    bucket, fs = s3
    backend = MemoryStacks(stacks_in(bucket, "aws", gone="s3://no-such-bucket-anywhere/heartbeats"))
    with fs.open(f"{bucket}/bad/heartbeats/node-0.json", "wb") as f:
        f.write(b"\x00garbage")
    backend.stacks.update(stacks_in(bucket, "aws", bad=f"s3://{bucket}/bad/heartbeats"))
    decisions = {d.stack: d for d in reap.Reaper(backend, {"aws": FakeGuard()}, dry_run=False,
                                                 yes=True).run()}
    assert decisions["bad"].action == decisions["gone"].action == "report"
    assert backend.destroyed == []


def test_s3_the_lock_is_exclusive(s3):
    bucket, _ = s3
    root = f"s3://{bucket}/heartbeats"
    first, second = reap.StackLock(root, "team/idle"), reap.StackLock(root, "team/idle")
    assert first.acquire()
    assert not second.acquire()  # If-None-Match: * on the real S3 API
    first.release()
    assert second.acquire()
    second.release()


# -- Azure Blob Storage through Azurite -------------------------------------------------------

@pytest.fixture
def blob(azurite, monkeypatch):
    import adlfs
    use_azurite(azurite, monkeypatch)
    fs = fsspec.filesystem("abfs")
    container = f"data{time.monotonic_ns()}"
    fs.mkdir(container)
    yield container, fs
    adlfs.AzureBlobFileSystem.clear_instance_cache()


def test_azure_idle_and_busy_stacks_and_a_stopped_node(blob):
    container, fs = blob
    put_beats(fs, f"{container}/idle/heartbeats", beat("node-0", 180),
              beat("node-1", 300, seen_minutes=300))
    put_beats(fs, f"{container}/busy/heartbeats", beat("node-0", 0))
    backend = MemoryStacks(stacks_in(container, "azure", idle=f"abfs://{container}/idle/heartbeats",
                                     busy=f"abfs://{container}/busy/heartbeats"))
    decisions = {d.stack: d for d in reap.Reaper(backend, {"azure": FakeGuard()}, dry_run=False,
                                                 yes=True).run()}
    assert decisions["idle"].result == "destroyed; bucket kept"
    assert decisions["idle"].evidence["stopped_reporting"] == ["node-1"]
    assert decisions["busy"].action == "keep" and backend.destroyed == ["idle"]


def test_azure_an_export_not_confirmed_and_an_unreadable_store(blob):
    container, fs = blob
    put_beats(fs, f"{container}/dirty/heartbeats", beat("node-0", 180))
    with fs.open(f"{container}/bad/heartbeats/node-0.json", "wb") as f:
        f.write(b"[]")  # JSON, but not a heartbeat
    backend = MemoryStacks(stacks_in(container, "azure",
                                     dirty=f"abfs://{container}/dirty/heartbeats",
                                     bad=f"abfs://{container}/bad/heartbeats"))
    decisions = {d.stack: d for d in reap.Reaper(backend, {"azure": FakeGuard(saved=False)},
                                                 dry_run=False, yes=True).run()}
    assert decisions["dirty"].action == "report" and "not confirmed" in decisions["dirty"].reason
    assert decisions["bad"].action == "report" and "unreadable" in decisions["bad"].reason
    assert backend.destroyed == []


def test_azure_the_lock_is_exclusive(blob):
    container, _ = blob
    root = f"abfs://{container}/heartbeats"
    first, second = reap.StackLock(root, "idle"), reap.StackLock(root, "idle")
    assert first.acquire() and not second.acquire()
    first.release()
    assert second.acquire()
