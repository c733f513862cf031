"""The preemption agent against a loopback metadata server in each cloud's documented format: the
notice is seen, the running job gets SIGTERM with the deadline in the notice file, the node is
marked leaving and the event lands in the bucket. The agent runs under plain python3 -I (stdlib)."""
import json
import shutil
import subprocess
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.preemption_helpers import MetadataServer
from trainstack_components.agents import preemption_agent as pa

AGENT = ROOT / "components" / "agents" / "preemption_agent.py"
PYTHON = shutil.which("python3") or sys.executable
CLOUDS = ["aws", "gcp", "azure", "alicloud"]

# A stand-in job: on SIGTERM it copies the notice file it was promised, then exits.
JOB = """
import signal, sys, time, pathlib
notice, out = sys.argv[1], sys.argv[2]
def bye(*_):
    pathlib.Path(out).write_text(pathlib.Path(notice).read_text())
    sys.exit(0)
signal.signal(signal.SIGTERM, bye)
pathlib.Path(out + ".ready").write_text("1")
while True:
    time.sleep(0.05)
"""


@pytest.fixture
def node(tmp_path):
    root = tmp_path / "node-1"
    jobs = root / pa.JOBS_DIR
    jobs.mkdir(parents=True)
    started = []

    def start_job(job_id="job-7"):
        out = tmp_path / f"{job_id}.got"
        proc = subprocess.Popen([sys.executable, "-c", JOB, str(root / pa.NOTICE_FILE), str(out)])
        started.append(proc)
        deadline = time.time() + 30
        while not Path(str(out) + ".ready").exists():
            assert time.time() < deadline and proc.poll() is None, "stand-in job did not start"
            time.sleep(0.05)
        (jobs / f"{job_id}.json").write_text(json.dumps({"pid": proc.pid}))
        return proc, out

    yield root, tmp_path / "bucket", start_job
    for proc in started:
        proc.kill()
        proc.wait()


