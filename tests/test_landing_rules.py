"""Landing rules (docs/semantics.md §15): every example as an exact-value test,
in the core, on the wire (gRPC messages, JSON over HTTP, schedules, batches)
and on the command line."""

from __future__ import annotations

import json

import pytest
from duetime.api import convert, http
from duetime.catalog import Catalog
from duetime.compose import build_app
from duetime.core import Calendar, InvalidArgument, OutOfRange, compute_due, format_local, parse_instant
from duetime.core.clock import start_clock
from duetime.core.durations import Roll, parse_duration
from duetime.core.zones import from_us, to_us
from duetime.core.queries import Deadline, due_answer, schedule
from duetime.ledger import MemoryLedger
from duetime.v1 import duetime_pb2 as pb
from google.protobuf import json_format
from local_app import APP, compute
from server_process import CALENDARS
from test_http_json_forms import Client

ZAGREB = Calendar.from_text("Europe/Zagreb", holidays=[("2026-12-25", "Christmas Day"),
                                                       ("2026-12-26", "St. Stephen's Day")])
ZAGREB_MSG = pb.Calendar(time_zone="Europe/Zagreb", holidays=[
    pb.Holiday(date="2026-12-25", name="Christmas Day"), pb.Holiday(date="2026-12-26", name="St. Stephen's Day")])


def due(start: str, duration: str, cal: Calendar = ZAGREB) -> str:
    return format_local(compute_due(parse_instant(start, "start"), duration, cal), cal)


def refusal(start: str, duration: str, cal: Calendar = ZAGREB, kind=InvalidArgument):
    with pytest.raises(kind) as e:
        compute_due(parse_instant(start, "start"), duration, cal)
    (v,) = e.value.violations
    return v.field, v.description


# ---- §15's examples (Europe/Zagreb, Sat+Sun, 09:00–17:00, holidays 12-25, 12-26)


@pytest.mark.parametrize("start, duration, expected", [
    # 2026-02-28 is a Saturday
    ("2026-01-30T10:00+01:00", "P1M@following", "2026-03-02T10:00:00+01:00"),
    ("2026-01-30T10:00+01:00", "P1M@modified-following", "2026-02-27T10:00:00+01:00"),
    ("2026-01-30T10:00+01:00", "P1M", "2026-02-28T10:00:00+01:00"),
    # Sunday 2026-11-01: the preceding business day is in October
    ("2026-10-01T10:00+02:00", "P1M@modified-preceding", "2026-11-02T10:00:00+01:00"),
    # Friday 2026-12-25 is a holiday → Monday 12-28, end of day
    ("2026-12-11T12:00+01:00", "P2W@following@end", "2026-12-29T00:00:00+01:00"),
    # Thursday 2026-12-24 is a business day: not rolled, end of that day
    ("2026-12-10T12:00+01:00", "P2W@following@end", "2026-12-25T00:00:00+01:00"),
    # Sunday 2026-12-27 10:00 → Monday 12-28 at its closing
    ("2026-12-13T10:00+01:00", "14d@following@close", "2026-12-28T17:00:00+01:00"),
    ("2026-12-24T09:00+01:00", "1bd@end", "2026-12-29T00:00:00+01:00"),
    # a negative duration rolls the same way: 2026-03-31 − P1M → Saturday 02-28 → Friday 02-27
    ("2026-03-31T10:00+02:00", "-P1M@preceding", "2026-02-27T10:00:00+01:00"),
    ("2026-03-31T10:00+02:00", "-P1M@following", "2026-03-02T10:00:00+01:00"),
])
def test_the_examples(start, duration, expected):
    assert due(start, duration) == expected


def test_the_first_example_in_utc_too():
    assert compute_due(parse_instant("2026-10-01T10:00+02:00", "start"), "P1M@modified-preceding",
                       ZAGREB).isoformat() == "2026-11-02T09:00:00+00:00"


