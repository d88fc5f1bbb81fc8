"""The typed client (duetime.client) against a real server: datetimes in and
out, answers as dataclasses, errors as classes chosen by status code alone."""

from __future__ import annotations

import socket
from datetime import date, datetime, timedelta, timezone

import grpc
import pytest
from duetime.client import (
    AlreadyExists,
    CalendarSpec,
    Deadline,
    DeadlineExceeded,
    DueTimeRequest,
    DuetimeClient,
    DuetimeError,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    OutOfRange,
    SlaEvent,
    Unavailable,
    Violation,
)
from duetime.v1 import duetime_pb2 as pb
from server_process import SUPPORT_CONTRACT_EVENTS, server_fixture  # noqa: F401 - the "server" fixture

UTC = timezone.utc
ZAGREB = timezone(timedelta(hours=1))
FRIDAY = datetime(2026, 11, 27, 16, 0, tzinfo=ZAGREB)


@pytest.fixture
def client(server):
    with DuetimeClient(server.address, timeout=10) as duetime:
        yield duetime


def test_compute_due_time_takes_and_returns_datetimes(client):
    zagreb = CalendarSpec(time_zone="Europe/Zagreb", holidays=("2026-12-25", ("2026-12-26", "St")))
    answer = client.compute_due_time(FRIDAY, "3bd", zagreb, idempotency_key="client-1")
    assert answer.due == datetime(2026, 12, 2, 15, 0, tzinfo=UTC)
    assert answer.due_local == "2026-12-02T16:00:00+01:00"
    assert (answer.recorded.time_zone, len(answer.recorded.record_id)) == ("Europe/Zagreb", 32)
    assert answer.recorded.versions.calendar.startswith("cal-")
    assert client.compute_due_time(FRIDAY, "3bd", zagreb, idempotency_key="client-1") == answer
    hours = CalendarSpec(hours=("mon-fri 09:00-12:00,13:00-17:00",))
    assert client.compute_due_time(datetime(2026, 11, 27, 11, tzinfo=UTC), "2bh", hours).due \
        == datetime(2026, 11, 27, 14, tzinfo=UTC)
    assert client.compute_due_time(FRIDAY, "1bd", "hr-zagreb").recorded.versions.calendar \
        == "hr-zagreb@f45226394a32"


def test_business_time_and_open_status(client):
    between = client.business_time(datetime(2026, 11, 27, 16, tzinfo=UTC),
                                   datetime(2026, 11, 30, 10, tzinfo=UTC))
    assert (between.business_time, between.business_days) == (timedelta(hours=2), 0)
    status = client.open_status(datetime(2026, 12, 25, 12, tzinfo=ZAGREB), "hr-zagreb")
    assert (status.open, status.interval, status.business_day, status.local_date) == (
        False, None, False, date(2026, 12, 25))
    assert (status.holiday_name, status.next_open) == (
        "Christmas Day", datetime(2026, 12, 28, 8, tzinfo=UTC))
    weekend = CalendarSpec(weekend=())
    assert client.open_status(datetime(2026, 11, 28, 10, tzinfo=UTC), weekend).interval == (
        datetime(2026, 11, 28, 9, tzinfo=UTC), datetime(2026, 11, 28, 17, tzinfo=UTC))


def test_a_clock_is_kept_as_bytes(client):
    clock = client.start_clock("8bh", datetime(2026, 11, 27, 11, tzinfo=UTC))
    assert (clock.status, clock.deadline, clock.remaining, clock.met) == (
        "RUNNING", datetime(2026, 11, 30, 11, tzinfo=UTC), None, None)
    assert isinstance(clock.state, bytes) and clock.message().target == "8bh"
    paused = client.apply_clock_event(clock.state, "pause", datetime(2026, 11, 27, 16, tzinfo=UTC))
    assert (paused.status, paused.deadline, paused.remaining) == (
        "PAUSED", None, timedelta(hours=3))
    resumed = client.apply_clock_event(paused.message(), "RESUME",
                                       datetime(2026, 12, 1, 10, tzinfo=UTC))
    assert (resumed.deadline, resumed.recomputations) == (datetime(2026, 12, 1, 13, tzinfo=UTC), 2)
    retargeted = client.apply_clock_event(resumed.state, "retarget",
                                          datetime(2026, 12, 1, 11, tzinfo=UTC),
                                          target="4bh", anchor="start")
    # consumed 5h Friday + 1h Tuesday of the new 4bh: 2 hours late already
    assert retargeted.deadline == datetime(2026, 12, 1, 9, tzinfo=UTC)
    stopped = client.apply_clock_event(retargeted.state, "stop",
                                       datetime(2026, 12, 1, 12, tzinfo=UTC))
    assert (stopped.status, stopped.met, stopped.breached_at) == (
        "STOPPED", False, datetime(2026, 12, 1, 9, tzinfo=UTC))


