"""The JSON forms duetime reads and prints (docs/semantics.md §14), and one
call being one request whatever face sends it (§12).

- HTTP bodies, query parameters and ``duetime batch`` lines read instants as
  the command line writes them (minutes without seconds, fractions, ``Z`` or
  an offset) and enum values by the short names the docs use, as well as the
  protobuf JSON mapping's own forms; a refusal says what to write.
- Answers print false, zero and empty fields.
- The same call with the same idempotency key over HTTP, from the CLI and
  from the typed client or a bare gRPC stub is one record, never
  ALREADY_EXISTS.

The in-process cases use httpx's ASGI transport over an in-memory ledger;
the cross-face cases one real server (gRPC and HTTP) per module.
"""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import datetime, timezone

import anyio
import httpx
import pytest
from duetime import parsing
from duetime.api import convert, http
from duetime.catalog import Catalog
from duetime.client import DuetimeClient
from duetime.compose import build_app
from duetime.core import InvalidArgument
from duetime.ledger import MemoryLedger
from duetime.v1 import duetime_pb2 as pb
from server_process import CALENDARS, start_with_http

COMPUTE = "/v1/dueTimes:compute"
NOT_RFC3339 = ("is not an RFC 3339 instant such as 2026-11-27T16:00:00+01:00 (date, T, hours "
               "and minutes, optional seconds and fraction, then Z or an offset ±HH:MM)")
AT_CLOSE_VALUES = ("END_OF_WINDOW, NEXT_OPEN (or the full names AT_CLOSE_END_OF_WINDOW, "
                   "AT_CLOSE_NEXT_OPEN, or the numbers 1, 2)")
EVENT_TYPE_VALUES = ("PAUSE, RESUME, RESET, RETARGET, STOP (or the full names "
                     "CLOCK_EVENT_TYPE_PAUSE, CLOCK_EVENT_TYPE_RESUME, CLOCK_EVENT_TYPE_RESET, "
                     "CLOCK_EVENT_TYPE_RETARGET, CLOCK_EVENT_TYPE_STOP, or the numbers "
                     "1, 2, 3, 4, 5)")


class Client:
    """A synchronous client of an ASGI app, in process."""

    def __init__(self, app):
        self.transport = httpx.ASGITransport(app=app)

    def request(self, method: str, url: str, **kwargs) -> httpx.Response:
        async def send() -> httpx.Response:
            async with httpx.AsyncClient(transport=self.transport,
                                         base_url="http://duetime.test") as client:
                response = await client.request(method, url, **kwargs)
                await response.aread()
                return response

        return anyio.run(send)

    def post(self, url: str, body: dict) -> httpx.Response:
        return self.request("POST", url, content=json.dumps(body),
                            headers={"Content-Type": "application/json"})

    def get(self, url: str, **kwargs) -> httpx.Response:
        return self.request("GET", url, **kwargs)


@pytest.fixture(scope="module")
def client():
    return Client(http.create_app(build_app(MemoryLedger(), Catalog.load(CALENDARS))))


def violation(response: httpx.Response) -> dict:
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["status"] == "INVALID_ARGUMENT"
    (bad_request,) = [d for d in error["details"] if d["@type"].endswith("BadRequest")]
    (found,) = bad_request["fieldViolations"]
    return found


# ---------------------------------------------------------------------------
# instants


@pytest.mark.parametrize("start", [
    "2026-11-27T16:00Z",                 # minutes, no seconds: as the CLI takes it
    "2026-11-27T17:00+01:00",
    "2026-11-27T16:00:00Z",              # the protobuf JSON mapping's own form
    "2026-11-27T17:00:00.000+01:00",
    "2026-11-27 16:00:00z",              # RFC 3339 allows a space and lower case
    "2026-11-27t16:00:00.000000Z",
])
def test_a_start_in_any_form_the_cli_takes_gives_the_same_answer(client, start):
    response = client.post(COMPUTE, {"start": start, "duration": "2bd"})
    assert response.status_code == 200, response.text
    assert response.json()["due"] == "2026-12-01T16:00:00Z"


