"""Calendar queries (docs/semantics.md §9.1): open periods, business days in a
date range, and the last opening and closing before an instant.

* :func:`open_periods` — the calendar's open time inside ``[a, b)`` as maximal
  half-open periods, each with the local date it belongs to, one page at a
  time (:func:`page_token` / :func:`read_page_token`: where the next page
  starts, bound to the query it continues).
* :func:`count_business_days` — business days ``first <= d <= last``.
* :func:`run_bounds` — the last closing at or before an instant and the
  opening of the open run holding it (or of the last run before it).

Pure: instants are integer µs since the epoch, local dates are ordinals.
Cost: an open period costs the dates it spans, a page the periods it holds;
the length of ``[a, b)`` does not count otherwise. A long closure is jumped
over with the compiled calendar's running totals
(:meth:`~duetime.core.compiled.CompiledCalendar.date_reached_after`), and a
run open for days on end (a 24×7 desk) is followed by galloping over whole
dates whose open time is the whole elapsed time, so neither walks date by
date. A count of business days is two bisections and a division whatever the
range (:meth:`~duetime.core.compiled.CompiledCalendar.count_business_days`).
"""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass
from datetime import date
from typing import Iterator

from .compiled import CompiledCalendar
from .engine import between_us, is_open_at, run_start
from .errors import InvalidArgument, OutOfRange
from .zones import MIN_ORDINAL

DEFAULT_PAGE_SIZE = 100
"""Open periods in a page when the request says 0."""
MAX_PAGE_SIZE = 1000
"""Most open periods in one page; a larger ``page_size`` means this."""

_TOKEN_VERSION = "p1"
_TOKEN_MAX = 120
"""Longest page token read (a token this module writes is about 40 characters)."""

_CHUNK_DATES = 8
"""Dates looked at together; a chunk without open time makes the walk jump
to the next date that owns some."""
_GALLOP_AFTER = 2
"""Dates an open run has spanned after which it is followed by galloping."""
PAGE_WORK = 60_000
"""Most working-interval segments one page reads (each gallop over an open
run counts as a chunk's worth): a page ends early, with a token, when its
periods are made of so many touching intervals (a desk open around the
clock in 48 half-hour intervals a day) that reading them would cost more."""


@dataclass(frozen=True)
class OpenPeriod:
    """One maximal open period ``[start_us, end_us)`` (µs since the epoch,
    clipped to the query's ``[a, b)``) and ``local_date``, the date whose
    working interval holds its first instant (docs/semantics.md §9.1)."""

    start_us: int
    end_us: int
    local_date: date


@dataclass(frozen=True)
class OpenPeriods:
    """One page: ``periods`` in time order; ``resume_us``, where the next page
    starts (None: this is the last page)."""

    periods: tuple[OpenPeriod, ...]
    resume_us: int | None


def _owned(cc: CompiledCalendar, first: int, last: int) -> list[tuple[int, int, int]]:
    """``(start, end, date)`` of the segments owned by dates ``first`` … ``last``, in time order."""
    out = [(s, e, o) for o in range(first, last + 1) for s, e in cc.segments(o)]
    out.sort()
    return out


def _open_through(cc: CompiledCalendar, p: int, b: int, day: int) -> tuple[int, int]:
    """An open run goes on at instant ``p`` (< ``b``) on local date ``day``:
    gallop over whole dates while ``[p, midnight)`` is open throughout.
    Returns ``(end, date)``: the run is open on ``[p, end)``; the walk goes on
    from ``date`` (``end == b`` when open up to ``b``)."""
    last, _ = cc.local_of(b)
    if between_us(p, b, cc) == b - p:
        return b, last
    step, good = 1, day
    while True:  # the first midnight that is not open throughout since p (never past b's date)
        probe = min(good + step, last)
        t = cc.resolve(probe, 0)
        if t >= b or between_us(p, t, cc) != t - p:
            hi = probe
            break
        good = probe
        if probe == last:
            hi = last + 1
            break
        step *= 2
    lo = good  # open through midnight(lo) (or lo is day), not through midnight(hi)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        t = cc.resolve(mid, 0)
        if t < b and between_us(p, t, cc) == t - p:
            lo = mid
        else:
            hi = mid
    if lo == day:
        return p, day
    return cc.resolve(lo, 0), lo


def _periods(cc: CompiledCalendar, a: int, b: int, work: list[int]) -> Iterator[OpenPeriod]:
    """Every open period in ``[a, b)`` (``a < b``), lazily, in time order;
    ``work[0]`` grows by the segments read."""
    oa, _ = cc.local_of(a)
    ob, _ = cc.local_of(b)
    last_day = ob + 1
    day = oa - 2
    run: list[int] | None = None  # [start, end, owner date]
    while day <= last_day:
        chunk = _owned(cc, day, min(day + _CHUNK_DATES - 1, last_day))
        work[0] += len(chunk) + 1
        next_day = min(day + _CHUNK_DATES - 1, last_day) + 1
        if not chunk:
            if next_day <= last_day:  # a closure: jump to the next date that owns open time
                if cc.open_time(next_day, last_day + 1) == 0:
                    break
                next_day = cc.date_reached_after(next_day, 1, "end_time")[0]
            day = next_day
            continue
        for s, e, o in chunk:
            s, e = max(s, a), min(e, b)
            if e <= s:
                continue
            if run is not None and s <= run[1]:
                if e > run[1]:
                    run[1] = e
                continue
            if run is not None:
                yield OpenPeriod(run[0], run[1], date.fromordinal(run[2]))
            run = [s, e, o]
        if run is not None and run[1] < b and run[1] - run[0] > _GALLOP_AFTER * 86_400_000_000:
            end_day, _ = cc.local_of(run[1])
            work[0] += len(chunk)
            end, from_day = _open_through(cc, run[1], b, end_day)
            if end > run[1]:
                run[1] = end
                next_day = max(next_day, from_day - 2)
        day = next_day
    if run is not None:
        yield OpenPeriod(run[0], run[1], date.fromordinal(run[2]))


