"""``duetime batch FILE.jsonl``: one ComputeDueTimeRequest a line in, one
result a line out, against a real server (recorded) or computed locally."""

from __future__ import annotations

import io
import json
import socket
import subprocess
import sys
from datetime import datetime, timedelta, timezone

import pytest
from duetime import cli
from duetime.v1 import duetime_pb2 as pb
from google.protobuf import json_format
from server_process import server_fixture  # noqa: F401 - the "server" fixture

ZAGREB = ('"calendar": {"timeZone": "Europe/Zagreb", "holidays": [{"date": "2026-12-25"}, '
          '{"date": "2026-12-26"}]}')
LINES = [
    '{"start": "2026-11-27T15:00:00Z", "duration": "3bd", ' + ZAGREB + '}',
    "",
    '{"start": "2026-11-27T15:00:00Z", "duration": "1.5bd"}',
    "not json",
    '{"start": "2026-11-27T15:00:00Z", "duration": "1bd", "calendar": {"bundle": "hr-zagreb"}, '
    '"idempotencyKey": "cli-batch/1"}',
    '{"start": "2026-11-27T15:00:00Z", "duration": "2bd", "calendar": {"bundle": "hr-zagreb"}, '
    '"idempotencyKey": "cli-batch/1"}',
    '{"start": "2026-11-27T15:00:00Z", "duration": "8bh", "atClose": "AT_CLOSE_NEXT_OPEN"}',
]
HALF_BD = ("'1.5bd': business days must be whole; use bh for parts of a business day")
NOT_JSON = "is not a ComputeDueTimeRequest in the protobuf JSON mapping: Failed to load JSON: "


def write_input(tmp_path, lines=LINES):
    path = tmp_path / "requests.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def read_output(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def due(result: dict) -> tuple[str, str, str]:
    response = result["response"]
    return response["due"], response["dueLocal"], response["calendarVersion"]


def test_batch_on_a_server_records_each_answer(server, tmp_path, capsys):
    source, out = write_input(tmp_path), tmp_path / "results.jsonl"
    code = cli.main(["batch", str(source), "--server", server.address, "--out", str(out),
                     "--chunk", "2"])
    assert code == 1
    assert capsys.readouterr().err.splitlines() == ["6 items: 3 ok, 3 failed"]
    results = read_output(out)
    assert [r["line"] for r in results] == [1, 3, 4, 5, 6, 7]
    assert [("response" in r) for r in results] == [True, False, False, True, False, True]
    assert due(results[0]) == ("2026-12-02T15:00:00Z", "2026-12-02T16:00:00+01:00",
                               "cal-adbe0f65ebf4e927")
    assert due(results[3]) == ("2026-11-30T15:00:00Z", "2026-11-30T16:00:00+01:00",
                               "hr-zagreb@f45226394a32")
    assert due(results[5])[:2] == ("2026-11-30T15:00:00Z", "2026-11-30T15:00:00+00:00")
    assert results[1]["error"] == {"code": "INVALID_ARGUMENT", "message": f"duration: {HALF_BD}",
                                   "reason": "INVALID_ARGUMENT",
                                   "violations": [{"field": "duration", "description": HALF_BD}]}
    not_json = results[2]["error"]
    assert (not_json["code"], [v["field"] for v in not_json["violations"]]) == (
        "INVALID_ARGUMENT", ["request"])
    assert not_json["violations"][0]["description"].startswith(NOT_JSON)
    assert results[4]["error"] == {
        "code": "ALREADY_EXISTS", "reason": "IDEMPOTENCY_KEY_REUSED",
        "message": "idempotency key 'cli-batch/1' was already used with a different request",
        "violations": [{"field": "idempotency_key", "description": "was already used with a "
                        "different request; a new request needs a new key"}]}
    # each answer is its own record, holding the line's request
    for number, result in ((1, results[0]), (5, results[3]), (7, results[5])):
        record = server.stub.GetRecord(
            pb.GetRecordRequest(record_id=result["response"]["recordId"]), timeout=10).record
        stored = pb.ComputeDueTimeRequest()
        record.request.Unpack(stored)
        assert stored == json_format.Parse(LINES[number - 1], pb.ComputeDueTimeRequest())
    # again: the keyed line replays its first answer, the others are new records
    assert cli.main(["batch", str(source), "--server", server.address, "--out", str(out)]) == 1
    again = read_output(out)
    assert again[3] == results[3]
    assert again[0]["response"]["recordId"] != results[0]["response"]["recordId"]


