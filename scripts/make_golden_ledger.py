#!/usr/bin/env python3
"""Write the golden ledger: a SQLite ledger of several hundred recorded answers.

Drives a :class:`duetime.app.DueTimeApp` (built by :func:`duetime.compose.build_app`) in process over a new SQLite ledger and
the repository's ``calendars/`` catalog with a fixed, varied set of requests
over every recorded RPC: ComputeDueTime (inline calendars and every bundle,
elapsed / business-day / business-time / ISO durations, negative ones,
relative deadlines ``Nbd@TIME``, DST gaps and folds, Pacific/Apia's skipped
2011-12-30, overrides and extra working days, overnight shifts, explanations,
``at_close``), ComputeBusinessTime, GetOpenStatus, ComputeSchedule,
StartClock, ApplyClockEvent (chained on the states returned) and EvaluateSla
(every policy of the catalog, several histories); some with idempotency keys,
some in namespaces, some as items of a batch (each item is recorded).

Every request here is meant to be answered: the script stops with an error
if one is refused. A few refused requests are sent on purpose, each checked
to be refused and left unrecorded. Requests are the same on every run;
record ids (random) and the file's bytes are not.

    python scripts/make_golden_ledger.py [OUT]   (default tests/golden/ledger.sqlite)

``tests/test_replay.py`` replays the committed file: it is made once, by
today's duetime, and never made again to get a test to pass.
"""

from __future__ import annotations

import sqlite3
import sys
from collections import Counter
from datetime import datetime, timedelta, timezone
from pathlib import Path

from google.protobuf import timestamp_pb2

from duetime.api.convert import (
    BUSINESS_TIME,
    CLOCK_EVENT,
    DUE_TIME,
    EVALUATE_SLA,
    OPEN_STATUS,
    SCHEDULE,
    START_CLOCK,
    WireMethod,
)
from duetime.app import DueTimeApp
from duetime.compose import build_app
from duetime.catalog import Catalog
from duetime.core import DuetimeError
from duetime.ledger import SqliteLedger
from duetime.v1 import duetime_pb2 as pb

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "golden" / "ledger.sqlite"
RECEIVED = datetime(2026, 12, 1, 9, 0, tzinfo=timezone.utc)
"""When the first call is received; each next call one second later."""

MON_FRI = [1, 2, 3, 4, 5]


def ts(text: str) -> timestamp_pb2.Timestamp:
    """A Timestamp of an RFC 3339 instant."""
    out = timestamp_pb2.Timestamp()
    out.FromDatetime(datetime.fromisoformat(text))
    return out


def hours(days: list[int], *intervals: tuple[str, str]) -> list[pb.DayHours]:
    return [pb.DayHours(weekday=d, intervals=[pb.TimeInterval(start=a, end=b)
                                              for a, b in intervals]) for d in days]


def inline(zone: str, *, weekend: list[int] | None = None, working: list[pb.DayHours] | None = None,
           holidays: tuple[tuple[str, str], ...] = (), **more) -> pb.Calendar:
    cal = pb.Calendar(time_zone=zone, holidays=[pb.Holiday(date=d, name=n) for d, n in holidays],
                      **more)
    if weekend is not None:
        cal.weekend.SetInParent()
        cal.weekend.days.extend(weekend)
    if working is not None:
        cal.working_hours.SetInParent()
        cal.working_hours.days.extend(working)
    return cal


ZAGREB = inline("Europe/Zagreb", holidays=(("2026-12-25", "Christmas"),
                                           ("2026-12-26", "St Stephen's Day"),
                                           ("2027-01-01", "New Year"), ("2026-03-30", "closure")))
ZAGREB_OVERRIDES = inline(
    "Europe/Zagreb", holidays=(("2026-12-25", "Christmas"),),
    date_overrides=[pb.DateOverride(date="2026-12-24", name="Christmas Eve",
                                    intervals=[pb.TimeInterval(start="09:00", end="12:00")]),
                    pb.DateOverride(date="2026-12-31", closed=True, name="inventory"),
                    pb.DateOverride(date="2026-10-25", name="DST Sunday shift",
                                    intervals=[pb.TimeInterval(start="01:00", end="05:00")])],
    extra_working_days=[pb.ExtraWorkingDay(date="2026-12-19", name="make-up Saturday"),
                        pb.ExtraWorkingDay(date="2026-03-28", name="spring Saturday")])
