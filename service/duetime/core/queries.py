"""The questions duetime answers, as pure functions returning plain data.

* :func:`due_answer` — ``start + duration`` with warnings and, on request, an
  explanation (docs/semantics.md §2–§4).
* :func:`business_time` — open time and whole business days between two
  instants (docs/semantics.md §3 ``bd_between``, §4 ``business_time_between``).
* :func:`open_status` — open or closed at an instant, the current interval,
  the next opening and closing, and why a date is not a business day.
* :func:`schedule` — a stage's named deadlines, from the stage entry or
  chained after one another.

Every function also applies the calendar's holiday horizon: an answer that
depends on dates after ``holidays_valid_until`` is OUT_OF_RANGE, and one that
depends on years after the last listed holiday carries a warning.
"""

from __future__ import annotations

from dataclasses import dataclass, field as dc_field
from datetime import date, datetime
from typing import Callable, Sequence

from .calendar import Calendar
from .compiled import CompiledCalendar, Segment
from .durations import Duration, DurationKind, parse_duration
from .engine import (
    AtClose,
    add_us,
    bd_between_us,
    between_us,
    checked_start_us,
    current_segment,
    first_open_at_or_after,
    is_open_at,
    run_end,
    start_us,
)
from .errors import FieldViolation, InvalidArgument, OutOfRange
from .explain import Step, explain_between, explain_due
from .landing import require_holidays_known
from .zones import from_us, local_of


@dataclass(frozen=True)
class DueAnswer:
    """``due_us``: the due instant (µs); ``warnings``: sentences; ``steps``:
    the explanation (empty unless asked for)."""

    due_us: int
    warnings: tuple[str, ...] = ()
    steps: tuple[Step, ...] = ()


def horizon(cc: CompiledCalendar, first: int, last: int, field: str = "calendar.holidays_valid_until") -> tuple[str, ...]:
    """Check that local dates ``first..last`` lie inside what the calendar's
    holiday list covers. OutOfRange outside ``holidays_valid_from`` ..
    ``holidays_valid_until`` (naming the date and the range); otherwise a
    warning for the years after the last listed holiday's year."""
    cal = cc.calendar
    if cal.holidays_valid_from is not None or cal.holidays_valid_until is not None:
        require_holidays_known(cc, first, last, field)
        return ()
    if not cal.holidays:
        return ()
    known_year = cal.holidays[-1].date.year
    last_year = date.fromordinal(last).year
    if last_year <= known_year:
        return ()
    years = f"{known_year + 1}" if last_year == known_year + 1 else f"{known_year + 1}–{last_year}"
    return (f"no holidays known for {years}: the calendar lists holidays up to {known_year} only",)


def due_answer(
    start: datetime | int,
    duration: str | Duration,
    calendar: Calendar,
    *,
    at_close: AtClose = AtClose.END_OF_WINDOW,
    explain: bool = False,
    field: str = "duration",
) -> DueAnswer:
    """``start + duration`` (see :func:`duetime.core.engine.compute_due`) with the
    holiday horizon applied and, when ``explain``, the steps in words.
    ``start``: an aware datetime, or µs since the epoch (within
    ``datetime``'s range), checked alike."""
    d = parse_duration(duration, field) if isinstance(duration, str) else duration
    cc = calendar.compiled
    s = checked_start_us(start, calendar) if type(start) is int else start_us(start, calendar)
    due = add_us(s, d, cc, field, at_close)
    # "@end" is the final date's 24:00: the answer depends on that date, not
    # on the next one whose 00:00 it is (docs/semantics.md §7, §15)
    warnings = _horizon_between(cc, s, due - 1 if d.at_edge == "end" and due > s else due)
    steps: tuple[Step, ...] = ()
    if explain:
        moved = (
            at_close is AtClose.NEXT_OPEN
            and d.kind is DurationKind.BUSINESS_TIME
            and d.micros > 0
            and due != add_us(s, d, cc, field)
        )
        steps = tuple(explain_due(s, due, d, cc, moved))
    return DueAnswer(due, warnings, steps)


