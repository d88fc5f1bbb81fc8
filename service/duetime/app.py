"""Use cases of duetime, independent of gRPC: compute, record, read back.

Requests and responses are the ``duetime.v1`` protobuf messages, so the gRPC
servicer and the CLI share one definition of each call. Each computing RPC is
a :class:`RecordedMethod`: a pure function from request to response
(:func:`compute`, :func:`compute_business_time`, :func:`compute_open_status`,
:func:`compute_schedule`; the CLI calls these directly when it runs without a
server) plus its method name and message types. :meth:`DueTimeApp.call` is the
one recorded path they all take: idempotency, compute, record, return.

SLA clocks (SPEC §7) take the same path: :func:`compute_start_clock` and
:func:`compute_clock_event` over a state the caller keeps
(:func:`clock_state_to_proto` / :func:`clock_state_from_proto` convert it), and
:func:`compute_sla_evaluation`, which replays a ticket's events under a
contract policy of the catalog.

Recording: :meth:`DueTimeApp.call` looks the key up in the caller's namespace,
computes, and stores the row through a :class:`~duetime.ledger.GroupCommit`
(concurrent calls share one transaction); a key found already held is
answered from the holder (replay) or refused (AlreadyExists). The read-only
ledger calls are :meth:`DueTimeApp.get_record`, :meth:`DueTimeApp.list_records`
and :meth:`DueTimeApp.analyze_impact` (:mod:`duetime.impact`).
:meth:`DueTimeApp.close` closes the ledger only once no call is using it;
a call that reaches the ledger afterwards raises :class:`ShuttingDown`.
:meth:`DueTimeApp.call_many` answers a batch the same way, item by item, and
records all its new answers in one transaction.

A request's calendar is inline or names a bundle (:func:`resolve_calendar`);
inline calendars are kept built in a bounded LRU (:data:`CALENDAR_CACHE`);
bundles come from the app's :class:`~duetime.catalog.Catalog`, which a reload
replaces in one assignment and each call reads once. The CalendarService
calls (:func:`list_calendars`, :func:`get_calendar`, :func:`list_holidays`)
are read-only and not recorded.
Errors raised here:

- ``duetime.core.InvalidArgument`` / ``OutOfRange`` (a ``DuetimeError``): bad
  input, with one FieldViolation per problem (SPEC §9);
- ``duetime.core.FailedPrecondition`` (a ``DuetimeError``): a clock event the
  clock's state does not allow (SPEC §10);
- :class:`AlreadyExists`: an idempotency key reused with a different request;
- :class:`RecordNotFound`: no record has the requested id;
- ``duetime.ledger.LedgerUnavailable``: the ledger cannot be read or written;
  no answer is returned then (SPEC §8);
- :class:`ShuttingDown`: the app was closed while the call ran; nothing was
  recorded or answered.
"""

from __future__ import annotations

import dataclasses
import os
import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone

from google.protobuf import any_pb2, duration_pb2, timestamp_pb2
from google.protobuf.message import Message

from duetime import tzdb  # first: pins zoneinfo to the tzdata package
from duetime.bundles import Bundle, BundleStore
from duetime.catalog import Catalog
from duetime.core import (
    RULES_VERSION,
    Anchor,
    AtClose,
    Calendar,
    ClockEvent,
    ClockState,
    Deadline,
    DuetimeError,
    ErrorKind,
    EventType,
    FailedPrecondition,
    FieldViolation,
    InvalidArgument,
    Measure,
    OutOfRange,
    Refusal,
    Status,
    Step,
    apply_event,
    business_time,
    due_answer,
    format_local,
    from_us,
    open_status,
    parse_duration,
    schedule,
    start_clock,
)
from duetime.core.calendar import MAX_HOLIDAYS
from duetime.core.clock import measure_of
from duetime.core.engine import start_us
from duetime.core.queries import horizon
from duetime.core.sla import BusinessEvent, evaluate
from duetime.core.zones import MAX_DATE, MIN_DATE
from duetime.core.zones import format_local as format_local_us
from duetime.ledger import (
    MAX_PAGE_SIZE,
    GroupCommit,
    Ledger,
    LedgerRow,
    LedgerUnavailable,
    RecordFilter,
    RowBuilder,
    encode_page_token,
    new_record_id,
    new_record_ids,
)
from duetime.v1 import duetime_pb2 as pb

_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_SERVICE = pb.DESCRIPTOR.services_by_name["DueTimeService"]

MAX_BATCH_ITEMS = 10_000
"""Most requests one BatchComputeDueTimes call (or one stream message) may hold."""
STREAM_CHUNK = 1_000
"""Most items of a stream answered (and committed) together."""
MAX_IDEMPOTENCY_KEY = 200
#: A clock state's recomputation counter stays far below int64's end.
MAX_RECOMPUTATIONS = 2**62
#: Running intervals a clock state may carry (one per pause/resume cycle).
MAX_RUNNING_INTERVALS = 10_000
"""Longest accepted idempotency key, in characters."""
MAX_HOLIDAY_RANGE_DAYS = 366 * 20
"""Most days ListHolidays' end_date may lie after its start_date."""
MAX_TIME_ZONE = 64
"""Longest accepted time zone name (the longest IANA name has 32 characters)."""
MAX_BUNDLE_REF = 128
"""Longest accepted bundle or policy reference (``name@version``)."""
MAX_DURATION_TEXT = 256
"""Longest accepted duration or clock target text."""
MAX_NAME = 200
"""Longest accepted name of a holiday, override, extra working day or deadline."""
MAX_DATE_OVERRIDES = MAX_HOLIDAYS
"""Most date overrides one calendar may give inline (as many as holidays)."""
MAX_DEADLINES = 100
"""Most deadlines one ComputeSchedule request may ask for."""
NAMESPACE_METADATA = "x-duetime-namespace"
"""gRPC request metadata naming the caller's idempotency namespace."""
NAMESPACE_FIELD = f"metadata {NAMESPACE_METADATA}"
"""The field errors about the namespace name."""
MAX_LIST_BYTES = 3 << 20
"""A ListRecords page stops growing once its records reach this many bytes."""
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_RECORD_ID = re.compile(r"[0-9a-f]{32}")
_NAMESPACE = re.compile(r"[A-Za-z0-9._-]{1,64}")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")

_AT_CLOSE = {
    pb.AT_CLOSE_UNSPECIFIED: AtClose.END_OF_WINDOW,
    pb.AT_CLOSE_END_OF_WINDOW: AtClose.END_OF_WINDOW,
    pb.AT_CLOSE_NEXT_OPEN: AtClose.NEXT_OPEN,
}


