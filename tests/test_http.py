"""End to end: the HTTP/JSON API of a real ``python -m duetime serve --http-port``
process answers every RPC exactly as its gRPC API does, records the same way,
and reports errors as AIP-193 JSON.

One server per module (gRPC and HTTP on 127.0.0.1); each call is bounded by a
10 s timeout.
"""

from __future__ import annotations

import re
from urllib.parse import quote

import grpc
import httpx
import pytest
from duetime.v1 import duetime_pb2 as pb
from google.protobuf import json_format
from google.protobuf.message import Message
from google.rpc import code_pb2, error_details_pb2, status_pb2  # noqa: F401 - details for json_format
from grpc_status import rpc_status
from server_process import (SUPPORT_CONTRACT_EVENTS, ServerProcess, start_with_http, ts,
                            zagreb_request)

# The paths the API promises (the playground and callers are written against
# them); the server builds its routes from the proto's google.api.http options.
JSON_BODY = {"Content-Type": "application/json"}
"""Every POST says its body is JSON (a body said to be anything else is 415)."""
PATHS = {
    "ComputeDueTime": ("POST", "/v1/dueTimes:compute"),
    "BatchComputeDueTimes": ("POST", "/v1/dueTimes:batchCompute"),
    "ComputeBusinessTime": ("POST", "/v1/businessTime:compute"),
    "GetOpenStatus": ("POST", "/v1/openStatus:get"),
    "ComputeSchedule": ("POST", "/v1/schedules:compute"),
    "GetRecord": ("GET", "/v1/records/{record_id}"),
    "ListRecords": ("GET", "/v1/records"),
    "AnalyzeImpact": ("POST", "/v1/records:analyzeImpact"),
    "StartClock": ("POST", "/v1/clocks:start"),
    "ApplyClockEvent": ("POST", "/v1/clocks:applyEvent"),
    "EvaluateSla": ("POST", "/v1/sla:evaluate"),
    "ListCalendars": ("GET", "/v1/calendars"),
    "GetCalendar": ("GET", "/v1/calendars/{name}"),
    "ListHolidays": ("POST", "/v1/holidays:list"),
    "ListPolicies": ("GET", "/v1/policies"),
    "GetPolicy": ("GET", "/v1/policies/{name}"),
    "ListOpenPeriods": ("POST", "/v1/openPeriods:list"),
    "CountBusinessDays": ("POST", "/v1/businessDays:count"),
}
CALENDAR_RPCS = {"ListCalendars", "GetCalendar", "ListHolidays", "ListPolicies", "GetPolicy"}
READ_ONLY_RPCS = {"GetRecord", "ListRecords", "AnalyzeImpact"} | CALENDAR_RPCS
# google/rpc/code.proto's HTTP mapping, written out independently of the server's table.
HTTP_OF = {"INVALID_ARGUMENT": 400, "OUT_OF_RANGE": 400, "FAILED_PRECONDITION": 400,
           "UNAUTHENTICATED": 401, "PERMISSION_DENIED": 403, "NOT_FOUND": 404,
           "ALREADY_EXISTS": 409, "ABORTED": 409, "RESOURCE_EXHAUSTED": 429, "INTERNAL": 500,
           "UNIMPLEMENTED": 501, "UNAVAILABLE": 503, "DEADLINE_EXCEEDED": 504}
ZAGREB = pb.Calendar(time_zone="Europe/Zagreb",
                     holidays=[pb.Holiday(date="2026-12-25"), pb.Holiday(date="2026-12-26")])


