"""The computing use cases, in domain terms.

Core values and a resolved calendar in, core answers out.

Each function is one computation of ``docs/semantics.md`` over a
:class:`~duetime.app.calendars.ResolvedCalendar`: it runs the core and
reports the core's holiday-horizon errors as the request's calendar would
name them (a bundle's years on ``calendar.bundle``). None of them records
anything; the recorded path (:mod:`duetime.app.recorded`) wraps them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, datetime

from duetime.catalog import Catalog
from duetime.core import (
    AtClose,
    ClockEvent,
    ClockState,
    Deadline,
    Holiday,
    InvalidArgument,
    apply_event,
    business_time,
    due_answer,
    from_us,
    open_status,
    schedule,
    start_clock,
)

from duetime.core.engine import start_us
from duetime.core.periods import OpenPeriods, RunBounds, count_business_days, open_periods, run_bounds
from duetime.core.queries import horizon, last_date_of_span
from duetime.core.sla import BusinessEvent, Evaluation, Policy, evaluate
from duetime.core.sla_metrics import MetricPolicy, MetricsEvaluation, evaluate_metrics, one_metric
from duetime.app.calendars import ResolvedCalendar, renamed
from duetime.app.limits import DEFAULT_LIMITS, SLA_METRIC_WEIGHT, Limits, check_length, sla_event_weight


def due_time(start: datetime | int, duration: str, cal: ResolvedCalendar, at_close: AtClose,
             explain: bool):
    """``start`` (an aware datetime, or µs since the epoch) ``+ duration`` in
    ``cal`` (``docs/semantics.md``, "Durations"):
    the core's DueAnswer (due instant in µs, warnings, explanation steps).
    Raises InvalidArgument (a bad duration, on ``duration``) or OutOfRange."""
    with cal.answering():
        return due_answer(start, duration, cal.calendar, at_close=at_close, explain=explain,
                          field="duration")


def open_time_between(start: datetime, end: datetime, cal: ResolvedCalendar, explain: bool):
    """The open time in ``[start, end)`` and the business days between: the
    core's BusinessTimeAnswer. Raises InvalidArgument or OutOfRange."""
    with cal.answering():
        return business_time(start, end, cal.calendar, explain=explain)


def open_status_at(at: datetime, cal: ResolvedCalendar):
    """Whether ``cal`` is open at ``at``: the core's OpenStatus."""
    with cal.answering():
        return open_status(at, cal.calendar)


def deadlines_from(entered: datetime, deadlines: Sequence[Deadline], cal: ResolvedCalendar,
                   at_close: AtClose, explain: bool, check: Callable[[], None] | None = None):
    """Every deadline's due time from ``entered``: the core's ScheduleAnswer.
    ``check``: the call's cooperative deadline check (None: none)."""
    with cal.answering():
        return schedule(entered, list(deadlines), cal.calendar, at_close=at_close,
                        explain=explain, check=check)


def clock_horizon(cal: ResolvedCalendar, *instants: int | None) -> tuple[str, ...]:
    """The holiday-horizon check (and warnings) over the local dates from the
    earliest to the latest of ``instants`` (µs since the epoch; None ignored)."""
    calendar = cal.calendar
    days = [from_us(us).astimezone(calendar.zone).date().toordinal()
            for us in instants if us is not None]
    return horizon(calendar.compiled, min(days), max(days))


@dataclass(frozen=True)
class ClockAnswer:
    """A clock's new state and the warnings of the dates it spans."""

    state: ClockState
    warnings: tuple[str, ...]


def new_clock(target: str, start: datetime, cal: ResolvedCalendar) -> ClockAnswer:
    """A new RUNNING clock for ``target`` from ``start`` (``docs/semantics.md``,
    "SLA clocks"). Raises InvalidArgument (a target without a measure) or
    OutOfRange."""
    with cal.answering():
        at = start_us(start, cal.calendar, "start_time")
        state = start_clock(target, at, cal.calendar)
        return ClockAnswer(state, clock_horizon(cal, at, state.deadline_us))