def test_batch_from_stdin_all_answered(server, tmp_path):
    monday = datetime(2026, 11, 30, 9, tzinfo=timezone.utc)
    lines = [json.dumps({"start": (monday + timedelta(minutes=i)).isoformat(), "duration": "90m"})
             for i in range(2500)]
    result = subprocess.run(
        [sys.executable, "-m", "duetime", "batch", "-", "--server", server.address],
        input="\n".join(lines), capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stderr.splitlines() == ["2,500 items: 2,500 ok, 0 failed"]
    results = [json.loads(line) for line in result.stdout.splitlines()]
    assert [r["line"] for r in results] == list(range(1, 2501))
    assert [r["response"]["due"] for r in results] == [
        (monday + timedelta(minutes=i + 90)).strftime("%Y-%m-%dT%H:%M:%SZ") for i in range(2500)]
    assert len({r["response"]["recordId"] for r in results}) == 2500


def test_batch_locally_records_nothing(tmp_path, capsys):
    code = cli.main(["batch", str(write_input(tmp_path)), "--calendars", str(cli_calendars())])
    captured = capsys.readouterr()
    assert code == 1
    assert captured.err.splitlines() == ["6 items: 4 ok, 2 failed (computed locally, not recorded)"]
    results = [json.loads(line) for line in captured.out.splitlines()]
    assert [r["line"] for r in results] == [1, 3, 4, 5, 6, 7]
    answered = [r for r in results if "response" in r]
    assert [due(r)[0] for r in answered] == ["2026-12-02T15:00:00Z", "2026-11-30T15:00:00Z",
                                             "2026-12-01T15:00:00Z", "2026-11-30T15:00:00Z"]
    assert all(r["response"]["recordId"] == "" for r in answered)  # printed empty: nothing recorded
    assert [r["error"]["violations"][0]["field"] for r in results if "error" in r] == [
        "duration", "request"]


def cli_calendars():
    from server_process import CALENDARS

    return CALENDARS


def test_batch_prints_progress_for_long_inputs(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(cli, "BATCH_PROGRESS", 2)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(
        b'{"start": "2026-11-27T15:00:00Z", "duration": "1h"}\n' * 5)))
    assert cli.main(["batch", "-", "--chunk", "1"]) == 0
    captured = capsys.readouterr()
    assert captured.err.splitlines() == [
        "progress: 2 items, 0 failed", "progress: 4 items, 0 failed",
        "5 items: 5 ok, 0 failed (computed locally, not recorded)"]
    assert [json.loads(line)["response"]["due"] for line in captured.out.splitlines()] == [
        "2026-11-27T16:00:00Z"] * 5


def test_batch_usage_errors_exit_2(tmp_path, capsys):
    assert cli.main(["batch", str(tmp_path / "missing.jsonl")]) == 2
    assert capsys.readouterr().err.startswith(
        f"error: FILE.jsonl: cannot read {tmp_path / 'missing.jsonl'}: ")
    source = write_input(tmp_path)
    assert cli.main(["batch", str(source), "--server", "127.0.0.1:1", "--namespace", "a/b"]) == 2
    assert capsys.readouterr().err == ("error: --namespace: 'a/b' is not a namespace: 1 to 64 "
                                       "characters of A-Z a-z 0-9 . _ -\n")
    assert cli.main(["batch", str(source), "--out", str(tmp_path / "no" / "such" / "dir.jsonl")]) == 2
    assert "error: --out: cannot write" in capsys.readouterr().err
    for chunk in ("0", "100001", "x"):
        with pytest.raises(SystemExit) as usage:
            cli.main(["batch", str(source), "--chunk", chunk])
        assert usage.value.code == 2
        assert f"argument --chunk: '{chunk}' is not 1 to 100000 requests" in capsys.readouterr().err


def test_batch_without_a_server_to_reach_exits_1(tmp_path, capsys):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    out = tmp_path / "results.jsonl"
    code = cli.main(["batch", str(write_input(tmp_path)), "--server", f"127.0.0.1:{port}",
                     "--out", str(out)])
    assert code == 1
    assert capsys.readouterr().err == (  # at once, saying why
        f"error: --server: cannot reach duetime's gRPC service at 127.0.0.1:{port}: nothing is "
        "listening there: is duetime serve running, and on which port? (its gRPC port, --port, "
        "default 50051)\n")
    assert out.read_text() == ""


