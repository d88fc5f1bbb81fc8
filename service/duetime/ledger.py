"""The ledger: one stored row per answered computing call (SPEC §8).

A :class:`Ledger` stores :class:`LedgerRow` values, finds them by record id or
by (namespace, idempotency key), lists them in receive-time order with opaque
page tokens, streams them, verifies their digests and probes writability.

Implementations:

- :class:`SqliteLedger` (here; the default): one SQLite file, WAL journal,
  ``synchronous=FULL``.
- :class:`duetime.ledger_pg.PostgresLedger`: PostgreSQL through psycopg 3
  (``pip install 'duetime[postgres]'``).
- :class:`MemoryLedger`: in-process, for unit tests.

:func:`open_ledger` picks one from a ``--db`` value or ``$DUETIME_DB``.

Both durable stores share one versioned schema (:data:`SCHEMA_VERSION`) and
apply forward migrations when opened, serialised between processes (SQLite:
``BEGIN IMMEDIATE``; PostgreSQL: a transaction-level advisory lock), so any
number of processes may open the same store at once; a store newer than this
code is refused.

Writes: :meth:`Ledger.put_many` stores a batch in one transaction with one
commit (one fsync), the unit a group commit needs (:class:`GroupCommit` shares
it among concurrent callers); :meth:`Ledger.put` is a batch of one.

Errors: :class:`LedgerUnavailable` whenever the store cannot be opened, read or
written (the caller must then not answer); :class:`DuplicateKey` when a
:meth:`~Ledger.put` reuses a (namespace, idempotency key) that another row
holds; ``ValueError`` for a bad page token or an unstorable row.
"""

from __future__ import annotations

import base64
import bisect
import hashlib
import json
import os
import re
import sqlite3
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, fields
from itertools import chain
from operator import attrgetter
from pathlib import Path
from urllib.parse import quote

from duetime.core.errors import ErrorKind, Refusal

SCHEMA_VERSION = 2
"""Version of the store schema this code writes. 1: records without
namespaces; 2: ``records.namespace``, uniqueness on (namespace, key), the
(receive_time_us, record_id) index and the ``write_probe`` table."""

DEFAULT_PAGE_SIZE = 100
MAX_PAGE_SIZE = 1000


class LedgerUnavailable(Refusal):
    """The ledger cannot be opened, read or written; no answer may be returned.
    Its own text (``str``) may name internals, for the logs; callers are told
    :attr:`public_message`."""

    kind = ErrorKind.RETRY_LATER
    reason = "LEDGER_UNAVAILABLE"
    retryable = True
    public_message = "the ledger cannot be written or read; nothing was answered, retry later"


class DuplicateKey(Exception):
    """A put used a (namespace, idempotency key) that another row already holds."""

    def __init__(self, key: str, namespace: str = ""):
        where = f" in namespace {namespace!r}" if namespace else ""
        super().__init__(f"idempotency key {key!r} is already recorded{where}")
        self.key = key
        self.namespace = namespace


def new_record_id() -> str:
    """Return a fresh record id (see :func:`new_record_ids`); its random bits
    come from a pool refilled by one ``os.urandom`` call per 400 ids (a system
    call made while holding the GIL costs every other thread when the
    machine is busy)."""
    with _POOL_LOCK:
        if len(_RANDOM_POOL) < 10:
            _RANDOM_POOL.extend(os.urandom(4000))
        random = int.from_bytes(_RANDOM_POOL[-10:], "big")  # 80 bits, 74 used
        del _RANDOM_POOL[-10:]
    millis = time.time_ns() // 1_000_000
    value = ((millis & _MILLIS_MASK) << 80 | 0x7 << 76 | (random & 0xFFF) << 64 | 0b10 << 62
             | (random >> 12) & _RAND_B_MASK)
    return f"{value:032x}"


_RANDOM_POOL = bytearray()
_POOL_LOCK = threading.Lock()
# A forked child must not draw the bytes its parent drew too.
os.register_at_fork(after_in_child=_RANDOM_POOL.clear)
_MILLIS_MASK = (1 << 48) - 1
_RAND_B_MASK = (1 << 62) - 1


