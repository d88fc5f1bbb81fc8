"""Property tests: duetime.core against the independent oracle (tests/oracle.py).

Every comparison is EXACT (instants to the microsecond, durations in µs).
Inputs are biased toward trouble: starts within hours of a DST transition of the
chosen zone, exactly at or minutes from an opening/closing, holidays clustered
near the start, odd weekends (none, six days), 1–3 intervals per day, overnight
intervals, "24:00" ends, 30-minute DST (Lord Howe), midnight DST (Santiago),
whole skipped dates (Apia 2011-12-30, and Kwajalein 1993-08-21 beside the list).

Run long:  HYPOTHESIS_PROFILE=fuzz pytest tests/test_properties.py
"""

from __future__ import annotations

import functools
from datetime import datetime, timedelta, timezone
from decimal import Decimal, Inexact, localcontext
from zoneinfo import ZoneInfo

import pytest
from hypothesis import assume, given, note
from hypothesis import strategies as st

import oracle as O
from oracle import DAY, HOUR, MINUTE, SECOND, from_us, to_us


import duetime.core as core  # noqa: E402  (a missing package is a failure, never a skip)

UTC = timezone.utc
ZONES = [
    "Europe/Zagreb",
    "America/New_York",
    "Australia/Lord_Howe",
    "UTC",
    "Asia/Jerusalem",
    "America/Santiago",
    "Pacific/Apia",
    "Asia/Kolkata",
]

# ---------------------------------------------------------------------------
# Zone transitions 2000–2040 (found by scanning offsets once, cached)
# ---------------------------------------------------------------------------


@functools.lru_cache(maxsize=None)
def transitions(zone_key: str) -> tuple[int, ...]:
    """Instants (µs) at which the zone's UTC offset changes, 2000..2040.
    Daily samples, then bisection to the second."""
    z = ZoneInfo(zone_key)

    def off(sec: int):
        return from_us(sec * SECOND).astimezone(z).utcoffset()

    t = int(datetime(2000, 1, 1, tzinfo=UTC).timestamp())
    end = int(datetime(2041, 1, 1, tzinfo=UTC).timestamp())
    out = []
    prev = off(t)
    while t < end:
        n = t + 86_400
        o = off(n)
        if o != prev:
            lo, hi = t, n  # off(lo) == prev, off(hi) == o
            while hi - lo > 1:
                mid = (lo + hi) // 2
                if off(mid) == prev:
                    lo = mid
                else:
                    hi = mid
            out.append(hi * SECOND)
        t, prev = n, o
    return tuple(out)


T_2000 = to_us(datetime(2000, 1, 1, tzinfo=UTC))
T_2040 = to_us(datetime(2040, 12, 31, tzinfo=UTC))

# ---------------------------------------------------------------------------
# Strategies
# ---------------------------------------------------------------------------

zones = st.sampled_from(ZONES)


@st.composite
def anchors(draw, zone_key: str) -> int:
    """An instant near trouble: within hours of a transition, or anywhere."""
    trans = transitions(zone_key)
    if trans and draw(st.integers(0, 9)) < 7:
        t = draw(st.sampled_from(trans))
        delta = draw(
            st.one_of(
                st.integers(-8 * 60, 8 * 60).map(lambda m: m * MINUTE),
                st.integers(-8 * HOUR, 8 * HOUR),
                st.integers(-3, 3).map(lambda d: d * DAY),
            )
        )
        return t + delta
    if draw(st.booleans()):
        return draw(st.integers(T_2000, T_2040).map(lambda u: u - u % MINUTE))
    return draw(st.integers(T_2000, T_2040))


# Wall-clock minutes that tend to hit DST changes, plus round and random ones.
TROUBLE_MINUTES = [0, 30, 60, 90, 120, 150, 165, 180, 210, 240, 1320, 1380, 1410, 1439, 1440]
minute_points = st.one_of(
    st.sampled_from(TROUBLE_MINUTES),
    st.integers(0, 48).map(lambda k: k * 30),
    st.integers(0, 1440),
)


def hhmm(m: int) -> str:
    return f"{m // 60:02d}:{m % 60:02d}"


@st.composite
def _emptied_by_gap(draw, wb: int, wa: int) -> list[int]:
    """One interval starting in the gap [wb, wa) and ending before its start
    moved forward by the gap: both ends resolve after the gap, end first."""
    s = draw(st.integers(wb + 1, wa - 1))
    return [s, draw(st.integers(wa, min(1440, s + (wa - wb) - 1)))]


@st.composite
def _overlapping_after_gap(draw, wb: int, wa: int) -> list[int]:
    """Two intervals, the first ending in the gap (so moved past the second's start)."""
    x = draw(st.integers(max(0, wb - 120), wb))
    e1 = draw(st.integers(wb + 1, wa - 1))
    s2 = draw(st.integers(wa, min(1439, e1 + (wa - wb) - 1)))
    return [x, e1, s2, draw(st.integers(s2 + 1, min(1440, s2 + 120)))]


