"""The gRPC face of duetime: a thin servicer over :mod:`duetime.app`.

Error mapping (one table, :func:`status_of`); every error carries a
``google.rpc.ErrorInfo`` (UPPER_SNAKE reason, domain :data:`ERROR_DOMAIN`):

=============================  ==================  ===============================
exception                      gRPC code           extra detail
=============================  ==================  ===============================
InvalidArgument / OutOfRange   INVALID_ARGUMENT /  ``google.rpc.BadRequest``, one
(``DuetimeError``)             OUT_OF_RANGE        FieldViolation per problem
FailedPrecondition             FAILED_PRECONDITION ``google.rpc.PreconditionFailure``,
(``DuetimeError``)                                 type CLOCK_STATE, subject the field
AlreadyExists                  ALREADY_EXISTS      ``BadRequest`` on idempotency_key;
                                                   ErrorInfo metadata idempotency_key
                                                   (and namespace)
RecordNotFound                 NOT_FOUND           ErrorInfo metadata record_id
LedgerUnavailable              UNAVAILABLE         (message names no internals)
ShuttingDown                   UNAVAILABLE         reason SHUTTING_DOWN
anything else                  INTERNAL            generic message; logged
=============================  ==================  ===============================

Every text a status carries is bounded, so an echoed input can never make the
status exceed gRPC's metadata limits: a violation's description at most
:data:`MAX_DESCRIPTION` characters, its field :data:`MAX_FIELD`, at most
:data:`MAX_VIOLATIONS` violations within :data:`MAX_DETAILS_BYTES` (then one
saying how many more there were), the message :data:`MAX_MESSAGE` characters
(fewer when they are not ASCII); whatever is cut ends with "…".

A computing call's idempotency namespace is its ``x-duetime-namespace``
metadata (see :func:`duetime.app.check_namespace`).

The server also serves ``duetime.v1.CalendarService`` (read-only, unrecorded),
``grpc.health.v1.Health`` and server reflection. Health: ``""`` and
``duetime.v1.DueTimeService`` are SERVING while the ledger accepts writes;
:class:`LedgerHealth` probes it (every 5 s, every second while it is down) and
a call failing on the ledger switches them to NOT_SERVING at once; only a
successful probe switches them back. ``duetime.v1.CalendarService`` needs no
ledger and stays SERVING.

Shutdown (:meth:`RunningServer.stop`): stop accepting calls, let those in
flight finish within the grace period, then close the ledger once no call is
using it; a call still computing after the grace period is dropped when it
reaches the ledger (nothing recorded, nothing answered).

Calendars: the app answers from a :class:`~duetime.catalog.Catalog` loaded
from a calendars directory. :class:`Reloader` loads it again on SIGHUP, or
when a compiled ``versions.txt`` changes (``--watch``), and swaps it in whole;
a set that fails verification is refused (logged as ``calendar reload
refused: <reason>``) and the old one keeps serving.
"""

from __future__ import annotations

import logging
import signal
import threading
import time
from collections.abc import Sequence
from concurrent import futures
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import grpc
from google.protobuf import any_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection
from grpc_status import rpc_status

from duetime import tzdb  # noqa: F401 - first: pins zoneinfo to the tzdata package
from duetime.app import (
    BUSINESS_TIME,
    CLOCK_EVENT,
    DUE_TIME,
    EVALUATE_SLA,
    NAMESPACE_FIELD,
    NAMESPACE_METADATA,
    OPEN_STATUS,
    CALENDAR_CACHE,
    MAX_BATCH_ITEMS,
    STREAM_CHUNK,
    SCHEDULE,
    START_CLOCK,
    AlreadyExists,
    DueTimeApp,
    RecordedMethod,
    RecordNotFound,
    ShuttingDown,
)
from duetime.catalog import Catalog, CatalogError, fingerprint
from duetime.core import DuetimeError, FailedPrecondition, FieldViolation, InvalidArgument
from duetime.ledger import Ledger, LedgerUnavailable, open_ledger
from duetime.v1 import duetime_pb2 as pb
from duetime.v1 import duetime_pb2_grpc as pb_grpc

