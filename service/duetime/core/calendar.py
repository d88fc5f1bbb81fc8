"""Business calendars (docs/semantics.md §3, §4, §7): the declaration.

A :class:`Calendar` is a plain, validated, hashable declaration: time zone,
weekend, holidays, date overrides, extra working days and weekly working
hours. What the arithmetic walks is its compiled form,
:class:`~duetime.core.compiled.CompiledCalendar` (``Calendar.compiled``).
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field as dc_field
from datetime import date
from functools import cached_property
from typing import Callable, Iterable, Sequence
from zoneinfo import ZoneInfo

from .compiled import CHECK_EVERY, CompiledCalendar
from .weeks import WeekPeriodsCalendar
from .durations import SECOND
from .errors import FieldViolation, InvalidArgument, OutOfRange
from .zones import MAX_ORDINAL, MIN_ORDINAL, get_zone

WEEKDAY_NAMES = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
#: Default weekend: Saturday and Sunday (ISO 6, 7).
DEFAULT_WEEKEND = frozenset({6, 7})
#: Most holidays a calendar may list.
MAX_HOLIDAYS = 10_000
#: Most date overrides a calendar may give.
MAX_DATE_OVERRIDES = 10_000
#: Most extra working days a calendar may list.
MAX_EXTRA_WORKING_DAYS = 10_000
#: Most dates one calendar may list in all: holidays, date overrides and
#: extra working days together (three centuries of a country's holidays are
#: fewer than 5,000).
MAX_DATES = 5_000
#: Most working intervals of one day (a weekday's, or one override's): one
#: every half hour; a real calendar has fewer than ten.
MAX_INTERVALS_PER_DAY = 48
#: Most working intervals of one calendar: its week's and every override's together.
MAX_INTERVALS = 10_000
#: Most week periods of one calendar (docs/semantics.md §16): summer and
#: winter hours for twelve years, or a change of opening hours a month for
#: two; each period costs the build of one weekly template, and an answer at
#: most one step per period it crosses (50, as before, took a largest
#: calendar's request past 250 ms over HTTP/JSON: bench/cost.py).
MAX_WEEK_PERIODS = 25


@dataclass(frozen=True)
class CalendarLimits:
    """How large a calendar may be (counts); what :meth:`Calendar.from_text`
    refuses beyond. The defaults are the module constants of the same names;
    ``duetime.app.limits`` lists them with every other limit of a request.
    Each bound keeps the cost of building a calendar and of every answer in
    it small (docs/operations.md, "Limits")."""

    max_holidays: int = MAX_HOLIDAYS
    max_date_overrides: int = MAX_DATE_OVERRIDES
    max_extra_working_days: int = MAX_EXTRA_WORKING_DAYS
    max_dates: int = MAX_DATES
    max_intervals_per_day: int = MAX_INTERVALS_PER_DAY
    max_intervals: int = MAX_INTERVALS
    max_week_periods: int = MAX_WEEK_PERIODS


DEFAULT_CALENDAR_LIMITS = CalendarLimits()


def size_problems(
    limits: CalendarLimits,
    field: str = "calendar",
    *,
    week: Sequence[int] = (),
    overrides: Sequence[int] = (),
    holidays: int = 0,
    extra_working_days: int = 0,
) -> list[FieldViolation]:
    """What makes a calendar larger than ``limits``, from counts alone (so a
    face can check a request before it parses it). ``week[i]``: how many
    intervals the i-th entry of ``working_hours`` gives; ``overrides[i]``:
    how many the i-th date override gives. One violation per bound passed,
    on the field that passes it (``{field}.working_hours.days[i].intervals``,
    ``{field}.date_overrides[i].intervals``, ``{field}.holidays``, …), saying
    the bound and how to stay within it."""
    bad: list[FieldViolation] = []
    per_day = limits.max_intervals_per_day
    for i, n in enumerate(week):
        if n > per_day:
            bad.append(FieldViolation(f"{field}.working_hours.days[{i}].intervals",
                                      f"{n} intervals given for one day; at most {per_day} are allowed "
                                      "(merge intervals that touch, or describe the day more coarsely)"))
    for i, n in enumerate(overrides):
        if n > per_day:
            bad.append(FieldViolation(f"{field}.date_overrides[{i}].intervals",
                                      f"{n} intervals given for one date; at most {per_day} are allowed "
                                      "(merge intervals that touch, or describe the day more coarsely)"))
    total = sum(week) + sum(overrides)
    if total > limits.max_intervals:
        bad.append(FieldViolation(f"{field}.date_overrides" if sum(overrides) else f"{field}.working_hours",
                                  f"{total} working intervals given in all (the week's and every date "
                                  f"override's); at most {limits.max_intervals} are allowed in one calendar "
                                  "(give fewer date overrides, or split the years into several calendars)"))
    parts = (("holidays", holidays, limits.max_holidays),
             ("date_overrides", len(overrides), limits.max_date_overrides),
             ("extra_working_days", extra_working_days, limits.max_extra_working_days))
    for name, n, most in parts:
        if n > most:
            bad.append(FieldViolation(f"{field}.{name}", f"{n} dates given; at most {most} are allowed "
                                                          "(split the years into several calendars)"))
    dates = holidays + len(overrides) + extra_working_days
    if dates > limits.max_dates and not any(n > most for _, n, most in parts):
        largest = max(parts, key=lambda p: p[1])[0]
        bad.append(FieldViolation(f"{field}.{largest}",
                                  f"{holidays} holidays, {len(overrides)} date overrides and {extra_working_days} "
                                  f"extra working days are {dates} dates in all; at most {limits.max_dates} are "
                                  "allowed in one calendar (split the years into several calendars)"))
    return bad
_TIME = re.compile(r"([0-9]{2}):([0-9]{2})(?::([0-9]{2}))?")
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


@dataclass(frozen=True, order=True)
class Interval:
    """A working interval ``[start, end)`` of local wall time, in seconds of day.

    ``0 <= start < 86400``; ``0 <= end <= 86400`` (86400 is ``24:00``). An
    ``end`` at or before ``start`` (other than equal) crosses midnight: the
    interval belongs to the date it starts on (docs/semantics.md §4).
    """

    start: int
    end: int

    @property
    def span_us(self) -> tuple[int, int]:
        """(start, end) in µs after the owning date's midnight; end may pass 24 h."""
        end = self.end if self.end > self.start else self.end + 86400
        return self.start * SECOND, end * SECOND

    def text(self) -> tuple[str, str]:
        return _fmt_time(self.start), _fmt_time(self.end)


