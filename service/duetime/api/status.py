"""The one status table: every refusal (:class:`duetime.core.Refusal`) as a
``google.rpc.Status`` for gRPC and as an HTTP status for the JSON API
(AIP-193). The gRPC servicers, the batch item results, the HTTP face and the
bearer-token interceptor all build their statuses here; mapping never logs
(the caller that catches an unexpected exception logs it, with its traceback).

==============  ===================  ====  ================================================
kind            gRPC code            HTTP  reasons (ErrorInfo, domain :data:`ERROR_DOMAIN`)
==============  ===================  ====  ================================================
BAD_INPUT       INVALID_ARGUMENT     400   INVALID_ARGUMENT and the core's own
UNSUPPORTED_    OUT_OF_RANGE         400   OUT_OF_RANGE and the core's own
RANGE
STATE_CONFLICT  FAILED_PRECONDITION  400   CLOCK_EVENT_NOT_ALLOWED, ...
DUPLICATE       ALREADY_EXISTS       409   IDEMPOTENCY_KEY_REUSED
ABSENT          NOT_FOUND            404   RECORD_NOT_FOUND, NO_SUCH_PATH
RETRY_LATER     UNAVAILABLE          503   LEDGER_UNAVAILABLE, SHUTTING_DOWN
OVER_BUDGET     DEADLINE_EXCEEDED    504   CALL_BUDGET_EXCEEDED; BODY_TIMEOUT, HEAD_TIMEOUT
                                           (HTTP 408)
CALLER_GONE     CANCELLED            499   CALLER_GONE (the caller cancelled or hung up)
NO_CREDENTIALS  UNAUTHENTICATED      401   TOKEN_MISSING, TOKEN_INVALID
NOT_PERMITTED   PERMISSION_DENIED    403   SCOPE_MISSING, NAMESPACE_NOT_PERMITTED,
                                           ORIGIN_NOT_ALLOWED, HOST_NOT_ALLOWED
TOO_LARGE       RESOURCE_EXHAUSTED   413   REQUEST_TOO_LARGE
BUSY            RESOURCE_EXHAUSTED   429   TENANT_CALLS_EXHAUSTED, IN_FLIGHT_BYTES_EXHAUSTED
                                           (HTTP 503), both with Retry-After;
                                           STREAMS_EXHAUSTED (gRPC only)
WRONG_VERB      UNIMPLEMENTED        405   METHOD_NOT_ALLOWED
OTHER           UNKNOWN              500   HTTP_ERROR (HTTP: the status it came with)
UNEXPECTED      INTERNAL             500   INTERNAL (any exception not a Refusal)
==============  ===================  ====  ================================================

Details, in this order: a refusal's violations as a ``google.rpc.BadRequest``
(one FieldViolation each) or, for STATE_CONFLICT, a
``google.rpc.PreconditionFailure`` (type :data:`PRECONDITION_TYPE`, subject
the field); then a ``google.rpc.ErrorInfo`` with its reason and metadata.
The message is the violations joined by "; " for the core's errors
(:class:`~duetime.core.DuetimeError`), else the refusal's public message; an
unexpected exception is "internal error", never its text.

Every text a status carries is bounded, so an echoed input can never make the
status exceed gRPC's metadata limits: a violation's description at most
:data:`MAX_DESCRIPTION` characters, its field :data:`MAX_FIELD`, at most
:data:`MAX_VIOLATIONS` violations within :data:`MAX_DETAILS_BYTES` (then one
saying how many more there were), the message :data:`MAX_MESSAGE` characters
(fewer when they are not ASCII), each metadata value :data:`MAX_FIELD`;
whatever is cut ends with "…".
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Sequence
from typing import NamedTuple

import grpc
from google.protobuf import any_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status

from duetime.core.errors import DuetimeError, ErrorKind, FieldViolation, Refusal

ERROR_DOMAIN = "duetime.dev"
"""The ``google.rpc.ErrorInfo`` domain of every duetime status."""
PRECONDITION_TYPE = "CLOCK_STATE"
"""PreconditionFailure violation type of a clock event the state does not allow."""
MAX_DESCRIPTION = 300
"""Longest violation description in a status, in characters."""
MAX_FIELD = 200
"""Longest violation field (and ErrorInfo metadata value) in a status, in characters."""
MAX_VIOLATIONS = 20
"""Most violations one status lists."""
MAX_DETAILS_BYTES = 2500
"""Most UTF-8 bytes of violation text one status lists."""
MAX_MESSAGE = 1000
"""Longest status message, in characters."""
_MESSAGE_WEIGHT = 2000
"""Most bytes a status message may take once percent-encoded for the wire."""


class StatusRow(NamedTuple):
    """How one :class:`~duetime.core.ErrorKind` is reported: its
    ``google.rpc.Code`` and its HTTP status."""

    code: int
    http: int


TABLE: dict[ErrorKind, StatusRow] = {
    ErrorKind.BAD_INPUT: StatusRow(code_pb2.INVALID_ARGUMENT, 400),
    ErrorKind.UNSUPPORTED_RANGE: StatusRow(code_pb2.OUT_OF_RANGE, 400),
    ErrorKind.STATE_CONFLICT: StatusRow(code_pb2.FAILED_PRECONDITION, 400),
    ErrorKind.DUPLICATE: StatusRow(code_pb2.ALREADY_EXISTS, 409),
    ErrorKind.ABSENT: StatusRow(code_pb2.NOT_FOUND, 404),
    ErrorKind.RETRY_LATER: StatusRow(code_pb2.UNAVAILABLE, 503),
    ErrorKind.OVER_BUDGET: StatusRow(code_pb2.DEADLINE_EXCEEDED, 504),
    ErrorKind.CALLER_GONE: StatusRow(code_pb2.CANCELLED, 499),
    ErrorKind.NO_CREDENTIALS: StatusRow(code_pb2.UNAUTHENTICATED, 401),
    ErrorKind.NOT_PERMITTED: StatusRow(code_pb2.PERMISSION_DENIED, 403),
    ErrorKind.TOO_LARGE: StatusRow(code_pb2.RESOURCE_EXHAUSTED, 413),
    ErrorKind.BUSY: StatusRow(code_pb2.RESOURCE_EXHAUSTED, 429),
    ErrorKind.WRONG_VERB: StatusRow(code_pb2.UNIMPLEMENTED, 405),
    ErrorKind.OTHER: StatusRow(code_pb2.UNKNOWN, 500),
    ErrorKind.UNEXPECTED: StatusRow(code_pb2.INTERNAL, 500),
}
"""Every error kind's gRPC code and HTTP status (the module docstring's table)."""

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
``google/rpc/code.proto``, as in AIP-193), for a status that names no kind;
a kind's own HTTP status is in :data:`TABLE`."""


