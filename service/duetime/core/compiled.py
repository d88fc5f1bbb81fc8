"""The compiled form of a business calendar: what the arithmetic walks.

A :class:`~duetime.core.calendar.Calendar` is the declaration (zone, weekend,
holidays, hours). :class:`CompiledCalendar` is built from it once (and cached
on it) and holds tables that make every question cost the same whatever span
it covers: 3 business days or 10,000, 8 business hours or 2,000.

Units
-----
*Dates* are proleptic Gregorian ordinals (``date.toordinal()``), always local
dates of the calendar's zone. *Instants* are integer µs since the Unix epoch;
*wall times* and *open time* are integer µs. No floats anywhere.

Two indexings of the week appear, and each table says which it uses:

* the *weekday index* ``w = (o - ANCHOR_MONDAY) % 7``, 0 = Monday … 6 = Sunday;
* the *residue* ``o % 7``, used by the per-start-date tables only, because it
  saves one subtraction on the hot path (``ANCHOR_MONDAY % 7 == 1``).

The weekly template
-------------------
What the weekly pattern alone says of a date (``w`` = its weekday index):

``business_by_weekday[w]``
    1 when weekday ``w`` is a business day, else 0.
``spans_by_weekday[w]``
    its working intervals as sorted ``(start, end)`` µs after the date's
    midnight (``end`` may pass 24 h for an interval running overnight).
``open_time_by_weekday[w]``
    its nominal (wall-clock) open time, µs, clipped by the previous weekday's
    overnight intervals so that open time stays a set of instants.
``business_days_per_week``, ``open_time_per_week``
    the sums over the week.
``_prefix_business_days[r]``, ``_prefix_open_time[r]`` (``r`` = 0 … 7)
    the same sums over the first ``r`` weekdays from Monday. With them, the
    template total of all dates from ``ANCHOR_MONDAY`` up to (not including)
    date ``y`` is ``q * per_week + prefix[r]`` where ``q, r = divmod(y -
    ANCHOR_MONDAY, 7)``: whole weeks skipped by one division.
``_business_day_offsets_after[o % 7][k]``
    how many dates after ``o`` its (k+1)-th template business day falls
    (1 … 7); ``_business_day_offsets_before`` likewise backwards.
``_open_time_after[o % 7][d - 1]``
    template open time of the ``d`` dates after ``o`` (``d`` = 1 … 7), a
    non-decreasing row, so one bisection finds the date within a week where
    an amount runs out; ``_open_time_before`` likewise of the dates before.

Exceptions
----------
An *exception* is a date whose status or hours differ from its template
(a holiday on a working weekday, an override, an extra working day).

``_exception_status[o]``
    ``(business 0/1, spans)`` of exception date ``o``.
``exception_dates``
    their ordinals, sorted.
``_exception_prefix_business_days[k]``, ``_exception_prefix_open_time[k]``
    (``k`` = 0 … len(exception_dates)): the sum, over the first ``k``
    exceptions, of (their business days − the template's) and of (their open
    time − the template's). So the business days of dates ``a <= o < b`` are
    the template's count plus ``prefix[bisect(b)] − prefix[bisect(a)]``.
``_business_days_before_exception[k]`` / ``_business_days_through_exception[k]``
    B(e) and B(e + 1) for exception ``e = exception_dates[k]``, where B(y) is
    the running count of business days of all dates from ``ANCHOR_MONDAY``
    before ``y`` (template plus exceptions; negative before the anchor). B only grows (a business day
    adds one, a closed date adds none), so both lists are sorted.
``_open_time_before_exception[k]`` / ``_open_time_through_exception[k]``
    N(e) and N(e + 1) for N(y), the running nominal open time; sorted too.

The fast paths use these as follows. Where the n-th business day after date
``o`` lies (:meth:`CompiledCalendar.nth_after`): the goal is B(o + 1) + n; one
bisection of ``_business_days_through_exception`` finds the first exception
by whose end the goal is reached; between the exception before it and that
one only the template counts, so one division (whole weeks) and one look-up
in ``_business_day_offsets_after`` give the date. Open time
(:meth:`CompiledCalendar.reach_after`) goes the same way with N and
``_open_time_after``, then checks the candidate with the real open time.

DST corrections
---------------
Real open time differs from nominal only next to an offset transition, or
next to an exception when some interval crosses midnight. Those dates get an
exact correction (real − nominal, µs), found per local year from the zone's
transitions (``_corrections_by_year``) and merged over the years loaded so
far into ``_loaded_corrections = (first_date, end_date, dates, running)``
for dates ``first_date <= o < end_date``: ``running[k]`` is the sum of the
first ``k`` corrections, so a range costs two bisections. The tuple is
replaced whole, so threads sharing a calendar never see half an update.

Invariants: segments of different dates never overlap (each date owns what
the two dates before it do not already cover); the open time of dates
``a <= o < b`` is nominal plus corrections, exactly; every table is built in
``__init__`` except the per-date segment cache and the corrections, which
only grow (the segment cache is cleared when it passes 2,048 dates or
:attr:`CompiledCalendar.segment_cache_bytes` estimated bytes).
"""

from __future__ import annotations

import bisect
from datetime import date
from typing import Callable, Iterable

from .durations import DAY
from .errors import OutOfRange
from .zones import (
    BLOCK_BITS,
    EPOCH_ORDINAL,
    MAX_ORDINAL,
    MIN_ORDINAL,
    UTC_BLOCKS,
    local_us_of,
    offset_us,
    resolve,
    table,
    transitions_between,
)

CHECK_EVERY = 256
"""Items a long loop handles between two calls of a cooperative ``check``
(a callable the caller passes in, e.g. a call's deadline, raising to stop
the work; the core never reads a clock itself)."""

#: An ordinal that is a Monday; weekly running totals count from it.
ANCHOR_MONDAY = date(2000, 1, 3).toordinal()

#: An open segment: ``(start, end)`` instants in µs, half-open.
Segment = tuple[int, int]

