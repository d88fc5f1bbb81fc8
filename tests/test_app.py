"""Use cases over the in-memory ledger: conversion, recording, idempotency."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from duetime.app import AlreadyExists, DueTimeApp, RecordNotFound, calendar_from_proto, compute
from duetime.core import InvalidArgument, OutOfRange
from duetime.ledger import LedgerUnavailable, MemoryLedger
from duetime.tzdb import tzdata_version
from duetime.v1 import duetime_pb2 as pb
from server_process import zagreb_request

RECEIVED = datetime(2026, 11, 27, 15, 0, 1, 250_000, tzinfo=timezone.utc)


@pytest.fixture
def app():
    return DueTimeApp(MemoryLedger())


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
    record = app.get_record(response.record_id)
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
    """A concurrent call stored the key between this call's lookup and its put."""
    winner = app.compute_due_time(zagreb_request("k"), RECEIVED)
    real, lookups = app.ledger.get_by_key, []

    def get_by_key(key):
        lookups.append(key)
        return None if len(lookups) == 1 else real(key)

    monkeypatch.setattr(app.ledger, "get_by_key", get_by_key)
    assert app.compute_due_time(zagreb_request("k"), RECEIVED) == winner
    assert lookups == ["k", "k"]


def test_unwritable_ledger_returns_nothing(app, monkeypatch):
    def fail(row):
        raise LedgerUnavailable("disk full")
    monkeypatch.setattr(app.ledger, "put", fail)
    with pytest.raises(LedgerUnavailable):
        app.compute_due_time(zagreb_request(), RECEIVED)


def test_get_record_errors(app):
    with pytest.raises(RecordNotFound):
        app.get_record("0" * 32)
    with pytest.raises(InvalidArgument):
        app.get_record("")
