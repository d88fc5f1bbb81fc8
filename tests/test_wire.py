"""What parsing a protobuf request may take, counted before it is parsed
(duetime.api.wire; docs/operations.md, "Memory"): exact counts of small
messages, the counts held above what parsing measurably takes for the
densest shapes of the API's requests (each measured in a process of its
own), the bound on the values a message may hold, and the in-flight count
of a message with a tenant's share (duetime.api.admission)."""

from __future__ import annotations

import json
import subprocess
import sys
import tracemalloc

import pytest

from duetime.api.admission import (
    InFlightBytes,
    InFlightBytesExhausted,
    TooCostlyToRead,
    tenant_share,
)
import duetime.api.wire as wire
from duetime.api.callers import Caller
from duetime.api.wire import (
    MAX_COUNTED_VALUES,
    MAX_REMEMBERED,
    MESSAGE_BYTES,
    PARSING_BYTES_PER_BYTE,
    STRING_BYTES,
    TEXT_BYTES,
    VALUE_BYTES,
    TooManyValues,
    cheap_bound,
    max_values,
    message_bytes,
    parsing_bytes,
)
from duetime.v1 import duetime_pb2 as pb

BATCH = pb.BatchComputeDueTimesRequest.DESCRIPTOR
DUE = pb.ComputeDueTimeRequest.DESCRIPTOR
NO_LIMIT = 1 << 62
MiB = 1 << 20


def test_a_message_type_counts_its_struct_and_its_fields():
    assert message_bytes(DUE) == MESSAGE_BYTES + 16 * len(DUE.fields) == 64 + 16 * 8 == 192
    assert message_bytes(pb.Holiday.DESCRIPTOR) == 64 + 16 * len(pb.Holiday.DESCRIPTOR.fields)
    # the largest list element type of any request (batch items), empty in two bytes
    assert PARSING_BYTES_PER_BYTE == 1 + 192 // 2 == 97
    assert cheap_bound(58) == 58 * 97


def test_exact_counts_of_small_messages():
    # three empty items
    assert parsing_bytes(b"\x0a\x00" * 3, BATCH, NO_LIMIT) == message_bytes(BATCH) + 3 * 192
    # one item with a duration string "3bd" and an empty calendar
    item = b"\x12\x033bd" + b"\x1a\x00"
    data = b"\x0a" + bytes([len(item)]) + item
    assert parsing_bytes(data, BATCH, NO_LIMIT) == (
        message_bytes(BATCH) + 192 + (STRING_BYTES + 3 * TEXT_BYTES)
        + message_bytes(pb.Calendar.DESCRIPTOR))
    # a holiday (no lists, no sub-messages) is counted from its length, not walked
    holiday = pb.Holiday(date="2026-12-25", name="Christmas").SerializeToString()
    calendar = pb.Calendar(holidays=[pb.Holiday(date="2026-12-25", name="Christmas")])
    request = pb.ComputeDueTimeRequest(calendar=calendar, explain=True)
    assert parsing_bytes(request.SerializeToString(), DUE, NO_LIMIT) == (
        192 + message_bytes(pb.Calendar.DESCRIPTOR) + message_bytes(pb.Holiday.DESCRIPTOR)
        + len(holiday) + VALUE_BYTES)
    # unknown fields: a varint, a string
    assert parsing_bytes(b"\x78\x05" + b"\x7a\x02ab", DUE, NO_LIMIT) == (
        192 + VALUE_BYTES + STRING_BYTES + 2 * TEXT_BYTES)
    # tags and lengths of more than one byte: unknown field 16 (a varint of 300),
    # field 2 (duration) of 200 characters
    assert parsing_bytes(b"\x80\x01\xac\x02" + b"\x12\xc8\x01" + b"x" * 200, DUE, NO_LIMIT) == (
        192 + VALUE_BYTES + STRING_BYTES + 200 * TEXT_BYTES)


def test_counting_stops_past_the_limit_and_at_the_most_values():
    dense = b"\x0a\x00" * 1_000_000
    assert parsing_bytes(dense, BATCH, 10_000) == message_bytes(BATCH) + 52 * 192  # first past 10,000
    with pytest.raises(TooManyValues):
        parsing_bytes(dense, BATCH, NO_LIMIT)
    assert MAX_COUNTED_VALUES == 150_000
    fits = b"\x0a\x00" * MAX_COUNTED_VALUES
    assert parsing_bytes(fits, BATCH, NO_LIMIT) == message_bytes(BATCH) + MAX_COUNTED_VALUES * 192
    with pytest.raises(TooManyValues):
        parsing_bytes(fits + b"\x0a\x00", BATCH, NO_LIMIT)