@pytest.mark.parametrize("duration, expected", [
    ("P1M@following", "2026-03-02T10:00:00+01:00"),
    ("P1M@preceding", "2026-02-27T10:00:00+01:00"),
    ("P1M@modified-following", "2026-02-27T10:00:00+01:00"),
    ("P1M@modified-preceding", "2026-02-27T10:00:00+01:00"),
    ("P1M@following@16:30", "2026-03-02T16:30:00+01:00"),
    ("P1M@following@open", "2026-03-02T09:00:00+01:00"),
    ("P1M@following@close", "2026-03-02T17:00:00+01:00"),
    ("P1M@following@end", "2026-03-03T00:00:00+01:00"),
    ("P1M@modified-following@close", "2026-02-27T17:00:00+01:00"),
    ("-P1D@preceding", "2026-01-29T10:00:00+01:00"),  # Thursday: a business day, kept
])
def test_every_roll_and_landing_time(duration, expected):
    assert due("2026-01-30T10:00+01:00", duration) == expected


def test_the_relative_deadline_table_row_for_end():
    # docs/semantics.md §6: from Friday 2026-11-27 16:00 (UTC, 09–17)
    assert due("2026-11-27T16:00Z", "1bd@end", Calendar.from_text()) == "2026-12-01T00:00:00+00:00"
    assert due("2026-11-27T16:00Z", "0bd@end", Calendar.from_text()) == "2026-11-28T00:00:00+00:00"


# ---- the settled details (docs/semantics.md §15)


def test_a_zero_duration_rolls_too():
    # Saturday 2026-02-28 10:00: Monday at the start's wall time
    assert due("2026-02-28T10:00+01:00", "P0D@following") == "2026-03-02T10:00:00+01:00"
    assert due("2026-02-28T10:00+01:00", "0s@preceding") == "2026-02-27T10:00:00+01:00"
    assert due("2026-02-28T10:00+01:00", "0@modified-following") == "2026-02-27T10:00:00+01:00"
    assert due("2026-02-28T10:00+01:00", "P0D") == "2026-02-28T10:00:00+01:00"


def test_a_business_day_keeps_the_unrolled_instant_itself():
    # no weekend: Sunday 2026-10-25 (fall back in Zagreb) is a business day;
    # 25h from Saturday 02:30+02:00 is the second 02:30 that night, kept as it is
    no_weekend = Calendar.from_text("Europe/Zagreb", weekend=[])
    assert due("2026-10-24T02:30+02:00", "25h@following", no_weekend) == "2026-10-25T02:30:00+01:00"
    # rolled, the wall time is resolved on the final date by §1.1: the earlier 02:30
    weekend_sat = Calendar.from_text("Europe/Zagreb", weekend=[6])
    assert due("2026-10-23T02:30+02:00", "24h@following", weekend_sat) == "2026-10-25T02:30:00+02:00"


def test_a_rolled_wall_time_in_a_dst_gap_moves_forward():
    # weekend Saturday only: Saturday 2026-03-28 02:30 rolls to Sunday 03-29, whose 02:30 does not exist
    weekend_sat = Calendar.from_text("Europe/Zagreb", weekend=[6])
    assert due("2026-03-27T02:30+01:00", "P1D@following", weekend_sat) == "2026-03-29T03:30:00+02:00"


def test_modified_following_keeps_the_month_across_a_holiday_next_to_a_weekend():
    # 2026-05-30 Sat, 05-31 Sun; with 05-29 a holiday the modified roll goes back to Thursday 05-28
    cal = Calendar.from_text("Europe/Zagreb", holidays=[("2026-05-29", "Bridge day")])
    assert due("2026-04-30T10:00+02:00", "P1M@modified-following", cal) == "2026-05-28T10:00:00+02:00"
    assert due("2026-04-30T10:00+02:00", "P1M@following", cal) == "2026-06-01T10:00:00+02:00"


