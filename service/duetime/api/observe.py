"""Counting, timing and logging every gRPC call: :class:`CallObserver`.

The server's outermost interceptor, so it sees every call that reaches a
handler — answered, failed, refused for a missing token or stopped by the
call budget — and for each one, once it has finished:

- counts it in ``duetime_rpc_requests_total{method, code}`` and times it in
  ``duetime_rpc_duration_seconds{method}`` (see :mod:`duetime.metrics`;
  only when metrics are on);
- writes one request line (:func:`duetime.logs.log_call`): rpc, status code,
  latency_ms, record_id (when the answer has one), namespace (the one named,
  else the caller's default: :class:`ObservedContext`), reason (a refusal's
  ErrorInfo reason, when the call was ended with one), and peer when
  the call did not end OK (``context.peer()`` lets go of the GIL twice, which
  costs a busy server a thread switch each time: a call answered OK is not
  worth it, a refused or failed one is where the caller's address helps).

A call's status code is the one its handler ended it with
(``context.code()``): OK when it returned normally, UNKNOWN when it raised
without setting one, CANCELLED when the client went away first.
"""

from __future__ import annotations

import json
import logging
import re
import time

import grpc

from duetime.api.tracing import call_tracer
from duetime.app import NAMESPACE_METADATA
from duetime.logs import access_log, log_call
from duetime.metrics import Metrics

_MAX_NAMESPACE = 64


_NAMESPACE = re.compile(r"[A-Za-z0-9._-]{1,64}\Z")


def logged_namespace(metadata, default: str = "") -> str:
    """The namespace a call's log line shows: its first ``x-duetime-namespace``
    (call metadata, or HTTP headers: items with ``key`` and ``value``); one
    that is not a namespace (``A-Z a-z 0-9 . _ -``, 1–64 characters: the
    call refuses it) in JSON quotes, escaped (a space too), cut to 64
    characters, so that no caller can write `` reason=`` or a control
    character into a line;
    without one ``default`` (the caller's default namespace, the one such a
    call is made in; ``""`` when its caller is not known). Never raises."""
    for item in metadata or ():
        if item.key == NAMESPACE_METADATA and isinstance(item.value, str):
            value = item.value
            if _NAMESPACE.match(value):
                return value
            return json.dumps(value[:_MAX_NAMESPACE]).replace(" ", "\\u0020")
    return default


class ObservedContext:
    """The servicer context :class:`CallObserver` hands on: the call's own,
    plus the default namespace of its caller once authentication has found
    it (:meth:`note_caller`, called by :mod:`duetime.auth`), for the
    call's log line and span; everything else is the wrapped context's."""

    __slots__ = ("_context", "default_namespace", "reason", "known_peer")

    def __init__(self, context):
        self._context = context
        self.default_namespace = ""
        self.reason = ""
        self.known_peer = ""

    def note_peer(self, peer: str) -> None:
        """Remember the call's peer, read before the call was cancelled (then
        gRPC no longer knows it), for its log line."""
        self.known_peer = peer

    def note_caller(self, caller) -> None:
        """Remember ``caller``'s default namespace (a :class:`~duetime.api.callers.Caller`)."""
        self.default_namespace = caller.default

    def abort_with_status(self, status) -> None:
        """End the call with ``status``, remembering its ErrorInfo reason
        (a :class:`~duetime.api.status.RefusalStatus`'s) for the call's log
        line and metrics."""
        self.reason = getattr(status, "reason", "")
        self._context.abort_with_status(status)

    def __getattr__(self, name: str):
        return getattr(self._context, name)


def record_id_of(response) -> str:
    """The record id an answer carries (a recorded call's ``record_id``, or
    GetRecord's ``record.record_id``), ``""`` when none."""
    record_id = getattr(response, "record_id", None)
    if record_id is None:
        record = getattr(response, "record", None)
        record_id = getattr(record, "record_id", None)
    return record_id if isinstance(record_id, str) else ""


def _code(context: grpc.ServicerContext, default: str) -> str:
    code = context.code()
    if code is not None:
        return code.name
    if not context.is_active():
        return "CANCELLED"
    return default


