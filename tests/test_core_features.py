"""Calendar features of the core: overrides, extra days, overnight, relative
deadlines, boundary policy, holiday horizon, explanations, open status and
schedules. Exact values throughout."""

from __future__ import annotations

import pytest

from duetime.core import (
    AtClose,
    Calendar,
    Deadline,
    InvalidArgument,
    OutOfRange,
    business_time,
    compute_due,
    due_answer,
    format_local,
    from_us,
    open_status,
    parse_instant,
    schedule,
)

H = 3_600_000_000


def at(text: str):
    return parse_instant(text, "start")


def due(start: str, duration: str, cal: Calendar, **kw) -> str:
    return format_local(compute_due(at(start), duration, cal, **kw), cal)


UTC = Calendar.from_text()
XMAS = Calendar.from_text(
    "Europe/Zagreb",
    holidays=[("2026-12-25", "Christmas Day"), ("2026-12-26", "St. Stephen's Day")],
    date_overrides=[("2026-12-24", [("09:00", "13:00")], False, "Christmas Eve"), ("2026-12-28", [], True, "Inventory")],
    extra_working_days=[("2026-12-27", "Sunday shift")],
)


# ---- date overrides and extra working days (docs/semantics.md §5) -------------


def test_shortened_day_override():
    assert due("2026-12-24T12:00:00+01:00", "1bh", XMAS) == "2026-12-24T13:00:00+01:00"
    assert due("2026-12-24T12:00:00+01:00", "2bh", XMAS) == "2026-12-27T10:00:00+01:00"


def test_extra_working_sunday_takes_first_weekday_hours_and_counts_as_business_day():
    assert due("2026-12-24T12:00:00+01:00", "1bd", XMAS) == "2026-12-27T12:00:00+01:00"
    assert due("2026-12-27T16:00:00+01:00", "2bh", XMAS) == "2026-12-29T10:00:00+01:00"  # 28th closed


def test_closed_override_is_not_a_business_day():
    assert due("2026-12-27T12:00:00+01:00", "1bd", XMAS) == "2026-12-29T12:00:00+01:00"


def test_extra_working_holiday_on_a_weekday_gets_its_own_hours():
    cal = Calendar.from_text(
        working_hours=[(3, [("10:00", "14:00")]), (4, [("09:00", "17:00")])],
        holidays=[("2026-12-02", "")],
        extra_working_days=[("2026-12-02", "")],
    )
    assert due("2026-12-02T10:00:00Z", "4bh", cal) == "2026-12-02T14:00:00+00:00"


def test_override_wins_over_holiday_and_weekend():
    cal = Calendar.from_text(
        holidays=[("2026-12-25", "")], date_overrides=[("2026-12-25", [("10:00", "12:00")], False, ""), ("2026-12-26", [("10:00", "11:00")], False, "")]
    )
    assert due("2026-12-25T00:00:00Z", "3bh", cal) == "2026-12-26T11:00:00+00:00"
    assert due("2026-12-24T10:00:00Z", "2bd", cal) == "2026-12-26T10:00:00+00:00"


# ---- overnight intervals and 24:00 -------------------------------------------


NIGHT = Calendar.from_text(working_hours=[(d, [("22:00", "06:00")]) for d in range(1, 6)])


def test_overnight_interval_belongs_to_its_start_date():
    # Friday's 22:00–06:00 runs into Saturday; then Monday night
    assert due("2026-11-27T23:00:00Z", "8bh", NIGHT) == "2026-11-30T23:00:00+00:00"
    assert due("2026-11-28T03:00:00Z", "3bh", NIGHT) == "2026-11-28T06:00:00+00:00"


def test_closed_override_next_day_does_not_cut_the_overnight():
    cal = Calendar.from_text(
        working_hours=[(d, [("22:00", "06:00")]) for d in range(1, 6)], date_overrides=[("2026-12-01", [], True, "")]
    )
    # Monday 22:00–Tuesday 06:00 belongs to Monday, so Tuesday's closure does not cut it
    assert due("2026-11-30T22:00:00Z", "8bh", cal) == "2026-12-01T06:00:00+00:00"
    assert due("2026-11-30T22:00:00Z", "9bh", cal) == "2026-12-02T23:00:00+00:00"


def test_overlapping_night_and_morning_shift_count_once():
    cal = Calendar.from_text(working_hours=[(1, [("22:00", "06:00")]), (2, [("05:00", "13:00")])])
    r = business_time(at("2026-11-30T00:00:00Z"), at("2026-12-02T00:00:00Z"), cal)
    assert r.open_us == 15 * H


