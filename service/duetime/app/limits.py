"""The size limits of one app, in one place, and the text checks that apply them.

:class:`Limits` holds every bound an input is checked against before it is
parsed (or echoed back in an error); the composition root
(:func:`duetime.compose.build_app`) hands one to the app, which passes it to
every check. Its defaults are the limits ``duetime serve`` applies.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from duetime.core import FieldViolation, InvalidArgument
from duetime.core.calendar import (
    MAX_DATE_OVERRIDES,
    MAX_DATES,
    MAX_EXTRA_WORKING_DAYS,
    MAX_HOLIDAYS,
    MAX_INTERVALS,
    MAX_INTERVALS_PER_DAY,
    MAX_WEEK_PERIODS,
    CalendarLimits,
)

NAMESPACE_METADATA = "x-duetime-namespace"
"""gRPC request metadata naming the caller's idempotency namespace."""
NAMESPACE_FIELD = f"metadata {NAMESPACE_METADATA}"
"""The field errors about the namespace name."""

MAX_BATCH_ITEMS = 1_000
"""Most requests one BatchComputeDueTimes call (or one stream message) may hold."""
STREAM_CHUNK = 1_000
"""Most items of a stream answered (and committed) together."""
MAX_IDEMPOTENCY_KEY = 200
"""Longest accepted idempotency key, in characters."""
MAX_RECOMPUTATIONS = 2**62
"""A clock state's recomputation counter stays far below int64's end."""
MAX_RUNNING_INTERVALS = 100
"""Running intervals a clock state may carry (one per pause/resume cycle;
a RETARGET anchored at the clock's start measures every one of them)."""
MAX_HOLIDAY_RANGE_DAYS = 366 * 20
"""Most days ListHolidays' end_date may lie after its start_date."""
MAX_TIME_ZONE = 64
"""Longest accepted time zone name (the longest IANA name has 32 characters)."""
MAX_BUNDLE_REF = 128
"""Longest accepted bundle or policy reference (``name@version``)."""
MAX_DURATION_TEXT = 256
"""Longest accepted duration or clock target text."""
MAX_NAME = 200
"""Longest accepted name of a holiday, override, extra working day or deadline."""
# The calendar's own bounds are defined beside the calendar parser
# (duetime.core.calendar), which applies them to bundles too; listed here with
# every other limit:
#   MAX_HOLIDAYS            holidays one calendar may list (10,000)
#   MAX_DATE_OVERRIDES      date overrides one calendar may give (10,000)
#   MAX_EXTRA_WORKING_DAYS  extra working days one calendar may list (10,000)
#   MAX_DATES               holidays, overrides and extra working days together (5,000)
#   MAX_INTERVALS_PER_DAY   working intervals of one weekday or one override (48)
#   MAX_INTERVALS           working intervals of one calendar, week and overrides (10,000)
#   MAX_WEEK_PERIODS        week periods of one calendar (25)
MAX_DEADLINES = 100
"""Most deadlines one ComputeSchedule request may ask for."""
MAX_SLA_EVENTS = 1_000
"""Most events one EvaluateSla request may replay."""
MAX_SLA_METRIC_WORK = 18_000
"""Most work one EvaluateSla request of a policy with metrics may ask for:
its events times what one event weighs under the policy
(:func:`sla_event_weight`). Under the bundled support-sla policy (three
metrics, two intervals a day) an event weighs 39: 461 events."""
SLA_METRIC_WEIGHT = 11
"""What each metric adds to an event's weight beyond its calendar's intervals."""
MAX_EXPLANATION_WEIGHT = 100
"""Most explanation weight one request may carry: the items of one
BatchComputeDueTimes call (or one stream message) with ``explain`` set, or
the deadlines of one ComputeSchedule request with ``explain`` set, each
weighing what :func:`explanation_weight` says of its calendar. An
explanation describes up to 62 dates, every open interval of each: in a
calendar of 48 intervals a day it is thousands of steps. 100 is two
answers in such a calendar, or 100 (a whole schedule of the most
deadlines) in a calendar of one interval a day: explaining an answer costs
about 15 µs a step, described, converted and printed as JSON, so that the
explanations one request may ask for stay within about 100 ms (144, as
before, took the HTTP/JSON face of a batch past 250 ms: bench/cost.py)."""
MAX_CLOCK_WARNINGS = 8
"""Most warning thresholds one StartClock or ApplyClockEvent request may give."""
CALENDAR_WEIGHT = 200
"""What building one inline calendar weighs before its entries (see
:func:`calendar_weight`)."""
WEEK_INTERVAL_WEIGHT = 3
"""What one working interval of a calendar's week (its ``working_hours``)
weighs: measured again on every date a DST change touches."""
MAX_BATCH_CALENDAR_WEIGHT = 6_000
"""Most weight (:func:`calendar_weight`) the distinct inline calendars of one
BatchComputeDueTimes call (or one stream message) may have together: 39
small calendars, or 8 of 48 intervals every weekday, or one of 5,000 dates;
building them costs about 0.01 ms per unit of weight, so that they and the
explanations one message may ask for stay within 250 ms. A calendar heavier
than that (the largest the limits allow weigh about 15,900; real ones a few
hundred) is answered by ComputeDueTime, or named as a bundle."""
MAX_LIST_BYTES = 1 << 20
"""A ListRecords page stops growing once its records reach this many bytes
(a page printed as JSON takes about 0.15 s of CPU a MiB)."""
DEFAULT_CALENDAR_CACHE = 1024
"""Inline calendars kept built (``duetime serve --calendar-cache``, env
``DUETIME_CALENDAR_CACHE``)."""


