"""End to end: SLA clocks and contract policies over gRPC, against a
real ``python -m duetime serve`` subprocess. Exact values throughout: the
docs/semantics.md §11 example, a pause after the deadline, every refused transition with
its PreconditionFailure, byte-identical replays, records, pinned bundles, and
the support-contract scenario's whole timeline (as tests/test_sla_policy.py
asserts it in the core)."""

from __future__ import annotations

from datetime import timezone

import grpc
import pytest
from duetime.core import get_zone
from duetime.v1 import duetime_pb2 as pb
from google.protobuf.duration_pb2 import Duration
from google.protobuf.timestamp_pb2 import Timestamp
from google.rpc.error_details_pb2 import BadRequest, ErrorInfo, PreconditionFailure
from grpc_status import rpc_status
from server_process import SUPPORT_CONTRACT_EVENTS, server_fixture  # noqa: F401 - the "server" fixture
from test_e2e_queries import ts
from test_e2e_queries import utc as text

INVALID, OUT_OF_RANGE = grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.OUT_OF_RANGE
FAILED = grpc.StatusCode.FAILED_PRECONDITION
H = 3600
UTC, ZAGREB = timezone.utc, get_zone("Europe/Zagreb")
DESK = "support-desk-example@259c33f17398"
POLICY = "support-contract@8b65ed13fadb"
PAUSE, RESUME, RESET, RETARGET, STOP = (
    pb.CLOCK_EVENT_TYPE_PAUSE, pb.CLOCK_EVENT_TYPE_RESUME, pb.CLOCK_EVENT_TYPE_RESET,
    pb.CLOCK_EVENT_TYPE_RETARGET, pb.CLOCK_EVENT_TYPE_STOP)


def failure(call):
    """Run ``call()``, which must fail: its code, field violations (BadRequest
    fields, or PreconditionFailure (type, subject, description)) and ErrorInfo."""
    with pytest.raises(grpc.RpcError) as caught:
        call()
    bad, failed, info = BadRequest(), PreconditionFailure(), ErrorInfo()
    for detail in rpc_status.from_call(caught.value).details:
        detail.Unpack(bad) or detail.Unpack(failed) or detail.Unpack(info)
    found = ([(v.field, v.description) for v in bad.field_violations]
             + [(v.type, v.subject, v.description) for v in failed.violations])
    return caught.value.code(), found, info


def start(server, target: str = "8bh", at: str = "2026-11-27T11:00:00Z",
          calendar: pb.Calendar | None = None, key: str = "") -> pb.StartClockResponse:
    return server.stub.StartClock(pb.StartClockRequest(
        target=target, start_time=ts(at), calendar=calendar, idempotency_key=key), timeout=10)


def apply(server, state: pb.ClockState, kind: int, at: str, target: str = "",
          anchor: int = 0, key: str = "") -> pb.ApplyClockEventResponse:
    event = pb.ClockEvent(type=kind, time=ts(at), target=target, anchor=anchor)
    return server.stub.ApplyClockEvent(
        pb.ApplyClockEventRequest(state=state, event=event, idempotency_key=key), timeout=10)


# ---- StartClock / ApplyClockEvent ------------------------------------------------------


