"""Bad input never costs availability (docs/semantics.md §13, docs/operations.md).

Real ``duetime serve`` processes on 127.0.0.1, one per store (SQLite, and
PostgreSQL from tests/pg.py), each with its HTTP/JSON port and metrics port:

* one test per finding: a NUL in ``ListRecords.key_prefix`` (gRPC, and
  ``GET /v1/records?keyPrefix=%00``) is INVALID_ARGUMENT on ``key_prefix``
  and leaves health SERVING (it was UNAVAILABLE, and marked the PostgreSQL
  ledger down); forged page tokens (NUL, deeply nested JSON, a position
  beyond 64 bits, another filter's) are INVALID_ARGUMENT on ``page_token``
  (they were UNAVAILABLE or INTERNAL); an unpaired surrogate in JSON is
  INVALID_ARGUMENT; an HTTP client that disconnects mid-body is logged as a
  disconnect and counted CANCELLED, not INTERNAL;
* the ledger-down classification: a store refusing a value the request gave
  raises UnstorableValue (answered INVALID_ARGUMENT), which never reaches
  the health check; only LedgerUnavailable does;
* a generated sweep (:func:`grpc_cases`, :func:`http_cases`): every RPC over
  gRPC and every route over HTTP, each text field given NUL, an unpaired
  surrogate or bad UTF-8, 100,000 characters and forged page tokens, each
  number the extremes and beyond 64 bits, each field the wrong JSON type,
  and deeply nested bodies and messages; it prints how many requests it
  sent, and holds every answer to a documented non-INTERNAL status while a
  watcher checks health every few milliseconds (and the server's log shows
  no NOT_SERVING, no ledger failure and no internal error).
"""

from __future__ import annotations

import base64
import http.client
import json
import socket
import threading
import time
import urllib.parse
import urllib.request
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone

import grpc
import pytest
from duetime.api.calls import CallLimits, unary_calls
from duetime.api.http import BINDINGS
from duetime.api.status import status_of
from duetime.app import record_filter
from duetime.app.recorded import LedgerGate
from duetime.catalog import Catalog
from duetime.compose import build_app
from duetime.core import InvalidArgument
from duetime.ledger import (
    LedgerUnavailable,
    MemoryLedger,
    PostgresLedger,
    RecordFilter,
    SqliteLedger,
    UnstorableValue,
)
from duetime.v1 import duetime_pb2 as pb
from google.protobuf import descriptor as _descriptor
from google.protobuf import json_format
from google.protobuf.message import Message
from google.rpc import code_pb2, status_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from pg import create_database, drop_database, pg_dsn  # noqa: F401  (fixture)
from server_process import CALENDARS, free_port, start_with_http, zagreb_request
from test_e2e import failure
from test_hostile import METHODS, invoke, problem_with_answer, problem_with_error, templates

FD = _descriptor.FieldDescriptor
INT64_MAX = 2**63 - 1
TIMEOUT = 10.0
BAD_LOG = ("health NOT_SERVING", "ledger unavailable", "internal error", "Traceback")
"""What the server's log must never show after hostile input."""

NESTED_TOKEN = base64.urlsafe_b64encode(b"[" * 5000 + b"]" * 5000).rstrip(b"=").decode()
BIG_POSITION_TOKEN = base64.urlsafe_b64encode(json.dumps(
    [1, 2**70, "0" * 32, "0123456789abcdef"]).encode()).rstrip(b"=").decode()
NUL_TOKEN = base64.urlsafe_b64encode(json.dumps(
    [1, 1, "\0", "0123456789abcdef"]).encode()).rstrip(b"=").decode()
LOOKALIKE_TOKEN = base64.urlsafe_b64encode(b"\x02" + b"\0" * 8 + b"\x20" + b"0" * 32
                                           + b"\0" * 24).rstrip(b"=").decode()
