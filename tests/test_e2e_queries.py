"""End to end: the docs/semantics.md §3–§5 examples, business time, open status,
schedules, explanations, at_close, the holiday horizon, warnings, records and
idempotency of the new RPCs, and a table of bad inputs — all over gRPC against
one real ``python -m duetime serve`` subprocess. Exact values throughout."""

from __future__ import annotations

import grpc
import pytest
from duetime.v1 import duetime_pb2 as pb
from google.protobuf.duration_pb2 import Duration
from google.protobuf.timestamp_pb2 import Timestamp
from server_process import server_fixture, ts, zagreb_request  # noqa: F401 - the "server" fixture
from test_e2e import assert_answers_zagreb, failure

H = 3600  # seconds
INVALID, OUT_OF_RANGE = grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.OUT_OF_RANGE
SERVICE = "/duetime.v1.DueTimeService/"


def utc(stamp: Timestamp) -> str:
    return stamp.ToJsonString()


def interval(start: str, end: str) -> pb.TimeInterval:
    return pb.TimeInterval(start=start, end=end)


ZAGREB_XMAS = pb.Calendar(
    time_zone="Europe/Zagreb",
    holidays=[pb.Holiday(date="2026-12-25", name="Christmas Day"),
              pb.Holiday(date="2026-12-26", name="St. Stephen's Day")],
)
# docs/semantics.md §5's precedence example: a shortened Christmas Eve, an extra Sunday, a closed Monday.
XMAS = pb.Calendar(
    time_zone="Europe/Zagreb",
    holidays=ZAGREB_XMAS.holidays,
    date_overrides=[
        pb.DateOverride(date="2026-12-24", intervals=[interval("09:00", "13:00")],
                        name="Christmas Eve"),
        pb.DateOverride(date="2026-12-28", closed=True, name="Inventory"),
    ],
    extra_working_days=[pb.ExtraWorkingDay(date="2026-12-27", name="Sunday shift")],
)
ALWAYS_OPEN_ZAGREB = pb.Calendar(
    time_zone="Europe/Zagreb",
    weekend=pb.WeekendDays(),
    working_hours=pb.WorkingHours(days=[
        pb.DayHours(weekday=day, intervals=[interval("00:00", "24:00")]) for day in range(1, 8)
    ]),
)
DEADLINES = [
    pb.DeadlineSpec(name="remind", duration="2bd"),
    pb.DeadlineSpec(name="escalate", duration="5bd"),
    pb.DeadlineSpec(name="expire", duration="30d"),
    pb.DeadlineSpec(name="final", duration="4bh", after="escalate"),
]


def due_request(start: str, duration: str, calendar: pb.Calendar | None = None,
                **fields) -> pb.ComputeDueTimeRequest:
    return pb.ComputeDueTimeRequest(start=ts(start), duration=duration, calendar=calendar,
                                    **fields)


def between_request(start: str, end: str, calendar: pb.Calendar | None = None,
                    **fields) -> pb.ComputeBusinessTimeRequest:
    return pb.ComputeBusinessTimeRequest(start_time=ts(start), end_time=ts(end),
                                         calendar=calendar, **fields)


def open_request(time: str, calendar: pb.Calendar | None = None,
                 **fields) -> pb.GetOpenStatusRequest:
    return pb.GetOpenStatusRequest(time=ts(time), calendar=calendar, **fields)


def schedule_request(entered: str, deadlines=DEADLINES, calendar: pb.Calendar | None = ZAGREB_XMAS,
                     **fields) -> pb.ComputeScheduleRequest:
    return pb.ComputeScheduleRequest(entered_time=ts(entered), deadlines=deadlines,
                                     calendar=calendar, **fields)


def call(server, request):
    """Call the RPC that takes ``request``'s type."""
    rpc = {
        pb.ComputeDueTimeRequest: server.stub.ComputeDueTime,
        pb.ComputeBusinessTimeRequest: server.stub.ComputeBusinessTime,
        pb.GetOpenStatusRequest: server.stub.GetOpenStatus,
        pb.ComputeScheduleRequest: server.stub.ComputeSchedule,
    }[type(request)]
    return rpc(request, timeout=10)


# ---- docs/semantics.md §3–§5 examples -----------------------------------------------------------

