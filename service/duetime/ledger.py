"""The ledger: one stored row per answered computing call (SPEC §8).

A :class:`Ledger` stores :class:`LedgerRow` values and finds them by record id
or by idempotency key. Two implementations: :class:`SqliteLedger` (durable,
the service's default) and :class:`MemoryLedger` (unit tests). A PostgreSQL
implementation can be added behind the same interface; the schema is versioned
(:data:`SCHEMA_VERSION`) for that and for migrations.

Errors: :class:`LedgerUnavailable` whenever the store cannot be opened, read or
written (the caller must then not answer); :class:`DuplicateKey` when a put
reuses an idempotency key another row already holds.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import threading
import uuid
from abc import ABC, abstractmethod
from dataclasses import astuple, dataclass, fields, replace
from pathlib import Path

SCHEMA_VERSION = 1


class LedgerUnavailable(Exception):
    """The ledger cannot be opened, read or written; no answer may be returned."""


class DuplicateKey(Exception):
    """A put used an idempotency key that another row already holds."""

    def __init__(self, key: str):
        super().__init__(f"idempotency key {key!r} is already recorded")
        self.key = key


def new_record_id() -> str:
    """Return a fresh record id: 32 lower-case hex digits (a random UUID4)."""
    return uuid.uuid4().hex


def sha256_hex(data: bytes) -> str:
    """Hex SHA-256 of ``data``."""
    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True)
class LedgerRow:
    """One recorded call. Build it with :meth:`create`, which fills the digests.

    - ``record_id``: unique id (see :func:`new_record_id`).
    - ``method``: full gRPC method, e.g. ``/duetime.v1.DueTimeService/ComputeDueTime``.
    - ``receive_time_us``: when the call was received, µs since the Unix epoch (UTC).
    - ``idempotency_key``: client key, ``""`` when none; unique when non-empty.
    - ``request_hash``: hex SHA-256 of ``request``.
    - ``request`` / ``response``: canonical (deterministic) protobuf bytes.
    - ``calendar_version``, ``rules_version``, ``tzdata_version``: versions used.
    - ``content_sha256``: hex SHA-256 over all the fields above (see :meth:`digest`).
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
    ) -> LedgerRow:
        """Return a row with ``request_hash`` and ``content_sha256`` computed."""
        row = cls(
            record_id, method, receive_time_us, idempotency_key, sha256_hex(request),
            request, response, calendar_version, rules_version, tzdata_version, "",
        )
        return replace(row, content_sha256=row.digest())

    def digest(self) -> str:
        """Hex SHA-256 of the row's content: every field but ``content_sha256``,
        in declaration order, each as 8-byte big-endian length + bytes (text UTF-8,
        integers in decimal). Equal to ``content_sha256`` for an intact row."""
        h = hashlib.sha256()
        for value in astuple(self)[:-1]:
            data = value if isinstance(value, bytes) else str(value).encode()
            h.update(len(data).to_bytes(8, "big"))
            h.update(data)
        return h.hexdigest()


COLUMNS = tuple(f.name for f in fields(LedgerRow))


class Ledger(ABC):
    """Storage port for records. Implementations are safe to share across threads."""

    @abstractmethod
    def put(self, row: LedgerRow) -> None:
        """Store ``row`` durably before returning.

        Raises DuplicateKey if ``row.idempotency_key`` is non-empty and already
        held by a stored row; LedgerUnavailable if the row cannot be written.
        """

    @abstractmethod
    def get(self, record_id: str) -> LedgerRow | None:
        """Return the row with this id, or None. Raises LedgerUnavailable."""

    @abstractmethod
    def get_by_key(self, idempotency_key: str) -> LedgerRow | None:
        """Return the row holding this non-empty key, or None. Raises LedgerUnavailable."""

    def close(self) -> None:
        """Release resources; the ledger is unusable afterwards."""