FORGED_TOKENS = [NESTED_TOKEN, BIG_POSITION_TOKEN, NUL_TOKEN, LOOKALIKE_TOKEN, "\0", "A" * 5000]
"""Page tokens no ledger issued: deeply nested JSON, a position beyond 64
bits, a NUL record id (the unsigned JSON of schema 2), a token of the right
shape without its MAC, a NUL, an over-long one."""
NOT_A_TOKEN = ("page_token: is not a page token returned by a record listing of this ledger "
               "(altered, cut short or issued elsewhere); start again without a page token")


# ---------------------------------------------------------------------------
# servers, one per store


class Watcher:
    """Asks the server's health service every few milliseconds, in a thread,
    and keeps every answer that is not SERVING."""

    def __init__(self, address: str):
        self.channel = grpc.insecure_channel(address)
        self.check = health_pb2_grpc.HealthStub(self.channel).Check
        self.checks = 0
        self.bad: list[str] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        request = health_pb2.HealthCheckRequest(service="duetime.v1.DueTimeService")
        while not self._stop.wait(0.003):
            try:
                status = self.check(request, timeout=5).status
            except grpc.RpcError as error:
                self.bad.append(error.code().name)
                continue
            self.checks += 1
            if status != health_pb2.HealthCheckResponse.SERVING:
                self.bad.append(health_pb2.HealthCheckResponse.ServingStatus.Name(status))

    def __enter__(self) -> Watcher:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join(10)
        self.channel.close()


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def served(request, tmp_path_factory):
    """(store name, server): ``duetime serve`` on that store with HTTP and metrics ports."""
    dsn = create_database() if request.param == "postgres" else None
    db = dsn or tmp_path_factory.mktemp("hostile-input") / "ledger.db"
    metrics_port = free_port()
    server = start_with_http(db, "--metrics-port", str(metrics_port))
    server.metrics_url = f"http://127.0.0.1:{metrics_port}/metrics"
    try:
        yield request.param, server
        assert server.terminate() == 0, "".join(server.stderr)
    finally:
        server.kill()
        if dsn:
            drop_database(dsn)


def log_problems(server) -> list[str]:
    return [line for line in server.stderr if any(bad in line for bad in BAD_LOG)]


def http_call(server, verb: str, target: str, body: bytes | None = None,
         headers: dict | None = None) -> tuple[int, dict]:
    """(HTTP status, JSON body) of one request; ``target`` is sent as written."""
    url = urllib.parse.urlsplit(server.http_url)
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=TIMEOUT)
    try:
        conn.request(verb, target, body=body, headers={"Content-Type": "application/json",
                                                       **(headers or {})})
        reply = conn.getresponse()
        return reply.status, json.loads(reply.read() or b"{}")
    finally:
        conn.close()


def violations(body: dict) -> list[tuple[str, str]]:
    return [(v["field"], v["description"]) for d in body["error"]["details"]
            for v in d.get("fieldViolations", [])]


# ---------------------------------------------------------------------------
# the findings, one test each


def test_nul_in_key_prefix_is_invalid_argument_and_health_stays_serving(served):
    """Was: the PostgreSQL store's call failed, the call answered UNAVAILABLE
    and the replica marked its ledger down (NOT_SERVING) — two such requests
    a second drained every replica."""
    store, server = served
    description = ("contains U+0000 (NUL) at position 1; remove it: no text duetime stores "
                   "or searches for may hold one")
    with Watcher(server.address) as watcher:
        for _ in range(20):
            status, body = http_call(server, "GET", "/v1/records?keyPrefix=%00")
            assert (status, body["error"]["status"]) == (400, "INVALID_ARGUMENT")
            assert violations(body) == [("key_prefix", description)]
            code, bad, info = failure(lambda: server.stub.ListRecords(
                pb.ListRecordsRequest(key_prefix="\0"), timeout=TIMEOUT))
            assert code == grpc.StatusCode.INVALID_ARGUMENT and info.reason == "INVALID_ARGUMENT"
            assert [(v.field, v.description) for v in bad.field_violations] == [
                ("key_prefix", description)]
            code, bad, _ = failure(lambda: server.stub.ListRecords(
                pb.ListRecordsRequest(key_prefix="ticket-\0"), timeout=TIMEOUT))
            assert [(v.field, v.description) for v in bad.field_violations] == [
                ("key_prefix", description.replace("position 1", "position 8"))]
        time.sleep(0.05)
    assert watcher.checks > 5 and watcher.bad == []
    assert log_problems(server) == []