def test_a_modified_roll_leaves_the_month_when_it_has_no_business_day_that_way():
    # the whole of 2026-02 from the 15th on is closed: preceding stays in February
    closed = [(f"2026-02-{d:02d}", "Closed") for d in range(16, 29)]
    cal = Calendar.from_text("Europe/Zagreb", holidays=closed)
    assert due("2026-01-28T10:00+01:00", "P1M@modified-following", cal) == "2026-02-13T10:00:00+01:00"
    # the whole month closed: modified-following rolls back into January (preceding, literally)
    closed = [(f"2026-02-{d:02d}", "Closed") for d in range(1, 29)]
    cal = Calendar.from_text("Europe/Zagreb", holidays=closed)
    assert due("2026-01-28T10:00+01:00", "P1M@modified-following", cal) == "2026-01-30T10:00:00+01:00"
    assert due("2026-01-28T10:00+01:00", "P1M@modified-preceding", cal) == "2026-03-02T10:00:00+01:00"


def test_open_and_close_name_the_final_dates_own_intervals():
    # a night shift Monday 22:00–06:00: close is on the next date
    nights = Calendar.from_text("UTC", working_hours=[(d, [("22:00", "06:00")]) for d in range(1, 6)])
    assert due("2026-11-28T10:00Z", "P0D@following@close", nights) == "2026-12-01T06:00:00+00:00"
    assert due("2026-11-28T10:00Z", "P0D@following@open", nights) == "2026-11-30T22:00:00+00:00"


def test_open_or_close_on_a_date_without_own_intervals_is_refused():
    # working hours for Monday–Thursday only: Friday is a business day with none
    short = Calendar.from_text("UTC", working_hours=[(d, [("09:00", "17:00")]) for d in range(1, 5)])
    field, text = refusal("2026-11-26T10:00Z", "P1D@following@close", short)
    assert field == "duration"
    assert text == "'P1D@following@close': 2026-11-27 is a business day with no working hours to close at"


@pytest.mark.parametrize("duration, message", [
    ("2bd@following", "'2bd@following': business days already land on a business day, so they take no roll; "
                      "write only the time, e.g. '2bd@end'"),
    ("2bd@following@end", "'2bd@following@end': business days already land on a business day, so they take no "
                          "roll; write only the time, e.g. '2bd@end'"),
    ("8bh@following", "'8bh@following': business hours already count open time, so they take no landing rule "
                      "('@' follows business days, elapsed or ISO 8601 durations)"),
    ("P1M@close", "'P1M@close': a landing time after an elapsed or ISO 8601 duration needs a roll before it, "
                  "e.g. 'P1M@following@close'"),
    ("14d@16:00", "'14d@16:00': a landing time after an elapsed or ISO 8601 duration needs a roll before it, "
                  "e.g. '14d@following@16:00'"),
    ("P1M@following@24:00", "'24:00' at position 15 of 'P1M@following@24:00': the end of the day is written 'end' "
                            "(24:00 is the next date's 00:00)"),
    ("1bd@24:00", "'24:00' at position 5 of '1bd@24:00': the end of the day is written 'end' "
                  "(24:00 is the next date's 00:00)"),
    ("P1M@next", "'next' at position 5 of 'P1M@next' is not a roll; write one of 'following', 'preceding', "
                 "'modified-following', 'modified-preceding'"),
    ("P1M@Folowing", "'Folowing' at position 5 of 'P1M@Folowing' is not a roll; write one of 'following', "
                     "'preceding', 'modified-following', 'modified-preceding'"),
    ("P1M@following@noon", "'noon' at position 15 of 'P1M@following@noon' is not a local time HH:MM "
                           "(00:00..23:59), 'open', 'close' or 'end'"),
    ("P1M@following@end@x", "'P1M@following@end@x' has more than two '@'; write DURATION@ROLL@TIME, "
                            "e.g. 'P2W@following@end'"),
    ("P1M@", "'P1M@': nothing after the '@' at position 4 (write a roll such as 'following', or a time such as "
             "'16:00' or 'end')"),
    ("@following", "'@following': write a duration before '@', e.g. '1bd@16:00' or 'P1M@following'"),
    ("1bd@end@end", "'1bd@end@end': a business-day duration takes one landing time, not two; write e.g. '1bd@end'"),
    ("1bd@16:00@end", "'1bd@16:00@end': a business-day duration takes one landing time, not two; write e.g. "
                      "'1bd@16:00'"),
    ("P1M @following", "whitespace inside a duration is not allowed at position 4 of 'P1M @following'"),
    ("1bd @16:00", "whitespace inside a duration is not allowed at position 4 of '1bd @16:00'"),
    ("P1M@following@\tend", "whitespace inside a duration is not allowed at position 15 of 'P1M@following@\\tend'"),
])
def test_rules_that_are_refused(duration, message):
    with pytest.raises(InvalidArgument) as e:
        parse_duration(duration)
    (v,) = e.value.violations
    assert (v.field, v.description) == ("duration", message)


