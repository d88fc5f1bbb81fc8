"""The ``duetime.v1`` messages ⇄ the app's domain values: the one module that knows both.

Only the transports (the gRPC servicer, HTTP through it, the CLI, batch) and
the composition root import it. It holds:

- the recorded methods (:class:`WireMethod`, one per computing RPC): how a
  request message is read into domain values (instants, durations, a
  :class:`WireCalendar`), answered by the use cases of
  :mod:`duetime.app.answers`, and written back as a response message; and how
  request and response are stored in a record: their canonical (deterministic)
  serialization, byte for byte what records have always held;
- the reverse for what the app reads back: records (:func:`record_of`), pages
  of records, the CalendarService's answers;
- the JSON forms the JSON faces (HTTP, ``duetime batch``) read beyond the
  protobuf JSON mapping (:func:`canonical_json`: instants as the command
  line writes them, enum values by short name) and how they print messages
  (:func:`message_json`: false, zero and empty fields too).

Errors name the request's fields as the wire spells them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
import json
import math
import re
from datetime import date, datetime

from google.protobuf import any_pb2, duration_pb2, json_format, timestamp_pb2
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import DecodeError, Message

from duetime import parsing, tzdb
from duetime.api.json_print import to_json_object
from duetime.app import (
    Answering,
    CalendarInfo,
    HolidayList,
    Limits,
    RecordedResponse,
    RecordPage,
    ResolvedCalendar,
    answers,
    name_problem,
    renamed,
    too_long,
)
from duetime.app import record_filter as domain_record_filter
from duetime.app.catalog_reads import PolicyListing, PolicyView
from duetime.app.limits import DEFAULT_LIMITS, check_length, explanation_problem, explanation_weight
from duetime.bundles import Bundle
from duetime.core import (
    RULES_VERSION,
    Anchor,
    AtClose,
    Calendar,
    ClockEvent,
    ClockState,
    Deadline,
    EventType,
    FieldViolation,
    InvalidArgument,
    Measure,
    Refusal,
    OutOfRange,
    Status,
    Step,
    from_us,
    parse_duration,
)
from duetime.core.clock import measure_of
from duetime.core.durations import Roll, with_landing
from duetime.core.engine import start_us
from duetime.core.periods import page_token, read_page_token
from duetime.core.sla import BusinessEvent
from duetime.core.sla_metrics import clock_falls, parse_warning
from duetime.core.calendar import DEFAULT_CALENDAR_LIMITS, MAX_HOLIDAYS, CalendarLimits, size_problems
from duetime.core.zones import MAX_DATE, MIN_DATE
from duetime.core.zones import format_local as format_local_us
from duetime.ledger import LedgerRow, RecordFilter
from duetime.v1 import duetime_pb2 as pb

_SERVICE = pb.DESCRIPTOR.services_by_name["DueTimeService"]
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")

# ---------------------------------------------------------------------------
# calendars


class WireCalendar:
    """A request's Calendar message as the app's
    :class:`~duetime.app.CalendarRequest`: checked and parsed only when the
    app's cache does not hold it already."""

    __slots__ = ("message",)

    def __init__(self, message: pb.Calendar):
        self.message = message

    @property
    def bundle(self) -> str:
        return self.message.bundle

    def key(self) -> bytes:
        """The message's deterministic serialization."""
        return self.message.SerializeToString(deterministic=True)

    def text_problems(self, limits: Limits) -> list[FieldViolation]:
        """What is too long or too many in the calendar, or a name holding a
        control character: checked before the calendar is parsed."""
        return calendar_text_problems(self.message, limits)

    def build(self, check: Callable[[], None] | None = None,
              limits: CalendarLimits = DEFAULT_CALENDAR_LIMITS) -> Calendar:
        return calendar_from_proto(self.message, check=check, limits=limits)

    def set_beside_bundle(self) -> list[str]:
        return [fd.name for fd, _ in self.message.ListFields()
                if fd.name not in ("bundle", "holidays")]

    def extra_holidays(self) -> Calendar | None:
        holidays = self.message.holidays
        if not holidays:
            return None
        return Calendar.from_text(holidays=[(h.date, h.name) for h in holidays],
                                  field="calendar")

    def same_as(self, other: object) -> bool:
        return isinstance(other, WireCalendar) and self.message == other.message


def _week_day_problems(week, field: str) -> list[FieldViolation]:
    """A weekend or a week of working hours (of a calendar or a week period)
    naming more days than a week has: a day may be given once each."""
    return [FieldViolation(f"{field}.{part}", f"names {count} days; a week has 7, each given "
                                              "at most once")
            for part, count in (("weekend.days", len(week.weekend.days)),
                                ("working_hours.days", len(week.working_hours.days)))
            if count > 7]


def calendar_text_problems(cal: pb.Calendar, limits: Limits = DEFAULT_LIMITS,
                           field: str = "calendar") -> list[FieldViolation]:
    """What is too long or too many in a request calendar, or a name holding a
    control character: checked before the calendar is parsed."""
    problems = [too_long(cal.time_zone, f"{field}.time_zone", limits.max_time_zone),
                too_long(cal.bundle, f"{field}.bundle", limits.max_bundle_ref)]
    problems += _week_day_problems(cal, field)
    if len(cal.week_periods) <= limits.calendar.max_week_periods:
        for i, period in enumerate(cal.week_periods):
            problems += _week_day_problems(period, f"{field}.week_periods[{i}]")
    if len(cal.week_periods) > limits.calendar.max_week_periods:
        problems.append(FieldViolation(
            f"{field}.week_periods", f"{len(cal.week_periods)} week periods given; at most "
            f"{limits.calendar.max_week_periods} are allowed in one calendar (split the years into several calendars)"))
    for name, items in (("holidays", cal.holidays), ("date_overrides", cal.date_overrides),
                        ("extra_working_days", cal.extra_working_days)):
        if len(items) <= MAX_HOLIDAYS:
            problems += [name_problem(item.name, f"{field}.{name}[{i}].name", limits.max_name)
                         for i, item in enumerate(items)]
    problems += size_problems(limits.calendar, field,
                              week=[len(d.intervals) for d in cal.working_hours.days],
                              overrides=[len(o.intervals) for o in cal.date_overrides],
                              holidays=len(cal.holidays), extra_working_days=len(cal.extra_working_days))
    return [p for p in problems if p is not None]


def calendar_from_proto(cal: pb.Calendar, check: Callable[[], None] | None = None,
                        limits: CalendarLimits = DEFAULT_CALENDAR_LIMITS) -> Calendar:
    """Build a core Calendar from its proto form.

    Unset ``weekend`` → default (Sat+Sun); set with no days → no weekend.
    Unset ``working_hours`` → default hours. Weekday enums pass as their ISO
    numbers; the core rejects 0 (UNSPECIFIED) and unknown values, naming fields
    such as ``calendar.weekend.days[0]``. Empty ``holidays_valid_until`` → no
    horizon. Raises InvalidArgument (or OutOfRange for dates outside the
    supported range). ``check``: a cooperative check (a call's deadline)
    the core calls as it goes (see :meth:`Calendar.from_text`).
    """
    weekend = [int(d) for d in cal.weekend.days] if cal.HasField("weekend") else None
    hours = (
        [(int(d.weekday), _intervals(d.intervals)) for d in cal.working_hours.days]
        if cal.HasField("working_hours")
        else None
    )
    return Calendar.from_text(
        time_zone=cal.time_zone or None,
        weekend=weekend,
        holidays=[(h.date, h.name) for h in cal.holidays],
        working_hours=hours,
        field="calendar",
        date_overrides=[
            (o.date, _intervals(o.intervals), o.closed, o.name) for o in cal.date_overrides
        ],
        extra_working_days=[(x.date, x.name) for x in cal.extra_working_days],
        holidays_valid_until=cal.holidays_valid_until or None,
        check=check,
        limits=limits,
        week_periods=[_week_period(p) for p in cal.week_periods],
    )


def _week_period(p: pb.WeekPeriod) -> tuple:
    """(from_date, weekend or None, working hours or None) of one week period (docs/semantics.md §16)."""
    return (
        p.from_date,
        [int(d) for d in p.weekend.days] if p.HasField("weekend") else None,
        [(int(d.weekday), _intervals(d.intervals)) for d in p.working_hours.days]
        if p.HasField("working_hours") else None,
    )


