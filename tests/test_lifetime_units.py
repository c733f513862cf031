"""components/lifetime.py by hand: the deadline, when it has passed, what the program declares."""
from datetime import datetime, timezone

from trainstack_components import lifetime as lt

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