def kind_of(exc: BaseException) -> ErrorKind:
    """The kind of ``exc``: a refusal's own, else UNEXPECTED."""
    return exc.kind if isinstance(exc, Refusal) else ErrorKind.UNEXPECTED


def code_name(exc: BaseException) -> str:
    """The ``google.rpc.Code`` name that reports ``exc`` (``"INVALID_ARGUMENT"`` …)."""
    return code_pb2.Code.Name(TABLE[kind_of(exc)].code)


def http_status_of(exc: BaseException) -> int:
    """The HTTP status that reports ``exc`` over the JSON API."""
    return TABLE[kind_of(exc)].http


def clip(text: str, limit: int) -> str:
    """``text``, or its first ``limit - 1`` characters and "…"."""
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _wire_weight(char: str) -> int:
    """Bytes ``char`` takes in a percent-encoded grpc-message."""
    return 1 if " " <= char <= "~" and char != "%" else 3 * len(char.encode("utf-8", "replace"))


def clip_message(text: str) -> str:
    """``text`` cut to :data:`MAX_MESSAGE` characters and to
    :data:`_MESSAGE_WEIGHT` bytes on the wire, ending with "…" when cut."""
    text, total = clip(text, MAX_MESSAGE), 0
    for i, char in enumerate(text):
        total += _wire_weight(char)
        if total > _MESSAGE_WEIGHT - 9:  # room for the "…"
            return text[:i] + "…"
    return text