NEW_YORK = inline("America/New_York", working=hours(MON_FRI, ("09:00", "12:00"),
                                                    ("13:00", "17:00")),
                  holidays=(("2026-11-26", "Thanksgiving"), ("2026-12-25", "Christmas")))
NEW_YORK_NIGHTS = inline("America/New_York", weekend=[],
                         working=hours([1, 2, 3, 4, 5, 6, 7], ("22:00", "06:00")))
JERUSALEM = inline("Asia/Jerusalem", weekend=[5, 6],
                   working=hours([7, 1, 2, 3, 4], ("08:30", "17:00")),
                   holidays=(("2026-09-12", "Rosh Hashana"), ("2026-09-21", "Yom Kippur")))
APIA = inline("Pacific/Apia", weekend=[], working=hours([1, 2, 3, 4, 5, 6, 7], ("00:00", "24:00")))
APIA_OFFICE = inline("Pacific/Apia", working=hours(MON_FRI, ("08:00", "16:30")))
ZAGREB_ROUND = inline("Europe/Zagreb", weekend=[],
                      working=hours([1, 2, 3, 4, 5, 6, 7], ("00:00", "24:00")))
ZAGREB_NIGHTS = inline("Europe/Zagreb", working=hours(MON_FRI, ("22:00", "06:00")),
                       holidays=(("2026-12-25", "Christmas"),))
UTC_DEFAULT = pb.Calendar()
HORIZON = inline("Europe/Berlin", holidays=(("2026-12-25", "Christmas"),),
                 holidays_valid_until="2027-12-31")

INLINE = {"zagreb": ZAGREB, "zagreb-overrides": ZAGREB_OVERRIDES, "new-york": NEW_YORK,
          "new-york-nights": NEW_YORK_NIGHTS, "jerusalem": JERUSALEM, "apia": APIA,
          "apia-office": APIA_OFFICE, "zagreb-round": ZAGREB_ROUND,
          "zagreb-nights": ZAGREB_NIGHTS, "utc": UTC_DEFAULT, "berlin-horizon": HORIZON}

BUNDLE_STARTS = {  # a local instant inside each bundle's years, on a working day's morning
    "ae-dubai": "2026-12-01T09:30:00+04:00", "always-open": "2026-12-01T09:30:00+00:00",
    "au-nsw": "2026-12-24T10:00:00+11:00", "de-berlin": "2026-12-23T15:00:00+01:00",
    "gb-england": "2026-12-24T16:30:00+00:00", "hr-zagreb": "2026-12-23T16:00:00+01:00",
    "il-jerusalem": "2026-09-10T16:00:00+03:00", "in-india": "2026-10-30T11:00:00+05:30",
    "jp-tokyo": "2026-12-28T10:00:00+09:00", "support-desk-example": "2026-12-24T11:00:00+01:00",
    "us-new-york": "2026-11-25T15:00:00-05:00",
}
DURATIONS = ["0", "1h", "90m", "2d", "1w", "1bd", "3bd", "10bd", "-2bd", "4bh", "7.5bh", "45bm",
             "-6bh", "P1M", "P1DT2H", "2bd@17:00", "1bd@close", "0bd@09:00", "3bd@open",
             "-1bd@12:00", "P1Y2M3W4DT5H6M7S", "-P1M"]


