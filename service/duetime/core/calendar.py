"""Business calendars (SPEC §3, §4, §6): the declaration and its compiled form.

A :class:`Calendar` is a plain, validated, hashable declaration: time zone,
weekend, holidays and weekly working hours. :class:`CompiledCalendar` is what
the arithmetic walks: per-weekday templates with prefix sums (to skip whole
weeks), the dates whose status differs from the template sorted for bisection
(holidays), and DST corrections found from the zone's transitions, so that the
cost of a question does not grow with the span it covers.
"""

from __future__ import annotations

import bisect
import hashlib
import json
import re
from dataclasses import dataclass, field as dc_field
from datetime import date
from functools import cached_property
from typing import Iterable, Sequence
from zoneinfo import ZoneInfo

from .durations import DAY, SECOND
from .errors import FieldViolation, InvalidArgument, OutOfRange
from .zones import (
    BLOCK_BITS,
    EPOCH_ORDINAL,
    MAX_ORDINAL,
    MIN_ORDINAL,
    UTC_BLOCKS,
    get_zone,
    local_us_of,
    offset_us,
    resolve,
    table,
    transitions_between,
)

WEEKDAY_NAMES = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
#: Default weekend: Saturday and Sunday (ISO 6, 7).
DEFAULT_WEEKEND = frozenset({6, 7})
#: Most holidays an inline calendar may list.
MAX_HOLIDAYS = 10_000
#: An ordinal that is a Monday; weekly prefix sums count from it.
_MONDAY = date(2000, 1, 3).toordinal()
_TIME = re.compile(r"([0-9]{2}):([0-9]{2})(?::([0-9]{2}))?")
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


@dataclass(frozen=True, order=True)
class Interval:
    """A working interval ``[start, end)`` of local wall time, in seconds of day.

    ``0 <= start < 86400``; ``0 <= end <= 86400`` (86400 is ``24:00``). An
    ``end`` at or before ``start`` (other than equal) crosses midnight: the
    interval belongs to the date it starts on (SPEC §4).
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
    intervals, a closed date. Wins over everything else for that date (SPEC §4)."""

    date: date
    intervals: tuple[Interval, ...] = ()
    name: str = ""

    @property
    def closed(self) -> bool:
        return not self.intervals


@dataclass(frozen=True, order=True)
class ExtraWorkingDay:
    """A date opened although it is a weekend day or a holiday (SPEC §4)."""

    date: date
    name: str = ""


def default_hours(weekend: frozenset[int]) -> tuple[tuple[Interval, ...], ...]:
    """09:00–17:00 on every day that is not a weekend day (SPEC §4)."""
    nine_to_five = (Interval(9 * 3600, 17 * 3600),)
    return tuple(() if wd in weekend else nine_to_five for wd in range(1, 8))


@dataclass(frozen=True)
class Calendar:
    """A business calendar (SPEC §6).

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
        problems are holidays outside 1900..2199.
        """
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
            Holiday(d, n) for d, n in _named_dates(holidays, f"{field}.holidays", "holiday", bad, far)
        )
        extra = tuple(
            ExtraWorkingDay(d, n)
            for d, n in _named_dates(extra_working_days, f"{field}.extra_working_days", "extra working day", bad, far)
        )
        if working_hours is None:
            hours = default_hours(weekend_set)
        else:
            hours = _parse_week(working_hours, weekend_set, f"{field}.working_hours", bad)

        overrides: dict[date, DateOverride] = {}
        for i, (text, intervals, closed, name) in enumerate(date_overrides):
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
            zone_name, weekend_set, hol, hours, tuple(sorted(overrides.values())), extra, valid_until, valid_from
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
    def compiled(self) -> "CompiledCalendar":
        return CompiledCalendar(self)

    def __hash__(self) -> int:  # hashing 10,000 holidays on every lookup is wasteful
        return hash(self.version)


def _fmt_time(seconds: int) -> str:
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h:02d}:{m:02d}" + (f":{s:02d}" if s else "")