def _horizon_between(cc: CompiledCalendar, a: int, b: int) -> tuple[str, ...]:
    oa, _ = local_of(cc.zone, a)
    ob, _ = local_of(cc.zone, b)
    return horizon(cc, min(oa, ob), max(oa, ob))


def last_date_of_span(cc: CompiledCalendar, a: int, b: int) -> int:
    """The last local date (ordinal) whose open time can lie in ``[a, b)``
    (``a < b``): the date of ``b − 1 µs``, so a span that ends at a
    midnight does not depend on the date that midnight begins
    (docs/semantics.md §7: only the dates an answer depends on must be
    covered)."""
    return local_of(cc.zone, b - 1)[0]


@dataclass(frozen=True)
class BusinessTime:
    """Open time (µs, signed) and whole business days (docs/semantics.md §3) between two instants."""

    open_us: int
    business_days: int
    warnings: tuple[str, ...] = ()
    steps: tuple[Step, ...] = ()


def business_time(start: datetime, end: datetime, calendar: Calendar, *, explain: bool = False) -> BusinessTime:
    """Open time in ``[start, end)`` (negated when end < start) and ``bd_between``.

    Fields named in errors: ``start_time``, ``end_time``."""
    cc = calendar.compiled
    a, b = start_us(start, calendar, "start_time"), start_us(end, calendar, "end_time")
    if a < b:
        # open time needs the dates to b's last µs; business days (a + N bd ≤ b)
        # need b's own date only when a's wall time on it is not after b
        oa, wall = local_of(cc.zone, a)
        ob, _ = local_of(cc.zone, b)
        last = ob if cc.resolve(ob, wall) <= b else last_date_of_span(cc, a, b)
        warnings = horizon(cc, oa, max(oa, last))
    else:
        warnings = _horizon_between(cc, a, b)
    open_us = between_us(a, b, cc) if cc.has_hours() else 0
    steps = tuple(explain_between(a, b, cc)) if explain else ()
    return BusinessTime(open_us, bd_between_us(a, b, cc), warnings, steps)


@dataclass(frozen=True)
class OpenStatus:
    """Whether the calendar is open at an instant.

    ``interval``: the open run holding the instant (None when closed);
    ``next_open_us``: the next opening after the instant (the end of the
    current run's closing when open); ``next_close_us``: the closing of the
    current run, or of the next one when closed (None when the calendar never
    closes within 400 days); ``reason``: why the local date is not a business
    day (None when it is one); ``holiday_name``: the holiday's name if any.
    """

    is_open: bool
    local_date: date
    is_business_day: bool
    reason: str | None
    holiday_name: str
    interval: Segment | None
    next_open_us: int | None
    next_close_us: int | None
    warnings: tuple[str, ...] = ()


def _next_opening(cc: CompiledCalendar, t: int) -> int | None:
    """The first open instant ≥ ``t``; None when only dated open time exists
    (a week without working hours, docs/semantics.md §4, or a last week
    period without them, §16) and none lies ahead."""
    if cc.last_week_has_hours():
        return first_open_at_or_after(cc, t, "time")
    try:
        return first_open_at_or_after(cc, t, "time")
    except OutOfRange:
        return None


def open_status(at: datetime, calendar: Calendar) -> OpenStatus:
    """Open or closed at ``at`` and the surrounding openings and closings."""
    cc = calendar.compiled
    t = start_us(at, calendar, "time")
    o, _ = local_of(cc.zone, t)
    business = cc.is_business_day(o)
    holiday = cc.holiday_names.get(o, "") if not business else ""
    if not cc.has_hours():
        return OpenStatus(False, date.fromordinal(o), business, cc.closed_reason(o), holiday, None, None, None,
                          horizon(cc, o, o))
    interval = current_segment(cc, t) if is_open_at(cc, t) else None
    if interval is not None:
        close = run_end(cc, t)
        nxt = _next_opening(cc, close) if close is not None else None
    else:
        nxt = _next_opening(cc, t)
        close = run_end(cc, nxt) if nxt is not None else None
    last_o, _ = local_of(cc.zone, max(x for x in (t, nxt, close) if x is not None))
    return OpenStatus(
        interval is not None, date.fromordinal(o), business, cc.closed_reason(o), holiday, interval, nxt, close,
        horizon(cc, o, last_o),
    )


