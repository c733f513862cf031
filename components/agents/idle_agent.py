#!/usr/bin/env python3
"""trainstack idle agent: one heartbeat per node per minute, idleness decided on the node.

Run by a systemd timer every minute (see UNITS below), started by the FIRST boot step, so a node
that is still booting (Lustre mounts and peer waits can take most of an hour) reports too. Like
SkyPilot's autostop, the node decides on its own clock; it writes `heartbeats/<node>.json` into
the cluster's bucket:

    {"node", "time", "state": busy|idle|unknown, "busy", "idle_for_seconds", "reasons",
     "unknown", "last_busy", "gpus", "gpu_processes", "sessions", "ssh", "agent_sessions",
     "jobs", "booting", "agent_version"}

The node is busy while any of these holds: a job started through trainstack runs (a file in
--jobs-dir whose pid is alive), a GPU compute process holds memory (a job loading data sits at
0 %), a GPU is at least --util-threshold percent utilised, an interactive session is open (`who`
with input in the last --session-idle-minutes, an established ssh connection (Azure Bastion, IAP
and `ssh host cmd` have no tty), an AWS SSM `ssm-session-worker`, an Alibaba Cloud Assistant
shell), or the boot steps still run. With none of these and nvidia-smi failing or hanging
(--smi-timeout) the state is `unknown`, never idle. `idle_for_seconds` counts from the last
minute that was not idle, on this node's clock only, so a skewed clock cannot shorten it; the
reaper takes a report's age from the store's LastModified. `last_busy` survives restarts in a
local state file.

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
import signal
import socket
import subprocess
import sys
import tempfile
from datetime import datetime, timezone
from pathlib import Path
from typing import Optional, Sequence

AGENT_VERSION = 2
# The contract with `trainstack run`: a job it launches writes `<JOBS_DIR>/<job-id>.json` holding
# at least {"pid": N}; while that pid lives the node is busy.
STATE_DIR = "/var/lib/trainstack"
JOBS_DIR = f"{STATE_DIR}/jobs"
BOOTING_FILE = "booting"    # under STATE_DIR: written by the idle boot step, the first one
HEALTH_STEP = "health"      # the last boot step; the runner writes steps/<step>.rc when it ends
SESSION_WORKERS = {"ssm-session-worker": "AWS SSM session"}
SHELL_PARENTS = {"aliyun-service": "Alibaba Cloud Assistant session"}
SHELLS = {"bash", "sh", "zsh", "dash", "fish"}
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
TimeoutStartSec=110
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


def _run(argv: list[str], timeout: float = 20) -> Optional[str]:
    """stdout of a command, or None when it is missing, fails, or outlives `timeout` (a hung
    `nvidia-smi` is killed with its whole process group, so nothing it started holds the pipe)."""
    if shutil.which(argv[0]) is None:
        return None
    try:
        child = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                 text=True, start_new_session=True)
    except OSError:
        return None
    try:
        out, _ = child.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(child.pid, signal.SIGKILL)
        except OSError:
            pass
        child.communicate()
        return None
    return out if child.returncode == 0 else None


def _number(text: str) -> Optional[float]:
    try:
        return float(text)
    except ValueError:  # "[N/A]", "[Not Supported]"
        return None


class Unreadable(ValueError):
    """A command answered, but not in the form asked for: what it says cannot be trusted."""


def read_gpus(timeout: float = 20) -> Optional[list[dict]]:
    """The GPUs, or None when nvidia-smi cannot say: it fails, hangs, is missing, answers a line
    that is not a GPU row (a header, a warning) or no GPU row at all (a GPU node with no GPU
    seen is a driver problem, never idleness)."""
    out = _run(GPU_QUERY, timeout)
    if out is None:
        return None
    gpus = []
    try:
        for line in out.splitlines():
            if not line.strip():
                continue
            cells = [c.strip() for c in line.split(",")]
            if len(cells) < 4 or not cells[0].isdigit():
                raise Unreadable(line)
            gpus.append({"index": int(cells[0]), "utilization_pct": _number(cells[1]),
                         "memory_used_mib": _number(cells[2]),
                         "memory_total_mib": _number(cells[3])})
    except Unreadable:
        return None
    return gpus or None


def read_gpu_processes(timeout: float = 20) -> Optional[list[dict]]:
    """The GPU compute processes, or None when nvidia-smi cannot say (or answers a line that
    is not a process row)."""
    out = _run(APPS_QUERY, timeout)
    if out is None:
        return None
    apps = []
    for line in out.splitlines():
        if not line.strip():
            continue
        cells = [c.strip() for c in line.split(",")]
        if len(cells) < 4 or not cells[1].isdigit():
            return None
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


def read_sessions(timeout: float = 20) -> Optional[list[dict]]:
    """Logged-in sessions from `who -u`; None when `who` is missing, fails or hangs (a person
    may be logged in: unknown)."""
    out = _run(["who", "-u"], timeout)
    if out is None:
        return None
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


def read_ssh_connections(port: int = 22, timeout: float = 20) -> Optional[list[str]]:
    """Peers of established TCP connections to sshd: `ssh host cmd`, VS Code, IAP and Azure
    Bastion tunnels hold one without a tty, so `who` never lists them. None when `ss` is
    missing, fails or hangs (a connection may be open: unknown)."""
    out = _run(["ss", "-Htn", "state", "established", f"( sport = :{port} )"], timeout)
    if out is None:
        return None
    return [line.split()[-1] for line in out.splitlines() if line.split()]


def _proc_table(proc: Path) -> dict[int, tuple[str, int]]:
    """pid -> (command name, parent pid), from /proc."""
    table = {}
    for entry in proc.iterdir() if proc.is_dir() else ():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # "pid (comm) state ppid ...": comm may hold spaces and parentheses.
        name = stat[stat.find("(") + 1:stat.rfind(")")]
        rest = stat[stat.rfind(")") + 2:].split()
        if len(rest) >= 2 and rest[1].isdigit():
            table[int(entry.name)] = (name, int(rest[1]))
    return table


def read_agent_sessions(proc: Path = Path("/proc")) -> list[str]:
    """Interactive sessions that come through a cloud agent, not sshd: AWS Systems Manager
    Session Manager runs one `ssm-session-worker` per session; Alibaba Cloud Assistant's session
    manager starts the user's shell under `aliyun-service`."""
    table = _proc_table(proc)
    found = []
    for pid, (name, parent) in sorted(table.items()):
        if name in SESSION_WORKERS:
            found.append(f"{SESSION_WORKERS[name]} (pid {pid})")
        elif name in SHELLS and table.get(parent, ("", 0))[0] in SHELL_PARENTS:
            found.append(f"{SHELL_PARENTS[table[parent][0]]} (pid {pid})")
    return found


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: alive
        return True
    return True


