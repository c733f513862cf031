#!/usr/bin/env python3
"""trainstack idle agent: one heartbeat per node per minute, decided on real GPU activity.

Run by a systemd timer every minute (see UNITS below). It reads GPU utilisation and memory and
the GPU compute processes from `nvidia-smi`, the interactive sessions from `who -u`, and writes
`heartbeats/<node>.json` into the cluster's bucket:

    {"node", "time", "busy", "last_busy", "reasons", "gpus": [{index, utilization_pct,
     memory_used_mib, memory_total_mib}], "gpu_processes", "sessions", "agent_version"}

A node is busy when a GPU is at least --util-threshold percent utilised, or when someone is
logged in and typed something in the last --session-idle-minutes. A GPU process alone does not
count: a hung training loop holds GPU memory at 0 % utilisation, and that is exactly the cluster
that should stop costing money. `last_busy` survives restarts in a local state file.

The upload is a parameter: `--upload 'aws s3 cp {src} s3://BUCKET/heartbeats/{node}.json'`,
`--upload 'gcloud storage cp {src} gs://BUCKET/heartbeats/{node}.json'`, or `--dest-dir DIR`
(a local directory standing in for the bucket). The node's name is --node, else $TS_NODE (the
boot step `idle`, components/boot/idle.py, writes the cloud's name for the node there), else the
host name. Python 3 standard library only.
"""
from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
from datetime import datetime, timezone
from pathlib import Path
from typing import Optional

AGENT_VERSION = 1
GPU_QUERY = ["nvidia-smi", "--query-gpu=index,utilization.gpu,memory.used,memory.total",
             "--format=csv,noheader,nounits"]
APPS_QUERY = ["nvidia-smi", "--query-compute-apps=gpu_uuid,pid,process_name,used_memory",
              "--format=csv,noheader,nounits"]
DEFAULT_STATE = "/var/lib/trainstack/idle-agent.json"

UNITS = {
    "/etc/systemd/system/trainstack-idle.service": """\
[Unit]
Description=trainstack idle agent: write this node's heartbeat to the cluster bucket
After=network-online.target
Wants=network-online.target

[Service]
Type=oneshot
# TS_NODE: this node's name as the cloud knows it (the health record's key), written at boot.
EnvironmentFile=-{env_file}
ExecStart=/usr/bin/python3 {agent_path} --upload {upload}
TimeoutStartSec=50
""",
    "/etc/systemd/system/trainstack-idle.timer": """\
[Unit]
Description=trainstack idle agent, every minute

[Timer]
OnBootSec=1min
OnUnitActiveSec=1min
AccuracySec=5s

[Install]
WantedBy=timers.target
""",
}
AGENT_PATH = "/opt/trainstack/idle_agent.py"
ENV_FILE = "/etc/trainstack/idle.env"
SERVICE = "trainstack-idle.service"
TIMER = "trainstack-idle.timer"


def unit_files(upload: str, agent_path: str = AGENT_PATH, env_file: str = ENV_FILE) -> dict[str, str]:
    """The systemd service and timer, ready to write (the boot step then runs
    `systemctl enable --now trainstack-idle.timer`). `upload` is the --upload template;
    `env_file` may set TS_NODE (the node's name; the host name when unset)."""
    # systemd splits ExecStart like a shell; a quoted template survives as one argument.
    return {path: text.format(agent_path=agent_path, upload=shlex.quote(upload), env_file=env_file)
            for path, text in UNITS.items()}


def utc_now() -> datetime:
    return datetime.now(timezone.utc)


