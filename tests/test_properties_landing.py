"""Property tests of landing rules (docs/semantics.md §15) and relative
deadlines (§6): duetime.core against the oracle's date-by-date walk
(tests/oracle.py), exactly, and the rules' own promises:

* a rolled date is a business day;
* the modified conventions keep the unrolled date's month unless that month
  has no business day at all;
* without a landing time, a date that did not roll keeps the unrolled instant.

Inputs are biased to month ends (``P1M`` from the 28th–31st, starts in the
last and first days of a month), holidays next to weekends and at month
ends, DST days (starts within days of a transition of the chosen zone), odd
weekends and night shifts.

Run long:  HYPOTHESIS_PROFILE=fuzz pytest tests/test_properties_landing.py
"""

from __future__ import annotations

import functools
from datetime import date, datetime, time, timedelta, timezone
from zoneinfo import ZoneInfo

from hypothesis import given, note
from hypothesis import strategies as st

import oracle as O
from oracle import DAY, HOUR, MINUTE, SECOND, from_us, to_us

import duetime.core as core
from duetime.core.durations import parse_duration
from duetime.core.engine import add_landed_us

UTC = timezone.utc
ZONES = ["Europe/Zagreb", "America/New_York", "UTC", "Asia/Jerusalem", "Australia/Lord_Howe",
         "America/Santiago", "Pacific/Apia"]
WEEKENDS = [(6, 7), (6, 7), (5, 6), (7,), (6,), ()]
ROLLS = list(O.ROLLS)


@functools.lru_cache(maxsize=None)
def transitions(zone_key: str) -> tuple[int, ...]:
    """Instants (µs, to the hour) near which the zone's offset changes, 2000..2040."""
    z = ZoneInfo(zone_key)
    out = []
    t = datetime(2000, 1, 1, tzinfo=UTC)
    prev = t.astimezone(z).utcoffset()
    while t.year < 2041:
        n = t + timedelta(hours=6)
        o = n.astimezone(z).utcoffset()
        if o != prev:
            out.append(to_us(n))
        t, prev = n, o
    return tuple(out)


@st.composite
def calendars(draw):
    """(zone, weekend, holidays, working_hours) for both Calendar.from_text
    and OCal.from_text, and a local date near which to start."""
    zone_key = draw(st.sampled_from(ZONES))
    weekend = draw(st.sampled_from(WEEKENDS))
    # the date the trouble is near: a month end, or a DST day
    trans = transitions(zone_key)
    if trans and draw(st.booleans()):
        near = from_us(draw(st.sampled_from(trans))).astimezone(ZoneInfo(zone_key)).date()
    else:
        y, m = draw(st.integers(2000, 2039)), draw(st.integers(1, 12))
        near = date(y, m, 1) - timedelta(days=draw(st.integers(-3, 6)))
    # holidays clustered around it: month ends, next to weekends, runs of days
    offsets = draw(st.lists(st.integers(-12, 40), max_size=8))
    if draw(st.booleans()):  # a run of closed days (a closed season) reaching over a month end
        first = draw(st.integers(-20, 10))
        offsets += list(range(first, first + draw(st.integers(1, 35))))
    holidays = sorted({(near + timedelta(days=k)).isoformat() for k in offsets})
    open_days = [d for d in range(1, 8) if d not in weekend]
    kind = draw(st.sampled_from(["default", "split", "night", "late", "short"]))
    if kind == "default":
        hours = None
    elif kind == "split":
        hours = [(d, [("08:00", "12:00"), ("13:00", "17:30")]) for d in open_days]
    elif kind == "night":
        hours = [(d, [("22:00", "06:00")]) for d in open_days]
    elif kind == "late":
        hours = [(d, [("01:30", "03:00"), ("16:00", "24:00")]) for d in open_days]
    else:  # some business days have no hours (open / close refused there)
        hours = [(d, [("09:00", "17:00")]) for d in open_days[: max(1, len(open_days) - 2)]]
    return zone_key, list(weekend), [(h, "") for h in holidays], hours, near


TIMES = ["", "", "", "end", "open", "close", "00:00", "02:30", "09:00", "16:45", "23:59"]
WALLS = [0, 30, 60, 90, 120, 150, 180, 600, 1020, 1439]