def _intervals(intervals: Iterable[pb.TimeInterval]) -> list[tuple[str, str]]:
    return [(i.start, i.end) for i in intervals]


def calendar_to_proto(cal: Calendar) -> pb.Calendar:
    """``cal`` written out in full as a Calendar message (every part set)."""
    def intervals(ivs) -> list[pb.TimeInterval]:
        return [pb.TimeInterval(start=a, end=b) for a, b in (iv.text() for iv in ivs)]

    return pb.Calendar(
        time_zone=cal.time_zone,
        holidays=[pb.Holiday(date=h.date.isoformat(), name=h.name) for h in cal.holidays],
        weekend=pb.WeekendDays(days=sorted(cal.weekend)),
        working_hours=pb.WorkingHours(days=[
            pb.DayHours(weekday=wd, intervals=intervals(ivs))
            for wd, ivs in enumerate(cal.working_hours, start=1) if ivs
        ]),
        date_overrides=[
            pb.DateOverride(date=o.date.isoformat(), intervals=intervals(o.intervals),
                            closed=o.closed, name=o.name)
            for o in cal.date_overrides
        ],
        extra_working_days=[pb.ExtraWorkingDay(date=x.date.isoformat(), name=x.name)
                            for x in cal.extra_working_days],
        holidays_valid_until=(cal.holidays_valid_until.isoformat()
                              if cal.holidays_valid_until else ""),
        week_periods=[
            pb.WeekPeriod(from_date=p.from_date.isoformat(), weekend=pb.WeekendDays(days=sorted(p.weekend)),
                          working_hours=pb.WorkingHours(days=[
                              pb.DayHours(weekday=wd, intervals=intervals(ivs))
                              for wd, ivs in enumerate(p.working_hours, start=1) if ivs]))
            for p in cal.week_periods
        ],
    )


# ---------------------------------------------------------------------------
# instants, durations, enums


_TIMESTAMP_SECONDS = range(-62_135_596_800, 253_402_300_800)
"""A Timestamp's ``seconds`` from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z."""


def timestamp_us(ts: timestamp_pb2.Timestamp, field: str) -> int:
    """Microseconds since the Unix epoch of a Timestamp.

    Raises InvalidArgument if ``nanos`` is outside 0..999999999 or not a whole
    number of microseconds (duetime's resolution), OutOfRange if ``seconds``
    is outside the Timestamp range 0001-01-01 .. 9999-12-31.
    """
    nanos = ts.nanos
    if not 0 <= nanos < 1_000_000_000 or nanos % 1000:
        raise InvalidArgument.at(
            field, f"nanos {nanos} is not a whole number of microseconds in 0..999999999"
        )
    seconds = ts.seconds
    if seconds not in _TIMESTAMP_SECONDS:
        raise OutOfRange.at(
            field, f"seconds {seconds} is outside the Timestamp range 0001-01-01 .. 9999-12-31"
        )
    return seconds * 1_000_000 + nanos // 1000


def timestamp_to_datetime(ts: timestamp_pb2.Timestamp, field: str) -> datetime:
    """Aware UTC datetime of a Timestamp; errors as :func:`timestamp_us`."""
    return from_us(timestamp_us(ts, field))


def _instants(request: Message, *fields: str, prefix: str = "") -> list[datetime]:
    """The required Timestamp ``fields`` of ``request`` as aware datetimes;
    errors name ``prefix + field`` (``prefix`` e.g. ``"event."``).

    Raises InvalidArgument naming every missing field, else the first
    conversion error (see :func:`timestamp_to_datetime`).
    """
    missing = [f for f in fields if not request.HasField(f)]
    if missing:
        raise InvalidArgument([FieldViolation(prefix + f, "is required (an instant)")
                               for f in missing])
    return [timestamp_to_datetime(getattr(request, f), prefix + f) for f in fields]


_AT_CLOSE = {
    pb.AT_CLOSE_UNSPECIFIED: AtClose.END_OF_WINDOW,
    pb.AT_CLOSE_END_OF_WINDOW: AtClose.END_OF_WINDOW,
    pb.AT_CLOSE_NEXT_OPEN: AtClose.NEXT_OPEN,
}


def _at_close(value: int) -> AtClose:
    if value not in _AT_CLOSE:
        raise InvalidArgument.at("at_close", f"{value} is not an AtClose value (0, 1 or 2)")
    return _AT_CLOSE[value]


_ROLLS = {pb.ROLL_UNSPECIFIED: None,
          **{pb.Roll.Value(f"ROLL_{r.name}"): r for r in Roll}}


def landed_duration(duration: str, roll: int, landing_time: str, field: str = "duration",
                    roll_field: str = "roll", time_field: str = "landing_time") -> str:
    """The duration text that ``duration`` with the request fields ``roll``
    (a ``pb.Roll`` number) and ``landing_time`` beside it means
    (docs/semantics.md §15): ``"P1M"`` with ROLL_FOLLOWING and ``"end"`` is
    ``"P1M@following@end"``. Neither field set: ``duration`` unchanged.
    InvalidArgument naming the fields when both the text and the fields give
    a landing rule, for an unknown roll number and as
    :func:`duetime.core.durations.with_landing` says."""
    if not roll and not landing_time:
        return duration
    if roll not in _ROLLS:
        names = ", ".join(pb.Roll.Name(n) for n in sorted(_ROLLS) if n)
        raise InvalidArgument.at(roll_field, f"{roll} is not a Roll value ({names})")
    d = parse_duration(duration, field)
    return with_landing(d, _ROLLS[roll], landing_time, field=field, roll_field=roll_field,
                        time_field=time_field).text


def _fold_landing(message: Message) -> None:
    """Write ``message``'s ``roll`` and ``landing_time`` fields into its
    ``duration`` text and clear them (``"P1M"`` + ROLL_FOLLOWING is
    ``"P1M@following"``), so the two ways of giving a landing rule
    (docs/semantics.md §15) are one request. Fields that do not fold (they
    are refused when the request is answered) are left as they are."""
    if not (message.roll or message.landing_time):
        return
    try:
        text = landed_duration(message.duration, message.roll, message.landing_time)
    except Refusal:
        return
    message.duration = text
    message.ClearField("roll")
    message.ClearField("landing_time")


def _micros(message_type, us: int | None):
    """A Timestamp (µs since the epoch) or Duration (signed µs) of ``us``;
    None stays None, leaving the field unset."""
    if us is None:
        return None
    value = message_type()
    value.FromMicroseconds(us)
    return value


def _timestamp(us: int | None) -> timestamp_pb2.Timestamp | None:
    return _micros(timestamp_pb2.Timestamp, us)


def _duration(us: int | None) -> duration_pb2.Duration | None:
    return _micros(duration_pb2.Duration, us)


def _local(us: int, calendar: Calendar) -> str:
    """RFC 3339 text of instant ``us`` with ``calendar``'s zone offset."""
    return format_local_us(us, calendar.zone)


def _explanation(steps: Iterable[Step]) -> list[pb.ExplanationStep]:
    return [
        pb.ExplanationStep(
            kind=s.kind,
            text=s.text,
            local_date=s.local_date,
            start_time=_timestamp(s.start_us),
            end_time=_timestamp(s.end_us),
            amount=_duration(s.amount_us),
        )
        for s in steps
    ]


def _answer(response_type, calendar: ResolvedCalendar, warnings: Iterable[str], **fields):
    """A ``response_type`` with ``fields`` and the parts every answer carries
    (zone, versions, warnings); ``record_id`` is left to the recorder."""
    return response_type(
        time_zone=calendar.calendar.time_zone,
        calendar_version=calendar.version,
        rules_version=RULES_VERSION,
        tzdata_version=tzdb.tzdata_version(),
        warnings=list(warnings),
        **fields,
    )


# ---------------------------------------------------------------------------
# the computing calls: request message → domain → use case → response message


