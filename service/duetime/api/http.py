"""The HTTP/JSON face of duetime: every ``duetime.v1`` RPC with a
``google.api.http`` option, as JSON over HTTP (AIP-127).

Routes are built at import time from the proto itself (:data:`BINDINGS`, read
from each method descriptor's ``google.api.http`` option), so
``proto/duetime/v1/duetime.proto`` is the one source of paths and verbs;
``StreamComputeDueTimes`` has no such option and is not served here.

A call is answered by the same :class:`~duetime.app.DueTimeApp` calls the
gRPC servicers make (``app.call`` with the RPC's recorded method,
``app.call_many``, ``app.get_record`` …), within the same
:class:`~duetime.api.calls.CallLimits` (call budget, batch size) as the gRPC side
of the server, so it is validated, computed and recorded exactly like a gRPC
call, idempotency keys included (the same key gives the same record over HTTP
and gRPC). Per request:

0. :class:`RequestGuards` refuses, before any route is looked up, a
   ``Host`` header that is not a name of a server bound to loopback (403
   PERMISSION_DENIED on ``header Host``: DNS rebinding) and an ``Origin``
   header that is neither the port's own origin nor a listed one (403 on
   ``header Origin``), and answers CORS preflights of listed origins;
1. a POST must say ``Content-Type: application/json`` (else 415
   INVALID_ARGUMENT on ``header Content-Type``, before the body is read);
   the call takes one of its tenant's calls in flight (with tokens: at most
   ``--tenant-calls``, else 429 RESOURCE_EXHAUSTED with ``Retry-After``,
   before the body is read; see :mod:`duetime.api.admission`); its body's
   bytes count, as they are read, in the server's request bytes in flight (shared with gRPC;
   over them 503 RESOURCE_EXHAUSTED with ``Retry-After``, the rest dropped,
   not kept) until its answer is computed; a body not read whole within the body
   timeout (``--body-timeout``) is 408 DEADLINE_EXCEEDED on ``body``
   (BODY_TIMEOUT), logged at INFO without a traceback, its connection
   closed (the request head has the same time, from when the connection
   opens or its last answer ended: :func:`head_timeout_protocol`); the body (rules with ``body: "*"``) is read, at most
   :data:`~duetime.config.DEFAULT_MAX_MESSAGE_BYTES` bytes by default, the
   gRPC side's limit too (else 413: at once when ``Content-Length`` says
   more, else as soon as the bytes read pass it, the rest unread), and read
   as the protobuf JSON mapping of the request, with the forms of
   :func:`duetime.api.convert.canonical_json` too (instants as the command
   line writes them, enum values by their short names); a problem is
   400 INVALID_ARGUMENT on ``body``: bad JSON or a duplicate key says ``is
   not valid JSON for duetime.v1.…: <reason>``; a value that does not fit
   its field is found by walking the JSON against the request's descriptor
   and named, ``field calendar.holidays.date: must be a JSON string``;
2. path variables (``/v1/records/{record_id}``, URL-decoded) and, for rules
   without a whole-message body, query parameters (``?keyPrefix=t-&pageSize=10``,
   by JSON or proto field name, dotted for nested fields, repeated for
   repeated fields; an unknown one is 400 INVALID_ARGUMENT naming it) fill
   the other fields; a rule with ``body: "*"`` takes no query parameter (any
   is 400 INVALID_ARGUMENT naming it, checked first);
3. the call runs in a worker thread (at most
   :data:`~duetime.api.calls.MAX_WORKERS` at a time), the HTTP request
   headers standing in for gRPC metadata: the idempotency namespace is the
   ``x-duetime-namespace`` header, read by the same
   :func:`~duetime.api.calls.namespace_in`;
4. the answer is :func:`duetime.api.convert.message_json` of the
   response message (false, zero and empty fields printed too),
   ``200 application/json``.

Errors are AIP-193 JSON of the same ``google.rpc.Status`` the gRPC side sends,
from the one status table (:mod:`duetime.api.status`)::

    {"error": {"code": 400, "message": "duration: ...", "status": "INVALID_ARGUMENT",
               "details": [{"@type": "type.googleapis.com/google.rpc.BadRequest",
                            "fieldViolations": [{"field": "duration", "description": "..."}]},
                           {"@type": "type.googleapis.com/google.rpc.ErrorInfo", ...}]}}

with the HTTP status the table gives the error's kind. A path no rule
matches is 404 NOT_FOUND, a known path with another verb 405 (status
UNIMPLEMENTED, with an ``Allow`` header), a body over the limit 413 (status
RESOURCE_EXHAUSTED), all in the same shape.

With bearer tokens (``--auth-tokens``, a :class:`duetime.auth.TokenSet`),
every API call must carry the header ``Authorization: Bearer <token>`` with
one of the same tokens the gRPC side accepts, checked by the same code
(:func:`duetime.auth.authenticate`); else 401 UNAUTHENTICATED with the gRPC
side's status (reason TOKEN_MISSING or TOKEN_INVALID). The token's scopes
and namespaces apply as on gRPC (403 PERMISSION_DENIED; another namespace's
record is 404 as an unknown id). The playground's static files (:data:`PLAYGROUND_DIR`, served
at ``/`` when the directory exists) stay public.

Each API call is counted and timed in the metrics as a gRPC call is (method
``/duetime.v1.DueTimeService/ComputeDueTime`` …, code the status name) and
logged as one request line (:func:`duetime.logs.log_call`, peer
``http:HOST:PORT``). A client that disconnects before its whole body
arrived is not a failure of the service: it is logged at INFO as a
disconnect (no traceback), counted and logged with code ``CANCELLED``
(:data:`DISCONNECTED`, HTTP 499 as nginx writes it), and nothing is
computed, recorded or answered.

:func:`start_http_server` runs uvicorn in a background thread of the serving
process, over TLS when the gRPC side has it (the same certificate, key and
client CA). Each call is logged once, by duetime's own call log line (as on
gRPC); uvicorn's access log is off.
"""

from __future__ import annotations

import asyncio
import ipaddress
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
from datetime import datetime, timezone
from email.utils import formatdate
from pathlib import Path
from typing import NamedTuple

import anyio
import anyio.abc
import anyio.to_thread
import h11
import uvicorn
from google.api import annotations_pb2, http_pb2
from google.protobuf import descriptor as _descriptor
from google.protobuf import duration_pb2, field_mask_pb2, json_format, timestamp_pb2
from google.protobuf.message import Message
from google.rpc import code_pb2, status_pb2
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.staticfiles import StaticFiles
from uvicorn.protocols.http.h11_impl import H11Protocol

from duetime.api.admission import (
    Admission,
    InFlightBytes,
    TooCostlyToRead,
    readable_bytes,
    retry_after,
)
from duetime.api.wire import max_values
from duetime.api.calls import MAX_WORKERS, CallLimits, log_failure, unary_calls
from duetime.api.convert import JsonValueError, canonical_json, json_error_text, message_json
from duetime.api.json_read import NotReadHere, read_json_object
from duetime.api.observe import logged_namespace, record_id_of
from duetime.api.status import (
    HTTP_STATUS,
    code_name,
    http_status_of,
    reason_of,
    status_of,
    without_frames,
)
from duetime.api.tracing import call_tracer
from duetime.app import DueTimeApp, ShuttingDown
from duetime.app.limits import MAX_BATCH_CALENDAR_WEIGHT
from duetime.auth import ANYONE, TokenSet, Unauthenticated, authenticate
from duetime.config import (
    DEFAULT_BODY_TIMEOUT,
    DEFAULT_GRACE,
    DEFAULT_MAX_MESSAGE_BYTES,
    canonical_origin,
    format_bytes,
)
from duetime.core.calendar import MAX_DATES
from duetime.core.errors import ErrorKind, FieldViolation, InvalidArgument, Refusal
from duetime.logs import log_call
from duetime.metrics import Metrics
from duetime.v1 import duetime_pb2 as pb

log = logging.getLogger("duetime.http")

PLAYGROUND_DIR = Path(__file__).resolve().parent / "playground"
"""The browser playground's static files, served at ``/`` (``index.html``)
when the directory exists."""

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


