#!/usr/bin/env python3
"""duetime against the libraries a user would pick instead, on identical inputs.

Run it through ``bench/run.sh`` (which builds ``bench/.venv`` with the
comparison libraries and saves the output under ``bench/results/``); see
``bench/README.md``.

Every implementation gets the same calendar — Europe/Zagreb, Saturday+Sunday
weekend, 09:00–17:00, the Croatian public holidays 2020–2060 from the
``holidays`` package as explicit dates — and the same start instants. Each
library's answer is first compared with duetime's on every start; a library is
timed only on the starts where it agrees, and each ratio compares it with
duetime on exactly those starts. Ratios are measured side by side in one run
(interleaved: repeat by repeat, row by row, start by start), never against
absolute times from elsewhere.
"""

from __future__ import annotations

import argparse
import cProfile
import hashlib
import os
import platform
import pstats
import socket
import statistics
import subprocess
import sys
import time as _time
import timeit
import warnings
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta, timezone
from importlib import metadata
from pathlib import Path
from typing import Callable
from zoneinfo import ZoneInfo

from duetime import tzdb
from duetime.core import Calendar, business_time_between, compute_due, from_us, parse_duration, parse_instant, to_us
from duetime.core.engine import AtClose, add_us, between_us
from duetime.core.periods import count_business_days, open_periods
from duetime.tzdb import tzdata_version

tzdb.pin()  # every ZoneInfo below comes from the tzdata package, as in the service

import businesstimedelta as btd
import holidays as holidays_pkg
import numpy as np
import pandas as pd
import pytz

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from workalendar.core import SAT, SUN
    from workalendar.core import Calendar as WorkalendarCalendar
    from workalendar.europe import Croatia

REPO = Path(__file__).resolve().parent.parent

# ---------------------------------------------------------------------------
# the identical inputs

ZONE_NAME = "Europe/Zagreb"
ZONE = ZoneInfo(ZONE_NAME)
HOLIDAY_YEARS = range(2020, 2061)  # 2020–2060 inclusive
US = 1_000_000
HOUR = 3600 * US
OPEN_US, CLOSE_US = 9 * HOUR, 17 * HOUR

#: ~20 start instants over 2026–2030 (local Zagreb time): Fridays at 16:00,
#: starts outside working hours, on a holiday, at opening and closing, next to
#: holidays and in the weeks of both DST changes.
STARTS: list[tuple[str, str]] = [
    ("2026-11-27T16:00:00+01:00", "Friday 16:00"),
    ("2026-11-28T10:00:00+01:00", "Saturday, outside hours"),
    ("2026-12-24T15:00:00+01:00", "Thursday before Christmas"),
    ("2026-12-25T10:00:00+01:00", "on a holiday (Christmas Day)"),
    ("2027-01-04T07:30:00+01:00", "Monday before opening"),
    ("2027-03-26T16:00:00+01:00", "Friday 16:00, DST starts on Sunday"),
    ("2027-04-28T18:30:00+02:00", "Wednesday after closing"),
    ("2027-06-21T09:00:00+02:00", "Monday at opening, holiday Tuesday"),
    ("2027-10-29T16:00:00+02:00", "Friday 16:00, DST ends Sunday, holiday Monday"),
    ("2028-02-29T12:00:00+01:00", "leap day"),
    ("2028-04-13T13:37:15+02:00", "Thursday before Easter, odd seconds"),
    ("2028-08-04T16:00:00+02:00", "Friday 16:00 before a Saturday holiday"),
    ("2028-12-31T23:00:00+01:00", "Sunday night, New Year's Day next"),
    ("2029-03-25T03:30:00+02:00", "Sunday, the hour after the DST gap"),
    ("2029-05-30T17:00:00+02:00", "Wednesday 17:00 on a holiday, another Thursday"),
    ("2029-11-16T16:00:00+01:00", "Friday 16:00"),
    ("2030-01-07T09:00:00+01:00", "Monday at opening"),
    ("2030-04-19T16:00:00+02:00", "Friday 16:00, Easter Monday next"),
    ("2030-08-14T11:00:00+02:00", "Wednesday before Assumption"),
    ("2030-12-23T16:59:59+01:00", "Monday a second before closing"),
]

BD_NS = (3, 250, 10000)
BH_NS = (8, 48, 2000)
#: A nominal duration without and with a landing rule (docs/semantics.md §15): what the roll adds.
NOMINAL_TEXTS = ("P1M", "P1M@modified-following")


def local(us: int) -> datetime:
    return from_us(us).astimezone(ZONE)


def fmt_instant(us: int) -> str:
    t = local(us)
    return t.strftime("%a %Y-%m-%d %H:%M:%S") + t.strftime("%z")[:3] + ":" + t.strftime("%z")[3:]


def fmt_amount(us: int) -> str:
    h, rest = divmod(us, HOUR)
    m, rest = divmod(rest, 60 * US)
    return f"{h}h{m:02d}m{rest / US:06.3f}s"


def at_wall(d: date, wall: time) -> int:
    """The instant of local date ``d`` at wall time ``wall`` in Zagreb (fold=0:
    the earlier of a repeated time, a skipped time moved forward — docs/semantics.md §1.1)."""
    return to_us(datetime.combine(d, wall, tzinfo=ZONE))


class ExplicitHolidays(WorkalendarCalendar):
    """A workalendar calendar with exactly the benchmark's holiday dates."""

    WEEKEND_DAYS = (SAT, SUN)
    include_new_years_day = False  # only the explicit dates below

    def __init__(self, by_year: dict[int, list[tuple[date, str]]]):
        super().__init__()
        self._by_year = by_year

    def get_calendar_holidays(self, year):
        return list(self._by_year.get(year, ()))


@dataclass
class Start:
    text: str
    note: str
    dt: datetime = field(init=False)  # aware, UTC
    us: int = field(init=False)
    local_date: date = field(init=False)
    wall: time = field(init=False)  # naive local wall time
    d64: np.datetime64 = field(init=False)
    ts: pd.Timestamp = field(init=False)  # tz-aware, Europe/Zagreb

    def __post_init__(self):
        self.dt = parse_instant(self.text, "start")
        self.us = to_us(self.dt)
        loc = self.dt.astimezone(ZONE)
        self.local_date = loc.date()
        self.wall = loc.time().replace(tzinfo=None)
        self.d64 = np.datetime64(self.local_date, "D")
        self.ts = pd.Timestamp(self.dt).tz_convert(ZONE_NAME)


class Inputs:
    def __init__(self):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = holidays_pkg.country_holidays("HR", years=HOLIDAY_YEARS, language="en_US")
        self.holidays = sorted((d, name) for d, name in got.items() if d.year in HOLIDAY_YEARS)
        self.hol_dates = [d for d, _ in self.holidays]
        self.per_year = len(self.hol_dates) / len(HOLIDAY_YEARS)
        self.weekday_holidays = sum(d.weekday() < 5 for d in self.hol_dates)

        # duetime
        self.cal = Calendar.from_text(ZONE_NAME, [6, 7], [(d.isoformat(), n) for d, n in self.holidays],
                                      [(wd, [("09:00", "17:00")]) for wd in range(1, 6)])
        self.cc = self.cal.compiled
        # numpy: a prebuilt busdaycalendar (its fastest form), and the holidays= array
        self.np_cal = np.busdaycalendar(weekmask="1111100", holidays=self.hol_dates)
        self.np_hol = np.array(self.hol_dates, dtype="datetime64[D]")
        # pandas
        self.pd_kw = dict(holidays=self.hol_dates, weekmask="Mon Tue Wed Thu Fri")
        # workalendar
        by_year: dict[int, list[tuple[date, str]]] = {}
        for d, n in self.holidays:
            by_year.setdefault(d.year, []).append((d, n))
        self.wa = ExplicitHolidays(by_year)
        # businesstimedelta (pytz zone; holidays as a frozenset: a list costs O(holidays) per date looked at)
        ptz = pytz.timezone(ZONE_NAME)
        self.btd_rules = btd.Rules([
            btd.WorkDayRule(start_time=time(9), end_time=time(17), working_days=[0, 1, 2, 3, 4], tz=ptz),
            btd.HolidayRule(frozenset(self.hol_dates), tz=ptz),
        ])
        self.starts = [Start(t, n) for t, n in STARTS]

    def workalendar_croatia_diff(self) -> tuple[int, list[str]]:
        ours = set(self.hol_dates)
        hr = Croatia()
        theirs = {d for y in HOLIDAY_YEARS for d, _ in hr.holidays(y)}
        diff = sorted(ours ^ theirs)
        return len(diff), [f"{d} ({'holidays pkg only' if d in ours else 'workalendar only'})" for d in diff[:4]]


