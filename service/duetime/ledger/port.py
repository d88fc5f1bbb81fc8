"""The ledger's port: what every store offers (:class:`Ledger`), what its
writes return (:func:`resolve_batch`) and the errors it raises.

A :class:`Ledger` stores :class:`~duetime.ledger.rows.LedgerRow` values,
finds them by record id or by (namespace, idempotency key), lists them in
receive-time order with opaque page tokens (:mod:`duetime.ledger.listing`),
streams them, verifies their digests and probes writability.

Writes: :meth:`Ledger.put_many` stores a batch in one transaction with one
commit (one fsync), the unit a group commit needs
(:class:`duetime.ledger.group_commit.GroupCommit` shares it among concurrent
callers); :meth:`Ledger.put` is a batch of one.

Errors: :class:`LedgerUnavailable` whenever the store cannot be opened, read or
written (the caller must then not answer); :class:`DuplicateKey` when a
:meth:`~Ledger.put` reuses a (namespace, idempotency key) that another row
holds; :class:`UnstorableValue` when the store refuses a value the request
gave (the request's fault: the store is up); ``ValueError`` for a bad page
token or an unstorable row.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence

from duetime.core.errors import ErrorKind, FieldViolation, Refusal
from duetime.ledger.listing import (
    DEFAULT_PAGE_SIZE,
    Concern,
    MAX_PAGE_SIZE,
    PageTokens,
    Position,
    RecordFilter,
)
from duetime.ledger.rows import LedgerRow, row_problems


class LedgerUnavailable(Refusal):
    """The ledger cannot be opened, read or written; no answer may be returned.
    Its own text (``str``) may name internals, for the logs; callers are told
    :attr:`public_message`."""

    kind = ErrorKind.RETRY_LATER
    reason = "LEDGER_UNAVAILABLE"
    retryable = True
    public_message = "the ledger cannot be written or read; nothing was answered, retry later"


class UnstorableValue(Refusal):
    """The store refused a value that came from the request, not the store
    failing: a NUL or an unpaired surrogate in a text, an integer beyond 64
    bits. The app checks every text and number before it reaches a store
    (``docs/semantics.md`` §13), so this is a backstop; unlike
    :class:`LedgerUnavailable` it never marks the ledger down. Its own text
    (``str``) names the store's reason, for the logs."""

    kind = ErrorKind.BAD_INPUT
    reason = "UNSTORABLE_VALUE"
    public_message = ("the request holds a value the ledger cannot store or search for (a NUL "
                      "or an unpaired surrogate in a text, or an integer beyond 64 bits); "
                      "remove it and send the request again")

    def __init__(self, message: str):
        super().__init__(message, violations=[FieldViolation("request", self.public_message)])


class DuplicateKey(Exception):
    """A put used a (namespace, idempotency key) that another row already holds."""

    def __init__(self, key: str, namespace: str = ""):
        where = f" in namespace {namespace!r}" if namespace else ""
        super().__init__(f"idempotency key {key!r} is already recorded{where}")
        self.key = key
        self.namespace = namespace