def answer_due_time(request: pb.ComputeDueTimeRequest,
                    answering: Answering) -> pb.ComputeDueTimeResponse:
    """``request.start + request.duration`` under ``request.calendar``
    (``docs/semantics.md``, "Durations"); no record id. Raises
    InvalidArgument (missing ``start``, bad duration, calendar or
    ``at_close``, unknown bundle) or OutOfRange (the holiday horizon, a
    bundle's year range)."""
    if not request.HasField("start"):
        raise InvalidArgument([FieldViolation("start", "is required (an instant)")])
    start = timestamp_us(request.start, "start")  # µs: the core checks it as it would a datetime
    duration = request.duration
    if len(duration) > answering.limits.max_duration_text:
        check_length(duration, "duration", answering.limits.max_duration_text)
    if request.roll or request.landing_time:
        check_length(request.landing_time, "landing_time", answering.limits.max_duration_text)
        duration = landed_duration(duration, request.roll, request.landing_time)
    cal = answering.calendar(WireCalendar(request.calendar))
    at_close = _AT_CLOSE.get(request.at_close) or _at_close(request.at_close)
    answer = answers.due_time(start, duration, cal, at_close, request.explain)
    # The most frequent answer, in the fewest calls: its fields are set in
    # place (passing a built Timestamp or empty lists to the constructor
    # would copy them), its local time formatted here.
    due_us = answer.due_us
    calendar = cal.calendar
    response = pb.ComputeDueTimeResponse(
        time_zone=calendar.time_zone, calendar_version=cal.version,
        rules_version=RULES_VERSION, tzdata_version=tzdb.tzdata_version(),
        due_local=format_local_us(due_us, calendar.zone))
    due = response.due
    due.seconds, micros = divmod(due_us, 1_000_000)
    due.nanos = micros * 1000
    if answer.warnings:
        response.warnings.extend(answer.warnings)
    if answer.steps:
        response.explanation.extend(_explanation(answer.steps))
    return response


def answer_business_time(request: pb.ComputeBusinessTimeRequest,
                         answering: Answering) -> pb.ComputeBusinessTimeResponse:
    """Open time in ``[start_time, end_time)`` and the business days between."""
    start, end = _instants(request, "start_time", "end_time")
    cal = answering.calendar(WireCalendar(request.calendar))
    answer = answers.open_time_between(start, end, cal, request.explain)
    return _answer(
        pb.ComputeBusinessTimeResponse, cal, answer.warnings,
        business_time=_duration(answer.open_us),
        business_days=answer.business_days,
        explanation=_explanation(answer.steps),
    )


def answer_open_status(request: pb.GetOpenStatusRequest,
                       answering: Answering) -> pb.GetOpenStatusResponse:
    """Whether ``request.calendar`` is open at ``request.time``."""
    (at,) = _instants(request, "time")
    cal = answering.calendar(WireCalendar(request.calendar))
    status = answers.open_status_at(at, cal)
    interval = status.interval and pb.OpenInterval(
        start_time=_timestamp(status.interval[0]), end_time=_timestamp(status.interval[1])
    )
    response = _answer(
        pb.GetOpenStatusResponse, cal, status.warnings,
        open=status.is_open,
        current_interval=interval,
        next_open_time=_timestamp(status.next_open_us),
        next_close_time=_timestamp(status.next_close_us),
        business_day=status.is_business_day,
        local_date=status.local_date.isoformat(),
        closed_reason=status.reason or "",
        holiday_name=status.holiday_name,
    )
    if request.include_last_run:
        _add_last_run(response, at, cal)
    return response


# --- calendar queries (docs/semantics.md §9.1) --------------------------------


def _add_last_run(response: pb.GetOpenStatusResponse, at: datetime, cal: ResolvedCalendar) -> None:
    """Set ``last_open_time`` and ``last_close_time`` (GetOpenStatus with
    ``include_last_run``)."""
    bounds = answers.last_run_at(at, cal)
    if bounds.last_open_us is not None:
        response.last_open_time.FromMicroseconds(bounds.last_open_us)
    if bounds.last_close_us is not None:
        response.last_close_time.FromMicroseconds(bounds.last_close_us)


def _open_periods_query(request: pb.ListOpenPeriodsRequest, version: str) -> bytes:
    """The bytes a page token is bound to: the request's instants and
    calendar (page size, token and key left out) and the calendar version."""
    query = pb.ListOpenPeriodsRequest(start_time=request.start_time, end_time=request.end_time)
    if request.calendar.ByteSize():
        query.calendar.CopyFrom(request.calendar)
    return query.SerializeToString(deterministic=True) + b"|" + version.encode()


def answer_open_periods(request: pb.ListOpenPeriodsRequest,
                        answering: Answering) -> pb.ListOpenPeriodsResponse:
    """One page of the open periods in ``[start_time, end_time)``. Raises
    InvalidArgument (a missing instant, ``end_time`` before ``start_time``,
    a negative ``page_size``, a ``page_token`` of another query) or
    OutOfRange (the holiday horizon, a bundle's years)."""
    start, end = _instants(request, "start_time", "end_time")
    cal = answering.calendar(WireCalendar(request.calendar))
    query = _open_periods_query(request, cal.version)

    def resume(a: int, b: int) -> int | None:
        return read_page_token(request.page_token, query, a, b) if request.page_token else None

    answer = answers.open_periods_between(start, end, cal, request.page_size, resume)
    zone = cal.calendar.zone
    page = answer.page
    return _answer(
        pb.ListOpenPeriodsResponse, cal, answer.warnings,
        periods=[pb.OpenPeriod(start_time=_timestamp(p.start_us), end_time=_timestamp(p.end_us),
                               local_date=p.local_date.isoformat(),
                               start_local=format_local_us(p.start_us, zone),
                               end_local=format_local_us(p.end_us, zone))
                 for p in page.periods],
        next_page_token=page_token(query, page.resume_us) if page.resume_us is not None else "",
    )


def answer_business_day_count(request: pb.CountBusinessDaysRequest,
                              answering: Answering) -> pb.CountBusinessDaysResponse:
    """The business days from ``from_date`` to ``to_date``, both included.
    Raises InvalidArgument (a missing or bad date, ``to_date`` before
    ``from_date``) or OutOfRange (a date outside 1900..2199, the holiday
    horizon, a bundle's years)."""
    first = local_date(request.from_date, "from_date")
    last = local_date(request.to_date, "to_date")
    cal = answering.calendar(WireCalendar(request.calendar))
    count, warnings = answers.business_days_in(first, last, cal)
    return _answer(pb.CountBusinessDaysResponse, cal, warnings, business_days=count)


def _check_deadlines(deadlines: Sequence[pb.DeadlineSpec], limits: Limits) -> None:
    """At most ``limits.max_deadlines``, each with short texts and plain names."""
    if len(deadlines) > limits.max_deadlines:
        raise InvalidArgument.at("deadlines", f"has {len(deadlines)} deadlines; at most "
                                              f"{limits.max_deadlines} are allowed")
    problems = []
    for i, d in enumerate(deadlines):
        problems += [name_problem(d.name, f"deadlines[{i}].name", limits.max_name),
                     name_problem(d.after, f"deadlines[{i}].after", limits.max_name),
                     too_long(d.duration, f"deadlines[{i}].duration", limits.max_duration_text),
                     too_long(d.landing_time, f"deadlines[{i}].landing_time", limits.max_duration_text)]
    if problems := [p for p in problems if p is not None]:
        raise InvalidArgument(problems)


def answer_schedule(request: pb.ComputeScheduleRequest,
                    answering: Answering) -> pb.ComputeScheduleResponse:
    """Every deadline's due time from ``request.entered_time``."""
    (entered,) = _instants(request, "entered_time")
    _check_deadlines(request.deadlines, answering.limits)
    weight = explanation_weight(request.calendar)
    if request.explain and (problem := explanation_problem(
            [weight] * len(request.deadlines), "explain", "deadlines",
            answering.limits.max_explanation_weight,
            fix="explain is one flag for the whole schedule: ask for the explanation in requests "
                f"of at most {max(answering.limits.max_explanation_weight // weight, 1)} "
                "deadlines each, or compute the schedule without it")):
        raise InvalidArgument([problem])
    cal = answering.calendar(WireCalendar(request.calendar))
    answer = answers.deadlines_from(
        entered, [Deadline(d.name, landed_duration(d.duration, d.roll, d.landing_time, f"deadlines[{i}].duration",
                                                   f"deadlines[{i}].roll", f"deadlines[{i}].landing_time"), d.after)
                  for i, d in enumerate(request.deadlines)], cal,
        _at_close(request.at_close), request.explain, answering.check)
    deadlines = [
        pb.ScheduledDeadline(
            name=d.name,
            due_time=_timestamp(d.due_us),
            due_local=_local(d.due_us, cal.calendar),
            from_time=_timestamp(d.from_us),
            after=d.after,
            explanation=_explanation(d.steps),
        )
        for d in answer.deadlines
    ]
    next_due = next(d for d in deadlines if d.name == answer.next_due)
    return _answer(
        pb.ComputeScheduleResponse, cal, answer.warnings,
        deadlines=deadlines, next_due=next_due.name, next_due_time=next_due.due_time,
    )


