"""Independent reference implementation ("oracle") of duetime's rules, docs/semantics.md §1–§6, §15.

Written from the text of the rules only, for obviousness rather than speed.
It shares no code with ``duetime.core``: disagreements between the two reveal a
bug in one of them.  Everything here works day by day and instant by instant:

* week periods (§16): a date's weekend and hours are those of the last period
  that starts on or before it, else the calendar's own;
* wall-time resolution (§1) is done by trying every UTC offset the zone uses
  near the wall time, never by the ``fold`` attribute of ``datetime``;
* a date is a business day when its ISO weekday is not a weekend day and it is
  not a holiday (§3; the core's ``Calendar.from_text`` has no overrides and no
  extra working days, so the precedence of §4 reduces to that);
* open time (§4) is the union, as a set of instants, of every working interval
  of every business day, each endpoint resolved on its own by §1; an interval
  whose resolved end is not after its resolved start is dropped (§10);
* ``add_bh`` walks the merged open segments; ``add_bd`` steps date by date;
  ``bd_between`` loops N upward, literally as §3 defines it;
* a landing rule (§15) rolls date by date (the modified conventions look
  for a business day within the month first), and ``Nbd@TIME`` (§6) takes
  the N-th business day date by date.

Instants are integers: microseconds since 1970-01-01T00:00Z.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta, timezone
from decimal import Decimal, Inexact, localcontext
from typing import Iterable, Sequence
from zoneinfo import ZoneInfo

UTC = timezone.utc
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
ONE_US = timedelta(microseconds=1)
SECOND = 1_000_000
MINUTE = 60 * SECOND
HOUR = 60 * MINUTE
DAY = 24 * HOUR

MIN_DATE = date(1900, 1, 1)
MAX_DATE = date(2199, 12, 31)


class OracleError(Exception):
    """Base of the oracle's errors (mirrors duetime's DuetimeError)."""


class OracleInvalid(OracleError):
    """The rules call the input an error (INVALID_ARGUMENT)."""


class OracleOutOfRange(OracleError):
    """The rules call the input or result OUT_OF_RANGE."""


# ---------------------------------------------------------------------------
# Instants
# ---------------------------------------------------------------------------


def to_us(dt: datetime) -> int:
    """Aware datetime -> microseconds since the epoch."""
    if dt.tzinfo is None or dt.utcoffset() is None:
        raise OracleInvalid("naive datetime")
    return (dt - EPOCH) // ONE_US


def from_us(n: int) -> datetime:
    """Microseconds since the epoch -> aware UTC datetime."""
    return EPOCH + timedelta(microseconds=n)


@functools.lru_cache(maxsize=64)
def zone(key: str) -> ZoneInfo:
    return ZoneInfo(key)


def local_wall(zone_key: str, instant: int) -> datetime:
    """The naive local wall time of an instant in the zone (fold dropped)."""
    return from_us(instant).astimezone(zone(zone_key)).replace(tzinfo=None, fold=0)


def local_date(zone_key: str, instant: int) -> date:
    return local_wall(zone_key, instant).date()


# ---------------------------------------------------------------------------
# §1 wall-time resolution
# ---------------------------------------------------------------------------


@functools.lru_cache(maxsize=50_000)
def _hourly_samples(zone_key: str, day: date) -> tuple[tuple[datetime, timedelta, datetime], ...]:
    """(UTC instant, UTC offset, naive local wall time) sampled every hour from
    3 days before to 4 days after the given date's midnight read as UTC, so the
    samples surround every wall time of that date by at least 2 days, whatever
    the zone's offset (offsets stay within about ±15 h)."""
    z = zone(zone_key)
    base = datetime.combine(day, time(0), UTC) - timedelta(days=3)
    out = []
    for h in range(7 * 24 + 1):
        u = base + timedelta(hours=h)
        loc = u.astimezone(z)
        out.append((u, loc.utcoffset(), loc.replace(tzinfo=None, fold=0)))
    return tuple(out)