class CallObserver(grpc.ServerInterceptor):
    """Counts (with ``metrics``) and logs (with ``log_calls``) every call
    (see the module docstring).

    The observed handler of a method is built once, the first time the
    method is called, and kept (one entry per method, replaced when the
    inner interceptors hand over another handler, e.g. a token refusal):
    a call costs a dictionary lookup here; its namespace (and peer) are
    read only when its line is written."""

    def __init__(self, metrics: Metrics | None = None, log_calls: bool = True):
        self.metrics = metrics
        self.log_calls = log_calls
        self._running: set = set()  # the contexts of the calls in a handler now
        self._observed: dict[str, tuple[grpc.RpcMethodHandler, grpc.RpcMethodHandler]] = {}
        self.tracer = call_tracer()  # None unless OTEL_* variables configure an exporter

    def calls_running(self) -> int:
        """How many calls are in a handler now (a set's size: each call adds
        and removes its own context, one GIL-atomic operation each, no lock)."""
        return len(self._running)

    def _finish(self, method: str, code: str, began: float, response,
                context: grpc.ServicerContext, observed: ObservedContext) -> None:
        seconds = time.perf_counter() - began
        if self.metrics is not None:
            self.metrics.observe_call(method, code, seconds, observed.reason)
        if self.log_calls and access_log.isEnabledFor(logging.INFO):
            log_call(method, code, seconds, record_id_of(response),
                     logged_namespace(context.invocation_metadata(),
                                      observed.default_namespace),
                     "" if code == "OK" else observed.known_peer or context.peer(),
                     observed.reason)
        if self.tracer is not None:
            self.tracer.grpc_call(method, code, seconds, record_id_of(response),
                                  logged_namespace(context.invocation_metadata(),
                                                   observed.default_namespace))

    def intercept_service(self, continuation, handler_call_details):
        handler = continuation(handler_call_details)
        if handler is None:  # no such method: gRPC answers UNIMPLEMENTED, uncounted
            return None
        method = handler_call_details.method
        known = self._observed.get(method)
        if known is not None and known[0] is handler:
            return known[1]
        observed = self._observe(handler, method)
        self._observed[method] = (handler, observed)  # one assignment: atomic
        return observed

    def _observe(self, handler: grpc.RpcMethodHandler, method: str) -> grpc.RpcMethodHandler:
        """``handler`` with its behaviour observed as ``method``."""
        if handler.response_streaming:
            kind = "stream_stream" if handler.request_streaming else "unary_stream"
            return handler._replace(**{kind: self._streaming(getattr(handler, kind), method)})
        kind = "stream_unary" if handler.request_streaming else "unary_unary"
        return handler._replace(**{kind: self._unary(getattr(handler, kind), method)})

    def _unary(self, behavior, method: str):
        finish = self._finish

        running = self._running

        def observed(request, context):
            began = time.perf_counter()
            inner = ObservedContext(context)
            running.add(context)
            try:
                response = behavior(request, inner)
            except BaseException:
                finish(method, _code(context, "UNKNOWN"), began, None, context, inner)
                raise
            finally:
                running.discard(context)
            finish(method, _code(context, "OK"), began, response, context, inner)
            return response

        return observed

    def _streaming(self, behavior, method: str):
        def observed(request, context):
            began = time.perf_counter()
            inner = ObservedContext(context)
            self._running.add(context)
            try:
                responses = behavior(request, inner)
            except BaseException:
                self._running.discard(context)
                self._finish(method, _code(context, "UNKNOWN"), began, None, context, inner)
                raise
            return self._stream(responses, method, began, context, inner)

        return observed

    def _stream(self, responses, method: str, began: float, context, inner: ObservedContext):
        code = "UNKNOWN"
        try:
            yield from responses
            code = _code(context, "OK")
        except GeneratorExit:
            code = "CANCELLED"
            raise
        except BaseException:
            code = _code(context, "UNKNOWN")
            raise
        finally:
            self._running.discard(context)
            self._finish(method, code, began, None, context, inner)
