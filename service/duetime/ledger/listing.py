"""Listing the ledger: which rows a listing covers (:class:`RecordFilter`),
where it resumes (:data:`Position`), page sizes and the opaque page tokens
that carry a position from one page to the next (:class:`PageTokens`).

A page token is URL-safe base64 (no padding) of :data:`PAGE_TOKEN_VERSION`
(one byte), the position (receive time: 8 bytes, signed big-endian; record
id: one length byte and its UTF-8 bytes), a tag of the listing's filters
(8 bytes of an HMAC-SHA-256 of them) and an HMAC-SHA-256 of all that (16
bytes), both keyed with the ledger's own secret (made by the first process
that opens the store, and kept in it, so every process reading the same
ledger accepts the tokens of every other). A token is therefore
bounded (at most :data:`MAX_PAGE_TOKEN` characters), cannot be forged or
altered, and continues only the listing that issued it: the same ledger and
the same filters (namespace, key prefix, time range).
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import hmac
import json
import re
import secrets
from dataclasses import dataclass

from duetime.ledger.rows import sha256_hex

DEFAULT_PAGE_SIZE = 100
"""Rows in a page when the caller asks for 0."""
MAX_PAGE_SIZE = 1000
"""Most rows in one page; a larger ``page_size`` means this."""


@dataclass(frozen=True)
class RecordFilter:
    """Which rows a listing covers: ``since_us <= receive_time_us < until_us``
    (either bound optional, µs since the Unix epoch), ``idempotency_key``
    starting with ``key_prefix`` (``""``: any key, none included) and, unless
    None, this ``namespace``."""

    since_us: int | None = None
    until_us: int | None = None
    key_prefix: str = ""
    namespace: str | None = None

    def fingerprint(self) -> str:
        """16 hex digits identifying these filters."""
        return sha256_hex(_filter_bytes(self))[:16]


@dataclass(frozen=True)
class Concern:
    """Which rows a calendar or tz database change may concern (an impact
    analysis reads only these): a ``calendar_version`` holding any of
    ``calendar_texts`` (``"name@version"`` texts, found anywhere in it), or,
    unless ``other_than_tzdata`` is None, a ``tzdata_version`` other than
    it. A superset of the rows concerned: the reader checks each row's
    versions exactly. With neither, no row."""

    calendar_texts: tuple[str, ...] = ()
    other_than_tzdata: str | None = None

    def matches(self, calendar_version: str, tzdata_version: str) -> bool:
        """Whether a row with these versions is one of these rows."""
        if self.other_than_tzdata is not None and tzdata_version != self.other_than_tzdata:
            return True
        return any(text in calendar_version for text in self.calendar_texts)

    @property
    def empty(self) -> bool:
        """True when no row can match."""
        return not self.calendar_texts and self.other_than_tzdata is None


Position = tuple[int, str]
"""A place in listing order: (receive_time_us, record_id) of the last row seen."""

PAGE_TOKEN_VERSION = 2
"""First byte of every page token this code issues (1 was a JSON array, unsigned)."""
PAGE_TOKEN_SECRET_BYTES = 32
"""Length of a ledger's page token secret (:func:`new_page_token_secret`)."""
_FILTER_TAG_BYTES = 8
_MAC_BYTES = 16
_MAX_ID_BYTES = 255
MAX_PAGE_TOKEN = 4 * (1 + 8 + 1 + _MAX_ID_BYTES + _FILTER_TAG_BYTES + _MAC_BYTES + 2) // 3
"""Longest page token, in characters; a longer one is refused unread."""
_BASE64URL = re.compile(r"[A-Za-z0-9_-]+")
_INT64 = (-(2**63), 2**63 - 1)

NOT_A_TOKEN = ("is not a page token returned by a record listing of this ledger (altered, "
               "cut short or issued elsewhere); start again without a page token")
"""Why a page token that does not verify is refused."""
OTHER_FILTERS = ("was returned by a listing with other filters; pass the same time range, key "
                 "prefix and namespace as the first page, or start again without a page token")
"""Why a genuine page token of a listing with other filters is refused."""


