"""Opening a ledger: the store a ``--db`` value (or ``$DUETIME_DB``) names,
and where the default SQLite file lives."""

from __future__ import annotations

import os
from pathlib import Path

from duetime.ledger.port import Ledger, LedgerUnavailable
from duetime.ledger.postgres import PostgresLedger
from duetime.ledger.postgres_urls import postgres_url
from duetime.ledger.sqlite import SqliteLedger


def default_db_path() -> Path:
    """``$XDG_DATA_HOME/duetime/ledger.db``, else ``~/.local/share/duetime/ledger.db``."""
    base = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return Path(base) / "duetime" / "ledger.db"


def open_ledger(db: str | os.PathLike[str] | None = None, **options) -> Ledger:
    """Open (creating and migrating if needed) the ledger named by ``db``.

    ``db``: a ``postgresql://`` or ``postgres://`` URL (scheme in any case)
    → :class:`~duetime.ledger.postgres.PostgresLedger` (``options`` go to
    it, e.g. ``max_connections``); anything else is a SQLite file path
    (:class:`~duetime.ledger.sqlite.SqliteLedger`), but a URL of another
    scheme or a libpq ``key=value`` string is refused (see
    :func:`~duetime.ledger.postgres_urls.postgres_url`). None or ``""``:
    ``$DUETIME_DB`` if set and non-empty, else :func:`default_db_path`.
    Raises LedgerUnavailable if the store cannot be opened.
    """
    if db is None or db == "":
        db = os.environ.get("DUETIME_DB") or default_db_path()
    try:
        url = postgres_url(db)
    except ValueError as exc:
        raise LedgerUnavailable(f"the ledger {exc}") from None
    if url is not None:
        return PostgresLedger(url, **options)
    return SqliteLedger(db)
