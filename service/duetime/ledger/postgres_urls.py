"""PostgreSQL ledger addresses: telling a ``postgresql://`` URL from a SQLite
file path (:func:`postgres_url`) and naming a database in logs without its
user or password (:func:`postgres_label`). Plain text functions: no psycopg."""

from __future__ import annotations

import os
import re
from urllib.parse import quote

POSTGRES_SCHEMES = ("postgresql://", "postgres://")
"""URL schemes of a PostgreSQL ledger (matched without regard to case)."""
_URL_SCHEME = re.compile(r"\s*([A-Za-z][A-Za-z0-9+.-]*)://")
"""The scheme of a URL (group 1), after any leading white space."""
_CONNINFO_KEY = re.compile(r"(?:^|\s)[A-Za-z_]+\s*=")
"""A ``key=`` of a libpq connection string."""


def postgres_url(db: str | os.PathLike[str]) -> str | None:
    """``db`` as a PostgreSQL URL (surrounding white space removed, scheme in
    lower case, as libpq wants), or None when ``db`` is a SQLite file path.

    ValueError for what is neither and would otherwise be taken for a file
    name — created in the working directory and logged whole, password
    included: a URL of another scheme (``postgresql+psycopg://``,
    ``sqlite://``, …) or a libpq ``key=value`` connection string. The
    message never repeats the value."""
    if not isinstance(db, str):
        return None
    if url := _URL_SCHEME.match(db):
        scheme = url.group(1).lower()
        if f"{scheme}://" in POSTGRES_SCHEMES:
            return f"{scheme}://{db[url.end():].strip()}"
        raise ValueError(f"is a {scheme}:// URL, which duetime does not read; give a "
                         "postgresql://USER:PASSWORD@HOST:PORT/DBNAME URL or a SQLite file path")
    if _CONNINFO_KEY.search(db):
        raise ValueError("is a key=value connection string, which duetime does not read; give "
                         "a postgresql://USER:PASSWORD@HOST:PORT/DBNAME URL or a SQLite file path")
    return None


def postgres_label(host: str, port: int | str | None, dbname: str) -> str:
    """``postgresql://HOST:PORT/DBNAME`` for logs and errors, never a user or
    password: an IPv6 host in brackets, a Unix socket directory
    percent-encoded (libpq's URL form); ``port`` None or empty: 5432."""
    if host.startswith("/"):
        host = quote(host, safe="")
    elif ":" in host:
        host = f"[{host}]"
    return f"postgresql://{host}:{port or 5432}/{dbname}"