#: Most dates whose segments are kept at once.
_SEGMENT_CACHE_SIZE = 2048
#: Days either side of a date whose UTC offsets decide its DST correction
#: (its intervals reach two days on; resolving a wall time looks two more).
_SHAPE_DAYS = 6
#: Most DST-correction shapes kept at once (:meth:`CompiledCalendar._correction`).
_SHAPE_CACHE_SIZE = 4096

#: The first and last local years of the supported range.
_FIRST_YEAR = date.fromordinal(MIN_ORDINAL).year
_LAST_YEAR = date.fromordinal(MAX_ORDINAL).year

SEGMENT_CACHE_BYTES = 8 << 20
"""Default bound of one compiled calendar's per-date segment cache, in
estimated bytes (:attr:`CompiledCalendar.segment_cache_bytes`)."""
SEGMENT_BYTES = 144
"""Estimated bytes of one cached segment (a tuple of two µs instants)."""
DATE_BYTES = 200
"""Estimated bytes of one cached date's entry, its segments aside."""
_CALENDAR_BYTES = 20_000  # a calendar's fixed tables (weekly template, per-start-date rows)
_INTERVAL_BYTES = 200  # one working interval: declared, and as a span of the tables
_DATED_BYTES = 300  # one holiday, override or extra working day as declared and looked up
_EXCEPTION_BYTES = 400  # one exception date in the tables (status and six running lists)
_CORRECTION_BYTES = 150  # one DST-corrected date (per year and merged)
_CORRECTION_YEAR_BYTES = 300  # one local year of corrections looked up


def merge(segments: Iterable[Segment]) -> list[Segment]:
    """Union of half-open segments, sorted and disjoint (empty ones dropped)."""
    out: list[list[int]] = []
    for a, b in sorted(s for s in segments if s[1] > s[0]):
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return [(a, b) for a, b in out]


def subtract(segments: list[Segment], cut: list[Segment]) -> list[Segment]:
    """``segments`` minus ``cut`` (both sorted and disjoint), in one pass over
    each: O(len(segments) + len(cut))."""
    out = []
    j, n = 0, len(cut)
    for a, b in segments:
        while j < n and cut[j][1] <= a:  # cuts ending before this segment end before every later one too
            j += 1
        k = j
        while k < n and cut[k][0] < b:
            c, d = cut[k]
            if c > a:
                out.append((a, c))
            if d > a:
                a = d
            if a >= b:
                break
            k += 1
        if a < b:
            out.append((a, b))
    return out


def measure(segments: Iterable[Segment]) -> int:
    """Total length (µs) of ``segments``; they must not overlap."""
    return sum(e - s for s, e in segments)


def search_dates(
    short: Callable[[int], int],
    jump: Callable[[int, int], int],
    lo: int,
    limit: int,
    field: str,
    what: str,
    back: bool = False,
) -> int:
    """Smallest x in (lo, limit] with ``short(x) <= 0``, where ``short`` (what
    is still missing at x) is non-increasing and positive at ``lo``.

    ``jump(x, missing)`` proposes the next candidate beyond x from the weekly
    template; candidates are tried until one suffices (a few, whatever the
    amount), then the last bracket is bisected. Each try also moves at least
    twice as far as the one before, so a long closure (a season of holidays)
    costs a logarithmic number of tries. OutOfRange (on ``field``, naming
    ``what``) when even ``limit`` falls short; ``back`` names the range's start
    instead of its end.
    """
    missing = short(lo)
    hi = lo
    least = 1
    while True:
        hi = max(jump(hi, missing), hi + least)
        least *= 2
        if hi >= limit:
            hi = limit
            if short(hi) > 0:
                bound = "before the supported range's start 1900-01-01" if back else "after the supported range's end 2199-12-31"
                raise OutOfRange.at(field, f"{what} would fall {bound}")
            break
        missing = short(hi)
        if missing <= 0:
            break
        lo = hi
    if hi - lo > 1:  # a template jump lands on the first sufficient date unless exceptions intervene
        if short(hi - 1) > 0:
            return hi
        hi -= 1
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if short(mid) <= 0:
            hi = mid
        else:
            lo = mid
    return hi


