"""The use cases of duetime, independent of any transport: compute, record, read back.

The package, by part:

- :mod:`~duetime.app.limits`: every size limit in one frozen :class:`Limits`,
  and the text checks that apply them;
- :mod:`~duetime.app.calendars`: a request's calendar resolved (inline, a
  bundle, a bundle plus holidays) through the app's own :class:`CalendarCache`;
- :mod:`~duetime.app.answers`: the computing use cases, core values in, core
  answers out (due time, open time, open status, schedule, clocks, contract
  policies, holidays);
- :mod:`~duetime.app.recorded`: the one recorded path (idempotency, compute,
  record, batch) every computing call takes;
- :mod:`~duetime.app.records`: reading the ledger back;
- :mod:`~duetime.app.catalog_reads`: what the bundles are (CalendarService);
- :mod:`~duetime.app.service`: :class:`DueTimeApp`, those parts put together.

No module here imports protobuf, gRPC or HTTP. How the wire meets the records:
a record holds the canonical bytes of the request and of the response as the
transport writes them (idempotency compares requests byte for byte; a replay
returns the first response unchanged), so the bytes are the transport's to
make. The recorded path is therefore written against a small port,
:class:`RecordedMethod`: for one method, the request's idempotency key and
canonical bytes, its answer (the transport reads its message into domain
values, calls the use cases of :mod:`~duetime.app.answers` with the calendars
the app resolves, and writes the response message), the response's bytes and
versions once it has its record id, and the response of stored bytes. The
transports' implementation is :mod:`duetime.api.convert`; the composition
root (:mod:`duetime.compose`) hands it to the app. Records stay byte for byte
what they were, and the app never parses or builds a message.

Errors raised here:

- ``duetime.core.InvalidArgument`` / ``OutOfRange`` (a ``DuetimeError``): bad
  input, with one FieldViolation per problem;
- ``duetime.core.FailedPrecondition`` (a ``DuetimeError``): a clock event the
  clock's state does not allow;
- :class:`AlreadyExists`: an idempotency key reused with a different request;
- :class:`RecordNotFound`: no record has the requested id;
- ``duetime.ledger.LedgerUnavailable``: the ledger cannot be read or written;
  no answer is returned then;
- :class:`ShuttingDown`: the app was closed while the call ran; nothing was
  recorded or answered;
- :class:`BudgetExceeded`: the call's :class:`CallDeadline` passed before its
  answer was recorded; nothing was recorded.
"""

from duetime.app import answers
from duetime.app.calendars import (
    BatchCalendars,
    CalendarCache,
    CalendarRequest,
    CalendarResolver,
    ResolvedCalendar,
    renamed,
)
from duetime.app.catalog_reads import CalendarInfo, HolidayList
from duetime.app.call_deadline import BudgetExceeded, CallDeadline
from duetime.app.limits import (
    DEFAULT_CALENDAR_CACHE,
    DEFAULT_LIMITS,
    MAX_BATCH_ITEMS,
    MAX_BUNDLE_REF,
    MAX_DATE_OVERRIDES,
    MAX_DEADLINES,
    MAX_DURATION_TEXT,
    MAX_HOLIDAY_RANGE_DAYS,
    MAX_IDEMPOTENCY_KEY,
    MAX_LIST_BYTES,
    MAX_NAME,
    MAX_RECOMPUTATIONS,
    MAX_RUNNING_INTERVALS,
    MAX_SLA_EVENTS,
    MAX_TIME_ZONE,
    NAMESPACE_FIELD,
    NAMESPACE_METADATA,
    STREAM_CHUNK,
    Limits,
    check_key,
    check_namespace,
    name_problem,
    too_long,
)
from duetime.app.recorded import (
    AlreadyExists,
    Answering,
    PreparedBatch,
    RecordedMethod,
    RecordedPath,
    RecordedResponse,
    ShuttingDown,
)
from duetime.app.records import RecordNotFound, RecordPage, record_filter
from duetime.app.service import DueTimeApp

__all__ = [
    "DEFAULT_CALENDAR_CACHE", "DEFAULT_LIMITS", "MAX_BATCH_ITEMS", "MAX_BUNDLE_REF",
    "MAX_DATE_OVERRIDES", "MAX_DEADLINES", "MAX_DURATION_TEXT", "MAX_HOLIDAY_RANGE_DAYS",
    "MAX_IDEMPOTENCY_KEY", "MAX_LIST_BYTES", "MAX_NAME", "MAX_RECOMPUTATIONS",
    "MAX_RUNNING_INTERVALS", "MAX_SLA_EVENTS", "MAX_TIME_ZONE", "NAMESPACE_FIELD",
    "NAMESPACE_METADATA", "STREAM_CHUNK",
    "AlreadyExists", "Answering", "BatchCalendars", "BudgetExceeded", "CalendarCache",
    "CalendarInfo", "CalendarRequest", "CalendarResolver", "CallDeadline", "DueTimeApp",
    "HolidayList", "Limits", "PreparedBatch",
    "RecordNotFound", "RecordPage", "RecordedMethod", "RecordedPath", "RecordedResponse",
    "ResolvedCalendar", "ShuttingDown", "answers", "check_key", "check_namespace",
    "name_problem", "record_filter", "renamed", "too_long",
]
