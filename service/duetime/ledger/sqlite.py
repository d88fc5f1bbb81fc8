"""The ledger in one SQLite file: WAL journal, ``synchronous=FULL``, the
schema of :data:`SQLITE_MIGRATIONS` (migrated forward when opened, under
``BEGIN IMMEDIATE``, so any number of processes may open one file at once).
The default store."""

from __future__ import annotations

import logging
import os
import sqlite3
import threading
import time
from collections.abc import Sequence
from itertools import chain
from pathlib import Path

try:
    import fcntl
except ImportError:  # not POSIX: SQLite's own locks alone
    fcntl = None  # type: ignore[assignment]

from duetime.ledger.listing import PageTokens, new_page_token_secret
from duetime.ledger.port import LedgerUnavailable, UnstorableValue, resolve_batch
from duetime.ledger.rows import COLUMNS, LedgerRow, check_rows, row_values
from duetime.ledger.sql import (
    GET_BY_ID,
    GET_BY_KEY,
    PAGE_TOKEN_SECRET,
    SCHEMA_VERSION,
    SqlLedger,
)

log = logging.getLogger(__name__)

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
    """
    CREATE TABLE ledger_secrets (
        name  TEXT PRIMARY KEY,
        value BLOB NOT NULL
    );
    """,
    """
    CREATE INDEX records_versions
        ON records (receive_time_us, record_id, namespace, calendar_version, tzdata_version);
    """,
)
assert len(SQLITE_MIGRATIONS) == SCHEMA_VERSION

_ROW_PLACEHOLDERS = f"({', '.join('?' * len(COLUMNS))})"
"""The ``(?, …)`` of one row in an INSERT."""
_MAX_INSERT_ROWS = 512
"""Most rows one INSERT statement of :meth:`SqliteLedger.put_many` holds (12
parameters each: 6144, within SQLite's limit since 3.32; an older library's
limit of 999 makes it 64)."""


def _insert_statement(rows: int) -> str:
    """The INSERT of ``rows`` rows, ignoring rows whose id or key is held."""
    return (f"INSERT INTO records ({', '.join(COLUMNS)}) VALUES "
            f"{', '.join([_ROW_PLACEHOLDERS] * rows)} ON CONFLICT DO NOTHING")


_SINGLE_INSERT_ROWS = 16
"""Batches of at most this many rows go in one INSERT of exactly their size."""


def _statement_sizes(count: int, largest: int = _MAX_INSERT_ROWS) -> list[int]:
    """``count`` rows as INSERT statements: one when ``count`` is at most
    :data:`_SINGLE_INSERT_ROWS` (a group commit), else power-of-two sizes up to
    ``largest`` (a power of two), largest first (1000 → 512, 256, 128, 64,
    32, 8): few statements for any batch, and few distinct statement texts
    for the connection's statement cache."""
    if count <= min(_SINGLE_INSERT_ROWS, largest):
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


_VALUE_ERRORS = (OverflowError, UnicodeEncodeError)
"""What binding a value SQLite cannot take raises (an integer beyond 64 bits,
a text with an unpaired surrogate): the value's fault, never the store's, so
:class:`UnstorableValue`, not LedgerUnavailable."""

_PROBE_WRITE = ("INSERT INTO write_probe (id, written_us) VALUES (1, ?) "
                "ON CONFLICT (id) DO UPDATE SET written_us = excluded.written_us")
"""The write of :meth:`SqliteLedger.ping_write` (µs since the Unix epoch)."""


def _split_script(script: str) -> list[str]:
    """The statements of a migration script (split at ``;``, blank ones dropped)."""
    return [s.strip() for s in script.split(";") if s.strip()]


