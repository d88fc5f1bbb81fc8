"""Calendar queries (docs/semantics.md §9.1): open periods, business days in a
date range, the last opening and closing — the core, the recorded methods in
process, the HTTP routes, gRPC and the typed client against a real server,
and the command line. Exact values throughout; every example of §9.1 is here."""

from __future__ import annotations

import base64
import json
from datetime import date, datetime, timedelta, timezone

import grpc
import pytest
from duetime.api import http
from duetime.api.callers import SCOPE_OF
from duetime.api.convert import COUNT_BUSINESS_DAYS, LIST_OPEN_PERIODS, METHODS, OPEN_STATUS
from duetime.catalog import Catalog
from duetime.cli import main
from duetime.client import DuetimeClient
from duetime.client import InvalidArgument as ClientInvalidArgument
from duetime.compose import build_app
from duetime.core import Calendar, InvalidArgument, OutOfRange
from duetime.core.engine import between_us
from duetime.core.periods import (
    MAX_PAGE_SIZE,
    PAGE_WORK,
    count_business_days,
    open_periods,
    page_token,
    read_page_token,
    run_bounds,
)
from duetime.core.zones import from_us, to_us
from duetime.ledger import MemoryLedger
from duetime.v1 import duetime_pb2 as pb
from server_process import CALENDARS, server_fixture  # noqa: F401 - the "server" fixture
from test_http_app import Client

UTC = timezone.utc
H = 3_600_000_000  # µs

# The calendar of docs/semantics.md §9.1's examples: Europe/Zagreb, Saturday and
# Sunday off, 09:00–17:00, holidays 2026-12-25 and 2026-12-26.
ZAGREB = Calendar.from_text("Europe/Zagreb", holidays=[("2026-12-25", "Christmas Day"),
                                                       ("2026-12-26", "St. Stephen's Day")])
ZAGREB_PB = pb.Calendar(time_zone="Europe/Zagreb",
                        holidays=[pb.Holiday(date="2026-12-25", name="Christmas Day"),
                                  pb.Holiday(date="2026-12-26", name="St. Stephen's Day")])
ALWAYS = Calendar.from_text("Europe/Zagreb", weekend=[],
                            working_hours=[(d, [("00:00", "24:00")]) for d in range(1, 8)])
NIGHTS = Calendar.from_text("Europe/Zagreb", working_hours=[(d, [("22:00", "06:00")]) for d in range(1, 6)])


def us(text: str) -> int:
    return to_us(datetime.fromisoformat(text))


def local(t: int, cal: Calendar = ZAGREB) -> str:
    return from_us(t).astimezone(cal.zone).isoformat()


def periods(cal: Calendar, a: str, b: str, size: int = 0):
    page = open_periods(cal.compiled, us(a), us(b), size)
    return [(local(p.start_us, cal), local(p.end_us, cal), p.local_date.isoformat()) for p in page.periods]


# --- the examples of docs/semantics.md §9.1 ------------------------------------------


def test_open_periods_example_and_their_total():
    a, b = "2026-12-24T15:00:00+01:00", "2026-12-29T10:00:00+01:00"
    assert periods(ZAGREB, a, b) == [
        ("2026-12-24T15:00:00+01:00", "2026-12-24T17:00:00+01:00", "2026-12-24"),
        ("2026-12-28T09:00:00+01:00", "2026-12-28T17:00:00+01:00", "2026-12-28"),
        ("2026-12-29T09:00:00+01:00", "2026-12-29T10:00:00+01:00", "2026-12-29"),
    ]
    page = open_periods(ZAGREB.compiled, us(a), us(b))
    total = sum(p.end_us - p.start_us for p in page.periods)
    assert total == between_us(us(a), us(b), ZAGREB.compiled) == 11 * H
    assert page.resume_us is None


def test_business_days_in_december_2026():
    assert count_business_days(ZAGREB.compiled, date(2026, 12, 1).toordinal(),
                               date(2026, 12, 31).toordinal()) == 22


