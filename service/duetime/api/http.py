"""The HTTP/JSON face of duetime: every ``duetime.v1`` RPC with a
``google.api.http`` option, as JSON over HTTP (AIP-127).

Routes are built at import time from the proto itself (:data:`BINDINGS`, read
from each method descriptor's ``google.api.http`` option), so
``proto/duetime/v1/duetime.proto`` is the one source of paths and verbs;
``StreamComputeDueTimes`` has no such option and is not served here.

A call is answered by the very servicer method that answers it over gRPC
(:class:`~duetime.api.server.DueTimeServicer`,
:class:`~duetime.api.server.CalendarServicer`) over the same
:class:`~duetime.app.DueTimeApp`, so it is validated, computed and recorded
exactly like a gRPC call, idempotency keys included (the same key gives the
same record over HTTP and gRPC). Per request:

1. the body (rules with ``body: "*"``) is read, at most
   :data:`~duetime.api.server.MAX_REQUEST_BYTES` bytes (else 413), and parsed
   with :func:`google.protobuf.json_format.Parse` (the protobuf JSON mapping;
   an unknown field or bad JSON is 400 INVALID_ARGUMENT on ``body``, saying
   ``field calendar.holidays.date: must be a JSON string`` when a field is
   named, else ``is not valid JSON for duetime.v1.…: <reason>``);
2. path variables (``/v1/records/{record_id}``, URL-decoded) and, for rules
   without a whole-message body, query parameters (``?keyPrefix=t-&pageSize=10``,
   by JSON or proto field name, dotted for nested fields, repeated for
   repeated fields; an unknown one is 400 INVALID_ARGUMENT naming it) fill
   the other fields; a rule with ``body: "*"`` takes no query parameter (any
   is 400 INVALID_ARGUMENT naming it, checked first);
3. the servicer method runs in a worker thread (at most
   :data:`~duetime.api.server.MAX_WORKERS` at a time), the HTTP request
   headers standing in for gRPC metadata: the idempotency namespace is the
   ``x-duetime-namespace`` header, read by the same
   :func:`~duetime.api.server.namespace_of`;
4. the answer is :func:`google.protobuf.json_format.MessageToJson` of the
   response message, ``200 application/json``.

Errors are AIP-193 JSON, built from the same ``google.rpc.Status`` the gRPC
side sends (:func:`~duetime.api.server.status_of`)::

    {"error": {"code": 400, "message": "duration: ...", "status": "INVALID_ARGUMENT",
               "details": [{"@type": "type.googleapis.com/google.rpc.BadRequest",
                            "fieldViolations": [{"field": "duration", "description": "..."}]},
                           {"@type": "type.googleapis.com/google.rpc.ErrorInfo", ...}]}}

with the HTTP status of the standard gRPC → HTTP mapping (:data:`HTTP_STATUS`).
A path no rule matches is 404 NOT_FOUND, a known path with another verb 405
(status UNIMPLEMENTED, with an ``Allow`` header), a body over the limit 413
(status RESOURCE_EXHAUSTED), all in the same shape.

With bearer tokens (``--auth-tokens``, a :class:`duetime.auth.TokenSet`),
every API call must carry the header ``Authorization: Bearer <token>`` with
one of the same tokens the gRPC side accepts, checked by the same code
(:func:`duetime.auth.bearer_token`, :meth:`~duetime.auth.TokenSet.accepts`);
else 401 UNAUTHENTICATED with the gRPC side's status (reason TOKEN_MISSING or
TOKEN_INVALID). The playground's static files (:data:`PLAYGROUND_DIR`, served
at ``/`` when the directory exists) stay public.

Each API call is counted and timed in the metrics as a gRPC call is (method
``/duetime.v1.DueTimeService/ComputeDueTime`` …, code the status name) and
logged as one request line (:func:`duetime.logs.log_call`, peer
``http:HOST:PORT``).

:func:`start_http_server` runs uvicorn in a background thread of the serving
process, over TLS when the gRPC side has it (the same certificate, key and
client CA). Each call is logged once, by duetime's own call log line (as on
gRPC); uvicorn's access log is off.
"""