@pytest.mark.parametrize("token", FORGED_TOKENS,
                         ids=["nested", "beyond-64-bits", "nul-id", "unsigned", "nul", "long"])
def test_forged_page_tokens_are_invalid_argument_on_page_token(served, token):
    """Was: a NUL in a token's record id drained PostgreSQL replicas like
    the key prefix; deeply nested JSON answered INTERNAL on both stores, a
    position beyond 64 bits INTERNAL on SQLite."""
    store, server = served
    with Watcher(server.address) as watcher:
        code, bad, _ = failure(lambda: server.stub.ListRecords(
            pb.ListRecordsRequest(page_token=token), timeout=TIMEOUT))
        assert code == grpc.StatusCode.INVALID_ARGUMENT
        assert [f"{v.field}: {v.description}" for v in bad.field_violations] == [NOT_A_TOKEN]
        status, body = http_call(server, "GET", "/v1/records?pageToken="
                            + urllib.parse.quote(token, safe=""))
        assert (status, body["error"]["message"]) == (400, NOT_A_TOKEN)
        time.sleep(0.02)
    assert watcher.bad == []
    assert log_problems(server) == []


def test_a_token_of_one_listing_does_not_continue_another(served):
    """A genuine token replayed with another namespace, key prefix or time
    range is refused (a token never carries a listing into other records)."""
    _, server = served
    for i in range(3):
        for namespace in ("team-a", "team-b"):
            server.stub.ComputeDueTime(zagreb_request(f"tokens/{i}"), timeout=TIMEOUT,
                                       metadata=(("x-duetime-namespace", namespace),))
    first = server.stub.ListRecords(pb.ListRecordsRequest(
        namespace="team-a", key_prefix="tokens/", page_size=1), timeout=TIMEOUT)
    assert len(first.records) == 1 and first.next_page_token
    again = server.stub.ListRecords(pb.ListRecordsRequest(
        namespace="team-a", key_prefix="tokens/", page_size=5,
        page_token=first.next_page_token), timeout=TIMEOUT)
    assert [r.idempotency_key for r in again.records] == ["tokens/1", "tokens/2"]
    other = ("page_token: was returned by a listing with other filters; pass the same time "
             "range, key prefix and namespace as the first page, or start again without a "
             "page token")
    for changed in (dict(namespace="team-b"), dict(key_prefix="tokens"), dict(namespace=""),
                    dict(start_time=first.records[0].receive_time)):
        fields = dict(namespace="team-a", key_prefix="tokens/", page_size=5,
                      page_token=first.next_page_token) | changed
        code, bad, _ = failure(lambda: server.stub.ListRecords(
            pb.ListRecordsRequest(**fields), timeout=TIMEOUT))
        assert code == grpc.StatusCode.INVALID_ARGUMENT
        assert [f"{v.field}: {v.description}" for v in bad.field_violations] == [other]
    status, body = http_call(server, "GET", "/v1/records?namespace=team-b&keyPrefix=tokens/"
                        "&pageToken=" + first.next_page_token)
    assert (status, body["error"]["message"]) == (400, other)


def test_unpaired_surrogate_in_json_is_invalid_argument(served):
    """JSON's ``\\ud800`` escape gives a text no store can hold: refused on
    the body, in a query parameter's bytes the URL decoding replaces it."""
    _, server = served
    body = json.dumps({**json_format.MessageToDict(zagreb_request()),
                       "idempotencyKey": "k\ud800"}).encode()
    assert b"\\ud800" in body
    status, answer = http_call(server, "POST", "/v1/dueTimes:compute", body)
    assert (status, answer["error"]["status"]) == (400, "INVALID_ARGUMENT")
    assert violations(answer) == [("body", "field idempotencyKey: is not valid Unicode "
                                           "(it holds an unpaired surrogate)")]
    status, answer = http_call(server, "GET", "/v1/records?keyPrefix=%ED%A0%80")
    assert status == 200 and answer == {"records": [], "nextPageToken": ""}  # U+FFFD ×3: no key starts so
    assert log_problems(server) == []