def test_last_closing_and_opening_example():
    # Saturday 26th (a holiday): the last run is Thursday 24th's
    bounds = run_bounds(ZAGREB.compiled, us("2026-12-26T12:00:00+01:00"))
    assert (local(bounds.last_open_us), local(bounds.last_close_us)) == (
        "2026-12-24T09:00:00+01:00", "2026-12-24T17:00:00+01:00")
    # Monday 28th 10:00, open: the run began at 09:00; the last closing is Thursday's
    bounds = run_bounds(ZAGREB.compiled, us("2026-12-28T10:00:00+01:00"))
    assert (local(bounds.last_open_us), local(bounds.last_close_us)) == (
        "2026-12-28T09:00:00+01:00", "2026-12-24T17:00:00+01:00")


@pytest.mark.parametrize(("at", "last_open", "last_close"), [
    ("2026-12-28T09:00:00+01:00", "2026-12-28T09:00:00+01:00", "2026-12-24T17:00:00+01:00"),
    ("2026-12-24T17:00:00+01:00", "2026-12-24T09:00:00+01:00", "2026-12-24T17:00:00+01:00"),
    ("2026-12-24T16:59:59.999999+01:00", "2026-12-24T09:00:00+01:00", "2026-12-23T17:00:00+01:00"),
])
def test_at_or_before_is_inclusive(at, last_open, last_close):
    bounds = run_bounds(ZAGREB.compiled, us(at))
    assert (local(bounds.last_open_us), local(bounds.last_close_us)) == (last_open, last_close)


# --- merging, dates, clipping ------------------------------------------------------


def test_touching_days_are_one_period_with_its_first_date():
    assert periods(ALWAYS, "2026-03-27T12:00:00+01:00", "2026-03-30T12:00:00+02:00") == [
        ("2026-03-27T12:00:00+01:00", "2026-03-30T12:00:00+02:00", "2026-03-27")]


def test_a_desk_open_for_a_century_is_one_period():
    page = open_periods(ALWAYS.compiled, us("2000-01-01T00:00:00+01:00"), us("2100-01-01T00:00:00+01:00"))
    assert [(local(p.start_us, ALWAYS), local(p.end_us, ALWAYS)) for p in page.periods] == [
        ("2000-01-01T00:00:00+01:00", "2100-01-01T00:00:00+01:00")]


def test_a_long_open_run_stops_at_a_holiday_and_at_the_range_end():
    cal = Calendar.from_text("Europe/Zagreb", weekend=[], holidays=[("2199-12-20", "closed")],
                             working_hours=[(d, [("00:00", "24:00")]) for d in range(1, 8)])
    assert periods(cal, "2199-06-01T00:00:00+02:00", "2199-12-31T12:00:00+01:00") == [
        ("2199-06-01T00:00:00+02:00", "2199-12-20T00:00:00+01:00", "2199-06-01"),
        ("2199-12-21T00:00:00+01:00", "2199-12-31T12:00:00+01:00", "2199-12-21"),
    ]


def test_an_overnight_shift_belongs_to_the_date_it_starts_on():
    # Friday 22:00 – Saturday 06:00 belongs to Friday; cut at a, its first
    # instant is still in Friday's interval
    assert periods(NIGHTS, "2026-12-05T01:00:00+01:00", "2026-12-08T00:00:00+01:00") == [
        ("2026-12-05T01:00:00+01:00", "2026-12-05T06:00:00+01:00", "2026-12-04"),
        ("2026-12-07T22:00:00+01:00", "2026-12-08T00:00:00+01:00", "2026-12-07"),
    ]