def iso(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _run(argv: list[str]) -> Optional[str]:
    if shutil.which(argv[0]) is None:
        return None
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None


def _number(text: str) -> Optional[float]:
    try:
        return float(text)
    except ValueError:  # "[N/A]", "[Not Supported]"
        return None


def read_gpus() -> Optional[list[dict]]:
    out = _run(GPU_QUERY)
    if out is None:
        return None
    gpus = []
    for line in out.splitlines():
        cells = [c.strip() for c in line.split(",")]
        if len(cells) >= 4:
            gpus.append({"index": int(cells[0]), "utilization_pct": _number(cells[1]),
                         "memory_used_mib": _number(cells[2]), "memory_total_mib": _number(cells[3])})
    return gpus


def read_gpu_processes() -> list[dict]:
    out = _run(APPS_QUERY) or ""
    apps = []
    for line in out.splitlines():
        cells = [c.strip() for c in line.split(",")]
        if len(cells) >= 4 and cells[1].isdigit():
            apps.append({"gpu_uuid": cells[0], "pid": int(cells[1]), "name": cells[2],
                         "memory_used_mib": _number(cells[3])})
    return apps


def _idle_minutes(field: str) -> Optional[float]:
    """`who -u` IDLE column: '.' (active this minute), 'old' (over a day), or HH:MM."""
    if field == ".":
        return 0.0
    if field == "old":
        return 24 * 60.0
    hours, sep, minutes = field.partition(":")
    if sep and hours.isdigit() and minutes.isdigit():
        return int(hours) * 60.0 + int(minutes)
    return None


def read_sessions() -> list[dict]:
    out = _run(["who", "-u"]) or ""
    sessions = []
    for line in out.splitlines():
        cells = line.split()
        # user tty date time idle pid [(host)]; the date takes one or two cells by locale, so
        # the idle column is found from the end: the cell before the pid.
        fields = [c for c in cells if not c.startswith("(")]
        idle = _idle_minutes(fields[-2]) if len(fields) >= 5 and fields[-1].isdigit() else None
        if cells:
            sessions.append({"user": cells[0], "tty": cells[1] if len(cells) > 1 else "",
                             "idle_minutes": idle})
    return sessions


def decide(gpus: Optional[list[dict]], sessions: list[dict], util_threshold: float,
           session_idle_minutes: float) -> list[str]:
    """The reasons this node is busy now; empty when it is idle."""
    reasons = []
    for gpu in gpus or []:
        if (gpu["utilization_pct"] or 0) >= util_threshold:
            reasons.append(f"gpu {gpu['index']} at {gpu['utilization_pct']:g} %")
    for session in sessions:
        if session["idle_minutes"] is not None and session["idle_minutes"] < session_idle_minutes:
            reasons.append(f"session {session['user']}@{session['tty']}")
    return reasons


def heartbeat(node: str, now: datetime, state: dict, util_threshold: float = 10.0,
              session_idle_minutes: float = 30.0) -> dict:
    gpus = read_gpus()
    processes = read_gpu_processes()
    sessions = read_sessions()
    reasons = decide(gpus, sessions, util_threshold, session_idle_minutes)
    last_busy = iso(now) if reasons else state.get("last_busy")
    return {"node": node, "time": iso(now), "busy": bool(reasons), "reasons": reasons,
            # Never busy since the agent first ran: the first run counts as the start.
            "last_busy": last_busy or state.get("first_seen") or iso(now),
            "first_seen": state.get("first_seen") or iso(now),
            "gpus": gpus, "gpu_error": None if gpus is not None else "nvidia-smi failed or missing",
            "gpu_processes": processes, "sessions": sessions, "agent_version": AGENT_VERSION}


def publish(record: dict, upload: Optional[str], dest_dir: Optional[str]) -> None:
    name = f"{record['node']}.json"
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / name
        src.write_text(json.dumps(record, sort_keys=True))
        if dest_dir:
            Path(dest_dir).mkdir(parents=True, exist_ok=True)
            os.replace(shutil.copy(src, Path(dest_dir) / f".{name}.tmp"), Path(dest_dir) / name)
        if upload:
            argv = [part.format(src=str(src), node=record["node"]) for part in shlex.split(upload)]
            subprocess.run(argv, check=True, timeout=40, stdout=subprocess.DEVNULL)


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--node", default=os.environ.get("TS_NODE") or socket.gethostname(),
                        help="this node's name (default: $TS_NODE, else the host name)")
    parser.add_argument("--upload", help="command template with {src} and {node}")
    parser.add_argument("--dest-dir", help="a local directory standing in for the bucket")
    parser.add_argument("--state", default=os.environ.get("TRAINSTACK_IDLE_STATE", DEFAULT_STATE))
    parser.add_argument("--util-threshold", type=float, default=10.0)
    parser.add_argument("--session-idle-minutes", type=float, default=30.0)
    args = parser.parse_args(argv)
    if not (args.upload or args.dest_dir):
        parser.error("give --upload or --dest-dir")
    state_path = Path(args.state)
    try:
        state = json.loads(state_path.read_text())
    except (OSError, ValueError):
        state = {}
    record = heartbeat(args.node, utc_now(), state, args.util_threshold, args.session_idle_minutes)
    state_path.parent.mkdir(parents=True, exist_ok=True)
    state_path.write_text(json.dumps({"last_busy": record["last_busy"],
                                      "first_seen": record["first_seen"]}))
    try:
        publish(record, args.upload, args.dest_dir)
    except (OSError, subprocess.SubprocessError) as failed:
        print(f"trainstack idle agent: upload failed: {failed}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
