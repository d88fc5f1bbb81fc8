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
  ``--max-message-bytes``; so does what reading them takes (JSON:
  :func:`duetime.api.http.json_reading_bytes`; protobuf:
  :meth:`InFlightBytes.take_message`, :mod:`duetime.api.wire`). With
  tenants, one tenant's count against :func:`tenant_share` of it. A request
  that would pass it is refused at once (:class:`InFlightBytesExhausted`:
  RESOURCE_EXHAUSTED, HTTP 503 with ``Retry-After``), one that never could
  is :class:`TooCostlyToRead` (413, not retryable); its bytes are dropped,
  the server stays up.
- **Calls per tenant** (:class:`TenantCalls`): with bearer tokens, the calls
  one tenant (the namespaces a token is bound to, joined with those of
  every token sharing one: tokens whose namespaces meet, such as a token
  and its replacement during a rotation, or a team's tokens of other
  scopes, are one tenant) has in flight over both faces
  are at most ``--tenant-calls``; one more is refused at once
  (:class:`TenantCallsExhausted`: RESOURCE_EXHAUSTED, HTTP 429 with
  ``Retry-After``), so one tenant cannot take every thread from the others.
  Without tokens every caller is the same one and no such bound applies.
- **Streams open** (:class:`StreamSlots`): a streaming gRPC call holds one of
  the server's threads for its whole life, however long its client keeps it
  open without sending, so at most :data:`STREAM_SLOTS` streams and
  :data:`WATCH_SLOTS` health Watch (half the threads) are served at once,
  whoever opens them (with tenants, at most ``STREAM_SLOTS - 1`` of one
  tenant's); one more is refused at once (:class:`StreamsExhausted`:
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
from duetime.api.wire import (
    MAX_COUNTED_VALUES,
    TooManyValues,
    cheap_bound,
    max_values,
    parsing_bytes,
)
from duetime.app.limits import MAX_BATCH_CALENDAR_WEIGHT
from duetime.core.errors import ErrorKind, FieldViolation, Refusal

IN_FLIGHT_SHARE = 3
"""The request bytes in flight may take ``1/IN_FLIGHT_SHARE`` of the memory budget."""
TENANT_SHARE = 2
"""With tenants, one tenant may hold at most ``1/TENANT_SHARE`` of the
request bytes in flight (:func:`tenant_share`)."""
RETRY_AFTER_SECONDS = 1
"""What a refusal of this module tells the caller to wait before it retries
(HTTP ``Retry-After``; ErrorInfo ``retry_after_seconds``)."""


def readable_bytes(value: int) -> str:
    """``value`` bytes for a person: ``8MiB`` when a whole number of KiB,
    MiB or GiB (as ``--memory-budget`` takes it), else ``42.7MiB``."""
    text = format_bytes(value)
    return text if text.endswith("iB") or value < (1 << 20) else f"{value / (1 << 20):.1f}MiB"


def in_flight_limit(memory_budget: int = DEFAULT_MEMORY_BUDGET,
                    max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES) -> int:
    """The bytes of requests a server may hold at once: a third of
    ``memory_budget``, at least ``max_message_bytes`` (so that one request
    of the largest size is always let in when nothing else is held)."""
    return max(memory_budget // IN_FLIGHT_SHARE, max_message_bytes)


def tenant_share(limit: int, max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES) -> int:
    """The request bytes one tenant may hold in flight when the server holds
    at most ``limit``: half of it, at least one message of
    ``max_message_bytes`` (so that a tenant holding nothing else is always
    let in with one request of the largest size)."""
    return max(limit // TENANT_SHARE, min(limit, max_message_bytes))


class InFlightBytesExhausted(Refusal):
    """A request whose bytes would take the server past its limit of request
    bytes in flight, or its tenant past its share of them (``tenant``;
    RESOURCE_EXHAUSTED; HTTP 503 with ``Retry-After``)."""

    kind = ErrorKind.BUSY
    reason = "IN_FLIGHT_BYTES_EXHAUSTED"
    retryable = True
    http_status = 503

    def __init__(self, size: int, held: int, limit: int, tenant: bool = False):
        who, bound = (("this token's requests are holding", "one tenant's share: half of the "
                       "server's, at least one message of --max-message-bytes") if tenant else
                      ("the server is holding", "a third of --memory-budget"))
        super().__init__(
            f"{who} {held} bytes of requests in flight and this request "
            f"brings {size} more; at most {limit} bytes ({readable_bytes(limit)}, {bound}) "
            f"may be in flight at once: retry in {RETRY_AFTER_SECONDS} s, "
            "or send smaller requests (a batch split in parts, or a stream)",
            metadata={"limit": "in-flight request bytes of one tenant" if tenant
                      else "in-flight request bytes", "limit_bytes": str(limit),
                      "request_bytes": str(size),
                      "retry_after_seconds": str(RETRY_AFTER_SECONDS)})
        self.size, self.held, self.limit = size, held, limit


class TooCostlyToRead(Refusal):
    """A request whose reading (JSON) or parsing (protobuf) would take more
    memory than the server may ever hold for requests in flight (413,
    RESOURCE_EXHAUSTED, REQUEST_TOO_LARGE, on ``field``; not retryable):
    ``text`` says what it is and how to fix it."""

    kind = ErrorKind.TOO_LARGE
    reason = "REQUEST_TOO_LARGE"

    def __init__(self, field: str, text: str, reading: int, limit: int,
                 metadata: dict[str, str] | None = None, tenant: bool = False):
        super().__init__(f"{field}: {text}",
                         violations=[FieldViolation(field, text, str(reading), str(limit))],
                         metadata=metadata or {
                             "limit": "in-flight request bytes of one tenant" if tenant
                             else "in-flight request bytes",
                             "limit_bytes": str(limit), "reading_bytes": str(reading)})


def message_too_costly(size: int, reading: int | None, limit: int,
                       tenant: bool = False) -> TooCostlyToRead:
    """The refusal of a gRPC request message of ``size`` bytes whose parsing
    would take ``reading`` bytes, over ``limit`` (one ``tenant``'s share);
    or (``reading`` None) that holds more than ``limit`` values."""
    fix = "send fewer or simpler values (a batch split in parts, or a stream)"
    if reading is None:
        return TooCostlyToRead(
            "request", f"is {size} bytes of protobuf that hold more than {limit} "
                       f"values (fields, list elements and sub-messages), more than any request "
                       f"within the server's limits: {fix}",
            limit + 1, limit, {"limit": "values in one message", "max_values": str(limit)})
    return TooCostlyToRead(
        "request", f"is {size} bytes of protobuf that would take about {reading} bytes of "
                   f"memory once parsed (counting each sub-message, string and list element), "
                   f"more than the {limit} bytes ({readable_bytes(limit)}) of requests in flight "
                   f"one caller may hold (a third of --memory-budget; with tokens, one tenant's "
                   f"share of that): {fix}",
        reading, limit, tenant=tenant)


class TenantCallsExhausted(Refusal):
    """A call of a tenant that already has as many calls in flight as one
    tenant may (RESOURCE_EXHAUSTED; HTTP 429 with ``Retry-After``)."""

    kind = ErrorKind.BUSY
    reason = "TENANT_CALLS_EXHAUSTED"
    retryable = True
    http_status = 429

    def __init__(self, limit: int):
        super().__init__(
            f"the tokens of this tenant (its namespaces) already have {limit} "
            f"call{'' if limit == 1 else 's'} in flight, the most one tenant may have at "
            f"once (--tenant-calls {limit}): wait for one of them to end and retry (in about "
            f"{RETRY_AFTER_SECONDS} s), or send fewer calls at a time",
            metadata={"limit": "--tenant-calls", "tenant_calls": str(limit),
                      "retry_after_seconds": str(RETRY_AFTER_SECONDS)})
        self.limit = limit


class _PerTenant(dict):
    """An amount per tenant (of a :class:`~duetime.api.callers.Caller`: its
    :attr:`~duetime.api.callers.Caller.tenant`), kept only while above zero.
    Not locked: its owner's lock guards it."""

    __slots__ = ()

    def of(self, caller: Caller) -> int:
        """What ``caller``'s tenant holds now (0: nothing)."""
        return self.get(caller.tenant, 0)

    def add(self, caller: Caller, amount: int) -> None:
        """``amount`` more for ``caller``'s tenant (negative: less); forgotten at zero."""
        tenant = caller.tenant
        left = self.get(tenant, 0) + amount
        if left:
            self[tenant] = left
        else:
            self.pop(tenant, None)


class InFlightBytes:
    """The bytes of requests one server holds, at most ``limit`` together
    (see :func:`in_flight_limit`), and, with ``tenant_limit``, at most that
    many of one tenant's (0: no share; see :meth:`limit_for`); a gRPC
    message is counted up to ``max_values`` values (:meth:`take_message`). Thread-safe;
    :meth:`take` and :meth:`release` are a lock and an addition or two each."""

    __slots__ = ("limit", "tenant_limit", "max_values", "_held", "_tenants", "_lock", "_passed")

    def __init__(self, limit: int, tenant_limit: int = 0, max_values: int = MAX_COUNTED_VALUES):
        self.limit = limit
        self.tenant_limit = tenant_limit
        self.max_values = max_values
        self._held = 0
        self._passed = 0
        self._tenants = _PerTenant()
        self._lock = threading.Lock()

    @property
    def held(self) -> int:
        """The bytes held now."""
        return self._held

    @property
    def passed(self) -> int:
        """The bytes counted so far, taken or refused (it only grows): how
        much request memory came and went (:class:`duetime.api.server.FreedMemory`)."""
        return self._passed

    def _refused(self, size: int) -> None:
        with self._lock:
            self._passed += size

    def held_by(self, tenant: Caller) -> int:
        """The bytes ``tenant`` holds now (0 without a share)."""
        return self._tenants.of(tenant)

    def limit_for(self, tenant: Caller | None) -> int:
        """The most bytes ``tenant``'s requests may hold together: the share
        when there is one and ``tenant`` is given, else :attr:`limit`."""
        return self.tenant_limit if tenant is not None and self.tenant_limit else self.limit

    def take(self, size: int, tenant: Caller | None = None) -> None:
        """Count ``size`` more bytes held (by ``tenant``, None: no one's);
        InFlightBytesExhausted (nothing counted) when they would take the
        total past :attr:`limit`, or the tenant's past its share."""
        with self._lock:
            held = self._held
            if held + size > self.limit:
                raise InFlightBytesExhausted(size, held, self.limit)
            if tenant is not None and self.tenant_limit:
                mine = self._tenants.of(tenant)
                if mine + size > self.tenant_limit:
                    raise InFlightBytesExhausted(size, mine, self.tenant_limit, tenant=True)
            self._count(size, tenant)

    def take_anyway(self, size: int, tenant: Caller | None = None) -> None:
        """Count ``size`` more bytes held (by ``tenant``) even past the limits:
        memory already taken (an answer handed to gRPC and not yet sent),
        so that further requests are refused until it is released."""
        with self._lock:
            self._count(size, tenant)

    def _count(self, size: int, tenant: Caller | None) -> None:
        """``size`` more bytes held, and passed (the caller holds the lock)."""
        if tenant is not None and self.tenant_limit:
            self._tenants.add(tenant, size)
        self._held += size
        self._passed += size

    def release(self, size: int, tenant: Caller | None = None) -> None:
        """Count ``size`` bytes (taken before, for ``tenant``) no longer held."""
        with self._lock:
            self._held -= size
            if tenant is not None and self.tenant_limit:
                self._tenants.add(tenant, -size)

    def take_message(self, data: bytes, descriptor, tenant: Caller | None = None) -> int:
        """Count a gRPC request message's bytes ``data`` and what parsing
        them as a ``descriptor`` message may take held (by ``tenant``),
        before it is parsed; returns the bytes counted (to :meth:`release`
        when the message is dropped). First at
        :func:`~duetime.api.wire.cheap_bound`; when that does not fit, at
        what :func:`~duetime.api.wire.parsing_bytes` counts. Raises
        TooCostlyToRead when the count can never fit (or the message holds
        too many values), InFlightBytesExhausted when it does not fit now;
        nothing is counted then."""
        size = len(data)
        limit = self.limit_for(tenant)
        free = self.limit - self._held  # read without the lock: take() checks again
        if tenant is not None and self.tenant_limit:
            free = min(free, limit - self._tenants.of(tenant))
        cheap = cheap_bound(size)
        if cheap <= free:
            try:
                self.take(cheap, tenant)
                return cheap
            except InFlightBytesExhausted:
                pass
        try:
            reading = size + parsing_bytes(data, descriptor, limit - size, self.max_values)
        except TooManyValues:
            self._refused(size)
            raise message_too_costly(size, None, self.max_values) from None
        if reading > limit:
            self._refused(size)
            raise message_too_costly(size, reading, limit, limit != self.limit)
        try:
            self.take(reading, tenant)
        except InFlightBytesExhausted:
            self._refused(size)
            raise
        return reading


class TenantCalls:
    """The calls each tenant (a :class:`~duetime.api.callers.Caller`) has in
    flight, at most ``limit`` each (0: no bound). Thread-safe."""

    __slots__ = ("limit", "_calls", "_lock")

    def __init__(self, limit: int = 0):
        self.limit = limit
        self._calls = _PerTenant()
        self._lock = threading.Lock()

    def in_flight(self, caller: Caller) -> int:
        """How many calls ``caller`` has in flight now."""
        return self._calls.of(caller)

    def enter(self, caller: Caller) -> None:
        """Count one more call of ``caller``; TenantCallsExhausted (nothing
        counted) when it has :attr:`limit` already."""
        if not self.limit:
            return
        with self._lock:
            if self._calls.of(caller) >= self.limit:
                raise TenantCallsExhausted(self.limit)
            self._calls.add(caller, 1)

    def leave(self, caller: Caller) -> None:
        """Count one call of ``caller`` (entered before) ended."""
        if not self.limit:
            return
        with self._lock:
            self._calls.add(caller, -1)

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

    def __init__(self, limit: int, tenant: bool = False):
        who = (f"the tokens of this tenant (its namespaces) already have {limit} streams open, "
               f"the most one tenant may have at once (so that another always has one)"
               if tenant else
               f"the server has {limit} streams open, the most it serves at once")
        super().__init__(
            f"{who} (each holds one of "
            f"its threads for as long as its client keeps it open): retry in about "
            f"{RETRY_AFTER_SECONDS} s, close streams you do not use, or send a batch "
            "(BatchComputeDueTimes)",
            metadata={"limit": "streams open of one tenant" if tenant else "streams open",
                      "streams": str(limit), "retry_after_seconds": str(RETRY_AFTER_SECONDS)})
        self.limit = limit


class StreamSlots:
    """Streaming calls open at once, at most ``limit``; with ``tenant_limit``,
    at most that many of one tenant's (0: no share). Thread-safe."""

    __slots__ = ("limit", "tenant_limit", "_open", "_tenants", "_lock")

    def __init__(self, limit: int = STREAM_SLOTS, tenant_limit: int = 0):
        self.limit = limit
        self.tenant_limit = tenant_limit
        self._open = 0
        self._tenants = _PerTenant()
        self._lock = threading.Lock()

    @property
    def open(self) -> int:
        return self._open

    def enter(self, tenant: Caller | None = None) -> None:
        """Count one more open stream (of ``tenant``); StreamsExhausted
        (nothing counted) at :attr:`limit`, or at the tenant's share."""
        with self._lock:
            if self._open >= self.limit:
                raise StreamsExhausted(self.limit)
            if tenant is not None and self.tenant_limit:
                if self._tenants.of(tenant) >= self.tenant_limit:
                    raise StreamsExhausted(self.tenant_limit, tenant=True)
                self._tenants.add(tenant, 1)
            self._open += 1

    def leave(self, tenant: Caller | None = None) -> None:
        """Count one stream (entered before, of ``tenant``) closed."""
        with self._lock:
            self._open -= 1
            if tenant is not None and self.tenant_limit:
                self._tenants.add(tenant, -1)


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
           tenant_calls: int = 0,
           max_batch_calendar_weight: int = MAX_BATCH_CALENDAR_WEIGHT) -> Admission:
        """The admission of a server with these settings: request bytes in
        flight at most :func:`in_flight_limit` of them; ``tenant_calls``
        calls in flight per tenant (0: no bound; a server without tokens
        passes 0), and then each tenant's request bytes in flight at most
        :func:`tenant_share` of the server's; a gRPC message counted up to
        :func:`~duetime.api.wire.max_values` of ``max_batch_calendar_weight``."""
        limit = in_flight_limit(memory_budget, max_message_bytes)
        share = tenant_share(limit, max_message_bytes) if tenant_calls else 0
        return cls(InFlightBytes(limit, share, max_values(max_batch_calendar_weight)),
                   TenantCalls(tenant_calls),
                   StreamSlots(STREAM_SLOTS, STREAM_SLOTS - 1 if tenant_calls else 0))


def retry_after(exc: BaseException) -> dict[str, str] | None:
    """The HTTP headers an answer refusing with ``exc`` adds: ``Retry-After``
    for a refusal of this module (the server was busy), else None."""
    if isinstance(exc, Refusal) and exc.kind is ErrorKind.BUSY:
        return {"Retry-After": str(RETRY_AFTER_SECONDS)}
    return None
