"""A server without a call budget (``--call-budget 0``) still stops the work
of a call whose caller has gone: over gRPC (a cancelled unary call, batch or
stream) and over HTTP (a client that hangs up), nothing is recorded."""

from __future__ import annotations

import math
import socket
import time

import grpc
import pytest
from duetime.api import http
from duetime.api.calls import CallLimits
from duetime.api.server import start_server
from duetime.app import CallDeadline, answers
from duetime.app.call_deadline import CallerGone
from duetime.ledger import MemoryLedger, RecordFilter
from duetime.v1 import duetime_pb2 as pb
from duetime.v1 import duetime_pb2_grpc as pb_grpc
from google.protobuf import json_format
from server_process import zagreb_request
from test_hostile_trial import SLOW, slow_due_times  # noqa: F401 - the fixture


@pytest.fixture
def unbudgeted():
    running = start_server(MemoryLedger(), port=0, call_budget=0, log_calls=False)
    yield running
    running.stop(grace=0)


def stored(app) -> int:
    return len(list(app.records(RecordFilter())))


def batch(n: int) -> pb.BatchComputeDueTimesRequest:
    return pb.BatchComputeDueTimesRequest(items=[zagreb_request(f"k-{i}") for i in range(n)])


def test_without_a_budget_each_call_gets_a_deadline_that_never_runs_out():
    deadline = CallLimits().deadline()
    assert isinstance(deadline, CallDeadline) and deadline.seconds == math.inf
    deadline.check()  # never past its budget
    deadline.caller_gone()
    with pytest.raises(CallerGone):
        deadline.check()


def test_a_cancelled_batch_stops_without_a_budget(unbudgeted, slow_due_times):
    assert unbudgeted.limits.budget.seconds == 0
    with grpc.insecure_channel(f"127.0.0.1:{unbudgeted.port}") as channel:
        stub = pb_grpc.DueTimeServiceStub(channel)
        future = stub.BatchComputeDueTimes.future(batch(100), timeout=30)
        time.sleep(0.5)
        cancelled_at = time.monotonic()
        assert future.cancel()
        time.sleep(0.6)
    # stopped at the next check after the cancel: not 100 × 0.1 s of work
    assert slow_due_times and max(slow_due_times) < cancelled_at + 2 * SLOW
    assert len(slow_due_times) < 20
    assert stored(unbudgeted.app) == 0


def test_a_cancelled_stream_stops_without_a_budget(unbudgeted, slow_due_times):
    with grpc.insecure_channel(f"127.0.0.1:{unbudgeted.port}") as channel:
        stub = pb_grpc.DueTimeServiceStub(channel)
        replies = stub.StreamComputeDueTimes(
            iter([pb.StreamComputeDueTimesRequest(items=batch(100).items)]), timeout=30)
        time.sleep(0.5)
        cancelled_at = time.monotonic()
        replies.cancel()
        time.sleep(0.6)
    assert slow_due_times and max(slow_due_times) < cancelled_at + 2 * SLOW
    assert stored(unbudgeted.app) == 0


def test_a_unary_call_past_its_client_deadline_records_nothing_without_a_budget(
        unbudgeted, slow_due_times, monkeypatch):
    # one due time that takes 1 s; the client gives up after 0.3 s
    due_time = answers.due_time

    def slower(*args, **kwargs):
        time.sleep(1.0)
        return due_time(*args, **kwargs)

    monkeypatch.setattr(answers, "due_time", slower)
    with grpc.insecure_channel(f"127.0.0.1:{unbudgeted.port}") as channel:
        stub = pb_grpc.DueTimeServiceStub(channel)
        with pytest.raises(grpc.RpcError) as caught:
            stub.ComputeDueTime(zagreb_request("late"), timeout=0.3)
        assert caught.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
        time.sleep(1.2)  # the computation ends; its check before recording stops it
    assert stored(unbudgeted.app) == 0


def test_an_http_client_hanging_up_stops_its_call_without_a_budget(unbudgeted, slow_due_times):
    served = http.start_http_server(unbudgeted.app, "127.0.0.1", 0, limits=unbudgeted.limits,
                                    log_calls=False)
    try:
        body = json_format.MessageToJson(batch(100)).encode()
        with socket.create_connection(("127.0.0.1", served.port)) as sock:
            sock.sendall(b"POST /v1/dueTimes:batchCompute HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                         b"Content-Type: application/json\r\n"
                         + f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
            time.sleep(0.5)
        hung_up_at = time.monotonic()
        time.sleep(0.6)
        assert slow_due_times and max(slow_due_times) < hung_up_at + 2 * SLOW
        assert len(slow_due_times) < 20
        assert stored(unbudgeted.app) == 0
    finally:
        served.stop()
