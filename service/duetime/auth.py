"""Bearer-token authentication of gRPC calls (``duetime serve --auth-tokens FILE``).

A caller sends the call metadata ``authorization: Bearer <token>`` (RFC 6750
§2.1, the scheme name in any case); :class:`BearerTokenInterceptor` lets the
call through when the token equals one of the tokens of the file, compared in
constant time (:func:`hmac.compare_digest` of SHA-256 digests, against every
token, so neither the position of a match nor a token's length shows in the
timing). Otherwise the call ends ``UNAUTHENTICATED`` before its request is
parsed, with a ``google.rpc.ErrorInfo`` (domain ``duetime.dev``, reason
``TOKEN_MISSING`` or ``TOKEN_INVALID``) and a message saying what to send.

Open without a token: the gRPC health service (``grpc.health.v1.Health``,
Check and Watch), so a load balancer or ``duetime health`` can probe a server
without holding a secret. Everything else needs one, server reflection
included (it lists the API to whoever asks; give grpcurl ``-H
'authorization: Bearer …'``).

The token file has one token per line; blank lines and lines starting with
``#`` are skipped, surrounding spaces ignored. A token is 1–4096 characters
of RFC 6750's b64token alphabet (``A-Z a-z 0-9 - . _ ~ + /``, then ``=``
padding). :func:`duetime.config.load_tokens` (the configuration checks the
file with it too) refuses a file that cannot be read, holds no token, or
holds a line that is not a token (naming the line, never showing it). Tokens
are never logged.

A refusal is a :class:`TokenMissing` or :class:`TokenInvalid` (one model with
every other refusal, :class:`duetime.core.Refusal`); its status comes from the
one status table (:mod:`duetime.api.status`), and the HTTP face checks a
request's headers with the same :func:`authenticate`.
"""

from __future__ import annotations

import hmac
import threading
from pathlib import Path

import grpc

from duetime.api.status import grpc_status
from duetime.config import MAX_TOKEN, TokenError, load_tokens, token_digest
from duetime.core.errors import ErrorKind, Refusal

__all__ = ["AUTHORIZATION", "INVALID", "MAX_TOKEN", "MISSING", "OPEN_METHODS",
           "BearerTokenInterceptor", "TokenError", "TokenInvalid", "TokenMissing", "TokenSet",
           "Unauthenticated", "authenticate", "bearer_token", "load_tokens"]

AUTHORIZATION = "authorization"
"""The call metadata key carrying the token (gRPC metadata keys are lower case)."""
OPEN_METHODS = frozenset({"/grpc.health.v1.Health/Check", "/grpc.health.v1.Health/Watch"})
"""Methods answered without a token."""
_SCHEME = "bearer "


class TokenSet:
    """The accepted tokens, read from a file; :meth:`reload` rereads it
    (SIGHUP), keeping the old set when the new file is refused."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self._digests = load_tokens(self.path)
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._digests)

    def reload(self) -> None:
        """Read the file again and use its tokens. Raises TokenError (the old
        tokens stay in use)."""
        digests = load_tokens(self.path)
        with self._lock:
            self._digests = digests

    def accepts(self, token: str) -> bool:
        """Whether ``token`` is one of the tokens, compared in constant time
        against every one of them."""
        given = token_digest(token)
        found = False
        for digest in self._digests:  # no early exit: every token is compared
            found |= hmac.compare_digest(given, digest)
        return found


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
    """The call carries no ``authorization`` metadata (no header over HTTP)."""

    reason = "TOKEN_MISSING"

    def __init__(self) -> None:
        super().__init__("this server needs a bearer token: send the call metadata "
                         "'authorization: Bearer <token>' (duetime CLI: --token or "
                         "DUETIME_TOKEN)")


class TokenInvalid(Unauthenticated):
    """The call's ``authorization`` is not a Bearer token this server accepts."""

    reason = "TOKEN_INVALID"

    def __init__(self) -> None:
        super().__init__("the bearer token in the 'authorization' metadata is not one this "
                         "server accepts")


def authenticate(tokens: TokenSet, metadata) -> None:
    """Let a call with ``metadata`` (items with ``key`` and ``value``; over
    HTTP the request headers, lower-case names) through when it carries one
    of ``tokens``; else raise TokenMissing or TokenInvalid. The one check of
    the gRPC interceptor and the HTTP face."""
    token = bearer_token(metadata)
    if token is None:
        raise TokenMissing()
    if not token or not tokens.accepts(token):
        raise TokenInvalid()


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


class BearerTokenInterceptor(grpc.ServerInterceptor):
    """Refuses every call without an accepted bearer token (see the module
    docstring), except the methods in :data:`OPEN_METHODS`."""

    def __init__(self, tokens: TokenSet):
        self.tokens = tokens

    def intercept_service(self, continuation, handler_call_details):
        handler = continuation(handler_call_details)
        if handler is None or handler_call_details.method in OPEN_METHODS:
            return handler
        try:
            authenticate(self.tokens, handler_call_details.invocation_metadata)
        except TokenMissing:
            return _refusal(handler, MISSING)
        except TokenInvalid:
            return _refusal(handler, INVALID)
        return handler