NO_WEEKEND_ZAGREB = pb.Calendar(time_zone="Europe/Zagreb", weekend=pb.WeekendDays())
JERUSALEM = pb.Calendar(time_zone="Asia/Jerusalem", weekend=pb.WeekendDays(days=[5, 6]))


@pytest.mark.parametrize("start, duration, calendar, due_local, due_utc", [
    # §3 business days
    ("2026-11-27T16:00:00+01:00", "3bd", ZAGREB_XMAS,
     "2026-12-02T16:00:00+01:00", "2026-12-02T15:00:00Z"),
    ("2026-11-28T10:00:00Z", "2bd", None, "2026-12-01T10:00:00+00:00", "2026-12-01T10:00:00Z"),
    ("2026-12-24T09:00:00+01:00", "1bd", ZAGREB_XMAS,
     "2026-12-28T09:00:00+01:00", "2026-12-28T08:00:00Z"),
    ("2026-03-28T02:30:00+01:00", "1bd", NO_WEEKEND_ZAGREB,
     "2026-03-29T03:30:00+02:00", "2026-03-29T01:30:00Z"),
    ("2026-10-22T01:30:00+03:00", "1bd", JERUSALEM,
     "2026-10-25T01:30:00+03:00", "2026-10-24T22:30:00Z"),
    # §4 business hours
    ("2026-11-28T10:00:00Z", "1bh", None, "2026-11-30T10:00:00+00:00", "2026-11-30T10:00:00Z"),
    ("2026-11-27T16:00:00Z", "1bh", None, "2026-11-27T17:00:00+00:00", "2026-11-27T17:00:00Z"),
    ("2026-12-24T15:00:00+01:00", "4bh", ZAGREB_XMAS,
     "2026-12-28T11:00:00+01:00", "2026-12-28T10:00:00Z"),
    ("2026-10-24T12:00:00+02:00", "24bh", ALWAYS_OPEN_ZAGREB,
     "2026-10-25T11:00:00+01:00", "2026-10-25T10:00:00Z"),
    ("2026-10-24T12:00:00+02:00", "1d", ALWAYS_OPEN_ZAGREB,
     "2026-10-25T11:00:00+01:00", "2026-10-25T10:00:00Z"),
    ("2026-11-30T10:00:00Z", "-1bh", None, "2026-11-30T09:00:00+00:00", "2026-11-30T09:00:00Z"),
    ("2026-11-30T10:00:00Z", "-2bh", None, "2026-11-27T16:00:00+00:00", "2026-11-27T16:00:00Z"),
    ("2026-12-24T12:00:00+01:00", "2bh", XMAS,
     "2026-12-27T10:00:00+01:00", "2026-12-27T09:00:00Z"),
    # §5 nominal ISO durations
    ("2026-10-24T12:00:00+02:00", "P1D", ALWAYS_OPEN_ZAGREB,
     "2026-10-25T12:00:00+01:00", "2026-10-25T11:00:00Z"),
    ("2026-10-24T12:00:00+02:00", "P2D", NO_WEEKEND_ZAGREB,
     "2026-10-26T12:00:00+01:00", "2026-10-26T11:00:00Z"),
    ("2026-10-24T12:00:00+02:00", "PT48H", NO_WEEKEND_ZAGREB,
     "2026-10-26T11:00:00+01:00", "2026-10-26T10:00:00Z"),
    ("2026-01-31T10:00:00Z", "P1M", None, "2026-02-28T10:00:00+00:00", "2026-02-28T10:00:00Z"),
    ("2028-01-31T10:00:00Z", "P1M", None, "2028-02-29T10:00:00+00:00", "2028-02-29T10:00:00Z"),
], ids=[
    "zagreb-3bd", "saturday-2bd", "holidays-1bd", "gap-1bd", "fold-1bd",
    "saturday-1bh", "friday-1bh-at-close", "zagreb-4bh-christmas", "fall-back-24bh",
    "fall-back-1d", "minus-1bh", "minus-2bh", "precedence-2bh",
    "fall-back-P1D", "fall-back-P2D", "fall-back-PT48H", "P1M-clamped", "P1M-leap",
])
def test_spec_examples(server, start, duration, calendar, due_local, due_utc):
    response = server.stub.ComputeDueTime(due_request(start, duration, calendar), timeout=10)
    assert (response.due_local, utc(response.due)) == (due_local, due_utc)
    assert response.time_zone == (calendar.time_zone if calendar else "UTC")
    assert list(response.warnings) == [] and list(response.explanation) == []


