"""The ``duetime`` command line, run as ``python -m duetime`` subprocesses."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest
from duetime.cli import parse_days, parse_hours
from duetime.core import InvalidArgument
from duetime.tzdb import tzdata_version
from duetime.v1 import duetime_pb2 as pb
from server_process import server_fixture  # noqa: F401 - the "server" fixture

ZAGREB = ["due", "2026-11-27T16:00+01:00", "3bd", "--tz", "Europe/Zagreb",
          "--holiday", "2026-12-25", "--holiday", "2026-12-26"]


def duetime(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "duetime", *args],
                          capture_output=True, text=True, timeout=60)


def test_due_locally():
    result = duetime(*ZAGREB)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[:3] == [
        "due:       2026-12-02T16:00:00+01:00 (Europe/Zagreb)",
        "due (UTC): 2026-12-02T15:00:00Z",
        "record:    none, computed locally, not recorded",
    ]
    assert lines[3].startswith("versions:  calendar cal-")
    assert lines[3].endswith(f"tzdata {tzdata_version()}")


def test_due_locally_json():
    result = duetime(*ZAGREB, "--json")
    assert result.returncode == 0, result.stderr
    answer = json.loads(result.stdout)
    assert answer["due"] == "2026-12-02T15:00:00Z"
    assert answer["dueLocal"] == "2026-12-02T16:00:00+01:00"
    assert answer["recordId"] == ""  # printed empty: computed locally, no record
    assert "computed locally, not recorded" in result.stderr


def test_due_on_server_then_record(server):
    result = duetime(*ZAGREB, "--server", server.address, "--key", "cli-key")
    assert result.returncode == 0, result.stderr
    assert "due:       2026-12-02T16:00:00+01:00 (Europe/Zagreb)" in result.stdout
    record_id = re.search(r"^record:    ([0-9a-f]{32})$", result.stdout, re.M).group(1)
    assert f"record:    {record_id}" in duetime(*ZAGREB, "--server", server.address,
                                                "--key", "cli-key").stdout
    shown = duetime("record", record_id, "--server", server.address)
    assert shown.returncode == 0, shown.stderr
    record = json.loads(shown.stdout)
    assert record["recordId"] == record_id and record["idempotencyKey"] == "cli-key"
    assert record["request"]["@type"] == "type.googleapis.com/duetime.v1.ComputeDueTimeRequest"
    assert record["request"]["start"] == "2026-11-27T15:00:00Z"
    assert record["response"]["dueLocal"] == "2026-12-02T16:00:00+01:00"
    assert record["response"]["recordId"] == record_id


@pytest.mark.parametrize("remote", [False, True], ids=["local", "server"])
@pytest.mark.parametrize("args, expected", [
    (["2026-11-27T16:00+01:00", "1.5bd"], "error: duration: "),
    (["2026-11-27T16:00", "1bd"], "error: start: "),
    (["2026-11-27T16:00Z", "1bd", "--tz", "Europe/Atlantis"], "error: calendar.time_zone: "),
    (["2026-11-27T16:00Z", "1bd", "--weekend", "sat,xyz"], "error: --weekend: "),
])
def test_bad_input_prints_field_and_exits_2(server, remote, args, expected):
    result = duetime("due", *args, *(["--server", server.address] if remote else []))
    assert result.returncode == 2
    assert result.stderr.startswith(expected)
    assert "Traceback" not in result.stderr and result.stdout == ""


def test_server_errors_exit_1(server):
    missing = duetime("record", "0" * 32, "--server", server.address)
    assert (missing.returncode, missing.stderr.split(":")[:2]) == (1, ["error", " NOT_FOUND"])
    reused = duetime(*ZAGREB, "--server", server.address, "--key", "cli-key-2")
    assert reused.returncode == 0
    conflict = duetime(*ZAGREB[:2], "4bd", *ZAGREB[3:], "--server", server.address,
                       "--key", "cli-key-2")
    assert conflict.returncode == 1 and "ALREADY_EXISTS" in conflict.stderr


def test_parse_days():
    assert parse_days("mon-fri", "f") == [1, 2, 3, 4, 5]
    assert parse_days("sat,sun", "f") == [6, 7]
    assert parse_days("Mon,wed-thu", "f") == [1, 3, 4]
    assert parse_days("fri-mon", "f") == [5, 6, 7, 1]
    with pytest.raises(InvalidArgument):
        parse_days("mon-xyz", "f")


def test_parse_hours():
    hours = parse_hours(["mon-fri 09:00-12:00,13:00-17:00", "sat 10:00-14:00"])
    assert [d.weekday for d in hours.days] == [1, 2, 3, 4, 5, 6]
    assert hours.days[0].intervals == [pb.TimeInterval(start="09:00", end="12:00"),
                                       pb.TimeInterval(start="13:00", end="17:00")]
    assert hours.days[5].intervals == [pb.TimeInterval(start="10:00", end="14:00")]
    for bad in ["mon-fri", "mon-fri 09:00", "mon-fri 09:00-17:00,"]:
        with pytest.raises(InvalidArgument) as caught:
            parse_hours([bad])
        assert caught.value.violations[0].field == "--hours"