def test_spec_pause_and_resume_example(server):
    # 09:00–17:00 Monday–Friday UTC: 8bh from Friday 11:00 is due Monday 11:00
    started = start(server)
    state = started.state
    assert (state.status, state.measure, text(state.deadline_time), state.target) == (
        pb.CLOCK_STATUS_RUNNING, pb.CLOCK_MEASURE_BUSINESS_TIME, "2026-11-30T11:00:00Z", "8bh")
    assert text(state.start_time) == text(state.running_since_time) == "2026-11-27T11:00:00Z"
    assert state.calendar_version == started.calendar_version == "cal-cc8e82c8a0ccfdee"
    assert (started.time_zone, len(started.record_id)) == ("UTC", 32)
    paused = apply(server, state, PAUSE, "2026-11-27T16:00:00Z").state
    assert (paused.status, paused.remaining, paused.HasField("deadline_time")) == (
        pb.CLOCK_STATUS_PAUSED, Duration(seconds=3 * H), False)
    assert [(text(i.start_time), text(i.end_time)) for i in paused.running_intervals] == [
        ("2026-11-27T11:00:00Z", "2026-11-27T16:00:00Z")]
    resumed = apply(server, paused, RESUME, "2026-12-01T10:00:00Z").state
    assert (resumed.status, text(resumed.deadline_time), resumed.recomputations) == (
        pb.CLOCK_STATUS_RUNNING, "2026-12-01T13:00:00Z", 2)
    assert not resumed.HasField("remaining") and not resumed.HasField("breach_time")
    stopped = apply(server, resumed, STOP, "2026-12-01T12:00:00Z").state
    assert (stopped.status, stopped.HasField("met"), stopped.met) == (
        pb.CLOCK_STATUS_STOPPED, True, True)


def test_pausing_after_the_deadline_keeps_the_breach_visible(server):
    state = start(server, "4bh", "2026-11-30T09:00:00Z").state  # due 13:00
    paused = apply(server, state, PAUSE, "2026-11-30T15:00:00Z").state
    assert (paused.remaining, text(paused.breach_time)) == (
        Duration(seconds=-2 * H), "2026-11-30T13:00:00Z")
    resumed = apply(server, paused, RESUME, "2026-12-01T09:00:00Z").state
    assert text(resumed.deadline_time) == "2026-11-30T15:00:00Z"  # 2 business hours late
    stopped = apply(server, resumed, STOP, "2026-12-01T10:00:00Z").state
    assert (stopped.met, text(stopped.breach_time)) == (False, "2026-11-30T13:00:00Z")


def test_reset_and_retargets(server):
    state = start(server, "14d", "2026-11-30T09:00:00Z").state
    assert state.measure == pb.CLOCK_MEASURE_ELAPSED
    reset = apply(server, state, RESET, "2026-12-01T09:00:00Z").state
    assert (text(reset.deadline_time), text(reset.start_time)) == (
        "2026-12-15T09:00:00Z", "2026-12-01T09:00:00Z")
    by_event = apply(server, state, RETARGET, "2026-12-02T09:00:00Z", "48bh").state
    assert (by_event.target, by_event.measure, text(by_event.deadline_time)) == (
        "48bh", pb.CLOCK_MEASURE_BUSINESS_TIME, "2026-12-09T17:00:00Z")
    # from the start: Monday and Tuesday's 16bh are spent; 32bh left from Wednesday 09:00
    by_start = apply(server, state, RETARGET, "2026-12-02T09:00:00Z", "48bh",
                     pb.RETARGET_ANCHOR_START).state
    assert text(by_start.deadline_time) == "2026-12-07T17:00:00Z"


@pytest.mark.parametrize("events, subject, description", [
    ([(RESUME, "2026-11-30T10:00:00Z")], "event",
     "the clock is running; only a paused clock can resume"),
    ([(PAUSE, "2026-11-30T10:00:00Z"), (PAUSE, "2026-11-30T11:00:00Z")], "event",
     "the clock is already paused"),
    ([(STOP, "2026-11-30T10:00:00Z"), (RESET, "2026-11-30T11:00:00Z")], "event",
     "the clock is stopped; no later event is accepted"),
    ([(PAUSE, "2026-11-30T08:00:00Z")], "event.time",
     "the event is earlier than the clock's last event; events must come in time order"),
], ids=["resume-running", "pause-paused", "event-on-stopped", "earlier-event"])
def test_events_the_state_does_not_allow_are_failed_precondition(server, events, subject,
                                                                  description):
    state = start(server, "8bh", "2026-11-30T09:00:00Z").state
    *allowed, (kind, at) = events
    for allowed_kind, allowed_at in allowed:
        state = apply(server, state, allowed_kind, allowed_at).state
    code, found, info = failure(lambda: apply(server, state, kind, at))
    assert (code, found) == (FAILED, [("CLOCK_STATE", subject, description)])
    assert (info.reason, info.domain) == ("CLOCK_EVENT_NOT_ALLOWED", "duetime.dev")