@dataclass(frozen=True)
class Limits:
    """Every size limit of one app (counts of items, characters of texts,
    bytes of a page). Immutable: an app built with other limits is another
    app. The defaults are the module constants of the same names."""

    max_batch_items: int = MAX_BATCH_ITEMS
    stream_chunk: int = STREAM_CHUNK
    max_idempotency_key: int = MAX_IDEMPOTENCY_KEY
    max_recomputations: int = MAX_RECOMPUTATIONS
    max_running_intervals: int = MAX_RUNNING_INTERVALS
    max_holiday_range_days: int = MAX_HOLIDAY_RANGE_DAYS
    max_time_zone: int = MAX_TIME_ZONE
    max_bundle_ref: int = MAX_BUNDLE_REF
    max_duration_text: int = MAX_DURATION_TEXT
    max_name: int = MAX_NAME
    max_date_overrides: int = MAX_DATE_OVERRIDES
    max_holidays: int = MAX_HOLIDAYS
    max_extra_working_days: int = MAX_EXTRA_WORKING_DAYS
    max_dates: int = MAX_DATES
    max_intervals_per_day: int = MAX_INTERVALS_PER_DAY
    max_intervals: int = MAX_INTERVALS
    max_deadlines: int = MAX_DEADLINES
    max_sla_events: int = MAX_SLA_EVENTS
    max_sla_metric_work: int = MAX_SLA_METRIC_WORK
    max_explanation_weight: int = MAX_EXPLANATION_WEIGHT
    max_list_bytes: int = MAX_LIST_BYTES
    max_clock_warnings: int = MAX_CLOCK_WARNINGS
    max_week_periods: int = MAX_WEEK_PERIODS

    @property
    def calendar(self) -> CalendarLimits:
        """The calendar's bounds among these, as the calendar parser takes them."""
        return CalendarLimits(self.max_holidays, self.max_date_overrides, self.max_extra_working_days,
                              self.max_dates, self.max_intervals_per_day, self.max_intervals,
                              max_week_periods=self.max_week_periods)


DEFAULT_LIMITS = Limits()
"""The limits ``duetime serve`` applies unless told otherwise."""

_NAMESPACE = re.compile(r"[A-Za-z0-9._-]{1,64}")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")
"""What no ledger can store or search for in a text: NUL (PostgreSQL's text
cannot hold it) and unpaired surrogates (not encodable as UTF-8)."""