def clock_after(state: ClockState, event: ClockEvent, cal: ResolvedCalendar,
                check: Callable[[], None] | None = None) -> ClockAnswer:
    """``state`` after ``event``. Raises FailedPrecondition (an event the state
    does not allow), InvalidArgument or OutOfRange (naming ``state.*``).
    ``check``: the call's cooperative deadline check (None: none)."""
    with cal.answering():
        after = apply_event(state, event, cal.calendar, check)
    with renamed(lambda field: f"state.{field}"), cal.answering():
        warnings = clock_horizon(cal, event.at_us, state.deadline_us, after.deadline_us)
    return ClockAnswer(after, warnings)


@dataclass(frozen=True)
class SlaPolicy:
    """A contract policy of the catalog and the calendar of each of its tiers."""

    policy: Policy
    tiers: dict[str, ResolvedCalendar]

    @property
    def initial_calendar(self) -> ResolvedCalendar:
        """The calendar of the tier a ticket starts in."""
        return self.tiers[self.policy.initial_tier]


def sla_policy(ref: str, catalog: Catalog, limits: Limits = DEFAULT_LIMITS) -> SlaPolicy:
    """The policy ``ref`` (``name`` or ``name@version``) of ``catalog``.
    Raises InvalidArgument on ``policy`` (empty, too long, unknown)."""
    if not ref:
        raise InvalidArgument.at("policy", "is required: a policy name, or name@version")
    check_length(ref, "policy", limits.max_bundle_ref)
    policy = catalog.policies.resolve(ref, field="policy")
    return SlaPolicy(policy, {
        name: ResolvedCalendar(tier.calendar, tier.calendar_ref,
                               catalog.bundles.resolve(tier.calendar_ref))
        for name, tier in policy.tiers.items()})


@dataclass(frozen=True)
class SlaAnswer:
    """A ticket's events replayed: the evaluation, its warnings, the calendar
    of the final tier and the versions of every tier's calendar."""

    result: Evaluation
    warnings: tuple[str, ...]
    final: ResolvedCalendar
    versions: str


def evaluate_events(sla: SlaPolicy, events: Sequence[BusinessEvent],
                    check: Callable[[], None] | None = None) -> SlaAnswer:
    """Replay ``events`` under ``sla`` (``docs/semantics.md``, "SLA
    clocks"). Raises InvalidArgument (an unknown event or tier),
    FailedPrecondition (a transition the clock refuses) or OutOfRange (a date
    outside a tier calendar's years: on ``events[i].time``). ``check``: the
    call's cooperative deadline check (None: none), called between events."""
    result = evaluate(sla.policy, list(events), check)
    warnings: list[str] = []
    for i, entry in enumerate(result.timeline):
        cal = sla.tiers[entry.tier]
        with renamed(lambda field, i=i: f"events[{i}].time"), cal.answering():
            warnings += clock_horizon(cal, entry.at_us, entry.old_deadline_us,
                                      entry.new_deadline_us)
    final = sla.tiers[result.tier]
    versions = ",".join(sorted({cal.version for cal in sla.tiers.values()}))
    return SlaAnswer(result, tuple(dict.fromkeys(warnings)), final, versions)


# --- SLA policies with metrics (docs/semantics.md §17) -----------------------


@dataclass(frozen=True)
class SlaMetricsPolicy:
    """A policy of the catalog as metrics. ``declared``: it declares metrics
    (False: a one-clock policy seen as one unnamed metric); ``calendars``:
    the resolved calendar of every metric's tiers, by pinned reference."""

    sla: SlaPolicy
    metrics: MetricPolicy
    declared: bool
    calendars: dict[str, ResolvedCalendar]

    @property
    def versions(self) -> str:
        """Every calendar version its metrics pin, distinct, sorted, joined by ","."""
        return ",".join(sorted({cal.version for cal in self.calendars.values()}))

    @property
    def initial_calendar(self) -> ResolvedCalendar:
        """The calendar of the first metric's initial tier."""
        return self.calendars[self.metrics.metrics[0].targets[self.metrics.initial_tier].calendar_ref]