@pytest.mark.parametrize("target, description", [
    ("P1D", "'P1D' cannot be a clock target: use elapsed (h, d, w), bd, or bh/bm"),
    ("1bd@16:00", "'1bd@16:00' cannot be a clock target: a clock measures the time left, and a landing "
                  "rule ('@…') has no measure to count it in; give the duration alone ('1bd'), or compute the "
                  "rolled deadline with ComputeDueTime or a schedule"),
    ("-2h", "'-2h': a clock target must not be negative"),
])
def test_targets_without_a_measure_are_invalid(server, target, description):
    code, found, _ = failure(lambda: start(server, target))
    assert (code, found) == (INVALID, [("target", description)])


def test_the_same_state_and_event_give_the_same_bytes(server):
    state = start(server, "3bd", "2026-11-28T10:00:00Z").state  # docs/semantics.md §11: Saturday 10:00
    first = apply(server, state, PAUSE, "2026-11-28T10:00:00Z")
    again = apply(server, state, PAUSE, "2026-11-28T10:00:00Z")
    assert first.record_id != again.record_id
    assert (first.state.SerializeToString(deterministic=True)
            == again.state.SerializeToString(deterministic=True))
    assert first.state.remaining == Duration(seconds=10 * H + 2 * 24 * H)  # Mon 00–10, Tue, Wed


def test_clock_answers_are_recorded_and_idempotent(server):
    started = start(server, key="clock-e2e/0")
    assert start(server, key="clock-e2e/0") == started
    code, _, info = failure(lambda: start(server, "9bh", key="clock-e2e/0"))
    assert (code, info.reason) == (grpc.StatusCode.ALREADY_EXISTS, "IDEMPOTENCY_KEY_REUSED")
    paused = apply(server, started.state, PAUSE, "2026-11-27T16:00:00Z", key="clock-e2e/1")
    for answer, request_type, response_type, method in (
        (started, pb.StartClockRequest, pb.StartClockResponse, "StartClock"),
        (paused, pb.ApplyClockEventRequest, pb.ApplyClockEventResponse, "ApplyClockEvent"),
    ):
        record = server.stub.GetRecord(pb.GetRecordRequest(record_id=answer.record_id),
                                       timeout=10).record
        assert record.method == f"/duetime.v1.DueTimeService/{method}"
        assert record.calendar_version == "cal-cc8e82c8a0ccfdee"
        request, response = request_type(), response_type()
        assert record.request.Unpack(request) and record.response.Unpack(response)
        assert response == answer
    request = pb.ApplyClockEventRequest()
    record = server.stub.GetRecord(pb.GetRecordRequest(record_id=paused.record_id), timeout=10)
    assert record.record.request.Unpack(request) and request.state == started.state


def test_a_bundle_is_pinned_in_the_state(server):
    started = start(server, "1bd", "2026-12-24T10:00:00+01:00",
                    pb.Calendar(bundle="hr-zagreb", holidays=[pb.Holiday(date="2026-12-28")]))
    state = started.state
    assert state.calendar == pb.Calendar(bundle="hr-zagreb@f45226394a32",
                                         holidays=[pb.Holiday(date="2026-12-28")])
    assert state.calendar_version == started.calendar_version
    assert state.calendar_version.startswith("hr-zagreb@f45226394a32+cal-")
    assert (started.time_zone, text(state.deadline_time)) == (
        "Europe/Zagreb", "2026-12-29T09:00:00Z")  # 25, 26 holidays, 27 Sunday, 28 added
    paused = apply(server, state, PAUSE, "2026-12-24T11:00:00+01:00")
    assert paused.state.calendar == state.calendar
    assert paused.calendar_version == state.calendar_version


