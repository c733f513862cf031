"""The job agent's launch line, container wrapper and request handling (no torch needed)."""
import json

import pytest

from trainstack_components.agents import job_agent

BOOT = {"MASTER_ADDR": "10.0.0.5", "MASTER_PORT": "29500", "NNODES": "4", "NODE_RANK": "0",
        "NPROC_PER_NODE": "8"}


def test_torchrun_line_from_the_ranks_profile():
    argv = job_agent.launch_argv({"id": "j1", "argv": ["python", "train.py", "--lr", "1e-4"],
                                  "max_restarts": 3}, BOOT, ["torchrun"])
    assert argv == ["torchrun", "--nnodes=4:4", "--nproc-per-node=8", "--rdzv-backend=c10d",
                    "--rdzv-endpoint=10.0.0.5:29500", "--rdzv-id=j1",
                    "--rdzv-conf=is_host=true", "--max-restarts=3",
                    "train.py", "--lr", "1e-4"]
    other = job_agent.launch_argv({"id": "j1", "argv": ["bash", "go.sh"], "nnodes": 1,
                                   "nproc_per_node": 2}, {**BOOT, "NODE_RANK": "3"}, ["torchrun"])
    assert "--rdzv-conf=is_host=false" in other and "--nnodes=1:1" in other
    assert "--nproc-per-node=2" in other
    assert other[-3:] == ["--no-python", "bash", "go.sh"]
    assert job_agent.launch_argv({"id": "j", "argv": ["x"], "launcher": "none"}, {}, ["t"]) == ["x"]


def test_missing_ranks_profile_is_a_clear_error():
    with pytest.raises(ValueError, match="NODE_RANK"):
        job_agent.launch_argv({"id": "j", "argv": ["python", "t.py"]},
                              {"MASTER_ADDR": "a", "NNODES": "2"}, ["torchrun"])


def test_container_wrapper():
    argv = job_agent.container_argv("repo/img@sha256:" + "a" * 64, ["torchrun", "t.py"],
                                    ["NCCL_DEBUG", "FI_PROVIDER"], "/var/lib/trainstack/jobs/j",
                                    ["/dev/infiniband/uverbs0"], "/lustre/code")
    assert argv[:3] == ["docker", "run", "--rm"]
    joined = " ".join(argv)
    for part in ("--gpus all", "--network host", "--ipc host", "--device /dev/infiniband/uverbs0",
                 "-v /lustre:/lustre", "-v /scratch:/scratch", "-w /lustre/code",
                 "-e FI_PROVIDER", "-e NCCL_DEBUG"):
        assert part in joined
    assert "-v /lustre/code:/lustre/code" not in joined   # already under /lustre
    assert argv[-3:] == ["repo/img@sha256:" + "a" * 64, "torchrun", "t.py"]


def test_profile_env_reads_what_a_shell_would(tmp_path):
    profile = tmp_path / "p.sh"
    profile.write_text("export A=1\nexport B=\"$A:two\"\n")
    env = job_agent.profile_env([profile, tmp_path / "missing.sh"])
    assert env["A"] == "1" and env["B"] == "1:two"


def test_bad_request_and_other_nodes_jobs(tmp_path):
    store = job_agent.DirStore(str(tmp_path / "bucket"))
    store.put("jobs/bad/request.json", b"{not json")
    store.put("jobs/theirs/request.json", json.dumps(
        {"id": "theirs", "argv": ["true"], "launcher": "none", "run_on": ["other"]}).encode())
    agent = job_agent.Agent(store, job_agent.Node("me", str(tmp_path / "root")), ["torchrun"])
    assert agent.pending() == ["bad", "theirs"]
    assert agent.run("bad") == 2
    assert json.loads(store.get("jobs/bad/me/exit.json"))["rc"] == 2
    assert b"bad request" in store.get("jobs/bad/me/log.txt")
    assert agent.run("theirs") is None and store.get("jobs/theirs/me/exit.json") is None
    assert agent.pending() == []     # neither is run again, even after a restart:
    assert job_agent.Agent(store, job_agent.Node("me", str(tmp_path / "root")), []).pending() == []


def test_request_files_and_outputs(tmp_path):
    store = job_agent.DirStore(f"file://{tmp_path / 'bucket'}")
    store.put("jobs/j/request.json", json.dumps({
        "id": "j", "launcher": "none", "files": {"w.py": "import os\n"
        "open(os.path.join(os.environ['TRAINSTACK_JOB_OUT'], 'r.json'), 'w').write('{}')\n",
        "../evil": "x"},
        "argv": ["python3", "w.py"]}).encode())
    agent = job_agent.Agent(store, job_agent.Node("n0", str(tmp_path / "root")), [], poll_s=0.1)
    assert agent.run("j") == 0
    assert store.get("jobs/j/n0/out/r.json") == b"{}"
    assert not (tmp_path / "root" / "var/lib/trainstack/jobs/evil").exists()


def test_unit_runs_the_agent_with_the_boot_env():
    unit = job_agent.unit_file()
    assert f"EnvironmentFile=-{job_agent.ENV_FILE}" in unit
    assert "--bucket ${TS_BUCKET_URL} --node ${TS_NODE}" in unit and "Restart=always" in unit