def test_a_fall_back_day_period_is_an_hour_longer():
    cal = Calendar.from_text("Europe/Zagreb", weekend=[], working_hours=[(d, [("00:00", "03:00")]) for d in range(1, 8)])
    page = open_periods(cal.compiled, us("2026-10-25T00:00:00+02:00"), us("2026-10-26T00:00:00+01:00"))
    assert [(p.end_us - p.start_us) // H for p in page.periods] == [4]


def test_an_empty_span_and_a_closed_span():
    assert periods(ZAGREB, "2026-12-25T10:00:00+01:00", "2026-12-25T10:00:00+01:00") == []
    assert periods(ZAGREB, "2026-12-25T00:00:00+01:00", "2026-12-28T00:00:00+01:00") == []


def test_a_long_closure_is_jumped_over():
    holidays = [((date(2027, 1, 1) + timedelta(days=i)).isoformat(), "season") for i in range(365)]
    cal = Calendar.from_text("UTC", holidays=holidays)
    assert periods(cal, "2026-12-31T00:00:00+00:00", "2028-01-04T00:00:00+00:00") == [
        ("2026-12-31T09:00:00+00:00", "2026-12-31T17:00:00+00:00", "2026-12-31"),
        ("2028-01-03T09:00:00+00:00", "2028-01-03T17:00:00+00:00", "2028-01-03"),
    ]


def test_end_before_start_is_refused():
    with pytest.raises(InvalidArgument) as caught:
        open_periods(ZAGREB.compiled, us("2026-12-02T00:00:00Z"), us("2026-12-01T00:00:00Z"))
    assert caught.value.violations[0].field == "end_time"


def test_to_before_from_is_refused():
    with pytest.raises(InvalidArgument) as caught:
        count_business_days(ZAGREB.compiled, date(2026, 12, 2).toordinal(), date(2026, 12, 1).toordinal())
    assert caught.value.violations[0].field == "to_date"
    assert "2026-12-01 is before from_date 2026-12-02" in caught.value.violations[0].description


@pytest.mark.parametrize(("first", "last", "count"), [
    ("2026-12-01", "2026-12-01", 1), ("2026-12-25", "2026-12-27", 0), ("2026-12-24", "2026-12-28", 2),
    ("2026-01-01", "2026-12-31", 260), ("1900-01-01", "2199-12-31", None),
])
def test_counts(first, last, count):
    cc = ZAGREB.compiled
    got = count_business_days(cc, date.fromisoformat(first).toordinal(), date.fromisoformat(last).toordinal())
    if count is None:  # the weekdays of three centuries, less Friday 2026-12-25
        o, end = date(1900, 1, 1).toordinal(), date(2199, 12, 31).toordinal()
        count = sum(1 for x in range(o, end + 1) if date.fromordinal(x).isoweekday() < 6) - 1
        assert count == 78_266
    assert got == count


# --- paging ----------------------------------------------------------------------------


def test_pages_hold_at_most_the_size_and_continue_where_they_stopped():
    cc = ZAGREB.compiled
    a, b = us("2026-01-01T00:00:00+01:00"), us("2027-01-01T00:00:00+01:00")
    everything = open_periods(cc, a, b, MAX_PAGE_SIZE).periods
    assert len(everything) == 260
    first = open_periods(cc, a, b)
    assert len(first.periods) == 100 and first.resume_us == first.periods[-1].end_us
    pages, start = [], a
    while True:
        page = open_periods(cc, start, b, 7)
        pages.extend(page.periods)
        if page.resume_us is None:
            break
        start = page.resume_us
    assert pages == list(everything)
    assert len(open_periods(cc, a, us("2035-01-01T00:00:00+01:00"), 5000).periods) == MAX_PAGE_SIZE


def test_a_negative_page_size_is_refused():
    with pytest.raises(InvalidArgument) as caught:
        open_periods(ZAGREB.compiled, us("2026-12-01T00:00:00Z"), us("2026-12-02T00:00:00Z"), -1)
    assert caught.value.violations[0].field == "page_size"


def test_page_tokens_refuse_tampering_and_other_queries():
    a, b = us("2026-12-01T00:00:00Z"), us("2026-12-31T00:00:00Z")
    token = page_token(b"query", a + H)
    assert read_page_token(token, b"query", a, b) == a + H
    raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)).decode()
    forged = raw.replace(str(a + H), str(a + 2 * H))
    bad = [base64.urlsafe_b64encode(forged.encode()).decode(), token[:-2], "x" * 500, "!!", token + "A",
           # the same bytes written otherwise: padded, spaced, standard alphabet, a trailing NUL
           token + "=" * (-len(token) % 4 or 4), f" {token} ", token.replace("-", "+").replace("_", "/") + "+/",
           token + "\x00"]
    for text in bad:
        with pytest.raises(InvalidArgument) as caught:
            read_page_token(text, b"query", a, b)
        assert caught.value.violations[0].field == "page_token"
    with pytest.raises(InvalidArgument):
        read_page_token(token, b"another query", a, b)
    with pytest.raises(InvalidArgument):  # outside the span
        read_page_token(token, b"query", a + H, b)


# --- the recorded methods, in process ------------------------------------------------------


def period_request(a: str, b: str, calendar=ZAGREB_PB, **fields) -> pb.ListOpenPeriodsRequest:
    request = pb.ListOpenPeriodsRequest(calendar=calendar, **fields)
    request.start_time.FromJsonString(a)
    request.end_time.FromJsonString(b)
    return request


