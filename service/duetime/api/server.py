"""The gRPC face of duetime: a thin servicer over :mod:`duetime.app`.

Errors: every failed call ends with the status :mod:`duetime.api.status`
builds for it (the one table of error kinds, gRPC codes and HTTP statuses);
an unexpected exception is logged with its traceback by the handler that
caught it (:func:`duetime.api.calls.log_failure`), a batch item's where its
result is written (:func:`duetime.api.calls.add_item_results`).

A computing call's idempotency namespace is its ``x-duetime-namespace``
metadata (see :func:`duetime.app.check_namespace`), as the call's
:class:`~duetime.api.callers.Caller` allows (:func:`duetime.auth.caller_of`).

The server also serves ``duetime.v1.CalendarService`` (read-only, unrecorded),
``grpc.health.v1.Health`` and server reflection. Health: ``""`` and
``duetime.v1.DueTimeService`` are SERVING while the ledger accepts writes;
:class:`LedgerHealth` probes it (every 5 s, every second while it is down) and
a call failing on the ledger switches them to NOT_SERVING at once; only a
successful probe switches them back. ``duetime.v1.CalendarService`` needs no
ledger and stays SERVING.

Shutdown (:meth:`RunningServer.stop`): stop accepting calls, let those in
flight finish within the grace period (ending the connections that remain
once no call has been running for :data:`IDLE_CUT` s), then close the ledger
once no call is using it; a call still computing after the grace period is dropped when it
reaches the ledger (nothing recorded, nothing answered), while one already
writing its record by then completes the write (recorded, not answered).

Calendars: the app answers from a :class:`~duetime.catalog.Catalog` loaded
from a calendars directory. :class:`Reloader` loads it again on SIGHUP, or
when a compiled ``versions.txt`` changes (``--watch``), and swaps it in whole;
a set that fails verification is refused (logged as ``calendar reload
refused: <reason>``) and the old one keeps serving.

Configuration: :func:`serve` takes a :class:`duetime.config.ServerConfig`
(flags and ``DUETIME_*`` variables, checked there). Around the servicers:

- Transport: plain TCP, or TLS (``--tls-cert``/``--tls-key``, through
  ``grpc.ssl_server_credentials``), mutual TLS with ``--tls-client-ca`` (a
  client certificate issued by that CA is required; a client without one, or
  with another CA's, fails the TLS handshake and never reaches a handler).
- Interceptors, outermost first: :class:`~duetime.api.observe.CallObserver`
  (metrics, one log line per call), then
  :class:`~duetime.auth.BearerTokenInterceptor` with ``--auth-tokens``
  (UNAUTHENTICATED without an accepted token, PERMISSION_DENIED outside the
  token's scopes; the health service stays open; it hands the call's caller
  to the servicer).
- Limits: a request larger than ``--max-message-bytes`` is RESOURCE_EXHAUSTED
  from gRPC itself; a batch (or stream message) of more than
  ``--max-batch-items`` items is INVALID_ARGUMENT on ``items``; and the
  **call budget** (``--call-budget``, :class:`CallBudget`): each call (each
  chunk of a stream) runs in its handler's thread with a deadline the app
  checks before recording and between a batch's items; past it the caller
  gets DEADLINE_EXCEEDED (reason CALL_BUDGET_EXCEEDED) and nothing was
  recorded (see :mod:`duetime.api.calls`).
  The health, reflection services and the stream's request reading have
  no budget. These limits are a :class:`~duetime.api.calls.CallLimits`
  built by :func:`start_server` and handed to its servicers (and to the
  HTTP face), never process-wide. So is what the server lets in at once
  (:mod:`duetime.api.admission`, applied by :class:`UndecodableRequests`,
  shared with the HTTP face): the bytes of the request messages it holds
  (a third of ``--memory-budget``) and, with tokens, the calls each tenant
  has in flight (``--tenant-calls``); past either, RESOURCE_EXHAUSTED.
"""

from __future__ import annotations

import ctypes
import logging
import select
import signal
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from concurrent import futures
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from duetime import tzdb
from duetime.api.convert import (
    BUSINESS_TIME,
    CLOCK_EVENT,
    DUE_TIME,
    EVALUATE_SLA,
    OPEN_STATUS,
    SCHEDULE,
    START_CLOCK,
)
from duetime.app import (
    MAX_BATCH_ITEMS,
    DueTimeApp,
    Limits as AppLimits,
    PreparedBatch,
    ShuttingDown,
)
from duetime.api.calls import (
    CALENDAR_SERVICE,
    DUE_TIME_SERVICE,
    MAX_WORKERS,
    CallBudget,
    CallLimits,
    add_item_results,
    call_namespace,
    log_failure,
    unary_calls,
)
from duetime.api.admission import (
    Admission,
    in_flight_limit,
    InFlightBytes,
    InFlightBytesExhausted,
    StreamsExhausted,
    StreamSlots,
    TenantCalls,
    TenantCallsExhausted,
    TooCostlyToRead,
    tenant_share,
)
from duetime.api.callers import Caller
from duetime.api.http import start_http_server
from duetime.api.observe import CallObserver
from duetime.api.status import clip, grpc_status, without_frames
from duetime.auth import (
    OPEN_METHODS,
    BearerTokenInterceptor,
    TokenError,
    TokenSet,
    caller_of,
    current_caller,
)
from duetime.catalog import Catalog, CatalogError, fingerprint
from duetime.app.calendars import cache_bytes
from duetime.app.limits import MAX_BATCH_CALENDAR_WEIGHT
from duetime.compose import build_app, calendar_cache_size_from_env
from duetime.config import (
    DEFAULT_BODY_TIMEOUT,
    DEFAULT_CALL_BUDGET,
    DEFAULT_GRACE,
    DEFAULT_MAX_MESSAGE_BYTES,
    DEFAULT_MEMORY_BUDGET,
    DEFAULT_TENANT_CALLS,
    ServerConfig,
    TlsFiles,
    format_bytes,
)
from duetime.core import InvalidArgument
from duetime.core.errors import ErrorKind, FieldViolation, Refusal
from duetime.ledger import Ledger, LedgerUnavailable, default_db_path, open_ledger
from duetime.metrics import Metrics
from duetime.v1 import duetime_pb2 as pb
from duetime.v1 import duetime_pb2_grpc as pb_grpc

log = logging.getLogger("duetime.server")

SERVICE_NAME = pb.DESCRIPTOR.services_by_name["DueTimeService"].full_name
CALENDAR_SERVICE_NAME = pb.DESCRIPTOR.services_by_name["CalendarService"].full_name
GRACE_SECONDS = DEFAULT_GRACE
"""How long in-flight calls may run on after SIGINT/SIGTERM (``--grace``)."""
WAIT_CHECK = 0.05
"""How often (s) a server looks for unary calls whose request message is
overdue, or whose answer is not sent (:class:`MessageWaits`)."""
PRESSED_WAIT = 0.5
"""Seconds a unary call may hold a thread waiting for its request message
while half the server's threads or more are so held (:class:`MessageWaits`);
otherwise it may wait the whole ``--body-timeout``. A client sends a unary
call's message with its headers; a large one takes a while (16 MiB, eight
at a time, took more than 0.1 s)."""
OPEN_PRESSED_WAIT = 0.1
"""The same for a call of a method that needs no token (health checks,
whose messages are a few bytes): what a client without a token may hold."""
PRESSED_SEND = 0.5
"""Seconds an answer may wait to be sent while unsent answers hold half the
request bytes in flight (:class:`UnsentAnswers`); otherwise the whole
``--body-timeout``."""
MAX_CALLS_ACCEPTED = 64
"""Calls one server process takes at once, running or queued for one of its
:data:`~duetime.api.calls.MAX_WORKERS` threads (gRPC's
``maximum_concurrent_rpcs``): past it a new call is refused at once with
RESOURCE_EXHAUSTED ("Concurrent RPC limit exceeded!"), so that no call
waits in the queue behind more than this many others."""
IDLE_CUT = 0.1
"""Seconds without a running call after which a stopping server ends the
connections gRPC still waits for (see :meth:`RunningServer.stop`): a call a
connection brought before the stop is in a handler well within this."""
STOP_SLACK = 5.0
"""How long past the grace period shutdown waits for gRPC's own stop to
complete before it closes the ledger regardless."""
NO_BUNDLES_SERVED = ("this server has no calendar bundles loaded (start it with "
                     "--calendars DIR)")
