"""What every face (the gRPC servicers, the HTTP/JSON API) does around a call
to the app: the one table of how each unary RPC calls the app
(:func:`unary_calls`), the per-server limits (:class:`CallLimits`: batch size and
the call budget), the caller's idempotency namespace, batch item results, and
the logging of a call that failed.

A :class:`CallLimits` is built once at start-up (:func:`duetime.api.server.start_server`)
and handed to each face; two servers with different limits can live in one
process.

The call budget (``--call-budget``, :class:`CallBudget`): the work of each
call (of each chunk of a stream) runs in a pool thread while the handler waits
at most the budget; past it the caller gets DEADLINE_EXCEEDED (reason
CALL_BUDGET_EXCEEDED) at once. Python cannot stop a thread, so work already
started runs to its end and may still record its answer (retried with the
same idempotency key, the call then returns it); work still queued is dropped.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent import futures
from dataclasses import dataclass, field
from datetime import datetime

from google.protobuf.message import Message

from duetime.api import convert
from duetime.api.status import status_of
from duetime.app import (
    MAX_BATCH_ITEMS,
    NAMESPACE_FIELD,
    NAMESPACE_METADATA,
    DueTimeApp,
    ShuttingDown,
)
from duetime.core.errors import ErrorKind, FieldViolation, InvalidArgument, Refusal
from duetime.impact import analyze as analyze_impact
from duetime.ledger import LedgerUnavailable
from duetime.v1 import duetime_pb2 as pb

log = logging.getLogger("duetime.server")

MAX_WORKERS = 8
"""Threads answering calls (a PostgreSQL ledger gets one connection more, for
the health probe); also the most HTTP calls computed at a time."""


class BudgetExceeded(Refusal):
    """A call's work did not finish within the call budget (DEADLINE_EXCEEDED)."""

    kind = ErrorKind.OVER_BUDGET
    reason = "CALL_BUDGET_EXCEEDED"
    retryable = True

    def __init__(self, seconds: float, started: bool):
        self.seconds = seconds
        self.started = started
        if started:
            what = ("it was not answered; its work may still finish and be recorded, and a "
                    "retry with the same idempotency key then returns that answer")
        else:
            what = "the server was too busy to start it; nothing was computed or recorded"
        super().__init__(f"the call needed more than the server's budget of {seconds:g} s "
                         f"(--call-budget): {what}",
                         metadata={"call_budget_seconds": f"{seconds:g}",
                                   "started": "true" if started else "false"})


class CallBudget:
    """Runs a call's work in a pool of ``workers`` threads and waits at most
    ``seconds`` for it (0: runs it in the caller's thread, no limit).

    :meth:`run` raises :class:`BudgetExceeded` when the time is up: work not
    yet started is cancelled; work already running cannot be stopped (a
    Python thread cannot be), so it runs to its end in its pool thread
    while the caller is answered at once."""

    def __init__(self, seconds: float = 0.0, workers: int = MAX_WORKERS):
        self.seconds = seconds
        self._pool = (futures.ThreadPoolExecutor(workers, thread_name_prefix="duetime-call")
                      if seconds > 0 else None)

    def run(self, work, *args):
        """``work(*args)``, its result or its exception; BudgetExceeded when
        it takes longer than the budget."""
        if self._pool is None:
            return work(*args)
        began = time.monotonic()
        future = self._pool.submit(work, *args)
        done, _ = futures.wait((future,), timeout=self.seconds)
        if not done:
            started = not future.cancel()
            log.warning("call budget of %g s exceeded (%s)", self.seconds,
                        "still computing" if started else "never started: server busy")
            if started:
                future.add_done_callback(lambda f: _finished_over_budget(f, began))
            raise BudgetExceeded(self.seconds, started)
        return future.result()

    def close(self) -> None:
        """Drop queued work; threads still computing finish by themselves."""
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)


def _finished_over_budget(future: futures.Future, began: float) -> None:
    """Log how work whose caller was answered DEADLINE_EXCEEDED ended: a
    refusal that is the request's own (not retryable) is news, anything else
    an error, with its traceback."""
    error = future.exception()
    took = time.monotonic() - began
    if error is None or (isinstance(error, Refusal) and not error.retryable):
        log.info("a call over its budget finished after %.3g s%s", took,
                 f" ({type(error).__name__})" if error else "")
    else:
        log.error("a call over its budget failed after %.3g s", took, exc_info=error)