def read_jobs(jobs_dir: Path, unreadable: Optional[list] = None) -> list[dict]:
    """Jobs started through trainstack (`trainstack run` writes `<jobs_dir>/<job-id>.json` with
    at least {"pid": N}) whose process is alive. A file whose pid is gone is a finished job; a
    file whose pid cannot be read (torn, emptied by a full disk, unreadable) may be a running
    job's: its name goes to `unreadable`, and the node is then unknown, never idle."""
    jobs = []
    for path in sorted(jobs_dir.glob("*.json")) if jobs_dir.is_dir() else ():
        try:
            pid = int(json.loads(path.read_text())["pid"])
        except (OSError, ValueError, KeyError, TypeError) as failed:
            if unreadable is not None:
                unreadable.append(f"{path.name} ({type(failed).__name__})")
            continue
        if pid > 0 and _alive(pid):
            jobs.append({"job": path.stem, "pid": pid})
    return jobs


def booting(state_dir: Path, now: datetime, limit_minutes: float) -> Optional[str]:
    """A reason while this node's boot steps still run: the idle step (first in boot) writes
    BOOTING_FILE; the boot runner writes steps/health.rc once the last step has ended. A boot
    still running after `limit_minutes` is no longer a reason (a stuck boot bills too)."""
    marker, done = state_dir / BOOTING_FILE, state_dir / "steps" / f"{HEALTH_STEP}.rc"
    try:
        started = marker.stat().st_mtime
    except OSError:
        return None
    if done.exists() and done.stat().st_mtime >= started:
        return None
    minutes = (now.timestamp() - started) / 60
    return f"booting for {minutes:.0f} min" if minutes < limit_minutes else None