def _named_dates(
    items: Sequence[tuple[str, str]], path: str, what: str, bad: list[FieldViolation], far: list[FieldViolation]
) -> list[tuple[date, str]]:
    """Parse ``(date, name)`` pairs: sorted, repeats merged, disagreeing repeats reported."""
    if len(items) > MAX_HOLIDAYS:
        bad.append(FieldViolation(path, f"{len(items)} dates given; at most {MAX_HOLIDAYS} are allowed inline"))
        return []
    by_date: dict[date, tuple[int, str]] = {}
    for i, (text, name) in enumerate(items):
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


def parse_wall_time(text: object, path: str, bad: list[FieldViolation], *, is_end: bool) -> int | None:
    """``"HH:MM"`` / ``"HH:MM:SS"`` → seconds of day; ``"24:00"`` only as an end."""
    m = _TIME.fullmatch(text) if isinstance(text, str) else None
    if m:
        h, mi, s = int(m[1]), int(m[2]), int(m[3] or 0)
        if (h < 24 and mi < 60 and s < 60) or (is_end and (h, mi, s) == (24, 0, 0)):
            return (h * 60 + mi) * 60 + s
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
    """Parse and check one day's intervals: no zero length, no overlap (SPEC §10)."""
    out: list[tuple[Interval, int]] = []
    for j, (a, b) in enumerate(intervals):
        s = parse_wall_time(a, f"{path}[{j}].start", bad, is_end=False)
        e = parse_wall_time(b, f"{path}[{j}].end", bad, is_end=True)
        if s is None or e is None:
            continue
        if s == e:
            bad.append(FieldViolation(f"{path}[{j}].end", f"{a}–{b} has zero length"))
            continue
        out.append((Interval(s, e), j))
    out.sort(key=lambda p: p[0].span_us)
    for (prev, pj), (cur, cj) in zip(out, out[1:]):
        if cur.span_us[0] < prev.span_us[1]:
            pa, pb = prev.text()
            ca, cb = cur.text()
            bad.append(FieldViolation(f"{path}[{cj}]", f"{ca}–{cb} overlaps {pa}–{pb} (intervals[{pj}])"))
    return [iv for iv, _ in out]


Segment = tuple[int, int]


def merge(segments: Iterable[Segment]) -> list[Segment]:
    """Union of half-open segments, sorted and disjoint (empty ones dropped)."""
    out: list[list[int]] = []
    for a, b in sorted(s for s in segments if s[1] > s[0]):
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return [(a, b) for a, b in out]


def subtract(segments: list[Segment], cut: list[Segment]) -> list[Segment]:
    """``segments`` minus ``cut`` (both sorted and disjoint)."""
    out = []
    for a, b in segments:
        for c, d in cut:
            if d <= a or c >= b:
                continue
            if c > a:
                out.append((a, c))
            a = max(a, d)
            if a >= b:
                break
        if a < b:
            out.append((a, b))
    return out