@pytest.fixture(scope="module")
def app():
    built = build_app(MemoryLedger(), Catalog.load(CALENDARS))
    yield built
    built.close()


NOW = datetime(2026, 12, 1, tzinfo=UTC)


def test_the_methods_are_recorded_and_need_compute(app):
    assert {LIST_OPEN_PERIODS.name, COUNT_BUSINESS_DAYS.name} <= set(METHODS)
    assert SCOPE_OF[LIST_OPEN_PERIODS.name] == SCOPE_OF[COUNT_BUSINESS_DAYS.name] == "compute"
    response = app.call(LIST_OPEN_PERIODS, period_request("2026-12-24T15:00:00+01:00",
                                                          "2026-12-29T10:00:00+01:00"), NOW)
    assert len(response.record_id) == 32
    assert [(p.start_local, p.end_local, p.local_date) for p in response.periods] == [
        ("2026-12-24T15:00:00+01:00", "2026-12-24T17:00:00+01:00", "2026-12-24"),
        ("2026-12-28T09:00:00+01:00", "2026-12-28T17:00:00+01:00", "2026-12-28"),
        ("2026-12-29T09:00:00+01:00", "2026-12-29T10:00:00+01:00", "2026-12-29"),
    ]
    assert [p.start_time.ToJsonString() for p in response.periods] == [
        "2026-12-24T14:00:00Z", "2026-12-28T08:00:00Z", "2026-12-29T08:00:00Z"]
    assert response.next_page_token == "" and response.time_zone == "Europe/Zagreb"
    count = app.call(COUNT_BUSINESS_DAYS, pb.CountBusinessDaysRequest(
        calendar=ZAGREB_PB, from_date="2026-12-01", to_date="2026-12-31"), NOW)
    assert count.business_days == 22 and len(count.record_id) == 32


def test_pages_through_the_app_and_a_token_of_another_query(app):
    request = period_request("2026-12-24T15:00:00+01:00", "2026-12-29T10:00:00+01:00", page_size=2)
    first = app.answer(LIST_OPEN_PERIODS, request)
    assert [p.local_date for p in first.periods] == ["2026-12-24", "2026-12-28"]
    assert first.next_page_token
    request.page_token = first.next_page_token
    second = app.answer(LIST_OPEN_PERIODS, request)
    assert [p.local_date for p in second.periods] == ["2026-12-29"] and not second.next_page_token
    other = period_request("2026-12-24T15:00:00+01:00", "2026-12-30T10:00:00+01:00", page_size=2,
                           page_token=first.next_page_token)
    with pytest.raises(InvalidArgument) as caught:
        app.answer(LIST_OPEN_PERIODS, other)
    assert caught.value.violations[0].field == "page_token"


@pytest.mark.parametrize(("request_", "field", "error"), [
    (period_request("2026-12-02T00:00:00Z", "2026-12-01T00:00:00Z"), "end_time", InvalidArgument),
    (pb.ListOpenPeriodsRequest(), "start_time", InvalidArgument),
    (period_request("2026-12-01T00:00:00Z", "2026-12-02T00:00:00Z", page_size=-5), "page_size", InvalidArgument),
    (period_request("2026-12-01T00:00:00Z", "2200-01-02T00:00:00Z"), "end_time", OutOfRange),
    (pb.CountBusinessDaysRequest(from_date="2026-12-02", to_date="2026-12-01"), "to_date", InvalidArgument),
    (pb.CountBusinessDaysRequest(from_date="2026-12-02"), "to_date", InvalidArgument),
    (pb.CountBusinessDaysRequest(from_date="2026-13-02", to_date="2026-12-01"), "from_date", InvalidArgument),
    (pb.CountBusinessDaysRequest(from_date="1899-12-31", to_date="2026-12-01"), "from_date", OutOfRange),
    (pb.CountBusinessDaysRequest(calendar=pb.Calendar(bundle="hr-zagreb"), from_date="2019-12-01",
                                 to_date="2020-01-31"), "calendar.bundle", OutOfRange),
])
def test_refusals_name_the_field(app, request_, field, error):
    method = LIST_OPEN_PERIODS if isinstance(request_, pb.ListOpenPeriodsRequest) else COUNT_BUSINESS_DAYS
    with pytest.raises(error) as caught:
        app.answer(method, request_)
    assert caught.value.violations[0].field == field