class AlreadyExists(Refusal):
    """The idempotency key is already recorded (in ``namespace``) for a different request."""

    kind = ErrorKind.DUPLICATE
    reason = "IDEMPOTENCY_KEY_REUSED"

    def __init__(self, key: str, namespace: str = ""):
        where = f" in namespace {namespace!r}" if namespace else ""
        super().__init__(
            f"idempotency key {key!r} was already used{where} with a different request",
            violations=[FieldViolation("idempotency_key", f"was already used{where} with a "
                                       "different request; a new request needs a new key", key)],
            metadata={"idempotency_key": key, **({"namespace": namespace} if namespace else {})})
        self.key = key
        self.namespace = namespace


class ShuttingDown(Refusal):
    """The app was closed while the call was running: nothing was recorded or answered."""

    kind = ErrorKind.RETRY_LATER
    reason = "SHUTTING_DOWN"
    retryable = True

    def __init__(self) -> None:
        super().__init__("the server is shutting down; nothing was recorded or answered, retry")


class RecordNotFound(Refusal):
    """No record has the requested id."""

    kind = ErrorKind.ABSENT
    reason = "RECORD_NOT_FOUND"

    def __init__(self, record_id: str):
        super().__init__(f"no record with id {record_id!r}", metadata={"record_id": record_id})
        self.record_id = record_id


# ---------------------------------------------------------------------------
# size and character limits, checked before any text is parsed (or echoed)


def too_long(text: str, field: str, limit: int) -> FieldViolation | None:
    """A violation on ``field`` when ``text`` has more than ``limit``
    characters (the text itself is not echoed), else None."""
    if len(text) <= limit:
        return None
    return FieldViolation(field, f"is {len(text)} characters long; at most {limit} are allowed")


def _check_length(text: str, field: str, limit: int) -> None:
    if problem := too_long(text, field, limit):
        raise InvalidArgument([problem])


def name_problem(text: str, field: str) -> FieldViolation | None:
    """A violation when a name is longer than :data:`MAX_NAME` or holds a
    control character (U+0000–U+001F, U+007F), else None."""
    if problem := too_long(text, field, MAX_NAME):
        return problem
    if found := _CONTROL.search(text):
        return FieldViolation(field, f"contains the control character U+{ord(found.group()):04X} "
                                     f"at position {found.start() + 1}; names are plain text")
    return None


def _calendar_text_problems(cal: pb.Calendar, field: str = "calendar") -> list[FieldViolation]:
    """What is too long or too many in a request calendar, or a name holding a
    control character: checked before the calendar is parsed."""
    problems = [too_long(cal.time_zone, f"{field}.time_zone", MAX_TIME_ZONE),
                too_long(cal.bundle, f"{field}.bundle", MAX_BUNDLE_REF)]
    if len(cal.date_overrides) > MAX_DATE_OVERRIDES:
        problems.append(FieldViolation(f"{field}.date_overrides", f"{len(cal.date_overrides)} "
                                       f"dates given; at most {MAX_DATE_OVERRIDES} are allowed"))
    for name, items in (("holidays", cal.holidays), ("date_overrides", cal.date_overrides),
                        ("extra_working_days", cal.extra_working_days)):
        if len(items) <= MAX_HOLIDAYS:
            problems += [name_problem(item.name, f"{field}.{name}[{i}].name")
                         for i, item in enumerate(items)]
    return [p for p in problems if p is not None]


def check_namespace(namespace: str) -> str:
    """``namespace`` if it is "" (the default) or 1–64 characters of
    ``A-Z a-z 0-9 . _ -``; else InvalidArgument on :data:`NAMESPACE_FIELD`."""
    if namespace and not _NAMESPACE.fullmatch(namespace):
        shown = repr(namespace) if len(namespace) <= 80 else f"{len(namespace)} characters"
        raise InvalidArgument.at(NAMESPACE_FIELD, f"{shown} is not a namespace: 1 to 64 "
                                                  "characters of A-Z a-z 0-9 . _ -")
    return namespace


def _check_key(key: str) -> None:
    """An idempotency key: at most :data:`MAX_IDEMPOTENCY_KEY` characters, not
    only whitespace, no NUL (a store cannot hold one)."""
    _check_length(key, "idempotency_key", MAX_IDEMPOTENCY_KEY)
    if key and not key.strip():
        raise InvalidArgument.at("idempotency_key", "is only whitespace; give a key, or none")
    if "\x00" in key:
        raise InvalidArgument.at("idempotency_key", "contains a NUL character")


# ---------------------------------------------------------------------------
# proto ⇄ core conversion


