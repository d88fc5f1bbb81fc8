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
AlreadyExists                  ALREADY_EXISTS      ErrorInfo metadata idempotency_key
RecordNotFound                 NOT_FOUND           ErrorInfo metadata record_id
LedgerUnavailable              UNAVAILABLE         (message names no internals)
anything else                  INTERNAL            generic message; logged
=============================  ==================  ===============================

The server also serves ``duetime.v1.CalendarService`` (read-only, unrecorded),
``grpc.health.v1.Health`` (SERVING for ``""`` and both duetime services) and
server reflection.

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
    OPEN_STATUS,
    SCHEDULE,
    START_CLOCK,
    AlreadyExists,
    DueTimeApp,
    RecordedMethod,
    RecordNotFound,
)
from duetime.catalog import Catalog, CatalogError, fingerprint
from duetime.core import DuetimeError, FailedPrecondition
from duetime.ledger import Ledger, LedgerUnavailable, SqliteLedger, default_db_path
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


def _any(message) -> any_pb2.Any:
    packed = any_pb2.Any()
    packed.Pack(message)
    return packed


def status_of(exc: Exception) -> status_pb2.Status:
    """The ``google.rpc.Status`` (code, message, details) that reports ``exc``."""
    details = []
    metadata: dict[str, str] = {}
    if isinstance(exc, FailedPrecondition):
        code, reason, message = code_pb2.FAILED_PRECONDITION, exc.reason, str(exc)
        details.append(error_details_pb2.PreconditionFailure(violations=[
            error_details_pb2.PreconditionFailure.Violation(
                type=PRECONDITION_TYPE, subject=v.field, description=v.description)
            for v in exc.violations
        ]))
    elif isinstance(exc, DuetimeError):
        code, reason, message = getattr(code_pb2, exc.code), exc.reason, str(exc)
        details.append(error_details_pb2.BadRequest(field_violations=[
            error_details_pb2.BadRequest.FieldViolation(field=v.field, description=v.description)
            for v in exc.violations
        ]))
    elif isinstance(exc, AlreadyExists):
        code, reason, message = code_pb2.ALREADY_EXISTS, "IDEMPOTENCY_KEY_REUSED", str(exc)
        metadata["idempotency_key"] = exc.key
    elif isinstance(exc, RecordNotFound):
        code, reason, message = code_pb2.NOT_FOUND, "RECORD_NOT_FOUND", str(exc)
        metadata["record_id"] = exc.record_id
    elif isinstance(exc, LedgerUnavailable):
        log.error("ledger unavailable: %s", exc)
        code, reason = code_pb2.UNAVAILABLE, "LEDGER_UNAVAILABLE"
        message = "the ledger cannot be written or read; nothing was answered, retry later"
    else:
        log.exception("internal error")
        code, reason, message = code_pb2.INTERNAL, "INTERNAL", "internal error"
    info = error_details_pb2.ErrorInfo(reason=reason, domain=ERROR_DOMAIN, metadata=metadata)
    return status_pb2.Status(
        code=code, message=message, details=[_any(d) for d in (*details, info)]
    )


def _call(context: grpc.ServicerContext, use_case, *args):
    """Run ``use_case(*args)``; on any exception abort the call with its status."""
    try:
        return use_case(*args)
    except Exception as exc:  # noqa: BLE001 - every error becomes a status
        status = status_of(exc)
    context.abort_with_status(rpc_status.to_status(status))


class DueTimeServicer(pb_grpc.DueTimeServiceServicer):
    """``duetime.v1.DueTimeService`` over a :class:`DueTimeApp`."""

    def __init__(self, app: DueTimeApp):
        self.app = app

    def _recorded(self, method: RecordedMethod, request, context: grpc.ServicerContext):
        """Answer a computing call through the app's one recorded path."""
        received_at = datetime.now(timezone.utc)
        return _call(context, self.app.call, method, request, received_at)

    def ComputeDueTime(self, request, context):
        return self._recorded(DUE_TIME, request, context)

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


@dataclass
class RunningServer:
    """A started server: ``port`` is the bound port; :meth:`stop` drains and closes."""

    server: grpc.Server
    port: int
    health: health.HealthServicer
    ledger: Ledger
    app: DueTimeApp

    def stop(self, grace: float = GRACE_SECONDS) -> None:
        """Report NOT_SERVING, let in-flight calls finish (``grace`` s), close the ledger."""
        self.health.enter_graceful_shutdown()
        self.server.stop(grace).wait()
        self.ledger.close()


def _address(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host and not host.startswith("[") else f"{host}:{port}"


def start_server(
    ledger: Ledger, host: str = "127.0.0.1", port: int = 50051, catalog: Catalog | None = None
) -> RunningServer:
    """Start a gRPC server for ``ledger`` on ``host:port`` (port 0: any free port),
    answering from ``catalog`` (default: no bundles).

    Raises RuntimeError if the address cannot be bound.
    """
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
    app = DueTimeApp(ledger, catalog)
    pb_grpc.add_DueTimeServiceServicer_to_server(DueTimeServicer(app), server)
    pb_grpc.add_CalendarServiceServicer_to_server(CalendarServicer(app), server)
    health_servicer = health.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    reflection.enable_server_reflection(
        (SERVICE_NAME, CALENDAR_SERVICE_NAME, health.SERVICE_NAME, reflection.SERVICE_NAME),
        server,
    )
    bound = server.add_insecure_port(_address(host, port))
    if not bound:
        raise RuntimeError(f"cannot bind {_address(host, port)}")
    server.start()
    for name in ("", SERVICE_NAME, CALENDAR_SERVICE_NAME):
        health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    return RunningServer(server, bound, health_servicer, ledger, app)


def serve(
    host: str = "127.0.0.1",
    port: int = 50051,
    db_path: str | Path | None = None,
    calendars: Path | None = None,
    watch: float | None = None,
) -> None:
    """Serve until SIGINT or SIGTERM, then shut down cleanly and return.

    Loads the calendars under ``calendars`` (None: no bundles) and logs the
    loaded set; opens (creating if needed) the SQLite ledger at ``db_path``
    (default :func:`duetime.ledger.default_db_path`) and logs ``duetime
    listening on HOST:PORT`` with the bound port. SIGHUP reloads the
    calendars; with ``watch`` (seconds) they are also reloaded when a compiled
    ``versions.txt`` changes. Must run in the main thread (signals).
    Raises CatalogError, LedgerUnavailable or RuntimeError if it cannot start.
    """
    if calendars:
        catalog = Catalog.load(calendars)
        log.info("calendars loaded from %s: %s", calendars, catalog.describe())
    else:
        catalog = Catalog.empty()
        log.info("no calendars directory (--calendars, $DUETIME_CALENDARS, ./calendars): "
                 "no bundles are served")
    running = start_server(SqliteLedger(db_path or default_db_path()), host, port, catalog)
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
    running.stop()
