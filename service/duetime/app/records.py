"""Reading the ledger back: one record by id, pages of records, every record a filter selects.

Unrecorded and read-only. Rows are the ledger's :class:`~duetime.ledger.LedgerRow`
(request and response as their canonical bytes); the transports turn them
into their own messages.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from duetime.app.limits import DEFAULT_LIMITS, Limits, check_namespace, check_text
from duetime.app.recorded import LedgerGate
from duetime.core import ErrorKind, InvalidArgument, Refusal
from duetime.ledger import MAX_PAGE_SIZE, Concern, LedgerRow, Position, RecordFilter

_RECORD_ID = re.compile(r"[0-9a-f]{32}")


class RecordNotFound(Refusal):
    """No record has the requested id."""

    kind = ErrorKind.ABSENT
    reason = "RECORD_NOT_FOUND"

    def __init__(self, record_id: str):
        super().__init__(f"no record with id {record_id!r}", metadata={"record_id": record_id})
        self.record_id = record_id


@dataclass(frozen=True)
class RecordPage:
    """One page of records, in listing order, and the token of the next page
    ("" on the last)."""

    rows: list[LedgerRow]
    next_page_token: str


def record_filter(since_us: int | None, until_us: int | None, key_prefix: str,
                  namespace: str | None, end_time_text: str = "", start_time_text: str = "",
                  limits: Limits = DEFAULT_LIMITS) -> RecordFilter:
    """The ledger filter of a time range (µs since the epoch, either end
    open: None), an idempotency key prefix and a namespace (None: any).
    Raises InvalidArgument for an end before the start (on ``end_time``,
    showing ``end_time_text`` and ``start_time_text``), a key prefix over
    ``limits.max_idempotency_key`` characters or holding a character no
    ledger can search for (see :func:`~duetime.app.limits.check_text`), or a
    bad namespace."""
    if since_us is not None and until_us is not None and until_us < since_us:
        raise InvalidArgument.at("end_time", f"{end_time_text} is before "
                                             f"start_time {start_time_text}")
    check_text(key_prefix, "key_prefix", limits.max_idempotency_key)
    if namespace:
        try:
            check_namespace(namespace)
        except InvalidArgument:
            raise InvalidArgument.at("namespace", "is not a namespace: 1 to 64 characters of "
                                                  "A-Z a-z 0-9 . _ -") from None
    return RecordFilter(since_us, until_us, key_prefix, namespace)


class RecordReader:
    """The read-only ledger calls of one app, through its :class:`LedgerGate`."""

    def __init__(self, gate: LedgerGate, limits: Limits = DEFAULT_LIMITS):
        self.gate = gate
        self.limits = limits

    def get(self, record_id: str, namespaces: frozenset[str] | None = None) -> LedgerRow:
        """The stored row with this id, when it is in one of ``namespaces``
        (the caller's; None: any namespace). Raises InvalidArgument (empty,
        or not 32 lower-case hex digits), RecordNotFound (no such row, or one
        of another namespace: the same error, so a record's existence never
        shows outside its namespace), LedgerUnavailable, ShuttingDown."""
        if not record_id:
            raise InvalidArgument.at("record_id", "is required")
        if not _RECORD_ID.fullmatch(record_id):
            shown = repr(record_id) if len(record_id) <= 64 else f"{len(record_id)} characters"
            raise InvalidArgument.at("record_id", f"{shown} is not a record id (32 lower-case "
                                                  "hex digits, as returned in record_id)")
        with self.gate.use() as ledger:
            row = ledger.get(record_id)
        if row is None or (namespaces is not None and row.namespace not in namespaces):
            raise RecordNotFound(record_id)
        return row

    def page(self, flt: RecordFilter, page_size: int, page_token: str) -> RecordPage:
        """One page of the rows ``flt`` selects: ``page_size`` rows (0: 100,
        at most :data:`~duetime.ledger.MAX_PAGE_SIZE`), fewer once their
        bytes reach ``limits.max_list_bytes``. Raises InvalidArgument (a
        negative ``page_size``; a ``page_token`` over
        :data:`~duetime.ledger.listing.MAX_PAGE_TOKEN` characters, not one
        this ledger issued, or issued for other filters), LedgerUnavailable."""
        if page_size < 0:
            raise InvalidArgument.at("page_size", f"{page_size} is negative; give 0 (the "
                                                  f"default, 100) up to {MAX_PAGE_SIZE}")
        try:
            rows, token = self._page(flt, page_size, page_token)
        except ValueError as exc:
            raise InvalidArgument.at("page_token", str(exc)) from None
        size = 0
        for i, row in enumerate(rows):
            if i and size + len(row.request) + len(row.response) > self.limits.max_list_bytes:
                last = rows[i - 1]
                return RecordPage(rows[:i], self.gate.ledger.page_tokens.encode(
                    flt, (last.receive_time_us, last.record_id)))
            size += len(row.request) + len(row.response)
        return RecordPage(rows, token)

    def all(self, flt: RecordFilter, batch_size: int = MAX_PAGE_SIZE) -> Iterator[LedgerRow]:
        """Every row ``flt`` selects, in listing order, read a page at a time
        (the ledger is held only while a page is read)."""
        token = ""
        while True:
            rows, token = self._page(flt, batch_size, token)
            yield from rows
            if not token:
                return

    def concerned(self, flt: RecordFilter, concern: Concern, batch_size: int = 100,
                  check: Callable[[], None] | None = None) -> Iterator[LedgerRow]:
        """Every row ``flt`` and ``concern`` select, in listing order, read
        ``batch_size`` at a time (the store selects them: the other rows are
        not read; at most one page is held). ``check`` (None: none) is
        called before each page after the first; what it raises stops the
        reading."""
        after: Position | None = None
        while True:
            with self.gate.use() as ledger:
                rows = ledger.concerned_page(flt, concern, after, batch_size)
            yield from rows
            if len(rows) < batch_size:
                return
            after = (rows[-1].receive_time_us, rows[-1].record_id)
            del rows
            if check is not None:
                check()

    def count(self, flt: RecordFilter, through: Position | None = None) -> int:
        """How many rows ``flt`` selects, at or before position ``through`` (None: all)."""
        with self.gate.use() as ledger:
            return ledger.count_records(flt, through)

    def _page(self, flt: RecordFilter, size: int, token: str) -> tuple[list[LedgerRow], str]:
        """One page of :meth:`Ledger.list_records` (ValueError for a bad token)."""
        with self.gate.use() as ledger:
            return ledger.list_records(
                since_us=flt.since_us, until_us=flt.until_us, key_prefix=flt.key_prefix,
                namespace=flt.namespace, page_size=size, page_token=token)
