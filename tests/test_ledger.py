"""Ledger contract, run against the in-memory, SQLite and PostgreSQL stores.

PostgreSQL comes from tests/pg.py: one server per session, a fresh database
per test; these tests fail (not skip) when it cannot be had.
"""

from __future__ import annotations

import logging
import multiprocessing
import resource
import sqlite3
import threading
import time
from contextlib import contextmanager
from dataclasses import replace

import psycopg
import pytest
from duetime.ledger import (
    SCHEMA_VERSION,
    DuplicateKey,
    GroupCommit,
    Ledger,
    LedgerRow,
    LedgerUnavailable,
    MemoryLedger,
    SqliteLedger,
    default_db_path,
    open_ledger,
    sha256_hex,
)
from duetime.ledger.postgres import PostgresLedger
from pg import admin_sql, dbname, pg_database, pg_dsn, scratch_server  # noqa: F401  (fixtures)

T0 = 1_796_223_600_123_456


def make_row(record_id: str, key: str = "", request: bytes = b"req", *, namespace: str = "",
             time_us: int = T0) -> LedgerRow:
    return LedgerRow.create(
        record_id=record_id,
        method="/duetime.v1.DueTimeService/ComputeDueTime",
        receive_time_us=time_us,
        idempotency_key=key,
        request=request,
        response=b"resp",
        calendar_version="cal-0123456789abcdef",
        rules_version="2026.1",
        tzdata_version="2026a",
        namespace=namespace,
    )


class Backend:
    """One store under test: opens ledgers on it and runs raw SQL in it."""

    def __init__(self, name: str, tmp_path, request):
        self.name = name
        self.path = tmp_path / "data" / "ledger.db"
        self.dsn = request.getfixturevalue("pg_dsn") if name == "postgres" else None
        self.memory = MemoryLedger() if name == "memory" else None
        self.opened: list[Ledger] = []

    def open(self) -> Ledger:
        if self.name == "memory":
            store = self.memory
        elif self.name == "sqlite":
            store = SqliteLedger(self.path)
        else:
            store = PostgresLedger(self.dsn, connect_timeout=2, acquire_timeout=2)
        self.opened.append(store)
        return store

    def sql(self, statement: str, params: tuple = ()) -> list[tuple]:
        """Run one raw statement in the store, outside the ledger."""
        if self.name == "sqlite":
            conn = sqlite3.connect(self.path, isolation_level=None)
            try:
                return conn.execute(statement, params).fetchall()
            finally:
                conn.close()
        assert self.name == "postgres", "no SQL in a MemoryLedger"
        return admin_sql(statement.replace("?", "%s"), params, dsn=self.dsn)

    def close(self) -> None:
        for store in self.opened:
            store.close()


@pytest.fixture(params=["memory", "sqlite", "postgres"])
def backend(request, tmp_path):
    b = Backend(request.param, tmp_path, request)
    yield b
    b.close()


@pytest.fixture(params=["sqlite", "postgres"])
def durable(request, tmp_path):
    b = Backend(request.param, tmp_path, request)
    yield b
    b.close()


@pytest.fixture
def ledger(backend):
    return backend.open()


# --- rows ---------------------------------------------------------------------

def test_row_digests():
    row = make_row("r1", request=b"abc")
    assert row.request_hash == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    assert row.request_hash == sha256_hex(b"abc")
    assert row.content_sha256 == row.digest() and len(row.content_sha256) == 64
    assert make_row("r2", request=b"abc").content_sha256 != row.content_sha256


def test_digest_is_stable_and_covers_the_namespace():
    # Pinned: the digest of a default-namespace row is the schema-1 digest, so
    # rows written before namespaces still verify.
    row = make_row("r1", key="k", request=b"abc")
    assert row.namespace == ""
    assert row.content_sha256 == "180c8c28c91fc14947527a7d77c48031b81fe18a9f2eccdd886f154808324ecc"
    spaced = make_row("r1", key="k", request=b"abc", namespace="team-a")
    assert spaced.content_sha256 == "fa998e4c4394da8f6fdb6082a1d29adff887a01fc5aa9d0b7b8a917c5768301b"
    assert make_row("r1", key="k", request=b"abc", namespace="team-b").content_sha256 not in (
        row.content_sha256, spaced.content_sha256)
    assert replace(spaced, namespace="").digest() == row.content_sha256


def test_row_without_namespace_builds_positionally():
    row = make_row("r1")
    fields11 = (row.record_id, row.method, row.receive_time_us, row.idempotency_key, row.request_hash,
                row.request, row.response, row.calendar_version, row.rules_version,
                row.tzdata_version, row.content_sha256)
    assert LedgerRow(*fields11) == row


# --- put / get ------------------------------------------------------------------

