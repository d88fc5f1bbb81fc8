"""The text forms the command line and the typed client both read.

Standard library only, no import side effects: :mod:`duetime.client` uses it
without pulling in the command line, and :mod:`duetime.cli` wraps each
parser's answer in the request messages it sends. What is read here:

- day specs (``mon-fri``, ``sat,sun``, ``mon,wed-fri``; a range may wrap);
- weekly hours (``"mon-fri 09:00-12:00,13:00-17:00"``, repeatable; an hour
  may have one digit, ``9:00`` is sent as ``09:00``);
- a weekend (a day spec, or ``none``);
- named dates (``DATE[=NAME]``) and date overrides
  (``DATE=closed[=NAME]``, ``DATE=HH:MM-HH:MM[,HH:MM-HH:MM...][=NAME]``);
- week periods (``FROM[: PART; PART ...]``, docs/semantics.md §16);
- schedule deadlines (``NAME=DURATION`` or ``NAME=DURATION@after:OTHER``);
- bundle references (``NAME`` or ``NAME@VERSION``);
- instant text, strictly RFC 3339 with an offset (also what the JSON faces
  read, beside the protobuf JSON mapping's own form);
- a duration typed on the command line (a unit is required, see
  :func:`check_duration_text`);
- a server address (``HOST:PORT``, see :func:`check_server_address`).

The clock times of weekly hours are checked here (once per spec, whatever
number of days it names); dates, durations and other clock times inside
these forms are only split out here and the service checks them. Every
parser raises :class:`SpecError` naming the field (a flag such as
``--hours``, or a client argument such as ``hours``) and what is wrong, in
words.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import datetime, timezone
from typing import NamedTuple

DAYS = {"mon": 1, "tue": 2, "wed": 3, "thu": 4, "fri": 5, "sat": 6, "sun": 7}
"""ISO weekday of each day name a day spec may use."""
AFTER = "@after:"
"""Separator of a deadline that is chained after another one."""


class SpecError(ValueError):
    """Text that is not of the form asked for: ``field`` names where it was
    given, ``description`` what is wrong."""

    def __init__(self, field: str, description: str):
        super().__init__(f"{field}: {description}")
        self.field = field
        self.description = description


Interval = tuple[str, str]
"""A clock-time interval as text, ``("09:00", "12:00")``; the times are not checked here."""


class Override(NamedTuple):
    """A date's own hours: ``closed``, or open during ``intervals``; ``name`` may be empty."""

    date: str
    closed: bool
    intervals: list[Interval]
    name: str


class Deadline(NamedTuple):
    """A schedule deadline: ``duration`` counted from the stage's entry, or
    from the due time of deadline ``after`` when that is not empty."""

    name: str
    duration: str
    after: str = ""
    """The deadline whose due time ``duration`` counts from; ``""``: the stage's entry."""
    roll: str = ""
    """The landing rule's roll (docs/semantics.md §15) beside ``duration``:
    ``following``, ``preceding``, ``modified-following``,
    ``modified-preceding`` (any case, ``_`` for ``-``, or the full names
    ``ROLL_FOLLOWING`` …); ``""``: none, or as the duration text says."""
    landing_time: str = ""
    """The landing rule's time on the final date: ``HH:MM``, ``open``,
    ``close`` or ``end``; ``""``: none, or as the duration text says."""


class WeekPeriodSpec(NamedTuple):
    """A week period read from ``FROM[: PART; PART ...]`` (docs/semantics.md §16)."""

    from_date: str
    """Its first local date, as given (the service checks it)."""
    weekend: list[int] | None
    """ISO weekdays of its weekend; None: not given (Saturday + Sunday)."""
    hours: list[tuple[int, list[Interval]]] | None
    """Its weekly hours as :func:`parse_hours` gives them; None: not given
    (09:00–17:00 on its other days)."""