from __future__ import annotations

import json
import logging
import re
import socket
import ssl
import threading
import time
from collections import namedtuple
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import anyio
import anyio.to_thread
import uvicorn
from google.api import annotations_pb2, http_pb2
from google.protobuf import descriptor as _descriptor
from google.protobuf import json_format
from google.protobuf.message import Message
from google.rpc import code_pb2, error_details_pb2, status_pb2
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.staticfiles import StaticFiles

from duetime.api.server import (
    CALENDAR_SERVICE_NAME,
    ERROR_DOMAIN,
    GRACE_SECONDS,
    MAX_REQUEST_BYTES,
    MAX_WORKERS,
    SERVICE_NAME,
    CalendarServicer,
    DueTimeServicer,
    clip,
    clip_message,
    status_of,
)
from duetime.app import NAMESPACE_METADATA, DueTimeApp
from duetime.auth import INVALID, MISSING, TokenSet, bearer_token
from duetime.core import InvalidArgument
from duetime.logs import log_call
from duetime.metrics import Metrics
from duetime.v1 import duetime_pb2 as pb

log = logging.getLogger("duetime.http")

PLAYGROUND_DIR = Path(__file__).resolve().parent / "playground"
"""The browser playground's static files, served at ``/`` (``index.html``)
when the directory exists."""

HTTP_STATUS = {
    code_pb2.OK: 200,
    code_pb2.CANCELLED: 499,
    code_pb2.UNKNOWN: 500,
    code_pb2.INVALID_ARGUMENT: 400,
    code_pb2.DEADLINE_EXCEEDED: 504,
    code_pb2.NOT_FOUND: 404,
    code_pb2.ALREADY_EXISTS: 409,
    code_pb2.PERMISSION_DENIED: 403,
    code_pb2.UNAUTHENTICATED: 401,
    code_pb2.RESOURCE_EXHAUSTED: 429,
    code_pb2.FAILED_PRECONDITION: 400,
    code_pb2.ABORTED: 409,
    code_pb2.OUT_OF_RANGE: 400,
    code_pb2.UNIMPLEMENTED: 501,
    code_pb2.INTERNAL: 500,
    code_pb2.UNAVAILABLE: 503,
    code_pb2.DATA_LOSS: 500,
}
"""HTTP status of each ``google.rpc.Code`` (the standard mapping of
``google/rpc/code.proto``, as in AIP-193)."""

JSON = "application/json"

_WELL_KNOWN_SCALARS = frozenset({
    "google.protobuf.Timestamp", "google.protobuf.Duration", "google.protobuf.FieldMask",
    "google.protobuf.StringValue", "google.protobuf.BytesValue", "google.protobuf.BoolValue",
    "google.protobuf.Int32Value", "google.protobuf.Int64Value", "google.protobuf.UInt32Value",
    "google.protobuf.UInt64Value", "google.protobuf.FloatValue", "google.protobuf.DoubleValue",
})
"""Message types a path variable or query parameter may set: those written as
one JSON string or number in the protobuf JSON mapping."""


# ---------------------------------------------------------------------------
# the routes, from the proto's google.api.http options


@dataclass(frozen=True)
class HttpBinding:
    """One HTTP rule of one RPC.

    ``template`` is the rule's path as written in the proto
    (``/v1/records/{record_id}``); ``path`` the same path for the router, each
    variable renamed ``v0``, ``v1`` … (``/v1/records/{v0}``); ``variables``
    pairs those names with the request fields they set (``("v0",
    "record_id")``). ``body`` is the rule's body: ``"*"`` (the whole request),
    a field name, or ``""`` (none: every field not in the path is a query
    parameter).
    """

    service: str
    method: str
    verb: str
    template: str
    path: str
    variables: tuple[tuple[str, str], ...]
    body: str
    request_type: type[Message]
    response_type: type[Message]


_VARIABLE = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)(?:=\*)?\}")
_LITERAL = re.compile(r"[A-Za-z0-9._~!$&'()+,;=@%-]+")