def calendar_from_proto(cal: pb.Calendar) -> Calendar:
    """Build a core Calendar from its proto form (SPEC §6).

    Unset ``weekend`` → default (Sat+Sun); set with no days → no weekend.
    Unset ``working_hours`` → default hours. Weekday enums pass as their ISO
    numbers; the core rejects 0 (UNSPECIFIED) and unknown values, naming fields
    such as ``calendar.weekend.days[0]``. Empty ``holidays_valid_until`` → no
    horizon. Raises InvalidArgument (or OutOfRange for dates outside the
    supported range).
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
    )


def _intervals(intervals: Iterable[pb.TimeInterval]) -> list[tuple[str, str]]:
    return [(i.start, i.end) for i in intervals]


@dataclass(frozen=True)
class ResolvedCalendar:
    """The calendar a request computes in: ``calendar`` to compute with,
    ``version`` for the answer and its record (see the proto's Calendar), and
    ``bundle``, the bundle version it names, if any."""

    calendar: Calendar
    version: str
    bundle: Bundle | None = None

    @contextmanager
    def answering(self) -> Iterator[None]:
        """Around a computation: for a bundle, the core's holiday-horizon
        OutOfRange (on ``calendar.holidays_valid_until`` / ``_from``) is
        reported on ``calendar.bundle``, naming the bundle's years."""
        try:
            yield
        except OutOfRange as exc:
            if self.bundle is None:
                raise
            raise self.bundle_range_error(exc) from None

    def bundle_range_error(self, exc: OutOfRange) -> OutOfRange:
        """``exc`` (the core's holiday-horizon OutOfRange) as reported for a
        bundle calendar: on ``calendar.bundle``, naming the bundle's years."""
        name, (first, last) = self.bundle.name, self.bundle.years
        return OutOfRange([
            FieldViolation("calendar.bundle", f"{name} covers {first}–{last} only (version "
                                              f"{self.bundle.version}); {v.description}")
            if v.field.startswith("calendar.holidays_valid") else v
            for v in exc.violations
        ], exc.reason)


def resolve_calendar(cal: pb.Calendar, bundles: BundleStore | None = None) -> ResolvedCalendar:
    """The calendar of a request (SPEC §6): inline, a bundle of ``bundles``
    (``name`` or ``name@version``), or a bundle plus extra inline holidays.

    With a bundle, every part but ``holidays`` must be unset, and a date the
    bundle already lists keeps the bundle's holiday. Raises InvalidArgument
    naming each part set beside the bundle, BundleNotFound (an InvalidArgument
    on ``calendar.bundle``), or the errors of :func:`calendar_from_proto`.
    """
    if not cal.bundle:
        # The cache holds only calendars that passed every check, so a hit
        # (the same bytes) needs none of them again.
        key = cal.SerializeToString(deterministic=True)
        inline = CALENDAR_CACHE.get(key)
        if inline is None:
            if problems := _calendar_text_problems(cal):
                raise InvalidArgument(problems)
            inline = CALENDAR_CACHE.put(key, calendar_from_proto(cal))
        return ResolvedCalendar(inline, inline.version)
    if problems := _calendar_text_problems(cal):
        raise InvalidArgument(problems)
    beside = [fd.name for fd, _ in cal.ListFields() if fd.name not in ("bundle", "holidays")]
    if beside:
        raise InvalidArgument([
            FieldViolation(f"calendar.{name}", f"comes from bundle {cal.bundle!r}; leave it unset")
            for name in beside
        ])
    bundle = (bundles or BundleStore.empty()).resolve(cal.bundle, field="calendar.bundle")
    if not cal.holidays:
        return ResolvedCalendar(bundle.calendar, bundle.ref, bundle)
    extra = Calendar.from_text(holidays=[(h.date, h.name) for h in cal.holidays], field="calendar")
    listed = {h.date for h in bundle.calendar.holidays}
    holidays = (*bundle.calendar.holidays, *(h for h in extra.holidays if h.date not in listed))
    combined = dataclasses.replace(bundle.calendar, holidays=tuple(sorted(holidays)))
    return ResolvedCalendar(combined, f"{bundle.ref}+{combined.version}", bundle)


DEFAULT_CALENDAR_CACHE = 1024
"""Inline calendars kept built (``duetime serve --calendar-cache``, env
``DUETIME_CALENDAR_CACHE``)."""


class CalendarCache:
    """A bounded LRU of built inline calendars, keyed by the Calendar message's
    deterministic serialization, so a calendar sent again (the usual case: a
    workflow engine sends the same few calendars) is validated and compiled
    once. Only calendars that built without error are kept. Thread-safe.
    ``maxsize`` 0 keeps nothing."""

    def __init__(self, maxsize: int = DEFAULT_CALENDAR_CACHE):
        self._lock = threading.Lock()
        self._items: OrderedDict[bytes, Calendar] = OrderedDict()
        self.maxsize = maxsize

    @property
    def maxsize(self) -> int:
        return self._maxsize

    @maxsize.setter
    def maxsize(self, value: int) -> None:
        if value < 0:
            raise ValueError(f"calendar cache size {value} is negative")
        with self._lock:
            self._maxsize = value
            while len(self._items) > value:
                self._items.popitem(last=False)

    def get(self, key: bytes) -> Calendar | None:
        """The calendar built for ``key`` (now the most recently used), or None."""
        with self._lock:
            found = self._items.get(key)
            if found is not None:
                self._items.move_to_end(key)
            return found

    def put(self, key: bytes, calendar: Calendar) -> Calendar:
        """Keep ``calendar`` under ``key``, dropping the least recently used
        beyond :attr:`maxsize`; returns ``calendar``. Its compiled form is
        built here, outside the lock, so a cached calendar is ready to use."""
        calendar.compiled  # noqa: B018 - compile once, before sharing
        with self._lock:
            if self._maxsize:
                self._items[key] = calendar
                self._items.move_to_end(key)
                while len(self._items) > self._maxsize:
                    self._items.popitem(last=False)
        return calendar

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()


def _cache_size_from_env() -> int:
    text = os.environ.get("DUETIME_CALENDAR_CACHE", "")
    try:
        return max(0, int(text)) if text.strip() else DEFAULT_CALENDAR_CACHE
    except ValueError:
        return DEFAULT_CALENDAR_CACHE


CALENDAR_CACHE = CalendarCache(_cache_size_from_env())
"""The process's cache of built inline calendars (:func:`resolve_calendar`);
``duetime serve --calendar-cache N`` sets its :attr:`~CalendarCache.maxsize`."""


def calendar_cache_size() -> int:
    """How many inline calendars the process holds built now (for tests)."""
    return len(CALENDAR_CACHE)


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


def _at_close(value: int) -> AtClose:
    if value not in _AT_CLOSE:
        raise InvalidArgument.at("at_close", f"{value} is not an AtClose value (0, 1 or 2)")
    return _AT_CLOSE[value]


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
    return format_local(from_us(us), calendar)


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
# the computing calls, unrecorded: request message in, response message out


class BatchCalendars:
    """The calendars of one batch: each distinct Calendar message (compared by
    its deterministic serialization) resolved once, through
    :func:`resolve_calendar`, and shared by every item that sends it. A
    calendar that fails to resolve is not kept (each item gets its own error).
    Not thread-safe: one per batch."""

    def __init__(self, bundles: BundleStore | None = None):
        self.bundles = bundles
        self._seen: dict[bytes, ResolvedCalendar] = {}
        self._last: tuple[pb.Calendar, ResolvedCalendar] | None = None

    def resolve(self, cal: pb.Calendar) -> ResolvedCalendar:
        # Items usually repeat the previous item's calendar: comparing the two
        # messages is cheaper than serializing this one.
        last = self._last
        if last is not None and cal == last[0]:
            return last[1]
        key = cal.SerializeToString(deterministic=True)
        found = self._seen.get(key)
        if found is None:
            found = self._seen[key] = resolve_calendar(cal, self.bundles)
        self._last = (cal, found)
        return found


def compute(
    request: pb.ComputeDueTimeRequest, bundles: BundleStore | None = None,
    calendars: BatchCalendars | None = None,
) -> pb.ComputeDueTimeResponse:
    """``request.start + request.duration`` under ``request.calendar``, unrecorded.

    ``bundles``: the bundles a calendar may name (None: none); ``calendars``:
    a batch's calendars, resolved once each (then ``bundles`` is theirs). The
    response has every field but ``record_id``. Raises InvalidArgument
    (missing ``start``, bad duration, calendar or ``at_close``, unknown
    bundle) or OutOfRange (SPEC §1–§5, the holiday horizon, a bundle's year
    range).
    """
    if not request.HasField("start"):
        raise InvalidArgument([FieldViolation("start", "is required (an instant)")])
    start = from_us(timestamp_us(request.start, "start"))
    duration = request.duration
    if len(duration) > MAX_DURATION_TEXT:
        _check_length(duration, "duration", MAX_DURATION_TEXT)
    cal = (calendars.resolve(request.calendar) if calendars is not None
           else resolve_calendar(request.calendar, bundles))
    at_close = _AT_CLOSE.get(request.at_close)
    if at_close is None:
        at_close = _at_close(request.at_close)
    try:
        answer = due_answer(start, duration, cal.calendar, at_close=at_close,
                            explain=request.explain, field="duration")
    except OutOfRange as exc:
        if cal.bundle is None:
            raise
        raise cal.bundle_range_error(exc) from None
    due_us = answer.due_us
    seconds, micros = divmod(due_us, 1_000_000)
    response = pb.ComputeDueTimeResponse()
    response.CopyFrom(_due_time_template(cal))
    response.due_local = format_local_us(due_us, cal.calendar.zone)
    due = response.due
    due.seconds = seconds
    due.nanos = micros * 1000
    if answer.warnings:
        response.warnings.extend(answer.warnings)
    if answer.steps:
        response.explanation.extend(_explanation(answer.steps))
    return response


_DUE_TIME_TEMPLATES: dict[tuple[str, str], pb.ComputeDueTimeResponse] = {}
"""A ComputeDueTimeResponse holding only the parts every answer in one
calendar shares (zone, versions), by (calendar version, zone); copying one
and setting the due time is several times cheaper than building the message
from keyword arguments. Bounded: emptied when it reaches 4096 entries."""


def _due_time_template(cal: ResolvedCalendar) -> pb.ComputeDueTimeResponse:
    key = (cal.version, cal.calendar.time_zone)
    template = _DUE_TIME_TEMPLATES.get(key)
    if template is None:
        template = pb.ComputeDueTimeResponse(
            time_zone=cal.calendar.time_zone, calendar_version=cal.version,
            rules_version=RULES_VERSION, tzdata_version=tzdb.tzdata_version())
        if len(_DUE_TIME_TEMPLATES) >= 4096:
            _DUE_TIME_TEMPLATES.clear()
        _DUE_TIME_TEMPLATES[key] = template
    return template


def compute_business_time(
    request: pb.ComputeBusinessTimeRequest, bundles: BundleStore | None = None
) -> pb.ComputeBusinessTimeResponse:
    """Open time in ``[start_time, end_time)`` and ``bd_between``, unrecorded."""
    start, end = _instants(request, "start_time", "end_time")
    cal = resolve_calendar(request.calendar, bundles)
    with cal.answering():
        answer = business_time(start, end, cal.calendar, explain=request.explain)
    return _answer(
        pb.ComputeBusinessTimeResponse, cal, answer.warnings,
        business_time=_duration(answer.open_us),
        business_days=answer.business_days,
        explanation=_explanation(answer.steps),
    )


def compute_open_status(
    request: pb.GetOpenStatusRequest, bundles: BundleStore | None = None
) -> pb.GetOpenStatusResponse:
    """Whether ``request.calendar`` is open at ``request.time``, unrecorded."""
    (at,) = _instants(request, "time")
    cal = resolve_calendar(request.calendar, bundles)
    with cal.answering():
        status = open_status(at, cal.calendar)
    interval = status.interval and pb.OpenInterval(
        start_time=_timestamp(status.interval[0]), end_time=_timestamp(status.interval[1])
    )
    return _answer(
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


def _check_deadlines(deadlines: Sequence[pb.DeadlineSpec]) -> None:
    """At most :data:`MAX_DEADLINES`, each with short texts and plain names."""
    if len(deadlines) > MAX_DEADLINES:
        raise InvalidArgument.at("deadlines", f"has {len(deadlines)} deadlines; at most "
                                              f"{MAX_DEADLINES} are allowed")
    problems = []
    for i, d in enumerate(deadlines):
        problems += [name_problem(d.name, f"deadlines[{i}].name"),
                     name_problem(d.after, f"deadlines[{i}].after"),
                     too_long(d.duration, f"deadlines[{i}].duration", MAX_DURATION_TEXT)]
    if problems := [p for p in problems if p is not None]:
        raise InvalidArgument(problems)


def compute_schedule(
    request: pb.ComputeScheduleRequest, bundles: BundleStore | None = None
) -> pb.ComputeScheduleResponse:
    """Every deadline's due time from ``request.entered_time``, unrecorded."""
    (entered,) = _instants(request, "entered_time")
    _check_deadlines(request.deadlines)
    cal = resolve_calendar(request.calendar, bundles)
    with cal.answering():
        answer = schedule(
            entered,
            [Deadline(d.name, d.duration, d.after) for d in request.deadlines],
            cal.calendar,
            at_close=_at_close(request.at_close),
            explain=request.explain,
        )
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


# ---------------------------------------------------------------------------
# SLA clocks (SPEC §7): the state on the wire, StartClock, ApplyClockEvent, EvaluateSla


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

MAX_SLA_EVENTS = 10_000
"""Most events one EvaluateSla request may replay."""

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


@contextmanager
def _renamed(rename: Callable[[str], str]) -> Iterator[None]:
    """Errors raised inside name their fields as ``rename(field)`` says."""
    try:
        yield
    except DuetimeError as exc:
        kind = {ErrorKind.UNSUPPORTED_RANGE: OutOfRange,
                ErrorKind.STATE_CONFLICT: FailedPrecondition}.get(exc.kind, InvalidArgument)
        raise kind([v._replace(field=rename(v.field)) for v in exc.violations],
                   exc.reason) from None


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
    state: pb.ClockState, bundles: BundleStore | None = None
) -> tuple[ClockState, ResolvedCalendar]:
    """The core clock state of a client-supplied ClockState, and its calendar.

    Raises InvalidArgument naming the field under ``state.``: an unspecified
    or unknown enum, a field its status requires missing or one it forbids
    set, a measure that does not fit the target, a calendar that does not
    resolve, or resolves to another version than ``calendar_version``;
    OutOfRange for an instant outside the supported range (local dates
    1900-01-01..2199-12-31).
    """
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
    if not 0 <= state.recomputations < MAX_RECOMPUTATIONS:
        problems.append(FieldViolation("state.recomputations", f"must be 0 .. {MAX_RECOMPUTATIONS - 1}"))
    if len(state.running_intervals) > MAX_RUNNING_INTERVALS:
        problems.append(FieldViolation("state.running_intervals",
                                       f"{len(state.running_intervals)} intervals; at most {MAX_RUNNING_INTERVALS}"))
    if long_target := too_long(state.target, "state.target", MAX_DURATION_TEXT):
        problems.append(long_target)
    if problems:
        raise InvalidArgument(problems)
    target_measure = measure_of(parse_duration(state.target, "state.target"), "state.target")
    if target_measure is not measure:
        raise InvalidArgument.at("state.measure", f"{pb.ClockMeasure.Name(state.measure)} does "
                                                  f"not fit target {state.target!r}")
    with _renamed(lambda field: f"state.{field}"):
        cal = resolve_calendar(state.calendar, bundles)
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


def _clock_horizon(calendar: Calendar, *instants: int | None) -> tuple[str, ...]:
    """The holiday-horizon check (and warnings) over the local dates from the
    earliest to the latest of ``instants`` (None ignored)."""
    days = [from_us(us).astimezone(calendar.zone).date().toordinal()
            for us in instants if us is not None]
    return horizon(calendar.compiled, min(days), max(days))


def compute_start_clock(
    request: pb.StartClockRequest, bundles: BundleStore | None = None
) -> pb.StartClockResponse:
    """A new RUNNING clock (SPEC §7 start), unrecorded. Raises InvalidArgument
    (missing ``start_time``, a target without a measure, a bad calendar) or
    OutOfRange."""
    (start,) = _instants(request, "start_time")
    _check_length(request.target, "target", MAX_DURATION_TEXT)
    cal = resolve_calendar(request.calendar, bundles)
    with cal.answering():
        at = start_us(start, cal.calendar, "start_time")
        state = start_clock(request.target, at, cal.calendar)
        warnings = _clock_horizon(cal.calendar, at, state.deadline_us)
    return _answer(pb.StartClockResponse, cal, warnings,
                   state=clock_state_to_proto(state, _pinned(request.calendar, cal), cal.version))


def _clock_event(event: pb.ClockEvent, calendar: Calendar) -> ClockEvent:
    """The core event of ``request.event``; InvalidArgument naming ``event.*``."""
    kind = _enum_value(_EVENT_TYPES, event.type, "event.type", pb.ClockEventType)
    _check_length(event.target, "event.target", MAX_DURATION_TEXT)
    anchor = _enum_value(_ANCHORS, event.anchor, "event.anchor", pb.RetargetAnchor)
    if kind is not EventType.RETARGET:
        extra = [name for name in ("target", "anchor") if getattr(event, name)]
        if extra:
            raise InvalidArgument([FieldViolation(f"event.{name}", f"is for RETARGET only; "
                                                  f"leave it unset for {kind.value}")
                                   for name in extra])
    (when,) = _instants(event, "time", prefix="event.")
    return ClockEvent(kind, start_us(when, calendar, "event.time"), event.target, anchor)


def compute_clock_event(
    request: pb.ApplyClockEventRequest, bundles: BundleStore | None = None
) -> pb.ApplyClockEventResponse:
    """The state after ``request.event`` (SPEC §7), unrecorded. Raises
    InvalidArgument (a bad state or event, see :func:`clock_state_from_proto`),
    FailedPrecondition (an event the state does not allow) or OutOfRange."""
    missing = [f for f in ("state", "event") if not request.HasField(f)]
    if missing:
        raise InvalidArgument([FieldViolation(f, "is required") for f in missing])
    state, cal = clock_state_from_proto(request.state, bundles)
    event = _clock_event(request.event, cal.calendar)
    with cal.answering():
        after = apply_event(state, event, cal.calendar)
    with _renamed(lambda field: f"state.{field}"), cal.answering():
        warnings = _clock_horizon(cal.calendar, event.at_us, state.deadline_us, after.deadline_us)
    return _answer(pb.ApplyClockEventResponse, cal, warnings,
                   state=clock_state_to_proto(after, request.state.calendar, cal.version))


def _business_events(request: pb.EvaluateSlaRequest, calendar: Calendar) -> list[BusinessEvent]:
    if len(request.events) > MAX_SLA_EVENTS:
        raise InvalidArgument.at("events", f"has {len(request.events)} events; at most "
                                           f"{MAX_SLA_EVENTS} are allowed")
    missing = [FieldViolation(f"events[{i}].time", "is required (an instant)")
               for i, e in enumerate(request.events) if not e.HasField("time")]
    if missing:
        raise InvalidArgument(missing)
    return [
        BusinessEvent(e.type, start_us(timestamp_to_datetime(e.time, f"events[{i}].time"),
                                       calendar, f"events[{i}].time"), dict(e.attributes))
        for i, e in enumerate(request.events)
    ]


def compute_sla_evaluation(
    request: pb.EvaluateSlaRequest, catalog: Catalog | None = None
) -> pb.EvaluateSlaResponse:
    """Replay ``request.events`` under ``request.policy`` (a policy of
    ``catalog``), unrecorded. Raises InvalidArgument (unknown policy, event or
    tier, a missing time), FailedPrecondition (a transition the clock refuses)
    or OutOfRange (a date outside a tier calendar's years: on ``events[i].time``)."""
    catalog = catalog or Catalog.empty()
    if not request.policy:
        raise InvalidArgument.at("policy", "is required: a policy name, or name@version")
    _check_length(request.policy, "policy", MAX_BUNDLE_REF)
    policy = catalog.policies.resolve(request.policy, field="policy")
    tiers = {name: ResolvedCalendar(tier.calendar, tier.calendar_ref,
                                    catalog.bundles.resolve(tier.calendar_ref))
             for name, tier in policy.tiers.items()}
    events = _business_events(request, policy.tiers[policy.initial_tier].calendar)
    result = evaluate(policy, events)
    warnings: list[str] = []
    for i, entry in enumerate(result.timeline):
        cal = tiers[entry.tier]
        with _renamed(lambda field, i=i: f"events[{i}].time"), cal.answering():
            warnings += _clock_horizon(cal.calendar, entry.at_us, entry.old_deadline_us,
                                       entry.new_deadline_us)
    final = tiers[result.tier]
    versions = ",".join(sorted({cal.version for cal in tiers.values()}))
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
        pb.EvaluateSlaResponse, ResolvedCalendar(final.calendar, versions),
        dict.fromkeys(warnings),
        state=clock_state_to_proto(result.state, pb.Calendar(bundle=final.version), final.version),
        tier=result.tier, policy_version=f"{policy.name}@{policy.version}", timeline=timeline,
    )


