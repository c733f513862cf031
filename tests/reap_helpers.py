"""Shared by the reaper tests: a fake Pulumi backend of stacks, heartbeats, a fake export."""
from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

from trainstack.reap import MARKER, iso


def ago(minutes: float) -> datetime:
    return datetime.now(timezone.utc) - timedelta(minutes=minutes)


def history_time(moment: datetime) -> str:
    """The CLI's `stack history --json` time format (the SDK parses exactly this)."""
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.000Z")


def marked(cloud="aws", idle_minutes=60, retained=True, **outputs) -> dict:
    return {MARKER: {"version": 1, "cloud": cloud, "idle_minutes": idle_minutes,
                     "bucket_retained": retained},
            "bucket_name": "data", "filesystem_id": "fs-0123", "region": "us-east-1", **outputs}


def stack(outputs: dict, age_minutes: float = 600, **extra) -> dict:
    return {"outputs": outputs, "created": history_time(ago(age_minutes)), **extra}


def write_stacks(path: Path, stacks: dict) -> Path:
    path.write_text(json.dumps(stacks))
    return path


def beat(node: str, last_busy_minutes: float, seen_minutes: float = 0.5, **extra) -> dict:
    return {"node": node, "time": iso(ago(seen_minutes)), "last_busy": iso(ago(last_busy_minutes)),
            "busy": last_busy_minutes < 1, "gpus": [], **extra}


def put_beats(fs, root: str, *beats: dict) -> None:
    for b in beats:
        with fs.open(f"{root}/{b['node']}.json", "wb") as f:
            f.write(json.dumps(b).encode())


class FakeGuard:
    """An export that succeeds or not, and remembers which stacks it was asked about."""

    def __init__(self, saved=True):
        self.saved, self.asked = saved, []

    def confirm(self, stack, outputs):
        self.asked.append(stack)
        return self.saved, "fake export " + ("done" if self.saved else "still running")