def test_a_bundle_date_outside_its_years_is_out_of_range(server):
    code, found, _ = failure(lambda: start(server, "3bd", "2035-12-30T10:00:00Z",
                                           pb.Calendar(bundle="hr-zagreb")))
    assert code == OUT_OF_RANGE and found[0][0] == "calendar.bundle"
    assert found[0][1].startswith("hr-zagreb covers 2020–2035 only (version f45226394a32); "
                                  "the answer depends on 2036-01-02")
    state = start(server, "1bd", "2035-12-28T10:00:00Z", pb.Calendar(bundle="hr-zagreb")).state
    paused = apply(server, state, PAUSE, "2035-12-28T10:00:00Z").state
    code, found, _ = failure(lambda: apply(server, paused, RESUME, "2035-12-31T10:00:00Z"))
    assert code == OUT_OF_RANGE and found[0][0] == "state.calendar.bundle"


def _tampered(state: pb.ClockState, **changes) -> pb.ClockState:
    copy = pb.ClockState()
    copy.CopyFrom(state)
    for name, value in changes.items():
        if value is None:
            copy.ClearField(name)
        elif isinstance(value, str | int):
            setattr(copy, name, value)
        else:
            getattr(copy, name).CopyFrom(value)
    return copy


@pytest.mark.parametrize("changes, expected", [
    (dict(status=pb.CLOCK_STATUS_UNSPECIFIED), [
        ("state.status", "0 is not a ClockStatus value (CLOCK_STATUS_RUNNING, "
                         "CLOCK_STATUS_PAUSED, CLOCK_STATUS_STOPPED)")]),
    (dict(measure=7), [
        ("state.measure", "7 is not a ClockMeasure value (CLOCK_MEASURE_ELAPSED, "
                          "CLOCK_MEASURE_BUSINESS_DAY, CLOCK_MEASURE_BUSINESS_TIME)")]),
    (dict(measure=pb.CLOCK_MEASURE_ELAPSED), [
        ("state.measure", "CLOCK_MEASURE_ELAPSED does not fit target '8bh'")]),
    (dict(deadline_time=None, start_time=None, remaining=Duration(seconds=1)), [
        ("state.start_time", "is required (an instant)"),
        ("state.deadline_time", "is required while RUNNING"),
        ("state.remaining", "must be unset while RUNNING")]),
    (dict(target="P1D"), [
        ("state.target", "'P1D' cannot be a clock target: use elapsed (h, d, w), bd, or bh/bm")]),
    (dict(calendar_version="cal-0000000000000000"), [
        ("state.calendar", "resolves to version cal-cc8e82c8a0ccfdee, but the state was "
                           "computed in cal-0000000000000000: pass the state back as duetime "
                           "returned it")]),
    (dict(calendar=pb.Calendar(time_zone="Europe/Atlantis")), [
        ("state.calendar.time_zone", "unknown IANA time zone 'Europe/Atlantis'")]),
], ids=["unspecified-status", "unknown-measure", "wrong-measure", "missing-and-extra",
        "iso-target", "other-version", "bad-calendar"])
def test_a_state_duetime_did_not_return_is_invalid_naming_the_field(server, changes, expected):
    state = _tampered(start(server).state, **changes)
    code, found, _ = failure(lambda: apply(server, state, PAUSE, "2026-11-27T16:00:00Z"))
    assert code == INVALID
    assert [(f, d[:len(expected[i][1])]) for i, (f, d) in enumerate(found)] == expected