"""What a refused bundle name adds when the server was started without a
calendars directory."""
MAX_REQUEST_BYTES = DEFAULT_MAX_MESSAGE_BYTES
"""Largest request message accepted by default (``--max-message-bytes``; a
batch of 10,000 items with inline calendars)."""


class _Undecodable:
    """Stands in for a request whose bytes are not a valid message of its type."""

    __slots__ = ("error",)

    def __init__(self, error: Exception):
        self.error = error


class _Refused:
    """Stands in for a request whose bytes were not let in (not parsed): the
    server already holds as many request bytes as it may, or parsing them
    would take more than it ever may."""

    __slots__ = ("error",)

    def __init__(self, error: InFlightBytesExhausted | TooCostlyToRead):
        self.error = error


class _Counted:
    """A request message and the ``size`` of its bytes and their parsing,
    counted in ``in_flight`` (for ``tenant``) until :meth:`release` (called
    when its call ends, or when this object is dropped, whichever comes
    first; once)."""

    __slots__ = ("message", "size", "tenant", "_in_flight")

    def __init__(self, message, size: int, in_flight: InFlightBytes, tenant: Caller | None = None):
        self.message = message
        self.size = size
        self.tenant = tenant
        self._in_flight: InFlightBytes | None = in_flight

    def release(self) -> None:
        in_flight, self._in_flight = self._in_flight, None
        if in_flight is not None:
            in_flight.release(self.size, self.tenant)

    __del__ = release


def _reader(deserializer, in_flight: InFlightBytes | None = None):
    """``read(data, tenant)``: the request message of the bytes ``data``
    (which gRPC hands over unparsed), parsed by ``deserializer`` (a message
    class's ``FromString``), or :class:`_Undecodable` instead of raising
    (gRPC itself would answer INTERNAL "Exception deserializing request!").
    With ``in_flight``, the bytes and what parsing them may take are counted
    there first, for ``tenant`` (the caller; None: no one's)
    (:meth:`~duetime.api.admission.InFlightBytes.take_message`; the message
    comes as :class:`_Counted`), or, when they do not fit, they are not
    parsed at all and come as :class:`_Refused`."""
    descriptor = getattr(getattr(deserializer, "__self__", None), "DESCRIPTOR", None)

    def read(data: bytes, tenant: Caller | None = None):
        counted = 0
        if in_flight is not None:
            try:
                if descriptor is not None:
                    counted = in_flight.take_message(data, descriptor, tenant)
                else:  # not a protobuf message class: only its bytes are known
                    counted = len(data)
                    in_flight.take(counted, tenant)
            except (InFlightBytesExhausted, TooCostlyToRead) as exc:
                return _Refused(without_frames(exc))
        try:
            message = deserializer(data)
        except Exception as exc:  # noqa: BLE001 - any decoding failure is the caller's
            if in_flight is not None:
                in_flight.release(counted, tenant)
            return _Undecodable(without_frames(exc))
        return message if in_flight is None else _Counted(message, counted, in_flight, tenant)

    return read


def _refuse_undecodable(request: _Undecodable, context: grpc.ServicerContext) -> None:
    """End the call with INVALID_ARGUMENT on ``request``, naming the decoding error."""
    problem = InvalidArgument.at(
        "request", f"is not a valid protobuf message of this method's request type "
                   f"({clip(str(request.error), 200)})")
    context.abort_with_status(grpc_status(problem))


def _unwrapped(request, context: grpc.ServicerContext):
    """The message of ``request`` as :func:`_reader` gave it, or the call
    ended with its refusal (INVALID_ARGUMENT, RESOURCE_EXHAUSTED)."""
    if isinstance(request, _Counted):
        return request.message
    if isinstance(request, _Undecodable):
        _refuse_undecodable(request, context)
    if isinstance(request, _Refused):
        context.abort_with_status(grpc_status(request.error))
    return request


NO_REQUEST = InvalidArgument.at("request", "is missing: this method takes exactly one request "
                                           "message")
"""The refusal of a unary call whose client sent no request message."""


class MessageTimeout(Refusal):
    """A unary call whose request message did not arrive in time: within the
    server's ``--body-timeout``, or within :data:`PRESSED_WAIT` while half
    its threads waited for messages (DEADLINE_EXCEEDED on ``request``; the
    call is cancelled, so its client sees CANCELLED; the log and metrics say
    this)."""

    kind = ErrorKind.OVER_BUDGET
    reason = "MESSAGE_TIMEOUT"

    def __init__(self, seconds: float, body_timeout: float):
        pressed = seconds < body_timeout
        text = (f"did not arrive within {seconds:g} s of the server taking the call up"
                + (" while half its threads or more waited for request messages" if pressed
                   else "")
                + f"; a unary call's request message must be sent with it (the server's "
                  f"--body-timeout is {body_timeout:g} s)")
        super().__init__(f"request: {text}", violations=[FieldViolation("request", text)],
                         metadata={"body_timeout_seconds": f"{body_timeout:g}",
                                   "waited_seconds": f"{seconds:g}"})


class _Wait:
    """One call waiting for its request message: ``since`` when (monotonic
    s), and ``cut``: the seconds it was allowed when it was cancelled for not
    sending it (0: not cancelled), with its client's ``peer`` read then
    (unknown once the call is cancelled; read only for such a call, since
    reading it lets go of the GIL twice)."""

    __slots__ = ("since", "pressed_wait", "cut", "peer")

    def __init__(self, since: float, pressed_wait: float):
        self.since = since
        self.pressed_wait = pressed_wait
        self.cut = 0.0
        self.peer = ""


