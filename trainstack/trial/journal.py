"""The trial's journal: every stack it created and where each stands, every move, written
locally (`<project>/.trainstack/trial/journal.json`) after each step and copied into each
candidate's bucket (`trial/<id>/journal.json`), so `trainstack trial --resume` (on this machine)
or a person (from the bucket) knows what may still be up.

One trial at a time per project: the lock is an flock on `.trainstack/trial/lock`, which the
kernel drops when its holder dies however it dies, so a trial killed hard never blocks the
`--resume` that cleans up after it, and a second trial never drives the same stacks.
"""
from __future__ import annotations

import fcntl
import json
import os
import secrets
from datetime import datetime, timezone
from pathlib import Path
from typing import IO, Any, Callable, Optional

from trainstack_components.errors import SpecError

JOURNAL_DIR = Path(".trainstack") / "trial"
BUCKET_PREFIX = "trial"
# A stack in one of these states may hold billing resources.
LIVE_STATES = ("creating", "up", "destroying", "destroy-failed")


def now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


class TrialLock:
    def __init__(self, folder: Path):
        self.path = folder / "lock"
        self.handle: Optional[IO[str]] = None

    def acquire(self) -> "TrialLock":
        self.path.parent.mkdir(parents=True, exist_ok=True)
        handle = open(self.path, "a+")
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip() or "another process"
            handle.close()
            raise SpecError("trial", f"another trial is running in this project ({holder} holds "
                            f"{self.path}); two trials never drive the same stacks.",
                            "Wait for it to finish, or stop it (Ctrl-C tears its stacks down) "
                            "and run `trainstack trial --resume` if it was killed.") from None
        handle.seek(0)
        handle.truncate()
        handle.write(f"pid {os.getpid()}")
        handle.flush()
        self.handle = handle
        return self

    def release(self) -> None:
        if self.handle is not None:
            fcntl.flock(self.handle, fcntl.LOCK_UN)
            self.handle.close()
            self.handle = None


class Journal:
    def __init__(self, folder: Path, data: dict[str, Any],
                 echo: Callable[[str], None] = lambda line: None):
        self.folder, self.data, self.echo = folder, data, echo

    @property
    def path(self) -> Path:
        return self.folder / "journal.json"

    @classmethod
    def start(cls, folder: Path, candidates: list[str], budget_usd: float,
              echo: Callable[[str], None]) -> "Journal":
        trial_id = f"{datetime.now(timezone.utc).strftime('%Y%m%dT%H%M%SZ')}-{secrets.token_hex(3)}"
        journal = cls(folder, {"version": 1, "id": trial_id, "started": now(), "pid": os.getpid(),
                               "candidates": candidates, "budget_usd": budget_usd,
                               "stacks": {}, "buckets": {}, "events": [], "finished": None},
                      echo)
        journal.save()
        return journal

    @classmethod
    def load(cls, folder: Path, echo: Callable[[str], None]) -> "Journal":
        path = folder / "journal.json"
        if not path.is_file():
            raise SpecError("--resume", f"there is no trial journal at {path}.",
                            "Run `trainstack trial --candidates ...` first; --resume only "
                            "finishes a trial that was stopped.")
        return cls(folder, json.loads(path.read_text()), echo)

    def save(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        text = json.dumps(self.data, indent=2, sort_keys=True)
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(text + "\n")
        os.replace(tmp, self.path)
        for url in set(self.data["buckets"].values()):
            self._copy_to_bucket(url, text)

    def _copy_to_bucket(self, url: str, text: str, name: str = "journal.json") -> None:
        from trainstack.measure.run import bucket_fs
        try:
            fs, base = bucket_fs(url)
            with fs.open(f"{base}/{BUCKET_PREFIX}/{self.data['id']}/{name}", "w") as out:
                out.write(text)
        except Exception as failed:  # noqa: BLE001  (any backend's error; the local copy stands)
            self.echo(f"trial: could not copy the journal to {url} ({failed})")

    def event(self, kind: str, **fields: Any) -> None:
        self.data["events"].append({"time": now(), "event": kind, **fields})
        self.save()

    def stack(self, name: str, state: str, **fields: Any) -> None:
        entry = self.data["stacks"].setdefault(name, {})
        entry.update(state=state, **fields)
        self.event(f"stack {state}", stack=name, **fields)

    def bucket(self, candidate: str, url: str) -> None:
        self.data["buckets"][candidate] = url
        self.save()

    def live_stacks(self) -> list[str]:
        return [n for n, s in self.data["stacks"].items() if s.get("state") in LIVE_STATES]

    def finish(self, outcome: str) -> None:
        self.data["finished"] = {"time": now(), "outcome": outcome}
        self.event("finished", outcome=outcome)


def journal_folder(project_dir: Path, override: Optional[Path] = None) -> Path:
    return Path(override) if override else project_dir / JOURNAL_DIR
