"""Use cases of duetime, independent of gRPC: compute, record, read back.

Requests and responses are the ``duetime.v1`` protobuf messages, so the gRPC
servicer and the CLI share one definition of each call. Each computing RPC is
a :class:`RecordedMethod`: a pure function from request to response
(:func:`compute`, :func:`compute_business_time`, :func:`compute_open_status`,
:func:`compute_schedule`; the CLI calls these directly when it runs without a
server) plus its method name and message types. :meth:`DueTimeApp.call` is the
one recorded path they all take: idempotency, compute, record, return.

A request's calendar is inline or names a bundle (:func:`resolve_calendar`);
bundles come from the app's :class:`~duetime.catalog.Catalog`, which a reload
replaces in one assignment and each call reads once. The CalendarService
calls (:func:`list_calendars`, :func:`get_calendar`, :func:`list_holidays`)
are read-only and not recorded.
Errors raised here:

- ``duetime.core.InvalidArgument`` / ``OutOfRange`` (a ``DuetimeError``): bad
  input, with one FieldViolation per problem (SPEC §9);
- :class:`AlreadyExists`: an idempotency key reused with a different request;
- :class:`RecordNotFound`: no record has the requested id;
- ``duetime.ledger.LedgerUnavailable``: the ledger cannot be read or written;
  no answer is returned then (SPEC §8).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterable, Iterator
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
    AtClose,
    Calendar,
    Deadline,
    FieldViolation,
    InvalidArgument,
    OutOfRange,
    Step,
    business_time,
    due_answer,
    format_local,
    from_us,
    open_status,
    schedule,
)
from duetime.core.queries import horizon
from duetime.core.zones import MAX_DATE, MIN_DATE
from duetime.ledger import DuplicateKey, Ledger, LedgerRow, new_record_id
from duetime.v1 import duetime_pb2 as pb

_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_SERVICE = pb.DESCRIPTOR.services_by_name["DueTimeService"]

MAX_IDEMPOTENCY_KEY = 200
"""Longest accepted idempotency key, in characters."""
MAX_HOLIDAY_RANGE_DAYS = 366 * 20
"""Most days ListHolidays' end_date may lie after its start_date."""
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")

_AT_CLOSE = {
    pb.AT_CLOSE_UNSPECIFIED: AtClose.END_OF_WINDOW,
    pb.AT_CLOSE_END_OF_WINDOW: AtClose.END_OF_WINDOW,
    pb.AT_CLOSE_NEXT_OPEN: AtClose.NEXT_OPEN,
}


class AlreadyExists(Exception):
    """The idempotency key is already recorded for a different request."""

    def __init__(self, key: str):
        super().__init__(f"idempotency key {key!r} was already used with a different request")
        self.key = key


class RecordNotFound(Exception):
    """No record has the requested id."""

    def __init__(self, record_id: str):
        super().__init__(f"no record with id {record_id!r}")
        self.record_id = record_id


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
            name, (first, last) = self.bundle.name, self.bundle.years
            raise OutOfRange([
                FieldViolation("calendar.bundle", f"{name} covers {first}–{last} only (version "
                                                  f"{self.bundle.version}); {v.description}")
                if v.field.startswith("calendar.holidays_valid") else v
                for v in exc.violations
            ], exc.reason) from None


def resolve_calendar(cal: pb.Calendar, bundles: BundleStore | None = None) -> ResolvedCalendar:
    """The calendar of a request (SPEC §6): inline, a bundle of ``bundles``
    (``name`` or ``name@version``), or a bundle plus extra inline holidays.

    With a bundle, every part but ``holidays`` must be unset, and a date the
    bundle already lists keeps the bundle's holiday. Raises InvalidArgument
    naming each part set beside the bundle, BundleNotFound (an InvalidArgument
    on ``calendar.bundle``), or the errors of :func:`calendar_from_proto`.
    """
    if not cal.bundle:
        inline = calendar_from_proto(cal)
        return ResolvedCalendar(inline, inline.version)
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


