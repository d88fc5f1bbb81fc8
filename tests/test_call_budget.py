"""The call budget (``--call-budget``): each call runs in its handler's own
thread with a deadline the app checks before recording and between a batch's
items; a call past it is DEADLINE_EXCEEDED (reason CALL_BUDGET_EXCEEDED) and
records nothing."""

from __future__ import annotations

import threading
import time
from datetime import date, datetime, timezone

import grpc
import pytest
from duetime.api import http
from duetime.api.calls import CallBudget
from duetime.api.convert import DUE_TIME
from duetime.api.server import start_server
from duetime.app import BudgetExceeded, CallDeadline, answers
from duetime.compose import build_app
from duetime.ledger import MemoryLedger, RecordFilter
from duetime.v1 import duetime_pb2 as pb
from duetime.v1 import duetime_pb2_grpc as pb_grpc
from google.rpc import code_pb2
from google.rpc.error_details_pb2 import ErrorInfo
from grpc_status import rpc_status
from server_process import zagreb_request
from test_status_table import from_body, post

RECEIVED = datetime(2026, 11, 27, 15, 0, tzinfo=timezone.utc)
SLOW = 0.2
"""Seconds each due time takes once :func:`slow_due_times` is in place."""
MESSAGE = ("the call needed more than the server's budget of 0.05 s (--call-budget): "
           "it was stopped and nothing was recorded")


@pytest.fixture
def slow_due_times(monkeypatch) -> list[str]:
    """Make every due time take :data:`SLOW` seconds longer to compute; the
    list gets the name of the thread each was computed in."""
    due_time, threads = answers.due_time, []

    def slow(*args, **kwargs):
        threads.append(threading.current_thread().name)
        time.sleep(SLOW)
        return due_time(*args, **kwargs)

    monkeypatch.setattr(answers, "due_time", slow)
    return threads


def stored(app) -> int:
    return len(list(app.records(RecordFilter())))


def test_a_call_past_its_deadline_records_nothing(slow_due_times):
    app = build_app(MemoryLedger())
    with pytest.raises(BudgetExceeded) as caught:
        app.call(DUE_TIME, zagreb_request("k"), RECEIVED, deadline=CallDeadline(0.05))
    assert (str(caught.value), caught.value.metadata) == (
        MESSAGE, {"call_budget_seconds": "0.05"})
    assert len(slow_due_times) == 1  # computed, then checked before recording
    assert stored(app) == 0
    # within the budget (or without one) the same call is answered and recorded
    answered = app.call(DUE_TIME, zagreb_request("k"), RECEIVED, deadline=CallDeadline(30))
    assert answered.due_local == "2026-12-02T16:00:00+01:00"
    assert app.call(DUE_TIME, zagreb_request("k"), RECEIVED) == answered
    assert stored(app) == 1


def test_a_batch_past_its_deadline_stops_between_items(slow_due_times):
    app = build_app(MemoryLedger())
    items = [zagreb_request(f"k-{i}") for i in range(20)]
    with pytest.raises(BudgetExceeded):
        app.call_many(DUE_TIME, items, RECEIVED, deadline=CallDeadline(0.05))
    assert 1 <= len(slow_due_times) <= 2  # stopped before the next item, not after all 20
    assert stored(app) == 0
    assert len(app.call_many(DUE_TIME, items[:2], RECEIVED, deadline=CallDeadline(30))) == 2
    assert stored(app) == 2


def test_no_budget_is_no_deadline():
    assert CallBudget(0).deadline() is None
    deadline = CallBudget(0.5).deadline()
    assert isinstance(deadline, CallDeadline) and deadline.seconds == 0.5
    deadline.check()  # not yet past