def test_fractional_seconds_are_kept(client):
    response = client.post(COMPUTE, {"start": "2026-11-27T16:00:00.25+00:00", "duration": "1h"})
    assert response.json()["due"] == "2026-11-27T17:00:00.250Z"


@pytest.mark.parametrize("start, description", [
    ("2026-11-27T16:00", "field start: '2026-11-27T16:00' has no UTC offset; write e.g. "
                         "2026-11-27T16:00Z or 2026-11-27T16:00+01:00 (it is never read as UTC "
                         "or as local time)"),
    ("2026-11-27", "field start: '2026-11-27' is a date, not an instant; write a full RFC 3339 "
                   "instant such as 2026-11-27T00:00:00Z or 2026-11-27T00:00:00+01:00"),
    ("tomorrow", f"field start: 'tomorrow' {NOT_RFC3339}"),
    ("2026-02-30T10:00Z", "field start: '2026-02-30T10:00Z' names no existing date and time "
                          "(check the day of the month, hours 00–23, minutes and seconds 00–59, "
                          "an offset within ±23:59); e.g. 2026-11-27T16:00:00+01:00"),
])
def test_an_instant_that_cannot_be_read_is_refused_saying_what_to_write(client, start,
                                                                         description):
    found = violation(client.post(COMPUTE, {"start": start, "duration": "2bd"}))
    assert found == {"field": "body", "description": description}
    assert "does not match format" not in found["description"]


def test_a_nested_instant_is_named_with_its_position(client):
    body = {"policy": "support-contract", "events": [
        {"type": "start", "time": "2026-12-11T10:00+01:00"},
        {"type": "resolved", "time": "2026-12-29 11:00"}]}
    assert violation(client.post("/v1/sla:evaluate", body)) == {
        "field": "body", "description": "field events[1].time: '2026-12-29 11:00' has no UTC "
                                        "offset; write e.g. 2026-12-29 11:00Z or 2026-12-29 "
                                        "11:00+01:00 (it is never read as UTC or as local time)"}


def test_a_query_parameter_instant_in_the_cli_form(client):
    made = client.post(COMPUTE, {"start": "2026-11-27T16:00Z", "duration": "2bd",
                                 "idempotencyKey": "query-form/1"}).json()
    found = client.get("/v1/records", params={"startTime": "2000-01-01T00:00Z",
                                              "keyPrefix": "query-form/"}).json()
    assert [r["recordId"] for r in found["records"]] == [made["recordId"]]
    assert violation(client.get("/v1/records", params={"startTime": "2000-01-01"})) == {
        "field": "startTime", "description": "'2000-01-01' is a date, not an instant; write a "
                                             "full RFC 3339 instant such as 2000-01-01T00:00:00Z "
                                             "or 2000-01-01T00:00:00+01:00"}


def test_the_shared_parser_reads_what_the_cli_checks():
    assert parsing.parse_instant_text("2026-11-27T17:00+01:00", "start") == datetime(
        2026, 11, 27, 16, 0, tzinfo=timezone.utc)
    assert parsing.parse_instant_text("2026-11-27T16:00:00.000001Z", "start") == datetime(
        2026, 11, 27, 16, 0, 0, 1, tzinfo=timezone.utc)
    with pytest.raises(parsing.SpecError) as caught:
        parsing.parse_instant_text("2026-11-27T16:00:00.1234567Z", "start")
    assert caught.value.description == ("'2026-11-27T16:00:00.1234567Z' has more than 6 "
                                        "fractional digits; duetime counts whole microseconds")


# ---------------------------------------------------------------------------
# enum values


@pytest.mark.parametrize("at_close", ["NEXT_OPEN", "next_open", "next-open",
                                      "AT_CLOSE_NEXT_OPEN", 2, "2"])
def test_at_close_by_short_name_full_name_or_number(client, at_close):
    response = client.post(COMPUTE, {"start": "2026-11-27T16:00Z", "duration": "1bh",
                                     "atClose": at_close})
    assert response.status_code == 200, response.text
    assert response.json()["due"] == "2026-11-30T09:00:00Z"  # Monday's opening, not Friday 17:00