@st.composite
def cases(draw):
    zone_key, weekend, holidays, hours, near = draw(calendars())
    start_date = near + timedelta(days=draw(st.integers(-35, 3)))
    minute = draw(st.one_of(st.sampled_from(WALLS), st.integers(0, 1439)))
    start = O.resolve(zone_key, datetime.combine(start_date, time(minute // 60, minute % 60)))
    start += draw(st.sampled_from([0, 0, 0, HOUR, -HOUR, 37 * SECOND]))
    amount = draw(st.sampled_from([
        "P1M", "P1M", "-P1M", "P2M", "P1Y", "P0D", "PT0S", "P1D", "-P1D", "P2W", "P3D", "P1MT2H",
        "24h", "25h", "-23h", "14d", "0", "90m", "P10D", "-P10D",
    ]))
    roll = draw(st.sampled_from(ROLLS))
    at = draw(st.sampled_from(TIMES))
    text = f"{amount}@{roll}" + (f"@{at}" if at else "")
    return zone_key, weekend, holidays, hours, start, text


def _answer(fn):
    try:
        return fn()
    except (core.InvalidArgument, O.OracleInvalid):
        return "INVALID_ARGUMENT"
    except (core.OutOfRange, O.OracleOutOfRange):
        return "OUT_OF_RANGE"


@given(cases())
def test_a_landing_rule_equals_the_oracle(case):
    zone_key, weekend, holidays, hours, start, text = case
    cal = core.Calendar.from_text(zone_key, weekend=weekend, holidays=holidays, working_hours=hours)
    ocal = O.OCal.from_text(zone_key, weekend=weekend, holidays=holidays, working_hours=hours)
    note(f"{from_us(start).astimezone(ZoneInfo(zone_key)).isoformat()} {text} in {zone_key}, weekend "
         f"{weekend}, holidays {[h for h, _ in holidays]}, hours {hours}")
    got = _answer(lambda: to_us(core.compute_due(from_us(start), text, cal)))
    expected = _answer(lambda: to_us(O.compute_due(ocal, from_us(start), text)))
    assert got == expected


@given(cases())
def test_a_rolled_date_is_a_business_day_in_the_month_when_it_can_be(case):
    zone_key, weekend, holidays, hours, start, text = case
    cal = core.Calendar.from_text(zone_key, weekend=weekend, holidays=holidays, working_hours=hours)
    ocal = O.OCal.from_text(zone_key, weekend=weekend, holidays=holidays, working_hours=hours)
    d = parse_duration(text)
    try:
        landing = add_landed_us(start, d, cal.compiled)
    except (core.InvalidArgument, core.OutOfRange):
        return
    o, final = date.fromordinal(landing.unrolled_date), date.fromordinal(landing.final_date)
    note(f"{text}: unrolled {o}, final {final}")
    assert ocal.is_business_day(final)
    if ocal.is_business_day(o):
        assert final == o
        if d.at_time is None and d.at_edge is None:
            assert landing.due == landing.unrolled
    if d.roll.value.startswith("modified") and (final.year, final.month) != (o.year, o.month):
        month = [date(o.year, o.month, 1) + timedelta(days=k) for k in range(31)]
        assert not any(ocal.is_business_day(x) for x in month if x.month == o.month)
    if d.roll.value.endswith("following") and not d.roll.value.startswith("modified"):
        assert final >= o and not any(ocal.is_business_day(o + timedelta(days=k)) for k in range((final - o).days))
    if d.roll.value == "preceding":
        assert final <= o and not any(ocal.is_business_day(o - timedelta(days=k)) for k in range((o - final).days))


@st.composite
def relative_cases(draw):
    zone_key, weekend, holidays, hours, near = draw(calendars())
    start_date = near + timedelta(days=draw(st.integers(-10, 3)))
    minute = draw(st.one_of(st.sampled_from(WALLS), st.integers(0, 1439)))
    start = O.resolve(zone_key, datetime.combine(start_date, time(minute // 60, minute % 60)))
    n = draw(st.sampled_from([0, 0, 1, 2, 5, -1, -3, 20]))
    at = draw(st.sampled_from(["end", "end", "open", "close", "00:00", "02:30", "17:00"]))
    return zone_key, weekend, holidays, hours, start, f"{n}bd@{at}"


@given(relative_cases())
def test_a_relative_deadline_equals_the_oracle(case):
    zone_key, weekend, holidays, hours, start, text = case
    cal = core.Calendar.from_text(zone_key, weekend=weekend, holidays=holidays, working_hours=hours)
    ocal = O.OCal.from_text(zone_key, weekend=weekend, holidays=holidays, working_hours=hours)
    note(f"{from_us(start).astimezone(ZoneInfo(zone_key)).isoformat()} {text} in {zone_key}, weekend "
         f"{weekend}, holidays {[h for h, _ in holidays]}, hours {hours}")
    got = _answer(lambda: to_us(core.compute_due(from_us(start), text, cal)))
    expected = _answer(lambda: to_us(O.compute_due(ocal, from_us(start), text)))
    assert got == expected


def test_the_strategies_reach_month_ends_and_rolls():
    """A few fixed cases the properties are built around, against the oracle."""
    for zone_key, start, text in [
        ("Europe/Zagreb", "2026-01-31T10:00:00+01:00", "P1M@modified-following"),
        ("Europe/Zagreb", "2026-02-28T02:30:00+01:00", "P1M@following"),   # Saturday 03-28 → Monday 03-30
        ("Europe/Zagreb", "2026-10-24T02:30:00+02:00", "P1D@following@02:30"),
        ("America/New_York", "2026-03-07T02:30:00-05:00", "P1D@preceding@end"),
    ]:
        cal = core.Calendar.from_text(zone_key)
        ocal = O.OCal.from_text(zone_key)
        s = datetime.fromisoformat(start)
        assert core.compute_due(s, text, cal) == O.compute_due(ocal, s, text), (zone_key, start, text)
