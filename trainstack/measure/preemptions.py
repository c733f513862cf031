"""Preemptions, restarts and lost minutes of a cluster, from the events its nodes leave in the
bucket (events/<node>/*.json): the preemption agent's notices (components/agents/
preemption_agent.py) and the checkpoint helper's restarts (components/training/resumable.py).

Lost minutes: for each restart, the time from the checkpoint it resumed from to the restart,
i.e. the work done after that checkpoint (run again) plus the time with no job running.
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Optional

EVENTS_PREFIX = "events"


@dataclass(frozen=True)
class PreemptionSummary:
    preemptions: int = 0          # termination notices (spot, preempt, host maintenance)
    advisories: int = 0           # rebalance recommendations, live migrations: nothing lost
    restarts: int = 0             # jobs resumed from a checkpoint
    lost_minutes: float = 0.0
    late_checkpoints: int = 0     # preemption checkpoints that finished after the deadline
    by_node: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return asdict(self)

    def line(self) -> str:
        text = (f"spot: {self.preemptions} preemption(s), {self.restarts} restart(s), "
                f"{self.lost_minutes:.1f} lost minute(s)")
        if self.late_checkpoints:
            text += f"; {self.late_checkpoints} checkpoint(s) finished after the deadline"
        return text


def _time(text: Optional[str]) -> Optional[datetime]:
    try:
        return datetime.fromisoformat(str(text).replace("Z", "+00:00"))
    except ValueError:
        return None


def summarize(events: list[dict]) -> PreemptionSummary:
    preemptions = advisories = restarts = late = 0
    lost = 0.0
    by_node: dict[str, int] = {}
    for event in events:
        kind = event.get("event")
        if kind == "preemption-notice":
            preemptions += 1
            node = str(event.get("node", "?"))
            by_node[node] = by_node.get(node, 0) + 1
        elif kind == "advisory":
            advisories += 1
        elif kind == "restart":
            restarts += 1
            start, saved = _time(event.get("time")), _time(event.get("checkpoint_time"))
            if start and saved and start >= saved:
                lost += (start - saved).total_seconds() / 60
        elif kind == "checkpoint" and event.get("before_deadline") is False:
            late += 1
    return PreemptionSummary(preemptions, advisories, restarts, round(lost, 2), late, by_node)


def read_events(url: str) -> list[dict]:
    """Every events/<node>/*.json under the bucket URL (fsspec); unreadable files are skipped."""
    import fsspec
    fs, root = fsspec.core.url_to_fs(url.rstrip("/") + "/" + EVENTS_PREFIX)
    events = []
    for path in sorted(fs.glob(f"{root}/*/*.json")):
        try:
            with fs.open(path, "r") as handle:
                record = json.load(handle)
        except (OSError, ValueError):
            continue
        if isinstance(record, dict):
            events.append(record)
    return events


def bucket_summary(url: str) -> Optional[PreemptionSummary]:
    """The summary, or None where the bucket has no events (or cannot be listed: status's own
    records already say why)."""
    try:
        events = read_events(url)
    except Exception:  # noqa: BLE001  (each fsspec backend raises its own)
        return None
    return summarize(events) if events else None