def test_an_unknown_enum_value_lists_the_valid_ones(client):
    found = violation(client.post(COMPUTE, {"start": "2026-11-27T16:00Z", "duration": "1bh",
                                            "atClose": "LATER"}))
    assert found == {"field": "body", "description": "field atClose: 'LATER' is not a value of "
                                                     f"AtClose; write one of {AT_CLOSE_VALUES}"}


def test_clock_events_and_weekdays_by_the_names_the_docs_use(client):
    started = client.post("/v1/clocks:start", {"target": "8bh", "startTime": "2026-11-27T11:00Z"})
    assert started.status_code == 200, started.text
    state = started.json()["state"]
    paused = client.post("/v1/clocks:applyEvent", {
        "state": state, "event": {"type": "PAUSE", "time": "2026-11-27T16:00Z"}})
    assert paused.status_code == 200, paused.text
    assert (paused.json()["state"]["status"], paused.json()["state"]["remaining"]) == (
        "CLOCK_STATUS_PAUSED", "10800s")
    found = violation(client.post("/v1/clocks:applyEvent", {
        "state": state, "event": {"type": "HOLD", "time": "2026-11-27T16:00Z"}}))
    assert found == {"field": "body", "description": "field event.type: 'HOLD' is not a value "
                                                     "of ClockEventType; write one of "
                                                     f"{EVENT_TYPE_VALUES}"}
    # Friday and Saturday off: Friday 16:00 + 1bd is Sunday 16:00
    weekend = client.post(COMPUTE, {"start": "2026-11-27T16:00Z", "duration": "1bd",
                                    "calendar": {"weekend": {"days": ["FRIDAY", "saturday"]}}})
    assert weekend.json()["due"] == "2026-11-29T16:00:00Z"


# ---------------------------------------------------------------------------
# false, zero and empty fields are printed


def test_open_status_prints_false_fields(client):
    response = client.post("/v1/openStatus:get", {"time": "2026-11-28T12:00Z"})  # a Saturday
    answer = response.json()
    assert (answer["open"], answer["businessDay"], answer["holidayName"], answer["warnings"]) \
        == (False, False, "", [])
    assert answer["closedReason"] == "weekend"
    assert "currentInterval" not in answer  # a message: printed only when there is one


def test_a_due_time_prints_its_empty_lists(client):
    answer = client.post(COMPUTE, {"start": "2026-11-27T16:00Z", "duration": "2bd"}).json()
    assert (answer["explanation"], answer["warnings"]) == ([], [])


def test_message_json_prints_every_field_without_presence():
    assert json.loads(convert.message_json(pb.GetOpenStatusResponse())) == {
        "open": False, "businessDay": False, "localDate": "", "closedReason": "",
        "holidayName": "", "timeZone": "", "recordId": "", "calendarVersion": "",
        "rulesVersion": "", "tzdataVersion": "", "warnings": []}


def test_batch_reads_the_same_forms_and_prints_false_fields(tmp_path, capsys):
    from duetime import cli

    lines = tmp_path / "requests.jsonl"
    lines.write_text("\n".join([
        '{"start": "2026-11-27T16:00Z", "duration": "1bh", "atClose": "NEXT_OPEN"}',
        '{"start": "2026-11-27T16:00", "duration": "1bh"}',
        '{"start": "2026-11-27T16:00Z", "duration": "1bh", "atClose": "SOON"}',
    ]) + "\n", encoding="utf-8")
    assert cli.main(["batch", str(lines), "--calendars", str(CALENDARS)]) == 1
    results = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert results[0]["response"]["due"] == "2026-11-30T09:00:00Z"
    assert (results[0]["response"]["recordId"], results[0]["response"]["warnings"]) == ("", [])
    assert results[1]["error"]["violations"] == [{
        "field": "request", "description": "field start: '2026-11-27T16:00' has no UTC offset; "
                                           "write e.g. 2026-11-27T16:00Z or 2026-11-27T16:00+01:00 "
                                           "(it is never read as UTC or as local time)"}]
    assert results[2]["error"]["violations"] == [{
        "field": "request", "description": "field atClose: 'SOON' is not a value of AtClose; "
                                           f"write one of {AT_CLOSE_VALUES}"}]


