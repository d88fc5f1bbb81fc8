"""Checks of the oracle itself (no duetime code involved).

* every example of docs/semantics.md §1, §3, §4, §5 and §11 that the oracle can express;
* its wall-time resolution against an independent method (PEP 495 fold=0);
* its `between` against counting open minutes one by one, both with the
  resolved intervals (checks merging/clipping/windows) and, where no offset
  change is near, from wall-clock readings alone (checks resolution too);
* its `add_bh` / `add_bd` / `bd_between` against their definitions.
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, note, settings
from hypothesis import strategies as st

import oracle as O
from oracle import DAY, HOUR, MINUTE, OCal, from_us, to_us
from test_properties import ZONES, anchors, bt_durations, calendar_specs, cases, starts, transitions

UTC = timezone.utc


def scaled(n: int) -> int:
    """n examples under the "ci" profile; proportionally more under "fuzz"."""
    return max(n, n * settings.default.max_examples // 200)


def Z(key):
    return ZoneInfo(key)


def at(text: str) -> int:
    return to_us(datetime.fromisoformat(text))


def iso(us: int) -> str:
    return from_us(us).isoformat()


# ---------------------------------------------------------------------------
# §1 wall-time resolution
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "zone,wall,expected",
    [
        # gap 02:00 -> 03:00: 02:30 -> 03:30+02:00
        ("Europe/Zagreb", "2026-03-29T02:30", "2026-03-29T01:30:00+00:00"),
        ("Europe/Zagreb", "2026-03-29T02:00", "2026-03-29T01:00:00+00:00"),
        ("Europe/Zagreb", "2026-03-29T03:00", "2026-03-29T01:00:00+00:00"),
        ("Europe/Zagreb", "2026-03-29T01:59", "2026-03-29T00:59:00+00:00"),
        # fold 03:00 -> 02:00: the earlier
        ("Europe/Zagreb", "2026-10-25T02:30", "2026-10-25T00:30:00+00:00"),
        ("Europe/Zagreb", "2026-10-25T03:00", "2026-10-25T02:00:00+00:00"),
        ("Asia/Jerusalem", "2026-10-25T01:30", "2026-10-24T22:30:00+00:00"),
        ("America/New_York", "2026-03-08T02:30", "2026-03-08T07:30:00+00:00"),
        ("America/New_York", "2026-11-01T01:30", "2026-11-01T05:30:00+00:00"),
        # Lord Howe, 30-minute DST: gap 02:00 -> 02:30, fold 02:00 -> 01:30
        ("Australia/Lord_Howe", "2026-10-04T02:15", "2026-10-03T15:45:00+00:00"),
        ("Australia/Lord_Howe", "2026-04-05T01:45", "2026-04-04T14:45:00+00:00"),
        # Santiago: midnight does not exist on the spring-forward date
        ("America/Santiago", "2026-09-06T00:00", "2026-09-06T04:00:00+00:00"),
        ("America/Santiago", "2026-09-06T00:30", "2026-09-06T04:30:00+00:00"),
        # Apia skipped 2011-12-30: its wall times move forward 24 h
        ("Pacific/Apia", "2011-12-30T10:00", "2011-12-30T20:00:00+00:00"),
        ("Pacific/Apia", "2011-12-30T00:00", "2011-12-30T10:00:00+00:00"),
        ("Pacific/Apia", "2011-12-31T10:00", "2011-12-30T20:00:00+00:00"),
        ("UTC", "2026-03-29T02:30", "2026-03-29T02:30:00+00:00"),
        ("Asia/Kolkata", "2026-03-29T02:30", "2026-03-28T21:00:00+00:00"),
    ],
)
def test_resolution_examples(zone, wall, expected):
    assert iso(O.resolve(zone, datetime.fromisoformat(wall))) == expected


def test_transition_table_is_sane():
    zagreb = transitions("Europe/Zagreb")
    assert at("2026-03-29T01:00:00+00:00") in zagreb
    assert at("2026-10-25T01:00:00+00:00") in zagreb
    assert at("2011-12-30T10:00:00+00:00") in transitions("Pacific/Apia")
    assert transitions("UTC") == () and transitions("Asia/Kolkata") == ()
    assert len(transitions("Australia/Lord_Howe")) == 82


@given(st.data())
def test_resolution_agrees_with_pep495_fold0(data):
    """PEP 495: fold=0 is the earlier instant in a fold and uses the offset from
    before a gap, i.e. exactly §1's rule — an independent way to the same answer."""
    zone = data.draw(st.sampled_from(ZONES))
    anchor = data.draw(anchors(zone))
    wall = O.local_wall(zone, anchor) + timedelta(
        microseconds=data.draw(st.one_of(st.just(0), st.integers(-3 * HOUR, 3 * HOUR)))
    )
    pep495 = wall.replace(tzinfo=Z(zone), fold=0).astimezone(UTC)
    assert O.resolve(zone, wall) == to_us(pep495), (zone, wall)


