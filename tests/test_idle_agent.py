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

from components.agents import idle_agent
from tests.conftest import ROOT

AGENT = ROOT / "components" / "agents" / "idle_agent.py"
PYTHON = shutil.which("python3") or sys.executable

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

    def run(gpus=IDLE_GPUS, apps="", who="", extra=(), broken_smi=False):
        (tmp_path / "gpus.csv").write_text(gpus)
        (tmp_path / "apps.csv").write_text(apps)
        (tmp_path / "who.txt").write_text(who)
        if broken_smi:
            stand_in(bin_dir, "nvidia-smi", "echo 'NVIDIA-SMI has failed' >&2; exit 9")
        else:
            stand_in(bin_dir, "nvidia-smi",
                     f'case "$1" in --query-gpu=*) cat {tmp_path}/gpus.csv;; '
                     f'--query-compute-apps=*) cat {tmp_path}/apps.csv;; esac')
        stand_in(bin_dir, "who", f"cat {tmp_path}/who.txt")
        env = {"PATH": f"{bin_dir}{os.pathsep}/usr/bin:/bin", "HOME": str(tmp_path)}
        done = subprocess.run([PYTHON, "-I", str(AGENT), "--node", "node-0", "--dest-dir",
                               str(bucket), "--state", str(tmp_path / "state.json"), *extra],
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


def test_a_hung_loop_holding_gpu_memory_at_zero_utilisation_is_idle(node):
    beat = node(gpus=HUNG_GPUS, apps=APPS)
    assert beat["busy"] is False and len(beat["gpu_processes"]) == 2


def test_an_active_session_keeps_the_node_busy_and_a_stale_one_does_not(node):
    active = "alice    pts/0        2026-12-01 09:00   .          4711 (10.0.0.5)\n"
    stale = "bob      pts/1        2026-11-29 18:00  old         4712 (10.0.0.6)\n"
    assert node(who=active)["busy"] is True
    beat = node(who=stale)
    assert beat["busy"] is False and beat["sessions"][0]["idle_minutes"] == 24 * 60
    assert node(who="carol pts/2 2026-12-01 08:00 00:45 4713 (10.0.0.7)\n")["busy"] is False


def test_a_failing_nvidia_smi_is_reported_not_hidden(node):
    beat = node(broken_smi=True)
    assert beat["gpus"] is None and "nvidia-smi" in beat["gpu_error"] and beat["busy"] is False


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