@pytest.mark.parametrize("start, end, business_days", [
    ("2000-01-01T12:00:00Z", "1999-12-30T12:00:00Z", -2),
    ("1999-12-30T12:00:00Z", "2000-01-01T12:00:00Z", 1),
])
def test_spec_bd_between(server, start, end, business_days):
    response = server.stub.ComputeBusinessTime(between_request(start, end), timeout=10)
    assert response.business_days == business_days


# ---- ComputeBusinessTime ------------------------------------------------------------


def test_business_time_both_ways_with_overrides_and_extra_day(server):
    # 24th 10–13 (override, 3h) + Sunday 27th 09–17 (extra day, 8h) + 29th 09–11 (2h)
    forward = server.stub.ComputeBusinessTime(
        between_request("2026-12-24T10:00:00+01:00", "2026-12-29T11:00:00+01:00", XMAS),
        timeout=10)
    assert forward.business_time == Duration(seconds=13 * H)
    assert forward.business_days == 2
    assert forward.time_zone == "Europe/Zagreb" and forward.calendar_version.startswith("cal-")
    back = server.stub.ComputeBusinessTime(
        between_request("2026-12-29T11:00:00+01:00", "2026-12-24T10:00:00+01:00", XMAS),
        timeout=10)
    assert back.business_time == Duration(seconds=-13 * H)
    assert back.business_days == -2


def test_business_time_inverts_bh(server):
    # docs/semantics.md §4: business_time_between(s, s + Nbh) == N hours (the Zagreb 4bh example)
    response = server.stub.ComputeBusinessTime(
        between_request("2026-12-24T15:00:00+01:00", "2026-12-28T11:00:00+01:00", ZAGREB_XMAS),
        timeout=10)
    assert response.business_time == Duration(seconds=4 * H)
    assert response.business_days == 0  # Thursday 15:00 + 1bd = Monday 15:00, after 11:00


def test_business_time_explanation_lists_open_intervals(server):
    response = server.stub.ComputeBusinessTime(between_request(
        "2026-12-24T10:00:00+01:00", "2026-12-29T11:00:00+01:00", XMAS, explain=True), timeout=10)
    opens = [(s.text, utc(s.start_time), utc(s.end_time), s.amount.seconds)
             for s in response.explanation if s.kind == "open"]
    assert opens == [
        ("Thursday 2026-12-24 10:00–13:00: 3h (total 3h of 13h)",
         "2026-12-24T09:00:00Z", "2026-12-24T12:00:00Z", 3 * H),
        ("Sunday 2026-12-27 09:00–17:00: 8h (total 11h of 13h)",
         "2026-12-27T08:00:00Z", "2026-12-27T16:00:00Z", 8 * H),
        ("Tuesday 2026-12-29 09:00–11:00: 2h (total 13h of 13h)",
         "2026-12-29T08:00:00Z", "2026-12-29T10:00:00Z", 2 * H),
    ]


# ---- GetOpenStatus ------------------------------------------------------------------


def test_open_status_open(server):
    response = server.stub.GetOpenStatus(open_request("2026-12-24T12:00:00+01:00", XMAS),
                                         timeout=10)
    assert response.open and response.business_day
    assert (response.local_date, response.closed_reason, response.holiday_name) == (
        "2026-12-24", "", "")
    assert (utc(response.current_interval.start_time), utc(response.current_interval.end_time)) \
        == ("2026-12-24T08:00:00Z", "2026-12-24T12:00:00Z")
    assert utc(response.next_close_time) == "2026-12-24T12:00:00Z"
    assert utc(response.next_open_time) == "2026-12-27T08:00:00Z"
    assert response.time_zone == "Europe/Zagreb" and len(response.record_id) == 32


def test_open_status_closed_on_a_named_holiday(server):
    response = server.stub.GetOpenStatus(open_request("2026-12-25T12:00:00+01:00", XMAS),
                                         timeout=10)
    assert not response.open and not response.business_day
    assert not response.HasField("current_interval")
    assert (response.local_date, response.closed_reason, response.holiday_name) == (
        "2026-12-25", "holiday (Christmas Day)", "Christmas Day")
    assert utc(response.next_open_time) == "2026-12-27T08:00:00Z"
    assert utc(response.next_close_time) == "2026-12-27T16:00:00Z"


