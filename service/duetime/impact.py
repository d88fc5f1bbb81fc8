"""Impact analysis: what a calendar change would move, before it is made.

:func:`analyze` reads recorded answers and replays the ones a change concerns,
without recording anything and without changing any record:

- a new version of a calendar bundle (``name@NEW``): every record whose
  ``calendar_version`` names an *older* loaded version of ``name`` (the
  bundle's versions are ordered oldest first) — ``name@old`` alone or
  ``name@old+cal-…`` with extra inline holidays — is replayed with its
  request's bundle pinned to ``name@NEW`` (extra holidays kept);
- the tz database (``tzdata``): every record computed with another tzdata
  version than this process's is replayed in its own calendar version (a
  bundle named without a version is pinned to the one the record used).

Only the records a change may concern are read (the store selects them by
their calendar and tz database versions, a page at a time). One analysis
replays at most ``limit`` records (1,000), :data:`MAX_DUE_TIMES` due times
and :data:`MAX_CALENDARS_WEIGHT` of distinct inline calendars; past any of
them it stops and says ``truncated`` (call again over a later time range).

ComputeDueTime and ComputeSchedule answers are replayed (without their
explanations) and compared due time by due time; records of the other
methods are listed as not replayed, with the reason. Why a due time moved is said with the lines of
:func:`duetime.bundles.diff_versions` that concern the local dates from the
start to the later of the old and new due times (lines about the whole week,
such as the weekend or working hours, always concern it; a week period
concerns it when it begins on or before the later due time), the tz database
change, or "calendar changed" when no listed difference falls in that range.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date, timezone

from google.protobuf.message import Message

from duetime import tzdb
from duetime.api.convert import DUE_TIME, METHODS, SCHEDULE, record_filter
from duetime.api.status import code_name
from duetime.app import Answering, DueTimeApp
from duetime.app.limits import MAX_BATCH_CALENDAR_WEIGHT, calendar_weight
from duetime.bundles import Bundle, diff_versions
from duetime.catalog import Catalog
from duetime.core import DuetimeError, InvalidArgument, get_zone
from duetime.ledger import Concern, LedgerRow, RecordFilter
from duetime.v1 import duetime_pb2 as pb

DEFAULT_LIMIT = 1000
"""Records considered when the request gives no limit."""
MAX_LIMIT = 1_000
"""Most records one analysis considers."""
IMPACT_PAGE = 20
"""Records read from the ledger at a time: only those the change may
concern, selected by the store (their calendar or tz database version).
Small, so that a call holds little of a ledger of large records."""
MAX_DUE_TIMES = 1_000
"""Most due times one analysis replays (a ComputeDueTime record has one, a
ComputeSchedule record one per deadline): the analysis stops before the
record that would pass it, and says ``truncated``."""
MAX_CALENDARS_WEIGHT = MAX_BATCH_CALENDAR_WEIGHT
"""Most weight (:func:`duetime.app.limits.calendar_weight`) of the distinct
inline calendars one analysis builds to replay its records, as for one
batch message: the analysis stops before the record that would pass it,
and says ``truncated``."""
MAX_ERROR_TEXT = 300
"""A failed replay's error is cut to this many characters."""

_REPLAYED = (DUE_TIME.name, SCHEDULE.name)
_NOT_REPLAYED = {
    "ComputeBusinessTime": "it has no due time",
    "GetOpenStatus": "it has no due time",
    "StartClock": "a clock keeps the calendar version pinned in its state",
    "ApplyClockEvent": "a clock keeps the calendar version pinned in its state",
    "EvaluateSla": "a policy pins the calendar versions of its tiers",
    "ListOpenPeriods": "it has no due time",
    "CountBusinessDays": "it has no due time",
}
_DATE = re.compile(r"\b(\d{4}-\d{2}-\d{2})\b")
_CHANGE_WORDS = {"+": "added in", "-": "removed in", "~": "in"}


