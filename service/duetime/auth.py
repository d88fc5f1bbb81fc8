"""Bearer-token authentication of calls, and what each token may do
(``duetime serve --auth-tokens FILE``).

A caller sends the call metadata ``authorization: Bearer <token>`` (RFC 6750
§2.1, the scheme name in any case); :class:`BearerTokenInterceptor` lets the
call through when the token equals one of the tokens of the file, compared in
constant time (:func:`hmac.compare_digest` of SHA-256 digests, against every
token, so neither the position of a match nor a token's length shows in the
timing). Otherwise the call ends ``UNAUTHENTICATED`` before its request is
parsed, with a ``google.rpc.ErrorInfo`` (domain ``duetime.dev``, reason
``TOKEN_MISSING`` or ``TOKEN_INVALID``) and a message saying what to send.

Tenants. Authentication yields the call's :class:`~duetime.api.callers.Caller`
(the namespaces its token is bound to, its scopes and its default namespace;
a server without tokens calls everything as :data:`ANYONE`), which decides
what the call may do (see :mod:`duetime.api.calls` and
:mod:`duetime.api.callers`). :func:`authenticate` checks the RPC's scope
(``PERMISSION_DENIED``, reason ``SCOPE_MISSING``, before the request is
parsed); :class:`BearerTokenInterceptor` hands the caller on to the
servicer in the call's context (:func:`caller_of`), the HTTP face passes
the one :func:`authenticate` returns.

Open without a token: the gRPC health service (``grpc.health.v1.Health``,
Check and Watch), so a load balancer or ``duetime health`` can probe a server
without holding a secret. Everything else needs one, server reflection
included (scope ``admin``; give grpcurl ``-H 'authorization: Bearer …'``).

The token file's format (one token a line, optionally bound to namespaces
and scopes) is read by :func:`duetime.config.load_tokens` (the
configuration checks the file with it too; see docs/operations.md, "Tokens
and tenants"). Tokens are never logged; only their digests are kept in
memory. SIGHUP rereads it (:meth:`TokenSet.reload`): a file without tokens
revokes every token; a file that cannot be read or holds a malformed line
is refused and the previous tokens stay in use.

A refusal is a :class:`TokenMissing`, :class:`TokenInvalid`,
:class:`ScopeMissing` or :class:`NamespaceNotPermitted` (one model with every
other refusal, :class:`duetime.core.Refusal`); its status comes from the one
status table (:mod:`duetime.api.status`), and the HTTP face checks a
request's headers with the same :func:`authenticate`.
"""

from __future__ import annotations

import hmac
import threading
from pathlib import Path

import grpc

from duetime.api.callers import (
    ANYONE,
    SCOPE_OF,
    SCOPES,
    Caller,
    NamespaceNotPermitted,
    PermissionDenied,
    ScopeMissing,
    scope_of,
    tenant_groups,
)
from duetime.api.status import grpc_status
from duetime.config import MAX_TOKEN, TokenError, load_tokens, token_digest
from duetime.core.errors import ErrorKind, Refusal

__all__ = ["ANYONE", "AUTHORIZATION", "INVALID", "MAX_TOKEN", "MISSING", "OPEN_METHODS",
           "SCOPES", "SCOPE_OF", "BearerTokenInterceptor", "Caller", "NamespaceNotPermitted",
           "PermissionDenied", "ScopeMissing", "TokenError", "TokenInvalid", "TokenMissing",
           "TokenSet", "Unauthenticated", "authenticate", "bearer_token", "caller_of",
           "current_caller", "load_tokens", "scope_of"]

AUTHORIZATION = "authorization"
"""The call metadata key carrying the token (gRPC metadata keys are lower case)."""
OPEN_METHODS = frozenset({"/grpc.health.v1.Health/Check", "/grpc.health.v1.Health/Watch"})
"""Methods answered without a token."""
_SCHEME = "bearer "

class TokenSet:
    """The accepted tokens, read from a file, each with its :class:`Caller`;
    :meth:`reload` rereads it (SIGHUP): a file without tokens revokes them
    all, a file that is refused keeps the old set."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self._lock = threading.Lock()
        self._callers = self._read(allow_empty=False)
        self.generation = 0
        """How many times the tokens have been replaced (a successful
        :meth:`reload`): a call that authenticated at an older generation
        authenticates again before it goes on (:func:`current_caller`)."""
        self.reload_error: str | None = None
        """Why the last reload was refused (None: it was not): the
        TokenError's message, naming the line, never a token."""

    def _read(self, allow_empty: bool) -> tuple[tuple[bytes, Caller], ...]:
        entries = load_tokens(self.path, allow_empty)
        groups = tenant_groups(e.namespaces for e in entries)
        return tuple((e.digest, Caller.of(e, group)) for e, group in zip(entries, groups))

    def __len__(self) -> int:
        return len(self._callers)

    def reload(self) -> None:
        """Read the file again and use its tokens; a file without tokens
        revokes every token (each call is then UNAUTHENTICATED until one is
        added). Raises TokenError (a file that cannot be read or holds a
        malformed line): the old tokens stay in use, and
        :attr:`reload_error` says why until a reload succeeds."""
        try:
            callers = self._read(allow_empty=True)
        except TokenError as exc:
            self.reload_error = exc.message
            raise
        with self._lock:
            self._callers = callers
            self.generation += 1
            self.reload_error = None

    def caller(self, token: str) -> Caller | None:
        """The caller holding ``token``, None when it is not one of the
        tokens; compared in constant time against every one of them."""
        given = token_digest(token)
        found = None
        for digest, caller in self._callers:  # no early exit: every token is compared
            if hmac.compare_digest(given, digest):
                found = caller
        return found

    def accepts(self, token: str) -> bool:
        """Whether ``token`` is one of the tokens (see :meth:`caller`)."""
        return self.caller(token) is not None