def batch_counting_calls(source, out, address: str) -> tuple[int, list[int]]:
    """``duetime batch SOURCE --server ADDRESS --out OUT``: its exit code and
    the items of each BatchComputeDueTimes call it made, in order."""
    calls: list[int] = []
    real = cli.DuetimeClient.compute_due_times

    def counted(self, items):
        items = list(items)
        calls.append(len(items))
        return real(self, items)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(cli.DuetimeClient, "compute_due_times", counted)
        code = cli.main(["batch", str(source), "--server", address, "--out", str(out)])
    return code, calls


def test_batch_sends_fewer_items_a_call_when_their_explanations_would_pass_the_weight(
        server, tmp_path, capsys):
    """Five explained items in a calendar of 48 intervals a day weigh 240,
    more than one message may hold (100): sent in calls of two, two and one,
    every item is answered with its explanation. A calendar heavier than a
    message may hold goes alone, and its refusal is its own line's error."""
    intervals = [{"start": f"{h:02d}:{m:02d}", "end": f"{h:02d}:{m + 15:02d}"}
                 for h in range(24) for m in (0, 30)]
    calendar = {"timeZone": "Europe/Zagreb", "workingHours": {"days": [
        {"weekday": day, "intervals": intervals} for day in ("MONDAY", "TUESDAY")]}}
    heavy = {"timeZone": "UTC", "holidays": [{"date": f"{2030 + y}-01-{d:02d}"}
                                             for y in range(200) for d in range(1, 31)]}
    lines = [json.dumps({"start": "2026-11-30T08:00:00Z", "duration": "2bh", "explain": True,
                         "calendar": calendar, "idempotencyKey": f"explained-{i}"})
             for i in range(5)]
    lines.append(json.dumps({"start": "2026-11-30T08:00:00Z", "duration": "1bd",
                             "calendar": heavy}))
    lines.append(json.dumps({"start": "2026-11-30T08:00:00Z", "duration": "1bd",
                             "calendar": {"timeZone": "UTC"}}))
    source, out = write_input(tmp_path, lines), tmp_path / "results.jsonl"
    code, calls = batch_counting_calls(source, out, server.address)
    assert calls == [2, 2, 1, 1, 1]
    results = read_output(out)
    assert [("response" in r) for r in results] == [True] * 5 + [False, True]
    assert all(r["response"]["explanation"] for r in results[:5])
    assert results[0]["response"]["due"] == "2026-11-30T11:45:00Z"  # 8 intervals of 15 min from 09:00 local
    assert results[5]["error"]["violations"][0]["field"] == "line 6.calendar"  # its own line
    assert code == 1
    assert capsys.readouterr().err.splitlines()[-1] == "7 items: 6 ok, 1 failed"


def test_batch_follows_a_server_that_takes_fewer_items_a_message(tmp_path, capsys):
    """A server started with --max-batch-items 100 refuses the first call of
    1,000 saying so (ErrorInfo ``max_batch_items``); ``duetime batch`` sends
    that chunk and the rest in calls of 100, and every line is answered."""
    from server_process import CALENDARS, ServerProcess
    server = ServerProcess(tmp_path / "ledger.db", CALENDARS, "--max-batch-items", "100")
    try:
        lines = [json.dumps({"start": "2026-11-27T15:00:00Z", "duration": f"{1 + i % 3}bd",
                             "calendar": {"timeZone": "Europe/Zagreb"}}) for i in range(1500)]
        source, out = write_input(tmp_path, lines), tmp_path / "results.jsonl"
        code, calls = batch_counting_calls(source, out, server.address)
        assert capsys.readouterr().err.splitlines()[-1] == "1,500 items: 1,500 ok, 0 failed"
        assert code == 0
        assert calls == [1000] + [100] * 10 + [100] * 5  # refused once, then followed
        results = read_output(out)
        assert [r["line"] for r in results] == list(range(1, 1501))
        assert results[0]["response"]["due"] == "2026-11-30T15:00:00Z"
        assert results[2]["response"]["due"] == "2026-12-02T15:00:00Z"
        assert server.terminate() == 0
    finally:
        server.kill()