def _router_path(template: str) -> tuple[str, tuple[tuple[str, str], ...]]:
    """``template`` (an HttpRule path) as a router path and its variables.

    Supports literal segments, single-segment variables (``{field}`` or
    ``{field=*}``) and a trailing custom verb (``:compute``); anything else
    (``**``, multi-segment variables) raises ValueError.
    """
    if not template.startswith("/"):
        raise ValueError(f"http rule path {template!r} does not start with '/'")
    segments = template[1:].split("/")
    segments[-1], colon, verb = segments[-1].partition(":")
    if colon and not _LITERAL.fullmatch(verb):
        raise ValueError(f"http rule path {template!r}: bad custom verb {verb!r}")
    parts, variables = [], []
    for segment in segments:
        if match := _VARIABLE.fullmatch(segment):
            name = f"v{len(variables)}"
            variables.append((name, match.group(1)))
            parts.append("{" + name + "}")
        elif _LITERAL.fullmatch(segment):
            parts.append(segment)
        else:
            raise ValueError(f"http rule path {template!r}: segment {segment!r} is not supported "
                             "(only literals and single-segment {field} variables are)")
    return "/" + "/".join(parts) + (":" + verb if colon else ""), tuple(variables)


def _rules(rule: http_pb2.HttpRule) -> Iterable[http_pb2.HttpRule]:
    yield rule
    yield from rule.additional_bindings


def bindings(file: _descriptor.FileDescriptor = pb.DESCRIPTOR) -> list[HttpBinding]:
    """Every HTTP rule of every RPC in ``file``, in the proto's order.

    An RPC without a ``google.api.http`` option (StreamComputeDueTimes) has
    none. Raises ValueError on a rule this module cannot serve: a streaming
    RPC, a custom verb kind, an unsupported path template.
    """
    found = []
    for service in file.services_by_name.values():
        for method in service.methods:
            options = method.GetOptions()
            if not options.HasExtension(annotations_pb2.http):
                continue
            if method.client_streaming or method.server_streaming:
                raise ValueError(f"{method.full_name} streams; it cannot have an http rule")
            request_type = _message_class(method.input_type)
            response_type = _message_class(method.output_type)
            for rule in _rules(options.Extensions[annotations_pb2.http]):
                kind = rule.WhichOneof("pattern")
                if kind not in ("get", "put", "post", "delete", "patch"):
                    raise ValueError(f"{method.full_name}: http rule kind {kind!r} is not supported")
                template = getattr(rule, kind)
                path, variables = _router_path(template)
                found.append(HttpBinding(service.full_name, method.name, kind.upper(), template,
                                         path, variables, rule.body, request_type,
                                         response_type))
    return found


def _message_class(descriptor: _descriptor.Descriptor) -> type[Message]:
    return getattr(pb, descriptor.name)


BINDINGS: list[HttpBinding] = bindings()
"""The HTTP rules of duetime.v1, read from the proto when this module is imported."""


# ---------------------------------------------------------------------------
# errors as AIP-193 JSON


def error_body(status: status_pb2.Status, http_status: int | None = None) -> dict:
    """The AIP-193 error object for ``status``: ``{"error": {"code": HTTP
    status, "message", "status": the google.rpc.Code name, "details": each
    detail in the protobuf JSON mapping, with its "@type"}}``."""
    return {"error": {
        "code": http_status or HTTP_STATUS.get(status.code, 500),
        "message": status.message,
        "status": code_pb2.Code.Name(status.code),
        "details": [json_format.MessageToDict(detail) for detail in status.details],
    }}


def error_response(status: status_pb2.Status, http_status: int | None = None,
                   headers: dict[str, str] | None = None) -> Response:
    """An HTTP response reporting ``status`` (see :func:`error_body`)."""
    body = error_body(status, http_status)
    return Response(json.dumps(body, ensure_ascii=False, indent=2), body["error"]["code"],
                    headers=headers, media_type=JSON)


