"""The playground page (service/duetime/api/playground) in headless Chromium.

One ``python -m duetime serve --port 0 --http-port PORT`` process on 127.0.0.1
serves the page and its HTTP/JSON API; one Chromium (Debian's
/usr/bin/chromium, driven by Playwright; Playwright gives each launch a new,
empty profile directory) loads it. Expected due times are computed
independently with the brute-force oracle (tests/oracle.py) from the same
inputs, and pinned to the values ``duetime due`` gives; the page must show
exactly those, and the service's own words for holidays, explanations and
errors.
"""

from __future__ import annotations

import itertools
import json
import os
import shutil
import subprocess
from datetime import date, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import oracle as O
import pytest
from duetime.v1 import duetime_pb2 as pb
from playwright.sync_api import expect, sync_playwright
from server_process import CALENDARS, start_with_http

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
ZAGREB = ZoneInfo("Europe/Zagreb")
WAIT_MS = 20_000  # for one answer to appear on a loaded 2-core machine
DEADLINES = [("remind", "2bd"), ("escalate", "5bd"), ("expire", "30d")]  # the page's defaults
HOLIDAYS = [("2026-12-25", "Christmas Day"), ("2026-12-26", "St. Stephen's Day")]

expect.set_options(timeout=WAIT_MS)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """duetime with gRPC on a free port and HTTP/JSON (and the page) on another."""
    running = start_with_http(tmp_path_factory.mktemp("playground") / "ledger.db", timeout=30)
    try:
        running.url = f"{running.http_url}/"
        yield running
        assert running.terminate() == 0, "".join(running.stderr)
    finally:
        running.kill()


def ensure_chromium() -> None:
    """Debian's Chromium at :data:`CHROMIUM`, installed with apt-get when it is
    missing and this runs as root (as scripts/pg_test_server.py does for
    PostgreSQL); otherwise the tests fail saying what to install."""
    if os.path.exists(CHROMIUM):
        return
    if os.geteuid() != 0 or not shutil.which("apt-get"):
        pytest.fail(f"{CHROMIUM} not found: install Debian's chromium "
                    "(`apt-get install -y chromium`)")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for cmd in (["apt-get", "update", "-qq"], ["apt-get", "install", "-y", "-qq", "chromium"]):
        done = subprocess.run(cmd, env=env, capture_output=True, text=True)
        if done.returncode:
            pytest.fail(f"`{' '.join(cmd)}` failed ({done.returncode}):\n{done.stderr[-2000:]}")


