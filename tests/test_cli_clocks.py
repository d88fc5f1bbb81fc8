"""The SLA clock command line: ``duetime clock start|apply`` and ``duetime sla
evaluate``, locally (in-process) and against a real server."""

from __future__ import annotations

import json
import subprocess
import sys

from duetime.core import RULES_VERSION
from duetime.tzdb import tzdata_version
from server_process import CALENDARS, SUPPORT_CONTRACT_EVENTS, server_fixture  # noqa: F401 - the "server" fixture
from test_cli_queries import run

TIMELINE = [
    "#  event                 time (Europe/Zagreb)       action    tier      status   "
    "deadline                   remaining  reason",
    "1  start                 2026-12-11T10:00:00+01:00  START     standard  RUNNING  "
    "2026-12-25T10:00:00+01:00             clock started: standard target 14d, "
    "due 2026-12-25T10:00:00+01:00",
    "2  customer_reply        2026-12-14T10:00:00+01:00  RESET     standard  RUNNING  "
    "2026-12-28T10:00:00+01:00             customer_reply: clock reset to 14d; "
    "due 2026-12-28T10:00:00+01:00 (was 2026-12-25T10:00:00+01:00)",
    "3  tier_change           2026-12-17T10:00:00+01:00  RETARGET  priority  RUNNING  "
    "2026-12-28T15:00:00+01:00             tier_change: tier priority, target 48bh counted "
    "from the event; due 2026-12-28T15:00:00+01:00",
    "4  awaiting_third_party  2026-12-18T10:00:00+01:00  PAUSE     priority  PAUSED            "
    "                  40h        awaiting_third_party: clock paused with 40h left in its "
    "measure; deadline cleared",
    "5  customer_reply        2026-12-20T10:00:00+01:00  RESUME    priority  RUNNING  "
    "2026-12-29T12:00:00+01:00             customer_reply: clock resumed with the time that "
    "was left; due 2026-12-29T12:00:00+01:00",
    "6  resolved              2026-12-29T11:00:00+01:00  STOP      priority  STOPPED            "
    "                            resolved: clock stopped, SLA met",
    "clock:    STOPPED, met",
    "tier:     priority",
    "policy:   support-contract@8b65ed13fadb",
]


def events_file(tmp_path, events=SUPPORT_CONTRACT_EVENTS) -> str:
    path = tmp_path / "events.json"
    path.write_text(json.dumps([{"type": kind, "time": at, "attributes": attributes}
                                for kind, at, attributes in events]), encoding="utf-8")
    return str(path)


def duetime(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "duetime", *args], input=stdin,
                          capture_output=True, text=True, timeout=60)


def test_sla_evaluate_against_a_server_prints_the_timeline(server, tmp_path):
    result = duetime("sla", "evaluate", "support-contract", events_file(tmp_path),
                     "--server", server.address)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[:-2] == TIMELINE
    assert lines[-2].startswith("record:   ") and len(lines[-2]) == len("record:   ") + 32
    assert lines[-1].startswith("versions: calendar support-desk-example@259c33f17398, rules ")


def test_sla_evaluate_locally(capsys, tmp_path):
    code, lines, err = run(capsys, "sla", "evaluate", "support-contract@8b65ed13fadb",
                           events_file(tmp_path), "--calendars", str(CALENDARS))
    assert (code, err) == (0, "")
    assert lines[:-2] == TIMELINE
    assert lines[-2:] == ["record:   none, computed locally, not recorded",
                          "versions: calendar support-desk-example@259c33f17398, rules "
                          f"{RULES_VERSION}, tzdata {tzdata_version()}"]
    late = SUPPORT_CONTRACT_EVENTS[:-1] + [("resolved", "2026-12-29T13:00:00+01:00", {})]
    code, lines, _ = run(capsys, "sla", "evaluate", "support-contract", events_file(tmp_path, late),
                         "--calendars", str(CALENDARS))
    assert code == 0 and "clock:    STOPPED, breached (missed 2026-12-29T12:00:00+01:00)" in lines