def test_a_nominal_duration_past_the_range_names_the_year_it_reaches():
    for duration, message in [("P200Y@following", "the result falls in the year 2226, after the supported range's "
                                                  "end 2199-12-31"),
                              ("-P200Y", "the result falls in the year 1826, before the supported range's start "
                                         "1900-01-01")]:
        with pytest.raises(OutOfRange) as e:
            compute_due(parse_instant("2026-01-01T10:00Z", "start"), duration, ZAGREB)
        assert [(v.field, v.description) for v in e.value.violations] == [("duration", message)]


def test_a_rolled_date_past_the_range_is_out_of_range():
    # 2199-12-31 is a Tuesday; with it a holiday, following leaves the range
    cal = Calendar.from_text("UTC", holidays=[("2199-12-31", "")])
    field, text = refusal("2199-12-30T10:00Z", "P1D@following", cal, OutOfRange)
    assert field == "duration" and "2199-12-31" in text
    assert due("2199-12-30T10:00Z", "P1D@preceding", cal) == "2199-12-30T10:00:00+00:00"


def test_a_roll_that_looks_past_the_known_holidays_is_out_of_range():
    cal = Calendar.from_text("UTC", holidays=[("2026-12-25", "")], holidays_valid_until="2026-12-31")
    # Thursday 2026-12-31 + P2D = Saturday 2027-01-02: not known
    with pytest.raises(OutOfRange) as e:
        compute_due(parse_instant("2026-12-31T10:00Z", "start"), "P2D@preceding", cal)
    (v,) = e.value.violations
    assert v.field == "calendar.holidays_valid_until"
    assert v.description == ("the answer depends on 2027-01-02, after the dates the calendar's holidays cover "
                             "(holidays known until 2026-12-31)")


@pytest.mark.parametrize("target", ["P1M@following", "14d@following", "14d@following@close", "1bd@end"])
def test_a_duration_with_a_landing_rule_is_no_clock_target(target):
    with pytest.raises(InvalidArgument) as e:
        start_clock(target, to_us(parse_instant("2026-01-30T10:00Z", "start")), ZAGREB)
    (v,) = e.value.violations
    base = target.split("@")[0]
    assert (v.field, v.description) == (
        "target", f"{target!r} cannot be a clock target: a clock measures the time left, and a landing rule "
                  f"('@…') has no measure to count it in; give the duration alone ('{base}'), or compute the "
                  "rolled deadline with ComputeDueTime or a schedule")


def test_the_parsed_rule():
    d = parse_duration("14d@modified-following@close")
    assert (d.roll, d.at_edge, d.at_time, d.micros) == (Roll.MODIFIED_FOLLOWING, "close", None, 14 * 86_400_000_000)
    d = parse_duration("-P1M@preceding@16:30")
    assert (d.roll, d.at_time, d.nominal.months) == (Roll.PRECEDING, (16 * 60 + 30) * 60_000_000, -1)
    assert parse_duration("1bd@end").at_edge == "end" and parse_duration("1bd@end").roll is None


# ---- explanations


def test_the_explanation_says_what_rolled_and_why():
    steps = due_answer(parse_instant("2026-01-30T10:00+01:00", "start"), "P1M@following", ZAGREB,
                       explain=True).steps
    texts = [(s.kind, s.text) for s in steps]
    assert ("note", "without the landing rule the due time is 2026-02-28T10:00:00+01:00 (Saturday 2026-02-28)") in texts
    assert ("roll", "Saturday 2026-02-28 is a weekend day: rolled to Monday 2026-03-02 "
                    "(following: the first business day after it)") in texts
    assert texts[-1] == ("due", "Due 2026-03-02T10:00:00+01:00 (Monday 2026-03-02) = 2026-03-02T09:00:00Z")


