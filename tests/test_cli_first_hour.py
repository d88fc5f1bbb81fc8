"""The command line in a new user's first hour: no silent trap between a
command as typed and a right answer.

- a duration without a unit (``due … 2``) is refused, listing the units;
- an empty flag value (``--tz ""``, ``--weekend ""``, ``--server ""`` …) is
  refused naming the flag; ``--weekend none`` is the way to ask for no weekend;
- ``serve`` refuses a calendars directory without bundles, a ledger in a
  directory that does not exist and a busy port, before it starts anything;
- ``record ID`` and ``records verify`` take ``--db`` or ``--server``;
  ``records export --since/--until`` select by the time received;
- away from the repository, a command naming a bundle says where it looked;
  ``--version``; ``calendars holidays``; ``--server http://…``; ``--hours``
  with ``9:00``; ``clock apply … retarget`` without ``--target``.

Most cases run :func:`duetime.cli.main` in-process; ``serve`` runs as a
subprocess.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from importlib.metadata import version as package_version
from pathlib import Path

import pytest
from duetime.cli import main
from duetime.tzdb import tzdata_version
from server_process import CALENDARS, server_fixture  # noqa: F401 - the "server" fixture
from test_cli_queries import answer, run

START = "2026-11-27T16:00Z"
UNITS = ("(units: bd (business days), bh (business hours), bm (business minutes), w (weeks), "
         "d (days of 24 hours), h (hours), m (minutes), s (seconds), ms (milliseconds); or "
         "ISO 8601 such as P2D)")


def serve(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """``duetime serve ARGS`` that is expected to refuse to start (bounded wait)."""
    return subprocess.run([sys.executable, "-m", "duetime", "serve", *args],
                          capture_output=True, text=True, timeout=60,
                          env={**os.environ, **(env or {})})


# ---- durations need a unit --------------------------------------------------------------


@pytest.mark.parametrize(("args", "error"), [
    (["due", START, "2"],
     f"error: duration: '2' has no unit; write e.g. 2bd, 2bh, 2d, 2h {UNITS}\n"),
    (["due", START, "-5"],
     f"error: duration: '-5' has no unit; write e.g. -5bd, -5bh, -5d, -5h {UNITS}\n"),
    (["due", START, "1.5"],
     f"error: duration: '1.5' has no unit; write e.g. 1.5bd, 1.5bh, 1.5d, 1.5h {UNITS}\n"),
    (["schedule", START, "--deadline", "remind=3"],
     f"error: --deadline: '3' has no unit; write e.g. 3bd, 3bh, 3d, 3h {UNITS}\n"),
    (["clock", "start", "8", "--at", START],
     f"error: target: '8' has no unit; write e.g. 8bd, 8bh, 8d, 8h {UNITS}\n"),
])
def test_a_duration_without_a_unit_is_refused(capsys, args, error):
    code, lines, err = run(capsys, *args)
    assert (code, lines, err) == (2, [], error)


def test_durations_with_units_still_answer(capsys):
    code, lines, err = run(capsys, "due", START, "2ms")
    assert (code, err) == (0, "")
    assert answer(lines) == ["due:       2026-11-27T16:00:00.002000+00:00 (UTC)",
                             "due (UTC): 2026-11-27T16:00:00.002Z"]
    code, lines, _ = run(capsys, "due", START, "2bd")
    assert code == 0 and lines[0] == "due:       2026-12-01T16:00:00+00:00 (UTC)"


# ---- empty flag values --------------------------------------------------------------------


@pytest.mark.parametrize(("flag", "error"), [
    ("--tz", "error: --tz: is empty; give an IANA time zone such as Europe/Zagreb, or leave "
             "--tz out for UTC\n"),
    ("--weekend", "error: --weekend: is empty; give the weekend days, e.g. sat,sun or fri-sat, "
                  "or none for no weekend (leave the flag out for sat,sun)\n"),
    ("--holidays-valid-until", "error: --holidays-valid-until: is empty; give a local date "
                               "YYYY-MM-DD, or leave the flag out\n"),
    ("--server", "error: --server: is empty; give the server's gRPC address HOST:PORT, e.g. "
                 "127.0.0.1:50051, or leave --server out to compute locally\n"),
    ("--key", "error: --key: is empty; give an idempotency key, or leave --key out to send "
              "none\n"),
    ("--hours", 'error: --hours: is empty; give DAYS HH:MM-HH:MM[,HH:MM-HH:MM...], e.g. '
                '"mon-fri 09:00-17:00" (leave it out for Mon–Fri 09:00–17:00)\n'),
    ("--calendars", "error: --calendars: is empty; give a calendars directory, or leave the "
                    "flag out for $DUETIME_CALENDARS, else ./calendars\n"),
])
@pytest.mark.parametrize("value", ["", " "])
def test_an_empty_flag_value_is_refused_naming_the_flag(capsys, flag, error, value):
    code, lines, err = run(capsys, "due", START, "3bd", flag, value)
    assert (code, lines, err) == (2, [], error)


@pytest.mark.parametrize(("args", "error"), [
    (["records", "export", "--since", ""],
     "error: --since: is empty; give an RFC 3339 instant such as 2026-12-01T00:00:00Z, or "
     "leave the flag out\n"),
    (["records", "verify", "--db", ""],
     "error: --db: is empty; give a SQLite file path or a postgresql:// URL, or leave --db out "
     "for $DUETIME_DB, else ~/.local/share/duetime/ledger.db\n"),
    (["record", "0123456789abcdef0123456789abcdef", "--server", ""],
     "error: --server: is empty; give the server's gRPC address HOST:PORT, e.g. "
     "127.0.0.1:50051, or leave --server out to compute locally\n"),
])
def test_empty_values_of_the_ledger_commands_are_refused(capsys, args, error):
    code, lines, err = run(capsys, *args)
    assert (code, lines, err) == (2, [], error)


def test_no_weekend_is_spelled_none(capsys):
    code, lines, err = run(capsys, "due", START, "1bd", "--weekend", "none")
    assert (code, err) == (0, "")
    assert lines[0] == "due:       2026-11-28T16:00:00+00:00 (UTC)"  # Saturday
    code, lines, _ = run(capsys, "due", START, "1bd")
    assert lines[0] == "due:       2026-11-30T16:00:00+00:00 (UTC)"  # Monday


# ---- serve refuses what would serve the wrong thing ------------------------------------


def test_serve_refuses_a_calendars_directory_without_bundles(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    result = serve("--port", "0", "--db", str(tmp_path / "l.db"), "--calendars", str(empty))
    assert result.returncode == 2
    assert result.stderr == (
        f"error: --calendars: {empty} holds no compiled calendar bundle or policy "
        f"({empty}/compiled/NAME/versions.txt); a bundle is a source NAME.toml compiled by "
        "duetime calendars compile into compiled/NAME/versions.txt and "
        "compiled/NAME/VERSION.json; or leave it out to serve inline calendars only\n")
    assert not (tmp_path / "l.db").exists()


def test_serve_names_uncompiled_sources_and_the_variable(tmp_path):
    sources = tmp_path / "sources"
    sources.mkdir()
    (sources / "acme.toml").write_text((CALENDARS / "hr-zagreb.toml").read_text())
    result = serve("--port", "0", "--db", str(tmp_path / "l.db"),
                   env={"DUETIME_CALENDARS": str(sources)})
    assert result.returncode == 2
    assert result.stderr == (
        f"error: DUETIME_CALENDARS: {sources} holds no compiled calendar bundle or policy "
        f"({sources}/compiled/NAME/versions.txt); it holds sources (acme.toml) but nothing "
        f"compiled: run duetime calendars compile --dir {sources}; or leave it out to serve "
        "inline calendars only\n")


def test_serve_refuses_a_calendars_path_that_is_not_a_directory(tmp_path):
    result = serve("--port", "0", "--db", str(tmp_path / "l.db"),
                   "--calendars", str(tmp_path / "nowhere"))
    assert result.returncode == 2
    assert result.stderr == (
        f"error: --calendars: {tmp_path / 'nowhere'} is not a directory; give a calendars "
        "directory such as the duetime repository's calendars/\n")


@pytest.mark.parametrize("source", ["--db", "DUETIME_DB"])
def test_serve_does_not_create_the_directory_of_a_ledger_given(tmp_path, source):
    db = tmp_path / "missing" / "dir" / "x.db"
    args, env = (["--db", str(db)], {}) if source == "--db" else ([], {"DUETIME_DB": str(db)})
    result = serve("--port", "0", "--calendars", str(CALENDARS), *args, env=env)
    assert result.returncode == 2
    assert result.stderr == (
        f"error: {source}: the directory {db.parent} does not exist; create it first "
        f"(mkdir -p {db.parent}) or give a path in an existing directory\n")
    assert not (tmp_path / "missing").exists()


@pytest.mark.parametrize(("flag", "variable", "api", "hint"), [
    ("--port", "DUETIME_PORT", "gRPC", "; --port 0 picks a free one"),
    ("--http-port", "DUETIME_HTTP_PORT", "HTTP/JSON", ""),
])
def test_serve_on_a_busy_port_says_which_and_how_to_change_it(tmp_path, flag, variable, api,
                                                              hint):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        args = ["--port", str(port)] if flag == "--port" else ["--port", "0", flag, str(port)]
        result = serve(*args, "--db", str(tmp_path / "l.db"), "--calendars", str(CALENDARS))
    assert result.returncode == 1
    assert result.stderr == (  # one line: no gRPC-internal line before it
        f"error: {flag}: cannot listen on 127.0.0.1:{port} for the {api} API: the port is in "
        "use (another process listens there, perhaps another duetime serve); choose another "
        f"with {flag} PORT (or {variable}){hint}\n")
    assert not (tmp_path / "l.db").exists()


# ---- the ledger commands take --db or --server -----------------------------------------


@pytest.fixture(scope="module")
def recorded(server):
    """A record made on the module's server: (server, record id)."""
    code = main(["due", "2026-11-27T16:00+01:00", "3bd", "--calendar", "hr-zagreb",
                 "--server", server.address, "--key", "first-hour/1", "--json"])
    assert code == 0
    listed = subprocess.run([sys.executable, "-m", "duetime", "records", "export",
                             "--server", server.address, "--key-prefix", "first-hour/"],
                            capture_output=True, text=True, timeout=60)
    record = json.loads(listed.stdout.splitlines()[0])
    return server, record["recordId"]


