"""Ledger contract, run against the SQLite and in-memory implementations."""

from __future__ import annotations

import resource
import sqlite3
from contextlib import contextmanager

import pytest
from duetime.ledger import (
    SCHEMA_VERSION,
    DuplicateKey,
    LedgerRow,
    LedgerUnavailable,
    MemoryLedger,
    SqliteLedger,
    default_db_path,
    sha256_hex,
)


def make_row(record_id: str, key: str = "", request: bytes = b"req") -> LedgerRow:
    return LedgerRow.create(
        record_id=record_id,
        method="/duetime.v1.DueTimeService/ComputeDueTime",
        receive_time_us=1_796_223_600_123_456,
        idempotency_key=key,
        request=request,
        response=b"resp",
        calendar_version="cal-0123456789abcdef",
        rules_version="2026.1",
        tzdata_version="2026a",
    )


@pytest.fixture(params=["sqlite", "memory"])
def ledger(request, tmp_path):
    sqlite = request.param == "sqlite"
    store = SqliteLedger(tmp_path / "data" / "ledger.db") if sqlite else MemoryLedger()
    yield store
    store.close()


def test_put_then_get_by_id_and_key(ledger):
    row = make_row("r1", key="k1")
    ledger.put(row)
    assert ledger.get("r1") == row
    assert ledger.get_by_key("k1") == row
    assert ledger.get("nope") is None
    assert ledger.get_by_key("nope") is None


def test_row_digests():
    row = make_row("r1", request=b"abc")
    assert row.request_hash == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    assert row.request_hash == sha256_hex(b"abc")
    assert row.content_sha256 == row.digest() and len(row.content_sha256) == 64
    assert make_row("r2", request=b"abc").content_sha256 != row.content_sha256


def test_idempotency_key_is_unique(ledger):
    ledger.put(make_row("r1", key="k"))
    with pytest.raises(DuplicateKey) as caught:
        ledger.put(make_row("r2", key="k", request=b"other"))
    assert caught.value.key == "k"
    assert ledger.get("r2") is None
    assert ledger.get_by_key("k").record_id == "r1"


def test_empty_keys_do_not_collide(ledger):
    ledger.put(make_row("r1"))
    ledger.put(make_row("r2"))
    assert ledger.get("r1").record_id == "r1" and ledger.get("r2").record_id == "r2"
    assert ledger.get_by_key("") is None


def test_sqlite_is_durable_wal_and_versioned(tmp_path):
    path = tmp_path / "ledger.db"
    first = SqliteLedger(path)
    first.put(make_row("r1", key="k"))
    first.close()
    again = SqliteLedger(path)
    assert again.get_by_key("k") == make_row("r1", key="k")
    again.close()
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)
        assert conn.execute("SELECT version FROM schema_version").fetchall() == [(SCHEMA_VERSION,)]


def test_sqlite_refuses_unknown_schema_version(tmp_path):
    path = tmp_path / "ledger.db"
    SqliteLedger(path).close()
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE schema_version SET version = 99")
    with pytest.raises(LedgerUnavailable, match="schema version 99"):
        SqliteLedger(path)


def test_sqlite_cannot_open(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    with pytest.raises(LedgerUnavailable, match="cannot open ledger"):
        SqliteLedger(blocker / "ledger.db")


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
    with no_file_writes(), pytest.raises(LedgerUnavailable):
        store.put(make_row("r2", key="k"))
    assert store.get("r2") is None and store.get_by_key("k") is None
    store.put(make_row("r3", key="k"))  # writable again: works, key still free
    assert store.get_by_key("k").record_id == "r3"
    store.close()


def test_closed_ledger_is_unavailable(tmp_path):
    store = SqliteLedger(tmp_path / "ledger.db")
    store.close()
    with pytest.raises(LedgerUnavailable):
        store.get("r1")


def test_default_path(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert default_db_path() == tmp_path / "duetime" / "ledger.db"
    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert default_db_path() == tmp_path / ".local" / "share" / "duetime" / "ledger.db"