def test_the_explanation_names_the_holiday_and_the_modified_convention():
    steps = due_answer(parse_instant("2026-12-11T12:00+01:00", "start"), "P2W@following@end", ZAGREB,
                       explain=True).steps
    texts = [s.text for s in steps if s.kind == "roll"]
    assert texts == ["Friday 2026-12-25 is a holiday (Christmas Day): rolled to Monday 2026-12-28 "
                     "(following: the first business day after it)"]
    steps = due_answer(parse_instant("2026-01-30T10:00+01:00", "start"), "P1M@modified-following", ZAGREB,
                       explain=True).steps
    assert [s.text for s in steps if s.kind == "roll"] == [
        "Saturday 2026-02-28 is a weekend day: the following business day, Monday 2026-03-02, is in another "
        "month, so rolled to Friday 2026-02-27 (modified-following)"]
    steps = due_answer(parse_instant("2026-12-10T12:00+01:00", "start"), "P2W@following@end", ZAGREB,
                       explain=True).steps
    assert [s.text for s in steps if s.kind == "roll"] == [
        "Thursday 2026-12-24 is a business day: not rolled (following)"]


def test_the_explanation_of_a_roll_after_a_dst_gap_and_of_a_month_without_business_days():
    """docs/semantics.md §15: the rolled due time keeps the unrolled instant's
    wall time (03:30 after Sunday's gap), and a modified roll that leaves the
    month says that the other way is closed too."""
    zagreb_weekends = Calendar.from_text("Europe/Zagreb")
    answer = due_answer(parse_instant("2026-03-28T02:30+01:00", "start"), "P1D@following", zagreb_weekends,
                        explain=True)
    assert from_us(answer.due_us).isoformat() == "2026-03-30T01:30:00+00:00"
    texts = [(s.kind, s.text) for s in answer.steps]
    assert texts[3:7] == [
        ("note", "without the landing rule the due time is 2026-03-29T03:30:00+02:00 (Sunday 2026-03-29)"),
        ("resolve", "02:30 on 2026-03-29 does not exist (DST gap): moved forward by the gap's length to 03:30 "
                    "(SPEC §1)"),
        ("roll", "Sunday 2026-03-29 is a weekend day: rolled to Monday 2026-03-30 "
                 "(following: the first business day after it)"),
        ("note", "the rolled due time keeps the unrolled due time's wall time 03:30:00"),
    ]
    closed_february = Calendar.from_text("Europe/Zagreb", week_periods=[
        ("2026-02-01", list(range(1, 8)), None), ("2026-03-01", None, None)])
    steps = due_answer(parse_instant("2026-01-15T10:00+01:00", "start"), "P1M@modified-following",
                       closed_february, explain=True).steps
    assert [s.text for s in steps if s.kind == "roll"] == [
        "Sunday 2026-02-15 is a weekend day: the following business day, Monday 2026-03-02, is in another month, "
        "and no business day precedes it in its month either, so rolled to Friday 2026-01-30 (modified-following)"]


def test_the_explanation_of_nbd_at_end_counts_to_the_business_day():
    steps = due_answer(parse_instant("2026-12-24T09:00+01:00", "start"), "1bd@end", ZAGREB, explain=True).steps
    assert [s.text for s in steps if s.kind == "count"] == ["Monday 2026-12-28: business day 1 of 1"]


# ---- on the wire


def _start(text: str):
    request = pb.ComputeDueTimeRequest()
    request.start.FromJsonString(parse_instant(text, "start").isoformat().replace("+00:00", "Z"))
    return request.start


def _ask(duration: str, **fields) -> pb.ComputeDueTimeResponse:
    return compute(pb.ComputeDueTimeRequest(start=_start("2026-01-30T10:00+01:00"), duration=duration,
                                            calendar=ZAGREB_MSG, **fields))


