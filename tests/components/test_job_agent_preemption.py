"""The job agent and the preemption agent together (issues 22 + 23): the job's environment lets
a replaced node rejoin and finds the checkpoint helper, inside the image too; the pid file the
job agent writes is torchrun's, and a SIGTERM sent to it by the preemption agent reaches the
workers; a node marked leaving starts nothing and its exit says "preempted"."""
import json
import os
import subprocess
import sys
from datetime import datetime, timedelta, timezone

import pytest

from tests.preemption_helpers import MetadataServer
from trainstack_components.agents import job_agent
from trainstack_components.agents import preemption_agent as pa
from trainstack_components.boot import preemption as boot_step

# Real torchrun on CPU in some tests: one xdist worker runs every test of the group, one at a
# time, so two of them never share the 2 cores (their rendezvous and deadlines are timed).
pytestmark = pytest.mark.xdist_group("torchrun")

ENV_DUMP = ("import json, os, sys\n"
            "keys = ['TORCH_DISABLE_SHARE_RDZV_TCP_STORE', 'PYTHONPATH', 'TRAINSTACK_NOTICE_FILE',"
            " 'TRAINSTACK_EVENTS_DIR']\n"
            "out = {k: os.environ.get(k) for k in keys}\n"
            "import trainstack_resumable\n"
            "out['helper'] = trainstack_resumable.__file__\n"
            "open(os.path.join(os.environ['TRAINSTACK_JOB_OUT'], 'env.json'), 'w')"
            ".write(json.dumps(out))\n")


def test_the_paths_agree_with_the_boot_step_and_the_preemption_agent():
    assert job_agent.HELPER_DIR == boot_step.HELPER_DIR
    assert job_agent.LOCAL_JOBS_DIR.lstrip("/") == pa.JOBS_DIR
    assert job_agent.NOTICE_FILE.lstrip("/") == pa.NOTICE_FILE
    assert job_agent.LEAVING_FILE.lstrip("/") == pa.LEAVING_FILE
    assert job_agent.EVENTS_DIR.lstrip("/") == pa.LOCAL_EVENTS_DIR


def _node_with_helper(tmp_path):
    root = tmp_path / "root"
    helper = root / job_agent.HELPER_DIR.lstrip("/")
    helper.mkdir(parents=True)
    (helper / "trainstack_resumable.py").write_text(boot_step.HELPER_SOURCE)
    return root


def _request(store, job_id, argv, **extra):
    store.put(f"jobs/{job_id}/request.json",
              json.dumps({"id": job_id, "argv": argv, "launcher": "none",
                          "files": {"dump.py": ENV_DUMP}, **extra}).encode())