def test_a_server_letting_heavier_batches_in_counts_more_values():
    assert (max_values(1_000), max_values(6_000), max_values(12_000), max_values(1_000_000)) == (
        150_000, 150_000, 300_000, 25_000_000)
    dense = b"\x0a\x00" * 250_000
    assert parsing_bytes(dense, BATCH, NO_LIMIT, max_values(12_000)) == (
        message_bytes(BATCH) + 250_000 * 192)
    with pytest.raises(TooCostlyToRead) as caught:
        InFlightBytes(40 * MiB, max_values=150_000).take_message(dense, BATCH)
    assert caught.value.metadata == {"limit": "values in one message", "max_values": "150000"}


@pytest.mark.parametrize("data", [b"\x0a", b"\x0a\x05\x12", b"\x0a\x80", b"\xff" * 12, b"\x0b",
                                  b"\x0a\x02\x1a\x05"])
def test_malformed_messages_are_counted_up_to_where_they_stop_making_sense(data):
    counted = parsing_bytes(data, BATCH, NO_LIMIT)
    assert message_bytes(BATCH) <= counted <= message_bytes(BATCH) + 192 + 112


MEASURE = r"""
import gc, json, sys
from duetime.v1 import duetime_pb2 as pb
def rss():
    return int(open("/proc/self/statm").read().split()[1]) * 4096
kind, data = sys.argv[1], bytes.fromhex(sys.argv[2]) * int(sys.argv[3])
if sys.argv[4] == "calendar":  # data is the body of a ComputeDueTimeRequest's calendar
    n, size = len(data), b""
    while True:
        low, n = n & 0x7F, n >> 7
        size += bytes([low | (0x80 if n else 0)])
        if not n:
            break
    data = b"\x1a" + size + data
gc.collect()
before = rss()
message = getattr(pb, kind).FromString(data)
print(json.dumps(rss() - before))
"""


def measured(kind: str, unit: bytes, count: int, wrap: str = "") -> int:
    """The resident bytes a fresh process grows by parsing ``unit`` × ``count``
    (as a calendar's body with ``wrap`` "calendar") as a ``kind``."""
    run = subprocess.run([sys.executable, "-c", MEASURE, kind, unit.hex(), str(count), wrap],
                         capture_output=True, text=True, check=True)
    return json.loads(run.stdout)


def enc(n: int) -> bytes:
    out = b""
    while True:
        low, n = n & 0x7F, n >> 7
        if not n:
            return out + bytes([low])
        out += bytes([low | 0x80])


def calendar_of(body: bytes) -> bytes:
    return b"\x1a" + enc(len(body)) + body


DENSE = {  # name: (request type, repeated unit, count)
    "empty items": ("BatchComputeDueTimesRequest", b"\x0a\x00", 1_000_000),
    "items with an empty calendar": ("BatchComputeDueTimesRequest", b"\x0a\x02\x1a\x00", 1_000_000),
    "items with an empty duration": ("BatchComputeDueTimesRequest", b"\x0a\x02\x12\x00", 1_000_000),
    "unknown varints": ("ComputeDueTimeRequest", b"\x78\x00", 2_000_000),
    "events": ("EvaluateSlaRequest", b"\x12\x00", 1_000_000),
}


@pytest.mark.parametrize("name", sorted(DENSE))
def test_the_count_holds_above_what_parsing_takes(name):
    """Parsed in a fresh process, the densest shapes take less resident
    memory than their count and than the cheap bound."""
    kind, unit, count = DENSE[name]
    data = unit * count
    grown = measured(kind, unit, count)
    descriptor = getattr(pb, kind).DESCRIPTOR
    # the whole holds more values than are counted: counted per unit, on 1,000 of them
    per_unit = (parsing_bytes(unit * 1000, descriptor, NO_LIMIT) - message_bytes(descriptor)) // 1000
    counted = len(data) + message_bytes(descriptor) + per_unit * count
    print(f"{name}: {len(data)} bytes, parsed +{grown} bytes, counted {counted}, "
          f"cheap {cheap_bound(len(data))}")
    assert grown < counted
    assert grown < cheap_bound(len(data))


def test_holidays_and_week_periods_in_a_calendar_hold_below_their_count():
    for field in (b"\x12\x00", b"\x4a\x00"):  # holidays, week_periods
        unit_count = 1_000_000
        body = field * unit_count
        data = calendar_of(body)
        grown = measured("ComputeDueTimeRequest", field, unit_count, "calendar")
        assert grown < cheap_bound(len(data))
        sample = calendar_of(field * 100_000)
        per_unit = (parsing_bytes(sample, DUE, NO_LIMIT) - 192 - message_bytes(pb.Calendar.DESCRIPTOR)) // 100_000
        assert grown < len(data) + per_unit * unit_count, (field, grown, per_unit)


# ---------------------------------------------------------------------------
# counted in flight