@functools.lru_cache(maxsize=400_000)
def resolve(zone_key: str, wall: datetime) -> int:
    """§1: local wall time -> instant (µs).

    Candidates are wall - offset for every offset the zone uses around the
    wall time; a candidate is real when its own local wall time is the given
    one.  Several real candidates (a fold): the earliest.  None (a gap): the
    wall time minus the offset in force just before the gap, i.e. moved forward
    by the length of the gap."""
    wall = wall.replace(tzinfo=None, fold=0)
    samples = _hourly_samples(zone_key, wall.date())
    z = zone(zone_key)
    offsets = sorted({off for _, off, _ in samples})
    real = []
    for off in offsets:
        t = (wall - off).replace(tzinfo=UTC)
        if t.astimezone(z).replace(tzinfo=None, fold=0) == wall:
            real.append(t)
    if real:
        return to_us(min(real))
    # A gap: find the offset change whose wall time jumps over `wall`.
    befores = []
    for (u1, o1, w1), (u2, o2, w2) in zip(samples, samples[1:]):
        if o1 != o2 and w1 < wall < w2:
            befores.append(o1)
    if len(befores) != 1:
        raise AssertionError(f"oracle cannot place {wall} in {zone_key}: {befores}")
    return to_us((wall - befores[0]).replace(tzinfo=UTC))


def resolve_dt(zone_key: str, d: date, t: time) -> datetime:
    return from_us(resolve(zone_key, datetime.combine(d, t.replace(tzinfo=None, fold=0))))


# ---------------------------------------------------------------------------
# Calendars
# ---------------------------------------------------------------------------

_HHMM = re.compile(r"^([0-9]{2}):([0-9]{2})$")


def parse_hhmm(text: str, *, allow_24: bool) -> int:
    """'HH:MM' -> minutes after midnight; '24:00' -> 1440 (ends only)."""
    m = _HHMM.match(text)
    if not m:
        raise OracleInvalid(f"bad time {text!r}")
    h, mi = int(m.group(1)), int(m.group(2))
    if h == 24 and mi == 0 and allow_24:
        return 24 * 60
    if h > 23 or mi > 59:
        raise OracleInvalid(f"bad time {text!r}")
    return h * 60 + mi


