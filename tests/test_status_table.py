"""The one error model and its one status table (duetime.api.status): every
kind of refusal gets its gRPC code, reason and HTTP status from the same
table, for gRPC, the batch item results, HTTP and the bearer-token check;
mapping never logs, and an unexpected exception is logged once, with its
traceback, by the code that caught it. Also: each server's limits are its
own (two servers with different limits in one process)."""

from __future__ import annotations

import ast
import logging
from pathlib import Path

import anyio
import grpc
import httpx
import pytest
from duetime import app as app_module
from duetime.api import http
from duetime.api.calls import BudgetExceeded, CallLimits
from duetime.api.server import start_server
from duetime.api.status import (
    ERROR_DOMAIN,
    PRECONDITION_TYPE,
    TABLE,
    code_name,
    grpc_status,
    http_status_of,
    status_of,
)
from duetime.app import AlreadyExists, RecordNotFound, ShuttingDown
from duetime.compose import build_app
from duetime.auth import INVALID, MISSING, TokenInvalid, TokenMissing, TokenSet
from duetime.api.admission import InFlightBytesExhausted, TenantCallsExhausted
from duetime.core import ErrorKind, FailedPrecondition, FieldViolation, InvalidArgument, OutOfRange
from duetime.ledger import LedgerUnavailable, MemoryLedger
from duetime.v1 import duetime_pb2 as pb
from duetime.v1 import duetime_pb2_grpc as pb_grpc
from google.protobuf import json_format
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status
from server_process import zagreb_request

SERVICE = Path(__file__).resolve().parent.parent / "service" / "duetime"

# (refusal, gRPC code, reason, HTTP status, retryable)
KINDS = [
    (InvalidArgument.at("duration", "is not a duration"), "INVALID_ARGUMENT", "INVALID_ARGUMENT",
     400, False),
    (OutOfRange.at("start", "is after 9999"), "OUT_OF_RANGE", "OUT_OF_RANGE", 400, False),
    (FailedPrecondition([FieldViolation("event", "the clock is stopped")]), "FAILED_PRECONDITION",
     "CLOCK_EVENT_NOT_ALLOWED", 400, False),
    (AlreadyExists("ticket-1", "team-a"), "ALREADY_EXISTS", "IDEMPOTENCY_KEY_REUSED", 409, False),
    (RecordNotFound("0" * 32), "NOT_FOUND", "RECORD_NOT_FOUND", 404, False),
    (LedgerUnavailable("ledger /var/lib/duetime.db: disk I/O error"), "UNAVAILABLE",
     "LEDGER_UNAVAILABLE", 503, True),
    (ShuttingDown(), "UNAVAILABLE", "SHUTTING_DOWN", 503, True),
    (BudgetExceeded(0.5), "DEADLINE_EXCEEDED", "CALL_BUDGET_EXCEEDED", 504, True),
    (TokenMissing(), "UNAUTHENTICATED", "TOKEN_MISSING", 401, False),
    (TokenInvalid(), "UNAUTHENTICATED", "TOKEN_INVALID", 401, False),
    (http.RequestTooLarge(2000, True, 1000), "RESOURCE_EXHAUSTED", "REQUEST_TOO_LARGE", 413,
     False),
    (InFlightBytesExhausted(3000, 7000, 8000), "RESOURCE_EXHAUSTED", "IN_FLIGHT_BYTES_EXHAUSTED",
     429, True),
    (TenantCallsExhausted(4), "RESOURCE_EXHAUSTED", "TENANT_CALLS_EXHAUSTED", 429, True),
    (http.BodyTimeout(10, 5), "DEADLINE_EXCEEDED", "BODY_TIMEOUT", 504, False),
    (http.HeadTimeout(10), "DEADLINE_EXCEEDED", "HEAD_TIMEOUT", 504, False),
    (http.NoSuchPath("GET", "/v1/nothing"), "NOT_FOUND", "NO_SUCH_PATH", 404, False),
    (http.MethodNotAllowed("GET", "/v1/dueTimes:compute", "POST"), "UNIMPLEMENTED",
     "METHOD_NOT_ALLOWED", 405, False),
    (http.HttpError("GET /: bad"), "UNKNOWN", "HTTP_ERROR", 500, False),
    (RuntimeError("a bug; its text is not shown"), "INTERNAL", "INTERNAL", 500, False),
]


def unpacked(status: status_pb2.Status) -> dict:
    """The details of ``status`` by type name."""
    found = {}
    for detail in status.details:
        for kind in (error_details_pb2.BadRequest, error_details_pb2.PreconditionFailure,
                     error_details_pb2.ErrorInfo):
            message = kind()
            if detail.Unpack(message):
                found[kind.__name__] = message
    return found


def test_every_kind_has_a_row():
    assert set(TABLE) == set(ErrorKind)


@pytest.mark.parametrize("exc, code, reason, http_status, retryable", KINDS,
                         ids=[type(k[0]).__name__ + ":" + k[2] for k in KINDS])