@dataclass(frozen=True)
class RecordedMethod:
    """A computing RPC: ``rpc`` is its short name (``"ComputeDueTime"``),
    ``name`` the full gRPC method stored in records, ``compute`` the pure
    function from request (and the bundles it may name, or with
    ``takes_catalog`` the whole catalog) to (unrecorded) response."""

    rpc: str
    name: str
    request_type: type[Message]
    response_type: type[Message]
    compute: Callable[[Message, BundleStore | None], Message]
    takes_catalog: bool = False

    def run(self, request: Message, catalog: Catalog) -> Message:
        """``compute`` over what it needs of ``catalog``."""
        return self.compute(request, catalog if self.takes_catalog else catalog.bundles)


def _method(rpc: str, compute_fn: Callable, takes_catalog: bool = False) -> RecordedMethod:
    """The RecordedMethod of ``rpc``, its message types read from the proto."""
    desc = _SERVICE.methods_by_name[rpc]
    return RecordedMethod(
        rpc, f"/{_SERVICE.full_name}/{rpc}",
        getattr(pb, desc.input_type.name), getattr(pb, desc.output_type.name), compute_fn,
        takes_catalog,
    )


DUE_TIME = _method("ComputeDueTime", compute)
BUSINESS_TIME = _method("ComputeBusinessTime", compute_business_time)
OPEN_STATUS = _method("GetOpenStatus", compute_open_status)
SCHEDULE = _method("ComputeSchedule", compute_schedule)
START_CLOCK = _method("StartClock", compute_start_clock)
CLOCK_EVENT = _method("ApplyClockEvent", compute_clock_event)
EVALUATE_SLA = _method("EvaluateSla", compute_sla_evaluation, takes_catalog=True)