class Both:
    """One server, called over gRPC (``server``) and HTTP (``http``)."""

    def __init__(self, server: ServerProcess, http: httpx.Client):
        self.server, self.http = server, http

    def grpc(self, rpc: str, request: Message, namespace: str = "") -> Message:
        stub = self.server.calendars if rpc in CALENDAR_RPCS else self.server.stub
        metadata = (("x-duetime-namespace", namespace),) if namespace else None
        return getattr(stub, rpc)(request, timeout=10, metadata=metadata)

    def grpc_status(self, rpc: str, request: Message) -> status_pb2.Status:
        with pytest.raises(grpc.RpcError) as caught:
            self.grpc(rpc, request)
        return rpc_status.from_call(caught.value)

    def send(self, rpc: str, request: Message, headers: dict | None = None) -> httpx.Response:
        """``request`` over HTTP: a POST body, or path variables and query parameters."""
        verb, template = PATHS[rpc]
        if verb == "POST":
            return self.http.post(template, content=json_format.MessageToJson(request),
                                  headers=headers)
        params = json_format.MessageToDict(request)
        path = template
        for name in re.findall(r"\{(\w+)\}", template):
            path = path.replace("{" + name + "}", quote(getattr(request, name), safe=""))
            params.pop(request.DESCRIPTOR.fields_by_name[name].json_name, None)
        return self.http.get(path, params=params, headers=headers)

    def answer(self, rpc: str, request: Message, headers: dict | None = None) -> Message:
        response = self.send(rpc, request, headers)
        assert response.status_code == 200, response.text
        assert response.headers["content-type"] == "application/json"
        return json_format.Parse(response.text, response_type(rpc)())


def response_type(rpc: str) -> type[Message]:
    service = "CalendarService" if rpc in CALENDAR_RPCS else "DueTimeService"
    return getattr(pb, pb.DESCRIPTOR.services_by_name[service].methods_by_name[rpc]
                   .output_type.name)


def http_status(response: httpx.Response) -> status_pb2.Status:
    """The google.rpc.Status an AIP-193 error body carries, after checking its shape."""
    assert response.headers["content-type"] == "application/json"
    body = response.json()
    assert list(body) == ["error"]
    error = body["error"]
    assert list(error) == ["code", "message", "status", "details"]
    assert response.status_code == error["code"]
    status = status_pb2.Status(code=code_pb2.Code.Value(error["status"]), message=error["message"])
    for detail in error["details"]:
        json_format.ParseDict(detail, status.details.add())
    return status


def without_record_ids(message: Message) -> Message:
    """A copy with every record_id cleared (each recorded call makes its own)."""
    copy = type(message)()
    copy.CopyFrom(message)

    def clear(m: Message) -> None:
        for field, value in m.ListFields():
            if field.name == "record_id":
                m.ClearField("record_id")
            elif field.message_type is not None and field.is_repeated:
                if not field.message_type.GetOptions().map_entry:
                    for item in value:
                        clear(item)
            elif field.message_type is not None:
                clear(value)

    clear(copy)
    return copy


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    """A server with --http-port, and an HTTP client to it."""
    server = start_with_http(tmp_path_factory.mktemp("http") / "ledger.db")
    try:
        with httpx.Client(base_url=server.http_url, timeout=10, headers=JSON_BODY) as client:
            yield Both(server, client)
        assert server.terminate() == 0, "".join(server.stderr)
    finally:
        server.kill()


@pytest.fixture(scope="module")
def prepared(both) -> dict:
    """What the cases refer to: a record (key "http-parity/record"), a running
    clock's state, hr-zagreb's newest version; all made over gRPC."""
    record = both.grpc("ComputeDueTime", zagreb_request("http-parity/record"))
    clock = both.grpc("StartClock", pb.StartClockRequest(
        target="8bh", start_time=ts("2026-11-27T11:00:00Z"), idempotency_key="http-parity/clock"))
    calendars = both.grpc("ListCalendars", pb.ListCalendarsRequest())
    newest = next(c.newest_version for c in calendars.calendars if c.name == "hr-zagreb")
    return {"record_id": record.record_id, "state": clock.state, "hr_zagreb": newest}


def _due(duration: str, key: str = "") -> pb.ComputeDueTimeRequest:
    request = zagreb_request(key)
    request.duration = duration
    return request


def _event(state: pb.ClockState, kind: int, at: str) -> pb.ApplyClockEventRequest:
    return pb.ApplyClockEventRequest(state=state, event=pb.ClockEvent(type=kind, time=ts(at)))


