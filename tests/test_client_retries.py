"""The typed client's retries (gRPC's retry policy), the idempotency keys it
makes up so a retry never records twice, and inline calendars given as plain
mappings."""

from __future__ import annotations

import json
import threading
import time
from concurrent import futures
from datetime import datetime, timedelta, timezone

import grpc
import pytest
from duetime.api.server import start_server
from duetime.client import (
    GENERATED_KEY_PREFIX,
    RETRY_CODES,
    CalendarSpec,
    DueTimeRequest,
    DuetimeClient,
    DuetimeError,
    InvalidArgument,
    RetryPolicy,
    Unavailable,
    Violation,
    calendar_of_mapping,
)
from duetime.ledger import MemoryLedger
from duetime.v1 import duetime_pb2 as pb
from duetime.v1 import duetime_pb2_grpc as pb_grpc
from server_process import free_port, server_fixture  # noqa: F401 - the "server" fixture

UTC = timezone.utc
FRIDAY = datetime(2026, 11, 27, 15, tzinfo=UTC)


# ---- retries against a real server ---------------------------------------------------------


def test_a_call_made_while_the_server_is_down_succeeds_once_it_is_up():
    port = free_port()
    ledger = MemoryLedger()
    with DuetimeClient(f"127.0.0.1:{port}", timeout=5) as duetime:
        answers: list = []
        asked = threading.Thread(target=lambda: answers.append(
            duetime.compute_due_time(FRIDAY, "3bd", {"time_zone": "Europe/Zagreb"})))
        began = time.monotonic()
        asked.start()
        time.sleep(0.4)  # the first attempts find nobody listening
        server = start_server(ledger, port=port, log_calls=False)
        try:
            asked.join(10)
            took = time.monotonic() - began
            rows = ledger.list_records()[0]
        finally:
            server.stop(0)
    (answer,) = answers
    assert answer.due == datetime(2026, 12, 2, 15, tzinfo=UTC)
    assert 0.4 < took < 5
    # recorded once, under the key the client made up
    (row,) = rows
    assert row.record_id == answer.recorded.record_id
    assert row.idempotency_key.startswith(GENERATED_KEY_PREFIX)
    assert len(row.idempotency_key) == len(GENERATED_KEY_PREFIX) + 32


def test_with_retries_off_a_call_to_a_down_server_fails_unavailable_at_once():
    port = free_port()
    with DuetimeClient(f"127.0.0.1:{port}", timeout=5, retries=0) as duetime:
        began = time.monotonic()
        with pytest.raises(Unavailable) as down:
            duetime.compute_due_time(FRIDAY, "3bd")
        assert time.monotonic() - began < 1
    assert (down.value.code, down.value.retryable) == (grpc.StatusCode.UNAVAILABLE, True)


def test_the_health_check_is_not_retried():
    port = free_port()
    with DuetimeClient(f"127.0.0.1:{port}", timeout=5) as duetime:
        began = time.monotonic()
        with pytest.raises(Unavailable):
            duetime.health()
        assert time.monotonic() - began < 1


def test_retries_give_up_unavailable_within_the_timeout():
    port = free_port()
    with DuetimeClient(f"127.0.0.1:{port}", timeout=2) as duetime:
        began = time.monotonic()
        with pytest.raises(Unavailable) as down:
            duetime.compute_due_time(FRIDAY, "3bd")
        took = time.monotonic() - began
    assert down.value.retryable
    assert 0.5 < took < 2  # the waits add up to about half the timeout


def test_a_keyless_call_records_a_made_up_key_and_a_given_key_is_kept(server):
    with DuetimeClient(server.address, timeout=10) as duetime:
        made_up = duetime.compute_due_time(FRIDAY, "1bd")
        given = duetime.compute_due_time(FRIDAY, "2bd", idempotency_key="retries/given")
        clock = duetime.start_clock("8bh", FRIDAY)
        key_of = {r.record_id: r.idempotency_key for r in duetime.list_records()}
    assert key_of[given.recorded.record_id] == "retries/given"
    for answer in (made_up, clock):
        key = key_of[answer.recorded.record_id]
        assert key.startswith(GENERATED_KEY_PREFIX) and len(key) == 7 + 32
    assert key_of[made_up.recorded.record_id] != key_of[clock.recorded.record_id]
    with DuetimeClient(server.address, timeout=10, retries=0) as plain:
        unkeyed = plain.compute_due_time(FRIDAY, "3bd")
        assert plain.get_record(unkeyed.recorded.record_id).idempotency_key == ""