def new_record_ids(count: int) -> list[str]:
    """``count`` fresh record ids, each 32 lower-case hex digits: a UUID
    version 7 (RFC 9562 §5.7), the current Unix time in milliseconds in its
    first 48 bits, then the version nibble 7, 12 random bits, the variant bits
    10 and 62 random bits; the random bits of all ``count`` ids come from one
    ``os.urandom`` call.

    Time-ordered on purpose: new ids land at the right edge of the ledger's
    record-id index, where fully random ids (UUID4) touched a different index
    page for nearly every row, which made each commit write and checkpoint
    most of the index again (SQLite: 4–5× the CPU per row at 100,000 records,
    growing with the ledger). 74 random bits keep ids unguessable and unique.
    """
    raw = bytearray(os.urandom(16 * count))
    millis = (time.time_ns() // 1_000_000).to_bytes(6, "big")
    for position, byte in enumerate(millis):
        raw[position::16] = bytes((byte,)) * count
    raw[6::16] = raw[6::16].translate(_UUID7_VERSION)
    raw[8::16] = raw[8::16].translate(_UUID_VARIANT)
    text = raw.hex()
    return [text[i:i + 32] for i in range(0, 32 * count, 32)]


# RFC 9562: the high nibble of byte 6 is the version (0111 for 7), the two high
# bits of byte 8 are the variant (10).
_UUID7_VERSION = bytes((b & 0x0F) | 0x70 for b in range(256))
_UUID_VARIANT = bytes((b & 0x3F) | 0x80 for b in range(256))


def sha256_hex(data: bytes) -> str:
    """Hex SHA-256 of ``data``."""
    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True, init=False)
class LedgerRow:
    """One recorded call. Build it with :meth:`create`, which fills the digests.

    - ``record_id``: unique id (see :func:`new_record_id`).
    - ``method``: full gRPC method, e.g. ``/duetime.v1.DueTimeService/ComputeDueTime``.
    - ``receive_time_us``: when the call was received, µs since the Unix epoch (UTC).
    - ``idempotency_key``: client key, ``""`` when none; when non-empty, unique
      within its ``namespace``.
    - ``request_hash``: hex SHA-256 of ``request``.
    - ``request`` / ``response``: canonical (deterministic) protobuf bytes.
    - ``calendar_version``, ``rules_version``, ``tzdata_version``: versions used.
    - ``content_sha256``: hex SHA-256 over the content (see :meth:`digest`).
    - ``namespace``: the caller's namespace scoping ``idempotency_key``; ``""``
      by default (and for every row written before schema version 2). Last, so
      that rows built positionally without it keep working.
    """

    record_id: str
    method: str
    receive_time_us: int
    idempotency_key: str
    request_hash: str
    request: bytes
    response: bytes
    calendar_version: str
    rules_version: str
    tzdata_version: str
    content_sha256: str
    namespace: str = ""

    def __init__(self, record_id: str, method: str, receive_time_us: int, idempotency_key: str,
                 request_hash: str, request: bytes, response: bytes, calendar_version: str,
                 rules_version: str, tzdata_version: str, content_sha256: str,
                 namespace: str = ""):
        # What the generated frozen __init__ does (each field set once, no
        # checks), without a guarded object.__setattr__ per field: rows are
        # built by the thousand (every listed or batched record).
        self.__dict__.update(
            record_id=record_id, method=method, receive_time_us=receive_time_us,
            idempotency_key=idempotency_key, request_hash=request_hash, request=request,
            response=response, calendar_version=calendar_version, rules_version=rules_version,
            tzdata_version=tzdata_version, content_sha256=content_sha256, namespace=namespace)

    @classmethod
    def create(
        cls,
        *,
        record_id: str,
        method: str,
        receive_time_us: int,
        idempotency_key: str,
        request: bytes,
        response: bytes,
        calendar_version: str,
        rules_version: str,
        tzdata_version: str,
        namespace: str = "",
    ) -> LedgerRow:
        """Return a row with ``request_hash`` and ``content_sha256`` computed
        (see :class:`RowBuilder` for many rows of one call)."""
        values = (record_id, method, receive_time_us, idempotency_key, sha256_hex(request),
                  request, response, calendar_version, rules_version, tzdata_version)
        return cls(*values, content_digest(values, namespace), namespace)

    def values(self) -> tuple:
        """The fields in order (what ``dataclasses.astuple`` gives, without its
        deep copies: every field is an immutable str, int or bytes)."""
        return _ROW_VALUES(self)

    def digest(self) -> str:
        """Hex SHA-256 of the row's content, deterministic across versions.

        Hashed, each as an 8-byte big-endian length and the bytes (text UTF-8,
        integers in decimal): ``record_id``, ``method``, ``receive_time_us``,
        ``idempotency_key``, ``request_hash``, ``request``, ``response``,
        ``calendar_version``, ``rules_version``, ``tzdata_version`` and then —
        only when it is non-empty — ``namespace``. A row in the default
        namespace therefore hashes exactly as in schema version 1 (its stored
        digests stay valid after the migration), and the length prefixes keep
        every namespaced row distinct from every un-namespaced one. Equal to
        ``content_sha256`` for an intact row.
        """
        return content_digest(self.values()[:10], self.namespace)


