"""SLA policies with metrics, warnings and the next action (docs/semantics.md §17)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from duetime.core import FailedPrecondition, InvalidArgument, parse_instant, to_us
from duetime.core.calendar import Calendar
from duetime.core.clock import Anchor, Measure
from duetime.core.sla import BusinessEvent, Tier
from duetime.core.sla_metrics import Metric, MetricPolicy, check_rules, evaluate_metrics, parse_warning
from duetime.core.zones import format_local

ZAGREB = Calendar.from_text(time_zone="Europe/Zagreb")  # 09:00-17:00 Monday-Friday
H = 3_600_000_000


def t(text: str) -> int:
    return to_us(parse_instant(text, "at"))


def local(us):
    return format_local(us, ZAGREB.zone) if us is not None else None


def metric(name, target, rules, warnings=(), cal=ZAGREB, tiers=("standard",)):
    return Metric(name, {tr: Tier(tr, target if isinstance(target, str) else target[tr], cal) for tr in tiers},
                  rules, {}, tuple(parse_warning(w, _measure(target), "w") for w in warnings))


def _measure(target):
    text = target if isinstance(target, str) else next(iter(target.values()))
    return Measure.BUSINESS_TIME if "b" in text and not text.endswith("bd") else (
        Measure.BUSINESS_DAY if text.endswith("bd") else Measure.ELAPSED)


START = {"start": {"NOT_STARTED": "START"}}

EXAMPLE = MetricPolicy("example", "v", "standard", ("standard",), (
    metric("first_response", "4bh", {**START, "agent_reply": {"RUNNING": "STOP", "PAUSED": "STOP"}}),
    metric("resolution", "16bh", {**START, "awaiting_customer": {"RUNNING": "PAUSE"},
                                  "customer_reply": {"PAUSED": "RESUME"}}, ["75%"]),
))
HISTORY = [
    BusinessEvent("start", t("2026-11-30T09:00:00+01:00")),
    BusinessEvent("agent_reply", t("2026-11-30T11:00:00+01:00")),
    BusinessEvent("awaiting_customer", t("2026-11-30T15:00:00+01:00")),
    BusinessEvent("customer_reply", t("2026-12-02T10:00:00+01:00")),
]


def test_example_start_deadlines():
    ev = evaluate_metrics(EXAMPLE, HISTORY[:1])
    fr, res = ev.metrics
    assert local(fr.state.deadline_us) == "2026-11-30T13:00:00+01:00"
    assert local(res.state.deadline_us) == "2026-12-01T17:00:00+01:00"
    # the first thing due: first_response's breach at 13:00
    assert local(ev.next_at_us) == "2026-11-30T13:00:00+01:00"
    assert [(d.metric, d.kind, d.threshold) for d in ev.next_due] == [("first_response", "BREACH", "")]


def test_example_as_of_last_event():
    ev = evaluate_metrics(EXAMPLE, HISTORY)
    fr, res = ev.metrics
    assert (fr.status, fr.state.met, fr.cycles) == ("STOPPED", True, 1)
    assert res.status == "RUNNING"
    assert local(res.state.deadline_us) == "2026-12-03T12:00:00+01:00"
    assert [(e.event, e.action) for e in res.timeline] == [
        ("start", "START"), ("agent_reply", "NONE"), ("awaiting_customer", "PAUSE"),
        ("customer_reply", "RESUME")]
    assert res.timeline[2].remaining_us == 10 * H
    assert local(ev.next_at_us) == "2026-12-02T16:00:00+01:00"
    assert [(d.metric, d.kind, d.threshold) for d in ev.next_due] == [("resolution", "WARNING", "75%")]


def test_example_as_of_after_breach():
    ev = evaluate_metrics(EXAMPLE, HISTORY, t("2026-12-03T12:30:00+01:00"))
    res = ev.metrics[1]
    fell = [(e.action, local(e.at_us), e.threshold) for e in res.timeline if e.action in ("WARNING", "BREACH")]
    assert fell == [("WARNING", "2026-12-02T16:00:00+01:00", "75%"), ("BREACH", "2026-12-03T12:00:00+01:00", "")]
    assert res.timeline[-2].action == "WARNING" and res.timeline[-3].event == "customer_reply"
    assert ev.next_at_us is None and ev.next_due == ()


def test_as_of_exactly_at_warning_shows_it_and_next_is_breach():
    ev = evaluate_metrics(EXAMPLE, HISTORY, t("2026-12-02T16:00:00+01:00"))
    assert [e.action for e in ev.metrics[1].timeline][-1] == "WARNING"
    assert local(ev.next_at_us) == "2026-12-03T12:00:00+01:00"
    assert [(d.kind, d.threshold) for d in ev.next_due] == [("BREACH", "")]


def test_as_of_before_last_event_is_invalid():
    with pytest.raises(InvalidArgument) as e:
        evaluate_metrics(EXAMPLE, HISTORY, t("2026-12-02T09:00:00+01:00"))
    assert e.value.violations[0].field == "as_of_time"


def test_amount_left_warning_in_business_minutes():
    p = MetricPolicy("p", "v", "standard", ("standard",), (metric("m", "4bh", START, ["30bm"]),))
    ev = evaluate_metrics(p, [BusinessEvent("start", t("2026-11-30T15:00:00+01:00"))])
    # due Tuesday 11:00; 30bm left at 10:30
    assert local(ev.next_at_us) == "2026-12-01T10:30:00+01:00"


def test_amount_left_across_the_night_falls_at_the_opening():
    p = MetricPolicy("p", "v", "standard", ("standard",), (metric("m", "4bh", START, ["2bh"]),))
    ev = evaluate_metrics(p, [BusinessEvent("start", t("2026-11-30T15:00:00+01:00"))])
    # due Tuesday 11:00; the latest instant with 2bh left is Tuesday 09:00, not Monday 17:00
    assert local(ev.next_at_us) == "2026-12-01T09:00:00+01:00"


def test_warning_already_past_falls_when_the_clock_starts():
    p = MetricPolicy("p", "v", "standard", ("standard",), (metric("m", "4bh", START, ["5bh"]),))
    ev = evaluate_metrics(p, [BusinessEvent("start", t("2026-11-30T10:00:00+01:00"))])
    # W lies before the start: it falls at the start, after the start event, and the breach is next
    assert [(e.action, local(e.at_us), e.threshold) for e in ev.metrics[0].timeline] == [
        ("START", "2026-11-30T10:00:00+01:00", ""), ("WARNING", "2026-11-30T10:00:00+01:00", "5bh")]
    assert local(ev.next_at_us) == "2026-11-30T14:00:00+01:00"


def test_several_due_at_once_in_policy_order():
    p = MetricPolicy("p", "v", "standard", ("standard",), (
        metric("a", "8bh", START, ["50%", "4bh"]), metric("b", "4bh", START)))
    ev = evaluate_metrics(p, [BusinessEvent("start", t("2026-11-30T09:00:00+01:00"))])
    assert local(ev.next_at_us) == "2026-11-30T13:00:00+01:00"
    assert [(d.metric, d.kind, d.threshold) for d in ev.next_due] == [
        ("a", "WARNING", "50%"), ("a", "WARNING", "4bh"), ("b", "BREACH", "")]


def test_pause_at_warning_prevents_it_and_stop_at_deadline_prevents_breach():
    p = MetricPolicy("p", "v", "standard", ("standard",), (
        metric("m", "4bh", {**START, "hold": {"RUNNING": "PAUSE"}, "go": {"PAUSED": "RESUME"},
                            "done": {"RUNNING": "STOP"}}, ["1bh"]),))
    h = [BusinessEvent("start", t("2026-11-30T09:00:00+01:00")),
         BusinessEvent("hold", t("2026-11-30T12:00:00+01:00")),
         BusinessEvent("go", t("2026-11-30T14:00:00+01:00")),
         BusinessEvent("done", t("2026-11-30T15:00:00+01:00"))]
    ev = evaluate_metrics(p, h, t("2026-12-01T12:00:00+01:00"))
    actions = [(e.action, local(e.at_us)) for e in ev.metrics[0].timeline]
    # paused exactly at W (12:00): on resume at 14:00 it falls then; stop at D (15:00): no breach
    assert actions == [("START", "2026-11-30T09:00:00+01:00"), ("PAUSE", "2026-11-30T12:00:00+01:00"),
                       ("RESUME", "2026-11-30T14:00:00+01:00"), ("WARNING", "2026-11-30T14:00:00+01:00"),
                       ("STOP", "2026-11-30T15:00:00+01:00")]
    assert ev.metrics[0].state.met is True


def test_next_reply_restarts_on_each_customer_message_with_new_cycle():
    p = MetricPolicy("p", "v", "standard", ("standard",), (
        metric("next_reply", "2bh", {"start": {"NOT_STARTED": "START"},
                                     "customer_message": {"STOPPED": "START", "RUNNING": "RESET"},
                                     "agent_reply": {"RUNNING": "STOP"}}, ["75%"]),))
    h = [BusinessEvent("start", t("2026-11-30T09:00:00+01:00")),
         BusinessEvent("agent_reply", t("2026-11-30T10:00:00+01:00")),
         BusinessEvent("agent_reply", t("2026-11-30T10:30:00+01:00")),
         BusinessEvent("customer_message", t("2026-11-30T12:00:00+01:00"))]
    ev = evaluate_metrics(p, h)
    m = ev.metrics[0]
    assert (m.status, m.cycles) == ("RUNNING", 2)
    assert [e.action for e in m.timeline] == ["START", "STOP", "NONE", "START"]
    # 75% of 2bh consumed: 30 minutes left, at 13:30
    assert local(ev.next_at_us) == "2026-11-30T13:30:00+01:00"


def test_tier_attribute_changes_the_tier_for_later_starts_and_resets():
    p = MetricPolicy("p", "v", "low", ("low", "high"), (
        metric("m", {"low": "8bh", "high": "2bh"}, {**START, "nudge": {"RUNNING": "RESET"},
                                                     "escalate": {"RUNNING": "RETARGET"}},
               tiers=("low", "high")),))
    h = [BusinessEvent("start", t("2026-11-30T09:00:00+01:00")),
         BusinessEvent("nudge", t("2026-11-30T10:00:00+01:00"), {"tier": "high"})]
    m = evaluate_metrics(p, h).metrics[0]
    assert m.tier == "high" and local(m.state.deadline_us) == "2026-11-30T12:00:00+01:00"


def test_rules_allowed_per_status():
    bad = Metric("m", {}, {"x": {"NOT_STARTED": "PAUSE", "RUNNING": "RESUME", "PAUSED": "START",
                                 "STOPPED": "STOP", "DONE": "STOP"}}, {})
    assert check_rules(bad, "metrics.m.events") == [
        "metrics.m.events.x: NOT_STARTED allows START, not 'PAUSE'",
        "metrics.m.events.x: RUNNING allows PAUSE or RESET or RETARGET or STOP, not 'RESUME'",
        "metrics.m.events.x: PAUSED allows RESUME or RESET or RETARGET or STOP, not 'START'",
        "metrics.m.events.x: STOPPED allows START, not 'STOP'",
        "metrics.m.events.x: 'DONE' is not a status (one of NOT_STARTED, RUNNING, PAUSED, STOPPED)",
    ]


@pytest.mark.parametrize("text,measure,share,left", [
    ("75%", Measure.BUSINESS_TIME, Fraction(3, 4), None),
    ("12.5%", Measure.ELAPSED, Fraction(1, 8), None),
    ("30bm", Measure.BUSINESS_TIME, None, 30 * 60_000_000),
    ("4h", Measure.ELAPSED, None, 4 * H),
    ("2h", Measure.BUSINESS_DAY, None, 2 * H),
])
def test_warning_forms(text, measure, share, left):
    w = parse_warning(text, measure, "w")
    assert (w.share, w.left_us) == (share, left)


@pytest.mark.parametrize("text,measure", [
    ("0%", Measure.ELAPSED), ("100%", Measure.ELAPSED), ("1bd", Measure.BUSINESS_DAY),
    ("30bm", Measure.ELAPSED), ("4h", Measure.BUSINESS_TIME), ("P1D", Measure.ELAPSED), ("0bm", Measure.BUSINESS_TIME),
])
def test_warning_refused(text, measure):
    with pytest.raises(InvalidArgument) as e:
        parse_warning(text, measure, "metrics.m.warnings[0]")
    assert e.value.violations[0].field == "metrics.m.warnings[0]"


def test_history_refusals():
    with pytest.raises(FailedPrecondition):
        evaluate_metrics(EXAMPLE, [HISTORY[0], BusinessEvent("start", HISTORY[0].at_us)])
    with pytest.raises(FailedPrecondition):
        evaluate_metrics(EXAMPLE, [HISTORY[1 - 1], BusinessEvent("agent_reply", HISTORY[0].at_us - 1)])
    with pytest.raises(InvalidArgument):
        evaluate_metrics(EXAMPLE, [HISTORY[0], BusinessEvent("nope", HISTORY[0].at_us)])


# --- the bundled example: calendars/policies/support-sla.toml ---------------

from pathlib import Path  # noqa: E402

from duetime.bundles import BundleStore  # noqa: E402
from duetime.bundles.compiler import read_versions  # noqa: E402
from duetime.bundles.policy import PolicyStore, check_policies, compile_policy  # noqa: E402
from duetime.bundles.source import SourceError  # noqa: E402

CALENDARS = Path(__file__).resolve().parents[1] / "calendars"
EXAMPLES = CALENDARS / "policies"


@pytest.fixture(scope="module")
def stores():
    bundles = BundleStore.load(CALENDARS)
    return bundles, PolicyStore.load(EXAMPLES, bundles), PolicyStore.load(CALENDARS / "policies", bundles)


def test_example_policy_is_compiled_and_current(stores):
    bundles, _, _ = stores
    assert check_policies(EXAMPLES, bundles) == []
    assert read_versions(EXAMPLES, "support-sla") == [compile_policy(EXAMPLES / "support-sla.toml", bundles)[1]]


def test_one_clock_policy_keeps_its_version(stores):
    bundles, _, served = stores
    assert served.versions("support-contract") == ["8b65ed13fadb"]
    assert compile_policy(CALENDARS / "policies" / "support-contract.toml", bundles)[1] == "8b65ed13fadb"


def test_one_clock_policy_as_one_metric_matches_its_evaluation(stores):
    from duetime.core.sla import evaluate
    from test_sla_policy import SCENARIO
    _, _, served = stores
    legacy = evaluate(served.resolve("support-contract"), SCENARIO)
    m = evaluate_metrics(served.resolve_metrics("support-contract"), SCENARIO).metrics[0]
    assert m.name == "" and m.state == legacy.state and m.tier == legacy.tier
    assert [(e.event, e.action, e.status, e.new_deadline_us, e.remaining_us) for e in m.timeline] == [
        (e.event, e.action, e.status.value, e.new_deadline_us, e.remaining_us) for e in legacy.timeline]


def test_unknown_event_and_tier_are_refused_alike_by_both_evaluators(stores):
    """One check (core/sla.py check_history_names) names an unknown event or
    tier for the one-clock evaluator and the metrics evaluator alike."""
    from duetime.core.sla import evaluate
    _, _, served = stores
    h = [BusinessEvent("start", t("2026-12-11T10:00:00+01:00")),
         BusinessEvent("escalated", t("2026-12-11T11:00:00+01:00"), {"tier": "gold"}),
         BusinessEvent("tier_change", t("2026-12-11T12:00:00+01:00"), {"tier": "priority"})]
    expected = [
        ("events[1].type", "'escalated' is not an event of policy 'support-contract' (known: "
                           "awaiting_third_party, customer_reply, resolved, tier_change)"),
        ("events[1].attributes", "tier 'gold' is not a tier of policy 'support-contract' "
                                 "(tiers: priority, standard)")]
    for run in (lambda: evaluate(served.resolve("support-contract"), h),
                lambda: evaluate_metrics(served.resolve_metrics("support-contract"), h)):
        with pytest.raises(InvalidArgument) as e:
            run()
        assert [(v.field, v.description) for v in e.value.violations] == expected
    for run in (lambda: evaluate(served.resolve("support-contract"), h[1:]),
                lambda: evaluate_metrics(served.resolve_metrics("support-contract"), h[1:])):
        with pytest.raises(InvalidArgument) as e:
            run()
        assert [(v.field, v.description) for v in e.value.violations] == [
            ("events[0].type", "a history begins with a 'start' event")]


def test_support_sla_ticket(stores):
    _, examples, _ = stores
    policy = examples.resolve_metrics("support-sla")
    assert [m.name for m in policy.metrics] == ["first_response", "next_reply", "resolution"]
    zone = policy.metrics[0].targets["normal"].calendar.zone
    h = [BusinessEvent("start", t("2026-12-01T09:00:00+01:00"), {"tier": "high"}),     # Tuesday
         BusinessEvent("agent_reply", t("2026-12-01T10:00:00+01:00")),
         BusinessEvent("awaiting_customer", t("2026-12-01T10:00:00+01:00")),
         BusinessEvent("customer_reply", t("2026-12-01T14:00:00+01:00"))]
    ev = evaluate_metrics(policy, h)
    fr, nr, res = ev.metrics
    assert (fr.status, fr.state.met) == ("STOPPED", True)
    assert (nr.status, nr.cycles) == ("RUNNING", 1)
    assert res.status == "RUNNING"
    # next reply: 4bh from 14:00 over split shifts 08-12/13-17 → Wednesday 09:00; 75% = 1bh left → 08:00
    assert format_local(nr.state.deadline_us, zone) == "2026-12-02T09:00:00+01:00"
    assert format_local(ev.next_at_us, zone) == "2026-12-02T08:00:00+01:00"
    assert [(d.metric, d.kind, d.threshold) for d in ev.next_due] == [("next_reply", "WARNING", "75%")]


@pytest.mark.parametrize("body,words", [
    ('[metrics.m]\ntargets.a = { target = "4bh", calendar = "support-desk-example" }\n'
     'events.x = { RUNNING = "RESUME" }\n', "RUNNING allows PAUSE or RESET or RETARGET or STOP, not 'RESUME'"),
    ('[metrics.m]\ntargets.a = { target = "4bh", calendar = "support-desk-example" }\n'
     'events.x = { NOT_STARTED = "STOP" }\n', "NOT_STARTED allows START, not 'STOP'"),
    ('[metrics.m]\nwarnings = ["1bd"]\ntargets.a = { target = "4bh", calendar = "support-desk-example" }\n',
     "warnings[0]"),
    ('[metrics.m]\ntargets.a = { target = "4bh", calendar = "support-desk-example" }\n'
     '[metrics.n]\ntargets.b = { target = "4bh", calendar = "support-desk-example" }\n', "every metric has a target"),
    ('[metrics.m]\nwarnings = ["75%", "3bh"]\ntargets.a = { target = "8bh", calendar = "support-desk-example" }\n'
     'targets.b = { target = "2bh", calendar = "support-desk-example" }\n',
     "bad.toml: metrics.m.warnings[1]: '3bh' left is not less than tier 'b''s target '2bh', so it would fall at "
     "every start; give an amount less than every tier's target, or a share such as '75%'"),
    ('[metrics.m]\nwarnings = ["4h"]\ntargets.a = { target = "4h", calendar = "always-open" }\n',
     "metrics.m.warnings[0]: '4h' left is not less than tier 'a''s target '4h'"),
])
def test_policy_source_refusals(stores, tmp_path, body, words):
    bundles, _, _ = stores
    p = tmp_path / "bad.toml"
    p.write_text(body)
    with pytest.raises(SourceError) as e:
        compile_policy(p, bundles)
    assert words in str(e.value)


def test_example_next_action_after_each_event():
    """The table of docs/sla.md: the next action after each event."""
    rows = []
    for n in range(1, len(HISTORY) + 1):
        ev = evaluate_metrics(EXAMPLE, HISTORY[:n])
        rows.append((local(ev.next_at_us), [(d.metric, d.kind, d.threshold) for d in ev.next_due]))
    assert rows == [
        ("2026-11-30T13:00:00+01:00", [("first_response", "BREACH", "")]),
        ("2026-12-01T13:00:00+01:00", [("resolution", "WARNING", "75%")]),
        (None, []),
        ("2026-12-02T16:00:00+01:00", [("resolution", "WARNING", "75%")]),
    ]


def test_a_threshold_given_twice_falls_twice_and_a_huge_amount_falls_at_the_start():
    p = MetricPolicy("p", "v", "standard", ("standard",), (
        metric("m", "4bh", START, ["75%", "75%", "9999bh"]),))
    ev = evaluate_metrics(p, [BusinessEvent("start", t("2026-11-30T09:00:00+01:00"))],
                          t("2026-11-30T12:00:00+01:00"))
    assert [(e.action, local(e.at_us), e.threshold) for e in ev.metrics[0].timeline] == [
        ("START", "2026-11-30T09:00:00+01:00", ""),
        ("WARNING", "2026-11-30T09:00:00+01:00", "9999bh"),
        ("WARNING", "2026-11-30T12:00:00+01:00", "75%"),
        ("WARNING", "2026-11-30T12:00:00+01:00", "75%"),
    ]
    assert local(ev.next_at_us) == "2026-11-30T13:00:00+01:00"


def test_business_day_clock_warns_in_hours_of_business_day_open_time():
    p = MetricPolicy("p", "v", "standard", ("standard",), (metric("m", "1bd", START, ["2h", "50%"]),))
    ev = evaluate_metrics(p, [BusinessEvent("start", t("2026-11-27T10:00:00+01:00"))])  # a Friday
    # due Monday 10:00; open time of the business-day measure: Friday 10-24, Monday 00-10 (24 h)
    assert local(ev.metrics[0].state.deadline_us) == "2026-11-30T10:00:00+01:00"
    assert local(ev.next_at_us) == "2026-11-27T22:00:00+01:00"  # 12 h left: Friday 22-24, Monday 00-10
    later = evaluate_metrics(p, [BusinessEvent("start", t("2026-11-27T10:00:00+01:00"))],
                             t("2026-11-30T09:00:00+01:00"))
    assert [(e.action, local(e.at_us), e.threshold) for e in later.metrics[0].timeline][1:] == [
        ("WARNING", "2026-11-27T22:00:00+01:00", "50%"), ("WARNING", "2026-11-30T08:00:00+01:00", "2h")]
