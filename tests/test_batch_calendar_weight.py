"""The distinct inline calendars of one BatchComputeDueTimes call (or one
stream message) weigh at most 6,000 together (docs/operations.md, "What
one request may hold"): each is built anew, so their number and size bound
the work of one message. Refused before any item is computed, on
``items[i].calendar``; equal calendars and bundles named alone are free."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone

import grpc
import pytest
from duetime.api.calls import CallLimits, unary_calls
from duetime.api.server import start_server
from duetime.app import limits as L
from duetime.compose import build_app
from duetime.core import InvalidArgument
from duetime.ledger import MemoryLedger, RecordFilter
from duetime.v1 import duetime_pb2 as pb
from duetime.v1 import duetime_pb2_grpc as pb_grpc
from google.rpc import status_pb2
from google.rpc.error_details_pb2 import BadRequest
from grpc_status import rpc_status
from server_process import zagreb_request

RECEIVED = datetime(2026, 11, 27, 15, 0, tzinfo=timezone.utc)
BATCH = "/duetime.v1.DueTimeService/BatchComputeDueTimes"


def distinct(n: int, first: int = 0) -> list[pb.ComputeDueTimeRequest]:
    """``n`` items of the Zagreb example, each in its own calendar (its second
    holiday moved by ``first + i`` days): each weighs 200 + 2 dates = 202."""
    items = []
    for i in range(first, first + n):
        item = zagreb_request()
        item.calendar.holidays[1].date = (date(2030, 1, 1) + timedelta(days=i)).isoformat()
        items.append(item)
    return items


def refusal(n: int, weight: int) -> tuple[str, str]:
    return (f"items[{n - 1}].calendar",
            f"makes {n} distinct inline calendar{'s' if n > 1 else ''} weighing {weight} (200 each, 3 per interval of "
            "its week, 1 per other interval or date); at most 6000 are allowed in one message: "
            "name a bundle, or send the other calendars' items in separate messages (a heavier "
            "calendar: ComputeDueTime)")


def test_what_a_calendar_weighs():
    assert (L.CALENDAR_WEIGHT, L.WEEK_INTERVAL_WEIGHT, L.MAX_BATCH_CALENDAR_WEIGHT) == (200, 3, 6_000)
    assert L.calendar_weight(zagreb_request().calendar) == 202  # 200 + two holidays
    week = pb.WorkingHours(days=[pb.DayHours(weekday=wd, intervals=[
        pb.TimeInterval(start="09:00", end="12:00"), pb.TimeInterval(start="13:00", end="17:00")])
        for wd in range(1, 6)])
    override = pb.DateOverride(date="2026-12-24", intervals=[pb.TimeInterval(start="09:00", end="12:00")])
    calendar = pb.Calendar(time_zone="Europe/Zagreb", working_hours=week, date_overrides=[override],
                           extra_working_days=[pb.ExtraWorkingDay(date="2026-12-19")])
    # 200 + 3 × 10 week intervals + 1 override interval + 2 dates
    assert L.calendar_weight(calendar) == 233
    assert L.calendar_weight(pb.Calendar()) == 200


def test_one_message_may_hold_29_distinct_small_calendars_not_30():
    CallLimits().check_items(distinct(29))  # 29 × 202 = 5,858
    with pytest.raises(InvalidArgument) as caught:
        CallLimits().check_items(distinct(30))
    assert [(v.field, v.description) for v in caught.value.violations] == [refusal(30, 6_060)]


def test_equal_calendars_and_bundles_named_alone_count_once_or_not_at_all():
    items = distinct(29)
    bundle = pb.ComputeDueTimeRequest(calendar=pb.Calendar(bundle="hr-zagreb"), duration="1bd")
    again = distinct(1)[0]  # equal to the first item's calendar, built separately
    CallLimits(max_batch_items=10_000).check_items(items + [again] * 5_000 + [bundle] * 1_000)
    # a bundle with extra holidays is built anew: it counts
    extra = pb.ComputeDueTimeRequest(calendar=pb.Calendar(bundle="hr-zagreb", holidays=[
        pb.Holiday(date="2026-12-24")]), duration="1bd")
    with pytest.raises(InvalidArgument) as caught:
        CallLimits().check_items(items + [extra])
    assert [v.field for v in caught.value.violations] == ["items[29].calendar"]


def test_a_calendar_heavier_than_the_bound_is_refused_even_alone():
    per_day = L.MAX_INTERVALS_PER_DAY
    day = [pb.TimeInterval(start=f"{q // 2:02d}:{q % 2 * 30:02d}", end=f"{q // 2:02d}:{q % 2 * 30 + 20:02d}")
           for q in range(per_day)]
    week = pb.WorkingHours(days=[pb.DayHours(weekday=wd, intervals=day) for wd in range(1, 8)])
    overrides = (L.MAX_INTERVALS - 7 * per_day) // per_day
    first = date(1950, 1, 1).toordinal()
    largest = pb.Calendar(
        time_zone="America/New_York", weekend=pb.WeekendDays(), working_hours=week,
        date_overrides=[pb.DateOverride(date=date.fromordinal(first + i).isoformat(), intervals=day)
                        for i in range(overrides)],
        holidays=[pb.Holiday(date=date.fromordinal(first + 1000 + i).isoformat())
                  for i in range(L.MAX_DATES - overrides)])
    assert L.calendar_weight(largest) == 200 + 3 * 336 + 201 * 48 + 5_000 == 15_856
    item = pb.ComputeDueTimeRequest(calendar=largest, duration="1h")
    with pytest.raises(InvalidArgument) as caught:
        CallLimits().check_items([item] * 10)
    assert [(v.field, v.description) for v in caught.value.violations] == [refusal(1, 15_856)]
    # 5,000 dates and 48 intervals every weekday: 200 + 720 + 5,000
    holidays = pb.Calendar(time_zone="America/New_York", working_hours=pb.WorkingHours(
        days=[pb.DayHours(weekday=wd, intervals=day) for wd in range(1, 6)]),
        holidays=largest.holidays[:5_000 - overrides] + [pb.Holiday(date=f"2100-01-{d:02d}")
                                                         for d in range(1, overrides + 1)])
    assert L.calendar_weight(holidays) == 5_920
    CallLimits().check_items([pb.ComputeDueTimeRequest(calendar=holidays, duration="1h")] * 10)
    with pytest.raises(InvalidArgument):  # 5,920 + 202 = 6,122
        CallLimits().check_items([pb.ComputeDueTimeRequest(calendar=holidays, duration="1h")] * 10
                                 + distinct(1))


def test_the_bound_is_the_server_s_setting():
    CallLimits(max_batch_calendar_weight=1_000_000).check_items(distinct(1_000))
    with pytest.raises(InvalidArgument):
        CallLimits(max_batch_calendar_weight=203).check_items(distinct(2))


def test_a_refused_batch_computes_and_records_nothing():
    app = build_app(MemoryLedger())
    calls = unary_calls(app, CallLimits())
    with pytest.raises(InvalidArgument):
        calls[BATCH](pb.BatchComputeDueTimesRequest(items=distinct(200)), (), RECEIVED, None)
    assert list(app.records(RecordFilter())) == []
    reply = calls[BATCH](pb.BatchComputeDueTimesRequest(items=distinct(3)), (), RECEIVED, None)
    assert [r.response.due_local for r in reply.results] == ["2026-12-02T16:00:00+01:00"] * 3


def test_served_batch_and_stream_message_over_the_bound_are_invalid_argument():
    running = start_server(MemoryLedger(), port=0, log_calls=False)
    try:
        with grpc.insecure_channel(f"127.0.0.1:{running.port}") as channel:
            stub = pb_grpc.DueTimeServiceStub(channel)
            for call in (lambda: stub.BatchComputeDueTimes(
                             pb.BatchComputeDueTimesRequest(items=distinct(30)), timeout=30),
                         lambda: list(stub.StreamComputeDueTimes(iter([
                             pb.StreamComputeDueTimesRequest(items=distinct(30))]), timeout=30))):
                with pytest.raises(grpc.RpcError) as caught:
                    call()
                assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
                status: status_pb2.Status = rpc_status.from_call(caught.value)
                bad = BadRequest()
                assert any(detail.Unpack(bad) for detail in status.details)
                assert [(v.field, v.description) for v in bad.field_violations] == [refusal(30, 6_060)]
        assert list(running.app.records(RecordFilter())) == []
    finally:
        running.stop(grace=0)


def test_over_http_the_refusal_is_400_on_the_same_field():
    from duetime.api import http
    from test_status_table import from_body, post

    app = build_app(MemoryLedger())
    answered = post(http.create_app(app, log_calls=False), "/v1/dueTimes:batchCompute",
                    pb.BatchComputeDueTimesRequest(items=distinct(30)))
    assert answered.status_code == 400
    bad = BadRequest()
    assert any(detail.Unpack(bad) for detail in from_body(answered).details)
    assert [(v.field, v.description) for v in bad.field_violations] == [refusal(30, 6_060)]
    assert list(app.records(RecordFilter())) == []
