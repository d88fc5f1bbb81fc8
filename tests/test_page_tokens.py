"""Page tokens (docs/semantics.md §13): opaque, bounded, signed with the
ledger's own secret, bound to the listing's filters and shared by every
process that opens the same store.

Unit tests of :class:`duetime.ledger.listing.PageTokens`, then the three
stores: a forged, altered, cut or foreign token is refused with the same
words; a genuine one continues exactly the listing that issued it; two
processes (two ledger objects) on one SQLite file or one PostgreSQL
database accept each other's tokens, and so do two ``duetime serve``
replicas on one PostgreSQL.
"""

from __future__ import annotations

import base64
import json
import sqlite3
import threading

import grpc
import pytest
from duetime.ledger import (
    MemoryLedger,
    PageTokens,
    PostgresLedger,
    RecordFilter,
    SqliteLedger,
    new_page_token_secret,
)
from duetime.ledger.listing import (
    MAX_PAGE_TOKEN,
    NOT_A_TOKEN,
    OTHER_FILTERS,
    PAGE_TOKEN_SECRET_BYTES,
    PAGE_TOKEN_VERSION,
)
from duetime.v1 import duetime_pb2 as pb
from pg import admin_sql, pg_database, pg_dsn  # noqa: F401  (fixtures)
from server_process import ServerProcess, zagreb_request
from test_ledger import T0, make_row

RECORD_ID = "0192f5a3c7e07a3b8c1d2e3f40516273"
FILTER = RecordFilter(T0 - 10, T0 + 10, "ticket-", "team-a")


def b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def unb64(token: str) -> bytes:
    return base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))


@pytest.fixture
def tokens() -> PageTokens:
    return PageTokens(bytes(range(32)))


# --- the token itself ---------------------------------------------------------


def test_a_token_is_versioned_bounded_url_safe_and_round_trips(tokens):
    for position in [(T0, RECORD_ID), (0, "r1"), (-(2**63), ""), (2**63 - 1, "é" * 127)]:
        token = tokens.encode(FILTER, position)
        assert set(token) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        assert len(token) <= MAX_PAGE_TOKEN
        assert unb64(token)[0] == PAGE_TOKEN_VERSION == 2
        assert tokens.decode(FILTER, token) == position
    # 1 version + 8 time + 1 length + 32 id + 8 filter tag + 16 MAC = 66 bytes
    assert len(tokens.encode(FILTER, (T0, RECORD_ID))) == 88
    assert MAX_PAGE_TOKEN == 388


def test_a_position_no_row_can_hold_is_not_written():
    tokens = PageTokens(new_page_token_secret())
    for position in [(2**63, "r"), (-(2**63) - 1, "r"), (T0, "x" * 256)]:
        with pytest.raises(ValueError, match="cannot be written into a page token"):
            tokens.encode(FILTER, position)


def test_a_secret_is_32_random_bytes_and_short_ones_are_refused():
    first, second = new_page_token_secret(), new_page_token_secret()
    assert len(first) == len(second) == PAGE_TOKEN_SECRET_BYTES == 32 and first != second
    with pytest.raises(ValueError, match="at least 16 bytes"):
        PageTokens(b"short")


def test_every_altered_or_cut_token_is_refused(tokens):
    token = tokens.encode(FILTER, (T0, RECORD_ID))
    raw = unb64(token)
    altered = [b64(raw[:i] + bytes([raw[i] ^ bit]) + raw[i + 1:])
               for i in range(len(raw)) for bit in (0x01, 0x80)]
    cut = [token[:n] for n in range(len(token))] + [b64(raw[:n]) for n in range(len(raw))]
    longer = [token + "A", token + "AA", "A" + token, b64(raw + b"\0"), token + "=", token + "\n"]
    assert len(altered) == 132
    for bad in altered + cut + longer:
        with pytest.raises(ValueError) as caught:
            tokens.decode(FILTER, bad)
        assert str(caught.value) == NOT_A_TOKEN, bad
    assert NOT_A_TOKEN == ("is not a page token returned by a record listing of this ledger "
                           "(altered, cut short or issued elsewhere); start again without a "
                           "page token")


def test_the_last_character_must_be_canonical(tokens):
    """Base64's last character may carry bits beyond the bytes; a token
    with other such bits decodes to the same bytes but is not the one issued."""
    token = tokens.encode(FILTER, (T0, RECORD_ID))  # 66 bytes: 88 characters, no spare bits
    odd = tokens.encode(FILTER, (T0, RECORD_ID[:31]))  # 65 bytes: 87 characters, 2 spare bits
    assert len(token) % 4 == 0 and len(odd) % 4 == 3
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    last = alphabet.index(odd[-1])
    sibling = odd[:-1] + alphabet[last ^ 1]
    assert unb64(sibling) == unb64(odd)
    assert tokens.decode(FILTER, odd) == (T0, RECORD_ID[:31])
    with pytest.raises(ValueError, match="start again without a page token"):
        tokens.decode(FILTER, sibling)


