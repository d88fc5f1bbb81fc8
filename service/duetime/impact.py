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
(an answer without one counts one) and :data:`MAX_CALENDARS_WEIGHT` of
distinct inline calendars; past any of them it stops and says ``truncated``
(call again over a later time range).

ComputeDueTime and ComputeSchedule answers are replayed (without their
explanations) and compared due time by due time. CountBusinessDays,
ListOpenPeriods (first pages: a later page's token names the version it was
made in), GetOpenStatus and ComputeBusinessTime answers are replayed and
compared part by part (``answer_changes``: the count, the open periods, each
instant of the open status, the business time), their reasons taken from the
local dates the answer covers. Records of the other methods are listed as
not replayed, with the reason. Why a due time moved is said with the lines of
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
from duetime.api.convert import (
    BUSINESS_TIME,
    COUNT_BUSINESS_DAYS,
    DUE_TIME,
    LIST_OPEN_PERIODS,
    METHODS,
    OPEN_STATUS,
    SCHEDULE,
    record_filter,
)
from duetime.api.status import code_name
from duetime.app import Answering, DueTimeApp
from duetime.app.limits import MAX_BATCH_CALENDAR_WEIGHT, calendar_weight
from duetime.bundles import Bundle, diff_versions
from duetime.catalog import Catalog
from duetime.core import DuetimeError, InvalidArgument, get_zone
from duetime.core.explain import fmt_amount
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
_ANSWERS = (COUNT_BUSINESS_DAYS.name, LIST_OPEN_PERIODS.name, OPEN_STATUS.name, BUSINESS_TIME.name)
"""Methods whose answers have no due time, replayed and compared part by part."""
_NOT_REPLAYED = {
    "StartClock": "a clock keeps the calendar version pinned in its state",
    "ApplyClockEvent": "a clock keeps the calendar version pinned in its state",
    "EvaluateSla": "a policy pins the calendar versions of its tiers",
}
_LATER_PAGE = ("a later page of open periods: its page token names the calendar version it was made "
               "in; the first page of the same query is replayed")
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
                                          f"(0: {DEFAULT_LIMIT}); to examine more records, call "
                                          f"again over a narrower time range (start_time, end_time)")
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
        replayed = row.method in _REPLAYED or row.method in _ANSWERS
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
        if row.method == LIST_OPEN_PERIODS.name and replay.page_token:
            answer.not_replayed.append(pb.SkippedRecord(
                record_id=row.record_id, method=row.method, reason=f"not replayed ({rpc}): {_LATER_PAGE}"))
            continue
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
    if "explain" in request.DESCRIPTOR.fields_by_name:  # only the answers are compared: no explanation
        request.explain = False
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
    if row.method in _ANSWERS:
        return _answer_impact(impact, row, request, recorded, replayed, old, new, tzdata)
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


def _answer_impact(impact: pb.ImpactedRecord, row: LedgerRow, request: Message, recorded: Message,
                   replayed: Message, old: Bundle | None, new: Bundle | None,
                   tzdata: str) -> pb.ImpactedRecord | None:
    """``impact`` with an AnswerChange for each part of an answer without a
    due time that differs between ``recorded`` and ``replayed`` (None when
    none does); the reasons concern the local dates the request and both
    answers cover."""
    parts = _parts(row.method, recorded, replayed)
    changed = [(name, a, b) for name, a, b in parts if a != b]
    if not changed:
        return None
    zones = {recorded.time_zone, replayed.time_zone}
    first, last = _covered_dates(row.method, request, recorded, replayed, zones)
    reasons = _reasons(old, new, first, last)
    if row.tzdata_version != tzdata:
        reasons.append(f"tz database {row.tzdata_version} → {tzdata}")
    if not reasons:
        reasons.append(f"calendar changed ({row.calendar_version} → {replayed.calendar_version})")
    impact.answer_changes.extend(pb.AnswerChange(name=name, old_value=a, new_value=b, reasons=reasons)
                                 for name, a, b in changed)
    return impact