def _metric(server, method: str) -> dict[str, float]:
    text = urllib.request.urlopen(server.metrics_url, timeout=TIMEOUT).read().decode()
    counts = {}
    for line in text.splitlines():
        if line.startswith("duetime_rpc_requests_total{") and f'method="{method}"' in line:
            code = line.split('code="', 1)[1].split('"', 1)[0]
            counts[code] = float(line.rsplit(" ", 1)[1])
    return counts


def test_a_client_disconnecting_mid_body_is_logged_as_a_disconnect(served):
    """Was: ``internal error`` with a traceback, counted INTERNAL. Now an
    INFO line saying so, the call log line and the metrics with code
    CANCELLED (HTTP 499), nothing recorded."""
    _, server = served
    method = "/duetime.v1.DueTimeService/ComputeDueTime"
    before = _metric(server, method)
    port = int(server.http_url.rsplit(":", 1)[1])
    for _ in range(3):
        with socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT) as sock:
            sock.sendall(b"POST /v1/dueTimes:compute HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                         b"Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n"
                         b'{"duration')
        line = server.await_log(r"disconnected before sending its whole request body")
        assert " INFO client http:127.0.0.1:" in line and method in line
        assert line.rstrip().endswith("nothing computed or recorded")
        server.await_log(rf"rpc {method} CANCELLED ")
    deadline = time.monotonic() + 5
    while _metric(server, method).get("CANCELLED", 0) < before.get("CANCELLED", 0) + 3:
        assert time.monotonic() < deadline, _metric(server, method)
        time.sleep(0.05)
    after = _metric(server, method)
    assert after.get("INTERNAL", 0) == before.get("INTERNAL", 0) == 0
    assert after["CANCELLED"] == before.get("CANCELLED", 0) + 3
    assert log_problems(server) == []


# ---------------------------------------------------------------------------
# the ledger-down classification


def test_a_store_refusing_a_value_is_unstorable_not_unavailable(tmp_path, pg_dsn):
    """Bypassing the app's checks: each store's own refusal of a value is
    UnstorableValue (a Refusal of kind BAD_INPUT), never LedgerUnavailable."""
    sqlite_store, pg_store = SqliteLedger(tmp_path / "ledger.db"), PostgresLedger(pg_dsn)
    cases = [
        (sqlite_store, dict(since_us=2**70), "Python int too large to convert to SQLite INTEGER"),
        (sqlite_store, dict(key_prefix="\ud800"), "surrogates not allowed"),
        (pg_store, dict(key_prefix="\0"), "PostgreSQL text fields cannot contain NUL"),
        (pg_store, dict(namespace="a\0"), "PostgreSQL text fields cannot contain NUL"),
        (pg_store, dict(key_prefix="\udfff"), "surrogates not allowed"),
    ]
    try:
        for store, flt, reason in cases:
            with pytest.raises(UnstorableValue) as caught:
                store._page(RecordFilter(**flt), None, 10)
            assert not isinstance(caught.value, LedgerUnavailable)
            assert reason in str(caught.value), (flt, str(caught.value))
            assert caught.value.kind.name == "BAD_INPUT"
            assert caught.value.reason == "UNSTORABLE_VALUE"
            assert [v.field for v in caught.value.violations] == ["request"]
        with pytest.raises(UnstorableValue):
            sqlite_store.get_by_key("k", "\ud800")
        with pytest.raises(UnstorableValue):
            pg_store.get_by_key("k\0", "")
        # the store is fine afterwards
        assert sqlite_store.list_records() == ([], "")
        assert pg_store.list_records() == ([], "")
    finally:
        sqlite_store.close()
        pg_store.close()