def test_24_00_end():
    cal = Calendar.from_text(working_hours=[(d, [("16:00", "24:00")]) for d in range(1, 6)])
    assert due("2026-11-30T20:00:00Z", "4bh", cal) == "2026-12-01T00:00:00+00:00"
    assert due("2026-11-30T20:00:00Z", "5bh", cal) == "2026-12-01T17:00:00+00:00"


def test_custom_weekends():
    fri_sat = Calendar.from_text("Asia/Jerusalem", weekend=[5, 6])
    assert due("2026-11-26T10:00:00+02:00", "1bd", fri_sat) == "2026-11-29T10:00:00+02:00"
    sunday_only = Calendar.from_text(weekend=[7])
    assert due("2026-11-27T10:00:00Z", "1bd", sunday_only) == "2026-11-28T10:00:00+00:00"
    none = Calendar.from_text(weekend=[])
    assert due("2026-11-27T10:00:00Z", "2bd", none) == "2026-11-29T10:00:00+00:00"


# ---- relative deadlines --------------------------------------------------------


@pytest.mark.parametrize(
    "start, text, expected",
    [
        ("2026-11-27T16:00:00Z", "1bd@16:00", "2026-11-30T16:00:00+00:00"),  # next business day by 4pm
        ("2026-11-27T16:00:00Z", "1bd@open", "2026-11-30T09:00:00+00:00"),
        ("2026-11-27T16:00:00Z", "1bd@close", "2026-11-30T17:00:00+00:00"),
        ("2026-11-27T16:00:00Z", "0bd@close", "2026-11-27T17:00:00+00:00"),  # end of today's business
        ("2026-11-27T17:00:00Z", "0bd@close", "2026-11-30T17:00:00+00:00"),  # none left today
        ("2026-11-28T10:00:00Z", "0bd@close", "2026-11-30T17:00:00+00:00"),  # Saturday
        ("2026-11-27T08:00:00Z", "0bd@open", "2026-11-27T09:00:00+00:00"),
        ("2026-11-27T16:00:00Z", "-1bd@close", "2026-11-26T17:00:00+00:00"),
        ("2026-11-27T16:00:00Z", "2bd@09:30", "2026-12-01T09:30:00+00:00"),
    ],
)
def test_relative_deadlines(start, text, expected):
    assert due(start, text, UTC) == expected


def test_relative_deadline_errors():
    for text in ("1bh@16:00", "1bd@25:00", "1bd@noon", "@close"):
        with pytest.raises(InvalidArgument):
            compute_due(at("2026-11-27T16:00:00Z"), text, UTC)


# ---- boundary policy -------------------------------------------------------------


def test_at_close_policy():
    assert due("2026-11-27T16:00:00Z", "1bh", UTC) == "2026-11-27T17:00:00+00:00"
    assert due("2026-11-27T16:00:00Z", "1bh", UTC, at_close=AtClose.NEXT_OPEN) == "2026-11-30T09:00:00+00:00"
    assert due("2026-11-27T15:00:00Z", "1bh", UTC, at_close=AtClose.NEXT_OPEN) == "2026-11-27T16:00:00+00:00"


# ---- holiday horizon ---------------------------------------------------------------


def test_holidays_valid_until_is_out_of_range_past_it():
    cal = Calendar.from_text(holidays=[("2026-12-25", "")], holidays_valid_until="2026-12-31")
    assert format_local(from_us(due_answer(at("2026-12-28T10:00:00Z"), "3bd", cal).due_us), cal) == "2026-12-31T10:00:00+00:00"
    with pytest.raises(OutOfRange) as e:
        due_answer(at("2026-12-30T10:00:00Z"), "3bd", cal)
    assert e.value.violations[0].field == "calendar.holidays_valid_until"
    assert "2027-01-04" in str(e.value)


def test_warning_past_last_listed_holiday_year():
    cal = Calendar.from_text(holidays=[("2026-12-25", ""), ("2027-01-01", "")])
    assert due_answer(at("2026-12-01T10:00:00Z"), "3bd", cal).warnings == ()
    assert due_answer(at("2027-12-20T10:00:00Z"), "10bd", cal).warnings == (
        "no holidays known for 2028: the calendar lists holidays up to 2027 only",
    )


# ---- explanations -----------------------------------------------------------------------


