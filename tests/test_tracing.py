"""OpenTelemetry traces: one span per gRPC and HTTP call, with the RPC
semantic conventions' attributes and duetime's namespace and record id; off
(no tracer, no OpenTelemetry import) without the OTEL_* variables."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import anyio
import grpc
import httpx
import pytest
from duetime.api import http, tracing
from duetime.api.observe import CallObserver
from duetime.api.server import start_server
from duetime.api.tracing import TracingError, call_tracer, exporter_names
from duetime.compose import build_app
from duetime.ledger import MemoryLedger
from duetime.v1 import duetime_pb2 as pb
from duetime.v1 import duetime_pb2_grpc as pb_grpc
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode
from server_process import zagreb_request


@pytest.fixture
def clean_env(monkeypatch):
    """No OTEL_* variable from the environment the tests run in."""
    for name in list(os.environ):
        if name.startswith("OTEL_"):
            monkeypatch.delenv(name)
    return monkeypatch


@pytest.fixture
def exported(clean_env):
    """OTEL_TRACES_EXPORTER=memory, the exporter being the SDK's in-memory one."""
    exporter = InMemorySpanExporter()
    clean_env.setenv("OTEL_TRACES_EXPORTER", "memory")
    clean_env.setenv("OTEL_BSP_SCHEDULE_DELAY", "10")
    clean_env.setattr(tracing, "span_exporter", lambda name, environ: exporter)
    return exporter


def spans_of(exporter: InMemorySpanExporter, count: int) -> list:
    """The first ``count`` spans exported (waiting for the batch processor)."""
    for _ in range(500):
        spans = exporter.get_finished_spans()
        if len(spans) >= count:
            return list(spans)
        time.sleep(0.01)
    raise AssertionError(f"{len(exporter.get_finished_spans())} spans exported, not {count}")


def test_grpc_calls_answered_and_refused_each_have_one_span(exported):
    server = start_server(MemoryLedger(), port=0, log_calls=False)
    try:
        with grpc.insecure_channel(f"127.0.0.1:{server.port}") as channel:
            stub = pb_grpc.DueTimeServiceStub(channel)
            answer = stub.ComputeDueTime(zagreb_request("trace/1"), timeout=10,
                                         metadata=(("x-duetime-namespace", "team-a"),))
            bad = zagreb_request()
            bad.duration = "1.5bd"
            with pytest.raises(grpc.RpcError):
                stub.ComputeDueTime(bad, timeout=10)
        ok, refused = sorted(spans_of(exported, 2), key=lambda s: s.start_time)
    finally:
        server.stop(0)
    assert (ok.name, ok.kind, ok.status.status_code) == (
        "duetime.v1.DueTimeService/ComputeDueTime", SpanKind.SERVER, StatusCode.UNSET)
    assert dict(ok.attributes) == {
        "rpc.system": "grpc", "rpc.service": "duetime.v1.DueTimeService",
        "rpc.method": "ComputeDueTime", "rpc.grpc.status_code": 0,
        "duetime.namespace": "team-a", "duetime.record_id": answer.record_id}
    assert (refused.name, refused.status.status_code) == (
        "duetime.v1.DueTimeService/ComputeDueTime", StatusCode.UNSET)
    assert dict(refused.attributes) == {
        "rpc.system": "grpc", "rpc.service": "duetime.v1.DueTimeService",
        "rpc.method": "ComputeDueTime", "rpc.grpc.status_code": 3,
        "error.type": "INVALID_ARGUMENT", "duetime.namespace": ""}
    assert 0 < ok.end_time - ok.start_time < 10**10
    assert ok.resource.attributes["service.name"] == "duetime"


def test_an_http_call_has_one_span(exported):
    app = http.create_app(build_app(MemoryLedger()), log_calls=False)

    async def post(body: dict, headers: dict) -> httpx.Response:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app),
                                     base_url="http://duetime.test") as client:
            return await client.post("/v1/dueTimes:compute", content=json.dumps(body),
                                     headers={"Content-Type": "application/json", **headers})

    answered = anyio.run(post, {"start": "2026-11-27T16:00Z", "duration": "2bd"},
                         {"x-duetime-namespace": "team-b"})
    refused = anyio.run(post, {"start": "2026-11-27T16:00Z", "duration": "1.5bd"}, {})
    assert (answered.status_code, refused.status_code) == (200, 400)
    ok, bad = sorted(spans_of(exported, 2), key=lambda s: s.start_time)
    assert (ok.name, ok.kind, ok.status.status_code) == (
        "POST /v1/dueTimes:compute", SpanKind.SERVER, StatusCode.UNSET)
    assert dict(ok.attributes) == {
        "http.request.method": "POST", "http.route": "/v1/dueTimes:compute",
        "http.response.status_code": 200, "rpc.service": "duetime.v1.DueTimeService",
        "rpc.method": "ComputeDueTime", "duetime.namespace": "team-b",
        "duetime.record_id": answered.json()["recordId"]}
    assert dict(bad.attributes) == {
        "http.request.method": "POST", "http.route": "/v1/dueTimes:compute",
        "http.response.status_code": 400, "rpc.service": "duetime.v1.DueTimeService",
        "rpc.method": "ComputeDueTime", "error.type": "INVALID_ARGUMENT",
        "duetime.namespace": ""}