def test_record_reads_the_store_with_db(capsys, recorded):
    server, record_id = recorded
    code, from_db, err = run(capsys, "record", record_id, "--db", str(server.db_path))
    assert (code, err) == (0, "")
    code, from_server, _ = run(capsys, "record", record_id, "--server", server.address)
    assert code == 0 and from_db == from_server
    assert json.loads("\n".join(from_db))["idempotencyKey"] == "first-hour/1"


def test_record_without_the_record_or_with_both_sources(capsys, recorded):
    server, record_id = recorded
    missing = "0123456789abcdef0123456789abcdef"
    code, lines, err = run(capsys, "record", missing, "--db", str(server.db_path))
    assert (code, lines, err) == (
        1, [], f"error: no record with id '{missing}' in {server.db_path}\n")
    code, lines, err = run(capsys, "record", record_id, "--db", str(server.db_path),
                           "--server", server.address)
    assert (code, lines, err) == (2, [], "error: --db: give --server (ask a server) or --db "
                                         "(read the store), not both\n")


def test_records_verify_with_server(capsys, recorded):
    server, _ = recorded
    code, lines, err = run(capsys, "records", "verify", "--server", server.address)
    assert (code, err) == (0, "")
    assert len(lines) == 1
    assert lines[0].startswith("ok: ") and lines[0].endswith(
        f" record(s) in the ledger of {server.address}; every record parses and its content "
        "hash matches (the store's own checks need --db)")
    code, lines, _ = run(capsys, "records", "verify", "--db", str(server.db_path))
    assert code == 0 and lines[0].endswith("every row parses and its hashes match")


