"""A ledger that loses nothing, wired end to end (real ``python -m duetime
serve`` processes on 127.0.0.1; PostgreSQL from tests/pg.py): idempotency
namespaces, ListRecords, ``records export``/``verify`` on both stores, impact
analysis before a calendar change, the same key raced over two servers on one
PostgreSQL, and health and UNAVAILABLE while the store cannot write.
(The SIGKILL crash test is tests/test_crash.py.)"""

from __future__ import annotations

import json
import resource
import signal
import sqlite3
import threading
import time
from datetime import datetime, timezone
from pathlib import Path

import grpc
import pytest
from duetime.api.convert import record_of
from duetime.catalog import Catalog
from duetime.client import DuetimeClient
from duetime.compose import build_app
from duetime.impact import analyze as analyze_impact
from duetime.ledger import LedgerRow, MemoryLedger
from duetime.tzdb import tzdata_version
from duetime.v1 import duetime_pb2 as pb
from grpc_health.v1 import health_pb2, health_pb2_grpc
from pg import admin_sql, pg_database, pg_dsn, scratch_server  # noqa: F401  (fixtures)
from server_process import (  # noqa: F401 - fixtures
    CALENDARS,
    ServerProcess,
    server_fixture,
    start_server_fixture,
    zagreb_request,
)
from test_cli_queries import run
from test_e2e import failure
from test_e2e_queries import ts
from test_e2e_bundles import V1, add_company_day, copy_calendars

INVALID = grpc.StatusCode.INVALID_ARGUMENT
UNAVAILABLE = grpc.StatusCode.UNAVAILABLE
SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING
NS = "x-duetime-namespace"


def in_namespace(name: str) -> tuple[tuple[str, str], ...]:
    return ((NS, name),)


def health(server: ServerProcess, service: str = "") -> int:
    return health_pb2_grpc.HealthStub(server.channel).Check(
        health_pb2.HealthCheckRequest(service=service), timeout=5).status


def await_health(server: ServerProcess, status: int, timeout: float = 10.0,
                 service: str = "") -> float:
    """Seconds until ``service``'s health is ``status`` (AssertionError after ``timeout``)."""
    began = time.monotonic()
    while time.monotonic() - began < timeout:
        if health(server, service) == status:
            return time.monotonic() - began
        time.sleep(0.05)
    raise AssertionError(f"health of {service!r} did not become {status} in {timeout} s; "
                         f"stderr: {''.join(server.stderr)[-2000:]}")


def record(server: ServerProcess, record_id: str) -> pb.Record:
    return server.stub.GetRecord(pb.GetRecordRequest(record_id=record_id), timeout=10).record


def listing(server: ServerProcess, **fields) -> list[pb.Record]:
    """Every record of a listing, page by page."""
    request, found = pb.ListRecordsRequest(**fields), []
    while True:
        page = server.stub.ListRecords(request, timeout=10)
        found += page.records
        if not page.next_page_token:
            return found
        request.page_token = page.next_page_token


def due_request(key: str, start: str = "2026-11-27T15:00:00Z", duration: str = "3bd",
                bundle: str = "", holidays=()) -> pb.ComputeDueTimeRequest:
    calendar = pb.Calendar(bundle=bundle, holidays=holidays) if bundle else zagreb_request().calendar
    return pb.ComputeDueTimeRequest(start=ts(start), duration=duration, calendar=calendar,
                                    idempotency_key=key)


# ---- namespaces ----------------------------------------------------------------------