def decide(gpus: Optional[list[dict]], sessions: Optional[list[dict]], util_threshold: float,
           session_idle_minutes: float, processes: Optional[list[dict]] = None,
           jobs: Sequence[dict] = (), ssh: Optional[Sequence[str]] = (),
           agent_sessions: Sequence[str] = (),
           boot: Optional[str] = None, min_process_mib: float = 0) -> list[str]:
    """The reasons this node is busy now; empty when it is idle (or its GPUs cannot be read)."""
    reasons = [f"trainstack job {j['job']} (pid {j['pid']})" for j in jobs]
    if boot:
        reasons.append(boot)
    for gpu in gpus or []:
        if (gpu["utilization_pct"] or 0) >= util_threshold:
            reasons.append(f"gpu {gpu['index']} at {gpu['utilization_pct']:g} %")
    # A process holding GPU memory is work even at 0 %: loading data, compiling, waiting on a
    # collective. (A hung loop also looks like this; the job's own timeout is the cure there.)
    for app in processes or []:
        if app["memory_used_mib"] is None or app["memory_used_mib"] > min_process_mib:
            reasons.append(f"gpu process {app['name']} (pid {app['pid']}) holds "
                           f"{app['memory_used_mib'] if app['memory_used_mib'] is not None else '?'} MiB")
    if gpus:
        # Memory held on the GPUs beyond what the listed processes hold (a process nvidia-smi
        # cannot attribute: another PID namespace, a container runtime it cannot see) is work
        # too, whatever else is listed. An idle GPU holds only the driver's own few MiB; 1 %
        # of a card is far above that.
        used = sum(g.get("memory_used_mib") or 0 for g in gpus)
        listed = sum(app.get("memory_used_mib") or 0 for app in processes or [])
        card = max((g.get("memory_total_mib") or 0 for g in gpus), default=0)
        if used - listed > max(min_process_mib, 0.01 * card):
            reasons.append(f"gpus hold {used - listed:g} MiB that no listed process holds")
    for session in sessions or []:
        if session["idle_minutes"] is None:
            # `who -u` prints "?" when it cannot stat the tty: she may have typed a minute ago.
            reasons.append(f"session {session['user']}@{session['tty']} (idle time unknown)")
        elif session["idle_minutes"] < session_idle_minutes:
            reasons.append(f"session {session['user']}@{session['tty']}")
    reasons += [f"ssh connection from {peer}" for peer in ssh or ()]
    reasons += list(agent_sessions)
    return reasons


# The timer runs the agent every minute (TimeoutStartSec 110 s): a longer gap since the last
# report is a clock step or a stop, and what happened in it is not known.
MAX_GAP_S = 5 * 60


def _seconds(later: datetime, earlier: str) -> int:
    then = datetime.fromisoformat(earlier.replace("Z", "+00:00"))
    return max(0, int((later - then).total_seconds()))