log = logging.getLogger("duetime.server")

ERROR_DOMAIN = "duetime.dev"
SERVICE_NAME = pb.DESCRIPTOR.services_by_name["DueTimeService"].full_name
CALENDAR_SERVICE_NAME = pb.DESCRIPTOR.services_by_name["CalendarService"].full_name
PRECONDITION_TYPE = "CLOCK_STATE"
"""PreconditionFailure violation type of a clock event the state does not allow."""
GRACE_SECONDS = 5.0
"""How long in-flight calls may run on after SIGINT/SIGTERM."""
MAX_WORKERS = 8
"""Threads answering calls (a PostgreSQL ledger gets one connection more, for
the health probe)."""
MAX_REQUEST_BYTES = 64 << 20
"""Largest request message accepted (a batch of 10,000 items with inline calendars)."""
MAX_DESCRIPTION = 300
"""Longest violation description in a status, in characters."""
MAX_FIELD = 200
"""Longest violation field in a status, in characters."""
MAX_VIOLATIONS = 20
"""Most violations one status lists."""
MAX_DETAILS_BYTES = 2500
"""Most UTF-8 bytes of violation text one status lists."""
MAX_MESSAGE = 1000
"""Longest status message, in characters."""
_MESSAGE_WEIGHT = 2000
"""Most bytes a status message may take once percent-encoded for the wire."""


def _any(message) -> any_pb2.Any:
    packed = any_pb2.Any()
    packed.Pack(message)
    return packed


def clip(text: str, limit: int) -> str:
    """``text``, or its first ``limit - 1`` characters and "…"."""
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _wire_weight(char: str) -> int:
    """Bytes ``char`` takes in a percent-encoded grpc-message."""
    return 1 if " " <= char <= "~" and char != "%" else 3 * len(char.encode("utf-8", "replace"))


def clip_message(text: str) -> str:
    """``text`` cut to :data:`MAX_MESSAGE` characters and to
    :data:`_MESSAGE_WEIGHT` bytes on the wire, ending with "…" when cut."""
    text, total = clip(text, MAX_MESSAGE), 0
    for i, char in enumerate(text):
        total += _wire_weight(char)
        if total > _MESSAGE_WEIGHT - 9:  # room for the "…"
            return text[:i] + "…"
    return text


def shown_violations(violations: Sequence[FieldViolation]) -> list[FieldViolation]:
    """``violations`` as a status lists them: each field and description
    clipped, at most :data:`MAX_VIOLATIONS` within :data:`MAX_DETAILS_BYTES`,
    then one more on the first left out saying how many were."""
    shown: list[FieldViolation] = []
    size = 0
    for i, v in enumerate(violations):
        field, description = clip(v.field, MAX_FIELD), clip(v.description, MAX_DESCRIPTION)
        size += len(field.encode()) + len(description.encode())
        if i == MAX_VIOLATIONS or size > MAX_DETAILS_BYTES:
            rest = len(violations) - i
            shown.append(FieldViolation(field, f"… and {rest} more problem(s) not shown; fix "
                                               "the ones above and send the request again"))
            break
        shown.append(FieldViolation(field, description))
    return shown


