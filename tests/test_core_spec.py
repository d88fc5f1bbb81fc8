"""Every example of the rules (docs/semantics.md §1–§5, §11) as an exact-value test of the core."""

from __future__ import annotations

from datetime import date, time

import pytest

from duetime.core import (
    Calendar,
    InvalidArgument,
    OutOfRange,
    bd_between,
    business_time_between,
    compute_due,
    format_local,
    get_zone,
    parse_instant,
    resolve_local,
)

HOUR = 3_600_000_000


def at(text: str):
    return parse_instant(text, "start")


def due(start: str, duration: str, cal: Calendar) -> str:
    return format_local(compute_due(at(start), duration, cal), cal)


ZAGREB_XMAS = Calendar.from_text("Europe/Zagreb", holidays=[("2026-12-25", "Christmas Day"), ("2026-12-26", "St. Stephen's Day")])
UTC = Calendar.from_text()
ALWAYS_OPEN_ZAGREB = Calendar.from_text(
    "Europe/Zagreb", weekend=[], working_hours=[(d, [("00:00", "24:00")]) for d in range(1, 8)]
)


# ---- §1 wall-time resolution -------------------------------------------------


@pytest.mark.parametrize(
    "zone, local, expected",
    [
        ("Europe/Zagreb", (date(2026, 3, 29), time(2, 30)), "2026-03-29T01:30:00+00:00"),  # gap → forward
        ("Asia/Jerusalem", (date(2026, 10, 25), time(1, 30)), "2026-10-24T22:30:00+00:00"),  # fold → earlier
        ("Europe/Zagreb", (date(2026, 10, 25), time(2, 30)), "2026-10-25T00:30:00+00:00"),  # fold → earlier
        ("Pacific/Apia", (date(2011, 12, 30), time(10, 0)), "2011-12-30T20:00:00+00:00"),  # skipped date
        ("Australia/Lord_Howe", (date(2026, 10, 4), time(2, 15)), "2026-10-03T15:45:00+00:00"),  # 30-min gap
    ],
)
def test_wall_time_resolution(zone, local, expected):
    assert resolve_local(*local, get_zone(zone)).isoformat() == expected


def test_text_time_without_offset_is_invalid():
    with pytest.raises(InvalidArgument) as e:
        parse_instant("2026-11-27T16:00:00", "start")
    assert e.value.violations[0].field == "start"
    assert "no UTC offset" in e.value.violations[0].description


def test_unknown_zone_names_the_field():
    with pytest.raises(InvalidArgument) as e:
        Calendar.from_text("Europe/Atlantis")
    assert [v.field for v in e.value.violations] == ["calendar.time_zone"]


def test_range_is_checked_in_local_time():
    ny = Calendar.from_text("America/New_York")
    with pytest.raises(OutOfRange) as e:
        compute_due(at("1900-01-01T02:00:00Z"), "1h", ny)
    assert "1900-01-01" in str(e.value)
    with pytest.raises(OutOfRange) as e:
        compute_due(at("2199-12-31T12:00:00Z"), "2d", UTC)
    assert "2199-12-31" in str(e.value)


# ---- §3 business days --------------------------------------------------------


def test_zagreb_3bd_over_the_weekend():
    assert due("2026-11-27T16:00:00+01:00", "3bd", ZAGREB_XMAS) == "2026-12-02T16:00:00+01:00"
    assert compute_due(at("2026-11-27T16:00:00+01:00"), "3bd", ZAGREB_XMAS).isoformat() == "2026-12-02T15:00:00+00:00"


def test_saturday_start_2bd():
    assert due("2026-11-28T10:00:00Z", "2bd", UTC) == "2026-12-01T10:00:00+00:00"


def test_holidays_skipped():
    assert due("2026-12-24T09:00:00+01:00", "1bd", ZAGREB_XMAS) == "2026-12-28T09:00:00+01:00"


def test_bd_due_in_gap_moves_forward():
    cal = Calendar.from_text("Europe/Zagreb", weekend=[])
    assert due("2026-03-28T02:30:00+01:00", "1bd", cal) == "2026-03-29T03:30:00+02:00"
    assert compute_due(at("2026-03-28T02:30:00+01:00"), "1bd", cal).isoformat() == "2026-03-29T01:30:00+00:00"