def parse_days(text: str, field: str) -> list[int]:
    """ISO weekdays of a day spec: ``"mon-fri"`` → [1..5], ``"sat,sun"`` → [6, 7].

    Case does not matter; a range may wrap (``fri-mon`` → [5, 6, 7, 1]).
    Raises SpecError on ``field``.
    """
    days: list[int] = []
    for part in text.lower().split(","):
        first, dash, last = part.strip().partition("-")
        if first not in DAYS or (dash and last not in DAYS):
            raise SpecError(
                field, f"{part.strip()!r} is not a day or a day range (mon..sun, e.g. mon-fri)")
        a, b = DAYS[first], DAYS[last] if dash else DAYS[first]
        days += [(a - 1 + i) % 7 + 1 for i in range((b - a) % 7 + 1)]
    return days


def parse_weekend(text: str, field: str) -> list[int]:
    """ISO weekdays of a weekend: a day spec, or ``none`` for no weekend.
    Raises SpecError on ``field``; also for an empty text (an unset shell
    variable must not silently mean "no weekend")."""
    spec = text.strip().lower()
    if not spec:
        raise SpecError(field, "is empty; give the weekend days, e.g. sat,sun or fri-sat, "
                               "or none for no weekend (leave the flag out for sat,sun)")
    return [] if spec == "none" else parse_days(spec, field)


_CLOCK_TIME = re.compile(r"([0-9]{1,2}):([0-9]{2})(?::([0-9]{2}))?")


def clock_time(text: str, field: str, spec: str, *, is_end: bool) -> str:
    """A clock time of an interval, ``HH:MM`` or ``HH:MM:SS`` (a one-digit
    hour is accepted and zero-padded: ``9:00`` → ``09:00``); 00:00..23:59:59,
    and ``24:00`` as an end. Raises SpecError on ``field`` quoting ``spec``."""
    match = _CLOCK_TIME.fullmatch(text.strip())
    if match:
        h, mi, s = int(match[1]), int(match[2]), int(match[3] or 0)
        if (h < 24 and mi < 60 and s < 60) or (is_end and (h, mi, s) == (24, 0, 0)):
            return _padded(text)
    allowed = "00:00..24:00" if is_end else "00:00..23:59:59"
    raise SpecError(field, f"{spec!r}: {text.strip()!r} is not a clock time HH:MM or HH:MM:SS "
                           f"in {allowed}")


def _padded(text: str) -> str:
    """A clock time with a one-digit hour zero-padded (``9:00`` → ``09:00``);
    any other text as it is (the service checks it)."""
    text = text.strip()
    return "0" + text if _ONE_DIGIT_HOUR.fullmatch(text) else text


_ONE_DIGIT_HOUR = re.compile(r"[0-9]:[0-9]{2}(?::[0-9]{2})?")


def parse_intervals(text: str, field: str, spec: str) -> list[Interval]:
    """``"09:00-12:00,13:00-17:00"`` → [("09:00", "12:00"), ("13:00", "17:00")];
    a one-digit hour is zero-padded: ``"9:00-17:00"`` → [("09:00", "17:00")].

    Raises SpecError on ``field`` quoting ``spec`` (the whole text given).
    """
    intervals = [item.strip().partition("-") for item in text.split(",")]
    if not all(start and dash and end for start, dash, end in intervals):
        raise SpecError(field, f"{spec!r}: {text!r} is not HH:MM-HH:MM[,HH:MM-HH:MM...]")
    return [(_padded(start), _padded(end)) for start, _, end in intervals]


def parse_hours(specs: Iterable[str], field: str) -> list[tuple[int, list[Interval]]]:
    """Weekly hours from specs such as ``"mon-fri 09:00-12:00,13:00-17:00"``:
    (ISO weekday, intervals) for every day named, by weekday. Intervals given
    for one day by several specs are joined, in the order given. Raises
    SpecError on ``field``."""
    by_day: dict[int, list[Interval]] = {}
    for spec in specs:  # the times are checked here: once a spec, not once a day
        if not spec.strip():
            raise SpecError(field, "is empty; give DAYS HH:MM-HH:MM[,HH:MM-HH:MM...], e.g. "
                                   '"mon-fri 09:00-17:00" (leave it out for Mon–Fri '
                                   "09:00–17:00)")
        days_text, _, intervals_text = spec.strip().partition(" ")
        if days_text[:1].isdigit():  # "09:00-17:00" or "9-17": the days were left out
            raise SpecError(field, f"{spec!r} names no days; write the days first: "
                                   "'mon-fri 09:00-17:00'")
        intervals = [(clock_time(start, field, spec, is_end=False),
                      clock_time(end, field, spec, is_end=True))
                     for start, end in parse_intervals(intervals_text, field, spec)]
        for day in parse_days(days_text, field):
            by_day.setdefault(day, []).extend(intervals)
    return sorted(by_day.items())


