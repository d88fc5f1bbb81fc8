"""The playground page at the widths people open it at: 320 px (a small
phone), 400 px (a phone), 768 px (a tablet) and 1280 px (a laptop), in
headless Chromium.

Nothing may stick out sideways (``document.documentElement.scrollWidth <=
innerWidth``, and no panel wider inside than its box) with realistic content
filled in; a tapped deadline pin keeps the timeline's dates on screen and
brings its explanation into view. One test per behaviour the page promises
about its layout and forms asserts the exact text or state shown.

One server and one browser serve the whole module (the fixtures of
tests/test_playground.py); each test opens its own browser context.
"""

from __future__ import annotations

import contextlib
import json
import re
import tomllib

import pytest
from playwright.sync_api import expect
from server_process import CALENDARS
from test_playground import WAIT_MS, browser, server  # noqa: F401  (module fixtures)

WIDTHS = (320, 400, 768, 1280)
HEIGHT = 800
ZAGREB_DUE = [  # the Zagreb example's due times (tests/test_playground.py checks them with the oracle)
    ("remind", "2026-12-01T16:00:00+01:00"),
    ("escalate", "2026-12-04T16:00:00+01:00"),
    ("expire", "2026-12-27T16:00:00+01:00"),
]
POLICY = tomllib.loads((CALENDARS / "policies" / "support-contract.toml").read_text())

expect.set_options(timeout=WAIT_MS)


@contextlib.contextmanager
def opened(browser, server, width: int, touch: bool = False):  # noqa: F811
    """The playground loaded (bundles listed) in a new context `width` px wide;
    no script error may happen on it."""
    context = browser.new_context(viewport={"width": width, "height": HEIGHT}, has_touch=touch)
    page = context.new_page()
    script_errors: list[str] = []
    page.on("pageerror", lambda error: script_errors.append(str(error)))
    page.goto(server.url)
    expect(page.locator("body")).to_have_attribute("data-ready", "true")
    try:
        yield page
    finally:
        context.close()
    assert script_errors == []


def load_example(page) -> None:
    """The Zagreb example, computed and drawn."""
    page.get_by_test_id("load-example").click()
    expect(page.get_by_test_id("due-row")).to_have_count(3)
    expect(page.get_by_test_id("pin")).to_have_count(3)


def replay_sla(page) -> None:
    page.get_by_test_id("sla-replay").click()
    expect(page.get_by_test_id("sla-row")).to_have_count(6)
    page.evaluate("() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")


OVERFLOW = """() => {
    const found = [];
    const root = document.documentElement;
    if (root.scrollWidth > innerWidth) found.push(["document", root.scrollWidth, innerWidth]);
    const panels = document.querySelectorAll(
        "header, #schedule-form > fieldset, main > section, .timeline-area > section, .timeline-area > aside");
    for (const panel of panels) {
        if (panel.scrollWidth > panel.clientWidth) {
            found.push([panel.dataset.testid || panel.className || panel.tagName, panel.scrollWidth, panel.clientWidth]);
        }
    }
    return found;
}"""


def sticking_out(page) -> list:
    """The document or panels wider inside than their box: [name, scroll width, width]."""
    return page.evaluate(OVERFLOW)


def box(page, selector: str) -> dict:
    return page.locator(selector).first.bounding_box()


def inside(inner: dict, outer: dict, slack: float = 0.5) -> bool:
    return (outer["x"] - slack <= inner["x"]
            and inner["x"] + inner["width"] <= outer["x"] + outer["width"] + slack)


def in_viewport(page, locator) -> bool:
    """Whether the element's box lies wholly within the viewport."""
    return page.evaluate("""(node) => { const r = node.getBoundingClientRect();
        return r.top >= -0.5 && r.bottom <= innerHeight + 0.5 && r.left >= -0.5 && r.right <= innerWidth + 0.5; }""",
                         locator.element_handle())