class MessageWaits:
    """The unary calls (and health Watches) of one server whose request
    message has not arrived. A call still waiting for it ``timeout`` seconds
    after a thread took it up is cancelled (``context.cancel()``); so is one
    waiting :data:`PRESSED_WAIT` s (:data:`OPEN_PRESSED_WAIT` for a method
    that needs no token) while half the server's ``threads`` or more are
    held by such calls (and, with ``freed``, checks each time
    whether to hand freed memory back). A client that opens calls and sends nothing
    (as a slow HTTP client sends no body) thus holds no thread for long, nor
    more than half of them for longer than :data:`PRESSED_WAIT`; with
    :data:`MAX_CALLS_ACCEPTED` this bounds how long another call waits
    behind its calls. A thread of its own looks every :data:`WAIT_CHECK` s
    (:meth:`start`, :meth:`stop`); a call adds and removes itself with
    :meth:`add` and :meth:`remove`, a dictionary store and pop without a lock."""

    def __init__(self, timeout: float, threads: int = MAX_WORKERS,
                 freed: FreedMemory | None = None, unsent: UnsentAnswers | None = None):
        self.timeout = timeout
        self.freed = freed
        self.unsent = unsent
        self.pressed_wait = min(PRESSED_WAIT, timeout)
        self.open_pressed_wait = min(OPEN_PRESSED_WAIT, timeout)
        self.pressed_at = max(1, threads // 2)
        self._waiting: dict[object, _Wait] = {}
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._run, name="duetime-message-waits",
                                        daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stopped.set()

    def add(self, context, open_method: bool = False) -> _Wait:
        """Watch ``context``'s call while it waits for its message, until
        :meth:`remove` (``open_method``: one that needs no token, allowed
        :data:`OPEN_PRESSED_WAIT` under pressure); the :class:`_Wait` says
        afterwards whether it was cancelled."""
        wait = self._waiting[context] = _Wait(
            time.monotonic(), self.open_pressed_wait if open_method else self.pressed_wait)
        return wait

    def remove(self, context) -> None:
        """Stop watching ``context``'s call (its message came, or it ended)."""
        self._waiting.pop(context, None)

    def _run(self) -> None:
        while not self._stopped.wait(min(WAIT_CHECK, self.open_pressed_wait)):
            waiting = self._waiting.copy()
            pressed = len(waiting) >= self.pressed_at
            now = time.monotonic()
            for context, wait in waiting.items():
                allowed = wait.pressed_wait if pressed else self.timeout
                if wait.since <= now - allowed and self._waiting.pop(context, None) is not None:
                    wait.peer = context.peer()
                    wait.cut = allowed
                    context.cancel()
            if self.unsent is not None and len(self.unsent):
                self.unsent.check()
            if self.freed is not None:
                self.freed.check()


UNSENT_PRESSED = 1000
"""Unsent answers past which (or past half the request bytes in flight)
each is cancelled :data:`PRESSED_SEND` s after its handler returned
(:class:`UnsentAnswers`): each holds a stream's state in gRPC, a few KB."""


class UnsentAnswers:
    """The answers of unary calls that gRPC holds, not yet sent: one whose
    client does not read (an HTTP/2 window it never opens) stays in the
    server's memory after its handler returned. Each is counted in
    ``in_flight`` (for its caller; past the limits: it is memory taken
    already, and further requests are refused meanwhile) until its call
    ends; a call whose answer is not sent within ``timeout`` s
    (``--body-timeout``) is cancelled, or within :data:`PRESSED_SEND` s
    while unsent answers hold half the request bytes in flight or more, or
    number more than :data:`UNSENT_PRESSED` (:meth:`check`, called by the
    :class:`MessageWaits` thread). Before this, a client that read nothing
    took a server to 1.5 GB with 1,500 ListRecords answers on one
    connection."""

    def __init__(self, in_flight: InFlightBytes | None, timeout: float):
        self.in_flight = in_flight
        self.timeout = timeout
        self.pressed_wait = min(PRESSED_SEND, timeout)
        self._unsent: dict[object, tuple[float, int, Caller | None]] = {}

    def hold(self, response, context, caller: Caller | None) -> None:
        """Count ``response`` (about to be handed to gRPC) until its call
        ``context`` ends."""
        in_flight = self.in_flight
        if in_flight is None:
            return
        size = response.ByteSize()
        in_flight.take_anyway(size, caller)
        self._unsent[context] = (time.monotonic(), size, caller)
        if not context.add_callback(lambda: self._sent(context)):
            self._sent(context)

    def _sent(self, context) -> None:
        held = self._unsent.pop(context, None)
        if held is not None:
            self.in_flight.release(held[1], held[2])

    def check(self) -> None:
        """Cancel the calls whose answers have waited too long to be sent
        (see the class docstring)."""
        unsent = self._unsent.copy()
        pressed = len(unsent) > UNSENT_PRESSED or (
            sum(size for _, size, _ in unsent.values()) * 2 >= self.in_flight.limit)
        cut = time.monotonic() - (self.pressed_wait if pressed else self.timeout)
        for context, (since, _, _) in unsent.items():
            if since <= cut:
                context.cancel()  # the call ends: its callback releases its bytes

    def __len__(self) -> int:
        return len(self._unsent)


class UndecodableRequests(grpc.ServerInterceptor):
    """Answers a request whose bytes do not decode (invalid UTF-8 in a string
    field, a truncated or malformed wire format) with INVALID_ARGUMENT on
    ``request`` instead of gRPC's INTERNAL, and applies the server's
    ``admission`` (:mod:`duetime.api.admission`; None: none):

    * a unary call takes one of its tenant's calls in flight (the caller the
      token interceptor found; health checks are not counted) *before* its
      request message is read: over the tenant's bound it ends
      RESOURCE_EXHAUSTED (TENANT_CALLS_EXHAUSTED) and the message is never
      read (the handler reads its request as a stream of one message, so
      gRPC does not receive it before this check); a stream holds one for
      its whole life;
    * each request message's bytes, and what parsing them may take
      (:mod:`duetime.api.wire`), are counted in the request bytes in flight
      (and in its tenant's share of them) when gRPC hands them over, before
      they are parsed, until the call ends (a stream's: until the next
      message is taken); over the bound the message is dropped unparsed and
      the call ends RESOURCE_EXHAUSTED (IN_FLIGHT_BYTES_EXHAUSTED; or
      REQUEST_TOO_LARGE when it could never fit).

    Registered innermost, so the call is still counted, logged and checked
    for its token. Each method's checked handler is built once, on its
    first call, and kept."""

    def __init__(self, admission: Admission | None = None,
                 waits: MessageWaits | None = None) -> None:
        self.admission = admission
        self.waits = waits
        self._checked: dict[str, tuple[grpc.RpcMethodHandler, grpc.RpcMethodHandler]] = {}

    def intercept_service(self, continuation, handler_call_details):
        handler = continuation(handler_call_details)
        if handler is None or handler.request_deserializer is None:
            return handler
        method = handler_call_details.method
        known = self._checked.get(method)
        if known is not None and known[0] is handler:
            return known[1]
        admission = self.admission
        streams = None if admission is None else (
            admission.watches if method in OPEN_METHODS else admission.streams)
        checked = _checked_handler(handler, None if method in OPEN_METHODS else admission, streams,
                                   self.waits, method in OPEN_METHODS)
        self._checked[method] = (handler, checked)  # one assignment: atomic
        return checked


def _checked_handler(handler: grpc.RpcMethodHandler, admission: Admission | None = None,
                     streams: StreamSlots | None = None,
                     waits: MessageWaits | None = None,
                     open_method: bool = False) -> grpc.RpcMethodHandler:
    """``handler`` with a lenient deserializer and a behaviour that refuses an
    undecodable request, within ``admission`` (see :class:`UndecodableRequests`;
    ``open_method``: one that needs no token, see :meth:`MessageWaits.add`);
    a streaming handler holds one of ``streams`` for its whole life (over
    them: RESOURCE_EXHAUSTED, STREAMS_EXHAUSTED), whatever the method."""
    kind = next(k for k in ("unary_unary", "unary_stream", "stream_unary", "stream_stream")
                if getattr(handler, k) is not None)
    behavior = getattr(handler, kind)
    if streams is not None and (handler.request_streaming or handler.response_streaming):
        behavior = _holding_a_slot(behavior, streams, handler.response_streaming)
    in_flight = admission.in_flight if admission is not None else None
    tenants = admission.tenants if admission is not None else TenantCalls()
    read = _reader(handler.request_deserializer, in_flight)

    def enter(context) -> Caller:
        caller = caller_of(context)
        try:
            tenants.enter(caller)
        except TenantCallsExhausted as exc:
            context.abort_with_status(grpc_status(exc))
        return caller

    if handler.request_streaming:
        def checked(requests, context, caller: Caller):
            for data in requests:
                request = read(data, caller)
                try:
                    yield _unwrapped(request, context)
                finally:
                    if isinstance(request, _Counted):
                        request.release()

        if handler.response_streaming:
            def wrapped(requests, context):
                caller = enter(context)
                try:
                    yield from behavior(checked(requests, context, caller), context)
                finally:
                    tenants.leave(caller)
        else:
            def wrapped(requests, context):
                caller = enter(context)
                try:
                    return behavior(checked(requests, context, caller), context)
                finally:
                    tenants.leave(caller)
        return handler._replace(request_deserializer=None, **{kind: wrapped})

    if handler.response_streaming:  # unary request, streamed answer (health's Watch)
        def watched(requests, context):
            """Its one request read here, not by gRPC before: under ``waits``."""
            request = read(_one_message(requests, context, waits, open_method))
            try:
                yield from behavior(_unwrapped(request, context), context)
            finally:
                if isinstance(request, _Counted):
                    request.release()
        return grpc.stream_stream_rpc_method_handler(
            watched, request_deserializer=None, response_serializer=handler.response_serializer)

    unsent = waits.unsent if waits is not None else None

    def one_request(requests, context):
        """The unary call's request, read only now: after its tenant was let
        in; its answer, when large, counted until it is sent (``unsent``)."""
        caller = enter(context)
        try:
            data = _one_message(requests, context, waits, open_method)
            request = read(data, caller)
            try:
                response = behavior(_unwrapped(request, context), context)
            finally:
                if isinstance(request, _Counted):
                    request.release()
            if unsent is not None and response is not None:
                unsent.hold(response, context, caller)
            return response
        finally:
            tenants.leave(caller)

    return grpc.stream_unary_rpc_method_handler(
        one_request, request_deserializer=None,
        response_serializer=handler.response_serializer)


_CANCELLED = object()
"""What :func:`_one_message` read when its call was cancelled while it waited."""


def _one_message(requests, context, waits: MessageWaits | None,
                 open_method: bool = False) -> bytes:
    """The bytes of a unary call's request message, or the call ended:
    INVALID_ARGUMENT when its client sent none, DEADLINE_EXCEEDED
    (``MESSAGE_TIMEOUT``) when ``waits`` cancelled it for not sending one in
    time (its client sees CANCELLED), CANCELLED when its client went away."""
    if waits is None:
        data = next(requests, None)
    else:
        wait = waits.add(context, open_method)
        try:
            data = next(requests, None)
        except grpc.RpcError:  # the call was cancelled while it waited
            data = _CANCELLED
        finally:
            waits.remove(context)
        if wait.cut:  # cancelled for it (the wait then ends in an error, or in no message)
            log.info("client %s did not send its request message within %g s: call "
                     "cancelled", wait.peer or "(unknown)", wait.cut)
            note_peer = getattr(context, "note_peer", None)
            if note_peer is not None:
                note_peer(wait.peer)
            context.abort_with_status(grpc_status(MessageTimeout(wait.cut, waits.timeout)))
        if data is _CANCELLED:
            context.abort(grpc.StatusCode.CANCELLED, "the client cancelled the call")
    if data is None:
        context.abort_with_status(grpc_status(NO_REQUEST))
    return data


@contextmanager
def _stream_slot(streams: StreamSlots, context: grpc.ServicerContext) -> Iterator[None]:
    """One of ``streams`` held for the ``with`` block, as its caller's; the
    call aborted RESOURCE_EXHAUSTED (STREAMS_EXHAUSTED) when none is free,
    or its caller holds its share of them."""
    caller = caller_of(context)
    try:
        streams.enter(caller)
    except StreamsExhausted as exc:
        context.abort_with_status(grpc_status(exc))
    try:
        yield
    finally:
        streams.leave(caller)


def _holding_a_slot(behavior, streams: StreamSlots, streamed_answer: bool):
    """``behavior`` (a streaming handler's) holding one of ``streams`` while it runs."""
    if streamed_answer:
        def held(request, context):
            with _stream_slot(streams, context):
                yield from behavior(request, context)
        return held

    def held_unary(request, context):
        with _stream_slot(streams, context):
            return behavior(request, context)
    return held_unary


def _raise(exc: BaseException) -> None:
    raise exc


class _ReadFailed(Exception):
    """Reading a client stream raised its ``__cause__`` (gRPC's own error, or
    the refusal of an undecodable message, whose status is set already)."""


_NOT_YET = object()
"""What :meth:`_ReadAhead.take` gives when no message has arrived yet."""
_END = object()
"""What :meth:`_ReadAhead.take` gives once the client has ended its stream."""


class _ReadAhead:
    """A client stream's messages, read one ahead by a thread of their own
    (started here), so that the handler can ask without blocking whether the
    next one has come. Messages are taken in order; the stream's end, or the
    error reading it raised, follows the last."""

    def __init__(self, messages: Iterator):
        self._messages = messages
        self._ready = threading.Condition(threading.Lock())
        self._slot: list[tuple[object, BaseException | None]] = []  # at most one
        self._closed = False
        threading.Thread(target=self._read, name="duetime-stream-reader", daemon=True).start()

    def _put(self, item: tuple[object, BaseException | None]) -> bool:
        with self._ready:
            while self._slot and not self._closed:
                self._ready.wait()
            if self._closed:
                return False
            self._slot.append(item)
            self._ready.notify_all()
            return True

    def _read(self) -> None:
        try:
            for message in self._messages:
                if not self._put((message, None)):
                    return
        except BaseException as exc:  # noqa: BLE001 - handed to the handler, which raises it
            self._put((None, exc))
            return
        self._put((_END, None))

    def take(self, unless: Callable[[], bool] | None = None) -> object:
        """The next message once it has arrived, :data:`_END` after the
        last; or :data:`_NOT_YET` as soon as ``unless()`` (None: never) is
        true while none is there (checked again on each :meth:`wake`).
        Raises what reading the stream raised."""
        with self._ready:
            while not self._slot:
                if unless is not None and unless():
                    return _NOT_YET
                self._ready.wait()
            message, error = self._slot.pop()
            self._ready.notify_all()
        if error is not None:
            raise error
        return message

    def wake(self) -> None:
        """Have a :meth:`take` waiting check its ``unless`` again."""
        with self._ready:
            self._ready.notify_all()

    def close(self) -> None:
        """Stop reading ahead (the reader thread ends once its current read does)."""
        with self._ready:
            self._closed = True
            self._slot.clear()
            self._ready.notify_all()


class _Commit:
    """One prepared chunk of a stream (a :class:`~duetime.app.PreparedBatch`)
    committed by a thread of its own, started here; :meth:`result` waits
    for it. ``on_done`` is called once it is done (committed or failed)."""

    __slots__ = ("_thread", "_results", "_error", "_done", "_on_done")

    def __init__(self, prepared: PreparedBatch, on_done: Callable[[], None]):
        self._results: list | None = None
        self._error: BaseException | None = None
        self._done = False
        self._on_done = on_done
        self._thread = threading.Thread(target=self._run, args=(prepared,),
                                        name="duetime-stream-commit", daemon=True)
        self._thread.start()

    def _run(self, prepared: PreparedBatch) -> None:
        try:
            self._results = prepared.commit()
        except BaseException as exc:  # noqa: BLE001 - raised by result(), in the handler
            self._error = exc
        finally:
            self._done = True
            self._on_done()

    def done(self) -> bool:
        """Whether the commit has ended (:meth:`result` returns at once)."""
        return self._done

    def result(self) -> list:
        """The chunk's results once committed; raises what the commit raised."""
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self._results  # type: ignore[return-value]


class _Servicer:
    """What both servicers share: the app, the server's limits, the table of
    how each unary RPC calls the app (:func:`~duetime.api.calls.unary_calls`,
    the same the HTTP/JSON API answers from), and :meth:`_call`."""

    def __init__(self, app: DueTimeApp, limits: CallLimits | None = None):
        self.app = app
        self.limits = limits if limits is not None else CallLimits()
        self.calls = unary_calls(app, self.limits)

    def _call(self, context: grpc.ServicerContext, use_case, *args):
        """Run ``use_case(*args)`` in this thread; on any exception log it as
        it deserves (:func:`log_failure`) and abort the call with its status."""
        try:
            return use_case(*args)
        except Exception as exc:  # noqa: BLE001 - every error becomes a status
            log_failure(log, exc)
            status = grpc_status(exc)
        context.abort_with_status(status)

    def _unary(self, method: str, request, context: grpc.ServicerContext):
        """Answer the unary RPC ``method`` (its full name) from :attr:`calls`,
        within a deadline from the call budget (:attr:`limits`)."""
        received_at = datetime.now(timezone.utc)
        deadline = self.limits.deadline()
        if deadline is not None and not context.add_callback(deadline.caller_gone):
            deadline.caller_gone()  # the call has already ended (cancelled)
        return self._call(context, self.calls[method], request,
                          context.invocation_metadata(), received_at, deadline,
                          caller_of(context))


class DueTimeServicer(_Servicer, pb_grpc.DueTimeServiceServicer):
    """``duetime.v1.DueTimeService`` over a :class:`DueTimeApp`, within ``limits``."""

    def ComputeDueTime(self, request, context):
        return self._unary(DUE_TIME.name, request, context)

    def BatchComputeDueTimes(self, request, context):
        return self._unary(DUE_TIME_SERVICE + "BatchComputeDueTimes", request, context)

    def StreamComputeDueTimes(self, request_iterator, context):
        """Answer each request message in chunks of the app's
        ``limits.stream_chunk`` items, each chunk committed before it is sent
        and within its own deadline from the call budget. Before each chunk
        the caller's token is checked against the token set as it stands
        (again only after a reload): a revoked token ends the stream
        UNAUTHENTICATED, and nothing more is recorded.

        Pipelined: while one chunk's records are committed (by a thread of
        their own: the wait for the disk lets go of the GIL), the next chunk
        is computed if the client sends it before that commit ends; chunks
        are committed, and answered, in order. Messages are read one ahead by a
        reader thread (:class:`_ReadAhead`), so a client that waits for each
        answer before it sends its next message is answered as before. At
        most three messages (one read ahead, one computing, one committing)
        are held at a time, so memory does not grow with the stream."""
        caller = caller_of(context)
        namespace = self._call(context, call_namespace, caller, context.invocation_metadata())
        step = self.app.limits.stream_chunk
        current: list = [None]  # the deadline of the chunk computing, marked when the caller goes

        def caller_gone() -> None:
            if current[0] is not None:
                current[0].caller_gone()

        active = context.add_callback(caller_gone)
        reader = _ReadAhead(request_iterator)
        chunks: deque = deque()  # the current message's chunks not yet computed
        pending: _Commit | None = None  # the chunk committing
        try:
            while True:
                try:
                    if not chunks:
                        try:
                            message = reader.take(
                                unless=pending.done if pending is not None else None)
                        except BaseException as exc:  # reading the stream failed (or was refused)
                            raise _ReadFailed() from exc
                        if message is _NOT_YET:  # committed before the next came: answer it
                            reply, pending = self._reply(context, pending), None
                            yield reply
                            continue
                        if message is _END:
                            break
                        items = message.items
                        self.limits.check_items(items)
                        chunks.extend(items[first:first + step]
                                      for first in range(0, len(items), step))
                        continue
                    chunk = chunks.popleft()
                    # a token revoked (or re-scoped) by a reload ends the stream here
                    now = current_caller(context)
                    if now is not caller:
                        caller = now
                        namespace = call_namespace(caller, context.invocation_metadata())
                    deadline = current[0] = self.limits.deadline()
                    if deadline is not None and not (active and context.is_active()):
                        deadline.caller_gone()
                    prepared = self.app.prepare_many(DUE_TIME, chunk, datetime.now(timezone.utc),
                                                     namespace, deadline)
                except Exception as exc:  # noqa: BLE001 - every error becomes a status
                    if pending is not None:  # the chunk before was answered first, as it would
                        reply, pending = self._reply(context, pending), None  # have been alone
                        yield reply
                    if isinstance(exc, _ReadFailed):  # raised as reading it in this thread would
                        raise exc.__cause__ from None
                    self._call(context, _raise, exc)
                    return
                if pending is None:
                    pending = _Commit(prepared, reader.wake)
                    continue
                try:
                    results = pending.result()
                except Exception as exc:  # noqa: BLE001 - the commit's error ends the stream
                    pending = None
                    prepared.discard()  # nothing more is recorded
                    self._call(context, _raise, exc)
                    return
                pending = _Commit(prepared, reader.wake)  # committing while the one before is sent
                yield self._reply(context, results)
            if pending is not None:
                reply, pending = self._reply(context, pending), None
                yield reply
        finally:
            reader.close()

    def _reply(self, context: grpc.ServicerContext,
               results: _Commit | list) -> pb.StreamComputeDueTimesResponse:
        """The reply of a stream's chunk from its results (or those of its
        commit, waited for); an error ends the call with its status."""
        if isinstance(results, _Commit):
            results = self._call(context, results.result)
        reply = pb.StreamComputeDueTimesResponse()
        add_item_results(reply.results, results)
        return reply

    def ComputeBusinessTime(self, request, context):
        return self._unary(BUSINESS_TIME.name, request, context)

    def GetOpenStatus(self, request, context):
        return self._unary(OPEN_STATUS.name, request, context)

    def ComputeSchedule(self, request, context):
        return self._unary(SCHEDULE.name, request, context)

    def StartClock(self, request, context):
        return self._unary(START_CLOCK.name, request, context)

    def ApplyClockEvent(self, request, context):
        return self._unary(CLOCK_EVENT.name, request, context)

    def EvaluateSla(self, request, context):
        return self._unary(EVALUATE_SLA.name, request, context)

    def GetRecord(self, request, context):
        return self._unary(DUE_TIME_SERVICE + "GetRecord", request, context)

    def ListRecords(self, request, context):
        return self._unary(DUE_TIME_SERVICE + "ListRecords", request, context)

    def AnalyzeImpact(self, request, context):
        return self._unary(DUE_TIME_SERVICE + "AnalyzeImpact", request, context)

    # calendar queries (docs/semantics.md §9.1)
    def ListOpenPeriods(self, request, context):
        return self._unary(DUE_TIME_SERVICE + "ListOpenPeriods", request, context)

    def CountBusinessDays(self, request, context):
        return self._unary(DUE_TIME_SERVICE + "CountBusinessDays", request, context)


class CalendarServicer(_Servicer, pb_grpc.CalendarServiceServicer):
    """``duetime.v1.CalendarService`` over a :class:`DueTimeApp`'s catalog."""

    def ListCalendars(self, request, context):
        return self._unary(CALENDAR_SERVICE + "ListCalendars", request, context)

    def GetCalendar(self, request, context):
        return self._unary(CALENDAR_SERVICE + "GetCalendar", request, context)

    def ListHolidays(self, request, context):
        return self._unary(CALENDAR_SERVICE + "ListHolidays", request, context)

    def ListPolicies(self, request, context):
        return self._unary(CALENDAR_SERVICE + "ListPolicies", request, context)

    def GetPolicy(self, request, context):
        return self._unary(CALENDAR_SERVICE + "GetPolicy", request, context)


class Reloader:
    """Loads the calendars under ``root`` again into ``app``: on demand
    (:meth:`reload`, on SIGHUP) or when they changed (:meth:`poll`, ``--watch``)."""

    def __init__(self, app: DueTimeApp, root: Path | None, on_reload=None):
        self.app = app
        self.root = root
        self.on_reload = on_reload
        """Called with each catalog swapped in (the metrics' bundle list)."""
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
        if self.on_reload is not None:
            self.on_reload(catalog)
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
    grace: float = GRACE_SECONDS
    """Default of :meth:`stop` (``--grace``)."""
    limits: CallLimits | None = None
    """The limits its servicers apply (hand them to the HTTP face too)."""
    metrics: Metrics | None = None
    admission: Admission | None = None
    """What it lets in at once (hand it to the HTTP face too)."""

    observer: CallObserver | None = None
    """The server's outermost interceptor (:meth:`stop` asks it how many
    calls are running)."""
    waits: MessageWaits | None = None
    """Its watch over unary calls waiting for their message (stopped by :meth:`stop`)."""

    def _cut_when_idle(self, stopped: threading.Event, grace: float) -> None:
        """Within the grace period, once no call has been running for
        :data:`IDLE_CUT` s, end what gRPC still waits for at once (``stop(0)``):
        connections without a call, such as a client's that opened just
        before the stop and never finished its HTTP/2 preface, or any idle
        connection whose client does not close it on GOAWAY. gRPC's own
        graceful stop waits for those until the grace period ends, so one
        silent connection would hold every shutdown for the whole of it."""
        ends = time.monotonic() + grace
        idle_since = None
        while not stopped.wait(0.01) and (now := time.monotonic()) < ends:
            if self.observer.calls_running():
                idle_since = None
            elif idle_since is None:
                idle_since = now
            elif now - idle_since >= IDLE_CUT:
                self.server.stop(0)
                return

    def stop(self, grace: float | None = None) -> int:
        """Report NOT_SERVING and stop accepting calls, let in-flight calls
        finish (``grace`` s, default :attr:`grace`), then close the ledger
        once no call is using it (waiting at most ``grace`` s more). Returns
        how many calls were still running: none is answered; those still
        computing are dropped when they reach the ledger (nothing recorded),
        those already writing to it finish the write; their threads may still
        run. Stops the metrics listener last."""
        grace = self.grace if grace is None else grace
        self.ledger_health.stop()
        self.health.enter_graceful_shutdown()
        stopped = self.server.stop(grace)
        if self.observer is not None:
            self._cut_when_idle(stopped, grace)
        if not stopped.wait(grace + STOP_SLACK):
            log.warning("gRPC had not finished stopping %g s after the grace period; "
                        "closing the ledger anyway", STOP_SLACK)
        dropped = self.app.close(timeout=grace)
        if self.waits is not None:
            self.waits.stop()
        if self.metrics is not None:
            self.metrics.close()
        return dropped


def _address(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host and not host.startswith("[") else f"{host}:{port}"


def server_credentials(tls: TlsFiles) -> grpc.ServerCredentials:
    """TLS credentials of the server's certificate and key; with a client CA,
    mutual TLS (a client certificate issued by it is required)."""
    return grpc.ssl_server_credentials(
        [(tls.key, tls.cert)], root_certificates=tls.client_ca,
        require_client_auth=tls.client_ca is not None)


def start_server(
    ledger: Ledger, host: str = "127.0.0.1", port: int = 50051, catalog: Catalog | None = None,
    *, tls: TlsFiles | None = None, tokens: TokenSet | None = None,
    metrics: Metrics | None = None, log_calls: bool = True,
    max_message_bytes: int = MAX_REQUEST_BYTES, max_batch_items: int = MAX_BATCH_ITEMS,
    max_batch_calendar_weight: int = MAX_BATCH_CALENDAR_WEIGHT,
    call_budget: float = DEFAULT_CALL_BUDGET, grace: float = GRACE_SECONDS,
    calendar_cache: int | None = None, app_limits: AppLimits | None = None,
    reuse_port: bool = False,
    memory_budget: int = DEFAULT_MEMORY_BUDGET,
    tenant_calls: int = DEFAULT_TENANT_CALLS,
    message_timeout: float = DEFAULT_BODY_TIMEOUT,
) -> RunningServer:
    """Start a gRPC server for ``ledger`` on ``host:port`` (port 0: any free port),
    answering from ``catalog`` (default: no bundles).

    ``tls``: serve TLS (mutual TLS when it has a client CA), else plain TCP;
    ``tokens``: require a bearer token (:mod:`duetime.auth`); ``metrics``:
    count and time every call and ledger commit there (its HTTP listener is
    started by the caller, :meth:`Metrics.serve`); ``log_calls``: one log
    line per call; ``max_message_bytes``: largest request (larger is
    RESOURCE_EXHAUSTED); ``max_batch_items``, ``max_batch_calendar_weight`` and ``call_budget`` (seconds,
    0: none): this server's :class:`~duetime.api.calls.CallLimits`
    (:attr:`RunningServer.limits`); ``grace``: the default of
    :meth:`RunningServer.stop`; ``calendar_cache``: how many inline calendars
    the app keeps built (None: ``$DUETIME_CALENDAR_CACHE``, else 1024);
    ``app_limits``: the app's size limits (None: the defaults);
    ``reuse_port``: share the port with the other worker processes of
    ``duetime serve --workers N`` (``grpc.so_reuseport`` 1; else 0, and
    another process listening there is an error); ``memory_budget``: the
    estimated bytes those calendars may hold, and three times the request
    bytes the server holds at once (:func:`duetime.api.admission.in_flight_limit`);
    ``message_timeout``: seconds a unary call's request message may take
    to arrive (``--body-timeout``; :class:`MessageWaits`);
    ``tenant_calls``: with ``tokens``, the calls one tenant may have in
    flight (0: no bound; see :mod:`duetime.api.admission`, whose
    :class:`~duetime.api.admission.Admission` is
    :attr:`RunningServer.admission`). The app is built by
    :func:`duetime.compose.build_app`.

    Raises RuntimeError if the address cannot be bound (also when another
    process listens there and ``reuse_port`` is false).
    """
    observer = CallObserver(metrics, log_calls)
    interceptors: list[grpc.ServerInterceptor] = [observer]
    if tokens is not None:
        interceptors.append(BearerTokenInterceptor(tokens))
    admission = Admission.of(memory_budget, max_message_bytes,
                             tenant_calls if tokens is not None else 0, max_batch_calendar_weight)
    # innermost: sees the handlers as registered
    in_flight = admission.in_flight if admission is not None else None
    waits = MessageWaits(message_timeout, freed=FreedMemory(in_flight),
                         unsent=UnsentAnswers(in_flight, message_timeout))
    interceptors.append(UndecodableRequests(admission, waits))
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=MAX_WORKERS),
                         interceptors=interceptors,
                         maximum_concurrent_rpcs=MAX_CALLS_ACCEPTED,
                         options=[("grpc.so_reuseport", 1 if reuse_port else 0),
                                  ("grpc.max_receive_message_length", max_message_bytes),
                                  # no window growth from bandwidth probes: a stream
                                  # no thread reads yet buffers its first 64 KiB only
                                  ("grpc.http2.bdp_probe", 0)])
    app = build_app(metrics.timed(ledger) if metrics is not None else ledger, catalog,
                    limits=app_limits or AppLimits(max_batch_items=max_batch_items),
                    calendar_cache=calendar_cache, memory_budget=memory_budget)
    if metrics is not None:
        metrics.set_catalog(app.catalog)
    limits = CallLimits(app.limits.max_batch_items, CallBudget(call_budget), max_batch_calendar_weight)
    pb_grpc.add_DueTimeServiceServicer_to_server(DueTimeServicer(app, limits), server)
    pb_grpc.add_CalendarServiceServicer_to_server(CalendarServicer(app, limits), server)
    health_servicer = health.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    reflection.enable_server_reflection(
        (SERVICE_NAME, CALENDAR_SERVICE_NAME, health.SERVICE_NAME, reflection.SERVICE_NAME),
        server,
    )
    address = _address(host, port)
    try:
        bound = (server.add_secure_port(address, server_credentials(tls)) if tls is not None
                 else server.add_insecure_port(address))
    except RuntimeError:
        bound = 0
    if not bound:
        raise RuntimeError(f"cannot bind {address}: address in use, or not an address of this machine?")
    server.start()
    health_servicer.set(CALENDAR_SERVICE_NAME, health_pb2.HealthCheckResponse.SERVING)
    ledger_health = LedgerHealth(app, health_servicer)
    app.on_ledger_unavailable = ledger_health.failed
    ledger_health.start()
    waits.start()
    return RunningServer(server, bound, health_servicer, ledger, app, ledger_health, grace,
                         limits, metrics, admission, observer, waits)


