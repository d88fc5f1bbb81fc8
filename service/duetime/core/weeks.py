"""Weeks that change by date (docs/semantics.md §16): the compiled form of a
calendar with week periods.

A calendar with week periods is cut, at each period's ``from`` date, into
*pieces*: piece 0 holds the calendar's own week and runs from 1900 up to the
first period; piece j (j ≥ 1) holds period j − 1's week from its ``from`` up
to the next one's (the last up to 2199). Each piece is compiled as a plain
:class:`~duetime.core.compiled.CompiledCalendar` with one weekly template and
the dated entries (holidays, overrides, extra working days) near it, so
inside a piece every count and every search is that class's fast path:
weekly running totals and bisections over the exceptions, at a cost that
does not grow with the amount.

:class:`WeekPeriodsCalendar` answers for the whole calendar by taking the
pieces in order: a count or a search crosses at most one piece per period
boundary (at most ``CalendarLimits.max_week_periods``), each piece in O(log
exceptions); it never walks dates one by one. The only dates whose open
time a piece cannot give alone are the first two of each piece (j ≥ 1):
their open segments lose what the two dates before them already cover (an
overnight interval of the previous week, §4.1), and those dates lie in the
previous piece; for them the exact segments are measured (two dates per
boundary, kept once measured).

Units as in :mod:`duetime.core.compiled`: dates are ordinals, instants and
amounts integer µs.
"""

from __future__ import annotations

import bisect
from dataclasses import replace
from typing import Callable

from .compiled import CompiledCalendar, Segment, measure
from .zones import MAX_ORDINAL, MIN_ORDINAL

#: Dates at the start of a piece whose open time the piece alone cannot give.
_EDGE = 2
#: Dated entries this many dates either side of a piece are kept in it.
_MARGIN = 3