_WEEK_PERIOD = re.compile(r"\s*([0-9]{4}-[0-9]{2}-[0-9]{2})\s*(?::(.*))?", re.S)
"""``FROM[: PARTS]``: a date, then the parts after a colon."""


def parse_week_period(spec: str, field: str) -> WeekPeriodSpec:
    """``FROM[: PART; PART ...]``, a week from date FROM on (docs/semantics.md
    §16): each PART is ``weekend DAYS`` (or ``weekend none``) or weekly hours
    as for :func:`parse_hours` (``mon-fri 08:00-18:00``). ``"2027-03-01:
    weekend mon,sat,sun; tue-fri 08:00-17:00"`` →
    ``WeekPeriodSpec("2027-03-01", [1, 6, 7], [(2, [("08:00", "17:00")]), …])``.
    Raises SpecError on ``field``."""
    found = _WEEK_PERIOD.fullmatch(spec)
    if found is None:  # the date first, then ':' before the parts (a colon of 08:00 is not it)
        raise SpecError(field, f"{spec!r}: give FROM[: PART; PART ...], the date first and a ':' before "
                               "its parts, e.g. '2027-03-01: mon-fri 08:00-18:00' or '2027-07-01: weekend mon-sun'")
    start, rest = found[1], found[2] or ""
    weekend = None
    hours = []
    for part in (p.strip() for p in rest.split(";")):
        if not part:
            continue
        if part.lower().startswith("weekend"):
            weekend = parse_weekend(part[len("weekend"):], field)
        elif not any(ch.isdigit() for ch in part):
            raise SpecError(field, f"{part!r} in {spec!r} is neither 'weekend DAYS' nor hours such as "
                                   "'mon-fri 08:00-18:00'")
        else:
            hours.append(part)
    return WeekPeriodSpec(start.strip(), weekend, parse_hours(hours, field) if hours else None)


def parse_named_date(spec: str) -> tuple[str, str]:
    """``DATE[=NAME]`` → (date, name); the name may be empty, the date is not checked."""
    date, _, name = spec.partition("=")
    return date, name


def parse_override(spec: str, field: str) -> Override:
    """``DATE=closed[=NAME]`` or ``DATE=HH:MM-HH:MM[,HH:MM-HH:MM][=NAME]``.
    Raises SpecError on ``field``."""
    date, _, rest = spec.partition("=")
    hours, _, name = rest.partition("=")
    if not date or not hours:
        raise SpecError(
            field, f"{spec!r} is not DATE=closed or DATE=HH:MM-HH:MM[,...], each [=NAME]")
    if hours.strip().lower() == "closed":
        return Override(date, True, [], name)
    return Override(date, False, parse_intervals(hours, field, spec), name)


def parse_deadline(spec: str, field: str) -> Deadline:
    """``NAME=DURATION`` or ``NAME=DURATION@after:OTHER``; spaces around the
    name, the duration and OTHER are dropped (``remind = 2bd``).

    The duration itself may hold ``@`` (``1bd@16:00``); only a trailing
    ``@after:OTHER`` chains. Raises SpecError on ``field``, also for several
    deadlines in one spec (``remind=2bd,escalate=5bd``).
    """
    name, eq, rest = spec.partition("=")
    duration, chained, after = rest.rpartition(AFTER) if AFTER in rest else (rest, "", "")
    name, duration, after = name.strip(), duration.strip(), after.strip()
    if "=" in rest and "," in rest:  # remind=2bd,escalate=5bd
        each = " ".join(f"--deadline {part.strip()}" for part in spec.split(","))
        raise SpecError(field, f"{spec!r} holds several deadlines; give one NAME=DURATION "
                               f"each (on the command line repeat the flag: {each})")
    if not (name and eq and duration) or (chained and not after):
        raise SpecError(field, f"{spec!r} is not NAME=DURATION or NAME=DURATION{AFTER}NAME")
    return Deadline(name, duration, after)