@pytest.mark.parametrize("event, expected", [
    (pb.ClockEvent(time=ts("2026-11-27T16:00:00Z")), [
        ("event.type", "0 is not a ClockEventType value (CLOCK_EVENT_TYPE_PAUSE, "
                       "CLOCK_EVENT_TYPE_RESUME, CLOCK_EVENT_TYPE_RESET, "
                       "CLOCK_EVENT_TYPE_RETARGET, CLOCK_EVENT_TYPE_STOP)")]),
    (pb.ClockEvent(type=PAUSE), [("event.time", "is required (an instant)")]),
    (pb.ClockEvent(type=PAUSE, time=ts("2026-11-27T16:00:00Z"), target="4bh",
                   anchor=pb.RETARGET_ANCHOR_START), [
        ("event.target", "is for RETARGET only; leave it unset for PAUSE"),
        ("event.anchor", "is for RETARGET only; leave it unset for PAUSE")]),
    (pb.ClockEvent(type=RETARGET, time=ts("2026-11-27T16:00:00Z")), [
        ("event.target", "the duration is empty")]),
], ids=["no-type", "no-time", "target-on-pause", "retarget-without-target"])
def test_bad_events_are_invalid_naming_the_field(server, event, expected):
    state = start(server).state
    code, found, _ = failure(lambda: server.stub.ApplyClockEvent(
        pb.ApplyClockEventRequest(state=state, event=event), timeout=10))
    assert code == INVALID
    assert [(f, d[:len(expected[i][1])]) for i, (f, d) in enumerate(found)] == expected


# ---- EvaluateSla: the support-contract scenario ----------------------------------------

def evaluate(server, events=SUPPORT_CONTRACT_EVENTS, policy: str = "support-contract",
             key: str = "") -> pb.EvaluateSlaResponse:
    return server.stub.EvaluateSla(pb.EvaluateSlaRequest(
        policy=policy, idempotency_key=key,
        events=[pb.BusinessEvent(type=kind, time=ts(at), attributes=attributes)
                for kind, at, attributes in events]), timeout=10)


def local(value: Timestamp, present: bool) -> str | None:
    """The instant in Zagreb, as the core test writes it; None when unset."""
    return value.ToDatetime(tzinfo=UTC).astimezone(ZAGREB).isoformat() if present else None


def test_support_contract_scenario_timeline_over_grpc(server):
    answer = evaluate(server)
    rows = [
        (e.event, e.action, e.tier, pb.ClockStatus.Name(e.status).removeprefix("CLOCK_STATUS_"),
         local(e.old_deadline_time, e.HasField("old_deadline_time")),
         local(e.new_deadline_time, e.HasField("new_deadline_time")),
         e.remaining.seconds if e.HasField("remaining") else None)
        for e in answer.timeline
    ]
    assert rows == [
        ("start", "START", "standard", "RUNNING", None, "2026-12-25T10:00:00+01:00", None),
        ("customer_reply", "RESET", "standard", "RUNNING",
         "2026-12-25T10:00:00+01:00", "2026-12-28T10:00:00+01:00", None),
        ("tier_change", "RETARGET", "priority", "RUNNING",
         "2026-12-28T10:00:00+01:00", "2026-12-28T15:00:00+01:00", None),
        ("awaiting_third_party", "PAUSE", "priority", "PAUSED",
         "2026-12-28T15:00:00+01:00", None, 40 * H),
        ("customer_reply", "RESUME", "priority", "RUNNING",
         None, "2026-12-29T12:00:00+01:00", None),
        ("resolved", "STOP", "priority", "STOPPED", "2026-12-29T12:00:00+01:00", None, None),
    ]
    assert [text(e.time) for e in answer.timeline] == [
        "2026-12-11T09:00:00Z", "2026-12-14T09:00:00Z", "2026-12-17T09:00:00Z",
        "2026-12-18T09:00:00Z", "2026-12-20T09:00:00Z", "2026-12-29T10:00:00Z"]
    assert [e.reason for e in answer.timeline] == [
        "clock started: standard target 14d, due 2026-12-25T10:00:00+01:00",
        "customer_reply: clock reset to 14d; due 2026-12-28T10:00:00+01:00 "
        "(was 2026-12-25T10:00:00+01:00)",
        "tier_change: tier priority, target 48bh counted from the event; "
        "due 2026-12-28T15:00:00+01:00",
        "awaiting_third_party: clock paused with 40h left in its measure; deadline cleared",
        "customer_reply: clock resumed with the time that was left; "
        "due 2026-12-29T12:00:00+01:00",
        "resolved: clock stopped, SLA met",
    ]
    state = answer.state
    assert (state.status, state.met, state.HasField("breach_time"), state.recomputations) == (
        pb.CLOCK_STATUS_STOPPED, True, False, 5)
    assert (state.target, state.calendar, state.calendar_version) == (
        "48bh", pb.Calendar(bundle=DESK), DESK)
    assert (answer.tier, answer.policy_version, answer.calendar_version, answer.time_zone) == (
        "priority", POLICY, DESK, "Europe/Zagreb")
    record = server.stub.GetRecord(pb.GetRecordRequest(record_id=answer.record_id),
                                   timeout=10).record
    stored = pb.EvaluateSlaResponse()
    assert record.response.Unpack(stored) and stored == answer
    assert (record.method, record.calendar_version) == (
        "/duetime.v1.DueTimeService/EvaluateSla", DESK)