def test_evaluate_sla(client):
    events = [SlaEvent(kind, datetime.fromisoformat(at), attributes)
              for kind, at, attributes in SUPPORT_CONTRACT_EVENTS]
    result = client.evaluate_sla("support-contract", events)
    assert (result.tier, result.policy_version, result.clock.met) == (
        "priority", "support-contract@8b65ed13fadb", True)
    assert [(e.action, e.new_deadline) for e in result.timeline][2:5] == [
        ("RETARGET", datetime(2026, 12, 28, 14, tzinfo=UTC)), ("PAUSE", None),
        ("RESUME", datetime(2026, 12, 29, 11, tzinfo=UTC))]
    assert result.timeline[3].remaining == timedelta(hours=40)
    record = client.get_record(result.clock.recorded.record_id)
    assert record.method == "/duetime.v1.DueTimeService/EvaluateSla"


def test_errors_are_classes_by_status_code(client):
    with pytest.raises(InvalidArgument) as bad:
        client.compute_due_time(FRIDAY, "1.5bd")
    assert (bad.value.retryable, bad.value.code, bad.value.reason) == (
        False, grpc.StatusCode.INVALID_ARGUMENT, "INVALID_ARGUMENT")
    assert bad.value.violations == (Violation(
        "duration", "'1.5bd': business days must be whole; use bh for parts of a business day"),)
    with pytest.raises(OutOfRange) as late:
        client.compute_due_time(datetime(2035, 12, 30, 9, tzinfo=UTC), "3bd", "hr-zagreb")
    assert late.value.violations[0].field == "calendar.bundle" and not late.value.retryable
    clock = client.start_clock("8bh", datetime(2026, 11, 27, 11, tzinfo=UTC))
    with pytest.raises(FailedPrecondition) as refused:
        client.apply_clock_event(clock.state, "resume", datetime(2026, 11, 27, 12, tzinfo=UTC))
    assert refused.value.violations == (
        Violation("event", "the clock is running; only a paused clock can resume"),)
    assert refused.value.reason == "CLOCK_EVENT_NOT_ALLOWED" and not refused.value.retryable
    client.start_clock("8bh", FRIDAY, idempotency_key="client-reused")
    with pytest.raises(AlreadyExists):
        client.start_clock("9bh", FRIDAY, idempotency_key="client-reused")
    with pytest.raises(NotFound) as missing:
        client.get_record("0" * 32)
    assert missing.value.metadata == {"record_id": "0" * 32}


def test_errors_found_before_calling(client):
    with pytest.raises(InvalidArgument) as naive:
        client.compute_due_time(datetime(2026, 11, 27, 16), "1h")
    assert (naive.value.code, naive.value.violations[0].field) == (None, "start")
    with pytest.raises(InvalidArgument) as unknown:
        client.apply_clock_event(b"", "snooze", FRIDAY)
    assert unknown.value.violations == (Violation(
        "event.type", "'snooze' is not one of pause, resume, reset, retarget, stop"),)


def test_unreachable_and_silent_servers_are_retryable():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with DuetimeClient(f"127.0.0.1:{port}", timeout=2) as nobody:
        with pytest.raises(Unavailable) as down:
            nobody.compute_due_time(FRIDAY, "1h")
    assert down.value.retryable and isinstance(down.value, DuetimeError)
    with socket.socket() as silent:  # accepts connections, never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        with DuetimeClient(f"127.0.0.1:{silent.getsockname()[1]}", timeout=0.5) as impatient:
            with pytest.raises(DeadlineExceeded) as slow:
                impatient.compute_due_time(FRIDAY, "1h")
    assert slow.value.retryable


