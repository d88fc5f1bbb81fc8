"""Replaying the ledger: the golden ledger gives every answer back byte for
byte; a changed response, another tz database, a missing bundle version and
another rules version are each reported as such (``duetime records replay``)."""

from __future__ import annotations

import re
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from duetime import cli
from duetime.api.convert import METHODS
from duetime.compose import build_app
from duetime.bundles import BundleStore
from duetime.catalog import Catalog
from duetime.core import RULES_VERSION
from duetime.ledger import COLUMNS, SqliteLedger, content_digest, open_ledger
from duetime.replay import (
    DIFFERS,
    NOT_REPLAYABLE,
    SAME,
    FieldChange,
    Summary,
    differences,
    recompute,
    replay,
    replay_one,
)
from duetime.tzdb import tzdata_version
from duetime.v1 import duetime_pb2 as pb
from pg import pg_dsn  # noqa: F401 - the fixture
from server_process import CALENDARS, ServerProcess
from test_cli_queries import run
from test_e2e_bundles import add_company_day, copy_calendars

GOLDEN = Path(__file__).resolve().parent / "golden" / "ledger.sqlite"
NEWER_THAN_GOLDEN = {"ListOpenPeriods", "CountBusinessDays"}
"""Recorded methods added after the golden ledger was written (never
regenerated): tests/test_calendar_queries.py replays records of theirs."""
GOLDEN_COUNTS = {"ComputeDueTime": 656, "ComputeBusinessTime": 29, "GetOpenStatus": 30,
                 "ComputeSchedule": 21, "StartClock": 6, "ApplyClockEvent": 21, "EvaluateSla": 30}
GOLDEN_TOTAL = 793
ALL_SAME = f"replayed {GOLDEN_TOTAL} records: {GOLDEN_TOTAL} same, 0 differ, 0 not replayable"


@pytest.fixture
def golden(tmp_path) -> Path:
    """A copy of the golden ledger (the committed file is never opened for writing)."""
    copy = tmp_path / "ledger.sqlite"
    shutil.copyfile(GOLDEN, copy)
    return copy


def rows_of(path: Path) -> list:
    ledger = SqliteLedger(path)
    try:
        return list(ledger.iter_records())
    finally:
        ledger.close()


def summary_of(path: Path, catalog: Catalog) -> tuple[Summary, list]:
    summary, shown = Summary(), []
    for result in replay(rows_of(path), catalog):
        summary.add(result)
        if result.outcome != SAME:
            shown.append(result)
    return summary, shown


def sql(path: Path, statement: str, params=()) -> list:
    with sqlite3.connect(path) as db:
        found = db.execute(statement, params).fetchall()
    db.close()
    return found


def replay_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "duetime", "records", "replay", *args],
                          capture_output=True, text=True, timeout=120)


def first_explained_due_time(path: Path):
    """The first ComputeDueTime row (listing order) with two explanation steps or more."""
    for row in rows_of(path):
        if row.method.endswith("/ComputeDueTime"):
            response = pb.ComputeDueTimeResponse.FromString(row.response)
            if len(response.explanation) >= 2:
                return row, response
    raise AssertionError("no explained ComputeDueTime record in the golden ledger")


def tamper(path: Path, row, response: bytes, fix_digest: bool) -> None:
    """Store ``response`` as ``row``'s, with its content digest made to match or not."""
    sql(path, "UPDATE records SET response = ? WHERE record_id = ?", (response, row.record_id))
    if fix_digest:
        values = [response if name == "response" else getattr(row, name)
                  for name in COLUMNS[:10]]
        sql(path, "UPDATE records SET content_sha256 = ? WHERE record_id = ?",
            (content_digest(values, row.namespace), row.record_id))


# --- the golden ledger --------------------------------------------------------------


def test_golden_ledger_replays_with_no_difference(golden):
    summary, shown = summary_of(golden, Catalog.load(CALENDARS))
    assert shown == []
    assert summary.line() == ALL_SAME
    assert (summary.replayed, summary.same, summary.other_rules) == (GOLDEN_TOTAL,) * 2 + (0,)
    assert summary.by_method == GOLDEN_COUNTS
    # every recorded RPC, but those added after the golden ledger was written
    assert {m.rsplit("/", 1)[-1] for m in METHODS} - NEWER_THAN_GOLDEN == set(GOLDEN_COUNTS)
    assert sql(golden, "SELECT COUNT(*) FROM records") == [(GOLDEN_TOTAL,)]
    assert GOLDEN.stat().st_size < 2 << 20