class Golden:
    """Calls of one app, each one second after the last, counted by RPC."""

    def __init__(self, app: DueTimeApp):
        self.app = app
        self.tick = 0
        self.recorded: Counter[str] = Counter()

    def _received(self) -> datetime:
        self.tick += 1
        return RECEIVED + timedelta(seconds=self.tick)

    def call(self, method: WireMethod, request, namespace: str = "", key: str = ""):
        """Answer and record ``request``; any refusal stops the script."""
        if key:
            request.idempotency_key = key
        try:
            response = self.app.call(method, request, self._received(), namespace)
        except DuetimeError as exc:
            raise SystemExit(f"{method.rpc} refused ({exc.code}: {exc}):\n{request}") from None
        self.recorded[method.rpc] += 1
        return response

    def batch(self, requests: list[pb.ComputeDueTimeRequest], namespace: str = "") -> None:
        """Answer ``requests`` as one BatchComputeDueTimes (each item recorded)."""
        results = self.app.call_many(DUE_TIME, requests, self._received(), namespace)
        for request, result in zip(requests, results, strict=True):
            if isinstance(result, Exception):
                raise SystemExit(f"batch item refused ({result}):\n{request}")
        self.recorded[DUE_TIME.rpc] += len(requests)

    def refused(self, method: WireMethod, request) -> None:
        """Check that ``request`` is refused (and so not recorded)."""
        try:
            self.app.call(method, request, self._received())
        except DuetimeError:
            return
        raise SystemExit(f"{method.rpc} was answered, though meant to be refused:\n{request}")


def due(start: str, duration: str, calendar: pb.Calendar, **more) -> pb.ComputeDueTimeRequest:
    return pb.ComputeDueTimeRequest(start=ts(start), duration=duration, calendar=calendar, **more)


def due_times(g: Golden) -> None:
    # every inline calendar with a spread of durations, explanations on every third
    starts = {
        "zagreb": ["2026-12-23T16:00:00+01:00", "2026-03-27T10:00:00+01:00",
                   "2026-10-23T16:30:00+02:00"],
        "zagreb-overrides": ["2026-12-24T10:00:00+01:00", "2026-12-18T15:00:00+01:00",
                             "2026-10-24T23:00:00+02:00"],
        "new-york": ["2026-03-06T11:30:00-05:00", "2026-10-30T16:00:00-04:00",
                     "2026-11-25T12:30:00-05:00"],
        "new-york-nights": ["2026-03-07T23:00:00-05:00", "2026-10-31T23:30:00-04:00"],
        "jerusalem": ["2026-03-26T16:00:00+02:00", "2026-10-22T15:00:00+03:00",
                      "2026-09-10T12:00:00+03:00"],
        "apia": ["2011-12-29T12:00:00-10:00", "2011-12-29T23:30:00-10:00"],
        "apia-office": ["2011-12-29T15:00:00-10:00"],
        "zagreb-round": ["2026-03-28T23:30:00+01:00", "2026-10-24T23:30:00+02:00"],
        "zagreb-nights": ["2026-12-24T23:00:00+01:00", "2026-03-27T23:00:00+01:00"],
        "utc": ["2026-12-04T16:00:00+00:00"],
        "berlin-horizon": ["2027-12-20T10:00:00+01:00"],
    }
    n = 0
    for name, cal in INLINE.items():
        for start in starts[name]:
            for duration in DURATIONS:
                if (name == "berlin-horizon" and duration in ("10bd", "P1M", "P1Y2M3W4DT5H6M7S")
                        or name == "apia" and duration == "1bd@close"):
                    # past the calendar's holiday horizon; or the next business day
                    # is 2011-12-30, which Apia skipped: refused
                    g.refused(DUE_TIME, due(start, duration, cal))
                    continue
                n += 1
                g.call(DUE_TIME, due(start, duration, cal, explain=n % 3 == 0))
    # every bundle, bare name and pinned, extra holidays beside a bundle
    for name, start in BUNDLE_STARTS.items():
        version = g.app.catalog.bundles.resolve(name).version
        for i, duration in enumerate(["1bd", "8bh", "-3bd", "P1M", "2bd@open"]):
            bundle = name if i % 2 == 0 else f"{name}@{version}"
            g.call(DUE_TIME, due(start, duration, pb.Calendar(bundle=bundle), explain=i == 1))
        g.call(DUE_TIME, due(start, "2bd", pb.Calendar(
            bundle=name, holidays=[pb.Holiday(date=start[:10], name="company day")])))
    # DST: gaps and folds reached by the answer, elapsed and wall-clock
    for start, zone_cal in [("2026-03-28T02:30:00+01:00", ZAGREB_ROUND),
                            ("2026-03-07T02:30:00-05:00", NEW_YORK_NIGHTS),
                            ("2026-03-26T02:30:00+02:00", JERUSALEM),
                            ("2026-10-24T02:30:00+02:00", ZAGREB_ROUND),
                            ("2026-10-31T01:30:00-04:00", NEW_YORK_NIGHTS)]:
        for duration in ("1d", "24h", "P1D", "1bd", "P1DT0H", "-P1D"):
            g.call(DUE_TIME, due(start, duration, zone_cal, explain=True))
    # at_close, both ways, landing exactly on a closing time
    for at_close in (pb.AT_CLOSE_UNSPECIFIED, pb.AT_CLOSE_END_OF_WINDOW, pb.AT_CLOSE_NEXT_OPEN):
        for duration in ("8bh", "3bh", "1bh30bm", "-8bh"):
            g.call(DUE_TIME, due("2026-12-22T09:00:00+01:00", duration, ZAGREB,
                                 at_close=at_close, explain=at_close == pb.AT_CLOSE_NEXT_OPEN))
            g.call(DUE_TIME, due("2026-11-24T09:00:00-05:00", duration, NEW_YORK,
                                 at_close=at_close))
    # idempotency keys and namespaces; a key sent again is answered, not recorded again
    for i in range(6):
        request = due("2026-12-21T10:00:00+01:00", f"{i + 1}bd", ZAGREB)
        g.call(DUE_TIME, request, key=f"ticket-{i}")
        g.call(DUE_TIME, due("2026-12-21T10:00:00+01:00", f"{i + 1}bd", ZAGREB),
               namespace="tenant-a", key=f"ticket-{i}")
    again = due("2026-12-21T10:00:00+01:00", "1bd", ZAGREB, idempotency_key="ticket-0")
    g.app.call(DUE_TIME, again, g._received())  # the first answer again, not a new record
    for duration in ("2bd", "5bh", "P2W"):
        g.call(DUE_TIME, due("2026-12-11T12:00:00+01:00", duration, pb.Calendar(bundle="hr-zagreb")),
               namespace="tenant-b")