# ---------------------------------------------------------------------------
# the numpy busday_count approach to "business time between" (no zone work)


def numpy_business_us(a: datetime, b: datetime, bc: np.busdaycalendar) -> int:
    """Open time (µs) of 09:00–17:00 on business days in [a, b), a <= b, from
    naive local wall times: whole business days strictly between the two dates
    × 8 h, plus the open part of the first and of the last date.

    Exact for Zagreb's 09:00–17:00 because no DST change falls inside working
    hours (changes happen at 02:00/03:00), so wall-clock time equals real time.
    """
    da, db = np.datetime64(a.date(), "D"), np.datetime64(b.date(), "D")
    ta = min(max((a.hour * 3600 + a.minute * 60 + a.second) * US + a.microsecond, OPEN_US), CLOSE_US)
    tb = min(max((b.hour * 3600 + b.minute * 60 + b.second) * US + b.microsecond, OPEN_US), CLOSE_US)
    if da == db:
        return tb - ta if np.is_busday(da, busdaycal=bc) else 0
    total = int(np.busday_count(da + 1, db, busdaycal=bc)) * (CLOSE_US - OPEN_US)
    if np.is_busday(da, busdaycal=bc):
        total += CLOSE_US - ta
    if np.is_busday(db, busdaycal=bc):
        total += tb - OPEN_US
    return total


# ---------------------------------------------------------------------------
# rows, implementations


@dataclass
class Impl:
    key: str  # "public", "core", "numpy", ...
    name: str
    answer: Callable[[Start], int]
    timed: Callable[[Start], tuple[str, dict]] | None  # (stmt, globals) for timeit; None = checked only
    classify: Callable[[Start, int], str] | None = None
    note: str = ""


@dataclass
class Row:
    op: str
    n: str
    fmt: Callable[[int], str]
    impls: list[Impl]
    ref: dict[int, int] = field(default_factory=dict)  # start index → duetime core's answer
    agree: dict[str, list[int]] = field(default_factory=dict)  # impl key → indexes of agreeing starts
    disagreements: dict[str, list[tuple[int, int, str]]] = field(default_factory=dict)
    per_start: dict[str, dict[int, float]] = field(default_factory=dict)  # impl key → start → µs/op

    @property
    def label(self) -> str:
        return f"{self.op} {self.n}"

    def impl(self, key: str) -> Impl:
        return next(i for i in self.impls if i.key == key)

    def median(self, key: str, subset: list[int] | None = None) -> float:
        vals = self.per_start.get(key, {})
        idx = subset if subset is not None else list(vals)
        return statistics.median(vals[i] for i in idx)

    def ratio(self, key: str, base: str) -> float:
        """key's median ÷ base's median on the starts where key was timed."""
        subset = list(self.per_start[key])
        return self.median(key, subset) / self.median(base, subset)


UNEXPLAINED = "UNEXPLAINED — a difference this benchmark does not know"