def shown_violations(violations: Sequence[FieldViolation]) -> list[FieldViolation]:
    """``violations`` as a status lists them: each field and description
    clipped, at most :data:`MAX_VIOLATIONS` within :data:`MAX_DETAILS_BYTES`,
    then one more on the first left out saying how many were."""
    shown: list[FieldViolation] = []
    size = 0
    for i, v in enumerate(violations):
        field, description = clip(v.field, MAX_FIELD), clip(v.description, MAX_DESCRIPTION)
        size += len(field.encode()) + len(description.encode())
        if i == MAX_VIOLATIONS or size > MAX_DETAILS_BYTES:
            rest = len(violations) - i
            shown.append(FieldViolation(field, f"… and {rest} more problem(s) not shown; fix "
                                               "the ones above and send the request again"))
            break
        shown.append(FieldViolation(field, description))
    return shown


def _any(message) -> any_pb2.Any:
    packed = any_pb2.Any()
    packed.Pack(message)
    return packed


def status_of(exc: BaseException) -> status_pb2.Status:
    """The ``google.rpc.Status`` (code, message, details) that reports
    ``exc``, every text in it bounded (see the module docstring). Any
    exception that is not a :class:`~duetime.core.Refusal` is INTERNAL
    "internal error" (the caller logs it). Never logs."""
    if not isinstance(exc, Refusal):
        return status_pb2.Status(code=code_pb2.INTERNAL, message="internal error", details=[
            _any(error_details_pb2.ErrorInfo(reason="INTERNAL", domain=ERROR_DOMAIN))])
    row = TABLE[exc.kind]
    violations = shown_violations(exc.violations)
    details = []
    if violations and exc.kind is ErrorKind.STATE_CONFLICT:
        details.append(error_details_pb2.PreconditionFailure(violations=[
            error_details_pb2.PreconditionFailure.Violation(
                type=PRECONDITION_TYPE, subject=v.field, description=v.description)
            for v in violations]))
    elif violations:
        details.append(error_details_pb2.BadRequest(field_violations=[
            error_details_pb2.BadRequest.FieldViolation(field=v.field, description=v.description)
            for v in violations]))
    details.append(error_details_pb2.ErrorInfo(
        reason=exc.reason, domain=ERROR_DOMAIN,
        metadata={k: clip(v, MAX_FIELD) for k, v in exc.metadata.items()}))
    message = ("; ".join(f"{v.field}: {v.description}" for v in violations)
               if isinstance(exc, DuetimeError) else exc.message)
    return status_pb2.Status(code=row.code, message=clip_message(message),
                             details=[_any(d) for d in details])


class RefusalStatus(namedtuple("RefusalStatus", ("code", "details", "trailing_metadata",
                                                  "reason")), grpc.Status):
    """A ``grpc.Status`` as :func:`grpc_status` makes it, with the ``reason``
    of its ErrorInfo beside it (for the call's log line and metrics)."""


def grpc_status(exc: BaseException) -> RefusalStatus:
    """:func:`status_of` ``exc`` as gRPC sends it (code, message and the
    status in ``grpc-status-details-bin``), for ``abort_with_status``."""
    sent = rpc_status.to_status(status_of(exc))
    return RefusalStatus(sent.code, sent.details, sent.trailing_metadata, reason_of(exc))


def reason_of(exc: BaseException) -> str:
    """The ErrorInfo reason :func:`status_of` gives ``exc`` (``INTERNAL``
    for an exception that is not a refusal), for logs and metrics."""
    return exc.reason if isinstance(exc, Refusal) else "INTERNAL"


def without_frames(exc: BaseException) -> BaseException:
    """``exc`` without its traceback and the exceptions before it, to be
    kept once it is caught: their frames hold what the call was given (up
    to ``--max-message-bytes`` of request bytes, and what was made of
    them), and an exception kept in a frame of its own traceback waits for
    the cyclic garbage collector, which an idle server runs seldom (16 MiB
    messages refused, eight at a time, kept 140 MB alive; 15 MB HTTP
    bodies, 450 MB)."""
    exc.__traceback__ = exc.__context__ = exc.__cause__ = None
    return exc
