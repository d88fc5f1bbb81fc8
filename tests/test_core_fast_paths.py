"""The constant-cost paths of the core agree with their definitions.

Where a count of business days or an amount of business time runs out is
found from running totals next to the exceptions and the weekly template's
tables (``CompiledCalendar.nth_after`` / ``nth_before``, ``reach_after`` /
``reach_before``), offsets by one look-up in blocks away from transitions
(``zones.QuietBlocks``) and DST corrections from merged per-year tables. Each
is compared here, exactly, with the slow definition it replaces: a date-by-date
scan over the calendar's own segments and business days, the weekly pattern
walked day by day, and ``zoneinfo`` itself. Calendars include what the oracle
tests leave out: overrides, extra working days, long closures.
"""

from __future__ import annotations

import random
from datetime import date, datetime, timezone

import pytest

from duetime.core import Calendar
from duetime.core.compiled import ANCHOR_MONDAY
from duetime.core.durations import DAY, HOUR, MINUTE, SECOND
from duetime.core.engine import add_business_days_us, add_business_time_us
from duetime.core.zones import (
    BLOCK_BITS,
    EPOCH_ORDINAL,
    _offset_zoneinfo,
    get_zone,
    resolve_zoneinfo,
    table,
    to_us,
)

ZAGREB_HOLIDAYS = [
    (f"{y}-{md}", "") for y in range(2025, 2032)
    for md in ("01-01", "01-06", "05-01", "05-30", "06-22", "08-05", "08-15", "11-01", "11-18", "12-25", "12-26")
]
# a season of closed dates (a long closure) and a run of extra working Saturdays
CLOSED_SUMMER = [(date.fromordinal(o).isoformat(), [], True, "closed")
                 for o in range(date(2027, 6, 1).toordinal(), date(2027, 9, 15).toordinal())]
EXTRA_SATURDAYS = [(date.fromordinal(o).isoformat(), "shift")
                   for o in range(date(2027, 2, 6).toordinal(), date(2027, 5, 1).toordinal(), 7)]

CALENDARS = {
    "zagreb 9-17, holidays": Calendar.from_text(
        "Europe/Zagreb", [6, 7], ZAGREB_HOLIDAYS, [(wd, [("09:00", "17:00")]) for wd in range(1, 6)]),
    "zagreb 00:30-04:00 (DST corrections), holidays": Calendar.from_text(
        "Europe/Zagreb", [], ZAGREB_HOLIDAYS,
        [(wd, [("00:30", "04:00"), ("13:00", "17:30")]) for wd in range(1, 8) if wd != 6]
        + [(6, [("02:00", "03:30")])]),
    "new york overnight, overrides, extra days": Calendar.from_text(
        "America/New_York", [7], ZAGREB_HOLIDAYS[:30],
        [(1, [("08:00", "12:00"), ("22:00", "02:00")]), (2, [("09:00", "17:00")]), (3, [("00:00", "24:00")]),
         (4, [("01:30", "03:00")]), (5, [("12:00", "18:00")]), (6, [("10:00", "11:00")])],
        date_overrides=[("2027-03-12", [("06:00", "23:00")], False, "long"), ("2027-03-15", [], True, "shut"),
                        ("2027-11-05", [("20:00", "04:00")], False, "night")],
        extra_working_days=[("2027-03-14", "Sunday"), ("2027-11-07", "Sunday")],
    ),
    "zagreb long closure, extra saturdays": Calendar.from_text(
        "Europe/Zagreb", [6, 7], ZAGREB_HOLIDAYS, [(wd, [("08:00", "16:00")]) for wd in range(1, 6)],
        date_overrides=CLOSED_SUMMER, extra_working_days=EXTRA_SATURDAYS),
    "lord howe half-hour DST, friday short": Calendar.from_text(
        "Australia/Lord_Howe", [6, 7], [],
        [(wd, [("01:00", "03:00"), ("09:00", "17:00")]) for wd in range(1, 5)] + [(5, [("09:00", "12:00")])]),
    "utc, no holidays": Calendar.from_text("UTC", [6, 7]),
}


def measure(segs) -> int:
    return sum(b - a for a, b in segs)


def scan_after(cc, first: int, left: int) -> tuple[int, int]:
    """Date by date: the first D ≥ first by whose end ``left`` µs have passed."""
    used, o = 0, first
    while used + measure(cc.segments(o)) < left:
        used += measure(cc.segments(o))
        o += 1
    return o, used


