"""What a server lets in at once (duetime.api.admission), against real
``duetime serve`` processes on 127.0.0.1:

- the bytes of HTTP request bodies being read or held and of gRPC request
  messages count against a third of ``--memory-budget``: over it HTTP is 503
  with ``Retry-After`` and gRPC RESOURCE_EXHAUSTED, never INTERNAL; many slow
  partial bodies and large gRPC messages at once keep the server's RSS under
  its idle RSS plus the budget plus the stated slack (the messages gRPC
  threads are receiving), and it answers afterwards;
- a body that does not arrive whole within ``--body-timeout`` is 408 and its
  connection closed, logged without a traceback;
- with tokens, one tenant has at most ``--tenant-calls`` calls in flight;
  more is RESOURCE_EXHAUSTED / HTTP 429 with ``Retry-After``, while another
  tenant is answered.
"""

from __future__ import annotations

import json
import re
import select
import socket
import struct
import threading
import time

import grpc
import httpx
import pytest
from duetime.api.admission import (
    IN_FLIGHT_SHARE,
    RETRY_AFTER_SECONDS,
    Admission,
    InFlightBytes,
    InFlightBytesExhausted,
    TenantCalls,
    TenantCallsExhausted,
    TooCostlyToRead,
    in_flight_limit,
    retry_after,
)
from duetime.api.callers import ANYONE, Caller
from duetime.api.calls import MAX_WORKERS
from duetime.api.http import BodyTimeout, error_body
from duetime.api.status import code_name, http_status_of, status_of
from duetime.api.wire import parsing_bytes
from duetime.config import DEFAULT_BODY_TIMEOUT, DEFAULT_TENANT_CALLS, resolve
from duetime.v1 import duetime_pb2 as pb
from duetime.v1 import duetime_pb2_grpc as pb_grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_status import rpc_status
from server_process import start_with_http, ts, zagreb_request
from test_memory_budget import rss
from test_tenants import error_info

MiB = 1 << 20


# ---------------------------------------------------------------------------
# the bounds, in process


def test_the_in_flight_limit_is_a_third_of_the_budget_and_at_least_one_message():
    assert IN_FLIGHT_SHARE == 3
    assert in_flight_limit() == 256 * MiB // 3
    assert in_flight_limit(24 * MiB, 4 * MiB) == 8 * MiB
    assert in_flight_limit(6 * MiB, 4 * MiB) == 4 * MiB  # one message of the largest size fits
    assert Admission.of(24 * MiB, 4 * MiB).in_flight.limit == 8 * MiB


def test_in_flight_bytes_refuse_what_does_not_fit_and_count_nothing_for_it():
    in_flight = InFlightBytes(10)
    in_flight.take(6)
    with pytest.raises(InFlightBytesExhausted) as caught:
        in_flight.take(5)
    assert (caught.value.size, caught.value.held, caught.value.limit) == (5, 6, 10)
    assert in_flight.held == 6
    in_flight.take(4)
    in_flight.release(6)
    in_flight.take(5)
    assert in_flight.held == 9


def test_tenant_calls_are_counted_per_tenant():
    a = Caller(frozenset({"team-a"}), frozenset({"compute"}), "team-a")
    b = Caller(frozenset({"team-b"}), frozenset({"compute"}), "team-b")
    tenants = TenantCalls(2)
    tenants.enter(a)
    with tenants.call(a):
        with pytest.raises(TenantCallsExhausted):
            tenants.enter(a)
        with tenants.call(b):
            assert (tenants.in_flight(a), tenants.in_flight(b)) == (2, 1)
    # the same namespaces: the same tenant (a rotated token; one with other scopes or default)
    assert tenants.in_flight(Caller(frozenset({"team-a"}), frozenset({"compute"}), "team-a")) == 1
    other_scopes = Caller(frozenset({"team-a"}), frozenset({"read", "admin"}), "")
    with tenants.call(other_scopes):
        assert tenants.in_flight(a) == 2
        with pytest.raises(TenantCallsExhausted):
            tenants.enter(a)
        assert tenants.in_flight(Caller(frozenset({"team-a", "team-b"}))) == 0  # other namespaces
    tenants.leave(a)
    assert (tenants.in_flight(a), tenants.in_flight(b)) == (0, 0)
    unbounded = TenantCalls(0)
    for _ in range(100):
        unbounded.enter(ANYONE)
    assert unbounded.in_flight(ANYONE) == 0


def test_the_refusals_status_http_status_and_retry_after():
    full = InFlightBytesExhausted(3 * MiB, 7 * MiB, 8 * MiB)
    busy = TenantCallsExhausted(2)
    assert (code_name(full), http_status_of(full), full.http_status) == (
        "RESOURCE_EXHAUSTED", 429, 503)
    assert (code_name(busy), http_status_of(busy), busy.http_status) == (
        "RESOURCE_EXHAUSTED", 429, 429)
    assert full.retryable and busy.retryable
    assert retry_after(full) == retry_after(busy) == {"Retry-After": "1"}
    assert retry_after(BodyTimeout(10, 5)) is None
    timed_out = BodyTimeout(10, 5)
    assert (code_name(timed_out), timed_out.http_status) == ("DEADLINE_EXCEEDED", 408)
    assert error_body(status_of(timed_out), 408) == body_timeout_error(10, 5)
    assert (DEFAULT_BODY_TIMEOUT, DEFAULT_TENANT_CALLS) == (10.0, 4)
    assert MAX_WORKERS == 8


def test_the_settings():
    config = resolve({}, {"DUETIME_TENANT_CALLS": "3", "DUETIME_BODY_TIMEOUT": "2.5"})
    assert (config.tenant_calls, config.body_timeout) == (3, 2.5)
    assert (resolve({}, {}).tenant_calls, resolve({}, {}).body_timeout) == (4, 10.0)
    from duetime.config import ConfigError

    with pytest.raises(ConfigError) as caught:
        resolve({}, {"DUETIME_TENANT_CALLS": "-1"})
    assert caught.value.message == ("'-1' is not a number of calls (a whole number ≥ 0; "
                                    "0: no bound)")
    with pytest.raises(ConfigError) as caught:
        resolve({}, {"DUETIME_BODY_TIMEOUT": "0"})
    assert caught.value.message == "'0' is not a positive number of seconds"


# ---------------------------------------------------------------------------
# helpers


def in_flight_error(size: int, held: int, limit: int) -> dict:
    message = (f"the server is holding {held} bytes of requests in flight and this request "
               f"brings {size} more; at most {limit} bytes ({limit // MiB}MiB, a third of "
               f"--memory-budget) may be in flight at once: retry in 1 s, or send smaller "
               "requests (a batch split in parts, or a stream)")
    return {"error": {
        "code": 503, "message": message, "status": "RESOURCE_EXHAUSTED",
        "details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo",
                     "reason": "IN_FLIGHT_BYTES_EXHAUSTED", "domain": "duetime.dev",
                     "metadata": {"limit": "in-flight request bytes", "limit_bytes": str(limit),
                                  "request_bytes": str(size), "retry_after_seconds": "1"}}]}}


def tenant_error(limit: int) -> dict:
    return {"error": {
        "code": 429, "status": "RESOURCE_EXHAUSTED",
        "message": f"the tokens of this tenant (its namespaces) already have {limit} calls in "
                   f"flight, the most one tenant may have at once (--tenant-calls {limit}): "
                   f"wait for one of them to end and "
                   "retry (in about 1 s), or send fewer calls at a time",
        "details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo",
                     "reason": "TENANT_CALLS_EXHAUSTED", "domain": "duetime.dev",
                     "metadata": {"limit": "--tenant-calls", "tenant_calls": str(limit),
                                  "retry_after_seconds": "1"}}]}}


def timeout_error(field: str, reason: str, text: str, seconds: float) -> dict:
    """The 408 answer of a request part (``field``) that did not arrive in time."""
    return {"error": {
        "code": 408, "message": f"{field}: {text}", "status": "DEADLINE_EXCEEDED",
        "details": [{"@type": "type.googleapis.com/google.rpc.BadRequest",
                     "fieldViolations": [{"field": field, "description": text}]},
                    {"@type": "type.googleapis.com/google.rpc.ErrorInfo",
                     "reason": reason, "domain": "duetime.dev",
                     "metadata": {"body_timeout_seconds": f"{seconds:g}"}}]}}