def describe_ledger(ledger: Ledger) -> str:
    """The ledger in words for logs (a PostgreSQL URL without its password)."""
    label = getattr(ledger, "label", None)
    return label or f"sqlite {getattr(ledger, 'path', type(ledger).__name__)}"


def log_configuration(config: ServerConfig) -> None:
    """Log the start-up line ``configuration: key=value …`` (no secrets; JSON:
    the ``config`` field) of :func:`effective_settings`."""
    shown = effective_settings(config)
    log.info("configuration: %s",
             " ".join(f"{k}={'off' if v is None else v}" for k, v in shown.items()),
             extra={"config": shown})


def serve(config: ServerConfig, started: Callable[[], None] | None = None) -> int:
    """Serve until SIGINT or SIGTERM, then shut down cleanly and return the
    number of calls dropped because they still ran after the grace period
    (see :meth:`RunningServer.stop`; their threads may still be running).

    ``config`` is the checked configuration (:func:`duetime.config.resolve`),
    logged first (``configuration: …``, no secrets). Loads the calendars under
    ``config.calendars`` (None: no bundles) and logs the loaded set; opens
    (creating and migrating if needed) the ledger ``config.db``: a SQLite
    path or a ``postgresql://`` URL, default ``$DUETIME_DB``, else
    :func:`duetime.ledger.default_db_path` (see
    :func:`duetime.ledger.open_ledger`); serves metrics on
    ``config.metrics_address:config.metrics_port`` when set (logged
    ``metrics on http://HOST:PORT/metrics``); logs ``duetime listening on
    HOST:PORT`` with the bound port. SIGHUP reloads the calendars and the
    token file; with ``config.watch`` (seconds) the calendars are also
    reloaded when a compiled ``versions.txt`` changes. ``config.calendar_cache``:
    how many inline calendars to keep built (None: ``$DUETIME_CALENDAR_CACHE``,
    else 1024). ``config.http_port``: also serve the HTTP/JSON API
    (:mod:`duetime.api.http`) on ``host:http_port`` (0: not); on shutdown it
    stops first (its calls in flight get the same grace period), then gRPC.
    Must run in the main thread (signals). Signals are taken from the start:
    one that comes while the server is still starting is acted on once it
    has started (SIGTERM/SIGINT then stop it cleanly); once shutdown has
    begun SIGINT, SIGTERM and SIGHUP are ignored, also after it returns.
    Raises CatalogError, LedgerUnavailable, ConfigError (a TLS or token file
    changed since it was checked) or RuntimeError if it cannot start.

    ``started`` (None: a server of its own): this process is one worker of
    ``duetime serve --workers N`` (:mod:`duetime.api.workers`, which forked
    it): the gRPC and HTTP ports are shared with the other workers
    (``SO_REUSEPORT``), the configuration line is left to the parent, and
    ``started()`` is called once every listener is up.
    """
    with SignalWaiter() as signals:
        return _serve(config, signals, started)