def scan_before(cc, last: int, left: int) -> tuple[int, int]:
    used, o = 0, last
    while used + measure(cc.segments(o)) < left:
        used += measure(cc.segments(o))
        o -= 1
    return o, used


def open_time_between(cc, a: int, b: int) -> int:
    """Open time in [a, b) from the core's segments, sorted (they never overlap)."""
    oa = cc.local_of(a)[0]
    ob = cc.local_of(b)[0]
    segs = sorted(s for o in range(oa - 2, ob + 2) for s in cc.segments(o))
    return sum(max(0, min(e, b) - max(s, a)) for s, e in segs)


def walk_add(cc, start: int, amount: int) -> int:
    """docs/semantics.md §4 by the definition: the earliest T ≥ start with open time in
    [start, T) = amount (latest T ≤ start for a negative amount), from the
    sorted segments of every date in between (dates counted one by one)."""
    o0 = cc.local_of(start)[0]
    step = 1 if amount > 0 else -1
    o, seen = o0, 0
    while seen <= abs(amount):  # dates enough to hold the amount, a few more for order
        if amount > 0:
            seen += sum(max(0, b - max(a, start)) for a, b in cc.segments(o))
        else:
            seen += sum(max(0, min(b, start) - a) for a, b in cc.segments(o))
        o += step
    lo, hi = (o0 - 3, o + 3) if amount > 0 else (o - 3, o0 + 3)
    segs = sorted(s for d in range(lo, hi + 1) for s in cc.segments(d))
    left = abs(amount)
    if amount > 0:
        for a, b in segs:
            a = max(a, start)
            if a >= b:
                continue
            if left <= b - a:
                return a + left
            left -= b - a
    else:
        for a, b in reversed(segs):
            b = min(b, start)
            if a >= b:
                continue
            if left <= b - a:
                return b - left
            left -= b - a
    raise AssertionError("the scan found too little open time")  # pragma: no cover


AMOUNTS = [1, 3 * SECOND, 17 * MINUTE, HOUR, 7 * HOUR + 59 * MINUTE, 8 * HOUR, 9 * HOUR, 41 * HOUR, 48 * HOUR,
           163 * HOUR + 1, 500 * HOUR, 2000 * HOUR, 2000 * HOUR + 30 * MINUTE]


@pytest.mark.parametrize("name", sorted(CALENDARS))
def test_reach_equals_a_date_by_date_scan(name):
    cc = CALENDARS[name].compiled
    rng = random.Random(name)
    firsts = [date(2027, 3, 10).toordinal(), date(2027, 5, 28).toordinal(), date(2027, 10, 29).toordinal(),
              date(2027, 12, 23).toordinal()] + [rng.randrange(date(2026, 1, 1).toordinal(), date(2029, 1, 1).toordinal())
                                                 for _ in range(6)]
    for first in firsts:
        for left in AMOUNTS + [rng.randrange(1, 3000 * HOUR) for _ in range(4)]:
            want = scan_after(cc, first, left)
            assert cc.date_reached_after(first, left, "d") == want, (name, first, left)
            fast = cc.reach_after(first, left)
            assert fast is None or fast == want, (name, first, left)
            want = scan_before(cc, first, left)
            assert cc.date_reached_before(first, left, "d") == want, (name, first, left)
            fast = cc.reach_before(first, left)
            assert fast is None or fast == want, (name, first, left)


def test_reach_settles_without_search_on_holidays_only():
    """Holidays alone: the first candidate is the answer, whatever the amount."""
    cc = CALENDARS["zagreb 9-17, holidays"].compiled
    for first in range(date(2026, 1, 1).toordinal(), date(2027, 1, 1).toordinal(), 5):
        for left in (HOUR, 8 * HOUR, 48 * HOUR, 2000 * HOUR, 9000 * HOUR):
            assert cc.reach_after(first, left, tries=1) == scan_after(cc, first, left)
            assert cc.reach_before(first, left, tries=1) == scan_before(cc, first, left)


@pytest.mark.parametrize("name", sorted(CALENDARS))
def test_add_business_time_equals_the_definition(name):
    cc = CALENDARS[name].compiled
    rng = random.Random(name)
    zone = CALENDARS[name].zone
    starts = [to_us(datetime(2027, 3, 12, 16, tzinfo=zone)), to_us(datetime(2027, 3, 28, 2, 30, tzinfo=zone)),
              to_us(datetime(2027, 10, 31, 1, 45, tzinfo=zone)), to_us(datetime(2027, 6, 21, 9, tzinfo=zone))]
    starts += [rng.randrange(to_us(datetime(2026, 1, 1, tzinfo=timezone.utc)), to_us(datetime(2029, 1, 1, tzinfo=timezone.utc)))
               for _ in range(8)]
    for start in starts:
        for amount in (1, 30 * MINUTE, 8 * HOUR, 33 * HOUR + 1, 300 * HOUR, 2000 * HOUR):
            for signed in (amount, -amount):
                want = walk_add(cc, start, signed)
                assert add_business_time_us(start, signed, cc) == want, (name, start, signed)
                assert open_time_between(cc, min(start, want), max(start, want)) == amount


