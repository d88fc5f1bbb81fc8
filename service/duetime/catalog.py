"""The calendar bundles and contract policies a server answers from, as one unit.

A :class:`Catalog` is immutable: loading builds a whole new one from a
calendars directory (``DIR/compiled`` for bundles, ``DIR/policies/compiled``
for policies), verifying every file, and a reload replaces the app's catalog
in one assignment, so a call sees the old set or the new one, never half.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from duetime.bundles import BundleStore
from duetime.bundles.policy import PolicyStore

ENV_DIR = "DUETIME_CALENDARS"
"""Environment variable naming the default calendars directory."""


class CatalogError(Exception):
    """A calendars directory that cannot be loaded; the message says why."""


def default_dir() -> Path | None:
    """``$DUETIME_CALENDARS`` if set, else ``./calendars`` if it exists, else None."""
    if os.environ.get(ENV_DIR):
        return Path(os.environ[ENV_DIR])
    here = Path("calendars")
    return here if here.is_dir() else None


def policies_dir(root: Path) -> Path:
    return root / "policies"


def fingerprint(root: Path) -> tuple:
    """What ``--watch`` compares: each compiled ``versions.txt`` with its
    modification time and size (compiling rewrites it last)."""
    found = []
    for base in (root / "compiled", policies_dir(root) / "compiled"):
        for index in sorted(base.glob("*/versions.txt")):
            try:
                stat = index.stat()
            except OSError:  # removed while we looked: it changed
                continue
            found.append((str(index), stat.st_mtime_ns, stat.st_size))
    return tuple(found)


@dataclass(frozen=True)
class Catalog:
    """Loaded bundles and policies; ``root`` is where they came from (None: empty)."""

    bundles: BundleStore
    policies: PolicyStore
    root: Path | None = None

    @classmethod
    def empty(cls, none_loaded: str = "") -> Catalog:
        """No bundles nor policies; ``none_loaded`` is added to a refusal of a
        bundle name (how to give bundles, see :meth:`BundleStore.empty`)."""
        bundles = BundleStore.empty(none_loaded)
        return cls(bundles, PolicyStore({}, bundles))

    @classmethod
    def load(cls, root: Path) -> Catalog:
        """Load and verify every compiled version under ``root``.

        Raises CatalogError naming the file and the problem when any bundle or
        policy version fails verification (a hand-edited file, a missing one,
        an invalid calendar, a policy pinning a calendar that is not there).
        """
        root = Path(root)
        if not root.is_dir():
            raise CatalogError(f"{root}: not a directory")
        try:
            bundles = BundleStore.load(root)
            policies = PolicyStore.load(policies_dir(root), bundles)
        except Exception as exc:  # noqa: BLE001 - any bad file refuses the whole set
            why = str(exc) if isinstance(exc, ValueError) else f"{type(exc).__name__}: {exc}"
            raise CatalogError(why) from exc
        return cls(bundles, policies, root)

    def describe(self) -> str:
        """The loaded set in words, for logs: every ``name@version``."""
        bundles, policies = self.bundles.refs(), self.policies.refs()
        return (f"{len(bundles)} calendar version(s) [{', '.join(bundles)}], "
                f"{len(policies)} policy version(s) [{', '.join(policies)}]")