COMPUTE_DUE_TIME = DUE_TIME.name
"""Full gRPC method name of ComputeDueTime, as stored in records."""

METHODS = {m.name: m for m in (DUE_TIME, BUSINESS_TIME, OPEN_STATUS, SCHEDULE,
                               START_CLOCK, CLOCK_EVENT, EVALUATE_SLA)}
"""Every recorded method by its full gRPC name."""

# Request and response message types of each recorded method.
_MESSAGES = {m.name: (m.request_type, m.response_type) for m in METHODS.values()}


def _to_us(instant: datetime) -> int:
    """Microseconds since the Unix epoch of an aware datetime."""
    return (instant - _EPOCH) // timedelta(microseconds=1)


def _packed(message_type, data: bytes) -> any_pb2.Any:
    """An Any holding already-serialized ``data`` of ``message_type``."""
    return any_pb2.Any(
        type_url=f"type.googleapis.com/{message_type.DESCRIPTOR.full_name}", value=data
    )


def _use_case(method: RecordedMethod) -> Callable:
    """A DueTimeApp method ``(request, received_at) -> response`` running
    ``method`` through :meth:`DueTimeApp.call`."""

    def use_case(self: DueTimeApp, request: Message, received_at: datetime) -> Message:
        return self.call(method, request, received_at)

    use_case.__doc__ = (f"{method.rpc}, recorded: see :meth:`call` and "
                        f":func:`{method.compute.__name__}`.")
    return use_case


