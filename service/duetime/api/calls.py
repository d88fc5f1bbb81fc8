"""What every face (the gRPC servicers, the HTTP/JSON API) does around a call
to the app: the one table of how each unary RPC calls the app
(:func:`unary_calls`), the per-server limits (:class:`CallLimits`: batch size and
the call budget), the caller's idempotency namespace, batch item results, and
the logging of a call that failed. Each call is made by a
:class:`~duetime.api.callers.Caller` (from authentication), whose namespaces bound
what it records and reads.

A :class:`CallLimits` is built once at start-up (:func:`duetime.api.server.start_server`)
and handed to each face; two servers with different limits can live in one
process.

The call budget (``--call-budget``, :class:`CallBudget`): each call (each
chunk of a stream) runs in the handler's own thread with a
:class:`~duetime.app.CallDeadline` made by the face when the call starts and
handed down to the app, which checks it cooperatively: after computing and
before recording, and between a batch's items. Past it the caller gets
DEADLINE_EXCEEDED (reason CALL_BUDGET_EXCEEDED, :class:`BudgetExceeded`) and
nothing was recorded. A read (unrecorded) is checked once it is done.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from google.protobuf.message import Message

from duetime.api import convert
from duetime.api.callers import ANYONE, Caller
from duetime.api.status import status_of
from duetime.app import (
    MAX_BATCH_ITEMS,
    NAMESPACE_FIELD,
    NAMESPACE_METADATA,
    BudgetExceeded,
    CallDeadline,
    DueTimeApp,
    ShuttingDown,
)
from duetime.app.limits import (
    MAX_BATCH_CALENDAR_WEIGHT,
    batch_calendars_problem,
    explanation_problem,
    explanation_weight,
)
from duetime.core.errors import FieldViolation, InvalidArgument, Refusal
from duetime.impact import analyze as analyze_impact
from duetime.ledger import LedgerUnavailable, RecordFilter
from duetime.v1 import duetime_pb2 as pb

log = logging.getLogger("duetime.server")

MAX_WORKERS = 8
"""Threads answering calls (a PostgreSQL ledger gets one connection more, for
the health probe); also the most HTTP calls computed at a time."""


class CallBudget:
    """The call budget of ``seconds`` (``--call-budget``; 0: no budget): makes
    each call's :class:`~duetime.app.CallDeadline` (:meth:`deadline`). The work
    runs in the handler's own thread; the app checks the deadline before it
    records (see :mod:`duetime.app.call_deadline`)."""

    __slots__ = ("seconds",)

    def __init__(self, seconds: float = 0.0):
        self.seconds = seconds

    def deadline(self) -> CallDeadline | None:
        """A new deadline for one call (one chunk of a stream), from now; None
        without a budget."""
        return CallDeadline(self.seconds) if self.seconds > 0 else None


@dataclass
class CallLimits:
    """The limits one server applies to each call, built at start-up and
    handed to each of its faces: at most ``max_batch_items`` items in one
    batch (or stream) message (``--max-batch-items``), the call ``budget``
    (``--call-budget``; the default runs calls unbounded), and at most
    ``max_batch_calendar_weight`` of distinct inline calendars in one batch
    (or stream) message (``--max-batch-calendar-weight``)."""

    max_batch_items: int = MAX_BATCH_ITEMS
    budget: CallBudget = field(default_factory=CallBudget)
    max_batch_calendar_weight: int = MAX_BATCH_CALENDAR_WEIGHT

    def check_items(self, items: Sequence) -> None:
        """At most :attr:`max_batch_items` items, else InvalidArgument on
        ``items``; within the explanation weight (on ``items``) and the bounds
        of distinct inline calendars of one message (on ``items[i].calendar``,
        :func:`~duetime.app.limits.batch_calendars_problem`)."""
        self.check_item_count(len(items))
        if problem := explanation_problem([explanation_weight(item.calendar) for item in items if item.explain],
                                          "items", "items"):
            raise InvalidArgument([problem])
        if problem := batch_calendars_problem(items, self.max_batch_calendar_weight):
            raise InvalidArgument([problem])

    def check_item_count(self, count: int) -> None:
        """At most :attr:`max_batch_items` items in one message, else
        InvalidArgument on ``items``, its ErrorInfo metadata ``max_batch_items``
        the bound (the HTTP face checks a body's ``items`` array with it
        before reading any)."""
        limit = self.max_batch_items
        if count > limit:
            error = InvalidArgument([FieldViolation(
                "items", f"has {count} items; at most {limit} are allowed in one message "
                         f"(the server's --max-batch-items): send them in several messages, or "
                         f"stream them (StreamComputeDueTimes)",
                str(count), str(limit))])
            error.metadata = {"max_batch_items": str(limit)}  # for clients to follow
            raise error

    def deadline(self) -> CallDeadline:
        """A new deadline for one call, from the budget; without a budget one
        that never runs out, so that a caller who cancels or disconnects
        still stops the call's work at its next check (CallerGone)."""
        return self.budget.deadline() or CallDeadline(math.inf)