def test_put_then_get_by_id_and_key(ledger):
    row = make_row("r1", key="k1")
    ledger.put(row)
    assert ledger.get("r1") == row
    assert ledger.get_by_key("k1") == row
    assert ledger.get_by_key("k1", namespace="") == row
    assert ledger.get("nope") is None
    assert ledger.get_by_key("nope") is None
    assert ledger.get_by_key("k1", namespace="other") is None


def test_idempotency_key_is_unique(ledger):
    ledger.put(make_row("r1", key="k"))
    with pytest.raises(DuplicateKey) as caught:
        ledger.put(make_row("r2", key="k", request=b"other"))
    assert caught.value.key == "k" and caught.value.namespace == ""
    assert str(caught.value) == "idempotency key 'k' is already recorded"
    assert ledger.get("r2") is None
    assert ledger.get_by_key("k").record_id == "r1"


def test_keys_are_scoped_by_namespace(ledger):
    ledger.put(make_row("r1", key="k", namespace="team-a"))
    ledger.put(make_row("r2", key="k", namespace="team-b"))
    ledger.put(make_row("r3", key="k"))
    assert ledger.get_by_key("k", namespace="team-a").record_id == "r1"
    assert ledger.get_by_key("k", namespace="team-b").record_id == "r2"
    assert ledger.get_by_key("k").record_id == "r3"
    with pytest.raises(DuplicateKey) as caught:
        ledger.put(make_row("r4", key="k", namespace="team-a"))
    assert (caught.value.key, caught.value.namespace) == ("k", "team-a")
    assert str(caught.value) == "idempotency key 'k' is already recorded in namespace 'team-a'"
    assert ledger.get("r4") is None
    assert ledger.get("r2").namespace == "team-b"


def test_empty_keys_do_not_collide(ledger):
    ledger.put(make_row("r1"))
    ledger.put(make_row("r2"))
    assert ledger.get("r1").record_id == "r1" and ledger.get("r2").record_id == "r2"
    assert ledger.get_by_key("") is None


def test_put_is_idempotent_by_record_id(ledger):
    row = make_row("r1", key="k")
    ledger.put(row)
    ledger.put(row)  # a retry after an unknown outcome
    assert ledger.list_records() == ([row], "")
    with pytest.raises(LedgerUnavailable, match="r1 is already stored with other content"):
        ledger.put(make_row("r1", key="k", request=b"other"))
    assert ledger.get("r1") == row


def test_rows_round_trip_exactly(ledger):
    row = LedgerRow.create(
        record_id="r1", method="/m", receive_time_us=2**63 - 1, idempotency_key="ключ ✓",
        request=bytes(range(256)), response=b"\x00", calendar_version="", rules_version="",
        tzdata_version="", namespace="équipe",
    )
    ledger.put(row)
    assert ledger.get("r1") == row
    assert ledger.get_by_key("ключ ✓", namespace="équipe") == row
    assert type(ledger.get("r1").request) is bytes


# --- put_many -------------------------------------------------------------------

def test_put_many_mixes_new_rows_and_held_keys(ledger):
    held = make_row("held", key="k1")
    ledger.put(held)
    batch = [
        make_row("b", time_us=T0 + 1),                      # new, no key
        make_row("c", key="k1", request=b"retry"),          # key held by a stored row
        make_row("d", key="k2", time_us=T0 + 2),            # new key
        make_row("e", key="k2", request=b"again"),          # key held by an earlier row of the batch
        make_row("f", key="k1", namespace="x", time_us=T0 + 3),  # same key, other namespace: new
        held,                                               # already stored, identical
    ]
    result = ledger.put_many(batch)
    assert [r.record_id for r in result] == ["b", "held", "d", "d", "f", "held"]
    assert result[1] == held and result[3] == batch[2] and result[0] == batch[0]
    assert [r.record_id for r in ledger.iter_records()] == ["held", "b", "d", "f"]
    assert ledger.get("c") is None and ledger.get("e") is None
    assert ledger.put_many([]) == []


def test_put_many_rejects_unstorable_rows_before_writing(ledger):
    with pytest.raises(ValueError, match="same record_id"):
        ledger.put_many([make_row("a"), make_row("b"), make_row("a", key="k")])
    with pytest.raises(ValueError, match="idempotency_key contains a NUL"):
        ledger.put_many([make_row("a"), make_row("b", key="k\x00")])
    with pytest.raises(ValueError, match="namespace contains a NUL"):
        ledger.put(make_row("c", namespace="\x00"))
    assert ledger.list_records() == ([], "")


