"""Instants, local dates and the one local → exact bridge (docs/semantics.md §1).

Inside the core an *instant* is an ``int`` of microseconds since
1970-01-01T00:00:00Z, and a *local date* is a proleptic Gregorian ordinal
(``date.toordinal()``). Only this module turns local wall time into instants,
with the rule of RFC 5545, java.time and Temporal "compatible":

* in a DST **gap** the wall time moves forward by the length of the gap;
* in a DST **fold** the earlier of the two instants is taken.

``zoneinfo`` gives exactly that with ``fold=0``: PEP 495 reads a time in a fold
with fold=0 as the first occurrence, and a time in a gap with the offset in
force *before* the transition, which lands the length of the gap later.
"""

from __future__ import annotations

import bisect
import functools
from datetime import date, datetime, time, timedelta, timezone
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from .durations import DAY, SECOND
from .errors import InvalidArgument, OutOfRange

UTC = timezone.utc
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
EPOCH_ORDINAL = EPOCH.date().toordinal()
_ONE_US = timedelta(microseconds=1)

#: Supported local dates, inclusive (docs/semantics.md §1).
MIN_DATE = date(1900, 1, 1)
MAX_DATE = date(2199, 12, 31)
MIN_ORDINAL = MIN_DATE.toordinal()
MAX_ORDINAL = MAX_DATE.toordinal()


def get_zone(name: str, field: str = "calendar.time_zone") -> ZoneInfo:
    """The IANA zone ``name`` (empty means ``UTC``); unknown → InvalidArgument."""
    if name == "":
        name = "UTC"
    try:
        if not name.isascii() or name.startswith(("/", ".")) or ".." in name or "\\" in name or "\0" in name:
            raise ValueError(name)
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError, TypeError):
        raise InvalidArgument.at(field, f"unknown IANA time zone {name!r} (e.g. 'Europe/Zagreb', 'UTC')",
                                 value=name) from None


def to_us(dt: datetime) -> int:
    """Microseconds since the epoch of an aware ``datetime``."""
    return (dt - EPOCH) // _ONE_US


def from_us(us: int) -> datetime:
    """The aware UTC ``datetime`` of an instant in microseconds."""
    return EPOCH + timedelta(microseconds=us)


def local_us_of(ordinal: int, us_of_day: int) -> int:
    """Local wall time as microseconds on the epoch scale (no zone applied)."""
    return (ordinal - EPOCH_ORDINAL) * DAY + us_of_day


def resolve(zone: ZoneInfo, ordinal: int, us_of_day: int) -> int:
    """The instant of local date ``ordinal`` at wall time ``us_of_day`` (docs/semantics.md §1).

    ``us_of_day`` may be ≥ 24 h (``24:00`` or the end of an overnight interval):
    it then lies on a later date. Gap → forward by the gap's length; fold →
    the earlier instant.
    """
    local = local_us_of(ordinal, us_of_day)
    if zone.key == "UTC":
        return local
    return table(zone).resolve(local)