def analyze(request: pb.AnalyzeImpactRequest, app: DueTimeApp,
            select: Callable[[pb.AnalyzeImpactRequest], RecordFilter] | None = None,
            check: Callable[[], None] | None = None) -> pb.AnalyzeImpactResponse:
    """Replay the records ``request`` concerns (see the module docstring),
    reading ``app``'s ledger and answering, unrecorded, from its catalog as
    it is when the call starts. ``select``: the filter of the records to
    read, made from the request (None: its time range and namespace, by
    :func:`duetime.api.convert.record_filter`); a face narrows it to the
    caller's namespaces. Only the records the change may concern are read
    (:class:`~duetime.ledger.Concern`: the store selects them by calendar
    and tz database version), :data:`IMPACT_PAGE` at a time;
    ``records_examined`` counts every record of the range up to where the
    analysis stopped. ``check`` (None: none): the call's cooperative
    deadline check, called before each record the change may concern is
    examined, before each page is read and while a replay builds a
    calendar; what it raises stops the analysis. Raises
    InvalidArgument: neither ``calendar`` nor ``tzdata``, an unknown bundle
    or version on ``calendar``, a negative or too large ``limit``, a bad time
    range or namespace; what ``select`` raises (a namespace the caller may
    not read).
    """
    catalog = app.catalog
    answering = app.answering(catalog=catalog, check=check)
    if not request.calendar and not request.tzdata:
        raise InvalidArgument.at("calendar", "is required unless tzdata is true: the new bundle "
                                             "version, e.g. hr-zagreb@f45226394a32")
    if not 0 <= request.limit <= MAX_LIMIT:
        raise InvalidArgument.at("limit", f"{request.limit} is not in 0..{MAX_LIMIT} "
                                          f"(0: {DEFAULT_LIMIT})")
    new = catalog.bundles.resolve(request.calendar, field="calendar") if request.calendar else None
    older = _older_versions(catalog, new)
    tzdata = tzdb.tzdata_version()
    flt = select(request) if select is not None else record_filter(request, app.limits)
    limit = request.limit or DEFAULT_LIMIT
    answer = pb.AnalyzeImpactResponse(calendar_version=new.ref if new else "",
                                      tzdata_version=tzdata)
    concern = Concern(tuple(f"{new.name}@{v}" for v in sorted(older)),
                      tzdata if request.tzdata else None)
    considered = due_times = calendars_weight = 0
    calendars: set[bytes] = set()  # the distinct inline calendars replayed in
    through = None  # the position of the last record examined when truncated
    for row in app.concerned_records(flt, concern, IMPACT_PAGE, check):
        if check is not None:
            check()
        old_version = next((v for v in _versions_of(row.calendar_version, new.name)
                            if v in older), None) if new else None
        tz_changed = request.tzdata and row.tzdata_version != tzdata
        if old_version is None and not tz_changed:
            continue
        replayed = row.method in _REPLAYED
        replay = METHODS[row.method].request_type.FromString(row.request) if replayed else None
        weight = (len(replay.deadlines) if row.method == SCHEDULE.name else 1) if replayed else 0
        calendar = _inline_calendar(replay) if replayed else None
        more = calendar_weight(replay.calendar) if calendar is not None and calendar not in calendars else 0
        if considered == limit or (answer.records_replayed and (
                due_times + weight > MAX_DUE_TIMES or calendars_weight + more > MAX_CALENDARS_WEIGHT)):
            answer.truncated = True
            through = (row.receive_time_us, row.record_id)
            break
        considered += 1
        rpc = row.method.rsplit("/", 1)[-1]
        if not replayed:
            why = _NOT_REPLAYED.get(rpc, "this duetime does not know the method")
            answer.not_replayed.append(pb.SkippedRecord(
                record_id=row.record_id, method=row.method, reason=f"not replayed ({rpc}): {why}"))
            continue
        answer.records_replayed += 1
        due_times += weight
        calendars_weight += more
        if calendar is not None:
            calendars.add(calendar)
        old_bundle = (catalog.bundles.resolve(f"{new.name}@{old_version}")
                      if old_version else None)
        changed = _replay(row, replay, new if old_bundle else None, old_bundle, app, answering, tzdata)
        if changed is not None:
            answer.changes.append(changed)
    answer.records_examined = app.count_records(flt, through)
    return answer


def _older_versions(catalog: Catalog, new: Bundle | None) -> set[str]:
    """The loaded versions of ``new``'s bundle listed before it."""
    if new is None:
        return set()
    versions = [b.version for b in catalog.bundles.versions(new.name)]
    return set(versions[:versions.index(new.version)])


def _versions_of(calendar_version: str, name: str) -> list[str]:
    """The versions of bundle ``name`` a record's calendar_version names:
    ``name@v``, ``name@v+cal-…``, or several of them joined by ``,``."""
    found = []
    for part in calendar_version.split(","):
        ref = part.split("+", 1)[0]
        bundle, at, version = ref.partition("@")
        if at and bundle == name:
            found.append(version)
    return found


