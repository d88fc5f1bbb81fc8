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
from duetime.metrics import Metrics
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


def test_a_cancelled_grpc_stream_stops_and_records_nothing_more(grpc_server, slow_due_times):
    with grpc.insecure_channel(f"127.0.0.1:{grpc_server.port}") as channel:
        stub = pb_grpc.DueTimeServiceStub(channel)
        replies = stub.StreamComputeDueTimes(
            iter([pb.StreamComputeDueTimesRequest(items=[zagreb_request(f"k-{i}")
                                                         for i in range(100)])]), timeout=30)
        time.sleep(0.5)
        cancelled_at = time.monotonic()
        replies.cancel()
        time.sleep(0.6)
    assert slow_due_times and max(slow_due_times) < cancelled_at + 2 * SLOW
    assert stored(grpc_server.app) == 0  # its one chunk (of 1,000 items at most) was stopped


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
    """With a memory budget that lets its JSON be read (2 GiB: 224 MB are
    counted for reading this body), 10,000 items a message and a batch
    calendar weight that lets its 1.7 million JSON values be read, a 14 MB
    body is stopped at the 0.5 s call budget while it is parsed. (At the
    default settings the same body is refused 413 before it is read:
    tests/test_admission.py.)"""
    caplog.set_level(logging.INFO, logger="duetime")
    running = start_server(MemoryLedger(), port=0, call_budget=0.5, memory_budget=2 << 30,
                           max_batch_items=10_000, max_batch_calendar_weight=150_000)
    served = http.start_http_server(running.app, "127.0.0.1", 0, limits=running.limits,
                                    admission=running.admission)
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


# ---------------------------------------------------------------------------
# 5. a JSON enum is a name or a whole number


@pytest.mark.parametrize("value, shown", [("1.5", "1.5"), ("true", "true"), ("-0.5", "-0.5")])
def test_a_fractional_or_boolean_enum_is_invalid_argument_on_its_field(
        http_server, grpc_server, value, shown):
    request = json.loads(json_format.MessageToJson(zagreb_request()))
    body = json.dumps(request)[:-1] + f', "atClose": {value}}}'
    status, answer = raw_post(http_server.port, "/v1/dueTimes:compute", body.encode())
    assert status == 400
    error = json.loads(answer)["error"]
    assert error["status"] == "INVALID_ARGUMENT"
    violation = error["details"][0]["fieldViolations"][0]
    assert violation["field"] == "body"
    assert violation["description"].startswith(
        f"field atClose: {shown} is not a value of AtClose: write a name or a whole number, "
        "one of ")
    assert stored(grpc_server.app) == 0


def test_a_whole_enum_number_is_still_read(http_server):
    request = json.loads(json_format.MessageToJson(zagreb_request()))
    for value in ("1", "1.0", '"AT_CLOSE_END_OF_WINDOW"'):
        body = json.dumps(request)[:-1] + f', "atClose": {value}}}'
        assert raw_post(http_server.port, "/v1/dueTimes:compute", body.encode())[0] == 200


# ---------------------------------------------------------------------------
# 6. the metrics port answers exactly /metrics


def test_the_metrics_port_refuses_a_doubled_slash():
    metrics = Metrics()
    port = metrics.serve("127.0.0.1", 0)
    try:
        for path, expected in (("/metrics", 200), ("//metrics", 404), ("///metrics", 404),
                               ("//metrics?x=1", 404), ("/metrics?x=1", 200)):
            status, _ = raw_post(port, path, b"", "Host: 127.0.0.1\r\n", verb="GET")
            assert status == expected, path
    finally:
        metrics.close()


# ---------------------------------------------------------------------------
# 7. Host is parsed strictly on a loopback server; Origin, Content-Type and
# Host are refused when given twice


