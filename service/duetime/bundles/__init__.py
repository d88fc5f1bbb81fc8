"""Versioned calendar bundles (docs/semantics.md §7).

Sources are TOML files ``calendars/<name>.toml``; :mod:`.compiler` resolves
each into a canonical JSON of explicit dates, hashed into a version id and
kept forever under ``calendars/compiled/<name>/<version>.json``; the service
loads compiled versions only (:mod:`.store`), so an upgrade of the
``holidays`` package never changes an existing version's answers.
"""

from .compiler import CheckProblem, check, compile_all, compile_source, diff_versions
from .source import BundleSource, SourceError, load_source
from .store import Bundle, BundleStore, BundleNotFound

__all__ = [
    "Bundle",
    "BundleNotFound",
    "BundleSource",
    "BundleStore",
    "CheckProblem",
    "SourceError",
    "check",
    "compile_all",
    "compile_source",
    "diff_versions",
    "load_source",
]
