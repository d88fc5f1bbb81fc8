"""The composition root: one function builds a duetime app from its parts.

``duetime serve`` (:func:`duetime.api.server.start_server`) and the command
line without a server both build their app here: the ledger, the catalog of
bundles and policies, the size limits, the calendar cache's size, and the
recorded methods of the wire (:mod:`duetime.api.convert`). Nothing is read
from or written to module-level settings, so apps with other limits or cache
sizes live side by side in one process.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from duetime import tzdb
from duetime.api.convert import RPCS
from duetime.app import DEFAULT_CALENDAR_CACHE, DEFAULT_LIMITS, CalendarCache, DueTimeApp, Limits
from duetime.app.calendars import DEFAULT_MEMORY_BUDGET, cache_bytes
from duetime.catalog import Catalog
from duetime.ledger import Ledger, LedgerUnavailable, MemoryLedger


def calendar_cache_size_from_env(environ: dict[str, str] | None = None) -> int:
    """The calendar cache's size of ``$DUETIME_CALENDAR_CACHE`` (a whole
    number; negative counts as 0), else :data:`~duetime.app.DEFAULT_CALENDAR_CACHE`."""
    text = (os.environ if environ is None else environ).get("DUETIME_CALENDAR_CACHE", "")
    try:
        return max(0, int(text)) if text.strip() else DEFAULT_CALENDAR_CACHE
    except ValueError:
        return DEFAULT_CALENDAR_CACHE


def build_app(
    ledger: Ledger | None = None, catalog: Catalog | None = None, *,
    limits: Limits = DEFAULT_LIMITS, calendar_cache: int | None = None,
    on_ledger_unavailable: Callable[[LedgerUnavailable], None] | None = None,
    memory_budget: int = DEFAULT_MEMORY_BUDGET,
) -> DueTimeApp:
    """A :class:`~duetime.app.DueTimeApp` over ``ledger`` (None: an in-memory
    ledger, for answering without recording, as the CLI does without a
    server), answering from ``catalog`` (None: no bundles or policies), with
    ``limits`` and a calendar cache of ``calendar_cache`` inline calendars
    (None: ``$DUETIME_CALENDAR_CACHE``, else 1024; 0 keeps none) holding
    at most a third of ``memory_budget`` bytes, estimated
    (:func:`~duetime.app.calendars.cache_bytes`). Pins the
    time zone database first (:func:`duetime.tzdb.pin`). Raises ValueError
    for a negative ``calendar_cache``."""
    tzdb.pin()
    size = calendar_cache_size_from_env() if calendar_cache is None else calendar_cache
    return DueTimeApp(ledger if ledger is not None else MemoryLedger(), catalog,
                      on_ledger_unavailable, methods=RPCS, limits=limits,
                      calendar_cache=CalendarCache(size, cache_bytes(memory_budget)))