def test_sla_evaluate_refuses_bad_histories(capsys, tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{"type": "start"}', encoding="utf-8")
    code, _, err = run(capsys, "sla", "evaluate", "support-contract", str(path))
    assert (code, err) == (2, 'error: EVENTS_JSON_FILE: is not a JSON list of {"type", "time", '
                              '"attributes"} objects\n')
    naive = [("start", "2026-12-11T10:00:00+01:00", {}), ("resolved", "2026-12-12T10:00", {})]
    code, _, err = run(capsys, "sla", "evaluate", "support-contract", events_file(tmp_path, naive))
    assert code == 2 and err.startswith("error: events[1].time: ")
    code, _, err = run(capsys, "sla", "evaluate", "support-contract", events_file(tmp_path),
                       "--calendars", str(CALENDARS), "--json")
    assert (code, err) == (0, "computed locally, not recorded\n")
    code, _, err = run(capsys, "sla", "evaluate", "atlantis", events_file(tmp_path),
                       "--calendars", str(CALENDARS))
    assert (code, err) == (
        2, "error: policy: no policy named 'atlantis' (known: support-contract, support-sla)\n")


def test_clock_start_and_apply_chain_through_files(capsys, tmp_path):
    code, lines, err = run(capsys, "clock", "start", "8bh", "--at", "2026-11-27T11:00Z")
    assert code == 0 and err.startswith("record:   none, computed locally, not recorded\n")
    started = json.loads("\n".join(lines))
    assert (started["status"], started["deadlineTime"]) == (
        "CLOCK_STATUS_RUNNING", "2026-11-30T11:00:00Z")
    state = tmp_path / "state.json"
    state.write_text("\n".join(lines), encoding="utf-8")
    code, lines, _ = run(capsys, "clock", "apply", str(state), "pause", "--at", "2026-11-27T16:00Z")
    paused = json.loads("\n".join(lines))
    assert (code, paused["status"], paused["remaining"]) == (0, "CLOCK_STATUS_PAUSED", "10800s")
    state.write_text(json.dumps({"state": paused}), encoding="utf-8")  # a whole --json answer
    code, lines, _ = run(capsys, "clock", "apply", str(state), "resume", "--at",
                         "2026-12-01T10:00Z")
    assert json.loads("\n".join(lines))["deadlineTime"] == "2026-12-01T13:00:00Z"
    code, _, err = run(capsys, "clock", "apply", str(state), "pause", "--at", "2026-12-01T10:00Z")
    assert (code, err) == (2, "error: event: the clock is already paused\n")
    code, _, err = run(capsys, "clock", "start", "P1D", "--at", "2026-11-27T11:00Z")
    assert (code, err) == (2, "error: target: 'P1D' cannot be a clock target: use elapsed "
                              "(h, d, w), bd, or bh/bm\n")
    state.write_text("[1]", encoding="utf-8")
    code, _, err = run(capsys, "clock", "apply", str(state), "stop", "--at", "2026-12-01T10:00Z")
    assert code == 2 and err.startswith(f"error: STATE_JSON_FILE: {state}: not a ClockState")


def test_clock_commands_against_a_server_through_a_pipe(server):
    started = duetime("clock", "start", "1bd", "--at", "2026-11-27T16:00+01:00",
                      "--calendar", "hr-zagreb", "--server", server.address)
    assert started.returncode == 0, started.stderr
    state = json.loads(started.stdout)
    assert (state["calendar"], state["deadlineTime"]) == (
        {"bundle": "hr-zagreb@f45226394a32"}, "2026-11-30T15:00:00Z")
    assert started.stderr.startswith("record:   ")
    assert "versions: calendar hr-zagreb@f45226394a32, rules " in started.stderr
    stopped = duetime("clock", "apply", "-", "stop", "--at", "2026-11-30T15:00Z",
                      "--server", server.address, stdin=started.stdout)
    assert stopped.returncode == 0, stopped.stderr
    assert (json.loads(stopped.stdout)["status"], json.loads(stopped.stdout)["met"]) == (
        "CLOCK_STATUS_STOPPED", True)
    refused = duetime("clock", "apply", "-", "resume", "--at", "2026-11-30T16:00Z",
                      "--server", server.address, stdin=stopped.stdout)
    assert (refused.returncode, refused.stderr) == (
        2, "error: event: the clock is stopped; no later event is accepted\n")
