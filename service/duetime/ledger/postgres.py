"""The ledger in PostgreSQL, through psycopg 3 (``pip install 'duetime[postgres]'``).

Same schema as the SQLite store (``BIGINT`` times, ``BYTEA`` messages,
``COLLATE "C"`` ids and keys so listing order is code-point order as in the
other stores), same forward migrations, applied when a
:class:`PostgresLedger` opens, inside one transaction that first takes
``pg_advisory_xact_lock(MIGRATION_LOCK)``: one process migrates, the others
wait for it and then find nothing to do.

Connections come from a small pool of its own (:class:`_Pool`, at most
``max_connections``, created on demand, kept idle for reuse) rather than
psycopg_pool, for two behaviours a ledger needs: when the database is down a
call fails at once (connection refused, or ``connect_timeout``) instead of
waiting out a pool timeout, and the first call after the database is back
connects at once instead of waiting out a reconnection backoff. A pooled
connection found dead (server restarted, backend terminated) is dropped, with
every other idle one, and the call retried once on a fresh connection — safe
even for writes, because :meth:`PostgresLedger.put_many` is idempotent by
record id and by key.

Every psycopg error (refused or lost connection, read-only database, disk full,
timeouts …) becomes LedgerUnavailable with a short reason naming
``host:port/dbname`` (never the password), except those a value of the
request causes (:func:`value_error`: psycopg's ``DataError``, such as a NUL in
a text, and a text that is not UTF-8), which become UnstorableValue: the
database is up, so the ledger is not marked down.

psycopg is an optional dependency, imported when the first
:class:`PostgresLedger` opens (:func:`load_psycopg`): importing this module
costs a SQLite-only process nothing.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import TYPE_CHECKING, TypeVar

from duetime.ledger.listing import PageTokens, new_page_token_secret
from duetime.ledger.port import LedgerUnavailable, UnstorableValue, resolve_batch
from duetime.ledger.postgres_urls import postgres_label
from duetime.ledger.rows import COLUMNS, LedgerRow, check_rows
from duetime.ledger.sql import PAGE_TOKEN_SECRET, SCHEMA_VERSION, SELECT_ROWS, SqlLedger

if TYPE_CHECKING:
    import psycopg

T = TypeVar("T")

MIGRATION_LOCK = int.from_bytes(b"duetime", "big")
"""``pg_advisory_xact_lock`` key held while migrating (the bytes of "duetime")."""

_SCHEMA_TABLE = """
CREATE TABLE IF NOT EXISTS schema_version (
    version    INTEGER PRIMARY KEY,
    applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
)"""

PG_MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (  # 1: records, keys unique ledger-wide
        """CREATE TABLE records (
            record_id        TEXT COLLATE "C" PRIMARY KEY,
            method           TEXT NOT NULL,
            receive_time_us  BIGINT NOT NULL,
            idempotency_key  TEXT COLLATE "C" NOT NULL,
            request_hash     TEXT NOT NULL,
            request          BYTEA NOT NULL,
            response         BYTEA NOT NULL,
            calendar_version TEXT NOT NULL,
            rules_version    TEXT NOT NULL,
            tzdata_version   TEXT NOT NULL,
            content_sha256   TEXT NOT NULL
        )""",
        """CREATE UNIQUE INDEX records_idempotency_key
            ON records (idempotency_key) WHERE idempotency_key <> ''""",
    ),
    (  # 2: namespaces, time index, write probe
        """ALTER TABLE records ADD COLUMN namespace TEXT COLLATE "C" NOT NULL DEFAULT ''""",
        "DROP INDEX records_idempotency_key",
        """CREATE UNIQUE INDEX records_namespace_key
            ON records (namespace, idempotency_key) WHERE idempotency_key <> ''""",
        "CREATE INDEX records_time ON records (receive_time_us, record_id)",
        """CREATE TABLE write_probe (
            id         INTEGER PRIMARY KEY CHECK (id = 1),
            written_us BIGINT NOT NULL
        )""",
    ),
    (  # 3: the secrets of the ledger (the page token secret)
        """CREATE TABLE ledger_secrets (
            name  TEXT PRIMARY KEY,
            value BYTEA NOT NULL
        )""",
    ),
    (  # 4: the versions of each record in listing order (impact analysis)
        """CREATE INDEX records_versions
            ON records (receive_time_us, record_id, namespace, calendar_version, tzdata_version)""",
    ),
)
assert len(PG_MIGRATIONS) == SCHEMA_VERSION

_MAX_INSERT_ROWS = 1000  # rows per INSERT statement (12 parameters each; the limit is 65535)
_ROW_PLACEHOLDERS = "(" + ", ".join(["%s"] * len(COLUMNS)) + ")"
_INSERT_HEAD = f"INSERT INTO records ({', '.join(COLUMNS)}) VALUES "
_INSERT_TAIL = " ON CONFLICT DO NOTHING RETURNING record_id"
_BY_IDS = SELECT_ROWS + " WHERE record_id = ANY(%s)"
_BY_KEYS = (SELECT_ROWS + " WHERE idempotency_key <> '' AND (namespace, idempotency_key) IN "
            "(SELECT * FROM unnest(%s::text[], %s::text[]))")
_PROBE = ("INSERT INTO write_probe (id, written_us) VALUES (1, %s) "
          "ON CONFLICT (id) DO UPDATE SET written_us = excluded.written_us")


def load_psycopg() -> ModuleType:
    """The ``psycopg`` (version 3) module, imported on first use. Raises
    LedgerUnavailable when it is not installed."""
    try:
        import psycopg
        import psycopg.conninfo
    except ImportError:
        raise LedgerUnavailable("a PostgreSQL ledger needs psycopg 3: "
                                "pip install 'duetime[postgres]'") from None
    return psycopg


def _pg(sql: str) -> str:
    """The shared SQL's ``?`` placeholders in psycopg's style."""
    return sql.replace("?", "%s")


def value_error(psycopg: ModuleType, exc: BaseException) -> bool:
    """Whether ``exc``, raised by a statement, is the fault of a value it was
    given rather than of the database: psycopg's ``DataError`` (SQLSTATE class
    22, data exception, or a text holding a NUL, refused before it is sent)
    or a text that cannot be encoded (an unpaired surrogate)."""
    return isinstance(exc, (psycopg.DataError, UnicodeEncodeError))


def _reason(exc: BaseException) -> str:
    """The first line of an error's text (its type's name when empty), cut to
    200 characters: the reason a LedgerUnavailable gives."""
    text = str(exc).strip().splitlines()
    line = text[0] if text else type(exc).__name__
    return line if len(line) <= 200 else line[:197] + "..."


class _Pool:
    """At most ``size`` autocommit connections to ``conninfo``; idle ones are reused.

    :meth:`take` waits up to ``acquire_timeout`` s for a free slot, then
    returns an idle connection (most recently used first) or a new one.
    :meth:`give` keeps a healthy connection idle and drops a broken one.
    """

    def __init__(self, psycopg: ModuleType, conninfo: str, size: int, acquire_timeout: float,
                 setup: Callable[[psycopg.Connection], None], label: str):
        self._psycopg = psycopg
        self._conninfo, self._setup, self._label = conninfo, setup, label
        self._size, self._acquire_timeout = size, acquire_timeout
        self._slots = threading.BoundedSemaphore(size)
        self._lock = threading.Lock()
        self._idle: list[psycopg.Connection] = []
        self._closed = False

    def take(self, fresh: bool = False) -> tuple[psycopg.Connection, bool]:
        """(connection, reused); ``fresh``: first close every idle connection
        (one was found dead: the others likely died with it). Raises
        LedgerUnavailable."""
        if self._closed:
            raise LedgerUnavailable(f"ledger {self._label} is closed")
        if not self._slots.acquire(timeout=self._acquire_timeout):
            raise LedgerUnavailable(f"ledger {self._label}: all {self._size} connections stayed "
                                    f"busy for {self._acquire_timeout:g} s")
        with self._lock:
            if fresh:
                stale, self._idle = self._idle, []
            else:
                stale = []
            conn = self._idle.pop() if self._idle else None
        for old in stale:
            old.close()
        if conn is not None:
            return conn, True
        try:
            conn = self._psycopg.connect(self._conninfo, autocommit=True)
            self._setup(conn)
            return conn, False
        except BaseException as exc:
            self._slots.release()
            if isinstance(exc, self._psycopg.Error):
                raise LedgerUnavailable(f"ledger {self._label}: {_reason(exc)}") from exc
            raise

    def give(self, conn: psycopg.Connection) -> None:
        """Return a connection from :meth:`take`."""
        psycopg = self._psycopg
        try:
            keep = not (conn.closed or conn.broken)
            if keep and conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
                try:
                    conn.rollback()
                except psycopg.Error:
                    keep = False
            with self._lock:
                if keep and not self._closed:
                    self._idle.append(conn)
                    return
            conn.close()
        finally:
            self._slots.release()

    def close(self) -> None:
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
        for conn in idle:
            conn.close()


class PostgresLedger(SqlLedger):
    """Durable ledger in a PostgreSQL database (``dsn``: a libpq URL).

    Opening connects, migrates to :data:`SCHEMA_VERSION` (see the module
    docstring) and keeps that connection for reuse. Options:

    - ``max_connections`` (10): pool size; a call finding all in use waits up
      to ``acquire_timeout`` s (5) and then fails with LedgerUnavailable. Size
      it to the number of threads that use the ledger at once.
    - ``connect_timeout`` (5 s, libpq's minimum is 2) unless the DSN sets one.
    - ``statement_timeout`` (30 s): server-side limit per statement.

    Raises LedgerUnavailable if psycopg is missing, the database cannot be
    reached or migrated, or its schema is newer than this code. The page
    token secret is made (if the database has none) and read in the
    migration's transaction.
    """

    def __init__(self, dsn: str, *, max_connections: int = 10, connect_timeout: float = 5,
                 acquire_timeout: float = 5, statement_timeout: float = 30):
        self._psycopg = psycopg = load_psycopg()
        try:
            params = psycopg.conninfo.conninfo_to_dict(dsn)
        except psycopg.Error as exc:
            # libpq's reason quotes the URL or the part it failed on: the password, maybe
            raise LedgerUnavailable(
                "bad PostgreSQL URL: libpq cannot parse it (not repeated here: it may hold a "
                "password); check the brackets around an IPv6 host, and write a % in the "
                "user or password as %25") from None
        host = params.get("host") or params.get("hostaddr") or "localhost"
        self.label = postgres_label(host, params.get("port"), params.get("dbname") or "")
        extra = {"application_name": "duetime"}
        if "connect_timeout" not in params:
            extra["connect_timeout"] = str(max(2, round(connect_timeout)))
        conninfo = psycopg.conninfo.make_conninfo(dsn, **{k: v for k, v in extra.items()
                                                          if k not in params})
        timeout_ms = int(statement_timeout * 1000)

        def setup(conn: psycopg.Connection) -> None:
            conn.execute(f"SET statement_timeout = {timeout_ms}")

        self._pool = _Pool(psycopg, conninfo, max_connections, acquire_timeout, setup, self.label)
        try:
            self._run(self._migrate)
        except BaseException:
            self._pool.close()
            raise

    # --- plumbing -------------------------------------------------------------
    def _run(self, work: Callable[[psycopg.Connection], T]) -> T:
        """``work(conn)`` on a pooled connection; once more on a fresh one if a
        reused connection turns out dead. A value's error (:func:`value_error`)
        → UnstorableValue; other psycopg errors → LedgerUnavailable."""
        for attempt in (1, 2):
            conn, reused = self._pool.take(fresh=attempt == 2)
            try:
                return work(conn)
            except (self._psycopg.Error, UnicodeEncodeError) as exc:
                if value_error(self._psycopg, exc):
                    raise UnstorableValue(f"ledger {self.label}: {_reason(exc)}") from exc
                dead = conn.closed or conn.broken
                if not (dead and reused and attempt == 1):
                    raise LedgerUnavailable(f"ledger {self.label}: {_reason(exc)}") from exc
            finally:
                self._pool.give(conn)
        raise AssertionError("unreachable")

    def _fetch(self, sql: str, params: Sequence = ()) -> list[tuple]:
        return self._run(lambda conn: conn.execute(_pg(sql), params).fetchall())

    def _migrate(self, conn: psycopg.Connection) -> None:
        with conn.transaction():
            conn.execute("SET LOCAL statement_timeout = '10min'")
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
            conn.execute(_SCHEMA_TABLE)
            (version,) = conn.execute("SELECT coalesce(max(version), 0) FROM schema_version").fetchone()
            if version > SCHEMA_VERSION:
                raise LedgerUnavailable(f"ledger {self.label} has schema version {version}, "
                                        f"newer than this duetime's {SCHEMA_VERSION}")
            for target in range(version + 1, SCHEMA_VERSION + 1):
                for statement in PG_MIGRATIONS[target - 1]:
                    conn.execute(statement)
                conn.execute("INSERT INTO schema_version (version) VALUES (%s)", (target,))
            read = "SELECT value FROM ledger_secrets WHERE name = %s"
            found = conn.execute(read, (PAGE_TOKEN_SECRET,)).fetchone()
            if found is None:  # made once, under the lock: every process reads the same
                conn.execute("INSERT INTO ledger_secrets (name, value) VALUES (%s, %s)",
                             (PAGE_TOKEN_SECRET, new_page_token_secret()))
                found = conn.execute(read, (PAGE_TOKEN_SECRET,)).fetchone()
            self.page_tokens = PageTokens(bytes(found[0]))

    # --- writes ---------------------------------------------------------------
    def put_many(self, rows: Sequence[LedgerRow]) -> list[LedgerRow]:
        rows = check_rows(rows)
        if not rows:
            return []
        chunks = [rows[i:i + _MAX_INSERT_ROWS] for i in range(0, len(rows), _MAX_INSERT_ROWS)]

        def insert(conn: psycopg.Connection, chunk: Sequence[LedgerRow]) -> set[str]:
            sql = _INSERT_HEAD + ", ".join([_ROW_PLACEHOLDERS] * len(chunk)) + _INSERT_TAIL
            params = [value for row in chunk for value in row.values()]
            return {r[0] for r in conn.execute(sql, params).fetchall()}

        def work(conn: psycopg.Connection) -> list[LedgerRow]:
            if len(chunks) == 1:  # autocommit: one statement, one transaction, one round trip
                inserted = insert(conn, chunks[0])
                return self._resolve(conn, rows, inserted)
            with conn.transaction():
                inserted = set().union(*(insert(conn, chunk) for chunk in chunks))
                return self._resolve(conn, rows, inserted)

        return self._run(work)

    @staticmethod
    def _resolve(conn: psycopg.Connection, rows: list[LedgerRow], inserted: set[str]) -> list[LedgerRow]:
        rest = [row for row in rows if row.record_id not in inserted]
        by_id, by_key = {}, {}
        if rest:
            for found in conn.execute(_BY_IDS, ([r.record_id for r in rest],)):
                by_id[found[0]] = LedgerRow(*found)
            keyed = [r for r in rest if r.idempotency_key and r.record_id not in by_id]
            if keyed:
                spaces, keys = [r.namespace for r in keyed], [r.idempotency_key for r in keyed]
                for found in conn.execute(_BY_KEYS, (spaces, keys)):
                    row = LedgerRow(*found)
                    by_key[(row.namespace, row.idempotency_key)] = row
        return resolve_batch(rows, inserted, by_id, by_key)

    def ping_write(self) -> None:
        self._run(lambda conn: conn.execute(_PROBE, (time.time_ns() // 1000,)))

    # --- reads ----------------------------------------------------------------

    def close(self) -> None:
        self._pool.close()