def timestamp_to_datetime(ts: timestamp_pb2.Timestamp, field: str) -> datetime:
    """Aware UTC datetime of a Timestamp.

    Raises InvalidArgument if ``nanos`` is outside 0..999999999 or not a whole
    number of microseconds (duetime's resolution), OutOfRange if ``seconds``
    is outside the Timestamp range 0001-01-01 .. 9999-12-31.
    """
    if not 0 <= ts.nanos < 1_000_000_000 or ts.nanos % 1000:
        raise InvalidArgument.at(
            field, f"nanos {ts.nanos} is not a whole number of microseconds in 0..999999999"
        )
    try:
        return ts.ToDatetime(tzinfo=timezone.utc)
    except (ValueError, OverflowError) as exc:
        raise OutOfRange.at(
            field, f"seconds {ts.seconds} is outside the Timestamp range 0001-01-01 .. 9999-12-31"
        ) from exc


def _instants(request: Message, *fields: str) -> list[datetime]:
    """The required Timestamp ``fields`` of ``request`` as aware datetimes.

    Raises InvalidArgument naming every missing field, else the first
    conversion error (see :func:`timestamp_to_datetime`).
    """
    missing = [f for f in fields if not request.HasField(f)]
    if missing:
        raise InvalidArgument([FieldViolation(f, "is required (an instant)") for f in missing])
    return [timestamp_to_datetime(getattr(request, f), f) for f in fields]


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


def compute(
    request: pb.ComputeDueTimeRequest, bundles: BundleStore | None = None
) -> pb.ComputeDueTimeResponse:
    """``request.start + request.duration`` under ``request.calendar``, unrecorded.

    ``bundles``: the bundles a calendar may name (None: none). The response
    has every field but ``record_id``. Raises InvalidArgument (missing
    ``start``, bad duration, calendar or ``at_close``, unknown bundle) or
    OutOfRange (SPEC §1–§5, the holiday horizon, a bundle's year range).
    """
    (start,) = _instants(request, "start")
    cal = resolve_calendar(request.calendar, bundles)
    with cal.answering():
        answer = due_answer(
            start, request.duration, cal.calendar,
            at_close=_at_close(request.at_close), explain=request.explain, field="duration",
        )
    return _answer(
        pb.ComputeDueTimeResponse, cal, answer.warnings,
        due=_timestamp(answer.due_us),
        due_local=_local(answer.due_us, cal.calendar),
        explanation=_explanation(answer.steps),
    )


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


def compute_schedule(
    request: pb.ComputeScheduleRequest, bundles: BundleStore | None = None
) -> pb.ComputeScheduleResponse:
    """Every deadline's due time from ``request.entered_time``, unrecorded."""
    (entered,) = _instants(request, "entered_time")
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


@dataclass(frozen=True)
class RecordedMethod:
    """A computing RPC: ``rpc`` is its short name (``"ComputeDueTime"``),
    ``name`` the full gRPC method stored in records, ``compute`` the pure
    function from request (and the bundles it may name) to (unrecorded)
    response."""

    rpc: str
    name: str
    request_type: type[Message]
    response_type: type[Message]
    compute: Callable[[Message, BundleStore | None], Message]


def _method(rpc: str, compute_fn: Callable) -> RecordedMethod:
    """The RecordedMethod of ``rpc``, its message types read from the proto."""
    desc = _SERVICE.methods_by_name[rpc]
    return RecordedMethod(
        rpc, f"/{_SERVICE.full_name}/{rpc}",
        getattr(pb, desc.input_type.name), getattr(pb, desc.output_type.name), compute_fn,
    )


DUE_TIME = _method("ComputeDueTime", compute)
BUSINESS_TIME = _method("ComputeBusinessTime", compute_business_time)
OPEN_STATUS = _method("GetOpenStatus", compute_open_status)
SCHEDULE = _method("ComputeSchedule", compute_schedule)

