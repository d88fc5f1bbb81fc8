"""What the costliest request of each RPC costs the server, within duetime's limits.

    bench/run.sh --cost            (or: python bench/cost.py [--runs N] [--bound-ms MS])

For every RPC of ``proto/duetime/v1/duetime.proto`` this builds the request
that makes the server work hardest while staying inside the limits of
``duetime.app.limits`` (the largest calendar, the longest span, the most
items, events or running intervals), answers it in process through the same
table the gRPC and HTTP faces answer from (``duetime.api.calls.unary_calls``,
recording into a SQLite ledger, so the commit is counted), and prints the
server's CPU time for it: the least of ``--runs`` runs, each with a calendar
no cache holds yet. CPU time, not wall time, because the machine may be
shared; the whole process's, so the ledger's commit thread counts too.

Every row must stay within ``--bound-ms`` (250 ms): each row says PASS or
FAIL, and the last line PASS or FAIL (exit status 1). A time zone's offset tables are built once per
process on its first use (about 0.1 s for 300 years); the table warms the
zones it uses first and shows that one-time cost in its own row.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from dataclasses import replace
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from typing import Callable

from google.protobuf.duration_pb2 import Duration
from google.protobuf.message import Message
from google.protobuf.timestamp_pb2 import Timestamp

from duetime.api.calls import CALENDAR_SERVICE, DUE_TIME_SERVICE, CallLimits, unary_calls
from duetime.api.convert import DUE_TIME, SCHEDULE, calendar_from_proto, message_json
from duetime.api.admission import InFlightBytes, in_flight_limit
from duetime.api.http import (
    JsonTooCostly,
    RequestTooLarge,
    TooManyJsonValues,
    bindings,
    build_request,
    counted_json_values,
    json_max_values,
    json_reading_bytes,
)
from duetime.config import DEFAULT_MAX_MESSAGE_BYTES
from duetime.app import limits as L
from duetime.bundles.compiler import version_of
from duetime.catalog import Catalog
from duetime.compose import build_app
from duetime.core.zones import get_zone, table
from duetime.impact import MAX_LIMIT as MAX_IMPACT_LIMIT
from duetime.ledger.opening import open_ledger
from duetime.v1 import duetime_pb2 as pb

REPO = Path(__file__).resolve().parent.parent
BOUND_MS = 250.0
MAX_MESSAGE_BYTES = 64 << 20
"""The largest request ``duetime serve`` reads (``--max-message-bytes``)."""
ZONE = "America/New_York"
"""Zone of the calendars: DST changes twice a year in every year up to 2199."""


# ---------------------------------------------------------------------------
# the largest calendars the limits allow

def _hhmm(seconds: int) -> str:
    return f"{seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


def _day(i: int, first: int = 1901) -> str:
    return date.fromordinal(date(first, 1, 1).toordinal() + i).isoformat()


def _full_day(n: int, overnight: bool = False) -> list[pb.TimeInterval]:
    """``n`` intervals of 10 minutes every 15 (the last one past midnight when ``overnight``)."""
    step = 86_400 // n
    out = [pb.TimeInterval(start=_hhmm(i * step), end=_hhmm(i * step + step * 2 // 3)) for i in range(n)]
    if overnight:
        out[-1] = pb.TimeInterval(start=_hhmm((n - 1) * step), end="00:05")
    return out


def most_dates(run: int) -> pb.Calendar:
    """10,000 dates in all (holidays, closed overrides, extra working days on
    weekends), names of the longest length, the most intervals a weekday may have."""
    name = f"{run:06d}" + "x" * (L.MAX_NAME - 6)
    per_part = L.MAX_DATES // 3
    week = [pb.DayHours(weekday=wd, intervals=_full_day(L.MAX_INTERVALS_PER_DAY, overnight=True))
            for wd in range(1, 6)]
    return pb.Calendar(
        time_zone=ZONE, working_hours=pb.WorkingHours(days=week),
        holidays=[pb.Holiday(date=_day(7 * i), name=name) for i in range(per_part + 1)],
        date_overrides=[pb.DateOverride(date=_day(7 * i + 1), closed=True, name=name)
                        for i in range(per_part)],
        extra_working_days=[pb.ExtraWorkingDay(date=_day(7 * i + 5), name=name)
                            for i in range(per_part)])


def most_intervals(run: int) -> pb.Calendar:
    """10,000 intervals in all: every weekday and as many overrides as fit, each
    with the most intervals a day may have, the last running past midnight."""
    per_day = L.MAX_INTERVALS_PER_DAY
    week = [pb.DayHours(weekday=wd, intervals=_full_day(per_day, overnight=True)) for wd in range(1, 6)]
    overrides = (L.MAX_INTERVALS - 5 * per_day) // per_day
    return pb.Calendar(
        time_zone=ZONE, working_hours=pb.WorkingHours(days=week),
        holidays=[pb.Holiday(date=_day(1000 + run), name=f"run {run}")],
        date_overrides=[pb.DateOverride(date=_day(3 * i + 1, 1950 + 2 * (i % 100)), name="x",
                                        intervals=_full_day(per_day, overnight=True))
                        for i in range(overrides)])


def most_week_periods(run: int) -> pb.Calendar:
    """The most week periods (one every three years from 1901), each with 13
    intervals on every day of its week, and as many holidays as fit beside
    them: every date's week is a period's, and each period's first dates
    are measured across a boundary."""
    per_day = 13
    own = [pb.DayHours(weekday=wd, intervals=_full_day(per_day)) for wd in range(1, 6)]
    spare = L.MAX_INTERVALS - 5 * per_day
    periods = min(L.MAX_WEEK_PERIODS, spare // (7 * per_day))
    years = 298 // periods  # spread over the whole range

    def week(i: int) -> pb.WorkingHours:  # each period's own hours: no two weeks alike
        days = []
        for wd in range(1, 8):
            day = _full_day(per_day)
            day[0] = pb.TimeInterval(start=day[0].start, end=_hhmm(60 + (i * 7 + wd) % 600))
            days.append(pb.DayHours(weekday=wd, intervals=day))
        return pb.WorkingHours(days=days)

    week_periods = [pb.WeekPeriod(from_date=_day(years * 365 * i + 10, 1901), weekend=pb.WeekendDays(),
                                  working_hours=week(i))
                    for i in range(periods)]
    return pb.Calendar(time_zone=ZONE, working_hours=pb.WorkingHours(days=own), week_periods=week_periods,
                       holidays=[pb.Holiday(date=_day(11 * i + run % 7, 1901), name=f"{run}")
                                 for i in range(L.MAX_DATES)])


def one_a_day(run: int) -> pb.Calendar:
    """A calendar of one interval a day (09:00-17:00): the most answers of a
    request may be explained in it."""
    return pb.Calendar(time_zone=ZONE, holidays=[pb.Holiday(date=_day(run, 2030), name="x")])


def _explained(cal: pb.Calendar) -> int:
    """How many answers in ``cal`` one request may ask to have explained."""
    return L.MAX_EXPLANATION_WEIGHT // L.explanation_weight(cal)


CALENDARS = {"most dates": most_dates, "most intervals": most_intervals, "most week periods": most_week_periods}
WITHOUT_CALENDAR = {"ListRecords", "GetRecord", "ListCalendars", "GetCalendar", "AnalyzeImpact", "EvaluateSla",
                    "EvaluateSla (metrics)", "BatchComputeDueTimes (densest message)"}
DENSEST_ITEMS = DEFAULT_MAX_MESSAGE_BYTES // 2 - 8
"""Empty items (two bytes each) in the densest message of --max-message-bytes."""


def densest_json() -> bytes:
    """The JSON of the densest message: a body of --max-message-bytes, ``{}`` items."""
    n = (DEFAULT_MAX_MESSAGE_BYTES - 16) // 3
    return b'{"items":[' + b"{}," * (n - 1) + b"{}]}"


def _at(text: str) -> Timestamp:
    ts = Timestamp()
    ts.FromJsonString(text)
    return ts


# ---------------------------------------------------------------------------
# the costliest request of each RPC

def due_requests(cal: pb.Calendar) -> list[pb.ComputeDueTimeRequest]:
    """Business time across the whole supported range, both ways, explained;
    the most business days."""
    return [
        pb.ComputeDueTimeRequest(calendar=cal, start=_at("1901-01-03T00:00:00Z"), duration="1000000bh",
                                 explain=True),
        pb.ComputeDueTimeRequest(calendar=cal, start=_at("2199-12-01T00:00:00Z"), duration="-1000000bh",
                                 explain=True),
        pb.ComputeDueTimeRequest(calendar=cal, start=_at("1901-01-03T00:00:00Z"), duration="70000bd",
                                 explain=True),
    ]


def cases(catalog: Catalog, records_for_impact: Callable[[], datetime]) -> dict[str, tuple[str, Callable]]:
    """RPC → (full method name, make(run, calendar) → the requests to try)."""
    d, c = DUE_TIME_SERVICE, CALENDAR_SERVICE

    def batch_items(run: int, cal: pb.Calendar, n: int, tag: str) -> list[pb.ComputeDueTimeRequest]:
        return [pb.ComputeDueTimeRequest(calendar=cal, start=_at("2026-01-05T09:00:00Z"),
                                         duration=f"{1 + i % 500}bh", explain=i < _explained(cal),
                                         idempotency_key=f"{tag}{run}-{i}") for i in range(n)]

    def batch(run, cal):
        """The most items (the most of them explained), each with a calendar
        as large as fits 10,000 times in one message."""
        small = pb.Calendar(time_zone=ZONE, holidays=[pb.Holiday(date=_day(run, 2026), name="x")],
                            working_hours=pb.WorkingHours(days=[pb.DayHours(weekday=wd, intervals=_full_day(48))
                                                                for wd in (1, 3)]))
        return [pb.BatchComputeDueTimesRequest(items=batch_items(run, small, L.MAX_BATCH_ITEMS, "b"))]

    def batch_calendars(run, cal):
        """The largest calendar (refused when it weighs more than one
        message's calendars may) and as many other distinct calendars (48
        intervals every day of the week) as the weight of one message's
        calendars allows; as many such calendars, with as many dates as fit;
        the most distinct calendars (the most answers explained in each)."""

        def busy(i: int, dates: int) -> pb.Calendar:
            """48 intervals every day of the week and ``dates`` holidays (the
            first one unique to ``i`` and the run)."""
            return pb.Calendar(time_zone=ZONE, weekend=pb.WeekendDays(), working_hours=pb.WorkingHours(
                days=[pb.DayHours(weekday=wd, intervals=_full_day(L.MAX_INTERVALS_PER_DAY)) for wd in range(1, 8)]),
                holidays=[pb.Holiday(date=_day(i, 2100), name=f"{run}")]
                + [pb.Holiday(date=_day(7 * j + 3, 1950), name="x") for j in range(dates - 1)])

        def item(calendar: pb.Calendar, i: int) -> pb.ComputeDueTimeRequest:
            return pb.ComputeDueTimeRequest(calendar=calendar, start=_at("2026-01-05T09:00:00Z"),
                                            duration="1000bh", explain=i < _explained(calendar))

        def tiny(i: int) -> pb.Calendar:
            return pb.Calendar(time_zone=ZONE, holidays=[pb.Holiday(date=_day(i, 2100), name=f"{run}")])

        room = L.MAX_BATCH_CALENDAR_WEIGHT - L.calendar_weight(cal)
        others = [busy(i, 1) for i in range(room // L.calendar_weight(busy(0, 1)))]
        heavy = L.MAX_BATCH_CALENDAR_WEIGHT // L.calendar_weight(busy(0, 1))
        dates = 1 + (L.MAX_BATCH_CALENDAR_WEIGHT // heavy - L.calendar_weight(busy(0, 1)))
        many = L.MAX_BATCH_CALENDAR_WEIGHT // L.calendar_weight(tiny(0))
        return [pb.BatchComputeDueTimesRequest(items=[item(c, i) for i, c in enumerate([cal] + others)]),
                pb.BatchComputeDueTimesRequest(items=[item(busy(i, dates), i) for i in range(heavy)]),
                pb.BatchComputeDueTimesRequest(items=[item(tiny(i), i) for i in range(many)])]

    def densest(run, cal):
        """The most sub-messages one message of --max-message-bytes holds: empty
        items, two bytes each (as bytes: the server counts them before parsing)."""
        return [b"\x0a\x00" * DENSEST_ITEMS]

    def stream_chunk(run, cal):
        small = pb.Calendar(time_zone=ZONE, holidays=[pb.Holiday(date=_day(run, 2026), name="x")],
                            working_hours=pb.WorkingHours(days=[pb.DayHours(weekday=wd, intervals=_full_day(48))
                                                                for wd in (1, 3)]))
        return [pb.BatchComputeDueTimesRequest(items=batch_items(run, small, L.STREAM_CHUNK, "s")),
                pb.BatchComputeDueTimesRequest(items=batch_items(run, one_a_day(run), L.STREAM_CHUNK, "t"))]

    def business_time(run, cal):
        return [pb.ComputeBusinessTimeRequest(calendar=cal, start_time=_at("1900-01-02T12:00:00Z"),
                                              end_time=_at("2199-12-30T12:00:00Z"), explain=True)]

    def open_status(run, cal):
        step = 86_400 // L.MAX_INTERVALS_PER_DAY
        always = pb.Calendar(time_zone=ZONE, weekend=pb.WeekendDays(), working_hours=pb.WorkingHours(days=[
            pb.DayHours(weekday=wd, intervals=[pb.TimeInterval(start=_hhmm(i * step), end=_hhmm(i * step + step)
                                                               if i < L.MAX_INTERVALS_PER_DAY - 1 else "24:00")
                                               for i in range(L.MAX_INTERVALS_PER_DAY)])
            for wd in range(1, 8)]), holidays=[pb.Holiday(date=_day(run, 2030), name="x")])
        closed = pb.Calendar(time_zone=ZONE, holidays=[pb.Holiday(date=_day(i, 2030), name=f"{run}")
                                                       for i in range(L.MAX_DATES)])
        return [pb.GetOpenStatusRequest(calendar=cal, time=_at("1950-06-07T12:00:00Z")),
                pb.GetOpenStatusRequest(calendar=always, time=_at("2030-06-07T12:00:00Z")),
                pb.GetOpenStatusRequest(calendar=closed, time=_at("2030-01-01T12:00:00Z"))]

    def open_periods(run, cal):
        """A full page over the whole range, from its start and from its middle."""
        return [pb.ListOpenPeriodsRequest(calendar=cal, start_time=_at("1900-01-02T00:00:00Z"),
                                          end_time=_at("2199-12-30T00:00:00Z"), page_size=1000),
                pb.ListOpenPeriodsRequest(calendar=cal, start_time=_at("2050-01-02T00:00:00Z"),
                                          end_time=_at("2199-12-30T00:00:00Z"), page_size=1000)]

    def count_days(run, cal):
        return [pb.CountBusinessDaysRequest(calendar=cal, from_date="1900-01-01", to_date="2199-12-30")]

    def last_run(run, cal):
        return [pb.GetOpenStatusRequest(calendar=cal, time=_at(t), include_last_run=True)
                for t in ("1950-06-07T12:00:00Z", "2150-01-02T00:00:00Z")]

    def landing(run, cal):
        return [pb.ComputeDueTimeRequest(calendar=cal, start=_at("1901-01-31T10:00:00Z"), duration=d, explain=True)
                for d in ("P298Y11M@modified-following@close", "P1M@modified-preceding@open")]

    def schedule(run, cal):
        deadlines = [pb.DeadlineSpec(name=f"d{i}", duration="10000bh" if i % 2 else "-9990bh",
                                     after=f"d{i - 1}" if i else "") for i in range(L.MAX_DEADLINES)]
        return [pb.ComputeScheduleRequest(calendar=cal, entered_time=_at("1950-01-03T09:00:00Z"),
                                          deadlines=deadlines),
                pb.ComputeScheduleRequest(calendar=cal, entered_time=_at("1950-01-03T09:00:00Z"),
                                          deadlines=deadlines[:_explained(cal)], explain=True),
                pb.ComputeScheduleRequest(calendar=one_a_day(run), entered_time=_at("1950-01-03T09:00:00Z"),
                                          deadlines=deadlines, explain=True)]

    def holidays(run, cal):
        return [pb.ListHolidaysRequest(calendar=cal, start_date="1901-01-01", end_date=_day(L.MAX_HOLIDAY_RANGE_DAYS))]

    def start_clock(run, cal):
        return [pb.StartClockRequest(calendar=cal, target="1000000bh", start_time=_at("1901-01-03T00:00:00Z"))]

    def clock_event(run, cal):
        n = L.MAX_RUNNING_INTERVALS
        hour = 3600
        base = int(datetime(1901, 1, 7, tzinfo=timezone.utc).timestamp())
        step = (int(datetime(2199, 1, 1, tzinfo=timezone.utc).timestamp()) - base) // n
        intervals = [pb.RunningInterval(start_time=Timestamp(
            seconds=base + i * step), end_time=Timestamp(
            seconds=base + i * step + step // 2)) for i in range(n)]
        last = base + n * step
        state = pb.ClockState(target="1000000bh", measure=pb.CLOCK_MEASURE_BUSINESS_TIME,
                              status=pb.CLOCK_STATUS_PAUSED, remaining=Duration(
                                  seconds=3600), start_time=_at("1901-01-03T00:00:00Z"),
                              last_event_time=Timestamp(seconds=last),
                              running_intervals=intervals, calendar=cal,
                              calendar_version=calendar_from_proto(cal).version)
        event = pb.ClockEvent(type=pb.CLOCK_EVENT_TYPE_RETARGET, target="2000000bh", anchor=pb.RETARGET_ANCHOR_START,
                              time=Timestamp(seconds=last + 3600))
        return [pb.ApplyClockEventRequest(state=state, event=event)]

    def sla(run, cal):
        events = [pb.BusinessEvent(type="start", time=_at("2024-01-02T09:00:00Z"), attributes={"tier": "priority"})]
        t = int(datetime(2024, 1, 3, tzinfo=timezone.utc).timestamp()) + run
        for i in range(1, L.MAX_SLA_EVENTS):
            kind = "awaiting_third_party" if i % 2 else "customer_reply"
            events.append(pb.BusinessEvent(type=kind, time=Timestamp(
                seconds=t + i * 5 * 3600)))
        return [pb.EvaluateSlaRequest(policy="support-contract", events=events)]

    def sla_metrics(run, cal):
        """support-sla (three metrics, eight warnings in all): the most events
        its weight allows, 100 pauses and resumes of resolution and
        START-anchored priority changes, every metric running."""
        weight = L.sla_event_weight([t.calendar for t in m.targets.values()]
                                    for m in catalog.policies.resolve_metrics("support-sla").metrics)
        n = min(L.MAX_SLA_EVENTS, L.MAX_SLA_METRIC_WORK // weight)
        t = int(datetime(2026, 12, 1, 8, tzinfo=timezone.utc).timestamp()) + run
        events = [pb.BusinessEvent(type="start", time=Timestamp(seconds=t), attributes={"tier": "low"})]
        pairs = 0
        while len(events) < n:
            t += 420
            if pairs < 100 and len(events) % 3 == 1:
                events.append(pb.BusinessEvent(type="awaiting_customer", time=Timestamp(seconds=t)))
                events.append(pb.BusinessEvent(type="customer_reply", time=Timestamp(seconds=t + 60)))
                pairs += 1
            else:
                events.append(pb.BusinessEvent(type="priority_change", time=Timestamp(seconds=t),
                                               attributes={"tier": ("high", "low")[len(events) % 2]}))
        return [pb.EvaluateSlaRequest(policy="support-sla", events=events[:n])]

    def impact(run, cal):
        records_for_impact()
        new = catalog.bundles.versions("hr-zagreb")[-1]
        due_times_from = Timestamp()
        due_times_from.FromDatetime(records_for_impact())
        return [pb.AnalyzeImpactRequest(calendar=new.ref, limit=MAX_IMPACT_LIMIT),
                pb.AnalyzeImpactRequest(calendar=new.ref, limit=MAX_IMPACT_LIMIT, start_time=due_times_from),
                pb.AnalyzeImpactRequest(tzdata=True, limit=MAX_IMPACT_LIMIT)]

    def list_records(run, cal):
        records_for_impact()
        return [pb.ListRecordsRequest(page_size=1000)]

    def get_record(run, cal):
        return [pb.GetRecordRequest(record_id="0" * 32)]

    def get_calendar(run, cal):
        return [pb.GetCalendarRequest(name=name) for name in ("hr-zagreb", "support-desk-example")]

    def list_calendars(run, cal):
        return [pb.ListCalendarsRequest()]

    return {
        "ComputeDueTime": (d + "ComputeDueTime", lambda run, cal: due_requests(cal)),
        "BatchComputeDueTimes": (d + "BatchComputeDueTimes", batch),
        "BatchComputeDueTimes (calendars)": (d + "BatchComputeDueTimes", batch_calendars),
        "BatchComputeDueTimes (densest message)": (d + "BatchComputeDueTimes", densest),
        "StreamComputeDueTimes (a chunk)": (d + "BatchComputeDueTimes", stream_chunk),
        "ComputeDueTime (landing rules)": (d + "ComputeDueTime", landing),
        "ComputeBusinessTime": (d + "ComputeBusinessTime", business_time),
        "ListOpenPeriods": (d + "ListOpenPeriods", open_periods),
        "CountBusinessDays": (d + "CountBusinessDays", count_days),
        "GetOpenStatus (last run)": (d + "GetOpenStatus", last_run),
        "GetOpenStatus": (d + "GetOpenStatus", open_status),
        "ComputeSchedule": (d + "ComputeSchedule", schedule),
        "StartClock": (d + "StartClock", start_clock),
        "ApplyClockEvent": (d + "ApplyClockEvent", clock_event),
        "EvaluateSla": (d + "EvaluateSla", sla),
        "EvaluateSla (metrics)": (d + "EvaluateSla", sla_metrics),
        "AnalyzeImpact": (d + "AnalyzeImpact", impact),
        "ListRecords": (d + "ListRecords", list_records),
        "GetRecord": (d + "GetRecord", get_record),
        "ListCalendars": (c + "ListCalendars", list_calendars),
        "GetCalendar": (c + "GetCalendar", get_calendar),
        "ListHolidays": (c + "ListHolidays", holidays),
    }


# ---------------------------------------------------------------------------
# measuring

def pb_class(descriptor) -> type[Message]:
    """The message class of a duetime.v1 request ``descriptor``."""
    return getattr(pb, descriptor.name)


def json_body(request: Message | bytes) -> bytes:
    """The JSON body of ``request``; for the densest message's bytes, :func:`densest_json`."""
    return densest_json() if isinstance(request, bytes) else message_json(request).encode()