@dataclass(frozen=True, order=True)
class Holiday:
    """A closed local date, optionally named (e.g. "Christmas Day")."""

    date: date
    name: str = ""


@dataclass(frozen=True, order=True)
class DateOverride:
    """One date's own hours (a shortened or special day) or, with no
    intervals, a closed date. Wins over everything else for that date (docs/semantics.md §5)."""

    date: date
    intervals: tuple[Interval, ...] = ()
    name: str = ""

    @property
    def closed(self) -> bool:
        return not self.intervals


@dataclass(frozen=True, order=True)
class ExtraWorkingDay:
    """A date opened although it is a weekend day or a holiday (docs/semantics.md §4)."""

    date: date
    name: str = ""


def default_hours(weekend: frozenset[int]) -> tuple[tuple[Interval, ...], ...]:
    """09:00–17:00 on every day that is not a weekend day (docs/semantics.md §4)."""
    nine_to_five = (Interval(9 * 3600, 17 * 3600),)
    return tuple(() if wd in weekend else nine_to_five for wd in range(1, 8))


@dataclass(frozen=True, order=True)
class WeekPeriod:
    """A week that holds from local date ``from_date`` until the next
    period's (docs/semantics.md §16): its own ``weekend`` (ISO weekdays) and
    ``working_hours`` (``working_hours[i]``: the intervals of ISO weekday
    ``i + 1``). A period declared without them has the defaults (Saturday +
    Sunday; 09:00–17:00 on the other days), not the previous week's."""

    from_date: date
    weekend: frozenset[int] = DEFAULT_WEEKEND
    working_hours: tuple[tuple[Interval, ...], ...] = dc_field(default_factory=lambda: default_hours(DEFAULT_WEEKEND))

    def canonical(self) -> dict:
        """The period in the calendar's canonical form: explicit, defaults applied."""
        return {
            "from": self.from_date.isoformat(),
            "weekend": sorted(self.weekend),
            "working_hours": {
                str(wd): [list(iv.text()) for iv in ivs] for wd, ivs in enumerate(self.working_hours, start=1) if ivs
            },
        }


