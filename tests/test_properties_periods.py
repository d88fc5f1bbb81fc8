"""Property tests of the calendar queries (docs/semantics.md §9.1) against the
oracle (tests/oracle.py), with the biased calendars and instants of
tests/test_properties.py (DST changes, openings and closings, holidays next
to the start) plus month ends:

- the open periods are the oracle's, each with its date, and their sum is
  the business time between (and the minute-by-minute count on whole minutes);
- pages put together are the whole list;
- the count of business days equals a day-by-day count;
- the last opening and closing are the oracle's.

Run long:  HYPOTHESIS_PROFILE=fuzz pytest tests/test_properties_periods.py
"""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone

from hypothesis import given, note
from hypothesis import strategies as st

import oracle as O
from oracle import DAY, HOUR, MINUTE
from test_properties import cases, core_calendar, show

from duetime.core.engine import between_us
from duetime.core.periods import count_business_days, open_periods, run_bounds

UTC = timezone.utc
WINDOW_DAYS = 12
"""Days before the instant the oracle looks at for the last run."""


@st.composite
def spans(draw):
    """(spec, oracle calendar, a, b) with b ≥ a: a near trouble (or at a month
    end), b minutes to weeks later, or at an opening or closing."""
    spec, ocal, a = draw(cases(allow_no_hours=True))
    if draw(st.integers(0, 4)) == 0:  # a month end in the calendar's zone, at a trouble minute
        d = O.local_date(ocal.zone, a)
        first_next = (d.replace(day=28) + timedelta(days=4)).replace(day=1)
        wall = datetime.combine(first_next - timedelta(days=1), datetime.min.time())
        a = O.resolve(ocal.zone, wall + timedelta(minutes=draw(st.sampled_from([0, 540, 1019, 1020, 1380]))))
    b = a + draw(st.one_of(
        st.integers(0, 3 * DAY),
        st.integers(0, 20).map(lambda d: d * DAY),
        st.integers(0, 20 * 24 * 60).map(lambda m: m * MINUTE),
        st.integers(0, 5),
    ))
    return spec, ocal, a, b


@given(spans())
def test_open_periods_equal_oracle_and_sum_to_business_time(case):
    spec, ocal, a, b = case
    cal = core_calendar(spec)
    note(f"calendar={spec!r}\na={show(ocal.zone, a)}\nb={show(ocal.zone, b)}")
    page = open_periods(cal.compiled, a, b, 1000)
    got = [(p.start_us, p.end_us, p.local_date) for p in page.periods]
    want = O.open_periods(ocal, a, b)
    assert got[:len(want)] == want[:1000]
    assert page.resume_us is None or len(want) > 1000
    total = sum(e - s for s, e, _ in got)
    if page.resume_us is None:
        assert total == O.between(ocal, a, b) == between_us(a, b, cal.compiled)


@given(spans())
def test_open_periods_sum_to_the_minute_count(case):
    spec, ocal, a, b = case
    a -= a % MINUTE
    b = min(b - b % MINUTE, a + 4 * DAY)
    cal = core_calendar(spec)
    minutes_only = all(x % MINUTE == 0 and y % MINUTE == 0 for x, y in ocal.open_segments(a, b))
    page = open_periods(cal.compiled, a, b, 1000)
    if minutes_only:
        assert sum(p.end_us - p.start_us for p in page.periods) == O.open_minutes(ocal, a, b)


@given(spans(), st.integers(1, 4))
def test_pages_put_together_are_the_whole_list(case, size):
    spec, ocal, a, b = case
    cc = core_calendar(spec).compiled
    whole = open_periods(cc, a, b, 1000).periods
    pieces, start = [], a
    while True:
        page = open_periods(cc, start, b, size)
        assert len(page.periods) <= size
        pieces.extend(page.periods)
        if page.resume_us is None:
            break
        start = page.resume_us
    assert pieces == list(whole)


@given(st.data())
def test_count_equals_a_day_by_day_count(data):
    spec, ocal, a = data.draw(cases(allow_no_hours=True))
    first = O.local_date(ocal.zone, a) + timedelta(days=data.draw(st.integers(-40, 5)))
    if data.draw(st.booleans()):  # from or to a month end
        first = (first.replace(day=28) + timedelta(days=4)).replace(day=1) - timedelta(days=1)
    last = first + timedelta(days=data.draw(st.one_of(st.integers(0, 70), st.integers(0, 400))))
    cc = core_calendar(spec).compiled
    note(f"calendar={spec!r}\n{first}..{last}")
    assert count_business_days(cc, first.toordinal(), last.toordinal()) == O.count_business_days(ocal, first, last)


@given(st.data())
def test_last_opening_and_closing_equal_oracle(data):
    spec, ocal, t = data.draw(cases())
    t += data.draw(st.sampled_from([0, 0, 1, -1, MINUTE, HOUR, -HOUR]))
    cal = core_calendar(spec)
    want_open, want_close = O.last_run(ocal, t, WINDOW_DAYS)
    note(f"calendar={spec!r}\nt={show(ocal.zone, t)}")
    bounds = run_bounds(cal.compiled, t)
    # within the oracle's window the answers must agree
    if want_open is not None and want_open > t - (WINDOW_DAYS - 2) * DAY:
        assert bounds.last_open_us == want_open
    if want_close is not None:
        assert bounds.last_close_us == want_close
