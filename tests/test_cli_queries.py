"""The query commands of the ``duetime`` command line: ``between``, ``open``,
``schedule``, ``--explain``, ``--at-close`` and the new calendar flags.

Local mode runs :func:`duetime.cli.main` in-process (the same code path as
``python -m duetime``, without a process per case); one test drives the
installed command against a real server.
"""

from __future__ import annotations

import json
import re

import pytest
from duetime.cli import main, parse_deadline, parse_override
from duetime.core import InvalidArgument
from duetime.tzdb import tzdata_version
from duetime.v1 import duetime_pb2 as pb
from server_process import server_fixture  # noqa: F401 - the "server" fixture
from test_cli import duetime

ZAGREB = ["--tz", "Europe/Zagreb", "--holiday", "2026-12-25=Christmas Day",
          "--holiday", "2026-12-26=St. Stephen's Day"]
XMAS = [*ZAGREB, "--override", "2026-12-24=09:00-13:00=Christmas Eve",
        "--override", "2026-12-28=closed=Inventory", "--extra-day", "2026-12-27=Sunday shift"]
SCHEDULE = ["schedule", "2026-11-27T16:00+01:00", *ZAGREB, "--deadline", "remind=2bd",
            "--deadline", "escalate=5bd", "--deadline", "expire=30d",
            "--deadline", "final=4bh@after:escalate"]
VERSIONS = re.compile(rf"versions: +calendar cal-[0-9a-f]{{16}}, rules [0-9.]+, "
                      rf"tzdata {re.escape(tzdata_version())}")


def run(capsys, *args: str) -> tuple[int, list[str], str]:
    """``duetime ARGS`` in-process: exit code, stdout lines, stderr."""
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out.splitlines(), err


def answer(lines: list[str], record: str = "none, computed locally, not recorded") -> list[str]:
    """``lines`` without the versions line, which must be there and well-formed."""
    versions = [line for line in lines if line.startswith("versions:")]
    assert len(versions) == 1 and VERSIONS.fullmatch(versions[0]), lines
    assert any(line.startswith("record:") and line.endswith(record) for line in lines), lines
    return [line for line in lines if not line.startswith(("versions:", "record:"))]


def test_due_explain_prints_a_table(capsys):
    code, lines, err = run(capsys, "due", "2026-12-24T16:00+01:00", "3bd", *ZAGREB, "--explain")
    assert (code, err) == (0, "")
    assert answer(lines) == [
        "due:       2026-12-30T16:00:00+01:00 (Europe/Zagreb)",
        "due (UTC): 2026-12-30T15:00:00Z",
        "explanation:",
        "  #  kind   amount  step",
        "  1  start          Start 2026-12-24T16:00:00+01:00 (Thursday 2026-12-24, a business day)"
        " in Europe/Zagreb",
        "  2  skip           Friday 2026-12-25: skipped, holiday (Christmas Day)",
        "  3  skip           Saturday 2026-12-26: skipped, holiday (St. Stephen's Day)",
        "  4  skip           Sunday 2026-12-27: skipped, weekend",
        "  5  count          Monday 2026-12-28: business day 1 of 3",
        "  6  count          Tuesday 2026-12-29: business day 2 of 3",
        "  7  count          Wednesday 2026-12-30: business day 3 of 3",
        "  8  note           business days keep the start's wall time 16:00:00",
        "  9  due            Due 2026-12-30T16:00:00+01:00 (Wednesday 2026-12-30) = "
        "2026-12-30T15:00:00Z",
    ]


@pytest.mark.parametrize("flags, due", [
    ([], "due:       2026-11-27T17:00:00+00:00 (UTC)"),
    (["--at-close", "end-of-window"], "due:       2026-11-27T17:00:00+00:00 (UTC)"),
    (["--at-close", "next-open"], "due:       2026-11-30T09:00:00+00:00 (UTC)"),
])
def test_due_at_close(capsys, flags, due):
    code, lines, _ = run(capsys, "due", "2026-11-27T16:00Z", "1bh", *flags)
    assert (code, lines[0]) == (0, due)


def test_due_with_override_and_extra_day(capsys):
    code, lines, _ = run(capsys, "due", "2026-12-24T12:00+01:00", "2bh", *XMAS)
    assert (code, lines[0]) == (0, "due:       2026-12-27T10:00:00+01:00 (Europe/Zagreb)")