def test_open_status_closed_by_override(server):
    response = server.stub.GetOpenStatus(open_request("2026-12-28T12:00:00+01:00", XMAS),
                                         timeout=10)
    assert not response.open and not response.business_day
    assert (response.closed_reason, response.holiday_name) == (
        "closed by override (Inventory)", "")
    assert utc(response.next_open_time) == "2026-12-29T08:00:00Z"


def test_open_status_of_an_always_open_calendar_has_no_next_edges(server):
    response = server.stub.GetOpenStatus(
        open_request("2026-10-24T12:00:00+02:00", ALWAYS_OPEN_ZAGREB), timeout=10)
    assert response.open
    assert not response.HasField("next_open_time") and not response.HasField("next_close_time")


# ---- ComputeSchedule ----------------------------------------------------------------


def test_schedule_from_entry_and_chained(server):
    response = server.stub.ComputeSchedule(schedule_request("2026-11-27T16:00:00+01:00"),
                                           timeout=10)
    assert [(d.name, d.due_local, utc(d.due_time), utc(d.from_time), d.after)
            for d in response.deadlines] == [
        ("remind", "2026-12-01T16:00:00+01:00", "2026-12-01T15:00:00Z",
         "2026-11-27T15:00:00Z", ""),
        ("escalate", "2026-12-04T16:00:00+01:00", "2026-12-04T15:00:00Z",
         "2026-11-27T15:00:00Z", ""),
        ("expire", "2026-12-27T16:00:00+01:00", "2026-12-27T15:00:00Z",
         "2026-11-27T15:00:00Z", ""),
        ("final", "2026-12-07T12:00:00+01:00", "2026-12-07T11:00:00Z",
         "2026-12-04T15:00:00Z", "escalate"),
    ]
    assert (response.next_due, utc(response.next_due_time)) == ("remind", "2026-12-01T15:00:00Z")
    assert response.time_zone == "Europe/Zagreb" and len(response.record_id) == 32
    assert all(not d.explanation for d in response.deadlines)


def test_schedule_at_close_next_open_and_explain(server):
    request = schedule_request(
        "2026-11-27T15:00:00Z",
        [pb.DeadlineSpec(name="answer", duration="1bh"),
         pb.DeadlineSpec(name="follow-up", duration="1bh", after="answer")],
        calendar=None, at_close=pb.AT_CLOSE_NEXT_OPEN, explain=True)
    response = server.stub.ComputeSchedule(request, timeout=10)
    # 15:00 + 1bh = 16:00 (not at a closing); 16:00 + 1bh ends at Friday's 17:00 closing
    assert [utc(d.due_time) for d in response.deadlines] == [
        "2026-11-27T16:00:00Z", "2026-11-30T09:00:00Z"]
    assert [s.kind for s in response.deadlines[0].explanation][-1] == "due"
    assert "at_close = NEXT_OPEN" in response.deadlines[1].explanation[-2].text


# ---- explanations, at_close, horizon, warnings -----------------------------------------


def test_explain_names_the_skipped_holiday(server):
    response = server.stub.ComputeDueTime(
        due_request("2026-12-24T16:00:00+01:00", "3bd", ZAGREB_XMAS, explain=True), timeout=10)
    assert response.due_local == "2026-12-30T16:00:00+01:00"
    steps = [(s.kind, s.local_date, s.text) for s in response.explanation]
    assert steps[1:4] == [
        ("skip", "2026-12-25", "Friday 2026-12-25: skipped, holiday (Christmas Day)"),
        ("skip", "2026-12-26", "Saturday 2026-12-26: skipped, holiday (St. Stephen's Day)"),
        ("skip", "2026-12-27", "Sunday 2026-12-27: skipped, weekend"),
    ]
    first, last = response.explanation[0], response.explanation[-1]
    assert (first.kind, utc(first.start_time)) == ("start", "2026-12-24T15:00:00Z")
    assert (last.kind, utc(last.start_time)) == ("due", "2026-12-30T15:00:00Z")
    assert not first.HasField("end_time") and not first.HasField("amount")