# --- SLA clocks (docs/semantics.md, "SLA clocks"): the state on the wire


def _enum_table(enum, prefix: str, members) -> dict[int, object]:
    """Proto enum number → core member, by name (``CLOCK_STATUS_RUNNING`` → RUNNING)."""
    return {enum.Value(f"{prefix}{m.value}"): m for m in members}


_MEASURES = _enum_table(pb.ClockMeasure, "CLOCK_MEASURE_", Measure)
_STATUSES = _enum_table(pb.ClockStatus, "CLOCK_STATUS_", Status)
_EVENT_TYPES = _enum_table(pb.ClockEventType, "CLOCK_EVENT_TYPE_", EventType)
_ANCHORS = {pb.RETARGET_ANCHOR_UNSPECIFIED: Anchor.EVENT,
            **_enum_table(pb.RetargetAnchor, "RETARGET_ANCHOR_", Anchor)}
_MEASURE_NUMBERS = {m: n for n, m in _MEASURES.items()}
_STATUS_NUMBERS = {s: n for n, s in _STATUSES.items()}

# What each status requires and forbids in a client-supplied state.
_STATE_FIELDS = {
    Status.RUNNING: (("deadline_time", "running_since_time"), ("remaining", "met")),
    Status.PAUSED: (("remaining",), ("deadline_time", "running_since_time", "met")),
    Status.STOPPED: (("met",), ("deadline_time", "remaining", "running_since_time")),
}


def _enum_value(table: dict, value: int, field: str, enum) -> object:
    """The core member of proto enum ``value``; InvalidArgument on ``field``
    for 0 (UNSPECIFIED) and unknown numbers."""
    if value not in table:
        names = ", ".join(enum.Name(n) for n in sorted(set(table)) if n)
        raise InvalidArgument.at(field, f"{value} is not a {enum.DESCRIPTOR.name} value ({names})")
    return table[value]


def clock_state_to_proto(state: ClockState, calendar: pb.Calendar, version: str) -> pb.ClockState:
    """The wire form of a core clock state counting in ``calendar`` (pinned)
    of version ``version``."""
    return pb.ClockState(
        target=state.target,
        measure=_MEASURE_NUMBERS[state.measure],
        status=_STATUS_NUMBERS[state.status],
        deadline_time=_timestamp(state.deadline_us),
        remaining=_duration(state.remaining_us),
        start_time=_timestamp(state.started_us),
        last_event_time=_timestamp(state.last_event_us),
        running_since_time=_timestamp(state.running_since_us),
        running_intervals=[pb.RunningInterval(start_time=_timestamp(a), end_time=_timestamp(b))
                           for a, b in state.intervals],
        breach_time=_timestamp(state.breached_us),
        met=state.met,
        recomputations=state.recomputations,
        calendar=calendar,
        calendar_version=version,
    )


def clock_state_from_proto(
    state: pb.ClockState, answering: Answering
) -> tuple[ClockState, ResolvedCalendar]:
    """The core clock state of a client-supplied ClockState, and its calendar
    (resolved through ``answering``).

    Raises InvalidArgument naming the field under ``state.``: an unspecified
    or unknown enum, a field its status requires missing or one it forbids
    set, a measure that does not fit the target, a calendar that does not
    resolve, or resolves to another version than ``calendar_version``;
    OutOfRange for an instant outside the supported range (local dates
    1900-01-01..2199-12-31).
    """
    limits = answering.limits
    status = _enum_value(_STATUSES, state.status, "state.status", pb.ClockStatus)
    measure = _enum_value(_MEASURES, state.measure, "state.measure", pb.ClockMeasure)
    required, forbidden = _STATE_FIELDS[status]
    problems = [FieldViolation(f"state.{f}", "is required (an instant)")
                for f in ("start_time", "last_event_time") if not state.HasField(f)]
    problems += [FieldViolation(f"state.{f}", f"is required while {status.value}")
                 for f in required if not state.HasField(f)]
    problems += [FieldViolation(f"state.{f}", f"must be unset while {status.value}")
                 for f in forbidden if state.HasField(f)]
    problems += [FieldViolation(f"state.running_intervals[{i}].{f}", "is required (an instant)")
                 for i, iv in enumerate(state.running_intervals)
                 for f in ("start_time", "end_time") if not iv.HasField(f)]
    if not 0 <= state.recomputations < limits.max_recomputations:
        problems.append(FieldViolation("state.recomputations",
                                       f"must be 0 .. {limits.max_recomputations - 1}"))
    if len(state.running_intervals) > limits.max_running_intervals:
        problems.append(FieldViolation("state.running_intervals",
                                       f"{len(state.running_intervals)} intervals; at most "
                                       f"{limits.max_running_intervals} (a clock keeps one per "
                                       "pause and resume; past that, start a new clock with the "
                                       "time left as its target)"))
    if long_target := too_long(state.target, "state.target", limits.max_duration_text):
        problems.append(long_target)
    if problems:
        raise InvalidArgument(problems)
    target_measure = measure_of(parse_duration(state.target, "state.target"), "state.target")
    if target_measure is not measure:
        raise InvalidArgument.at("state.measure", f"{pb.ClockMeasure.Name(state.measure)} does "
                                                  f"not fit target {state.target!r}")
    with renamed(lambda field: f"state.{field}"):
        cal = answering.calendar(WireCalendar(state.calendar))
    if cal.version != state.calendar_version:
        raise InvalidArgument.at("state.calendar", f"resolves to version {cal.version}, but the "
                                 f"state was computed in {state.calendar_version or 'none'}: "
                                 "pass the state back as duetime returned it")

    def at(message: Message, field: str, name: str) -> int | None:
        # start_us: an instant outside the supported range is OUT_OF_RANGE
        # here, as no state duetime returned could hold it.
        if not message.HasField(name):
            return None
        where = f"{field}.{name}"
        return start_us(timestamp_to_datetime(getattr(message, name), where), cal.calendar, where)

    core = ClockState(
        target=state.target,
        measure=measure,
        status=status,
        started_us=at(state, "state", "start_time"),
        last_event_us=at(state, "state", "last_event_time"),
        deadline_us=at(state, "state", "deadline_time"),
        remaining_us=state.remaining.ToMicroseconds() if state.HasField("remaining") else None,
        running_since_us=at(state, "state", "running_since_time"),
        intervals=tuple(
            (at(iv, f"state.running_intervals[{i}]", "start_time"),
             at(iv, f"state.running_intervals[{i}]", "end_time"))
            for i, iv in enumerate(state.running_intervals)),
        breached_us=at(state, "state", "breach_time"),
        met=state.met if state.HasField("met") else None,
        recomputations=state.recomputations,
    )
    problems = []
    previous_end = None
    for i, (began, ended) in enumerate(core.intervals):
        where = f"state.running_intervals[{i}]"
        if ended < began:
            problems.append(FieldViolation(f"{where}.end_time", "is before its start_time"))
        elif previous_end is not None and began < previous_end:
            problems.append(FieldViolation(f"{where}.start_time",
                                           "is before the end of the interval before it "
                                           "(intervals are in order and do not overlap)"))
        previous_end = ended if previous_end is None else max(previous_end, ended)
    if problems:
        raise InvalidArgument(problems)
    return core, cal


def _pinned(given: pb.Calendar, cal: ResolvedCalendar) -> pb.Calendar:
    """``given`` with a bundle reference pinned to the version resolved."""
    pinned = pb.Calendar()
    pinned.CopyFrom(given)
    if cal.bundle is not None:
        pinned.bundle = cal.bundle.ref
    return pinned