def test_between(capsys):
    code, lines, err = run(capsys, "between", "2026-12-24T10:00+01:00", "2026-12-29T11:00+01:00",
                           *XMAS, "--explain")
    assert (code, err) == (0, "")
    assert answer(lines) == [
        "business time: 13h",
        "business days: 2",
        "time zone:     Europe/Zagreb",
        "explanation:",
        "  #  kind   amount  step",
        "  1  start          From 2026-12-24T10:00:00+01:00 (Thursday 2026-12-24) in Europe/Zagreb",
        "  2  open       3h  Thursday 2026-12-24 10:00–13:00: 3h (total 3h of 13h)",
        "  3  skip           Friday 2026-12-25: no open time, holiday (Christmas Day)",
        "  4  skip           Saturday 2026-12-26: no open time, holiday (St. Stephen's Day)",
        "  5  open       8h  Sunday 2026-12-27 09:00–17:00: 8h (total 11h of 13h)",
        "  6  skip           Monday 2026-12-28: no open time, closed by override (Inventory)",
        "  7  open       2h  Tuesday 2026-12-29 09:00–11:00: 2h (total 13h of 13h)",
        "  8  due       13h  To 2026-12-29T11:00:00+01:00 (Tuesday 2026-12-29): 13h of open time",
    ]


def test_between_backwards_is_negative(capsys):
    code, lines, _ = run(capsys, "between", "2000-01-01T12:00Z", "1999-12-30T12:00Z")
    assert code == 0
    # Thursday 12:00–17:00 and Friday 09:00–17:00, counted backwards
    assert lines[:2] == ["business time: -13h", "business days: -2"]


@pytest.mark.parametrize("time, expected", [
    ("2026-12-25T12:00+01:00", [
        "open:       no",
        "local date: 2026-12-25 (Europe/Zagreb), not a business day: holiday (Christmas Day)",
        "next open:  2026-12-27T09:00:00+01:00",
        "next close: 2026-12-27T17:00:00+01:00",
    ]),
    ("2026-12-24T12:00+01:00", [
        "open:       yes, 2026-12-24T09:00:00+01:00 – 2026-12-24T13:00:00+01:00",
        "local date: 2026-12-24 (Europe/Zagreb), a business day",
        "next close: 2026-12-24T13:00:00+01:00",
        "next open:  2026-12-27T09:00:00+01:00",
    ]),
], ids=["closed-on-a-holiday", "open-on-a-shortened-day"])
def test_open(capsys, time, expected):
    code, lines, _ = run(capsys, "open", time, *XMAS)
    assert (code, answer(lines)) == (0, expected)


def test_open_json(capsys):
    code, lines, err = run(capsys, "open", "2026-12-28T12:00+01:00", *XMAS, "--json")
    assert code == 0
    status = json.loads("\n".join(lines))
    assert status["closedReason"] == "closed by override (Inventory)"
    assert status["nextOpenTime"] == "2026-12-29T08:00:00Z"
    assert (status["open"], status["recordId"]) == (False, "")  # false fields printed too
    assert "computed locally, not recorded" in err


def test_schedule(capsys):
    code, lines, err = run(capsys, *SCHEDULE)
    assert (code, err) == (0, "")
    assert answer(lines) == [
        "remind:   2026-12-01T16:00:00+01:00 = 2026-12-01T15:00:00Z (entered + 2bd)",
        "escalate: 2026-12-04T16:00:00+01:00 = 2026-12-04T15:00:00Z (entered + 5bd)",
        "expire:   2026-12-27T16:00:00+01:00 = 2026-12-27T15:00:00Z (entered + 30d)",
        "final:    2026-12-07T12:00:00+01:00 = 2026-12-07T11:00:00Z (escalate + 4bh)",
        "next due: remind at 2026-12-01T16:00:00+01:00",
    ]


def test_schedule_explain_and_relative_deadline(capsys):
    code, lines, _ = run(capsys, "schedule", "2026-11-27T16:00Z", "--deadline", "a=1bd@16:00",
                         "--deadline", "b=1bh@after:a", "--at-close", "next-open", "--explain")
    assert code == 0
    assert lines[:2] == [
        "a:        2026-11-30T16:00:00+00:00 = 2026-11-30T16:00:00Z (entered + 1bd@16:00)",
        "b:        2026-12-01T09:00:00+00:00 = 2026-12-01T09:00:00Z (a + 1bh)",
    ]
    assert "explanation of a:" in lines and "explanation of b:" in lines


