"""Calendar bundles: compiled content equals the holidays package, versions
are pinned forever, check catches drift and hand edits, diff speaks words."""

from __future__ import annotations

import json
import shutil
import warnings
from datetime import date
from pathlib import Path

import holidays as holidays_pkg
import pytest

from duetime.bundles import BundleStore, check, compile_all, diff_versions, load_source
from duetime.bundles.compiler import read_compiled, read_versions
from duetime.core import OutOfRange, compute_due, due_answer, format_local, parse_instant

ROOT = Path(__file__).resolve().parents[1] / "calendars"
SHIPPED = sorted(p.stem for p in ROOT.glob("*.toml"))


def at(text: str):
    return parse_instant(text, "start")


def test_the_promised_bundles_are_shipped():
    assert {
        "hr-zagreb", "us-new-york", "gb-england", "de-berlin", "il-jerusalem", "ae-dubai",
        "in-india", "jp-tokyo", "au-nsw", "always-open", "support-desk-example",
    } <= set(SHIPPED)


def test_shipped_bundles_pass_check():
    assert [str(p) for p in check(ROOT)] == []


@pytest.mark.parametrize("name", SHIPPED)
def test_compiled_holidays_equal_the_package_for_every_year(name):
    """The package's holidays for the source's country, less the dates the
    source removes, plus the dates it adds."""
    src = load_source(ROOT / f"{name}.toml")
    store = BundleStore.load(ROOT)
    bundle = store.resolve(name)
    got = {h.date: h.name for h in bundle.calendar.holidays}
    removed = {date.fromisoformat(d) for d in src.removed}
    added = {date.fromisoformat(d): n for d, n in src.added}
    if not src.country:
        assert got == added
        return
    y0, y1 = src.years
    kwargs = {"subdiv": src.subdiv, "observed": src.observed}
    if src.categories is not None:
        kwargs["categories"] = src.categories
    if src.language:
        kwargs["language"] = src.language
    for year in range(y0, y1 + 1):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            # one year either side, as compiling does (an observed day can cross the year end)
            pkg = holidays_pkg.country_holidays(src.country, years=[year - 1, year, year + 1], **kwargs)
        expected = {d: n for d, n in pkg.items() if d.year == year and d not in removed}
        expected |= {d: n for d, n in added.items() if d.year == year}
        assert {d: n for d, n in got.items() if d.year == year} == expected, year
    assert removed <= set(pkg_dates(src)), "every removed date is one of the package's"


def pkg_dates(src) -> set[date]:
    """Every date the package gives ``src``'s country in its years."""
    kwargs = {"subdiv": src.subdiv, "observed": src.observed}
    if src.categories is not None:
        kwargs["categories"] = src.categories
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        found = holidays_pkg.country_holidays(
            src.country, years=range(src.years[0] - 1, src.years[1] + 2), **kwargs)
    return {d for d in found if src.years[0] <= d.year <= src.years[1]}


def test_observed_new_year_on_december_31_of_the_year_before():
    cal = BundleStore.load(ROOT).resolve("us-new-york").calendar
    assert date(2021, 12, 31) in {h.date for h in cal.holidays}  # New Year's Day 2022 was a Saturday
    # Friday 2021-12-31 is closed, so +1bd from Thursday lands on Monday 2022-01-03
    assert format_local(compute_due(at("2021-12-30T10:00:00-05:00"), "1bd", cal), cal) == "2022-01-03T10:00:00-05:00"


def test_bundle_year_range_is_out_of_range_outside_it():
    cal = BundleStore.load(ROOT).resolve("hr-zagreb").calendar
    with pytest.raises(OutOfRange) as e:
        due_answer(at("2035-12-30T10:00:00+01:00"), "3bd", cal)
    assert "2036-01-02" in str(e.value) and "2020-01-01..2035-12-31" in str(e.value)
    with pytest.raises(OutOfRange) as e:
        due_answer(at("2020-01-02T10:00:00+01:00"), "-3bd", cal)
    assert "before" in str(e.value) and "2020-01-01..2035-12-31" in str(e.value)


def test_israel_bundle_weekend_and_holiday_names():
    cal = BundleStore.load(ROOT).resolve("il-jerusalem").calendar
    # Thursday 2026-11-26 +1bd → Sunday 2026-11-29 (Friday and Saturday are the weekend)
    assert format_local(compute_due(at("2026-11-26T10:00:00+02:00"), "1bd", cal), cal) == "2026-11-29T10:00:00+02:00"
    assert any("Yom Kippur" in h.name for h in cal.holidays)


