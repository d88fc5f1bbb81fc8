"""The set of compiled bundle versions a server answers from.

A :class:`BundleStore` is immutable once loaded: a reload builds a new store
and swaps one reference, so an in-flight call sees the old set or the new one,
never half of each. Every file is verified (its content hashes to its name)
before a store is accepted.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from pathlib import Path

from duetime.core import Calendar, DuetimeError, InvalidArgument

from .compiler import read_versions, version_of

log = logging.getLogger("duetime.bundles")


class BundleNotFound(InvalidArgument):
    """A bundle reference names no loaded bundle or version."""

    reason = "BUNDLE_NOT_FOUND"


@dataclass(frozen=True)
class Bundle:
    """One compiled version: ``calendar`` is ready to compute with."""

    name: str
    version: str
    description: str
    years: tuple[int, int]
    content: dict
    calendar: Calendar

    @property
    def ref(self) -> str:
        return f"{self.name}@{self.version}"


def split_ref(ref: str, field: str) -> tuple[str, str]:
    """``(name, version)`` of a reference ``name`` or ``name@version``
    (version ``""`` when none is given). Raises InvalidArgument on ``field``
    for ``name@`` (an empty version after ``@``)."""
    name, at, version = ref.partition("@")
    if at and not version:
        raise InvalidArgument.at(field, f"{ref!r}: empty version after '@'; write {name!r} for its "
                                        f"newest version, or {name}@VERSION")
    return name, version


def calendar_of(content: dict) -> Calendar:
    """The core Calendar of a compiled content (validated again)."""
    c = content["calendar"]
    return Calendar.from_text(
        c["time_zone"],
        c["weekend"],
        [(h["date"], h["name"]) for h in c["holidays"]],
        [(int(wd), [tuple(iv) for iv in ivs]) for wd, ivs in sorted(c["working_hours"].items())],
        field=content["name"],
        date_overrides=[(o["date"], [tuple(iv) for iv in o["intervals"]], not o["intervals"], o["name"])
                        for o in c.get("date_overrides", [])],
        extra_working_days=[(x["date"], x["name"]) for x in c.get("extra_working_days", [])],
        holidays_valid_from=c.get("holidays_valid_from"),
        holidays_valid_until=c.get("holidays_valid_until"),
        week_periods=[(p["from"], p["weekend"], [(int(wd), [tuple(iv) for iv in ivs])
                                                  for wd, ivs in sorted(p["working_hours"].items())])
                      for p in c.get("week_periods", [])],
    )


class BundleStore:
    """Compiled versions by name, each name's versions oldest first."""

    def __init__(self, bundles: dict[str, list[Bundle]], none_loaded: str = ""):
        self._by_name = bundles
        self._by_ref = {b.ref: b for versions in bundles.values() for b in versions}
        self._none_loaded = none_loaded

    @classmethod
    def empty(cls, none_loaded: str = "") -> "BundleStore":
        """A store without bundles; ``none_loaded``: what :meth:`resolve`'s
        refusal adds to "known: none are loaded" (how to give bundles)."""
        return cls({}, none_loaded)

    @classmethod
    def load(cls, root: Path) -> "BundleStore":
        """Load every compiled version under ``root/compiled``. Raises ValueError
        naming the file when any version fails verification or validation."""
        out: dict[str, list[Bundle]] = {}
        base = Path(root) / "compiled"
        if not base.exists():
            return cls(out)
        for d in sorted(p for p in base.iterdir() if p.is_dir()):
            versions = read_versions(Path(root), d.name)
            if not versions:
                raise ValueError(f"{d}: no versions.txt")
            out[d.name] = [_load_one(d, v) for v in versions]
        return cls(out)

    def names(self) -> list[str]:
        return sorted(self._by_name)

    def versions(self, name: str) -> list[Bundle]:
        """Versions of ``name``, oldest first (empty when unknown)."""
        return list(self._by_name.get(name, []))

    def refs(self) -> list[str]:
        """Every loaded version as ``name@version``, by name, oldest first."""
        return [b.ref for n in self.names() for b in self._by_name[n]]

    def summary(self) -> dict[str, str]:
        """name → newest version, for logs and metrics."""
        return {n: v[-1].version for n, v in self._by_name.items()}

    def resolve(self, ref: str, field: str = "calendar_ref") -> Bundle:
        """``name`` (newest version) or ``name@version`` → Bundle.
        Raises BundleNotFound (an InvalidArgument naming ``field``), also for
        ``name@`` (see :func:`split_ref`)."""
        name, version = split_ref(ref, field)
        if name not in self._by_name:
            known = ", ".join(self.names()) or "none are loaded" + (
                f"; {self._none_loaded}" if self._none_loaded else "")
            raise BundleNotFound.at(field, f"no calendar bundle named {name!r} (known: {known})")
        if not version:
            return self._by_name[name][-1]
        found = self._by_ref.get(ref)
        if found is None:
            have = ", ".join(b.version for b in self._by_name[name])
            raise BundleNotFound.at(field, f"bundle {name!r} has no version {version!r} (versions: {have})")
        return found


def _load_one(d: Path, version: str) -> Bundle:
    path = d / f"{version}.json"
    try:
        content = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise ValueError(f"{path}: cannot read: {e}") from None
    if version_of(content) != version:
        raise ValueError(f"{path}: content hashes to {version_of(content)}, not {version} (edited by hand?)")
    if content.get("name") != d.name:
        raise ValueError(f"{path}: names bundle {content.get('name')!r}, not {d.name!r}")
    try:
        cal = calendar_of(content)
    except DuetimeError as e:
        raise ValueError(f"{path}: invalid calendar: {e}") from None
    years = tuple(content["years"])
    return Bundle(d.name, version, content.get("description", ""), (years[0], years[1]), content, cal)