def test_namespaces_scope_idempotency_keys(server):
    stub = server.stub
    team_a = stub.ComputeDueTime(zagreb_request("shared"), metadata=in_namespace("team-a"),
                                 timeout=10)
    team_b = stub.ComputeDueTime(zagreb_request("shared"), metadata=in_namespace("team-b"),
                                 timeout=10)
    default = stub.ComputeDueTime(zagreb_request("shared"), timeout=10)
    assert len({team_a.record_id, team_b.record_id, default.record_id}) == 3
    assert stub.ComputeDueTime(zagreb_request("shared"), metadata=in_namespace("team-a"),
                               timeout=10) == team_a
    other = zagreb_request("shared")
    other.duration = "4bd"
    code, bad, info = failure(lambda: stub.ComputeDueTime(
        other, metadata=in_namespace("team-a"), timeout=10))
    assert code == grpc.StatusCode.ALREADY_EXISTS
    assert [v.field for v in bad.field_violations] == ["idempotency_key"]
    assert dict(info.metadata) == {"idempotency_key": "shared", "namespace": "team-a"}
    assert stub.ComputeDueTime(other, metadata=in_namespace("team-c"), timeout=10).due_local == (
        "2026-12-03T16:00:00+01:00")
    assert [record(server, r.record_id).namespace for r in (team_a, team_b, default)] == [
        "team-a", "team-b", ""]


@pytest.mark.parametrize("metadata, problem", [
    ((("x-duetime-namespace", "team a"),), "'team a' is not a namespace: 1 to 64 characters"),
    ((("x-duetime-namespace", "t" * 65),), "'" + "t" * 65 + "' is not a namespace"),
    ((("x-duetime-namespace", "a"), ("x-duetime-namespace", "b")), "is given 2 times"),
])
def test_bad_namespace_is_invalid_argument(server, metadata, problem):
    code, bad, _ = failure(lambda: server.stub.ComputeDueTime(
        zagreb_request("k"), metadata=metadata, timeout=10))
    assert code == INVALID
    (violation,) = bad.field_violations
    assert violation.field == "metadata x-duetime-namespace"
    assert violation.description.startswith(problem), violation.description


def test_client_namespace_option(server):
    start = datetime(2026, 11, 27, 15, tzinfo=timezone.utc)
    with DuetimeClient(server.address, namespace="client-ns") as client:
        first = client.compute_due_time(start, "3bd", "hr-zagreb", idempotency_key="c-1")
        assert client.compute_due_time(start, "3bd", "hr-zagreb", idempotency_key="c-1") == first
        assert client.get_record(first.recorded.record_id).namespace == "client-ns"
    with DuetimeClient(server.address) as client:  # the default namespace: a new record
        other = client.compute_due_time(start, "3bd", "hr-zagreb", idempotency_key="c-1")
        assert other.recorded.record_id != first.recorded.record_id


# ---- ListRecords ---------------------------------------------------------------------


def test_list_records_pages_and_filters(start_server):
    server = start_server()
    made = []
    for i in range(25):
        key, meta = (f"a/{i}", in_namespace("team-a")) if i < 10 else (
            (f"b/{i}", ()) if i < 20 else ("", ()))
        made.append(server.stub.ComputeDueTime(due_request(key, duration=f"{1 + i}bh"),
                                               metadata=meta, timeout=10).record_id)
    pages, request = [], pb.ListRecordsRequest(page_size=10)
    while True:
        page = server.stub.ListRecords(request, timeout=10)
        pages.append([r.record_id for r in page.records])
        if not page.next_page_token:
            break
        request.page_token = page.next_page_token
    assert [len(p) for p in pages] == [10, 10, 5]
    assert sum(pages, []) == made  # received in this order, sequentially
    everything = listing(server)
    assert [r.record_id for r in everything] == made  # page_size 0: 100
    assert [r.record_id for r in listing(server, key_prefix="a/")] == made[:10]
    assert [r.record_id for r in listing(server, namespace="team-a")] == made[:10]
    assert [r.record_id for r in listing(server, namespace="")] == made[10:]
    middle = everything[12].receive_time
    assert [r.record_id for r in listing(server, start_time=middle)] == made[12:]
    assert [r.record_id for r in listing(server, end_time=middle)] == made[:12]
    assert {r.namespace for r in everything[:10]} == {"team-a"}
    first = server.stub.ListRecords(pb.ListRecordsRequest(page_size=5, key_prefix="b/"),
                                    timeout=10)
    for fields, field in [
        (dict(page_token="garbage"), "page_token"),
        (dict(page_token=first.next_page_token), "page_token"),  # issued for other filters
        (dict(page_size=-1), "page_size"),
        (dict(start_time=ts("2026-01-02T00:00:00Z"), end_time=ts("2026-01-01T00:00:00Z")),
         "end_time"),
        (dict(namespace="bad namespace"), "namespace"),
    ]:
        code, bad, _ = failure(lambda: server.stub.ListRecords(
            pb.ListRecordsRequest(**fields), timeout=10))
        assert (code, [v.field for v in bad.field_violations]) == (INVALID, [field])
    assert len(listing(server)) == 25  # listing records nothing