DISCONNECTED = "CANCELLED"
"""The code (metrics label, call log line) of a call whose client
disconnected before its whole request body arrived (HTTP 499)."""


class RequestTooLarge(Refusal):
    """A request body over the limit (413, RESOURCE_EXHAUSTED, on ``body``)."""

    kind = ErrorKind.TOO_LARGE
    reason = "REQUEST_TOO_LARGE"

    def __init__(self, size: int, exact: bool, limit: int):
        said = f"is {size} bytes" if exact else f"is more than {limit} bytes"
        text = (f"the request body {said}; at most {limit} bytes are accepted (the server's "
                f"--max-message-bytes): send a smaller request (a batch split in parts, or a stream)")
        super().__init__(text, violations=[FieldViolation("body", text, str(size), str(limit))])


JSON_VALUE_BYTES = 112
"""Bytes counted for each JSON value a body may hold (see
:func:`json_reading_bytes`): measured with tracemalloc, reading a body of
one kind of value only costs 32 (empty arrays) to 106 (objects of many
keys) bytes a value, pairs list and key included."""
JSON_TEXT_BYTES = 9
"""Bytes counted for each byte of a body that is not all ASCII, or holds a
``\\u`` escape, while it is read as JSON (see :func:`json_reading_bytes`): the decoded text (up to 4
bytes a character), the strings made of it (as many again), and one for
what they carry. An ASCII body counts 2: its text and strings take a byte
a character."""


def json_values(body: bytes | str) -> int:
    """The most JSON values ``body`` (its bytes or its text) may hold: one
    per ``,``, ``:``, ``[`` and ``{``, plus one (a ``:`` in a string, as in
    ``"09:00"``, counts too). A few passes at memory speed."""
    if isinstance(body, str):
        return body.count(",") + body.count(":") + body.count("[") + body.count("{") + 1
    return body.count(b",") + body.count(b":") + body.count(b"[") + body.count(b"{") + 1


_JSON_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')
"""A JSON string, escapes included (an unrolled loop: 10 ms a MiB)."""


def counted_json_values(body: bytes, most: int) -> int:
    """The JSON values ``body`` may hold as the server counts them against
    ``most``: :func:`json_values`, and, when that passes ``most`` in a body
    of at most :data:`FALL_BACK_BYTES`, the same without the ``,`` and
    ``:`` inside strings (a holiday named "Day of rest, observed" holds
    no value): a pass of about 10 ms a MiB."""
    values = json_values(body)
    if values > most and len(body) <= FALL_BACK_BYTES:
        values = json_values(_JSON_STRING.sub(b'""', body))
    return values


MAX_JSON_VALUES = 100_000
"""The most JSON values (:func:`json_values`) one request body may hold at
the default ``--max-batch-calendar-weight`` (:func:`json_max_values`)."""


def json_max_values(max_batch_calendar_weight: int = MAX_BATCH_CALENDAR_WEIGHT) -> int:
    """The most JSON values (:func:`json_values`) one request body may hold:
    :data:`MAX_JSON_VALUES` by default, scaled with
    ``max_batch_calendar_weight`` as a gRPC message's
    (:func:`duetime.api.wire.max_values`). Reading JSON costs 1 to 2 µs a
    value counted so; the costliest bodies within the other limits count
    about 93,000 (a calendar of 10,000 working intervals)."""
    return max_values(max_batch_calendar_weight, MAX_JSON_VALUES)


class TooManyJsonValues(TooCostlyToRead):
    """A request body that may hold more JSON values than
    :func:`json_max_values` (413, RESOURCE_EXHAUSTED, REQUEST_TOO_LARGE, on
    ``body``; not retryable): refused before it is read."""

    def __init__(self, size: int, values: int, most: int):
        super().__init__(
            "body", f"is {size} bytes of JSON that may hold {values} values (counting each "
                    f"',', ':', '[' and '{{'), more than the {most} one body may hold, since "
                    f"reading JSON costs about 2 µs a value: name a calendar bundle instead of "
                    f"repeating an inline calendar in every item, send the batch over gRPC, or "
                    f"split it", values, most,
            {"limit": "values in one body", "max_values": str(most)})


def json_reading_bytes(body: bytes, values: int | None = None) -> int:
    """An upper bound of the memory that reading ``body`` as JSON takes (the
    decoded text and the tree of Python objects), bytes: each JSON value
    (at most one per ``,``, ``:``, ``[`` and ``{``, plus one) counts
    :data:`JSON_VALUE_BYTES`, each byte :data:`JSON_TEXT_BYTES` (2 when
    the body is ASCII without ``\\u`` escapes: one of ``\\ud83d\\ude00`` makes the
    whole string it is in 4 bytes a character). Counting is a few passes at
    memory speed (``values``: :func:`json_values` of ``body``, when counted
    already); a body of
    ordinary requests counts 10 to 30 times its size, one made of empty
    arrays about 40."""
    values = json_values(body) if values is None else values
    narrow = body.isascii() and b"\\u" not in body  # a \u escape may make a string 4 bytes a character
    return JSON_VALUE_BYTES * values + (2 if narrow else JSON_TEXT_BYTES) * len(body)


class JsonTooCostly(TooCostlyToRead):
    """A request body whose reading as JSON would take more memory than the
    server may ever hold for requests in flight (413, RESOURCE_EXHAUSTED,
    on ``body``; not retryable)."""

    def __init__(self, size: int, reading: int, limit: int, tenant: bool = False):
        super().__init__(
            "body", f"is {size} bytes of JSON whose reading would take about {reading} bytes of "
                    f"memory (counting {JSON_VALUE_BYTES} bytes for each value), more than the "
                    f"{limit} bytes ({readable_bytes(limit)}) of requests in flight one caller "
                    f"may hold (a third of --memory-budget; with tokens, one tenant's share of "
                    f"that): send fewer or simpler values (a batch split in parts, or a "
                    f"stream)", reading, limit, tenant=tenant)


class BodyTimeout(Refusal):
    """A request body that did not arrive whole within the body timeout (408,
    DEADLINE_EXCEEDED, on ``body``; the connection is closed)."""

    kind = ErrorKind.OVER_BUDGET
    reason = "BODY_TIMEOUT"
    http_status = 408

    def __init__(self, seconds: float, size: int):
        text = (f"did not arrive whole within {seconds:g} s ({size} bytes came); a request "
                f"body must be sent at once after its headers (the server's --body-timeout "
                f"is {seconds:g} s)")
        super().__init__(f"body: {text}", violations=[FieldViolation("body", text)],
                         metadata={"body_timeout_seconds": f"{seconds:g}"})
        self.seconds = seconds


class _Held:
    """What one HTTP call holds of its server's admission: the request
    ``bytes`` counted in flight (those its ``Content-Length`` announced, or
    those ``read``), and the tenant (``caller``) whose call it counts as
    (None: none yet)."""

    __slots__ = ("bytes", "read", "caller")

    def __init__(self) -> None:
        self.bytes = 0
        self.read = 0
        self.caller = None


class NoSuchPath(Refusal):
    """A path no rule matches and no playground file has (404 NOT_FOUND)."""

    kind = ErrorKind.ABSENT
    reason = "NO_SUCH_PATH"

    def __init__(self, verb: str, path: str):
        super().__init__(f"no duetime.v1 method or file at {verb} {path}; the API's paths are "
                         "listed in proto/duetime/v1/duetime.proto (google.api.http)",
                         metadata={"path": path})


class MethodNotAllowed(Refusal):
    """A known path asked with a verb it does not answer (405, UNIMPLEMENTED)."""

    kind = ErrorKind.WRONG_VERB
    reason = "METHOD_NOT_ALLOWED"

    def __init__(self, verb: str, path: str, allow: str):
        super().__init__(f"{path} does not answer {verb}; it answers {allow}",
                         metadata={"path": path})


class HttpError(Refusal):
    """Any other HTTP-level refusal (UNKNOWN, with the HTTP status it came with)."""

    kind = ErrorKind.OTHER
    reason = "HTTP_ERROR"


