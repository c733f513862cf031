"""The declared lifetime, cloud-neutral: when it started, when it ends, whether it has ended.

The deadline is `start + lifetime_hours`, where `start` is the first deploy. `trainstack up` writes
that moment into the stack's config (`trainstack:lifetimeStart`) the first time it deploys a stack
with a declared lifetime, so every later `up` computes the same deadline, and a changed
`max_hours` moves it relative to the first deploy, not to today. Without the key (a plain
`pulumi up`, an offline plan) the clock stands in and the output says so.

Each cloud enforces the deadline with its own machinery (components/aws/lifetime.py: a scheduled
action; components/azure/lifetime.py: an autoscale profile); once it has passed, the program
declares 0 nodes, so a later `up` never brings them back by accident.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Callable, Optional

LIFETIME_START_KEY = "trainstack:lifetimeStart"
# A deploy takes this long at most (FSx, Managed Lustre and AMLFS take 10-30 min): a deadline
# closer than this passes before the enforcing schedule exists.
DEPLOY_LEAD = timedelta(minutes=30)
# Per-cloud ceilings on max_hours, where the cloud enforces the lifetime with a bounded field.
MAX_HOURS = {
    # Compute Engine scheduling.maxRunDuration: at most 120 days (cloud.google.com/compute/docs/
    # instances/limit-vm-runtime, read 2026-12-01); the GCP template carries max_hours there.
    "gcp": 120 * 24,
}
FROM_CONFIG = "stack config (fixed at first deploy)"
FROM_CLOCK = "clock (not persisted: `trainstack up` fixes it at first deploy)"


def utc_now() -> datetime:
    return datetime.now(timezone.utc)


def iso(moment: datetime) -> str:
    """YYYY-MM-DDThh:mm:ssZ, UTC: the form AWS scheduled actions and Azure autoscale take."""
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_iso(text: str) -> datetime:
    # Python 3.10's fromisoformat cannot read "Z" (requires-python >= 3.10); 3.11+ reads it, so
    # a mutant of this replace is no different on the venv's Python.
    moment = datetime.fromisoformat(text.replace("Z", "+00:00"))  # pragma: no mutate
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


@dataclass(frozen=True)
class Lifetime:
    start: datetime
    hours: float
    source: str

    @property
    def deadline(self) -> datetime:
        return self.start + timedelta(hours=self.hours)

    def expired(self, now: datetime) -> bool:
        return now >= self.deadline


def lifetime_for(hours: Optional[float], clock: Optional[Callable[[], datetime]] = None,
                 config_start: Optional[str] = None) -> Optional[Lifetime]:
    if not hours:
        return None
    if config_start:
        return Lifetime(parse_iso(config_start), hours, FROM_CONFIG)
    return Lifetime((clock or utc_now)().replace(microsecond=0), hours, FROM_CLOCK)


def from_stack_config(hours: Optional[float], clock: Optional[Callable[[], datetime]] = None
                      ) -> Optional[Lifetime]:
    namespace, _, key = LIFETIME_START_KEY.partition(":")
    import pulumi  # here, not at import: the CLI's reaper reads only the clock helpers
    return lifetime_for(hours, clock, pulumi.Config(namespace).get(key))


def check(lifetime: Optional[Lifetime], cloud: str) -> None:
    """Refuse a lifetime the cloud cannot enforce: over its ceiling, or shorter than a deploy
    (the schedule would be created after its own time: Cloud Scheduler's cron then fires a
    year later, AWS rejects a start time in the past)."""
    if lifetime is None:
        return
    from trainstack_components.errors import SpecError
    limit = MAX_HOURS.get(cloud)
    if limit is not None and lifetime.hours > limit:
        raise SpecError("max_hours", f"is {lifetime.hours:g} h; {cloud} enforces a lifetime of "
                        f"at most {limit:g} h ({limit / 24:g} days).",
                        f"Set max_hours to {limit:g} or less, and redeploy for a longer run.")
    if timedelta(hours=lifetime.hours) < DEPLOY_LEAD:
        raise SpecError("max_hours", f"is {lifetime.hours * 60:g} min, shorter than a deploy "
                        f"({DEPLOY_LEAD.total_seconds() / 60:g} min): the deadline would pass "
                        "before the schedule that enforces it exists.",
                        f"Set max_hours to at least {DEPLOY_LEAD.total_seconds() / 3600:g}.")


def schedule_time(lifetime: Lifetime, now: datetime) -> datetime:
    """When a schedule created now can fire: the deadline, or, when the deadline is closer than
    a deploy, the end of the deploy (late by minutes, never a year)."""
    return max(lifetime.deadline, now + DEPLOY_LEAD)


def nodes_now(lifetime: Optional[Lifetime], nodes: int, now: datetime) -> int:
    """The group size to declare: 0 once the deadline has passed."""
    return 0 if lifetime and lifetime.expired(now) else nodes


def outputs(lifetime: Lifetime, now: datetime) -> dict[str, object]:
    """The stack outputs that show the deadline (the same keys on every cloud)."""
    return {"lifetime_deadline": iso(lifetime.deadline), "lifetime_start": iso(lifetime.start),
            "lifetime_start_source": lifetime.source, "lifetime_expired": lifetime.expired(now)}