def test_batch_and_stream_items_get_one_made_up_key_each_messages_none(server):
    with DuetimeClient(server.address, timeout=10) as duetime:
        message = pb.ComputeDueTimeRequest(duration="1h")
        message.start.FromDatetime(FRIDAY)
        items = [DueTimeRequest(FRIDAY, "1bd"), DueTimeRequest(FRIDAY, "2bd", idempotency_key="b/1"),
                 message]
        batch = duetime.compute_due_times(items)
        assert items[2].idempotency_key == ""  # a message is sent as it is
        streamed = list(duetime.stream_due_times(
            [DueTimeRequest(FRIDAY, f"{n}h") for n in range(5)], message_items=2))
        key_of = {r.record_id: r.idempotency_key for r in duetime.list_records()}
    keys = [key_of[r.due_time.recorded.record_id] for r in batch]
    assert keys[1] == "b/1"
    base = keys[0].removesuffix("/0")
    assert base.startswith(GENERATED_KEY_PREFIX) and keys[2] == ""
    stream_keys = [key_of[r.due_time.recorded.record_id] for r in streamed]
    stream_base = stream_keys[0].removesuffix("/0")
    assert stream_keys == [f"{stream_base}/{n}" for n in range(5)] and stream_base != base


# ---- the policy, code by code, against a server that fails on purpose ----------------------


class FailingFirst(pb_grpc.DueTimeServiceServicer):
    """Fails the first ``failures`` attempts of ComputeDueTime with ``code``,
    then answers; keeps each attempt's idempotency key."""

    def __init__(self, code: grpc.StatusCode, failures: int):
        self.code = code
        self.failures = failures
        self.keys: list[str] = []

    def ComputeDueTime(self, request, context):
        self.keys.append(request.idempotency_key)
        if len(self.keys) <= self.failures:
            context.abort(self.code, f"attempt {len(self.keys)} fails")
        return pb.ComputeDueTimeResponse(due=request.start, record_id="r" * 32)


@pytest.fixture
def failing():
    """Factory: ``failing(code, failures)`` serves a FailingFirst; gives
    (servicer, address)."""
    servers = []

    def start(code: grpc.StatusCode, failures: int):
        servicer = FailingFirst(code, failures)
        server = grpc.server(futures.ThreadPoolExecutor(2))
        pb_grpc.add_DueTimeServiceServicer_to_server(servicer, server)
        port = server.add_insecure_port("127.0.0.1:0")
        server.start()
        servers.append(server)
        return servicer, f"127.0.0.1:{port}"

    yield start
    for server in servers:
        server.stop(0)


ALL_CODES = [code for code in grpc.StatusCode if code is not grpc.StatusCode.OK]


@pytest.mark.parametrize("code", ALL_CODES, ids=[c.name for c in ALL_CODES])
def test_each_code_is_retried_exactly_when_its_error_is_retryable(code, failing):
    servicer, address = failing(code, failures=1)
    with DuetimeClient(address, timeout=5) as duetime:
        try:
            duetime.compute_due_time(FRIDAY, "1h")
            retried = True
        except DuetimeError as exc:
            assert exc.code is code
            retried = False
            error = exc
    assert retried is (code in RETRY_CODES)
    assert len(servicer.keys) == (2 if retried else 1)
    assert len(set(servicer.keys)) == 1 and servicer.keys[0].startswith(GENERATED_KEY_PREFIX)
    # with retries off the same code fails at once, flagged as the policy says
    servicer, address = failing(code, failures=1)
    with DuetimeClient(address, timeout=5, retries=0) as duetime:
        with pytest.raises(DuetimeError) as once:
            duetime.compute_due_time(FRIDAY, "1h")
    assert once.value.code is code and once.value.retryable is (code in RETRY_CODES)
    assert servicer.keys == [""]
    if not retried:
        assert error.retryable is False