def test_a_given_channel_is_used_and_left_open(server):
    channel = grpc.insecure_channel(server.address)
    with DuetimeClient(channel=channel) as duetime:
        assert duetime.timeout == 5.0
        duetime.compute_due_time(FRIDAY, "1h")
    grpc.channel_ready_future(channel).result(timeout=5)  # still usable
    channel.close()


# --- many due times: one batch call, or a stream ------------------------------------

ZAGREB_SPEC = CalendarSpec(time_zone="Europe/Zagreb", holidays=("2026-12-25", "2026-12-26"))


def test_compute_due_times_answers_each_item_in_order(client):
    items = [
        DueTimeRequest(FRIDAY, "3bd", ZAGREB_SPEC),
        DueTimeRequest(FRIDAY, "1.5bd", ZAGREB_SPEC),
        DueTimeRequest(FRIDAY, "1bd", "hr-zagreb", idempotency_key="client-batch-1"),
        DueTimeRequest(FRIDAY, "2bd", "hr-zagreb", idempotency_key="client-batch-1"),
        DueTimeRequest(datetime(2035, 12, 30, 9, tzinfo=UTC), "3bd", "hr-zagreb"),
        DueTimeRequest(datetime(2026, 11, 27, 16, tzinfo=UTC), "1bh", None, next_open_at_close=True),
    ]
    results = client.compute_due_times(items)
    assert [r.ok for r in results] == [True, False, True, False, False, True]
    assert [r.due_time.due for r in results if r.ok] == [
        datetime(2026, 12, 2, 15, tzinfo=UTC), datetime(2026, 11, 30, 15, tzinfo=UTC),
        datetime(2026, 11, 30, 9, tzinfo=UTC)]  # 1bh ends at Friday's closing: Monday's opening
    assert results[0].due_time.due_local == "2026-12-02T16:00:00+01:00"
    assert results[2].due_time.recorded.versions.calendar == "hr-zagreb@f45226394a32"
    bad, reused, late = results[1].error, results[3].error, results[4].error
    assert isinstance(bad, InvalidArgument) and bad.violations == (Violation(
        "duration", "'1.5bd': business days must be whole; use bh for parts of a business day"),)
    assert (bad.code, bad.reason, bad.retryable) == (
        grpc.StatusCode.INVALID_ARGUMENT, "INVALID_ARGUMENT", False)
    assert isinstance(reused, AlreadyExists) and reused.reason == "IDEMPOTENCY_KEY_REUSED"
    assert [v.field for v in reused.violations] == ["idempotency_key"]
    assert isinstance(late, OutOfRange) and late.violations[0].field == "calendar.bundle"
    # every answered item is its own record; a key replays as for a single call
    record = client.get_record(results[0].due_time.recorded.record_id)
    assert record.method == "/duetime.v1.DueTimeService/ComputeDueTime"
    again = client.compute_due_time(FRIDAY, "1bd", "hr-zagreb", idempotency_key="client-batch-1")
    assert again == results[2].due_time
    assert client.compute_due_times([]) == []


def test_compute_due_times_refuses_a_naive_start_before_calling(client):
    with pytest.raises(InvalidArgument) as naive:
        client.compute_due_times([DueTimeRequest(FRIDAY, "1h"),
                                  DueTimeRequest(datetime(2026, 11, 27, 16), "1h")])
    assert (naive.value.code, naive.value.violations[0].field) == (None, "items[1].start")


def test_stream_due_times_yields_every_item_in_order(client):
    monday = datetime(2026, 11, 30, 9, tzinfo=UTC)

    def items():  # produced lazily, as the stream sends them
        for i in range(2500):
            yield DueTimeRequest(monday + timedelta(minutes=i), "soon" if i == 1234 else "90m")

    results = list(client.stream_due_times(items(), message_items=700))
    assert len(results) == 2500
    assert [r.due_time.due for i, r in enumerate(results) if i != 1234] == [
        monday + timedelta(minutes=i + 90) for i in range(2500) if i != 1234]
    assert isinstance(results[1234].error, InvalidArgument)
    assert results[1234].error.violations[0].field == "duration"
    ids = {r.due_time.recorded.record_id for r in results if r.ok}
    assert len(ids) == 2499


