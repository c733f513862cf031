"""Fault injection against the reaper: a reaper SIGKILLed mid-destroy (a real process, the
stand-in `pulumi` and `gcloud`; the reapers after it in this process), two reaper processes at
once, the store cut mid-run (a moto or Azurite server of the test's own, stopped while the
reaper works), exports that hang or fail, and the per-cloud guards."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from datetime import datetime, timedelta, timezone

import pytest

from tests.checkout import PYTHONPATH as CHECKOUT_PATH
from tests.conftest import (
    AZURITE_KEY,
    ROOT,
    azurite_binary,
    free_port,
    serve,
    stand_in_cli,
    stop,
    use_azurite,
    use_s3,
)
from tests.reap_helpers import (
    FakeCloud,
    FakeGuard,
    ago,
    beat,
    history_time,
    marked,
    put_beats,
    stack,
    write_stacks,
)
from trainstack.reap import reaper as reap, cloud as reap_cloud

GCLOUD = f"""#!{sys.executable} -S
import json, os, sys
members = os.environ["FAKE_GCLOUD_MEMBERS"]
args = sys.argv[1:]
listed = json.load(open(members))
if args[:3] == ["compute", "instances", "list"]:   # created long before any report
    print(json.dumps([{{"name": n, "creationTimestamp": "2026-01-01T00:00:00.000-08:00"}}
                      for n in listed]))
elif "list-instances" in args:
    print(json.dumps([{{"instance": f"https://x/zones/z/instances/{{n}}"}} for n in listed]))
elif "describe" in args:
    print(json.dumps({{"targetSize": len(listed)}}))
elif "resize" in args:
    size = int(args[args.index("--size") + 1])
    json.dump(listed if size else [], open(members, "w"))
else:
    sys.exit(2)