def content_digest(values: Sequence, namespace: str = "") -> str:
    """:meth:`LedgerRow.digest` of a row's first ten field ``values`` (in
    :data:`COLUMNS` order, up to ``tzdata_version``) and its ``namespace``:
    one SHA-256 over each value as an 8-byte big-endian length and its bytes."""
    parts = []
    for value in values:
        data = value if isinstance(value, bytes) else str(value).encode()
        parts.append(len(data).to_bytes(8, "big"))
        parts.append(data)
    if namespace:
        data = namespace.encode()
        parts.append(len(data).to_bytes(8, "big"))
        parts.append(data)
    return hashlib.sha256(b"".join(parts)).hexdigest()


def _framed(data: bytes) -> bytes:
    """``data`` as :meth:`LedgerRow.digest` hashes it: its length, then itself."""
    return len(data).to_bytes(8, "big") + data


class RowBuilder:
    """Rows of one recorded call's answers (a batch): the same ``method``,
    ``receive_time_us`` and ``namespace`` for all, and usually the same
    versions. :meth:`row` equals :meth:`LedgerRow.create` with those fields;
    the parts that repeat are encoded for the digest once, not per row."""

    def __init__(self, method: str, receive_time_us: int, namespace: str = ""):
        self.method = method
        self.receive_time_us = receive_time_us
        self.namespace = namespace
        self._head = _framed(method.encode()) + _framed(str(receive_time_us).encode())
        self._tail = _framed(namespace.encode()) if namespace else b""
        self._versions: dict[tuple[str, str, str], bytes] = {}

    def row(self, record_id: str, idempotency_key: str, request: bytes, response: bytes,
            calendar_version: str, rules_version: str, tzdata_version: str) -> LedgerRow:
        request_hash = hashlib.sha256(request).hexdigest()
        versions = self._versions.get((calendar_version, rules_version, tzdata_version))
        if versions is None:
            versions = b"".join(_framed(v.encode()) for v in (calendar_version, rules_version,
                                                               tzdata_version))
            if len(self._versions) < 64:
                self._versions[(calendar_version, rules_version, tzdata_version)] = versions
        rid, key = record_id.encode(), idempotency_key.encode()
        digest = hashlib.sha256(b"".join((
            len(rid).to_bytes(8, "big"), rid, self._head, len(key).to_bytes(8, "big"), key,
            _HASH_FRAME, request_hash.encode(), len(request).to_bytes(8, "big"), request,
            len(response).to_bytes(8, "big"), response, versions, self._tail,
        ))).hexdigest()
        return LedgerRow(record_id, self.method, self.receive_time_us, idempotency_key,
                         request_hash, request, response, calendar_version, rules_version,
                         tzdata_version, digest, self.namespace)


_HASH_FRAME = (64).to_bytes(8, "big")
"""The length prefix of a hex SHA-256 (``request_hash``) in a row's digest."""


COLUMNS = tuple(f.name for f in fields(LedgerRow))
"""Column names, in :class:`LedgerRow` field order (rows are built positionally)."""
_ROW_VALUES = attrgetter(*COLUMNS)

_TEXT_FIELDS = ("record_id", "method", "idempotency_key", "calendar_version",
                "rules_version", "tzdata_version", "namespace")
_TEXTS = attrgetter(*_TEXT_FIELDS)


