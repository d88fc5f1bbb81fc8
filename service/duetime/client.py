"""A typed Python client for the duetime service.

It hides the gRPC stubs: calls take and return aware ``datetime`` values
(returned in UTC) and ``timedelta`` amounts, answers are small frozen
dataclasses, every call carries a gRPC deadline (``timeout`` seconds), and a
failed call raises a :class:`DuetimeError` subclass chosen by its status code
alone (never by its message text)::

    from datetime import datetime, timezone
    from duetime.client import DuetimeClient

    with DuetimeClient("127.0.0.1:50051") as duetime:
        answer = duetime.compute_due_time(datetime(2026, 11, 27, 15, tzinfo=timezone.utc),
                                          "3bd", calendar="hr-zagreb",
                                          idempotency_key="ticket-42/1")
        answer.due          # datetime(2026, 12, 2, 15, 0, tzinfo=timezone.utc)

An SLA clock's state is kept by the caller as plain bytes (:attr:`Clock.state`,
the deterministic serialization of ``duetime.v1.ClockState``) and handed back
with each event.

Errors: :class:`InvalidArgument`, :class:`OutOfRange`,
:class:`FailedPrecondition`, :class:`AlreadyExists` and :class:`NotFound` are
not retryable (the same call fails the same way); :class:`Unavailable` and
:class:`DeadlineExceeded` are (``.retryable`` is True). Any other status is a
plain :class:`DuetimeError` with its ``code``. The problems the service named
are in ``.violations`` (field or subject, description) and its reason in
``.reason``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone

import grpc
from google.protobuf.message import DecodeError
from google.protobuf import timestamp_pb2
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from duetime.v1 import duetime_pb2 as pb
from duetime.v1 import duetime_pb2_grpc as pb_grpc

DEFAULT_TARGET = "127.0.0.1:50051"
NAMESPACE_METADATA = "x-duetime-namespace"
"""The call metadata naming the caller's idempotency namespace."""
DEFAULT_TIMEOUT = 5.0
"""Seconds each call may take (its gRPC deadline) unless the client says otherwise."""


# ---------------------------------------------------------------------------
# errors


@dataclass(frozen=True)
class Violation:
    """One problem the service named: a request field (or, for a refused
    clock event, the subject ``event``) and what is wrong, in words."""

    field: str
    description: str


class DuetimeError(Exception):
    """A failed duetime call. ``code`` is the gRPC status code (None for an
    error found before calling), ``reason`` the service's UPPER_SNAKE reason,
    ``violations`` the problems it named, ``retryable`` whether the same call
    may succeed later."""

    retryable = False

    def __init__(self, message: str, *, code: grpc.StatusCode | None = None, reason: str = "",
                 violations: Iterable[Violation] = (), retryable: bool | None = None):
        super().__init__(message)
        self.code = code
        self.reason = reason
        self.violations = tuple(violations)
        if retryable is not None:
            self.retryable = retryable


class InvalidArgument(DuetimeError):
    """Bad input (INVALID_ARGUMENT), e.g. a malformed duration or a naive datetime."""


class OutOfRange(DuetimeError):
    """An input or result outside a supported range or a calendar's years (OUT_OF_RANGE)."""


class FailedPrecondition(DuetimeError):
    """A clock event the clock's state does not allow (FAILED_PRECONDITION)."""


class AlreadyExists(DuetimeError):
    """The idempotency key was used before with a different request (ALREADY_EXISTS)."""


class NotFound(DuetimeError):
    """No record has the id asked for (NOT_FOUND)."""


class Unavailable(DuetimeError):
    """The service or its ledger cannot answer now (UNAVAILABLE); retry."""

    retryable = True


class DeadlineExceeded(DuetimeError):
    """The call did not finish within the client's timeout (DEADLINE_EXCEEDED); retry."""

    retryable = True


_ERRORS = {
    grpc.StatusCode.INVALID_ARGUMENT: InvalidArgument,
    grpc.StatusCode.OUT_OF_RANGE: OutOfRange,
    grpc.StatusCode.FAILED_PRECONDITION: FailedPrecondition,
    grpc.StatusCode.ALREADY_EXISTS: AlreadyExists,
    grpc.StatusCode.NOT_FOUND: NotFound,
    grpc.StatusCode.UNAVAILABLE: Unavailable,
    grpc.StatusCode.DEADLINE_EXCEEDED: DeadlineExceeded,
}
_RETRYABLE = {grpc.StatusCode.RESOURCE_EXHAUSTED, grpc.StatusCode.ABORTED}
"""Other codes that a later retry may get past."""


