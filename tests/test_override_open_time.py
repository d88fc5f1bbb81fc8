"""A date opened by an override is open time on any calendar, also one whose
weekly hours are empty (docs/semantics.md §4): business time counts it, open
status reports it open; ``bh``/``bm`` arithmetic on such a week stays an
error except zero."""

from __future__ import annotations

import pytest

from duetime.core import Calendar, InvalidArgument, business_time, compute_due, open_status, parse_instant, to_us

H = 3_600_000_000
#: No weekly hours at all; Tuesday 2026-12-01 opened 09:00–12:00 by an override.
EMPTY_WEEK = Calendar.from_text(
    "Europe/Zagreb", working_hours=[(d, []) for d in range(1, 6)],
    date_overrides=[("2026-12-01", [("09:00", "12:00")], False, "Audit")],
)


def at(text: str):
    return parse_instant(text, "t")


def test_open_status_inside_the_override_is_open():
    s = open_status(at("2026-12-01T10:00:00+01:00"), EMPTY_WEEK)
    assert s.is_open and s.is_business_day and s.reason is None
    assert s.interval == (to_us(at("2026-12-01T09:00:00+01:00")), to_us(at("2026-12-01T12:00:00+01:00")))
    assert s.next_close_us == to_us(at("2026-12-01T12:00:00+01:00"))
    assert s.next_open_us is None  # no later opening on this calendar


def test_open_status_before_the_override_names_its_opening():
    s = open_status(at("2026-11-30T10:00:00+01:00"), EMPTY_WEEK)
    assert not s.is_open and s.interval is None
    assert s.next_open_us == to_us(at("2026-12-01T09:00:00+01:00"))
    assert s.next_close_us == to_us(at("2026-12-01T12:00:00+01:00"))


def test_open_status_after_the_override_is_closed_with_no_opening_ahead():
    s = open_status(at("2026-12-02T10:00:00+01:00"), EMPTY_WEEK)
    assert not s.is_open and s.next_open_us is None and s.next_close_us is None


def test_business_time_over_the_week_counts_the_override():
    bt = business_time(at("2026-11-30T00:00:00+01:00"), at("2026-12-07T00:00:00+01:00"), EMPTY_WEEK)
    assert bt.open_us == 3 * H
    part = business_time(at("2026-12-01T10:30:00+01:00"), at("2026-12-01T11:00:00+01:00"), EMPTY_WEEK)
    assert part.open_us == H // 2
    back = business_time(at("2026-12-07T00:00:00+01:00"), at("2026-11-30T00:00:00+01:00"), EMPTY_WEEK)
    assert back.open_us == -3 * H


def test_business_time_over_a_long_span_counts_the_override_once():
    bt = business_time(at("2020-01-01T00:00:00Z"), at("2030-01-01T00:00:00Z"), EMPTY_WEEK)
    assert bt.open_us == 3 * H


@pytest.mark.parametrize("text", ["1bh", "-1bh", "30bm"])
def test_business_time_arithmetic_on_the_empty_week_stays_an_error(text):
    with pytest.raises(InvalidArgument) as e:
        compute_due(at("2026-11-30T10:00:00+01:00"), text, EMPTY_WEEK)
    assert e.value.violations[0].field == "duration"


def test_zero_business_time_on_the_empty_week_returns_the_start():
    assert compute_due(at("2026-12-01T10:00:00+01:00"), "0bh", EMPTY_WEEK) == at("2026-12-01T10:00:00+01:00")


def test_business_days_are_not_changed_by_the_empty_week():
    # a weekday without hours is still a business day (docs/semantics.md §4.1)
    assert compute_due(at("2026-11-27T10:00:00+01:00"), "1bd", EMPTY_WEEK) == at("2026-11-30T10:00:00+01:00")
    assert compute_due(at("2026-11-27T10:00:00+01:00"), "2bd", EMPTY_WEEK) == at("2026-12-01T10:00:00+01:00")
