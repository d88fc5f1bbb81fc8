"""EvaluateSla with metrics, as_of_time and the next action on the wire
(docs/semantics.md §17): a policy with metrics, a one-clock policy unchanged
without as_of_time, and refusals naming their field."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from duetime.api.convert import EVALUATE_SLA
from duetime.catalog import Catalog
from duetime.compose import build_app
from duetime.core import InvalidArgument
from duetime.ledger import MemoryLedger
from duetime.v1 import duetime_pb2 as pb

CALENDARS = Path(__file__).resolve().parents[1] / "calendars"


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    root = tmp_path_factory.mktemp("cal") / "calendars"
    shutil.copytree(CALENDARS, root)
    return build_app(MemoryLedger(), Catalog.load(root))


def ev(type_, time, **attributes):
    e = pb.BusinessEvent(type=type_, attributes=attributes)
    e.time.FromJsonString(time)
    return e


def request(policy, events, as_of=None):
    r = pb.EvaluateSlaRequest(policy=policy, events=events)
    if as_of:
        r.as_of_time.FromJsonString(as_of)
    return r


TICKET = [ev("start", "2026-12-01T08:00:00Z", tier="high"),   # Tuesday 09:00+01:00
          ev("agent_reply", "2026-12-01T09:00:00Z"),
          ev("awaiting_customer", "2026-12-01T09:00:00Z"),
          ev("customer_reply", "2026-12-01T13:00:00Z")]


def test_policy_with_metrics(app):
    r = app.answer(EVALUATE_SLA, request("support-sla", TICKET))
    assert not r.HasField("state") and list(r.timeline) == []
    assert r.tier == "high" and r.policy_version == "support-sla@fc8edd68c67b"
    assert [(m.name, m.status, m.cycles, m.tier) for m in r.metrics] == [
        ("first_response", pb.SLA_METRIC_STATUS_STOPPED, 1, "high"),
        ("next_reply", pb.SLA_METRIC_STATUS_RUNNING, 1, "high"),
        ("resolution", pb.SLA_METRIC_STATUS_RUNNING, 1, "high"),
    ]
    assert r.metrics[1].state.deadline_time.ToJsonString() == "2026-12-02T08:00:00Z"
    assert r.next_action.time.ToJsonString() == "2026-12-02T07:00:00Z"
    assert [(d.metric, d.kind, d.threshold) for d in r.next_action.due] == [
        ("next_reply", pb.SLA_DUE_KIND_WARNING, "75%")]
    assert r.as_of_time.ToJsonString() == "2026-12-01T13:00:00Z"


def test_as_of_later_shows_what_fell(app):
    r = app.answer(EVALUATE_SLA, request("support-sla", TICKET, "2026-12-02T08:30:00Z"))
    fell = [(e.action, e.time.ToJsonString(), e.threshold) for e in r.metrics[1].timeline
            if e.action in ("WARNING", "BREACH")]
    # 4bh from Tuesday 14:00 (08-12/13-17): due Wednesday 09:00; 75% → 08:00, 30bm left → 08:30, breach 09:00
    assert fell == [("WARNING", "2026-12-02T07:00:00Z", "75%"), ("WARNING", "2026-12-02T07:30:00Z", "30bm"),
                    ("BREACH", "2026-12-02T08:00:00Z", "")]


def test_one_clock_policy_is_unchanged_without_as_of(app):
    events = [ev("start", "2026-12-11T09:00:00Z"), ev("customer_reply", "2026-12-14T09:00:00Z")]
    r = app.answer(EVALUATE_SLA, request("support-contract", events))
    assert list(r.metrics) == [] and not r.HasField("next_action") and not r.HasField("as_of_time")


def test_one_clock_policy_as_of_is_one_unnamed_metric(app):
    events = [ev("start", "2026-12-11T09:00:00Z"), ev("customer_reply", "2026-12-14T09:00:00Z")]
    plain = app.answer(EVALUATE_SLA, request("support-contract", events))
    r = app.answer(EVALUATE_SLA, request("support-contract", events, "2026-12-29T00:00:00Z"))
    assert r.state == plain.state and list(r.timeline) == list(plain.timeline)
    (m,) = r.metrics
    assert (m.name, m.status, m.cycles) == ("", pb.SLA_METRIC_STATUS_RUNNING, 1)
    # 14d from the reset: due 2026-12-28T09:00Z, which fell before the as-of instant
    assert [(e.action, e.time.ToJsonString()) for e in m.timeline][-1] == ("BREACH", "2026-12-28T09:00:00Z")
    assert not r.HasField("next_action")


def test_as_of_before_the_last_event_is_refused(app):
    with pytest.raises(InvalidArgument) as e:
        app.answer(EVALUATE_SLA, request("support-sla", TICKET, "2026-12-01T12:00:00Z"))
    assert [v.field for v in e.value.violations] == ["as_of_time"]


@pytest.mark.parametrize("seconds", [-62135596800, 253402300799, 4102444800])
def test_hostile_as_of_is_refused_on_its_field_or_answered(app, seconds):
    from duetime.core.errors import Refusal
    r = request("support-sla", TICKET)
    r.as_of_time.seconds = seconds
    try:
        answer = app.answer(EVALUATE_SLA, r)
    except Refusal as e:
        assert any(v.field == "as_of_time" for v in e.violations), e
    else:
        assert answer.as_of_time.seconds == seconds


def test_get_policy_writes_the_metrics_out(app):
    from duetime.api.convert import policy_to_proto
    from duetime.app.catalog_reads import policy_named
    r = policy_to_proto(policy_named("support-sla", app.answering().catalog.policies))
    assert [m.name for m in r.metrics] == ["first_response", "next_reply", "resolution"]
    fr = r.metrics[0]
    assert [(t.name, t.target) for t in fr.targets] == [("high", "2bh"), ("low", "16bh"), ("normal", "8bh"),
                                                        ("urgent", "1bh")]
    assert list(fr.warnings) == ["75%", "30bm"]
    assert [(x.event, x.status, x.action, x.anchor) for x in fr.rules] == [
        ("agent_reply", "RUNNING", "STOP", "EVENT"), ("agent_reply", "PAUSED", "STOP", "EVENT"),
        ("priority_change", "RUNNING", "RETARGET", "START"), ("priority_change", "PAUSED", "RETARGET", "START"),
        ("solved", "RUNNING", "STOP", "EVENT"), ("solved", "PAUSED", "STOP", "EVENT"),
        ("start", "NOT_STARTED", "START", "EVENT")]
    assert [(x.event, x.status, x.action) for x in r.metrics[1].rules if x.event in ("start", "customer_reply")] == [
        ("customer_reply", "NOT_STARTED", "START"), ("customer_reply", "STOPPED", "START")]


def test_get_policy_of_a_one_clock_policy_has_no_metrics(app):
    from duetime.api.convert import policy_to_proto
    from duetime.app.catalog_reads import policy_named
    assert list(policy_to_proto(policy_named("support-contract", app.answering().catalog.policies)).metrics) == []


def _start(app, thresholds=()):
    from duetime.api.convert import START_CLOCK
    r = pb.StartClockRequest(target="4bh", calendar=pb.Calendar(time_zone="Europe/Zagreb"),
                             warning_thresholds=list(thresholds))
    r.start_time.FromJsonString("2026-11-30T14:00:00Z")  # Monday 15:00+01:00: due Tuesday 11:00
    return app.answer(START_CLOCK, r)


def test_start_clock_with_thresholds_reports_its_next_action(app):
    plain = _start(app)
    assert not plain.HasField("next_action")
    r = _start(app, ["75%", "30bm"])
    assert r.state == plain.state
    # 1bh left at Tuesday 10:00+01:00
    assert r.next_action.time.ToJsonString() == "2026-12-01T09:00:00Z"
    assert [(d.metric, d.kind, d.threshold) for d in r.next_action.due] == [("", pb.SLA_DUE_KIND_WARNING, "75%")]


def test_apply_clock_event_reports_the_next_action_after_the_event(app):
    from duetime.api.convert import CLOCK_EVENT
    state = _start(app).state
    r = pb.ApplyClockEventRequest(state=state, event=pb.ClockEvent(type=pb.CLOCK_EVENT_TYPE_PAUSE),
                                  warning_thresholds=["75%", "30bm"])
    r.event.time.FromJsonString("2026-12-01T09:15:00Z")  # Tuesday 10:15: the 75% warning has fallen
    assert not app.answer(CLOCK_EVENT, r).HasField("next_action")  # paused: nothing due
    r.event.type = pb.CLOCK_EVENT_TYPE_RESET
    answer = app.answer(CLOCK_EVENT, r)
    # reset at Tuesday 10:15 → due 14:15; 75%: 13:15
    assert answer.next_action.time.ToJsonString() == "2026-12-01T12:15:00Z"
    with pytest.raises(InvalidArgument) as e:  # an elapsed amount for a business-time clock
        app.answer(CLOCK_EVENT, _with(r, ["30m"]))
    assert e.value.violations[0].field == "warning_thresholds[0]"
    with pytest.raises(InvalidArgument) as e:
        app.answer(CLOCK_EVENT, _with(r, ["1bm"] * 9))
    assert e.value.violations[0].field == "warning_thresholds"


def _with(request, thresholds):
    out = pb.ApplyClockEventRequest()
    out.CopyFrom(request)
    del out.warning_thresholds[:]
    out.warning_thresholds.extend(thresholds)
    return out


def test_cli_evaluates_metrics_as_of(capsys, tmp_path, app):
    import json
    from test_cli_queries import run
    root = app.answering().catalog.root
    path = tmp_path / "events.json"
    path.write_text(json.dumps([
        {"type": e.type, "time": e.time.ToJsonString(), "attributes": dict(e.attributes)} for e in TICKET]))
    code, lines, err = run(capsys, "sla", "evaluate", "support-sla", str(path), "--calendars", str(root),
                           "--as-of", "2026-12-02T09:30:00+01:00")
    assert (code, err) == (0, "")
    assert [line.split()[:4] for line in lines if line.startswith("next_reply ") and "WARNING" in line] == [
        ["next_reply", "2026-12-02T08:00:00+01:00", "WARNING", "75%"],
        ["next_reply", "2026-12-02T08:30:00+01:00", "WARNING", "30bm"]]
    assert "metric first_response: STOPPED, met, cycles 1" in lines
    assert "next action:           2026-12-03T08:00:00+01:00: resolution WARNING 75%" in lines
    assert "as of:                 2026-12-02T09:30:00+01:00" in lines


def test_typed_client_and_grpc_answer_metrics_with_as_of(app, tmp_path):
    from datetime import datetime
    from duetime.client import DuetimeClient, SlaDue, SlaEvent
    from server_process import ServerProcess
    server = ServerProcess(tmp_path / "ledger.db", app.answering().catalog.root)
    try:
        with DuetimeClient(server.address, timeout=10) as duetime:
            events = [SlaEvent(e.type, datetime.fromisoformat(e.time.ToJsonString().replace("Z", "+00:00")),
                               dict(e.attributes)) for e in TICKET]
            answer = duetime.evaluate_sla("support-sla", events,
                                          as_of=datetime.fromisoformat("2026-12-02T09:30:00+01:00"))
            assert [(m.name, m.status, m.cycles) for m in answer.metrics] == [
                ("first_response", "STOPPED", 1), ("next_reply", "RUNNING", 1), ("resolution", "RUNNING", 1)]
            assert [(e.action, e.threshold) for e in answer.metrics[1].timeline if e.event == ""] == [
                ("WARNING", "75%"), ("WARNING", "30bm"), ("BREACH", "")]
            assert answer.next_action.time.isoformat() == "2026-12-03T07:00:00+00:00"
            assert answer.next_action.due == (SlaDue("resolution", "WARNING", "75%"),)
            plain = duetime.evaluate_sla("support-contract", [SlaEvent("start", events[0].time)])
            assert plain.metrics == () and plain.next_action is None
        assert server.terminate() == 0, "".join(server.stderr)
    finally:
        server.kill()
