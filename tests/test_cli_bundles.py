"""The calendar-bundle command line: ``duetime calendars compile|check|diff|list`` and
``--calendar NAME[@VERSION]`` on the computing commands, locally (in-process,
on copies of ``calendars/``) and, once, the installed command against a real
server."""

from __future__ import annotations

import json

import pytest
from duetime.catalog import ENV_DIR
from server_process import CALENDARS, server_fixture  # noqa: F401 - the "server" fixture
from test_cli import duetime
from test_cli_queries import run
from test_e2e_bundles import COMPANY_DAY, NEW_DUE, OLD_DUE, V1, copy_calendars

SHIPPED = {
    "ae-dubai": "dce05903b874", "always-open": "eea4aa4a1542", "au-nsw": "9f7069933424",
    "de-berlin": "04a67a2b762b", "gb-england": "6a76a3d0d235", "hr-zagreb": V1,
    "il-jerusalem": "fb0aa20c73f7", "in-central-gov": "b9ccfd752111",
    "in-india": "434530facd51", "jp-tokyo": "fd058928265a",
    "support-desk-example": "259c33f17398", "us-federal-gov": "9d956d45b0cb",
    "us-new-york": "66e1a40b4aa0", "us-ny-state-gov": "10dc19ab29ba",
}
POLICY = "support-contract@8b65ed13fadb"
POLICIES = (POLICY, "support-sla@fc8edd68c67b")
HR_ROW = ("hr-zagreb             2020–2035  Europe/Zagreb     {newest}  {count}         "
          "Croatia: public holidays, Monday–Friday 09:00–17:00, Europe/Zagreb")


@pytest.fixture
def calendars(tmp_path):
    return copy_calendars(tmp_path / "calendars")


def edit_source(root) -> None:
    source = root / "hr-zagreb.toml"
    source.write_text(source.read_text(encoding="utf-8") + COMPANY_DAY, encoding="utf-8")


def test_check_passes_on_the_shipped_tree(capsys):
    assert run(capsys, "calendars", "check", "--dir", str(CALENDARS)) == (
        0, [f"ok: every source in {CALENDARS} matches its newest compiled version"], "")


def test_check_fails_listing_a_hand_edited_compiled_file(capsys, calendars):
    compiled = calendars / "compiled" / "hr-zagreb" / f"{V1}.json"
    content = json.loads(compiled.read_text(encoding="utf-8"))
    content["calendar"]["holidays"][0]["name"] = "New Year"
    compiled.write_text(json.dumps(content, indent=1), encoding="utf-8")
    code, lines, err = run(capsys, "calendars", "check", "--dir", str(calendars))
    assert code == 1
    assert lines[0].startswith(f"problem: compiled/hr-zagreb/{V1}.json: content hashes to ")
    assert lines[0].endswith(f", not {V1}: edited by hand? compiled versions are never edited")
    assert lines[1] == "problem: policies: not checked, the bundles do not load (see above)"
    assert err == f"error: calendars check failed: 2 problem(s) in {calendars}\n"


def test_check_fails_on_a_source_changed_since_its_newest_version(capsys, calendars):
    edit_source(calendars)
    code, lines, err = run(capsys, "calendars", "check", "--dir", str(calendars))
    assert code == 1 and len(lines) == 1
    assert lines[0].startswith(f"problem: hr-zagreb.toml: the source changed since version {V1} "
                               "(would be ")
    assert lines[0].endswith("): run `duetime calendars compile` and review "
                             "`duetime calendars diff`")
    assert "1 problem(s)" in err