def check_bundle_ref(ref: str, field: str) -> None:
    """``NAME`` or ``NAME@VERSION``, neither part empty; else SpecError on ``field``."""
    name, at, version = ref.partition("@")
    if not name.strip():
        raise SpecError(field, f"{ref!r} names no bundle; give NAME or NAME@VERSION "
                               "(duetime calendars list shows them)")
    if at and not version:
        raise SpecError(field, f"{ref!r}: empty version after '@'; write {name} for its "
                               f"newest version, or {name}@VERSION")


_DATE_ONLY = re.compile(r"\d{4}-\d{2}-\d{2}")
_LOCAL_TIME = r"\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?"
_NO_OFFSET = re.compile(_LOCAL_TIME)
_RFC3339 = re.compile(
    r"\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?(?:[Zz]|[+-]\d{2}:\d{2})")
_LONG_FRACTION = re.compile(_LOCAL_TIME + r"(?:[Zz]|[+-]\d{2}:\d{2})")
_EXAMPLE = "2026-11-27T16:00:00+01:00"


def check_instant_text(text: str, field: str) -> None:
    """Refuse what is not an RFC 3339 instant (``YYYY-MM-DDTHH:MM[:SS[.f]]``
    with 1–6 fractional digits, then ``Z`` or ``±HH:MM``; seconds optional
    for convenience) with a SpecError on ``field`` saying what is wrong. Only
    the form is checked (not that the date exists): other ISO 8601 forms
    (basic format, week dates, comma fractions, 7+ digits) are refused."""
    s = text.strip()
    if _RFC3339.fullmatch(s):
        return
    if _DATE_ONLY.fullmatch(s):
        why = (f"{text!r} is a date, not an instant; write a full RFC 3339 instant such as "
               f"{s}T00:00:00Z or {s}T00:00:00+01:00")
    elif _NO_OFFSET.fullmatch(s):
        why = (f"{text!r} has no UTC offset; write e.g. {s}Z or {s}+01:00 (it is never read "
               "as UTC or as local time)")
    elif _LONG_FRACTION.fullmatch(s):
        why = (f"{text!r} has more than 6 fractional digits; duetime counts whole "
               "microseconds")
    else:
        why = (f"{text!r} is not an RFC 3339 instant such as {_EXAMPLE} (date, T, hours and "
               "minutes, optional seconds and fraction, then Z or an offset ±HH:MM)")
    raise SpecError(field, why)


def parse_instant_text(text: str, field: str) -> datetime:
    """The aware UTC datetime of an RFC 3339 instant in the forms
    :func:`check_instant_text` accepts (``2026-11-27T16:00Z``,
    ``2026-11-27T16:00:00.5+01:00`` …). Raises SpecError on ``field``
    saying what to write: for a form that is not one of those, or a date
    and time that does not exist (``2026-02-30T10:00Z``, ``…T24:00Z``)."""
    check_instant_text(text, field)
    s = text.strip()
    try:
        instant = datetime.fromisoformat(s[:-1] + "+00:00" if s[-1] in "zZ" else s)
    except ValueError:
        raise SpecError(field, f"{text!r} names no existing date and time (check the day of "
                               "the month, hours 00–23, minutes and seconds 00–59, an "
                               f"offset within ±23:59); e.g. {_EXAMPLE}") from None
    return instant.astimezone(timezone.utc)
_BARE_NUMBER = re.compile(r"[+-]?[0-9]+(?:\.[0-9]+)?")
DURATION_UNITS = (("bd", "business days"), ("bh", "business hours"), ("bm", "business minutes"),
                  ("w", "weeks"), ("d", "days of 24 hours"), ("h", "hours"), ("m", "minutes"),
                  ("s", "seconds"), ("ms", "milliseconds"))
