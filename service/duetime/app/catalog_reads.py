"""CalendarService's reads: which bundles there are, one bundle's content, a
calendar's holidays; which SLA policies there are and one policy's content.

Read-only and unrecorded, over the catalog the app answers from.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from duetime.app.answers import check_holiday_range, holidays_between
from duetime.app.calendars import CalendarRequest, CalendarResolver
from duetime.app.limits import DEFAULT_LIMITS, Limits, check_length
from duetime.bundles import Bundle, BundleStore
from duetime.bundles.policy import PolicyStore
from duetime.bundles.store import split_ref
from duetime.core import ErrorKind, FieldViolation, Holiday, InvalidArgument, Refusal
from duetime.core.clock import EventType, Measure, measure_of
from duetime.core.durations import parse_duration
from duetime.core.sla import Policy


@dataclass(frozen=True)
class CalendarInfo:
    """A bundle by name: its versions (oldest first) and the one ``shown``
    (whose description, zone and years are given)."""

    name: str
    versions: tuple[Bundle, ...]
    shown: Bundle


@dataclass(frozen=True)
class HolidayList:
    """The holidays of a calendar in a date range, the calendar's version and
    the warnings of that range."""

    holidays: list[Holiday]
    calendar_version: str
    warnings: tuple[str, ...]


def calendar_info(bundles: BundleStore, name: str, shown: Bundle | None = None) -> CalendarInfo:
    """Bundle ``name`` of ``bundles``, showing ``shown`` (default: the newest version)."""
    versions = tuple(bundles.versions(name))
    return CalendarInfo(name, versions, shown or versions[-1])


def bundle_listing(bundles: BundleStore) -> list[CalendarInfo]:
    """Every bundle of ``bundles``, by name."""
    return [calendar_info(bundles, name) for name in bundles.names()]


def bundle_named(ref: str, bundles: BundleStore, limits: Limits = DEFAULT_LIMITS) -> Bundle:
    """One bundle version (``name`` or ``name@version``). Raises
    InvalidArgument / BundleNotFound on ``name``."""
    if not ref:
        raise InvalidArgument.at("name", "is required: a bundle name, or name@version")
    check_length(ref, "name", limits.max_bundle_ref)
    return bundles.resolve(ref, field="name")


def holidays_of(first: date, last: date, cal: CalendarRequest, bundles: BundleStore,
                resolver: CalendarResolver) -> HolidayList:
    """The holidays of ``cal`` from ``first`` to ``last`` inclusive. Raises
    InvalidArgument (reversed dates, a range too long, a bad calendar) or
    OutOfRange (the calendar's holiday horizon or a bundle's years)."""
    check_holiday_range(first, last, resolver.limits)
    resolved = resolver.resolve(cal, bundles)
    holidays, warnings = holidays_between(first, last, resolved)
    return HolidayList(holidays, resolved.version, warnings)


# --- SLA policies (docs/semantics.md §14) ------------------------------------


class PolicyNotFound(Refusal):
    """No loaded policy has the name, or the policy has no such version
    (NOT_FOUND, reason POLICY_NOT_FOUND, one violation naming the field)."""

    kind = ErrorKind.ABSENT
    reason = "POLICY_NOT_FOUND"

    def __init__(self, field: str, description: str):
        super().__init__(f"{field}: {description}", violations=[FieldViolation(field, description)])


@dataclass(frozen=True)
class PolicyListing:
    """A policy by name: its versions (oldest first) and the description of
    the version shown."""

    name: str
    versions: tuple[str, ...]
    description: str


@dataclass(frozen=True)
class PolicyTierView:
    """One tier: its target text, the measure the target asks for, the pinned
    calendar (``name@version``) and that calendar's IANA zone."""

    name: str
    target: str
    measure: Measure
    calendar_version: str
    time_zone: str


@dataclass(frozen=True)
class PolicyEventView:
    """One event: its action while RUNNING and while PAUSED (None: the event
    changes nothing), the anchor of a RETARGET (``"EVENT"``/``"START"``) and
    what it does, in words."""

    name: str
    when_running: EventType | None
    when_paused: EventType | None
    anchor: str
    description: str


@dataclass(frozen=True)
class PolicyMetricView:
    """One metric of a policy with metrics (docs/semantics.md §17): its
    targets by tier, its rules as (event, status, action, anchor) by event
    then status, its warnings as written."""

    name: str
    targets: tuple[PolicyTierView, ...]
    rules: tuple[tuple[str, str, str, str], ...]
    warnings: tuple[str, ...]