def run_agent(cloud, url, root, bucket):
    done = subprocess.run([PYTHON, "-I", str(AGENT), "--cloud", cloud, "--node", "node-1",
                           "--metadata-url", url, "--root", str(root), "--dest-dir", str(bucket),
                           "--once"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done


def bucket_events(bucket):
    return [json.loads(p.read_text()) for p in sorted((bucket / "events" / "node-1").glob("*.json"))]


@pytest.mark.parametrize("cloud", CLOUDS)
def test_quiet_metadata_means_nothing_happens(cloud, node):
    root, bucket, start_job = node
    proc, out = start_job()
    with MetadataServer(cloud) as md:
        run_agent(cloud, md.url, root, bucket)
    assert proc.poll() is None and not out.exists()
    assert not (root / pa.LEAVING_FILE).exists() and not (bucket / "events").exists()


@pytest.mark.parametrize("cloud", CLOUDS)
def test_a_notice_signals_the_job_with_its_deadline_and_marks_the_node_leaving(cloud, node):
    root, bucket, start_job = node
    proc, out = start_job()
    # Whole seconds: every format carries seconds at most. GCP's notice carries no time: the
    # documented 30 s from when it is seen.
    deadline = (datetime.now(timezone.utc) + timedelta(seconds=120)).replace(microsecond=0)
    with MetadataServer(cloud) as md:
        md.notice(deadline)
        before = datetime.now(timezone.utc)
        run_agent(cloud, md.url, root, bucket)
    assert proc.wait(timeout=30) == 0                     # the job got SIGTERM
    notice = json.loads(out.read_text())                  # ... and could read its deadline
    if cloud == "gcp":
        left = 30
        assert before <= pa.parse_time(notice["deadline"]) <= before + timedelta(seconds=32)
    else:
        left = 120
        assert notice["deadline"] == deadline.strftime("%Y-%m-%dT%H:%M:%SZ")
    assert left - 5 <= notice["seconds_left"] <= left
    assert notice["cloud"] == cloud and notice["terminating"] is True
    assert (root / pa.LEAVING_FILE).exists()
    # (Azure may already have acknowledged: the stand-in job exits at once.)
    [event] = [e for e in bucket_events(bucket) if e["event"] != "acknowledged"]
    assert event["event"] == "preemption-notice" and event["signalled_jobs"] == ["job-7"]
    assert event["node_state"] == "leaving" and event["notice_source"] == pa.NOTICE_KINDS[cloud]


@pytest.mark.parametrize("cloud", ["aws", "alicloud"])
def test_the_agent_asks_for_a_session_token_first(cloud, node):
    root, bucket, _ = node
    with MetadataServer(cloud) as md:
        run_agent(cloud, md.url, root, bucket)
    assert md.requests[0] == ("PUT", "/latest/api/token")


def test_an_aws_rebalance_recommendation_is_recorded_and_nothing_is_signalled(node):
    root, bucket, start_job = node
    proc, _ = start_job()
    with MetadataServer("aws") as md:
        md.rebalance = datetime.now(timezone.utc)
        run_agent("aws", md.url, root, bucket)
    assert proc.poll() is None and not (root / pa.LEAVING_FILE).exists()
    [event] = bucket_events(bucket)
    assert event["kind"] == "rebalance" and event["event"] == "advisory"


def test_a_gcp_gpu_host_maintenance_is_signalled_two_minutes_before_its_hour_is_up(node):
    root, bucket, start_job = node
    proc, out = start_job()
    with MetadataServer("gcp") as md:
        md.maintenance = "TERMINATE_ON_HOST_MAINTENANCE"
        agent = pa.Agent("gcp", "node-1", pa.Metadata(md.url), pa.Paths.under(str(root)),
                         dest_dir=str(bucket), log=lambda line: None)
        seen = datetime.now(timezone.utc)
        assert len(agent.poll_once(seen)) == 1
        agent.poll_once(seen + timedelta(minutes=57))        # 3 min left: train on
        assert proc.poll() is None and not (root / pa.LEAVING_FILE).exists()
        agent.poll_once(seen + timedelta(minutes=58, seconds=1))   # under 2 min: go
    assert proc.wait(timeout=30) == 0
    assert 115 <= json.loads(out.read_text())["seconds_left"] <= 120
    events = bucket_events(bucket)
    assert sorted(e["event"] for e in events) == ["preemption-notice", "signalled"]
    assert next(e for e in events if e["event"] == "signalled")["signalled_jobs"] == ["job-7"]


def test_azure_ignores_another_vms_event_and_acknowledges_ours_once_the_job_has_exited(node):
    root, bucket, start_job = node
    proc, _ = start_job()
    deadline = datetime.now(timezone.utc) + timedelta(seconds=60)
    with MetadataServer("azure", vm_name="node-1") as md:
        md.other_vm_event = True
        md.notice(deadline)
        agent = pa.Agent("azure", "node-1", pa.Metadata(md.url), pa.Paths.under(str(root)),
                         dest_dir=str(bucket), log=lambda line: None)
        [notice] = agent.poll_once()
        assert notice.ack == "602d9444-d2cd-49c7-8624-8643e7171297"
        proc.wait(timeout=30)
        agent.poll_once()          # the job is gone: acknowledge, and only once
        agent.poll_once()
    assert md.acks == [{"StartRequests": [{"EventId": "602d9444-d2cd-49c7-8624-8643e7171297"}]}]
    # One of each. Their file names hold whole seconds, so the order of the names says nothing
    # when the ack comes in a later second than the notice (it did once under load); the
    # records' own times do.
    events = {e["event"]: e for e in bucket_events(bucket)}
    assert sorted(events) == ["acknowledged", "preemption-notice"]
    assert len(bucket_events(bucket)) == 2
    assert events["acknowledged"]["time"] >= events["preemption-notice"]["time"]


def test_azure_does_not_acknowledge_while_the_job_is_still_saving(node):
    root, bucket, start_job = node
    with MetadataServer("azure") as md:
        md.notice(datetime.now(timezone.utc) + timedelta(seconds=60))
        agent = pa.Agent("azure", "node-1", pa.Metadata(md.url), pa.Paths.under(str(root)),
                         dest_dir=str(bucket), log=lambda line: None)
        jobs = root / pa.JOBS_DIR
        # A job that ignores SIGTERM for now (still writing its checkpoint).
        slow = subprocess.Popen([sys.executable, "-c",
                                 "import signal,time; signal.signal(signal.SIGTERM, signal.SIG_IGN);"
                                 "time.sleep(60)"])
        try:
            time.sleep(0.5)
            (jobs / "slow.json").write_text(json.dumps({"pid": slow.pid}))
            agent.poll_once()
            agent.poll_once()
            assert md.acks == []
        finally:
            slow.kill()
            slow.wait()
        agent.poll_once()
        assert len(md.acks) == 1


def test_the_helpers_events_are_shipped_once(node, tmp_path):
    root, bucket, _ = node
    local = root / pa.LOCAL_EVENTS_DIR
    local.mkdir(parents=True)
    (local / "20260101T000000Z-restart.json").write_text('{"event": "restart"}')
    with MetadataServer("alicloud") as md:
        run_agent("alicloud", md.url, root, bucket)
        run_agent("alicloud", md.url, root, bucket)
    assert bucket_events(bucket) == [{"event": "restart"}]
    assert not list(local.glob("*.json"))


@pytest.mark.parametrize("cloud", CLOUDS)
def test_the_same_notice_is_handled_once(cloud, node):
    root, bucket, start_job = node
    with MetadataServer(cloud) as md:
        md.notice(datetime.now(timezone.utc) + timedelta(seconds=300))
        agent = pa.Agent(cloud, "node-1", pa.Metadata(md.url), pa.Paths.under(str(root)),
                         dest_dir=str(bucket), log=lambda line: None)
        assert len(agent.poll_once()) == 1
        time.sleep(1.1)     # a deadline computed from "now" would differ by then
        assert agent.poll_once() == []
    assert [e["event"] for e in bucket_events(bucket) if e["event"] != "acknowledged"] == \
        ["preemption-notice"]


def test_a_missing_cloud_is_refused_with_a_usage_line():
    done = subprocess.run([PYTHON, "-I", str(AGENT), "--dest-dir", "/tmp/x", "--once"],
                          capture_output=True, text=True, timeout=30, env={"PATH": "/usr/bin:/bin"})
    assert done.returncode == 2 and "--cloud" in done.stderr