class MemoryLedger(Ledger):
    """In-process, non-durable ledger for unit tests."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_id: dict[str, LedgerRow] = {}
        self._by_key: dict[str, LedgerRow] = {}

    def put(self, row: LedgerRow) -> None:
        with self._lock:
            if row.idempotency_key and row.idempotency_key in self._by_key:
                raise DuplicateKey(row.idempotency_key)
            if row.record_id in self._by_id:
                raise LedgerUnavailable(f"record id {row.record_id} already stored")
            self._by_id[row.record_id] = row
            if row.idempotency_key:
                self._by_key[row.idempotency_key] = row

    def get(self, record_id: str) -> LedgerRow | None:
        with self._lock:
            return self._by_id.get(record_id)

    def get_by_key(self, idempotency_key: str) -> LedgerRow | None:
        with self._lock:
            return self._by_key.get(idempotency_key)


def default_db_path() -> Path:
    """``$XDG_DATA_HOME/duetime/ledger.db``, else ``~/.local/share/duetime/ledger.db``."""
    base = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return Path(base) / "duetime" / "ledger.db"


_SCHEMA = f"""
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
INSERT INTO schema_version (version)
    SELECT {SCHEMA_VERSION} WHERE NOT EXISTS (SELECT 1 FROM schema_version);
"""

_INSERT = f"INSERT INTO records ({', '.join(COLUMNS)}) VALUES ({', '.join('?' * len(COLUMNS))})"
_SELECT = f"SELECT {', '.join(COLUMNS)} FROM records WHERE "


class SqliteLedger(Ledger):
    """Durable ledger in one SQLite file (WAL journal, ``synchronous=FULL``).

    ``path`` is created with its parent directories if missing. One connection,
    guarded by a lock, serves all threads. Raises LedgerUnavailable if the file
    cannot be opened or holds an unknown schema version.
    """

    def __init__(self, path: str | os.PathLike[str]):
        self.path = Path(path)
        self._lock = threading.Lock()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            self._conn.execute("PRAGMA busy_timeout = 5000")
            self._conn.execute("PRAGMA journal_mode = WAL")
            self._conn.execute("PRAGMA synchronous = FULL")
            self._conn.executescript(f"BEGIN IMMEDIATE; {_SCHEMA} COMMIT;")
            (version,) = self._conn.execute("SELECT max(version) FROM schema_version").fetchone()
        except (OSError, sqlite3.Error) as exc:
            raise LedgerUnavailable(f"cannot open ledger {self.path}: {exc}") from exc
        if version != SCHEMA_VERSION:
            self._conn.close()
            raise LedgerUnavailable(
                f"ledger {self.path} has schema version {version}, expected {SCHEMA_VERSION}"
            )

    def _run(self, sql: str, params: tuple) -> list[tuple]:
        """Execute one statement under the lock; sqlite errors other than
        IntegrityError become LedgerUnavailable."""
        with self._lock:
            try:
                return self._conn.execute(sql, params).fetchall()
            except sqlite3.IntegrityError:
                raise
            except sqlite3.Error as exc:
                raise LedgerUnavailable(f"ledger {self.path}: {exc}") from exc

    def put(self, row: LedgerRow) -> None:
        try:
            self._run(_INSERT, astuple(row))
        except sqlite3.IntegrityError as exc:
            if row.idempotency_key and self.get_by_key(row.idempotency_key):
                raise DuplicateKey(row.idempotency_key) from exc
            raise LedgerUnavailable(f"ledger {self.path}: {exc}") from exc

    def _one(self, where: str, value: str) -> LedgerRow | None:
        rows = self._run(_SELECT + where, (value,))
        return LedgerRow(*rows[0]) if rows else None

    def get(self, record_id: str) -> LedgerRow | None:
        return self._one("record_id = ?", record_id)

    def get_by_key(self, idempotency_key: str) -> LedgerRow | None:
        return self._one("idempotency_key = ? AND idempotency_key <> ''", idempotency_key)

    def close(self) -> None:
        with self._lock:
            self._conn.close()