# rpc -> (a good request, a bad one (None: the RPC takes nothing that can be wrong))
CASES = {
    "ComputeDueTime": lambda p: (zagreb_request(), _due("1.5bd")),
    "BatchComputeDueTimes": lambda p: (
        pb.BatchComputeDueTimesRequest(items=[zagreb_request(), _due("8bh"), _due("3xy")]),
        pb.BatchComputeDueTimesRequest(items=[pb.ComputeDueTimeRequest()] * 10_001)),
    "ComputeBusinessTime": lambda p: (
        pb.ComputeBusinessTimeRequest(start_time=ts("2026-12-24T10:00:00+01:00"),
                                      end_time=ts("2026-12-29T11:00:00+01:00"), calendar=ZAGREB,
                                      explain=True),
        pb.ComputeBusinessTimeRequest(start_time=ts("2026-12-24T10:00:00+01:00"),
                                      calendar=pb.Calendar(time_zone="Europe/Atlantis"))),
    "GetOpenStatus": lambda p: (
        pb.GetOpenStatusRequest(time=ts("2026-12-25T12:00:00+01:00"), calendar=ZAGREB),
        pb.GetOpenStatusRequest(time=ts("2040-01-02T12:00:00Z"),
                                calendar=pb.Calendar(bundle="hr-zagreb"))),
    "ComputeSchedule": lambda p: (
        pb.ComputeScheduleRequest(entered_time=ts("2026-11-27T16:00:00+01:00"), calendar=ZAGREB,
                                  deadlines=[pb.DeadlineSpec(name="remind", duration="2bd"),
                                             pb.DeadlineSpec(name="escalate", duration="5bd"),
                                             pb.DeadlineSpec(name="final", duration="4bh",
                                                             after="escalate")]),
        pb.ComputeScheduleRequest(entered_time=ts("2026-11-27T16:00:00+01:00"),
                                  deadlines=[pb.DeadlineSpec(name="final", duration="4bh",
                                                             after="nowhere")])),
    "GetRecord": lambda p: (pb.GetRecordRequest(record_id=p["record_id"]),
                            pb.GetRecordRequest(record_id="0" * 32)),
    "ListRecords": lambda p: (pb.ListRecordsRequest(key_prefix="http-parity/", page_size=5,
                                                    start_time=ts("2020-01-01T00:00:00Z")),
                              pb.ListRecordsRequest(page_size=-1)),
    "AnalyzeImpact": lambda p: (pb.AnalyzeImpactRequest(calendar="hr-zagreb", tzdata=True),
                                pb.AnalyzeImpactRequest(calendar="no-such-bundle")),
    "StartClock": lambda p: (
        pb.StartClockRequest(target="8bh", start_time=ts("2026-11-27T11:00:00Z"), calendar=ZAGREB),
        pb.StartClockRequest(target="P1M", start_time=ts("2026-11-27T11:00:00Z"))),
    "ApplyClockEvent": lambda p: (
        _event(p["state"], pb.CLOCK_EVENT_TYPE_PAUSE, "2026-11-27T16:00:00Z"),
        _event(p["state"], pb.CLOCK_EVENT_TYPE_RESUME, "2026-11-27T16:00:00Z")),
    "EvaluateSla": lambda p: (
        pb.EvaluateSlaRequest(policy="support-contract", events=[
            pb.BusinessEvent(type=kind, time=ts(at), attributes=attributes)
            for kind, at, attributes in SUPPORT_CONTRACT_EVENTS]),
        pb.EvaluateSlaRequest(policy="no-such-policy", events=[
            pb.BusinessEvent(type="start", time=ts(SUPPORT_CONTRACT_EVENTS[0][1]))])),
    "ListCalendars": lambda p: (pb.ListCalendarsRequest(), None),
    "GetCalendar": lambda p: (pb.GetCalendarRequest(name=f"hr-zagreb@{p['hr_zagreb']}"),
                              pb.GetCalendarRequest(name="no-such-bundle@123")),
    "ListHolidays": lambda p: (
        pb.ListHolidaysRequest(calendar=pb.Calendar(bundle="hr-zagreb"),
                               start_date="2026-12-01", end_date="2026-12-31"),
        pb.ListHolidaysRequest(calendar=pb.Calendar(bundle="hr-zagreb"),
                               start_date="2026-12-31", end_date="2026-12-01")),
    "ListPolicies": lambda p: (pb.ListPoliciesRequest(), None),
    "GetPolicy": lambda p: (pb.GetPolicyRequest(name="support-contract"),
                            pb.GetPolicyRequest(name="no-such-policy")),
    "ListOpenPeriods": lambda p: (
        pb.ListOpenPeriodsRequest(start_time=ts("2026-12-24T14:00:00Z"), end_time=ts("2026-12-29T09:00:00Z"),
                                  calendar=ZAGREB),
        pb.ListOpenPeriodsRequest(start_time=ts("2026-12-29T09:00:00Z"), end_time=ts("2026-12-24T14:00:00Z"))),
    "CountBusinessDays": lambda p: (
        pb.CountBusinessDaysRequest(from_date="2026-12-01", to_date="2026-12-31", calendar=ZAGREB),
        pb.CountBusinessDaysRequest(from_date="2026-12-31", to_date="2026-12-01")),
}
ERROR_RPCS = [rpc for rpc in PATHS if rpc not in ("ListCalendars", "ListPolicies")]


