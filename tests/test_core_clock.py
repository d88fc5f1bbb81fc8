"""SLA clocks (docs/semantics.md §11): exact states after each event."""

from __future__ import annotations

import pytest

from duetime.core import (
    Anchor,
    Calendar,
    ClockEvent,
    EventType,
    FailedPrecondition,
    InvalidArgument,
    Measure,
    Status,
    apply_event,
    from_us,
    parse_instant,
    start_clock,
    to_us,
)

H = 3_600_000_000
UTC = Calendar.from_text()


def t(text: str) -> int:
    return to_us(parse_instant(text, "at"))


def iso(us):
    return from_us(us).isoformat().replace("+00:00", "Z")


def ev(kind: EventType, at: str, target: str = "", anchor: Anchor = Anchor.EVENT) -> ClockEvent:
    return ClockEvent(kind, t(at), target, anchor)


def test_spec_pause_resume_example():
    # deadline Monday 2026-11-30 11:00 (8bh from Friday 11:00); pause Friday 16:00 → 3bh; resume Tuesday 10:00 → 13:00
    s = start_clock("8bh", t("2026-11-27T11:00:00Z"), UTC)
    assert (s.status, s.measure, iso(s.deadline_us)) == (Status.RUNNING, Measure.BUSINESS_TIME, "2026-11-30T11:00:00Z")
    s = apply_event(s, ev(EventType.PAUSE, "2026-11-27T16:00:00Z"), UTC)
    assert (s.status, s.remaining_us, s.deadline_us) == (Status.PAUSED, 3 * H, None)
    s = apply_event(s, ev(EventType.RESUME, "2026-12-01T10:00:00Z"), UTC)
    assert (s.status, iso(s.deadline_us), s.remaining_us) == (Status.RUNNING, "2026-12-01T13:00:00Z", None)
    assert s.recomputations == 2
    assert s.intervals == ((t("2026-11-27T11:00:00Z"), t("2026-11-27T16:00:00Z")),)


def test_business_day_measure_counts_whole_local_dates():
    # docs/semantics.md §11: a 1bd clock started Saturday 10:00 and paused at once has 10 h left (Monday 00:00–10:00)
    s = start_clock("1bd", t("2026-11-28T10:00:00Z"), UTC)
    assert iso(s.deadline_us) == "2026-11-30T10:00:00Z"
    s = apply_event(s, ev(EventType.PAUSE, "2026-11-28T10:00:00Z"), UTC)
    assert s.remaining_us == 10 * H
    s = apply_event(s, ev(EventType.RESUME, "2026-12-01T20:00:00Z"), UTC)
    assert iso(s.deadline_us) == "2026-12-02T06:00:00Z"


def test_business_day_measure_across_dst_uses_real_day_lengths():
    cal = Calendar.from_text("Europe/Zagreb", weekend=[])
    s = start_clock("1bd", t("2026-10-24T12:00:00+02:00"), cal)
    s = apply_event(s, ev(EventType.PAUSE, "2026-10-24T12:00:00+02:00"), cal)
    assert s.remaining_us == 25 * H  # 12:00 Saturday to 12:00 Sunday is 25 real hours


def test_elapsed_clock_and_reset():
    s = start_clock("14d", t("2026-11-01T09:00:00Z"), UTC)
    assert iso(s.deadline_us) == "2026-11-15T09:00:00Z"
    s = apply_event(s, ev(EventType.RESET, "2026-11-04T09:00:00Z"), UTC)
    assert (iso(s.deadline_us), iso(s.started_us), s.intervals) == ("2026-11-18T09:00:00Z", "2026-11-04T09:00:00Z", ())


def test_pausing_after_the_deadline_keeps_the_breach_visible():
    s = start_clock("4bh", t("2026-11-30T09:00:00Z"), UTC)
    s = apply_event(s, ev(EventType.PAUSE, "2026-11-30T15:00:00Z"), UTC)
    assert (s.remaining_us, iso(s.breached_us)) == (-2 * H, "2026-11-30T13:00:00Z")
    s = apply_event(s, ev(EventType.RESUME, "2026-12-01T09:00:00Z"), UTC)
    assert iso(s.deadline_us) == "2026-11-30T15:00:00Z"  # resumes already 2 business hours late
    s = apply_event(s, ev(EventType.STOP, "2026-12-01T10:00:00Z"), UTC)
    assert (s.status, s.met, iso(s.breached_us)) == (Status.STOPPED, False, "2026-11-30T13:00:00Z")


