"""A single clock's warnings at the instant of its start or an event
(docs/semantics.md §17): StartClock and ApplyClockEvent list in
`fell_at_event` what falls at that instant, and `next_action` what falls
after it, so a workflow that arms one timer misses nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from duetime.api.convert import CLOCK_EVENT, START_CLOCK
from duetime.catalog import Catalog
from duetime.compose import build_app
from duetime.ledger import MemoryLedger
from duetime.v1 import duetime_pb2 as pb

CALENDARS = Path(__file__).resolve().parents[1] / "calendars"
WARNINGS = ["75%", "30bm"]
WARNING, BREACH = pb.SLA_DUE_KIND_WARNING, pb.SLA_DUE_KIND_BREACH


@pytest.fixture(scope="module")
def app():
    return build_app(MemoryLedger(), Catalog.load(CALENDARS))


def _due(items):
    return [(d.metric, d.kind, d.threshold) for d in items]


def _next(answer):
    if not answer.HasField("next_action"):
        return None
    return answer.next_action.time.ToJsonString(), _due(answer.next_action.due)


def _start(app, target="8bh", when="2026-12-03T15:00:00+01:00", warnings=WARNINGS):
    # support-desk-example: 08:00-12:00 and 13:00-17:00, Monday to Friday, Europe/Zagreb
    r = pb.StartClockRequest(target=target, calendar=pb.Calendar(bundle="support-desk-example"),
                             warning_thresholds=warnings)
    r.start_time.FromJsonString(when)
    return app.answer(START_CLOCK, r)


def _apply(app, state, when, kind, warnings=WARNINGS, **fields):
    r = pb.ApplyClockEventRequest(state=state, event=pb.ClockEvent(type=kind, **fields), warning_thresholds=warnings)
    r.event.time.FromJsonString(when)
    return app.answer(CLOCK_EVENT, r)


def test_start_lists_nothing_at_the_start_and_the_first_warning_next(app):
    a = _start(app)
    assert a.state.deadline_time.ToJsonString() == "2026-12-04T14:00:00Z"  # Friday 15:00+01:00
    assert list(a.fell_at_event) == []
    # 2bh left: Friday 13:00+01:00 (the lunch hour 12:00-13:00 is closed)
    assert _next(a) == ("2026-12-04T12:00:00Z", [("", WARNING, "75%")])


def test_a_warning_prevented_by_a_pause_at_its_instant_falls_at_the_resume(app):
    paused = _apply(app, _start(app).state, "2026-12-04T12:30:00+01:00", pb.CLOCK_EVENT_TYPE_PAUSE)
    assert paused.state.remaining.ToJsonString() == "7200s"  # exactly the 75% warning's 2bh
    assert (list(paused.fell_at_event), _next(paused)) == ([], None)
    resumed = _apply(app, paused.state, "2026-12-07T09:00:00+01:00", pb.CLOCK_EVENT_TYPE_RESUME)
    assert resumed.state.deadline_time.ToJsonString() == "2026-12-07T10:00:00Z"  # Monday 11:00+01:00
    assert _due(resumed.fell_at_event) == [("", WARNING, "75%")]
    assert _next(resumed) == ("2026-12-07T09:30:00Z", [("", WARNING, "30bm")])  # 10:30+01:00


def test_a_warning_that_fell_before_the_pause_does_not_fall_again_at_the_resume(app):
    paused = _apply(app, _start(app).state, "2026-12-04T14:00:00+01:00", pb.CLOCK_EVENT_TYPE_PAUSE)
    assert paused.state.remaining.ToJsonString() == "3600s"  # the 75% warning fell at 13:00
    resumed = _apply(app, paused.state, "2026-12-07T09:00:00+01:00", pb.CLOCK_EVENT_TYPE_RESUME)
    assert list(resumed.fell_at_event) == []
    assert _next(resumed) == ("2026-12-07T08:30:00Z", [("", WARNING, "30bm")])  # 09:30+01:00


def test_a_retarget_anchored_at_the_start_that_is_overdue_breaches_at_the_event(app):
    r = _apply(app, _start(app).state, "2026-12-04T12:00:00+01:00", pb.CLOCK_EVENT_TYPE_RETARGET,
               target="2bh", anchor=pb.RETARGET_ANCHOR_START)
    # 6bh used (Thursday 15-17, Friday 08-12) of 2bh: 4bh overdue, due Friday 08:00+01:00
    assert r.state.deadline_time.ToJsonString() == "2026-12-04T07:00:00Z"
    assert _due(r.fell_at_event) == [("", WARNING, "75%"), ("", WARNING, "30bm"), ("", BREACH, "")]
    assert _next(r) is None


def test_a_retarget_anchored_at_the_start_arms_the_warnings_again(app):
    r = _apply(app, _start(app).state, "2026-12-04T09:00:00+01:00", pb.CLOCK_EVENT_TYPE_RETARGET,
               target="4bh", anchor=pb.RETARGET_ANCHOR_START)
    # 4bh from Thursday 15:00: due Friday 10:00; 75% (1bh left) was due at 09:00, the event's instant
    assert r.state.deadline_time.ToJsonString() == "2026-12-04T09:00:00Z"
    assert _due(r.fell_at_event) == [("", WARNING, "75%")]
    assert _next(r) == ("2026-12-04T08:30:00Z", [("", WARNING, "30bm")])


def test_a_warning_not_less_than_the_target_falls_at_the_start(app):
    a = _start(app, target="1bh", warnings=["1bh", "30bm"])
    assert _due(a.fell_at_event) == [("", WARNING, "1bh")]
    assert _next(a) == ("2026-12-03T14:30:00Z", [("", WARNING, "30bm")])


def test_without_thresholds_nothing_is_listed(app):
    a = _start(app, warnings=[])
    r = _apply(app, a.state, "2026-12-04T12:00:00+01:00", pb.CLOCK_EVENT_TYPE_RETARGET, warnings=[],
               target="2bh", anchor=pb.RETARGET_ANCHOR_START)
    assert (list(r.fell_at_event), r.HasField("next_action")) == ([], False)


def test_evaluate_sla_stamps_an_overdue_retarget_at_the_event_as_the_single_clock_does(app):
    from duetime.api.convert import EVALUATE_SLA
    r = pb.EvaluateSlaRequest(policy="support-sla")
    for kind, when, attributes in [("start", "2026-12-03T15:00:00+01:00", {}),
                                   ("priority_change", "2026-12-04T12:00:00+01:00", {"tier": "high"})]:
        e = r.events.add(type=kind, attributes=attributes)
        e.time.FromJsonString(when)
    first = app.answer(EVALUATE_SLA, r).metrics[0]
    assert first.name == "first_response"
    assert [(e.action, e.threshold, e.time.ToJsonString(), e.new_deadline_time.ToJsonString())
            for e in first.timeline[1:]] == [
        ("RETARGET", "", "2026-12-04T11:00:00Z", "2026-12-04T07:00:00Z"),
        ("WARNING", "75%", "2026-12-04T11:00:00Z", "2026-12-04T07:00:00Z"),
        ("WARNING", "30bm", "2026-12-04T11:00:00Z", "2026-12-04T07:00:00Z"),
        ("BREACH", "", "2026-12-04T11:00:00Z", "2026-12-04T07:00:00Z")]
    assert first.breach_time.ToJsonString() == "2026-12-04T11:00:00Z"