@dataclass(frozen=True)
class Calendar:
    """A business calendar (docs/semantics.md §7).

    ``weekend`` holds ISO weekdays (1 = Monday); ``holidays`` is sorted by date
    with no duplicates; ``working_hours[i]`` are the intervals of ISO weekday
    ``i + 1``. Build one with :meth:`from_text` (validating) or
    :meth:`create` (from typed values, also validating).
    """

    time_zone: str = "UTC"
    weekend: frozenset[int] = DEFAULT_WEEKEND
    holidays: tuple[Holiday, ...] = ()
    working_hours: tuple[tuple[Interval, ...], ...] = dc_field(default_factory=lambda: default_hours(DEFAULT_WEEKEND))
    date_overrides: tuple[DateOverride, ...] = ()
    extra_working_days: tuple[ExtraWorkingDay, ...] = ()
    #: Last local date the holiday list is known to be complete for; None = unknown.
    holidays_valid_until: date | None = None
    #: First local date the holiday list is known to be complete for; None = unknown.
    holidays_valid_from: date | None = None
    #: Weeks that change by date (docs/semantics.md §16), in strictly
    #: increasing ``from_date`` order; before the first, ``weekend`` and
    #: ``working_hours`` above hold.
    week_periods: tuple[WeekPeriod, ...] = ()

    # ---- construction -------------------------------------------------
    @classmethod
    def from_text(
        cls,
        time_zone: str | None = None,
        weekend: Sequence[int] | None = None,
        holidays: Sequence[tuple[str, str]] = (),
        working_hours: Sequence[tuple[int, Sequence[tuple[str, str]]]] | None = None,
        field: str = "calendar",
        *,
        date_overrides: Sequence[tuple[str, Sequence[tuple[str, str]], bool, str]] = (),
        extra_working_days: Sequence[tuple[str, str]] = (),
        holidays_valid_until: str | None = None,
        holidays_valid_from: str | None = None,
        check: Callable[[], None] | None = None,
        limits: CalendarLimits = DEFAULT_CALENDAR_LIMITS,
        week_periods: Sequence[tuple[str, Sequence[int] | None, Sequence[tuple[int, Sequence[tuple[str, str]]]] | None]] = (),
    ) -> "Calendar":
        """Validate a calendar given as text and numbers (as on the wire).

        ``weekend``: ISO weekdays, ``None`` = Saturday + Sunday, ``[]`` = none.
        ``holidays``: ``("YYYY-MM-DD", name)`` pairs.
        ``working_hours``: ``(iso_weekday, [("HH:MM", "HH:MM"), ...])`` pairs;
        ``None`` = 09:00–17:00 on non-weekend days; when given it is the whole
        week. ``date_overrides``: ``(date, intervals, closed, name)``; exactly
        one of non-empty intervals or ``closed``. ``extra_working_days``:
        ``(date, name)``. ``holidays_valid_until`` / ``holidays_valid_from``:
        ``"YYYY-MM-DD"`` or None; answers that depend on dates outside them are
        OutOfRange (a bundle's declared year range sets both).
        Raises :class:`InvalidArgument` with one violation per problem
        (field paths under ``field``), or :class:`OutOfRange` when the only
        problems are holidays outside 1900..2199. ``check`` (None: none): a
        cooperative check called every :data:`CHECK_EVERY` dates given
        (e.g. a call's deadline); what it raises stops the build.
        ``limits``: how large the calendar may be (:class:`CalendarLimits`);
        a calendar larger is InvalidArgument (:func:`size_problems`) before
        anything is parsed. ``week_periods``: ``(from "YYYY-MM-DD", weekend,
        working_hours)`` triples, weekend and working hours as above (None:
        the defaults, not the previous week's), ``from`` strictly increasing;
        at most ``limits.max_week_periods`` (docs/semantics.md §16).
        """
        if too_large := size_problems(
            limits, field,
            week=[len(ivs) for _, ivs in working_hours or ()],
            overrides=[len(o[1]) for o in date_overrides],
            holidays=len(holidays), extra_working_days=len(extra_working_days),
        ):
            raise InvalidArgument(too_large)
        bad: list[FieldViolation] = []
        far: list[FieldViolation] = []
        zone_name = time_zone or "UTC"
        try:
            get_zone(zone_name, f"{field}.time_zone")
        except InvalidArgument as e:
            bad.extend(e.violations)

        if weekend is None:
            weekend_set = DEFAULT_WEEKEND
        else:
            days = []
            for i, wd in enumerate(weekend):
                if isinstance(wd, int) and 1 <= wd <= 7:
                    days.append(wd)
                else:
                    bad.append(FieldViolation(f"{field}.weekend.days[{i}]", f"{wd!r} is not an ISO weekday 1 (Monday) .. 7 (Sunday)"))
            weekend_set = frozenset(days)
            if len(weekend_set) == 7:
                bad.append(FieldViolation(f"{field}.weekend.days", "a weekend of all seven days leaves no business day"))

        hol = tuple(
            Holiday(d, n) for d, n in _named_dates(holidays, f"{field}.holidays", "holiday", bad, far, check)
        )
        extra = tuple(
            ExtraWorkingDay(d, n)
            for d, n in _named_dates(extra_working_days, f"{field}.extra_working_days", "extra working day", bad, far, check)
        )
        if working_hours is None:
            hours = default_hours(weekend_set)
        else:
            hours = _parse_week(working_hours, weekend_set, f"{field}.working_hours", bad)

        overrides: dict[date, DateOverride] = {}
        for i, (text, intervals, closed, name) in enumerate(date_overrides):
            if check is not None and not i % CHECK_EVERY:
                check()
            path = f"{field}.date_overrides[{i}]"
            d = _parse_date(text, f"{path}.date", bad)
            ivs = parse_day_intervals(intervals, f"{path}.intervals", bad)
            if d is None:
                continue
            if not (MIN_ORDINAL <= d.toordinal() <= MAX_ORDINAL):
                far.append(FieldViolation(f"{path}.date", f"{text} is outside the supported range 1900-01-01..2199-12-31"))
            elif closed and intervals:
                bad.append(FieldViolation(f"{path}.closed", f"{text} is marked closed and also given intervals; choose one"))
            elif not closed and not intervals:
                bad.append(FieldViolation(f"{path}.intervals", f"{text}: give the day's intervals, or closed = true"))
            elif d in overrides:
                bad.append(FieldViolation(f"{path}.date", f"{text} has more than one override"))
            else:
                overrides[d] = DateOverride(d, tuple(ivs), name or "")

        periods = _parse_week_periods(week_periods, f"{field}.week_periods", bad, far, limits)

        valid_until = valid_from = None
        if holidays_valid_until:
            valid_until = _parse_date(holidays_valid_until, f"{field}.holidays_valid_until", bad)
        if holidays_valid_from:
            valid_from = _parse_date(holidays_valid_from, f"{field}.holidays_valid_from", bad)
        if bad:
            raise InvalidArgument(bad + far)
        if far:
            raise OutOfRange(far)
        return cls(
            zone_name, weekend_set, hol, hours, tuple(sorted(overrides.values())), extra, valid_until, valid_from,
            periods,
        )

    # ---- identity -----------------------------------------------------
    def canonical(self) -> dict:
        """The canonical form: sorted, explicit, defaults applied."""
        out = {
            "time_zone": self.time_zone,
            "weekend": sorted(self.weekend),
            "holidays": [{"date": h.date.isoformat(), "name": h.name} for h in self.holidays],
            "working_hours": {
                str(wd): [list(iv.text()) for iv in ivs] for wd, ivs in enumerate(self.working_hours, start=1) if ivs
            },
        }
        # parts added after v1's first release appear only when used, so that
        # calendars without them keep their version
        if self.date_overrides:
            out["date_overrides"] = [
                {"date": o.date.isoformat(), "intervals": [list(iv.text()) for iv in o.intervals], "name": o.name}
                for o in self.date_overrides
            ]
        if self.extra_working_days:
            out["extra_working_days"] = [{"date": x.date.isoformat(), "name": x.name} for x in self.extra_working_days]
        if self.holidays_valid_until is not None:
            out["holidays_valid_until"] = self.holidays_valid_until.isoformat()
        if self.holidays_valid_from is not None:
            out["holidays_valid_from"] = self.holidays_valid_from.isoformat()
        if self.week_periods:
            out["week_periods"] = [p.canonical() for p in self.week_periods]
        return out

    def canonical_json(self) -> str:
        """Canonical JSON text (sorted keys, no spaces): the input of the version hash."""
        return json.dumps(self.canonical(), sort_keys=True, separators=(",", ":"), ensure_ascii=False)

    @cached_property
    def version(self) -> str:
        """``"cal-"`` + the first 16 hex digits of SHA-256 of :meth:`canonical_json`."""
        return "cal-" + hashlib.sha256(self.canonical_json().encode()).hexdigest()[:16]

    @cached_property
    def zone(self) -> ZoneInfo:
        return get_zone(self.time_zone)

    @cached_property
    def compiled(self) -> CompiledCalendar:
        return self._build(None)

    def compile(self, check: Callable[[], None] | None = None) -> CompiledCalendar:
        """:attr:`compiled`, built now (with the cooperative ``check``, see
        :class:`CompiledCalendar`) unless it already was."""
        if "compiled" not in self.__dict__:
            self.__dict__["compiled"] = self._build(check)
        return self.__dict__["compiled"]

    def _build(self, check: Callable[[], None] | None) -> CompiledCalendar:
        if self.week_periods:  # weeks that change by date (docs/semantics.md §16)
            return WeekPeriodsCalendar(self, check)
        return CompiledCalendar(self, check)

    def __hash__(self) -> int:  # hashing 10,000 holidays on every lookup is wasteful
        return hash(self.version)