def test_resolution_everywhere_near_every_transition():
    """Every 10 minutes within 3 h of every transition 2020..2030 of each zone."""
    lo, hi = at("2020-01-01T00:00:00+00:00"), at("2030-01-01T00:00:00+00:00")
    for zone in ZONES:
        for t in transitions(zone):
            if not lo <= t < hi:
                continue
            base = O.local_wall(zone, t)
            for k in range(-18, 19):
                wall = base + timedelta(minutes=10 * k)
                want = to_us(wall.replace(tzinfo=Z(zone), fold=0).astimezone(UTC))
                assert O.resolve(zone, wall) == want, (zone, wall)


# ---------------------------------------------------------------------------
# Examples of docs/semantics.md (§3, §4, §5, §11)
# ---------------------------------------------------------------------------

XMAS = [("2026-12-25", "Christmas"), ("2026-12-26", "St Stephen")]
ALL_DAY = [(w, [("00:00", "24:00")]) for w in range(1, 8)]


def due(cal: OCal, start: str, text: str) -> str:
    return O.compute_due(cal, datetime.fromisoformat(start), text).isoformat()


def test_spec_3_examples():
    zg = OCal.from_text("Europe/Zagreb")
    assert due(zg, "2026-11-27T16:00:00+01:00", "3bd") == "2026-12-02T15:00:00+00:00"
    assert due(OCal.from_text(), "2026-11-28T10:00:00+00:00", "2bd") == "2026-12-01T10:00:00+00:00"
    zgx = OCal.from_text("Europe/Zagreb", holidays=XMAS)
    assert due(zgx, "2026-12-24T09:00:00+01:00", "+1bd") == "2026-12-28T08:00:00+00:00"
    # DST on the due date
    nowk = OCal.from_text("Europe/Zagreb", weekend=[])
    assert due(nowk, "2026-03-28T02:30:00+01:00", "1bd") == "2026-03-29T01:30:00+00:00"
    jer = OCal.from_text("Asia/Jerusalem", weekend=[5, 6])
    assert due(jer, "2026-10-22T01:30:00+03:00", "1bd") == "2026-10-24T22:30:00+00:00"
    # Whether d0 is a business day does not matter; N < 0 mirrors
    assert due(OCal.from_text(), "2026-11-28T10:00:00+00:00", "-1bd") == "2026-11-27T10:00:00+00:00"
    assert due(OCal.from_text(), "2026-11-30T10:00:00+00:00", "-1bd") == "2026-11-27T10:00:00+00:00"
    assert due(OCal.from_text(), "2026-11-30T10:00:00+00:00", "0bd") == "2026-11-30T10:00:00+00:00"


def test_spec_3_bd_between_example():
    cal = OCal.from_text()  # UTC, weekend Sat+Sun
    sat, thu = at("2000-01-01T12:00:00+00:00"), at("1999-12-30T12:00:00+00:00")
    assert O.bd_between(cal, sat, thu) == -2
    assert O.bd_between(cal, thu, sat) == 1
    assert O.bd_between(cal, thu, thu) == 0