def test_open_status_carries_the_last_run_only_when_asked(app):
    request = pb.GetOpenStatusRequest(calendar=ZAGREB_PB)
    request.time.FromJsonString("2026-12-26T12:00:00+01:00")
    plain = app.answer(OPEN_STATUS, request)
    assert not plain.HasField("last_open_time") and not plain.HasField("last_close_time")
    request.include_last_run = True
    asked = app.answer(OPEN_STATUS, request)
    assert (asked.last_open_time.ToJsonString(), asked.last_close_time.ToJsonString()) == (
        "2026-12-24T08:00:00Z", "2026-12-24T16:00:00Z")
    plain.ClearField("last_open_time")
    asked.ClearField("last_open_time")
    asked.ClearField("last_close_time")
    assert asked == plain


def test_a_bundle_counts_its_own_holidays(app):
    count = app.answer(COUNT_BUSINESS_DAYS, pb.CountBusinessDaysRequest(
        calendar=pb.Calendar(bundle="hr-zagreb"), from_date="2026-12-01", to_date="2026-12-31"))
    assert count.business_days == 22 and count.calendar_version.startswith("hr-zagreb@")


# --- HTTP ----------------------------------------------------------------------------------


def test_http_routes():
    built = build_app(MemoryLedger())
    try:
        client = Client(http.create_app(built))
        body = {"startTime": "2026-12-24T15:00:00+01:00", "endTime": "2026-12-29T10:00:00+01:00",
                "calendar": {"timeZone": "Europe/Zagreb", "holidays": [{"date": "2026-12-25"}, {"date": "2026-12-26"}]},
                "pageSize": 2}
        response = client.post("/v1/openPeriods:list", content=json.dumps(body))
        assert response.status_code == 200, response.text
        page = response.json()
        assert [p["startTime"] for p in page["periods"]] == ["2026-12-24T14:00:00Z", "2026-12-28T08:00:00Z"]
        body["pageToken"] = page["nextPageToken"]
        rest = client.post("/v1/openPeriods:list", content=json.dumps(body)).json()
        assert [p["localDate"] for p in rest["periods"]] == ["2026-12-29"] and rest["nextPageToken"] == ""
        body["pageToken"] = "tampered"
        refused = client.post("/v1/openPeriods:list", content=json.dumps(body))
        assert refused.status_code == 400
        assert refused.json()["error"]["details"][0]["fieldViolations"][0]["field"] == "page_token"
        count = client.post("/v1/businessDays:count", content=json.dumps(
            {"fromDate": "2026-12-01", "toDate": "2026-12-31", "calendar": body["calendar"]}))
        assert count.status_code == 200 and count.json()["businessDays"] == "22"
        backwards = client.post("/v1/businessDays:count", content=json.dumps(
            {"fromDate": "2026-12-31", "toDate": "2026-12-01"}))
        assert backwards.status_code == 400
    finally:
        built.close()


# --- gRPC and the typed client, against a real server ------------------------------------------


def test_grpc_and_the_typed_client(server):
    request = period_request("2026-12-24T15:00:00+01:00", "2026-12-29T10:00:00+01:00")
    response = server.stub.ListOpenPeriods(request, timeout=10)
    assert [p.local_date for p in response.periods] == ["2026-12-24", "2026-12-28", "2026-12-29"]
    assert len(response.record_id) == 32
    with pytest.raises(grpc.RpcError) as caught:
        server.stub.CountBusinessDays(pb.CountBusinessDaysRequest(from_date="2026-12-31",
                                                                  to_date="2026-12-01"), timeout=10)
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    with DuetimeClient(server.address, 10) as duetime:
        a = datetime.fromisoformat("2026-12-24T15:00:00+01:00")
        b = datetime.fromisoformat("2026-12-29T10:00:00+01:00")
        page = duetime.list_open_periods(a, b, ZAGREB_PB, page_size=1)
        assert [p.local_date for p in page.periods] == [date(2026, 12, 24)] and page.next_page_token
        every = list(duetime.open_periods(a, b, ZAGREB_PB, page_size=1))
        assert [(p.start, p.end) for p in every] == [
            (datetime(2026, 12, 24, 14, tzinfo=UTC), datetime(2026, 12, 24, 16, tzinfo=UTC)),
            (datetime(2026, 12, 28, 8, tzinfo=UTC), datetime(2026, 12, 28, 16, tzinfo=UTC)),
            (datetime(2026, 12, 29, 8, tzinfo=UTC), datetime(2026, 12, 29, 9, tzinfo=UTC))]
        assert duetime.count_business_days("2026-12-01", date(2026, 12, 31), ZAGREB_PB).business_days == 22
        status = duetime.open_status(datetime.fromisoformat("2026-12-28T10:00:00+01:00"), ZAGREB_PB,
                                     include_last_run=True)
        assert (status.last_open, status.last_close) == (
            datetime(2026, 12, 28, 8, tzinfo=UTC), datetime(2026, 12, 24, 16, tzinfo=UTC))
        with pytest.raises(ClientInvalidArgument):
            duetime.list_open_periods(b, a, ZAGREB_PB)