def test_stream_due_times_stops_at_an_item_it_cannot_send(client):
    items = [DueTimeRequest(FRIDAY, f"{i + 1}h") for i in range(3)]
    items.append(DueTimeRequest(datetime(2026, 11, 27, 16), "1h"))
    items.append(DueTimeRequest(FRIDAY, "9h"))
    got = []
    with pytest.raises(InvalidArgument) as naive:
        for result in client.stream_due_times(items, message_items=2):
            got.append(result.due_time.due)
    assert got == [datetime(2026, 11, 27, 16 + i, tzinfo=UTC) for i in range(3)]
    assert naive.value.violations == (Violation(
        "items[3].start", "needs a UTC offset (a naive datetime is never read as UTC or local)"),)
    with pytest.raises(InvalidArgument) as size:
        next(client.stream_due_times(items, message_items=0))
    assert size.value.violations[0].field == "message_items"


def test_stream_due_times_can_be_left_early(client):
    stream = client.stream_due_times(
        (DueTimeRequest(FRIDAY + timedelta(hours=i), "1h") for i in range(100_000)),
        message_items=100)
    first = [next(stream) for _ in range(3)]
    stream.close()  # cancels the call
    assert [r.due_time.due for r in first] == [datetime(2026, 11, 27, 16 + i, tzinfo=UTC)
                                               for i in range(3)]
    assert client.compute_due_time(FRIDAY, "1h").due == datetime(2026, 11, 27, 16, tzinfo=UTC)


def test_item_errors_keep_their_class_and_details():
    from duetime.client import error_of_status
    from google.protobuf import any_pb2
    from google.rpc import error_details_pb2, status_pb2

    info = any_pb2.Any()
    info.Pack(error_details_pb2.ErrorInfo(reason="LEDGER_UNAVAILABLE", domain="duetime.dev"))
    down = error_of_status(status_pb2.Status(code=14, message="later", details=[info]))
    assert isinstance(down, Unavailable) and down.retryable
    assert (str(down), down.reason, down.violations) == ("UNAVAILABLE: later",
                                                         "LEDGER_UNAVAILABLE", ())
    odd = error_of_status(status_pb2.Status(code=10, message="aborted"))
    assert type(odd) is DuetimeError and odd.code == grpc.StatusCode.ABORTED and odd.retryable


def test_explanations_and_the_at_close_rule(client):
    at_four = datetime(2026, 11, 27, 13, tzinfo=UTC)
    assert client.compute_due_time(at_four, "4bh").due == datetime(2026, 11, 27, 17, tzinfo=UTC)
    for spelled in ({"next_open_at_close": True}, {"at_close": "next-open"}):
        assert client.compute_due_time(at_four, "4bh", **spelled).due \
            == datetime(2026, 11, 30, 9, tzinfo=UTC)
    explained = client.compute_due_time(at_four, "4bh", at_close="end-of-window", explain=True)
    assert explained.due == datetime(2026, 11, 27, 17, tzinfo=UTC)
    assert explained.explanation and all(step.text for step in explained.explanation)
    assert client.compute_due_time(at_four, "4bh").explanation == ()
    with pytest.raises(InvalidArgument) as bad:
        client.compute_due_time(at_four, "4bh", at_close="later")
    assert (bad.value.code, bad.value.violations[0].field) == (None, "at_close")
    between = client.business_time(datetime(2026, 11, 27, 16, tzinfo=UTC),
                                   datetime(2026, 11, 30, 10, tzinfo=UTC), explain=True)
    assert between.business_time == timedelta(hours=2)
    assert any(s.amount == timedelta(hours=2) for s in between.explanation)