def bearer_token(metadata) -> str | None:
    """The token of the ``authorization: Bearer <token>`` metadata, ``""``
    when the value is not a Bearer credential, None when there is none.
    More than one authorization value: ``""`` (refused)."""
    values = [m.value for m in metadata or () if m.key == AUTHORIZATION]
    if not values:
        return None
    if len(values) > 1 or not isinstance(values[0], str):
        return ""
    value = values[0].strip()
    if value[:len(_SCHEME)].lower() != _SCHEME:
        return ""
    return value[len(_SCHEME):].strip()


class Unauthenticated(Refusal):
    """A call without an accepted bearer token (UNAUTHENTICATED); its message
    says what to send."""

    kind = ErrorKind.NO_CREDENTIALS
    reason = "UNAUTHENTICATED"


class TokenMissing(Unauthenticated):
    """The call carries no ``authorization`` metadata (no header over HTTP).
    ``http``: worded for the HTTP face (the ``Authorization`` header)."""

    reason = "TOKEN_MISSING"

    def __init__(self, http: bool = False) -> None:
        super().__init__("this server needs a bearer token: send the header "
                         "'Authorization: Bearer <token>'" if http else
                         "this server needs a bearer token: send the call metadata "
                         "'authorization: Bearer <token>' (duetime CLI: --token or "
                         "DUETIME_TOKEN)")


NOT_ACCEPTED, NOT_BEARER, EMPTY_TOKEN, SEVERAL = "not accepted", "not bearer", "empty", "several"
"""What is wrong with a call's ``authorization`` (:class:`TokenInvalid`'s ``problem``)."""


class TokenInvalid(Unauthenticated):
    """The call's ``authorization`` is not a Bearer token this server accepts:
    ``problem`` says why (:data:`NOT_ACCEPTED`, the default; :data:`NOT_BEARER`,
    another scheme or none; :data:`EMPTY_TOKEN`, ``Bearer`` and nothing after
    it; :data:`SEVERAL`, more than one value). ``http``: worded for the HTTP
    face (the ``Authorization`` header)."""

    reason = "TOKEN_INVALID"

    def __init__(self, problem: str = NOT_ACCEPTED, http: bool = False) -> None:
        where = "the 'Authorization' header" if http else "the 'authorization' metadata"
        send = ("send the header 'Authorization: Bearer <token>'" if http else
                "send 'authorization: Bearer <token>' (duetime CLI: --token or DUETIME_TOKEN)")
        super().__init__({
            NOT_BEARER: f"{where} is not a Bearer credential (the value must start with "
                        f"'Bearer '); {send}",
            EMPTY_TOKEN: f"{where} names the Bearer scheme but holds no token after it; {send}",
            SEVERAL: f"{where} is given more than once; {send} once",
        }.get(problem, f"the bearer token in {where} is not one this server accepts"))
        self.problem = problem


def credential_problem(metadata) -> str:
    """Why the ``authorization`` of ``metadata`` holds no token
    (:func:`bearer_token` gave ``""``): :data:`SEVERAL`, :data:`EMPTY_TOKEN`
    (``Bearer`` alone) or :data:`NOT_BEARER`."""
    values = [m.value for m in metadata or () if m.key == AUTHORIZATION]
    if len(values) > 1:
        return SEVERAL
    value = values[0].strip() if values and isinstance(values[0], str) else ""
    if value.lower() == _SCHEME.strip() or value[:len(_SCHEME)].lower() == _SCHEME:
        return EMPTY_TOKEN
    return NOT_BEARER


