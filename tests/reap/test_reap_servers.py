"""The reaper's store access against real storage APIs on loopback: S3 (moto in server mode,
through s3fs) and Azure Blob Storage (Azurite from npm, through adlfs). Heartbeats, the
exclusive lock and an unreadable store behave as on file://."""
from __future__ import annotations

import json
import time

import fsspec
import pytest

from tests.conftest import AZURITE_KEY, azurite_binary, free_port, serve, stop, use_azurite, use_s3
from tests.reap_helpers import FakeCloud, FakeGuard, ago, beat, history_time, marked, put_beats
from trainstack.reap import reaper as reap, store as reap_store

# The servers (`s3_server`, `azurite`: one per test process, skipped with the reason when moto or
# Azurite is missing) and the `store` fixture live in tests/conftest.py; tests/reap/test_reap.py runs
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

    def updated(self, stack):
        return reap.parse_time(self.stacks[stack]["created"])

    def destroy(self, stack, echo):
        self.destroyed.append(stack)
        self.stacks[stack]["outputs"] = {}


def stacks_in(bucket: str, cloud: str, **heartbeat_urls):
    own = {"storage_account": "devstoreaccount1"} if cloud == "azure" else {}
    return {name: {"outputs": marked(cloud=cloud, bucket_name=bucket, heartbeat_url=url,
                                     node_group=name, **own)
                   if url else marked(cloud=cloud, bucket_name=bucket, node_group=name, **own),
                   "created": history_time(ago(600))} for name, url in heartbeat_urls.items()}


def reaper(backend, cloud, guard=None, members=None, **kwargs):
    """A reaper over `backend` whose groups hold node-0 and node-1 unless `members` says."""
    groups = members or {name: ["node-0", "node-1"] for name in backend.stacks}
    return reap.Reaper(backend, {cloud: guard or FakeGuard()}, clouds={cloud: FakeCloud(groups)},
                       **kwargs)


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
    decisions = {d.stack: d for d in reaper(backend, "aws", dry_run=False, yes=True).run()}
    assert decisions["idle"].result == "destroyed; bucket kept"
    assert decisions["busy"].action == "keep" and backend.destroyed == ["idle"]
    assert fs.exists(f"{bucket}/idle/heartbeats/node-0.json")  # the data stays


# file:// has no default: no cloud writes its heartbeats to a local path (HEARTBEAT_ROOTS).
@pytest.mark.parametrize("store", ["s3", "azure"], indirect=True)
def test_the_default_heartbeat_location_is_the_stacks_bucket_on_each_cloud(store):
    put_beats(store.fs, store.path("heartbeats"), beat("node-0", 180))
    backend = MemoryStacks(stacks_in(store.base, store.cloud, plain=None))
    (decision,) = reaper(backend, store.cloud, members={"plain": ["node-0"]}).run()
    assert decision.action == "would-destroy"
    assert decision.evidence["heartbeats"] == store.url("heartbeats")


def test_s3_an_unreadable_store_is_a_report(s3):
    bucket, fs = s3
    backend = MemoryStacks(stacks_in(bucket, "aws", gone="s3://no-such-bucket-anywhere/heartbeats"))
    with fs.open(f"{bucket}/bad/heartbeats/node-0.json", "wb") as f:
        f.write(b"\x00garbage")
    backend.stacks.update(stacks_in(bucket, "aws", bad=f"s3://{bucket}/bad/heartbeats"))
    decisions = {d.stack: d for d in reaper(backend, "aws", dry_run=False, yes=True).run()}
    assert decisions["bad"].action == decisions["gone"].action == "report"
    assert backend.destroyed == []


def test_s3_the_lock_is_exclusive(s3):
    bucket, _ = s3
    root = f"s3://{bucket}/heartbeats"
    first, second = (reap.StackStore(root, {}).lease("team/idle") for _ in range(2))
    second.holder_id = "another reaper"
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


