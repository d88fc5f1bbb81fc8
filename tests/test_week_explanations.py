"""Explanations across week periods (docs/semantics.md §8, §16): once, when
the walk enters a period, a note says which week holds from then on (going
back: up to when); a calendar without week periods explains as before."""

from __future__ import annotations

from duetime.core import Calendar, due_answer, parse_instant
from duetime.core.explain import week_text
from duetime.core.calendar import default_hours

MONDAY_OFF = "from Monday 2027-03-01 the week of 2027-03-01 holds: weekend Monday, Saturday, Sunday; " \
             "Tuesday–Friday 08:00–17:00"


def _calendar(*periods) -> Calendar:
    return Calendar.from_text("Europe/Zagreb", week_periods=list(periods))


def _texts(start: str, duration: str, cal: Calendar) -> list[str]:
    return [s.text for s in due_answer(parse_instant(start, "start"), duration, cal, explain=True).steps]


MONDAY_OFF_PERIOD = ("2027-03-01", (1, 6, 7), [(d, [("08:00", "17:00")]) for d in range(2, 6)])


def test_entering_a_period_is_said_once():
    texts = _texts("2027-02-24T10:00:00+01:00", "5bd", _calendar(MONDAY_OFF_PERIOD))
    assert texts == [
        "Start 2027-02-24T10:00:00+01:00 (Wednesday 2027-02-24, a business day) in Europe/Zagreb",
        "Thursday 2027-02-25: business day 1 of 5",
        "Friday 2027-02-26: business day 2 of 5",
        "Saturday 2027-02-27: skipped, weekend",
        "Sunday 2027-02-28: skipped, weekend",
        MONDAY_OFF,
        "Monday 2027-03-01: skipped, weekend",
        "Tuesday 2027-03-02: business day 3 of 5",
        "Wednesday 2027-03-03: business day 4 of 5",
        "Thursday 2027-03-04: business day 5 of 5",
        "business days keep the start's wall time 10:00:00",
        "Due 2027-03-04T10:00:00+01:00 (Thursday 2027-03-04) = 2027-03-04T09:00:00Z",
    ]


def test_business_hours_and_a_backward_walk():
    longer = ("2027-03-01", None, [(d, [("08:00", "18:00")]) for d in range(1, 6)])
    texts = _texts("2027-02-26T16:00:00+01:00", "2bh", _calendar(longer))
    assert texts.count("from Monday 2027-03-01 the week of 2027-03-01 holds: weekend Saturday, Sunday; "
                       "Monday–Friday 08:00–18:00") == 1
    assert texts.index("from Monday 2027-03-01 the week of 2027-03-01 holds: weekend Saturday, Sunday; "
                       "Monday–Friday 08:00–18:00") == texts.index("Monday 2027-03-01 08:00–09:00: 1h (total 2h of 2h)") - 1
    back = _texts("2027-03-02T10:00:00+01:00", "-2bd", _calendar(MONDAY_OFF_PERIOD))
    assert back[1:5] == [
        "Monday 2027-03-01: skipped, weekend",
        "before Monday 2027-03-01 the calendar's own week holds: weekend Saturday, Sunday; "
        "Monday–Friday 09:00–17:00",
        "Sunday 2027-02-28: skipped, weekend",
        "Saturday 2027-02-27: skipped, weekend",
    ]


def test_a_walk_inside_one_period_or_without_periods_says_nothing_of_weeks():
    inside = _texts("2027-03-02T10:00:00+01:00", "2bd", _calendar(MONDAY_OFF_PERIOD))
    assert not any("holds:" in t for t in inside)
    plain = _texts("2027-02-24T10:00:00+01:00", "5bd", Calendar.from_text("Europe/Zagreb"))
    assert not any("holds:" in t for t in plain)
    assert len(plain) == 10


def test_week_text():
    assert week_text(frozenset({6, 7}), default_hours(frozenset({6, 7}))) == \
        "weekend Saturday, Sunday; Monday–Friday 09:00–17:00"
    assert week_text(frozenset(range(1, 8)), default_hours(frozenset(range(1, 8)))) == \
        "weekend Monday, Tuesday, Wednesday, Thursday, Friday, Saturday, Sunday; no working hours"