def minutes_to_time(m: int) -> time:
    return time(m // 60, m % 60)


@dataclass(frozen=True)
class Interval:
    """A working interval as wall-clock minutes. end == 1440 is '24:00';
    end < start crosses midnight (the end is on the next date)."""

    start: int
    end: int

    @property
    def overnight(self) -> bool:
        return self.end < self.start

    def wall_span(self) -> tuple[int, int]:
        """[start, end) in minutes from the start date's midnight."""
        return (self.start, self.end + 1440 if self.overnight else self.end)


@dataclass(frozen=True)
class OCal:
    zone: str = "UTC"
    weekend: frozenset[int] = frozenset({6, 7})
    holidays: frozenset[date] = frozenset()
    hours: tuple[tuple[int, tuple[Interval, ...]], ...] = field(default=())
    #: Week periods (§16): (from date, weekend, hours) in increasing order.
    periods: tuple[tuple[date, frozenset[int], tuple[tuple[int, tuple[Interval, ...]], ...]], ...] = ()

    @staticmethod
    def from_text(
        time_zone: str | None = None,
        weekend: Sequence[int] | None = None,
        holidays: Sequence[tuple[str, str]] = (),
        working_hours: Sequence[tuple[int, Sequence[tuple[str, str]]]] | None = None,
        week_periods: Sequence[tuple[str, Sequence[int] | None, Sequence | None]] = (),
    ) -> "OCal":
        """Same inputs as duetime.core.Calendar.from_text."""
        zone_key = "UTC" if time_zone is None else time_zone
        try:
            zone(zone_key)
        except Exception as e:  # unknown zone
            raise OracleInvalid(f"time_zone {zone_key!r}") from e
        wk, hours = OCal._week(weekend, working_hours, may_close=False)
        hol = frozenset(date.fromisoformat(d) for d, _name in holidays)
        periods = []
        for i, (text, p_weekend, p_hours) in enumerate(week_periods):
            d = date.fromisoformat(text)
            if periods and d <= periods[-1][0]:
                raise OracleInvalid(f"week period {i} not after the one before")
            periods.append((d, *OCal._week(p_weekend, p_hours, may_close=i < len(week_periods) - 1)))
        return OCal(zone_key, wk, hol, hours, tuple(periods))

    @staticmethod
    def _week(weekend, working_hours, *, may_close: bool):
        """(weekend, hours by weekday) of one week, defaults applied (§4, §6)."""
        wk = frozenset({6, 7}) if weekend is None else frozenset(weekend)
        if any(not (1 <= w <= 7) for w in wk):
            raise OracleInvalid("weekend day out of 1..7")
        if len(wk) == 7 and not may_close:
            raise OracleInvalid("weekend of all seven days")
        if working_hours is None:
            hours = {w: (Interval(9 * 60, 17 * 60),) for w in range(1, 8) if w not in wk}
        else:
            hours = {}
            for w, ivs in working_hours:
                if not (1 <= w <= 7):
                    raise OracleInvalid("weekday out of 1..7")
                if w in hours:
                    raise OracleInvalid("weekday given twice")
                parsed = []
                for s, e in ivs:
                    iv = Interval(parse_hhmm(s, allow_24=False), parse_hhmm(e, allow_24=True))
                    if iv.start == iv.end:
                        raise OracleInvalid("zero-length interval")
                    parsed.append(iv)
                spans = sorted(iv.wall_span() for iv in parsed)
                for (a1, b1), (a2, b2) in zip(spans, spans[1:]):
                    if a2 < b1:
                        raise OracleInvalid("overlapping intervals")
                if parsed and w in wk:
                    raise OracleInvalid(f"working hours on weekend day {w}")
                hours[w] = tuple(parsed)
        return wk, tuple(sorted(hours.items()))

    def week_on(self, d: date) -> tuple[frozenset[int], tuple[tuple[int, tuple[Interval, ...]], ...]]:
        """The weekend and hours in force on date d (§16): the last period
        starting on or before it, else the calendar's own."""
        week = (self.weekend, self.hours)
        for start, wk, hours in self.periods:
            if start <= d:
                week = (wk, hours)
        return week

    # -- §3 ------------------------------------------------------------------

    def is_business_day(self, d: date) -> bool:
        return d.isoweekday() not in self.week_on(d)[0] and d not in self.holidays

    def intervals_of_weekday(self, w: int, on: date | None = None) -> tuple[Interval, ...]:
        """Hours of ISO weekday w in the week in force on date ``on`` (None:
        the calendar's own week)."""
        hours = self.hours if on is None else self.week_on(on)[1]
        for ww, ivs in hours:
            if ww == w:
                return ivs
        return ()

    def has_any_hours(self) -> bool:
        return any(ivs for _, ivs in self.hours) or any(ivs for _, _, h in self.periods for _, ivs in h)

    # -- §4 ------------------------------------------------------------------

    def open_intervals_of_date(self, d: date) -> list[tuple[int, int]]:
        """The working intervals that date d opens, as instants [a, b).
        Each endpoint resolved by §1 on its own; an interval whose resolved end
        is not after its resolved start is dropped."""
        if not self.is_business_day(d):
            return []
        out = []
        for iv in self.intervals_of_weekday(d.isoweekday(), d):
            a = resolve(self.zone, datetime.combine(d, minutes_to_time(iv.start)))
            if iv.end == 1440:
                b = resolve(self.zone, datetime.combine(d + timedelta(days=1), time(0)))
            elif iv.overnight:
                b = resolve(self.zone, datetime.combine(d + timedelta(days=1), minutes_to_time(iv.end)))
            else:
                b = resolve(self.zone, datetime.combine(d, minutes_to_time(iv.end)))
            if b > a:
                out.append((a, b))
        return out

    def open_segments(self, lo: int, hi: int) -> list[tuple[int, int]]:
        """Open time within [lo, hi) as sorted, disjoint, non-adjacent segments.

        A date d only opens instants between its midnight and the midnight two
        days later, moved by at most the zone's offset (< 16 h), so the dates
        from UTC-date(lo) - 3 to UTC-date(hi) + 1 hold everything in [lo, hi)."""
        if hi <= lo:
            return []
        first = from_us(lo).date() - timedelta(days=3)
        last = from_us(hi).date() + timedelta(days=1)
        pieces = []
        d = first
        while d <= last:
            for a, b in self.open_intervals_of_date(d):
                a, b = max(a, lo), min(b, hi)
                if b > a:
                    pieces.append((a, b))
            d += timedelta(days=1)
        return merge(pieces)


def merge(pieces: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """Union of half-open intervals as sorted disjoint segments."""
    out: list[list[int]] = []
    for a, b in sorted(pieces):
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return [(a, b) for a, b in out]


# ---------------------------------------------------------------------------
# Range (§1, §10): local dates 1900-01-01 .. 2199-12-31 in the calendar's zone
# ---------------------------------------------------------------------------


_FAR = (to_us(datetime(1800, 1, 1, tzinfo=UTC)), to_us(datetime(2300, 1, 1, tzinfo=UTC)))


def check_range(cal: OCal, instant: int, what: str) -> None:
    if not _FAR[0] <= instant <= _FAR[1]:
        raise OracleOutOfRange(f"{what} far outside {MIN_DATE}..{MAX_DATE}")
    d = local_date(cal.zone, instant)
    if d < MIN_DATE or d > MAX_DATE:
        raise OracleOutOfRange(f"{what} {d} outside {MIN_DATE}..{MAX_DATE}")


def _check_walk_date(d: date) -> None:
    if d < MIN_DATE - timedelta(days=10) or d > MAX_DATE + timedelta(days=10):
        raise OracleOutOfRange(f"walk passes the supported range at {d}")


# ---------------------------------------------------------------------------
# §4 business time
# ---------------------------------------------------------------------------


def between(cal: OCal, a: int, b: int) -> int:
    """Open time in [a, b) in µs, negated when b < a."""
    check_range(cal, a, "a")
    check_range(cal, b, "b")
    if b < a:
        return -between(cal, b, a)
    return sum(y - x for x, y in cal.open_segments(a, b))


def add_bh(cal: OCal, start: int, n: int) -> int:
    """start + n µs of open time (n may be negative)."""
    check_range(cal, start, "start")
    if n != 0 and not cal.has_any_hours():
        raise OracleInvalid("bh/bm arithmetic on a calendar without working hours")
    if n == 0:
        return start
    span = 8 * DAY
    while True:
        if n > 0:
            lo, hi = start, start + span
            _check_walk_date(from_us(hi).date())
            segs = cal.open_segments(lo, hi)
            rem = n
            for a, b in segs:  # ascending; all within [start, hi)
                if rem <= b - a:
                    result = a + rem  # earliest: due exactly at a closing
                    check_range(cal, result, "result")
                    return result
                rem -= b - a
        else:
            lo, hi = start - span, start
            _check_walk_date(from_us(lo).date())
            segs = cal.open_segments(lo, hi)
            rem = -n
            for a, b in reversed(segs):  # descending; all within [lo, start)
                if rem <= b - a:
                    result = b - rem  # latest T: lands on an opening, not a closing
                    check_range(cal, result, "result")
                    return result
                rem -= b - a
        span *= 2


# ---------------------------------------------------------------------------
# §3 business days
# ---------------------------------------------------------------------------


def bd_due_date(cal: OCal, start: int, n: int) -> tuple[date, time]:
    """(the N-th business day strictly after/before start's local date, t0)."""
    wall = local_wall(cal.zone, start)
    d, t0 = wall.date(), wall.time()
    step = timedelta(days=1 if n > 0 else -1)
    count = 0
    while count < abs(n):
        d += step
        _check_walk_date(d)
        if cal.is_business_day(d):
            count += 1
    return d, t0


def add_bd(cal: OCal, start: int, n: int) -> int:
    check_range(cal, start, "start")
    if abs(n) > 100_000:
        raise OracleOutOfRange("|bd| > 100000")
    if n == 0:
        return start
    d, t0 = bd_due_date(cal, start, n)
    if d < MIN_DATE or d > MAX_DATE:
        raise OracleOutOfRange(f"due date {d}")
    result = resolve(cal.zone, datetime.combine(d, t0))
    check_range(cal, result, "result")
    return result


def bd_between(cal: OCal, a: int, b: int) -> int:
    """§3 literally: b >= a: the largest N >= 0 with a + Nbd <= b;
    b < a: -M for the largest M >= 0 with a - Mbd >= b.

    N is tried upward until the due date is 3 days past b's local date (from
    there on every due instant is after b), keeping the largest that fits."""
    check_range(cal, a, "a")
    check_range(cal, b, "b")
    if b >= a:
        limit = local_date(cal.zone, b) + timedelta(days=3)
        best, n = 0, 0
        while True:
            n += 1
            d, _ = bd_due_date(cal, a, n)
            if d > limit or d > MAX_DATE:  # past b (a + Nbd out of range is not <= b)
                return best
            if add_bd(cal, a, n) <= b:
                best = n
    else:
        limit = local_date(cal.zone, b) - timedelta(days=3)
        best, m = 0, 0
        while True:
            m += 1
            d, _ = bd_due_date(cal, a, -m)
            if d < limit or d < MIN_DATE:
                return -best
            if add_bd(cal, a, -m) >= b:
                best = m


# ---------------------------------------------------------------------------
# Durations (§2) — just enough to read the texts the tests generate
# ---------------------------------------------------------------------------

_TOKEN = re.compile(r"([0-9]+(?:\.[0-9]+)?)(ms|bh|bm|bd|s|m|h|d|w)")
_UNIT_US = {
    "ms": 1_000,
    "s": SECOND,
    "m": MINUTE,
    "h": HOUR,
    "d": DAY,
    "w": 7 * DAY,
    "bh": HOUR,
    "bm": MINUTE,
}
_KIND = {"ms": "e", "s": "e", "m": "e", "h": "e", "d": "e", "w": "e", "bh": "b", "bm": "b", "bd": "bd"}


def parse_duration(text: str) -> tuple[str, int]:
    """-> (kind, amount): kind 'elapsed' (µs), 'bt' (µs of open time) or 'bd' (days)."""
    s = text.strip()
    sign = 1
    if not s:
        raise OracleInvalid("empty duration")
    if s[0] in "+-":
        sign = -1 if s[0] == "-" else 1
        s = s[1:]
    if re.fullmatch(r"[0-9]+", s):
        return "elapsed", sign * int(s) * 1_000
    with localcontext() as ctx:  # exact: never round (§10)
        ctx.prec = 10_000
        ctx.traps[Inexact] = True
        return _parse_unsigned(text, s, sign)


def _parse_unsigned(text: str, s: str, sign: int) -> tuple[str, int]:
    pos = 0
    kinds = set()
    total = Decimal(0)
    while pos < len(s):
        m = _TOKEN.match(s, pos)
        if not m:
            raise OracleInvalid(f"bad duration {text!r} at {pos}")
        num, unit = Decimal(m.group(1)), m.group(2)
        kinds.add(_KIND[unit])
        if unit == "bd":
            if num != num.to_integral_value():
                raise OracleInvalid("use bh for parts of a business day")
            total += num
        else:
            total += num * _UNIT_US[unit]
        pos = m.end()
    if len(kinds) != 1 or not s:
        raise OracleInvalid(f"bad duration {text!r}")
    if total != total.to_integral_value():
        raise OracleInvalid("finer than 1 µs")
    kind = {"e": "elapsed", "b": "bt", "bd": "bd"}[kinds.pop()]
    return kind, sign * int(total)


# ---------------------------------------------------------------------------
# §5 nominal ISO 8601 durations, with §10's settled details
# ---------------------------------------------------------------------------

_ISO = re.compile(
    r"(-)?P(?:([0-9]+)Y)?(?:([0-9]+)M)?(?:([0-9]+)W)?(?:([0-9]+)D)?"
    r"(?:T(?:([0-9]+(?:\.[0-9]+)?)H)?(?:([0-9]+(?:\.[0-9]+)?)M)?(?:([0-9]+(?:\.[0-9]+)?)S)?)?"
)


@dataclass(frozen=True)
class IsoParts:
    sign: int
    years: int
    months: int
    weeks: int
    days: int
    time_us: int  # the exact time part, unsigned


def parse_iso(text: str) -> IsoParts:
    s = text.strip()
    m = _ISO.fullmatch(s)
    if not m or s.endswith("P") or s.endswith("T") or s in ("P", "-P"):
        raise OracleInvalid(f"bad ISO 8601 duration {text!r}")
    sign = -1 if m.group(1) else 1
    y, mo, w, d = (int(g) if g else 0 for g in m.groups()[1:5])
    with localcontext() as ctx:
        ctx.prec = 10_000
        ctx.traps[Inexact] = True
        t = sum(
            (Decimal(g) * unit for g, unit in zip(m.groups()[5:8], (HOUR, MINUTE, SECOND)) if g),
            Decimal(0),
        )
    if t != t.to_integral_value():
        raise OracleInvalid("finer than 1 µs")
    return IsoParts(sign, y, mo, w, d, int(t))


def add_months(d: date, months: int) -> date:
    """Calendar months, clamping the day to the month's last day."""
    total = d.year * 12 + (d.month - 1) + months
    y, m = divmod(total, 12)
    m += 1
    if not (1 <= y <= 9999):
        raise OracleOutOfRange("year")
    last = (date(y + (m == 12), m % 12 + 1, 1) - timedelta(days=1)).day
    return date(y, m, min(d.day, last))


def add_iso(cal: OCal, start: int, p: IsoParts) -> int:
    """§5: years and months to the local date (one step, clamped), then weeks
    and days, keep the wall time, resolve by §1, then the time part as elapsed
    time; negative: the same order, each part negated (§10).  An all-zero
    duration returns the start unchanged (§10, even inside a fold)."""
    check_range(cal, start, "start")
    if (p.years, p.months, p.weeks, p.days, p.time_us) == (0, 0, 0, 0, 0):
        return start
    wall = local_wall(cal.zone, start)
    d = add_months(wall.date(), p.sign * (12 * p.years + p.months))
    d = d + timedelta(days=p.sign * (7 * p.weeks + p.days))
    if d < MIN_DATE - timedelta(days=3) or d > MAX_DATE + timedelta(days=3):
        raise OracleOutOfRange(f"date {d}")
    result = resolve(cal.zone, datetime.combine(d, wall.time())) + p.sign * p.time_us
    check_range(cal, result, "result")
    return result


# ---------------------------------------------------------------------------
# Landing rules (docs/semantics.md §15) and relative deadlines (§6)
# ---------------------------------------------------------------------------

ROLLS = ("following", "preceding", "modified-following", "modified-preceding")


def _walk_to_business_day(cal: OCal, d: date, step: int, within_month: bool = False) -> date | None:
    """The first business day strictly after (step 1) or before (step -1) d,
    date by date; with ``within_month``, None when d's month has none that way."""
    x = d
    while True:
        x += timedelta(days=step)
        if within_month and (x.year, x.month) != (d.year, d.month):
            return None
        _check_walk_date(x)
        if cal.is_business_day(x):
            return x


def roll_date(cal: OCal, d: date, roll: str) -> date:
    """§15's table, literally: d itself when it is a business day; else
    following / preceding; the modified ones take the first direction's
    business day when it is in d's month, else the other direction's."""
    if cal.is_business_day(d):
        return d
    if roll == "following":
        return _walk_to_business_day(cal, d, 1)
    if roll == "preceding":
        return _walk_to_business_day(cal, d, -1)
    first = 1 if roll == "modified-following" else -1
    same_month = _walk_to_business_day(cal, d, first, within_month=True)
    return same_month if same_month is not None else _walk_to_business_day(cal, d, -first)


def _own_intervals(cal: OCal, d: date) -> list[tuple[int, int]]:
    """The instants of date d's own working intervals (a business day's)."""
    return cal.open_intervals_of_date(d)


def landing_instant(cal: OCal, d: date, when: str) -> int:
    """The instant of date d that a landing time names: 'HH:MM', 'open',
    'close' or 'end' (§6, §15)."""
    if when == "end":
        return resolve(cal.zone, datetime.combine(d + timedelta(days=1), time(0)))
    if when in ("open", "close"):
        own = _own_intervals(cal, d)
        if not own:
            raise OracleInvalid(f"{d} has no working hours to {when} at")
        return min(a for a, _ in own) if when == "open" else max(b for _, b in own)
    return resolve(cal.zone, datetime.combine(d, minutes_to_time(parse_hhmm(when, allow_24=False))))


def add_with_rule(cal: OCal, start: int, text: str) -> int:
    """A duration with '@': ``Nbd@TIME`` (§6) or ``DURATION@ROLL[@TIME]`` (§15)."""
    left, *rule = text.strip().split("@")
    if not rule or len(rule) > 2 or not all(rule):
        raise OracleInvalid(f"bad rule in {text!r}")
    check_range(cal, start, "start")
    iso = left.lstrip("+-").startswith("P")
    kind, amount = ("nominal", 0) if iso else parse_duration(left)
    if kind == "bt":
        raise OracleInvalid("business time takes no landing rule")
    if kind == "bd":
        if len(rule) != 1 or rule[0] in ROLLS:
            raise OracleInvalid("business days take no roll")
        return _relative_deadline(cal, start, amount, rule[0])
    if rule[0] not in ROLLS:
        raise OracleInvalid("a landing time after an elapsed or nominal duration needs a roll")
    unrolled = to_us(compute_due(cal, from_us(start), left)) if iso else start + amount
    check_range(cal, unrolled, "unrolled")
    wall = local_wall(cal.zone, unrolled)
    d = wall.date()
    final = roll_date(cal, d, rule[0])
    if final < MIN_DATE or final > MAX_DATE:
        raise OracleOutOfRange(f"rolled date {final}")
    if len(rule) == 2:
        result = landing_instant(cal, final, rule[1])
    elif final == d:
        result = unrolled
    else:
        result = resolve(cal.zone, datetime.combine(final, wall.time()))
    check_range(cal, result, "result")
    return result


def _relative_deadline(cal: OCal, start: int, n: int, when: str) -> int:
    """§6: N != 0: the N-th business day after (before) the start's local date
    at ``when``; N = 0: the first business day from the start's date on whose
    ``when`` instant is strictly later than the start."""
    if n != 0:
        d, _ = bd_due_date(cal, start, n)
        if d < MIN_DATE or d > MAX_DATE:
            raise OracleOutOfRange(f"due date {d}")
        result = landing_instant(cal, d, when)
    else:
        d = local_date(cal.zone, start)
        if not cal.is_business_day(d):
            d = _walk_to_business_day(cal, d, 1)
        result = landing_instant(cal, d, when)
        if result <= start:
            result = landing_instant(cal, _walk_to_business_day(cal, d, 1), when)
    check_range(cal, result, "result")
    return result


def compute_due(cal: OCal, start: datetime, duration: str) -> datetime:
    if "@" in duration:
        return from_us(add_with_rule(cal, to_us(start), duration))
    if duration.strip().lstrip("-").startswith("P"):
        return from_us(add_iso(cal, to_us(start), parse_iso(duration)))
    kind, amount = parse_duration(duration)
    s = to_us(start)
    if kind == "elapsed":
        check_range(cal, s, "start")
        r = s + amount
        check_range(cal, r, "result")
        return from_us(r)
    if kind == "bt":
        return from_us(add_bh(cal, s, amount))
    return from_us(add_bd(cal, s, amount))


# ---------------------------------------------------------------------------
# Calendar queries (docs/semantics.md §9.1), minute by minute and day by day
# ---------------------------------------------------------------------------


def open_periods(cal: OCal, a: int, b: int) -> list[tuple[int, int, date]]:
    """Open time in [a, b) as maximal periods (touching ones merged), each
    with the date whose working interval holds its first instant (the
    earliest such date)."""
    if b < a:
        raise OracleInvalid("b before a")
    out = []
    for s, e in cal.open_segments(a, b):
        d = from_us(s).date() - timedelta(days=3)
        while not any(x <= s < y for x, y in cal.open_intervals_of_date(d)):
            d += timedelta(days=1)
        out.append((s, e, d))
    return out


def open_minutes(cal: OCal, a: int, b: int) -> int:
    """Open time in [a, b) by stepping minute by minute (a and b whole
    minutes): each minute counts when its first instant is open, which is
    exact as long as every opening and closing is on a whole minute."""
    segments = cal.open_segments(a, b)
    total, t, k = 0, a, 0
    while t < b:
        while k < len(segments) and segments[k][1] <= t:
            k += 1
        if k < len(segments) and segments[k][0] <= t:
            total += MINUTE
        t += MINUTE
    return total


def count_business_days(cal: OCal, first: date, last: date) -> int:
    """Business days d with first <= d <= last, date by date."""
    if last < first:
        raise OracleInvalid("last before first")
    n, d = 0, first
    while d <= last:
        n += cal.is_business_day(d)
        d += timedelta(days=1)
    return n


def last_run(cal: OCal, t: int, limit_days: int = 30) -> tuple[int | None, int | None]:
    """(the opening of the open run holding t or of the last run before it,
    the last closing at or before t), from the open segments of the
    ``limit_days`` days before t; None when none lies in them."""
    segments = cal.open_segments(t - limit_days * DAY, t + 2 * DAY)
    before = [(s, e) for s, e in segments if s <= t]
    if not before:
        return None, None
    s, e = before[-1]
    if t < e:  # open at t: the run began at s (unless cut at the window's start)
        closing = before[-2][1] if len(before) > 1 else None
        return s, closing
    return s, e
