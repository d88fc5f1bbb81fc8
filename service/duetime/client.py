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

Many due times at once: :meth:`DuetimeClient.compute_due_times` (one
BatchComputeDueTimes call, at most 1,000 :class:`DueTimeRequest` items) and
:meth:`DuetimeClient.stream_due_times` (StreamComputeDueTimes: any number of
items, sent and answered as they go) give one :class:`DueTimeResult` per item,
in order: its :class:`DueTime`, or its own error as a :class:`DuetimeError`
(returned, not raised: the other items stand)::

    items = [DueTimeRequest(start, "3bd", "hr-zagreb", idempotency_key=f"ticket-{n}/1")
             for n, start in tickets]
    for item, result in zip(items, duetime.compute_due_times(items)):
        print(result.due_time.due if result.ok else result.error.violations)

The calls: :meth:`~DuetimeClient.compute_due_time`,
:meth:`~DuetimeClient.compute_due_times`, :meth:`~DuetimeClient.stream_due_times`,
:meth:`~DuetimeClient.business_time`, :meth:`~DuetimeClient.open_status`,
:meth:`~DuetimeClient.compute_schedule`, :meth:`~DuetimeClient.start_clock`,
:meth:`~DuetimeClient.apply_clock_event`, :meth:`~DuetimeClient.evaluate_sla`
(recorded answers); :meth:`~DuetimeClient.get_record`,
:meth:`~DuetimeClient.list_records`, :meth:`~DuetimeClient.analyze_impact`
(the ledger: records as ``duetime.v1.Record`` messages);
:meth:`~DuetimeClient.list_calendars`
and :meth:`~DuetimeClient.health`. Each recorded answer also keeps the
response message it was read from (``answer.recorded.message``). Text forms
the client reads (hour specs, deadlines) are parsed by :mod:`duetime.parsing`;
importing this module loads neither the command line nor the server's code
and changes no process-wide setting (``zoneinfo.TZPATH`` stays the caller's).

Inline calendars: a :class:`CalendarSpec`, or a plain mapping of the same
keys or of the calendar's JSON form (:func:`calendar_of_mapping`)::

    duetime.compute_due_time(start, "3bd", {"time_zone": "Europe/Zagreb",
                                            "holidays": ["2026-12-25", "2026-12-26"]})

Retries: a call that fails UNAVAILABLE (a server restarting), CANCELLED (a
server stopping), ABORTED or DEADLINE_EXCEEDED from the server is retried
with exponential backoff within its timeout, by gRPC's retry policy
(:class:`RetryPolicy`; ``DuetimeClient(..., retries=0)`` turns it off); a
recorded call without an idempotency key gets one made up, so a retry is
never recorded twice.

Errors: :class:`InvalidArgument`, :class:`OutOfRange`,
:class:`FailedPrecondition`, :class:`AlreadyExists`, :class:`NotFound`,
:class:`Unauthenticated` and :class:`PermissionDenied` (the token does not
allow the call: its scopes or namespaces, see docs/operations.md) are
not retryable (the same call fails the same way); :class:`Unavailable` and
:class:`DeadlineExceeded` are (``.retryable`` is True);
:class:`ResourceExhausted` is when the server is busy (:data:`BUSY_REASONS`:
the client sends the call again after the wait the server asks for,
``retry_after_seconds``, within the timeout), not for a request over the
server's size limit. Any other status is a plain :class:`DuetimeError` with
its ``code``, retryable for CANCELLED and ABORTED: ``retryable`` is True
exactly for the codes the retry policy retries (:data:`RETRY_CODES`) and
those busy refusals. The problems the service named
are in ``.violations`` (field or subject, description), its reason in
``.reason``, the facts of its ErrorInfo in ``.metadata`` and its message in
``.details``. This is the one reader of the service's rich status
(``google.rpc.Status`` details); the command line prints its errors from it.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import date, datetime, timedelta, timezone

import grpc
from google.protobuf.message import DecodeError, Message
from google.protobuf import json_format, timestamp_pb2
from google.rpc import error_details_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_status import rpc_status

from duetime import parsing
from duetime.channels import ConnectionOptions, PathOrPem, open_channel
from duetime.parsing import Deadline
from duetime.v1 import duetime_pb2 as pb
from duetime.v1 import duetime_pb2_grpc as pb_grpc

DEFAULT_TARGET = "127.0.0.1:50051"
NAMESPACE_METADATA = "x-duetime-namespace"
"""The call metadata naming the caller's idempotency namespace."""
DEFAULT_TIMEOUT = 5.0
"""Seconds each call may take (its gRPC deadline) unless the client says otherwise."""
STREAM_TIMEOUT = 600.0
"""Seconds a whole :meth:`DuetimeClient.stream_due_times` may take by default."""
STREAM_MESSAGE_ITEMS = 1000
"""Items per message a stream sends by default."""
MAX_MESSAGE_BYTES = 64 << 20
"""Largest reply the client's own channel accepts (a batch of 1,000 answers
or errors is well under that; gRPC's default limit is 4 MB)."""
_CHANNEL_OPTIONS = (("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),)
DEFAULT_RETRIES = 4
"""Attempts after the first that a call may make by default (gRPC allows at most 4)."""
GENERATED_KEY_PREFIX = "client/"
"""How an idempotency key the client made up for a recorded call begins (see
:class:`RetryPolicy`); the rest is a random UUID (and ``/N`` for a batch or
stream's item N)."""
RETRY_CODES = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED,
               grpc.StatusCode.ABORTED, grpc.StatusCode.DEADLINE_EXCEEDED)
"""The status codes the client's retry policy retries, and exactly those whose
errors are ``retryable``: UNAVAILABLE (the server is down, stopping, or its
ledger cannot write: nothing was recorded), CANCELLED (this client never
cancels a unary call itself: gRPC cancels the calls a stopping server had
received but not started), ABORTED, and DEADLINE_EXCEEDED (a call past the
server's call budget, nothing recorded; once the client's own timeout has
passed nothing is retried, but a new call may succeed)."""
BUSY_REASONS = frozenset({"TENANT_CALLS_EXHAUSTED", "IN_FLIGHT_BYTES_EXHAUSTED",
                          "STREAMS_EXHAUSTED"})
"""The reasons of a RESOURCE_EXHAUSTED that means the server is busy now (the
caller's tenant has as many calls in flight as it may, or the server holds
as many request bytes, or streams, as it may): such an error is ``retryable``, and the
client sends the call again after the server's ``retry_after_seconds``
(ErrorInfo metadata; HTTP ``Retry-After``) within its timeout. Any other
RESOURCE_EXHAUSTED (a request over the size limit) is not retryable."""
_RETRIED_SERVICES = ("duetime.v1.DueTimeService", "duetime.v1.CalendarService")
"""The services whose calls are retried: every method but the health check's,
which says how the server is now."""
_RETRY_BUFFER_BYTES = 16 << 20
"""Most bytes of one call's request gRPC keeps to send again (a batch of
1,000 items fits; gRPC's default, 256 KiB, would make a large batch
unretried)."""


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
    error found before calling), ``details`` the status message as the service
    sent it (``str(error)`` is ``"CODE: details"``), ``reason`` the service's
    UPPER_SNAKE reason, ``metadata`` the facts its ``google.rpc.ErrorInfo``
    gave (e.g. ``record_id``, ``idempotency_key``, ``call_budget_seconds``),
    ``violations`` the problems it named, ``retryable`` whether the same call
    may succeed later."""

    retryable = False

    def __init__(self, message: str, *, code: grpc.StatusCode | None = None, reason: str = "",
                 violations: Iterable[Violation] = (), retryable: bool | None = None,
                 details: str = "", metadata: Mapping[str, str] | None = None):
        super().__init__(message)
        self.code = code
        self.details = details
        self.metadata = dict(metadata or {})
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
    """No record has the id asked for, or no policy the name (NOT_FOUND)."""


class Unauthenticated(DuetimeError):
    """The server needs a bearer token and got none, or one it does not
    accept (UNAUTHENTICATED): pass ``token``."""


class PermissionDenied(DuetimeError):
    """The token does not allow the call (PERMISSION_DENIED): the RPC needs
    a scope it lacks (``reason`` SCOPE_MISSING), or the call names a
    namespace it is not bound to (NAMESPACE_NOT_PERMITTED)."""


class Unavailable(DuetimeError):
    """The service or its ledger cannot answer now (UNAVAILABLE); retry."""

    retryable = True


class DeadlineExceeded(DuetimeError):
    """The call did not finish within the client's timeout (DEADLINE_EXCEEDED); retry."""

    retryable = True


class ResourceExhausted(DuetimeError):
    """RESOURCE_EXHAUSTED: a request over the server's size limit (not
    retryable: send a smaller one), or a server busy now (``reason`` in
    :data:`BUSY_REASONS`; retryable, and the client sends the call again
    after the server's ``retry_after_seconds`` within its timeout)."""


_ERRORS = {
    grpc.StatusCode.INVALID_ARGUMENT: InvalidArgument,
    grpc.StatusCode.RESOURCE_EXHAUSTED: ResourceExhausted,
    grpc.StatusCode.OUT_OF_RANGE: OutOfRange,
    grpc.StatusCode.FAILED_PRECONDITION: FailedPrecondition,
    grpc.StatusCode.ALREADY_EXISTS: AlreadyExists,
    grpc.StatusCode.NOT_FOUND: NotFound,
    grpc.StatusCode.UNAUTHENTICATED: Unauthenticated,
    grpc.StatusCode.PERMISSION_DENIED: PermissionDenied,
    grpc.StatusCode.UNAVAILABLE: Unavailable,
    grpc.StatusCode.DEADLINE_EXCEEDED: DeadlineExceeded,
}
_RETRYABLE = frozenset(RETRY_CODES)


def _refused(exc: parsing.SpecError) -> InvalidArgument:
    """The client's InvalidArgument for text a shared parser refused (its field and why)."""
    return InvalidArgument(str(exc), violations=[Violation(exc.field, exc.description)])


def error_of(exc: grpc.RpcError) -> DuetimeError:
    """The DuetimeError for a failed call: its class from the status code, its
    violations and reason from the rich status details (if any)."""
    try:
        status = rpc_status.from_call(exc)
    except ValueError:  # a status detail that disagrees with the call's code
        status = None
    return _error(exc.code(), exc.details(), status.details if status else ())


_CODES = {code.value[0]: code for code in grpc.StatusCode}


def error_of_status(status) -> DuetimeError:
    """The DuetimeError of a ``google.rpc.Status`` message (a batch or stream
    item's error), chosen as :func:`error_of` chooses it."""
    code = _CODES.get(status.code, grpc.StatusCode.UNKNOWN)
    return _error(code, status.message, status.details)


def _error(code: grpc.StatusCode, message: str, details) -> DuetimeError:
    """The DuetimeError of a status code, message and rich details (``Any``s)."""
    violations: list[Violation] = []
    reason, metadata = "", {}
    for detail in details:
        bad, failed, info = (error_details_pb2.BadRequest(),
                             error_details_pb2.PreconditionFailure(), error_details_pb2.ErrorInfo())
        if detail.Unpack(bad):
            violations += [Violation(v.field, v.description) for v in bad.field_violations]
        elif detail.Unpack(failed):
            violations += [Violation(v.subject, v.description) for v in failed.violations]
        elif detail.Unpack(info):
            reason, metadata = info.reason, dict(info.metadata)
    kind = _ERRORS.get(code, DuetimeError)
    retryable = (reason in BUSY_REASONS if kind is ResourceExhausted else
                 None if kind is not DuetimeError else code in _RETRYABLE)
    return kind(f"{code.name}: {message}", code=code, reason=reason,
                violations=violations, retryable=retryable, details=message, metadata=metadata)


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
    """The parts every answer has: its ledger record, versions, zone,
    warnings, and the response message the answer was read from
    (``message``, e.g. to print it in the protobuf JSON mapping; not compared)."""

    record_id: str
    versions: Versions
    time_zone: str
    warnings: tuple[str, ...]
    message: Message | None = field(default=None, repr=False, compare=False)


@dataclass(frozen=True)
class ExplanationStep:
    """One step of an answer's explanation (asked for with ``explain=True``):
    its ``kind`` (e.g. ``open``, ``holiday``), the business ``amount`` it
    counted (None when it counts none), its text and local date."""

    kind: str
    amount: timedelta | None
    text: str
    local_date: str


@dataclass(frozen=True)
class DueTime:
    due: datetime
    due_local: str
    """``due`` as RFC 3339 text in the calendar's zone."""
    recorded: Recorded
    explanation: tuple[ExplanationStep, ...] = ()


@dataclass(frozen=True)
class DueTimeRequest:
    """One item of :meth:`DuetimeClient.compute_due_times` or
    :meth:`DuetimeClient.stream_due_times`: the arguments of
    :meth:`DuetimeClient.compute_due_time`."""

    start: datetime | str
    duration: str | timedelta
    calendar: CalendarLike = None
    next_open_at_close: bool = False
    idempotency_key: str = ""
    at_close: str = ""
    """The at-close rule by name, ``"next-open"`` or ``"end-of-window"``
    (the service's default, said explicitly); ``""``: as ``next_open_at_close`` says."""
    explain: bool = False
    """Whether the answer carries its :class:`ExplanationStep` list."""
    roll: str = ""
    """The landing rule's roll (docs/semantics.md §15): ``following``,
    ``preceding``, ``modified-following``, ``modified-preceding`` (any case,
    ``_`` for ``-``, or the full names ``ROLL_FOLLOWING`` …); ``""``: none,
    or as the duration text says."""
    landing_time: str = ""
    """The landing rule's time on the final date: ``HH:MM``, ``open``,
    ``close`` or ``end``; ``""``: none, or as the duration text says."""


@dataclass(frozen=True)
class DueTimeResult:
    """One item's answer in a batch or stream: ``due_time`` when it was
    computed and recorded, else ``error``: what :meth:`DuetimeClient.compute_due_time`
    would have raised for that item alone (InvalidArgument, OutOfRange,
    AlreadyExists …, with its ``violations``). Exactly one of them is set."""

    due_time: DueTime | None = None
    error: DuetimeError | None = None

    @property
    def ok(self) -> bool:
        """Whether the item was answered (``due_time`` is set)."""
        return self.error is None


@dataclass(frozen=True)
class BusinessTime:
    business_time: timedelta
    business_days: int
    recorded: Recorded
    explanation: tuple[ExplanationStep, ...] = ()


@dataclass(frozen=True)
class ScheduledDeadline:
    """One deadline of a :class:`Schedule`: due at ``due`` (``due_local`` in
    the calendar's zone), counted from ``counted_from`` (the stage's entry, or
    the due time of deadline ``after``)."""

    name: str
    due: datetime
    due_local: str
    counted_from: datetime | None
    after: str
    explanation: tuple[ExplanationStep, ...] = ()


@dataclass(frozen=True)
class Schedule:
    """A stage's named deadlines, in the order asked for, and the first of
    them to fall due (``next_due``, its name; ``next_due_time``)."""

    deadlines: tuple[ScheduledDeadline, ...]
    next_due: str
    next_due_time: datetime | None
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
    #: With ``include_last_run``: the opening of the run holding the instant,
    #: or of the last run before it; and the last closing at or before it.
    last_open: datetime | None = None
    last_close: datetime | None = None


@dataclass(frozen=True)
class OpenPeriod:
    """One open period ``[start, end)`` and the local date it belongs to
    (docs/semantics.md §9.1)."""

    start: datetime
    end: datetime
    local_date: date


@dataclass(frozen=True)
class OpenPeriods:
    """One page of open periods; ``next_page_token`` (empty on the last
    page) asks for the next."""

    periods: tuple[OpenPeriod, ...]
    next_page_token: str
    recorded: Recorded


@dataclass(frozen=True)
class BusinessDayCount:
    """The business days of a range of local dates, both ends included."""

    business_days: int
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
    next_action: SlaNextAction | None = None
    """StartClock / ApplyClockEvent with ``warning_thresholds``: the next
    instant a warning or the breach falls, and what falls then; None when
    nothing falls later (or no thresholds were given)."""
    fell_at_event: tuple[SlaDue, ...] = ()
    """StartClock / ApplyClockEvent with ``warning_thresholds``: what fell at
    the start's or event's instant itself (docs/semantics.md §17): handle it
    at once, as a fired ``next_action``."""

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
    #: A WARNING entry's threshold as written ("75%", "30bm"); empty otherwise.
    threshold: str = ""


@dataclass(frozen=True)
class SlaDue:
    """Something falling at the next action: ``kind`` "WARNING" or
    "BREACH" of ``metric``; ``threshold`` the warning's text (empty for a breach)."""

    metric: str
    kind: str
    threshold: str


@dataclass(frozen=True)
class SlaNextAction:
    """The one timer to arm: when, and everything that falls then."""

    time: datetime
    due: tuple[SlaDue, ...]


@dataclass(frozen=True)
class SlaMetric:
    """One metric of a policy, evaluated (docs/semantics.md §17): ``status``
    NOT_STARTED, RUNNING, PAUSED or STOPPED; ``state`` the serialized
    ClockState (empty before its first start); ``timeline`` with WARNING and
    BREACH entries at their instants."""

    name: str
    status: str
    cycles: int
    tier: str
    state: bytes
    timeline: tuple[TimelineEntry, ...]
    breached_at: datetime | None = None
    """When its BREACH fell (since its target was last set), whatever its status; None: not breached."""


@dataclass(frozen=True)
class SlaEvaluation:
    clock: Clock
    tier: str
    policy_version: str
    timeline: tuple[TimelineEntry, ...]
    #: Every metric (filled for a policy with metrics, or when ``as_of`` was given).
    metrics: tuple[SlaMetric, ...] = ()
    #: None: nothing is due, or ``metrics`` is empty.
    next_action: SlaNextAction | None = None


@dataclass(frozen=True)
class SlaEvent:
    """One business event of a ticket's history for :meth:`DuetimeClient.evaluate_sla`."""

    type: str
    time: datetime
    attributes: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class MovedDueTime:
    """A recorded due time that a replay moves: its deadline ``name`` (empty
    for a single due time), old and new instant and local text, and why."""

    name: str
    old_due: datetime | None
    new_due: datetime | None
    old_due_local: str
    new_due_local: str
    reasons: tuple[str, ...]


@dataclass(frozen=True)
class ImpactedRecord:
    """A record whose answer would change: the due times that move, or the
    ``error`` its replay now fails with (then ``due_times`` is empty)."""

    record_id: str
    method: str
    """The full RPC method, e.g. ``/duetime.v1.DueTimeService/ComputeDueTime``."""
    idempotency_key: str
    namespace: str
    old_calendar_version: str
    new_calendar_version: str
    old_tzdata_version: str
    due_times: tuple[MovedDueTime, ...]
    error: str
    answer_changes: tuple[ChangedAnswer, ...] = ()
    """For an answer without a due time (CountBusinessDays, ListOpenPeriods,
    GetOpenStatus, ComputeBusinessTime): each part of it that would change."""


@dataclass(frozen=True)
class ChangedAnswer:
    """One part of a recorded answer other than a due time that would
    change: ``name`` its JSON field name (``"businessDays"``,
    ``"nextOpenTime"``, ``"periods[2]"`` …), the old and new value in words
    (``"22"`` → ``"21"``; ``"none"`` when there was none), and why."""

    name: str
    old_value: str
    new_value: str
    reasons: tuple[str, ...]


@dataclass(frozen=True)
class SkippedRecord:
    """A record the change concerns that was not replayed, and why."""

    record_id: str
    method: str
    reason: str


@dataclass(frozen=True)
class Impact:
    """What :meth:`DuetimeClient.analyze_impact` found; ``message`` is the
    AnalyzeImpactResponse it was read from (not compared)."""

    calendar_version: str
    tzdata_version: str
    records_examined: int
    records_replayed: int
    changes: tuple[ImpactedRecord, ...]
    not_replayed: tuple[SkippedRecord, ...]
    truncated: bool
    """More records were concerned than ``limit`` let the server consider."""
    message: Message | None = field(default=None, repr=False, compare=False)


@dataclass(frozen=True)
class CalendarInfo:
    """A calendar bundle a server has loaded: its newest version, every
    version, and the years its holidays cover (``first_year`` to ``last_year``)."""

    name: str
    description: str
    time_zone: str
    newest_version: str
    versions: tuple[str, ...]
    first_year: int
    last_year: int


@dataclass(frozen=True)
class Calendars:
    """The bundles of :meth:`DuetimeClient.list_calendars`, by name; ``message``
    is the ListCalendarsResponse they were read from (not compared)."""

    calendars: tuple[CalendarInfo, ...]
    message: Message | None = field(default=None, repr=False, compare=False)


@dataclass(frozen=True)
class Holidays:
    """The holidays of :meth:`DuetimeClient.list_holidays`: (local date,
    name) by date, the calendar version read, warnings in words; ``message``
    is the ListHolidaysResponse (not compared)."""

    holidays: tuple[tuple[date, str], ...]
    calendar_version: str
    warnings: tuple[str, ...] = ()
    message: Message | None = field(default=None, repr=False, compare=False)


@dataclass(frozen=True)
class PolicyInfo:
    """An SLA policy a server has loaded: what it promises, its newest
    version and every version (oldest first)."""

    name: str
    description: str
    newest_version: str
    versions: tuple[str, ...]


@dataclass(frozen=True)
class Policies:
    """The policies of :meth:`DuetimeClient.list_policies`, by name;
    ``message`` is the ListPoliciesResponse (not compared)."""

    policies: tuple[PolicyInfo, ...]
    message: Message | None = field(default=None, repr=False, compare=False)


@dataclass(frozen=True)
class PolicyTier:
    """A tier of a policy: its target text, the clock measure the target asks
    for (``"ELAPSED"``, ``"BUSINESS_DAY"``, ``"BUSINESS_TIME"``), the pinned
    calendar (``name@version``) and its IANA zone."""

    name: str
    target: str
    measure: str
    calendar_version: str
    time_zone: str


@dataclass(frozen=True)
class PolicyEvent:
    """An event of a policy: its action while running and while paused
    (``"PAUSE"``, ``"RESUME"``, ``"RESET"``, ``"RETARGET"``, ``"STOP"`` or
    ``"NONE"``), a RETARGET's anchor (``"EVENT"``/``"START"``) and what it
    does, in words."""

    name: str
    when_running: str
    when_paused: str
    anchor: str
    description: str


@dataclass(frozen=True)
class PolicyMetricRule:
    """What business ``event`` does to a metric in ``status``
    (``"NOT_STARTED"``, ``"RUNNING"``, ``"PAUSED"``, ``"STOPPED"``):
    ``action`` (``"START"``, ``"PAUSE"``, ``"RESUME"``, ``"RESET"``,
    ``"RETARGET"``, ``"STOP"``) and a RETARGET's ``anchor``
    (``"EVENT"``/``"START"``)."""

    event: str
    status: str
    action: str
    anchor: str


@dataclass(frozen=True)
class PolicyMetric:
    """A metric of a policy (docs/semantics.md §17): its target per tier,
    its rules by event then status, its warnings as written (``"75%"``,
    ``"30bm"``)."""

    name: str
    targets: tuple[PolicyTier, ...]
    rules: tuple[PolicyMetricRule, ...]
    warnings: tuple[str, ...]


@dataclass(frozen=True)
class Policy:
    """One policy version of :meth:`DuetimeClient.get_policy`: its tiers and
    events by name (a one-clock policy) or its ``metrics`` in the policy's
    order (``tiers`` and ``events`` then empty); ``message`` is the
    GetPolicyResponse (not compared)."""

    info: PolicyInfo
    version: str
    initial_tier: str
    tiers: tuple[PolicyTier, ...]
    events: tuple[PolicyEvent, ...]
    message: Message | None = field(default=None, repr=False, compare=False)
    metrics: tuple[PolicyMetric, ...] = ()


def _policy_info(p) -> PolicyInfo:
    return PolicyInfo(p.name, p.description, p.newest_version, tuple(p.versions))


@dataclass(frozen=True)
class CalendarSpec:
    """An inline calendar (or a bundle with extra holidays). ``hours`` are
    the CLI's specs (``"mon-fri 09:00-12:00,13:00-17:00"``); ``weekend`` ISO
    weekdays (None: Saturday and Sunday; empty: none); ``holidays`` dates,
    or (date, name) pairs; ``week_periods`` weeks that change by date
    (docs/semantics.md §16), each the CLI's ``--week-period`` text
    (``"2027-03-01: weekend mon,sat,sun; tue-fri 08:00-17:00"``), a mapping
    in the JSON form (``{"fromDate": "2027-03-01", "workingHours": …}``) or
    a ``duetime.v1.WeekPeriod``."""

    time_zone: str = ""
    holidays: Sequence[str | tuple[str, str]] = ()
    weekend: Sequence[int] | None = None
    hours: Sequence[str] = ()
    bundle: str = ""
    week_periods: Sequence[str | Mapping[str, object] | pb.WeekPeriod] = ()

    def to_proto(self) -> pb.Calendar:
        """The Calendar message; an hour spec that does not parse raises
        InvalidArgument on ``hours``, a week period that does not on
        ``week_periods[i]``."""
        calendar = pb.Calendar(time_zone=self.time_zone, bundle=self.bundle, holidays=[
            pb.Holiday(date=h) if isinstance(h, str) else pb.Holiday(date=h[0], name=h[1])
            for h in self.holidays])
        if self.weekend is not None:
            calendar.weekend.SetInParent()
            calendar.weekend.days.extend(self.weekend)
        if self.hours:
            _set_hours(calendar, self.hours, "hours")
        calendar.week_periods.extend(_week_period(p, f"week_periods[{i}]")
                                     for i, p in enumerate(self.week_periods))
        return calendar


def _week_period(period: object, name: str) -> pb.WeekPeriod:
    """The WeekPeriod of the CLI's text form, a JSON-form mapping (enum
    values by their short names too, docs/semantics.md §14) or a message;
    anything else, or one that does not read, raises InvalidArgument on ``name``."""
    if isinstance(period, pb.WeekPeriod):
        return period
    if isinstance(period, str):
        try:
            week = parsing.parse_week_period(period, name)
        except parsing.SpecError as exc:
            raise _refused(exc) from None
        message = pb.WeekPeriod(from_date=week.from_date)
        if week.weekend is not None:
            message.weekend.SetInParent()
            message.weekend.days.extend(week.weekend)
        if week.hours is not None:
            message.working_hours.SetInParent()
            message.working_hours.days.extend(
                pb.DayHours(weekday=day, intervals=[pb.TimeInterval(start=start, end=end)
                                                    for start, end in intervals])
                for day, intervals in week.hours)
        return message
    if isinstance(period, Mapping):
        message = pb.WeekPeriod()
        try:
            json_format.ParseDict(_short_enums(period, pb.WeekPeriod.DESCRIPTOR, f"{name}."),
                                  message)
        except _EnumValueError as exc:
            raise InvalidArgument(f"{name}: {exc}", violations=[Violation(name, str(exc))]) from None
        except json_format.ParseError as exc:
            why = str(exc).replace("Failed to parse ", "cannot read ").rstrip(".")
            raise InvalidArgument(f"{name}: {why}", violations=[Violation(name, why)]) from None
        return message
    why = (f"a {type(period).__name__} is not a week period; write "
           "\"2027-03-01: mon-fri 08:00-18:00\", {\"fromDate\": \"2027-03-01\", …} "
           "or a duetime.v1.WeekPeriod")
    raise InvalidArgument(f"{name}: {why}", violations=[Violation(name, why)])


class _EnumValueError(ValueError):
    """An enum value in a JSON form that names no value: ``path`` is where."""

    def __init__(self, path: str, why: str):
        super().__init__(f"{path}: {why}")
        self.path = path
        self.why = why


def _short_enums(tree: object, descriptor, prefix: str) -> object:
    """A copy of ``tree``, the JSON form of a ``descriptor`` message, with
    every enum value given by its short name (``MONDAY``, any case, ``-`` for
    ``_``) written as its full name (``WEEKDAY_MONDAY``), as the JSON faces
    read it (docs/semantics.md §14); ``tree`` itself is left as it is. An
    unknown name raises _EnumValueError (a ValueError) naming the field
    (``prefix`` + its path) and listing the valid values; full names,
    numbers and everything else are left for the protobuf JSON mapping."""
    if not isinstance(tree, Mapping):
        return tree
    copy = {}
    for key, value in tree.items():
        field = descriptor.fields_by_camelcase_name.get(key) or descriptor.fields_by_name.get(key)
        if field is None or value is None or (field.message_type is None
                                              and field.enum_type is None):
            copy[key] = value
            continue

        def one(item: object, path: str) -> object:
            if field.message_type is not None:
                return _short_enums(item, field.message_type, f"{path}.")
            if isinstance(item, str):
                return _enum_full_name(field.enum_type, item, path)
            return item
        path = f"{prefix}{key}"
        if field.is_repeated and isinstance(value, Sequence) and not isinstance(value, str):
            copy[key] = [one(item, f"{path}[{i}]") for i, item in enumerate(value)]
        else:
            copy[key] = one(value, path)
    return copy


def _enum_full_name(enum, text: str, path: str) -> str:
    """The full value name of ``enum`` that ``text`` spells (its full name, a
    number as text, or its short name in any case with ``-`` for ``_``)."""
    if text in enum.values_by_name or text.strip().lstrip("-").isdigit():
        return text
    spellings, shown = parsing.enum_spellings(enum)
    full = spellings.get(text.strip().upper().replace("-", "_"))
    if full is not None and enum.values_by_name[full].number:
        return full
    raise _EnumValueError(path, f"{text!r} is not a value of {enum.name}; write one of "
                          + ", ".join(short for short, _, _ in shown)
                          + " (or the full names " + ", ".join(name for _, name, _ in shown) + ")")


def _set_hours(calendar: pb.Calendar, specs: Sequence[str], name: str) -> None:
    """Set ``calendar``'s working hours from the CLI's hour specs; one that
    does not parse raises InvalidArgument on ``name``."""
    try:
        hours = parsing.parse_hours(specs, name)
    except parsing.SpecError as exc:
        raise _refused(exc) from None
    calendar.working_hours.SetInParent()
    calendar.working_hours.days.extend(
        pb.DayHours(weekday=day, intervals=[pb.TimeInterval(start=start, end=end)
                                            for start, end in intervals])
        for day, intervals in hours)


CalendarLike = str | CalendarSpec | Mapping[str, object] | pb.Calendar | None
"""A bundle reference (``"hr-zagreb"``, ``"hr-zagreb@f45226394a32"``), a
CalendarSpec, a plain mapping of the same keys or of the JSON form (see
:func:`calendar_of_mapping`), a Calendar message, or None (the service's defaults)."""


# ---------------------------------------------------------------------------
# conversions


def _timestamp(value: datetime, name: str) -> timestamp_pb2.Timestamp:
    if value.tzinfo is None or value.utcoffset() is None:
        why = "needs a UTC offset (a naive datetime is never read as UTC or local)"
        raise InvalidArgument(f"{name}: {why}", violations=[Violation(name, why)])
    ts = timestamp_pb2.Timestamp()
    ts.FromDatetime(value.astimezone(timezone.utc))
    return ts


def _instant(value: object, name: str) -> timestamp_pb2.Timestamp:
    """The Timestamp of an instant given as an aware datetime or as RFC 3339
    text (the forms the command line takes, :func:`parsing.parse_instant_text`:
    ``"2026-11-27T15:00Z"``). InvalidArgument on ``name`` for a naive
    datetime, text that is no instant, or any other type."""
    if isinstance(value, str):
        try:
            value = parsing.parse_instant_text(value, name)
        except parsing.SpecError as exc:
            raise _refused(exc) from None
    if not isinstance(value, datetime):
        why = (f"is a {type(value).__name__}; give an aware datetime or RFC 3339 text such as "
               "'2026-11-27T15:00:00Z'")
        raise InvalidArgument(f"{name}: {why}", violations=[Violation(name, why)])
    return _timestamp(value, name)


def duration_text(value: object, name: str = "duration") -> str:
    """A duration as the service reads it: text (``"3bd"``, ``"8bh"``,
    ``"P1M"`` …) as given, a :class:`datetime.timedelta` as its exact elapsed
    time in seconds (``timedelta(hours=2)`` → ``"7200s"``,
    ``timedelta(microseconds=1500)`` → ``"0.0015s"``; negative: ``"-…s"``).
    InvalidArgument on ``name`` for any other type (an int is refused: say
    the unit, ``"2h"`` or ``"2bd"``)."""
    if isinstance(value, str):
        return value
    if isinstance(value, timedelta):
        micros = (value.days * 86_400 + value.seconds) * 1_000_000 + value.microseconds
        sign, micros = ("-" if micros < 0 else ""), abs(micros)
        seconds, fraction = divmod(micros, 1_000_000)
        return f"{sign}{seconds}" + (f".{fraction:06d}".rstrip("0") if fraction else "") + "s"
    why = (f"is a {type(value).__name__}; give text with a unit such as '2h', '3bd' or 'P1M', "
           "or a datetime.timedelta")
    raise InvalidArgument(f"{name}: {why}", violations=[Violation(name, why)])


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
    if isinstance(calendar, CalendarSpec):
        return calendar.to_proto()
    if isinstance(calendar, Mapping):
        return calendar_of_mapping(calendar)
    why = (f"a {type(calendar).__name__} is not a calendar; give a bundle name, a mapping, "
           "a CalendarSpec or a duetime.v1.Calendar")
    raise InvalidArgument(f"calendar: {why}", violations=[Violation("calendar", why)])


_SPEC_KEYS = {"time_zone": "timeZone", "holidays": "holidays", "weekend": "weekend",
              "hours": "", "bundle": "bundle"}
"""CalendarSpec's fields, each with its key in the JSON form ("": read by the client)."""
_JSON_KEYS = {"timeZone": "time_zone", "holidays": "holidays", "weekend": "weekend",
              "workingHours": "working_hours", "dateOverrides": "date_overrides",
              "extraWorkingDays": "extra_working_days",
              "holidaysValidUntil": "holidays_valid_until", "bundle": "bundle",
              "weekPeriods": "week_periods"}
"""The keys of the JSON form of ``duetime.v1.Calendar`` and their proto field names."""
_CALENDAR_KEYS = ", ".join(sorted({*_SPEC_KEYS, *_JSON_KEYS, *_JSON_KEYS.values()}))


def _bad_calendar(key: str, why: str) -> InvalidArgument:
    name = f"calendar.{key}" if key else "calendar"
    return InvalidArgument(f"{name}: {why}", reason="INVALID_ARGUMENT",
                           violations=[Violation(name, why)])


def _json_holiday(holiday: object, i: int) -> object:
    """A holiday in the JSON form: from ``"2026-12-25"``, ``("2026-12-25",
    "Christmas Day")`` or ``{"date": …, "name": …}``."""
    if isinstance(holiday, str) or isinstance(holiday, Mapping):
        return {"date": holiday} if isinstance(holiday, str) else holiday
    if isinstance(holiday, Sequence) and len(holiday) == 2:
        return {"date": holiday[0], "name": holiday[1]}
    raise _bad_calendar(f"holidays[{i}]", f"{holiday!r} is not a holiday; write "
                        "\"2026-12-25\", (\"2026-12-25\", \"Christmas Day\") or "
                        "{\"date\": \"2026-12-25\", \"name\": \"Christmas Day\"}")


def calendar_of_mapping(calendar: Mapping[str, object]) -> pb.Calendar:
    """The ``duetime.v1.Calendar`` a plain mapping describes.

    Its keys are :class:`CalendarSpec`'s fields (``time_zone``, ``holidays``,
    ``weekend``, ``hours``, ``bundle``) or those of the calendar's JSON form
    (``timeZone``, ``holidays``, ``weekend``, ``workingHours``,
    ``dateOverrides``, ``extraWorkingDays``, ``holidaysValidUntil``, ``weekPeriods``,
    ``bundle``; the proto's own names such as ``working_hours`` too), mixed
    as convenient; values as CalendarSpec takes them or as the JSON form
    writes them::

        {"time_zone": "Europe/Zagreb", "holidays": ["2026-12-25", ("2026-12-26", "St. Stephen's Day")],
         "weekend": [6, 7], "hours": ["mon-fri 08:00-16:00"]}
        {"timeZone": "Europe/Zagreb", "holidays": [{"date": "2026-12-25"}],
         "workingHours": {"days": [{"weekday": 1, "intervals": [{"start": "08:00", "end": "16:00"}]}]}}

    ``holidays``: dates, (date, name) pairs or ``{"date", "name"}`` objects;
    ``weekend``: ISO weekdays (1 Monday … 7 Sunday; empty: no weekend), the
    CLI's text (``"fri,sat"``) or ``{"days": [...]}``; ``hours``: the CLI's
    specs (one text or a list). A key that is not one of these, a value of
    the wrong shape, or both ``hours`` and ``workingHours`` raise
    InvalidArgument on ``calendar.KEY``, saying what to write.
    """
    form: dict[str, object] = {}
    hours = None
    for key, value in calendar.items():
        if not isinstance(key, str) or (key not in _SPEC_KEYS and key not in _JSON_KEYS
                                        and key not in _JSON_KEYS.values()):
            raise _bad_calendar(str(key), f"{key!r} is not a calendar key; the keys are "
                                f"{_CALENDAR_KEYS} (see CalendarSpec)")
        if key == "hours":
            hours = [value] if isinstance(value, str) else value
            continue
        name = _JSON_KEYS.get(key, key)
        if name in form:
            raise _bad_calendar(key, f"the calendar's {name} is given twice; give it once")
        if name == "holidays" and isinstance(value, Sequence) and not isinstance(value, str):
            value = [_json_holiday(h, i) for i, h in enumerate(value)]
        elif name == "weekend" and isinstance(value, str):
            try:
                value = {"days": parsing.parse_weekend(value, "calendar.weekend")}
            except parsing.SpecError as exc:
                raise _refused(exc) from None
        elif name == "weekend" and isinstance(value, Sequence):
            value = {"days": list(value)}
        elif name == "week_periods" and isinstance(value, Sequence) and not isinstance(value, str):
            value = [json_format.MessageToDict(_week_period(p, f"calendar.{key}[{i}]"))
                     if isinstance(p, (str, pb.WeekPeriod)) else p for i, p in enumerate(value)]
        form[name] = (key, value)
    if hours is not None and "working_hours" in form:
        raise _bad_calendar("hours", "give hours (the CLI's specs) or workingHours (the JSON "
                            "form), not both")
    message = pb.Calendar()
    for name, (key, value) in form.items():
        try:
            json_format.ParseDict(_short_enums({key: value}, pb.Calendar.DESCRIPTOR, "calendar."),
                                  message)
        except _EnumValueError as exc:  # named by its key, the value's place said in the words
            raise _bad_calendar(key, str(exc)) from None
        except json_format.ParseError as exc:
            why = str(exc).replace("Failed to parse ", "cannot read ").rstrip(".")
            raise _bad_calendar(key, f"{why} (the JSON form of duetime.v1.Calendar; "
                                     "see CalendarSpec)") from None
    if hours is not None:
        if not isinstance(hours, Sequence) or not all(isinstance(h, str) for h in hours):
            raise _bad_calendar("hours", f"{hours!r} is not hour specs; write "
                                "[\"mon-fri 09:00-17:00\"]")
        _set_hours(message, hours, "calendar.hours")
    return message


def _recorded(response) -> Recorded:
    return Recorded(
        record_id=response.record_id,
        versions=Versions(response.calendar_version, response.rules_version,
                          response.tzdata_version),
        time_zone=response.time_zone,
        warnings=tuple(response.warnings),
        message=response,
    )


def _explanation(steps) -> tuple[ExplanationStep, ...]:
    return tuple(ExplanationStep(s.kind, _timedelta(s, "amount"), s.text, s.local_date)
                 for s in steps)


_AT_CLOSE = {"NEXT_OPEN": pb.AT_CLOSE_NEXT_OPEN, "END_OF_WINDOW": pb.AT_CLOSE_END_OF_WINDOW}


def _at_close(at_close: str, next_open_at_close: bool) -> int:
    """The AtClose of ``at_close`` (``next-open``, ``end-of-window``, any
    case, ``_`` for ``-``), or of ``next_open_at_close`` when it is empty."""
    if at_close:
        return _choice(_AT_CLOSE, at_close.replace("-", "_"), "at_close")
    return pb.AT_CLOSE_NEXT_OPEN if next_open_at_close else pb.AT_CLOSE_UNSPECIFIED


_Calendars = dict[int, tuple[CalendarLike, "pb.Calendar | None"]]
"""Calendars converted for one batch, by the identity of the object given
(kept in the entry, so its id cannot be reused while the batch is built)."""


DueTimeRequestLike = DueTimeRequest | pb.ComputeDueTimeRequest
"""An item of a batch or stream: a DueTimeRequest, or a ComputeDueTimeRequest
message sent as it is (e.g. read from the protobuf JSON mapping)."""


def _due_time_request(item: DueTimeRequestLike, prefix: str,
                      calendars: _Calendars) -> pb.ComputeDueTimeRequest:
    """The ComputeDueTimeRequest of ``item``; errors name ``prefix + field``.
    ``calendars`` keeps each calendar object's message, so a batch sharing
    one CalendarSpec converts it once."""
    if isinstance(item, pb.ComputeDueTimeRequest):
        return item
    given = item.calendar
    known = calendars.get(id(given))
    if known is None or known[0] is not given:
        known = calendars[id(given)] = (given, _calendar(given))
    calendar = known[1]
    return pb.ComputeDueTimeRequest(
        start=_instant(item.start, f"{prefix}start"),
        duration=duration_text(item.duration, f"{prefix}duration"),
        calendar=calendar, at_close=_at_close(item.at_close, item.next_open_at_close),
        explain=item.explain, idempotency_key=item.idempotency_key,
        roll=_roll(item.roll, f"{prefix}roll"),
        landing_time=_landing_time(item.landing_time, f"{prefix}landing_time"))


def _roll(roll: object, name: str) -> int:
    """The ``pb.Roll`` of a roll's name (``following``, ``modified-preceding``
    …, any case, ``_`` for ``-``; the full names ``ROLL_FOLLOWING`` …; docs/semantics.md §15);
    ``""``: none. Anything else raises InvalidArgument on ``name`` listing the rolls."""
    if roll == "":
        return pb.ROLL_UNSPECIFIED
    if isinstance(roll, str):
        wanted = roll.strip().upper().replace("-", "_")
        for full, number in pb.Roll.items():
            if number and wanted in (full, full.removeprefix("ROLL_")):
                return number
    why = (f"{roll!r} is not a roll; write one of following, preceding, modified-following, "
           "modified-preceding (or leave it out for none)")
    raise InvalidArgument(f"{name}: {why}", violations=[Violation(name, why)])


def _landing_time(landing_time: object, name: str) -> str:
    """A landing time as sent (``"17:00"``, ``"open"``, ``"close"``,
    ``"end"``; the service checks it); anything but text raises InvalidArgument on ``name``."""
    if isinstance(landing_time, str):
        return landing_time
    why = (f"a {type(landing_time).__name__} is not a landing time; write HH:MM, open, close "
           "or end")
    raise InvalidArgument(f"{name}: {why}", violations=[Violation(name, why)])


def _due_time(response: pb.ComputeDueTimeResponse) -> DueTime:
    return DueTime(_datetime(response, "due"), response.due_local, _recorded(response),
                   _explanation(response.explanation))


def _deadline(deadline: Deadline | str, i: int) -> pb.DeadlineSpec:
    """The DeadlineSpec of a Deadline or its text (``NAME=DURATION`` or
    ``NAME=DURATION@after:OTHER``: InvalidArgument on ``deadlines[i]`` when it
    is neither)."""
    if isinstance(deadline, str):
        try:
            deadline = parsing.parse_deadline(deadline, f"deadlines[{i}]")
        except parsing.SpecError as exc:
            raise _refused(exc) from None
    return pb.DeadlineSpec(name=deadline.name, duration=deadline.duration, after=deadline.after,
                           roll=_roll(deadline.roll, f"deadlines[{i}].roll"),
                           landing_time=_landing_time(deadline.landing_time,
                                                      f"deadlines[{i}].landing_time"))


def _time_range(request, start: datetime | None, end: datetime | None) -> None:
    """Set ``request``'s ``start_time`` and ``end_time`` when given."""
    if start is not None:
        request.start_time.CopyFrom(_instant(start, "start_time"))
    if end is not None:
        request.end_time.CopyFrom(_instant(end, "end_time"))


def _due_time_result(result: pb.BatchItemResult) -> DueTimeResult:
    if result.HasField("response"):
        return DueTimeResult(due_time=_due_time(result.response))
    return DueTimeResult(error=error_of_status(result.error))


def _status(value: int) -> str:
    return pb.ClockStatus.Name(value).removeprefix("CLOCK_STATUS_")


def _timeline(entries) -> tuple[TimelineEntry, ...]:
    return tuple(
        TimelineEntry(
            event=e.event, time=_datetime(e, "time"), action=e.action, tier=e.tier,
            status=_status(e.status), old_deadline=_datetime(e, "old_deadline_time"),
            new_deadline=_datetime(e, "new_deadline_time"),
            remaining=_timedelta(e, "remaining"), reason=e.reason, threshold=e.threshold)
        for e in entries)


def _business_event(event: object, i: int) -> pb.BusinessEvent:
    """The BusinessEvent of ``events[i]``: a message as it is, an
    :class:`SlaEvent`, or a mapping in the JSON form (docs/semantics.md §14).
    InvalidArgument naming ``events[i]`` or its field otherwise."""
    def refuse(name: str, why: str) -> InvalidArgument:
        return InvalidArgument(f"{name}: {why}", violations=[Violation(name, why)])
    if isinstance(event, pb.BusinessEvent):
        return event
    if isinstance(event, SlaEvent):
        kind, when, attributes = event.type, event.time, event.attributes
    elif isinstance(event, Mapping):
        unknown = sorted(str(k) for k in event if k not in ("type", "time", "attributes"))
        if unknown:
            raise refuse(f"events[{i}].{unknown[0]}", "is not a field of an event; give type, time and "
                                                      "optionally attributes")
        missing = [k for k in ("type", "time") if k not in event]
        if missing:
            raise refuse(f"events[{i}].{missing[0]}", "is required")
        kind, when, attributes = event["type"], event["time"], event.get("attributes") or {}
    else:
        raise refuse(f"events[{i}]", f"is a {type(event).__name__}; give an SlaEvent, a BusinessEvent or a "
                                     "mapping such as {'type': 'agent_reply', 'time': '2026-12-01T10:00+01:00'}")
    if not isinstance(kind, str):
        raise refuse(f"events[{i}].type", f"is a {type(kind).__name__}; write the event's name, e.g. 'agent_reply'")
    if not isinstance(attributes, Mapping) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in attributes.items()):
        raise refuse(f"events[{i}].attributes", "is a mapping of text to text, e.g. {'tier': 'high'}")
    return pb.BusinessEvent(type=kind, time=_instant(when, f"events[{i}].time"), attributes=dict(attributes))