def test_spec_4_examples():
    std = OCal.from_text()  # 09:00-17:00 Mon-Fri UTC
    assert due(std, "2026-11-28T10:00:00+00:00", "1bh") == "2026-11-30T10:00:00+00:00"  # Saturday
    assert due(std, "2026-11-27T16:00:00+00:00", "1bh") == "2026-11-27T17:00:00+00:00"  # Friday: at closing
    zgx = OCal.from_text("Europe/Zagreb", holidays=XMAS)
    got = O.compute_due(zgx, datetime.fromisoformat("2026-12-24T15:00:00+01:00"), "4bh")
    assert got.astimezone(Z("Europe/Zagreb")).isoformat() == "2026-12-28T11:00:00+01:00"
    allday = OCal.from_text("Europe/Zagreb", weekend=[], working_hours=ALL_DAY)
    got = O.compute_due(allday, datetime.fromisoformat("2026-10-24T12:00:00+02:00"), "24bh")
    assert got.astimezone(Z("Europe/Zagreb")).isoformat() == "2026-10-25T11:00:00+01:00"
    assert got == O.compute_due(allday, datetime.fromisoformat("2026-10-24T12:00:00+02:00"), "1d")
    # negative: the latest T with open time [T, start) = |N|: lands on an opening
    assert due(std, "2026-11-30T10:00:00+00:00", "-1bh") == "2026-11-30T09:00:00+00:00"
    assert due(std, "2026-11-30T09:00:00+00:00", "-1bh") == "2026-11-27T16:00:00+00:00"
    assert due(std, "2026-11-28T10:00:00+00:00", "-8bh") == "2026-11-27T09:00:00+00:00"
    assert due(std, "2026-11-27T17:00:00+00:00", "0bh") == "2026-11-27T17:00:00+00:00"
    assert due(std, "2026-11-27T16:59:00+00:00", "7bh30bm") == "2026-11-30T16:29:00+00:00"
    assert due(std, "2026-11-27T09:00:00+00:00", "-90bm") == "2026-11-26T15:30:00+00:00"


def test_spec_7_example_remaining_and_resume():
    std = OCal.from_text()
    assert O.between(std, at("2026-11-27T16:00:00+00:00"), at("2026-11-30T11:00:00+00:00")) == 3 * HOUR
    assert O.between(std, at("2026-11-30T11:00:00+00:00"), at("2026-11-27T16:00:00+00:00")) == -3 * HOUR
    assert due(std, "2026-12-01T10:00:00+00:00", "3bh") == "2026-12-01T13:00:00+00:00"


def test_spec_10_interval_across_fall_back_is_2_5_hours():
    cal = OCal.from_text("Europe/Zagreb", weekend=[], working_hours=[(7, [("00:00", "02:30")])])
    d = date(2026, 10, 25)
    assert d.isoweekday() == 7
    assert O.between(cal, at("2026-10-24T12:00:00+00:00"), at("2026-10-26T12:00:00+00:00")) == 150 * MINUTE
    assert cal.open_intervals_of_date(d) == [(at("2026-10-24T22:00:00+00:00"), at("2026-10-25T00:30:00+00:00"))]


def test_spec_10_interval_emptied_by_gap_is_dropped():
    # 02:15-02:45 on the Zagreb spring-forward date: both ends -> 03:15/03:45+02 (not empty)
    # 02:30-03:10: start -> 03:30+02, end 03:10+02: empty, dropped
    cal = OCal.from_text("Europe/Zagreb", weekend=[], working_hours=[(7, [("02:30", "03:10")])])
    assert cal.open_intervals_of_date(date(2026, 3, 29)) == []
    assert cal.open_intervals_of_date(date(2026, 3, 22)) == [
        (at("2026-03-22T02:30:00+01:00"), at("2026-03-22T03:10:00+01:00"))
    ]
    cal2 = OCal.from_text("Europe/Zagreb", weekend=[], working_hours=[(7, [("02:15", "02:45")])])
    assert cal2.open_intervals_of_date(date(2026, 3, 29)) == [
        (at("2026-03-29T03:15:00+02:00"), at("2026-03-29T03:45:00+02:00"))
    ]