def _instant_text(message: Message, name: str, zone: str) -> str:
    """A Timestamp field in the answer's zone (RFC 3339), or "none" when unset."""
    if not message.HasField(name):
        return "none"
    instant = getattr(message, name).ToDatetime(tzinfo=timezone.utc).astimezone(get_zone(zone))
    return instant.isoformat()


def _period_text(period: pb.OpenPeriod) -> str:
    return f"[{period.start_local}, {period.end_local})"


def _parts(method: str, recorded: Message, replayed: Message) -> list[tuple[str, str, str]]:
    """(JSON name, recorded value, replayed value) of each part compared."""
    if method == COUNT_BUSINESS_DAYS.name:
        return [("businessDays", str(recorded.business_days), str(replayed.business_days))]
    if method == BUSINESS_TIME.name:
        return [("businessTime", fmt_amount(recorded.business_time.ToMicroseconds()),
                 fmt_amount(replayed.business_time.ToMicroseconds())),
                ("businessDays", str(recorded.business_days), str(replayed.business_days))]
    if method == LIST_OPEN_PERIODS.name:
        old, new = list(recorded.periods), list(replayed.periods)
        parts = [("periods", f"{len(old)} period(s), {fmt_amount(_open_us(old))} of open time",
                  f"{len(new)} period(s), {fmt_amount(_open_us(new))} of open time")]
        for i in range(max(len(old), len(new))):  # the first period that differs
            a = _period_text(old[i]) if i < len(old) else "none"
            b = _period_text(new[i]) if i < len(new) else "none"
            if a != b:
                parts.append((f"periods[{i}]", a, b))
                break
        parts.append(("nextPageToken", "more pages" if recorded.next_page_token else "last page",
                      "more pages" if replayed.next_page_token else "last page"))
        return parts
    # GetOpenStatus
    parts = [("open", str(recorded.open).lower(), str(replayed.open).lower()),
             ("businessDay", str(recorded.business_day).lower(), str(replayed.business_day).lower()),
             ("closedReason", recorded.closed_reason or "none", replayed.closed_reason or "none")]
    parts.append(("currentInterval",
                  _interval_text(recorded.current_interval if recorded.HasField("current_interval") else None,
                                 recorded.time_zone),
                  _interval_text(replayed.current_interval if replayed.HasField("current_interval") else None,
                                 replayed.time_zone)))
    for field, name in (("next_open_time", "nextOpenTime"), ("next_close_time", "nextCloseTime"),
                        ("last_open_time", "lastOpenTime"), ("last_close_time", "lastCloseTime")):
        parts.append((name, _instant_text(recorded, field, recorded.time_zone),
                      _instant_text(replayed, field, replayed.time_zone)))
    return parts


def _interval_text(interval: pb.OpenInterval | None, zone: str) -> str:
    if interval is None:
        return "none"
    return f"[{_instant_text(interval, 'start_time', zone)}, {_instant_text(interval, 'end_time', zone)})"


def _open_us(periods: list[pb.OpenPeriod]) -> int:
    return sum(p.end_time.ToMicroseconds() - p.start_time.ToMicroseconds() for p in periods)


def _covered_dates(method: str, request: Message, recorded: Message, replayed: Message,
                   zones: set[str]) -> tuple[date, date]:
    """The first and last local date an answer without a due time covers:
    the request's dates or instants and every instant of both answers."""
    if method == COUNT_BUSINESS_DAYS.name:
        return date.fromisoformat(request.from_date), date.fromisoformat(request.to_date)
    instants: list[Message] = []
    if method == OPEN_STATUS.name:
        instants.append(request.time)
        for answer in (recorded, replayed):
            for field in ("next_open_time", "next_close_time", "last_open_time", "last_close_time"):
                if answer.HasField(field):
                    instants.append(getattr(answer, field))
            if answer.HasField("current_interval"):
                instants += [answer.current_interval.start_time, answer.current_interval.end_time]
    else:  # ListOpenPeriods, ComputeBusinessTime
        instants += [request.start_time, request.end_time]
    return _local_dates(zones, *instants)