def _dues(items) -> tuple[SlaDue, ...]:
    return tuple(SlaDue(d.metric, pb.SlaDueKind.Name(d.kind).removeprefix("SLA_DUE_KIND_"), d.threshold)
                 for d in items)


def _next_action(response) -> SlaNextAction | None:
    if not response.HasField("next_action"):
        return None
    return SlaNextAction(_datetime(response.next_action, "time"), _dues(response.next_action.due))


def _thresholds(values: Sequence[str]) -> list[str]:
    """``warning_thresholds`` as a list of text; InvalidArgument naming
    ``warning_thresholds`` for one text given alone or an item that is not text."""
    if isinstance(values, str):
        why = "is a sequence of thresholds, e.g. ['75%', '30bm'], not one text"
        raise InvalidArgument(f"warning_thresholds: {why}", violations=[Violation("warning_thresholds", why)])
    out = list(values)
    for i, v in enumerate(out):
        if not isinstance(v, str):
            name, why = f"warning_thresholds[{i}]", f"is a {type(v).__name__}; write text such as '75%' or '30bm'"
            raise InvalidArgument(f"{name}: {why}", violations=[Violation(name, why)])
    return out


def _clock_with_actions(response) -> Clock:
    """The Clock of a StartClock or ApplyClockEvent answer, with its next
    action and what fell at the event."""
    return replace(_clock(response), next_action=_next_action(response),
                   fell_at_event=_dues(response.fell_at_event))


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
# retries