def test_stop_in_time_is_met_and_final():
    s = start_clock("4bh", t("2026-11-30T09:00:00Z"), UTC)
    s = apply_event(s, ev(EventType.STOP, "2026-11-30T13:00:00Z"), UTC)  # exactly at the deadline
    assert (s.status, s.met, s.breached_us) == (Status.STOPPED, True, None)
    with pytest.raises(FailedPrecondition, match="stopped"):
        apply_event(s, ev(EventType.RESUME, "2026-11-30T14:00:00Z"), UTC)


def test_retarget_anchored_at_event_starts_over():
    s = start_clock("14d", t("2026-11-30T09:00:00Z"), UTC)
    s = apply_event(s, ev(EventType.RETARGET, "2026-12-02T09:00:00Z", "48bh"), UTC)
    assert (s.target, s.measure, iso(s.deadline_us)) == ("48bh", Measure.BUSINESS_TIME, "2026-12-09T17:00:00Z")
    p = apply_event(start_clock("14d", t("2026-11-30T09:00:00Z"), UTC), ev(EventType.PAUSE, "2026-12-01T09:00:00Z"), UTC)
    p = apply_event(p, ev(EventType.RETARGET, "2026-12-02T09:00:00Z", "8bh"), UTC)
    assert (p.status, p.remaining_us) == (Status.PAUSED, 8 * H)


def test_retarget_anchored_at_start_subtracts_what_was_consumed():
    s = start_clock("14d", t("2026-11-30T09:00:00Z"), UTC)
    s = apply_event(s, ev(EventType.RETARGET, "2026-12-02T09:00:00Z", "48bh", Anchor.START), UTC)
    # consumed Mon 8h + Tue 8h = 16bh; 32bh left from Wednesday 09:00 → Monday 2026-12-07 17:00
    assert iso(s.deadline_us) == "2026-12-07T17:00:00Z"
    p = start_clock("14d", t("2026-11-30T09:00:00Z"), UTC)
    p = apply_event(p, ev(EventType.PAUSE, "2026-11-30T13:00:00Z"), UTC)
    p = apply_event(p, ev(EventType.RETARGET, "2026-12-02T09:00:00Z", "8bh", Anchor.START), UTC)
    assert (p.status, p.remaining_us) == (Status.PAUSED, 4 * H)


@pytest.mark.parametrize(
    "events, message",
    [
        ([(EventType.RESUME, "2026-11-30T10:00:00Z")], "only a paused clock can resume"),
        ([(EventType.PAUSE, "2026-11-30T10:00:00Z"), (EventType.PAUSE, "2026-11-30T11:00:00Z")], "already paused"),
        ([(EventType.PAUSE, "2026-11-30T08:00:00Z")], "earlier than the clock's last event"),
    ],
)
def test_events_the_state_does_not_allow(events, message):
    s = start_clock("8bh", t("2026-11-30T09:00:00Z"), UTC)
    with pytest.raises(FailedPrecondition, match=message):
        for kind, at in events:
            s = apply_event(s, ev(kind, at), UTC)


@pytest.mark.parametrize("target", ["P1D", "1bd@close", "-2h"])
def test_targets_without_a_measure_are_invalid(target):
    with pytest.raises(InvalidArgument):
        start_clock(target, t("2026-11-30T09:00:00Z"), UTC)


def test_same_events_give_the_same_state():
    def run():
        s = start_clock("48bh", t("2026-11-30T09:00:00Z"), UTC)
        for e in (ev(EventType.PAUSE, "2026-12-01T10:00:00Z"), ev(EventType.RESUME, "2026-12-03T10:00:00Z"),
                  ev(EventType.RESET, "2026-12-04T10:00:00Z")):
            s = apply_event(s, e, UTC)
        return s

    assert run() == run()
