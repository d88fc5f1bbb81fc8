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
padding). :func:`load_tokens` refuses a file that cannot be read, holds no
token, or holds a line that is not a token (naming the line, never showing
it). Tokens are never logged.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import threading
from pathlib import Path

import grpc
from google.protobuf import any_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status

from duetime.config import ConfigError

AUTHORIZATION = "authorization"
"""The call metadata key carrying the token (gRPC metadata keys are lower case)."""
OPEN_METHODS = frozenset({"/grpc.health.v1.Health/Check", "/grpc.health.v1.Health/Watch"})
"""Methods answered without a token."""
ERROR_DOMAIN = "duetime.dev"
MAX_TOKEN = 4096
_TOKEN = re.compile(r"[A-Za-z0-9._~+/-]+=*")
_SCHEME = "bearer "


class TokenError(ConfigError):
    """A token file that cannot be used (a :class:`ConfigError` on ``--auth-tokens``)."""

    def __init__(self, message: str):
        super().__init__("--auth-tokens", message)


def load_tokens(path: Path) -> tuple[bytes, ...]:
    """The tokens in ``path``, each as the SHA-256 digest it is compared by.
    Raises TokenError (the file cannot be read, holds no token, or a line
    that is not a token)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        why = getattr(exc, "strerror", None) or str(exc)
        raise TokenError(f"cannot read {path}: {why}") from None
    digests = []
    for number, line in enumerate(text.splitlines(), start=1):
        token = line.strip()
        if not token or token.startswith("#"):
            continue
        if len(token) > MAX_TOKEN or not _TOKEN.fullmatch(token):
            raise TokenError(f"{path} line {number} is not a bearer token (1-{MAX_TOKEN} "
                             "characters of A-Z a-z 0-9 - . _ ~ + /, then = padding)")
        digests.append(_digest(token))
    if not digests:
        raise TokenError(f"{path} holds no token (one token a line; blank lines and # comments "
                         "are skipped)")
    return tuple(digests)


def _digest(token: str) -> bytes:
    return hashlib.sha256(token.encode("utf-8")).digest()


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
        given = _digest(token)
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


def _unauthenticated(reason: str, message: str) -> grpc.Status:
    info = error_details_pb2.ErrorInfo(reason=reason, domain=ERROR_DOMAIN)
    packed = any_pb2.Any()
    packed.Pack(info)
    return rpc_status.to_status(status_pb2.Status(code=code_pb2.UNAUTHENTICATED, message=message,
                                                  details=[packed]))


MISSING = _unauthenticated(
    "TOKEN_MISSING", "this server needs a bearer token: send the call metadata "
                     "'authorization: Bearer <token>' (duetime CLI: --token or DUETIME_TOKEN)")
INVALID = _unauthenticated(
    "TOKEN_INVALID", "the bearer token in the 'authorization' metadata is not one this server "
                     "accepts")


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
        token = bearer_token(handler_call_details.invocation_metadata)
        if token is None:
            return _refusal(handler, MISSING)
        if not token or not self.tokens.accepts(token):
            return _refusal(handler, INVALID)
        return handler