@pytest.mark.parametrize("width", WIDTHS)
def test_nothing_sticks_out_sideways(browser, server, width):  # noqa: F811
    """With the example computed, a fourth deadline counted after another, the
    clock moved on, a refused input, a bundle's info line and the SLA replay
    shown, neither the page nor any panel is wider than the viewport."""
    with opened(browser, server, width) as page:
        assert sticking_out(page) == [], width
        load_example(page)
        page.get_by_test_id("add-deadline").click()
        row = page.get_by_test_id("deadline-row").last
        row.get_by_test_id("deadline-name").fill("escalate-to-duty-manager")
        row.get_by_test_id("deadline-duration").fill("8bh")
        row.get_by_test_id("deadline-after").fill("escalate")
        page.get_by_test_id("compute").click()
        expect(page.get_by_test_id("due-row")).to_have_count(4)
        expect(page.get_by_test_id("pin")).to_have_count(4)
        page.get_by_test_id("skip").click()
        expect(page.get_by_test_id("clock-fired")).to_contain_text("remind fired at")
        assert sticking_out(page) == [], width
        assert inside(box(page, "[data-testid=due-table]"), box(page, "[data-testid=results]")), width

        page.get_by_test_id("sla-event").nth(2).get_by_test_id("sla-event-time").fill("next tuesday")
        page.get_by_test_id("sla-replay").click()
        expect(page.get_by_test_id("sla-event").nth(2).get_by_test_id("sla-event-time-error")).to_be_visible()
        assert sticking_out(page) == [], width
        page.get_by_test_id("sla-event").nth(2).get_by_test_id("sla-event-time").fill("2026-12-17T10:00")
        replay_sla(page)
        assert sticking_out(page) == [], width

        page.get_by_test_id("source-bundle").check()
        page.get_by_test_id("bundle").select_option("hr-zagreb")
        expect(page.get_by_test_id("bundle-info")).to_contain_text("holidays 2020–2035")
        assert sticking_out(page) == [], width


@pytest.mark.parametrize("width", WIDTHS)
def test_a_tapped_pin_keeps_the_dates_and_shows_its_explanation(browser, server, width):  # noqa: F811
    """Tapping a deadline pin (a touch) scrolls nothing sideways: the
    timeline's date column stays on screen; the explanation, its title
    naming the deadline, is in the viewport."""
    with opened(browser, server, width, touch=True) as page:
        load_example(page)
        for name, due in (ZAGREB_DUE[0], ZAGREB_DUE[2]):
            pin = page.locator(f"[data-testid=pin][data-deadline={name}]")
            pin.scroll_into_view_if_needed()
            pin.tap()
            title = page.get_by_test_id("explanation-title")
            expect(title).to_have_text(f"{name}: {'2bd' if name == 'remind' else '30d'} from the entry, due {due}")
            expect(pin).to_have_class(re.compile(r"\bselected\b"))
            assert in_viewport(page, title), (width, name, title.bounding_box())
            first_step = page.get_by_test_id("explanation-steps").locator("li").first
            assert in_viewport(page, first_step), (width, name)
            assert page.evaluate("() => [scrollX, document.querySelector('[data-testid=timeline]').scrollLeft]") == [0, 0]
            date = page.locator(f"[data-testid=day][data-date='{due[:10]}'] th.date")
            date_box = date.bounding_box()
            assert date_box["x"] >= 0 and date_box["x"] + date_box["width"] <= width, (width, name, date_box)
            assert sticking_out(page) == [], width


def test_the_due_times_fit_their_card_at_400_px(browser, server):  # noqa: F811
    """At 400 px the due-times table stacks: each deadline one block, each
    value beside its column's name, a timestamp broken between its date and
    its time; the table stays inside its card."""
    with opened(browser, server, 400) as page:
        load_example(page)
        card, table = box(page, "[data-testid=results]"), box(page, "[data-testid=due-table]")
        assert inside(table, card), (table, card)
        rows = page.get_by_test_id("due-row")
        assert [[cell.get_attribute("data-label") for cell in row.locator("td").all()]
                for row in rows.all()] == [["Deadline", "Counted", "Due (local)", "Due (UTC)", "Why"]] * 3
        assert page.eval_on_selector(
            "[data-testid=due-row] [data-testid=due-local]",
            "cell => getComputedStyle(cell, '::before').content") == '"Due (local)"'
        assert [(row.get_attribute("data-deadline"), row.get_by_test_id("due-local").text_content())
                for row in rows.all()] == ZAGREB_DUE
        local = rows.first.get_by_test_id("due-local")
        assert local.bounding_box()["height"] > 1.5 * rows.first.get_by_test_id("due-name").bounding_box()["height"]
        assert inside(local.bounding_box(), card)
        for explain in page.get_by_test_id("explain").all():
            assert inside(explain.bounding_box(), card)