class UnsupportedMediaType(Refusal):
    """A POST body that is not said to be JSON (415, INVALID_ARGUMENT, on
    ``header Content-Type``)."""

    kind = ErrorKind.BAD_INPUT
    reason = "UNSUPPORTED_MEDIA_TYPE"
    http_status = 415

    def __init__(self, sent: str):
        said = f"is {sent!r}" if sent else "is missing"
        text = (f"{said}; a request body must be JSON: send 'Content-Type: {JSON}' "
                "(a charset parameter may follow: '; charset=utf-8')")
        super().__init__(f"header Content-Type: {text}",
                         violations=[FieldViolation("header Content-Type", text)])


class HeaderNotAllowed(Refusal):
    """A request whose ``Origin`` or ``Host`` header the server does not
    accept (403, PERMISSION_DENIED, on ``header Origin`` / ``header Host``)."""

    kind = ErrorKind.NOT_PERMITTED

    def __init__(self, header: str, reason: str, text: str):
        self.reason = reason
        super().__init__(f"header {header}: {text}",
                         violations=[FieldViolation(f"header {header}", text)])


_Metadatum = namedtuple("_Metadatum", ("key", "value"))
"""One request header as a call metadata item (lower-case ``key``)."""


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


class _DuplicateKey(Exception):
    """A JSON object names ``key`` twice."""

    def __init__(self, key: str):
        super().__init__(key)
        self.key = key


MAX_JSON_KEY = 1024
"""Most characters a key of a request body's JSON may have: every field's
name is far shorter, and a map's keys (an event's attributes) are names of
at most 200 characters. A longer key is refused while the body is read, so
that it is never copied into an error text or a message."""


class _LongKey(Exception):
    """A JSON object has a key longer than :data:`MAX_JSON_KEY`."""

    def __init__(self, size: int):
        super().__init__(size)
        self.size = size


MAX_JSON_DIGITS = 20
"""Most digits an integer of a request body's JSON may have (the largest
64-bit integer has 20, and no field holds a longer one): a longer one is
refused while the body is read, before Python works out its value (which
costs the square of its digits: 4,000 integers of 4,299 digits took
0.5 s)."""


class _LongNumber(Exception):
    """A JSON integer has more than :data:`MAX_JSON_DIGITS` digits."""

    def __init__(self, size: int):
        super().__init__(size)
        self.size = size


def _bounded_integer(text: str) -> int:
    """A JSON integer literal's value (``json.loads``' ``parse_int``);
    :class:`_LongNumber` when it has more than :data:`MAX_JSON_DIGITS` digits."""
    if len(text) > MAX_JSON_DIGITS and len(text.lstrip("-")) > MAX_JSON_DIGITS:
        raise _LongNumber(len(text.lstrip("-")))
    return int(text)


FALL_BACK_VALUES = 25_000
"""A body that may hold more JSON values than this (:func:`json_values`), or
:data:`FALL_BACK_BYTES` bytes, must write every value in a form
:mod:`duetime.api.json_read` reads itself (the printed form, the forms of
docs/semantics.md §14, quoted integers, enum numbers, ``null`` fields):
reading the rarer forms protobuf's own reader accepts takes about three
times as long a value, and 30 ns a character of every string, which for
a body of 100,000 values or 16 MiB would pass a call's 250 ms of CPU."""
FALL_BACK_BYTES = 2 << 20
"""See :data:`FALL_BACK_VALUES`."""


def _unique_keys(pairs: list[tuple[str, object]]) -> dict:
    """A JSON object's pairs as a dict; :class:`_DuplicateKey` for a key
    given twice, :class:`_LongKey` for one over :data:`MAX_JSON_KEY` characters."""
    result: dict = {}
    for key, value in pairs:
        if key in result:
            raise _DuplicateKey(key)
        if len(key) > MAX_JSON_KEY:
            raise _LongKey(len(key))
        result[key] = value
    return result


def _json_kind(field: _descriptor.FieldDescriptor) -> str:
    """What the protobuf JSON mapping writes for ``field``, in words."""
    if _is_map(field):
        return f"a JSON object, each value {_json_kind(field.message_type.fields_by_name['value'])}"
    kind = _item_kind(field)
    return f"a JSON array, each item {kind}" if _repeated(field) else kind


def _item_kind(field: _descriptor.FieldDescriptor) -> str:
    """What the protobuf JSON mapping writes for one value of ``field``, in words."""
    kinds = _descriptor.FieldDescriptor
    if field.type == kinds.TYPE_MESSAGE:
        return {"google.protobuf.Timestamp": "an RFC 3339 timestamp string",
                "google.protobuf.Duration": 'a duration string such as "1.5s"',
                }.get(field.message_type.full_name, "a JSON object")
    if field.type == kinds.TYPE_ENUM:
        return f"a {field.enum_type.full_name} value name"
    if field.type == kinds.TYPE_BOOL:
        return "true or false"
    if field.type == kinds.TYPE_STRING:
        return "a JSON string"
    if field.type == kinds.TYPE_BYTES:
        return "a base64 JSON string"
    if field.type in (kinds.TYPE_DOUBLE, kinds.TYPE_FLOAT):
        return "a number"
    return "an integer"


def _is_map(field: _descriptor.FieldDescriptor) -> bool:
    return (field.message_type is not None and field.message_type.GetOptions().map_entry
            and _repeated(field))


_INTEGER_RANGES = {
    _descriptor.FieldDescriptor.CPPTYPE_INT32: (-2**31, 2**31 - 1),
    _descriptor.FieldDescriptor.CPPTYPE_INT64: (-2**63, 2**63 - 1),
    _descriptor.FieldDescriptor.CPPTYPE_UINT32: (0, 2**32 - 1),
    _descriptor.FieldDescriptor.CPPTYPE_UINT64: (0, 2**64 - 1),
}
_INT32_MIN, _INT32_MAX = _INTEGER_RANGES[_descriptor.FieldDescriptor.CPPTYPE_INT32]
_FROM_STRING = {message.DESCRIPTOR.full_name: message for message in (
    timestamp_pb2.Timestamp, duration_pb2.Duration, field_mask_pb2.FieldMask)}
"""Well-known types written as one JSON string (read with ``FromJsonString``)."""


class _Problem(NamedTuple):
    """What is wrong with a JSON value for a message.

    ``path``: the JSON keys leading to the field, as written, outermost first
    (empty: the message itself); ``text``: what is wrong, in words;
    ``plain``: whether ``text`` reads on its own as what is wrong with the
    value (``must be a JSON string``), not in the protobuf JSON mapping's own
    terms (``Failed to parse timestamp: … at ListRecordsRequest.startTime``)."""

    path: tuple[str, ...]
    text: str
    plain: bool


def _integer(value) -> int | None:
    """``value`` as the integer the protobuf JSON mapping reads from it (a
    JSON number without a fraction, or a string of one), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value) if value.is_integer() else None
    if not isinstance(value, str) or " " in value:
        return None
    try:
        return int(value)
    except ValueError:
        pass
    try:
        number = float(value)
    except ValueError:
        return None
    return int(number) if number.is_integer() else None


def _scalar_problem(field: _descriptor.FieldDescriptor, value, path: tuple[str, ...]) -> _Problem | None:
    """What is wrong with ``value`` (not null) as one value of the scalar
    ``field``, or None."""
    kinds = _descriptor.FieldDescriptor
    must = _Problem(path, f"must be {_json_kind(field)}", True)
    if field.cpp_type in _INTEGER_RANGES:
        number = _integer(value)
        if number is None:
            return must
        low, high = _INTEGER_RANGES[field.cpp_type]
        if not low <= number <= high:
            return _Problem(path, f"must be an integer from {low} to {high}", True)
        return None
    if field.cpp_type in (kinds.CPPTYPE_FLOAT, kinds.CPPTYPE_DOUBLE):
        if isinstance(value, (int, float)):
            return None if value == value and value not in (float("inf"), float("-inf")) else must
        if not isinstance(value, str) or value == "nan":
            return must
        try:
            float(value)
        except ValueError:
            return None if value in ("Infinity", "-Infinity", "NaN") else must
        return None
    if field.cpp_type == kinds.CPPTYPE_BOOL:
        return None if isinstance(value, bool) else must
    if field.cpp_type == kinds.CPPTYPE_ENUM:
        if isinstance(value, str) and value in field.enum_type.values_by_name:
            return None
        try:
            number = int(value)
        except (TypeError, ValueError, OverflowError):  # OverflowError: ±1e999
            return must
        if not _INT32_MIN <= number <= _INT32_MAX or (
                field.enum_type.is_closed and number not in field.enum_type.values_by_number):
            return must  # an enum's number is an int32
        return None
    if not isinstance(value, str):  # string and bytes
        return must
    if not _is_unicode(value):
        return _Problem(path, "is not valid Unicode (it holds an unpaired surrogate)", True)
    return None


def _is_unicode(text: str) -> bool:
    """Whether ``text`` encodes as UTF-8 (JSON's ``\\ud800`` escapes can
    give a string an unpaired surrogate, which no protobuf string may hold)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _value_problem(field: _descriptor.FieldDescriptor, value, at: str,
                   path: tuple[str, ...]) -> _Problem | None:
    """What is wrong with ``value`` (not null) as one value of ``field``
    (one item of a repeated field), or None. ``at`` is where it is, in the
    protobuf JSON mapping's own words (``ComputeDueTimeRequest.calendar``)."""
    if field.message_type is None:
        return _scalar_problem(field, value, path)
    name = field.message_type.full_name
    if name in _FROM_STRING:
        if not isinstance(value, str):
            return _Problem(path, f"must be {_json_kind(field)}", True)
        try:
            _FROM_STRING[name]().FromJsonString(value)
        except ValueError as exc:
            return _Problem(path, f"{exc} at {at}", False)
        return None
    if name.startswith("google.protobuf."):
        return None  # Struct, Value, Any, wrappers: left to json_format
    if not isinstance(value, dict):
        return _Problem(path, f"must be {_json_kind(field)}", True)
    return _message_problem(value, field.message_type, at, path)