@dataclass(frozen=True)
class RetryPolicy:
    """How a :class:`DuetimeClient` retries a failed call: gRPC's own retry
    policy (the channel's service config ``methodConfig.retryPolicy``, with
    ``grpc.enable_retries``), for every method of duetime's services
    (:meth:`DuetimeClient.health` is not retried: it says how the server is now).

    A call that fails with one of :data:`RETRY_CODES` is sent again, up to
    ``retries`` more times (0 to 4; 0: never), after waiting ``backoff``
    seconds, then twice as long each time (gRPC varies each wait by ±20%),
    all within the call's one timeout. ``backoff`` None (the default):
    the waits add up to at most half the client's ``timeout``, so the last
    attempt still has time to be answered: with the default 5 s timeout and
    4 retries about 0.14, 0.28, 0.56 and 1.1 s, riding out a server that is
    down for about 2 s (a restart). The channel also tries to reconnect as
    often (``grpc.initial_reconnect_backoff_ms`` and
    ``grpc.max_reconnect_backoff_ms`` set to the first and last wait). The
    error of a call that failed every attempt is its last one, with
    ``retryable`` True.

    Retrying a recorded call is safe because of its idempotency key: a
    recorded call the caller gave no key gets one made up by the client
    (:data:`GENERATED_KEY_PREFIX` and a random UUID; a batch or stream item
    given as a :class:`DueTimeRequest` ``…/N``), the same for each attempt,
    so an attempt the server recorded but could not answer (a connection
    cut, a server stopped mid-call) is answered from its record by the next
    one, never recorded twice. A ``ComputeDueTimeRequest`` message given as
    an item is sent as it is, key or none. With ``retries=0`` no key is
    made up.
    """

    retries: int = DEFAULT_RETRIES
    backoff: float | None = None
    """The first wait in seconds (> 0); None: from the client's timeout."""

    def __post_init__(self) -> None:
        if isinstance(self.retries, bool) or not isinstance(self.retries, int) \
                or not 0 <= self.retries <= 4:
            why = f"{self.retries!r} is not 0 to 4 retries (gRPC makes at most 5 attempts)"
            raise InvalidArgument(f"retries: {why}", violations=[Violation("retries", why)])
        if self.backoff is not None and not (isinstance(self.backoff, (int, float))
                                             and 0 < self.backoff <= 3600):
            why = f"{self.backoff!r} is not a number of seconds over 0 (at most 3600)"
            raise InvalidArgument(f"backoff: {why}", violations=[Violation("backoff", why)])

    def waits(self, timeout: float) -> tuple[float, float]:
        """The first and the longest wait, in seconds, for calls of ``timeout`` seconds."""
        doublings = 2 ** self.retries - 1
        first = self.backoff if self.backoff is not None else timeout / 2 / (1.2 * doublings)
        first = max(first, 0.001)
        return first, first * 2 ** (self.retries - 1)

    def channel_options(self, timeout: float) -> tuple[tuple[str, object], ...]:
        """The gRPC channel options that make a channel retry as this policy says."""
        if not self.retries:
            return (("grpc.enable_retries", 0),)
        first, longest = self.waits(timeout)
        config = {"methodConfig": [{"name": [{"service": name} for name in _RETRIED_SERVICES],
                                    "retryPolicy": {
            "maxAttempts": self.retries + 1,
            "initialBackoff": f"{first:.3f}s",
            "maxBackoff": f"{longest:.3f}s",
            "backoffMultiplier": 2,
            "retryableStatusCodes": [code.name for code in RETRY_CODES]}}]}
        return (("grpc.enable_retries", 1), ("grpc.service_config", json.dumps(config)),
                ("grpc.per_rpc_retry_buffer_size", _RETRY_BUFFER_BYTES),
                ("grpc.retry_buffer_size", 4 * _RETRY_BUFFER_BYTES),
                ("grpc.initial_reconnect_backoff_ms", max(1, round(first * 1000))),
                ("grpc.max_reconnect_backoff_ms", max(1, round(longest * 1000))))


