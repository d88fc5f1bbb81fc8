"""Limits that keep one caller from hurting the rest, against real servers:
``--max-message-bytes`` (RESOURCE_EXHAUSTED from gRPC), ``--max-batch-items``
(INVALID_ARGUMENT on items), ``--call-budget`` (DEADLINE_EXCEEDED, reason
CALL_BUDGET_EXCEEDED), and ``--grace``."""

from __future__ import annotations

import sqlite3
import threading
import time
from datetime import date, timedelta

import grpc
import pytest
from duetime.v1 import duetime_pb2 as pb
from google.rpc.error_details_pb2 import BadRequest, ErrorInfo
from grpc_status import rpc_status
from server_process import zagreb_request
from test_ops_security import ops_server_fixture  # noqa: F401 - the ops_server fixture

BUDGET = 0.1
"""Seconds of --call-budget in the budget test; the slow batch needs far more."""
SLOW_ITEMS = 1000
"""Items of the slow batch (:func:`slow_batch`; about 4 ms each on a busy
2-core machine)."""

HEAVY_BATCHES = ("--max-batch-calendar-weight", "1000000", "--max-batch-items", "10000")
"""A server that takes the slow batch (thousands of distinct inline calendars
in one message), far over the default weight of one message's calendars and
its default count of items."""


def details(error: grpc.RpcError) -> tuple[BadRequest, ErrorInfo]:
    bad, info = BadRequest(), ErrorInfo()
    for detail in rpc_status.from_call(error).details:
        detail.Unpack(bad) or detail.Unpack(info)
    return bad, info


def with_holidays(count: int) -> pb.ComputeDueTimeRequest:
    request = zagreb_request()
    request.calendar.holidays.extend(
        pb.Holiday(date=(date(2030, 1, 1) + timedelta(days=i)).isoformat())
        for i in range(count))
    return request


def slow_batch(items: int, tag: str = "") -> pb.BatchComputeDueTimesRequest:
    """``items`` due times, each in its own inline calendar of 100 holidays
    (the first holiday's name differs: ``calendar {tag}{i}``), so each
    calendar is built anew."""
    base = with_holidays(100)
    batch = pb.BatchComputeDueTimesRequest()
    for i in range(items):
        item = batch.items.add()
        item.CopyFrom(base)
        item.calendar.holidays[0].name = f"calendar {tag}{i}"
    return batch


def records(server) -> int:
    """Records in the server's ledger, read from its SQLite file (not over
    gRPC: a call made while the slow work hogs the GIL could itself go over
    a small budget)."""
    with sqlite3.connect(server.db_path) as conn:
        return conn.execute("SELECT count(*) FROM records").fetchone()[0]


def test_message_size_and_batch_items(ops_server):
    server = ops_server("--max-message-bytes", "4096", "--max-batch-items", "3")
    assert with_holidays(300).ByteSize() > 4096
    with pytest.raises(grpc.RpcError) as caught:
        server.stub.ComputeDueTime(with_holidays(300), timeout=10)
    assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert "4096" in caught.value.details()
    assert server.stub.ComputeDueTime(with_holidays(10), timeout=10).due_local == \
        "2026-12-02T16:00:00+01:00"

    with pytest.raises(grpc.RpcError) as caught:
        server.stub.BatchComputeDueTimes(
            pb.BatchComputeDueTimesRequest(items=[zagreb_request()] * 4), timeout=10)
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    bad, _ = details(caught.value)
    assert [(v.field, v.description) for v in bad.field_violations] == [
        ("items", "has 4 items; at most 3 are allowed in one message (the server's "
                  "--max-batch-items): send them in several messages, or stream them "
                  "(StreamComputeDueTimes)")]
    reply = server.stub.BatchComputeDueTimes(
        pb.BatchComputeDueTimesRequest(items=[zagreb_request()] * 3), timeout=10)
    assert [r.response.due_local for r in reply.results] == ["2026-12-02T16:00:00+01:00"] * 3
    with pytest.raises(grpc.RpcError) as caught:  # a stream message counts the same way
        list(server.stub.StreamComputeDueTimes(
            iter([pb.StreamComputeDueTimesRequest(items=[zagreb_request()] * 4)]), timeout=10))
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert records(server) == 4  # one single call and the batch of three


def test_call_over_budget_is_deadline_exceeded_and_records_nothing(ops_server):
    server = ops_server("--call-budget", str(BUDGET), *HEAVY_BATCHES)
    batch = slow_batch(SLOW_ITEMS // 2)
    began = time.monotonic()
    with pytest.raises(grpc.RpcError) as caught:
        server.stub.BatchComputeDueTimes(batch, timeout=120)
    took = time.monotonic() - began
    assert caught.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    _, info = details(caught.value)
    assert (info.reason, dict(info.metadata)) == (
        "CALL_BUDGET_EXCEEDED", {"call_budget_seconds": "0.1"})
    assert caught.value.details() == (
        "the call needed more than the server's budget of 0.1 s (--call-budget): "
        "it was stopped and nothing was recorded")
    assert took < 10, took
    # The batch stopped between its items, in the handler's own thread: by the
    # time the caller has its answer the work is over and nothing was recorded.
    assert records(server) == 0
    time.sleep(1)
    assert records(server) == 0
    assert server.stub.ComputeDueTime(zagreb_request(), timeout=10).due_local == \
        "2026-12-02T16:00:00+01:00"
    assert records(server) == 1
    assert "a call went over its budget of 0.1 s: stopped, nothing recorded" in \
        "".join(server.stderr)


def slow_stream(messages: int):
    """``messages`` stream messages of :data:`SLOW_ITEMS` due times, each in
    its own inline calendar (unique across the stream, so none comes from
    the calendar cache): minutes of work on any machine, so the call is
    still computing whenever the test acts."""
    for m in range(messages):
        yield pb.StreamComputeDueTimesRequest(items=slow_batch(SLOW_ITEMS, f"{m}/").items)


def test_grace_bounds_the_shutdown(ops_server):
    """With --grace 0.5 and no budget, a call still computing at SIGTERM is
    dropped after about 2 × 0.5 s, not waited for. The call is a stream whose
    client keeps sending (100,000 due times in all), so it is computing at
    the SIGTERM however fast the machine is."""
    server = ops_server("--grace", "0.5", "--call-budget", "0", *HEAVY_BATCHES)
    codes: list[grpc.StatusCode] = []
    answered = threading.Event()

    def call():
        try:
            for _ in server.stub.StreamComputeDueTimes(slow_stream(100), timeout=300):
                answered.set()
            codes.append(grpc.StatusCode.OK)
        except grpc.RpcError as exc:
            codes.append(exc.code())

    caller = threading.Thread(target=call)
    caller.start()
    assert " grace=0.5 " in "".join(server.stderr)
    assert answered.wait(60)  # the stream is computing
    began = time.monotonic()
    server.proc.terminate()
    assert server.wait_exit(20) == 0
    took = time.monotonic() - began
    caller.join(timeout=20)
    assert took < 5, took
    assert codes and codes[0] != grpc.StatusCode.OK
    # at the end of the grace period the call is cancelled: its work stops at
    # its next cooperative check (logged CANCELLED), or, if it does not reach
    # one in time, the server exits without it and says so
    log = "".join(server.stderr)
    assert "StreamComputeDueTimes CANCELLED" in log or \
        "1 call(s) still running after the 0.5 s grace period were cut off" in log, log
