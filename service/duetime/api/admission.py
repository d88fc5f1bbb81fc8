"""What one server lets in at once, beside each call's own limits
(:mod:`duetime.api.calls`): the bytes of the requests it holds, and the
calls each tenant has in flight. One :class:`Admission` is built per server
(:func:`duetime.api.server.start_server`) and shared by its gRPC servicers
and its HTTP/JSON face, so both count against the same bounds; two servers
in one process keep their own.

- **Request bytes in flight** (:class:`InFlightBytes`): the bytes of HTTP
  request bodies, as they are read (never from a ``Content-Length`` that
  only announces them) until the call's answer is computed, and of gRPC
  request messages, from when gRPC hands them over (before they are parsed)
  until the call ends, count against :func:`in_flight_limit`: a third of
  ``--memory-budget``, never less than one message of
  ``--max-message-bytes``. A request that would pass it is refused at once
  (:class:`InFlightBytesExhausted`: RESOURCE_EXHAUSTED, HTTP 503 with
  ``Retry-After``); its bytes are dropped, the server stays up.
- **Calls per tenant** (:class:`TenantCalls`): with bearer tokens, the calls
  one tenant (a token's namespaces, scopes and default namespace: tokens
  with the same ones, such as a token and its replacement during a
  rotation, are one tenant) has in flight over both faces are at most
  ``--tenant-calls``; one more is refused at once
  (:class:`TenantCallsExhausted`: RESOURCE_EXHAUSTED, HTTP 429 with
  ``Retry-After``), so one tenant cannot take every thread from the others.
  Without tokens every caller is the same one and no such bound applies.
- **Streams open** (:class:`StreamSlots`): a streaming gRPC call holds one of
  the server's threads for its whole life, however long its client keeps it
  open without sending, so at most :data:`STREAM_SLOTS` streams and
  :data:`WATCH_SLOTS` health Watch (half the threads) are served at once,
  whoever opens them; one more is refused at once (:class:`StreamsExhausted`:
  RESOURCE_EXHAUSTED, retry), and unary calls always have the other threads.

See docs/operations.md, "Memory" and "Limits".
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from duetime.api.callers import Caller
from duetime.config import (
    DEFAULT_MAX_MESSAGE_BYTES,
    DEFAULT_TENANT_CALLS,
    format_bytes,
)
from duetime.app.calendars import DEFAULT_MEMORY_BUDGET
from duetime.core.errors import ErrorKind, Refusal

IN_FLIGHT_SHARE = 3
"""The request bytes in flight may take ``1/IN_FLIGHT_SHARE`` of the memory budget."""
RETRY_AFTER_SECONDS = 1
"""What a refusal of this module tells the caller to wait before it retries
(HTTP ``Retry-After``; ErrorInfo ``retry_after_seconds``)."""


def in_flight_limit(memory_budget: int = DEFAULT_MEMORY_BUDGET,
                    max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES) -> int:
    """The bytes of requests a server may hold at once: a third of
    ``memory_budget``, at least ``max_message_bytes`` (so that one request
    of the largest size is always let in when nothing else is held)."""
    return max(memory_budget // IN_FLIGHT_SHARE, max_message_bytes)


class InFlightBytesExhausted(Refusal):
    """A request whose bytes would take the server past its limit of request
    bytes in flight (RESOURCE_EXHAUSTED; HTTP 503 with ``Retry-After``)."""

    kind = ErrorKind.BUSY
    reason = "IN_FLIGHT_BYTES_EXHAUSTED"
    retryable = True
    http_status = 503

    def __init__(self, size: int, held: int, limit: int):
        super().__init__(
            f"the server is holding {held} bytes of requests in flight and this request "
            f"brings {size} more; at most {limit} bytes ({format_bytes(limit)}, a third of "
            f"--memory-budget) may be in flight at once: retry in {RETRY_AFTER_SECONDS} s, "
            "or send smaller requests (a batch split in parts, or a stream)",
            metadata={"limit": "in-flight request bytes", "limit_bytes": str(limit),
                      "request_bytes": str(size),
                      "retry_after_seconds": str(RETRY_AFTER_SECONDS)})
        self.size, self.held, self.limit = size, held, limit


class TenantCallsExhausted(Refusal):
    """A call of a tenant that already has as many calls in flight as one
    tenant may (RESOURCE_EXHAUSTED; HTTP 429 with ``Retry-After``)."""

    kind = ErrorKind.BUSY
    reason = "TENANT_CALLS_EXHAUSTED"
    retryable = True
    http_status = 429

    def __init__(self, limit: int):
        super().__init__(
            f"this token already has {limit} call{'' if limit == 1 else 's'} in flight, the most "
            f"one tenant may have at "
            f"once (--tenant-calls {limit}): wait for one of them to end and retry (in about "
            f"{RETRY_AFTER_SECONDS} s), or send fewer calls at a time",
            metadata={"limit": "--tenant-calls", "tenant_calls": str(limit),
                      "retry_after_seconds": str(RETRY_AFTER_SECONDS)})
        self.limit = limit


class InFlightBytes:
    """The bytes of requests one server holds, at most ``limit`` together
    (see :func:`in_flight_limit`). Thread-safe; :meth:`take` and
    :meth:`release` are a lock and an addition each."""

    __slots__ = ("limit", "_held", "_lock")

    def __init__(self, limit: int):
        self.limit = limit
        self._held = 0
        self._lock = threading.Lock()

    @property
    def held(self) -> int:
        """The bytes held now."""
        return self._held

    def take(self, size: int) -> None:
        """Count ``size`` more bytes held; InFlightBytesExhausted (nothing
        counted) when they would take the total past :attr:`limit`."""
        with self._lock:
            held = self._held
            if held + size > self.limit:
                raise InFlightBytesExhausted(size, held, self.limit)
            self._held = held + size

    def release(self, size: int) -> None:
        """Count ``size`` bytes (taken before) no longer held."""
        with self._lock:
            self._held -= size


class TenantCalls:
    """The calls each tenant (a :class:`~duetime.api.callers.Caller`) has in
    flight, at most ``limit`` each (0: no bound). Thread-safe."""

    __slots__ = ("limit", "_calls", "_lock")

    def __init__(self, limit: int = 0):
        self.limit = limit
        self._calls: dict[Caller, int] = {}
        self._lock = threading.Lock()

    def in_flight(self, caller: Caller) -> int:
        """How many calls ``caller`` has in flight now."""
        return self._calls.get(caller, 0)

    def enter(self, caller: Caller) -> None:
        """Count one more call of ``caller``; TenantCallsExhausted (nothing
        counted) when it has :attr:`limit` already."""
        if not self.limit:
            return
        with self._lock:
            calls = self._calls.get(caller, 0)
            if calls >= self.limit:
                raise TenantCallsExhausted(self.limit)
            self._calls[caller] = calls + 1

    def leave(self, caller: Caller) -> None:
        """Count one call of ``caller`` (entered before) ended."""
        if not self.limit:
            return
        with self._lock:
            calls = self._calls[caller] - 1
            if calls:
                self._calls[caller] = calls
            else:
                del self._calls[caller]

    @contextmanager
    def call(self, caller: Caller) -> Iterator[None]:
        """:meth:`enter` for the ``with`` block, :meth:`leave` after it."""
        self.enter(caller)
        try:
            yield
        finally:
            self.leave(caller)


STREAM_SLOTS = 3
"""Streaming gRPC calls one server serves at once (StreamComputeDueTimes and
reflection), beside :data:`WATCH_SLOTS` health Watch streams: together half
of its 8 threads, each of which such a call holds for its whole life,
however long its client keeps it open without sending; the other half
always answer unary calls."""
WATCH_SLOTS = 1
"""Health Watch streams one server serves at once. Watch needs no token, so
it has a slot of its own: a client without a token cannot take the streams
of the tenants (load balancers and probes ask Check, which is unary)."""


class StreamsExhausted(Refusal):
    """A streaming call while :data:`STREAM_SLOTS` are open already
    (RESOURCE_EXHAUSTED, retry)."""

    kind = ErrorKind.BUSY
    reason = "STREAMS_EXHAUSTED"
    retryable = True

    def __init__(self, limit: int):
        super().__init__(
            f"the server has {limit} streams open, the most it serves at once (each holds one of "
            f"its threads for as long as its client keeps it open): retry in about "
            f"{RETRY_AFTER_SECONDS} s, close streams you do not use, or send a batch "
            "(BatchComputeDueTimes)",
            metadata={"limit": "streams open", "streams": str(limit),
                      "retry_after_seconds": str(RETRY_AFTER_SECONDS)})
        self.limit = limit


class StreamSlots:
    """Streaming calls open at once, at most ``limit``. Thread-safe."""

    __slots__ = ("limit", "_open", "_lock")

    def __init__(self, limit: int = STREAM_SLOTS):
        self.limit = limit
        self._open = 0
        self._lock = threading.Lock()

    @property
    def open(self) -> int:
        return self._open

    def enter(self) -> None:
        """Count one more open stream; StreamsExhausted (nothing counted) at :attr:`limit`."""
        with self._lock:
            if self._open >= self.limit:
                raise StreamsExhausted(self.limit)
            self._open += 1

    def leave(self) -> None:
        """Count one stream (entered before) closed."""
        with self._lock:
            self._open -= 1


@dataclass
class Admission:
    """What one server lets in at once: ``in_flight``, its request bytes
    held, ``tenants``, each tenant's calls in flight, ``streams``, the
    streaming calls open, and ``watches``, the health Watch streams open
    (see the module docstring)."""

    in_flight: InFlightBytes
    tenants: TenantCalls
    streams: StreamSlots = field(default_factory=StreamSlots)
    watches: StreamSlots = field(default_factory=lambda: StreamSlots(WATCH_SLOTS))

    @classmethod
    def of(cls, memory_budget: int = DEFAULT_MEMORY_BUDGET,
           max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
           tenant_calls: int = 0) -> Admission:
        """The admission of a server with these settings: request bytes in
        flight at most :func:`in_flight_limit` of them; ``tenant_calls``
        calls in flight per tenant (0: no bound; a server without tokens
        passes 0)."""
        return cls(InFlightBytes(in_flight_limit(memory_budget, max_message_bytes)),
                   TenantCalls(tenant_calls))


def retry_after(exc: BaseException) -> dict[str, str] | None:
    """The HTTP headers an answer refusing with ``exc`` adds: ``Retry-After``
    for a refusal of this module (the server was busy), else None."""
    if isinstance(exc, Refusal) and exc.kind is ErrorKind.BUSY:
        return {"Retry-After": str(RETRY_AFTER_SECONDS)}
    return None
