"""End to end: calendar bundles over gRPC — pinned and newest versions,
records naming them, extra inline holidays, a bundle's year range, the
CalendarService, and reloads (SIGHUP under load, a broken set refused,
``--watch``) — against real ``python -m duetime serve`` subprocesses, each on
its own copy of ``calendars/``. Exact values throughout."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import grpc
import pytest
from duetime.bundles import compile_all
from duetime.v1 import duetime_pb2 as pb
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import (
    ProtoReflectionDescriptorDatabase,
)
from server_process import CALENDARS, ServerProcess, start_server_fixture, ts  # noqa: F401
from test_e2e import failure

INVALID, OUT_OF_RANGE = grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.OUT_OF_RANGE
V1 = "f45226394a32"  # the shipped hr-zagreb version
# Friday 2026-11-27 16:00 Zagreb + 1bd: Monday 30th, unless the company day closes it.
START, OLD_DUE, NEW_DUE = "2026-11-27T15:00:00Z", "2026-11-30T16:00:00+01:00", "2026-12-01T16:00:00+01:00"
COMPANY_DAY = 'add = [{ date = "2026-11-30", name = "Company day" }]\n'


def copy_calendars(root: Path) -> Path:
    """A copy of the shipped calendars/ (sources, compiled bundles, policies)."""
    shutil.copytree(CALENDARS, root)
    return root


def add_company_day(root: Path) -> str:
    """Add a holiday to hr-zagreb's source and compile; return the new version."""
    source = root / "hr-zagreb.toml"
    source.write_text(source.read_text(encoding="utf-8") + COMPANY_DAY, encoding="utf-8")
    (new,) = [c for c in compile_all(root) if c.new]
    assert new.name == "hr-zagreb" and new.version != V1
    return new.version


def due(server: ServerProcess, bundle: str, start: str = START, duration: str = "1bd",
        holidays=(), **fields) -> pb.ComputeDueTimeResponse:
    request = pb.ComputeDueTimeRequest(
        duration=duration, calendar=pb.Calendar(bundle=bundle, holidays=holidays), **fields)
    request.start.FromJsonString(start)
    return server.stub.ComputeDueTime(request, timeout=10)


def violations(bad_request) -> list[tuple[str, str]]:
    return [(v.field, v.description) for v in bad_request.field_violations]


@pytest.fixture(scope="module")
def versioned(tmp_path_factory):
    """A server on a calendars copy holding hr-zagreb v1 and v2 (v2 adds the company day)."""
    root = copy_calendars(tmp_path_factory.mktemp("versioned") / "calendars")
    v2 = add_company_day(root)
    running = ServerProcess(root.parent / "ledger.db", root)
    try:
        yield running, v2
        assert running.terminate() == 0, "".join(running.stderr)
    finally:
        running.kill()


# ---- a version stays answerable after its source changes ---------------------------


def test_pinned_version_answers_the_old_way_and_the_bare_name_the_new(versioned):
    server, v2 = versioned
    pinned = due(server, f"hr-zagreb@{V1}")
    newest = due(server, "hr-zagreb")
    assert (pinned.due_local, pinned.calendar_version) == (OLD_DUE, f"hr-zagreb@{V1}")
    assert (newest.due_local, newest.calendar_version) == (NEW_DUE, f"hr-zagreb@{v2}")
    assert due(server, f"hr-zagreb@{v2}").due_local == NEW_DUE
    for answer, ref in ((pinned, f"hr-zagreb@{V1}"), (newest, "hr-zagreb")):
        record = server.stub.GetRecord(pb.GetRecordRequest(record_id=answer.record_id),
                                       timeout=10).record
        assert record.calendar_version == answer.calendar_version
        request = pb.ComputeDueTimeRequest()
        assert record.request.Unpack(request) and request.calendar.bundle == ref


