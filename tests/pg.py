"""PostgreSQL for the tests: one server per test session, a fresh database per test.

The server is ``$DUETIME_TEST_PG_DSN`` (a superuser URL, e.g. from
``eval "$(python3 scripts/pg_test_server.py start)"`` in .ci/run) when set,
else one this module starts on first use with ``scripts/pg_test_server.py``
and stops when the session ends. If neither works every test that needs
PostgreSQL FAILS (never skips) with the reason.

Use in a test module::

    from pg import pg_database, pg_dsn  # noqa: F401  (the fixtures)

    def test_x(pg_dsn): ...        # URL of a new, empty schema, dropped afterwards
    def test_y(pg_database): ...   # URL of a new, empty database, dropped afterwards

Helpers: :func:`admin_dsn`, :func:`create_database`, :func:`drop_database`,
:func:`create_schema`, :func:`drop_schema`, :func:`admin_sql`,
:func:`scratch_server` (a private server a test may stop and start).
"""

from __future__ import annotations

import atexit
import importlib.util
import os
import sys
import urllib.parse
import uuid
from pathlib import Path

import pytest

_SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "pg_test_server.py"
_state: dict = {}


def pg_test_server():
    """The ``scripts/pg_test_server.py`` module."""
    if "module" not in _state:
        spec = importlib.util.spec_from_file_location("pg_test_server", _SCRIPT)
        module = importlib.util.module_from_spec(spec)
        sys.modules.setdefault("pg_test_server", module)
        spec.loader.exec_module(module)
        _state["module"] = module
    return _state["module"]


def _psycopg():
    try:
        import psycopg
    except ImportError:
        pytest.fail("PostgreSQL tests need psycopg 3: pip install -e '.[test]'", pytrace=False)
    return psycopg


def admin_dsn() -> str:
    """Superuser URL of the session's PostgreSQL (its ``postgres`` database)."""
    if "dsn" in _state:
        return _state["dsn"]
    if "failure" in _state:
        pytest.fail(_state["failure"], pytrace=False)
    dsn = os.environ.get("DUETIME_TEST_PG_DSN")
    if not dsn:
        module = pg_test_server()
        try:
            server = module.PgServer.create()
        except Exception as exc:  # noqa: BLE001 — reported as the failure
            _state["failure"] = (
                f"PostgreSQL is required for these tests and none could be started "
                f"(set DUETIME_TEST_PG_DSN or install postgresql): {exc}"
            )
        else:
            owner = os.getpid()
            atexit.register(lambda: os.getpid() == owner and server.destroy())
            dsn = server.dsn
    if "failure" not in _state:
        try:
            with _psycopg().connect(dsn, autocommit=True, connect_timeout=10) as conn:
                conn.execute("SELECT 1")
        except _psycopg().Error as exc:
            _state["failure"] = f"PostgreSQL at {dsn} is required for these tests and is unreachable: {exc}"
    if "failure" in _state:
        pytest.fail(_state["failure"], pytrace=False)
    _state["dsn"] = dsn
    return dsn


def with_dbname(dsn: str, dbname: str) -> str:
    """``dsn`` (a URL) naming database ``dbname`` instead."""
    parts = urllib.parse.urlsplit(dsn)
    return urllib.parse.urlunsplit(parts._replace(path="/" + dbname))


def admin_sql(statement: str, params: tuple = (), dsn: str | None = None) -> list[tuple]:
    """Run one statement (autocommit) as the superuser on ``dsn`` (default:
    the ``postgres`` database); return its rows, if any."""
    with _psycopg().connect(dsn or admin_dsn(), autocommit=True) as conn:
        cur = conn.execute(statement, params)
        return cur.fetchall() if cur.description else []


def create_database() -> str:
    """Create an empty database; return its URL."""
    name = f"duetime_test_{uuid.uuid4().hex[:12]}"
    admin_sql(f'CREATE DATABASE "{name}" TEMPLATE template0')
    return with_dbname(admin_dsn(), name)


def drop_database(dsn: str) -> None:
    """Drop the database of ``dsn`` (made by :func:`create_database`), even if
    connections to it are still open."""
    name = urllib.parse.urlsplit(dsn).path.lstrip("/")
    admin_sql(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true')
    admin_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def dbname(dsn: str) -> str:
    return urllib.parse.urlsplit(dsn).path.lstrip("/")


def _shared_database() -> str:
    """URL of one database per session holding the tests' schemas."""
    if "shared" not in _state:
        dsn = create_database()
        owner = os.getpid()

        def drop() -> None:
            if os.getpid() == owner:
                try:
                    drop_database(dsn)
                except Exception:  # noqa: BLE001 — the server may be gone already
                    pass
        atexit.register(drop)
        _state["shared"] = dsn
    return _state["shared"]


def create_schema() -> str:
    """Create an empty schema in the session's shared database; return a URL
    whose connections use it (``options=-csearch_path=<schema>``). Much cheaper
    than a database (CREATE DATABASE copies a template: ~0.05-0.5 s)."""
    shared = _shared_database()
    name = f"t_{uuid.uuid4().hex[:12]}"
    admin_sql(f'CREATE SCHEMA "{name}"', dsn=shared)
    parts = urllib.parse.urlsplit(shared)
    query = urllib.parse.urlencode({"options": f"-csearch_path={name}"})
    return urllib.parse.urlunsplit(parts._replace(query=query))


def drop_schema(dsn: str) -> None:
    options = urllib.parse.parse_qs(urllib.parse.urlsplit(dsn).query)["options"][0]
    name = options.removeprefix("-csearch_path=")
    admin_sql(f'DROP SCHEMA "{name}" CASCADE', dsn=_shared_database())


@pytest.fixture
def pg_dsn():
    """URL of a new, empty schema (in a database shared by the session's
    tests), dropped afterwards. For tests that alter or cut off a whole
    database use :func:`pg_database`."""
    dsn = create_schema()
    yield dsn
    drop_schema(dsn)


@pytest.fixture
def pg_database():
    """URL of a new, empty database, dropped afterwards."""
    dsn = create_database()
    yield dsn
    drop_database(dsn)


def scratch_server():
    """A new private server (stop/start it at will); call ``.destroy()`` after."""
    admin_dsn()  # fail the same way if PostgreSQL cannot be had at all
    try:
        return pg_test_server().PgServer.create()
    except Exception as exc:  # noqa: BLE001
        pytest.fail(f"cannot start a scratch PostgreSQL server: {exc}", pytrace=False)