@pytest.fixture
def workdir(tmp_path):
    src = tmp_path / "calendars"
    src.mkdir()
    (src / "acme.toml").write_text(
        'description = "ACME Zagreb"\ntime_zone = "Europe/Zagreb"\nyears = [2026, 2027]\n'
        '[holidays]\ncountry = "HR"\nlanguage = "en_US"\n'
    )
    return src


def test_a_version_stays_answerable_after_its_source_changes(workdir):
    (v1,) = compile_all(workdir)
    text = (workdir / "acme.toml").read_text() + 'add = [{ date = "2026-11-30", name = "Company day" }]\n'
    (workdir / "acme.toml").write_text(text)
    (v2,) = compile_all(workdir)
    assert v1.version != v2.version and v2.new
    assert read_versions(workdir, "acme") == [v1.version, v2.version]
    store = BundleStore.load(workdir)
    start = at("2026-11-27T16:00:00+01:00")
    pinned = store.resolve(f"acme@{v1.version}")
    newest = store.resolve("acme")
    assert newest.version == v2.version
    assert format_local(compute_due(start, "1bd", pinned.calendar), pinned.calendar) == "2026-11-30T16:00:00+01:00"
    assert format_local(compute_due(start, "1bd", newest.calendar), newest.calendar) == "2026-12-01T16:00:00+01:00"
    assert check(workdir) == []
    assert diff_versions(read_compiled(workdir, "acme", v1.version), read_compiled(workdir, "acme", v2.version)) == [
        "+ holiday 2026-11-30 Company day"
    ]


def test_compiling_again_writes_nothing_new(workdir):
    (a,) = compile_all(workdir)
    (b,) = compile_all(workdir)
    assert a.version == b.version and a.new and not b.new


def test_check_catches_a_stale_source_and_a_hand_edit(workdir):
    (v1,) = compile_all(workdir)
    (workdir / "acme.toml").write_text((workdir / "acme.toml").read_text().replace("ACME Zagreb", "ACME"))
    problems = [str(p) for p in check(workdir)]
    assert len(problems) == 1 and "the source changed since version" in problems[0]
    compile_all(workdir)
    f = workdir / "compiled" / "acme" / f"{v1.version}.json"
    content = json.loads(f.read_text())
    content["calendar"]["holidays"].pop()
    f.write_text(json.dumps(content))
    problems = [str(p) for p in check(workdir)]
    assert problems == [f"compiled/acme/{v1.version}.json: content hashes to "
                        f"{problems[0].split('hashes to ')[1].split(',')[0]}, not {v1.version}: edited by hand? "
                        "compiled versions are never edited"]
    with pytest.raises(ValueError, match="edited by hand"):
        BundleStore.load(workdir)


def test_diff_in_words_for_hours_weekend_and_overrides(workdir):
    (v1,) = compile_all(workdir)
    (workdir / "acme.toml").write_text(
        'description = "ACME Zagreb"\ntime_zone = "Europe/Zagreb"\nyears = [2026, 2027]\nweekend = ["sun"]\n'
        '[working_hours]\n"mon-fri" = ["08:00-16:00"]\nsat = ["09:00-12:00"]\n'
        '[holidays]\ncountry = "HR"\nlanguage = "en_US"\nremove = ["2026-06-22"]\n'
        '[[date_overrides]]\ndate = "2026-12-24"\nhours = ["08:00-12:00"]\nname = "Christmas Eve"\n'
    )
    (v2,) = compile_all(workdir)
    lines = diff_versions(read_compiled(workdir, "acme", v1.version), read_compiled(workdir, "acme", v2.version))
    assert lines == [
        "weekend: Saturday, Sunday → Sunday",
        "Monday hours: 09:00–17:00 → 08:00–16:00",
        "Tuesday hours: 09:00–17:00 → 08:00–16:00",
        "Wednesday hours: 09:00–17:00 → 08:00–16:00",
        "Thursday hours: 09:00–17:00 → 08:00–16:00",
        "Friday hours: 09:00–17:00 → 08:00–16:00",
        "Saturday hours: closed → 09:00–12:00",
        "- holiday 2026-06-22 Anti-Fascist Struggle Day",
        "+ override 2026-12-24: 08:00–12:00 (Christmas Eve)",
    ]