def test_golden_ledger_is_the_tz_database_and_rules_of_this_duetime(golden):
    versions = sql(golden, "SELECT DISTINCT tzdata_version, rules_version FROM records")
    assert versions == [(tzdata_version(), RULES_VERSION)], (
        "the golden ledger was made with another tz database or rules version than this "
        "duetime's: its records cannot all be replayed here (never regenerate it to pass)")


def test_newer_bundle_versions_change_no_replayed_answer(golden, tmp_path):
    """A bundle is resolved at the version the record names, also when the
    request named it bare and the catalog now has a newer version."""
    calendars = copy_calendars(tmp_path / "calendars")
    add_company_day(calendars)  # a newer hr-zagreb version
    newer = Catalog.load(calendars)
    assert len(newer.bundles.versions("hr-zagreb")) == 2
    summary, shown = summary_of(golden, newer)
    assert (summary.line(), shown) == (ALL_SAME, [])
    # computed today under the newest version, some of them would differ
    bare = [row for row in rows_of(golden)
            if row.method.endswith("/ComputeDueTime")
            and pb.ComputeDueTimeRequest.FromString(row.request).calendar.bundle == "hr-zagreb"]
    assert bare
    changed = 0
    for row in bare:
        request = METHODS[row.method].request_type.FromString(row.request)
        response = build_app(None, newer).answer(METHODS[row.method], request)
        response.record_id = row.record_id
        changed += response.SerializeToString(deterministic=True) != recompute(row, newer)
    assert changed == len(bare)  # at least the calendar_version moves


def test_a_bundle_version_missing_from_the_catalog_is_not_replayable(golden):
    catalog = Catalog.load(CALENDARS)
    bundles = BundleStore({name: catalog.bundles.versions(name)
                           for name in catalog.bundles.names() if name != "hr-zagreb"})
    version = catalog.bundles.resolve("hr-zagreb").version
    summary, shown = summary_of(golden, Catalog(bundles, catalog.policies))
    named = [row.record_id for row in rows_of(golden)
             if f"hr-zagreb@{version}" in row.calendar_version]
    assert len(named) == summary.not_replayable > 0
    assert summary.differ == 0 and summary.same == GOLDEN_TOTAL - len(named)
    assert [r.record_id for r in shown] == named
    assert {r.line().split(" ", 2)[2] for r in shown} == {
        f"not replayable: calendar hr-zagreb@{version} is not in the catalog (versions of "
        "hr-zagreb loaded: none)"}


# --- differences and what cannot be replayed ------------------------------------------


@pytest.mark.parametrize("fix_digest", [True, False], ids=["digest-fixed", "digest-stale"])
def test_a_changed_response_is_reported_with_its_fields(golden, fix_digest, capsys):
    row, response = first_explained_due_time(golden)
    recorded_due, recorded_text = response.due.ToJsonString(), response.explanation[1].text
    response.due.seconds += 3600
    response.explanation[1].text = "tampered"
    tamper(golden, row, response.SerializeToString(deterministic=True), fix_digest)
    # verify checks the digest only: it sees the change only when it was left stale
    code, out, _ = run(capsys, "records", "verify", "--db", str(golden))
    assert code == (0 if fix_digest else 1)
    if not fix_digest:
        assert out == [f"problem: record '{row.record_id}': content_sha256 does not match its "
                       "content"]

    summary, shown = summary_of(golden, Catalog.load(CALENDARS))
    assert summary.line() == (f"replayed {GOLDEN_TOTAL} records: {GOLDEN_TOTAL - 1} same, "
                              "1 differ, 0 not replayable")
    (result,) = shown
    assert (result.record_id, result.outcome, result.rpc) == (row.record_id, DIFFERS,
                                                              "ComputeDueTime")
    tampered_due = response.due.ToJsonString()
    shown_text = repr(recorded_text)
    if len(shown_text) > 80:  # values are clipped to 80 characters
        shown_text = shown_text[:79] + "…"
    assert result.changes == (FieldChange("due", tampered_due, recorded_due),
                              FieldChange("explanation[1].text", "'tampered'", shown_text))
    line = (f"{row.record_id} ComputeDueTime differs: due: {tampered_due} → {recorded_due}; "
            f"explanation[1].text: 'tampered' → {shown_text}")
    assert result.line() == line

    done = replay_cli("--db", str(golden), "--calendars", str(CALENDARS))
    assert (done.returncode, done.stdout.splitlines()) == (1, [
        line, f"replayed {GOLDEN_TOTAL} records: {GOLDEN_TOTAL - 1} same, 1 differ, "
              "0 not replayable"])