def test_the_sla_record_id_wraps_inside_its_card_at_400_px(browser, server):  # noqa: F811
    with opened(browser, server, 400) as page:
        with page.expect_response("**/v1/sla:evaluate") as answered:
            page.get_by_test_id("sla-replay").click()
        record_id = answered.value.json()["recordId"]
        expect(page.get_by_test_id("sla-row")).to_have_count(6)
        verdict, record = page.get_by_test_id("sla-verdict"), page.get_by_test_id("sla-record-id")
        expect(verdict).to_have_text(f"Clock STOPPED, SLA met. Tier priority, record {record_id}.")
        expect(record).to_have_text(record_id)
        expect(record).to_have_attribute("title", f"record {record_id}")
        card = page.get_by_test_id("sla").bounding_box()
        for part in page.evaluate("""() => [...document.querySelector('[data-testid=sla-record-id]')
            .getClientRects()].map(r => ({x: r.x, width: r.width}))"""):
            assert inside(part, card), (part, card)
        assert inside(verdict.bounding_box(), card)


def test_the_last_sla_chart_dot_is_whole_at_400_px(browser, server):  # noqa: F811
    """Every event dot and deadline flag of the SLA chart lies inside its
    lane (the chart's content box, inside its padding and border), the last
    event's dot (at the axis's right end) and the first's (at its left end)
    too."""
    with opened(browser, server, 400) as page:
        replay_sla(page)
        marks = page.locator(".sla-track .lane-axis .event, .sla-track .lane-axis .due")
        expect(page.locator(".sla-track .lane-axis .event")).to_have_count(6)
        for mark in marks.all():
            lane = mark.locator("xpath=ancestor::div[contains(concat(' ', @class, ' '), ' lane ')][1]").bounding_box()
            assert inside(mark.bounding_box(), lane, slack=0), (mark.get_attribute("title"), lane)
        last = page.locator(".sla-track .lane-axis .event").last
        assert last.get_attribute("title") == "resolved at 2026-12-29T11:00:00+01:00"
        assert last.bounding_box()["width"] > 8  # drawn whole, not cut


def test_the_entry_placeholder_looks_like_an_example(browser, server):  # noqa: F811
    with opened(browser, server, 400) as page:
        entry = page.get_by_test_id("entry")
        expect(entry).to_have_value("")
        expect(entry).to_have_attribute("placeholder", "e.g. 2026-11-27T16:00")
        assert entry.evaluate("e => { const s = getComputedStyle(e, '::placeholder'); return [s.fontStyle, s.color]; }") == [
            "italic", "rgb(107, 114, 128)"]
        expect(page.get_by_test_id("entry-hint")).to_have_text(
            "local time in the calendar's zone, e.g. 2026-11-27T16:00; an offset (+01:00) is optional")


def active_testid(page) -> list:
    """[data-testid, index among its likes] of the focused element."""
    return page.evaluate("""() => { const e = document.activeElement;
        const likes = [...document.querySelectorAll(`[data-testid="${e.dataset.testid}"]`)];
        return [e.dataset.testid, likes.indexOf(e)]; }""")


def test_a_refusal_scrolls_to_and_focuses_the_first_field_in_error(browser, server):  # noqa: F811
    with opened(browser, server, 400) as page:
        load_example(page)
        page.evaluate("() => window.scrollTo(0, document.body.scrollHeight)")
        # the service's refusal: deadline 2's duration
        duration = page.get_by_test_id("deadline-row").nth(1).get_by_test_id("deadline-duration")
        duration.fill("3xy")
        page.evaluate("() => window.scrollTo(0, document.body.scrollHeight)")
        page.get_by_test_id("compute").click()
        expect(duration).to_be_focused()
        assert active_testid(page) == ["deadline-duration", 1]
        assert in_viewport(page, duration)
        expect(page.get_by_test_id("results-status")).to_have_text(
            "The service refused the request: see the errors next to the fields.")

        # refused by the page itself: Monday's hours and the entry; Monday's come first
        duration.fill("5bd")
        page.get_by_test_id("hours-mon").fill("0900")
        page.get_by_test_id("entry").fill("next friday")
        page.evaluate("() => window.scrollTo(0, document.body.scrollHeight)")
        page.get_by_test_id("compute").click()
        expect(page.get_by_test_id("hours-mon")).to_be_focused()
        assert in_viewport(page, page.get_by_test_id("hours-mon"))
        expect(page.get_by_test_id("hours-mon-error")).to_have_text(
            "'0900' is not an interval: write 09:00-12:00, 13:00-17:00")
        page.get_by_test_id("hours-mon").fill("09:00-17:00")
        page.get_by_test_id("compute").click()
        expect(page.get_by_test_id("entry")).to_be_focused()

        # the SLA form: event 3's time
        time = page.get_by_test_id("sla-event").nth(2).get_by_test_id("sla-event-time")
        time.fill("soon")
        page.evaluate("() => window.scrollTo(0, 0)")
        page.get_by_test_id("sla-replay").click()
        expect(time).to_be_focused()
        assert in_viewport(page, time)
        expect(page.get_by_test_id("sla-event").nth(2).get_by_test_id("sla-event-time-error")).to_have_text(
            "'soon' is not a date-time: write 2026-11-27T16:00 (local time in the time zone above) "
            "or 2026-11-27T16:00:00+01:00")