class RefusingLedger(MemoryLedger):
    """A ledger whose reads fail with a chosen error."""

    def __init__(self, error: Exception):
        super().__init__()
        self.error = error

    def _page(self, flt, after, limit):
        raise self.error


def test_only_a_store_failure_marks_the_ledger_down():
    """The app tells its ledger listener (the server's health check) about
    LedgerUnavailable only: a value the store refused is the caller's
    INVALID_ARGUMENT, and health is not told."""
    reported: list = []
    refused = build_app(RefusingLedger(UnstorableValue("ledger x: text holds NUL")),
                        Catalog.empty(), on_ledger_unavailable=reported.append)
    with pytest.raises(UnstorableValue) as caught:
        refused.list_records(RecordFilter(), 10, "")
    assert caught.value.message.startswith("the request holds a value the ledger cannot store")
    assert reported == []
    down = build_app(RefusingLedger(LedgerUnavailable("ledger x: connection refused")),
                     Catalog.empty(), on_ledger_unavailable=reported.append)
    with pytest.raises(LedgerUnavailable):
        down.list_records(RecordFilter(), 10, "")
    assert [str(e) for e in reported] == ["ledger x: connection refused"]
    gate = LedgerGate(MemoryLedger(), reported.append)
    with pytest.raises(UnstorableValue):
        with gate.use():
            raise UnstorableValue("x")
    assert len(reported) == 1
    # the app's own checks come first, on both stores alike
    app = build_app(MemoryLedger(), Catalog.empty())
    with pytest.raises(InvalidArgument, match=r"key_prefix: contains U\+D800 \(an unpaired "
                                              r"surrogate\) at position 2"):
        app.list_records(record_filter(None, None, "t\ud800", None), 10, "")


# ---------------------------------------------------------------------------
# the generated sweep

HOSTILE_TEXTS = ["\0", "ticket-\0", "x" * 100_000, "\u202e\ufeff\uffff", *FORGED_TOKENS[:4]]
"""Text values every string field gets, over both faces."""
HTTP_ONLY_TEXTS = ["\ud800", "a\udfffb"]
"""Unpaired surrogates: JSON can carry them, protobuf cannot."""
WRONG_JSON = [[], {}, True, 12, None, "text", [[[[["deep"]]]]]]
"""Values of the wrong JSON type for some field or other."""
DEEP = 100_000


def _int_extremes(field: FD) -> list[int]:
    if field.cpp_type in (FD.CPPTYPE_INT64, FD.CPPTYPE_UINT64):
        return [INT64_MAX, -INT64_MAX - 1, -1]
    return [2**31 - 1, -(2**31), -1]


def _leaves(message: Message, wanted, depth: int = 0):
    """(path, field) of the scalar fields for which ``wanted(field)`` holds,
    in ``message``'s type and in the messages it holds, at most three levels
    down (repeated: the first item; maps and Timestamps not entered)."""
    for field in message.DESCRIPTOR.fields:
        if field.message_type is None:
            if wanted(field) and not field.is_repeated:
                yield (field.name,), field
            continue
        if depth >= 3 or field.message_type.GetOptions().map_entry or \
                field.message_type.full_name.startswith("google.protobuf."):
            continue
        if field.is_repeated:
            items = getattr(message, field.name)
            inner = items[0] if len(items) else None
        else:
            inner = getattr(message, field.name) if message.HasField(field.name) else None
        if inner is not None:
            for path, leaf in _leaves(inner, wanted, depth + 1):
                yield (field.name, *path), leaf


def _is_text(field: FD) -> bool:
    return field.type == FD.TYPE_STRING


def _is_integer(field: FD) -> bool:
    return field.cpp_type in (FD.CPPTYPE_INT32, FD.CPPTYPE_INT64)


def _set(message: Message, path: tuple[str, ...], value) -> Message:
    copy = type(message)()
    copy.CopyFrom(message)
    target = copy
    for name in path[:-1]:
        target = getattr(target, name)
        if not isinstance(target, Message):  # repeated: its first item
            target = target[0]
    setattr(target, path[-1], value)
    return copy