# ---- records export / verify, both stores -------------------------------------------


@pytest.fixture(params=["sqlite", "postgres"])
def store(request, tmp_path):
    """(name, --db value, run one SQL statement in the store)."""
    if request.param == "sqlite":
        path = str(tmp_path / "ledger.db")

        def sql(statement, params=()):
            with sqlite3.connect(path) as conn:
                return conn.execute(statement, params).fetchall()
        return "sqlite", path, sql
    dsn = request.getfixturevalue("pg_dsn")
    return "postgres", dsn, lambda statement, params=(): admin_sql(
        statement.replace("?", "%s"), params, dsn=dsn)


def test_export_and_verify_on_both_stores(store, capsys, monkeypatch):
    name, db, sql = store
    server = ServerProcess(db)
    try:
        ids = [server.stub.ComputeDueTime(due_request(f"e/{i}", duration=f"{i + 1}bd"),
                                          metadata=in_namespace("ops") if i % 2 else (),
                                          timeout=10).record_id for i in range(6)]
        code, local, _ = run(capsys, "records", "export", "--db", db)
        assert code == 0
        code, remote, _ = run(capsys, "records", "export", "--server", server.address)
        assert code == 0 and remote == local
        exported = [json.loads(line) for line in local]
        assert [r["recordId"] for r in exported] == ids
        assert exported[1]["namespace"] == "ops" and "namespace" not in exported[0]
        assert exported[0]["request"]["@type"].endswith("duetime.v1.ComputeDueTimeRequest")
        assert exported[0]["response"]["dueLocal"] == "2026-11-30T16:00:00+01:00"
        code, ops, _ = run(capsys, "records", "export", "--db", db, "--namespace", "ops")
        assert [json.loads(line)["recordId"] for line in ops] == ids[1::2]
        since = exported[3]["receiveTime"]
        code, later, _ = run(capsys, "records", "export", "--server", server.address,
                             "--since", since)
        assert [json.loads(line)["recordId"] for line in later] == ids[3:]
    finally:
        assert server.terminate() == 0
    monkeypatch.setenv("DUETIME_DB", db)  # the default store of every records command
    code, out, err = run(capsys, "records", "verify")
    assert (code, err) == (0, "")
    assert out[0].startswith("ok: 6 record(s) in ") and out[0].endswith(
        "; every row parses and its hashes match")
    sql("UPDATE records SET calendar_version = 'cal-0000000000000000' WHERE record_id = ?",
        (ids[2],))
    code, out, err = run(capsys, "records", "verify", "--db", db)
    assert code == 1
    assert out == [f"problem: record '{ids[2]}': content_sha256 does not match its content"]
    assert err.startswith("error: records verify failed: 1 problem(s) in ")


# ---- impact analysis -----------------------------------------------------------------


