#!/usr/bin/env python3
"""trainstack preemption agent: watch this cloud's preemption notice, give the job its warning.

Runs as a long-lived systemd service on every node (components/boot/preemption.py). Every
--interval seconds it asks the cloud's instance metadata service whether this node is about to
be taken back, in the cloud's own format:

  aws       IMDSv2 (PUT /latest/api/token, then X-aws-ec2-metadata-token):
            /latest/meta-data/spot/instance-action -> 404, or {"action": "terminate"|"stop"|
            "hibernate", "time": "2017-09-18T08:22:00Z"}, two minutes ahead;
            /latest/meta-data/events/recommendations/rebalance -> 404, or {"noticeTime": ...}
            https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/spot-instance-termination-notices.html
            https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/rebalance-recommendations.html
  gcp       Metadata-Flavor: Google; /computeMetadata/v1/instance/preempted -> TRUE | FALSE (30 s
            before the stop); /computeMetadata/v1/instance/maintenance-event -> NONE |
            MIGRATE_ON_HOST_MAINTENANCE | TERMINATE_ON_HOST_MAINTENANCE (GPU VMs cannot migrate:
            60 minutes' notice)
            https://cloud.google.com/compute/docs/instances/spot#preemption-process
            https://cloud.google.com/compute/docs/metadata/default-metadata-values
            https://cloud.google.com/compute/docs/gpus/gpu-host-maintenance
  azure     Scheduled Events, Metadata: true, api-version=2020-07-01:
            /metadata/scheduledevents -> {"DocumentIncarnation", "Events": [{"EventId",
            "EventType": "Preempt"|"Terminate"|..., "Resources": [vm names], "EventStatus",
            "NotBefore": "Mon, 19 Sep 2016 18:29:47 GMT", ...}]}; acknowledged with a POST of
            {"StartRequests": [{"EventId": ...}]} once the job has saved (at least 30 s notice)
            https://learn.microsoft.com/azure/virtual-machines/linux/scheduled-events
            https://learn.microsoft.com/azure/virtual-machines/spot-vms
  alicloud  (PUT /latest/api/token, X-aliyun-ecs-metadata-token)
            /latest/meta-data/instance/spot/termination-time -> 404, or "2015-01-05T18:02:00Z"
            (the release time, about five minutes ahead)
            https://www.alibabacloud.com/help/en/ecs/user-guide/best-practices-for-preemptible-instances/

On a termination notice it
  1. writes the notice file (--notice-file: {"cloud", "kind", "deadline", "seconds_left", ...}),
     which the job's checkpoint helper reads for its deadline (a signal carries no data);
  2. sends SIGTERM to every running job: the files <jobs-dir>/<id>.json holding {"pid": N}
     (`trainstack run`'s job agent writes them; the idle agent reads the same directory).
     The pid is torchrun's: on SIGTERM it forwards the signal to its workers, gives them 30 s,
     and leaves the c10d rendezvous open so the other nodes can restart with a replacement;
  3. marks the node leaving (--leaving-file), so nothing starts new work here;
  4. records the event in the bucket as events/<node>/<time>-<kind>.json.
A notice with more time left than --signal-before (GCP's hour before GPU host maintenance) is
recorded at once and signalled when that much time is left: the job trains on until then.
A rebalance recommendation (AWS) or a live migration (GCP) is recorded and nothing is signalled.
Event files that the training helper leaves in --events-dir (restarts, checkpoints) are uploaded
on each round under the same prefix, which is where `trainstack status` counts them.

The upload is a parameter as for the idle agent: --upload 'CMD {src} {key}' or --dest-dir DIR
(a local directory standing in for the bucket). --metadata-url points a test at a loopback
server. Python 3 standard library only.
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
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import Callable, Optional

AGENT_VERSION = 1
EVENTS_PREFIX = "events"          # <bucket>/events/<node>/<time>-<kind>.json
STATE_DIR = "var/lib/trainstack"  # under --root
JOBS_DIR = STATE_DIR + "/jobs"
NOTICE_FILE = STATE_DIR + "/preemption.json"
LEAVING_FILE = STATE_DIR + "/leaving"
LOCAL_EVENTS_DIR = STATE_DIR + "/events"

# Where each cloud's metadata service answers, and the notice the agent watches there.
METADATA_URLS = {"aws": "http://169.254.169.254", "gcp": "http://metadata.google.internal",
                 "azure": "http://169.254.169.254", "alicloud": "http://100.100.100.200"}
NOTICE_KINDS = {"aws": "aws-imdsv2-spot", "gcp": "gcp-metadata-preempted",
                "azure": "azure-scheduled-events", "alicloud": "alicloud-spot-termination-time"}
# Notice lengths where the metadata gives no time (documented minimums, see the URLs above).
GCP_PREEMPT_SECONDS = 30
GCP_MAINTENANCE_SECONDS = 3600
AZURE_MIN_SECONDS = 30
AZURE_API_VERSION = "2020-07-01"
AZURE_TERMINATING = ("Preempt", "Terminate")


@dataclass(frozen=True)
class Notice:
    cloud: str
    kind: str                      # spot-interruption | rebalance | host-maintenance | preempt ...
    deadline: Optional[datetime]   # when the node goes; None when the cloud gives no time
    terminating: bool              # False: advisory (recorded, nothing signalled)
    detail: dict = field(default_factory=dict)
    ack: Optional[str] = None      # Azure: the EventId to acknowledge once the job has saved

    @property
    def key(self) -> str:
        # What the cloud said, never the deadline: a notice without a time (GCP) gets a fresh
        # "now + 30 s" on every poll and must still count once.
        return f"{self.kind}:{json.dumps(self.detail, sort_keys=True)}"


def utc_now() -> datetime:
    return datetime.now(timezone.utc)


def iso(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_time(text: str) -> Optional[datetime]:
    text = text.strip()
    if not text:
        return None
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(timezone.utc)
    except ValueError:
        pass
    try:  # Azure's NotBefore: RFC 1123
        return parsedate_to_datetime(text).astimezone(timezone.utc)
    except (TypeError, ValueError):
        return None


class Metadata:
    """Plain HTTP to the metadata service; a 404 is 'no notice', not an error."""

    def __init__(self, base: str, timeout: float = 2.0):
        self.base = base.rstrip("/")
        self.timeout = timeout

    def request(self, path: str, headers: dict, method: str = "GET",
                body: Optional[bytes] = None) -> Optional[str]:
        req = urllib.request.Request(self.base + path, data=body, headers=headers, method=method)
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                return resp.read().decode("utf-8")
        except urllib.error.HTTPError as err:
            if err.code == 404:
                return None
            raise


def _token(md: Metadata, ttl_header: str) -> str:
    return md.request("/latest/api/token", {ttl_header: "300"}, method="PUT") or ""


def poll_aws(md: Metadata, now: datetime, node: str) -> list[Notice]:
    del now, node
    token = {"X-aws-ec2-metadata-token": _token(md, "X-aws-ec2-metadata-token-ttl-seconds")}
    notices = []
    action = md.request("/latest/meta-data/spot/instance-action", token)
    if action:
        body = json.loads(action)
        notices.append(Notice("aws", "spot-interruption", parse_time(body.get("time", "")),
                              terminating=True, detail=body))
    rebalance = md.request("/latest/meta-data/events/recommendations/rebalance", token)
    if rebalance:
        body = json.loads(rebalance)
        notices.append(Notice("aws", "rebalance", None, terminating=False, detail=body))
    return notices


def poll_gcp(md: Metadata, now: datetime, node: str) -> list[Notice]:
    del node
    flavor = {"Metadata-Flavor": "Google"}
    notices = []
    if (md.request("/computeMetadata/v1/instance/preempted", flavor) or "").strip() == "TRUE":
        notices.append(Notice("gcp", "preempted", now + timedelta(seconds=GCP_PREEMPT_SECONDS),
                              terminating=True, detail={"preempted": "TRUE"}))
    event = (md.request("/computeMetadata/v1/instance/maintenance-event", flavor) or "NONE").strip()
    if event.startswith("TERMINATE"):
        notices.append(Notice("gcp", "host-maintenance",
                              now + timedelta(seconds=GCP_MAINTENANCE_SECONDS), terminating=True,
                              detail={"maintenance-event": event}))
    elif event not in ("NONE", ""):
        notices.append(Notice("gcp", "host-maintenance", None, terminating=False,
                              detail={"maintenance-event": event}))
    return notices


AZURE_EVENTS = f"/metadata/scheduledevents?api-version={AZURE_API_VERSION}"


def poll_azure(md: Metadata, now: datetime, node: str) -> list[Notice]:
    body = md.request(AZURE_EVENTS, {"Metadata": "true"})
    notices = []
    for event in json.loads(body or "{}").get("Events") or []:
        # Events for a whole availability set reach every VM in it: only ours counts.
        if event.get("Resources") and node not in event["Resources"]:
            continue
        terminating = event.get("EventType") in AZURE_TERMINATING
        deadline = parse_time(event.get("NotBefore") or "")
        if terminating and deadline is None:   # already started: the minimum notice is left
            deadline = now + timedelta(seconds=AZURE_MIN_SECONDS)
        notices.append(Notice("azure", str(event.get("EventType", "")).lower(), deadline,
                              terminating=terminating, detail=event, ack=event.get("EventId")))
    return notices


def ack_azure(md: Metadata, event_id: str) -> None:
    body = json.dumps({"StartRequests": [{"EventId": event_id}]}).encode()
    md.request(AZURE_EVENTS, {"Metadata": "true", "Content-Type": "application/json"},
               method="POST", body=body)


def poll_alicloud(md: Metadata, now: datetime, node: str) -> list[Notice]:
    del now, node
    token = {"X-aliyun-ecs-metadata-token": _token(md, "X-aliyun-ecs-metadata-token-ttl-seconds")}
    text = md.request("/latest/meta-data/instance/spot/termination-time", token)
    if not text:
        return []
    return [Notice("alicloud", "spot-termination", parse_time(text), terminating=True,
                   detail={"termination-time": text.strip()})]


POLLERS: dict[str, Callable[[Metadata, datetime, str], list[Notice]]] = {
    "aws": poll_aws, "gcp": poll_gcp, "azure": poll_azure, "alicloud": poll_alicloud}


@dataclass
class Paths:
    root: Path
    jobs_dir: Path
    notice_file: Path
    leaving_file: Path
    events_dir: Path

    @classmethod
    def under(cls, root: str, jobs_dir: Optional[str] = None, notice_file: Optional[str] = None,
              leaving_file: Optional[str] = None, events_dir: Optional[str] = None) -> "Paths":
        base = Path(root)
        return cls(base, Path(jobs_dir or base / JOBS_DIR), Path(notice_file or base / NOTICE_FILE),
                   Path(leaving_file or base / LEAVING_FILE),
                   Path(events_dir or base / LOCAL_EVENTS_DIR))


def running_jobs(jobs_dir: Path) -> dict[str, int]:
    """job id -> pid, for the job files whose process is alive."""
    jobs = {}
    for path in sorted(jobs_dir.glob("*.json")):
        try:
            pid = int(json.loads(path.read_text())["pid"])
        except (OSError, ValueError, KeyError, TypeError):
            continue
        if _alive(pid):
            jobs[path.stem] = pid
    return jobs


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # a zombie has exited; only its parent has not reaped it yet
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[-1][:1] != "Z"
    except OSError:
        return True


def _write_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def publish(src: Path, key: str, upload: Optional[str], dest_dir: Optional[str]) -> None:
    if dest_dir:
        target = Path(dest_dir) / key
        target.parent.mkdir(parents=True, exist_ok=True)
        os.replace(shutil.copy(src, target.with_name(f".{target.name}.tmp")), target)
    if upload:
        argv = [part.format(src=str(src), key=key) for part in shlex.split(upload)]
        subprocess.run(argv, check=True, timeout=40, stdout=subprocess.DEVNULL)


class Agent:
    def __init__(self, cloud: str, node: str, md: Metadata, paths: Paths,
                 upload: Optional[str] = None, dest_dir: Optional[str] = None,
                 log: Callable[[str], None] = lambda line: print(line, flush=True),
                 signal_before: float = 120.0):
        if cloud not in POLLERS:
            raise ValueError(f"cloud {cloud!r}: one of {', '.join(POLLERS)}")
        self.cloud, self.node, self.md, self.paths = cloud, node, md, paths
        self.upload, self.dest_dir, self.log = upload, dest_dir, log
        self.seen: set[str] = set()
        self.awaiting_ack: dict[str, list[int]] = {}   # Azure EventId -> pids still saving
        self.signal_before = signal_before
        self.later: dict[str, Notice] = {}   # notices with more time than a save needs

    def record(self, kind: str, record: dict) -> None:
        name = f"{record['time'].replace(':', '')}-{kind}.json"
        with tempfile.TemporaryDirectory() as tmp:
            src = Path(tmp) / name
            src.write_text(json.dumps(record, sort_keys=True))
            publish(src, f"{EVENTS_PREFIX}/{self.node}/{name}", self.upload, self.dest_dir)

    def ship_local_events(self) -> None:
        """Events the training helper wrote on this node (restarts, checkpoints), once each."""
        sent = self.paths.events_dir / "sent"
        for path in sorted(self.paths.events_dir.glob("*.json")):
            publish(path, f"{EVENTS_PREFIX}/{self.node}/{path.name}", self.upload, self.dest_dir)
            sent.mkdir(parents=True, exist_ok=True)
            os.replace(path, sent / path.name)

    def handle(self, notice: Notice, now: datetime) -> None:
        seconds_left = (max(0.0, (notice.deadline - now).total_seconds())
                        if notice.deadline else None)
        record = {"node": self.node, "cloud": self.cloud, "kind": notice.kind,
                  "notice_source": NOTICE_KINDS[self.cloud], "time": iso(now),
                  "deadline": iso(notice.deadline) if notice.deadline else None,
                  "seconds_left": seconds_left, "terminating": notice.terminating,
                  "detail": notice.detail, "agent_version": AGENT_VERSION,
                  "event": "preemption-notice" if notice.terminating else "advisory"}
        if (notice.terminating and notice.deadline is not None and seconds_left is not None
                and seconds_left > self.signal_before):
            # An hour's notice (GPU host maintenance): train on, and signal when the time left
            # is what a save needs, not an hour early.
            record["signal_at"] = iso(notice.deadline - timedelta(seconds=self.signal_before))
            self.later[notice.key] = notice
        elif notice.terminating:
            record.update(self.signal(notice, now))
        self.log(f"trainstack preemption agent: {notice.kind} notice on {self.node} "
                 f"(deadline {record['deadline']})")
        self.record(notice.kind, record)

    def signal(self, notice: Notice, now: datetime) -> dict:
        """Write the notice file, mark the node leaving, SIGTERM every running job."""
        seconds_left = (max(0.0, (notice.deadline - now).total_seconds())
                        if notice.deadline else None)
        note = {"node": self.node, "cloud": self.cloud, "kind": notice.kind, "time": iso(now),
                "deadline": iso(notice.deadline) if notice.deadline else None,
                "seconds_left": seconds_left, "terminating": True}
        _write_atomic(self.paths.notice_file, json.dumps(note, sort_keys=True))
        _write_atomic(self.paths.leaving_file, iso(now) + "\n")
        jobs = running_jobs(self.paths.jobs_dir)
        for job, pid in jobs.items():
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                continue
            self.log(f"trainstack preemption agent: SIGTERM to job {job} (pid {pid}), "
                     f"{seconds_left if seconds_left is not None else '?'} s left")
        if notice.ack:
            self.awaiting_ack[notice.ack] = list(jobs.values())
        return {"signalled_jobs": sorted(jobs), "node_state": "leaving"}

    def signal_due(self, now: datetime) -> None:
        for key, notice in list(self.later.items()):
            if notice.deadline is None or (notice.deadline - now).total_seconds() <= self.signal_before:
                del self.later[key]
                record = {"node": self.node, "cloud": self.cloud, "kind": notice.kind,
                          "time": iso(now), "event": "signalled",
                          **self.signal(notice, now)}
                self.record("signalled", record)

    def acknowledge_ready(self, now: datetime) -> None:
        """Azure: say 'go ahead' once every signalled job has exited (its checkpoint is saved),
        so the node is not held to the deadline for nothing."""
        for event_id, pids in list(self.awaiting_ack.items()):
            if any(_alive(pid) for pid in pids):
                continue
            ack_azure(self.md, event_id)
            del self.awaiting_ack[event_id]
            self.record("ack", {"node": self.node, "cloud": self.cloud, "time": iso(now),
                                "event": "acknowledged", "event_id": event_id})

    def poll_once(self, now: Optional[datetime] = None) -> list[Notice]:
        now = now or utc_now()
        notices = POLLERS[self.cloud](self.md, now, self.node)
        fresh = [n for n in notices if n.key not in self.seen]
        for notice in fresh:
            self.seen.add(notice.key)
            self.handle(notice, now)
        self.signal_due(now)
        if self.awaiting_ack:
            self.acknowledge_ready(now)
        self.ship_local_events()
        return fresh


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cloud", default=os.environ.get("TS_CLOUD"), choices=sorted(POLLERS),
                        help="which metadata service to watch (default: $TS_CLOUD)")
    parser.add_argument("--node", default=os.environ.get("TS_NODE") or socket.gethostname())
    parser.add_argument("--metadata-url", help="the metadata service (default: the cloud's)")
    parser.add_argument("--root", default=os.environ.get("TRAINSTACK_NODE_ROOT", "/"),
                        help="the node's root; the state paths below are under it")
    parser.add_argument("--jobs-dir", help=f"job files <id>.json with a pid (default ROOT/{JOBS_DIR})")
    parser.add_argument("--notice-file", help=f"default ROOT/{NOTICE_FILE}")
    parser.add_argument("--leaving-file", help=f"default ROOT/{LEAVING_FILE}")
    parser.add_argument("--events-dir", help=f"the helper's events to ship (ROOT/{LOCAL_EVENTS_DIR})")
    parser.add_argument("--upload", help="command template with {src} and {key}")
    parser.add_argument("--dest-dir", help="a local directory standing in for the bucket")
    parser.add_argument("--interval", type=float, default=5.0, help="seconds between polls "
                        "(AWS recommends 5)")
    parser.add_argument("--signal-before", type=float, default=120.0, help="with a longer "
                        "notice (host maintenance), signal the job this many seconds before the "
                        "deadline instead of at once")
    parser.add_argument("--once", action="store_true", help="poll once and exit")
    args = parser.parse_args(argv)
    if not args.cloud:
        parser.error("give --cloud (or set TS_CLOUD)")
    if not (args.upload or args.dest_dir):
        parser.error("give --upload or --dest-dir")
    agent = Agent(args.cloud, args.node, Metadata(args.metadata_url or METADATA_URLS[args.cloud]),
                  Paths.under(args.root, args.jobs_dir, args.notice_file, args.leaving_file,
                              args.events_dir), args.upload, args.dest_dir,
                  signal_before=args.signal_before)
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    while not stop:
        try:
            agent.poll_once()
        except (OSError, ValueError, subprocess.SubprocessError) as failed:
            # A metadata hiccup or a failed upload must not end the watch.
            print(f"trainstack preemption agent: {failed}", file=sys.stderr, flush=True)
            if args.once:
                return 1
        if args.once:
            return 0
        time.sleep(args.interval)
    return 0


if __name__ == "__main__":
    sys.exit(main())
