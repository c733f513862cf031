"""Issue 35 (packspeed14): the pack reads each stop/start time text once per process
(lifetimes._parse_text, a memo on the text). Times that differ only in their offset, their
seconds or their date must each keep their own reading, in any order and read again.

Expected hours by hand, the clock held at 2030-01-01T00:00:00Z (whole hours rounded up, as a
started hour is billed):
- 2030-01-01T05:00:00Z       -> 5 h
- 2030-01-01T05:00:00+02:00  -> 03:00Z -> 3 h
- 2030-01-01T05:00:00-02:00  -> 07:00Z -> 7 h
- 2030-01-01T05:00:00        -> no offset, read as UTC -> 5 h
- 2030-01-01T05:00:01Z       -> 5 h 1 s, rounded up -> 6 h
- 2030-01-02T05:00:00Z       -> 29 h
- " 2030-01-01T05:00:00Z "   -> the same instant with spaces around -> 5 h
- "", "   ", "not a time", 5 (a number), None -> no time
"""
from __future__ import annotations

from datetime import datetime, timezone

import pytest

from trainstack_policies.inventory import lifetimes

NOW = datetime(2030, 1, 1, tzinfo=timezone.utc)

CASES = [
    ("2030-01-01T05:00:00Z", 5.0),
    ("2030-01-01T05:00:00+02:00", 3.0),
    ("2030-01-01T05:00:00-02:00", 7.0),
    ("2030-01-01T05:00:00", 5.0),
    ("2030-01-01T05:00:01Z", 6.0),
    ("2030-01-02T05:00:00Z", 29.0),
    (" 2030-01-01T05:00:00Z ", 5.0),
    ("", None),
    ("   ", None),
    ("not a time", None),
    (5, None),
    (None, None),
]


@pytest.mark.parametrize("order", ["forward", "backward"])
def test_each_time_text_keeps_its_own_hours(monkeypatch, order):
    monkeypatch.setattr(lifetimes, "_now", lambda: NOW)
    cases = CASES if order == "forward" else CASES[::-1]
    # Twice over: the second pass reads every text from the memo.
    for _ in range(2):
        got = [(text, lifetimes._hours_until(text)) for text, _ in cases]
        assert got == list(cases)