@pytest.mark.parametrize("name", sorted(CALENDARS))
def test_add_business_days_equals_counting_dates(name):
    cc = CALENDARS[name].compiled
    rng = random.Random(name)
    for j in range(25):
        start = rng.randrange(to_us(datetime(2026, 1, 1, tzinfo=timezone.utc)), to_us(datetime(2029, 1, 1, tzinfo=timezone.utc)))
        o0, t0 = cc.local_of(start)
        for n in (1, 2, 3, 5, 21, 250, -1, -3, -250) + ((10_000, -10_000) if j < 3 else ()):
            o, k = o0, abs(n)
            while k:
                o += 1 if n > 0 else -1
                k -= cc.is_business_day(o)
            assert add_business_days_us(start, n, cc) == resolve_zoneinfo(cc.zone, o, t0), (name, start, n)


def test_template_tables_equal_the_weekly_walk():
    rng = random.Random(7)
    for trial in range(200):
        weekend = rng.sample(range(1, 8), rng.randint(0, 6))
        hours = []
        for wd in range(1, 8):
            if wd not in weekend and rng.random() < 0.8:
                a = rng.randint(0, 20)
                b = rng.randint(a + 1, 24)
                hours.append((wd, [(f"{a:02d}:00", f"{b:02d}:00" if b < 24 else "24:00")]))
        if not hours:
            continue
        cc = Calendar.from_text("UTC", weekend, [], hours).compiled
        for _ in range(50):
            o = rng.randrange(700_000, 800_000)
            w = (o - ANCHOR_MONDAY) % 7
            amount = rng.randint(1, 10 * cc.open_time_per_week + 5)
            k = rng.randint(1, 60)
            for step, reach, nth in ((1, cc.template_reach_after, cc.template_nth_after),
                                     (-1, cc.template_reach_before, cc.template_nth_before)):
                d, acc = 0, 0
                while acc < amount:
                    d += 1
                    acc += cc.open_time_by_weekday[(w + step * d) % 7]
                assert reach(o, amount) == o + step * d
                d, count = 0, 0
                while count < k:
                    d += 1
                    count += cc.business_by_weekday[(w + step * d) % 7]
                assert nth(o, k) == o + step * d


def test_corrections_equal_segment_sums_across_years_loaded_in_any_order():
    # the 00:30–04:00 calendar with every autumn transition's date closed, so
    # that each year's corrections add up to minus an hour instead of cancelling
    zone = get_zone("Europe/Zagreb")
    zt = table(zone)
    autumn = sorted({datetime.fromtimestamp(t / SECOND, zone).date().isoformat()
                     for y in range(1940, 2200)
                     for t in zt.transitions(to_us(datetime(y, 7, 1, tzinfo=timezone.utc)),
                                             to_us(datetime(y, 12, 31, tzinfo=timezone.utc)))})
    base = CALENDARS["zagreb 00:30-04:00 (DST corrections), holidays"]
    cal = Calendar.from_text("Europe/Zagreb", [], [(d, "") for d in autumn],
                             [(wd, [("00:30", "04:00"), ("13:00", "17:30")]) for wd in range(1, 8) if wd != 6]
                             + [(6, [("02:00", "03:30")])])
    jan1 = [date(y, 1, 1).toordinal() for y in (2027, 2028)]
    assert cal.compiled.open_time(*jan1) == cal.compiled.nominal_open(*jan1) - HOUR
    assert base.compiled.open_time(*jan1) == base.compiled.nominal_open(*jan1)
    rng = random.Random(3)
    ranges = [(date(y0, m0, 20).toordinal(), date(y1, m1, 5).toordinal())
              for y0, m0, y1, m1 in ((2030, 3, 2030, 4), (2026, 10, 2027, 4), (1950, 3, 1951, 11), (2160, 3, 2199, 12))]
    ranges += [tuple(sorted(rng.randrange(date(1990, 1, 1).toordinal(), date(2060, 1, 1).toordinal()) for _ in range(2)))
               for _ in range(6)]
    for a, b in ranges:
        cc = type(cal.compiled)(cal)  # fresh tables each time: the years load in this range's order
        for lo, hi in [(a, b), (a - 400, a + 3), (b - 2, b + 800), (a, b)]:
            assert cc.open_time(lo, hi) == sum(measure(cc.segments(o)) for o in range(lo, hi)), (lo, hi)
    cc = cal.compiled
    spring = date(2027, 3, 28).toordinal()  # 02:00 → 03:00: the 00:30–04:00 interval an hour short
    assert measure(cc.segments(spring)) == cc.open_time_by_weekday[6] - HOUR
    assert cc.open_time(spring, spring + 1) == cc.open_time_by_weekday[6] - HOUR