def test_evaluation_is_pure_and_its_state_continues_with_apply(server):
    first, again = evaluate(server, SUPPORT_CONTRACT_EVENTS[:-1]), evaluate(server, SUPPORT_CONTRACT_EVENTS[:-1])
    assert first.record_id != again.record_id
    assert first.SerializeToString(deterministic=True).replace(first.record_id.encode(), b"") \
        == again.SerializeToString(deterministic=True).replace(again.record_id.encode(), b"")
    late = apply(server, first.state, STOP, "2026-12-29T13:00:00+01:00").state
    assert (late.met, text(late.breach_time)) == (False, "2026-12-29T11:00:00Z")
    assert evaluate(server, key="sla-e2e/1") == evaluate(server, key="sla-e2e/1")


def test_evaluation_errors(server):
    code, found, _ = failure(lambda: evaluate(server, policy="atlantis"))
    assert (code, found) == (INVALID, [("policy", "no policy named 'atlantis' (known: "
                                                  "support-contract, support-sla)")])
    code, found, _ = failure(lambda: evaluate(server, policy=""))
    assert (code, found) == (INVALID, [("policy", "is required: a policy name, or name@version")])
    bad = SUPPORT_CONTRACT_EVENTS[:1] + [("escalate", "2026-12-12T10:00:00+01:00", {}),
                          ("tier_change", "2026-12-13T10:00:00+01:00", {"tier": "gold"})]
    code, found, _ = failure(lambda: evaluate(server, bad))
    assert code == INVALID and [f for f, _ in found] == ["events[1].type", "events[2].attributes"]
    code, found, _ = failure(lambda: evaluate(server, SUPPORT_CONTRACT_EVENTS[:3] + [
        ("customer_reply", "2026-12-16T10:00:00+01:00", {})]))
    assert (code, found) == (FAILED, [(
        "CLOCK_STATE", "events[3].time",
        "customer_reply (RESET): the event is earlier than the one before it; events must come in time order")])
    # out of order although the policy does nothing with it (the clock is stopped)
    code, found, _ = failure(lambda: evaluate(server, [
        SUPPORT_CONTRACT_EVENTS[0], ("resolved", "2026-12-12T10:00:00+01:00", {}),
        ("customer_reply", "2026-12-11T11:00:00+01:00", {})]))
    assert (code, found) == (FAILED, [(
        "CLOCK_STATE", "events[2].time",
        "customer_reply (NONE): the event is earlier than the one before it; events must come in time order")])
    request = pb.EvaluateSlaRequest(policy="support-contract",
                                    events=[pb.BusinessEvent(type="start")])
    code, found, _ = failure(lambda: server.stub.EvaluateSla(request, timeout=10))
    assert (code, found) == (INVALID, [("events[0].time", "is required (an instant)")])
    code, found, _ = failure(lambda: evaluate(server, [("start", "2030-12-30T10:00:00+01:00", {})]))
    assert code == OUT_OF_RANGE and found[0][0] == "events[0].time"
    assert found[0][1] == (
        "support-desk-example covers 2024–2030 only (version 259c33f17398); the answer depends "
        "on 2031-01-13, after the dates the calendar's holidays cover (holidays known "
        "2024-01-01..2030-12-31)")