class _WriterLock:
    """The flock on ``<path>-writer`` that processes sharing one SQLite file
    take to write (see :class:`SqliteLedger`), with a bounded wait.

    :meth:`take` takes it at once when it is free (one system call). When
    another process holds it, the blocking ``flock`` is made by a waiter
    thread of this object (started then, kept), which the kernel wakes the
    moment the holder lets go; the writing thread waits for the waiter for
    ``timeout`` s at most. A write that gave up (its holder stopped, e.g.
    SIGSTOP) leaves the waiter blocked: when it does get the lock it lets
    go of it at once. Only one thread of a process takes it at a time (the
    ledger's own lock), so one waiter serves them all."""

    def __init__(self, fd: int):
        self.fd = fd
        self._mutex = threading.Lock()
        self._asked = threading.Condition(self._mutex)
        self._request: _WriterWait | None = None
        self._waiter: threading.Thread | None = None
        self._waiting = False  # the waiter is inside its blocking flock
        self._closed = False

    def take(self, timeout: float) -> None:
        """Hold the lock, or raise LedgerUnavailable after ``timeout`` s
        (OSError from the system, e.g. ENOLCK)."""
        try:
            fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            pass
        request = _WriterWait()
        with self._mutex:
            self._request = request
            if self._waiter is None:
                self._waiter = threading.Thread(target=self._wait_for_it, daemon=True,
                                                name="duetime-ledger-writer-lock")
                self._waiter.start()
            self._asked.notify()
        if not request.held.wait(timeout):
            with self._mutex:
                if not request.held.is_set():  # else the waiter got it as the wait ended
                    request.abandoned = True
                    if self._request is request:
                        self._request = None
                    raise LedgerUnavailable(f"another process has held the ledger's writer "
                                            f"lock for {timeout:g} s")
        if request.error is not None:
            raise request.error

    def release(self) -> None:
        """Let go of the lock (nothing when not held). The ledger's SQLite
        locks stay what keeps writes apart: in the one race where this
        process writes without the flock (a waiter for a write that gave
        up got it, and lets go), SQLite's own lock serialises the writes."""
        fcntl.flock(self.fd, fcntl.LOCK_UN)

    def close(self) -> None:
        """Close the descriptor; a waiter still blocked in its flock closes
        it once it returns."""
        with self._mutex:
            self._closed = True
            self._asked.notify()
            if self._waiting:
                return
        os.close(self.fd)

    def _wait_for_it(self) -> None:
        while True:
            with self._mutex:
                while self._request is None and not self._closed:
                    self._asked.wait()
                if self._closed:
                    return
                request, self._request = self._request, None
                self._waiting = True
            error: OSError | None = None
            try:
                fcntl.flock(self.fd, fcntl.LOCK_EX)
            except OSError as exc:
                error = exc
            with self._mutex:
                self._waiting = False
                if self._closed:  # close() left the descriptor to this thread
                    os.close(self.fd)
                    return
                if error is None and request.abandoned:
                    fcntl.flock(self.fd, fcntl.LOCK_UN)
                    continue
                request.error = error
                request.held.set()


class _WriterWait:
    """One :meth:`_WriterLock.take` waiting for the waiter thread."""

    __slots__ = ("held", "abandoned", "error")

    def __init__(self):
        self.held = threading.Event()
        self.abandoned = False
        self.error: OSError | None = None