ZONES = ["Europe/Zagreb", "America/New_York", "Australia/Lord_Howe", "Pacific/Apia", "America/Santiago",
         "Asia/Kolkata", "Africa/Casablanca", "Europe/Dublin", "America/St_Johns", "Pacific/Kwajalein"]


@pytest.mark.parametrize("key", ZONES)
def test_quiet_blocks_equal_zoneinfo_around_transitions_and_block_edges(key):
    zone = get_zone(key)
    zt = table(zone)
    cc = Calendar.from_text(key).compiled
    points = []
    for year in (1900, 1945, 1993, 2011, 2026, 2027, 2100, 2199):
        lo = to_us(datetime(year, 1, 1, tzinfo=timezone.utc))
        for t in zt.transitions(lo, lo + 366 * DAY) or [lo + 100 * DAY]:
            k = t >> BLOCK_BITS
            for edge in ((k - 1) << BLOCK_BITS, k << BLOCK_BITS, (k + 1) << BLOCK_BITS, (k + 2) << BLOCK_BITS):
                points += [edge - DAY, edge - 1, edge, edge + 1, edge + DAY]
            points += [t + m * 30 * MINUTE for m in range(-60, 61)] + [t - 1, t + 1]
    for us in points:
        off = _offset_zoneinfo(zone, us)
        assert zt.offset_at(us) == off, (key, us)
        o, rest = divmod(us + off, DAY)
        assert cc.local_of(us) == (o + EPOCH_ORDINAL, rest), (key, us)
        # the same numbers read as local wall times
        o, rest = divmod(us, DAY)
        assert cc.resolve(o + EPOCH_ORDINAL, rest) == resolve_zoneinfo(zone, o + EPOCH_ORDINAL, rest), (key, us)
        assert cc.transition_near(us - 3 * DAY, us + 5 * DAY) == bool(zt.transitions(us - 3 * DAY, us + 5 * DAY))
        if cc.calm_at(us):
            assert not zt.transitions(us - 7 * DAY, us + 7 * DAY)


# calendars whose real open time equals the nominal one on every date (no DST
# change inside working hours, no overnight intervals): there the candidate of
# reach_after / reach_before must be the answer itself, with no further jump
NOMINAL_EXACT = ["zagreb 9-17, holidays", "zagreb long closure, extra saturdays", "utc, no holidays"]


@pytest.mark.parametrize("name", NOMINAL_EXACT)
def test_reach_lands_on_every_date_first_time(name):
    cc = CALENDARS[name].compiled
    for first in range(date(2027, 1, 25).toordinal(), date(2027, 10, 1).toordinal(), 3):
        used = 0
        for target in range(first, first + 45):
            m = measure(cc.segments(target))
            for left in {used + 1, used + m // 2, used + m} if m else ():
                assert cc.reach_after(first, left, tries=1) == (target, used), (name, first, target, left)
            used += m
        used = 0
        for target in range(first, first - 45, -1):
            m = measure(cc.segments(target))
            for left in {used + 1, used + m // 2, used + m} if m else ():
                assert cc.reach_before(first, left, tries=1) == (target, used), (name, first, target, left)
            used += m


@pytest.mark.parametrize("name", sorted(CALENDARS))
def test_nth_business_day_lands_on_every_date(name):
    cc = CALENDARS[name].compiled
    for o in range(date(2027, 1, 20).toordinal(), date(2027, 5, 20).toordinal()):
        after = [x for x in range(o + 1, o + 200) if cc.is_business_day(x)]
        before = [x for x in range(o - 1, o - 200, -1) if cc.is_business_day(x)]
        for n in (1, 2, 3, 7, 30):
            assert cc.nth_after(o, n) == after[n - 1], (name, o, n)
            assert cc.nth_before(o, n) == before[n - 1], (name, o, n)