def test_every_computing_rpc_takes_a_bundle(versioned):
    server, v2 = versioned
    calendar = pb.Calendar(bundle=f"hr-zagreb@{V1}")
    between = server.stub.ComputeBusinessTime(pb.ComputeBusinessTimeRequest(
        start_time=ts("2026-12-24T08:00:00Z"), end_time=ts("2026-12-28T09:00:00Z"),
        calendar=calendar), timeout=10)
    assert (between.business_time.seconds, between.business_days) == (9 * 3600, 1)  # Thursday 09–17, Monday 09–10
    status = server.stub.GetOpenStatus(pb.GetOpenStatusRequest(
        time=ts("2026-12-26T11:00:00Z"), calendar=calendar), timeout=10)
    assert (status.open, status.closed_reason, status.holiday_name) == (
        False, "holiday (Saint Stephen's Day)", "Saint Stephen's Day")
    assert status.calendar_version == f"hr-zagreb@{V1}"
    sched = server.stub.ComputeSchedule(pb.ComputeScheduleRequest(
        entered_time=ts(START), calendar=pb.Calendar(bundle="hr-zagreb"),
        deadlines=[pb.DeadlineSpec(name="reply", duration="1bd")]), timeout=10)
    assert (sched.deadlines[0].due_local, sched.calendar_version) == (NEW_DUE, f"hr-zagreb@{v2}")


def test_extra_inline_holidays_change_the_answer_and_the_version(versioned):
    server, _ = versioned
    extra = due(server, f"hr-zagreb@{V1}", holidays=[pb.Holiday(date="2026-11-30",
                                                                  name="Company day")])
    assert extra.due_local == NEW_DUE
    assert extra.calendar_version == f"hr-zagreb@{V1}+cal-dc346ba6c0ce5c29"
    other = due(server, f"hr-zagreb@{V1}", holidays=[pb.Holiday(date="2026-11-30")])
    assert other.due_local == NEW_DUE and other.calendar_version != extra.calendar_version
    # a date the bundle already lists keeps the bundle's name; the answer is unchanged
    again = due(server, f"hr-zagreb@{V1}", "2026-12-24T08:00:00Z",
                holidays=[pb.Holiday(date="2026-12-25", name="Xmas")], explain=True)
    assert again.due_local == "2026-12-28T09:00:00+01:00"
    assert "Friday 2026-12-25: skipped, holiday (Christmas Day)" in [
        s.text for s in again.explanation]
    code, bad, _ = failure(lambda: due(server, "hr-zagreb", holidays=[pb.Holiday(date="2026-13-01")]))
    assert (code, violations(bad)) == (
        INVALID, [("calendar.holidays[0].date", "'2026-13-01' is not a real calendar date")])


def test_a_date_outside_the_bundle_years_is_out_of_range_naming_them(versioned):
    server, _ = versioned
    code, bad, info = failure(lambda: due(server, "hr-zagreb", "2035-12-30T09:00:00Z", "3bd"))
    assert (code, info.reason) == (OUT_OF_RANGE, "OUT_OF_RANGE")
    assert violations(bad) == [(
        "calendar.bundle",
        f"hr-zagreb covers 2020–2035 only (version {versioned[1]}); the answer depends on "
        "2036-01-02, after the dates the calendar's holidays cover (holidays known "
        "2020-01-01..2035-12-31)")]
    code, bad, _ = failure(lambda: due(server, f"hr-zagreb@{V1}", "2020-01-02T09:00:00Z", "-3bd"))
    assert code == OUT_OF_RANGE and violations(bad)[0][0] == "calendar.bundle"
    assert violations(bad)[0][1].startswith(
        f"hr-zagreb covers 2020–2035 only (version {V1}); the answer depends on 2019-12-27, before")
    code, bad, _ = failure(lambda: server.stub.GetOpenStatus(pb.GetOpenStatusRequest(
        time=ts("2036-06-01T10:00:00Z"), calendar=pb.Calendar(bundle="hr-zagreb")), timeout=10))
    assert code == OUT_OF_RANGE and violations(bad)[0][0] == "calendar.bundle"


def test_unknown_bundle_or_version_is_invalid_on_calendar_bundle(versioned):
    server, v2 = versioned
    code, bad, info = failure(lambda: due(server, "atlantis"))
    assert (code, info.reason) == (INVALID, "BUNDLE_NOT_FOUND")
    assert violations(bad) == [("calendar.bundle", "no calendar bundle named 'atlantis' (known: "
                                "ae-dubai, always-open, au-nsw, de-berlin, gb-england, hr-zagreb, "
                                "il-jerusalem, in-central-gov, in-india, jp-tokyo, "
                                "support-desk-example, us-federal-gov, us-new-york, "
                                "us-ny-state-gov)")]
    code, bad, _ = failure(lambda: due(server, "hr-zagreb@000000000000"))
    assert (code, violations(bad)) == (INVALID, [(
        "calendar.bundle",
        f"bundle 'hr-zagreb' has no version '000000000000' (versions: {V1}, {v2})")])