def _message_problem(tree: dict, descriptor: _descriptor.Descriptor, at: str,
                     path: tuple[str, ...] = ()) -> _Problem | None:
    """The first problem, in the order of the JSON, of ``tree`` (a JSON
    object) as the protobuf JSON mapping of a ``descriptor`` message, or
    None when the walk finds none."""
    oneofs: dict[str, str] = {}  # oneof name -> the key that set it
    for key, value in tree.items():
        field = next((f for f in descriptor.fields if f.json_name == key), None) \
            or descriptor.fields_by_name.get(key)
        if field is None:
            return _Problem(path, f'Message type "{descriptor.full_name}" has no field named '
                                  f'"{key}" at "{at}"', False)
        oneof = field.containing_oneof
        if oneof is not None and value is not None:
            if oneof.name in oneofs:
                return _Problem(path, f'gives "{oneofs[oneof.name]}" and "{key}", two fields '
                                      f"of oneof {oneof.name}; give one", False)
            oneofs[oneof.name] = key
        if value is None:
            continue  # null clears the field
        inner, where = path + (key,), f"{at}.{key}"
        if _is_map(field):
            if not isinstance(value, dict):
                return _Problem(inner, f"must be {_json_kind(field)}", True)
            key_field = field.message_type.fields_by_name["key"]
            value_field = field.message_type.fields_by_name["value"]
            for map_key, item in value.items():
                if not _is_unicode(map_key):
                    return _Problem(inner, "has a key that is not valid Unicode (it holds an "
                                           "unpaired surrogate)", True)
                if key_field.cpp_type != _descriptor.FieldDescriptor.CPPTYPE_STRING and (
                        _integer(map_key) is None if key_field.cpp_type in _INTEGER_RANGES
                        else map_key not in ("true", "false")):
                    return _Problem(inner, f"must be a JSON object, each key the text of "
                                           f"{_item_kind(key_field)}", True)
                if item is None:
                    return _Problem(inner, f"must be {_json_kind(field)}", True)
                problem = _value_problem(value_field, item, f"{where}[{map_key}]", inner)
                if problem is not None:
                    return problem._replace(text=f"must be {_json_kind(field)}") \
                        if problem.text.startswith("must be ") else problem
        elif _repeated(field):
            if not isinstance(value, list):
                return _Problem(inner, f"must be {_json_kind(field)}", True)
            for i, item in enumerate(value):
                if item is None:
                    return _Problem(inner, f"must be {_json_kind(field)} (null is no item)", True)
                item_path = inner if field.message_type is None else path + (f"{key}[{i}]",)  # a message's field: its index
                problem = _value_problem(field, item, f"{where}[{i}]", item_path)
                if problem is not None:
                    return problem
        else:
            problem = _value_problem(field, value, where, inner)
            if problem is not None:
                return problem
    return None


def _first_line(exc: BaseException) -> str:
    text = str(exc).split("\n", 1)[0].strip()
    return text or type(exc).__name__


PARSE_CHUNK = 64
"""How many elements of a long top-level repeated message field (a batch's
``items``) are read into messages between two checks of the call's deadline."""


RARE_FORM_IN_A_LARGE_BODY = (
    f"is over {FALL_BACK_VALUES} JSON values or {FALL_BACK_BYTES >> 20} MiB and holds a value "
    f"in a rare form (a null list item, a key under both its names, a number as a float or "
    f"in words): write it as the protobuf JSON mapping prints it, or split the body")
"""The refusal of a large body (:data:`FALL_BACK_VALUES`) whose values are
valid but not all in the forms :mod:`duetime.api.json_read` reads."""


def _no_check() -> None:
    pass


def _parse_tree(tree: dict, target: Message, check: Callable[[], None] | None,
                fall_back: bool = True) -> None:
    """``json_format.ParseDict(tree, target)`` (read by
    :func:`~duetime.api.json_read.read_json_object`, with ``fall_back``): a
    long top-level list of messages is read :data:`PARSE_CHUNK` elements at
    a time, with ``check()`` (when given) between them (it raises to stop
    the parse); a value :mod:`~duetime.api.json_read` does not read is looked
    for in the chunk that holds it (:class:`~duetime.api.json_read.NotReadHere`'s ``tree``)."""
    if check is None:
        check = _no_check
    fields = target.DESCRIPTOR.fields_by_name
    camel = target.DESCRIPTOR.fields_by_camelcase_name
    rest, lists = {}, []
    for key, value in tree.items():
        field = camel.get(key) or fields.get(key)
        if (field is not None and field.is_repeated
                and field.message_type is not None
                and not field.message_type.GetOptions().map_entry
                and isinstance(value, list) and len(value) > PARSE_CHUNK):
            lists.append((key, value))
        else:
            rest[key] = value
    try:
        read_json_object(rest, target, fall_back)
    except NotReadHere as exc:
        exc.tree = rest
        raise
    for key, value in lists:
        for first in range(0, len(value), PARSE_CHUNK):
            check()
            part = type(target)()
            chunk = value[first:first + PARSE_CHUNK]
            try:
                read_json_object({key: chunk}, part, fall_back)
            except NotReadHere as exc:  # what to look at for the problem: this chunk
                exc.tree = {**rest, key: [{}] * first + chunk}  # (at its indexes)
                raise
            target.MergeFrom(part)
    check()


def check_list_lengths(tree: object, limit: int, unbounded: str = "") -> None:
    """InvalidArgument on ``body`` when an array anywhere in ``tree`` (a
    parsed JSON value) has more than ``limit`` elements, naming its path:
    refused in one pass over the values, before any is read into a message
    (reading 360,000 empty items took 2 s before the batch's own bound
    refused them). The top-level array under the key ``unbounded`` is not
    held to ``limit`` (its elements are)."""
    stack: list[tuple[object, str]] = [(tree, "")]
    if unbounded and isinstance(tree, dict) and isinstance(tree.get(unbounded), list):
        stack = [({k: v for k, v in tree.items() if k != unbounded}, "")]
        stack.extend((value, f"{unbounded}[{i}]") for i, value in enumerate(tree[unbounded])
                     if isinstance(value, (dict, list)))
    while stack:
        node, path = stack.pop()
        if isinstance(node, dict):
            stack.extend((value, f"{path}.{key}" if path else key) for key, value in node.items()
                         if isinstance(value, (dict, list)))
        elif isinstance(node, list):
            if len(node) > limit:
                raise InvalidArgument.at("body", f"the array {path or '(the body)'} has "
                                                 f"{len(node)} elements; no list of a request "
                                                 f"may hold more than {limit} (the most a "
                                                 f"calendar's dates may hold)")
            stack.extend((value, f"{path}[{i}]") for i, value in enumerate(node)
                         if isinstance(value, (dict, list)))