@pytest.mark.parametrize("at_close, due_utc", [
    (pb.AT_CLOSE_UNSPECIFIED, "2026-11-27T17:00:00Z"),
    (pb.AT_CLOSE_END_OF_WINDOW, "2026-11-27T17:00:00Z"),
    (pb.AT_CLOSE_NEXT_OPEN, "2026-11-30T09:00:00Z"),
])
def test_at_close(server, at_close, due_utc):
    response = server.stub.ComputeDueTime(
        due_request("2026-11-27T16:00:00Z", "1bh", at_close=at_close), timeout=10)
    assert utc(response.due) == due_utc


def test_holidays_valid_until_is_out_of_range(server):
    calendar = pb.Calendar(holidays=[pb.Holiday(date="2026-12-25")],
                           holidays_valid_until="2026-12-31")
    inside = server.stub.ComputeDueTime(due_request("2026-12-28T10:00:00Z", "3bd", calendar),
                                        timeout=10)
    assert utc(inside.due) == "2026-12-31T10:00:00Z" and list(inside.warnings) == []
    code, bad_request, _ = failure(lambda: server.stub.ComputeDueTime(
        due_request("2026-12-30T10:00:00Z", "3bd", calendar), timeout=10))
    assert code == OUT_OF_RANGE
    assert [v.field for v in bad_request.field_violations] == ["calendar.holidays_valid_until"]
    assert "2027-01-04" in bad_request.field_violations[0].description


def test_warning_past_the_last_listed_holiday(server):
    calendar = pb.Calendar(holidays=[pb.Holiday(date="2026-12-25"), pb.Holiday(date="2027-01-01")])
    response = server.stub.ComputeDueTime(due_request("2027-12-20T10:00:00Z", "10bd", calendar),
                                          timeout=10)
    assert utc(response.due) == "2028-01-03T10:00:00Z"
    assert list(response.warnings) == [
        "no holidays known for 2028: the calendar lists holidays up to 2027 only"]
    record = server.stub.GetRecord(pb.GetRecordRequest(record_id=response.record_id), timeout=10)
    stored = pb.ComputeDueTimeResponse()
    assert record.record.response.Unpack(stored) and stored.warnings == response.warnings


# ---- records and idempotency of the new RPCs -------------------------------------------


@pytest.mark.parametrize("request_, rpc, response_type", [
    (between_request("2026-12-24T10:00:00+01:00", "2026-12-29T11:00:00+01:00", XMAS),
     "ComputeBusinessTime", pb.ComputeBusinessTimeResponse),
    (open_request("2026-12-25T12:00:00+01:00", XMAS), "GetOpenStatus", pb.GetOpenStatusResponse),
    (schedule_request("2026-11-27T16:00:00+01:00", explain=True), "ComputeSchedule",
     pb.ComputeScheduleResponse),
], ids=["business-time", "open-status", "schedule"])
def test_new_rpcs_are_recorded(server, request_, rpc, response_type):
    response = call(server, request_)
    assert len(response.record_id) == 32
    record = server.stub.GetRecord(pb.GetRecordRequest(record_id=response.record_id),
                                   timeout=10).record
    assert record.method == SERVICE + rpc
    stored_request, stored_response = type(request_)(), response_type()
    assert record.request.Unpack(stored_request) and stored_request == request_
    assert record.response.Unpack(stored_response) and stored_response == response
    assert (record.calendar_version, record.rules_version, record.tzdata_version) == (
        response.calendar_version, response.rules_version, response.tzdata_version)


@pytest.mark.parametrize("make, change", [
    (lambda key: between_request("2026-12-24T10:00:00+01:00", "2026-12-29T11:00:00+01:00", XMAS,
                                 idempotency_key=key),
     lambda r: setattr(r, "explain", True)),
    (lambda key: open_request("2026-12-25T12:00:00+01:00", XMAS, idempotency_key=key),
     lambda r: r.time.FromJsonString("2026-12-25T12:00:01Z")),
    (lambda key: schedule_request("2026-11-27T16:00:00+01:00", idempotency_key=key),
     lambda r: setattr(r, "at_close", pb.AT_CLOSE_NEXT_OPEN)),
], ids=["business-time", "open-status", "schedule"])
def test_new_rpcs_are_idempotent(server, make, change):
    key = f"step2-{make('').DESCRIPTOR.name}"
    first = call(server, make(key))
    assert call(server, make(key)) == first
    different = make(key)
    change(different)
    code, _, info = failure(lambda: call(server, different))
    assert (code, info.reason) == (grpc.StatusCode.ALREADY_EXISTS, "IDEMPOTENCY_KEY_REUSED")
    # the same key on another method is another request too
    code, _, _ = failure(lambda: server.stub.ComputeDueTime(zagreb_request(key), timeout=10))
    assert code == grpc.StatusCode.ALREADY_EXISTS