def test_spec_10_overnight_belongs_to_its_start_date():
    # Friday 22:00-06:00 is open into Saturday; a holiday Saturday does not cut it;
    # a holiday Friday closes it.
    wh = [(5, [("22:00", "06:00")])]
    cal = OCal.from_text(working_hours=wh, holidays=[("2026-11-28", "Sat")])
    assert O.between(cal, at("2026-11-27T00:00:00+00:00"), at("2026-11-29T00:00:00+00:00")) == 8 * HOUR
    cal = OCal.from_text(working_hours=wh, holidays=[("2026-11-27", "Fri")])
    assert O.between(cal, at("2026-11-27T00:00:00+00:00"), at("2026-11-29T00:00:00+00:00")) == 0
    # and "24:00"/next-date "00:00" ends are the same instant, merging with an adjacent 00:00 start
    cal = OCal.from_text(weekend=[], working_hours=[(1, [("20:00", "24:00")]), (2, [("00:00", "02:00")])])
    assert O.add_bh(cal, at("2026-11-30T20:00:00+00:00"), 6 * HOUR) == at("2026-12-01T02:00:00+00:00")
    cal = OCal.from_text(weekend=[], working_hours=[(1, [("20:00", "00:00")]), (2, [("00:00", "02:00")])])
    assert O.add_bh(cal, at("2026-11-30T20:00:00+00:00"), 6 * HOUR) == at("2026-12-01T02:00:00+00:00")


def test_spec_10_skipped_day_apia():
    cal = OCal.from_text("Pacific/Apia", weekend=[])
    a = at("2011-12-29T10:00:00-10:00")
    one, two, three = (O.add_bd(cal, a, n) for n in (1, 2, 3))
    assert one == two == at("2011-12-31T10:00:00+14:00")
    assert three == at("2012-01-01T10:00:00+14:00")
    assert O.bd_between(cal, a, one) == 2  # the largest N with a + Nbd <= b
    assert O.bd_between(cal, one, a) == -2  # one - 1bd = 12-30 10:00 -> one again; one - 2bd = a
    assert O.add_bd(cal, one, -1) == one
    assert O.add_bd(cal, one, -2) == a


def test_calendar_validation():
    with pytest.raises(O.OracleInvalid):
        OCal.from_text(weekend=[1, 2, 3, 4, 5, 6, 7])
    with pytest.raises(O.OracleInvalid):
        OCal.from_text(working_hours=[(6, [("09:00", "17:00")])])  # weekend day
    with pytest.raises(O.OracleInvalid):
        OCal.from_text(working_hours=[(1, [("09:00", "12:00"), ("11:00", "13:00")])])
    with pytest.raises(O.OracleInvalid):
        OCal.from_text(working_hours=[(1, [("09:00", "09:00")])])
    with pytest.raises(O.OracleInvalid):
        OCal.from_text("Mars/Olympus")
    # valid: a weekday missing from working_hours has none; overnight next to a morning interval
    cal = OCal.from_text(working_hours=[(1, [("22:00", "06:00"), ("05:00", "08:00")])])
    assert cal.intervals_of_weekday(2) == ()
    with pytest.raises(O.OracleInvalid):
        O.add_bh(OCal.from_text(working_hours=[]), at("2026-11-30T10:00:00+00:00"), HOUR)


def test_parse_duration():
    P = O.parse_duration
    assert P("3bd") == ("bd", 3) and P("-2bd") == ("bd", -2) and P("1.0bd") == ("bd", 1)
    assert P("8bh") == ("bt", 8 * HOUR) and P("-90bm") == ("bt", -90 * MINUTE)
    assert P("7bh30bm") == ("bt", 7 * HOUR + 30 * MINUTE) and P("1.5bh30bm") == ("bt", 2 * HOUR)
    assert P("2d") == P("48h") == ("elapsed", 2 * DAY)
    assert P("1500") == ("elapsed", 1_500_000) and P(" +30m1h ") == ("elapsed", 90 * MINUTE)
    assert P("0.25s") == ("elapsed", 250_000)
    for bad in ("1bd4h", "1.5bd", "0.000000001h", "1h 30m", "1h-30m", "1H", ""):
        with pytest.raises((O.OracleInvalid, IndexError)):
            P(bad)


