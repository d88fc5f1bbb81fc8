"""Findings of an adversarial run, each reproduced against a real server on
127.0.0.1: calls whose caller has gone stop, revoked tokens stop open
streams, the HTTP call budget counts reading and parsing, the logged
namespace, strict JSON enums, the metrics path, strict Host parsing and
duplicate headers."""

from __future__ import annotations

import json
import logging
import queue
import socket
import threading
import time

import grpc
import pytest
from duetime.api import http
from duetime.app import answers
from duetime.auth import TokenSet
from duetime.api.server import start_server
from duetime.ledger import MemoryLedger, RecordFilter
from duetime.v1 import duetime_pb2 as pb
from duetime.v1 import duetime_pb2_grpc as pb_grpc
from google.protobuf import json_format
from server_process import zagreb_request

SLOW = 0.1
"""Seconds each due time takes once :func:`slow_due_times` is in place."""


@pytest.fixture
def slow_due_times(monkeypatch) -> list[float]:
    """Make every due time take :data:`SLOW` seconds longer; the list gets
    the monotonic time each one started."""
    due_time, started = answers.due_time, []

    def slow(*args, **kwargs):
        started.append(time.monotonic())
        time.sleep(SLOW)
        return due_time(*args, **kwargs)

    monkeypatch.setattr(answers, "due_time", slow)
    return started


def stored(app) -> int:
    return len(list(app.records(RecordFilter())))


def namespaces(app) -> list[str]:
    return [row.namespace for row in app.records(RecordFilter())]


@pytest.fixture
def grpc_server():
    running = start_server(MemoryLedger(), port=0, call_budget=3)
    yield running
    running.stop(grace=0)


@pytest.fixture
def http_server(grpc_server):
    served = http.start_http_server(grpc_server.app, "127.0.0.1", 0, limits=grpc_server.limits)
    yield served
    served.stop()


def batch(n: int) -> pb.BatchComputeDueTimesRequest:
    return pb.BatchComputeDueTimesRequest(items=[zagreb_request(f"k-{i}") for i in range(n)])