def _filter_bytes(flt: RecordFilter) -> bytes:
    """The filters of ``flt``, every field in order, as unambiguous bytes
    (JSON, ASCII only; sets as sorted lists)."""
    values = [type(flt).__name__, *(getattr(flt, f.name) for f in dataclasses.fields(flt))]
    return json.dumps(values, default=sorted, separators=(",", ":")).encode()


def new_page_token_secret() -> bytes:
    """A fresh random secret for :class:`PageTokens` (:data:`PAGE_TOKEN_SECRET_BYTES` bytes)."""
    return secrets.token_bytes(PAGE_TOKEN_SECRET_BYTES)


class PageTokens:
    """Issues (:meth:`encode`) and checks (:meth:`decode`) the page tokens
    of one ledger, keyed by its ``secret`` (bytes, at least 16). Immutable
    and thread-safe."""

    __slots__ = ("_secret",)

    def __init__(self, secret: bytes):
        if len(secret) < 16:
            raise ValueError("a page token secret needs at least 16 bytes")
        self._secret = bytes(secret)

    def _mac(self, purpose: bytes, data: bytes, size: int) -> bytes:
        return hmac.new(self._secret, purpose + b"\0" + data, hashlib.sha256).digest()[:size]

    def _filter_tag(self, flt: RecordFilter) -> bytes:
        return self._mac(b"duetime page filter", _filter_bytes(flt), _FILTER_TAG_BYTES)

    def encode(self, flt: RecordFilter, after: Position) -> str:
        """An opaque token resuming ``flt``'s listing after ``after``
        (receive time within int64, record id of at most 255 UTF-8 bytes,
        else ValueError: no row holds such a position)."""
        time_us, record_id = after
        rid = record_id.encode()
        if not _INT64[0] <= time_us <= _INT64[1] or len(rid) > _MAX_ID_BYTES:
            raise ValueError(f"position {after!r} cannot be written into a page token")
        body = (bytes([PAGE_TOKEN_VERSION]) + time_us.to_bytes(8, "big", signed=True)
                + bytes([len(rid)]) + rid + self._filter_tag(flt))
        raw = body + self._mac(b"duetime page token", body, _MAC_BYTES)
        return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()

    def decode(self, flt: RecordFilter, token: str) -> Position:
        """The position in ``token``. Raises ValueError (its text: why, as a
        description of the ``page_token`` field) if ``token`` is not one this
        ledger issued, unaltered (:data:`NOT_A_TOKEN`), or was issued for a
        listing with other filters (:data:`OTHER_FILTERS`)."""
        raw = self._raw(token)
        if raw is None or len(raw) < 10 or raw[0] != PAGE_TOKEN_VERSION \
                or len(raw) != 10 + raw[9] + _FILTER_TAG_BYTES + _MAC_BYTES:
            raise ValueError(NOT_A_TOKEN)
        body, mac = raw[:-_MAC_BYTES], raw[-_MAC_BYTES:]
        if not hmac.compare_digest(mac, self._mac(b"duetime page token", body, _MAC_BYTES)):
            raise ValueError(NOT_A_TOKEN)
        if not hmac.compare_digest(body[-_FILTER_TAG_BYTES:], self._filter_tag(flt)):
            raise ValueError(OTHER_FILTERS)
        time_us = int.from_bytes(body[1:9], "big", signed=True)
        try:
            record_id = body[10:-_FILTER_TAG_BYTES].decode()
        except UnicodeDecodeError:  # only a token made with this secret gets here
            raise ValueError(NOT_A_TOKEN) from None
        return time_us, record_id

    @staticmethod
    def _raw(token: str) -> bytes | None:
        """The bytes of a canonical unpadded URL-safe base64 ``token`` of at
        most :data:`MAX_PAGE_TOKEN` characters, else None."""
        if len(token) > MAX_PAGE_TOKEN or not _BASE64URL.fullmatch(token) or len(token) % 4 == 1:
            return None
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        if base64.urlsafe_b64encode(raw).rstrip(b"=").decode() != token:
            return None  # other bits in the last character: not a token we wrote
        return raw