def test_a_message_is_counted_cheaply_when_that_fits_else_walked():
    in_flight = InFlightBytes(10 * MiB)
    small = pb.ComputeDueTimeRequest(duration="3bd").SerializeToString()
    assert in_flight.take_message(small, DUE) == 97 * len(small)
    assert in_flight.held == 97 * len(small)
    in_flight.release(97 * len(small))
    # 200 KiB of holidays: 19 MiB cheaply, does not fit 10 MiB; walked, it does
    request = pb.ComputeDueTimeRequest(calendar=pb.Calendar(
        holidays=[pb.Holiday(date="2026-12-25", name="x" * 90)] * 2_000))
    data = request.SerializeToString()
    counted = in_flight.take_message(data, DUE)
    assert counted == len(data) + parsing_bytes(data, DUE, NO_LIMIT) < cheap_bound(len(data))
    assert in_flight.held == counted
    # too dense to ever fit: refused, nothing counted
    with pytest.raises(TooCostlyToRead) as caught:
        in_flight.take_message(b"\x0a\x00" * 60_000, BATCH)
    assert caught.value.metadata["limit_bytes"] == str(10 * MiB)
    # the count stops at the first item past the limit
    assert 10 * MiB < int(caught.value.metadata["reading_bytes"]) <= 10 * MiB + 192
    assert in_flight.held == counted
    # 300,000 empty items: 58 MB cheaply, over 40 MiB; walked, past 150,000 values first
    with pytest.raises(TooCostlyToRead) as caught:
        InFlightBytes(40 * MiB).take_message(b"\x0a\x00" * 300_000, BATCH)
    assert caught.value.metadata == {"limit": "values in one message", "max_values": "150000"}


def test_a_tenant_holds_at_most_its_share():
    assert tenant_share(8 * MiB, 4 * MiB) == 4 * MiB
    assert tenant_share(85 * MiB, 16 * MiB) == 85 * MiB // 2
    assert tenant_share(8 * MiB, 6 * MiB) == 6 * MiB  # one message of the largest size fits
    a, b = Caller(frozenset({"team-a"}), frozenset({"compute"}), "team-a"), \
        Caller(frozenset({"team-b"}), frozenset({"compute"}), "team-b")
    in_flight = InFlightBytes(100, 60)
    assert (in_flight.limit_for(a), in_flight.limit_for(None)) == (60, 100)
    in_flight.take(50, a)
    with pytest.raises(InFlightBytesExhausted) as caught:
        in_flight.take(20, a)
    assert caught.value.metadata["limit"] == "in-flight request bytes of one tenant"
    assert str(caught.value).startswith("this token's requests are holding 50 bytes of requests "
                                        "in flight and this request brings 20 more; at most 60")
    in_flight.take(40, b)
    with pytest.raises(InFlightBytesExhausted) as caught:
        in_flight.take(20, b)
    assert caught.value.metadata["limit"] == "in-flight request bytes"
    assert (in_flight.held, in_flight.held_by(a), in_flight.held_by(b)) == (90, 50, 40)
    in_flight.release(50, a)
    assert (in_flight.held, in_flight.held_by(a)) == (40, 0)
    in_flight.take(60, a)
    # without a share, a tenant is not counted apart
    alone = InFlightBytes(100)
    alone.take(90, a)
    assert (alone.held, alone.held_by(a), alone.limit_for(a)) == (90, 0, 100)


def shared_calendar_batch(items: int, holidays: int) -> pb.BatchComputeDueTimesRequest:
    """``items`` due times, each with its own key and start, all with one
    inline calendar of ``holidays`` holidays (a real batch's shape)."""
    calendar = pb.Calendar(time_zone="Europe/Zagreb", holidays=[
        pb.Holiday(date=f"{1950 + j // 300:04d}-{1 + j % 300 // 28:02d}-{1 + j % 28:02d}", name="Holiday")
        for j in range(holidays)])
    batch = pb.BatchComputeDueTimesRequest(items=[
        pb.ComputeDueTimeRequest(duration="3bd", calendar=calendar, idempotency_key=f"k{i}")
        for i in range(items)])
    for i, item in enumerate(batch.items):
        item.start.FromSeconds(1_795_791_600 + 60 * i)
    return batch


def test_a_repeated_sub_message_is_counted_each_time_but_walked_once(monkeypatch):
    """1,000 items sharing a calendar of 196 holidays hold 200,000 values and
    more, but walked once each: the count is the same as walking every copy."""
    data = shared_calendar_batch(1000, 196).SerializeToString()
    counted = parsing_bytes(data, BATCH, NO_LIMIT)
    monkeypatch.setattr(wire, "SAME_FROM", 1 << 62)  # nothing remembered: every copy walked
    with pytest.raises(TooManyValues):
        wire.parsing_bytes(data, BATCH, NO_LIMIT)
    assert wire.parsing_bytes(data, BATCH, NO_LIMIT, 10 ** 9) == counted
    assert counted < 6 * len(data)