def row_problems(row: LedgerRow) -> list[str]:
    """What is wrong with a stored row: wrong types, empty request or response,
    a ``request_hash`` or ``content_sha256`` that does not match the content."""
    label = f"record {row.record_id!r}"
    types = [(name, str) for name in _TEXT_FIELDS + ("request_hash", "content_sha256")]
    types += [("receive_time_us", int), ("request", bytes), ("response", bytes)]
    wrong = [name for name, kind in types if not isinstance(getattr(row, name), kind)]
    if wrong:
        return [f"{label}: does not parse: {', '.join(wrong)} of the wrong type"]
    problems = []
    if not row.request:
        problems.append(f"{label}: request is empty")
    if not row.response:
        problems.append(f"{label}: response is empty")
    if row.request_hash != sha256_hex(row.request):
        problems.append(f"{label}: request_hash does not match request")
    if row.content_sha256 != row.digest():
        problems.append(f"{label}: content_sha256 does not match its content")
    return problems


@dataclass(frozen=True)
class RecordFilter:
    """Which rows a listing covers: ``since_us <= receive_time_us < until_us``
    (either bound optional), ``idempotency_key`` starting with ``key_prefix``
    (``""``: any key, none included) and, unless None, this ``namespace``."""

    since_us: int | None = None
    until_us: int | None = None
    key_prefix: str = ""
    namespace: str | None = None

    def fingerprint(self) -> str:
        blob = json.dumps([self.since_us, self.until_us, self.key_prefix, self.namespace])
        return sha256_hex(blob.encode())[:16]


Position = tuple[int, str]
"""A place in listing order: (receive_time_us, record_id) of the last row seen."""


def encode_page_token(flt: RecordFilter, after: Position) -> str:
    """An opaque token resuming ``flt``'s listing after ``after``."""
    payload = json.dumps([1, after[0], after[1], flt.fingerprint()], separators=(",", ":"))
    return base64.urlsafe_b64encode(payload.encode()).rstrip(b"=").decode()


def decode_page_token(flt: RecordFilter, token: str) -> Position:
    """The position in ``token``. Raises ValueError if it is not a token from a
    listing, or is one from a listing with other filters."""
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        version, time_us, record_id, fingerprint = json.loads(raw)
        if version != 1 or type(time_us) is not int or not isinstance(record_id, str) \
                or not isinstance(fingerprint, str):
            raise ValueError
    except (ValueError, TypeError, UnicodeDecodeError):
        raise ValueError(f"page_token {token[:40]!r} is not a page token returned by a "
                         "record listing") from None
    if fingerprint != flt.fingerprint():
        raise ValueError("page_token was returned by a listing with other filters; pass "
                         "the same time range, key prefix and namespace as the first page")
    return time_us, record_id


def check_rows(rows: Iterable[LedgerRow]) -> list[LedgerRow]:
    """``rows`` as a list, or ValueError if two share a record id or a text
    field holds a NUL character (PostgreSQL text cannot store one, so no store
    accepts it)."""
    rows = list(rows)
    ids = {row.record_id for row in rows}
    if len(ids) != len(rows):
        raise ValueError("a batch holds two rows with the same record_id")
    for row in rows:
        texts = _TEXTS(row)
        if "\x00" in "".join(texts):
            name = next(name for name, text in zip(_TEXT_FIELDS, texts) if "\x00" in text)
            raise ValueError(f"record {row.record_id!r}: {name} contains a NUL character")
    return rows


class Ledger(ABC):
    """Storage port for records. Implementations are safe to share across threads.

    Listing order is (``receive_time_us``, ``record_id``), record ids compared
    by code point. Every method raises LedgerUnavailable when the store cannot
    be reached, read or written; after :meth:`close` every method raises it.
    """

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
        has committed). ValueError (see :func:`check_rows`) before anything
        is written.
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
        per :data:`KEYS_PER_QUERY` keys."""
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
        sort after the page. ValueError for a token that is not one, or one
        issued for other filters.
        """
        if page_size < 0:
            raise ValueError(f"page_size must not be negative, got {page_size}")
        size = min(page_size or DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE)
        flt = RecordFilter(since_us, until_us, key_prefix, namespace)
        after = decode_page_token(flt, page_token) if page_token else None
        rows = self._page(flt, after, size + 1)
        if len(rows) <= size:
            return rows, ""
        rows = rows[:size]
        return rows, encode_page_token(flt, (rows[-1].receive_time_us, rows[-1].record_id))

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
    the stored rows holding the other rows' ids and (namespace, key)s."""
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


def default_db_path() -> Path:
    """``$XDG_DATA_HOME/duetime/ledger.db``, else ``~/.local/share/duetime/ledger.db``."""
    base = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return Path(base) / "duetime" / "ledger.db"