def status_of(exc: Exception) -> status_pb2.Status:
    """The ``google.rpc.Status`` (code, message, details) that reports ``exc``,
    every text in it bounded (see the module docstring)."""
    details = []
    metadata: dict[str, str] = {}
    if isinstance(exc, DuetimeError):
        code, reason = getattr(code_pb2, exc.code), exc.reason
        violations = shown_violations(exc.violations)
        message = "; ".join(f"{v.field}: {v.description}" for v in violations)
        if isinstance(exc, FailedPrecondition):
            details.append(error_details_pb2.PreconditionFailure(violations=[
                error_details_pb2.PreconditionFailure.Violation(
                    type=PRECONDITION_TYPE, subject=v.field, description=v.description)
                for v in violations
            ]))
        else:
            details.append(_bad_request(violations))
    elif isinstance(exc, AlreadyExists):
        code, reason, message = code_pb2.ALREADY_EXISTS, "IDEMPOTENCY_KEY_REUSED", str(exc)
        where = f" in namespace {exc.namespace!r}" if exc.namespace else ""
        details.append(_bad_request([FieldViolation(
            "idempotency_key", f"was already used{where} with a different request; a new "
                               "request needs a new key")]))
        metadata["idempotency_key"] = exc.key
        if exc.namespace:
            metadata["namespace"] = exc.namespace
    elif isinstance(exc, RecordNotFound):
        code, reason, message = code_pb2.NOT_FOUND, "RECORD_NOT_FOUND", str(exc)
        metadata["record_id"] = exc.record_id
    elif isinstance(exc, LedgerUnavailable):
        log.error("ledger unavailable: %s", exc)
        code, reason = code_pb2.UNAVAILABLE, "LEDGER_UNAVAILABLE"
        message = "the ledger cannot be written or read; nothing was answered, retry later"
    elif isinstance(exc, ShuttingDown):
        log.info("a call still running at shutdown was dropped: nothing recorded, "
                 "nothing answered")
        code, reason, message = code_pb2.UNAVAILABLE, "SHUTTING_DOWN", str(exc)
    else:
        log.exception("internal error")
        code, reason, message = code_pb2.INTERNAL, "INTERNAL", "internal error"
    info = error_details_pb2.ErrorInfo(reason=reason, domain=ERROR_DOMAIN, metadata={
        k: clip(v, MAX_FIELD) for k, v in metadata.items()})
    return status_pb2.Status(
        code=code, message=clip_message(message), details=[_any(d) for d in (*details, info)]
    )


def _bad_request(violations: Sequence[FieldViolation]) -> error_details_pb2.BadRequest:
    return error_details_pb2.BadRequest(field_violations=[
        error_details_pb2.BadRequest.FieldViolation(field=v.field, description=v.description)
        for v in violations
    ])


def namespace_of(context: grpc.ServicerContext) -> str:
    """The caller's idempotency namespace: its ``x-duetime-namespace``
    metadata, ``""`` without one. Given twice: InvalidArgument."""
    values = [m.value for m in context.invocation_metadata() or ()
              if m.key == NAMESPACE_METADATA]
    if len(values) > 1:
        raise InvalidArgument.at(NAMESPACE_FIELD, f"is given {len(values)} times; give it once")
    return values[0] if values else ""


def _call(context: grpc.ServicerContext, use_case, *args):
    """Run ``use_case(*args)``; on any exception abort the call with its status."""
    try:
        return use_case(*args)
    except Exception as exc:  # noqa: BLE001 - every error becomes a status
        status = status_of(exc)
    context.abort_with_status(rpc_status.to_status(status))


def _check_items(items) -> None:
    if len(items) > MAX_BATCH_ITEMS:
        raise InvalidArgument.at("items", f"has {len(items)} items; at most {MAX_BATCH_ITEMS} "
                                          "are allowed in one message")


def item_result(result) -> pb.BatchItemResult:
    """A batch item's result: its response, or its error as a Status."""
    if isinstance(result, Exception):
        return pb.BatchItemResult(error=status_of(result))
    return pb.BatchItemResult(response=result)


