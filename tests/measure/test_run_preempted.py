"""`trainstack run` across a preemption (issues 22 + 23): a node whose exit record says
"preempted" is not the job's end; the wait follows its replacement, under a new name or the same
one; a spot stack's torchrun gets elastic restarts by default."""
import json
import threading
import time

from typer.testing import CliRunner

from trainstack.measure import run as run_mod
from trainstack.cli.app import app


def put(bucket, key, record):
    path = bucket / key
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record))


def start(bucket, job, node, at, rc=None, preempted=False):
    put(bucket, f"jobs/{job}/{node}/started.json", {"node": node, "started": at})
    (bucket / f"jobs/{job}/{node}/log.txt").write_text(f"{node} at {at}\n")
    if rc is not None:
        put(bucket, f"jobs/{job}/{node}/exit.json",
            {"node": node, "started": at, "rc": rc, **({"preempted": True} if preempted else {})})


def target(tmp_path, spot=False):
    return run_mod.Target(f"file://{tmp_path}", ("node-0", "node-1"), spot=spot)


def test_the_wait_follows_a_replacement_under_a_new_name(tmp_path):
    start(tmp_path, "j", "node-0", "T0")
    start(tmp_path, "j", "node-1", "T0", rc=-15, preempted=True)
    lines = []
    later = threading.Timer(0.3, lambda: (start(tmp_path, "j", "node-1b", "T1", rc=0),
                                          start(tmp_path, "j", "node-0", "T0", rc=0)))
    later.start()
    result = run_mod.wait(target(tmp_path), "j", timeout_s=10, poll_s=0.02, echo=lines.append)
    later.join()
    assert not result.timed_out and result.rc == 0
    assert result.replaced == ["node-1"] and sorted(result.final) == ["node-0", "node-1b"]
    assert "[node-1b] node-1b at T1" in lines


def test_the_wait_follows_a_replacement_under_the_same_name(tmp_path):
    start(tmp_path, "j", "node-0", "T0")
    start(tmp_path, "j", "node-1", "T0", rc=-15, preempted=True)
    def replace():
        start(tmp_path, "j", "node-1", "T1")        # the old exit.json is still there
        time.sleep(0.2)
        start(tmp_path, "j", "node-1", "T1", rc=0)
        start(tmp_path, "j", "node-0", "T0", rc=0)
    later = threading.Timer(0.3, replace)
    later.start()
    result = run_mod.wait(target(tmp_path), "j", timeout_s=10, poll_s=0.02)
    later.join()
    assert not result.timed_out and result.rc == 0
    assert result.exits["node-1"]["started"] == "T1" and result.replaced == []


def test_a_survivor_that_fails_ends_the_wait(tmp_path):
    start(tmp_path, "j", "node-0", "T0", rc=1)
    start(tmp_path, "j", "node-1", "T0", rc=-15, preempted=True)
    result = run_mod.wait(target(tmp_path), "j", timeout_s=5, poll_s=0.02)
    assert not result.timed_out and result.rc == 1


def test_a_preempted_node_alone_is_not_the_end(tmp_path):
    start(tmp_path, "j", "node-0", "T0")
    start(tmp_path, "j", "node-1", "T0", rc=-15, preempted=True)
    result = run_mod.wait(target(tmp_path), "j", timeout_s=0.3, poll_s=0.02)
    assert result.timed_out and result.rc == run_mod.EXIT_TIMEOUT


def test_spot_gets_elastic_restarts_by_default(tmp_path, monkeypatch):
    for spot, flag, want in ((True, [], run_mod.SPOT_MAX_RESTARTS), (False, [], 0),
                             (True, ["--max-restarts", "0"], 0)):
        monkeypatch.setattr(run_mod, "resolve", lambda stack, url, s=spot: target(tmp_path, s))
        result = CliRunner().invoke(app, ["run", "--stack", "x", "--detach", *flag, "--",
                                          "python", "t.py"])
        assert result.exit_code == 0, result.output
        job = result.output.split()[1]
        request = json.loads((tmp_path / f"jobs/{job}/request.json").read_text())
        assert request["max_restarts"] == want, (spot, flag)
    assert run_mod.SPOT_MAX_RESTARTS == 3