def body_timeout_error(seconds: float, size: int) -> dict:
    return timeout_error("body", "BODY_TIMEOUT", (
        f"did not arrive whole within {seconds:g} s ({size} bytes came); a request body must be "
        f"sent at once after its headers (the server's --body-timeout is {seconds:g} s)"), seconds)


def http_port(server) -> int:
    return int(server.http_url.rsplit(":", 1)[1])


def open_body(port: int, length: int | None, sent: bytes, token: str | None = None,
              path: str = "/v1/dueTimes:compute") -> socket.socket:
    """A connection that sent a POST's headers (``Content-Length: length``,
    or chunked when None) and ``sent`` of its body, and nothing more."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=30)
    head = (f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
            "Content-Type: application/json\r\n")
    if token is not None:
        head += f"Authorization: Bearer {token}\r\n"
    head += (f"Content-Length: {length}\r\n\r\n" if length is not None
             else "Transfer-Encoding: chunked\r\n\r\n")
    sock.sendall(head.encode("latin-1"))
    if sent:
        sock.sendall(sent if length is not None else b"%x\r\n%s\r\n" % (len(sent), sent))
    return sock


def read_answer(sock: socket.socket) -> tuple[int, dict[str, str], bytes]:
    """The status, headers (lower-case names) and body of the answer on ``sock``."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            raise AssertionError(f"connection closed before an answer: {data!r}")
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {k.strip().lower(): v.strip()
               for k, _, v in (line.partition(":") for line in lines[1:])}
    while len(body) < int(headers.get("content-length", 0)):
        chunk = sock.recv(65536)
        if not chunk:
            break
        body += chunk
    return int(lines[0].split(" ")[1]), headers, body


def closed(sock: socket.socket) -> bool:
    """Whether the server closed ``sock`` (within 5 s)."""
    sock.settimeout(5)
    try:
        while True:
            data = sock.recv(65536)
            if not data:
                return True
    except (ConnectionResetError, BrokenPipeError):
        return True
    except socket.timeout:
        return False


def answers_still(server) -> None:
    """The server reports SERVING and answers a ComputeDueTime over both faces."""
    health = health_pb2_grpc.HealthStub(server.channel).Check(
        health_pb2.HealthCheckRequest(service="duetime.v1.DueTimeService"), timeout=10)
    assert health.status == health_pb2.HealthCheckResponse.SERVING
    reply = server.stub.ComputeDueTime(zagreb_request(), timeout=30)
    assert reply.due.ToJsonString() == "2026-12-02T15:00:00Z"
    answer = httpx.post(f"{server.http_url}/v1/dueTimes:compute", timeout=30, json={
        "start": "2026-11-27T15:00:00Z", "duration": "3bd",
        "calendar": {"timeZone": "Europe/Zagreb",
                     "holidays": [{"date": "2026-12-25"}, {"date": "2026-12-26"}]}})
    assert (answer.status_code, answer.json()["due"]) == (200, "2026-12-02T15:00:00Z")


# ---------------------------------------------------------------------------
# request bytes in flight, a real server


BUDGET = 24 * MiB
MESSAGE = 4 * MiB
LIMIT = in_flight_limit(BUDGET, MESSAGE)  # 8 MiB
CONNECTIONS = 150
READ_AHEAD = 320 * 1024
SLACK = MAX_WORKERS * 2 * MESSAGE + CONNECTIONS * READ_AHEAD + 16 * MiB
"""What the server may hold beyond the budget (docs/operations.md, "Memory"):
the messages gRPC's 8 threads are receiving, before they are counted (each
as gRPC received it and as handed over: 2 × --max-message-bytes a thread;
what parsing takes is counted before it is parsed); what each open HTTP connection has read ahead of its request's
body and not counted yet (one socket read of 256 KiB and 64 KiB buffered);
and 16 MiB for the allocator's rounding."""


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    """A server with a small memory budget (24 MiB: 8 MiB of requests in
    flight), messages of at most 4 MiB, bodies within 3 s."""
    server = start_with_http(tmp_path_factory.mktemp("small") / "ledger.db",
                             "--memory-budget", "24MiB", "--max-message-bytes", str(MESSAGE),
                             "--body-timeout", "3")
    try:
        yield server
        assert server.terminate() == 0, "".join(server.stderr)
    finally:
        server.kill()


