"""The playground's timeline follows week periods (docs/semantics.md §16): a
bundle whose newest version adds a week from 2027-03-01 with Monday off and
Tuesday–Friday 08:00–17:00 is shaded with the calendar's own week before that
date and with the period's from it. Headless Chromium as in
tests/test_playground.py, against a server of its own calendars directory."""

from __future__ import annotations

import json
from datetime import date, timedelta

import pytest
from duetime.bundles import compile_all
from playwright.sync_api import expect
from server_process import ServerProcess, free_port
from test_playground import WAIT_MS, browser, compute, day_rows  # noqa: F401 - the "browser" fixture

expect.set_options(timeout=WAIT_MS)

BUNDLE = ('description = "ACME Zagreb"\ntime_zone = "Europe/Zagreb"\nyears = [2026, 2028]\n'
          '[holidays]\ncountry = "HR"\nlanguage = "en_US"\n')
PERIOD = ('[[week_periods]]\nfrom = "2027-03-01"\nweekend = ["mon", "sat", "sun"]\n'
          '[week_periods.working_hours]\n"tue-fri" = ["08:00-17:00"]\n')


@pytest.fixture(scope="module")
def calendars(tmp_path_factory):
    """A calendars directory with bundle acme: a first version without week
    periods, the newest with the period from 2027-03-01."""
    src = tmp_path_factory.mktemp("weeks") / "calendars"
    src.mkdir()
    (src / "acme.toml").write_text(BUNDLE)
    compile_all(src)
    (src / "acme.toml").write_text(BUNDLE + PERIOD)
    (newest,) = compile_all(src)
    return src, newest.version


@pytest.fixture(scope="module")
def server(calendars, tmp_path_factory):
    port = free_port()
    running = ServerProcess(tmp_path_factory.mktemp("weeks-ledger") / "ledger.db", calendars[0],
                            "--http-port", str(port))
    try:
        running.await_log(r"HTTP/JSON listening", timeout=30)
        running.url = f"http://127.0.0.1:{port}/"
        yield running
        assert running.terminate() == 0, "".join(running.stderr)
    finally:
        running.kill()


def test_the_timeline_shades_each_date_with_the_week_in_force(browser, server, calendars):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    script_errors: list[str] = []
    page.on("pageerror", lambda error: script_errors.append(str(error)))
    page.goto(server.url)
    expect(page.locator("body")).to_have_attribute("data-ready", "true")

    page.get_by_test_id("source-bundle").check()
    page.get_by_test_id("bundle").select_option("acme")
    expect(page.get_by_test_id("bundle-info")).to_contain_text("Europe/Zagreb")
    page.get_by_test_id("entry").fill("2027-02-24T10:00")  # a Wednesday, local time in the bundle's zone
    compute(page)

    # the default deadlines 2bd, 5bd and 30d: Monday 2027-03-01 is a weekend day of the period
    assert [tuple(p) for p in page.eval_on_selector_all(
        "[data-testid=pin]", "ps => ps.map(p => [p.dataset.deadline, "
        "p.querySelector('[data-testid=pin-local]').textContent])")] == [
        ("remind", "2027-02-26T10:00:00+01:00"), ("escalate", "2027-03-04T10:00:00+01:00"),
        ("expire", "2027-03-26T10:00:00+01:00")]

    src, version = calendars
    compiled = json.loads((src / "compiled" / "acme" / f"{version}.json").read_text())
    holidays = {h["date"]: h["name"] for h in compiled["calendar"]["holidays"]}
    assert {d: n for d, n in holidays.items() if "2027-02-22" <= d <= "2027-03-28"} == {
        "2027-03-28": "Easter Sunday"}
    expected, day = [], date(2027, 2, 22)
    while day <= date(2027, 3, 28):
        text = day.isoformat()
        in_period = text >= "2027-03-01"
        weekend = (1, 6, 7) if in_period else (6, 7)
        if text in holidays:
            row = (text, "holiday", [f"Holiday: {holidays[text]}"], "")
        elif day.isoweekday() in weekend:
            row = (text, "weekend", ["Weekend"], "")
        else:
            row = (text, "hours", [], "08:00–17:00" if in_period else "09:00–17:00")
        if text == "2027-03-28":
            row = (*row[:2], row[2] + ["Clocks 02:00 → 03:00: UTC offset now +02:00"], row[3])
        expected.append(row)
        day += timedelta(days=1)
    assert day_rows(page) == expected
    assert [r for r in expected if r[0] in ("2027-02-26", "2027-03-01", "2027-03-02")] == [
        ("2027-02-26", "hours", [], "09:00–17:00"), ("2027-03-01", "weekend", ["Weekend"], ""),
        ("2027-03-02", "hours", [], "08:00–17:00")]
    # the shaded spans themselves, in percent of the day
    assert page.eval_on_selector_all(
        "[data-testid=day][data-date='2027-02-26'] .bar span.open, "
        "[data-testid=day][data-date='2027-03-02'] .bar span.open",
        "spans => spans.map(s => [s.style.left, s.style.width])") == [
        ["37.5%", "33.3333%"], ["33.3333%", "37.5%"]]
    expect(page.get_by_test_id("week-period")).to_have_count(1)
    expect(page.locator("[data-testid=day][data-date='2027-03-01'] [data-testid=week-period]")).to_have_text(
        "From 2027-03-01: weekend Monday, Saturday, Sunday; Tuesday–Friday 08:00–17:00")
    context.close()
    assert script_errors == []
