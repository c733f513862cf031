"""components/lifetime.py by hand: the deadline, when it has passed, what the program declares."""
import contextvars
import time
from datetime import datetime, timedelta, timezone

import pulumi
import pytest

from trainstack_components import lifetime as lt
from trainstack_components.errors import SpecError

T0 = datetime(2026, 12, 1, 8, 0, 0, tzinfo=timezone.utc)


def test_no_declared_lifetime_is_none():
    assert lt.lifetime_for(None) is None and lt.lifetime_for(0) is None


def test_the_stack_config_start_wins_over_the_clock():
    life = lt.lifetime_for(96, clock=lambda: datetime(2030, 1, 1, tzinfo=timezone.utc),
                           config_start="2026-12-01T08:00:00Z")
    # 2026-12-01 08:00 + 96 h = 2026-12-05 08:00
    assert (life.start, life.hours, life.source) == (T0, 96, lt.FROM_CONFIG)
    assert lt.iso(life.deadline) == "2026-12-05T08:00:00Z"


def test_without_config_the_clock_starts_it_to_the_second():
    life = lt.lifetime_for(1.5, clock=lambda: datetime(2026, 12, 1, 8, 0, 0, 987654,
                                                         tzinfo=timezone.utc))
    assert life.start == T0 and life.source == lt.FROM_CLOCK
    assert lt.iso(life.deadline) == "2026-12-01T09:30:00Z"     # + 1.5 h


def test_a_naive_or_offset_time_is_read_as_utc():
    assert lt.parse_iso("2026-12-01T08:00:00") == T0
    assert lt.parse_iso("2026-12-01T09:00:00+01:00") == T0
    assert lt.iso(datetime(2026, 12, 1, 9, 0, tzinfo=lt.parse_iso("2026-01-01T00:00:00+01:00")
                           .tzinfo)) == "2026-12-01T08:00:00Z"


def test_nodes_drop_to_zero_at_the_deadline_not_before():
    life = lt.Lifetime(T0, 2, lt.FROM_CONFIG)
    assert lt.nodes_now(life, 4, datetime(2026, 12, 1, 9, 59, 59, tzinfo=timezone.utc)) == 4
    assert lt.nodes_now(life, 4, datetime(2026, 12, 1, 10, 0, 0, tzinfo=timezone.utc)) == 0
    assert lt.nodes_now(None, 4, datetime(2099, 1, 1, tzinfo=timezone.utc)) == 4


def test_outputs_show_the_deadline_start_and_state():
    life = lt.Lifetime(T0, 24, lt.FROM_CLOCK)
    assert lt.outputs(life, T0) == {
        "lifetime_deadline": "2026-12-02T08:00:00Z", "lifetime_start": "2026-12-01T08:00:00Z",
        "lifetime_start_source": lt.FROM_CLOCK, "lifetime_expired": False}
    assert lt.outputs(life, datetime(2026, 12, 2, 8, 0, tzinfo=timezone.utc))["lifetime_expired"]


@pytest.fixture
def tokyo_clock(monkeypatch):
    """The machine running `up` in another time zone (JST, UTC+9, no DST)."""
    monkeypatch.setenv("TZ", "JST-9")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def test_a_machine_in_another_time_zone_still_writes_utc(tokyo_clock):
    # AWS scheduled actions and Azure autoscale read the Z form as UTC: 08:00 UTC is 17:00 in
    # Tokyo, and the deadline must still say 08:00Z.
    assert lt.iso(T0) == "2026-12-01T08:00:00Z"
    assert lt.iso(datetime(2026, 12, 1, 17, 0, tzinfo=timezone(timedelta(hours=9)))) == \
        "2026-12-01T08:00:00Z"
    now = lt.utc_now()
    assert now.utcoffset() == timedelta(0)            # aware, UTC: comparable with deadlines
    assert abs(now.timestamp() - time.time()) < 60


def test_the_stack_config_key_fixes_the_start():
    def read(config, hours, clock):
        pulumi.runtime.set_all_config(config)
        return lt.from_stack_config(hours, clock)

    clock = lambda: datetime(2030, 1, 1, 0, 0, 0, 5, tzinfo=timezone.utc)  # noqa: E731
    # `trainstack up` wrote the first deploy into trainstack:lifetimeStart
    life = contextvars.copy_context().run(
        read, {"trainstack:lifetimeStart": "2026-12-01T08:00:00Z"}, 96, clock)
    assert (life.start, life.hours, life.source) == (T0, 96, lt.FROM_CONFIG)
    # another project's key of the same name is not ours; without ours the clock starts it
    life = contextvars.copy_context().run(
        read, {"other:lifetimeStart": "2026-12-01T08:00:00Z"}, 96, clock)
    assert (life.start, life.source) == (datetime(2030, 1, 1, tzinfo=timezone.utc), lt.FROM_CLOCK)
    assert contextvars.copy_context().run(
        read, {"trainstack:lifetimeStart": "2026-12-01T08:00:00Z"}, None, clock) is None


def test_gcp_refuses_a_lifetime_over_120_days_naming_the_field_and_the_way_out():
    # Compute Engine maxRunDuration: at most 120 days = 2880 h
    lt.check(lt.Lifetime(T0, 2880, lt.FROM_CONFIG), "gcp")
    lt.check(lt.Lifetime(T0, 5000, lt.FROM_CONFIG), "aws")      # AWS has no such ceiling
    with pytest.raises(SpecError) as err:
        lt.check(lt.Lifetime(T0, 2881, lt.FROM_CONFIG), "gcp")
    assert err.value.field == "max_hours"
    assert str(err.value) == ("max_hours: is 2881 h; gcp enforces a lifetime of at most 2880 h "
                              "(120 days). Set max_hours to 2880 or less, and redeploy for a "
                              "longer run.")


def test_a_lifetime_shorter_than_a_deploy_is_refused():
    lt.check(None, "gcp")
    lt.check(lt.Lifetime(T0, 0.5, lt.FROM_CONFIG), "aws")       # 30 min: exactly one deploy
    with pytest.raises(SpecError) as err:
        lt.check(lt.Lifetime(T0, 0.25, lt.FROM_CONFIG), "aws")
    assert err.value.field == "max_hours"
    assert str(err.value) == ("max_hours: is 15 min, shorter than a deploy (30 min): the deadline "
                              "would pass before the schedule that enforces it exists. Set "
                              "max_hours to at least 0.5.")


def test_a_schedule_fires_at_the_deadline_or_when_the_deploy_is_done():
    life = lt.Lifetime(T0, 2, lt.FROM_CONFIG)                   # deadline 10:00
    at = lambda h, m: datetime(2026, 12, 1, h, m, tzinfo=timezone.utc)  # noqa: E731
    assert lt.schedule_time(life, at(8, 0)) == at(10, 0)
    assert lt.schedule_time(life, at(9, 30)) == at(10, 0)       # deploy ends exactly then
    assert lt.schedule_time(life, at(9, 45)) == at(10, 15)      # 30 min after now, not a year