def _writer_lock(path: Path) -> _WriterLock | None:
    """The lock on ``<path>-writer`` that :class:`SqliteLedger`'s writes
    take, made if missing with the ledger file's permissions (as SQLite makes
    ``-wal`` and ``-shm``, so that every user who may write the ledger may
    take it); a symbolic link there is not followed. None, with a warning
    logged, where it cannot be opened (a read-only directory, a directory
    or link in its place): SQLite's own locks alone keep the writes apart
    then."""
    name = f"{path}-writer"
    flags = os.O_RDWR | os.O_CLOEXEC | getattr(os, "O_NOFOLLOW", 0)
    try:
        try:
            fd = os.open(name, flags | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            return _WriterLock(os.open(name, flags))
        try:
            os.fchmod(fd, os.stat(path).st_mode & 0o666)
        except OSError:
            pass  # the file stays 0600: its own user's processes share it
        return _WriterLock(fd)
    except OSError as exc:
        log.warning("ledger %s: cannot open %s (%s): processes writing this ledger take turns "
                    "by SQLite's own locks alone (a waiting writer sleeps up to 100 ms between "
                    "looks)", path, name, exc.strerror or exc)
        return None


class SqliteLedger(SqlLedger):
    """Durable ledger in one SQLite file (WAL journal, ``synchronous=FULL``).

    ``path`` is created with its parent directories if missing, and migrated
    to :data:`SCHEMA_VERSION` under ``BEGIN IMMEDIATE`` (so concurrent opens by
    several processes migrate once; the others wait up to the busy timeout).
    Raises LedgerUnavailable if the file cannot be opened or migrated or is
    newer than this code. The page token secret is made (if the file has
    none) and read in the same transaction.

    One connection, guarded by a lock, serves all threads: SQLite admits one
    writer at a time anyway, every statement is a short indexed lookup or an
    append, and a commit's fsync is the cost that matters — which batching
    (:meth:`put_many`) shares, not more connections.

    Other processes on the same file (``duetime serve --workers N``) write
    one at a time: each write transaction holds an exclusive ``flock`` on
    ``<path>-writer`` (made beside the file, as SQLite makes ``-wal`` and
    ``-shm``; the kernel lets go of it when its holder dies), which the
    kernel hands to a waiting writer the moment it is let go; a writer waits
    for it for the busy timeout (5 s) at most (:class:`_WriterLock`), then
    the write is LedgerUnavailable. SQLite's own lock would do, but a writer finding
    it taken sleeps 1, 2, 5, 10 … 100 ms before it looks again (its busy
    handler): with two workers writing batches, most commits waited so.
    Without ``fcntl`` (not POSIX), SQLite's locks alone.
    """

    BUSY_TIMEOUT_MS = 5000

    def __init__(self, path: str | os.PathLike[str]):
        self.path = Path(path)
        self._lock = threading.Lock()
        self._closed = False
        self._writer: _WriterLock | None = None  # <path>-writer, taken by _write
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None,
                                         timeout=self.BUSY_TIMEOUT_MS / 1000)
            if fcntl is not None:  # after the file is made: the lock takes its permissions
                self._writer = _writer_lock(self.path)
        except (OSError, sqlite3.Error) as exc:
            raise LedgerUnavailable(f"cannot open ledger {self.path}: {exc}") from exc
        try:
            self._conn.execute(f"PRAGMA busy_timeout = {self.BUSY_TIMEOUT_MS}")
            self._set_wal()
            self._conn.execute("PRAGMA synchronous = FULL")
            limit = self._conn.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER) // len(COLUMNS)
            self._insert_rows = min(_MAX_INSERT_ROWS, 1 << (limit.bit_length() - 1))
            self._migrate()
        except LedgerUnavailable:
            self._conn.close()
            self._close_writer()
            raise
        except (OSError, sqlite3.Error) as exc:
            self._conn.close()
            self._close_writer()
            raise LedgerUnavailable(f"cannot open ledger {self.path}: {exc}") from exc

    def _close_writer(self) -> None:
        if self._writer is not None:
            self._writer.close()
            self._writer = None

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
                for statement in _split_script(SQLITE_MIGRATIONS[target - 1]):
                    conn.execute(statement)
                conn.execute("INSERT INTO schema_version (version) VALUES (?)", (target,))
            self.page_tokens = PageTokens(self._page_token_secret())
            conn.execute("COMMIT")
        except BaseException:
            self._rollback()
            raise

    def _page_token_secret(self) -> bytes:
        """The ledger's page token secret, made now if it has none (inside
        :meth:`_migrate`'s transaction: concurrent first opens agree)."""
        read = "SELECT value FROM ledger_secrets WHERE name = ?"
        found = self._conn.execute(read, (PAGE_TOKEN_SECRET,)).fetchone()
        if found is None:
            self._conn.execute("INSERT INTO ledger_secrets (name, value) VALUES (?, ?)",
                               (PAGE_TOKEN_SECRET, new_page_token_secret()))
            found = self._conn.execute(read, (PAGE_TOKEN_SECRET,)).fetchone()
        return bytes(found[0])

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
            except _VALUE_ERRORS as exc:
                raise UnstorableValue(f"ledger {self.path}: {exc}") from exc
            except sqlite3.Error as exc:
                raise self._unavailable(exc) from exc

    def _write(self, work, transaction: bool = True) -> object:
        """Run ``work()`` in one ``BEGIN IMMEDIATE`` … ``COMMIT`` under the lock
        (``transaction=False``: ``work`` writes with one statement, which
        SQLite commits by itself); roll back and raise LedgerUnavailable on
        any store error, UnstorableValue on a value SQLite cannot take. Other
        processes' writes wait for it, and it for theirs, on ``<path>-writer``
        (see the class docstring)."""
        with self._lock:
            if self._closed:
                raise LedgerUnavailable(f"ledger {self.path} is closed")
            writer = self._writer
            try:
                if writer is not None:
                    writer.take(self.BUSY_TIMEOUT_MS / 1000)
                if transaction:
                    self._conn.execute("BEGIN IMMEDIATE")
                result = work()
                if transaction:
                    self._conn.execute("COMMIT")
                return result
            except LedgerUnavailable:
                self._rollback()
                raise
            except _VALUE_ERRORS as exc:
                self._rollback()
                raise UnstorableValue(f"ledger {self.path}: {exc}") from exc
            except (sqlite3.Error, OSError) as exc:  # OSError: the flock (ENOLCK)
                self._rollback()
                raise self._unavailable(exc) from exc
            except BaseException:
                self._rollback()
                raise
            finally:
                if writer is not None:
                    writer.release()

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
                values = list(chain.from_iterable(map(row_values, rows[first:first + size])))
                inserted += conn.execute(_insert_statement(size), values).rowcount
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
        self._write(lambda: self._conn.execute(_PROBE_WRITE, (time.time_ns() // 1000,)))

    def _verify_store(self) -> list[str]:
        result = [r[0] for r in self._fetch("PRAGMA quick_check")]
        return [] if result == ["ok"] else [f"ledger {self.path}: quick_check: {r}" for r in result]

    def close(self) -> None:
        with self._lock:
            self._closed = True
            self._conn.close()
            self._close_writer()

