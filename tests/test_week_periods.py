"""Weeks that change by date (docs/semantics.md §16): the examples, the
checks of a declaration, bundles, the wire and GetCalendar's form."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from google.protobuf import json_format

from duetime.api.convert import calendar_from_proto, calendar_to_proto
from duetime.bundles import BundleStore, compile_all, diff_versions
from duetime.bundles.compiler import read_compiled
from duetime.cli import main
from duetime.core import (
    Calendar,
    InvalidArgument,
    business_time,
    compute_due,
    format_local,
    open_status,
    parse_instant,
)
from duetime.core.calendar import CalendarLimits
from duetime.core.periods import count_business_days, open_periods
from duetime.v1 import duetime_pb2 as pb
from local_app import compute

H = 3_600_000_000
EIGHT_TO_SIX = [(d, [("08:00", "18:00")]) for d in range(1, 6)]
#: Europe/Zagreb, 09:00–17:00 Monday–Friday, and from 2027-03-01 08:00–18:00 Monday–Friday.
SUMMER = Calendar.from_text("Europe/Zagreb", week_periods=[("2027-03-01", None, EIGHT_TO_SIX)])


def at(text: str):
    return parse_instant(text, "t")


def local(dt, cal=SUMMER) -> str:
    return format_local(dt, cal)


# --- the examples ------------------------------------------------------------------

def test_two_business_hours_from_friday_reach_the_new_week():
    assert local(compute_due(at("2027-02-26T16:00:00+01:00"), "+2bh", SUMMER)) == "2027-03-01T09:00:00+01:00"


def test_business_time_over_the_boundary_is_18_hours():
    bt = business_time(at("2027-02-26T00:00:00+01:00"), at("2027-03-02T00:00:00+01:00"), SUMMER)
    assert bt.open_us == 18 * H


def test_backwards_over_the_boundary():
    assert local(compute_due(at("2027-03-01T09:00:00+01:00"), "-2bh", SUMMER)) == "2027-02-26T16:00:00+01:00"
    # two hours of Monday's 08:00–10:00, then Friday's eight
    assert local(compute_due(at("2027-03-01T10:00:00+01:00"), "-10bh", SUMMER)) == "2027-02-26T09:00:00+01:00"
    assert local(compute_due(at("2027-03-01T10:00:00+01:00"), "-11bh", SUMMER)) == "2027-02-25T16:00:00+01:00"


def test_open_status_follows_the_week_in_force():
    assert not open_status(at("2027-02-26T08:30:00+01:00"), SUMMER).is_open
    s = open_status(at("2027-03-01T08:30:00+01:00"), SUMMER)
    assert s.is_open and local_us(s.interval[0]) == "2027-03-01T08:00:00+01:00"
    assert local_us(s.interval[1]) == "2027-03-01T18:00:00+01:00"


def local_us(us: int) -> str:
    from duetime.core import from_us
    return local(from_us(us))


def test_a_period_without_weekend_or_hours_gets_the_defaults_not_the_previous_week():
    cal = Calendar.from_text("UTC", weekend=[7], working_hours=[(d, [("06:00", "22:00")]) for d in range(1, 7)],
                             week_periods=[("2027-03-01", None, None)])
    # Saturday 2027-03-06 is a weekend day again, and Monday has 09:00–17:00
    assert compute_due(at("2027-03-05T10:00:00Z"), "1bd", cal) == at("2027-03-08T10:00:00Z")
    assert compute_due(at("2027-03-01T05:00:00Z"), "1bh", cal) == at("2027-03-01T10:00:00Z")
    # before the period, the calendar's own week: Saturday open 06:00–22:00
    assert compute_due(at("2027-02-26T21:00:00Z"), "2bh", cal) == at("2027-02-27T07:00:00Z")


def test_a_season_closed_between_two_periods():
    cal = Calendar.from_text("UTC", week_periods=[("2027-07-01", list(range(1, 8)), None), ("2027-09-01", None, None)])
    assert compute_due(at("2027-06-30T16:00:00Z"), "2bh", cal) == at("2027-09-01T10:00:00Z")
    assert compute_due(at("2027-06-30T10:00:00Z"), "1bd", cal) == at("2027-09-01T10:00:00Z")
    assert compute_due(at("2027-09-01T10:00:00Z"), "-1bd", cal) == at("2027-06-30T10:00:00Z")
    assert business_time(at("2027-06-01T00:00:00Z"), at("2027-10-01T00:00:00Z"), cal).open_us == (22 + 22) * 8 * H  # June and September, 22 weekdays each
    assert count_business_days(cal.compiled, at("2027-07-01T00:00:00Z").date().toordinal(),
                               at("2027-08-31T00:00:00Z").date().toordinal()) == 0
    assert open_status(at("2027-07-05T10:00:00Z"), cal).reason == "weekend"


def test_an_extra_working_day_takes_its_hours_from_the_period():
    cal = Calendar.from_text("UTC", extra_working_days=[("2027-03-06", "Stock-taking")],
                             week_periods=[("2027-03-01", None, EIGHT_TO_SIX)])
    # the extra Saturday gets Monday's hours of the period in force: 08:00–18:00
    assert compute_due(at("2027-03-06T00:00:00Z"), "10bh", cal) == at("2027-03-06T18:00:00Z")


def test_an_overnight_interval_runs_into_the_next_period():
    night = [(d, [("22:00", "06:00")]) for d in range(1, 6)]
    cal = Calendar.from_text("UTC", working_hours=night, week_periods=[("2027-03-06", [], [(d, [("00:00", "04:00")]) for d in range(1, 8)])])
    # Friday 2027-03-05 22:00–06:00 overlaps Saturday's own 00:00–04:00: counted once
    bt = business_time(at("2027-03-05T22:00:00Z"), at("2027-03-07T00:00:00Z"), cal)
    assert bt.open_us == 8 * H
    assert compute_due(at("2027-03-05T22:00:00Z"), "8bh", cal) == at("2027-03-06T06:00:00Z")
    assert compute_due(at("2027-03-05T22:00:00Z"), "9bh", cal) == at("2027-03-07T01:00:00Z")


def test_open_periods_cross_the_boundary():
    page = open_periods(SUMMER.compiled, int(at("2027-02-26T00:00:00+01:00").timestamp() * 1e6),
                        int(at("2027-03-02T00:00:00+01:00").timestamp() * 1e6), 10)
    assert [(local_us(p.start_us), local_us(p.end_us)) for p in page.periods] == [
        ("2027-02-26T09:00:00+01:00", "2027-02-26T17:00:00+01:00"),
        ("2027-03-01T08:00:00+01:00", "2027-03-01T18:00:00+01:00"),
    ]


# --- the checks --------------------------------------------------------------------

def test_periods_out_of_order_name_the_period():
    with pytest.raises(InvalidArgument) as e:
        Calendar.from_text(week_periods=[("2027-03-01", None, None), ("2027-03-01", None, None),
                                         ("2027-01-01", None, None)])
    assert [(v.field, v.description) for v in e.value.violations] == [
        ("calendar.week_periods[1].from_date", "week period 1 starts 2027-03-01, not after week period 0 "
                                               "(2027-03-01); list week periods in strictly increasing from_date order"),
        ("calendar.week_periods[2].from_date", "week period 2 starts 2027-01-01, not after week period 0 "
                                               "(2027-03-01); list week periods in strictly increasing from_date order"),
    ]


def test_the_last_period_must_leave_a_day_open():
    with pytest.raises(InvalidArgument) as e:
        Calendar.from_text(week_periods=[("2027-03-01", list(range(1, 8)), None)])
    assert e.value.violations[0].field == "calendar.week_periods[0].weekend.days"


def test_hours_on_a_period_weekend_day_are_refused():
    with pytest.raises(InvalidArgument) as e:
        Calendar.from_text(week_periods=[("2027-03-01", [6, 7], [(6, [("09:00", "12:00")])])])
    assert e.value.violations[0].field == "calendar.week_periods[0].working_hours.days[0].weekday"


def test_a_bad_date_and_the_limit():
    with pytest.raises(InvalidArgument) as e:
        Calendar.from_text(week_periods=[("2027-02-30", None, None)])
    assert e.value.violations[0].field == "calendar.week_periods[0].from_date"
    with pytest.raises(InvalidArgument) as e:
        Calendar.from_text(week_periods=[(f"2027-01-{d:02d}", None, None) for d in range(1, 4)],
                           limits=CalendarLimits(max_week_periods=2))
    assert e.value.violations[0].field == "calendar.week_periods"
    assert "3 week periods given; at most 2" in e.value.violations[0].description


def test_a_calendar_without_periods_keeps_its_version():
    assert "week_periods" not in Calendar.from_text("Europe/Zagreb").canonical()
    assert SUMMER.canonical()["week_periods"] == [
        {"from": "2027-03-01", "weekend": [6, 7], "working_hours": {str(d): [["08:00", "18:00"]] for d in range(1, 6)}}]


def test_business_time_arithmetic_needs_some_week_with_hours():
    empty = [(d, []) for d in range(1, 6)]
    cal = Calendar.from_text("UTC", working_hours=empty, week_periods=[("2027-03-01", None, empty)])
    with pytest.raises(InvalidArgument):
        compute_due(at("2027-03-01T10:00:00Z"), "1bh", cal)
    assert compute_due(at("2027-03-01T10:00:00Z"), "0bh", cal) == at("2027-03-01T10:00:00Z")
    later = Calendar.from_text("UTC", working_hours=empty, week_periods=[("2027-03-01", None, None)])
    assert compute_due(at("2027-02-20T10:00:00Z"), "1bh", later) == at("2027-03-01T10:00:00Z")


# --- flat in the amount across boundaries ------------------------------------------------

def test_2000_business_hours_across_many_boundaries_is_fast_and_exact():
    periods = [(f"{y}-{m:02d}-01", None, EIGHT_TO_SIX if m % 2 else None) for y in (2027, 2028) for m in range(1, 13)]
    cal = Calendar.from_text("Europe/Zagreb", week_periods=periods)
    start = at("2026-12-28T09:00:00+01:00")
    due = compute_due(start, "2000bh", cal)
    assert business_time(start, due, cal).open_us == 2000 * H
    t0 = time.perf_counter()
    for _ in range(50):
        compute_due(start, "2000bh", cal)
        compute_due(start, "5000bd", cal)
    assert time.perf_counter() - t0 < 2.0


# --- bundles ------------------------------------------------------------------------

BUNDLE = ('description = "ACME Zagreb"\ntime_zone = "Europe/Zagreb"\nyears = [2026, 2028]\n'
          '[holidays]\ncountry = "HR"\nlanguage = "en_US"\n')
PERIOD = '[[week_periods]]\nfrom = "2027-03-01"\n[week_periods.working_hours]\n"mon-fri" = ["08:00-18:00"]\n'


def test_a_bundle_declares_week_periods(tmp_path):
    src = tmp_path / "calendars"
    src.mkdir()
    (src / "acme.toml").write_text(BUNDLE)
    (v1,) = compile_all(src)
    (src / "acme.toml").write_text(BUNDLE + PERIOD)
    (v2,) = compile_all(src)
    assert v1.version != v2.version
    cal = BundleStore.load(src).resolve("acme").calendar
    assert local(compute_due(at("2027-02-26T16:00:00+01:00"), "+2bh", cal), cal) == "2027-03-01T09:00:00+01:00"
    assert diff_versions(read_compiled(src, "acme", v1.version), read_compiled(src, "acme", v2.version)) == [
        "+ week from 2027-03-01: weekend Saturday, Sunday; Monday 08:00–18:00; Tuesday 08:00–18:00; "
        "Wednesday 08:00–18:00; Thursday 08:00–18:00; Friday 08:00–18:00"]


def test_a_bundle_without_periods_keeps_its_version(tmp_path):
    src = tmp_path / "calendars"
    src.mkdir()
    (src / "acme.toml").write_text(BUNDLE)
    (a,) = compile_all(src)
    assert "week_periods" not in read_compiled(src, "acme", a.version)["calendar"]


def test_bundle_periods_out_of_order_are_refused(tmp_path):
    src = tmp_path / "calendars"
    src.mkdir()
    (src / "acme.toml").write_text(BUNDLE + PERIOD + '[[week_periods]]\nfrom = "2027-01-01"\n')
    with pytest.raises(ValueError, match=r"acme.week_periods\[1\].from: week period 1 starts 2027-01-01"):
        compile_all(src)


# --- the wire ----------------------------------------------------------------------------

WIRE = {
    "timeZone": "Europe/Zagreb",
    "weekPeriods": [{"fromDate": "2027-03-01",
                     "workingHours": {"days": [{"weekday": d, "intervals": [{"start": "08:00", "end": "18:00"}]}
                                               for d in ("WEEKDAY_MONDAY", "WEEKDAY_TUESDAY", "WEEKDAY_WEDNESDAY", "WEEKDAY_THURSDAY", "WEEKDAY_FRIDAY")]}}],
}


def test_the_json_form_gives_the_same_calendar():
    message = json_format.ParseDict(WIRE, pb.Calendar())
    assert calendar_from_proto(message) == SUMMER
    assert calendar_from_proto(calendar_to_proto(SUMMER)) == SUMMER
    assert calendar_to_proto(SUMMER).week_periods[0].from_date == "2027-03-01"


def test_compute_due_over_the_wire():
    request = pb.ComputeDueTimeRequest(duration="2bh", calendar=json_format.ParseDict(WIRE, pb.Calendar()))
    request.start.FromJsonString("2027-02-26T15:00:00Z")
    assert compute(request).due_local == "2027-03-01T09:00:00+01:00"


def test_a_wire_period_out_of_order_names_the_period():
    wire = dict(WIRE, weekPeriods=WIRE["weekPeriods"] + [{"fromDate": "2027-02-01"}])
    with pytest.raises(InvalidArgument) as e:
        calendar_from_proto(json_format.ParseDict(wire, pb.Calendar()))
    assert e.value.violations[0].field == "calendar.week_periods[1].from_date"


def test_week_periods_beside_a_bundle_are_refused():
    request = pb.ComputeDueTimeRequest(duration="2bh", calendar=pb.Calendar(
        bundle="hr-zagreb", week_periods=[pb.WeekPeriod(from_date="2027-03-01")]))
    request.start.FromJsonString("2027-02-26T15:00:00Z")
    with pytest.raises(InvalidArgument) as e:
        compute(request)
    assert e.value.violations[0].field == "calendar.week_periods"


# --- the command line ----------------------------------------------------------------------

def test_the_week_period_flag():
    import subprocess
    import sys
    result = subprocess.run([sys.executable, "-m", "duetime", "due", "2027-02-26T16:00+01:00", "2bh", "--tz",
                             "Europe/Zagreb", "--week-period", "2027-03-01: mon-fri 08:00-18:00"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[0] == "due:       2027-03-01T09:00:00+01:00 (Europe/Zagreb)"


def test_week_period_specs():
    from duetime.cli import parse_week_period
    p = parse_week_period("2027-07-01: weekend none; mon-sun 00:00-24:00")
    assert p.from_date == "2027-07-01" and p.HasField("weekend") and list(p.weekend.days) == []
    assert [d.weekday for d in p.working_hours.days] == list(range(1, 8))
    bare = parse_week_period("2027-09-01")
    assert not bare.HasField("weekend") and not bare.HasField("working_hours")
    closed = parse_week_period("2027-07-01: weekend mon-sun")
    assert list(closed.weekend.days) == list(range(1, 8)) and not closed.HasField("working_hours")
    with pytest.raises(InvalidArgument) as e:
        parse_week_period(": mon-fri 08:00-18:00")
    assert e.value.violations[0].field == "--week-period"
    with pytest.raises(InvalidArgument) as e:
        parse_week_period("2027-03-01: someday 08:00-18:00")
    assert e.value.violations[0].field == "--week-period"


def test_the_json_form_over_http_takes_short_weekday_names():
    from duetime.api.convert import request_from_json
    import json
    body = {"start": "2027-02-26T16:00+01:00", "duration": "2bh", "calendar": {
        "timeZone": "Europe/Zagreb",
        "weekPeriods": [{"fromDate": "2027-03-01", "workingHours": {"days": [
            {"weekday": "MONDAY", "intervals": [{"start": "08:00", "end": "18:00"}]}]}}]}}
    request = request_from_json(json.dumps(body), pb.ComputeDueTimeRequest())
    assert compute(request).due_local == "2027-03-01T09:00:00+01:00"  # one hour Friday, one from Monday 08:00


def test_impact_names_a_new_period_as_the_reason(tmp_path):
    from datetime import date

    from duetime.impact import _reasons
    src = tmp_path / "calendars"
    src.mkdir()
    (src / "acme.toml").write_text(BUNDLE)
    (v1,) = compile_all(src)
    (src / "acme.toml").write_text(BUNDLE + PERIOD)
    (v2,) = compile_all(src)
    store = BundleStore.load(src)
    old, new = store.resolve(f"acme@{v1.version}"), store.resolve(f"acme@{v2.version}")
    assert _reasons(old, new, date(2027, 2, 26), date(2027, 3, 1)) == [
        "week from 2027-03-01: weekend Saturday, Sunday; Monday 08:00–18:00; Tuesday 08:00–18:00; "
        f"Wednesday 08:00–18:00; Thursday 08:00–18:00; Friday 08:00–18:00 added in acme@{v2.version}"]
    assert _reasons(old, new, date(2027, 4, 1), date(2027, 4, 2)) != []  # the period holds on then
    assert _reasons(old, new, date(2027, 2, 1), date(2027, 2, 2)) == []


def test_explanations_and_clocks_follow_the_period():
    from duetime.core import ClockEvent, EventType, apply_event, start_clock, to_us
    answer = __import__("duetime.core", fromlist=["due_answer"]).due_answer(
        at("2027-02-26T16:00:00+01:00"), "2bh", SUMMER, explain=True)
    assert local_us(answer.due_us) == "2027-03-01T09:00:00+01:00"
    assert any("2027-03-01" in s.text for s in answer.steps)
    state = start_clock("2bd", to_us(at("2027-02-26T10:00:00+01:00")), SUMMER)
    paused = apply_event(state, ClockEvent(EventType.PAUSE, to_us(at("2027-02-26T22:00:00+01:00"))), SUMMER)
    assert paused.remaining_us == 36 * H  # Friday 22:00–24:00, Monday, Tuesday until 10:00 (business-day measure)


def test_the_typed_client_takes_week_periods_in_the_json_form():
    from duetime.client import calendar_of_mapping
    message = calendar_of_mapping({"timeZone": "Europe/Zagreb", "weekPeriods": WIRE["weekPeriods"]})
    assert calendar_from_proto(message) == SUMMER


def test_the_intervals_of_all_periods_are_bounded():
    with pytest.raises(InvalidArgument) as e:
        Calendar.from_text(week_periods=[(f"2027-01-{d:02d}", None, EIGHT_TO_SIX) for d in range(1, 4)],
                           limits=CalendarLimits(max_intervals=10))
    assert e.value.violations[0].field == "calendar.week_periods"
    assert e.value.violations[0].description.startswith("15 working intervals given in all by the week periods")


@pytest.mark.parametrize(("flags", "error"), [
    (["--week-period", "2026-02-01 mon-fri 08:00-18:00"],
     "error: --week-period: '2026-02-01 mon-fri 08:00-18:00': give FROM[: PART; PART ...], the date first and a "
     "':' before its parts, e.g. '2027-03-01: mon-fri 08:00-18:00' or '2027-07-01: weekend mon-sun'"),
    (["--week-period", "2026-02-01: foo"],
     "error: --week-period: 'foo' in '2026-02-01: foo' is neither 'weekend DAYS' nor hours such as "
     "'mon-fri 08:00-18:00'"),
    (["--week-period", "2026-02-01: weekend sat,sun", "--week-period", "2026-01-01"],
     "error: --week-period (the 2nd): week period 1 starts 2026-01-01, not after week period 0 (2026-02-01); "
     "list week periods in strictly increasing from_date order"),
])
def test_cli_week_period_refusals_name_the_flag(capsys, flags, error):
    assert main(["due", "2026-01-30T10:00+01:00", "3bd", "--tz", "Europe/Zagreb", *flags]) == 2
    assert capsys.readouterr().err.strip().splitlines()[-1] == error
