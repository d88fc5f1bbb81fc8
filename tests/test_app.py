"""Use cases over the in-memory ledger: conversion, recording, idempotency."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from duetime.api.convert import _MESSAGES, METHODS, OPEN_STATUS, calendar_from_proto, record_of
from duetime.app import AlreadyExists, RecordNotFound
from duetime.compose import build_app
from duetime.core import InvalidArgument, OutOfRange
from duetime.ledger import LedgerUnavailable, MemoryLedger
from duetime.tzdb import tzdata_version
from duetime.v1 import duetime_pb2 as pb
from local_app import compute
from server_process import zagreb_request

RECEIVED = datetime(2026, 11, 27, 15, 0, 1, 250_000, tzinfo=timezone.utc)


@pytest.fixture
def app():
    return build_app(MemoryLedger())


def test_compute_zagreb_example():
    response = compute(zagreb_request())
    assert response.due.ToJsonString() == "2026-12-02T15:00:00Z"
    assert response.due_local == "2026-12-02T16:00:00+01:00"
    assert response.time_zone == "Europe/Zagreb"
    assert response.record_id == ""
    assert response.calendar_version.startswith("cal-") and len(response.calendar_version) == 20
    assert response.tzdata_version == tzdata_version()


def test_weekend_unset_vs_empty():
    # Saturday 2026-11-28 10:00 UTC + 1bd: Monday with the default weekend, Sunday with none.
    request = pb.ComputeDueTimeRequest(duration="1bd")
    request.start.FromJsonString("2026-11-28T10:00:00Z")
    assert compute(request).due.ToJsonString() == "2026-11-30T10:00:00Z"
    request.calendar.weekend.SetInParent()
    assert compute(request).due.ToJsonString() == "2026-11-29T10:00:00Z"


def test_working_hours_and_weekdays_convert():
    cal = pb.Calendar(
        weekend=pb.WeekendDays(days=[pb.WEEKDAY_FRIDAY, pb.WEEKDAY_SATURDAY]),
        working_hours=pb.WorkingHours(days=[pb.DayHours(
            weekday=pb.WEEKDAY_SUNDAY,
            intervals=[pb.TimeInterval(start="08:00", end="12:00")],
        )]),
    )
    assert calendar_from_proto(cal) == calendar_from_proto(pb.Calendar(
        weekend=pb.WeekendDays(days=[6, 5]),
        working_hours=pb.WorkingHours(days=[pb.DayHours(
            weekday=7, intervals=[pb.TimeInterval(start="08:00", end="12:00")],
        )]),
    ))
    with pytest.raises(InvalidArgument) as caught:
        calendar_from_proto(pb.Calendar(weekend=pb.WeekendDays(days=[pb.WEEKDAY_UNSPECIFIED])))
    assert caught.value.violations[0].field == "calendar.weekend.days[0]"


@pytest.mark.parametrize("request_, field, error", [
    (pb.ComputeDueTimeRequest(duration="1h"), "start", InvalidArgument),
    (pb.ComputeDueTimeRequest(duration="1h", start={"nanos": 1}), "start", InvalidArgument),
    (pb.ComputeDueTimeRequest(duration="1h", start={"seconds": 10**12}), "start", OutOfRange),
    (pb.ComputeDueTimeRequest(duration="1h", start={}, idempotency_key="k" * 201),
     "idempotency_key", InvalidArgument),
])
def test_bad_requests_name_the_field(app, request_, field, error):
    with pytest.raises(error) as caught:
        app.compute_due_time(request_, RECEIVED)
    assert [v.field for v in caught.value.violations] == [field]


def test_records_before_answering(app):
    response = app.compute_due_time(zagreb_request(), RECEIVED)
    record = record_of(app.get_record(response.record_id))
    assert record.method == "/duetime.v1.DueTimeService/ComputeDueTime"
    assert record.receive_time.ToJsonString() == "2026-11-27T15:00:01.250Z"
    request, stored = pb.ComputeDueTimeRequest(), pb.ComputeDueTimeResponse()
    assert record.request.Unpack(request) and request == zagreb_request()
    assert record.response.Unpack(stored) and stored == response
    assert (record.calendar_version, record.rules_version, record.tzdata_version) == (
        response.calendar_version, response.rules_version, response.tzdata_version)
    assert record.content_sha256 == app.ledger.get(response.record_id).digest()


def test_idempotent_retry_and_conflict(app):
    first = app.compute_due_time(zagreb_request("key-1"), RECEIVED)
    assert app.compute_due_time(zagreb_request("key-1"), RECEIVED) == first
    other = zagreb_request("key-1")
    other.duration = "4bd"
    with pytest.raises(AlreadyExists, match="key-1"):
        app.compute_due_time(other, RECEIVED)


def test_lost_race_on_key_replays_winner(app, monkeypatch):
    """A concurrent call stored the key between this call's lookup and its put:
    the put returns the row holding the key, and the call answers from it."""
    winner = app.compute_due_time(zagreb_request("k"), RECEIVED)
    lookups = []

    def get_by_key(key, namespace=""):
        lookups.append((key, namespace))
        return None

    monkeypatch.setattr(app.ledger, "get_by_key", get_by_key)
    assert app.compute_due_time(zagreb_request("k"), RECEIVED) == winner
    assert lookups == [("k", "")]
    assert len(app.ledger.list_records()[0]) == 1


def test_unwritable_ledger_returns_nothing(app, monkeypatch):
    def fail(rows):
        raise LedgerUnavailable("disk full")
    monkeypatch.setattr(app.ledger, "put_many", fail)
    with pytest.raises(LedgerUnavailable):
        app.compute_due_time(zagreb_request(), RECEIVED)


def test_get_record_errors(app):
    with pytest.raises(RecordNotFound):
        app.get_record("0" * 32)
    with pytest.raises(InvalidArgument):
        app.get_record("")


# ---- every computing call goes through the one recorded path ----------------


def _open_request(key: str = "") -> pb.GetOpenStatusRequest:
    request = pb.GetOpenStatusRequest(calendar=zagreb_request().calendar, idempotency_key=key)
    request.time.FromJsonString("2026-12-25T11:00:00Z")
    return request


READ_ONLY = {"GetRecord", "ListRecords", "AnalyzeImpact"}
"""The DueTimeService calls that only read the ledger (not recorded)."""
BATCHES = {"BatchComputeDueTimes", "StreamComputeDueTimes"}
"""The DueTimeService calls recording each item as a ComputeDueTime record."""


def test_methods_table_covers_every_computing_rpc():
    service = pb.DESCRIPTOR.services_by_name["DueTimeService"]
    computing = {f"/duetime.v1.DueTimeService/{m.name}" for m in service.methods
                 if m.name not in READ_ONLY | BATCHES}
    assert set(METHODS) == computing == set(_MESSAGES)
    for method in METHODS.values():
        assert method.request_type.DESCRIPTOR.fields_by_name["idempotency_key"]
        for field in ("record_id", "time_zone", "calendar_version", "rules_version",
                      "tzdata_version", "warnings"):
            assert field in method.response_type.DESCRIPTOR.fields_by_name, (method.rpc, field)


def test_new_call_is_recorded_and_idempotent(app):
    first = app.get_open_status(_open_request("open-1"), RECEIVED)
    assert (first.open, first.closed_reason) == (False, "holiday")
    assert app.get_open_status(_open_request("open-1"), RECEIVED) == first
    record = record_of(app.get_record(first.record_id))
    stored = pb.GetOpenStatusResponse()
    assert record.method == OPEN_STATUS.name and record.response.Unpack(stored)
    assert stored == first
    other = _open_request("open-1")
    other.time.FromJsonString("2026-12-24T11:00:00Z")
    with pytest.raises(AlreadyExists):
        app.get_open_status(other, RECEIVED)


def test_same_key_on_another_method_is_already_exists(app):
    app.compute_due_time(zagreb_request("shared"), RECEIVED)
    with pytest.raises(AlreadyExists):
        app.get_open_status(_open_request("shared"), RECEIVED)


def test_bad_new_request_is_not_recorded(app, monkeypatch):
    monkeypatch.setattr(app.ledger, "put_many", lambda rows: pytest.fail("recorded a bad request"))
    with pytest.raises(InvalidArgument) as caught:
        app.compute_business_time(pb.ComputeBusinessTimeRequest(), RECEIVED)
    assert [v.field for v in caught.value.violations] == ["start_time", "end_time"]
    with pytest.raises(InvalidArgument) as caught:
        app.compute_schedule(pb.ComputeScheduleRequest(idempotency_key="k" * 201), RECEIVED)
    assert [v.field for v in caught.value.violations] == ["idempotency_key"]


def test_calendar_from_proto_new_parts():
    calendar = calendar_from_proto(pb.Calendar(
        date_overrides=[pb.DateOverride(date="2026-12-24", name="Eve",
                                        intervals=[pb.TimeInterval(start="09:00", end="13:00")]),
                        pb.DateOverride(date="2026-12-28", closed=True)],
        extra_working_days=[pb.ExtraWorkingDay(date="2026-12-27", name="shift")],
        holidays_valid_until="2027-12-31",
    ))
    assert [(o.date.isoformat(), o.closed, o.name) for o in calendar.date_overrides] == [
        ("2026-12-24", False, "Eve"), ("2026-12-28", True, "")]
    assert [(x.date.isoformat(), x.name) for x in calendar.extra_working_days] == [
        ("2026-12-27", "shift")]
    assert calendar.holidays_valid_until.isoformat() == "2027-12-31"
    assert calendar_from_proto(pb.Calendar()).holidays_valid_until is None