def test_a_limit_reads_in_mebibytes():
    from duetime.api.admission import readable_bytes
    assert [readable_bytes(n) for n in (8 << 20, 3 << 30, 44_739_242, 1000, (256 << 20) // 3)] == [
        "8MiB", "3GiB", "42.7MiB", "1000B", "85.3MiB"]


def test_a_packed_list_counts_each_byte_as_a_value_twice_over():
    """Weekend days packed (a calendar's weekend, field 1 of WeekendDays):
    16 bytes a byte, as a list grows by doubling."""
    days = pb.ComputeDueTimeRequest(calendar=pb.Calendar(weekend=pb.WeekendDays(
        days=[pb.WEEKDAY_SATURDAY] * 1000)))
    data = days.SerializeToString()
    assert parsing_bytes(data, DUE, NO_LIMIT) == (
        192 + message_bytes(pb.Calendar.DESCRIPTOR) + message_bytes(pb.WeekendDays.DESCRIPTOR)
        + 1000 * VALUE_BYTES)


def test_a_group_does_not_stop_the_count():
    """upb keeps an unknown group and parses on: what follows it is counted
    (an empty group of field 100, then 10 empty items)."""
    group = bytes([0xA3, 0x06, 0xA4, 0x06])
    assert parsing_bytes(group + b"\x0a\x00" * 10, BATCH, NO_LIMIT) == (
        message_bytes(BATCH) + 2 * VALUE_BYTES + 10 * 192)
    # and a dense message behind one is refused as it is without
    with pytest.raises(TooCostlyToRead):
        InFlightBytes(85 * MiB).take_message(group + b"\x0a\x00" * 8_000_000, BATCH)


def test_a_varint_longer_than_ten_bytes_ends_the_count_at_once():
    """A varint of 16 MiB is malformed (parsing fails): counting stops at its 11th byte."""
    data = b"\x08" + b"\xff" * (16 << 20) + b"\x01"
    assert parsing_bytes(data, BATCH, NO_LIMIT) == message_bytes(BATCH)
    assert parsing_bytes(b"\x78" + b"\xff" * 9 + b"\x01", DUE, NO_LIMIT) == 192 + VALUE_BYTES


def test_each_byte_of_a_varint_past_its_third_counts_as_a_value():
    """A message of 10-byte varints (padded tags and numbers, as upb reads
    them) reaches the value bound after a seventh as many: walking it costs
    at most what walking short ones does."""
    padded_tag = b"\x88" + b"\x80" * 8 + b"\x00"  # field 1, varint, padded to 10 bytes
    number = b"\xff" * 9 + b"\x01"  # 10 bytes
    one = padded_tag + number  # 1 value + 7 + 7 more
    fits = MAX_COUNTED_VALUES // 15
    counted = parsing_bytes(one * fits, BATCH, NO_LIMIT)
    assert counted == message_bytes(BATCH) + fits * VALUE_BYTES
    with pytest.raises(TooManyValues):
        parsing_bytes(one * (fits + 1), BATCH, NO_LIMIT)
    # three bytes still count one value: a length of up to 2 MiB, a field number up to 2**18
    assert parsing_bytes(b"\x20\xff\x7f" * MAX_COUNTED_VALUES, DUE, NO_LIMIT) == (
        192 + MAX_COUNTED_VALUES * VALUE_BYTES)


def test_what_is_remembered_is_bounded(monkeypatch):
    """Only the first MAX_REMEMBERED sub-messages are remembered: a batch
    whose calendar is shared from the first item on is counted the same
    with 1 remembered as with all."""
    data = shared_calendar_batch(300, 20).SerializeToString()
    counted = parsing_bytes(data, BATCH, NO_LIMIT)
    monkeypatch.setattr(wire, "MAX_REMEMBERED", 1)
    assert wire.parsing_bytes(data, BATCH, NO_LIMIT) == counted
    monkeypatch.setattr(wire, "MAX_REMEMBERED", MAX_REMEMBERED)
    distinct = pb.BatchComputeDueTimesRequest(items=[
        pb.ComputeDueTimeRequest(idempotency_key=f"{i:08d}".ljust(130, "k"), duration="1bd")
        for i in range(20_000)]).SerializeToString()
    assert peak_bytes(lambda: parsing_bytes(distinct, BATCH, NO_LIMIT)) < 2_000_000
    monkeypatch.setattr(wire, "MAX_REMEMBERED", 1 << 62)  # as before the bound
    assert peak_bytes(lambda: wire.parsing_bytes(distinct, BATCH, NO_LIMIT)) > 5_000_000


def peak_bytes(work) -> int:
    """The most memory ``work()`` held at once (tracemalloc), bytes."""
    tracemalloc.start()
    try:
        work()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
