"""The typed client's landing rules (docs/semantics.md §15) and week periods
(§16) against a real server: the ``roll`` / ``landing_time`` arguments of
compute_due_time, DueTimeRequest and Deadline, CalendarSpec.week_periods, and
a calendar mapping in the JSON form with enum values by their short names
(§14), as HTTP reads it."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from duetime.client import (
    CalendarSpec,
    Deadline,
    DueTimeRequest,
    DuetimeClient,
    InvalidArgument,
    Violation,
    calendar_of_mapping,
)
from duetime.v1 import duetime_pb2 as pb
from server_process import server_fixture  # noqa: F401 - the "server" fixture

UTC = timezone.utc
CET = timezone(timedelta(hours=1))
ZAGREB = CalendarSpec(time_zone="Europe/Zagreb", holidays=("2026-12-25", "2026-12-26"))


@pytest.fixture
def client(server):
    with DuetimeClient(server.address, timeout=10) as duetime:
        yield duetime


def test_roll_and_landing_time_arguments(client):
    friday = datetime(2026, 1, 30, 10, tzinfo=CET)
    assert client.compute_due_time(friday, "P1M", ZAGREB, roll="following").due_local \
        == "2026-03-02T10:00:00+01:00"
    for spelling in ("modified-following", "MODIFIED_FOLLOWING", "ROLL_MODIFIED_FOLLOWING",
                     "Modified-Following"):
        assert client.compute_due_time(friday, "P1M", ZAGREB, roll=spelling).due_local \
            == "2026-02-27T10:00:00+01:00"
    two_weeks = client.compute_due_time(datetime(2026, 12, 11, 12, tzinfo=CET), "P2W", ZAGREB,
                                        roll="following", landing_time="end", explain=True)
    assert two_weeks.due_local == "2026-12-29T00:00:00+01:00"
    assert [s.kind for s in two_weeks.explanation].count("roll") == 1
    assert client.compute_due_time(datetime(2026, 12, 24, 9, tzinfo=CET), "1bd", ZAGREB,
                                   landing_time="end").due_local == "2026-12-29T00:00:00+01:00"


def test_fields_and_text_are_one_request(client):
    friday = datetime(2026, 1, 30, 10, tzinfo=CET)
    by_fields = client.compute_due_time(friday, "P1M", ZAGREB, roll="following",
                                        landing_time="close", idempotency_key="landing-1")
    by_text = client.compute_due_time(friday, "P1M@following@close", ZAGREB,
                                      idempotency_key="landing-1")
    assert by_fields.due_local == "2026-03-02T17:00:00+01:00"
    assert by_text.recorded.record_id == by_fields.recorded.record_id


def test_a_bad_roll_is_refused_before_it_is_sent(client):
    with pytest.raises(InvalidArgument) as refused:
        client.compute_due_time(datetime(2026, 1, 30, 10, tzinfo=CET), "P1M", ZAGREB,
                                roll="sideways")
    assert refused.value.violations == (Violation(
        "roll", "'sideways' is not a roll; write one of following, preceding, "
                "modified-following, modified-preceding (or leave it out for none)"),)
    with pytest.raises(InvalidArgument) as both:
        client.compute_due_time(datetime(2026, 1, 30, 10, tzinfo=CET), "P1M@preceding", ZAGREB,
                                roll="following")
    assert {v.field for v in both.value.violations} == {"duration", "roll"}


def test_batch_items_and_deadlines_take_the_rule(client):
    friday = datetime(2026, 1, 30, 10, tzinfo=CET)
    results = client.compute_due_times([
        DueTimeRequest(friday, "P1M", ZAGREB, roll="preceding"),
        DueTimeRequest(friday, "P1M", ZAGREB, roll="following", landing_time="09:30"),
    ])
    assert [r.due_time.due_local for r in results] == [
        "2026-02-27T10:00:00+01:00", "2026-03-02T09:30:00+01:00"]
    with pytest.raises(InvalidArgument) as refused:
        client.compute_due_times([DueTimeRequest(friday, "P1M", ZAGREB, roll="nope")])
    assert refused.value.violations[0].field == "items[0].roll"
    schedule = client.compute_schedule(
        datetime(2026, 12, 11, 12, tzinfo=CET),
        [Deadline("pay", "P2W", roll="following", landing_time="end"),
         Deadline("remind", "P2W"), "text=P2W@following@close"], ZAGREB)
    assert [(d.name, d.due_local) for d in schedule.deadlines] == [
        ("pay", "2026-12-29T00:00:00+01:00"), ("remind", "2026-12-25T12:00:00+01:00"),
        ("text", "2026-12-28T17:00:00+01:00")]


# Europe/Zagreb, 09:00–17:00 Monday–Friday, and from 2027-03-01 08:00–18:00
# Monday–Friday (docs/semantics.md §16).
LONGER = "2027-03-01: mon-fri 08:00-18:00"


def test_calendar_spec_week_periods(client):
    spec = CalendarSpec(time_zone="Europe/Zagreb", week_periods=(LONGER,))
    assert client.compute_due_time(datetime(2027, 2, 26, 16, tzinfo=CET), "2bh", spec).due_local \
        == "2027-03-01T09:00:00+01:00"
    between = client.business_time(datetime(2027, 2, 26, tzinfo=CET),
                                   datetime(2027, 3, 2, tzinfo=CET), spec)
    assert between.business_time == timedelta(hours=18)
    message = spec.to_proto()
    assert [(p.from_date, [(d.weekday, d.intervals[0].start, d.intervals[0].end)
                           for d in p.working_hours.days]) for p in message.week_periods] == [
        ("2027-03-01", [(day, "08:00", "18:00") for day in range(1, 6)])]
    # a new weekend from a date: Monday off, Tuesday–Friday 08:00–17:00
    monday_off = CalendarSpec(time_zone="Europe/Zagreb", week_periods=(
        "2027-03-01: weekend mon,sat,sun; tue-fri 08:00-17:00",))
    assert client.compute_due_time(datetime(2027, 2, 26, 16, tzinfo=CET), "2bh",
                                   monday_off).due_local == "2027-03-02T09:00:00+01:00"


def test_json_week_periods_take_short_enum_names(client):
    days = [{"weekday": name, "intervals": [{"start": "08:00", "end": "18:00"}]}
            for name in ("MONDAY", "tuesday", "Wednesday", "WEEKDAY_THURSDAY", "friday")]
    mapping = {"timeZone": "Europe/Zagreb",
               "weekPeriods": [{"fromDate": "2027-03-01", "workingHours": {"days": days}}]}
    before = repr(mapping)
    message = calendar_of_mapping(mapping)
    assert repr(mapping) == before  # the caller's mapping is left as it was
    assert message == CalendarSpec(time_zone="Europe/Zagreb", week_periods=(LONGER,)).to_proto()
    assert client.compute_due_time(datetime(2027, 2, 26, 16, tzinfo=CET), "2bh", mapping).due_local \
        == "2027-03-01T09:00:00+01:00"
    weekend = calendar_of_mapping({"weekend": {"days": ["friday", "SATURDAY"]},
                                   "week_periods": [LONGER]})
    assert list(weekend.weekend.days) == [pb.WEEKDAY_FRIDAY, pb.WEEKDAY_SATURDAY]
    assert weekend.week_periods[0].working_hours.days[0].intervals[0].end == "18:00"


def test_an_unknown_enum_name_is_refused_naming_the_field():
    mapping = {"weekPeriods": [{"fromDate": "2027-03-01", "workingHours": {"days": [
        {"weekday": "MONDAYY", "intervals": [{"start": "08:00", "end": "18:00"}]}]}}]}
    with pytest.raises(InvalidArgument) as refused:
        calendar_of_mapping(mapping)
    assert refused.value.violations == (Violation(
        "calendar.weekPeriods",
        "calendar.weekPeriods[0].workingHours.days[0].weekday: 'MONDAYY' is not a value of Weekday; write one of MONDAY, TUESDAY, WEDNESDAY, "
        "THURSDAY, FRIDAY, SATURDAY, SUNDAY (or the full names WEEKDAY_MONDAY, "
        "WEEKDAY_TUESDAY, WEEKDAY_WEDNESDAY, WEEKDAY_THURSDAY, WEEKDAY_FRIDAY, "
        "WEEKDAY_SATURDAY, WEEKDAY_SUNDAY)"),)
    with pytest.raises(InvalidArgument) as bad_text:
        CalendarSpec(week_periods=(": mon-fri 08:00-18:00",)).to_proto()
    assert bad_text.value.violations[0].field == "week_periods[0]"