def _status(code: int, reason: str, message: str, field: str | None = None,
            metadata: dict[str, str] | None = None) -> status_pb2.Status:
    """A Status of our own (not from the app): ``code``, ``message``, an
    optional BadRequest violation on ``field`` and an ErrorInfo."""
    status = status_pb2.Status(code=code, message=clip_message(message))
    if field is not None:
        status.details.add().Pack(error_details_pb2.BadRequest(field_violations=[
            error_details_pb2.BadRequest.FieldViolation(field=field, description=message)]))
    status.details.add().Pack(error_details_pb2.ErrorInfo(
        reason=reason, domain=ERROR_DOMAIN,
        metadata={k: clip(v, 200) for k, v in (metadata or {}).items()}))
    return status


class _Aborted(Exception):
    """A servicer aborted the call with ``status``."""

    def __init__(self, status: status_pb2.Status):
        super().__init__(status.message)
        self.status = status


class _TooLarge(Exception):
    def __init__(self, size: int, exact: bool):
        super().__init__(size)
        self.size, self.exact = size, exact


# ---------------------------------------------------------------------------
# a servicer context over an HTTP request

_Metadatum = namedtuple("_Metadatum", ("key", "value"))


class HttpCallContext:
    """The part of ``grpc.ServicerContext`` the duetime servicers use, for a
    call that came over HTTP: the request headers (lower-case names) are its
    invocation metadata; aborting raises, carrying the ``google.rpc.Status``.
    """

    def __init__(self, headers: Iterable[tuple[str, str]], peer: str = ""):
        self._metadata = tuple(_Metadatum(k.lower(), v) for k, v in headers)
        self._peer = peer

    def invocation_metadata(self):
        return self._metadata

    def peer(self) -> str:
        return self._peer

    def is_active(self) -> bool:
        return True

    def time_remaining(self) -> None:
        return None

    def abort_with_status(self, status) -> None:
        """Raise :class:`_Aborted` with the rich status ``status`` carries (a
        ``grpc.Status`` made by ``grpc_status.rpc_status.to_status``)."""
        for key, value in status.trailing_metadata or ():
            if key == "grpc-status-details-bin":
                raise _Aborted(status_pb2.Status.FromString(value))
        raise _Aborted(status_pb2.Status(code=status.code.value[0], message=status.details))

    def abort(self, code, details: str) -> None:
        raise _Aborted(status_pb2.Status(code=code.value[0], message=details))


# ---------------------------------------------------------------------------
# building the request message


def _field(descriptor: _descriptor.Descriptor, name: str) -> _descriptor.FieldDescriptor | None:
    field = descriptor.fields_by_name.get(name)
    if field is None:
        field = next((f for f in descriptor.fields if f.json_name == name), None)
    return field


def _set_path(tree: dict, descriptor: _descriptor.Descriptor, dotted: str,
              values: list[str], where: str) -> None:
    """Put ``values`` (URL-decoded texts) for the field path ``dotted`` into
    ``tree``, a protobuf-JSON dict for ``descriptor``; InvalidArgument on
    ``where`` if the path names no settable field."""
    names = dotted.split(".")
    for i, name in enumerate(names):
        field = _field(descriptor, name)
        if field is None:
            raise InvalidArgument.at(where, f"{descriptor.name} has no field {name!r}")
        last = i == len(names) - 1
        is_message = field.type == _descriptor.FieldDescriptor.TYPE_MESSAGE
        if not last:
            if not is_message or _repeated(field) or \
                    field.message_type.full_name in _WELL_KNOWN_SCALARS:
                raise InvalidArgument.at(where, f"{descriptor.name}.{field.name} has no fields")
            tree = tree.setdefault(field.json_name, {})
            descriptor = field.message_type
            continue
        if is_message and field.message_type.full_name not in _WELL_KNOWN_SCALARS:
            raise InvalidArgument.at(where, f"{descriptor.name}.{field.name} is a message; "
                                            "set its fields one by one (e.g. "
                                            f"{dotted}.FIELD=VALUE)")
        converted = [_scalar(field, v) for v in values]
        if _repeated(field):
            tree[field.json_name] = converted
        elif len(converted) != 1:
            raise InvalidArgument.at(where, f"is given {len(converted)} times; give it once")
        else:
            tree[field.json_name] = converted[0]


def _repeated(field: _descriptor.FieldDescriptor) -> bool:
    return field.is_repeated