"""The units of a duration (docs/semantics.md §2), as the command line lists them."""


def check_duration_text(text: str, field: str) -> None:
    """Refuse a duration typed without a unit (``2``, ``-5``, ``1.5``) with
    a SpecError on ``field`` listing the units. Over the API a bare integer is
    milliseconds (docs/semantics.md §2, as workflow engines send), but typed
    by a person it is ambiguous: ``2`` meant as two business days would be
    answered 2 ms later. Everything else is left to the service's parser."""
    s = text.strip()
    if not _BARE_NUMBER.fullmatch(s):
        return
    sign, number = (s[0], s[1:]) if s[0] in "+-" else ("", s)
    shown = DURATION_UNITS[:2] + DURATION_UNITS[4:6]  # bd, bh, d, h
    examples = ", ".join(f"{sign}{number}{unit}" for unit, _ in shown)
    units = ", ".join(f"{unit} ({what})" for unit, what in DURATION_UNITS)
    raise SpecError(field, f"{s!r} has no unit; write e.g. {examples} (units: {units}; or ISO "
                           "8601 such as P2D)")


_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*)://")


_GRPC_TARGET = re.compile(r"(?:dns|ipv4|ipv6|unix|unix-abstract|vsock):", re.IGNORECASE)
_HAS_PORT = re.compile(r"(?:^[^:\[\]]+|\]):[0-9]*$")


def check_server_address(text: str, field: str) -> None:
    """Refuse a server address a gRPC channel cannot use for duetime's gRPC
    port: empty, a URL (``http://``, ``https://``, ``grpc://``…), or a host
    without ``:PORT`` (``127.0.0.1``, ``[::1]``), with a
    SpecError on ``field`` saying to give ``HOST:PORT``. gRPC's own target
    forms (``dns:///host:port``, ``ipv4:``, ``ipv6:``, ``unix:``) pass."""
    s = text.strip()
    if not s:
        raise SpecError(field, "is empty; give the server's gRPC address HOST:PORT, e.g. "
                               "127.0.0.1:50051, or leave the flag out to compute locally")
    match = _SCHEME.match(s)
    if match and match[1].lower() not in ("dns", "ipv4", "ipv6", "unix", "unix-abstract"):
        rest = s[match.end():].split("/", 1)[0] or "HOST:PORT"
        if ":" not in rest:
            rest += ":50051"
        tls = " with --tls" if match[1].lower() in ("https", "grpcs") else ""
        raise SpecError(field, f"{s!r} is a URL; give the gRPC address as HOST:PORT, e.g. "
                               f"{rest}{tls} (the JSON-over-HTTP port of serve --http-port is "
                               "another port, for browsers and curl, not for this command)")
    if not match and not _GRPC_TARGET.match(s) and not _HAS_PORT.search(s):
        raise SpecError(field, f"{s!r} has no port; add :PORT, the server's gRPC port, e.g. "
                               f"{s}:50051 (gRPC would otherwise try port 443)")


def enum_spellings(enum) -> tuple[dict[str, str], list[tuple[str, str, int]]]:
    """How the JSON faces spell the values of protobuf enum ``enum`` (its
    descriptor; docs/semantics.md §14): a map from each full name and each
    short name (without the enum's prefix: ``MONDAY`` for
    ``WEEKDAY_MONDAY``), upper case with ``_``, to the full name; and the
    values callers may give, ``(short, full, number)``, the UNSPECIFIED one
    left out. Look a caller's text up as ``text.strip().upper().replace("-",
    "_")``."""
    names = [v.name for v in enum.values]
    prefix = names[0][:names[0].rfind("_UNSPECIFIED") + 1] if names[0].endswith("_UNSPECIFIED") else ""
    spellings = {name: name for name in names}
    shown = []
    for value in enum.values:
        short = value.name[len(prefix):] if prefix and value.name.startswith(prefix) else value.name
        spellings.setdefault(short, value.name)
        if value.number != 0:
            shown.append((short, value.name, value.number))
    return spellings, shown