def test_explanation_names_skipped_dates_and_gap():
    cal = Calendar.from_text("Europe/Zagreb", holidays=[("2026-12-25", "Christmas Day"), ("2026-12-26", "St. Stephen's Day")])
    steps = due_answer(at("2026-12-24T16:00:00+01:00"), "3bd", cal, explain=True).steps
    assert [s.text for s in steps] == [
        "Start 2026-12-24T16:00:00+01:00 (Thursday 2026-12-24, a business day) in Europe/Zagreb",
        "Friday 2026-12-25: skipped, holiday (Christmas Day)",
        "Saturday 2026-12-26: skipped, holiday (St. Stephen's Day)",
        "Sunday 2026-12-27: skipped, weekend",
        "Monday 2026-12-28: business day 1 of 3",
        "Tuesday 2026-12-29: business day 2 of 3",
        "Wednesday 2026-12-30: business day 3 of 3",
        "business days keep the start's wall time 16:00:00",
        "Due 2026-12-30T16:00:00+01:00 (Wednesday 2026-12-30) = 2026-12-30T15:00:00Z",
    ]
    gap = due_answer(at("2026-03-28T02:30:00+01:00"), "1bd", Calendar.from_text("Europe/Zagreb", weekend=[]), explain=True)
    kinds = [(s.kind, s.text) for s in gap.steps if s.kind in ("resolve", "dst")]
    assert kinds == [
        ("resolve", "02:30 on 2026-03-29 does not exist (DST gap): moved forward by the gap's length to 03:30 (SPEC §1)"),
        ("dst", "DST: at 2026-03-29T01:00:00Z clocks went forward 1h (02:00 became 03:00 local); open intervals spanning it are that much shorter"),
    ]


def test_explanation_of_business_hours_lists_intervals():
    cal = Calendar.from_text("Europe/Zagreb", holidays=[("2026-12-25", "Christmas Day"), ("2026-12-26", "St. Stephen's Day")])
    steps = due_answer(at("2026-12-24T15:00:00+01:00"), "4bh", cal, explain=True).steps
    opens = [(s.text, s.amount_us) for s in steps if s.kind == "open"]
    assert opens == [
        ("Thursday 2026-12-24 15:00–17:00: 2h (total 2h of 4h)", 2 * H),
        ("Monday 2026-12-28 09:00–11:00: 2h (total 4h of 4h)", 2 * H),
    ]


def test_long_explanations_are_summarised():
    steps = due_answer(at("2026-01-05T09:00:00Z"), "2000bh", UTC, explain=True).steps
    assert len(steps) < 100
    summary = [s.text for s in steps if s.kind == "summary"]
    assert len(summary) == 1 and "business days" in summary[0]
    assert sum(s.amount_us for s in steps if s.kind == "open") == 2000 * H


# ---- open status ---------------------------------------------------------------------------


def test_open_status_open_and_closed():
    s = open_status(at("2026-12-24T12:00:00+01:00"), XMAS)
    assert (s.is_open, s.is_business_day) == (True, True)
    assert [format_local(from_us(x), XMAS) for x in s.interval] == ["2026-12-24T09:00:00+01:00", "2026-12-24T13:00:00+01:00"]
    assert format_local(from_us(s.next_close_us), XMAS) == "2026-12-24T13:00:00+01:00"
    assert format_local(from_us(s.next_open_us), XMAS) == "2026-12-27T09:00:00+01:00"
    c = open_status(at("2026-12-25T12:00:00+01:00"), XMAS)
    assert (c.is_open, c.is_business_day, c.reason, c.holiday_name) == (False, False, "holiday (Christmas Day)", "Christmas Day")
    assert format_local(from_us(c.next_open_us), XMAS) == "2026-12-27T09:00:00+01:00"
    assert format_local(from_us(c.next_close_us), XMAS) == "2026-12-27T17:00:00+01:00"
    o = open_status(at("2026-12-28T12:00:00+01:00"), XMAS)
    assert o.reason == "closed by override (Inventory)"


def test_open_status_of_an_always_open_calendar_never_closes():
    always = Calendar.from_text(weekend=[], working_hours=[(d, [("00:00", "24:00")]) for d in range(1, 8)])
    s = open_status(at("2026-12-24T12:00:00Z"), always)
    assert s.is_open and s.next_close_us is None and s.next_open_us is None


# ---- business time between -------------------------------------------------------------------