LARGE_BLOCK = 1 << 20
"""Blocks of at least this many bytes (a large request's bytes, a parsed
body) are mapped for themselves and unmapped when freed (glibc's
``M_MMAP_THRESHOLD``), not kept in the allocator's heaps after the call."""
_M_MMAP_THRESHOLD = -3  # glibc's malloc.h


def return_large_blocks() -> bool:
    """Have the C allocator map each block of :data:`LARGE_BLOCK` bytes or
    more on its own and give it back to the system when it is freed (glibc
    otherwise raises that threshold to the largest block freed so far, and
    keeps such blocks in a heap per thread: the request bytes of calls long
    gone would stay in the server's resident memory). A setting of the
    serving process, made once when it starts; False where the C library is
    not glibc (nothing changed)."""
    try:
        libc = ctypes.CDLL(None)
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    return mallopt(_M_MMAP_THRESHOLD, LARGE_BLOCK) == 1


TRIM_EVERY = 16 << 20
"""Request bytes (:attr:`~duetime.api.admission.InFlightBytes.passed`) after
which a server hands the memory it freed back to the system
(:class:`FreedMemory`)."""
TRIM_GAP = 1.0
"""The fewest seconds between two such hand-backs."""
TRIM_ANYWAY = 10.0
"""Seconds after which a server hands freed memory back whatever came: a
call cancelled while gRPC received its message never reaches the count."""