def test_a_job_gets_the_restart_env_and_the_helper_on_its_path(tmp_path, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", "/somewhere/else")
    root = _node_with_helper(tmp_path)
    store = job_agent.DirStore(str(tmp_path / "bucket"))
    _request(store, "j", [sys.executable, "dump.py"])
    agent = job_agent.Agent(store, job_agent.Node("n0", str(root)), [], poll_s=0.1)
    assert agent.run("j") == 0, store.get("jobs/j/n0/log.txt")
    env = json.loads(store.get("jobs/j/n0/out/env.json"))
    assert env["TORCH_DISABLE_SHARE_RDZV_TCP_STORE"] == "1"
    assert env["PYTHONPATH"] == f"{root}/opt/trainstack/python:/somewhere/else"
    assert env["helper"] == f"{root}/opt/trainstack/python/trainstack_resumable.py"
    assert env["TRAINSTACK_NOTICE_FILE"] == f"{root}/var/lib/trainstack/preemption.json"
    assert env["TRAINSTACK_EVENTS_DIR"] == f"{root}/var/lib/trainstack/events"


FAKE_DOCKER = """#!{python}
import json, os, sys

argv = sys.argv[1:]
keys = [argv[i + 1] for i, a in enumerate(argv) if a == "-e"]
with open({record!r}, "w") as out:
    json.dump({{"argv": argv, "env": {{k: os.environ.get(k) for k in keys}}}}, out)
"""


def test_the_image_run_gets_the_same_env_and_mounts(tmp_path, monkeypatch):
    root = _node_with_helper(tmp_path)
    (root / "etc/trainstack").mkdir(parents=True)
    (root / "etc/trainstack/runtime.env").write_text("TS_IMAGE=repo/img@sha256:" + "a" * 64 + "\n")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    record = tmp_path / "docker.json"
    (bin_dir / "docker").write_text(FAKE_DOCKER.format(python=sys.executable, record=str(record)))
    (bin_dir / "docker").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    store = job_agent.DirStore(str(tmp_path / "bucket"))
    _request(store, "j", ["python3", "dump.py"])
    agent = job_agent.Agent(store, job_agent.Node("n0", str(root)), [], poll_s=0.1)
    assert agent.run("j") == 0
    seen = json.loads(record.read_text())
    joined = " ".join(seen["argv"])
    assert "-v /opt/trainstack/python:/opt/trainstack/python:ro" in joined
    assert "-v /var/lib/trainstack:/var/lib/trainstack" in joined
    assert seen["argv"][:3] == ["run", "--rm", "--init"]   # tini relays SIGTERM to torchrun
    assert seen["env"]["TORCH_DISABLE_SHARE_RDZV_TCP_STORE"] == "1"
    assert seen["env"]["PYTHONPATH"].split(os.pathsep)[0] == f"{root}/opt/trainstack/python"
    assert seen["env"]["TRAINSTACK_NOTICE_FILE"].endswith("/var/lib/trainstack/preemption.json")


def test_a_leaving_node_starts_nothing(tmp_path):
    root = tmp_path / "root"
    store = job_agent.DirStore(str(tmp_path / "bucket"))
    _request(store, "j", ["true"])
    agent = job_agent.Agent(store, job_agent.Node("n0", str(root)), [], poll_s=0.1)
    assert agent.pending() == ["j"]
    (root / "var/lib/trainstack").mkdir(parents=True)
    (root / "var/lib/trainstack/leaving").write_text("now\n")
    assert agent.pending() == []


WORKER = """import os, signal, sys, time
out = os.environ["TRAINSTACK_JOB_OUT"]
def saved(*_):
    open(os.path.join(out, "rank%s-got-sigterm" % os.environ["RANK"]), "w").write("saved")
    sys.exit(3)
signal.signal(signal.SIGTERM, saved)
open(os.path.join(out, "rank%s-ready" % os.environ["RANK"]), "w").write(str(os.getpid()))
time.sleep(120)
"""


def test_the_preemption_agent_signals_the_job_agents_torchrun(tmp_path):
    """The pair on one node: the job agent launches real torchrun and writes its pid; an AWS
    notice makes the preemption agent SIGTERM that pid; torchrun forwards it to both workers."""
    pytest.importorskip("torch")
    from tests.run_helpers import LAUNCHER, free_port, wait_for, write_node_root
    root = tmp_path / "root"
    write_node_root(root, 0, 1, free_port(), nproc=2)
    store = job_agent.DirStore(str(tmp_path / "bucket"))
    store.put("jobs/j/request.json", json.dumps(
        {"id": "j", "argv": ["python", "worker.py"], "files": {"worker.py": WORKER}}).encode())
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": os.getcwd()}
    agent_proc = subprocess.Popen(
        [sys.executable, job_agent.__file__, "--bucket", str(tmp_path / "bucket"), "--node", "n0",
         "--root", str(root), "--launcher", LAUNCHER, "--poll", "0.2", "--max-jobs", "1"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    out = root / "var/lib/trainstack/jobs/j/out"
    try:
        assert wait_for(lambda: len(list(out.glob("*-ready"))) == 2, 120), \
            store.get("jobs/j/n0/log.txt")
        pid = json.loads((root / "var/lib/trainstack/jobs/j.json").read_text())["pid"]
        cmdline = open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0")
        assert b"torch.distributed.run" in cmdline and b"worker.py" in cmdline  # torchrun itself
        workers = {int(p.read_text()) for p in out.glob("*-ready")}
        assert pid not in workers
        with MetadataServer("aws", vm_name="n0") as md:
            md.notice(datetime.now(timezone.utc) + timedelta(seconds=120))
            preempt = pa.Agent("aws", "n0", pa.Metadata(md.url), pa.Paths.under(str(root)),
                               dest_dir=str(tmp_path / "bucket"), log=lambda line: None)
            fresh = preempt.poll_once()
        assert [n.kind for n in fresh] == ["spot-interruption"]
        assert agent_proc.wait(timeout=90) == 0
        exit_record = json.loads(store.get("jobs/j/n0/exit.json"))
        assert exit_record["rc"] != 0 and exit_record["preempted"] is True
        assert sorted(p.name for p in out.glob("*-got-sigterm")) == \
            ["rank0-got-sigterm", "rank1-got-sigterm"]
        event = json.loads(next((tmp_path / "bucket/events/n0").glob("*.json")).read_text())
        assert event["signalled_jobs"] == ["j"]
    finally:
        if agent_proc.poll() is None:
            agent_proc.kill()
            agent_proc.wait()


def test_a_fresh_node_joins_a_job_only_while_it_runs(tmp_path):
    """A replacement boots with no memory of past jobs: it must join the job whose node was
    preempted (even under that node's name, as a GCP managed group recreates it), and not start
    jobs that have ended (torchrun would wait for a rendezvous nobody hosts)."""
    store = job_agent.DirStore(str(tmp_path / "bucket"))
    for job_id in ("old", "live"):
        _request(store, job_id, ["true"], launcher="torchrun")
    _request(store, "each", ["true"])     # no torchrun: every node runs it on its own
    store.put("jobs/each/n0/exit.json", json.dumps({"rc": 0}).encode())
    store.put("jobs/old/n0/exit.json", json.dumps({"rc": 0}).encode())
    store.put("jobs/old/n1/exit.json", json.dumps({"rc": 0}).encode())
    store.put("jobs/live/n1/exit.json", json.dumps({"rc": -15, "preempted": True}).encode())
    fresh = job_agent.Agent(store, job_agent.Node("n2", str(tmp_path / "n2")), [])
    assert fresh.pending() == ["each", "live"]
    same_name = job_agent.Agent(store, job_agent.Node("n1", str(tmp_path / "n1b")), [])
    assert same_name.pending() == ["each", "live"]
    store.put("jobs/live/n0/exit.json", json.dumps({"rc": 0}).encode())   # the job ended
    assert job_agent.Agent(store, job_agent.Node("n3", str(tmp_path / "n3")), []).pending() == \
        ["each"]