# --- the command line -------------------------------------------------------------------------

ZAGREB_FLAGS = ["--tz", "Europe/Zagreb", "--holiday", "2026-12-25", "--holiday", "2026-12-26"]


def test_cli_count_and_periods_locally_and_with_a_server(capsys, server):
    for where in ([], ["--server", server.address]):
        assert main(["count", "2026-12-01", "2026-12-31", *ZAGREB_FLAGS, *where]) == 0
        out = capsys.readouterr().out
        assert "business days: 22" in out.splitlines()[0].replace("  ", " ").replace("  ", " ")
        assert main(["periods", "2026-12-24T15:00+01:00", "2026-12-29T10:00+01:00", *ZAGREB_FLAGS,
                     "--page-size", "2", *where]) == 0
        lines = capsys.readouterr().out.splitlines()
        assert lines[1].split() == ["2026-12-24", "2026-12-24T15:00:00+01:00", "2026-12-24T17:00:00+01:00", "2h"]
        assert lines[2].split() == ["2026-12-28", "2026-12-28T09:00:00+01:00", "2026-12-28T17:00:00+01:00", "8h"]
        assert lines[3].split()[:4] == ["periods:", "2", "(Europe/Zagreb),", "10h"]
        token = lines[4].split()[-1]
        assert main(["periods", "2026-12-24T15:00+01:00", "2026-12-29T10:00+01:00", *ZAGREB_FLAGS,
                     "--page-size", "2", "--page-token", token, *where]) == 0
        lines = capsys.readouterr().out.splitlines()
        assert lines[1].split()[0] == "2026-12-29" and not any(x.startswith("next page") for x in lines)
        assert main(["open", "2026-12-26T12:00+01:00", *ZAGREB_FLAGS, "--last-run", *where]) == 0
        out = capsys.readouterr().out
        assert "last open:  2026-12-24T09:00:00+01:00" in out and "last close: 2026-12-24T17:00:00+01:00" in out
    assert main(["count", "2026-12-31", "2026-12-01"]) == 2
    assert "error: to_date: 2026-12-01 is before from_date 2026-12-31" in capsys.readouterr().err


def test_cli_calendars_periods(capsys, server):
    for where in (["--dir", str(CALENDARS)], ["--server", server.address]):
        assert main(["calendars", "periods", "hr-zagreb", "--from", "2026-03-27", "--to", "2026-03-30",
                     *where]) == 0
        lines = capsys.readouterr().out.splitlines()
        version = lines[1].rsplit(",", 1)[1]
        assert version.startswith("hr-zagreb@")
        assert lines == ["start,end,local_date,calendar_version",
                         f"2026-03-27T08:00:00Z,2026-03-27T16:00:00Z,2026-03-27,{version}",
                         f"2026-03-30T07:00:00Z,2026-03-30T15:00:00Z,2026-03-30,{version}"]
        assert main(["calendars", "periods", "hr-zagreb", "--from", "2026-03-27", "--to", "2026-03-27",
                     "--format", "jsonl", *where]) == 0
        assert [json.loads(x) for x in capsys.readouterr().out.splitlines()] == [
            {"start": "2026-03-27T08:00:00Z", "end": "2026-03-27T16:00:00Z", "local_date": "2026-03-27",
             "calendar_version": version}]
    assert main(["calendars", "periods", "hr-zagreb", "--from", "2026-03-27", "--to", "2026-03-26",
                 "--dir", str(CALENDARS)]) == 2
    assert "error: --to: 2026-03-26 is before --from 2026-03-27" in capsys.readouterr().err
    assert main(["calendars", "periods", "hr-zagreb", "--from", "2019-12-30", "--to", "2020-01-02",
                 "--dir", str(CALENDARS)]) == 2
    assert "error: NAME: hr-zagreb covers" in capsys.readouterr().err