def _wire_violations(duration: str, **fields) -> list[tuple[str, str]]:
    with pytest.raises(InvalidArgument) as e:
        _ask(duration, **fields)
    return [(v.field, v.description) for v in e.value.violations]


@pytest.mark.parametrize("duration, fields, expected", [
    ("P1M", {"roll": pb.ROLL_FOLLOWING}, "2026-03-02T10:00:00+01:00"),
    ("P1M", {"roll": pb.ROLL_MODIFIED_FOLLOWING}, "2026-02-27T10:00:00+01:00"),
    ("P1M", {"roll": pb.ROLL_FOLLOWING, "landing_time": "end"}, "2026-03-03T00:00:00+01:00"),
    ("P1M", {"roll": pb.ROLL_PRECEDING, "landing_time": "close"}, "2026-02-27T17:00:00+01:00"),
    ("P1M@following", {}, "2026-03-02T10:00:00+01:00"),
    ("1bd", {"landing_time": "end"}, "2026-02-03T00:00:00+01:00"),
    ("1bd", {"landing_time": "16:00"}, "2026-02-02T16:00:00+01:00"),
    ("P1M", {}, "2026-02-28T10:00:00+01:00"),
])
def test_the_fields_give_what_the_text_gives(duration, fields, expected):
    assert _ask(duration, **fields).due_local == expected


def test_text_and_fields_must_not_both_give_a_rule():
    assert _wire_violations("P1M@following", roll=pb.ROLL_PRECEDING) == [
        ("duration", "'P1M@following' has a landing rule and roll gives one too; give it in one place: "
                     "in the text or in roll"),
        ("roll", "is given while duration 'P1M@following' has its own landing rule; leave it unset or remove "
                 "the '@…' from the text"),
    ]
    assert [f for f, _ in _wire_violations("1bd@16:00", landing_time="end")] == ["duration", "landing_time"]
    assert [f for f, _ in _wire_violations("P1M@following", roll=pb.ROLL_FOLLOWING, landing_time="end")] == [
        "duration", "roll", "landing_time"]


def test_fields_that_do_not_fit_the_duration_are_refused_on_their_field():
    assert _wire_violations("2bd", roll=pb.ROLL_FOLLOWING) == [
        ("roll", "'following' cannot roll duration '2bd': business days already land on a business day; "
                 "leave roll unset")]
    assert _wire_violations("8bh", roll=pb.ROLL_FOLLOWING) == [
        ("roll", "'following' cannot roll duration '8bh': business hours already count open time; leave roll unset")]
    assert _wire_violations("8bh", landing_time="end") == [
        ("landing_time", "'end' cannot follow duration '8bh': business hours already count open time; "
                         "leave landing_time unset")]
    assert _wire_violations("P1M", landing_time="close") == [
        ("landing_time", "'close' after the elapsed or ISO 8601 duration 'P1M' needs a roll: set roll too "
                         "(e.g. FOLLOWING)")]
    assert _wire_violations("P1M", roll=pb.ROLL_FOLLOWING, landing_time="24:00") == [
        ("landing_time", "'24:00': the end of the day is written 'end' (24:00 is the next date's 00:00)")]
    assert _wire_violations("P1M", roll=9) == [
        ("roll", "9 is not a Roll value (ROLL_FOLLOWING, ROLL_PRECEDING, ROLL_MODIFIED_FOLLOWING, "
                 "ROLL_MODIFIED_PRECEDING)")]


def test_an_unset_rule_leaves_the_request_bytes_as_they_were():
    request = pb.ComputeDueTimeRequest(start=_start("2026-01-30T10:00+01:00"), duration="P1M")
    assert b"\x38" not in request.SerializeToString()[-4:]  # no field 7 written
    assert pb.ComputeDueTimeRequest.FromString(request.SerializeToString()).roll == pb.ROLL_UNSPECIFIED