@dataclass
class CallLimits:
    """The limits one server applies to each call, built at start-up and
    handed to each of its faces: at most ``max_batch_items`` items in one
    batch (or stream) message (``--max-batch-items``), and the call
    ``budget`` (``--call-budget``; the default runs calls unbounded)."""

    max_batch_items: int = MAX_BATCH_ITEMS
    budget: CallBudget = field(default_factory=CallBudget)

    def check_items(self, items: Sequence) -> None:
        """At most :attr:`max_batch_items` items, else InvalidArgument on ``items``."""
        limit = self.max_batch_items
        if len(items) > limit:
            raise InvalidArgument([FieldViolation(
                "items", f"has {len(items)} items; at most {limit} are allowed in one message",
                str(len(items)), str(limit))])

    def close(self) -> None:
        """Release the budget's threads (see :meth:`CallBudget.close`)."""
        self.budget.close()


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
    ledger unavailable as an error; a call dropped at shutdown as news; the
    caller's own refusals not at all (the call log line has their code)."""
    if isinstance(exc, LedgerUnavailable):
        logger.error("ledger unavailable: %s", exc)
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


UnaryCall = Callable[[Message, Iterable, datetime], Message]
"""One unary RPC as a face calls it: ``(request, metadata, received_at) ->
response``; ``metadata``: the call's metadata (HTTP: its headers), read for
the caller's namespace; ``received_at``: when the call arrived (aware UTC),
the time its record keeps."""

DUE_TIME_SERVICE = "/duetime.v1.DueTimeService/"
CALENDAR_SERVICE = "/duetime.v1.CalendarService/"


def unary_calls(app: DueTimeApp, limits: CallLimits) -> dict[str, UnaryCall]:
    """How each unary RPC calls ``app``, by its full method name
    (``/duetime.v1.DueTimeService/ComputeDueTime``): the one table the gRPC
    servicers and the HTTP/JSON API both answer from. A recorded method goes
    through ``app.call`` in the caller's namespace; a batch through
    ``app.call_many`` (at most ``limits.max_batch_items`` items); the ledger
    and catalog reads through the app's read-only calls, converted by
    :mod:`duetime.api.convert`. Errors are raised (a Refusal, or unexpected)
    for the face to report through :mod:`duetime.api.status`."""

    def recorded(method: convert.WireMethod) -> UnaryCall:
        def call(request: Message, metadata: Iterable, received_at: datetime) -> Message:
            return app.call(method, request, received_at, namespace_in(metadata))
        return call

    def batch(request: Message, metadata: Iterable, received_at: datetime) -> Message:
        limits.check_items(request.items)
        results = app.call_many(convert.DUE_TIME, request.items, received_at,
                                namespace_in(metadata))
        reply = pb.BatchComputeDueTimesResponse()
        add_item_results(reply.results, results)
        return reply

    def unrecorded(read: Callable[[Message], Message]) -> UnaryCall:
        return lambda request, _metadata, _received_at: read(request)

    return {
        **{method.name: recorded(method) for method in convert.METHODS.values()},
        DUE_TIME_SERVICE + "BatchComputeDueTimes": batch,
        DUE_TIME_SERVICE + "GetRecord": unrecorded(lambda request: pb.GetRecordResponse(
            record=convert.record_of(app.get_record(request.record_id)))),
        DUE_TIME_SERVICE + "ListRecords": unrecorded(lambda request: convert.records_page(
            app.list_records(convert.record_filter(request, app.limits), request.page_size,
                             request.page_token))),
        DUE_TIME_SERVICE + "AnalyzeImpact": unrecorded(
            lambda request: analyze_impact(request, app)),
        CALENDAR_SERVICE + "ListCalendars": unrecorded(
            lambda _request: convert.calendars_listing(app.list_calendars())),
        CALENDAR_SERVICE + "GetCalendar": unrecorded(
            lambda request: convert.bundle_to_proto(*app.get_calendar(request.name))),
        CALENDAR_SERVICE + "ListHolidays": unrecorded(lambda request: convert.holidays_to_proto(
            app.list_holidays(*convert.holidays_query(request)))),
    }
