"""The playground's deadline duration takes a landing rule (docs/semantics.md
§15) as text: the page shows the rolled due time and the service's words for
the roll. Same browser and server as tests/test_playground.py."""

from __future__ import annotations

import oracle as O
from playwright.sync_api import expect
from test_playground import HOLIDAYS, browser, compute, enter_zagreb, oracle_due, page, pins, server  # noqa: F401


def test_a_deadline_with_a_landing_rule(page):
    enter_zagreb(page)
    expire = page.get_by_test_id("deadline-row").last
    expect(expire.get_by_test_id("deadline-name")).to_have_value("expire")
    expire.get_by_test_id("deadline-duration").fill("30d@following@close")
    compute(page)
    cal = O.OCal.from_text("Europe/Zagreb", [6, 7], HOLIDAYS, [(w, [("09:00", "17:00")]) for w in range(1, 6)])
    # Sunday 2026-12-27 16:00 rolls to Monday 2026-12-28, at its closing
    assert oracle_due(cal, "2026-11-27T16:00:00+01:00", "30d@following@close") == (
        "2026-12-28T17:00:00+01:00", "2026-12-28T16:00:00Z")
    assert pins(page)[-1] == ("expire", "2026-12-28", "2026-12-28T17:00:00+01:00", "2026-12-28T16:00:00Z")
    page.locator("[data-testid=pin][data-deadline=expire]").click()
    steps = page.get_by_test_id("explanation-steps").locator("li")
    expect(steps.filter(has_text="is a weekend day")).to_have_text(
        "Sunday 2026-12-27 is a weekend day: rolled to Monday 2026-12-28 (following: the first business day after it)")
    expect(steps.last).to_have_text("Due 2026-12-28T17:00:00+01:00 (Monday 2026-12-28) = 2026-12-28T16:00:00Z")