# --- replay -------------------------------------------------------------------------------------


def test_recorded_answers_replay_byte_for_byte():
    from duetime.ledger import RecordFilter
    from duetime.replay import SAME, replay

    catalog = Catalog.load(CALENDARS)
    built = build_app(MemoryLedger(), catalog)
    try:
        first = built.call(LIST_OPEN_PERIODS, period_request(
            "2026-12-24T15:00:00+01:00", "2026-12-29T10:00:00+01:00", page_size=1), NOW)
        built.call(LIST_OPEN_PERIODS, period_request(
            "2026-12-24T15:00:00+01:00", "2026-12-29T10:00:00+01:00", page_size=1,
            page_token=first.next_page_token), NOW)
        built.call(LIST_OPEN_PERIODS, period_request(
            "2026-03-27T00:00:00Z", "2026-04-03T00:00:00Z", calendar=pb.Calendar(bundle="hr-zagreb")), NOW)
        built.call(COUNT_BUSINESS_DAYS, pb.CountBusinessDaysRequest(
            calendar=pb.Calendar(bundle="us-new-york"), from_date="2026-01-01", to_date="2026-12-31"), NOW)
        status = pb.GetOpenStatusRequest(calendar=ZAGREB_PB, include_last_run=True)
        status.time.FromJsonString("2026-12-26T12:00:00+01:00")
        built.call(OPEN_STATUS, status, NOW)
        rows = list(built.records(RecordFilter()))
        assert len(rows) == 5
        results = list(replay(rows, catalog))
        assert [r.outcome for r in results] == [SAME] * 5, [r.line() for r in results]
    finally:
        built.close()


# --- the last covered date (docs/semantics.md §7) ----------------------------------------------


def test_a_span_ending_at_the_midnight_after_the_last_covered_date_is_answered(app, capsys):
    """hr-zagreb covers 2020–2035: [a, b) ending at 2036-01-01T00:00 depends on
    2035-12-31 only; one more µs depends on 2036-01-01 and is refused."""
    bundle = pb.Calendar(bundle="hr-zagreb")
    page = app.answer(LIST_OPEN_PERIODS, period_request("2035-12-31T00:00:00+01:00", "2036-01-01T00:00:00+01:00",
                                                        calendar=bundle))
    assert [(p.start_local, p.end_local) for p in page.periods] == [
        ("2035-12-31T09:00:00+01:00", "2035-12-31T17:00:00+01:00")]
    with pytest.raises(OutOfRange) as caught:
        app.answer(LIST_OPEN_PERIODS, period_request("2035-12-31T00:00:00+01:00",
                                                     "2036-01-01T00:00:00.000001+01:00", calendar=bundle))
    assert caught.value.violations[0].field == "calendar.bundle"
    assert "2036-01-01" in str(caught.value)
    assert main(["calendars", "periods", "hr-zagreb", "--from", "2035-12-30", "--to", "2035-12-31",
                 "--dir", str(CALENDARS)]) == 0
    assert capsys.readouterr().out.splitlines()[1:] == [
        f"2035-12-31T08:00:00Z,2035-12-31T16:00:00Z,2035-12-31,{page.calendar_version}"]



def test_the_last_run_before_a_bundles_first_year_is_refused(app):
    """hr-zagreb covers 2020–2035: at 2020-01-02 10:00 the last closing is on
    2019-12-31 (New Year's Day is a holiday), a date the bundle does not cover
    (docs/semantics.md §7), so include_last_run is OUT_OF_RANGE as -1bd is."""
    request = pb.GetOpenStatusRequest(calendar=pb.Calendar(bundle="hr-zagreb"), include_last_run=True)
    request.time.FromJsonString("2020-01-02T10:00:00+01:00")
    with pytest.raises(OutOfRange) as caught:
        app.answer(OPEN_STATUS, request)
    assert caught.value.violations[0].field == "calendar.bundle"
    assert "2019-12-31" in str(caught.value)
    request.time.FromJsonString("2020-01-03T10:00:00+01:00")
    answer = app.answer(OPEN_STATUS, request)
    assert (answer.last_open_time.ToJsonString(), answer.last_close_time.ToJsonString()) == (
        "2020-01-03T08:00:00Z", "2020-01-02T16:00:00Z")