def error_of(exc: grpc.RpcError) -> DuetimeError:
    """The DuetimeError for a failed call: its class from the status code, its
    violations and reason from the rich status details (if any)."""
    code = exc.code()
    violations: list[Violation] = []
    reason = ""
    try:
        status = rpc_status.from_call(exc)
    except ValueError:  # a status detail that disagrees with the call's code
        status = None
    for detail in status.details if status else ():
        bad, failed, info = (error_details_pb2.BadRequest(),
                             error_details_pb2.PreconditionFailure(), error_details_pb2.ErrorInfo())
        if detail.Unpack(bad):
            violations += [Violation(v.field, v.description) for v in bad.field_violations]
        elif detail.Unpack(failed):
            violations += [Violation(v.subject, v.description) for v in failed.violations]
        elif detail.Unpack(info):
            reason = info.reason
    kind = _ERRORS.get(code, DuetimeError)
    retryable = None if kind is not DuetimeError else code in _RETRYABLE
    return kind(f"{code.name}: {exc.details()}", code=code, reason=reason,
                violations=violations, retryable=retryable)


# ---------------------------------------------------------------------------
# answers


@dataclass(frozen=True)
class Versions:
    """What produced an answer: calendar, rules and tz database versions."""

    calendar: str
    rules: str
    tzdata: str


@dataclass(frozen=True)
class Recorded:
    """The parts every answer has: its ledger record, versions, zone, warnings."""

    record_id: str
    versions: Versions
    time_zone: str
    warnings: tuple[str, ...]


@dataclass(frozen=True)
class DueTime:
    due: datetime
    due_local: str
    """``due`` as RFC 3339 text in the calendar's zone."""
    recorded: Recorded


@dataclass(frozen=True)
class BusinessTime:
    business_time: timedelta
    business_days: int
    recorded: Recorded


@dataclass(frozen=True)
class OpenStatus:
    open: bool
    interval: tuple[datetime, datetime] | None
    next_open: datetime | None
    next_close: datetime | None
    business_day: bool
    local_date: date
    closed_reason: str
    holiday_name: str
    recorded: Recorded


@dataclass(frozen=True)
class Clock:
    """An SLA clock after a call. ``state`` is the serialized
    ``duetime.v1.ClockState`` to store and hand back with the next event; the
    other fields are read from it."""

    state: bytes
    status: str
    """RUNNING, PAUSED or STOPPED."""
    target: str
    deadline: datetime | None
    """Set while RUNNING."""
    remaining: timedelta | None
    """Set while PAUSED, in the clock's measure; negative when paused past the deadline."""
    breached_at: datetime | None
    """The deadline that was missed, once an event showed it."""
    met: bool | None
    """Set when STOPPED."""
    recomputations: int
    recorded: Recorded

    def message(self) -> pb.ClockState:
        """The state as a ``duetime.v1.ClockState`` message."""
        return _state_message(self.state)


@dataclass(frozen=True)
class TimelineEntry:
    event: str
    time: datetime
    action: str
    tier: str
    status: str
    old_deadline: datetime | None
    new_deadline: datetime | None
    remaining: timedelta | None
    reason: str


@dataclass(frozen=True)
class SlaEvaluation:
    clock: Clock
    tier: str
    policy_version: str
    timeline: tuple[TimelineEntry, ...]


@dataclass(frozen=True)
class SlaEvent:
    """One business event of a ticket's history for :meth:`DuetimeClient.evaluate_sla`."""

    type: str
    time: datetime
    attributes: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class CalendarSpec:
    """An inline calendar (or a bundle with extra holidays). ``hours`` are
    the CLI's specs (``"mon-fri 09:00-12:00,13:00-17:00"``); ``weekend`` ISO
    weekdays (None: Saturday and Sunday; empty: none); ``holidays`` dates,
    or (date, name) pairs."""

    time_zone: str = ""
    holidays: Sequence[str | tuple[str, str]] = ()
    weekend: Sequence[int] | None = None
    hours: Sequence[str] = ()
    bundle: str = ""

    def to_proto(self) -> pb.Calendar:
        from duetime.cli import parse_hours  # the one parser of hour specs

        calendar = pb.Calendar(time_zone=self.time_zone, bundle=self.bundle, holidays=[
            pb.Holiday(date=h) if isinstance(h, str) else pb.Holiday(date=h[0], name=h[1])
            for h in self.holidays])
        if self.weekend is not None:
            calendar.weekend.SetInParent()
            calendar.weekend.days.extend(self.weekend)
        if self.hours:
            calendar.working_hours.CopyFrom(parse_hours(self.hours))
        return calendar


CalendarLike = str | CalendarSpec | pb.Calendar | None
"""A bundle reference (``"hr-zagreb"``, ``"hr-zagreb@f45226394a32"``), a
CalendarSpec, a Calendar message, or None (the service's defaults)."""