def authenticate(tokens: TokenSet, metadata, method: str | None = None, *,
                 http: bool = False) -> Caller:
    """The :class:`Caller` of a call with ``metadata`` (items with ``key``
    and ``value``; over HTTP the request headers, lower-case names) when it
    carries one of ``tokens``; else raise TokenMissing or TokenInvalid
    (saying whether the scheme is not Bearer, the token is empty, or not
    accepted; ``http``: in the HTTP face's words). With ``method`` (the
    call's full gRPC method name), also raise ScopeMissing when the token's
    scopes do not allow it. The one check of the gRPC interceptor and the
    HTTP face."""
    token = bearer_token(metadata)
    if token is None:
        raise TokenMissing(http)
    if not token:
        raise TokenInvalid(credential_problem(metadata), http)
    caller = tokens.caller(token)
    if caller is None:
        raise TokenInvalid(NOT_ACCEPTED, http)
    if method is not None:
        caller.check_method(method)
    return caller


def caller_of(context) -> Caller:
    """The :class:`Caller` of a gRPC call, from its servicer ``context``:
    the one :class:`BearerTokenInterceptor` found, :data:`ANYONE` on a
    server without tokens."""
    return getattr(context, "caller", ANYONE)


MISSING = grpc_status(TokenMissing())
"""The status of a call without a token, as gRPC sends it."""
INVALID = grpc_status(TokenInvalid())
"""The status of a call with a token not accepted, as gRPC sends it."""


def _refusal(handler: grpc.RpcMethodHandler, status: grpc.Status) -> grpc.RpcMethodHandler:
    """A handler of the same kind as ``handler`` that ends the call with
    ``status`` without reading the request (no deserializer)."""

    def refuse(_request, context):
        context.abort_with_status(status)

    if handler.unary_unary:
        return grpc.unary_unary_rpc_method_handler(refuse)
    if handler.unary_stream:
        return grpc.unary_stream_rpc_method_handler(refuse)
    if handler.stream_unary:
        return grpc.stream_unary_rpc_method_handler(refuse)
    return grpc.stream_stream_rpc_method_handler(refuse)


def current_caller(context) -> Caller:
    """The :class:`Caller` of a gRPC call that is still going on (a stream),
    from its servicer ``context``, as the token set stands now: while the
    tokens have not been reloaded since the call authenticated, the caller
    it found (one integer compared); after a reload, its token is checked
    again (:func:`authenticate`, scope included), raising TokenInvalid when
    it was revoked or ScopeMissing when its scope was taken away."""
    tokens = getattr(context, "tokens", None)
    if tokens is None or tokens.generation == context.generation:
        return caller_of(context)
    generation = tokens.generation
    caller = authenticate(tokens, context.invocation_metadata(), context.method)
    context.caller, context.generation = caller, generation
    return caller


class _CallerContext:
    """A servicer context carrying the call's :class:`Caller` (read with
    :func:`caller_of`), and the token set, its generation when the caller
    was found and the call's method (for :func:`current_caller`);
    everything else is the wrapped context's."""

    __slots__ = ("_context", "caller", "tokens", "generation", "method")

    def __init__(self, context, caller: Caller, tokens: TokenSet | None = None,
                 generation: int = 0, method: str | None = None):
        self._context = context
        self.caller = caller
        self.tokens = tokens
        self.generation = generation
        self.method = method

    def __getattr__(self, name: str):
        return getattr(self._context, name)


def _with_caller(handler: grpc.RpcMethodHandler, caller: Caller, tokens: TokenSet | None = None,
                 generation: int = 0, method: str | None = None) -> grpc.RpcMethodHandler:
    """``handler`` whose behaviour sees a context carrying ``caller`` (found
    in ``tokens`` at ``generation`` for ``method``: see :class:`_CallerContext`)."""
    kind = ("unary_unary" if handler.unary_unary else "unary_stream" if handler.unary_stream
            else "stream_unary" if handler.stream_unary else "stream_stream")
    behavior = getattr(handler, kind)

    def with_caller(request, context):
        note = getattr(context, "note_caller", None)  # the call observer's, for its log line
        if note is not None:
            note(caller)
        return behavior(request, _CallerContext(context, caller, tokens, generation, method))

    return handler._replace(**{kind: with_caller})


class BearerTokenInterceptor(grpc.ServerInterceptor):
    """Refuses every call without an accepted bearer token (see the module
    docstring), except the methods in :data:`OPEN_METHODS`, and every call
    its token's scopes do not allow; hands the call's :class:`Caller` on to
    the servicer (:func:`caller_of`)."""

    def __init__(self, tokens: TokenSet):
        self.tokens = tokens

    def intercept_service(self, continuation, handler_call_details):
        handler = continuation(handler_call_details)
        method = handler_call_details.method
        if handler is None or method in OPEN_METHODS:
            return handler
        generation = self.tokens.generation
        try:
            caller = authenticate(self.tokens, handler_call_details.invocation_metadata, method)
        except TokenMissing:
            return _refusal(handler, MISSING)
        except TokenInvalid as exc:
            return _refusal(handler, INVALID if exc.problem == NOT_ACCEPTED else grpc_status(exc))
        except ScopeMissing as exc:
            return _refusal(handler, grpc_status(exc))
        if caller is ANYONE:
            return handler
        return _with_caller(handler, caller, self.tokens, generation, method)