def test_routes_are_the_proto_rules():
    from duetime.api.http import BINDINGS

    assert {b.method: (b.verb, b.template) for b in BINDINGS} == PATHS
    assert len(BINDINGS) == len(PATHS)  # one rule each; StreamComputeDueTimes has none


def test_every_rpc_has_a_case():
    assert set(CASES) == set(PATHS)


@pytest.mark.parametrize("rpc", list(PATHS))
def test_http_answers_as_grpc(both, prepared, rpc):
    good, _ = CASES[rpc](prepared)
    via_grpc = both.grpc(rpc, good)
    via_http = both.answer(rpc, good)
    assert via_grpc.ListFields(), "the case must have an answer to compare"
    if rpc in READ_ONLY_RPCS:
        assert via_http == via_grpc
    else:  # each call is recorded on its own
        assert without_record_ids(via_http) == without_record_ids(via_grpc)
        if rpc != "BatchComputeDueTimes":
            assert len(via_http.record_id) == 32 and via_http.record_id != via_grpc.record_id


@pytest.mark.parametrize("rpc", ERROR_RPCS)
def test_http_errors_as_grpc(both, prepared, rpc):
    _, bad = CASES[rpc](prepared)
    expected = both.grpc_status(rpc, bad)
    response = both.send(rpc, bad)
    assert http_status(response) == expected
    assert response.status_code == HTTP_OF[code_pb2.Code.Name(expected.code)]


def test_batch_item_errors_are_answered_per_item(both, prepared):
    good, _ = CASES["BatchComputeDueTimes"](prepared)
    answer = both.answer("BatchComputeDueTimes", good)
    assert [r.WhichOneof("result") for r in answer.results] == ["response", "response", "error"]
    assert answer.results[0].response.due.ToJsonString() == "2026-12-02T15:00:00Z"
    assert answer.results[2].error.code == code_pb2.INVALID_ARGUMENT


def test_zagreb_example_as_plain_json(both):
    body = {"start": "2026-11-27T16:00:00+01:00", "duration": "3bd",
            "calendar": {"timeZone": "Europe/Zagreb",
                         "holidays": [{"date": "2026-12-25"}, {"date": "2026-12-26"}]}}
    response = both.http.post("/v1/dueTimes:compute", json=body)
    assert response.status_code == 200, response.text
    answer = response.json()
    assert (answer["due"], answer["dueLocal"], answer["timeZone"]) == (
        "2026-12-02T15:00:00Z", "2026-12-02T16:00:00+01:00", "Europe/Zagreb")
    via_grpc = both.grpc("ComputeDueTime", zagreb_request())
    assert answer["calendarVersion"] == via_grpc.calendar_version
    assert answer["tzdataVersion"] == via_grpc.tzdata_version


def test_get_record_returns_the_record_of_an_http_call(both):
    request = zagreb_request("http/record-of-http")
    answer = both.answer("ComputeDueTime", request)
    response = both.http.get(f"/v1/records/{answer.record_id}")
    assert response.status_code == 200, response.text
    record = json_format.Parse(response.text, pb.GetRecordResponse()).record
    stored_request, stored_response = pb.ComputeDueTimeRequest(), pb.ComputeDueTimeResponse()
    assert record.request.Unpack(stored_request) and stored_request == request
    assert record.response.Unpack(stored_response) and stored_response == answer
    assert (record.record_id, record.method, record.idempotency_key, record.namespace) == (
        answer.record_id, "/duetime.v1.DueTimeService/ComputeDueTime", "http/record-of-http", "")
    assert record == both.grpc("GetRecord", pb.GetRecordRequest(record_id=answer.record_id)).record


