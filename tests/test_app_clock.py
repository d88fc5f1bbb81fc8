"""SLA clock use cases without a server: the state's wire form round-trips
exactly, and the three clock calls take the one recorded path."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from duetime.api.convert import CLOCK_EVENT, clock_state_to_proto
from duetime.compose import build_app
from duetime.catalog import Catalog
from duetime.core import ClockState, Measure, Status
from duetime.ledger import MemoryLedger
from duetime.v1 import duetime_pb2 as pb
from local_app import clock_state_from_proto, resolve_calendar
from server_process import CALENDARS

RECEIVED = datetime(2026, 11, 27, 15, 0, 1, tzinfo=timezone.utc)
H = 3_600_000_000
T0 = 1_795_000_000_000_000


@pytest.mark.parametrize("state", [
    ClockState("8bh", Measure.BUSINESS_TIME, Status.RUNNING, T0, T0 + 3 * H, deadline_us=T0 + 9 * H,
               running_since_us=T0 + 3 * H, intervals=((T0, T0 + H),), recomputations=2),
    ClockState("3bd", Measure.BUSINESS_DAY, Status.PAUSED, T0, T0 + H, remaining_us=-7,
               intervals=((T0, T0 + H),), breached_us=T0 + 1, recomputations=1),
    ClockState("14d", Measure.ELAPSED, Status.STOPPED, T0, T0 + H, met=False, breached_us=T0 + 5),
    ClockState("1h", Measure.ELAPSED, Status.STOPPED, T0, T0 + H, met=True),
], ids=["running", "paused-late", "stopped-breached", "stopped-met"])
def test_the_wire_form_round_trips(state):
    calendar = pb.Calendar(time_zone="Europe/Zagreb")
    version = resolve_calendar(calendar).version
    message = clock_state_to_proto(state, calendar, version)
    back, cal = clock_state_from_proto(message)
    assert (back, cal.version) == (state, version)
    assert clock_state_to_proto(back, calendar, version).SerializeToString(deterministic=True) \
        == message.SerializeToString(deterministic=True)


def test_clock_calls_are_recorded_and_replayed_by_key():
    app = build_app(MemoryLedger(), Catalog.load(CALENDARS))
    start = pb.StartClockRequest(target="48bh", calendar=pb.Calendar(bundle="support-desk-example"),
                                 idempotency_key="ticket-9/0")
    start.start_time.FromJsonString("2026-12-17T09:00:00Z")
    started = app.start_clock(start, RECEIVED)
    assert started.state.calendar.bundle == "support-desk-example@259c33f17398"
    assert app.start_clock(start, RECEIVED) == started
    event = pb.ApplyClockEventRequest(state=started.state, idempotency_key="ticket-9/1",
                                      event=pb.ClockEvent(type=pb.CLOCK_EVENT_TYPE_PAUSE))
    event.event.time.FromJsonString("2026-12-18T09:00:00Z")
    paused = app.apply_clock_event(event, RECEIVED)
    assert paused.state.remaining.seconds == 40 * 3600  # as in the support-contract timeline
    assert app.call(CLOCK_EVENT, event, RECEIVED) == paused
    record = app.get_record(paused.record_id)
    assert (record.method, record.idempotency_key) == (
        "/duetime.v1.DueTimeService/ApplyClockEvent", "ticket-9/1")
