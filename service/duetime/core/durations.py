"""Duration text (docs/semantics.md §2): parsing into exact integer amounts.

Grammar (whitespace around the text is ignored, never inside it)::

    duration  := sign? ( integer | token+ | iso )
    sign      := "+" | "-"
    token     := number unit          number := [0-9]+ ( "." [0-9]+ )?
    unit      := "ms" | "s" | "m" | "h" | "d" | "w"     (elapsed)
               | "bd"                                    (business days)
               | "bh" | "bm"                             (business time)
    iso       := "P" [nY] [nM] [nW] [nD] [ "T" [xH] [xM] [xS] ]   (upper case)

A duration may end in a landing rule (docs/semantics.md §15)::

    ruled     := duration "@" roll [ "@" time ]     (elapsed or nominal)
               | bd-tokens "@" time                 (business days)
    roll      := "following" | "preceding" | "modified-following" | "modified-preceding"
    time      := HH:MM[:SS] | "open" | "close" | "end"

A bare integer is milliseconds. Tokens of one kind may repeat in any order and
are summed; mixing kinds is an error. Decimals are exact (no binary floating
point) and must come to a whole number of microseconds.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from enum import Enum

from .errors import FieldViolation, InvalidArgument, OutOfRange

US = 1
MS = 1_000
SECOND = 1_000_000
MINUTE = 60 * SECOND
HOUR = 60 * MINUTE
DAY = 24 * HOUR
WEEK = 7 * DAY

#: |bd| limit (docs/semantics.md §2).
MAX_BUSINESS_DAYS = 100_000
#: No duration longer than this can keep a result inside 1900..2199 (docs/semantics.md §1).
MAX_SPAN_US = 400 * 366 * DAY
#: Longest digit run accepted in one number; longer text cannot be in range.
_MAX_DIGITS = 30


class Roll(Enum):
    """Where a due time whose local date is not a business day moves
    (docs/semantics.md §15; ISDA 2006 §4.12, numpy's ``roll``). The value is
    the name in duration text."""

    FOLLOWING = "following"
    PRECEDING = "preceding"
    MODIFIED_FOLLOWING = "modified-following"
    MODIFIED_PRECEDING = "modified-preceding"


#: Landing times that are not a wall time (docs/semantics.md §6, §15).
LANDING_EDGES = ("open", "close", "end")


class DurationKind(Enum):
    """What a duration counts (docs/semantics.md §2 table, column "kind")."""

    ELAPSED = "elapsed"
    BUSINESS_DAY = "business-day"
    BUSINESS_TIME = "business-time"
    NOMINAL = "nominal"


@dataclass(frozen=True)
class NominalParts:
    """The parts of an ISO 8601 duration (docs/semantics.md §2.2), each already signed."""

    years: int = 0
    months: int = 0
    weeks: int = 0
    days: int = 0
    time_us: int = 0


@dataclass(frozen=True)
class Duration:
    """A parsed duration.

    ``micros`` holds elapsed or business time in microseconds (signed);
    ``days`` holds the business-day count (signed); ``nominal`` holds the parts
    of an ISO 8601 duration. ``text`` is the input, stripped.
    """

    kind: DurationKind
    micros: int = 0
    days: int = 0
    nominal: NominalParts | None = None
    text: str = ""
    #: Relative deadline or landing time (``Nbd@HH:MM``, ``P1M@following@16:00``):
    #: µs after local midnight.
    at_time: int | None = None
    #: Relative deadline or landing time ``"open"``, ``"close"`` or ``"end"``
    #: (``Nbd@open``, ``P2W@following@end``).
    at_edge: str | None = None
    #: The landing rule's roll of an elapsed or nominal duration
    #: (``P1M@following``, docs/semantics.md §15); None: no roll.
    roll: Roll | None = None

    # cached: the arithmetic asks on every call, and a Duration never changes
    @functools.cached_property
    def is_relative(self) -> bool:
        """True for ``Nbd@HH:MM`` / ``Nbd@open`` / ``Nbd@close`` / ``Nbd@end``
        and for every duration with a landing rule (``P1M@following``): none
        of them has a clock measure."""
        return self.at_time is not None or self.at_edge is not None or self.roll is not None

    @functools.cached_property
    def is_zero_amount(self) -> bool:
        """True when the amount is zero, whatever rule follows it (``P0D@following``)."""
        if self.kind is DurationKind.NOMINAL:
            n = self.nominal
            return n is None or not (n.years or n.months or n.weeks or n.days or n.time_us)
        return self.micros == 0 and self.days == 0

    @functools.cached_property
    def is_zero(self) -> bool:
        """True when the duration returns the start unchanged: a zero amount
        without a relative deadline or landing rule (docs/semantics.md §2)."""
        return not self.is_relative and self.is_zero_amount


_UNITS: dict[str, tuple[int, DurationKind]] = {
    "ms": (MS, DurationKind.ELAPSED),
    "s": (SECOND, DurationKind.ELAPSED),
    "m": (MINUTE, DurationKind.ELAPSED),
    "h": (HOUR, DurationKind.ELAPSED),
    "d": (DAY, DurationKind.ELAPSED),
    "w": (WEEK, DurationKind.ELAPSED),
    "bd": (1, DurationKind.BUSINESS_DAY),
    "bh": (HOUR, DurationKind.BUSINESS_TIME),
    "bm": (MINUTE, DurationKind.BUSINESS_TIME),
}
_NUMBER = re.compile(r"[0-9]+(?:\.[0-9]+)?")
_UNIT = re.compile(r"ms|bd|bh|bm|[smhdw]")
_ISO = re.compile(
    r"P(?:([0-9]+)Y)?(?:([0-9]+)M)?(?:([0-9]+)W)?(?:([0-9]+)D)?"
    r"(?:T(?:([0-9]+(?:\.[0-9]+)?)H)?(?:([0-9]+(?:\.[0-9]+)?)M)?(?:([0-9]+(?:\.[0-9]+)?)S)?)?"
)


def _scaled(number: str, unit_us: int, field: str, text: str, pos: int) -> int:
    """Exact ``number × unit_us`` as an integer; error if not whole."""
    whole, _, frac = number.partition(".")
    whole, frac = whole.lstrip("0") or "0", frac.rstrip("0")
    if len(whole) > _MAX_DIGITS:
        raise OutOfRange.at(field, f"the number at position {pos + 1} of {text!r} is too large to be in range")
    if len(frac) > _MAX_DIGITS:  # more significant decimals than any unit has microseconds for
        raise InvalidArgument.at(field, f"{number!r} at position {pos + 1} of {text!r} is not a whole number of microseconds")
    scale = 10 ** len(frac)
    value = (int(whole) * scale + int(frac or "0")) * unit_us
    if value % scale:
        raise InvalidArgument.at(
            field,
            f"{number!r} at position {pos + 1} of {text!r} is not a whole number of microseconds",
        )
    return value // scale


def _check_span(micros: int, field: str, text: str) -> None:
    if abs(micros) > MAX_SPAN_US:
        raise OutOfRange.at(field, f"{text!r} is longer than 400 years; no result could be in 1900-01-01..2199-12-31")


def parse_duration(text: str, field: str = "duration") -> Duration:
    """Parse duration text; see :func:`_parse_duration` (results are cached)."""
    if not isinstance(text, str):
        raise InvalidArgument.at(field, "a duration must be text")
    return _parse_cached(text, field)


@functools.lru_cache(maxsize=4096)
def _parse_cached(text: str, field: str) -> Duration:
    return _parse_duration(text, field)


def _parse_duration(text: str, field: str = "duration") -> Duration:
    """Parse duration text (docs/semantics.md §2, §2.2) into a :class:`Duration`.

    Raises :class:`InvalidArgument` naming ``field`` with the offending text and
    its 1-based position, or :class:`OutOfRange` for |bd| > 100000 or spans that
    cannot fit the supported range.
    """
    if not isinstance(text, str):
        raise InvalidArgument.at(field, "a duration must be text")
    s = text.strip()
    if not s:
        raise InvalidArgument.at(field, "the duration is empty; write e.g. '30m', '3bd', '8bh' or 'P1D'")
    sign, body, offset = 1, s, 0
    if s[0] in "+-":
        sign, body, offset = (-1 if s[0] == "-" else 1), s[1:], 1
        if not body:
            raise InvalidArgument.at(field, f"{s!r} has a sign but no amount")
    if "@" in body:
        return _parse_ruled(s, body, sign, offset, field)
    if body[0] in "Pp":
        return _parse_iso(s, body, sign, offset, field)
    if body.isascii() and body.isdigit():
        if len(body) > _MAX_DIGITS:
            raise OutOfRange.at(field, f"{s!r} is too long to be in range")
        micros = sign * int(body) * MS
        _check_span(micros, field, s)
        return Duration(DurationKind.ELAPSED, micros=micros, text=s)
    return _parse_tokens(s, body, sign, offset, field)


def _parse_tokens(s: str, body: str, sign: int, offset: int, field: str) -> Duration:
    kind: DurationKind | None = None
    total = 0
    pos = 0
    bd_fraction = False
    while pos < len(body):
        at = pos + offset
        num = _NUMBER.match(body, pos)
        if not num:
            ch = body[pos]
            if ch.isspace():
                what = "whitespace inside a duration is not allowed"
            elif ch in "+-":
                what = f"a sign may only lead the duration (found {ch!r})"
            elif ch.isdigit():
                what = f"{ch!r} is not an ASCII digit"
            else:
                what = f"expected a number, found {ch!r}"
            raise InvalidArgument.at(field, f"{what} at position {at + 1} of {s!r}")
        unit = _UNIT.match(body, num.end())
        # a unit must end the token: next char is the end or a digit
        end = unit.end() if unit else num.end()
        if not unit or (end < len(body) and body[end].isalpha()):
            j = num.end()
            while j < len(body) and not body[j].isdigit() and body[j] not in "+-." and not body[j].isspace():
                j += 1
            bad = body[num.end():j]
            if not bad:
                if num.end() == len(body):
                    raise InvalidArgument.at(field, f"{num.group()!r} at position {at + 1} of {s!r} needs a unit (ms, s, m, h, d, w, bd, bh, bm)")
                raise InvalidArgument.at(field, f"unexpected {body[num.end()]!r} at position {num.end() + offset + 1} of {s!r}")
            hint = "; units are lower case" if bad.lower() in _UNITS else ""
            raise InvalidArgument.at(
                field,
                f"unknown unit {bad!r} at position {num.end() + offset + 1} of {s!r} "
                f"(use ms, s, m, h, d, w, bd, bh or bm{hint})",
            )
        unit_us, unit_kind = _UNITS[unit.group()]
        if kind is not None and unit_kind is not kind:
            raise InvalidArgument.at(
                field,
                f"{s!r} mixes {kind.value} and {unit_kind.value} units (at position {unit.start() + offset + 1}); "
                "use one kind per duration",
            )
        kind = unit_kind
        number = num.group()
        if unit_kind is DurationKind.BUSINESS_DAY:
            whole, _, frac = number.partition(".")
            if frac.strip("0"):
                bd_fraction = True
            elif len(whole) > _MAX_DIGITS:
                raise OutOfRange.at(field, f"{s!r} is more than {MAX_BUSINESS_DAYS} business days",
                                    value=s, bound=f"{MAX_BUSINESS_DAYS}bd")
            else:
                total += int(whole)
        else:
            total += _scaled(number, unit_us, field, s, at)
        pos = end
    assert kind is not None
    if bd_fraction:
        raise InvalidArgument.at(field, f"{s!r}: business days must be whole; use bh for parts of a business day")
    if kind is DurationKind.BUSINESS_DAY:
        if total > MAX_BUSINESS_DAYS:
            raise OutOfRange.at(field, f"{s!r} is more than {MAX_BUSINESS_DAYS} business days (the limit is |bd| <= {MAX_BUSINESS_DAYS})",
                                value=s, bound=f"{MAX_BUSINESS_DAYS}bd")
        return Duration(kind, days=sign * total, text=s)
    _check_span(total, field, s)
    return Duration(kind, micros=sign * total, text=s)


_AT_TIME = re.compile(r"([0-9]{1,2}):([0-9]{2})(?::([0-9]{2}))?")
_ROLLS = {r.value: r for r in Roll}
_ROLL_NAMES = ", ".join(repr(r.value) for r in Roll)


def parse_landing_time(text: str, field: str, where: str = "") -> tuple[int | None, str | None]:
    """A landing time (docs/semantics.md §6, §15): ``HH:MM`` or ``HH:MM:SS``
    (00:00..23:59:59; a one-digit hour too, ``9:00``) → ``(µs after local
    midnight, None)``; ``open``, ``close`` or ``end`` in any case → ``(None,
    name)`` with the name in lower case. ``where`` locates ``text`` in
    the duration for messages (e.g. "at position 5 of 'P1M@following@x'").
    InvalidArgument on ``field`` otherwise (``24:00``: write ``end``)."""
    at = f" {where}" if where else ""
    if text.lower() in LANDING_EDGES:
        return None, text.lower()
    m = _AT_TIME.fullmatch(text)
    if m and (int(m[1]), int(m[2]), int(m[3] or 0)) == (24, 0, 0):
        raise InvalidArgument.at(field, f"{text!r}{at}: the end of the day is written 'end' (24:00 is the next date's 00:00)")
    if not m or int(m[1]) > 23 or int(m[2]) > 59 or int(m[3] or 0) > 59:
        raise InvalidArgument.at(
            field, f"{text!r}{at} is not a local time HH:MM (00:00..23:59), 'open', 'close' or 'end'"
        )
    return ((int(m[1]) * 60 + int(m[2])) * 60 + int(m[3] or 0)) * SECOND, None


def parse_roll(text: str, field: str, where: str = "") -> Roll:
    """A roll's name (``following``, ``preceding``, ``modified-following``,
    ``modified-preceding``, any case) → :class:`Roll`; InvalidArgument on
    ``field`` listing the names otherwise."""
    roll = _ROLLS.get(text.lower())
    if roll is None:
        at = f" {where}" if where else ""
        raise InvalidArgument.at(field, f"{text!r}{at} is not a roll; write one of {_ROLL_NAMES}")
    return roll


def _parse_ruled(s: str, body: str, sign: int, offset: int, field: str) -> Duration:
    """A duration with a landing rule (docs/semantics.md §6, §15):
    ``Nbd@TIME`` (a relative deadline), ``DURATION@ROLL`` or
    ``DURATION@ROLL@TIME`` for elapsed and nominal durations."""
    space = next((i for i, ch in enumerate(body) if ch.isspace()), None)
    if space is not None:  # as for "1h 30m" (docs/semantics.md §2): "P1M @following" is refused too
        raise InvalidArgument.at(field, f"whitespace inside a duration is not allowed at position {offset + space + 1} "
                                        f"of {s!r}")
    left, *rule = body.split("@")
    if not left:
        raise InvalidArgument.at(field, f"{s!r}: write a duration before '@', e.g. '1bd@16:00' or 'P1M@following'")
    if len(rule) > 2:
        raise InvalidArgument.at(field, f"{s!r} has more than two '@'; write DURATION@ROLL@TIME, e.g. 'P2W@following@end'")
    pos = [offset + len(left) + 1]
    for piece in rule[:-1]:
        pos.append(pos[-1] + len(piece) + 1)
    for piece, p in zip(rule, pos):
        if not piece:
            raise InvalidArgument.at(field, f"{s!r}: nothing after the '@' at position {p} "
                                            "(write a roll such as 'following', or a time such as '16:00' or 'end')")
    base = _parse_duration(s[: offset + len(left)], field)
    where = [f"at position {p + 1} of {s!r}" for p in pos]
    if base.kind is DurationKind.BUSINESS_TIME:
        raise InvalidArgument.at(field, f"{s!r}: business hours already count open time, so they take no landing rule "
                                        "('@' follows business days, elapsed or ISO 8601 durations)")
    if base.kind is DurationKind.BUSINESS_DAY:
        if len(rule) == 2 and rule[0].lower() not in _ROLLS:
            raise InvalidArgument.at(field, f"{s!r}: a business-day duration takes one landing time, not two; "
                                            f"write e.g. '{s[: offset + len(left)]}@{rule[0]}'")
        if len(rule) == 2 or rule[0].lower() in _ROLLS:
            raise InvalidArgument.at(field, f"{s!r}: business days already land on a business day, so they take no roll; "
                                            f"write only the time, e.g. '{s[: offset + len(left)]}@end'")
        at_time, at_edge = parse_landing_time(rule[0], field, where[0])
        return Duration(base.kind, days=base.days, text=s, at_time=at_time, at_edge=at_edge)
    if rule[0].lower() not in _ROLLS:
        if rule[0].lower() in LANDING_EDGES or _AT_TIME.fullmatch(rule[0]):
            raise InvalidArgument.at(field, f"{s!r}: a landing time after an elapsed or ISO 8601 duration needs a roll "
                                            f"before it, e.g. '{s[: offset + len(left)]}@following@{rule[0]}'")
        parse_roll(rule[0], field, where[0])
    roll = _ROLLS[rule[0].lower()]
    at_time, at_edge = parse_landing_time(rule[1], field, where[1]) if len(rule) == 2 else (None, None)
    return Duration(base.kind, micros=base.micros, nominal=base.nominal, text=s, at_time=at_time, at_edge=at_edge,
                    roll=roll)


def with_landing(d: Duration, roll: Roll | None, landing_time: str, *, field: str = "duration",
                 roll_field: str = "roll", time_field: str = "landing_time") -> Duration:
    """``d`` with the landing rule that request fields give beside it
    (docs/semantics.md §15): ``roll`` (None: none) and ``landing_time``
    (``HH:MM``, ``open``, ``close``, ``end``; empty: none). The answer is
    the duration the text ``DURATION@ROLL@TIME`` would give, its ``text``
    that text. InvalidArgument when ``d``'s text already has a rule (naming
    ``field`` and the field given beside it), for a roll after business days
    or business time (on ``roll_field``), for a time without a roll after an
    elapsed or ISO 8601 duration and for a bad time (on ``time_field``).
    Neither given: ``d`` unchanged."""
    if roll is None and not landing_time:
        return d
    given = [f for f, v in ((roll_field, roll), (time_field, landing_time)) if v]
    if "@" in d.text:
        what = " and ".join(given)
        raise InvalidArgument([
            FieldViolation(field, f"{d.text!r} has a landing rule and {what} gives one too; "
                                  f"give it in one place: in the text or in {what}"),
            *(FieldViolation(f, f"is given while {field} {d.text!r} has its own landing rule; leave it unset "
                                "or remove the '@…' from the text") for f in given),
        ])
    if roll is not None and d.kind in (DurationKind.BUSINESS_DAY, DurationKind.BUSINESS_TIME):
        why = "business days already land on a business day" if d.kind is DurationKind.BUSINESS_DAY else \
            "business hours already count open time"
        raise InvalidArgument.at(roll_field, f"{roll.value!r} cannot roll {field} {d.text!r}: {why}; leave {roll_field} unset")
    if d.kind is DurationKind.BUSINESS_TIME:
        raise InvalidArgument.at(time_field, f"{landing_time!r} cannot follow {field} {d.text!r}: business hours "
                                             f"already count open time; leave {time_field} unset")
    at_time, at_edge = parse_landing_time(landing_time, time_field) if landing_time else (None, None)
    if roll is None and d.kind is not DurationKind.BUSINESS_DAY:
        # a command-line flag is shown as it is typed, a wire field with the enum's name
        example = f"{roll_field} following" if roll_field.startswith("--") else "FOLLOWING"
        raise InvalidArgument.at(time_field, f"{landing_time!r} after the elapsed or ISO 8601 duration {d.text!r} "
                                             f"needs a roll: set {roll_field} too (e.g. {example})")
    text = d.text + (f"@{roll.value}" if roll is not None else "") + (f"@{landing_time}" if landing_time else "")
    return Duration(d.kind, micros=d.micros, days=d.days, nominal=d.nominal, text=text, at_time=at_time,
                    at_edge=at_edge, roll=roll)


def _parse_iso(s: str, body: str, sign: int, offset: int, field: str) -> Duration:
    if body[0] == "p" or any(c.isalpha() and c.islower() for c in body):
        raise InvalidArgument.at(field, f"{s!r}: ISO 8601 designators are upper case (P, Y, M, W, D, T, H, M, S)")
    m = _ISO.fullmatch(body)
    if not m or body in ("P", "PT") or body.endswith("T"):
        if m is None and re.fullmatch(r"P(?:[0-9.]+[YMWD])*(?:T.*)?", body) and "." in body.split("T")[0]:
            raise InvalidArgument.at(field, f"{s!r}: a decimal is allowed only in the time part (after T)")
        raise InvalidArgument.at(field, f"{s!r} is not an ISO 8601 duration such as P1Y2M3W4DT5H6M7S")
    y, mo, w, d, h, mi, se = m.groups()
    for part in (y, mo, w, d):
        if part is not None and len(part) > _MAX_DIGITS:
            raise OutOfRange.at(field, f"{s!r} is too long to be in range")
    time_us = 0
    for part, unit in ((h, HOUR), (mi, MINUTE), (se, SECOND)):
        if part is not None:
            time_us += _scaled(part, unit, field, s, offset)
    years, months, weeks, days = (int(p or 0) for p in (y, mo, w, d))
    span = (years * 366 + months * 31 + weeks * 7 + days) * DAY + time_us
    _check_span(span, field, s)
    parts = NominalParts(sign * years, sign * months, sign * weeks, sign * days, sign * time_us)
    return Duration(DurationKind.NOMINAL, nominal=parts, text=s)
