"""Replaying the ledger: recompute recorded requests and compare, byte for byte.

Given the versions an answer names (calendar, rules, tzdata), recomputing a
recorded request gives the recorded response byte for byte
(``docs/semantics.md``, "Records"). :func:`recompute` recomputes one row;
:func:`replay` goes through many and yields one :class:`Replayed` each:

- ``same``: the recomputed response (given the record's ``record_id``,
  serialized deterministically) equals the stored bytes;
- ``differs``: it does not; :attr:`Replayed.changes` names every response
  field that differs (``due``, ``explanation[2].text``), old and new value.
  A request that now fails is a difference too (path ``(answer)``). Nothing
  is ever "fixed": the ledger is only read;
- ``not replayable``: the record cannot be recomputed under the versions it
  names here: another tz database than this duetime's, a bundle or policy
  version not in the catalog, or a method this duetime does not know.

A bundle calendar is resolved at the version the record names (a bare
``name`` in the request counts as the recorded ``name@version``, so a newer
version in the catalog changes nothing); an inline calendar needs nothing. A
record made under another ``rules_version`` than :data:`RULES_VERSION` is
still compared (its ``rules_version`` field then differs), and
:attr:`Replayed.other_rules` says so.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import DecodeError, Message

from duetime import tzdb
from duetime.api.convert import EVALUATE_SLA, METHODS
from duetime.app import Answering, CalendarResolver
from duetime.bundles import BundleStore
from duetime.catalog import Catalog
from duetime.core import RULES_VERSION, Refusal
from duetime.ledger import LedgerRow
from duetime.v1 import duetime_pb2 as pb

log = logging.getLogger("duetime.replay")

SAME = "same"
DIFFERS = "differs"
NOT_REPLAYABLE = "not replayable"

MAX_SHOWN = 80
"""A field value in a change is clipped to this many characters."""

_LEAVES = {"google.protobuf.Timestamp", "google.protobuf.Duration"}
"""Message types compared and shown as one value (``due``, not ``due.seconds``)."""


class NotReplayable(Exception):
    """A record that cannot be recomputed under the versions it names; the
    message says why (both versions, or what is missing)."""


@dataclass(frozen=True)
class FieldChange:
    """One response field that differs: ``path`` (``due``,
    ``explanation[2].text``; ``(answer)`` when the request now fails,
    ``(bytes)`` when only the encoding differs), the recorded value ``old``
    and the recomputed ``new``, both as short text (``absent`` when unset)."""

    path: str
    old: str
    new: str

    def __str__(self) -> str:
        return f"{self.path}: {self.old} → {self.new}"


@dataclass(frozen=True)
class Replayed:
    """The replay of one record: ``outcome`` is :data:`SAME`, :data:`DIFFERS`
    or :data:`NOT_REPLAYABLE`; ``method`` the full gRPC method recorded;
    ``changes`` the differing fields (for DIFFERS); ``reason`` why not
    replayable; ``other_rules`` the record's rules_version when it is not
    this duetime's (else ``""``)."""

    record_id: str
    method: str
    outcome: str
    changes: tuple[FieldChange, ...] = ()
    reason: str = ""
    other_rules: str = ""

    @property
    def rpc(self) -> str:
        """The method's short name (``ComputeDueTime``)."""
        return self.method.rsplit("/", 1)[-1]

    def line(self) -> str:
        """One line for a report: ``ID RPC differs: PATH: OLD → NEW; …`` or
        ``ID RPC not replayable: REASON`` (and the rules version when it is
        another one than this duetime's); ``ID RPC same`` otherwise."""
        text = f"{self.record_id} {self.rpc} {self.outcome}"
        if self.outcome == DIFFERS:
            text += ": " + "; ".join(str(c) for c in self.changes)
        elif self.outcome == NOT_REPLAYABLE:
            text += f": {self.reason}"
        if self.other_rules:
            text += f" (recorded under rules {self.other_rules}; this duetime has {RULES_VERSION})"
        return text


@dataclass
class Summary:
    """Counts of a replay: ``replayed`` records in all, of which ``same``,
    ``differ`` and ``not_replayable``; ``other_rules``: records made under
    another rules version (compared all the same)."""

    replayed: int = 0
    same: int = 0
    differ: int = 0
    not_replayable: int = 0
    other_rules: int = 0
    by_method: dict[str, int] = field(default_factory=dict)

    def add(self, result: Replayed) -> None:
        """Count one record's result."""
        self.replayed += 1
        self.by_method[result.rpc] = self.by_method.get(result.rpc, 0) + 1
        if result.outcome == SAME:
            self.same += 1
        elif result.outcome == DIFFERS:
            self.differ += 1
        else:
            self.not_replayable += 1
        if result.other_rules:
            self.other_rules += 1

    @property
    def ok(self) -> bool:
        """Whether every record was replayed and gave its recorded bytes."""
        return not self.differ and not self.not_replayable

    def line(self) -> str:
        """``replayed N records: N same, N differ, N not replayable``."""
        return (f"replayed {self.replayed} records: {self.same} same, {self.differ} differ, "
                f"{self.not_replayable} not replayable")