#: "HH:MM" of each minute 00:00 … 24:59 (a constant table: a calendar's
#: version formats every interval's ends).
_HH_MM = tuple(f"{h:02d}:{m:02d}" for h in range(25) for m in range(60))


def _fmt_time(seconds: int) -> str:
    if not seconds % 60 and 0 <= seconds < 90000:
        return _HH_MM[seconds // 60]
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h:02d}:{m:02d}" + (f":{s:02d}" if s else "")


def _named_dates(
    items: Sequence[tuple[str, str]], path: str, what: str, bad: list[FieldViolation], far: list[FieldViolation],
    check: Callable[[], None] | None = None,
) -> list[tuple[date, str]]:
    """Parse ``(date, name)`` pairs: sorted, repeats merged, disagreeing repeats reported."""
    if len(items) > MAX_HOLIDAYS:
        bad.append(FieldViolation(path, f"{len(items)} dates given; at most {MAX_HOLIDAYS} are allowed inline"))
        return []
    by_date: dict[date, tuple[int, str]] = {}
    for i, (text, name) in enumerate(items):
        if check is not None and not i % CHECK_EVERY:
            check()
        ipath = f"{path}[{i}].date"
        d = _parse_date(text, ipath, bad)
        if d is None:
            continue
        if not (MIN_ORDINAL <= d.toordinal() <= MAX_ORDINAL):
            far.append(FieldViolation(ipath, f"{text} is outside the supported range 1900-01-01..2199-12-31"))
            continue
        name = name or ""
        if d in by_date and by_date[d][1] != name:
            j, other = by_date[d]
            bad.append(FieldViolation(ipath, f"{what} {text} is listed twice with different names ({other!r} at [{j}], {name!r} here)"))
            continue
        by_date.setdefault(d, (i, name))
    return sorted((d, n) for d, (_, n) in by_date.items())


