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
    EPOCH_ORDINAL,
    MAX_ORDINAL,
    MIN_ORDINAL,
    get_zone,
    local_us_of,
    offset_us,
    resolve,
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

    # ---- construction -------------------------------------------------
    @classmethod
    def from_text(
        cls,
        time_zone: str | None = None,
        weekend: Sequence[int] | None = None,
        holidays: Sequence[tuple[str, str]] = (),
        working_hours: Sequence[tuple[int, Sequence[tuple[str, str]]]] | None = None,
        field: str = "calendar",
    ) -> "Calendar":
        """Validate a calendar given as text and numbers (as on the wire).

        ``weekend``: ISO weekdays, ``None`` = Saturday + Sunday, ``[]`` = none.
        ``holidays``: ``("YYYY-MM-DD", name)`` pairs.
        ``working_hours``: ``(iso_weekday, [("HH:MM", "HH:MM"), ...])`` pairs;
        ``None`` = 09:00–17:00 on non-weekend days; when given it is the whole
        week. Raises :class:`InvalidArgument` with one violation per problem
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

        if len(holidays) > MAX_HOLIDAYS:
            bad.append(FieldViolation(f"{field}.holidays", f"{len(holidays)} holidays given; at most {MAX_HOLIDAYS} are allowed inline"))
            holidays = ()
        by_date: dict[date, tuple[int, str]] = {}
        for i, (text, name) in enumerate(holidays):
            path = f"{field}.holidays[{i}]"
            d = _parse_date(text, f"{path}.date", bad)
            if d is None:
                continue
            if not (MIN_ORDINAL <= d.toordinal() <= MAX_ORDINAL):
                far.append(FieldViolation(f"{path}.date", f"{text} is outside the supported range 1900-01-01..2199-12-31"))
                continue
            if d in by_date and by_date[d][1] != (name or ""):
                j = by_date[d][0]
                bad.append(FieldViolation(f"{path}.date", f"{text} is listed twice with different names ({by_date[d][1]!r} at holidays[{j}], {name!r} here)"))
                continue
            by_date.setdefault(d, (i, name or ""))
        hol = tuple(sorted(Holiday(d, n) for d, (_, n) in by_date.items()))

        if working_hours is None:
            hours = default_hours(weekend_set)
        else:
            hours = _parse_week(working_hours, weekend_set, f"{field}.working_hours", bad)
        if bad:
            raise InvalidArgument(bad + far)
        if far:
            raise OutOfRange(far)
        return cls(zone_name, weekend_set, hol, hours)

    # ---- identity -----------------------------------------------------
    def canonical(self) -> dict:
        """The canonical form: sorted, explicit, defaults applied."""
        return {
            "time_zone": self.time_zone,
            "weekend": sorted(self.weekend),
            "holidays": [{"date": h.date.isoformat(), "name": h.name} for h in self.holidays],
            "working_hours": {
                str(wd): [list(iv.text()) for iv in ivs] for wd, ivs in enumerate(self.working_hours, start=1) if ivs
            },
        }

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
    _check_overnight(days, path, bad)
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


def _check_overnight(days: list[list[Interval]], path: str, bad: list[FieldViolation]) -> None:
    """An interval crossing midnight must end before the next weekday's first start."""
    for i, ivs in enumerate(days):
        nxt = days[(i + 1) % 7]
        if not ivs or not nxt:
            continue
        end = max(iv.span_us[1] for iv in ivs) - DAY
        first = min(iv.span_us[0] for iv in nxt)
        if end > first:
            over = max(ivs, key=lambda iv: iv.span_us[1])
            a, b = over.text()
            bad.append(
                FieldViolation(
                    path,
                    f"{WEEKDAY_NAMES[i]}'s {a}–{b} runs past {_fmt_time(first // SECOND)}, "
                    f"when {WEEKDAY_NAMES[(i + 1) % 7]}'s hours begin",
                )
            )


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

    Dates are ordinals; instants and amounts are µs. "Template" means what the
    weekly pattern alone says; *exceptions* are the dates whose status differs
    (holidays on working weekdays), kept sorted with prefix sums so that
    counts over any range take two bisections.
    """

    def __init__(self, cal: Calendar):
        self.calendar = cal
        self.zone = cal.zone
        self.business = [0 if wd in cal.weekend else 1 for wd in range(1, 8)]
        self.spans = [tuple(iv.span_us for iv in ivs) for ivs in cal.working_hours]
        self.nominal = [sum(e - s for s, e in sp) if self.business[i] else 0 for i, sp in enumerate(self.spans)]
        self.week_business = sum(self.business)
        self.week_nominal = sum(self.nominal)
        self._pb = [0] * 8
        self._pn = [0] * 8
        for i in range(7):
            self._pb[i + 1] = self._pb[i] + self.business[i]
            self._pn[i + 1] = self._pn[i] + self.nominal[i]
        self.holiday_names = {h.date.toordinal(): h.name for h in cal.holidays}
        # exceptions: holidays on template business days
        self.exc = [o for o in sorted(self.holiday_names) if self.business[(o - _MONDAY) % 7]]
        self._exc_pb = [0]
        self._exc_pn = [0]
        for o in self.exc:
            self._exc_pb.append(self._exc_pb[-1] - 1)
            self._exc_pn.append(self._exc_pn[-1] - self.nominal[(o - _MONDAY) % 7])
        self._exc_set = frozenset(self.exc)
        self._corr_by_year: dict[int, tuple[list[int], list[int]]] = {}

    # ---- status of one date -------------------------------------------
    def weekday_index(self, o: int) -> int:
        """0 = Monday … 6 = Sunday."""
        return (o - _MONDAY) % 7

    def is_business_day(self, o: int) -> bool:
        """SPEC §3: not a weekend day and not a holiday."""
        return bool(self.business[(o - _MONDAY) % 7]) and o not in self._exc_set

    def day_spans(self, o: int) -> tuple[Segment, ...]:
        """Working intervals of date ``o`` as (start, end) µs after its midnight."""
        return self.spans[(o - _MONDAY) % 7] if self.is_business_day(o) else ()

    def has_hours(self) -> bool:
        return self.week_nominal > 0

    # ---- counts over date ranges [a, b) -------------------------------
    def count_business_days(self, a: int, b: int) -> int:
        """Business days among local dates ``a <= o < b``; O(log holidays)."""
        return self._template(self._pb, self.week_business, b) - self._template(self._pb, self.week_business, a) + (
            self._exc_pb[bisect.bisect_left(self.exc, b)] - self._exc_pb[bisect.bisect_left(self.exc, a)]
        )

    def nominal_open(self, a: int, b: int) -> int:
        """Wall-clock open time (µs) of dates ``a <= o < b``, ignoring DST."""
        return self._template(self._pn, self.week_nominal, b) - self._template(self._pn, self.week_nominal, a) + (
            self._exc_pn[bisect.bisect_left(self.exc, b)] - self._exc_pn[bisect.bisect_left(self.exc, a)]
        )

    @staticmethod
    def _template(prefix: list[int], per_week: int, x: int) -> int:
        q, r = divmod(x - _MONDAY, 7)
        return q * per_week + prefix[r]

    def open_time(self, a: int, b: int) -> int:
        """Real open time (µs) of the segments owned by dates ``a <= o < b``."""
        if b <= a:
            return 0
        return self.nominal_open(a, b) + self._corrections(a, b)

    # ---- exact segments -----------------------------------------------
    def raw_segments(self, o: int) -> list[Segment]:
        """Instants of date ``o``'s intervals, each endpoint resolved by SPEC §1."""
        zone = self.zone
        return merge((resolve(zone, o, s), resolve(zone, o, e)) for s, e in self.day_spans(o))

    def segments(self, o: int) -> list[Segment]:
        """Open segments owned by date ``o``: its own, minus what the two dates
        before it already cover (possible only next to a DST transition), so
        that segments of different dates never overlap and add up to the open
        time of SPEC §4 (a set of instants)."""
        own = self.raw_segments(o)
        if not own:
            return own
        prev = merge(self.raw_segments(o - 1) + self.raw_segments(o - 2))
        return subtract(own, prev) if prev else own

    # ---- DST corrections ----------------------------------------------
    def _corrections(self, a: int, b: int) -> int:
        if self.zone.key == "UTC":
            return 0
        total = 0
        y0, y1 = date.fromordinal(max(a, 1)).year, date.fromordinal(max(b - 1, 1)).year
        for y in range(y0, y1 + 1):
            ords, prefix = self._year_corrections(y)
            total += prefix[bisect.bisect_left(ords, b)] - prefix[bisect.bisect_left(ords, a)]
        return total

    def _year_corrections(self, year: int) -> tuple[list[int], list[int]]:
        """Dates of local ``year`` whose real open time differs from nominal."""
        cached = self._corr_by_year.get(year)
        if cached is not None:
            return cached
        first = date(year, 1, 1).toordinal()
        last = date(year + 1, 1, 1).toordinal() if year < 9999 else first + 366
        lo = local_us_of(first - 4, 0)
        hi = local_us_of(last + 4, 0)
        affected: set[int] = set()
        for t in transitions_between(self.zone, lo, hi):
            for off in (offset_us(self.zone, t - 1), offset_us(self.zone, t)):
                o = (t + off) // DAY + EPOCH_ORDINAL
                affected.update(range(o - 1, o + 3))
        ords, prefix = [], [0]
        for o in sorted(affected):
            if first <= o < last:
                c = sum(e - s for s, e in self.segments(o)) - self._nominal_of(o)
                if c:
                    ords.append(o)
                    prefix.append(prefix[-1] + c)
        self._corr_by_year[year] = (ords, prefix)
        return ords, prefix

    def _nominal_of(self, o: int) -> int:
        return self.nominal[(o - _MONDAY) % 7] if self.is_business_day(o) else 0