# ---- bad inputs -----------------------------------------------------------------------


def cal(**fields) -> pb.Calendar:
    return pb.Calendar(**{"time_zone": "Europe/Zagreb", **fields})


def hours(*days: tuple[int, list[tuple[str, str]]]) -> pb.WorkingHours:
    return pb.WorkingHours(days=[pb.DayHours(weekday=d, intervals=[interval(*i) for i in ivs])
                                 for d, ivs in days])


def due_at(calendar=None, duration="3bd", start="2026-11-27T16:00:00+01:00", **fields):
    return due_request(start, duration, calendar, **fields)


def chain(*specs: tuple[str, str, str], entered="2026-11-27T16:00:00Z", **fields):
    return schedule_request(entered, [pb.DeadlineSpec(name=n, duration=d, after=a)
                                      for n, d, a in specs], calendar=None, **fields)


MANY_HOLIDAYS = [pb.Holiday(date=f"{2000 + i // 365:04d}-01-01") for i in range(10_001)]
ONE_WEEK = hours((1, [("09:00", "17:00")]))

BAD = [
    # -- calendars (on ComputeDueTime)
    ("zone", due_at(cal(time_zone="Europe/Atlantis")), INVALID, ["calendar.time_zone"]),
    ("zone-path", due_at(cal(time_zone="../etc/passwd")), INVALID, ["calendar.time_zone"]),
    ("holiday-month-13", due_at(cal(holidays=[pb.Holiday(date="2026-13-01")])), INVALID,
     ["calendar.holidays[0].date"]),
    ("holiday-feb-30", due_at(cal(holidays=[pb.Holiday(date="2026-02-30")])), INVALID,
     ["calendar.holidays[0].date"]),
    ("holiday-not-a-date", due_at(cal(holidays=[pb.Holiday(date="25.12.2026")])), INVALID,
     ["calendar.holidays[0].date"]),
    ("holiday-far-past", due_at(cal(holidays=[pb.Holiday(date="1850-01-01")])), OUT_OF_RANGE,
     ["calendar.holidays[0].date"]),
    ("holidays-disagree", due_at(cal(holidays=[pb.Holiday(date="2026-12-25", name="A"),
                                               pb.Holiday(date="2026-12-25", name="B")])),
     INVALID, ["calendar.holidays[1].date"]),
    ("too-many-holidays", due_at(cal(holidays=MANY_HOLIDAYS)), INVALID, ["calendar.holidays"]),
    ("weekday-0", due_at(cal(weekend=pb.WeekendDays(days=[0]))), INVALID,
     ["calendar.weekend.days[0]"]),
    ("weekday-9", due_at(cal(weekend=pb.WeekendDays(days=[6, 9]))), INVALID,
     ["calendar.weekend.days[1]"]),
    ("seven-day-weekend", due_at(cal(weekend=pb.WeekendDays(days=range(1, 8)))), INVALID,
     ["calendar.weekend.days"]),
    ("overlapping", due_at(cal(working_hours=hours((1, [("09:00", "12:00"), ("11:00", "13:00")])))),
     INVALID, ["calendar.working_hours.days[0].intervals[1]"]),
    ("zero-length", due_at(cal(working_hours=hours((2, [("09:00", "09:00")])))), INVALID,
     ["calendar.working_hours.days[0].intervals[0].end"]),
    ("bad-wall-time", due_at(cal(working_hours=hours((3, [("25:00", "26:00")])))), INVALID,
     ["calendar.working_hours.days[0].intervals[0].start",
      "calendar.working_hours.days[0].intervals[0].end"]),
    ("hours-on-weekend", due_at(cal(working_hours=hours((6, [("10:00", "12:00")])))), INVALID,
     ["calendar.working_hours.days[0].weekday"]),
    ("hours-weekday-0", due_at(cal(working_hours=hours((0, [])))), INVALID,
     ["calendar.working_hours.days[0].weekday"]),
    ("hours-day-twice", due_at(cal(working_hours=hours((1, []), (1, [])))), INVALID,
     ["calendar.working_hours.days[1].weekday"]),
    ("override-closed-and-intervals", due_at(cal(date_overrides=[pb.DateOverride(
        date="2026-12-24", intervals=[interval("09:00", "13:00")], closed=True)])), INVALID,
     ["calendar.date_overrides[0].closed"]),
    ("override-empty", due_at(cal(date_overrides=[pb.DateOverride(date="2026-12-24")])), INVALID,
     ["calendar.date_overrides[0].intervals"]),
    ("override-bad-date", due_at(cal(date_overrides=[pb.DateOverride(date="2026-02-30",
                                                                     closed=True)])),
     INVALID, ["calendar.date_overrides[0].date"]),
    ("override-bad-interval", due_at(cal(date_overrides=[pb.DateOverride(
        date="2026-12-24", intervals=[interval("9am", "13:00")])])), INVALID,
     ["calendar.date_overrides[0].intervals[0].start"]),
    ("override-twice", due_at(cal(date_overrides=[pb.DateOverride(date="2026-12-24", closed=True)]
                                  * 2)),
     INVALID, ["calendar.date_overrides[1].date"]),
    ("extra-day-bad-date", due_at(cal(extra_working_days=[pb.ExtraWorkingDay(date="2026-02-30")])),
     INVALID, ["calendar.extra_working_days[0].date"]),
    ("valid-until-bad-date", due_at(cal(holidays_valid_until="2026-12-32")), INVALID,
     ["calendar.holidays_valid_until"]),
    ("valid-until-exceeded", due_at(cal(holidays_valid_until="2026-11-30")), OUT_OF_RANGE,
     ["calendar.holidays_valid_until"]),
    ("bh-without-hours", due_at(cal(working_hours=pb.WorkingHours()), "1bh"), INVALID,
     ["duration"]),
    # -- durations
    ("decimal-bd", due_at(duration="1.5bd"), INVALID, ["duration"]),
    ("unknown-unit", due_at(duration="3xy"), INVALID, ["duration"]),
    ("inner-space", due_at(duration="1h 30m"), INVALID, ["duration"]),
    ("lower-case-iso", due_at(duration="p1d"), INVALID, ["duration"]),
    ("arabic-digit", due_at(duration="٣bd"), INVALID, ["duration"]),
    ("mixed-kinds", due_at(duration="1bd4h"), INVALID, ["duration"]),
    ("empty-duration", due_at(duration=""), INVALID, ["duration"]),
    ("too-many-bd", due_at(duration="100001bd"), OUT_OF_RANGE, ["duration"]),
    ("result-past-2199", due_at(duration="5bd", start="2199-12-30T10:00:00Z"), OUT_OF_RANGE,
     ["duration"]),
    # -- instants and other request fields
    ("start-missing", pb.ComputeDueTimeRequest(duration="1bd"), INVALID, ["start"]),
    ("start-far-past", due_at(start="1800-01-01T00:00:00Z"), OUT_OF_RANGE, ["start"]),
    ("start-far-future", due_at(start="2300-01-01T00:00:00Z"), OUT_OF_RANGE, ["start"]),
    ("start-before-1900-locally", due_at(pb.Calendar(time_zone="America/New_York"),
                                         start="1900-01-01T02:00:00Z"),
     OUT_OF_RANGE, ["start"]),
    ("start-sub-microsecond", pb.ComputeDueTimeRequest(
        duration="1bd", start=Timestamp(seconds=1_795_791_600, nanos=1)), INVALID, ["start"]),
    ("start-beyond-timestamp", pb.ComputeDueTimeRequest(
        duration="1bd", start=Timestamp(seconds=10**12)), OUT_OF_RANGE, ["start"]),
    ("at-close-unknown", due_at(duration="1bh", at_close=7), INVALID, ["at_close"]),
    ("key-too-long", due_at(idempotency_key="k" * 201), INVALID, ["idempotency_key"]),
    # -- ComputeBusinessTime
    ("between-start-missing", pb.ComputeBusinessTimeRequest(end_time=ts("2026-11-27T16:00:00Z")),
     INVALID, ["start_time"]),
    ("between-end-missing", pb.ComputeBusinessTimeRequest(start_time=ts("2026-11-27T16:00:00Z")),
     INVALID, ["end_time"]),
    ("between-both-missing", pb.ComputeBusinessTimeRequest(), INVALID,
     ["start_time", "end_time"]),
    ("between-end-far-future", between_request("2026-11-27T16:00:00Z", "2300-01-01T00:00:00Z"),
     OUT_OF_RANGE, ["end_time"]),
    ("between-bad-zone", between_request("2026-11-27T16:00:00Z", "2026-11-30T16:00:00Z",
                                         pb.Calendar(time_zone="Mars/Olympus")),
     INVALID, ["calendar.time_zone"]),
    ("between-past-horizon", between_request("2026-11-27T16:00:00Z", "2027-01-02T16:00:00Z",
                                             pb.Calendar(holidays_valid_until="2026-12-31")),
     OUT_OF_RANGE, ["calendar.holidays_valid_until"]),
    # -- GetOpenStatus
    ("open-time-missing", pb.GetOpenStatusRequest(), INVALID, ["time"]),
    ("open-time-far-past", open_request("1899-06-01T00:00:00Z"), OUT_OF_RANGE, ["time"]),
    ("open-extra-day-feb-30", open_request(
        "2026-11-27T16:00:00Z", cal(extra_working_days=[pb.ExtraWorkingDay(date="2026-02-30")])),
     INVALID, ["calendar.extra_working_days[0].date"]),
    ("open-key-too-long", open_request("2026-11-27T16:00:00Z", idempotency_key="k" * 201),
     INVALID, ["idempotency_key"]),
    # -- ComputeSchedule
    ("schedule-entered-missing", pb.ComputeScheduleRequest(
        deadlines=[pb.DeadlineSpec(name="a", duration="1bd")]), INVALID, ["entered_time"]),
    ("schedule-entered-far-future", chain(("a", "1bd", ""), entered="2300-01-01T00:00:00Z"),
     OUT_OF_RANGE, ["entered_time"]),
    ("schedule-cycle", chain(("a", "1bd", "b"), ("b", "1bd", "a")), INVALID,
     ["deadlines[0].after", "deadlines[1].after"]),
    ("schedule-self", chain(("a", "1bd", "a")), INVALID, ["deadlines[0].after"]),
    ("schedule-unknown-after", chain(("a", "1bd", ""), ("b", "1bd", "zz")), INVALID,
     ["deadlines[1].after"]),
    ("schedule-duplicate-name", chain(("a", "1bd", ""), ("a", "2bd", "")), INVALID,
     ["deadlines[1].name"]),
    ("schedule-empty-name", chain(("", "1bd", "")), INVALID, ["deadlines[0].name"]),
    ("schedule-bad-duration", chain(("a", "1bd", ""), ("b", "1bd4h", "a")), INVALID,
     ["deadlines[1].duration"]),
    ("schedule-no-deadlines", chain(), INVALID, ["deadlines"]),
    ("schedule-chain-past-2199", chain(("a", "3bd", ""), ("b", "5bd", "a"),
                                       entered="2199-12-20T10:00:00Z"),
     OUT_OF_RANGE, ["deadlines[1].duration"]),
    ("schedule-at-close-unknown", chain(("a", "1bh", ""), at_close=3), INVALID, ["at_close"]),
    ("schedule-past-horizon", schedule_request(
        "2026-11-27T16:00:00Z", calendar=pb.Calendar(holidays_valid_until="2026-12-20")),
     OUT_OF_RANGE, ["calendar.holidays_valid_until"]),
]


def test_bad_input_table_is_large_and_distinct():
    assert len(BAD) >= 40
    assert len({name for name, *_ in BAD}) == len(BAD)
    assert len({type(request) for _, request, *_ in BAD}) == 4


@pytest.mark.parametrize("request_, code, fields",
                         [pytest.param(*row[1:], id=row[0]) for row in BAD])
def test_bad_input(server, request_, code, fields):
    got, bad_request, info = failure(lambda: call(server, request_))
    assert got == code
    assert [v.field for v in bad_request.field_violations] == fields
    assert all(v.description for v in bad_request.field_violations)
    assert info.domain == "duetime.dev" and info.reason == code.name


def test_still_serving_after_the_bad_inputs(server):
    assert_answers_zagreb(server)
    response = server.stub.ComputeSchedule(schedule_request("2026-11-27T16:00:00+01:00"),
                                           timeout=10)
    assert response.next_due == "remind"
