"""The metrics engine against a brute-force oracle (docs/semantics.md §17).

The oracle steps each metric's clock minute by minute over a calendar it
knows by heart (09:00-12:00 and 13:00-17:00 Monday to Friday, UTC): it counts
the open minutes a running clock consumes, lets a warning fall at the first
minute the clock runs with less than its amount left (or exactly that much,
and about to consume more), and the breach at the first minute it runs with
nothing left. Hypothesis draws random policies (1-3 metrics, random rules
from what each status allows, both kinds of warning, elapsed and business
targets) and histories (pauses, resets, retargets anchored at the event or
the start, events at one instant, tier changes), evaluated as of instants
before and after what falls.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hypothesis import HealthCheck, given, settings, strategies as st

from duetime.core import InvalidArgument, parse_instant, to_us
from duetime.core.calendar import Calendar
from duetime.core.clock import Anchor, Measure
from duetime.core.sla import BusinessEvent, Tier
from duetime.core.sla_metrics import ALLOWED, Metric, MetricPolicy, evaluate_metrics, parse_warning

MIN = 60_000_000
T0 = to_us(parse_instant("2026-11-30T00:00:00Z", "t0"))  # a Monday
CAL = Calendar.from_text(time_zone="UTC", working_hours=[
    (d, [("09:00", "12:00"), ("13:00", "17:00")]) for d in range(1, 6)])
EVENTS = ("hold", "go", "again", "bump", "done", "open")
TIERS = ("a", "b")
SHARES = ("50%", "75%", "80%", "90%", "95%")


def is_open(minute: int) -> bool:
    day, m = divmod(minute, 1440)
    return day % 7 < 5 and (540 <= m < 720 or 780 <= m < 1020)


@st.composite
def metrics(draw, name):
    business = draw(st.booleans())
    unit = "bm" if business else "m"
    targets = {tr: draw(st.integers(1, 48)) * 20 for tr in TIERS}
    rules = {"start": {"NOT_STARTED": "START"}}
    anchors = {}
    for e in EVENTS:
        by_status = {}
        for status, allowed in ALLOWED.items():
            action = draw(st.sampled_from((None,) + allowed))
            if action is not None:
                by_status[status] = action
        rules[e] = by_status
        anchors[e] = draw(st.sampled_from((Anchor.EVENT, Anchor.START)))
    warnings = draw(st.lists(st.one_of(st.sampled_from(SHARES), st.integers(1, 300).map(lambda n: f"{n}{unit}")),
                             max_size=3, unique=True))
    measure = Measure.BUSINESS_TIME if business else Measure.ELAPSED
    return Metric(name, {tr: Tier(tr, f"{n}{unit}", CAL) for tr, n in targets.items()}, rules, anchors,
                  tuple(parse_warning(w, measure, "w") for w in warnings)), business, targets


@st.composite
def cases(draw):
    n = draw(st.integers(1, 3))
    drawn = [draw(metrics(f"m{i}")) for i in range(n)]
    policy = MetricPolicy("p", "v", "a", TIERS, tuple(m for m, _, _ in drawn))
    start = draw(st.integers(0, 7 * 1440))
    history = [("start", start, draw(st.sampled_from((None,) + TIERS)))]
    for _ in range(draw(st.integers(0, 8))):
        gap = draw(st.one_of(st.just(0), st.integers(1, 900)))
        history.append((draw(st.sampled_from(EVENTS)), history[-1][1] + gap, draw(st.sampled_from((None,) + TIERS))))
    as_of = history[-1][1] + draw(st.one_of(st.just(0), st.integers(1, 4000)))
    return policy, drawn, history, as_of


@dataclass
class OClock:
    status: str = "NOT_STARTED"
    cycles: int = 0
    tier: str = ""
    amount: int = 0
    consumed: int = 0
    armed: list = field(default_factory=list)
    breach_armed: bool = False
    breach_fell: bool = False
    met: bool | None = None
    entries: list = field(default_factory=list)


def oracle(policy, drawn, history, as_of):
    """(per metric: status, cycles, met, entries), next (minute, [(metric, kind, threshold)])."""
    clocks = [OClock() for _ in drawn]
    tier = history[0][2] or policy.initial_tier
    events_at: dict[int, list] = {}
    for e in history:
        events_at.setdefault(e[1], []).append(e)

    def arm(c, metric):
        lefts = []
        for w in metric.warnings:
            left = w.left_us // MIN if w.share is None else c.amount * (1 - w.share)  # exact for these targets
            lefts.append((left, w.text))
        c.armed = sorted(lefts, key=lambda x: -x[0])
        c.breach_armed, c.breach_fell = True, False

    def falls(c, metric, minute):
        out = []
        if c.status != "RUNNING":
            return out
        left = c.amount - c.consumed
        for amount, text in list(c.armed):
            if left < amount or (left == amount and (not business_of[metric.name] or is_open(minute))):
                out.append((metric.name, "WARNING", text))
                c.armed.remove((amount, text))
        if c.breach_armed and left <= 0:
            out.append((metric.name, "BREACH", ""))
            c.breach_armed, c.breach_fell = False, True
        return out

    business_of = {m.name: b for m, b, _ in drawn}
    minute, horizon = history[0][1], as_of + 12 * 1440
    while minute <= horizon:
        for i, (etype, _, etier) in enumerate(events_at.get(minute, ())):
            if etier is not None and (policy.tier_on_any_event or etype == "start"):
                tier = etier
            for c, (metric, _, targets) in zip(clocks, drawn):
                action = metric.rules.get(etype, {}).get(c.status)
                if action is None:
                    if etype != "start":
                        c.entries.append((etype, minute, "NONE", ""))
                    continue
                if action == "RETARGET" and etier is None:
                    raise InvalidArgument.at("events.attributes", "no tier")
                if action == "START":
                    c.status, c.cycles, c.tier, c.amount, c.consumed, c.met = "RUNNING", c.cycles + 1, tier, \
                        targets[tier], 0, None
                    arm(c, metric)
                elif action == "PAUSE":
                    c.status = "PAUSED"
                elif action == "RESUME":
                    c.status = "RUNNING"
                elif action == "RESET":
                    c.status, c.tier, c.amount, c.consumed = "RUNNING", tier, targets[tier], 0
                    arm(c, metric)
                elif action == "RETARGET":
                    c.tier, c.amount = etier, targets[etier]
                    if metric.anchors[etype] is Anchor.EVENT:
                        c.consumed = 0
                    arm(c, metric)
                else:  # STOP
                    c.met = not (c.breach_fell or c.amount - c.consumed < 0)
                    c.status = "STOPPED"
                c.entries.append((etype, minute, action, ""))
        fell = []
        for c, (metric, _, _) in zip(clocks, drawn):
            for item in falls(c, metric, minute):
                fell.append(item)
                if minute <= as_of:
                    c.entries.append(("", minute, item[1], item[2]))
        if minute > as_of and fell:
            return clocks, (minute, fell)
        for c, (metric, business, _) in zip(clocks, drawn):
            if c.status == "RUNNING" and (not business or is_open(minute)):
                c.consumed += 1
        if minute > as_of and not any(c.status == "RUNNING" for c in clocks):
            break
        minute += 1
    return clocks, (None, [])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases())
def test_engine_matches_the_minute_stepping_oracle(case):
    policy, drawn, history, as_of = case
    events = [BusinessEvent(t, T0 + m * MIN, {"tier": tr} if tr else {}) for t, m, tr in history]
    try:
        expected, (next_minute, next_due) = oracle(policy, drawn, history, as_of)
    except InvalidArgument:
        try:
            evaluate_metrics(policy, events, T0 + as_of * MIN)
        except InvalidArgument as e:
            assert e.violations[0].field.endswith(".attributes")
            return
        raise AssertionError("the engine accepted a RETARGET without a tier")
    got = evaluate_metrics(policy, events, T0 + as_of * MIN)
    for c, m in zip(expected, got.metrics):
        assert (m.status, m.cycles) == (c.status, c.cycles), m.name
        assert [(e.event, (e.at_us - T0) // MIN, e.action, e.threshold) for e in m.timeline] == c.entries, m.name
        assert all((e.at_us - T0) % MIN == 0 for e in m.timeline)
        if m.status == "STOPPED":
            assert m.state.met is c.met, m.name
    if next_minute is None:
        assert got.next_at_us is None
    else:
        assert got.next_at_us == T0 + next_minute * MIN
        assert [(d.metric, d.kind, d.threshold) for d in got.next_due] == next_due
