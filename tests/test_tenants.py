"""Tenants: tokens bound to namespaces and scopes, against a real
``duetime serve --auth-tokens FILE`` on 127.0.0.1 over gRPC and HTTP/JSON.

team-a and team-b each hold a token bound to their own namespace; neither
sees the other's records (another namespace's record is NOT_FOUND exactly as
an id that does not exist), keys or existence; each RPC needs its scope; a
call naming no namespace is made in the token's default; a token line
without attributes keeps full access; a reload of an emptied token file
revokes every token; a malformed one keeps the previous tokens and says so.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import uuid
from datetime import datetime

import grpc
import httpx
import pytest
from duetime.api.callers import ANYONE, SCOPE_OF, Caller, NamespaceNotPermitted, scope_of
from duetime.auth import TokenError, TokenSet, load_tokens
from duetime.client import DuetimeClient, NotFound, PermissionDenied
from duetime.config import TokenEntry, parse_token_line, token_digest
from duetime.ledger import RecordFilter
from duetime.v1 import duetime_pb2 as pb
from google.protobuf import json_format
from google.rpc import error_details_pb2
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from grpc_status import rpc_status
from playwright.sync_api import expect
from server_process import free_port, start_with_http, zagreb_request
from test_playground import browser  # noqa: F401 - the fixture
from test_playground import compute as playground_compute
from test_playground import enter_zagreb

LEGACY = "legacy-token-0"
TEAM_A = "team-a-token.1"
TEAM_B = "team-b-token.2"
BOTH = "both-teams-token.3"
READER = "reader-a-token.4"
COMPUTER = "computer-a-token.5"
ADMIN = "admin-token.6"
TOKEN_FILE = f"""# the callers of this server
{LEGACY}
{TEAM_A} namespaces=team-a scopes=compute,read,impact
{TEAM_B}   namespaces=team-b   scopes=compute,read,impact
{BOTH} namespaces=team-a,team-b default=team-b scopes=compute,read
{READER} namespaces=team-a scopes=read
{COMPUTER} namespaces=team-a scopes=compute
{ADMIN} scopes=admin
"""
NAMESPACE_METADATA = "metadata x-duetime-namespace"


def metadata(token: str, namespace: str | None = None) -> tuple[tuple[str, str], ...]:
    pairs = (("authorization", f"Bearer {token}"),)
    return pairs + ((("x-duetime-namespace", namespace),) if namespace is not None else ())


def failure(call, *args, **kwargs):
    """The google.rpc.Status of a call that fails."""
    with pytest.raises(grpc.RpcError) as caught:
        call(*args, timeout=10, **kwargs)
    status = rpc_status.from_call(caught.value)
    assert status is not None, caught.value
    return status


def error_info(status) -> error_details_pb2.ErrorInfo:
    for detail in status.details:
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            return info
    raise AssertionError(f"no ErrorInfo in {status}")


def field_violations(status) -> list[tuple[str, str]]:
    for detail in status.details:
        if detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
            bad = error_details_pb2.BadRequest()
            detail.Unpack(bad)
            return [(v.field, v.description) for v in bad.field_violations]
    return []


def without(status, record_id: str) -> bytes:
    """``status`` serialized with ``record_id`` replaced by a placeholder."""
    return status.SerializeToString().replace(record_id.encode(), b"<id>")


@pytest.fixture(scope="module")
def token_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("tenants") / "tokens"
    path.write_text(TOKEN_FILE)
    return path


@pytest.fixture(scope="module")
def server(tmp_path_factory, token_file):
    running = start_with_http(tmp_path_factory.mktemp("tenants-ledger") / "ledger.db",
                              "--auth-tokens", str(token_file))
    try:
        yield running
        assert running.terminate() == 0, "".join(running.stderr)
    finally:
        running.kill()


@pytest.fixture(scope="module")
def http(server):
    with httpx.Client(base_url=server.http_url, timeout=10) as client:
        yield client


def compute(server, token: str, key: str = "", namespace: str | None = None,
            duration: str = "3bd") -> pb.ComputeDueTimeResponse:
    request = zagreb_request(key)
    request.duration = duration
    return server.stub.ComputeDueTime(request, timeout=10, metadata=metadata(token, namespace))


def listed(server, token: str, **fields) -> list[pb.Record]:
    records, token_ = [], ""
    while True:
        page = server.stub.ListRecords(pb.ListRecordsRequest(page_token=token_, **fields),
                                       timeout=10, metadata=metadata(token))
        records.extend(page.records)
        if not (token_ := page.next_page_token):
            return records


# ---------------------------------------------------------------------------
# gRPC


def test_another_teams_record_is_not_found_exactly_as_an_unknown_id(server):
    mine = compute(server, TEAM_A, key="get-1")
    assert server.stub.GetRecord(pb.GetRecordRequest(record_id=mine.record_id), timeout=10,
                                 metadata=metadata(TEAM_A)).record.namespace == "team-a"
    theirs = failure(server.stub.GetRecord, pb.GetRecordRequest(record_id=mine.record_id),
                     metadata=metadata(TEAM_B))
    unknown_id = uuid.uuid4().hex
    unknown = failure(server.stub.GetRecord, pb.GetRecordRequest(record_id=unknown_id),
                      metadata=metadata(TEAM_B))
    assert theirs.code == grpc.StatusCode.NOT_FOUND.value[0]
    assert theirs.message == f"no record with id {mine.record_id!r}"
    assert without(theirs, mine.record_id) == without(unknown, unknown_id)
    # a token bound to both namespaces reads it; so does a legacy (unbound) token
    for token in (BOTH, LEGACY):
        record = server.stub.GetRecord(pb.GetRecordRequest(record_id=mine.record_id),
                                       timeout=10, metadata=metadata(token)).record
        assert (record.record_id, record.namespace) == (mine.record_id, "team-a")


def test_listing_and_impact_show_nothing_of_another_team(server):
    a_ids = {compute(server, TEAM_A, key=f"list-a-{i}").record_id for i in range(3)}
    b_ids = {compute(server, TEAM_B, key=f"list-b-{i}").record_id for i in range(2)}
    seen_by_b = listed(server, TEAM_B)
    assert {r.namespace for r in seen_by_b} == {"team-b"}
    assert b_ids <= {r.record_id for r in seen_by_b}
    assert not a_ids & {r.record_id for r in seen_by_b}
    assert listed(server, TEAM_B, key_prefix="list-a-") == []
    assert {r.record_id for r in listed(server, TEAM_B, namespace="team-b")} == \
        {r.record_id for r in seen_by_b}
    for namespace in ("team-a", ""):
        denied = failure(server.stub.ListRecords, pb.ListRecordsRequest(namespace=namespace),
                         metadata=metadata(TEAM_B))
        assert denied.code == grpc.StatusCode.PERMISSION_DENIED.value[0]
        info = error_info(denied)
        assert (info.reason, dict(info.metadata)) == (
            "NAMESPACE_NOT_PERMITTED", {"namespace": namespace, "field": "namespace"})
        assert field_violations(denied)[0][0] == "namespace"
    assert denied.message.startswith('namespace: this token is not bound to namespace "" '
                                     "(the default namespace); it may use: team-b.")
    # the legacy token lists every namespace, as before
    everything = {r.record_id for r in listed(server, LEGACY)}
    assert a_ids | b_ids <= everything
    # AnalyzeImpact reads only the caller's namespace
    impact_b = server.stub.AnalyzeImpact(pb.AnalyzeImpactRequest(tzdata=True), timeout=10,
                                         metadata=metadata(TEAM_B))
    assert impact_b.records_examined == len(listed(server, TEAM_B))
    mentioned = {c.record_id for c in impact_b.changes} | \
        {s.record_id for s in impact_b.not_replayed}
    assert not mentioned & a_ids
    denied = failure(server.stub.AnalyzeImpact,
                     pb.AnalyzeImpactRequest(tzdata=True, namespace="team-a"),
                     metadata=metadata(TEAM_B))
    assert (denied.code, error_info(denied).reason) == (
        grpc.StatusCode.PERMISSION_DENIED.value[0], "NAMESPACE_NOT_PERMITTED")


def test_page_tokens_do_not_carry_across_namespaces(server):
    for i in range(3):
        compute(server, TEAM_A, key=f"page-a-{i}")
    first = server.stub.ListRecords(pb.ListRecordsRequest(page_size=1), timeout=10,
                                    metadata=metadata(TEAM_A))
    assert first.next_page_token and first.records[0].namespace == "team-a"
    refused = failure(server.stub.ListRecords,
                      pb.ListRecordsRequest(page_size=1, page_token=first.next_page_token),
                      metadata=metadata(TEAM_B))
    assert refused.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    assert field_violations(refused)[0][0] == "page_token"


def test_the_same_idempotency_key_in_two_namespaces_is_independent(server):
    a_first = compute(server, TEAM_A, key="shared-key", duration="3bd")
    b_first = compute(server, TEAM_B, key="shared-key", duration="5bd")
    assert a_first.record_id != b_first.record_id
    assert compute(server, TEAM_B, key="shared-key", duration="5bd").record_id == \
        b_first.record_id
    assert compute(server, TEAM_A, key="shared-key", duration="3bd").record_id == \
        a_first.record_id
    # ALREADY_EXISTS only about the caller's own namespace's key
    reused = failure(server.stub.ComputeDueTime,
                     zagreb_request("shared-key"), metadata=metadata(TEAM_B))  # 3bd: a's request
    assert reused.code == grpc.StatusCode.ALREADY_EXISTS.value[0]
    info = error_info(reused)
    assert dict(info.metadata) == {"idempotency_key": "shared-key", "namespace": "team-b"}
    assert a_first.record_id not in reused.SerializeToString().decode("latin-1")
    # a key only team-a used is new to team-b
    only_a = compute(server, TEAM_A, key="only-a-key")
    fresh = compute(server, TEAM_B, key="only-a-key", duration="7bd")
    assert fresh.record_id != only_a.record_id


def test_each_rpc_needs_its_scope(server):
    cases = [
        (READER, "ComputeDueTime", lambda md: server.stub.ComputeDueTime(
            zagreb_request(), timeout=10, metadata=md), "compute", "read"),
        (READER, "ListCalendars", lambda md: server.calendars.ListCalendars(
            pb.ListCalendarsRequest(), timeout=10, metadata=md), "compute", "read"),
        (COMPUTER, "GetRecord", lambda md: server.stub.GetRecord(
            pb.GetRecordRequest(record_id=uuid.uuid4().hex), timeout=10, metadata=md),
         "read", "compute"),
        (COMPUTER, "ListRecords", lambda md: server.stub.ListRecords(
            pb.ListRecordsRequest(), timeout=10, metadata=md), "read", "compute"),
        (BOTH, "AnalyzeImpact", lambda md: server.stub.AnalyzeImpact(
            pb.AnalyzeImpactRequest(tzdata=True), timeout=10, metadata=md),
         "impact", "compute, read"),
        (ADMIN, "ComputeDueTime", lambda md: server.stub.ComputeDueTime(
            zagreb_request(), timeout=10, metadata=md), "compute", "admin"),
        (TEAM_A, "StreamComputeDueTimes", lambda md: list(server.stub.StreamComputeDueTimes(
            iter([pb.StreamComputeDueTimesRequest()]), timeout=10, metadata=md)),
         None, None),
    ]
    for token, rpc, call, scope, have in cases:
        if scope is None:
            assert call(metadata(token)) == []  # team-a has compute: an empty stream is fine
            continue
        with pytest.raises(grpc.RpcError) as caught:
            call(metadata(token))
        status = rpc_status.from_call(caught.value)
        assert status.code == grpc.StatusCode.PERMISSION_DENIED.value[0], rpc
        assert status.message == (f"{rpc} needs a token with scope {scope!r}; this token's "
                                  f"scopes are: {have}. Use a token whose scopes= include "
                                  f"{scope}")
        info = error_info(status)
        assert info.reason == "SCOPE_MISSING" and info.metadata["scope"] == scope
    # reflection is admin
    request = reflection_pb2.ServerReflectionRequest(list_services="")
    reflect = reflection_pb2_grpc.ServerReflectionStub(server.channel).ServerReflectionInfo
    with pytest.raises(grpc.RpcError) as caught:
        list(reflect(iter([request]), timeout=10, metadata=metadata(TEAM_A)))
    assert caught.value.code() == grpc.StatusCode.PERMISSION_DENIED
    assert "needs a token with scope 'admin'" in caught.value.details()
    for token in (ADMIN, LEGACY):
        answer = list(reflect(iter([request]), timeout=10, metadata=metadata(token)))
        assert "duetime.v1.DueTimeService" in {
            s.name for s in answer[0].list_services_response.service}
    # what each scope allows
    assert server.stub.GetRecord(pb.GetRecordRequest(
        record_id=compute(server, COMPUTER, key="scoped").record_id), timeout=10,
        metadata=metadata(READER)).record.namespace == "team-a"


RPCS = [(f"/{service.full_name}/{method.name}", method)
        for service in pb.DESCRIPTOR.services_by_name.values() for method in service.methods]
WITHOUT = {"compute": READER, "read": COMPUTER, "impact": COMPUTER, "admin": TEAM_A}
"""A token lacking each scope."""
WITH = {"compute": COMPUTER, "read": READER, "impact": TEAM_A}
"""A token holding each scope."""


@pytest.mark.parametrize("path, method", RPCS, ids=[path for path, _ in RPCS])
def test_every_rpc_is_refused_without_its_scope_and_answered_with_it(server, path, method):
    scope = SCOPE_OF[path]
    request_type = getattr(pb, method.input_type.name)
    kind = ("stream_stream" if method.client_streaming and method.server_streaming
            else "unary_unary")
    stub = getattr(server.channel, kind)(path, request_serializer=request_type.SerializeToString,
                                         response_deserializer=lambda data: data)

    def call(token: str):
        if kind == "stream_stream":
            return list(stub(iter([request_type()]), timeout=10, metadata=metadata(token)))
        return stub(request_type(), timeout=10, metadata=metadata(token))

    with pytest.raises(grpc.RpcError) as caught:
        call(WITHOUT[scope])
    status = rpc_status.from_call(caught.value)
    assert status.code == grpc.StatusCode.PERMISSION_DENIED.value[0]
    info = error_info(status)
    assert (info.reason, dict(info.metadata)) == ("SCOPE_MISSING",
                                                  {"scope": scope, "method": path})
    try:  # with the scope, the call reaches its RPC (an empty request may be refused there)
        call(WITH[scope])
    except grpc.RpcError as exc:
        assert exc.code() in (grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.NOT_FOUND), (
            path, exc.code(), exc.details())


def test_a_call_without_a_namespace_uses_the_tokens_default(server):
    assert server.stub.GetRecord(pb.GetRecordRequest(
        record_id=compute(server, TEAM_A).record_id), timeout=10,
        metadata=metadata(TEAM_A)).record.namespace == "team-a"
    for namespace, expected in ((None, "team-b"), ("team-a", "team-a"), ("team-b", "team-b")):
        answer = compute(server, BOTH, namespace=namespace)
        record = server.stub.GetRecord(pb.GetRecordRequest(record_id=answer.record_id),
                                       timeout=10, metadata=metadata(BOTH)).record
        assert record.namespace == expected
    batch = server.stub.BatchComputeDueTimes(
        pb.BatchComputeDueTimesRequest(items=[zagreb_request("batch-1")]), timeout=10,
        metadata=metadata(TEAM_B))
    assert server.stub.GetRecord(pb.GetRecordRequest(
        record_id=batch.results[0].response.record_id), timeout=10,
        metadata=metadata(TEAM_B)).record.namespace == "team-b"
    stream = list(server.stub.StreamComputeDueTimes(
        iter([pb.StreamComputeDueTimesRequest(items=[zagreb_request("stream-1")])]),
        timeout=10, metadata=metadata(TEAM_B)))
    assert server.stub.GetRecord(pb.GetRecordRequest(
        record_id=stream[0].results[0].response.record_id), timeout=10,
        metadata=metadata(TEAM_B)).record.namespace == "team-b"
    for call in (
        lambda md: server.stub.ComputeDueTime(zagreb_request(), timeout=10, metadata=md),
        lambda md: server.stub.BatchComputeDueTimes(pb.BatchComputeDueTimesRequest(
            items=[zagreb_request()]), timeout=10, metadata=md),
        lambda md: list(server.stub.StreamComputeDueTimes(iter([
            pb.StreamComputeDueTimesRequest(items=[zagreb_request()])]), timeout=10,
            metadata=md)),
    ):
        with pytest.raises(grpc.RpcError) as caught:
            call(metadata(TEAM_B, "team-a"))
        status = rpc_status.from_call(caught.value)
        assert status.code == grpc.StatusCode.PERMISSION_DENIED.value[0]
        assert status.message == (
            f"{NAMESPACE_METADATA}: this token is not bound to namespace 'team-a'; it may "
            "use: team-b. Name one of these (or none: the token's default), or use a token "
            "bound to that namespace")
        assert field_violations(status)[0][0] == NAMESPACE_METADATA
    bad = failure(server.stub.ComputeDueTime, zagreb_request(),
                  metadata=metadata(TEAM_B, "no spaces allowed"))
    assert bad.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]


def test_a_token_alone_on_its_line_keeps_full_access(server):
    plain = compute(server, LEGACY, key="legacy-1")
    named = compute(server, LEGACY, key="legacy-1", namespace="team-a")
    assert plain.record_id != named.record_id
    records = {r.record_id: r.namespace for r in listed(server, LEGACY)}
    assert (records[plain.record_id], records[named.record_id]) == ("", "team-a")
    assert {r.record_id for r in listed(server, LEGACY, namespace="")} >= {plain.record_id}
    assert server.stub.AnalyzeImpact(pb.AnalyzeImpactRequest(tzdata=True), timeout=10,
                                     metadata=metadata(LEGACY)).records_examined == len(records)
    # team-a sees the record the legacy token made in team-a, not the default namespace's
    assert named.record_id in {r.record_id for r in listed(server, TEAM_A)}
    assert plain.record_id not in {r.record_id for r in listed(server, TEAM_A)}


def test_typed_client_and_cli_carry_token_and_namespace(server):
    with DuetimeClient(server.address, token=TEAM_A) as team_a, \
            DuetimeClient(server.address, token=TEAM_B) as team_b, \
            DuetimeClient(server.address, token=BOTH, namespace="team-a") as both:
        due = team_a.compute_due_time(
            datetime.fromisoformat("2026-11-27T15:00:00+00:00"), "3bd",
            pb.Calendar(time_zone="Europe/Zagreb"), idempotency_key="client-1").recorded
        assert team_a.get_record(due.record_id).namespace == "team-a"
        with pytest.raises(NotFound) as caught:
            team_b.get_record(due.record_id)
        assert caught.value.reason == "RECORD_NOT_FOUND"
        assert due.record_id not in {r.record_id for r in team_b.list_records()}
        with pytest.raises(PermissionDenied) as denied:
            list(team_b.list_records(namespace="team-a"))
        assert denied.value.reason == "NAMESPACE_NOT_PERMITTED"
        assert due.record_id in {r.record_id for r in both.list_records()}
    env = {**os.environ, "DUETIME_TOKEN": TEAM_B}
    cli = subprocess.run([sys.executable, "-m", "duetime", "record", due.record_id,
                          "--server", server.address], capture_output=True, text=True,
                         timeout=60, env=env)
    assert cli.returncode != 0 and "NOT_FOUND" in cli.stderr
    export = subprocess.run([sys.executable, "-m", "duetime", "records", "export", "--server",
                             server.address, "--token", TEAM_B], capture_output=True,
                            text=True, timeout=60)
    assert export.returncode == 0, export.stderr
    exported = [json.loads(line) for line in export.stdout.splitlines()]
    assert exported and {r["namespace"] for r in exported} == {"team-b"}
    assert due.record_id not in export.stdout
    denied = subprocess.run([sys.executable, "-m", "duetime", "records", "export", "--server",
                             server.address, "--token", TEAM_B, "--namespace", "team-a"],
                            capture_output=True, text=True, timeout=60)
    assert denied.returncode != 0 and "PERMISSION_DENIED" in denied.stderr
    named = subprocess.run([sys.executable, "-m", "duetime", "due", "2026-11-27T16:00+01:00",
                            "3bd", "--tz", "Europe/Zagreb", "--server", server.address,
                            "--token", BOTH, "--namespace", "team-a", "--json"],
                           capture_output=True, text=True, timeout=60)
    assert named.returncode == 0, named.stderr
    record_id = json.loads(named.stdout)["recordId"]
    with DuetimeClient(server.address, token=TEAM_A) as team_a:
        assert team_a.get_record(record_id).namespace == "team-a"


# ---------------------------------------------------------------------------
# HTTP


def body_of(message) -> str:
    return json_format.MessageToJson(message)


def headers(token: str, namespace: str | None = None) -> dict[str, str]:
    return dict(metadata(token, namespace))


def test_http_tenants(server, http):
    made = http.post("/v1/dueTimes:compute", content=body_of(zagreb_request("http-1")),
                     headers={**headers(TEAM_A), "content-type": "application/json"})
    assert made.status_code == 200, made.text
    record_id = made.json()["recordId"]
    assert http.get(f"/v1/records/{record_id}", headers=headers(TEAM_A)).json()[
        "record"]["namespace"] == "team-a"
    theirs = http.get(f"/v1/records/{record_id}", headers=headers(TEAM_B))
    unknown_id = uuid.uuid4().hex
    unknown = http.get(f"/v1/records/{unknown_id}", headers=headers(TEAM_B))
    assert theirs.status_code == unknown.status_code == 404
    assert theirs.text.replace(record_id, "<id>") == unknown.text.replace(unknown_id, "<id>")
    assert theirs.json()["error"]["message"] == f"no record with id {record_id!r}"
    listing = http.get("/v1/records", headers=headers(TEAM_B)).json()
    assert record_id not in json.dumps(listing)
    assert {r["namespace"] for r in listing.get("records", [])} <= {"team-b"}
    denied = http.get("/v1/records", params={"namespace": "team-a"}, headers=headers(TEAM_B))
    assert denied.status_code == 403
    assert denied.json()["error"]["status"] == "PERMISSION_DENIED"
    assert denied.json()["error"]["message"].startswith(
        "namespace: this token is not bound to namespace 'team-a'; it may use: team-b.")
    impact = http.post("/v1/records:analyzeImpact", content='{"tzdata": true}',
                       headers={**headers(TEAM_B), "content-type": "application/json"})
    assert impact.status_code == 200 and record_id not in impact.text
    # the same key in team-b is its own
    again = http.post("/v1/dueTimes:compute", content=body_of(zagreb_request("http-1")),
                      headers={**headers(TEAM_B), "content-type": "application/json"})
    assert again.status_code == 200 and again.json()["recordId"] != record_id
    # the namespace header, within the token's namespaces
    named = http.post("/v1/dueTimes:compute", content=body_of(zagreb_request()),
                      headers={**headers(BOTH, "team-a"), "content-type": "application/json"})
    assert http.get(f"/v1/records/{named.json()['recordId']}", headers=headers(TEAM_A)).json()[
        "record"]["namespace"] == "team-a"
    outside = http.post("/v1/dueTimes:compute", content=body_of(zagreb_request()),
                        headers={**headers(TEAM_B, "team-a"), "content-type": "application/json"})
    assert outside.status_code == 403
    assert outside.json()["error"]["details"][0]["fieldViolations"][0]["field"] == \
        NAMESPACE_METADATA
    # scopes
    scoped = http.post("/v1/dueTimes:compute", content=body_of(zagreb_request()),
                       headers={**headers(READER), "content-type": "application/json"})
    assert scoped.status_code == 403
    assert scoped.json()["error"]["message"] == (
        "ComputeDueTime needs a token with scope 'compute'; this token's scopes are: read. "
        "Use a token whose scopes= include compute")
    assert http.get("/v1/records", headers=headers(COMPUTER)).status_code == 403
    assert http.get("/v1/calendars", headers=headers(ADMIN)).status_code == 403
    assert http.get("/v1/calendars", headers=headers(LEGACY)).status_code == 200


# ---------------------------------------------------------------------------
# reloading the token file


def test_reload_to_an_empty_file_revokes_and_a_malformed_one_keeps_the_tokens(tmp_path):
    path = tmp_path / "tokens"
    path.write_text(f"{TEAM_A} namespaces=team-a\n")
    metrics_port = free_port()
    server = start_with_http(tmp_path / "ledger.db", "--auth-tokens", str(path),
                             "--metrics-port", str(metrics_port))
    try:
        def code(token: str):
            try:
                compute(server, token)
            except grpc.RpcError as exc:
                return exc.code()
            return grpc.StatusCode.OK

        def reload_failed() -> str:
            text = httpx.get(f"http://127.0.0.1:{metrics_port}/metrics", timeout=10).text
            return next(line for line in text.splitlines()
                        if line.startswith("duetime_token_reload_failed "))

        assert code(TEAM_A) == grpc.StatusCode.OK
        # malformed: the previous tokens stay, the log names the line, the metric says so
        path.write_text(f"{TEAM_B} namespaces=team-b\n{TEAM_A} scopes=reed\n")
        os.kill(server.proc.pid, signal.SIGHUP)
        line = server.await_log("token reload refused")
        assert f"{path} line 2: scopes= 'reed' is not a scope" in line
        assert reload_failed() == "duetime_token_reload_failed 1.0"
        assert code(TEAM_A) == grpc.StatusCode.OK and code(TEAM_B) == \
            grpc.StatusCode.UNAUTHENTICATED
        # emptied: every token revoked
        path.write_text("# nobody for now\n")
        os.kill(server.proc.pid, signal.SIGHUP)
        server.await_log("every token is revoked")
        assert reload_failed() == "duetime_token_reload_failed 0.0"
        status = failure(server.stub.ComputeDueTime, zagreb_request(), metadata=metadata(TEAM_A))
        assert (status.code, error_info(status).reason) == (
            grpc.StatusCode.UNAUTHENTICATED.value[0], "TOKEN_INVALID")
        assert httpx.get(f"{server.http_url}/v1/records", headers=headers(TEAM_A),
                         timeout=10).status_code == 401
        # a token added again
        path.write_text(f"{TEAM_B} namespaces=team-b\n")
        os.kill(server.proc.pid, signal.SIGHUP)
        server.await_log(r"bearer tokens reloaded: 1 token\(s\)")
        assert code(TEAM_B) == grpc.StatusCode.OK and code(TEAM_A) == \
            grpc.StatusCode.UNAUTHENTICATED
        log = "".join(server.stderr)
        assert TEAM_A not in log and TEAM_B not in log
        assert server.terminate() == 0
    finally:
        server.kill()


# ---------------------------------------------------------------------------
# the token file's format


def test_token_lines():
    assert parse_token_line("  # a comment", 1) is None and parse_token_line("   ", 2) is None
    assert parse_token_line("tok", 3) == TokenEntry(token_digest("tok"), 3)
    entry = parse_token_line("tok namespaces=b,a scopes=read,impact default=a", 4)
    assert entry == TokenEntry(token_digest("tok"), 4, frozenset({"a", "b"}),
                               frozenset({"read", "impact"}), "a")
    assert parse_token_line("tok namespaces=team-a", 5).default == "team-a"
    assert parse_token_line("tok scopes=read", 6) == TokenEntry(
        token_digest("tok"), 6, None, frozenset({"read"}), "")
    assert parse_token_line("tok default=x.y", 7).default == "x.y"


@pytest.mark.parametrize("line, message", [
    ("secret-token namespace=team-a", "line 3 is not a bearer token followed by attributes: "
     "its word 2 is not namespaces=…, scopes=… or default=…"),
    ("secret-token team-a", "line 3 is not a bearer token followed by attributes: its word 2 "
     "is not namespaces=…, scopes=… or default=…"),
    ("secret-token scopes=read scopes=compute", "line 3 gives scopes= twice; give it once"),
    ("secret-token scopes=reed", "line 3: scopes= 'reed' is not a scope; the scopes are "
     "compute, read, impact, admin"),
    ("secret-token scopes=", "line 3: scopes= has an empty item; give scopes=A,B with no "
     "empty item"),
    ("secret-token namespaces=a,,b", "line 3: namespaces= has an empty item"),
    ("secret-token namespaces=team a", "line 3 is not a bearer token followed by attributes"),
    ("secret-token namespaces=team/a", "line 3: namespaces= 'team/a' is not a namespace: 1 to "
     "64 characters of A-Z a-z 0-9 . _ -"),
    ("secret-token namespaces=a,b", "line 3 binds 2 namespaces but names no default=: give "
     "default=NS, the namespace of its calls that name none"),
    ("secret-token namespaces=a,b default=c", "line 3: default=c is not one of its "
     "namespaces= (a,b); name one of them"),
    ("secret-token default=", "line 3: default= '' is not a namespace"),
    ("secr\u00e9t namespaces=a", "line 3 is not a bearer token (1-4096 characters"),
])
def test_malformed_token_lines_are_named_never_shown(tmp_path, line, message):
    path = tmp_path / "tokens"
    path.write_text(f"# callers\nfirst-token\n{line}\n")
    with pytest.raises(TokenError) as caught:
        load_tokens(path)
    assert caught.value.message.startswith(f"{path} ") or \
        caught.value.message.startswith(f"{path}:"), caught.value.message
    assert message in caught.value.message
    assert "secret" not in caught.value.message and "secr" not in caught.value.message
    assert caught.value.setting == "--auth-tokens"


def test_token_file_errors_at_start_name_the_line(tmp_path):
    path = tmp_path / "tokens"
    path.write_text("good-token\nsecret-token scopes=compute,everything\n")
    started = subprocess.run([sys.executable, "-m", "duetime", "serve", "--port", "0",
                              "--auth-tokens", str(path)], capture_output=True, text=True,
                             timeout=60)
    assert started.returncode == 2
    assert (f"--auth-tokens: {path} line 2: scopes= 'everything' is not a scope; the scopes "
            "are compute, read, impact, admin") in started.stderr
    assert "secret" not in started.stderr
    path.write_text("same-token\nsame-token scopes=read\n")
    with pytest.raises(TokenError) as caught:
        load_tokens(path)
    assert caught.value.message == (f"{path} line 2 repeats the token of line 1; give each "
                                    "token one line")
    path.write_text("# nobody\n")
    with pytest.raises(TokenError):
        load_tokens(path)  # at start a file without tokens is refused
    assert load_tokens(path, allow_empty=True) == ()


def test_token_set_and_callers(tmp_path):
    path = tmp_path / "tokens"
    path.write_text(TOKEN_FILE)
    tokens = TokenSet(path)
    assert len(tokens) == 7
    assert tokens.caller(LEGACY) is ANYONE
    assert tokens.caller(TEAM_B) == Caller(frozenset({"team-b"}),
                                           frozenset({"compute", "read", "impact"}), "team-b")
    assert tokens.caller("nobody") is None and tokens.caller(TEAM_A + "x") is None
    path.write_text("bad token line\n")
    with pytest.raises(TokenError):
        tokens.reload()
    assert tokens.reload_error == f"{path} line 1 is not a bearer token followed by " \
        "attributes: its word 2 is not namespaces=…, scopes=… or default=… (a line is a " \
        "bearer token (1-4096 characters of A-Z a-z 0-9 - . _ ~ + /, then = padding), " \
        "optionally followed by namespaces=NS[,NS...], scopes=SCOPE[,SCOPE...] and " \
        "default=NS, separated by spaces)"
    assert tokens.caller(TEAM_B) is not None
    path.write_text("")
    tokens.reload()
    assert len(tokens) == 0 and tokens.reload_error is None and tokens.caller(TEAM_B) is None
    caller = Caller(frozenset({"a", "b"}), frozenset({"read"}), "b")
    flt = RecordFilter(key_prefix="k")
    assert caller.listing(flt, "") == RecordFilter(key_prefix="k", namespace="b")
    assert caller.listing(flt, "a") == RecordFilter(key_prefix="k", namespace="a")
    with pytest.raises(NamespaceNotPermitted):
        caller.listing(RecordFilter(namespace=""), "")
    assert ANYONE.listing(flt, "a") is flt
    assert caller.reads("a") and not caller.reads("") and ANYONE.reads("anything")


def test_every_rpc_has_a_scope():
    methods = {f"/{service.full_name}/{method.name}"
               for service in pb.DESCRIPTOR.services_by_name.values()
               for method in service.methods}
    assert methods <= set(SCOPE_OF)
    assert {m.rsplit("/", 1)[-1] for m in methods if scope_of(m) == "read"} == {
        "GetRecord", "ListRecords"}
    assert {m for m in methods if scope_of(m) == "impact"} == {
        "/duetime.v1.DueTimeService/AnalyzeImpact"}
    assert scope_of("/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo") == "admin"
    assert scope_of("/some.Unknown/Method") == "admin"


# ---------------------------------------------------------------------------
# the playground


def test_the_playground_says_what_a_token_does_not_allow(browser, tmp_path):
    path = tmp_path / "tokens"
    path.write_text(TOKEN_FILE)
    guarded = start_with_http(tmp_path / "ledger.db", "--auth-tokens", str(path), timeout=30)
    try:
        context = browser.new_context()
        page = context.new_page()
        page.goto(f"{guarded.http_url}/")
        expect(page.locator("body")).to_have_attribute("data-ready", "true")
        field, said = page.get_by_test_id("api-token"), page.get_by_test_id("api-token-error")
        expect(said).to_have_text("this server needs an API token")
        field.fill(READER)
        field.blur()  # lists the bundles: ListCalendars needs compute
        expect(said).to_have_text(
            "the token does not allow this call: ListCalendars needs a token with scope "
            "'compute'; this token's scopes are: read. Use a token whose scopes= include "
            "compute")
        field.fill(TEAM_A)
        field.blur()
        expect(page.get_by_test_id("bundle").locator("option[value=hr-zagreb]")).to_have_count(1)
        enter_zagreb(page)
        playground_compute(page)
        expect(said).to_be_hidden()
        context.close()
        records = guarded.stub.ListRecords(pb.ListRecordsRequest(), timeout=10,
                                           metadata=metadata(TEAM_A)).records
        assert records and {r.namespace for r in records} == {"team-a"}
        assert list(guarded.stub.ListRecords(pb.ListRecordsRequest(), timeout=10,
                                             metadata=metadata(TEAM_B)).records) == []
        assert guarded.terminate() == 0, "".join(guarded.stderr)
    finally:
        guarded.kill()