def _varint(n: int) -> bytes:
    out = bytearray()
    while n > 0x7F:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    return bytes([*out, n])


def grpc_cases(valid: dict[str, list[Message]]) -> list[tuple]:
    """(method, request, raw bytes appended) of the gRPC sweep: each string
    field (three levels deep) set to each hostile text, each integer to its
    extremes; each top-level string field given bad UTF-8, each Timestamp's
    seconds the int64 extremes; a message of 10,000 nested groups."""
    cases = []
    for method in METHODS:
        template = valid[method.name][0]
        for path, field in _leaves(template, _is_text):
            cases += [(method, _set(template, path, text), b"") for text in HOSTILE_TEXTS]
        for path, field in _leaves(template, _is_integer):
            cases += [(method, _set(template, path, n), b"") for n in _int_extremes(field)]
        for field in template.DESCRIPTOR.fields:
            if field.type == FD.TYPE_STRING and not field.is_repeated:
                bad = _varint(field.number << 3 | 2) + b"\x04\xff\xfe\xc0\x80"
                cases.append((method, template, bad))
            elif field.message_type is not None and \
                    field.message_type.full_name == "google.protobuf.Timestamp":
                cases += [(method, _set(template, (field.name, "seconds"), s), b"")
                          for s in (INT64_MAX, -INT64_MAX - 1)]
        cases.append((method, template, b"\x0b" * 10_000 + b"\x0c" * 10_000))
    return cases


def _json_body(message: Message) -> dict:
    return json_format.MessageToDict(message)


def http_cases(valid: dict[str, list[Message]]) -> list[tuple[str, str, str, bytes | None]]:
    """(RPC, verb, target, body) of the HTTP sweep, for every route: a body's
    every top-level field given each hostile text (unpaired surrogates
    too), each wrong JSON type and numbers beyond 64 bits; a query's every
    parameter likewise; a path variable each hostile text; bodies nested
    100,000 deep, not UTF-8, or not an object."""
    cases: list[tuple[str, str, str, bytes | None]] = []
    for binding in BINDINGS:
        cases += [(binding.method, *case) for case in _route_cases(binding, valid)]
    return cases


def _quote(text: str) -> str:
    """``text`` percent-encoded for a URL, an unpaired surrogate as its
    (invalid) UTF-8 bytes."""
    return urllib.parse.quote(text, safe="", errors="surrogatepass")


def _route_cases(binding, valid: dict[str, list[Message]]) -> list[tuple[str, str, bytes | None]]:
    """(verb, target, body) of :func:`http_cases` for one route."""
    cases: list[tuple[str, str, bytes | None]] = []
    template = valid[binding.method][0]
    descriptor = binding.request_type.DESCRIPTOR
    texts = HOSTILE_TEXTS + HTTP_ONLY_TEXTS
    if binding.body == "*":
        base = _json_body(template)
        for field in descriptor.fields:
            values: list = list(WRONG_JSON)
            if field.type == FD.TYPE_STRING:
                values += texts
            if field.cpp_type in (FD.CPPTYPE_INT32, FD.CPPTYPE_INT64):
                values += [2**70, -(2**70), "99999999999999999999999", 1.5]
            for value in values:
                body = json.dumps({**base, field.json_name: value}).encode()
                cases.append(("POST", binding.path, body))
            cases.append(("POST", binding.path, json.dumps(base)[:-1].encode()
                          + f', "{field.json_name}": 1e400}}'.encode()))
        cases += [
            ("POST", binding.path, b'{"a": ' * DEEP + b"1" + b"}" * DEEP),
            ("POST", binding.path, b"[" * DEEP + b"]" * DEEP),
            ("POST", binding.path, b'{"duration": "\xff\xfe"}'),
            ("POST", binding.path, b"\xef\xbb\xbf{}"),
            ("POST", binding.path, b"null"),
        ]
        return cases
    path = binding.template
    variables = dict(binding.variables)
    for _, dotted in binding.variables:
        current = getattr(template, dotted)
        for text in texts[:4] + ["%ED%A0%80"]:
            quoted = text if text.startswith("%") else _quote(text)
            cases.append(("GET", path.replace("{" + dotted + "}", quoted), None))
        path = path.replace("{" + dotted + "}", _quote(current))
    query_fields = [f for f in descriptor.fields if f.name not in variables.values()]
    for field in query_fields or [None]:
        name = field.json_name if field is not None else "unknown"
        values = texts + ["%ED%A0%80", "[[[[", "99999999999999999999999", "-1", "1e400",
                          "true", "2026-99-99T00:00:00Z"]
        for value in values:
            quoted = value if value.startswith("%") else _quote(value)
            cases.append(("GET", f"{path}?{name}={quoted}", None))
    cases.append(("GET", f"{path}?pageToken={NESTED_TOKEN}&pageToken=x", None))
    return cases


