"""Settled readings of docs/semantics.md: a paused clock retargeted to ``Nbd``
(§11), a history evaluated whole (§14) and ``0bh`` on a week without
working hours (§2, §10)."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import grpc
import pytest

from duetime.bundles import BundleStore
from duetime.bundles.policy import PolicyStore
from duetime.core import (
    Anchor,
    Calendar,
    ClockEvent,
    EventType,
    FailedPrecondition,
    InvalidArgument,
    Status,
    apply_event,
    compute_due,
    from_us,
    parse_instant,
    start_clock,
    to_us,
)
from duetime.core.sla import BusinessEvent, evaluate
from duetime.v1 import duetime_pb2 as pb
from server_process import server_fixture, ts  # noqa: F401 - the "server" fixture
from test_e2e import failure

H = 3_600_000_000
UTC = Calendar.from_text()
CALENDARS = Path(__file__).resolve().parents[1] / "calendars"


def t(text: str) -> int:
    return to_us(parse_instant(text, "at"))


def iso(us: int) -> str:
    return from_us(us).isoformat().replace("+00:00", "Z")


def paused(at: str, cal: Calendar = UTC, target: str = "14d") -> object:
    """A clock started at ``at`` and paused at once."""
    s = start_clock(target, t(at), cal)
    return apply_event(s, ClockEvent(EventType.PAUSE, t(at)), cal)


# --- a PAUSED clock retargeted to Nbd ---------------------------------------


@pytest.mark.parametrize("at, target, remaining", [
    ("2026-11-28T10:00:00Z", "1bd", 10 * H),  # Saturday: Monday 00:00–10:00
    ("2026-11-28T10:00:00Z", "2bd", 34 * H),  # Monday whole, Tuesday 00:00–10:00
    ("2026-12-02T15:00:00Z", "1bd", 24 * H),  # Wednesday 15:00 to Thursday 15:00
    ("2026-12-04T15:00:00Z", "1bd", 24 * H),  # Friday 15:00 to Monday 15:00: 9 h + 15 h
    ("2026-11-29T23:30:00Z", "0bd", 0),
])
def test_paused_retarget_to_bd_stores_the_open_time_of_t_to_t_plus_n(at, target, remaining):
    s = paused("2026-11-27T09:00:00Z")
    s = apply_event(s, ClockEvent(EventType.RETARGET, t(at), target, Anchor.EVENT), UTC)
    assert (s.status, s.target, s.remaining_us, s.deadline_us) == (
        Status.PAUSED, target, remaining, None)


def test_paused_retarget_to_bd_counts_a_25_hour_day_as_such():
    cal = Calendar.from_text("Europe/Zagreb", weekend=[])
    s = paused("2026-10-20T12:00:00+02:00", cal)
    s = apply_event(s, ClockEvent(EventType.RETARGET, t("2026-10-24T12:00:00+02:00"), "1bd",
                                  Anchor.EVENT), cal)
    assert s.remaining_us == 25 * H  # 12:00 Saturday to 12:00 Sunday, across the fall-back


def test_paused_retarget_to_bd_skips_holidays_in_the_measure():
    cal = Calendar.from_text("Europe/Zagreb", holidays=[("2026-12-25", "Christmas"),
                                                         ("2026-12-26", "St Stephen")])
    s = paused("2026-12-21T09:00:00+01:00", cal)
    s = apply_event(s, ClockEvent(EventType.RETARGET, t("2026-12-24T10:00:00+01:00"), "1bd",
                                  Anchor.EVENT), cal)
    # Thursday 24th 10:00–24:00 (14 h), Monday 28th 00:00–10:00 (10 h)
    assert s.remaining_us == 24 * H


@pytest.mark.parametrize("resume, deadline", [
    ("2026-12-05T08:00:00Z", "2026-12-07T10:00:00Z"),  # Saturday: counts from Monday 00:00
    ("2026-12-07T08:00:00Z", "2026-12-07T18:00:00Z"),  # Monday 08:00 + 10 h of Monday
    ("2026-12-04T20:00:00Z", "2026-12-07T06:00:00Z"),  # Friday 20:00: 4 h Friday, 6 h Monday
])
def test_resume_after_a_paused_retarget_adds_remaining_in_the_measure(resume, deadline):
    s = paused("2026-11-27T09:00:00Z")
    s = apply_event(s, ClockEvent(EventType.RETARGET, t("2026-11-28T10:00:00Z"), "1bd",
                                  Anchor.EVENT), UTC)
    assert s.remaining_us == 10 * H
    s = apply_event(s, ClockEvent(EventType.RESUME, t(resume)), UTC)
    assert (s.status, iso(s.deadline_us), s.remaining_us) == (Status.RUNNING, deadline, None)


# --- a history evaluated whole ------------------------------------------------


@pytest.fixture(scope="module")
def policy():
    bundles = BundleStore.load(CALENDARS)
    return PolicyStore.load(CALENDARS / "policies", bundles).resolve("support-contract")


START = BusinessEvent("start", t("2026-12-11T10:00:00+01:00"))
REPLY = BusinessEvent("customer_reply", t("2026-12-14T10:00:00+01:00"))
SECOND_START = ("a history has one 'start' event, its first; to start a new cycle use an event "
                "of the policy (known: awaiting_third_party, customer_reply, resolved, "
                "tier_change)")


def violations(err) -> list[tuple[str, str]]:
    return [(v.field, v.description) for v in err.violations]


def test_a_second_start_is_failed_precondition_naming_its_index(policy):
    with pytest.raises(FailedPrecondition) as e:
        evaluate(policy, [START, REPLY, BusinessEvent("start", t("2026-12-15T10:00:00+01:00"))])
    assert violations(e.value) == [("events[2].type", SECOND_START)]


def test_a_second_start_at_the_same_instant_is_refused_too(policy):
    with pytest.raises(FailedPrecondition) as e:
        evaluate(policy, [START, BusinessEvent("start", START.at_us)])
    assert violations(e.value) == [("events[1].type", SECOND_START)]


def test_an_unknown_event_is_still_invalid_beside_a_second_start(policy):
    with pytest.raises(InvalidArgument) as e:
        evaluate(policy, [START, BusinessEvent("start", REPLY.at_us),
                          BusinessEvent("no_such_event", REPLY.at_us)])
    assert [f for f, _ in violations(e.value)] == ["events[2].type"]


@pytest.mark.parametrize("events, index", [
    ([START, BusinessEvent("customer_reply", t("2026-12-10T10:00:00+01:00"))], 1),
    ([START, REPLY, BusinessEvent("resolved", t("2026-12-11T09:59:59+01:00"))], 2),
])
def test_an_event_before_the_start_is_failed_precondition_naming_its_index(policy, events, index):
    with pytest.raises(FailedPrecondition) as e:
        evaluate(policy, events)
    ((field, description),) = violations(e.value)
    assert field == f"events[{index}].time"
    assert description.endswith("the event is earlier than the start (events[0], "
                                "2026-12-11T10:00:00+01:00); events must come in time order")


def test_a_second_start_over_grpc_is_failed_precondition(server):
    code, _, info = failure(lambda: server.stub.EvaluateSla(pb.EvaluateSlaRequest(
        policy="support-contract", events=[
            pb.BusinessEvent(type="start", time=ts("2026-12-11T09:00:00Z")),
            pb.BusinessEvent(type="start", time=ts("2026-12-12T09:00:00Z"))]), timeout=10))
    assert code == grpc.StatusCode.FAILED_PRECONDITION
    with pytest.raises(grpc.RpcError) as caught:
        server.stub.EvaluateSla(pb.EvaluateSlaRequest(policy="support-contract", events=[
            pb.BusinessEvent(type="start", time=ts("2026-12-11T09:00:00Z")),
            pb.BusinessEvent(type="start", time=ts("2026-12-12T09:00:00Z"))]), timeout=10)
    assert caught.value.details() == f"events[1].type: {SECOND_START}"


# --- 0bh on a week without working hours -------------------------------------


NO_HOURS = [(weekday, []) for weekday in range(1, 8)]


@pytest.mark.parametrize("text", ["0bh", "0bm", "+0bh", "-0bh", "0.0bh", "0bh0bm"])
def test_zero_business_time_on_a_week_without_hours_returns_the_start(text):
    cal = Calendar.from_text("Europe/Zagreb", working_hours=NO_HOURS)
    start = datetime(2026, 12, 5, 10, 30, tzinfo=timezone.utc)  # a Saturday
    assert compute_due(start, text, cal) == start


def test_nonzero_business_time_on_a_week_without_hours_stays_an_error():
    cal = Calendar.from_text("Europe/Zagreb", working_hours=NO_HOURS)
    with pytest.raises(InvalidArgument):
        compute_due(datetime(2026, 12, 5, 10, 30, tzinfo=timezone.utc), "1bh", cal)


def test_zero_business_time_on_a_week_without_hours_over_grpc(server):
    reply = server.stub.ComputeDueTime(pb.ComputeDueTimeRequest(
        start=ts("2026-12-05T10:30:00Z"), duration="0bh",
        calendar=pb.Calendar(time_zone="Europe/Zagreb", working_hours=pb.WorkingHours(days=[
            pb.DayHours(weekday=w) for w in range(1, 8)]))), timeout=10)
    assert reply.due.ToJsonString() == "2026-12-05T10:30:00Z"