class DueTimeServicer(pb_grpc.DueTimeServiceServicer):
    """``duetime.v1.DueTimeService`` over a :class:`DueTimeApp`."""

    def __init__(self, app: DueTimeApp):
        self.app = app

    def _recorded(self, method: RecordedMethod, request, context: grpc.ServicerContext):
        """Answer a computing call through the app's one recorded path."""
        received_at = datetime.now(timezone.utc)
        return _call(context, lambda: self.app.call(method, request, received_at,
                                                    namespace_of(context)))

    def ComputeDueTime(self, request, context):
        return self._recorded(DUE_TIME, request, context)

    def BatchComputeDueTimes(self, request, context):
        received_at = datetime.now(timezone.utc)

        def run():
            _check_items(request.items)
            results = self.app.call_many(DUE_TIME, request.items, received_at,
                                         namespace_of(context))
            return pb.BatchComputeDueTimesResponse(results=[item_result(r) for r in results])

        return _call(context, run)

    def StreamComputeDueTimes(self, request_iterator, context):
        """Answer each request message in chunks of :data:`STREAM_CHUNK`
        items, each chunk committed before it is sent; one message is held
        at a time, so memory does not grow with the stream."""
        namespace = _call(context, namespace_of, context)
        for message in request_iterator:
            items = message.items
            _call(context, _check_items, items)
            for first in range(0, len(items), STREAM_CHUNK):
                chunk = items[first:first + STREAM_CHUNK]
                results = _call(context, self.app.call_many, DUE_TIME, chunk,
                                datetime.now(timezone.utc), namespace)
                yield pb.StreamComputeDueTimesResponse(results=[item_result(r) for r in results])

    def ComputeBusinessTime(self, request, context):
        return self._recorded(BUSINESS_TIME, request, context)

    def GetOpenStatus(self, request, context):
        return self._recorded(OPEN_STATUS, request, context)

    def ComputeSchedule(self, request, context):
        return self._recorded(SCHEDULE, request, context)

    def StartClock(self, request, context):
        return self._recorded(START_CLOCK, request, context)

    def ApplyClockEvent(self, request, context):
        return self._recorded(CLOCK_EVENT, request, context)

    def EvaluateSla(self, request, context):
        return self._recorded(EVALUATE_SLA, request, context)

    def GetRecord(self, request, context):
        record = _call(context, self.app.get_record, request.record_id)
        return pb.GetRecordResponse(record=record)

    def ListRecords(self, request, context):
        return _call(context, self.app.list_records, request)

    def AnalyzeImpact(self, request, context):
        return _call(context, self.app.analyze_impact, request)


class CalendarServicer(pb_grpc.CalendarServiceServicer):
    """``duetime.v1.CalendarService`` over a :class:`DueTimeApp`'s catalog."""

    def __init__(self, app: DueTimeApp):
        self.app = app

    def ListCalendars(self, request, context):
        return _call(context, self.app.list_calendars, request)

    def GetCalendar(self, request, context):
        return _call(context, self.app.get_calendar, request)

    def ListHolidays(self, request, context):
        return _call(context, self.app.list_holidays, request)


class Reloader:
    """Loads the calendars under ``root`` again into ``app``: on demand
    (:meth:`reload`, on SIGHUP) or when they changed (:meth:`poll`, ``--watch``)."""

    def __init__(self, app: DueTimeApp, root: Path | None):
        self.app = app
        self.root = root
        self._seen = fingerprint(root) if root else ()

    def reload(self) -> bool:
        """Load a new catalog and swap it in whole; on failure log ``calendar
        reload refused: <reason>`` and keep the old one. True when swapped."""
        if self.root is None:
            log.warning("calendar reload: no calendars directory was given; nothing to load")
            return False
        self._seen = fingerprint(self.root)
        try:
            catalog = Catalog.load(self.root)
        except CatalogError as exc:
            log.error("calendar reload refused: %s", exc)
            return False
        self.app.catalog = catalog  # one assignment: a call sees the old set or the new
        log.info("calendars reloaded from %s: %s", self.root, catalog.describe())
        return True

    def poll(self) -> None:
        """Reload if a compiled ``versions.txt`` changed since the last load
        (or refused load)."""
        if self.root is not None and fingerprint(self.root) != self._seen:
            self.reload()


