"""Explanations: why a due time landed where it did, in words and data.

Built only when a caller asks (``explain``), after the answer was computed by
the fast engine, so the answer itself never depends on this walk. It looks at
the dates between the start and the due time one by one, up to
:data:`DETAIL_DATES` of them; the rest is summarised with counts.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from .calendar import WEEKDAY_NAMES
from .compiled import CompiledCalendar
from .engine import add_landed_us, between_us
from .durations import HOUR, MINUTE, SECOND, Duration, DurationKind, Roll
from .zones import format_local, from_us, local_of, offset_us, resolve, transitions_between

#: Dates described one by one before the explanation switches to a summary.
DETAIL_DATES = 62


@dataclass(frozen=True)
class Step:
    """One step of an explanation.

    ``kind`` is one of ``start``, ``skip`` (a date that is not a business day,
    with the reason), ``count`` (a business day counted), ``open`` (an open
    interval consumed), ``summary``, ``dst`` (a transition crossed),
    ``resolve`` (a DST gap or fold on the due date), ``roll`` (a landing
    rule moved the due date off a date that is not a business day, or kept
    it, docs/semantics.md §15), ``note`` and ``due``.
    Instants are µs since the epoch; ``amount_us`` is a length of time.
    """

    kind: str
    text: str
    local_date: str = ""
    start_us: int | None = None
    end_us: int | None = None
    amount_us: int | None = None


def fmt_amount(us: int) -> str:
    """``27000000000`` → ``"7h30m"`` (exact; µs shown only when present)."""
    sign = "-" if us < 0 else ""
    us = abs(us)
    h, rest = divmod(us, HOUR)
    m, rest = divmod(rest, MINUTE)
    s, micro = divmod(rest, SECOND)
    parts = [f"{h}h" if h else "", f"{m}m" if m else "", f"{s}s" if s else "", f"{micro}µs" if micro else ""]
    return sign + ("".join(parts) or "0m")


def _day(o: int) -> str:
    d = date.fromordinal(o)
    return f"{WEEKDAY_NAMES[d.weekday()]} {d.isoformat()}"


def _clock(cc: CompiledCalendar, us: int) -> str:
    """Local wall time ``HH:MM`` of instant ``us`` (integer arithmetic on the
    zone's offset: the same text as formatting the zone's datetime)."""
    _, wall = cc.local_of(us)
    return f"{wall // HOUR:02d}:{wall // MINUTE % 60:02d}"


def explain_due(start: int, due: int, d: Duration, cc: CompiledCalendar, next_open_moved: bool = False) -> list[Step]:
    """Steps that lead from ``start`` to ``due`` for duration ``d`` (instants in µs)."""
    zone = cc.zone
    o0, _ = local_of(zone, start)
    status = "a business day" if cc.is_business_day(o0) else f"not a business day: {cc.closed_reason(o0)}"
    steps = [
        Step("start", f"Start {format_local(start, zone)} ({_day(o0)}, {status}) in {cc.calendar.time_zone}",
             date.fromordinal(o0).isoformat(), start_us=start)
    ]
    if d.is_zero:
        steps.append(Step("note", f"{d.text!r} is zero: the due time is the start, unchanged"))
    elif d.kind is DurationKind.ELAPSED:
        steps.append(Step("note", f"{d.text!r} is elapsed time: exactly {fmt_amount(d.micros)} of real time, "
                                  "open or closed, whatever the wall clock shows", amount_us=d.micros))
    elif d.kind is DurationKind.BUSINESS_DAY:
        steps.extend(_explain_days(start, due, d, cc))
    elif d.kind is DurationKind.BUSINESS_TIME:
        steps.extend(_explain_hours(start, due, d, cc))
        if next_open_moved:
            steps.append(Step("note", "the work ended exactly at a closing; at_close = NEXT_OPEN moves it to the next opening"))
    else:
        steps.extend(_explain_nominal(start, d, cc))
    if d.roll is not None:
        steps.extend(_explain_landing(start, d, cc))
    steps.extend(_dst_steps(min(start, due), max(start, due), cc))
    od, _ = local_of(zone, due)
    steps.append(Step("due", f"Due {format_local(due, zone)} ({_day(od)}) = {from_us(due).isoformat().replace('+00:00', 'Z')}",
                      date.fromordinal(od).isoformat(), start_us=due))
    return _with_weeks(steps, cc, forward=due >= start)


def explain_between(a: int, b: int, cc: CompiledCalendar) -> list[Step]:
    """Steps that make up the open time in ``[a, b)`` (or ``[b, a)``)."""
    lo, hi = min(a, b), max(a, b)
    o, _ = local_of(cc.zone, lo)
    total = between_us(lo, hi, cc) if cc.has_hours() else 0
    d = Duration(DurationKind.BUSINESS_TIME, micros=total, text=fmt_amount(total))
    steps = [Step("start", f"From {format_local(lo, cc.zone)} ({_day(o)}) in {cc.calendar.time_zone}",
                  date.fromordinal(o).isoformat(), start_us=lo)]
    if b < a:
        steps.append(Step("note", "the end is before the start: the open time between them is counted forward "
                                  "from the end and negated"))
    steps.extend(_explain_hours(lo, hi, d, cc))
    steps.extend(_dst_steps(lo, hi, cc))
    oh, _ = local_of(cc.zone, hi)
    steps.append(Step("due", f"To {format_local(hi, cc.zone)} ({_day(oh)}): {fmt_amount(total)} of open time",
                      date.fromordinal(oh).isoformat(), start_us=hi, amount_us=total))
    return _with_weeks(steps, cc, forward=True)


#: The kinds of step that follow the walk over dates (a DST step, listed
#: after the walk, does not).
_WALK_KINDS = frozenset({"start", "skip", "count", "open", "roll", "due"})


def _with_weeks(steps: list[Step], cc: CompiledCalendar, *, forward: bool) -> list[Step]:
    """``steps`` with a note before the first step of each week period
    (docs/semantics.md §16) the walk enters, in its direction: "from Monday
    2027-03-01 the week of 2027-03-01 holds: weekend Monday, Saturday,
    Sunday; Tuesday–Friday 08:00–17:00" (backwards into the calendar's own
    week: "before Monday 2027-03-01 the calendar's own week holds: …").
    A calendar without week periods gets ``steps`` itself, unchanged."""
    periods = cc.calendar.week_periods
    if not periods:
        return steps
    starts = [p.from_date.toordinal() for p in periods]
    out: list[Step] = []
    reached: int | None = None  # the piece furthest in the walk's direction so far (0: the own week)
    for step in steps:
        if step.kind in _WALK_KINDS and step.local_date:
            piece = bisect_right(starts, date.fromisoformat(step.local_date).toordinal())
            if reached is None:
                reached = piece
            elif (piece > reached) if forward else (piece < reached):
                for entered in (range(reached + 1, piece + 1) if forward else range(reached - 1, piece - 1, -1)):
                    out.append(_week_note(cc, periods, starts, entered, forward))
                reached = piece
        out.append(step)
    return out


def _week_note(cc: CompiledCalendar, periods, starts: list[int], piece: int, forward: bool) -> Step:
    """The note saying that week ``piece`` (0: the calendar's own) holds."""
    if piece == 0:
        first = starts[0]
        return Step("note", f"before {_day(first)} the calendar's own week holds: "
                            f"{week_text(cc.calendar.weekend, cc.calendar.working_hours)}",
                    date.fromordinal(first - 1).isoformat())
    period = periods[piece - 1]
    iso = period.from_date.isoformat()
    if forward:
        where = f"from {_day(starts[piece - 1])}"
    else:
        end = starts[piece] - 1 if piece < len(starts) else None
        where = f"up to {_day(end)}" if end is not None else f"from {_day(starts[piece - 1])}"
    return Step("note", f"{where} the week of {iso} holds: {week_text(period.weekend, period.working_hours)}",
                iso if forward or piece == len(starts) else date.fromordinal(starts[piece] - 1).isoformat())


def week_text(weekend, working_hours) -> str:
    """A week in words: ``weekend`` (ISO weekdays) and ``working_hours``
    (``working_hours[i]``: the intervals of ISO weekday ``i + 1``), days in
    a row with the same hours joined: "weekend Monday, Saturday, Sunday;
    Tuesday–Friday 08:00–17:00" ("no weekend", "no working hours" when so)."""
    names = ", ".join(WEEKDAY_NAMES[d - 1] for d in sorted(weekend))
    parts = [f"weekend {names}" if names else "no weekend"]
    runs: list[list] = []  # [first weekday, last weekday, hours text]
    for wd, intervals in enumerate(working_hours, start=1):
        if not intervals or wd in weekend:
            continue
        text = ", ".join("–".join(iv.text()) for iv in intervals)
        if runs and runs[-1][2] == text and runs[-1][1] == wd - 1:
            runs[-1][1] = wd
        else:
            runs.append([wd, wd, text])
    for first, last, text in runs:
        days = WEEKDAY_NAMES[first - 1] if first == last else f"{WEEKDAY_NAMES[first - 1]}–{WEEKDAY_NAMES[last - 1]}"
        parts.append(f"{days} {text}")
    if not runs:
        parts.append("no working hours")
    return "; ".join(parts)


def _walk(o0: int, od: int) -> tuple[range, int]:
    step = 1 if od >= o0 else -1
    return range(o0 + step, od + step, step), step


def _summary(cc: CompiledCalendar, a: int, b: int) -> Step:
    """Counts for dates a..b inclusive (a <= b)."""
    total = b - a + 1
    business = cc.count_business_days(a, b + 1)
    return Step("summary", f"{_day(a)} … {_day(b)}: {total} dates, {business} business days, "
                           f"{total - business} closed (weekends, holidays, closed overrides)")


def _explain_days(start: int, due: int, d: Duration, cc: CompiledCalendar) -> list[Step]:
    zone = cc.zone
    o0, t0 = local_of(zone, start)
    od, _ = local_of(zone, due)
    if d.at_edge == "end":  # due at the next date's 00:00: the business day is the date before
        od -= 1
    steps: list[Step] = []
    dates, step = _walk(o0, od)
    n = 0
    for i, o in enumerate(dates):
        if i == DETAIL_DATES:
            rest = dates[i:]
            steps.append(_summary(cc, min(rest[0], rest[-1]), max(rest[0], rest[-1])))
            break
        iso = date.fromordinal(o).isoformat()
        if cc.is_business_day(o):
            n += 1
            steps.append(Step("count", f"{_day(o)}: business day {n} of {abs(d.days)}", iso))
        else:
            steps.append(Step("skip", f"{_day(o)}: skipped, {cc.closed_reason(o)}", iso))
    if d.is_relative:
        what = f"at {d.at_time // HOUR:02d}:{d.at_time // MINUTE % 60:02d}" if d.at_time is not None else (
            "at its first opening" if d.at_edge == "open" else
            "at its end (24:00, the next date's 00:00)" if d.at_edge == "end" else "at its last closing")
        steps.append(Step("note", f"{d.text!r}: the due time is that business day {what}"))
        if d.at_time is not None:
            steps.extend(_resolution(cc, od, d.at_time))
    else:
        hh = from_us(start).astimezone(zone).strftime("%H:%M:%S")
        steps.append(Step("note", f"business days keep the start's wall time {hh}"))
        steps.extend(_resolution(cc, od, t0))
    return steps


def _explain_hours(start: int, due: int, d: Duration, cc: CompiledCalendar) -> list[Step]:
    zone = cc.zone
    lo, hi = min(start, due), max(start, due)
    olo, _ = local_of(zone, lo)
    ohi, _ = local_of(zone, hi)
    steps: list[Step] = []
    if d.micros < 0:
        steps.append(Step("note", "a negative amount counts backwards from the start"))
    total = 0
    of = fmt_amount(abs(d.micros))

    def describe(dates: range) -> None:
        nonlocal total
        for o in dates:
            iso = date.fromordinal(o).isoformat()
            pieces = [(max(a, lo), min(b, hi)) for a, b in cc.segments(o) if min(b, hi) > max(a, lo)]
            day = _day(o) if pieces else ""
            for a, b in pieces:
                total += b - a
                steps.append(Step("open", f"{day} {_clock(cc, a)}–{_clock(cc, b)}: {fmt_amount(b - a)} "
                                          f"(total {fmt_amount(total)} of {of})", iso, start_us=a, end_us=b, amount_us=b - a))
            if not pieces and olo <= o <= ohi and not cc.is_business_day(o):
                steps.append(Step("skip", f"{_day(o)}: no open time, {cc.closed_reason(o)}", iso))

    dates = range(olo - 1, ohi + 1)
    half = DETAIL_DATES // 2
    if len(dates) <= DETAIL_DATES + 4:
        describe(dates)
    else:
        describe(dates[:half])
        m0, m1 = dates[half], dates[-half - 1]
        middle = cc.open_time(m0, m1 + 1)
        total += middle
        steps.append(_summary(cc, m0, m1))
        steps.append(Step("open", f"{_day(m0)} … {_day(m1)}: {fmt_amount(middle)} of open time "
                                  f"(total {fmt_amount(total)} of {of})", amount_us=middle))
        describe(dates[-half:])
    return steps


def _explain_nominal(start: int, d: Duration, cc: CompiledCalendar) -> list[Step]:
    n = d.nominal
    assert n is not None
    zone = cc.zone
    o0, t0 = local_of(zone, start)
    steps = []
    if n.years or n.months:
        steps.append(Step("note", f"add {n.years} years {n.months} months to {date.fromordinal(o0).isoformat()}; "
                                  "a day past the month's end is clamped to its last day"))
    if n.weeks or n.days:
        steps.append(Step("note", f"add {n.weeks} weeks {n.days} days to the local date, keeping the wall time"))
    if n.years or n.months or n.weeks or n.days:
        steps.append(Step("note", "the date part is nominal: a day keeps the wall time across DST"))
    if n.time_us:
        steps.append(Step("note", f"then add {fmt_amount(n.time_us)} of elapsed time (the time part is exact)",
                          amount_us=n.time_us))
    return steps


_ROLL_WORDS = {
    Roll.FOLLOWING: "the first business day after it",
    Roll.PRECEDING: "the last business day before it",
}


def _why_closed(cc: CompiledCalendar, o: int) -> str:
    """``"a weekend day"``, ``"a holiday (Christmas Day)"``, ``"closed by override (Inventory)"``."""
    reason = cc.closed_reason(o) or "not a business day"
    if reason == "weekend":
        return "a weekend day"
    return f"a {reason}" if reason.startswith("holiday") else reason


def _explain_landing(start: int, d: Duration, cc: CompiledCalendar) -> list[Step]:
    """What the landing rule (docs/semantics.md §15) did: the unrolled due
    time, whether and why its date rolled, and the time on the final date."""
    landing = add_landed_us(start, d, cc)
    zone = cc.zone
    o, final = landing.unrolled_date, landing.final_date
    iso_o, iso_final = date.fromordinal(o).isoformat(), date.fromordinal(final).isoformat()
    assert d.roll is not None
    steps = [Step("note", f"without the landing rule the due time is {format_local(landing.unrolled, zone)} "
                          f"({_day(o)})", iso_o, start_us=landing.unrolled)]
    _, start_wall = local_of(zone, start)
    if d.nominal is not None and not d.nominal.time_us and start_wall != local_of(zone, landing.unrolled)[1]:
        steps.extend(_resolution(cc, o, start_wall))  # the start's wall time fell in a gap on the unrolled date
    rule = d.roll.value
    if final == o:
        steps.append(Step("roll", f"{_day(o)} is a business day: not rolled ({rule})", iso_o))
    elif d.roll in _ROLL_WORDS:
        steps.append(Step("roll", f"{_day(o)} is {_why_closed(cc, o)}: rolled to {_day(final)} "
                                  f"({rule}: {_ROLL_WORDS[d.roll]})", iso_final))
    else:
        first = "following" if d.roll is Roll.MODIFIED_FOLLOWING else "preceding"
        if (final > o) == (first == "following"):
            steps.append(Step("roll", f"{_day(o)} is {_why_closed(cc, o)}: rolled to {_day(final)} "
                                      f"({rule}: the {first} business day, in the same month)", iso_final))
        else:
            other = cc.nth_after(o, 1) if first == "following" else cc.nth_before(o, 1)
            d_o, d_final = date.fromordinal(o), date.fromordinal(final)
            beyond = "" if (d_o.year, d_o.month) == (d_final.year, d_final.month) else (
                f", and no business day {'precedes' if first == 'following' else 'follows'} it in its month either")
            steps.append(Step("roll", f"{_day(o)} is {_why_closed(cc, o)}: the {first} business day, {_day(other)}, "
                                      f"is in another month{beyond}, so rolled to {_day(final)} ({rule})", iso_final))
    if d.at_time is not None:
        steps.append(Step("note", f"the landing time puts the due time at {d.at_time // HOUR:02d}:"
                                  f"{d.at_time // MINUTE % 60:02d} on {iso_final}", iso_final))
        steps.extend(_resolution(cc, final, d.at_time))
    elif d.at_edge is not None:
        what = {"open": "its first opening", "close": "its last closing",
                "end": "its end (24:00, the next date's 00:00)"}[d.at_edge]
        steps.append(Step("note", f"the landing time '{d.at_edge}' puts the due time at {what}: "
                                  f"{format_local(landing.due, zone)}", iso_final, start_us=landing.due))
    elif final != o:
        _, wall = local_of(zone, landing.unrolled)
        hh = from_us(landing.unrolled).astimezone(zone).strftime("%H:%M:%S")
        steps.append(Step("note", f"the rolled due time keeps the unrolled due time's wall time {hh}", iso_final))
        steps.extend(_resolution(cc, final, wall))
    return steps


def _resolution(cc: CompiledCalendar, o: int, us_of_day: int) -> list[Step]:
    """Say how docs/semantics.md §1 resolved the wall time on date ``o`` if it was a gap or fold."""
    zone = cc.zone
    if zone.key == "UTC":
        return []
    sec = us_of_day // SECOND
    naive = datetime.combine(date.fromordinal(o), datetime.min.time()) + timedelta(microseconds=us_of_day)
    first = naive.replace(tzinfo=zone, fold=0)
    second = naive.replace(tzinfo=zone, fold=1)
    wall = f"{sec // 3600:02d}:{sec // 60 % 60:02d}"
    if first.utcoffset() == second.utcoffset():
        return []
    instant = resolve(zone, o, us_of_day)
    back = from_us(instant).astimezone(zone).replace(tzinfo=None)
    # These texts are part of recorded answers (their "(SPEC §1)" is the rule
    # docs/semantics.md §1.1 states): reworded only with a new RULES_VERSION.
    if back != naive:
        return [Step("resolve", f"{wall} on {date.fromordinal(o).isoformat()} does not exist (DST gap): moved forward "
                                f"by the gap's length to {back.strftime('%H:%M')} (SPEC §1)", start_us=instant)]
    return [Step("resolve", f"{wall} on {date.fromordinal(o).isoformat()} happens twice (DST fold): the earlier "
                            f"one, {format_local(instant, zone)}, is taken (SPEC §1)", start_us=instant)]


def _dst_steps(lo: int, hi: int, cc: CompiledCalendar) -> list[Step]:
    zone = cc.zone
    steps = []
    crossed = transitions_between(zone, lo, hi + 1)
    for t in crossed[:20]:
        before, after = offset_us(zone, t - 1), offset_us(zone, t)
        wall_before = from_us(t + before).strftime("%H:%M")
        wall_after = from_us(t + after).strftime("%H:%M")
        change = fmt_amount(abs(after - before))
        kind = "forward" if after > before else "back"
        steps.append(Step("dst", f"DST: at {from_us(t).isoformat().replace('+00:00', 'Z')} clocks went {kind} {change} "
                                 f"({wall_before} became {wall_after} local); open intervals spanning it are that much "
                                 f"{'shorter' if after > before else 'longer'}", start_us=t, amount_us=after - before))
    if len(crossed) > 20:
        steps.append(Step("dst", f"… and {len(crossed) - 20} more DST changes up to "
                                 f"{from_us(crossed[-1]).isoformat().replace('+00:00', 'Z')}"))
    return steps