def _parse_date(text: object, path: str, bad: list[FieldViolation]) -> date | None:
    if not isinstance(text, str) or not _DATE.fullmatch(text):
        bad.append(FieldViolation(path, f"{text!r} is not a local date YYYY-MM-DD"))
        return None
    try:
        return date.fromisoformat(text)
    except ValueError:
        bad.append(FieldViolation(path, f"{text!r} is not a real calendar date"))
        return None


def _wall_seconds(text: object, is_end: bool) -> int | None:
    """``"HH:MM"`` / ``"HH:MM:SS"`` → seconds of day, None when it is not one
    (``"24:00"`` only as an end)."""
    if isinstance(text, str) and len(text) == 5 and text[2] == ":" and text.isascii():
        hh, mm = text[:2], text[3:]
        if hh.isdigit() and mm.isdigit():  # "HH:MM", the common form, without the pattern
            h, mi = int(hh), int(mm)
            if (h < 24 and mi < 60) or (is_end and h == 24 and mi == 0):
                return (h * 60 + mi) * 60
            return None
    m = _TIME.fullmatch(text) if isinstance(text, str) else None
    if m:
        h, mi, s = int(m[1]), int(m[2]), int(m[3] or 0)
        if (h < 24 and mi < 60 and s < 60) or (is_end and h == 24 and mi == 0 and s == 0):
            return (h * 60 + mi) * 60 + s
    return None