def _parse_body(text: str, target: Message, check: Callable[[], None] | None = None,
                max_list: int | None = None,
                check_item_count: Callable[[int], None] | None = None) -> None:
    """Merge ``text`` (JSON) into ``target`` by the protobuf JSON mapping.
    Raises InvalidArgument on ``body``: ``is not valid JSON for T: <why>``
    (bad JSON, a duplicate key, an unknown field of T itself), or ``field
    a.b: <what is wrong>`` as the walk over T's descriptor found it.
    ``check`` (the call deadline's): called between the steps of a long
    parse, it raises to stop it (see :func:`_parse_tree`)."""
    descriptor = target.DESCRIPTOR
    try:
        tree = json.loads(text, object_pairs_hook=_unique_keys, parse_int=_bounded_integer)
    except _DuplicateKey as exc:
        why = f"duplicate key {exc.key}"
    except _LongKey as exc:
        why = f"a key of {exc.size} characters (at most {MAX_JSON_KEY}: no field is named so long)"
    except _LongNumber as exc:
        why = (f"an integer of {exc.size} digits (at most {MAX_JSON_DIGITS}: no field holds a "
               f"longer one)")
    except RecursionError:
        why = "it is nested too deeply"
    except ValueError as exc:
        why = json_error_text(exc)
    else:
        items = tree.get("items") if isinstance(tree, dict) and check_item_count else None
        if isinstance(items, list):
            check_item_count(len(items))
        if max_list is not None:
            check_list_lengths(tree, max_list, "items" if isinstance(items, list) else "")
        if check is not None:
            check()
        try:
            canonical = canonical_json(tree, descriptor)
            if check is not None:
                check()
            fall_back = len(text) <= FALL_BACK_BYTES and json_values(text) <= FALL_BACK_VALUES
            _parse_tree(canonical, target, check, fall_back)
            return
        except JsonValueError as exc:
            raise InvalidArgument.at("body", f"field {exc.path}: {exc.text}") from None
        except RecursionError:
            why = "it is nested too deeply"
        except Refusal:  # from ``check``: the call's budget ran out or its caller went
            raise
        except Exception as exc:  # noqa: BLE001 - whatever json_format refuses is the body's
            looked = getattr(exc, "tree", tree) if isinstance(exc, NotReadHere) else tree
            problem = _message_problem(looked, descriptor, descriptor.name)
            if problem is not None and problem.path:
                raise InvalidArgument.at("body", f"field {'.'.join(problem.path)}: "
                                                 f"{problem.text}") from None
            if problem is None and isinstance(exc, NotReadHere):
                raise InvalidArgument.at("body", RARE_FORM_IN_A_LARGE_BODY) from None
            why = problem.text if problem is not None else _first_line(exc)
    raise InvalidArgument.at("body", f"is not valid JSON for {descriptor.full_name}: {why}")


UTF8_BOM = b"\xef\xbb\xbf"
"""A byte order mark some editors and Windows tools write before UTF-8
text; one before a body is skipped."""


def build_request(binding: HttpBinding, body: bytes, path_params: dict[str, str],
                  query: Iterable[tuple[str, str]],
                  check: Callable[[], None] | None = None,
                  max_list: int | None = None,
                  check_item_count: Callable[[int], None] | None = None) -> Message:
    """The request message of ``binding`` from the HTTP request's ``body``,
    path parameters (by router name) and query parameters. Raises
    InvalidArgument naming ``body``, a path field or a query parameter.
    ``check``: the call deadline's check, called while a long body is
    parsed (whatever it raises stops the parse); ``max_list``: the most
    elements any array of the body may have (None: no bound), refused
    before the body is read into a message (:func:`check_list_lengths`),
    but for a batch's top-level ``items``, which ``check_item_count`` (the
    call limits') checks instead, refusing them as gRPC refuses them."""
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
        if body.startswith(UTF8_BOM):  # RFC 8259 §8.1: a reader may ignore one
            body = body[len(UTF8_BOM):]
        try:
            text = body.decode("utf-8") if body.strip() else "{}"
        except UnicodeDecodeError as exc:
            raise InvalidArgument.at("body", f"is not UTF-8: {exc}") from None
        if not text.lstrip().startswith("{"):
            raise InvalidArgument.at("body", f"must be a JSON object (a "
                                             f"{target.DESCRIPTOR.full_name} in the protobuf "
                                             "JSON mapping)")
        _parse_body(text, target, check, max_list,
                    check_item_count if "items" in descriptor.fields_by_name else None)
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
    descriptor = request.DESCRIPTOR
    _set_path(tree, descriptor, dotted, values, where)
    try:
        json_format.ParseDict(canonical_json(tree, descriptor), request)
    except JsonValueError as exc:
        raise InvalidArgument.at(where, exc.text) from None
    except json_format.ParseError as exc:
        problem = _message_problem(tree, descriptor, descriptor.name)
        if problem is None:
            reason = f"is not valid for {descriptor.name}: {_first_line(exc)}"
        elif problem.plain:
            reason = problem.text
        else:  # named as the protobuf JSON mapping names a field that failed to parse
            reason = "".join(f"Failed to parse {key} field: " for key in problem.path) +                 problem.text
        raise InvalidArgument.at(where, reason) from None


def check_content_type(value: str) -> None:
    """A POST's ``Content-Type`` header value: ``application/json``, any case,
    optionally with parameters, a ``charset`` only ``utf-8``; else
    :class:`UnsupportedMediaType`."""
    media, _, params = value.partition(";")
    if media.strip().lower() != JSON:
        raise UnsupportedMediaType(value.strip())
    for param in params.split(";"):
        name, _, given = param.partition("=")
        if name.strip().lower() == "charset" and given.strip().strip('"').lower() not in (
                "utf-8", "utf8"):
            raise UnsupportedMediaType(value.strip())


async def _read_body(request: Request, limit: int, in_flight: InFlightBytes | None = None,
                     held: _Held | None = None) -> bytes:
    """The request body; :class:`RequestTooLarge` before reading it when its
    ``Content-Length`` says it is over ``limit`` bytes, else as soon as the
    bytes read pass ``limit`` (the rest is never read). With ``in_flight``,
    the bytes are counted there (and in ``held.bytes``, for the caller to
    release) as they come, never before: a client that announces a large
    body and sends nothing holds nothing; InFlightBytesExhausted when they
    do not fit, in the server's bytes or in ``held.caller``'s share of them
    (the rest is not kept)."""
    length = request.headers.get("content-length", "")
    if length.isdigit() and int(length) > limit:
        raise RequestTooLarge(int(length), True, limit)
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise RequestTooLarge(size, False, limit)
        if held is not None:
            held.read = size
        if in_flight is not None and size > held.bytes:
            in_flight.take(size - held.bytes, held.caller)
            held.bytes = size
        chunks.append(chunk)
    return b"".join(chunks)


async def _run_watched(run: Callable, request: Request, deadline, limiter):
    """``run()`` in a worker thread; meanwhile, once the request body has been
    read, an ``http.disconnect`` from the client marks ``deadline`` (a
    CallDeadline, or None: not watched) so that the work stops at its next
    check with CallerGone."""
    if deadline is None:
        return await anyio.to_thread.run_sync(run, limiter=limiter)

    async def watch() -> None:
        while True:
            message = await request.receive()
            if message.get("type") == "http.disconnect":
                deadline.caller_gone()
                return

    outcome: list = []

    async def work(group: anyio.abc.TaskGroup) -> None:
        try:
            outcome.append(await anyio.to_thread.run_sync(run, limiter=limiter))
        except Exception as exc:  # noqa: BLE001 - raised again below, outside the group
            outcome.append(exc)
        group.cancel_scope.cancel()

    async with anyio.create_task_group() as group:
        group.start_soon(watch)
        group.start_soon(work, group)
    if isinstance(outcome[0], Exception):
        raise outcome[0]
    return outcome[0]


# ---------------------------------------------------------------------------
# who may send requests: Host and Origin

LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "[::1]"})
"""The ``Host`` names a server bound to a loopback address accepts unless
``--http-allow-host`` adds others."""
CORS_METHODS = "GET, POST"
CORS_HEADERS = "Authorization, Content-Type, X-Duetime-Namespace"
"""The request headers a listed origin's scripts may send (preflight answer)."""
CORS_MAX_AGE = "600"
SINGLE_HEADERS = {"host": "Host", "origin": "Origin", "content-type": "Content-Type"}
"""Headers a request may carry at most once (lower-case name → as written):
given twice, the request is refused 400 INVALID_ARGUMENT on ``header Name``,
never read by its first or its last value."""


def is_loopback(host: str) -> bool:
    """Whether listening on ``host`` is reachable from this machine only
    (``localhost``, 127.0.0.0/8, ``::1``)."""
    if host.strip("[]").lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def host_allowlist(host: str, extra: Iterable[str] = ()) -> frozenset[str] | None:
    """The ``Host`` names accepted by a server listening on ``host``: bound to
    a loopback address, :data:`LOOPBACK_NAMES`, ``host`` itself and
    ``extra``; bound elsewhere, any name (None) unless ``extra`` names some,
    then those and the same loopback names."""
    extra = frozenset(extra)
    if not is_loopback(host) and not extra:
        return None
    bound = host.lower()
    bound = f"[{bound}]" if ":" in bound and not bound.startswith("[") else bound
    return LOOPBACK_NAMES | {bound} | extra


_HOST = re.compile(r"(\[[0-9a-f:.]+\]|[a-z0-9._-]+)(?::[0-9]{1,5})?")
"""A ``Host`` header value: a name, an IPv4 address or a bracketed IPv6
address, and optionally ``:`` and a port of digits; nothing else."""


def host_name(value: str) -> str:
    """The name of a ``Host`` header value, lower-case, without the port or a
    trailing dot (``[::1]:8080`` → ``[::1]``); ``""`` when the value is not
    ``host[:port]`` (:data:`_HOST`: ``localhost:80@evil.example``,
    ``a, b``, ``localhost:abc``)."""
    found = _HOST.fullmatch(value.strip().lower())
    return found.group(1).rstrip(".") if found else ""


def _host_allowed(name: str, allowed: frozenset[str]) -> bool:
    if name in allowed:
        return True
    return any(a.startswith("*.") and name.endswith(a[1:]) for a in allowed)