def test_same_key_over_http_gives_the_same_record(both):
    first = both.send("ComputeDueTime", zagreb_request("http/key-1"))
    again = both.send("ComputeDueTime", zagreb_request("http/key-1"))
    assert first.status_code == again.status_code == 200
    assert again.text == first.text
    assert len(first.json()["recordId"]) == 32


def test_same_key_across_http_and_grpc_gives_the_same_record(both):
    via_grpc = both.grpc("ComputeDueTime", zagreb_request("http/key-grpc-first"))
    assert both.answer("ComputeDueTime", zagreb_request("http/key-grpc-first")) == via_grpc
    via_http = both.answer("StartClock", pb.StartClockRequest(
        target="3bd", start_time=ts("2026-11-27T11:00:00Z"), idempotency_key="http/key-http-first"))
    assert both.grpc("StartClock", pb.StartClockRequest(
        target="3bd", start_time=ts("2026-11-27T11:00:00Z"),
        idempotency_key="http/key-http-first")) == via_http


def test_same_key_with_another_request_is_409_as_over_grpc(both):
    both.answer("ComputeDueTime", zagreb_request("http/key-reused"))
    other = _due("4bd", "http/key-reused")
    response = both.send("ComputeDueTime", other)
    assert response.status_code == 409
    status = http_status(response)
    assert status == both.grpc_status("ComputeDueTime", other)
    assert code_pb2.Code.Name(status.code) == "ALREADY_EXISTS"
    assert response.json()["error"]["details"][0]["fieldViolations"][0]["field"] == \
        "idempotency_key"


def test_namespace_header_scopes_keys_as_the_grpc_metadata(both):
    plain = both.answer("ComputeDueTime", zagreb_request("http/ns-key"))
    team = both.answer("ComputeDueTime", zagreb_request("http/ns-key"),
                       headers={"x-duetime-namespace": "team-a"})
    assert team.record_id != plain.record_id
    assert both.grpc("ComputeDueTime", zagreb_request("http/ns-key"), namespace="team-a") == team
    record = both.http.get(f"/v1/records/{team.record_id}").json()["record"]
    assert (record["recordId"], record["namespace"]) == (team.record_id, "team-a")
    listed = both.http.get("/v1/records", params={"namespace": "team-a", "keyPrefix": "http/ns-"})
    assert [r["recordId"] for r in listed.json()["records"]] == [team.record_id]


def test_bad_namespace_header_is_400_naming_it(both):
    response = both.send("ComputeDueTime", zagreb_request(),
                         headers={"x-duetime-namespace": "no spaces"})
    assert response.status_code == 400
    violation = response.json()["error"]["details"][0]["fieldViolations"][0]
    assert violation == {"field": "metadata x-duetime-namespace", "description":
                         "'no spaces' is not a namespace: 1 to 64 characters of A-Z a-z 0-9 . _ -"}


def test_query_parameters_by_proto_or_json_name(both, prepared):
    by_json = both.http.get("/v1/records", params={"keyPrefix": "http-parity/", "pageSize": "1"})
    by_proto = both.http.get("/v1/records", params={"key_prefix": "http-parity/", "page_size": "1"})
    assert by_json.status_code == by_proto.status_code == 200
    assert by_json.json() == by_proto.json()
    assert [r["recordId"] for r in by_json.json()["records"]] == [prepared["record_id"]]


def bad_request(response: httpx.Response) -> dict:
    """The one field violation of a 400 INVALID_ARGUMENT AIP-193 answer."""
    assert response.status_code == 400
    status = http_status(response)
    assert status.code == code_pb2.INVALID_ARGUMENT
    error = response.json()["error"]
    assert [d["@type"] for d in error["details"]] == [
        "type.googleapis.com/google.rpc.BadRequest", "type.googleapis.com/google.rpc.ErrorInfo"]
    (violation,) = error["details"][0]["fieldViolations"]
    assert error["message"] == f"{violation['field']}: {violation['description']}"
    return violation