def batches(g: Golden) -> None:
    items = [due("2026-12-23T16:00:00+01:00", d, ZAGREB) for d in ("1bd", "2bh", "P1W")]
    items += [due(start, "1bd", pb.Calendar(bundle=name)) for name, start in BUNDLE_STARTS.items()]
    items += [due("2026-03-07T23:00:00-05:00", "4bh", NEW_YORK_NIGHTS, explain=True),
              due("2011-12-29T20:00:00-10:00", "6h", APIA, idempotency_key="batch-apia")]
    g.batch(items)
    g.batch([due("2026-12-24T10:00:00+01:00", d, ZAGREB_OVERRIDES, idempotency_key=f"b-{d}")
             for d in ("1bd", "3bh", "-1bd", "0bd@12:00")], namespace="tenant-a")


def business_times(g: Golden) -> None:
    spans = [("2026-12-23T10:00:00+01:00", "2027-01-04T12:00:00+01:00", ZAGREB),
             ("2026-12-18T08:00:00+01:00", "2026-12-31T18:00:00+01:00", ZAGREB_OVERRIDES),
             ("2026-03-06T10:00:00-05:00", "2026-03-10T10:00:00-04:00", NEW_YORK),
             ("2026-03-07T20:00:00-05:00", "2026-03-09T08:00:00-04:00", NEW_YORK_NIGHTS),
             ("2026-10-22T08:00:00+03:00", "2026-10-27T18:00:00+02:00", JERUSALEM),
             ("2011-12-29T00:00:00-10:00", "2012-01-01T00:00:00+14:00", APIA),
             ("2026-10-24T00:00:00+02:00", "2026-10-26T00:00:00+01:00", ZAGREB_ROUND),
             ("2026-12-01T00:00:00+00:00", "2026-12-01T00:00:00+00:00", UTC_DEFAULT),
             ("2026-12-07T09:00:00+00:00", "2026-12-04T09:00:00+00:00", UTC_DEFAULT)]
    for i, (start, end, cal) in enumerate(spans):
        for explain in (False, True):
            g.call(BUSINESS_TIME, pb.ComputeBusinessTimeRequest(
                start_time=ts(start), end_time=ts(end), calendar=cal, explain=explain),
                key=f"bt-{i}" if explain and i % 2 else "")
    for name, start in BUNDLE_STARTS.items():
        end = (datetime.fromisoformat(start) + timedelta(days=12)).isoformat()
        g.call(BUSINESS_TIME, pb.ComputeBusinessTimeRequest(
            start_time=ts(start), end_time=ts(end), calendar=pb.Calendar(bundle=name)))