def _malloc_trim() -> Callable[[], object] | None:
    """glibc's ``malloc_trim(0)`` (gives the free memory of every heap back
    to the system; the GIL is let go while it runs), None elsewhere."""
    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return None
    trim.argtypes = (ctypes.c_size_t,)
    return lambda: trim(0)


class FreedMemory:
    """Hands the memory a server freed back to the system once
    :data:`TRIM_EVERY` request bytes more have come through ``in_flight``,
    at most every :data:`TRIM_GAP` s, and every :data:`TRIM_ANYWAY` s
    whatever came (:meth:`check`, called by the
    :class:`MessageWaits` thread). gRPC receives a message in many small
    pieces, which the C allocator keeps in its heaps once they are freed:
    32 refused 16 MiB messages, eight at a time, left a server 55 MB above
    its idle size with nothing held (4 MB after a hand-back). A hand-back
    takes 0.1 to 30 ms (the most for a heap of 300 MB of freed pieces), in
    that thread, without the GIL; ordinary calls pass 16 MiB seldom (a
    batch of 1,000 items is 60 KB). Nothing happens where the C library is
    not glibc."""

    def __init__(self, in_flight: InFlightBytes | None, trim=None):
        self.in_flight = in_flight
        self.trim = trim if trim is not None else _malloc_trim()
        self._trimmed_at = 0
        self._last = time.monotonic()

    def check(self) -> None:
        """Hand the freed memory back if it is time (see the class docstring)."""
        if self.in_flight is None or self.trim is None:
            return
        passed = self.in_flight.passed
        now = time.monotonic()
        if (passed - self._trimmed_at >= TRIM_EVERY and now - self._last >= TRIM_GAP
                or now - self._last >= TRIM_ANYWAY):
            self._trimmed_at, self._last = passed, now
            self.trim()