# ---------------------------------------------------------------------------
# conversions


def _timestamp(value: datetime, name: str) -> timestamp_pb2.Timestamp:
    if value.tzinfo is None or value.utcoffset() is None:
        why = "needs a UTC offset (a naive datetime is never read as UTC or local)"
        raise InvalidArgument(f"{name}: {why}", violations=[Violation(name, why)])
    ts = timestamp_pb2.Timestamp()
    ts.FromDatetime(value.astimezone(timezone.utc))
    return ts


def _datetime(message, name: str) -> datetime | None:
    if not message.HasField(name):
        return None
    return getattr(message, name).ToDatetime(tzinfo=timezone.utc)


def _timedelta(message, name: str) -> timedelta | None:
    if not message.HasField(name):
        return None
    return timedelta(microseconds=getattr(message, name).ToMicroseconds())


def _calendar(calendar: CalendarLike) -> pb.Calendar | None:
    if calendar is None or isinstance(calendar, pb.Calendar):
        return calendar
    if isinstance(calendar, str):
        return pb.Calendar(bundle=calendar)
    return calendar.to_proto()


def _recorded(response) -> Recorded:
    return Recorded(
        record_id=response.record_id,
        versions=Versions(response.calendar_version, response.rules_version,
                          response.tzdata_version),
        time_zone=response.time_zone,
        warnings=tuple(response.warnings),
    )


def _status(value: int) -> str:
    return pb.ClockStatus.Name(value).removeprefix("CLOCK_STATUS_")


def _clock(response) -> Clock:
    state = response.state
    return Clock(
        state=state.SerializeToString(deterministic=True),
        status=_status(state.status),
        target=state.target,
        deadline=_datetime(state, "deadline_time"),
        remaining=_timedelta(state, "remaining"),
        breached_at=_datetime(state, "breach_time"),
        met=state.met if state.HasField("met") else None,
        recomputations=state.recomputations,
        recorded=_recorded(response),
    )


_EVENTS = {name.removeprefix("CLOCK_EVENT_TYPE_"): number
           for name, number in pb.ClockEventType.items() if number}
_ANCHORS = {"EVENT": pb.RETARGET_ANCHOR_EVENT, "START": pb.RETARGET_ANCHOR_START}


def _choice(table: Mapping[str, int], value: str, name: str) -> int:
    try:
        return table[value.upper()]
    except KeyError:
        why = f"{value!r} is not one of {', '.join(t.lower() for t in table)}"
        raise InvalidArgument(f"{name}: {why}", violations=[Violation(name, why)]) from None


# ---------------------------------------------------------------------------
# the client