def open_statuses(g: Golden) -> None:
    times = {"zagreb": ["2026-12-25T10:00:00+01:00", "2026-12-23T12:00:00+01:00",
                        "2026-12-23T18:00:00+01:00", "2026-12-26T10:00:00+01:00"],
             "zagreb-overrides": ["2026-12-24T11:00:00+01:00", "2026-12-24T13:00:00+01:00",
                                  "2026-12-31T10:00:00+01:00", "2026-12-19T10:00:00+01:00"],
             "new-york": ["2026-11-26T10:00:00-05:00", "2026-11-27T12:30:00-05:00"],
             "new-york-nights": ["2026-03-08T01:30:00-05:00", "2026-11-01T01:30:00-04:00",
                                 "2026-11-01T01:30:00-05:00"],
             "jerusalem": ["2026-09-12T10:00:00+03:00", "2026-10-23T10:00:00+03:00"],
             "apia": ["2011-12-29T23:59:00-10:00", "2011-12-31T00:00:00+14:00"],
             "zagreb-nights": ["2026-12-24T23:30:00+01:00", "2026-12-26T02:00:00+01:00"]}
    for name, instants in times.items():
        for at in instants:
            g.call(OPEN_STATUS, pb.GetOpenStatusRequest(time=ts(at), calendar=INLINE[name]))
    for name, start in BUNDLE_STARTS.items():
        g.call(OPEN_STATUS, pb.GetOpenStatusRequest(time=ts(start), calendar=pb.Calendar(bundle=name)),
               namespace="tenant-a" if name < "h" else "")


def schedules(g: Golden) -> None:
    stages = [
        [pb.DeadlineSpec(name="respond", duration="4bh"),
         pb.DeadlineSpec(name="resolve", duration="3bd"),
         pb.DeadlineSpec(name="close", duration="1bd@close", after="resolve")],
        [pb.DeadlineSpec(name="ack", duration="30m"),
         pb.DeadlineSpec(name="fix", duration="2bd@17:00", after="ack"),
         pb.DeadlineSpec(name="report", duration="P1M", after="fix")],
        [pb.DeadlineSpec(name="first", duration="8bh"),
         pb.DeadlineSpec(name="second", duration="8bh", after="first"),
         pb.DeadlineSpec(name="third", duration="-2bh", after="second")],
    ]
    cases = [("2026-12-23T16:00:00+01:00", ZAGREB), ("2026-12-24T10:00:00+01:00", ZAGREB_OVERRIDES),
             ("2026-10-30T15:00:00-04:00", NEW_YORK), ("2026-03-26T15:00:00+02:00", JERUSALEM),
             ("2026-03-07T23:00:00-05:00", NEW_YORK_NIGHTS),
             ("2026-12-24T11:00:00+01:00", pb.Calendar(bundle="support-desk-example")),
             ("2026-11-25T15:00:00-05:00", pb.Calendar(bundle="us-new-york"))]
    for i, (entered, cal) in enumerate(cases):
        for j, deadlines in enumerate(stages):
            g.call(SCHEDULE, pb.ComputeScheduleRequest(
                entered_time=ts(entered), calendar=cal, deadlines=deadlines,
                at_close=(pb.AT_CLOSE_UNSPECIFIED, pb.AT_CLOSE_END_OF_WINDOW,
                          pb.AT_CLOSE_NEXT_OPEN)[(i + j) % 3],
                explain=(i + j) % 4 == 0), key=f"stage-{i}-{j}" if j == 2 else "",
                namespace="tenant-b" if i == 6 else "")


