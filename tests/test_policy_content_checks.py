"""What compiling a policy refuses, and the same checks on a compiled
version's content when it is loaded and by `duetime calendars check`
(docs/sla.md, docs/semantics.md §17)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from duetime.bundles import BundleStore
from duetime.bundles.compiler import version_of
from duetime.bundles.policy import PolicyStore, check_policies, compile_policy
from duetime.bundles.source import SourceError
from duetime.core import InvalidArgument
from duetime.core.clock import Measure
from duetime.core.sla_metrics import parse_warning

ROOT = Path(__file__).resolve().parents[1] / "calendars"


@pytest.fixture(scope="module")
def bundles():
    return BundleStore.load(ROOT)


def compile_text(tmp_path, text, bundles, name="p"):
    path = tmp_path / f"{name}.toml"
    path.write_text(text)
    return compile_policy(path, bundles)


def refusal(tmp_path, text, bundles):
    with pytest.raises(SourceError) as info:
        compile_text(tmp_path, text, bundles)
    return str(info.value).removeprefix(f"{tmp_path / 'p.toml'}: ")


@pytest.mark.parametrize("text", ["75", "75.5", " 30 ", "+2"])
def test_a_warning_without_a_unit_is_refused(text):
    with pytest.raises(InvalidArgument) as info:
        parse_warning(text, Measure.BUSINESS_TIME, "warning_thresholds[0]")
    assert info.value.violations[0].field == "warning_thresholds[0]"
    assert "has no unit: write a share of the target consumed with '%'" in info.value.violations[0].description
    assert "or an amount left with its unit (e.g. '30bm', '2h')" in info.value.violations[0].description


def test_warning_messages_say_what_is_allowed():
    with pytest.raises(InvalidArgument) as info:
        parse_warning("0.0000001%", Measure.ELAPSED, "w")
    assert info.value.violations[0].description == (
        "'0.0000001%': write a share as NN% with 0 < NN < 100 and at most 6 decimals, e.g. '75%' or '33.3333%'")
    for measure, words in [(Measure.ELAPSED, "an elapsed clock's"), (Measure.BUSINESS_DAY, "a business-day clock's"),
                           (Measure.BUSINESS_TIME, "a business-time clock's")]:
        with pytest.raises(InvalidArgument) as info:
            parse_warning("1bd", measure, "w")
        assert info.value.violations[0].description.startswith(f"'1bd': {words} warning is a share ('75%')")
    assert parse_warning("75", Measure.ELAPSED, "w", bare_ms=True).left_us == 75_000  # an older compiled version


METRIC = '[metrics.a]\n{line}\ntargets.x = {{ target = {target}, calendar = "support-desk-example" }}\n'


def test_a_policy_refuses_numbers_without_a_unit(tmp_path, bundles):
    assert refusal(tmp_path, METRIC.format(line="warnings = [75]", target='"8bh"'), bundles) == (
        "metrics.a.warnings[0]: '75' has no unit: write a share of the target consumed with '%' (e.g. '75%') "
        "or an amount left with its unit (e.g. '30bm', '2h')")
    assert refusal(tmp_path, METRIC.format(line="", target="8"), bundles) == (
        'metrics.a.targets.x: target 8 has no unit: write it with one, e.g. "8bh", "3bd" or "48h"')
    assert refusal(tmp_path, METRIC.format(line="", target='"8"'), bundles) == (
        'metrics.a.targets.x: target \'8\' has no unit: write it with one, e.g. "8bh", "3bd" or "48h"')
    one_clock = '[tiers.t]\ntarget = 14\ncalendar = "support-desk-example"\n'
    assert refusal(tmp_path, one_clock, bundles) == (
        'tiers.t: target 14 has no unit: write it with one, e.g. "8bh", "3bd" or "48h"')
    content, _ = compile_text(tmp_path, METRIC.format(line='warnings = ["75%", "30bm"]', target='"8bh"'), bundles)
    assert content["metrics"][0]["warnings"] == ["75%", "30bm"]


def test_a_metric_name_is_letters_digits_and_underscores(tmp_path, bundles):
    assert refusal(tmp_path, METRIC.format(line="", target='"8bh"').replace("metrics.a", "metrics.a-b"),
                   bundles) == "metrics.a-b: a metric is a table named with lower-case letters, digits and '_'"


def test_a_bad_warning_is_named_once(tmp_path, bundles):
    message = refusal(tmp_path, METRIC.format(line='warnings = ["75%", "1bd"]', target='"8bh"'), bundles)
    assert message.startswith("metrics.a.warnings[1]: '1bd': a business-time clock's warning is a share")
    assert "warnings: warnings" not in message


def _crafted(tmp_path, edit):
    """A copy of calendars/ with one compiled version of support-sla edited by
    ``edit`` and hashed again (the hash is right; the content is not)."""
    root = tmp_path / "calendars"
    shutil.copytree(ROOT, root)
    folder = root / "policies" / "compiled" / "support-sla"
    base = json.loads(next(folder.glob("*.json")).read_text())
    edit(base)
    base["name"] = "crafted"
    out = root / "policies" / "compiled" / "crafted"
    out.mkdir()
    version = version_of(base)
    (out / f"{version}.json").write_text(json.dumps(base, sort_keys=True, indent=1) + "\n")
    (out / "versions.txt").write_text(version + "\n")
    return root, f"policies/compiled/crafted/{version}.json"


@pytest.mark.parametrize("edit, problem", [
    (lambda c: c["metrics"][0]["events"]["agent_reply"].update(RUNNING="EXPLODE"),
     "metrics.first_response.events.agent_reply: RUNNING allows PAUSE or RESET or RETARGET or STOP, not 'EXPLODE'"),
    (lambda c: c["metrics"][0]["events"]["priority_change"].update(anchor="MIDDLE"),
     "metrics.first_response.events.priority_change: anchor is EVENT or START"),
    (lambda c: c["metrics"][2].pop("targets"), "metrics.resolution: has no targets"),
    (lambda c: c.update(metrics=7), "metrics: a list of tables with a name each"),
    (lambda c: c["metrics"][1].update(warnings=["1bd"]),
     "metrics.next_reply.warnings[0]: '1bd': a business-time clock's warning is a share ('75%') or an amount "
     "left in business time (bh, bm)"),
])
def test_a_compiled_version_is_checked_when_loaded_and_by_check(tmp_path, edit, problem):
    root, where = _crafted(tmp_path, edit)
    with pytest.raises(ValueError) as info:
        PolicyStore.load(root / "policies", BundleStore.load(root))
    assert str(info.value) == f"{root / where}: {problem}"
    problems = check_policies(root / "policies", BundleStore.load(root))
    assert [(p.where, p.problem) for p in problems] == [(where, problem)]