def _scalar(field: _descriptor.FieldDescriptor, text: str):
    """``text`` as the JSON value json_format expects for ``field``: a bool
    for bool fields ("true"/"false"), else the text itself (json_format reads
    numbers, enums, timestamps and durations from strings)."""
    if field.type == _descriptor.FieldDescriptor.TYPE_BOOL and text in ("true", "false"):
        return text == "true"
    return text


def _parse_error(exc: Exception) -> str:
    """A json_format error in one line, without its list of available fields."""
    text = str(exc).split("\n", 1)[0].strip()
    return text.removesuffix(".") if text else type(exc).__name__


_LOAD_PREFIX = "Failed to load JSON: "
_FIELD_PREFIX = re.compile(r"Failed to parse (\S+) field: ")


def _python_words(exc: BaseException) -> bool:
    """Whether ``exc``, a json_format ParseError, only wraps Python's own
    TypeError or ValueError for a field (``Failed to parse duration field:
    expected string or bytes-like object, got 'int'``), not words of
    json_format's own (``Invalid enum value …``, ``Failed to parse timestamp: …``)."""
    while isinstance(exc.__cause__, json_format.ParseError):
        exc = exc.__cause__
    return (isinstance(exc.__cause__, (TypeError, ValueError))
            and _FIELD_PREFIX.match(str(exc)) is not None)


def _json_kind(field: _descriptor.FieldDescriptor) -> str:
    """What the protobuf JSON mapping writes for ``field``, in words."""
    kinds = _descriptor.FieldDescriptor
    if field.message_type is not None and field.message_type.GetOptions().map_entry:
        return "a JSON object"
    if field.type == kinds.TYPE_MESSAGE:
        kind = {"google.protobuf.Timestamp": "an RFC 3339 timestamp string",
                "google.protobuf.Duration": 'a duration string such as "1.5s"',
                }.get(field.message_type.full_name, "a JSON object")
    elif field.type == kinds.TYPE_ENUM:
        kind = f"a {field.enum_type.full_name} value name"
    elif field.type == kinds.TYPE_BOOL:
        kind = "true or false"
    elif field.type == kinds.TYPE_STRING:
        kind = "a JSON string"
    elif field.type == kinds.TYPE_BYTES:
        kind = "a base64 JSON string"
    elif field.type in (kinds.TYPE_DOUBLE, kinds.TYPE_FLOAT):
        kind = "a number"
    else:
        kind = "an integer"
    return f"a JSON array, each item {kind}" if _repeated(field) else kind


def _json_problem(exc: Exception, descriptor: _descriptor.Descriptor) -> tuple[list[str], str]:
    """A json_format ParseError as (the field path it names, as written in
    the JSON, outermost first; the reason in plain words).

    The path is empty when no field is named (bad JSON, a duplicate key, an
    unknown field of the top message). Python's own words for a value of the
    wrong JSON type are replaced by what the field takes (``must be a JSON
    string``); json_format's prefix, doubled for a duplicate key, is dropped.
    """
    cause: BaseException = exc
    while cause.__cause__ is not None:
        cause = cause.__cause__
    if isinstance(cause, RecursionError):
        return [], "it is nested too deeply"
    text = _parse_error(exc)
    while text.startswith(_LOAD_PREFIX):  # doubled for a duplicate key
        text = text[len(_LOAD_PREFIX):]
    path = []
    while match := _FIELD_PREFIX.match(text):
        path.append(match.group(1))
        text = text[match.end():]
    text = text.rstrip(".")  # json_format ends each level with one
    if path and _python_words(exc):
        field, inner = None, descriptor
        for name in path:
            field = _field(inner, name) if inner is not None else None
            if field is None:
                break
            inner = field.message_type
        if field is not None:
            text = f"must be {_json_kind(field)}"
    return path, text


