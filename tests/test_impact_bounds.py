"""What one AnalyzeImpact call reads and replays is bounded: only the records a
change may concern are read (a page at a time), at most 1,000 due times are
replayed and 6,000 of distinct inline calendars built; past a bound the
analysis stops and says ``truncated``, and ``records_examined`` counts the
records of the range up to where it stopped."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone

from duetime import impact
from duetime.api.convert import DUE_TIME, SCHEDULE
from duetime.compose import build_app
from duetime.impact import analyze
from duetime.ledger import LedgerRow, MemoryLedger
from duetime.v1 import duetime_pb2 as pb
from server_process import zagreb_request

RECEIVED = datetime(2026, 11, 27, 15, 0, tzinfo=timezone.utc)


def schedule_request(deadlines: int) -> pb.ComputeScheduleRequest:
    request = pb.ComputeScheduleRequest(
        calendar=zagreb_request().calendar,
        deadlines=[pb.DeadlineSpec(name=f"d{i}", duration=f"{i + 1}h") for i in range(deadlines)])
    request.entered_time.FromJsonString("2026-11-27T15:00:00Z")
    return request


def old_tzdata_copies(ledger: MemoryLedger, made: LedgerRow, n: int, first: int = 0) -> None:
    """``n`` copies of ``made`` as if computed with tzdata 2020a (records a tz
    database change concerns), received one µs apart."""
    for i in range(first, first + n):
        ledger.put(LedgerRow.create(
            record_id=f"{i:032x}", method=made.method, receive_time_us=made.receive_time_us + 1 + i,
            idempotency_key=f"old-{i}", request=made.request, response=made.response,
            calendar_version=made.calendar_version, rules_version=made.rules_version,
            tzdata_version="2020a"))


def test_the_bounds():
    assert (impact.MAX_LIMIT, impact.MAX_DUE_TIMES, impact.MAX_CALENDARS_WEIGHT, impact.IMPACT_PAGE) == (
        1_000, 1_000, 6_000, 20)


def test_an_analysis_replays_at_most_1000_due_times():
    ledger = MemoryLedger()
    app = build_app(ledger)
    made = app.call(SCHEDULE, schedule_request(100), RECEIVED)
    old_tzdata_copies(ledger, app.get_record(made.record_id), 11)
    reply = analyze(pb.AnalyzeImpactRequest(tzdata=True), app)
    # ten schedules of 100 deadlines; the eleventh would pass 1,000 due times
    assert (reply.records_replayed, reply.truncated, reply.records_examined) == (10, True, 12)
    assert list(reply.changes) == []  # the same zone rules: no due time moves


def test_an_analysis_builds_at_most_6000_of_distinct_inline_calendars():
    ledger = MemoryLedger()
    app = build_app(ledger)
    for i in range(160):
        request = zagreb_request(f"k{i}")
        request.calendar.holidays[1].date = (date(2030, 1, 1) + timedelta(days=i)).isoformat()
        made = app.get_record(app.call(DUE_TIME, request, RECEIVED).record_id)
        old_tzdata_copies(ledger, made, 1, first=i)
    reply = analyze(pb.AnalyzeImpactRequest(tzdata=True), app)
    # each calendar weighs 202: 29 fit in 6,000
    assert (reply.records_replayed, reply.truncated) == (29, True)
    # the 160 records computed with this tzdata, and the 30 old ones up to the stop
    assert reply.records_examined == 160 + 30


def test_records_a_change_cannot_concern_are_counted_not_read(monkeypatch):
    ledger = MemoryLedger()
    app = build_app(ledger)
    for i in range(250):
        app.call(DUE_TIME, zagreb_request(f"k{i}"), RECEIVED)
    made = app.get_record(app.call(DUE_TIME, zagreb_request("x"), RECEIVED).record_id)
    old_tzdata_copies(ledger, made, 3)
    read = []
    real = MemoryLedger.concerned_page

    def counting(self, flt, concern, after, limit):
        rows = real(self, flt, concern, after, limit)
        read.append(len(rows))
        return rows

    monkeypatch.setattr(MemoryLedger, "concerned_page", counting)
    reply = analyze(pb.AnalyzeImpactRequest(tzdata=True), app)
    assert (reply.records_examined, reply.records_replayed, reply.truncated) == (254, 3, False)
    assert read == [3]  # one page, holding only the three concerned records