def test_compute_schedule(client):
    schedule = client.compute_schedule(
        FRIDAY, ["remind=2bd", Deadline("escalate", "5bd", ""), "final=4bh@after:escalate"],
        "hr-zagreb", idempotency_key="client-schedule-1")
    assert [(d.name, d.after) for d in schedule.deadlines] == [
        ("remind", ""), ("escalate", ""), ("final", "escalate")]
    final = schedule.deadlines[2]
    assert final.counted_from == schedule.deadlines[1].due
    assert (schedule.next_due, schedule.next_due_time) == ("remind", schedule.deadlines[0].due)
    assert schedule.recorded.message.next_due == "remind"
    with pytest.raises(InvalidArgument) as bad:
        client.compute_schedule(FRIDAY, ["remind"])
    assert (bad.value.code, bad.value.violations[0].field) == (None, "deadlines[0]")


def test_every_instant_may_be_given_as_rfc_3339_text(client):
    """As compute_due_time takes its start: a schedule's entered time, an
    open-status time, a business-time range and a clock's start as text are
    the same as aware datetimes; a naive one is still refused."""
    text = "2026-11-27T16:00:00+01:00"
    assert client.compute_schedule(text, ["remind=2bd"], "hr-zagreb").deadlines[0].due == \
        client.compute_schedule(FRIDAY, ["remind=2bd"], "hr-zagreb").deadlines[0].due
    assert client.business_time(text, "2026-11-30T10:00:00+01:00", "hr-zagreb").business_time == \
        client.business_time(FRIDAY, datetime(2026, 11, 30, 10, tzinfo=ZAGREB),
                             "hr-zagreb").business_time == timedelta(hours=2)
    with pytest.raises(InvalidArgument) as bad:
        client.compute_schedule(datetime(2026, 11, 27, 16), ["remind=2bd"], "hr-zagreb")
    assert bad.value.violations[0].field == "entered_time"
    with pytest.raises(InvalidArgument) as bad:
        client.compute_schedule("the day after tomorrow", ["remind=2bd"], "hr-zagreb")
    assert bad.value.violations[0].field == "entered_time"


def test_an_answer_keeps_its_message(client):
    answer = client.compute_due_time(FRIDAY, "1bd", "hr-zagreb")
    assert answer.recorded.message.due_local == answer.due_local
    assert answer.recorded.message.record_id == answer.recorded.record_id
    batch = client.compute_due_times([
        pb.ComputeDueTimeRequest(duration="1bd", calendar=pb.Calendar(bundle="hr-zagreb"),
                                 start=answer.recorded.message.due)])
    assert batch[0].due_time.recorded.message.due_local == "2026-12-01T16:00:00+01:00"


def test_ledger_and_calendar_reads(client):
    key = "client-ledger-reads/1"
    answer = client.compute_due_time(FRIDAY, "2bd", "hr-zagreb", idempotency_key=key)
    listed = list(client.list_records(key_prefix="client-ledger-reads/", page_size=1))
    assert [r.record_id for r in listed] == [answer.recorded.record_id]
    assert list(client.list_records(key_prefix="client-ledger-reads/", namespace="other")) == []
    impact = client.analyze_impact("hr-zagreb", limit=10)
    assert impact.calendar_version.startswith("hr-zagreb@")
    assert (impact.changes, impact.truncated) == ((), False)
    assert impact.message.records_examined == impact.records_examined > 0
    calendars = client.list_calendars()
    zagreb = next(c for c in calendars.calendars if c.name == "hr-zagreb")
    assert (zagreb.time_zone, zagreb.newest_version) == ("Europe/Zagreb", "f45226394a32")
    assert zagreb.first_year <= 2026 <= zagreb.last_year
    assert len(calendars.message.calendars) == len(calendars.calendars)
    assert client.health() == "SERVING"
    with pytest.raises(NotFound) as unknown:
        client.health("no.such.Service")
    assert unknown.value.code == grpc.StatusCode.NOT_FOUND


def test_hour_specs_that_do_not_parse_are_refused_before_calling(client):
    with pytest.raises(InvalidArgument) as bad:
        client.compute_due_time(FRIDAY, "1h", CalendarSpec(hours=("mon-fri 09:00",)))
    assert (bad.value.code, bad.value.violations[0].field) == (None, "hours")