def test_hostile_sweep_every_rpc_and_route(served, record_property):
    """Every RPC over gRPC and every route over HTTP, each field given each
    hostile value of its kind: every answer a documented non-INTERNAL status
    (gRPC: with duetime's details; HTTP: 200, 400, 404, 409 or 413 in the
    AIP-193 shape), health SERVING at every check while they run, and no
    NOT_SERVING, ledger failure or internal error in the server's log."""
    store, server = served
    valid = templates(server)
    grpc_work = grpc_cases(valid)
    http_work = http_cases(valid)
    channel = grpc.insecure_channel(server.address,
                                    options=[("grpc.max_receive_message_length", 64 << 20)])
    local = threading.local()

    def judge_grpc(case) -> str | None:
        method, request, extra = case
        try:
            answer = invoke(channel, method, request, (), extra)
        except grpc.RpcError as error:
            problem = problem_with_error(error, request.ByteSize() + len(extra))
        else:
            problem = None if extra else problem_with_answer(method, request, answer)
        return problem and f"gRPC {method.name} {problem}: {str(request)[:200]!r} + {extra[:20]!r}"

    def judge_http(case) -> str | None:
        _, verb, target, body = case
        if not hasattr(local, "conn"):
            local.conn = http.client.HTTPConnection("127.0.0.1", int(server.http_url.rsplit(
                ":", 1)[1]), timeout=TIMEOUT)
        try:
            local.conn.request(verb, target, body=body,
                               headers={"Content-Type": "application/json"})
            reply = local.conn.getresponse()
            status, data = reply.status, reply.read()
        except (OSError, http.client.HTTPException) as exc:
            local.conn.close()
            del local.conn
            return f"HTTP {verb} {target[:120]}: {exc!r}"
        if status == 200:
            return None
        try:
            error = json.loads(data)["error"]
        except (ValueError, KeyError, TypeError):
            return f"HTTP {verb} {target[:120]}: {status} without an AIP-193 body: {data[:200]!r}"
        if status not in (400, 404, 409, 413) or error["status"] in (
                "INTERNAL", "UNKNOWN", "UNAVAILABLE"):
            return f"HTTP {verb} {target[:120]} {(body or b'')[:120]!r}: {status} {error}"[:600]
        return None

    began = time.monotonic()
    with Watcher(server.address) as watcher, ThreadPoolExecutor(4) as pool:
        problems = [p for p in pool.map(judge_grpc, grpc_work) if p]
        problems += [p for p in pool.map(judge_http, http_work) if p]
    elapsed = time.monotonic() - began
    channel.close()
    sent = len(grpc_work) + len(http_work)
    per_face = Counter({"gRPC": len(grpc_work), "HTTP": len(http_work)})
    print(f"\nhostile input sweep ({store}): {sent} requests sent ({per_face['gRPC']} gRPC over "
          f"{len(METHODS)} RPCs, {per_face['HTTP']} HTTP over {len(BINDINGS)} routes) in "
          f"{elapsed:.1f} s; {watcher.checks} health checks, {len(watcher.bad)} not SERVING; "
          f"{len(problems)} bad answers")
    record_property(f"hostile_requests_{store}", sent)
    assert not problems, f"{len(problems)} bad answer(s):\n" + "\n".join(problems[:30])
    assert watcher.checks > 10 and watcher.bad == []
    assert log_problems(server) == []
    assert {m.name for m, _, _ in grpc_work} == {m.name for m in METHODS}
    assert {rpc for rpc, _, _, _ in http_work} == {b.method for b in BINDINGS}
    assert sent > 1000
    assert elapsed < 30, f"{sent} requests took {elapsed:.0f} s"
    response = server.stub.ComputeDueTime(zagreb_request(), timeout=TIMEOUT)
    assert response.due.ToJsonString() == "2026-12-02T15:00:00Z"