POSTGRES_SCHEMES = ("postgresql://", "postgres://")
"""URL schemes of a PostgreSQL ledger (matched without regard to case)."""
_URL = re.compile(r"\s*([A-Za-z][A-Za-z0-9+.-]*)://")
_CONNINFO = re.compile(r"(?:^|\s)[A-Za-z_]+\s*=")


def postgres_url(db: str | os.PathLike[str]) -> str | None:
    """``db`` as a PostgreSQL URL (surrounding white space removed, scheme in
    lower case, as libpq wants), or None when ``db`` is a SQLite file path.

    ValueError for what is neither and would otherwise be taken for a file
    name — created in the working directory and logged whole, password
    included: a URL of another scheme (``postgresql+psycopg://``,
    ``sqlite://``, …) or a libpq ``key=value`` connection string. The
    message never repeats the value."""
    if not isinstance(db, str):
        return None
    if url := _URL.match(db):
        scheme = url.group(1).lower()
        if f"{scheme}://" in POSTGRES_SCHEMES:
            return f"{scheme}://{db[url.end():].strip()}"
        raise ValueError(f"is a {scheme}:// URL, which duetime does not read; give a "
                         "postgresql://USER:PASSWORD@HOST:PORT/DBNAME URL or a SQLite file path")
    if _CONNINFO.search(db):
        raise ValueError("is a key=value connection string, which duetime does not read; give "
                         "a postgresql://USER:PASSWORD@HOST:PORT/DBNAME URL or a SQLite file path")
    return None


def postgres_label(host: str, port: int | str | None, dbname: str) -> str:
    """``postgresql://HOST:PORT/DBNAME`` for logs and errors, never a user or
    password: an IPv6 host in brackets, a Unix socket directory
    percent-encoded (libpq's URL form)."""
    if host.startswith("/"):
        host = quote(host, safe="")
    elif ":" in host:
        host = f"[{host}]"
    return f"postgresql://{host}:{port or 5432}/{dbname}"


def open_ledger(db: str | os.PathLike[str] | None = None, **options) -> Ledger:
    """Open (creating and migrating if needed) the ledger named by ``db``.

    ``db``: a ``postgresql://`` or ``postgres://`` URL (scheme in any case)
    → :class:`PostgresLedger <duetime.ledger_pg.PostgresLedger>`
    (``options`` go to it, e.g. ``max_connections``); anything else is a
    SQLite file path, but a libpq ``key=value`` string is refused (see
    :func:`postgres_url`). None or ``""``: ``$DUETIME_DB`` if set and
    non-empty, else :func:`default_db_path`. Raises LedgerUnavailable if the
    store cannot be opened.
    """
    if db is None or db == "":
        db = os.environ.get("DUETIME_DB") or default_db_path()
    try:
        url = postgres_url(db)
    except ValueError as exc:
        raise LedgerUnavailable(f"the ledger {exc}") from None
    if url is not None:
        from duetime.ledger_pg import PostgresLedger

        return PostgresLedger(url, **options)
    return SqliteLedger(db)


# --- SQL shared by the SQLite and PostgreSQL stores ("?" placeholders) --------

SELECT_ROWS = f"SELECT {', '.join(COLUMNS)} FROM records"


def page_query(flt: RecordFilter, after: Position | None, limit: int) -> tuple[str, list]:
    """SQL (``?`` placeholders) and parameters for :meth:`Ledger._page`."""
    where, params = [], []
    if flt.since_us is not None:
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
    sql = SELECT_ROWS + (" WHERE " + " AND ".join(where) if where else "")
    return sql + " ORDER BY receive_time_us, record_id LIMIT ?", params + [limit]


GET_BY_ID = SELECT_ROWS + " WHERE record_id = ?"
GET_BY_KEY = SELECT_ROWS + " WHERE namespace = ? AND idempotency_key = ? AND idempotency_key <> ''"
GET_BY_KEYS = SELECT_ROWS + " WHERE namespace = ? AND idempotency_key <> '' AND idempotency_key"
"""Rows of a namespace holding any of several keys: append ``IN (?, …)``."""
KEYS_PER_QUERY = 500
"""Most keys one :meth:`Ledger.get_by_keys` query asks for (SQLite allows 999
parameters in old builds)."""