@dataclass(frozen=True)
class Deadline:
    """A named deadline of a stage: ``duration`` from the stage entry, or from
    the due time of the deadline named ``after``."""

    name: str
    duration: str
    after: str = ""


@dataclass(frozen=True)
class ScheduledDeadline:
    name: str
    due_us: int
    from_us: int
    after: str = ""
    steps: tuple[Step, ...] = ()


@dataclass(frozen=True)
class Schedule:
    deadlines: tuple[ScheduledDeadline, ...]
    next_due: str
    warnings: tuple[str, ...] = dc_field(default_factory=tuple)


def schedule(
    entered: datetime,
    deadlines: Sequence[Deadline],
    calendar: Calendar,
    *,
    at_close: AtClose = AtClose.END_OF_WINDOW,
    explain: bool = False,
    check: Callable[[], None] | None = None,
) -> Schedule:
    """Every deadline's due time, in the order given; ``next_due`` names the
    earliest (the first listed among equals). A chain is measured from the
    logical due time of the deadline it follows, never from the moment of the
    call. Unknown, duplicate or cyclic names are InvalidArgument naming
    ``deadlines[i].name`` / ``deadlines[i].after``. ``check`` (None: none): a
    cooperative check (e.g. a call's deadline) called before each deadline
    is computed; what it raises stops the work."""
    bad: list[FieldViolation] = []
    index: dict[str, int] = {}
    for i, dl in enumerate(deadlines):
        if not dl.name:
            bad.append(FieldViolation(f"deadlines[{i}].name", "a deadline needs a name"))
        elif dl.name in index:
            bad.append(FieldViolation(f"deadlines[{i}].name", f"{dl.name!r} is used twice (also deadlines[{index[dl.name]}])"))
        else:
            index[dl.name] = i
    if not deadlines:
        bad.append(FieldViolation("deadlines", "give at least one deadline"))
    parsed: list[Duration | None] = []
    for i, dl in enumerate(deadlines):
        try:
            parsed.append(parse_duration(dl.duration, f"deadlines[{i}].duration"))
        except InvalidArgument as e:
            bad.extend(e.violations)
            parsed.append(None)
        if dl.after and dl.after not in index:
            bad.append(FieldViolation(f"deadlines[{i}].after", f"no deadline is named {dl.after!r}"))
    if not bad:
        for i, dl in enumerate(deadlines):
            chain, name = [dl.name], dl.after
            while name:
                if name in chain:
                    loop = " → ".join(chain[chain.index(name):] + [name])
                    bad.append(FieldViolation(f"deadlines[{i}].after", f"{dl.name!r} is chained in a loop: {loop}"))
                    break
                chain.append(name)
                name = deadlines[index[name]].after
    if bad:
        raise InvalidArgument(bad)

    entry = start_us(entered, calendar, "entered_time")
    results: dict[str, DueAnswer] = {}
    origin: dict[str, int] = {}

    def solve(i: int) -> DueAnswer:
        dl = deadlines[i]
        if dl.name not in results:
            base = entry if not dl.after else solve(index[dl.after]).due_us
            origin[dl.name] = base
            results[dl.name] = due_answer(
                from_us(base), parsed[i], calendar, at_close=at_close, explain=explain, field=f"deadlines[{i}].duration"
            )
        return results[dl.name]

    for i in range(len(deadlines)):
        if check is not None:
            check()
        solve(i)
    out = tuple(
        ScheduledDeadline(dl.name, results[dl.name].due_us, origin[dl.name], dl.after, results[dl.name].steps)
        for dl in deadlines
    )
    first = min(out, key=lambda x: x.due_us)
    warnings = tuple(dict.fromkeys(w for r in results.values() for w in r.warnings))
    return Schedule(out, first.name, warnings)