def test_range_checks_use_local_date():
    ny = OCal.from_text("America/New_York")
    with pytest.raises(O.OracleOutOfRange):
        O.compute_due(ny, datetime.fromisoformat("1900-01-01T02:00:00+00:00"), "1h")
    with pytest.raises(O.OracleOutOfRange):
        O.compute_due(OCal.from_text(), datetime.fromisoformat("2199-12-31T12:00:00+00:00"), "1bd")


# ---------------------------------------------------------------------------
# `between` by counting minutes
# ---------------------------------------------------------------------------


def is_open_by_intervals(cal: OCal, m: int) -> bool:
    """Is instant m inside any working interval of any date (unmerged)?"""
    d = O.local_date(cal.zone, m)
    return any(a <= m < b for k in range(-2, 2) for a, b in cal.open_intervals_of_date(d + timedelta(days=k)))


def is_open_by_wall_clock(cal: OCal, m: int) -> bool:
    """The same, from the local wall clock reading alone (valid where no offset change is near)."""
    wall = O.local_wall(cal.zone, m)
    for k in (-1, 0):
        d = wall.date() + timedelta(days=k)
        if not cal.is_business_day(d):
            continue
        midnight = datetime.combine(d, time(0))
        for iv in cal.intervals_of_weekday(d.isoweekday()):
            s, e = iv.wall_span()
            if midnight + timedelta(minutes=s) <= wall < midnight + timedelta(minutes=e):
                return True
    return False


@st.composite
def minute_windows(draw):
    spec, cal, start = draw(cases(allow_no_hours=True))
    a = start - start % MINUTE + draw(st.integers(-6 * 60, 6 * 60)) * MINUTE
    b = a + draw(st.integers(0, 3 * 24 * 60)) * MINUTE
    return spec, cal, a, b


@settings(max_examples=scaled(25))
@given(minute_windows())
def test_between_counts_open_minutes(w):
    spec, cal, a, b = w
    note(f"{spec!r} [{iso(a)}, {iso(b)})")
    ms = range(a, b, MINUTE)
    by_intervals = sum(is_open_by_intervals(cal, m) for m in ms) * MINUTE
    assert O.between(cal, a, b) == by_intervals
    assert O.between(cal, b, a) == -by_intervals
    near = [t for t in transitions(cal.zone) if a - 3 * DAY <= t <= b + 3 * DAY]
    if not near:
        assert sum(is_open_by_wall_clock(cal, m) for m in ms) * MINUTE == by_intervals


@settings(max_examples=scaled(25))
@given(st.data())
def test_between_counts_open_minutes_across_transitions(data):
    zone = data.draw(st.sampled_from([z for z in ZONES if transitions(z)]))
    t = data.draw(st.sampled_from(transitions(zone)))
    anchor = t - t % MINUTE
    spec = data.draw(calendar_specs(zone, anchor, allow_no_hours=True))
    cal = OCal.from_text(**spec)
    a = anchor - data.draw(st.integers(0, 36 * 60)) * MINUTE
    b = anchor + data.draw(st.integers(0, 36 * 60)) * MINUTE
    ms = range(a, b, MINUTE)
    assert O.between(cal, a, b) == sum(is_open_by_intervals(cal, m) for m in ms) * MINUTE


@settings(max_examples=scaled(25))
@given(st.data())
def test_between_counts_open_minutes_around_skipped_dates(data):
    spec, cal, start = data.draw(cases(skipped=True, allow_no_hours=True))
    a = start - start % MINUTE - data.draw(st.integers(0, 36 * 60)) * MINUTE
    b = start - start % MINUTE + data.draw(st.integers(0, 36 * 60)) * MINUTE
    assert O.between(cal, a, b) == sum(is_open_by_intervals(cal, m) for m in range(a, b, MINUTE)) * MINUTE


# ---------------------------------------------------------------------------
# add_bh / add_bd / bd_between against their definitions
# ---------------------------------------------------------------------------


@settings(max_examples=scaled(40))
@given(st.data())
def test_add_bh_is_earliest_or_latest(data):
    spec, cal, start = data.draw(cases())
    text, n = data.draw(bt_durations(cal))
    t = O.add_bh(cal, start, n)
    note(f"{spec!r} {iso(start)} {text} -> {iso(t)}")
    assert O.between(cal, start, t) == n
    if n > 0:
        assert t > start and O.between(cal, start, t - 1) == n - 1  # earliest: one µs less is short
    else:
        assert t < start and O.between(cal, start, t + 1) == n + 1  # latest