def test_inline_parts_beside_a_bundle_are_refused_naming_each(versioned):
    server, _ = versioned
    calendar = pb.Calendar(bundle="hr-zagreb", time_zone="UTC", weekend=pb.WeekendDays(),
                           extra_working_days=[pb.ExtraWorkingDay(date="2026-11-28")],
                           holidays_valid_until="2026-12-31")
    request = pb.ComputeDueTimeRequest(duration="1bd", calendar=calendar, start=ts(START))
    code, bad, _ = failure(lambda: server.stub.ComputeDueTime(request, timeout=10))
    assert code == INVALID
    assert violations(bad) == [
        (f"calendar.{part}", "comes from bundle 'hr-zagreb'; leave it unset")
        for part in ("time_zone", "weekend", "extra_working_days", "holidays_valid_until")
    ]


# ---- CalendarService -----------------------------------------------------------------


def test_calendar_service_is_healthy_and_reflected(versioned):
    server, _ = versioned
    health = health_pb2_grpc.HealthStub(server.channel).Check(
        health_pb2.HealthCheckRequest(service="duetime.v1.CalendarService"), timeout=10)
    assert health.status == health_pb2.HealthCheckResponse.SERVING
    assert "duetime.v1.CalendarService" in ProtoReflectionDescriptorDatabase(
        server.channel).get_services()


def test_list_calendars(versioned):
    server, v2 = versioned
    listed = server.calendars.ListCalendars(pb.ListCalendarsRequest(), timeout=10).calendars
    assert [c.name for c in listed] == [
        "ae-dubai", "always-open", "au-nsw", "de-berlin", "gb-england", "hr-zagreb",
        "il-jerusalem", "in-central-gov", "in-india", "jp-tokyo", "support-desk-example",
        "us-federal-gov", "us-new-york", "us-ny-state-gov"]
    assert listed[5] == pb.CalendarInfo(
        name="hr-zagreb",
        description="Croatia: public holidays, Monday–Friday 09:00–17:00, Europe/Zagreb",
        time_zone="Europe/Zagreb", newest_version=v2, versions=[V1, v2],
        first_year=2020, last_year=2035)
    assert (listed[1].first_year, listed[1].last_year, listed[1].versions) == (
        1900, 2199, ["eea4aa4a1542"])


def test_get_calendar_writes_the_version_out_in_full(versioned):
    server, v2 = versioned
    got = server.calendars.GetCalendar(pb.GetCalendarRequest(name=f"hr-zagreb@{V1}"), timeout=10)
    assert (got.version, got.holidays_package, got.source_country, got.source_subdiv) == (
        V1, "0.109", "HR", "")
    assert (got.info.newest_version, list(got.info.versions)) == (v2, [V1, v2])
    cal = got.calendar
    assert (cal.time_zone, list(cal.weekend.days), cal.holidays_valid_until, cal.bundle) == (
        "Europe/Zagreb", [6, 7], "2035-12-31", "")
    assert [(d.weekday, [(i.start, i.end) for i in d.intervals]) for d in cal.working_hours.days] \
        == [(day, [("09:00", "17:00")]) for day in range(1, 6)]
    assert len(cal.holidays) == 223
    assert (cal.holidays[0].date, cal.holidays[0].name) == ("2020-01-01", "New Year's Day")
    newest = server.calendars.GetCalendar(pb.GetCalendarRequest(name="hr-zagreb"), timeout=10)
    assert newest.version == v2 and len(newest.calendar.holidays) == 224
    assert pb.Holiday(date="2026-11-30", name="Company day") in newest.calendar.holidays
    # written out in full, it answers inline as the bundle does
    request = pb.ComputeDueTimeRequest(duration="1bd", calendar=cal, start=ts(START))
    inline = server.stub.ComputeDueTime(request, timeout=10)
    assert inline.due_local == OLD_DUE and inline.calendar_version.startswith("cal-")
    desk = server.calendars.GetCalendar(pb.GetCalendarRequest(name="support-desk-example"),
                                        timeout=10).calendar
    assert [(o.date, [(i.start, i.end) for i in o.intervals], o.closed, o.name)
            for o in desk.date_overrides] == [
        ("2026-12-24", [("08:00", "12:00")], False, "Christmas Eve: mornings only"),
        ("2026-12-31", [("08:00", "12:00")], False, "New Year's Eve: mornings only")]
    for name, field, text in (
        ("", "name", "is required: a bundle name, or name@version"),
        ("atlantis@1", "name", "no calendar bundle named 'atlantis'"),
    ):
        code, bad, _ = failure(lambda: server.calendars.GetCalendar(
            pb.GetCalendarRequest(name=name), timeout=10))
        assert code == INVALID and violations(bad)[0][0] == field
        assert violations(bad)[0][1].startswith(text)


