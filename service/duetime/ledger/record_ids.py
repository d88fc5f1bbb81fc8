"""Record ids: UUID version 7 (RFC 9562 §5.7) as 32 lower-case hex digits.

One generator, :func:`new_record_ids`; :func:`new_record_id` is a batch of
one. The random bytes come from a pool refilled by one ``os.urandom`` call per
:data:`POOL_IDS` ids (a system call made while holding the GIL costs every
other thread when the machine is busy); a batch too large for the pool draws
its own bytes with one call.
"""

from __future__ import annotations

import os
import threading
import time

ID_BYTES = 16
"""Bytes of one record id (32 hex digits)."""
POOL_IDS = 400
"""Ids drawn from one refill of the pool of random bytes."""
_POOL_BYTES = POOL_IDS * ID_BYTES

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
    raw = bytearray(_random_bytes(ID_BYTES * count))
    millis = (time.time_ns() // 1_000_000).to_bytes(6, "big")
    for position, byte in enumerate(millis):
        raw[position::ID_BYTES] = bytes((byte,)) * count
    raw[6::ID_BYTES] = raw[6::ID_BYTES].translate(_UUID7_VERSION)
    raw[8::ID_BYTES] = raw[8::ID_BYTES].translate(_UUID_VARIANT)
    text = raw.hex()
    digits = 2 * ID_BYTES
    return [text[i:i + digits] for i in range(0, digits * count, digits)]


def new_record_id() -> str:
    """One fresh record id: :func:`new_record_ids` of one."""
    return new_record_ids(1)[0]
