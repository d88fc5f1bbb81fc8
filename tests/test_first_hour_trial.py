"""A second new user's first hour, from the README alone: each stumble is a
refusal that says what to write instead, or a message that names what was
actually used.

- ``calendars compile|check`` on a missing or empty directory is an error
  (exit 2), and every ``calendars`` command takes ``--calendars`` as
  ``--dir``;
- ``serve`` on a busy port names the source of the port (flag, variable or
  default);
- over HTTP a path that names no method is 404 for every verb; a 401 is
  worded for HTTP and says whether the scheme or the token is wrong;
- ``records replay|impact`` and a server without bundles say that none are
  loaded and how to give them;
- a client command fails at once against a server it cannot reach, saying
  why (nothing listening, the HTTP/JSON port, TLS on one side only, a
  client certificate required); ``--server HOST`` without a port is refused;
- the typed client takes RFC 3339 text for ``start``, a ``timedelta`` for
  ``duration``, refuses a URL target at construction; ``Deadline``'s
  ``after`` is optional;
- ``--namespace ""``, ``--hours`` without days, ``--deadline`` with several
  deadlines, a batch line that is no JSON object, ``calendars holidays``
  with ``--to`` before ``--from``: each refused in the command line's words.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import http.server
import json
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import anyio
import httpx
import pytest
from duetime import cli
from duetime.api import http as http_face
from duetime.api.server import NO_BUNDLES_SERVED, start_server
from duetime.auth import TokenSet
from duetime.catalog import Catalog
from duetime.client import Deadline, DuetimeClient, InvalidArgument, duration_text
from duetime.compose import build_app
from duetime.config import TlsFiles
from duetime.config import resolve as resolve_config
from duetime.ledger import MemoryLedger, open_ledger
from duetime.v1 import duetime_pb2 as pb
from server_process import CALENDARS
from test_cli_queries import run
from test_ops_security import make_pki

START = "2026-11-27T15:00Z"
POINT = "give --dir DIR (or --calendars DIR) or set DUETIME_CALENDARS=DIR"


@pytest.fixture(name="away")
def away_fixture(tmp_path, monkeypatch):
    """A working directory without calendars/ and no DUETIME_* variables."""
    for name in list(os.environ):
        if name.startswith("DUETIME_"):
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)
    return tmp_path


# ---- calendars compile / check: a directory that holds no sources -------------------------


@pytest.mark.parametrize("command", ["check", "compile"])
def test_calendars_on_a_missing_directory_is_an_error(capsys, away, command):
    code, lines, err = run(capsys, "calendars", command, "--dir", "/nonexistent")
    assert (code, lines, err) == (2, [], f"error: --dir: /nonexistent is not a directory; "
                                         f"{POINT}\n")
    code, lines, err = run(capsys, "calendars", command)
    assert (code, lines, err) == (
        2, [], f"error: --dir: $DUETIME_CALENDARS is not set and there is no calendars "
               f"directory in {away}; {POINT}\n")


def test_calendars_on_a_variable_naming_no_directory(capsys, away, monkeypatch):
    monkeypatch.setenv("DUETIME_CALENDARS", "/nonexistent")
    code, lines, err = run(capsys, "calendars", "check")
    assert (code, lines, err) == (
        2, [], f"error: --dir: /nonexistent (from $DUETIME_CALENDARS) is not a directory; "
               f"{POINT}\n")


@pytest.mark.parametrize("command", ["check", "compile"])
def test_calendars_on_a_directory_without_sources_is_an_error(capsys, away, command):
    code, lines, err = run(capsys, "calendars", command, "--calendars", str(away))
    assert (code, lines, err) == (
        2, [], f"error: --dir: no bundle sources (*.toml) in {away}; {POINT}, a directory "
               "holding sources NAME.toml such as the duetime repository's calendars/\n")


def test_calendars_commands_take_calendars_as_dir(capsys):
    assert run(capsys, "calendars", "check", "--calendars", str(CALENDARS)) == (
        0, [f"ok: every source in {CALENDARS} matches its newest compiled version"], "")
    code, lines, _ = run(capsys, "calendars", "list", "--calendars", str(CALENDARS))
    assert code == 0 and lines == run(capsys, "calendars", "list", "--dir", str(CALENDARS))[1]
    code, lines, _ = run(capsys, "calendars", "holidays", "hr-zagreb", "--calendars",
                         str(CALENDARS), "--from", "2026-12-24", "--to", "2026-12-26")
    assert code == 0 and lines[:2] == ["2026-12-25  Fri  Christmas Day",
                                       "2026-12-26  Sat  Saint Stephen's Day"]
    code, lines, _ = run(capsys, "calendars", "diff", "hr-zagreb", "hr-zagreb",
                         "--calendars", str(CALENDARS))
    assert code == 0


# ---- serve: a busy port names where the port came from ------------------------------------


def _busy(args_list: list[str], port: int) -> str | None:
    args = cli.parser().parse_args(["serve", *args_list])
    config = dataclasses.replace(resolve_config(args), host="127.0.0.1", port=port)
    return cli.busy_listener(config, args)


def test_a_busy_default_port_is_called_the_default(away, monkeypatch):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        said = _busy([], port)
        monkeypatch.setenv("DUETIME_PORT", str(port))
        from_variable = _busy([], port)
        from_flag = _busy(["--port", str(port)], port)
    tail = (f"cannot listen on 127.0.0.1:{port} for the gRPC API: the port is in use (another "
            "process listens there, perhaps another duetime serve); choose another with "
            "--port PORT (or DUETIME_PORT); --port 0 picks a free one")
    assert said == f"the default port {port}: {tail}"
    assert from_variable == f"DUETIME_PORT: {tail}"
    assert from_flag == f"--port: {tail}"


# ---- HTTP: unknown paths are 404 for every verb; 401 in HTTP's words -----------------------


def _ask(asgi, method: str, path: str, **kwargs) -> httpx.Response:
    async def send() -> httpx.Response:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=asgi),
                                     base_url="http://127.0.0.1") as client:
            return await client.request(method, path, **kwargs)
    return anyio.run(send)


@pytest.fixture(name="face", scope="module")
def face_fixture():
    return http_face.create_app(build_app(MemoryLedger(), Catalog.empty()), log_calls=False)


@pytest.mark.parametrize("method", ["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH"])
def test_a_path_that_names_no_method_is_404_for_every_verb(face, method):
    answered = _ask(face, method, "/v1/dueTime:compute")
    assert answered.status_code == 404
    if method != "HEAD":
        error = answered.json()["error"]
        assert (error["status"], error["message"]) == (
            "NOT_FOUND", f"no duetime.v1 method or file at {method} /v1/dueTime:compute; the "
                         "API's paths are listed in proto/duetime/v1/duetime.proto "
                         "(google.api.http)")
        assert error["details"][0]["reason"] == "NO_SUCH_PATH"


def test_a_real_path_with_the_wrong_verb_is_still_405(face):
    answered = _ask(face, "GET", "/v1/dueTimes:compute")
    assert answered.status_code == 405
    assert answered.json()["error"]["message"] == ("/v1/dueTimes:compute does not answer GET; "
                                                   "it answers POST")
    assert _ask(face, "GET", "/").status_code == 200  # the playground is still there


@pytest.mark.parametrize(("authorization", "message", "reason"), [
    (None, "this server needs a bearer token: send the header 'Authorization: Bearer <token>'",
     "TOKEN_MISSING"),
    ("right-token", "the 'Authorization' header is not a Bearer credential (the value must "
                    "start with 'Bearer '); send the header 'Authorization: Bearer <token>'",
     "TOKEN_INVALID"),
    ("Basic dXNlcjpwYXNz", "the 'Authorization' header is not a Bearer credential (the value "
                           "must start with 'Bearer '); send the header 'Authorization: Bearer "
                           "<token>'", "TOKEN_INVALID"),
    ("Bearer ", "the 'Authorization' header names the Bearer scheme but holds no token after "
                "it; send the header 'Authorization: Bearer <token>'", "TOKEN_INVALID"),
    ("Bearer wrong", "the bearer token in the 'Authorization' header is not one this server "
                     "accepts", "TOKEN_INVALID"),
])
def test_http_401_says_what_is_wrong_in_http_words(tmp_path, authorization, message, reason):
    tokens = tmp_path / "tokens"
    tokens.write_text("right-token\n")
    asgi = http_face.create_app(build_app(MemoryLedger(), Catalog.empty()), TokenSet(tokens),
                                log_calls=False)
    headers = {} if authorization is None else {"Authorization": authorization}
    answered = _ask(asgi, "POST", "/v1/dueTimes:compute", headers=headers,
                    json={"start": START, "duration": "2h"})
    assert answered.status_code == 401
    body = answered.json()["error"]
    assert body["message"] == message
    assert body["details"][0]["reason"] == reason
    assert _ask(asgi, "POST", "/v1/dueTimes:compute", json={"start": START, "duration": "2h"},
                headers={"Authorization": "Bearer right-token"}).status_code == 200


# ---- no bundles loaded: say so, where duetime looked, how to give them ---------------------


def test_records_replay_away_from_the_repository_says_no_bundles_are_loaded(capsys, away):
    db = away / "ledger.db"
    ledger = open_ledger(str(db))
    running = start_server(ledger, port=0, catalog=Catalog.load(CALENDARS), log_calls=False)
    try:
        assert run(capsys, "due", START, "2bd", "--calendar", "hr-zagreb", "--server",
                   f"127.0.0.1:{running.port}")[0] == 0
    finally:
        running.stop(grace=0)
        ledger.close()
    code, lines, err = run(capsys, "records", "replay", "--db", str(db))
    assert code == 1
    assert err.startswith(
        "warning: records that name a calendar bundle cannot be replayed: no calendar bundles "
        f"found: $DUETIME_CALENDARS is not set and there is no calendars directory in {away}; "
        "give --calendars DIR or set DUETIME_CALENDARS=DIR, DIR a calendars directory such as "
        "the duetime repository's calendars/ (sources NAME.toml compiled into compiled/NAME/ "
        "by duetime calendars compile)\n")
    code, lines, err = run(capsys, "records", "impact", "--db", str(db), "--calendar",
                           "hr-zagreb")
    assert (code, lines) == (1, [])
    assert err == (
        "error: no calendar bundles found: $DUETIME_CALENDARS is not set and there is no "
        f"calendars directory in {away}; give --calendars DIR or set DUETIME_CALENDARS=DIR, "
        "DIR a calendars directory such as the duetime repository's calendars/ (sources "
        "NAME.toml compiled into compiled/NAME/ by duetime calendars compile), or ask a server "
        "with --server HOST:PORT\n")


def test_a_server_without_bundles_says_how_to_give_them(capsys):
    running = start_server(MemoryLedger(), port=0, catalog=Catalog.empty(NO_BUNDLES_SERVED),
                           log_calls=False)
    try:
        code, lines, err = run(capsys, "due", START, "2bd", "--calendar", "hr-zagreb",
                               "--server", f"127.0.0.1:{running.port}")
    finally:
        running.stop(grace=0)
    assert (code, lines) == (2, [])
    assert err == ("error: calendar.bundle: no calendar bundle named 'hr-zagreb' (known: none "
                   "are loaded; this server has no calendar bundles loaded (start it with "
                   "--calendars DIR))\n")


def test_serve_without_calendars_warns(away):
    process = subprocess.Popen(
        [sys.executable, "-m", "duetime", "serve", "--port", "0", "--db", str(away / "l.db")],
        stderr=subprocess.PIPE, text=True)
    try:
        lines = []
        for line in process.stderr:
            lines.append(line)
            if "listening on" in line:
                break
    finally:
        process.terminate()
        process.wait(timeout=30)
    warned = [line.split(" ", 2)[2] for line in lines if " WARNING " in line]
    assert warned == [
        f"WARNING no calendars directory (--calendars, $DUETIME_CALENDARS, ./calendars in "
        f"{away}): this server serves no calendar bundles, only inline calendars; start it "
        "with --calendars DIR (or set DUETIME_CALENDARS=DIR) to serve bundles\n"]


# ---- client commands against a server they cannot reach -----------------------------------


REACH = "error: --server: cannot reach duetime's gRPC service at {}: "


def _refused_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_nothing_listening_fails_fast_and_says_so(capsys):
    port = _refused_port()
    began = time.monotonic()
    code, lines, err = run(capsys, "due", START, "2h", "--server", f"127.0.0.1:{port}")
    assert time.monotonic() - began < 5
    assert (code, lines) == (1, [])
    assert err == (REACH.format(f"127.0.0.1:{port}") + "nothing is listening there: is duetime "
                   "serve running, and on which port? (its gRPC port, --port, default 50051)\n")


def test_an_http1_server_is_the_http_port(capsys):
    server = http.server.HTTPServer(("127.0.0.1", 0), http.server.BaseHTTPRequestHandler)
    server.RequestHandlerClass.log_message = lambda *a: None
    threading.Thread(target=server.serve_forever, daemon=True).start()
    address = f"127.0.0.1:{server.server_address[1]}"
    try:
        code, lines, err = run(capsys, "calendars", "list", "--server", address)
    finally:
        server.shutdown()
        server.server_close()
    assert (code, lines) == (1, [])
    assert err == (REACH.format(address) + "an HTTP/1.x server answered: that is probably "
                   "duetime's HTTP/JSON port (serve --http-port), for browsers and curl; give "
                   "the gRPC port (serve --port, default 50051)\n")


@pytest.fixture(name="pki", scope="module")
def pki_fixture(tmp_path_factory):
    return make_pki(tmp_path_factory.mktemp("pki"))


def _tls_server(pki, client_ca: bool):
    return start_server(MemoryLedger(), port=0, log_calls=False, tls=TlsFiles(
        pki.server.read_bytes(), pki.server_key.read_bytes(),
        pki.ca.read_bytes() if client_ca else None))


@pytest.mark.parametrize(("client_ca", "flags", "why"), [
    (False, [], "the server closed the connection: it may use TLS; add --tls-ca CA.pem (or "
                "--tls for a publicly issued certificate), and for a server requiring client "
                "certificates also --tls-cert FILE and --tls-key FILE"),
    (False, ["--tls-ca", "stranger"], "the server's certificate is not trusted: give --tls-ca "
                                      "the CA that issued it (a certificate issued for another "
                                      "host name fails the same way)"),
    (True, ["--tls-ca", "ca"], "the server closed the TLS connection: it may require a client "
                               "certificate; add --tls-cert FILE and --tls-key FILE"),
])
def test_tls_mismatches_say_which_flag_to_add(capsys, pki, client_ca, flags, why):
    running = _tls_server(pki, client_ca)
    address = f"127.0.0.1:{running.port}"
    given = [str(getattr(pki, flag)) if flag in ("ca", "stranger") else flag for flag in flags]
    try:
        code, lines, err = run(capsys, "due", START, "2h", "--server", address, *given)
    finally:
        running.stop(grace=0)
    assert (code, lines, err) == (1, [], REACH.format(address) + why + "\n")


def test_tls_to_a_plain_server_says_to_leave_tls_out(capsys, pki):
    running = start_server(MemoryLedger(), port=0, log_calls=False)
    address = f"127.0.0.1:{running.port}"
    try:
        code, lines, err = run(capsys, "due", START, "2h", "--server", address,
                               "--tls-ca", str(pki.ca))
    finally:
        running.stop(grace=0)
    assert (code, lines, err) == (1, [], REACH.format(address) + "the server does not use "
                                  "TLS: leave out --tls and --tls-ca (and --tls-cert)\n")


def test_server_without_a_port_is_refused(capsys):
    assert run(capsys, "due", START, "2h", "--server", "127.0.0.1") == (
        2, [], "error: --server: '127.0.0.1' has no port; add :PORT, the server's gRPC port, "
               "e.g. 127.0.0.1:50051 (gRPC would otherwise try port 443)\n")


def test_client_commands_take_timeout(capsys):
    running = start_server(MemoryLedger(), port=0, log_calls=False)
    try:
        code, lines, err = run(capsys, "due", START, "2h", "--server",
                               f"127.0.0.1:{running.port}", "--timeout", "7")
    finally:
        running.stop(grace=0)
    assert (code, err) == (0, "") and lines[0] == "due:       2026-11-27T17:00:00+00:00 (UTC)"
    args = cli.parser().parse_args(["calendars", "list", "--server", "h:1", "--timeout", "2.5"])
    assert args.timeout == 2.5


# ---- the typed client --------------------------------------------------------------------


@pytest.fixture(name="grpc_server", scope="module")
def grpc_server_fixture():
    running = start_server(MemoryLedger(), port=0, catalog=Catalog.load(CALENDARS),
                           log_calls=False)
    yield f"127.0.0.1:{running.port}"
    running.stop(grace=0)


def test_typed_client_takes_rfc3339_text_and_timedelta(grpc_server):
    with DuetimeClient(grpc_server, timeout=10) as client:
        text = client.compute_due_time("2026-11-27T15:00Z", dt.timedelta(hours=2))
        assert text.due == dt.datetime(2026, 11, 27, 17, tzinfo=dt.timezone.utc)
        record = client.get_record(text.recorded.record_id)
        sent = pb.ComputeDueTimeRequest()
        assert record.request.Unpack(sent) and sent.duration == "7200s"
        zagreb = client.compute_due_time("2026-11-27T16:00+01:00", "3bd", "hr-zagreb")
        assert zagreb.due_local == "2026-12-02T16:00:00+01:00"


@pytest.mark.parametrize(("value", "text"), [
    (dt.timedelta(hours=2), "7200s"),
    (dt.timedelta(microseconds=1500), "0.0015s"),
    (dt.timedelta(days=1, seconds=1, microseconds=1), "86401.000001s"),
    (-dt.timedelta(minutes=90), "-5400s"),
    ("3bd", "3bd"),
])
def test_duration_text(value, text):
    assert duration_text(value) == text


@pytest.mark.parametrize(("start", "duration", "field", "description"), [
    (dt.datetime(2026, 11, 27, 15), "2h", "start",
     "needs a UTC offset (a naive datetime is never read as UTC or local)"),
    (1764255600, "2h", "start", "is a int; give an aware datetime or RFC 3339 text such as "
                                "'2026-11-27T15:00:00Z'"),
    ("2026-11-27 15:00", "2h", "start", None),
    ("2026-11-27T15:00Z", 2, "duration", "is a int; give text with a unit such as '2h', '3bd' "
                                         "or 'P1M', or a datetime.timedelta"),
    ("2026-11-27T15:00Z", 2.5, "duration", "is a float; give text with a unit such as '2h', "
                                           "'3bd' or 'P1M', or a datetime.timedelta"),
])
def test_typed_client_refuses_other_types_naming_the_argument(start, duration, field,
                                                              description):
    client = DuetimeClient("127.0.0.1:1", timeout=1)
    with client, pytest.raises(InvalidArgument) as refused:
        client.compute_due_time(start, duration)
    assert [v.field for v in refused.value.violations] == [field]
    if description is not None:
        assert refused.value.violations[0].description == description


@pytest.mark.parametrize(("target", "description"), [
    ("http://127.0.0.1:50051", "'http://127.0.0.1:50051' is a URL; give the gRPC address as "
                               "HOST:PORT, e.g. 127.0.0.1:50051 (the JSON-over-HTTP port of "
                               "serve --http-port is another port, for browsers and curl, not "
                               "for this command)"),
    ("127.0.0.1", "'127.0.0.1' has no port; add :PORT, the server's gRPC port, e.g. "
                  "127.0.0.1:50051 (gRPC would otherwise try port 443)"),
])
def test_typed_client_refuses_a_target_that_is_no_host_port(target, description):
    with pytest.raises(InvalidArgument) as refused:
        DuetimeClient(target)
    assert [(v.field, v.description) for v in refused.value.violations] == [
        ("target", description)]
    assert not refused.value.retryable


def test_deadline_after_is_optional():
    assert Deadline("escalate", "5bd") == Deadline("escalate", "5bd", "")


# ---- flags refused in the command line's words --------------------------------------------


def test_empty_namespace_is_refused(capsys):
    error = ("error: --namespace: is empty; give a namespace (1-64 characters of A-Z a-z 0-9 "
             ". _ -), or leave --namespace out for the default one\n")
    assert run(capsys, "due", START, "2h", "--namespace", "") == (2, [], error)
    assert run(capsys, "due", START, "2h", "--namespace", "", "--server",
               "127.0.0.1:1") == (2, [], error)


@pytest.mark.parametrize("hours", ["09:00-17:00", "9-17"])
def test_hours_without_days_say_to_write_the_days_first(capsys, hours):
    assert run(capsys, "due", START, "2h", "--hours", hours) == (
        2, [], f"error: --hours: '{hours}' names no days; write the days first: "
               "'mon-fri 09:00-17:00'\n")


def test_deadline_spaces_are_stripped_and_several_are_refused(capsys):
    code, lines, err = run(capsys, "schedule", START, "--deadline", "remind = 2bd",
                           "--deadline", "escalate= 5bd @after: remind")
    assert (code, err) == (0, "")
    assert lines[:2] == ["remind:   2026-12-01T15:00:00+00:00 = 2026-12-01T15:00:00Z "
                         "(entered + 2bd)",
                         "escalate: 2026-12-08T15:00:00+00:00 = 2026-12-08T15:00:00Z "
                         "(remind + 5bd)"]
    assert run(capsys, "schedule", START, "--deadline", "remind=2bd,escalate=5bd") == (
        2, [], "error: --deadline: 'remind=2bd,escalate=5bd' holds several deadlines; give one "
               "NAME=DURATION each (on the command line repeat the flag: --deadline remind=2bd "
               "--deadline escalate=5bd)\n")


def test_a_batch_line_that_is_no_json_object(capsys, tmp_path):
    requests = tmp_path / "requests.jsonl"
    requests.write_text(f'[{{"start": "{START}", "duration": "2h"}}]\n'
                        f'{{"start": "{START}", "duration": "2h"}}\n')
    code, lines, err = run(capsys, "batch", str(requests))
    assert code == 1
    assert json.loads(lines[0]) == {"line": 1, "error": {
        "code": "INVALID_ARGUMENT", "message": "line 1: is not a JSON object (one request per "
                                               "line)",
        "reason": "INVALID_ARGUMENT", "violations": [
            {"field": "line 1", "description": "is not a JSON object (one request per line)"}]}}
    assert json.loads(lines[1])["response"]["due"] == "2026-11-27T17:00:00Z"


def test_holidays_range_refusals_use_flag_names(capsys):
    assert run(capsys, "calendars", "holidays", "hr-zagreb", "--dir", str(CALENDARS),
               "--from", "2026-12-31", "--to", "2026-11-01") == (
        2, [], "error: --to: 2026-11-01 is before --from 2026-12-31\n")
