"""The words of landing rules, week periods and calendar queries where a new
user meets them: the command line names its flags, landing times take any
case and a one-digit hour, a clock target with a landing rule says that the
rule is what a clock cannot measure (docs/semantics.md §15), bundle sources
name their TOML keys (§16), an end before its start is printed with ``Z``."""

from __future__ import annotations

import pytest
from duetime.bundles import compile_all
from duetime.bundles.source import SourceError
from duetime.core import Calendar, InvalidArgument, compute_due, format_local, parse_instant
from duetime.core.clock import start_clock
from duetime.core.zones import to_us
from duetime.v1 import duetime_pb2 as pb
from local_app import compute
from test_cli_queries import answer, run

ZAGREB = Calendar.from_text("Europe/Zagreb", holidays=[("2026-12-25", "Christmas Day"),
                                                       ("2026-12-26", "St. Stephen's Day")])


def due(start: str, duration: str) -> str:
    return format_local(compute_due(parse_instant(start, "start"), duration, ZAGREB), ZAGREB)


# --- landing times: any case, one-digit hours ---------------------------------------------

@pytest.mark.parametrize("duration, expected", [
    ("P2W@following@END", "2026-12-29T00:00:00+01:00"),
    ("P2W@Following@end", "2026-12-29T00:00:00+01:00"),
    ("P2W@FOLLOWING@Close", "2026-12-28T17:00:00+01:00"),
    ("P2W@following@OPEN", "2026-12-28T09:00:00+01:00"),
    ("P2W@following@9:30", "2026-12-28T09:30:00+01:00"),
    ("P2W@following@09:30", "2026-12-28T09:30:00+01:00"),
    ("P2W@Modified-Preceding", "2026-12-24T12:00:00+01:00"),
])
def test_landing_words_take_any_case_and_hours_one_digit(duration, expected):
    assert due("2026-12-11T12:00:00+01:00", duration) == expected


def test_relative_deadlines_take_a_one_digit_hour_and_any_case():
    assert due("2026-12-24T09:00:00+01:00", "1bd@9:00") == "2026-12-28T09:00:00+01:00"
    assert due("2026-12-24T09:00:00+01:00", "1bd@End") == "2026-12-29T00:00:00+01:00"


def test_the_wire_fields_take_any_case():
    request = pb.ComputeDueTimeRequest(duration="P2W", roll=pb.ROLL_FOLLOWING, landing_time="END",
                                       calendar=pb.Calendar(time_zone="Europe/Zagreb",
                                                            holidays=[pb.Holiday(date="2026-12-25")]))
    request.start.FromJsonString("2026-12-11T11:00:00Z")
    assert compute(request).due_local == "2026-12-29T00:00:00+01:00"
    request.landing_time = "7:45"
    assert compute(request).due_local == "2026-12-28T07:45:00+01:00"


def test_a_bad_landing_time_still_says_what_to_write():
    with pytest.raises(InvalidArgument) as e:
        due("2026-12-11T12:00:00+01:00", "P2W@following@noon")
    assert e.value.violations[0].description == (
        "'noon' at position 15 of 'P2W@following@noon' is not a local time HH:MM (00:00..23:59), "
        "'open', 'close' or 'end'")


# --- the command line names its flags -----------------------------------------------------

def test_a_landing_time_without_a_roll_names_the_flags(capsys):
    code, out, err = run(capsys, "due", "2026-01-30T10:00+01:00", "P1M", "--landing-time", "close",
                         "--tz", "Europe/Zagreb")
    assert (code, out) == (2, [])
    assert err == ("error: --landing-time: 'close' after the elapsed or ISO 8601 duration 'P1M' needs a roll: "
                   "set --roll too (e.g. --roll following)\n")
    code, out, err = run(capsys, "due", "2026-01-30T10:00+01:00", "P1M", "--roll", "FOLLOWING",
                         "--landing-time", "Close", "--tz", "Europe/Zagreb")
    assert (code, err) == (0, "")
    assert answer(out) == ["due:       2026-03-02T17:00:00+01:00 (Europe/Zagreb)",
                           "due (UTC): 2026-03-02T16:00:00Z"]