def test_compile_then_check_diff_and_list(capsys, calendars, monkeypatch):
    edit_source(calendars)
    code, lines, err = run(capsys, "calendars", "compile", "--dir", str(calendars))
    assert (code, err) == (0, "")
    (v2,) = [line.split()[0].split("@")[1] for line in lines if line.endswith("  new")]
    assert lines == [
        f"{name}@{v2 if name == 'hr-zagreb' else version}  "
        f"{'new' if name == 'hr-zagreb' else 'unchanged'}"
        for name, version in SHIPPED.items()
    ] + [f"policy {p}  unchanged" for p in POLICIES]
    assert run(capsys, "calendars", "check", "--dir", str(calendars))[0] == 0
    assert run(capsys, "calendars", "diff", f"hr-zagreb@{V1}", "hr-zagreb",
               "--dir", str(calendars)) == (
        0, [f"hr-zagreb@{V1} → hr-zagreb@{v2}", "  + holiday 2026-11-30 Company day"], "")
    monkeypatch.setenv(ENV_DIR, str(calendars))  # the default --dir
    code, lines, _ = run(capsys, "calendars", "list")
    assert lines[6] == HR_ROW.format(newest=v2, count=2)
    # --calendar computes locally with the bundles of --calendars (or $DUETIME_CALENDARS)
    for ref, due in ((f"hr-zagreb@{V1}", OLD_DUE), ("hr-zagreb", NEW_DUE)):
        code, lines, _ = run(capsys, "due", "2026-11-27T16:00+01:00", "1bd", "--calendar", ref)
        assert lines[0] == f"due:       {due} (Europe/Zagreb)"


def test_diff_of_an_unknown_version_names_it(capsys):
    assert run(capsys, "calendars", "diff", "hr-zagreb@000000000000", "hr-zagreb",
               "--dir", str(CALENDARS)) == (
        2, [], "error: old: bundle 'hr-zagreb' has no version '000000000000' "
               f"(versions: {V1})\n")


def test_list_the_shipped_tree(capsys):
    code, lines, _ = run(capsys, "calendars", "list", "--dir", str(CALENDARS))
    assert code == 0 and len(lines) == 1 + len(SHIPPED)
    assert lines[0].split() == ["NAME", "YEARS", "TIME", "ZONE", "NEWEST", "VERSIONS",
                                "DESCRIPTION"]
    assert lines[6] == HR_ROW.format(newest=V1, count=1)


def test_due_with_a_bundle_locally(capsys):
    code, lines, err = run(capsys, "due", "2026-11-27T16:00+01:00", "1bd", "--calendar",
                           "hr-zagreb", "--holiday", "2026-11-30=Company day",
                           "--calendars", str(CALENDARS))
    assert (code, err) == (0, "")
    assert lines[:3] == [f"due:       {NEW_DUE} (Europe/Zagreb)",
                         "due (UTC): 2026-12-01T15:00:00Z",
                         "record:    none, computed locally, not recorded"]
    assert lines[3].startswith(f"versions:  calendar hr-zagreb@{V1}+cal-dc346ba6c0ce5c29, ")


def test_inline_calendar_flags_beside_a_bundle_are_refused(capsys):
    assert run(capsys, "open", "2026-12-25T12:00+01:00", "--calendar", "hr-zagreb",
               "--tz", "Europe/Zagreb", "--extra-day", "2026-12-27") == (2, [], (
        "error: --tz: the calendar comes from bundle 'hr-zagreb'; leave --tz out "
        "(only --holiday adds to a bundle)\n"
        "error: --extra-day: the calendar comes from bundle 'hr-zagreb'; leave --extra-day out "
        "(only --holiday adds to a bundle)\n"))


def test_unknown_bundle_locally(capsys):
    code, _, err = run(capsys, "due", "2026-11-27T16:00+01:00", "1bd", "--calendar", "atlantis",
                       "--calendars", str(CALENDARS))
    assert code == 2 and err.startswith("error: calendar.bundle: no calendar bundle named "
                                        "'atlantis' (known: ae-dubai, ")


def test_installed_command_against_a_server(server, capsys):
    result = duetime("due", "2026-11-27T16:00+01:00", "3bd", "--calendar", "hr-zagreb",
                     "--server", server.address)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[:2] == ["due:       2026-12-02T16:00:00+01:00 (Europe/Zagreb)",
                         "due (UTC): 2026-12-02T15:00:00Z"]
    assert lines[3].startswith(f"versions:  calendar hr-zagreb@{V1}, rules ")
    out_of_range = duetime("due", "2035-12-30T10:00+01:00", "3bd", "--calendar", "hr-zagreb",
                           "--server", server.address)
    assert out_of_range.returncode == 2
    assert out_of_range.stderr.startswith("error: calendar.bundle: hr-zagreb covers 2020–2035 only")
    remote = run(capsys, "calendars", "list", "--server", server.address)
    assert remote == run(capsys, "calendars", "list", "--dir", str(CALENDARS))
