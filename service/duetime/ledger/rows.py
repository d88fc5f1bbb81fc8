"""Ledger rows: :class:`LedgerRow`, its content digest and its checks.

The digest of a row is one SHA-256 over its fields, each framed by
:func:`frame` (an 8-byte big-endian length, then the bytes); both
:func:`content_digest` (one row) and :class:`RowBuilder` (many rows of one
call) build it from that one framing, so every stored ``content_sha256``
stays what ``records verify`` recomputes.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields
from operator import attrgetter


def sha256_hex(data: bytes) -> str:
    """Hex SHA-256 of ``data`` (64 lower-case hex digits)."""
    return hashlib.sha256(data).hexdigest()


length_prefix = struct.Struct(">Q").pack
"""``length_prefix(n)``: the 8 bytes, big-endian, that precede ``n`` bytes of
a field in a row's digest (the one framing; :func:`frame`)."""


def frame(data: bytes) -> bytes:
    """``data`` as a row's digest hashes it: its length as 8 bytes, big-endian
    (:data:`length_prefix`), then ``data`` itself."""
    return length_prefix(len(data)) + data


def content_digest(values: Sequence, namespace: str = "") -> str:
    """:meth:`LedgerRow.digest` of a row's first ten field ``values`` (in
    :data:`COLUMNS` order, up to ``tzdata_version``) and its ``namespace``:
    hex SHA-256 over each value (bytes as they are, text UTF-8, integers in
    decimal) passed through :func:`frame`, then the framed ``namespace``
    when it is non-empty."""
    data = [value if isinstance(value, bytes) else str(value).encode() for value in values]
    if namespace:
        data.append(namespace.encode())
    return sha256_hex(b"".join(map(frame, data)))


@dataclass(frozen=True, init=False)
class LedgerRow:
    """One recorded call. Build it with :meth:`create`, which fills the digests.

    - ``record_id``: unique id (see :func:`duetime.ledger.record_ids.new_record_id`).
    - ``method``: full gRPC method, e.g. ``/duetime.v1.DueTimeService/ComputeDueTime``.
    - ``receive_time_us``: when the call was received, µs since the Unix epoch (UTC).
    - ``idempotency_key``: client key, ``""`` when none; when non-empty, unique
      within its ``namespace``.
    - ``request_hash``: hex SHA-256 of ``request``.
    - ``request`` / ``response``: canonical (deterministic) protobuf bytes.
    - ``calendar_version``, ``rules_version``, ``tzdata_version``: versions used.
    - ``content_sha256``: hex SHA-256 over the content (see :meth:`digest`).
    - ``namespace``: the caller's namespace scoping ``idempotency_key``; ``""``
      by default (and for every row written before schema version 2). Last, so
      that rows built positionally without it keep working.
    """

    record_id: str
    method: str
    receive_time_us: int
    idempotency_key: str
    request_hash: str
    request: bytes
    response: bytes
    calendar_version: str
    rules_version: str
    tzdata_version: str
    content_sha256: str
    namespace: str = ""

    def __init__(self, record_id: str, method: str, receive_time_us: int, idempotency_key: str,
                 request_hash: str, request: bytes, response: bytes, calendar_version: str,
                 rules_version: str, tzdata_version: str, content_sha256: str,
                 namespace: str = ""):
        # What the generated frozen __init__ does (each field set once, no
        # checks), without a guarded object.__setattr__ per field: rows are
        # built by the thousand (every listed or batched record).
        self.__dict__.update(
            record_id=record_id, method=method, receive_time_us=receive_time_us,
            idempotency_key=idempotency_key, request_hash=request_hash, request=request,
            response=response, calendar_version=calendar_version, rules_version=rules_version,
            tzdata_version=tzdata_version, content_sha256=content_sha256, namespace=namespace)

    @classmethod
    def create(
        cls,
        *,
        record_id: str,
        method: str,
        receive_time_us: int,
        idempotency_key: str,
        request: bytes,
        response: bytes,
        calendar_version: str,
        rules_version: str,
        tzdata_version: str,
        namespace: str = "",
    ) -> LedgerRow:
        """Return a row with ``request_hash`` and ``content_sha256`` computed
        (see :class:`RowBuilder` for many rows of one call)."""
        values = (record_id, method, receive_time_us, idempotency_key, sha256_hex(request),
                  request, response, calendar_version, rules_version, tzdata_version)
        return cls(*values, content_digest(values, namespace), namespace)

    def values(self) -> tuple:
        """The fields in order (what ``dataclasses.astuple`` gives, without its
        deep copies: every field is an immutable str, int or bytes)."""
        return row_values(self)

    def digest(self) -> str:
        """Hex SHA-256 of the row's content, deterministic across versions.

        Hashed, each as an 8-byte big-endian length and the bytes (text UTF-8,
        integers in decimal; see :func:`frame`): ``record_id``, ``method``,
        ``receive_time_us``, ``idempotency_key``, ``request_hash``,
        ``request``, ``response``, ``calendar_version``, ``rules_version``,
        ``tzdata_version`` and then — only when it is non-empty —
        ``namespace``. A row in the default namespace therefore hashes exactly
        as in schema version 1 (its stored digests stay valid after the
        migration), and the length prefixes keep every namespaced row distinct
        from every un-namespaced one. Equal to ``content_sha256`` for an
        intact row.
        """
        return content_digest(self.values()[:10], self.namespace)


