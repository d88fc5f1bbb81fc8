"""The calendar cache, BatchComputeDueTimes and StreamComputeDueTimes."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import grpc
from google.rpc import error_details_pb2
import pytest
from duetime import app as app_mod
from duetime.app import CalendarCache, DueTimeApp, calendar_cache_size, resolve_calendar
from duetime.ledger import MemoryLedger
from duetime.v1 import duetime_pb2 as pb
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


def test_resolve_calendar_reuses_the_built_calendar(monkeypatch):
    monkeypatch.setattr(app_mod, "CALENDAR_CACHE", CalendarCache(10))
    first = resolve_calendar(distinct_calendar(1))
    again = resolve_calendar(distinct_calendar(1))
    assert again.calendar is first.calendar and again.version == first.version
    for i in range(50):
        resolve_calendar(distinct_calendar(100 + i))
        assert calendar_cache_size() <= 10
    assert calendar_cache_size() == 10


def test_bad_calendars_are_not_cached(monkeypatch):
    monkeypatch.setattr(app_mod, "CALENDAR_CACHE", CalendarCache(10))
    with pytest.raises(Exception):
        resolve_calendar(pb.Calendar(time_zone="Mars/Olympus"))
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
    from duetime.api.server import item_result
    from duetime.app import DUE_TIME

    ledger = MemoryLedger()
    app = DueTimeApp(ledger)
    before = ledger.commits
    results = [item_result(r) for r in app.call_many(DUE_TIME, mixed_items(), RECEIVED)]
    assert ledger.commits == before + 1
    check_mixed(results, app.get_record)
    assert len(app.list_records(pb.ListRecordsRequest()).records) == 3
    # the same key again, in a later batch and as a single call, replays
    again = app.call_many(DUE_TIME, [zagreb_request("k-1")], RECEIVED)
    assert again[0].record_id == results[2].response.record_id
    assert app.compute_due_time(zagreb_request("k-1"), RECEIVED).record_id == again[0].record_id


def test_app_batch_of_errors_only_commits_nothing():
    from duetime.app import DUE_TIME

    ledger = MemoryLedger()
    app = DueTimeApp(ledger)
    bad = zagreb_request()
    bad.duration = "soon"
    results = app.call_many(DUE_TIME, [bad, bad], RECEIVED)
    assert all(isinstance(r, Exception) for r in results)
    assert ledger.commits == 0


def test_app_batch_ledger_down_fails_whole_batch():
    from duetime.app import DUE_TIME
    from duetime.ledger import LedgerUnavailable

    ledger = MemoryLedger()
    app = DueTimeApp(ledger)
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
    items = [zagreb_request()] * 10_001
    with pytest.raises(grpc.RpcError) as err:
        server.stub.BatchComputeDueTimes(pb.BatchComputeDueTimesRequest(items=items), timeout=60)
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "items" in err.value.details()
    assert not server.stub.ListRecords(pb.ListRecordsRequest(), timeout=10).records


def test_server_batch_of_ten_thousand(start_server):
    server = start_server()
    items = []
    for i in range(10_000):
        request = zagreb_request()
        request.start.FromSeconds(request.start.seconds + 60 * i)
        items.append(request)
    reply = server.stub.BatchComputeDueTimes(pb.BatchComputeDueTimesRequest(items=items),
                                             timeout=120)
    assert len(reply.results) == 10_000
    assert all(r.WhichOneof("result") == "response" for r in reply.results)
    assert reply.results[0].response.due.ToJsonString() == ZAGREB_DUE
    assert reply.results[60].response.due.ToJsonString() == "2026-12-02T16:00:00Z"


# --- StreamComputeDueTimes ------------------------------------------------------------


def test_server_stream_answers_in_order_and_records(start_server):
    server = start_server()
    sent = []

    def messages():
        for m in range(3):
            items = []
            for i in range(1500):
                request = zagreb_request()
                request.start.FromSeconds(request.start.seconds + 3600 * (m * 1500 + i))
                if (m * 1500 + i) % 997 == 0:
                    request.duration = "never"
                items.append(request)
            sent.extend(items)
            yield pb.StreamComputeDueTimesRequest(items=items)

    chunks = list(server.stub.StreamComputeDueTimes(messages(), timeout=120))
    assert all(len(c.results) <= 1000 for c in chunks)
    results = [r for c in chunks for r in c.results]
    assert len(results) == len(sent) == 4500
    # each answer is its own request's: compare with single-call answers, unrecorded
    from duetime.app import compute

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