def test_the_status_names_the_deadline_due_next_after_the_clock(browser, server):  # noqa: F811
    with opened(browser, server, 1280) as page:
        load_example(page)
        status, skip = page.get_by_test_id("results-status"), page.get_by_test_id("skip")
        said = "3 due time(s) in Europe/Zagreb; "
        expect(status).to_have_text(said + "next due: remind at 2026-12-01T16:00:00+01:00.")
        skip.click()
        expect(status).to_have_text(said + "next due: escalate at 2026-12-04T16:00:00+01:00.")
        skip.click()
        expect(page.get_by_test_id("clock-fired")).to_contain_text("escalate fired at")
        expect(status).to_have_text(said + "next due: expire at 2026-12-27T16:00:00+01:00.")
        skip.click()
        expect(status).to_have_text(said + "no deadline left after 2026-12-27T16:00:00+01:00.")
        expect(skip).to_be_disabled()
        page.get_by_test_id("reset").click()
        expect(status).to_have_text(said + "next due: remind at 2026-12-01T16:00:00+01:00.")


def test_sla_event_times_are_local_in_the_chosen_zone_an_offset_optional(browser, server):  # noqa: F811
    """As the entry time: a time without an offset is wall time in the SLA
    form's time zone (the preset's: Europe/Zagreb); one with an offset is
    that instant. The form says so."""
    with opened(browser, server, 1280) as page:
        expect(page.get_by_test_id("sla-time-zone")).to_have_value("Europe/Zagreb")
        expect(page.get_by_test_id("sla-time-hint")).to_have_text(
            "Time: local time in the time zone above, e.g. 2026-12-11T10:00; an offset (+01:00) is optional.")
        expect(page.locator("[data-testid=sla] legend")).to_have_text("Events (type, time, attributes)")
        times = page.get_by_test_id("sla-event-time")
        assert times.first.get_attribute("aria-label") == "event 1: time, local in the time zone above or with an offset"
        assert [t.input_value() for t in times.all()] == [
            "2026-12-11T10:00", "2026-12-14T10:00", "2026-12-17T10:00", "2026-12-18T10:00",
            "2026-12-20T10:00", "2026-12-29T11:00"]
        times.nth(1).fill("2026-12-14T10:00:00+01:00")  # with an offset: the same instant

        def sent_times() -> list[str]:
            with page.expect_request("**/v1/sla:evaluate") as asked:
                page.get_by_test_id("sla-replay").click()
            return [e["time"] for e in json.loads(asked.value.post_data)["events"]]

        assert sent_times() == ["2026-12-11T09:00:00Z", "2026-12-14T09:00:00Z", "2026-12-17T09:00:00Z",
                                "2026-12-18T09:00:00Z", "2026-12-20T09:00:00Z", "2026-12-29T10:00:00Z"]
        expect(page.get_by_test_id("sla-row").last.get_by_test_id("sla-time")).to_have_text("2026-12-29T11:00:00+01:00")
        expect(page.get_by_test_id("sla-verdict")).to_contain_text("Clock STOPPED, SLA met.")

        page.get_by_test_id("sla-time-zone").fill("America/New_York")
        assert sent_times() == ["2026-12-11T15:00:00Z", "2026-12-14T09:00:00Z", "2026-12-17T15:00:00Z",
                                "2026-12-18T15:00:00Z", "2026-12-20T15:00:00Z", "2026-12-29T16:00:00Z"]

        page.get_by_test_id("sla-time-zone").fill("Mars/Olympus")
        page.get_by_test_id("sla-replay").click()
        expect(page.get_by_test_id("sla-time-zone-error")).to_have_text(
            "this browser does not know the time zone 'Mars/Olympus': use an IANA name (e.g. Europe/Zagreb), "
            "or give the time with an offset")
        expect(page.get_by_test_id("sla-time-zone")).to_be_focused()


