"""OpenTelemetry traces: one span per call, off unless the ``OTEL_*``
variables ask for them.

Tracing is on when the environment configures an exporter, as the
OpenTelemetry SDK's environment variables say (docs/operations.md, "Traces"):

- ``OTEL_SDK_DISABLED=true``: off, whatever else is set;
- ``OTEL_TRACES_EXPORTER``: a comma-separated list of ``otlp``, ``console``
  (spans as JSON on stdout) or any exporter installed under the entry point
  group ``opentelemetry_traces_exporter``; ``none``: off;
- without it, ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`` or
  ``OTEL_EXPORTER_OTLP_ENDPOINT``: ``otlp``;
- nothing of these: off (the specification's default exporter, ``otlp``, is
  not assumed: a server with no collector configured sends nothing).

``otlp`` speaks ``OTEL_EXPORTER_OTLP_TRACES_PROTOCOL`` (else
``OTEL_EXPORTER_OTLP_PROTOCOL``, else ``http/protobuf``); the exporter reads
its endpoint, headers, timeout and TLS from the other
``OTEL_EXPORTER_OTLP_*`` variables, the SDK its sampler
(``OTEL_TRACES_SAMPLER``), batching (``OTEL_BSP_*``) and resource
(``OTEL_SERVICE_NAME``, default ``duetime``; ``OTEL_RESOURCE_ATTRIBUTES``).
Tracing needs ``opentelemetry-sdk`` (``pip install 'duetime[otel]'``), which
is imported only when tracing is on: without the ``OTEL_*`` variables duetime
runs without it, and each call pays one ``None`` check.

Each call's span is a SERVER span, made when the call has finished (so its
start is the call's start and it ends with the call):

- name: ``duetime.v1.DueTimeService/ComputeDueTime`` (gRPC),
  ``POST /v1/dueTimes:compute`` (HTTP: the verb and the route);
- ``rpc.system`` ``grpc`` and ``rpc.grpc.status_code`` (the status code's
  number, 0 for OK): gRPC only;
- ``rpc.service`` (``duetime.v1.DueTimeService``) and ``rpc.method``
  (``ComputeDueTime``): both, over HTTP those of the RPC the route answers;
- ``http.request.method``, ``http.route`` and ``http.response.status_code``:
  HTTP only;
- ``error.type``: the status code's name, when it is not OK;
- ``duetime.namespace``: the caller's namespace (``""``: the default one);
- ``duetime.record_id``: the answer's record id, when it has one.

The span's status is ERROR for the codes that say the server failed
(UNKNOWN, DEADLINE_EXCEEDED, UNIMPLEMENTED, INTERNAL, UNAVAILABLE, DATA_LOSS;
over HTTP a 5xx), as the semantic conventions for RPC and HTTP servers say;
a refused request (INVALID_ARGUMENT …) is the caller's error and leaves it unset.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from importlib.metadata import entry_points
from typing import Any

import grpc

from duetime.config import ConfigError

EXPORTER_GROUP = "opentelemetry_traces_exporter"
"""The entry point group OpenTelemetry's Python exporters are installed under."""
SERVICE_NAME = "duetime"
"""The resource's ``service.name`` unless ``OTEL_SERVICE_NAME`` or
``OTEL_RESOURCE_ATTRIBUTES`` names one."""
_SERVER_ERRORS = frozenset({"UNKNOWN", "DEADLINE_EXCEEDED", "UNIMPLEMENTED", "INTERNAL",
                            "UNAVAILABLE", "DATA_LOSS"})
_CODE_NUMBERS = {code.name: code.value[0] for code in grpc.StatusCode}


class TracingError(ConfigError):
    """``OTEL_*`` variables that ask for traces duetime cannot send:
    ``setting`` names the variable, the message says what to install or set
    (``duetime serve`` prints it and exits 2)."""


def exporter_names(environ: Mapping[str, str]) -> list[str]:
    """The exporters ``environ`` configures (see the module docstring); an
    empty list when tracing is off."""
    if environ.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return []
    given = environ.get("OTEL_TRACES_EXPORTER", "").strip()
    if given:
        names = [name.strip().lower() for name in given.split(",") if name.strip()]
        return [] if "none" in names else names
    if environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "").strip() \
            or environ.get("OTEL_EXPORTER_OTLP_ENDPOINT", "").strip():
        return ["otlp"]
    return []