def _metric_views(policies: PolicyStore, ref: str) -> tuple[PolicyMetricView, ...]:
    if "metrics" not in policies.content(ref):
        return ()
    order = {s: i for i, s in enumerate(("NOT_STARTED", "RUNNING", "PAUSED", "STOPPED"))}
    return tuple(
        PolicyMetricView(
            m.name,
            tuple(PolicyTierView(t.name, t.target, measure_of(parse_duration(t.target, "target"), "target"),
                                 t.calendar_ref, t.calendar.time_zone) for _, t in sorted(m.targets.items())),
            tuple((e, s, a, m.anchors.get(e).value if e in m.anchors else "EVENT")
                  for e, by_status in sorted(m.rules.items())
                  for s, a in sorted(by_status.items(), key=lambda x: order[x[0]])),
            tuple(w.text for w in m.warnings))
        for m in policies.resolve_metrics(ref, "name").metrics)


@dataclass(frozen=True)
class PolicyView:
    """One policy version written out: tiers and events by name (a one-clock
    policy), or, for a policy of metrics, ``metrics`` in the policy's order
    with ``tiers`` and ``events`` empty."""

    listing: PolicyListing
    version: str
    initial_tier: str
    tiers: tuple[PolicyTierView, ...]
    events: tuple[PolicyEventView, ...]
    metrics: tuple[PolicyMetricView, ...] = ()


_ACTION_WORDS = {
    EventType.PAUSE: "pauses the clock",
    EventType.RESUME: "resumes the clock",
    EventType.RESET: "restarts the clock at the event with the tier's target",
    EventType.RETARGET: "retargets the clock to the tier the event names",
    EventType.STOP: "stops the clock",
}


def _event_words(when_running: EventType | None, when_paused: EventType | None, anchor: str) -> str:
    def said(action: EventType | None) -> str:
        if action is None:
            return "changes nothing"
        words = _ACTION_WORDS[action]
        if action is EventType.RETARGET:
            words += ", counting from the clock's start" if anchor == "START" else ", counting from the event"
        return words
    return f"while running: {said(when_running)}; while paused: {said(when_paused)}"


def policy_listing(policies: PolicyStore) -> list[PolicyListing]:
    """Every loaded policy, by name, with its newest version's description."""
    return [PolicyListing(name, tuple(policies.versions(name)),
                          str(policies.content(name).get("description", "")))
            for name in policies.names()]


def policy_named(ref: str, policies: PolicyStore, limits: Limits = DEFAULT_LIMITS) -> PolicyView:
    """One policy version (``name`` or ``name@version``, the newest when none
    is given) written out. Raises InvalidArgument on ``name`` (empty, too
    long, an empty version after ``@``) or PolicyNotFound on ``name``."""
    if not ref:
        raise InvalidArgument.at("name", "is required: a policy name, or name@version")
    check_length(ref, "name", limits.max_bundle_ref)
    name, version = split_ref(ref, "name")
    versions = tuple(policies.versions(name))
    if not versions:
        raise PolicyNotFound("name", f"no policy named {name!r} "
                                     f"(known: {', '.join(policies.names()) or 'none'})")
    if version and version not in versions:
        raise PolicyNotFound("name", f"policy {name!r} has no version {version!r} "
                                     f"(versions: {', '.join(versions)})")
    policy: Policy = policies.resolve(f"{name}@{version or versions[-1]}", "name")
    content = policies.content(f"{name}@{policy.version}")
    tiers = tuple(
        PolicyTierView(t.name, t.target, measure_of(parse_duration(t.target, "target"), "target"),
                       t.calendar_ref, t.calendar.time_zone)
        for _, t in sorted(policy.tiers.items()))
    events = []
    for event, rule in sorted(policy.rules.items()):
        running, paused = rule.actions.get("RUNNING"), rule.actions.get("PAUSED")
        anchor = rule.anchor.value
        events.append(PolicyEventView(event, running, paused, anchor, _event_words(running, paused, anchor)))
    metrics = _metric_views(policies, f"{name}@{policy.version}")
    if metrics:  # a policy of metrics has no one clock: each metric holds its targets and rules
        tiers, events = (), []
    return PolicyView(PolicyListing(name, versions, str(content.get("description", ""))),
                      policy.version, policy.initial_tier, tiers, tuple(events), metrics)