def build_request(binding: HttpBinding, body: bytes, path_params: dict[str, str],
                  query: Iterable[tuple[str, str]]) -> Message:
    """The request message of ``binding`` from the HTTP request's ``body``,
    path parameters (by router name) and query parameters. Raises
    InvalidArgument naming ``body``, a path field or a query parameter."""
    request = binding.request_type()
    descriptor = request.DESCRIPTOR
    if binding.body == "*":  # the body is the whole request: nothing is left for the query
        for key, _ in query:
            raise InvalidArgument.at(key, f"{descriptor.name} takes no query parameters: "
                                          f"{binding.verb} {binding.template} reads every field "
                                          "from the JSON body")
    if binding.body:
        target, name = request, binding.body
        if name != "*":
            field = _field(descriptor, name)
            target = getattr(request, field.name)
        try:
            text = body.decode("utf-8") if body.strip() else "{}"
            if not text.lstrip().startswith("{"):
                raise InvalidArgument.at("body", f"must be a JSON object (a "
                                                 f"{target.DESCRIPTOR.full_name} in the protobuf "
                                                 "JSON mapping)")
            json_format.Parse(text, target)
        except UnicodeDecodeError as exc:
            raise InvalidArgument.at("body", f"is not UTF-8: {exc}") from None
        except (json_format.ParseError, RecursionError) as exc:
            path, reason = _json_problem(exc, target.DESCRIPTOR)
            raise InvalidArgument.at("body", f"field {'.'.join(path)}: {reason}" if path else
                                             f"is not valid JSON for "
                                             f"{target.DESCRIPTOR.full_name}: {reason}") from None
    for name, dotted in binding.variables:
        _merge(request, dotted, [path_params[name]], dotted)
    if binding.body != "*":
        bound = {dotted.split(".")[0] for _, dotted in binding.variables} | {binding.body}
        grouped: dict[str, list[str]] = {}
        for key, value in query:
            grouped.setdefault(key, []).append(value)
        for key, values in grouped.items():
            first = _field(descriptor, key.split(".")[0])
            if first is not None and first.name in bound:
                raise InvalidArgument.at(key, "is set by the path or body; it cannot be a "
                                              "query parameter too")
            _merge(request, key, values, key)
    return request


def _merge(request: Message, dotted: str, values: list[str], where: str) -> None:
    """Set the field path ``dotted`` of ``request`` from ``values`` (texts, as
    the protobuf JSON mapping writes them); InvalidArgument on ``where``."""
    tree: dict = {}
    _set_path(tree, request.DESCRIPTOR, dotted, values, where)
    try:
        json_format.ParseDict(tree, request)
    except json_format.ParseError as exc:
        reason = _json_problem(exc, request.DESCRIPTOR)[1] if _python_words(exc) else None
        raise InvalidArgument.at(where, reason or _parse_error(exc)) from None


async def _read_body(request: Request, limit: int) -> bytes:
    """The request body; :class:`_TooLarge` as soon as it exceeds ``limit`` bytes."""
    length = request.headers.get("content-length", "")
    if length.isdigit() and int(length) > limit:
        raise _TooLarge(int(length), exact=True)
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise _TooLarge(size, exact=False)
        chunks.append(chunk)
    return b"".join(chunks)


# ---------------------------------------------------------------------------
# the ASGI application


def _too_large(exc: _TooLarge, limit: int) -> status_pb2.Status:
    said = f"is {exc.size} bytes" if exc.exact else f"is more than {limit} bytes"
    return _status(code_pb2.RESOURCE_EXHAUSTED, "REQUEST_TOO_LARGE",
                   f"the request body {said}; at most {limit} bytes are accepted", field="body")


def _authorize(tokens: TokenSet, context: HttpCallContext) -> None:
    """Let the call through with an accepted ``Authorization: Bearer`` token,
    else abort it with the status the gRPC side sends (TOKEN_MISSING or
    TOKEN_INVALID)."""
    token = bearer_token(context.invocation_metadata())
    if token is None:
        context.abort_with_status(MISSING)
    if not token or not tokens.accepts(token):
        context.abort_with_status(INVALID)


def _namespace(context: HttpCallContext) -> str:
    values = [m.value for m in context.invocation_metadata() if m.key == NAMESPACE_METADATA]
    return values[0][:64] if values else ""