# ---------------------------------------------------------------------------
# one call, one request, whatever face sends it


def test_an_empty_calendar_is_the_same_request_as_none():
    method = convert.DUE_TIME
    bare = pb.ComputeDueTimeRequest(duration="2bd", idempotency_key="k-1")
    bare.start.FromJsonString("2026-11-27T16:00:00Z")
    empty = pb.ComputeDueTimeRequest()
    empty.CopyFrom(bare)
    empty.calendar.SetInParent()
    assert empty.HasField("calendar")
    assert method.request_bytes(empty) == method.request_bytes(bare)
    assert empty.HasField("calendar")  # the caller's message is left as it was
    # a record stored before requests were canonical (with ``calendar {}``) still matches
    stored = empty.SerializeToString(deterministic=True)
    assert stored != method.request_bytes(bare)
    assert method.same_request(stored, method.request_bytes(bare))
    # a calendar with content is another request; so is a weekend given empty
    weekend = pb.ComputeDueTimeRequest()
    weekend.CopyFrom(bare)
    weekend.calendar.weekend.SetInParent()
    assert not method.same_request(method.request_bytes(weekend), method.request_bytes(bare))
    assert not method.same_request(b"\xff", method.request_bytes(bare))


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    running = start_with_http(tmp_path_factory.mktemp("json-forms") / "ledger.db")
    try:
        yield running
        assert running.terminate() == 0, "".join(running.stderr)
    finally:
        running.kill()


def duetime(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "duetime", *args],
                          capture_output=True, text=True, timeout=60)


def test_http_then_cli_then_clients_with_one_key_is_one_record(server):
    with httpx.Client(base_url=server.http_url, timeout=10) as web:
        first = web.post(COMPUTE, json={"start": "2026-11-27T16:00Z", "duration": "2bd",
                                        "idempotencyKey": "k-1"})
    assert first.status_code == 200, first.text
    record_id = first.json()["recordId"]
    assert first.json()["due"] == "2026-12-01T16:00:00Z"

    shown = duetime("due", "2026-11-27T16:00Z", "2bd", "--key", "k-1", "--server",
                    server.address)
    assert shown.returncode == 0, shown.stderr
    assert f"record:    {record_id}" in shown.stdout
    assert "due (UTC): 2026-12-01T16:00:00Z" in shown.stdout

    with DuetimeClient(server.address, 10) as typed:
        answer = typed.compute_due_time(datetime(2026, 11, 27, 16, tzinfo=timezone.utc), "2bd",
                                        idempotency_key="k-1")
    assert answer.recorded.record_id == record_id

    # a bare stub that sends the calendar given but empty: the same request too
    request = pb.ComputeDueTimeRequest(duration="2bd", idempotency_key="k-1",
                                       calendar=pb.Calendar())
    request.start.FromJsonString("2026-11-27T16:00:00Z")
    assert request.HasField("calendar")
    assert server.stub.ComputeDueTime(request, timeout=10).record_id == record_id


def test_cli_then_http_with_one_key_is_one_record(server):
    shown = duetime("due", "2026-11-27T16:00Z", "1bd", "--key", "cli-first/1", "--json",
                    "--server", server.address)
    assert shown.returncode == 0, shown.stderr
    record_id = json.loads(shown.stdout)["recordId"]
    with httpx.Client(base_url=server.http_url, timeout=10) as web:
        again = web.post(COMPUTE, json={"start": "2026-11-27T16:00:00Z", "duration": "1bd",
                                        "idempotencyKey": "cli-first/1"})
    assert again.status_code == 200, again.text
    assert again.json()["recordId"] == record_id
    # what the CLI recorded holds no calendar, as HTTP's request does
    record = server.stub.GetRecord(pb.GetRecordRequest(record_id=record_id), timeout=10).record
    stored = pb.ComputeDueTimeRequest()
    record.request.Unpack(stored)
    assert not stored.HasField("calendar")