def _serve(config: ServerConfig, signals: SignalWaiter,
           started: Callable[[], None] | None = None) -> int:
    tzdb.pin()  # before the calendars are loaded: their zones come from tzdata too
    return_large_blocks()
    host, port, calendars, watch = config.host, config.port, config.calendars, config.watch
    if started is None:
        log_configuration(config)
    tls = config.load_tls()
    tokens = TokenSet(config.auth_tokens) if config.auth_tokens is not None else None
    if tls is not None:
        log.info("TLS on: certificate %s%s", config.tls_cert,
                 f", client certificates required, issued by {config.tls_client_ca}"
                 if tls.client_ca is not None else "")
    if tokens is not None:
        log.info("bearer tokens required: %d token(s) from %s (the health service is open)",
                 len(tokens), config.auth_tokens)
    if calendars:
        catalog = Catalog.load(calendars)
        log.info("calendars loaded from %s: %s", calendars, catalog.describe())
    else:
        catalog = Catalog.empty(NO_BUNDLES_SERVED)
        log.warning("no calendars directory (--calendars, $DUETIME_CALENDARS, ./calendars "
                    "in %s): this server serves no calendar bundles, only inline calendars; "
                    "start it with --calendars DIR (or set DUETIME_CALENDARS=DIR) to serve "
                    "bundles", Path.cwd())
    calendar_cache = (config.calendar_cache if config.calendar_cache is not None
                      else calendar_cache_size_from_env())
    log.info("calendar cache: up to %d inline calendars in %.0f MiB, a third of the memory "
             "budget of %s", calendar_cache, cache_bytes(config.memory_budget) / (1 << 20),
             format_bytes(config.memory_budget))
    in_flight = in_flight_limit(config.memory_budget, config.max_message_bytes)
    share = tenant_share(in_flight, config.max_message_bytes)
    log.info("request bytes in flight: at most %.0f MiB, a third of the memory budget (at "
             "least one message of --max-message-bytes)%s", in_flight / (1 << 20),
             f"; per tenant: at most {config.tenant_calls} calls in flight and "
             f"{share / (1 << 20):.0f} MiB of request bytes"
             if tokens is not None and config.tenant_calls else "")
    ledger = open_ledger(config.db, max_connections=MAX_WORKERS + 1)
    log.info("ledger: %s", describe_ledger(ledger))
    metrics = Metrics() if config.metrics_port else None
    try:
        if metrics is not None:
            bound = metrics.serve(config.metrics_address, config.metrics_port)
            log.info("metrics on http://%s/metrics", _address(config.metrics_address, bound))
        running = start_server(
            ledger, host, port, catalog, tls=tls, tokens=tokens, metrics=metrics,
            max_message_bytes=config.max_message_bytes, max_batch_items=config.max_batch_items,
            max_batch_calendar_weight=config.max_batch_calendar_weight,
            call_budget=config.call_budget, grace=config.grace, calendar_cache=calendar_cache,
            reuse_port=started is not None, memory_budget=config.memory_budget,
            tenant_calls=config.tenant_calls, message_timeout=config.body_timeout)
    except BaseException:
        if metrics is not None:
            metrics.close()
        ledger.close()
        raise
    log.info("duetime listening on %s", _address(host, running.port))
    http = None
    if config.http_port:
        try:
            http = start_http_server(
                running.app, host, config.http_port, tokens=tokens, tls_cert=config.tls_cert,
                tls_key=config.tls_key, tls_client_ca=config.tls_client_ca,
                max_body_bytes=config.max_message_bytes, grace=config.grace, metrics=metrics,
                limits=running.limits, reuse_port=started is not None,
                admission=running.admission, body_timeout=config.body_timeout,
                allow_origins=config.http_allow_origin, allow_hosts=config.http_allow_host)
        except BaseException:
            running.stop()
            raise
    if started is not None:
        started()
    reloader = Reloader(running.app, calendars,
                        on_reload=metrics.set_catalog if metrics is not None else None)
    while True:  # reloads run here, in the main thread, never in a handler
        received = signals.wait(watch)
        if received & {signal.SIGINT, signal.SIGTERM}:
            break
        if signal.SIGHUP in received:
            reloader.reload()
            if tokens is not None:
                _reload_tokens(tokens, metrics)
        elif watch:
            reloader.poll()
    log.info("duetime shutting down")  # further signals are ignored until the end
    if http is not None:
        http.stop()
    dropped = running.stop()
    if dropped:
        log.warning("%d call(s) still running after the %g s grace period were cut off, "
                    "unanswered: one already writing its record when the ledger closed may "
                    "have been recorded (a retry with the same idempotency key returns it); "
                    "the others record nothing", dropped, running.grace)
    return dropped