COLUMNS = tuple(f.name for f in fields(LedgerRow))
"""Column names, in :class:`LedgerRow` field order (rows are built positionally)."""
row_values = attrgetter(*COLUMNS)
"""``row_values(row)``: the row's field values as a tuple, in :data:`COLUMNS` order."""

_TEXT_FIELDS = ("record_id", "method", "idempotency_key", "calendar_version",
               "rules_version", "tzdata_version", "namespace")
"""The text fields a caller chooses (the digests are computed hex)."""
_text_values = attrgetter(*_TEXT_FIELDS)


_sha256 = hashlib.sha256
_FRAMED_HASH_LENGTH = length_prefix(64)
"""The prefix of a hex SHA-256 (``request_hash``: 64 characters)."""


class RowBuilder:
    """Rows of one recorded call's answers (a batch): the same ``method``,
    ``receive_time_us`` and ``namespace`` for all, and usually the same
    versions. :meth:`row` equals :meth:`LedgerRow.create` with those fields;
    the parts that repeat are framed for the digest once, not per row."""

    MAX_CACHED_VERSIONS = 64
    """Most distinct (calendar, rules, tzdata) version triples kept framed."""

    def __init__(self, method: str, receive_time_us: int, namespace: str = ""):
        self.method = method
        self.receive_time_us = receive_time_us
        self.namespace = namespace
        self._framed_head = frame(method.encode()) + frame(str(receive_time_us).encode())
        self._framed_tail = frame(namespace.encode()) if namespace else b""
        self._framed_versions: dict[tuple[str, str, str], bytes] = {}

    def row(self, record_id: str, idempotency_key: str, request: bytes, response: bytes,
            calendar_version: str, rules_version: str, tzdata_version: str) -> LedgerRow:
        """The row :meth:`LedgerRow.create` would build from these fields and
        the builder's ``method``, ``receive_time_us`` and ``namespace``."""
        request_hash = _sha256(request).hexdigest()  # sha256_hex, one call less per row
        triple = (calendar_version, rules_version, tzdata_version)
        versions = self._framed_versions.get(triple)
        if versions is None:
            versions = b"".join(frame(version.encode()) for version in triple)
            if len(self._framed_versions) < self.MAX_CACHED_VERSIONS:
                self._framed_versions[triple] = versions
        # frame() of each field, written out: this runs once per recorded
        # answer, and joining the prefixes and the fields in one pass copies a
        # request and a response once, not twice
        rid, key = record_id.encode(), idempotency_key.encode()
        digest = _sha256(b"".join((
            length_prefix(len(rid)), rid, self._framed_head, length_prefix(len(key)), key,
            _FRAMED_HASH_LENGTH, request_hash.encode(), length_prefix(len(request)), request,
            length_prefix(len(response)), response, versions, self._framed_tail,
        ))).hexdigest()
        return LedgerRow(record_id, self.method, self.receive_time_us, idempotency_key,
                         request_hash, request, response, calendar_version, rules_version,
                         tzdata_version, digest, self.namespace)


def row_problems(row: LedgerRow) -> list[str]:
    """What is wrong with a stored row, one sentence each (``[]``: nothing):
    wrong types, empty request or response, a ``request_hash`` or
    ``content_sha256`` that does not match the content."""
    label = f"record {row.record_id!r}"
    types = [(name, str) for name in _TEXT_FIELDS + ("request_hash", "content_sha256")]
    types += [("receive_time_us", int), ("request", bytes), ("response", bytes)]
    wrong = [name for name, kind in types if not isinstance(getattr(row, name), kind)]
    if wrong:
        return [f"{label}: does not parse: {', '.join(wrong)} of the wrong type"]
    problems = []
    if not row.request:
        problems.append(f"{label}: request is empty")
    if not row.response:
        problems.append(f"{label}: response is empty")
    if row.request_hash != sha256_hex(row.request):
        problems.append(f"{label}: request_hash does not match request")
    if row.content_sha256 != row.digest():
        problems.append(f"{label}: content_sha256 does not match its content")
    return problems


def check_rows(rows: Iterable[LedgerRow]) -> list[LedgerRow]:
    """``rows`` as a list, or ValueError if two share a record id or a text
    field holds a NUL character (PostgreSQL text cannot store one, so no store
    accepts it)."""
    rows = list(rows)
    ids = {row.record_id for row in rows}
    if len(ids) != len(rows):
        raise ValueError("a batch holds two rows with the same record_id")
    for row in rows:
        texts = _text_values(row)
        if "\x00" in "".join(texts):
            name = next(name for name, text in zip(_TEXT_FIELDS, texts) if "\x00" in text)
            raise ValueError(f"record {row.record_id!r}: {name} contains a NUL character")
    return rows