def too_long(text: str, field: str, limit: int) -> FieldViolation | None:
    """A violation on ``field`` when ``text`` has more than ``limit``
    characters (the text itself is not echoed), else None."""
    if len(text) <= limit:
        return None
    return FieldViolation(field, f"is {len(text)} characters long; at most {limit} are allowed")


def unstorable_problem(text: str, field: str) -> FieldViolation | None:
    """A violation on ``field`` when ``text`` holds a character no ledger can
    store or search for: NUL (U+0000) or an unpaired surrogate (U+D800 to
    U+DFFF, which JSON's ``\\ud800`` escapes can give). Else None. Every text
    that reaches a store goes through it, so both stores answer alike."""
    found = _UNSTORABLE.search(text)
    if found is None:
        return None
    char = found.group()
    what = "NUL" if char == "\x00" else "an unpaired surrogate"
    return FieldViolation(field, f"contains U+{ord(char):04X} ({what}) at position "
                                 f"{found.start() + 1}; remove it: no text duetime stores or "
                                 "searches for may hold one")


def check_text(text: str, field: str, limit: int) -> None:
    """InvalidArgument on ``field`` when ``text`` has more than ``limit``
    characters (:func:`too_long`) or holds a character no ledger can store
    or search for (:func:`unstorable_problem`)."""
    if problem := too_long(text, field, limit) or unstorable_problem(text, field):
        raise InvalidArgument([problem])


def check_length(text: str, field: str, limit: int) -> None:
    """InvalidArgument on ``field`` when ``text`` has more than ``limit`` characters."""
    if problem := too_long(text, field, limit):
        raise InvalidArgument([problem])


def name_problem(text: str, field: str, limit: int = MAX_NAME) -> FieldViolation | None:
    """A violation when a name is longer than ``limit`` characters or holds a
    control character (U+0000–U+001F, U+007F), else None."""
    if problem := too_long(text, field, limit):
        return problem
    if found := _CONTROL.search(text):
        return FieldViolation(field, f"contains the control character U+{ord(found.group()):04X} "
                                     f"at position {found.start() + 1}; names are plain text")
    return None


def explanation_weight(calendar) -> int:
    """What explaining one answer in ``calendar`` (a ``duetime.v1.Calendar``
    message as the request gives it) weighs: the most working intervals one
    of its weekdays or date overrides lists, at least 1 (a calendar without
    working hours, 09:00–17:00, or one named by bundle alone: 1; bundles are
    the operator's, and real ones have a few intervals a day)."""
    counts = [len(day.intervals) for day in calendar.working_hours.days]
    counts += [len(o.intervals) for o in calendar.date_overrides]
    return max(counts, default=1) or 1


def sla_event_weight(metric_calendars) -> int:
    """What one event of a history weighs under a policy with metrics
    (docs/semantics.md §17): for each metric (``metric_calendars``: one
    iterable of core Calendars per metric, its tiers' calendars),
    :data:`SLA_METRIC_WEIGHT` plus the most working intervals one day of its
    calendars has (a weekday, a week period's weekday or a date override; at
    least 1). Each event may move every metric's clock, and measuring open
    time costs about one step per working interval of the days it crosses."""
    total = 0
    for calendars in metric_calendars:
        most = 1
        for cal in calendars:
            days = [*cal.working_hours, *(d for p in cal.week_periods for d in p.working_hours),
                    *(o.intervals for o in cal.date_overrides)]
            most = max(most, *(len(d) for d in days), 1)
        total += SLA_METRIC_WEIGHT + most
    return total


def explanation_problem(weights: list[int], field: str, what: str,
                        limit: int = MAX_EXPLANATION_WEIGHT,
                        fix: str = "set explain only where you need one, and ask for the others' "
                                   "explanations in separate requests") -> FieldViolation | None:
    """A violation on ``field`` when the answers one request asks to have
    explained weigh more than ``limit`` together (``weights``: one
    :func:`explanation_weight` per answer; ``what``: what asks, e.g.
    "items"; ``fix``: what to do instead), else None."""
    total = sum(weights)
    if total <= limit:
        return None
    return FieldViolation(field, f"{len(weights)} {what} ask for an explanation, weighing {total} (each the "
                                 "most working intervals one day of its calendar has); at most "
                                 f"{limit} are allowed in one request ({fix})")