def test_a_server_error_marks_the_span_as_an_error(exported):
    tracer = call_tracer()
    tracer.grpc_call("/duetime.v1.DueTimeService/GetRecord", "UNAVAILABLE", 0.002, "", "")
    tracer.http_call("/duetime.v1.DueTimeService/GetRecord", "GET", "/v1/records/{record_id}",
                     503, "UNAVAILABLE", 0.002, "", "")
    grpc_span, http_span = spans_of(exported, 2)
    assert grpc_span.status.status_code is http_span.status.status_code is StatusCode.ERROR
    assert (grpc_span.attributes["rpc.grpc.status_code"], grpc_span.attributes["error.type"]) \
        == (14, "UNAVAILABLE")
    assert http_span.name == "GET /v1/records/{record_id}"


def test_without_otel_variables_no_tracer_and_no_opentelemetry(clean_env):
    assert call_tracer() is None
    assert CallObserver().tracer is None
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    code = ("import sys\n"
            "from duetime.api import http, server\n"
            "from duetime.api.observe import CallObserver\n"
            "from duetime.compose import build_app\n"
            "from duetime.ledger import MemoryLedger\n"
            "assert CallObserver().tracer is None\n"
            "http.create_app(build_app(MemoryLedger()))\n"
            "print(sorted(m for m in sys.modules if m.startswith('opentelemetry')))\n")
    shown = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                           text=True, timeout=60)
    assert (shown.returncode, shown.stdout) == (0, "[]\n"), shown.stderr


@pytest.mark.parametrize("environ, names", [
    ({}, []),
    ({"OTEL_SERVICE_NAME": "x", "OTEL_TRACES_SAMPLER": "always_on"}, []),
    ({"OTEL_TRACES_EXPORTER": "otlp"}, ["otlp"]),
    ({"OTEL_TRACES_EXPORTER": " OTLP , console "}, ["otlp", "console"]),
    ({"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"}, []),
    ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"}, ["otlp"]),
    ({"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://c:4318/v1/traces"}, ["otlp"]),
    ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_SDK_DISABLED": "true"}, []),
    ({"OTEL_TRACES_EXPORTER": "console", "OTEL_SDK_DISABLED": "false"}, ["console"]),
])
def test_which_variables_turn_tracing_on(environ, names):
    assert exporter_names(environ) == names


def test_an_otlp_endpoint_gives_the_otlp_http_exporter(clean_env):
    clean_env.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318")
    clean_env.setenv("OTEL_SERVICE_NAME", "duetime-eu")
    tracer = call_tracer()
    try:
        (processor,) = tracer.provider._active_span_processor._span_processors
        exporter = processor._batch_processor._exporter
        assert type(exporter).__module__ == "opentelemetry.exporter.otlp.proto.http.trace_exporter"
        assert tracer.provider.resource.attributes["service.name"] == "duetime-eu"
    finally:
        tracer.provider.shutdown()


@pytest.mark.parametrize("environ, message", [
    ({"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"},
     "OTEL_TRACES_EXPORTER: 'otlp' needs opentelemetry-exporter-otlp-proto-grpc; install it "
     "(pip install 'duetime[otel]' brings OTLP over http/protobuf), or set "
     "OTEL_TRACES_EXPORTER=none"),
    ({"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/json"},
     "OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' is not a protocol duetime sends traces with; "
     "use http/protobuf or grpc"),
    ({"OTEL_TRACES_EXPORTER": "zipkin"},
     "OTEL_TRACES_EXPORTER: 'zipkin' needs a package providing the 'zipkin' span exporter; "
     "install it (pip install 'duetime[otel]' brings OTLP over http/protobuf), or set "
     "OTEL_TRACES_EXPORTER=none"),
])
def test_traces_that_cannot_be_sent_are_refused_saying_what_to_do(environ, message):
    with pytest.raises(TracingError) as refused:
        call_tracer(environ)
    assert str(refused.value) == message