def test_bd_due_in_fold_takes_earlier():
    cal = Calendar.from_text("Asia/Jerusalem", weekend=[5, 6])
    assert compute_due(at("2026-10-22T01:30:00+03:00"), "1bd", cal).isoformat() == "2026-10-24T22:30:00+00:00"
    assert due("2026-10-22T01:30:00+03:00", "1bd", cal) == "2026-10-25T01:30:00+03:00"


def test_negative_bd_mirrors():
    assert due("2026-12-28T09:00:00+01:00", "-1bd", ZAGREB_XMAS) == "2026-12-24T09:00:00+01:00"
    assert due("2026-12-02T16:00:00+01:00", "-3bd", ZAGREB_XMAS) == "2026-11-27T16:00:00+01:00"


def test_bd_between_is_not_antisymmetric():
    sat, thu = at("2000-01-01T12:00:00Z"), at("1999-12-30T12:00:00Z")
    assert bd_between(sat, thu, UTC) == -2
    assert bd_between(thu, sat, UTC) == 1


def test_bd_between_inverts_adding():
    start = at("2026-11-27T16:00:00+01:00")
    for n in (0, 1, 3, 20, 250):
        assert bd_between(start, compute_due(start, f"{n}bd", ZAGREB_XMAS), ZAGREB_XMAS) == n
        assert bd_between(start, compute_due(start, f"-{n}bd", ZAGREB_XMAS), ZAGREB_XMAS) == -n


def test_bd_limit_is_out_of_range():
    with pytest.raises(OutOfRange) as e:
        compute_due(at("2026-01-01T00:00:00Z"), "100001bd", UTC)
    assert e.value.violations[0].field == "duration"
    assert "100000" in e.value.violations[0].description
    always = Calendar.from_text(weekend=[])
    assert due("1900-01-01T00:00:00Z", "100000bd", always) == "2173-10-16T00:00:00+00:00"


def test_bd_past_range_end_is_out_of_range():
    with pytest.raises(OutOfRange) as e:
        compute_due(at("2026-01-01T00:00:00Z"), "100000bd", UTC)
    assert "2199-12-31" in str(e.value)


# ---- §4 business hours --------------------------------------------------------


def test_start_outside_open_time_counts_from_next_opening():
    assert due("2026-11-28T10:00:00Z", "1bh", UTC) == "2026-11-30T10:00:00+00:00"


def test_work_ending_at_closing_is_due_at_closing():
    assert due("2026-11-27T16:00:00Z", "1bh", UTC) == "2026-11-27T17:00:00+00:00"


def test_zagreb_4bh_over_christmas():
    assert due("2026-12-24T15:00:00+01:00", "4bh", ZAGREB_XMAS) == "2026-12-28T11:00:00+01:00"


def test_24bh_across_fall_back_equals_1d_not_p1d():
    start = "2026-10-24T12:00:00+02:00"
    assert due(start, "24bh", ALWAYS_OPEN_ZAGREB) == "2026-10-25T11:00:00+01:00"
    assert due(start, "1d", ALWAYS_OPEN_ZAGREB) == "2026-10-25T11:00:00+01:00"
    assert due(start, "P1D", ALWAYS_OPEN_ZAGREB) == "2026-10-25T12:00:00+01:00"


def test_negative_bh_latest_instant():
    # N < 0: latest T <= start with open time in [T, start) = |N|
    assert due("2026-11-30T10:00:00Z", "-1bh", UTC) == "2026-11-30T09:00:00+00:00"
    assert due("2026-11-30T10:00:00Z", "-2bh", UTC) == "2026-11-27T16:00:00+00:00"
    assert due("2026-11-30T09:00:00Z", "-8bh", UTC) == "2026-11-27T09:00:00+00:00"


def test_between_of_an_addition_is_the_amount():
    start = at("2026-12-24T15:00:00+01:00")
    for text, hours in (("4bh", 4), ("7bh30bm", 7.5), ("2000bh", 2000)):
        assert business_time_between(start, compute_due(start, text, ZAGREB_XMAS), ZAGREB_XMAS) == int(hours * HOUR)


