"""The calendar cache, BatchComputeDueTimes and StreamComputeDueTimes."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import grpc
from google.rpc import error_details_pb2
import pytest
from duetime.api import convert
from duetime.api.convert import DUE_TIME, record_of
from duetime.app import CalendarCache, CalendarResolver
from duetime.compose import build_app
from duetime.core import InvalidArgument
from duetime.ledger import MemoryLedger
from duetime.v1 import duetime_pb2 as pb
from pg import pg_dsn  # noqa: F401 - the fixture
from local_app import compute, list_records, resolve_calendar
from server_process import start_server_fixture, zagreb_request  # noqa: F401

RECEIVED = datetime(2026, 11, 27, 15, 0, tzinfo=timezone.utc)


def distinct_calendar(i: int) -> pb.Calendar:
    """Calendar number ``i``: Zagreb with 30 holidays, the first one moved by ``i`` days."""
    first = date(2030, 1, 1) + timedelta(days=i)  # after the monthly ones
    holidays = [pb.Holiday(date=first.isoformat(), name=f"company day {i}")]
    holidays += [pb.Holiday(date=f"{2026 + y}-{m:02d}-15", name="monthly")
                 for y in range(3) for m in (2, 3, 4, 5, 6, 7, 8, 9, 10, 11)]
    return pb.Calendar(time_zone="Europe/Zagreb", holidays=holidays)


def vm_rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS line")


# --- the calendar cache ---------------------------------------------------------


def test_cache_is_bounded_lru():
    cache = CalendarCache(3)
    built = [resolve_calendar(distinct_calendar(i)).calendar for i in range(5)]
    for i, cal in enumerate(built):
        cache.put(bytes([i]), cal)
        assert len(cache) <= 3
    assert len(cache) == 3
    assert cache.get(bytes([0])) is None and cache.get(bytes([1])) is None
    assert cache.get(bytes([2])) is built[2]  # now the most recently used
    cache.put(bytes([9]), built[0])
    assert cache.get(bytes([3])) is None and cache.get(bytes([2])) is built[2]
    cache.maxsize = 1
    assert len(cache) == 1
    cache.maxsize = 0
    cache.put(b"x", built[0])
    assert len(cache) == 0


def test_resolve_calendar_reuses_the_built_calendar():
    app = build_app(calendar_cache=10)

    def calendar_cache_size():
        return len(app.calendar_cache)

    first = resolve_calendar(distinct_calendar(1), app)
    again = resolve_calendar(distinct_calendar(1), app)
    assert again.calendar is first.calendar and again.version == first.version
    for i in range(50):
        resolve_calendar(distinct_calendar(100 + i), app)
        assert calendar_cache_size() <= 10
    assert calendar_cache_size() == 10


def test_bad_calendars_are_not_cached():
    app = build_app(calendar_cache=10)

    def calendar_cache_size():
        return len(app.calendar_cache)

    with pytest.raises(Exception):
        resolve_calendar(pb.Calendar(time_zone="Mars/Olympus"), app)
    assert calendar_cache_size() == 0


def test_cache_flag_is_validated():
    from duetime.cli import parser as build_parser

    args = build_parser().parse_args(["serve", "--calendar-cache", "7"])
    assert args.calendar_cache == 7
    with pytest.raises(SystemExit):
        build_parser().parse_args(["serve", "--calendar-cache", "-1"])


def test_thousand_inline_calendars_stay_under_200_mb(start_server):
    server = start_server()
    pid = server.proc.pid
    for i in range(1000):
        request = zagreb_request()
        request.calendar.CopyFrom(distinct_calendar(i))
        reply = server.stub.ComputeDueTime(request, timeout=10)
        assert reply.record_id
    rss_mb = vm_rss_kb(pid) / 1024
    assert rss_mb < 200, f"server RSS {rss_mb:.0f} MB after 1,000 distinct inline calendars"


# --- BatchComputeDueTimes ---------------------------------------------------------

ZAGREB_DUE = "2026-12-02T15:00:00Z"


def mixed_items() -> list[pb.ComputeDueTimeRequest]:
    bad = zagreb_request()
    bad.duration = "3 fortnights"
    other = zagreb_request("k-2")
    other.duration = "1bd"  # Monday 2026-11-30 16:00 Zagreb
    conflicting = zagreb_request("k-1")
    conflicting.duration = "2bd"
    no_start = zagreb_request()
    no_start.ClearField("start")
    return [zagreb_request(), bad, zagreb_request("k-1"), other, zagreb_request("k-1"),
            conflicting, no_start]


def check_mixed(results, get_record) -> None:
    assert len(results) == 7
    ok = [0, 2, 3, 4]
    for i in ok:
        assert results[i].WhichOneof("result") == "response", (i, results[i])
    assert [results[i].response.due.ToJsonString() for i in ok] == [
        ZAGREB_DUE, ZAGREB_DUE, "2026-11-30T15:00:00Z", ZAGREB_DUE]
    assert results[4].response.record_id == results[2].response.record_id  # the key replays
    assert len({results[i].response.record_id for i in (0, 2, 3)}) == 3
    for i in (0, 2, 3):
        record = get_record(results[i].response.record_id)
        assert record.method == "/duetime.v1.DueTimeService/ComputeDueTime"
        stored = pb.ComputeDueTimeResponse()
        record.response.Unpack(stored)
        assert stored == results[i].response
    bad = results[1].error
    assert bad.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    detail = [d for d in bad.details if d.Is(error_details_pb2.BadRequest.DESCRIPTOR)]
    assert detail, bad
    request = error_details_pb2.BadRequest()
    detail[0].Unpack(request)
    assert [v.field for v in request.field_violations] == ["duration"]
    assert results[5].error.code == grpc.StatusCode.ALREADY_EXISTS.value[0]
    assert results[6].error.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    assert "start" in results[6].error.message


def test_app_batch_records_in_one_transaction():
    from duetime.api.calls import item_result

    ledger = MemoryLedger()
    app = build_app(ledger)
    before = ledger.commits
    results = [item_result(r) for r in app.call_many(DUE_TIME, mixed_items(), RECEIVED)]
    assert ledger.commits == before + 1
    check_mixed(results, lambda record_id: record_of(app.get_record(record_id)))
    assert len(list_records(app, pb.ListRecordsRequest()).records) == 3
    # the same key again, in a later batch and as a single call, replays
    again = app.call_many(DUE_TIME, [zagreb_request("k-1")], RECEIVED)
    assert again[0].record_id == results[2].response.record_id
    assert app.compute_due_time(zagreb_request("k-1"), RECEIVED).record_id == again[0].record_id


def test_app_batch_of_errors_only_commits_nothing():
    ledger = MemoryLedger()
    app = build_app(ledger)
    bad = zagreb_request()
    bad.duration = "soon"
    results = app.call_many(DUE_TIME, [bad, bad], RECEIVED)
    assert all(isinstance(r, Exception) for r in results)
    assert ledger.commits == 0


def test_app_batch_ledger_down_fails_whole_batch():
    from duetime.ledger import LedgerUnavailable

    ledger = MemoryLedger()
    app = build_app(ledger)
    ledger.set_unavailable("disk gone")
    with pytest.raises(LedgerUnavailable):
        app.call_many(DUE_TIME, [zagreb_request()], RECEIVED)


def test_server_batch_mixed(start_server):
    server = start_server()
    reply = server.stub.BatchComputeDueTimes(
        pb.BatchComputeDueTimesRequest(items=mixed_items()), timeout=30)

    def get_record(record_id):
        return server.stub.GetRecord(pb.GetRecordRequest(record_id=record_id), timeout=10).record

    check_mixed(reply.results, get_record)
    listed = server.stub.ListRecords(pb.ListRecordsRequest(), timeout=10)
    assert len(listed.records) == 3


def test_server_batch_too_many_items(start_server):
    server = start_server()
    items = [zagreb_request()] * 1_001
    with pytest.raises(grpc.RpcError) as err:
        server.stub.BatchComputeDueTimes(pb.BatchComputeDueTimesRequest(items=items), timeout=60)
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "items" in err.value.details()
    assert not server.stub.ListRecords(pb.ListRecordsRequest(), timeout=10).records


def test_server_batch_of_a_thousand(start_server):
    server = start_server()
    items = []
    for i in range(1_000):
        request = zagreb_request()
        request.start.FromSeconds(request.start.seconds + 60 * i)
        items.append(request)
    reply = server.stub.BatchComputeDueTimes(pb.BatchComputeDueTimesRequest(items=items),
                                             timeout=120)
    assert len(reply.results) == 1_000
    assert all(r.WhichOneof("result") == "response" for r in reply.results)
    assert reply.results[0].response.due.ToJsonString() == ZAGREB_DUE
    assert reply.results[60].response.due.ToJsonString() == "2026-12-02T16:00:00Z"


# --- StreamComputeDueTimes ------------------------------------------------------------


def test_server_stream_answers_in_order_and_records(start_server):
    server = start_server()
    sent = []

    def messages():
        for m in range(6):  # messages of 750 items (at most --max-batch-items, 1,000, each)
            items = []
            for i in range(750):
                request = zagreb_request()
                request.start.FromSeconds(request.start.seconds + 3600 * (m * 750 + i))
                if (m * 750 + i) % 997 == 0:
                    request.duration = "never"
                items.append(request)
            sent.extend(items)
            yield pb.StreamComputeDueTimesRequest(items=items)

    chunks = list(server.stub.StreamComputeDueTimes(messages(), timeout=120))
    assert all(len(c.results) <= 1000 for c in chunks)
    results = [r for c in chunks for r in c.results]
    assert len(results) == len(sent) == 4500
    # each answer is its own request's: compare with single-call answers, unrecorded
    for i in (1, 2, 998, 1499, 1500, 2999, 4499):
        expected = compute(sent[i])
        assert results[i].response.due == expected.due, i
    assert results[0].error.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    assert results[997].error.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    for i in (1, 1999, 4499):
        record = server.stub.GetRecord(
            pb.GetRecordRequest(record_id=results[i].response.record_id), timeout=10).record
        stored = pb.ComputeDueTimeRequest()
        record.request.Unpack(stored)
        assert stored == sent[i]


def test_server_stream_too_big_message(start_server):
    server = start_server()
    with pytest.raises(grpc.RpcError) as err:
        list(server.stub.StreamComputeDueTimes(
            iter([pb.StreamComputeDueTimesRequest(items=[zagreb_request()] * 10_001)]),
            timeout=60))
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT


# --- the work a batch shares ----------------------------------------------------------


def test_a_cached_calendar_is_not_checked_again(monkeypatch):
    app = build_app(calendar_cache=10)
    checked = []
    real = convert.calendar_text_problems
    monkeypatch.setattr(convert, "calendar_text_problems",
                        lambda cal, limits, field="calendar": checked.append(cal.time_zone)
                        or real(cal, limits, field))
    first = resolve_calendar(distinct_calendar(1), app)
    assert resolve_calendar(distinct_calendar(1), app).calendar is first.calendar
    assert checked == ["Europe/Zagreb"]  # only when it was built
    too_long = pb.Calendar(time_zone="Z" * 65)
    for _ in range(2):  # never cached: checked every time
        with pytest.raises(InvalidArgument) as caught:
            resolve_calendar(too_long, app)
        assert [v.field for v in caught.value.violations] == ["calendar.time_zone"]
    assert checked == ["Europe/Zagreb", "Z" * 65, "Z" * 65]


def test_batch_resolves_each_distinct_calendar_once(monkeypatch):
    resolved = []
    real = CalendarResolver.resolve
    monkeypatch.setattr(CalendarResolver, "resolve", lambda self, cal, bundles=None:
                        resolved.append(len(cal.message.holidays)) or real(self, cal, bundles))
    items = [zagreb_request() for _ in range(4)]  # four equal messages, built separately
    for hours in (1, 2):
        other = zagreb_request()
        other.calendar.ClearField("holidays")  # no holidays: Christmas Eve 3bd lands on the 29th
        other.start.FromJsonString("2026-12-24T08:00:00Z")
        other.duration = f"{hours}bd"
        items.append(other)
    results = build_app(MemoryLedger()).call_many(DUE_TIME, items, RECEIVED)
    assert sorted(resolved) == [0, 2]
    assert [r.due.ToJsonString() for r in results] == [ZAGREB_DUE] * 4 + [
        "2026-12-25T08:00:00Z", "2026-12-28T08:00:00Z"]
    assert [r.due_local for r in results[4:]] == ["2026-12-25T09:00:00+01:00",
                                                  "2026-12-28T09:00:00+01:00"]
    assert len({r.record_id for r in results}) == 6


class CountingLedger(MemoryLedger):
    """A MemoryLedger that counts its key lookups."""

    def __init__(self):
        super().__init__()
        self.lookups: list[tuple[str, tuple[str, ...]]] = []

    def get_by_key(self, idempotency_key, namespace=""):
        self.lookups.append(("get_by_key", (idempotency_key,)))
        return super().get_by_key(idempotency_key, namespace)

    def get_by_keys(self, keys, namespace=""):
        self.lookups.append(("get_by_keys", tuple(keys)))
        return super().get_by_keys(keys, namespace)


def test_batch_looks_its_keys_up_in_one_query():
    ledger = CountingLedger()
    app = build_app(ledger)
    earlier = app.compute_due_time(zagreb_request("k-old"), RECEIVED)
    ledger.lookups.clear()
    items = [zagreb_request("k-old"), zagreb_request(), zagreb_request("k-new"),
             zagreb_request("k-new"), zagreb_request("k-old")]
    results = app.call_many(DUE_TIME, items, RECEIVED)
    assert ledger.lookups == [("get_by_keys", ("k-old", "k-new"))]
    assert [r.record_id for r in results].count(earlier.record_id) == 2
    assert results[0] == results[4] == earlier
    assert results[3] == results[2] and results[2].record_id != earlier.record_id
    assert results[1].record_id not in (earlier.record_id, results[2].record_id)
    assert len(list_records(app, pb.ListRecordsRequest()).records) == 3


@pytest.mark.parametrize("store", ["sqlite", "postgres"])
def test_sql_get_by_keys_reads_many_keys_in_chunks(store, tmp_path, monkeypatch, request):
    from duetime.ledger import sql as ledger_mod
    from duetime.ledger import LedgerRow, SqliteLedger
    from duetime.ledger.postgres import PostgresLedger

    monkeypatch.setattr(ledger_mod, "KEYS_PER_QUERY", 3)
    ledger = (SqliteLedger(tmp_path / "ledger.db") if store == "sqlite"
              else PostgresLedger(request.getfixturevalue("pg_dsn")))
    rows = [LedgerRow.create(record_id=f"{i:032x}", method="m", receive_time_us=i,
                             idempotency_key=f"k{i}", request=b"q", response=b"r",
                             calendar_version="c", rules_version="r", tzdata_version="t",
                             namespace="team" if i % 2 else "")
            for i in range(8)]
    ledger.put_many(rows)
    queries: list[str] = []
    real = ledger._fetch
    monkeypatch.setattr(ledger, "_fetch", lambda sql, params=(): queries.append(sql) or real(sql, params))
    found = ledger.get_by_keys(["k0", "k1", "k2", "k4", "k6", "k9", "k0", ""])
    assert sorted(found) == ["k0", "k2", "k4", "k6"]  # k1 is in namespace "team", k9 unknown
    assert all(found[k] == rows[int(k[1:])] for k in found)
    assert len(queries) == 2  # 5 distinct keys, 3 a query
    assert ledger.get_by_keys(["k1", "k3", "k4"], "team") == {"k1": rows[1], "k3": rows[3]}
    assert ledger.get_by_keys([]) == {}
    ledger.close()


def test_record_ids_are_time_ordered_uuid7():
    import time
    import uuid

    from duetime.ledger import new_record_id, new_record_ids

    before = time.time_ns() // 1_000_000
    ids = new_record_ids(2000) + [new_record_id() for _ in range(100)]
    after = time.time_ns() // 1_000_000
    assert len(set(ids)) == 2100
    for record_id in ids:
        parsed = uuid.UUID(hex=record_id)
        assert parsed.hex == record_id and len(record_id) == 32
        assert (parsed.version, parsed.variant) == (7, uuid.RFC_4122)
        assert before <= int(record_id[:12], 16) <= after
    random_bits = {int(i, 16) & ((1 << 62) - 1) for i in ids}
    assert len(random_bits) == 2100  # the 62 low bits are random, not a counter
    time.sleep(0.002)
    assert new_record_id() > max(ids)
    assert new_record_ids(0) == []


def test_a_forked_process_draws_its_own_record_ids():
    import os

    from duetime.ledger import new_record_id

    new_record_id()  # the pool of random bytes is filled in this process
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: its first id must not repeat the parent's next one
        os.write(write, new_record_id().encode())
        os._exit(0)
    os.close(write)
    mine = new_record_id()
    child = os.read(read, 64).decode()
    os.waitpid(pid, 0)
    os.close(read)
    assert len(child) == 32 and child[16:] != mine[16:]


def test_row_builder_equals_create():
    from duetime.ledger import LedgerRow, RowBuilder

    for namespace in ("", "team-a"):
        builder = RowBuilder("/duetime.v1.DueTimeService/ComputeDueTime", 1_795_791_600_000_001,
                             namespace)
        for key, versions in (("", ("cal-1", "2026.1", "2026f")), ("k€", ("b@v+cal-2", "r", "t")),
                              ("", ("cal-1", "2026.1", "2026f"))):
            built = builder.row("0" * 31 + "1", key, b"\x00request", b"response", *versions)
            created = LedgerRow.create(
                record_id="0" * 31 + "1", method="/duetime.v1.DueTimeService/ComputeDueTime",
                receive_time_us=1_795_791_600_000_001, idempotency_key=key,
                request=b"\x00request", response=b"response", calendar_version=versions[0],
                rules_version=versions[1], tzdata_version=versions[2], namespace=namespace)
            assert built == created
            assert built.content_sha256 == built.digest() and len(built.content_sha256) == 64


def test_group_commit_under_many_threads():
    import threading
    import time

    from duetime.ledger import GroupCommit, LedgerRow

    class SlowLedger(MemoryLedger):
        def put_many(self, rows):
            time.sleep(0.002)  # a commit takes a while: callers queue up behind it
            return super().put_many(rows)

    ledger = SlowLedger()
    group = GroupCommit(ledger)
    got: dict[str, LedgerRow] = {}

    def worker(t: int) -> None:
        for i in range(60):
            row = LedgerRow.create(record_id=f"{t:04x}{i:028x}", method="m", receive_time_us=i,
                                   idempotency_key=f"key-{i}" if t % 4 == 0 else "",
                                   request=b"q", response=b"r", calendar_version="c",
                                   rules_version="r", tzdata_version="t")
            got[row.record_id] = group.put(row)

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert len(got) == 720
    stored = {r.record_id for r in ledger.iter_records()}
    # threads 0, 4 and 8 race for the same 60 keys: one row per key, the others get it back
    assert len(stored) == 9 * 60 + 60
    keyed = [got[f"{t:04x}{i:028x}"] for t in (0, 4, 8) for i in range(60)]
    assert all(row.record_id in stored for row in keyed)
    assert {row.idempotency_key for row in keyed} == {f"key-{i}" for i in range(60)}
    assert all(got[rid].record_id == rid for rid in got if not rid.startswith(("0000", "0004", "0008")))
    assert ledger.commits <= 360  # commits were shared: 12 callers, one commit at a time


def test_compute_errors_name_the_field():
    from duetime.core import InvalidArgument, OutOfRange

    cases = []
    missing = zagreb_request()
    missing.ClearField("start")
    cases.append((missing, InvalidArgument, "start", "is required (an instant)"))
    odd = zagreb_request()
    odd.start.nanos = 1
    cases.append((odd, InvalidArgument, "start",
                  "nanos 1 is not a whole number of microseconds in 0..999999999"))
    early = zagreb_request()
    early.start.seconds = -62_135_596_801
    cases.append((early, OutOfRange, "start", "seconds -62135596801 is outside the Timestamp "
                                              "range 0001-01-01 .. 9999-12-31"))
    long_duration = zagreb_request()
    long_duration.duration = "1" * 257 + "h"
    cases.append((long_duration, InvalidArgument, "duration",
                  "is 258 characters long; at most 256 are allowed"))
    at_close = zagreb_request()
    at_close.at_close = 7
    cases.append((at_close, InvalidArgument, "at_close", "7 is not an AtClose value (0, 1 or 2)"))
    for request, kind, field, description in cases:
        with pytest.raises(kind) as caught:
            compute(request)
        assert [(v.field, v.description) for v in caught.value.violations] == [(field, description)]
    fraction = zagreb_request()  # microseconds pass through to the answer
    fraction.start.nanos = 123_456_000
    fraction.duration = "-1h"
    answer = compute(fraction)
    assert (answer.due.ToJsonString(), answer.due_local) == (
        "2026-11-27T14:00:00.123456Z", "2026-11-27T15:00:00.123456+01:00")
    late = zagreb_request()
    late.start.FromJsonString("2199-12-31T20:00:00Z")
    with pytest.raises(OutOfRange) as caught:
        compute(late)
    assert caught.value.violations[0].field == "duration"