def clocks(g: Golden) -> None:
    """Clocks started, then events applied, each on the state the last call returned."""
    E = pb.ClockEventType
    histories = [
        ("8bh", ZAGREB, "2026-12-23T10:00:00+01:00",
         [(E.CLOCK_EVENT_TYPE_PAUSE, "2026-12-23T14:00:00+01:00"),
          (E.CLOCK_EVENT_TYPE_RESUME, "2026-12-28T10:00:00+01:00"),
          (E.CLOCK_EVENT_TYPE_RETARGET, "2026-12-28T11:00:00+01:00", "16bh"),
          (E.CLOCK_EVENT_TYPE_STOP, "2026-12-29T16:00:00+01:00")]),
        ("3bd", NEW_YORK, "2026-11-24T10:00:00-05:00",
         [(E.CLOCK_EVENT_TYPE_PAUSE, "2026-11-25T11:00:00-05:00"),
          (E.CLOCK_EVENT_TYPE_RESUME, "2026-11-30T09:30:00-05:00"),
          (E.CLOCK_EVENT_TYPE_RESET, "2026-12-01T12:00:00-05:00"),
          (E.CLOCK_EVENT_TYPE_STOP, "2026-12-10T12:00:00-05:00")]),
        ("48h", ZAGREB_ROUND, "2026-10-24T12:00:00+02:00",
         [(E.CLOCK_EVENT_TYPE_PAUSE, "2026-10-25T02:30:00+02:00"),
          (E.CLOCK_EVENT_TYPE_RESUME, "2026-10-25T02:30:00+01:00"),
          (E.CLOCK_EVENT_TYPE_RETARGET, "2026-10-25T12:00:00+01:00", "72h", pb.RETARGET_ANCHOR_START),
          (E.CLOCK_EVENT_TYPE_STOP, "2026-10-28T12:00:00+01:00")]),
        ("16bh", pb.Calendar(bundle="support-desk-example"), "2026-12-22T09:00:00+01:00",
         [(E.CLOCK_EVENT_TYPE_PAUSE, "2026-12-22T15:00:00+01:00"),
          (E.CLOCK_EVENT_TYPE_RESUME, "2026-12-23T09:00:00+01:00"),
          (E.CLOCK_EVENT_TYPE_STOP, "2027-01-08T09:00:00+01:00")]),
        ("2bd", pb.Calendar(bundle="hr-zagreb"), "2026-12-23T16:00:00+01:00",
         [(E.CLOCK_EVENT_TYPE_RESET, "2026-12-24T10:00:00+01:00"),
          (E.CLOCK_EVENT_TYPE_PAUSE, "2026-12-28T10:00:00+01:00"),
          (E.CLOCK_EVENT_TYPE_RETARGET, "2026-12-28T11:00:00+01:00", "5bd"),
          (E.CLOCK_EVENT_TYPE_RESUME, "2026-12-29T09:00:00+01:00")]),
        ("1d", APIA, "2011-12-29T12:00:00-10:00",
         [(E.CLOCK_EVENT_TYPE_PAUSE, "2011-12-29T20:00:00-10:00"),
          (E.CLOCK_EVENT_TYPE_RESUME, "2011-12-31T08:00:00+14:00")]),
    ]
    for i, (target, cal, start, events) in enumerate(histories):
        namespace = "tenant-a" if i == 1 else ""
        state = g.call(START_CLOCK, pb.StartClockRequest(target=target, start_time=ts(start),
                                                         calendar=cal),
                       namespace=namespace, key=f"clock-{i}" if i % 2 else "").state
        for j, (kind, at, *retarget) in enumerate(events):
            event = pb.ClockEvent(type=kind, time=ts(at))
            if retarget:
                event.target = retarget[0]
                if len(retarget) > 1:
                    event.anchor = retarget[1]
            state = g.call(CLOCK_EVENT, pb.ApplyClockEventRequest(state=state, event=event),
                           namespace=namespace,
                           key=f"clock-{i}-{j}" if (i + j) % 3 == 0 else "").state