def heartbeat(node: str, now: datetime, state: dict, util_threshold: float = 10.0,
              session_idle_minutes: float = 30.0, *, jobs_dir: Path = Path(JOBS_DIR),
              state_dir: Path = Path(STATE_DIR), proc: Path = Path("/proc"),
              smi_timeout: float = 20, boot_limit_minutes: float = 180,
              min_process_mib: float = 0, ss_timeout: float = 20) -> dict:
    gpus = read_gpus(smi_timeout)
    processes = read_gpu_processes(smi_timeout) if gpus is not None else None
    sessions, agent_sessions = read_sessions(ss_timeout), read_agent_sessions(proc)
    ssh = read_ssh_connections(timeout=ss_timeout)
    torn: list[str] = []
    jobs = read_jobs(jobs_dir, torn)
    boot = booting(state_dir, now, boot_limit_minutes)
    reasons = decide(gpus, sessions, util_threshold, session_idle_minutes, processes, jobs, ssh,
                     agent_sessions, boot, min_process_mib)
    gaps = []
    if gpus is None or processes is None:
        gaps.append("nvidia-smi failed, hung, is missing or answered no GPU row it could "
                    "read: this node's GPU use is unknown")
    if ssh is None:
        gaps.append("ss failed, hung or is missing: open ssh connections are unknown")
    if sessions is None:
        gaps.append("who failed, hung or is missing: logged-in sessions are unknown")
    if torn:
        gaps.append(f"job file(s) {', '.join(torn)} unreadable: a trainstack job may be running")
    try:
        since = (now - datetime.fromisoformat(str(state["time"]).replace("Z", "+00:00")))
        since_s = since.total_seconds()
    except (KeyError, ValueError, TypeError):
        since_s = None
    if since_s is not None and not 0 <= since_s <= MAX_GAP_S:
        gaps.append(f"the clock moved {since_s / 60:+.0f} min since the last report (a step "
                    "or a stop): what the node did meanwhile is unknown")
    unknown = None if reasons else ("; ".join(gaps) or None)
    status = "busy" if reasons else ("unknown" if unknown else "idle")
    first_seen = state.get("first_seen") or iso(now)
    # Unknown restarts the idle clock like busy does: only seen idleness counts.
    last_busy = iso(now) if status != "idle" else (state.get("last_busy") or first_seen)
    return {"node": node, "time": iso(now), "state": status, "busy": status == "busy",
            "idle_for_seconds": _seconds(now, last_busy) if status == "idle" else
            (0 if status == "busy" else None),
            "reasons": reasons, "unknown": unknown, "last_busy": last_busy, "first_seen": first_seen,
            "gpus": gpus, "gpu_error": None if gpus is not None else
            "nvidia-smi failed, is missing or answered no GPU row",
            "gpu_processes": processes, "sessions": sessions, "ssh": ssh,
            "agent_sessions": agent_sessions, "jobs": jobs, "booting": boot,
            "agent_version": AGENT_VERSION}


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
    parser.add_argument("--jobs-dir", default=JOBS_DIR,
                        help="where `trainstack run` records its jobs as <job-id>.json {\"pid\": N}")
    parser.add_argument("--state-dir", default=STATE_DIR,
                        help="the boot runner's state (the booting marker, steps/*.rc)")
    parser.add_argument("--proc", default="/proc", help=argparse.SUPPRESS)
    parser.add_argument("--smi-timeout", type=float, default=15.0,
                        help="seconds before a hung nvidia-smi makes the state unknown")
    parser.add_argument("--ss-timeout", type=float, default=15.0,
                        help="seconds before a hung `ss` or `who` makes the state unknown")
    parser.add_argument("--boot-limit-minutes", type=float, default=180.0,
                        help="a boot running longer than this no longer keeps the node busy")
    args = parser.parse_args(argv)
    if not (args.upload or args.dest_dir):
        parser.error("give --upload or --dest-dir")
    state_path = Path(args.state)
    try:
        state = json.loads(state_path.read_text())
    except (OSError, ValueError):
        state = {}
    record = heartbeat(args.node, utc_now(), state, args.util_threshold, args.session_idle_minutes,
                       jobs_dir=Path(args.jobs_dir), state_dir=Path(args.state_dir),
                       proc=Path(args.proc), smi_timeout=args.smi_timeout,
                       boot_limit_minutes=args.boot_limit_minutes, ss_timeout=args.ss_timeout)
    state_path.parent.mkdir(parents=True, exist_ok=True)
    state_path.write_text(json.dumps({"last_busy": record["last_busy"],
                                      "first_seen": record["first_seen"], "time": record["time"]}))
    try:
        publish(record, args.upload, args.dest_dir)
    except (OSError, subprocess.SubprocessError) as failed:
        print(f"trainstack idle agent: upload failed: {failed}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