def _bundle_refs(calendar_version: str) -> list[str]:
    """The bundle versions (``name@version``) a calendar_version names:
    ``name@v``, ``name@v+cal-…`` (extra inline holidays), several of them
    joined by ``,`` (EvaluateSla's tiers); none for an inline calendar."""
    refs = []
    for part in calendar_version.split(","):
        ref = part.split("+", 1)[0]
        if "@" in ref:
            refs.append(ref)
    return refs


def pinned_catalog(catalog: Catalog, calendar_version: str) -> Catalog:
    """``catalog`` with every bundle that ``calendar_version`` names ending at
    the version named, so a bare bundle name resolves to it. Raises
    NotReplayable when a named version is not in ``catalog``."""
    refs = _bundle_refs(calendar_version)
    if not refs:
        return catalog
    bundles = catalog.bundles
    by_name = {name: bundles.versions(name) for name in bundles.names()}
    for ref in refs:
        name, _, version = ref.partition("@")
        versions = [b.version for b in by_name.get(name, [])]
        if version not in versions:
            loaded = ", ".join(versions) or "none"
            raise NotReplayable(f"calendar {ref} is not in the catalog (versions of {name} "
                                f"loaded: {loaded})")
        by_name[name] = by_name[name][:versions.index(version) + 1]
    return Catalog(BundleStore(by_name), catalog.policies, catalog.root)


def recompute(row: LedgerRow, catalog: Catalog,
              resolver: CalendarResolver | None = None) -> bytes:
    """The response bytes duetime gives today for ``row``'s request, under the
    versions the row names: the stored canonical request decoded with the
    recorded method's request type, computed with ``catalog`` (bundles pinned
    to the recorded versions, an EvaluateSla policy to the recorded
    ``policy_version``), given the row's ``record_id`` and serialized
    deterministically, to compare with ``row.response``.

    ``resolver``: resolves inline calendars (default: a new one, with the
    default limits; :func:`replay` shares one across rows, so a calendar
    sent again is built once).

    Raises NotReplayable (another tz database, an unknown method, a bundle or
    policy version not in ``catalog``, a request that does not parse) and
    whatever the computation raises (a Refusal when the request is refused
    now).
    """
    method = METHODS.get(row.method)
    if method is None:
        raise NotReplayable(f"this duetime does not know the method {row.method}")
    tzdata = tzdb.tzdata_version()
    if row.tzdata_version != tzdata:
        raise NotReplayable(f"recorded with tzdata {row.tzdata_version}; this duetime has "
                            f"{tzdata}")
    try:
        request = method.request_type.FromString(row.request)
    except DecodeError as exc:
        raise NotReplayable(f"the stored request does not parse: {exc}") from None
    pinned = pinned_catalog(catalog, row.calendar_version)
    if method is EVALUATE_SLA:
        policy = pb.EvaluateSlaResponse.FromString(row.response).policy_version
        if policy not in pinned.policies.refs():
            name = policy.partition("@")[0]
            loaded = ", ".join(r.partition("@")[2] for r in pinned.policies.refs()
                               if r.partition("@")[0] == name) or "none"
            raise NotReplayable(f"policy {policy or '(none)'} is not in the catalog (versions "
                                f"of {name or 'it'} loaded: {loaded})")
        request.policy = policy
    resolver = resolver if resolver is not None else CalendarResolver()
    response = method.answer(request, Answering(pinned, resolver.limits, resolver))
    response.record_id = row.record_id
    return response.SerializeToString(deterministic=True)


def replay_one(row: LedgerRow, catalog: Catalog,
               resolver: CalendarResolver | None = None) -> Replayed:
    """:func:`recompute` ``row`` and compare with its stored response."""
    other_rules = row.rules_version if row.rules_version != RULES_VERSION else ""
    result = dict(record_id=row.record_id, method=row.method, other_rules=other_rules)
    try:
        now = recompute(row, catalog, resolver)
    except NotReplayable as exc:
        return Replayed(outcome=NOT_REPLAYABLE, reason=str(exc), **result)
    except Exception as exc:  # noqa: BLE001 - a request that fails now is a difference
        if isinstance(exc, Refusal):  # refused now
            what = f"{exc.reason}: {exc}"
        else:  # a fault of this duetime: reported as the record's difference, and logged
            log.exception("replaying record %s (%s) failed", row.record_id, row.method)
            what = f"{type(exc).__name__}: {exc}"
        return Replayed(outcome=DIFFERS, changes=(FieldChange("(answer)", "a response",
                                                              _clip(what)),), **result)
    if now == row.response:
        return Replayed(outcome=SAME, **result)
    return Replayed(outcome=DIFFERS, changes=tuple(differences(row.method, row.response, now)),
                    **result)