# --- SQLite --------------------------------------------------------------------

# Each migration takes the schema from version N-1 to N; index 0 is version 1,
# the schema of duetime before namespaces, kept verbatim.
SQLITE_MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL);
    CREATE TABLE IF NOT EXISTS records (
        record_id        TEXT PRIMARY KEY,
        method           TEXT NOT NULL,
        receive_time_us  INTEGER NOT NULL,
        idempotency_key  TEXT NOT NULL,
        request_hash     TEXT NOT NULL,
        request          BLOB NOT NULL,
        response         BLOB NOT NULL,
        calendar_version TEXT NOT NULL,
        rules_version    TEXT NOT NULL,
        tzdata_version   TEXT NOT NULL,
        content_sha256   TEXT NOT NULL
    );
    CREATE UNIQUE INDEX IF NOT EXISTS records_idempotency_key
        ON records (idempotency_key) WHERE idempotency_key <> '';
    """,
    """
    ALTER TABLE records ADD COLUMN namespace TEXT NOT NULL DEFAULT '';
    DROP INDEX records_idempotency_key;
    CREATE UNIQUE INDEX records_namespace_key
        ON records (namespace, idempotency_key) WHERE idempotency_key <> '';
    CREATE INDEX records_time ON records (receive_time_us, record_id);
    CREATE TABLE write_probe (
        id         INTEGER PRIMARY KEY CHECK (id = 1),
        written_us INTEGER NOT NULL
    );
    """,
)
assert len(SQLITE_MIGRATIONS) == SCHEMA_VERSION

_SQLITE_ROW = f"({', '.join('?' * len(COLUMNS))})"
_SQLITE_INSERT_ROWS = 512
"""Most rows one INSERT statement of :meth:`SqliteLedger.put_many` holds (12
parameters each: 6144, within SQLite's limit since 3.32; an older library's
limit of 999 makes it 64)."""


def _sqlite_insert(rows: int) -> str:
    """The INSERT of ``rows`` rows, ignoring rows whose id or key is held."""
    return (f"INSERT INTO records ({', '.join(COLUMNS)}) VALUES "
            f"{', '.join([_SQLITE_ROW] * rows)} ON CONFLICT DO NOTHING")


_SQLITE_ONE_INSERT = 16
"""Batches of at most this many rows go in one INSERT of exactly their size."""


def _statement_sizes(count: int, largest: int = _SQLITE_INSERT_ROWS) -> list[int]:
    """``count`` rows as INSERT statements: one when ``count`` is at most
    :data:`_SQLITE_ONE_INSERT` (a group commit), else power-of-two sizes up to
    ``largest`` (a power of two), largest first (1000 → 512, 256, 128, 64,
    32, 8): few statements for any batch, and few distinct statement texts
    for the connection's statement cache."""
    if count <= min(_SQLITE_ONE_INSERT, largest):
        return [count] if count else []
    sizes = [largest] * (count // largest)
    rest = count % largest
    size = largest
    while rest:
        size //= 2
        if rest >= size:
            sizes.append(size)
            rest -= size
    return sizes


_SQLITE_PROBE = ("INSERT INTO write_probe (id, written_us) VALUES (1, ?) "
                 "ON CONFLICT (id) DO UPDATE SET written_us = excluded.written_us")


def _statements(script: str) -> list[str]:
    return [s.strip() for s in script.split(";") if s.strip()]


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


class SqliteLedger(SqlLedger):
    """Durable ledger in one SQLite file (WAL journal, ``synchronous=FULL``).

    ``path`` is created with its parent directories if missing, and migrated
    to :data:`SCHEMA_VERSION` under ``BEGIN IMMEDIATE`` (so concurrent opens by
    several processes migrate once; the others wait up to the busy timeout).
    Raises LedgerUnavailable if the file cannot be opened or migrated or is
    newer than this code.

    One connection, guarded by a lock, serves all threads: SQLite admits one
    writer at a time anyway, every statement is a short indexed lookup or an
    append, and a commit's fsync is the cost that matters — which batching
    (:meth:`put_many`) shares, not more connections. Other processes on the
    same file are serialised by SQLite's own locks (busy timeout 5 s).
    """

    BUSY_TIMEOUT_MS = 5000

    def __init__(self, path: str | os.PathLike[str]):
        self.path = Path(path)
        self._lock = threading.Lock()
        self._closed = False
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None,
                                         timeout=self.BUSY_TIMEOUT_MS / 1000)
        except (OSError, sqlite3.Error) as exc:
            raise LedgerUnavailable(f"cannot open ledger {self.path}: {exc}") from exc
        try:
            self._conn.execute(f"PRAGMA busy_timeout = {self.BUSY_TIMEOUT_MS}")
            self._set_wal()
            self._conn.execute("PRAGMA synchronous = FULL")
            limit = self._conn.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER) // len(COLUMNS)
            self._insert_rows = min(_SQLITE_INSERT_ROWS, 1 << (limit.bit_length() - 1))
            self._migrate()
        except LedgerUnavailable:
            self._conn.close()
            raise
        except (OSError, sqlite3.Error) as exc:
            self._conn.close()
            raise LedgerUnavailable(f"cannot open ledger {self.path}: {exc}") from exc

    def _set_wal(self) -> None:
        # Switching to WAL needs an exclusive lock, and SQLite may report "locked"
        # without waiting when another process holds one; retry for the busy timeout.
        deadline = time.monotonic() + self.BUSY_TIMEOUT_MS / 1000
        while True:
            try:
                (mode,) = self._conn.execute("PRAGMA journal_mode = WAL").fetchone()
                if mode.lower() != "wal":
                    raise LedgerUnavailable(f"cannot open ledger {self.path}: journal mode "
                                            f"stays {mode!r}, not 'wal'")
                return
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() > deadline:
                    raise
                time.sleep(0.01)

    def _migrate(self) -> None:
        conn = self._conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            has_table = conn.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'"
            ).fetchone()
            version = conn.execute("SELECT max(version) FROM schema_version").fetchone()[0] \
                if has_table else 0
            version = version or 0
            if version > SCHEMA_VERSION:
                raise LedgerUnavailable(f"ledger {self.path} has schema version {version}, "
                                        f"newer than this duetime's {SCHEMA_VERSION}")
            for target in range(version + 1, SCHEMA_VERSION + 1):
                for statement in _statements(SQLITE_MIGRATIONS[target - 1]):
                    conn.execute(statement)
                conn.execute("INSERT INTO schema_version (version) VALUES (?)", (target,))
            conn.execute("COMMIT")
        except BaseException:
            self._rollback()
            raise

    def _rollback(self) -> None:
        if self._conn.in_transaction:
            try:
                self._conn.execute("ROLLBACK")
            except sqlite3.Error:
                pass

    def _unavailable(self, exc: BaseException) -> LedgerUnavailable:
        return LedgerUnavailable(f"ledger {self.path}: {exc}")

    def _fetch(self, sql: str, params: Sequence = ()) -> list[tuple]:
        """Execute one read under the lock."""
        with self._lock:
            if self._closed:
                raise LedgerUnavailable(f"ledger {self.path} is closed")
            try:
                return self._conn.execute(sql, params).fetchall()
            except sqlite3.Error as exc:
                raise self._unavailable(exc) from exc

    def _write(self, work, transaction: bool = True) -> object:
        """Run ``work()`` in one ``BEGIN IMMEDIATE`` … ``COMMIT`` under the lock
        (``transaction=False``: ``work`` writes with one statement, which
        SQLite commits by itself); roll back and raise LedgerUnavailable on
        any store error."""
        with self._lock:
            if self._closed:
                raise LedgerUnavailable(f"ledger {self.path} is closed")
            try:
                if transaction:
                    self._conn.execute("BEGIN IMMEDIATE")
                result = work()
                if transaction:
                    self._conn.execute("COMMIT")
                return result
            except LedgerUnavailable:
                self._rollback()
                raise
            except (sqlite3.Error, OverflowError) as exc:
                self._rollback()
                raise self._unavailable(exc) from exc
            except BaseException:
                self._rollback()
                raise

    def put_many(self, rows: Sequence[LedgerRow]) -> list[LedgerRow]:
        rows = check_rows(rows)
        if not rows:
            return []
        conn = self._conn
        sizes = _statement_sizes(len(rows), self._insert_rows)

        def work() -> list[LedgerRow]:
            # Multi-row INSERTs: each is one call into SQLite (the sqlite3
            # module lets go of the GIL, and takes it back, per call, which
            # costs thread switches when other threads wait for it); their
            # row counts say whether every row went in (the usual case:
            # nothing to look up).
            inserted, first = 0, 0
            for size in sizes:
                values = list(chain.from_iterable(map(_ROW_VALUES, rows[first:first + size])))
                inserted += conn.execute(_sqlite_insert(size), values).rowcount
                first += size
            if inserted == len(rows):
                return list(rows)
            # Some row was not inserted (its id or key was held): read what
            # holds each row's id, else its key (in the same transaction, or
            # after the one statement's commit: rows are never changed or
            # removed, so what holds an id or key stays). A row found under
            # its own id, identical, was stored (now or before).
            by_id, by_key = {}, {}
            for row in rows:
                for found in conn.execute(GET_BY_ID, (row.record_id,)):
                    by_id[row.record_id] = LedgerRow(*found)
                if row.idempotency_key and row.record_id not in by_id:
                    for found in conn.execute(GET_BY_KEY, (row.namespace, row.idempotency_key)):
                        by_key[(row.namespace, row.idempotency_key)] = LedgerRow(*found)
            return resolve_batch(rows, set(), by_id, by_key)

        # One INSERT (a group commit of up to 16 rows) is its own transaction:
        # no BEGIN and COMMIT calls around it.
        return self._write(work, transaction=len(sizes) > 1)

    def ping_write(self) -> None:
        self._write(lambda: self._conn.execute(_SQLITE_PROBE, (time.time_ns() // 1000,)))


    def _verify_store(self) -> list[str]:
        result = [r[0] for r in self._fetch("PRAGMA quick_check")]
        return [] if result == ["ok"] else [f"ledger {self.path}: quick_check: {r}" for r in result]

    def close(self) -> None:
        with self._lock:
            self._closed = True
            self._conn.close()


class _Slot:
    """One row waiting in a :class:`GroupCommit`. ``wake`` is held (locked)
    from creation; releasing it wakes the row's caller, either with its
    result (``done``) or to lead the next commit."""

    __slots__ = ("row", "result", "error", "done", "wake")

    def __init__(self, row: LedgerRow):
        self.row = row
        self.result: LedgerRow | None = None
        self.error: BaseException | None = None
        self.done = False
        self.wake = threading.Lock()
        self.wake.acquire()


class GroupCommit:
    """Share one :meth:`Ledger.put_many` (one transaction, one fsync) among
    concurrent callers of :meth:`put`.

    No thread of its own: a caller finding no commit in progress becomes the
    leader and commits every row queued so far (up to ``max_batch``); callers
    arriving meanwhile queue up for the next commit. :meth:`put` returns only
    after the commit holding its row — so no request is answered before its
    row is durable — and returns, like put_many, the row stored for it (its
    own, or the row already holding its key). A failed commit raises its
    error in every caller of that batch.

    Hand-over: when a commit ends, its leader wakes each caller of that batch
    (one lock release each, no broadcast: a woken thread is one that can go
    on) and, if rows queued up meanwhile, the first of them, which leads the
    next commit; the leader itself returns at once.
    """

    def __init__(self, ledger: Ledger, max_batch: int = 256):
        self.ledger = ledger
        self.max_batch = max_batch
        self._mutex = threading.Lock()
        self._queue: list[_Slot] = []
        self._committing = False

    def put(self, row: LedgerRow) -> LedgerRow:
        slot = _Slot(row)
        with self._mutex:
            self._queue.append(slot)
            lead = not self._committing
            self._committing = True
        if not lead:
            slot.wake.acquire()  # until its commit is done, or it is to lead the next one
        if not slot.done:
            self._lead()
        if slot.error is not None:
            raise slot.error
        return slot.result

    def _lead(self) -> None:
        """Commit the queued rows (the leader's own first), hand each caller
        its result and the next commit to the first row still queued."""
        with self._mutex:
            batch = self._queue[:self.max_batch]
            del self._queue[:len(batch)]
        try:
            results = self.ledger.put_many([s.row for s in batch])
        except BaseException as exc:  # noqa: BLE001 — handed to every caller
            results, error = [None] * len(batch), exc
        else:
            error = None
        for s, result in zip(batch, results, strict=True):
            s.result, s.error, s.done = result, error, True
        with self._mutex:
            following = self._queue[0] if self._queue else None
            self._committing = following is not None
        for s in batch[1:]:  # batch[0] is the leader's own row
            s.wake.release()
        if following is not None:
            following.wake.release()