def test_both_stores_answer_bad_text_alike(tmp_path, pg_dsn):
    """The texts that reach a store (key prefix, namespace, page token,
    record id, idempotency key) are checked by the app before it: an app on
    SQLite and one on PostgreSQL give the same status, byte for byte, for
    each hostile value, and neither tells its ledger listener anything.
    (Unpaired surrogates cannot be in a protobuf message; the HTTP face
    refuses them in JSON, and the app on ``key_prefix``: see above.)"""
    reported: list = []
    apps = [build_app(store, Catalog.load(CALENDARS), on_ledger_unavailable=reported.append)
            for store in (SqliteLedger(tmp_path / "ledger.db"), PostgresLedger(pg_dsn))]
    texts = HOSTILE_TEXTS + ["", "ticket-", "%", "_", "'", "\\", "a" * 201]
    cases = [(rpc, field, text) for text in texts for rpc, field in [
        ("ListRecords", "key_prefix"), ("ListRecords", "namespace"),
        ("ListRecords", "page_token"), ("GetRecord", "record_id"),
        ("AnalyzeImpact", "namespace"), ("ComputeDueTime", "idempotency_key")]]
    received = datetime(2026, 11, 27, 15, tzinfo=timezone.utc)
    try:
        answered = []
        for app in apps:
            calls = unary_calls(app, CallLimits())
            statuses = []
            for rpc, field, text in cases:
                request = zagreb_request() if rpc == "ComputeDueTime" else \
                    getattr(pb, f"{rpc}Request")(**({"calendar": "hr-zagreb"}
                                                    if rpc == "AnalyzeImpact" else {}))
                setattr(request, field, text)
                try:
                    reply = calls[f"/duetime.v1.DueTimeService/{rpc}"](request, (), received)
                except Exception as exc:  # noqa: BLE001 - every answer is compared
                    statuses.append(status_of(exc))
                else:
                    statuses.append(reply.due if rpc == "ComputeDueTime" else rpc)
            answered.append(statuses)
        assert len(answered[0]) == len(cases) == 6 * len(texts) == 90
        assert answered[0] == answered[1]
        codes = Counter(code_pb2.Code.Name(s.code) for s in answered[0]
                        if isinstance(s, status_pb2.Status))
        assert set(codes) == {"INVALID_ARGUMENT"} and codes["INVALID_ARGUMENT"] >= 60, codes
        assert reported == []
    finally:
        for app in apps:
            app.close()


def test_a_long_request_line_in_several_reads_reaches_duetime(served):
    """A 100,000-character record id whose request line arrives in three
    reads is refused by duetime, naming the field, never by the HTTP
    parser's plain-text 400 (its buffer holds up to 128 KiB of request head)."""
    _, server = served
    port = int(server.http_url.rsplit(":", 1)[1])
    line = ("GET /v1/records/" + "x" * 100_000 + " HTTP/1.1\r\n").encode()
    with socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT) as sock:
        sock.sendall(line[:20_000])
        time.sleep(0.2)
        sock.sendall(line[20_000:])
        time.sleep(0.1)
        sock.sendall(f"Host: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n".encode())
        reply = b""
        while chunk := sock.recv(65536):
            reply += chunk
    head, _, body = reply.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 400 ")
    error = json.loads(body)["error"]
    assert (error["status"], error["message"]) == (
        "INVALID_ARGUMENT",
        "record_id: 100000 characters is not a record id (32 lower-case hex digits, as returned in record_id)")
