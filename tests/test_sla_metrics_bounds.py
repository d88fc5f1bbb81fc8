"""EvaluateSla with metrics held to what the one-clock path and
ApplyClockEvent hold (docs/semantics.md §17): the holiday horizon and a
bundle's years, the fields an out-of-range instant is named on, the running
intervals a metric's state may carry, and a RETARGET anchored at the start
measured with a running total equal to ApplyClockEvent's."""

from __future__ import annotations

import shutil
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from duetime.api.convert import EVALUATE_SLA
from duetime.app.answers import SlaMetricsPolicy, evaluate_metric_events
from duetime.app.calendars import ResolvedCalendar
from duetime.catalog import Catalog
from duetime.compose import build_app
from duetime.core import InvalidArgument, OutOfRange, parse_instant, to_us
from duetime.core.calendar import Calendar
from duetime.core.clock import Anchor, ClockEvent, EventType, apply_event, start_clock
from duetime.core.sla import BusinessEvent, Tier
from duetime.core.sla_metrics import Metric, MetricPolicy, _Run, evaluate_metrics, parse_warning
from duetime.ledger import MemoryLedger
from duetime.v1 import duetime_pb2 as pb

CALENDARS = Path(__file__).resolve().parents[1] / "calendars"
H = 3_600_000_000


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    root = tmp_path_factory.mktemp("cal") / "calendars"
    shutil.copytree(CALENDARS, root)
    return build_app(MemoryLedger(), Catalog.load(root))


def ev(type_, time, **attributes):
    e = pb.BusinessEvent(type=type_, attributes=attributes)
    e.time.FromJsonString(time)
    return e


def refusal(app, req):
    with pytest.raises(Exception) as info:
        app.answer(EVALUATE_SLA, req)
    return info.value


def test_metrics_past_the_bundle_years_are_out_of_range_as_the_one_clock_path_says(app):
    # 2031-01-01 is a holiday the bundle (2024-2030) does not know: first_response (8bh, low) would be due then
    err = refusal(app, pb.EvaluateSlaRequest(policy="support-sla", events=[
        ev("start", "2030-12-30T08:00:00Z", tier="low")]))
    assert isinstance(err, OutOfRange)
    assert [v.field for v in err.violations] == ["events[0].time"]
    assert err.violations[0].description.startswith("support-desk-example covers 2024–2030 only")
    one = refusal(app, pb.EvaluateSlaRequest(policy="support-contract", events=[
        ev("start", "2030-12-30T08:00:00Z", tier="priority")]))
    assert isinstance(one, OutOfRange) and [v.field for v in one.violations] == ["events[0].time"]


def test_metrics_name_the_first_event_whose_clock_leaves_the_years(app):
    err = refusal(app, pb.EvaluateSlaRequest(policy="support-sla", events=[
        ev("start", "2030-12-02T08:00:00Z", tier="low"), ev("agent_reply", "2030-12-02T09:00:00Z"),
        ev("awaiting_customer", "2030-12-02T09:00:00Z"), ev("customer_reply", "2030-12-30T08:00:00Z")]))
    assert isinstance(err, OutOfRange) and [v.field for v in err.violations] == ["events[3].time"]


def _inline_policy(holidays_until_year: int) -> SlaMetricsPolicy:
    cal = Calendar.from_text(time_zone="UTC", holidays=[(f"{holidays_until_year}-12-25", "Christmas")])
    resolved = ResolvedCalendar(cal, "inline")
    metric = Metric("m", {"a": Tier("a", "3bd", cal, "inline")}, {"start": {"NOT_STARTED": "START"}}, {})
    return SlaMetricsPolicy(None, MetricPolicy("p", "v", "a", ("a",), (metric,)), True, {"inline": resolved})


def test_metrics_report_the_warnings_of_the_dates_their_clocks_span():
    start = to_us(parse_instant("2026-12-30T10:00:00Z", "t"))
    answer = evaluate_metric_events(_inline_policy(2026), [BusinessEvent("start", start)], None)
    assert answer.warnings == ("no holidays known for 2027: the calendar lists holidays up to 2026 only",)
    assert evaluate_metric_events(_inline_policy(2027), [BusinessEvent("start", start)], None).warnings == ()