def test_a_different_request_under_the_key_is_still_already_exists(server):
    with httpx.Client(base_url=server.http_url, timeout=10) as web:
        web.post(COMPUTE, json={"start": "2026-11-27T16:00Z", "duration": "2bd",
                                "idempotencyKey": "k-2"})
    other = duetime("due", "2026-11-27T16:00Z", "3bd", "--key", "k-2", "--server",
                    server.address)
    assert (other.returncode, other.stderr.split(":")[:2]) == (1, ["error", " ALREADY_EXISTS"])


def test_refusals_raise_invalid_argument_on_request():
    with pytest.raises(InvalidArgument) as caught:
        convert.request_from_json('{"start": "2026-11-27T16:00:00Z", "start": "x"}',
                                  pb.ComputeDueTimeRequest())
    assert [(v.field, v.description) for v in caught.value.violations] == [
        ("request", "is not a ComputeDueTimeRequest in the protobuf JSON mapping: Failed to "
                    "load JSON: duplicate key start.")]


@pytest.mark.parametrize(("value", "shown"), [(2147483648, "2147483648"), ([], "an array"), ({}, "an object"),
                                              (True, "true")])
def test_an_enum_value_of_the_wrong_kind_lists_the_valid_ones(client, value, shown):
    found = violation(client.post(COMPUTE, {"start": "2026-11-27T16:00Z", "duration": "1bh", "atClose": value}))
    assert found == {"field": "body", "description": f"field atClose: {shown} is not a value of AtClose: write "
                                                     f"a name or a whole number, one of {AT_CLOSE_VALUES}"}


def test_an_integer_out_of_its_fields_range_names_the_field(client):
    found = violation(client.post("/v1/openPeriods:list", {
        "startTime": "2026-12-01T00:00Z", "endTime": "2026-12-02T00:00Z", "pageSize": 2**31}))
    assert found == {"field": "body", "description": "field pageSize: 2147483648 is out of range: give a whole "
                                                     "number from -2147483648 to 2147483647"}
    found = violation(client.request("POST", "/v1/openPeriods:list", content=b'{"pageSize": ' + b"9" * 5001 + b"}",
                                     headers={"content-type": "application/json"}))
    assert found == {"field": "body", "description": "is not valid JSON for duetime.v1.ListOpenPeriodsRequest: "
                                                     "an integer of 5001 digits (at most 20: no field holds a "
                                                     "longer one)"}
    found = violation(client.request("POST", "/v1/openPeriods:list", content=b'{"pageSize": -' + b"9" * 21 + b"}",
                                     headers={"content-type": "application/json"}))
    assert found["description"].endswith("an integer of 21 digits (at most 20: no field holds a longer one)")
    found = violation(client.request("POST", "/v1/openPeriods:list", content=b'{"pageSize": 1' + b"0" * 20 + b"}",
                                     headers={"content-type": "application/json"}))
    assert found["description"].endswith("an integer of 21 digits (at most 20: no field holds a longer one)")
    found = violation(client.request("POST", "/v1/openPeriods:list", content=b'{"pageSize": -' + b"9" * 20 + b"}",
                                     headers={"content-type": "application/json"}))
    assert found["description"] == ("field pageSize: -99999999999999999999 is out of range: give a whole "
                                    "number from -2147483648 to 2147483647")


# ---------------------------------------------------------------------------
# large bodies: the printed form only


def _batch(items: int, holidays: int) -> dict:
    calendar = {"timeZone": "Europe/Zagreb",
                "holidays": [{"date": f"2027-01-{day + 1:02d}", "name": "h".ljust(200, "x")}
                             for day in range(holidays)]}
    return {"items": [{"start": "2026-11-27T15:00:00Z", "duration": "3bd", "calendar": calendar,
                       "landingTime": None} for _ in range(items)]}