def test_between_is_negated_when_reversed():
    a, b = at("2026-11-27T10:00:00Z"), at("2026-11-30T11:00:00Z")
    assert business_time_between(a, b, UTC) == 9 * HOUR
    assert business_time_between(b, a, UTC) == -9 * HOUR


def test_split_shift_hours():
    cal = Calendar.from_text(working_hours=[(d, [("09:00", "12:00"), ("13:00", "17:00")]) for d in range(1, 6)])
    assert due("2026-11-30T11:00:00Z", "2bh", cal) == "2026-11-30T14:00:00+00:00"
    assert due("2026-11-30T11:00:00Z", "1bh", cal) == "2026-11-30T12:00:00+00:00"


def test_open_time_across_spring_forward_is_an_hour_shorter():
    cal = ALWAYS_OPEN_ZAGREB
    a, b = at("2026-03-29T00:00:00+01:00"), at("2026-03-30T00:00:00+02:00")
    assert business_time_between(a, b, cal) == 23 * HOUR


def test_fall_back_interval_endpoints_resolved_separately():
    # docs/semantics.md §4.1: 00:00–02:30 on the fall-back day in Zagreb is 2.5 h of open time
    cal = Calendar.from_text("Europe/Zagreb", weekend=[], working_hours=[(d, [("00:00", "02:30")]) for d in range(1, 8)])
    a, b = at("2026-10-25T00:00:00+02:00"), at("2026-10-26T00:00:00+01:00")
    assert business_time_between(a, b, cal) == int(2.5 * HOUR)


def test_bh_without_working_hours_is_invalid():
    cal = Calendar.from_text(working_hours=[])
    with pytest.raises(InvalidArgument) as e:
        compute_due(at("2026-11-30T10:00:00Z"), "1bh", cal)
    assert e.value.violations[0].field == "duration"


# ---- §5 nominal ISO durations --------------------------------------------------


@pytest.mark.parametrize(
    "start, text, expected",
    [
        ("2026-01-31T10:00:00Z", "P1M", "2026-02-28T10:00:00+00:00"),
        ("2028-01-31T10:00:00Z", "P1M", "2028-02-29T10:00:00+00:00"),
        ("2026-01-31T10:00:00Z", "P1Y2M3W4DT5H6M7S", "2027-04-25T15:06:07+00:00"),
        ("2026-03-31T10:00:00Z", "-P1M", "2026-02-28T10:00:00+00:00"),
        ("2026-11-27T16:00:00Z", "PT0S", "2026-11-27T16:00:00+00:00"),
        ("2026-11-27T16:00:00Z", "PT1.5H", "2026-11-27T17:30:00+00:00"),
    ],
)
def test_iso_durations(start, text, expected):
    assert due(start, text, UTC) == expected


def test_p2d_keeps_wall_time_pt48h_does_not():
    cal = Calendar.from_text("Europe/Zagreb")
    assert due("2026-10-24T12:00:00+02:00", "P2D", cal) == "2026-10-26T12:00:00+01:00"
    assert due("2026-10-24T12:00:00+02:00", "PT48H", cal) == "2026-10-26T11:00:00+01:00"


def test_zero_iso_inside_a_fold_returns_start_unchanged():
    cal = Calendar.from_text("Europe/Zagreb")
    second = at("2026-10-25T02:30:00+01:00")  # second 02:30 of the fold
    assert compute_due(second, "P0D", cal) == second
    assert compute_due(second, "PT0S", cal) == second
    assert compute_due(second, "0bd", cal) == second


# ---- §2 elapsed -------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, expected",
    [
        ("30m", "2026-10-24T12:30:00+02:00"),
        ("48h", "2026-10-26T11:00:00+01:00"),
        ("2d", "2026-10-26T11:00:00+01:00"),
        ("1w", "2026-10-31T11:00:00+01:00"),
        ("1500", "2026-10-24T12:00:01.500000+02:00"),
        ("-1h30m", "2026-10-24T10:30:00+02:00"),
        ("0.25s", "2026-10-24T12:00:00.250000+02:00"),
    ],
)
def test_elapsed_units_across_dst(text, expected):
    assert due("2026-10-24T12:00:00+02:00", text, Calendar.from_text("Europe/Zagreb")) == expected