def replay(rows: Iterable[LedgerRow], catalog: Catalog) -> Iterator[Replayed]:
    """:func:`replay_one` each of ``rows``, in order. Nothing is recorded and
    no row is changed. Inline calendars are resolved through one
    :class:`~duetime.app.CalendarResolver`, so a calendar is built once."""
    resolver = CalendarResolver()
    for row in rows:
        yield replay_one(row, catalog, resolver)


def differences(method: str, old: bytes, new: bytes) -> list[FieldChange]:
    """The fields in which response ``new`` differs from ``old`` (both the
    serialized response of ``method``, a full gRPC method name), in field
    order. ``(bytes)`` when no field differs but the bytes do; ``(response)``
    when ``old`` does not parse."""
    response_type = METHODS[method].response_type
    try:
        before = response_type.FromString(old)
    except DecodeError as exc:
        return [FieldChange("(response)", _clip(f"does not parse: {exc}"), "a response")]
    after = response_type.FromString(new)
    found: list[FieldChange] = []
    _compare(before, after, "", found)
    if not found and old != new:
        found.append(FieldChange("(bytes)", f"{len(old)} bytes", f"{len(new)} bytes, "
                                 "the same fields"))
    return found


def _compare(old: Message, new: Message, prefix: str, found: list[FieldChange]) -> None:
    """Append to ``found`` the fields of ``old`` and ``new`` (messages of one
    type) that differ, their paths under ``prefix``."""
    for fd in old.DESCRIPTOR.fields:
        path = f"{prefix}{fd.name}"
        a, b = getattr(old, fd.name), getattr(new, fd.name)
        if fd.is_repeated and _is_message(fd) and fd.message_type.GetOptions().map_entry:
            for key in sorted(set(a) | set(b)):
                old_value = repr(a[key]) if key in a else "absent"
                new_value = repr(b[key]) if key in b else "absent"
                if old_value != new_value:
                    found.append(FieldChange(f"{path}[{key!r}]", _clip(old_value),
                                             _clip(new_value)))
            continue
        if fd.is_repeated:
            for i in range(max(len(a), len(b))):
                item = f"{path}[{i}]"
                if i >= len(a) or i >= len(b):
                    found.append(FieldChange(item, _shown(fd, a[i]) if i < len(a) else "absent",
                                             _shown(fd, b[i]) if i < len(b) else "absent"))
                elif _is_message(fd) and fd.message_type.full_name not in _LEAVES:
                    _compare(a[i], b[i], f"{item}.", found)
                elif a[i] != b[i]:
                    found.append(FieldChange(item, _shown(fd, a[i]), _shown(fd, b[i])))
            continue
        if fd.has_presence:
            has_a, has_b = old.HasField(fd.name), new.HasField(fd.name)
            if not has_a and not has_b:
                continue
            if has_a != has_b:
                found.append(FieldChange(path, _shown(fd, a) if has_a else "absent",
                                         _shown(fd, b) if has_b else "absent"))
                continue
        if _is_message(fd) and fd.message_type.full_name not in _LEAVES:
            _compare(a, b, f"{path}.", found)
        elif a != b:
            found.append(FieldChange(path, _shown(fd, a), _shown(fd, b)))


def _is_message(fd: FieldDescriptor) -> bool:
    return fd.type == FieldDescriptor.TYPE_MESSAGE


def _shown(fd: FieldDescriptor, value) -> str:
    """A field value as short text: instants and durations in their JSON
    form, enums by name, strings quoted, messages in text format."""
    if _is_message(fd):
        if fd.message_type.full_name in _LEAVES:
            text = value.ToJsonString()
        else:
            text = "{" + " ".join(str(value).split()) + "}"
    elif fd.type == FieldDescriptor.TYPE_ENUM:
        enum = fd.enum_type.values_by_number.get(value)
        text = enum.name if enum else str(value)
    elif isinstance(value, str):
        text = repr(value)
    else:
        text = str(value)
    return _clip(text)


def _clip(text: str) -> str:
    return text if len(text) <= MAX_SHOWN else text[:MAX_SHOWN - 1] + "…"


def row_of(record: pb.Record) -> LedgerRow:
    """The ledger row a Record message (as ListRecords returns it) shows."""
    return LedgerRow(
        record_id=record.record_id, method=record.method,
        receive_time_us=record.receive_time.ToMicroseconds(),
        idempotency_key=record.idempotency_key, request_hash="",
        request=record.request.value, response=record.response.value,
        calendar_version=record.calendar_version, rules_version=record.rules_version,
        tzdata_version=record.tzdata_version, content_sha256=record.content_sha256,
        namespace=record.namespace)