def cpu_ms(call: Callable[[], object]) -> tuple[float, str]:
    """Process CPU time (ms) of ``call()`` and its outcome (OK or the error's class)."""
    began = time.process_time()
    try:
        call()
        outcome = "OK"
    except Exception as exc:  # noqa: BLE001 - a refusal is an outcome too
        outcome = type(exc).__name__
    return (time.process_time() - began) * 1000, outcome


def catalog_with_new_version(root: Path) -> Path:
    """A copy of ``calendars/`` where hr-zagreb has a second, newer version
    (one holiday renamed), for AnalyzeImpact to replay records against."""
    shutil.copytree(REPO / "calendars", root, dirs_exist_ok=True)
    folder = root / "compiled" / "hr-zagreb"
    old = (folder / "versions.txt").read_text().split()[-1]
    content = json.loads((folder / f"{old}.json").read_text())
    content["calendar"]["holidays"][0]["name"] += " (renamed)"
    new = version_of(content)
    (folder / f"{new}.json").write_text(json.dumps(content, indent=1, sort_keys=True))
    (folder / "versions.txt").write_text(f"{old}\n{new}\n")
    return root


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="runs per request; the least CPU time counts")
    parser.add_argument("--bound-ms", type=float, default=BOUND_MS, help="the most CPU time a request may take")
    parser.add_argument("--only", default="", help="only the RPCs whose name starts with this")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="duetime-cost-") as tmp:
        catalog = Catalog.load(catalog_with_new_version(Path(tmp) / "calendars"))
        app = build_app(open_ledger(Path(tmp) / "ledger.sqlite"), catalog)
        calls = unary_calls(app, CallLimits())
        received = datetime.now(timezone.utc)

        in_flight = in_flight_limit()
        grpc_in_flight = InFlightBytes(in_flight)
        request_types = {f"/{s.full_name}/{m.name}": m.input_type
                         for s in pb.DESCRIPTOR.services_by_name.values() for m in s.methods}

        def call(method: str, request: Message | bytes) -> Message:
            """As the gRPC face of a default server answers ``request`` (or
            its bytes): what parsing them may take counted before they are
            parsed (refused when it can never fit), then parsed, answered and
            the answer serialized."""
            data = request if isinstance(request, bytes) else request.SerializeToString()
            descriptor = request_types[method]
            counted = grpc_in_flight.take_message(data, descriptor)
            try:
                parsed = pb_class(descriptor).FromString(data)  # the server parses the bytes it receives
                return calls[method](parsed, (), received, None).SerializeToString()
            finally:
                grpc_in_flight.release(counted)

        json_bindings = {f"/{b.service}/{b.method}": replace(b, body="*", variables=())
                         for b in bindings()}

        def call_json(method: str, body: bytes) -> str:
            """As the HTTP/JSON face of a default server answers the JSON
            ``body``: a body over its size limit, with more JSON values than
            one may hold, or whose JSON reading would not fit its request
            bytes in flight, refused before it is read (413); else the request read from it (every field in the body),
            the answer printed as JSON."""
            if len(body) > DEFAULT_MAX_MESSAGE_BYTES:
                raise RequestTooLarge(len(body), True, DEFAULT_MAX_MESSAGE_BYTES)
            values = counted_json_values(body, json_max_values())
            if values > json_max_values():
                raise TooManyJsonValues(len(body), values, json_max_values())
            reading = json_reading_bytes(body, values)
            if reading + len(body) > in_flight:
                raise JsonTooCostly(len(body), reading, in_flight)
            parsed = build_request(json_bindings[method], body, {}, [])
            return message_json(calls[method](parsed, (), received, None))

        filled = []

        def records_for_impact() -> datetime:
            """10,000 explained ComputeDueTime records in hr-zagreb's older
            version, and 20,000 in its newer one, which a change to the newer
            version does not concern, nor one of the tz database; and, a
            second earlier, 100 ComputeSchedule records of the most deadlines
            in the older version (once). Returns when the ComputeDueTime
            records were received."""
            if filled:
                return received
            old, new = (v.ref for v in catalog.bundles.versions("hr-zagreb"))
            for first in range(0, 30_000, 1000):
                items = [pb.ComputeDueTimeRequest(calendar=pb.Calendar(bundle=old if first % 3000 == 0 else new),
                                                  duration="3bd", explain=True,
                                                  start=_at(f"{2020 + i % 10}-03-0{1 + i % 9}T10:00:00Z"),
                                                  idempotency_key=f"impact-{first + i}")
                         for i in range(1000)]
                app.call_many(DUE_TIME, items, received)
            deadlines = [pb.DeadlineSpec(name=f"d{i}", duration=f"{i + 1}bd") for i in range(L.MAX_DEADLINES)]
            app.call_many(SCHEDULE, [pb.ComputeScheduleRequest(
                calendar=pb.Calendar(bundle=old), entered_time=_at("2026-03-02T10:00:00Z"), deadlines=deadlines,
                idempotency_key=f"impact-schedule-{i}") for i in range(100)], received - timedelta(seconds=1))
            filled.append(True)
            return received

        cold_ms, _ = cpu_ms(lambda: [table(get_zone("Europe/Zagreb"))._year(y) for y in range(1899, 2201)])
        for zone in (ZONE, "Europe/Zagreb", "Asia/Tokyo", "Asia/Jerusalem", "Australia/Sydney", "Asia/Dubai",
                     "Europe/London", "Europe/Berlin", "Asia/Kolkata"):
            zt = table(get_zone(zone))
            for year in range(1899, 2201):
                zt._year(year)

        rows: list[tuple[str, str, float, str]] = []
        run_counter = iter(range(1, 1_000_000))
        for rpc, (method, make) in cases(catalog, records_for_impact).items():
            if args.only and not rpc.startswith(args.only):
                continue
            worst = (0.0, "", "", None, 0)
            for cal_name, cal_of in CALENDARS.items():
                per_request: dict[int, tuple[float, str]] = {}
                for _ in range(args.runs):
                    run = next(run_counter)
                    for k, request in enumerate(make(run, cal_of(run))):
                        ms, outcome = cpu_ms(lambda: call(method, request))
                        if k not in per_request or ms < per_request[k][0]:
                            per_request[k] = (ms, outcome)
                for k, (ms, outcome) in per_request.items():
                    if ms > worst[0]:
                        worst = (ms, f"{cal_name}, request {k + 1}", outcome, cal_of, k)
                if rpc in WITHOUT_CALENDAR:
                    break  # the request holds no calendar: one shape is enough
            bodies = [json_body(make(run, worst[3](run))[worst[4]])
                      for run in (next(run_counter) for _ in range(args.runs))]
            json_ms, json_outcome = min(cpu_ms(lambda: call_json(method, body)) for body in bodies)
            rows.append((rpc, worst[1], worst[0], worst[2], json_ms, json_outcome))
        rows.append(("first use of a time zone", "once per zone and process", cold_ms, "OK", cold_ms, "OK"))

    width = max(len(r[0]) for r in rows)
    print(f"duetime request cost: server CPU time, least of {args.runs} runs "
          f"(python {sys.version.split()[0]}, bound {args.bound_ms:g} ms)")
    print(f"{'RPC':<{width}}  {'CPU ms':>8}  {'':4}  {'outcome':<16}  {'JSON ms':>8}  {'':4}  "
          f"{'JSON outcome':<16}  costliest request")
    failed = json_failed = 0
    for rpc, which, ms, outcome, json_ms, json_outcome in rows:
        ok, json_ok = ms <= args.bound_ms, json_ms <= args.bound_ms
        failed += not ok
        json_failed += not json_ok
        print(f"{rpc:<{width}}  {ms:8.1f}  {'PASS' if ok else 'FAIL':4}  {outcome:<16}  {json_ms:8.1f}  "
              f"{'PASS' if json_ok else 'FAIL':4}  {json_outcome:<16}  {which}")
    print("CPU ms: as gRPC answers (the request's bytes parsed, the answer's serialized). JSON ms: as "
          "HTTP/JSON answers the same request (refused before reading when over the body limit or "
          "the bytes in flight of a default server; else read from JSON, the answer printed as JSON)")
    print(f"{'PASS' if not failed else 'FAIL'}: gRPC, {len(rows) - failed} of {len(rows)} rows within "
          f"{args.bound_ms:g} ms; {'PASS' if not json_failed else 'FAIL'}: HTTP/JSON, "
          f"{len(rows) - json_failed} of {len(rows)} rows within {args.bound_ms:g} ms")
    return 0 if not (failed or json_failed) else 1


if __name__ == "__main__":
    sys.exit(main())