def _record_row(method: RecordedMethod, request: Message, response: Message, record_id: str,
                request_bytes: bytes, receive_us: int, namespace: str) -> LedgerRow:
    """Give ``response`` its ``record_id`` and return the ledger row that
    records it (``request_bytes``: the request's canonical serialization)."""
    response.record_id = record_id
    return LedgerRow.create(
        record_id=record_id,
        method=method.name,
        receive_time_us=receive_us,
        idempotency_key=request.idempotency_key,
        request=request_bytes,
        response=response.SerializeToString(deterministic=True),
        calendar_version=response.calendar_version,
        rules_version=response.rules_version,
        tzdata_version=response.tzdata_version,
        namespace=namespace,
    )


def _recorded_answer(method: RecordedMethod, request: Message, catalog, request_bytes: bytes,
                     receive_us: int, namespace: str) -> tuple[Message, LedgerRow]:
    """Compute ``request``'s answer with a fresh record id, and the ledger row
    that records it (``request_bytes``: its canonical serialization)."""
    response = method.run(request, catalog)
    return response, _record_row(method, request, response, new_record_id(), request_bytes,
                                 receive_us, namespace)


class DueTimeApp:
    """The recorded use cases over one ledger, answering from :attr:`catalog`.
    Safe to share across threads.

    ``on_ledger_unavailable``: called with the error whenever a ledger call
    raises LedgerUnavailable (the server's health check listens).
    """

    def __init__(self, ledger: Ledger, catalog: Catalog | None = None,
                 on_ledger_unavailable: Callable[[LedgerUnavailable], None] | None = None):
        self.ledger = ledger
        self.catalog = catalog or Catalog.empty()
        """The bundles and policies answered from. A reload replaces it whole,
        in one assignment; every call reads it once, at its start."""
        self.on_ledger_unavailable = on_ledger_unavailable
        self._commit = GroupCommit(ledger)
        self._gate = threading.Condition(threading.Lock())
        self._using = 0  # ledger calls in progress
        self._running = 0  # recorded calls in progress
        self._closed = False

    # --- the ledger, shared with close() -------------------------------------
    # The hot path (every recorded call) enters and leaves by hand, without a
    # generator-based context manager: two short critical sections per use.
    def _enter_ledger(self) -> Ledger:
        """Count one ledger use; ShuttingDown once :meth:`close` began."""
        with self._gate:
            if self._closed:
                raise ShuttingDown()
            self._using += 1
        return self.ledger

    def _leave_ledger(self) -> None:
        with self._gate:
            self._using -= 1
            if self._closed:  # close() is waiting for the count to reach 0
                self._gate.notify_all()

    def _report(self, exc: LedgerUnavailable) -> None:
        if self.on_ledger_unavailable is not None:
            self.on_ledger_unavailable(exc)

    @contextmanager
    def _ledger_use(self) -> Iterator[Ledger]:
        """The ledger for one short use; raises ShuttingDown once :meth:`close`
        began, and reports LedgerUnavailable to ``on_ledger_unavailable``."""
        ledger = self._enter_ledger()
        try:
            yield ledger
        except LedgerUnavailable as exc:
            self._report(exc)
            raise
        finally:
            self._leave_ledger()

    def probe_ledger(self) -> None:
        """One durable probe write (:meth:`Ledger.ping_write`). Raises
        LedgerUnavailable or ShuttingDown."""
        with self._ledger_use() as ledger:
            ledger.ping_write()

    def close(self, timeout: float = 5.0) -> int:
        """Refuse further ledger use, wait (up to ``timeout`` s) for the ledger
        calls in progress, then close the ledger. A recorded call still
        computing gets ShuttingDown when it reaches the ledger. Returns how
        many recorded calls were still running."""
        with self._gate:
            self._closed = True
            self._gate.wait_for(lambda: self._using == 0, timeout)
            running = self._running
        self.ledger.close()
        return running

    # --- recorded calls ------------------------------------------------------
    @contextmanager
    def _computing(self):
        """Count a recorded call as running (see :meth:`close`) while it lasts."""
        with self._gate:
            self._running += 1
        try:
            yield
        finally:
            with self._gate:
                self._running -= 1

    def call(self, method: RecordedMethod, request: Message, received_at: datetime,
             namespace: str = "") -> Message:
        """Compute ``request`` with ``method.compute``, record, then return the
        answer (SPEC §8).

        ``received_at`` is the aware instant the call arrived; ``namespace``
        the caller's (see :func:`check_namespace`), which scopes the key. With
        a non-empty ``idempotency_key``: a request equal (byte for byte,
        canonically serialized) to the one first recorded under that key in
        that namespace returns the first response, record id included,
        without computing or recording again; a different request (another
        method's included) raises AlreadyExists. Raises also InvalidArgument,
        OutOfRange, LedgerUnavailable and ShuttingDown.
        """
        gate = self._gate
        with gate:
            self._running += 1
        try:
            return self._call(method, request, received_at, namespace)
        finally:
            with gate:
                self._running -= 1

    def _call(self, method: RecordedMethod, request: Message, received_at: datetime,
              namespace: str) -> Message:
        catalog = self.catalog
        key = request.idempotency_key
        if key:
            _check_key(key)
        if namespace:
            check_namespace(namespace)
        request_bytes = request.SerializeToString(deterministic=True)
        if key:
            with self._ledger_use() as ledger:
                prior = ledger.get_by_key(key, namespace)
            if prior is not None:
                return self._replay(method, prior, request_bytes)
        response, row = _recorded_answer(method, request, catalog, request_bytes,
                                         _to_us(received_at), namespace)
        self._enter_ledger()
        try:
            stored = self._commit.put(row)
        except LedgerUnavailable as exc:
            self._report(exc)
            raise
        finally:
            self._leave_ledger()
        if stored.record_id != row.record_id:  # a concurrent call with the key won the race
            return self._replay(method, stored, request_bytes)
        return response

    def call_many(self, method: RecordedMethod, requests: Sequence[Message],
                  received_at: datetime, namespace: str = "") -> list[Message | Exception]:
        """Answer each of ``requests`` as :meth:`call` would answer it alone,
        recording every new answer in ONE ledger transaction (one
        :meth:`~duetime.ledger.Ledger.put_many`) before returning any.

        Returns, per request and in order, its response or its own error
        (InvalidArgument, OutOfRange, AlreadyExists, or any unexpected
        exception, which the server reports as INTERNAL). An item's
        idempotency key works as for a single call, also against an earlier
        item of the same batch. Raises (for the whole batch: nothing is
        answered) InvalidArgument on a bad ``namespace``, LedgerUnavailable
        and ShuttingDown. At most :data:`MAX_BATCH_ITEMS` requests (the
        callers check, naming their field).

        The work per batch, not per item: the keys are looked up in one
        ledger query (:meth:`~duetime.ledger.Ledger.get_by_keys`); for
        ComputeDueTime each distinct calendar is resolved once
        (:class:`BatchCalendars`); the record ids come from one random read
        (:func:`~duetime.ledger.new_record_ids`).
        """
        check_namespace(namespace)
        with self._computing():
            return self._call_many(method, requests, received_at, namespace)

    def _call_many(self, method: RecordedMethod, requests: Sequence[Message],
                   received_at: datetime, namespace: str) -> list[Message | Exception]:
        catalog = self.catalog
        receive_us = _to_us(received_at)
        results: list[Message | Exception | None] = [None] * len(requests)
        keyed: dict[str, list[int]] = {}
        for i, request in enumerate(requests):
            key = request.idempotency_key
            if key:
                try:
                    _check_key(key)
                except InvalidArgument as exc:
                    results[i] = exc
                    continue
                keyed.setdefault(key, []).append(i)
        if keyed:
            with self._ledger_use() as ledger:
                held = ledger.get_by_keys(list(keyed), namespace)
            for key, prior in held.items():
                for i in keyed[key]:
                    try:
                        results[i] = self._replay(
                            method, prior, requests[i].SerializeToString(deterministic=True))
                    except AlreadyExists as exc:
                        results[i] = exc
        if method is DUE_TIME:
            calendars = BatchCalendars(catalog.bundles)

            def run(request: Message) -> Message:
                return compute(request, calendars=calendars)
        else:
            def run(request: Message) -> Message:
                return method.run(request, catalog)
        todo = [i for i, result in enumerate(results) if result is None]
        rows = RowBuilder(method.name, receive_us, namespace)
        pending: list[tuple[int, LedgerRow, Message]] = []
        for i, record_id in zip(todo, new_record_ids(len(todo)), strict=True):
            request = requests[i]
            try:
                response = run(request)
                response.record_id = record_id
                row = rows.row(record_id, request.idempotency_key,
                               request.SerializeToString(deterministic=True),
                               response.SerializeToString(deterministic=True),
                               response.calendar_version, response.rules_version,
                               response.tzdata_version)
            except (LedgerUnavailable, ShuttingDown):
                raise
            except Exception as exc:  # noqa: BLE001 - the item's own error
                results[i] = exc
                continue
            pending.append((i, row, response))
        if pending:
            with self._ledger_use() as ledger:
                stored = ledger.put_many([row for _, row, _ in pending])
            for (i, row, response), kept in zip(pending, stored, strict=True):
                if kept is row or kept.record_id == row.record_id:
                    results[i] = response
                    continue
                try:  # the key is held by an earlier item of this batch, or a concurrent call
                    results[i] = self._replay(method, kept, row.request)
                except AlreadyExists as exc:
                    results[i] = exc
        return results  # type: ignore[return-value]

    @staticmethod
    def _replay(method: RecordedMethod, prior: LedgerRow, request_bytes: bytes) -> Message:
        if prior.method != method.name or prior.request != request_bytes:
            raise AlreadyExists(prior.idempotency_key, prior.namespace)
        return method.response_type.FromString(prior.response)

    # The use cases by name, each the recorded path of one method.
    compute_due_time = _use_case(DUE_TIME)
    compute_business_time = _use_case(BUSINESS_TIME)
    get_open_status = _use_case(OPEN_STATUS)
    compute_schedule = _use_case(SCHEDULE)
    start_clock = _use_case(START_CLOCK)
    apply_clock_event = _use_case(CLOCK_EVENT)
    evaluate_sla = _use_case(EVALUATE_SLA)

    # CalendarService: read-only, unrecorded, over the current catalog.
    def list_calendars(self, request: pb.ListCalendarsRequest) -> pb.ListCalendarsResponse:
        return list_calendars(self.catalog.bundles)

    def get_calendar(self, request: pb.GetCalendarRequest) -> pb.GetCalendarResponse:
        return get_calendar(request, self.catalog.bundles)

    def list_holidays(self, request: pb.ListHolidaysRequest) -> pb.ListHolidaysResponse:
        return list_holidays(request, self.catalog.bundles)

    # --- reading the ledger: unrecorded ---------------------------------------
    def get_record(self, record_id: str) -> pb.Record:
        """The stored record with this id. Raises InvalidArgument (empty, or not
        32 lower-case hex digits), RecordNotFound, LedgerUnavailable."""
        if not record_id:
            raise InvalidArgument.at("record_id", "is required")
        if not _RECORD_ID.fullmatch(record_id):
            shown = repr(record_id) if len(record_id) <= 64 else f"{len(record_id)} characters"
            raise InvalidArgument.at("record_id", f"{shown} is not a record id (32 lower-case "
                                                  "hex digits, as returned in record_id)")
        with self._ledger_use() as ledger:
            row = ledger.get(record_id)
        if row is None:
            raise RecordNotFound(record_id)
        return record_of(row)

    def list_records(self, request: pb.ListRecordsRequest) -> pb.ListRecordsResponse:
        """One page of records (see ListRecordsRequest). Raises InvalidArgument
        (a bad time range, page_size or page_token), LedgerUnavailable."""
        flt = record_filter(request)
        if request.page_size < 0:
            raise InvalidArgument.at("page_size", f"{request.page_size} is negative; give 0 (the "
                                                  f"default, 100) up to {MAX_PAGE_SIZE}")
        try:
            rows, token = self._page(flt, request.page_size, request.page_token)
        except ValueError as exc:
            raise InvalidArgument.at("page_token", str(exc)) from None
        page, size = pb.ListRecordsResponse(), 0
        for i, row in enumerate(rows):
            if i and size + len(row.request) + len(row.response) > MAX_LIST_BYTES:
                last = rows[i - 1]
                token = encode_page_token(flt, (last.receive_time_us, last.record_id))
                break
            size += len(row.request) + len(row.response)
            page.records.append(record_of(row))
        page.next_page_token = token
        return page

    def records(self, flt: RecordFilter, batch_size: int = MAX_PAGE_SIZE) -> Iterator[LedgerRow]:
        """Every row ``flt`` selects, in listing order, read a page at a time
        (the ledger is held only while a page is read)."""
        token = ""
        while True:
            rows, token = self._page(flt, batch_size, token)
            yield from rows
            if not token:
                return

    def _page(self, flt: RecordFilter, size: int, token: str) -> tuple[list[LedgerRow], str]:
        """One page of :meth:`Ledger.list_records` (ValueError for a bad token)."""
        with self._ledger_use() as ledger:
            return ledger.list_records(
                since_us=flt.since_us, until_us=flt.until_us, key_prefix=flt.key_prefix,
                namespace=flt.namespace, page_size=size, page_token=token)

    def analyze_impact(self, request: pb.AnalyzeImpactRequest) -> pb.AnalyzeImpactResponse:
        """What a newer calendar version (or the server's tz database) would
        change in the recorded answers; see :func:`duetime.impact.analyze`."""
        from duetime.impact import analyze  # it builds on this module

        return analyze(request, self.records, self.catalog)


