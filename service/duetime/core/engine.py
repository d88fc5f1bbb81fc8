"""Due-time arithmetic (docs/semantics.md §2–§4): elapsed, business days, business time, ISO,
and landing rules (§15, by core.landing).

All functions here are pure: the caller supplies every instant, nothing reads
a clock or does I/O. Instants are µs since the epoch (``int``) in the
``*_us`` functions and aware ``datetime`` in the public wrappers.

Cost does not grow with the amount: the date where a count of business days
or an amount of business time runs out is found from running totals kept next
to each exception (holiday, override, extra working day) — one bisection — and
the weekly template's totals, whole weeks at once (core.compiled:
CompiledCalendar.nth_after, reach_after); DST corrections are checked once at the candidate, and only the
dates at either end are looked at one by one. Offsets come from one look-up
away from transitions (zones.QuietBlocks).
"""

from __future__ import annotations

import calendar as _stdcal
from datetime import date, datetime
from enum import Enum

from .calendar import Calendar
from .compiled import CompiledCalendar, Segment, search_dates
from .durations import DAY, Duration, DurationKind, parse_duration
from .errors import InvalidArgument, OutOfRange
from .landing import Landing, land, land_us, landing_target
from .zones import (
    EPOCH_ORDINAL,
    MAX_ORDINAL,
    MIN_ORDINAL,
    check_ordinal,
    from_us,
    local_of,
    to_us,
)

#: Version of these rules; recorded with every answer.
RULES_VERSION = "2026.1"


class AtClose(Enum):
    """Where positive business time that ends exactly at a closing is due.

    ``END_OF_WINDOW`` (default, docs/semantics.md §4): at the closing instant (Friday 17:00).
    ``NEXT_OPEN``: at the next opening (Monday 09:00), as pandas'
    CustomBusinessHour and jBPM answer. Negative amounts and other kinds of
    duration are not affected.
    """

    END_OF_WINDOW = "END_OF_WINDOW"
    NEXT_OPEN = "NEXT_OPEN"


# ---------------------------------------------------------------------------
# public API (datetime in, datetime out)


def compute_due(
    start: datetime,
    duration: str | Duration,
    calendar: Calendar,
    field: str = "duration",
    at_close: AtClose = AtClose.END_OF_WINDOW,
) -> datetime:
    """``start + duration`` under ``calendar`` (docs/semantics.md §2–§4), as an aware UTC datetime.

    ``duration`` is text (parsed by :func:`parse_duration`) or a parsed
    :class:`Duration`. Raises InvalidArgument (bad text, a calendar without
    working hours for bh/bm) or OutOfRange (a start or result outside local
    dates 1900-01-01..2199-12-31; field ``start`` or ``field``).
    """
    d = parse_duration(duration, field) if isinstance(duration, str) else duration
    return from_us(add_us(start_us(start, calendar), d, calendar.compiled, field, at_close))


def business_time_between(a: datetime, b: datetime, calendar: Calendar) -> int:
    """Open time in ``[a, b)`` in µs, negated when ``b < a`` (docs/semantics.md §4)."""
    cc = calendar.compiled
    return between_us(start_us(a, calendar, "start"), start_us(b, calendar, "end"), cc)


def bd_between(a: datetime, b: datetime, calendar: Calendar) -> int:
    """Business days from ``a`` to ``b`` (docs/semantics.md §3): the exact inverse of adding bd."""
    cc = calendar.compiled
    return bd_between_us(start_us(a, calendar, "start"), start_us(b, calendar, "end"), cc)


def start_us(start: datetime, calendar: Calendar, field: str = "start") -> int:
    if start.tzinfo is None or start.utcoffset() is None:
        raise InvalidArgument.at(field, "an instant needs a UTC offset (naive datetimes are never read as UTC or local)")
    return checked_start_us(to_us(start), calendar, field, start)


