"""The recorded path, written once: idempotency, compute, record, return.

(``docs/semantics.md``, "Records".)

Every computing call takes it, alone (:meth:`RecordedPath.call`) or in a batch
(:meth:`RecordedPath.call_many`). The path does not know the wire: a
:class:`RecordedMethod`, implemented beside the transports and handed to the
app by the composition root, says for one method how a request is answered
(through the use cases of :mod:`duetime.app.answers`, with the calendars of an
:class:`Answering`), and how request and response are written into a record
and read back from one. Records hold those canonical bytes, so a replay
compares requests byte for byte and returns the first response unchanged.

:class:`LedgerGate` counts the ledger's users, so that closing the app waits
for them and a call that reaches the ledger afterwards gets
:class:`ShuttingDown`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from functools import partial
from datetime import datetime, timedelta, timezone
from typing import Any, NamedTuple, Protocol

from duetime.app.calendars import (
    BatchCalendars,
    CalendarRequest,
    CalendarResolver,
    ResolvedCalendar,
)
from duetime.app.call_deadline import BudgetExceeded, CallDeadline
from duetime.app.limits import Limits, check_key, check_namespace
from duetime.catalog import Catalog
from duetime.core import ErrorKind, FieldViolation, InvalidArgument, Refusal
from duetime.ledger import (
    GroupCommit,
    Ledger,
    LedgerRow,
    LedgerUnavailable,
    RowBuilder,
    new_record_id,
    new_record_ids,
)

_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


class AlreadyExists(Refusal):
    """The idempotency key is already recorded (in ``namespace``) for a different request."""

    kind = ErrorKind.DUPLICATE
    reason = "IDEMPOTENCY_KEY_REUSED"

    def __init__(self, key: str, namespace: str = ""):
        where = f" in namespace {namespace!r}" if namespace else ""
        super().__init__(
            f"idempotency key {key!r} was already used{where} with a different request",
            violations=[FieldViolation("idempotency_key", f"was already used{where} with a "
                                       "different request; a new request needs a new key", key)],
            metadata={"idempotency_key": key, **({"namespace": namespace} if namespace else {})})
        self.key = key
        self.namespace = namespace


class ShuttingDown(Refusal):
    """The app was closed while the call was running: nothing was recorded or answered."""

    kind = ErrorKind.RETRY_LATER
    reason = "SHUTTING_DOWN"
    retryable = True

    def __init__(self) -> None:
        super().__init__("the server is shutting down; nothing was recorded or answered, retry")


class Answering:
    """What one call (or one batch) answers from: the catalog read once at
    its start, the app's limits, and its calendars: through the app's cache,
    or for a batch (``batch``) each distinct calendar resolved once.
    ``check`` (None: none): the call's cooperative deadline check, called
    while a calendar is built."""

    __slots__ = ("catalog", "limits", "check", "_resolver", "_batch")

    def __init__(self, catalog: Catalog, limits: Limits, resolver: CalendarResolver,
                 batch: bool = False, check: Callable[[], None] | None = None):
        self.catalog = catalog
        self.limits = limits
        self.check = check
        self._resolver = resolver
        resolve = resolver.resolve if check is None else partial(resolver.resolve, check=check)
        self._batch = BatchCalendars(resolve, catalog.bundles) if batch else None

    def settle(self) -> None:
        """For a batch: settle each distinct calendar it used, once (see
        :meth:`BatchCalendars.settle`); a single call's calendar settles
        after its computation, so nothing is left to do."""
        if self._batch is not None:
            self._batch.settle()

    def calendar(self, cal: CalendarRequest) -> ResolvedCalendar:
        """The resolved ``cal`` (see :meth:`CalendarResolver.resolve`)."""
        if self._batch is not None:
            return self._batch.resolve(cal)
        if self.check is None:
            return self._resolver.resolve(cal, self.catalog.bundles)
        return self._resolver.resolve(cal, self.catalog.bundles, self.check)


class RecordedResponse(NamedTuple):
    """What a record keeps of a response: its canonical bytes and the
    versions it was computed under."""

    data: bytes
    calendar_version: str
    rules_version: str
    tzdata_version: str


class RecordedMethod(Protocol):
    """One recorded method as the recorded path sees it (a port; the
    transports' implementation is :mod:`duetime.api.convert`).

    ``name``: the full method name records store (``/duetime.v1.DueTimeService/ComputeDueTime``);
    ``rpc``: its short name. Requests and responses are the transport's
    messages, opaque here.
    """

    name: str
    rpc: str

    def idempotency_key(self, request: Any) -> str:
        """The request's idempotency key ("" for none)."""

    def request_bytes(self, request: Any) -> bytes:
        """The request's canonical bytes, as recorded and compared on replay."""

    def same_request(self, recorded: bytes, request_bytes: bytes) -> bool:
        """Whether a record's stored request bytes and a request's canonical
        bytes are the same request."""

    def answer(self, request: Any, answering: Answering) -> Any:
        """The response to ``request``, unrecorded (no record id). Raises the
        domain errors (InvalidArgument, OutOfRange, FailedPrecondition)."""

    def recorded(self, response: Any, record_id: str) -> RecordedResponse:
        """Give ``response`` its ``record_id``; its record's bytes and versions."""

    def replayed(self, data: bytes) -> Any:
        """The response whose canonical bytes are ``data`` (a record's)."""


def to_us(instant: datetime) -> int:
    """Microseconds since the Unix epoch of an aware datetime."""
    return (instant - _EPOCH) // timedelta(microseconds=1)


class LedgerGate:
    """The ledger, shared between calls and :meth:`close`: counts the ledger
    uses and the recorded calls in progress. Thread-safe.

    ``on_unavailable``: called with the error whenever a ledger call raises
    LedgerUnavailable (the server's health check listens).
    """

    def __init__(self, ledger: Ledger,
                 on_unavailable: Callable[[LedgerUnavailable], None] | None = None):
        self.ledger = ledger
        self.on_unavailable = on_unavailable
        self._gate = threading.Condition(threading.Lock())
        self._using = 0  # ledger calls in progress
        self._running = 0  # recorded calls in progress
        self._closed = False

    def enter(self) -> Ledger:
        """Count one ledger use; ShuttingDown once :meth:`close` began."""
        with self._gate:
            if self._closed:
                raise ShuttingDown()
            self._using += 1
        return self.ledger

    def leave(self) -> None:
        """End one ledger use begun by :meth:`enter`."""
        with self._gate:
            self._using -= 1
            if self._closed:  # close() is waiting for the count to reach 0
                self._gate.notify_all()

    def report(self, exc: LedgerUnavailable) -> None:
        """Tell ``on_unavailable`` about ``exc``."""
        if self.on_unavailable is not None:
            self.on_unavailable(exc)

    def use(self) -> LedgerGate:
        """The ledger for one short use (``with gate.use() as ledger: ...``);
        raises ShuttingDown once :meth:`close` began, and reports
        LedgerUnavailable to ``on_unavailable``."""
        return self

    # A plain context manager, not a generator: every recorded call uses it.
    def __enter__(self) -> Ledger:
        return self.enter()

    def __exit__(self, kind, exc, traceback) -> None:
        try:
            if kind is not None and issubclass(kind, LedgerUnavailable):
                self.report(exc)
        finally:
            self.leave()

    def begin_call(self) -> None:
        """Count a recorded call as running (see :meth:`close`) until :meth:`end_call`."""
        with self._gate:
            self._running += 1

    def end_call(self) -> None:
        """End a recorded call begun by :meth:`begin_call`."""
        with self._gate:
            self._running -= 1

    def close(self, timeout: float) -> int:
        """Refuse further ledger use, wait (up to ``timeout`` s) for the ledger
        uses in progress, then close the ledger. Returns how many recorded
        calls were still running."""
        with self._gate:
            self._closed = True
            self._gate.wait_for(lambda: self._using == 0, timeout)
            running = self._running
        self.ledger.close()
        return running


class RecordedPath:
    """Idempotency, compute, record, return: the one path of every recorded
    call, over ``gate``'s ledger (rows stored through a
    :class:`~duetime.ledger.GroupCommit`: concurrent calls share one
    transaction). ``answering(batch, check=...)`` gives what a call answers
    from."""

    def __init__(self, gate: LedgerGate, answering: Callable[..., Answering], limits: Limits):
        self.gate = gate
        self.limits = limits
        self._answering = answering
        self._commit = GroupCommit(gate.ledger)

    def call(self, method: RecordedMethod, request: Any, received_at: datetime,
             namespace: str = "", deadline: CallDeadline | None = None) -> Any:
        """Compute ``request``, record, then return the answer.

        ``received_at`` is the aware instant the call arrived; ``namespace``
        the caller's (see :func:`check_namespace`), which scopes the key. With
        a non-empty idempotency key: a request equal (byte for byte,
        canonically serialized) to the one first recorded under that key in
        that namespace returns the first response, record id included,
        without computing or recording again; a different request (another
        method's included) raises AlreadyExists. Raises also InvalidArgument,
        OutOfRange, FailedPrecondition, LedgerUnavailable and ShuttingDown.

        ``deadline`` (None: none) is checked once the answer is computed,
        before it is recorded: past it, BudgetExceeded and nothing recorded.
        """
        gate = self.gate
        gate.begin_call()
        try:
            answering = self._answering(
                False, check=deadline.check if deadline is not None else None)
            key = method.idempotency_key(request)
            if key:
                check_key(key, self.limits)
            if namespace:
                check_namespace(namespace)
            request_bytes = method.request_bytes(request)
            if key:
                with gate.use() as ledger:
                    prior = ledger.get_by_key(key, namespace)
                if prior is not None:
                    return self._replay(method, prior, request_bytes)
            response = method.answer(request, answering)
            record_id = new_record_id()
            recorded = method.recorded(response, record_id)
            row = LedgerRow.create(
                record_id=record_id, method=method.name, receive_time_us=to_us(received_at),
                idempotency_key=key, request=request_bytes, response=recorded.data,
                calendar_version=recorded.calendar_version,
                rules_version=recorded.rules_version, tzdata_version=recorded.tzdata_version,
                namespace=namespace)
            if deadline is not None:
                deadline.check()
            with gate.use():
                stored = self._commit.put(row)
            if stored.record_id != row.record_id:  # a concurrent call with the key won the race
                return self._replay(method, stored, request_bytes)
            return response
        finally:
            gate.end_call()

    def call_many(self, method: RecordedMethod, requests: Sequence[Any], received_at: datetime,
                  namespace: str = "", deadline: CallDeadline | None = None) -> list[Any | Exception]:
        """Answer each of ``requests`` as :meth:`call` would answer it alone,
        recording every new answer in ONE ledger transaction (one
        :meth:`~duetime.ledger.Ledger.put_many`, through the group commit:
        shared with the calls and batches committing at the same moment)
        before returning any.

        Returns, per request and in order, its response or its own error
        (InvalidArgument, OutOfRange, AlreadyExists, or any unexpected
        exception, which the server reports as INTERNAL). An item's
        idempotency key works as for a single call, also against an earlier
        item of the same batch. Raises (for the whole batch: nothing is
        answered) InvalidArgument on a bad ``namespace``, LedgerUnavailable
        and ShuttingDown. At most ``limits.max_batch_items`` requests (the
        callers check, naming their field).

        ``deadline`` (None: none) is checked before each item is computed and
        once more before the batch is recorded: past it, the batch stops
        there with BudgetExceeded and nothing of it is recorded.

        The work per batch, not per item: the keys are looked up in one
        ledger query (:meth:`~duetime.ledger.Ledger.get_by_keys`); each
        distinct calendar is resolved once, and measured in the calendar
        cache once (:class:`BatchCalendars`); the record ids come from one
        random read (:func:`~duetime.ledger.new_record_ids`).

        The same as ``prepare_many(...).commit()``.
        """
        return self.prepare_many(method, requests, received_at, namespace, deadline).commit()

    def prepare_many(self, method: RecordedMethod, requests: Sequence[Any],
                     received_at: datetime, namespace: str = "",
                     deadline: CallDeadline | None = None) -> PreparedBatch:
        """The first half of :meth:`call_many`: look the keys up, compute
        every answer and its row, check ``deadline`` once more; nothing is
        recorded or answered until :meth:`PreparedBatch.commit`, which must
        follow (it ends the call :meth:`LedgerGate.close` counts). Raises
        what call_many raises for the whole batch before recording
        (InvalidArgument on ``namespace``, BudgetExceeded, CallerGone,
        LedgerUnavailable, ShuttingDown).

        A stream commits one batch while it computes the next: commit them
        in the order they were prepared, so that a key sent again in a later
        batch is answered from the earlier one."""
        check_namespace(namespace)
        self.gate.begin_call()
        try:
            results, pending = self._prepare_many(method, requests, received_at, namespace,
                                                  deadline)
        except BaseException:
            self.gate.end_call()
            raise
        return PreparedBatch(self, method, results, pending)

    def _prepare_many(self, method: RecordedMethod, requests: Sequence[Any],
                      received_at: datetime, namespace: str, deadline: CallDeadline | None,
                      ) -> tuple[list[Any | Exception | None], list[tuple[int, LedgerRow, Any]]]:
        check = deadline.check if deadline is not None else None
        answering = self._answering(True, check=check)
        results: list[Any | Exception | None] = [None] * len(requests)
        idempotency_key = method.idempotency_key
        keys = [idempotency_key(request) for request in requests]
        keyed: dict[str, list[int]] = {}
        for i, key in enumerate(keys):
            if key:
                try:
                    check_key(key, self.limits)
                except InvalidArgument as exc:
                    results[i] = exc
                    continue
                keyed.setdefault(key, []).append(i)
        if keyed:
            with self.gate.use() as ledger:
                held = ledger.get_by_keys(list(keyed), namespace)
            for key, prior in held.items():
                for i in keyed[key]:
                    try:
                        results[i] = self._replay(method, prior,
                                                  method.request_bytes(requests[i]))
                    except AlreadyExists as exc:
                        results[i] = exc
        todo = [i for i, result in enumerate(results) if result is None]
        rows = RowBuilder(method.name, to_us(received_at), namespace)
        row, answer, recorded, request_bytes = (
            rows.row, method.answer, method.recorded, method.request_bytes)
        pending: list[tuple[int, LedgerRow, Any]] = []
        add = pending.append
        try:
            for i, record_id in zip(todo, new_record_ids(len(todo)), strict=True):
                if check is not None:
                    check()
                request = requests[i]
                try:
                    response = answer(request, answering)
                    data, calendar_version, rules_version, tzdata_version = recorded(
                        response, record_id)
                    add((i, row(record_id, keys[i], request_bytes(request), data,
                                calendar_version, rules_version, tzdata_version), response))
                except (LedgerUnavailable, ShuttingDown, BudgetExceeded):
                    raise  # the batch's, not the item's (a calendar build past the deadline)
                except Exception as exc:  # noqa: BLE001 - the item's own error
                    results[i] = exc
        finally:
            answering.settle()
        if pending and check is not None:
            check()
        return results, pending

    def _store_many(self, method: RecordedMethod, results: list[Any | Exception | None],
                    pending: list[tuple[int, LedgerRow, Any]]) -> list[Any | Exception]:
        """Record ``pending`` (what :meth:`_prepare_many` computed) and fill
        ``results`` in."""
        if pending:
            with self.gate.use():
                stored = self._commit.put_many([row for _, row, _ in pending])
            for (i, row, response), kept in zip(pending, stored, strict=True):
                if kept is row or kept.record_id == row.record_id:
                    results[i] = response
                    continue
                try:  # the key is held by an earlier item of this batch, or a concurrent call
                    results[i] = self._replay(method, kept, row.request)
                except AlreadyExists as exc:
                    results[i] = exc
        return results  # type: ignore[return-value]

    @staticmethod
    def _replay(method: RecordedMethod, prior: LedgerRow, request_bytes: bytes) -> Any:
        if prior.method != method.name or not method.same_request(prior.request, request_bytes):
            raise AlreadyExists(prior.idempotency_key, prior.namespace)
        return method.replayed(prior.response)


class PreparedBatch:
    """A batch computed by :meth:`RecordedPath.prepare_many`, not yet
    recorded: :meth:`commit` records it and gives the results. Used by one
    thread at a time; committed once."""

    __slots__ = ("_path", "_method", "_results", "_pending", "_done")

    def __init__(self, path: RecordedPath, method: RecordedMethod,
                 results: list[Any | Exception | None], pending: list[tuple[int, LedgerRow, Any]]):
        self._path = path
        self._method = method
        self._results = results
        self._pending = pending
        self._done = False

    def commit(self) -> list[Any | Exception]:
        """Record every new answer in one ledger transaction (through the
        group commit) and return, per request and in order, its response or
        its own error, as :meth:`RecordedPath.call_many` does. Raises
        LedgerUnavailable or ShuttingDown (nothing of the batch recorded),
        or RuntimeError when called a second time."""
        if self._done:
            raise RuntimeError("a prepared batch is committed once")
        self._done = True
        try:
            return self._path._store_many(self._method, self._results, self._pending)
        finally:
            self._path.gate.end_call()

    def discard(self) -> None:
        """Record nothing of the batch and end its call (instead of
        :meth:`commit`); nothing once committed or discarded."""
        if not self._done:
            self._done = True
            self._path.gate.end_call()