def test_open_status_when_the_last_week_period_has_no_hours(app):
    """A last week period without working hours: closed, and no next opening
    (as for a calendar without hours), not OUT_OF_RANGE (docs/semantics.md §16)."""
    calendar = pb.Calendar(time_zone="UTC", week_periods=[
        pb.WeekPeriod(from_date="2026-01-01", working_hours=pb.WorkingHours())])
    request = pb.GetOpenStatusRequest(calendar=calendar, include_last_run=True)
    request.time.FromJsonString("2026-06-01T12:00:00Z")
    answer = app.answer(OPEN_STATUS, request)
    assert not answer.open and not answer.HasField("next_open_time") and not answer.HasField("next_close_time")
    assert (answer.last_open_time.ToJsonString(), answer.last_close_time.ToJsonString()) == (
        "2025-12-31T09:00:00Z", "2025-12-31T17:00:00Z")
    request.time.FromJsonString("2025-12-31T12:00:00Z")
    answer = app.answer(OPEN_STATUS, request)
    assert answer.open and answer.next_close_time.ToJsonString() == "2025-12-31T17:00:00Z"
    assert not answer.HasField("next_open_time")


def test_a_page_of_many_touching_intervals_ends_early_and_the_pages_add_up():
    """docs/semantics.md §9.1: a page reads at most PAGE_WORK segments; a desk
    open Monday–Saturday around the clock in 48 half-hour intervals is one
    run a week, and the short pages together hold every run."""
    halves = [(f"{k // 2:02d}:{k % 2 * 30:02d}", f"{(k + 1) // 2:02d}:{(k + 1) % 2 * 30:02d}" if k < 47 else "24:00")
              for k in range(48)]
    desk = Calendar.from_text("UTC", weekend=[7], working_hours=[(d, halves) for d in range(1, 7)])
    a, b = us("2026-01-05T00:00:00+00:00"), us("2036-01-07T00:00:00+00:00")  # Mondays, 522 weeks apart
    first = open_periods(desk.compiled, a, b, MAX_PAGE_SIZE)
    assert PAGE_WORK == 60_000 and len(first.periods) == 127 and first.resume_us == first.periods[-1].end_us
    runs, start = [], a
    while True:
        page = open_periods(desk.compiled, start, b, MAX_PAGE_SIZE)
        runs += page.periods
        if page.resume_us is None:
            break
        start = page.resume_us
    assert len(runs) == 522
    assert all(p.end_us - p.start_us == 6 * 24 * H and p.local_date.weekday() == 0 for p in runs)
    assert sum(p.end_us - p.start_us for p in runs) == between_us(a, b, desk.compiled)


def test_cli_refusals_name_the_flag_and_write_no_half_table(capsys):
    assert main(["calendars", "periods", "always-open", "--from", "2199-12-30", "--to", "2199-12-31",
                 "--dir", str(CALENDARS)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert "error: --to: 2199-12-31 is the last supported date; give --to 2199-12-30 or earlier" in err
    assert main(["calendars", "periods", "hr-zagreb", "--from", "2036-01-01", "--to", "2036-01-02",
                 "--dir", str(CALENDARS)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "error: NAME: hr-zagreb covers 2020–2035 only" in err
    with pytest.raises(SystemExit) as caught:
        main(["periods", "2026-12-24T15:00+01:00", "2026-12-29T10:00+01:00", "--tz", "Europe/Zagreb",
              "--page-size", "2147483648"])
    assert caught.value.code == 2
    assert "argument --page-size: '2147483648' is not a page size: give 0 (the default, 100) up to 1000" in \
        capsys.readouterr().err
    assert main(["periods", "2026-12-24T15:00+01:00", "2026-12-29T10:00+01:00", "--tz", "Europe/Zagreb",
                 "--page-token", " "]) == 2
    assert "error: --page-token: is empty; give the token the previous page printed" in capsys.readouterr().err
    assert main(["due", "2026-01-30T10:00+01:00", "P1M", "--roll", "following", "--landing-time", "",
                 "--tz", "Europe/Zagreb"]) == 2
    assert "error: --landing-time: is empty; give HH:MM, open, close or end, or leave the flag out" in \
        capsys.readouterr().err
