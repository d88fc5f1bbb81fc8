"""Record ids: UUID version 7 (RFC 9562 §5.7) as 32 lower-case hex digits.

One generator, :func:`new_record_ids`; :func:`new_record_id` is a batch of
one. The random bytes come from a pool refilled by one ``os.urandom`` call per
400 ids (a system call made while holding the GIL costs every other thread
when the machine is busy); a batch of more than 200 ids draws its own bytes
with one call.
"""

from __future__ import annotations

import os
import threading
import time

_RANDOM_BYTES = 10
"""Bytes drawn per id: its last 10 bytes (80 bits, 74 of them kept random)."""
_POOL_BYTES = 400 * _RANDOM_BYTES
"""Bytes of one refill of the pool: 400 ids."""
_MILLIS_MASK = (1 << 48) - 1

_random_pool = bytearray()
_pool_lock = threading.Lock()
# A forked child must not draw the bytes its parent drew too.
os.register_at_fork(after_in_child=_random_pool.clear)

# RFC 9562: the high nibble of byte 6 is the version (0111 for 7), the two high
# bits of byte 8 are the variant (10).
_UUID7_VERSION = bytes((b & 0x0F) | 0x70 for b in range(256))
_UUID_VARIANT = bytes((b & 0x3F) | 0x80 for b in range(256))


def _random_bytes(size: int) -> bytes:
    """``size`` random bytes: from the pool when it can hold them (refilled
    when it runs short), else from one ``os.urandom`` call of their own."""
    if size > _POOL_BYTES // 2:
        return os.urandom(size)
    with _pool_lock:
        if len(_random_pool) < size:
            _random_pool.extend(os.urandom(_POOL_BYTES))
        drawn = bytes(_random_pool[-size:])
        del _random_pool[-size:]
    return drawn


def new_record_ids(count: int) -> list[str]:
    """``count`` fresh record ids (``[]`` for 0), each 32 lower-case hex
    digits: a UUID version 7 (RFC 9562 §5.7), the current Unix time in
    milliseconds in its first 48 bits, then the version nibble 7, 12 random
    bits, the variant bits 10 and 62 random bits.

    Time-ordered on purpose: new ids land at the right edge of the ledger's
    record-id index, where fully random ids (UUID4) touched a different index
    page for nearly every row, which made each commit write and checkpoint
    most of the index again (SQLite: 4–5× the CPU per row at 100,000 records,
    growing with the ledger). 74 random bits keep ids unguessable and unique.
    """
    millis = f"{time.time_ns() // 1_000_000 & _MILLIS_MASK:012x}"  # bytes 0–5, shared
    tails = bytearray(_random_bytes(_RANDOM_BYTES * count))  # bytes 6–15 of each id
    tails[0::_RANDOM_BYTES] = tails[0::_RANDOM_BYTES].translate(_UUID7_VERSION)  # byte 6
    tails[2::_RANDOM_BYTES] = tails[2::_RANDOM_BYTES].translate(_UUID_VARIANT)  # byte 8
    text = tails.hex()
    digits = 2 * _RANDOM_BYTES
    return [millis + text[i:i + digits] for i in range(0, digits * count, digits)]


def new_record_id() -> str:
    """One fresh record id: :func:`new_record_ids` of one."""
    return new_record_ids(1)[0]