def test_azure_idle_and_busy_stacks_and_a_member_that_stopped_reporting(blob):
    container, fs = blob
    put_beats(fs, f"{container}/idle/heartbeats", beat("node-0", 180), beat("node-1", 300))
    put_beats(fs, f"{container}/busy/heartbeats", beat("node-0", 0), beat("node-1", 300))
    put_beats(fs, f"{container}/silent/heartbeats", beat("node-0", 300))
    backend = MemoryStacks(stacks_in(container, "azure", idle=f"abfs://{container}/idle/heartbeats",
                                     busy=f"abfs://{container}/busy/heartbeats",
                                     silent=f"abfs://{container}/silent/heartbeats"))
    decisions = {d.stack: d for d in reaper(backend, "azure", dry_run=False, yes=True).run()}
    assert decisions["idle"].result == "destroyed; bucket kept"
    assert decisions["busy"].action == "keep" and backend.destroyed == ["idle"]
    assert decisions["silent"].action == "report"
    assert decisions["silent"].evidence["nodes"]["node-1"]["why"] == "no report from this member"


def test_azure_an_export_not_confirmed_and_an_unreadable_store(blob):
    container, fs = blob
    put_beats(fs, f"{container}/dirty/heartbeats", beat("node-0", 180))
    with fs.open(f"{container}/bad/heartbeats/node-0.json", "wb") as f:
        f.write(b"[]")  # JSON, but not a heartbeat
    backend = MemoryStacks(stacks_in(container, "azure",
                                     dirty=f"abfs://{container}/dirty/heartbeats",
                                     bad=f"abfs://{container}/bad/heartbeats"))
    decisions = {d.stack: d for d in reaper(backend, "azure", FakeGuard(saved=False),
                                            members={"dirty": ["node-0"], "bad": ["node-0"]},
                                            dry_run=False, yes=True).run()}
    assert decisions["dirty"].action == "report" and "not confirmed" in decisions["dirty"].reason
    assert decisions["bad"].action == "report"
    assert "unreadable" in decisions["bad"].evidence["nodes"]["node-0"]["why"]
    assert backend.destroyed == []


def test_azure_the_lock_is_exclusive(blob):
    container, _ = blob
    root = f"abfs://{container}/heartbeats"
    first, second = (reap.StackStore(root, {"storage_account": "devstoreaccount1"}).lease("idle")
                     for _ in range(2))
    second.holder_id = "another reaper"
    assert first.acquire() and not second.acquire()
    first.release()
    assert second.acquire()


# -- one credential never reads another stack's bucket ---------------------------------------

TEAM_B_KEY = "dGVhbS1iLWtleS1mb3ItdGVzdHMtb25seS0wMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDA="


def _connection(port: int, account: str, key: str) -> str:
    return (f"DefaultEndpointsProtocol=http;AccountName={account};AccountKey={key};"
            f"BlobEndpoint=http://127.0.0.1:{port}/{account};")


@pytest.fixture(scope="module")
def two_accounts(tmp_path_factory):
    """Azurite serving two storage accounts, as two Azure stacks have."""
    import os
    binary = azurite_binary()
    if binary is None:
        pytest.skip("azurite-blob is not installed: run `npm install --prefix .ci/node azurite`")
    port = free_port()
    os.environ["AZURITE_ACCOUNTS"] = f"devstoreaccount1:{AZURITE_KEY};teamb:{TEAM_B_KEY}"
    try:
        process = serve([binary, "--blobHost", "127.0.0.1", "--blobPort", str(port), "--silent",
                         "--skipApiVersionCheck", "--location",
                         str(tmp_path_factory.mktemp("azurite2"))], port)
    finally:
        del os.environ["AZURITE_ACCOUNTS"]
    yield port
    stop(process)


