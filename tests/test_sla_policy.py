"""Contract policies: the support-contract scenario with exact timestamps."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from duetime.bundles import BundleStore
from duetime.bundles.policy import PolicyStore, check_policies, compile_policies
from duetime.core import FailedPrecondition, InvalidArgument, Status, parse_instant, to_us
from duetime.core.clock import EventType
from duetime.core.sla import BusinessEvent, Rule, evaluate
from duetime.core.zones import format_local

ROOT = Path(__file__).resolve().parents[1] / "calendars"


def t(text: str) -> int:
    return to_us(parse_instant(text, "at"))


@pytest.fixture(scope="module")
def policy():
    bundles = BundleStore.load(ROOT)
    return PolicyStore.load(ROOT / "policies", bundles).resolve("support-contract")


SCENARIO = [
    BusinessEvent("start", t("2026-12-11T10:00:00+01:00")),  # day 0, Friday: standard, 14d
    BusinessEvent("customer_reply", t("2026-12-14T10:00:00+01:00")),  # day 3: reset
    BusinessEvent("tier_change", t("2026-12-17T10:00:00+01:00"), {"tier": "priority"}),  # day 6: 48bh from then
    BusinessEvent("awaiting_third_party", t("2026-12-18T10:00:00+01:00")),  # day 7: pause
    BusinessEvent("customer_reply", t("2026-12-20T10:00:00+01:00")),  # day 9 (Sunday): resume
    BusinessEvent("resolved", t("2026-12-29T11:00:00+01:00")),
]


def test_support_contract_scenario_timeline(policy):
    result = evaluate(policy, SCENARIO)
    zone = policy.tiers["standard"].calendar.zone
    rows = [
        (e.event, e.action, e.status.value,
         format_local(e.new_deadline_us, zone) if e.new_deadline_us is not None else None,
         e.remaining_us)
        for e in result.timeline
    ]
    H = 3_600_000_000
    assert rows == [
        ("start", "START", "RUNNING", "2026-12-25T10:00:00+01:00", None),
        ("customer_reply", "RESET", "RUNNING", "2026-12-28T10:00:00+01:00", None),
        # 48bh over split shifts 08–12/13–17, Christmas Eve mornings only, 25/26 holidays
        ("tier_change", "RETARGET", "RUNNING", "2026-12-28T15:00:00+01:00", None),
        ("awaiting_third_party", "PAUSE", "PAUSED", None, 40 * H),
        ("customer_reply", "RESUME", "RUNNING", "2026-12-29T12:00:00+01:00", None),
        ("resolved", "STOP", "STOPPED", None, None),
    ]
    assert result.state.status is Status.STOPPED and result.state.met is True
    assert result.timeline[3].reason == (
        "awaiting_third_party: clock paused with 40h left in its measure; deadline cleared"
    )
    assert result.timeline[1].reason == (
        "customer_reply: clock reset to 14d; due 2026-12-28T10:00:00+01:00 (was 2026-12-25T10:00:00+01:00)"
    )


def test_resolved_late_is_a_breach(policy):
    late = SCENARIO[:-1] + [BusinessEvent("resolved", t("2026-12-29T13:00:00+01:00"))]
    result = evaluate(policy, late)
    assert result.state.met is False
    assert format_local(result.state.breached_us, policy.tiers["priority"].calendar.zone) == "2026-12-29T12:00:00+01:00"


def test_unmapped_event_does_nothing_and_says_so(policy):
    events = SCENARIO[:4] + [BusinessEvent("awaiting_third_party", t("2026-12-19T10:00:00+01:00"))]
    last = evaluate(policy, events).timeline[-1]
    assert (last.action, last.reason) == ("NONE", "awaiting_third_party while PAUSED: the policy does nothing")


def test_bad_histories(policy):
    with pytest.raises(InvalidArgument) as e:
        evaluate(policy, SCENARIO[1:])
    assert e.value.violations[0].field == "events[0].type"
    with pytest.raises(InvalidArgument) as e:
        evaluate(policy, SCENARIO[:1] + [BusinessEvent("escalate", t("2026-12-12T10:00:00+01:00")),
                                         BusinessEvent("tier_change", t("2026-12-13T10:00:00+01:00"), {"tier": "gold"})])
    assert [v.field for v in e.value.violations] == ["events[1].type", "events[2].attributes"]
    with pytest.raises(FailedPrecondition):
        evaluate(policy, SCENARIO[:3] + [BusinessEvent("customer_reply", t("2026-12-16T10:00:00+01:00"))])


def test_shipped_policies_are_compiled_and_checked():
    bundles = BundleStore.load(ROOT)
    assert [str(p) for p in check_policies(ROOT / "policies", bundles)] == []


def test_policy_pins_calendar_versions(tmp_path):
    import shutil

    shutil.copytree(ROOT, tmp_path / "c")
    root = tmp_path / "c"
    bundles = BundleStore.load(root)
    (compiled,) = [c for c in compile_policies(root / "policies", bundles) if c.name == "support-contract"]
    store = PolicyStore.load(root / "policies", bundles)
    pinned = store.resolve(f"support-contract@{compiled.version}")
    assert pinned.tiers["standard"].calendar_ref == f"support-desk-example@{bundles.resolve('support-desk-example').version}"


def test_a_second_start_is_named_as_such(policy):
    with pytest.raises(FailedPrecondition) as e:
        evaluate(policy, SCENARIO[:2] + [BusinessEvent("start", t("2026-12-15T10:00:00+01:00"))])
    assert [(v.field, v.description) for v in e.value.violations] == [(
        "events[2].type", "a history has one 'start' event, its first; to start a new cycle use an "
                          "event of the policy (known: awaiting_third_party, customer_reply, "
                          "resolved, tier_change)")]


def test_a_refused_transition_names_the_event(policy):
    with pytest.raises(FailedPrecondition) as e:
        evaluate(policy, SCENARIO[:3] + [BusinessEvent("customer_reply", t("2026-12-16T10:00:00+01:00"))])
    (v,) = e.value.violations
    assert v.field == "events[3].time"
    assert v.description == ("customer_reply (RESET): the event is earlier than the one before "
                             "it; events must come in time order")
    # a policy that pauses a paused clock: the refusal is about the event itself
    pausing = dataclasses.replace(policy, rules={
        **policy.rules, "awaiting_third_party": Rule({"RUNNING": EventType.PAUSE,
                                                      "PAUSED": EventType.PAUSE})})
    with pytest.raises(FailedPrecondition) as e:
        evaluate(pausing, SCENARIO[:4] + [BusinessEvent("awaiting_third_party",
                                                         t("2026-12-19T10:00:00+01:00"))])
    (v,) = e.value.violations
    assert v.field == "events[4]"
    assert v.description == "awaiting_third_party (PAUSE): the clock is already paused"


def test_content_without_a_version_is_the_newest(tmp_path):
    """``content(name)`` reads the version ``resolve(name)`` (GetPolicy and
    EvaluateSla by default) answers from: the newest, not the oldest."""
    import shutil

    from duetime.app.catalog_reads import policy_listing, policy_named

    shutil.copytree(ROOT, tmp_path / "c")
    root = tmp_path / "c"
    bundles = BundleStore.load(root)
    source = root / "policies" / "support-contract.toml"
    oldest = PolicyStore.load(root / "policies", bundles).versions("support-contract")[-1]
    source.write_text(source.read_text(encoding="utf-8").replace(
        'description = "Support contract:', 'description = "Revised support contract:'), encoding="utf-8")
    compile_policies(root / "policies", bundles)
    store = PolicyStore.load(root / "policies", bundles)
    newest = store.resolve("support-contract").version
    assert store.versions("support-contract") == [oldest, newest] and newest != oldest
    assert store.content("support-contract") == store.content(f"support-contract@{newest}")
    assert store.content("support-contract")["description"].startswith("Revised support contract:")
    assert store.content(f"support-contract@{oldest}")["description"].startswith("Support contract:")
    assert store.content("support-contract@000000000000") == {}
    assert store.content("no-such-policy") == {}
    listing = {p.name: p for p in policy_listing(store)}["support-contract"]
    assert listing.description.startswith("Revised support contract:")
    assert policy_named("support-contract", store).listing.description == listing.description