def test_a_schedule_deadline_takes_the_rule_as_text_or_fields():
    request = pb.ComputeScheduleRequest(
        entered_time=_start("2026-01-30T10:00+01:00"), calendar=ZAGREB_MSG,
        deadlines=[pb.DeadlineSpec(name="pay", duration="P1M@modified-following"),
                   pb.DeadlineSpec(name="remind", duration="P1M", roll=pb.ROLL_FOLLOWING, landing_time="09:30"),
                   pb.DeadlineSpec(name="close", duration="1bd", landing_time="end", after="pay")])
    answer = APP.answer(convert.SCHEDULE, request)
    assert [(d.name, d.due_local) for d in answer.deadlines] == [
        ("pay", "2026-02-27T10:00:00+01:00"), ("remind", "2026-03-02T09:30:00+01:00"),
        ("close", "2026-03-03T00:00:00+01:00")]
    assert answer.next_due == "pay"
    bad = pb.ComputeScheduleRequest(entered_time=_start("2026-01-30T10:00+01:00"), deadlines=[
        pb.DeadlineSpec(name="a", duration="2d"),
        pb.DeadlineSpec(name="b", duration="P1M@following", roll=pb.ROLL_FOLLOWING)])
    with pytest.raises(InvalidArgument) as e:
        APP.answer(convert.SCHEDULE, bad)
    assert [v.field for v in e.value.violations] == ["deadlines[1].duration", "deadlines[1].roll"]


def test_the_core_schedule_reads_the_text():
    answer = schedule(parse_instant("2026-01-30T10:00+01:00", "entered_time"),
                      [Deadline("pay", "P1M@following")], ZAGREB)
    assert format_local(from_us(answer.deadlines[0].due_us), ZAGREB) == "2026-03-02T10:00:00+01:00"


@pytest.fixture(scope="module")
def client():
    return Client(http.create_app(build_app(MemoryLedger(), Catalog.load(CALENDARS))))


def test_http_takes_the_fields_by_their_json_names_and_short_enum_names(client):
    calendar = json_format.MessageToDict(ZAGREB_MSG)
    for roll in ("modified-following", "MODIFIED_FOLLOWING", "ROLL_MODIFIED_FOLLOWING", 3):
        response = client.post("/v1/dueTimes:compute", {"start": "2026-01-30T10:00+01:00", "duration": "P1M",
                                                        "roll": roll, "calendar": calendar})
        assert response.status_code == 200, response.text
        assert response.json()["dueLocal"] == "2026-02-27T10:00:00+01:00"
    response = client.post("/v1/dueTimes:compute", {"start": "2026-12-11T12:00+01:00", "duration": "P2W",
                                                    "roll": "following", "landingTime": "end",
                                                    "calendar": calendar, "explain": True})
    body = response.json()
    assert body["dueLocal"] == "2026-12-29T00:00:00+01:00"
    assert [s["text"] for s in body["explanation"] if s["kind"] == "roll"] == [
        "Friday 2026-12-25 is a holiday (Christmas Day): rolled to Monday 2026-12-28 "
        "(following: the first business day after it)"]


def test_http_refuses_both_with_both_fields_named(client):
    response = client.post("/v1/dueTimes:compute", {"start": "2026-01-30T10:00+01:00",
                                                    "duration": "P1M@following", "roll": "preceding"})
    assert response.status_code == 400, response.text
    (bad_request,) = [d for d in response.json()["error"]["details"] if d["@type"].endswith("BadRequest")]
    assert [v["field"] for v in bad_request["fieldViolations"]] == ["duration", "roll"]
    response = client.post("/v1/dueTimes:compute", {"start": "2026-01-30T10:00+01:00", "duration": "P1M",
                                                    "roll": "sideways"})
    assert response.status_code == 400
    assert "'sideways' is not a value of Roll; write one of FOLLOWING, PRECEDING, MODIFIED_FOLLOWING, " \
           "MODIFIED_PRECEDING" in response.text