def jump_points(wb: int, wa: int, trouble: list[int], gap: bool):
    """Sorted interval end points (pairs) for the date of a jump of the wall clock
    from wb to wa (minutes of the day): from the wall times around the jump, or,
    for a gap (wa > wb), an interval the gap empties, or two intervals that
    overlap once resolved."""
    anyhow = st.sampled_from([1, 2, 2, 3]).flatmap(
        lambda k: st.lists(st.sampled_from(trouble), min_size=2 * k, max_size=2 * k, unique=True).map(sorted)
    )
    if not (gap and wa > wb + 1):
        return anyhow
    return st.one_of(anyhow, _emptied_by_gap(wb, wa), _overlapping_after_gap(wb, wa))


@st.composite
def calendar_specs(
    draw, zone_key: str, anchor: int, *, allow_no_hours: bool = False, force_trouble: bool = False, jump: int | None = None
):
    """Keyword arguments for Calendar.from_text / OCal.from_text (always valid).

    Near a transition of the zone, interval ends are drawn around the wall
    times the transition jumps between, and the weekend often leaves the
    transition's date (and the date before it) working; with force_trouble,
    always, and that date's intervals are made of those wall times only."""
    points = minute_points
    keep_working: set[int] = set()
    crafted: dict = {}
    trouble: list[int] = []
    near = [jump] if jump is not None else [t for t in transitions(zone_key) if abs(t - anchor) <= 4 * DAY]
    if near:
        t = draw(st.sampled_from(near))
        before = O.local_wall(zone_key, t - SECOND) + timedelta(seconds=1)
        after = O.local_wall(zone_key, t)
        wb, wa = before.hour * 60 + before.minute, after.hour * 60 + after.minute
        trouble = {wb, wa, (wb + wa) // 2}
        for k in (1, 15, 30, 45):
            trouble |= {wb - k, wb + k, wa - k, wa + k}
        trouble = sorted({m % 1440 for m in trouble} | ({1440} if 0 in trouble else set()))
        points = st.one_of(st.sampled_from(trouble), minute_points)
        if force_trouble or draw(st.booleans()):
            keep_working = {after.isoweekday(), (after - timedelta(days=1)).isoweekday()}
            if force_trouble or draw(st.booleans()):  # that date's intervals all start/end around the jump
                gap = after > before and after.date() == before.date()
                crafted = {after.isoweekday(): jump_points(wb, wa, trouble, gap)}
    weekend = draw(
        st.one_of(
            st.just(None),
            st.just([]),
            st.sets(st.integers(1, 7), max_size=6).map(sorted),
            st.sets(st.integers(1, 7), min_size=6, max_size=6).map(sorted),
        )
    )
    if keep_working and (weekend is None or keep_working & set(weekend)):
        weekend = sorted(({6, 7} if weekend is None else set(weekend)) - keep_working)
    wk = {6, 7} if weekend is None else set(weekend)
    working_hours = None
    if draw(st.sampled_from([True, True, True, True, False])):
        plain: dict[int, list[tuple[int, int]]] = {}
        overnight: dict[int, int] = {}  # weekday -> overnight start
        for w in range(1, 8):
            if w in wk:
                continue
            if w in crafted:
                pts = draw(crafted[w])
            else:
                k = draw(st.sampled_from([0, 1, 1, 1, 2, 2, 3]))
                pts = sorted(draw(st.lists(points, min_size=2 * k, max_size=2 * k, unique=True)))
            plain[w] = [(pts[2 * i], pts[2 * i + 1]) for i in range(len(pts) // 2)]
            last_end = pts[-1] if pts else 0
            if last_end < 1439 and draw(st.integers(0, 2)) == 0:
                overnight[w] = draw(st.integers(last_end + 1 if pts else 1, 1439))
        ivs: dict[int, list[tuple[int, int]]] = {w: list(v) for w, v in plain.items()}
        for w, s in overnight.items():
            nxt = w % 7 + 1
            nxt_starts = [a for a, _ in plain.get(nxt, [])] + ([overnight[nxt]] if nxt in overnight else [])
            hi = min([s - 1] + nxt_starts)
            e = draw(st.one_of(st.integers(0, hi), st.just(min(hi, 360)), st.sampled_from([m for m in trouble if m <= hi] or [0])))
            ivs[w].append((s, e))
        if not allow_no_hours and not any(ivs.values()):
            some = draw(st.sampled_from(sorted(set(range(1, 8)) - wk)))
            ivs[some] = [(9 * 60, 17 * 60)]
        working_hours = []
        for w in draw(st.permutations(sorted(ivs))):
            lst = [(hhmm(a), hhmm(b)) for a, b in ivs[w]]
            if len(lst) > 1 and draw(st.integers(0, 4)) == 0:
                lst = draw(st.permutations(lst))
            if lst or draw(st.booleans()):
                working_hours.append((w, lst))
    # Holidays clustered near the anchor's local date.
    d0 = O.local_date(zone_key, anchor)
    offs = draw(
        st.sets(
            st.one_of(st.integers(-3, 3), st.integers(-10, 40)),
            max_size=7,
        )
    )
    holidays = [((d0 + timedelta(days=k)).isoformat(), f"H{k}") for k in sorted(offs)]
    time_zone = None if zone_key == "UTC" and draw(st.booleans()) else zone_key
    return dict(time_zone=time_zone, weekend=weekend, holidays=holidays, working_hours=working_hours)


@st.composite
def starts(draw, ocal: O.OCal, anchor: int) -> int:
    """The anchor, or an opening/closing near it, nudged by nothing, 1 µs, or minutes."""
    kind = draw(st.integers(0, 2))
    if kind == 0:
        return anchor
    d = O.local_date(ocal.zone, anchor)
    ends = []
    for k in range(-2, 3):
        for a, b in ocal.open_intervals_of_date(d + timedelta(days=k)):
            ends += [a, b]
    if not ends:
        return anchor
    e = draw(st.sampled_from(ends))
    nudge = draw(
        st.one_of(
            st.just(0),
            st.sampled_from([-1, 1, -MINUTE, MINUTE, -HOUR, HOUR]),
            st.integers(-15, 15).map(lambda m: m * MINUTE),
            st.integers(-15 * MINUTE, 15 * MINUTE),
        )
    )
    return e + nudge


@st.composite
def as_datetime(draw, instant: int, zone_key: str) -> datetime:
    """The instant as an aware datetime in UTC, in the zone, or at a fixed offset."""
    k = draw(st.integers(0, 2))
    dt = from_us(instant)
    if k == 1:
        return dt.astimezone(ZoneInfo(zone_key))
    if k == 2:
        off = draw(st.integers(-14 * 60, 14 * 60))
        return dt.astimezone(timezone(timedelta(minutes=off)))
    return dt


TRANSITION_ZONES = [z for z in ZONES if z not in ("UTC", "Asia/Kolkata")]
# Whole local dates that never happened (§10 "Skipped days"): the wall clock
# jumped from the end of one date to the start of the day after the next.
SKIPPED_DATES = [
    ("Pacific/Apia", to_us(datetime(2011, 12, 30, 10, tzinfo=UTC))),  # 2011-12-30
    ("Pacific/Kwajalein", to_us(datetime(1993, 8, 21, 12, tzinfo=UTC))),  # 1993-08-21
]


@st.composite
def cases(draw, *, allow_no_hours: bool = False, trouble: bool | None = None, skipped: bool = False):
    """(calendar spec, oracle calendar, start instant µs).

    trouble=True: always within 12 h of a transition, with that date's working
    intervals made of the wall times around the jump (gaps that empty an
    interval, intervals that overlap once resolved, folds); None: either.
    skipped=True: within 3 days of a date that never happened."""
    if skipped:
        zone_key, jump = draw(st.sampled_from(SKIPPED_DATES))
        anchor = jump + draw(st.integers(-3 * 24 * 60, 3 * 24 * 60)) * MINUTE
        spec = draw(calendar_specs(zone_key, anchor, allow_no_hours=allow_no_hours, force_trouble=True, jump=jump))
        ocal = O.OCal.from_text(**spec)
        return spec, ocal, draw(starts(ocal, anchor))
    if trouble is None:
        trouble = draw(st.integers(0, 2)) == 0
    if trouble:
        zone_key = draw(st.sampled_from(TRANSITION_ZONES))
        anchor = draw(st.sampled_from(transitions(zone_key))) + draw(st.integers(-12 * 60, 12 * 60)) * MINUTE
    else:
        zone_key = draw(zones)
        anchor = draw(anchors(zone_key))
    spec = draw(calendar_specs(zone_key, anchor, allow_no_hours=allow_no_hours, force_trouble=trouble))
    ocal = O.OCal.from_text(**spec)
    start = draw(starts(ocal, anchor))
    return spec, ocal, start


def dec_text(us: int, unit_us: int) -> str:
    """Exact decimal text of us/unit_us (must terminate)."""
    with localcontext() as ctx:
        ctx.prec = 200
        ctx.traps[Inexact] = True  # a non-terminating quotient raises
        q = Decimal(us) / Decimal(unit_us)
        return format(q.normalize(), "f")


def weekly_open_minutes(ocal: O.OCal) -> int:
    total = 0
    for w in range(1, 8):
        if w in ocal.weekend:
            continue
        for iv in ocal.intervals_of_weekday(w):
            a, b = iv.wall_span()
            total += b - a
    return total


@st.composite
def bt_durations(draw, ocal: O.OCal, start: int | None = None):
    """(text, signed µs) of a business-time duration, 1 µs .. a few hundred hours,
    capped at ~20 weeks of the calendar's open time so the oracle stays quick.
    Given the start, sometimes exactly the open time to an opening or closing
    near it (due exactly at a closing, or back exactly to an opening)."""
    cap = max(MINUTE, weekly_open_minutes(ocal) * MINUTE * 20)
    if start is not None and draw(st.integers(0, 3)) == 0:
        ends = sorted({e for seg in ocal.open_segments(start - 8 * DAY, start + 8 * DAY) for e in seg} - {start})
        if ends:
            e = draw(st.sampled_from(ends))
            us = O.between(ocal, start, e) + draw(st.sampled_from([0, 0, 0, -3, 3]))
            if us != 0 and us % 3 == 0:
                text = ("-" if us < 0 else draw(st.sampled_from(["", "+"]))) + f"{dec_text(abs(us), MINUTE)}bm"
                assert O.parse_duration(text) == ("bt", us), (text, us)
                return text, us
    kind = draw(st.integers(0, 6))
    if kind == 0:  # whole hours
        n = draw(st.integers(1, max(1, min(300, cap // HOUR))))
        text, us = f"{n}bh", n * HOUR
    elif kind == 1:  # whole minutes
        n = draw(st.integers(1, max(1, min(5000, cap // MINUTE))))
        text, us = f"{n}bm", n * MINUTE
    elif kind == 2:  # compound
        h = draw(st.integers(0, max(0, min(200, cap // HOUR))))
        m = draw(st.integers(1, 59))
        text, us = (f"{h}bh{m}bm" if draw(st.booleans()) else f"{m}bm{h}bh"), h * HOUR + m * MINUTE
    elif kind == 3:  # tiny, µs level (multiples of 3 µs have exact decimal minutes)
        us = 3 * draw(st.integers(1, 2000))
        text = f"{dec_text(us, MINUTE)}bm"
    elif kind == 4:  # anything (multiple of 3 µs)
        us = 3 * draw(st.integers(1, max(1, cap // 3)))
        text = f"{dec_text(us, MINUTE)}bm"
    elif kind == 5:  # decimal hours
        q = draw(st.sampled_from([Decimal("0.5"), Decimal("1.5"), Decimal("7.5"), Decimal("0.25"), Decimal("0.001")]))
        n = draw(st.integers(0, 40))
        val = q + n
        us = int(val * HOUR)
        text = f"{format(val.normalize(), 'f')}bh"
    else:  # exactly one interval's worth or 1 µs
        us = draw(st.sampled_from([9, 18, HOUR, 8 * HOUR, 24 * HOUR]))
        text = f"{dec_text(us, HOUR)}bh"
    if us > cap:  # too much for a sparse calendar: re-express within the cap
        us = cap - cap % 3
        text = f"{dec_text(us, MINUTE)}bm"
    sign = draw(st.sampled_from(["", "", "-", "+"]))
    if sign == "-":
        us = -us
    text = sign + text
    assert O.parse_duration(text) == ("bt", us), (text, us)
    return text, us


elapsed_durations = st.one_of(
    st.integers(-60, 60).map(lambda n: (f"{n}d", n * DAY)),
    st.integers(-2000, 2000).map(lambda n: (f"{n}h", n * HOUR)),
    st.integers(-10**7, 10**9).map(lambda n: (f"{n}", n * 1000)),
    st.integers(-10**6, 10**6).map(lambda n: (f"{n}ms", n * 1000)),
    st.integers(-10**6, 10**6).map(lambda n: (f"{n}s", n * SECOND)),
    st.integers(-9, 9).map(lambda n: (f"{n}w", n * 7 * DAY)),
    st.tuples(st.integers(0, 99), st.integers(0, 59)).map(lambda t: (f"{t[0]}h{t[1]}m", t[0] * HOUR + t[1] * MINUTE)),
    st.tuples(st.integers(0, 9), st.integers(0, 23)).map(lambda t: (f"-{t[0]}d{t[1]}h", -(t[0] * DAY + t[1] * HOUR))),
    st.integers(0, 10**6).map(lambda n: (f"{dec_text(n * 250_000, SECOND)}s", n * 250_000)),
    st.integers(0, 1000).map(lambda n: (f"{dec_text(n * 30 * MINUTE, HOUR)}h", n * 30 * MINUTE)),
)

bd_counts = st.one_of(st.integers(-5, 5), st.integers(-60, 60))

# ---------------------------------------------------------------------------
# Comparing
# ---------------------------------------------------------------------------


def core_calendar(spec):
    return core.Calendar.from_text(**spec)


def outcome(fn):
    """('ok', value) or ('invalid',) / ('range',) for the rules' error kinds."""
    invalid = (O.OracleInvalid,) + ((core.InvalidArgument,) if core else ())
    out_of_range = (O.OracleOutOfRange,) + ((core.OutOfRange,) if core else ())
    try:
        return ("ok", fn())
    except invalid as e:
        return ("invalid", str(e))
    except out_of_range as e:
        return ("range", str(e))


def show(zone_key: str, us: int) -> str:
    return f"{from_us(us).isoformat()} = {from_us(us).astimezone(ZoneInfo(zone_key)).isoformat()}"


def assert_same_instant(got, want_us: int, zone_key: str, what: str):
    assert isinstance(got, datetime) and got.tzinfo is not None, f"{what}: core returned {got!r}"
    assert got.utcoffset() == timedelta(0), f"{what}: core result not in UTC: {got!r}"
    assert to_us(got) == want_us, f"{what}: core {show(zone_key, to_us(got))} != oracle {show(zone_key, want_us)}"


def compare_due(spec, ocal, start_dt, text):
    """compute_due core vs oracle: same instant, or the same kind of error."""
    want = outcome(lambda: to_us(O.compute_due(ocal, start_dt, text)))
    cal = core_calendar(spec)
    got = outcome(lambda: core.compute_due(start_dt, text, cal))
    note(f"calendar={spec!r}")
    note(f"start={start_dt.isoformat()} ({show(ocal.zone, to_us(start_dt))}) duration={text!r}")
    note(f"oracle={want[0]} {show(ocal.zone, want[1]) if want[0] == 'ok' else want[1]}")
    note(f"core={got[0]} {got[1]!r}")
    assert got[0] == want[0], f"core {got} vs oracle {want}"
    if want[0] == "ok":
        assert_same_instant(got[1], want[1], ocal.zone, f"{start_dt.isoformat()} + {text}")
    return want


# ---------------------------------------------------------------------------
# Properties
# ---------------------------------------------------------------------------


@given(st.data())
def test_add_business_time_equals_oracle(data):
    spec, ocal, start = data.draw(cases())
    text, _us = data.draw(bt_durations(ocal, start))
    start_dt = data.draw(as_datetime(start, ocal.zone))
    compare_due(spec, ocal, start_dt, text)


@given(st.data())
def test_add_business_days_equals_oracle(data):
    spec, ocal, start = data.draw(cases(allow_no_hours=True))
    n = data.draw(bd_counts)
    text = data.draw(st.sampled_from([f"{n}bd", f"{n}bd" if n < 0 else f"+{n}bd", f"{n}.0bd"]))
    start_dt = data.draw(as_datetime(start, ocal.zone))
    compare_due(spec, ocal, start_dt, text)


@given(st.data())
def test_business_time_between_equals_oracle(data):
    spec, ocal, a = data.draw(cases(allow_no_hours=True))
    how = data.draw(st.integers(0, 2))
    if how == 0:
        b = data.draw(starts(ocal, a))
    elif how == 1:
        b = a + data.draw(st.one_of(st.integers(-3 * DAY, 3 * DAY), st.integers(-40, 40).map(lambda d: d * DAY)))
    else:
        b = a + data.draw(st.integers(-5, 5))
    a_dt = data.draw(as_datetime(a, ocal.zone))
    b_dt = data.draw(as_datetime(b, ocal.zone))
    want = O.between(ocal, a, b)
    cal = core_calendar(spec)
    got = core.business_time_between(a_dt, b_dt, cal)
    note(f"calendar={spec!r}\na={show(ocal.zone, a)}\nb={show(ocal.zone, b)}")
    assert type(got) is int, repr(got)
    assert got == want, f"core {got} µs != oracle {want} µs (diff {got - want})"


@given(st.data())
def test_between_inverts_add_business_time(data):
    """docs/semantics.md §4: always business_time_between(s, s + Nbh) == N hours (both signs)."""
    spec, ocal, start = data.draw(cases())
    kind = data.draw(st.integers(0, 1))
    if kind == 0:
        n = data.draw(st.integers(1, max(1, min(200, weekly_open_minutes(ocal) * 20 // 60))))
        n = n * data.draw(st.sampled_from([1, -1]))
        text, us = f"{n}bh", n * HOUR
    else:
        text, us = data.draw(bt_durations(ocal, start))
    start_dt = data.draw(as_datetime(start, ocal.zone))
    cal = core_calendar(spec)
    due = core.compute_due(start_dt, text, cal)
    note(f"calendar={spec!r}\nstart={show(ocal.zone, start)} {text} -> {due!r}")
    assert core.business_time_between(start_dt, due, cal) == us
    assert O.between(ocal, start, to_us(due)) == us


@given(st.data())
def test_bd_between_equals_oracle(data):
    spec, ocal, a = data.draw(cases(allow_no_hours=True))
    how = data.draw(st.integers(0, 2))
    if how == 0:  # exactly on, or a µs/minute around, a + Nbd
        n = data.draw(st.integers(-40, 40))
        t = O.add_bd(ocal, a, n)
        b = t + data.draw(st.sampled_from([0, 0, -1, 1, -MINUTE, MINUTE, -HOUR, HOUR]))
    elif how == 1:
        b = a + data.draw(st.integers(-60 * DAY, 60 * DAY))
    else:
        b = data.draw(starts(ocal, a))
    a_dt = data.draw(as_datetime(a, ocal.zone))
    b_dt = data.draw(as_datetime(b, ocal.zone))
    want = O.bd_between(ocal, a, b)
    cal = core_calendar(spec)
    got = core.bd_between(a_dt, b_dt, cal)
    note(f"calendar={spec!r}\na={show(ocal.zone, a)}\nb={show(ocal.zone, b)}")
    assert type(got) is int, repr(got)
    assert got == want, f"core {got} != oracle {want}"


@given(st.data())
def test_bd_between_is_inverse_of_add(data):
    """§3: bd_between(a, b) is the largest N >= 0 with a + Nbd <= b (b >= a), or
    -M for the largest M with a - Mbd >= b (b < a).  With b = a + nbd (core),
    a + (result)bd lands on b itself when the direction matches, and one more
    business day goes strictly past b.  (When a + nbd == a, e.g. -1bd from the
    Saturday after Apia's skipped Friday, b >= a and the forward rule applies.)"""
    spec, ocal, a = data.draw(cases(allow_no_hours=True))
    n = data.draw(bd_counts)
    a_dt = data.draw(as_datetime(a, ocal.zone))
    cal = core_calendar(spec)
    t = core.compute_due(a_dt, f"{n}bd", cal)
    m = core.bd_between(a_dt, t, cal)
    note(f"calendar={spec!r}\na={show(ocal.zone, a)} {n}bd -> {t!r}; bd_between -> {m}")
    step = 1 if t >= a_dt else -1
    assert m * step >= 0
    back = core.compute_due(a_dt, f"{m}bd", cal)
    beyond = core.compute_due(a_dt, f"{m + step}bd", cal)
    assert (back <= t < beyond) if step > 0 else (beyond < t <= back)
    if n * step >= 0:
        assert m * step >= n * step and back == t
        if len({O.add_bd(ocal, a, k) for k in range(min(0, n) - 1, max(0, n) + 2)}) == abs(n) + 3:
            assert m == n  # no two business days share an instant: the exact inverse


@given(st.data())
def test_elapsed_units_are_plain_utc_arithmetic(data):
    spec, ocal, start = data.draw(cases(allow_no_hours=True))
    text, us = data.draw(elapsed_durations)
    start_dt = data.draw(as_datetime(start, ocal.zone))
    assert O.parse_duration(text) == ("elapsed", us)
    cal = core_calendar(spec)
    got = core.compute_due(start_dt, text, cal)
    assert_same_instant(got, start + us, ocal.zone, f"{start_dt.isoformat()} + {text}")


@given(st.data())
def test_resolve_local_equals_oracle(data):
    zone_key = data.draw(zones)
    anchor = data.draw(anchors(zone_key))
    wall = O.local_wall(zone_key, anchor)
    shift = data.draw(st.one_of(st.just(0), st.integers(-3 * HOUR, 3 * HOUR), st.integers(-180, 180).map(lambda m: m * MINUTE)))
    wall = wall + timedelta(microseconds=shift)
    want = O.resolve(zone_key, wall)
    got = core.resolve_local(wall.date(), wall.time(), ZoneInfo(zone_key))
    note(f"{zone_key} {wall}")
    assert_same_instant(got, want, zone_key, f"resolve {wall} in {zone_key}")


@given(st.data())
def test_business_time_on_a_week_without_hours_is_an_error(data):
    """§10: bh/bm arithmetic on a calendar whose week has no working hours is an error."""
    zone_key = data.draw(zones)
    weekend = data.draw(st.one_of(st.just(None), st.sets(st.integers(1, 7), max_size=6).map(sorted)))
    wk = {6, 7} if weekend is None else set(weekend)
    wh = [(w, []) for w in sorted(set(range(1, 8)) - wk) if data.draw(st.booleans())]
    spec = dict(time_zone=zone_key, weekend=weekend, working_hours=wh)
    cal = core_calendar(spec)
    start = from_us(data.draw(anchors(zone_key)))
    text = data.draw(st.sampled_from(["1bh", "-1bh", "30bm", "0.5bh"]))
    with pytest.raises(core.InvalidArgument):
        core.compute_due(start, text, cal)


# Named cases from docs/semantics.md, through the core (the oracle's own are in test_oracle_self.py).
SPEC_CASES = [
    # (spec, start, duration, expected UTC)
    (dict(time_zone="Europe/Zagreb"), "2026-11-27T16:00:00+01:00", "3bd", "2026-12-02T15:00:00+00:00"),
    (dict(), "2026-11-28T10:00:00+00:00", "2bd", "2026-12-01T10:00:00+00:00"),
    (
        dict(time_zone="Europe/Zagreb", holidays=[("2026-12-25", "Christmas"), ("2026-12-26", "St Stephen")]),
        "2026-12-24T09:00:00+01:00",
        "+1bd",
        "2026-12-28T08:00:00+00:00",
    ),
    (dict(time_zone="Europe/Zagreb", weekend=[]), "2026-03-28T02:30:00+01:00", "1bd", "2026-03-29T01:30:00+00:00"),
    (dict(time_zone="Asia/Jerusalem", weekend=[5, 6]), "2026-10-22T01:30:00+03:00", "1bd", "2026-10-24T22:30:00+00:00"),
    (dict(), "2026-11-28T10:00:00+00:00", "1bh", "2026-11-30T10:00:00+00:00"),
    (dict(), "2026-11-27T16:00:00+00:00", "1bh", "2026-11-27T17:00:00+00:00"),
    (
        dict(time_zone="Europe/Zagreb", holidays=[("2026-12-25", "Christmas"), ("2026-12-26", "St Stephen")]),
        "2026-12-24T15:00:00+01:00",
        "4bh",
        "2026-12-28T10:00:00+00:00",
    ),
    (
        dict(time_zone="Europe/Zagreb", weekend=[], working_hours=[(w, [("00:00", "24:00")]) for w in range(1, 8)]),
        "2026-10-24T12:00:00+02:00",
        "24bh",
        "2026-10-25T10:00:00+00:00",
    ),
    (
        dict(time_zone="Europe/Zagreb", weekend=[], working_hours=[(w, [("00:00", "24:00")]) for w in range(1, 8)]),
        "2026-10-24T12:00:00+02:00",
        "P1D",
        "2026-10-25T11:00:00+00:00",
    ),
    (dict(), "2026-12-01T10:00:00+00:00", "3bh", "2026-12-01T13:00:00+00:00"),
    (dict(time_zone="Pacific/Apia", weekend=[]), "2011-12-29T10:00:00-10:00", "1bd", "2011-12-30T20:00:00+00:00"),
    (dict(time_zone="Pacific/Apia", weekend=[]), "2011-12-29T10:00:00-10:00", "2bd", "2011-12-30T20:00:00+00:00"),
]


@pytest.mark.parametrize("spec,start,text,expected", SPEC_CASES)
def test_spec_examples_through_core(spec, start, text, expected):
    got = core.compute_due(datetime.fromisoformat(start), text, core_calendar(spec))
    assert got == datetime.fromisoformat(expected)
    assert got.utcoffset() == timedelta(0)


def test_spec_examples_between_through_core():
    cal = core_calendar(dict())
    sat, thu = datetime(2000, 1, 1, 12, tzinfo=UTC), datetime(1999, 12, 30, 12, tzinfo=UTC)
    assert core.bd_between(sat, thu, cal) == -2
    assert core.bd_between(thu, sat, cal) == 1
    # §7: remaining at pause is 3bh
    assert core.business_time_between(
        datetime(2026, 11, 27, 16, tzinfo=UTC), datetime(2026, 11, 30, 11, tzinfo=UTC), cal
    ) == 3 * HOUR
    apia = core_calendar(dict(time_zone="Pacific/Apia", weekend=[]))
    a = datetime(2011, 12, 29, 10, tzinfo=ZoneInfo("Pacific/Apia"))
    assert core.bd_between(a, datetime.fromisoformat("2011-12-31T10:00:00+14:00"), apia) == 2
    zg = core_calendar(dict(time_zone="Europe/Zagreb", weekend=[], working_hours=[(7, [("00:00", "02:30")])]))
    day = (datetime.fromisoformat("2026-10-25T00:00:00+02:00"), datetime.fromisoformat("2026-10-26T00:00:00+01:00"))
    assert core.business_time_between(*day, zg) == 150 * MINUTE


# ---------------------------------------------------------------------------
# Skipped dates (§10): the shifted wall times of a date that never happened
# interleave with the next date's own intervals; open time is still a set (§4)
# ---------------------------------------------------------------------------


@given(st.data())
def test_around_a_skipped_date_equals_oracle(data):
    spec, ocal, start = data.draw(cases(skipped=True))
    start_dt = data.draw(as_datetime(start, ocal.zone))
    kind = data.draw(st.integers(0, 2))
    if kind == 0:
        text, _ = data.draw(bt_durations(ocal, start))
        compare_due(spec, ocal, start_dt, text)
    elif kind == 1:
        compare_due(spec, ocal, start_dt, f"{data.draw(st.integers(-6, 6))}bd")
    else:
        b = start + data.draw(st.integers(-4 * DAY, 4 * DAY))
        cal = core_calendar(spec)
        note(f"calendar={spec!r}\na={show(ocal.zone, start)}\nb={show(ocal.zone, b)}")
        assert core.business_time_between(start_dt, from_us(b), cal) == O.between(ocal, start, b)
        assert core.bd_between(start_dt, from_us(b), cal) == O.bd_between(ocal, start, b)


# Apia skipped Friday 2011-12-30.  Its 00:30-01:00 moves to Saturday 00:30-01:00
# (+14), after Saturday's own 00:00-00:30: open time is [Sat 00:00, Sat 01:00).
APIA_SKIP = dict(
    time_zone="Pacific/Apia",
    weekend=[],
    working_hours=[(5, [("00:30", "01:00")]), (6, [("00:00", "00:30")])],
)


@pytest.mark.parametrize(
    "start,text,expected",
    [
        # Thursday 23:59-10:00: counting starts at Saturday 00:00+14:00 (10:00Z)
        ("2011-12-29T23:59:00-10:00", "1bm", "2011-12-30T10:01:00+00:00"),
        ("2011-12-29T23:59:00-10:00", "30bm", "2011-12-30T10:30:00+00:00"),
        ("2011-12-29T23:59:00-10:00", "60bm", "2011-12-30T11:00:00+00:00"),
        # backwards from Saturday 02:00+14:00: the last open minute is 00:59-01:00
        ("2011-12-31T02:00:00+14:00", "-1bm", "2011-12-30T10:59:00+00:00"),
        ("2011-12-31T02:00:00+14:00", "-31bm", "2011-12-30T10:29:00+00:00"),
        ("2012-01-02T02:00:00+14:00", "-1bm", "2011-12-30T10:59:00+00:00"),
        ("2012-01-02T02:00:00+14:00", "-31bm", "2011-12-30T10:29:00+00:00"),
        ("2012-01-02T02:00:00+14:00", "-60bm", "2011-12-30T10:00:00+00:00"),
    ],
)
def test_skipped_date_regression(start, text, expected):
    ocal = O.OCal.from_text(**APIA_SKIP)
    s = datetime.fromisoformat(start)
    assert O.compute_due(ocal, s, text) == datetime.fromisoformat(expected)  # the oracle agrees
    cal = core_calendar(APIA_SKIP)
    got = core.compute_due(s, text, cal)
    assert got == datetime.fromisoformat(expected)
    assert core.business_time_between(s, got, cal) == O.parse_duration(text)[1]


# ---------------------------------------------------------------------------
# §5 nominal ISO 8601 durations
# ---------------------------------------------------------------------------


@st.composite
def iso_durations(draw):
    y = draw(st.sampled_from([0, 0, 0, 1, 2, 10]))
    mo = draw(st.sampled_from([0, 0, 1, 2, 11, 13, 25]))
    w = draw(st.sampled_from([0, 0, 0, 1, 3]))
    d = draw(st.sampled_from([0, 0, 1, 2, 6, 30, 365]))
    h = draw(st.sampled_from([None, 0, 1, 24, 48, 1.5]))
    mi = draw(st.sampled_from([None, None, 0, 30, 90]))
    sec = draw(st.sampled_from([None, None, 0, 1, "0.000001", "7.25", 86400]))
    text = "P" + "".join(f"{v}{u}" for v, u in ((y, "Y"), (mo, "M"), (w, "W"), (d, "D")) if v)
    tpart = "".join(f"{v}{u}" for v, u in ((h, "H"), (mi, "M"), (sec, "S")) if v is not None)
    if tpart:
        text += "T" + tpart
    if text == "P":
        text = draw(st.sampled_from(["P0D", "PT0S", "P1D", "PT1H"]))
    if draw(st.booleans()):
        text = "-" + text
    return text


@given(st.data())
def test_iso_durations_equal_oracle(data):
    spec, ocal, start = data.draw(cases(allow_no_hours=True))
    if data.draw(st.integers(0, 2)) == 0:  # move to a month's end (clamping)
        wall = O.local_wall(ocal.zone, start)
        last = ((wall.replace(day=1) + timedelta(days=32)).replace(day=1) - timedelta(days=1)).day
        start = O.resolve(ocal.zone, wall.replace(day=min(data.draw(st.integers(28, 31)), last)))
    text = data.draw(iso_durations())
    p = O.parse_iso(text)
    # A gap in the rules, left out here and reported: a duration with no date part but a
    # time part, from the later instant of a fold (§2.2 read literally re-resolves
    # the unchanged wall time to the earlier instant before adding the time).
    later_in_fold = O.resolve(ocal.zone, O.local_wall(ocal.zone, start)) != start
    assume(not (later_in_fold and (p.years, p.months, p.weeks, p.days) == (0, 0, 0, 0) and p.time_us))
    start_dt = data.draw(as_datetime(start, ocal.zone))
    compare_due(spec, ocal, start_dt, text)


# ---------------------------------------------------------------------------
# Range (§1, §10): local dates 1900-01-01 .. 2199-12-31 in the calendar's zone
# ---------------------------------------------------------------------------

EDGES = [to_us(datetime(1900, 1, 1, tzinfo=UTC)), to_us(datetime(2200, 1, 1, tzinfo=UTC))]


@given(st.data())
def test_range_edges_agree(data):
    zone_key = data.draw(zones)
    edge = data.draw(st.sampled_from(EDGES))
    start = edge + data.draw(st.integers(-36 * 60, 36 * 60)) * MINUTE + data.draw(st.sampled_from([0, 0, 1, -1]))
    weekend = data.draw(st.sampled_from([None, [], [5, 6], [1, 2, 3, 4, 5, 6]]))
    spec = dict(time_zone=zone_key, weekend=weekend)
    ocal = O.OCal.from_text(**spec)
    text = data.draw(
        st.one_of(
            st.sampled_from(["0bd", "1bd", "-1bd", "2bd", "-2bd", "5bd", "-5bd", "1h", "-1h", "1d", "-1d", "0"]),
            st.sampled_from(["1bh", "-1bh", "8bh", "-8bh", "30bm", "-30bm", "P1D", "-P1D", "PT1H", "P1M", "-P1M"]),
        )
    )
    start_dt = data.draw(as_datetime(start, zone_key))
    compare_due(spec, ocal, start_dt, text)


# ---------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------


def test_limits_and_naive_instants():
    cal = core_calendar(dict())
    s = datetime(2026, 11, 27, 16, tzinfo=UTC)
    for text in ("100001bd", "-100001bd"):
        with pytest.raises(core.OutOfRange):
            core.compute_due(s, text, cal)
    # 100000bd stays in range from 1900 on a calendar with no weekend: 1900-01-02 + 100000 days
    nowk = core_calendar(dict(weekend=[]))
    a = datetime(1900, 1, 2, 9, tzinfo=UTC)
    want = O.compute_due(O.OCal.from_text(weekend=[]), a, "100000bd")
    assert want == datetime(1900, 1, 2, 9, tzinfo=UTC) + timedelta(days=100000)
    assert core.compute_due(a, "100000bd", nowk) == want
    with pytest.raises(core.InvalidArgument):
        core.compute_due(datetime(2026, 11, 27, 16), "1h", cal)  # naive: never read as UTC or local
    with pytest.raises(core.InvalidArgument):
        core.business_time_between(datetime(2026, 11, 27, 16), s, cal)
    with pytest.raises(core.InvalidArgument):
        core.bd_between(s, datetime(2026, 11, 27, 16), cal)
    with pytest.raises(core.InvalidArgument):
        core.Calendar.from_text(weekend=[1, 2, 3, 4, 5, 6, 7])
    with pytest.raises(core.InvalidArgument):
        core.Calendar.from_text(working_hours=[(6, [("09:00", "17:00")])])
    with pytest.raises(core.InvalidArgument):
        core.Calendar.from_text(working_hours=[(1, [("09:00", "12:00"), ("11:00", "13:00")])])
    with pytest.raises(core.InvalidArgument):
        core.Calendar.from_text(working_hours=[(1, [("09:00", "09:00")])])
    with pytest.raises(core.InvalidArgument):
        core.Calendar.from_text(time_zone="Mars/Olympus")
    # valid per §10: an overnight interval beside a morning one of the same weekday
    core.Calendar.from_text(working_hours=[(1, [("22:00", "06:00"), ("05:00", "08:00")])])