"""


def reaper_process(tmp_path, *extra, **env):
    return subprocess.Popen(
        [sys.executable, "-m", "trainstack", "reap", "--yes", "--audit-log",
         str(tmp_path / "audit.jsonl"), *extra],
        env={**os.environ, "PYTHONPATH": CHECKOUT_PATH, **env}, cwd=ROOT, start_new_session=True,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def reap_here(tmp_path):
    """The next reaper after the killed one: `trainstack reap --yes` with the same environment
    and folder as `reaper_process`, the typer app in this process (the stand-ins are still
    processes of their own; what it finds is the store's lock and the backend's state the
    killed process left, nothing of this process's). Returns (exit code, output): a process
    adds its imports to every run (1-2 CPU s with a store SDK), and the process is the fault
    only for the run that is killed."""
    from typer.testing import CliRunner

    from trainstack.cli.app import app
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(ROOT)
        done = CliRunner().invoke(app, ["reap", "--yes", "--audit-log",
                                        str(tmp_path / "audit.jsonl")])
    assert done.exception is None or isinstance(done.exception, SystemExit), done.exception
    return done.exit_code, done.output


def audit_lines(path):
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


@pytest.fixture
def gcp_world(fake_pulumi, store, tmp_path, monkeypatch):  # noqa: F811
    """One idle GCP-style stack whose group a stand-in `gcloud` answers for (separate reaper
    processes use the real cloud and guard code)."""
    bin_dir = tmp_path / "bin"
    stand_in_cli(bin_dir, "gcloud", GCLOUD)
    members = tmp_path / "members.json"
    members.write_text(json.dumps(["node-0"]))
    monkeypatch.setenv("FAKE_GCLOUD_MEMBERS", str(members))
    # A backend of the test's own (a destroy's adopt record goes beside it, not into the
    # checkout's .pulumi-state).
    monkeypatch.setenv("PULUMI_BACKEND_URL", f"file://{tmp_path}/state")
    own = {"storage_account": "devstoreaccount1"} if store.kind == "azure" else {}
    outputs = marked(cloud="gcp", heartbeat_url=store.url("idle", "heartbeats"), node_group="g",
                     zone="z", project="p", filesystem_export_command="true", **own)
    write_stacks(tmp_path / "stacks.json", {"idle": stack(outputs)})
    monkeypatch.setenv("FAKE_PULUMI_STACKS", str(tmp_path / "stacks.json"))
    put_beats(store.fs, store.path("idle", "heartbeats"), beat("node-0", 180))
    return fake_pulumi


def test_a_reaper_sigkilled_mid_destroy_leaves_an_audit_line_and_a_lock_that_expires(
        gcp_world, tmp_path):
    lease = 25  # seconds; long enough for the next reaper process to start within it
    killed = reaper_process(tmp_path, FAKE_PULUMI_DESTROY_SLEEP="120",
                            TRAINSTACK_REAP_LEASE_SECONDS=str(lease))
    deadline = time.monotonic() + 90
    while not ((tmp_path / "calls.jsonl").exists()
               and any(c["args"][0] == "destroy" for c in gcp_world())):
        assert time.monotonic() < deadline and killed.poll() is None, killed.stdout.read()
        time.sleep(0.2)
    os.killpg(killed.pid, signal.SIGKILL)  # the runner cancelled: the reaper and its pulumi
    killed_at = time.monotonic()
    killed.wait(10)
    # What it was doing is on record, appended before the destroy began.
    logged = audit_lines(tmp_path / "audit.jsonl")
    assert [d["action"] for d in logged] == ["destroying", "destroying"]
    assert logged[-1]["reason"] == "export confirmed: pulumi destroy"
    # Within the lease another reaper stays away and says who holds the lock ...
    _, out = reap_here(tmp_path)
    assert "idle: report - another reaper holds the stack's lock" in out, out
    # ... after it, the lock is taken over and the destroy finishes.
    time.sleep(max(0.0, killed_at + lease + 1 - time.monotonic()))
    code, out = reap_here(tmp_path)
    assert code == 0 and "idle: destroy" in out and "destroyed; bucket kept" in out, out
    last = audit_lines(tmp_path / "audit.jsonl")[-1]
    assert last["evidence"]["expired_lock_taken_over"]["expires"]


def test_two_reaper_processes_at_once_destroy_a_stack_once(gcp_world, tmp_path):
    runs = [reaper_process(tmp_path, FAKE_PULUMI_DESTROY_SLEEP="2") for _ in range(2)]
    outputs = [run.communicate(timeout=120)[0] for run in runs]
    destroys = [c for c in gcp_world() if c["args"][0] == "destroy"]
    assert len(destroys) == 1, outputs
    text = "\n".join(outputs)
    assert text.count("idle: destroy") == 1
    assert "another reaper holds the stack's lock" in text or "already destroyed" in text


# -- the store cut mid-run ----------------------------------------------------------------------

class CutBackend:
    """One idle stack; `during` runs inside the named step (the store is cut there)."""

    def __init__(self, outputs, cut, at):
        self.stack = {"outputs": outputs, "created": history_time(ago(600))}
        self.cut, self.at, self.destroyed = cut, at, []

    def summaries(self):
        return [("idle", False)]

    def outputs(self, name):
        return dict(self.stack["outputs"])

    def updated(self, name):
        return reap.parse_time(self.stack["created"])

    def destroy(self, name, echo):
        if self.at == "destroy":
            self.cut()
        self.destroyed.append(name)
        self.stack["outputs"] = {}


def _own_s3(tmp_path, monkeypatch):
    port = free_port()
    server = serve([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)], port)
    use_s3(f"http://127.0.0.1:{port}", monkeypatch)
    import boto3
    import fsspec
    boto3.client("s3", endpoint_url=f"http://127.0.0.1:{port}").create_bucket(Bucket="cut")
    return server, fsspec.filesystem("s3", skip_instance_cache=True), "s3://cut/idle/heartbeats", {}


def _own_azurite(tmp_path, monkeypatch):
    binary = azurite_binary()
    if binary is None:
        pytest.skip("azurite-blob is not installed")
    port = free_port()
    server = serve([binary, "--blobHost", "127.0.0.1", "--blobPort", str(port), "--silent",
                    "--skipApiVersionCheck", "--location", str(tmp_path / "azurite")], port)
    use_azurite(f"DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey="
                f"{AZURITE_KEY};BlobEndpoint=http://127.0.0.1:{port}/devstoreaccount1;", monkeypatch)
    import fsspec
    fs = fsspec.filesystem("abfs", skip_instance_cache=True)
    fs.mkdir("cut")
    return server, fs, "abfs://cut/idle/heartbeats", {"storage_account": "devstoreaccount1"}


def fail_fast(monkeypatch):
    """A cut store refuses connections; the SDKs' default retries (Azure Storage: 15 s, 18 s,
    24 s per call) would only make the test slow, not different."""
    import s3fs
    from azure.storage.blob.aio import BlobServiceClient

    from trainstack.reap import store as reap_store
    monkeypatch.setenv("AWS_MAX_ATTEMPTS", "1")
    monkeypatch.setattr(s3fs.S3FileSystem, "retries", 1)
    original = BlobServiceClient.from_connection_string.__func__
    monkeypatch.setattr(BlobServiceClient, "from_connection_string", classmethod(
        lambda cls, conn_str, **kw: original(cls, conn_str, **{**kw, "retry_total": 0})))
    monkeypatch.setattr(reap_store, "STORE_TIMEOUT_S", 5)


@pytest.mark.parametrize("kind", ["s3", "azure"])
@pytest.mark.parametrize("at", ["destroy", "scale"])
def test_the_store_cut_mid_run(kind, at, tmp_path, monkeypatch):
    pytest.importorskip("moto.server")
    fail_fast(monkeypatch)
    server, fs, root, own = (_own_s3 if kind == "s3" else _own_azurite)(tmp_path, monkeypatch)
    try:
        put_beats(fs, root.split("://", 1)[1], beat("node-0", 180))
        outputs = marked(cloud="aws", heartbeat_url=root, node_group="g", **own)
        backend = CutBackend(outputs, lambda: stop(server), at)

        class CutCloud(FakeCloud):
            def scale(self, outputs, size, expected=None):
                if at == "scale" and size == 0:
                    stop(server)
                return super().scale(outputs, size, expected)
        audit = tmp_path / "audit.jsonl"
        reaper = reap.Reaper(backend, {"aws": FakeGuard()}, dry_run=False, yes=True,
                             clouds={"aws": CutCloud({"g": ["node-0"]})})
        reaper.record = reap.auditor(audit, lambda s: reaper.seen_outputs.get(s, {}))
        (decision,) = reaper.run()
    finally:
        stop(server)
    logged = audit_lines(audit)
    if at == "destroy":
        # Destroyed, and said so: the failed lock release and bucket audit sit beside it.
        assert decision.result == "destroyed; bucket kept" and backend.destroyed == ["idle"]
        assert decision.evidence["lock_release"].startswith("lock release failed")
        assert "audit_error" in decision.evidence
        assert logged[-1]["result"] == "destroyed; bucket kept"
    else:
        # Between the scale-down and the export nothing can be re-read: nothing destroyed.
        assert decision.action == "report" and backend.destroyed == []
        assert "after the scale-down" in decision.reason and decision.alarm
        assert logged[-1]["action"] == "report"


# -- exports that hang or fail ------------------------------------------------------------------

def test_a_hanging_export_command_times_out():
    guard = reap_cloud.CommandExportGuard(timeout_s=1)
    started = time.monotonic()
    ok, why = guard.confirm("s", {"filesystem_export_command": "sleep 600"})
    assert not ok and "did not finish within 1 s" in why and time.monotonic() - started < 30


def test_a_hanging_export_stops_the_destroy_and_fails_the_run(fake_pulumi, tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from trainstack.cli.app import app
    root = tmp_path / "bucket" / "heartbeats"
    root.mkdir(parents=True)
    put_beats(__import__("fsspec").filesystem("file"), str(root), beat("node-0", 180))
    outputs = marked(cloud="gcp", heartbeat_url=f"file://{root}", node_group="g",
                     filesystem_export_command="sleep 600")
    monkeypatch.setenv("FAKE_PULUMI_STACKS", str(write_stacks(tmp_path / "s.json",
                                                              {"idle": stack(outputs)})))
    cloud = FakeCloud({"g": ["node-0"]})
    monkeypatch.setattr(reap, "default_clouds", lambda: {"gcp": cloud})
    monkeypatch.setattr(reap, "default_guards",
                        lambda: {"gcp": reap_cloud.CommandExportGuard(timeout_s=1)})
    result = CliRunner().invoke(app, ["reap", "--yes", "--audit-log", str(tmp_path / "a.jsonl")])
    assert result.exit_code == 1, result.output
    assert "not confirmed" in result.output and "did not finish within 1 s" in \
        audit_lines(tmp_path / "a.jsonl")[-1]["evidence"]["export"]
    assert cloud.scaled == [("g", 0)]
    assert not [c for c in fake_pulumi() if c["args"][0] == "destroy"]


def test_the_command_guard_runs_the_stacks_export_command():
    ran = []
    guard = reap_cloud.CommandExportGuard(run=lambda cmd: ran.append(cmd) or 0)
    outputs = {"filesystem_export_command": "gcloud lustre instances export-data x"}
    assert guard.confirm("s", outputs)[0] and ran == [outputs["filesystem_export_command"]]
    assert not reap_cloud.CommandExportGuard(run=lambda cmd: 1).confirm("s", outputs)[0]
    assert not guard.confirm("s", {})[0]


def test_the_command_guard_says_when_the_filesystem_is_gone():
    guard = reap_cloud.CommandExportGuard(timeout_s=30)
    gone = "echo 'ERROR: (gcloud.lustre.instances.export-data) NOT_FOUND: instance x' >&2; exit 1"
    fs_id = "projects/p/locations/z/instances/x"
    with pytest.raises(reap_cloud.FilesystemGone):
        guard.confirm("s", {"filesystem_export_command": gone, "filesystem_id": fs_id})
    # A NOT_FOUND about something else (another instance, a bucket) is a failed export.
    other = gone.replace("instance x", "bucket data")
    ok, why = guard.confirm("s", {"filesystem_export_command": other, "filesystem_id": fs_id})
    assert not ok and "exited 1" in why
    # A missing CLI is not a missing filesystem.
    ok, why = guard.confirm("s", {"filesystem_export_command": "no-such-cli-anywhere export"})
    assert not ok and "exited 127" in why


class FakeFsx:
    """FSx's data repository tasks, and the filesystem's associations (`linked`: their
    FileSystemPaths, all AVAILABLE, into `bucket`), answered one a page as a small MaxResults
    pages them."""

    def __init__(self, states, missing=False, linked=("/bucket",), unreadable=None, failed=0,
                 bucket="data"):
        # the associations link into `bucket` (the stacks' bucket_name output in these tests),
        # under its data/ prefix, as the plan links them
        self.bucket = bucket
        self.states, self.created, self.missing = list(states), [], missing
        self.linked, self.unreadable, self.failed = list(linked), unreadable, failed

    def describe_data_repository_associations(self, Filters, NextToken=None):
        if self.missing:
            raise RuntimeError("An error occurred (FileSystemNotFound) when calling the "
                               "DescribeDataRepositoryAssociations operation")
        if self.unreadable:
            raise RuntimeError(self.unreadable)
        assert Filters == [{"Name": "file-system-id", "Values": ["fs-0123"]}], Filters
        at = int(NextToken or 0)
        page = {"Associations": [{"FileSystemPath": path, "Lifecycle": "AVAILABLE",
                                  "DataRepositoryPath": f"s3://{self.bucket}/data/"}
                                 for path in self.linked[at:at + 1]]}
        if at + 1 < len(self.linked):
            page["NextToken"] = str(at + 1)
        return page

    def create_data_repository_task(self, **request):
        if self.missing:
            raise RuntimeError("An error occurred (FileSystemNotFound) when calling the "
                               "CreateDataRepositoryTask operation")
        self.created.append(request)
        return {"DataRepositoryTask": {"TaskId": "task-1", "Lifecycle": "PENDING"}}

    def describe_data_repository_tasks(self, TaskIds):
        state = self.states.pop(0) if len(self.states) > 1 else self.states[0]
        return {"DataRepositoryTasks": [{"TaskId": TaskIds[0], "Lifecycle": state, "Status": {
            "TotalCount": 10, "SucceededCount": 10 - self.failed, "FailedCount": self.failed}}]}


@pytest.mark.parametrize("states, saved", [(["EXECUTING", "SUCCEEDED"], True),
                                           (["EXECUTING", "FAILED"], False),
                                           (["EXECUTING"], False)])
def test_the_fsx_guard_waits_for_an_export_task(states, saved):
    fsx = FakeFsx(states)
    guard = reap_cloud.FsxExportGuard(client_for=lambda region: fsx, timeout_s=0.05, poll_s=0.01)
    ok, proof = guard.confirm("s", marked(filesystem_bucket_path="/bucket"))
    assert ok is saved and "task-1" in proof
    (request,) = fsx.created
    assert request == {"FileSystemId": "fs-0123", "Type": "EXPORT_TO_REPOSITORY",
                       "Paths": ["bucket"], "Report": {"Enabled": False}}


def test_an_fsx_export_that_could_not_export_some_files_is_not_proof():
    """SUCCEEDED with files it could not export (the task Status's FailedCount): those files
    would go with the filesystem, so the export is not confirmed."""
    fsx = FakeFsx(["SUCCEEDED"], failed=3)
    guard = reap_cloud.FsxExportGuard(client_for=lambda region: fsx, poll_s=0)
    ok, proof = guard.confirm("s", marked(filesystem_bucket_path="/bucket"))
    assert not ok and proof == "export task task-1 succeeded but could not export 3 file(s)"


def test_the_fsx_guard_says_when_the_filesystem_is_gone():
    guard = reap_cloud.FsxExportGuard(client_for=lambda region: FakeFsx([], missing=True))
    with pytest.raises(reap_cloud.FilesystemGone, match="fs-0123"):
        guard.confirm("s", marked())


class FakeAz:
    """`az amlfs archive` and `show`: the archive status a sequence of answers."""

    def __init__(self, statuses):
        self.statuses, self.calls = list(statuses), []

    def __call__(self, argv, timeout=None):
        self.calls.append(argv)
        if argv[2] == "archive":
            return ""
        status = self.statuses.pop(0) if len(self.statuses) > 1 else self.statuses[0]
        return json.dumps(status)


AZ_OUTPUTS = {"filesystem_id": "/subscriptions/s/resourceGroups/rg/providers/"
              "Microsoft.StorageCache/amlFilesystems/llm-fs", "resource_group": "rg"}
REQUEST = datetime(2026, 12, 1, 12, 0, tzinfo=timezone.utc)


def _at(minutes):
    return (REQUEST + timedelta(minutes=minutes)).strftime("%Y-%m-%dT%H:%M:%S.0000000Z")


def test_the_azure_archive_guard_ignores_the_previous_archives_completed():
    # The last archive finished yesterday; the new one never starts within the wait.
    old = {"state": "Completed", "lastStartedTime": _at(-24 * 60), "lastCompletionTime": _at(-1400)}
    az = FakeAz([old])
    guard = reap_cloud.AzureArchiveGuard(cli=az, timeout_s=0.05, poll_s=0.01, now=lambda: REQUEST)
    ok, why = guard.confirm("s", AZ_OUTPUTS)
    assert not ok and "no archive started after the request" in why
    assert az.calls[0][:6] == ["az", "amlfs", "archive", "--amlfs-name", "llm-fs",
                               "--resource-group"]


def test_the_azure_archive_guard_waits_for_the_new_archive():
    old = {"state": "Completed", "lastStartedTime": _at(-24 * 60)}
    running = {"state": "InProgress", "lastStartedTime": _at(1)}
    done = {"state": "Completed", "lastStartedTime": _at(1), "lastCompletionTime": _at(20)}
    guard = reap_cloud.AzureArchiveGuard(cli=FakeAz([old, running, done]), timeout_s=5,
                                         poll_s=0.01, now=lambda: REQUEST)
    ok, why = guard.confirm("s", AZ_OUTPUTS)
    assert ok and "after the request" in why
    failed = {"state": "Failed", "lastStartedTime": _at(1)}
    assert not reap_cloud.AzureArchiveGuard(cli=FakeAz([failed]), timeout_s=5, poll_s=0.01,
                                            now=lambda: REQUEST).confirm("s", AZ_OUTPUTS)[0]


def test_the_default_guards_and_clouds_cover_every_cloud():
    assert set(reap_cloud.default_guards()) == set(reap_cloud.default_clouds()) == \
        {"aws", "gcp", "azure", "alicloud"}
    assert isinstance(reap_cloud.default_guards()["azure"], reap_cloud.AzureArchiveGuard)


def test_every_cloud_cli_call_has_a_timeout(tmp_path, monkeypatch):
    stand_in_cli(tmp_path, "gcloud", "#!/bin/sh\nexec sleep 600\n")
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setattr(reap_cloud, "CLI_TIMEOUT_S", 1)
    started = time.monotonic()
    with pytest.raises(reap_cloud.CloudError, match="did not answer within"):
        reap_cloud.run_cli(["gcloud", "compute"], timeout=1)
    assert time.monotonic() - started < 30