# ---------------------------------------------------------------------------
# the client


class DuetimeClient:
    """A connection to one duetime server; a context manager that closes it.

    ``target`` is ``host:port``; ``channel`` (optional) an existing channel to
    use instead (not closed by :meth:`close`); ``timeout`` the seconds every
    call may take; ``namespace`` (optional) the idempotency namespace every
    call is made in (sent as ``x-duetime-namespace`` metadata; 1–64
    characters of ``A-Z a-z 0-9 . _ -``), so this caller's keys never collide
    with another team's. With a token bound to namespaces it must be one of
    them (else :class:`PermissionDenied`); without it the server uses the
    token's default namespace, and the records read back
    (:meth:`get_record`, :meth:`list_records`, :meth:`analyze_impact`) are
    only those of the token's namespaces.

    A server with TLS: ``tls_ca`` (PEM file path or bytes; without it, with
    ``tls=True``, the system's root certificates); with mutual TLS also
    ``tls_cert`` and ``tls_key``; with bearer tokens, ``token`` (sent as
    ``authorization: Bearer <token>`` metadata). See
    :mod:`duetime.channels`; a file that cannot be read raises
    :class:`duetime.channels.ChannelError` (a ValueError).

    ``retries``: how failed calls are retried, a :class:`RetryPolicy` or
    its number of retries (default 4, with waits that fit the ``timeout``;
    ``retries=0`` never retries and makes up no idempotency key). The policy
    is set on the client's own channel; a ``channel`` given keeps its own
    configuration (the client still makes up keys unless ``retries=0``).
    """

    def __init__(self, target: str = DEFAULT_TARGET, timeout: float = DEFAULT_TIMEOUT,
                 channel: grpc.Channel | None = None, *, namespace: str | None = None,
                 tls: bool = False, tls_ca: PathOrPem | None = None,
                 tls_cert: PathOrPem | None = None, tls_key: PathOrPem | None = None,
                 token: str | None = None, retries: int | RetryPolicy = DEFAULT_RETRIES):
        if channel is None:
            try:
                parsing.check_server_address(target, "target")
            except parsing.SpecError as exc:
                raise _refused(exc) from None
        self.timeout = timeout
        self.namespace = namespace or ""
        self.retry_policy = retries if isinstance(retries, RetryPolicy) else RetryPolicy(retries)
        self._metadata = ((NAMESPACE_METADATA, namespace),) if namespace else ()
        self._owned = channel is None
        self._channel = channel or open_channel(target, ConnectionOptions(
            tls=tls, tls_ca=tls_ca, tls_cert=tls_cert, tls_key=tls_key, token=token),
            _CHANNEL_OPTIONS + self.retry_policy.channel_options(timeout))
        self._stub = pb_grpc.DueTimeServiceStub(self._channel)
        self._calendars = pb_grpc.CalendarServiceStub(self._channel)

    def close(self) -> None:
        if self._owned:
            self._channel.close()

    def __enter__(self) -> DuetimeClient:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def _key(self, given: str) -> str:
        """``given``, or when it is empty and retries are on, a new key
        (:data:`GENERATED_KEY_PREFIX` and a random UUID)."""
        if given or not self.retry_policy.retries:
            return given
        return GENERATED_KEY_PREFIX + uuid.uuid4().hex

    @staticmethod
    def _keyed_items(base: str, given: Sequence[DueTimeRequestLike], sent, first: int = 0) -> None:
        """Give each item of ``sent`` (the messages of ``given``, item
        ``first`` on) made from a :class:`DueTimeRequest` without an
        idempotency key the key ``base/N``, N its index in the call; none
        when ``base`` is empty (retries off). A ComputeDueTimeRequest
        message given is sent as it is."""
        if not base:
            return
        for i, (item, message) in enumerate(zip(given, sent), first):
            if not message.idempotency_key and isinstance(item, DueTimeRequest):
                message.idempotency_key = f"{base}/{i}"

    def _call(self, rpc: str, request, stub=None):
        """Call ``rpc``; a refusal because the server is busy (:data:`BUSY_REASONS`)
        is sent again after the wait the server asked for, as often as the
        client's ``timeout`` (counted from the first attempt) has room for
        (:meth:`_busy_wait`; never with retries off)."""
        method = getattr(stub or self._stub, rpc)
        ends = time.monotonic() + self.timeout
        while True:
            try:
                return method(request, timeout=max(ends - time.monotonic(), 0.001),
                              metadata=self._metadata)
            except grpc.RpcError as exc:
                error = error_of(exc)
                wait = self._busy_wait(error, ends)
                if wait is None:
                    raise error from exc
            time.sleep(wait)

    def _busy_wait(self, error: DuetimeError, ends: float) -> float | None:
        """Seconds to wait before sending again a call refused with ``error``,
        or None to give up: only for a busy server (RESOURCE_EXHAUSTED,
        reason in :data:`BUSY_REASONS`) and with retries on, after its
        ``retry_after_seconds`` (1 if it gave none), while the wait leaves
        the call some time before ``ends``."""
        if error.reason not in BUSY_REASONS or not self.retry_policy.retries:
            return None
        try:
            wait = float(error.metadata.get("retry_after_seconds", "1"))
        except ValueError:
            wait = 1.0
        wait = min(max(wait, 0.0), 60.0)
        return wait if time.monotonic() + wait < ends else None

    def compute_due_time(self, start: datetime | str, duration: str | timedelta,
                         calendar: CalendarLike = None, *,
                         next_open_at_close: bool = False, at_close: str = "",
                         explain: bool = False, idempotency_key: str = "",
                         roll: str = "", landing_time: str = "") -> DueTime:
        """``start + duration`` (``"3bd"``, ``"8bh"``, ``"48h"``, ``"P1M"``…;
        a landing rule is written in the text, ``"P1M@following"``,
        ``"14d@modified-following@close"``, or given as ``roll``
        (``"following"``, ``"preceding"``, ``"modified-following"``,
        ``"modified-preceding"``, any case) and ``landing_time`` (``"HH:MM"``,
        ``"open"``, ``"close"``, ``"end"``), not both: docs/semantics.md §15;
        ``roll="following", landing_time="end"`` with ``"P2W"`` is ``"P2W@following@end"``).
        ``start``: an aware datetime or RFC 3339 text (``"2026-11-27T15:00Z"``);
        ``duration``: text, or a ``timedelta`` (exact elapsed time, see
        :func:`duration_text`). Other types, and a naive datetime, raise
        InvalidArgument naming ``start`` or ``duration``.

        Business time ending exactly at a closing is due at that closing
        unless ``next_open_at_close`` (or ``at_close="next-open"``; also
        ``"end-of-window"``, the default said explicitly). ``explain``: the
        answer's ``explanation`` lists the steps that lead to it.
        """
        request = _due_time_request(DueTimeRequest(start, duration, calendar, next_open_at_close,
                                                   self._key(idempotency_key), at_close, explain,
                                                   roll, landing_time),
                                    "", {})
        return _due_time(self._call("ComputeDueTime", request))

    def compute_due_times(self, items: Iterable[DueTimeRequestLike]) -> list[DueTimeResult]:
        """Many due times in one BatchComputeDueTimes call: one
        :class:`DueTimeResult` per item, in order, each as
        :meth:`compute_due_time` would have answered (or raised for) that item
        alone; every answered item is recorded before the call returns.

        At most 1,000 items (the server's ``--max-batch-items``): more is
        InvalidArgument on ``items``, raised, like UNAVAILABLE and any error of
        the whole call. A naive ``start`` raises InvalidArgument on
        ``items[i].start`` before anything is sent. The call's deadline is the
        client's ``timeout``.
        """
        calendars: _Calendars = {}
        items = list(items)
        request = pb.BatchComputeDueTimesRequest(items=[
            _due_time_request(item, f"items[{i}].", calendars) for i, item in enumerate(items)])
        self._keyed_items(self._key(""), items, request.items)
        return [_due_time_result(r) for r in self._call("BatchComputeDueTimes", request).results]

    def stream_due_times(self, items: Iterable[DueTimeRequestLike], *,
                         message_items: int = STREAM_MESSAGE_ITEMS,
                         timeout: float = STREAM_TIMEOUT) -> Iterator[DueTimeResult]:
        """Due times for any number of items through one StreamComputeDueTimes
        call: ``items`` are read lazily and sent ``message_items`` (1 to
        10,000) to a message while the answers come back; yields one
        :class:`DueTimeResult` per item, in order, as they arrive. Each answer
        is recorded before it is sent.

        ``timeout``: seconds the whole stream may take (default
        :data:`STREAM_TIMEOUT`). An error of the whole stream (UNAVAILABLE, a
        deadline) raises its DuetimeError once the answers before it are
        yielded. An item that cannot be sent (a naive ``start``: InvalidArgument
        on ``items[i].start``) ends the stream: the items before it are
        answered and yielded, then that error is raised. Stopping the
        iteration early cancels the call.
        """
        if not 1 <= message_items <= 10_000:
            why = f"{message_items} is not 1 to 10000 items per message"
            raise InvalidArgument(f"message_items: {why}",
                                  violations=[Violation("message_items", why)])
        stopped: list[BaseException] = []

        base = self._key("")  # "" with retries off: no keys made up

        def message(given: list[DueTimeRequestLike], chunk: list[pb.ComputeDueTimeRequest],
                    first: int) -> pb.StreamComputeDueTimesRequest:
            sent = pb.StreamComputeDueTimesRequest(items=chunk)
            self._keyed_items(base, given, sent.items, first)
            return sent

        def messages() -> Iterator[pb.StreamComputeDueTimesRequest]:
            calendars: _Calendars = {}
            given: list[DueTimeRequestLike] = []
            chunk: list[pb.ComputeDueTimeRequest] = []
            first = 0
            try:
                for i, item in enumerate(items):
                    chunk.append(_due_time_request(item, f"items[{i}].", calendars))
                    given.append(item)
                    if len(chunk) == message_items:
                        yield message(given, chunk, first)
                        first += len(chunk)
                        given, chunk = [], []
                        calendars.clear()
            except Exception as exc:  # noqa: BLE001 - raised to the caller after the answers
                stopped.append(exc)
            if chunk:
                yield message(given, chunk, first)

        call = self._stub.StreamComputeDueTimes(messages(), timeout=timeout,
                                                metadata=self._metadata)
        try:
            for reply in call:
                for result in reply.results:
                    yield _due_time_result(result)
        except grpc.RpcError as exc:
            raise error_of(exc) from exc
        finally:
            call.cancel()  # a no-op once the stream has ended
        if stopped:
            raise stopped[0]

    def business_time(self, start: datetime, end: datetime, calendar: CalendarLike = None, *,
                      explain: bool = False, idempotency_key: str = "") -> BusinessTime:
        """Open time in ``[start, end)`` and whole business days between them
        (negative when ``end`` is before ``start``); ``explain``: the open
        intervals counted, in ``explanation``."""
        request = pb.ComputeBusinessTimeRequest(
            start_time=_instant(start, "start_time"), end_time=_instant(end, "end_time"),
            calendar=_calendar(calendar), explain=explain,
            idempotency_key=self._key(idempotency_key))
        response = self._call("ComputeBusinessTime", request)
        return BusinessTime(_timedelta(response, "business_time"), response.business_days,
                            _recorded(response), _explanation(response.explanation))

    def compute_schedule(self, entered: datetime, deadlines: Iterable[Deadline | str],
                         calendar: CalendarLike = None, *, next_open_at_close: bool = False,
                         at_close: str = "", explain: bool = False,
                         idempotency_key: str = "") -> Schedule:
        """A stage's named deadlines: each :class:`Deadline` (or its text,
        ``"remind=2bd"``, ``"final=4bh@after:escalate"``) counted from
        ``entered``, or from the due time of the deadline it comes ``after``;
        a Deadline's ``roll`` and ``landing_time`` give its landing rule
        (``Deadline("pay", "P1M", roll="following", landing_time="end")``,
        docs/semantics.md §15), as its text can (``"pay=P1M@following@end"``).
        ``at_close`` and ``explain`` as for :meth:`compute_due_time`."""
        request = pb.ComputeScheduleRequest(
            entered_time=_instant(entered, "entered_time"), calendar=_calendar(calendar),
            deadlines=[_deadline(d, i) for i, d in enumerate(deadlines)],
            at_close=_at_close(at_close, next_open_at_close), explain=explain,
            idempotency_key=self._key(idempotency_key))
        response = self._call("ComputeSchedule", request)
        return Schedule(
            deadlines=tuple(
                ScheduledDeadline(d.name, _datetime(d, "due_time"), d.due_local,
                                  _datetime(d, "from_time"), d.after, _explanation(d.explanation))
                for d in response.deadlines),
            next_due=response.next_due, next_due_time=_datetime(response, "next_due_time"),
            recorded=_recorded(response))

    def open_status(self, at: datetime, calendar: CalendarLike = None, *,
                    idempotency_key: str = "", include_last_run: bool = False) -> OpenStatus:
        """Whether the calendar is open at ``at``, and the next opening and
        closing; with ``include_last_run`` also the last opening and closing
        (``last_open``, ``last_close``; docs/semantics.md §9.1)."""
        request = pb.GetOpenStatusRequest(time=_instant(at, "time"),
                                          calendar=_calendar(calendar),
                                          idempotency_key=self._key(idempotency_key),
                                          include_last_run=include_last_run)
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
            last_open=_datetime(response, "last_open_time"),
            last_close=_datetime(response, "last_close_time"),
        )

    # --- calendar queries (docs/semantics.md §9.1) ---------------------------------
    def list_open_periods(self, start: datetime, end: datetime, calendar: CalendarLike = None, *,
                          page_size: int = 0, page_token: str = "",
                          idempotency_key: str = "") -> OpenPeriods:
        """One page of the open periods in ``[start, end)`` (``page_size``:
        0 means 100, at most 1000): ListOpenPeriods. Pass the page's
        ``next_page_token`` as ``page_token`` for the next one. An ``end``
        before ``start`` raises InvalidArgument."""
        request = pb.ListOpenPeriodsRequest(
            start_time=_instant(start, "start_time"), end_time=_instant(end, "end_time"),
            calendar=_calendar(calendar), page_size=page_size, page_token=page_token,
            idempotency_key=self._key(idempotency_key))
        response = self._call("ListOpenPeriods", request)
        return OpenPeriods(
            tuple(OpenPeriod(_datetime(p, "start_time"), _datetime(p, "end_time"),
                             date.fromisoformat(p.local_date)) for p in response.periods),
            response.next_page_token, _recorded(response))

    def open_periods(self, start: datetime, end: datetime, calendar: CalendarLike = None, *,
                     page_size: int = 0) -> Iterator[OpenPeriod]:
        """Every open period in ``[start, end)``, page after page (each page
        one recorded call)."""
        token = ""
        while True:
            page = self.list_open_periods(start, end, calendar, page_size=page_size,
                                          page_token=token)
            yield from page.periods
            token = page.next_page_token
            if not token:
                return

    def count_business_days(self, first: date | str, last: date | str,
                            calendar: CalendarLike = None, *,
                            idempotency_key: str = "") -> BusinessDayCount:
        """The business days from local date ``first`` to ``last``, both
        included (``YYYY-MM-DD`` text or dates): CountBusinessDays. A ``last``
        before ``first`` raises InvalidArgument."""
        request = pb.CountBusinessDaysRequest(
            from_date=str(first), to_date=str(last), calendar=_calendar(calendar),
            idempotency_key=self._key(idempotency_key))
        response = self._call("CountBusinessDays", request)
        return BusinessDayCount(response.business_days, _recorded(response))

    def start_clock(self, target: str, at: datetime, calendar: CalendarLike = None, *,
                    idempotency_key: str = "", warning_thresholds: Sequence[str] = ()) -> Clock:
        """A new RUNNING SLA clock: deadline = ``at`` + ``target``; a bundle
        calendar is pinned to its version in the state. ``warning_thresholds``
        (at most 8, e.g. ``["75%", "30bm"]``, docs/semantics.md §17): the
        answer's ``next_action`` and ``fell_at_event`` are filled."""
        request = pb.StartClockRequest(target=target, start_time=_instant(at, "start_time"),
                                       calendar=_calendar(calendar),
                                       idempotency_key=self._key(idempotency_key),
                                       warning_thresholds=_thresholds(warning_thresholds))
        return _clock_with_actions(self._call("StartClock", request))

    def apply_clock_event(self, state: bytes | pb.ClockState, event: str, at: datetime, *,
                          target: str = "", anchor: str = "", idempotency_key: str = "",
                          warning_thresholds: Sequence[str] = ()) -> Clock:
        """The clock after ``event`` (``pause``, ``resume``, ``reset``,
        ``retarget`` with ``target`` and optionally ``anchor="start"``, or
        ``stop``) at ``at``. An event the state does not allow raises
        FailedPrecondition. ``warning_thresholds``: the clock's warnings, as
        in :meth:`start_clock` (give them with every event)."""
        message = _state_message(state)
        request = pb.ApplyClockEventRequest(
            state=message,
            event=pb.ClockEvent(
                type=_choice(_EVENTS, event, "event.type"), time=_instant(at, "event.time"),
                target=target,
                anchor=_choice(_ANCHORS, anchor, "event.anchor") if anchor else 0),
            idempotency_key=self._key(idempotency_key),
            warning_thresholds=_thresholds(warning_thresholds))
        return _clock_with_actions(self._call("ApplyClockEvent", request))

    def evaluate_sla(self, policy: str, events: Iterable[SlaEvent | pb.BusinessEvent | Mapping[str, object]], *,
                     idempotency_key: str = "", as_of: datetime | None = None) -> SlaEvaluation:
        """Replay a ticket's ``events`` (the first ``start``) under ``policy``
        (``name`` or ``name@version``). An event is an :class:`SlaEvent`, a
        BusinessEvent message (sent as it is) or a mapping in the JSON form
        of HTTP and the command line (docs/semantics.md §14): ``{"type":
        "agent_reply", "time": "2026-12-01T10:00+01:00", "attributes":
        {"tier": "high"}}``, ``time`` RFC 3339 text or an aware datetime,
        ``attributes`` optional; anything else raises InvalidArgument naming
        ``events[i]`` (or its field). ``as_of`` (aware; None: the last event's instant): evaluate as of
        that instant (docs/semantics.md §17), filling ``metrics`` and
        ``next_action``."""
        key = self._key(idempotency_key)
        request = pb.EvaluateSlaRequest(policy=policy, idempotency_key=key,
                                        events=[_business_event(e, i) for i, e in enumerate(events)])
        if as_of is not None:
            request.as_of_time.CopyFrom(_instant(as_of, "as_of_time"))
        response = self._call("EvaluateSla", request)
        return SlaEvaluation(
            clock=_clock(response),
            tier=response.tier,
            policy_version=response.policy_version,
            timeline=_timeline(response.timeline),
            metrics=tuple(SlaMetric(m.name, pb.SlaMetricStatus.Name(m.status).removeprefix("SLA_METRIC_STATUS_"),
                                    m.cycles, m.tier,
                                    m.state.SerializeToString(deterministic=True) if m.HasField("state") else b"",
                                    _timeline(m.timeline), _datetime(m, "breach_time"))
                          for m in response.metrics),
            next_action=_next_action(response),
        )

    def get_record(self, record_id: str) -> pb.Record:
        """The stored record of an answer (request and response as ``Any``)."""
        return self._call("GetRecord", pb.GetRecordRequest(record_id=record_id)).record

    def list_records(self, *, start: datetime | None = None, end: datetime | None = None,
                     key_prefix: str = "", namespace: str | None = None,
                     page_size: int = 0) -> Iterator[pb.Record]:
        """The stored records received in ``[start, end)`` (either open),
        whose idempotency key starts with ``key_prefix``, in ``namespace``
        (``""`` the default one; None: every namespace), in the order they
        were received: ListRecords, page by page (``page_size`` records a
        call; 0: the server's default), each page read as the iteration
        reaches it. Each call has the client's ``timeout``."""
        request = pb.ListRecordsRequest(key_prefix=key_prefix, page_size=page_size)
        _time_range(request, start, end)
        if namespace is not None:
            request.namespace = namespace
        while True:
            page = self._call("ListRecords", request)
            yield from page.records
            if not page.next_page_token:
                return
            request.page_token = page.next_page_token

    def analyze_impact(self, calendar: str = "", *, tzdata: bool = False, limit: int = 0,
                       start: datetime | None = None, end: datetime | None = None,
                       namespace: str | None = None) -> Impact:
        """Which recorded due times a newer bundle version (``calendar``,
        ``NAME@NEW`` or ``NAME`` for its newest) or, with ``tzdata``, the
        server's tz database would move; records selected as by
        :meth:`list_records`, at most ``limit`` (0: the server's default).
        Nothing is recorded or changed."""
        request = pb.AnalyzeImpactRequest(calendar=calendar, tzdata=tzdata, limit=limit)
        _time_range(request, start, end)
        if namespace is not None:
            request.namespace = namespace
        response = self._call("AnalyzeImpact", request)
        return Impact(
            calendar_version=response.calendar_version,
            tzdata_version=response.tzdata_version,
            records_examined=response.records_examined,
            records_replayed=response.records_replayed,
            changes=tuple(
                ImpactedRecord(
                    c.record_id, c.method, c.idempotency_key, c.namespace,
                    c.old_calendar_version, c.new_calendar_version, c.old_tzdata_version,
                    tuple(MovedDueTime(d.name, _datetime(d, "old_due_time"),
                                       _datetime(d, "new_due_time"), d.old_due_local,
                                       d.new_due_local, tuple(d.reasons))
                          for d in c.due_times),
                    c.error,
                    tuple(ChangedAnswer(a.name, a.old_value, a.new_value, tuple(a.reasons))
                          for a in c.answer_changes))
                for c in response.changes),
            not_replayed=tuple(SkippedRecord(s.record_id, s.method, s.reason)
                               for s in response.not_replayed),
            truncated=response.truncated,
            message=response)

    def list_calendars(self) -> Calendars:
        """The calendar bundles the server has loaded, with their years and versions."""
        response = self._call("ListCalendars", pb.ListCalendarsRequest(), self._calendars)
        return Calendars(tuple(
            CalendarInfo(c.name, c.description, c.time_zone, c.newest_version,
                         tuple(c.versions), c.first_year, c.last_year)
            for c in response.calendars), response)

    def list_holidays(self, calendar: CalendarLike, first: date | str,
                      last: date | str) -> Holidays:
        """The holidays of ``calendar`` (a bundle reference, or inline) from
        local date ``first`` to ``last`` inclusive (``YYYY-MM-DD`` text or
        dates, at most 20 × 366 days apart), by date: ListHolidays. A date
        outside a bundle's years raises OutOfRange."""
        request = pb.ListHolidaysRequest(calendar=_calendar(calendar), start_date=str(first),
                                         end_date=str(last))
        response = self._call("ListHolidays", request, self._calendars)
        return Holidays(tuple((date.fromisoformat(h.date), h.name) for h in response.holidays),
                        response.calendar_version, tuple(response.warnings), response)

    def list_policies(self) -> Policies:
        """The SLA policies the server has loaded, with their versions: ListPolicies."""
        response = self._call("ListPolicies", pb.ListPoliciesRequest(), self._calendars)
        return Policies(tuple(_policy_info(p) for p in response.policies), response)

    def get_policy(self, name: str) -> Policy:
        """SLA policy ``name`` (its newest version) or ``name@version``
        written out: GetPolicy. An unknown policy or version raises NotFound
        (field ``name``)."""
        response = self._call("GetPolicy", pb.GetPolicyRequest(name=name), self._calendars)
        return Policy(
            _policy_info(response.info), response.version, response.initial_tier,
            tuple(PolicyTier(t.name, t.target,
                             pb.ClockMeasure.Name(t.measure).removeprefix("CLOCK_MEASURE_"),
                             t.calendar_version, t.time_zone) for t in response.tiers),
            tuple(PolicyEvent(e.name, e.when_running, e.when_paused, e.anchor, e.description)
                  for e in response.events),
            response,
            tuple(PolicyMetric(m.name,
                               tuple(PolicyTier(t.name, t.target,
                                                pb.ClockMeasure.Name(t.measure).removeprefix("CLOCK_MEASURE_"),
                                                t.calendar_version, t.time_zone) for t in m.targets),
                               tuple(PolicyMetricRule(r.event, r.status, r.action, r.anchor) for r in m.rules),
                               tuple(m.warnings))
                  for m in response.metrics))

    def health(self, service: str = "", *, timeout: float | None = None) -> str:
        """The gRPC health status of ``service`` (``""``: the whole server,
        SERVING while its ledger accepts writes): ``SERVING``,
        ``NOT_SERVING``, ``UNKNOWN`` or ``SERVICE_UNKNOWN``. A failed call
        (NOT_FOUND for a service the server does not know, UNAVAILABLE …)
        raises its DuetimeError. ``timeout``: seconds this call may take
        (default: the client's), never retried."""
        stub = health_pb2_grpc.HealthStub(self._channel)
        try:
            reply = stub.Check(health_pb2.HealthCheckRequest(service=service),
                               timeout=self.timeout if timeout is None else timeout)
        except grpc.RpcError as exc:
            raise error_of(exc) from exc
        return health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status)


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
