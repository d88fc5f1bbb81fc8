"""What the SQL stores share: the schema version both migrate to, the read
statements (``?`` placeholders; PostgreSQL's store rewrites them to ``%s``)
and :class:`SqlLedger`, the reads of :class:`~duetime.ledger.port.Ledger`
written once over those statements."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Sequence

from duetime.ledger.listing import Concern, Position, RecordFilter
from duetime.ledger.port import Ledger
from duetime.ledger.rows import COLUMNS, LedgerRow

SCHEMA_VERSION = 4
"""Version of the store schema this code writes. 1: records without
namespaces; 2: ``records.namespace``, uniqueness on (namespace, key), the
(receive_time_us, record_id) index and the ``write_probe`` table; 3: the
``ledger_secrets`` table (:data:`PAGE_TOKEN_SECRET`); 4: the
``records_versions`` index, (receive_time_us, record_id, namespace,
calendar_version, tzdata_version), from which :func:`concerned_query`
selects and :func:`count_query` counts without reading a record's request
and response."""

PAGE_TOKEN_SECRET = "page_token"
"""Name, in ``ledger_secrets``, of the random secret that signs the ledger's
page tokens (:class:`~duetime.ledger.listing.PageTokens`): made by the first
process to open the store at schema version 3, read by every process after."""


SELECT_ROWS = f"SELECT {', '.join(COLUMNS)} FROM records"
"""Every column of ``records``, in :data:`~duetime.ledger.rows.COLUMNS` order."""


def page_query(flt: RecordFilter, after: Position | None, limit: int) -> tuple[str, list]:
    """SQL (``?`` placeholders) and parameters for :meth:`Ledger._page`: up
    to ``limit`` rows matching ``flt`` after position ``after`` (None: from
    the first), in listing order."""
    where, params = _where(flt, after)
    sql = SELECT_ROWS + (" WHERE " + " AND ".join(where) if where else "")
    return sql + " ORDER BY receive_time_us, record_id LIMIT ?", params + [limit]


def _like_text(text: str) -> str:
    """A LIKE pattern (escape character ``!``) matching any text holding ``text``."""
    return "%" + text.replace("!", "!!").replace("%", "!%").replace("_", "!_") + "%"


def concerned_query(flt: RecordFilter, concern: Concern, after: Position | None,
                    limit: int) -> tuple[str, list]:
    """SQL and parameters for :meth:`Ledger.concerned_page`: as
    :func:`page_query`, and only the rows ``concern`` matches (a
    ``calendar_version`` holding one of its texts, found with LIKE, which
    SQLite compares without case: a superset, checked again by the reader;
    or another ``tzdata_version``). ``concern`` must not be empty."""
    where, params = _where(flt, after)
    either, more = [], []
    for text in concern.calendar_texts:
        either.append("calendar_version LIKE ? ESCAPE '!'")
        more.append(_like_text(text))
    if concern.other_than_tzdata is not None:
        either.append("tzdata_version <> ?")
        more.append(concern.other_than_tzdata)
    where.append("(" + " OR ".join(either) + ")")
    # the ids from the records_versions index alone, then those rows whole
    ids = ("SELECT record_id FROM records WHERE " + " AND ".join(where)
           + " ORDER BY receive_time_us, record_id LIMIT ?")
    return (SELECT_ROWS + f" WHERE record_id IN ({ids}) ORDER BY receive_time_us, record_id",
            params + more + [limit])


def count_query(flt: RecordFilter, through: Position | None) -> tuple[str, list]:
    """SQL and parameters for :meth:`Ledger.count_records`: how many rows
    match ``flt`` at or before position ``through`` (None: all)."""
    where, params = _where(flt, None)
    if through is not None:
        where.append("(receive_time_us, record_id) <= (?, ?)")
        params += list(through)
    return "SELECT COUNT(*) FROM records" + (" WHERE " + " AND ".join(where) if where else ""), params


def _where(flt: RecordFilter, after: Position | None) -> tuple[list[str], list]:
    """The conditions (and their parameters) of the rows matching ``flt``
    after position ``after`` (None: from the first)."""
    where, params = [], []
    if flt.since_us is not None and after is None:
        # (after a position, which lies in the range, the row-value bound
        # below implies it, and is the one the index is searched from)
        where.append("receive_time_us >= ?")
        params.append(flt.since_us)
    if flt.until_us is not None:
        where.append("receive_time_us < ?")
        params.append(flt.until_us)
    if flt.namespace is not None:
        where.append("namespace = ?")
        params.append(flt.namespace)
    if flt.key_prefix:
        where.append("substr(idempotency_key, 1, CAST(? AS INTEGER)) = ?")
        params += [len(flt.key_prefix), flt.key_prefix]
    if after is not None:
        where.append("(receive_time_us, record_id) > (?, ?)")
        params += list(after)
    return where, params


GET_BY_ID = SELECT_ROWS + " WHERE record_id = ?"
"""The row of one record id."""
GET_BY_KEY = SELECT_ROWS + " WHERE namespace = ? AND idempotency_key = ? AND idempotency_key <> ''"
"""The row of a namespace holding one non-empty key."""
GET_BY_KEYS = SELECT_ROWS + " WHERE namespace = ? AND idempotency_key <> '' AND idempotency_key"
"""Rows of a namespace holding any of several keys: append ``IN (?, …)``."""
KEYS_PER_QUERY = 500
"""Most keys one :meth:`Ledger.get_by_keys` query asks for (SQLite allows 999
parameters in old builds)."""


class SqlLedger(Ledger):
    """The reads shared by the SQL stores: the same statements (:data:`GET_BY_ID`,
    :data:`GET_BY_KEY`, :func:`page_query`) run through the store's ``_fetch``."""

    @abstractmethod
    def _fetch(self, sql: str, params: Sequence = ()) -> list[tuple]:
        """Rows of one read-only statement (``?`` placeholders)."""

    def get(self, record_id: str) -> LedgerRow | None:
        rows = self._fetch(GET_BY_ID, (record_id,))
        return LedgerRow(*rows[0]) if rows else None

    def get_by_key(self, idempotency_key: str, namespace: str = "") -> LedgerRow | None:
        rows = self._fetch(GET_BY_KEY, (namespace, idempotency_key))
        return LedgerRow(*rows[0]) if rows else None

    def get_by_keys(self, keys: Sequence[str], namespace: str = "") -> dict[str, LedgerRow]:
        wanted = [key for key in dict.fromkeys(keys) if key]
        found = {}
        for first in range(0, len(wanted), KEYS_PER_QUERY):
            chunk = wanted[first:first + KEYS_PER_QUERY]
            sql = GET_BY_KEYS + f" IN ({', '.join('?' * len(chunk))})"
            for values in self._fetch(sql, (namespace, *chunk)):
                row = LedgerRow(*values)
                found[row.idempotency_key] = row
        return found

    def _page(self, flt: RecordFilter, after: Position | None, limit: int) -> list[LedgerRow]:
        sql, params = page_query(flt, after, limit)
        return [LedgerRow(*r) for r in self._fetch(sql, params)]

    def concerned_page(self, flt: RecordFilter, concern: Concern, after: Position | None,
                       limit: int) -> list[LedgerRow]:
        if concern.empty:
            return []
        sql, params = concerned_query(flt, concern, after, limit)
        return [LedgerRow(*r) for r in self._fetch(sql, params)]

    def count_records(self, flt: RecordFilter, through: Position | None = None) -> int:
        sql, params = count_query(flt, through)
        return int(self._fetch(sql, params)[0][0])