def answer_start_clock(request: pb.StartClockRequest,
                       answering: Answering) -> pb.StartClockResponse:
    """A new RUNNING clock. Raises InvalidArgument (missing ``start_time``, a
    target without a measure, a bad calendar) or OutOfRange."""
    (start,) = _instants(request, "start_time")
    check_length(request.target, "target", answering.limits.max_duration_text)
    cal = answering.calendar(WireCalendar(request.calendar))
    thresholds = _warning_thresholds(request, answering)
    clock = answers.new_clock(request.target, start, cal)
    response = _answer(pb.StartClockResponse, cal, clock.warnings,
                       state=clock_state_to_proto(clock.state, _pinned(request.calendar, cal),
                                                  cal.version))
    _add_clock_next_action(response, None, None, clock.state, thresholds, cal.calendar, start_us(start, cal.calendar))
    return response


def _clock_event(event: pb.ClockEvent, calendar: Calendar, limits: Limits) -> ClockEvent:
    """The core event of ``request.event``; InvalidArgument naming ``event.*``."""
    kind = _enum_value(_EVENT_TYPES, event.type, "event.type", pb.ClockEventType)
    check_length(event.target, "event.target", limits.max_duration_text)
    anchor = _enum_value(_ANCHORS, event.anchor, "event.anchor", pb.RetargetAnchor)
    if kind is not EventType.RETARGET:
        extra = [name for name in ("target", "anchor") if getattr(event, name)]
        if extra:
            raise InvalidArgument([FieldViolation(f"event.{name}", f"is for RETARGET only; "
                                                  f"leave it unset for {kind.value}")
                                   for name in extra])
    (when,) = _instants(event, "time", prefix="event.")
    return ClockEvent(kind, start_us(when, calendar, "event.time"), event.target, anchor)


def answer_clock_event(request: pb.ApplyClockEventRequest,
                       answering: Answering) -> pb.ApplyClockEventResponse:
    """The state after ``request.event``. Raises InvalidArgument (a bad state
    or event, see :func:`clock_state_from_proto`), FailedPrecondition (an
    event the state does not allow) or OutOfRange."""
    missing = [f for f in ("state", "event") if not request.HasField(f)]
    if missing:
        raise InvalidArgument([FieldViolation(f, "is required") for f in missing])
    state, cal = clock_state_from_proto(request.state, answering)
    event = _clock_event(request.event, cal.calendar, answering.limits)
    thresholds = _warning_thresholds(request, answering)
    clock = answers.clock_after(state, event, cal, answering.check)
    response = _answer(pb.ApplyClockEventResponse, cal, clock.warnings,
                       state=clock_state_to_proto(clock.state, request.state.calendar, cal.version))
    _add_clock_next_action(response, state, event.type, clock.state, thresholds, cal.calendar, event.at_us)
    return response


# --- a clock's warning thresholds and next action (docs/semantics.md §17) -----

def _warning_thresholds(request, answering: Answering) -> list[str]:
    """``request.warning_thresholds``, checked for count and length (the
    measure is checked once the clock's target is known)."""
    texts = list(request.warning_thresholds)
    if len(texts) > answering.limits.max_clock_warnings:
        raise InvalidArgument.at("warning_thresholds", f"has {len(texts)} thresholds; at most "
                                                       f"{answering.limits.max_clock_warnings} are allowed")
    for i, text in enumerate(texts):
        check_length(text, f"warning_thresholds[{i}]", answering.limits.max_duration_text)
    return texts


def _add_clock_next_action(response, before: ClockState | None, kind: EventType | None, state: ClockState,
                           thresholds: list[str], calendar: Calendar, at_us: int) -> None:
    """Fill ``next_action`` and ``fell_at_event`` of a StartClock or
    ApplyClockEvent answer when the request gives warning thresholds
    (docs/semantics.md §17); nothing otherwise."""
    if not thresholds:
        return
    warnings = [parse_warning(text, state.measure, f"warning_thresholds[{i}]") for i, text in enumerate(thresholds)]
    falls = clock_falls(before, kind, state, warnings, calendar, at_us)
    response.fell_at_event.extend(pb.SlaDue(metric=d.metric, kind=_DUE_KIND[d.kind], threshold=d.threshold)
                                  for d in falls.at_event)
    if falls.next_at_us is not None:
        response.next_action.time.CopyFrom(_timestamp(falls.next_at_us))
        response.next_action.due.extend(pb.SlaDue(metric=d.metric, kind=_DUE_KIND[d.kind], threshold=d.threshold)
                                        for d in falls.next_due)


def _business_events(request: pb.EvaluateSlaRequest, calendar: Calendar, limits: Limits,
                     check: Callable[[], None] | None = None) -> list[BusinessEvent]:
    if len(request.events) > limits.max_sla_events:
        raise InvalidArgument.at("events", f"has {len(request.events)} events; at most "
                                           f"{limits.max_sla_events} are allowed")
    missing = [FieldViolation(f"events[{i}].time", "is required (an instant)")
               for i, e in enumerate(request.events) if not e.HasField("time")]
    if missing:
        raise InvalidArgument(missing)
    events = []
    for i, e in enumerate(request.events):
        if check is not None and not i % 256:
            check()
        events.append(BusinessEvent(e.type, start_us(timestamp_to_datetime(e.time, f"events[{i}].time"),
                                                     calendar, f"events[{i}].time"), dict(e.attributes)))
    return events


def answer_sla_evaluation(request: pb.EvaluateSlaRequest,
                          answering: Answering) -> pb.EvaluateSlaResponse:
    """Replay ``request.events`` under ``request.policy`` (a policy of the
    catalog). Raises InvalidArgument (unknown policy, event or tier, a
    missing time), FailedPrecondition (a transition the clock refuses) or
    OutOfRange (a date outside a tier calendar's years: on ``events[i].time``)."""
    if request.HasField("as_of_time") or _declares_metrics(request.policy, answering):
        return _answer_sla_metrics(request, answering)
    sla = answers.sla_policy(request.policy, answering.catalog, answering.limits)
    events = _business_events(request, sla.initial_calendar.calendar, answering.limits, answering.check)
    answer = answers.evaluate_events(sla, events, answering.check)
    result, final = answer.result, answer.final
    timeline = [
        pb.TimelineEntry(
            event=e.event, time=_timestamp(e.at_us), action=e.action, tier=e.tier,
            status=_STATUS_NUMBERS[e.status],
            old_deadline_time=_timestamp(e.old_deadline_us),
            new_deadline_time=_timestamp(e.new_deadline_us),
            remaining=_duration(e.remaining_us), reason=e.reason,
        )
        for e in result.timeline
    ]
    return _answer(
        pb.EvaluateSlaResponse, ResolvedCalendar(final.calendar, answer.versions),
        answer.warnings,
        state=clock_state_to_proto(result.state, pb.Calendar(bundle=final.version),
                                   final.version),
        tier=result.tier, policy_version=f"{sla.policy.name}@{sla.policy.version}",
        timeline=timeline,
    )


# --- EvaluateSla with metrics, as of an instant (docs/semantics.md §17) -------

_METRIC_STATUS = {"NOT_STARTED": pb.SLA_METRIC_STATUS_NOT_STARTED, "RUNNING": pb.SLA_METRIC_STATUS_RUNNING,
                  "PAUSED": pb.SLA_METRIC_STATUS_PAUSED, "STOPPED": pb.SLA_METRIC_STATUS_STOPPED}
_ENTRY_STATUS = {"NOT_STARTED": pb.CLOCK_STATUS_UNSPECIFIED, "RUNNING": pb.CLOCK_STATUS_RUNNING,
                 "PAUSED": pb.CLOCK_STATUS_PAUSED, "STOPPED": pb.CLOCK_STATUS_STOPPED}
_DUE_KIND = {"WARNING": pb.SLA_DUE_KIND_WARNING, "BREACH": pb.SLA_DUE_KIND_BREACH}


def _declares_metrics(ref: str, answering: Answering) -> bool:
    """Whether the policy ``ref`` names (its newest version without one)
    declares metrics; False for a policy not loaded (refused later)."""
    policies = answering.catalog.policies
    name, _, version = ref.partition("@")
    versions = policies.versions(name)
    return bool(versions) and "metrics" in policies.content(f"{name}@{version or versions[-1]}")