def test_impact_lists_exactly_the_answers_a_new_version_moves(start_server, tmp_path, capsys):
    root = copy_calendars(tmp_path / "calendars")
    server = start_server(root)
    stub = server.stub
    # Friday 2026-11-27 16:00 + 3bd: Wednesday 2026-12-02, Thursday once Monday 30th closes
    moved = stub.ComputeDueTime(due_request("moved", bundle="hr-zagreb"), timeout=10)
    extra = stub.ComputeDueTime(due_request("extra", bundle="hr-zagreb", holidays=[
        pb.Holiday(date="2026-12-24", name="Christmas Eve")]), timeout=10)
    kept = stub.ComputeDueTime(due_request("kept", "2027-02-01T09:00:00Z", "1bd",
                                           bundle="hr-zagreb"), timeout=10)
    plan = pb.ComputeScheduleRequest(entered_time=ts("2026-11-26T09:00:00Z"),
                                     calendar=pb.Calendar(bundle="hr-zagreb"), deadlines=[
                                         pb.DeadlineSpec(name="remind", duration="1bd"),
                                         pb.DeadlineSpec(name="final", duration="5bd")])
    scheduled = stub.ComputeSchedule(plan, timeout=10)
    clock = stub.StartClock(pb.StartClockRequest(target="8bh", start_time=ts(
        "2026-11-27T10:00:00Z"), calendar=pb.Calendar(bundle="hr-zagreb")), timeout=10)
    stub.ComputeDueTime(zagreb_request(), timeout=10)  # an inline calendar: not concerned
    assert extra.calendar_version.startswith(f"hr-zagreb@{V1}+cal-")
    v2 = add_company_day(root)  # + holiday 2026-11-30 Company day
    server.proc.send_signal(signal.SIGHUP)
    server.await_log(rf"calendars reloaded from .*hr-zagreb@{v2}")
    before = listing(server)

    code, out, err = run(capsys, "records", "impact", "--calendar", f"hr-zagreb@{v2}",
                         "--server", server.address, "--json")
    assert (code, err) == (0, "")
    reply = json.loads("\n".join(out))
    why = [f"holiday 2026-11-30 Company day added in hr-zagreb@{v2}"]
    assert reply["calendarVersion"] == f"hr-zagreb@{v2}"
    assert (reply["recordsExamined"], reply["recordsReplayed"]) == ("6", "4")
    changes = {c["recordId"]: c for c in reply["changes"]}
    assert list(changes) == [moved.record_id, extra.record_id, scheduled.record_id]
    assert changes[moved.record_id]["dueTimes"] == [{
        "name": "due", "oldDueTime": "2026-12-02T15:00:00Z", "newDueTime": "2026-12-03T15:00:00Z",
        "oldDueLocal": "2026-12-02T16:00:00+01:00", "newDueLocal": "2026-12-03T16:00:00+01:00",
        "reasons": why}]
    assert changes[extra.record_id]["newCalendarVersion"].startswith(f"hr-zagreb@{v2}+cal-")
    assert [(d["name"], d["oldDueLocal"], d["newDueLocal"], d["reasons"])
            for d in changes[scheduled.record_id]["dueTimes"]] == [
        ("final", "2026-12-03T10:00:00+01:00", "2026-12-04T10:00:00+01:00", why)]
    assert kept.record_id not in changes
    assert reply["notReplayed"] == [{
        "recordId": clock.record_id, "method": "/duetime.v1.DueTimeService/StartClock",
        "reason": "not replayed (StartClock): a clock keeps the calendar version pinned in "
                  "its state"}]

    code, table, _ = run(capsys, "records", "impact", "--calendar", f"hr-zagreb@{v2}",
                         "--db", str(server.db_path), "--calendars", str(root))
    assert code == 0
    assert table[1].split() == [moved.record_id, "ComputeDueTime", "due",
                                "2026-12-02T16:00:00+01:00", "2026-12-03T16:00:00+01:00",
                                *why[0].split()]
    assert table[-1] == ("6 record(s) examined, 4 replayed under hr-zagreb@" + v2 + ": 3 would "
                         "change, 1 not replayed; no record was changed")
    truncated = stub.AnalyzeImpact(pb.AnalyzeImpactRequest(calendar="hr-zagreb", limit=1),
                                   timeout=10)
    assert truncated.truncated and len(truncated.changes) == 1
    for request, field in [(pb.AnalyzeImpactRequest(), "calendar"),
                           (pb.AnalyzeImpactRequest(calendar="hr-zagreb@nope"), "calendar"),
                           (pb.AnalyzeImpactRequest(calendar="hr-zagreb", limit=-1), "limit")]:
        code, bad, _ = failure(lambda: stub.AnalyzeImpact(request, timeout=10))
        assert (code, [v.field for v in bad.field_violations]) == (INVALID, [field])
    assert listing(server) == before  # no record changed, none added


