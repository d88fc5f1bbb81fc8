"""records impact for answers without a due time (docs/semantics.md §12):
CountBusinessDays, ListOpenPeriods, GetOpenStatus and ComputeBusinessTime
records are replayed under the new bundle version and each part that would
change is listed, old → new, with the reason; a later page of open periods is
listed as not replayed."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from duetime.api.convert import BUSINESS_TIME, COUNT_BUSINESS_DAYS, LIST_OPEN_PERIODS, OPEN_STATUS
from duetime.bundles import compile_all
from duetime.catalog import Catalog
from duetime.cli import main
from duetime.compose import build_app
from duetime.impact import analyze
from duetime.ledger import MemoryLedger
from duetime.v1 import duetime_pb2 as pb

RECEIVED = datetime(2026, 12, 1, 12, tzinfo=timezone.utc)
BUNDLE = ('description = "ACME Zagreb"\ntime_zone = "Europe/Zagreb"\nyears = [2026, 2028]\n'
          '[holidays]\ncountry = "HR"\nlanguage = "en_US"\n')
PERIOD = ('[[week_periods]]\nfrom = "2027-03-01"\nweekend = ["mon", "sat", "sun"]\n'
          '[week_periods.working_hours]\n"tue-fri" = ["08:00-17:00"]\n')
WHY = ("week from 2027-03-01: weekend Monday, Saturday, Sunday; Tuesday 08:00–17:00; Wednesday 08:00–17:00; "
       "Thursday 08:00–17:00; Friday 08:00–17:00 added in acme@{new}")


@pytest.fixture
def versions(tmp_path):
    src = tmp_path / "calendars"
    src.mkdir()
    (src / "acme.toml").write_text(BUNDLE)
    (old,) = compile_all(src)
    (src / "acme.toml").write_text(BUNDLE + PERIOD)
    (new,) = compile_all(src)
    return src, old.version, new.version


def _at(text: str):
    from google.protobuf.timestamp_pb2 import Timestamp
    stamp = Timestamp()
    stamp.FromJsonString(text)
    return stamp


def test_answers_without_a_due_time_are_compared(versions):
    src, old, new = versions
    app = build_app(MemoryLedger(), Catalog.load(src))
    calendar = pb.Calendar(bundle=f"acme@{old}")
    count = app.call(COUNT_BUSINESS_DAYS, pb.CountBusinessDaysRequest(
        from_date="2027-03-01", to_date="2027-03-31", calendar=calendar), RECEIVED)
    first = app.call(LIST_OPEN_PERIODS, pb.ListOpenPeriodsRequest(
        start_time=_at("2027-02-26T15:00:00Z"), end_time=_at("2027-03-02T12:00:00Z"), calendar=calendar),
        RECEIVED)
    paged = app.call(LIST_OPEN_PERIODS, pb.ListOpenPeriodsRequest(
        start_time=_at("2027-02-26T15:00:00Z"), end_time=_at("2027-03-02T12:00:00Z"), calendar=calendar,
        page_size=1), RECEIVED)
    second = app.call(LIST_OPEN_PERIODS, pb.ListOpenPeriodsRequest(
        start_time=_at("2027-02-26T15:00:00Z"), end_time=_at("2027-03-02T12:00:00Z"), calendar=calendar,
        page_size=1, page_token=paged.next_page_token), RECEIVED)
    status = app.call(OPEN_STATUS, pb.GetOpenStatusRequest(
        time=_at("2027-03-01T09:00:00Z"), calendar=calendar, include_last_run=True), RECEIVED)
    between = app.call(BUSINESS_TIME, pb.ComputeBusinessTimeRequest(
        start_time=_at("2027-02-26T00:00:00Z"), end_time=_at("2027-03-03T00:00:00Z"), calendar=calendar),
        RECEIVED)
    unchanged = app.call(COUNT_BUSINESS_DAYS, pb.CountBusinessDaysRequest(
        from_date="2027-02-01", to_date="2027-02-28", calendar=calendar), RECEIVED)
    assert (count.business_days, unchanged.business_days) == (22, 20)

    answer = analyze(pb.AnalyzeImpactRequest(calendar=f"acme@{new}"), app)
    why = [WHY.format(new=new)]
    changes = {c.record_id: [(a.name, a.old_value, a.new_value, list(a.reasons)) for a in c.answer_changes]
               for c in answer.changes}
    assert changes == {
        count.record_id: [("businessDays", "22", "18", why)],  # the Mondays of March 2027 are off
        first.record_id: [
            ("periods", "3 period(s), 13h of open time", "2 period(s), 6h of open time", why),
            ("periods[1]", "[2027-03-01T09:00:00+01:00, 2027-03-01T17:00:00+01:00)",
             "[2027-03-02T08:00:00+01:00, 2027-03-02T13:00:00+01:00)", why)],
        status.record_id: [
            ("open", "true", "false", why),
            ("businessDay", "true", "false", why),
            ("closedReason", "none", "weekend", why),
            ("currentInterval", "[2027-03-01T09:00:00+01:00, 2027-03-01T17:00:00+01:00)", "none", why),
            ("nextOpenTime", "2027-03-02T09:00:00+01:00", "2027-03-02T08:00:00+01:00", why),
            ("nextCloseTime", "2027-03-01T17:00:00+01:00", "2027-03-02T17:00:00+01:00", why),
            ("lastOpenTime", "2027-03-01T09:00:00+01:00", "2027-02-26T09:00:00+01:00", why)],
        between.record_id: [
            ("businessTime", "24h", "17h", why), ("businessDays", "3", "2", why)],
    }
    # the first page of one period (Friday's hour) is the same under both versions: not listed
    assert paged.record_id not in changes and unchanged.record_id not in changes
    assert [(s.record_id, s.reason) for s in answer.not_replayed] == [
        (second.record_id, "not replayed (ListOpenPeriods): a later page of open periods: its page token "
                           "names the calendar version it was made in; the first page of the same query "
                           "is replayed")]
    assert (answer.records_examined, answer.records_replayed) == (7, 6)


def test_the_command_line_lists_the_parts(versions, tmp_path, capsys):
    src, old, new = versions
    db = tmp_path / "ledger.db"
    from duetime.ledger import open_ledger
    ledger = open_ledger(str(db))
    app = build_app(ledger, Catalog.load(src))
    recorded = app.call(COUNT_BUSINESS_DAYS, pb.CountBusinessDaysRequest(
        from_date="2027-03-01", to_date="2027-03-31", calendar=pb.Calendar(bundle=f"acme@{old}")), RECEIVED)
    app.close()
    capsys.readouterr()
    assert main(["records", "impact", "--calendar", f"acme@{new}", "--db", str(db),
                 "--calendars", str(src)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split() == ["RECORD", "METHOD", "DUE", "OLD", "NEW", "WHY"]
    assert out[1].split()[:5] == [recorded.record_id, "CountBusinessDays", "businessDays", "22", "18"]
    assert out[1].endswith(WHY.format(new=new))
    assert out[-1] == (f"1 record(s) examined, 1 replayed under acme@{new}: 1 would change, 0 not replayed; "
                       "no record was changed")