def test_another_tz_database_is_not_replayable(golden):
    row = rows_of(golden)[5]
    sql(golden, "UPDATE records SET tzdata_version = '2019a' WHERE record_id = ?",
        (row.record_id,))
    summary, shown = summary_of(golden, Catalog.load(CALENDARS))
    assert summary.line() == (f"replayed {GOLDEN_TOTAL} records: {GOLDEN_TOTAL - 1} same, "
                              "0 differ, 1 not replayable")
    (result,) = shown
    assert result.outcome == NOT_REPLAYABLE
    line = (f"{row.record_id} {row.method.rsplit('/', 1)[-1]} not replayable: recorded with "
            f"tzdata 2019a; this duetime has {tzdata_version()}")
    assert result.line() == line
    done = replay_cli("--db", str(golden), "--calendars", str(CALENDARS))
    assert (done.returncode, done.stdout.splitlines()) == (1, [
        line, f"replayed {GOLDEN_TOTAL} records: {GOLDEN_TOTAL - 1} same, 0 differ, "
              "1 not replayable"])


def test_another_rules_version_is_compared_and_said(golden):
    row = rows_of(golden)[0]
    sql(golden, "UPDATE records SET rules_version = '2025.9' WHERE record_id = ?",
        (row.record_id,))
    (changed,) = [r for r in rows_of(golden) if r.record_id == row.record_id]
    result = replay_one(changed, Catalog.load(CALENDARS))
    assert (result.outcome, result.other_rules) == (SAME, "2025.9")  # the response says 2026.1
    assert result.line().endswith(f"same (recorded under rules 2025.9; this duetime has "
                                  f"{RULES_VERSION})")
    done = replay_cli("--db", str(golden), "--calendars", str(CALENDARS))
    assert (done.returncode, done.stdout.splitlines()) == (0, [
        "note: 1 record(s) were made under another rules version than this duetime's; they "
        "were compared all the same", ALL_SAME])


def test_an_unknown_method_or_policy_version_is_not_replayable(golden):
    catalog = Catalog.load(CALENDARS)
    rows = rows_of(golden)
    unknown = type(rows[0])(**{**vars(rows[0]), "method": "/duetime.v1.DueTimeService/Nope"})
    assert replay_one(unknown, catalog).line() == (
        f"{rows[0].record_id} Nope not replayable: this duetime does not know the method "
        "/duetime.v1.DueTimeService/Nope")
    sla = next(row for row in rows if row.method.endswith("/EvaluateSla"))
    response = pb.EvaluateSlaResponse.FromString(sla.response)
    loaded = response.policy_version.split("@")[1]
    response.policy_version = "support-contract@000000000000"
    other = type(sla)(**{**vars(sla), "response": response.SerializeToString(deterministic=True)})
    assert replay_one(other, catalog).line() == (
        f"{sla.record_id} EvaluateSla not replayable: policy support-contract@000000000000 is "
        f"not in the catalog (versions of support-contract loaded: {loaded})")


def without_progress(stderr: str) -> list[str]:
    """stderr's lines but the progress lines a slow replay writes every 2 s."""
    return [line for line in stderr.splitlines()
            if not re.fullmatch(r"replay: \d+ records so far", line)]