class LedgerHealth:
    """Keeps the health of ``""`` and DueTimeService in step with whether the
    ledger accepts writes.

    A thread probes (:meth:`DueTimeApp.probe_ledger`) every
    :attr:`SERVING_INTERVAL` s while SERVING and every :attr:`DOWN_INTERVAL`
    s while NOT_SERVING. :meth:`failed` (a call failed on the ledger)
    switches to NOT_SERVING at once; only a probe that began after the last
    failure and succeeded switches back to SERVING.
    """

    SERVING_INTERVAL = 5.0
    DOWN_INTERVAL = 1.0
    SERVICES = ("", SERVICE_NAME)

    def __init__(self, app: DueTimeApp, servicer: health.HealthServicer):
        self.app = app
        self.servicer = servicer
        self.serving = True
        self._lock = threading.Lock()
        self._failures = 0  # failures seen so far; a probe must postdate the last
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._thread = threading.Thread(target=self._run, name="duetime-ledger-health",
                                        daemon=True)

    def start(self) -> None:
        self._set(True)
        self._thread.start()

    def stop(self) -> None:
        """Stop probing (before shutdown: the status then stays as shutdown sets it)."""
        self._stop.set()
        self._wake.set()
        self._thread.join(timeout=10)

    def failed(self, exc: LedgerUnavailable) -> None:
        """A call failed on the ledger: NOT_SERVING now, probe within a second."""
        with self._lock:
            self._failures += 1
            if self.serving and not self._stop.is_set():
                log.warning("health NOT_SERVING: the ledger failed (%s); probing it every "
                            "%g s", exc, self.DOWN_INTERVAL)
                self._set(False)
        self._wake.set()

    def _set(self, serving: bool) -> None:
        self.serving = serving
        status = (health_pb2.HealthCheckResponse.SERVING if serving
                  else health_pb2.HealthCheckResponse.NOT_SERVING)
        for name in self.SERVICES:
            self.servicer.set(name, status)

    def _run(self) -> None:
        last = time.monotonic()
        while not self._stop.is_set():
            interval = self.SERVING_INTERVAL if self.serving else self.DOWN_INTERVAL
            left = last + interval - time.monotonic()
            if left > 0:
                self._wake.wait(left)  # woken early: a failure may have shortened the interval
                self._wake.clear()
                continue
            last = time.monotonic()
            with self._lock:
                seen = self._failures
            try:
                self.app.probe_ledger()
            except ShuttingDown:
                return
            except LedgerUnavailable:
                continue  # reported to failed() by the app already
            with self._lock:
                if not self.serving and seen == self._failures and not self._stop.is_set():
                    log.info("health SERVING: the ledger accepts writes again")
                    self._set(True)


@dataclass
class RunningServer:
    """A started server: ``port`` is the bound port; :meth:`stop` drains and closes."""

    server: grpc.Server
    port: int
    health: health.HealthServicer
    ledger: Ledger
    app: DueTimeApp
    ledger_health: LedgerHealth

    def stop(self, grace: float = GRACE_SECONDS) -> int:
        """Report NOT_SERVING and stop accepting calls, let in-flight calls
        finish (``grace`` s), then close the ledger once no call is using it
        (waiting at most ``grace`` s more). Returns how many calls were still
        computing: they are dropped when they reach the ledger (nothing
        recorded, nothing answered); their threads may still run."""
        self.ledger_health.stop()
        self.health.enter_graceful_shutdown()
        self.server.stop(grace).wait()
        return self.app.close(timeout=grace)