def test_the_wire_says_the_field_and_the_enum():
    request = pb.ComputeDueTimeRequest(duration="P1M", landing_time="close")
    request.start.FromJsonString("2026-01-30T09:00:00Z")
    with pytest.raises(InvalidArgument) as e:
        compute(request)
    assert [(v.field, v.description) for v in e.value.violations] == [(
        "landing_time", "'close' after the elapsed or ISO 8601 duration 'P1M' needs a roll: set roll too "
                        "(e.g. FOLLOWING)")]


def test_calendars_diff_refuses_a_server(capsys):
    code, out, err = run(capsys, "calendars", "diff", "hr-zagreb", "hr-zagreb", "--server", "127.0.0.1:50051")
    assert (code, out) == (2, [])
    assert err == ("error: --server: calendars diff works on a calendars directory, not a server: give --dir "
                   "DIR (the directory the server was started with, its --calendars) and leave --server out\n")


def test_an_end_before_its_start_is_printed_with_z(capsys):
    code, out, err = run(capsys, "periods", "2026-12-01T00:00Z", "2026-11-30T23:00Z")
    assert (code, out) == (2, [])
    assert err == ("error: end_time: 2026-11-30T23:00:00Z is before start_time 2026-12-01T00:00:00Z; "
                   "give an end_time at or after it\n")


# --- clocks ----------------------------------------------------------------------------------

@pytest.mark.parametrize("target, base", [("14d@following", "14d"), ("P1M@modified-following@close", "P1M"),
                                          ("1bd@16:00", "1bd")])
def test_a_clock_target_with_a_landing_rule_names_the_rule(target, base):
    with pytest.raises(InvalidArgument) as e:
        start_clock(target, to_us(parse_instant("2026-01-30T10:00Z", "start")), ZAGREB)
    assert [(v.field, v.description) for v in e.value.violations] == [(
        "target", f"{target!r} cannot be a clock target: a clock measures the time left, and a landing rule "
                  f"('@…') has no measure to count it in; give the duration alone ({base!r}), or compute the "
                  "rolled deadline with ComputeDueTime or a schedule")]
    with pytest.raises(InvalidArgument) as nominal:  # without a rule, the old words
        start_clock("P1D", to_us(parse_instant("2026-01-30T10:00Z", "start")), ZAGREB)
    assert nominal.value.violations[0].description == (
        "'P1D' cannot be a clock target: use elapsed (h, d, w), bd, or bh/bm")


# --- bundle sources -------------------------------------------------------------------------

BUNDLE = ('description = "ACME Zagreb"\ntime_zone = "Europe/Zagreb"\nyears = [2026, 2028]\n'
          '[holidays]\ncountry = "HR"\nlanguage = "en_US"\n')


def _compile(tmp_path, periods: str) -> str:
    src = tmp_path / "calendars"
    src.mkdir()
    (src / "acme.toml").write_text(BUNDLE + periods)
    with pytest.raises(SourceError) as e:
        compile_all(src)
    return str(e.value)


def test_an_unknown_key_in_a_week_period_is_named(tmp_path):
    message = _compile(tmp_path, '[[week_periods]]\nfrom = "2027-03-01"\nhours = ["mon-fri 08:00-18:00"]\n')
    assert message.endswith("acme.toml: week_periods[0]: unknown key 'hours' "
                            "(allowed: from, weekend, working_hours)")


def test_week_periods_out_of_order_name_the_toml_key(tmp_path):
    message = _compile(tmp_path, '[[week_periods]]\nfrom = "2027-03-01"\n[[week_periods]]\nfrom = "2027-01-01"\n')
    assert message == ("acme.week_periods[1].from: week period 1 starts 2027-01-01, not after week period 0 "
                       "(2027-03-01); list week periods in strictly increasing from order ([[week_periods]] tables)")


@pytest.mark.parametrize("start", ["2029-01-01", "2025-12-31"])
def test_a_week_period_outside_the_years_is_refused(tmp_path, start):
    message = _compile(tmp_path, f'[[week_periods]]\nfrom = "{start}"\n')
    assert message == (f"acme.week_periods[0].from: week period 0 starts {start}, outside the bundle's years "
                       "2026–2028; move its from into those years or widen years")