def test_a_stored_row_of_an_unknown_method_is_reported_by_the_command(golden):
    row = rows_of(golden)[0]
    sql(golden, "UPDATE records SET method = '/duetime.v1.DueTimeService/Nope' "
                "WHERE record_id = ?", (row.record_id,))
    done = replay_cli("--db", str(golden), "--calendars", str(CALENDARS))
    assert (done.returncode, done.stdout.splitlines(), without_progress(done.stderr)) == (1, [
        f"{row.record_id} Nope not replayable: this duetime does not know the method "
        "/duetime.v1.DueTimeService/Nope",
        f"replayed {GOLDEN_TOTAL} records: {GOLDEN_TOTAL - 1} same, 0 differ, "
        "1 not replayable"], [])


def test_a_request_refused_now_is_a_difference(golden):
    row = rows_of(golden)[0]
    assert row.calendar_version.startswith("cal-")  # an inline calendar
    request = METHODS[row.method].request_type.FromString(row.request)
    request.duration = "1.5bd"
    changed = type(row)(**{**vars(row), "request": request.SerializeToString(deterministic=True)})
    result = replay_one(changed, Catalog.load(CALENDARS))
    assert result.outcome == DIFFERS
    (change,) = result.changes
    assert (change.path, change.old) == ("(answer)", "a response")
    assert change.new.startswith("INVALID_ARGUMENT: duration: ")


def test_differences_name_repeated_and_optional_fields():
    method = "/duetime.v1.DueTimeService/GetOpenStatus"
    old = pb.GetOpenStatusResponse(open=True, warnings=["a", "b"],
                                   current_interval=pb.OpenInterval())
    new = pb.GetOpenStatusResponse(open=True, warnings=["a"], local_date="2026-12-01")
    assert differences(method, old.SerializeToString(), new.SerializeToString()) == [
        FieldChange("current_interval", "{}", "absent"),
        FieldChange("local_date", "''", "'2026-12-01'"),
        FieldChange("warnings[1]", "'b'", "absent"),
    ]
    long = pb.GetOpenStatusResponse(holiday_name="x" * 200)
    (change,) = differences(method, b"", long.SerializeToString())
    assert len(change.new) == 80 and change.new.endswith("…")


# --- the command --------------------------------------------------------------------


def test_replay_command_on_the_golden_ledger(golden):
    done = replay_cli("--db", str(golden), "--calendars", str(CALENDARS))
    assert (done.returncode, done.stdout.splitlines()) == (0, [ALL_SAME])
    done = replay_cli("--db", str(golden), "--calendars", str(CALENDARS),
                      "--namespace", "tenant-a")
    assert (done.returncode, done.stdout.splitlines()) == (
        0, ["replayed 20 records: 20 same, 0 differ, 0 not replayable"])


def test_replay_command_on_postgresql(golden, pg_dsn, capsys):  # noqa: F811 - the fixture
    ledger = open_ledger(pg_dsn)
    try:
        rows = rows_of(golden)
        assert ledger.put_many(rows) == rows
    finally:
        ledger.close()
    code, out, err = run(capsys, "records", "replay", "--db", pg_dsn,
                         "--calendars", str(CALENDARS))
    assert (code, out, without_progress(err)) == (0, [ALL_SAME], [])


def test_replay_command_shows_progress(golden, capsys, monkeypatch):
    monkeypatch.setattr(cli, "REPLAY_PROGRESS", 0.0)  # a line after every record
    code, out, err = run(capsys, "records", "replay", "--db", str(golden),
                         "--calendars", str(CALENDARS), "--key-prefix", "ticket-")
    assert (code, out) == (0, ["replayed 12 records: 12 same, 0 differ, 0 not replayable"])
    assert err.splitlines() == [f"replay: {n} records so far" for n in range(1, 13)]


def test_replay_command_with_server(golden):
    server = ServerProcess(golden)
    try:
        done = replay_cli("--server", server.address, "--calendars", str(CALENDARS))
        assert (done.returncode, done.stdout.splitlines()) == (0, [ALL_SAME])
        done = replay_cli("--server", server.address, "--calendars", str(CALENDARS),
                          "--namespace", "tenant-b", "--since", "2026-12-01T09:00:00Z")
        assert (done.returncode, done.stdout.splitlines()) == (
            0, ["replayed 12 records: 12 same, 0 differ, 0 not replayable"])
    finally:
        assert server.terminate() == 0
    done = replay_cli("--server", "127.0.0.1:1", "--db", str(golden))
    assert done.returncode == 2 and "give --server" in done.stderr