def _record_id(response: Message | None) -> str:
    if response is None:
        return ""
    if "record_id" in response.DESCRIPTOR.fields_by_name:
        return response.record_id
    if "record" in response.DESCRIPTOR.fields_by_name:
        return response.record.record_id
    return ""


def create_app(app: DueTimeApp, tokens: TokenSet | None = None,
               max_body_bytes: int = MAX_REQUEST_BYTES,
               playground: Path | None = PLAYGROUND_DIR,
               metrics: Metrics | None = None, log_calls: bool = True) -> Starlette:
    """The ASGI application answering :data:`BINDINGS` over ``app``.

    ``tokens``: every API call needs ``Authorization: Bearer <one of them>``
    (else 401 UNAUTHENTICATED); None: no token needed. ``max_body_bytes``:
    the largest request body (else 413). ``playground``: a directory of
    static files served at ``/`` (``index.html``) if it exists, without a
    token. ``metrics``: count and time every API call there; ``log_calls``:
    one request line per API call.
    """
    servicers = {SERVICE_NAME: DueTimeServicer(app), CALENDAR_SERVICE_NAME: CalendarServicer(app)}
    state: dict[str, anyio.CapacityLimiter] = {}

    def limiter() -> anyio.CapacityLimiter:
        if "limiter" not in state:  # created in the event loop, on first use
            state["limiter"] = anyio.CapacityLimiter(MAX_WORKERS)
        return state["limiter"]

    def endpoint(binding: HttpBinding) -> Callable:
        call = getattr(servicers[binding.service], binding.method)
        rpc = f"/{binding.service}/{binding.method}"

        async def answer(request: Request) -> Response:
            began = time.perf_counter()
            peer = f"http:{request.client.host}:{request.client.port}" if request.client else ""
            context = HttpCallContext(request.headers.items(), peer)
            response, status, http_status, headers = None, None, None, None
            try:
                if tokens is not None:
                    _authorize(tokens, context)
                body = await _read_body(request, max_body_bytes) if binding.body else b""

                def run() -> Message:
                    message = build_request(binding, body, request.path_params,
                                            request.query_params.multi_items())
                    return call(message, context)

                response = await anyio.to_thread.run_sync(run, limiter=limiter())
            except _Aborted as exc:
                status = exc.status
            except _TooLarge as exc:
                status, http_status = _too_large(exc, max_body_bytes), 413
            except Exception as exc:  # noqa: BLE001 - a bad request, or INTERNAL (logged)
                status = status_of(exc)
            if status is not None and status.code == code_pb2.UNAUTHENTICATED:
                headers = {"WWW-Authenticate": "Bearer"}
            code = code_pb2.Code.Name(status.code) if status is not None else "OK"
            seconds = time.perf_counter() - began
            if metrics is not None:
                metrics.observe_call(rpc, code, seconds)
            if log_calls:
                log_call(rpc, code, seconds, _record_id(response), _namespace(context), peer)
            if status is not None:
                return error_response(status, http_status, headers)
            return Response(json_format.MessageToJson(response, ensure_ascii=False), 200,
                            media_type=JSON)

        answer.__name__ = binding.method
        return answer

    routes: list = [Route(b.path, endpoint(b), methods=[b.verb], name=f"{b.method}:{b.verb}")
                    for b in BINDINGS]

    async def http_error(request: Request, exc: Exception) -> Response:
        code = getattr(exc, "status_code", 500)
        where = f"{request.method} {request.url.path}"
        if code == 404:
            return error_response(_status(
                code_pb2.NOT_FOUND, "NO_SUCH_PATH",
                f"no duetime.v1 method or file at {where}; the API's paths are listed in "
                "proto/duetime/v1/duetime.proto (google.api.http)",
                metadata={"path": request.url.path}))
        if code == 405:
            allow = (getattr(exc, "headers", None) or {}).get("Allow", "")
            return error_response(_status(
                code_pb2.UNIMPLEMENTED, "METHOD_NOT_ALLOWED",
                f"{request.url.path} does not answer {request.method}; it answers {allow}",
                metadata={"path": request.url.path}), http_status=405,
                headers={"Allow": allow} if allow else None)
        return error_response(_status(code_pb2.UNKNOWN, "HTTP_ERROR",
                                      f"{where}: {getattr(exc, 'detail', '')}"),
                              http_status=code)

    application = Starlette(routes=routes, exception_handlers={HTTPException: http_error})
    application.router.redirect_slashes = False  # /v1/records/ is a 404 in the JSON shape, not a 307
    if playground is not None and playground.is_dir():
        # what no API route matches, not even by path alone (that is 405)
        application.router.default = StaticFiles(directory=playground, html=True)
    return application