def test_each_kind_of_refusal_from_the_one_table(exc, code, reason, http_status, retryable,
                                                 caplog):
    with caplog.at_level(logging.DEBUG):
        status = status_of(exc)
        assert grpc_status(exc).code.name == code
        assert (code_name(exc), http_status_of(exc)) == (code, http_status)
    assert not caplog.records, "mapping must not log"
    assert code_pb2.Code.Name(status.code) == code
    details = unpacked(status)
    info = details["ErrorInfo"]
    assert (info.reason, info.domain) == (reason, ERROR_DOMAIN)
    assert status.details[-1].Is(error_details_pb2.ErrorInfo.DESCRIPTOR)
    assert getattr(exc, "retryable", False) is retryable
    if code == "INTERNAL":
        assert status.message == "internal error"
    elif code == "FAILED_PRECONDITION":
        (violation,) = details["PreconditionFailure"].violations
        assert (violation.type, violation.subject) == (PRECONDITION_TYPE, "event")
    body = http.error_body(status, http_status_of(exc))["error"]
    assert (body["code"], body["status"]) == (http_status, code)


def test_texts_and_metadata_of_the_app_refusals():
    reused = status_of(AlreadyExists("ticket-1", "team-a"))
    assert reused.message == ("idempotency key 'ticket-1' was already used in namespace "
                              "'team-a' with a different request")
    assert [(v.field, v.description) for v in unpacked(reused)["BadRequest"].field_violations] \
        == [("idempotency_key", "was already used in namespace 'team-a' with a different "
                                "request; a new request needs a new key")]
    assert dict(unpacked(reused)["ErrorInfo"].metadata) == {"idempotency_key": "ticket-1",
                                                            "namespace": "team-a"}
    missing = status_of(RecordNotFound("abc"))
    assert dict(unpacked(missing)["ErrorInfo"].metadata) == {"record_id": "abc"}
    down = status_of(LedgerUnavailable("ledger /var/lib/duetime.db: disk I/O error"))
    assert down.message == "the ledger cannot be written or read; nothing was answered, " \
                           "retry later"
    over = status_of(BudgetExceeded(0.5))
    assert dict(unpacked(over)["ErrorInfo"].metadata) == {"call_budget_seconds": "0.5"}


def test_core_errors_carry_value_and_bound_and_no_transport_names():
    from duetime.core import errors

    error = InvalidArgument.at("items", "has 3 items; at most 2", value="3", bound="2")
    (violation,) = error.violations
    assert (violation.value, violation.bound) == ("3", "2")
    assert error.kind is ErrorKind.BAD_INPUT and not error.retryable
    assert not {kind.name for kind in ErrorKind} & set(code_pb2.Code.keys())
    for refusal in (errors.Refusal, InvalidArgument, OutOfRange, FailedPrecondition):
        assert not hasattr(refusal, "code")
    assert "import grpc" not in Path(errors.__file__).read_text()


def test_the_auth_refusals_are_built_by_the_table():
    for constant, refusal in ((MISSING, TokenMissing()), (INVALID, TokenInvalid())):
        assert constant.code == grpc.StatusCode.UNAUTHENTICATED
        sent = status_pb2.Status.FromString(dict(constant.trailing_metadata)[
            "grpc-status-details-bin"])
        assert sent == status_of(refusal)
        assert http_status_of(refusal) == 401


def test_the_interceptor_and_http_refuse_with_the_same_status(tmp_path):
    tokens = tmp_path / "tokens"
    tokens.write_text("right-token\n")
    running = start_server(MemoryLedger(), port=0, tokens=TokenSet(tokens), log_calls=False)
    try:
        with grpc.insecure_channel(f"127.0.0.1:{running.port}") as channel:
            stub = pb_grpc.DueTimeServiceStub(channel)
            with pytest.raises(grpc.RpcError) as missing:
                stub.ComputeDueTime(zagreb_request(), timeout=10)
            with pytest.raises(grpc.RpcError) as invalid:
                stub.ComputeDueTime(zagreb_request(), timeout=10,
                                    metadata=(("authorization", "Bearer wrong"),))
        assert rpc_status.from_call(missing.value) == status_of(TokenMissing())
        assert rpc_status.from_call(invalid.value) == status_of(TokenInvalid())
        answered = post(http.create_app(running.app, TokenSet(tokens), log_calls=False),
                        "/v1/dueTimes:compute", zagreb_request())
        assert answered.status_code == 401
        assert from_body(answered) == status_of(TokenMissing(http=True))  # in HTTP's words
    finally:
        running.stop(grace=0)


def post(asgi, path: str, request) -> httpx.Response:
    async def send() -> httpx.Response:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=asgi),
                                     base_url="http://duetime.test") as client:
            return await client.post(path, content=json_format.MessageToJson(request),
                                     headers={"Content-Type": "application/json"})

    return anyio.run(send)


def from_body(response: httpx.Response) -> status_pb2.Status:
    error = response.json()["error"]
    status = status_pb2.Status(code=code_pb2.Code.Value(error["status"]), message=error["message"])
    for detail in error["details"]:
        json_format.ParseDict(detail, status.details.add())
    return status