def _inline_calendar(request: Message) -> bytes | None:
    """The bytes of ``request``'s calendar when a replay builds it anew (it
    gives more than a bundle's name), else None."""
    calendar = request.calendar
    if not request.HasField("calendar") or (calendar.bundle and len(calendar.ListFields()) == 1):
        return None
    return calendar.SerializeToString(deterministic=True)


def _replay(row: LedgerRow, request: Message, new: Bundle | None, old: Bundle | None,
            app: DueTimeApp, answering: Answering, tzdata: str) -> pb.ImpactedRecord | None:
    """The ImpactedRecord of one ComputeDueTime or ComputeSchedule record
    (``request``: its request, read from the record; changed here), or None
    when no due time moves. ``new``/``old``: the bundle versions of a
    calendar change (None: only the tz database changed); the replay is
    answered by ``app`` from ``answering``, unrecorded."""
    method = METHODS[row.method]
    request.explain = False  # only the due times are compared: no explanation is needed
    recorded = method.response_type.FromString(row.response)
    if new is not None:
        request.calendar.bundle = new.ref
    elif request.calendar.bundle:  # pin a bare name to the version the record used
        request.calendar.bundle = row.calendar_version.split("+", 1)[0]
    impact = pb.ImpactedRecord(
        record_id=row.record_id, method=row.method, idempotency_key=row.idempotency_key,
        namespace=row.namespace, old_calendar_version=row.calendar_version,
        old_tzdata_version=row.tzdata_version)
    try:
        replayed = app.answer(method, request, answering)
    except DuetimeError as exc:
        text = f"{code_name(exc)}: {exc}"
        impact.error = text if len(text) <= MAX_ERROR_TEXT else text[:MAX_ERROR_TEXT - 1] + "…"
        return impact
    impact.new_calendar_version = replayed.calendar_version
    if row.method == DUE_TIME.name:
        start, pairs = request.start, [("due", recorded.due, recorded.due_local,
                                        replayed.due, replayed.due_local)]
    else:
        start = request.entered_time
        pairs = [(a.name, a.due_time, a.due_local, b.due_time, b.due_local)
                 for a, b in zip(recorded.deadlines, replayed.deadlines, strict=True)]
    zones = {recorded.time_zone, replayed.time_zone}
    for name, old_due, old_local, new_due, new_local in pairs:
        if old_due == new_due:
            continue
        first, last = _local_dates(zones, start, old_due, new_due)
        reasons = _reasons(old, new, first, last)
        if row.tzdata_version != tzdata:
            reasons.append(f"tz database {row.tzdata_version} → {tzdata}")
        if not reasons:
            reasons.append(f"calendar changed ({row.calendar_version} → "
                           f"{replayed.calendar_version})")
        impact.due_times.append(pb.DueTimeChange(
            name=name, old_due_time=old_due, new_due_time=new_due, old_due_local=old_local,
            new_due_local=new_local, reasons=reasons))
    return impact if impact.due_times else None


def _local_dates(zones: set[str], *instants: Message) -> tuple[date, date]:
    """The first and last local date of ``instants`` (Timestamps) in any of ``zones``."""
    days = [ts.ToDatetime(tzinfo=timezone.utc).astimezone(get_zone(zone)).date()
            for ts in instants for zone in zones]
    return min(days), max(days)


def _reasons(old: Bundle | None, new: Bundle | None, first: date, last: date) -> list[str]:
    """The differences from ``old`` to ``new`` that concern the local dates
    ``first``..``last``, in words."""
    if old is None or new is None:
        return []
    reasons = []
    for line in diff_versions(old.content, new.content):
        if line == "no differences" or line.startswith("holidays package:"):
            continue
        dated = _DATE.search(line)
        if dated and " week from " in f" {line}":  # a week period holds from its date on (docs/semantics.md §16)
            if date.fromisoformat(dated.group(1)) > last:
                continue
        elif dated and not first <= date.fromisoformat(dated.group(1)) <= last:
            continue
        sign, _, rest = line.partition(" ")
        if sign in _CHANGE_WORDS:
            reasons.append(f"{rest} {_CHANGE_WORDS[sign]} {new.ref}")
        else:
            reasons.append(f"{line} in {new.ref}")
    return reasons