@settings(max_examples=scaled(40))
@given(st.data())
def test_add_bd_counts_business_days(data):
    spec, cal, start = data.draw(cases(allow_no_hours=True))
    n = data.draw(st.integers(-30, 30))
    t = O.add_bd(cal, start, n)
    d0 = O.local_date(cal.zone, start)
    wall0 = O.local_wall(cal.zone, start)
    if n == 0:
        assert t == start
        return
    # the due date is a business day with exactly |n| - 1 business days strictly between
    d, t0 = O.bd_due_date(cal, start, n)
    assert cal.is_business_day(d)
    lo, hi = (d0, d) if n > 0 else (d, d0)
    inside = [lo + timedelta(days=k) for k in range(1, (hi - lo).days)]
    assert sum(map(cal.is_business_day, inside)) == abs(n) - 1
    assert t0 == wall0.time().replace(fold=0)
    assert t == to_us(datetime.combine(d, t0, tzinfo=Z(cal.zone)).astimezone(UTC))  # fold=0 == §1


@settings(max_examples=scaled(40))
@given(st.data())
def test_bd_between_by_definition(data):
    spec, cal, a = data.draw(cases(allow_no_hours=True))
    n = data.draw(st.integers(-25, 25))
    b = O.add_bd(cal, a, n) + data.draw(st.sampled_from([0, -1, 1, -HOUR, HOUR]))
    got = O.bd_between(cal, a, b)
    if b >= a:
        assert got >= 0 and O.add_bd(cal, a, got) <= b and O.add_bd(cal, a, got + 1) > b
    else:
        assert got <= 0 and O.add_bd(cal, a, got) >= b and O.add_bd(cal, a, got - 1) < b


# ---------------------------------------------------------------------------
# §5 nominal durations
# ---------------------------------------------------------------------------


def test_spec_5_examples():
    utc = OCal.from_text()
    assert due(utc, "2026-01-31T10:00:00+00:00", "P1M") == "2026-02-28T10:00:00+00:00"
    assert due(utc, "2024-01-31T10:00:00+00:00", "P1M") == "2024-02-29T10:00:00+00:00"
    assert due(utc, "2024-03-31T10:00:00+00:00", "-P1M") == "2024-02-29T10:00:00+00:00"
    zg = OCal.from_text("Europe/Zagreb")
    # P2D across the change keeps the wall time, PT48H does not
    assert due(zg, "2026-03-28T12:00:00+01:00", "P2D") == "2026-03-30T10:00:00+00:00"
    assert due(zg, "2026-03-28T12:00:00+01:00", "PT48H") == "2026-03-30T11:00:00+00:00"
    # §4's example: P1D from Saturday 12:00+02:00 -> 12:00+01:00
    assert due(zg, "2026-10-24T12:00:00+02:00", "P1D") == "2026-10-25T11:00:00+00:00"
    # P0D / PT0S return the start unchanged even inside a fold (the later 02:30)
    later = "2026-10-25T02:30:00+01:00"
    assert due(zg, later, "P0D") == "2026-10-25T01:30:00+00:00"
    assert due(zg, later, "PT0S") == "2026-10-25T01:30:00+00:00"
    # years and months, then weeks and days, then the time part; negated in the same order
    assert due(utc, "2026-01-31T10:00:00+00:00", "P1M1DT1H") == "2026-03-01T11:00:00+00:00"
    assert due(utc, "2026-03-31T10:00:00+00:00", "-P1M1DT1H") == "2026-02-27T09:00:00+00:00"
    assert due(utc, "2026-11-27T16:00:00+00:00", "PT0.000001S") == "2026-11-27T16:00:00.000001+00:00"
    for bad in ("p1d", "P1.5D", "PT0.0000001S", "P", "PT", "P1DT"):
        with pytest.raises(O.OracleInvalid):
            O.parse_iso(bad)