def test_served_call_past_the_budget_is_deadline_exceeded_in_its_own_thread(slow_due_times):
    running = start_server(MemoryLedger(), port=0, call_budget=0.05, log_calls=False)
    try:
        with grpc.insecure_channel(f"127.0.0.1:{running.port}") as channel:
            stub = pb_grpc.DueTimeServiceStub(channel)
            with pytest.raises(grpc.RpcError) as caught:
                stub.ComputeDueTime(zagreb_request(), timeout=10)
            assert caught.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
            assert caught.value.details() == MESSAGE
            info = ErrorInfo()
            assert rpc_status.from_call(caught.value).details[0].Unpack(info)
            assert (info.reason, dict(info.metadata)) == (
                "CALL_BUDGET_EXCEEDED", {"call_budget_seconds": "0.05"})
            assert stored(running.app) == 0

            with pytest.raises(grpc.RpcError) as caught:
                stub.BatchComputeDueTimes(
                    pb.BatchComputeDueTimesRequest(items=[zagreb_request()] * 20), timeout=10)
            assert caught.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
            with pytest.raises(grpc.RpcError) as caught:
                list(stub.StreamComputeDueTimes(
                    iter([pb.StreamComputeDueTimesRequest(items=[zagreb_request()] * 20)]),
                    timeout=10))
            assert caught.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
            assert len(slow_due_times) <= 2 + 2 + 1 + 2  # each stopped at its budget
            assert stored(running.app) == 0

        answered = post(http.create_app(running.app, log_calls=False, limits=running.limits),
                        "/v1/dueTimes:compute", zagreb_request())
        assert answered.status_code == 504
        status = from_body(answered)
        assert (status.code, status.message) == (code_pb2.DEADLINE_EXCEEDED, MESSAGE)
        assert stored(running.app) == 0

        # every call was computed in its handler's thread; no pool of its own
        assert slow_due_times and not any(name.startswith("duetime-call")
                                          for name in slow_due_times)
        assert not [t.name for t in threading.enumerate() if t.name.startswith("duetime-call")]
    finally:
        running.stop(grace=0)


class Stop(Exception):
    pass


def test_the_calendar_build_calls_a_cooperative_check():
    from duetime.core import Calendar
    from duetime.core.compiled import CHECK_EVERY, CompiledCalendar

    holidays = [(date.fromordinal(date(2030, 1, 1).toordinal() + i).isoformat(), "")
                for i in range(3 * CHECK_EVERY)]
    calls = []
    cal = Calendar.from_text("Europe/Zagreb", holidays=holidays, check=lambda: calls.append(1))
    assert len(calls) == 3  # every CHECK_EVERY dates given
    assert cal == Calendar.from_text("Europe/Zagreb", holidays=holidays)  # the same calendar
    calls.clear()
    CompiledCalendar(cal, check=lambda: calls.append(1))
    assert len(calls) >= 2  # every CHECK_EVERY exception dates (weekend holidays are none)

    def stop() -> None:
        raise Stop

    with pytest.raises(Stop):
        Calendar.from_text("Europe/Zagreb", holidays=holidays, check=stop)
    with pytest.raises(Stop):
        cal.compile(stop)
    assert "compiled" not in cal.__dict__  # nothing kept of a stopped build
    assert cal.compile() is cal.compiled


def test_a_call_past_its_deadline_stops_in_the_calendar_build():
    app = build_app(MemoryLedger())
    request = zagreb_request()
    request.calendar.holidays.extend(
        pb.Holiday(date=date.fromordinal(date(2030, 1, 1).toordinal() + i).isoformat())
        for i in range(1000))
    deadline = CallDeadline(0.0)
    time.sleep(0.01)
    with pytest.raises(BudgetExceeded):
        app.call(DUE_TIME, request, RECEIVED, deadline=deadline)
    assert len(app.calendar_cache) == 0  # stopped while building: nothing cached
    assert stored(app) == 0
    assert app.call(DUE_TIME, request, RECEIVED).due_local == "2026-12-02T16:00:00+01:00"
    assert len(app.calendar_cache) == 1