def _answer_sla_metrics(request: pb.EvaluateSlaRequest, answering: Answering) -> pb.EvaluateSlaResponse:
    """EvaluateSla of a policy with metrics, or of any policy as of an
    instant: every metric, the next action and the instant evaluated as of;
    for a one-clock policy also the fields it always answered."""
    policy = answers.sla_metrics_policy(request.policy, answering.catalog, answering.limits)
    first = policy.initial_calendar
    events = _business_events(request, first.calendar, answering.limits, answering.check)
    as_of = (start_us(timestamp_to_datetime(request.as_of_time, "as_of_time"), first.calendar, "as_of_time")
             if request.HasField("as_of_time") else None)
    if policy.declared:
        evaluated = answers.evaluate_metric_events(policy, events, as_of, answering.check, answering.limits)
        result = evaluated.result
        response = _answer(pb.EvaluateSlaResponse, ResolvedCalendar(first.calendar, policy.versions),
                           evaluated.warnings,
                           tier=result.tier, policy_version=f"{policy.metrics.name}@{policy.metrics.version}")
    else:
        legacy = pb.EvaluateSlaRequest()
        legacy.CopyFrom(request)
        legacy.ClearField("as_of_time")
        response = answer_sla_evaluation(legacy, answering)
        result = answers.evaluate_metric_events(policy, events, as_of, answering.check, answering.limits).result
    for run, metric in zip(result.metrics, policy.metrics.metrics):
        out = response.metrics.add(name=run.name, status=_METRIC_STATUS[run.status], cycles=run.cycles,
                                   tier=run.tier)
        if run.state is not None:
            ref = metric.targets[run.tier].calendar_ref
            out.state.CopyFrom(clock_state_to_proto(run.state, pb.Calendar(bundle=ref), ref))
        if run.breach_us is not None:
            out.breach_time.CopyFrom(_timestamp(run.breach_us))
        out.timeline.extend(
            pb.TimelineEntry(event=e.event, time=_timestamp(e.at_us), action=e.action, tier=e.tier,
                             status=_ENTRY_STATUS[e.status], old_deadline_time=_timestamp(e.old_deadline_us),
                             new_deadline_time=_timestamp(e.new_deadline_us), remaining=_duration(e.remaining_us),
                             reason=e.reason, threshold=e.threshold)
            for e in run.timeline)
    if result.next_at_us is not None:
        response.next_action.time.CopyFrom(_timestamp(result.next_at_us))
        response.next_action.due.extend(pb.SlaDue(metric=d.metric, kind=_DUE_KIND[d.kind], threshold=d.threshold)
                                        for d in result.next_due)
    response.as_of_time.CopyFrom(_timestamp(result.as_of_us))
    return response


# ---------------------------------------------------------------------------
# the recorded methods


_new_tuple = tuple.__new__


@dataclass(frozen=True)
class WireMethod:
    """A computing RPC as the app's :class:`~duetime.app.RecordedMethod`:
    ``rpc`` its short name (``"ComputeDueTime"``), ``name`` the full gRPC
    method stored in records, its message types, and ``answer`` the
    function from request message (and an Answering) to response message,
    record id unset."""

    rpc: str
    name: str
    request_type: type[Message]
    response_type: type[Message]
    answer: Callable[[Message, Answering], Message]

    def idempotency_key(self, request: Message) -> str:
        return request.idempotency_key

    def request_bytes(self, request: Message) -> bytes:
        """The request's canonical bytes: its deterministic serialization,
        with a ``calendar`` given but empty left out (it means the default
        calendar, exactly as no calendar does), so one call is one request
        whatever face sent it (``docs/semantics.md §12``)."""
        empty_calendar = (self.rpc in _EMPTY_CALENDAR_IS_NONE and request.HasField("calendar")
                          and not request.calendar.ByteSize())
        landing = ((self.rpc == "ComputeDueTime" and (request.roll or request.landing_time))
                   or (self.rpc == "ComputeSchedule"
                       and any(d.roll or d.landing_time for d in request.deadlines)))
        if empty_calendar or landing:
            canonical = self.request_type()
            canonical.CopyFrom(request)
            if empty_calendar:
                canonical.ClearField("calendar")
            if self.rpc == "ComputeDueTime":
                _fold_landing(canonical)
            elif landing:
                for deadline in canonical.deadlines:
                    _fold_landing(deadline)
            request = canonical
        return request.SerializeToString(deterministic=True)

    def same_request(self, recorded: bytes, request_bytes: bytes) -> bool:
        """Whether a record's request bytes (``recorded``, as stored,
        perhaps before requests were made canonical) and a request's
        canonical bytes (:meth:`request_bytes`) are the same request."""
        if recorded == request_bytes:
            return True
        try:
            prior = self.request_type.FromString(recorded)
        except DecodeError:
            return False
        return self.request_bytes(prior) == request_bytes

    def recorded(self, response: Message, record_id: str) -> RecordedResponse:
        """Set ``response.record_id``; its canonical serialization and versions."""
        response.record_id = record_id
        # tuple.__new__: a RecordedResponse without the generated __new__'s
        # Python call (this runs once per recorded answer)
        return _new_tuple(RecordedResponse, (
            response.SerializeToString(deterministic=True), response.calendar_version,
            response.rules_version, response.tzdata_version))

    def replayed(self, data: bytes) -> Message:
        return self.response_type.FromString(data)


_EMPTY_CALENDAR_IS_NONE = frozenset({"ComputeDueTime", "ComputeBusinessTime", "GetOpenStatus",
                                     "ComputeSchedule", "StartClock"})
"""The recorded methods whose ``calendar`` field, given empty, asks for the
default calendar exactly as leaving it out does."""


def _method(rpc: str, answer: Callable) -> WireMethod:
    """The WireMethod of ``rpc``, its message types read from the proto."""
    desc = _SERVICE.methods_by_name[rpc]
    return WireMethod(rpc, f"/{_SERVICE.full_name}/{rpc}",
                      getattr(pb, desc.input_type.name), getattr(pb, desc.output_type.name),
                      answer)


DUE_TIME = _method("ComputeDueTime", answer_due_time)
BUSINESS_TIME = _method("ComputeBusinessTime", answer_business_time)
OPEN_STATUS = _method("GetOpenStatus", answer_open_status)
SCHEDULE = _method("ComputeSchedule", answer_schedule)
START_CLOCK = _method("StartClock", answer_start_clock)
CLOCK_EVENT = _method("ApplyClockEvent", answer_clock_event)
EVALUATE_SLA = _method("EvaluateSla", answer_sla_evaluation)

COMPUTE_DUE_TIME = DUE_TIME.name
"""Full gRPC method name of ComputeDueTime, as stored in records."""

METHODS = {m.name: m for m in (DUE_TIME, BUSINESS_TIME, OPEN_STATUS, SCHEDULE,
                               START_CLOCK, CLOCK_EVENT, EVALUATE_SLA)}
"""Every recorded method by its full gRPC name."""

# calendar queries (docs/semantics.md §9.1), recorded like GetOpenStatus
LIST_OPEN_PERIODS = _method("ListOpenPeriods", answer_open_periods)
COUNT_BUSINESS_DAYS = _method("CountBusinessDays", answer_business_day_count)
METHODS.update({m.name: m for m in (LIST_OPEN_PERIODS, COUNT_BUSINESS_DAYS)})
_EMPTY_CALENDAR_IS_NONE = _EMPTY_CALENDAR_IS_NONE | {"ListOpenPeriods", "CountBusinessDays"}

RPCS = {m.rpc: m for m in METHODS.values()}
"""Every recorded method by its short name (what the app is handed)."""

# Request and response message types of each recorded method.
_MESSAGES = {m.name: (m.request_type, m.response_type) for m in METHODS.values()}


# ---------------------------------------------------------------------------
# records


def _packed(message_type, data: bytes) -> any_pb2.Any:
    """An Any holding already-serialized ``data`` of ``message_type``."""
    return any_pb2.Any(
        type_url=f"type.googleapis.com/{message_type.DESCRIPTOR.full_name}", value=data
    )


def record_of(row: LedgerRow) -> pb.Record:
    """The Record message of a stored row (request and response packed as Any)."""
    request_type, response_type = _MESSAGES[row.method]
    record = pb.Record(
        record_id=row.record_id,
        method=row.method,
        idempotency_key=row.idempotency_key,
        calendar_version=row.calendar_version,
        rules_version=row.rules_version,
        tzdata_version=row.tzdata_version,
        request=_packed(request_type, row.request),
        response=_packed(response_type, row.response),
        content_sha256=row.content_sha256,
        namespace=row.namespace,
    )
    record.receive_time.FromMicroseconds(row.receive_time_us)
    return record