class CompiledCalendar:
    """The form the arithmetic walks (built once per calendar, then cached).

    Dates are ordinals; instants and amounts are µs. The module docstring
    describes every table. ``cal`` is a :class:`~duetime.core.calendar.Calendar`
    (this module does not import it: the declaration imports its compiled
    form); ``Calendar.compiled`` builds one per calendar and caches it.
    ``check`` (None: none): called every :data:`CHECK_EVERY` exception dates
    (holidays, overrides, extra working days); what it raises stops the build.
    """

    def __init__(self, cal, check: Callable[[], None] | None = None) -> None:
        self.calendar = cal
        self.zone = cal.zone
        business = self.business_by_weekday = [0 if wd in cal.weekend else 1 for wd in range(1, 8)]
        spans = self.spans_by_weekday = [
            tuple(sorted(iv.span_us for iv in ivs)) if business[w] else () for w, ivs in enumerate(cal.working_hours)
        ]
        # extra working days take their weekday's hours, else the first weekday's that has any
        first_with_hours = next((sp for sp in spans if sp), ())
        #: Some interval (of the week or of an override) runs past midnight.
        self.crosses_midnight = any(e > DAY for sp in spans for _, e in sp) or any(
            iv.end <= iv.start for o in cal.date_overrides for iv in o.intervals
        )
        # clipped by the previous weekday's overnight intervals so that open
        # time is a set of instants (docs/semantics.md §4)
        open_time = self.open_time_by_weekday = [
            measure(subtract(merge(spans[w]), [(s - DAY, e - DAY) for s, e in spans[w - 1]])) for w in range(7)
        ]
        self.business_days_per_week = sum(business)
        self.open_time_per_week = sum(open_time)
        self._prefix_business_days = [0] * 8
        self._prefix_open_time = [0] * 8
        for w in range(7):
            self._prefix_business_days[w + 1] = self._prefix_business_days[w] + business[w]
            self._prefix_open_time[w + 1] = self._prefix_open_time[w] + open_time[w]
        # per-start-date tables, indexed by the residue ``o % 7``
        self._business_day_offsets_after: list[list[int]] = [[] for _ in range(7)]
        self._business_day_offsets_before: list[list[int]] = [[] for _ in range(7)]
        self._open_time_after: list[list[int]] = [[] for _ in range(7)]
        self._open_time_before: list[list[int]] = [[] for _ in range(7)]
        for m in range(7):
            w = (m - ANCHOR_MONDAY) % 7
            self._business_day_offsets_after[m] = [d for d in range(1, 8) if business[(w + d) % 7]]
            self._business_day_offsets_before[m] = [d for d in range(1, 8) if business[(w - d) % 7]]
            for d in range(1, 8):
                self._open_time_after[m].append(sum(open_time[(w + i) % 7] for i in range(1, d + 1)))
                self._open_time_before[m].append(sum(open_time[(w - i) % 7] for i in range(1, d + 1)))

        self.holiday_names = {h.date.toordinal(): h.name for h in cal.holidays}
        self.override_by_date = {o.date.toordinal(): o for o in cal.date_overrides}
        self.extra_working_day_names = {x.date.toordinal(): x.name for x in cal.extra_working_days}
        self._exception_status: dict[int, tuple[int, tuple[Segment, ...]]] = {}
        for k, o in enumerate(sorted(set(self.holiday_names) | set(self.override_by_date) | set(self.extra_working_day_names))):
            if check is not None and not k % CHECK_EVERY:
                check()
            w = (o - ANCHOR_MONDAY) % 7
            if o in self.override_by_date:
                ivs = self.override_by_date[o].intervals
                status = (1, tuple(sorted(iv.span_us for iv in ivs))) if ivs else (0, ())
            elif o in self.extra_working_day_names:
                status = (1, spans[w] or first_with_hours)
            else:
                status = (0, ())
            if status != (business[w], spans[w]):
                self._exception_status[o] = status
        self.exception_dates = sorted(self._exception_status)
        self._exception_prefix_business_days = [0]
        self._exception_prefix_open_time = [0]
        # nominal open time of each distinct tuple of spans, measured once (extra
        # working days share their weekday's)
        self._open_time_of_spans: dict[tuple[Segment, ...], int] = {}
        for o in self.exception_dates:
            w = (o - ANCHOR_MONDAY) % 7
            is_business, day_spans = self._exception_status[o]
            self._exception_prefix_business_days.append(
                self._exception_prefix_business_days[-1] + is_business - business[w])
            self._exception_prefix_open_time.append(
                self._exception_prefix_open_time[-1] + self._open_time_of(day_spans) - open_time[w])
        #: True when every exception closes a template business day (holidays,
        #: closed overrides); :meth:`closures` then counts them.
        self.only_closures = all(
            self._exception_status[o][0] == 0 and business[(o - ANCHOR_MONDAY) % 7] for o in self.exception_dates
        )
        # B(e), B(e + 1), N(e), N(e + 1) next to each exception e (module docstring)
        per_week_b, per_week_n = self.business_days_per_week, self.open_time_per_week
        prefix_b, prefix_n = self._prefix_business_days, self._prefix_open_time
        at = [divmod(o - ANCHOR_MONDAY, 7) for o in self.exception_dates]
        past = [divmod(o + 1 - ANCHOR_MONDAY, 7) for o in self.exception_dates]
        exc_b, exc_n = self._exception_prefix_business_days, self._exception_prefix_open_time
        self._business_days_before_exception = [q * per_week_b + prefix_b[r] + e for (q, r), e in zip(at, exc_b)]
        self._business_days_through_exception = [q * per_week_b + prefix_b[r] + e for (q, r), e in zip(past, exc_b[1:])]
        self._open_time_before_exception = [q * per_week_n + prefix_n[r] + e for (q, r), e in zip(at, exc_n)]
        self._open_time_through_exception = [q * per_week_n + prefix_n[r] + e for (q, r), e in zip(past, exc_n[1:])]

        self._corrections_by_year: dict[int, tuple[list[int], list[int]]] = {}
        self._corrections_by_shape: dict[tuple, int] = {}
        self._loaded_corrections: tuple[int, int, list[int], list[int]] = (1, 0, [], [0])
        self._segments_by_date: dict[int, list[Segment]] = {}
        #: Raw segments (:meth:`raw_segments`) of the last few dates
        #: :meth:`segments` looked at (at most 19, then emptied).
        self._raw_segments_near: dict[int, list[Segment]] = {}
        #: :meth:`instant_range` once computed, else None. A plain attribute on
        #: purpose: every due time reads it, and a plain instance attribute
        #: reads faster than a cached_property.
        self.known_instant_range: tuple[int, int] | None = None
        self._is_utc = self.zone.key == "UTC"
        self._zone_table = None if self._is_utc else table(self.zone)
        # per block of 2**BLOCK_BITS µs: the UTC offset throughout it, or None
        # near a transition (zones.QuietBlocks); "calm" blocks have a week's margin
        self._quiet_offsets = UTC_BLOCKS if self._zone_table is None else self._zone_table.quiet
        self._calm_offsets = UTC_BLOCKS if self._zone_table is None else self._zone_table.calm
        #: No date's real open time ever differs from its nominal one (UTC
        #: without overnight intervals): corrections are 0 without a look-up.
        self._never_corrected = self._is_utc and not self.crosses_midnight
        #: Some date has open time: the week, or a date override with
        #: intervals (docs/semantics.md §4: a date opened by an override is
        #: open time even where the week has none).
        self.any_open_time = self.open_time_per_week > 0 or any(
            spans for _, spans in self._exception_status.values())

    def instant_range(self) -> tuple[int, int]:
        """Instants [lo, hi) whose local date is surely inside 1900..2199: from
        the first instant of 1900-01-02 to the first of 2199-12-31 (a day of
        margin each side keeps odd offsets and folds out of the question).
        Computed on first use and kept in :attr:`known_instant_range`."""
        r = self.known_instant_range
        if r is None:
            r = self.known_instant_range = (resolve(self.zone, MIN_ORDINAL + 1, 0), resolve(self.zone, MAX_ORDINAL, 0))
        return r

    # ---- the zone (docs/semantics.md §1), with the one-look-up fast path of zones.QuietBlocks
    def local_of(self, us: int) -> tuple[int, int]:
        """Local (date ordinal, µs of day) of instant ``us`` in the calendar's zone."""
        off = self._quiet_offsets[us >> BLOCK_BITS]
        if off is None:  # a transition within a day: the year's table
            off = self._zone_table.offset_in_year(us)
        days, rest = divmod(us + off, DAY)
        return days + EPOCH_ORDINAL, rest

    def resolve(self, o: int, us_of_day: int) -> int:
        """The instant of local date ``o`` at wall time ``us_of_day`` (docs/semantics.md §1:
        gap → forward by its length, fold → the earlier); as :func:`zones.resolve`."""
        local = (o - EPOCH_ORDINAL) * DAY + us_of_day
        off = self._quiet_offsets[local >> BLOCK_BITS]
        if off is not None:
            return local - off
        return self._zone_table.resolve(local)

    def calm_at(self, t: int) -> bool:
        """True when no offset transition falls within a week of instant ``t``
        (False only says that one may)."""
        return self._calm_offsets[t >> BLOCK_BITS] is not None

    def transition_near(self, a: int, b: int) -> bool:
        """Whether the zone's UTC offset changes at some instant in ``[a, b)``
        (quiet blocks answer a span of days without a search)."""
        if self._zone_table is None:
            return False
        quiet = self._quiet_offsets
        k, last = a >> BLOCK_BITS, (b - 1) >> BLOCK_BITS
        if b <= a or last - k >= 8:
            return self._zone_table.has_transition(a, b)
        while k <= last:
            if quiet[k] is None:
                return bool(self._zone_table.transitions(a, b))
            k += 1
        return False

    # ---- status of one date -------------------------------------------
    def weekday_index(self, o: int) -> int:
        """0 = Monday … 6 = Sunday."""
        return (o - ANCHOR_MONDAY) % 7

    def is_business_day(self, o: int) -> bool:
        """docs/semantics.md §3 with the precedence of §4: override > extra day > holiday > weekend."""
        st = self._exception_status.get(o)
        return bool(st[0]) if st is not None else bool(self.business_by_weekday[(o - ANCHOR_MONDAY) % 7])

    def day_spans(self, o: int) -> tuple[Segment, ...]:
        """Working intervals of date ``o`` as (start, end) µs after its midnight."""
        st = self._exception_status.get(o)
        return st[1] if st is not None else self.spans_by_weekday[(o - ANCHOR_MONDAY) % 7]

    def closed_reason(self, o: int) -> str | None:
        """Why date ``o`` is not a business day, in words; None when it is one."""
        if self.is_business_day(o):
            return None
        if o in self.override_by_date:
            name = self.override_by_date[o].name
            return f"closed by override ({name})" if name else "closed by override"
        if o in self.holiday_names:
            name = self.holiday_names[o]
            return f"holiday ({name})" if name else "holiday"
        return "weekend"

    def has_hours(self) -> bool:
        """Whether any date has open time: the week's working hours, or a
        date override's intervals (docs/semantics.md §4). Business-time
        arithmetic asks more: a week with working hours (``open_time_per_week``)."""
        return self.any_open_time

    def share_shapes(self, interned: dict[tuple, tuple], shapes: dict[tuple, int]) -> None:
        """Use the span tuples of ``interned`` for equal ones of this calendar
        (adding its own) and ``shapes`` as its cache of DST corrections, which
        is keyed by the spans' identity (:meth:`_correction`): calendars that
        share both measure each shape of a DST change once between them."""
        self.spans_by_weekday = [interned.setdefault(sp, sp) for sp in self.spans_by_weekday]
        self._exception_status = {o: (kind, interned.setdefault(sp, sp))
                                  for o, (kind, sp) in self._exception_status.items()}
        self._corrections_by_shape = shapes

    def last_week_has_hours(self) -> bool:
        """Whether the week in force at the end of the range (2199) has
        working hours, so that an opening always lies ahead."""
        return self.open_time_per_week > 0

    # ---- counts over date ranges [a, b) -------------------------------
    def count_business_days(self, a: int, b: int) -> int:
        """Business days among local dates ``a <= o < b`` (``a <= b``); O(log exceptions)."""
        return self._running_total_between(
            self._prefix_business_days, self.business_days_per_week, self._exception_prefix_business_days, a, b
        )

    def closures(self, a: int, b: int) -> int:
        """Template business days among ``a <= o < b`` that an exception closes
        (valid when :attr:`only_closures`)."""
        return bisect.bisect_left(self.exception_dates, b) - bisect.bisect_left(self.exception_dates, a)

    def nominal_open(self, a: int, b: int) -> int:
        """Wall-clock open time (µs) of dates ``a <= o < b``, before DST corrections."""
        return self._running_total_between(
            self._prefix_open_time, self.open_time_per_week, self._exception_prefix_open_time, a, b
        )

    def _running_total_between(self, prefix: list[int], per_week: int, exception_prefix: list[int], a: int, b: int) -> int:
        """Template total of dates ``a <= o < b`` (whole weeks by division,
        the rest from ``prefix``) plus the exceptions' differences among them."""
        qa, ra = divmod(a - ANCHOR_MONDAY, 7)
        qb, rb = divmod(b - ANCHOR_MONDAY, 7)
        dates = self.exception_dates
        return (qb - qa) * per_week + prefix[rb] - prefix[ra] + (
            exception_prefix[bisect.bisect_left(dates, b)] - exception_prefix[bisect.bisect_left(dates, a)]
        )

    # ---- the weekly template alone: where a count would land without exceptions
    def template_nth_after(self, o: int, k: int) -> int:
        """The k-th (k ≥ 1) template business day strictly after date ``o``."""
        q, r = divmod(k - 1, self.business_days_per_week)
        return o + 7 * q + self._business_day_offsets_after[o % 7][r]

    def template_nth_before(self, o: int, k: int) -> int:
        """The k-th (k ≥ 1) template business day strictly before date ``o``."""
        q, r = divmod(k - 1, self.business_days_per_week)
        return o - 7 * q - self._business_day_offsets_before[o % 7][r]

    def template_reach_after(self, o: int, amount: int) -> int:
        """The first date D > ``o`` whose template open time over (o, D] is ≥ ``amount`` µs:
        whole weeks at once, then the week's running totals (one bisection)."""
        if self.open_time_per_week <= 0:  # the week never reaches it: only dated open time can
            return MAX_ORDINAL + 1
        q, rest = divmod(amount - 1, self.open_time_per_week)
        return o + 7 * q + 1 + bisect.bisect_left(self._open_time_after[o % 7], rest + 1)

    def template_reach_before(self, o: int, amount: int) -> int:
        """The last date D < ``o`` whose template open time over [D, o) is ≥ ``amount`` µs."""
        if self.open_time_per_week <= 0:  # the week never reaches it: only dated open time can
            return MIN_ORDINAL - 1
        q, rest = divmod(amount - 1, self.open_time_per_week)
        return o - 7 * q - 1 - bisect.bisect_left(self._open_time_before[o % 7], rest + 1)

    # The forward and backward searches below (nth_after / nth_before,
    # reach_after / reach_before) stay two mirrored functions on purpose: they
    # are the hot path of every business-day and business-time answer, and
    # the mirror is not a sign flip — forward bisects the totals *through*
    # each exception with bisect_left and caps at the next exception, backward
    # bisects the totals *before* each exception with bisect_right and caps at
    # the previous one. One function with a direction would branch at each of
    # those steps, cost time on every call and hide which inequality holds.

    # ---- where a count of business days runs out (docs/semantics.md §3) -------------
    def nth_after(self, o: int, n: int) -> int:
        """The n-th (n ≥ 1) business day strictly after date ``o``, exactly,
        whatever the calendar (holidays, overrides, extra working days), at a
        cost that does not grow with n: B(y), the business days before date y,
        only grows; the answer x is the first date with B(x + 1) ≥ B(o + 1) + n.
        One bisection of B just past each exception finds the exception e_i
        before which that happens; between e_(i−1) and e_i only the weekly
        template counts, so its table gives the date (capped at e_i itself,
        an extra working day). Two bisections and two divisions in all; may
        return a date past 2199 (the caller checks)."""
        dates, exception_prefix = self.exception_dates, self._exception_prefix_business_days
        prefix, per_week = self._prefix_business_days, self.business_days_per_week
        through_exception = self._business_days_through_exception
        offsets_after = self._business_day_offsets_after
        a = o + 1
        k = bisect.bisect_left(dates, a)
        if k == len(dates):  # no exception ahead: the template alone
            q, r = divmod(n - 1, per_week)
            return o + 7 * q + offsets_after[o % 7][r]
        q, r = divmod(a - ANCHOR_MONDAY, 7)
        goal = q * per_week + prefix[r] + exception_prefix[k] + n  # B(a) + n
        if through_exception[k] >= goal:  # reached by the next exception: the template up to it
            q, r = divmod(n - 1, per_week)
            x = o + 7 * q + offsets_after[o % 7][r]
            return x if x < dates[k] else dates[k]
        i = bisect.bisect_left(through_exception, goal, k + 1)  # exceptions before i end short of the goal
        p = dates[i - 1] + 1  # from here to exception i, B(y) = template + exception_prefix[i]
        q, r = divmod(p - ANCHOR_MONDAY, 7)
        q, r = divmod(goal - exception_prefix[i] - q * per_week - prefix[r] - 1, per_week)
        x = p - 1 + 7 * q + offsets_after[(p - 1) % 7][r]
        return x if i == len(dates) or x < dates[i] else dates[i]

    def nth_before(self, o: int, m: int) -> int:
        """The m-th (m ≥ 1) business day strictly before date ``o``: the last
        date x with B(x) ≤ B(o) − m; :meth:`nth_after` mirrored."""
        dates, exception_prefix = self.exception_dates, self._exception_prefix_business_days
        prefix, per_week = self._prefix_business_days, self.business_days_per_week
        before_exception = self._business_days_before_exception
        offsets_before = self._business_day_offsets_before
        k = bisect.bisect_left(dates, o)
        if k == 0:  # no exception behind: the template alone
            q, r = divmod(m - 1, per_week)
            return o - 7 * q - offsets_before[o % 7][r]
        q, r = divmod(o - ANCHOR_MONDAY, 7)
        goal = q * per_week + prefix[r] + exception_prefix[k] - m  # B(o) − m
        if before_exception[k - 1] <= goal:  # reached before the previous exception: the template down to it
            q, r = divmod(m - 1, per_week)
            x = o - 7 * q - offsets_before[o % 7][r]
            return x if x > dates[k - 1] else dates[k - 1]
        i = bisect.bisect_right(before_exception, goal, 0, k - 1)  # exceptions before i start within the goal
        top = dates[i]  # below here, down to exception i − 1, B(y) = template + exception_prefix[i]
        q, r = divmod(top - ANCHOR_MONDAY, 7)
        q, r = divmod(q * per_week + prefix[r] + exception_prefix[i] - goal - 1, per_week)
        x = top - 7 * q - offsets_before[top % 7][r]
        return x if i == 0 or x > dates[i - 1] else dates[i - 1]

    # ---- where an amount of open time runs out (docs/semantics.md §4) ---------------
    def date_reached_after(self, first: int, left: int, field: str) -> tuple[int, int]:
        """The first date D ≥ ``first`` by whose end ``left`` µs (> 0) of open
        time have passed, and the open time of dates first … D − 1.

        :meth:`reach_after` (exact for the nominal open time, O(log
        exceptions) whatever the amount, then checked with the DST
        corrections); where corrections keep it from settling — open time
        that a fall-back makes longer than nominal, or the end of the range —
        :func:`search_dates`. OutOfRange (on ``field``) past 2199.
        """
        found = self.reach_after(first, left)
        if found is not None:
            return found
        day = search_dates(
            lambda o: left - self.open_time(first, o + 1), self.template_reach_after, first - 1, MAX_ORDINAL, field,
            "the due time",
        )
        return day, self.open_time(first, day)

    def date_reached_before(self, last: int, left: int, field: str) -> tuple[int, int]:
        """:meth:`date_reached_after` backwards: the last date D ≤ ``last``
        from whose start to the end of ``last`` lie ``left`` µs (> 0) of open
        time, and the open time of dates D + 1 … last. OutOfRange before 1900."""
        found = self.reach_before(last, left)
        if found is not None:
            return found
        k = search_dates(
            lambda k: left - self.open_time(last - k, last + 1),
            lambda k, missing: last - self.template_reach_before(last - k, missing),
            -1, last - MIN_ORDINAL, field, "the due time", back=True,
        )
        return last - k, self.open_time(last - k + 1, last + 1)

    def reach_after(self, first: int, left: int, tries: int = 6) -> tuple[int, int] | None:
        """The first date D ≥ ``first`` by whose end ``left`` µs (> 0) of open
        time have passed since the start of ``first``, with the open time of
        dates first … D − 1 (< ``left``); None when ``tries`` jumps do not
        settle it (:meth:`date_reached_after` then searches).

        The candidate is exact for the nominal open time N(y) of the dates
        before y, as in :meth:`nth_after`: one bisection of N just past each
        exception, then the weekly template's running totals — the same cost
        for 8 business hours as for 2000. The real open time up to it (DST
        corrections included) and its own segments then decide: a date is the
        answer exactly when the open time before it falls short and the one
        through it does not (open time only grows), so no other proof is
        needed; where corrections move the answer, jump on by the shortfall.
        """
        if self.open_time_per_week <= 0:  # no weekly template to jump by: the caller searches
            return None
        bisect_left = bisect.bisect_left  # a local: the loop below calls it often
        dates, exception_prefix = self.exception_dates, self._exception_prefix_open_time
        prefix, per_week = self._prefix_open_time, self.open_time_per_week
        through_exception = self._open_time_through_exception
        open_time_after = self._open_time_after
        k = bisect_left(dates, first)
        q, r = divmod(first - ANCHOR_MONDAY, 7)
        start_total = q * per_week + prefix[r] + exception_prefix[k]  # N(first)
        if k == len(dates) or through_exception[k] >= start_total + left:  # reached by the next exception: the template
            q, rest = divmod(left - 1, per_week)
            x = first + 7 * q + bisect_left(open_time_after[(first - 1) % 7], rest + 1)
            if k < len(dates) and x > dates[k]:
                x = dates[k]
        else:
            i = bisect_left(through_exception, start_total + left, k + 1)
            p = dates[i - 1] + 1  # from here to exception i, N(y) = template + exception_prefix[i]
            q, r = divmod(p - ANCHOR_MONDAY, 7)
            q, rest = divmod(start_total + left - exception_prefix[i] - q * per_week - prefix[r] - 1, per_week)
            x = p + 7 * q + bisect_left(open_time_after[(p - 1) % 7], rest + 1)
            if i < len(dates) and x > dates[i]:
                x = dates[i]
        corrected = not self._never_corrected
        for _ in range(tries):
            if x > MAX_ORDINAL:
                return None
            q, r = divmod(x - ANCHOR_MONDAY, 7)
            used = q * per_week + prefix[r] + exception_prefix[bisect_left(dates, x)] - start_total
            if corrected and x > first:  # + the corrections of dates first … x − 1 (inlined: the hot path)
                first_date, end_date, corrected_dates, running = self._loaded_corrections
                if not (first_date <= first and x <= end_date):
                    first_date, end_date, corrected_dates, running = self._load_corrections(first, x)
                if corrected_dates:
                    used += running[bisect_left(corrected_dates, x)] - running[bisect_left(corrected_dates, first)]
            if used >= left:  # more open time than the template has: an earlier date may do
                return None
            through_x = used
            for a, b in self._segments_by_date.get(x) or self.segments(x):
                through_x += b - a
            if through_x >= left:
                return x, used
            q, rest = divmod(left - through_x - 1, per_week)
            x += 7 * q + 1 + bisect_left(open_time_after[x % 7], rest + 1)
        return None

    def reach_before(self, last: int, left: int, tries: int = 6) -> tuple[int, int] | None:
        """:meth:`reach_after` backwards: the last date D ≤ ``last`` from whose
        start to the end of ``last`` lie ``left`` µs (> 0) of open time, with
        the open time of dates D + 1 … last (< ``left``); None when unsettled."""
        if self.open_time_per_week <= 0:  # no weekly template to jump by: the caller searches
            return None
        bisect_left = bisect.bisect_left  # a local: the loop below calls it often
        dates, exception_prefix = self.exception_dates, self._exception_prefix_open_time
        prefix, per_week = self._prefix_open_time, self.open_time_per_week
        before_exception = self._open_time_before_exception
        open_time_before = self._open_time_before
        end = last + 1
        k = bisect_left(dates, end)
        q, r = divmod(end - ANCHOR_MONDAY, 7)
        end_total = q * per_week + prefix[r] + exception_prefix[k]  # N(end)
        if k == 0 or before_exception[k - 1] <= end_total - left:  # reached before the previous exception: the template
            q, rest = divmod(left - 1, per_week)
            x = end - 7 * q - 1 - bisect_left(open_time_before[end % 7], rest + 1)
            if k > 0 and x < dates[k - 1]:
                x = dates[k - 1]
        else:
            i = bisect.bisect_right(before_exception, end_total - left, 0, k - 1)
            top = dates[i]  # below here, down to exception i − 1, N(y) = template + exception_prefix[i]
            q, r = divmod(top - ANCHOR_MONDAY, 7)
            q, rest = divmod(q * per_week + prefix[r] + exception_prefix[i] - (end_total - left) - 1, per_week)
            x = top - 7 * q - 1 - bisect_left(open_time_before[top % 7], rest + 1)
            if i > 0 and x < dates[i - 1]:
                x = dates[i - 1]
        corrected = not self._never_corrected
        for _ in range(tries):
            if x < MIN_ORDINAL:
                return None
            q, r = divmod(x + 1 - ANCHOR_MONDAY, 7)
            used = end_total - (q * per_week + prefix[r] + exception_prefix[bisect_left(dates, x + 1)])
            if corrected and x < last:  # + the corrections of dates x + 1 … last
                first_date, end_date, corrected_dates, running = self._loaded_corrections
                if not (first_date <= x + 1 and end <= end_date):
                    first_date, end_date, corrected_dates, running = self._load_corrections(x + 1, end)
                if corrected_dates:
                    used += running[bisect_left(corrected_dates, end)] - running[bisect_left(corrected_dates, x + 1)]
            if used >= left:
                return None
            through_x = used
            for a, b in self._segments_by_date.get(x) or self.segments(x):
                through_x += b - a
            if through_x >= left:
                return x, used
            q, rest = divmod(left - through_x - 1, per_week)
            x -= 7 * q + 1 + bisect_left(open_time_before[x % 7], rest + 1)
        return None

    def open_time(self, a: int, b: int) -> int:
        """Real open time (µs) of the segments owned by dates ``a <= o < b``:
        :meth:`nominal_open` plus the DST corrections, inlined (four bisections)."""
        if b <= a:
            return 0
        dates, exception_prefix, prefix = self.exception_dates, self._exception_prefix_open_time, self._prefix_open_time
        qa, ra = divmod(a - ANCHOR_MONDAY, 7)
        qb, rb = divmod(b - ANCHOR_MONDAY, 7)
        nominal = (qb - qa) * self.open_time_per_week + prefix[rb] - prefix[ra] + (
            exception_prefix[bisect.bisect_left(dates, b)] - exception_prefix[bisect.bisect_left(dates, a)]
        )
        if self._never_corrected:
            return nominal
        first_date, end_date, corrected_dates, running = self._loaded_corrections
        if not (first_date <= a and b <= end_date):
            first_date, end_date, corrected_dates, running = self._load_corrections(a, b)
        if not corrected_dates:
            return nominal
        return nominal + running[bisect.bisect_left(corrected_dates, b)] - running[bisect.bisect_left(corrected_dates, a)]

    # ---- exact segments -----------------------------------------------
    def raw_segments(self, o: int) -> list[Segment]:
        """Instants of date ``o``'s intervals, each endpoint resolved by docs/semantics.md §1
        on its own; an interval that a gap makes empty is dropped (docs/semantics.md §4.1)."""
        spans = self.day_spans(o)
        if not spans:
            return []
        base = local_us_of(o, 0)
        off = 0 if self._is_utc else self._zone_table.constant_offset(base - 2 * DAY, base + 4 * DAY)
        if off is not None:  # no DST change near: one offset for the whole date
            return [(base + s - off, base + e - off) for s, e in spans]
        at = self._zone_table.resolve  # resolve(zone, o, s), without its look-ups
        return merge((at(base + s), at(base + e)) for s, e in spans)

    def segments(self, o: int) -> list[Segment]:
        """Open segments owned by date ``o``: its own, minus what the two dates
        before it already cover (an overnight interval, or a DST shift), so that
        segments of different dates never overlap and add up to the open time
        of docs/semantics.md §4 (a set of instants). Cached per date."""
        cached = self._segments_by_date.get(o)
        if cached is not None:
            return cached
        raw = self._raw_segments_near
        if len(raw) > 16:
            raw.clear()
        own = raw.get(o)
        if own is None:
            own = raw[o] = self.raw_segments(o)
        if own and (self.crosses_midnight or not self._is_utc):
            # the two dates before: a walk over consecutive dates asks for each three times
            before = raw.get(o - 1)
            if before is None:
                before = raw[o - 1] = self.raw_segments(o - 1)
            two_before = raw.get(o - 2)
            if two_before is None:
                two_before = raw[o - 2] = self.raw_segments(o - 2)
            prev = merge(before + two_before)
            if prev and prev[-1][1] > own[0][0]:
                own = subtract(own, prev)
        size = DATE_BYTES + SEGMENT_BYTES * len(own)
        if size > self.segment_cache_bytes:  # a date alone over the bound is not kept
            return own
        if len(self._segments_by_date) >= _SEGMENT_CACHE_SIZE or \
                self._segment_bytes + size > self.segment_cache_bytes:
            self._segments_by_date.clear()
            self._segment_bytes = 0
        self._segments_by_date[o] = own
        self._segment_bytes += size
        return own

    # ---- memory -------------------------------------------------------
    #: The most estimated bytes the per-date segment cache holds; past it the
    #: cache starts again empty (a date whose segments alone are more is not
    #: kept). A class default; :meth:`limit_segment_cache` sets one calendar's.
    segment_cache_bytes: int = SEGMENT_CACHE_BYTES
    #: Estimated bytes the segment cache holds now.
    _segment_bytes: int = 0

    def limit_segment_cache(self, max_bytes: int) -> None:
        """Bound this calendar's per-date segment cache to ``max_bytes``
        estimated bytes (≥ 0; 0 keeps no date), dropping what it holds."""
        self.segment_cache_bytes = max_bytes
        self._segments_by_date.clear()
        self._segment_bytes = 0

    def estimated_bytes(self) -> int:
        """An estimate of the bytes this calendar holds now, its declaration
        included: the tables built once (by its intervals, dated entries and
        name characters), plus the per-date segments and DST corrections kept
        so far, which grow as dates are asked about (the segments up to
        :attr:`segment_cache_bytes`). Cheap: the tables are counted once."""
        tables = self.__dict__.get("_table_bytes")
        if tables is None:
            cal = self.calendar
            intervals = sum(len(s) for s in self.spans_by_weekday) + sum(len(d) for d in cal.working_hours) + \
                sum(len(o.intervals) for o in cal.date_overrides) + sum(len(s[1]) for s in self._exception_status.values())
            dated = len(cal.holidays) + len(cal.date_overrides) + len(cal.extra_working_days)
            names = sum(len(h.name) for h in cal.holidays) + sum(len(o.name) for o in cal.date_overrides) + \
                sum(len(x.name) for x in cal.extra_working_days)
            tables = self._table_bytes = (_CALENDAR_BYTES + _INTERVAL_BYTES * intervals + _DATED_BYTES * dated
                                          + _EXCEPTION_BYTES * len(self.exception_dates) + 4 * names)
        corrections = self._loaded_corrections[2]
        return tables + self._segment_bytes + _CORRECTION_BYTES * len(corrections) + \
            _CORRECTION_YEAR_BYTES * len(self._corrections_by_year)

    def segments_between(self, first: int, last: int) -> list[Segment]:
        """Open segments owned by dates ``first`` … ``last`` (inclusive), in time order."""
        cached = self._segments_by_date
        segs: list[Segment] = []
        for o in range(first, last + 1):
            segs.extend(cached.get(o) or self.segments(o))  # the cache read inlined: every answer comes here
        segs.sort()
        return segs

    def _nominal_open_of(self, o: int) -> int:
        """Nominal open time (µs) of date ``o`` alone."""
        st = self._exception_status.get(o)
        return self.open_time_by_weekday[(o - ANCHOR_MONDAY) % 7] if st is None else self._open_time_of(st[1])

    def _open_time_of(self, spans: tuple[Segment, ...]) -> int:
        """Wall-clock open time (µs) of one date's ``spans``, measured once per distinct tuple."""
        found = self._open_time_of_spans.get(spans)
        if found is None:
            found = self._open_time_of_spans[spans] = measure(merge(spans))
        return found

    # ---- corrections ----------------------------------------------------
    def _load_corrections(self, a: int, b: int) -> tuple[int, int, list[int], list[int]]:
        """Extend the merged corrections to cover dates ``a <= o < b`` (and
        every year between them and those already loaded); returns them."""
        y0, y1 = date.fromordinal(a).year, date.fromordinal(b - 1).year
        first_date, end_date, _, _ = self._loaded_corrections
        if first_date < end_date:
            # grow by at least the years already loaded (within the supported range), so
            # that a walk extending the range a little at a time merges a logarithmic
            # number of times, not once a step
            had0, had1 = date.fromordinal(first_date).year, date.fromordinal(end_date - 1).year
            span = had1 - had0 + 1
            if y0 < had0:
                y0 = min(y0, max(had0 - span, _FIRST_YEAR))
            if y1 > had1:
                y1 = max(y1, min(had1 + span, _LAST_YEAR))
            y0, y1 = min(y0, had0), max(y1, had1)
        corrected_dates: list[int] = []
        running = [0]
        for y in range(y0, y1 + 1):
            year_dates, year_running = self._year_corrections(y)
            base = running[-1]
            corrected_dates.extend(year_dates)
            running.extend([base + p for p in year_running[1:]])
        first_date = date(y0, 1, 1).toordinal()
        end_date = date(y1 + 1, 1, 1).toordinal() if y1 < 9999 else date(9999, 12, 31).toordinal() + 1
        loaded = self._loaded_corrections = (first_date, end_date, corrected_dates, running)
        return loaded

    def _correction(self, o: int) -> int:
        """Real minus nominal open time (µs) of date ``o``.

        The answer depends only on the intervals of ``o`` and the two dates
        before it and on the zone's offsets within :data:`_SHAPE_DAYS` days of
        ``o`` (transitions counted from ``o``'s local midnight), so it is kept
        per such *shape*: a rule that repeats every year (a Sunday 02:00
        change) is measured once, not once a year, and the cost of a span of
        years does not grow with the intervals of a day."""
        if not MIN_ORDINAL + _SHAPE_DAYS <= o <= MAX_ORDINAL - _SHAPE_DAYS:  # the zone tables' edges: measure
            return measure(self.segments(o)) - self._nominal_open_of(o)
        ref = local_us_of(o, 0)
        if self._zone_table is None:
            zone_shape: tuple = ()
        elif (calm := self._calm_offsets[ref >> BLOCK_BITS]) is not None:  # no change within a week
            zone_shape = (calm,)
        else:
            lo, hi = ref - _SHAPE_DAYS * DAY, ref + _SHAPE_DAYS * DAY
            zt = self._zone_table
            zone_shape = (zt.offset_at(lo), *((t - ref, zt.offset_at(t)) for t in zt.transitions(lo, hi)))
        # the spans by identity: each tuple lives as long as this calendar (in
        # its weekly template or its exceptions), and hashing one by value
        # would cost its length
        key = (id(self.day_spans(o)), id(self.day_spans(o - 1)), id(self.day_spans(o - 2)), zone_shape)
        found = self._corrections_by_shape.get(key)
        if found is None:
            found = measure(self.segments(o)) - self._nominal_open_of(o)
            if len(self._corrections_by_shape) >= _SHAPE_CACHE_SIZE:
                self._corrections_by_shape.clear()
            self._corrections_by_shape[key] = found
        return found

    def _year_corrections(self, year: int) -> tuple[list[int], list[int]]:
        """Dates of local ``year`` whose real open time differs from nominal,
        and the running sum of their corrections (one longer, from 0)."""
        cached = self._corrections_by_year.get(year)
        if cached is not None:
            return cached
        first = date(year, 1, 1).toordinal()
        last = date(year + 1, 1, 1).toordinal() if year < 9999 else first + 366
        affected: set[int] = set()
        for t in transitions_between(self.zone, local_us_of(first - 4, 0), local_us_of(last + 4, 0)):
            for off in (offset_us(self.zone, t - 1), offset_us(self.zone, t)):
                o = (t + off) // DAY + EPOCH_ORDINAL
                affected.update(range(o - 1, o + 3))
        if self.crosses_midnight:
            dates = self.exception_dates
            for o in dates[bisect.bisect_left(dates, first - 1) : bisect.bisect_left(dates, last)]:
                affected.update((o, o + 1))
        corrected_dates, running = [], [0]
        for o in sorted(affected):
            if first <= o < last:
                c = self._correction(o)
                if c:
                    corrected_dates.append(o)
                    running.append(running[-1] + c)
        self._corrections_by_year[year] = (corrected_dates, running)
        return corrected_dates, running
