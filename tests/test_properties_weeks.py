"""Property tests of weeks that change by date (docs/semantics.md §16)
against the oracle (tests/oracle.py), with the biased calendars and instants
of tests/test_properties.py (DST changes, openings and closings, holidays
next to the start) and week periods that begin within days of the start:

- ``bh``/``bm`` and ``bd`` due times, business time and business days
  between are the oracle's;
- the calendar queries (open periods, business days in a range, the last
  run) keep working: the open periods are the oracle's and sum to the
  business time, the count is a day-by-day count, the last run the oracle's.

Run long:  HYPOTHESIS_PROFILE=fuzz pytest tests/test_properties_weeks.py
"""

from __future__ import annotations

from datetime import timedelta

from hypothesis import given, note
from hypothesis import strategies as st

import oracle as O
from oracle import DAY, HOUR, MINUTE
from test_properties import as_datetime, bt_durations, calendar_specs, cases, compare_due, core_calendar, show, starts

import duetime.core as core
from duetime.core.engine import between_us
from duetime.core.periods import count_business_days, open_periods, run_bounds


#: 2011-12-30T10:00Z: Samoa's 2011-12-31 00:00, right after its skipped date.
APIA_SKIPPED = 1_325_239_200_000_000


@st.composite
def week_cases(draw, *, allow_no_hours: bool = False):
    """(spec with week periods, oracle calendar, start µs): 1–3 periods, the
    first within days of the start (so walks cross a boundary), each with its
    own weekend and hours (drawn as a calendar's, near the same DST change),
    the defaults, or — between two others — a week closed every day."""
    spec, _, start = draw(cases(allow_no_hours=allow_no_hours))
    zone_key = spec["time_zone"] or "UTC"
    d0 = O.local_date(zone_key, start)
    count = draw(st.integers(1, 3))
    offsets = sorted(draw(st.sets(st.integers(-4, 25), min_size=count, max_size=count)))
    periods = []
    for i, k in enumerate(offsets):
        kind = draw(st.integers(0, 5))
        if kind == 0:
            weekend, hours = None, None
        elif kind == 1 and i < count - 1:
            weekend, hours = list(range(1, 8)), None  # closed for a season
        else:
            other = draw(calendar_specs(zone_key, start, allow_no_hours=allow_no_hours))
            weekend, hours = other["weekend"], other["working_hours"]
        periods.append(((d0 + timedelta(days=k)).isoformat(), weekend, hours))
    spec = dict(spec, week_periods=periods)
    ocal = O.OCal.from_text(**spec)
    return spec, ocal, draw(starts(ocal, start))


@given(st.data())
def test_add_business_time_across_periods_equals_oracle(data):
    spec, ocal, start = data.draw(week_cases())
    text, _ = data.draw(bt_durations(ocal, start))
    compare_due(spec, ocal, data.draw(as_datetime(start, ocal.zone)), text)


@given(st.data())
def test_add_business_days_across_periods_equals_oracle(data):
    spec, ocal, start = data.draw(week_cases(allow_no_hours=True))
    n = data.draw(st.one_of(st.integers(-5, 5), st.integers(-40, 40)))
    compare_due(spec, ocal, data.draw(as_datetime(start, ocal.zone)), f"{n}bd")


@given(st.data())
def test_business_time_and_days_between_across_periods_equal_oracle(data):
    spec, ocal, a = data.draw(week_cases(allow_no_hours=True))
    b = a + data.draw(st.one_of(st.integers(-3 * DAY, 3 * DAY), st.integers(-40, 40).map(lambda d: d * DAY)))
    cal = core_calendar(spec)
    note(f"calendar={spec!r}\na={show(ocal.zone, a)}\nb={show(ocal.zone, b)}")
    a_dt, b_dt = data.draw(as_datetime(a, ocal.zone)), data.draw(as_datetime(b, ocal.zone))
    assert core.business_time_between(a_dt, b_dt, cal) == O.between(ocal, a, b)
    assert core.bd_between(a_dt, b_dt, cal) == O.bd_between(ocal, a, b)