def test_sla_event_types_are_the_policys_events(browser, server):  # noqa: F811
    """Each event's type is a select of "start" and the events of the policy
    named, as the service says them; an unknown policy is said at its input."""
    with opened(browser, server, 400) as page:
        expect(page.get_by_test_id("sla")).to_have_attribute("data-policy-events", "support-contract")
        types = page.get_by_test_id("sla-event-type")
        assert types.first.evaluate("e => e.tagName") == "SELECT"
        expected = ["start", *sorted(POLICY["events"])]
        assert expected == ["start", "awaiting_third_party", "customer_reply", "resolved", "tier_change"]
        for select in types.all():
            assert select.locator("option").all_text_contents() == expected
        assert [t.input_value() for t in types.all()] == [
            "start", "customer_reply", "tier_change", "awaiting_third_party", "customer_reply", "resolved"]
        page.get_by_test_id("sla-add-event").click()
        expect(types).to_have_count(7)
        expect(types.last).to_have_value("awaiting_third_party")

        page.get_by_test_id("sla-policy").fill("no-such-policy")
        page.get_by_test_id("sla-policy").blur()
        expect(page.get_by_test_id("sla-policy-error")).to_have_text(
            "no policy named 'no-such-policy' (known: support-contract, support-sla)")
        assert types.first.locator("option").all_text_contents() == expected


def test_bundle_info_names_its_zone_once(browser, server):  # noqa: F811
    source = tomllib.loads((CALENDARS / "hr-zagreb.toml").read_text())
    version = (CALENDARS / "compiled" / "hr-zagreb" / "versions.txt").read_text().split()[-1]
    with opened(browser, server, 400) as page:
        page.get_by_test_id("source-bundle").check()
        with page.expect_response("**/v1/calendars/hr-zagreb") as answered:
            page.get_by_test_id("bundle").select_option("hr-zagreb")
        assert answered.value.json()["version"] == version
        info = page.get_by_test_id("bundle-info")
        expect(info).to_have_text(f"{source['description']}; holidays 2020–2035; version {version}")
        assert info.text_content().count("Europe/Zagreb") == 1


def test_the_sla_tables_colours_are_explained(browser, server):  # noqa: F811
    """The red bold of a moved deadline and the purple bold of a paused
    clock's time left are said in a legend under the table and in the
    cells' titles."""
    with opened(browser, server, 1280) as page:
        replay_sla(page)
        expect(page.get_by_test_id("sla-table-legend")).to_have_text(
            "Red bold: the event moved the deadline (its title says where it was). "
            "Purple bold: the clock is paused; the time left waits for a resume.")
        rows = page.get_by_test_id("sla-row")
        moved = page.locator("[data-testid=sla-row].moved [data-testid=sla-new-deadline]")
        assert [m.get_attribute("title") for m in moved.all()] == [
            "deadline moved: was 2026-12-25T10:00:00+01:00", "deadline moved: was 2026-12-28T10:00:00+01:00"]
        assert [r.get_attribute("data-action") for r in page.locator("[data-testid=sla-row].moved").all()] == [
            "RESET", "RETARGET"]
        expect(rows.nth(3).get_by_test_id("sla-remaining")).to_have_attribute(
            "title", "clock paused: the time left waits for a resume")
        style = "e => { const s = getComputedStyle(e); return [s.fontWeight, s.color]; }"
        assert moved.first.evaluate(style) == page.locator(".sla-table-legend .moved").evaluate(style) == [
            "700", "rgb(179, 38, 30)"]
        paused = rows.nth(3).get_by_test_id("sla-remaining")
        assert paused.evaluate(style) == page.locator(".sla-table-legend .paused").evaluate(style)