def test_unknown_bundle_and_version_name_the_field():
    store = BundleStore.load(ROOT)
    with pytest.raises(Exception) as e:
        store.resolve("atlantis")
    assert e.value.violations[0].field == "calendar_ref"
    with pytest.raises(Exception) as e:
        store.resolve("hr-zagreb@000000000000")
    assert "has no version '000000000000'" in str(e.value)


def test_copy_of_shipped_tree_checks_clean(tmp_path):
    shutil.copytree(ROOT, tmp_path / "c")
    assert check(tmp_path / "c") == []


# ---- what each shipped bundle is for (calendars/README.md) ------------------------------

US_NY_GOVERNMENT_DAYS = {
    date(2026, 11, 3): "Election Day",
    date(2027, 2, 12): "Lincoln's Birthday",
    date(2028, 2, 15): "Susan B. Anthony Day",
}


def holiday_dates(ref: str) -> dict[date, str]:
    return {h.date: h.name for h in BundleStore.load(ROOT).resolve(ref).calendar.holidays}


def test_us_new_york_is_open_on_the_days_new_york_businesses_work():
    held = holiday_dates("us-new-york")
    for day in [*US_NY_GOVERNMENT_DAYS, date(2027, 1, 18), date(2027, 2, 15), date(2027, 6, 18),
                date(2026, 10, 12), date(2026, 11, 11), date(2028, 11, 10)]:
        assert day not in held, day
    # the six nearly every employer closes, with their federal observed days
    assert [held[d] for d in (date(2026, 1, 1), date(2026, 5, 25), date(2026, 7, 3),
                              date(2026, 9, 7), date(2026, 11, 26), date(2026, 12, 25),
                              date(2027, 12, 24), date(2027, 12, 31))] == [
        "New Year's Day", "Memorial Day", "Independence Day (observed)", "Labor Day",
        "Thanksgiving Day", "Christmas Day", "Christmas Day (observed)",
        "New Year's Day (observed)"]
    assert {d.year for d in held} == set(range(2020, 2036))
    # six a year, and up to three observed days (2021: 5 July, 24 and 31 December)
    assert all(6 <= sum(d.year == year for d in held) <= 9 for year in range(2020, 2036))


def test_election_day_is_a_business_day_in_new_york_but_not_for_the_state():
    start = at("2026-11-02T10:00:00-05:00")  # Monday; Tuesday 2026-11-03 is Election Day
    store = BundleStore.load(ROOT)
    answers = {ref: format_local(compute_due(start, "1bd", store.resolve(ref).calendar),
                                 store.resolve(ref).calendar)
               for ref in ("us-new-york", "us-new-york@05d4dc64f153", "us-ny-state-gov",
                           "us-federal-gov")}
    assert answers == {
        "us-new-york": "2026-11-03T10:00:00-05:00",
        "us-new-york@05d4dc64f153": "2026-11-04T10:00:00-05:00",  # the old version still answers
        "us-ny-state-gov": "2026-11-04T10:00:00-05:00",
        "us-federal-gov": "2026-11-03T10:00:00-05:00",
    }


def test_the_government_bundles_keep_the_government_days():
    state = holiday_dates("us-ny-state-gov")
    assert {d: state[d] for d in US_NY_GOVERNMENT_DAYS} == US_NY_GOVERNMENT_DAYS
    assert state == holiday_dates("us-new-york@05d4dc64f153")  # what us-new-york was
    federal = holiday_dates("us-federal-gov")
    assert not set(US_NY_GOVERNMENT_DAYS) & set(federal)
    assert [federal[d] for d in (date(2027, 1, 18), date(2026, 10, 12), date(2028, 11, 10))] == [
        "Martin Luther King Jr. Day", "Columbus Day", "Veterans Day (observed)"]


def test_in_india_closes_the_national_holidays_and_in_central_gov_the_gazetted_list():
    business = holiday_dates("in-india")
    assert sorted((d.month, d.day, n) for d, n in business.items() if d.year == 2026) == [
        (1, 26, "Republic Day"), (8, 15, "Independence Day"), (10, 2, "Mahatma Gandhi's Jayanti")]
    assert len(business) == 3 * 16
    government = holiday_dates("in-central-gov")
    assert government == holiday_dates("in-india@a9cef0e5d764")  # what in-india was
    assert government[date(2026, 3, 4)] == "Holi" and date(2026, 3, 4) not in business


def test_every_shipped_bundle_is_described_in_the_calendars_readme():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    sections = [line[4:].strip("`") for line in text.splitlines() if line.startswith("### ")]
    assert sections == SHIPPED