def namespace_in(metadata: Iterable) -> str:
    """The caller's idempotency namespace from call metadata (items with
    ``key`` and ``value``; HTTP: the request headers, lower-case names): its
    ``x-duetime-namespace``, ``""`` without one. Given twice: InvalidArgument."""
    values = [m.value for m in metadata or () if m.key == NAMESPACE_METADATA]
    if len(values) > 1:
        raise InvalidArgument.at(NAMESPACE_FIELD, f"is given {len(values)} times; give it once")
    return values[0] if values else ""


def log_failure(logger: logging.Logger, exc: BaseException) -> None:
    """Log a call's failure as it deserves, from where it was caught: an
    unexpected exception (not a Refusal) as an error with its traceback; the
    ledger unavailable as an error; a call stopped at its budget as a
    warning; a call dropped at shutdown as news; the caller's own refusals
    not at all (the call log line has their code)."""
    if isinstance(exc, LedgerUnavailable):
        logger.error("ledger unavailable: %s", exc)
    elif isinstance(exc, BudgetExceeded):
        logger.warning("a call went over its budget of %g s: stopped, nothing recorded",
                       exc.seconds)
    elif isinstance(exc, ShuttingDown):
        logger.info("a call still running at shutdown was dropped: nothing recorded, "
                    "nothing answered")
    elif not isinstance(exc, Refusal):
        logger.error("internal error", exc_info=exc)


def item_result(result) -> pb.BatchItemResult:
    """A batch item's result: its response, or its error as a Status (an
    unexpected one is logged with its traceback)."""
    if isinstance(result, BaseException):
        log_failure(log, result)
        return pb.BatchItemResult(error=status_of(result))
    return pb.BatchItemResult(response=result)


def add_item_results(container, results) -> None:
    """Append each of ``results`` (a response, or an error as its Status) to
    the repeated BatchItemResult field ``container``, written in place (one
    copy per item, not two as through :func:`item_result`). An item's
    unexpected exception (caught by the app, which kept its traceback) is
    logged here, with that traceback."""
    add = container.add
    for result in results:
        if isinstance(result, BaseException):
            log_failure(log, result)
            add().error.CopyFrom(status_of(result))
        else:
            add().response.CopyFrom(result)


UnaryCall = Callable[..., Message]
"""One unary RPC as a face calls it: ``(request, metadata, received_at,
deadline, caller=ANYONE) -> response``; ``metadata``: the call's metadata
(HTTP: its headers), read for the caller's namespace; ``received_at``: when
the call arrived (aware UTC), the time its record keeps; ``deadline``: the
call's, from :meth:`CallLimits.deadline` (None: not checked; without a budget the
faces still pass one, which only the caller's going ends); ``caller``: who
calls (:class:`duetime.api.callers.Caller`, from authentication; :data:`ANYONE` on a
server without tokens): the namespace a call is made in and the records it
may read are the caller's."""

DUE_TIME_SERVICE = "/duetime.v1.DueTimeService/"
CALENDAR_SERVICE = "/duetime.v1.CalendarService/"


def call_namespace(caller: Caller, metadata: Iterable) -> str:
    """The namespace a call with ``metadata`` is made in, by ``caller``: its
    ``x-duetime-namespace`` if the caller may use it, else without one the
    caller's default. Raises InvalidArgument (given twice, not a namespace)
    or NamespaceNotPermitted."""
    return caller.namespace(namespace_in(metadata))