def record_filter(request: pb.ListRecordsRequest | pb.AnalyzeImpactRequest) -> RecordFilter:
    """The ledger filter of a request's ``start_time``, ``end_time``,
    ``namespace`` (when set) and ``key_prefix`` (if it has one). Raises
    InvalidArgument for an end before the start or a bad namespace."""
    since = _to_us(timestamp_to_datetime(request.start_time, "start_time")) \
        if request.HasField("start_time") else None
    until = _to_us(timestamp_to_datetime(request.end_time, "end_time")) \
        if request.HasField("end_time") else None
    if since is not None and until is not None and until < since:
        raise InvalidArgument.at("end_time", f"{request.end_time.ToJsonString()} is before "
                                             f"start_time {request.start_time.ToJsonString()}")
    key_prefix = getattr(request, "key_prefix", "")
    _check_length(key_prefix, "key_prefix", MAX_IDEMPOTENCY_KEY)
    namespace = request.namespace if request.HasField("namespace") else None
    if namespace:
        try:
            check_namespace(namespace)
        except InvalidArgument:
            raise InvalidArgument.at("namespace", "is not a namespace: 1 to 64 characters of "
                                                  "A-Z a-z 0-9 . _ -") from None
    return RecordFilter(since, until, key_prefix, namespace)


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