def calendar_weight(calendar) -> int:
    """What building ``calendar`` (a ``duetime.v1.Calendar`` message as the
    request gives it) weighs: :data:`CALENDAR_WEIGHT`, plus
    :data:`WEEK_INTERVAL_WEIGHT` for each working interval of its week
    (``working_hours``), plus 1 for each other working interval (of its week
    periods and date overrides) and each date (holiday, date override, extra
    working day). A calendar of one holiday weighs 201; 48 intervals every
    weekday, 920; the largest calendar the limits allow, about 15,900."""
    week = sum(len(day.intervals) for day in calendar.working_hours.days)
    others = sum(len(day.intervals) for period in calendar.week_periods
                 for day in period.working_hours.days)
    others += sum(len(o.intervals) for o in calendar.date_overrides)
    dates = len(calendar.holidays) + len(calendar.date_overrides) + len(calendar.extra_working_days)
    return CALENDAR_WEIGHT + WEEK_INTERVAL_WEIGHT * week + others + dates


def batch_calendars_problem(items, limit: int = MAX_BATCH_CALENDAR_WEIGHT) -> FieldViolation | None:
    """A violation when the distinct inline calendars of ``items`` (the
    ``ComputeDueTimeRequest`` messages of one batch or stream message) weigh
    more than ``limit`` together (:func:`calendar_weight`), else None. Equal
    calendars count once; a calendar naming a bundle and nothing else counts
    not at all (it is built when the catalog is loaded). The violation is on
    ``items[i].calendar``, ``i`` the first item past the bound, and says how
    to go on."""
    seen: set[bytes] = set()
    weight = 0
    for i, item in enumerate(items):
        if not item.HasField("calendar"):
            continue
        calendar = item.calendar
        if calendar.bundle and len(calendar.ListFields()) == 1:
            continue  # a bundle named alone
        key = calendar.SerializeToString(deterministic=True)
        if key in seen:
            continue
        seen.add(key)
        weight += calendar_weight(calendar)
        if weight > limit:
            return FieldViolation(f"items[{i}].calendar", (
                f"makes {len(seen)} distinct inline calendar{'s' if len(seen) > 1 else ''} weighing "
                f"{weight} ({CALENDAR_WEIGHT} "
                f"each, {WEEK_INTERVAL_WEIGHT} per interval of its week, 1 per other interval or "
                f"date); at most {limit} are allowed in one message: name a bundle, or send the "
                "other calendars' items in separate messages (a heavier calendar: ComputeDueTime)"))
    return None


def check_namespace(namespace: str) -> str:
    """``namespace`` if it is "" (the default) or 1–64 characters of
    ``A-Z a-z 0-9 . _ -``; else InvalidArgument on :data:`NAMESPACE_FIELD`."""
    if namespace and not _NAMESPACE.fullmatch(namespace):
        shown = repr(namespace) if len(namespace) <= 80 else f"{len(namespace)} characters"
        raise InvalidArgument.at(NAMESPACE_FIELD, f"{shown} is not a namespace: 1 to 64 "
                                                  "characters of A-Z a-z 0-9 . _ -")
    return namespace


def check_key(key: str, limits: Limits = DEFAULT_LIMITS) -> None:
    """An idempotency key: at most ``limits.max_idempotency_key`` characters,
    not only whitespace, no NUL (a store cannot hold one) nor unpaired
    surrogate. Raises InvalidArgument on ``idempotency_key``."""
    check_length(key, "idempotency_key", limits.max_idempotency_key)
    if key and not key.strip():
        raise InvalidArgument.at("idempotency_key", "is only whitespace; give a key, or none")
    if "\x00" in key:
        raise InvalidArgument.at("idempotency_key", "contains a NUL character")
    if problem := unstorable_problem(key, "idempotency_key"):
        raise InvalidArgument([problem])