def test_records_export_help_says_since_is_the_time_received():
    shown = subprocess.run([sys.executable, "-m", "duetime", "records", "export", "--help"],
                           capture_output=True, text=True, timeout=60).stdout
    text = " ".join(shown.split())
    assert ("--since and --until select by the time the server received the call "
            "(receiveTime), not by a start or due time.") in text
    assert ("records the server received at or after TIME (RFC 3339; the time of the call, "
            "not a start or due time)") in text


def test_records_export_by_time_received_from_the_default_ledger(capsys, tmp_path,
                                                                 monkeypatch, recorded):
    """The README's example: the default ledger (``DUETIME_DB`` here), the
    records received in a window around now, whatever dates they are about."""
    server, record_id = recorded
    monkeypatch.setenv("DUETIME_DB", str(server.db_path))
    code, lines, err = run(capsys, "records", "export", "--since", "2000-01-01T00:00Z",
                           "--until", "2199-01-01T00:00Z", "--key-prefix", "first-hour/")
    assert (code, err) == (0, "exported 1 record(s)\n")
    assert json.loads(lines[0])["recordId"] == record_id
    code, lines, err = run(capsys, "records", "export", "--since", "2000-01-01T00:00Z",
                           "--until", "2026-11-28T00:00Z", "--key-prefix", "first-hour/")
    assert (code, lines, err) == (0, [], "exported 0 record(s)\n")  # start: 11-27, received later


