"""The pure arithmetic core of duetime: no gRPC, no I/O, no clock reads.

Public surface (the section of docs/semantics.md in brackets):

* :func:`parse_duration` [§2, §2.2] → :class:`Duration`
* :class:`Calendar` [§7] (``Calendar.from_text`` validates wire-shaped input)
* :func:`compute_due` [§2–§6], :func:`business_time_between` [§4],
  :func:`bd_between` [§3]
* :func:`due_answer`, :func:`business_time`, :func:`open_status`,
  :func:`schedule`: the service's questions, with warnings and explanations
* :func:`start_clock`, :func:`apply_event`: SLA clocks [§11]
* :func:`resolve_local` [§1.1], :func:`parse_instant`, :func:`format_local`
* errors: :class:`Refusal` (the one error model, :class:`ErrorKind`),
  :class:`DuetimeError`, :class:`InvalidArgument`, :class:`OutOfRange`
"""

from .calendar import Calendar, DateOverride, ExtraWorkingDay, Holiday, Interval, WeekPeriod
from .clock import (
    Anchor,
    ClockEvent,
    ClockState,
    EventType,
    FailedPrecondition,
    Measure,
    Status,
    apply_event,
    start_clock,
)
from .compiled import CompiledCalendar
from .durations import Duration, DurationKind, NominalParts, parse_duration
from .engine import RULES_VERSION, AtClose, bd_between, business_time_between, compute_due
from .explain import Step, fmt_amount
from .queries import (
    BusinessTime,
    Deadline,
    DueAnswer,
    OpenStatus,
    Schedule,
    ScheduledDeadline,
    business_time,
    due_answer,
    open_status,
    schedule,
)
from .errors import DuetimeError, ErrorKind, FieldViolation, InvalidArgument, OutOfRange, Refusal
from .zones import from_us, get_zone, parse_instant, resolve_local, to_us
from .zones import format_local as _format_local_us


def format_local(instant, calendar: Calendar) -> str:
    """RFC 3339 text of ``instant`` (aware datetime) with ``calendar``'s zone offset."""
    return _format_local_us(to_us(instant), calendar.zone)


__all__ = [
    "Anchor",
    "ClockEvent",
    "ClockState",
    "EventType",
    "FailedPrecondition",
    "Measure",
    "Status",
    "apply_event",
    "start_clock",
    "AtClose",
    "BusinessTime",
    "DateOverride",
    "Deadline",
    "DueAnswer",
    "ExtraWorkingDay",
    "OpenStatus",
    "Schedule",
    "ScheduledDeadline",
    "Step",
    "business_time",
    "due_answer",
    "fmt_amount",
    "open_status",
    "schedule",
    "Calendar",
    "CompiledCalendar",
    "DuetimeError",
    "ErrorKind",
    "Refusal",
    "Duration",
    "DurationKind",
    "FieldViolation",
    "Holiday",
    "Interval",
    "InvalidArgument",
    "NominalParts",
    "OutOfRange",
    "RULES_VERSION",
    "WeekPeriod",
    "bd_between",
    "business_time_between",
    "compute_due",
    "format_local",
    "from_us",
    "get_zone",
    "parse_duration",
    "parse_instant",
    "resolve_local",
    "to_us",
]