def sla_metrics_policy(ref: str, catalog: Catalog, limits: Limits = DEFAULT_LIMITS) -> SlaMetricsPolicy:
    """The policy ``ref`` of ``catalog`` as metrics (docs/semantics.md §17).
    Raises InvalidArgument on ``policy`` (empty, too long, unknown)."""
    sla = sla_policy(ref, catalog, limits)
    name = f"{sla.policy.name}@{sla.policy.version}"
    declared = "metrics" in catalog.policies.content(name)
    metrics = catalog.policies.resolve_metrics(name) if declared else one_metric(sla.policy)
    refs = {t.calendar_ref for m in metrics.metrics for t in m.targets.values()}
    calendars = {r: ResolvedCalendar(catalog.bundles.resolve(r).calendar, r, catalog.bundles.resolve(r))
                 for r in sorted(refs)}
    return SlaMetricsPolicy(sla, metrics, declared, calendars)


@dataclass(frozen=True)
class SlaMetricsAnswer:
    """A ticket's events replayed under a policy with metrics: the
    evaluation and the warnings of the dates its clocks span."""

    result: MetricsEvaluation
    warnings: tuple[str, ...]


def evaluate_metric_events(policy: SlaMetricsPolicy, events: Sequence[BusinessEvent], as_of_us: int | None,
                           check: Callable[[], None] | None = None,
                           limits: Limits = DEFAULT_LIMITS) -> SlaMetricsAnswer:
    """Replay ``events`` under ``policy`` as of ``as_of_us`` (None: the last
    event's instant; docs/semantics.md §17). Raises InvalidArgument (an
    unknown event or tier, ``as_of_time`` before the last event, a metric's
    clock past ``limits.max_running_intervals`` running intervals in one
    cycle, for a policy that declares metrics: on ``events[i]``; more events
    than ``limits.max_sla_metric_work`` allows, each weighing
    :func:`~duetime.app.limits.sla_event_weight`: on ``events``), FailedPrecondition (the history out of order,
    a second start) or OutOfRange (a date outside a calendar's years, or
    the holiday horizon of a metric's calendar: on ``events[i].time``, the
    first event whose clock reaches it, as :func:`evaluate_events` names it)."""
    if policy.declared:
        weight = sla_event_weight([t.calendar for t in m.targets.values()] for m in policy.metrics.metrics)
        if len(events) * weight > limits.max_sla_metric_work:
            most = max(1, limits.max_sla_metric_work // weight)
            raise InvalidArgument.at("events", (
                f"has {len(events)} events; under policy {policy.metrics.name!r} ({len(policy.metrics.metrics)} "
                f"metrics) an event weighs {weight} ({SLA_METRIC_WEIGHT} per metric plus the most working "
                f"intervals one day of its calendar has), so at most {most} events are allowed in one request "
                f"({limits.max_sla_metric_work} in weight): evaluate the history since a later event that "
                f"starts every metric's cycle anew, or a policy with fewer metrics"))
    with policy.initial_calendar.answering():
        result = evaluate_metrics(policy.metrics, list(events), as_of_us, check,
                                  limits.max_running_intervals if policy.declared else None)
    # every event's clock, in the history's order: the dates from the event to the deadlines it replaced and set
    entries = sorted(((e.index, k, e) for k, (run, metric) in enumerate(zip(result.metrics, policy.metrics.metrics))
                      for e in run.timeline if e.index >= 0), key=lambda x: (x[0], x[1]))
    warnings: list[str] = []
    seen: set[tuple[str, int | None, int | None]] = set()
    for i, k, entry in entries:
        ref = policy.metrics.metrics[k].targets[entry.tier].calendar_ref
        key = (ref, entry.at_us, entry.old_deadline_us, entry.new_deadline_us)
        if key in seen:
            continue
        seen.add(key)
        cal = policy.calendars[ref]
        with renamed(lambda field, i=i: f"events[{i}].time"), cal.answering():
            warnings += clock_horizon(cal, entry.at_us, entry.old_deadline_us, entry.new_deadline_us)
    return SlaMetricsAnswer(result, tuple(dict.fromkeys(warnings)))


def check_holiday_range(first: date, last: date, limits: Limits = DEFAULT_LIMITS) -> None:
    """InvalidArgument on ``end_date`` when ``last`` is before ``first`` or
    more than ``limits.max_holiday_range_days`` after it."""
    if last < first:
        raise InvalidArgument.at("end_date", f"{last} is before start_date {first}")
    if (last - first).days > limits.max_holiday_range_days:
        raise InvalidArgument.at("end_date", f"{last} is {(last - first).days} days after "
                                             f"start_date {first}; at most "
                                             f"{limits.max_holiday_range_days} are allowed")


def holidays_between(first: date, last: date,
                     cal: ResolvedCalendar) -> tuple[list[Holiday], tuple[str, ...]]:
    """The holidays of ``cal`` from ``first`` to ``last`` inclusive (see
    :func:`check_holiday_range`), and the warnings of that range. Raises
    OutOfRange (the calendar's holiday horizon or a bundle's years)."""
    with cal.answering():
        warnings = horizon(cal.calendar.compiled, first.toordinal(), last.toordinal())
    return [h for h in cal.calendar.holidays if first <= h.date <= last], warnings


# --- calendar queries (docs/semantics.md §9.1) -------------------------------


@dataclass(frozen=True)
class OpenPeriodsAnswer:
    """One page of open periods (the core's OpenPeriods) and the warnings of
    the dates from the span's start to its end."""

    page: OpenPeriods
    warnings: tuple[str, ...]


def open_periods_between(start: datetime, end: datetime, cal: ResolvedCalendar, page_size: int,
                         resume: Callable[[int, int], int | None]) -> OpenPeriodsAnswer:
    """The open periods of ``cal`` in ``[start, end)``, one page of at most
    ``page_size`` (0: 100, at most 1000). ``resume(a, b)`` (µs) says where
    the page starts (None: at ``a``; it reads the page token and raises on a
    bad one). Raises InvalidArgument (``end_time`` before ``start_time``,
    ``page_size``) or OutOfRange (the holiday horizon, a bundle's years)."""
    with cal.answering():
        calendar = cal.calendar
        a, b = start_us(start, calendar, "start_time"), start_us(end, calendar, "end_time")
        if b < a:
            raise InvalidArgument.at("end_time", f"{_utc_text(end)} is before start_time "
                                                 f"{_utc_text(start)}; give an end_time at or after it")
        cc = calendar.compiled
        first_date = cc.local_of(a)[0]
        warnings = horizon(cc, first_date, last_date_of_span(cc, a, b) if a < b else first_date)
        first = resume(a, b)
        page = open_periods(cc, a if first is None else first, b, page_size)
        return OpenPeriodsAnswer(page, warnings)


def _utc_text(instant: datetime) -> str:
    """``instant`` as RFC 3339 text, a UTC instant with ``Z`` as the faces
    print it (``2026-11-30T23:00:00Z``), any other with its own offset."""
    text = instant.isoformat()
    return text[:-6] + "Z" if text.endswith("+00:00") else text


def business_days_in(first: date, last: date, cal: ResolvedCalendar) -> tuple[int, tuple[str, ...]]:
    """The business days of ``cal`` from local date ``first`` to ``last``,
    both included, and the warnings of that range. Raises InvalidArgument
    (``to_date`` before ``from_date``) or OutOfRange (the holiday horizon, a
    bundle's years)."""
    with cal.answering():
        cc = cal.calendar.compiled
        count = count_business_days(cc, first.toordinal(), last.toordinal())
        return count, horizon(cc, first.toordinal(), last.toordinal())


def last_run_at(at: datetime, cal: ResolvedCalendar) -> RunBounds:
    """The last opening and closing of ``cal`` at or before ``at`` (the
    core's RunBounds)."""
    with cal.answering():
        calendar = cal.calendar
        cc = calendar.compiled
        t = start_us(at, calendar, "time")
        bounds = run_bounds(cc, t)
        found = [x for x in (bounds.last_open_us, bounds.last_close_us) if x is not None]
        if found:  # the answer depends on the dates back to the run's opening (docs/semantics.md §7)
            horizon(cc, cc.local_of(min(found))[0], cc.local_of(t)[0])
        return bounds