@given(st.data())
def test_open_periods_across_periods_equal_oracle_and_sum_to_business_time(data):
    spec, ocal, a = data.draw(week_cases(allow_no_hours=True))
    b = a + data.draw(st.one_of(st.integers(0, 3 * DAY), st.integers(0, 30).map(lambda d: d * DAY)))
    cal = core_calendar(spec)
    note(f"calendar={spec!r}\na={show(ocal.zone, a)}\nb={show(ocal.zone, b)}")
    page = open_periods(cal.compiled, a, b, 1000)
    got = [(p.start_us, p.end_us, p.local_date) for p in page.periods]
    assert got == O.open_periods(ocal, a, b)
    assert sum(e - s for s, e, _ in got) == O.between(ocal, a, b) == between_us(a, b, cal.compiled)


@given(st.data())
def test_count_across_periods_equals_a_day_by_day_count(data):
    spec, ocal, a = data.draw(week_cases(allow_no_hours=True))
    first = O.local_date(ocal.zone, a) + timedelta(days=data.draw(st.integers(-10, 5)))
    last = first + timedelta(days=data.draw(st.integers(0, 80)))
    cc = core_calendar(spec).compiled
    note(f"calendar={spec!r}\n{first}..{last}")
    assert count_business_days(cc, first.toordinal(), last.toordinal()) == O.count_business_days(ocal, first, last)


@given(st.data())
def test_between_inverts_add_across_periods(data):
    """docs/semantics.md §4: business_time_between(s, s + Nbh) == N hours, across period boundaries."""
    spec, ocal, start = data.draw(week_cases())
    n = data.draw(st.integers(1, 120)) * data.draw(st.sampled_from([1, -1]))
    start_dt = data.draw(as_datetime(start, ocal.zone))
    cal = core_calendar(spec)
    try:
        due = core.compute_due(start_dt, f"{n}bh", cal)
    except core.OutOfRange:
        return
    note(f"calendar={spec!r}\nstart={show(ocal.zone, start)} {n}bh -> {due!r}")
    assert core.business_time_between(start_dt, due, cal) == n * HOUR


@given(st.data())
def test_last_run_across_periods_equals_oracle(data):
    spec, ocal, t = data.draw(week_cases())
    t += data.draw(st.sampled_from([0, 1, -1, HOUR, -HOUR]))
    cal = core_calendar(spec)
    window = 12
    want_open, want_close = O.last_run(ocal, t, window)
    note(f"calendar={spec!r}\nt={show(ocal.zone, t)}")
    bounds = run_bounds(cal.compiled, t)
    if want_open is not None and want_open > t - (window - 2) * DAY:
        assert bounds.last_open_us == want_open
    if want_close is not None:
        assert bounds.last_close_us == want_close


@given(st.data())
def test_last_run_beside_a_skipped_date_equals_oracle(data):
    """Samoa skipped 2011-12-30: Friday's open time lies on Saturday's wall
    times, so an earlier date's segment may end after a later date's
    (docs/semantics.md §1.1, §9.1). The last run still merges every segment
    that touches, whatever date owns it."""
    spec = data.draw(calendar_specs("Pacific/Apia", APIA_SKIPPED, force_trouble=data.draw(st.booleans())))
    ocal = O.OCal.from_text(**spec)
    t = APIA_SKIPPED + data.draw(st.integers(-3 * DAY, 3 * DAY).map(lambda s: s - s % MINUTE))
    t = data.draw(starts(ocal, t)) + data.draw(st.sampled_from([0, 1, -1, HOUR, -HOUR]))
    note(f"calendar={spec!r}\nt={show(ocal.zone, t)}")
    window = 12
    want_open, want_close = O.last_run(ocal, t, window)
    bounds = run_bounds(core_calendar(spec).compiled, t)
    if want_open is not None and want_open > t - (window - 2) * DAY:
        assert bounds.last_open_us == want_open
    if want_close is not None:
        assert bounds.last_close_us == want_close