def resolve_zoneinfo(zone: ZoneInfo, ordinal: int, us_of_day: int) -> int:
    """:func:`resolve` done by ``zoneinfo`` itself (fold=0); the reference the
    integer tables are tested against, and the path outside their years."""
    ordinal += us_of_day // DAY
    us_of_day %= DAY
    sec, us = divmod(us_of_day, SECOND)
    naive = datetime.combine(date.fromordinal(ordinal), time(sec // 3600, sec // 60 % 60, sec % 60, us))
    offset = zone.utcoffset(naive.replace(tzinfo=zone))
    return local_us_of(ordinal, us_of_day) - offset // _ONE_US


def resolve_local(d: date, t: time, zone: ZoneInfo) -> datetime:
    """Public form of :func:`resolve`: ``date`` + ``time`` → aware UTC datetime."""
    us = ((t.hour * 60 + t.minute) * 60 + t.second) * SECOND + t.microsecond
    return from_us(resolve(zone, d.toordinal(), us))


def offset_us(zone: ZoneInfo, us: int) -> int:
    """UTC offset of ``zone`` at instant ``us``, in microseconds."""
    if zone.key == "UTC":
        return 0
    return table(zone).offset_at(us)


def _offset_zoneinfo(zone: ZoneInfo, us: int) -> int:
    return zone.utcoffset(from_us(us).astimezone(zone)) // _ONE_US


def local_of(zone: ZoneInfo, us: int) -> tuple[int, int]:
    """Local (date ordinal, microseconds of day) of instant ``us``."""
    return _split(us + offset_us(zone, us))


def _split(local_us: int) -> tuple[int, int]:
    days, rest = divmod(local_us, DAY)
    return days + EPOCH_ORDINAL, rest


@functools.lru_cache(maxsize=4096)
def transitions_in_year(zone: ZoneInfo, year: int) -> tuple[int, ...]:
    """Instants (µs) at which ``zone``'s UTC offset changes during UTC ``year``.

    Found by probing the offset once a day and bisecting to the second where it
    changes; cached per (zone, year). An offset that changes and changes back
    within one day would be missed; no zone in the IANA database does that in
    1900–2199.
    """
    if zone.key == "UTC":
        return ()
    # whole seconds through datetime.fromtimestamp: the same offsets as
    # _offset_zoneinfo at about half the cost (a year is 365 probes)
    start = to_us(datetime(year, 1, 1, tzinfo=UTC)) // SECOND
    end = to_us(datetime(year + 1, 1, 1, tzinfo=UTC)) // SECOND
    day = DAY // SECOND
    at = datetime.fromtimestamp
    found: list[int] = []
    prev_t, prev_off = start, at(start, zone).utcoffset()
    t = start
    while t < end:
        t = min(t + day, end)
        off = at(t, zone).utcoffset()
        if off != prev_off:
            lo, hi = prev_t, t  # offset(lo) == prev_off, offset(hi) != prev_off
            while hi - lo > 1:
                mid = (lo + hi) // 2
                if at(mid, zone).utcoffset() == prev_off:
                    lo = mid
                else:
                    hi = mid
            found.append(hi * SECOND)
        prev_t, prev_off = t, off
    return tuple(found)


def transitions_between(zone: ZoneInfo, a: int, b: int) -> list[int]:
    """Offset transitions ``t`` with ``a <= t < b`` (instants in µs), in order."""
    if zone.key == "UTC" or b <= a:
        return []
    return table(zone).transitions(a, b)


#: Years whose offsets the integer tables hold (one beyond the supported range).
_FIRST_YEAR, _LAST_YEAR = 1899, 2200
_YEAR_STARTS = [to_us(datetime(y, 1, 1, tzinfo=UTC)) for y in range(_FIRST_YEAR, _LAST_YEAR + 2)]
_TABLES: dict[str, "ZoneTable"] = {}

#: Instants — and local wall times, on the same µs-since-1970 scale — fall in
#: *blocks* of 2**BLOCK_BITS µs (≈ 3.2 days): block ``x >> BLOCK_BITS``.
BLOCK_BITS = 38
#: Most blocks a zone's :class:`QuietBlocks` keeps before starting afresh
#: (1900–2199 spans about 34,500 blocks).
_MAX_BLOCKS = 1 << 16


class QuietBlocks(dict):
    """``quiet[k]``: the UTC offset (µs) of a zone throughout block ``k`` and
    ``margin`` µs either side of it, or None when an offset transition falls
    there (or the block lies outside the years of the integer tables).

    Filled on first use of each block (a missing key computes it), so that the
    offset of an instant, and the instant of a local wall time, cost one
    dictionary look-up away from transitions. With the margin of one day (the
    table's ``quiet``), for a local wall time ``L`` in a quiet block
    (``L >> BLOCK_BITS == k``) the instant is exactly ``L - off`` by docs/semantics.md §1:
    a UTC offset is less than a day in size (a ``datetime`` invariant), so
    every instant that could show ``L`` lies within a day of the block, where
    the offset is ``off`` alone — no gap, no fold. ``table`` None is UTC:
    every block is quiet with offset 0.
    """

    __slots__ = ("table", "margin")

    def __init__(self, table: "ZoneTable | None", margin: int = DAY):
        super().__init__()
        self.table = table
        self.margin = margin

    def __missing__(self, k: int) -> int | None:
        zt = self.table
        if zt is None:
            off: int | None = 0
        else:
            lo, hi = (k << BLOCK_BITS) - self.margin, ((k + 1) << BLOCK_BITS) + self.margin
            if not (_YEAR_STARTS[0] <= lo and hi < _YEAR_STARTS[-1]) or zt.transitions(lo, hi):
                off = None
            else:
                off = zt.offset_in_year(lo)
        if len(self) >= _MAX_BLOCKS:
            self.clear()
        self[k] = off
        return off


#: Margin of :attr:`ZoneTable.calm`: a week each side of the block.
CALM_MARGIN = 7 * DAY
#: UTC's blocks: always quiet, offset 0.
UTC_BLOCKS = QuietBlocks(None)


def table(zone: ZoneInfo) -> "ZoneTable":
    """The (cached) integer offset table of ``zone``."""
    t = _TABLES.get(zone.key)
    if t is None or t.zone is not zone:
        t = _TABLES[zone.key] = ZoneTable(zone)
    return t


class ZoneTable:
    """A zone's UTC offsets as integers, built from ``zoneinfo`` one year at a
    time (transitions found by :func:`transitions_in_year`), so that the hot
    paths do two bisections instead of building ``datetime`` objects. Outside
    years 1899–2200 it defers to ``zoneinfo``."""

    def __init__(self, zone: ZoneInfo):
        self.zone = zone
        self._years: dict[int, tuple[tuple[int, ...], tuple[int, ...]]] = {}
        #: Offsets of the blocks with no transition within a day (see :class:`QuietBlocks`).
        self.quiet = QuietBlocks(self)
        #: The same for no transition within a week (None: one may be near).
        self.calm = QuietBlocks(self, CALM_MARGIN)

    def _year(self, year: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
        cached = self._years.get(year)
        if cached is None:
            trans = transitions_in_year(self.zone, year)
            start = _YEAR_STARTS[year - _FIRST_YEAR]
            offs = (_offset_zoneinfo(self.zone, start), *(_offset_zoneinfo(self.zone, t) for t in trans))
            cached = self._years[year] = (trans, offs)
        return cached

    def offset_at(self, us: int) -> int:
        """Offset (µs) in force at instant ``us``."""
        off = self.quiet[us >> BLOCK_BITS]
        if off is not None:
            return off
        return self.offset_in_year(us)

    def offset_in_year(self, us: int) -> int:
        """:meth:`offset_at` from the year's transitions (no block look-up)."""
        i = bisect.bisect_right(_YEAR_STARTS, us) - 1
        if i < 0 or i >= len(_YEAR_STARTS) - 1:
            return _offset_zoneinfo(self.zone, us)
        trans, offs = self._year(_FIRST_YEAR + i)
        return offs[bisect.bisect_right(trans, us)]

    def transitions(self, a: int, b: int) -> list[int]:
        """Transitions ``t`` with ``a <= t < b``."""
        i = max(bisect.bisect_right(_YEAR_STARTS, a) - 1, 0)
        j = min(bisect.bisect_right(_YEAR_STARTS, b) - 1, len(_YEAR_STARTS) - 2)
        out: list[int] = []
        for k in range(i, j + 1):
            trans = self._year(_FIRST_YEAR + k)[0]
            out.extend(trans[bisect.bisect_left(trans, a):bisect.bisect_left(trans, b)])
        return out

    def resolve(self, local: int) -> int:
        """The instant of local wall time ``local`` (µs on the epoch scale) by
        docs/semantics.md §1: the earliest instant showing that wall time, or — in a gap —
        the wall time read with the offset in force before the gap."""
        off = self.quiet[local >> BLOCK_BITS]
        if off is not None:  # no transition within a day: one offset, exactly
            return local - off
        i = bisect.bisect_right(_YEAR_STARTS, local) - 1
        if i < 1 or i >= len(_YEAR_STARTS) - 2:
            days, rest = divmod(local, DAY)
            return resolve_zoneinfo(self.zone, days + EPOCH_ORDINAL, rest)
        lo, hi = local - 2 * DAY, local + 2 * DAY
        if _YEAR_STARTS[i] <= lo and hi < _YEAR_STARTS[i + 1]:  # the usual case: one year's table
            trans, offs = self._year(_FIRST_YEAR + i)
            k = bisect.bisect_left(trans, lo)
            if k == len(trans) or trans[k] >= hi:
                return local - offs[k]
            if k + 1 == len(trans) or trans[k + 1] >= hi:  # one transition t near: a DST day
                t, before, after = trans[k], offs[k], offs[k + 1]
                if local - before < t:  # valid before t (in a fold, the earlier instant)
                    return local - before
                if local - after >= t:  # valid after t
                    return local - after
                return local - before  # in the gap: read with the offset before it
        near = self.transitions(lo, hi)
        if not near:
            return local - self.offset_at(local)
        offsets = [self.offset_at(near[0] - 1), *(self.offset_at(t) for t in near)]
        valid = [local - o for o in offsets if self.offset_at(local - o) == o]
        if valid:
            return min(valid)
        for t in near:  # a gap: read the wall time with the offset before it
            before, after = self.offset_at(t - 1), self.offset_at(t)
            if t + before <= local < t + after:
                return local - before
        return local - offsets[0]  # pragma: no cover - a wall time that is neither valid nor in a gap

    def constant_offset(self, a: int, b: int) -> int | None:
        """The offset if no transition falls in ``[a, b)``, else None."""
        if self.has_transition(a, b):
            return None
        return self.offset_at(a)

    def has_transition(self, a: int, b: int) -> bool:
        """Whether a transition ``t`` with ``a <= t < b`` exists; quiet blocks
        answer without a search when ``[a, b)`` spans a few of them."""
        quiet = self.quiet
        k, last = a >> BLOCK_BITS, (b - 1) >> BLOCK_BITS
        if b > a and last - k < 8:
            while k <= last and quiet[k] is not None:
                k += 1
            if k > last:
                return False
        return bool(self.transitions(a, b))


def check_ordinal(ordinal: int, field: str, what: str = "the result") -> None:
    """OutOfRange unless the local date lies in 1900-01-01..2199-12-31."""
    if ordinal < MIN_ORDINAL:
        raise OutOfRange.at(field, f"{what} falls on {_fmt_ord(ordinal)}, before the supported range's start 1900-01-01")
    if ordinal > MAX_ORDINAL:
        raise OutOfRange.at(field, f"{what} falls on {_fmt_ord(ordinal)}, after the supported range's end 2199-12-31")


def _fmt_ord(ordinal: int) -> str:
    try:
        return date.fromordinal(ordinal).isoformat()
    except (ValueError, OverflowError):
        return "a date outside years 1..9999"


def parse_instant(text: str, field: str) -> datetime:
    """An RFC 3339 instant (offset required) → aware UTC datetime.

    Accepts ``2026-11-27T16:00:00+01:00``, ``...Z`` and, for people, seconds
    omitted (``2026-11-27T16:00+01:00``). Text without an offset is
    InvalidArgument: it is never read as UTC or as local time (docs/semantics.md §1).
    """
    s = text.strip() if isinstance(text, str) else ""
    if not s or not s.isascii():
        raise InvalidArgument.at(field, f"{text!r} is not an RFC 3339 time such as 2026-11-27T16:00:00+01:00")
    try:
        dt = datetime.fromisoformat(s[:-1] + "+00:00" if s[-1] in "zZ" else s)
    except ValueError:
        raise InvalidArgument.at(field, f"{text!r} is not an RFC 3339 time such as 2026-11-27T16:00:00+01:00") from None
    if dt.tzinfo is None or "T" not in s.upper() and " " not in s:
        raise InvalidArgument.at(
            field, f"{text!r} has no UTC offset; write it as e.g. {s}Z or {s}+01:00 (never read as UTC or local)"
        )
    return dt.astimezone(UTC)


def format_local(us: int, zone: ZoneInfo) -> str:
    """RFC 3339 text of instant ``us`` with ``zone``'s offset at that instant.

    Fractional seconds appear only when non-zero (``...T16:00:00+01:00``).
    """
    return from_us(us).astimezone(zone).isoformat()


def format_utc(us: int) -> str:
    """RFC 3339 text of instant ``us`` in UTC with a ``Z`` suffix."""
    return from_us(us).isoformat().replace("+00:00", "Z")
