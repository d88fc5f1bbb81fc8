"""The ledger: one stored row per answered computing call (docs/semantics.md §12).

This package's names, re-exported here, are what the rest of duetime uses;
each module holds one part:

- :mod:`~duetime.ledger.port`: the :class:`Ledger` every store implements,
  its errors (:class:`LedgerUnavailable`, :class:`DuplicateKey`) and what a
  batch write returns (:func:`resolve_batch`).
- :mod:`~duetime.ledger.rows`: :class:`LedgerRow`, its content digest (one
  byte framing, :func:`~duetime.ledger.rows.frame`), :class:`RowBuilder` and
  the checks of stored rows.
- :mod:`~duetime.ledger.record_ids`: the UUIDv7 record ids.
- :mod:`~duetime.ledger.listing`: :class:`RecordFilter`, page sizes and the
  signed page tokens (:class:`PageTokens`).
- :mod:`~duetime.ledger.sql`: the schema version and the reads both SQL stores share.
- :mod:`~duetime.ledger.sqlite`: :class:`SqliteLedger`, one SQLite file (the default).
- :mod:`~duetime.ledger.postgres`: :class:`PostgresLedger`, PostgreSQL
  through psycopg 3 (``pip install 'duetime[postgres]'``, imported when the
  first one opens).
- :mod:`~duetime.ledger.postgres_urls`: telling a PostgreSQL URL from a file
  path, and labels of a database without its password.
- :mod:`~duetime.ledger.memory`: :class:`MemoryLedger`, in-process, for unit tests.
- :mod:`~duetime.ledger.group_commit`: :class:`GroupCommit`, one commit
  shared by concurrent callers.
- :mod:`~duetime.ledger.opening`: :func:`open_ledger` picks a store from a
  ``--db`` value or ``$DUETIME_DB``; :func:`default_db_path`.

Both durable stores share one versioned schema (:data:`SCHEMA_VERSION`) and
apply forward migrations when opened, serialised between processes (SQLite:
``BEGIN IMMEDIATE``; PostgreSQL: a transaction-level advisory lock), so any
number of processes may open the same store at once; a store newer than this
code is refused. Each durable store keeps, in its ``ledger_secrets`` table
(schema version 3), the random secret its page tokens are signed with: made
by the first process to open it, read by every other, so each accepts the
tokens of all.

Writes: :meth:`Ledger.put_many` stores a batch in one transaction with one
commit (one fsync), the unit a group commit needs (:class:`GroupCommit` shares
it among concurrent callers); :meth:`Ledger.put` is a batch of one.

Errors: :class:`LedgerUnavailable` whenever the store cannot be opened, read or
written (the caller must then not answer); :class:`DuplicateKey` when a
:meth:`~Ledger.put` reuses a (namespace, idempotency key) that another row
holds; :class:`UnstorableValue` when the store refuses a value the request
gave (the request's fault: never a reason to call the ledger down);
``ValueError`` for a bad page token or an unstorable row.
"""

from duetime.ledger.group_commit import GroupCommit
from duetime.ledger.listing import (
    DEFAULT_PAGE_SIZE,
    Concern,
    MAX_PAGE_SIZE,
    PageTokens,
    Position,
    RecordFilter,
    new_page_token_secret,
)
from duetime.ledger.memory import MemoryLedger
from duetime.ledger.opening import default_db_path, open_ledger
from duetime.ledger.port import (
    DuplicateKey,
    Ledger,
    LedgerUnavailable,
    UnstorableValue,
    resolve_batch,
)
from duetime.ledger.postgres import PostgresLedger
from duetime.ledger.postgres_urls import POSTGRES_SCHEMES, postgres_label, postgres_url
from duetime.ledger.record_ids import new_record_id, new_record_ids
from duetime.ledger.rows import (
    COLUMNS,
    LedgerRow,
    RowBuilder,
    check_rows,
    content_digest,
    row_problems,
    sha256_hex,
)
from duetime.ledger.sql import SCHEMA_VERSION, SqlLedger
from duetime.ledger.sqlite import SqliteLedger

__all__ = [
    "COLUMNS",
    "Concern",
    "DEFAULT_PAGE_SIZE",
    "MAX_PAGE_SIZE",
    "POSTGRES_SCHEMES",
    "SCHEMA_VERSION",
    "DuplicateKey",
    "GroupCommit",
    "Ledger",
    "LedgerRow",
    "LedgerUnavailable",
    "MemoryLedger",
    "PageTokens",
    "Position",
    "PostgresLedger",
    "RecordFilter",
    "RowBuilder",
    "SqlLedger",
    "SqliteLedger",
    "UnstorableValue",
    "check_rows",
    "content_digest",
    "default_db_path",
    "new_page_token_secret",
    "new_record_id",
    "new_record_ids",
    "open_ledger",
    "postgres_label",
    "postgres_url",
    "resolve_batch",
    "row_problems",
    "sha256_hex",
]