def holidays(server, calendar: pb.Calendar, start: str, end: str) -> pb.ListHolidaysResponse:
    return server.calendars.ListHolidays(pb.ListHolidaysRequest(
        calendar=calendar, start_date=start, end_date=end), timeout=10)


def test_list_holidays(versioned):
    server, v2 = versioned
    december = holidays(server, pb.Calendar(bundle=f"hr-zagreb@{V1}"), "2026-12-01", "2026-12-31")
    assert [(h.date, h.name) for h in december.holidays] == [
        ("2026-12-25", "Christmas Day"), ("2026-12-26", "Saint Stephen's Day")]
    assert (december.calendar_version, list(december.warnings)) == (f"hr-zagreb@{V1}", [])
    november = holidays(server, pb.Calendar(bundle="hr-zagreb"), "2026-11-01", "2026-11-30")
    assert [(h.date, h.name) for h in november.holidays] == [
        ("2026-11-01", "All Saints' Day"), ("2026-11-18", "Remembrance Day"),
        ("2026-11-30", "Company day")]
    assert november.calendar_version == f"hr-zagreb@{v2}"
    extra = holidays(server, pb.Calendar(bundle=f"hr-zagreb@{V1}", holidays=[
        pb.Holiday(date="2026-12-24", name="Christmas Eve")]), "2026-12-24", "2026-12-25")
    assert [(h.date, h.name) for h in extra.holidays] == [
        ("2026-12-24", "Christmas Eve"), ("2026-12-25", "Christmas Day")]
    assert extra.calendar_version.startswith(f"hr-zagreb@{V1}+cal-")
    inline = holidays(server, pb.Calendar(holidays=[pb.Holiday(date="2026-12-25")]),
                      "2026-01-01", "2027-12-31")
    assert [h.date for h in inline.holidays] == ["2026-12-25"]
    assert list(inline.warnings) == [
        "no holidays known for 2027: the calendar lists holidays up to 2026 only"]


@pytest.mark.parametrize("calendar, start, end, code, field, text", [
    (pb.Calendar(bundle="hr-zagreb"), "2035-12-01", "2036-01-31", OUT_OF_RANGE,
     "calendar.bundle", "hr-zagreb covers 2020–2035 only"),
    (pb.Calendar(bundle="hr-zagreb"), "2026-12-31", "2026-12-01", INVALID,
     "end_date", "2026-12-01 is before start_date 2026-12-31"),
    (None, "2000-01-01", "2020-01-17", INVALID,
     "end_date", "2020-01-17 is 7321 days after start_date 2000-01-01; at most 7320 are allowed"),
    (None, "2026-12-1", "2026-12-31", INVALID,
     "start_date", "'2026-12-1' is not a local date YYYY-MM-DD"),
    (None, "2026-12-01", "", INVALID, "end_date", "is required (a local date YYYY-MM-DD)"),
    (None, "1899-12-31", "1900-01-31", OUT_OF_RANGE,
     "start_date", "1899-12-31 is outside the supported range 1900-01-01..2199-12-31"),
])
def test_list_holidays_refuses(versioned, calendar, start, end, code, field, text):
    server, _ = versioned
    got, bad, _ = failure(lambda: holidays(server, calendar, start, end))
    assert (got, violations(bad)[0][0]) == (code, field)
    assert violations(bad)[0][1].startswith(text)


def test_list_holidays_allows_twenty_years(versioned):
    server, _ = versioned
    span = holidays(server, pb.Calendar(bundle="always-open"), "2000-01-01", "2020-01-16")  # 7320 days
    assert (list(span.holidays), span.calendar_version) == ([], "always-open@eea4aa4a1542")


