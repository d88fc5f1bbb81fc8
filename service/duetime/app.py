"""Use cases of duetime, independent of gRPC: compute, record, read back.

Requests and responses are the ``duetime.v1`` protobuf messages, so the gRPC
servicer and the CLI share one definition of each call. Errors raised here:

- ``duetime.core.InvalidArgument`` / ``OutOfRange`` (a ``DuetimeError``): bad
  input, with one FieldViolation per problem (SPEC §9);
- :class:`AlreadyExists`: an idempotency key reused with a different request;
- :class:`RecordNotFound`: no record has the requested id;
- ``duetime.ledger.LedgerUnavailable``: the ledger cannot be read or written;
  no answer is returned then (SPEC §8).
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from google.protobuf import any_pb2, timestamp_pb2

from duetime import tzdb  # first: pins zoneinfo to the tzdata package
from duetime.core import (
    RULES_VERSION,
    Calendar,
    InvalidArgument,
    OutOfRange,
    compute_due,
    format_local,
)
from duetime.ledger import DuplicateKey, Ledger, LedgerRow, new_record_id
from duetime.v1 import duetime_pb2 as pb

_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)

COMPUTE_DUE_TIME = "/duetime.v1.DueTimeService/ComputeDueTime"
"""Full gRPC method name of ComputeDueTime, as stored in records."""

MAX_IDEMPOTENCY_KEY = 200
"""Longest accepted idempotency key, in characters."""

# Request and response message types of each recorded method.
_MESSAGES = {COMPUTE_DUE_TIME: (pb.ComputeDueTimeRequest, pb.ComputeDueTimeResponse)}


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


def calendar_from_proto(cal: pb.Calendar) -> Calendar:
    """Build a core Calendar from its proto form (SPEC §6).

    Unset ``weekend`` → default (Sat+Sun); set with no days → no weekend.
    Unset ``working_hours`` → default hours. Weekday enums pass as their ISO
    numbers; the core rejects 0 (UNSPECIFIED) and unknown values, naming fields
    such as ``calendar.weekend.days[0]``. Raises InvalidArgument.
    """
    weekend = [int(d) for d in cal.weekend.days] if cal.HasField("weekend") else None
    hours = (
        [(int(d.weekday), [(i.start, i.end) for i in d.intervals]) for d in cal.working_hours.days]
        if cal.HasField("working_hours")
        else None
    )
    return Calendar.from_text(
        time_zone=cal.time_zone or None,
        weekend=weekend,
        holidays=[(h.date, h.name) for h in cal.holidays],
        working_hours=hours,
        field="calendar",
    )


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


def compute(request: pb.ComputeDueTimeRequest) -> pb.ComputeDueTimeResponse:
    """``request.start + request.duration`` under ``request.calendar``, unrecorded.

    The response has every field but ``record_id``. Raises InvalidArgument
    (missing ``start``, bad duration or calendar) or OutOfRange (SPEC §1–§4).
    """
    if not request.HasField("start"):
        raise InvalidArgument.at("start", "is required (the instant to count from)")
    start = timestamp_to_datetime(request.start, "start")
    calendar = calendar_from_proto(request.calendar)
    due = compute_due(start, request.duration, calendar, field="duration")
    response = pb.ComputeDueTimeResponse(
        due_local=format_local(due, calendar),
        time_zone=calendar.time_zone,
        calendar_version=calendar.version,
        rules_version=RULES_VERSION,
        tzdata_version=tzdb.tzdata_version(),
    )
    response.due.FromDatetime(due)
    return response


def _to_us(instant: datetime) -> int:
    """Microseconds since the Unix epoch of an aware datetime."""
    return (instant - _EPOCH) // timedelta(microseconds=1)


def _packed(message_type, data: bytes) -> any_pb2.Any:
    """An Any holding already-serialized ``data`` of ``message_type``."""
    return any_pb2.Any(
        type_url=f"type.googleapis.com/{message_type.DESCRIPTOR.full_name}", value=data
    )


class DueTimeApp:
    """The recorded use cases over one ledger. Safe to share across threads."""

    def __init__(self, ledger: Ledger):
        self.ledger = ledger

    def compute_due_time(
        self, request: pb.ComputeDueTimeRequest, received_at: datetime
    ) -> pb.ComputeDueTimeResponse:
        """Compute (see :func:`compute`), record, then return the answer (SPEC §8).

        ``received_at`` is the aware instant the call arrived. With a non-empty
        ``idempotency_key``: a request equal (byte for byte, canonically
        serialized) to the one first recorded under that key returns the first
        response, record id included, without computing or recording again; a
        different request raises AlreadyExists. Raises also InvalidArgument,
        OutOfRange and LedgerUnavailable.
        """
        key = request.idempotency_key
        if len(key) > MAX_IDEMPOTENCY_KEY:
            raise InvalidArgument.at(
                "idempotency_key", f"is {len(key)} characters long; at most "
                f"{MAX_IDEMPOTENCY_KEY} are allowed"
            )
        request_bytes = request.SerializeToString(deterministic=True)
        if key and (prior := self.ledger.get_by_key(key)):
            return self._replay(prior, request_bytes)
        response = compute(request)
        response.record_id = new_record_id()
        row = LedgerRow.create(
            record_id=response.record_id,
            method=COMPUTE_DUE_TIME,
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
            return self._replay(self.ledger.get_by_key(key), request_bytes)
        return response

    @staticmethod
    def _replay(prior: LedgerRow, request_bytes: bytes) -> pb.ComputeDueTimeResponse:
        if prior.request != request_bytes:
            raise AlreadyExists(prior.idempotency_key)
        return pb.ComputeDueTimeResponse.FromString(prior.response)

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