def test_a_missing_ledger_names_the_default_one(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    code, lines, err = run(capsys, "records", "verify", "--db", str(tmp_path / "ledger.db"))
    assert (code, lines, err) == (1, [], (
        f"error: no ledger at {tmp_path / 'ledger.db'} (give --db PATH or a postgresql:// URL, "
        f"or set DUETIME_DB; duetime serve writes {tmp_path / 'data' / 'duetime' / 'ledger.db'} "
        "unless given --db)\n"))


# ---- away from the repository ------------------------------------------------------------


@pytest.fixture
def elsewhere(tmp_path, monkeypatch):
    """A working directory without calendars/, and no $DUETIME_CALENDARS."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("DUETIME_CALENDARS", raising=False)
    return tmp_path


def test_a_bundle_away_from_the_repository_says_where_it_looked(capsys, elsewhere):
    code, lines, err = run(capsys, "due", START, "3bd", "--calendar", "hr-zagreb")
    assert (code, lines) == (1, [])
    assert err == (
        f"error: no calendar bundles found: $DUETIME_CALENDARS is not set and there is no "
        f"calendars directory in {elsewhere}; give --calendars DIR or set "
        "DUETIME_CALENDARS=DIR, DIR a calendars directory such as the duetime repository's "
        "calendars/ (sources NAME.toml compiled into compiled/NAME/ by duetime calendars "
        "compile), or ask a server with --server HOST:PORT\n")
    code, lines, err = run(capsys, "calendars", "list")
    assert code == 1 and err.startswith(
        f"error: no calendar bundles found: $DUETIME_CALENDARS is not set and there is no "
        f"calendars directory in {elsewhere}; give --dir DIR or set DUETIME_CALENDARS=DIR")
    code, lines, err = run(capsys, "due", START, "3bd", "--calendar", "hr-zagreb",
                           "--calendars", str(CALENDARS))
    assert (code, err) == (0, "")
    assert lines[0] == "due:       2026-12-02T17:00:00+01:00 (Europe/Zagreb)"


def test_an_empty_calendars_directory_is_named(capsys, elsewhere):
    (elsewhere / "mine").mkdir()
    events = elsewhere / "events.json"
    events.write_text(json.dumps([{"type": "start", "time": "2026-12-11T10:00:00+01:00"}]))
    code, lines, err = run(capsys, "sla", "evaluate", "support-contract", str(events),
                           "--calendars", "mine")
    assert (code, lines) == (1, [])
    assert err.startswith("error: no calendar bundles found: mine holds no compiled bundle "
                          "(mine/compiled/NAME/versions.txt); give --calendars DIR")


def test_version(capsys):
    with pytest.raises(SystemExit) as stopped:
        main(["--version"])
    assert stopped.value.code == 0
    assert capsys.readouterr().out == (
        f"duetime {package_version('duetime')} (rules 2026.1, tzdata {tzdata_version()})\n")


def test_calendars_holidays_locally(capsys):
    code, lines, err = run(capsys, "calendars", "holidays", "hr-zagreb", "--dir", str(CALENDARS),
                           "--from", "2026-12-01", "--to", "2027-01-06")
    assert (code, err) == (0, "")
    assert lines == [
        "2026-12-25  Fri  Christmas Day",
        "2026-12-26  Sat  Saint Stephen's Day",
        "2027-01-01  Fri  New Year's Day",
        "2027-01-06  Wed  Epiphany",
        "4 holiday(s) from 2026-12-01 to 2027-01-06 in hr-zagreb@f45226394a32",
    ]


def test_calendars_holidays_from_a_server_and_its_errors(capsys, server):
    code, lines, err = run(capsys, "calendars", "holidays", "hr-zagreb@f45226394a32",
                           "--server", server.address, "--from", "2026-12-20", "--to",
                           "2026-12-31", "--json")
    assert (code, err) == (0, "")
    assert json.loads("\n".join(lines)) == {
        "holidays": [{"date": "2026-12-25", "name": "Christmas Day"},
                     {"date": "2026-12-26", "name": "Saint Stephen's Day"}],
        "calendarVersion": "hr-zagreb@f45226394a32", "warnings": []}
    for where in (["--server", server.address], ["--dir", str(CALENDARS)]):
        code, lines, err = run(capsys, "calendars", "holidays", "hr-zagreb", *where,
                               "--from", "2026-13-01", "--to", "2026-12-31")
        assert (code, lines, err) == (
            2, [], "error: --from: '2026-13-01' is not a local date YYYY-MM-DD\n")
        code, lines, err = run(capsys, "calendars", "holidays", "nope", *where,
                               "--from", "2026-01-01")
        assert code == 2 and err.startswith("error: NAME: no calendar bundle named 'nope' ")


@pytest.mark.parametrize(("address", "shown"), [
    ("http://127.0.0.1:50051", "127.0.0.1:50051"),
    ("grpc://duetime.internal:7000", "duetime.internal:7000"),
])
def test_a_url_for_server_is_refused_saying_host_port(capsys, address, shown):
    code, lines, err = run(capsys, "due", START, "3bd", "--server", address)
    assert (code, lines, err) == (2, [], (
        f"error: --server: '{address}' is a URL; give the gRPC address as HOST:PORT, e.g. "
        f"{shown} (the JSON-over-HTTP port of serve --http-port is another port, for browsers "
        "and curl, not for this command)\n"))


def test_an_https_url_hints_at_tls(capsys):
    code, _, err = run(capsys, "records", "export", "--server", "https://duetime.example.com")
    assert (code, err) == (2, (
        "error: --server: 'https://duetime.example.com' is a URL; give the gRPC address as "
        "HOST:PORT, e.g. duetime.example.com:50051 with --tls (the JSON-over-HTTP port of "
        "serve --http-port is another port, for browsers and curl, not for this command)\n"))


def test_grpc_target_forms_are_accepted(capsys, server):
    port = server.address.rsplit(":", 1)[1]
    code, lines, err = run(capsys, "due", START, "3bd", "--server", f"dns:///127.0.0.1:{port}")
    assert (code, err) == (0, "") and lines[0] == "due:       2026-12-02T16:00:00+00:00 (UTC)"


def test_hours_take_a_one_digit_hour(capsys):
    code, padded, err = run(capsys, "due", START, "3bh", "--hours", "mon-fri 9:00-17:00",
                            "--json")
    assert (code, err) == (0, "computed locally, not recorded\n")
    code, written, _ = run(capsys, "due", START, "3bh", "--hours", "mon-fri 09:00-17:00",
                           "--json")
    assert padded == written
    assert json.loads("\n".join(padded))["due"] == "2026-11-30T11:00:00Z"


@pytest.mark.parametrize(("spec", "error"), [
    ("mon-fri 9:00-25:00", "error: --hours: 'mon-fri 9:00-25:00': '25:00' is not a clock time "
                           "HH:MM or HH:MM:SS in 00:00..24:00\n"),
    ("mon-fri 24:00-17:00", "error: --hours: 'mon-fri 24:00-17:00': '24:00' is not a clock "
                            "time HH:MM or HH:MM:SS in 00:00..23:59:59\n"),
    ("mon-fri 9-17", "error: --hours: 'mon-fri 9-17': '9' is not a clock time HH:MM or "
                     "HH:MM:SS in 00:00..23:59:59\n"),
])
def test_a_bad_time_in_hours_is_reported_once(capsys, spec, error):
    code, lines, err = run(capsys, "due", START, "3bh", "--hours", spec)
    assert (code, lines, err) == (2, [], error)


def test_retarget_without_target(capsys, tmp_path):
    state = tmp_path / "clock.json"
    code, lines, _ = run(capsys, "clock", "start", "8bh", "--at", "2026-11-27T11:00Z")
    assert code == 0
    state.write_text("\n".join(lines))
    code, lines, err = run(capsys, "clock", "apply", str(state), "retarget",
                           "--at", "2026-11-27T12:00Z")
    assert (code, lines, err) == (2, [], "error: --target: is required for retarget: give the "
                                         "new target, e.g. --target 48bh\n")
    code, lines, err = run(capsys, "clock", "apply", str(state), "retarget",
                           "--at", "2026-11-27T12:00Z", "--target", "4")
    assert (code, err) == (2, f"error: --target: '4' has no unit; write e.g. 4bd, 4bh, 4d, 4h "
                              f"{UNITS}\n")
    code, lines, err = run(capsys, "clock", "apply", str(state), "pause",
                           "--at", "2026-11-27T12:00Z", "--target", "4h")
    assert (code, err) == (2, "error: --target: only retarget takes --target; leave it out "
                              "for pause\n")
    code, lines, err = run(capsys, "clock", "apply", str(state), "retarget",
                           "--at", "2026-11-27T12:00Z", "--target", "4bh")
    assert code == 0 and json.loads("\n".join(lines))["target"] == "4bh"


def test_readme_examples_of_these_commands_are_the_ones_tested():
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    assert "--db ledger.db > nov.jsonl" not in readme
    assert ("duetime records export --since 2026-12-01T00:00Z --until 2026-12-02T00:00Z "
            "> dec1.jsonl") in readme
    assert "$ duetime calendars holidays hr-zagreb --from 2026-12-01 --to 2027-01-06" in readme


def test_one_problem_on_every_day_of_a_spec_is_printed_once(capsys):
    code, lines, err = run(capsys, "due", START, "3bh", "--hours", "mon-fri 09:00-17:00",
                           "--hours", "mon-fri 12:00-18:00")
    assert (code, lines, err) == (2, [], (
        "error: calendar.working_hours.days[0].intervals[1]: 12:00–18:00 overlaps 09:00–17:00 "
        "(intervals[0]) (the same on days[1], days[2], days[3], days[4])\n"))
    code, lines, err = run(capsys, "due", START, "3bh", "--holiday", "x", "--holiday", "y")
    assert (code, err) == (2, "error: calendar.holidays[0].date: 'x' is not a local date "
                              "YYYY-MM-DD\nerror: calendar.holidays[1].date: 'y' is not a "
                              "local date YYYY-MM-DD\n")