def build_rows(inp: Inputs) -> list[Row]:
    cal, cc = inp.cal, inp.cc
    rows: list[Row] = []

    def duetime_impls(text: str) -> list[Impl]:
        d = parse_duration(text)
        return [
            Impl("public", "duetime compute_due (public)¹",
                 lambda s: to_us(compute_due(s.dt, text, cal)),
                 lambda s: ("f(s, t, c)", {"f": compute_due, "s": s.dt, "t": text, "c": cal})),
            Impl("core", "duetime add_us (core)²",
                 lambda s: add_us(s.us, d, cc),
                 lambda s: ("f(u, d, c)", {"f": add_us, "u": s.us, "d": d, "c": cc})),
        ]

    # ---- business days
    for n in BD_NS:
        def np_answer(s: Start, n=n, roll="backward") -> int:
            return at_wall(np.busday_offset(s.d64, n, roll=roll, busdaycal=inp.np_cal).item(), s.wall)

        def np_forward_reason(s: Start, got: int, n=n) -> str:
            if not cc.is_business_day(s.local_date.toordinal()) and got == add_us(s.us, parse_duration(f"{n + 1}bd"), cc):
                return ("start on a non-business date: roll='forward' rolls to the next business date and adds N "
                        "from there, one business day later than docs/semantics.md §3 (roll='backward' agrees)")
            return UNEXPLAINED

        off = pd.offsets.CustomBusinessDay(n=n, **inp.pd_kw)
        rows.append(Row("add business days", f"{n}bd", fmt_instant, duetime_impls(f"{n}bd") + [
            Impl("numpy", "numpy busday_offset(busdaycal=)³", np_answer,
                 lambda s, n=n: ("f(d, n, roll='backward', busdaycal=b)",
                                 {"f": np.busday_offset, "d": s.d64, "n": n, "b": inp.np_cal})),
            Impl("numpy_hol", "numpy busday_offset(holidays=)³",
                 lambda s, n=n: at_wall(np.busday_offset(s.d64, n, roll="backward", weekmask="1111100",
                                                         holidays=inp.np_hol).item(), s.wall),
                 lambda s, n=n: ("f(d, n, roll='backward', weekmask='1111100', holidays=h)",
                                 {"f": np.busday_offset, "d": s.d64, "n": n, "h": inp.np_hol})),
            Impl("numpy_fwd", "numpy busday_offset(roll='forward')",
                 lambda s, n=n, f=np_answer: f(s, n, "forward"), None,
                 np_forward_reason, note="checked only, not timed"),
            Impl("pandas", "pandas CustomBusinessDay",
                 lambda s, off=off: to_us((s.ts + off).to_pydatetime()),
                 lambda s, off=off: ("s + o", {"s": s.ts, "o": off})),
            Impl("workalendar", "workalendar add_working_days⁴",
                 lambda s, n=n: at_wall(inp.wa.add_working_days(s.local_date, n), s.wall),
                 lambda s, n=n: ("f(d, n)", {"f": inp.wa.add_working_days, "d": s.local_date, "n": n})),
        ]))

    # ---- business hours
    for n in BH_NS:
        d = parse_duration(f"{n}bh")

        def next_open_reason(s: Start, got: int, d=d, lib="") -> str:
            ref = add_us(s.us, d, cc)
            if got != ref and got == add_us(s.us, d, cc, at_close=AtClose.NEXT_OPEN):
                return (f"{lib}work ending at {local(ref):%H:%M} (a closing) rolls to the next opening {local(got):%H:%M} "
                        "(duetime answers 17:00 per docs/semantics.md §4; its at_close=NEXT_OPEN gives the library's answer)")
            return UNEXPLAINED

        off = pd.offsets.CustomBusinessHour(n=n, start="09:00", end="17:00", **inp.pd_kw)
        delta = btd.BusinessTimeDelta(inp.btd_rules, hours=n)
        rows.append(Row("add business hours", f"{n}bh", fmt_instant, duetime_impls(f"{n}bh") + [
            Impl("pandas", "pandas CustomBusinessHour (tz-aware)",
                 lambda s, off=off: to_us((s.ts + off).to_pydatetime()),
                 lambda s, off=off: ("s + o", {"s": s.ts, "o": off}),
                 lambda s, got, nr=next_open_reason: nr(s, got, lib="pandas: ")),
            Impl("btd", "businesstimedelta BusinessTimeDelta⁵",
                 lambda s, delta=delta: to_us(s.dt + delta),
                 lambda s, delta=delta: ("s + o", {"s": s.dt, "o": delta}),
                 lambda s, got, nr=next_open_reason: nr(s, got, lib="businesstimedelta: ")),
        ]))

    # ---- nominal durations, unrolled and with a landing rule (docs/semantics.md §15)
    for text in NOMINAL_TEXTS:
        rows.append(Row("add nominal", text, fmt_instant, duetime_impls(text)))

    # ---- business time between a and a + 7 days / a + 365 days (elapsed)
    for days, what in ((7, "7d (week)"), (365, "365d (year)")):
        span = timedelta(days=days)

        def numpy_args(s: Start, span=span):
            return s.dt.astimezone(ZONE).replace(tzinfo=None), (s.dt + span).astimezone(ZONE).replace(tzinfo=None)

        rows.append(Row("business time [a, a+N)", what, fmt_amount, [
            Impl("public", "duetime business_time_between (public)¹",
                 lambda s, span=span: business_time_between(s.dt, s.dt + span, cal),
                 lambda s, span=span: ("f(a, b, c)", {"f": business_time_between, "a": s.dt, "b": s.dt + span, "c": cal})),
            Impl("core", "duetime between_us (core)²",
                 lambda s, span=span: between_us(s.us, s.us + span // timedelta(microseconds=1), cc),
                 lambda s, span=span: ("f(a, b, c)", {"f": between_us, "a": s.us,
                                                      "b": s.us + span // timedelta(microseconds=1), "c": cc})),
            Impl("numpy", "numpy busday_count + fixups⁶",
                 lambda s, args=numpy_args: numpy_business_us(*args(s), inp.np_cal),
                 lambda s, args=numpy_args: ("f(a, b, c)", {"f": numpy_business_us, "a": args(s)[0], "b": args(s)[1],
                                                            "c": inp.np_cal})),
            Impl("btd", "businesstimedelta Rules.difference⁵",
                 lambda s, span=span: inp.btd_rules.difference(s.dt, s.dt + span).timedelta // timedelta(microseconds=1),
                 lambda s, span=span: ("f(a, b)", {"f": inp.btd_rules.difference, "a": s.dt, "b": s.dt + span})),
        ]))
    rows.extend(calendar_query_rows(inp))
    rows.extend(week_period_rows(inp))
    return rows


def week_period_rows(inp: Inputs) -> list[Row]:
    """``2000bh`` on the same calendar with week periods (docs/semantics.md §16):
    a new week every half year, 2026–2031, alternating 08:00–18:00 and
    09:00–17:00, so every walk crosses two or three period boundaries. Beside
    the row ``add business hours 2000bh`` (no periods) it shows the cost stays
    flat: each boundary is one step of running totals, never a walk over dates."""
    periods = [(f"{y}-{m:02d}-01", [6, 7], [(wd, [("08:00", "18:00")] if (y + m // 7) % 2 else [("09:00", "17:00")])
                                             for wd in range(1, 6)])
               for y in range(2026, 2032) for m in (1, 7)]
    cal = Calendar.from_text(ZONE_NAME, [6, 7], [(d.isoformat(), n) for d, n in inp.holidays],
                             [(wd, [("09:00", "17:00")]) for wd in range(1, 6)], week_periods=periods)
    cc = cal.compiled
    text = "2000bh"
    d = parse_duration(text)
    return [Row("add business hours, week periods", text, fmt_instant, [
        Impl("public", "duetime compute_due (public)¹",
             lambda s: to_us(compute_due(s.dt, text, cal)),
             lambda s: ("f(s, t, c)", {"f": compute_due, "s": s.dt, "t": text, "c": cal})),
        Impl("core", "duetime add_us (core)²",
             lambda s: add_us(s.us, d, cc),
             lambda s: ("f(u, d, c)", {"f": add_us, "u": s.us, "d": d, "c": cc})),
    ])]


def _period_total(cc, a: int, b: int, size: int) -> int:
    """Open time (µs) of the first ``size`` open periods in ``[a, b)``: one page."""
    return sum(p.end_us - p.start_us for p in open_periods(cc, a, b, size).periods)


def _public_period_total(a: datetime, b: datetime, cc, size: int) -> int:
    """:func:`_period_total` from aware datetimes (the conversion timed too)."""
    return _period_total(cc, to_us(a), to_us(b), size)


def _public_count(first: date, last: date, cc) -> int:
    return count_business_days(cc, first.toordinal(), last.toordinal())


def calendar_query_rows(inp: Inputs) -> list[Row]:
    """Open periods (docs/semantics.md §9.1) over a month and over ten years
    (a page of 25 and of 1000: the cost follows the periods returned, not the
    span), and business days counted over a month and over a century (flat:
    weekly totals and the exceptions, never date by date), beside numpy's
    busday_count."""
    cc = inp.cc
    rows: list[Row] = []
    for days, size, what in ((31, 1000, "1 month (all)"), (3653, 25, "10y, first 25"),
                             (3653, 1000, "10y, first 1000")):
        span = timedelta(days=days)
        span_us = span // timedelta(microseconds=1)
        rows.append(Row("open periods [a, a+N)", what, fmt_amount, [
            Impl("public", "duetime open_periods (datetimes)¹",
                 lambda s, span=span, size=size: _public_period_total(s.dt, s.dt + span, cc, size),
                 lambda s, span=span, size=size: ("f(a, b, c, n)", {"f": _public_period_total, "a": s.dt,
                                                                   "b": s.dt + span, "c": cc, "n": size})),
            Impl("core", "duetime open_periods (core)²",
                 lambda s, span_us=span_us, size=size: _period_total(cc, s.us, s.us + span_us, size),
                 lambda s, span_us=span_us, size=size: ("f(c, a, b, n)", {"f": open_periods, "c": cc, "a": s.us,
                                                                         "b": s.us + span_us, "n": size})),
        ]))
    for days, what in ((30, "1 month"), (36524, "100 years")):
        rows.append(Row("count business days", what, str, [
            Impl("public", "duetime count_business_days (dates)¹",
                 lambda s, days=days: _public_count(s.local_date, s.local_date + timedelta(days=days), cc),
                 lambda s, days=days: ("f(a, b, c)", {"f": _public_count, "a": s.local_date,
                                                      "b": s.local_date + timedelta(days=days), "c": cc})),
            Impl("core", "duetime count_business_days (core)²",
                 lambda s, days=days: count_business_days(cc, s.local_date.toordinal(),
                                                          s.local_date.toordinal() + days),
                 lambda s, days=days: ("f(c, a, b)", {"f": count_business_days, "c": cc,
                                                      "a": s.local_date.toordinal(),
                                                      "b": s.local_date.toordinal() + days})),
            Impl("numpy", "numpy busday_count(busdaycal=)³",
                 lambda s, days=days: int(np.busday_count(s.d64, s.d64 + np.timedelta64(days + 1, "D"),
                                                          busdaycal=inp.np_cal)),
                 lambda s, days=days: ("f(a, b, busdaycal=c)", {"f": np.busday_count, "a": s.d64,
                                                                "b": s.d64 + np.timedelta64(days + 1, "D"),
                                                                "c": inp.np_cal})),
        ]))
    return rows


# ---------------------------------------------------------------------------
# correctness


def check(rows: list[Row], starts: list[Start]) -> list[str]:
    """Fill each row's reference answers and agreements; return the report lines."""
    out: list[str] = []
    for row in rows:
        core = row.impl("core")
        for i, s in enumerate(starts):
            row.ref[i] = core.answer(s)
        for impl in row.impls:
            agree, bad = [], []
            for i, s in enumerate(starts):
                try:
                    got = impl.answer(s)
                except Exception as e:  # a library that fails on an input disagrees, with its error as the reason
                    bad.append((i, None, f"raised {type(e).__name__}: {e}"))
                    continue
                if got == row.ref[i]:
                    agree.append(i)
                else:
                    reason = impl.classify(s, got) if impl.classify else UNEXPLAINED
                    bad.append((i, got, reason))
            row.agree[impl.key] = agree
            row.disagreements[impl.key] = bad
            if impl.key == "core":
                continue
            timed = "not timed" if impl.timed is None else (f"timed on those {len(agree)}" if bad else "timed on all")
            out.append(f"  {row.label:<35} {impl.name.rstrip('¹²³⁴⁵⁶'):<40} {len(agree):>2}/{len(starts)} agree"
                       + ("" if not bad else f"; {timed}"))
            by_reason: dict[str, list[tuple[int, int | None]]] = {}
            for i, got, reason in bad:
                by_reason.setdefault(reason, []).append((i, got))
            for reason, cases in by_reason.items():
                out.append(f"      ✗ {len(cases)} × {reason}:")
                for i, got in cases:
                    shown = "error" if got is None else row.fmt(got)
                    out.append(f"          start {fmt_instant(starts[i].us)}: got {shown}, duetime {row.fmt(row.ref[i])}")
    return out


# ---------------------------------------------------------------------------
# timing


def calibrate(timer: timeit.Timer, target: float) -> int:
    timer.timeit(1)  # warm caches (every implementation gets the same warm-up)
    one = timer.timeit(1)
    if one >= target:
        return 1
    probe = max(1, min(20000, int(target / max(one, 1e-7) / 4)))
    est = timer.timeit(probe) / probe
    return max(1, round(target / max(est, 1e-9)))


def measure(rows: list[Row], starts: list[Start], repeats: int, target: float, log) -> None:
    """Every implementation of every row on each start where it agrees,
    interleaved — repeat by repeat, row by row, start by start — so that load
    from other work on the machine falls on all of them alike (the flatness
    goals compare rows with each other); per start the median of the repeats
    (µs per operation)."""
    t0 = _time.perf_counter()
    timers: dict[tuple[str, str, int], tuple[timeit.Timer, int]] = {}
    for row in rows:
        for impl in row.impls:
            if impl.timed is None:
                continue
            for i in row.agree[impl.key]:
                stmt, g = impl.timed(starts[i])
                timer = timeit.Timer(stmt, globals=g)
                timers[(row.label, impl.key, i)] = (timer, calibrate(timer, target))
    log(f"  calibrated {len(timers)} timers in {_time.perf_counter() - t0:.1f} s")
    samples: dict[tuple[str, str, int], list[float]] = {k: [] for k in timers}
    for r in range(repeats):
        t1 = _time.perf_counter()
        for row in rows:
            for i in range(len(starts)):
                for impl in row.impls:
                    entry = timers.get((row.label, impl.key, i))
                    if entry:
                        timer, number = entry
                        samples[(row.label, impl.key, i)].append(timer.timeit(number) / number * 1e6)
        log(f"  repeat {r + 1}/{repeats} in {_time.perf_counter() - t1:.1f} s")
    by = {row.label: row for row in rows}
    for (label, key, i), vals in samples.items():
        by[label].per_start.setdefault(key, {})[i] = statistics.median(vals)


# ---------------------------------------------------------------------------
# the table and the goals


def table(rows: list[Row], n_starts: int) -> list[str]:
    head = (f"{'operation':<27} {'N':<14} {'implementation':<41} {'agree':>6} {'timed':>5} "
            f"{'median µs/op':>13} {'÷ core':>9} {'÷ public':>9}")
    out = [head, "-" * len(head)]
    for row in rows:
        first = True
        for impl in row.impls:
            if impl.timed is None or impl.key not in row.per_start:
                continue
            agree = "—" if impl.key in ("public", "core") else f"{len(row.agree[impl.key])}/{n_starts}"
            timed = len(row.per_start[impl.key])
            med = row.median(impl.key)
            out.append(f"{row.op if first else '':<27} {row.n if first else '':<14} {impl.name:<41} {agree:>6} "
                       f"{timed:>5} {med:>13.2f} {row.ratio(impl.key, 'core'):>8.2f}× {row.ratio(impl.key, 'public'):>8.2f}×")
            first = False
        untimed = [i for i in row.impls if i.key not in ("public", "core") and i.timed is not None
                   and not row.agree[i.key]]
        for impl in untimed:
            out.append(f"{'':<27} {'':<14} {impl.name:<41} {'0/' + str(n_starts):>6} {0:>5} "
                       f"{'not timed: disagrees on every start':>33}")
        out.append("")
    return out


FOOTNOTES = """\
Ratios: the row's median ÷ duetime's median on the same starts (the ones the
row's library was timed on, i.e. where it agrees with duetime). Above 1×:
duetime is faster by that factor. Medians: per start the median of the
repeats, then the median over the starts. Steady state: calls repeat with warm
caches (duetime caches day segments and per-year DST corrections; workalendar
caches holidays per year; pandas its offsets' calendars).
¹ public path: aware datetime in, compute_due(start, "Nbd", Calendar) /
  business_time_between(a, b, Calendar) → aware datetime / µs out; duration
  text parsed (cached) and the zone applied inside the call. Like for like with
  pandas and businesstimedelta, which take and return aware datetimes.
² core path: add_us(start_us: int, parsed Duration, CompiledCalendar) → int µs
  (between_us for intervals). Like for like with numpy's scalar busday_offset on
  a datetime64[D]: neither converts objects — but duetime still does the zone
  work inside (the start's local date and wall time, the answer's wall time
  resolved to an instant), numpy does none.
³ numpy: the start's local date as a datetime64[D] scalar, roll='backward'
  (see the correctness section for roll='forward'); busdaycal= a prebuilt
  np.busdaycalendar (its fastest form), holidays= the 573-date array given on
  every call. Turning the date back into an instant (the start's wall time in
  Europe/Zagreb) happens outside the timing.
⁴ workalendar: a workalendar.core.Calendar subclass holding exactly the
  benchmark's dates; called on the local date (no zone), mapped back outside
  the timing.
⁵ businesstimedelta: WorkDayRule(09:00–17:00, Mon–Fri, pytz Europe/Zagreb) +
  HolidayRule(frozenset of the dates) — a plain list would cost O(holidays) for
  every date it looks at.
⁶ numpy busday_count approach: naive local wall times in (converted outside the
  timing), whole business days between the two dates × 8 h plus the first and
  last dates' parts; no zone work (exact here: no DST change falls in 09:00–17:00)."""


@dataclass
class Goal:
    text: str
    measured: str
    passed: bool
    profile: list[tuple[str, str]] = field(default_factory=list)  # (row label, duetime impl key) to profile on FAIL


def goals(rows: list[Row]) -> list[Goal]:
    by = {r.label: r for r in rows}
    out: list[Goal] = []

    def r(label):
        return by[label]

    a, b = r("add business days 3bd"), r("add business days 10000bd")
    x = b.median("core") / a.median("core")
    out.append(Goal("flat in N: core add 10000bd ≤ 1.3 × core add 3bd", f"{x:.2f}×", x <= 1.3,
                    [(a.label, "core"), (b.label, "core")]))
    a, b = r(f"add nominal {NOMINAL_TEXTS[0]}"), r(f"add nominal {NOMINAL_TEXTS[1]}")
    x = b.median("core") / a.median("core")
    out.append(Goal(f"a landing rule is one look-up: core {NOMINAL_TEXTS[1]} ≤ 2 × core {NOMINAL_TEXTS[0]}",
                    f"{x:.2f}×", x <= 2, [(a.label, "core"), (b.label, "core")]))
    a, b = r("add business hours 8bh"), r("add business hours 2000bh")
    x = b.median("core") / a.median("core")
    out.append(Goal("flat in N: core add 2000bh ≤ 1.3 × core add 8bh", f"{x:.2f}×", x <= 1.3,
                    [(a.label, "core"), (b.label, "core")]))
    a, b = r("open periods [a, a+N) 1 month (all)"), r("open periods [a, a+N) 10y, first 25")
    x = b.median("core") / a.median("core")
    out.append(Goal("open periods: a page of 25 over 10 years ≤ 2 × a month's (cost follows the periods returned)",
                    f"{x:.2f}×", x <= 2, [(a.label, "core"), (b.label, "core")]))
    a, b = r("count business days 1 month"), r("count business days 100 years")
    x = b.median("core") / a.median("core")
    out.append(Goal("flat in N: count business days over 100 years ≤ 1.3 × over a month", f"{x:.2f}×", x <= 1.3,
                    [(a.label, "core"), (b.label, "core")]))
    a, b = r("business time [a, a+N) 7d (week)"), r("business time [a, a+N) 365d (year)")
    x = b.median("public") / a.median("public")
    xc = b.median("core") / a.median("core")
    out.append(Goal("flat in N: business_time_between over a year ≤ 2 × over a week",
                    f"{x:.2f}× (core between_us: {xc:.2f}×)", x <= 2, [(a.label, "public"), (b.label, "public")]))
    for n in BD_NS:
        row = r(f"add business days {n}bd")
        if "numpy" not in row.per_start:
            out.append(Goal(f"add {n}bd: core within 2× of numpy busday_offset (busdaycal=)", "numpy not timed", False))
            continue
        x = 1 / row.ratio("numpy", "core")
        out.append(Goal(f"add {n}bd: core within 2× of numpy busday_offset(busdaycal=)",
                        f"core = {x:.2f}× numpy's time (vs numpy holidays=: {1 / row.ratio('numpy_hol', 'core'):.2f}×)",
                        x <= 2, [(row.label, "core")]))
    for n in BD_NS:
        row = r(f"add business days {n}bd")
        x = row.ratio("pandas", "public")
        out.append(Goal(f"add {n}bd: ≥ 2× faster than pandas CustomBusinessDay (public path)",
                        f"{x:.1f}× (core: {row.ratio('pandas', 'core'):.1f}×)", x >= 2, [(row.label, "public")]))
    for n in BH_NS:
        row = r(f"add business hours {n}bh")
        if "pandas" not in row.per_start:
            out.append(Goal(f"add {n}bh: ≥ 5× faster than pandas CustomBusinessHour", "pandas agrees on no start", False))
            continue
        x = row.ratio("pandas", "public")
        out.append(Goal(f"add {n}bh: ≥ 5× faster than pandas CustomBusinessHour (public path)",
                        f"{x:.1f}× on {len(row.per_start['pandas'])} agreeing starts (core: {row.ratio('pandas', 'core'):.1f}×)",
                        x >= 5, [(row.label, "public")]))
    for n, need in ((8, 15), (2000, 1000)):
        row = r(f"add business hours {n}bh")
        x = row.ratio("btd", "public")
        out.append(Goal(f"add {n}bh: ≥ {need}× faster than businesstimedelta (public path)",
                        f"{x:.1f}× (core: {row.ratio('btd', 'core'):.1f}×)", x >= need, [(row.label, "public")]))
    row = r("business time [a, a+N) 7d (week)")
    x = 1 / row.ratio("numpy", "core")
    xp = 1 / row.ratio("numpy", "public")
    out.append(Goal("a week's business time: core ≤ numpy busday_count approach",
                    f"core = {x:.2f}× numpy's time (public: {xp:.2f}×)", x <= 1, [(row.label, "core")]))
    return out


def profile_lines(row: Row, key: str, starts: list[Start], budget: float = 0.4, top: int = 10) -> list[str]:
    """cProfile of duetime ``key`` on ``row`` over its timed starts: the top
    functions by own time, per operation (the profiler inflates small calls;
    read the shares, not the µs)."""
    impl = row.impl(key)
    idx = list(row.per_start[key])
    timers = [timeit.Timer(stmt, globals=g) for stmt, g in (impl.timed(starts[i]) for i in idx)]
    loops = max(1, int(budget / max(row.median(key) * 1e-6, 1e-7) / len(timers)))
    prof = cProfile.Profile()
    for timer in timers:
        prof.runcall(timer.timeit, loops)
    ops = loops * len(timers)
    st = pstats.Stats(prof)
    total = st.total_tt
    entries = sorted(st.stats.items(), key=lambda kv: kv[1][2], reverse=True)[:top]
    out = [f"    {row.label}, duetime {key} ({ops} operations; own time per operation, share of the total):"]
    for (file, line, fn), (cc_, nc, tt, ct, _callers) in entries:
        where = f"{Path(file).name}:{line}({fn})" if line else fn
        out.append(f"      {tt / ops * 1e6:7.2f} µs {tt / total * 100:5.1f}%  {nc / ops:6.1f} calls/op  {where}")
    return out


# ---------------------------------------------------------------------------
# gRPC section: the bare grpcio floor, duetime's Health/Check, ComputeDueTime, batch and stream


GRPC_CONCURRENCY = 16
"""Client threads in flight for the floor, duetime's Health/Check and ComputeDueTime (same for all)."""
GRPC_BATCH_CONCURRENCY = 4
"""Batches of 1,000 items in flight."""
GRPC_SECONDS = 8.0
"""Length of one closed-loop measurement (after 1 s of warm-up); (f), (a) and (b) are
measured in :data:`GRPC_ROUNDS` rounds of this length each divided by the rounds."""
GRPC_ROUNDS = 3
"""Rounds of (f), (a) and (b), each round measuring the three one after the other (in an
order rotated from round to round), so that a ratio is taken between measurements seconds
apart: on a shared machine the floor itself moves by a third from minute to minute."""
STREAM_ITEMS = 100_000
WORKER_CONNECTIONS = 4
"""Connections the load client spreads its calls over for (b1) and (b2): the kernel hands
each connection to one worker of ``--workers 2``."""
DUE_TIMES_PER_S = 30_000
"""Goal for BatchComputeDueTimes and StreamComputeDueTimes: recorded due times per second, end to end."""


def _rss_kb(pid: int) -> dict[str, int]:
    out = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key = line.split(":")[0]
        if key in ("VmRSS", "VmHWM"):
            out[key] = int(line.split()[1])
    return out


def _cpu_s(pid: int) -> float:
    """CPU seconds (user + system, every thread) process ``pid`` has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _load_cpu(pid: int, address: str, mode: str, *extra: str) -> dict:
    """:func:`_load`, plus ``server_cpu_us``: the server's CPU µs per call made
    (warm-up included), which load from other work on the machine moves less
    than calls/s."""
    before = _cpu_s(pid)
    result = _load(address, mode, *extra)
    result["server_cpu_us"] = (_cpu_s(pid) - before) / max(result["calls_with_warmup"], 1) * 1e6
    return result


def _start(what: str, argv: list[str], pattern: str, stream: str) -> tuple[subprocess.Popen, str]:
    """Start ``argv`` and wait until it prints ``pattern`` (one group: the
    address it listens on) on ``stream`` ("stdout" or "stderr"); the rest of
    its output is read and dropped. Returns the process and the address."""
    import re
    import threading

    proc = subprocess.Popen(
        argv, stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE if stream == "stdout" else subprocess.DEVNULL,
        stderr=subprocess.PIPE if stream == "stderr" else subprocess.DEVNULL, text=True)
    found: list[str] = []
    ready = threading.Event()

    def drain():
        for line in getattr(proc, stream):
            if not found and (m := re.search(pattern, line)):
                found.append(m.group(1))
                ready.set()
        ready.set()

    threading.Thread(target=drain, daemon=True).start()
    if not ready.wait(60) or not found:
        proc.kill()
        raise RuntimeError(f"the {what} did not start")
    return proc, found[0]


def _start_server(tmp: Path, workers: int = 1) -> tuple[subprocess.Popen, str]:
    """``duetime serve --port 0 --workers N`` on 127.0.0.1 with a fresh durable SQLite ledger
    in ``tmp``; returned once every worker listens."""
    ready = (r"duetime listening on (127\.0\.0\.1:\d+)" if workers == 1 else
             rf"INFO duetime listening on (127\.0\.0\.1:\d+) \({workers} workers")
    return _start("duetime server",
                  [sys.executable, "-m", "duetime", "serve", "--port", "0", "--db", str(tmp / "ledger.db"),
                   "--calendars", str(REPO / "calendars"), "--workers", str(workers)],
                  ready, "stderr")


def _start_bare_server(core: bool = False, record: Path | None = None) -> tuple[subprocess.Popen, str]:
    """``bare_server.py --port 0``: grpcio alone (ThreadPoolExecutor(16), only
    grpc.health.v1), no duetime code, on 127.0.0.1; ``core``: with ``--core``,
    also ComputeDueTime answered by duetime's core alone; ``record``: each of
    those answers stored in a SQLite ledger there (``--record``)."""
    return _start("bare grpcio server",
                  [sys.executable, str(Path(__file__).with_name("bare_server.py")), "--port", "0",
                   "--workers", "16", *(["--core"] if core else []),
                   *(["--record", str(record)] if record is not None else [])],
                  r"bare grpcio listening on (127\.0\.0\.1:\d+)", "stdout")


def _stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def _load(address: str, mode: str, *extra: str) -> dict:
    import json

    out = subprocess.run([sys.executable, str(Path(__file__).with_name("grpc_load.py")), address, mode, *extra],
                         capture_output=True, text=True, check=False, timeout=900)
    if out.returncode:
        raise RuntimeError(f"grpc_load {mode} failed: {out.stderr.strip()[-2000:]}")
    return json.loads(out.stdout)


def _pooled(rounds: list[dict]) -> dict:
    """One measurement from its rounds: calls and seconds summed (calls/s over
    them all), p50 and p99 the median round's, server CPU per call over every
    call; ``rounds``: the rounds themselves, for the per-round ratios."""
    calls = sum(r["calls"] for r in rounds)
    seconds = sum(r["seconds"] for r in rounds)
    with_warmup = sum(r["calls_with_warmup"] for r in rounds)
    return {"calls": calls, "seconds": seconds, "calls_per_s": calls / seconds,
            "p50_ms": statistics.median(r["p50_ms"] for r in rounds),
            "p99_ms": statistics.median(r["p99_ms"] for r in rounds),
            "errors": sum(r["errors"] for r in rounds),
            "first_error": next((r["first_error"] for r in rounds if r["errors"]), []),
            "calls_with_warmup": with_warmup,
            "server_cpu_us": sum(r["server_cpu_us"] * r["calls_with_warmup"] for r in rounds)
            / max(with_warmup, 1),
            "rounds": rounds}


def _round_ratios(r: dict, floor: dict, key: str = "calls_per_s") -> list[float]:
    """``r``'s ``key`` over the floor's, round by round (measured seconds apart)."""
    return [a[key] / f[key] for a, f in zip(r["rounds"], floor["rounds"])]


def grpc_section(args: argparse.Namespace, inp: Inputs, log) -> list[str]:
    """The gRPC section, every measurement in this run by the same client
    process (``grpc_load.py``), closed loop, the same concurrency and length:

    (f) the floor: a bare grpcio server (``bare_server.py``: ThreadPoolExecutor(16),
        only grpc.health.v1, no duetime code), its Health/Check;
    (a) a real ``duetime serve`` on 127.0.0.1 (durable SQLite ledger in a
        temporary directory), its Health/Check through its interceptors;
    (b) its ComputeDueTime (Zagreb 3bd, no idempotency key: every answer
        recorded before it is sent);
    (f2) the same ComputeDueTime against ``bare_server.py --core``: grpcio
        and duetime's core alone, nothing recorded: what (b) could be
        without duetime's service layer and its record; (f3) the same with
        ``--record``: each answer stored first through duetime's ledger,
        nothing else;
    (c) BatchComputeDueTimes of 1,000 items;
    (d) one StreamComputeDueTimes of 100,000 items, with the server's RSS
        before and after;
    (b1) ComputeDueTime again, its calls spread over :data:`WORKER_CONNECTIONS`
        connections; (b2) the same against ``duetime serve --workers 2`` (a
        fresh ledger), which hands each connection to one of its two worker
        processes: the scaling from a second process on this machine; (c2)
        (c) against that server, on as many connections.

    The goals are ratios to (f) measured side by side, and due times per
    second for (c) and (d). Returns the lines to print."""
    if not args.grpc:
        return ["gRPC section: not run (pass --grpc)"]
    import tempfile

    seconds = 2.0 if args.quick else GRPC_SECONDS
    conc = str(GRPC_CONCURRENCY)
    closed = ("--seconds", str(seconds), "--concurrency", conc)
    lines = ["gRPC section: (f) a bare grpcio server (bench/bare_server.py: grpc.server(ThreadPoolExecutor(16)),",
             "only grpc.health.v1 Health/Check, no duetime code) as the transport's floor, then duetime serve",
             "(SQLite ledger, WAL, synchronous=FULL: an answer is sent only after its record is committed),",
             "each on 127.0.0.1 and alone on it while measured; the same client process (grpc_load.py),",
             f"closed loop, {seconds:g} s per measurement after 1 s of warm-up, all in this run"]
    rounds = 1 if args.quick else GRPC_ROUNDS
    closed_round = ("--seconds", f"{seconds / rounds:g}", "--concurrency", conc)
    lines[-1] = (f"closed loop, {seconds:g} s per measurement after 1 s of warm-up, all in this run; "
                 f"(f), (a) and (b) in {rounds} round{'s' if rounds > 1 else ''} of {seconds / rounds:.3g} s")
    with tempfile.TemporaryDirectory(prefix="duetime-bench-") as tmp:
        bare, bare_address = _start_bare_server()
        proc = None
        try:
            proc, address = _start_server(Path(tmp))
            log(f"gRPC: bare grpcio server {bare_address} (pid {bare.pid}), duetime server "
                f"{address} (pid {proc.pid}); floor, Health/Check and ComputeDueTime in "
                f"{rounds} rounds …")
            measures = [("f", lambda: _load_cpu(bare.pid, bare_address, "health", *closed_round)),
                        ("a", lambda: _load_cpu(proc.pid, address, "health", *closed_round)),
                        ("b", lambda: _load_cpu(proc.pid, address, "due", *closed_round))]
            measured: dict[str, list[dict]] = {"f": [], "a": [], "b": []}
            for r in range(rounds):
                for name, measure in measures[r % 3:] + measures[:r % 3]:
                    measured[name].append(measure())
            _stop(bare)
            bare, bare_address = _start_bare_server(core=True)
            log(f"gRPC: bare grpcio server with the core's ComputeDueTime {bare_address} "
                f"(pid {bare.pid}) …")
            core_due = _load_cpu(bare.pid, bare_address, "due", *closed)
            _stop(bare)
            bare, bare_address = _start_bare_server(core=True, record=Path(tmp) / "bare.db")
            log(f"gRPC: the same, each answer recorded {bare_address} (pid {bare.pid}) …")
            core_recorded = _load_cpu(bare.pid, bare_address, "due", *closed)
            _stop(bare)  # from here on duetime's server runs alone
            log(f"gRPC: ComputeDueTime on {WORKER_CONNECTIONS} connections, --workers 1 …")
            due_one = _load(address, "due", *closed, "--channels", str(WORKER_CONNECTIONS))
            log("gRPC: BatchComputeDueTimes …")
            batch = _load_cpu(proc.pid, address, "batch", "--seconds", str(seconds),
                              "--concurrency", str(GRPC_BATCH_CONCURRENCY), "--batch-size", "1000")
            log("gRPC: StreamComputeDueTimes …")
            items = 20_000 if args.quick else STREAM_ITEMS
            # a first short stream warms the server (imports, caches, allocator), then RSS is read
            _load(address, "stream", "--items", "2000", "--message-items", "1000")
            before = _rss_kb(proc.pid)
            stream = _load(address, "stream", "--items", str(items), "--message-items", "1000")
            after = _rss_kb(proc.pid)
            records = (Path(tmp) / "ledger.db").stat().st_size
        finally:
            _stop(bare)
            if proc is not None:
                _stop(proc)
        floor, health, due = (_pooled(measured[name]) for name in ("f", "a", "b"))
        two = Path(tmp) / "two-workers"
        two.mkdir()
        proc, address = _start_server(two, workers=2)
        try:
            log(f"gRPC: duetime server --workers 2 {address} (pid {proc.pid}); ComputeDueTime on "
                f"{WORKER_CONNECTIONS} connections …")
            due_two = _load(address, "due", *closed, "--channels", str(WORKER_CONNECTIONS))
            log("gRPC: BatchComputeDueTimes, --workers 2 …")
            batch_two = _load(address, "batch", "--seconds", str(seconds), "--concurrency",
                              str(GRPC_BATCH_CONCURRENCY), "--batch-size", "1000",
                              "--channels", str(WORKER_CONNECTIONS))
        finally:
            _stop(proc)
    growth = (after["VmRSS"] - before["VmRSS"]) / 1024

    def row(name, r, extra=""):
        share = f"{r['calls_per_s'] / floor['calls_per_s'] * 100:>5.0f}%" if not extra else f"{'—':>6}"
        return (f"  {name:<46} {r['calls_per_s']:>9,.0f} {r['p50_ms']:>8.2f} {r['p99_ms']:>8.2f}"
                f"  {r['calls']:>7,} {r['errors']:>6}  {share}{extra}")

    def goal(passed: bool, text: str, measured: str) -> str:
        return f"  {'PASS' if passed else 'FAIL'}  {text:<72} {measured}"

    def each(ratios: list[float], unit: str) -> str:
        return ", ".join(f"{x * 100:.0f}%" if unit == "%" else f"{x:.2f}×" for x in ratios)

    def share(r: dict, need: float, what: str) -> str:
        """The goal on the median round's ratio (each round's (f) and ``r`` seconds apart)."""
        ratios = _round_ratios(r, floor)
        x = statistics.median(ratios)
        return goal(x >= need, f"{what} ≥ {need * 100:.0f}% of (f)'s calls/s, same concurrency",
                    f"{x * 100:.0f}% (median of rounds {each(ratios, '%')}; pooled "
                    f"{r['calls_per_s']:,.0f} / {floor['calls_per_s']:,.0f} calls/s)")

    p99_ratios = _round_ratios(due, floor, "p99_ms")
    p99 = statistics.median(p99_ratios)
    lines += [f"  {'call':<46} {'calls/s':>9} {'p50 ms':>8} {'p99 ms':>8}  {'calls':>7} {'errors':>6}  {'÷ (f)':>6}",
              row(f"(f) bare grpcio Health/Check, {conc} in flight", floor),
              row(f"(a) duetime Health/Check, {conc} in flight", health),
              row(f"(b) ComputeDueTime (recorded), {conc} in flight", due),
              row("(f2) ComputeDueTime, bare grpcio + core only", core_due),
              row("(f3) (f2), each answer recorded (SQLite)", core_recorded),
              row(f"(b1) (b) on {WORKER_CONNECTIONS} connections, --workers 1", due_one),
              row(f"(b2) (b) on {WORKER_CONNECTIONS} connections, --workers 2", due_two),
              row(f"(c) BatchComputeDueTimes ×1000, {GRPC_BATCH_CONCURRENCY} in flight", batch,
                  f"  = {batch['items_per_s']:,.0f} due times/s"),
              row(f"(c2) (c) on {WORKER_CONNECTIONS} connections, --workers 2", batch_two,
                  f"  = {batch_two['items_per_s']:,.0f} due times/s"),
              f"  (d) StreamComputeDueTimes, one stream of {stream['items']:,} items (messages of 1,000): "
              f"{stream['seconds']:.1f} s = {stream['items_per_s']:,.0f} due times/s, {stream['errors']} errors",
              f"      server RSS before {before['VmRSS'] / 1024:.1f} MB, after {after['VmRSS'] / 1024:.1f} MB "
              f"(growth {growth:+.1f} MB; peak {after['VmHWM'] / 1024:.1f} MB); ledger file {records / 2**20:.0f} MB",
              "  (÷ (f): calls/s as a share of the bare grpcio server's, same client and concurrency;"
              " (f), (a), (b) pooled over their rounds, p50/p99 the median round's)",
              "  (f2): the same client's ComputeDueTime against bare_server.py --core, answered by "
              "duetime's core alone (no interceptors, limits or record), after the rounds",
              "  (f3): the same with --record: each answer stored first by duetime's ledger (WAL, "
              "synchronous=FULL, group commit), nothing else; (b) ÷ (f3) = "
              f"{due['calls_per_s'] / core_recorded['calls_per_s'] * 100:.0f}%: what duetime's service "
              "layer leaves of a server that only computes and records",
              f"  (b2) ÷ (b1): {due_two['calls_per_s'] / due_one['calls_per_s']:.2f}× from a second worker "
              f"process ({os.cpu_count()} CPUs here, shared with the load client; one SQLite file, "
              "one writer at a time)",
              f"  server CPU per call (user + system, all threads): (f) {floor['server_cpu_us']:,.0f} µs, "
              f"(a) {health['server_cpu_us']:,.0f} µs, (b) {due['server_cpu_us']:,.0f} µs, "
              f"(f2) {core_due['server_cpu_us']:,.0f} µs, (f3) {core_recorded['server_cpu_us']:,.0f} µs, "
              f"(c) {batch['server_cpu_us'] / 1000:,.1f} µs per due time",
              "  Goals (gRPC), against (f) measured in this run; (a) and (b): the median round's ratio",
              share(health, 0.90, "duetime Health/Check"),
              share(due, 0.70, "ComputeDueTime (recorded)"),
              goal(p99 <= 2, "ComputeDueTime p99 latency ≤ 2 × (f)'s p99",
                   f"{p99:.2f}× (median of rounds {each(p99_ratios, '×')}; medians "
                   f"{due['p99_ms']:.2f} / {floor['p99_ms']:.2f} ms)"),
              goal(batch["items_per_s"] >= DUE_TIMES_PER_S,
                   f"BatchComputeDueTimes ≥ {DUE_TIMES_PER_S:,} recorded due times/s end to end",
                   f"{batch['items_per_s']:,.0f}/s"),
              goal(stream["items_per_s"] >= DUE_TIMES_PER_S and not stream["errors"],
                   f"StreamComputeDueTimes ≥ {DUE_TIMES_PER_S:,} recorded due times/s end to end",
                   f"{stream['items_per_s']:,.0f}/s"),
              goal(growth < 20, f"stream memory flat (RSS growth < 20 MB over {stream['items']:,} items)",
                   f"{growth:+.1f} MB")]
    for name, r in (("(f) bare Health/Check", floor), ("(a) duetime Health/Check", health),
                    ("(b) ComputeDueTime", due), ("(f2) core ComputeDueTime", core_due),
                    ("(f3) core ComputeDueTime, recorded", core_recorded),
                    ("(b1) ComputeDueTime, --workers 1", due_one),
                    ("(b2) ComputeDueTime, --workers 2", due_two), ("(c) batch", batch),
                    ("(c2) batch, --workers 2", batch_two)):
        if r["errors"]:
            lines.append(f"  note: {name} had {r['errors']} errors, first: {r['first_error']}")
    return lines


# ---------------------------------------------------------------------------
# header


def _cpu_model() -> str:
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return platform.processor() or "unknown"
    for key in ("model name", "Model name", "Hardware", "cpu model"):
        for line in text.splitlines():
            if line.split(":")[0].strip() == key:
                return line.split(":", 1)[1].strip()
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, check=False).stdout
        for line in out.splitlines():
            if line.startswith("Model name:"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.machine()


def _version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "not installed"


def _git() -> str:
    def run(*a):
        return subprocess.run(["git", "-C", str(REPO), *a], capture_output=True, text=True, check=False).stdout.strip()

    commit = run("rev-parse", "--short=12", "HEAD") or "unknown"
    dirty = run("status", "--porcelain", "--", "service/duetime/core")
    h = hashlib.sha256()
    for f in sorted((REPO / "service" / "duetime" / "core").glob("*.py")):
        h.update(f.name.encode() + b"\0" + f.read_bytes())
    return commit + (", service/duetime/core as committed" if not dirty else
                     " + uncommitted changes in service/duetime/core (measured as in the work tree)") + \
        f"; core files sha256 {h.hexdigest()[:12]}"


def header(args: argparse.Namespace, inp: Inputs) -> list[str]:
    try:
        from threadpoolctl import threadpool_info
        blas = ", ".join(f"{i.get('internal_api')} {i.get('version')} {i.get('architecture')} "
                         f"({i.get('num_threads')} threads)" for i in threadpool_info()) or "none loaded"
    except ImportError:
        blas = "threadpoolctl not installed"
    unset = os.environ.get("BENCH_OPENBLAS_UNSET", "").strip()
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:
        cpus = os.cpu_count()
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    diff_n, diff_ex = inp.workalendar_croatia_diff()
    lines = [
        "duetime library benchmark",
        f"date:        {datetime.now(timezone.utc):%Y-%m-%d %H:%M:%S}Z   host: {socket.gethostname()}",
        f"machine:     {_cpu_model()}; {os.cpu_count()} logical cores ({cpus} usable); {platform.machine()}; "
        f"{platform.system()} {platform.release()}",
        f"load:        {load} (1/5/15 min) at start — other work on the machine shows up here",
        f"python:      {platform.python_implementation()} {platform.python_version()}",
        f"duetime:     {_version('duetime')} at {_git()}",
        "libraries:   " + ", ".join(f"{d} {_version(d)}" for d in
                                    ("numpy", "pandas", "workalendar", "businesstimedelta", "pytz", "holidays", "tzdata")),
        f"tzdata:      IANA {tzdata_version()} (duetime, pandas, zoneinfo: the tzdata package); "
        f"businesstimedelta: pytz {_version('pytz')} ({pytz.OLSON_VERSION})",
        f"BLAS:        {blas}; OPENBLAS_CORETYPE/OPENBLAS_L2_SIZE "
        + (f"unset for this run (were: {unset})" if unset else "not set"),
        f"calendar:    {ZONE_NAME}, weekend Sat+Sun, Mon–Fri 09:00–17:00, Croatian public holidays "
        f"{HOLIDAY_YEARS[0]}–{HOLIDAY_YEARS[-1]} from holidays {_version('holidays')}: {len(inp.hol_dates)} dates "
        f"({inp.per_year:.1f}/year, {inp.weekday_holidays} on weekdays), the same dates given to every library",
        f"             (workalendar's own Croatia calendar differs on {diff_n} dates in those years, e.g. "
        f"{'; '.join(diff_ex) or '—'}: not used)" if diff_n else
        "             (workalendar's own Croatia calendar has exactly these dates; the explicit list is used)",
        f"starts:      {len(inp.starts)} instants {STARTS[0][0][:10]} … {STARTS[-1][0][:10]} (listed at the end)",
        f"timing:      {args.repeats} repeats × ≥{args.target_ms:g} ms per start and implementation, interleaved"
        + (" (--quick)" if args.quick else ""),
    ]
    return lines


# ---------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--repeats", type=int, default=7, help="timed repeats per start and implementation (default 7)")
    p.add_argument("--target-ms", type=float, default=4.0, help="minimum length of one timed repeat, ms (default 4)")
    p.add_argument("--quick", action="store_true", help="3 repeats of ≥1 ms: a smoke run, not for results/")
    p.add_argument("--no-profile", action="store_true", help="skip the profile of failing goals")
    p.add_argument("--grpc", action="store_true", help="also run the gRPC section (a local duetime server under load)")
    args = p.parse_args(argv)
    sys.stdout.reconfigure(line_buffering=True)  # progress on stderr stays in order with the report
    if args.quick:
        args.repeats, args.target_ms = 3, 1.0

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    began = _time.perf_counter()
    inp = Inputs()
    for line in header(args, inp):
        print(line)
    print()

    rows = build_rows(inp)
    print("Correctness: every library's answer against duetime's (default at_close), on every start")
    report = check(rows, inp.starts)
    for line in report:
        print(line)
    for row in rows:
        bad = row.disagreements["public"]
        if bad:
            print(f"ERROR: duetime's public path disagrees with its core on {row.label}: {bad}")
            return 1
    unexplained = sum(1 for row in rows for v in row.disagreements.values() for _, _, why in v if why == UNEXPLAINED)
    print(f"  unexplained differences: {unexplained}")
    last = max(from_us(u).astimezone(ZONE).year for row in rows if row.fmt is fmt_instant for u in row.ref.values())
    if last > HOLIDAY_YEARS[-1]:
        print(f"  note: the latest answers fall in {last}, past the holiday list's last year {HOLIDAY_YEARS[-1]}: "
              "those years count weekends only — for every library alike.")
    print()

    log("timing, interleaved (a minute or two) …")
    measure(rows, inp.starts, args.repeats, args.target_ms / 1000, log)
    print("Median time per operation (µs) and ratios — measured side by side in this run")
    for line in table(rows, len(inp.starts)):
        print(line)
    print(FOOTNOTES)
    print()

    print("Goals")
    gs = goals(rows)
    for g in gs:
        print(f"  {'PASS' if g.passed else 'FAIL'}  {g.text:<72} {g.measured}")
    failed = [g for g in gs if not g.passed]
    print(f"  {len(gs) - len(failed)} of {len(gs)} pass")
    print()

    if failed and not args.no_profile:
        print("Where duetime's time goes in the failing goals (cProfile, top functions by own time;")
        print("the profiler inflates small calls several times over: read the shares and calls/op, not the µs)")
        by = {r.label: r for r in rows}
        seen = set()
        for g in failed:
            for label, key in g.profile:
                if (label, key) in seen:
                    continue
                seen.add((label, key))
                for line in profile_lines(by[label], key, inp.starts):
                    print(line)
        print()

    for line in grpc_section(args, inp, log):
        print(line)
    print()
    print("Starts (local Europe/Zagreb):")
    for s in inp.starts:
        print(f"  {fmt_instant(s.us)}  {s.note}")
    print(f"\nload at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; run took {_time.perf_counter() - began:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