def checked_start_us(us: int, calendar: Calendar, field: str = "start",
                     shown: datetime | None = None) -> int:
    """``us`` (µs since the epoch, within ``datetime``'s range) as the
    instant a computation starts from, checked as :func:`start_us` checks
    an aware datetime: InvalidArgument / OutOfRange naming ``field`` when
    its UTC or local date lies outside the supported dates. The error shows
    ``shown`` (default: ``us`` as a UTC datetime). Returns ``us``."""
    if not _SAFE_LO <= us <= _SAFE_HI:  # days outside the range: its local date may overflow datetime
        check_ordinal(us // DAY + EPOCH_ORDINAL, field, f"{field} ({(shown or from_us(us)).isoformat()})")
    o = local_of(calendar.zone, us)[0]
    if not MIN_ORDINAL <= o <= MAX_ORDINAL:
        check_ordinal(o, field, f"{field} ({(shown or from_us(us)).isoformat()})")
    return us


# ---------------------------------------------------------------------------
# dispatch


def add_us(
    start: int, d: Duration, cc: CompiledCalendar, field: str = "duration", at_close: AtClose = AtClose.END_OF_WINDOW
) -> int:
    """``start + d`` for any kind of duration; the result is range-checked."""
    if d.is_zero:
        return start
    kind = d.kind
    if kind is _BUSINESS_DAY and not d.is_relative:
        result = add_business_days_us(start, d.days, cc, field)
    elif d.roll is not None:
        result = land_us(_unrolled_us(start, d, cc, field), d, cc, field)[2]
    elif kind is _ELAPSED:
        result = start + d.micros
    elif d.is_relative:
        result = add_relative_us(start, d, cc, field)
    elif kind is _BUSINESS_TIME:
        result = add_business_time_us(start, d.micros, cc, field)
        if at_close is AtClose.NEXT_OPEN and d.micros > 0 and not is_open_at(cc, result):
            result = first_open_at_or_after(cc, result, field)
    else:
        result = add_nominal_us(start, d, cc, field)
    r = cc.known_instant_range or cc.instant_range()
    if not r[0] <= result < r[1]:
        _check_result(result, cc, field)
    return result


_BUSINESS_DAY, _BUSINESS_TIME, _ELAPSED = DurationKind.BUSINESS_DAY, DurationKind.BUSINESS_TIME, DurationKind.ELAPSED


_SAFE_LO = (MIN_ORDINAL - 2 - EPOCH_ORDINAL) * DAY  # local dates two days beyond the range
_SAFE_HI = (MAX_ORDINAL + 2 - EPOCH_ORDINAL) * DAY


def _check_result(us: int, cc: CompiledCalendar, field: str) -> None:
    lo, hi = cc.instant_range()
    if lo <= us < hi:
        return
    if not _SAFE_LO <= us <= _SAFE_HI:  # far outside: avoid datetime overflow in local_of
        check_ordinal(MIN_ORDINAL - 1 if us < _SAFE_LO else MAX_ORDINAL + 1, field)
    o = cc.local_of(us)[0]
    if not MIN_ORDINAL <= o <= MAX_ORDINAL:
        check_ordinal(o, field)


# ---------------------------------------------------------------------------
# business days (docs/semantics.md §3): civil arithmetic on local dates, same wall time


def nth_business_day(cc: CompiledCalendar, o0: int, n: int, field: str) -> int:
    """The n-th business day strictly after (n > 0) or before (n < 0) date ``o0``.

    :meth:`CompiledCalendar.nth_after` / ``nth_before``: one bisection of the
    running count of business days next to the exceptions, then the weekly
    template (O(log exceptions), the same for 3 as for 100,000 business days).
    OutOfRange when the date falls outside 1900..2199.
    """
    if n > 0:
        x = cc.nth_after(o0, n)
        if x > MAX_ORDINAL:
            raise OutOfRange.at(field, "the due date would fall after the supported range's end 2199-12-31")
        return x
    x = cc.nth_before(o0, -n)
    if x < MIN_ORDINAL:
        raise OutOfRange.at(field, "the due date would fall before the supported range's start 1900-01-01")
    return x


def add_business_days_us(start: int, n: int, cc: CompiledCalendar, field: str = "duration") -> int:
    """``start + n bd`` (docs/semantics.md §3): n-th business day after the local date, same wall time."""
    if n == 0:
        return start
    o0, t0 = cc.local_of(start)
    o = cc.nth_after(o0, n) if n > 0 else cc.nth_before(o0, -n)
    if not MIN_ORDINAL <= o <= MAX_ORDINAL:
        o = nth_business_day(cc, o0, n, field)  # raises OutOfRange
    return cc.resolve(o, t0)


def bd_between_us(a: int, b: int, cc: CompiledCalendar) -> int:
    """docs/semantics.md §3 ``bd_between``: largest N ≥ 0 with a + N bd ≤ b (b ≥ a), or −M with
    the largest M ≥ 0 such that a − M bd ≥ b (b < a)."""
    oa, _ = cc.local_of(a)
    ob, _ = cc.local_of(b)

    def fits(k: int) -> bool:
        try:
            t = add_business_days_us(a, k, cc)
        except OutOfRange:
            return False
        return t <= b if k > 0 else t >= b

    if b >= a:
        n = cc.count_business_days(oa + 1, ob + 1)
        while fits(n + 1):
            n += 1
        while n > 0 and not fits(n):
            n -= 1
        return n
    m = cc.count_business_days(ob, oa)
    while fits(-(m + 1)):
        m += 1
    while m > 0 and not fits(-m):
        m -= 1
    return -m


def add_relative_us(start: int, d: Duration, cc: CompiledCalendar, field: str = "duration") -> int:
    """``Nbd@HH:MM`` / ``Nbd@open`` / ``Nbd@close`` (a duetime extension).

    N ≠ 0: the N-th business day after (before) the start's local date, at
    that local time (resolved by docs/semantics.md §1), or at that date's first opening or
    last closing. N = 0: the first business day on or after the start's local
    date whose target instant is still ahead of the start (strictly later), so
    ``0bd@close`` is the end of today's business, or of the next business day
    if today has none left.
    """
    o0, _ = cc.local_of(start)
    if d.days != 0:
        return _relative_target(cc, nth_business_day(cc, o0, d.days, field), d, field)
    o = o0 if cc.is_business_day(o0) else nth_business_day(cc, o0, 1, field)
    target = _relative_target(cc, o, d, field)
    if target <= start:
        target = _relative_target(cc, nth_business_day(cc, o, 1, field), d, field)
    return target


def _relative_target(cc: CompiledCalendar, o: int, d: Duration, field: str) -> int:
    return landing_target(cc, o, d, field)


def add_landed_us(start: int, d: Duration, cc: CompiledCalendar, field: str = "duration") -> Landing:
    """An elapsed or nominal duration with a landing rule (``d.roll`` set,
    docs/semantics.md §15): the unrolled due time (``start`` itself for a
    zero amount, §2's zero rule), range-checked, then rolled off a date that
    is not a business day and placed at the landing time, if any, by
    :func:`duetime.core.landing.land` (one look-up of the next or previous
    business day, whatever the amount)."""
    unrolled = _unrolled_us(start, d, cc, field)
    return land(unrolled, d, cc, field)


def _unrolled_us(start: int, d: Duration, cc: CompiledCalendar, field: str) -> int:
    if d.is_zero_amount:
        unrolled = start
    elif d.kind is _ELAPSED:
        unrolled = start + d.micros
    else:
        unrolled = add_nominal_us(start, d, cc, field)
    r = cc.known_instant_range or cc.instant_range()
    if not r[0] <= unrolled < r[1]:
        _check_result(unrolled, cc, field)
    return unrolled


# ---------------------------------------------------------------------------
# business time (docs/semantics.md §4): exact arithmetic over open segments


def _require_hours(cc: CompiledCalendar, field: str) -> None:
    if cc.open_time_per_week <= 0:  # not cc.has_hours(), one call fewer on every business-time answer
        raise InvalidArgument.at(field, "business hours/minutes need a calendar whose week has working hours")


def add_business_time_us(start: int, amount: int, cc: CompiledCalendar, field: str = "duration") -> int:
    """``start + amount`` of open time (µs, signed), docs/semantics.md §4.

    amount > 0: the earliest T ≥ start with open time in [start, T) = amount
    (work ending exactly at closing is due at closing). amount < 0: the latest
    T ≤ start with open time in [T, start) = |amount|.

    The fast walk takes dates in order. Next to a DST gap one date's intervals
    can be moved past the next date's (Samoa's skipped 2011-12-30); there the
    answer is checked against the exact measure and, if the walk's order was
    wrong, found by bisection on instants instead.
    """
    _require_hours(cc, field)
    near_start = not cc.calm_at(start) and cc.transition_near(start - 3 * DAY, start + 5 * DAY)
    t = _add_business_time_walk(start, amount, cc, field, near_start)
    if not near_start and (cc.calm_at(t) or not cc.transition_near(t - 5 * DAY, t + 3 * DAY)):
        return t
    if amount > 0 and between_us(start, t, cc) == amount and t > start and is_open_at(cc, t - 1):
        return t
    if amount < 0 and between_us(t, start, cc) == -amount and t < start and is_open_at(cc, t):
        return t
    return _add_business_time_bisect(start, amount, cc, t)


def _add_business_time_bisect(start: int, amount: int, cc: CompiledCalendar, guess: int) -> int:
    """docs/semantics.md §4 by bisection on instants with the exact measure (rare path)."""
    span = 8 * DAY
    if amount > 0:
        lo, hi = start, max(guess, start) + span
        while between_us(start, hi, cc) < amount:
            lo, hi = hi, hi + span
        while hi - lo > 1:  # smallest T with open time in [start, T) >= amount
            mid = (lo + hi) // 2
            if between_us(start, mid, cc) >= amount:
                hi = mid
            else:
                lo = mid
        return hi
    lo, hi = min(guess, start) - span, start
    while between_us(lo, start, cc) < -amount:
        lo, hi = lo - span, lo
    while hi - lo > 1:  # largest T with open time in [T, start) >= |amount|
        mid = (lo + hi) // 2
        if between_us(mid, start, cc) >= -amount:
            lo = mid
        else:
            hi = mid
    return lo


def _add_business_time_walk(start: int, amount: int, cc: CompiledCalendar, field: str, near_dst: bool = True) -> int:
    """The date-ordered walk behind :func:`add_business_time_us`: the open
    segments of the start's own dates one by one, then
    :meth:`CompiledCalendar.date_reached_after` / ``date_reached_before`` for
    the date where the amount runs out, then that
    date's segments. ``near_dst`` False promises that no offset transition
    falls within [start − 3 days, start + 5 days)."""
    o0, _ = cc.local_of(start)
    # without overnight intervals or a DST shift nearby, the two dates before
    # the start's end before its local midnight (and the date after it begins
    # after it): only dates o0, o0 + 1 (o0 − 2 … o0 backwards) can hold open
    # time next to the start, already in time order
    simple = not (near_dst or cc.crosses_midnight)
    if amount > 0:
        left = amount
        near = cc.segments(o0) + cc.segments(o0 + 1) if simple else cc.segments_between(o0 - 2, o0 + 1)
        for a, b in near:
            a = max(a, start)
            if a >= b:
                continue
            if left <= b - a:
                return a + left
            left -= b - a
        day, used = cc.date_reached_after(o0 + 2, left, field)
        left -= used
        for a, b in cc.segments(day):
            if left <= b - a:
                return a + left
            left -= b - a
        raise AssertionError("open time of the found date does not cover the remainder")  # pragma: no cover
    left = -amount
    near = cc.segments(o0 - 2) + cc.segments(o0 - 1) + cc.segments(o0) if simple else cc.segments_between(o0 - 2, o0 + 1)
    for a, b in reversed(near):
        b = min(b, start)
        if a >= b:
            continue
        if left <= b - a:
            return b - left
        left -= b - a
    day, used = cc.date_reached_before(o0 - 3, left, field)
    left -= used
    for a, b in reversed(cc.segments(day)):
        if left <= b - a:
            return b - left
        left -= b - a
    raise AssertionError("open time of the found date does not cover the remainder")  # pragma: no cover


def is_open_at(cc: CompiledCalendar, t: int) -> bool:
    """Whether instant ``t`` lies in open time (segments are half-open)."""
    o, _ = cc.local_of(t)
    return any(a <= t < b for a, b in cc.segments_between(o - 2, o + 1))


def current_segment(cc: CompiledCalendar, t: int, limit_days: int = 400) -> Segment | None:
    """The open run holding ``t``: segments that touch count as one, so a
    00:00–24:00 week is one run. An end that lies more than ``limit_days``
    dates away is reported as that far (the calendar never closes in between)."""
    if not is_open_at(cc, t):
        return None
    end = run_end(cc, t, limit_days)
    return run_start(cc, t, limit_days), end if end is not None else cc.resolve(min(cc.local_of(t)[0] + limit_days, MAX_ORDINAL), 0)


def run_start(cc: CompiledCalendar, t: int, limit_days: int = 400) -> int:
    """The opening that begins the open run holding ``t`` (``t`` must be open).

    Walks dates backward. A date's open time usually lies before a later
    date's, but not beside a skipped date (Pacific/Apia skipped 2011-12-30:
    its wall times are Saturday's, so Friday's open time may lie after
    Saturday's; docs/semantics.md §1.1). So a gap ends the walk only after two
    more dates add nothing: a date owns nothing that ends after what two
    dates later start. Segments seen before the run's start are kept until
    then, since an earlier date's segment may join them to the run."""
    o, _ = cc.local_of(t)
    start = t
    first = max(o - limit_days, MIN_ORDINAL)
    before: list[Segment] = []  # segments ending before ``start``
    gap_day = None  # the latest date with such a segment since ``start`` last moved
    for day in range(o + 1, first - 1, -1):
        if gap_day is not None and gap_day - day > 2:
            return start
        before.extend((a, b) for a, b in cc.segments(day) if a < start)
        before.sort(key=lambda s: s[1], reverse=True)
        kept = []
        for a, b in before:  # latest end first: one pass joins every segment that touches
            if a < start <= b:
                start = a
                gap_day = None
            else:
                kept.append((a, b))
        before = kept
        if before and gap_day is None:
            gap_day = day
    return start


def first_open_at_or_after(cc: CompiledCalendar, t: int, field: str = "at") -> int:
    """The earliest open instant ≥ ``t`` (``t`` itself when open).
    InvalidArgument (on ``field``) when no date has open time; OutOfRange
    when none opens after ``t`` before 2199-12-31."""
    if not cc.has_hours():
        _require_hours(cc, field)
    o, _ = cc.local_of(t)
    for a, b in cc.segments_between(o - 2, o + 1):
        if b > t:
            return max(a, t)
    first = o + 2
    day = search_dates(lambda x: 0 if cc.open_time(first, x + 1) > 0 else 1, lambda x, _: cc.template_reach_after(x, 1),
                       first - 1, MAX_ORDINAL, field, "the next opening")
    return cc.segments(day)[0][0]


def run_end(cc: CompiledCalendar, t: int, limit_days: int = 400) -> int | None:
    """The closing that ends the open run holding ``t`` (segments that touch
    count as one run), or None when it stays open ``limit_days`` dates on
    (a 24×7 calendar). ``t`` must be open."""
    o, _ = cc.local_of(t)
    end = t
    last = min(o + limit_days, MAX_ORDINAL)
    for day in range(o - 2, last + 1):
        for a, b in cc.segments(day):
            if b <= end:
                continue
            if a > end:
                return end
            end = b
    return None if end >= cc.resolve(last, 0) else end


def between_us(a: int, b: int, cc: CompiledCalendar) -> int:
    """Open time in ``[a, b)`` in µs; negated when ``b < a`` (docs/semantics.md §4)."""
    if b < a:
        return -between_us(b, a, cc)
    if b == a or not cc.has_hours():
        return 0
    oa, _ = cc.local_of(a)
    ob, _ = cc.local_of(b)

    def clipped(first: int, last: int) -> int:
        return sum(max(0, min(e, b) - max(s, a)) for s, e in cc.segments_between(first, last))

    if ob - oa <= 5:
        return clipped(oa - 2, ob + 1)
    return clipped(oa - 2, oa + 1) + cc.open_time(oa + 2, ob - 2) + clipped(ob - 2, ob + 1)


# ---------------------------------------------------------------------------
# nominal ISO 8601 durations (docs/semantics.md §2.2)


def add_nominal_us(start: int, d: Duration, cc: CompiledCalendar, field: str = "duration") -> int:
    """Years/months (clamped to month end), then weeks/days on the local date,
    same wall time resolved by docs/semantics.md §1, then the time part as elapsed time."""
    n = d.nominal
    assert n is not None
    o0, t0 = cc.local_of(start)
    day = date.fromordinal(o0)
    months = day.year * 12 + (day.month - 1) + n.years * 12 + n.months
    y, m = divmod(months, 12)
    if not 1900 <= y <= 2199:  # name the year it reaches, not the range's edge
        edge = "before the supported range's start 1900-01-01" if y < 1900 else \
            "after the supported range's end 2199-12-31"
        raise OutOfRange.at(field, f"the result falls in the year {y}, {edge}")
    dd = min(day.day, _stdcal.monthrange(y, m + 1)[1])
    o = date(y, m + 1, dd).toordinal() + n.weeks * 7 + n.days
    check_ordinal(o, field)
    if (n.years, n.months, n.weeks, n.days) == (0, 0, 0, 0):
        mid = start
    else:
        mid = cc.resolve(o, t0)
    return mid + n.time_us


__all__ = [
    "RULES_VERSION",
    "add_us",
    "bd_between",
    "bd_between_us",
    "between_us",
    "business_time_between",
    "compute_due",
    "DAY",
]