@pytest.fixture(scope="module")
def browser():
    ensure_chromium()
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser, server):
    """The playground, loaded (bundles listed) in a fresh browser context; no
    script error may happen on it."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    opened = context.new_page()
    script_errors: list[str] = []
    opened.on("pageerror", lambda error: script_errors.append(str(error)))
    opened.goto(server.url)
    expect(opened.locator("body")).to_have_attribute("data-ready", "true")
    yield opened
    context.close()
    assert script_errors == []


# ---- expected values, independently ----------------------------------------------------


def oracle_due(cal: O.OCal, entered: str, duration: str) -> tuple[str, str]:
    """(local RFC 3339 in the calendar's zone, UTC RFC 3339) of entered + duration."""
    due = O.compute_due(cal, datetime.fromisoformat(entered), duration)
    return (due.astimezone(ZoneInfo(cal.zone)).isoformat(),
            due.astimezone(timezone.utc).isoformat().replace("+00:00", "Z"))


def expected_days(first: str, last: str, holidays: dict[str, str],
                  dst: dict[str, str] | None = None) -> list[tuple]:
    """(date, rule, labels, open hours) of every row from first to last for a
    Monday–Friday 09:00–17:00 calendar with Saturday + Sunday weekends."""
    rows, day = [], date.fromisoformat(first)
    while day <= date.fromisoformat(last):
        text = day.isoformat()
        if text in holidays:
            row = [text, "holiday", [f"Holiday: {holidays[text]}"], ""]
        elif day.isoweekday() >= 6:
            row = [text, "weekend", ["Weekend"], ""]
        else:
            row = [text, "hours", [], "09:00–17:00"]
        if dst and text in dst:
            row[2] = row[2] + [dst[text]]
        rows.append(tuple(row))
        day += timedelta(days=1)
    return rows


# ---- reading the page ------------------------------------------------------------------


def day_rows(page) -> list[tuple]:
    """Every drawn day: (date, rule, [labels], open hours)."""
    return [tuple(row) for row in page.eval_on_selector_all(
        "[data-testid=day]",
        """rows => rows.map(r => [r.dataset.date, r.dataset.rule,
             [...r.querySelectorAll('[data-testid=day-label], [data-testid=dst]')].map(l => l.textContent),
             r.dataset.open])""")]


def pins(page) -> list[tuple]:
    """Every deadline pin: (name, the date of its row, local text, UTC text)."""
    return [tuple(pin) for pin in page.eval_on_selector_all(
        "[data-testid=pin]",
        """pins => pins.map(p => [p.dataset.deadline, p.closest('tr').dataset.date,
             p.querySelector('[data-testid=pin-local]').textContent,
             p.querySelector('[data-testid=pin-utc]').textContent])""")]


def enter_zagreb(page) -> None:
    """Types the README's Zagreb example into the calendar and entry inputs."""
    page.get_by_test_id("source-inline").check()
    page.get_by_test_id("time-zone").fill("Europe/Zagreb")
    for day in ("mon", "tue", "wed", "thu", "fri", "sat", "sun"):
        weekend = day in ("sat", "sun")
        page.get_by_test_id(f"weekend-{day}").set_checked(weekend)
        page.get_by_test_id(f"hours-{day}").fill("" if weekend else "09:00-17:00")
    for holiday_date, name in HOLIDAYS:
        page.get_by_test_id("add-holiday").click()
        row = page.get_by_test_id("holiday-row").last
        row.get_by_test_id("holiday-date").fill(holiday_date)
        row.get_by_test_id("holiday-name").fill(name)
    page.get_by_test_id("entry").fill("2026-11-27T16:00+01:00")


def compute(page) -> None:
    page.get_by_test_id("compute").click()
    expect(page.get_by_test_id("results-status")).to_contain_text("due time(s) in")
    expect(page.get_by_test_id("timeline-table")).to_be_visible()


# ---- the tests -------------------------------------------------------------------------


def test_zagreb_deadlines_on_the_timeline_and_the_clock(page, server, tmp_path):
    rows = page.get_by_test_id("deadline-row")
    assert [(row.get_by_test_id("deadline-name").input_value(),
             row.get_by_test_id("deadline-duration").input_value()) for row in rows.all()] == DEADLINES
    enter_zagreb(page)
    expect(page.get_by_test_id("entry-resolved")).to_have_text(
        "= 2026-11-27T16:00:00+01:00 in Europe/Zagreb = 2026-11-27T15:00:00Z")
    compute(page)

    cal = O.OCal.from_text("Europe/Zagreb", [6, 7], HOLIDAYS,
                           [(w, [("09:00", "17:00")]) for w in range(1, 6)])
    expected = [(name, *oracle_due(cal, "2026-11-27T16:00:00+01:00", duration))
                for name, duration in DEADLINES]
    assert expected == [  # as `duetime due 2026-11-27T16:00+01:00 … --tz Europe/Zagreb` answers
        ("remind", "2026-12-01T16:00:00+01:00", "2026-12-01T15:00:00Z"),
        ("escalate", "2026-12-04T16:00:00+01:00", "2026-12-04T15:00:00Z"),
        ("expire", "2026-12-27T16:00:00+01:00", "2026-12-27T15:00:00Z"),
    ]
    assert pins(page) == [(name, due_local[:10], due_local, due_utc)
                          for name, due_local, due_utc in expected]
    assert [tuple(r) for r in page.eval_on_selector_all(
        "[data-testid=due-row]",
        "rows => rows.map(r => [r.dataset.deadline, r.querySelector('[data-testid=due-local]').textContent,"
        " r.querySelector('[data-testid=due-utc]').textContent])")] == expected

    # the weeks from the entry's (Monday 23 November) to the last deadline's (ending Sunday 27 December)
    assert day_rows(page) == expected_days("2026-11-23", "2026-12-27", dict(HOLIDAYS))
    entry_row = page.locator("[data-testid=day][data-date='2026-11-27']")
    expect(entry_row.get_by_test_id("entry-mark")).to_have_text("Entry 2026-11-27T16:00:00+01:00")

    # the explanation is the service's, step by step
    request = pb.ComputeScheduleRequest(
        calendar=pb.Calendar(time_zone="Europe/Zagreb",
                             holidays=[pb.Holiday(date=d, name=n) for d, n in HOLIDAYS]),
        deadlines=[pb.DeadlineSpec(name=n, duration=d) for n, d in DEADLINES], explain=True)
    request.entered_time.FromJsonString("2026-11-27T15:00:00Z")
    steps = {d.name: [s.text for s in d.explanation]
             for d in server.stub.ComputeSchedule(request, timeout=10).deadlines}
    page.locator("[data-testid=pin][data-deadline=remind]").hover()
    expect(page.get_by_test_id("explanation-title")).to_have_text(
        "remind: 2bd from the entry, due 2026-12-01T16:00:00+01:00")
    expect(page.get_by_test_id("explanation-steps").locator("li")).to_have_text(steps["remind"])
    assert steps["remind"][1:5] == [
        "Saturday 2026-11-28: skipped, weekend", "Sunday 2026-11-29: skipped, weekend",
        "Monday 2026-11-30: business day 1 of 2", "Tuesday 2026-12-01: business day 2 of 2"]
    page.locator("[data-testid=pin][data-deadline=expire]").click()
    expect(page.get_by_test_id("explanation-steps").locator("li")).to_have_text(steps["expire"])
    expect(page.get_by_test_id("explanation-steps").locator("li").last).to_have_text(
        "Due 2026-12-27T16:00:00+01:00 (Sunday 2026-12-27) = 2026-12-27T15:00:00Z")

    # the clock: from the entry to remind, then to escalate; reset goes back to the entry
    now, fired = page.get_by_test_id("clock-now"), page.get_by_test_id("clock-fired")
    expect(now).to_have_text("2026-11-27T16:00:00+01:00 (entry)")
    page.get_by_test_id("skip").click()
    expect(fired).to_have_text("remind fired at 2026-12-01T16:00:00+01:00 (2026-12-01T15:00:00Z)")
    expect(fired).to_have_attribute("data-fired", "remind")
    expect(now).to_have_text("2026-12-01T16:00:00+01:00")
    expect(page.locator("[data-testid=day][data-date='2026-12-01'] [data-testid=now-mark]")).to_have_count(1)
    page.get_by_test_id("skip").click()
    expect(fired).to_have_text("escalate fired at 2026-12-04T16:00:00+01:00 (2026-12-04T15:00:00Z)")
    expect(fired).to_have_attribute("data-fired", "escalate")
    expect(page.locator("[data-testid=pin].fired")).to_have_count(2)
    assert page.eval_on_selector_all("[data-testid=pin].fired", "ps => ps.map(p => p.dataset.deadline)") == [
        "remind", "escalate"]
    page.screenshot(path=tmp_path / "playground.png", full_page=True)
    assert (tmp_path / "playground.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    page.get_by_test_id("reset").click()
    expect(now).to_have_text("2026-11-27T16:00:00+01:00 (entry)")
    expect(fired).to_have_text("")
    expect(page.locator("[data-testid=pin].fired")).to_have_count(0)


def test_errors_are_shown_next_to_the_field_they_name(page):
    enter_zagreb(page)
    duration = page.get_by_test_id("deadline-row").nth(1).get_by_test_id("deadline-duration")
    holiday = page.get_by_test_id("holiday-row").first.get_by_test_id("holiday-date")
    shown_errors = page.locator(".field-error:not([hidden])")
    duration.fill("3xy")
    page.get_by_test_id("compute").click()
    expect(page.get_by_test_id("deadline-row").nth(1).get_by_test_id("deadline-duration-error")).to_have_text(
        "unknown unit 'xy' at position 2 of '3xy' (use ms, s, m, h, d, w, bd, bh or bm)")
    expect(duration).to_have_attribute("aria-invalid", "true")
    expect(shown_errors).to_have_count(1)
    expect(page.get_by_test_id("form-error")).to_be_hidden()
    expect(page.get_by_test_id("pin")).to_have_count(0)

    duration.fill("5bd")
    holiday.fill("2026-13-25")
    page.get_by_test_id("compute").click()
    expect(page.get_by_test_id("holiday-row").first.get_by_test_id("holiday-date-error")).to_have_text(
        "'2026-13-25' is not a real calendar date")
    expect(holiday).to_have_attribute("aria-invalid", "true")
    expect(shown_errors).to_have_count(1)
    expect(duration).not_to_have_attribute("aria-invalid", "true")

    # an entry the page cannot read is said next to it, before anything is sent
    holiday.fill("2026-12-25")
    page.get_by_test_id("entry").fill("next friday")
    page.get_by_test_id("compute").click()
    expect(page.get_by_test_id("entry-error")).to_have_text(
        "'next friday' is not a date-time: write 2026-11-27T16:00 (local time in the calendar's "
        "zone) or 2026-11-27T16:00:00+01:00")
    expect(shown_errors).to_have_count(1)

    page.get_by_test_id("entry").fill("2026-11-27T16:00+01:00")
    compute(page)
    expect(shown_errors).to_have_count(0)
    expect(page.locator("[aria-invalid=true]")).to_have_count(0)
    expect(page.get_by_test_id("pin")).to_have_count(3)


def test_sla_panel_replays_the_support_contract(page):
    page.get_by_test_id("sla-replay").click()
    rows = page.get_by_test_id("sla-row")
    expect(rows).to_have_count(6)
    cells = ["sla-event-name", "sla-action", "sla-tier", "sla-status", "sla-old-deadline",
             "sla-new-deadline", "sla-remaining"]
    assert [tuple(row.get_by_test_id(c).text_content() for c in cells) for row in rows.all()] == [
        ("start", "START", "standard", "RUNNING", "", "2026-12-25T10:00:00+01:00", ""),
        ("customer_reply", "RESET", "standard", "RUNNING",
         "2026-12-25T10:00:00+01:00", "2026-12-28T10:00:00+01:00", ""),
        ("tier_change", "RETARGET", "priority", "RUNNING",
         "2026-12-28T10:00:00+01:00", "2026-12-28T15:00:00+01:00", ""),
        ("awaiting_third_party", "PAUSE", "priority", "PAUSED",
         "2026-12-28T15:00:00+01:00", "", "40h of business time left"),
        ("customer_reply", "RESUME", "priority", "RUNNING", "", "2026-12-29T12:00:00+01:00", ""),
        ("resolved", "STOP", "priority", "STOPPED", "2026-12-29T12:00:00+01:00", "", ""),
    ]
    expect(rows.nth(3).get_by_test_id("sla-reason")).to_have_text(
        "awaiting_third_party: clock paused with 40h left in its measure; deadline cleared")
    expect(page.get_by_test_id("sla-verdict")).to_contain_text("Clock STOPPED, SLA met. Tier priority, record ")

    # an event the clock refuses is said next to that event (out of time
    # order: next to its time, test_an_sla_event_out_of_order_is_said_at_its_time)
    event = page.get_by_test_id("sla-event").nth(3)
    event.get_by_test_id("sla-event-type").select_option("customer_reply")
    event.get_by_test_id("sla-event-time").fill("2026-12-16T10:00:00+01:00")
    page.get_by_test_id("sla-replay").click()
    expect(event.get_by_test_id("sla-event-time-error")).to_have_text(
        "customer_reply (RESET): the event is earlier than the one before it; "
        "events must come in time order")
    expect(page.get_by_test_id("sla-row")).to_have_count(0)


def described_by(page, locator) -> list[str]:
    """The data-testid of each element an input's aria-describedby names."""
    ids = (locator.get_attribute("aria-describedby") or "").split()
    return [page.locator(f"#{i}").get_attribute("data-testid") for i in ids]


def test_an_sla_event_out_of_order_is_said_at_its_time(page):
    """The service refuses an event earlier than the one before it with a
    PreconditionFailure (type CLOCK_STATE) on that event's time
    ("events[3].time"); the page shows it at the time input. A second "start"
    (a PreconditionFailure on "events[3].type") shows at the type input."""
    event = page.get_by_test_id("sla-event").nth(3)
    event_type, time = event.get_by_test_id("sla-event-type"), event.get_by_test_id("sla-event-time")
    shown_errors = page.locator("[data-testid=sla] .field-error:not([hidden])")
    time.fill("2026-12-16T10:00:00+01:00")  # awaiting_third_party, before tier_change (12-17)
    with page.expect_response("**/v1/sla:evaluate") as answered:
        page.get_by_test_id("sla-replay").click()
    refused = answered.value.json()["error"]
    assert refused["status"] == "FAILED_PRECONDITION"
    assert refused["details"][0] == {
        "@type": "type.googleapis.com/google.rpc.PreconditionFailure",
        "violations": [{
            "type": "CLOCK_STATE", "subject": "events[3].time",
            "description": "awaiting_third_party (PAUSE): the event is earlier than the one "
                           "before it; events must come in time order"}]}
    said = event.get_by_test_id("sla-event-time-error")
    expect(said).to_have_text("awaiting_third_party (PAUSE): the event is earlier than the one "
                              "before it; events must come in time order")
    expect(shown_errors).to_have_count(1)
    assert described_by(page, time) == ["sla-event-time-error"]
    assert said.get_attribute("role") == "alert"
    expect(time).to_have_attribute("aria-invalid", "true")
    expect(event_type).not_to_have_attribute("aria-invalid", "true")
    expect(event.get_by_test_id("sla-event-type-error")).to_be_hidden()
    expect(page.get_by_test_id("sla-error")).to_be_hidden()

    time.fill("2026-12-18T10:00:00+01:00")
    event_type.select_option("start")
    page.get_by_test_id("sla-replay").click()
    expect(event.get_by_test_id("sla-event-type-error")).to_have_text(
        "a history has one 'start' event, its first; to start a new cycle use an event of the "
        "policy (known: awaiting_third_party, customer_reply, resolved, tier_change)")
    expect(shown_errors).to_have_count(1)
    expect(time).not_to_have_attribute("aria-invalid", "true")

    event_type.select_option("awaiting_third_party")
    page.get_by_test_id("sla-replay").click()
    expect(page.get_by_test_id("sla-row")).to_have_count(6)
    expect(shown_errors).to_have_count(0)


def test_the_sla_track_labels_its_axis_in_local_dates(page):
    """Between the two ends the track's axis has a tick at every Monday's
    local midnight (the finest step giving at most 6 ticks whose labels fit),
    each placed where that instant falls and none overlapping another."""
    page.get_by_test_id("sla-replay").click()
    expect(page.get_by_test_id("sla-row")).to_have_count(6)
    ends = page.locator(".sla-track .axis-labels .lane-axis span")
    expect(ends).to_have_text(["2026-12-11T10:00:00+01:00", "2026-12-29T12:00:00+01:00"])
    ticks = page.get_by_test_id("sla-tick")
    expect(ticks).to_have_text(["2026-12-14", "2026-12-21", "2026-12-28"])

    lo = datetime.fromisoformat("2026-12-11T10:00:00+01:00")
    hi = datetime.fromisoformat("2026-12-29T12:00:00+01:00")
    mondays = [datetime(2026, 12, d, tzinfo=ZAGREB) for d in (14, 21, 28)]
    assert [t.get_attribute("style") for t in ticks.all()] == [
        f"left: {(m - lo) / (hi - lo) * 100:.3f}%;" for m in mondays]
    assert [f"{(m - lo) / (hi - lo) * 100:.3f}" for m in mondays] == ["14.286", "52.995", "91.705"]

    def boxes():
        axis = page.get_by_test_id("sla-ticks").bounding_box()
        found = [t.bounding_box() for t in ticks.all()]
        for box in found:
            assert axis["x"] <= box["x"] and box["x"] + box["width"] <= axis["x"] + axis["width"]
        for left, right in itertools.pairwise(found):
            assert left["x"] + left["width"] < right["x"]
        return found

    assert len(boxes()) == 3
    # narrower: a label that would stick out of the axis is left out
    page.set_viewport_size({"width": 700, "height": 900})
    expect(ticks).to_have_text(["2026-12-14", "2026-12-21"])
    assert len(boxes()) == 2


def overlap(a: dict, b: dict) -> bool:
    """Whether two bounding boxes share any area."""
    return (a["x"] < b["x"] + b["width"] and b["x"] < a["x"] + a["width"]
            and a["y"] < b["y"] + b["height"] and b["y"] < a["y"] + a["height"])


def inside(box: dict, outer: dict, slack: float = 0.01) -> bool:
    """Whether a bounding box lies within another (to a hundredth of a pixel)."""
    return (outer["x"] - slack <= box["x"]
            and box["x"] + box["width"] <= outer["x"] + outer["width"] + slack
            and outer["y"] - slack <= box["y"]
            and box["y"] + box["height"] <= outer["y"] + outer["height"] + slack)


def replay_sla_track(page, width: int) -> dict:
    """The support-contract scenario replayed on a fresh load at a viewport
    `width` px wide; once the track's axis has been laid out (its end labels
    and ticks are placed by a ResizeObserver, which runs before the next
    frame is painted), the bounding boxes of its end labels' axis, its tick
    axis, the end labels and the ticks, with the end labels' texts and titles."""
    page.set_viewport_size({"width": width, "height": 900})
    page.reload()
    expect(page.locator("body")).to_have_attribute("data-ready", "true")
    page.get_by_test_id("sla-replay").click()
    expect(page.get_by_test_id("sla-row")).to_have_count(6)
    page.evaluate("() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")
    ends, ticks = page.get_by_test_id("sla-end"), page.get_by_test_id("sla-tick")
    return {
        "axis": page.get_by_test_id("sla-ends").bounding_box(),
        "tick_axis": page.get_by_test_id("sla-ticks").bounding_box(),
        "ends": [e.bounding_box() for e in ends.all()],
        "ticks": [t.bounding_box() for t in ticks.all()],
        "texts": ends.all_text_contents(),
        "titles": [e.get_attribute("title") for e in ends.all()],
    }


def assert_axis_labels_apart(width: int, found: dict) -> None:
    """The two end labels overlap neither each other nor any tick label and
    stay within their axis (as wide as the tick axis, where each tick stays);
    no two tick labels overlap; at least one tick shows."""
    axis, tick_axis, ends, ticks = found["axis"], found["tick_axis"], found["ends"], found["ticks"]
    assert len(ends) == 2, width
    assert (axis["x"], axis["width"]) == (tick_axis["x"], tick_axis["width"]), width
    assert axis["width"] > 0, width
    assert not overlap(*ends), (width, ends)
    assert all(inside(end, axis) for end in ends), (width, axis, ends)
    assert ticks, width
    assert all(inside(tick, tick_axis) for tick in ticks), (width, tick_axis, ticks)
    assert not any(overlap(tick, end) for tick in ticks for end in ends), (width, ticks, ends)
    assert not any(overlap(a, b) for a, b in itertools.combinations(ticks, 2)), (width, ticks)


def test_the_sla_track_end_labels_fit_narrow_windows(page):
    """At any viewport width from 320 px up, the SLA track's two end labels
    (the first and last instants' local timestamps) overlap neither each other
    nor a tick label and stay within the axis: full on one line when both fit
    (1280 px), else on two lines, the start's above the end's (320 px; on a
    track narrower than 36rem each lane's label also goes above its axis,
    which then takes the track's whole width). Each label's title is its
    full timestamp."""
    full = ["2026-12-11T10:00:00+01:00", "2026-12-29T12:00:00+01:00"]
    seen = {}
    for width in (320, 400, 500, 700, 1280):
        seen[width] = replay_sla_track(page, width)
        assert_axis_labels_apart(width, seen[width])
        assert seen[width]["titles"] == full, width
    assert seen[1280]["texts"] == full
    start, end = seen[1280]["ends"]
    assert start["y"] == end["y"]  # one line
    assert seen[320]["texts"] == full
    start, end = seen[320]["ends"]
    assert start["y"] + start["height"] <= end["y"]  # two lines
    assert start["x"] == seen[320]["axis"]["x"]
    assert end["x"] + end["width"] == pytest.approx(seen[320]["axis"]["x"] + seen[320]["axis"]["width"])

    # When even one full label is wider than the axis (here: a 24px root
    # font at 320 px), the labels say the local date and wall time alone.
    page.add_init_script("""document.addEventListener("DOMContentLoaded", () =>
        document.documentElement.style.fontSize = "24px")""")
    found = replay_sla_track(page, 320)
    assert_axis_labels_apart(320, found)
    assert found["texts"] == ["2026-12-11 10:00", "2026-12-29 12:00"]
    assert found["titles"] == full


def test_the_sla_track_ticks_by_step(page):
    """ticksOf: local wall hours within a day, local midnights, Mondays, and
    first days of months, in the calendar's zone (DST changes included)."""
    found = page.evaluate("""async () => {
        const sla = await import("./sla.js");
        const time = await import("./time.js");
        const us = (text) => time.parseTimestamp(text);
        const ticks = (unit, n, lo, hi, zone) => {
            const step = { unit, n, every: { hour: 3600e6, day: 86400e6, week: 7 * 86400e6,
                                             month: 30.44 * 86400e6 }[unit] * n };
            const found = sla.ticksOf(step, us(lo), us(hi), zone);
            return found && found.map((t) => [t.text, time.formatLocal(t.us, zone)]);
        };
        return [
            ticks("hour", 6, "2026-03-28T20:00:00Z", "2026-03-29T20:00:00Z", "Europe/Zagreb"),
            ticks("day", 1, "2026-10-23T12:00:00Z", "2026-10-27T12:00:00Z", "Europe/Zagreb"),
            ticks("day", 1, "2026-10-01T12:00:00Z", "2026-10-27T12:00:00Z", "Europe/Zagreb"),
            ticks("week", 1, "2026-12-11T09:00:00Z", "2026-12-29T11:00:00Z", "America/New_York"),
            ticks("month", 3, "2026-01-15T00:00:00Z", "2027-01-15T00:00:00Z", "Asia/Kolkata"),
            ticks("day", 1, "2026-09-04T12:00:00Z", "2026-09-08T12:00:00Z", "America/Santiago"),
        ];
    }""")
    assert found == [
        [["2026-03-29", "2026-03-29T00:00:00+01:00"],  # a midnight says its date
         ["06:00", "2026-03-29T06:00:00+02:00"], ["12:00", "2026-03-29T12:00:00+02:00"],
         ["18:00", "2026-03-29T18:00:00+02:00"]],
        [["2026-10-24", "2026-10-24T00:00:00+02:00"], ["2026-10-25", "2026-10-25T00:00:00+02:00"],
         ["2026-10-26", "2026-10-26T00:00:00+01:00"], ["2026-10-27", "2026-10-27T00:00:00+01:00"]],
        None,  # 26 days a day apart: more than 6 ticks
        [["2026-12-14", "2026-12-14T00:00:00-05:00"], ["2026-12-21", "2026-12-21T00:00:00-05:00"],
         ["2026-12-28", "2026-12-28T00:00:00-05:00"]],
        [["2026-04-01", "2026-04-01T00:00:00+05:30"], ["2026-07-01", "2026-07-01T00:00:00+05:30"],
         ["2026-10-01", "2026-10-01T00:00:00+05:30"], ["2027-01-01", "2027-01-01T00:00:00+05:30"]],
        # a DST gap skips the midnight of 6 September: that date starts at 01:00
        [["2026-09-05", "2026-09-05T00:00:00-04:00"], ["2026-09-06", "2026-09-06T01:00:00-03:00"],
         ["2026-09-07", "2026-09-07T00:00:00-03:00"], ["2026-09-08", "2026-09-08T00:00:00-03:00"]],
    ]


def test_switching_to_a_bundle_puts_the_inline_holidays_aside(page):
    """The Zagreb example's holidays belong to its inline calendar: a bundle
    starts with no extra holidays and is sent alone (no holidays, zone,
    weekend or hours); back on inline, the example's holidays are there
    again, and a bundle's extra holidays wait for the bundle."""
    sent: list[tuple[str, dict]] = []
    page.on("request", lambda r: sent.append((r.url.split("/v1/")[1], json.loads(r.post_data)))
            if r.method == "POST" and "/v1/" in r.url else None)
    holidays, label = page.get_by_test_id("holiday-row"), page.locator("[data-part-label=holidays]")
    with page.expect_response("**/v1/holidays:list"):
        page.get_by_test_id("load-example").click()
    expect(page.get_by_test_id("versions")).to_contain_text("calendar cal-")
    inline = {"timeZone": "Europe/Zagreb",
              "weekend": {"days": ["WEEKDAY_SATURDAY", "WEEKDAY_SUNDAY"]},
              "workingHours": {"days": [{"weekday": f"WEEKDAY_{day}", "intervals": [{"start": "09:00", "end": "17:00"}]}
                                        for day in ("MONDAY", "TUESDAY", "WEDNESDAY", "THURSDAY", "FRIDAY")]},
              "holidays": [{"date": d, "name": n} for d, n in HOLIDAYS]}
    assert [(path, body["calendar"]) for path, body in sent] == [
        ("schedules:compute", inline), ("holidays:list", inline)]

    page.get_by_test_id("source-bundle").check()
    page.get_by_test_id("bundle").select_option("hr-zagreb")
    expect(label).to_have_text("Extra holidays (added to the bundle's)")
    expect(holidays).to_have_count(0)
    sent.clear()
    with page.expect_response("**/v1/holidays:list"):
        page.get_by_test_id("compute").click()
    version = (CALENDARS / "compiled" / "hr-zagreb" / "versions.txt").read_text().split()[-1]
    expect(page.get_by_test_id("versions")).to_contain_text(f"calendar hr-zagreb@{version}, rules ")
    assert [(path, body["calendar"]) for path, body in sent] == [
        ("schedules:compute", {"bundle": "hr-zagreb"}), ("holidays:list", {"bundle": "hr-zagreb"})]
    expect(page.locator("[data-testid=due-row][data-deadline=expire] [data-testid=due-local]")
           ).to_have_text("2026-12-27T16:00:00+01:00")
    expect(page.locator("[data-testid=day][data-date='2026-12-25'] [data-testid=day-label]")
           ).to_have_text("Holiday: Christmas Day")  # the bundle's own

    page.get_by_test_id("add-holiday").click()
    holidays.last.get_by_test_id("holiday-date").fill("2026-12-24")
    holidays.last.get_by_test_id("holiday-name").fill("Christmas Eve")

    page.get_by_test_id("source-inline").check()
    expect(label).to_have_text("Holidays")
    expect(holidays).to_have_count(2)
    assert [(row.get_by_test_id("holiday-date").input_value(), row.get_by_test_id("holiday-name").input_value())
            for row in holidays.all()] == HOLIDAYS
    sent.clear()
    with page.expect_response("**/v1/holidays:list"):
        page.get_by_test_id("compute").click()
    expect(page.get_by_test_id("versions")).to_contain_text("calendar cal-")
    assert [(path, body["calendar"]) for path, body in sent] == [
        ("schedules:compute", inline), ("holidays:list", inline)]

    page.get_by_test_id("source-bundle").check()
    expect(holidays).to_have_count(1)
    expect(holidays.get_by_test_id("holiday-date")).to_have_value("2026-12-24")


def test_bundle_with_a_dst_change_and_a_local_entry(page, server):
    page.get_by_test_id("source-bundle").check()
    page.get_by_test_id("bundle").select_option("hr-zagreb")
    expect(page.get_by_test_id("bundle-info")).to_contain_text("Europe/Zagreb; holidays 2020–2035")
    page.get_by_test_id("entry").fill("2026-03-26T16:00")  # local time in the bundle's zone
    expect(page.get_by_test_id("entry-resolved")).to_have_text(
        "= 2026-03-26T16:00:00+01:00 in Europe/Zagreb = 2026-03-26T15:00:00Z")
    compute(page)

    version = (CALENDARS / "compiled" / "hr-zagreb" / "versions.txt").read_text().split()[-1]
    compiled = json.loads((CALENDARS / "compiled" / "hr-zagreb" / f"{version}.json").read_text())
    holidays = {h["date"]: h["name"] for h in compiled["calendar"]["holidays"]}
    cal = O.OCal.from_text("Europe/Zagreb", [6, 7], list(holidays.items()),
                           [(w, [("09:00", "17:00")]) for w in range(1, 6)])
    expected = [(name, *oracle_due(cal, "2026-03-26T16:00:00+01:00", duration))
                for name, duration in DEADLINES]
    assert expected == [  # as `duetime schedule … --calendar hr-zagreb` answers
        ("remind", "2026-03-30T16:00:00+02:00", "2026-03-30T14:00:00Z"),
        ("escalate", "2026-04-02T16:00:00+02:00", "2026-04-02T14:00:00Z"),
        ("expire", "2026-04-25T17:00:00+02:00", "2026-04-25T15:00:00Z"),  # 720 real hours
    ]
    assert pins(page) == [(name, due_local[:10], due_local, due_utc)
                          for name, due_local, due_utc in expected]
    in_range = {d: n for d, n in holidays.items() if "2026-03-23" <= d <= "2026-04-26"}
    assert in_range == {"2026-04-05": "Easter Sunday", "2026-04-06": "Easter Monday"}
    assert day_rows(page) == expected_days(
        "2026-03-23", "2026-04-26", in_range,
        dst={"2026-03-29": "Clocks 02:00 → 03:00: UTC offset now +02:00"})
    expect(page.get_by_test_id("dst")).to_have_attribute("data-offset", "+02:00")
    expect(page.get_by_test_id("versions")).to_contain_text(f"calendar hr-zagreb@{version}, rules ")


def test_a_late_answer_for_a_bundle_no_longer_selected_is_not_shown(page):
    first = page.get_by_test_id("bundle").locator("option").first.get_attribute("value")
    assert first != "hr-zagreb"
    held = []
    # the first bundle's GetCalendar answer is held back until hr-zagreb's was shown
    page.route(f"**/v1/calendars/{first}", lambda route: held.append(route))
    page.get_by_test_id("source-bundle").check()  # asks for the first bundle
    page.get_by_test_id("bundle").select_option("hr-zagreb")
    info = page.get_by_test_id("bundle-info")
    expect(info).to_contain_text("Europe/Zagreb; holidays 2020–2035")
    assert len(held) == 1
    with page.expect_response(f"**/v1/calendars/{first}"):
        held[0].continue_()
    page.wait_for_timeout(300)  # the page reads the held answer, which must not replace the line
    expect(info).to_contain_text("Europe/Zagreb; holidays 2020–2035")


def test_the_page_reads_wall_times_and_offset_changes_as_duetime_does(page):
    """The page's own time arithmetic (time.js, run in Chromium with its time
    zone data) agrees with the oracle: local entry times in DST gaps and folds
    (docs/semantics.md), and the dates whose UTC offset changes in 2026."""
    walls = [("Europe/Zagreb", "2026-03-29T02:30"), ("Europe/Zagreb", "2026-10-25T02:30"),
             ("Europe/Zagreb", "2026-11-27T16:00"), ("America/New_York", "2026-11-01T01:30"),
             ("Australia/Lord_Howe", "2026-10-04T02:15"), ("America/Santiago", "2026-09-06T00:00"),
             ("Pacific/Apia", "2011-12-30T10:00")]
    read = page.evaluate("""async walls => {
        const time = await import("./time.js");
        return walls.map(([zone, wall]) => time.formatLocal(time.parseDateTime(wall, zone).us, zone));
    }""", walls)
    assert read == [O.from_us(O.resolve(zone, datetime.fromisoformat(wall))).astimezone(ZoneInfo(zone)).isoformat()
                    for zone, wall in walls]
    assert read[:2] == ["2026-03-29T03:30:00+02:00", "2026-10-25T02:30:00+02:00"]  # the doc's examples

    zones = ["Europe/Zagreb", "America/New_York", "Australia/Sydney", "America/Santiago", "Asia/Kolkata"]
    changes = page.evaluate("""async zones => {
        const time = await import("./time.js");
        const found = [];
        for (const zone of zones) {
            for (let day = "2026-01-01"; day <= "2026-12-31"; day = time.addDays(day, 1)) {
                const change = time.offsetChangeOn(zone, day);
                if (change) found.push([zone, day, time.formatOffset(change.to)]);
            }
        }
        return found;
    }""", zones)

    def offset(zone: str, day: date) -> timedelta:  # at the local date's first instant
        return O.from_us(O.resolve(zone, datetime(day.year, day.month, day.day))).astimezone(
            ZoneInfo(zone)).utcoffset()

    expected = []
    for zone in zones:
        day = date(2026, 1, 1)
        while day.year == 2026:
            before, after = offset(zone, day), offset(zone, day + timedelta(days=1))
            if before != after:
                minutes = int(after.total_seconds()) // 60
                sign, (hours, minutes) = "-" if minutes < 0 else "+", divmod(abs(minutes), 60)
                expected.append([zone, day.isoformat(), f"{sign}{hours:02d}:{minutes:02d}"])
            day += timedelta(days=1)
    assert changes == expected
    assert [c for c in changes if c[0] == "Europe/Zagreb"] == [
        ["Europe/Zagreb", "2026-03-29", "+02:00"], ["Europe/Zagreb", "2026-10-25", "+01:00"]]



def test_an_api_token_is_sent_and_a_refused_one_is_said(browser, tmp_path):
    """With ``--auth-tokens`` the page sends its API token as ``Authorization:
    Bearer``, keeps it in the tab's sessionStorage only, and says next to the
    token field why a 401 came back."""
    token = "playground-token-7"
    tokens = tmp_path / "tokens"
    tokens.write_text(f"{token}\n")
    guarded = start_with_http(tmp_path / "ledger.db", "--auth-tokens", str(tokens), timeout=30)
    try:
        context = browser.new_context()
        page = context.new_page()
        sent: list[str | None] = []
        page.on("request", lambda r: sent.append(r.headers.get("authorization"))
                if "/v1/" in r.url and "/v1/policies/" not in r.url else None)
        page.goto(f"{guarded.http_url}/")
        expect(page.locator("body")).to_have_attribute("data-ready", "true")
        field, said = page.get_by_test_id("api-token"), page.get_by_test_id("api-token-error")
        assert field.get_attribute("type") == "password"
        expect(said).to_have_text("this server needs an API token")
        expect(page.get_by_test_id("bundle-info")).to_have_text(
            "The bundles could not be listed: this server needs a bearer token: send the "
            "header 'Authorization: Bearer <token>'")

        field.fill("not-the-token")
        page.get_by_test_id("compute").click()
        expect(said).to_have_text("the token was not accepted")
        expect(field).to_have_attribute("aria-invalid", "true")

        field.fill(token)
        field.blur()  # a new token lists the bundles again
        expect(page.get_by_test_id("bundle").locator("option[value=hr-zagreb]")).to_have_count(1)
        enter_zagreb(page)
        compute(page)
        expect(said).to_be_hidden()
        expect(page.locator("[data-testid=due-row][data-deadline=remind] [data-testid=due-utc]")
               ).to_have_text("2026-12-01T15:00:00Z")
        assert sent[:2] == [None, "Bearer not-the-token"]
        assert set(sent[2:]) == {f"Bearer {token}"}
        assert page.evaluate("() => sessionStorage.getItem('duetime.apiToken')") == token
        assert page.evaluate("() => localStorage.length") == 0
        assert token not in page.url

        page.reload()  # the same tab keeps it; a new one starts without
        expect(page.locator("body")).to_have_attribute("data-ready", "true")
        expect(field).to_have_value(token)
        expect(said).to_be_hidden()
        other = context.new_page()
        other.goto(f"{guarded.http_url}/")
        expect(other.locator("body")).to_have_attribute("data-ready", "true")
        expect(other.get_by_test_id("api-token")).to_have_value("")
        expect(other.get_by_test_id("api-token-error")).to_have_text(
            "this server needs an API token")
        context.close()
        assert guarded.terminate() == 0, "".join(guarded.stderr)
        assert token not in "".join(guarded.stderr)
    finally:
        guarded.kill()


def test_sla_panel_as_of_shows_what_fell_and_the_next_action(page):
    page.get_by_test_id("sla-event").nth(5).get_by_role("button").click()  # no "resolved"
    page.get_by_test_id("sla-as-of").fill("2026-12-29T11:00")
    page.get_by_test_id("sla-replay").click()
    expect(page.get_by_test_id("sla-metric")).to_have_count(1)
    expect(page.get_by_test_id("sla-metric")).to_contain_text(
        "(clock): RUNNING, due 2026-12-29T12:00:00+01:00, cycles 1")
    expect(page.get_by_test_id("sla-next-action")).to_have_text(
        "Next action at 2026-12-29T12:00:00+01:00: (clock) BREACH.")
    page.get_by_test_id("sla-as-of").fill("2026-12-30T12:00")
    page.get_by_test_id("sla-replay").click()
    expect(page.get_by_test_id("sla-metric-fell")).to_have_text(["BREACH at 2026-12-29T12:00:00+01:00"])
    expect(page.get_by_test_id("sla-next-action")).to_have_text(  # running, but its breach has fallen
        "No next action as of 2026-12-30T12:00:00+01:00: nothing more falls, every running metric has breached.")
    page.get_by_test_id("sla-as-of").fill("2026-12-01T12:00")
    page.get_by_test_id("sla-replay").click()
    expect(page.get_by_test_id("sla-as-of-error")).to_contain_text("is earlier than the last event")


# ---- a policy of metrics on the chart (docs/semantics.md §17) ------------------------

#: docs/sla.md "Worked example: the support contract", as of Wednesday 09:30.
SUPPORT_TICKET = [("start", "2026-12-01T09:00", "tier=high"), ("agent_reply", "2026-12-01T10:00", ""),
                  ("awaiting_customer", "2026-12-01T10:00", ""), ("customer_reply", "2026-12-01T14:00", "")]

SIDEWAYS = """() => {
    const found = [];
    const root = document.documentElement;
    if (root.scrollWidth > innerWidth) found.push(["document", root.scrollWidth, innerWidth]);
    for (const node of document.querySelectorAll("[data-testid=sla], [data-testid=sla-metrics-track]")) {
        if (node.scrollWidth > node.clientWidth) found.push([node.dataset.testid, node.scrollWidth, node.clientWidth]);
    }
    return found;
}"""


def evaluate_support_sla(page) -> None:
    page.get_by_test_id("sla-policy").fill("support-sla")
    page.get_by_test_id("sla-policy").blur()
    expect(page.get_by_test_id("sla")).to_have_attribute("data-policy-events", "support-sla")
    events = page.get_by_test_id("sla-event")
    while events.count() > len(SUPPORT_TICKET):
        events.last.get_by_role("button").click()
    for row, (kind, time, attributes) in zip(events.all(), SUPPORT_TICKET):
        row.get_by_test_id("sla-event-type").select_option(kind)
        row.get_by_test_id("sla-event-time").fill(time)
        row.get_by_test_id("sla-event-attributes").fill(attributes)
    page.get_by_test_id("sla-as-of").fill("2026-12-02T09:30")
    page.get_by_test_id("sla-replay").click()
    expect(page.get_by_test_id("sla-metric")).to_have_count(3)
    page.evaluate("() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")


def test_sla_panel_shows_a_paused_metric_time_left_and_the_policy_terms(page):
    expect(page.get_by_test_id("sla-preset")).to_have_text("Preset: the support-contract scenario.")
    expect(page.get_by_test_id("sla-event-attributes").first).to_have_attribute("placeholder", "tier=priority")
    page.get_by_test_id("sla-policy").fill("support-sla")
    page.get_by_test_id("sla-policy").blur()
    expect(page.get_by_test_id("sla")).to_have_attribute("data-policy-events", "support-sla")
    expect(page.get_by_test_id("sla-preset")).to_have_text(
        "Policy support-sla: its events are start, agent_reply, awaiting_customer, awaiting_third_party, "
        "customer_reply, priority_change, reopened, solved, third_party_reply; tiers high, low, normal, urgent.")
    expect(page.get_by_test_id("sla-event-attributes").first).to_have_attribute("placeholder", "tier=high")
    events = page.get_by_test_id("sla-event")
    while events.count() > 3:
        events.last.get_by_role("button").click()
    for row, (kind, time, attributes) in zip(events.all(), SUPPORT_TICKET[:3]):
        row.get_by_test_id("sla-event-type").select_option(kind)
        row.get_by_test_id("sla-event-time").fill(time)
        row.get_by_test_id("sla-event-attributes").fill(attributes)
    page.get_by_test_id("sla-as-of").fill("2026-12-01T12:00")
    page.get_by_test_id("sla-replay").click()
    expect(page.get_by_test_id("sla-metric")).to_have_text([
        "first_response: STOPPED, met, cycles 1",
        "next_reply: NOT_STARTED, cycles 0",
        "resolution: PAUSED, 15h left, cycles 1"])
    expect(page.get_by_test_id("sla-next-action")).to_have_text(
        "No next action as of 2026-12-01T12:00:00+01:00: no metric runs.")
    page.get_by_test_id("sla-policy").fill("support-contract")
    page.get_by_test_id("sla-policy").blur()
    expect(page.get_by_test_id("sla-preset")).to_have_text("Preset: the support-contract scenario.")


def test_sla_panel_draws_every_metric_its_warnings_and_the_next_action(page):
    evaluate_support_sla(page)
    expect(page.get_by_test_id("sla-metric")).to_have_text([
        "first_response: STOPPED, met, cycles 1",
        "next_reply: RUNNING, due 2026-12-02T09:00:00+01:00, cycles 1"
        "WARNING 75% at 2026-12-02T08:00:00+01:00WARNING 30bm at 2026-12-02T08:30:00+01:00"
        "BREACH at 2026-12-02T09:00:00+01:00",
        "resolution: RUNNING, due 2026-12-03T12:00:00+01:00, cycles 1"])
    expect(page.get_by_test_id("sla-next-action")).to_have_text(
        "Next action at 2026-12-03T08:00:00+01:00: resolution WARNING 75%.")
    # the chart: one lane per metric, in the policy's order
    lanes = page.get_by_test_id("sla-metric-lane")
    expect(lanes).to_have_count(3)
    assert [lane.get_attribute("data-metric") for lane in lanes.all()] == [
        "first_response", "next_reply", "resolution"]
    expect(lanes.locator(".lane-label")).to_have_text(
        ["first_response: STOPPED", "next_reply: RUNNING", "resolution: RUNNING"])
    warnings = lanes.nth(1).get_by_test_id("sla-warning-marker")
    expect(warnings).to_have_count(2)
    assert [w.get_attribute("title") for w in warnings.all()] == [
        "next_reply WARNING 75% at 2026-12-02T08:00:00+01:00",
        "next_reply WARNING 30bm at 2026-12-02T08:30:00+01:00"]
    breach = lanes.nth(1).get_by_test_id("sla-breach-marker")
    expect(breach).to_have_attribute("title", "next_reply BREACH at 2026-12-02T09:00:00+01:00")
    expect(page.get_by_test_id("sla-warning-marker")).to_have_count(2)  # nothing fell elsewhere
    nxt = page.get_by_test_id("sla-next-action-marker")
    expect(nxt).to_have_count(1)
    expect(lanes.nth(2).get_by_test_id("sla-next-action-marker")).to_have_attribute(
        "title", "next action at 2026-12-03T08:00:00+01:00: resolution WARNING 75%")
    expect(page.get_by_test_id("sla-metrics-end")).to_have_text(
        ["2026-12-01T09:00:00+01:00", "2026-12-03T12:00:00+01:00"])
    # drawn: visible, on their lane's axis, in time order
    axis = lanes.nth(1).locator(".lane-axis").bounding_box()
    xs = [m.bounding_box() for m in (*warnings.all(), breach)]
    assert all(b and b["width"] > 0 and b["height"] > 0 for b in xs)
    assert all(axis["x"] - b["width"] <= b["x"] <= axis["x"] + axis["width"] for b in xs)
    assert xs[0]["x"] < xs[1]["x"] < xs[2]["x"] < nxt.bounding_box()["x"]


def test_sla_metrics_chart_fits_320_px(page):
    page.set_viewport_size({"width": 320, "height": 900})
    page.reload()
    expect(page.locator("body")).to_have_attribute("data-ready", "true")
    evaluate_support_sla(page)
    expect(page.get_by_test_id("sla-metric-lane")).to_have_count(3)
    expect(page.get_by_test_id("sla-warning-marker")).to_have_count(2)
    expect(page.get_by_test_id("sla-next-action-marker")).to_have_count(1)
    assert page.evaluate(SIDEWAYS) == []
    track = page.get_by_test_id("sla-metrics-track").bounding_box()
    for marker in (*page.get_by_test_id("sla-warning-marker").all(),
                   page.get_by_test_id("sla-breach-marker"), page.get_by_test_id("sla-next-action-marker")):
        b = marker.bounding_box()
        assert b["width"] > 0 and track["x"] <= b["x"] and b["x"] + b["width"] <= track["x"] + track["width"]
    for end in page.get_by_test_id("sla-metrics-end").all():
        b = end.bounding_box()
        assert track["x"] <= b["x"] and b["x"] + b["width"] <= track["x"] + track["width"]