# ---- reloading ------------------------------------------------------------------------


MAX_CALLS, MAX_SECONDS = 300, 10.0


def test_sighup_under_load_every_answer_is_the_old_or_the_new_set(start_server, tmp_path):
    root = copy_calendars(tmp_path / "calendars")
    server = start_server(root)
    v2 = add_company_day(root)  # on disk; served from the SIGHUP on
    answers: list[tuple[str, str]] = []
    reloaded, warmed = threading.Event(), threading.Event()
    after_reload = 0

    def load() -> None:  # sequential calls, bounded in count and time
        nonlocal after_reload
        deadline = time.monotonic() + MAX_SECONDS
        while len(answers) < MAX_CALLS and time.monotonic() < deadline and after_reload < 30:
            answer = due(server, "hr-zagreb")
            answers.append((answer.due_local, answer.calendar_version))
            after_reload += reloaded.is_set()
            if len(answers) == 20:
                warmed.set()

    workers = [threading.Thread(target=load) for _ in range(3)]
    for worker in workers:
        worker.start()
    assert warmed.wait(MAX_SECONDS)
    server.proc.send_signal(signal.SIGHUP)
    server.await_log(rf"calendars reloaded from .*hr-zagreb@{V1}, hr-zagreb@{v2}")
    reloaded.set()
    for worker in workers:
        worker.join(MAX_SECONDS + 5)
    old, new = (OLD_DUE, f"hr-zagreb@{V1}"), (NEW_DUE, f"hr-zagreb@{v2}")
    assert set(answers) <= {old, new}, set(answers) - {old, new}
    assert answers[0] == old and answers[-1] == new
    assert len(answers) <= MAX_CALLS + 2  # each worker may finish the call it started
    assert due(server, "hr-zagreb").calendar_version == f"hr-zagreb@{v2}"
    assert due(server, f"hr-zagreb@{V1}").due_local == OLD_DUE


def test_a_broken_set_is_refused_at_reload_and_the_old_one_keeps_answering(start_server,
                                                                            tmp_path):
    root = copy_calendars(tmp_path / "calendars")
    server = start_server(root)
    compiled = root / "compiled" / "hr-zagreb" / f"{V1}.json"
    good = compiled.read_text(encoding="utf-8")
    content = json.loads(good)
    content["calendar"]["holidays"] = content["calendar"]["holidays"][:-1]  # a hand edit
    compiled.write_text(json.dumps(content), encoding="utf-8")
    add_company_day(root)  # a valid new version beside the broken file: still all or nothing
    server.proc.send_signal(signal.SIGHUP)
    line = server.await_log("calendar reload refused")
    assert f"hr-zagreb/{V1}.json: content hashes to" in line and "edited by hand" in line
    answer = due(server, "hr-zagreb")
    assert (answer.due_local, answer.calendar_version) == (OLD_DUE, f"hr-zagreb@{V1}")
    compiled.write_text(good, encoding="utf-8")
    server.proc.send_signal(signal.SIGHUP)
    server.await_log("calendars reloaded")
    assert due(server, "hr-zagreb").due_local == NEW_DUE


def test_watch_picks_up_a_new_version(start_server, tmp_path):
    root = copy_calendars(tmp_path / "calendars")
    server = start_server(root, "--watch", "0.1")
    assert due(server, "hr-zagreb").due_local == OLD_DUE
    v2 = add_company_day(root)
    server.await_log(rf"calendars reloaded from .*hr-zagreb@{v2}")
    answer = due(server, "hr-zagreb")
    assert (answer.due_local, answer.calendar_version) == (NEW_DUE, f"hr-zagreb@{v2}")


def test_startup_with_a_broken_set_fails_clearly(tmp_path):
    root = copy_calendars(tmp_path / "calendars")
    (root / "compiled" / "hr-zagreb" / "versions.txt").write_text(f"{V1}\n000000000000\n")
    result = subprocess.run(
        [sys.executable, "-m", "duetime", "serve", "--port", "0", "--db", str(tmp_path / "l.db"),
         "--calendars", str(root)], capture_output=True, text=True, timeout=30)
    assert result.returncode == 1
    assert f"error: cannot load the calendars in {root}: " in result.stderr
    assert "000000000000.json: cannot read" in result.stderr