def test_forged_tokens_of_every_old_and_hostile_shape_are_refused(tokens):
    """The unsigned JSON tokens of schema 2 (version 1), deeply nested JSON,
    positions beyond 64 bits, NUL, non-ASCII, huge: all refused alike, in
    bounded time (no JSON is parsed)."""
    nested = b64(b"[" * 100_000 + b"]" * 100_000)
    forged = [
        "", "garbage", "!!!", "W10", "WzEsMiwzXQ",
        b64(json.dumps([1, T0, RECORD_ID, "0123456789abcdef"]).encode()),
        b64(json.dumps([1, 2**70, RECORD_ID, FILTER.fingerprint()]).encode()),
        b64(json.dumps([1, T0, "r\0", FILTER.fingerprint()]).encode()),
        nested, nested[:MAX_PAGE_TOKEN],
        b64(bytes([PAGE_TOKEN_VERSION]) + (2**63 - 1).to_bytes(8, "big") + b"\x20" + b"0" * 32
            + b"\0" * 24),
        b64(bytes([PAGE_TOKEN_VERSION]) + b"\0" * 8 + b"\xff" + b"\0" * 24),
        "A" * MAX_PAGE_TOKEN, "A" * (MAX_PAGE_TOKEN + 1), "A" * 10_000_000,
        "AAAA\0", "AAAAé", "\ud800AAA", "AA AA", "AA+/", "AA==",
    ]
    for bad in forged:
        if bad == "":
            continue  # "" is the first page, not a token
        with pytest.raises(ValueError) as caught:
            tokens.decode(FILTER, bad)
        assert str(caught.value) == NOT_A_TOKEN, bad[:80]


def test_a_token_continues_only_the_listing_that_issued_it(tokens):
    token = tokens.encode(FILTER, (T0, RECORD_ID))
    others = [
        RecordFilter(T0 - 10, T0 + 10, "ticket-", "team-b"),  # another namespace
        RecordFilter(T0 - 10, T0 + 10, "ticket-", None),  # every namespace
        RecordFilter(T0 - 10, T0 + 10, "ticket-", ""),  # the default namespace
        RecordFilter(T0 - 10, T0 + 10, "ticket", "team-a"),
        RecordFilter(T0 - 10, T0 + 10, "", "team-a"),
        RecordFilter(T0 - 11, T0 + 10, "ticket-", "team-a"),
        RecordFilter(None, T0 + 10, "ticket-", "team-a"),
        RecordFilter(T0 - 10, T0 + 11, "ticket-", "team-a"),
        RecordFilter(T0 - 10, None, "ticket-", "team-a"),
    ]
    for other in others:
        with pytest.raises(ValueError) as caught:
            tokens.decode(other, token)
        assert str(caught.value) == OTHER_FILTERS, other
    assert OTHER_FILTERS == ("was returned by a listing with other filters; pass the same time "
                             "range, key prefix and namespace as the first page, or start again "
                             "without a page token")
    assert tokens.decode(RecordFilter(T0 - 10, T0 + 10, "ticket-", "team-a"), token) == (
        T0, RECORD_ID)


def test_a_token_of_another_secret_is_foreign(tokens):
    token = tokens.encode(FILTER, (T0, RECORD_ID))
    with pytest.raises(ValueError) as caught:
        PageTokens(bytes(range(1, 33))).decode(FILTER, token)
    assert str(caught.value) == NOT_A_TOKEN


# --- the stores -------------------------------------------------------------------