class WeekPeriodsCalendar(CompiledCalendar):
    """A compiled calendar whose week changes by date (docs/semantics.md §16).

    ``cal`` is a :class:`~duetime.core.calendar.Calendar` with
    ``week_periods``; ``check`` as for :class:`CompiledCalendar` (called
    while each piece is built). Every public method keeps the meaning and the
    units of :class:`CompiledCalendar`'s; the status of a date is that of the
    piece holding it."""

    def __init__(self, cal, check: Callable[[], None] | None = None) -> None:
        # the zone, the dated entries' names and the per-date segment cache of
        # the whole calendar (its own week's tables are piece 0's)
        super().__init__(replace(cal, holidays=(), date_overrides=(), extra_working_days=(), week_periods=()), check)
        self.calendar = cal
        self.holiday_names = {h.date.toordinal(): h.name for h in cal.holidays}
        self.override_by_date = {o.date.toordinal(): o for o in cal.date_overrides}
        self.extra_working_day_names = {x.date.toordinal(): x.name for x in cal.extra_working_days}
        #: First date of each piece (piece 0 from before 1900).
        self.piece_starts: list[int] = [MIN_ORDINAL - 10] + [p.from_date.toordinal() for p in cal.week_periods]
        ends = self.piece_starts[1:] + [MAX_ORDINAL + 10]
        weeks = [(cal.weekend, cal.working_hours)] + [(p.weekend, p.working_hours) for p in cal.week_periods]
        self.pieces: list[CompiledCalendar] = []
        # dated entries in date order, with their ordinals: a piece takes a
        # slice found by bisection (not a scan of every entry per piece)
        dated = []
        for items in (cal.holidays, cal.date_overrides, cal.extra_working_days):
            ordered = sorted(items, key=lambda x: x.date)
            dated.append((ordered, [x.date.toordinal() for x in ordered]))

        def near(kind: int, lo: int, hi: int) -> tuple:
            ordered, ordinals = dated[kind]
            return tuple(ordered[bisect.bisect_left(ordinals, lo):bisect.bisect_left(ordinals, hi)])

        for start, end, (weekend, hours) in zip(self.piece_starts, ends, weeks):
            lo, hi = start - _MARGIN, end + _MARGIN
            piece = replace(cal, weekend=weekend, working_hours=hours, week_periods=(), holidays=near(0, lo, hi),
                            date_overrides=near(1, lo, hi), extra_working_days=near(2, lo, hi))
            self.pieces.append(CompiledCalendar(piece, check))
        self.piece_ends = ends
        # Equal weeks share their span tuples and one cache of DST corrections
        # (kept per shape, keyed by the spans' identity): a hundred periods with
        # the same hours measure each shape of a DST change once, not per period.
        interned: dict[tuple, tuple] = {}
        shapes: dict[tuple, int] = {}
        for piece in self.pieces:
            piece.share_shapes(interned, shapes)
        self.crosses_midnight = any(p.crosses_midnight for p in self.pieces)
        self.any_open_time = any(p.any_open_time for p in self.pieces)
        #: The most open time of any piece's week: 0 only when every week
        #: has no working hours (business-time arithmetic is then refused).
        self.open_time_per_week = max(p.open_time_per_week for p in self.pieces)
        self.business_days_per_week = max(p.business_days_per_week for p in self.pieces)
        self.only_closures = False
        self._never_corrected = False
        self._edge_fix: dict[int, int] = {}

    def last_week_has_hours(self) -> bool:
        return self.pieces[-1].open_time_per_week > 0

    # ---- which piece ----------------------------------------------------
    def piece_index(self, o: int) -> int:
        """Index of the piece holding date ``o``."""
        return bisect.bisect_right(self.piece_starts, o) - 1

    def piece_of(self, o: int) -> CompiledCalendar:
        """The compiled piece holding date ``o``."""
        return self.pieces[bisect.bisect_right(self.piece_starts, o) - 1]

    # ---- status of one date -------------------------------------------
    def is_business_day(self, o: int) -> bool:
        return self.piece_of(o).is_business_day(o)

    def day_spans(self, o: int) -> tuple[Segment, ...]:
        return self.piece_of(o).day_spans(o)

    def closed_reason(self, o: int) -> str | None:
        return self.piece_of(o).closed_reason(o)

    def _nominal_open_of(self, o: int) -> int:
        return self.piece_of(o)._nominal_open_of(o)

    # ---- counts over date ranges [a, b) -------------------------------
    def count_business_days(self, a: int, b: int) -> int:
        """Business days among dates ``a <= o < b``: each piece's count."""
        total = 0
        j = self.piece_index(a)
        while a < b:
            end = min(b, self.piece_ends[j])
            total += self.pieces[j].count_business_days(a, end)
            a, j = end, j + 1
        return total

    def nominal_open(self, a: int, b: int) -> int:
        total = 0
        j = self.piece_index(a) if a < b else 0
        while a < b:
            end = min(b, self.piece_ends[j])
            total += self.pieces[j].nominal_open(a, end)
            a, j = end, j + 1
        return total

    def _edge(self, o: int) -> int:
        """Real open time of date ``o`` (one of the first two of a piece)
        minus what its piece alone says of it."""
        found = self._edge_fix.get(o)
        if found is None:
            found = self._edge_fix[o] = measure(self.segments(o)) - self.piece_of(o).open_time(o, o + 1)
        return found

    def open_time(self, a: int, b: int) -> int:
        """Real open time (µs) of the segments owned by dates ``a <= o < b``:
        each piece's, plus the exact correction of the first two dates of
        every piece after the first."""
        total = 0
        j = self.piece_index(a) if a < b else 0
        while a < b:
            start, end = self.piece_starts[j], min(b, self.piece_ends[j])
            total += self.pieces[j].open_time(a, end)
            if j:
                for o in range(max(a, start), min(end, start + _EDGE)):
                    total += self._edge(o)
            a, j = end, j + 1
        return total

    # ---- the weekly template: candidates for searches --------------------
    def template_reach_after(self, o: int, amount: int) -> int:
        j = self.piece_index(o + 1)
        return min(self.pieces[j].template_reach_after(o, amount), max(self.piece_ends[j], o + 1))

    def template_reach_before(self, o: int, amount: int) -> int:
        j = self.piece_index(o - 1)
        return max(self.pieces[j].template_reach_before(o, amount), min(self.piece_starts[j] - 1, o - 1))

    def template_nth_after(self, o: int, k: int) -> int:
        return self.nth_after(o, k)

    def template_nth_before(self, o: int, k: int) -> int:
        return self.nth_before(o, k)

    # ---- where a count of business days runs out ------------------------
    def nth_after(self, o: int, n: int) -> int:
        """The n-th (n ≥ 1) business day strictly after date ``o``: the
        pieces' counts skip whole pieces, then the piece where the count
        runs out answers with its own fast path; may return a date past 2199."""
        j = self.piece_index(o + 1)
        last = len(self.pieces) - 1
        while j < last:
            piece, end = self.pieces[j], self.piece_ends[j]
            have = piece.count_business_days(o + 1, end)
            if have >= n:
                return _nth_in_piece_after(piece, o, n, end)
            n -= have
            o, j = end - 1, j + 1
        return self.pieces[last].nth_after(o, n)

    def nth_before(self, o: int, m: int) -> int:
        """The m-th (m ≥ 1) business day strictly before date ``o``."""
        j = self.piece_index(o - 1)
        while j > 0:
            piece, start = self.pieces[j], self.piece_starts[j]
            have = piece.count_business_days(start, o)
            if have >= m:
                return _nth_in_piece_before(piece, o, m, start)
            m -= have
            o, j = start, j - 1
        return self.pieces[0].nth_before(o, m)

    # ---- where an amount of open time runs out ----------------------------
    def reach_after(self, first: int, left: int, tries: int = 6) -> tuple[int, int] | None:
        return None  # date_reached_after answers piece by piece

    def reach_before(self, last: int, left: int, tries: int = 6) -> tuple[int, int] | None:
        return None

    def date_reached_after(self, first: int, left: int, field: str) -> tuple[int, int]:
        """The first date D ≥ ``first`` by whose end ``left`` µs (> 0) of open
        time have passed, and the open time of dates first … D − 1: whole
        pieces skipped by their open time, the first two dates of a piece
        measured, then the piece's own search. OutOfRange past 2199."""
        used = 0
        j = self.piece_index(first)
        last = len(self.pieces) - 1
        a = first
        while True:
            start, end = self.piece_starts[j], self.piece_ends[j]
            if j < last:
                have = self.open_time(a, end)
                if have < left:
                    used, left, a, j = used + have, left - have, end, j + 1
                    continue
            if j:
                for o in range(a, min(end, start + _EDGE)):
                    here = self.open_time(o, o + 1)
                    if here >= left:
                        return o, used
                    used, left, a = used + here, left - here, o + 1
            day, more = self.pieces[j].date_reached_after(a, left, field)
            return day, used + more

    def date_reached_before(self, last: int, left: int, field: str) -> tuple[int, int]:
        """:meth:`date_reached_after` backwards: the last date D ≤ ``last``
        from whose start to the end of ``last`` lie ``left`` µs (> 0) of open
        time, and the open time of dates D + 1 … last. OutOfRange before 1900."""
        used = 0
        j = self.piece_index(last)
        b = last + 1  # dates before b are still to count
        while j > 0:
            start = self.piece_starts[j]
            interior = start + _EDGE
            if b > interior:
                have = self.pieces[j].open_time(interior, b)
                if have >= left:
                    day, more = self.pieces[j].date_reached_before(b - 1, left, field)
                    return day, used + more
                used, left, b = used + have, left - have, interior
            for o in range(min(b, interior) - 1, start - 1, -1):
                here = self.open_time(o, o + 1)
                if here >= left:
                    return o, used
                used, left = used + here, left - here
            b = start
            j -= 1
        day, more = self.pieces[0].date_reached_before(b - 1, left, field)
        return day, used + more

    # ---- memory -----------------------------------------------------------
    def limit_segment_cache(self, max_bytes: int) -> None:
        super().limit_segment_cache(max_bytes)
        for p in self.pieces:
            p.limit_segment_cache(max_bytes // max(1, len(self.pieces)))

    def estimated_bytes(self) -> int:
        return super().estimated_bytes() + sum(p.estimated_bytes() for p in self.pieces)


def _nth_in_piece_after(piece: CompiledCalendar, o: int, n: int, end: int) -> int:
    """The n-th business day after ``o`` inside ``piece`` (it has at least n
    before ``end``); bisection on its counts when its week has none."""
    if piece.business_days_per_week > 0:
        return piece.nth_after(o, n)
    lo, hi = o, end - 1  # count(o + 1, hi + 1) >= n
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if piece.count_business_days(o + 1, mid + 1) >= n:
            hi = mid
        else:
            lo = mid
    return hi


def _nth_in_piece_before(piece: CompiledCalendar, o: int, m: int, start: int) -> int:
    """The m-th business day before ``o`` inside ``piece`` (it has at least m
    from ``start``); bisection on its counts when its week has none."""
    if piece.business_days_per_week > 0:
        return piece.nth_before(o, m)
    lo, hi = start, o  # count(lo, o) >= m
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if piece.count_business_days(mid, o) >= m:
            lo = mid
        else:
            hi = mid
    return lo
