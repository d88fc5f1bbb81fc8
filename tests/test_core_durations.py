"""Duration text (docs/semantics.md §2, §2.2): exact values and precise errors."""

from __future__ import annotations

import pytest

from duetime.core import DurationKind, InvalidArgument, NominalParts, OutOfRange, parse_duration

H = 3_600_000_000
M = 60_000_000
S = 1_000_000


@pytest.mark.parametrize(
    "text, kind, micros, days",
    [
        ("30m", DurationKind.ELAPSED, 30 * M, 0),
        ("48h", DurationKind.ELAPSED, 48 * H, 0),
        ("2d", DurationKind.ELAPSED, 48 * H, 0),
        ("1w", DurationKind.ELAPSED, 168 * H, 0),
        ("250ms", DurationKind.ELAPSED, 250_000, 0),
        ("0.25s", DurationKind.ELAPSED, 250_000, 0),
        ("1.5h", DurationKind.ELAPSED, 90 * M, 0),
        ("1h30m", DurationKind.ELAPSED, 90 * M, 0),
        ("30m1h", DurationKind.ELAPSED, 90 * M, 0),
        ("2d4h", DurationKind.ELAPSED, 52 * H, 0),
        ("-1h30m", DurationKind.ELAPSED, -90 * M, 0),
        ("+45s", DurationKind.ELAPSED, 45 * S, 0),
        ("  8bh  ", DurationKind.BUSINESS_TIME, 8 * H, 0),
        ("7.5bh", DurationKind.BUSINESS_TIME, 450 * M, 0),
        ("7bh30bm", DurationKind.BUSINESS_TIME, 450 * M, 0),
        ("1.5bh30bm", DurationKind.BUSINESS_TIME, 120 * M, 0),
        ("3bd", DurationKind.BUSINESS_DAY, 0, 3),
        ("1.0bd", DurationKind.BUSINESS_DAY, 0, 1),
        ("-2bd", DurationKind.BUSINESS_DAY, 0, -2),
        ("1bd2bd", DurationKind.BUSINESS_DAY, 0, 3),
        ("5000", DurationKind.ELAPSED, 5 * S, 0),
        ("-5000", DurationKind.ELAPSED, -5 * S, 0),
        ("0", DurationKind.ELAPSED, 0, 0),
        ("0bd", DurationKind.BUSINESS_DAY, 0, 0),
        ("0.000001s", DurationKind.ELAPSED, 1, 0),
    ],
)
def test_parses_exactly(text, kind, micros, days):
    d = parse_duration(text)
    assert (d.kind, d.micros, d.days) == (kind, micros, days)


def test_iso_parts():
    d = parse_duration("P1Y2M3W4DT5H6M7S")
    assert d.kind is DurationKind.NOMINAL
    assert d.nominal == NominalParts(1, 2, 3, 4, 5 * H + 6 * M + 7 * S)
    assert parse_duration("-P1DT1H").nominal == NominalParts(0, 0, 0, -1, -H)
    assert parse_duration("PT0.5S").nominal == NominalParts(time_us=500_000)


@pytest.mark.parametrize(
    "text, needle",
    [
        ("", "empty"),
        ("   ", "empty"),
        ("1.5bd", "use bh for parts of a business day"),
        ("3xy", "unknown unit 'xy' at position 2 of '3xy'"),
        ("3H", "units are lower case"),
        ("1bd4h", "mixes business-day and elapsed"),
        ("1h 30m", "whitespace inside a duration is not allowed at position 3"),
        ("1h-30m", "a sign may only lead the duration"),
        ("0.000000001h", "not a whole number of microseconds"),
        ("0.0000001s", "not a whole number of microseconds"),
        ("1.5", "needs a unit"),
        ("-", "has a sign but no amount"),
        ("h", "expected a number, found 'h' at position 1"),
        ("٣bd", "not an ASCII digit"),
        ("p1d", "upper case"),
        ("P1.5D", "only in the time part"),
        ("P", "not an ISO 8601 duration"),
        ("PT", "not an ISO 8601 duration"),
        ("P1DT", "not an ISO 8601 duration"),
        ("1.h", "unexpected '.' at position 2"),
    ],
)
def test_errors_say_what_and_where(text, needle):
    with pytest.raises(InvalidArgument) as e:
        parse_duration(text, "duration")
    (v,) = e.value.violations
    assert v.field == "duration"
    assert needle in v.description


@pytest.mark.parametrize("text", ["100001bd", "-100001bd", "1000000000h", "9" * 40 + "h", "P500Y"])
def test_range_limits(text):
    with pytest.raises(OutOfRange):
        parse_duration(text)


def test_bd_limit_itself_is_allowed():
    assert parse_duration("100000bd").days == 100_000


def test_long_numbers_by_their_significant_digits():
    assert parse_duration("1." + "0" * 61 + "bh").micros == H
    with pytest.raises(InvalidArgument, match="not a whole number of microseconds"):
        parse_duration("0." + "0" * 9 + "8" * 40 + "bh")
    with pytest.raises(OutOfRange, match="too large"):
        parse_duration("9" * 31 + "h")