def test_warning_goes_to_stderr(capsys):
    code, lines, err = run(capsys, "due", "2027-12-20T10:00Z", "10bd", "--holiday", "2027-01-01")
    assert (code, lines[0]) == (0, "due:       2028-01-03T10:00:00+00:00 (UTC)")
    assert err == ("warning: no holidays known for 2028: "
                   "the calendar lists holidays up to 2027 only\n")


@pytest.mark.parametrize("args, expected", [
    (["due", "2026-12-30T10:00Z", "3bd", "--holidays-valid-until", "2026-12-31"],
     "error: calendar.holidays_valid_until: the answer depends on 2027-01-04"),
    (["due", "2026-11-27T16:00Z", "1bd", "--override", "2026-12-24"], "error: --override: "),
    (["due", "2026-11-27T16:00Z", "1bd", "--override", "2026-12-24=9-13"],
     "error: calendar.date_overrides[0].intervals[0].start: "),
    (["due", "2026-11-27T16:00Z", "1bd", "--override", "2026-12-24=09:00"], "error: --override: "),
    (["due", "2026-11-27T16:00Z", "1bd", "--override", "2026-02-30=closed"],
     "error: calendar.date_overrides[0].date: "),
    (["due", "2026-11-27T16:00Z", "1bd", "--extra-day", "2026-13-01"],
     "error: calendar.extra_working_days[0].date: "),
    (["between", "2026-11-27T16:00", "2026-11-30T16:00Z"], "error: start_time: "),
    (["between", "2026-11-27T16:00Z", "tomorrow"], "error: end_time: "),
    (["open", "noon"], "error: time: "),
    (["schedule", "2026-11-27", "--deadline", "a=1bd"], "error: entered_time: "),
    (["schedule", "2026-11-27T16:00Z", "--deadline", "a"], "error: --deadline: "),
    (["schedule", "2026-11-27T16:00Z", "--deadline", "a=1bd@after:"], "error: --deadline: "),
    (["schedule", "2026-11-27T16:00Z", "--deadline", "a=1bd@after:b"],
     "error: deadlines[0].after: "),
])
def test_bad_input_prints_field_and_exits_2(capsys, args, expected):
    code, lines, err = run(capsys, *args)
    assert (code, lines) == (2, [])
    assert err.startswith(expected), err


def test_parse_override_and_deadline():
    assert parse_override("2026-12-24=09:00-12:00,13:00-15:00=Christmas Eve") == pb.DateOverride(
        date="2026-12-24", name="Christmas Eve",
        intervals=[pb.TimeInterval(start="09:00", end="12:00"),
                   pb.TimeInterval(start="13:00", end="15:00")])
    assert parse_override("2026-12-28=closed") == pb.DateOverride(date="2026-12-28", closed=True)
    assert parse_deadline("final=4bh@after:escalate") == pb.DeadlineSpec(
        name="final", duration="4bh", after="escalate")
    assert parse_deadline("cb=1bd@16:00@after:a") == pb.DeadlineSpec(
        name="cb", duration="1bd@16:00", after="a")
    for bad in ["=1bd", "a=", "a=@after:b"]:
        with pytest.raises(InvalidArgument) as caught:
            parse_deadline(bad)
        assert caught.value.violations[0].field == "--deadline"


def test_schedule_help_documents_the_deadline_syntax(capsys):
    with pytest.raises(SystemExit):
        main(["schedule", "--help"])
    out = capsys.readouterr().out
    assert "NAME=DURATION@after:OTHER" in out and "--deadline final=4bh@after:escalate" in out


def test_schedule_on_server_then_record(server):
    result = duetime(*SCHEDULE, "--server", server.address, "--key", "cli-schedule")
    assert result.returncode == 0, result.stderr
    record_id = re.search(r"^record:   ([0-9a-f]{32})$", result.stdout, re.M).group(1)
    assert "final:    2026-12-07T12:00:00+01:00" in result.stdout
    shown = json.loads(duetime("record", record_id, "--server", server.address).stdout)
    assert shown["method"] == "/duetime.v1.DueTimeService/ComputeSchedule"
    assert shown["idempotencyKey"] == "cli-schedule"
    assert shown["response"]["nextDue"] == "remind"
    assert shown["request"]["deadlines"][3] == {
        "name": "final", "duration": "4bh", "after": "escalate"}
