"""The one error model of duetime: every refusal the service answers with.

A :class:`Refusal` says what kind of problem it is (:class:`ErrorKind`, which
the transports map to a gRPC code and an HTTP status in one table,
:mod:`duetime.api.status`), a stable UPPER_SNAKE ``reason``, whether a retry
of the same call can help (``retryable``), the request fields it concerns
(``violations``) and the facts a caller may act on (``metadata``).

The core raises :class:`DuetimeError` and its kinds (:class:`InvalidArgument`,
:class:`OutOfRange`, ``FailedPrecondition`` in :mod:`duetime.core.clock`):
each carries one :class:`FieldViolation` per problem, naming the request
field (a dotted path such as ``calendar.holidays[1].date``), saying what is
wrong in words and, where known, the offending value and the bound it broke,
so a transport adapter can build a ``google.rpc.BadRequest`` without parsing
message text.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum
from typing import NamedTuple


class ErrorKind(Enum):
    """What went wrong, in the service's own terms (no transport's names)."""

    BAD_INPUT = "bad input"
    """A request field is malformed, unknown or contradicts another."""
    UNSUPPORTED_RANGE = "unsupported range"
    """An input or a result lies outside the range the service supports."""
    STATE_CONFLICT = "state conflict"
    """The state the request carries (an SLA clock's) does not allow it."""
    DUPLICATE = "duplicate"
    """An idempotency key already names another request."""
    ABSENT = "absent"
    """The named thing (a record, a path) does not exist."""
    RETRY_LATER = "retry later"
    """The service cannot answer now (ledger down, shutting down)."""
    OVER_BUDGET = "over budget"
    """The call's work did not finish within the server's time budget."""
    CALLER_GONE = "caller gone"
    """The caller cancelled the call or disconnected before its answer."""
    NO_CREDENTIALS = "no credentials"
    """The call carries no accepted credentials."""
    NOT_PERMITTED = "not permitted"
    """The call's credentials do not allow it (a scope, a namespace)."""
    TOO_LARGE = "too large"
    """The request is larger than the server accepts."""
    BUSY = "busy"
    """The server, or the caller's share of it, is at a limit now: the same
    call may succeed once calls in flight have ended."""
    WRONG_VERB = "wrong verb"
    """The path exists but does not answer that HTTP method."""
    OTHER = "other"
    """A transport-level problem of no other kind."""
    UNEXPECTED = "unexpected"
    """A failure of the service itself (a bug): never the caller's fault."""


class FieldViolation(NamedTuple):
    """One problem with one request field: ``field`` (dotted path), what is
    wrong in words, and where known the offending ``value`` and the
    ``bound`` it broke (both as text; they are not sent on the wire)."""

    field: str
    description: str
    value: str | None = None
    bound: str | None = None


class Refusal(Exception):
    """Base of every error the service answers a call with.

    Class attributes, overridden by each kind of refusal: ``kind``
    (:class:`ErrorKind`), ``reason`` (stable UPPER_SNAKE identifier),
    ``retryable`` (whether sending the same call again later can succeed),
    ``public_message`` (the text callers see; None: ``str(self)``). Per
    instance: ``violations`` (the fields concerned, possibly none) and
    ``metadata`` (name → text facts, e.g. the record id not found).
    """

    kind: ErrorKind = ErrorKind.BAD_INPUT
    reason: str = "INVALID_ARGUMENT"
    retryable: bool = False
    public_message: str | None = None

    def __init__(self, message: str = "", *, violations: list[FieldViolation] | None = None,
                 metadata: Mapping[str, str] | None = None):
        super().__init__(message)
        self.violations: list[FieldViolation] = list(violations or ())
        self.metadata: dict[str, str] = dict(metadata or {})

    @property
    def message(self) -> str:
        """The text callers are told: :attr:`public_message`, else ``str(self)``."""
        return self.public_message if self.public_message is not None else str(self)


class DuetimeError(Refusal):
    """Base of the core's errors: a refusal with at least one violation.

    ``reason`` is a stable UPPER_SNAKE identifier; ``violations`` lists every
    problem found; the message is the violations joined by "; ".
    """

    kind = ErrorKind.BAD_INPUT
    reason = "INVALID_ARGUMENT"

    def __init__(self, violations: list[FieldViolation] | FieldViolation, reason: str | None = None):
        if isinstance(violations, FieldViolation):
            violations = [violations]
        if not violations:
            raise ValueError("a DuetimeError needs at least one violation")
        if reason is not None:
            self.reason = reason
        super().__init__("; ".join(f"{v.field}: {v.description}" for v in violations),
                         violations=violations)

    @classmethod
    def at(cls, field: str, description: str, reason: str | None = None, *,
           value: str | None = None, bound: str | None = None) -> "DuetimeError":
        """Shorthand for an error with a single violation."""
        return cls([FieldViolation(field, description, value, bound)], reason)


class InvalidArgument(DuetimeError):
    """Bad input: malformed text, unknown zone, contradictory calendar."""

    kind = ErrorKind.BAD_INPUT
    reason = "INVALID_ARGUMENT"


class OutOfRange(DuetimeError):
    """An input or a result outside the supported range (docs/semantics.md §1, §2)."""

    kind = ErrorKind.UNSUPPORTED_RANGE
    reason = "OUT_OF_RANGE"