def broken_batch(monkeypatch) -> pb.BatchComputeDueTimesRequest:
    """A batch of three items whose second fails with an unexpected exception
    inside the app (the batch's compute function raises for it)."""
    real = app_module.answers.due_time

    def compute(start, duration, *args, **kwargs):
        if duration == "2bd":
            raise ZeroDivisionError("an unexpected failure in the batch item")
        return real(start, duration, *args, **kwargs)

    monkeypatch.setattr(app_module.answers, "due_time", compute)
    items = [zagreb_request(), zagreb_request(), zagreb_request()]
    items[1].duration = "2bd"
    return pb.BatchComputeDueTimesRequest(items=items)


def assert_logged_with_traceback(caplog) -> None:
    (record,) = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert record.getMessage() == "internal error"
    assert record.exc_info is not None and record.exc_info[0] is ZeroDivisionError
    formatted = logging.Formatter().formatException(record.exc_info)
    assert "in compute" in formatted and "NoneType: None" not in formatted


def test_a_batch_items_unexpected_exception_is_logged_with_its_traceback_grpc(monkeypatch,
                                                                               caplog):
    request = broken_batch(monkeypatch)
    running = start_server(MemoryLedger(), port=0, log_calls=False)
    try:
        with grpc.insecure_channel(f"127.0.0.1:{running.port}") as channel, \
                caplog.at_level(logging.INFO):
            reply = pb_grpc.DueTimeServiceStub(channel).BatchComputeDueTimes(request, timeout=10)
    finally:
        running.stop(grace=0)
    assert [r.WhichOneof("result") for r in reply.results] == ["response", "error", "response"]
    assert reply.results[1].error == status_of(RuntimeError())
    assert_logged_with_traceback(caplog)


def test_a_batch_items_unexpected_exception_is_logged_with_its_traceback_http(monkeypatch,
                                                                               caplog):
    request = broken_batch(monkeypatch)
    app = build_app(MemoryLedger())
    try:
        with caplog.at_level(logging.INFO):
            response = post(http.create_app(app, log_calls=False), "/v1/dueTimes:batchCompute",
                            request)
    finally:
        app.close()
    assert response.status_code == 200, response.text
    assert [sorted(r) for r in response.json()["results"]] == [["response"], ["error"],
                                                               ["response"]]
    assert response.json()["results"][1]["error"]["code"] == code_pb2.INTERNAL
    assert_logged_with_traceback(caplog)


def test_two_servers_in_one_process_keep_their_own_limits():
    small = start_server(MemoryLedger(), port=0, max_batch_items=2, call_budget=0,
                         log_calls=False)
    large = start_server(MemoryLedger(), port=0, max_batch_items=5, call_budget=30,
                         log_calls=False)
    batch = pb.BatchComputeDueTimesRequest(items=[zagreb_request()] * 3)
    try:
        assert (small.limits.max_batch_items, small.limits.budget.seconds) == (2, 0)
        assert (large.limits.max_batch_items, large.limits.budget.seconds) == (5, 30)
        for running, refused in ((small, True), (large, False), (small, True)):
            with grpc.insecure_channel(f"127.0.0.1:{running.port}") as channel:
                stub = pb_grpc.DueTimeServiceStub(channel)
                if refused:
                    with pytest.raises(grpc.RpcError) as caught:
                        stub.BatchComputeDueTimes(batch, timeout=10)
                    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
                    assert "items: has 3 items; at most 2" in caught.value.details()
                else:
                    assert len(stub.BatchComputeDueTimes(batch, timeout=10).results) == 3
            served = post(http.create_app(running.app, log_calls=False, limits=running.limits),
                          "/v1/dueTimes:batchCompute", batch)
            assert served.status_code == (400 if refused else 200), served.text
    finally:
        small.stop(grace=0)
        large.stop(grace=0)
    assert CallLimits().max_batch_items == app_module.MAX_BATCH_ITEMS


def _imports(path: Path) -> set[str]:
    """Every module ``path`` imports, at any depth of its code (lazy ones too)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def test_http_and_server_and_auth_and_config_do_not_import_each_other_both_ways():
    assert "duetime.api.server" not in _imports(SERVICE / "api" / "http.py")
    assert "duetime.auth" not in _imports(SERVICE / "config.py")
    for module in ("status.py", "calls.py"):
        assert not {"duetime.api.server", "duetime.api.http", "duetime.auth"} & \
            _imports(SERVICE / "api" / module)


def test_core_errors_name_the_value_and_the_bound_they_broke():
    from duetime.core import get_zone, parse_duration

    with pytest.raises(OutOfRange) as far:
        parse_duration("100001bd", "duration")
    assert (far.value.violations[0].value, far.value.violations[0].bound) == ("100001bd",
                                                                               "100000bd")
    with pytest.raises(InvalidArgument) as zone:
        get_zone("Europe/Atlantis", "calendar.time_zone")
    assert zone.value.violations[0][:3] == ("calendar.time_zone", "unknown IANA time zone "
                                            "'Europe/Atlantis' (e.g. 'Europe/Zagreb', 'UTC')",
                                            "Europe/Atlantis")