def test_impact_of_a_tz_database_change():
    """A record computed with another tzdata is replayed in its own calendar
    version; the one computed with this tzdata is not."""
    ledger = MemoryLedger()
    app = build_app(ledger, Catalog.load(CALENDARS))
    received = datetime(2026, 11, 27, 15, tzinfo=timezone.utc)
    current = app.compute_due_time(due_request("tz-1", bundle="hr-zagreb"), received)
    row = ledger.get(current.record_id)
    old = pb.ComputeDueTimeResponse.FromString(row.response)
    old.due.FromJsonString("2026-12-02T14:00:00Z")  # as an older zone rule would have said
    old.due_local, old.tzdata_version = "2026-12-02T16:00:00+02:00", "2020a"
    ledger.put(LedgerRow.create(
        record_id="0" * 32, method=row.method, receive_time_us=row.receive_time_us + 1,
        idempotency_key="tz-old", request=row.request, response=old.SerializeToString(),
        calendar_version=row.calendar_version, rules_version=row.rules_version,
        tzdata_version="2020a"))
    reply = analyze_impact(pb.AnalyzeImpactRequest(tzdata=True), app)
    assert (reply.records_examined, reply.records_replayed) == (2, 1)
    (change,) = reply.changes
    assert (change.record_id, change.old_tzdata_version, change.new_calendar_version) == (
        "0" * 32, "2020a", f"hr-zagreb@{V1}")
    assert [(d.old_due_local, d.new_due_local, list(d.reasons)) for d in change.due_times] == [
        ("2026-12-02T16:00:00+02:00", "2026-12-02T16:00:00+01:00",
         [f"tz database 2020a → {tzdata_version()}"])]
    assert record_of(ledger.get("0" * 32)).tzdata_version == "2020a"  # unchanged


# ---- two servers, one PostgreSQL: the same key raced ---------------------------------


def test_same_key_raced_over_two_servers_on_one_postgres(pg_database):
    servers = [ServerProcess(pg_database), ServerProcess(pg_database)]
    try:
        request = zagreb_request("race/1")
        barrier, answers, errors = threading.Barrier(50), [], []

        def call(i: int) -> None:
            rpc = servers[i % 2].channel.unary_unary("/duetime.v1.DueTimeService/ComputeDueTime")
            barrier.wait(timeout=30)
            try:
                answers.append(rpc(request.SerializeToString(), timeout=30))
            except grpc.RpcError as exc:
                errors.append(exc.code())

        callers = [threading.Thread(target=call, args=(i,)) for i in range(50)]
        for caller in callers:
            caller.start()
        for caller in callers:
            caller.join(timeout=60)
        assert errors == []
        assert len(answers) == 50 and len(set(answers)) == 1  # fifty identical answers, bytes
        count = admin_sql("SELECT count(*) FROM records WHERE idempotency_key = %s",
                          ("race/1",), dsn=pg_database)
        assert count == [(1,)]
        answer = pb.ComputeDueTimeResponse.FromString(answers[0])
        assert [r.record_id for r in listing(servers[1])] == [answer.record_id]
    finally:
        for server in servers:
            server.kill()


# ---- the store cannot write: UNAVAILABLE, NOT_SERVING, recovery ----------------------