def parse_wall_time(text: object, path: str, bad: list[FieldViolation], *, is_end: bool) -> int | None:
    """``"HH:MM"`` / ``"HH:MM:SS"`` → seconds of day; ``"24:00"`` only as an end."""
    seconds = _wall_seconds(text, is_end)
    if seconds is not None:
        return seconds
    allowed = "00:00..24:00" if is_end else "00:00..23:59:59"
    bad.append(FieldViolation(path, f"{text!r} is not a wall time HH:MM or HH:MM:SS in {allowed}"))
    return None


def _parse_week(
    week: Sequence[tuple[int, Sequence[tuple[str, str]]]],
    weekend: frozenset[int],
    path: str,
    bad: list[FieldViolation],
) -> tuple[tuple[Interval, ...], ...]:
    days: list[list[Interval]] = [[] for _ in range(7)]
    seen: dict[int, int] = {}
    for i, (wd, intervals) in enumerate(week):
        dpath = f"{path}.days[{i}]"
        if not (isinstance(wd, int) and 1 <= wd <= 7):
            bad.append(FieldViolation(f"{dpath}.weekday", f"{wd!r} is not an ISO weekday 1 (Monday) .. 7 (Sunday)"))
            continue
        if wd in seen:
            bad.append(FieldViolation(f"{dpath}.weekday", f"{WEEKDAY_NAMES[wd - 1]} is listed twice (also at days[{seen[wd]}])"))
            continue
        seen[wd] = i
        if wd in weekend and intervals:
            bad.append(FieldViolation(f"{dpath}.weekday", f"working hours given for {WEEKDAY_NAMES[wd - 1]}, a weekend day"))
            continue
        days[wd - 1] = parse_day_intervals(intervals, f"{dpath}.intervals", bad)
    return tuple(tuple(d) for d in days)