class CompiledCalendar:
    """The form the arithmetic walks (built once per calendar, then cached).

    Dates are ordinals; instants and amounts are µs. The *template* is what the
    weekly pattern alone says of a date; *exceptions* are the dates whose
    status or hours differ (holidays on working weekdays, overrides, extra
    working days), kept sorted with prefix sums so that a count over any date
    range costs two bisections. Real open time differs from the nominal
    (wall-clock) sum only next to a DST transition, or next to an exception
    when some interval crosses midnight; those dates get an exact correction,
    found per year from the zone's transitions and cached.
    """

    def __init__(self, cal: Calendar):
        self.calendar = cal
        self.zone = cal.zone
        self.business = [0 if wd in cal.weekend else 1 for wd in range(1, 8)]
        self.spans = [tuple(sorted(iv.span_us for iv in ivs)) if self.business[i] else () for i, ivs in enumerate(cal.working_hours)]
        # extra working days take their weekday's hours, else the first weekday's that has any
        first_with_hours = next((sp for sp in self.spans if sp), ())
        self.overnight = any(e > DAY for sp in self.spans for _, e in sp) or any(
            iv.end <= iv.start for o in cal.date_overrides for iv in o.intervals
        )
        # template open time of each weekday, clipped by the previous weekday's
        # overnight intervals so that open time is a set of instants (SPEC §4)
        self.nominal = [
            _measure(subtract(merge(self.spans[i]), [(s - DAY, e - DAY) for s, e in self.spans[i - 1]]))
            for i in range(7)
        ]
        self.week_business = sum(self.business)
        self.week_nominal = sum(self.nominal)
        self._pb = [0] * 8
        self._pn = [0] * 8
        for i in range(7):
            self._pb[i + 1] = self._pb[i] + self.business[i]
            self._pn[i + 1] = self._pn[i] + self.nominal[i]
        # the template's business days around a date, indexed by ``o % 7``:
        # _after[o % 7][r] = how many days after ``o`` its (r+1)-th template
        # business day falls (1..7); _before likewise backwards
        self._after: list[list[int]] = [[] for _ in range(7)]
        self._before: list[list[int]] = [[] for _ in range(7)]
        # _reach_after[o % 7][d - 1] = template open time of the d dates after ``o``
        # (d = 1..7); _reach_before likewise of the d dates before it
        self._reach_after: list[list[int]] = [[] for _ in range(7)]
        self._reach_before: list[list[int]] = [[] for _ in range(7)]
        for m in range(7):
            w = (m - _MONDAY) % 7
            self._after[m] = [d for d in range(1, 8) if self.business[(w + d) % 7]]
            self._before[m] = [d for d in range(1, 8) if self.business[(w - d) % 7]]
            for d in range(1, 8):
                self._reach_after[m].append(sum(self.nominal[(w + i) % 7] for i in range(1, d + 1)))
                self._reach_before[m].append(sum(self.nominal[(w - i) % 7] for i in range(1, d + 1)))

        self.holiday_names = {h.date.toordinal(): h.name for h in cal.holidays}
        self.override_of = {o.date.toordinal(): o for o in cal.date_overrides}
        self.extra_names = {x.date.toordinal(): x.name for x in cal.extra_working_days}
        # effective (business, spans) of every date that is not plain template
        self._exc_status: dict[int, tuple[int, tuple[Segment, ...]]] = {}
        for o in sorted(set(self.holiday_names) | set(self.override_of) | set(self.extra_names)):
            w = (o - _MONDAY) % 7
            if o in self.override_of:
                ivs = self.override_of[o].intervals
                status = (1, tuple(sorted(iv.span_us for iv in ivs))) if ivs else (0, ())
            elif o in self.extra_names:
                status = (1, self.spans[w] or first_with_hours)
            else:
                status = (0, ())
            if status != (self.business[w], self.spans[w]):
                self._exc_status[o] = status
        self.exc = sorted(self._exc_status)
        self._exc_pb = [0]
        self._exc_pn = [0]
        for o in self.exc:
            w = (o - _MONDAY) % 7
            bus, spans = self._exc_status[o]
            self._exc_pb.append(self._exc_pb[-1] + bus - self.business[w])
            self._exc_pn.append(self._exc_pn[-1] + _measure(merge(spans)) - self.nominal[w])
        #: True when every exception closes a template business day (holidays,
        #: closed overrides); :meth:`closures` then counts them.
        self.only_closures = all(self._exc_status[o][0] == 0 and self.business[(o - _MONDAY) % 7] for o in self.exc)
        # The running totals B(y) (business days) and N(y) (nominal open time)
        # of all dates before y — template plus exceptions, from the anchor
        # Monday — next to each exception e: just before it, B(e) / N(e), and
        # just after it, B(e + 1) / N(e + 1). Both totals only grow, so one
        # bisection of these finds between which two exceptions an amount runs
        # out, and the weekly template does the rest (see nth_after).
        wb, wn, pb, pn = self.week_business, self.week_nominal, self._pb, self._pn
        at = [divmod(o - _MONDAY, 7) for o in self.exc]
        past = [divmod(o + 1 - _MONDAY, 7) for o in self.exc]
        self._b_at = [q * wb + pb[r] + e for (q, r), e in zip(at, self._exc_pb)]
        self._b_past = [q * wb + pb[r] + e for (q, r), e in zip(past, self._exc_pb[1:])]
        self._n_at = [q * wn + pn[r] + e for (q, r), e in zip(at, self._exc_pn)]
        self._n_past = [q * wn + pn[r] + e for (q, r), e in zip(past, self._exc_pn[1:])]
        self._corr_by_year: dict[int, tuple[list[int], list[int]]] = {}
        # the corrections of the years loaded so far (always a run of whole
        # years), merged: (lo, hi, dates, running totals) for dates lo <= o < hi
        # in one sorted list, so that any range inside costs two bisections;
        # one tuple, replaced whole, so that threads sharing the calendar
        # never see half of an update
        self._corr: tuple[int, int, list[int], list[int]] = (1, 0, [], [0])
        self._segments: dict[int, list[Segment]] = {}
        self._instant_range: tuple[int, int] | None = None
        self._utc = self.zone.key == "UTC"
        self._table = None if self._utc else table(self.zone)
        self._quiet = UTC_BLOCKS if self._table is None else self._table.quiet
        self._calm = UTC_BLOCKS if self._table is None else self._table.calm
        #: No date's real open time ever differs from its nominal one (UTC
        #: without overnight intervals): corrections are 0 without a look-up.
        self._no_corrections = self._utc and not self.overnight

    def instant_range(self) -> tuple[int, int]:
        """Instants [lo, hi) whose local date is surely inside 1900..2199: from
        the first instant of 1900-01-02 to the first of 2199-12-31 (a day of
        margin each side keeps odd offsets and folds out of the question)."""
        r = self._instant_range
        if r is None:
            r = self._instant_range = (resolve(self.zone, MIN_ORDINAL + 1, 0), resolve(self.zone, MAX_ORDINAL, 0))
        return r

    # ---- the zone (SPEC §1), with the one-look-up fast path of zones.QuietBlocks
    def local_of(self, us: int) -> tuple[int, int]:
        """Local (date ordinal, µs of day) of instant ``us`` in the calendar's zone."""
        off = self._quiet[us >> BLOCK_BITS]
        if off is None:  # a transition within a day: the year's table
            off = self._table.offset_in_year(us)
        days, rest = divmod(us + off, DAY)
        return days + EPOCH_ORDINAL, rest

    def resolve(self, o: int, us_of_day: int) -> int:
        """The instant of local date ``o`` at wall time ``us_of_day`` (SPEC §1:
        gap → forward by its length, fold → the earlier); as :func:`zones.resolve`."""
        local = (o - EPOCH_ORDINAL) * DAY + us_of_day
        off = self._quiet[local >> BLOCK_BITS]
        if off is not None:
            return local - off
        return self._table.resolve(local)

    def calm_at(self, t: int) -> bool:
        """True when no offset transition falls within a week of instant ``t``
        (False only says that one may)."""
        return self._calm[t >> BLOCK_BITS] is not None

    def transition_near(self, a: int, b: int) -> bool:
        """Whether the zone's UTC offset changes at some instant in ``[a, b)``
        (quiet blocks answer a span of days without a search)."""
        if self._table is None:
            return False
        quiet = self._quiet
        k, last = a >> BLOCK_BITS, (b - 1) >> BLOCK_BITS
        if b <= a or last - k >= 8:
            return self._table.has_transition(a, b)
        while k <= last:
            if quiet[k] is None:
                return bool(self._table.transitions(a, b))
            k += 1
        return False

    # ---- status of one date -------------------------------------------
    def weekday_index(self, o: int) -> int:
        """0 = Monday … 6 = Sunday."""
        return (o - _MONDAY) % 7

    def is_business_day(self, o: int) -> bool:
        """SPEC §3 with the precedence of §4: override > extra day > holiday > weekend."""
        st = self._exc_status.get(o)
        return bool(st[0]) if st is not None else bool(self.business[(o - _MONDAY) % 7])

    def day_spans(self, o: int) -> tuple[Segment, ...]:
        """Working intervals of date ``o`` as (start, end) µs after its midnight."""
        st = self._exc_status.get(o)
        return st[1] if st is not None else self.spans[(o - _MONDAY) % 7]

    def closed_reason(self, o: int) -> str | None:
        """Why date ``o`` is not a business day, in words; None when it is one."""
        if self.is_business_day(o):
            return None
        if o in self.override_of:
            name = self.override_of[o].name
            return f"closed by override ({name})" if name else "closed by override"
        if o in self.holiday_names:
            name = self.holiday_names[o]
            return f"holiday ({name})" if name else "holiday"
        return "weekend"

    def has_hours(self) -> bool:
        return self.week_nominal > 0

    # ---- counts over date ranges [a, b) -------------------------------
    def count_business_days(self, a: int, b: int) -> int:
        """Business days among local dates ``a <= o < b``; O(log exceptions)."""
        return self._template(self._pb, self.week_business, b) - self._template(self._pb, self.week_business, a) + (
            self._exc_pb[bisect.bisect_left(self.exc, b)] - self._exc_pb[bisect.bisect_left(self.exc, a)]
        )

    def closures(self, a: int, b: int) -> int:
        """Template business days among ``a <= o < b`` that an exception closes
        (valid when :attr:`only_closures`)."""
        return bisect.bisect_left(self.exc, b) - bisect.bisect_left(self.exc, a)

    def nominal_open(self, a: int, b: int) -> int:
        """Wall-clock open time (µs) of dates ``a <= o < b``, before DST corrections."""
        return self._template(self._pn, self.week_nominal, b) - self._template(self._pn, self.week_nominal, a) + (
            self._exc_pn[bisect.bisect_left(self.exc, b)] - self._exc_pn[bisect.bisect_left(self.exc, a)]
        )

    # ---- the weekly template alone: where a count would land without exceptions
    def template_nth_after(self, o: int, k: int) -> int:
        """The k-th (k ≥ 1) template business day strictly after date ``o``."""
        q, r = divmod(k - 1, self.week_business)
        return o + 7 * q + self._after[o % 7][r]

    def template_nth_before(self, o: int, k: int) -> int:
        """The k-th (k ≥ 1) template business day strictly before date ``o``."""
        q, r = divmod(k - 1, self.week_business)
        return o - 7 * q - self._before[o % 7][r]

    def template_reach_after(self, o: int, amount: int) -> int:
        """The first date D > ``o`` whose template open time over (o, D] is ≥ ``amount`` µs:
        whole weeks at once, then the week's running totals (one bisection)."""
        q, rest = divmod(amount - 1, self.week_nominal)
        return o + 7 * q + 1 + bisect.bisect_left(self._reach_after[o % 7], rest + 1)

    def template_reach_before(self, o: int, amount: int) -> int:
        """The last date D < ``o`` whose template open time over [D, o) is ≥ ``amount`` µs."""
        q, rest = divmod(amount - 1, self.week_nominal)
        return o - 7 * q - 1 - bisect.bisect_left(self._reach_before[o % 7], rest + 1)

    # ---- where a count of business days runs out (SPEC §3) -------------
    def nth_after(self, o: int, n: int) -> int:
        """The n-th (n ≥ 1) business day strictly after date ``o``, exactly,
        whatever the calendar (holidays, overrides, extra working days), at a
        cost that does not grow with n: B(y), the business days before date y,
        only grows; the answer x is the first date with B(x + 1) ≥ B(o + 1) + n.
        One bisection of B just past each exception finds the exception e_i
        before which that happens; between e_(i−1) and e_i only the weekly
        template counts, so its table gives the date (capped at e_i itself,
        an extra working day). Two bisections and two divisions in all; may
        return a date past 2199 (the caller checks)."""
        exc, exc_pb, pb, per_week, past = self.exc, self._exc_pb, self._pb, self.week_business, self._b_past
        a = o + 1
        k = bisect.bisect_left(exc, a)
        if k == len(exc):  # no exception ahead: the template alone
            q, r = divmod(n - 1, per_week)
            return o + 7 * q + self._after[o % 7][r]
        q, r = divmod(a - _MONDAY, 7)
        goal = q * per_week + pb[r] + exc_pb[k] + n  # B(a) + n
        if past[k] >= goal:  # reached by the next exception: the template up to it
            q, r = divmod(n - 1, per_week)
            x = o + 7 * q + self._after[o % 7][r]
            return x if x < exc[k] else exc[k]
        i = bisect.bisect_left(past, goal, k + 1)  # exceptions before i end short of the goal
        p = exc[i - 1] + 1  # from here to exception i, B(y) = template + exc_pb[i]
        q, r = divmod(p - _MONDAY, 7)
        q, r = divmod(goal - exc_pb[i] - q * per_week - pb[r] - 1, per_week)
        x = p - 1 + 7 * q + self._after[(p - 1) % 7][r]
        return x if i == len(exc) or x < exc[i] else exc[i]

    def nth_before(self, o: int, m: int) -> int:
        """The m-th (m ≥ 1) business day strictly before date ``o``: the last
        date x with B(x) ≤ B(o) − m; :meth:`nth_after` mirrored."""
        exc, exc_pb, pb, per_week, at = self.exc, self._exc_pb, self._pb, self.week_business, self._b_at
        k = bisect.bisect_left(exc, o)
        if k == 0:  # no exception behind: the template alone
            q, r = divmod(m - 1, per_week)
            return o - 7 * q - self._before[o % 7][r]
        q, r = divmod(o - _MONDAY, 7)
        goal = q * per_week + pb[r] + exc_pb[k] - m  # B(o) − m
        if at[k - 1] <= goal:  # reached before the previous exception: the template down to it
            q, r = divmod(m - 1, per_week)
            x = o - 7 * q - self._before[o % 7][r]
            return x if x > exc[k - 1] else exc[k - 1]
        i = bisect.bisect_right(at, goal, 0, k - 1)  # exceptions before i start within the goal
        top = exc[i]  # below here, down to exception i − 1, B(y) = template + exc_pb[i]
        q, r = divmod(top - _MONDAY, 7)
        q, r = divmod(q * per_week + pb[r] + exc_pb[i] - goal - 1, per_week)
        x = top - 7 * q - self._before[top % 7][r]
        return x if i == 0 or x > exc[i - 1] else exc[i - 1]

    # ---- where an amount of open time runs out (SPEC §4) ---------------
    def reach_after(self, first: int, left: int, tries: int = 6) -> tuple[int, int] | None:
        """The first date D ≥ ``first`` by whose end ``left`` µs (> 0) of open
        time have passed since the start of ``first``, with the open time of
        dates first … D − 1 (< ``left``); None when ``tries`` jumps do not
        settle it (the caller then searches).

        The candidate is exact for the nominal open time N(y) of the dates
        before y, as in :meth:`nth_after`: one bisection of N just past each
        exception, then the weekly template's running totals — the same cost
        for 8 business hours as for 2000. The real open time up to it (DST
        corrections included) and its own segments then decide: a date is the
        answer exactly when the open time before it falls short and the one
        through it does not (open time only grows), so no other proof is
        needed; where corrections move the answer, jump on by the shortfall.
        """
        bl = bisect.bisect_left
        exc, exc_pn, pn, per_week, past = self.exc, self._exc_pn, self._pn, self.week_nominal, self._n_past
        reach = self._reach_after
        k = bl(exc, first)
        q, r = divmod(first - _MONDAY, 7)
        before = q * per_week + pn[r] + exc_pn[k]  # N(first)
        if k == len(exc) or past[k] >= before + left:  # reached by the next exception: the template
            q, rest = divmod(left - 1, per_week)
            x = first + 7 * q + bl(reach[(first - 1) % 7], rest + 1)
            if k < len(exc) and x > exc[k]:
                x = exc[k]
        else:
            i = bl(past, before + left, k + 1)
            p = exc[i - 1] + 1  # from here to exception i, N(y) = template + exc_pn[i]
            q, r = divmod(p - _MONDAY, 7)
            q, rest = divmod(before + left - exc_pn[i] - q * per_week - pn[r] - 1, per_week)
            x = p + 7 * q + bl(reach[(p - 1) % 7], rest + 1)
            if i < len(exc) and x > exc[i]:
                x = exc[i]
        corrected = not self._no_corrections
        for _ in range(tries):
            if x > MAX_ORDINAL:
                return None
            q, r = divmod(x - _MONDAY, 7)
            used = q * per_week + pn[r] + exc_pn[bl(exc, x)] - before
            if corrected and x > first:
                lo, hi, ords, prefix = self._corr
                if not (lo <= first and x <= hi):
                    lo, hi, ords, prefix = self._load_corrections(first, x)
                if ords:
                    used += prefix[bl(ords, x)] - prefix[bl(ords, first)]
            if used >= left:  # more open time than the template has: an earlier date may do
                return None
            through = used
            for a, b in self._segments.get(x) or self.segments(x):
                through += b - a
            if through >= left:
                return x, used
            q, rest = divmod(left - through - 1, per_week)
            x += 7 * q + 1 + bl(reach[x % 7], rest + 1)
        return None

    def reach_before(self, last: int, left: int, tries: int = 6) -> tuple[int, int] | None:
        """:meth:`reach_after` backwards: the last date D ≤ ``last`` from whose
        start to the end of ``last`` lie ``left`` µs (> 0) of open time, with
        the open time of dates D + 1 … last (< ``left``); None when unsettled."""
        bl = bisect.bisect_left
        exc, exc_pn, pn, per_week, at = self.exc, self._exc_pn, self._pn, self.week_nominal, self._n_at
        reach = self._reach_before
        end = last + 1
        k = bl(exc, end)
        q, r = divmod(end - _MONDAY, 7)
        upto = q * per_week + pn[r] + exc_pn[k]  # N(end)
        if k == 0 or at[k - 1] <= upto - left:  # reached before the previous exception: the template
            q, rest = divmod(left - 1, per_week)
            x = end - 7 * q - 1 - bl(reach[end % 7], rest + 1)
            if k > 0 and x < exc[k - 1]:
                x = exc[k - 1]
        else:
            i = bisect.bisect_right(at, upto - left, 0, k - 1)
            top = exc[i]  # below here, down to exception i − 1, N(y) = template + exc_pn[i]
            q, r = divmod(top - _MONDAY, 7)
            q, rest = divmod(q * per_week + pn[r] + exc_pn[i] - (upto - left) - 1, per_week)
            x = top - 7 * q - 1 - bl(reach[top % 7], rest + 1)
            if i > 0 and x < exc[i - 1]:
                x = exc[i - 1]
        corrected = not self._no_corrections
        for _ in range(tries):
            if x < MIN_ORDINAL:
                return None
            q, r = divmod(x + 1 - _MONDAY, 7)
            used = upto - (q * per_week + pn[r] + exc_pn[bl(exc, x + 1)])
            if corrected and x < last:
                lo, hi, ords, prefix = self._corr
                if not (lo <= x + 1 and end <= hi):
                    lo, hi, ords, prefix = self._load_corrections(x + 1, end)
                if ords:
                    used += prefix[bl(ords, end)] - prefix[bl(ords, x + 1)]
            if used >= left:
                return None
            through = used
            for a, b in self._segments.get(x) or self.segments(x):
                through += b - a
            if through >= left:
                return x, used
            q, rest = divmod(left - through - 1, per_week)
            x -= 7 * q + 1 + bl(reach[x % 7], rest + 1)
        return None

    @staticmethod
    def _template(prefix: list[int], per_week: int, x: int) -> int:
        q, r = divmod(x - _MONDAY, 7)
        return q * per_week + prefix[r]

    def open_time(self, a: int, b: int) -> int:
        """Real open time (µs) of the segments owned by dates ``a <= o < b``:
        :meth:`nominal_open` plus the DST corrections, inlined (four bisections)."""
        if b <= a:
            return 0
        exc, exc_pn, pn = self.exc, self._exc_pn, self._pn
        qa, ra = divmod(a - _MONDAY, 7)
        qb, rb = divmod(b - _MONDAY, 7)
        nominal = (qb - qa) * self.week_nominal + pn[rb] - pn[ra] + exc_pn[bisect.bisect_left(exc, b)] - exc_pn[
            bisect.bisect_left(exc, a)]
        if self._no_corrections:
            return nominal
        lo, hi, ords, prefix = self._corr
        if not (lo <= a and b <= hi):
            lo, hi, ords, prefix = self._load_corrections(a, b)
        if not ords:
            return nominal
        return nominal + prefix[bisect.bisect_left(ords, b)] - prefix[bisect.bisect_left(ords, a)]

    # ---- exact segments -----------------------------------------------
    def raw_segments(self, o: int) -> list[Segment]:
        """Instants of date ``o``'s intervals, each endpoint resolved by SPEC §1
        on its own; an interval that a gap makes empty is dropped (SPEC §10)."""
        spans = self.day_spans(o)
        if not spans:
            return []
        base = local_us_of(o, 0)
        off = 0 if self._utc else self._table.constant_offset(base - 2 * DAY, base + 4 * DAY)
        if off is not None:  # no DST change near: one offset for the whole date
            return [(base + s - off, base + e - off) for s, e in spans]
        zone = self.zone
        return merge((resolve(zone, o, s), resolve(zone, o, e)) for s, e in spans)

    def segments(self, o: int) -> list[Segment]:
        """Open segments owned by date ``o``: its own, minus what the two dates
        before it already cover (an overnight interval, or a DST shift), so that
        segments of different dates never overlap and add up to the open time
        of SPEC §4 (a set of instants). Cached per date."""
        cached = self._segments.get(o)
        if cached is not None:
            return cached
        own = self.raw_segments(o)
        if own and (self.overnight or not self._utc):
            prev = merge(self.raw_segments(o - 1) + self.raw_segments(o - 2))
            if prev and prev[-1][1] > own[0][0]:
                own = subtract(own, prev)
        if len(self._segments) >= 2048:
            self._segments.clear()
        self._segments[o] = own
        return own

    def _nominal_of(self, o: int) -> int:
        w = (o - _MONDAY) % 7
        st = self._exc_status.get(o)
        return self.nominal[w] if st is None else _measure(merge(st[1]))

    # ---- corrections ----------------------------------------------------
    def _corrections(self, a: int, b: int) -> int:
        """Real minus nominal open time of dates ``a <= o < b`` (µs)."""
        if self._no_corrections or b <= a:
            return 0
        lo, hi, ords, prefix = self._corr
        if not (lo <= a and b <= hi):
            lo, hi, ords, prefix = self._load_corrections(a, b)
        return prefix[bisect.bisect_left(ords, b)] - prefix[bisect.bisect_left(ords, a)]

    def _load_corrections(self, a: int, b: int) -> tuple[int, int, list[int], list[int]]:
        """Extend the merged corrections to cover dates ``a <= o < b`` (and
        every year between them and those already loaded); returns them."""
        y0, y1 = date.fromordinal(a).year, date.fromordinal(b - 1).year
        lo, hi, _, _ = self._corr
        if lo < hi:
            y0, y1 = min(y0, date.fromordinal(lo).year), max(y1, date.fromordinal(hi - 1).year)
        ords: list[int] = []
        prefix = [0]
        for y in range(y0, y1 + 1):
            year_ords, year_prefix = self._year_corrections(y)
            base = prefix[-1]
            ords.extend(year_ords)
            prefix.extend([base + p for p in year_prefix[1:]])
        lo = date(y0, 1, 1).toordinal()
        hi = date(y1 + 1, 1, 1).toordinal() if y1 < 9999 else date(9999, 12, 31).toordinal() + 1
        corr = self._corr = (lo, hi, ords, prefix)
        return corr

    def _year_corrections(self, year: int) -> tuple[list[int], list[int]]:
        """Dates of local ``year`` whose real open time differs from nominal."""
        cached = self._corr_by_year.get(year)
        if cached is not None:
            return cached
        first = date(year, 1, 1).toordinal()
        last = date(year + 1, 1, 1).toordinal() if year < 9999 else first + 366
        affected: set[int] = set()
        for t in transitions_between(self.zone, local_us_of(first - 4, 0), local_us_of(last + 4, 0)):
            for off in (offset_us(self.zone, t - 1), offset_us(self.zone, t)):
                o = (t + off) // DAY + EPOCH_ORDINAL
                affected.update(range(o - 1, o + 3))
        if self.overnight:
            for o in self.exc[bisect.bisect_left(self.exc, first - 1) : bisect.bisect_left(self.exc, last)]:
                affected.update((o, o + 1))
        ords, prefix = [], [0]
        for o in sorted(affected):
            if first <= o < last:
                c = _measure(self.segments(o)) - self._nominal_of(o)
                if c:
                    ords.append(o)
                    prefix.append(prefix[-1] + c)
        self._corr_by_year[year] = (ords, prefix)
        return ords, prefix


def _measure(segments: Iterable[Segment]) -> int:
    return sum(e - s for s, e in segments)