# ---------------------------------------------------------------------------
# CalendarService: what the bundles are; read-only, unrecorded


def calendar_info(bundles: BundleStore, name: str, shown: Bundle | None = None) -> pb.CalendarInfo:
    """The CalendarInfo of bundle ``name``; description, zone and years are
    those of ``shown`` (default: the newest version)."""
    versions = bundles.versions(name)
    shown = shown or versions[-1]
    return pb.CalendarInfo(
        name=name,
        description=shown.description,
        time_zone=shown.calendar.time_zone,
        newest_version=versions[-1].version,
        versions=[b.version for b in versions],
        first_year=shown.years[0],
        last_year=shown.years[1],
    )


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
    )


def list_calendars(bundles: BundleStore) -> pb.ListCalendarsResponse:
    """Every loaded bundle, by name."""
    return pb.ListCalendarsResponse(calendars=[calendar_info(bundles, n) for n in bundles.names()])


def get_calendar(request: pb.GetCalendarRequest, bundles: BundleStore) -> pb.GetCalendarResponse:
    """One bundle version (``name`` or ``name@version``) with its content.
    Raises InvalidArgument / BundleNotFound on ``name``."""
    if not request.name:
        raise InvalidArgument.at("name", "is required: a bundle name, or name@version")
    _check_length(request.name, "name", MAX_BUNDLE_REF)
    bundle = bundles.resolve(request.name, field="name")
    source = bundle.content.get("source") or {}
    return pb.GetCalendarResponse(
        info=calendar_info(bundles, bundle.name, bundle),
        calendar=calendar_to_proto(bundle.calendar),
        version=bundle.version,
        holidays_package=source.get("holidays_package") or "",
        source_country=source.get("country") or "",
        source_subdiv=source.get("subdiv") or "",
    )


def _local_date(text: str, field: str) -> date:
    """A ``YYYY-MM-DD`` request date in the supported range."""
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


def list_holidays(
    request: pb.ListHolidaysRequest, bundles: BundleStore | None = None
) -> pb.ListHolidaysResponse:
    """The holidays of ``request.calendar`` from ``start_date`` to
    ``end_date`` inclusive. Raises InvalidArgument (bad or reversed dates, a
    range over :data:`MAX_HOLIDAY_RANGE_DAYS`, a bad calendar) or OutOfRange
    (a date outside the supported range, the calendar's holiday horizon or a
    bundle's years)."""
    first = _local_date(request.start_date, "start_date")
    last = _local_date(request.end_date, "end_date")
    if last < first:
        raise InvalidArgument.at("end_date", f"{last} is before start_date {first}")
    if (last - first).days > MAX_HOLIDAY_RANGE_DAYS:
        raise InvalidArgument.at("end_date", f"{last} is {(last - first).days} days after "
                                             f"start_date {first}; at most "
                                             f"{MAX_HOLIDAY_RANGE_DAYS} are allowed")
    cal = resolve_calendar(request.calendar, bundles)
    with cal.answering():
        warnings = horizon(cal.calendar.compiled, first.toordinal(), last.toordinal())
    return pb.ListHolidaysResponse(
        holidays=[pb.Holiday(date=h.date.isoformat(), name=h.name)
                  for h in cal.calendar.holidays if first <= h.date <= last],
        calendar_version=cal.version,
        warnings=warnings,
    )