def test_cancelled_at_shutdown_and_unavailable_are_retried_up_to_four_times(failing):
    for code in (grpc.StatusCode.CANCELLED, grpc.StatusCode.UNAVAILABLE):
        servicer, address = failing(code, failures=4)
        with DuetimeClient(address, timeout=5) as duetime:
            assert duetime.compute_due_time(FRIDAY, "1h").due == FRIDAY
        assert len(servicer.keys) == 5 and len(set(servicer.keys)) == 1
        servicer, address = failing(code, failures=5)
        with DuetimeClient(address, timeout=5) as duetime:
            with pytest.raises(DuetimeError) as failed:
                duetime.compute_due_time(FRIDAY, "1h")
        assert (failed.value.code, failed.value.retryable, len(servicer.keys)) == (code, True, 5)
    servicer, address = failing(grpc.StatusCode.UNAVAILABLE, failures=2)
    with DuetimeClient(address, timeout=5, retries=1) as duetime:
        with pytest.raises(Unavailable):
            duetime.compute_due_time(FRIDAY, "1h")
    assert len(servicer.keys) == 2


def test_the_retry_policy_as_the_channel_gets_it():
    policy = RetryPolicy()
    assert policy.waits(5.0) == pytest.approx((2.5 / 18, 2.5 / 18 * 8))
    options = dict(policy.channel_options(5.0))
    assert options["grpc.enable_retries"] == 1
    assert json.loads(options["grpc.service_config"]) == {"methodConfig": [{
        "name": [{"service": "duetime.v1.DueTimeService"},
                 {"service": "duetime.v1.CalendarService"}],
        "retryPolicy": {
            "maxAttempts": 5, "initialBackoff": "0.139s", "maxBackoff": "1.111s",
            "backoffMultiplier": 2,
            "retryableStatusCodes": ["UNAVAILABLE", "CANCELLED", "ABORTED",
                                     "DEADLINE_EXCEEDED"]}}]}
    assert (options["grpc.initial_reconnect_backoff_ms"],
            options["grpc.max_reconnect_backoff_ms"]) == (139, 1111)
    assert dict(RetryPolicy(2, backoff=0.5).channel_options(5.0))["grpc.max_reconnect_backoff_ms"] \
        == 1000
    assert RetryPolicy(0).channel_options(5.0) == (("grpc.enable_retries", 0),)
    for bad, field in ((5, "retries"), (-1, "retries"), (True, "retries")):
        with pytest.raises(InvalidArgument) as refused:
            DuetimeClient("127.0.0.1:1", retries=bad)
        assert refused.value.violations[0].field == field
        assert "0 to 4 retries" in refused.value.violations[0].description
    with pytest.raises(InvalidArgument) as slow:
        RetryPolicy(backoff=0)
    assert slow.value.violations == (Violation(
        "backoff", "0 is not a number of seconds over 0 (at most 3600)"),)


# ---- inline calendars as plain mappings ----------------------------------------------------


def test_a_mapping_is_the_calendar_a_calendar_spec_of_the_same_keys_is():
    spec = CalendarSpec(time_zone="Europe/Zagreb",
                        holidays=("2026-12-25", ("2026-12-26", "St. Stephen's Day")),
                        weekend=(5, 6), hours=("mon-fri 08:00-16:00",), bundle="")
    same = calendar_of_mapping({"time_zone": "Europe/Zagreb",
                                "holidays": ["2026-12-25", ("2026-12-26", "St. Stephen's Day")],
                                "weekend": [5, 6], "hours": "mon-fri 08:00-16:00"})
    assert same == spec.to_proto()
    json_form = calendar_of_mapping({
        "timeZone": "Europe/Zagreb",
        "holidays": [{"date": "2026-12-25"}, {"date": "2026-12-26", "name": "St. Stephen's Day"}],
        "weekend": {"days": [5, 6]},
        "workingHours": {"days": [{"weekday": d, "intervals": [{"start": "08:00", "end": "16:00"}]}
                                  for d in range(1, 6)]}})
    assert json_form == spec.to_proto()
    assert calendar_of_mapping({"weekend": "fri,sat"}).weekend.days == [5, 6]
    assert calendar_of_mapping({"weekend": []}).HasField("weekend")
    rest = calendar_of_mapping({"bundle": "hr-zagreb", "dateOverrides": [
        {"date": "2026-12-24", "intervals": [{"start": "09:00", "end": "13:00"}]}],
        "extra_working_days": [{"date": "2026-12-27"}], "holidaysValidUntil": "2027-12-31"})
    assert (rest.bundle, rest.date_overrides[0].date, rest.extra_working_days[0].date,
            rest.holidays_valid_until) == ("hr-zagreb", "2026-12-24", "2026-12-27", "2027-12-31")


