"""The JSON face's reader (duetime.api.json_read) against json_format: for
random messages of every ``duetime.v1`` type printed in the JSON mapping,
and for the same JSON objects damaged at random (a value of another JSON
type, null, a number out of range, an unpaired surrogate, an unknown key, a
key under both its JSON and its field name, a second member of a oneof),
``read_json_object`` reads the same message ``json_format.ParseDict`` reads,
or raises the same error with the same words."""

from __future__ import annotations

import copy
import json
import random

import pytest
from duetime.api.json_print import to_json_object
from duetime.api.json_read import READERS, NotReadHere, read_json_object
from duetime.v1 import duetime_pb2 as pb
from google.protobuf import json_format
from hypothesis import given, settings
from hypothesis import strategies as st
from test_json_print import TYPES, fill, message_type

DAMAGE = [None, 1.5, 0, -1, 2**40, 2**70, "x", "12", "", "\ud800", True, [], {}, [None], {"x": 1},
          "CLOCK_EVENT_TYPE_PAUSE", "2026-11-27T16:00:00Z", "P1D", "1s"]


def outcome(read, tree, kind) -> tuple[str, object]:
    target = kind()
    try:
        read(tree, target)
    except Exception as exc:  # noqa: BLE001 - the error is the outcome compared
        return "error", (type(exc).__name__, str(exc))
    return "message", target.SerializeToString(deterministic=True)


def damage(tree, rng: random.Random, kind) -> None:
    """Change one place of ``tree`` (a JSON object of a ``kind`` message)."""
    places = []

    def walk(node, descriptor):
        if isinstance(node, dict):
            for key, value in node.items():
                places.append((node, key, descriptor))
                field = descriptor.fields_by_camelcase_name.get(key) if descriptor else None
                sub = field.message_type if field is not None else None
                if isinstance(value, list):
                    for item in value:
                        walk(item, sub)
                else:
                    walk(value, sub)

    walk(tree, kind.DESCRIPTOR)
    what = rng.random()
    if not places or what < 0.15:
        tree["noSuchField"] = rng.choice(DAMAGE)
        return
    node, key, descriptor = rng.choice(places)
    field = descriptor.fields_by_camelcase_name.get(key) if descriptor else None
    if what < 0.25 and field is not None and field.name != key:
        node[field.name] = copy.deepcopy(node[key])  # the same field under its proto name
    elif what < 0.35 and field is not None and field.containing_oneof is not None:
        others = [f for f in field.containing_oneof.fields if f is not field]
        if others:
            other = rng.choice(others)
            node[other.json_name] = to_json_object(message_type(other.message_type.full_name)()) \
                if other.message_type is not None and other.message_type.full_name.startswith(
                    "duetime.") else rng.choice(DAMAGE)
    else:
        node[key] = rng.choice(DAMAGE)


def test_every_type_of_the_api_has_its_reader():
    assert "duetime.v1.ComputeDueTimeRequest" in READERS
    assert set(TYPES) <= set(READERS)


@pytest.mark.parametrize("name", TYPES)
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_random_messages_read_as_parse_dict_reads_them(name, seed):
    kind = message_type(name)
    rng = random.Random(seed)
    message = fill(kind(), rng)
    tree = json.loads(json.dumps(json_format.MessageToDict(message)))
    assert outcome(read_json_object, tree, kind) == outcome(json_format.ParseDict, tree, kind)
    damaged = copy.deepcopy(tree)
    damage(damaged, rng, kind)
    assert outcome(read_json_object, damaged, kind) == outcome(json_format.ParseDict, damaged, kind)


def test_a_target_with_fields_set_is_read_as_parse_dict_reads_it():
    """ParseDict replaces a repeated field it is given and merges the rest:
    a target that is not empty is left to it."""
    tree = {"calendar": {"holidays": [{"date": "2026-12-25"}]}, "duration": "3bd"}
    ours, theirs = pb.ComputeDueTimeRequest(), pb.ComputeDueTimeRequest()
    for target in (ours, theirs):
        target.calendar.holidays.add(date="2026-01-01")
        target.explain = True
    read_json_object(tree, ours)
    json_format.ParseDict(tree, theirs)
    assert ours == theirs
    assert [h.date for h in ours.calendar.holidays] == ["2026-12-25"] and ours.explain


def test_the_common_forms_are_read_here():
    """Strings, enum full names, int64 as digits, booleans, nested and
    repeated messages, maps and timestamps: the same message as ParseDict."""
    tree = {"policy": "support-sla", "events": [
        {"type": "start", "time": "2026-12-01T08:00:00Z", "attributes": {"tier": "high"}},
        {"type": "agent_reply", "time": "2026-12-01T09:30:00.5Z"}],
        "asOfTime": "2026-12-02T00:00:00Z"}
    ours = pb.EvaluateSlaRequest()
    read_json_object(tree, ours)
    assert ours == json_format.ParseDict(tree, pb.EvaluateSlaRequest())
    assert ours.events[1].time.nanos == 500_000_000


def test_a_null_field_is_read_here_as_unset():
    """``null`` for a field (a oneof member too) leaves it unset, as ParseDict
    does, without handing the object to ParseDict: read with
    ``fall_back=False``. A null in a list still is not read here."""
    tree = {"start": "2026-11-27T15:00:00Z", "duration": "3bd", "landingTime": None,
            "calendar": {"timeZone": "Europe/Zagreb", "holidays": [{"date": "2026-12-25",
                                                                     "name": None}]},
            "idempotencyKey": None, "explain": None}
    ours = pb.ComputeDueTimeRequest()
    read_json_object(tree, ours, fall_back=False)
    assert ours == json_format.ParseDict(tree, pb.ComputeDueTimeRequest())
    assert ours.calendar.holidays[0].date == "2026-12-25" and ours.landing_time == ""
    with pytest.raises(NotReadHere):
        read_json_object({"calendar": {"holidays": [None]}}, pb.ComputeDueTimeRequest(),
                         fall_back=False)
    with pytest.raises(NotReadHere):
        read_json_object({"calendar": {"weekPeriods": "x"}}, pb.ComputeDueTimeRequest(),
                         fall_back=False)