class RequestGuards:
    """ASGI middleware in front of the HTTP face, refusing what a browser on
    another site could be made to send:

    * a ``Host``, ``Origin`` or ``Content-Type`` header given twice is 400
      INVALID_ARGUMENT on ``header Name`` (:data:`SINGLE_HEADERS`);
    * a ``Host`` header not in ``allowed_hosts`` (None: any), or not
      ``host[:port]`` at all, is 403
      PERMISSION_DENIED on ``header Host`` (HOST_NOT_ALLOWED): a DNS-rebinding
      page reaches a server on 127.0.0.1 under its own name;
    * an ``Origin`` header that is neither the server's own origin (the
      request's scheme and ``Host``: the playground) nor in
      ``allowed_origins`` (canonical, :func:`duetime.config.canonical_origin`)
      is 403 PERMISSION_DENIED on ``header Origin`` (ORIGIN_NOT_ALLOWED);
      a request without ``Origin`` (not from a browser page) passes;
    * a CORS preflight (``OPTIONS`` with ``Origin`` and
      ``Access-Control-Request-Method``) from a listed origin is answered 204
      with ``Access-Control-Allow-Origin`` (that origin), ``-Methods``
      (:data:`CORS_METHODS`), ``-Headers`` (:data:`CORS_HEADERS`), ``-Max-Age``;
      every answer to a listed origin carries ``Access-Control-Allow-Origin``.

    Every answer carries ``Vary: Origin``. Other scopes (lifespan) pass.
    """

    def __init__(self, app, allowed_origins: Iterable[str] = (),
                 allowed_hosts: frozenset[str] | None = None):
        self.app = app
        self.allowed_origins = frozenset(allowed_origins)
        self.allowed_hosts = allowed_hosts

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {}
        for key, value in scope["headers"]:
            name = key.decode("latin-1").lower()
            if name in headers and name in SINGLE_HEADERS:
                await _refusal_response(InvalidArgument.at(
                    f"header {SINGLE_HEADERS[name]}",
                    "is given more than once; send it once"),
                    headers={"Vary": "Origin"})(scope, receive, send)
                return
            headers.setdefault(name, value.decode("latin-1"))
        host = headers.get("host")
        if self.allowed_hosts is not None and host is not None and \
                not _host_allowed(host_name(host), self.allowed_hosts):
            shown = sorted(self.allowed_hosts)
            name = host_name(host)
            await self._refuse(HeaderNotAllowed(
                "Host", "HOST_NOT_ALLOWED",
                (f"{name!r} is not a name of this server" if name else
                 f"{host[:200]!r} is not a host name with an optional :port (digits)")
                + f"; it answers {', '.join(shown)} "
                "(serve with --http-allow-host NAME to add one)"),
                scope, receive, send)
            return
        origin = headers.get("origin")
        cors = None
        if origin is not None:
            own = canonical_origin(f"{scope.get('scheme', 'http')}://{host}") if host else None
            given = canonical_origin(origin)
            if given is None or given != own:
                if given is None or given not in self.allowed_origins:
                    await self._refuse(HeaderNotAllowed(
                        "Origin", "ORIGIN_NOT_ALLOWED",
                        f"{origin[:200]!r} may not call this server from a browser: only "
                        f"{own or 'its own origin'}"
                        + (f" and {', '.join(sorted(self.allowed_origins))}"
                           if self.allowed_origins else "")
                        + " may (serve with --http-allow-origin ORIGIN to add one)"),
                        scope, receive, send)
                    return
                cors = origin
        if cors is not None and scope["method"] == "OPTIONS" and \
                "access-control-request-method" in headers:
            await Response(status_code=204, headers={
                "Access-Control-Allow-Origin": cors, "Access-Control-Allow-Methods": CORS_METHODS,
                "Access-Control-Allow-Headers": CORS_HEADERS,
                "Access-Control-Max-Age": CORS_MAX_AGE, "Vary": "Origin"})(scope, receive, send)
            return
        extra = [(b"vary", b"Origin")]
        if cors is not None:
            extra.append((b"access-control-allow-origin", cors.encode("latin-1")))
        started = []

        async def send_with(message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", ()), *extra]}
                started.append(True)
            await send(message)

        try:
            await self.app(scope, receive, send_with)
        except asyncio.CancelledError:
            # the server stops and its grace period is over: this call (still
            # reading its body, or computing) is cut off; its client is told
            # to retry, not handed uvicorn's 500
            if started:
                raise
            log.info("an HTTP call (%s %s) still running when the grace period ended was cut "
                     "off: answered 503 SHUTTING_DOWN", scope["method"], scope["path"][:200])
            await _refusal_response(ShuttingDown(), headers={"Vary": "Origin",
                                                             "Connection": "close"})(
                scope, receive, send)

    @staticmethod
    async def _refuse(refusal: HeaderNotAllowed, scope, receive, send) -> None:
        await _refusal_response(refusal, headers={"Vary": "Origin"})(scope, receive, send)


# ---------------------------------------------------------------------------
# the ASGI application


def _refusal_response(exc: BaseException, http_status: int | None = None,
                      headers: dict[str, str] | None = None) -> Response:
    """The AIP-193 response of ``exc``, status and HTTP status from the one table."""
    return error_response(status_of(exc), http_status or http_status_of(exc), headers)


def create_app(app: DueTimeApp, tokens: TokenSet | None = None,
               max_body_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
               playground: Path | None = PLAYGROUND_DIR,
               metrics: Metrics | None = None, log_calls: bool = True,
               limits: CallLimits | None = None, allowed_origins: Iterable[str] = (),
               allowed_hosts: frozenset[str] | None = None,
               admission: Admission | None = None,
               body_timeout: float = DEFAULT_BODY_TIMEOUT) -> RequestGuards:
    """The ASGI application answering :data:`BINDINGS` over ``app``, behind
    :class:`RequestGuards` (``allowed_origins``: origins besides the server's
    own whose pages may call it, with CORS; ``allowed_hosts``: the ``Host``
    names accepted, None: any; see :func:`host_allowlist`).

    ``tokens``: every API call needs ``Authorization: Bearer <one of them>``
    (else 401 UNAUTHENTICATED); None: no token needed. ``max_body_bytes``:
    the largest request body (else 413). ``playground``: a directory of
    static files served at ``/`` (``index.html``) if it exists, without a
    token. ``metrics``: count and time every API call there; ``log_calls``:
    one request line per API call. ``limits``: the call budget and batch
    size (those of the gRPC server it serves beside; None: no budget, the
    default batch size). ``admission``: the request bytes in flight and the
    calls per tenant, shared with the gRPC server it serves beside (None:
    its own, of the default memory budget, no bound per tenant): a body is
    counted from its ``Content-Length`` (else as it is read) until its
    answer is computed; over either bound the call is refused at once,
    503 or 429 with ``Retry-After`` (:mod:`duetime.api.admission`).
    ``body_timeout``: seconds a client has to send a whole body, from when
    its request is taken up; slower is 408 DEADLINE_EXCEEDED on ``body``
    (BODY_TIMEOUT) and the connection is closed.
    """
    limits = limits if limits is not None else CallLimits()
    if admission is None:
        admission = Admission.of(max_message_bytes=max_body_bytes)
    calls = unary_calls(app, limits)
    most_values = json_max_values(limits.max_batch_calendar_weight)
    tracer = call_tracer()  # None unless OTEL_* variables configure an exporter
    state: dict[str, anyio.CapacityLimiter] = {}

    def limiter() -> anyio.CapacityLimiter:
        if "limiter" not in state:  # created in the event loop, on first use
            state["limiter"] = anyio.CapacityLimiter(MAX_WORKERS)
        return state["limiter"]

    def endpoint(binding: HttpBinding) -> Callable:
        rpc = f"/{binding.service}/{binding.method}"
        use_case = calls[rpc]

        async def answer(request: Request) -> Response:
            held = _Held()
            try:
                return await respond(request, held)
            finally:
                if held.bytes:
                    admission.in_flight.release(held.bytes, held.caller)
                if held.caller is not None:
                    admission.tenants.leave(held.caller)

        async def respond(request: Request, held: _Held) -> Response:
            began = time.perf_counter()
            deadline = limits.deadline()  # from arrival: reading and parsing count too
            peer = f"http:{request.client.host}:{request.client.port}" if request.client else ""
            metadata = tuple(_Metadatum(k.lower(), v) for k, v in request.headers.items())
            response, text, error, caller = None, "", None, ANYONE
            try:
                caller = (authenticate(tokens, metadata, rpc, http=True) if tokens is not None
                          else ANYONE)
                if binding.verb == "POST":
                    check_content_type(request.headers.get("content-type", ""))
                admission.tenants.enter(caller)
                held.caller = caller
                body = b""
                if binding.body:
                    try:
                        with anyio.fail_after(body_timeout):
                            body = await _read_body(request, max_body_bytes,
                                                    admission.in_flight, held)
                    except TimeoutError:
                        timed_out = BodyTimeout(body_timeout, held.read)
                        log.info("client %s did not send its whole request body to %s within "
                                 "%g s: answered 408, connection closed", peer or "(unknown)",
                                 rpc, body_timeout)
                        raise timed_out from None
                    # reading the JSON takes time and memory too: counted before it is read
                    values = counted_json_values(body, most_values)
                    if values > most_values:
                        raise TooManyJsonValues(len(body), values, most_values)
                    reading = json_reading_bytes(body, values)
                    most = admission.in_flight.limit_for(caller)
                    if reading + held.bytes > most:
                        raise JsonTooCostly(len(body), reading, most,
                                            most != admission.in_flight.limit)
                    admission.in_flight.take(reading, caller)
                    held.bytes += reading

                def run() -> tuple[Message, str]:
                    if deadline is not None:
                        deadline.check()
                    message = build_request(binding, body, request.path_params,
                                            request.query_params.multi_items(),
                                            deadline.check if deadline is not None else None,
                                            MAX_DATES, limits.check_item_count)
                    received_at = datetime.now(timezone.utc)
                    reply = use_case(message, metadata, received_at, deadline, caller)
                    # rendered here, so that a reply that cannot be rendered (a
                    # stored record whose bytes are corrupt) is this call's error
                    return reply, message_json(reply)

                response, text = await _run_watched(run, request, deadline, limiter())
            except ClientDisconnect:
                # the caller went away mid-body: nothing to compute, no one to answer
                seconds = time.perf_counter() - began
                log.info("client %s disconnected before sending its whole request body to %s: "
                         "nothing computed or recorded", peer or "(unknown)", rpc)
                if metrics is not None:
                    metrics.observe_call(rpc, DISCONNECTED, seconds)
                if log_calls:
                    log_call(rpc, DISCONNECTED, seconds, "",
                             logged_namespace(metadata, caller.default), peer)
                return error_response(status_pb2.Status(
                    code=code_pb2.CANCELLED, message="the client disconnected before sending "
                                                     "its whole request body"))
            except Exception as exc:  # noqa: BLE001 - every error becomes a status
                log_failure(log, exc)
                error = without_frames(exc)  # which hold the body and what was made of it
            code = code_name(error) if error is not None else "OK"
            reason = reason_of(error) if error is not None else ""
            seconds = time.perf_counter() - began
            if metrics is not None:
                metrics.observe_call(rpc, code, seconds, reason)
            if log_calls:
                log_call(rpc, code, seconds, record_id_of(response),
                         logged_namespace(metadata, caller.default), peer, reason)
            if tracer is not None:
                tracer.http_call(rpc, binding.verb, binding.template,
                                 200 if error is None else http_status_of(error), code, seconds,
                                 record_id_of(response), logged_namespace(metadata, caller.default))
            if error is not None:
                headers = retry_after(error)
                if isinstance(error, Unauthenticated):
                    headers = {"WWW-Authenticate": "Bearer"}
                elif isinstance(error, BodyTimeout):
                    headers = {"Connection": "close"}  # the rest of the body is not read
                return _refusal_response(error, getattr(error, "http_status", None),
                                         headers=headers)
            return Response(text, 200, media_type=JSON)

        answer.__name__ = binding.method
        return answer

    routes: list = [Route(b.path, endpoint(b), methods=[b.verb], name=f"{b.method}:{b.verb}")
                    for b in BINDINGS]

    async def http_error(request: Request, exc: Exception) -> Response:
        code = getattr(exc, "status_code", 500)
        if code == 404:
            return _refusal_response(NoSuchPath(request.method, request.url.path))
        if code == 405:
            allow = (getattr(exc, "headers", None) or {}).get("Allow", "")
            return _refusal_response(MethodNotAllowed(request.method, request.url.path, allow),
                                     headers={"Allow": allow} if allow else None)
        return _refusal_response(HttpError(f"{request.method} {request.url.path}: "
                                           f"{getattr(exc, 'detail', '')}"), http_status=code)

    application = Starlette(routes=routes, exception_handlers={HTTPException: http_error})
    application.router.redirect_slashes = False  # /v1/records/ is a 404 in the JSON shape, not a 307
    if playground is not None and playground.is_dir():
        # what no API route matches, not even by path alone (that is 405)
        application.router.default = PlaygroundFiles(playground)
    return RequestGuards(application, allowed_origins, allowed_hosts)


class PlaygroundFiles:
    """The playground's static files under ``directory``, for what no API
    route matches. A path that is no file there is 404 NOT_FOUND whatever
    the verb (``POST /v1/dueTime:compute``, a mistyped method path, is not
    a 405: it names no method); an existing file asked with a verb other
    than GET or HEAD stays 405."""

    def __init__(self, directory: Path):
        self.files = StaticFiles(directory=directory, html=True)

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "http" and scope["method"] not in ("GET", "HEAD"):
            _, found = await anyio.to_thread.run_sync(self.files.lookup_path,
                                                      self.files.get_path(scope))
            if found is None:
                raise HTTPException(404)
        await self.files(scope, receive, send)


# ---------------------------------------------------------------------------
# running it


@dataclass
class HttpServer:
    """A running HTTP/JSON server: ``port`` is the bound port; :meth:`stop` drains it."""

    server: uvicorn.Server
    thread: threading.Thread
    host: str
    port: int
    grace: float = DEFAULT_GRACE

    def stop(self) -> None:
        """Stop accepting connections, let calls in flight finish (``grace``
        s; after that their connections are closed, and a call still
        computing is dropped by the app as on the gRPC side), then return."""
        self.server.should_exit = True
        self.thread.join(timeout=self.grace + 5)
        if self.thread.is_alive():
            log.warning("the HTTP server did not stop within %g s", self.grace + 5)


def _bind(host: str, port: int, reuse_port: bool = False) -> socket.socket:
    """A listening TCP socket on ``host:port``; RuntimeError if it cannot be
    bound. ``reuse_port``: shared with the other workers (``SO_REUSEPORT``)."""
    shown = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0]
        sock = socket.socket(family, kind, proto)
    except OSError as exc:
        raise RuntimeError(f"cannot bind {shown} (HTTP): {exc}") from None
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if reuse_port:  # only the workers of one `duetime serve --workers N` share it
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind(address)
        sock.listen(2048)
    except OSError:
        sock.close()
        raise RuntimeError(f"cannot bind {shown} (HTTP): address in use, or not an address of this machine?") from None
    sock.setblocking(False)
    return sock