@pytest.mark.parametrize("name", ["sqlite", "postgres"])
def test_put_many_failing_midway_stores_nothing(name, tmp_path, request):
    """The store rejects the last row of a batch (a trigger): nothing of it stays."""
    b = Backend(name, tmp_path, request)
    try:
        store = b.open()
        store.put(make_row("held", key="k"))
        if name == "sqlite":
            b.sql("CREATE TRIGGER boom BEFORE INSERT ON records WHEN NEW.record_id = 'boom' "
                  "BEGIN SELECT RAISE(ABORT, 'boom refused'); END")
        else:
            b.sql("CREATE FUNCTION boom() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
                  "IF NEW.record_id = 'boom' THEN RAISE EXCEPTION 'boom refused'; END IF; "
                  "RETURN NEW; END $$")
            b.sql("CREATE TRIGGER boom BEFORE INSERT ON records FOR EACH ROW EXECUTE FUNCTION boom()")
        batch = [make_row("a", time_us=T0 + 1), make_row("b", key="k"), make_row("c", key="new"),
                 make_row("boom")]
        with pytest.raises(LedgerUnavailable, match="boom refused"):
            store.put_many(batch)
        assert [r.record_id for r in store.iter_records()] == ["held"]
        assert store.get_by_key("new") is None
        assert [r.record_id for r in store.put_many(batch[:3])] == ["a", "held", "c"]
    finally:
        b.close()


def test_sqlite_put_many_is_one_commit(tmp_path):
    store = SqliteLedger(tmp_path / "ledger.db")
    store.put(make_row("held", key="k0"))
    statements: list[str] = []
    store._conn.set_trace_callback(statements.append)
    rows = [make_row(f"r{i:03}", key=f"k{i % 60}") for i in range(120)]
    result = store.put_many(rows)
    store._conn.set_trace_callback(None)
    assert [s for s in statements if s in ("BEGIN IMMEDIATE", "COMMIT")] == ["BEGIN IMMEDIATE", "COMMIT"]
    assert len({r.record_id for r in result}) == 60
    store.close()


@pytest.mark.parametrize("count", [50, 2500])  # 2500: more than one INSERT statement
def test_postgres_put_many_is_one_transaction(pg_dsn, count):
    store = PostgresLedger(pg_dsn)
    store.put(make_row("held", key="k0"))
    rows = [make_row(f"r{i:05}", key=f"k{i % 1000}") for i in range(count)]
    result = store.put_many(rows)
    assert len({r.record_id for r in result}) == min(count, 1000)
    xmins = admin_sql("SELECT DISTINCT xmin::text FROM records WHERE record_id <> 'held'", dsn=pg_dsn)
    assert len(xmins) == 1
    store.close()


