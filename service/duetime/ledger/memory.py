"""The in-memory ledger: non-durable, in one process, for unit tests of the
ledger's callers (it can be made to fail like a store outage)."""

from __future__ import annotations

import bisect
import threading
from collections.abc import Sequence

from duetime.ledger.listing import PageTokens, Position, RecordFilter, new_page_token_secret
from duetime.ledger.port import Ledger, LedgerUnavailable, resolve_batch
from duetime.ledger.rows import LedgerRow, check_rows


class MemoryLedger(Ledger):
    """In-process, non-durable ledger for unit tests.

    :meth:`set_unavailable` makes every call raise LedgerUnavailable (a store
    outage, for tests of the callers) until called again with None.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_id: dict[str, LedgerRow] = {}
        self._by_key: dict[tuple[str, str], LedgerRow] = {}
        self._order: list[Position] = []  # sorted listing positions
        self._down: str | None = None
        self.commits = 0
        """Number of successful put_many transactions (for tests)."""
        self.page_tokens = PageTokens(new_page_token_secret())

    def set_unavailable(self, reason: str | None) -> None:
        """Fail every call with LedgerUnavailable(reason); None: work again."""
        self._down = reason

    def _check_up(self) -> None:
        if self._down is not None:
            raise LedgerUnavailable(self._down)

    def put_many(self, rows: Sequence[LedgerRow]) -> list[LedgerRow]:
        rows = check_rows(rows)
        with self._lock:
            self._check_up()
            inserted: set[str] = set()
            by_key = dict(self._by_key)
            new = []
            for row in rows:
                if row.record_id in self._by_id:
                    continue
                if row.idempotency_key and (row.namespace, row.idempotency_key) in by_key:
                    continue
                inserted.add(row.record_id)
                new.append(row)
                if row.idempotency_key:
                    by_key[(row.namespace, row.idempotency_key)] = row
            result = resolve_batch(rows, inserted, self._by_id, by_key)  # raises before storing
            for row in new:
                self._by_id[row.record_id] = row
                bisect.insort(self._order, (row.receive_time_us, row.record_id))
            self._by_key = by_key
            self.commits += 1
            return result

    def ping_write(self) -> None:
        self._check_up()

    def get(self, record_id: str) -> LedgerRow | None:
        with self._lock:
            self._check_up()
            return self._by_id.get(record_id)

    def get_by_key(self, idempotency_key: str, namespace: str = "") -> LedgerRow | None:
        with self._lock:
            self._check_up()
            return self._by_key.get((namespace, idempotency_key)) if idempotency_key else None

    def get_by_keys(self, keys: Sequence[str], namespace: str = "") -> dict[str, LedgerRow]:
        with self._lock:
            self._check_up()
            return {key: row for key in keys
                    if key and (row := self._by_key.get((namespace, key))) is not None}

    def _page(self, flt: RecordFilter, after: Position | None, limit: int) -> list[LedgerRow]:
        with self._lock:
            self._check_up()
            if after is not None:
                start = bisect.bisect_right(self._order, after)
            elif flt.since_us is not None:
                start = bisect.bisect_left(self._order, (flt.since_us, ""))
            else:
                start = 0
            out = []
            for position in self._order[start:]:
                if len(out) == limit or (flt.until_us is not None and position[0] >= flt.until_us):
                    break
                row = self._by_id[position[1]]
                if flt.since_us is not None and row.receive_time_us < flt.since_us:
                    continue
                if flt.namespace is not None and row.namespace != flt.namespace:
                    continue
                if flt.key_prefix and not row.idempotency_key.startswith(flt.key_prefix):
                    continue
                out.append(row)
            return out

    def close(self) -> None:
        self.set_unavailable("the ledger is closed")

