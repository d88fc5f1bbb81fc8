"""Who calls: a :class:`Caller` (the namespaces its token is bound to, its
scopes, its default namespace), found by authentication
(:func:`duetime.auth.authenticate`) and handed to every call
(:mod:`duetime.api.calls`), and the one place that decides what it may do.

- :meth:`Caller.check_method`: each RPC needs one scope (:data:`SCOPE_OF`;
  a method not listed there needs ``admin``); without it the call is
  PERMISSION_DENIED (:class:`ScopeMissing`), naming the scope it needs.
- :meth:`Caller.namespace`: the namespace a call is made in: the one it
  names (``x-duetime-namespace``), which must be one of the token's (else
  :class:`NamespaceNotPermitted`, naming the metadata), or the caller's
  default when it names none.
- :meth:`Caller.reads` and :meth:`Caller.listing`: a caller reads only the
  records of its own namespaces.

A server without tokens calls everything as :data:`ANYONE` (every namespace,
every scope, the default namespace ``""``), as does a token file line holding
a token alone. See docs/operations.md, "Tokens and tenants".
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from duetime.app import NAMESPACE_FIELD, check_namespace
from duetime.config import SCOPES, TokenEntry
from duetime.core.errors import ErrorKind, FieldViolation, Refusal
from duetime.ledger import RecordFilter

__all__ = ["ANYONE", "SCOPES", "SCOPE_OF", "Caller", "NamespaceNotPermitted",
           "PermissionDenied", "ScopeMissing", "scope_of"]

_DUE = "/duetime.v1.DueTimeService/"
_CALENDARS = "/duetime.v1.CalendarService/"
SCOPE_OF: dict[str, str] = {
    **{_DUE + rpc: "compute" for rpc in (
        "ComputeDueTime", "BatchComputeDueTimes", "StreamComputeDueTimes",
        "ComputeBusinessTime", "GetOpenStatus", "ComputeSchedule", "StartClock",
        "ApplyClockEvent", "EvaluateSla")},
    **{_CALENDARS + rpc: "compute" for rpc in ("ListCalendars", "GetCalendar", "ListHolidays")},
    **{_CALENDARS + rpc: "compute" for rpc in ("ListPolicies", "GetPolicy")},
    _DUE + "GetRecord": "read",
    _DUE + "ListRecords": "read",
    _DUE + "AnalyzeImpact": "impact",
    **{_DUE + rpc: "compute" for rpc in ("ListOpenPeriods", "CountBusinessDays")},
    "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo": "admin",
    "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo": "admin",
}
"""The scope each RPC needs, by full method name (docs/operations.md has
the same table). A method not listed needs ``admin``."""


def scope_of(method: str) -> str:
    """The scope the RPC ``method`` (its full name) needs: :data:`SCOPE_OF`'s,
    else ``admin``."""
    return SCOPE_OF.get(method, "admin")


class PermissionDenied(Refusal):
    """An authenticated call its token does not allow (PERMISSION_DENIED)."""

    kind = ErrorKind.NOT_PERMITTED
    reason = "PERMISSION_DENIED"


class ScopeMissing(PermissionDenied):
    """The call's RPC needs a scope its token does not have."""

    reason = "SCOPE_MISSING"

    def __init__(self, method: str, scope: str, scopes: Iterable[str]):
        rpc = method.rsplit("/", 1)[-1]
        have = ", ".join(s for s in SCOPES if s in set(scopes)) or "none"
        super().__init__(f"{rpc} needs a token with scope {scope!r}; this token's scopes are: "
                         f"{have}. Use a token whose scopes= include {scope}",
                         metadata={"scope": scope, "method": method})
        self.scope = scope


class NamespaceNotPermitted(PermissionDenied):
    """The call names a namespace its token is not bound to."""

    reason = "NAMESPACE_NOT_PERMITTED"

    def __init__(self, namespace: str, field: str, namespaces: Iterable[str]):
        shown = repr(namespace) if namespace else '"" (the default namespace)'
        allowed = ", ".join(sorted(namespaces))
        description = (f"this token is not bound to namespace {shown}; it may use: {allowed}. "
                       "Name one of these (or none: the token's default), or use a token "
                       "bound to that namespace")
        super().__init__(f"{field}: {description}",
                         violations=[FieldViolation(field, description)],
                         metadata={"namespace": namespace, "field": field})
        self.namespace = namespace