def test_out_of_range_inside_a_replay_names_the_event_time():
    cal = Calendar.from_text(time_zone="UTC", working_hours=[(d, [("00:00", "24:00")]) for d in range(1, 8)],
                             weekend=[])
    tiers = {"a": Tier("a", "10h", cal), "b": Tier("b", "20h", cal)}
    metric = Metric("m", tiers, {"start": {"NOT_STARTED": "START"}, "p": {"RUNNING": "PAUSE"},
                                 "r": {"PAUSED": "RESUME"}, "t": {"RUNNING": "RETARGET", "PAUSED": "RETARGET"}},
                    {"t": Anchor.START})
    policy = MetricPolicy("p", "v", "a", ("a", "b"), (metric,))
    at = lambda text: to_us(parse_instant(text, "t"))  # noqa: E731
    for history, field in [
        ([("start", "2199-12-31T10:00:00Z"), ("p", "2199-12-31T11:00:00Z"), ("r", "2199-12-31T23:00:00Z")],
         "events[2].time"),
        ([("start", "2199-12-31T10:00:00Z"), ("t", "2199-12-31T19:00:00Z")], "events[1].time"),
        ([("start", "2199-12-31T16:00:00Z")], "events[0].time"),
    ]:
        events = [BusinessEvent(e, at(t), {"tier": "b"} if e == "t" else {}) for e, t in history]
        with pytest.raises(OutOfRange) as info:
            evaluate_metrics(policy, events)
        assert [v.field for v in info.value.violations] == [field]


def _pauses(n: int) -> list[pb.BusinessEvent]:
    t = datetime(2026, 12, 1, 9, 0, tzinfo=timezone.utc)
    events = [ev("start", t.isoformat(), tier="low")]
    for _ in range(n):
        for kind in ("awaiting_customer", "customer_reply"):
            t += timedelta(minutes=1)
            events.append(ev(kind, t.isoformat()))
    return events


def test_a_metric_keeps_at_most_100_running_intervals_a_cycle(app):
    # 100 pauses of resolution: 100 intervals, and its state continues with ApplyClockEvent
    r = app.answer(EVALUATE_SLA, pb.EvaluateSlaRequest(policy="support-sla", events=_pauses(100)))
    resolution = next(m for m in r.metrics if m.name == "resolution")
    assert len(resolution.state.running_intervals) == 100
    err = refusal(app, pb.EvaluateSlaRequest(policy="support-sla", events=_pauses(120)))
    assert isinstance(err, InvalidArgument)
    assert [v.field for v in err.violations] == ["events[201]"]
    assert err.violations[0].description.startswith(
        "awaiting_customer would give metric 'resolution' 101 running intervals in one cycle; a clock keeps at "
        "most 100")


CAL = Calendar.from_text(time_zone="Europe/Zagreb", working_hours=[
    (d, [("09:00", "12:00"), ("13:00", "17:00")]) for d in range(1, 6)])


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 20 * 60), st.sampled_from(["PAUSE", "RESUME", "RETARGET"]),
                          st.sampled_from(["16bh", "3bd", "40h", "2bh"])), max_size=25),
       st.sampled_from(["8bh", "2bd", "30h"]))
def test_a_retarget_from_the_start_with_a_running_total_equals_apply_clock_event(steps, target):
    """Oracle: the running total gives the state apply_event gives, event by
    event (a metric's run and the one-clock replay share it)."""
    from duetime.core.sla import retarget_from_start
    metric = Metric("m", {"a": Tier("a", target, CAL)}, {}, {})
    run = _Run(metric)
    run.tier = "a"
    t = to_us(parse_instant("2026-11-30T08:00:00Z", "t"))
    state = run.state = start_clock(target, t, CAL)
    spent: dict = {}
    for gap, kind, new_target in steps:
        t += gap * 60_000_000
        running = state.status.value == "RUNNING"
        if (kind == "PAUSE" and not running) or (kind == "RESUME" and running):
            continue
        event = ClockEvent(EventType(kind), t, new_target if kind == "RETARGET" else "", Anchor.START)
        expected = apply_event(state, event, CAL)
        if kind == "RETARGET":
            assert run.retarget_from_start(event, None) == expected
            assert retarget_from_start(state, event, CAL, spent) == expected
        state = run.state = expected


