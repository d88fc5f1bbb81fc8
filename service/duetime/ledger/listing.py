"""Listing the ledger: which rows a listing covers (:class:`RecordFilter`),
where it resumes (:data:`Position`), page sizes and the opaque page tokens
that carry a position from one page to the next.

A page token is URL-safe base64 (no padding) of the JSON array
``[1, receive_time_us, record_id, filter fingerprint]``; the fingerprint ties
it to the filters of the listing that issued it.
"""

from __future__ import annotations

import base64
import json
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
        """16 hex digits identifying these filters (a page token carries them)."""
        blob = json.dumps([self.since_us, self.until_us, self.key_prefix, self.namespace])
        return sha256_hex(blob.encode())[:16]


Position = tuple[int, str]
"""A place in listing order: (receive_time_us, record_id) of the last row seen."""


def encode_page_token(flt: RecordFilter, after: Position) -> str:
    """An opaque token resuming ``flt``'s listing after ``after``."""
    payload = json.dumps([1, after[0], after[1], flt.fingerprint()], separators=(",", ":"))
    return base64.urlsafe_b64encode(payload.encode()).rstrip(b"=").decode()


def decode_page_token(flt: RecordFilter, token: str) -> Position:
    """The position in ``token``. Raises ValueError if it is not a token from a
    listing, or is one from a listing with other filters."""
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        version, time_us, record_id, fingerprint = json.loads(raw)
        if version != 1 or type(time_us) is not int or not isinstance(record_id, str) \
                or not isinstance(fingerprint, str):
            raise ValueError
    except (ValueError, TypeError, UnicodeDecodeError):
        raise ValueError(f"page_token {token[:40]!r} is not a page token returned by a "
                         "record listing") from None
    if fingerprint != flt.fingerprint():
        raise ValueError("page_token was returned by a listing with other filters; pass "
                         "the same time range, key prefix and namespace as the first page")
    return time_us, record_id