MAX_REQUEST_HEAD_BYTES = 128 << 10
"""Most bytes of a request line and headers the HTTP parser holds while
they arrive. uvicorn's default, 16 KiB, refused a longer request line with
a plain-text 400 whenever it came in more than one read (and read it when it
came in one): at 128 KiB a long path or query (a 100,000-character record
id) always reaches duetime, which refuses it naming the field."""


class HeadTimeout(Refusal):
    """A request head (request line and headers) that did not arrive whole
    within the body timeout (408, DEADLINE_EXCEEDED, on ``headers``; the
    connection is closed)."""

    kind = ErrorKind.OVER_BUDGET
    reason = "HEAD_TIMEOUT"
    http_status = 408

    def __init__(self, seconds: float):
        text = (f"did not arrive whole within {seconds:g} s; a request line and its headers "
                f"must be sent at once (the server's --body-timeout is {seconds:g} s)")
        super().__init__(f"headers: {text}", violations=[FieldViolation("headers", text)],
                         metadata={"body_timeout_seconds": f"{seconds:g}"})


def head_timeout_protocol(seconds: float) -> type:
    """uvicorn's h11 protocol with a head timeout: from when a connection
    opens, and again from the end of each response on it, a client has
    ``seconds`` to send a whole request head. A head not whole by then
    (a slowloris dribbling its headers, or a connection opened and left
    silent) is answered 408 (:class:`HeadTimeout`), logged at INFO and the
    connection closed, so a slow client cannot hold a connection open
    longer than this before it has sent a request. uvicorn's own
    keep-alive timeout only covers an idle connection until its next byte.
    A request answered before its body came whole (a refusal, or a GET
    announcing a body) leaves its connection open at most ``seconds`` more,
    however its client goes on sending (what comes is dropped)."""
    class HeadTimeoutProtocol(H11Protocol):
        def connection_made(self, transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._heads = 0  # request heads come whole so far
            self._started = False  # some bytes of the next head came
            self._arm_head_timer()

        def _arm_head_timer(self) -> None:
            self._started = False
            self.loop.call_later(seconds, self._head_timed_out, self._heads)

        def data_received(self, data: bytes) -> None:
            if self.conn.their_state is h11.IDLE:
                self._started = True
            super().data_received(data)

        def handle_events(self) -> None:
            scope = self.scope
            super().handle_events()
            if self.scope is not scope:  # a request head came whole
                self._heads += 1

        def on_response_complete(self) -> None:
            unread = self.conn.their_state is h11.SEND_BODY  # answered before its body came whole
            super().on_response_complete()
            if self.transport.is_closing():
                return
            if unread:  # the rest of that body is dropped as it comes, for `seconds` at most
                self.loop.call_later(seconds, self._close_unread)
                return
            self._arm_head_timer()

        def _close_unread(self) -> None:
            if self.transport.is_closing():
                return
            if self.conn.their_state is h11.IDLE:  # the body did end: the next head has its time
                self._arm_head_timer()
            else:
                self.transport.close()

        def _head_timed_out(self, heads: int) -> None:
            if heads != self._heads or self.transport.is_closing() or \
                    self.conn.their_state is not h11.IDLE:
                return  # a head came since (its body has its own timeout), or the connection ended
            if not self._started:  # nothing sent: an idle connection, closed as keep-alive's are
                self.transport.close()
                return
            client = "%s:%d" % self.client if self.client else "(unknown)"
            log.info("client %s did not send a whole request head within %g s: answered 408, "
                     "connection closed", client, seconds)
            body = json.dumps(error_body(status_of(HeadTimeout(seconds)), 408),
                              ensure_ascii=False, indent=2).encode()
            self.transport.write(
                b"HTTP/1.1 408 Request Timeout\r\ndate: " +
                formatdate(usegmt=True).encode() + b"\r\ncontent-type: application/json\r\n"
                b"vary: Origin\r\nconnection: close\r\ncontent-length: " +
                str(len(body)).encode() + b"\r\n\r\n" + body)
            self.transport.close()

    return HeadTimeoutProtocol


def start_http_server(app: DueTimeApp, host: str, port: int, *,
                      tokens: TokenSet | None = None,
                      tls_cert: Path | None = None, tls_key: Path | None = None,
                      tls_client_ca: Path | None = None,
                      max_body_bytes: int = DEFAULT_MAX_MESSAGE_BYTES, grace: float = DEFAULT_GRACE,
                      metrics: Metrics | None = None, log_calls: bool = True,
                      limits: CallLimits | None = None,
                      allow_origins: Iterable[str] = (), allow_hosts: Iterable[str] = (),
                      startup_timeout: float = 10.0, reuse_port: bool = False,
                      admission: Admission | None = None,
                      body_timeout: float = DEFAULT_BODY_TIMEOUT) -> HttpServer:
    """Serve :func:`create_app` over ``app`` on ``host:port`` (0: any free
    port) with uvicorn in a background thread, and log ``duetime HTTP/JSON
    listening on http://HOST:PORT`` (``https://`` with TLS).

    ``tls_cert``/``tls_key``: serve HTTPS with that PEM certificate chain and
    key; ``tls_client_ca``: also require a client certificate issued by that
    CA. ``tokens``, ``max_body_bytes``, ``metrics``, ``log_calls``, ``limits``,
    ``admission``, ``body_timeout``: see :func:`create_app`; ``allow_origins``:
    origins (canonical) whose pages may call it besides its own;
    ``allow_hosts``: ``Host`` names accepted besides the loopback ones
    (:func:`host_allowlist`); ``grace``: how long
    :meth:`HttpServer.stop` lets calls in flight finish; ``reuse_port``: share
    the port with the other worker processes of ``duetime serve --workers N``
    (``SO_REUSEPORT``). Raises RuntimeError if the address cannot be bound or
    the server does not start within ``startup_timeout`` s.
    """
    sock = _bind(host, port, reuse_port)
    bound = sock.getsockname()[1]
    tls = {}
    if tls_cert is not None:
        tls = {"ssl_certfile": str(tls_cert), "ssl_keyfile": str(tls_key)}
        if tls_client_ca is not None:
            tls |= {"ssl_ca_certs": str(tls_client_ca), "ssl_cert_reqs": ssl.CERT_REQUIRED}
    config = uvicorn.Config(
        create_app(app, tokens, max_body_bytes, metrics=metrics, log_calls=log_calls,
                   limits=limits, allowed_origins=allow_origins,
                   allowed_hosts=host_allowlist(host, allow_hosts), admission=admission,
                   body_timeout=body_timeout),
        log_config=None, access_log=False, lifespan="off", timeout_graceful_shutdown=grace,
        http=head_timeout_protocol(body_timeout), server_header=False, h11_max_incomplete_event_size=MAX_REQUEST_HEAD_BYTES, **tls,
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