def _falls_at_by_measuring(state, left, cal, floor):
    """The rule of docs/semantics.md §17 measured out: the open time from
    ``floor`` to the deadline decides whether W lies before ``floor``."""
    from duetime.core.clock import Measure, _add_amount, _between, _compiled
    from duetime.core.engine import first_open_at_or_after
    d = state.deadline_us
    business = state.measure is not Measure.ELAPSED
    avail = _between(state.measure, floor, d, cal) if d >= floor else d - floor
    if left > avail:
        return floor
    if left == avail:
        return min(first_open_at_or_after(_compiled(state.measure, cal), floor), d) if business and d > floor else floor
    w = d if left <= 0 else _add_amount(state.measure, d, -left, cal, "warnings")
    if business:
        w = min(first_open_at_or_after(_compiled(state.measure, cal), w), d)
    return max(w, floor)


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(["8bh", "2bd", "30h", "1bh"]), st.integers(0, 6 * 24 * 4), st.integers(0, 4 * 24 * 4),
       st.one_of(st.integers(0, 40 * 4), st.sampled_from([-1, 0])), st.booleans())
def test_a_warning_falls_where_measuring_the_open_time_says(target, start_q, floor_q, left_q, exact):
    """Oracle: one walk back from the deadline places a warning where
    measuring the open time from the floor does, the floor in open or closed
    time, the amount left more, less or exactly what is open."""
    from duetime.core.clock import _between
    from duetime.core.sla_metrics import _falls_at
    q = 15 * 60_000_000
    start = to_us(parse_instant("2026-11-28T00:00:00Z", "t")) + start_q * q
    state = start_clock(target, start, CAL)
    floor = start + floor_q * q
    left = _between(state.measure, floor, state.deadline_us, CAL) if exact else left_q * q
    assert _falls_at(state, left, CAL, floor) == _falls_at_by_measuring(state, left, CAL, floor)


def _tier_changes(n: int) -> list[pb.BusinessEvent]:
    t = datetime(2026, 12, 1, 9, 0, tzinfo=timezone.utc)
    events = [ev("start", t.isoformat(), tier="low")]
    while len(events) < n:
        t += timedelta(minutes=7)
        events.append(ev("priority_change", t.isoformat(), tier=("high", "low")[len(events) % 2]))
    return events


def test_an_event_weighs_each_metric_and_its_calendar():
    from duetime.app.limits import sla_event_weight
    two = Calendar.from_text(time_zone="UTC", working_hours=[(d, [("09:00", "12:00"), ("13:00", "17:00")])
                                                             for d in range(1, 6)])
    many = Calendar.from_text(time_zone="UTC", working_hours=[
        (1, [(f"{h:02d}:00", f"{h:02d}:30") for h in range(24)])])
    assert sla_event_weight([[two], [two, many], []]) == (11 + 2) + (11 + 24) + (11 + 1)


def test_a_history_under_a_policy_with_metrics_is_bounded_in_weight(app):
    # support-sla: 3 metrics on a calendar of two intervals a day, 39 an event: 461 events in 18,000
    r = app.answer(EVALUATE_SLA, pb.EvaluateSlaRequest(policy="support-sla", events=_tier_changes(461)))
    assert [m.cycles for m in r.metrics] == [1, 0, 1]
    err = refusal(app, pb.EvaluateSlaRequest(policy="support-sla", events=_tier_changes(462)))
    assert isinstance(err, InvalidArgument) and [v.field for v in err.violations] == ["events"]
    assert err.violations[0].description == (
        "has 462 events; under policy 'support-sla' (3 metrics) an event weighs 39 (11 per metric plus the most "
        "working intervals one day of its calendar has), so at most 461 events are allowed in one request "
        "(18000 in weight): evaluate the history since a later event that starts every metric's cycle anew, or "
        "a policy with fewer metrics")
    # a one-clock policy is one clock: 1,000 events, as before
    t0 = datetime(2026, 12, 1, 8, 0, tzinfo=timezone.utc)
    one = app.answer(EVALUATE_SLA, pb.EvaluateSlaRequest(policy="support-contract", events=[
        ev("start" if i == 0 else "customer_reply", (t0 + timedelta(minutes=i)).isoformat()) for i in range(1000)]))
    assert len(one.timeline) == 1000


def test_start_clock_refuses_a_threshold_without_a_unit(app):
    from duetime.api.convert import START_CLOCK
    request = pb.StartClockRequest(target="14d", warning_thresholds=["75%", "75"])
    request.start_time.FromJsonString("2026-12-01T09:00:00Z")
    with pytest.raises(InvalidArgument) as info:
        app.answer(START_CLOCK, request)
    assert [(v.field, v.description) for v in info.value.violations] == [(
        "warning_thresholds[1]", "'75' has no unit: write a share of the target consumed with '%' (e.g. '75%') "
                                 "or an amount left with its unit (e.g. '30bm', '2h')")]
