"""PostgreSQL ledger schema: versions, forward migrations, and processes
racing to migrate a fresh database (one migrates, the others wait)."""

from __future__ import annotations

import multiprocessing
import threading
import time

import psycopg
import pytest
from duetime.ledger import SCHEMA_VERSION, DuplicateKey, LedgerRow, LedgerUnavailable
from duetime.ledger.postgres import MIGRATION_LOCK, PG_MIGRATIONS, PostgresLedger
from pg import admin_sql, pg_database, pg_dsn  # noqa: F401  (fixtures)


def make_row(record_id: str, key: str = "", namespace: str = "") -> LedgerRow:
    return LedgerRow.create(
        record_id=record_id, method="/duetime.v1.DueTimeService/ComputeDueTime",
        receive_time_us=1_796_223_600_123_456, idempotency_key=key, request=b"req",
        response=b"resp", calendar_version="cal-0123456789abcdef", rules_version="2026.1",
        tzdata_version="2026a", namespace=namespace,
    )


def versions(dsn: str) -> list[int]:
    return [v for (v,) in admin_sql("SELECT version FROM schema_version ORDER BY version", dsn=dsn)]


def test_fresh_database_gets_the_current_schema(pg_database):
    PostgresLedger(pg_database).close()
    assert SCHEMA_VERSION == 4 and versions(pg_database) == [1, 2, 3, 4]
    columns = dict(admin_sql("SELECT column_name, data_type FROM information_schema.columns "
                             "WHERE table_name = 'records'", dsn=pg_database))
    assert columns == {
        "record_id": "text", "method": "text", "receive_time_us": "bigint",
        "idempotency_key": "text", "request_hash": "text", "request": "bytea",
        "response": "bytea", "calendar_version": "text", "rules_version": "text",
        "tzdata_version": "text", "content_sha256": "text", "namespace": "text",
    }
    indexes = {name for (name,) in admin_sql(
        "SELECT indexname FROM pg_indexes WHERE tablename = 'records'", dsn=pg_database)}
    assert indexes == {"records_pkey", "records_namespace_key", "records_time", "records_versions"}
    assert admin_sql("SELECT count(*) FROM write_probe", dsn=pg_database) == [(0,)]


def test_reopening_migrates_nothing(pg_dsn):
    PostgresLedger(pg_dsn).close()
    before = admin_sql("SELECT version, applied_at FROM schema_version ORDER BY version", dsn=pg_dsn)
    for _ in range(3):
        PostgresLedger(pg_dsn).close()
    assert admin_sql("SELECT version, applied_at FROM schema_version ORDER BY version", dsn=pg_dsn) == before


def _open(dsn, barrier, results):
    barrier.wait()
    try:
        store = PostgresLedger(dsn)
        store.put(make_row(f"r-{multiprocessing.current_process().name}", key="shared-key"))
        store.close()
        results.put("stored")
    except DuplicateKey:
        results.put("duplicate")
    except Exception as exc:  # noqa: BLE001 — reported to the test
        results.put(repr(exc))


def test_processes_racing_on_a_fresh_database_migrate_it_once(pg_database):
    ctx = multiprocessing.get_context("spawn")
    n = 4
    barrier, results = ctx.Barrier(n), ctx.Queue()
    procs = [ctx.Process(target=_open, args=(pg_database, barrier, results), name=f"p{i}")
             for i in range(n)]
    for p in procs:
        p.start()
    outcomes = sorted(results.get(timeout=120) for _ in procs)
    for p in procs:
        p.join(60)
    assert outcomes == ["duplicate"] * (n - 1) + ["stored"]  # no process failed
    assert versions(pg_database) == [1, 2, 3, 4]  # each migration applied exactly once
    assert admin_sql("SELECT count(*) FROM records", dsn=pg_database) == [(1,)]


def test_migration_waits_for_the_advisory_lock(pg_dsn):
    holder = psycopg.connect(pg_dsn)  # a transaction holding the lock: a migrating process
    holder.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
    opened = []
    thread = threading.Thread(target=lambda: opened.append(PostgresLedger(pg_dsn)))
    thread.start()
    time.sleep(0.5)
    assert opened == [] and thread.is_alive()  # waiting, not migrating alongside
    holder.rollback()
    holder.close()
    thread.join(30)
    assert len(opened) == 1 and versions(pg_dsn) == [1, 2, 3, 4]
    opened[0].close()


def test_version_1_database_is_migrated(pg_dsn):
    """A database as duetime's schema 1 left it: records without namespaces."""
    old = make_row("r1", key="k")
    admin_sql("CREATE TABLE schema_version (version INTEGER PRIMARY KEY, "
              "applied_at TIMESTAMPTZ NOT NULL DEFAULT now())", dsn=pg_dsn)
    for statement in PG_MIGRATIONS[0]:
        admin_sql(statement, dsn=pg_dsn)
    admin_sql("INSERT INTO schema_version (version) VALUES (1)", dsn=pg_dsn)
    admin_sql("INSERT INTO records VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
              (old.record_id, old.method, old.receive_time_us, old.idempotency_key,
               old.request_hash, old.request, old.response, old.calendar_version,
               old.rules_version, old.tzdata_version, old.content_sha256), dsn=pg_dsn)

    store = PostgresLedger(pg_dsn)
    assert versions(pg_dsn) == [1, 2, 3, 4]
    assert store.get("r1") == old and store.get_by_key("k") == old
    assert store.verify() == []
    with pytest.raises(DuplicateKey):
        store.put(make_row("r2", key="k"))
    store.put(make_row("r3", key="k", namespace="team"))
    assert store.get_by_key("k", "team").record_id == "r3"
    store.close()


def test_newer_schema_is_refused(pg_dsn):
    PostgresLedger(pg_dsn).close()
    admin_sql("INSERT INTO schema_version (version) VALUES (99)", dsn=pg_dsn)
    with pytest.raises(LedgerUnavailable, match="schema version 99, newer than this duetime's 4"):
        PostgresLedger(pg_dsn)