def _fill(ledger, n: int = 30) -> list:
    rows = [make_row(f"{i:032x}", key=f"ticket-{i:03}", namespace="team-a" if i % 2 else "",
                     time_us=T0 + i // 3) for i in range(n)]
    ledger.put_many(rows)
    return rows


def _walk(ledger, page_size: int, **flt) -> list:
    out, token = [], ""
    while True:
        page, token = ledger.list_records(page_size=page_size, page_token=token, **flt)
        out += page
        if not token:
            return out


def _stores(kind: str, tmp_path, dsn: str | None):
    """Two ledger objects on one store (two processes' view of it)."""
    if kind == "sqlite":
        return SqliteLedger(tmp_path / "ledger.db"), SqliteLedger(tmp_path / "ledger.db")
    return PostgresLedger(dsn), PostgresLedger(dsn)


@pytest.fixture(params=["sqlite", "postgres"])
def two_views(request, tmp_path):
    dsn = request.getfixturevalue("pg_dsn") if request.param == "postgres" else None
    first, second = _stores(request.param, tmp_path, dsn)
    yield request.param, first, second, dsn
    first.close()
    second.close()


def test_every_process_on_one_store_accepts_the_others_tokens(two_views):
    kind, first, second, _ = two_views
    rows = _fill(first)
    expected = sorted(rows, key=lambda r: (r.receive_time_us, r.record_id))
    page, token = first.list_records(page_size=7)
    listed = list(page)
    reader = second
    while token:  # alternate processes page by page
        page, token = reader.list_records(page_size=7, page_token=token)
        listed += page
        reader = first if reader is second else second
    assert listed == expected == _walk(first, 1000)
    a_only = [r for r in expected if r.namespace == "team-a"]
    page, token = first.list_records(page_size=4, namespace="team-a", key_prefix="ticket-0")
    rest = _walk_from(second, token, namespace="team-a", key_prefix="ticket-0")
    assert page + rest == [r for r in a_only if r.idempotency_key.startswith("ticket-0")]


def _walk_from(ledger, token, **flt) -> list:
    out = []
    while token:
        page, token = ledger.list_records(page_size=4, page_token=token, **flt)
        out += page
    return out


def test_the_secret_is_kept_in_the_store_and_survives_reopening(two_views, tmp_path):
    kind, first, second, dsn = two_views
    _fill(first)
    _, token = first.list_records(page_size=5, namespace="team-a")
    first.close()
    second.close()
    reopened = SqliteLedger(tmp_path / "ledger.db") if kind == "sqlite" else PostgresLedger(dsn)
    try:
        assert len(reopened.list_records(page_size=5, namespace="team-a",
                                         page_token=token)[0]) == 5
        if kind == "sqlite":
            with sqlite3.connect(tmp_path / "ledger.db") as conn:
                secrets = conn.execute("SELECT name, length(value) FROM ledger_secrets").fetchall()
        else:
            secrets = admin_sql("SELECT name, length(value) FROM ledger_secrets", dsn=dsn)
        assert secrets == [("page_token", 32)]
    finally:
        reopened.close()


def test_a_token_of_another_ledger_is_refused(two_views, tmp_path):
    kind, first, _, _ = two_views
    _fill(first)
    _, token = first.list_records(page_size=5)
    elsewhere = [MemoryLedger(), SqliteLedger(tmp_path / "other.db")]
    _fill(elsewhere[0])
    for other in elsewhere:
        with pytest.raises(ValueError) as caught:
            other.list_records(page_size=5, page_token=token)
        assert str(caught.value) == NOT_A_TOKEN
    elsewhere[1].close()


def test_a_token_cannot_be_replayed_in_another_namespace(two_views):
    kind, first, second, _ = two_views
    _fill(first)
    _, token = first.list_records(page_size=3, namespace="team-a")
    for view in (first, second):
        for namespace in ("", None, "team-b"):
            with pytest.raises(ValueError) as caught:
                view.list_records(page_size=3, namespace=namespace, page_token=token)
            assert str(caught.value) == OTHER_FILTERS


def test_concurrent_first_opens_of_one_file_agree_on_the_secret(tmp_path):
    path = tmp_path / "fresh.db"
    opened: list = []
    barrier = threading.Barrier(4)

    def open_one():
        barrier.wait()
        opened.append(SqliteLedger(path))

    threads = [threading.Thread(target=open_one) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert len(opened) == 4
    _fill(opened[0])
    _, token = opened[0].list_records(page_size=5)
    for view in opened:
        assert len(view.list_records(page_size=5, page_token=token)[0]) == 5
        view.close()
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT count(*) FROM ledger_secrets").fetchone() == (1,)


def test_two_servers_on_one_postgresql_continue_each_others_listings(pg_database):
    """Two ``duetime serve`` replicas on one PostgreSQL: a listing begun on
    one continues on the other, page for page, to the same records; a
    token altered in one character is refused by both."""
    servers = [ServerProcess(pg_database), ServerProcess(pg_database)]
    try:
        made = [servers[i % 2].stub.ComputeDueTime(zagreb_request(f"replicas/{i:02}"),
                                                   timeout=10).record_id for i in range(9)]
        listed, token, turn = [], "", 0
        while True:
            page = servers[turn % 2].stub.ListRecords(pb.ListRecordsRequest(
                key_prefix="replicas/", page_size=2, page_token=token), timeout=10)
            listed += [r.record_id for r in page.records]
            token, turn = page.next_page_token, turn + 1
            if not token:
                break
            last_token = token
        assert listed == made and turn == 5
        altered = last_token[:10] + ("A" if last_token[10] != "A" else "B") + last_token[11:]
        for server in servers:
            with pytest.raises(grpc.RpcError) as caught:
                server.stub.ListRecords(pb.ListRecordsRequest(
                    key_prefix="replicas/", page_size=2, page_token=altered), timeout=10)
            assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
            assert caught.value.details() == f"page_token: {NOT_A_TOKEN}"
    finally:
        for server in servers:
            server.kill()