def test_a_batch_item_carries_its_own_rule(client):
    response = client.post("/v1/dueTimes:batchCompute", {"items": [
        {"start": "2026-01-30T10:00+01:00", "duration": "P1M", "roll": "following",
         "calendar": {"timeZone": "Europe/Zagreb"}},
        {"start": "2026-01-30T10:00+01:00", "duration": "P1M@following", "roll": "following"},
    ]})
    assert response.status_code == 200, response.text
    first, second = response.json()["results"]
    assert first["response"]["dueLocal"] == "2026-03-02T10:00:00+01:00"
    assert second["error"]["code"] == 3  # INVALID_ARGUMENT


# ---- the command line


def test_cli_due_reads_the_rule_in_the_text_and_as_flags(capsys):
    from duetime.cli import main
    assert main(["due", "2026-01-30T10:00+01:00", "P1M@modified-following", "--tz", "Europe/Zagreb"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "due:       2026-02-27T10:00:00+01:00 (Europe/Zagreb)"
    assert main(["due", "2026-01-30T10:00+01:00", "P1M", "--tz", "Europe/Zagreb", "--roll", "following",
                 "--landing-time", "end"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "due:       2026-03-03T00:00:00+01:00 (Europe/Zagreb)"


def test_cli_schedule_reads_a_rule_before_after(capsys):
    from duetime.cli import main
    assert main(["schedule", "2026-01-30T10:00+01:00", "--tz", "Europe/Zagreb", "--deadline", "pay=P1M@following",
                 "--deadline", "close=1bd@end@after:pay", "--json"]) == 0
    deadlines = json.loads(capsys.readouterr().out)["deadlines"]
    assert [(d["name"], d["dueLocal"]) for d in deadlines] == [
        ("pay", "2026-03-02T10:00:00+01:00"), ("close", "2026-03-04T00:00:00+01:00")]


def test_json_names_of_the_new_fields():
    request = pb.ComputeDueTimeRequest(duration="P1M", roll=pb.ROLL_FOLLOWING, landing_time="end")
    assert json.loads(convert.message_json(request))["roll"] == "ROLL_FOLLOWING"
    assert json.loads(convert.message_json(request))["landingTime"] == "end"


def test_the_fields_and_the_text_are_one_request_under_one_key():
    """A landing rule given in the fields is recorded as the text gives it,
    so a retry in the other form is the same request (docs/semantics.md §12)."""
    from datetime import datetime, timezone

    app = build_app(MemoryLedger())
    at = datetime(2026, 1, 30, 9, tzinfo=timezone.utc)
    by_fields = pb.ComputeDueTimeRequest(start=_start("2026-01-30T10:00+01:00"), duration="P1M",
                                         roll=pb.ROLL_FOLLOWING, landing_time="end",
                                         calendar=ZAGREB_MSG, idempotency_key="k-1")
    by_text = pb.ComputeDueTimeRequest(start=_start("2026-01-30T10:00+01:00"),
                                       duration="P1M@following@end", calendar=ZAGREB_MSG,
                                       idempotency_key="k-1")
    first = app.call(convert.DUE_TIME, by_fields, at)
    again = app.call(convert.DUE_TIME, by_text, at)
    assert (first.due_local, again.record_id) == ("2026-03-03T00:00:00+01:00", first.record_id)
    stored = pb.ComputeDueTimeRequest.FromString(app.get_record(first.record_id).request)
    assert (stored.duration, stored.roll, stored.landing_time) == (
        "P1M@following@end", pb.ROLL_UNSPECIFIED, "")
    schedule_fields = pb.ComputeScheduleRequest(
        entered_time=_start("2026-01-30T10:00+01:00"), calendar=ZAGREB_MSG, idempotency_key="k-2",
        deadlines=[pb.DeadlineSpec(name="pay", duration="P1M", roll=pb.ROLL_FOLLOWING)])
    schedule_text = pb.ComputeScheduleRequest(
        entered_time=_start("2026-01-30T10:00+01:00"), calendar=ZAGREB_MSG, idempotency_key="k-2",
        deadlines=[pb.DeadlineSpec(name="pay", duration="P1M@following")])
    assert app.call(convert.SCHEDULE, schedule_fields, at).record_id == \
        app.call(convert.SCHEDULE, schedule_text, at).record_id