def _otlp_entry_point(environ: Mapping[str, str]) -> str:
    protocol = (environ.get("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "").strip()
                or environ.get("OTEL_EXPORTER_OTLP_PROTOCOL", "").strip() or "http/protobuf")
    if protocol == "http/protobuf":
        return "otlp_proto_http"
    if protocol == "grpc":
        return "otlp_proto_grpc"
    raise TracingError("OTEL_EXPORTER_OTLP_PROTOCOL", f"{protocol!r} is not a protocol "
                       "duetime sends traces with; use http/protobuf or grpc")


_PACKAGES = {"otlp_proto_http": "opentelemetry-exporter-otlp-proto-http",
             "otlp_proto_grpc": "opentelemetry-exporter-otlp-proto-grpc"}


def span_exporter(name: str, environ: Mapping[str, str]) -> Any:
    """A new span exporter for ``name`` (``otlp``, ``console`` or an
    installed one), configured by its own ``OTEL_*`` variables. Raises
    TracingError when no installed package provides it."""
    entry = _otlp_entry_point(environ) if name == "otlp" else name
    found = entry_points(group=EXPORTER_GROUP, name=entry)
    if not found:
        package = _PACKAGES.get(entry, f"a package providing the {entry!r} span exporter")
        raise TracingError("OTEL_TRACES_EXPORTER", f"{name!r} needs {package}; install it "
                           "(pip install 'duetime[otel]' brings OTLP over http/protobuf), or "
                           "set OTEL_TRACES_EXPORTER=none")
    return next(iter(found)).load()()


class CallTracer:
    """Makes one span per finished call with ``provider`` (an OpenTelemetry
    SDK ``TracerProvider``). Thread-safe."""

    def __init__(self, provider: Any):
        from opentelemetry.trace import SpanKind, Status, StatusCode

        self.provider = provider
        self._tracer = provider.get_tracer("duetime")
        self._server = SpanKind.SERVER
        self._error = Status(StatusCode.ERROR)

    def _span(self, name: str, seconds: float, attributes: dict[str, Any], failed: bool) -> None:
        end = time.time_ns()
        span = self._tracer.start_span(name, kind=self._server, attributes=attributes,
                                       start_time=end - int(seconds * 1e9))
        if failed:
            span.set_status(self._error)
        span.end(end_time=end)

    def grpc_call(self, method: str, code: str, seconds: float, record_id: str,
                  namespace: str) -> None:
        """The span of a gRPC call of ``method`` (``/package.Service/Method``)
        that ended with status ``code`` (its name) after ``seconds``."""
        service, _, rpc = method.lstrip("/").partition("/")
        attributes: dict[str, Any] = {
            "rpc.system": "grpc", "rpc.service": service, "rpc.method": rpc,
            "rpc.grpc.status_code": _CODE_NUMBERS.get(code, 2)}
        self._common(attributes, code, record_id, namespace)
        self._span(f"{service}/{rpc}", seconds, attributes, code in _SERVER_ERRORS)

    def http_call(self, method: str, verb: str, route: str, http_status: int, code: str,
                  seconds: float, record_id: str, namespace: str) -> None:
        """The span of an HTTP call of the RPC ``method`` through the route
        ``verb route`` answered ``http_status`` (``code``: its status code's
        name) after ``seconds``."""
        service, _, rpc = method.lstrip("/").partition("/")
        attributes: dict[str, Any] = {
            "http.request.method": verb, "http.route": route,
            "http.response.status_code": http_status, "rpc.service": service, "rpc.method": rpc}
        self._common(attributes, code, record_id, namespace)
        self._span(f"{verb} {route}", seconds, attributes, http_status >= 500)

    @staticmethod
    def _common(attributes: dict[str, Any], code: str, record_id: str, namespace: str) -> None:
        if code != "OK":
            attributes["error.type"] = code
        attributes["duetime.namespace"] = namespace
        if record_id:
            attributes["duetime.record_id"] = record_id


def call_tracer(environ: Mapping[str, str] | None = None) -> CallTracer | None:
    """The tracer the ``OTEL_*`` variables of ``environ`` (None: the
    process's) configure, or None when tracing is off (see the module
    docstring). Each call makes its own ``TracerProvider`` (nothing
    process-wide is set), exporting through a ``BatchSpanProcessor`` per
    exporter. Raises TracingError when tracing is asked for and cannot be
    done (the SDK or an exporter not installed, an unknown protocol)."""
    environ = os.environ if environ is None else environ
    names = exporter_names(environ)
    if not names:
        return None
    try:
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor
    except ImportError:
        raise TracingError(
            "OTEL_TRACES_EXPORTER", f"traces are asked for ({', '.join(names)}), but "
            "opentelemetry-sdk is not installed: pip install 'duetime[otel]', or set "
            "OTEL_TRACES_EXPORTER=none") from None
    exporters = [span_exporter(name, environ) for name in names]
    resource = Resource.create()
    if str(resource.attributes.get("service.name", "")).startswith("unknown_service"):
        resource = resource.merge(Resource({"service.name": SERVICE_NAME}))
    provider = TracerProvider(resource=resource)
    for exporter in exporters:
        provider.add_span_processor(BatchSpanProcessor(exporter))
    return CallTracer(provider)