def record_filter(request: pb.ListRecordsRequest | pb.AnalyzeImpactRequest,
                  limits: Limits = DEFAULT_LIMITS) -> RecordFilter:
    """The ledger filter of a request's ``start_time``, ``end_time``,
    ``namespace`` (when set) and ``key_prefix`` (if it has one). Raises
    InvalidArgument for an end before the start or a bad namespace."""
    since = timestamp_us(request.start_time, "start_time") \
        if request.HasField("start_time") else None
    until = timestamp_us(request.end_time, "end_time") \
        if request.HasField("end_time") else None
    shown = ((request.end_time.ToJsonString(), request.start_time.ToJsonString())
             if since is not None and until is not None and until < since else ("", ""))
    return domain_record_filter(
        since, until, getattr(request, "key_prefix", ""),
        request.namespace if request.HasField("namespace") else None,
        *shown, limits=limits)


def records_page(page: RecordPage) -> pb.ListRecordsResponse:
    """The ListRecordsResponse of one page."""
    return pb.ListRecordsResponse(records=[record_of(row) for row in page.rows],
                                  next_page_token=page.next_page_token)


# ---------------------------------------------------------------------------
# CalendarService


def calendar_info_to_proto(info: CalendarInfo) -> pb.CalendarInfo:
    """The CalendarInfo message of a bundle's listing."""
    shown, versions = info.shown, info.versions
    return pb.CalendarInfo(
        name=info.name,
        description=shown.description,
        time_zone=shown.calendar.time_zone,
        newest_version=versions[-1].version,
        versions=[b.version for b in versions],
        first_year=shown.years[0],
        last_year=shown.years[1],
    )


def calendars_listing(infos: Iterable[CalendarInfo]) -> pb.ListCalendarsResponse:
    """The ListCalendarsResponse of every bundle's listing."""
    return pb.ListCalendarsResponse(calendars=[calendar_info_to_proto(i) for i in infos])


def bundle_to_proto(bundle: Bundle, info: CalendarInfo) -> pb.GetCalendarResponse:
    """The GetCalendarResponse of one bundle version and its bundle's listing."""
    source = bundle.content.get("source") or {}
    return pb.GetCalendarResponse(
        info=calendar_info_to_proto(info),
        calendar=calendar_to_proto(bundle.calendar),
        version=bundle.version,
        holidays_package=source.get("holidays_package") or "",
        source_country=source.get("country") or "",
        source_subdiv=source.get("subdiv") or "",
    )


def local_date(text: str, field: str) -> date:
    """A ``YYYY-MM-DD`` request date in the supported range. Raises
    InvalidArgument (empty or not a date) or OutOfRange on ``field``."""
    if not text:
        raise InvalidArgument.at(field, "is required (a local date YYYY-MM-DD)")
    try:
        day = date.fromisoformat(text) if _DATE.fullmatch(text) else None
    except ValueError:
        day = None
    if day is None:
        raise InvalidArgument.at(field, f"{text!r} is not a local date YYYY-MM-DD")
    if not MIN_DATE <= day <= MAX_DATE:
        raise OutOfRange.at(field, f"{text} is outside the supported range "
                                   f"{MIN_DATE}..{MAX_DATE}")
    return day


def holidays_query(request: pb.ListHolidaysRequest) -> tuple[date, date, WireCalendar]:
    """The first and last date and the calendar a ListHolidaysRequest asks
    about. Raises as :func:`local_date` (``start_date``, then ``end_date``)."""
    return (local_date(request.start_date, "start_date"),
            local_date(request.end_date, "end_date"), WireCalendar(request.calendar))


def holidays_to_proto(found: HolidayList) -> pb.ListHolidaysResponse:
    """The ListHolidaysResponse of a calendar's holidays in a range."""
    return pb.ListHolidaysResponse(
        holidays=[pb.Holiday(date=h.date.isoformat(), name=h.name) for h in found.holidays],
        calendar_version=found.calendar_version,
        warnings=found.warnings,
    )


# ---------------------------------------------------------------------------
# the JSON faces (HTTP bodies and query parameters, `duetime batch` lines):
# what they read beyond the protobuf JSON mapping, and how they print


class JsonValueError(ValueError):
    """A value in a request's JSON that is not one the faces read (see
    :func:`canonical_json`): ``path`` names the field as the JSON spells it
    (``start``, ``events[1].time``), ``text`` what is wrong and what to write."""

    def __init__(self, path: str, text: str):
        super().__init__(f"{path}: {text}")
        self.path = path
        self.text = text


def canonical_json(tree: object, descriptor) -> object:
    """``tree`` (a parsed JSON value meant as a ``descriptor`` message, such
    as ``pb.ComputeDueTimeRequest.DESCRIPTOR``) with the forms the JSON
    faces read beyond the protobuf JSON mapping rewritten into it
    (``docs/semantics.md §14``), changed in place and returned:

    - an instant (a ``google.protobuf.Timestamp`` field) the protobuf JSON
      mapping cannot read but the command line can (``2026-11-27T16:00Z``,
      ``2026-11-27T16:00:00.5+01:00``, a space or ``t`` for ``T``) becomes its
      RFC 3339 UTC text; one neither reads raises JsonValueError saying what
      to write (never the JSON library's message);
    - an enum value given by its short name as the docs write it (``PAUSE``,
      ``NEXT_OPEN``, ``MONDAY``; any case, ``-`` for ``_``) becomes its full
      name (``CLOCK_EVENT_TYPE_PAUSE``); an unknown name raises
      JsonValueError listing the valid values. Full names and whole numbers
      pass unchanged; a fraction (``1.5``) or ``true``/``false`` raises
      JsonValueError (an infinite number is left to the mapping).

    Everything else (unknown fields, wrong JSON types) is left for the
    protobuf JSON mapping to refuse. Not a JSON object: returned as is.
    """
    if isinstance(tree, dict):
        _canonical_message(tree, descriptor, "")
    return tree


def _canonical_message(tree: dict, descriptor, prefix: str) -> None:
    for key, value in tree.items():
        field = descriptor.fields_by_camelcase_name.get(key) or descriptor.fields_by_name.get(key)
        if field is None or value is None or (
                field.message_type is not None and field.message_type.GetOptions().map_entry):
            continue
        path = f"{prefix}{key}"
        if field.is_repeated:
            if isinstance(value, list):
                for i, item in enumerate(value):
                    value[i] = _canonical_value(field, item, f"{path}[{i}]")
        else:
            tree[key] = _canonical_value(field, value, path)


MAX_FORM_TEXT = 256
"""Most characters of an instant or an enum value's name as a request's
JSON gives it (the longest either may be is far shorter: an RFC 3339
instant with nanoseconds and an offset is 35): a longer one is refused on
its field before it is rewritten or echoed, since each rewriting or echo
would copy it whole (a 15 MB instant took twelve copies)."""


def _canonical_value(field, value: object, path: str) -> object:
    message = field.message_type
    if type(value) is str and len(value) > MAX_FORM_TEXT and (
            field.enum_type is not None
            or message is not None and message.full_name == "google.protobuf.Timestamp"):
        raise JsonValueError(path, f"is {len(value)} characters long; "
                                   f"{'an instant' if message is not None else 'a value name'} "
                                   f"is at most {MAX_FORM_TEXT}")
    if message is not None:
        if message.full_name == "google.protobuf.Timestamp":
            return _instant_json(value, path) if isinstance(value, str) else value
        if isinstance(value, dict) and not message.full_name.startswith("google.protobuf."):
            _canonical_message(value, message, f"{path}.")
        return value
    if field.enum_type is not None:
        if isinstance(value, str):
            return _enum_json(field.enum_type, value, path)
        if isinstance(value, (bool, list, dict)) or (isinstance(value, float) and math.isfinite(value)
                                                     and not value.is_integer()) \
                or (isinstance(value, int) and not _INT32[0] <= value <= _INT32[1]):
            _, words = _enum_names(field.enum_type)
            shown = json.dumps(value) if not isinstance(value, (list, dict)) else (
                "an array" if isinstance(value, list) else "an object")
            raise JsonValueError(path, f"{shown} is not a value of "
                                       f"{field.enum_type.name}: write a name or a whole "
                                       f"number, one of {words}")
        return value
    bounds = _INTEGER_BOUNDS.get(field.type)
    if bounds is not None and isinstance(value, int) and not isinstance(value, bool) \
            and not bounds[0] <= value <= bounds[1]:
        raise JsonValueError(path, f"{value} is out of range: give a whole number from {bounds[0]} to {bounds[1]}")
    return value