# ---------------------------------------------------------------------------
# running it


@dataclass
class HttpServer:
    """A running HTTP/JSON server: ``port`` is the bound port; :meth:`stop` drains it."""

    server: uvicorn.Server
    thread: threading.Thread
    host: str
    port: int
    grace: float = GRACE_SECONDS

    def stop(self) -> None:
        """Stop accepting connections, let calls in flight finish (``grace``
        s; after that their connections are closed, and a call still
        computing is dropped by the app as on the gRPC side), then return."""
        self.server.should_exit = True
        self.thread.join(timeout=self.grace + 5)
        if self.thread.is_alive():
            log.warning("the HTTP server did not stop within %g s", self.grace + 5)


def _bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host:port``; RuntimeError if it cannot be bound."""
    shown = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0]
        sock = socket.socket(family, kind, proto)
    except OSError as exc:
        raise RuntimeError(f"cannot bind {shown} (HTTP): {exc}") from None
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # not SO_REUSEPORT: never shared
        sock.bind(address)
        sock.listen(2048)
    except OSError:
        sock.close()
        raise RuntimeError(f"cannot bind {shown} (HTTP): address in use, or not an address of this machine?") from None
    sock.setblocking(False)
    return sock


def start_http_server(app: DueTimeApp, host: str, port: int, *,
                      tokens: TokenSet | None = None,
                      tls_cert: Path | None = None, tls_key: Path | None = None,
                      tls_client_ca: Path | None = None,
                      max_body_bytes: int = MAX_REQUEST_BYTES, grace: float = GRACE_SECONDS,
                      metrics: Metrics | None = None, log_calls: bool = True,
                      startup_timeout: float = 10.0) -> HttpServer:
    """Serve :func:`create_app` over ``app`` on ``host:port`` (0: any free
    port) with uvicorn in a background thread, and log ``duetime HTTP/JSON
    listening on http://HOST:PORT`` (``https://`` with TLS).

    ``tls_cert``/``tls_key``: serve HTTPS with that PEM certificate chain and
    key; ``tls_client_ca``: also require a client certificate issued by that
    CA. ``tokens``, ``max_body_bytes``, ``metrics``, ``log_calls``: see
    :func:`create_app`; ``grace``: how long :meth:`HttpServer.stop` lets calls
    in flight finish. Raises RuntimeError if the address cannot be bound or
    the server does not start within ``startup_timeout`` s.
    """
    sock = _bind(host, port)
    bound = sock.getsockname()[1]
    tls = {}
    if tls_cert is not None:
        tls = {"ssl_certfile": str(tls_cert), "ssl_keyfile": str(tls_key)}
        if tls_client_ca is not None:
            tls |= {"ssl_ca_certs": str(tls_client_ca), "ssl_cert_reqs": ssl.CERT_REQUIRED}
    config = uvicorn.Config(
        create_app(app, tokens, max_body_bytes, metrics=metrics, log_calls=log_calls),
        log_config=None, access_log=False, lifespan="off", timeout_graceful_shutdown=grace,
        server_header=False, **tls,
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]},
                              name="duetime-http", daemon=True)
    thread.start()
    deadline = time.monotonic() + startup_timeout
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            server.should_exit = True
            sock.close()
            raise RuntimeError(f"the HTTP server on {host}:{bound} did not start")
        time.sleep(0.01)
    shown = f"[{host}]" if ":" in host else host
    log.info("duetime HTTP/JSON listening on %s://%s:%d", "https" if tls else "http", shown, bound)
    return HttpServer(server, thread, host, bound, grace)