def effective_settings(config: ServerConfig) -> dict[str, object]:
    """:meth:`ServerConfig.describe` with the defaults resolved that serving
    resolves: the ledger file (``db`` None: :func:`default_db_path`) and the
    calendar cache's size (None: ``$DUETIME_CALENDAR_CACHE`` or 1024). None
    means off: no bundles, no watch, no TLS, no tokens, no metrics listener
    (port and host), no HTTP listener, no origin or host name added to the
    HTTP face's own (``http_allow_origin``, ``http_allow_host``)."""
    shown = config.describe()
    if shown["db"] is None:
        shown["db"] = str(default_db_path())
    if shown["calendar_cache"] is None:
        shown["calendar_cache"] = calendar_cache_size_from_env()
    if not config.metrics_port:
        shown["metrics_port"] = shown["metrics_host"] = None
    if not config.http_port:
        shown["http_port"] = None
    return shown


class SignalWaiter:
    """The signals SIGINT, SIGTERM and SIGHUP, received by the main thread
    whichever thread the kernel hands them to.

    A process-directed signal goes to any thread that does not block it — often
    one of gRPC's own threads, which are busy while the main thread sleeps.
    Python runs its handler only once the main thread executes bytecode again,
    so a main thread asleep in ``Event.wait()`` would miss a SIGTERM taken by
    another thread until something else woke it. Here the C-level handler's
    write to a wakeup socket (:func:`signal.set_wakeup_fd`, written from
    whichever thread took the signal) wakes :meth:`wait`, which reads the
    signal numbers themselves from the socket. Use in the main thread, as a
    context manager. On leaving it the previous wakeup fd comes back but the
    three signals stay ignored: the process is ending, and a second SIGTERM,
    a Ctrl-C or a reload racing the stop must not cut its exit short.
    """

    SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)

    def __enter__(self) -> SignalWaiter:
        self._reader, self._writer = socket.socketpair()
        self._reader.setblocking(False)
        self._writer.setblocking(False)
        for signum in self.SIGNALS:
            signal.signal(signum, _noop_handler)
        self._previous_fd = signal.set_wakeup_fd(self._writer.fileno(),
                                                 warn_on_full_buffer=False)
        # a worker of `serve --workers N` is forked with them blocked, so that
        # one sent while it starts waits for this
        signal.pthread_sigmask(signal.SIG_UNBLOCK, self.SIGNALS)
        return self

    def __exit__(self, *_exc) -> None:
        for signum in self.SIGNALS:
            signal.signal(signum, signal.SIG_IGN)
        signal.set_wakeup_fd(self._previous_fd)
        self._reader.close()
        self._writer.close()

    def fileno(self) -> int:
        """The socket that turns readable when a signal came (to wait on it
        with others in ``select``; then :meth:`wait` ``(0)`` reads them)."""
        return self._reader.fileno()

    def wait(self, timeout: float | None) -> set[int]:
        """The signal numbers received, after waiting up to ``timeout`` s
        (None: until one comes) for the first; empty on timeout."""
        ready, _, _ = select.select([self._reader], [], [], timeout)
        received: set[int] = set()
        while ready:
            try:
                data = self._reader.recv(256)
            except (BlockingIOError, InterruptedError):
                break
            received.update(data)
            if len(data) < 256:
                break
        return received & set(self.SIGNALS)


def _noop_handler(_signum, _frame) -> None:
    """Keeps the default action (exit) away; :class:`SignalWaiter` acts on the signal."""


def _reload_tokens(tokens: TokenSet, metrics: Metrics | None = None) -> None:
    """Reread the token file (SIGHUP). A file without tokens revokes them
    all; a file that is refused (unreadable, a malformed line) keeps the old
    tokens, is logged as an error naming the line (never a token) and sets
    ``duetime_token_reload_failed`` to 1 until a reload succeeds."""
    try:
        tokens.reload()
    except TokenError as exc:
        log.error("token reload refused, the previous tokens stay in use: %s", exc.message)
        if metrics is not None:
            metrics.set_token_reload_failed(True)
        return
    if metrics is not None:
        metrics.set_token_reload_failed(False)
    if not len(tokens):
        log.warning("bearer tokens reloaded: %s holds no token, every token is revoked: "
                    "each call is refused UNAUTHENTICATED until a token is added",
                    tokens.path)
        return
    log.info("bearer tokens reloaded: %d token(s) from %s", len(tokens), tokens.path)