_INT32 = (-2**31, 2**31 - 1)
_INTEGER_BOUNDS = {
    FieldDescriptor.TYPE_INT32: _INT32, FieldDescriptor.TYPE_SINT32: _INT32, FieldDescriptor.TYPE_SFIXED32: _INT32,
    FieldDescriptor.TYPE_UINT32: (0, 2**32 - 1), FieldDescriptor.TYPE_FIXED32: (0, 2**32 - 1),
    FieldDescriptor.TYPE_INT64: (-2**63, 2**63 - 1), FieldDescriptor.TYPE_SINT64: (-2**63, 2**63 - 1),
    FieldDescriptor.TYPE_SFIXED64: (-2**63, 2**63 - 1),
    FieldDescriptor.TYPE_UINT64: (0, 2**64 - 1), FieldDescriptor.TYPE_FIXED64: (0, 2**64 - 1),
}
"""The whole numbers each integer field type holds (the protobuf JSON mapping's own
refusal of one outside names no field)."""


def _instant_json(text: str, path: str) -> str:
    """``text`` as the protobuf JSON mapping reads a Timestamp: unchanged
    when it already does, else rewritten from the command line's forms."""
    try:
        timestamp_pb2.Timestamp().FromJsonString(text)
        return text
    except ValueError:
        pass
    try:
        instant = parsing.parse_instant_text(text, path)
    except parsing.SpecError as exc:
        raise JsonValueError(path, exc.description) from None
    stamp = timestamp_pb2.Timestamp()
    stamp.FromDatetime(instant)
    return stamp.ToJsonString()


_ENUM_NAMES: dict[str, tuple[dict[str, str], str]] = {}
"""Per enum (full name): each accepted spelling (upper case) → its full
value name, and the valid values in words. Filled on first use from the
descriptors, which never change: a cache of constants."""


def _enum_names(enum) -> tuple[dict[str, str], str]:
    known = _ENUM_NAMES.get(enum.full_name)
    if known is not None:
        return known
    spellings, shown = parsing.enum_spellings(enum)
    words = (", ".join(s for s, _, _ in shown) + " (or the full names "
             + ", ".join(n for _, n, _ in shown) + ", or the numbers "
             + ", ".join(str(k) for _, _, k in shown) + ")")
    known = _ENUM_NAMES[enum.full_name] = (spellings, words)
    return known


def _enum_json(enum, text: str, path: str) -> str:
    if text in enum.values_by_name:
        return text
    spellings, words = _enum_names(enum)
    full = spellings.get(text.strip().upper().replace("-", "_"))
    if full is not None:
        return full
    try:
        int(text)
        return text  # a number as a string, as the protobuf JSON mapping reads it
    except ValueError:
        pass
    raise JsonValueError(path, f"{text!r} is not a value of {enum.name}; write one of {words}")


COMPACT_FROM = 64 << 10
"""Answers whose protobuf form is larger than this (bytes) print without
whitespace (:func:`message_json`)."""


def message_json(message: Message, indent: int | None = 2) -> str:
    """``message`` in the protobuf JSON mapping as the JSON faces print it:
    every field without presence printed even when false, zero or empty
    (``"open": false``, ``"warnings": []``), as grpc-gateway's
    ``EmitUnpopulated``; fields with presence (messages such as an unset
    ``nextOpenTime``) only when set. Non-ASCII characters as they are.
    Indented by ``indent`` spaces, except a message larger than
    :data:`COMPACT_FROM` in protobuf form, or with ``indent`` None: printed
    without whitespace (Python's indenting printer takes three times as long
    as its compact one: about 100 ms more for an answer of 1,000 explained
    due times)."""
    if indent is None or message.ByteSize() > COMPACT_FROM:
        return json.dumps(to_json_object(message), separators=(",", ":"), ensure_ascii=False)
    return json.dumps(to_json_object(message), indent=indent, ensure_ascii=False)


def message_dict(message: Message) -> dict:
    """``message`` as the JSON object :func:`message_json` prints
    (``json_format.MessageToDict`` with those options, printed by
    :func:`duetime.api.json_print.to_json_object`)."""
    return to_json_object(message)


def request_from_json(text: str | bytes, message: Message) -> Message:
    """Merge ``text`` (one JSON object) into ``message`` by the protobuf
    JSON mapping, reading the forms of :func:`canonical_json` too. Raises
    InvalidArgument on ``request``: ``field start: …`` for a value
    :func:`canonical_json` refuses, else ``is not a T in the protobuf JSON
    mapping: <why>``."""
    name = message.DESCRIPTOR.name
    try:
        tree = json.loads(text, object_pairs_hook=_unique_pairs)
    except (ValueError, RecursionError) as exc:  # JSONDecodeError, UnicodeDecodeError
        why = f"Failed to load JSON: {json_error_text(exc)}."
    else:
        if not isinstance(tree, dict):  # ParseDict would say "unhashable type: 'dict'"
            kind = {list: "an array", str: "a string", bool: "a boolean",
                    type(None): "null"}.get(type(tree), "a number")
            raise InvalidArgument.at("request", f"is {kind}, not a JSON object; give one "
                                                f"{name} as a JSON object {{...}}") from None
        try:
            json_format.ParseDict(canonical_json(tree, message.DESCRIPTOR), message)
            return message
        except JsonValueError as exc:
            raise InvalidArgument.at("request", f"field {exc.path}: {exc.text}") from None
        except (json_format.ParseError, RecursionError) as exc:
            why = str(exc)
    why = " ".join(why.split()) or "it cannot be read"
    raise InvalidArgument.at("request", f"is not a {name} in the protobuf JSON mapping: "
                                        f"{why}") from None


def json_error_text(exc: Exception) -> str:
    """What the JSON library said of a body it could not read, in the
    caller's terms (its advice on ``sys.set_int_max_str_digits`` is for
    Python programmers, not for callers)."""
    if "int_max_str_digits" in str(exc):
        return "a number has more than 4,300 digits; no field holds one that long"
    return str(exc)


def _unique_pairs(pairs: list[tuple[str, object]]) -> dict:
    """A JSON object's pairs as a dict; ValueError for a key given twice."""
    result: dict = {}
    for key, value in pairs:
        if key in result:
            raise ValueError(f"duplicate key {key}")
        result[key] = value
    return result


# --- SLA policy reads (CalendarService.ListPolicies / GetPolicy) -------------

def _policy_info_to_proto(listing: PolicyListing) -> pb.PolicyInfo:
    return pb.PolicyInfo(name=listing.name, description=listing.description,
                         newest_version=listing.versions[-1] if listing.versions else "",
                         versions=list(listing.versions))


def policies_listing(listings: Iterable[PolicyListing]) -> pb.ListPoliciesResponse:
    """The ListPoliciesResponse of every policy's listing."""
    return pb.ListPoliciesResponse(policies=[_policy_info_to_proto(p) for p in listings])


def policy_to_proto(view: PolicyView) -> pb.GetPolicyResponse:
    """The GetPolicyResponse of one policy version written out."""
    return pb.GetPolicyResponse(
        info=_policy_info_to_proto(view.listing),
        version=view.version,
        initial_tier=view.initial_tier,
        tiers=[pb.PolicyTier(name=t.name, target=t.target, measure=_MEASURE_NUMBERS[t.measure],
                             calendar_version=t.calendar_version, time_zone=t.time_zone)
               for t in view.tiers],
        events=[pb.PolicyEvent(name=e.name,
                               when_running=e.when_running.value if e.when_running else "NONE",
                               when_paused=e.when_paused.value if e.when_paused else "NONE",
                               anchor=e.anchor, description=e.description)
                for e in view.events],
        metrics=[pb.PolicyMetric(
            name=m.name,
            targets=[pb.PolicyTier(name=t.name, target=t.target, measure=_MEASURE_NUMBERS[t.measure],
                                   calendar_version=t.calendar_version, time_zone=t.time_zone)
                     for t in m.targets],
            rules=[pb.PolicyMetricRule(event=e, status=st, action=a, anchor=an) for e, st, a, an in m.rules],
            warnings=list(m.warnings))
            for m in view.metrics],
    )