def test_business_time_and_days_between():
    r = business_time(at("2026-12-24T10:00:00+01:00"), at("2026-12-29T11:00:00+01:00"), XMAS)
    # 24th 10–13 (3h) + 27th 09–17 (8h) + 29th 09–11 (2h)
    assert r.open_us == 13 * H
    assert r.business_days == 2
    back = business_time(at("2026-12-29T11:00:00+01:00"), at("2026-12-24T10:00:00+01:00"), XMAS)
    assert back.open_us == -13 * H and back.business_days == -2  # Thu 24th 11:00 >= Thu 10:00


# ---- schedules --------------------------------------------------------------------------------


def test_schedule_from_entry_and_chained():
    cal = Calendar.from_text("Europe/Zagreb", holidays=[("2026-12-25", ""), ("2026-12-26", "")])
    sc = schedule(
        at("2026-11-27T16:00:00+01:00"),
        [Deadline("remind", "2bd"), Deadline("escalate", "5bd"), Deadline("expire", "30d"), Deadline("final", "4bh", "escalate")],
        cal,
    )
    assert [(d.name, format_local(from_us(d.due_us), cal)) for d in sc.deadlines] == [
        ("remind", "2026-12-01T16:00:00+01:00"),
        ("escalate", "2026-12-04T16:00:00+01:00"),
        ("expire", "2026-12-27T16:00:00+01:00"),
        ("final", "2026-12-07T12:00:00+01:00"),
    ]
    assert sc.next_due == "remind"


def test_schedule_errors_name_the_deadline():
    with pytest.raises(InvalidArgument) as e:
        schedule(at("2026-11-27T16:00:00Z"), [Deadline("a", "1bd", "b"), Deadline("b", "1bd", "a")], UTC)
    assert [v.field for v in e.value.violations] == ["deadlines[0].after", "deadlines[1].after"]
    with pytest.raises(InvalidArgument) as e:
        schedule(at("2026-11-27T16:00:00Z"), [Deadline("a", "1bd", "zz"), Deadline("a", "3xy")], UTC)
    assert sorted(v.field for v in e.value.violations) == ["deadlines[0].after", "deadlines[1].duration", "deadlines[1].name"]


# ---- calendar validation: one violation per problem ---------------------------------------------


def test_calendar_validation_reports_every_problem():
    with pytest.raises(InvalidArgument) as e:
        Calendar.from_text(
            "Mars/Olympus",
            weekend=[6, 9],
            holidays=[("2026-02-30", ""), ("2026-12-25", "A"), ("2026-12-25", "B")],
            working_hours=[
                (1, [("09:00", "12:00"), ("11:00", "13:00")]),
                (2, [("09:00", "09:00")]),
                (6, [("10:00", "12:00")]),
                (8, []),
                (3, [("25:00", "26:00")]),
            ],
            date_overrides=[("2026-12-24", [("09:00", "13:00")], True, ""), ("2026-12-23", [], False, "")],
        )
    assert [v.field for v in e.value.violations] == [
        "calendar.time_zone",
        "calendar.weekend.days[1]",
        "calendar.holidays[0].date",
        "calendar.holidays[2].date",
        "calendar.working_hours.days[0].intervals[1]",
        "calendar.working_hours.days[1].intervals[0].end",
        "calendar.working_hours.days[2].weekday",
        "calendar.working_hours.days[3].weekday",
        "calendar.working_hours.days[4].intervals[0].start",
        "calendar.working_hours.days[4].intervals[0].end",
        "calendar.date_overrides[0].closed",
        "calendar.date_overrides[1].intervals",
    ]


def test_seven_day_weekend_and_too_many_holidays():
    with pytest.raises(InvalidArgument) as e:
        Calendar.from_text(weekend=[1, 2, 3, 4, 5, 6, 7])
    assert e.value.violations[0].description == "a weekend of all seven days leaves no business day"
    with pytest.raises(InvalidArgument) as e:
        Calendar.from_text(holidays=[("2026-01-01", "")] * 10_001)
    assert e.value.violations[0].field == "calendar.holidays"


def test_holiday_outside_supported_range_is_out_of_range():
    with pytest.raises(OutOfRange) as e:
        Calendar.from_text(holidays=[("1899-12-25", "")])
    assert "1900-01-01..2199-12-31" in str(e.value)


