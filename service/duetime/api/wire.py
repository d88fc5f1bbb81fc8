"""What parsing a protobuf request message may take, in bytes of memory,
counted from its wire bytes before it is parsed (docs/operations.md,
"Memory").

Parsed, a message takes more memory than its bytes: each sub-message is a
struct of its own (about 100 bytes for a ``ComputeDueTimeRequest``), so a
16 MiB ``BatchComputeDueTimesRequest`` of 8 million empty ``items`` (two
bytes each) would take some 800 MiB. The gRPC face counts what parsing a
message may take in the request bytes in flight
(:meth:`duetime.api.admission.InFlightBytes.take_message`) in two steps:

1. :func:`cheap_bound`: :data:`PARSING_BYTES_PER_BYTE` a byte, the most any
   request message of this API can take a byte (an empty sub-message in a
   list: two bytes); no work but a multiplication. Ordinary messages are
   counted this way.
2. :func:`parsing_bytes`, when the cheap bound does not fit: the message's
   wire format is walked (without parsing it) and each sub-message, string
   and list element counted at what it may take. The walk stops as soon as
   the count passes the bytes that could be let in, or after
   :data:`MAX_COUNTED_VALUES` values (:class:`TooManyValues`), so it costs at
   most about 0.3 s of CPU whatever the message (0.05 s for one of long
   varints, each byte past the third counting as a value).

Pure: no I/O, no state beyond a cache of each message type's counting plan
(built once per type, identical in every thread).
"""

from __future__ import annotations

from google.protobuf.descriptor import Descriptor, FieldDescriptor

from duetime.app.limits import MAX_BATCH_CALENDAR_WEIGHT
from duetime.v1 import duetime_pb2 as pb

MESSAGE_BYTES = 64
"""Bytes counted for each parsed message, beside :data:`FIELD_BYTES` per
field of its type (measured: about 104 bytes for an empty
``ComputeDueTimeRequest`` of 8 fields, 56 for a ``Holiday``)."""
FIELD_BYTES = 16
"""Bytes counted for each field a message type declares (see :func:`message_bytes`)."""
VALUE_BYTES = 16
"""Bytes counted for each scalar list element (a number, a day of the week),
and for each byte of a packed list (an element may be one byte): 8 for the
element, twice over, since a list grows by doubling and keeps what it
outgrew until the message is dropped (measured: a packed list of 2**20 + 1
days takes 16.8 MB)."""
STRING_BYTES = 64
"""Bytes counted for each string or bytes value beside its text: its
16-byte view in the message, twice over as for :data:`VALUE_BYTES`, and
as much again for what Python makes of it when a list of them is read
(measured: 2**20 + 1 empty strings in a list take 67 MB)."""
TEXT_BYTES = 8
"""Bytes counted for each byte of a string or bytes value (unknown fields
alike): its copy in the message and the Python string made of it (up to 4
bytes a character, and its UTF-8)."""
_PACKED = "packed"
"""A plan's mark for a repeated scalar field (its values may come packed)."""
MAX_COUNTED_VALUES = 150_000
"""The most values (fields, list elements, sub-messages) :func:`parsing_bytes`
counts in one message by default; a message holding more is refused
(:class:`TooManyValues`). The costliest requests within the default limits
hold about 110,000 (a batch of 1,000 items whose calendars have 96 working
hours intervals each: 2.2 MB). A server whose ``--max-batch-calendar-weight``
is raised counts more (:func:`max_values`). Each byte of a varint past its
third counts as one more value: a message of long varints (10 bytes each,
as a padded number may be) costs at most what one of short ones does."""


