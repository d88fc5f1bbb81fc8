"""Errors raised by the arithmetic core.

Every error carries one :class:`FieldViolation` per problem, naming the request
field (a dotted path such as ``calendar.holidays[1].date``) and saying what is
wrong in words, so a transport adapter can build a ``google.rpc.BadRequest``
without parsing message text (SPEC §9).
"""

from __future__ import annotations

from typing import NamedTuple


class FieldViolation(NamedTuple):
    """One problem with one request field."""

    field: str
    description: str


class DuetimeError(Exception):
    """Base of the core's errors.

    ``code`` is the gRPC status name the adapter maps to; ``reason`` is a
    stable UPPER_SNAKE identifier; ``violations`` lists every problem found.
    """

    code = "INVALID_ARGUMENT"
    reason = "INVALID_ARGUMENT"

    def __init__(self, violations: list[FieldViolation] | FieldViolation, reason: str | None = None):
        if isinstance(violations, FieldViolation):
            violations = [violations]
        if not violations:
            raise ValueError("a DuetimeError needs at least one violation")
        self.violations = list(violations)
        if reason is not None:
            self.reason = reason
        super().__init__("; ".join(f"{v.field}: {v.description}" for v in self.violations))

    @classmethod
    def at(cls, field: str, description: str, reason: str | None = None) -> "DuetimeError":
        """Shorthand for an error with a single violation."""
        return cls([FieldViolation(field, description)], reason)


class InvalidArgument(DuetimeError):
    """Bad input: malformed text, unknown zone, contradictory calendar."""

    code = "INVALID_ARGUMENT"
    reason = "INVALID_ARGUMENT"


class OutOfRange(DuetimeError):
    """An input or a result outside the supported range (SPEC §1, §2)."""

    code = "OUT_OF_RANGE"
    reason = "OUT_OF_RANGE"
