"""SLA clocks that pause and resume (docs/semantics.md §11).

A clock is plain data (:class:`ClockState`) that the caller keeps; every
transition is a pure function of (state, event, calendar), so the same events
under the same calendar version give the same state, byte for byte.

The clock's **measure** follows its target's kind:

* ``ELAPSED`` (``14d``, ``48h``): real time;
* ``BUSINESS_DAY`` (``3bd``): every instant of a business day's local date is
  open (days of 23 or 25 hours count as such);
* ``BUSINESS_TIME`` (``48bh``): the calendar's open time (docs/semantics.md §4).

Instants and amounts are µs; ``remaining`` is always in the clock's measure.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import Enum
from functools import lru_cache
from typing import Callable

from .calendar import Calendar, DateOverride, Interval
from .compiled import CompiledCalendar
from .durations import Duration, DurationKind, parse_duration
from .engine import add_us, between_us
from .errors import DuetimeError, ErrorKind, FieldViolation, InvalidArgument


class FailedPrecondition(DuetimeError):
    """An event the clock's state does not allow (docs/semantics.md §11)."""

    kind = ErrorKind.STATE_CONFLICT
    reason = "CLOCK_EVENT_NOT_ALLOWED"


class Measure(Enum):
    ELAPSED = "ELAPSED"
    BUSINESS_DAY = "BUSINESS_DAY"
    BUSINESS_TIME = "BUSINESS_TIME"


class Status(Enum):
    RUNNING = "RUNNING"
    PAUSED = "PAUSED"
    STOPPED = "STOPPED"


class EventType(Enum):
    PAUSE = "PAUSE"
    RESUME = "RESUME"
    RESET = "RESET"
    RETARGET = "RETARGET"
    STOP = "STOP"


class Anchor(Enum):
    """Where a RETARGET counts from: the event (default) or the clock's start."""

    EVENT = "EVENT"
    START = "START"


@dataclass(frozen=True)
class ClockState:
    """The whole state of an SLA clock.

    ``deadline_us`` is set while RUNNING, ``remaining_us`` while PAUSED (signed:
    negative once paused past the deadline). ``started_us`` is the start or
    the last reset (or event-anchored retarget); ``intervals`` are the closed
    running intervals since then and ``running_since_us`` the open one.
    ``breached_us`` is the deadline that was missed, once an event shows it
    (never cleared); ``met`` is set when STOPPED.
    """

    target: str
    measure: Measure
    status: Status
    started_us: int
    last_event_us: int
    deadline_us: int | None = None
    remaining_us: int | None = None
    running_since_us: int | None = None
    intervals: tuple[tuple[int, int], ...] = ()
    breached_us: int | None = None
    met: bool | None = None
    recomputations: int = 0


@dataclass(frozen=True)
class ClockEvent:
    type: EventType
    at_us: int
    target: str = ""
    anchor: Anchor = Anchor.EVENT


def measure_of(d: Duration, field: str) -> Measure:
    """The measure a target's kind asks for; ISO 8601 and ``@`` targets have none.
    A target with a landing rule (``14d@following``, ``1bd@16:00``) is refused
    saying that the rule is what a clock cannot measure (docs/semantics.md §15,
    "Not for clocks")."""
    if d.roll is not None or d.at_time is not None or d.at_edge is not None:
        base = d.text[: d.text.index("@")]
        raise InvalidArgument.at(field, f"{d.text!r} cannot be a clock target: a clock measures the time left, "
                                        f"and a landing rule ('@…') has no measure to count it in; give the "
                                        f"duration alone ({base!r}), or compute the rolled deadline with "
                                        f"ComputeDueTime or a schedule")
    if d.is_relative or d.kind is DurationKind.NOMINAL:
        raise InvalidArgument.at(field, f"{d.text!r} cannot be a clock target: use elapsed (h, d, w), bd, or bh/bm")
    if d.micros < 0 or d.days < 0:
        raise InvalidArgument.at(field, f"{d.text!r}: a clock target must not be negative")
    return {
        DurationKind.ELAPSED: Measure.ELAPSED,
        DurationKind.BUSINESS_DAY: Measure.BUSINESS_DAY,
        DurationKind.BUSINESS_TIME: Measure.BUSINESS_TIME,
    }[d.kind]


@lru_cache(maxsize=64)
def business_day_calendar(cal: Calendar) -> Calendar:
    """``cal`` with every business day open 00:00–24:00 (the business-day measure)."""
    all_day = (Interval(0, 86400),)
    return replace(
        cal,
        working_hours=tuple(() if wd in cal.weekend else all_day for wd in range(1, 8)),
        date_overrides=tuple(DateOverride(o.date, all_day if o.intervals else (), o.name) for o in cal.date_overrides),
        week_periods=tuple(
            replace(p, working_hours=tuple(() if wd in p.weekend else all_day for wd in range(1, 8)))
            for p in cal.week_periods),
    )


def _compiled(measure: Measure, cal: Calendar) -> CompiledCalendar:
    return business_day_calendar(cal).compiled if measure is Measure.BUSINESS_DAY else cal.compiled


def _between(measure: Measure, a: int, b: int, cal: Calendar) -> int:
    if measure is Measure.ELAPSED:
        return b - a
    return between_us(a, b, _compiled(measure, cal))