def test_racing_puts_of_one_key_from_two_ledgers_store_one_row(durable):
    """50 calls with one key through two ledgers on one store (as two server
    processes would be): one row stored, every other put is a DuplicateKey."""
    stores = [durable.open(), durable.open()]
    start = threading.Barrier(50)
    outcomes: list[str] = []

    def call(i):
        row = make_row(f"r{i:02}", key="same", request=b"req")
        start.wait()
        try:
            stores[i % 2].put(row)
            outcomes.append("stored")
        except DuplicateKey:
            outcomes.append("duplicate")

    threads = [threading.Thread(target=call, args=(i,)) for i in range(50)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert sorted(outcomes) == ["duplicate"] * 49 + ["stored"]
    winner = stores[0].get_by_key("same")
    assert stores[1].get_by_key("same") == winner
    assert [r.record_id for r in stores[1].iter_records()] == [winner.record_id]


def test_memory_ledger_outage_switch():
    store = MemoryLedger()
    store.put(make_row("r1"))
    store.set_unavailable("database down")
    for call in (lambda: store.get("r1"), lambda: store.put(make_row("r2")), store.ping_write,
                 lambda: store.list_records(), lambda: store.get_by_key("k")):
        with pytest.raises(LedgerUnavailable, match="database down"):
            call()
    store.set_unavailable(None)
    store.ping_write()
    assert store.get("r1") == make_row("r1") and store.get("r2") is None


# --- group commit ---------------------------------------------------------------

def test_group_commit_shares_one_put_many(backend):
    store = backend.open()
    store.put(make_row("held", key="k"))
    group = GroupCommit(store)
    calls, real = [], store.put_many
    release = threading.Event()

    def put_many(rows):
        calls.append(len(rows))
        if len(calls) == 1:
            release.wait(10)  # the first commit is slow: the others queue behind it
        return real(rows)

    store.put_many = put_many
    rows = [make_row(f"r{i:02}", key="k" if i == 7 else "") for i in range(20)]
    results: dict[str, LedgerRow] = {}

    def worker(row):
        results[row.record_id] = group.put(row)

    first = threading.Thread(target=worker, args=(rows[0],))
    first.start()
    while not calls:
        time.sleep(0.001)
    others = [threading.Thread(target=worker, args=(row,)) for row in rows[1:]]
    for t in others:
        t.start()
    while len(group._queue) < 19:
        time.sleep(0.001)
    assert results == {}  # nobody is answered before its commit
    release.set()
    for t in [first, *others]:
        t.join(10)
    assert calls == [1, 19]
    assert results["r07"].record_id == "held"
    assert all(results[r.record_id] == r for r in rows if r.record_id != "r07")
    assert len(list(store.iter_records())) == 20


def test_group_commit_failure_reaches_every_caller_of_the_batch():
    store = MemoryLedger()
    group = GroupCommit(store)
    store.set_unavailable("disk full")
    errors = []

    def worker(i):
        try:
            group.put(make_row(f"r{i}"))
        except LedgerUnavailable as exc:
            errors.append(str(exc))

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert errors == ["disk full"] * 8
    store.set_unavailable(None)
    assert group.put(make_row("ok")).record_id == "ok"


# --- listing ------------------------------------------------------------------

def many_rows(n: int = 250) -> list[LedgerRow]:
    """Rows three to a microsecond (ties broken by record id), keys in two
    families, namespaces alternating."""
    rows = []
    for i in range(n):
        rid = sha256_hex(str(i).encode())[:32]
        key = "" if i % 5 == 0 else (f"order-{i:04}" if i % 2 else f"refund-{i:04}")
        rows.append(make_row(rid, key=key, time_us=T0 + i // 3, namespace="a" if i % 4 else ""))
    return rows


def ordered(rows):
    return sorted(rows, key=lambda r: (r.receive_time_us, r.record_id))


def test_pagination_over_250_rows(ledger):
    rows = many_rows()
    ledger.put_many(rows[:100])
    for row in rows[100:]:
        ledger.put(row)
    pages, token = [], ""
    while True:
        page, token = ledger.list_records(page_size=100, page_token=token)
        pages.append(page)
        if not token:
            break
    assert [len(p) for p in pages] == [100, 100, 50]
    listed = [r for p in pages for r in p]
    assert listed == ordered(rows)  # no gaps, no repeats, ties in record-id order
    again, _ = ledger.list_records(page_size=100, page_token=ledger.list_records(page_size=100)[1])
    assert again == pages[1]  # stable
    assert ledger.list_records(page_size=250)[1] == ""  # exactly full: no extra page


def test_listing_filters(ledger):
    rows = many_rows()
    ledger.put_many(rows)
    since, until = T0 + 10, T0 + 60

    def listed(page_size=7, **flt):
        out, token = [], ""
        while True:
            page, token = ledger.list_records(page_size=page_size, page_token=token, **flt)
            assert len(page) <= page_size
            out += page
            if not token:
                return out

    assert listed(since_us=since, until_us=until) == ordered(
        r for r in rows if since <= r.receive_time_us < until)
    assert len(listed(since_us=since, until_us=until)) == 150
    assert listed(key_prefix="order-") == ordered(r for r in rows if r.idempotency_key.startswith("order-"))
    assert listed(key_prefix="refund-00", since_us=since) == ordered(
        r for r in rows if r.idempotency_key.startswith("refund-00") and r.receive_time_us >= since)
    assert listed(namespace="a", until_us=until) == ordered(
        r for r in rows if r.namespace == "a" and r.receive_time_us < until)
    assert listed(namespace="", key_prefix="order-") == ordered(
        r for r in rows if r.namespace == "" and r.idempotency_key.startswith("order-"))
    assert listed(namespace="nobody") == []
    assert listed(key_prefix="order-0001") == [r for r in rows if r.idempotency_key == "order-0001"]
    assert listed(key_prefix="%") == [] and listed(key_prefix="_") == []


def test_page_size_limits(ledger):
    rows = [make_row(f"r{i:04}", time_us=T0 + i) for i in range(1001)]
    ledger.put_many(rows)
    assert len(ledger.list_records()[0]) == 100
    assert len(ledger.list_records(page_size=0)[0]) == 100
    assert len(ledger.list_records(page_size=1)[0]) == 1
    page, token = ledger.list_records(page_size=5000)
    assert len(page) == 1000 and token
    assert ledger.list_records(page_size=5000, page_token=token) == (rows[1000:], "")
    with pytest.raises(ValueError, match="page_size must not be negative, got -1"):
        ledger.list_records(page_size=-1)


def test_bad_page_tokens(ledger):
    ledger.put_many([make_row(f"r{i}", key=f"k{i}") for i in range(5)])
    _, token = ledger.list_records(page_size=2, key_prefix="k")
    for bad in ["garbage", "!!!", "W10", "WzEsMiwzXQ", token[:-3], token + "x"]:
        with pytest.raises(ValueError, match="is not a page token returned by a record listing"):
            ledger.list_records(page_size=2, key_prefix="k", page_token=bad)
    with pytest.raises(ValueError, match="returned by a listing with other filters"):
        ledger.list_records(page_size=2, key_prefix="x", page_token=token)
    assert len(ledger.list_records(page_size=10, key_prefix="k", page_token=token)[0]) == 3


def test_iter_records_streams_in_order(ledger):
    rows = many_rows()
    ledger.put_many(rows)
    pages = []
    real = ledger._page

    def counting_page(flt, after, limit):
        pages.append(limit)
        return real(flt, after, limit)

    ledger._page = counting_page
    stream = ledger.iter_records(batch_size=40)
    assert pages == []  # lazy
    first = next(stream)
    assert pages == [40] and first == ordered(rows)[0]
    assert [first, *stream] == ordered(rows)
    assert pages == [40] * 7  # 250 rows: six full batches, one of 10
    assert list(ledger.iter_records(T0 + 10, T0 + 20, batch_size=4)) == ordered(
        r for r in rows if T0 + 10 <= r.receive_time_us < T0 + 20)
    assert list(ledger.iter_records(key_prefix="order-", namespace="a")) == ordered(
        r for r in rows if r.namespace == "a" and r.idempotency_key.startswith("order-"))


# --- verify ---------------------------------------------------------------------

def test_verify_intact_ledger(ledger):
    assert ledger.verify() == []
    ledger.put_many(many_rows(30))
    assert ledger.verify() == []


def test_verify_catches_rows_tampered_with(durable):
    store = durable.open()
    rows = many_rows(30)
    store.put_many(rows)
    a, b, c, d = (rows[i].record_id for i in (3, 7, 11, 12))
    durable.sql("UPDATE records SET response = ? WHERE record_id = ?", (b"forged", a))
    durable.sql("UPDATE records SET namespace = 'other' WHERE record_id = ?", (b,))
    durable.sql("UPDATE records SET request = ?, request_hash = ? WHERE record_id = ?",
                (b"", sha256_hex(b""), c))
    durable.sql("UPDATE records SET request_hash = 'x' WHERE record_id = ?", (d,))
    order = [r.record_id for r in ordered(rows)]
    expected = {
        a: [f"record {a!r}: content_sha256 does not match its content"],
        b: [f"record {b!r}: content_sha256 does not match its content"],
        c: [f"record {c!r}: request is empty", f"record {c!r}: content_sha256 does not match its content"],
        d: [f"record {d!r}: request_hash does not match request",
            f"record {d!r}: content_sha256 does not match its content"],
    }
    assert store.verify() == [p for rid in order if rid in expected for p in expected[rid]]


def test_verify_catches_sqlite_rows_that_do_not_parse(tmp_path):
    store = SqliteLedger(tmp_path / "ledger.db")
    store.put(make_row("r1"))
    with sqlite3.connect(tmp_path / "ledger.db") as conn:
        conn.execute("UPDATE records SET response = 'text, not bytes'")
    assert store.verify() == ["record 'r1': does not parse: response of the wrong type"]
    store.close()


# --- write failures -------------------------------------------------------------

@contextmanager
def no_file_writes():
    """Make every write to a regular file fail with EFBIG (RLIMIT_FSIZE = 0).

    Unlike a read-only file this also fails for root. Python ignores SIGXFSZ.
    """
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))


def test_sqlite_write_failure_is_unavailable_and_stores_nothing(tmp_path):
    store = SqliteLedger(tmp_path / "ledger.db")
    store.put(make_row("r1"))
    store.ping_write()
    with no_file_writes():
        with pytest.raises(LedgerUnavailable):
            store.put(make_row("r2", key="k"))
        with pytest.raises(LedgerUnavailable):
            store.put_many([make_row("r4", key="k2"), make_row("r5")])
        with pytest.raises(LedgerUnavailable, match="ledger .*ledger.db: "):
            store.ping_write()
        assert store.get("r1") == make_row("r1")  # reads still work
    assert store.get("r2") is None and store.get_by_key("k") is None
    assert store.get("r4") is None and store.get("r5") is None
    store.ping_write()  # writable again: healthy
    store.put(make_row("r3", key="k"))  # works, key still free
    assert store.get_by_key("k").record_id == "r3"
    assert store.verify() == []
    store.close()


def test_postgres_read_only_database_is_unavailable_until_writable(pg_database):
    store = PostgresLedger(pg_database)
    store.put(make_row("r1"))
    name = dbname(pg_database)
    admin_sql(f'ALTER DATABASE "{name}" SET default_transaction_read_only = on')
    admin_sql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s", (name,))
    with pytest.raises(LedgerUnavailable, match="read-only transaction"):
        store.put(make_row("r2", key="k"))
    with pytest.raises(LedgerUnavailable, match="read-only transaction"):
        store.put_many([make_row("r3"), make_row("r4")])
    with pytest.raises(LedgerUnavailable, match="read-only transaction"):
        store.ping_write()
    assert store.get("r1") == make_row("r1")  # reads still work
    admin_sql(f'ALTER DATABASE "{name}" SET default_transaction_read_only = off')
    admin_sql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s", (name,))
    store.ping_write()
    store.put(make_row("r2", key="k"))
    assert [r.record_id for r in store.iter_records()] == ["r1", "r2"]
    store.close()


def test_postgres_refusing_connections_is_unavailable_then_recovers(pg_database):
    store = PostgresLedger(pg_database)
    store.put(make_row("r1"))
    name = dbname(pg_database)
    admin_sql(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS false')
    admin_sql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s", (name,))
    started = time.monotonic()
    for call in (lambda: store.put(make_row("r2")), store.ping_write, lambda: store.get("r1"),
                 lambda: store.list_records()):
        with pytest.raises(LedgerUnavailable, match="not currently accepting connections"):
            call()
    assert time.monotonic() - started < 2  # fails at once, no waiting out a pool timeout
    admin_sql(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true')
    store.put(make_row("r2"))
    assert store.get("r1") == make_row("r1")
    store.close()


def test_postgres_dead_pooled_connections_are_replaced_transparently(pg_database):
    store = PostgresLedger(pg_database, max_connections=4)
    barrier = threading.Barrier(4)

    def use():  # put four connections into the pool
        barrier.wait()
        store.get("x")
    threads = [threading.Thread(target=use) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(store._pool._idle) >= 2
    admin_sql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s",
              (dbname(pg_database),))
    for i in range(6):  # every dead connection is dropped and the call retried, unseen
        store.put(make_row(f"r{i}", key=f"k{i}"))
    assert len(store.list_records()[0]) == 6
    store.close()


def test_postgres_server_down_then_back(tmp_path):
    server = scratch_server()
    try:
        store = PostgresLedger(server.dsn, connect_timeout=2)
        store.put(make_row("r1", key="k"))
        server.stop()
        started = time.monotonic()
        with pytest.raises(LedgerUnavailable, match=r"ledger postgresql://127\.0\.0\.1:\d+/postgres: "):
            store.put(make_row("r2"))
        with pytest.raises(LedgerUnavailable):
            store.ping_write()
        with pytest.raises(LedgerUnavailable):
            store.get("r1")
        with pytest.raises(LedgerUnavailable, match="Connection refused"):
            PostgresLedger(server.dsn)  # cannot open either
        assert time.monotonic() - started < 5  # fails at once
        server.start()
        store.ping_write()
        store.put(make_row("r2"))
        assert store.get_by_key("k") == make_row("r1", key="k")
        store.close()
    finally:
        server.destroy()


def test_closed_ledger_is_unavailable(ledger):
    ledger.put(make_row("r1"))
    ledger.close()
    for call in (lambda: ledger.get("r1"), lambda: ledger.put(make_row("r2")),
                 ledger.ping_write, lambda: ledger.list_records()):
        with pytest.raises(LedgerUnavailable):
            call()


def test_ping_write_on_a_healthy_store(ledger):
    ledger.ping_write()
    ledger.ping_write()
    assert ledger.list_records() == ([], "")  # the probe stores no record


# --- SQLite files, versions, migrations -----------------------------------------

def test_sqlite_is_durable_wal_and_versioned(tmp_path):
    path = tmp_path / "ledger.db"
    first = SqliteLedger(path)
    first.put(make_row("r1", key="k", namespace="n"))
    first.close()
    again = SqliteLedger(path)
    assert again.get_by_key("k", "n") == make_row("r1", key="k", namespace="n")
    again.close()
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)
        assert conn.execute("SELECT version FROM schema_version ORDER BY version").fetchall() == [(1,), (2,), (3,), (4,)]
    assert SCHEMA_VERSION == 4


def test_sqlite_refuses_newer_schema_version(tmp_path):
    path = tmp_path / "ledger.db"
    SqliteLedger(path).close()
    with sqlite3.connect(path) as conn:
        conn.execute("INSERT INTO schema_version VALUES (99)")
    with pytest.raises(LedgerUnavailable, match="schema version 99, newer than this duetime's 4"):
        SqliteLedger(path)


def test_sqlite_cannot_open(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    with pytest.raises(LedgerUnavailable, match="cannot open ledger"):
        SqliteLedger(blocker / "ledger.db")


# Verbatim the schema of duetime's first ledger (schema version 1).
V1_SCHEMA = """
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
    SELECT 1 WHERE NOT EXISTS (SELECT 1 FROM schema_version);
"""
V1_INSERT = "INSERT INTO records VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"


def test_sqlite_migrates_a_version_1_ledger(tmp_path):
    path = tmp_path / "ledger.db"
    old = make_row("r1", key="k")
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.executescript(f"BEGIN IMMEDIATE; {V1_SCHEMA} COMMIT;")
    conn.execute(V1_INSERT, (old.record_id, old.method, old.receive_time_us, old.idempotency_key,
                             old.request_hash, old.request, old.response, old.calendar_version,
                             old.rules_version, old.tzdata_version, old.content_sha256))
    conn.close()

    store = SqliteLedger(path)
    assert store.get("r1") == old and store.get("r1").namespace == ""
    assert store.get_by_key("k") == old
    assert store.verify() == []  # digests written by version 1 still match
    with pytest.raises(DuplicateKey):
        store.put(make_row("r2", key="k"))
    store.put(make_row("r3", key="k", namespace="team"))  # namespaces work
    assert store.get_by_key("k", "team").record_id == "r3"
    store.close()
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT version FROM schema_version ORDER BY version").fetchall() == [(1,), (2,), (3,), (4,)]
        indexes = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
        assert {"records_namespace_key", "records_time"} <= indexes
        assert "records_idempotency_key" not in indexes
    SqliteLedger(path).close()  # opening again migrates nothing
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT count(*) FROM schema_version").fetchone() == (4,)


def _open_sqlite(path, barrier, results):
    barrier.wait()
    try:
        store = SqliteLedger(path)
        store.put(make_row(f"r{multiprocessing.current_process().name}"))
        store.close()
        results.put("ok")
    except Exception as exc:  # noqa: BLE001
        results.put(repr(exc))


def test_sqlite_concurrent_first_opens_migrate_once(tmp_path):
    path = tmp_path / "ledger.db"
    assert _at_once_in_processes(_open_sqlite, path, 4) == ["ok"] * 4
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT version FROM schema_version ORDER BY version").fetchall() == [(1,), (2,), (3,), (4,)]
        assert conn.execute("SELECT count(*) FROM records").fetchone() == (4,)


def test_sqlite_writes_wait_for_the_writer_lock_another_process_holds(tmp_path):
    """Processes on one file write in turns, on ``<path>-writer``: a write
    waits while another open of it (here this test's, as another process's
    would be) holds its flock, and goes on once it is let go."""
    import fcntl
    import os

    store = SqliteLedger(tmp_path / "ledger.db")
    other = os.open(tmp_path / "ledger.db-writer", os.O_RDWR)
    fcntl.flock(other, fcntl.LOCK_EX)
    done = threading.Event()
    writer = threading.Thread(target=lambda: (store.put(make_row("r1")), done.set()))
    try:
        writer.start()
        assert not done.wait(0.5)  # still waiting for the lock
        with sqlite3.connect(tmp_path / "ledger.db") as conn:
            assert conn.execute("SELECT count(*) FROM records").fetchone() == (0,)
    finally:
        fcntl.flock(other, fcntl.LOCK_UN)
        os.close(other)
    assert done.wait(10)
    writer.join(10)
    assert store.get("r1") == make_row("r1")
    store.close()


def test_sqlite_a_write_waits_for_the_writer_lock_for_the_busy_timeout_at_most(tmp_path):
    """A process that holds ``<path>-writer`` and does not go on (stopped)
    makes a write LedgerUnavailable after the busy timeout, as SQLite's own
    lock would; once it lets go, writes go on."""
    import fcntl
    import os

    store = SqliteLedger(tmp_path / "ledger.db")
    store.BUSY_TIMEOUT_MS = 300
    other = os.open(tmp_path / "ledger.db-writer", os.O_RDWR)
    fcntl.flock(other, fcntl.LOCK_EX)
    try:
        began = time.monotonic()
        with pytest.raises(LedgerUnavailable, match="held the ledger's writer lock for 0.3 s"):
            store.put(make_row("r1"))
        assert 0.3 <= time.monotonic() - began < 5
        with pytest.raises(LedgerUnavailable):  # the waiter still blocked: the next gives up too
            store.put(make_row("r2"))
    finally:
        fcntl.flock(other, fcntl.LOCK_UN)
        os.close(other)
    store.put(make_row("r3"))
    assert store.get("r3") == make_row("r3") and store.get("r1") is None
    store.close()


def test_sqlite_the_writer_lock_takes_the_ledgers_permissions(tmp_path):
    """``-writer`` is made with the ledger file's permissions (as SQLite makes
    ``-wal`` and ``-shm``): a group that may write the ledger may take it."""
    import os
    import stat

    path = tmp_path / "ledger.db"
    SqliteLedger(path).close()
    os.chmod(path, 0o660)
    os.remove(tmp_path / "ledger.db-writer")
    store = SqliteLedger(path)
    store.put(make_row("r1"))
    store.close()
    assert stat.S_IMODE(os.stat(tmp_path / "ledger.db-writer").st_mode) == 0o660


@pytest.mark.parametrize("what", ["link", "directory"])
def test_sqlite_a_writer_lock_that_cannot_be_opened_is_said_and_sqlite_locks_alone_remain(
        tmp_path, caplog, what):
    """A link at ``-writer`` is not followed, a directory cannot be locked:
    a warning names the file, and writes go on under SQLite's own locks."""
    import os

    target = tmp_path / "elsewhere"
    if what == "link":
        os.symlink(target, tmp_path / "ledger.db-writer")
    else:
        os.mkdir(tmp_path / "ledger.db-writer")
    with caplog.at_level(logging.WARNING, logger="duetime.ledger.sqlite"):
        store = SqliteLedger(tmp_path / "ledger.db")
    store.put(make_row("r1"))
    assert store.get("r1") == make_row("r1")
    store.close()
    (warning,) = [r.getMessage() for r in caplog.records]
    assert warning.startswith(f"ledger {tmp_path / 'ledger.db'}: cannot open "
                              f"{tmp_path / 'ledger.db-writer'} (")
    assert warning.endswith("): processes writing this ledger take turns by SQLite's own locks "
                            "alone (a waiting writer sleeps up to 100 ms between looks)")
    assert not target.exists()  # the link was not followed


def _write_rows(path, barrier, results):
    barrier.wait()
    name = multiprocessing.current_process().name
    try:
        store = SqliteLedger(path)
        for i in range(40):  # 40 commits of 5 rows, racing the other processes'
            store.put_many([make_row(f"{name}-{i}-{j}", key=f"{name}-{i}-{j}") for j in range(5)])
        store.close()
        results.put("ok")
    except Exception as exc:  # noqa: BLE001
        results.put(repr(exc))


def _at_once_in_processes(target, path, count: int) -> list[str]:
    """Run ``target(path, barrier, results)`` in ``count`` processes started
    together; what each put in ``results``."""
    ctx = multiprocessing.get_context("spawn")
    barrier, results = ctx.Barrier(count), ctx.Queue()
    procs = [ctx.Process(target=target, args=(path, barrier, results), name=f"p{i}")
             for i in range(count)]
    for p in procs:
        p.start()
    outcomes = [results.get(timeout=60) for _ in procs]
    for p in procs:
        p.join(60)
    return outcomes


def test_sqlite_processes_writing_at_once_store_every_row(tmp_path):
    path = tmp_path / "ledger.db"
    SqliteLedger(path).close()
    assert _at_once_in_processes(_write_rows, path, 3) == ["ok"] * 3
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT count(*) FROM records").fetchone() == (600,)


# --- choosing a store ------------------------------------------------------------

def test_open_ledger_chooses_the_store(monkeypatch, tmp_path, pg_dsn):
    monkeypatch.delenv("DUETIME_DB", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    for db in (None, ""):
        store = open_ledger(db)
        assert isinstance(store, SqliteLedger) and store.path == tmp_path / "xdg" / "duetime" / "ledger.db"
        store.close()
    store = open_ledger(str(tmp_path / "here.db"))
    assert isinstance(store, SqliteLedger) and store.path == tmp_path / "here.db"
    store.close()
    monkeypatch.setenv("DUETIME_DB", str(tmp_path / "env.db"))
    store = open_ledger(None)
    assert isinstance(store, SqliteLedger) and store.path == tmp_path / "env.db"
    store.close()
    monkeypatch.setenv("DUETIME_DB", pg_dsn)
    store = open_ledger()
    assert isinstance(store, PostgresLedger)
    store.put(make_row("r1"))
    store.close()
    store = open_ledger(pg_dsn.replace("postgresql://", "postgres://"), max_connections=2)
    assert isinstance(store, PostgresLedger) and store.get("r1") == make_row("r1")
    store.close()


def test_postgres_bad_url_is_unavailable():
    with pytest.raises(LedgerUnavailable, match="bad PostgreSQL URL"):
        open_ledger("postgresql://h:notaport:x/db?bogus_option=1")


def test_default_path(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert default_db_path() == tmp_path / "duetime" / "ledger.db"
    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert default_db_path() == tmp_path / ".local" / "share" / "duetime" / "ledger.db"


def test_psycopg_is_available():
    assert psycopg.__version__.startswith("3.")