def test_bad_json_is_400(both):
    response = both.http.post("/v1/dueTimes:compute", content=b'{"duration": ')
    assert bad_request(response) == {"field": "body", "description": (
        "is not valid JSON for duetime.v1.ComputeDueTimeRequest: Expecting value: line 1 "
        "column 14 (char 13)")}


def test_a_duplicate_key_is_400_in_plain_words(both):
    response = both.http.post("/v1/dueTimes:compute",
                              content=b'{"duration": "3bd", "duration": "2bd"}')
    assert bad_request(response) == {"field": "body", "description": (
        "is not valid JSON for duetime.v1.ComputeDueTimeRequest: duplicate key duration")}


def test_a_value_of_the_wrong_json_type_is_400_naming_the_field(both):
    wrong = {"/v1/dueTimes:compute": (b'{"duration": 5}', "field duration: must be a JSON string"),
             "/v1/schedules:compute": (b'{"calendar": {"holidays": [{"date": 20261225}]}}',
                                       "field calendar.holidays[0].date: must be a JSON string"),
             "/v1/records:analyzeImpact": (b'{"limit": "abc"}', "field limit: must be an integer"),
             "/v1/holidays:list": (b'{"calendar": 5}', "field calendar: must be a JSON object")}
    for path, (body, description) in wrong.items():
        assert bad_request(both.http.post(path, content=body)) == {
            "field": "body", "description": description}, path


def test_enum_numbers_out_of_range_and_bad_map_keys_are_400_naming_the_field(both):
    start = '"start": "2026-11-27T16:00:00+01:00", "duration": "3bd"'
    at_close = "field atClose: must be a duetime.v1.AtClose value name"
    listed = ("is not a value of AtClose: write a name or a whole number, one of END_OF_WINDOW, NEXT_OPEN "
              "(or the full names AT_CLOSE_END_OF_WINDOW, AT_CLOSE_NEXT_OPEN, or the numbers 1, 2)")
    weekend = ("field calendar.weekend.days: must be a JSON array, each item "
               "a duetime.v1.Weekday value name")
    wrong = [("/v1/dueTimes:compute", '{%s, "atClose": 1e999}' % start, at_close),
             ("/v1/dueTimes:compute", '{%s, "atClose": -1e999}' % start, at_close),
             ("/v1/dueTimes:compute", '{%s, "atClose": 2147483648}' % start,
              f"field atClose: 2147483648 {listed}"),
             ("/v1/dueTimes:compute", '{%s, "atClose": 99999999999999999999}' % start,
              f"field atClose: 99999999999999999999 {listed}"),
             ("/v1/dueTimes:compute",
              '{%s, "calendar": {"weekend": {"days": [6, 1e400]}}}' % start, weekend),
             ("/v1/sla:evaluate", '{"policy": "support-contract", "events": [{"type": "start", '
              '"time": "2026-12-11T10:00:00+01:00", "attributes": {"\\ud800": "b"}}]}',
              "field events[0].attributes: has a key that is not valid Unicode (it holds an "
              "unpaired surrogate)")]
    for path, body, description in wrong:
        assert bad_request(both.http.post(path, content=body.encode())) == {
            "field": "body", "description": description}, body


def test_json_that_is_not_an_object_is_400(both):
    response = both.http.post("/v1/dueTimes:compute", content=b"[1, 2]")
    assert bad_request(response) == {"field": "body", "description": (
        "must be a JSON object (a duetime.v1.ComputeDueTimeRequest in the protobuf JSON "
        "mapping)")}


def test_unknown_field_is_400(both):
    response = both.http.post("/v1/dueTimes:compute", json={"duration": "3bd", "color": "red"})
    assert bad_request(response) == {"field": "body", "description": (
        'is not valid JSON for duetime.v1.ComputeDueTimeRequest: Message type '
        '"duetime.v1.ComputeDueTimeRequest" has no field named "color" at '
        '"ComputeDueTimeRequest"')}


def test_unknown_query_parameter_is_400(both):
    response = both.http.get("/v1/records", params={"colour": "red"})
    assert bad_request(response) == {"field": "colour",
                                     "description": "ListRecordsRequest has no field 'colour'"}