def sla_evaluations(g: Golden) -> None:
    def event(kind: str, at: str, **attributes) -> pb.BusinessEvent:
        return pb.BusinessEvent(type=kind, time=ts(at), attributes=attributes)

    histories = [
        [event("start", "2026-12-01T10:00:00+01:00")],
        [event("start", "2026-12-01T10:00:00+01:00"),
         event("awaiting_third_party", "2026-12-02T11:00:00+01:00"),
         event("customer_reply", "2026-12-04T09:00:00+01:00"),
         event("resolved", "2026-12-10T16:00:00+01:00")],
        [event("start", "2026-12-22T09:00:00+01:00"),
         event("tier_change", "2026-12-22T12:00:00+01:00", tier="priority"),
         event("awaiting_third_party", "2026-12-23T10:00:00+01:00"),
         event("customer_reply", "2026-12-28T10:00:00+01:00"),
         event("resolved", "2027-01-05T12:00:00+01:00")],
        [event("start", "2026-03-27T16:00:00+01:00"),
         event("tier_change", "2026-03-28T10:00:00+01:00", tier="priority"),
         event("customer_reply", "2026-03-30T09:00:00+02:00"),
         event("tier_change", "2026-03-31T09:00:00+02:00", tier="standard")],
        [event("start", "2026-10-23T16:00:00+02:00"),
         event("customer_reply", "2026-10-25T02:30:00+02:00"),
         event("customer_reply", "2026-10-25T02:30:00+01:00"),
         event("awaiting_third_party", "2026-11-20T10:00:00+01:00")],
    ]
    def shifted(history: list[pb.BusinessEvent], days: int) -> list[pb.BusinessEvent]:
        moved = [pb.BusinessEvent(type=e.type, time=e.time, attributes=e.attributes)
                 for e in history]
        for e in moved:
            e.time.seconds += days * 86_400
        return moved

    for policy in g.app.catalog.policies.refs():
        name = policy.split("@")[0]
        for days in (0, 1, 2, 3, 7, 14):  # the same histories from other weekdays on
            for i, events in enumerate(histories):
                g.call(EVALUATE_SLA, pb.EvaluateSlaRequest(
                    policy=name if (i + days) % 2 else policy, events=shifted(events, days)),
                    key=f"sla-{days}-{i}" if i == 2 else "",
                    namespace="tenant-b" if i == 3 else "")


def refusals(g: Golden) -> None:
    """Requests refused on purpose: none of them is recorded."""
    g.refused(DUE_TIME, due("2026-12-01T10:00:00+01:00", "1.5bd", ZAGREB))
    g.refused(DUE_TIME, due("2026-12-01T10:00:00+01:00", "1bd", pb.Calendar(bundle="nowhere")))
    g.refused(DUE_TIME, due("2026-12-01T10:00:00+01:00", "2bd@following", ZAGREB))
    g.refused(SCHEDULE, pb.ComputeScheduleRequest(
        entered_time=ts("2026-12-01T10:00:00+01:00"), calendar=ZAGREB,
        deadlines=[pb.DeadlineSpec(name="a", duration="1bd", after="missing")]))
    g.refused(EVALUATE_SLA, pb.EvaluateSlaRequest(policy="no-such-policy"))


def main(argv: list[str]) -> int:
    out = Path(argv[1]) if len(argv) > 1 else OUT
    if out.exists():
        raise SystemExit(f"{out} exists; remove it first (the committed golden ledger is never "
                         "made again to get a test to pass)")
    out.parent.mkdir(parents=True, exist_ok=True)
    app = build_app(SqliteLedger(out), Catalog.load(ROOT / "calendars"))
    g = Golden(app)
    try:
        due_times(g)
        batches(g)
        business_times(g)
        open_statuses(g)
        schedules(g)
        clocks(g)
        sla_evaluations(g)
        refusals(g)
    finally:
        app.close()
    with sqlite3.connect(out) as db:
        stored = Counter(m.rsplit("/", 1)[-1] for (m,) in db.execute("SELECT method FROM records"))
    db.close()
    with sqlite3.connect(out, isolation_level=None) as db:
        db.execute("PRAGMA journal_mode=DELETE")
        db.execute("VACUUM")
    db.close()
    if stored != g.recorded:
        raise SystemExit(f"recorded {dict(g.recorded)}, but the ledger holds {dict(stored)}")
    for rpc, count in sorted(stored.items()):
        print(f"{rpc:20} {count}")
    print(f"{sum(stored.values())} records in {out} ({out.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
