"""docs/sql.md against the service: open periods written by ``duetime calendars
periods`` (and, for an overnight calendar, by ListOpenPeriods, the same rows),
loaded into a real PostgreSQL, and the document's ``business_time_us`` checked
against ComputeBusinessTime on a few hundred random pairs of instants, biased
to DST days, month ends and holidays: every one equal, to the microsecond."""

from __future__ import annotations

import calendar as stdcal
import io
import random
import re
from contextlib import redirect_stdout
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

import psycopg
from duetime.api.convert import BUSINESS_TIME, LIST_OPEN_PERIODS
from duetime.catalog import Catalog
from duetime.cli import main
from duetime.compose import build_app
from duetime.v1 import duetime_pb2 as pb
from pg import pg_dsn  # noqa: F401 - the fixture
from server_process import CALENDARS

UTC = timezone.utc
DOC = Path(__file__).resolve().parents[1] / "docs" / "sql.md"
FIRST, LAST = date(2025, 1, 1), date(2027, 12, 31)
INSIDE = (datetime(2025, 1, 3, tzinfo=UTC), datetime(2027, 12, 29, tzinfo=UTC))
"""Every instant compared lies here, well inside the dates exported."""
PAIRS_PER_CALENDAR = 120
# An overnight desk (every day 22:00–03:00, one period across midnight): its
# periods span the 02:00→03:00 and 03:00→02:00 changes of Europe/Zagreb.
NIGHTS = pb.Calendar(time_zone="Europe/Zagreb", weekend=pb.WeekendDays(),
                     working_hours=pb.WorkingHours(days=[
                         pb.DayHours(weekday=d, intervals=[pb.TimeInterval(start="00:00", end="03:00"),
                                                           pb.TimeInterval(start="22:00", end="24:00")])
                         for d in range(1, 8)]),
                     holidays=[pb.Holiday(date="2026-12-25"), pb.Holiday(date="2026-07-04")])


ZONES = {"hr-zagreb": "Europe/Zagreb", "us-new-york": "America/New_York"}
HOLIDAYS = [date(y, m, d) for y in (2025, 2026, 2027)
            for m, d in ((1, 1), (7, 4), (12, 24), (12, 25), (12, 26), (12, 31))] + [
    date(2025, 4, 21), date(2026, 4, 6), date(2027, 3, 29),  # Easter Mondays
    date(2025, 11, 27), date(2026, 11, 26), date(2027, 11, 25)]  # Thanksgivings


def sql_blocks() -> list[str]:
    """The ```sql blocks of docs/sql.md that create something, in order."""
    blocks = re.findall(r"```sql\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    return [b for b in blocks if b.lstrip().startswith("CREATE")]


def cli_rows(capsys, name: str) -> str:
    assert main(["calendars", "periods", name, "--from", FIRST.isoformat(), "--to", LAST.isoformat(),
                 "--dir", str(CALENDARS)]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    return out


def method_rows(app, calendar: pb.Calendar) -> tuple[str, str]:
    """The CSV ``duetime calendars periods`` would write for an inline calendar, and its version."""
    zone = ZoneInfo(calendar.time_zone)
    request = pb.ListOpenPeriodsRequest(calendar=calendar, page_size=1000)
    request.start_time.FromDatetime(datetime.combine(FIRST, datetime.min.time(), zone))
    request.end_time.FromDatetime(datetime.combine(LAST + timedelta(days=1), datetime.min.time(), zone))
    out = io.StringIO()
    out.write("start,end,local_date,calendar_version\n")
    while True:
        page = app.answer(LIST_OPEN_PERIODS, request)
        for p in page.periods:
            out.write(f"{p.start_time.ToJsonString()},{p.end_time.ToJsonString()},{p.local_date},"
                      f"{page.calendar_version}\n")
        if not page.next_page_token:
            return out.getvalue(), page.calendar_version
        request.page_token = page.next_page_token


def interesting_days(zone: ZoneInfo, holidays: list[date]) -> list[date]:
    """DST change days, month ends and holidays between FIRST and LAST."""
    days = []
    day = FIRST
    while day < LAST:
        noon = datetime.combine(day, datetime.min.time().replace(hour=12), zone)
        if noon.utcoffset() != (noon + timedelta(days=1)).utcoffset():
            days += [day, day + timedelta(days=1)]
        if day.day == stdcal.monthrange(day.year, day.month)[1]:
            days.append(day)
        day += timedelta(days=1)
    return days + holidays


def random_instant(rng: random.Random, days: list[date], zone: ZoneInfo) -> datetime:
    if rng.random() < 0.75:
        day = rng.choice(days)
    else:
        day = FIRST + timedelta(days=rng.randrange(3, (LAST - FIRST).days - 3))
    minute = rng.choice([0, 30, rng.randrange(24 * 60)])
    at = datetime.combine(day, datetime.min.time(), zone) + timedelta(minutes=rng.randrange(-180, 180) + minute)
    if rng.random() < 0.2:
        at += timedelta(microseconds=rng.randrange(1, 1_000_000))
    return min(max(at.astimezone(UTC), INSIDE[0]), INSIDE[1])


def test_the_sql_of_docs_agrees_with_compute_business_time(capsys, pg_dsn):  # noqa: F811 - the fixture
    app = build_app(None, Catalog.load(CALENDARS))
    loads = []
    for name in ("hr-zagreb", "us-new-york"):
        csv = cli_rows(capsys, name)
        version = csv.splitlines()[1].rsplit(",", 1)[1]
        loads.append((pb.Calendar(bundle=version), csv, version))
    csv, version = method_rows(app, NIGHTS)
    loads.append((NIGHTS, csv, version))

    schema, function = sql_blocks()[:2]
    rng = random.Random(20261201)
    checked = dst_pairs = 0
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        conn.execute(schema)
        conn.execute(function)
        for calendar, csv, version in loads:
            with conn.cursor().copy("COPY open_periods (start_time, end_time, local_date, calendar_version) "
                                    "FROM STDIN WITH (FORMAT csv, HEADER true)") as copy:
                copy.write(csv)
            rows = conn.execute("SELECT count(*) FROM open_periods WHERE calendar_version = %s",
                                (version,)).fetchone()[0]
            assert rows == len(csv.splitlines()) - 1 > 300
            zone = ZoneInfo(ZONES[version.split("@")[0]] if calendar.bundle else calendar.time_zone)
            days = interesting_days(zone, HOLIDAYS)
            for _ in range(PAIRS_PER_CALENDAR):
                a = random_instant(rng, days, zone)
                if rng.random() < 0.5:
                    b = a + timedelta(minutes=rng.randrange(-3 * 24 * 60, 45 * 24 * 60))
                else:
                    b = random_instant(rng, days, zone)
                if rng.random() < 0.05:
                    b = a
                b = min(max(b, INSIDE[0]), INSIDE[1])  # the table covers the dates exported only
                request = pb.ComputeBusinessTimeRequest(calendar=calendar)
                request.start_time.FromDatetime(a)
                request.end_time.FromDatetime(b)
                expected = app.answer(BUSINESS_TIME, request).business_time.ToMicroseconds()
                got = conn.execute("SELECT business_time_us(%s, %s, %s)", (version, a, b)).fetchone()[0]
                assert got == expected, (version, a.isoformat(), b.isoformat())
                checked += 1
                lo, hi = min(a, b), max(a, b)
                dst_pairs += lo.astimezone(zone).utcoffset() != hi.astimezone(zone).utcoffset()
    assert checked == 3 * PAIRS_PER_CALENDAR
    assert dst_pairs > 50  # many pairs span a DST change