def test_a_query_parameter_on_a_whole_body_route_is_400_and_not_recorded(both):
    request = json_format.MessageToDict(zagreb_request("http-query-refused/1"))
    response = both.http.post("/v1/dueTimes:compute", params={"bogus": "1"}, json=request)
    assert bad_request(response) == {"field": "bogus", "description": (
        "ComputeDueTimeRequest takes no query parameters: POST /v1/dueTimes:compute reads "
        "every field from the JSON body")}
    # a field of the request is no query parameter either
    response = both.http.post("/v1/holidays:list", params={"startDate": "2026-01-01"},
                              json={"calendar": {"bundle": "hr-zagreb"}})
    assert bad_request(response) == {"field": "startDate", "description": (
        "ListHolidaysRequest takes no query parameters: POST /v1/holidays:list reads every "
        "field from the JSON body")}
    listed = both.http.get("/v1/records", params={"keyPrefix": "http-query-refused/"})
    assert (listed.status_code, listed.json()) == (200, {"records": [], "nextPageToken": ""})


@pytest.mark.parametrize("path", ["/v1/nothing-here", "/v1/records/"])
def test_unknown_path_is_404_in_the_same_shape(both, path):
    """An unknown path, and ``GET /v1/records/`` (an empty record id: a 404
    like any unknown path, not a bare 307 redirect), answer in the AIP-193
    JSON shape."""
    response = both.http.get(path, follow_redirects=False)
    assert response.status_code == 404
    assert response.json() == {"error": {
        "code": 404,
        "message": f"no duetime.v1 method or file at GET {path}; the API's paths are "
                   "listed in proto/duetime/v1/duetime.proto (google.api.http)",
        "status": "NOT_FOUND",
        "details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo",
                     "reason": "NO_SUCH_PATH", "domain": "duetime.dev",
                     "metadata": {"path": path}}]}}


def test_wrong_method_is_405_in_the_same_shape(both):
    response = both.http.get("/v1/dueTimes:compute")
    assert response.status_code == 405
    assert response.headers["allow"] == "POST"
    error = response.json()["error"]
    assert (error["code"], error["status"], error["message"]) == (
        405, "UNIMPLEMENTED", "/v1/dueTimes:compute does not answer GET; it answers POST")


def test_http_calls_are_logged_once(both):
    """An HTTP call gets duetime's one call line, with an ``http:`` peer (no
    second access line from uvicorn)."""
    both.http.get("/v1/calendars", headers={"x-test": "logged"})
    line = both.server.await_log(
        r"rpc /duetime\.v1\.CalendarService/ListCalendars OK [0-9.]+ ms namespace=\"\" peer=http:")
    assert "peer=http:127.0.0.1:" in line
    assert not any("GET /v1/calendars HTTP/1.1" in logged for logged in both.server.stderr)


def test_with_auth_tokens_http_needs_the_same_bearer_token(tmp_path):
    tokens = tmp_path / "tokens"
    tokens.write_text("http-token-1\n")
    server = start_with_http(tmp_path / "ledger.db", "--auth-tokens", str(tokens))
    try:
        with httpx.Client(base_url=server.http_url, timeout=10, headers=JSON_BODY) as client:
            refused = client.post("/v1/dueTimes:compute", content=json_format.MessageToJson(
                zagreb_request()))
            answered = client.post("/v1/dueTimes:compute", content=json_format.MessageToJson(
                zagreb_request()), headers={"Authorization": "Bearer http-token-1"})
        assert refused.status_code == 401
        assert (refused.json()["error"]["status"],
                refused.json()["error"]["details"][0]["reason"]) == (
            "UNAUTHENTICATED", "TOKEN_MISSING")
        assert answered.status_code == 200, answered.text
        assert answered.json()["due"] == "2026-12-02T15:00:00Z"
        assert server.terminate() == 0, "".join(server.stderr)
    finally:
        server.kill()


def test_a_wrong_value_in_a_list_of_messages_names_its_index(both):
    body = (b'{"policy": "support-sla", "events": [{"type": "start", "time": "2026-12-01T09:00:00Z"}, '
            b'{"type": "priority_change", "time": "2026-12-01T10:00:00Z", "attributes": {"tier": 5}}]}')
    assert bad_request(both.http.post("/v1/sla:evaluate", content=body)) == {
        "field": "body", "description": "field events[1].attributes: must be a JSON object, each value a JSON string"}