@pytest.mark.parametrize("host", [
    "localhost:80@evil.com", "127.0.0.1:47080, evil.com", "localhost:abc", "localhost:",
    "localhost:80:80", "[::1]x", "local host", "",
])
def test_a_malformed_host_is_refused_on_loopback(http_server, grpc_server, host):
    body = json_format.MessageToJson(zagreb_request()).encode()
    status, answer = raw_post(http_server.port, "/v1/dueTimes:compute", body,
                              f"Host: {host}\r\nContent-Type: application/json\r\n")
    assert status == 403, answer
    error = json.loads(answer)["error"]
    assert error["details"][-1]["reason"] == "HOST_NOT_ALLOWED"
    assert error["message"].startswith(
        f"header Host: {host!r} is not a host name with an optional :port (digits); "
        "it answers ")
    assert stored(grpc_server.app) == 0


@pytest.mark.parametrize("host", ["localhost:8080", "127.0.0.1", "[::1]:47080", "LOCALHOST.:1"])
def test_a_wellformed_loopback_host_is_answered(http_server, host):
    body = json_format.MessageToJson(zagreb_request()).encode()
    assert raw_post(http_server.port, "/v1/dueTimes:compute", body,
                    f"Host: {host}\r\nContent-Type: application/json\r\n")[0] == 200


@pytest.mark.parametrize("headers, name", [
    ("Origin: http://127.0.0.1\r\nOrigin: http://evil.example\r\n", "Origin"),
    ("Content-Type: application/json\r\n", "Content-Type"),
    ("Content-type: text/plain\r\n", "Content-Type"),
])
def test_a_header_given_twice_is_400_naming_it(http_server, grpc_server, headers, name):
    body = json_format.MessageToJson(zagreb_request()).encode()
    status, answer = raw_post(http_server.port, "/v1/dueTimes:compute", body,
                              "Host: 127.0.0.1\r\nContent-Type: application/json\r\n" + headers)
    assert status == 400, answer
    error = json.loads(answer)["error"]
    assert (error["status"], error["message"]) == (
        "INVALID_ARGUMENT", f"header {name}: is given more than once; send it once")
    assert error["details"][0]["fieldViolations"] == [
        {"field": f"header {name}", "description": "is given more than once; send it once"}]
    assert stored(grpc_server.app) == 0


# ---------------------------------------------------------------------------
# 4. the log line (and span) shows the namespace the call was made in: the
# token's default when the call names none


def test_the_log_shows_the_callers_default_namespace(tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="duetime")
    path = tmp_path / "tokens"
    path.write_text("team-a-token.1 namespaces=team-a,team-b default=team-a scopes=compute,read\n")
    tokens = TokenSet(path)
    running = start_server(MemoryLedger(), port=0, tokens=tokens)
    served = http.start_http_server(running.app, "127.0.0.1", 0, tokens=tokens,
                                    limits=running.limits)
    bearer = (("authorization", "Bearer team-a-token.1"),)
    try:
        with grpc.insecure_channel(f"127.0.0.1:{running.port}") as channel:
            stub = pb_grpc.DueTimeServiceStub(channel)
            stub.ComputeDueTime(zagreb_request("k-1"), timeout=10, metadata=bearer)
            list(stub.StreamComputeDueTimes(
                iter([pb.StreamComputeDueTimesRequest(items=[zagreb_request("k-2")])]),
                timeout=10, metadata=bearer))
            stub.ComputeDueTime(zagreb_request("k-3"), timeout=10,
                                metadata=bearer + (("x-duetime-namespace", "team-b"),))
        body = json_format.MessageToJson(zagreb_request("k-4")).encode()
        assert raw_post(served.port, "/v1/dueTimes:compute", body,
                        "Host: 127.0.0.1\r\nContent-Type: application/json\r\n"
                        "Authorization: Bearer team-a-token.1\r\n")[0] == 200
        assert namespaces(running.app) == ["team-a", "team-a", "team-b", "team-a"]
    finally:
        served.stop()
        running.stop(grace=0)
    lines = [r.getMessage() for r in caplog.records if r.name == "duetime.access"]
    shown = [(line.split()[1].rsplit("/", 1)[1], line.split("namespace=")[1].split()[0])
             for line in lines]
    assert shown == [("ComputeDueTime", "team-a"), ("StreamComputeDueTimes", "team-a"),
                     ("ComputeDueTime", "team-b"), ("ComputeDueTime", "team-a")]