@pytest.mark.parametrize("mapping, field, description", [
    ({"timezone": "Europe/Zagreb"}, "calendar.timezone",
     "'timezone' is not a calendar key; the keys are bundle, dateOverrides, date_overrides, "
     "extraWorkingDays, extra_working_days, holidays, holidaysValidUntil, holidays_valid_until, "
     "hours, timeZone, time_zone, weekPeriods, week_periods, weekend, workingHours, working_hours "
     "(see CalendarSpec)"),
    ({"holidays": [3]}, "calendar.holidays[0]",
     "3 is not a holiday; write \"2026-12-25\", (\"2026-12-25\", \"Christmas Day\") or "
     "{\"date\": \"2026-12-25\", \"name\": \"Christmas Day\"}"),
    ({"time_zone": "UTC", "timeZone": "UTC"}, "calendar.timeZone",
     "the calendar's time_zone is given twice; give it once"),
    ({"hours": ["someday 09:00-17:00"]}, "calendar.hours", None),
    ({"workingHours": {"days": [{"weekday": "mon"}]}}, "calendar.workingHours", None),
    ({"hours": ["mon-fri 09:00-17:00"], "workingHours": {}}, "calendar.hours",
     "give hours (the CLI's specs) or workingHours (the JSON form), not both"),
    ({"weekend": {"days": ["sat"]}}, "calendar.weekend", None),
    ({"time_zone": 5}, "calendar.time_zone", None),
])
def test_a_wrong_mapping_names_its_key(mapping, field, description):
    with pytest.raises(InvalidArgument) as refused:
        calendar_of_mapping(mapping)
    (violation,) = refused.value.violations
    assert violation.field == field
    assert str(refused.value).startswith(f"{field}: ")
    if description is not None:
        assert violation.description == description


def test_a_mapping_calendar_over_the_wire(server):
    zagreb = {"time_zone": "Europe/Zagreb", "holidays": ["2026-12-25", "2026-12-26"]}
    with DuetimeClient(server.address, timeout=10) as duetime:
        answer = duetime.compute_due_time(datetime(2026, 12, 23, 15, tzinfo=UTC), "2bd", zagreb)
        assert answer.due_local == "2026-12-28T16:00:00+01:00"
        assert duetime.open_status(datetime(2026, 12, 25, 11, tzinfo=UTC), zagreb).closed_reason \
            == "holiday"
        batch = duetime.compute_due_times([DueTimeRequest(FRIDAY, "1bd", zagreb)] * 2)
        assert [r.due_time.due_local for r in batch] == ["2026-11-30T16:00:00+01:00"] * 2
        with pytest.raises(InvalidArgument) as wrong:
            duetime.compute_due_time(FRIDAY, "1bd", {"zone": "Europe/Zagreb"})
        assert wrong.value.violations[0].field == "calendar.zone"
        with pytest.raises(InvalidArgument) as odd:
            duetime.compute_due_time(FRIDAY, "1bd", 42)
        assert odd.value.violations == (Violation(
            "calendar", "a int is not a calendar; give a bundle name, a mapping, a CalendarSpec "
                        "or a duetime.v1.Calendar"),)
    assert answer.due == datetime(2026, 12, 28, 15, tzinfo=UTC) - timedelta(0)