def unary_calls(app: DueTimeApp, limits: CallLimits) -> dict[str, UnaryCall]:
    """How each unary RPC calls ``app``, by its full method name
    (``/duetime.v1.DueTimeService/ComputeDueTime``): the one table the gRPC
    servicers and the HTTP/JSON API both answer from. A recorded method goes
    through ``app.call`` in the caller's namespace (:func:`call_namespace`);
    a batch through ``app.call_many`` (at most ``limits.max_batch_items``
    items); the ledger and catalog reads through the app's read-only calls,
    converted by :mod:`duetime.api.convert`, the ledger reads narrowed to the
    caller's namespaces (another namespace's record is not found, as an id
    that does not exist; a listing or an impact analysis covers one of the
    caller's namespaces, see :meth:`~duetime.api.callers.Caller.listing`). Errors
    are raised (a Refusal, or unexpected) for the face to report through
    :mod:`duetime.api.status`. The call's deadline goes to the app (recorded
    calls: checked before recording); a read is checked once done (past it:
    BudgetExceeded). The caller's scope is checked by authentication, before
    the request is read."""

    def recorded(method: convert.WireMethod) -> UnaryCall:
        def call(request: Message, metadata: Iterable, received_at: datetime,
                 deadline: CallDeadline | None = None, caller: Caller = ANYONE) -> Message:
            return app.call(method, request, received_at, call_namespace(caller, metadata),
                            deadline)
        return call

    def batch(request: Message, metadata: Iterable, received_at: datetime,
              deadline: CallDeadline | None = None, caller: Caller = ANYONE) -> Message:
        namespace = call_namespace(caller, metadata)
        limits.check_items(request.items)
        results = app.call_many(convert.DUE_TIME, request.items, received_at, namespace,
                                deadline)
        reply = pb.BatchComputeDueTimesResponse()
        add_item_results(reply.results, results)
        return reply

    def unrecorded(read: Callable[[Message, Caller, Iterable], Message]) -> UnaryCall:
        def call(request: Message, metadata: Iterable, _received_at: datetime,
                 deadline: CallDeadline | None = None, caller: Caller = ANYONE) -> Message:
            reply = read(request, caller, metadata)
            if deadline is not None:
                deadline.check()
            return reply
        return call

    def listing(request: Message, caller: Caller, metadata: Iterable) -> RecordFilter:
        flt = convert.record_filter(request, app.limits)
        if caller.namespaces is None:
            return flt
        return caller.listing(flt, namespace_in(metadata))

    def get_record(request: Message, caller: Caller, _metadata: Iterable) -> Message:
        row = app.get_record(request.record_id, caller.namespaces)
        return pb.GetRecordResponse(record=convert.record_of(row))

    def list_records(request: Message, caller: Caller, metadata: Iterable) -> Message:
        return convert.records_page(app.list_records(
            listing(request, caller, metadata), request.page_size, request.page_token))

    def impact(request: Message, metadata: Iterable, _received_at: datetime,
               deadline: CallDeadline | None = None, caller: Caller = ANYONE) -> Message:
        reply = analyze_impact(request, app, lambda impact: listing(impact, caller, metadata),
                               deadline.check if deadline is not None else None)
        if deadline is not None:
            deadline.check()
        return reply

    return {
        **{method.name: recorded(method) for method in convert.METHODS.values()},
        DUE_TIME_SERVICE + "BatchComputeDueTimes": batch,
        DUE_TIME_SERVICE + "GetRecord": unrecorded(get_record),
        DUE_TIME_SERVICE + "ListRecords": unrecorded(list_records),
        DUE_TIME_SERVICE + "AnalyzeImpact": impact,
        CALENDAR_SERVICE + "ListCalendars": unrecorded(
            lambda _request, _c, _m: convert.calendars_listing(app.list_calendars())),
        CALENDAR_SERVICE + "GetCalendar": unrecorded(
            lambda request, _c, _m: convert.bundle_to_proto(*app.get_calendar(request.name))),
        CALENDAR_SERVICE + "ListHolidays": unrecorded(
            lambda request, _c, _m: convert.holidays_to_proto(
                app.list_holidays(*convert.holidays_query(request)))),
        CALENDAR_SERVICE + "ListPolicies": unrecorded(
            lambda _request, _c, _m: convert.policies_listing(app.list_policies())),
        CALENDAR_SERVICE + "GetPolicy": unrecorded(
            lambda request, _c, _m: convert.policy_to_proto(app.get_policy(request.name))),
    }