class Load:
    """Calls with unique keys from a few threads until stopped; keeps every
    answer (bytes) and every error code."""

    def __init__(self, server: ServerProcess, threads: int = 3):
        self.server, self.answers, self.codes = server, {}, []
        self.stopped, self._lock, self._n = threading.Event(), threading.Lock(), 0
        self.workers = [threading.Thread(target=self._work) for _ in range(threads)]
        for worker in self.workers:
            worker.start()

    def _work(self) -> None:
        rpc = self.server.channel.unary_unary("/duetime.v1.DueTimeService/ComputeDueTime")
        while not self.stopped.is_set():
            with self._lock:
                self._n += 1
                n = self._n
            request = due_request(f"load/{n}", duration=f"{n % 50 + 1}bh").SerializeToString()
            try:
                answer = rpc(request, timeout=10)
            except grpc.RpcError as exc:
                self.codes.append(exc.code())
                time.sleep(0.02)
                continue
            with self._lock:
                self.answers[request] = answer

    def stop(self) -> None:
        self.stopped.set()
        for worker in self.workers:
            worker.join(timeout=30)

    def assert_all_recorded(self) -> None:
        for request, answer in self.answers.items():
            response = pb.ComputeDueTimeResponse.FromString(answer)
            stored = record(self.server, response.record_id)
            assert (stored.request.value, stored.response.value) == (request, answer)


def test_postgres_down_under_load(tmp_path):
    pg = scratch_server()
    server = None
    try:
        server = ServerProcess(pg.dsn)
        load = Load(server)
        time.sleep(0.5)
        answered_before = len(load.answers)
        assert answered_before > 0
        pg.stop()  # immediate: connections drop, new ones are refused
        went_down = await_health(server, NOT_SERVING, timeout=5)
        assert health(server, "duetime.v1.DueTimeService") == NOT_SERVING
        assert health(server, "duetime.v1.CalendarService") == SERVING  # needs no ledger
        failed_before = len(load.codes)
        time.sleep(1.5)
        assert len(load.codes) > failed_before  # calls kept failing …
        assert set(load.codes) == {UNAVAILABLE}  # … as UNAVAILABLE, nothing else
        code, _, info = failure(lambda: server.stub.ComputeDueTime(zagreb_request("down"),
                                                                   timeout=10))
        assert (code, info.reason) == (UNAVAILABLE, "LEDGER_UNAVAILABLE")
        pg.start()
        came_back = await_health(server, SERVING, timeout=10)
        answered_after_start = len(load.answers)
        time.sleep(0.5)
        load.stop()
        assert len(load.answers) > answered_after_start  # calls succeed again
        load.assert_all_recorded()  # none was answered without its record
        assert server.stub.ComputeDueTime(zagreb_request("down"), timeout=10).record_id
        print(f"PostgreSQL down: NOT_SERVING after {went_down:.2f} s, {len(load.codes)} calls "
              f"UNAVAILABLE; back: SERVING after {came_back:.2f} s; {len(load.answers)} answers, "
              "all recorded")
    finally:
        if server is not None:
            server.kill()
        pg.destroy()


def test_sqlite_that_cannot_write_is_unavailable_and_not_serving(start_server):
    """RLIMIT_FSIZE = 0 makes every file write fail (EFBIG), as a full disk
    would (as root too, unlike a read-only file)."""
    server = start_server()
    assert server.stub.ComputeDueTime(zagreb_request("w/1"), timeout=10).record_id
    limits = resource.prlimit(server.proc.pid, resource.RLIMIT_FSIZE)
    resource.prlimit(server.proc.pid, resource.RLIMIT_FSIZE, (0, limits[1]))
    try:
        code, _, info = failure(lambda: server.stub.ComputeDueTime(zagreb_request("w/2"),
                                                                   timeout=10))
        assert (code, info.reason) == (UNAVAILABLE, "LEDGER_UNAVAILABLE")
        assert health(server) == NOT_SERVING  # at once, from the failed call
        time.sleep(1.5)
        assert health(server) == NOT_SERVING  # the probes fail too
    finally:
        resource.prlimit(server.proc.pid, resource.RLIMIT_FSIZE, limits)
    assert await_health(server, SERVING, timeout=5) < 5
    answer = server.stub.ComputeDueTime(zagreb_request("w/2"), timeout=10)
    assert record(server, answer.record_id).idempotency_key == "w/2"
    assert [r.idempotency_key for r in listing(server)] == ["w/1", "w/2"]


