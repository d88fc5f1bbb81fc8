"""Client channels to a duetime server: plain, TLS or mutual TLS, with a bearer token.

Used by the command line (``--server`` with ``--tls``, ``--tls-ca``,
``--tls-cert``/``--tls-key``, ``--token`` or ``DUETIME_TOKEN``) and by
:class:`duetime.client.DuetimeClient`::

    channel = open_channel("duetime.internal:50051", ConnectionOptions(
        tls_ca="ca.pem", tls_cert="client.pem", tls_key="client.key", token="s3cr3t"))

TLS is used when any of ``tls``, ``tls_ca``, ``tls_cert`` is set: the
server's certificate is checked against ``tls_ca`` (PEM), or the system's
root certificates without it, and must name the host of the target (a
certificate for ``127.0.0.1`` needs that IP address among its names). A
client certificate (``tls_cert`` with its ``tls_key``) is what a mutual-TLS
server asks for. The token is sent as ``authorization: Bearer <token>``
metadata on every call; without TLS it travels in clear text, so use it so
only on a trusted network (a loopback, a mesh that encrypts).
"""

from __future__ import annotations

import collections
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import grpc

TOKEN_ENV = "DUETIME_TOKEN"
"""Environment variable the command line reads the bearer token from (when no ``--token``)."""
PathOrPem = str | os.PathLike[str] | bytes


class ChannelError(ValueError):
    """Connection options that cannot be used; ``option`` names the one at fault."""

    def __init__(self, option: str, message: str):
        super().__init__(f"{option}: {message}")
        self.option = option
        self.message = message


@dataclass(frozen=True)
class ConnectionOptions:
    """How to reach a server: TLS files (paths, or PEM bytes), a bearer token."""

    tls: bool = False
    tls_ca: PathOrPem | None = None
    tls_cert: PathOrPem | None = None
    tls_key: PathOrPem | None = None
    token: str | None = None

    @property
    def uses_tls(self) -> bool:
        return bool(self.tls or self.tls_ca or self.tls_cert)


def _pem(value: PathOrPem | None, option: str) -> bytes | None:
    if value is None or isinstance(value, bytes):
        return value
    try:
        data = Path(value).read_bytes()
    except OSError as exc:
        raise ChannelError(option, f"cannot read {value}: {exc.strerror or exc}") from None
    if b"-----BEGIN " not in data:
        raise ChannelError(option, f"{value} is not a PEM file (no -----BEGIN line)")
    return data


def channel_credentials(options: ConnectionOptions) -> grpc.ChannelCredentials:
    """The TLS credentials of ``options`` (see the module docstring).
    Raises ChannelError for a certificate without its key (or the reverse)
    or a file that cannot be read."""
    if (options.tls_cert is None) != (options.tls_key is None):
        given = "tls_cert" if options.tls_key is None else "tls_key"
        raise ChannelError(given, "a client certificate and its private key go together; "
                                  "give both or neither")
    return grpc.ssl_channel_credentials(
        root_certificates=_pem(options.tls_ca, "tls_ca"),
        private_key=_pem(options.tls_key, "tls_key"),
        certificate_chain=_pem(options.tls_cert, "tls_cert"))


class _CallDetails(
        collections.namedtuple("_CallDetails", ("method", "timeout", "metadata", "credentials",
                                                "wait_for_ready", "compression")),
        grpc.ClientCallDetails):
    pass


class BearerToken(grpc.UnaryUnaryClientInterceptor, grpc.UnaryStreamClientInterceptor,
                  grpc.StreamUnaryClientInterceptor, grpc.StreamStreamClientInterceptor):
    """Adds ``authorization: Bearer <token>`` to the metadata of every call."""

    def __init__(self, token: str):
        self._header = ("authorization", f"Bearer {token}")

    def _details(self, details: grpc.ClientCallDetails) -> _CallDetails:
        metadata = [m for m in details.metadata or () if m[0] != "authorization"]
        return _CallDetails(details.method, details.timeout, [*metadata, self._header],
                            details.credentials, details.wait_for_ready,
                            getattr(details, "compression", None))

    def intercept_unary_unary(self, continuation, details, request):
        return continuation(self._details(details), request)

    def intercept_unary_stream(self, continuation, details, request):
        return continuation(self._details(details), request)

    def intercept_stream_unary(self, continuation, details, request_iterator):
        return continuation(self._details(details), request_iterator)

    def intercept_stream_stream(self, continuation, details, request_iterator):
        return continuation(self._details(details), request_iterator)


def open_channel(target: str, options: ConnectionOptions | None = None,
                 channel_options: Sequence[tuple[str, object]] = ()) -> grpc.Channel:
    """A channel to ``target`` (``host:port``) as ``options`` say (None:
    plain, no token); ``channel_options`` are gRPC channel arguments.
    Raises ChannelError (see :func:`channel_credentials`)."""
    options = options or ConnectionOptions()
    if options.uses_tls:
        channel = grpc.secure_channel(target, channel_credentials(options),
                                      options=list(channel_options))
    else:
        if options.tls_key is not None:
            raise ChannelError("tls_key", "a client certificate and its private key go "
                                          "together; give both or neither")
        channel = grpc.insecure_channel(target, options=list(channel_options))
    if options.token:
        token = options.token.strip()
        if not token or not all("!" <= c <= "~" for c in token):
            # gRPC metadata values are visible ASCII; anything else fails the
            # call as INTERNAL "Invalid metadata" after a C-core trace
            raise ChannelError("token", "is empty or holds a character other than visible "
                                        "ASCII (letters, digits, punctuation)")
        channel = grpc.intercept_channel(channel, BearerToken(options.token.strip()))
    return channel