class DuetimeClient:
    """A connection to one duetime server; a context manager that closes it.

    ``target`` is ``host:port``; ``channel`` (optional) an existing channel to
    use instead (not closed by :meth:`close`); ``timeout`` the seconds every
    call may take; ``namespace`` (optional) the idempotency namespace every
    call is made in (sent as ``x-duetime-namespace`` metadata; 1–64
    characters of ``A-Z a-z 0-9 . _ -``), so this caller's keys never collide
    with another team's.
    """

    def __init__(self, target: str = DEFAULT_TARGET, timeout: float = DEFAULT_TIMEOUT,
                 channel: grpc.Channel | None = None, *, namespace: str | None = None):
        self.timeout = timeout
        self.namespace = namespace or ""
        self._metadata = ((NAMESPACE_METADATA, namespace),) if namespace else ()
        self._owned = channel is None
        self._channel = channel or grpc.insecure_channel(target)
        self._stub = pb_grpc.DueTimeServiceStub(self._channel)

    def close(self) -> None:
        if self._owned:
            self._channel.close()

    def __enter__(self) -> DuetimeClient:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def _call(self, rpc: str, request):
        try:
            return getattr(self._stub, rpc)(request, timeout=self.timeout,
                                            metadata=self._metadata)
        except grpc.RpcError as exc:
            raise error_of(exc) from exc

    def compute_due_time(self, start: datetime, duration: str, calendar: CalendarLike = None, *,
                         next_open_at_close: bool = False,
                         idempotency_key: str = "") -> DueTime:
        """``start + duration`` (``"3bd"``, ``"8bh"``, ``"48h"``, ``"P1M"``…)."""
        request = pb.ComputeDueTimeRequest(
            start=_timestamp(start, "start"), duration=duration, calendar=_calendar(calendar),
            at_close=pb.AT_CLOSE_NEXT_OPEN if next_open_at_close else pb.AT_CLOSE_UNSPECIFIED,
            idempotency_key=idempotency_key)
        response = self._call("ComputeDueTime", request)
        return DueTime(_datetime(response, "due"), response.due_local, _recorded(response))

    def business_time(self, start: datetime, end: datetime, calendar: CalendarLike = None, *,
                      idempotency_key: str = "") -> BusinessTime:
        """Open time in ``[start, end)`` and whole business days between them."""
        request = pb.ComputeBusinessTimeRequest(
            start_time=_timestamp(start, "start_time"), end_time=_timestamp(end, "end_time"),
            calendar=_calendar(calendar), idempotency_key=idempotency_key)
        response = self._call("ComputeBusinessTime", request)
        return BusinessTime(_timedelta(response, "business_time"), response.business_days,
                            _recorded(response))

    def open_status(self, at: datetime, calendar: CalendarLike = None, *,
                    idempotency_key: str = "") -> OpenStatus:
        """Whether the calendar is open at ``at``, and the next opening and closing."""
        request = pb.GetOpenStatusRequest(time=_timestamp(at, "time"),
                                          calendar=_calendar(calendar),
                                          idempotency_key=idempotency_key)
        response = self._call("GetOpenStatus", request)
        current = response.current_interval
        return OpenStatus(
            open=response.open,
            interval=((_datetime(current, "start_time"), _datetime(current, "end_time"))
                      if response.HasField("current_interval") else None),
            next_open=_datetime(response, "next_open_time"),
            next_close=_datetime(response, "next_close_time"),
            business_day=response.business_day,
            local_date=date.fromisoformat(response.local_date),
            closed_reason=response.closed_reason,
            holiday_name=response.holiday_name,
            recorded=_recorded(response),
        )

    def start_clock(self, target: str, at: datetime, calendar: CalendarLike = None, *,
                    idempotency_key: str = "") -> Clock:
        """A new RUNNING SLA clock: deadline = ``at`` + ``target``; a bundle
        calendar is pinned to its version in the state."""
        request = pb.StartClockRequest(target=target, start_time=_timestamp(at, "start_time"),
                                       calendar=_calendar(calendar),
                                       idempotency_key=idempotency_key)
        return _clock(self._call("StartClock", request))

    def apply_clock_event(self, state: bytes | pb.ClockState, event: str, at: datetime, *,
                          target: str = "", anchor: str = "", idempotency_key: str = "") -> Clock:
        """The clock after ``event`` (``pause``, ``resume``, ``reset``,
        ``retarget`` with ``target`` and optionally ``anchor="start"``, or
        ``stop``) at ``at``. An event the state does not allow raises
        FailedPrecondition."""
        message = _state_message(state)
        request = pb.ApplyClockEventRequest(
            state=message,
            event=pb.ClockEvent(
                type=_choice(_EVENTS, event, "event.type"), time=_timestamp(at, "event.time"),
                target=target,
                anchor=_choice(_ANCHORS, anchor, "event.anchor") if anchor else 0),
            idempotency_key=idempotency_key)
        return _clock(self._call("ApplyClockEvent", request))

    def evaluate_sla(self, policy: str, events: Iterable[SlaEvent], *,
                     idempotency_key: str = "") -> SlaEvaluation:
        """Replay a ticket's ``events`` (the first ``start``) under ``policy``
        (``name`` or ``name@version``)."""
        request = pb.EvaluateSlaRequest(policy=policy, idempotency_key=idempotency_key, events=[
            pb.BusinessEvent(type=e.type, time=_timestamp(e.time, f"events[{i}].time"),
                             attributes=dict(e.attributes))
            for i, e in enumerate(events)])
        response = self._call("EvaluateSla", request)
        return SlaEvaluation(
            clock=_clock(response),
            tier=response.tier,
            policy_version=response.policy_version,
            timeline=tuple(
                TimelineEntry(
                    event=e.event, time=_datetime(e, "time"), action=e.action, tier=e.tier,
                    status=_status(e.status), old_deadline=_datetime(e, "old_deadline_time"),
                    new_deadline=_datetime(e, "new_deadline_time"),
                    remaining=_timedelta(e, "remaining"), reason=e.reason)
                for e in response.timeline),
        )

    def get_record(self, record_id: str) -> pb.Record:
        """The stored record of an answer (request and response as ``Any``)."""
        return self._call("GetRecord", pb.GetRecordRequest(record_id=record_id)).record


def _state_message(state: bytes | pb.ClockState) -> pb.ClockState:
    """A ClockState from its bytes; bytes that do not parse are InvalidArgument."""
    if not isinstance(state, bytes):
        return state
    try:
        return pb.ClockState.FromString(state)
    except DecodeError:
        raise InvalidArgument("state: the clock state bytes do not parse as a duetime.v1.ClockState",
                              reason="INVALID_ARGUMENT",
                              violations=[Violation("state", "not a serialized duetime.v1.ClockState")]) from None