def large_request(i: int, size: int) -> pb.ComputeDueTimeRequest:
    """A ComputeDueTime request of about ``size`` bytes (its calendar refused
    INVALID_ARGUMENT once read: one holiday named over and over)."""
    request = pb.ComputeDueTimeRequest(start=ts("2026-11-27T16:00:00+01:00"), duration="3bd",
                                       calendar=pb.Calendar(time_zone="UTC"))
    holiday = pb.Holiday(date="2026-12-25", name=f"{i} ".ljust(190, "x"))
    request.calendar.holidays.extend([holiday] * (size // 200))
    return request


def test_json_reading_is_counted_before_it_is_read():
    """What reading a body as JSON may take: 112 bytes a value (one at most
    per ``,``, ``:``, ``[``, ``{``, plus one), 2 a byte for ASCII, 9 else;
    above what tracemalloc measures for the costliest shapes."""
    import tracemalloc

    from duetime.api.http import JSON_TEXT_BYTES, JSON_VALUE_BYTES, _unique_keys, json_reading_bytes

    assert (JSON_VALUE_BYTES, JSON_TEXT_BYTES) == (112, 9)
    assert json_reading_bytes(b'{"a": [1, 2]}') == 112 * 5 + 2 * 13
    assert json_reading_bytes('{"a": "é"}'.encode()) == 112 * 3 + 9 * 11
    assert json_reading_bytes(b'{"a": "\\u00e9"}') == 112 * 3 + 9 * 15  # an escape: wide
    shapes = {
        "empty arrays": b"[" + b",".join([b"[]"] * 100_000) + b"]",
        "empty objects": b"[" + b",".join([b"{}"] * 100_000) + b"]",
        "many keys": b"{" + b",".join(b'"k%d":0' % i for i in range(30_000)) + b"}",
        "short strings": b"[" + b",".join([b'"ab"'] * 60_000) + b"]",
        "nested": b"[" + b",".join([b'{"a":[1,{"b":"cc"}]}'] * 15_000) + b"]",
        "one wide string": ('["' + "a" * 300_000 + '\U0001F600"]').encode(),
        "one escaped wide string": ('["' + "a" * 300_000 + '\\ud83d\\ude00"]').encode(),
    }
    for name, body in shapes.items():
        tracemalloc.start()
        tree = json.loads(body.decode(), object_pairs_hook=_unique_keys)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        del tree
        assert peak < json_reading_bytes(body), (name, peak, json_reading_bytes(body))


def test_a_json_key_longer_than_1024_characters_is_refused_while_it_is_read():
    """A key no field has (10,000 characters) is refused on ``body`` as soon
    as the JSON reader meets it, never copied into an error text."""
    from duetime.api.http import MAX_JSON_KEY, bindings, build_request
    from duetime.core.errors import InvalidArgument

    assert MAX_JSON_KEY == 1024
    binding = next(b for b in bindings() if b.method == "ComputeDueTime")
    body = json.dumps({"\U0001F600" + "a" * 10_000: 1}).encode()
    with pytest.raises(InvalidArgument) as caught:
        build_request(binding, body, {}, [])
    assert [(v.field, v.description) for v in caught.value.violations] == [(
        "body", "is not valid JSON for duetime.v1.ComputeDueTimeRequest: a key of 10001 "
                "characters (at most 1024: no field is named so long)")]


def refused_413(server, body: bytes) -> tuple[dict, dict]:
    """The error of ``body`` POSTed to ComputeDueTime, refused 413 on
    ``body`` (REQUEST_TOO_LARGE, not retryable), and its ErrorInfo."""
    answer = httpx.post(f"{server.http_url}/v1/dueTimes:compute", content=body,
                        headers={"Content-Type": "application/json"}, timeout=30)
    assert answer.status_code == 413
    error = answer.json()["error"]
    assert error["status"] == "RESOURCE_EXHAUSTED"
    assert "retry-after" not in answer.headers
    (bad, info) = error["details"]
    assert bad["fieldViolations"][0]["field"] == "body"
    assert info["reason"] == "REQUEST_TOO_LARGE"
    return error, info


def test_a_body_whose_json_would_take_too_much_memory_is_413_and_fits_are_answered(small):
    """On the server with 8 MiB for requests in flight: 1 MiB of non-ASCII
    text in one string (9 bytes a byte to read) is refused 413 on ``body``
    before it is read, not retryable; an ordinary body is answered; nothing
    is INTERNAL."""
    body = json.dumps({"duration": "é" * (MiB // 2)}, ensure_ascii=False).encode()
    error, info = refused_413(small, body)
    reading = int(info["metadata"]["reading_bytes"])
    assert reading == 112 * 3 + 9 * len(body)  # "{", ":" and one more value; 9 a byte
    assert error["message"] == (
        f"body: is {len(body)} bytes of JSON whose reading would take about {reading} bytes "
        f"of memory (counting 112 bytes for each value), more than the {LIMIT} bytes (8MiB) "
        f"of requests in flight one caller may hold (a third of --memory-budget; with "
        f"tokens, one tenant's share of that): send fewer or simpler values (a batch split "
        f"in parts, or a stream)")
    answers_still(small)


def test_a_body_of_more_json_values_than_one_may_hold_is_413_before_it_is_read(small):
    """3 MiB of empty arrays (1.5 million values: seconds to read) is refused
    413 on ``body``, counting 100,000 at most; nothing is INTERNAL."""
    body = b"[" + b",".join([b"[]"] * (MESSAGE // 4)) + b"]"
    error, info = refused_413(small, body)
    values = 2 * (MESSAGE // 4) + 1
    assert dict(info["metadata"]) == {"limit": "values in one body", "max_values": "100000"}
    assert error["message"] == (
        f"body: is {len(body)} bytes of JSON that may hold {values} values (counting each ',', "
        f"':', '[' and '{{'), more than the 100000 one body may hold, since reading JSON costs "
        f"about 2 µs a value: name a calendar bundle instead of repeating an inline calendar in "
        f"every item, send the batch over gRPC, or split it")
    assert logged(small, "RESOURCE_EXHAUSTED")
    assert re.search(r"RESOURCE_EXHAUSTED [0-9.]+ ms namespace=\S+ peer=\S+ "
                     r"reason=REQUEST_TOO_LARGE", "".join(small.stderr))  # which bound it met
    answers_still(small)


def test_partial_bodies_are_refused_past_the_in_flight_limit_with_503(small):
    """Bodies are counted as their bytes come: two of 3 MiB less a byte hold
    6 MiB; a third body (announced, or chunked) is refused 503 once its bytes
    would pass the 8 MiB limit. Connections that announce 3 MiB and send
    nothing hold nothing: calls are answered beside them."""
    port = http_port(small)
    body = 3 * MiB
    announced = [open_body(port, body, b"") for _ in range(10)]  # 30 MiB announced, none sent
    held = [open_body(port, body, b" " * (body - 1)) for _ in range(2)]  # 6 MiB sent
    try:
        time.sleep(0.5)
        answers_still(small)
        for third in (open_body(port, body, b" " * (LIMIT - 2 * body + 64 * 1024)),
                      open_body(port, None, b" " * (LIMIT - 2 * body + 64 * 1024))):
            status, headers, answer = read_answer(third)
            assert (status, headers["retry-after"]) == (503, "1")
            error = json.loads(answer)["error"]
            assert error["details"][0]["reason"] == "IN_FLIGHT_BYTES_EXHAUSTED"
            assert error["details"][0]["metadata"]["limit_bytes"] == str(LIMIT)
            third.close()
    finally:
        for sock in held + announced:
            sock.close()
    answers_still(small)


def test_a_message_whose_parsing_could_never_fit_is_refused_unparsed(small):
    """On the server with 8 MiB for requests in flight: a 4 MiB gRPC message
    of 2 million empty batch items (about 200 MiB once parsed) and a 3.6 MiB
    message of long holiday names (counted 8.4 MB) are RESOURCE_EXHAUSTED
    on ``request``, REQUEST_TOO_LARGE, not retryable, without being parsed:
    the server's resident memory stays within 2 × 4 MiB a message (as
    received and as handed over) of where it was; a 1.5 MiB message of the
    same holidays is let in and answered."""
    pid = small.proc.pid
    answers_still(small)
    before = rss(pid)
    raw = small.channel.unary_unary("/duetime.v1.DueTimeService/BatchComputeDueTimes",
                                    request_serializer=lambda data: data,
                                    response_deserializer=lambda data: data)
    dense = b"\x0a\x00" * (MESSAGE // 2 - 16)
    with pytest.raises(grpc.RpcError) as caught:
        raw(dense, timeout=30)
    status = rpc_status.from_call(caught.value)
    assert (caught.value.code(), error_info(status).reason) == (
        grpc.StatusCode.RESOURCE_EXHAUSTED, "REQUEST_TOO_LARGE")
    reading = int(error_info(status).metadata["reading_bytes"])
    assert LIMIT < reading <= LIMIT + 192  # counted up to the first item past the limit
    assert status.message == (
        f"request: is {len(dense)} bytes of protobuf that would take about {reading} bytes of "
        f"memory once parsed (counting each sub-message, string and list element), more than "
        f"the {LIMIT} bytes (8MiB) of requests in flight one caller may hold (a third of "
        f"--memory-budget; with tokens, one tenant's share of that): send fewer or simpler "
        f"values (a batch split in parts, or a stream)")
    large = large_request(0, 3 * MiB + MiB // 2)
    data = large.SerializeToString()
    with pytest.raises(grpc.RpcError) as caught:
        small.stub.ComputeDueTime(large, timeout=30)
    status = rpc_status.from_call(caught.value)
    reading = len(data) + parsing_bytes(data, large.DESCRIPTOR, LIMIT - len(data))
    assert LIMIT < reading <= LIMIT + 512
    assert dict(error_info(status).metadata) == {"limit": "in-flight request bytes",
                                                "limit_bytes": str(LIMIT),
                                                "reading_bytes": str(reading)}
    assert status.message.startswith(f"request: is {len(data)} bytes of protobuf that would take "
                                     f"about {reading} bytes of memory once parsed")
    assert rss(pid) < before + 2 * MESSAGE + 8 * MiB
    with pytest.raises(grpc.RpcError) as caught:  # let in: its holidays are refused once read
        small.stub.ComputeDueTime(large_request(0, 3 * MiB // 2), timeout=30)
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    answers_still(small)
    assert "Traceback" not in "".join(small.stderr)


def test_a_body_not_sent_in_time_is_408_and_its_connection_closed(small):
    port = http_port(small)
    began = time.monotonic()
    slow = open_body(port, 1000, b'{"duration": ')
    slow_chunked = open_body(port, None, b'{"duration": "3bd", ')
    for sock, size in ((slow, 13), (slow_chunked, 20)):
        status, headers, answer = read_answer(sock)
        assert (status, headers["connection"]) == (408, "close")
        assert json.loads(answer) == body_timeout_error(3, size)
        assert closed(sock)
        sock.close()
    assert 3 <= time.monotonic() - began < 10
    line = small.await_log(r"did not send its whole request body to "
                           r"/duetime\.v1\.DueTimeService/ComputeDueTime within 3 s: answered "
                           r"408, connection closed")
    assert line.split()[2] == "INFO", line
    assert "Traceback" not in "".join(small.stderr)
    answers_still(small)


def head_timeout_error(seconds: float) -> dict:
    return timeout_error("headers", "HEAD_TIMEOUT", (
        f"did not arrive whole within {seconds:g} s; a request line and its headers must be "
        f"sent at once (the server's --body-timeout is {seconds:g} s)"), seconds)


def test_a_request_head_not_sent_in_time_is_408_and_an_idle_connection_is_closed(small):
    """A slowloris client (headers dribbled a byte a second, first and after
    an answered request on the same connection) gets 408 on ``headers``
    within the body timeout and its connection closed; a connection that
    sends nothing is closed silently, as an idle keep-alive one is."""
    port = http_port(small)
    began = time.monotonic()
    silent = socket.create_connection(("127.0.0.1", port), timeout=30)
    slow = socket.create_connection(("127.0.0.1", port), timeout=30)
    reused = socket.create_connection(("127.0.0.1", port), timeout=30)
    reused.sendall(f"GET /v1/calendars HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
    status, _, _ = read_answer(reused)
    assert status == 200
    partial = f"GET /v1/calendars HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-Slow: ".encode()
    for sock in (slow, reused):
        sock.sendall(partial)
    answers = {}
    stop = time.monotonic() + 8
    while len(answers) < 2 and time.monotonic() < stop:  # a byte a second, until answered
        for name, sock in (("slow", slow), ("reused", reused)):
            if name in answers:
                continue
            ready, _, _ = select.select([sock], [], [], 0)
            if ready:
                answers[name] = read_answer(sock)
            else:
                sock.sendall(b"a")
        time.sleep(1)
    for name, sock in (("slow", slow), ("reused", reused)):
        status, headers, answer = answers[name]
        assert (status, headers["connection"]) == (408, "close"), name
        assert json.loads(answer) == head_timeout_error(3), name
        assert closed(sock), name
        sock.close()
    assert silent.recv(10) == b""  # closed without an answer
    silent.close()
    assert 3 <= time.monotonic() - began < 10
    line = small.await_log(r"did not send a whole request head within 3 s: answered 408, "
                           r"connection closed")
    assert line.split()[2] == "INFO", line
    assert "Traceback" not in "".join(small.stderr)
    answers_still(small)


def at_once(work, clients: int) -> None:
    """Run ``work`` in ``clients`` threads at once, until each is done."""
    threads = [threading.Thread(target=work) for _ in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)


def settles_within(pid: int, most: int, seconds: float) -> bool:
    """Whether process ``pid``'s RSS is at most ``most`` bytes within ``seconds``."""
    until = time.monotonic() + seconds
    while rss(pid) > most and time.monotonic() < until:
        time.sleep(0.1)
    return rss(pid) <= most


def test_refused_messages_of_the_largest_size_leave_no_memory_behind(tmp_path):
    """A server at the default limits (16 MiB messages, 256 MiB budget):
    eight clients each send four 16 MiB messages of 8 million empty items,
    all refused unparsed. Within two seconds after, the server is back
    within 24 MiB of where it was (it was 340 MB above: the refusals kept
    the messages alive until the cyclic garbage collector ran, and the C
    allocator kept what gRPC received them in), and answers."""
    server = start_with_http(tmp_path / "ledger.db")
    try:
        answers_still(server)
        pid = server.proc.pid
        before = rss(pid)
        raw = server.channel.unary_unary("/duetime.v1.DueTimeService/BatchComputeDueTimes",
                                         request_serializer=lambda data: data,
                                         response_deserializer=lambda data: data)
        dense = b"\x0a\x00" * (8 * MiB - 8)
        codes: list[grpc.StatusCode] = []

        def send() -> None:
            for _ in range(4):
                try:
                    raw(dense, timeout=60)
                except grpc.RpcError as exc:
                    codes.append(exc.code())

        at_once(send, 8)
        assert codes == [grpc.StatusCode.RESOURCE_EXHAUSTED] * 32
        assert settles_within(pid, before + 24 * MiB, 2.0), (before, rss(pid))
        answers_still(server)
        assert server.terminate() == 0, "".join(server.stderr)
    finally:
        server.kill()


def test_refused_bodies_of_the_largest_size_leave_no_memory_behind(tmp_path):
    """The HTTP face of a server at the default limits: eight clients each
    send three 15 MiB bodies whose instant is 15 MiB long (400, or 503 when
    the request bytes in flight are full). Within two seconds after, the
    server is back within 24 MiB of where it was (it stayed 450 MB above:
    each refusal kept its body and a dozen copies of the instant until the
    cyclic garbage collector ran), and answers."""
    server = start_with_http(tmp_path / "ledger.db")
    try:
        answers_still(server)
        pid = server.proc.pid
        before = rss(pid)
        body = b'{"start": "' + b"2" * (15 * MiB) + b'", "duration": "1bd"}'
        statuses: list[int] = []

        def send() -> None:
            for _ in range(3):
                statuses.append(httpx.post(f"{server.http_url}/v1/dueTimes:compute",
                                           content=body, timeout=60,
                                           headers={"content-type": "application/json"})
                                .status_code)

        at_once(send, 8)
        assert len(statuses) == 24 and set(statuses) <= {400, 503} and 400 in statuses
        assert settles_within(pid, before + 24 * MiB, 2.0), (before, rss(pid))
        answers_still(server)
        assert server.terminate() == 0, "".join(server.stderr)
    finally:
        server.kill()


def test_many_slow_bodies_and_large_messages_keep_rss_within_the_budget(small):
    """CONNECTIONS (150) connections each announcing and sending most of a 3 MiB body (the
    body is never finished), and 40 gRPC messages of 1.5 MiB each (each
    counted at 3.8 MiB with what parsing it may take), all at
    once: what is held is at most the in-flight limit (8 MiB); the rest is
    refused (503 / RESOURCE_EXHAUSTED) and dropped. The server's RSS stays
    under its RSS before plus the budget plus the slack of the messages its
    8 threads receive, it answers afterwards and nothing is INTERNAL."""
    pid = small.proc.pid
    answers_still(small)
    baseline = peak = rss(pid)
    port = http_port(small)
    stop = threading.Event()

    def watch() -> None:
        nonlocal peak
        while not stop.is_set():
            peak = max(peak, rss(pid))
            time.sleep(0.02)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    statuses: dict[int, int] = {}
    codes: dict[str, int] = {}
    lock = threading.Lock()
    socks: list[socket.socket] = []
    body = 3 * MiB

    def slow_body() -> None:
        """Most of a body, a piece at a time, until the server answers."""
        status = 0  # closed by the server without an answer
        try:
            sock = open_body(port, body, b"")
            with lock:
                socks.append(sock)
            for first in range(0, body - 1, 256 * 1024):
                if select.select([sock], [], [], 0)[0]:
                    break  # answered already (503): the rest is not read
                sock.sendall(b" " * min(256 * 1024, body - 1 - first))
            status = read_answer(sock)[0]
        except (OSError, AssertionError):
            pass
        with lock:
            statuses[status] = statuses.get(status, 0) + 1

    def large_message(i: int) -> None:
        channel = grpc.insecure_channel(small.address)
        request = large_request(i, 3 * MiB // 2)
        data = request.SerializeToString()
        counted = len(data) + parsing_bytes(data, request.DESCRIPTOR, LIMIT - len(data))
        try:
            pb_grpc.DueTimeServiceStub(channel).ComputeDueTime(request, timeout=60)
            code = "OK"
        except grpc.RpcError as exc:
            code = exc.code().name
            if code == "RESOURCE_EXHAUSTED":
                status = rpc_status.from_call(exc)
                info = error_info(status)
                held = int(status.message.split(" bytes of requests")[0].rsplit(" ", 1)[1])
                if (info.reason, dict(info.metadata), status.message) != (
                        "IN_FLIGHT_BYTES_EXHAUSTED",
                        {"limit": "in-flight request bytes", "limit_bytes": str(LIMIT),
                         "request_bytes": str(counted), "retry_after_seconds": "1"},
                        in_flight_error(counted, held, LIMIT)["error"]["message"]):
                    code = f"unexpected {status}"
        finally:
            channel.close()
        with lock:
            codes[code] = codes.get(code, 0) + 1

    threads = [threading.Thread(target=slow_body) for _ in range(CONNECTIONS)]
    threads += [threading.Thread(target=large_message, args=(i,)) for i in range(40)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=90)
    stop.set()
    watcher.join()
    for sock in socks:
        sock.close()
    print(f"RSS: before {baseline / MiB:.0f} MiB, peak {peak / MiB:.0f} MiB "
          f"(+{(peak - baseline) / MiB:.0f} MiB; budget {BUDGET // MiB} MiB, slack "
          f"{SLACK // MiB} MiB); HTTP {statuses}; gRPC {codes}")
    assert not any(t.is_alive() for t in threads)
    assert set(statuses) <= {503, 408, 0} and statuses.get(503, 0) >= 100, statuses
    assert set(codes) <= {"RESOURCE_EXHAUSTED", "INVALID_ARGUMENT"}, codes
    assert codes.get("RESOURCE_EXHAUSTED", 0) >= 10, codes
    assert peak < baseline + BUDGET + SLACK
    answers_still(small)
    assert "Traceback" not in "".join(small.stderr)
    assert "internal error" not in "".join(small.stderr)


# ---------------------------------------------------------------------------
# calls per tenant, a real server with tokens


TEAM_A = "team-a-token.1"
TEAM_B = "team-b-token.2"
TEAM_A_COMPUTE = "team-a-compute-token.3"


@pytest.fixture(scope="module")
def tenants(tmp_path_factory):
    """A server with two tenants' tokens, each with at most 2 calls in flight."""
    directory = tmp_path_factory.mktemp("tenants")
    (directory / "tokens").write_text(f"{TEAM_A} namespaces=team-a scopes=compute,read\n"
                                      f"{TEAM_B} namespaces=team-b scopes=compute,read\n")
    server = start_with_http(directory / "ledger.db", "--auth-tokens",
                             str(directory / "tokens"), "--tenant-calls", "2",
                             "--body-timeout", "30")
    try:
        yield server
        assert server.terminate() == 0, "".join(server.stderr)
    finally:
        server.kill()


def auth(token: str) -> tuple[tuple[str, str]]:
    return (("authorization", f"Bearer {token}"),)


ZAGREB_JSON = json.dumps({"start": "2026-11-27T15:00:00Z", "duration": "3bd",
                          "calendar": {"timeZone": "Europe/Zagreb"}}).encode()


def test_one_tenant_cannot_take_the_calls_of_another(tenants):
    """team-a holds its 2 calls (a stream that waits for its messages, and an
    HTTP call whose body is not finished); its third call is refused on both
    faces, at once, while team-b is answered; once team-a's calls end, its
    next call is answered again."""
    port = http_port(tenants)
    release = threading.Event()

    def waiting():
        release.wait(30)
        yield pb.StreamComputeDueTimesRequest(items=[zagreb_request()])

    stream = tenants.stub.StreamComputeDueTimes(waiting(), metadata=auth(TEAM_A), timeout=60)
    partial = open_body(port, len(ZAGREB_JSON), ZAGREB_JSON[:10], TEAM_A)
    try:
        time.sleep(1)  # both reach the server (no other call of team-a competes with them)
        assert not select.select([partial], [], [], 0)[0], "the partial body was answered"
        with pytest.raises(grpc.RpcError) as caught:
            tenants.stub.ComputeDueTime(zagreb_request(), metadata=auth(TEAM_A), timeout=10)
        refused = caught.value
        assert refused.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        status = rpc_status.from_call(refused)
        assert status.message == tenant_error(2)["error"]["message"]
        info = error_info(status)
        assert (info.reason, dict(info.metadata)) == ("TENANT_CALLS_EXHAUSTED", {
            "limit": "--tenant-calls", "tenant_calls": "2", "retry_after_seconds": "1"})
        answer = httpx.post(f"{tenants.http_url}/v1/dueTimes:compute", content=ZAGREB_JSON,
                            headers={"Authorization": f"Bearer {TEAM_A}",
                                     "Content-Type": "application/json"}, timeout=10)
        assert (answer.status_code, answer.headers["retry-after"]) == (429, "1")
        assert answer.json() == tenant_error(2)
        # team-b is answered meanwhile, on both faces
        reply = tenants.stub.ComputeDueTime(zagreb_request(), metadata=auth(TEAM_B), timeout=10)
        assert reply.due.ToJsonString() == "2026-12-02T15:00:00Z"
        answer = httpx.post(f"{tenants.http_url}/v1/dueTimes:compute", content=ZAGREB_JSON,
                            headers={"Authorization": f"Bearer {TEAM_B}",
                                     "Content-Type": "application/json"}, timeout=10)
        assert (answer.status_code, answer.json()["due"]) == (200, "2026-12-02T15:00:00Z")
        # team-a's two calls end: answered, and its next call is too
        partial.sendall(ZAGREB_JSON[10:])
        status_code, _, body = read_answer(partial)
        assert (status_code, json.loads(body)["due"]) == (200, "2026-12-02T15:00:00Z")
        release.set()
        (result,) = next(iter(stream)).results
        assert result.response.due.ToJsonString() == "2026-12-02T15:00:00Z"
        assert list(stream) == []
        reply = tenants.stub.ComputeDueTime(zagreb_request(), metadata=auth(TEAM_A), timeout=10)
        assert reply.due.ToJsonString() == "2026-12-02T15:00:00Z"
    finally:
        release.set()
        partial.close()
        stream.cancel()


@pytest.fixture(scope="module")
def shared(tmp_path_factory):
    """Two tenants' tokens on a server with 8 MiB for requests in flight
    (``--memory-budget 24MiB``, messages of at most 4 MiB): each tenant may
    hold 4 MiB of them."""
    directory = tmp_path_factory.mktemp("shared")
    (directory / "tokens").write_text(f"{TEAM_A} namespaces=team-a scopes=compute,read\n"
                                      f"{TEAM_A_COMPUTE} namespaces=team-a scopes=compute\n"
                                      f"{TEAM_B} namespaces=team-b scopes=compute,read\n")
    server = start_with_http(directory / "ledger.db", "--auth-tokens", str(directory / "tokens"),
                             "--memory-budget", "24MiB", "--max-message-bytes", str(MESSAGE),
                             "--body-timeout", "10")
    try:
        yield server
        assert server.terminate() == 0, "".join(server.stderr)
    finally:
        server.kill()


def test_one_tenant_holds_at_most_half_of_the_request_bytes_in_flight(shared):
    """team-a holds a 3 MiB body it does not finish: a second body of its own
    is refused 503 once the two would pass its share (4 MiB), and so is a
    gRPC message of its own counted at 3.8 MiB; team-b's 1 MiB body
    (counted 3 MiB with its JSON reading) is let in beside it and answered
    (400: the body is blanks). Before tenants had a share, team-a's second
    body took 6 of the server's 8 MiB and team-b's was refused."""
    port = http_port(shared)
    body = 3 * MiB
    held = open_body(port, body, b" " * (body - 1), token=TEAM_A)
    try:
        time.sleep(0.3)
        second = open_body(port, body, b" " * (MiB + MiB // 2), token=TEAM_A)
        status, headers, answer = read_answer(second)
        second.close()
        error = json.loads(answer)["error"]
        assert (status, headers["retry-after"]) == (503, "1")
        assert error["details"][0]["reason"] == "IN_FLIGHT_BYTES_EXHAUSTED"
        assert error["details"][0]["metadata"]["limit"] == "in-flight request bytes of one tenant"
        assert error["details"][0]["metadata"]["limit_bytes"] == str(4 * MiB)
        mine = int(error["message"].split(" bytes")[0].rsplit(" ", 1)[1])
        assert body - 1 < mine <= 4 * MiB  # the first body and what came of the second
        assert error["message"] == (
            f"this token's requests are holding {mine} bytes of requests in flight and this "
            f"request brings {error['details'][0]['metadata']['request_bytes']} more; at most "
            f"{4 * MiB} bytes (4MiB, one tenant's share: half of the server's, at least one "
            f"message of --max-message-bytes) may be in flight at once: retry in 1 s, or send "
            f"smaller requests (a batch split in parts, or a stream)")
        message = large_request(0, 3 * MiB // 2)
        with pytest.raises(grpc.RpcError) as caught:
            shared.stub.ComputeDueTime(message, metadata=auth(TEAM_A), timeout=30)
        info = error_info(rpc_status.from_call(caught.value))
        assert (info.reason, info.metadata["limit"]) == (
            "IN_FLIGHT_BYTES_EXHAUSTED", "in-flight request bytes of one tenant")
        other = open_body(port, MiB, b" " * (MiB - 1), token=TEAM_B)
        time.sleep(0.3)
        assert not select.select([other], [], [], 0)[0]  # held, not refused
        other.sendall(b" ")
        status, _, answer = read_answer(other)
        other.close()
        assert status == 400, answer
        assert json.loads(answer)["error"]["status"] == "INVALID_ARGUMENT"
    finally:
        held.close()
    reply = shared.stub.ComputeDueTime(zagreb_request(), metadata=auth(TEAM_A), timeout=30)
    assert reply.due.ToJsonString() == "2026-12-02T15:00:00Z"
    assert "Traceback" not in "".join(shared.stderr)


def test_a_batch_repeating_one_calendar_is_let_in_over_grpc(tenants):
    """A 4.5 MB batch of 1,000 items sharing a calendar of 196 holidays
    (more than 200,000 values, each copy parsed apart) is counted at about
    24 MB and answered, as its items are within every limit."""
    from test_wire import shared_calendar_batch
    request = shared_calendar_batch(1000, 196)
    reply = tenants.stub.BatchComputeDueTimes(request, metadata=auth(TEAM_A), timeout=60)
    assert [r.WhichOneof("result") for r in reply.results] == ["response"] * 1000
    assert reply.results[0].response.due.ToJsonString() == "2026-12-02T15:00:00Z"


def test_the_typed_client_waits_as_a_busy_server_asks_and_sends_again(tenants):
    """team-a holds its 2 calls; the typed client's ComputeDueTime for team-a
    is refused TENANT_CALLS_EXHAUSTED (retryable, retry_after_seconds 1),
    waits the second the server asked for and sends again, each time (more
    often than the 4 retries of other failures), until a call of team-a
    ends: then it is answered, within its timeout. With retries off it raises
    the refusal at once."""
    from duetime.client import BUSY_REASONS, DuetimeClient, ResourceExhausted

    assert BUSY_REASONS == {"TENANT_CALLS_EXHAUSTED", "IN_FLIGHT_BYTES_EXHAUSTED",
                            "STREAMS_EXHAUSTED"}
    release = threading.Event()

    def waiting():
        release.wait(30)
        yield pb.StreamComputeDueTimesRequest(items=[zagreb_request()])

    held = [tenants.stub.StreamComputeDueTimes(waiting(), metadata=auth(TEAM_A), timeout=60)
            for _ in range(2)]
    start = "2026-11-27T15:00:00Z"
    try:
        time.sleep(1)  # both reach the server
        with DuetimeClient(tenants.address, token=TEAM_A, retries=0) as once:
            with pytest.raises(ResourceExhausted) as caught:
                once.compute_due_time(start, "3bd", {"time_zone": "Europe/Zagreb"})
        refused = caught.value
        assert (refused.code, refused.reason, refused.retryable) == (
            grpc.StatusCode.RESOURCE_EXHAUSTED, "TENANT_CALLS_EXHAUSTED", True)
        assert refused.metadata["retry_after_seconds"] == "1"
        threading.Timer(6.5, release.set).start()  # team-a's calls end 6.5 s from now
        began = time.monotonic()
        with DuetimeClient(tenants.address, token=TEAM_A, timeout=15) as client:
            due = client.compute_due_time(start, "3bd", {"time_zone": "Europe/Zagreb"})
        took = time.monotonic() - began
        assert due.due.isoformat() == "2026-12-02T15:00:00+00:00"
        # refused, waited 1 s, … more than the 4 retries of other failures, until the calls ended
        assert 6.5 <= took < 10, took
    finally:
        release.set()
        for stream in held:
            stream.cancel()


def test_a_busy_tenant_does_not_starve_another(tenants):
    """team-a sends 32 costly calls at once (business time over a century in a
    calendar of 48 intervals a day); team-b's calls meanwhile are all
    answered; team-a's are answered or refused RESOURCE_EXHAUSTED, never
    anything else."""
    day = [pb.TimeInterval(start=f"{h:02d}:{m:02d}:00", end=f"{h:02d}:{m + 10:02d}:00")
           for h in range(24) for m in (0, 30)]
    costly = pb.ComputeBusinessTimeRequest(
        start_time=ts("2000-01-01T00:00:00Z"), end_time=ts("2099-01-01T00:00:00Z"),
        calendar=pb.Calendar(time_zone="Europe/Zagreb", working_hours=pb.WorkingHours(
            days=[pb.DayHours(weekday=d, intervals=day) for d in range(1, 6)])))
    codes: dict[str, int] = {}
    lock = threading.Lock()

    def team_a(i: int) -> None:
        request = pb.ComputeBusinessTimeRequest()
        request.CopyFrom(costly)
        request.calendar.holidays.add(date=f"{2000 + i}-06-15")  # each calendar new
        try:
            tenants.stub.ComputeBusinessTime(request, metadata=auth(TEAM_A), timeout=60)
            code = "OK"
        except grpc.RpcError as exc:
            code = exc.code().name
        with lock:
            codes[code] = codes.get(code, 0) + 1

    threads = [threading.Thread(target=team_a, args=(i,)) for i in range(32)]
    for thread in threads:
        thread.start()
    answered = 0
    for _ in range(5):
        reply = tenants.stub.ComputeDueTime(zagreb_request(), metadata=auth(TEAM_B), timeout=30)
        assert reply.due.ToJsonString() == "2026-12-02T15:00:00Z"
        answered += 1
    for thread in threads:
        thread.join(timeout=120)
    assert answered == 5
    assert set(codes) <= {"OK", "RESOURCE_EXHAUSTED"} and sum(codes.values()) == 32, codes
    assert codes.get("RESOURCE_EXHAUSTED", 0) >= 1, codes


def test_health_is_not_counted_as_a_tenants_call(tenants):
    health = health_pb2_grpc.HealthStub(tenants.channel)
    for _ in range(20):
        assert health.Check(health_pb2.HealthCheckRequest(service=""), timeout=10).status == \
            health_pb2.HealthCheckResponse.SERVING


def test_without_tokens_no_tenant_bound_applies(small):
    """A server without tokens has one caller: 16 calls at once are all answered."""
    results: list[str] = []

    def call() -> None:
        reply = small.stub.ComputeDueTime(zagreb_request(), timeout=30)
        results.append(reply.due.ToJsonString())

    threads = [threading.Thread(target=call) for _ in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert results == ["2026-12-02T15:00:00Z"] * 16


def test_a_connection_answered_before_its_body_came_is_closed_within_the_body_timeout(small):
    """A GET announcing a 100 MB body, answered at once, whose client then
    dribbles a byte a second: the connection is closed within the body
    timeout (3 s) of the answer, not held as long as bytes keep coming."""
    port = http_port(small)
    sock = socket.create_connection(("127.0.0.1", port), timeout=30)
    sock.sendall(f"GET /v1/calendars HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                 "Content-Length: 100000000\r\n\r\n".encode())
    status, _, _ = read_answer(sock)
    assert status == 200
    answered = time.monotonic()
    closed_at = None
    while time.monotonic() - answered < 10:
        try:
            sock.sendall(b"x")
        except (BrokenPipeError, ConnectionResetError):
            closed_at = time.monotonic()
            break
        ready, _, _ = select.select([sock], [], [], 1)
        if ready:
            try:
                if sock.recv(100) == b"":
                    closed_at = time.monotonic()
                    break
            except ConnectionResetError:
                closed_at = time.monotonic()
                break
    sock.close()
    assert closed_at is not None, "still open 10 s after the answer"
    assert 2.5 <= closed_at - answered < 5, closed_at - answered
    answers_still(small)


def test_idle_streams_hold_at_most_four_threads_and_unary_calls_go_on(small):
    """Three StreamComputeDueTimes whose clients never send hold the three
    stream slots, and a health Watch its own; a fourth stream, or a second
    Watch, is refused RESOURCE_EXHAUSTED (STREAMS_EXHAUSTED, retry after
    1 s) at once, while unary calls are answered beside them on both faces;
    once a stream ends, a new one is let in."""
    from duetime.api.admission import STREAM_SLOTS, WATCH_SLOTS

    assert (STREAM_SLOTS, WATCH_SLOTS) == (3, 1)
    release = threading.Event()

    def silent():
        release.wait(60)
        return
        yield

    streams = [small.stub.StreamComputeDueTimes(silent(), timeout=60) for _ in range(3)]
    watch = health_pb2_grpc.HealthStub(small.channel).Watch(
        health_pb2.HealthCheckRequest(service="duetime.v1.DueTimeService"), timeout=60)
    try:
        assert next(watch).status == health_pb2.HealthCheckResponse.SERVING
        time.sleep(0.5)  # the three streams are in their handlers
        began = time.monotonic()
        with pytest.raises(grpc.RpcError) as caught:
            list(small.stub.StreamComputeDueTimes(silent(), timeout=30))
        assert time.monotonic() - began < 5
        refused = caught.value
        assert refused.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        info = error_info(rpc_status.from_call(refused))
        assert (info.reason, dict(info.metadata)) == ("STREAMS_EXHAUSTED", {
            "limit": "streams open", "streams": "3", "retry_after_seconds": "1"})
        second_watch = health_pb2_grpc.HealthStub(small.channel).Watch(
            health_pb2.HealthCheckRequest(service=""), timeout=30)
        with pytest.raises(grpc.RpcError) as caught:
            next(second_watch)
        assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert error_info(rpc_status.from_call(caught.value)).reason == "STREAMS_EXHAUSTED"
        for _ in range(8):  # more unary calls than the server has threads
            answers_still(small)
        streams[0].cancel()
        time.sleep(0.5)
        release.set()  # the others end; a new stream is served
        reply = list(small.stub.StreamComputeDueTimes(
            iter([pb.StreamComputeDueTimesRequest(items=[zagreb_request()])]), timeout=30))
        assert reply[0].results[0].response.due.ToJsonString() == "2026-12-02T15:00:00Z"
    finally:
        release.set()
        watch.cancel()
        for stream in streams:
            stream.cancel()


def test_an_array_longer_than_any_list_of_a_request_is_refused_before_it_is_read(small):
    """20,000 empty batch items, or 10,000 holidays, in a body whose JSON
    fits the bytes in flight: refused 400 on ``body`` naming the array,
    before any element is read into a message (a batch's items: as gRPC
    refuses them, at --max-batch-items; any other array: at a calendar's
    5,000 dates). (360,000
    empty items took 2 s to read before the batch's own bound refused them;
    here they would not fit the bytes in flight: 413.)"""
    for path, body, where, count in (
            ("/v1/dueTimes:batchCompute", {"items": [{}] * 20_000}, "items", 20_000),
            ("/v1/dueTimes:compute", {"start": "2026-11-27T15:00:00Z", "duration": "1bd",
                                      "calendar": {"holidays": [{"date": "2026-01-01"}] * 10_000}},
             "calendar.holidays", 10_000)):
        answer = httpx.post(f"{small.http_url}{path}", json=body, timeout=30)
        assert answer.status_code == 400
        error = answer.json()["error"]
        assert error["message"] == (
            f"body: the array {where} has {count} elements; no list of a request may hold more "
            f"than 5000 (the most a calendar's dates may hold)") if where != "items" else (
            f"items: has {count} items; at most 1000 are allowed in one message (the server's "
            f"--max-batch-items): send them in several messages, or stream them "
            f"(StreamComputeDueTimes)")
    answers_still(small)


def test_one_tenant_holds_at_most_two_of_the_three_stream_slots(shared):
    """team-a's two idle streams hold two slots; its third, opened with
    another token of team-a's namespace (other scopes: one tenant all the
    same), is refused STREAMS_EXHAUSTED for one tenant (below its
    --tenant-calls, 4), while team-b's stream is served."""
    release = threading.Event()

    def silent():
        release.wait(60)
        return
        yield

    held = [shared.stub.StreamComputeDueTimes(silent(), metadata=auth(TEAM_A), timeout=60)
            for _ in range(2)]
    try:
        time.sleep(0.5)  # both are in their handlers
        with pytest.raises(grpc.RpcError) as caught:
            list(shared.stub.StreamComputeDueTimes(silent(), metadata=auth(TEAM_A_COMPUTE),
                                                   timeout=30))
        info = error_info(rpc_status.from_call(caught.value))
        assert (caught.value.code(), info.reason, dict(info.metadata)) == (
            grpc.StatusCode.RESOURCE_EXHAUSTED, "STREAMS_EXHAUSTED",
            {"limit": "streams open of one tenant", "streams": "2", "retry_after_seconds": "1"})
        reply = list(shared.stub.StreamComputeDueTimes(
            iter([pb.StreamComputeDueTimesRequest(items=[zagreb_request()])]),
            metadata=auth(TEAM_B), timeout=30))
        assert reply[0].results[0].response.due.ToJsonString() == "2026-12-02T15:00:00Z"
    finally:
        release.set()
        for stream in held:
            stream.cancel()


def logged(server, text: str, within: float = 5.0) -> bool:
    """Whether ``text`` is in ``server``'s log within ``within`` s (the access
    log is written in batches)."""
    until = time.monotonic() + within
    while text not in "".join(server.stderr):
        if time.monotonic() > until:
            return False
        time.sleep(0.05)
    return True


def _idle_call(channel: grpc.Channel, method: str, gate: threading.Event
               ) -> tuple[grpc.StatusCode, float]:
    """Open ``method`` and send no request message until ``gate`` is set (or
    30 s): its status and how long it took (s)."""
    streamed = method.endswith("/Watch")
    opener = channel.stream_stream if streamed else channel.stream_unary
    call = opener(method, request_serializer=lambda data: data,
                  response_deserializer=lambda data: data)
    began = time.monotonic()
    try:
        answer = call(iter(lambda: gate.wait(30) and None, 1), timeout=30)
        if streamed:
            list(answer)
    except grpc.RpcError as exc:
        return exc.code(), time.monotonic() - began
    return grpc.StatusCode.OK, time.monotonic() - began


def _idle_calls(channel: grpc.Channel, methods: list[str], gate: threading.Event
                ) -> tuple[list[threading.Thread], list[tuple[grpc.StatusCode, float]]]:
    results: list[tuple[grpc.StatusCode, float]] = []
    threads = [threading.Thread(target=lambda m=m: results.append(_idle_call(channel, m, gate)))
               for m in methods]
    for thread in threads:
        thread.start()
    return threads, results


def test_a_unary_call_whose_message_does_not_come_is_cancelled_at_the_body_timeout(small):
    """A health Watch and a ComputeDueTime that open and never send their
    message (well under half the server's 8 threads) are
    cancelled 3 s (--body-timeout) after a thread took them up, logged as
    such; a health Check sent meanwhile is answered at once."""
    gate = threading.Event()
    methods = ["/grpc.health.v1.Health/Watch", "/duetime.v1.DueTimeService/ComputeDueTime"]
    threads, results = _idle_calls(small.channel, methods, gate)
    time.sleep(0.5)
    began = time.monotonic()
    health = health_pb2_grpc.HealthStub(small.channel).Check(
        health_pb2.HealthCheckRequest(service=""), timeout=20)
    assert health.status == health_pb2.HealthCheckResponse.SERVING
    assert time.monotonic() - began < 2
    for thread in threads:
        thread.join(timeout=40)
    assert [code for code, _ in results] == [grpc.StatusCode.CANCELLED] * 2
    assert all(2.8 < took < 10 for _, took in results), results
    assert logged(small, "did not send its request message within 3 s: call cancelled")
    assert re.search(r"client ipv4:127\.0\.0\.1:\d+ did not send its request message",
                     "".join(small.stderr))  # its peer, read before the call was cancelled
    assert logged(small, "ComputeDueTime DEADLINE_EXCEEDED")
    answers_still(small)


def test_calls_without_their_message_hold_at_most_half_the_threads_for_long(small):
    """Forty idle calls (five times the server's threads; no token needed):
    once half the threads wait for a message, each such call is cancelled
    0.1 s (a health Check) or 0.5 s after a thread took it up, so a health
    Check and a ComputeDueTime sent behind all forty are answered within a
    few seconds, not after --body-timeout (3 s) for every eight of them
    (15 s)."""
    gate = threading.Event()
    logged_before = len("".join(small.stderr))
    methods = (["/grpc.health.v1.Health/Check"] * 30
               + ["/duetime.v1.DueTimeService/ComputeDueTime"] * 10)
    threads, results = _idle_calls(small.channel, methods, gate)
    time.sleep(0.3)
    began = time.monotonic()
    health = health_pb2_grpc.HealthStub(small.channel).Check(
        health_pb2.HealthCheckRequest(service=""), timeout=20)
    assert health.status == health_pb2.HealthCheckResponse.SERVING
    answer = small.stub.ComputeDueTime(zagreb_request(), timeout=20)
    assert answer.due.ToJsonString() == "2026-12-02T15:00:00Z"
    took = time.monotonic() - began
    for thread in threads:
        thread.join(timeout=40)
    assert [code for code, _ in results] == [grpc.StatusCode.CANCELLED] * 40
    assert took < 6, took
    assert max(took for _, took in results) < 8, results
    assert logged(small, "did not send its request message within 0.1 s: call cancelled")
    # each is counted as cut for its message, with its client's address (none as a caller's
    # mistake: a call cancelled as its wait ended could read no message, INVALID_ARGUMENT)
    timed_out = re.compile(r"rpc /\S+ DEADLINE_EXCEEDED [0-9.]+ ms namespace=\S+ "
                           r"peer=ipv4:127\.0\.0\.1:\d+ reason=MESSAGE_TIMEOUT")
    until = time.monotonic() + 5
    while (len(timed_out.findall("".join(small.stderr)[logged_before:])) < 40
           and time.monotonic() < until):
        time.sleep(0.1)
    # (at least: the line of an earlier test's call may be written after the mark)
    assert len(timed_out.findall("".join(small.stderr)[logged_before:])) >= 40
    assert "Check INVALID_ARGUMENT" not in "".join(small.stderr)[logged_before:]
    answers_still(small)


def test_calls_past_the_accepted_bound_are_refused_at_once(small):
    """Past 64 calls taken at once (running or queued for a thread), a new
    call is refused RESOURCE_EXHAUSTED at once (gRPC's own refusal); the
    idle ones are cancelled, and calls are answered again."""
    gate = threading.Event()
    threads, results = _idle_calls(small.channel,
                                   ["/duetime.v1.DueTimeService/ComputeDueTime"] * 70, gate)
    time.sleep(0.3)
    codes = [code for code, _ in results]
    assert codes.count(grpc.StatusCode.RESOURCE_EXHAUSTED) >= 6, codes
    assert all(took < 1 for code, took in results
               if code == grpc.StatusCode.RESOURCE_EXHAUSTED), results
    for thread in threads:
        thread.join(timeout=40)
    codes = [code for code, _ in results]
    assert codes.count(grpc.StatusCode.RESOURCE_EXHAUSTED) + codes.count(
        grpc.StatusCode.CANCELLED) == 70, codes
    answers_still(small)


def test_freed_memory_is_handed_back_after_16_mib_of_requests_at_most_once_a_second(
        monkeypatch):
    from duetime.api import server as served
    trims: list[float] = []
    clock = [100.0]
    monkeypatch.setattr(served.time, "monotonic", lambda: clock[0])
    in_flight = InFlightBytes(64 * MiB)
    freed = served.FreedMemory(in_flight, trim=lambda: trims.append(clock[0]))
    freed.check()
    assert trims == []  # nothing came yet
    in_flight.take(15 * MiB)
    freed.check()
    assert trims == []
    with pytest.raises(TooCostlyToRead):  # refused messages count too
        in_flight.take_message(b"\x0a\x00" * MiB, pb.BatchComputeDueTimesRequest.DESCRIPTOR)
    assert in_flight.passed == 17 * MiB
    clock[0] += 1
    freed.check()
    assert trims == [101.0]
    in_flight.release(15 * MiB)
    in_flight.take(16 * MiB)
    clock[0] += 0.5
    freed.check()
    assert trims == [101.0]  # not again within a second
    clock[0] += 0.5
    freed.check()
    assert trims == [101.0, 102.0]
    clock[0] += 9.9
    freed.check()
    assert trims == [101.0, 102.0]
    clock[0] += 0.1
    freed.check()
    assert trims == [101.0, 102.0, 112.0]  # every 10 s whatever came
    served.FreedMemory(None, trim=lambda: trims.append(0.0)).check()  # no budget: nothing to do
    assert trims == [101.0, 102.0, 112.0]


class StalledReader:
    """A raw HTTP/2 client connection that opens a zero flow-control window
    and never widens it: the server can send it no answer's bytes."""

    def __init__(self, port: int):
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.reset = 0
        self.sock.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
                          + self._frame(4, 0, 0, struct.pack(">HI", 4, 0)))  # window 0
        self._next_stream = 1
        threading.Thread(target=self._read, daemon=True).start()

    @staticmethod
    def _frame(kind: int, flags: int, stream: int, payload: bytes) -> bytes:
        return struct.pack(">I", len(payload))[1:] + bytes([kind, flags]) + \
            struct.pack(">I", stream) + payload

    def _read(self) -> None:
        try:
            self._answer()
        except OSError:  # closed
            return

    def _answer(self) -> None:
        buffer = b""
        while True:
            data = self.sock.recv(65536)
            if not data:
                return
            buffer += data
            while len(buffer) >= 9 and len(buffer) >= 9 + int.from_bytes(buffer[:3], "big"):
                size = int.from_bytes(buffer[:3], "big")
                kind, flags, payload = buffer[3], buffer[4], buffer[9:9 + size]
                buffer = buffer[9 + size:]
                if kind == 4 and not flags & 1:  # SETTINGS: acknowledged
                    self.sock.sendall(self._frame(4, 1, 0, b""))
                elif kind == 6 and not flags & 1:  # PING: answered
                    self.sock.sendall(self._frame(6, 1, 0, payload))
                elif kind == 3:
                    self.reset += 1

    def call(self, method: str, message: bytes) -> None:
        def literal(name: str, value: str) -> bytes:
            return b"\x00" + bytes([len(name)]) + name.encode() + bytes([len(value)]) + value.encode()

        head = b"".join(literal(k, v) for k, v in (
            (":method", "POST"), (":scheme", "http"), (":path", method), (":authority", "x"),
            ("content-type", "application/grpc"), ("te", "trailers")))
        stream, self._next_stream = self._next_stream, self._next_stream + 2
        self.sock.sendall(self._frame(1, 4, stream, head) + self._frame(
            0, 1, stream, b"\x00" + struct.pack(">I", len(message)) + message))

    def close(self) -> None:
        self.sock.close()


def test_answers_a_client_never_reads_are_counted_and_cut(small):
    """Clients that open a zero HTTP/2 window and ask for ListRecords pages
    of 1,000 records (about 300 KB each) on three connections: each
    connection has at most 32 calls open; the unsent answers are counted in
    the request bytes in flight (8 MiB here), so further calls are refused
    IN_FLIGHT_BYTES_EXHAUSTED rather than piling up, and each is cancelled 3 s (--body-timeout) after its handler
    returned. The server's RSS stays within the budget; it answers after.
    (Before, 1,500 such calls on one connection took a server to 1.5 GB.)"""
    batch = pb.BatchComputeDueTimesRequest(items=[
        pb.ComputeDueTimeRequest(start=ts("2026-11-27T15:00:00Z"), duration=f"{1 + i % 40}bd",
                                 calendar=pb.Calendar(time_zone="Europe/Zagreb"))
        for i in range(1000)])
    small.stub.BatchComputeDueTimes(batch, timeout=60)
    pid = small.proc.pid
    before = rss(pid)
    page = pb.ListRecordsRequest(page_size=1000).SerializeToString()
    readers = [StalledReader(int(small.address.rsplit(":", 1)[1])) for _ in range(3)]
    try:
        for _ in range(60):
            for reader in readers:
                reader.call("/duetime.v1.DueTimeService/ListRecords", page)
            time.sleep(0.02)
        time.sleep(1.5)
        assert rss(pid) <= before + 24 * MiB + 32 * MiB, (before, rss(pid))
        assert logged(small, "ListRecords RESOURCE_EXHAUSTED")
        assert logged(small, "reason=IN_FLIGHT_BYTES_EXHAUSTED")
        answers_still(small)
        time.sleep(3.5)  # past --body-timeout: the stalled answers are cancelled, their bytes freed
        health = health_pb2_grpc.HealthStub(small.channel).Check(
            health_pb2.HealthCheckRequest(service=""), timeout=10)
        assert health.status == health_pb2.HealthCheckResponse.SERVING
        reply = small.stub.ListRecords(pb.ListRecordsRequest(page_size=1000), timeout=30)
        assert len(reply.records) == 1000
    finally:
        for reader in readers:
            reader.close()


def test_tokens_whose_namespaces_overlap_are_one_tenant(tmp_path):
    """``team-b`` and ``team-b,team-b-staging`` (as the docs' example file
    has them) are one tenant, and so are tokens joined through another;
    team-a and the operator's token of every namespace stay apart."""
    from duetime.api.callers import tenant_groups
    from duetime.auth import TokenSet
    assert tenant_groups([frozenset({"a"}), frozenset({"a", "b"}), frozenset({"c"}), None,
                          frozenset({"b", "d"})]) == [
        frozenset({"a", "b", "d"}), frozenset({"a", "b", "d"}), frozenset({"c"}), None,
        frozenset({"a", "b", "d"})]
    path = tmp_path / "tokens"
    path.write_text("tokA1 namespaces=team-a scopes=compute,read\n"
                    "tokB1 namespaces=team-b scopes=compute,read\n"
                    "tokB2 namespaces=team-b,team-b-staging default=team-b scopes=compute\n"
                    "tokOP\n")
    tokens = TokenSet(path)
    a, b1, b2, operator = (tokens.caller(t) for t in ("tokA1", "tokB1", "tokB2", "tokOP"))
    assert b1.tenant == b2.tenant == frozenset({"team-b", "team-b-staging"})
    assert a.tenant == frozenset({"team-a"}) and operator.tenant is None
    assert b1.namespaces == frozenset({"team-b"})  # what the token may use is unchanged
    calls = TenantCalls(4)
    for caller in (b1, b1, b2, b2):
        calls.enter(caller)
    with pytest.raises(TenantCallsExhausted):
        calls.enter(b2)
    with calls.call(a):
        assert calls.in_flight(b1) == 4
