"""Landing rules (docs/semantics.md §15): moving a due time off a date that is
not a business day, and placing it at a time of its final date.

Pure, like the rest of ``core``: instants are µs since the epoch, local dates
are proleptic ordinals. A roll is one bounded look-up: the next or previous
business day comes from :meth:`CompiledCalendar.nth_after` /
``nth_before`` (a bisection over the calendar's exceptions and its weekly
template), never from a walk over the dates in between, so a date closed for
a whole season costs what a weekend costs.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from .compiled import CompiledCalendar
from .durations import Duration, Roll
from .errors import InvalidArgument, OutOfRange
from .zones import MAX_ORDINAL, MIN_ORDINAL

__all__ = ["Landing", "land", "land_us", "landing_target", "roll_date"]


def _month(o: int) -> tuple[int, int]:
    d = date.fromordinal(o)
    return d.year, d.month


def roll_date(cc: CompiledCalendar, o: int, roll: Roll) -> int:
    """The final local date (ordinal) of a due time whose date is ``o`` under
    ``roll`` (docs/semantics.md §15): ``o`` itself when it is a business day;
    else the first business day after it (FOLLOWING), the last before it
    (PRECEDING), or for the modified conventions that one unless it lies in
    another calendar month than ``o``, then the other direction's. May return
    a date outside 1900..2199 (the caller checks)."""
    if cc.is_business_day(o):
        return o
    if roll is Roll.FOLLOWING:
        return cc.nth_after(o, 1)
    if roll is Roll.PRECEDING:
        return cc.nth_before(o, 1)
    first, second = (cc.nth_after, cc.nth_before) if roll is Roll.MODIFIED_FOLLOWING else (cc.nth_before, cc.nth_after)
    x = first(o, 1)
    if MIN_ORDINAL <= x <= MAX_ORDINAL and _month(x) == _month(o):
        return x
    return second(o, 1)


def landing_target(cc: CompiledCalendar, o: int, d: Duration, field: str) -> int:
    """The instant of date ``o`` that ``d``'s landing time names
    (docs/semantics.md §6, §15): a wall time resolved by §1.1; ``open``, the
    first opening among ``o``'s own intervals; ``close``, the end of its
    last own interval (the next date's for one that crosses midnight);
    ``end``, the next date's 00:00. InvalidArgument on ``field`` for
    ``open`` / ``close`` on a date without own intervals."""
    if d.at_time is not None:
        return cc.resolve(o, d.at_time)
    if d.at_edge == "end":
        return cc.resolve(o + 1, 0)
    # the date's own intervals, even where an earlier date's (moved by a DST
    # gap, or running overnight) already covers them
    segs = cc.raw_segments(o)
    if not segs:
        what = "business day" if cc.is_business_day(o) else "date"
        raise InvalidArgument.at(
            field, f"{d.text!r}: {date.fromordinal(o).isoformat()} is a {what} with no working hours to {d.at_edge} at"
        )
    return segs[0][0] if d.at_edge == "open" else segs[-1][1]


@dataclass(frozen=True)
class Landing:
    """How a landing rule placed a due time: ``unrolled`` (µs) and its local
    date ``unrolled_date``, the ``final_date`` after the roll (ordinals) and
    the ``due`` instant (µs)."""

    unrolled: int
    unrolled_date: int
    final_date: int
    due: int


def land(unrolled: int, d: Duration, cc: CompiledCalendar, field: str = "duration") -> Landing:
    """Apply ``d``'s landing rule (``d.roll`` set) to the unrolled due time
    ``unrolled`` (µs), docs/semantics.md §15: roll its local date, then keep
    the unrolled instant itself when the date did not move and no landing
    time is given, else place the wall time (or the landing time) on the
    final date. OutOfRange when the final date leaves 1900..2199, or when
    the roll looked at dates the calendar's holiday list does not cover;
    InvalidArgument for ``open`` / ``close`` on a date without hours."""
    o, final, due = land_us(unrolled, d, cc, field)
    return Landing(unrolled, o, final, due)


def land_us(unrolled: int, d: Duration, cc: CompiledCalendar, field: str = "duration") -> tuple[int, int, int]:
    """:func:`land` as plain integers: (the unrolled local date, the final
    date, the due instant in µs), for the answer's own path."""
    assert d.roll is not None
    o, wall = cc.local_of(unrolled)
    if cc.is_business_day(o):
        final = o
    else:
        final = roll_date(cc, o, d.roll)
        if final > MAX_ORDINAL:
            raise OutOfRange.at(field, "the rolled due date would fall after the supported range's end 2199-12-31")
        if final < MIN_ORDINAL:
            raise OutOfRange.at(field, "the rolled due date would fall before the supported range's start 1900-01-01")
        require_holidays_known(cc, min(o, final), max(o, final))
    if d.at_time is None and d.at_edge is None:
        return o, final, unrolled if final == o else cc.resolve(final, wall)
    return o, final, landing_target(cc, final, d, field)


def require_holidays_known(cc: CompiledCalendar, first: int, last: int,
                           field: str = "calendar.holidays_valid_until") -> None:
    """OutOfRange when local dates ``first..last`` (ordinals), which an answer
    depends on (a roll looks at the dates it passes), lie outside the holidays
    the calendar declares known (``holidays_valid_from`` ..
    ``holidays_valid_until``, docs/semantics.md §7), naming the date and the
    range; ``field`` names the upper bound (``until`` becomes ``from`` for the
    lower one)."""
    cal = cc.calendar
    lo, hi = cal.holidays_valid_from, cal.holidays_valid_until
    if lo is None and hi is None:
        return
    known = (f"holidays known {lo.isoformat()}..{hi.isoformat()}" if lo and hi
             else f"holidays known until {hi.isoformat()}" if hi else f"holidays known from {lo.isoformat()}")
    if hi is not None and last > hi.toordinal():
        raise OutOfRange.at(field, f"the answer depends on {date.fromordinal(last).isoformat()}, after the dates the "
                                   f"calendar's holidays cover ({known})")
    if lo is not None and first < lo.toordinal():
        raise OutOfRange.at(field.replace("until", "from"),
                            f"the answer depends on {date.fromordinal(first).isoformat()}, before the dates the "
                            f"calendar's holidays cover ({known})")
