"""Compile bundle sources into locked, hashed versions; check and diff them.

A compiled version is the canonical JSON (sorted keys, UTF-8) of::

    {"format": 1, "name": ..., "description": ..., "years": [first, last],
     "calendar": <Calendar.canonical()>, "source": {"holidays_package": "0.109", ...}}

Its version id is the first 12 hex digits of SHA-256 over those bytes. Files
live at ``<dir>/compiled/<name>/<version>.json`` (pretty-printed; the hash is
over the canonical form of their content), with ``versions.txt`` listing the
versions oldest first, so "newest" never depends on file times.
"""

from __future__ import annotations

import hashlib
import json
import warnings
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import holidays as holidays_pkg

from duetime.core import Calendar, DuetimeError

from .source import BundleSource, SourceError, load_source

FORMAT = 1
VERSION_DIGITS = 12


def canonical_bytes(content: dict) -> bytes:
    return json.dumps(content, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def version_of(content: dict) -> str:
    """The version id of compiled ``content``."""
    return hashlib.sha256(canonical_bytes(content)).hexdigest()[:VERSION_DIGITS]


def resolve_holidays(src: BundleSource) -> list[tuple[str, str]]:
    """Holidays of ``src`` as explicit ``(date, name)`` pairs inside its years.

    The package is asked for one year beyond each end (docs/semantics.md §7: an observed
    New Year's Day can fall on 31 December of the year before) and only dates
    inside the range are kept; then removals, then additions.
    """
    y0, y1 = src.years
    found: dict[str, str] = {}
    if src.country:
        kwargs: dict = {"subdiv": src.subdiv, "years": range(max(1900, y0 - 1), min(2199, y1 + 1) + 1), "observed": src.observed}
        if src.categories is not None:
            kwargs["categories"] = src.categories
        try:
            probe = holidays_pkg.country_holidays(src.country, subdiv=src.subdiv)
            if src.language:
                if src.language not in probe.supported_languages:
                    raise SourceError(f"{src.name}: the holidays package has no {src.language!r} names for "
                                      f"{src.country} (it has {sorted(probe.supported_languages)})")
                kwargs["language"] = src.language
            with warnings.catch_warnings():  # "available only from …": the range is checked by the caller's years
                warnings.simplefilter("ignore")
                got = holidays_pkg.country_holidays(src.country, **kwargs)
        except (NotImplementedError, ValueError, KeyError) as e:
            raise SourceError(f"{src.name}: the holidays package refuses country={src.country!r} "
                              f"subdiv={src.subdiv!r} categories={src.categories!r}: {e}") from None
        found = {d.isoformat(): name for d, name in got.items() if y0 <= d.year <= y1}
    for d in src.removed:
        if d not in found:
            raise SourceError(f"{src.name}: remove {d}: not a holiday of the resolved list")
        del found[d]
    for d, name in src.added:
        found[d] = name
    return sorted(found.items())


def _toml_key(field: str) -> str:
    """A calendar field as the bundle source's TOML names it: a week
    period's ``from_date`` is its key ``from``."""
    return field[: -len("_date")] if field.endswith("].from_date") else field


def _toml_words(description: str) -> str:
    """A calendar check's words with the wire's ``from_date`` said as the TOML key ``from``."""
    return description.replace("increasing from_date order", "increasing from order ([[week_periods]] tables)")


def compile_source(src: BundleSource) -> tuple[dict, str]:
    """Resolve ``src`` into (content, version). Raises SourceError with every
    problem the calendar validation found."""
    y0, y1 = src.years
    for i, (start, *_) in enumerate(src.week_periods):
        try:
            year = date.fromisoformat(start).year
        except ValueError:
            continue  # the calendar's own check says what is wrong with it
        if not y0 <= year <= y1:
            raise SourceError(f"{src.name}.week_periods[{i}].from: week period {i} starts {start}, outside the "
                              f"bundle's years {y0}–{y1}; move its from into those years or widen years")
    try:
        cal = Calendar.from_text(
            src.time_zone,
            src.weekend,
            resolve_holidays(src),
            src.working_hours,
            field=src.name,
            date_overrides=src.date_overrides,
            extra_working_days=src.extra_working_days,
            week_periods=src.week_periods,
            holidays_valid_from=date(y0, 1, 1).isoformat(),
            holidays_valid_until=date(y1, 12, 31).isoformat(),
        )
    except DuetimeError as e:
        raise SourceError("; ".join(f"{_toml_key(v.field)}: {_toml_words(v.description)}"
                                    for v in e.violations)) from None
    content = {
        "format": FORMAT,
        "name": src.name,
        "description": src.description,
        "years": [y0, y1],
        "calendar": cal.canonical(),
        "source": {
            "holidays_package": holidays_pkg.__version__ if src.country else None,
            "country": src.country,
            "subdiv": src.subdiv,
            "categories": list(src.categories) if src.categories is not None else None,
            "observed": src.observed,
            "language": src.language,
            "added": [list(a) for a in src.added],
            "removed": list(src.removed),
        },
    }
    return content, version_of(content)


def compiled_dir(root: Path, name: str) -> Path:
    return root / "compiled" / name


def read_versions(root: Path, name: str) -> list[str]:
    """Versions of ``name``, oldest first."""
    index = compiled_dir(root, name) / "versions.txt"
    if not index.exists():
        return []
    return [line.strip() for line in index.read_text().splitlines() if line.strip()]


def read_compiled(root: Path, name: str, version: str) -> dict:
    return json.loads((compiled_dir(root, name) / f"{version}.json").read_text(encoding="utf-8"))


def sources(root: Path) -> list[Path]:
    return sorted(p for p in root.glob("*.toml") if p.is_file())


@dataclass(frozen=True)
class Compiled:
    name: str
    version: str
    new: bool


def compile_all(root: Path) -> list[Compiled]:
    """Compile every source under ``root``; write new versions, never touch old
    ones. A version already newest is left as is. Raises SourceError (nothing
    is written then)."""
    results = [(src, *compile_source(src)) for src in (load_source(p) for p in sources(root))]
    return [publish(root, src.name, content, version) for src, content, version in results]


def publish(root: Path, name: str, content: dict, version: str) -> Compiled:
    """Write ``content`` as ``version`` of ``name`` under ``root/compiled`` and
    make it the newest; a version already newest is left untouched. Files are
    written to a temporary name and renamed, so readers never see half a file."""
    d = compiled_dir(root, name)
    d.mkdir(parents=True, exist_ok=True)
    versions = read_versions(root, name)
    if versions and versions[-1] == version:
        return Compiled(name, version, False)
    path = d / f"{version}.json"
    if not path.exists():
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(content, sort_keys=True, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        tmp.replace(path)
    versions = [v for v in versions if v != version] + [version]
    tmp = d / "versions.txt.tmp"
    tmp.write_text("".join(v + "\n" for v in versions))
    tmp.replace(d / "versions.txt")
    return Compiled(name, version, True)


def check_compiled(root: Path) -> list[CheckProblem]:
    """Problems with the compiled files under ``root/compiled`` (see :func:`check`)."""
    problems: list[CheckProblem] = []
    for d in sorted((root / "compiled").glob("*")) if (root / "compiled").exists() else []:
        if not d.is_dir():
            continue
        listed = read_versions(root, d.name)
        files = {p.stem for p in d.glob("*.json")}
        for v in listed:
            if v not in files:
                problems.append(CheckProblem(f"compiled/{d.name}/versions.txt", f"lists {v}, which has no file"))
        for p in sorted(d.glob("*.json")):
            where = f"compiled/{d.name}/{p.name}"
            try:
                content = json.loads(p.read_text(encoding="utf-8"))
            except (OSError, ValueError) as e:
                problems.append(CheckProblem(where, f"not readable JSON: {e}"))
                continue
            if version_of(content) != p.stem:
                problems.append(CheckProblem(where, f"content hashes to {version_of(content)}, not {p.stem}: "
                                                    "edited by hand? compiled versions are never edited"))
            if content.get("name") != d.name:
                problems.append(CheckProblem(where, f"names {content.get('name')!r}, not {d.name!r}"))
            if p.stem not in listed:
                problems.append(CheckProblem(where, "not listed in versions.txt"))
    return problems


@dataclass(frozen=True)
class CheckProblem:
    where: str
    problem: str

    def __str__(self) -> str:
        return f"{self.where}: {self.problem}"


def _without_package(content: dict) -> dict:
    c = json.loads(json.dumps(content))
    c["source"].pop("holidays_package", None)
    return c


def check(root: Path) -> list[CheckProblem]:
    """Everything that is wrong with ``root``'s bundles (empty list: all good).

    * a source that does not compile, or whose content differs from its newest
      compiled version (ignoring only the ``holidays`` package version string,
      so an upgrade that gives the same dates passes);
    * a compiled file whose content does not hash to its file name (edited by
      hand), that names another bundle, or that ``versions.txt`` does not list;
    * a version listed in ``versions.txt`` with no file.
    """
    problems: list[CheckProblem] = []
    for path in sources(root):
        try:
            src = load_source(path)
            content, version = compile_source(src)
        except SourceError as e:
            problems.append(CheckProblem(path.name, str(e)))
            continue
        versions = read_versions(root, src.name)
        if not versions:
            problems.append(CheckProblem(path.name, "never compiled: run `duetime calendars compile`"))
            continue
        newest = versions[-1]
        if version == newest:
            continue  # the source gives exactly the newest version; its file is checked below
        try:
            old = read_compiled(root, src.name, newest)
        except (OSError, ValueError):
            continue  # reported below
        if _without_package(old) != _without_package(content):
            pkg_old = old.get("source", {}).get("holidays_package")
            pkg_new = content["source"]["holidays_package"]
            why = (f"the holidays package {pkg_new} now resolves different dates than {pkg_old} did"
                   if pkg_old != pkg_new and _same_source(old, content) else "the source changed")
            problems.append(CheckProblem(path.name, f"{why} since version {newest} (would be {version}): "
                                                    "run `duetime calendars compile` and review `duetime calendars diff`"))
    problems.extend(check_compiled(root))
    return problems


def _same_source(old: dict, new: dict) -> bool:
    a, b = dict(old.get("source", {})), dict(new["source"])
    a.pop("holidays_package", None)
    b.pop("holidays_package", None)
    oc, nc = dict(old.get("calendar", {})), dict(new["calendar"])
    oc.pop("holidays", None)
    nc.pop("holidays", None)
    return a == b and oc == nc and old.get("years") == new.get("years")


def _hours_text(ivs: list) -> str:
    return ", ".join(f"{a}–{b}" for a, b in ivs) or "closed"


_DAY_NAMES = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]


def diff_versions(old: dict, new: dict) -> list[str]:
    """What changed between two compiled contents, in words, for a reviewer."""
    lines: list[str] = []
    o, n = old["calendar"], new["calendar"]
    if old.get("years") != new.get("years"):
        lines.append(f"years: {old.get('years')} → {new.get('years')}")
    if o["time_zone"] != n["time_zone"]:
        lines.append(f"time zone: {o['time_zone']} → {n['time_zone']}")
    if o["weekend"] != n["weekend"]:
        lines.append(f"weekend: {', '.join(_DAY_NAMES[d - 1] for d in o['weekend']) or 'none'} → "
                     f"{', '.join(_DAY_NAMES[d - 1] for d in n['weekend']) or 'none'}")
    for wd in range(1, 8):
        a, b = o["working_hours"].get(str(wd), []), n["working_hours"].get(str(wd), [])
        if a != b:
            lines.append(f"{_DAY_NAMES[wd - 1]} hours: {_hours_text(a)} → {_hours_text(b)}")
    oh = {h["date"]: h["name"] for h in o["holidays"]}
    nh = {h["date"]: h["name"] for h in n["holidays"]}
    for d in sorted(set(oh) | set(nh)):
        if d not in oh:
            lines.append(f"+ holiday {d} {nh[d]}")
        elif d not in nh:
            lines.append(f"- holiday {d} {oh[d]}")
        elif oh[d] != nh[d]:
            lines.append(f"~ holiday {d} renamed {oh[d]!r} → {nh[d]!r}")
    for key, what in (("date_overrides", "override"), ("extra_working_days", "extra working day")):
        a = {x["date"]: x for x in o.get(key, [])}
        b = {x["date"]: x for x in n.get(key, [])}
        for d in sorted(set(a) | set(b)):
            if a.get(d) != b.get(d):
                desc = lambda x: (_hours_text(x.get("intervals", [])) if key == "date_overrides" else "open") + (
                    f" ({x['name']})" if x.get("name") else "")
                if d not in a:
                    lines.append(f"+ {what} {d}: {desc(b[d])}")
                elif d not in b:
                    lines.append(f"- {what} {d}: {desc(a[d])}")
                else:
                    lines.append(f"~ {what} {d}: {desc(a[d])} → {desc(b[d])}")
    lines += _week_period_changes(o.get("week_periods", []), n.get("week_periods", []))
    pa, pb = old.get("source", {}).get("holidays_package"), new["source"].get("holidays_package")
    if pa != pb:
        lines.append(f"holidays package: {pa} → {pb}")
    return lines or ["no differences"]


def _week_text(period: dict) -> str:
    """A week period in words: its weekend and each weekday's hours."""
    weekend = ", ".join(_DAY_NAMES[d - 1] for d in period["weekend"]) or "none"
    hours = "; ".join(f"{_DAY_NAMES[int(wd) - 1]} {_hours_text(ivs)}" for wd, ivs in sorted(period["working_hours"].items()))
    return f"weekend {weekend}; {hours or 'no working hours'}"


def _week_period_changes(old: list[dict], new: list[dict]) -> list[str]:
    """Week periods added, removed or changed (docs/semantics.md §16), by their from date."""
    a = {p["from"]: p for p in old}
    b = {p["from"]: p for p in new}
    lines = []
    for d in sorted(set(a) | set(b)):
        if d not in a:
            lines.append(f"+ week from {d}: {_week_text(b[d])}")
        elif d not in b:
            lines.append(f"- week from {d}: {_week_text(a[d])}")
        elif a[d] != b[d]:
            lines.append(f"~ week from {d}: {_week_text(a[d])} → {_week_text(b[d])}")
    return lines
