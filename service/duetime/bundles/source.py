"""Bundle sources: ``calendars/<name>.toml`` parsed and checked.

Schema (every key but ``time_zone`` and ``years`` is optional)::

    description = "Croatia: public holidays, Monday–Friday 09:00–17:00"
    time_zone = "Europe/Zagreb"           # IANA name
    years = [2020, 2035]                  # holidays are resolved for these years, inclusive
    weekend = ["sat", "sun"]              # default Saturday + Sunday; [] = none

    [working_hours]                       # default 09:00–17:00 on non-weekend days
    "mon-fri" = ["09:00-12:00", "13:00-17:00"]
    sat = []

    [holidays]                            # from the `holidays` package, plus/minus dates
    country = "HR"                        # ISO 3166 code the package knows
    subdiv = "NY"                         # optional subdivision
    categories = ["public"]               # optional, as the package names them
    observed = true                       # include observed/substitute days (default true)
    language = "en_US"                    # names' language if the package has it
    add = [{ date = "2026-12-24", name = "Company day" }]
    remove = ["2026-06-22"]

    [[date_overrides]]                    # a day's own hours, or closed = true
    date = "2026-12-24"
    hours = ["09:00-13:00"]
    name = "Christmas Eve"

    [[extra_working_days]]
    date = "2026-12-27"
    name = "Stock-taking Sunday"

    [[week_periods]]                      # a week from a date on (docs/semantics.md §16)
    from = "2027-03-01"                   # strictly increasing
    weekend = ["sat", "sun"]              # default Saturday + Sunday (not the previous week's)
    [week_periods.working_hours]          # default 09:00–17:00 on its non-weekend days
    "mon-fri" = ["08:00-18:00"]
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

DAYS = {"mon": 1, "tue": 2, "wed": 3, "thu": 4, "fri": 5, "sat": 6, "sun": 7}
_NAME = re.compile(r"[a-z0-9][a-z0-9-]{0,62}")
_KEYS = {"description", "time_zone", "years", "weekend", "working_hours", "holidays", "date_overrides", "extra_working_days",
         "week_periods"}
_PERIOD_KEYS = {"from", "weekend", "working_hours"}
_HOLIDAY_KEYS = {"country", "subdiv", "categories", "observed", "language", "add", "remove"}


class SourceError(ValueError):
    """A bundle source that cannot be used; the message names the file and key."""


@dataclass(frozen=True)
class BundleSource:
    """A parsed bundle source. Dates are ``YYYY-MM-DD`` text; hours ``(start, end)``."""

    name: str
    description: str
    time_zone: str
    years: tuple[int, int]
    weekend: tuple[int, ...] | None
    working_hours: tuple[tuple[int, tuple[tuple[str, str], ...]], ...] | None
    country: str | None = None
    subdiv: str | None = None
    categories: tuple[str, ...] | None = None
    observed: bool = True
    language: str | None = None
    added: tuple[tuple[str, str], ...] = ()
    removed: tuple[str, ...] = ()
    date_overrides: tuple[tuple[str, tuple[tuple[str, str], ...], bool, str], ...] = ()
    extra_working_days: tuple[tuple[str, str], ...] = field(default_factory=tuple)
    #: ``(from, weekend or None, working_hours or None)`` per week period.
    week_periods: tuple[tuple[str, tuple[int, ...] | None, tuple | None], ...] = ()


def day_list(spec: str, where: str) -> list[int]:
    """``"mon-fri"`` / ``"sat"`` / ``"mon,wed"`` → ISO weekdays."""
    out: list[int] = []
    for part in spec.lower().split(","):
        a, _, b = part.strip().partition("-")
        if a not in DAYS or (b and b not in DAYS):
            raise SourceError(f"{where}: {spec!r} is not a day or range of days (mon … sun, e.g. 'mon-fri')")
        lo, hi = DAYS[a], DAYS[b or a]
        out.extend(range(lo, hi + 1) if lo <= hi else [*range(lo, 8), *range(1, hi + 1)])
    return out


def _interval(text: object, where: str) -> tuple[str, str]:
    if not isinstance(text, str) or text.count("-") != 1:
        raise SourceError(f"{where}: {text!r} is not an interval 'HH:MM-HH:MM'")
    a, b = text.split("-")
    return a.strip(), b.strip()


def load_source(path: Path) -> BundleSource:
    """Read and check ``path`` (a ``.toml`` bundle source). Raises SourceError.

    Wall times, dates and zones are checked again, precisely, when the
    compiled calendar is built; this checks shape and names keys.
    """
    name = path.stem
    where = str(path)
    if not _NAME.fullmatch(name):
        raise SourceError(f"{where}: a bundle name is lower-case letters, digits and '-' (got {name!r})")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise SourceError(f"{where}: not valid TOML: {e}") from None
    unknown = set(data) - _KEYS
    if unknown:
        raise SourceError(f"{where}: unknown keys {sorted(unknown)}; allowed: {sorted(_KEYS)}")
    if not isinstance(data.get("time_zone"), str):
        raise SourceError(f"{where}: time_zone (an IANA name) is required")
    years = data.get("years")
    if not (isinstance(years, list) and len(years) == 2 and all(isinstance(y, int) for y in years)
            and 1900 <= years[0] <= years[1] <= 2199):
        raise SourceError(f"{where}: years must be [first, last] within 1900..2199")

    weekend, hours = _week(data, where)
    periods = []
    raw_periods = data.get("week_periods", [])
    if not isinstance(raw_periods, list):
        raise SourceError(f"{where}: week_periods is an array of tables ([[week_periods]])")
    for i, p in enumerate(raw_periods):
        w = f"{where}: week_periods[{i}]"
        if not isinstance(p, dict):
            raise SourceError(f"{w}: a table with keys {', '.join(sorted(_PERIOD_KEYS))} ([[week_periods]])")
        for key in sorted(set(p) - _PERIOD_KEYS):
            raise SourceError(f"{w}: unknown key {key!r} (allowed: {', '.join(sorted(_PERIOD_KEYS))})")
        start = p.get("from")
        if not isinstance(start, str):
            start = start.isoformat() if hasattr(start, "isoformat") else None
        if start is None:
            raise SourceError(f"{w}: from (a date 'YYYY-MM-DD') is required")
        periods.append((start, *_week(p, w, "week_periods[{i}].".format(i=i))))

    h = data.get("holidays", {})
    if not isinstance(h, dict) or set(h) - _HOLIDAY_KEYS:
        raise SourceError(f"{where}: holidays is a table with keys {sorted(_HOLIDAY_KEYS)}")
    added = tuple((str(a.get("date")), str(a.get("name", ""))) for a in h.get("add", []))
    overrides = []
    for i, o in enumerate(data.get("date_overrides", [])):
        w = f"{where}: date_overrides[{i}]"
        ivs = tuple(_interval(iv, w) for iv in o.get("hours", []))
        overrides.append((str(o.get("date")), ivs, bool(o.get("closed", False)), str(o.get("name", ""))))
    extra = tuple((str(x.get("date")), str(x.get("name", ""))) for x in data.get("extra_working_days", []))
    cats = h.get("categories")
    return BundleSource(
        name=name,
        description=str(data.get("description", "")),
        time_zone=data["time_zone"],
        years=(years[0], years[1]),
        weekend=weekend,
        working_hours=hours,
        country=h.get("country"),
        subdiv=h.get("subdiv"),
        categories=tuple(cats) if cats is not None else None,
        observed=bool(h.get("observed", True)),
        language=h.get("language"),
        added=added,
        removed=tuple(str(r) for r in h.get("remove", [])),
        date_overrides=tuple(overrides),
        extra_working_days=extra,
        week_periods=tuple(periods),
    )


def _week(data: dict, where: str, prefix: str = "") -> tuple[tuple[int, ...] | None, tuple | None]:
    """(weekend, working hours) of a table; None for a part it does not give."""
    weekend = None
    if "weekend" in data:
        if not isinstance(data["weekend"], list):
            raise SourceError(f"{where}: {prefix}weekend is a list of days, e.g. ['sat', 'sun']")
        weekend = tuple(d for spec in data["weekend"] for d in day_list(str(spec), f"{where}: {prefix}weekend"))
    hours = None
    if "working_hours" in data:
        if not isinstance(data["working_hours"], dict):
            raise SourceError(f"{where}: {prefix}working_hours is a table of days, e.g. 'mon-fri' = ['09:00-17:00']")
        by_day: dict[int, tuple[tuple[str, str], ...]] = {}
        for spec, ivs in data["working_hours"].items():
            w = f"{where}: {prefix}working_hours.{spec}"
            if not isinstance(ivs, list):
                raise SourceError(f"{w}: a list of 'HH:MM-HH:MM' intervals")
            for d in day_list(spec, w):
                if d in by_day:
                    raise SourceError(f"{w}: {d} is given hours twice")
                by_day[d] = tuple(_interval(iv, w) for iv in ivs)
        hours = tuple(sorted(by_day.items()))
    return weekend, hours