def parse_day_intervals(intervals: Iterable[tuple[str, str]], path: str, bad: list[FieldViolation]) -> list[Interval]:
    """Parse and check one day's intervals: no zero length, no overlap (docs/semantics.md §4.1)."""
    out: list[tuple[tuple[int, int], Interval, int]] = []  # (span in seconds, interval, index)
    for j, (a, b) in enumerate(intervals):
        s, e = _wall_seconds(a, False), _wall_seconds(b, True)
        if s is None or e is None:  # the field paths are formatted only for a refusal
            s = parse_wall_time(a, f"{path}[{j}].start", bad, is_end=False)
            e = parse_wall_time(b, f"{path}[{j}].end", bad, is_end=True)
            if s is None or e is None:
                continue
        if s == e:
            bad.append(FieldViolation(f"{path}[{j}].end", f"{a}–{b} has zero length"))
            continue
        out.append(((s, e if e > s else e + 86400), Interval(s, e), j))
    out.sort(key=lambda p: p[0])
    for (prev_span, prev, pj), (cur_span, cur, cj) in zip(out, out[1:]):
        if cur_span[0] < prev_span[1]:
            prev_start, prev_end = prev.text()
            cur_start, cur_end = cur.text()
            bad.append(FieldViolation(
                f"{path}[{cj}]", f"{cur_start}–{cur_end} overlaps {prev_start}–{prev_end} (intervals[{pj}])"))
    return [iv for _, iv, _ in out]


def _parse_week_periods(
    items: Sequence[tuple[str, Sequence[int] | None, Sequence[tuple[int, Sequence[tuple[str, str]]]] | None]],
    path: str,
    bad: list[FieldViolation],
    far: list[FieldViolation],
    limits: CalendarLimits,
) -> tuple[WeekPeriod, ...]:
    """Parse and check week periods (docs/semantics.md §16)."""
    if len(items) > limits.max_week_periods:
        bad.append(FieldViolation(path, f"{len(items)} week periods given; at most {limits.max_week_periods} are "
                                        "allowed in one calendar (split the years into several calendars)"))
        return ()
    total = sum(len(ivs) for _, _, hours in items for _, ivs in hours or ())
    if total > limits.max_intervals:
        bad.append(FieldViolation(path, f"{total} working intervals given in all by the week periods; at most "
                                        f"{limits.max_intervals} are allowed in one calendar "
                                        "(give fewer periods, or describe the days more coarsely)"))
        return ()
    out: list[WeekPeriod] = []
    previous: tuple[int, date] | None = None
    for i, (text, weekend, hours) in enumerate(items):
        ipath = f"{path}[{i}]"
        for j, ivs in enumerate(hours or ()):
            if len(ivs[1]) > limits.max_intervals_per_day:
                bad.append(FieldViolation(f"{ipath}.working_hours.days[{j}].intervals",
                                          f"{len(ivs[1])} intervals given for one day; at most "
                                          f"{limits.max_intervals_per_day} are allowed"))
                return ()
        d = _parse_date(text, f"{ipath}.from_date", bad)
        if weekend is None:
            weekend_set = DEFAULT_WEEKEND
        else:
            days = []
            for k, wd in enumerate(weekend):
                if isinstance(wd, int) and 1 <= wd <= 7:
                    days.append(wd)
                else:
                    bad.append(FieldViolation(f"{ipath}.weekend.days[{k}]",
                                              f"{wd!r} is not an ISO weekday 1 (Monday) .. 7 (Sunday)"))
            weekend_set = frozenset(days)
            if len(weekend_set) == 7 and i == len(items) - 1:
                bad.append(FieldViolation(f"{ipath}.weekend.days",
                                          "the last week period's weekend of all seven days leaves no business day "
                                          "from its date on (only a period followed by another may close every day)"))
        week = default_hours(weekend_set) if hours is None else _parse_week(
            hours, weekend_set, f"{ipath}.working_hours", bad)
        if d is None:
            continue
        if not (MIN_ORDINAL <= d.toordinal() <= MAX_ORDINAL):
            far.append(FieldViolation(f"{ipath}.from_date", f"{text} is outside the supported range 1900-01-01..2199-12-31"))
            continue
        if previous is not None and d <= previous[1]:
            bad.append(FieldViolation(
                f"{ipath}.from_date",
                f"week period {i} starts {text}, not after week period {previous[0]} ({previous[1].isoformat()}); "
                "list week periods in strictly increasing from_date order"))
            continue
        previous = (i, d)
        out.append(WeekPeriod(d, weekend_set, week))
    return tuple(out)