def raw_post(port: int, path: str, body: bytes, headers: str = "Host: 127.0.0.1\r\n"
             "Content-Type: application/json\r\n", verb: str = "POST") -> tuple[int, bytes]:
    """Send one request on a fresh connection; its status and body."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(f"{verb} {path} HTTP/1.1\r\n{headers}Content-Length: {len(body)}\r\n"
                     "Connection: close\r\n\r\n".encode() + body)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    head, _, rest = answer.partition(b"\r\n\r\n")
    return int(head.split()[1]), rest


# ---------------------------------------------------------------------------
# 1. a call whose caller has gone stops at its next check, records nothing


def test_a_cancelled_grpc_batch_stops_and_records_nothing(grpc_server, slow_due_times, caplog):
    caplog.set_level(logging.INFO, logger="duetime")
    with grpc.insecure_channel(f"127.0.0.1:{grpc_server.port}") as channel:
        stub = pb_grpc.DueTimeServiceStub(channel)
        future = stub.BatchComputeDueTimes.future(batch(100), timeout=30)
        time.sleep(0.5)
        cancelled_at = time.monotonic()
        assert future.cancel()
        time.sleep(0.6)
    assert slow_due_times and max(slow_due_times) < cancelled_at + 2 * SLOW
    assert stored(grpc_server.app) == 0
    assert any("CANCELLED" in r.getMessage() and "BatchComputeDueTimes" in r.getMessage()
               for r in caplog.records)
    assert not any("DEADLINE_EXCEEDED" in r.getMessage() for r in caplog.records)


def test_an_http_client_hanging_up_stops_its_call_and_records_nothing(
        http_server, grpc_server, slow_due_times, caplog):
    caplog.set_level(logging.INFO, logger="duetime")
    body = json_format.MessageToJson(batch(100)).encode()
    with socket.create_connection(("127.0.0.1", http_server.port)) as sock:
        sock.sendall(b"POST /v1/dueTimes:batchCompute HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                     b"Content-Type: application/json\r\n"
                     + f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
        time.sleep(0.5)
    hung_up_at = time.monotonic()
    time.sleep(0.6)
    assert slow_due_times and max(slow_due_times) < hung_up_at + 2 * SLOW
    assert stored(grpc_server.app) == 0
    assert any("CANCELLED" in r.getMessage() and "BatchComputeDueTimes" in r.getMessage()
               for r in caplog.records)


# ---------------------------------------------------------------------------
# 3. over HTTP the call budget counts from the request's arrival: a large
# body's parse is stopped at the budget, not answered after the whole parse


def test_a_large_http_body_is_stopped_within_the_call_budget(caplog):
    caplog.set_level(logging.INFO, logger="duetime")
    running = start_server(MemoryLedger(), port=0, call_budget=0.5)
    served = http.start_http_server(running.app, "127.0.0.1", 0, limits=running.limits)
    try:
        item = zagreb_request()
        item.calendar.holidays.extend(pb.Holiday(date=f"2000-{m:02d}-{d:02d}")
                                      for m in range(1, 10) for d in range(10, 20))
        one = json_format.MessageToDict(item)
        body = json.dumps({"items": [dict(one, idempotencyKey=f"k-{i}")
                                     for i in range(6000)]}).encode()
        assert 13_000_000 < len(body) < 16 * 2**20  # parsed whole: several seconds of CPU
        began = time.monotonic()
        status, answer = raw_post(served.port, "/v1/dueTimes:batchCompute", body)
        took = time.monotonic() - began
        assert status == 504
        assert json.loads(answer)["error"]["status"] == "DEADLINE_EXCEEDED"
        assert took < 0.5 + 2.0
        assert stored(running.app) == 0
    finally:
        served.stop()
        running.stop(grace=0)


# ---------------------------------------------------------------------------
# 2. a token revoked by a reload ends an open stream before its next chunk


def test_a_revoked_token_ends_an_open_stream_and_records_nothing_more(tmp_path):
    path = tmp_path / "tokens"
    path.write_text("team-a-token.1 namespaces=team-a scopes=compute,read\n")
    tokens = TokenSet(path)
    running = start_server(MemoryLedger(), port=0, tokens=tokens, log_calls=False)
    try:
        with grpc.insecure_channel(f"127.0.0.1:{running.port}") as channel:
            stub = pb_grpc.DueTimeServiceStub(channel)
            sent: queue.Queue = queue.Queue()

            def messages():
                while (message := sent.get()) is not None:
                    yield message

            replies = stub.StreamComputeDueTimes(
                messages(), timeout=30, metadata=(("authorization", "Bearer team-a-token.1"),))
            sent.put(pb.StreamComputeDueTimesRequest(items=[zagreb_request("k-1")]))
            next(replies)
            assert namespaces(running.app) == ["team-a"]
            path.write_text("# nobody for now\n")
            tokens.reload()  # what SIGHUP does
            for key in ("k-2", "k-3", "k-4"):
                sent.put(pb.StreamComputeDueTimesRequest(items=[zagreb_request(key)]))
            with pytest.raises(grpc.RpcError) as caught:
                next(replies)
            sent.put(None)
            assert caught.value.code() == grpc.StatusCode.UNAUTHENTICATED
            assert stored(running.app) == 1
    finally:
        running.stop(grace=0)


def test_an_open_stream_goes_on_after_a_reload_that_keeps_its_token(tmp_path):
    path = tmp_path / "tokens"
    path.write_text("team-a-token.1 namespaces=team-a scopes=compute\n")
    tokens = TokenSet(path)
    running = start_server(MemoryLedger(), port=0, tokens=tokens, log_calls=False)
    try:
        with grpc.insecure_channel(f"127.0.0.1:{running.port}") as channel:
            stub = pb_grpc.DueTimeServiceStub(channel)
            sent: queue.Queue = queue.Queue()

            def messages():
                while (message := sent.get()) is not None:
                    yield message

            replies = stub.StreamComputeDueTimes(
                messages(), timeout=30, metadata=(("authorization", "Bearer team-a-token.1"),))
            sent.put(pb.StreamComputeDueTimesRequest(items=[zagreb_request("k-1")]))
            next(replies)
            path.write_text("team-a-token.1 namespaces=team-a scopes=compute\nother-token.2\n")
            tokens.reload()
            sent.put(pb.StreamComputeDueTimesRequest(items=[zagreb_request("k-2")]))
            next(replies)
            sent.put(None)
            assert namespaces(running.app) == ["team-a", "team-a"]
    finally:
        running.stop(grace=0)