def max_values(max_batch_calendar_weight: int, most: int = MAX_COUNTED_VALUES) -> int:
    """The most values counted in one message of a server letting in
    ``max_batch_calendar_weight`` of distinct inline calendars a message:
    ``most`` (:data:`MAX_COUNTED_VALUES`) at the default weight (6,000) or
    less, and in proportion above it (each unit of weight, a calendar's
    entry, is a few values: an operator who lets in heavier messages lets
    their values be counted too)."""
    return max(most, most * max_batch_calendar_weight // MAX_BATCH_CALENDAR_WEIGHT)


SAME_FROM = 128
"""Sub-messages of this many bytes or more are remembered by their bytes
while one message is counted (:func:`parsing_bytes`), so that a repeated
one is not walked again."""
MAX_REMEMBERED = 4096
"""The most sub-messages :func:`parsing_bytes` remembers in one message (the
first ones walked; a batch's shared calendar is among them), so that what
it remembers stays within about 1.5 MB (a message of 99,000 distinct
items held 37 MB of them)."""
LONG_VARINT = 3
"""Bytes of a varint counted as one value; each byte past these counts as
one more (:data:`MAX_COUNTED_VALUES`)."""


class TooManyValues(Exception):
    """A message holding more than :data:`MAX_COUNTED_VALUES` values."""


def message_bytes(descriptor: Descriptor) -> int:
    """What one parsed message of type ``descriptor`` may take without its
    strings and lists, bytes: :data:`MESSAGE_BYTES` plus :data:`FIELD_BYTES`
    per declared field."""
    return MESSAGE_BYTES + FIELD_BYTES * len(descriptor.fields)


def _request_types() -> list[Descriptor]:
    """Every message type a request of duetime.v1 may hold, the requests included."""
    seen: dict[str, Descriptor] = {}
    pending = [m.input_type for s in pb.DESCRIPTOR.services_by_name.values() for m in s.methods]
    while pending:
        descriptor = pending.pop()
        if descriptor.full_name not in seen:
            seen[descriptor.full_name] = descriptor
            pending.extend(f.message_type for f in descriptor.fields
                           if f.type == FieldDescriptor.TYPE_MESSAGE)
    return list(seen.values())


PARSING_BYTES_PER_BYTE = 1 + max(
    message_bytes(f.message_type) // 2 for d in _request_types() for f in d.fields
    if f.type == FieldDescriptor.TYPE_MESSAGE and f.is_repeated)
"""The most memory one byte of a request message may take once received
and parsed, bytes: the byte itself, plus the largest of the API's list
element types (:func:`message_bytes`) encoded empty in two bytes (97:
``ComputeDueTimeRequest`` items of a batch or stream). Measured: 52 bytes a
byte for such a list, 28 to 32 for empty holidays or week periods, 1.4 to
3.7 for the costliest requests of bench/cost.py."""


def cheap_bound(size: int) -> int:
    """What a request message of ``size`` bytes may take received and
    parsed, at most, bytes: ``size`` × :data:`PARSING_BYTES_PER_BYTE`."""
    return size * PARSING_BYTES_PER_BYTE


_plans: dict[str, dict[int, object]] = {}


def _plan(descriptor: Descriptor) -> dict[int, object]:
    """Field number → how a length-delimited value of that field is counted:
    the sub-message's descriptor (walked), an int ``-n`` for a sub-message
    type without lists or sub-messages (counted ``n`` plus its length,
    not walked), :data:`_PACKED` (a packed list of scalars), or None (a
    string or bytes)."""
    plan = _plans.get(descriptor.full_name)
    if plan is None:
        plan = {}
        for f in descriptor.fields:
            child = f.message_type if f.type == FieldDescriptor.TYPE_MESSAGE else None
            if child is not None and all(g.type != FieldDescriptor.TYPE_MESSAGE and not g.is_repeated
                                         for g in child.fields):
                plan[f.number] = -message_bytes(child)
            elif child is None and f.is_repeated and f.type not in (
                    FieldDescriptor.TYPE_STRING, FieldDescriptor.TYPE_BYTES):
                plan[f.number] = _PACKED
            else:
                plan[f.number] = child
        _plans[descriptor.full_name] = plan  # one assignment: atomic; the same in every thread
    return plan


def _long_varint(data: bytes, i: int, end: int, first: int) -> tuple[int, int] | None:
    """The varint whose first byte ``first`` (0x80 or more) came before
    ``data[i]``, and the index past it; None when it runs past ``end`` or
    past 64 bits (malformed: parsing the message fails)."""
    value, shift = first & 0x7F, 7
    while i < end and shift <= 63:
        b = data[i]
        i += 1
        value |= (b & 0x7F) << shift
        if b < 0x80:
            return value, i
        shift += 7
    return None


def parsing_bytes(data: bytes, descriptor: Descriptor, limit: int,
                  most_values: int = MAX_COUNTED_VALUES) -> int:
    """What parsing ``data`` as a message of type ``descriptor`` may take,
    bytes, not counting ``data`` itself: :func:`message_bytes` for each
    message (a sub-message without lists or sub-messages: that plus its
    length, not walked), :data:`STRING_BYTES` plus :data:`TEXT_BYTES` a
    byte for each string or bytes value (unknown fields alike),
    :data:`VALUE_BYTES` a byte of a packed list, and :data:`VALUE_BYTES`
    for each other scalar. Returns a count above
    ``limit`` as soon as there is one. Malformed data is counted up to where
    it stops making sense (its parsing then fails at once). Raises
    :class:`TooManyValues` past ``most_values`` values walked. A sub-message
    of :data:`SAME_FROM` bytes or more whose bytes came before in ``data`` (a
    batch's items repeating one inline calendar) is counted again without
    being walked again: its values count once."""
    cost = message_bytes(descriptor)
    plan = _plan(descriptor)
    stack: list[tuple[int, dict[int, object], object, int]] = []
    seen: dict[tuple[str, memoryview], int] = {}  # (type, bytes) → what it counted
    view = memoryview(data)
    end = len(data)
    i = 0
    values = most_values
    while True:
        while i < end:
            values -= 1
            if values < 0:
                raise TooManyValues
            tag = data[i]
            i += 1
            if tag >= 0x80:
                got = _long_varint(data, i, end, tag)
                if got is None:
                    return cost
                values -= max(0, got[1] - i + 1 - LONG_VARINT)
                tag, i = got
            wire_type = tag & 7
            if wire_type == 2:
                if i >= end:
                    return cost
                n = data[i]
                i += 1
                if n >= 0x80:
                    got = _long_varint(data, i, end, n)
                    if got is None:
                        return cost
                    values -= max(0, got[1] - i + 1 - LONG_VARINT)
                    n, i = got
                if i + n > end:
                    return cost
                child = plan.get(tag >> 3)
                if child is None:  # a string or bytes (or an unknown field)
                    cost += STRING_BYTES + TEXT_BYTES * n
                elif child is _PACKED:
                    cost += VALUE_BYTES * n
                elif child.__class__ is int:
                    cost += n - child  # a flat sub-message: its struct and its bytes
                else:
                    cost += message_bytes(child)  # type: ignore[arg-type]
                    if n:
                        if cost > limit:
                            return cost
                        key = None
                        if n >= SAME_FROM:
                            key = (child.full_name, view[i:i + n])  # type: ignore[union-attr]
                            counted = seen.get(key)
                            if counted is not None:
                                cost += counted
                                i += n
                                if cost > limit:
                                    return cost
                                continue
                        stack.append((end, plan, key, cost))
                        end = i + n
                        plan = _plan(child)  # type: ignore[arg-type]
                        continue
                if cost > limit:
                    return cost
                i += n
            elif wire_type == 0:
                if i >= end:
                    return cost
                b = data[i]
                i += 1
                if b >= 0x80:
                    got = _long_varint(data, i, end, b)  # at most 10 bytes
                    if got is None:
                        return cost
                    values -= max(0, got[1] - i + 1 - LONG_VARINT)
                    i = got[1]
                cost += VALUE_BYTES
            elif wire_type == 1:
                i += 8
                cost += VALUE_BYTES
            elif wire_type == 5:
                i += 4
                cost += VALUE_BYTES
            elif wire_type == 3 or wire_type == 4:
                # a group's start or end (no field of this API is one): parsing
                # keeps it as an unknown field and goes on, so what it holds is
                # counted as this message's fields, and so is what follows it
                cost += VALUE_BYTES
            else:  # invalid wire types: parsing fails
                return cost
        if not stack or cost > limit:
            return cost
        i = end
        end, plan, key, before = stack.pop()
        if key is not None and len(seen) < MAX_REMEMBERED:
            seen[key] = cost - before