def _add_amount(measure: Measure, t: int, amount: int, cal: Calendar, field: str) -> int:
    """``t + amount`` of the measure's time (µs, signed)."""
    if amount == 0:
        return t
    kind = DurationKind.ELAPSED if measure is Measure.ELAPSED else DurationKind.BUSINESS_TIME
    return add_us(t, Duration(kind, micros=amount), _compiled(measure, cal), field)


def _target_amount(d: Duration, measure: Measure, t: int, cal: Calendar, field: str) -> int:
    """The target as an amount of its measure, counted from ``t`` (for ``bd``
    this is the business-day time from t to t + N bd)."""
    if measure is Measure.BUSINESS_DAY:
        return _between(measure, t, add_us(t, d, cal.compiled, field), cal)
    return d.micros


def start_clock(target: str, at_us: int, cal: Calendar, field: str = "target") -> ClockState:
    """A RUNNING clock with ``deadline = at + target`` (docs/semantics.md §11 start)."""
    d = parse_duration(target, field)
    measure = measure_of(d, field)
    deadline = add_us(at_us, d, cal.compiled, field)
    return ClockState(d.text, measure, Status.RUNNING, at_us, at_us, deadline_us=deadline, running_since_us=at_us)


#: Running intervals measured between two calls of a cooperative check.
_CHECK_SPANS = 64


def _refuse(why: str, field: str = "event") -> FailedPrecondition:
    return FailedPrecondition([FieldViolation(field, why)])


def apply_event(state: ClockState, event: ClockEvent, cal: Calendar,
                check: Callable[[], None] | None = None) -> ClockState:
    """The state after ``event`` (docs/semantics.md §11). FailedPrecondition for events the
    state does not allow: any event on a stopped clock, PAUSE of a paused one,
    RESUME of a running one (subject ``event``), an event earlier than the
    last one (subject ``event.time``). ``check`` (None: none): a cooperative
    check (e.g. a call's deadline) called while a RETARGET anchored at the
    clock's start measures the running intervals; what it raises stops it."""
    t = event.at_us
    if state.status is Status.STOPPED:
        raise _refuse("the clock is stopped; no later event is accepted")
    if t < state.last_event_us:
        raise _refuse("the event is earlier than the clock's last event; events must come in time order",
                      "event.time")
    running = state.status is Status.RUNNING
    breached = state.breached_us
    if running and breached is None and state.deadline_us is not None and t > state.deadline_us:
        breached = state.deadline_us
    base = replace(state, last_event_us=t, breached_us=breached, recomputations=state.recomputations + 1)
    kind = event.type

    if kind is EventType.PAUSE:
        if not running:
            raise _refuse("the clock is already paused")
        return replace(
            base,
            status=Status.PAUSED,
            remaining_us=_between(state.measure, t, state.deadline_us, cal),
            deadline_us=None,
            running_since_us=None,
            intervals=state.intervals + ((state.running_since_us, t),),
        )
    if kind is EventType.RESUME:
        if running:
            raise _refuse("the clock is running; only a paused clock can resume")
        return replace(
            base,
            status=Status.RUNNING,
            deadline_us=_add_amount(state.measure, t, state.remaining_us, cal, "event"),
            remaining_us=None,
            running_since_us=t,
        )
    if kind is EventType.RESET:
        d = parse_duration(state.target, "target")
        return replace(
            base, status=Status.RUNNING, started_us=t, deadline_us=add_us(t, d, cal.compiled, "event"),
            remaining_us=None, running_since_us=t, intervals=(),
        )
    if kind is EventType.RETARGET:
        return _retarget(state, base, event, cal, check)
    # STOP
    missed = (running and state.deadline_us is not None and t > state.deadline_us) or (
        not running and state.remaining_us is not None and state.remaining_us < 0
    )
    intervals = state.intervals + (((state.running_since_us, t),) if running else ())
    return replace(
        base, status=Status.STOPPED, met=not missed, deadline_us=None, remaining_us=None,
        running_since_us=None, intervals=intervals,
    )


def _retarget(state: ClockState, base: ClockState, event: ClockEvent, cal: Calendar,
              check: Callable[[], None] | None = None) -> ClockState:
    t = event.at_us
    d = parse_duration(event.target, "event.target")
    measure = measure_of(d, "event.target")
    running = state.status is Status.RUNNING
    if event.anchor is Anchor.EVENT:  # start over with the new target from t
        common = dict(target=d.text, measure=measure, started_us=t, intervals=())
        if running:
            return replace(base, deadline_us=add_us(t, d, cal.compiled, "event.target"), running_since_us=t, **common)
        return replace(base, remaining_us=_target_amount(d, measure, t, cal, "event.target"), **common)
    # anchored at the clock's start: what the running intervals consumed is spent
    spans = state.intervals + (((state.running_since_us, t),) if running else ())
    consumed = 0
    for i, (a, b) in enumerate(spans):
        if check is not None and not i % _CHECK_SPANS:
            check()
        consumed += _between(measure, a, b, cal)
    remaining = _target_amount(d, measure, state.started_us, cal, "event.target") - consumed
    if running:
        return replace(base, target=d.text, measure=measure,
                       deadline_us=_add_amount(measure, t, remaining, cal, "event.target"))
    return replace(base, target=d.text, measure=measure, remaining_us=remaining)