def test_versions_are_stable_and_sensitive():
    a = Calendar.from_text("Europe/Zagreb", holidays=[("2026-12-25", "Christmas Day")])
    b = Calendar.from_text("Europe/Zagreb", holidays=[("2026-12-25", "Christmas Day"), ("2026-12-25", "Christmas Day")])
    c = Calendar.from_text("Europe/Zagreb", holidays=[("2026-12-26", "Christmas Day")])
    assert a.version == b.version != c.version
    assert a.version.startswith("cal-") and len(a.version) == 20
    # defaults written out explicitly give the same version as unset parts
    d = Calendar.from_text("Europe/Zagreb", weekend=[7, 6], holidays=[("2026-12-25", "Christmas Day")],
                           working_hours=[(i, [("09:00", "17:00")]) for i in range(1, 6)])
    assert d.version == a.version


# ---- found by trying it as a user --------------------------------------------------------------


def _closed_days(first: str, days: int) -> list[tuple[str, str]]:
    from datetime import date, timedelta

    d0 = date.fromisoformat(first)
    return [((d0 + timedelta(days=i)).isoformat(), "closed season") for i in range(days)]


def test_business_hours_across_a_long_closure():
    season = Calendar.from_text(holidays=_closed_days("2026-01-01", 70))
    assert due("2026-01-01T10:00:00Z", "1bh", season) == "2026-03-12T10:00:00+00:00"
    assert due("2026-03-20T10:00:00Z", "-1bh", season) == "2026-03-20T09:00:00+00:00"
    assert due("2026-03-12T09:00:00Z", "-1bh", season) == "2025-12-31T16:00:00+00:00"
    s = open_status(at("2026-01-01T10:00:00Z"), season)
    assert format_local(from_us(s.next_open_us), season) == "2026-03-12T09:00:00+00:00"
    years = Calendar.from_text(holidays=_closed_days("2026-01-01", 3000))
    assert due("2026-01-01T10:00:00Z", "1bh", years) == "2034-03-20T10:00:00+00:00"


def test_open_run_spans_touching_days():
    weekdays_24h = Calendar.from_text(working_hours=[(d, [("00:00", "24:00")]) for d in range(1, 6)])
    s = open_status(at("2026-11-23T12:00:00Z"), weekdays_24h)
    assert [format_local(from_us(x), weekdays_24h) for x in s.interval] == [
        "2026-11-23T00:00:00+00:00", "2026-11-28T00:00:00+00:00"]
    assert s.next_close_us == s.interval[1]


def test_open_and_close_on_the_date_after_a_skipped_date():
    # Pacific/Apia skipped 2011-12-30; its wall times moved into 2011-12-31 (docs/semantics.md §1.1)
    apia = Calendar.from_text("Pacific/Apia", weekend=[])
    for text, expected in (("1bd@open", "2011-12-31T09:00:00+14:00"), ("2bd@open", "2011-12-31T09:00:00+14:00"),
                           ("2bd@close", "2011-12-31T17:00:00+14:00"), ("1bd", "2011-12-31T10:00:00+14:00"),
                           ("2bd", "2011-12-31T10:00:00+14:00")):
        assert due("2011-12-29T10:00:00-10:00", text, apia) == expected


def test_a_due_time_or_span_at_the_midnight_after_the_last_covered_date():
    """docs/semantics.md §7: only the dates an answer depends on must be
    covered. `@end` on the last covered date is its 24:00; open time in
    [a, b) ending at the next midnight needs no later date; whole business
    days (a + N bd ≤ b) need b's date only when a's wall time on it is not
    after b."""
    cal = Calendar.from_text("Europe/Zagreb", holidays=[("2026-12-25", "")], holidays_valid_until="2026-12-31")
    assert format_local(from_us(due_answer(at("2026-12-30T10:00:00+01:00"), "1bd@end", cal).due_us), cal) == \
        "2027-01-01T00:00:00+01:00"
    assert format_local(from_us(due_answer(at("2026-12-31T10:00:00+01:00"), "P0D@following@end", cal).due_us),
                        cal) == "2027-01-01T00:00:00+01:00"
    answer = business_time(at("2026-12-31T08:00:00+01:00"), at("2027-01-01T00:00:00+01:00"), cal)
    assert (answer.open_us, answer.business_days, answer.warnings) == (8 * 3_600_000_000, 0, ())
    with pytest.raises(OutOfRange) as e:  # 2026-12-31T00:00 + 1bd ≤ b iff 2027-01-01 is a business day
        business_time(at("2026-12-31T00:00:00+01:00"), at("2027-01-01T00:00:00+01:00"), cal)
    assert e.value.violations[0].field == "calendar.holidays_valid_until"
    assert "2027-01-01" in str(e.value)
    with pytest.raises(OutOfRange):
        due_answer(at("2026-12-31T10:00:00+01:00"), "1bd@end", cal)