def open_periods(cc: CompiledCalendar, a: int, b: int, page_size: int = 0) -> OpenPeriods:
    """The open periods in ``[a, b)`` (µs; docs/semantics.md §9.1): at most
    ``page_size`` of them (0: :data:`DEFAULT_PAGE_SIZE`; above
    :data:`MAX_PAGE_SIZE`: that), fewer when they took more than
    :data:`PAGE_WORK` segments to read, and where the next page starts. A period
    that reaches ``a`` or ``b`` is clipped there. InvalidArgument on
    ``end_time`` when ``b < a``, on ``page_size`` when negative."""
    if b < a:
        raise InvalidArgument.at("end_time", "is before start_time; give an end_time at or after start_time")
    if page_size < 0:
        raise InvalidArgument.at("page_size", f"{page_size} is negative; give 0 (the default, "
                                              f"{DEFAULT_PAGE_SIZE}) up to {MAX_PAGE_SIZE}")
    size = min(page_size or DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE)
    if b == a:
        return OpenPeriods((), None)
    found: list[OpenPeriod] = []
    work = [0]
    for period in _periods(cc, a, b, work):
        if len(found) == size or (found and work[0] > PAGE_WORK):
            return OpenPeriods(tuple(found), found[-1].end_us)
        found.append(period)
    return OpenPeriods(tuple(found), None)


def _query_digest(query: bytes, resume_us: int) -> str:
    return hashlib.sha256(b"%s|%d|%s" % (_TOKEN_VERSION.encode(), resume_us, query)).hexdigest()[:16]


def page_token(query: bytes, resume_us: int) -> str:
    """The opaque token of the page that starts at ``resume_us``, bound to
    ``query`` (the bytes that identify the query it continues: its instants
    and calendar). Deterministic, so a recorded answer replays byte for byte."""
    text = f"{_TOKEN_VERSION}.{resume_us}.{_query_digest(query, resume_us)}"
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def read_page_token(token: str, query: bytes, a: int, b: int, field: str = "page_token") -> int:
    """Where the page of ``token`` starts (µs, ``a < resume < b``).
    InvalidArgument on ``field`` when the token is not one :func:`page_token`
    wrote for this same query (changed, cut, or from another query)."""
    refused = InvalidArgument.at(field, "is not a page token of this query: pass the next_page_token of the "
                                        "previous page unchanged, with the same start_time, end_time and calendar")
    if len(token) > _TOKEN_MAX:
        raise refused
    try:
        text = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)).decode("ascii")
        version, resume, digest = text.split(".")
        resume_us = int(resume)
    except (ValueError, UnicodeDecodeError):
        raise refused from None
    if base64.urlsafe_b64encode(text.encode()).decode().rstrip("=") != token:  # padded, spaced, "+/": changed
        raise refused
    if version != _TOKEN_VERSION or str(resume_us) != resume or digest != _query_digest(query, resume_us) \
            or not a < resume_us < b:
        raise refused
    return resume_us


def count_business_days(cc: CompiledCalendar, first: int, last: int) -> int:
    """Business days d with ``first <= d <= last`` (local date ordinals, both
    included; docs/semantics.md §3, §9.1). InvalidArgument on ``to_date`` when
    ``last < first``. Two bisections and a division, whatever the range."""
    if last < first:
        raise InvalidArgument.at("to_date", f"{date.fromordinal(last)} is before from_date "
                                            f"{date.fromordinal(first)}; give a to_date on or after it")
    return cc.count_business_days(first, last + 1)


def _open_before(cc: CompiledCalendar, t: int) -> int | None:
    """The end of the open time before ``t``: the latest ``min(end, t)`` of a
    segment that starts before ``t``; None when no date since 1900 opens."""
    o, _ = cc.local_of(t)
    day, best, seen = o + 1, None, 0
    while day >= MIN_ORDINAL:
        for s, e in cc.segments(day):
            if s < t and (best is None or min(e, t) > best):
                best = min(e, t)
        if best is not None:
            seen += 1
            if seen > 2:  # a date owns nothing that ends after what two dates later start
                return best
        elif o - day > 8:  # a closure: jump back to the last date that owns open time
            try:
                day = min(day, cc.date_reached_before(day - 1, 1, "time")[0] + 1)
            except OutOfRange:
                return None
        day -= 1
    return best


@dataclass(frozen=True)
class RunBounds:
    """``last_open_us``: the opening of the open run holding the instant, or
    of the last run before it; ``last_close_us``: the last closing at or
    before the instant. Either None when there is none since 1900, or when
    the run reaches further back than 400 days (reported as that far in
    ``last_open_us``, and without a closing before it)."""

    last_open_us: int | None
    last_close_us: int | None


def run_bounds(cc: CompiledCalendar, t: int, limit_days: int = 400) -> RunBounds:
    """The last opening and closing at or before instant ``t`` (µs;
    docs/semantics.md §9.1). Runs are merged as open status merges them
    (touching segments are one run)."""
    if is_open_at(cc, t):
        opening = run_start(cc, t, limit_days)
        before = _open_before(cc, opening)
        return RunBounds(opening, before if before is not None and before < opening else None)
    closing = _open_before(cc, t)
    if closing is None:
        return RunBounds(None, None)
    return RunBounds(run_start(cc, closing - 1, limit_days), closing)