COMPUTE_DUE_TIME = DUE_TIME.name
"""Full gRPC method name of ComputeDueTime, as stored in records."""

METHODS = {m.name: m for m in (DUE_TIME, BUSINESS_TIME, OPEN_STATUS, SCHEDULE)}
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


class DueTimeApp:
    """The recorded use cases over one ledger, answering from :attr:`catalog`.
    Safe to share across threads."""

    def __init__(self, ledger: Ledger, catalog: Catalog | None = None):
        self.ledger = ledger
        self.catalog = catalog or Catalog.empty()
        """The bundles and policies answered from. A reload replaces it whole,
        in one assignment; every call reads it once, at its start."""

    def call(self, method: RecordedMethod, request: Message, received_at: datetime) -> Message:
        """Compute ``request`` with ``method.compute``, record, then return the
        answer (SPEC §8).

        ``received_at`` is the aware instant the call arrived. With a non-empty
        ``idempotency_key``: a request equal (byte for byte, canonically
        serialized) to the one first recorded under that key returns the first
        response, record id included, without computing or recording again; a
        different request (another method's included) raises AlreadyExists.
        Raises also InvalidArgument, OutOfRange and LedgerUnavailable.
        """
        bundles = self.catalog.bundles
        key = request.idempotency_key
        if len(key) > MAX_IDEMPOTENCY_KEY:
            raise InvalidArgument.at(
                "idempotency_key", f"is {len(key)} characters long; at most "
                f"{MAX_IDEMPOTENCY_KEY} are allowed"
            )
        request_bytes = request.SerializeToString(deterministic=True)
        if key and (prior := self.ledger.get_by_key(key)):
            return self._replay(method, prior, request_bytes)
        response = method.compute(request, bundles)
        response.record_id = new_record_id()
        row = LedgerRow.create(
            record_id=response.record_id,
            method=method.name,
            receive_time_us=_to_us(received_at),
            idempotency_key=key,
            request=request_bytes,
            response=response.SerializeToString(deterministic=True),
            calendar_version=response.calendar_version,
            rules_version=response.rules_version,
            tzdata_version=response.tzdata_version,
        )
        try:
            self.ledger.put(row)
        except DuplicateKey:  # a concurrent call with the same key won the race
            return self._replay(method, self.ledger.get_by_key(key), request_bytes)
        return response

    @staticmethod
    def _replay(method: RecordedMethod, prior: LedgerRow, request_bytes: bytes) -> Message:
        if prior.method != method.name or prior.request != request_bytes:
            raise AlreadyExists(prior.idempotency_key)
        return method.response_type.FromString(prior.response)

    # The use cases by name, each the recorded path of one method.
    compute_due_time = _use_case(DUE_TIME)
    compute_business_time = _use_case(BUSINESS_TIME)
    get_open_status = _use_case(OPEN_STATUS)
    compute_schedule = _use_case(SCHEDULE)

    # CalendarService: read-only, unrecorded, over the current catalog.
    def list_calendars(self, request: pb.ListCalendarsRequest) -> pb.ListCalendarsResponse:
        return list_calendars(self.catalog.bundles)

    def get_calendar(self, request: pb.GetCalendarRequest) -> pb.GetCalendarResponse:
        return get_calendar(request, self.catalog.bundles)

    def list_holidays(self, request: pb.ListHolidaysRequest) -> pb.ListHolidaysResponse:
        return list_holidays(request, self.catalog.bundles)

    def get_record(self, record_id: str) -> pb.Record:
        """The stored record with this id. Raises InvalidArgument (empty id),
        RecordNotFound, LedgerUnavailable."""
        if not record_id:
            raise InvalidArgument.at("record_id", "is required")
        row = self.ledger.get(record_id)
        if row is None:
            raise RecordNotFound(record_id)
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