def test_two_azure_stacks_with_one_connection_string_are_each_judged_on_their_own(
        two_accounts, monkeypatch):
    import adlfs
    port = two_accounts
    team_a = _connection(port, "devstoreaccount1", AZURITE_KEY)
    team_b = _connection(port, "teamb", TEAM_B_KEY)
    # The same container and path in both accounts: idle in A's, busy in B's.
    for connection, node_state in ((team_a, 180), (team_b, 0)):
        fs = adlfs.AzureBlobFileSystem(connection_string=connection, skip_instance_cache=True)
        fs.mkdir("data")
        put_beats(fs, "data/heartbeats", beat("node-0", node_state))
    monkeypatch.setenv("AZURE_STORAGE_CONNECTION_STRING", team_a)   # as reap.yml passed it
    monkeypatch.setenv("TRAINSTACK_AZURE_CONNECTION_STRING_TEAMB", team_b)
    stacks = {name: {"outputs": marked(cloud="azure", heartbeat_url="abfs://data/heartbeats",
                                       node_group=name, storage_account=account),
                     "created": history_time(ago(600))}
              for name, account in (("a", "devstoreaccount1"), ("b", "teamb"))}
    backend = MemoryStacks(stacks)
    decisions = {d.stack: d for d in reaper(backend, "azure", members={"a": ["node-0"],
                                                                       "b": ["node-0"]},
                                            dry_run=False, yes=True).run()}
    assert decisions["b"].action == "keep", decisions["b"]
    assert decisions["a"].result == "destroyed; bucket kept" and backend.destroyed == ["a"]


def test_an_azure_stack_is_read_only_with_its_own_accounts_credential():
    env = {"AZURE_STORAGE_CONNECTION_STRING": "AccountName=teama;AccountKey=k;"}
    mine = reap_store.storage_options("abfs://data/heartbeats", {"storage_account": "teama"}, env)
    assert mine["connection_string"] == env["AZURE_STORAGE_CONNECTION_STRING"]
    other = reap_store.storage_options("abfs://data@teamb.dfs.core.windows.net/heartbeats", {}, env)
    assert {k: other[k] for k in ("account_name", "anon", "connection_string")} == \
        {"account_name": "teamb", "anon": False, "connection_string": None}
    with pytest.raises(reap_store.StoreUnreachable, match="storage_account"):
        reap_store.storage_options("abfs://data/heartbeats", {}, env)


# -- Google Cloud Storage through fake-gcs-server ---------------------------------------------

def test_the_gcs_stand_in_refuses_a_create_onto_an_existing_object_with_412(gcs_server):
    """What the lease relies on, on the wire: an upload with `ifGenerationMatch=0` succeeds
    only when no live object has that name, else HTTP 412 Precondition Failed
    (https://cloud.google.com/storage/docs/request-preconditions)."""
    import json
    import urllib.error
    import urllib.request
    bucket = f"wire{time.monotonic_ns()}"
    urllib.request.urlopen(urllib.request.Request(
        f"{gcs_server}/storage/v1/b", data=json.dumps({"name": bucket}).encode(),
        headers={"Content-Type": "application/json"}, method="POST"), timeout=30).read()

    def create(body: bytes) -> int:
        multipart = (b'--==0==\r\nContent-Type: application/json; charset=UTF-8\r\n\r\n'
                     b'{"name": "lease/0000000001.json"}\r\n--==0==\r\n'
                     b'Content-Type: application/octet-stream\r\n\r\n' + body + b'\r\n--==0==--')
        request = urllib.request.Request(
            f"{gcs_server}/upload/storage/v1/b/{bucket}/o?uploadType=multipart&ifGenerationMatch=0",
            data=multipart, headers={"Content-Type": 'multipart/related; boundary="==0=="'},
            method="POST")
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                return answer.status
        except urllib.error.HTTPError as refused:
            return refused.code
    assert create(b"first") == 200
    assert create(b"second") == 412
    with urllib.request.urlopen(f"{gcs_server}/download/storage/v1/b/{bucket}/o/"
                                "lease%2F0000000001.json?alt=media", timeout=30) as kept:
        assert kept.read() == b"first"


@pytest.mark.parametrize("store", ["gcs"], indirect=True)
def test_gcs_the_lock_is_exclusive(store):
    root = store.url("heartbeats")
    first, second = (reap.StackStore(root, {"project": "test"}).lease("team/idle")
                     for _ in range(2))
    second.holder_id = "another reaper"
    assert first.acquire()
    assert not second.acquire()
    # The same version written again by another reaper: refused by the store itself (412).
    assert not second._create(first.version, {"holder": "another reaper", "token": "x"})
    assert json.loads(second.holder())["holder"] == first.holder_id
    first.release()
    assert second.acquire()
    second.release()