def test_a_large_body_in_the_printed_form_with_nulls_is_read(client):
    """A 2.3 MB batch whose every item gives ``"landingTime": null`` is read
    (a null leaves a field unset) and answered; so is one whose items give
    an enum by its number and an instant without seconds (§14)."""
    body = _batch(1000, 10)
    for item in body["items"]:
        item.update(atClose=2, start="2026-11-27T15:00Z")
    response = client.post("/v1/dueTimes:batchCompute", body)
    assert response.status_code == 200, response.text[:300]
    body = _batch(1000, 10)
    assert len(json.dumps(body)) > http.FALL_BACK_BYTES
    response = client.post("/v1/dueTimes:batchCompute", body)
    assert response.status_code == 200, response.text[:300]
    results = response.json()["results"]
    assert len(results) == 1000, results[-1]
    assert results[-1]["response"]["due"] == "2026-12-02T15:00:00Z", results[-1]


def test_a_large_body_with_a_value_not_in_the_printed_form_is_refused(client):
    """A key given under both its names is read in a small body, and refused
    in one of more than 2 MiB, saying why and what to do."""
    body = _batch(2, 10)
    body["items"][-1]["calendar"] = dict(body["items"][-1]["calendar"], time_zone="Europe/Zagreb")
    assert client.post("/v1/dueTimes:batchCompute", body).status_code == 200
    body = _batch(1000, 10)
    body["items"][-1]["calendar"] = dict(body["items"][-1]["calendar"], time_zone="Europe/Zagreb")
    found = violation(client.post("/v1/dueTimes:batchCompute", body))
    assert found == {"field": "body", "description": http.RARE_FORM_IN_A_LARGE_BODY}
    assert found["description"].startswith("is over 25000 JSON values or 2 MiB and holds a value in a "
                                           "rare form")


def test_a_byte_order_mark_before_the_body_is_skipped(client):
    """RFC 8259 §8.1: a reader may ignore a UTF-8 byte order mark, as Windows
    tools write one; the body is read as without it."""
    body = b"\xef\xbb\xbf" + json.dumps({"start": "2026-11-27T15:00:00Z", "duration": "3bd",
                                         "calendar": {"timeZone": "Europe/Zagreb"}}).encode()
    response = client.request("POST", COMPUTE, content=body,
                              headers={"Content-Type": "application/json"})
    assert (response.status_code, response.json()["due"]) == (200, "2026-12-02T15:00:00Z")


def test_an_instant_or_value_name_longer_than_any_is_refused_before_it_is_read(client):
    found = violation(client.post(COMPUTE, {"start": "2" * 100_000, "duration": "1bd"}))
    assert found == {"field": "body", "description": "field start: is 100000 characters long; "
                                                     "an instant is at most 256"}
    found = violation(client.post(COMPUTE, {"start": "2026-11-27T16:00Z", "duration": "1bh",
                                            "atClose": "N" * 300}))
    assert found == {"field": "body", "description": "field atClose: is 300 characters long; "
                                                     "a value name is at most 256"}


def test_commas_and_colons_in_strings_are_no_values(client):
    """1,000 holidays named with 150 commas each (205 KB, 157,000 ``,`` and
    ``:`` in all, 8,000 JSON values) are read: in a body of at most 2 MiB,
    what is inside strings is not counted against the 100,000 values a body
    may hold."""
    name = "Day of rest, observed: " + "," * 150
    body = {"start": "2026-11-27T15:00:00Z", "duration": "3bd", "calendar": {
        "timeZone": "Europe/Zagreb",
        "holidays": [{"date": f"{2030 + i // 365}-01-01", "name": name} for i in range(1)]
        + [{"date": f"{2030 + i // 300:04d}-{1 + i % 300 // 28:02d}-{1 + i % 28:02d}",
            "name": name[:200]} for i in range(1, 1000)]}}
    text = json.dumps(body).encode()
    assert http.json_values(text) > 150_000 and len(text) < 2 << 20
    assert http.counted_json_values(text, 100_000) < 10_000
    response = client.post(COMPUTE, body)
    assert response.status_code == 200, response.text[:300]
    assert response.json()["due"] == "2026-12-02T15:00:00Z"