def test_records_commands_refuse_a_missing_sqlite_file(tmp_path, capsys):
    missing = tmp_path / "typo.db"
    for command in (["verify"], ["export"], ["impact", "--calendar", "hr-zagreb"]):
        code, out, err = run(capsys, "records", *command, "--db", str(missing))
        assert (code, out) == (1, [])
        assert err.startswith(f"error: no ledger at {missing} "), err
    assert not missing.exists()  # not created empty by a read


def test_records_commands_refuse_an_empty_file_and_leave_it_empty(tmp_path, capsys):
    empty = tmp_path / "empty.db"
    empty.write_bytes(b"")
    for command in (["verify"], ["export"], ["replay"], ["impact", "--calendar", "hr-zagreb"]):
        code, out, err = run(capsys, "records", *command, "--db", str(empty))
        assert (code, out, err) == (1, [], f"error: {empty} is an empty file, not a ledger\n"), \
            command
    assert empty.read_bytes() == b""  # no schema written by a read


def corrupt_copy(tmp_path) -> tuple[str, str]:
    """A copy of the golden ledger whose 8th ComputeDueTime response has its
    first byte overwritten (no longer a message): (path, that record's id)."""
    path = tmp_path / "corrupt.sqlite"
    path.write_bytes((Path(__file__).parent / "golden" / "ledger.sqlite").read_bytes())
    with sqlite3.connect(path) as db:
        record_id, response = db.execute(
            "SELECT record_id, response FROM records WHERE method LIKE '%/ComputeDueTime' "
            "ORDER BY record_id LIMIT 1 OFFSET 7").fetchone()
        db.execute("UPDATE records SET response = ? WHERE record_id = ?",
                   (b"\xff" + response[1:], record_id))
    return str(path), record_id


def test_export_names_a_record_that_does_not_parse_and_goes_on(tmp_path, capsys):
    path, record_id = corrupt_copy(tmp_path)
    code, out, err = run(capsys, "records", "export", "--db", path)
    assert code == 1
    assert len(out) == 792 and record_id not in "".join(out)
    assert err.splitlines() == [
        f"error: record {record_id}: its stored request or response does not parse (Error "
        "parsing message with type 'duetime.v1.ComputeDueTimeResponse': Wire format was "
        "corrupt); duetime records verify checks the ledger",
        "exported 792 record(s); 1 could not be read (see above)"]


def test_http_answers_a_record_that_does_not_parse_with_a_json_internal_error(tmp_path, caplog):
    import anyio
    import httpx
    from duetime.api import http
    from duetime.ledger import SqliteLedger

    path, record_id = corrupt_copy(tmp_path)
    app = build_app(SqliteLedger(path))

    async def get(url: str) -> httpx.Response:
        transport = httpx.ASGITransport(app=http.create_app(app, log_calls=False))
        async with httpx.AsyncClient(transport=transport, base_url="http://duetime.test") as c:
            return await c.get(url)

    try:
        for url in (f"/v1/records/{record_id}", "/v1/records?pageSize=1000"):
            response = anyio.run(get, url)
            assert (response.status_code, response.json()["error"]["status"],
                    response.json()["error"]["message"]) == (500, "INTERNAL", "internal error")
    finally:
        app.close()
    assert [r.getMessage() for r in caplog.records if r.levelname == "ERROR"] == [
        "internal error", "internal error"]  # logged with the DecodeError's traceback