class Ledger(ABC):
    """Storage port for records. Implementations are safe to share across threads.

    Listing order is (``receive_time_us``, ``record_id``), record ids compared
    by code point. Every method raises LedgerUnavailable when the store cannot
    be reached, read or written (after :meth:`close` every method raises it),
    and UnstorableValue when the store refuses a value it was given (the
    caller's, not the store's, failure).

    ``page_tokens``: the :class:`~duetime.ledger.listing.PageTokens` that
    issue and check this ledger's page tokens, keyed by a secret every
    process opening the same store shares (set by each store when it opens).
    """

    page_tokens: PageTokens

    # --- writes -----------------------------------------------------------
    def put(self, row: LedgerRow) -> None:
        """Store ``row`` durably before returning.

        Raises DuplicateKey if ``row.idempotency_key`` is non-empty and already
        held by another row of ``row.namespace``; LedgerUnavailable if the row
        cannot be written. Putting a row that is already stored, identical, is
        a no-op (a retry after an unknown outcome is safe).
        """
        (stored,) = self.put_many([row])
        if stored.record_id != row.record_id:
            raise DuplicateKey(row.idempotency_key, row.namespace)

    @abstractmethod
    def put_many(self, rows: Sequence[LedgerRow]) -> list[LedgerRow]:
        """Store ``rows`` in one transaction with one commit; return, per input
        row and in order, the row stored for it.

        That is the row itself when it was stored (or was already stored,
        identical), or — when its non-empty (namespace, idempotency_key) was
        already held, by a stored row or by an earlier row of this batch — the
        holding row, so a caller answers each request from its result (the
        request may then be a replay or a conflict). Never raises DuplicateKey.

        All or nothing: on LedgerUnavailable no row of the batch was stored
        (except the astronomically unlikely case of a record id already stored
        with other content, found only after a batch written by one statement
        has committed). ValueError (see
        :func:`duetime.ledger.rows.check_rows`) before anything is written.
        """

    @abstractmethod
    def ping_write(self) -> None:
        """Durably write one tiny probe row (a write + commit, like a put, but
        storing no record). Returns when the store accepts writes; raises
        LedgerUnavailable otherwise. Meant for a health check."""

    # --- reads ------------------------------------------------------------
    @abstractmethod
    def get(self, record_id: str) -> LedgerRow | None:
        """Return the row with this id, or None."""

    @abstractmethod
    def get_by_key(self, idempotency_key: str, namespace: str = "") -> LedgerRow | None:
        """Return the row of ``namespace`` holding this non-empty key, or None."""

    def get_by_keys(self, keys: Sequence[str], namespace: str = "") -> dict[str, LedgerRow]:
        """The rows of ``namespace`` holding any of the non-empty ``keys``, by
        key (a key no row holds is absent). The SQL stores ask in one query
        per :data:`duetime.ledger.sql.KEYS_PER_QUERY` keys."""
        found = {}
        for key in dict.fromkeys(keys):
            if key and (row := self.get_by_key(key, namespace)) is not None:
                found[key] = row
        return found

    @abstractmethod
    def _page(self, flt: RecordFilter, after: Position | None, limit: int) -> list[LedgerRow]:
        """Up to ``limit`` rows matching ``flt`` after position ``after``, in order."""

    def list_records(
        self,
        *,
        since_us: int | None = None,
        until_us: int | None = None,
        key_prefix: str = "",
        namespace: str | None = None,
        page_size: int = DEFAULT_PAGE_SIZE,
        page_token: str = "",
    ) -> tuple[list[LedgerRow], str]:
        """One page of the rows with ``since_us <= receive_time_us < until_us``
        (None: unbounded), an ``idempotency_key`` starting with ``key_prefix``
        (``""``: all rows, keyless ones too) and, unless None, in ``namespace``;
        in listing order. Returns (rows, next_page_token); the token is ``""``
        after the last page.

        ``page_size``: 0 means :data:`DEFAULT_PAGE_SIZE`, more than
        :data:`MAX_PAGE_SIZE` means that; negative is a ValueError.
        ``page_token``: ``""`` for the first page, else the token of the
        previous page, with the same filters (page_size may change). Pages
        neither repeat nor skip rows; rows stored meanwhile show up if they
        sort after the page. ValueError for a token that is not one of this
        ledger's, unaltered, or one issued for other filters (see
        :meth:`~duetime.ledger.listing.PageTokens.decode`).
        """
        if page_size < 0:
            raise ValueError(f"page_size must not be negative, got {page_size}")
        size = min(page_size or DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE)
        flt = RecordFilter(since_us, until_us, key_prefix, namespace)
        after = self.page_tokens.decode(flt, page_token) if page_token else None
        rows = self._page(flt, after, size + 1)
        if len(rows) <= size:
            return rows, ""
        rows = rows[:size]
        return rows, self.page_tokens.encode(flt, (rows[-1].receive_time_us, rows[-1].record_id))

    def iter_records(
        self,
        since_us: int | None = None,
        until_us: int | None = None,
        *,
        key_prefix: str = "",
        namespace: str | None = None,
        batch_size: int = 500,
    ) -> Iterator[LedgerRow]:
        """Every row :meth:`list_records` would list with these filters, in
        order, fetched ``batch_size`` at a time (memory stays flat; no lock or
        transaction is held between batches)."""
        flt = RecordFilter(since_us, until_us, key_prefix, namespace)
        after: Position | None = None
        while True:
            rows = self._page(flt, after, batch_size)
            yield from rows
            if len(rows) < batch_size:
                return
            after = (rows[-1].receive_time_us, rows[-1].record_id)

    def concerned_page(self, flt: RecordFilter, concern: Concern, after: Position | None,
                       limit: int) -> list[LedgerRow]:
        """Up to ``limit`` rows matching ``flt`` and ``concern`` after
        position ``after`` (None: from the first), in listing order. The SQL
        stores select them in SQL (the other rows are never read); this
        default filters :meth:`_page`'s rows."""
        if concern.empty:
            return []
        out: list[LedgerRow] = []
        while len(out) < limit:
            rows = self._page(flt, after, limit)
            out.extend(row for row in rows if concern.matches(row.calendar_version, row.tzdata_version))
            if len(rows) < limit:
                break
            after = (rows[-1].receive_time_us, rows[-1].record_id)
        return out[:limit]

    def count_records(self, flt: RecordFilter, through: Position | None = None) -> int:
        """How many rows match ``flt`` at or before position ``through``
        (None: all of them). The SQL stores count in SQL; this default
        counts :meth:`_page`'s rows."""
        count, after = 0, None
        while True:
            rows = self._page(flt, after, 1000)
            for row in rows:
                if through is not None and (row.receive_time_us, row.record_id) > through:
                    return count
                count += 1
            if len(rows) < 1000:
                return count
            after = (rows[-1].receive_time_us, rows[-1].record_id)

    def verify(self) -> list[str]:
        """Check the whole ledger; return its problems, ``[]`` when intact.

        Every row must parse (fields of the right types), have a non-empty
        request and response, a ``request_hash`` of its request and a
        ``content_sha256`` equal to :meth:`LedgerRow.digest`. Stores add their
        own checks (SQLite: ``PRAGMA quick_check``)."""
        problems = self._verify_store()
        for row in self.iter_records(batch_size=1000):
            problems.extend(row_problems(row))
        return problems

    def _verify_store(self) -> list[str]:
        return []

    def close(self) -> None:
        """Release resources; the ledger is unusable afterwards."""


def resolve_batch(
    rows: Sequence[LedgerRow],
    inserted: set[str],
    by_id: dict[str, LedgerRow],
    by_key: dict[tuple[str, str], LedgerRow],
) -> list[LedgerRow]:
    """The :meth:`Ledger.put_many` result, given the ids just ``inserted`` and
    the stored rows holding the other rows' ids and (namespace, key)s.

    Raises LedgerUnavailable when a row's id is stored with other content, or
    when a row was neither inserted nor its (namespace, key) held.
    """
    out = []
    for row in rows:
        if row.record_id in inserted:
            out.append(row)
            continue
        same_id = by_id.get(row.record_id)
        if same_id is not None:
            if same_id != row:
                raise LedgerUnavailable(f"record id {row.record_id} is already stored "
                                        "with other content")
            out.append(row)  # stored before: a retried batch
            continue
        held = by_key.get((row.namespace, row.idempotency_key)) if row.idempotency_key else None
        if held is None:
            raise LedgerUnavailable(f"record {row.record_id} was neither stored nor held")
        out.append(held)
    return out
