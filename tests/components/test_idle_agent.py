"""The idle agent on a node: stand-ins for `nvidia-smi` and `who` on PATH, a local directory as
the bucket. It runs under the system's plain python3 in isolated mode (stdlib only)."""
import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT
from trainstack_components.agents import idle_agent

AGENT = ROOT / "components" / "agents" / "idle_agent.py"
PYTHON = shutil.which("python3") or sys.executable
# The interpreter itself (a pyenv shim needs bash and more on PATH; the node's PATH here is bare).
PYTHON = subprocess.run([PYTHON, "-c", "import sys; print(sys.executable)"], capture_output=True,
                        text=True, check=True).stdout.strip()

BUSY_GPUS = "0, 97, 71000, 81559\n1, 95, 70500, 81559\n"
IDLE_GPUS = "0, 0, 1, 81559\n1, 0, 1, 81559\n"
HUNG_GPUS = "0, 0, 70000, 81559\n1, 0, 70000, 81559\n"
APPS = "GPU-aaaa, 4242, python, 70000\nGPU-bbbb, 4242, python, 70000\n"


def stand_in(bin_dir: Path, name: str, body: str) -> None:
    path = bin_dir / name
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)


@pytest.fixture
def node(tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    bucket = tmp_path / "bucket" / "heartbeats"

    for d in ("jobs", "proc", "state"):
        (tmp_path / d).mkdir()

    tools = tmp_path / "tools"   # what the stand-ins need, without the system's own ss
    tools.mkdir()
    for tool in ("cat", "sleep", "cp", "mv", "mkdir", "sh", "bash", "env", "true", "false"):
        if shutil.which(tool):
            (tools / tool).symlink_to(shutil.which(tool))

    def run(gpus=IDLE_GPUS, apps="", who="", extra=(), broken_smi=False, hung_smi=False, ss="",
            ss_body=None, who_body=None):
        (tmp_path / "gpus.csv").write_text(gpus)
        (tmp_path / "apps.csv").write_text(apps)
        (tmp_path / "who.txt").write_text(who)
        (tmp_path / "ss.txt").write_text(ss)
        (bin_dir / "ss").unlink(missing_ok=True)
        if ss_body != "missing":
            stand_in(bin_dir, "ss", ss_body or f"cat {tmp_path}/ss.txt")
        if broken_smi:
            stand_in(bin_dir, "nvidia-smi", "echo 'NVIDIA-SMI has failed' >&2; exit 9")
        elif hung_smi:  # a wedged driver: nvidia-smi never answers
            stand_in(bin_dir, "nvidia-smi", "sleep 600")
        else:
            stand_in(bin_dir, "nvidia-smi",
                     f'case "$1" in --query-gpu=*) cat {tmp_path}/gpus.csv;; '
                     f'--query-compute-apps=*) cat {tmp_path}/apps.csv;; esac')
        (bin_dir / "who").unlink(missing_ok=True)
        if who_body != "missing":
            stand_in(bin_dir, "who", who_body or f"cat {tmp_path}/who.txt")
        env = {"PATH": f"{bin_dir}{os.pathsep}{tools}", "HOME": str(tmp_path)}
        done = subprocess.run([PYTHON, "-I", str(AGENT), "--node", "node-0", "--dest-dir",
                               str(bucket), "--state", str(tmp_path / "state.json"),
                               "--jobs-dir", str(tmp_path / "jobs"), "--proc", str(tmp_path / "proc"),
                               "--state-dir", str(tmp_path / "state"), "--smi-timeout", "2", *extra],
                              env=env, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        return json.loads((bucket / "node-0.json").read_text())
    return run


def test_a_training_node_is_busy_with_its_gpus_and_processes_recorded(node):
    beat = node(gpus=BUSY_GPUS, apps=APPS)
    assert beat["node"] == "node-0" and beat["busy"] is True
    assert beat["last_busy"] == beat["time"]
    assert [g["utilization_pct"] for g in beat["gpus"]] == [97.0, 95.0]
    assert beat["gpus"][0]["memory_used_mib"] == 71000.0
    assert [p["pid"] for p in beat["gpu_processes"]] == [4242, 4242]


def test_an_idle_node_keeps_its_last_busy_time(node):
    busy = node(gpus=BUSY_GPUS, apps=APPS)
    idle = node(gpus=IDLE_GPUS)
    assert idle["busy"] is False and idle["reasons"] == []
    assert idle["last_busy"] == busy["last_busy"]


def test_a_job_loading_data_at_zero_utilisation_with_gpu_memory_held_is_busy(node):
    # 70 GB held at 0 %: a data loader, a compile, a collective wait. Idle would kill it.
    beat = node(gpus=HUNG_GPUS, apps=APPS)
    assert beat["state"] == "busy" and beat["busy"] is True and beat["idle_for_seconds"] == 0
    assert "gpu process python (pid 4242) holds 70000.0 MiB" in beat["reasons"]


def test_an_active_session_keeps_the_node_busy_and_a_stale_one_does_not(node):
    active = "alice    pts/0        2026-12-01 09:00   .          4711 (10.0.0.5)\n"
    stale = "bob      pts/1        2026-11-29 18:00  old         4712 (10.0.0.6)\n"
    assert node(who=active)["busy"] is True
    beat = node(who=stale)
    assert beat["busy"] is False and beat["sessions"][0]["idle_minutes"] == 24 * 60
    assert node(who="carol pts/2 2026-12-01 08:00 00:45 4713 (10.0.0.7)\n")["busy"] is False


def test_a_failing_nvidia_smi_is_unknown_not_idle(node):
    beat = node(broken_smi=True)
    assert beat["gpus"] is None and "nvidia-smi" in beat["gpu_error"] and beat["busy"] is False
    assert beat["state"] == "unknown" and beat["idle_for_seconds"] is None


def test_a_hung_nvidia_smi_is_unknown_within_the_timeout(node):
    import time
    started = time.monotonic()
    beat = node(hung_smi=True)
    assert beat["state"] == "unknown" and beat["idle_for_seconds"] is None
    assert time.monotonic() - started < 20  # --smi-timeout 2 s, not the stand-in's 600 s


def test_unknown_restarts_the_idle_clock(node, tmp_path):
    two_hours_ago = "2020-01-01T00:00:00Z"
    (tmp_path / "state.json").write_text(json.dumps({"last_busy": two_hours_ago,
                                                     "first_seen": two_hours_ago}))
    assert node()["idle_for_seconds"] > 3600
    node(broken_smi=True)
    assert node()["idle_for_seconds"] < 60


def test_a_running_trainstack_job_keeps_the_node_busy_and_a_finished_one_does_not(node, tmp_path):
    job = subprocess.Popen(["sleep", "60"])
    try:
        (tmp_path / "jobs" / "run-1.json").write_text(json.dumps({"pid": job.pid, "cmd": "x"}))
        beat = node()
        assert beat["state"] == "busy" and beat["jobs"] == [{"job": "run-1", "pid": job.pid}]
        assert f"trainstack job run-1 (pid {job.pid})" in beat["reasons"]
    finally:
        job.kill()
        job.wait()
    beat = node()  # the file stays behind; its pid is gone
    assert beat["state"] == "idle" and beat["jobs"] == []


def test_the_jobs_directory_is_the_documented_contract():
    assert idle_agent.JOBS_DIR == "/var/lib/trainstack/jobs"


def _proc(tmp_path, pid, comm, ppid):
    (tmp_path / "proc" / str(pid)).mkdir()
    (tmp_path / "proc" / str(pid) / "stat").write_text(f"{pid} ({comm}) S {ppid} 1 1 0 -1\n")


def test_an_ssm_session_keeps_the_node_busy(node, tmp_path):
    _proc(tmp_path, 900, "amazon-ssm-agen", 1)
    assert node()["state"] == "idle"  # the agent alone is no session
    _proc(tmp_path, 901, "ssm-session-worker", 900)
    beat = node()
    assert beat["state"] == "busy" and beat["agent_sessions"] == ["AWS SSM session (pid 901)"]


def test_a_cloud_assistant_shell_keeps_the_node_busy(node, tmp_path):
    _proc(tmp_path, 700, "aliyun-service", 1)
    _proc(tmp_path, 701, "bash", 700)
    assert node()["agent_sessions"] == ["Alibaba Cloud Assistant session (pid 701)"]


def test_an_ssh_connection_without_a_tty_keeps_the_node_busy(node):
    # Azure Bastion, IAP tunnels, `ssh node python train.py`: in `ss`, not in `who`.
    beat = node(ss="0      0      10.0.0.4:22      10.0.9.7:53122\n")
    assert beat["state"] == "busy" and "ssh connection from 10.0.9.7:53122" in beat["reasons"]


def test_a_booting_node_is_busy_until_the_last_step_ends(node, tmp_path):
    (tmp_path / "state" / "booting").write_text("")
    assert node()["state"] == "busy" and node()["booting"].startswith("booting for")
    (tmp_path / "state" / "steps").mkdir()
    (tmp_path / "state" / "steps" / "health.rc").write_text("0\n")
    assert node()["state"] == "idle"


def test_a_boot_stuck_past_the_limit_stops_counting(node, tmp_path):
    marker = tmp_path / "state" / "booting"
    marker.write_text("")
    os.utime(marker, (0, 0))
    assert node(extra=["--boot-limit-minutes", "60"])["booting"] is None


def test_idle_for_seconds_counts_on_the_nodes_own_clock(node, tmp_path):
    hour_ago = "2020-01-01T00:00:00Z"
    (tmp_path / "state.json").write_text(json.dumps({"last_busy": hour_ago, "first_seen": hour_ago}))
    beat = node()
    from datetime import datetime
    now = datetime.fromisoformat(beat["time"].replace("Z", "+00:00"))
    then = datetime.fromisoformat(hour_ago.replace("Z", "+00:00"))
    assert beat["state"] == "idle" and beat["idle_for_seconds"] == int((now - then).total_seconds())


def test_the_upload_command_is_a_parameter(node, tmp_path):
    target = tmp_path / "uploaded"
    target.mkdir()
    node(gpus=BUSY_GPUS, extra=["--upload", f"cp {{src}} {target}/{{node}}.json"])
    assert json.loads((target / "node-0.json").read_text())["busy"] is True


def test_the_units_run_the_agent_every_minute_with_the_upload():
    units = idle_agent.unit_files("aws s3 cp {src} s3://b/heartbeats/{node}.json")
    service = units["/etc/systemd/system/trainstack-idle.service"]
    timer = units["/etc/systemd/system/trainstack-idle.timer"]
    assert "ExecStart=/usr/bin/python3 /opt/trainstack/idle_agent.py --upload " \
           "'aws s3 cp {src} s3://b/heartbeats/{node}.json'" in service
    assert "OnUnitActiveSec=1min" in timer and "WantedBy=timers.target" in timer


# -- issue 34: what the agent cannot know is "unknown", never "idle" ---------------------------

@pytest.mark.parametrize("ss_body", ["missing", "echo 'Cannot open netlink socket' >&2; exit 1",
                                     "sleep 600"])
def test_ssh_connections_that_cannot_be_read_are_unknown(node, ss_body):
    beat = node(ss_body=ss_body, extra=("--ss-timeout", "2"))
    assert beat["state"] == "unknown" and beat["idle_for_seconds"] is None
    assert "ss" in beat["unknown"]


@pytest.mark.parametrize("who_body", ["missing", "echo 'who: cannot open utmp' >&2; exit 1",
                                      "sleep 600"])
def test_sessions_that_cannot_be_read_are_unknown(node, who_body):
    beat = node(who_body=who_body, extra=("--ss-timeout", "2"))
    assert beat["state"] == "unknown" and beat["idle_for_seconds"] is None
    assert "who" in beat["unknown"]


def test_nvidia_smi_answering_no_gpu_rows_is_unknown(node):
    beat = node(gpus="")
    assert beat["state"] == "unknown" and beat["idle_for_seconds"] is None
    assert "no GPU" in beat["unknown"]


def test_a_header_line_in_nvidia_smis_answer_is_unknown_not_a_crash(node):
    header = "index, utilization.gpu [%], memory.used [MiB], memory.total [MiB]\n"
    beat = node(gpus=header + IDLE_GPUS)
    assert beat["state"] == "unknown" and "nvidia-smi" in beat["unknown"]
    beat = node(apps="gpu_uuid, pid, process_name, used_gpu_memory [MiB]\n")
    assert beat["state"] == "unknown"


def test_a_clock_stepped_forward_two_days_is_unknown_and_restarts_the_idle_clock(node, tmp_path):
    first = node()
    from datetime import datetime, timedelta
    stepped_back = (datetime.fromisoformat(first["time"].replace("Z", "+00:00"))
                    - timedelta(days=2)).strftime("%Y-%m-%dT%H:%M:%SZ")
    # The same as this run's clock stepped two days forward since the last report.
    (tmp_path / "state.json").write_text(json.dumps({"last_busy": stepped_back,
                                                     "first_seen": stepped_back,
                                                     "time": stepped_back}))
    beat = node()
    assert beat["state"] == "unknown" and "clock" in beat["unknown"]
    assert node()["idle_for_seconds"] < 120   # counted again from the step, not two days


@pytest.mark.parametrize("body", ["", '{"pid": 12', '{"job": "run-2"}', '{"pid": "x"}'])
def test_a_job_file_whose_pid_cannot_be_read_makes_the_node_unknown_not_idle(node, tmp_path, body):
    """Issue 34 review: a job's pid file torn or emptied (a full disk while the job agent
    wrote it) may belong to a job running a CPU phase with idle GPUs; the old agent skipped
    the file and said idle (reaped after the grace period)."""
    (tmp_path / "jobs" / "run-2.json").write_text(body)
    beat = node()
    assert beat["state"] == "unknown" and beat["idle_for_seconds"] is None, beat
    assert "run-2.json" in beat["unknown"] and "a trainstack job may be running" in beat["unknown"]