@dataclass(frozen=True, slots=True)
class Caller:
    """Who is calling, as authentication found it: the ``namespaces`` its
    token is bound to (None: every namespace), its ``scopes`` (of
    :data:`SCOPES`) and its ``default`` namespace (the one a call naming none
    is made in; ``""``: the default namespace)."""

    namespaces: frozenset[str] | None = None
    scopes: frozenset[str] = frozenset(SCOPES)
    default: str = ""
    group: frozenset[str] | None = field(default=None, compare=False)
    """The namespaces of every token whose namespaces meet this one's, one
    through another (:func:`tenant_groups`; None: its own namespaces)."""

    @property
    def tenant(self) -> frozenset[str] | None:
        """Whose share of the server this caller's calls take
        (:mod:`duetime.api.admission`): the namespaces its token is bound to,
        with those of every token sharing one of them (its ``group``). A
        team's tokens, whatever their scopes or default, and however their
        namespaces overlap (``team-b`` and ``team-b,team-b-staging``), are
        one tenant (None: the tokens of every namespace)."""
        return self.group if self.group is not None else self.namespaces

    @classmethod
    def of(cls, entry: TokenEntry, group: frozenset[str] | None = None) -> Caller:
        """The caller holding the token of ``entry`` (:data:`ANYONE` itself
        for a line of a token alone), of tenant ``group`` (see :attr:`group`)."""
        caller = cls(entry.namespaces, entry.scopes, entry.default, group)
        return ANYONE if caller == ANYONE else caller

    def check_method(self, method: str) -> None:
        """Raise ScopeMissing unless this caller may call ``method`` (a full
        gRPC method name, see :func:`scope_of`)."""
        scope = SCOPE_OF.get(method, "admin")
        if scope not in self.scopes:
            raise ScopeMissing(method, scope, self.scopes)

    def namespace(self, requested: str, field: str = NAMESPACE_FIELD) -> str:
        """The namespace a call naming ``requested`` (``""``: none) is made
        in: ``requested``, else the caller's default. Raises InvalidArgument
        on ``field`` (not a namespace name) or NamespaceNotPermitted (one the
        token is not bound to)."""
        if not requested:
            return self.default
        if self.namespaces is not None and requested not in self.namespaces:
            check_namespace(requested)
            raise NamespaceNotPermitted(requested, field, self.namespaces)
        return requested

    def reads(self, namespace: str) -> bool:
        """Whether this caller may read the records of ``namespace``."""
        return self.namespaces is None or namespace in self.namespaces

    def listing(self, flt: RecordFilter, requested: str) -> RecordFilter:
        """``flt`` (a ListRecords or AnalyzeImpact filter; its namespace None
        when the request names none) narrowed to what this caller may read:
        unchanged for a caller of every namespace; else the namespace the
        request names, which must be one of the token's (NamespaceNotPermitted
        on ``namespace``), or without one the call's namespace (``requested``,
        its ``x-duetime-namespace``, else the token's default)."""
        if self.namespaces is None:
            return flt
        if flt.namespace is None:
            return replace(flt, namespace=self.namespace(requested))
        if flt.namespace not in self.namespaces:
            raise NamespaceNotPermitted(flt.namespace, "namespace", self.namespaces)
        return flt


ANYONE = Caller()
"""The caller of a server without tokens (and of a token line without
attributes): every namespace, every scope, the default namespace ``""``."""


def tenant_groups(bindings: Iterable[frozenset[str] | None]) -> list[frozenset[str] | None]:
    """For each token's namespaces (None: every namespace), its tenant: the
    union of the namespaces of every token bound to one of them, one
    through another (``{a}``, ``{a, b}`` and ``{b, c}`` are one tenant
    ``{a, b, c}``). Tokens of every namespace stay a tenant of their own."""
    bindings = list(bindings)
    parent = list(range(len(bindings)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    holder: dict[str, int] = {}
    for i, namespaces in enumerate(bindings):
        for namespace in namespaces or ():
            if namespace in holder:
                parent[root(i)] = root(holder[namespace])
            else:
                holder[namespace] = i
    unions: dict[int, set[str]] = {}
    for i, namespaces in enumerate(bindings):
        unions.setdefault(root(i), set()).update(namespaces or ())
    return [None if namespaces is None else frozenset(unions[root(i)])
            for i, namespaces in enumerate(bindings)]