def _address(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host and not host.startswith("[") else f"{host}:{port}"


def start_server(
    ledger: Ledger, host: str = "127.0.0.1", port: int = 50051, catalog: Catalog | None = None
) -> RunningServer:
    """Start a gRPC server for ``ledger`` on ``host:port`` (port 0: any free port),
    answering from ``catalog`` (default: no bundles).

    Raises RuntimeError if the address cannot be bound (also when another
    process listens there: the port is not shared, ``grpc.so_reuseport`` is 0).
    """
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=MAX_WORKERS),
                         options=[("grpc.so_reuseport", 0),
                                  ("grpc.max_receive_message_length", MAX_REQUEST_BYTES)])
    app = DueTimeApp(ledger, catalog)
    pb_grpc.add_DueTimeServiceServicer_to_server(DueTimeServicer(app), server)
    pb_grpc.add_CalendarServiceServicer_to_server(CalendarServicer(app), server)
    health_servicer = health.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    reflection.enable_server_reflection(
        (SERVICE_NAME, CALENDAR_SERVICE_NAME, health.SERVICE_NAME, reflection.SERVICE_NAME),
        server,
    )
    try:
        bound = server.add_insecure_port(_address(host, port))
    except RuntimeError:
        bound = 0
    if not bound:
        raise RuntimeError(f"cannot bind {_address(host, port)}: address in use?")
    server.start()
    health_servicer.set(CALENDAR_SERVICE_NAME, health_pb2.HealthCheckResponse.SERVING)
    ledger_health = LedgerHealth(app, health_servicer)
    app.on_ledger_unavailable = ledger_health.failed
    ledger_health.start()
    return RunningServer(server, bound, health_servicer, ledger, app, ledger_health)


def describe_ledger(ledger: Ledger) -> str:
    """The ledger in words for logs (a PostgreSQL URL without its password)."""
    label = getattr(ledger, "label", None)
    return label or f"sqlite {getattr(ledger, 'path', type(ledger).__name__)}"


def serve(
    host: str = "127.0.0.1",
    port: int = 50051,
    db: str | Path | None = None,
    calendars: Path | None = None,
    watch: float | None = None,
    calendar_cache: int | None = None,
) -> int:
    """Serve until SIGINT or SIGTERM, then shut down cleanly and return the
    number of calls dropped because they still ran after the grace period
    (see :meth:`RunningServer.stop`; their threads may still be running).

    Loads the calendars under ``calendars`` (None: no bundles) and logs the
    loaded set; opens (creating and migrating if needed) the ledger ``db``: a
    SQLite path or a ``postgresql://`` URL, default ``$DUETIME_DB``, else
    :func:`duetime.ledger.default_db_path` (see
    :func:`duetime.ledger.open_ledger`); logs ``duetime listening on
    HOST:PORT`` with the bound port. SIGHUP reloads the calendars; with
    ``watch`` (seconds) they are also reloaded when a compiled
    ``versions.txt`` changes. ``calendar_cache``: how many inline calendars
    to keep built (None: ``$DUETIME_CALENDAR_CACHE``, else 1024). Must run in
    the main thread (signals).
    Raises CatalogError, LedgerUnavailable or RuntimeError if it cannot start.
    """
    if calendars:
        catalog = Catalog.load(calendars)
        log.info("calendars loaded from %s: %s", calendars, catalog.describe())
    else:
        catalog = Catalog.empty()
        log.info("no calendars directory (--calendars, $DUETIME_CALENDARS, ./calendars): "
                 "no bundles are served")
    if calendar_cache is not None:
        CALENDAR_CACHE.maxsize = calendar_cache
    log.info("calendar cache: up to %d inline calendars", CALENDAR_CACHE.maxsize)
    ledger = open_ledger(db, max_connections=MAX_WORKERS + 1)
    log.info("ledger: %s", describe_ledger(ledger))
    try:
        running = start_server(ledger, host, port, catalog)
    except BaseException:
        ledger.close()
        raise
    log.info("duetime listening on %s", _address(host, running.port))
    reloader = Reloader(running.app, calendars)
    stop, hup, wake = threading.Event(), threading.Event(), threading.Event()

    def on_signal(signum, _frame):
        (hup if signum == signal.SIGHUP else stop).set()
        wake.set()

    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, on_signal)
    while not stop.is_set():  # reloads run here, in the main thread, never in a handler
        wake.wait(watch)
        wake.clear()
        if stop.is_set():
            break
        if hup.is_set():
            hup.clear()
            reloader.reload()
        elif watch:
            reloader.poll()
    log.info("duetime shutting down")
    dropped = running.stop()
    if dropped:
        log.warning("%d call(s) still computing after the %g s grace period were dropped: "
                    "nothing recorded, nothing answered", dropped, GRACE_SECONDS)
    return dropped
